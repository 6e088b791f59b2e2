/*
 * tests/check_mcts.c: the PUCT search (envs/mcts.c). With a uniform prior
 * and no value it finds a win in one and blocks a loss in one on
 * tic-tac-toe; with the exact value (a negamax written here) it never
 * loses to the minimax baseline from either seat, which a sign error in
 * the backup would break at once; with a wrong-signed value it loses; it
 * is deterministic; root noise is a symmetric Dirichlet over the legal
 * actions that leaves the one-move tactics alone; and it refuses games it
 * cannot search.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envs/env_internal.h"
#include "learner/learner.h"
#include "storage/storage.h"
#include "tests/testutil.h"

/* ---- evaluators --------------------------------------------------------- */

static int uniform_eval(void *ctx, size_t n, const float *obs,
			const uint8_t *mask, const void *const *states,
			float *prior, float *value)
{
	(void)ctx;
	(void)obs;
	(void)states;
	for (size_t i = 0; i < n * 9; i++)
		prior[i] = mask[i] ? 1.0f : 0.0f;
	for (size_t i = 0; i < n; i++)
		value[i] = 0;
	return 0;
}

static int ttt_winner(const int8_t *c)
{
	static const int L[8][3] = { { 0, 1, 2 }, { 3, 4, 5 }, { 6, 7, 8 },
				     { 0, 3, 6 }, { 1, 4, 7 }, { 2, 5, 8 },
				     { 0, 4, 8 }, { 2, 4, 6 } };
	for (int i = 0; i < 8; i++)
		if (c[L[i][0]] && c[L[i][0]] == c[L[i][1]] &&
		    c[L[i][1]] == c[L[i][2]])
			return c[L[i][0]];
	return 0;
}

/* The exact value for the player to move (mark `me`, 1 or 2). */
static int negamax(int8_t *c, int me)
{
	int best = -2, any = 0;

	for (int i = 0; i < 9; i++) {
		if (c[i])
			continue;
		any = 1;
		c[i] = (int8_t)me;
		int v = ttt_winner(c) ? 1 : -negamax(c, 3 - me);
		c[i] = 0;
		if (v > best)
			best = v;
	}
	return any ? best : 0;
}

/* The exact evaluator's context: the sign the value is given with (1
 * right, -1 wrong), and what it was asked. */
struct ectx {
	int sign;
	size_t calls, states, most;
};

static int exact_eval(void *ctx, size_t n, const float *obs,
		      const uint8_t *mask, const void *const *states,
		      float *prior, float *value)
{
	struct ectx *x = ctx;

	(void)obs;
	x->calls++;
	x->states += n;
	if (n > x->most)
		x->most = n;
	for (size_t i = 0; i < n; i++) {
		const struct env_ttt_st *s = states[i];
		int8_t c[9];
		memcpy(c, s->cell, 9);
		for (int a = 0; a < 9; a++)
			prior[i * 9 + a] = mask[i * 9 + a] ? 1.0f : 0.0f;
		value[i] = (float)(x->sign * negamax(c, s->cur + 1));
	}
	return 0;
}

static env *ttt(void)
{
	env *e = tu_env_open("tictactoe", NULL);

	ck_assert_int_eq(env_reset(e, 1), 0);
	return e;
}

static void play(env *e, const int *moves, int n)
{
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(env_step(e, moves[i]), 0);
}

/* X (player 0) has 0 and 1, O has 3 and 4: X to move wins at 2. */
START_TEST(finds_a_win_in_one)
{
	env *e = ttt();
	env_mcts *m = NULL;
	struct env_mcts_opts o = { .sims = 60, .c_puct = 1.5 };
	int a = -1;
	uint32_t visits[9];

	play(e, (const int[]){ 0, 3, 1, 4 }, 4);
	m = tu_mcts_open(e, &o, uniform_eval, NULL);
	ck_assert_int_eq(env_mcts_act(m, e, NULL, &a, visits), 0);
	ck_assert_int_eq(a, 2);
	uint32_t sum = 0;
	for (int i = 0; i < 9; i++)
		sum += visits[i];
	ck_assert_uint_eq(sum, 60); /* every simulation leaves the root */
	ck_assert_uint_eq(visits[0], 0); /* occupied cells never */
	env_mcts_free(m);
	env_free(e);
}
END_TEST

