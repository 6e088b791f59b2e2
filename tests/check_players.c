/* tests/check_players.c: the league brain. Option checks (branch
 * probabilities must sum to 1); the initial league and its lineage;
 * sampled PFSP opponent frequencies against the formula (chi-square at a
 * fixed seed, every weighting); no NaN and a uniform fallback when every
 * weight is 0; every role branch hit; snapshot and reset triggers;
 * idempotent results; resume (N jobs, close, reopen, M more == N+M in one
 * go); and the simulated non-transitive league (PFSP vs uniform). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "players/players.h"
#include "tests/brain_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"




/* Pose win rate x of a against c with many games (not persisted). */
static void pose(brain *b, uint32_t a, uint32_t c, double x)
{
	struct payoff_entry e = { 100 * x, 0, 100 * (1 - x), 100 };
	ck_assert_int_eq(payoff_set(brain_payoff(b), a, c, &e), 0);
}

/* Report steps so the learner snapshots now (snapshot_steps 10,
 * max_mult 1 in these tests); returns the snapshot id. */
static uint32_t snap(brain *b, uint32_t L)
{
	struct brain_player p;
	struct brain_step_report r;

	brain_player_info(b, L, &p);
	ck_assert_int_eq(brain_report_steps(b, L, p.steps + 10,
					    p.version + 1, &r), 0);
	ck_assert(r.snapshot);
	return r.snapshot_id;
}

static void quick_snapshots(struct brain_opts *o)
{
	o->snapshot_steps = 10;
	o->snapshot_max_mult = 1;
}

/* The caller of a brain opened with its write batch owns the
 * transaction: calls commit nothing; brain_write puts the brain's state
 * into the caller's store_update beside the caller's own records, and a
 * transaction that fails leaves the state pending for the next one. */
struct own_turn {
	store_batch *wb;
	brain *b;
	int fail;
};

static int own_turn_fn(store_txn *t, void *arg)
{
	struct own_turn *o = arg;
	int rc;

	if ((rc = store_batch_apply(o->wb, t)) || (rc = brain_write(o->b, t)))
		return rc;
	return o->fail ? LG_EIO : 0;
}

static uint64_t stored_next_job(store *s)
{
	store_txn *t;
	uint64_t v = 0;

	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	store_meta_get_u64(t, "brain.next_job", &v);
	store_txn_abort(t);
	return v;
}

START_TEST(caller_owns_the_transaction)
{
	struct brain_opts o;
	store_batch wb = { 0 };
	struct own_turn turn;
	struct brain_job j;
	struct fx f;
	uint64_t was, mark = 0;
	store_txn *t;

	brain_opts_default(&o);
	o.wb = &wb;
	fx_open(&f, &o, 1);
	was = stored_next_job(f.s);
	ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
	ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
	/* batch 1 by default, yet nothing is committed: the caller's */
	ck_assert_uint_eq(stored_next_job(f.s), was);
	ck_assert_int_eq(store_batch_meta_u64(&wb, "test.mark", 7), 0);
	turn = (struct own_turn){ &wb, f.b, 1 };
	ck_assert_int_eq(store_update(f.s, own_turn_fn, &turn), LG_EIO);
	ck_assert_uint_eq(stored_next_job(f.s), was); /* still pending */
	turn.fail = 0;
	ck_assert_int_eq(store_update(f.s, own_turn_fn, &turn), 0);
	store_batch_clear(&wb);
	brain_written(f.b);
	ck_assert_uint_eq(stored_next_job(f.s), brain_next_job_id(f.b));
	ck_assert_uint_gt(brain_next_job_id(f.b), was);
	ck_assert_int_eq(store_txn_begin(f.s, STORE_TXN_READ, &t), 0);
	ck_assert_int_eq(store_meta_get_u64(t, "test.mark", &mark), 0);
	store_txn_abort(t);
	ck_assert_uint_eq(mark, 7);
	fx_close(&f, 0);
	/* reopened, the two jobs are open */
	fx_open(&f, NULL, 0);
	ck_assert_uint_eq(brain_open_jobs(f.b), 2);
	fx_close(&f, 1);
	store_batch_free(&wb);
}
END_TEST

START_TEST(opts_checked)
{
	struct brain_opts o;
	char err[256];

	brain_opts_default(&o);
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), 0);
	o.main.sp = 0.4; /* 0.5 + 0.4 + 0.15 */
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
	ck_assert_ptr_nonnull(strstr(err, "roles.main"));
	brain_opts_default(&o);
	o.self_play.uniform = 0.5; /* 1 + 0.5 */
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
	ck_assert_ptr_nonnull(strstr(err, "roles.self_play"));
	brain_opts_default(&o);
	o.n_main = 0;
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
	o.n_main_exploiter = 1;
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
	brain_opts_default(&o);
	o.main.sp = NAN;
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
}
END_TEST

