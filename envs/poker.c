/*
 * envs/poker.c: Kuhn and Leduc poker, two players, rules as OpenSpiel's
 * kuhn_poker and leduc_poker (default parameters).
 *
 * Kuhn: cards J<Q<K, one each, ante 1. Actions 0 pass, 1 bet (size 1).
 * Player 0 acts first. pp: showdown for 1; bp, pbp: the bettor wins 1;
 * bb, pbb: showdown for 2. Infostate key: own card then history, e.g. "Kpb".
 *
 * Leduc: six cards J J Q Q K K (card c has rank c/2), ante 1, two betting
 * rounds, raise 2 in round 1 and 4 in round 2, at most two raises per
 * round, player 0 starts each round. Actions 0 fold (only when facing a
 * bet), 1 call/check, 2 raise. A round ends after check-check or a call of
 * a raise; the public card is dealt between rounds. Showdown: a pair with
 * the public card wins, else the higher private rank; equal ranks split.
 * Infostate key: own rank, public rank once dealt, ':', round-1 actions,
 * and '/' plus round-2 actions once round 2 started: "Q:r", "QK:rc/c"
 * (letters f, c, r). Suits never matter, so keys use ranks only.
 */
#include "envs/env_internal.h"

#include <stdio.h>

static const char rank_ch[] = "JQK";

/* ---- Kuhn -------------------------------------------------------------- */

struct kuhn_st {
	int8_t card[2];
	int8_t dealt, n;
	int8_t h[3]; /* 0 pass, 1 bet */
};

static int kuhn_setup(struct env_opts *o, struct env_spec *spec, char *err,
		      size_t errlen)
{
	spec->players = 2;
	spec->obs_len = 11;
	spec->num_actions = 2;
	spec->max_steps = 3;
	spec->flags = ENV_F_CHANCE | ENV_F_ZERO_SUM | ENV_F_TREE;
	return 0;
}

static void kuhn_root(const void *inst, void *st, struct league_game_rng *rng)
{
	struct kuhn_st *s = st;

	memset(s, 0, sizeof *s);
	s->card[0] = s->card[1] = -1;
}

static int kuhn_over(const struct kuhn_st *s)
{
	/* pp, bp, bb are over after 2; pb needs a third move. */
	return s->n == 3 || (s->n == 2 && !(s->h[0] == 0 && s->h[1] == 1));
}

static int kuhn_player(const void *inst, const void *st)
{
	const struct kuhn_st *s = st;

	if (s->dealt < 2)
		return ENV_CHANCE;
	if (kuhn_over(s))
		return ENV_TERMINAL;
	return s->n % 2;
}

static int kuhn_chance(const void *inst, const void *st, int *out,
		       double *p)
{
	const struct kuhn_st *s = st;
	int n = 0;

	for (int c = 0; c < 3; c++)
		if (c != s->card[0]) {
			out[n] = c;
			p[n++] = 1.0 / (3 - s->dealt);
		}
	return n;
}

static int kuhn_legal(const void *inst, const void *st, int player,
		      uint8_t *mask)
{
	mask[0] = mask[1] = 1;
	return 2;
}

static void kuhn_apply(const void *inst, void *st, int a, struct league_game_rng *rng)
{
	struct kuhn_st *s = st;

	if (s->dealt < 2)
		s->card[s->dealt++] = (int8_t)a;
	else
		s->h[s->n++] = (int8_t)a;
}

static void kuhn_observe(const void *inst, const void *st, int pl,
			 float *out)
{
	const struct kuhn_st *s = st;

	memset(out, 0, 11 * sizeof *out);
	out[pl] = 1;
	if (s->card[pl] >= 0)
		out[2 + s->card[pl]] = 1;
	for (int i = 0; i < s->n; i++)
		out[5 + 2 * i + s->h[i]] = 1;
}

static void kuhn_returns(const void *inst, const void *st,
			 double *out)
{
	const struct kuhn_st *s = st;
	int w = s->card[0] > s->card[1] ? 0 : 1;
	double v;

	if (s->n == 2 && s->h[0] == 0 && s->h[1] == 0) {
		v = 1; /* pp: showdown for the antes */
	} else if (s->n == 2 && s->h[0] == 1 && s->h[1] == 0) {
		w = 0; /* bp: player 1 folds */
		v = 1;
	} else if (s->n == 3 && s->h[2] == 0) {
		w = 1; /* pbp: player 0 folds */
		v = 1;
	} else {
		v = 2; /* bb, pbb: showdown for ante + bet */
	}
	out[w] = v;
	out[1 - w] = -v;
}

static void kuhn_infostate(const void *inst, const void *st, int pl,
			   char *buf, size_t len)
{
	const struct kuhn_st *s = st;
	size_t k = 0;

	buf[k++] = s->card[pl] >= 0 ? rank_ch[s->card[pl]] : '?';
	for (int i = 0; i < s->n && k + 1 < len; i++)
		buf[k++] = s->h[i] ? 'b' : 'p';
	buf[k] = 0;
}

