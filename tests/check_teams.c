/*
 * tests/check_teams.c: the built-in games of more than one seat per team
 * (game ABI v2): tiny_hanabi (envs/hanabi.c, both seats one team, common
 * payoff) and tiny_whist (envs/whist.c, two teams of two, zero-sum).
 *
 * The rules are checked by driving each game's table directly (chance
 * outcomes chosen by hand, documented outcomes), every terminal of the
 * two games is walked for the payoff invariants, and tiny Hanabi's
 * optimum is computed twice: by enumerating every joint deterministic
 * policy over the game's own infostates here, and by the reference
 * tests/ref/hanabi_opt.py, written apart from envs/ from OpenSpiel's
 * payoff string; both must say 10.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envs/env.h"
#include "envs/env_internal.h"
#include "tests/testutil.h"

#define ST_MAX 64

static void *open_game(const struct league_game *g,
		       struct league_game_spec *spec)
{
	char err[256];
	void *inst = NULL;

	memset(spec, 0, sizeof *spec);
	ck_assert_msg(g->create(NULL, &inst, spec, err, sizeof err) == 0,
		      "%s: %s", g->name, err);
	ck_assert_uint_le(spec->state_size, ST_MAX);
	return inst;
}

/* Both games take no params, and say which key they refused. */
static void refuses_params(const struct league_game *g)
{
	const char *keys[1] = { "faces" }, *vals[1] = { "3" };
	struct league_game_params p = { 1, keys, vals, NULL };
	struct league_game_spec spec;
	char err[256] = "";
	void *inst = NULL;

	ck_assert_int_ne(g->create(&p, &inst, &spec, err, sizeof err), 0);
	ck_assert_msg(strstr(err, "env.params: 'faces'") &&
		      strstr(err, g->name), "%s", err);
}

/* ---- a small self-contained walker over a game's table ----------------- */

/* Infostates met while walking: key -> index, with the seat, legal mask
 * and observation seen first (each later sighting must match). */
#define WK_INFO_MAX 8192
#define WK_OBS_MAX 64
struct walk {
	const struct league_game *g;
	void *inst;
	struct league_game_spec spec;
	int n;
	char key[WK_INFO_MAX][48];
	int8_t seat[WK_INFO_MAX];
	uint8_t mask[WK_INFO_MAX][16];
	float obs[WK_INFO_MAX][WK_OBS_MAX];
	long terminals, deals;
};

static int wk_info(struct walk *w, const void *st, int seat)
{
	char key[LEAGUE_GAME_KEY_MAX];
	uint8_t mask[16] = { 0 };
	float obs[WK_OBS_MAX] = { 0 };
	int i;

	w->g->infostate(w->inst, st, seat, key, sizeof key);
	ck_assert_uint_lt(strlen(key), sizeof w->key[0]);
	w->g->legal(w->inst, st, seat, mask);
	w->g->observe(w->inst, st, seat, obs);
	for (i = 0; i < w->n; i++)
		if (!strcmp(w->key[i], key))
			break;
	if (i == w->n) {
		ck_assert_int_lt(w->n, WK_INFO_MAX);
		memcpy(w->key[i], key, strlen(key) + 1); /* fits: above */
		w->seat[i] = (int8_t)seat;
		memcpy(w->mask[i], mask, sizeof mask);
		memcpy(w->obs[i], obs, sizeof obs);
		w->n++;
		return i;
	}
	/* one key: one seat, one mask, one observation */
	ck_assert_msg(w->seat[i] == seat && !memcmp(w->mask[i], mask,
						   sizeof mask) &&
		      !memcmp(w->obs[i], obs, sizeof obs),
		      "%s: infostate %s seen with different seat, mask or "
		      "observation", w->g->name, key);
	return i;
}

/* Every state below st: each terminal's returns go to check(), weighted
 * by the chance probability prob; policy (NULL: walk every action) maps
 * an infostate index to the action taken. Returns the expected returns of
 * seat 0 under policy (or their plain sum over terminals without one). */
