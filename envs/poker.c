/*
 * envs/poker.c: Kuhn and Leduc poker for 2 to POKER_PLAYERS_MAX players
 * (env.params `players`, default 2), rules as OpenSpiel's kuhn_poker and
 * leduc_poker with num_players; docs/envs.md states them in full. Two
 * players give the games as they always were here: the same chance
 * outcomes in the same order, observations, infostate keys and returns.
 *
 * Cards: the N + 1 ranks below the ace, "JQK" for two players, "TJQK" for
 * three, up to "56789TJQK" for eight. Kuhn has one card of each rank, Leduc
 * two (card c has rank c / 2; suits never matter, so keys use ranks).
 *
 * Kuhn: ante 1, seat 0 first, one round in seat order, actions 0 pass and
 * 1 bet (size 1). Nobody bets: after N passes the highest card takes the
 * pot. After the first bet every other seat answers once (bet: call, pass:
 * fold), and the highest card among those who bet takes the pot. Key: own
 * card then the moves ('p', 'b'), e.g. "Kpb".
 *
 * Leduc: ante 1, two betting rounds, raise 2 in round 1 and 4 in round 2,
 * at most two raises a round; each round opens with the first seat from 0
 * that has not folded, and moves go round the seats still in. Actions 0
 * fold (only when facing a raise), 1 call/check, 2 raise. A round ends when
 * every seat still in has checked, or once all but the last raiser have
 * called the last raise; the public card is dealt between rounds; the hand
 * ends when one seat is left or after round 2. Showdown: a pair with the
 * public card wins, else the highest private rank; ties split the pot.
 * Key: own rank, public rank once dealt, ':', round-1 moves, and '/' plus
 * round-2 moves once round 2 started: "Q:r", "QK:rc/c" (f, c, r).
 */
#include "envs/env_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define POKER_PLAYERS_MAX 8
#define KUHN_MOVES_MAX (2 * POKER_PLAYERS_MAX - 1)
/* Leduc's longest round: N - 1 checks, a raise, N - 2 calls, a raise,
 * N - 1 calls (OpenSpiel's MaxBetsPerRound). */
#define LD_SLOTS(n) (3 * (n) - 2)
#define LD_SLOTS_MAX LD_SLOTS(POKER_PLAYERS_MAX)

_Static_assert(POKER_PLAYERS_MAX <= LEAGUE_GAME_PLAYERS_MAX, "seats");


struct poker_inst {
	int np; /* players */
};

/* kuhn's and leduc's destroy(): their instance is a malloc'd poker_inst. */
static void poker_destroy(void *inst)
{
	free(inst);
}

static int nplayers(const void *inst)
{
	return ((const struct poker_inst *)inst)->np;
}

/* The character of rank r (0 lowest) in a game of np players. */
static char rank_ch(int np, int r)
{
	static const char ranks[] = "23456789TJQK";

	return ranks[12 - (np + 1) + r];
}

/* Read env.params (only `players` when takes_players, else none) and make
 * the instance; game names the game in messages. */
static int poker_params(const struct league_game_params *p, const char *game,
			int takes_players, struct poker_inst **out,
			char *err, size_t errlen)
{
	uint64_t np = 2;

	*out = NULL;
	for (uint32_t i = 0; p && i < p->count; i++) {
		if (!takes_players || strcmp(p->keys[i], "players")) {
			lg_errf(err, errlen, "env.params: '%s': %s takes %s",
				p->keys[i], game,
				takes_players ? "only 'players'" : "no params");
			return LG_EINVAL;
		}
		if (env_param_u64("players", p->values[i], 2,
				  POKER_PLAYERS_MAX, &np, err, errlen))
			return LG_EINVAL;
	}
	if (!(*out = malloc(sizeof **out))) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	(*out)->np = (int)np;
	return 0;
}

/* The spec of a poker game: np symmetric seats, zero-sum, chance. */
static void poker_spec(struct league_game_spec *spec, int np,
		       uint32_t obs_len, uint32_t num_actions,
		       uint64_t max_steps, size_t state_size)
{
	memset(spec, 0, sizeof *spec);
	spec->players = (uint32_t)np;
	for (int s = 0; s < np; s++) {
		spec->seat[s].obs_len = obs_len;
		spec->seat[s].num_actions = num_actions;
	}
	spec->payoff = LEAGUE_GAME_ZERO_SUM;
	spec->flags = LEAGUE_GAME_HAS_CHANCE;
	spec->state_size = state_size;
	spec->max_steps = max_steps;
}

