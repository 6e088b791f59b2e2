/* tests/check_nplayer.c: exact evaluation with more than two seats (and
 * one): NashConv, CFR and CFR+ on 3-player Kuhn and Leduc poker, the
 * optimum of a common-payoff game, and `league eval nashconv` for them.
 *
 * Known values: 3-player Kuhn's uniform NashConv 2.0625 (OpenSpiel's own
 * test value, tabular_best_response_mdp_test.cc); 3-player Leduc's uniform
 * NashConv and 3-player Kuhn's CFR+ NashConv from tests/ref/poker_ref.py,
 * an evaluator written apart from envs/ (it walks the public tree with a
 * weight per deal; its Leduc value is also OpenSpiel's 12.611221340388003
 * from the same test file). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envs/env.h"
#include "envs/tree_internal.h"
#include "tests/testutil.h"
#include "util/util.h"

/* Game `name` with env.params players = np. */
static env *make_n(const char *name, int np)
{
	struct env_opts o;

	env_opts_default(&o);
	o.params.n = 1;
	snprintf(o.params.key[0], sizeof o.params.key[0], "players");
	snprintf(o.params.val[0], sizeof o.params.val[0], "%d", np);
	return tu_env_open(name, &o);
}

/* NashConv of p on the zero-sum tree t with np seats, its invariants
 * checked. */
static struct env_nashconv eval_n(env_tree *t, struct env_policy p, int np)
{
	struct env_nashconv nc;
	char err[256];
	double sum = 0, gaps = 0;

