/*
 * envs/baseline.c: fixed baseline players for evaluation jobs.
 *
 *   random       uniform over the legal actions, any game;
 *   minimax      tic-tac-toe, perfect play: exact negamax values (memoised
 *                over the 3^9 board codes), ties among equally good moves
 *                broken uniformly with the caller's rng;
 *   alphabeta:N  Connect Four, negamax alpha-beta to depth N
 *                (1..ENV_C4_DEPTH_MAX; "alphabeta" alone is 4) with
 *                a window heuristic; ties at the root broken by the rng.
 */
#include "envs/env_internal.h"

#include <stdio.h>
#include <stdlib.h>

enum { B_RANDOM, B_MINIMAX, B_ALPHABETA };

struct env_baseline {
	int kind;
	int depth;
	const struct league_game *g;
	int8_t *memo; /* minimax: value+1 for each board code, 0 unknown */
};

/* The spec syntax, parsed here only: the kind and depth spec names for game
 * `game` (a registry name), or LG_EINVAL with err. */
static int parse_spec(const char *spec, const char *game, int *kind,
		      int *depth, char *err, size_t errlen)
{
	*depth = 0;
	if (!strcmp(spec, "random")) {
		*kind = B_RANDOM;
	} else if (!strcmp(spec, "minimax")) {
		if (strcmp(game, env_game_tictactoe.name)) {
			lg_errf(err, errlen, "baseline 'minimax' plays "
				"tictactoe, not %s", game);
			return LG_EINVAL;
		}
		*kind = B_MINIMAX;
	} else if (!strncmp(spec, "alphabeta", 9) &&
		   (spec[9] == 0 || spec[9] == ':')) {
		int64_t d = 4;
		if (strcmp(game, env_game_connect4.name)) {
			lg_errf(err, errlen, "baseline '%s' plays connect4, "
				"not %s", spec, game);
			return LG_EINVAL;
		}
		if (spec[9] == ':' &&
		    lg_parse_i64(spec + 10, 1, ENV_C4_DEPTH_MAX, &d)) {
			lg_errf(err, errlen, "baseline '%s': depth must be "
				"1..%d", spec, ENV_C4_DEPTH_MAX);
			return LG_EINVAL;
		}
		*kind = B_ALPHABETA;
		*depth = (int)d;
	} else {
		lg_errf(err, errlen, "unknown baseline '%s' (random, minimax, "
			"alphabeta:N)", spec);
		return LG_EINVAL;
	}
	return 0;
}

int env_baseline_check(const char *spec, const char *game, char *canon,
		       size_t canonlen, char *err, size_t errlen)
{
	int kind, depth, rc;

	if ((rc = parse_spec(spec, game, &kind, &depth, err, errlen)))
		return rc;
	if (kind == B_ALPHABETA)
		snprintf(canon, canonlen, "alphabeta:%d", depth);
	else
		snprintf(canon, canonlen, "%s", spec);
	return 0;
}

int env_baseline_new(env_baseline **out, const char *spec, const env *e,
		     char *err, size_t errlen)
{
	env_baseline *b;
	int kind, depth, rc;

	*out = NULL;
	if ((rc = parse_spec(spec, e->gm.spec.name, &kind, &depth, err, errlen)))
		return rc;
	b = calloc(1, sizeof *b);
	if (!b) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	b->kind = kind;
	b->depth = depth;
	b->g = e->gm.g;
	*out = b;
	return 0;
}

void env_baseline_free(env_baseline *b)
{
	if (!b)
		return;
	free(b->memo);
	free(b);
}

/* Uniform pick among the n set entries of mask[A]. */
static int pick(const uint8_t *mask, int A, lg_rng *rng)
{
	int n = 0, k;

	for (int a = 0; a < A; a++)
		n += mask[a] != 0;
	if (!n)
		return -1;
	k = (int)lg_rng_below(rng, (uint64_t)n);
	for (int a = 0; a < A; a++)
		if (mask[a] && k-- == 0)
			return a;
	return -1;
}

