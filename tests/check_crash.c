/* tests/check_crash.c: crash safety and visible failure, through the real
 * binary.
 *
 *   - a truncated data.mdb (several truncation points, from one page short
 *     to nothing) is exit 1 and "DIR/data.mdb: damaged store (N bytes,
 *     expected M)" for every command that opens it, never a SIGBUS;
 *   - `league run --overwrite` (and --resume) on a league a process still
 *     runs exits 2 naming that process, and the league goes on intact;
 *   - `league run` gives up with exit 1 and the cause on the console when
 *     its collector keeps dying with nothing played (a game that
 *     segfaults in step, one with an empty legal mask), and names the
 *     daemon's first error when the daemon does not start. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "storage/storage.h"
#include "tests/testutil.h"
#include "util/util.h"

/* A small rock-paper-scissors league in dir/league, played to its budget
 * by `league run`; its config is dir/rps.yaml. */
static void small_league(const char *dir, const char *budget, char *cfg,
			 size_t cfglen, char *ldir, size_t ldirlen)
{
	static char out[1 << 16], err[1 << 16];
	char text[1024];

	snprintf(cfg, cfglen, "%s/rps.yaml", dir);
	snprintf(ldir, ldirlen, "%s/league", dir);
	snprintf(text, sizeof text,
		 "league: {name: crash, seed: 5}\n"
		 "env: {name: rps}\n"
		 "model: {hidden: [8]}\n"
		 "learner: {batch: 64, minibatch: 32, epochs: 1}\n"
		 "players: {main: 1}\n"
		 "snapshot: {steps: 500}\n"
		 "matchmaking: {job_episodes: 4, job_lease_s: 5}\n"
		 "collectors: {count: 1, envs: 4, wait_num: 4}\n"
		 "budget: %s\n", budget);
	tu_write_file(cfg, text);
	if (strstr(budget, "jobs: 20")) {
		const char *argv[] = { "run", cfg, "--dir", ldir, "--quiet",
				       NULL };
		int rc = tu_run_league(out, sizeof out, err, sizeof err, argv);
		ck_assert_msg(rc == 0, "league run: %d\n%s", rc, err);
	}
}

/* The length data.mdb needs, as its meta pages say. */
static uint64_t needed_length(const char *ldir)
{
	static uint8_t head[70000];
	char path[300], why[160];
	uint64_t expected = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof path, "%s/data.mdb", ldir);
	ck_assert_ptr_nonnull(f = fopen(path, "rb"));
	n = fread(head, 1, sizeof head, f);
	fseek(f, 0, SEEK_END);
	uint64_t len = (uint64_t)ftell(f);
	fclose(f);
	ck_assert_int_eq(store_meta_check(head, n, len, &expected, why,
					  sizeof why), 0);
	return expected;
}

START_TEST(damaged_store_is_an_error_for_every_command)
{
	static char out[1 << 16], err[1 << 16];
	char dir[128], cfg[256], ldir[192], mdb[256], agent[256], want[96];
	struct stat sb;

	tu_mkdtemp(dir, sizeof dir);
	small_league(dir, "{seconds: 60, jobs: 20}", cfg, sizeof cfg, ldir,
		     sizeof ldir);
	snprintf(mdb, sizeof mdb, "%s/data.mdb", ldir);
	snprintf(agent, sizeof agent, "%s/main.agent", dir);
	uint64_t need = needed_length(ldir);
	ck_assert_uint_gt(need, 4 * 4096);
	/* one page short, the middle, just after the meta pages, inside
	 * them, nothing */
	const uint64_t cuts[] = { need - 4096, need / 2, 8192, 6000, 0 };
	const char *const cmds[][8] = {
		{ "payoff", ldir, NULL },
		{ "players", ldir, NULL },
		{ "ratings", ldir, NULL },
		{ "export", ldir, "--player", "0", "-o", agent, NULL },
		{ "serve", cfg, "--dir", ldir, "--resume", NULL },
	};
	for (size_t i = 0; i < LG_ARRAY_LEN(cuts); i++) {
		ck_assert_int_eq(truncate(mdb, (off_t)cuts[i]), 0);
		snprintf(want, sizeof want, "data.mdb: damaged store (%llu "
			 "bytes, expected ", (unsigned long long)cuts[i]);
		for (size_t k = 0; k < LG_ARRAY_LEN(cmds); k++) {
			int rc = tu_run_league(out, sizeof out, err,
					       sizeof err, cmds[k]);
			ck_assert_msg(rc == 1 && strstr(err, want),
				      "league %s, %llu bytes: exit %d\n%s",
				      cmds[k][0],
				      (unsigned long long)cuts[i], rc, err);
		}
		/* the writer that refused it left it as it was */
		ck_assert_int_eq(stat(mdb, &sb), 0);
		ck_assert_uint_eq((uint64_t)sb.st_size, cuts[i]);
	}
	tu_rmrf(dir);
}
END_TEST

/* Results the league has committed (job results, kept for idempotence):
 * a count that never goes back. */
