/* tests/check_cli.c: the league binary's usage contract, run for real:
 * --help everywhere, exit status 2 with a one-line hint for unknown
 * commands and flags, and config check on good and broken files. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/testutil.h"

static char dir[128];
static char out[65536], err[8192];

static void setup(void)
{
	tu_mkdtemp(dir, sizeof dir);
}

static void teardown(void)
{
	tu_rmrf(dir);
}

#define RUN(...) tu_run_league(out, sizeof out, err, sizeof err, \
			       (const char *const[]){ __VA_ARGS__, NULL })

START_TEST(help_for_every_command)
{
	char names[32][32];
	int n = 0;

	ck_assert_int_eq(RUN("--help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: league COMMAND"));
	/* Command lines look like "  name   summary". */
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "  ", 2) && line[2] != ' ' && n < 32)
			sscanf(line + 2, "%31s", names[n++]);
	ck_assert_int_ge(n, 2);
	for (int i = 0; i < n; i++) {
		ck_assert_msg(RUN(names[i], "--help") == 0, "%s --help", names[i]);
		ck_assert_msg(strstr(out, "usage: league"), "%s: %s", names[i], out);
		ck_assert_msg(RUN("help", names[i]) == 0, "help %s", names[i]);
	}
}
END_TEST

static int one_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl && nl[1] == 0;
}

START_TEST(unknown_command_and_flags_exit_2)
{
	ck_assert_int_eq(RUN("frobnicate"), 2);
	ck_assert_ptr_nonnull(strstr(err, "unknown command 'frobnicate'"));
	ck_assert_ptr_nonnull(strstr(err, "league --help"));
	ck_assert(one_line(err));
	ck_assert_int_eq(RUN("--frob"), 2);
	ck_assert(one_line(err));
	ck_assert_int_eq(RUN("config", "check", "--bogus", "x.yaml"), 2);
	ck_assert_ptr_nonnull(strstr(err, "unknown option '--bogus'"));
	ck_assert(one_line(err));
	ck_assert_int_eq(RUN("config", "frob"), 2);
	ck_assert(one_line(err));
	ck_assert_int_eq(RUN("config", "check"), 2);
	ck_assert(one_line(err));
	ck_assert_int_eq(RUN("bench", "nope"), 2);
	ck_assert(one_line(err));
	ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0,
				       (const char *const[]){ NULL }), 2);
}
END_TEST

START_TEST(config_check_good_prints_loadable_yaml)
{
	char cfgpath[256], effpath[256], first[sizeof out];

	snprintf(cfgpath, sizeof cfgpath, "%s/configs/default.yaml",
		 tu_src_dir());
	ck_assert_int_eq(RUN("config", "check", cfgpath), 0);
	ck_assert_ptr_nonnull(strstr(out, "\n  name: \"rps\"\n"));
	ck_assert_ptr_nonnull(strstr(out, "  hidden: [32]\n"));
	/* The printed config passes config check and prints the same keys. */
	snprintf(effpath, sizeof effpath, "%s/effective.yaml", dir);
	tu_write_file(effpath, out);
	strcpy(first, strchr(out, '\n'));
	ck_assert_int_eq(RUN("config", "check", effpath), 0);
	ck_assert_str_eq(strchr(out, '\n'), first);
	ck_assert_int_eq(RUN("config", "check", "--quiet", cfgpath), 0);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(config_check_bad_exits_2_naming_place)
{
	char path[256];

	snprintf(path, sizeof path, "%s/bad.yaml", dir);
	tu_write_file(path, "league:\n  seed: 1\nlearner:\n  gamma: 1.5\n");
	ck_assert_int_eq(RUN("config", "check", path), 2);
	ck_assert_ptr_nonnull(strstr(err, "bad.yaml:4:10: learner.gamma: "
				     "expected a number in [0, 1], got '1.5'"));
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(RUN("config", "check", "/nonexistent.yaml"), 2);
	ck_assert_ptr_nonnull(strstr(err, "cannot open"));
}
END_TEST


/* `league serve CFG --dir D` in a child killed by SIGALRM after 20 s (a
 * daemon that starts does not exit by itself): its exit status, or 128 +
 * the signal; its stderr in err. */
static int serve_bounded(const char *cfg, const char *d)
{
	int pfd[2], st = 0;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_ge(pid = fork(), 0);
	if (!pid) {
		alarm(20);
		dup2(pfd[1], 2);
		dup2(pfd[1], 1);
		close(pfd[0]);
		unsetenv("LEAGUE_TOKEN");
		execl(tu_league_bin(), "league", "serve", cfg, "--dir", d,
		      "--nosync", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (n + 1 < sizeof err &&
	       (r = read(pfd[0], err + n, sizeof err - 1 - n)) > 0)
		n += (size_t)r;
	err[n] = 0;
	close(pfd[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* server.token_file follows LEAGUE_TOKEN's rules: a token longer than 255
 * bytes is refused at start naming the file and the limit (it used to be
 * cut to its first 255 bytes, which were then accepted), and so is a file
 * of more than one line. */
START_TEST(serve_token_file_too_long_refused)
{
	char cfg[256], tok[256], ld[256], text[1024], big[512];

	snprintf(cfg, sizeof cfg, "%s/l.yaml", dir);
	snprintf(tok, sizeof tok, "%s/token", dir);
	snprintf(ld, sizeof ld, "%s/league", dir);
	snprintf(text, sizeof text, "env: {name: rps}\nserver:\n  port: 0\n"
		 "  http_port: 0\n  token_file: %s\n", tok);
	tu_write_file(cfg, text);
	memset(big, 'k', 300);
	big[300] = '\n';
	big[301] = 0;
	tu_write_file(tok, big);
	ck_assert_int_eq(serve_bounded(cfg, ld), 2);
	ck_assert_msg(strstr(err, tok) && strstr(err, "255"), "%s", err);
	tu_write_file(tok, "first\nsecond\n");
	ck_assert_int_eq(serve_bounded(cfg, ld), 2);
	ck_assert_msg(strstr(err, tok) && strstr(err, "more than one line"),
		      "%s", err);
}
END_TEST

Suite *suite_cli(void)
{
	Suite *s = suite_create("cli");
	const struct tu_test core_tests[] = {
		{ help_for_every_command, 1 },
		{ unknown_command_and_flags_exit_2, 1 },
		{ config_check_good_prints_loadable_yaml, 1 },
		{ config_check_bad_exits_2_naming_place, 1 },
		{ serve_token_file_too_long_refused, 1 },
	};

	/* help_for_every_command starts the binary 25 times: ~0.17 s each
	 * under ASan on a loaded 2-core machine, past check's 4 s default. */
	TCase *tc = TU_TCASE(s, "core", 30, core_tests);
	tcase_add_checked_fixture(tc, setup, teardown);
	return s;
}
