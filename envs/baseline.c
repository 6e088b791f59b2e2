/*
 * envs/baseline.c: fixed baseline players for evaluation jobs.
 *
 *   random       uniform over the legal actions, any game;
 *   minimax      tic-tac-toe, perfect play: exact negamax values (memoised
 *                over the 3^9 board codes), ties among equally good moves
 *                broken uniformly with the caller's rng;
 *   alphabeta:N  Connect Four (N in 1..ENV_C4_DEPTH_MAX) and Othello
 *                (1..ENV_OTH_DEPTH_MAX): negamax alpha-beta to depth N
 *                ("alphabeta" alone is 4) on the game's table, with a
 *                heuristic and a move order of each game's own (a window
 *                heuristic; discs, mobility, corners and the cells next to
 *                them); ties at the root broken by the rng.
 */
#include "envs/env_internal.h"

#include <stdio.h>
#include <stdlib.h>

enum { B_RANDOM, B_MINIMAX, B_ALPHABETA };

#define AB_WIN 1000000
#define AB_ACTIONS ENV_OTH_ACTIONS /* the most of a game searched here */
_Static_assert(ENV_C4_COLS <= AB_ACTIONS, "connect4's actions fit");

/* A state of a game alpha-beta plays (the largest, for copies). */
union ab_state {
	struct env_c4_st c4;
	struct env_oth_st oth;
};

/* What alpha-beta needs beside the table: the actions in the order to
 * try them and the heuristic value of a state for the player to move. */
struct ab_rules {
	const int *order;
	int n;
	int (*eval)(const void *st);
};
static const struct ab_rules c4_rules, oth_rules;

struct env_baseline {
	int kind;
	int depth;
	const struct league_game *g;
	const void *inst;            /* the game's instance */
	size_t state_size;
	const struct ab_rules *ab;   /* alphabeta: the game's rules */
	uint8_t *mask;               /* random: the largest seat's actions */
	int8_t *memo; /* minimax: value+1 for each board code, 0 unknown */
};

/* The games alpha-beta plays: the name, its rules and its depth cap. */
static const struct {
	const char *game;
	const struct ab_rules *rules;
	int depth_max;
} ab_games[] = {
	{ "connect4", &c4_rules, ENV_C4_DEPTH_MAX },
	{ "othello", &oth_rules, ENV_OTH_DEPTH_MAX },
};

/* "alphabeta" or "alphabeta:N" for game: its rules and depth, or
 * LG_EINVAL with err. */
static int parse_ab(const char *spec, const char *game,
		    const struct ab_rules **rules, int *depth, char *err,
		    size_t errlen)
{
	int64_t d = 4;

	for (size_t i = 0; i < LG_ARRAY_LEN(ab_games); i++) {
		if (strcmp(game, ab_games[i].game))
			continue;
		if (spec[9] == ':' &&
		    lg_parse_i64(spec + 10, 1, ab_games[i].depth_max, &d)) {
			lg_errf(err, errlen, "baseline '%s': depth must be "
				"1..%d for %s", spec, ab_games[i].depth_max,
				game);
			return LG_EINVAL;
		}
		*rules = ab_games[i].rules;
		*depth = (int)d;
		return 0;
	}
	lg_errf(err, errlen, "baseline '%s' plays connect4 and othello, not "
		"%s", spec, game);
	return LG_EINVAL;
}

/* The spec syntax, parsed here only: the kind, depth and (alphabeta)
 * rules spec names for game `game` (a registry name), or LG_EINVAL with
 * err. */
