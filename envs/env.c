/*
 * envs/env.c: the registry and the play wrapper around the games' pure
 * state functions (chance sampling, simultaneous moves, truncation, checks).
 */
#include "envs/env_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- play -------------------------------------------------------------- */

void env_resolve_chance(const struct env_game *gm, void *st,
			struct env_rng *rng)
{
	int out[ENV_CHANCE_MAX];
	double p[ENV_CHANCE_MAX];

	while (gm->g->player(gm->inst, st) == ENV_CHANCE) {
		int n = gm->g->chance(gm->inst, st, out, p);
		gm->g->apply(gm->inst, st,
			     out[lg_rng_categorical(&rng->r, p, (size_t)n)],
			     &rng->base);
	}
}

/* e->scratch for e's spec: 0, or LG_ENOMEM. */
static int scratch_new(env *e)
{
	e->scratch = e->gm.spec.num_actions <= ENV_MAX_ACTIONS
			     ? e->mask_inline
			     : malloc((size_t)e->gm.spec.num_actions);
	return e->scratch ? 0 : LG_ENOMEM;
}

int env_new(env **out, const char *name, const struct env_opts *opts,
	    char *err, size_t errlen)
{
	env *e = NULL;
	int rc;

	*out = NULL;
	e = calloc(1, sizeof *e);
	if (!e) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	if (opts)
		e->o = *opts;
	else
		env_opts_default(&e->o);
	if (e->o.remote[0]) {
		rc = env_remote_open(&e->rm, name, &e->o, &e->gm.spec, err,
				     errlen);
		if (!rc)
			env_spec_symmetric(&e->gm.spec);
		if (!rc && scratch_new(e)) {
			lg_errf(err, errlen, "out of memory");
			rc = LG_ENOMEM;
		}
		if (!rc && e->o.max_steps &&
		    e->o.max_steps < e->gm.spec.max_steps)
			e->gm.spec.max_steps = e->o.max_steps;
		if (!rc && (rc = env_reset(e, e->o.seed)))
			lg_errf(err, errlen, "game server at %s: the first "
				"reset failed", e->o.remote);
		if (rc) {
			env_free(e);
			return rc;
		}
		*out = e;
		return 0;
	}
	if ((rc = env_game_open(&e->gm, name, &e->o, err, errlen))) {
		free(e);
		return rc;
	}
	/* 16-byte aligned, as the games' own structs may want. */
	e->st = e->gm.state_size <= sizeof e->st_inline
			? e->st_inline
			: aligned_alloc(16, (e->gm.state_size + 15) &
					    ~(size_t)15);
	if (!e->st || scratch_new(e)) {
		lg_errf(err, errlen, "out of memory");
		env_free(e);
		return LG_ENOMEM;
	}
	env_reset(e, e->o.seed);
	*out = e;
	return 0;
}

int env_check(const char *name, const struct env_opts *opts,
	      struct env_spec *spec, char *err, size_t errlen)
{
	struct env_game gm;
	int rc;

	if (opts && opts->remote[0]) {
		struct env_remote *r;
		struct env_spec sp;
		if ((rc = env_remote_open(&r, name, opts, &sp, err, errlen)))
			return rc;
		env_remote_close(r);
		env_spec_symmetric(&sp);
		if (opts->max_steps && opts->max_steps < sp.max_steps)
			sp.max_steps = opts->max_steps;
		if (spec)
			*spec = sp;
		return 0;
	}
	if ((rc = env_game_open(&gm, name, opts, err, errlen)))
		return rc;
	if (spec)
		*spec = gm.spec;
	env_game_close(&gm);
	return 0;
}

void env_free(env *e)
{
	if (!e)
		return;
	env_remote_close(e->rm);
	env_game_close(&e->gm);
	if (e->st != e->st_inline)
		free(e->st);
	if (e->scratch && e->scratch != e->mask_inline)
		free(e->scratch);
	free(e);
}

const struct env_spec *env_spec_of(const env *e)
{
	return &e->gm.spec;
}

double env_infer_s(const env *e)
{
	return e->gm.g == &env_game_timing ? e->o.timing.infer_s : 0;
}

/* The game call this thread is in, for a fatal signal's report
 * (env_current_call): a few stores around each call into the game. */
static __thread struct env_call cur_call;

static void call_begin(const env *e, const char *fn, int player)
{
	cur_call.game = e->gm.g->name;
	cur_call.player = player;
	cur_call.step = e->steps;
	cur_call.fn = fn;
}

static void call_end(void)
{
	cur_call.fn = NULL;
}

const struct env_call *env_current_call(void)
{
	return &cur_call;
}

int env_reset(env *e, uint64_t seed)
{
	env_rng_seed(&e->rng, seed);
	e->steps = 0;
	e->truncated = 0;
	if (e->rm)
		return env_remote_reset(e->rm, seed);
	call_begin(e, "root", -1);
	e->gm.g->root(e->gm.inst, e->st, &e->rng.base);
	call_end();
	env_resolve_chance(&e->gm, e->st, &e->rng);
	return 0;
}

