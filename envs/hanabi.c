/*
 * envs/hanabi.c: tiny Hanabi, the two-seat cooperative game of the
 * Bayesian Action Decoder paper (Foerster et al. 2018), with OpenSpiel's
 * tiny_hanabi rules and default payoff table. Written on game ABI v2 as a
 * common-payoff game: both seats get the same return.
 *
 * Chance deals seat 0 a card, then seat 1 (cards 1 and 2, uniform, each
 * seat sees only its own). Seat 0 then picks action 0, 1 or 2, which
 * seat 1 sees; seat 1 picks 0, 1 or 2 and the game ends. The payoff of
 * both seats is PAYOFF[c0][c1][a0][a1] (below). The best joint policy
 * scores 10 on every deal (seat 0's action tells its card); playing on
 * one's own card alone gets 8 at most. tests/check_teams.c and
 * tests/ref/hanabi_opt.py compute the optimum by enumerating every joint
 * deterministic policy.
 *
 * Infostate key: own card ('1' or '2'), ':', then the actions so far, one
 * letter each ('a' + action): "2:" is seat 0 holding 2, "1:c" seat 1
 * holding 1 after seat 0's action 2 (the seat is the number of letters
 * before its move). Observation (10 floats, both seats): seat one-hot
 * [0,2), own card [2,4), seat 0's action [4,7), seat 1's action [7,10)
 * (zeros until made).
 */
#include "envs/env_internal.h"

#include <stdio.h>

#define TH_CARDS 2
#define TH_ACTIONS 3
#define TH_OBS (2 + TH_CARDS + 2 * TH_ACTIONS)

/* PAYOFF[c0][c1][a0][a1], cards 0-based: OpenSpiel's default (its
 * "payoff" parameter), the matrix of the Bayesian Action Decoder paper. */
static const int8_t th_payoff[TH_CARDS][TH_CARDS][TH_ACTIONS][TH_ACTIONS] = {
	{ { { 10, 0, 0 }, { 4, 8, 4 }, { 10, 0, 0 } },    /* cards 1, 1 */
	  { { 0, 0, 10 }, { 4, 8, 4 }, { 0, 0, 10 } } },  /* cards 1, 2 */
	{ { { 0, 0, 10 }, { 4, 8, 4 }, { 0, 0, 0 } },     /* cards 2, 1 */
	  { { 10, 0, 0 }, { 4, 8, 4 }, { 10, 0, 0 } } },  /* cards 2, 2 */
};

struct tiny_hanabi_st {
	int8_t card[2]; /* 0 .. TH_CARDS-1; -1 not dealt */
	int8_t act[2];  /* 0 .. TH_ACTIONS-1; -1 not made */
	int8_t dealt, n;
};

/* No params (the game is the default table); no instance. */
static int tiny_hanabi_create(const struct league_game_params *p,
			      void **inst, struct league_game_spec *spec,
			      char *err, size_t errlen)
{
	if (env_params_none(p, "tiny_hanabi", err, errlen))
		return LG_EINVAL;
	memset(spec, 0, sizeof *spec);
	spec->players = 2;
	spec->flags = LEAGUE_GAME_HAS_CHANCE;
	spec->payoff = LEAGUE_GAME_COMMON_PAYOFF;
	spec->teams = 1;
	spec->state_size = sizeof(struct tiny_hanabi_st);
	spec->max_steps = 2;
	for (int i = 0; i < 2; i++) {
		spec->seat[i].obs_len = TH_OBS;
		spec->seat[i].num_actions = TH_ACTIONS;
		spec->seat[i].team = 0;
	}
	*inst = NULL;
	return 0;
}

static void tiny_hanabi_destroy(void *inst)
{
}

static void tiny_hanabi_root(const void *inst, void *st,
			     struct league_game_rng *rng)
{
	struct tiny_hanabi_st *s = st;

	memset(s, 0, sizeof *s);
	s->card[0] = s->card[1] = s->act[0] = s->act[1] = -1;
}