START_TEST(initial_league_and_lineage)
{
	struct brain_opts o;
	struct brain_player p;
	struct fx f;
	uint32_t s1, s2;

	brain_opts_default(&o);
	o.n_main = 2;
	o.n_main_exploiter = 1;
	o.n_league_exploiter = 1;
	o.n_self_play = 1;
	quick_snapshots(&o);
	fx_open(&f, &o, 1);
	/* main 0 (+ snapshot 1), main 2 (+ 3), main exploiter 4, league
	 * exploiter 5, self-play 6 (+ 7) */
	ck_assert_uint_eq(brain_count(f.b), 8);
	brain_player_info(f.b, 0, &p);
	ck_assert_int_eq(p.role, BRAIN_ROLE_MAIN);
	ck_assert_uint_eq(p.parent, BRAIN_NONE);
	brain_player_info(f.b, 1, &p);
	ck_assert_int_eq(p.role, BRAIN_ROLE_HISTORICAL);
	ck_assert_uint_eq(p.parent, 0);
	ck_assert_uint_eq(p.prev, BRAIN_NONE);
	brain_player_info(f.b, 4, &p);
	ck_assert_int_eq(p.role, BRAIN_ROLE_MAIN_EXPLOITER);
	brain_player_info(f.b, 5, &p);
	ck_assert_int_eq(p.role, BRAIN_ROLE_LEAGUE_EXPLOITER);
	brain_player_info(f.b, 7, &p);
	ck_assert_uint_eq(p.parent, 6);
	ck_assert_int_eq(brain_player_info(f.b, 8, &p), LG_ENOTFOUND);
	s1 = snap(f.b, 0);
	s2 = snap(f.b, 0);
	brain_player_info(f.b, s2, &p);
	ck_assert_uint_eq(p.parent, 0);
	ck_assert_uint_eq(p.prev, s1);
	ck_assert_uint_eq(p.steps, 20);
	ck_assert_uint_eq(p.version, 2);
	brain_player_info(f.b, 0, &p);
	ck_assert_uint_eq(p.snapshots, 2);
	ck_assert_uint_eq(p.resets, 0);
	/* not a learner, read-only semantics */
	{
		struct brain_job j;
		ck_assert_int_eq(brain_next_job(f.b, 1, &j), LG_EINVAL);
		ck_assert_int_eq(brain_next_job(f.b, 99, &j), LG_EINVAL);
	}
	fx_close(&f, 0);
	/* reopened read-only, the same league */
	{
		struct store_opts so = { STORE_RDONLY, 0, 0 };
		store *s = NULL;
		brain *b = NULL;
		struct brain_job j;
		ck_assert_int_eq(store_open(&s, f.dir, &so, NULL, 0), 0);
		ck_assert_int_eq(brain_open(&b, s, NULL, NULL, 0), 0);
		ck_assert_uint_eq(brain_count(b), 10);
		brain_player_info(b, s2, &p);
		ck_assert_uint_eq(p.prev, s1);
		ck_assert_int_eq(brain_next_job(b, 0, &j), LG_EINVAL);
		brain_close(b);
		store_close(s);
	}
	tu_rmrf(f.dir);
}
END_TEST

/*
 * PFSP draws against the formula. A league exploiter (PFSP over every
 * snapshot) with snapshots posed at win rates 0.05 .. 0.95; results are
 * never reported, so the rates stay put. Chi-square with k - 1 degrees of
 * freedom at a fixed seed: the statistic has mean k - 1 and sd
 * sqrt(2(k - 1)), and the bound is mean + 6 sd (a correct sampler exceeds
 * it with probability < 1e-6); each frequency is also within 5 binomial
 * sd of its probability.
 */
static void pfsp_case(int weighting, double exponent)
{
	static const double rates[] = { 0.05, 0.2, 0.35, 0.5, 0.65, 0.8,
					0.95, 1.0 };
	enum { K = 8, N = 40000 };
	struct brain_opts o;
	struct fx f;
	uint32_t ids[K], L = 0;
	double w[K], sum = 0, chi = 0;
	uint64_t cnt[K] = { 0 };

	brain_opts_default(&o);
	o.n_main = 0;
	o.n_league_exploiter = 1;
	o.league_exploiter.weighting = weighting;
	o.league_exploiter.reset_prob = 0;
	o.pfsp_exponent = exponent;
	o.batch = 4096;
	o.log_decisions = 0;
	quick_snapshots(&o);
	fx_open(&f, &o, 1);
	for (int i = 0; i < K; i++) {
		ids[i] = snap(f.b, L);
		pose(f.b, L, ids[i], rates[i]);
		w[i] = brain_pfsp_weight(weighting, rates[i], exponent);
		sum += w[i];
	}
	for (int n = 0; n < N; n++) {
		struct brain_job j;
		int i;
		ck_assert_int_eq(brain_next_job(f.b, L, &j), 0);
		ck_assert_int_eq(j.kind, BRAIN_JOB_PFSP);
		ck_assert(!isnan(j.prob));
		for (i = 0; i < K && ids[i] != j.opponent; i++)
			;
		ck_assert_int_lt(i, K);
		ck_assert_double_eq_tol(j.prob, w[i] / sum, 1e-12);
		ck_assert_uint_eq(j.candidates, K);
		ck_assert_uint_eq(j.opponent_params, L);
		cnt[i]++;
	}
	int df = -1;
	for (int i = 0; i < K; i++) {
		double p = w[i] / sum, e = p * N;
		if (p == 0) {
			ck_assert_uint_eq(cnt[i], 0);
			continue;
		}
		df++;
		chi += (cnt[i] - e) * (cnt[i] - e) / e;
		ck_assert_double_eq_tol((double)cnt[i] / N, p,
					5 * sqrt(p * (1 - p) / N));
	}
	ck_assert_msg(chi < df + 6 * sqrt(2.0 * df),
		      "weighting %d: chi-square %.2f with %d df", weighting,
		      chi, df);
	fx_close(&f, 1);
}

START_TEST(pfsp_frequencies)
{
	pfsp_case(BRAIN_PFSP_SQUARED, 2);
	pfsp_case(BRAIN_PFSP_SQUARED, 3.5);
	pfsp_case(BRAIN_PFSP_VARIANCE, 2);
	pfsp_case(BRAIN_PFSP_LINEAR, 2);
	pfsp_case(BRAIN_PFSP_LINEAR_CAPPED, 2);
}
END_TEST

/* Every weight 0 (the learner beats everything: squared gives 0 for all):
 * uniform, never NaN. Weights themselves are finite for any input. */
START_TEST(pfsp_zero_weights_uniform)
{
	struct brain_opts o;
	struct fx f;
	uint32_t ids[4];
	uint64_t cnt[4] = { 0 };
	enum { N = 8000 };

	for (int wgt = 0; wgt < 4; wgt++) {
		const double xs[] = { -1, 0, 0.5, 1, 2, NAN, INFINITY };
		for (size_t i = 0; i < LG_ARRAY_LEN(xs); i++) {
			double v = brain_pfsp_weight(wgt, xs[i], 2);
			ck_assert(isfinite(v) && v >= 0);
		}
	}
	brain_opts_default(&o);
	o.n_main = 0;
	o.n_league_exploiter = 1;
	o.league_exploiter.weighting = BRAIN_PFSP_SQUARED;
	o.league_exploiter.reset_prob = 0;
	o.batch = 1024;
	quick_snapshots(&o);
	fx_open(&f, &o, 1);
	/* no snapshot yet: a defined fallback, the latest self */
	{
		struct brain_job j;
		ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
		ck_assert_int_eq(j.kind, BRAIN_JOB_FALLBACK);
		ck_assert_uint_eq(j.opponent, 0);
		ck_assert_int_eq(brain_cancel_job(f.b, j.id), 0);
	}
	for (int i = 0; i < 4; i++) {
		ids[i] = snap(f.b, 0);
		pose(f.b, 0, ids[i], 1.0);
	}
	for (int n = 0; n < N; n++) {
		struct brain_job j;
		ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
		ck_assert_double_eq_tol(j.prob, 0.25, 1e-15);
		for (int i = 0; i < 4; i++)
			cnt[i] += j.opponent == ids[i];
	}
	for (int i = 0; i < 4; i++)
		ck_assert_double_eq_tol((double)cnt[i] / N, 0.25,
					5 * sqrt(0.25 * 0.75 / N));
	fx_close(&f, 1);
}
END_TEST

