/* tests/check_determinism.c: league.deterministic end to end, with real
 * processes, on every built-in game (`league env list`: a game missing
 * from the table below fails the test). A league of the game (a main
 * player and a main exploiter, both learning, snapshots on the way) runs
 * to a budget of jobs once without a stop, and once SIGKILLed (the whole
 * session: league run, daemon, collector, learners, evaluator) at several
 * points and resumed each time. Both must end with the same bits: every
 * player's record, every payoff count and every learning player's newest
 * parameters. A league of another seed must not, so the comparison can
 * fail.
 *
 * The kill points are counts of jobs the store holds, waited for with a
 * generous deadline (the test must pass on a busy machine), and the first
 * falls in the first start's first 150 ms: on a busy machine that may be
 * before the daemon made its store, and then there is no league to
 * resume and the next start is a fresh one, as a user's would be.
 * LEAGUE_TEST_LONG=1: three times the jobs and six kill points a game. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "payoff/payoff.h"
#include "players/players.h"
#include "storage/storage.h"
#include "tests/testutil.h"
#include "util/util.h"

/* Deadline to reach a kill point, and to see a session gone: only a
 * league that is stuck takes this long, however busy the machine. */
#define WAIT_S 300.0

/* Each built-in game, with episodes per job and jobs (the short variant)
 * enough for a few versions of each learner. */
static const struct det_game {
	const char *name, *env;
	unsigned episodes, jobs;
} games[] = {
	{ "rps", "{name: rps}", 64, 40 },
	{ "matrix", "{name: matrix, matrix: [[0, 2, -1], [-1, 0, 1], "
		    "[1, -2, 0]]}", 64, 40 },
	{ "kuhn", "{name: kuhn}", 64, 40 },
	{ "leduc", "{name: leduc}", 32, 40 },
	{ "leduc_short", "{name: leduc_short}", 32, 40 },
	{ "tictactoe", "{name: tictactoe}", 16, 40 },
	{ "connect4", "{name: connect4}", 8, 40 },
	{ "timing", "{name: timing, timing: {reset_s: 0, step_s: 0, "
		    "episode_len: 6, obs_len: 8}}", 32, 40 },
	{ "liars_dice", "{name: liars_dice, params: {faces: 3}}", 32, 40 },
	/* common payoff: one team of two */
	{ "tiny_hanabi", "{name: tiny_hanabi}", 64, 40 },
	/* four seats, two teams: the learner's teammate a copy of it */
	{ "tiny_whist", "{name: tiny_whist}", 32, 40 },
	/* asymmetric: a population per role */
	{ "sheriff", "{name: sheriff}", 32, 40 },
};

/* Built-in games left out here for their cost: othello's 60-move games
 * make a league of enough jobs too slow for this suite (its rows of
 * legal lists are check_lists'). Their determinism under a seed is
 * check_envs' (every built-in game). */
static const char *const not_run[] = { "othello" };

#define DET_CFG \
	"league: {name: det, seed: %u, deterministic: true}\n" \
	"env: %s\n" \
	"model: {hidden: [16]}\n" \
	"learner: {lr: 0.003, batch: 256, minibatch: 128, epochs: 2,\n" \
	"          ent_coef: 0.05}\n" \
	"players: {main: 1, main_exploiter: 1, league_exploiter: 0}\n" \
	"snapshot: {steps: 500}\n" \
	"matchmaking: {job_episodes: %u}\n" \
	"collectors: {count: 1, envs: 1, wait_num: 1, mode: serial}\n" \
	"budget: {seconds: 0, jobs: %u}\n"

static int long_variant(void)
{
	const char *v = getenv("LEAGUE_TEST_LONG");

	return v && *v && strcmp(v, "0");
}

static void write_det_cfg(const char *dir, const struct det_game *g,
			  unsigned seed, unsigned jobs, char *path, size_t len)
{
	char text[1024];

	snprintf(text, sizeof text, DET_CFG, seed, g->env, g->episodes, jobs);
	snprintf(path, len, "%s/det-%u.yaml", dir, seed);
	tu_write_file(path, text);
}