/* X has 0 and 1; O (to move, with 4) must block at 2. */
START_TEST(blocks_a_loss_in_one)
{
	env *e = ttt();
	env_mcts *m = NULL;
	struct env_mcts_opts o = { .sims = 400, .c_puct = 1.5 };
	int a = -1;

	play(e, (const int[]){ 0, 4, 1 }, 3);
	m = tu_mcts_open(e, &o, uniform_eval, NULL);
	ck_assert_int_eq(env_mcts_act(m, e, NULL, &a, NULL), 0);
	ck_assert_int_eq(a, 2);
	env_mcts_free(m);
	env_free(e);
}
END_TEST

/* LG_EIO, always (ctx NULL) or once *ctx is set; until then the uniform
 * evaluator. */
static int failing_eval(void *ctx, size_t n, const float *obs,
			const uint8_t *mask, const void *const *states,
			float *prior, float *value)
{
	if (!ctx || *(int *)ctx)
		return LG_EIO;
	return uniform_eval(NULL, n, obs, mask, states, prior, value);
}

/* The search's value of the root (env_mcts_root_value) against the
 * evaluator's: with a uniform evaluator, which says 0 everywhere, a win
 * in one is worth most of a win to the search once its simulations back
 * the win up, and a position lost to a double threat most of a loss,
 * sequentially and in rounds of 8 leaves; NAN before any search and
 * after one that failed. */
START_TEST(root_value)
{
	static const struct {
		int moves[5], n;
		double lo, hi;
	} pos[] = {
		{ { 0, 3, 1, 4 }, 4, 0.5, 1 },  /* X wins at 2 */
		/* X has 0, 2 and 6 (threats at 1, 3 and 4), O to move */
		{ { 0, 8, 2, 5, 6 }, 5, -1, -0.5 },
	};
	for (size_t k = 0; k < LG_ARRAY_LEN(pos); k++)
		for (uint32_t batch = 1; batch <= 8; batch += 7) {
			env *e = ttt();
			env_mcts *m = NULL;
			struct env_mcts_opts o = { .sims = 200, .c_puct = 1.5,
						   .batch = batch };
			float v = -9;
			int fail = 0;

			play(e, pos[k].moves, pos[k].n);
			m = tu_mcts_open(e, &o, failing_eval, &fail);
			ck_assert(isnan(env_mcts_root_value(m)));
			ck_assert_int_eq(env_mcts_search(m, e, NULL, NULL, NULL,
							 &v), 0);
			double q = env_mcts_root_value(m);
			fprintf(stderr, "mcts root value: position %zu, batch "
				"%u: %.3f\n", k, batch, q);
			ck_assert_float_eq(v, 0); /* the evaluator's */
			ck_assert_msg(q >= pos[k].lo && q <= pos[k].hi,
				      "position %zu, batch %u: %g", k, batch,
				      q);
			fail = 1;
			ck_assert_int_eq(env_mcts_search(m, e, NULL, NULL, NULL,
							 NULL), LG_EIO);
			ck_assert(isnan(env_mcts_root_value(m)));
			env_mcts_free(m);
			env_free(e);
		}
	ck_assert(isnan(env_mcts_root_value(NULL)));
}
END_TEST

/* Games of the search (seat `seat`, `batch` leaves an evaluation)
 * against minimax; returns its losses. */
static int losses_vs_minimax(int sign, int seat, int games, uint32_t sims,
			     uint32_t batch)
{
	env *e = ttt();
	env_baseline *b = NULL;
	env_mcts *m = NULL;
	struct env_mcts_opts o = { .sims = sims, .c_puct = 1.5,
				   .batch = batch };
	struct ectx x = { .sign = sign };
	char err[256];
	lg_rng r;
	int lost = 0;

	lg_rng_seed(&r, 7 + (uint64_t)seat);
	ck_assert_int_eq(env_baseline_new(&b, "minimax", e, err, sizeof err),
			 0);
	m = tu_mcts_open(e, &o, exact_eval, &x);
	for (int g = 0; g < games; g++) {
		ck_assert_int_eq(env_reset(e, (uint64_t)g), 0);
		while (!env_is_terminal(e)) {
			int p = env_current_player(e), a;
			if (p == seat)
				ck_assert_int_eq(env_mcts_act(m, e, NULL, &a, NULL),
						 0);
			else
				ck_assert_int_eq(env_baseline_act(b, e, p, &r,
								  &a), 0);
			ck_assert_int_eq(env_step(e, a), 0);
		}
		double ret[2];
		env_returns(e, ret);
		lost += ret[seat] < 0;
	}
	ck_assert_uint_le(x.most, batch ? batch : 1);
	env_mcts_free(m);
	env_baseline_free(b);
	env_free(e);
	return lost;
}

