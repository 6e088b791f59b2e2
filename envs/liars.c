/*
 * envs/liars.c: Liar's Dice with one die each, two players; the rules are
 * league's own (no wild face), small enough for the exact evaluators.
 *
 * Each player rolls one die with `faces` sides (env.params `faces`, 2..6,
 * default 6; chance deals player 0's die, then player 1's). Player 0 bids
 * first and the players alternate. A bid (q, f) claims that at least q of
 * the two dice show face f: q is 1 or 2, f is 1..faces, and bid (q, f) is
 * action (q - 1) * faces + f - 1, so the bids are ordered by quantity,
 * then face. A bid must be higher than the one before it. Instead of
 * bidding, the player to move may call "liar" (action 2 * faces) on the
 * last bid, never before the first: the dice are shown, and if at least q
 * dice show f the bidder wins 1, else the caller does; the loser loses 1.
 * After the highest bid, calling is the only move.
 *
 * Many actions are illegal at most states and many infostates are reached
 * with probability 0 under a pure strategy, which is what
 * tests/check_solvers.c needs it for: CFR+'s average policy must keep
 * converging there.
 *
 * Infostate key: the player's own face, ':', then the moves so far, one
 * letter each ('a' + bid, 'L' for liar), e.g. "3:ad" (a 3, after bids 0
 * and 3). Observation: the player (one-hot, 2), its own face (one-hot,
 * faces) and, per bid, which player made it (2 x 2 * faces).
 *
 * Text: describe shows a seat its die, the bids so far and, once a
 * player called, both dice and the result; action_name names bid (q, f)
 * "QxF" (e.g. "2x5": at least two fives) and the call "liar".
 */
#include "envs/env_internal.h"

#include <stdio.h>
#include <stdlib.h>

#define LD_FACES_MAX 6
#define LD_MOVES_MAX (2 * LD_FACES_MAX + 1)

struct liars_inst {
	int faces;
};

struct liars_st {
	int8_t die[2]; /* 0 .. faces - 1; -1 not rolled */
	int8_t dealt, n;
	int8_t h[LD_MOVES_MAX]; /* bids 0 .. 2F-1, 2F liar */
};

static int liars_create(const struct league_game_params *p, void **inst,
			struct league_game_spec *spec, char *err,
			size_t errlen)
{
	struct liars_inst *li;
	uint64_t faces = 6;

	for (uint32_t i = 0; p && i < p->count; i++) {
		if (strcmp(p->keys[i], "faces")) {
			lg_errf(err, errlen, "env.params: '%s': liars_dice "
				"takes only 'faces'", p->keys[i]);
			return LG_EINVAL;
		}
		if (env_param_u64("faces", p->values[i], 2, LD_FACES_MAX,
				  &faces, err, errlen))
			return LG_EINVAL;
	}
	if (!(li = malloc(sizeof *li))) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	li->faces = (int)faces;
	memset(spec, 0, sizeof *spec);
	spec->players = 2;
	for (int s = 0; s < 2; s++) {
		spec->seat[s].num_actions = (uint32_t)(2 * faces + 1);
		spec->seat[s].obs_len = (uint32_t)(2 + faces + 4 * faces);
	}
	spec->flags = LEAGUE_GAME_HAS_CHANCE;
	spec->state_size = sizeof(struct liars_st);
	spec->max_steps = (uint64_t)(2 * faces + 1);
	*inst = li;
	return 0;
}

static void liars_root(const void *inst, void *st,
		       struct league_game_rng *rng)
{
	struct liars_st *s = st;

	memset(s, 0, sizeof *s);
	s->die[0] = s->die[1] = -1;
}

static int liars_faces(const void *inst)
{
	return ((const struct liars_inst *)inst)->faces;
}

static int liars_over(const void *inst, const struct liars_st *s)
{
	return s->n > 0 && s->h[s->n - 1] == 2 * liars_faces(inst);
}

static int liars_player(const void *inst, const void *st)
{
	const struct liars_st *s = st;

	if (s->dealt < 2)
		return LEAGUE_GAME_CHANCE;
	if (liars_over(inst, s))
		return LEAGUE_GAME_TERMINAL;
	return s->n % 2;
}

