/*
 * examples/goofspiel/goofspiel.c: Goofspiel as a league game plugin, the
 * worked example of docs/games.md. It includes only league_game.h.
 *
 * Rules (imperfect-information Goofspiel, as OpenSpiel's default): each
 * player holds the cards 1..N, and a deck of prize cards 1..N is turned
 * over one at a time in a random order. Each turn both players bid one
 * card of their hand at once; the higher bid takes the prize's value in
 * points, a tie discards it. Bids are shown after the turn. After N turns
 * the player with more points wins: +1 / -1, 0 for a draw (or, with
 * returns: points, the point difference).
 *
 * Written as the ABI asks for simultaneous games: player 0 bids, then
 * player 1 bids without seeing it, then the turn resolves; the prize is
 * a chance node, so trees enumerate it and `league eval nashconv` works.
 *
 * params: cards (2..8, default 4), returns (win_loss | points).
 * Action a bids card a+1. Observation of player p (5N+1 floats): the
 * prize (one-hot N), p's hand (N), the opponent's hand (N), the prizes
 * still to come (N), the prizes p has won (N), and the point difference
 * from p's side over the total of all prizes.
 */
#include "league_game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CARDS_MAX 8

struct gs_game {
	int n;
	int points; /* returns: the point difference, not win/loss */
};

struct gs_state {
	int8_t turn;               /* 0..n */
	int8_t prize;              /* card 1..n on the table, 0 before chance */
	int8_t bid0;               /* player 0's hidden bid this turn, or 0 */
	int8_t hand[2][CARDS_MAX]; /* 1: still held */
	int8_t deck[CARDS_MAX];    /* 1: prize not shown yet */
	int8_t won[2][CARDS_MAX];  /* prizes taken */
	int8_t hist[CARDS_MAX][3]; /* per past turn: prize, bid0, bid1 */
	int16_t score[2];
};

static int gs_create(const struct league_game_params *p, void **inst,
		     struct league_game_spec *spec, char *err, size_t errlen)
{
	struct gs_game *g = calloc(1, sizeof *g);

	if (!g) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	g->n = 4;
	for (uint32_t i = 0; i < p->count; i++) {
		const char *k = p->keys[i], *v = p->values[i];
		char *end;
		if (!strcmp(k, "cards")) {
			long n = strtol(v, &end, 10);
			if (*v == 0 || *end || n < 2 || n > CARDS_MAX) {
				snprintf(err, errlen, "cards: expected a whole "
					 "number in [2, %d], got '%s'",
					 CARDS_MAX, v);
				free(g);
				return -1;
			}
			g->n = (int)n;
		} else if (!strcmp(k, "returns")) {
			if (strcmp(v, "win_loss") && strcmp(v, "points")) {
				snprintf(err, errlen, "returns: expected "
					 "win_loss or points, got '%s'", v);
				free(g);
				return -1;
			}
			g->points = !strcmp(v, "points");
		} else {
			snprintf(err, errlen, "unknown param '%s' (goofspiel "
				 "takes cards and returns)", k);
			free(g);
			return -1;
		}
	}
	memset(spec, 0, sizeof *spec);
	spec->players = 2;
	for (int s = 0; s < 2; s++) {
		spec->seat[s].num_actions = (uint32_t)g->n;
		spec->seat[s].obs_len = 5u * (uint32_t)g->n + 1;
	}
	spec->payoff = LEAGUE_GAME_ZERO_SUM;
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
	for (int i = 0; i < g->n; i++)
		s->hand[0][i] = s->hand[1][i] = s->deck[i] = 1;
}

static int gs_player(const void *inst, const void *st)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;

	if (s->turn == g->n)
		return LEAGUE_GAME_TERMINAL;
	if (!s->prize)
		return LEAGUE_GAME_CHANCE;
	return s->bid0 ? 1 : 0;
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

static int gs_legal(const void *inst, const void *st, int player,
		    uint8_t *mask)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;
	int n = 0;

	for (int i = 0; i < g->n; i++)
		n += mask[i] = (uint8_t)(s->hand[player][i] != 0);
	return n;
}

static void gs_apply(const void *inst, void *st, int a,
		     struct league_game_rng *rng)
{
	struct gs_state *s = st;
	int b0, b1, t;

	if (!s->prize) { /* chance: the prize card a+1 */
		s->prize = (int8_t)(a + 1);
		s->deck[a] = 0;
		return;
	}
	if (!s->bid0) {
		s->bid0 = (int8_t)(a + 1);
		s->hand[0][a] = 0;
		return;
	}
	b0 = s->bid0;
	b1 = a + 1;
	s->hand[1][a] = 0;
	t = s->turn;
	s->hist[t][0] = s->prize;
	s->hist[t][1] = (int8_t)b0;
	s->hist[t][2] = (int8_t)b1;
	if (b0 != b1) {
		int w = b0 > b1 ? 0 : 1;
		s->score[w] = (int16_t)(s->score[w] + s->prize);
		s->won[w][s->prize - 1] = 1;
	}
	s->turn++;
	s->bid0 = 0;
	s->prize = 0; /* the next turn starts with a chance node */
}

static void gs_observe(const void *inst, const void *st, int p,
		       float *out)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;
	int n = g->n, over = s->turn == n;
	float total = (float)(n * (n + 1) / 2);

	memset(out, 0, (5 * (size_t)n + 1) * sizeof *out);
	if (!over && s->prize)
		out[s->prize - 1] = 1;
	for (int i = 0; i < n; i++) {
		out[n + i] = s->hand[p][i];
		/* The opponent's hand as shown: a hidden bid is not out. */
		out[2 * n + i] = s->hand[1 - p][i] ||
				 (p == 1 && s->bid0 == i + 1);
		out[3 * n + i] = s->deck[i];
		out[4 * n + i] = s->won[p][i];
	}
	out[5 * n] = (float)(s->score[p] - s->score[1 - p]) / total;
}

static void gs_returns(const void *inst, const void *st, double *out)
{
	const struct gs_game *g = inst;
	const struct gs_state *s = st;
	double d = s->score[0] - s->score[1];

	if (!g->points)
		d = d > 0 ? 1 : d < 0 ? -1 : 0;
	out[0] = d;
	out[1] = -d;
}

/* Player p knows the past turns, the prize, and its own hidden bid. */
static void gs_infostate(const void *inst, const void *st, int p, char *buf,
			 size_t len)
{
	const struct gs_state *s = st;
	size_t at = 0;

	at += (size_t)snprintf(buf, len, "p%d", p);
	for (int t = 0; t < s->turn && at < len; t++)
		at += (size_t)snprintf(buf + at, len - at, " %d:%d-%d",
				       s->hist[t][0], s->hist[t][1],
				       s->hist[t][2]);
	if (at < len && s->prize && p == 0 && s->bid0)
		snprintf(buf + at, len - at, " %d:%d", s->prize, s->bid0);
	else if (at < len && s->prize)
		snprintf(buf + at, len - at, " %d:", s->prize);
}

static const struct league_game goofspiel = {
	.abi = LEAGUE_GAME_ABI,
	.name = "goofspiel",
	.summary = "Goofspiel, N cards, simultaneous bids (example plugin)",
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
};

__attribute__((visibility("default"))) const struct league_game *
league_game(void)
{
	return &goofspiel;
}