static uint64_t committed_results(const char *ldir)
{
	struct store_opts ro = { .flags = STORE_RDONLY };
	char err[700];
	store *s;
	store_txn *t;
	uint64_t n = 0;

	ck_assert_msg(store_open(&s, ldir, &ro, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	ck_assert_int_eq(store_count(t, STORE_DB_RESULTS, &n), 0);
	store_txn_abort(t);
	store_close(s);
	return n;
}

START_TEST(overwrite_refuses_a_running_league)
{
	static char out[1 << 16], err[1 << 16];
	char dir[128], cfg[256], ldir[192], ports[256], log[256], pidtxt[64];
	pid_t run;
	int st;

	tu_mkdtemp(dir, sizeof dir);
	small_league(dir, "{seconds: 300}", cfg, sizeof cfg, ldir,
		     sizeof ldir);
	snprintf(ports, sizeof ports, "%s/ports", ldir);
	snprintf(log, sizeof log, "%s/run.out", dir);
	run = fork();
	ck_assert_int_ge(run, 0);
	if (run == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(tu_league_bin(), "league", "run", cfg, "--dir", ldir,
		      "--quiet", (char *)NULL);
		_exit(127);
	}
	/* until the league has committed results */
	double t0 = lg_now_s();
	uint64_t before = 0;
	while (lg_now_s() - t0 < 120) {
		struct stat sb;
		if (!stat(ports, &sb) && (before = committed_results(ldir)))
			break;
		ck_assert_int_eq(waitpid(run, &st, WNOHANG), 0);
		lg_sleep_s(0.1);
	}
	ck_assert_uint_gt(before, 0);
	const char *over[] = { "run", cfg, "--dir", ldir, "--overwrite",
			       "--quiet", NULL };
	const char *res[] = { "run", cfg, "--dir", ldir, "--resume",
			      "--quiet", NULL };
	for (int k = 0; k < 2; k++) {
		int rc = tu_run_league(out, sizeof out, err, sizeof err,
				       k ? res : over);
		ck_assert_msg(rc == 2, "exit %d\n%s", rc, err);
		const char *p = strstr(err, "in use by another writer (pid ");
		ck_assert_msg(p != NULL, "%s", err);
		long pid = strtol(p + strlen("in use by another writer (pid "),
				  NULL, 10);
		/* the live daemon's pid */
		ck_assert_int_gt(pid, 1);
		ck_assert_int_eq(kill((pid_t)pid, 0), 0);
		snprintf(pidtxt, sizeof pidtxt, "%ld", pid);
	}
	/* intact: it opens, nothing went back, and it goes on to a clean
	 * stop with its own matrix */
	uint64_t after = committed_results(ldir);
	ck_assert_uint_ge(after, before);
	t0 = lg_now_s();
	while (committed_results(ldir) <= after && lg_now_s() - t0 < 120)
		lg_sleep_s(0.1);
	ck_assert_uint_gt(committed_results(ldir), after);
	kill(run, SIGTERM);
	ck_assert_int_eq(waitpid(run, &st, 0), run);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "run: %d", st);
	tu_rmrf(dir);
}
END_TEST

/* `league run` of a one-collector league on the test plugin `plugin`,
 * giving up after two restarts: its exit status, stderr in err. */
static int run_plugin(const char *dir, const char *plugin, char *err,
		      size_t errlen)
{
	static char out[1 << 16];
	char cfg[256], ldir[192], so[256], text[1024];
	const char *ex = getenv("LEAGUE_EXAMPLES");

	snprintf(so, sizeof so, "%s/%s.so", ex ? ex : "build/release/examples",
		 plugin);
	snprintf(cfg, sizeof cfg, "%s/%s.yaml", dir, plugin);
	snprintf(ldir, sizeof ldir, "%s/%s", dir, plugin);
	snprintf(text, sizeof text,
		 "league: {name: %s, seed: 3}\n"
		 "env: {plugin: %s}\n"
		 "model: {hidden: [8]}\n"
		 "learner: {batch: 256, minibatch: 64}\n"
		 "players: {main: 1, main_exploiter: 0, league_exploiter: 0}\n"
		 "matchmaking: {job_episodes: 16}\n"
		 "collectors: {count: 1, envs: 4, wait_num: 4, mode: serial}\n"
		 "run: {max_restarts_without_episode: 2}\n"
		 "budget: {seconds: 600}\n", plugin, so);
	tu_write_file(cfg, text);
	const char *argv[] = { "run", cfg, "--dir", ldir, "--quiet", NULL };
	return tu_run_league(out, sizeof out, err, errlen, argv);
}

/* The console's last line. */
static const char *last_line(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == '\n')
		s[--n] = 0;
	const char *p = strrchr(s, '\n');
	return p ? p + 1 : s;
}

/* A plugin that cannot play (a crash at its first move, an empty mask
 * for the seat to move) is refused by league run before any job: the
 * config check plays it in a child process first (league env check). */
