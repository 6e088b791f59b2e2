/* tests/check_envs.c: the game interface, registry and rules of each game
 * (legal moves, chance, terminal returns), determinism under a seed,
 * truncation and the timing game's jitter. */
#include <check.h>
#include <time.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "envs/env_internal.h"

#define TEST_STATE_MAX 256 /* the built-in games' states are smaller */
#include "tests/testutil.h"
#include "util/util.h"

static void opts_2x2(struct env_opts *o)
{
	env_opts_default(o);
	o->matrix.rows = o->matrix.cols = 2;
	o->matrix.v[0][0] = 3;
	o->matrix.v[0][1] = o->matrix.v[1][0] = -2;
	o->matrix.v[1][1] = 1;
	o->timing.reset_s = o->timing.step_s = 0;
	o->timing.episode_len = 20;
}

static env *make(const char *name)
{
	struct env_opts o;

	opts_2x2(&o);
	return tu_env_open(name, &o);
}

START_TEST(registry_lists_every_game)
{
	static const char *const want[] = { "rps",	  "matrix",
					    "kuhn",	  "leduc",
					    "leduc_short", "tictactoe",
					    "connect4",	  "timing",
					    "liars_dice",  "tiny_hanabi",
					    "tiny_whist", "sheriff", "othello" };
	char err[128];
	env *e;

	ck_assert_uint_eq(env_count(), LG_ARRAY_LEN(want));
	for (size_t i = 0; i < env_count(); i++) {
		struct env_spec s;
		const char *sum;
		ck_assert_int_eq(env_info(i, &s, &sum), 0);
		ck_assert_str_eq(s.name, want[i]);
		ck_assert(sum && *sum);
		/* tiny_whist: two teams of two */
		ck_assert_int_eq(s.players,
				 strcmp(want[i], "tiny_whist") ? 2 : 4);
		ck_assert(s.obs_len > 0 && s.num_actions > 0 &&
			  s.num_actions <= ENV_GAME_ACTIONS_MAX &&
			  s.max_steps > 0);
		e = make(want[i]);
		if (strcmp(want[i], "matrix")) {
			ck_assert_uint_eq(env_spec_of(e)->obs_len, s.obs_len);
			ck_assert_int_eq(env_spec_of(e)->num_actions,
					 s.num_actions);
		}
		env_free(e);
	}
	ck_assert_int_eq(env_info(env_count(), NULL, NULL), LG_ERANGE);
	ck_assert_int_eq(env_new(&e, "chess", NULL, err, sizeof err),
			 LG_ENOTFOUND);
	ck_assert_ptr_null(e);
	ck_assert_ptr_nonnull(strstr(err, "chess"));
	/* matrix needs its payoff */
	ck_assert_int_eq(env_new(&e, "matrix", NULL, err, sizeof err),
			 LG_EINVAL);
	env_free(NULL);
}
END_TEST

/* Play one episode with actions from rng; fold everything observable
 * into a CRC so two runs can be compared bit for bit. */