static void count_kinds(brain *b, uint32_t L, int n, uint64_t *kinds)
{
	for (int i = 0; i < n; i++) {
		struct brain_job j;
		ck_assert_int_eq(brain_next_job(b, L, &j), 0);
		ck_assert(!isnan(j.prob) && j.prob > 0 && j.prob <= 1);
		kinds[j.kind]++;
	}
}

/* Every branch of every role, by posing the win rates that lead there. */
START_TEST(every_branch)
{
	struct brain_opts o;
	struct fx f;
	uint64_t k[BRAIN_JOB__COUNT];
	uint32_t m0 = 0, m1 = 2, mx = 4, lx = 5, sp = 6, xs, h1, h2, h3;

	brain_opts_default(&o);
	o.n_main = 2;
	o.n_main_exploiter = 1;
	o.n_league_exploiter = 1;
	o.n_self_play = 1;
	o.self_play.sp = o.self_play.uniform = o.self_play.pfsp =
		o.self_play.nash = 0.25;
	o.main_exploiter.reset_prob = 0;
	o.league_exploiter.reset_prob = 0;
	o.batch = 1024;
	quick_snapshots(&o);
	fx_open(&f, &o, 1);
	xs = snap(f.b, mx);  /* an exploiter snapshot */
	snap(f.b, lx);
	snap(f.b, sp);
	h1 = 1;              /* m0's initial snapshot */
	h2 = snap(f.b, m0);
	h3 = snap(f.b, m0);

	/* main, phase 1: loses to the exploiter snapshot -> verify it */
	pose(f.b, m0, xs, 0.1);
	memset(k, 0, sizeof k);
	count_kinds(f.b, m0, 3000, k);
	ck_assert_uint_gt(k[BRAIN_JOB_PFSP], 0);
	ck_assert_uint_gt(k[BRAIN_JOB_VERIFY_EXPLOITER], 0);
	ck_assert_uint_gt(k[BRAIN_JOB_SP], 0);
	/* the PFSP branch is half, verification about 0.15 */
	ck_assert_double_eq_tol(k[BRAIN_JOB_PFSP] / 3000.0, 0.5,
				5 * sqrt(0.25 / 3000));
	/* phase 2: beats exploiters; its own history rises then falls
	 * (0.2, 0.6, 0.4: the suffix after the last rise is dropped), and
	 * m1 is too strong for self-play -> curriculum on m1's snapshots */
	pose(f.b, m0, xs, 0.9);
	pose(f.b, m0, h1, 0.2);
	pose(f.b, m0, h2, 0.6);
	pose(f.b, m0, h3, 0.4);
	pose(f.b, m0, m1, 0.1);
	memset(k, 0, sizeof k);
	count_kinds(f.b, m0, 3000, k);
	ck_assert_uint_gt(k[BRAIN_JOB_VERIFY_HISTORICAL], 0);
	ck_assert_uint_eq(k[BRAIN_JOB_VERIFY_EXPLOITER], 0);
	ck_assert_uint_gt(k[BRAIN_JOB_CURRICULUM], 0);
	ck_assert_uint_gt(k[BRAIN_JOB_SP], 0); /* against itself */

	/* main exploiter: a live main while it wins > 0.1, else curriculum */
	memset(k, 0, sizeof k);
	count_kinds(f.b, mx, 200, k);
	ck_assert_uint_eq(k[BRAIN_JOB_EXPLOIT], 200);
	pose(f.b, mx, m0, 0.05);
	pose(f.b, mx, m1, 0.05);
	memset(k, 0, sizeof k);
	count_kinds(f.b, mx, 200, k);
	ck_assert_uint_eq(k[BRAIN_JOB_CURRICULUM], 200);

	/* league exploiter: PFSP over all snapshots */
	memset(k, 0, sizeof k);
	count_kinds(f.b, lx, 100, k);
	ck_assert_uint_eq(k[BRAIN_JOB_PFSP], 100);

	/* self-play role: all four branches */
	memset(k, 0, sizeof k);
	count_kinds(f.b, sp, 2000, k);
	ck_assert_uint_gt(k[BRAIN_JOB_SP], 0);
	ck_assert_uint_gt(k[BRAIN_JOB_UNIFORM], 0);
	ck_assert_uint_gt(k[BRAIN_JOB_PFSP], 0);
	ck_assert_uint_gt(k[BRAIN_JOB_NASH], 0);
	for (int i = BRAIN_JOB_SP; i <= BRAIN_JOB_NASH; i++)
		if (i == BRAIN_JOB_SP || i >= BRAIN_JOB_UNIFORM)
			ck_assert_double_eq_tol(k[i] / 2000.0, 0.25,
						5 * sqrt(0.1875 / 2000));
	fx_close(&f, 1);
}
END_TEST