/* With the exact value every move the search makes keeps the game's value,
 * so minimax (which breaks ties at random: different games) never wins;
 * 50 games a seat. */
START_TEST(exact_value_never_loses_to_minimax)
{
	for (int seat = 0; seat < 2; seat++)
		ck_assert_int_eq(losses_vs_minimax(1, seat, 50, 30, 1), 0);
}
END_TEST

/* The same value with the wrong sign steers into lost positions: against
 * minimax from seat 1 (a draw with right play) it loses most games. */
START_TEST(wrong_signed_value_loses)
{
	ck_assert_int_ge(losses_vs_minimax(-1, 1, 20, 30, 1), 15);
}
END_TEST

START_TEST(deterministic)
{
	env *e = ttt();
	env_mcts *m = NULL;
	struct env_mcts_opts o = { .sims = 200, .c_puct = 1.5 };
	uint32_t v1[9], v2[9];
	int a1, a2;

	play(e, (const int[]){ 4 }, 1);
	m = tu_mcts_open(e, &o, uniform_eval, NULL);
	ck_assert_int_eq(env_mcts_act(m, e, NULL, &a1, v1), 0);
	ck_assert_int_eq(env_mcts_act(m, e, NULL, &a2, v2), 0);
	ck_assert_int_eq(a1, a2);
	ck_assert(!memcmp(v1, v2, sizeof v1));
	env_mcts_free(m);
	env_free(e);
}
END_TEST

/* With a generator the move is a sample in proportion to the root's
 * visits: 2,000 searches from one state (the same visits each time),
 * each action's frequency within 4.5 standard deviations of its share
 * (sqrt(p (1 - p) / 2000)); never an occupied cell. */
START_TEST(sampled_in_proportion_to_visits)
{
	env *e = ttt();
	env_mcts *m = NULL;
	struct env_mcts_opts o = { .sims = 40, .c_puct = 1.5 };
	uint32_t v[9], count[9] = { 0 };
	lg_rng r;
	int a;
	const int N = 2000;

	play(e, (const int[]){ 4 }, 1);
	m = tu_mcts_open(e, &o, uniform_eval, NULL);
	ck_assert_int_eq(env_mcts_act(m, e, NULL, &a, v), 0);
	lg_rng_seed(&r, 11);
	for (int k = 0; k < N; k++) {
		ck_assert_int_eq(env_mcts_act(m, e, &r, &a, NULL), 0);
		ck_assert(a >= 0 && a < 9 && a != 4);
		count[a]++;
	}
	int spread = 0;
	for (int i = 0; i < 9; i++) {
		double p = v[i] / 40.0, f = count[i] / (double)N;
		ck_assert_msg(fabs(f - p) <= 4.5 * sqrt(p * (1 - p) / N) + 1e-9,
			      "action %d: %.4f sampled, %.4f of the visits", i,
			      f, p);
		spread += count[i] > 0;
	}
	ck_assert_int_ge(spread, 2); /* it is a sample, not the argmax */
	env_mcts_free(m);
	env_free(e);
}
END_TEST

/* Root noise: the search's root prior and value come back as the
 * evaluator gave them (uniform over the 8 free cells, 0), whatever the
 * noise; with one simulation the move is the argmax of the noisy prior,
 * so with noise_frac 1 each free cell is picked about as often (2,000
 * searches, each within 4.5 standard deviations of 1/8), never an
 * occupied one, and two searches from one state differ. */
