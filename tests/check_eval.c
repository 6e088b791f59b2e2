/* tests/check_eval.c: exact evaluators (best response, NashConv, CFR+),
 * tabular policy files, baseline players, and `league env` / `league
 * eval` through the real binary. Known values: Kuhn uniform NashConv
 * 11/12 and equilibrium value -1/18; Leduc uniform NashConv 4.747222
 * (OpenSpiel); the 2x2 game [[3,-2],[-2,1]] equilibrium (0.375, 0.625)
 * for both players and value -1/8; tic-tac-toe value 0; CFR+ on
 * liars_dice with 3 faces as tests/ref/liars_cfr.py, written apart from
 * envs/, computes it. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envs/env.h"
#include "envs/env_internal.h"
#include "tests/testutil.h"
#include "util/util.h"

static env *make(const char *name)
{
	struct env_opts o;

	env_opts_default(&o);
	o.matrix.rows = o.matrix.cols = 2;
	o.matrix.v[0][0] = 3;
	o.matrix.v[0][1] = o.matrix.v[1][0] = -2;
	o.matrix.v[1][1] = 1;
	return tu_env_open(name, &o);
}

static struct env_nashconv eval(env_tree *t, struct env_policy p)
{
	struct env_nashconv nc;
	char err[256];

	ck_assert_msg(env_tree_nashconv(t, &p, &nc, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_double_eq_tol(nc.value[0] + nc.value[1], 0, 1e-12);
	ck_assert_double_eq_tol(nc.exploitability, nc.nashconv / 2, 1e-15);
	ck_assert(nc.nashconv > -1e-12);
	return nc;
}

START_TEST(kuhn_uniform_nashconv)
{
	env *e = make("kuhn");
	env_tree *t = tu_tree_open(e);
	struct env_nashconv nc = eval(t, env_policy_uniform());

	ck_assert_uint_eq(env_tree_infostates(t), 12);
	ck_assert_double_eq_tol(nc.nashconv, 11.0 / 12, 1e-12);
	ck_assert_double_eq_tol(nc.value[0], 1.0 / 8, 1e-12);
	ck_assert_double_eq_tol(nc.br_value[0], 0.5, 1e-12);
	ck_assert_double_eq_tol(nc.br_value[1], 5.0 / 12, 1e-12);
	env_tree_free(t);
	env_free(e);
}
END_TEST

START_TEST(leduc_uniform_nashconv)
{
	env *e = make("leduc");
	env_tree *t = tu_tree_open(e);
	struct env_nashconv nc = eval(t, env_policy_uniform());

	ck_assert_uint_eq(env_tree_nodes(t), 9457);
	ck_assert_double_eq_tol(nc.nashconv, 4.747222222, 1e-6);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* A policy with memory on Leduc with a short observation: at every
 * infostate it is asked with the player's observations at each of its
 * decisions, oldest first. Checked against the infostate's key ("K:cr/c":
 * private card, public card, each round's moves): one observation per
 * own move so far plus the current one, and each observation's "own last
 * move" is the move the player made just before it. Answers uniform, so
 * NashConv is the uniform policy's of leduc. */
struct seq_check {
	size_t calls, bad;
};

static int seq_check_fn(void *ctx, int player, const char *key,
			const float *obs, size_t nobs, const uint8_t *mask,
			int A, double *probs, char *err, size_t errlen)
{
	struct seq_check *c = ctx;
	const char *h = strchr(key, ':');
	int own[8], nown = 0, legal = 0;

	c->calls++;
	/* player 0 opens each round; moves alternate */
	for (int i = 0, r = 0; h && *++h; i++) {
		if (*h == '/') {
			r++;
			i = -1;
			continue;
		}
		if (i % 2 == player && nown < 8)
			own[nown++] = *h == 'f' ? 0 : *h == 'c' ? 1 : 2;
	}
	if (nobs != (size_t)nown + 1)
		c->bad++;
	for (size_t k = 0; k < nobs && nobs == (size_t)nown + 1; k++) {
		const float *o = obs + k * 16, *mine = o + 10;
		int want = k ? own[k - 1] : -1;
		for (int a = 0; a < 3; a++)
			if (mine[a] != (a == want))
				c->bad++;
		if (o[player] != 1)
			c->bad++;
	}
	for (int a = 0; a < A; a++)
		legal += mask[a];
	for (int a = 0; a < A; a++)
		probs[a] = mask[a] ? 1.0 / legal : 0;
	return 0;
}

START_TEST(policy_with_memory_sees_its_history)
{
	env *e = make("leduc_short");
	env_tree *t = tu_tree_open(e);
	struct seq_check c = { 0 };
	struct env_policy p = { NULL, &c, seq_check_fn };
	struct env_nashconv nc = eval(t, p);

	ck_assert_uint_eq(c.calls, env_tree_infostates(t));
	ck_assert_uint_eq(c.bad, 0);
	ck_assert_double_eq_tol(nc.nashconv, 4.747222222, 1e-6);
	env_tree_free(t);
	env_free(e);
}
END_TEST

START_TEST(kuhn_cfr_plus_equilibrium)
{
	env *e = make("kuhn");
	env_tree *t = tu_tree_open(e);
	env_cfr *c;
	struct env_nashconv nc;

	ck_assert_int_eq(env_cfr_new(&c, t), 0);
	env_cfr_run(c, 1000);
	ck_assert_uint_eq(env_cfr_iterations(c), 1000);
	nc = eval(t, env_cfr_average(c));
	ck_assert_double_eq_tol(nc.value[0], -1.0 / 18, 1e-3);
	ck_assert_double_lt(nc.nashconv, 1e-3);
	/* NashConv keeps falling */
	env_cfr_run(c, 1000);
	ck_assert_double_lt(eval(t, env_cfr_average(c)).nashconv,
			    nc.nashconv);
	env_cfr_free(c);
	env_tree_free(t);
	env_free(e);
}
END_TEST

