/*
 * envs/env.c: the registry and the play wrapper around the games' pure
 * state functions (chance sampling, simultaneous moves, truncation, checks).
 */
#include "envs/env_internal.h"

#include <stdio.h>
#include <stdlib.h>

static const struct env_game *const games[] = {
	&env_game_rps,	     &env_game_matrix,	 &env_game_kuhn,
	&env_game_leduc,     &env_game_tictactoe, &env_game_connect4,
	&env_game_timing,
};

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
}

size_t env_count(void)
{
	return LG_ARRAY_LEN(games);
}

int env_info(size_t i, struct env_spec *spec, const char **summary)
{
	struct env_opts o;

	if (i >= LG_ARRAY_LEN(games))
		return LG_ERANGE;
	env_opts_default(&o);
	if (games[i] == &env_game_matrix) {
		/* No default payoff: report the caps. */
		o.matrix.rows = o.matrix.cols = ENV_MATRIX_MAX;
	}
	memset(spec, 0, sizeof *spec);
	if (games[i]->setup(&o, spec, NULL, 0))
		return LG_EINVAL; /* defaults are valid; a test checks */
	snprintf(spec->name, sizeof spec->name, "%s", games[i]->name);
	if (summary)
		*summary = games[i]->summary;
	return 0;
}

void env_resolve_chance(const struct env_game *g, const struct env_opts *o,
			void *st, lg_rng *rng)
{
	int out[ENV_CHANCE_MAX];
	double p[ENV_CHANCE_MAX];

	while (g->player(o, st) == ENV_CHANCE) {
		int n = g->chance(o, st, out, p);
		g->apply(o, st, out[lg_rng_categorical(rng, p, (size_t)n)],
			 rng);
	}
}

int env_new(env **out, const char *name, const struct env_opts *opts,
	    char *err, size_t errlen)
{
	const struct env_game *g = NULL;
	env *e = NULL;
	int rc;

	*out = NULL;
	for (size_t i = 0; name && i < LG_ARRAY_LEN(games); i++)
		if (!strcmp(games[i]->name, name))
			g = games[i];
	if (!g) {
		lg_errf(err, errlen, "no game named '%s' (see 'league env "
			"list')", name ? name : "(null)");
		return LG_ENOTFOUND;
	}
	e = calloc(1, sizeof *e);
	if (!e) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	e->g = g;
	if (opts)
		e->o = *opts;
	else
		env_opts_default(&e->o);
	rc = g->setup(&e->o, &e->spec, err, errlen);
	if (rc)
		goto out;
	snprintf(e->spec.name, sizeof e->spec.name, "%s", g->name);
	if (e->o.max_steps && e->o.max_steps < e->spec.max_steps)
		e->spec.max_steps = e->o.max_steps;
	env_reset(e, e->o.seed);
	*out = e;
	e = NULL;
out:
	free(e);
	return rc;
}

void env_free(env *e)
{
	free(e);
}

const struct env_spec *env_spec_of(const env *e)
{
	return &e->spec;
}

double env_infer_s(const env *e)
{
	return e->g == &env_game_timing ? e->o.timing.infer_s : 0;
}

void env_reset(env *e, uint64_t seed)
{
	lg_rng_seed(&e->rng, seed);
	e->steps = 0;
	e->truncated = 0;
	e->g->root(&e->o, e->st, &e->rng);
	env_resolve_chance(e->g, &e->o, e->st, &e->rng);
}

int env_is_terminal(const env *e)
{
	return e->truncated || e->g->player(&e->o, e->st) == ENV_TERMINAL;
}

int env_current_player(const env *e)
{
	if (env_is_terminal(e))
		return ENV_TERMINAL;
	if (e->spec.flags & ENV_F_SIMULTANEOUS)
		return ENV_SIMULTANEOUS;
	return e->g->player(&e->o, e->st);
}

int env_observe(const env *e, int player, float *out)
{
	if (player < 0 || player >= e->spec.players)
		return LG_EINVAL;
	e->g->observe(&e->o, e->st, player, out);
	return 0;
}

int env_legal(const env *e, int player, uint8_t *out)
{
	int cur;

	if (player < 0 || player >= e->spec.players)
		return LG_EINVAL;
	cur = env_current_player(e);
	if (cur != ENV_SIMULTANEOUS && cur != player) {
		memset(out, 0, (size_t)e->spec.num_actions);
		return 0;
	}
	return e->g->legal(&e->o, e->st, player, out);
}

static int is_legal(const env *e, int player, int action)
{
	uint8_t mask[ENV_MAX_ACTIONS];

	if (action < 0 || action >= e->spec.num_actions)
		return 0;
	e->g->legal(&e->o, e->st, player, mask);
	return mask[action];
}

static void after_step(env *e)
{
	env_resolve_chance(e->g, &e->o, e->st, &e->rng);
	e->steps++;
	if (e->steps >= e->spec.max_steps &&
	    e->g->player(&e->o, e->st) != ENV_TERMINAL)
		e->truncated = 1;
}

int env_step(env *e, int action)
{
	int p = env_current_player(e);

	if (p < 0 || !is_legal(e, p, action))
		return LG_EINVAL;
	e->g->apply(&e->o, e->st, action, &e->rng);
	after_step(e);
	return 0;
}

int env_step_joint(env *e, const int *actions)
{
	if (env_current_player(e) != ENV_SIMULTANEOUS)
		return LG_EINVAL;
	for (int p = 0; p < e->spec.players; p++)
		if (!is_legal(e, p, actions[p]))
			return LG_EINVAL;
	/* Written as sequential moves with hidden information. */
	for (int p = 0; p < e->spec.players; p++)
		e->g->apply(&e->o, e->st, actions[p], &e->rng);
	after_step(e);
	return 0;
}

uint64_t env_steps(const env *e)
{
	return e->steps;
}

void env_returns(const env *e, double *out)
{
	if (e->truncated || e->g->player(&e->o, e->st) != ENV_TERMINAL) {
		for (int p = 0; p < e->spec.players; p++)
			out[p] = 0;
		return;
	}
	e->g->returns(&e->o, e->st, out);
}

/* ---- string map -------------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static int strmap_grow(struct env_strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	char **keys = calloc(cap, sizeof *keys);
	int *vals = calloc(cap, sizeof *vals);

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return LG_ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = hash_str(m->keys[i]) & (cap - 1);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int env_strmap_put(struct env_strmap *m, const char *key, int val)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap) {
		int rc = strmap_grow(m);
		if (rc)
			return rc;
	}
	j = hash_str(key) & (m->cap - 1);
	while (m->keys[j]) {
		if (!strcmp(m->keys[j], key)) {
			m->vals[j] = val;
			return 0;
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->keys[j] = strdup(key);
	if (!m->keys[j])
		return LG_ENOMEM;
	m->vals[j] = val;
	m->n++;
	return 0;
}

int env_strmap_get(const struct env_strmap *m, const char *key)
{
	size_t j;

	if (!m->cap)
		return -1;
	j = hash_str(key) & (m->cap - 1);
	while (m->keys[j]) {
		if (!strcmp(m->keys[j], key))
			return m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	return -1;
}

void env_strmap_free(struct env_strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}