/* The game's own view of who moves (before truncation). */
static int game_player(const env *e)
{
	if (e->rm)
		return e->rm->player == -1 ? ENV_TERMINAL : e->rm->player;
	call_begin(e, "player", -1);
	int p = e->gm.g->player(e->gm.inst, e->st);
	call_end();
	return p;
}

int env_is_terminal(const env *e)
{
	return e->truncated || game_player(e) == ENV_TERMINAL;
}

int env_current_player(const env *e)
{
	if (env_is_terminal(e))
		return ENV_TERMINAL;
	if (e->gm.spec.flags & ENV_F_SIMULTANEOUS)
		return ENV_SIMULTANEOUS;
	return game_player(e);
}

/* A remote env knows the observations and masks of its movers only. */
static int remote_mover(const env *e, int player)
{
	int cur = env_current_player(e);

	return cur == ENV_SIMULTANEOUS || cur == player;
}

int env_observe(const env *e, int player, float *out)
{
	if (player < 0 || player >= e->gm.spec.players)
		return LG_EINVAL;
	if (e->rm) {
		size_t ol = e->gm.spec.seat[player].obs_len;
		if (remote_mover(e, player))
			memcpy(out, e->rm->obs +
					    (size_t)player * e->gm.spec.obs_len,
			       ol * sizeof *out);
		else
			memset(out, 0, ol * sizeof *out);
		return 0;
	}
	call_begin(e, "observe", player);
	e->gm.g->observe(e->gm.inst, e->st, player, out);
	call_end();
	return 0;
}

/* mask of a player that may move now. */
static int game_legal(const env *e, int player, uint8_t *mask)
{
	size_t na = (size_t)e->gm.spec.seat[player].num_actions;
	int n = 0;

	if (!e->rm) {
		call_begin(e, "legal", player);
		n = e->gm.g->legal(e->gm.inst, e->st, player, mask);
		call_end();
		return n;
	}
	/* seat rows are the largest seat's apart (env_internal.h) */
	memcpy(mask, e->rm->mask + (size_t)player * e->gm.spec.num_actions,
	       na);
	for (size_t a = 0; a < na; a++)
		n += mask[a];
	return n;
}

int env_legal(const env *e, int player, uint8_t *out)
{
	int cur;

	if (player < 0 || player >= e->gm.spec.players)
		return LG_EINVAL;
	cur = env_current_player(e);
	if (cur != ENV_SIMULTANEOUS && cur != player) {
		memset(out, 0, (size_t)e->gm.spec.seat[player].num_actions);
		return 0;
	}
	return game_legal(e, player, out);
}

static int is_legal(const env *e, int player, int action)
{
	if (action < 0 || action >= e->gm.spec.seat[player].num_actions)
		return 0;
	game_legal(e, player, e->scratch);
	return e->scratch[action];
}

static void after_step(env *e)
{
	if (!e->rm)
		env_resolve_chance(&e->gm, e->st, &e->rng);
	e->steps++;
	if (e->steps >= e->gm.spec.max_steps &&
	    game_player(e) != ENV_TERMINAL)
		e->truncated = 1;
}

int env_step(env *e, int action)
{
	int p = env_current_player(e);

	if (p < 0 || !is_legal(e, p, action))
		return LG_EINVAL;
	if (e->rm) {
		int rc = env_remote_step(e->rm, &action, 1);
		if (rc)
			return rc;
		after_step(e);
		return 0;
	}
	call_begin(e, "apply", p);
	e->gm.g->apply(e->gm.inst, e->st, action, &e->rng.base);
	call_end();
	after_step(e);
	return 0;
}

int env_step_joint(env *e, const int *actions)
{
	if (env_current_player(e) != ENV_SIMULTANEOUS)
		return LG_EINVAL;
	for (int p = 0; p < e->gm.spec.players; p++)
		if (!is_legal(e, p, actions[p]))
			return LG_EINVAL;
	if (e->rm) {
		int rc = env_remote_step(e->rm, actions, e->gm.spec.players);
		if (rc)
			return rc;
		after_step(e);
		return 0;
	}
	/* Written as sequential moves with hidden information. */
	for (int p = 0; p < e->gm.spec.players; p++) {
		call_begin(e, "apply", p);
		e->gm.g->apply(e->gm.inst, e->st, actions[p], &e->rng.base);
	}
	call_end();
	after_step(e);
	return 0;
}