static int parse_spec(const char *spec, const char *game, int *kind,
		      int *depth, const struct ab_rules **rules, char *err,
		      size_t errlen)
{
	*depth = 0;
	*rules = NULL;
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
		*kind = B_ALPHABETA;
		return parse_ab(spec, game, rules, depth, err, errlen);
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
	const struct ab_rules *rules;
	int kind, depth, rc;

	if ((rc = parse_spec(spec, game, &kind, &depth, &rules, err,
			     errlen)))
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
	const struct ab_rules *rules;
	env_baseline *b;
	int kind, depth, rc;

	*out = NULL;
	if ((rc = parse_spec(spec, e->gm.spec.name, &kind, &depth, &rules,
			     err, errlen)))
		return rc;
	if (kind == B_ALPHABETA && e->gm.state_size > sizeof(union ab_state)) {
		lg_errf(err, errlen, "baseline '%s': %s's state is not the "
			"built-in one", spec, e->gm.spec.name);
		return LG_EINVAL;
	}
	b = calloc(1, sizeof *b);
	if (b && kind == B_RANDOM)
		b->mask = calloc((size_t)e->gm.spec.num_actions, 1);
	if (!b || (kind == B_RANDOM && !b->mask)) {
		free(b);
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	b->kind = kind;
	b->depth = depth;
	b->g = e->gm.g;
	b->inst = e->gm.inst;
	b->state_size = e->gm.state_size;
	b->ab = rules;
	*out = b;
	return 0;
}

void env_baseline_free(env_baseline *b)
{
	if (!b)
		return;
	free(b->memo);
	free(b->mask);
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

/* ---- alpha-beta: negamax to a fixed depth on the game's table ---------- */


/* The value, for the player who moved, of c reached by a move at a node
 * of remaining depth `depth`: a won end is AB_WIN + depth (sooner wins
 * score higher), a lost one the negation, a draw 0, else minus the
 * opponent's search to depth - 1 within (alpha, beta). */
static int ab_search(const env_baseline *b, const void *st, int depth,
		     int alpha, int beta);

static int ab_child(const env_baseline *b, const void *c, int mover,
		    int depth, int alpha, int beta)
{
	double ret[ENV_MAX_PLAYERS];

	if (b->g->player(b->inst, c) != ENV_TERMINAL)
		return -ab_search(b, c, depth - 1, -beta, -alpha);
	b->g->returns(b->inst, c, ret);
	return ret[mover] > 0 ? AB_WIN + depth : ret[mover] < 0 ?
		-(AB_WIN + depth) : 0;
}

/* Negamax value of st (not terminal) for the player to move, to `depth`
 * plies, cut to the window (alpha, beta). */
static int ab_search(const env_baseline *b, const void *st, int depth,
		     int alpha, int beta)
{
	uint8_t mask[AB_ACTIONS];
	union ab_state c;
	int best = -AB_WIN * 2, mover = b->g->player(b->inst, st);

	if (depth == 0)
		return b->ab->eval(st);
	b->g->legal(b->inst, st, mover, mask);
	for (int k = 0; k < b->ab->n && alpha < beta; k++) {
		int a = b->ab->order[k], v;
		if (!mask[a])
			continue;
		memcpy(&c, st, b->state_size);
		b->g->apply(b->inst, &c, a, NULL);
		v = ab_child(b, &c, mover, depth, alpha, beta);
		best = LG_MAX(best, v);
		alpha = LG_MAX(alpha, v);
	}
	return best;
}

/* The best actions at the root to b->depth, ties broken by the rng. */
static int ab_act(env_baseline *b, const void *st, lg_rng *rng, int *action)
{
	uint8_t mask[AB_ACTIONS], best_mask[AB_ACTIONS] = { 0 };
	union ab_state c;
	int best = -AB_WIN * 2, mover = b->g->player(b->inst, st);

	b->g->legal(b->inst, st, mover, mask);
	for (int k = 0; k < b->ab->n; k++) {
		int a = b->ab->order[k];
		if (!mask[a])
			continue;
		memcpy(&c, st, b->state_size);
		b->g->apply(b->inst, &c, a, NULL);
		/* window (best - 1, inf): ties with best stay exact */
		keep_best(ab_child(b, &c, mover, b->depth, best - 1,
				   AB_WIN * 2),
			  a, &best, best_mask, AB_ACTIONS);
	}
	*action = pick(best_mask, AB_ACTIONS, rng);
	return *action < 0 ? LG_EINVAL : 0;
}

/* ---- Connect Four: windows ---------------------------------------------- */

/* Heuristic for the player to move: every 4-cell window with pieces of
 * only one side scores 1/4/16 for 1/2/3 pieces (plus for the mover, minus
 * for the opponent); centre-column pieces add 3 each. */
static int c4_eval(const void *st)
{
	static const int dirs[4][2] = { { 0, 1 }, { 1, 0 }, { 1, 1 },
					{ 1, -1 } };
	static const int w[4] = { 0, 1, 4, 16 };
	const struct env_c4_st *s = st;
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
static const struct ab_rules c4_rules = { c4_order, ENV_C4_COLS, c4_eval };

/* ---- Othello: discs, mobility, corners ---------------------------------- */

#define OTH_CORNERS 0x8100000000000081ull

/* The cells diagonally next to the corners that are still empty: a disc
 * there usually hands the corner to the opponent. */
static uint64_t oth_x_cells(uint64_t empty)
{
	static const int corner[4] = { 0, 7, 56, 63 }, x[4] = { 9, 14, 49, 54 };
	uint64_t m = 0;

	for (int i = 0; i < 4; i++)
		if (empty >> corner[i] & 1)
			m |= 1ull << x[i];
	return m;
}

/* Heuristic for the player to move, from its side: the disc difference,
 * plus 5 per placement more than the opponent has (mobility), plus 25 per
 * corner more (a corner is never flipped back), minus 10 per disc more
 * on a cell diagonally next to an empty corner. */
static int oth_eval(const void *st)
{
	const struct env_oth_st *s = st;
	uint64_t me = s->disc[s->cur], op = s->disc[1 - s->cur];
	uint64_t x = oth_x_cells(~(me | op));

	return __builtin_popcountll(me) - __builtin_popcountll(op) +
	       5 * (__builtin_popcountll(env_oth_moves(me, op)) -
		    __builtin_popcountll(env_oth_moves(op, me))) +
	       25 * (__builtin_popcountll(me & OTH_CORNERS) -
		     __builtin_popcountll(op & OTH_CORNERS)) -
	       10 * (__builtin_popcountll(me & x) -
		     __builtin_popcountll(op & x));
}

/* The search's move order: corners, the other edge cells, the centre,
 * the ring around it, the edge cells next to a corner, the diagonal
 * neighbours of the corners (cells by how promising they usually are),
 * then pass. */
static const int oth_order[ENV_OTH_ACTIONS] = {
	0,  7,	56, 63, 2,  3,	4,  5,	16, 23, 24, 31, 32, 39, 40, 47, 58,
	59, 60, 61, 18, 19, 20, 21, 26, 27, 28, 29, 34, 35, 36, 37, 42, 43,
	44, 45, 10, 11, 12, 13, 17, 22, 25, 30, 33, 38, 41, 46, 50, 51, 52,
	53, 1,	6,  8,	15, 48, 55, 57, 62, 9,	14, 49, 54, ENV_OTH_PASS,
};
static const struct ab_rules oth_rules = { oth_order, ENV_OTH_ACTIONS,
					   oth_eval };

int env_baseline_act(env_baseline *b, const env *e, int player, lg_rng *rng,
		     int *action)
{
	int cur = env_current_player(e);

	if (e->gm.g != b->g || player < 0 || player >= e->gm.spec.players ||
	    (cur != ENV_SIMULTANEOUS && cur != player))
		return LG_EINVAL;
	switch (b->kind) {
	case B_MINIMAX:
		return ttt_act(b, (const struct env_ttt_st *)e->st, rng,
			       action);
	case B_ALPHABETA:
		return ab_act(b, e->st, rng, action);
	default:
		memset(b->mask, 0, (size_t)e->gm.spec.num_actions);
		if (env_legal(e, player, b->mask) <= 0)
			return LG_EINVAL;
		*action = pick(b->mask, e->gm.spec.num_actions, rng);
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
		*value = ab_search(b, e->st, b->depth, -AB_WIN * 2,
				   AB_WIN * 2);
		return 0;
	}
	return LG_EUNSUPP;
}