static uint32_t play(env *e, uint64_t seed, lg_rng *r, double *ret)
{
	const struct env_spec *s = env_spec_of(e);
	float *obs = malloc(s->obs_len * sizeof *obs);
	uint8_t *mask = malloc((size_t)s->num_actions);
	uint32_t crc = 0;
	int p;

	ck_assert(obs && mask);
	env_reset(e, seed);
	while ((p = env_current_player(e)) != ENV_TERMINAL) {
		int acts[ENV_MAX_PLAYERS];
		ck_assert_uint_lt(env_steps(e), s->max_steps);
		for (int q = 0; q < s->players; q++) {
			const struct env_seat *sq = &s->seat[q];
			int n = env_legal(e, q, mask);
			ck_assert_int_eq(env_observe(e, q, obs), 0);
			/* one assertion per vector: check logs every
			 * passing assertion, which costs a write each */
			int in01 = 1;
			for (size_t i = 0; i < sq->obs_len; i++)
				in01 &= obs[i] >= 0 && obs[i] <= 1;
			ck_assert(in01);
			crc = lg_crc32c(crc, obs, sq->obs_len * sizeof *obs);
			crc = lg_crc32c(crc, mask, (size_t)sq->num_actions);
			if (p != ENV_SIMULTANEOUS && q != p) {
				ck_assert_int_eq(n, 0);
				continue;
			}
			ck_assert_int_gt(n, 0);
			/* an illegal action is refused, state unchanged */
			int refused = 1;
			for (int a = 0; a < sq->num_actions; a++)
				if (!mask[a] && p != ENV_SIMULTANEOUS)
					refused &= env_step(e, a) == LG_EINVAL;
			ck_assert(refused);
			ck_assert_int_eq(env_step(e, sq->num_actions),
					 LG_EINVAL);
			do
				acts[q] = (int)lg_rng_below(
					r, (uint64_t)sq->num_actions);
			while (!mask[acts[q]]);
		}
		if (p == ENV_SIMULTANEOUS) {
			ck_assert_int_eq(env_step(e, acts[0]), LG_EINVAL);
			ck_assert_int_eq(env_step_joint(e, acts), 0);
		} else {
			ck_assert_int_eq(env_step_joint(e, acts), LG_EINVAL);
			ck_assert_int_eq(env_step(e, acts[p]), 0);
		}
	}
	ck_assert(env_is_terminal(e));
	ck_assert_int_eq(env_step(e, 0), LG_EINVAL);
	ck_assert_int_eq(env_legal(e, 0, mask), 0);
	env_returns(e, ret);
	/* as the game declares (the built-ins: zero-, general-sum or
	 * common payoff), one return per team */
	double sum = 0;
	for (int q = 0; q < s->players; q++) {
		sum += ret[q];
		for (int k = 0; k < q; k++)
			if (s->seat[k].team == s->seat[q].team)
				ck_assert(ret[k] == ret[q]);
	}
	if (s->payoff == ENV_ZERO_SUM)
		ck_assert_double_eq_tol(sum, 0, 1e-12);
	else
		ck_assert(s->payoff == ENV_COMMON_PAYOFF ||
			  s->payoff == ENV_GENERAL_SUM);
	crc = lg_crc32c(crc, ret, (size_t)s->players * sizeof *ret);
	free(obs);
	free(mask);
	return crc;
}

START_TEST(random_play_invariants_and_determinism)
{
	for (size_t g = 0; g < env_count(); g++) {
		struct env_spec s;
		env_info(g, &s, NULL);
		env *e = make(s.name), *f = make(s.name);
		int differs = 0;
		for (uint64_t seed = 1; seed <= 60; seed++) {
			lg_rng r1, r2;
			double a[ENV_MAX_PLAYERS], b[ENV_MAX_PLAYERS];
			lg_rng_seed(&r1, seed * 7);
			r2 = r1;
			uint32_t c1 = play(e, seed, &r1, a);
			uint32_t c2 = play(f, seed, &r2, b);
			ck_assert_msg(c1 == c2, "%s: seed %llu not "
				      "deterministic", s.name,
				      (unsigned long long)seed);
			lg_rng_seed(&r2, seed * 7 + 1);
			differs |= c1 != play(f, seed + 1000, &r2, b);
		}
		ck_assert_msg(differs, "%s: every episode identical", s.name);
		ck_assert_int_eq(env_observe(e, s.players, NULL), LG_EINVAL);
		ck_assert_int_eq(env_legal(e, -1, NULL), LG_EINVAL);
		env_free(e);
		env_free(f);
	}
}
END_TEST

START_TEST(kuhn_deal_is_uniform)
{
	/* 6 ordered deals, 6000 resets: chi-square with 5 degrees of
	 * freedom, 0.999 quantile 20.52; the seed fixes the outcome. */
	enum { N = 6000 };
	env *e = make("kuhn");
	long count[3][3] = { { 0 } };
	float obs[11];
	double chi = 0;

	for (uint64_t i = 0; i < N; i++) {
		int c[2] = { -1, -1 };
		env_reset(e, 1000 + i);
		for (int p = 0; p < 2; p++) {
			env_observe(e, p, obs);
			ck_assert(obs[p] == 1 && obs[1 - p] == 0);
			for (int k = 0; k < 3; k++)
				if (obs[2 + k] == 1)
					c[p] = k;
		}
		ck_assert(c[0] >= 0 && c[1] >= 0 && c[0] != c[1]);
		count[c[0]][c[1]]++;
	}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (i != j)
				chi += (count[i][j] - N / 6.0) *
				       (count[i][j] - N / 6.0) / (N / 6.0);
	ck_assert_double_lt(chi, 20.52);
	env_free(e);
}
END_TEST

/* White-box: drive a game's state functions with chosen chance outcomes. */
/* g's instance made by its create() with no params (free with
 * g->destroy). */
static void *game_inst(const struct league_game *g)
{
	struct league_game_spec spec;
	char err[256];
	void *inst = NULL;

	ck_assert_msg(g->create(NULL, &inst, &spec, err, sizeof err) == 0,
		      "%s: %s", g->name, err);
	return inst;
}