START_TEST(snapshot_and_reset_triggers)
{
	struct brain_opts o;
	struct brain_step_report r;
	struct brain_player p;
	struct fx f;
	uint32_t m = 0, mx = 2;

	brain_opts_default(&o);
	o.n_main = 1;
	o.n_main_exploiter = 1;
	o.snapshot_steps = 100;
	o.snapshot_max_mult = 2;
	o.main_exploiter.reset_prob = 1;
	fx_open(&f, &o, 1);
	/* before the interval: never */
	ck_assert_int_eq(brain_report_steps(f.b, mx, 50, 1, &r), 0);
	ck_assert(!r.snapshot);
	/* past it, reference set (the main player) at 0.5 < 0.7: not yet */
	ck_assert_int_eq(brain_report_steps(f.b, mx, 150, 2, &r), 0);
	ck_assert(!r.snapshot);
	ck_assert_int_eq(brain_report_steps(f.b, mx, 199, 3, &r), 0);
	ck_assert(!r.snapshot);
	ck_assert_int_eq(brain_report_steps(f.b, mx, 10, 3, &r), LG_EINVAL);
	/* 2x the interval: snapshot anyway, then the exploiter resets */
	ck_assert_int_eq(brain_report_steps(f.b, mx, 200, 4, &r), 0);
	ck_assert(r.snapshot && r.reset);
	ck_assert_uint_eq(r.snapshot_version, 4);
	brain_player_info(f.b, r.snapshot_id, &p);
	ck_assert_uint_eq(p.parent, mx);
	ck_assert_uint_eq(p.steps, 200);
	/* The counts the daemon asks for in O(1): the main player's
	 * initial snapshot and this one; versions frozen for good, also
	 * after a reopen (rebuilt from the lineage). */
	ck_assert_uint_eq(brain_snapshot_count(f.b), 2);
	for (int reopen = 0; reopen < 2; reopen++) {
		if (reopen) {
			ck_assert_int_eq(brain_close(f.b), 0);
			store_close(f.s);
			fx_open(&f, &o, 0);
		}
		ck_assert_uint_eq(brain_snapshot_count(f.b), 2);
		ck_assert(brain_version_frozen(f.b, mx, 4));
		ck_assert(!brain_version_frozen(f.b, mx, 3));
		ck_assert(!brain_version_frozen(f.b, mx, 5));
		ck_assert(brain_version_frozen(f.b, m, 0));
		ck_assert(!brain_version_frozen(f.b, m, 4));
		ck_assert(!brain_version_frozen(f.b, r.snapshot_id, 4));
		ck_assert(!brain_version_frozen(f.b, 999, 0));
	}
	/* win-rate trigger: beats the main > 0.7 after the interval */
	{
		int8_t wins[20];
		struct brain_job j;
		struct payoff_entry e;
		memset(wins, 1, sizeof wins);
		ck_assert_int_eq(brain_next_job(f.b, mx, &j), 0);
		ck_assert_uint_eq(j.opponent, m);
		ck_assert_int_eq(brain_record_result(f.b, j.id, wins, 20), 0);
		ck_assert_int_eq(brain_report_steps(f.b, mx, 299, 5, &r), 0);
		ck_assert(!r.snapshot);
		ck_assert_int_eq(brain_report_steps(f.b, mx, 300, 6, &r), 0);
		ck_assert(r.snapshot && r.reset);
		/* the reset moved the exploiter's results (20 wins against
		 * the main player) and Elo to the snapshot it froze */
		payoff_get(brain_payoff(f.b), mx, m, &e);
		ck_assert_double_eq(e.games, 0);
		ck_assert_double_eq(payoff_elo(brain_payoff(f.b), mx), 0);
		payoff_get(brain_payoff(f.b), r.snapshot_id, m, &e);
		ck_assert_double_eq_tol(e.games, (1 - pow(0.99, 20)) / 0.01,
					1e-9);
		ck_assert_double_eq(e.wins, e.games);
		payoff_get(brain_payoff(f.b), m, r.snapshot_id, &e);
		ck_assert_double_eq(e.losses, e.games);
		ck_assert(payoff_elo(brain_payoff(f.b), r.snapshot_id) > 0);
		ck_assert_double_eq(payoff_row(brain_payoff(f.b), mx)[m], 0.5);
		brain_player_info(f.b, mx, &p);
		ck_assert_uint_eq(p.resets, 2);
		ck_assert_uint_eq(p.snapshots, 2);
	}
	/* the main player snapshots but never resets */
	ck_assert_int_eq(brain_report_steps(f.b, m, 200, 1, &r), 0);
	ck_assert(r.snapshot && !r.reset);
	fx_close(&f, 1);

	/* league exploiter: reset with probability 0.25 after a snapshot;
	 * snapshot.keep retires the oldest */
	brain_opts_default(&o);
	o.n_main = 0;
	o.n_league_exploiter = 1;
	o.snapshot_keep = 3;
	o.batch = 1000;
	quick_snapshots(&o);
	fx_open(&f, &o, 1);
	{
		int resets = 0, n = 2000;
		for (int i = 0; i < n; i++) {
			snap(f.b, 0);
		}
		brain_player_info(f.b, 0, &p);
		resets = (int)p.resets;
		ck_assert_double_eq_tol(resets / (double)n, 0.25,
					5 * sqrt(0.1875 / n));
		brain_player_info(f.b, 1, &p);
		ck_assert_int_eq(p.status, BRAIN_RETIRED);
		/* Retired, but what it froze stays frozen. */
		ck_assert(brain_version_frozen(f.b, 0, p.version));
		ck_assert_uint_eq(brain_snapshot_count(f.b),
				  brain_count(f.b) - 1);
		brain_player_info(f.b, brain_count(f.b) - 1, &p);
		ck_assert_int_eq(p.status, BRAIN_ACTIVE);
		for (int i = 0; i < 50; i++) {
			struct brain_job j;
			ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
			ck_assert_uint_ge(j.opponent, brain_count(f.b) - 3);
		}
	}
	fx_close(&f, 1);
}
END_TEST

START_TEST(results_count_once)
{
	struct brain_opts o;
	struct fx f;
	struct brain_job j, j2;
	struct payoff_entry e;
	int8_t out[3] = { 1, 0, -1 };

	brain_opts_default(&o);
	fx_open(&f, &o, 1);
	ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
	ck_assert_int_eq(brain_next_job(f.b, 0, &j2), 0);
	ck_assert_uint_eq(j2.id, j.id + 1);
	ck_assert_uint_eq(brain_open_jobs(f.b), 2);
	ck_assert_int_eq(brain_record_result(f.b, j.id, out, 3), 0);
	ck_assert_int_eq(brain_record_result(f.b, j.id, out, 3), LG_EEXIST);
	ck_assert_int_eq(brain_record_result(f.b, 999, out, 3), LG_ENOTFOUND);
	ck_assert_int_eq(brain_cancel_job(f.b, j2.id), 0);
	ck_assert_int_eq(brain_record_result(f.b, j2.id, out, 3),
			 LG_ENOTFOUND);
	out[0] = 5;
	ck_assert_int_eq(brain_record_result(f.b, j2.id, out, 3), LG_EINVAL);
	payoff_get(brain_payoff(f.b), j.learner, j.opponent, &e);
	ck_assert_double_eq_tol(e.games, 1 + 0.99 + 0.99 * 0.99, 1e-12);
	/* and after a reopen too; an open job survives the reopen */
	ck_assert_int_eq(brain_next_job(f.b, 0, &j2), 0);
	fx_close(&f, 0);
	fx_open(&f, &o, 0);
	out[0] = 1;
	ck_assert_int_eq(brain_record_result(f.b, j.id, out, 3), LG_EEXIST);
	ck_assert_uint_eq(brain_open_jobs(f.b), 1);
	ck_assert_uint_eq(brain_next_job_id(f.b), j2.id + 1);
	ck_assert_int_eq(brain_record_result(f.b, j2.id, out, 1), 0);
	ck_assert_uint_eq(brain_open_jobs(f.b), 0);
	fx_close(&f, 1);
}
END_TEST

