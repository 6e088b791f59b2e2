/*
 * envs/othello.c: Othello (Reversi) on 8 x 8, as OpenSpiel's othello:
 * 65 actions, the game of the ABI (version 2) beyond 64 actions.
 *
 * Cells: row r (0 top, printed 1..8) and column c (0 left, printed a..h)
 * are action r * 8 + c; action 64 is pass. Player 0 is black (x) and
 * moves first; the start has white on d4 and e5, black on d5 and e4.
 * A placement must flip at least one line of opponent discs (a straight
 * run, in any of the 8 directions, closed by a disc of the mover); every
 * such line flips. Pass is legal exactly when the mover has no
 * placement; the game ends when neither player has one. More discs wins
 * +1 / -1, equal counts are a draw (0, 0).
 *
 * The board is two bitboards (bit r * 8 + c set for the player's discs);
 * moves and flips are computed a direction at a time by shifting whole
 * boards. Observation of seat p: planes own, opponent, empty (3 x 8 x 8),
 * as Connect Four's.
 */
#include "envs/env_internal.h"

#include <stdio.h>
#include <stdlib.h>

#define OTH_CELLS (ENV_OTH_SIDE * ENV_OTH_SIDE)
#define FILE_A 0x0101010101010101ull
#define FILE_H 0x8080808080808080ull

/* b moved one cell in direction d (0..7: E, W, S, N, SE, SW, NE, NW),
 * with what would wrap around a side dropped. */
static uint64_t shift(uint64_t b, int d)
{
	switch (d) {
	case 0: return (b << 1) & ~FILE_A;
	case 1: return (b >> 1) & ~FILE_H;
	case 2: return b << 8;
	case 3: return b >> 8;
	case 4: return (b << 9) & ~FILE_A;
	case 5: return (b << 7) & ~FILE_H;
	case 6: return (b >> 7) & ~FILE_A;
	default: return (b >> 9) & ~FILE_H;
	}
}

/* env_internal.h */
uint64_t env_oth_moves(uint64_t own, uint64_t opp)
{
	uint64_t empty = ~(own | opp), moves = 0;

	for (int d = 0; d < 8; d++) {
		/* runs of opponent discs starting next to one of ours */
		uint64_t x = shift(own, d) & opp;
		for (int k = 0; k < 5; k++)
			x |= shift(x, d) & opp;
		moves |= shift(x, d) & empty;
	}
	return moves;
}

/* env_internal.h */
uint64_t env_oth_flips(uint64_t own, uint64_t opp, int cell)
{
	uint64_t flips = 0;

	for (int d = 0; d < 8; d++) {
		uint64_t run = 0, x = shift(1ull << cell, d);
		while (x & opp) {
			run |= x;
			x = shift(x, d);
		}
		if (x & own)
			flips |= run;
	}
	return flips;
}

static int othello_create(const struct league_game_params *p, void **inst,
			  struct league_game_spec *spec, char *err,
			  size_t errlen)
{
	if (p && p->count) {
		lg_errf(err, errlen, "env.params: '%s': othello takes no "
			"params", p->keys[0]);
		return LG_EINVAL;
	}
	*inst = NULL;
	memset(spec, 0, sizeof *spec);
	spec->players = 2;
	spec->payoff = LEAGUE_GAME_ZERO_SUM;
	spec->state_size = sizeof(struct env_oth_st);
	/* a pass is always followed by a placement, so at most 60 + 60 */
	spec->max_steps = 2 * (OTH_CELLS - 4);
	for (int i = 0; i < 2; i++) {
		struct league_game_seat *s = &spec->seat[i];
		s->obs_len = 3 * OTH_CELLS;
		s->obs_rank = 3; /* own, opponent, empty x rows x columns */
		s->obs_shape[0] = 3;
		s->obs_shape[1] = s->obs_shape[2] = ENV_OTH_SIDE;
		s->num_actions = ENV_OTH_ACTIONS;
	}
	return 0;
}

static void othello_destroy(void *inst)
{
	free(inst); /* NULL: othello has no instance */
}

static void othello_root(const void *inst, void *st,
			 struct league_game_rng *rng)
{
	struct env_oth_st *s = st;

	memset(s, 0, sizeof *s);
	s->disc[0] = 1ull << (3 * 8 + 4) | 1ull << (4 * 8 + 3); /* e4 d5 */
	s->disc[1] = 1ull << (3 * 8 + 3) | 1ull << (4 * 8 + 4); /* d4 e5 */
}

