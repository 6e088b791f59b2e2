/* tests/check_determinism.c: league.deterministic end to end, with real
 * processes. A Kuhn league (a main player and a main exploiter, both
 * learning, snapshots on the way) runs to a budget of jobs once without a
 * stop, and once SIGKILLed (the whole process group: daemon, collector,
 * learners) at six points and resumed each time. Both must end with the
 * same bits: every player's record, every payoff count and every learning
 * player's newest parameters. A league of another seed must not, so the
 * comparison can fail. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "payoff/payoff.h"
#include "players/players.h"
#include "storage/storage.h"
#include "tests/testutil.h"
#include "util/util.h"

#define BUDGET_JOBS 150

#define DET_CFG \
	"league: {name: det, seed: %u, deterministic: true}\n" \
	"env: {name: kuhn}\n" \
	"model: {hidden: [16]}\n" \
	"learner: {lr: 0.003, batch: 512, minibatch: 128, epochs: 2,\n" \
	"          ent_coef: 0.05}\n" \
	"players: {main: 1, main_exploiter: 1, league_exploiter: 0}\n" \
	"snapshot: {steps: 3000}\n" \
	"matchmaking: {job_episodes: 64}\n" \
	"collectors: {count: 1, envs: 1, wait_num: 1, mode: serial}\n" \
	"budget: {seconds: 0, jobs: 150}\n"

static void write_det_cfg(const char *dir, unsigned seed, char *path,
			  size_t len)
{
	char text[1024];

	snprintf(text, sizeof text, DET_CFG, seed);
	snprintf(path, len, "%s/det.yaml", dir);
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
	struct store_opts so = { .flags = STORE_RDONLY };
	char err[256];
	uint64_t v = 0;
	store *s;
	store_txn *t;

	if (store_open(&s, dir, &so, err, sizeof err))
		return 0;
	if (!store_txn_begin(s, STORE_TXN_READ, &t)) {
		if (store_meta_get_u64(t, "daemon.jobs_done", &v))
			v = 0;
		store_txn_abort(t);
	}
	store_close(s);
	return v;
}

/* `league run CFG --dir DIR [--resume] --quiet` in a process group of its
 * own (so one kill reaches the daemon and every worker), output to log. */
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
		ck_assert_msg(lg_now_s() - t0 < 30, "session %d lives on",
			      (int)pid);
		lg_sleep_s(0.01);
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

START_TEST(killed_and_resumed_ends_with_the_same_bits)
{
	/* Kill points, in jobs counted: one during the first start (before
	 * any job), then five spread over the budget; each waits a random
	 * few milliseconds more, so the kill falls anywhere in a job: while
	 * it plays, between its rows and the learners' keeping them, between
	 * that and its result. */
	static const uint64_t at[] = { 0, 20, 45, 70, 95, 120 };
	char root[256], cfg[300], ref[300], cut[300], other[300], log[300];
	lg_buf a = { 0 }, b = { 0 }, c = { 0 };
	uint32_t trained, snaps, t2, s2;
	lg_rng rng;
	uint64_t before = 0;

	lg_rng_seed2(&rng, 20261124, 0);
	tu_mkdtemp(root, sizeof root);
	write_det_cfg(root, 7, cfg, sizeof cfg);
	snprintf(ref, sizeof ref, "%s/ref", root);
	snprintf(cut, sizeof cut, "%s/cut", root);
	snprintf(other, sizeof other, "%s/other", root);
	snprintf(log, sizeof log, "%s/cut.log", root);

	run_to_end(cfg, ref, 0);
	fingerprint(ref, &a, &trained, &snaps);
	ck_assert_uint_eq(jobs_done(ref), BUDGET_JOBS);
	ck_assert_msg(trained >= 4 && snaps >= 2, "the league hardly "
		      "trained: %u versions, %u snapshots", trained, snaps);

	for (size_t k = 0; k < LG_ARRAY_LEN(at); k++) {
		pid_t pid = start_run(cfg, cut, k > 0, log);
		double t0 = lg_now_s();
		if (!at[k])
			lg_sleep_s(0.05 + 0.1 * lg_rng_double(&rng));
		while (at[k] && jobs_done(cut) < at[k]) {
			ck_assert_msg(lg_now_s() - t0 < 60, "kill point %zu: "
				      "%llu jobs of %llu in 60 s", k,
				      (unsigned long long)jobs_done(cut),
				      (unsigned long long)at[k]);
			lg_sleep_s(0.002);
		}
		lg_sleep_s(0.02 * lg_rng_double(&rng));
		kill_run(pid, at[k] > 0);
		uint64_t done = jobs_done(cut);
		ck_assert_msg(done < BUDGET_JOBS, "kill point %zu came after "
			      "the end (%llu jobs)", k,
			      (unsigned long long)done);
		ck_assert_uint_ge(done, before);
		before = done;
	}
	run_to_end(cfg, cut, 1);
	ck_assert_uint_eq(jobs_done(cut), BUDGET_JOBS);
	fingerprint(cut, &b, &t2, &s2);
	ck_assert_uint_eq(t2, trained);
	ck_assert_uint_eq(s2, snaps);
	ck_assert_uint_eq(b.len, a.len);
	ck_assert_msg(!memcmp(a.data, b.data, a.len), "the resumed league "
		      "differs from the one never stopped");

	/* the comparison can fail: another seed, other bits */
	write_det_cfg(root, 8, cfg, sizeof cfg);
	run_to_end(cfg, other, 0);
	fingerprint(other, &c, &t2, &s2);
	ck_assert_msg(c.len != a.len || memcmp(a.data, c.data, a.len),
		      "seeds 7 and 8 gave the same league");
	lg_buf_free(&a);
	lg_buf_free(&b);
	lg_buf_free(&c);
	tu_rmrf(root);
}
END_TEST

Suite *suite_determinism(void)
{
	Suite *s = suite_create("determinism");
	TCase *t = tcase_create("resume");

	tcase_set_timeout(t, 240);
	tcase_add_test(t, killed_and_resumed_ends_with_the_same_bits);
	suite_add_tcase(s, t);
	return s;
}