START_TEST(root_noise)
{
	env *e = ttt();
	env_mcts *m = NULL;
	struct env_mcts_opts o = { 1, 1.5, 0.3, 1.0, 0 };
	uint32_t v[9], count[9] = { 0 };
	float prior[9], value = -1;
	lg_rng r;
	const int N = 2000;

	play(e, (const int[]){ 4 }, 1);
	m = tu_mcts_open(e, &o, uniform_eval, NULL);
	/* noise needs a generator */
	ck_assert_int_eq(env_mcts_search(m, e, NULL, v, prior, &value),
			 LG_EINVAL);
	lg_rng_seed(&r, 5);
	for (int k = 0; k < N; k++) {
		ck_assert_int_eq(env_mcts_search(m, e, &r, v, prior, &value),
				 0);
		int picked = -1;
		for (int a = 0; a < 9; a++)
			if (v[a]) {
				ck_assert_int_eq(picked, -1);
				picked = a;
			}
		ck_assert(picked >= 0 && picked != 4);
		count[picked]++;
		for (int a = 0; a < 9; a++)
			ck_assert_float_eq_tol(prior[a], a == 4 ? 0 : 0.125f,
					       1e-6);
		ck_assert_float_eq(value, 0);
	}
	double p = 1.0 / 8, sd = sqrt(p * (1 - p) / N);
	for (int a = 0; a < 9; a++)
		if (a != 4)
			ck_assert_msg(fabs(count[a] / (double)N - p) <=
					      4.5 * sd,
				      "cell %d picked %u of %d", a, count[a],
				      N);
	env_mcts_free(m);
	/* more simulations: the noise moves the visits between searches */
	o.sims = 50;
	m = tu_mcts_open(e, &o, uniform_eval, NULL);
	uint32_t v2[9];
	int differ = 0;
	for (int k = 0; k < 5 && !differ; k++) {
		ck_assert_int_eq(env_mcts_search(m, e, &r, v, NULL, NULL), 0);
		ck_assert_int_eq(env_mcts_search(m, e, &r, v2, NULL, NULL), 0);
		differ = memcmp(v, v2, sizeof v) != 0;
	}
	ck_assert(differ);
	env_mcts_free(m);
	env_free(e);
}
END_TEST

/* With AlphaZero's training noise (a quarter of the prior, alpha 0.3) the
 * search still takes a win in one and blocks a loss in one, over 50
 * draws each. */
START_TEST(noise_keeps_the_tactics)
{
	env *e = ttt();
	env_mcts *m = NULL;
	struct env_mcts_opts o = { 400, 1.5, 0.3, 0.25, 0 };
	static const struct {
		int moves[4], n;
	} pos[] = {
		{ { 0, 3, 1, 4 }, 4 }, /* X wins at 2 */
		{ { 0, 4, 1 }, 3 },    /* O must block at 2 */
	};
	lg_rng r;
	int a;

	lg_rng_seed(&r, 9);
	for (size_t p = 0; p < LG_ARRAY_LEN(pos); p++) {
		ck_assert_int_eq(env_reset(e, 1), 0);
		play(e, pos[p].moves, pos[p].n);
		m = tu_mcts_open(e, &o, uniform_eval, NULL);
		for (int k = 0; k < 50; k++) {
			uint32_t v[9];
			ck_assert_int_eq(env_mcts_search(m, e, &r, v, NULL,
							 NULL), 0);
			a = 0;
			for (int i = 1; i < 9; i++)
				if (v[i] > v[a])
					a = i;
			ck_assert_int_eq(a, 2);
		}
		env_mcts_free(m);
	}
	env_free(e);
}
END_TEST

/* A deterministic evaluator with structure: prior and value a hash of
 * the observation (Connect Four's 126 floats). */
static int hash_eval(void *ctx, size_t n, const float *obs,
		     const uint8_t *mask, const void *const *states,
		     float *prior, float *value)
{
	(void)ctx;
	(void)states;
	for (size_t i = 0; i < n; i++) {
		uint64_t h = 1469598103934665603ull;
		for (int k = 0; k < 126; k++) {
			h ^= (uint64_t)(obs[i * 126 + (size_t)k] * 3 + 1);
			h *= 1099511628211ull;
		}
		for (int a = 0; a < 7; a++) {
			h ^= h >> 29;
			h *= 0xbf58476d1ce4e5b9ull;
			prior[i * 7 + (size_t)a] =
				mask[i * 7 + (size_t)a]
					? (float)((h >> 40) & 0xffff) / 65536.0f
					: 0;
		}
		h ^= h >> 31;
		value[i] = (float)((double)((h >> 11) & 0xfffff) / 1048576.0 *
				   2 - 1);
	}
	return 0;
}