/* describe()'s text so far: buf[len], *at bytes written (it stops
 * growing once full; snprintf keeps the NUL in). */
struct text {
	char *buf;
	size_t len, at;
};

__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->at >= t->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->at, t->len - t->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->at += (size_t)n;
}

/* The end of a hand as seat sees it: its return. */
static void put_result(struct text *t, const double *ret, int seat)
{
	put(t, "\nhand over: your return %+g", ret[seat]);
}

/* ---- Kuhn -------------------------------------------------------------- */

struct kuhn_st {
	int8_t card[POKER_PLAYERS_MAX];
	int8_t dealt, n;
	int8_t h[KUHN_MOVES_MAX]; /* 0 pass, 1 bet */
};

static int kuhn_obs_len(int np)
{
	return np + (np + 1) + 2 * (2 * np - 1);
}

static int kuhn_create(const struct league_game_params *p, void **inst,
		       struct league_game_spec *spec, char *err, size_t errlen)
{
	struct poker_inst *pi;
	int rc = poker_params(p, "kuhn", 1, &pi, err, errlen);

	if (rc)
		return rc;
	poker_spec(spec, pi->np, (uint32_t)kuhn_obs_len(pi->np), 2,
		   (uint64_t)(2 * pi->np - 1), sizeof(struct kuhn_st));
	*inst = pi;
	return 0;
}

static void kuhn_root(const void *inst, void *st, struct league_game_rng *rng)
{
	struct kuhn_st *s = st;

	memset(s, 0, sizeof *s);
	memset(s->card, -1, sizeof s->card);
}

/* The move index of the first bet, or -1. */
static int kuhn_first_bet(const struct kuhn_st *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->h[i])
			return i;
	return -1;
}

static int kuhn_over(int np, const struct kuhn_st *s)
{
	int f = kuhn_first_bet(s);

	/* all pass; or everyone after the first bettor answered once */
	return f < 0 ? s->n == np : s->n == f + np;
}

static int kuhn_player(const void *inst, const void *st)
{
	const struct kuhn_st *s = st;
	int np = nplayers(inst);

	if (s->dealt < np)
		return ENV_CHANCE;
	if (kuhn_over(np, s))
		return ENV_TERMINAL;
	return s->n % np;
}

static int kuhn_chance(const void *inst, const void *st, int *out,
		       double *p)
{
	const struct kuhn_st *s = st;

	return env_chance_deal(nplayers(inst) + 1, s->card, s->dealt, out, p);
}

static void kuhn_apply(const void *inst, void *st, int a,
		       struct league_game_rng *rng)
{
	struct kuhn_st *s = st;

	env_deal_or_move(s->card, &s->dealt, nplayers(inst), s->h, &s->n, a);
}

static void kuhn_observe(const void *inst, const void *st, int pl,
			 float *out)
{
	const struct kuhn_st *s = st;
	int np = nplayers(inst);

	memset(out, 0, (size_t)kuhn_obs_len(np) * sizeof *out);
	out[pl] = 1;
	if (s->card[pl] >= 0)
		out[np + s->card[pl]] = 1;
	for (int i = 0; i < s->n; i++)
		out[2 * np + 1 + 2 * i + s->h[i]] = 1;
}

/* Whether seat p bet (or called): its moves are h[p] and h[np + p]. */
static int kuhn_bet(int np, const struct kuhn_st *s, int p)
{
	return (p < s->n && s->h[p]) || (np + p < s->n && s->h[np + p]);
}

static void kuhn_returns(const void *inst, const void *st, double *out)
{
	const struct kuhn_st *s = st;
	int np = nplayers(inst), pot = np, w = -1, any = 0;

	for (int p = 0; p < np; p++) {
		pot += kuhn_bet(np, s, p);
		any |= kuhn_bet(np, s, p);
	}
	for (int p = 0; p < np; p++)
		if ((!any || kuhn_bet(np, s, p)) &&
		    (w < 0 || s->card[p] > s->card[w]))
			w = p;
	for (int p = 0; p < np; p++)
		out[p] = (p == w ? pot : 0) - 1 - kuhn_bet(np, s, p);
}

static void kuhn_infostate(const void *inst, const void *st, int pl,
			   char *buf, size_t len)
{
	const struct kuhn_st *s = st;
	size_t k = 0;

	buf[k++] = s->card[pl] >= 0 ? rank_ch(nplayers(inst), s->card[pl])
				    : '?';
	for (int i = 0; i < s->n && k + 1 < len; i++)
		buf[k++] = s->h[i] ? 'b' : 'p';
	buf[k] = 0;
}