/* st: g's root under inst, then the moves seq[0..n) (chance outcomes
 * included), each checked legal. */
static void play_seq(const struct league_game *g, void *inst, void *st,
		     const int *seq, int n)
{
	g->root(inst, st, NULL);
	for (int i = 0; i < n; i++) {
		int pl = g->player(inst, st);
		ck_assert_msg(pl != ENV_TERMINAL, "move %d: over", i);
		if (pl != ENV_CHANCE) {
			uint8_t m[ENV_MAX_ACTIONS] = { 0 };
			g->legal(inst, st, pl, m);
			ck_assert_msg(m[seq[i]], "move %d illegal", i);
		}
		g->apply(inst, st, seq[i], NULL);
	}
}

static void run_seq(const struct league_game *g, void *st, const int *seq,
		    int n)
{
	void *inst = game_inst(g);

	play_seq(g, inst, st, seq, n);
	g->destroy(inst);
}

static void expect_returns(const struct league_game *g, const int *seq, int n,
			   double r0)
{
	_Alignas(16) unsigned char st[TEST_STATE_MAX];
	void *inst = game_inst(g);
	double r[2];

	run_seq(g, st, seq, n);
	ck_assert_int_eq(g->player(inst, st), ENV_TERMINAL);
	g->returns(inst, st, r);
	ck_assert_double_eq(r[0], r0);
	ck_assert_double_eq(r[1], -r0);
	g->destroy(inst);
}

START_TEST(kuhn_rules)
{
	/* deal K to player 0, J to player 1; 0 pass, 1 bet */
	const int pp[] = { 2, 0, 0, 0 }, bp[] = { 2, 0, 1, 0 };
	const int bb[] = { 2, 0, 1, 1 }, pbp[] = { 2, 0, 0, 1, 0 };
	const int pbb[] = { 2, 0, 0, 1, 1 }, lose[] = { 0, 2, 1, 1 };
	_Alignas(16) unsigned char st[TEST_STATE_MAX];
	void *o;
	char key[ENV_KEY_MAX];
	int out[ENV_CHANCE_MAX];
	double p[ENV_CHANCE_MAX];

	expect_returns(&env_game_kuhn, pp, 4, 1);
	expect_returns(&env_game_kuhn, bp, 4, 1);
	expect_returns(&env_game_kuhn, bb, 4, 2);
	expect_returns(&env_game_kuhn, pbp, 5, -1);
	expect_returns(&env_game_kuhn, pbb, 5, 2);
	expect_returns(&env_game_kuhn, lose, 4, -2);
	o = game_inst(&env_game_kuhn);
	env_game_kuhn.root(o, st, NULL);
	ck_assert_int_eq(env_game_kuhn.player(o, st), ENV_CHANCE);
	ck_assert_int_eq(env_game_kuhn.chance(o, st, out, p), 3);
	ck_assert_double_eq_tol(p[0], 1.0 / 3, 1e-15);
	run_seq(&env_game_kuhn, st, pbp, 3);
	ck_assert_int_eq(env_game_kuhn.player(o, st), 1);
	env_game_kuhn.infostate(o, st, 1, key, sizeof key);
	ck_assert_str_eq(key, "Jp");
	env_game_kuhn.infostate(o, st, 0, key, sizeof key);
	ck_assert_str_eq(key, "Kp");
	env_game_kuhn.destroy(o);
}
END_TEST