ENV_BUILTIN_CREATE(kuhn_create, kuhn_setup, sizeof(struct kuhn_st))

const struct league_game env_game_kuhn = {
	.abi = LEAGUE_GAME_ABI,
	.name = "kuhn",
	.summary = "Kuhn poker (3 cards, 2 players), as OpenSpiel",
	.create = kuhn_create,
	.destroy = env_builtin_destroy,
	.root = kuhn_root,
	.player = kuhn_player,
	.chance = kuhn_chance,
	.legal = kuhn_legal,
	.apply = kuhn_apply,
	.observe = kuhn_observe,
	.returns = kuhn_returns,
	.infostate = kuhn_infostate,
};

/* ---- Leduc ------------------------------------------------------------- */

enum { LD_FOLD = 0, LD_CALL = 1, LD_RAISE = 2 };
#define LD_SLOTS 4 /* longest round: c r r c */

struct leduc_st {
	int8_t priv[2], pub; /* cards 0..5, -1 not dealt */
	int8_t round;        /* 1 or 2 */
	int8_t cur;          /* 0, 1, or -1 for chance */
	int8_t raises, calls;
	int8_t folded;       /* -1, or who folded */
	int8_t over;
	int8_t contrib[2], stakes;
	int8_t nseq[2];
	int8_t seq[2][LD_SLOTS];
};

static int leduc_setup(struct env_opts *o, struct env_spec *spec, char *err,
		       size_t errlen)
{
	spec->players = 2;
	spec->obs_len = 2 + 3 + 3 + 2 * LD_SLOTS * 3;
	spec->num_actions = 3;
	spec->max_steps = 2 * LD_SLOTS;
	spec->flags = ENV_F_CHANCE | ENV_F_ZERO_SUM | ENV_F_TREE;
	return 0;
}

static void leduc_root(const void *inst, void *st, struct league_game_rng *rng)
{
	struct leduc_st *s = st;

	memset(s, 0, sizeof *s);
	s->priv[0] = s->priv[1] = s->pub = -1;
	s->round = 1;
	s->cur = -1;
	s->folded = -1;
	s->contrib[0] = s->contrib[1] = 1;
	s->stakes = 1;
}

static int leduc_player(const void *inst, const void *st)
{
	const struct leduc_st *s = st;

	if (s->over)
		return ENV_TERMINAL;
	return s->cur < 0 ? ENV_CHANCE : s->cur;
}

static int leduc_chance(const void *inst, const void *st, int *out,
			double *p)
{
	const struct leduc_st *s = st;
	int n = 0, left = 6 - (s->priv[0] >= 0) - (s->priv[1] >= 0);

	for (int c = 0; c < 6; c++)
		if (c != s->priv[0] && c != s->priv[1]) {
			out[n] = c;
			p[n++] = 1.0 / left;
		}
	return n;
}

static int leduc_legal(const void *inst, const void *st, int player,
		       uint8_t *mask)
{
	const struct leduc_st *s = st;

	mask[LD_FOLD] = s->stakes > s->contrib[player];
	mask[LD_CALL] = 1;
	mask[LD_RAISE] = s->raises < 2;
	return mask[0] + mask[1] + mask[2];
}

static void leduc_apply(const void *inst, void *st, int a,
			struct league_game_rng *rng)
{
	struct leduc_st *s = st;
	int p = s->cur;

	if (p < 0) { /* chance: deal */
		if (s->priv[0] < 0) {
			s->priv[0] = (int8_t)a;
		} else if (s->priv[1] < 0) {
			s->priv[1] = (int8_t)a;
			s->cur = 0;
		} else {
			s->pub = (int8_t)a;
			s->cur = 0;
		}
		return;
	}
	s->seq[s->round - 1][s->nseq[s->round - 1]++] = (int8_t)a;
	if (a == LD_FOLD) {
		s->folded = (int8_t)p;
		s->over = 1;
		return;
	}
	if (a == LD_RAISE) {
		s->stakes = (int8_t)(s->stakes + (s->round == 1 ? 2 : 4));
		s->contrib[p] = s->stakes;
		s->raises++;
		s->calls = 0;
		s->cur = (int8_t)(1 - p);
		return;
	}
	s->contrib[p] = s->stakes;
	s->calls++;
	if ((s->raises == 0 && s->calls == 2) || (s->raises > 0 && s->calls == 1)) {
		if (s->round == 2) {
			s->over = 1;
		} else {
			s->round = 2;
			s->raises = s->calls = 0;
			s->cur = -1; /* public card */
		}
		return;
	}
	s->cur = (int8_t)(1 - p);
}