/* A Kuhn move's name: pass is "check" before any bet and "fold" after
 * one; bet is "bet", then "call". */
static const char *kuhn_move_name(int a, int bet_before)
{
	return a ? (bet_before ? "call" : "bet")
		 : (bet_before ? "fold" : "check");
}

static void kuhn_describe(const void *inst, const void *st, int seat,
			  char *buf, size_t len)
{
	const struct kuhn_st *s = st;
	struct text t = { buf, len, 0 };
	int np = nplayers(inst), pot = np, bet = 0;

	buf[0] = 0;
	put(&t, "kuhn poker, %d players: you are seat %d\nyour card: %c",
	    np, seat, s->card[seat] >= 0 ? rank_ch(np, s->card[seat]) : '?');
	for (int i = 0; i < s->n; i++)
		pot += s->h[i];
	put(&t, "\npot: %d (you put in %d)", pot, 1 + kuhn_bet(np, s, seat));
	put(&t, "\nmoves:");
	if (!s->n)
		put(&t, " none yet");
	for (int i = 0; i < s->n; i++) {
		put(&t, " seat%d %s%s", i % np, kuhn_move_name(s->h[i], bet),
		    i + 1 < s->n ? "," : "");
		bet |= s->h[i];
	}
	if (kuhn_player(inst, st) == ENV_TERMINAL) {
		double ret[POKER_PLAYERS_MAX];
		kuhn_returns(inst, st, ret);
		put_result(&t, ret, seat);
	}
}

static void kuhn_action_name(const void *inst, const void *st, int seat,
			     int action, char *buf, size_t len)
{
	snprintf(buf, len, "%s",
		 kuhn_move_name(action,
				kuhn_first_bet(st) >= 0));
}

const struct league_game env_game_kuhn = {
	ENV_GAME_HEAD("kuhn", "Kuhn poker (N+1 cards, 2..8 players: "
			      "env.params players), as OpenSpiel"),
	.create = kuhn_create, .destroy = poker_destroy,
	.observe = kuhn_observe, .root = kuhn_root, .player = kuhn_player,
	.legal = env_legal_two, .apply = kuhn_apply, .returns = kuhn_returns,
	ENV_GAME_TREE(kuhn), ENV_GAME_TEXT(kuhn),
};

/* ---- Leduc ------------------------------------------------------------- */

enum { LD_FOLD = 0, LD_CALL = 1, LD_RAISE = 2 };

struct leduc_st {
	int8_t priv[POKER_PLAYERS_MAX], pub; /* cards, -1 not dealt */
	int8_t dealt;        /* private cards dealt */
	int8_t round;        /* 1 or 2 */
	int8_t cur;          /* the seat to move, or -1 for chance */
	int8_t raises, calls;
	int8_t left;         /* seats that have not folded */
	int8_t over;
	int8_t folded[POKER_PLAYERS_MAX];
	int8_t contrib[POKER_PLAYERS_MAX], stakes;
	int8_t nseq[2];
	int8_t seq[2][LD_SLOTS_MAX];
};

static int leduc_obs_len(int np)
{
	return np + 2 * (np + 1) + 2 * LD_SLOTS(np) * 3;
}

static int leduc_make(const struct league_game_params *p, const char *game,
		      int takes_players, int obs_len_2p, void **inst,
		      struct league_game_spec *spec, char *err, size_t errlen)
{
	struct poker_inst *pi;
	int rc = poker_params(p, game, takes_players, &pi, err, errlen);

	if (rc)
		return rc;
	poker_spec(spec, pi->np,
		   (uint32_t)(obs_len_2p ? obs_len_2p : leduc_obs_len(pi->np)),
		   3, (uint64_t)(2 * LD_SLOTS(pi->np)),
		   sizeof(struct leduc_st));
	*inst = pi;
	return 0;
}

static int leduc_create(const struct league_game_params *p, void **inst,
			struct league_game_spec *spec, char *err,
			size_t errlen)
{
	return leduc_make(p, "leduc", 1, 0, inst, spec, err, errlen);
}