static int tiny_hanabi_player(const void *inst, const void *st)
{
	const struct tiny_hanabi_st *s = st;

	if (s->dealt < 2)
		return LEAGUE_GAME_CHANCE;
	return s->n < 2 ? s->n : LEAGUE_GAME_TERMINAL;
}

static int tiny_hanabi_chance(const void *inst, const void *st, int *out,
			      double *p)
{
	return env_chance_uniform(TH_CARDS, out, p);
}

static int tiny_hanabi_legal(const void *inst, const void *st, int seat,
			     uint8_t *mask)
{
	int mine = tiny_hanabi_player(inst, st) == seat;

	for (int a = 0; a < TH_ACTIONS; a++)
		mask[a] = (uint8_t)mine;
	return mine ? TH_ACTIONS : 0;
}

static void tiny_hanabi_apply(const void *inst, void *st, int a,
			      struct league_game_rng *rng)
{
	struct tiny_hanabi_st *s = st;

	env_deal_or_move(s->card, &s->dealt, 2, s->act, &s->n, a);
}

static void tiny_hanabi_observe(const void *inst, const void *st, int seat,
				float *out)
{
	const struct tiny_hanabi_st *s = st;

	memset(out, 0, TH_OBS * sizeof *out);
	out[seat] = 1;
	if (s->card[seat] >= 0)
		out[2 + s->card[seat]] = 1;
	for (int i = 0; i < s->n; i++)
		out[2 + TH_CARDS + i * TH_ACTIONS + s->act[i]] = 1;
}

static void tiny_hanabi_returns(const void *inst, const void *st,
				double *out)
{
	const struct tiny_hanabi_st *s = st;

	out[0] = out[1] =
		th_payoff[s->card[0]][s->card[1]][s->act[0]][s->act[1]];
}

static void tiny_hanabi_infostate(const void *inst, const void *st,
				  int seat, char *buf, size_t len)
{
	const struct tiny_hanabi_st *s = st;
	size_t k;

	k = env_textf(buf, len, 0, "%c:",
		      s->card[seat] >= 0 ? '1' + s->card[seat] : '?');
	for (int i = 0; i < s->n; i++)
		k = env_textf(buf, len, k, "%c", 'a' + s->act[i]);
}

/* Your card (not the other seat's), the actions so far, and both cards
 * with the score once over. */
static void tiny_hanabi_describe(const void *inst, const void *st, int seat,
				 char *buf, size_t len)
{
	const struct tiny_hanabi_st *s = st;
	double r[2];
	size_t k;

	k = env_textf(buf, len, 0, "tiny hanabi, seat %d\nyour card: ", seat);
	if (s->card[seat] >= 0)
		k = env_textf(buf, len, k, "%d", s->card[seat] + 1);
	else
		k = env_textf(buf, len, k, "not dealt yet");
	for (int i = 0; i < s->n; i++)
		k = env_textf(buf, len, k, "\nseat %d played a%d", i,
			      s->act[i]);
	if (tiny_hanabi_player(inst, st) == LEAGUE_GAME_TERMINAL) {
		tiny_hanabi_returns(inst, st, r);
		env_textf(buf, len, k, "\ncards %d and %d: both seats score "
			  "%g", s->card[0] + 1, s->card[1] + 1, r[0]);
	}
}

static void tiny_hanabi_action_name(const void *inst, const void *st,
				    int seat, int action, char *buf,
				    size_t len)
{
	snprintf(buf, len, "a%d", action);
}

const struct league_game env_game_tiny_hanabi = {
	ENV_GAME_HEAD("tiny_hanabi",
		      "tiny Hanabi (OpenSpiel's default payoffs): 2 seats, "
		      "cooperative, optimum 10"),
	ENV_GAME_FNS(tiny_hanabi),
	ENV_GAME_TREE(tiny_hanabi),
	ENV_GAME_TEXT(tiny_hanabi),
};