	ck_assert_msg(env_tree_nashconv(t, &p, &nc, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(nc.players, np);
	for (int i = 0; i < np; i++) {
		sum += nc.value[i];
		ck_assert(nc.br_value[i] >= nc.value[i] - 1e-12);
		gaps += nc.br_value[i] - nc.value[i];
	}
	ck_assert_double_eq_tol(sum, 0, 1e-12);
	ck_assert_double_eq_tol(nc.nashconv, gaps, 1e-12);
	ck_assert_double_eq_tol(nc.exploitability, nc.nashconv / np, 1e-15);
	return nc;
}

START_TEST(kuhn_3p_uniform_nashconv)
{
	env *e = make_n("kuhn", 3);
	env_tree *t = tu_tree_open(e);
	struct env_nashconv nc = eval_n(t, env_policy_uniform(), 3);

	/* 4 cards x 12 betting states a seat can face */
	ck_assert_uint_eq(env_tree_infostates(t), 48);
	ck_assert_double_eq_tol(nc.nashconv, 2.0625, 1e-9);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* `python3 tests/ref/poker_ref.py leduc 3` prints "uniform
 * 12.611221340388" (a few minutes). */
START_TEST(leduc_3p_uniform_nashconv)
{
	env *e = make_n("leduc", 3);
	env_tree *t = tu_tree_open(e);
	struct env_nashconv nc = eval_n(t, env_policy_uniform(), 3);

	ck_assert_uint_eq(env_tree_nodes(t), 1831601);
	ck_assert_double_eq_tol(nc.nashconv, 12.611221340388, 1e-9);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* Two seats through the players param are the default game. */
START_TEST(players_2_is_the_default_game)
{
	const char *names[] = { "kuhn", "leduc" };

	for (int g = 0; g < 2; g++) {
		struct env_opts o;
		env_opts_default(&o);
		env *e1 = make_n(names[g], 2), *e2 = tu_env_open(names[g], &o);
		env_tree *t1 = tu_tree_open(e1), *t2 = tu_tree_open(e2);
		env_cfr *c1, *c2;
		ck_assert_int_eq(env_cfr_new(&c1, t1), 0);
		ck_assert_int_eq(env_cfr_new(&c2, t2), 0);
		env_cfr_run(c1, 20);
		env_cfr_run(c2, 20);
		struct env_nashconv a = eval_n(t1, env_cfr_average(c1), 2);
		struct env_nashconv b = eval_n(t2, env_cfr_average(c2), 2);
		ck_assert_uint_eq(env_tree_nodes(t1), env_tree_nodes(t2));
		ck_assert(a.nashconv == b.nashconv);
		ck_assert(a.value[0] == b.value[0]);
		env_cfr_free(c1);
		env_cfr_free(c2);
		env_tree_free(t1);
		env_tree_free(t2);
		env_free(e1);
		env_free(e2);
	}
}
END_TEST

/* With three seats CFR need not reach a Nash equilibrium; on Kuhn its
 * average's NashConv still falls far below the uniform policy's. CFR+'s
 * values are `python3 tests/ref/poker_ref.py kuhn 3 10 100`'s (the same
 * algorithm, written apart). */
START_TEST(kuhn_3p_cfr_and_cfr_plus)
{
	env *e = make_n("kuhn", 3);
	env_tree *t = tu_tree_open(e);
	double uniform = eval_n(t, env_policy_uniform(), 3).nashconv;
	double last = uniform;
	env_cfr *c;

	ck_assert_int_eq(env_cfr_new(&c, t), 0);
	env_cfr_run(c, 10);
	ck_assert_double_eq_tol(eval_n(t, env_cfr_average(c), 3).nashconv,
				0.149330175605, 1e-9);
	env_cfr_run(c, 90);
	ck_assert_double_eq_tol(eval_n(t, env_cfr_average(c), 3).nashconv,
				0.002954993635, 1e-9);
	env_cfr_free(c);

	ck_assert_int_eq(env_cfr_new_kind(&c, t, ENV_CFR_VANILLA), 0);
	for (int k = 10; k <= 1000; k *= 10) {
		env_cfr_run(c, k - env_cfr_iterations(c));
		double nc = eval_n(t, env_cfr_average(c), 3).nashconv;
		/* 0.312, 0.0370, 0.00392 */
		ck_assert_msg(nc < last / 5, "%d: %g after %g", k, nc, last);
		last = nc;
	}
	ck_assert_double_lt(last, uniform / 500);
	env_cfr_free(c);
	ck_assert_int_eq(env_cfr_new_kind(&c, t, 7), LG_EINVAL);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* ---- a common-payoff game of the test's own: the relay ---------------- */

/*
 * Chance draws a bit b (1/2 each). Seat 0 sees b and moves 0 or 1; each
 * later seat sees the move of the seat before it and moves 0 or 1; the
 * last seat's move is a guess of b. Every seat gets [guess == b] minus
 * 0.1 for each 1 moved by a seat before the last (a costly signal). One
 * seat: seat 0 guesses b seeing it. Optimum: 1 - 0.05 (np - 1) (signal
 * one of the bits with 1s all along).
 */
#define RELAY_MAX 4
struct relay_st {
	int8_t b, n, m[RELAY_MAX];
};

static int relay_np(const void *inst)
{
	return *(const int *)inst;
}

static void relay_root(const void *inst, void *st,
		       struct league_game_rng *rng)
{
	struct relay_st *s = st;

	memset(s, 0, sizeof *s);
	s->b = -1;
}

static int relay_player(const void *inst, const void *st)
{
	const struct relay_st *s = st;

	if (s->b < 0)
		return LEAGUE_GAME_CHANCE;
	return s->n == relay_np(inst) ? LEAGUE_GAME_TERMINAL : s->n;
}

static int relay_chance(const void *inst, const void *st, int *out,
			double *p)
{
	out[0] = 0;
	out[1] = 1;
	p[0] = p[1] = 0.5;
	return 2;
}

static int relay_legal(const void *inst, const void *st, int seat,
		       uint8_t *mask)
{
	mask[0] = mask[1] = 1;
	return 2;
}

static void relay_apply(const void *inst, void *st, int a,
			struct league_game_rng *rng)
{
	struct relay_st *s = st;

	if (s->b < 0)
		s->b = (int8_t)a;
	else
		s->m[s->n++] = (int8_t)a;
}

/* What seat sees: b for seat 0, else the move before its own. */
static int relay_seen(const struct relay_st *s, int seat)
{
	return seat == 0 ? s->b : s->m[seat - 1];
}

static void relay_observe(const void *inst, const void *st, int seat,
			  float *out)
{
	out[0] = (float)relay_seen(st, seat);
}

static double relay_payoff(int np, int b, const int8_t *m)
{
	double v = m[np - 1] == b;

	for (int k = 0; k < np - 1; k++)
		v -= 0.1 * m[k];
	return v;
}

static void relay_returns(const void *inst, const void *st, double *out)
{
	const struct relay_st *s = st;
	int np = relay_np(inst);

	for (int p = 0; p < np; p++)
		out[p] = relay_payoff(np, s->b, s->m);
}

static void relay_infostate(const void *inst, const void *st, int seat,
			    char *buf, size_t len)
{
	snprintf(buf, len, "%d:%d", seat, relay_seen(st, seat));
}

static const struct league_game relay_game = {
	.abi = LEAGUE_GAME_ABI,
	.name = "relay",
	.root = relay_root,
	.player = relay_player,
	.chance = relay_chance,
	.legal = relay_legal,
	.apply = relay_apply,
	.observe = relay_observe,
	.returns = relay_returns,
	.infostate = relay_infostate,
};

static env_tree *relay_tree(int *np, int actions, int *rc, char *err,
			    size_t errlen)
{
	struct env_spec sp;
	env_tree *t = NULL;

	memset(&sp, 0, sizeof sp);
	snprintf(sp.name, sizeof sp.name, "relay");
	sp.players = *np;
	sp.obs_len = 1;
	sp.num_actions = actions;
	sp.max_steps = (uint64_t)*np;
	sp.flags = ENV_F_CHANCE | ENV_F_TREE;
	sp.payoff = ENV_COMMON_PAYOFF;
	sp.teams = 1;
	sp.roles = 1;
	for (int p = 0; p < *np; p++) {
		sp.seat[p].obs_len = 1;
		sp.seat[p].num_actions = actions;
	}
	*rc = env_tree_of_game(&t, &relay_game, np, &sp,
			       sizeof(struct relay_st), err, errlen);
	return t;
}

/* The best of every deterministic joint policy of the relay, by brute
 * force over the rules: seat k's policy is a map of what it sees (0, 1)
 * to a move, two bits. */
static double relay_brute(int np)
{
	double best = -1;

	for (unsigned pol = 0; pol < 1u << (2 * np); pol++) {
		double v = 0;
		for (int b = 0; b < 2; b++) {
			int8_t m[RELAY_MAX];
			int seen = b;
			for (int k = 0; k < np; k++) {
				m[k] = (int8_t)((pol >> (2 * k + seen)) & 1);
				seen = m[k];
			}
			v += 0.5 * relay_payoff(np, b, m);
		}
		best = LG_MAX(best, v);
	}
	return best;
}

START_TEST(common_payoff_optimum)
{
	static int nps[] = { 1, 2, 3, 4 };
	char err[256];
	int rc;

	for (int i = 0; i < 4; i++) {
		int *np = &nps[i];
		env_tree *t = relay_tree(np, 2, &rc, err, sizeof err);
		struct env_optimum opt;
		struct env_nashconv nc;
		env_tabular *best = NULL;
		struct env_policy u = env_policy_uniform(), bp;

		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_int_eq(env_tree_optimum(t, &opt, &best, err,
						  sizeof err), 0);
		ck_assert_double_eq_tol(opt.value, relay_brute(*np), 1e-12);
		ck_assert_double_eq_tol(opt.value, 1 - 0.05 * (*np - 1),
					1e-12);
		/* every seat's policy but the responder's was enumerated,
		 * and only where reached: fewer than 4^(np - 1) */
		ck_assert_int_ge(opt.responder, 0);
		ck_assert_uint_le(opt.policies, 1ull << (2 * (*np - 1)));
		/* the best policy plays to the optimum: gap 0 */
		bp = env_tabular_policy(best);
		ck_assert_int_eq(env_tree_nashconv(t, &bp, &nc, err,
						   sizeof err), 0);
		for (int p = 0; p < *np; p++)
			ck_assert_double_eq_tol(nc.value[p], opt.value, 1e-12);
		/* uniform: each signal a coin, the guess right half the time */
		ck_assert_int_eq(env_tree_nashconv(t, &u, &nc, err,
						   sizeof err), 0);
		ck_assert_double_eq_tol(opt.value - nc.value[0],
					opt.value - 0.5 + 0.05 * (*np - 1),
					1e-12);
		env_tabular_free(best);
		env_tree_free(t);
	}
	/* a game wider than the tree's 64 actions is refused by name */
	ck_assert_ptr_null(relay_tree(&nps[1], 65, &rc, err, sizeof err));
	ck_assert_int_eq(rc, LG_EUNSUPP);
	ck_assert_ptr_nonnull(strstr(err, "relay: no exact evaluation"));
	ck_assert_ptr_nonnull(strstr(err, "at most 64 actions"));
}
END_TEST

START_TEST(optimum_refuses_other_payoffs)
{
	env *e = make_n("kuhn", 3);
	env_tree *t = tu_tree_open(e);
	struct env_optimum opt;
	char err[256];

	ck_assert_int_eq(env_tree_optimum(t, &opt, NULL, err, sizeof err),
			 LG_EUNSUPP);
	ck_assert_ptr_nonnull(strstr(err, "kuhn: not a common-payoff game"));
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* `league eval nashconv` with --param players=3: every seat's values. */
START_TEST(cli_eval_nashconv_three_players)
{
	char out[4096], err[4096];
	const char *const a[] = { "eval", "nashconv", "--game", "kuhn",
				  "--param", "players=3", NULL };
	const char *const j[] = { "eval", "nashconv", "--game", "kuhn",
				  "--param", "players=3", "--policy",
				  "cfr:100", "--json", NULL };
	const char *const bad[] = { "eval", "nashconv", "--game", "leduc",
				    "--param", "players=9", NULL };

	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, a) == 0,
		      "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "game            kuhn (48 "
				     "infostates"));
	ck_assert_ptr_nonnull(strstr(out, "nashconv        2.062500000000\n"));
	ck_assert_ptr_nonnull(strstr(out, "exploitability  0.687500000000\n"));
	ck_assert_ptr_nonnull(strstr(out, "value           0.234375000000 "
				     "-0.046875000000 -0.187500000000\n"));
	ck_assert_ptr_null(strstr(out, "optimum"));
	ck_assert_msg(tu_run_league(out, sizeof out, err, sizeof err, j) == 0,
		      "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "\"players\":3,"));
	ck_assert_ptr_nonnull(strstr(out, "\"nashconv\":0.0029549936"));
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, bad),
			 2);
	ck_assert_ptr_nonnull(strstr(err, "env.params: players: expected a "
				     "whole number in [2, 8], got '9'"));
}
END_TEST

Suite *suite_nplayer(void)
{
	Suite *s = suite_create("nplayer");
	const struct tu_test exact_tests[] = {
		{ kuhn_3p_uniform_nashconv, 1 },
		{ leduc_3p_uniform_nashconv, 1 },
		{ players_2_is_the_default_game, 1 },
		{ kuhn_3p_cfr_and_cfr_plus, 1 },
		{ common_payoff_optimum, 1 },
		{ optimum_refuses_other_payoffs, 1 },
	};
	const struct tu_test cli_tests[] = {
		{ cli_eval_nashconv_three_players, 1 },
	};

	TU_TCASE(s, "exact", 60, exact_tests);
	TU_TCASE(s, "cli", 60, cli_tests);
	return s;
}
