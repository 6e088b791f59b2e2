/*
 * league_game.h: the game ABI of league, version 1. The one header a game
 * includes; it needs nothing else (no league headers, no libraries).
 *
 * What a game is here:
 *   - Two players, zero-sum: the returns of a finished episode sum to 0
 *     (`league env check` tests it). There is no general-sum mode.
 *   - Sequential (one mover at a time) or simultaneous (both act at once;
 *     write it as a sequential game whose second mover cannot see the
 *     first move, and set LEAGUE_GAME_SIMULTANEOUS: the league then asks
 *     each player for an action and applies both in player order).
 *   - Discrete actions 0 .. num_actions-1 with a legal-action mask.
 *   - Observations: obs_len floats per player, optionally with a shape
 *     (e.g. 3 x 6 x 7 planes) whose product is obs_len.
 *   - State: a flat block of state_size bytes whose layout is the game's.
 *     The game chooses the size at create (any size up to
 *     LEAGUE_GAME_STATE_MAX); the league allocates it, and copies it with
 *     memcpy, so it must hold no pointers. That copy is the clone: search
 *     baselines, tree builders and the conformance check use it.
 *   - Chance: either explicit chance nodes (player() returns
 *     LEAGUE_GAME_CHANCE and chance() lists outcomes and probabilities:
 *     the league draws them from its seeded generator, and the exact
 *     evaluators enumerate them), or draws from the rng handed to root()
 *     and apply() (NULL while a tree is built, so a game with tree hooks
 *     must use chance nodes). Either way a seed fixes the episode.
 *
 * Every function gets the game's instance (what create() returned) and
 * must be safe to call from several threads on different states; the
 * instance is read-only after create(). Play functions never allocate.
 *
 * A plugin is a shared object exporting
 *
 *     const struct league_game *league_game(void);
 *
 * whose result has abi == LEAGUE_GAME_ABI (checked at load) and lives as
 * long as the library. docs/games.md walks through a complete example.
 */
#ifndef LEAGUE_GAME_H
#define LEAGUE_GAME_H

#include <stddef.h>
#include <stdint.h>

#define LEAGUE_GAME_ABI 1u
#define LEAGUE_GAME_ENTRY "league_game"

/* player() values beside a player index 0 or 1. */
#define LEAGUE_GAME_TERMINAL (-1001)
#define LEAGUE_GAME_CHANCE (-1002)

/* Caps the league checks at load. */
#define LEAGUE_GAME_ACTIONS_MAX 64
#define LEAGUE_GAME_OBS_MAX (1u << 20)     /* floats */
#define LEAGUE_GAME_STATE_MAX (1u << 20)   /* bytes */
#define LEAGUE_GAME_CHANCE_MAX 64          /* outcomes of one chance node */
#define LEAGUE_GAME_KEY_MAX 256            /* infostate key, with its NUL */
#define LEAGUE_GAME_SHAPE_MAX 4

enum league_game_flags {
	LEAGUE_GAME_SIMULTANEOUS = 1u << 0,
	LEAGUE_GAME_HAS_CHANCE = 1u << 1, /* has chance nodes */
};

/* What create() fills in. */
struct league_game_spec {
	uint32_t players;      /* must be 2 */
	uint32_t num_actions;  /* 1 .. LEAGUE_GAME_ACTIONS_MAX */
	uint32_t obs_len;      /* 1 .. LEAGUE_GAME_OBS_MAX */
	uint32_t obs_rank;     /* 0 (flat) .. LEAGUE_GAME_SHAPE_MAX */
	uint32_t obs_shape[LEAGUE_GAME_SHAPE_MAX]; /* product == obs_len */
	uint32_t flags;        /* enum league_game_flags */
	uint64_t state_size;   /* 1 .. LEAGUE_GAME_STATE_MAX */
	uint64_t max_steps;    /* no episode is longer (>= 1) */
};

/* env.params of the config: strings, in the order written. `host` is for
 * the games compiled into league; a plugin ignores it. */
struct league_game_params {
	uint32_t count;
	const char *const *keys;
	const char *const *values;
	void *host;
};

/* The league's seeded generator. */
struct league_game_rng {
	uint64_t (*next)(struct league_game_rng *rng); /* uniform 64 bits */
};

struct league_game {
	uint32_t abi;          /* LEAGUE_GAME_ABI */
	const char *name;      /* [a-z0-9_-]{1,31} */
	const char *summary;   /* one line */

	/* Read params (reject unknown keys and bad values with a message in
	 * err naming the key: the league prints it and exits 2), set *inst
	 * and fill *spec. Return 0, or nonzero on error. */
	int (*create)(const struct league_game_params *params, void **inst,
		      struct league_game_spec *spec, char *err, size_t errlen);
	void (*destroy)(void *inst); /* may be NULL */

	/* Initial state into st (state_size bytes, contents undefined). */
	void (*root)(const void *inst, void *st, struct league_game_rng *rng);
	/* 0, 1, LEAGUE_GAME_CHANCE or LEAGUE_GAME_TERMINAL. */
	int (*player)(const void *inst, const void *st);
	/* At a chance node: outcomes (actions to apply) and probabilities
	 * (> 0, summing to 1); returns their count, at most
	 * LEAGUE_GAME_CHANCE_MAX. NULL for games without chance nodes. */
	int (*chance)(const void *inst, const void *st, int *outcomes,
		      double *probs);
	/* mask[num_actions]: 1 where `player` may act (the mover, or either
	 * player of a simultaneous game). Returns the number of 1s, which is
	 * never 0 for the player to move. */
	int (*legal)(const void *inst, const void *st, int player,
		     uint8_t *mask);
	/* Apply a legal action or a chance outcome. */
	void (*apply)(const void *inst, void *st, int action,
		      struct league_game_rng *rng);
	/* out[obs_len] for `player`, at any state (terminal too). */
	void (*observe)(const void *inst, const void *st, int player,
			float *out);
	/* out[2]: returns at a terminal state, summing to 0. */
	void (*returns)(const void *inst, const void *st, double *out);

	/* Optional: the information-state key of `player` (a NUL-terminated
	 * string shorter than len that two states share exactly when the
	 * player cannot tell them apart). With it, and chance nodes for all
	 * chance, `league eval nashconv` and CFR work on the game. */
	void (*infostate)(const void *inst, const void *st, int player,
			  char *buf, size_t len);
	/* Optional: a canonical byte form of a state (for logs and checks).
	 * serialize returns the bytes written (<= len) or 0 if len is short;
	 * deserialize returns 0 when buf held a valid state. */
	size_t (*serialize)(const void *inst, const void *st, uint8_t *buf,
			    size_t len);
	int (*deserialize)(const void *inst, void *st, const uint8_t *buf,
			   size_t len);
};

/* The plugin's one export (define it with default visibility). */
const struct league_game *league_game(void);
typedef const struct league_game *(*league_game_entry_fn)(void);

#endif