static void leduc_root(const void *inst, void *st, struct league_game_rng *rng)
{
	struct leduc_st *s = st;
	int np = nplayers(inst);

	memset(s, 0, sizeof *s);
	memset(s->priv, -1, sizeof s->priv);
	s->pub = -1;
	s->round = 1;
	s->cur = -1;
	s->left = (int8_t)np;
	for (int p = 0; p < np; p++)
		s->contrib[p] = 1;
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

	return env_chance_deal(2 * (nplayers(inst) + 1), s->priv, s->dealt,
			       out, p);
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

/* The first seat after `after` (cyclically) that has not folded. */
static int8_t leduc_next(int np, const struct leduc_st *s, int after)
{
	for (int k = 1; k <= np; k++) {
		int p = (after + k) % np;
		if (!s->folded[p])
			return (int8_t)p;
	}
	return -1; /* unreachable: the hand ends with one seat left */
}

/* After a fold or a call: the round ends when every seat still in checked,
 * or all but the last raiser called; then round 2 (its public card
 * first) or the end. Else the next seat moves. */
static void leduc_advance(int np, struct leduc_st *s, int p)
{
	if (s->left == 1) {
		s->over = 1;
		return;
	}
	if ((s->raises == 0 && s->calls == s->left) ||
	    (s->raises > 0 && s->calls == s->left - 1)) {
		if (s->round == 2) {
			s->over = 1;
		} else {
			s->round = 2;
			s->raises = s->calls = 0;
			s->cur = -1; /* public card */
		}
		return;
	}
	s->cur = leduc_next(np, s, p);
}

static void leduc_apply(const void *inst, void *st, int a,
			struct league_game_rng *rng)
{
	struct leduc_st *s = st;
	int np = nplayers(inst), p = s->cur;

	if (p < 0) { /* chance: deal */
		if (s->dealt < np)
			s->priv[s->dealt++] = (int8_t)a;
		else
			s->pub = (int8_t)a;
		if (s->dealt == np)
			s->cur = leduc_next(np, s, np - 1);
		return;
	}
	s->seq[s->round - 1][s->nseq[s->round - 1]++] = (int8_t)a;
	if (a == LD_RAISE) {
		s->stakes = (int8_t)(s->stakes + (s->round == 1 ? 2 : 4));
		s->contrib[p] = s->stakes;
		s->raises++;
		s->calls = 0;
		s->cur = leduc_next(np, s, p);
		return;
	}
	if (a == LD_FOLD) {
		s->folded[p] = 1;
		s->left--;
	} else {
		s->contrib[p] = s->stakes;
		s->calls++;
	}
	leduc_advance(np, s, p);
}

static void leduc_observe(const void *inst, const void *st, int pl,
			  float *out)
{
	const struct leduc_st *s = st;
	int np = nplayers(inst), base = np + 2 * (np + 1);

	memset(out, 0, (size_t)leduc_obs_len(np) * sizeof *out);
	out[pl] = 1;
	if (s->priv[pl] >= 0)
		out[np + s->priv[pl] / 2] = 1;
	if (s->pub >= 0)
		out[np + (np + 1) + s->pub / 2] = 1;
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < s->nseq[r]; i++)
			out[base + (r * LD_SLOTS(np) + i) * 3 + s->seq[r][i]] =
				1;
}

static void leduc_returns(const void *inst, const void *st, double *out)
{
	const struct leduc_st *s = st;
	int np = nplayers(inst), pot = 0, best = -1, nwin = 0;
	int hand[POKER_PLAYERS_MAX];

	for (int p = 0; p < np; p++) {
		pot += s->contrib[p];
		/* a pair with the public card beats any rank */
		hand[p] = s->folded[p] ? -1
			  : s->left > 1 && s->priv[p] / 2 == s->pub / 2
				  ? 100
				  : s->priv[p] / 2;
		best = LG_MAX(best, hand[p]);
	}
	for (int p = 0; p < np; p++)
		nwin += hand[p] == best;
	for (int p = 0; p < np; p++)
		out[p] = (hand[p] == best ? (double)pot / nwin : 0) -
			 s->contrib[p];
}