static void leduc_observe(const void *inst, const void *st, int pl,
			  float *out)
{
	const struct leduc_st *s = st;

	memset(out, 0, (2 + 3 + 3 + 2 * LD_SLOTS * 3) * sizeof *out);
	out[pl] = 1;
	if (s->priv[pl] >= 0)
		out[2 + s->priv[pl] / 2] = 1;
	if (s->pub >= 0)
		out[5 + s->pub / 2] = 1;
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < s->nseq[r]; i++)
			out[8 + (r * LD_SLOTS + i) * 3 + s->seq[r][i]] = 1;
}

static void leduc_returns(const void *inst, const void *st,
			  double *out)
{
	const struct leduc_st *s = st;
	int r0, r1;

	if (s->folded >= 0) {
		out[s->folded] = -s->contrib[s->folded];
		out[1 - s->folded] = s->contrib[s->folded];
		return;
	}
	r0 = s->priv[0] / 2 == s->pub / 2 ? 10 : s->priv[0] / 2;
	r1 = s->priv[1] / 2 == s->pub / 2 ? 10 : s->priv[1] / 2;
	if (r0 == r1) {
		out[0] = out[1] = 0;
		return;
	}
	out[0] = r0 > r1 ? s->contrib[1] : -s->contrib[0];
	out[1] = -out[0];
}

static void leduc_infostate(const void *inst, const void *st, int pl,
			    char *buf, size_t len)
{
	static const char act_ch[] = "fcr";
	const struct leduc_st *s = st;
	char tmp[ENV_KEY_MAX];
	size_t k = 0;

	tmp[k++] = s->priv[pl] >= 0 ? rank_ch[s->priv[pl] / 2] : '?';
	if (s->pub >= 0)
		tmp[k++] = rank_ch[s->pub / 2];
	tmp[k++] = ':';
	for (int i = 0; i < s->nseq[0]; i++)
		tmp[k++] = act_ch[s->seq[0][i]];
	if (s->round == 2) {
		tmp[k++] = '/';
		for (int i = 0; i < s->nseq[1]; i++)
			tmp[k++] = act_ch[s->seq[1][i]];
	}
	tmp[k] = 0;
	snprintf(buf, len, "%s", tmp);
}

/* leduc and leduc_short are one game observed two ways: the same table
 * but for the name, summary, create() and observe(). */
#define LEDUC_GAME(game_name, game_summary, create_fn, observe_fn)  \
	{                                                           \
		.abi = LEAGUE_GAME_ABI, .name = game_name,          \
		.summary = game_summary, .create = create_fn,       \
		.destroy = env_builtin_destroy, .root = leduc_root, \
		.player = leduc_player, .chance = leduc_chance,     \
		.legal = leduc_legal, .apply = leduc_apply,         \
		.observe = observe_fn, .returns = leduc_returns,    \
		.infostate = leduc_infostate,                       \
	}

ENV_BUILTIN_CREATE(leduc_create, leduc_setup, sizeof(struct leduc_st))

const struct league_game env_game_leduc =
	LEDUC_GAME("leduc",
		   "Leduc poker (6 cards, 2 rounds, 2 players), as OpenSpiel",
		   leduc_create, leduc_observe);

/* ---- Leduc with a short observation ------------------------------------ */

/* The same game observed without its history: seat, private card's rank,
 * the public card's rank, the round, and the last move of each player in
 * this hand (own first; zeros before one). A policy without memory sees
 * different histories alike here; one with memory can tell them apart
 * from the sequence of what it saw at its own decisions. */
#define LS_OBS (2 + 3 + 3 + 2 + 3 + 3)

static int leduc_short_setup(struct env_opts *o, struct env_spec *spec,
			     char *err, size_t errlen)
{
	leduc_setup(o, spec, err, errlen);
	spec->obs_len = LS_OBS;
	return 0;
}

static void leduc_short_observe(const void *inst, const void *st, int pl,
				float *out)
{
	const struct leduc_st *s = st;
	int last[2] = { -1, -1 };

	memset(out, 0, LS_OBS * sizeof *out);
	out[pl] = 1;
	if (s->priv[pl] >= 0)
		out[2 + s->priv[pl] / 2] = 1;
	if (s->pub >= 0)
		out[5 + s->pub / 2] = 1;
	out[8 + (s->round == 2)] = 1;
	/* player 0 opens both rounds, and moves alternate within one */
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < s->nseq[r]; i++)
			last[i % 2] = s->seq[r][i];
	if (last[pl] >= 0)
		out[10 + last[pl]] = 1;
	if (last[1 - pl] >= 0)
		out[13 + last[1 - pl]] = 1;
}

ENV_BUILTIN_CREATE(leduc_short_create, leduc_short_setup,
		   sizeof(struct leduc_st))

const struct league_game env_game_leduc_short =
	LEDUC_GAME("leduc_short",
		   "Leduc poker observed without its history: cards, round "
		   "and each player's last move",
		   leduc_short_create, leduc_short_observe);