static int liars_chance(const void *inst, const void *st, int *out,
			double *p)
{
	return env_chance_uniform(liars_faces(inst), out, p);
}

static int liars_legal(const void *inst, const void *st, int player,
		       uint8_t *mask)
{
	const struct liars_st *s = st;
	int bids = 2 * liars_faces(inst), first = 0, n = 0;

	if (s->n > 0)
		first = s->h[s->n - 1] + 1;
	for (int a = 0; a < bids; a++)
		n += mask[a] = a >= first;
	n += mask[bids] = s->n > 0;
	return n;
}

static void liars_apply(const void *inst, void *st, int a,
			struct league_game_rng *rng)
{
	struct liars_st *s = st;

	env_deal_or_move(s->die, &s->dealt, 2, s->h, &s->n, a);
}

static void liars_observe(const void *inst, const void *st, int pl,
			  float *out)
{
	const struct liars_st *s = st;
	int f = liars_faces(inst);

	memset(out, 0, (size_t)(2 + 5 * f) * sizeof *out);
	out[pl] = 1;
	if (s->die[pl] >= 0)
		out[2 + s->die[pl]] = 1;
	for (int i = 0; i < s->n; i++)
		if (s->h[i] < 2 * f)
			out[2 + f + 2 * s->h[i] + i % 2] = 1;
}

static void liars_returns(const void *inst, const void *st, double *out)
{
	const struct liars_st *s = st;
	int f = liars_faces(inst), bid = s->h[s->n - 2];
	int q = bid / f + 1, face = bid % f;
	int count = (s->die[0] == face) + (s->die[1] == face);
	int bidder = (s->n - 2) % 2, w = count >= q ? bidder : 1 - bidder;

	out[w] = 1;
	out[1 - w] = -1;
}

static void liars_infostate(const void *inst, const void *st, int pl,
			    char *buf, size_t len)
{
	const struct liars_st *s = st;
	int f = liars_faces(inst);
	size_t k = 0;

	buf[k++] = s->die[pl] >= 0 ? (char)('1' + s->die[pl]) : '?';
	buf[k++] = ':';
	for (int i = 0; i < s->n && k + 1 < len; i++)
		buf[k++] = s->h[i] == 2 * f ? 'L' : (char)('a' + s->h[i]);
	buf[k] = 0;
}

static void liars_action_name(const void *inst, const void *st, int seat,
			      int a, char *buf, size_t len)
{
	int f = liars_faces(inst);

	if (a == 2 * f)
		snprintf(buf, len, "liar");
	else
		snprintf(buf, len, "%dx%d", a / f + 1, a % f + 1);
}

static void liars_describe(const void *inst, const void *st, int seat,
			   char *buf, size_t len)
{
	const struct liars_st *s = st;
	char name[16];
	size_t k;

	k = env_textf(buf, len, 0, "liar's dice, one die each (faces 1..%d): "
		      "you are seat %d\nyour die: ", liars_faces(inst), seat);
	k = s->die[seat] >= 0 ? env_textf(buf, len, k, "%d", s->die[seat] + 1)
			      : env_textf(buf, len, k, "not rolled yet");
	k = env_textf(buf, len, k, "\nbids:%s", s->n ? "" : " none yet");
	for (int i = 0; i < s->n; i++) {
		liars_action_name(inst, st, i % 2, s->h[i], name, sizeof name);
		k = env_textf(buf, len, k, " seat%d %s%s", i % 2, name,
			      i + 1 < s->n ? "," : "");
	}
	if (liars_over(inst, s)) {
		double ret[2];
		liars_returns(inst, st, ret);
		k = env_textf(buf, len, k, "\ndice: seat0 %d, seat1 %d\nhand "
			      "over: your return %+g", s->die[0] + 1,
			      s->die[1] + 1, ret[seat]);
	}
}

/* The instance is a malloc'd liars_inst. */
static void liars_destroy(void *inst)
{
	free(inst);
}

const struct league_game env_game_liars_dice = {
	ENV_GAME_HEAD("liars_dice",
		      "Liar's Dice, one die each (2 players, no wild face)"),
	ENV_GAME_FNS(liars),
	ENV_GAME_TREE(liars),
	ENV_GAME_TEXT(liars),
};
