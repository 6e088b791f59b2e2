/* tests/testutil.c: temp dirs and running the binary under test. */
#include "tests/testutil.h"

#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void tu_mkdtemp(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/league-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(buf));
}

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

void tu_rmrf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void tu_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

const char *tu_league_bin(void)
{
	const char *b = getenv("LEAGUE_BIN");

	return b && *b ? b : "bin/league";
}

const char *tu_src_dir(void)
{
	const char *s = getenv("LEAGUE_SRC");

	return s && *s ? s : ".";
}

static void slurp(int fd, char *buf, size_t len)
{
	size_t used = 0;
	char scratch[4096];

	for (;;) {
		ssize_t n;
		if (buf && used + 1 < len)
			n = read(fd, buf + used, len - 1 - used);
		else
			n = read(fd, scratch, sizeof scratch);
		if (n <= 0)
			break;
		if (buf && used + 1 < len)
			used += (size_t)n;
	}
	if (buf && len)
		buf[used] = 0;
}

int tu_run_league(char *out, size_t outlen, char *err, size_t errlen,
		  const char *const *argv)
{
	int fo, fe, status;
	char outf[] = "/tmp/league-out-XXXXXX", errf[] = "/tmp/league-err-XXXXXX";
	pid_t pid;
	size_t argc = 0;
	char **args;

	/* Files rather than pipes: no deadlock however much the child prints. */
	fo = mkstemp(outf);
	fe = mkstemp(errf);
	ck_assert_int_ge(fo, 0);
	ck_assert_int_ge(fe, 0);
	unlink(outf);
	unlink(errf);
	while (argv[argc])
		argc++;
	args = calloc(argc + 2, sizeof *args);
	ck_assert_ptr_nonnull(args);
	args[0] = strdup(tu_league_bin());
	for (size_t i = 0; i < argc; i++)
		args[i + 1] = strdup(argv[i]);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		execv(args[0], args);
		_exit(127);
	}
	for (size_t i = 0; i <= argc; i++)
		free(args[i]);
	free(args);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	lseek(fo, 0, SEEK_SET);
	lseek(fe, 0, SEEK_SET);
	slurp(fo, out, outlen);
	slurp(fe, err, errlen);
	close(fo);
	close(fe);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