/* The resume test: a league of every role run N jobs, closed, reopened
 * and run M more must hand out exactly the jobs of N + M in one go, and
 * end in the same payoff table, ratings and players. The two runs also
 * use different batch sizes: batching changes when things are committed,
 * never what is decided. */
static void league_opts(struct brain_opts *o, uint32_t batch)
{
	brain_opts_default(o);
	o->seed = 42;
	o->n_main = 2;
	o->n_main_exploiter = 1;
	o->n_league_exploiter = 1;
	o->n_self_play = 1;
	o->self_play.sp = 0.4;
	o->self_play.uniform = 0.2;
	o->self_play.pfsp = 0.2;
	o->self_play.nash = 0.2;
	o->snapshot_steps = 300;
	o->job_episodes = 4;
	o->batch = batch;
}

static void run_jobs(brain *b, uint64_t jobs, uint64_t sim_seed,
		     struct brain_job *log)
{
	struct brain_sim_opts so;

	brain_sim_opts_default(&so);
	so.jobs = jobs;
	so.seed = sim_seed;
	(void)log;
	ck_assert_int_eq(brain_sim_run(b, &so, NULL), 0);
}

static void read_jobs(const char *dir, struct brain_job *out, size_t n,
		      lg_buf *state);

START_TEST(resume_is_identical)
{
	enum { N = 300, M = 200 };
	struct brain_opts o;
	struct fx a, c;
	lg_buf sa = { 0 }, sc = { 0 };
	struct brain_job *ja = calloc(N + M, sizeof *ja),
			 *jc = calloc(N + M, sizeof *jc);

	/* one go */
	league_opts(&o, 1);
	fx_open(&a, &o, 1);
	run_jobs(a.b, N, 7, NULL);
	run_jobs(a.b, M, 8, NULL);
	fx_close(&a, 0);
	/* N, close, reopen, M */
	league_opts(&o, 13);
	fx_open(&c, &o, 1);
	run_jobs(c.b, N, 7, NULL);
	fx_close(&c, 0);
	fx_open(&c, &o, 0);
	run_jobs(c.b, M, 8, NULL);
	fx_close(&c, 0);

	read_jobs(a.dir, ja, N + M, &sa);
	read_jobs(c.dir, jc, N + M, &sc);
	for (size_t i = 0; i < N + M; i++) {
		ck_assert_uint_eq(ja[i].id, jc[i].id);
		ck_assert_uint_eq(ja[i].learner, jc[i].learner);
		ck_assert_uint_eq(ja[i].opponent, jc[i].opponent);
		ck_assert_int_eq(ja[i].kind, jc[i].kind);
		ck_assert_double_eq(ja[i].prob, jc[i].prob);
	}
	ck_assert_uint_eq(sa.len, sc.len);
	ck_assert_int_eq(memcmp(sa.data, sc.data, sa.len), 0);
	lg_buf_free(&sa);
	lg_buf_free(&sc);
	free(ja);
	free(jc);
	tu_rmrf(a.dir);
	tu_rmrf(c.dir);
}
END_TEST

/* The decision log (one record per job) and a digest of the league's
 * state: every player, every payoff entry and rating, bit for bit. */
struct rd {
	struct brain_job *out;
	size_t n, i;
};

static int log_cb(const void *key, size_t klen, const void *val,
		  size_t vlen, void *arg)
{
	struct rd *r = arg;
	struct brain_log_entry e;

	ck_assert_int_eq(brain_log_decode(key, klen, val, vlen, &e), 0);
	if (e.type != BRAIN_LOG_DECISION)
		return 0;
	if (r->out) {
		ck_assert_uint_lt(r->i, r->n);
		r->out[r->i].id = e.job;
		r->out[r->i].learner = e.player;
		r->out[r->i].opponent = e.opponent;
		r->out[r->i].kind = e.kind;
		r->out[r->i].prob = e.prob;
	}
	r->i++;
	return 0;
}

static void read_jobs(const char *dir, struct brain_job *out, size_t n,
		      lg_buf *state)
{
	struct store_opts so = { STORE_RDONLY, 0, 0 };
	store *s = NULL;
	store_txn *t = NULL;
	brain *b = NULL;
	struct rd r = { out, n, 0 };

	ck_assert_int_eq(store_open(&s, dir, &so, NULL, 0), 0);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	ck_assert_int_eq(store_iter(t, STORE_DB_LOG, NULL, 0, log_cb, &r), 0);
	store_txn_abort(t);
	if (out)
		ck_assert_uint_eq(r.i, n);
	ck_assert_int_eq(brain_open(&b, s, NULL, NULL, 0), 0);
	for (uint32_t id = 0; id < brain_count(b); id++) {
		struct brain_player p;
		memset(&p, 0, sizeof p);
		brain_player_info(b, id, &p);
		lg_buf_append(state, &p, sizeof p);
		lg_buf_printf(state, "%.17g;", payoff_elo(brain_payoff(b), id));
		for (uint32_t q = 0; q < brain_count(b); q++) {
			struct payoff_entry e;
			payoff_get(brain_payoff(b), id, q, &e);
			lg_buf_append(state, &e, sizeof e);
		}
	}
	lg_buf_printf(state, "next=%llu",
		      (unsigned long long)brain_next_job_id(b));
	brain_close(b);
	store_close(s);
}

