/* tests/check_nplayer.c: exact evaluation with more than two seats (and
 * one): NashConv, CFR and CFR+ on 3-player Kuhn and Leduc poker, the
 * optimum of a common-payoff game, and `league eval nashconv` for them;
 * tiny games of the test's own for seats of different widths and for
 * games without perfect recall (refused); 2-player Kuhn and Leduc pinned
 * to their code before N seats by a hash of every history.
 *
 * Known values: 3-player Kuhn's uniform NashConv 2.0625 (OpenSpiel's own
 * test value, tabular_best_response_mdp_test.cc); 3-player Leduc's uniform
 * NashConv and 3-player Kuhn's CFR+ and CFR NashConv from
 * tests/ref/poker_ref.py, an evaluator written apart from envs/ (it walks
 * the public tree with a weight per deal; its Leduc value is also
 * OpenSpiel's 12.611221340388003 from the same test file). */
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

/* ---- the 2-player games pinned to their code before N seats ------------ */

/* FNV-1a (64 bits) of n bytes p into *h. */
static void fnv(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		*h ^= b[i];
		*h *= 0x100000001b3ull;
	}
}

/* Hash into *h every history below state st of open game gm (2 seats):
 * at each node its player; at chance its outcomes and probabilities; at
 * decisions the mover's legal mask; at decisions and terminals both
 * seats' observations and infostate keys; at terminals the returns. */
static void hash_walk(const struct env_game *gm, const void *st, uint64_t *h)
{
	const struct league_game *g = gm->g;
	int pl = g->player(gm->inst, st), n = 0;
	int acts[ENV_CHANCE_MAX > 64 ? ENV_CHANCE_MAX : 64];
	double probs[ENV_CHANCE_MAX > 64 ? ENV_CHANCE_MAX : 64];
	int32_t p32 = pl;
	unsigned char *child;

	fnv(h, &p32, sizeof p32);
	if (pl == ENV_CHANCE) {
		n = g->chance(gm->inst, st, acts, probs);
		for (int i = 0; i < n; i++) {
			int32_t a = acts[i];
			fnv(h, &a, sizeof a);
			fnv(h, &probs[i], sizeof probs[i]);
		}
	} else {
		for (int s = 0; s < 2; s++) {
			float obs[512] = { 0 };
			char key[ENV_KEY_MAX] = { 0 };
			g->observe(gm->inst, st, s, obs);
			fnv(h, obs, (size_t)gm->spec.obs_len * sizeof *obs);
			g->infostate(gm->inst, st, s, key, sizeof key);
			fnv(h, key, strlen(key) + 1);
		}
	}
	if (pl == ENV_TERMINAL) {
		double r[8] = { 0 };
		g->returns(gm->inst, st, r);
		for (int s = 0; s < 2; s++) {
			double v = r[s] + 0.0; /* -0 as 0 */
			fnv(h, &v, sizeof v);
		}
		return;
	}
	if (pl >= 0) {
		uint8_t mask[64] = { 0 };
		g->legal(gm->inst, st, pl, mask);
		fnv(h, mask, (size_t)gm->spec.num_actions);
		for (int a = 0; a < gm->spec.num_actions; a++)
			if (mask[a])
				acts[n++] = a;
	}
	child = malloc(gm->state_size);
	ck_assert_ptr_nonnull(child);
	for (int i = 0; i < n; i++) {
		memcpy(child, st, gm->state_size);
		g->apply(gm->inst, child, acts[i], NULL);
		hash_walk(gm, child, h);
	}
	free(child);
}

/* The hash of every history of game gm from its root. */
static uint64_t hash_game(const struct env_game *gm)
{
	unsigned char *st = malloc(gm->state_size);
	uint64_t h = 0xcbf29ce484222325ull;

	ck_assert_ptr_nonnull(st);
	gm->g->root(gm->inst, st, NULL);
	hash_walk(gm, st, &h);
	free(st);
	return h;
}

/* Two seats, by default or through the players param, are the game
 * before N seats came: the same hash of every history as the code at
 * commit 5ee04a4 gave (its envs/ built apart with hash_game above:
 * kuhn 0x885b36cd0dafd6c0, leduc 0x58e6d3288c44c605). */