START_TEST(run_refuses_a_game_that_cannot_play)
{
	static char err[1 << 16];
	char dir[128];
	int rc;

	tu_mkdtemp(dir, sizeof dir);
	rc = run_plugin(dir, "segv_step", err, sizeof err);
	const char *l = last_line(err);
	ck_assert_msg(rc == 2, "exit %d\n%s", rc, err);
	/* the sanitizer builds catch the fault themselves: an exit status */
	ck_assert_msg(strstr(l, "env.plugin: game 'coin' ") &&
			      (strstr(l, "crashed (signal 11, ") ||
			       strstr(l, "stopped league env check with exit "
					 "status")),
		      "%s", err);
	rc = run_plugin(dir, "bad_mask", err, sizeof err);
	l = last_line(err);
	ck_assert_msg(rc == 2, "exit %d\n%s", rc, err);
	ck_assert_msg(strstr(l, "env.plugin: game 'coin' fails league env "
			     "check: legal(seat 0) gave an empty mask to the "
			     "seat to move at step 0 (playouts)"),
		      "%s", err);
	tu_rmrf(dir);
}
END_TEST

START_TEST(run_names_why_the_daemon_did_not_start)
{
	static char out[1 << 16], err[1 << 16];
	char dir[128], cfg[256], ldir[192], kuhn[256];
	int rc;

	tu_mkdtemp(dir, sizeof dir);
	small_league(dir, "{seconds: 60, jobs: 20}", cfg, sizeof cfg, ldir,
		     sizeof ldir);
	snprintf(kuhn, sizeof kuhn, "%s/kuhn.yaml", dir);
	tu_write_file(kuhn, "league: {name: crash, seed: 5}\n"
			    "env: {name: kuhn}\n"
			    "budget: {seconds: 60}\n");
	const char *argv[] = { "run", kuhn, "--dir", ldir, "--resume",
			       "--quiet", NULL };
	rc = tu_run_league(out, sizeof out, err, sizeof err, argv);
	ck_assert_msg(rc == 1, "exit %d\n%s", rc, err);
	const char *l = last_line(err);
	ck_assert_msg(strstr(l, "league run: the daemon did not start") &&
			      strstr(l, "the league plays 'rps', the config "
				     "says env.name 'kuhn'") &&
			      strstr(l, "daemon.log)"),
		      "%s", err);
	tu_rmrf(dir);
}
END_TEST

/* A game server (env.serve) that dies at every env's first reset: run
 * restarts it like a worker, then gives up with its last words. */
START_TEST(run_gives_up_on_a_game_server_that_keeps_dying)
{
	static char out[1 << 16], err[1 << 16];
	char dir[128], cfg[256], ldir[192], script[256], text[2048];
	int rc;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(script, sizeof script, "%s/dies.py", dir);
	snprintf(text, sizeof text,
		 "import os, sys\n"
		 "sys.path.insert(0, '%s/python')\n"
		 "from league_game import Game, serve\n"
		 "class Dies(Game):\n"
		 "    name = 'dies'\n"
		 "    num_actions = 2\n"
		 "    obs_shape = (1,)\n"
		 "    max_steps = 4\n"
		 "    def reset(self, seed):\n"
		 "        sys.stderr.write('dies: gone at the first reset\\n')\n"
		 "        sys.stderr.flush()\n"
		 "        os._exit(3)\n"
		 "serve(Dies)\n", tu_src_dir());
	tu_write_file(script, text);
	snprintf(cfg, sizeof cfg, "%s/dies.yaml", dir);
	snprintf(ldir, sizeof ldir, "%s/league", dir);
	snprintf(text, sizeof text,
		 "league: {name: dies, seed: 3}\n"
		 "env: {name: dies, remote: 'unix:%s/g.sock', "
		 "serve: '/usr/bin/python3 %s', remote_timeout: 5}\n"
		 "model: {hidden: [8]}\n"
		 "learner: {batch: 64, minibatch: 32}\n"
		 "players: {main: 1, main_exploiter: 0, league_exploiter: 0}\n"
		 "matchmaking: {job_episodes: 4}\n"
		 "collectors: {count: 1, envs: 2, wait_num: 2}\n"
		 "run: {max_restarts_without_episode: 2}\n"
		 "budget: {seconds: 600}\n", dir, script);
	tu_write_file(cfg, text);
	const char *argv[] = { "run", cfg, "--dir", ldir, "--quiet", NULL };
	rc = tu_run_league(out, sizeof out, err, sizeof err, argv);
	const char *l = last_line(err);
	ck_assert_msg(rc == 1, "exit %d\n%s", rc, err);
	ck_assert_msg(strstr(l, "league run: the game server (env.serve) game "
			     "exited ") &&
			      strstr(l, "with no episode finished") &&
			      strstr(l, "(status 3): dies: gone at the first "
				     "reset") &&
			      strstr(l, "game.log)"),
		      "%s", err);
	tu_rmrf(dir);
}
END_TEST

Suite *suite_crash(void)
{
	Suite *s = suite_create("crash");
	const struct tu_test core_tests[] = {
		{ damaged_store_is_an_error_for_every_command, 1 },
		{ overwrite_refuses_a_running_league, 1 },
		{ run_refuses_a_game_that_cannot_play, 1 },
		{ run_names_why_the_daemon_did_not_start, 1 },
		{ run_gives_up_on_a_game_server_that_keeps_dying, 1 },
	};

	TU_TCASE(s, "core", 300, core_tests);
	return s;
}