static void leduc_infostate(const void *inst, const void *st, int pl,
			    char *buf, size_t len)
{
	static const char act_ch[] = "fcr";
	const struct leduc_st *s = st;
	int np = nplayers(inst);
	char tmp[ENV_KEY_MAX];
	size_t k = 0;

	tmp[k++] = s->priv[pl] >= 0 ? rank_ch(np, s->priv[pl] / 2) : '?';
	if (s->pub >= 0)
		tmp[k++] = rank_ch(np, s->pub / 2);
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

/* A Leduc move's name where `raised` says whether the round has seen a
 * raise and `owe` whether the mover is short of the stakes: fold; call is
 * "check" with nothing owed; raise is "bet" as the round's first. */
static const char *leduc_move_name(int a, int raised, int owe)
{
	return a == LD_FOLD   ? "fold"
	       : a == LD_CALL ? (owe ? "call" : "check")
			      : (raised ? "raise" : "bet");
}

/* The moves so far, each named as it was made and by whom: the hand
 * replayed from the root with the same cards. */
static void leduc_put_moves(struct text *t, const void *inst,
			    const struct leduc_st *s)
{
	struct leduc_st r;
	int np = nplayers(inst);

	leduc_root(inst, &r, NULL);
	for (int i = 0; i < np; i++)
		leduc_apply(inst, &r, s->priv[i], NULL);
	for (int k = 0; k < 2 && k < s->round; k++) {
		put(t, "\nround %d:", k + 1);
		if (!s->nseq[k])
			put(t, " no moves yet");
		if (k == 1 && s->pub >= 0) /* the public card, as dealt */
			leduc_apply(inst, &r, s->pub, NULL);
		for (int i = 0; i < s->nseq[k]; i++) {
			int p = r.cur, a = s->seq[k][i];
			put(t, " seat%d %s%s", p,
			    leduc_move_name(a, r.raises > 0,
					    r.stakes > r.contrib[p]),
			    i + 1 < s->nseq[k] ? "," : "");
			leduc_apply(inst, &r, a, NULL);
		}
	}
}

static void leduc_describe(const void *inst, const void *st, int seat,
			   char *buf, size_t len)
{
	const struct leduc_st *s = st;
	struct text t = { buf, len, 0 };
	int np = nplayers(inst), pot = 0;

	buf[0] = 0;
	for (int p = 0; p < np; p++)
		pot += s->contrib[p];
	put(&t, "leduc poker, %d players: you are seat %d\nyour card: %c",
	    np, seat,
	    s->priv[seat] >= 0 ? rank_ch(np, s->priv[seat] / 2) : '?');
	if (s->pub >= 0)
		put(&t, "\npublic card: %c", rank_ch(np, s->pub / 2));
	else
		put(&t, "\npublic card: not dealt yet");
	put(&t, "\npot: %d (you put in %d%s)", pot, s->contrib[seat],
	    s->folded[seat] ? ", folded" : "");
	if (s->dealt == np)
		leduc_put_moves(&t, inst, s);
	if (s->over) {
		double ret[POKER_PLAYERS_MAX];
		leduc_returns(inst, st, ret);
		put_result(&t, ret, seat);
	}
}

static void leduc_action_name(const void *inst, const void *st, int seat,
			      int action, char *buf, size_t len)
{
	const struct leduc_st *s = st;

	snprintf(buf, len, "%s",
		 leduc_move_name(action, s->raises > 0,
				 s->stakes > s->contrib[seat]));
}

/* leduc and leduc_short are one game observed two ways: the same table
 * but for the name, summary, create() and observe() (pfx_create and
 * pfx_observe). */
#define LEDUC_GAME(pfx, game_name, game_summary)                          \
	{                                                                 \
		ENV_GAME_HEAD(game_name, game_summary),                   \
		.create = pfx##_create, .destroy = poker_destroy,         \
		.observe = pfx##_observe, ENV_GAME_RULES(leduc),          \
		ENV_GAME_TREE(leduc), ENV_GAME_TEXT(leduc),               \
	}

const struct league_game env_game_leduc =
	LEDUC_GAME(leduc, "leduc",
		   "Leduc poker (2(N+1) cards, 2 rounds, 2..8 players: "
		   "env.params players), as OpenSpiel");

/* ---- Leduc with a short observation ------------------------------------ */

/* The two-player game observed without its history: seat, private card's
 * rank, the public card's rank, the round, and the last move of each
 * player in this hand (own first; zeros before one). A policy without
 * memory sees different histories alike here; one with memory can tell
 * them apart from the sequence of what it saw at its own decisions. */
#define LS_OBS (2 + 3 + 3 + 2 + 3 + 3)

static int leduc_short_create(const struct league_game_params *p,
			      void **inst, struct league_game_spec *spec,
			      char *err, size_t errlen)
{
	return leduc_make(p, "leduc_short", 0, LS_OBS, inst, spec, err,
			  errlen);
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

const struct league_game env_game_leduc_short =
	LEDUC_GAME(leduc_short, "leduc_short",
		   "Leduc poker observed without its history: cards, round "
		   "and each player's last move");