static int othello_player(const void *inst, const void *st)
{
	const struct env_oth_st *s = st;

	return s->over ? LEAGUE_GAME_TERMINAL : s->cur;
}

static int othello_legal(const void *inst, const void *st, int seat,
			 uint8_t *mask)
{
	const struct env_oth_st *s = st;
	uint64_t m;
	int n = 0;

	memset(mask, 0, ENV_OTH_ACTIONS);
	if (s->over || seat != s->cur)
		return 0;
	m = env_oth_moves(s->disc[s->cur], s->disc[1 - s->cur]);
	if (!m) {
		mask[ENV_OTH_PASS] = 1;
		return 1;
	}
	for (; m; m &= m - 1, n++)
		mask[__builtin_ctzll(m)] = 1;
	return n;
}

static void othello_apply(const void *inst, void *st, int a,
			  struct league_game_rng *rng)
{
	struct env_oth_st *s = st;
	uint64_t *own = &s->disc[s->cur], *opp = &s->disc[1 - s->cur];

	if (a != ENV_OTH_PASS) {
		uint64_t f = env_oth_flips(*own, *opp, a);
		*own |= f | 1ull << a;
		*opp &= ~f;
	}
	s->cur = (int8_t)(1 - s->cur);
	/* the next mover passes if it must; the game ends if both would */
	if (!env_oth_moves(*opp, *own) && !env_oth_moves(*own, *opp))
		s->over = 1;
}

static void othello_observe(const void *inst, const void *st, int seat,
			    float *out)
{
	const struct env_oth_st *s = st;

	for (int i = 0; i < OTH_CELLS; i++) {
		uint64_t bit = 1ull << i;
		out[i] = (s->disc[seat] & bit) != 0;
		out[OTH_CELLS + i] = (s->disc[1 - seat] & bit) != 0;
		out[2 * OTH_CELLS + i] = !((s->disc[0] | s->disc[1]) & bit);
	}
}

static void othello_returns(const void *inst, const void *st, double *out)
{
	const struct env_oth_st *s = st;
	int d = __builtin_popcountll(s->disc[0]) -
		__builtin_popcountll(s->disc[1]);

	out[0] = d > 0 ? 1 : d < 0 ? -1 : 0;
	out[1] = -out[0];
}

static void othello_action_name(const void *inst, const void *st, int seat,
				int a, char *buf, size_t len)
{
	if (a == ENV_OTH_PASS)
		snprintf(buf, len, "pass");
	else
		snprintf(buf, len, "%c%d", 'a' + a % 8, a / 8 + 1);
}

/* The board (x black, o white, + a legal placement of the mover), the
 * disc counts and whose turn it is; the same for both seats. */
static void othello_describe(const void *inst, const void *st, int seat,
			     char *buf, size_t len)
{
	const struct env_oth_st *s = st;
	uint64_t legal = s->over ? 0 : env_oth_moves(s->disc[s->cur],
						     s->disc[1 - s->cur]);
	size_t k = env_text_put(buf, len, 0, "  a b c d e f g h\n");

	for (int r = 0; r < ENV_OTH_SIDE; r++) {
		k = env_text_put(buf, len, k, "%d", r + 1);
		for (int c = 0; c < ENV_OTH_SIDE; c++) {
			uint64_t bit = 1ull << (r * 8 + c);
			k = env_text_put(buf, len, k, " %c",
					 s->disc[0] & bit   ? 'x'
					 : s->disc[1] & bit ? 'o'
					 : legal & bit	    ? '+'
							    : '.');
		}
		k = env_text_put(buf, len, k, "\n");
	}
	k = env_text_put(buf, len, k, "x (black) %d, o (white) %d; you are "
			 "%s\n", __builtin_popcountll(s->disc[0]),
			 __builtin_popcountll(s->disc[1]), seat ? "o" : "x");
	if (s->over)
		env_text_put(buf, len, k, "game over\n");
	else
		env_text_put(buf, len, k, "%s to move%s\n", s->cur ? "o" : "x",
			     legal ? "" : " (must pass)");
}

const struct league_game env_game_othello = {
	ENV_GAME_HEAD("othello",
		      "Othello 8x8 with pass (65 actions), as OpenSpiel"),
	ENV_GAME_FNS(othello),
	ENV_GAME_TEXT(othello),
};
