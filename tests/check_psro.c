/* tests/check_psro.c: PSRO (league.mode psro). The meta-solvers on games
 * whose answer is known (rock-paper-scissors: uniform; a transitive game:
 * the top member); the brain's PSRO rules on a store: cross-play pairs
 * listed until played, the meta-strategy over the complete prefix only,
 * opponents drawn from it, an iteration ending at its budget and on a
 * plateau, cross-play results counted once and replayed from the log;
 * the players record's two formats. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "payoff/payoff.h"
#include "players/brain_internal.h"
#include "players/players.h"
#include "tests/brain_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

/* ---- meta-solvers ----------------------------------------------------- */

static const double rps[9] = { 0.5, 0, 1, 1, 0.5, 0, 0, 1, 0.5 };

START_TEST(meta_solvers_on_known_games)
{
	struct payoff_meta_opts o;
	double x[4], trans[16];

	payoff_meta_opts_default(&o);
	for (int s = 0; s < PAYOFF_META__COUNT; s++) {
		o.solver = s;
		ck_assert_int_eq(payoff_meta(rps, 3, &o, x), 0);
		for (int i = 0; i < 3; i++)
			ck_assert_msg(fabs(x[i] - 1.0 / 3) < 1e-3,
				      "solver %d: x[%d] = %g", s, i, x[i]);
	}
	/* member i beats j > i 70:30 */
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			trans[i * 4 + j] = i < j ? 0.7 : i > j ? 0.3 : 0.5;
	o.solver = PAYOFF_META_NASH;
	ck_assert_int_eq(payoff_meta(trans, 4, &o, x), 0);
	ck_assert_double_eq_tol(x[0], 1, 1e-9);
	o.solver = PAYOFF_META_ALPHARANK;
	ck_assert_int_eq(payoff_meta(trans, 4, &o, x), 0);
	ck_assert_double_gt(x[0], 0.999);
	o.solver = PAYOFF_META_PRD;
	ck_assert_int_eq(payoff_meta(trans, 4, &o, x), 0);
	/* the average of the iterates, which start uniform */
	ck_assert_double_gt(x[0], 0.8);
	ck_assert_double_gt(x[0], x[1]);
	o.solver = PAYOFF_META_UNIFORM;
	ck_assert_int_eq(payoff_meta(trans, 4, &o, x), 0);
	ck_assert_double_eq(x[3], 0.25);
	/* a diagonal other than 1/2 is the seat's noise, not the game */
	trans[0] = 0.9;
	o.solver = PAYOFF_META_NASH;
	ck_assert_int_eq(payoff_meta(trans, 4, &o, x), 0);
	ck_assert_double_eq_tol(x[0], 1, 1e-9);
	/* refused */
	trans[5] = NAN;
	ck_assert_int_eq(payoff_meta(trans, 4, &o, x), LG_EINVAL);
	ck_assert_int_eq(payoff_meta(rps, 0, &o, x), LG_EINVAL);
	o.solver = PAYOFF_META__COUNT;
	ck_assert_int_eq(payoff_meta(rps, 3, &o, x), LG_EINVAL);
}
END_TEST

/* ---- the brain -------------------------------------------------------- */


static void psro_opts(struct brain_opts *o)
{
	brain_opts_default(o);
	o->seed = 3;
	o->n_main = 0;
	o->n_self_play = 1;
	o->psro.on = 1;
	o->psro.crossplay_episodes = 8;
	o->psro.br_steps = 1000;
	o->psro.patience_steps = 300;
	o->psro.min_improve = 0.01;
	o->snapshot_steps = 100;
	o->snapshot_keep = 100;
	o->payoff.decay = 1;
}



/* Steps for learner 0; 1 when it froze a snapshot (its id in *sid). */
static int steps(brain *b, uint64_t to, uint32_t *sid)
{
	struct brain_player p;
	struct brain_step_report r;

	brain_player_info(b, 0, &p);
	ck_assert_int_eq(brain_report_steps(b, 0, to, p.version + 1, &r), 0);
	if (r.snapshot)
		*sid = r.snapshot_id;
	return r.snapshot;
}

/* Every cross-play game the brain asks for, member a winning with
 * probability win(a, c) (seeded), under job ids from *job. */
static void play_crossplay(brain *b, uint64_t *job, lg_rng *g,
			   double (*win)(uint32_t, uint32_t))
{
	uint32_t a[64], c[64], left[64];
	int8_t out[64];
	size_t n;

	for (;;) {
		ck_assert_int_eq(brain_psro_pairs(b, a, c, left, 64, &n), 0);
		if (!n)
			return;
		for (size_t k = 0; k < n; k++) {
			ck_assert_uint_le(left[k], 64);
			for (uint32_t i = 0; i < left[k]; i++)
				out[i] = lg_rng_double(g) < win(a[k], c[k])
						 ? 1 : -1;
			ck_assert_int_eq(brain_record_games(b, ++*job, a[k],
							    c[k], out,
							    left[k]), 0);
		}
	}
}