START_TEST(leduc_rules)
{
	enum { F = 0, C = 1, R = 2 };
	/* cards: 0,1 J; 2,3 Q; 4,5 K. p0 K, p1 J, public J: p1 pairs. */
	const int cc_cc[] = { 4, 0, C, C, 1, C, C };
	const int rc_rc[] = { 4, 0, R, C, 1, R, C };
	const int max[] = { 4, 0, R, R, C, 1, R, R, C };
	const int rf[] = { 4, 0, R, F };
	const int crf[] = { 4, 0, C, R, F };
	const int crc_crrf[] = { 4, 0, C, R, C, 1, C, R, R, F };
	/* p0 Q, p1 Q (other suit), public K: split */
	const int tie[] = { 2, 3, R, C, 4, C, C };
	/* p0 K, p1 Q, public J: high card K wins */
	const int high[] = { 4, 2, C, C, 0, R, C };
	_Alignas(16) unsigned char st[TEST_STATE_MAX];
	void *o;
	uint8_t m[3];
	char key[ENV_KEY_MAX];
	int out[ENV_CHANCE_MAX];
	double p[ENV_CHANCE_MAX];

	expect_returns(&env_game_leduc, cc_cc, 7, -1);
	expect_returns(&env_game_leduc, rc_rc, 7, -7);
	expect_returns(&env_game_leduc, max, 9, -13);
	expect_returns(&env_game_leduc, rf, 4, 1);
	expect_returns(&env_game_leduc, crf, 5, -1);
	expect_returns(&env_game_leduc, crc_crrf, 10, 3 + 4);
	expect_returns(&env_game_leduc, tie, 7, 0);
	expect_returns(&env_game_leduc, high, 7, 5);

	o = game_inst(&env_game_leduc);
	run_seq(&env_game_leduc, st, max, 2);
	/* no bet to face: no fold; raise allowed */
	ck_assert_int_eq(env_game_leduc.legal(o, st, 0, m), 2);
	ck_assert(!m[F] && m[C] && m[R]);
	run_seq(&env_game_leduc, st, max, 3);
	ck_assert_int_eq(env_game_leduc.legal(o, st, 1, m), 3);
	run_seq(&env_game_leduc, st, max, 4);
	/* two raises: fold or call only */
	ck_assert_int_eq(env_game_leduc.legal(o, st, 0, m), 2);
	ck_assert(m[F] && m[C] && !m[R]);
	run_seq(&env_game_leduc, st, max, 5);
	/* public card: 4 cards left, 1/4 each */
	ck_assert_int_eq(env_game_leduc.player(o, st), ENV_CHANCE);
	ck_assert_int_eq(env_game_leduc.chance(o, st, out, p), 4);
	ck_assert_double_eq(p[3], 0.25);
	run_seq(&env_game_leduc, st, max, 7);
	ck_assert_int_eq(env_game_leduc.player(o, st), 1);
	env_game_leduc.infostate(o, st, 1, key, sizeof key);
	ck_assert_str_eq(key, "JJ:rrc/r");
	env_game_leduc.infostate(o, st, 0, key, sizeof key);
	ck_assert_str_eq(key, "KJ:rrc/r");
	env_game_leduc.destroy(o);
}
END_TEST

/* g (kuhn or leduc) with env.params players = np, its state after the
 * moves seq[0..n) (chance outcomes included), into st; *inst made. */