START_TEST(players_2_is_the_old_game)
{
	const char *names[] = { "kuhn", "leduc" };
	const uint64_t pinned[] = { 0x885b36cd0dafd6c0ull,
				    0x58e6d3288c44c605ull };

	for (int g = 0; g < 2; g++) {
		struct env_opts o;
		env_opts_default(&o);
		env *e1 = make_n(names[g], 2), *e2 = tu_env_open(names[g], &o);
		ck_assert_int_eq(e1->gm.spec.players, 2);
		ck_assert_int_eq(e2->gm.spec.players, 2);
		ck_assert_msg(hash_game(&e1->gm) == pinned[g],
			      "%s players=2: 0x%016llx", names[g],
			      (unsigned long long)hash_game(&e1->gm));
		ck_assert_msg(hash_game(&e2->gm) == pinned[g],
			      "%s default: 0x%016llx", names[g],
			      (unsigned long long)hash_game(&e2->gm));
		env_free(e1);
		env_free(e2);
	}
}
END_TEST

/* With three seats CFR need not reach a Nash equilibrium; on Kuhn its
 * average's NashConv still falls far below the uniform policy's. The
 * values are `python3 tests/ref/poker_ref.py kuhn 3 10 100`'s (CFR+) and
 * `python3 tests/ref/poker_ref.py kuhn 3 vcfr 10 100`'s (vanilla CFR):
 * the same algorithms, written apart. */