START_TEST(leduc_cfr_plus_converges)
{
	env *e = make("leduc");
	env_tree *t = tu_tree_open(e);
	env_cfr *c;
	struct env_nashconv nc;

	ck_assert_int_eq(env_cfr_new(&c, t), 0);
	env_cfr_run(c, 300);
	nc = eval(t, env_cfr_average(c));
	ck_assert_double_lt(nc.nashconv, 0.02);
	/* Leduc's game value for player 0 is about -0.0856 */
	ck_assert_double_eq_tol(nc.value[0], -0.0856, 2e-3);
	/* 0.00049 at 1,000 iterations (0.0051 while the average skipped
	 * the branches the opponent never took) */
	env_cfr_run(c, 700);
	ck_assert_double_lt(eval(t, env_cfr_average(c)).nashconv, 1e-3);
	env_cfr_free(c);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* liars_dice with `faces` faces (env.params). */
static env *make_liars(const char *faces)
{
	struct env_opts o;

	env_opts_default(&o);
	o.params.n = 1;
	snprintf(o.params.key[0], sizeof o.params.key[0], "faces");
	snprintf(o.params.val[0], sizeof o.params.val[0], "%s", faces);
	return tu_env_open("liars_dice", &o);
}

/* Regret matching+ leaves many of liars_dice's bids at probability 0, so
 * many infostates sit below a branch the opponent never takes. Their
 * average must still get each iteration's weight by own reach: when
 * cfr_walk skipped those branches, NashConv stalled at 0.034 from 100
 * iterations to 2,000. The reference values are tests/ref/liars_cfr.py's
 * (`python3 tests/ref/liars_cfr.py 3 10 100`), an implementation of the
 * same CFR+ written apart from envs/. */
START_TEST(liars_dice_cfr_plus_keeps_converging)
{
	env *e = make_liars("3");
	env_tree *t = tu_tree_open(e);
	env_cfr *c;
	double at100;

	ck_assert_int_eq(env_cfr_new(&c, t), 0);
	env_cfr_run(c, 10);
	ck_assert_double_eq_tol(eval(t, env_cfr_average(c)).nashconv,
				0.095704809604, 1e-9);
	env_cfr_run(c, 90);
	at100 = eval(t, env_cfr_average(c)).nashconv;
	ck_assert_double_eq_tol(at100, 0.001379804572, 1e-9);
	env_cfr_run(c, 900);
	/* at 1,000 iterations: 1.4e-5 */
	ck_assert_double_lt(eval(t, env_cfr_average(c)).nashconv, at100 / 50);
	env_cfr_free(c);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* The rules as envs/liars.c states them, on hands dealt by hand through
 * the game's table, and its params refused with the key named. */
START_TEST(liars_dice_rules)
{
	const struct league_game *g = &env_game_liars_dice;
	const char *keys[1] = { "faces" }, *vals[1] = { "2" };
	struct league_game_params p = { 1, keys, vals, NULL };
	struct league_game_spec spec;
	uint8_t st[256], mask[16];
	double ret[2];
	char err[256], key[64];
	void *inst;

	ck_assert_int_eq(g->create(&p, &inst, &spec, err, sizeof err), 0);
	ck_assert_uint_eq(spec.seat[1].num_actions, 5); /* 4 bids and liar */
	ck_assert_uint_eq(spec.seat[1].obs_len, 2 + 2 + 8);
	ck_assert_uint_le(spec.state_size, sizeof st);
	g->root(inst, st, NULL);
	ck_assert_int_eq(g->player(inst, st), LEAGUE_GAME_CHANCE);
	g->apply(inst, st, 0, NULL); /* player 0 shows a 1 */
	g->apply(inst, st, 1, NULL); /* player 1 shows a 2 */
	ck_assert_int_eq(g->player(inst, st), 0);
	ck_assert_int_eq(g->legal(inst, st, 0, mask), 4); /* no liar yet */
	ck_assert_int_eq(mask[4], 0);
	g->apply(inst, st, 0, NULL); /* one 1 */
	g->apply(inst, st, 2, NULL); /* two 1s */
	ck_assert_int_eq(g->legal(inst, st, 0, mask), 2); /* two 2s, liar */
	ck_assert(mask[3] && mask[4] && !mask[0] && !mask[2]);
	g->infostate(inst, st, 0, key, sizeof key);
	ck_assert_str_eq(key, "1:ac");
	g->apply(inst, st, 4, NULL); /* liar: one 1 showing, the bid loses */
	ck_assert_int_eq(g->player(inst, st), LEAGUE_GAME_TERMINAL);
	g->returns(inst, st, ret);
	ck_assert(ret[0] == 1 && ret[1] == -1);
	/* the same call on "one 1", which holds: the bidder wins */
	g->root(inst, st, NULL);
	g->apply(inst, st, 0, NULL);
	g->apply(inst, st, 1, NULL);
	g->apply(inst, st, 0, NULL);
	g->apply(inst, st, 4, NULL);
	g->returns(inst, st, ret);
	ck_assert(ret[0] == 1 && ret[1] == -1);
	/* after the highest bid only liar is legal */
	g->root(inst, st, NULL);
	g->apply(inst, st, 1, NULL);
	g->apply(inst, st, 1, NULL);
	g->apply(inst, st, 3, NULL); /* two 2s: true */
	ck_assert_int_eq(g->legal(inst, st, 1, mask), 1);
	ck_assert_int_eq(mask[4], 1);
	g->apply(inst, st, 4, NULL);
	g->returns(inst, st, ret);
	ck_assert(ret[0] == 1 && ret[1] == -1);
	g->destroy(inst);

	vals[0] = "7";
	ck_assert_int_ne(g->create(&p, &inst, &spec, err, sizeof err), 0);
	ck_assert_str_eq(err, "env.params: faces: expected a whole number in "
			      "[2, 6], got '7'");
	keys[0] = "dice";
	ck_assert_int_ne(g->create(&p, &inst, &spec, err, sizeof err), 0);
	ck_assert_str_eq(err, "env.params: 'dice': liars_dice takes only "
			      "'faces'");
}
END_TEST

static int probs_of(const char *text, double *p0, double *p1)
{
	/* parse the two lines "p0 a b" and "p1 a b" of a dumped policy */
	const char *l0 = strstr(text, "\np0 "), *l1 = strstr(text, "\np1 ");
	if (!l0 || !l1)
		return -1;
	if (sscanf(l0, "\np0 %lf %lf", &p0[0], &p0[1]) != 2 ||
	    sscanf(l1, "\np1 %lf %lf", &p1[0], &p1[1]) != 2)
		return -1;
	return 0;
}

START_TEST(matrix_2x2_equilibrium)
{
	env *e = make("matrix");
	env_tree *t = tu_tree_open(e);
	env_cfr *c;
	struct env_nashconv nc;
	struct env_policy pol;
	lg_buf b = { 0 };
	double p0[2], p1[2];
	char err[256];

	nc = eval(t, env_policy_uniform());
	ck_assert_double_eq_tol(nc.value[0], 0, 1e-12);
	ck_assert_int_eq(env_cfr_new(&c, t), 0);
	env_cfr_run(c, 20000);
	pol = env_cfr_average(c);
	nc = eval(t, pol);
	ck_assert_double_eq_tol(nc.value[0], -1.0 / 8, 1e-3);
	ck_assert_double_lt(nc.nashconv, 2e-3);
	ck_assert_int_eq(env_tree_dump_policy(t, &pol, &b, err, sizeof err),
			 0);
	ck_assert_int_eq(lg_buf_append(&b, "", 1), 0);
	ck_assert_int_eq(probs_of((const char *)b.data, p0, p1), 0);
	ck_assert_double_eq_tol(p0[0], 0.375, 2e-3);
	ck_assert_double_eq_tol(p0[1], 0.625, 2e-3);
	ck_assert_double_eq_tol(p1[0], 0.375, 2e-3);
	ck_assert_double_eq_tol(p1[1], 0.625, 2e-3);
	lg_buf_free(&b);
	env_cfr_free(c);
	env_tree_free(t);
	env_free(e);
}
END_TEST

static double logistic(double x)
{
	return 1 / (1 + exp(-x));
}

/* The logit QRE of make()'s 2x2 game [[3, -2], [-2, 1]] at temperature
 * alpha, solved on its own: the row plays its first action with p =
 * logistic((8q - 3) / alpha), the column with q = logistic((3 - 8p) /
 * alpha); p - logistic((8 q(p) - 3) / alpha) is increasing in p, so
 * bisection finds the one root. */
static void qre_2x2(double alpha, double *p, double *q)
{
	double lo = 0, hi = 1;

	for (int k = 0; k < 200; k++) {
		double m = (lo + hi) / 2;
		double qm = logistic((3 - 8 * m) / alpha);
		if (m - logistic((8 * qm - 3) / alpha) > 0)
			hi = m;
		else
			lo = m;
	}
	*p = (lo + hi) / 2;
	*q = logistic((3 - 8 * *p) / alpha);
}

START_TEST(mmd_reaches_the_quantal_response_equilibrium)
{
	env *e = make("matrix");
	env_tree *t = tu_tree_open(e);
	env_mmd *m;
	struct env_policy pol;
	lg_buf b = { 0 };
	double p0[2], p1[2], p, q;
	char err[256];

	ck_assert_int_eq(env_mmd_new(&m, t, 0, 0.1), LG_EINVAL);
	ck_assert_int_eq(env_mmd_new(&m, t, 0.5, -1), LG_EINVAL);
	ck_assert_int_eq(env_mmd_new(&m, t, NAN, 0.1), LG_EINVAL);
	ck_assert_int_eq(env_mmd_new(&m, t, 0.5, 0.1), 0);
	env_mmd_run(m, 0); /* uniform is not this game's QRE */
	ck_assert_double_gt(env_mmd_residual(m), 0.1);
	env_mmd_run(m, 3000);
	ck_assert_uint_eq(env_mmd_iterations(m), 3000);
	ck_assert_double_lt(env_mmd_residual(m), 1e-12);
	pol = env_mmd_policy(m);
	ck_assert_int_eq(env_tree_dump_policy(t, &pol, &b, err, sizeof err),
			 0);
	ck_assert_int_eq(lg_buf_append(&b, "", 1), 0);
	ck_assert_int_eq(probs_of((const char *)b.data, p0, p1), 0);
	qre_2x2(0.5, &p, &q);
	ck_assert_double_eq_tol(p0[0], p, 1e-9);
	ck_assert_double_eq_tol(p1[0], q, 1e-9);
	/* not the Nash equilibrium (0.375 each) at this temperature */
	ck_assert_double_gt(fabs(p - 0.375), 0.01);
	lg_buf_free(&b);
	env_mmd_free(m);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* Optimism (env_mmd_set_optimism): on Leduc at temperature 0.1 a step
 * of 0.1 makes plain MMD circle (its last iterate far from the QRE after
 * 2,000 iterations) while the optimistic one converges to the QRE (the
 * residual near 0, NashConv under 0.1). Bad optimism is refused. */
START_TEST(optimistic_mmd_converges_where_plain_cycles)
{
	env *e = make("leduc");
	env_tree *t = tu_tree_open(e);
	env_mmd *plain, *opt;

	ck_assert_int_eq(env_mmd_new(&plain, t, 0.1, 0.1), 0);
	ck_assert_int_eq(env_mmd_new(&opt, t, 0.1, 0.1), 0);
	ck_assert_int_eq(env_mmd_set_optimism(opt, -1), LG_EINVAL);
	ck_assert_int_eq(env_mmd_set_optimism(opt, NAN), LG_EINVAL);
	ck_assert_int_eq(env_mmd_set_optimism(opt, 1), 0);
	env_mmd_run(plain, 2000);
	env_mmd_run(opt, 1000);
	env_mmd_run(opt, 1000); /* two runs: the previous q carries over */
	ck_assert_double_gt(env_mmd_residual(plain), 0.05);
	ck_assert_double_gt(eval(t, env_mmd_policy(plain)).nashconv, 0.5);
	ck_assert_double_lt(env_mmd_residual(opt), 1e-6);
	ck_assert_double_lt(eval(t, env_mmd_policy(opt)).nashconv, 0.1);
	env_mmd_free(plain);
	env_mmd_free(opt);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* The moving magnet (env_mmd_set_magnet): Leduc at ALPHA 0.1, ETA 0.1,
 * where plain MMD circles, a magnet of weight 0.5 copied from the policy
 * every 10 iterations (the league's learner.magnet_coef / magnet_every
 * in the tree's units) converges to the same QRE as the optimistic step
 * (0.0743); with ALPHA near 0 the magnet's outer loop walks toward the
 * Nash equilibrium itself (proximal point), below that QRE. */
START_TEST(moving_magnet_converges_where_plain_cycles)
{
	env *e = make("leduc");
	env_tree *t = tu_tree_open(e);
	env_mmd *m, *prox;

	ck_assert_int_eq(env_mmd_new(&m, t, 0.1, 0.1), 0);
	ck_assert_int_eq(env_mmd_set_magnet(m, -1, 10), LG_EINVAL);
	ck_assert_int_eq(env_mmd_set_magnet(m, 0.5, 0), LG_EINVAL);
	ck_assert_int_eq(env_mmd_set_magnet(m, 0.5, 10), 0);
	env_mmd_run(m, 2000);
	ck_assert_double_lt(env_mmd_residual(m), 1e-4);
	ck_assert_double_lt(fabs(eval(t, env_mmd_policy(m)).nashconv - 0.0743),
			    1e-3);
	ck_assert_int_eq(env_mmd_new(&prox, t, 0.01, 0.1), 0);
	ck_assert_int_eq(env_mmd_set_magnet(prox, 0.5, 100), 0);
	env_mmd_run(prox, 2000);
	ck_assert_double_lt(eval(t, env_mmd_policy(prox)).nashconv, 0.05);
	env_mmd_free(m);
	env_mmd_free(prox);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* Each infoset's probabilities from a policy dump (the format of
 * env_tree_dump_policy) into p[] in the dump's order; their count. */
static size_t dump_probs(const char *text, double *p, size_t cap)
{
	size_t n = 0;

	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		const char *c = strchr(l, ' ');
		char *end;
		if (*l != '#' && c)
			for (;;) {
				double v = strtod(c, &end);
				if (end == c || n == cap)
					break;
				p[n++] = v;
				c = end;
			}
		if (!strchr(l, '\n'))
			break;
	}
	return n;
}

static size_t mmd_dump(env_tree *t, env_mmd *m, double *p, size_t cap)
{
	struct env_policy pol = env_mmd_policy(m);
	lg_buf b = { 0 };
	char err[256];
	size_t n;

	ck_assert_int_eq(env_tree_dump_policy(t, &pol, &b, err, sizeof err),
			 0);
	ck_assert_int_eq(lg_buf_append(&b, "", 1), 0);
	n = dump_probs((const char *)b.data, p, cap);
	lg_buf_free(&b);
	return n;
}

/* Sampled steps (env_mmd_set_sampling) estimate the tree's q: one step
 * of ETA 0.5 from uniform play on Kuhn from 400,000 sampled episodes
 * lands within 0.01 of the exact step at every infoset for each
 * estimator (each of Kuhn's 12 infosets is visited at least 60,000
 * times; returns are within +-2 and the importance weight at most 2, so
 * a q estimate's standard error is at most 4 / sqrt(60000) = 0.016, a
 * probability's about 0.5 x 0.25 x that, 0.002: 0.01 is 5 of those).
 * 40 episodes land far from it, the same seed gives the same steps,
 * and bad settings are refused. */
START_TEST(sampled_mmd_estimates_the_exact_step)
{
	env *e = make("kuhn");
	env_tree *t = tu_tree_open(e);
	env_mmd *exact, *m;
	double pe[64], ps[64], pr[64];
	size_t n = 0;

	ck_assert_int_eq(env_mmd_new(&exact, t, 0.1, 0.5), 0);
	env_mmd_run(exact, 1);
	n = mmd_dump(t, exact, pe, 64);
	ck_assert_uint_eq(n, 24);
	for (int est = ENV_MMD_OUTCOME; est <= ENV_MMD_ALLQ; est++) {
		double worst = 0, few = 0;
		for (int k = 0; k < 2; k++) {
			struct env_mmd_sampling smp = {
				.episodes = k ? 40 : 400000, .estimator = est,
				.seed = 7 };
			ck_assert_int_eq(env_mmd_new(&m, t, 0.1, 0.5), 0);
			ck_assert_int_eq(env_mmd_set_sampling(m, &smp), 0);
			env_mmd_run(m, 1);
			ck_assert_uint_eq(mmd_dump(t, m, k ? pr : ps, 64), n);
			env_mmd_free(m);
		}
		for (size_t i = 0; i < n; i++) {
			worst = fmax(worst, fabs(ps[i] - pe[i]));
			few = fmax(few, fabs(pr[i] - pe[i]));
		}
		fprintf(stderr, "sampled mmd, estimator %d: 400 k episodes "
			"%.4f from the exact step, 40 episodes %.4f\n", est,
			worst, few);
		ck_assert_double_lt(worst, 0.01);
		if (est != ENV_MMD_ALLQ) /* ALLQ is exact but for h's draw */
			ck_assert_double_gt(few, 0.05);
	}
	/* the same seed, the same steps */
	{
		struct env_mmd_sampling smp = { .episodes = 1000, .seed = 3,
						.clip = 2, .reach = 2 };
		double a[64], b[64];
		for (int k = 0; k < 2; k++) {
			ck_assert_int_eq(env_mmd_new(&m, t, 0.1, 0.5), 0);
			ck_assert_int_eq(env_mmd_set_sampling(m, &smp), 0);
			env_mmd_run(m, 20);
			mmd_dump(t, m, k ? b : a, 64);
			env_mmd_free(m);
		}
		for (size_t i = 0; i < n; i++)
			ck_assert_double_eq(a[i], b[i]);
		ck_assert_int_eq(env_mmd_new(&m, t, 0.1, 0.5), 0);
		smp.estimator = 3;
		ck_assert_int_eq(env_mmd_set_sampling(m, &smp), LG_EINVAL);
		smp.estimator = ENV_MMD_OUTCOME;
		smp.clip = -1;
		ck_assert_int_eq(env_mmd_set_sampling(m, &smp), LG_EINVAL);
		smp.clip = 0;
		smp.reach = INFINITY;
		ck_assert_int_eq(env_mmd_set_sampling(m, &smp), LG_EINVAL);
		env_mmd_free(m);
	}
	env_mmd_free(exact);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* Kuhn: the QRE's NashConv falls with its temperature toward the Nash
 * equilibrium's 0, and each run has converged. */
START_TEST(mmd_nashconv_falls_with_the_temperature)
{
	env *e = make("kuhn");
	env_tree *t = tu_tree_open(e);
	const double alpha[] = { 2, 0.5, 0.1 };
	double last = eval(t, env_policy_uniform()).nashconv;

	for (size_t i = 0; i < sizeof alpha / sizeof *alpha; i++) {
		env_mmd *m;
		ck_assert_int_eq(env_mmd_new(&m, t, alpha[i], 0.1), 0);
		env_mmd_run(m, 20000);
		ck_assert_msg(env_mmd_residual(m) < 1e-9, "alpha %g: %g",
			      alpha[i], env_mmd_residual(m));
		double nc = eval(t, env_mmd_policy(m)).nashconv;
		ck_assert_msg(nc < last, "alpha %g: %g after %g", alpha[i],
			      nc, last);
		last = nc;
		env_mmd_free(m);
	}
	/* q is a value per unit of reach: without that normalisation Kuhn's
	 * deals (1/3 each) would act as a temperature at least 3 times
	 * higher, and the QRE at 0.3 is at 0.138 */
	ck_assert_double_lt(last, 0.05);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* Smooth fictitious play. Rock-paper-scissors by hand: the exact best
 * response to uniform is rock (ties go to the first action), so one
 * iteration averages to (2/3, 1/6, 1/6), where paper gains 1/2 for each
 * player: NashConv 1; the second iteration adds paper, (4/9, 4/9, 1/9)
 * with equal weights (paper gains 1/3 for each player: 2/3), (1/3, 7/12,
 * 1/12) with the second iterate weighted 2 (1/4 each: 1/2). Leduc: after
 * one exact iteration each player's response to uniform is worth exactly
 * the best response's value the tree's own evaluator gives (the
 * backward induction's order over depths). Kuhn: the average's NashConv
 * falls with the iterations, toward 0. */
/* Player me plays resp, the others uniform. */
struct one_seat {
	struct env_policy resp;
	int me;
};

static int one_seat_fn(void *ctx, int player, const char *key,
		       const float *obs, const uint8_t *mask, int A,
		       double *probs, char *err, size_t errlen)
{
	struct one_seat *o = ctx;
	struct env_policy u = env_policy_uniform();
	const struct env_policy *p = player == o->me ? &o->resp : &u;

	return p->fn(p->ctx, player, key, obs, mask, A, probs, err, errlen);
}

START_TEST(fictitious_play)
{
	static const struct {
		const char *game;
		double tau;
		int linear;
		uint64_t iters;
		double nashconv;
	} cases[] = {
		{ "rps", 0, 0, 1, 1.0 },
		{ "rps", 0, 0, 2, 2.0 / 3 },
		{ "rps", 0, 1, 2, 0.5 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		env *e = make(cases[k].game);
		env_tree *t = tu_tree_open(e);
		env_fp *f;
		ck_assert_int_eq(env_fp_new(&f, t, cases[k].tau,
					    cases[k].linear), 0);
		env_fp_run(f, cases[k].iters);
		ck_assert_uint_eq(env_fp_iterations(f), cases[k].iters);
		ck_assert_double_eq_tol(eval(t, env_fp_average(f)).nashconv,
					cases[k].nashconv, 1e-12);
		env_fp_free(f);
		env_tree_free(t);
		env_free(e);
	}

	{
		env *e = make("leduc");
		env_tree *t = tu_tree_open(e);
		struct env_nashconv u = eval(t, env_policy_uniform());
		env_fp *f;
		ck_assert_int_eq(env_fp_new(&f, t, 0, 0), 0);
		env_fp_run(f, 1);
		for (int me = 0; me < 2; me++) {
			struct one_seat o = { env_fp_response(f), me };
			struct env_policy p = { one_seat_fn, &o, NULL };
			ck_assert_double_eq_tol(eval(t, p).value[me],
						u.br_value[me], 1e-9);
		}
		env_fp_free(f);
		env_tree_free(t);
		env_free(e);
	}

	env *e = make("kuhn");
	env_tree *t = tu_tree_open(e);
	env_fp *f;
	double last = eval(t, env_policy_uniform()).nashconv;

	ck_assert_int_eq(env_fp_new(&f, t, -1, 0), LG_EINVAL);
	ck_assert_int_eq(env_fp_new(&f, t, NAN, 0), LG_EINVAL);
	ck_assert_int_eq(env_fp_new(&f, t, INFINITY, 1), LG_EINVAL);
	ck_assert_int_eq(env_fp_new(&f, t, 0, 0), 0);
	for (uint64_t n = 10; n <= 1000; n *= 10) {
		env_fp_run(f, n - env_fp_iterations(f));
		double nc = eval(t, env_fp_average(f)).nashconv;
		ck_assert_msg(nc < last, "%llu iterations: %g after %g",
			      (unsigned long long)n, nc, last);
		last = nc;
	}
	ck_assert_double_lt(last, 0.02); /* 0.0135 */
	env_fp_free(f);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* A step too large for the temperature: the last iterate leaves the 2x2
 * game's equilibrium (0.375 each) for pure play while the reach-weighted
 * average of the iterates closes in on it. */
START_TEST(mmd_average_of_a_cycle)
{
	env *e = make("matrix");
	env_tree *t = tu_tree_open(e);
	env_mmd *m;
	struct env_policy pol;
	lg_buf b = { 0 };
	double p0[2], p1[2], last, avg;
	char err[256];

	ck_assert_int_eq(env_mmd_new(&m, t, 1e-3, 0.3), 0);
	env_mmd_average_from(m, 1000);
	env_mmd_run(m, 20000);
	ck_assert_double_gt(env_mmd_residual(m), 0.1);
	last = eval(t, env_mmd_policy(m)).nashconv;
	avg = eval(t, env_mmd_average(m)).nashconv;
	/* simultaneous mirror descent spirals out to pure play; the
	 * average's error falls as 1 / sqrt(iterations) */
	ck_assert_msg(last > 1 && avg < 0.03, "last %g, average %g", last,
		      avg);
	pol = env_mmd_average(m);
	ck_assert_int_eq(env_tree_dump_policy(t, &pol, &b, err, sizeof err),
			 0);
	ck_assert_int_eq(lg_buf_append(&b, "", 1), 0);
	ck_assert_int_eq(probs_of((const char *)b.data, p0, p1), 0);
	ck_assert_msg(fabs(p0[0] - 0.375) < 0.02 && fabs(p1[0] - 0.375) < 0.02,
		      "average %g %g", p0[0], p1[0]);
	lg_buf_free(&b);
	env_mmd_free(m);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* Iterate k of mirror descent on t (from uniform) saved as a tabular
 * policy file at path. */
static env_tabular *mmd_iterate(env_tree *t, uint64_t k, const char *path)
{
	env_mmd *m;
	env_tabular *tab;
	struct env_policy pol;
	lg_buf b = { 0 };
	char err[256];

	ck_assert_int_eq(env_mmd_new(&m, t, 0.2, 0.5), 0);
	env_mmd_run(m, k);
	pol = env_mmd_policy(m);
	ck_assert_int_eq(env_tree_dump_policy(t, &pol, &b, err, sizeof err),
			 0);
	ck_assert_int_eq(lg_buf_append(&b, "", 1), 0);
	tu_write_file(path, (const char *)b.data);
	ck_assert_int_eq(env_tabular_load(&tab, path, 2, err, sizeof err), 0);
	lg_buf_free(&b);
	env_mmd_free(m);
	return tab;
}

/* Kuhn: the average of iterates 1 and 2 is the episode mixture of the two
 * (env_tree_mixture, half each), infostate by infostate: own reach
 * weighs each iterate where the player's earlier moves make them differ. */
START_TEST(mmd_average_is_the_mixture_of_its_iterates)
{
	env *e = make("kuhn");
	env_tree *t = tu_tree_open(e);
	env_tabular *it[2], *mix;
	struct env_policy pols[2], avg, mp;
	const double w[2] = { 1, 1 };
	lg_buf a = { 0 }, b = { 0 };
	char dir[128], path[2][192], err[256];
	env_mmd *m;
	double diff = 0;

	tu_mkdtemp(dir, sizeof dir);
	for (int k = 0; k < 2; k++) {
		snprintf(path[k], sizeof path[k], "%s/it%d.txt", dir, k + 1);
		it[k] = mmd_iterate(t, (uint64_t)k + 1, path[k]);
		pols[k] = env_tabular_policy(it[k]);
	}
	ck_assert_int_eq(env_tree_mixture(t, pols, w, 2, &mix, err,
					  sizeof err), 0);
	ck_assert_int_eq(env_mmd_new(&m, t, 0.2, 0.5), 0);
	env_mmd_average_from(m, 1);
	env_mmd_run(m, 3); /* averages the iterates 1 and 2 */
	avg = env_mmd_average(m);
	mp = env_tabular_policy(mix);
	ck_assert_int_eq(env_tree_dump_policy(t, &avg, &a, err, sizeof err),
			 0);
	ck_assert_int_eq(env_tree_dump_policy(t, &mp, &b, err, sizeof err), 0);
	ck_assert_int_eq(lg_buf_append(&a, "", 1), 0);
	ck_assert_int_eq(lg_buf_append(&b, "", 1), 0);
	/* same keys in the same order; compare the numbers */
	for (const char *x = (const char *)a.data, *y = (const char *)b.data;
	     *x && *y;) {
		char *ex, *ey;
		double u = strtod(x, &ex), v = strtod(y, &ey);
		if (ex == x || ey == y) { /* a key: skip it on both sides */
			x += strcspn(x, " \n") + 1;
			y += strcspn(y, " \n") + 1;
			continue;
		}
		diff = fmax(diff, fabs(u - v));
		x = ex + (*ex != 0);
		y = ey + (*ey != 0);
	}
	ck_assert_msg(diff < 1e-12, "average and mixture differ by %g", diff);
	/* and the iterates differ, so the weighting matters */
	ck_assert_double_gt(fabs(eval(t, pols[0]).nashconv -
				 eval(t, pols[1]).nashconv), 1e-3);
	lg_buf_free(&a);
	lg_buf_free(&b);
	env_tabular_free(mix);
	for (int k = 0; k < 2; k++)
		env_tabular_free(it[k]);
	env_mmd_free(m);
	tu_rmrf(dir);
	env_tree_free(t);
	env_free(e);
}
END_TEST

START_TEST(rps_uniform_is_equilibrium)
{
	env *e = make("rps");
	env_tree *t = tu_tree_open(e);
	env_cfr *c;
	env_tabular *tab;
	char dir[128], path[192], err[256];

	ck_assert_double_eq_tol(eval(t, env_policy_uniform()).nashconv, 0,
				1e-12);
	ck_assert_int_eq(env_cfr_new(&c, t), 0);
	env_cfr_run(c, 100);
	ck_assert_double_lt(eval(t, env_cfr_average(c)).nashconv, 1e-9);
	/* always rock: each side's best response (paper) wins 1 */
	tu_mkdtemp(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/rock.txt", dir);
	tu_write_file(path, "# always rock\np0 1 0 0\n\np1 1 0 0\n");
	ck_assert_int_eq(env_tabular_load(&tab, path, 3, err, sizeof err), 0);
	ck_assert_double_eq_tol(eval(t, env_tabular_policy(tab)).nashconv, 2,
				1e-12);
	env_tabular_free(tab);
	tu_rmrf(dir);
	env_cfr_free(c);
	env_tree_free(t);
	env_free(e);
}
END_TEST

START_TEST(tree_refused_for_board_games)
{
	env *e = make("tictactoe");
	env_tree *t = (env_tree *)1;
	char err[256];

	ck_assert_int_eq(env_tree_new(&t, e, err, sizeof err), LG_EUNSUPP);
	ck_assert_ptr_null(t);
	env_free(e);
}
END_TEST

START_TEST(tabular_round_trip_and_errors)
{
	static const struct {
		const char *text;
		const char *want; /* substring of the error */
	} bad[] = {
		{ "Kpb 0.5\n", "x.txt:1:" },
		{ "# c\nK 0.5 0.5 0.1\n", "x.txt:2:" },
		{ "K -0.5 1.5\n", "x.txt:1:" },
		{ "K 0.5 0.4\n", "sum" },
		{ "K 0.5 0.5\nK 0.5 0.5\n", "duplicate" },
		{ "K nan 0.5\n", "x.txt:1:" },
	};
	env *e = make("kuhn");
	env_tree *t = tu_tree_open(e);
	env_cfr *c;
	env_tabular *tab;
	struct env_policy pol;
	struct env_nashconv a, b;
	lg_buf buf = { 0 };
	char dir[128], path[192], err[512];
	FILE *f;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/x.txt", dir);
	ck_assert_int_eq(env_cfr_new(&c, t), 0);
	env_cfr_run(c, 200);
	pol = env_cfr_average(c);
	a = eval(t, pol);
	ck_assert_int_eq(env_tree_dump_policy(t, &pol, &buf, err, sizeof err),
			 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf.data, 1, buf.len, f), buf.len);
	fclose(f);
	ck_assert_int_eq(env_tabular_load(&tab, path, 2, err, sizeof err), 0);
	b = eval(t, env_tabular_policy(tab));
	ck_assert_double_eq_tol(a.nashconv, b.nashconv, 1e-12);
	ck_assert_double_eq_tol(a.value[0], b.value[0], 1e-12);
	env_tabular_free(tab);

	for (size_t i = 0; i < LG_ARRAY_LEN(bad); i++) {
		tu_write_file(path, bad[i].text);
		err[0] = 0;
		ck_assert_int_eq(env_tabular_load(&tab, path, 2, err,
						  sizeof err),
				 LG_EINVAL);
		ck_assert_ptr_null(tab);
		ck_assert_msg(strstr(err, bad[i].want), "case %zu: %s", i,
			      err);
	}
	/* an over-long line */
	{
		char *big = malloc(6000);
		ck_assert_ptr_nonnull(big);
		memset(big, 'K', 5998);
		big[5998] = '\n';
		big[5999] = 0;
		tu_write_file(path, big);
		free(big);
		ck_assert_int_eq(env_tabular_load(&tab, path, 2, err,
						  sizeof err),
				 LG_EINVAL);
	}
	/* a table missing states fails the evaluation naming one */
	tu_write_file(path, "K 0 1\n");
	ck_assert_int_eq(env_tabular_load(&tab, path, 2, err, sizeof err), 0);
	pol = env_tabular_policy(tab);
	ck_assert_int_eq(env_tree_nashconv(t, &pol, &a, err, sizeof err),
			 LG_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err, "infostate"));
	env_tabular_free(tab);
	ck_assert_int_eq(env_tabular_load(&tab, "/nonexistent/p", 2, err,
					  sizeof err),
			 LG_EIO);
	lg_buf_free(&buf);
	env_cfr_free(c);
	tu_rmrf(dir);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* Play a two-player sequential game between baselines a (player 0) and
 * b; return player 0's return. */
START_TEST(tictactoe_minimax)
{
	env *e = make("tictactoe");
	env_baseline *mm, *rnd;
	char err[256];
	double v;
	lg_rng r;
	int lost = 0, draws = 0;

	ck_assert_int_eq(env_baseline_new(&mm, "minimax", e, err, sizeof err),
			 0);
	ck_assert_int_eq(env_baseline_new(&rnd, "random", e, err, sizeof err),
			 0);
	ck_assert_int_eq(env_baseline_value(mm, e, &v), 0);
	ck_assert_double_eq(v, 0);
	ck_assert_int_eq(env_baseline_value(rnd, e, &v), LG_EUNSUPP);
	/* X in a corner, O on an adjacent edge: a won position for X */
	ck_assert_int_eq(env_step(e, 0), 0); /* X */
	ck_assert_int_eq(env_step(e, 1), 0); /* O: a losing reply */
	ck_assert_int_eq(env_baseline_value(mm, e, &v), 0);
	ck_assert_double_eq(v, 1); /* X to move wins */
	lg_rng_seed(&r, 5);
	for (uint64_t s = 0; s < 100; s++) {
		lost += tu_baseline_duel(e, mm, rnd, s, &r) < 0;
		lost += tu_baseline_duel(e, rnd, mm, s, &r) > 0;
	}
	for (uint64_t s = 0; s < 10; s++)
		draws += tu_baseline_duel(e, mm, mm, s, &r) == 0;
	ck_assert_int_eq(lost, 0);
	ck_assert_int_eq(draws, 10);
	env_baseline_free(mm);
	env_baseline_free(rnd);
	env_free(e);
}
END_TEST

START_TEST(connect4_alphabeta)
{
	/* Depth 4 against uniform random over 20 games (each side 10): a
	 * random player essentially never survives a 4-ply search; allow
	 * one loss or draw. */
	env *e = make("connect4");
	env_baseline *ab, *rnd, *tmp = NULL;
	char err[256];
	lg_rng r;
	int won = 0;

	ck_assert_int_eq(env_baseline_new(&ab, "alphabeta:4", e, err,
					  sizeof err), 0);
	ck_assert_int_eq(env_baseline_new(&rnd, "random", e, err, sizeof err),
			 0);
	lg_rng_seed(&r, 3);
	for (uint64_t s = 0; s < 10; s++) {
		won += tu_baseline_duel(e, ab, rnd, s, &r) > 0;
		won += tu_baseline_duel(e, rnd, ab, s, &r) < 0;
	}
	ck_assert_int_ge(won, 19);
	/* an immediate win is taken: three in column 0 for player 0 */
	env_reset(e, 1);
	int seq[] = { 0, 1, 0, 1, 0, 2 };
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(env_step(e, seq[i]), 0);
	int act;
	ck_assert_int_eq(env_baseline_act(ab, e, 0, &r, &act), 0);
	ck_assert_int_eq(act, 0);
	ck_assert_int_eq(env_baseline_act(ab, e, 1, &r, &act), LG_EINVAL);
	ck_assert_int_eq(env_baseline_new(&tmp, "alphabeta:13", e, err,
					  sizeof err), LG_EINVAL);
	ck_assert_int_eq(env_baseline_new(&tmp, "minimax", e, err,
					  sizeof err), LG_EINVAL);
	ck_assert_int_eq(env_baseline_new(&tmp, "greedy", e, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_null(tmp);
	env_baseline_free(ab);
	env_baseline_free(rnd);
	env_free(e);
}
END_TEST

START_TEST(random_baseline_simultaneous)
{
	env *e = make("rps");
	env_baseline *rnd;
	char err[128];
	lg_rng r;
	int count[3] = { 0 }, act;

	ck_assert_int_eq(env_baseline_new(&rnd, "random", e, err, sizeof err),
			 0);
	lg_rng_seed(&r, 1);
	/* 3000 draws: each count ~ 1000 +- 25.8 (sd); allow 5 sd */
	for (int i = 0; i < 3000; i++) {
		ck_assert_int_eq(env_baseline_act(rnd, e, i % 2, &r, &act), 0);
		count[act]++;
	}
	for (int a = 0; a < 3; a++)
		ck_assert_int_lt(abs(count[a] - 1000), 130);
	env_baseline_free(rnd);
	env_free(e);
}
END_TEST

/* ---- through the binary ------------------------------------------------ */

START_TEST(cli_env_list)
{
	static const char *const argv[] = { "env", "list", NULL };
	static const char *const names[] = { "rps", "matrix", "kuhn", "leduc",
					     "tictactoe", "connect4",
					     "timing" };
	char out[8192], err[1024];

	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, argv),
			 0);
	for (size_t i = 0; i < LG_ARRAY_LEN(names); i++)
		ck_assert_msg(strstr(out, names[i]), "%s missing", names[i]);
	ck_assert_ptr_nonnull(strstr(out, "players"));
	{
		static const char *const bad[] = { "env", "lst", NULL };
		ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0, bad), 2);
	}
}
END_TEST

START_TEST(cli_eval_nashconv)
{
	static const char *const kuhn[] = { "eval", "nashconv", "--game",
					    "kuhn", "--policy", "uniform",
					    "--json", NULL };
	static const char *const cfr[] = { "eval", "nashconv", "--game",
					   "kuhn", "--policy", "cfr:1000",
					   "--json", NULL };
	static const char *const mx[] = { "eval", "nashconv", "--matrix",
					  "[[3,-2],[-2,1]]", "--policy",
					  "cfr:5000", NULL };
	static const char *const fp[] = { "eval", "nashconv", "--game", "rps",
					  "--policy", "fplin:0:2", "--json",
					  NULL };
	char out[4096], err[1024];
	double v;
	const char *p;

	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, kuhn),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "\"game\":\"kuhn\""));
	p = strstr(out, "\"nashconv\":");
	ck_assert_ptr_nonnull(p);
	v = strtod(p + 11, NULL);
	ck_assert_double_eq_tol(v, 11.0 / 12, 1e-12);
	p = strstr(out, "\"exploitability\":");
	ck_assert_ptr_nonnull(p);
	ck_assert_double_eq_tol(strtod(p + 17, NULL), 11.0 / 24, 1e-12);

	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, cfr),
			 0);
	p = strstr(out, "\"nashconv\":");
	ck_assert_ptr_nonnull(p);
	ck_assert_double_lt(strtod(p + 11, NULL), 1e-3);

	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, mx),
			 0);
	p = strstr(out, "value");
	ck_assert_ptr_nonnull(p);
	ck_assert_double_eq_tol(strtod(p + 5, NULL), -0.125, 1e-3);

	/* fictitious play's second linear iteration on rock-paper-
	 * scissors (fictitious_play works it out by hand) */
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, fp),
			 0);
	p = strstr(out, "\"nashconv\":");
	ck_assert_ptr_nonnull(p);
	ck_assert_double_eq_tol(strtod(p + 11, NULL), 0.5, 1e-12);
	ck_assert_ptr_nonnull(strstr(out, "\"fp_iterations\":2"));
}
END_TEST