/* What must come out the same: each player's record, the payoff of every
 * ordered pair, and the newest parameters of each learning player, as
 * bytes. *trained: versions pushed by the learners, *snaps: snapshots
 * (so a test can see the league did something). */
static void fingerprint(const char *dir, lg_buf *out, uint32_t *trained,
			uint32_t *snaps)
{
	struct store_opts so = { .flags = STORE_RDONLY };
	char err[256];
	store *s;
	brain *b;
	store_txn *t;

	*trained = *snaps = 0;
	ck_assert_msg(store_open(&s, dir, &so, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_msg(brain_open(&b, s, NULL, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	uint32_t n = brain_count(b);
	for (uint32_t i = 0; i < n; i++) {
		struct brain_player p;
		ck_assert_int_eq(brain_player_info(b, i, &p), 0);
		uint64_t rec[] = { p.role, p.status, p.parent, p.prev, p.steps,
				   p.last_snapshot_steps, p.version,
				   p.snapshots, p.resets };
		ck_assert_int_eq(lg_buf_append(out, rec, sizeof rec), 0);
		for (uint32_t j = 0; j < n; j++) {
			struct payoff_entry e;
			ck_assert_int_eq(payoff_get(brain_payoff(b), i, j, &e),
					 0);
			ck_assert_int_eq(lg_buf_append(out, &e, sizeof e), 0);
		}
		if (p.role == BRAIN_ROLE_HISTORICAL) {
			++*snaps;
			continue;
		}
		struct store_blob_info info;
		const void *blob;
		uint8_t k[8];
		store_key_u32x2(k, i, p.version);
		ck_assert_msg(store_blob_get(t, STORE_DB_PARAMS, k, sizeof k,
					     &info, &blob, err,
					     sizeof err) == 0,
			      "player %u version %u: %s", i, p.version, err);
		ck_assert_int_eq(lg_buf_append(out, blob, info.nbytes), 0);
		*trained += p.version;
	}
	store_txn_abort(t);
	brain_close(b);
	store_close(s);
}

/* Jobs the league in dir has counted (0 before its store exists). */
static uint64_t jobs_done(const char *dir)
{
	return tu_stored_u64(dir, "daemon.jobs_done");
}


/* Whether dir holds a league's store (what `league run --resume` asks). */
static int has_store(const char *dir)
{
	char path[400];
	struct stat sb;

	snprintf(path, sizeof path, "%s/data.mdb", dir);
	return stat(path, &sb) == 0;
}

/* `league run CFG --dir DIR [--resume] --quiet` in a session of its own
 * (so one kill reaches the daemon and every worker), output to log. */
static pid_t start_run(const char *cfg, const char *dir, int resume,
		       const char *log)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		const char *argv[] = { "league", "run", cfg, "--dir", dir,
				       "--quiet", resume ? "--resume" : NULL,
				       NULL };
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		setsid();
		dup2(fd, 1);
		dup2(fd, 2);
		execv(tu_league_bin(), (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	return pid;
}

/* SIGKILL to every process of session sid (`league run` and its
 * children: each child has a process group of its own, but they all stay
 * in the session the run started); how many were alive. */
static int kill_session(pid_t sid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	ck_assert(d != NULL);
	while ((e = readdir(d))) {
		char path[300], buf[512], *p;
		long pid = strtol(e->d_name, &p, 10), s = 0;
		FILE *f;
		size_t len;
		if (*p || pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if (!(f = fopen(path, "r")))
			continue;
		len = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[len] = 0;
		/* pid (comm) state ppid pgrp session: after the last ')' */
		if (!(p = strrchr(buf, ')')) ||
		    sscanf(p + 1, " %*c %*d %*d %ld", &s) != 1 || s != sid)
			continue;
		kill((pid_t)pid, SIGKILL);
		n++;
	}
	closedir(d);
	return n;
}

/* SIGKILL to the run and every worker it started, all at once, then wait
 * until none is left (the next run must find the store unlocked). */
static void kill_run(pid_t pid, int running)
{
	double t0 = lg_now_s();
	int n = kill_session(pid);

	/* once jobs count: league run, the daemon, the collector and both
	 * learners */
	ck_assert_msg(!running || n >= 5, "%d processes of the run killed",
		      n);
	waitpid(pid, NULL, 0);
	while (kill_session(pid)) {
		ck_assert_msg(lg_now_s() - t0 < WAIT_S, "session %d lives on",
			      (int)pid);
		lg_sleep_s(0.01);
	}
}

/* The last bytes of a file, for a failure's message. */
static const char *file_tail(const char *path)
{
	static char buf[2048];
	size_t n = 0;
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return "(no log)";
	if (!fseek(f, -(long)(sizeof buf - 1), SEEK_END) || !fseek(f, 0,
								   SEEK_SET))
		n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Wait until the run in dir (process pid) has counted `at` jobs. Fails at
 * once when the run ended before (its log says why), and when nothing
 * reached the count in WAIT_S. */
static void wait_jobs(pid_t pid, const char *dir, uint64_t at,
		      const char *log, int k)
{
	double t0 = lg_now_s();
	int st = 0;

	while (jobs_done(dir) < at) {
		ck_assert_msg(waitpid(pid, &st, WNOHANG) == 0, "kill point "
			      "%d: the run ended (status %d) at %llu jobs of "
			      "%llu:\n%s", k, st,
			      (unsigned long long)jobs_done(dir),
			      (unsigned long long)at, file_tail(log));
		ck_assert_msg(lg_now_s() - t0 < WAIT_S, "kill point %d: "
			      "%llu jobs of %llu in %.0f s", k,
			      (unsigned long long)jobs_done(dir),
			      (unsigned long long)at, WAIT_S);
		lg_sleep_s(0.002);
	}
}

static void run_to_end(const char *cfg, const char *dir, int resume)
{
	static char err[1 << 16];
	const char *argv[] = { "run", cfg, "--dir", dir, "--quiet",
			       resume ? "--resume" : NULL, NULL };
	int rc = tu_run_league(NULL, 0, err, sizeof err, argv);

	ck_assert_msg(rc == 0, "league run: %d\n%s", rc, err);
}

/* Kill points of a budget of `jobs`, in jobs counted: 0 (the first
 * start, before any job), then spread over the first half (the short
 * variant: two; the long: five over the first five sixths), so many jobs
 * are left after the last. */
static size_t kill_points(unsigned jobs, uint64_t *at)
{
	size_t n = 0;

	at[n++] = 0;
	if (long_variant())
		for (unsigned i = 1; i <= 5; i++)
			at[n++] = (uint64_t)jobs * i / 6;
	else
		for (unsigned i = 1; i <= 2; i++)
			at[n++] = (uint64_t)jobs * i / 4;
	return n;
}

/* The game's league killed and resumed at every kill point ends with the
 * bits of the one never stopped; another seed's differs. */
START_TEST(killed_and_resumed_ends_with_the_same_bits)
{
	const struct det_game *g = &games[_i];
	unsigned jobs = g->jobs * (long_variant() ? 3 : 1);
	char root[256], cfg[300], cfg8[300], ref[300], cut[300], other[300],
		log[300];
	lg_buf a = { 0 }, b = { 0 }, c = { 0 };
	uint32_t trained, snaps, t2, s2;
	uint64_t at[8], before = 0;
	size_t npoints = kill_points(jobs, at);
	lg_rng rng;

	lg_rng_seed2(&rng, 20261124, (uint64_t)_i);
	tu_mkdtemp(root, sizeof root);
	write_det_cfg(root, g, 7, jobs, cfg, sizeof cfg);
	write_det_cfg(root, g, 8, jobs, cfg8, sizeof cfg8);
	snprintf(ref, sizeof ref, "%s/ref", root);
	snprintf(cut, sizeof cut, "%s/cut", root);
	snprintf(other, sizeof other, "%s/other", root);
	snprintf(log, sizeof log, "%s/cut.log", root);

	run_to_end(cfg, ref, 0);
	fingerprint(ref, &a, &trained, &snaps);
	ck_assert_uint_eq(jobs_done(ref), jobs);
	ck_assert_msg(trained >= 4, "%s: the league hardly trained: %u "
		      "versions", g->name, trained);

	for (size_t k = 0; k < npoints; k++) {
		/* Kill point 0 may have come before the store existed:
		 * then nothing is left to resume, and the run starts anew. */
		pid_t pid = start_run(cfg, cut, has_store(cut), log);
		if (!at[k])
			lg_sleep_s(0.05 + 0.1 * lg_rng_double(&rng));
		else /* and one job of this start's at least (on a busy
		      * machine the last kill may have come late), so the
		      * whole run is up: jobs go out only then */
			wait_jobs(pid, cut, at[k] > before ? at[k] : before + 1,
				  log, (int)k);
		/* a random few milliseconds more, so the kill falls anywhere
		 * in a job: while it plays, between its rows and the
		 * learners' keeping them, between that and its result */
		lg_sleep_s(0.02 * lg_rng_double(&rng));
		kill_run(pid, at[k] > 0);
		uint64_t done = jobs_done(cut);
		ck_assert_msg(done < jobs, "%s: kill point %zu came after the "
			      "end (%llu jobs)", g->name, k,
			      (unsigned long long)done);
		ck_assert_uint_ge(done, before);
		before = done;
	}
	run_to_end(cfg, cut, has_store(cut));
	ck_assert_uint_eq(jobs_done(cut), jobs);
	fingerprint(cut, &b, &t2, &s2);
	ck_assert_uint_eq(t2, trained);
	ck_assert_uint_eq(s2, snaps);
	ck_assert_uint_eq(b.len, a.len);
	ck_assert_msg(!memcmp(a.data, b.data, a.len), "%s: the resumed "
		      "league differs from the one never stopped", g->name);

	/* the comparison can fail: another seed, other bits */
	run_to_end(cfg8, other, 0);
	fingerprint(other, &c, &t2, &s2);
	ck_assert_msg(c.len != a.len || memcmp(a.data, c.data, a.len),
		      "%s: seeds 7 and 8 gave the same league", g->name);
	printf("determinism: %s: %llu jobs, %zu kill points, %u versions, "
	       "%u snapshots: the same bits\n", g->name,
	       (unsigned long long)jobs, npoints, trained, snaps);
	lg_buf_free(&a);
	lg_buf_free(&b);
	lg_buf_free(&c);
	tu_rmrf(root);
}
END_TEST

/* The table above holds every game `league env list` lists. */
START_TEST(every_builtin_game_is_tested)
{
	static char out[1 << 14], err[1 << 12];
	const char *argv[] = { "env", "list", NULL };
	int n = 0;

	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err,
				       argv), 0);
	/* after the header line: one game a line, its name first */
	for (char *line = strchr(out, '\n'); line && line[1];
	     line = strchr(line + 1, '\n')) {
		char name[64];
		int found = 0;
		if (sscanf(line + 1, "%63s", name) != 1)
			continue;
		for (size_t i = 0; i < LG_ARRAY_LEN(games); i++)
			found |= !strcmp(games[i].name, name);
		for (size_t i = 0; i < LG_ARRAY_LEN(not_run); i++)
			found |= !strcmp(not_run[i], name);
		ck_assert_msg(found, "game %s is not in check_determinism.c's "
			      "tables", name);
		n++;
	}
	ck_assert_int_eq(n, (int)(LG_ARRAY_LEN(games) +
				  LG_ARRAY_LEN(not_run)));
}
END_TEST

Suite *suite_determinism(void)
{
	Suite *s = suite_create("determinism");
	const struct tu_test resume_tests[] = {
		{ every_builtin_game_is_tested, 1 },
		{ killed_and_resumed_ends_with_the_same_bits,
		  (int)LG_ARRAY_LEN(games) },
	};

	/* per game; the deadlines above are what guards a stuck league */
	TU_TCASE(s, "resume", 1200, resume_tests);
	return s;
}