/* The sequential search (batch 1) pinned: the root visits of five
 * searches along one Connect Four line (100 simulations, root noise from
 * seed 42, the hash evaluator) as the search gave them before batched
 * leaves were added; batching must leave batch 1 exactly as it was. */
START_TEST(sequential_search_is_pinned)
{
	static const uint32_t want[5][7] = {
		{ 12, 23, 2, 1, 7, 9, 46 },  { 1, 12, 4, 25, 29, 4, 25 },
		{ 39, 0, 11, 1, 32, 8, 9 },  { 66, 5, 21, 0, 3, 0, 5 },
		{ 29, 11, 21, 4, 12, 0, 23 },
	};
	static const int moves[4] = { 3, 3, 2, 4 };
	struct env_mcts_opts o = { 100, 1.5, 0.3, 0.25, 1 };
	env *e = tu_env_open("connect4", NULL);
	env_mcts *m = NULL;
	lg_rng r;

	ck_assert_int_eq(env_reset(e, 1), 0);
	m = tu_mcts_open(e, &o, hash_eval, NULL);
	lg_rng_seed(&r, 42);
	for (int k = 0; k < 5; k++) {
		uint32_t v[7];
		ck_assert_int_eq(env_mcts_search(m, e, &r, v, NULL, NULL), 0);
		for (int a = 0; a < 7; a++)
			ck_assert_msg(v[a] == want[k][a],
				      "search %d action %d: %u visits, pinned %u",
				      k, a, v[a], want[k][a]);
		if (k < 4)
			ck_assert_int_eq(env_step(e, moves[k]), 0);
	}
	env_mcts_free(m);
	env_free(e);
}
END_TEST

/* Batched leaves (rounds under virtual draws): the evaluator sees at most batch states
 * a call and far fewer calls than simulations; the visits still sum to
 * the simulations; the search still takes a win in one and blocks a
 * loss in one (uniform prior, no value), and with the exact value it
 * still never loses to minimax from either seat (50 games each, rounds
 * of 16 leaves out of 30 simulations and of 4 and 16 out of 64; with
 * AlphaZero's virtual loss, -1 a pending visit, instead of the virtual
 * draw, 30 simulations in rounds of 4 lost one game of 100). */
START_TEST(batched_leaves)
{
	static const int wins[] = { 0, 3, 1, 4 }, blocks[] = { 0, 4, 1 };
	env *e = ttt();
	env_mcts *m = NULL;
	struct env_mcts_opts o = { .sims = 200, .c_puct = 1.5, .batch = 8 };
	struct ectx x = { .sign = 1 };
	uint32_t v[9], sum = 0;
	int a;

	play(e, (const int[]){ 4 }, 1);
	m = tu_mcts_open(e, &o, exact_eval, &x);
	ck_assert_int_eq(env_mcts_act(m, e, NULL, &a, v), 0);
	for (int i = 0; i < 9; i++)
		sum += v[i];
	ck_assert_uint_eq(sum, 200);
	ck_assert_uint_eq(v[4], 0);
	ck_assert_uint_le(x.most, 8);
	ck_assert_uint_ge(x.most, 2);
	/* the root alone, then rounds of several leaves */
	ck_assert_msg(x.calls <= 1 + x.states / 2, "%zu calls for %zu states",
		      x.calls, x.states);
	env_mcts_free(m);
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(env_reset(e, 1), 0);
		if (k == 0)
			play(e, wins, 4);
		else
			play(e, blocks, 3);
		m = tu_mcts_open(e, &o, uniform_eval, NULL);
		ck_assert_int_eq(env_mcts_act(m, e, NULL, &a, NULL), 0);
		ck_assert_int_eq(a, 2);
		env_mcts_free(m);
	}
	env_free(e);
	for (int seat = 0; seat < 2; seat++) {
		ck_assert_int_eq(losses_vs_minimax(1, seat, 50, 30, 16), 0);
		ck_assert_int_eq(losses_vs_minimax(1, seat, 50, 64, 4), 0);
		ck_assert_int_eq(losses_vs_minimax(1, seat, 50, 64, 16), 0);
	}
}
END_TEST