static void poker_run(const struct league_game *g, int np, void **inst,
		      void *st, const int *seq, int n)
{
	const char *keys[] = { "players" };
	char v[8];
	const char *vals[] = { v };
	struct league_game_params prm = { 1, keys, vals, NULL };
	struct league_game_spec spec;
	char err[256];

	snprintf(v, sizeof v, "%d", np);
	ck_assert_msg(g->create(&prm, inst, &spec, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_uint_eq(spec.players, (unsigned)np);
	play_seq(g, *inst, st, seq, n);
}

/* Play seq on g with np players to its end; returns into r. */
static void poker_returns(const struct league_game *g, int np,
			  const int *seq, int n, double *r)
{
	_Alignas(16) unsigned char st[TEST_STATE_MAX];
	void *inst;

	poker_run(g, np, &inst, st, seq, n);
	ck_assert_int_eq(g->player(inst, st), ENV_TERMINAL);
	g->returns(inst, st, r);
	g->destroy(inst);
}

#define EXPECT3(r, a, b, c)                                    \
	do {                                                   \
		ck_assert_double_eq((r)[0], a);                \
		ck_assert_double_eq((r)[1], b);                \
		ck_assert_double_eq((r)[2], c);                \
	} while (0)

/* Three-player Kuhn (cards T J Q K = 0..3) and Leduc (T T J J Q Q K K =
 * 0..7), by the rules of docs/envs.md, on hands dealt by hand. */
START_TEST(poker_three_players)
{
	enum { F = 0, C = 1, R = 2 };
	/* Kuhn: p0 K, p1 T, p2 J; 0 pass, 1 bet */
	const int ppp[] = { 3, 0, 1, 0, 0, 0 };
	const int pbpp[] = { 3, 0, 1, 0, 1, 0, 0 };
	const int bbb[] = { 3, 0, 1, 1, 1, 1 };
	const int pbbp[] = { 3, 0, 1, 0, 1, 1, 0 };
	/* Leduc: p0 K, p1 T, p2 J */
	const int ccc_t_ccc[] = { 6, 0, 2, C, C, C, 1, C, C, C };
	const int rff[] = { 6, 0, 2, R, F, F };
	const int rcf_q_cc[] = { 6, 0, 2, R, C, F, 4, C, C };
	/* p0 K, p1 K, p2 T; public J: the kings split */
	const int tie[] = { 6, 7, 0, C, C, C, 2, C, C, C };
	_Alignas(16) unsigned char st[TEST_STATE_MAX];
	char key[ENV_KEY_MAX];
	uint8_t m[3];
	double r[3];
	void *inst;

	poker_returns(&env_game_kuhn, 3, ppp, 6, r);
	EXPECT3(r, 2, -1, -1);
	poker_returns(&env_game_kuhn, 3, pbpp, 7, r);
	EXPECT3(r, -1, 2, -1);
	poker_returns(&env_game_kuhn, 3, bbb, 6, r);
	EXPECT3(r, 4, -2, -2);
	poker_returns(&env_game_kuhn, 3, pbbp, 7, r);
	EXPECT3(r, -1, -2, 3);
	/* after p b b, p0 answers; its key names its card and the moves */
	poker_run(&env_game_kuhn, 3, &inst, st, pbbp, 6);
	ck_assert_int_eq(env_game_kuhn.player(inst, st), 0);
	env_game_kuhn.infostate(inst, st, 0, key, sizeof key);
	ck_assert_str_eq(key, "Kpbb");
	env_game_kuhn.infostate(inst, st, 2, key, sizeof key);
	ck_assert_str_eq(key, "Jpbb");
	env_game_kuhn.destroy(inst);

	poker_returns(&env_game_leduc, 3, ccc_t_ccc, 10, r);
	EXPECT3(r, -1, 2, -1);
	poker_returns(&env_game_leduc, 3, rff, 6, r);
	EXPECT3(r, 2, -1, -1);
	poker_returns(&env_game_leduc, 3, rcf_q_cc, 9, r);
	EXPECT3(r, 4, -3, -1);
	poker_returns(&env_game_leduc, 3, tie, 10, r);
	EXPECT3(r, 0.5, 0.5, -1);
	/* facing a raise p1 may fold; p2 folded, so round 2 skips it */
	poker_run(&env_game_leduc, 3, &inst, st, rcf_q_cc, 4);
	ck_assert_int_eq(env_game_leduc.legal(inst, st, 1, m), 3);
	env_game_leduc.destroy(inst);
	poker_run(&env_game_leduc, 3, &inst, st, rcf_q_cc, 6);
	ck_assert_int_eq(env_game_leduc.player(inst, st), ENV_CHANCE);
	ck_assert_int_eq(env_game_leduc.chance(inst, st, (int[64]){ 0 },
					       (double[64]){ 0 }), 5);
	env_game_leduc.apply(inst, st, 4, NULL);
	ck_assert_int_eq(env_game_leduc.player(inst, st), 0);
	env_game_leduc.apply(inst, st, C, NULL);
	ck_assert_int_eq(env_game_leduc.player(inst, st), 1);
	env_game_leduc.infostate(inst, st, 1, key, sizeof key);
	ck_assert_str_eq(key, "TQ:rcf/c");
	env_game_leduc.destroy(inst);
}
END_TEST

/* The text hooks: what a seat sees, and each move named as the situation
 * names it (check or bet before a bet, fold or call after one, raise
 * over a bet). */
START_TEST(poker_text_hooks)
{
	enum { F = 0, C = 1, R = 2 };
	const int pb[] = { 3, 0, 1, 0, 1 };        /* kuhn: K T J; p b */
	const int rcf_q_c[] = { 6, 0, 2, R, C, F, 4, C };
	const int over[] = { 6, 0, 2, R, F, F };
	_Alignas(16) unsigned char st[TEST_STATE_MAX];
	char text[LEAGUE_GAME_TEXT_MAX], name[LEAGUE_GAME_NAME_MAX];
	const struct league_game *k = &env_game_kuhn, *l = &env_game_leduc;
	void *inst;

	poker_run(k, 3, &inst, st, pb, 3);
	k->action_name(inst, st, 0, 0, name, sizeof name);
	ck_assert_str_eq(name, "check");
	k->action_name(inst, st, 0, 1, name, sizeof name);
	ck_assert_str_eq(name, "bet");
	k->apply(inst, st, 0, NULL);
	k->apply(inst, st, 1, NULL);
	k->action_name(inst, st, 2, 0, name, sizeof name);
	ck_assert_str_eq(name, "fold");
	k->action_name(inst, st, 2, 1, name, sizeof name);
	ck_assert_str_eq(name, "call");
	k->describe(inst, st, 2, text, sizeof text);
	ck_assert_str_eq(text, "kuhn poker, 3 players: you are seat 2\n"
			 "your card: J\npot: 4 (you put in 1)\n"
			 "moves: seat0 check, seat1 bet");
	k->apply(inst, st, 1, NULL); /* seat 2 calls, seat 0 folds */
	k->apply(inst, st, 0, NULL);
	k->describe(inst, st, 1, text, sizeof text);
	ck_assert_msg(strstr(text, "moves: seat0 check, seat1 bet, seat2 "
			     "call, seat0 fold\nhand over: your return -2"),
		      "%s", text);
	k->destroy(inst);

	poker_run(l, 3, &inst, st, rcf_q_c, 8);
	l->describe(inst, st, 1, text, sizeof text);
	ck_assert_str_eq(text, "leduc poker, 3 players: you are seat 1\n"
			 "your card: T\npublic card: Q\n"
			 "pot: 7 (you put in 3)\n"
			 "round 1: seat0 bet, seat1 call, seat2 fold\n"
			 "round 2: seat0 check");
	l->action_name(inst, st, 1, C, name, sizeof name);
	ck_assert_str_eq(name, "check");
	l->action_name(inst, st, 1, R, name, sizeof name);
	ck_assert_str_eq(name, "bet");
	l->apply(inst, st, R, NULL);
	l->action_name(inst, st, 0, F, name, sizeof name);
	ck_assert_str_eq(name, "fold");
	l->action_name(inst, st, 0, C, name, sizeof name);
	ck_assert_str_eq(name, "call");
	l->action_name(inst, st, 0, R, name, sizeof name);
	ck_assert_str_eq(name, "raise");
	l->destroy(inst);
	poker_run(l, 3, &inst, st, over, 6);
	l->describe(inst, st, 2, text, sizeof text);
	ck_assert_str_eq(text, "leduc poker, 3 players: you are seat 2\n"
			 "your card: J\npublic card: not dealt yet\n"
			 "pot: 5 (you put in 1, folded)\n"
			 "round 1: seat0 bet, seat1 fold, seat2 fold\n"
			 "hand over: your return -1");
	l->destroy(inst);
}
END_TEST

/* Liar's Dice's text: a seat's die and the bids, named QxF and liar;
 * once a seat called, both dice and the result. */
START_TEST(liars_dice_text_hooks)
{
	const struct league_game *g = &env_game_liars_dice;
	struct league_game_spec spec;
	_Alignas(16) unsigned char st[TEST_STATE_MAX];
	char text[LEAGUE_GAME_TEXT_MAX], name[LEAGUE_GAME_NAME_MAX], err[128];
	void *inst = NULL;

	ck_assert_int_eq(g->create(NULL, &inst, &spec, err, sizeof err), 0);
	g->root(inst, st, NULL);
	g->describe(inst, st, 1, text, sizeof text);
	ck_assert_str_eq(text, "liar's dice, one die each (faces 1..6): you "
			 "are seat 1\nyour die: not rolled yet\nbids: none "
			 "yet");
	g->apply(inst, st, 2, NULL); /* seat 0 rolls a 3, seat 1 a 5 */
	g->apply(inst, st, 4, NULL);
	g->action_name(inst, st, 0, 2, name, sizeof name);
	ck_assert_str_eq(name, "1x3");
	g->action_name(inst, st, 0, 11, name, sizeof name);
	ck_assert_str_eq(name, "2x6");
	g->action_name(inst, st, 0, 12, name, sizeof name);
	ck_assert_str_eq(name, "liar");
	g->apply(inst, st, 2, NULL);  /* 1x3 */
	g->apply(inst, st, 10, NULL); /* 2x5 */
	g->describe(inst, st, 0, text, sizeof text);
	ck_assert_str_eq(text, "liar's dice, one die each (faces 1..6): you "
			 "are seat 0\nyour die: 3\nbids: seat0 1x3, seat1 "
			 "2x5");
	g->apply(inst, st, 12, NULL); /* seat 0 calls: one 5, not two */
	g->describe(inst, st, 1, text, sizeof text);
	ck_assert_str_eq(text, "liar's dice, one die each (faces 1..6): you "
			 "are seat 1\nyour die: 5\nbids: seat0 1x3, seat1 "
			 "2x5, seat0 liar\ndice: seat0 3, seat1 5\nhand over: "
			 "your return -1");
	g->destroy(inst);
}
END_TEST

START_TEST(board_rules)
{
	const int row[] = { 0, 3, 1, 4, 2 };    /* X takes the top row */
	const int draw[] = { 0, 1, 2, 4, 3, 5, 7, 6, 8 };
	const int col_win[] = { 3, 4, 3, 4, 3, 4, 3 }; /* vertical */
	const int hor[] = { 0, 0, 1, 1, 2, 2, 3 };     /* horizontal */
	/* rising diagonal (0,0) (1,1) (2,2) (3,3) for player 0 */
	const int diag[] = { 0, 1, 1, 2, 3, 2, 2, 3, 6, 3, 3 };
	_Alignas(16) unsigned char st[TEST_STATE_MAX];
	struct env_opts o;
	uint8_t m[ENV_MAX_ACTIONS];
	float obs[27];

	expect_returns(&env_game_tictactoe, row, 5, 1);
	expect_returns(&env_game_tictactoe, draw, 9, 0);
	expect_returns(&env_game_connect4, col_win, 7, 1);
	expect_returns(&env_game_connect4, hor, 7, 1);
	expect_returns(&env_game_connect4, diag, 11, 1);
	env_opts_default(&o);
	run_seq(&env_game_tictactoe, st, row, 2);
	ck_assert_int_eq(env_game_tictactoe.legal(&o, st, 0, m), 7);
	ck_assert(!m[0] && !m[3] && m[1]);
	/* player 1's view: own plane has cell 3, opponent plane cell 0 */
	env_game_tictactoe.observe(&o, st, 1, obs);
	ck_assert(obs[3] == 1 && obs[9 + 0] == 1 && obs[18 + 4] == 1);
	ck_assert(obs[0] == 0 && obs[18 + 0] == 0);
	/* a full column is illegal */
	const int full[] = { 0, 0, 0, 0, 0, 0 };
	run_seq(&env_game_connect4, st, full, 6);
	ck_assert_int_eq(env_game_connect4.legal(&o, st, 0, m), 6);
	ck_assert(!m[0] && m[1]);
}
END_TEST

START_TEST(matrix_joint_step_and_payoff)
{
	env *e = make("matrix");
	int acts[2] = { 0, 1 }, bad[2] = { 2, 0 };
	double r[2];
	struct env_opts o;
	char err[256];

	ck_assert_int_eq(env_current_player(e), ENV_SIMULTANEOUS);
	ck_assert_int_eq(env_spec_of(e)->num_actions, 2);
	ck_assert_int_eq(env_step_joint(e, bad), LG_EINVAL);
	ck_assert_int_eq(env_step_joint(e, acts), 0);
	ck_assert_int_eq(env_current_player(e), ENV_TERMINAL);
	env_returns(e, r);
	ck_assert_double_eq(r[0], -2);
	ck_assert_double_eq(r[1], 2);
	env_free(e);

	/* a 2x3 game: the row player has 2 actions, the column player 3 */
	opts_2x2(&o);
	o.matrix.cols = 3;
	ck_assert_int_eq(env_new(&e, "matrix", &o, err, sizeof err), 0);
	uint8_t m[3];
	ck_assert_int_eq(env_legal(e, 0, m), 2);
	ck_assert(!m[2]);
	ck_assert_int_eq(env_legal(e, 1, m), 3);
	env_free(e);
	o.matrix.rows = 17;
	ck_assert_int_eq(env_new(&e, "matrix", &o, err, sizeof err),
			 LG_EINVAL);
	o.matrix.rows = 2;
	o.matrix.v[1][1] = NAN;
	ck_assert_int_eq(env_new(&e, "matrix", &o, err, sizeof err),
			 LG_ERANGE);
}
END_TEST

START_TEST(max_steps_truncates_as_draw)
{
	struct env_opts o;
	char err[128];
	env *e;
	double r[2] = { 9, 9 };

	opts_2x2(&o);
	o.max_steps = 5;
	ck_assert_int_eq(env_new(&e, "connect4", &o, err, sizeof err), 0);
	ck_assert_uint_eq(env_spec_of(e)->max_steps, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(env_step(e, i % 2), 0);
	ck_assert(env_is_terminal(e));
	ck_assert_int_eq(env_step(e, 3), LG_EINVAL);
	env_returns(e, r);
	ck_assert(r[0] == 0 && r[1] == 0);
	env_reset(e, 2);
	ck_assert(!env_is_terminal(e));
	env_free(e);
}
END_TEST

START_TEST(timing_jitter_and_sleep)
{
	/* Episode length U[0.4, 1.6] x 50 over 400 resets: every length in
	 * [20, 80], mean 50 with sd 34.6/sqrt(12)/sqrt(400) ~= 0.5; allow
	 * 3 (6 sd). Reset sleeps 1..4 ms: 20 resets take 20..80 ms. */
	struct env_opts o;
	char err[128];
	env *e;
	double sum = 0, t0, dt;
	uint64_t lo = UINT64_MAX, hi = 0;
	float obs[8];

	env_opts_default(&o);
	o.timing.reset_s = 0;
	o.timing.step_s = 0;
	o.timing.episode_len = 50;
	o.timing.obs_len = 8;
	ck_assert_int_eq(env_new(&e, "timing", &o, err, sizeof err), 0);
	ck_assert_uint_eq(env_spec_of(e)->max_steps, 80);
	ck_assert_uint_eq(env_spec_of(e)->obs_len, 8);
	ck_assert_double_eq(env_infer_s(e), 0.004);
	for (uint64_t s = 0; s < 400; s++) {
		uint64_t n = 0;
		env_reset(e, s);
		while (!env_is_terminal(e)) {
			ck_assert_int_eq(env_observe(e, (int)(n % 2), obs), 0);
			ck_assert_int_eq(env_step(e, (int)(n % 3 == 0)), 0);
			n++;
		}
		lo = LG_MIN(lo, n);
		hi = LG_MAX(hi, n);
		sum += (double)n;
	}
	ck_assert_uint_ge(lo, 20);
	ck_assert_uint_le(hi, 80);
	ck_assert_double_lt(fabs(sum / 400 - 50), 3);
	env_free(e);

	o.timing.reset_s = 0.0025;
	ck_assert_int_eq(env_new(&e, "timing", &o, err, sizeof err), 0);
	dt = 0;
	{
		double fastest = 1e9;
		for (uint64_t s = 0; s < 20; s++) {
			t0 = lg_now_s();
			env_reset(e, s);
			t0 = lg_now_s() - t0;
			dt += t0;
			fastest = LG_MIN(fastest, t0);
		}
		/* Each reset sleeps its jitter (at least 1 ms, at most 4);
		 * a busy machine only oversleeps, so the total has a floor,
		 * and the fastest of 20 resets (one not preempted) stays
		 * under 4 ms plus 2 ms of wake-up slack: a ceiling that holds
		 * beside other work, where the total's did not (0.18 s
		 * under stress-ng --cpu 2 and a test run). */
		ck_assert_double_ge(dt, 20 * 0.001);
		ck_assert_double_lt(fastest, 0.004 + 0.002);
	}
	env_free(e);

	/* timing.burn: the same resets cost CPU time of this thread. */
	{
		struct timespec a, b;
		o.timing.burn = 1;
		ck_assert_int_eq(env_new(&e, "timing", &o, err, sizeof err), 0);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		for (uint64_t s = 0; s < 20; s++)
			env_reset(e, s);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		double cpu = (double)(b.tv_sec - a.tv_sec) +
			     (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
		ck_assert_double_ge(cpu, 20 * 0.001);
		ck_assert_double_lt(cpu, 20 * 0.004 + 0.01);
		env_free(e);
		o.timing.burn = 0;
	}

	o.timing.jitter_lo = 2;
	ck_assert_int_eq(env_new(&e, "timing", &o, err, sizeof err),
			 LG_ERANGE);
	o.timing.jitter_lo = 0.4;
	o.timing.obs_len = 0;
	ck_assert_int_eq(env_new(&e, "timing", &o, err, sizeof err),
			 LG_ERANGE);
}
END_TEST

Suite *suite_envs(void)
{
	Suite *s = suite_create("envs");
	const struct tu_test core_tests[] = {
		{ registry_lists_every_game, 1 },
		{ random_play_invariants_and_determinism, 1 },
		{ kuhn_deal_is_uniform, 1 },
		{ kuhn_rules, 1 },
		{ leduc_rules, 1 },
		{ poker_three_players, 1 },
		{ poker_text_hooks, 1 },
		{ liars_dice_text_hooks, 1 },
		{ board_rules, 1 },
		{ matrix_joint_step_and_payoff, 1 },
		{ max_steps_truncates_as_draw, 1 },
		{ timing_jitter_and_sleep, 1 },
	};

	/* Pure computation, but under ASan on a busy machine the default 4 s
	 * is a wall-clock budget, not a deadline. */
	TU_TCASE(s, "core", 60, core_tests);
	return s;
}