/*
 * The simulated league: three main players of fixed, non-transitive
 * strength (rock, paper, scissors: each beats the next type 80% of the
 * time, even against its own), each freezing a snapshot of itself every 20
 * of its jobs, so a third of the snapshot pool is of the type that beats
 * a given learner. The same league with the same seeds is played twice
 * with main.pfsp = 1 (every job is a draw over all snapshots): once with
 * PFSP-squared, once with exponent 0, which makes the same code draw
 * uniformly over the snapshots.
 *
 * What it shows: with PFSP each learner spends most of its games against
 * the snapshots it still loses to, far above their share of the pool,
 * although it had to find them through its own payoff estimates (new
 * snapshots start at the 0.5 prior); uniform meets them only at their
 * share of the pool, i.e. it does not seek them out.
 */
static void sim_league(double exponent, struct brain_sim_stats *st)
{
	struct brain_opts o;
	struct brain_sim_opts so;
	struct fx f;

	brain_opts_default(&o);
	o.n_main = 3;
	o.main.pfsp = 1;
	o.main.sp = 0;
	o.main.verification = 0;
	o.pfsp_exponent = exponent;
	o.snapshot_steps = 2000; /* a snapshot every 20 jobs per learner */
	o.snapshot_max_mult = 1;
	o.job_episodes = 16;
	o.batch = 64;
	fx_open(&f, &o, 1);
	brain_sim_opts_default(&so);
	so.jobs = 3000;
	so.seed = 11;
	ck_assert_int_eq(brain_sim_run(f.b, &so, st), 0);
	fx_close(&f, 1);
}

START_TEST(simulated_league_pfsp_vs_uniform)
{
	struct brain_sim_stats ps, us;

	sim_league(2, &ps);
	sim_league(0, &us);
	ck_assert_uint_eq(ps.nlearners, 3);
	ck_assert_uint_ge(ps.snapshots, 140);
	for (uint32_t i = 0; i < 3; i++) {
		const struct brain_sim_learner *p = &ps.l[i], *u = &us.l[i];
		double ph = (double)p->hard_jobs / p->jobs;
		double pshare = p->hard_share_sum / p->jobs;
		double uh = (double)u->hard_jobs / u->jobs;
		double ushare = u->hard_share_sum / u->jobs;
		fprintf(stderr, "sim: learner %u meets what it loses to in "
			"%.3f of its jobs with PFSP (pool share %.3f), %.3f "
			"with uniform (pool share %.3f)\n", p->id, ph, pshare,
			uh, ushare);
		ck_assert_uint_eq(p->kinds[BRAIN_JOB_PFSP], p->jobs);
		ck_assert_msg(ph > pshare + 0.25, "PFSP learner %u: %.3f of "
			      "jobs against what it loses to, pool share "
			      "%.3f", p->id, ph, pshare);
		ck_assert_msg(ph > uh + 0.25, "PFSP %.3f vs uniform %.3f", ph,
			      uh);
		/* uniform: at the pool's share, within 5 binomial sd */
		ck_assert_double_eq_tol(uh, ushare,
					5 * sqrt(ushare * (1 - ushare) /
						 u->jobs));
	}
}
END_TEST

/* The log replays the run: a fresh league with the same options, driven
 * by the log of a stored run (every role, resets included), makes the
 * same decisions and snapshots and ends in the same state; a tampered
 * log is caught at the record that differs. */
/* The league of src once its first `at` log records were made has n
 * agents and exactly this payoff and ladder JSON. */