START_TEST(cli_eval_usage_errors)
{
	static const char *const cases[][8] = {
		{ "eval", "nashconv", "--game", "kuhn", "--policy", "bogus",
		  NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy", "cfr:0",
		  NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy", "cfr:x",
		  NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy", "mmd:",
		  NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy",
		  "mmd:0.2:0.05", NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy",
		  "mmd:0.2::100", NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy",
		  "mmd:0.2:0.05:100:", NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy",
		  "mmd:1e999:0.1:10", NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy",
		  "mmdavg:0:0.1:10", NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy", "fp:",
		  NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy", "fp:0.1",
		  NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy", "fp:-1:10",
		  NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy",
		  "fplin:0.1:0", NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--policy",
		  "fp:0.1:10:", NULL },
		{ "eval", "nashconv", "--game", "kuhn", "--bogus", NULL },
		{ "eval", "nashconv", "--game", "chess", NULL },
		{ "eval", "nashconv", "--game", "tictactoe", NULL },
		{ "eval", "nashconv", NULL },
		{ "eval", "nashconv", "--matrix", "[[1,2],[3]]", NULL },
		{ "eval", "frobnicate", NULL },
		{ "eval", NULL },
	};
	char err[1024];

	for (size_t i = 0; i < LG_ARRAY_LEN(cases); i++) {
		ck_assert_msg(tu_run_league(NULL, 0, err, sizeof err,
					    cases[i]) == 2,
			      "case %zu", i);
		ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1,
			      "case %zu: not one line: %s", i, err);
		/* the game is named (its name was read after the env
		 * holding it was freed) */
		if (i == 16)
			ck_assert_msg(strstr(err, ": tictactoe has no exact "
					     "evaluation"), "%s", err);
	}
	{
		static const char *const help[] = { "eval", "--help", NULL };
		char out[4096];
		ck_assert_int_eq(tu_run_league(out, sizeof out, NULL, 0, help),
				 0);
		ck_assert_ptr_nonnull(strstr(out, "nashconv"));
	}
}
END_TEST