START_TEST(refuses_what_it_cannot_search)
{
	struct env_opts eo;
	struct env_mcts_opts o = { .sims = 10, .c_puct = 1.5 };
	struct env_mcts_opts bad = { .sims = 0, .c_puct = 1.5 };
	struct env_mcts_opts badn = { 10, 1.5, 0.3, 1.5, 0 };
	struct env_mcts_opts bada = { 10, 1.5, 0, 0.25, 0 };
	struct env_mcts_opts badb = { .sims = 10, .c_puct = 1.5,
				      .batch = ENV_MCTS_BATCH_MAX + 1 };
	env *k = NULL, *e = ttt();
	env_mcts *m = NULL;
	char err[256];
	int a;

	env_opts_default(&eo);
	k = tu_env_open("kuhn", &eo);
	ck_assert_int_eq(env_mcts_new(&m, k, &o, uniform_eval, NULL, err,
				      sizeof err), LG_EUNSUPP);
	ck_assert_msg(strstr(err, "chance"), "%s", err);
	env_free(k);
	k = tu_env_open("rps", &eo);
	ck_assert_int_eq(env_mcts_new(&m, k, &o, uniform_eval, NULL, err,
				      sizeof err), LG_EUNSUPP);
	ck_assert_msg(strstr(err, "simultaneous"), "%s", err);
	ck_assert_int_eq(env_mcts_new(&m, e, &bad, uniform_eval, NULL, err,
				      sizeof err), LG_EINVAL);
	ck_assert_int_eq(env_mcts_new(&m, e, &badn, uniform_eval, NULL, err,
				      sizeof err), LG_EINVAL);
	ck_assert_msg(strstr(err, "noise_frac"), "%s", err);
	ck_assert_int_eq(env_mcts_new(&m, e, &bada, uniform_eval, NULL, err,
				      sizeof err), LG_EINVAL);
	ck_assert_msg(strstr(err, "dirichlet_alpha"), "%s", err);
	ck_assert_int_eq(env_mcts_new(&m, e, &badb, uniform_eval, NULL, err,
				      sizeof err), LG_EINVAL);
	ck_assert_msg(strstr(err, "batch"), "%s", err);
	/* the evaluator's error comes back; another env is refused */
	m = tu_mcts_open(e, &o, failing_eval, NULL);
	ck_assert_int_eq(env_mcts_act(m, e, NULL, &a, NULL), LG_EIO);
	ck_assert_int_eq(env_mcts_act(m, k, NULL, &a, NULL), LG_EINVAL);
	env_mcts_free(m);
	env_free(k);
	env_free(e);
}
END_TEST

/* A tic-tac-toe league directory at dir holding nets[i] as player 0's
 * version vers[i], and its config at cfg (league.dir, env). */
static void store_versions(const char *dir, nn *const *nets,
			   const uint32_t *vers, int count, char *cfg,
			   size_t cfglen)
{
	char err[512];
	store *st = NULL;
	store_txn *t = NULL;
	FILE *f;

	ck_assert_int_eq(store_open(&st, dir, NULL, err, sizeof err), 0);
	ck_assert_int_eq(store_txn_begin(st, STORE_TXN_WRITE, &t), 0);
	for (int i = 0; i < count; i++) {
		lg_buf b = { 0 };
		uint8_t k[8];
		ck_assert_int_eq(nn_save(nets[i], &b), 0);
		struct store_blob_info info = { STORE_DT_BYTES, 1,
						{ (uint32_t)b.len }, b.len };
		store_key_u32x2(k, 0, vers[i]);
		ck_assert_int_eq(store_blob_put(t, STORE_DB_PARAMS, k, 8, &info,
						b.data), 0);
		lg_buf_free(&b);
	}
	ck_assert_int_eq(store_txn_commit(t), 0);
	store_close(st);
	snprintf(cfg, cfglen, "%s/t.yaml", dir);
	f = fopen(cfg, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "league: {dir: %s}\nenv: {name: tictactoe}\n", dir);
	fclose(f);
}

/* `league eval search`: every stored version of the player, as the policy
 * and as the search agent, in separate rows; each row's games add up by
 * seat; --sample-moves labels its rows; bad arguments are usage errors, a
 * directory of another game's nets is refused naming why. */