static double wk_walk(struct walk *w, const void *st, double prob,
		      const int *policy,
		      void (*check)(struct walk *, const void *, double *))
{
	unsigned char child[ST_MAX];
	int pl = w->g->player(w->inst, st), acts[LEAGUE_GAME_CHANCE_MAX];
	double probs[LEAGUE_GAME_CHANCE_MAX], v = 0, psum = 0;
	uint8_t mask[16];
	int n;

	if (pl == LEAGUE_GAME_TERMINAL) {
		double r[LEAGUE_GAME_PLAYERS_MAX];
		w->g->returns(w->inst, st, r);
		w->terminals++;
		if (check)
			check(w, st, r);
		return prob * r[0];
	}
	if (pl == LEAGUE_GAME_CHANCE) {
		n = w->g->chance(w->inst, st, acts, probs);
		ck_assert(n >= 1 && n <= LEAGUE_GAME_CHANCE_MAX);
		for (int i = 0; i < n; i++) {
			psum += probs[i];
			memcpy(child, st, w->spec.state_size);
			w->g->apply(w->inst, child, acts[i], NULL);
			v += wk_walk(w, child, prob * probs[i], policy, check);
		}
		ck_assert_double_eq_tol(psum, 1, 1e-12);
		return v;
	}
	ck_assert(pl >= 0 && pl < (int)w->spec.players);
	int info = wk_info(w, st, pl);
	n = w->g->legal(w->inst, st, pl, mask);
	ck_assert_int_ge(n, 1);
	for (int s = 0; s < (int)w->spec.players; s++) {
		uint8_t other[16];
		if (s != pl)
			ck_assert_int_eq(w->g->legal(w->inst, st, s, other), 0);
	}
	for (int a = 0; a < (int)w->spec.seat[pl].num_actions; a++) {
		if (!mask[a] || (policy && policy[info] != a))
			continue;
		memcpy(child, st, w->spec.state_size);
		w->g->apply(w->inst, child, a, NULL);
		v += wk_walk(w, child, prob, policy, check);
	}
	return v;
}

static void wk_open(struct walk *w, const struct league_game *g)
{
	memset(w, 0, sizeof *w);
	w->g = g;
	w->inst = open_game(g, &w->spec);
}

static double wk_root(struct walk *w, const int *policy,
		      void (*check)(struct walk *, const void *, double *))
{
	unsigned char st[ST_MAX];

	w->g->root(w->inst, st, NULL);
	return wk_walk(w, st, 1, policy, check);
}

/* Drive st through seq (chance outcomes and actions alike). */
static void run_seq(const struct league_game *g, const void *inst, void *st,
		    const int *seq, int n)
{
	for (int i = 0; i < n; i++)
		g->apply(inst, st, seq[i], NULL);
}

/* ---- tiny Hanabi ------------------------------------------------------- */

START_TEST(tiny_hanabi_rules)
{
	const struct league_game *g = &env_game_tiny_hanabi;
	struct league_game_spec spec;
	void *inst = open_game(g, &spec);
	unsigned char st[ST_MAX];
	uint8_t mask[3];
	float obs[10];
	double r[2];
	char key[64], text[LEAGUE_GAME_TEXT_MAX];
	const float want1[10] = { 0, 1, 0, 1, 0, 0, 1, 0, 0, 0 };

	refuses_params(g);
	ck_assert_uint_eq(spec.players, 2);
	ck_assert_uint_eq(spec.payoff, LEAGUE_GAME_COMMON_PAYOFF);
	ck_assert_uint_eq(spec.teams, 1);
	ck_assert_uint_eq(spec.flags, LEAGUE_GAME_HAS_CHANCE);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(spec.seat[i].obs_len, 10);
		ck_assert_uint_eq(spec.seat[i].num_actions, 3);
		ck_assert_uint_eq(spec.seat[i].team, 0);
	}
	g->root(inst, st, NULL);
	ck_assert_int_eq(g->player(inst, st), LEAGUE_GAME_CHANCE);
	run_seq(g, inst, st, (const int[]){ 0, 1 }, 2); /* cards 1 and 2 */
	ck_assert_int_eq(g->player(inst, st), 0);
	ck_assert_int_eq(g->legal(inst, st, 0, mask), 3);
	ck_assert_int_eq(g->legal(inst, st, 1, mask), 0);
	g->infostate(inst, st, 0, key, sizeof key);
	ck_assert_str_eq(key, "1:");
	g->apply(inst, st, 2, NULL);
	ck_assert_int_eq(g->player(inst, st), 1);
	g->infostate(inst, st, 1, key, sizeof key);
	ck_assert_str_eq(key, "2:c");
	g->observe(inst, st, 1, obs); /* seat 1, card 2, seat 0 played 2 */
	ck_assert_mem_eq(obs, want1, sizeof obs);
	g->action_name(inst, st, 1, 2, key, sizeof key);
	ck_assert_str_eq(key, "a2");
	g->apply(inst, st, 2, NULL);
	ck_assert_int_eq(g->player(inst, st), LEAGUE_GAME_TERMINAL);
	g->returns(inst, st, r);
	/* the table's row "cards 1, 2": a0 = 2, a1 = 2 scores 10 */
	ck_assert(r[0] == 10 && r[1] == 10);
	g->describe(inst, st, 0, text, sizeof text);
	ck_assert_str_eq(text, "tiny hanabi, seat 0\nyour card: 1\n"
		"seat 0 played a2\nseat 1 played a2\ncards 1 and 2: both "
		"seats score 10");
	/* seat 0's action 1 scores 4, 8, 4 whatever the cards */
	for (int c = 0; c < 4; c++)
		for (int a1 = 0; a1 < 3; a1++) {
			g->root(inst, st, NULL);
			run_seq(g, inst, st,
				(const int[]){ c / 2, c % 2, 1, a1 }, 4);
			g->returns(inst, st, r);
			ck_assert(r[0] == (a1 == 1 ? 8 : 4) && r[1] == r[0]);
		}
	if (g->destroy)
		g->destroy(inst);
}
END_TEST