START_TEST(kuhn_3p_cfr_and_cfr_plus)
{
	env *e = make_n("kuhn", 3);
	env_tree *t = tu_tree_open(e);
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
	env_cfr_run(c, 10);
	ck_assert_double_eq_tol(eval_n(t, env_cfr_average(c), 3).nashconv,
				0.312481205930, 1e-9);
	env_cfr_run(c, 90);
	ck_assert_uint_eq(env_cfr_iterations(c), 100);
	ck_assert_double_eq_tol(eval_n(t, env_cfr_average(c), 3).nashconv,
				0.037015624167, 1e-9);
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
		 * and only where reached: at most 4^(np - 1) */
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

/* ---- tiny games of the test's own, without chance ---------------------- */

/*
 * A tiny game: seats move in the order seat[0], seat[1], ... (seat s has
 * na[s] actions, all legal); key names each decision's infostate and ret
 * says when it is over (then the returns). One observation: the move
 * count.
 */
#define TINY_MAX 4
struct tiny_st {
	int8_t n, m[TINY_MAX];
};
struct tiny {
	int np;
	int8_t seat[TINY_MAX], na[2];
	void (*key)(const struct tiny_st *s, int seat, char *buf, size_t len);
	int (*ret)(const struct tiny_st *s, double *out); /* 1: over */
};

static void tiny_root(const void *inst, void *st,
		      struct league_game_rng *rng)
{
	memset(st, 0, sizeof(struct tiny_st));
}

static int tiny_player(const void *inst, const void *st)
{
	const struct tiny *g = inst;
	const struct tiny_st *s = st;
	double r[ENV_MAX_PLAYERS];

	return g->ret(s, r) ? LEAGUE_GAME_TERMINAL : g->seat[s->n];
}

static int tiny_legal(const void *inst, const void *st, int seat,
		      uint8_t *mask)
{
	const struct tiny *g = inst;

	for (int a = 0; a < g->na[seat]; a++)
		mask[a] = 1;
	return g->na[seat];
}

static void tiny_apply(const void *inst, void *st, int a,
		       struct league_game_rng *rng)
{
	struct tiny_st *s = st;

	s->m[s->n++] = (int8_t)a;
}

static void tiny_observe(const void *inst, const void *st, int seat,
			 float *out)
{
	out[0] = ((const struct tiny_st *)st)->n;
}

static void tiny_returns(const void *inst, const void *st, double *out)
{
	((const struct tiny *)inst)->ret(st, out);
}

static void tiny_infostate(const void *inst, const void *st, int seat,
			   char *buf, size_t len)
{
	((const struct tiny *)inst)->key(st, seat, buf, len);
}

static const struct league_game tiny_game = {
	.abi = LEAGUE_GAME_ABI,
	.name = "tiny",
	.root = tiny_root,
	.player = tiny_player,
	.legal = tiny_legal,
	.apply = tiny_apply,
	.observe = tiny_observe,
	.returns = tiny_returns,
	.infostate = tiny_infostate,
};

/* The tree of tiny game g (payoff: ENV_*). */
static env_tree *tiny_tree(struct tiny *g, int payoff)
{
	struct env_spec sp;
	env_tree *t = NULL;
	char err[256];

	memset(&sp, 0, sizeof sp);
	snprintf(sp.name, sizeof sp.name, "tiny");
	sp.players = g->np;
	sp.obs_len = 1;
	sp.max_steps = TINY_MAX;
	sp.flags = ENV_F_TREE | (g->np > 1 && g->na[0] != g->na[1]
					 ? ENV_F_ASYMMETRIC
					 : 0);
	sp.payoff = payoff;
	sp.teams = g->np;
	sp.roles = 1;
	for (int p = 0; p < g->np; p++) {
		sp.seat[p].obs_len = 1;
		sp.seat[p].num_actions = g->na[p];
		sp.num_actions = LG_MAX(sp.num_actions, g->na[p]);
	}
	ck_assert_msg(env_tree_of_game(&t, &tiny_game, g, &sp,
				       sizeof(struct tiny_st), err,
				       sizeof err) == 0, "%s", err);
	return t;
}

/* Seat 0 (3 actions) then seat 1 (2 actions, not seeing seat 0's):
 * seat 0 gets 1 for action 0, seat 1 1 for action 1. */
static void uneven_key(const struct tiny_st *s, int seat, char *buf,
		       size_t len)
{
	snprintf(buf, len, "seat%d", seat);
}

static int uneven_ret(const struct tiny_st *s, double *out)
{
	if (s->n < 2)
		return 0;
	out[0] = s->m[0] == 0;
	out[1] = s->m[1] == 1;
	return 1;
}

/* Seats with different action counts: the solvers' tables keep the
 * stride of the widest seat, and their policies read it so. */
START_TEST(uneven_seats_read_their_own_rows)
{
	struct tiny g = { 2, { 0, 1 }, { 3, 2 }, uneven_key, uneven_ret };
	env_tree *t = tiny_tree(&g, ENV_GENERAL_SUM);
	struct env_nashconv nc;
	struct env_policy p;
	uint8_t mask[4] = { 1, 1, 1, 1 };
	double probs[4], w = 200.0 * 201 / 2; /* iteration t weighs t */
	char err[256] = "";
	env_cfr *c;

	ck_assert_int_eq(env_cfr_new(&c, t), 0);
	env_cfr_run(c, 200);
	p = env_cfr_average(c);
	/* Iteration 1 plays uniform (weight 1), seat 0 updates first, and
	 * from then on both play their dominant action: off it go 2/3 of
	 * seat 0's first weight and 1/2 of seat 1's. */
	ck_assert_int_eq(p.fn(p.ctx, 1, "seat1", NULL, mask, 2, probs, err,
			      sizeof err), 0);
	ck_assert_double_eq_tol(probs[0], 0.5 / w, 1e-15);
	ck_assert_double_eq_tol(probs[1], 1 - 0.5 / w, 1e-15);
	ck_assert_int_eq(p.fn(p.ctx, 0, "seat0", NULL, mask, 3, probs, err,
			      sizeof err), 0);
	ck_assert_double_eq_tol(probs[0], 1 - (2.0 / 3) / w, 1e-15);
	ck_assert_int_eq(env_tree_nashconv(t, &p, &nc, err, sizeof err), 0);
	ck_assert_double_eq_tol(nc.nashconv, (2.0 / 3 + 0.5) / w, 1e-15);
	/* more actions than any seat has: refused, with a message */
	ck_assert_int_eq(p.fn(p.ctx, 0, "seat0", NULL, mask, 4, probs, err,
			      sizeof err), LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "CFR+ policy: asked for 4 actions "
				     "at 'seat0', but the tree's seats have "
				     "at most 3"));
	env_cfr_free(c);
	env_tree_free(t);
}
END_TEST

/* The absent-minded driver: one seat, one infostate at both of its
 * decisions (0 exit, 1 go on). Exit first: 0; exit second: 4; never: 1.
 * Continuing with probability 2/3 gets 4/3, more than any deterministic
 * policy (at most 1). */
static void driver_key(const struct tiny_st *s, int seat, char *buf,
		       size_t len)
{
	snprintf(buf, len, "road");
}

static int driver_ret(const struct tiny_st *s, double *out)
{
	if (s->n >= 1 && s->m[0] == 0)
		out[0] = 0;
	else if (s->n == 2)
		out[0] = s->m[1] == 0 ? 4 : 1;
	else
		return 0;
	return 1;
}

/* An infostate twice on one path: no best response (it would recurse
 * without end), no optimum (enumerating deterministic policies would say
 * 1): both refused by name. */
