/*
 * envs/abi.c: what the built-in games share on the game ABI (their
 * create() and destroy(), chance nodes of dice and cards, the league's
 * generator behind the ABI's) and
 * the default options. Apart from env.c so that a built-in game also
 * builds as a plugin (examples/tictactoe) from its own file and this one,
 * without the play wrapper, plugin loading or the remote client.
 */
#include "envs/env_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void env_opts_default(struct env_opts *o)
{
	memset(o, 0, sizeof *o);
	o->timing.obs_len = 64;
	o->timing.reset_s = 0.1;
	o->timing.step_s = 0.005;
	o->timing.infer_s = 0.004;
	o->timing.episode_len = 500;
	o->timing.jitter_lo = 0.4;
	o->timing.jitter_hi = 1.6;
	o->remote_timeout_s = ENV_REMOTE_TIMEOUT_DEFAULT;
}

/* ---- the built-in games on the ABI ------------------------------------- */

/* env_internal.h */
int env_no_chance(const void *inst, const void *st, int *out, double *p)
{
	return 0;
}

/* env_internal.h */
int env_legal_two(const void *inst, const void *st, int player,
		  uint8_t *mask)
{
	mask[0] = mask[1] = 1;
	return 2;
}

/* env_internal.h */
int env_chance_uniform(int n, int *out, double *p)
{
	for (int i = 0; i < n; i++) {
		out[i] = i;
		p[i] = 1.0 / n;
	}
	return n;
}

/* env_internal.h */
int env_chance_deal(int cards, const int8_t *dealt, int ndealt, int *out,
		    double *p)
{
	int n = 0;

	for (int c = 0; c < cards; c++) {
		int taken = 0;
		for (int i = 0; i < ndealt; i++)
			taken |= dealt[i] == c;
		if (!taken) {
			out[n] = c;
			p[n++] = 1.0 / (cards - ndealt);
		}
	}
	return n;
}

int env_builtin_create(const struct league_game_params *p, void **inst,
		       struct league_game_spec *spec, char *err, size_t errlen,
		       env_setup_fn setup, size_t state_size)
{
	int own = !(p && p->host);
	struct env_opts *o = own ? malloc(sizeof *o) : p->host;
	struct env_spec es;
	int rc;

	*inst = NULL;
	if (!o) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	if (own)
		env_opts_default(o);
	if (p && p->count) {
		lg_errf(err, errlen, "env.params: '%s': this built-in game "
			"takes no params", p->keys[0]);
		if (own)
			free(o);
		return LG_EINVAL;
	}
	memset(&es, 0, sizeof es);
	if ((rc = setup(o, &es, err, errlen))) {
		if (own)
			free(o);
		return rc;
	}
	memset(spec, 0, sizeof *spec);
	spec->players = (uint32_t)es.players;
	spec->flags = (es.flags & ENV_F_SIMULTANEOUS ? LEAGUE_GAME_SIMULTANEOUS
						     : 0) |
		      (es.flags & ENV_F_CHANCE ? LEAGUE_GAME_HAS_CHANCE : 0);
	spec->payoff = LEAGUE_GAME_ZERO_SUM;
	spec->state_size = state_size;
	spec->max_steps = es.max_steps;
	for (int s = 0; s < es.players; s++) {
		spec->seat[s].num_actions = (uint32_t)es.num_actions;
		spec->seat[s].obs_len = (uint32_t)es.obs_len;
		spec->seat[s].obs_rank = es.obs_rank;
		memcpy(spec->seat[s].obs_shape, es.obs_shape,
		       sizeof spec->seat[s].obs_shape);
	}
	*inst = o;
	return 0;
}

void env_builtin_destroy(void *inst)
{
	free(inst);
}

static uint64_t rng_next(struct league_game_rng *r)
{
	return lg_rng_u64(&((struct env_rng *)(void *)r)->r);
}

void env_rng_seed(struct env_rng *r, uint64_t seed)
{
	r->base.next = rng_next;
	lg_rng_seed(&r->r, seed);
}

/* env_internal.h */
size_t env_text_put(char *buf, size_t len, size_t k, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (!len || k >= len)
		return k;
	va_start(ap, fmt);
	w = vsnprintf(buf + k, len - k, fmt, ap);
	va_end(ap);
	if (w < 0)
		return k;
	return LG_MIN(len - 1, k + (size_t)w);
}