static void th_check(struct walk *w, const void *st, double *r)
{
	ck_assert(r[0] == r[1]);
	ck_assert(r[0] >= 0 && r[0] <= 10);
}

/* The best joint deterministic policy of a tiny game, by enumerating
 * every choice at every infostate of w (found by one walk first);
 * *count gets how many policies reach it. With blind, seat 1's choices
 * depend on its card only (key[0]): no signalling. */
static double th_optimum(struct walk *w, int blind, long *count)
{
	int pol[WK_INFO_MAX] = { 0 }, acts[WK_INFO_MAX][3], nacts[WK_INFO_MAX];
	double best = -INFINITY;

	for (int i = 0; i < w->n; i++) {
		nacts[i] = 0;
		for (int a = 0; a < 3; a++)
			if (w->mask[i][a])
				acts[i][nacts[i]++] = a;
	}
	*count = 0;
	for (int digit[WK_INFO_MAX] = { 0 }, done = 0; !done;) {
		int ok = 1;
		for (int i = 0; i < w->n; i++) {
			pol[i] = acts[i][digit[i]];
			for (int j = 0; blind && j < i; j++)
				if (w->seat[i] == 1 && w->seat[j] == 1 &&
				    w->key[i][0] == w->key[j][0] &&
				    pol[i] != pol[j])
					ok = 0;
		}
		if (ok) {
			double v = wk_root(w, pol, th_check);
			if (v > best + 1e-9) {
				best = v;
				*count = 0;
			}
			if (fabs(v - best) <= 1e-9)
				(*count)++;
		}
		done = 1;
		for (int i = 0; i < w->n && done; i++) {
			if (++digit[i] < nacts[i])
				done = 0;
			else
				digit[i] = 0;
		}
	}
	return best;
}

START_TEST(tiny_hanabi_optimum)
{
	static struct walk w;
	char cmd[1024], line[128];
	double best, blind, ref_best = -1, ref_blind = -1;
	long count, nblind, ref_count = -1;
	FILE *f;

	wk_open(&w, &env_game_tiny_hanabi);
	wk_root(&w, NULL, th_check);
	ck_assert_int_eq(w.terminals, 4 * 9);
	ck_assert_int_eq(w.n, 2 + 6); /* seat 0: its card; seat 1: card, a0 */
	best = th_optimum(&w, 0, &count);
	blind = th_optimum(&w, 1, &nblind);
	ck_assert_double_eq_tol(best, 10, 1e-9);
	ck_assert_double_eq_tol(blind, 8, 1e-9);
	/* the reference, from OpenSpiel's payoff string, apart from envs/ */
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/ref/hanabi_opt.py",
		 tu_src_dir());
	ck_assert_msg((f = popen(cmd, "r")) != NULL, "%s", cmd);
	while (fgets(line, sizeof line, f)) {
		sscanf(line, "optimum %lf", &ref_best);
		sscanf(line, "optimal %ld", &ref_count);
		sscanf(line, "blind %lf", &ref_blind);
	}
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_double_eq_tol(best, ref_best, 1e-9);
	ck_assert_int_eq(count, ref_count);
	ck_assert_double_eq_tol(blind, ref_blind, 1e-9);
	if (w.g->destroy)
		w.g->destroy(w.inst);
}
END_TEST

