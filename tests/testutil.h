/* tests/testutil.h: fixtures shared by the check suites. */
#ifndef LG_TESTUTIL_H
#define LG_TESTUTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "envs/env.h"

struct coll;
struct coll_opts;

/* ---- a suite's test cases ---- */

/* One test of a test case, run for _i in [0, runs) (check's loop test;
 * 1 for a plain one, as tcase_add_test adds it). */
struct tu_test {
	const TTest *test;
	int runs;
};
/* A test case `name` of suite s holding the n tests (in that order),
 * each given timeout_s (check's own default is 4 s: a wall-clock budget
 * on a busy machine, not a deadline); the TCase, for fixtures. */
TCase *tu_tcase(Suite *s, const char *name, double timeout_s,
		const struct tu_test *tests, size_t n);
#define TU_TCASE(s, name, timeout_s, tests)                              \
	tu_tcase((s), (name), (timeout_s), (tests),                       \
		 sizeof(tests) / sizeof((tests)[0]))

/* Create a fresh directory under $TMPDIR (or /tmp) and return its path in
 * buf (at least 64 bytes). Aborts the test on failure. */
void tu_mkdtemp(char *buf, size_t len);
/* rm -rf path; ignores errors. */
void tu_rmrf(const char *path);
/* The numbers of s (space-separated, as strtod reads them) into out, at
 * most max; returns how many. For the output of tests/ref/ scripts. */
size_t tu_parse_doubles(const char *s, double *out, size_t max);
/* Write text to a file (created or truncated). */
void tu_write_file(const char *path, const char *text);
/* Path of the league binary under test ($LEAGUE_BIN, else bin/league). */
const char *tu_league_bin(void);
/* Path of the source tree ($LEAGUE_SRC, else "."). */
const char *tu_src_dir(void);
/* Run the league binary with argv (NULL-terminated, without argv[0]);
 * capture stdout and stderr (each truncated to len-1 bytes, NUL-terminated;
 * either may be NULL). Returns the exit status, or 128+signal. */
int tu_run_league(char *out, size_t outlen, char *err, size_t errlen,
		  const char *const *argv);

/* `league <argv>` (a `league run` on dir with no seconds budget, or a
 * backstop one) until done(dir, arg) holds, polled every 50 ms, then
 * SIGTERM: the run drains and stops as on a user's Ctrl-C. A test waits
 * so for what it reads to be stored, however busy the machine, instead
 * of a budget of seconds. Fails the test when the run ends first or
 * deadline_s passes (then SIGKILL). Output as tu_run_league; the exit
 * status, or 128+signal. */
int tu_run_league_until(const char *const *argv, const char *dir,
			int (*done)(const char *dir, void *arg), void *arg,
			double deadline_s, char *out, size_t outlen,
			char *err, size_t errlen);
/* A `league serve` child on dir (--nosync, --resume when resume), with
 * LEAGUE_TOKEN set to token (NULL: unset); waits for its ports file and
 * reads the port and the learning players. Its stderr goes to DIR.log. */
struct tu_daemon {
	pid_t pid;
	uint16_t port, http_port;
	uint32_t learners[16];
	int nlearners;
};
void tu_serve(struct tu_daemon *d, const char *cfg, const char *dir,
	      int resume, const char *token);
/* The same; with sync, without --nosync: the daemon's default store,
 * which fsyncs at every commit. */
void tu_serve_sync(struct tu_daemon *d, const char *cfg, const char *dir,
		   int resume, const char *token, int sync);
/* Send sig and reap: the exit status, or 128 + the signal. */
int tu_serve_stop(struct tu_daemon *d, int sig);
/* The meta counter `name` ("daemon.jobs_done") of the league in dir, read
 * read-only beside a running league: 0 before its store exists or while
 * the counter is not stored. */
uint64_t tu_stored_u64(const char *dir, const char *name);

/* ---- the e2e fixture: a daemon on a temp dir, and fake workers ---- */

/* The small rock-paper-scissors league the e2e suites serve, named
 * `name` (a string literal): a main player and a main exploiter, jobs of
 * 4 episodes, no snapshots, a 600 s backstop. A suite appends lines of
 * its own (a later key wins). */
#define TU_RPS_YAML(name)                                                 \
	"league: {name: " name ", seed: 5}\n"                             \
	"env: {name: rps}\n"                                              \
	"model: {hidden: [8]}\n"                                          \
	"players: {main: 1, main_exploiter: 1, league_exploiter: 0}\n"    \
	"payoff: {decay: 1.0}\n"                                          \
	"matchmaking: {job_episodes: 4, job_lease_s: 30}\n"               \
	"snapshot: {steps: 1000000000}\n"                                 \
	"budget: {seconds: 600}\n"

/* A fresh directory ROOT under $TMPDIR holding ROOT/league.yaml (yaml):
 * the config's path in cfg, the league's directory ROOT/league in dir
 * (not created: `league serve` or `league run` makes it). Then
 * tu_serve(d, cfg, dir, ...) starts the daemon and reads its ports. */
void tu_league_files(const char *yaml, char *dir, size_t dlen, char *cfg,
		     size_t clen);
/* `league run ROOT/league.yaml --dir ROOT/league` (the config text
 * written there first; root exists, e.g. from tu_mkdtemp), with --quiet
 * when quiet; the league's directory in ldir. Without done the run ends
 * by its config's budget; with done it goes on until done(ldir, arg)
 * holds and is stopped by SIGTERM (tu_run_league_until, up to 300 s).
 * The run must exit 0 (else the test fails with its stderr); its
 * stdout and stderr are left in out and err as tu_run_league's. */
void tu_run_config(const char *text, const char *root, char *ldir,
		   size_t llen, int quiet, int (*done)(const char *, void *),
		   void *arg, char *out, size_t outlen, char *err,
		   size_t errlen);
/* A fake (or real) worker `league ARGS...` as a child (argv[0] is
 * "league"), its stdout to /dev/null, its stderr to log, appended to
 * when append, else truncated: its pid. */
pid_t tu_spawn_worker(const char *const *argv, const char *log, int append);
/* The file at path, at most len - 1 bytes, NUL-terminated ("" when it
 * is not there yet). */
void tu_read_text(const char *path, char *buf, size_t len);
/* Wait until the file at path (a worker's or the daemon's log) holds
 * `what`, polled every 0.1 s; fails the test, with the file's head,
 * when limit seconds pass first. */
void tu_wait_for_text(const char *path, const char *what, double limit);

/* ---- games, searches and collectors ---- */

/* The game `name` with options o (NULL: the defaults); fails the test,
 * naming the game and why, when env_new refuses. */
env *tu_env_open(const char *name, const struct env_opts *o);
/* The exact tree of e's game; fails the test saying why when refused. */
env_tree *tu_tree_open(const env *e);
/* One game of e's two seats from env_reset(e, seed): baseline a in seat
 * 0, b in seat 1, both drawing from r; seat 0's return. */
double tu_baseline_duel(env *e, env_baseline *a, env_baseline *b,
			uint64_t seed, lg_rng *r);
/* A search on e's game with options o and evaluator eval(ctx); fails the
 * test, saying why, when env_mcts_new refuses. */
env_mcts *tu_mcts_open(const env *e, const struct env_mcts_opts *o,
		       env_mcts_eval_fn eval, void *ctx);
/* A collector with options o (its games, policies, searches); fails the
 * test, saying why, when coll_new refuses. */
struct coll *tu_coll_open(const struct coll_opts *o);

#endif