START_TEST(cli_eval_search)
{
	char dir[256], cfg[320], bad[320], out[8192] = "", err[1024] = "";
	struct nn_shape sh = { .obs = 27, .actions = 9, .nhidden = 1,
			       .hidden = { 16 }, .act = NN_RELU };
	FILE *f;

	tu_mkdtemp(dir, sizeof dir);
	nn *nets[2] = { NULL, NULL };
	const uint32_t vers[2] = { 4, 5 };
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(nn_new(&nets[i], &sh, vers[i]), 0);
	store_versions(dir, nets, vers, 2, cfg, sizeof cfg);
	for (int i = 0; i < 2; i++)
		nn_free(nets[i]);
	const char *argv[] = { "eval", "search", cfg, "--against", "minimax",
			       "--games", "3", "--sims", "20", "--json",
			       NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, argv) ==
			      0, "%s", err);
	int rows = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long w[2], d[2], l[2], g;
		int ver;
		char agent[32];
		ck_assert_msg(sscanf(strstr(line, "\"version\""),
				     "\"version\":%d,\"agent\":\"%31[^\"]\","
				     "\"against\":\"minimax\",\"games\":%llu",
				     &ver, agent, &g) == 3, "%s", line);
		ck_assert_int_eq(ver, 4 + rows / 2);
		ck_assert_str_eq(agent, rows % 2 ? "mcts:20" : "policy");
		ck_assert_uint_eq(g, 6);
		ck_assert_int_eq(sscanf(strstr(line, "\"seat0\""),
					"\"seat0\":[%llu,%llu,%llu],"
					"\"seat1\":[%llu,%llu,%llu]",
					&w[0], &d[0], &l[0], &w[1], &d[1],
					&l[1]), 6);
		for (int s = 0; s < 2; s++) {
			ck_assert_uint_eq(w[s] + d[s] + l[s], 3);
			ck_assert_uint_eq(w[s], 0); /* nobody beats minimax */
		}
		rows++;
	}
	ck_assert_int_eq(rows, 4);
	/* --sample-moves K: rows labelled ~K, every game accounted for */
	const char *sm[] = { "eval", "search", cfg, "--against", "random",
			     "--games", "4", "--sims", "10", "--last", "1",
			     "--sample-moves", "2", "--json", NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, sm) ==
			      0, "%s", err);
	ck_assert_msg(strstr(out, "\"version\":5,\"agent\":\"policy~2\"") &&
			      strstr(out, "\"agent\":\"mcts~2:10\"") &&
			      !strstr(out, "\"version\":4"),
		      "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\"games\":8"));
	const char *both[] = { "eval", "search", cfg, "--against", "random",
			       "--sample", "--sample-moves", "2", NULL };
	ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, both), 2);
	ck_assert_msg(strstr(err, "not both"), "%s", err);
	/* no baseline; an unknown one; a connect4 config on tictactoe nets */
	const char *noag[] = { "eval", "search", cfg, NULL };
	ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, noag), 2);
	ck_assert_msg(strstr(err, "--against"), "%s", err);
	const char *wrong[] = { "eval", "search", cfg, "--against",
				"alphabeta:2", NULL };
	ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, wrong), 2);
	snprintf(bad, sizeof bad, "%s/c4.yaml", dir);
	f = fopen(bad, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "league: {dir: %s}\nenv: {name: connect4}\n", dir);
	fclose(f);
	const char *other[] = { "eval", "search", bad, "--against",
				"alphabeta:1", NULL };
	ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, other), 1);
	ck_assert_msg(strstr(err, "does not fit connect4"), "%s", err);
	tu_rmrf(dir);
}
END_TEST

/* Pull the first JSON row of `agent` for `version` out of out: its
 * seats' W/D/L and lines, as one string to compare. */
static void row_of(const char *out, int version, const char *agent,
		   char *row, size_t len)
{
	char key[96];
	const char *p;

	snprintf(key, sizeof key, "\"version\":%d,\"agent\":\"%s\"", version,
		 agent);
	p = strstr(out, key);
	ck_assert_msg(p, "no %s in %s", key, out);
	p = strstr(p, "\"seat0\"");
	ck_assert_ptr_nonnull(p);
	size_t n = strcspn(p, "}");
	ck_assert_uint_lt(n, len);
	memcpy(row, p, n);
	row[n] = 0;
}