/* Action a of value v among the best of mask[A] so far (*best their
 * value): a better v starts the mask over at a, an equal one adds a. */
static void keep_best(int v, int a, int *best, uint8_t *mask, int A)
{
	if (v > *best) {
		*best = v;
		memset(mask, 0, (size_t)A);
	}
	if (v == *best)
		mask[a] = 1;
}

/* ---- tic-tac-toe minimax ----------------------------------------------- */

static int ttt_code(const struct env_ttt_st *s)
{
	int c = 0;

	for (int i = 0; i < 9; i++)
		c = c * 3 + s->cell[i];
	return c;
}

static int ttt_negamax(env_baseline *b, const struct env_ttt_st *s);

/* Value of the empty cell a for the player to move in s: +1 a win, 0 a
 * full board, else minus the opponent's value after it. */
static int ttt_move_value(env_baseline *b, const struct env_ttt_st *s, int a)
{
	struct env_ttt_st c = *s;

	b->g->apply(NULL, &c, a, NULL);
	return c.winner >= 0 ? 1 : c.moves == 9 ? 0 : -ttt_negamax(b, &c);
}

/* Value for the player to move: +1 win, 0 draw, -1 loss. */
static int ttt_negamax(env_baseline *b, const struct env_ttt_st *s)
{
	int code = ttt_code(s), best = -2;

	if (b->memo[code])
		return b->memo[code] - 2;
	for (int a = 0; a < 9; a++) {
		int v;
		if (s->cell[a])
			continue;
		v = ttt_move_value(b, s, a);
		if (v > best)
			best = v;
	}
	if (best == -2)
		best = 0; /* full board */
	b->memo[code] = (int8_t)(best + 2);
	return best;
}

static int ttt_act(env_baseline *b, const struct env_ttt_st *s, lg_rng *rng,
		   int *action)
{
	uint8_t best_mask[9] = { 0 };
	int best = -2;

	if (!b->memo) {
		b->memo = calloc(19683, 1);
		if (!b->memo)
			return LG_ENOMEM;
	}
	for (int a = 0; a < 9; a++)
		if (!s->cell[a])
			keep_best(ttt_move_value(b, s, a), a, &best,
				  best_mask, 9);
	*action = pick(best_mask, 9, rng);
	return *action < 0 ? LG_EINVAL : 0;
}

/* ---- Connect Four alpha-beta ------------------------------------------- */

#define C4_WIN 1000000

/* Heuristic for the player to move: every 4-cell window with pieces of
 * only one side scores 1/4/16 for 1/2/3 pieces (plus for the mover, minus
 * for the opponent); centre-column pieces add 3 each. */
static int c4_eval(const struct env_c4_st *s)
{
	static const int dirs[4][2] = { { 0, 1 }, { 1, 0 }, { 1, 1 },
					{ 1, -1 } };
	static const int w[4] = { 0, 1, 4, 16 };
	int me = s->cur + 1, score = 0;

	for (int r = 0; r < ENV_C4_ROWS; r++) {
		int v = s->cell[r * ENV_C4_COLS + 3];
		score += v == me ? 3 : v ? -3 : 0;
	}
	for (int r = 0; r < ENV_C4_ROWS; r++)
		for (int c = 0; c < ENV_C4_COLS; c++)
			for (int d = 0; d < 4; d++) {
				int er = r + 3 * dirs[d][0];
				int ec = c + 3 * dirs[d][1];
				int mine = 0, theirs = 0;
				if (er >= ENV_C4_ROWS || ec < 0 ||
				    ec >= ENV_C4_COLS)
					continue;
				for (int k = 0; k < 4; k++) {
					int v = s->cell[(r + k * dirs[d][0]) *
								ENV_C4_COLS +
							c + k * dirs[d][1]];
					mine += v == me;
					theirs += v && v != me;
				}
				if (mine && !theirs)
					score += w[mine];
				else if (theirs && !mine)
					score -= w[theirs];
			}
	return score;
}

