/*
 * league_game.h: the game ABI of league, version 2. The one header a game
 * includes; it needs nothing else (no league headers, no libraries).
 * Version 1 plugins (two seats, zero-sum, <= 64 actions) still load: the
 * league reads the `abi` field first and speaks to each version in its
 * own terms (docs/games.md, "Version 1").
 *
 * What a game is here:
 *   - 1 to LEAGUE_GAME_PLAYERS_MAX seats. Each seat has its own
 *     observation (length and shape), its own number of actions, a team
 *     and a role. Seats of one role have the same spaces; a league gives
 *     each role its own model (an asymmetric game: a sheriff and a
 *     smuggler; a symmetric one: every seat the role "player").
 *   - Returns: one per seat at the end of an episode. The game declares
 *     what they are (enum league_game_payoff: zero-sum, constant-sum,
 *     common-payoff or general-sum) and `league env check` tests it.
 *     Seats of one team always get the same return.
 *   - Sequential (one mover at a time) or simultaneous (every seat acts
 *     at once; write it as a sequential game whose later movers cannot
 *     see the earlier moves, and set LEAGUE_GAME_SIMULTANEOUS: the league
 *     then asks every seat for an action and applies them in seat order).
 *   - Discrete actions 0 .. num_actions-1 of the seat with a legal-action
 *     mask; up to LEAGUE_GAME_ACTIONS_MAX (chess's 4,672 fit).
 *   - Observations: obs_len floats per seat, optionally with a shape
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
 *
 * Compatibility: struct league_game of version 2 begins with version 1's
 * fields in version 1's order (only create's spec and the width of
 * returns' out differ), and adds its new hooks at the end.
 */
#ifndef LEAGUE_GAME_H
#define LEAGUE_GAME_H

#include <stddef.h>
#include <stdint.h>

#define LEAGUE_GAME_ABI 2u
#define LEAGUE_GAME_ENTRY "league_game"

/* player() values beside a seat index 0 .. players-1. */
#define LEAGUE_GAME_TERMINAL (-1001)
#define LEAGUE_GAME_CHANCE (-1002)

/* Caps the league checks at load. */
#define LEAGUE_GAME_PLAYERS_MAX 8
#define LEAGUE_GAME_ACTIONS_MAX 65536      /* per seat */
#define LEAGUE_GAME_OBS_MAX (1u << 20)     /* floats per seat */
#define LEAGUE_GAME_STATE_MAX (1u << 20)   /* bytes */
#define LEAGUE_GAME_CHANCE_MAX 64          /* outcomes of one chance node */
#define LEAGUE_GAME_KEY_MAX 256            /* infostate key, with its NUL */
#define LEAGUE_GAME_SHAPE_MAX 4
#define LEAGUE_GAME_ROLE_MAX 16            /* role name, with its NUL */
#define LEAGUE_GAME_TEXT_MAX 4096          /* describe(), with its NUL */
#define LEAGUE_GAME_NAME_MAX 64            /* action_name(), with its NUL */

enum league_game_flags {
	LEAGUE_GAME_SIMULTANEOUS = 1u << 0,
	LEAGUE_GAME_HAS_CHANCE = 1u << 1, /* has chance nodes */
};

/* What the returns of every finished episode satisfy (checked to 1e-9
 * times the largest |return| plus 1e-9). */
enum league_game_payoff {
	LEAGUE_GAME_ZERO_SUM = 0,   /* they sum to 0 */
	LEAGUE_GAME_CONSTANT_SUM,   /* they sum to spec.payoff_sum */
	LEAGUE_GAME_COMMON_PAYOFF,  /* all equal (a cooperative game) */
	LEAGUE_GAME_GENERAL_SUM,    /* anything (finite) */
};

/* One seat's spaces, team and role. */
struct league_game_seat {
	uint32_t obs_len;      /* 1 .. LEAGUE_GAME_OBS_MAX */
	uint32_t obs_rank;     /* 0 (flat) .. LEAGUE_GAME_SHAPE_MAX */
	uint32_t obs_shape[LEAGUE_GAME_SHAPE_MAX]; /* product == obs_len */
	uint32_t num_actions;  /* 1 .. LEAGUE_GAME_ACTIONS_MAX */
	uint32_t team;         /* 0 .. spec.teams-1; ignored if teams == 0 */
	/* [a-z0-9_-]{1,15}, or "" for "player". Seats of one role have the
	 * same obs_len, shape and num_actions. */
	char role[LEAGUE_GAME_ROLE_MAX];
};