START_TEST(cli_policy_file_round_trip)
{
	char dir[128], path[192], bad[192], out[4096], err[1024];

	tu_mkdtemp(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/leduc.txt", dir);
	snprintf(bad, sizeof bad, "%s/bad.txt", dir);
	{
		const char *const dump[] = { "eval", "policy", "--game",
					     "leduc", "--policy", "cfr:50",
					     "--out", path, NULL };
		ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, dump),
				 0);
	}
	{
		const char *const a[] = { "eval", "nashconv", "--game",
					  "leduc", "--policy", "cfr:50",
					  "--json", NULL };
		const char *const b[] = { "eval", "nashconv", "--game",
					  "leduc", "--policy", path,
					  "--json", NULL };
		char out2[4096];
		const char *p, *q;
		ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err,
					       a), 0);
		ck_assert_int_eq(tu_run_league(out2, sizeof out2, err,
					       sizeof err, b), 0);
		p = strstr(out, "\"nashconv\":");
		q = strstr(out2, "\"nashconv\":");
		ck_assert(p && q);
		ck_assert_double_eq_tol(strtod(p + 11, NULL),
					strtod(q + 11, NULL), 1e-9);
	}
	tu_write_file(bad, "K: 0.5 0.5\n");
	{
		const char *const c[] = { "eval", "nashconv", "--game",
					  "leduc", "--policy", bad, NULL };
		ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, c), 2);
		ck_assert_ptr_nonnull(strstr(err, "bad.txt:1:"));
	}
	tu_rmrf(dir);
}
END_TEST