/* --average K plays the mean of the parameters of K stored versions in a
 * row: the averaged version 5 plays exactly as a net stored with the mean
 * of versions 4 and 5 does (same games, same seeds); a version without K
 * stored before it is left out; lines counts each seat's distinct games,
 * between 1 and the games played. */
START_TEST(cli_eval_search_average)
{
	char dir[256], cfg[320], out[8192] = "", err[1024] = "";
	char avg[256], mean[256], plain[256];
	struct nn_shape sh = { .obs = 27, .actions = 9, .nhidden = 1,
			       .hidden = { 16 }, .act = NN_RELU };
	nn *n[3] = { NULL, NULL, NULL };
	size_t cnt, c2;

	tu_mkdtemp(dir, sizeof dir);
	/* version 4 is version 5 with every parameter tripled, so the
	 * mean (doubled) and the sum (quadrupled) sample apart */
	ck_assert_int_eq(nn_new(&n[1], &sh, 5), 0);
	ck_assert_int_eq(nn_clone(&n[0], n[1]), 0);
	ck_assert_int_eq(nn_clone(&n[2], n[1]), 0);
	float *p4 = nn_params(n[0], &c2), *m = nn_params(n[2], &cnt);
	const float *p5 = nn_params_const(n[1], &cnt);
	for (size_t i = 0; i < cnt; i++) {
		p4[i] = 3.0f * p5[i];
		m[i] = (p5[i] + p4[i]) / 2.0f;
	}
	const uint32_t vers[3] = { 4, 5, 7 }; /* 7: the mean, apart */
	store_versions(dir, n, vers, 3, cfg, sizeof cfg);
	for (int i = 0; i < 3; i++)
		nn_free(n[i]);
	const char *a2[] = { "eval", "search", cfg, "--against", "random",
			     "--games", "20", "--sims", "8", "--sample",
			     "--average", "2", "--json", NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, a2) == 0,
		      "%s", err);
	/* 4 has nothing before it, 7 no 6: only 5 is played, averaged */
	ck_assert_msg(!strstr(out, "\"version\":4") &&
			      !strstr(out, "\"version\":7"), "%s", out);
	row_of(out, 5, "avg2:policy~", avg, sizeof avg);
	const char *one[] = { "eval", "search", cfg, "--against", "random",
			      "--games", "20", "--sims", "8", "--sample",
			      "--json", NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, one) ==
			      0, "%s", err);
	row_of(out, 7, "policy~", mean, sizeof mean);
	row_of(out, 5, "policy~", plain, sizeof plain);
	ck_assert_str_eq(avg, mean);
	ck_assert_str_ne(avg, plain); /* the average is not version 5 */
	unsigned long long l0, l1;
	ck_assert_int_eq(sscanf(strstr(mean, "\"lines\""),
				"\"lines\":[%llu,%llu]", &l0, &l1), 2);
	ck_assert(l0 >= 1 && l0 <= 20 && l1 >= 1 && l1 <= 20);
	/* no 3 versions in a row: nothing to play is an error */
	const char *a3[] = { "eval", "search", cfg, "--against", "random",
			     "--games", "2", "--average", "3", NULL };
	ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, a3), 2);
	ck_assert_msg(strstr(err, "--average 3") && strstr(err, dir), "%s",
		      err);
	const char *a0[] = { "eval", "search", cfg, "--against", "random",
			     "--average", "0", NULL };
	ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, a0), 2);
	tu_rmrf(dir);
}
END_TEST

Suite *suite_mcts(void)
{
	Suite *s = suite_create("mcts");
	const struct tu_test core_tests[] = {
		{ finds_a_win_in_one, 1 },
		{ blocks_a_loss_in_one, 1 },
		{ root_value, 1 },
		{ exact_value_never_loses_to_minimax, 1 },
		{ wrong_signed_value_loses, 1 },
		{ deterministic, 1 },
		{ sampled_in_proportion_to_visits, 1 },
		{ root_noise, 1 },
		{ noise_keeps_the_tactics, 1 },
		{ sequential_search_is_pinned, 1 },
		{ batched_leaves, 1 },
		{ refuses_what_it_cannot_search, 1 },
		{ cli_eval_search, 1 },
		{ cli_eval_search_average, 1 },
	};

	TU_TCASE(s, "core", 60, core_tests);
	return s;
}
