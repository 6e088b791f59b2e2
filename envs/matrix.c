/*
 * envs/matrix.c: one-shot two-player zero-sum matrix games, simultaneous
 * moves. `rps` is rock-paper-scissors (actions rock, paper, scissors; win
 * +1, loss -1); `matrix` takes the row player's payoff from the options and
 * the column player gets its negation (as conf/config.h documents).
 *
 * In the tree (and internally) player 0 moves first and player 1 moves
 * without seeing it: infostates "p0" and "p1". Observation: player one-hot.
 */
#include "envs/env_internal.h"

#include <math.h>
#include <stdio.h>

struct mx_st {
	int8_t stage; /* 0: row player, 1: column player, 2: over */
	int8_t a[2];
};

static int mx_setup_common(struct env_opts *o, struct env_spec *spec,
			   char *err, size_t errlen)
{
	uint32_t r = o->matrix.rows, c = o->matrix.cols;

	if (r < 1 || c < 1 || r > ENV_MATRIX_MAX || c > ENV_MATRIX_MAX) {
		lg_errf(err, errlen, "matrix: payoff must be 1x1 to %dx%d, "
			"got %ux%u", ENV_MATRIX_MAX, ENV_MATRIX_MAX, r, c);
		return LG_EINVAL;
	}
	for (uint32_t i = 0; i < r; i++)
		for (uint32_t j = 0; j < c; j++)
			if (!isfinite(o->matrix.v[i][j]) ||
			    fabs(o->matrix.v[i][j]) > ENV_MATRIX_VALUE_MAX) {
				lg_errf(err, errlen, "matrix: payoff [%u][%u] "
					"is not a number in [-%g, %g]", i, j,
					ENV_MATRIX_VALUE_MAX,
					ENV_MATRIX_VALUE_MAX);
				return LG_ERANGE;
			}
	spec->players = 2;
	spec->obs_len = 2;
	spec->num_actions = (int)LG_MAX(r, c);
	spec->max_steps = 1;
	spec->flags = ENV_F_SIMULTANEOUS | ENV_F_ZERO_SUM | ENV_F_TREE;
	return 0;
}

static int rps_setup(struct env_opts *o, struct env_spec *spec, char *err,
		     size_t errlen)
{
	static const double pay[3][3] = {
		{ 0, -1, 1 }, { 1, 0, -1 }, { -1, 1, 0 },
	};

	memset(&o->matrix, 0, sizeof o->matrix);
	o->matrix.rows = o->matrix.cols = 3;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			o->matrix.v[i][j] = pay[i][j];
	return mx_setup_common(o, spec, err, errlen);
}

static void mx_root(const void *inst, void *st, struct league_game_rng *rng)
{
	struct mx_st *s = st;

	s->stage = 0;
	s->a[0] = s->a[1] = -1;
}

static int mx_player(const void *inst, const void *st)
{
	const struct mx_st *s = st;

	return s->stage >= 2 ? ENV_TERMINAL : s->stage;
}

static int mx_legal(const void *inst, const void *st, int player,
		    uint8_t *mask)
{
	const struct env_opts *o = inst;
	int n = (int)LG_MAX(o->matrix.rows, o->matrix.cols);
	int k = (int)(player == 0 ? o->matrix.rows : o->matrix.cols);

	for (int a = 0; a < n; a++)
		mask[a] = a < k;
	return k;
}

static void mx_apply(const void *inst, void *st, int action,
		     struct league_game_rng *rng)
{
	struct mx_st *s = st;

	s->a[s->stage] = (int8_t)action;
	s->stage++;
}

static void mx_observe(const void *inst, const void *st, int player,
		       float *out)
{
	out[0] = player == 0;
	out[1] = player == 1;
}

static void mx_returns(const void *inst, const void *st, double *out)
{
	const struct env_opts *o = inst;
	const struct mx_st *s = st;
	double v = o->matrix.v[s->a[0]][s->a[1]];

	out[0] = v;
	out[1] = -v;
}

static void mx_infostate(const void *inst, const void *st,
			 int player, char *buf, size_t len)
{
	snprintf(buf, len, "p%d", player);
}

/* rps and matrix are one game with two setups: the same table but for
 * the name, summary and create(). */
#define MX_GAME(game_name, game_summary, create_fn)                       \
	{                                                                 \
		ENV_GAME_HEAD(game_name, game_summary),                   \
		.create = create_fn, .destroy = env_builtin_destroy,      \
		.observe = mx_observe, ENV_GAME_RULES(mx),                \
		.chance = env_no_chance, .infostate = mx_infostate,       \
	}

ENV_BUILTIN_CREATE(rps_create, rps_setup, sizeof(struct mx_st))

const struct league_game env_game_rps =
	MX_GAME("rps", "rock-paper-scissors, simultaneous, zero-sum",
		rps_create);

ENV_BUILTIN_CREATE(matrix_create, mx_setup_common, sizeof(struct mx_st))

const struct league_game env_game_matrix =
	MX_GAME("matrix",
		"zero-sum matrix game, payoff from env.matrix (<=16x16)",
		matrix_create);
