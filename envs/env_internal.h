/*
 * envs/env_internal.h: what the games, the play wrapper (env.c), the
 * evaluators (tree.c, cfr) and the baselines share. Not a public header:
 * only files in envs/ (and white-box tests) include it.
 *
 * Every game is written once, OpenSpiel-style, as pure functions on a
 * small copyable state (at most ENV_STATE_MAX bytes) in which chance is an
 * explicit player (ENV_CHANCE) with enumerable outcomes. The play wrapper
 * samples chance outcomes from the env's rng; the tree builder enumerates
 * them. Simultaneous games are written as sequential games whose second
 * mover cannot see the first move; the wrapper applies a joint action as
 * two moves.
 */
#ifndef LG_ENV_INTERNAL_H
#define LG_ENV_INTERNAL_H

#include "envs/env.h"

#define ENV_CHANCE (-1002)
#define ENV_STATE_MAX 256
#define ENV_CHANCE_MAX 8
#define ENV_KEY_MAX 64

struct env_game {
	const char *name;
	const char *summary;
	size_t state_size; /* <= ENV_STATE_MAX */
	/* Validate (and complete) the options; fill spec (name is set by the
	 * caller; max_steps before any override). */
	int (*setup)(struct env_opts *o, struct env_spec *spec, char *err,
		     size_t errlen);
	/* Initial state. rng is NULL when building a tree. */
	void (*root)(const struct env_opts *o, void *st, lg_rng *rng);
	/* Player index, ENV_CHANCE or ENV_TERMINAL. */
	int (*player)(const struct env_opts *o, const void *st);
	/* Chance node: outcomes (actions) and probabilities; returns count. */
	int (*chance)(const struct env_opts *o, const void *st, int *outcomes,
		      double *probs);
	/* mask[num_actions] for `player` (the mover, or either player of a
	 * simultaneous game); returns the number of legal actions. */
	int (*legal)(const struct env_opts *o, const void *st, int player,
		     uint8_t *mask);
	/* Apply a legal action (or chance outcome). rng NULL in trees. */
	void (*apply)(const struct env_opts *o, void *st, int action,
		      lg_rng *rng);
	void (*observe)(const struct env_opts *o, const void *st, int player,
			float *out);
	/* Final returns (only called at terminal states). */
	void (*returns)(const struct env_opts *o, const void *st, double *out);
	/* Information-state key of `player` (NUL-terminated, < len); NULL
	 * for games without a tree. */
	void (*infostate)(const struct env_opts *o, const void *st, int player,
			  char *buf, size_t len);
};

extern const struct env_game env_game_rps, env_game_matrix, env_game_kuhn,
	env_game_leduc, env_game_tictactoe, env_game_connect4,
	env_game_timing;

struct env {
	const struct env_game *g;
	struct env_spec spec;
	struct env_opts o;
	lg_rng rng;
	uint64_t steps;
	int truncated;
	_Alignas(16) unsigned char st[ENV_STATE_MAX];
};

/* Apply chance outcomes drawn from rng until a decision or the end. */
void env_resolve_chance(const struct env_game *g, const struct env_opts *o,
			void *st, lg_rng *rng);

/* Perfect-information board games, shared with the baselines. Cells hold
 * 0 (empty), 1 (player 0) or 2 (player 1). */
struct env_ttt_st {
	int8_t cell[9];
	int8_t cur, winner, moves; /* winner: -1 none yet / draw, else 0/1 */
};
#define ENV_C4_ROWS 6
#define ENV_C4_COLS 7
struct env_c4_st {
	int8_t cell[ENV_C4_ROWS * ENV_C4_COLS]; /* row-major, row 0 bottom */
	int8_t height[ENV_C4_COLS];
	int8_t cur, winner, moves;
};

/* A string -> int map with string keys copied in (open addressing). */
struct env_strmap {
	char **keys;
	int *vals;
	size_t cap, n;
};
int env_strmap_put(struct env_strmap *m, const char *key, int val);
/* Value or -1 when absent. */
int env_strmap_get(const struct env_strmap *m, const char *key);
void env_strmap_free(struct env_strmap *m);

#endif