static void same_league_at(store *src, uint64_t at, uint32_t n,
			   const lg_buf *want_p, const lg_buf *want_r)
{
	uint32_t ids[512];
	lg_buf got = { 0 };
	brain *h = NULL;
	char err[256] = "";

	ck_assert_msg(brain_open_at(&h, src, at, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_uint_eq(brain_count(h), n);
	ck_assert_uint_le(n, 512);
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	ck_assert_int_eq(brain_payoff_json(h, ids, n, &got), 0);
	ck_assert_uint_eq(got.len, want_p->len);
	ck_assert(!memcmp(got.data, want_p->data, got.len));
	got.len = 0;
	ck_assert_int_eq(brain_ratings_json(h, 256, &got), 0);
	ck_assert_uint_eq(got.len, want_r->len);
	ck_assert(!memcmp(got.data, want_r->data, got.len));
	ck_assert_int_eq(brain_close(h), 0);
	lg_buf_free(&got);
}

/* The league at an earlier moment (the page's time slider): a league
 * with resets, its payoff and ladder taken at 200 jobs, then run on to
 * 400 and closed; opened at the log position of the 200th job, the
 * payoff table rebuilt from the log and the results is the one it had
 * then, byte for byte in JSON, with the agents it had then; opened past
 * the end, today's. */
START_TEST(league_at_an_earlier_moment)
{
	struct brain_opts o;
	struct fx a;
	struct store_opts ro = { STORE_RDONLY, 0, 0 };
	store *src = NULL;
	brain *h = NULL;
	lg_buf then_p = { 0 }, then_r = { 0 }, now_p = { 0 }, now_r = { 0 };
	uint32_t ids[512], n_then, n_now;
	uint64_t seq_then;
	char err[256] = "";

	league_opts(&o, 5);
	o.main_exploiter.reset_prob = 1;
	fx_open(&a, &o, 1);
	run_jobs(a.b, 200, 3, NULL);
	ck_assert_int_eq(brain_flush(a.b), 0);
	seq_then = brain_log_seq(a.b);
	n_then = brain_count(a.b);
	for (uint32_t i = 0; i < n_then; i++)
		ids[i] = i;
	ck_assert_int_eq(brain_payoff_json(a.b, ids, n_then, &then_p), 0);
	ck_assert_int_eq(brain_ratings_json(a.b, 256, &then_r), 0);
	run_jobs(a.b, 200, 4, NULL);
	n_now = brain_count(a.b);
	ck_assert_uint_gt(n_now, n_then); /* snapshots came since */
	for (uint32_t i = 0; i < n_now; i++)
		ids[i] = i;
	ck_assert_int_eq(brain_payoff_json(a.b, ids, n_now, &now_p), 0);
	ck_assert_int_eq(brain_ratings_json(a.b, 256, &now_r), 0);
	fx_close(&a, 0);

	ck_assert_int_eq(store_open(&src, a.dir, &ro, NULL, 0), 0);
	same_league_at(src, seq_then, n_then, &then_p, &then_r);
	/* past the end: the league as it is */
	same_league_at(src, UINT64_MAX, n_now, &now_p, &now_r);
	/* before anything: the agents the league began with, no games */
	ck_assert_int_eq(brain_open_at(&h, src, 0, err, sizeof err), 0);
	ck_assert_uint_lt(brain_count(h), n_then);
	ck_assert_int_eq(brain_close(h), 0);
	store_close(src);
	lg_buf_free(&then_p);
	lg_buf_free(&then_r);
	lg_buf_free(&now_p);
	lg_buf_free(&now_r);
	tu_rmrf(a.dir);
}
END_TEST

START_TEST(log_replays_the_run)
{
	struct brain_opts o;
	struct fx a, c;
	lg_buf sa = { 0 }, sc = { 0 };
	uint64_t n = 0;
	char err[256] = "";
	struct brain_job *ja = calloc(401, sizeof *ja), *jc =
		calloc(401, sizeof *jc);

	league_opts(&o, 5);
	o.main_exploiter.reset_prob = 1;
	fx_open(&a, &o, 1);
	run_jobs(a.b, 400, 3, NULL);
	{
		struct brain_job j;
		ck_assert_int_eq(brain_next_job(a.b, 0, &j), 0);
		ck_assert_int_eq(brain_cancel_job(a.b, j.id), 0);
	}
	fx_close(&a, 0);
	ck_assert_msg(fx_replay(&c, &o, a.dir, &n, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_uint_gt(n, 1200); /* 401 decisions, 400 results, reports */
	fx_close(&c, 0);
	read_jobs(a.dir, ja, 401, &sa);
	read_jobs(c.dir, jc, 401, &sc);
	ck_assert_uint_eq(sa.len, sc.len);
	ck_assert_int_eq(memcmp(sa.data, sc.data, sa.len), 0);
	tu_rmrf(c.dir);

	/* tamper with one decision's opponent */
	{
		store *w = NULL;
		store_txn *t = NULL;
		const void *v;
		size_t vl;
		uint8_t k[8], buf[72];
		for (uint64_t seq = 50;; seq++) {
			struct brain_log_entry e;
			ck_assert_int_eq(store_open(&w, a.dir, NULL, NULL, 0),
					 0);
			ck_assert_int_eq(store_txn_begin(w, STORE_TXN_WRITE,
							 &t), 0);
			store_key_u64(k, seq);
			ck_assert_int_eq(store_get(t, STORE_DB_LOG, k, 8, &v,
						   &vl), 0);
			ck_assert_int_eq(brain_log_decode(k, 8, v, vl, &e), 0);
			if (e.type != BRAIN_LOG_DECISION || e.candidates < 2) {
				store_txn_abort(t);
				store_close(w);
				continue;
			}
			memcpy(buf, v, sizeof buf);
			lg_put_le32(buf + 8, e.opponent ^ 1u);
			ck_assert_int_eq(store_put(t, STORE_DB_LOG, k, 8, buf,
						   sizeof buf), 0);
			ck_assert_int_eq(store_txn_commit(t), 0);
			store_close(w);
			break;
		}
	}
	ck_assert_int_eq(fx_replay(&c, &o, a.dir, &n, err, sizeof err),
			 LG_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "logged opponent"));
	fx_close(&c, 1);
	tu_rmrf(a.dir);
	lg_buf_free(&sa);
	lg_buf_free(&sc);
	free(ja);
	free(jc);
}
END_TEST

/* kill -9 at an arbitrary moment of a busy league (a child process
 * playing the simulated league, committing every 7 calls) leaves a
 * directory that reopens, whose state is exactly the replay of its own
 * log (a consistent prefix), and that plays on. */
START_TEST(kill9_leaves_a_consistent_prefix)
{
	struct brain_opts o;
	struct fx a, c;
	lg_buf sa = { 0 }, sc = { 0 };
	uint64_t n = 0;
	char err[256] = "";
	pid_t pid;
	int st;

	league_opts(&o, 7);
	tu_mkdtemp(a.dir, sizeof a.dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		store *s = NULL;
		brain *b = NULL;
		struct brain_sim_opts so;
		if (store_open(&s, a.dir, NULL, NULL, 0) ||
		    brain_open(&b, s, &o, NULL, 0))
			_exit(3);
		brain_sim_opts_default(&so);
		so.jobs = 100000000;
		brain_sim_run(b, &so, NULL);
		_exit(4);
	}
	lg_sleep_s(0.4);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st));
	fx_open(&a, &o, 0);
	ck_assert_uint_gt(brain_next_job_id(a.b), 10);
	run_jobs(a.b, 50, 9, NULL);
	fx_close(&a, 0);
	ck_assert_msg(fx_replay(&c, &o, a.dir, &n, err, sizeof err) == 0, "%s",
		      err);
	fx_close(&c, 0);
	read_jobs(a.dir, NULL, 0, &sa);
	read_jobs(c.dir, NULL, 0, &sc);
	ck_assert_uint_eq(sa.len, sc.len);
	ck_assert_int_eq(memcmp(sa.data, sc.data, sa.len), 0);
	lg_buf_free(&sa);
	lg_buf_free(&sc);
	tu_rmrf(a.dir);
	tu_rmrf(c.dir);
}
END_TEST

/* The inspection commands on a simulated league, one of them while the
 * directory is held open read-write by this process (the daemon's
 * place): read-only opens work beside a writer. */
START_TEST(cli_inspection)
{
	char dir[128], cfgp[192], lg[192], out[1 << 16], err[2048];
	store *w = NULL;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(cfgp, sizeof cfgp, "%s/l.yaml", dir);
	snprintf(lg, sizeof lg, "%s/league", dir);
	tu_write_file(cfgp, "league: {seed: 3}\n"
			    "players: {main: 2, main_exploiter: 1, "
			    "league_exploiter: 1}\n"
			    "snapshot: {steps: 2000}\n"
			    "payoff: {min_games: 1000000}\n"
			    "budget: {jobs: 10}\n");
	{
		const char *const a[] = { "sim", cfgp, "--dir", lg, "--jobs",
					  "400", NULL };
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, a), 0);
		ck_assert_ptr_nonnull(strstr(out, "simulated 400 jobs"));
	}
	ck_assert_int_eq(store_open(&w, lg, NULL, NULL, 0), 0);
	{
		const char *const a[] = { "payoff", lg, "--format", "json",
					  NULL };
		char *p, *q, *r;
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, a), 0);
		p = strstr(out, "{\"players\":[0,1,2,");
		q = strstr(out, "\"win_rate\":[[");
		r = strstr(out, "\"games\":[[");
		ck_assert(p && q && r && p < q && q < r);
		/* the league's own min_games (stored), not the default: every
		 * rate is still the 0.5 prior */
		ck_assert_ptr_nonnull(strstr(out, "\"win_rate\":[[0.5,0.5,"));
	}
	store_close(w);
	{
		const char *const a[] = { "payoff", lg, NULL };
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, a), 0);
		ck_assert_ptr_nonnull(strstr(out, "win rate of row"));
		ck_assert_ptr_null(strstr(out, "players: the learning"));
	}
	{
		/* --top 6: the four learning players (0, 2, 4, 5: each main
		 * player's first snapshot comes right after it) and the two
		 * newest snapshots, in id order */
		const char *const a[] = { "payoff", lg, "--top", "6", NULL };
		const char *const x[] = { "payoff", lg, "--top", "0", NULL };
		const char *const y[] = { "payoff", lg, "--top", "3",
					  "--format", "csv", NULL };
		struct brain_player bp;
		store *rs = NULL;
		brain *rb = NULL;
		uint32_t n;
		char want[64];
		int rows = 0;
		ck_assert_int_eq(store_open(&rs, lg, &(struct store_opts){
						     STORE_RDONLY, 0, 0 },
					    NULL, 0), 0);
		ck_assert_int_eq(brain_open(&rb, rs, NULL, NULL, 0), 0);
		n = brain_count(rb);
		ck_assert_uint_gt(n, 8);
		ck_assert_int_eq(brain_player_info(rb, 5, &bp), 0);
		ck_assert(bp.role == BRAIN_ROLE_LEAGUE_EXPLOITER);
		ck_assert_int_eq(brain_player_info(rb, n - 3, &bp), 0);
		ck_assert(bp.role == BRAIN_ROLE_HISTORICAL);
		brain_close(rb);
		store_close(rs);
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, a), 0);
		snprintf(want, sizeof want, "6 of %u players", n);
		ck_assert_ptr_nonnull(strstr(out, want));
		snprintf(want, sizeof want, "\n%4u ", n - 2);
		ck_assert_ptr_nonnull(strstr(out, want));
		snprintf(want, sizeof want, "\n%4u ", n - 3);
		ck_assert_ptr_null(strstr(out, want));
		ck_assert_ptr_nonnull(strstr(out, "\n   5 lexp"));
		for (const char *p = out; (p = strchr(p, '\n')); p++)
			rows++;
		ck_assert_int_eq(rows, 2 + 6); /* title, header, 6 rows */
		ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0, x), 2);
		ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0, y), 2);
	}
	{
		const char *const a[] = { "payoff", lg, "--format", "csv",
					  NULL };
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, a), 0);
		ck_assert_ptr_nonnull(strstr(out, "player,opponent,win_rate,"
						  "games"));
		ck_assert_ptr_nonnull(strstr(out, "\n0,"));
		ck_assert_ptr_nonnull(strstr(out, "\n0,0,0.5,"));
	}
	{
		const char *const a[] = { "players", lg, "--format", "json",
					  NULL };
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, a), 0);
		ck_assert_ptr_nonnull(strstr(out, "\"role\":\"main\""));
		ck_assert_ptr_nonnull(strstr(out, "\"role\":\"historical\","
						  "\"pop\":0,\"parent\":0"));
	}
	{
		const char *const a[] = { "players", lg, NULL };
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, a), 0);
		ck_assert_ptr_nonnull(strstr(out, "main_exploiter"));
		ck_assert_ptr_nonnull(strstr(out, "frozen"));
	}
	{
		const char *const a[] = { "ratings", lg, "--format", "json",
					  NULL };
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, a), 0);
		ck_assert_ptr_nonnull(strstr(out, "\"nash_gap\":"));
		/* learners have no parent, snapshots name theirs */
		ck_assert_ptr_nonnull(strstr(out, "\"parent\":-1,"));
		ck_assert_ptr_nonnull(strstr(out, "\"role\":\"historical\""));
		ck_assert_ptr_nonnull(strstr(out, "\"parent\":0,"));
		/* and each rating its standard error */
		ck_assert_ptr_nonnull(strstr(out, "\"rating_se\":"));
	}
	{
		const char *const a[] = { "payoff", lg, "--format", "xml",
					  NULL };
		const char *const b[] = { "payoff", NULL };
		const char *const c[] = { "players", "/nonexistent/x", NULL };
		const char *const d[] = { "players", lg, "--format", "csv",
					  NULL };
		ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0, a), 2);
		ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0, b), 2);
		ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0, c), 1);
		ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0, d), 2);
	}
	/* a config whose branch probabilities do not sum to 1 */
	tu_write_file(cfgp, "roles: {main: {pfsp: 0.6}}\n"
			    "budget: {jobs: 10}\n");
	{
		const char *const a[] = { "sim", cfgp, "--dir", lg, NULL };
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, a), 2);
		ck_assert_ptr_nonnull(strstr(err, "roles.main"));
	}
	tu_rmrf(dir);
}
END_TEST

Suite *suite_players(void)
{
	Suite *s = suite_create("players");
	const struct tu_test rules_tests[] = {
		{ opts_checked, 1 },
		{ caller_owns_the_transaction, 1 },
		{ initial_league_and_lineage, 1 },
		{ pfsp_frequencies, 1 },
		{ pfsp_zero_weights_uniform, 1 },
		{ every_branch, 1 },
		{ snapshot_and_reset_triggers, 1 },
		{ results_count_once, 1 },
	};
	const struct tu_test league_tests[] = {
		{ resume_is_identical, 1 },
		{ simulated_league_pfsp_vs_uniform, 1 },
		{ log_replays_the_run, 1 },
		{ league_at_an_earlier_moment, 1 },
		{ kill9_leaves_a_consistent_prefix, 1 },
		{ cli_inspection, 1 },
	};

	TU_TCASE(s, "rules", 60, rules_tests);
	TU_TCASE(s, "league", 60, league_tests);
	return s;
}