/* Newer members beat older ones 80:20 (a transitive population). */
static double newer_wins(uint32_t a, uint32_t c)
{
	return a > c ? 0.8 : 0.2;
}

START_TEST(psro_population_meta_and_iterations)
{
	struct brain_opts o;
	struct fx f;
	uint32_t ids[16], sid = 0, a[8], c[8], left[8];
	double x[16];
	size_t n;
	uint64_t job = 1ull << 62, s = 0;
	lg_rng g;

	lg_rng_seed(&g, 11);
	psro_opts(&o);
	fx_open(&f, &o, 1);
	/* the initial snapshot alone: the meta-strategy is it */
	ck_assert_int_eq(brain_psro_meta(f.b, ids, x, 16, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_double_eq(x[0], 1);
	uint32_t first = ids[0];
	/* no freeze before snapshot.steps, however flat */
	ck_assert(!steps(f.b, s += 50, &sid));
	/* the iteration's budget: br_steps (no games: a flat 0.5) */
	while (!steps(f.b, s += 100, &sid))
		ck_assert_uint_le(s, 1000);
	ck_assert_uint_ge(s, 300); /* patience first: no rise for 300 */
	ck_assert_uint_le(s, 450);
	/* the new member waits for its games */
	ck_assert_int_eq(brain_psro_meta(f.b, ids, x, 16, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(brain_psro_pairs(f.b, a, c, left, 8, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(a[0], sid);
	ck_assert_uint_eq(c[0], first);
	ck_assert_uint_eq(left[0], 8);
	{
		/* half the games: still out; counted once */
		int8_t out[4] = { 1, 1, 1, -1 };
		ck_assert_int_eq(brain_record_games(f.b, ++job, sid, first,
						    out, 4), 0);
		ck_assert_int_eq(brain_flush(f.b), 0);
		ck_assert_int_eq(brain_record_games(f.b, job, sid, first, out,
						    4), LG_EEXIST);
		ck_assert_int_eq(brain_games_counted(f.b, job), 1);
		ck_assert_int_eq(brain_psro_pairs(f.b, a, c, left, 8, &n), 0);
		ck_assert_uint_eq(left[0], 4);
		ck_assert_int_eq(brain_record_games(f.b, ++job, sid, 0, out,
						    4), LG_EINVAL); /* a learner */
	}
	play_crossplay(f.b, &job, &g, newer_wins);
	ck_assert_int_eq(brain_psro_meta(f.b, ids, x, 16, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(ids[1], sid);
	{
		/* the solved meta-strategy is kept (BRAIN_NASH_MAX asks) and
		 * solved again when cross-play results change the game */
		uint32_t ids2[BRAIN_NASH_MAX];
		double x2[BRAIN_NASH_MAX];
		int8_t won[64];
		size_t n2;
		ck_assert_int_eq(brain_psro_meta(f.b, ids2, x2, BRAIN_NASH_MAX,
						 &n2), 0);
		ck_assert_double_eq_tol(x2[1], 1, 1e-9);
		memset(won, 1, sizeof won);
		ck_assert_int_eq(brain_record_games(f.b, ++job, first, sid, won,
						    64), 0);
		ck_assert_int_eq(brain_psro_meta(f.b, ids2, x2, BRAIN_NASH_MAX,
						 &n2), 0);
		ck_assert_double_eq_tol(x2[0], 1, 1e-9);
		ck_assert_int_eq(brain_psro_meta(f.b, ids, x, 16, &n), 0);
		ck_assert_double_eq_tol(x[0], 1, 1e-9);
	}
	/* opponents come from the meta-strategy's support */
	for (int k = 0; k < 50; k++) {
		struct brain_job j;
		ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
		ck_assert_int_eq(j.kind, BRAIN_JOB_NASH);
		int in = 0;
		for (size_t i = 0; i < n; i++)
			in |= ids[i] == j.opponent && x[i] > 0;
		ck_assert_msg(in, "opponent %u outside the meta-strategy",
			      j.opponent);
		ck_assert_int_eq(brain_cancel_job(f.b, j.id), 0);
	}
	/* a rising responder goes on; the plateau ends it */
	{
		uint64_t start = s, ended = 0;
		int8_t w[1] = { 1 }, l[1] = { -1 };
		for (int k = 0; k < 40 && !ended; k++) {
			struct brain_job j;
			/* a loss, then six wins: the win rate rises by more
			 * than 0.01 at each report (1/2, 2/3, ..., 6/7);
			 * then alternating, it falls */
			ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
			ck_assert_int_eq(brain_record_result(
						 f.b, j.id,
						 !k || (k > 6 && k % 2) ? l : w,
						 1),
					 0);
			if (steps(f.b, s += 50, &sid))
				ended = s;
		}
		ck_assert_msg(ended, "no plateau seen");
		/* the last rise at the 7th report, then patience */
		ck_assert_uint_ge(ended - start, 7 * 50 + 300);
		ck_assert_uint_le(ended - start, 7 * 50 + 300 + 50);
	}
	fx_close(&f, 0);
	tu_rmrf(f.dir);
}
END_TEST

/* Under a payoff decay, the games a pair still needs are the outcomes
 * that bring its decayed count to the complete one: the same as adding
 * them one by one. */
START_TEST(psro_pairs_left_under_decay)
{
	struct brain_opts o;
	struct fx f;
	uint32_t sid = 0, first, a[4], c[4], left[4];
	int8_t won[40];
	uint64_t s = 0, job = 1ull << 62;
	size_t n;

	psro_opts(&o);
	o.payoff.decay = 0.99;
	o.psro.crossplay_episodes = 300;
	fx_open(&f, &o, 1);
	ck_assert_int_eq(brain_psro_meta(f.b, a, (double[4]){ 0 }, 4, &n), 0);
	first = a[0];
	while (!steps(f.b, s += 100, &sid))
		;
	memset(won, 1, sizeof won);
	for (int k = 0; k < 3; k++) {
		struct payoff_entry e;
		double need, x;
		uint32_t want = 0;
		ck_assert_int_eq(brain_psro_pairs(f.b, a, c, left, 4, &n), 0);
		ck_assert_uint_eq(n, 1);
		ck_assert_int_eq(payoff_get(brain_payoff(f.b), sid, first, &e),
				 0);
		need = (1 - pow(0.99, 300)) / 0.01;
		need -= 1e-6 * need;
		for (x = e.games; x < need; want++)
			x = 0.99 * x + 1;
		ck_assert_uint_eq(left[0], want);
		ck_assert_int_eq(brain_record_games(f.b, ++job, sid, first, won,
						    40), 0);
	}
	fx_close(&f, 1);
}
END_TEST

/* The log replays a PSRO league, cross-play games included. */
START_TEST(psro_replays)
{
	struct brain_opts o;
	struct fx f, r;
	uint64_t job = 1ull << 62, s = 0, checked;
	uint32_t sid;
	char err[256];
	lg_rng g;

	lg_rng_seed(&g, 12);
	psro_opts(&o);
	fx_open(&f, &o, 1);
	for (int it = 0; it < 4; it++) {
		while (!steps(f.b, s += 100, &sid)) {
			struct brain_job j;
			int8_t out[2] = { 1, -1 };
			ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
			ck_assert_int_eq(brain_record_result(f.b, j.id, out, 2),
					 0);
		}
		play_crossplay(f.b, &job, &g, newer_wins);
	}
	ck_assert_int_eq(brain_flush(f.b), 0);
	fx_open(&r, &o, 1);
	ck_assert_msg(brain_replay(f.s, r.b, &checked, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_uint_gt(checked, 20);
	for (uint32_t i = 0; i < brain_count(f.b); i++)
		for (uint32_t k = 0; k < brain_count(f.b); k++) {
			struct payoff_entry e1, e2;
			ck_assert_int_eq(payoff_get(brain_payoff(f.b), i, k,
						    &e1), 0);
			ck_assert_int_eq(payoff_get(brain_payoff(r.b), i, k,
						    &e2), 0);
			ck_assert_int_eq(memcmp(&e1, &e2, sizeof e1), 0);
		}
	fx_close(&r, 0);
	fx_close(&f, 0);
	tu_rmrf(r.dir);
	tu_rmrf(f.dir);
}
END_TEST

START_TEST(player_record_formats)
{
	struct agent a, b;
	uint8_t r[BRAIN_REC_PLAYER];

	memset(&a, 0, sizeof a);
	a.role = BRAIN_ROLE_SELF_PLAY;
	a.version = 7;
	a.steps = 1234;
	a.psro_best = 0.625;
	a.psro_at = 999;
	brain_rec_player_encode(&a, r);
	ck_assert_int_eq(brain_rec_player_decode(r, sizeof r, &b), 0);
	ck_assert_double_eq(b.psro_best, 0.625);
	ck_assert_uint_eq(b.psro_at, 999);
	ck_assert_uint_eq(b.steps, 1234);
	/* format 1 (before PSRO): 40 bytes, no PSRO fields */
	r[0] = 1;
	ck_assert_int_eq(brain_rec_player_decode(r, 40, &b), 0);
	ck_assert_double_eq(b.psro_best, 0);
	ck_assert_uint_eq(b.version, 7);
	ck_assert_int_eq(brain_rec_player_decode(r, sizeof r, &b),
			 LG_ECORRUPT);
	r[0] = 2;
	ck_assert_int_eq(brain_rec_player_decode(r, 40, &b), LG_ECORRUPT);
	lg_put_lef64(r + 40, NAN);
	ck_assert_int_eq(brain_rec_player_decode(r, sizeof r, &b),
			 LG_ECORRUPT);
}
END_TEST

/* The brain options of the league below (its players and psro keys). */
static void psro_test_opts(struct brain_opts *o)
{
	brain_opts_default(o);
	o->n_main = 0;
	o->n_self_play = 1;
	o->psro.on = 1;
	o->psro.crossplay_episodes = 128;
	o->psro.return_scale = 2;
	o->snapshot_keep = 100;
	o->payoff.decay = 1;
}

/* Done when the meta-strategy of the league in dir is over two members
 * or more (read-only, beside the run). */
static int psro_meta_of_two(const char *dir, void *arg)
{
	struct store_opts so = { .flags = STORE_RDONLY };
	uint32_t ids[BRAIN_NASH_MAX];
	double x[BRAIN_NASH_MAX];
	char err[256];
	size_t n = 0;
	store *s;
	brain *b;

	if (store_open(&s, dir, &so, err, sizeof err))
		return 0;
	if (!brain_open(&b, s, arg, err, sizeof err)) {
		if (brain_psro_meta(b, ids, x, BRAIN_NASH_MAX, &n))
			n = 0;
		brain_close(b);
	}
	store_close(s);
	return n >= 2;
}

/* A PSRO league end to end: `league run` of Kuhn grows a population
 * whose pairs cross-play completed until the meta-strategy is over more
 * than the first member (however long a busy machine takes; then
 * SIGTERM), and `league replay` makes every decision, step report and
 * cross-play result again. */
START_TEST(psro_league_runs_and_replays)
{
	static const char *cfg =
		"league: {name: psro, seed: 4, mode: psro}\n"
		"env: {name: kuhn}\n"
		"model: {hidden: [16]}\n"
		"learner: {lr: 0.003, batch: 1024, minibatch: 256}\n"
		"players: {main: 0, main_exploiter: 0, league_exploiter: 0,\n"
		"          self_play: 1}\n"
		"psro: {crossplay_episodes: 128, br_steps: 30000,\n"
		"       patience_steps: 10000, return_scale: 2}\n"
		"snapshot: {steps: 10000, keep: 100}\n"
		"payoff: {decay: 1.0}\n"
		"matchmaking: {job_episodes: 64}\n"
		"collectors: {count: 1, envs: 8, wait_num: 4, mode: serial}\n"
		"budget: {seconds: 600}\n"; /* a backstop: stopped below */
	static char out[1 << 16], err[1 << 16];
	char root[256], path[300], dir[300];
	struct store_opts so = { .flags = STORE_RDONLY };
	uint32_t ids[BRAIN_NASH_MAX];
	double x[BRAIN_NASH_MAX];
	struct brain_opts o;
	size_t n;
	store *s;
	brain *b;

	tu_mkdtemp(root, sizeof root);
	snprintf(path, sizeof path, "%s/psro.yaml", root);
	snprintf(dir, sizeof dir, "%s/league", root);
	tu_write_file(path, cfg);
	const char *run[] = { "run", path, "--dir", dir, "--quiet", NULL };
	psro_test_opts(&o);
	int rc = tu_run_league_until(run, dir, psro_meta_of_two, &o, 300, out,
				     sizeof out, err, sizeof err);
	ck_assert_msg(rc == 0, "league run: %d\n%s", rc, err);
	ck_assert_int_eq(store_open(&s, dir, &so, err, sizeof err), 0);
	ck_assert_msg(brain_open(&b, s, &o, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(brain_psro_meta(b, ids, x, BRAIN_NASH_MAX, &n), 0);
	ck_assert_msg(n >= 2, "the meta-strategy is over %zu member(s)", n);
	ck_assert_uint_ge(brain_snapshot_count(b), n);
	brain_close(b);
	store_close(s);
	const char *rp[] = { "replay", dir, NULL };
	rc = tu_run_league(out, sizeof out, err, sizeof err, rp);
	ck_assert_msg(rc == 0, "league replay: %d\n%s%s", rc, out, err);
	ck_assert_msg(strstr(out, "the same"), "%s", out);
	tu_rmrf(root);
}
END_TEST

Suite *suite_psro(void)
{
	Suite *s = suite_create("psro");
	const struct tu_test core_tests[] = {
		{ meta_solvers_on_known_games, 1 },
		{ psro_population_meta_and_iterations, 1 },
		{ psro_pairs_left_under_decay, 1 },
		{ psro_replays, 1 },
		{ player_record_formats, 1 },
		{ psro_league_runs_and_replays, 1 },
	};

	TU_TCASE(s, "core", 60, core_tests);
	return s;
}