/* ---- tiny whist -------------------------------------------------------- */

enum { JH, QH, KH, AH, JS, QS, KS, AS };

/* Deal seats 0, 1, 2 the hands h (seat 3 gets what is left) by finding
 * the chance outcome whose hand the seat then observes. */
static void tw_deal(const struct league_game *g, const void *inst, void *st,
		    const int h[3][2])
{
	unsigned char child[ST_MAX];
	int acts[LEAGUE_GAME_CHANCE_MAX];
	double probs[LEAGUE_GAME_CHANCE_MAX];
	float obs[44];

	g->root(inst, st, NULL);
	for (int s = 0; s < 3; s++) {
		int n = g->chance(inst, st, acts, probs), found = 0;
		ck_assert_int_eq(n, (8 - 2 * s) * (7 - 2 * s) / 2);
		for (int i = 0; i < n && !found; i++) {
			memcpy(child, st, sizeof child);
			g->apply(inst, child, acts[i], NULL);
			g->observe(inst, child, s, obs);
			found = obs[4 + h[s][0]] == 1 && obs[4 + h[s][1]] == 1;
			if (found)
				memcpy(st, child, sizeof child);
		}
		ck_assert_msg(found, "no outcome deals seat %d its hand", s);
	}
	ck_assert_int_eq(g->player(inst, st), 0);
}

/* Play cards in seat order, checking each seat's number of legal cards;
 * then the returns of the four seats. */
static void tw_play(const struct league_game *g, const void *inst, void *st,
		    const int *cards, const int *nlegal, double *r)
{
	uint8_t mask[8];

	for (int s = 0; s < 4; s++) {
		ck_assert_int_eq(g->player(inst, st), s);
		ck_assert_int_eq(g->legal(inst, st, s, mask), nlegal[s]);
		ck_assert_int_eq(mask[cards[s]], 1);
		g->apply(inst, st, cards[s], NULL);
	}
	ck_assert_int_eq(g->player(inst, st), LEAGUE_GAME_TERMINAL);
	g->returns(inst, st, r);
}

