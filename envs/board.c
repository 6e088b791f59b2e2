/*
 * envs/board.c: tic-tac-toe and Connect Four (6 rows x 7 columns), as
 * OpenSpiel's tic_tac_toe and connect_four: player 0 moves first, a line
 * of 3 (4) wins +1 / -1, a full board is a draw (0).
 *
 * Actions: tic-tac-toe cell 0..8 (row-major); Connect Four column 0..6.
 * Observation of player p: three planes over the cells, own pieces,
 * opponent pieces, empty (so a network sees the board from p's side).
 */
#include "envs/env_internal.h"

/* ---- tic-tac-toe ------------------------------------------------------- */

static int ttt_setup(struct env_opts *o, struct env_spec *spec, char *err,
		     size_t errlen)
{
	spec->players = 2;
	spec->obs_len = 27;
	spec->obs_rank = 3; /* planes own, opponent, empty x 3 x 3 */
	spec->obs_shape[0] = spec->obs_shape[1] = spec->obs_shape[2] = 3;
	spec->num_actions = 9;
	spec->max_steps = 9;
	spec->flags = ENV_F_ZERO_SUM;
	return 0;
}

static void ttt_root(const void *inst, void *st, struct league_game_rng *rng)
{
	struct env_ttt_st *s = st;

	memset(s, 0, sizeof *s);
	s->winner = -1;
}

static int ttt_player(const void *inst, const void *st)
{
	const struct env_ttt_st *s = st;

	return s->winner >= 0 || s->moves == 9 ? ENV_TERMINAL : s->cur;
}

static int ttt_legal(const void *inst, const void *st, int player,
		     uint8_t *mask)
{
	const struct env_ttt_st *s = st;
	int n = 0;

	for (int i = 0; i < 9; i++)
		n += mask[i] = s->cell[i] == 0;
	return n;
}

static void ttt_apply(const void *inst, void *st, int a, struct league_game_rng *rng)
{
	static const int8_t lines[8][3] = {
		{ 0, 1, 2 }, { 3, 4, 5 }, { 6, 7, 8 }, { 0, 3, 6 },
		{ 1, 4, 7 }, { 2, 5, 8 }, { 0, 4, 8 }, { 2, 4, 6 },
	};
	struct env_ttt_st *s = st;
	int8_t me = (int8_t)(s->cur + 1);

	s->cell[a] = me;
	s->moves++;
	for (int l = 0; l < 8; l++)
		if (s->cell[lines[l][0]] == me && s->cell[lines[l][1]] == me &&
		    s->cell[lines[l][2]] == me)
			s->winner = s->cur;
	s->cur = (int8_t)(1 - s->cur);
}

static void planes(const int8_t *cell, int n, int pl, float *out)
{
	for (int i = 0; i < n; i++) {
		int v = cell[i];
		out[i] = v == pl + 1;
		out[n + i] = v != 0 && v != pl + 1;
		out[2 * n + i] = v == 0;
	}
}

static void ttt_observe(const void *inst, const void *st, int pl,
			float *out)
{
	planes(((const struct env_ttt_st *)st)->cell, 9, pl, out);
}

static void win_returns(int winner, double *out)
{
	if (winner < 0) {
		out[0] = out[1] = 0;
		return;
	}
	out[winner] = 1;
	out[1 - winner] = -1;
}

static void ttt_returns(const void *inst, const void *st, double *out)
{
	win_returns(((const struct env_ttt_st *)st)->winner, out);
}

ENV_BUILTIN_GAME(ttt, ttt_setup, sizeof(struct env_ttt_st))

const struct league_game env_game_tictactoe = {
	ENV_GAME_HEAD("tictactoe", "tic-tac-toe, as OpenSpiel"),
	ENV_GAME_FNS(ttt),
	.chance = env_no_chance,
};

/* ---- Connect Four ------------------------------------------------------ */

#define NCELL (ENV_C4_ROWS * ENV_C4_COLS)

static int c4_setup(struct env_opts *o, struct env_spec *spec, char *err,
		    size_t errlen)
{
	spec->players = 2;
	spec->obs_len = 3 * NCELL;
	spec->obs_rank = 3; /* planes own, opponent, empty x rows x cols */
	spec->obs_shape[0] = 3;
	spec->obs_shape[1] = ENV_C4_ROWS;
	spec->obs_shape[2] = ENV_C4_COLS;
	spec->num_actions = ENV_C4_COLS;
	spec->max_steps = NCELL;
	spec->flags = ENV_F_ZERO_SUM;
	return 0;
}

static void c4_root(const void *inst, void *st, struct league_game_rng *rng)
{
	struct env_c4_st *s = st;

	memset(s, 0, sizeof *s);
	s->winner = -1;
}

static int c4_player(const void *inst, const void *st)
{
	const struct env_c4_st *s = st;

	return s->winner >= 0 || s->moves == NCELL ? ENV_TERMINAL : s->cur;
}

static int c4_legal(const void *inst, const void *st, int player,
		    uint8_t *mask)
{
	const struct env_c4_st *s = st;
	int n = 0;

	for (int c = 0; c < ENV_C4_COLS; c++)
		n += mask[c] = s->height[c] < ENV_C4_ROWS;
	return n;
}

/* Length of the run through (r, c) in direction (dr, dc), both ways. */
static int c4_run(const struct env_c4_st *s, int r, int c, int dr, int dc)
{
	int8_t me = s->cell[r * ENV_C4_COLS + c];
	int n = 1;

	for (int k = 1; k < 4; k++) {
		int rr = r + k * dr, cc = c + k * dc;
		if (rr < 0 || rr >= ENV_C4_ROWS || cc < 0 ||
		    cc >= ENV_C4_COLS || s->cell[rr * ENV_C4_COLS + cc] != me)
			break;
		n++;
	}
	for (int k = 1; k < 4; k++) {
		int rr = r - k * dr, cc = c - k * dc;
		if (rr < 0 || rr >= ENV_C4_ROWS || cc < 0 ||
		    cc >= ENV_C4_COLS || s->cell[rr * ENV_C4_COLS + cc] != me)
			break;
		n++;
	}
	return n;
}

static void c4_apply(const void *inst, void *st, int a, struct league_game_rng *rng)
{
	struct env_c4_st *s = st;
	int r = s->height[a];

	s->cell[r * ENV_C4_COLS + a] = (int8_t)(s->cur + 1);
	s->height[a]++;
	s->moves++;
	if (c4_run(s, r, a, 0, 1) >= 4 || c4_run(s, r, a, 1, 0) >= 4 ||
	    c4_run(s, r, a, 1, 1) >= 4 || c4_run(s, r, a, 1, -1) >= 4)
		s->winner = s->cur;
	s->cur = (int8_t)(1 - s->cur);
}

static void c4_observe(const void *inst, const void *st, int pl,
		       float *out)
{
	planes(((const struct env_c4_st *)st)->cell, NCELL, pl, out);
}

static void c4_returns(const void *inst, const void *st, double *out)
{
	win_returns(((const struct env_c4_st *)st)->winner, out);
}

ENV_BUILTIN_GAME(c4, c4_setup, sizeof(struct env_c4_st))

const struct league_game env_game_connect4 = {
	ENV_GAME_HEAD("connect4", "Connect Four 6x7, as OpenSpiel"),
	ENV_GAME_FNS(c4),
	.chance = env_no_chance,
};