Suite *suite_eval(void)
{
	Suite *s = suite_create("eval");
	const struct tu_test exact_tests[] = {
		{ kuhn_uniform_nashconv, 1 },
		{ leduc_uniform_nashconv, 1 },
		{ policy_with_memory_sees_its_history, 1 },
		{ kuhn_cfr_plus_equilibrium, 1 },
		{ leduc_cfr_plus_converges, 1 },
		{ liars_dice_cfr_plus_keeps_converging, 1 },
		{ liars_dice_rules, 1 },
		{ matrix_2x2_equilibrium, 1 },
		{ mmd_reaches_the_quantal_response_equilibrium, 1 },
		{ optimistic_mmd_converges_where_plain_cycles, 1 },
		{ moving_magnet_converges_where_plain_cycles, 1 },
		{ sampled_mmd_estimates_the_exact_step, 1 },
		{ mmd_nashconv_falls_with_the_temperature, 1 },
		{ fictitious_play, 1 },
		{ mmd_average_of_a_cycle, 1 },
		{ mmd_average_is_the_mixture_of_its_iterates, 1 },
		{ rps_uniform_is_equilibrium, 1 },
		{ tree_refused_for_board_games, 1 },
		{ tabular_round_trip_and_errors, 1 },
	};
	const struct tu_test baselines_tests[] = {
		{ tictactoe_minimax, 1 },
		{ connect4_alphabeta, 1 },
		{ random_baseline_simultaneous, 1 },
	};
	const struct tu_test cli_tests[] = {
		{ cli_env_list, 1 },
		{ cli_eval_nashconv, 1 },
		{ cli_eval_usage_errors, 1 },
		{ cli_policy_file_round_trip, 1 },
	};

	TU_TCASE(s, "exact", 60, exact_tests);
	TU_TCASE(s, "baselines", 60, baselines_tests);
	TU_TCASE(s, "cli", 60, cli_tests);
	return s;
}