START_TEST(tiny_whist_rules)
{
	const struct league_game *g = &env_game_tiny_whist;
	struct league_game_spec spec;
	void *inst = open_game(g, &spec);
	unsigned char st[ST_MAX];
	const int deal1[3][2] = { { AH, JS }, { QH, KH }, { JH, KS } };
	const int deal2[3][2] = { { AH, AS }, { JH, QH }, { JS, KS } };
	char key[64], text[LEAGUE_GAME_TEXT_MAX];
	uint8_t mask[8];
	double r[4];

	refuses_params(g);
	ck_assert_uint_eq(spec.players, 4);
	ck_assert_uint_eq(spec.payoff, LEAGUE_GAME_ZERO_SUM);
	ck_assert_uint_eq(spec.teams, 2);
	ck_assert_uint_eq(spec.max_steps, 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_eq(spec.seat[i].team, (unsigned)i % 2);
		ck_assert_uint_eq(spec.seat[i].obs_len, 44);
		ck_assert_uint_eq(spec.seat[i].num_actions, 8);
	}
	/* Deal 1 (seat 3: QS AS). Seat 0 leads AH; seat 1 follows with
	 * either heart, seat 2 with its only one; seat 3, out of hearts,
	 * trumps with QS and wins, then leads AS to win trick 2 as well. */
	tw_deal(g, inst, st, deal1);
	g->infostate(inst, st, 0, key, sizeof key);
	ck_assert_str_eq(key, "0:AHJS:");
	g->describe(inst, st, 1, text, sizeof text);
	ck_assert_str_eq(text, "tiny whist, seat 1 (team 1, with seat 3); "
		"trumps: spades\nyour hand: QH KH\ntrick 1: no card yet, "
		"seat 0 leads");
	tw_play(g, inst, st, (const int[]){ AH, QH, JH, QS },
		(const int[]){ 2, 2, 1, 2 }, r);
	ck_assert(r[0] == -1 && r[2] == -1 && r[1] == 1 && r[3] == 1);
	g->describe(inst, st, 3, text, sizeof text);
	ck_assert_str_eq(text, "tiny whist, seat 3 (team 1, with seat 1); "
		"trumps: spades\nyour hand: QS AS\ntrick 1: seat 0 AH, "
		"seat 1 QH, seat 2 JH, seat 3 QS: seat 3 wins\ntrick 2: "
		"seat 3 AS, seat 0 JS, seat 1 KH, seat 2 KS: seat 3 wins\n"
		"team 1 returns 1");
	/* a short buffer gets the text cut, NUL-terminated (env_textf) */
	memset(key, 'x', sizeof key);
	g->describe(inst, st, 3, key, 11);
	ck_assert_str_eq(key, "tiny whist");
	g->infostate(inst, st, 3, key, 6);
	ck_assert_str_eq(key, "3:QSA");
	/* The same deal, seat 3 trumps with AS instead: QS then loses
	 * trick 2 to seat 2's KS, one trick each. */
	tw_deal(g, inst, st, deal1);
	tw_play(g, inst, st, (const int[]){ AH, QH, JH, AS },
		(const int[]){ 2, 2, 1, 2 }, r);
	ck_assert(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
	/* Deal 2 (seat 3: KH QS). Seat 0 leads AS; seat 1, out of spades,
	 * may play either heart; seat 2 keeps KS by following with JS;
	 * seat 3 must follow with QS. AS wins; seat 0 leads AH and its
	 * partner trumps it with KS: team 0 takes both tricks. */
	tw_deal(g, inst, st, deal2);
	g->apply(inst, st, AS, NULL);
	g->apply(inst, st, JH, NULL);
	ck_assert_int_eq(g->legal(inst, st, 2, mask), 2);
	g->infostate(inst, st, 2, key, sizeof key);
	ck_assert_str_eq(key, "2:JSKS:ASJH");
	g->action_name(inst, st, 2, KS, key, sizeof key);
	ck_assert_str_eq(key, "KS");
	g->apply(inst, st, JS, NULL);
	ck_assert_int_eq(g->legal(inst, st, 3, mask), 1);
	ck_assert(mask[QS] && !mask[KH]);
	g->infostate(inst, st, 3, key, sizeof key);
	ck_assert_str_eq(key, "3:KHQS:ASJHJS");
	g->apply(inst, st, QS, NULL);
	g->returns(inst, st, r);
	ck_assert(r[0] == 1 && r[2] == 1 && r[1] == -1 && r[3] == -1);
	g->describe(inst, st, 1, text, sizeof text);
	ck_assert_msg(strstr(text, "your hand: JH QH\n") &&
		      strstr(text, "trick 2: seat 0 AH, seat 1 QH, seat 2 "
			     "KS, seat 3 KH: seat 2 wins\nteam 1 returns -1"),
		      "%s", text);
	if (g->destroy)
		g->destroy(inst);
}
END_TEST

static void tw_check(struct walk *w, const void *st, double *r)
{
	ck_assert(r[0] == -1 || r[0] == 0 || r[0] == 1);
	ck_assert(r[0] == r[2] && r[1] == r[3]);
	ck_assert(r[0] + r[1] + r[2] + r[3] == 0);
}

/* Every deal and every legal play: the payoff invariants at each
 * terminal, one seat/mask/observation per infostate key, and the size of
 * the game the exact evaluators see. */
START_TEST(tiny_whist_every_terminal)
{
	static struct walk w;
	int seats[4] = { 0 }, singles = 0;

	wk_open(&w, &env_game_tiny_whist);
	wk_root(&w, NULL, tw_check);
	for (int i = 0; i < w.n; i++) {
		int n = 0;
		seats[w.seat[i]]++;
		for (int a = 0; a < 8; a++)
			n += w.mask[i][a];
		singles += n == 1;
		/* the observation shows the seat and its two cards */
		ck_assert(w.obs[i][w.seat[i]] == 1);
		n = 0;
		for (int c = 0; c < 8; c++)
			n += w.obs[i][4 + c] == 1;
		ck_assert_int_eq(n, 2);
	}
	printf("tiny_whist: %ld terminals, %d infostates (seats %d %d %d %d, "
	       "%d with one legal card)\n", w.terminals, w.n, seats[0],
	       seats[1], seats[2], seats[3], singles);
	ck_assert_int_eq(seats[0], 28); /* every hand leads */
	ck_assert_int_le(w.n, 28 + 28 * 6 + 28 * 30 + 28 * 120);
	if (w.g->destroy)
		w.g->destroy(w.inst);
}
END_TEST

/* Through the env API (envs/env.h): the per-seat spec, params refused
 * by env_new with the key named, and episodes played by card names with
 * env_action_parse, each seat's return its team's. */
START_TEST(teams_through_env)
{
	struct env_opts o;
	const struct env_spec *sp;
	char err[256], text[ENV_TEXT_MAX];
	env *e;
	double r[ENV_MAX_PLAYERS];
	int a, teams0 = 0;

	env_opts_default(&o);
	o.params.n = 1;
	snprintf(o.params.key[0], sizeof o.params.key[0], "players");
	snprintf(o.params.val[0], sizeof o.params.val[0], "6");
	ck_assert_int_eq(env_new(&e, "tiny_whist", &o, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "'players'"), "%s", err);

	e = tu_env_open("tiny_whist", NULL);
	sp = env_spec_of(e);
	ck_assert_int_eq(sp->players, 4);
	ck_assert_int_eq(sp->teams, 2);
	ck_assert_int_eq(sp->payoff, ENV_ZERO_SUM);
	ck_assert(sp->flags & ENV_F_ZERO_SUM && sp->flags & ENV_F_TEXT &&
		  sp->flags & ENV_F_TREE && !(sp->flags & ENV_F_ASYMMETRIC));
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(sp->seat[i].team, i % 2);
	/* every seed: play each seat's first legal card by its name */
	for (uint64_t seed = 1; seed <= 200; seed++) {
		ck_assert_int_eq(env_reset(e, seed), 0);
		for (int s = 0; s < 4; s++) {
			uint8_t mask[8];
			ck_assert_int_eq(env_current_player(e), s);
			ck_assert_int_gt(env_legal(e, s, mask), 0);
			for (a = 0; !mask[a]; a++)
				;
			ck_assert_int_eq(env_action_name(e, s, a, text,
							 sizeof text), 0);
			ck_assert_int_eq(strlen(text), 2);
			int b = -1;
			ck_assert_int_eq(env_action_parse(e, s, text, &b), 0);
			ck_assert_int_eq(b, a);
			ck_assert_int_eq(env_step(e, a), 0);
		}
		ck_assert(env_is_terminal(e));
		env_returns(e, r);
		ck_assert(r[0] == r[2] && r[1] == r[3] && r[0] == -r[1]);
		teams0 += r[0] > 0;
	}
	ck_assert(teams0 > 0 && teams0 < 200); /* both teams win some */
	ck_assert_int_eq(env_describe(e, 2, text, sizeof text), 0);
	ck_assert_msg(strstr(text, "tiny whist, seat 2 (team 0, with seat 0)")
		      && strstr(text, "trick 2:"), "%s", text);
	env_free(e);

	e = tu_env_open("tiny_hanabi", NULL);
	sp = env_spec_of(e);
	ck_assert_int_eq(sp->players, 2);
	ck_assert_int_eq(sp->teams, 1);
	ck_assert_int_eq(sp->payoff, ENV_COMMON_PAYOFF);
	ck_assert(!(sp->flags & ENV_F_ZERO_SUM));
	ck_assert_int_eq(env_reset(e, 5), 0);
	ck_assert_int_eq(env_action_parse(e, 0, "a1", &a), 0);
	ck_assert_int_eq(env_step(e, a), 0);
	ck_assert_int_eq(env_action_parse(e, 1, "a1", &a), 0);
	ck_assert_int_eq(env_step(e, a), 0);
	env_returns(e, r);
	ck_assert(r[0] == 8 && r[1] == 8); /* a1, a1 scores 8 on any deal */
	env_free(e);
}
END_TEST

Suite *suite_teams(void)
{
	Suite *s = suite_create("teams");
	const struct tu_test rules_tests[] = {
		{ tiny_hanabi_rules, 1 },
		{ tiny_hanabi_optimum, 1 },
		{ tiny_whist_rules, 1 },
		{ tiny_whist_every_terminal, 1 },
		{ teams_through_env, 1 },
	};

	TU_TCASE(s, "rules", 60, rules_tests);
	return s;
}
