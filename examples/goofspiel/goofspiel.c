/*
 * examples/goofspiel/goofspiel.c: Goofspiel for 2 to 4 players as a
 * league game plugin (game ABI version 2), the worked example of
 * docs/games.md. It includes only league_game.h.
 *
 * Rules (imperfect-information Goofspiel, as OpenSpiel's): each player
 * holds the cards 1..N, and a deck of prize cards 1..N is turned over one
 * at a time in a random order. Each turn every player bids one card of
 * their hand at once; the highest bid takes the prize's value in points
 * if no other player bid as high, else the prize is discarded. Bids are
 * shown after the turn. After N turns the returns are (returns:
 * win_loss, the default) +1 for a sole winner and -1/(P-1) for each of
 * the P-1 others; k players sharing the most points get (P-k)/(k(P-1))
 * each and the rest -1/(P-1); or (returns: points) each player's points
 * minus the mean of the others'. Both are zero-sum; with two players
 * they are +1/-1 (0 for a draw) and the point difference.
 *
 * Written as the ABI asks for simultaneous games: seat 0 bids, then seat
 * 1 without seeing it, and so on; the last bid resolves the turn. The
 * prize is a chance node, so trees enumerate it and `league eval
 * nashconv` works.
 *
 * params: players (2..4, default 2), cards (2..8, default 4), returns
 * (win_loss | points). Action a bids card a+1 (its name: "bid1" ...).
 * Observation of seat p ((P+3)N+1 floats): the prize (one-hot N), p's
 * hand (N), each other seat's hand as shown, in seat order from p+1 (N
 * each), the prizes still to come (N), the prizes p has won (N), and p's
 * points minus the mean of the others', over the total of all prizes.
 * With two players this is version 1's encoding, unchanged.
 */
#include "league_game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CARDS_MAX 8
#define PLAYERS_MAX 4

struct gs_game {
	int n;      /* cards */
	int np;     /* players */
	int points; /* returns: points, not win/loss */
};

struct gs_state {
	int8_t turn;                         /* 0..n */
	int8_t prize;                        /* card 1..n shown, 0 before */
	int8_t bid[PLAYERS_MAX];             /* this turn's hidden bids */
	int8_t hand[PLAYERS_MAX][CARDS_MAX]; /* 1: still held */
	int8_t deck[CARDS_MAX];              /* 1: prize not shown yet */
	int8_t won[PLAYERS_MAX][CARDS_MAX];  /* prizes taken */
	int8_t hist[CARDS_MAX][1 + PLAYERS_MAX]; /* per turn: prize, bids */
	int16_t score[PLAYERS_MAX];
};

/* Param k's value v, a whole number in [2, hi], into *out; else -1 with
 * the reason in err (*out untouched). */
static int whole_param(const char *k, const char *v, int hi, int *out,
		       char *err, size_t errlen)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (!*v || *end || n < 2 || n > hi) {
		snprintf(err, errlen, "%s: expected a whole number in [2, %d], "
			 "got '%s'", k, hi, v);
		return -1;
	}
	*out = (int)n;
	return 0;
}

/* Read the params into g; 0, or -1 with the reason in err. */
static int gs_params(struct gs_game *g, const struct league_game_params *p,
		     char *err, size_t errlen)
{
	for (uint32_t i = 0; i < p->count; i++) {
		const char *k = p->keys[i], *v = p->values[i];
		if (!strcmp(k, "cards")) {
			if (whole_param(k, v, CARDS_MAX, &g->n, err, errlen))
				return -1;
		} else if (!strcmp(k, "players")) {
			if (whole_param(k, v, PLAYERS_MAX, &g->np, err,
					errlen))
				return -1;
		} else if (!strcmp(k, "returns")) {
			if (strcmp(v, "win_loss") && strcmp(v, "points")) {
				snprintf(err, errlen, "returns: expected "
					 "win_loss or points, got '%s'", v);
				return -1;
			}
			g->points = !strcmp(v, "points");
		} else {
			snprintf(err, errlen, "unknown param '%s' (goofspiel "
				 "takes players, cards and returns)", k);
			return -1;
		}
	}
	return 0;
}

static int gs_create(const struct league_game_params *p, void **inst,
		     struct league_game_spec *spec, char *err, size_t errlen)
{
	struct gs_game *g = calloc(1, sizeof *g);

