/*
 * envs/league_game_v1.h: version 1 of the game ABI, frozen, as the
 * league reads it (not a public header: plugins include league_game.h).
 * A version 1 plugin's table has the same fields in the same order as the
 * first ones of version 2's; it differs in create's spec (below) and in
 * returns(), which writes out[2]. envs/game_open.c opens such a plugin by
 * calling its create with this spec and copying its other functions into
 * a version 2 table; tests/plugins/v1/ builds one against the verbatim
 * old header to show it still loads.
 */
#ifndef LG_LEAGUE_GAME_V1_H
#define LG_LEAGUE_GAME_V1_H

#include "envs/league_game.h"

#define LEAGUE_GAME_V1_ABI 1u
#define LEAGUE_GAME_V1_ACTIONS_MAX 64

/* Version 1's create() fills this. players must be 2; both seats share
 * the one observation and action space; the game is zero-sum. */
struct league_game_v1_spec {
	uint32_t players;
	uint32_t num_actions;
	uint32_t obs_len;
	uint32_t obs_rank;
	uint32_t obs_shape[LEAGUE_GAME_SHAPE_MAX];
	uint32_t flags;
	uint64_t state_size;
	uint64_t max_steps;
};

/* Version 1's table: version 2's first fields, create's type apart. */
struct league_game_v1 {
	uint32_t abi;
	const char *name;
	const char *summary;
	int (*create)(const struct league_game_params *params, void **inst,
		      struct league_game_v1_spec *spec, char *err,
		      size_t errlen);
	void (*destroy)(void *inst);
	void (*root)(const void *inst, void *st, struct league_game_rng *rng);
	int (*player)(const void *inst, const void *st);
	int (*chance)(const void *inst, const void *st, int *outcomes,
		      double *probs);
	int (*legal)(const void *inst, const void *st, int player,
		     uint8_t *mask);
	void (*apply)(const void *inst, void *st, int action,
		      struct league_game_rng *rng);
	void (*observe)(const void *inst, const void *st, int player,
			float *out);
	void (*returns)(const void *inst, const void *st, double *out);
	void (*infostate)(const void *inst, const void *st, int player,
			  char *buf, size_t len);
	size_t (*serialize)(const void *inst, const void *st, uint8_t *buf,
			    size_t len);
	int (*deserialize)(const void *inst, void *st, const uint8_t *buf,
			   size_t len);
};

#endif