/* What create() fills in (the league zeroes it first). */
struct league_game_spec {
	uint32_t players;      /* 1 .. LEAGUE_GAME_PLAYERS_MAX */
	uint32_t flags;        /* enum league_game_flags */
	uint32_t payoff;       /* enum league_game_payoff */
	/* 0: every seat is a team of its own (team == seat). Else the
	 * number of teams, 1 .. players, each with at least one seat. */
	uint32_t teams;
	double payoff_sum;     /* LEAGUE_GAME_CONSTANT_SUM's sum */
	uint64_t state_size;   /* 1 .. LEAGUE_GAME_STATE_MAX */
	uint64_t max_steps;    /* no episode is longer (>= 1) */
	struct league_game_seat seat[LEAGUE_GAME_PLAYERS_MAX]; /* [players] */
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
	/* The seat to move (0 .. players-1; for a simultaneous game the
	 * first seat still to act), LEAGUE_GAME_CHANCE or
	 * LEAGUE_GAME_TERMINAL. */
	int (*player)(const void *inst, const void *st);
	/* At a chance node: outcomes (actions to apply) and probabilities
	 * (> 0, summing to 1); returns their count, at most
	 * LEAGUE_GAME_CHANCE_MAX. NULL for games without chance nodes. */
	int (*chance)(const void *inst, const void *st, int *outcomes,
		      double *probs);
	/* mask[seat's num_actions]: 1 where `seat` may act now (the mover, or
	 * any seat of a simultaneous game still to act), else 0. Returns the
	 * number of 1s, which is never 0 for the seat to move. */
	int (*legal)(const void *inst, const void *st, int seat,
		     uint8_t *mask);
	/* Apply a legal action of the mover, or a chance outcome. */
	void (*apply)(const void *inst, void *st, int action,
		      struct league_game_rng *rng);
	/* out[seat's obs_len] for `seat`, at any state (terminal too). */
	void (*observe)(const void *inst, const void *st, int seat,
			float *out);
	/* out[players]: returns at a terminal state (as spec.payoff says). */
	void (*returns)(const void *inst, const void *st, double *out);

	/* Optional: the information-state key of `seat` (a NUL-terminated
	 * string shorter than len that two states share exactly when the
	 * seat cannot tell them apart). With it, and chance nodes for all
	 * chance, `league eval nashconv` and CFR work on the game. */
	void (*infostate)(const void *inst, const void *st, int seat,
			  char *buf, size_t len);
	/* Optional: a canonical byte form of a state (for logs and checks).
	 * serialize returns the bytes written (<= len) or 0 if len is short;
	 * deserialize returns 0 when buf held a valid state. */
	size_t (*serialize)(const void *inst, const void *st, uint8_t *buf,
			    size_t len);
	int (*deserialize)(const void *inst, void *st, const uint8_t *buf,
			   size_t len);

	/* ---- version 2 ---- */

	/* Optional: the state as `seat` sees it, for a human (what it may
	 * know and nothing more: its own cards, the pot, the board), as
	 * NUL-terminated text of at most len bytes (LEAGUE_GAME_TEXT_MAX),
	 * lines separated by '\n'. Used by `league play`, logs and
	 * `league env check`. */
	void (*describe)(const void *inst, const void *st, int seat,
			 char *buf, size_t len);
	/* Optional: the name of `seat`'s action (e.g. "bet", "e2e4", "c3"),
	 * NUL-terminated, at most len bytes (LEAGUE_GAME_NAME_MAX), without
	 * blanks, distinct among the seat's actions at st. */
	void (*action_name)(const void *inst, const void *st, int seat,
			    int action, char *buf, size_t len);
};

/* The plugin's one export (define it with default visibility). */
const struct league_game *league_game(void);
typedef const struct league_game *(*league_game_entry_fn)(void);

#endif