START_TEST(repeated_infostate_is_refused)
{
	struct tiny g = { 1, { 0, 0 }, { 2 }, driver_key, driver_ret };
	env_tree *t = tiny_tree(&g, ENV_COMMON_PAYOFF);
	struct env_policy u = env_policy_uniform();
	struct env_nashconv nc;
	struct env_optimum opt;
	char err[256] = "";

	ck_assert_uint_eq(env_tree_infostates(t), 1);
	ck_assert_int_eq(env_tree_nashconv(t, &u, &nc, err, sizeof err),
			 LG_EUNSUPP);
	ck_assert_ptr_nonnull(strstr(err, "tiny: NashConv needs perfect "
				     "recall, but infostate 'road' of seat 0"));
	err[0] = 0;
	ck_assert_int_eq(env_tree_optimum(t, &opt, NULL, err, sizeof err),
			 LG_EUNSUPP);
	ck_assert_ptr_nonnull(strstr(err, "tiny: no seat has perfect recall"));
	env_tree_free(t);
}
END_TEST

/* One seat moves twice and forgets its first move: "move0", "move1".
 * Payoff [first][second]: [[2, 3], [2, 0]]; the optimum is 3. */
static void forget_key(const struct tiny_st *s, int seat, char *buf,
		       size_t len)
{
	snprintf(buf, len, "move%d", s->n);
}

static int forget_ret(const struct tiny_st *s, double *out)
{
	static const double pay[2][2] = { { 2, 3 }, { 2, 0 } };

	if (s->n < 2)
		return 0;
	out[0] = pay[s->m[0]][s->m[1]];
	return 1;
}

/* The same infostate before, but a different action taken there: not
 * perfect recall (its best response would say 2, not 3). */
START_TEST(forgotten_own_move_is_not_recall)
{
	struct tiny g = { 1, { 0, 0 }, { 2 }, forget_key, forget_ret };
	env_tree *t = tiny_tree(&g, ENV_COMMON_PAYOFF);
	struct env_policy u = env_policy_uniform();
	struct env_nashconv nc;
	struct env_optimum opt;
	char err[256] = "";
	int i = env_strmap_get(&t->map, "move1");

	ck_assert_int_ge(i, 0);
	ck_assert_int_eq(t->info[i].prev, TREE_NO_RECALL);
	ck_assert_int_eq(t->info[env_strmap_get(&t->map, "move0")].prev, -1);
	ck_assert_int_eq(env_tree_optimum(t, &opt, NULL, err, sizeof err),
			 LG_EUNSUPP);
	ck_assert_ptr_nonnull(strstr(err, "no seat has perfect recall"));
	ck_assert_int_eq(env_tree_nashconv(t, &u, &nc, err, sizeof err),
			 LG_EUNSUPP);
	ck_assert_ptr_nonnull(strstr(err, "infostate 'move1'"));
	env_tree_free(t);
}
END_TEST

/* Cross values pit a policy at seat 0 against one at seat 1: any other
 * number of seats is refused. */
START_TEST(cross_values_two_seats_only)
{
	env *e = make_n("kuhn", 3);
	env_tree *t = tu_tree_open(e);
	struct env_policy ps[2] = { env_policy_uniform(),
				    env_policy_uniform() };
	double cv[4];
	char err[256] = "";

	ck_assert_int_eq(env_tree_cross_values(t, ps, 2, cv, err, sizeof err),
			 LG_EUNSUPP);
	ck_assert_ptr_nonnull(strstr(err, "kuhn: cross values pit one policy "
				     "at seat 0 against one at seat 1, so they "
				     "need a two-seat game; this one has 3 "
				     "seats"));
	env_tree_free(t);
	env_free(e);
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
		{ players_2_is_the_old_game, 1 },
		{ kuhn_3p_cfr_and_cfr_plus, 1 },
		{ common_payoff_optimum, 1 },
		{ optimum_refuses_other_payoffs, 1 },
		{ uneven_seats_read_their_own_rows, 1 },
		{ repeated_infostate_is_refused, 1 },
		{ forgotten_own_move_is_not_recall, 1 },
		{ cross_values_two_seats_only, 1 },
	};
	const struct tu_test cli_tests[] = {
		{ cli_eval_nashconv_three_players, 1 },
	};

	TU_TCASE(s, "exact", 60, exact_tests);
	TU_TCASE(s, "cli", 60, cli_tests);
	return s;
}