	if (!g) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	g->n = 4;
	g->np = 2;
	if (gs_params(g, p, err, errlen)) {
		free(g);
		return -1;
	}
	memset(spec, 0, sizeof *spec);
	spec->players = (uint32_t)g->np;
	for (int s = 0; s < g->np; s++) { /* every seat alike: one role */
		spec->seat[s].num_actions = (uint32_t)g->n;
		spec->seat[s].obs_len = (uint32_t)((g->np + 3) * g->n + 1);
	}
	spec->payoff = LEAGUE_GAME_ZERO_SUM; /* teams 0: each seat its own */
	spec->flags = LEAGUE_GAME_SIMULTANEOUS | LEAGUE_GAME_HAS_CHANCE;
	spec->state_size = sizeof(struct gs_state);
	spec->max_steps = (uint64_t)g->n; /* one joint step per turn */
	*inst = g;
	return 0;
}

static void gs_destroy(void *inst)
{
	free(inst);
}

static void gs_root(const void *inst, void *st, struct league_game_rng *rng)
{
	const struct gs_game *g = inst;
	struct gs_state *s = st;

	memset(s, 0, sizeof *s);
	for (int i = 0; i < g->n; i++) {
		s->deck[i] = 1;
		for (int q = 0; q < g->np; q++)
			s->hand[q][i] = 1;
	}
}

/* The first seat still to bid this turn. */
static int to_bid(const struct gs_game *g, const struct gs_state *s)
{
	int q = 0;

	while (q < g->np - 1 && s->bid[q])
		q++;
	return q;
}

static int gs_player(const void *inst, const void *st)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;

	if (s->turn == g->n)
		return LEAGUE_GAME_TERMINAL;
	if (!s->prize)
		return LEAGUE_GAME_CHANCE;
	return to_bid(g, s);
}

static int gs_chance(const void *inst, const void *st, int *out,
		     double *probs)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;
	int n = 0;

	for (int i = 0; i < g->n; i++)
		if (s->deck[i])
			out[n++] = i;
	for (int i = 0; i < n; i++)
		probs[i] = 1.0 / n;
	return n;
}

static int gs_legal(const void *inst, const void *st, int seat,
		    uint8_t *mask)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;
	int n = 0;

	for (int i = 0; i < g->n; i++)
		n += mask[i] = (uint8_t)(s->hand[seat][i] != 0);
	return n;
}

/* The last bid is in: the highest unmatched bid takes the prize. */
static void resolve(const struct gs_game *g, struct gs_state *s)
{
	int t = s->turn, best = 0, who = -1;

	s->hist[t][0] = s->prize;
	for (int q = 0; q < g->np; q++) {
		s->hist[t][1 + q] = s->bid[q];
		if (s->bid[q] > best) {
			best = s->bid[q];
			who = q;
		} else if (s->bid[q] == best) {
			who = -1; /* matched: nobody takes it */
		}
	}
	if (who >= 0) {
		s->score[who] = (int16_t)(s->score[who] + s->prize);
		s->won[who][s->prize - 1] = 1;
	}
	s->turn++;
	memset(s->bid, 0, sizeof s->bid);
	s->prize = 0; /* the next turn starts with a chance node */
}

static void gs_apply(const void *inst, void *st, int a,
		     struct league_game_rng *rng)
{
	const struct gs_game *g = inst;
	struct gs_state *s = st;
	int q;

	if (!s->prize) { /* chance: the prize card a+1 */
		s->prize = (int8_t)(a + 1);
		s->deck[a] = 0;
		return;
	}
	q = to_bid(g, s);
	s->bid[q] = (int8_t)(a + 1);
	s->hand[q][a] = 0;
	if (q == g->np - 1)
		resolve(g, s);
}

/* Seat p's points minus the mean of the others'. */
static double lead(const struct gs_game *g, const struct gs_state *s, int p)
{
	double others = 0;

	for (int q = 0; q < g->np; q++)
		if (q != p)
			others += s->score[q];
	return s->score[p] - others / (g->np - 1);
}