int env_advance_many(env *const *es, const int *actions,
		     const uint64_t *seeds, size_t n, int *rcs)
{
	struct env_remote *stack[64], **rs = stack;
	int stack_a[64 * ENV_MAX_PLAYERS], *acts = stack_a;
	int stack_r[64], *resets = stack_r, stack_c[64], *rr = stack_c;
	uint64_t stack_s[64], *sd = stack_s;
	size_t m = 0, k = 0;
	int np, nact, rc = 0;

	if (!n)
		return 0;
	np = es[0]->gm.spec.players;
	nact = es[0]->gm.spec.flags & ENV_F_SIMULTANEOUS ? np : 1;
	if (n > 64) {
		rs = malloc(n * sizeof *rs);
		acts = malloc(n * (size_t)np * sizeof *acts);
		resets = malloc(n * sizeof *resets);
		rr = malloc(n * sizeof *rr);
		sd = malloc(n * sizeof *sd);
		if (!rs || !acts || !resets || !rr || !sd) {
			rc = LG_ENOMEM;
			goto out;
		}
	}
	/* In-process envs (and remote ones of another shape) advance here;
	 * the rest are checked here and sent as one batch per server. */
	for (size_t i = 0; i < n; i++) {
		const int *a = actions + i * (size_t)np;
		env *e = es[i];
		int p = env_current_player(e);
		rcs[i] = 0;
		if (!e->rm || e->gm.spec.players != np ||
		    (e->gm.spec.flags & ENV_F_SIMULTANEOUS ? np : 1) != nact) {
			rcs[i] = p == ENV_TERMINAL ? env_reset(e, seeds[i])
				 : p == ENV_SIMULTANEOUS ? env_step_joint(e, a)
							 : env_step(e, a[0]);
			continue;
		}
		if (p == ENV_TERMINAL) {
			env_rng_seed(&e->rng, seeds[i]);
			e->steps = 0;
			e->truncated = 0;
			resets[m] = 1;
		} else {
			for (int q = 0; q < nact; q++)
				if (!is_legal(e, p == ENV_SIMULTANEOUS ? q : p,
					      a[q]))
					rcs[i] = LG_EINVAL;
			if (rcs[i])
				continue;
			resets[m] = 0;
			for (int q = 0; q < nact; q++)
				acts[m * (size_t)nact + (size_t)q] = a[q];
		}
		rs[m] = e->rm;
		sd[m++] = seeds[i];
	}
	if (m && !(rc = env_remote_advance_many(rs, resets, acts, nact, sd, m,
						rr)))
		for (size_t i = 0; i < n && k < m; i++) {
			env *e = es[i];
			if (e->rm != rs[k])
				continue; /* advanced here, or refused */
			rcs[i] = rr[k];
			if (!rr[k] && !resets[k])
				after_step(e);
			k++;
		}
out:
	if (rs != stack) {
		free(rs);
		free(acts);
		free(resets);
		free(rr);
		free(sd);
	}
	return rc;
}

uint64_t env_steps(const env *e)
{
	return e->steps;
}

void env_returns(const env *e, double *out)
{
	const struct env_spec *sp = &e->gm.spec;

	if (e->truncated || game_player(e) != ENV_TERMINAL) {
		/* A draw: the sum split evenly. */
		for (int p = 0; p < sp->players; p++)
			out[p] = sp->payoff_sum / sp->players;
		return;
	}
	if (e->rm) {
		memcpy(out, e->rm->ret, (size_t)sp->players * sizeof *out);
		return;
	}
	call_begin(e, "returns", -1);
	e->gm.g->returns(e->gm.inst, e->st, out);
	call_end();
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

/* ---- text -------------------------------------------------------------- */

int env_describe(const env *e, int player, char *buf, size_t len)
{
	if (player < 0 || player >= e->gm.spec.players || !len)
		return LG_EINVAL;
	if (e->rm)
		return env_remote_describe(e->rm, player, buf, len);
	if (!e->gm.g->describe)
		return LG_EUNSUPP;
	buf[0] = 0;
	call_begin(e, "describe", player);
	e->gm.g->describe(e->gm.inst, e->st, player, buf, len);
	call_end();
	buf[len - 1] = 0;
	return 0;
}

int env_action_name(const env *e, int player, int action, char *buf,
		    size_t len)
{
	if (player < 0 || player >= e->gm.spec.players || !len ||
	    action < 0 || action >= e->gm.spec.seat[player].num_actions)
		return LG_EINVAL;
	if (e->rm && (e->gm.spec.flags & ENV_F_TEXT))
		return env_remote_action_name(e->rm, player, action, buf, len);
	if (e->rm || !e->gm.g->action_name) {
		snprintf(buf, len, "%d", action);
		return 0;
	}
	buf[0] = 0;
	call_begin(e, "action_name", player);
	e->gm.g->action_name(e->gm.inst, e->st, player, action, buf, len);
	call_end();
	buf[len - 1] = 0;
	return 0;
}

int env_action_parse(const env *e, int player, const char *text,
		     int *action)
{
	char name[ENV_ACTION_NAME_MAX];
	uint64_t v;
	int na;

	if (player < 0 || player >= e->gm.spec.players)
		return LG_EINVAL;
	na = e->gm.spec.seat[player].num_actions;
	if (env_legal(e, player, e->scratch) <= 0)
		return LG_ENOTFOUND;
	for (int a = 0; a < na; a++) {
		if (!e->scratch[a])
			continue;
		env_action_name(e, player, a, name, sizeof name);
		if (!strcmp(name, text)) {
			*action = a;
			return 0;
		}
	}
	if (!lg_parse_u64(text, 0, (uint64_t)na - 1, &v) && e->scratch[v]) {
		*action = (int)v;
		return 0;
	}
	return LG_ENOTFOUND;
}