static const int c4_order[ENV_C4_COLS] = { 3, 2, 4, 1, 5, 0, 6 };

static int c4_search(const struct league_game *g, const struct env_c4_st *s,
		     int depth, int alpha, int beta)
{
	int best = -C4_WIN * 2, any = 0;

	if (depth == 0)
		return c4_eval(s);
	for (int k = 0; k < ENV_C4_COLS; k++) {
		int a = c4_order[k], v;
		struct env_c4_st c = *s;
		if (s->height[a] >= ENV_C4_ROWS)
			continue;
		any = 1;
		g->apply(NULL, &c, a, NULL);
		if (c.winner >= 0)
			v = C4_WIN + depth; /* sooner wins score higher */
		else if (c.moves == ENV_C4_ROWS * ENV_C4_COLS)
			v = 0;
		else
			v = -c4_search(g, &c, depth - 1, -beta, -alpha);
		if (v > best)
			best = v;
		if (v > alpha)
			alpha = v;
		if (alpha >= beta)
			break;
	}
	return any ? best : 0;
}

static int c4_act(env_baseline *b, const struct env_c4_st *s, lg_rng *rng,
		  int *action)
{
	uint8_t best_mask[ENV_C4_COLS] = { 0 };
	int best = -C4_WIN * 2;

	for (int k = 0; k < ENV_C4_COLS; k++) {
		int a = c4_order[k], v;
		struct env_c4_st c = *s;
		if (s->height[a] >= ENV_C4_ROWS)
			continue;
		b->g->apply(NULL, &c, a, NULL);
		if (c.winner >= 0)
			v = C4_WIN + b->depth;
		else if (c.moves == ENV_C4_ROWS * ENV_C4_COLS)
			v = 0;
		else /* window (best - 1, inf): ties with best stay exact */
			v = -c4_search(b->g, &c, b->depth - 1, -C4_WIN * 2,
				       -(best - 1));
		keep_best(v, a, &best, best_mask, ENV_C4_COLS);
	}
	*action = pick(best_mask, ENV_C4_COLS, rng);
	return *action < 0 ? LG_EINVAL : 0;
}

int env_baseline_act(env_baseline *b, const env *e, int player, lg_rng *rng,
		     int *action)
{
	uint8_t mask[ENV_MAX_ACTIONS];
	int cur = env_current_player(e);

	if (e->gm.g != b->g || player < 0 || player >= e->gm.spec.players ||
	    (cur != ENV_SIMULTANEOUS && cur != player))
		return LG_EINVAL;
	switch (b->kind) {
	case B_MINIMAX:
		return ttt_act(b, (const struct env_ttt_st *)e->st, rng,
			       action);
	case B_ALPHABETA:
		return c4_act(b, (const struct env_c4_st *)e->st, rng, action);
	default:
		if (env_legal(e, player, mask) <= 0)
			return LG_EINVAL;
		*action = pick(mask, e->gm.spec.num_actions, rng);
		return 0;
	}
}

int env_baseline_value(env_baseline *b, const env *e, double *value)
{
	if (e->gm.g != b->g || env_is_terminal(e))
		return LG_EINVAL;
	if (b->kind == B_MINIMAX) {
		if (!b->memo) {
			b->memo = calloc(19683, 1);
			if (!b->memo)
				return LG_ENOMEM;
		}
		*value = ttt_negamax(b, (const struct env_ttt_st *)e->st);
		return 0;
	}
	if (b->kind == B_ALPHABETA) {
		*value = c4_search(b->g, (const struct env_c4_st *)e->st,
				   b->depth, -C4_WIN * 2, C4_WIN * 2);
		return 0;
	}
	return LG_EUNSUPP;
}