static void gs_observe(const void *inst, const void *st, int p, float *out)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;
	int n = g->n, np = g->np, over = s->turn == n;
	float total = (float)(n * (n + 1) / 2);
	float *deck = out + (size_t)(2 + np - 1) * n;

	memset(out, 0, ((size_t)(np + 3) * n + 1) * sizeof *out);
	if (!over && s->prize)
		out[s->prize - 1] = 1;
	for (int i = 0; i < n; i++) {
		out[n + i] = s->hand[p][i];
		/* The others' hands as shown: a hidden bid is not out. */
		for (int k = 1; k < np; k++) {
			int q = (p + k) % np;
			out[(1 + k) * n + i] = s->hand[q][i] ||
					       s->bid[q] == i + 1;
		}
		deck[i] = s->deck[i];
		deck[n + i] = s->won[p][i];
	}
	deck[2 * n] = (float)lead(g, s, p) / total;
}

static void gs_returns(const void *inst, const void *st, double *out)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;
	int np = g->np, top = s->score[0], k = 0;

	for (int q = 0; q < np; q++)
		if (s->score[q] > top)
			top = s->score[q];
	for (int q = 0; q < np; q++)
		k += s->score[q] == top;
	for (int q = 0; q < np; q++) {
		if (g->points)
			out[q] = lead(g, s, q);
		else if (k == np)
			out[q] = 0; /* everyone shares the most: a draw */
		else
			out[q] = s->score[q] == top
					 ? (double)(np - k) / (k * (np - 1))
					 : -1.0 / (np - 1);
	}
}

/* Seat p knows the past turns, the prize, and its own hidden bid. */
static void gs_infostate(const void *inst, const void *st, int p, char *buf,
			 size_t len)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;
	size_t at = 0;

	at += (size_t)snprintf(buf, len, "p%d", p);
	for (int t = 0; t < s->turn && at < len; t++) {
		at += (size_t)snprintf(buf + at, len - at, " %d:",
				       s->hist[t][0]);
		for (int q = 0; q < g->np && at < len; q++)
			at += (size_t)snprintf(buf + at, len - at, "%s%d",
					       q ? "-" : "", s->hist[t][1 + q]);
	}
	if (at < len && s->prize && s->bid[p])
		snprintf(buf + at, len - at, " %d:%d", s->prize, s->bid[p]);
	else if (at < len && s->prize)
		snprintf(buf + at, len - at, " %d:", s->prize);
}

/* Text for a human: the prize, the seat's hand, the scores, the past
 * turns' bids. */
static void gs_describe(const void *inst, const void *st, int p, char *buf,
			size_t len)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;
	size_t at = 0;

#define PUT(...)                                                            \
	do {                                                                \
		if (at < len)                                               \
			at += (size_t)snprintf(buf + at, len - at,          \
					       __VA_ARGS__);                \
	} while (0)
	if (s->prize && s->turn < g->n)
		PUT("turn %d of %d: the prize is %d\n", s->turn + 1, g->n,
		    s->prize);
	else
		PUT("after %d turns\n", s->turn);
	PUT("your hand:");
	for (int i = 0; i < g->n; i++)
		if (s->hand[p][i])
			PUT(" %d", i + 1);
	PUT("\npoints:");
	for (int q = 0; q < g->np; q++)
		PUT(" %s%d", q == p ? "you " : "", s->score[q]);
	for (int t = 0; t < s->turn; t++) {
		PUT("\nturn %d: prize %d, bids", t + 1, s->hist[t][0]);
		for (int q = 0; q < g->np; q++)
			PUT(" %d", s->hist[t][1 + q]);
	}
#undef PUT
}

static void gs_action_name(const void *inst, const void *st, int seat,
			   int action, char *buf, size_t len)
{
	snprintf(buf, len, "bid%d", action + 1);
}

static const struct league_game goofspiel = {
	.abi = LEAGUE_GAME_ABI,
	.name = "goofspiel",
	.summary = "Goofspiel, 2-4 players, N cards, simultaneous bids "
		   "(example plugin)",
	.create = gs_create,
	.destroy = gs_destroy,
	.root = gs_root,
	.player = gs_player,
	.chance = gs_chance,
	.legal = gs_legal,
	.apply = gs_apply,
	.observe = gs_observe,
	.returns = gs_returns,
	.infostate = gs_infostate,
	.describe = gs_describe,
	.action_name = gs_action_name,
};

__attribute__((visibility("default"))) const struct league_game *
league_game(void)
{
	return &goofspiel;
}
