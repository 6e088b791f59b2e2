/*
 * envs/env.c: the registry and the play wrapper around the games' pure
 * state functions (chance sampling, simultaneous moves, truncation, checks).
 */
#include "envs/env_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static const struct league_game *const games[] = {
	&env_game_rps,	     &env_game_matrix,	 &env_game_kuhn,
	&env_game_leduc,     &env_game_leduc_short, &env_game_tictactoe,
	&env_game_connect4,  &env_game_timing,	 &env_game_liars_dice,
};

/* ---- opening a game ---------------------------------------------------- */

/* env_internal.h */
int env_name_ok(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return 0;
	return n >= 1 && n < ENV_NAME_MAX;
}

/* The checks a table must pass before anything calls it. */
static int check_table(const struct league_game *g, const char *where,
		       char *err, size_t errlen)
{
	if (g->abi != LEAGUE_GAME_ABI) {
		lg_errf(err, errlen, "%s: game ABI version %u, this league "
			"speaks version %u (rebuild the game against this "
			"league_game.h)", where, g->abi, LEAGUE_GAME_ABI);
		return LG_EINVAL;
	}
	if (!env_name_ok(g->name)) {
		lg_errf(err, errlen, "%s: the game's name must be 1-31 of "
			"[a-z0-9_-]", where);
		return LG_EINVAL;
	}
	if (!g->create || !g->root || !g->player || !g->legal ||
	    !g->apply || !g->observe || !g->returns) {
		lg_errf(err, errlen, "%s: game '%s' leaves a required function "
			"NULL (create, root, player, legal, apply, observe and "
			"returns are required)", where, g->name);
		return LG_EINVAL;
	}
	return 0;
}

/* What create() reported, against the caps; fills gm->spec. */
static int check_spec(struct env_game *gm, const struct league_game_spec *s,
		      const char *where, char *err, size_t errlen)
{
	const char *g = gm->g->name;
	uint64_t prod = 1;

	if (s->players != 2) {
		lg_errf(err, errlen, "%s: game '%s' has %u players; league "
			"plays two-player zero-sum games", where, g,
			s->players);
		return LG_EINVAL;
	}
	if (s->num_actions < 1 || s->num_actions > LEAGUE_GAME_ACTIONS_MAX ||
	    s->obs_len < 1 || s->obs_len > LEAGUE_GAME_OBS_MAX ||
	    s->state_size < 1 || s->state_size > LEAGUE_GAME_STATE_MAX ||
	    s->max_steps < 1 || s->obs_rank > LEAGUE_GAME_SHAPE_MAX) {
		lg_errf(err, errlen, "%s: game '%s' reports inconsistent "
			"sizes: num_actions %u (1..%u), obs_len %u (1..%u), "
			"state_size %llu (1..%u), max_steps %llu (>= 1), "
			"obs_rank %u (0..%u)", where, g, s->num_actions,
			LEAGUE_GAME_ACTIONS_MAX, s->obs_len,
			LEAGUE_GAME_OBS_MAX, (unsigned long long)s->state_size,
			LEAGUE_GAME_STATE_MAX,
			(unsigned long long)s->max_steps, s->obs_rank,
			LEAGUE_GAME_SHAPE_MAX);
		return LG_EINVAL;
	}
	for (uint32_t i = 0; i < s->obs_rank; i++)
		prod *= s->obs_shape[i];
	if (s->obs_rank && prod != s->obs_len) {
		lg_errf(err, errlen, "%s: game '%s' reports an observation "
			"shape whose product (%llu) is not obs_len (%u)", where,
			g, (unsigned long long)prod, s->obs_len);
		return LG_EINVAL;
	}
	if ((s->flags & LEAGUE_GAME_HAS_CHANCE) && !gm->g->chance) {
		lg_errf(err, errlen, "%s: game '%s' has chance nodes but no "
			"chance()", where, g);
		return LG_EINVAL;
	}
	memset(&gm->spec, 0, sizeof gm->spec);
	snprintf(gm->spec.name, sizeof gm->spec.name, "%s", g);
	gm->spec.players = 2;
	gm->spec.obs_len = s->obs_len;
	gm->spec.num_actions = (int)s->num_actions;
	gm->spec.max_steps = s->max_steps;
	gm->spec.obs_rank = s->obs_rank;
	memcpy(gm->spec.obs_shape, s->obs_shape, sizeof gm->spec.obs_shape);
	gm->spec.flags = ENV_F_ZERO_SUM |
		(s->flags & LEAGUE_GAME_SIMULTANEOUS ? ENV_F_SIMULTANEOUS : 0) |
		(s->flags & LEAGUE_GAME_HAS_CHANCE ? ENV_F_CHANCE : 0) |
		(gm->g->infostate ? ENV_F_TREE : 0) |
		(gm->g == &env_game_timing ? ENV_F_SLOW : 0);
	gm->state_size = (size_t)s->state_size;
	return 0;
}

static int load_plugin(struct env_game *gm, const char *path, char *err,
		       size_t errlen)
{
	league_game_entry_fn entry;
	const char *why;

	gm->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!gm->dl) {
		why = dlerror();
		lg_errf(err, errlen, "env.plugin: cannot load '%s': %s", path,
			why ? why : "dlopen failed");
		return LG_ENOTFOUND;
	}
	*(void **)&entry = dlsym(gm->dl, LEAGUE_GAME_ENTRY);
	if (!entry) {
		lg_errf(err, errlen, "env.plugin: '%s' exports no %s() (see "
			"league_game.h)", path, LEAGUE_GAME_ENTRY);
		return LG_ENOTFOUND;
	}
	gm->g = entry();
	if (!gm->g) {
		lg_errf(err, errlen, "env.plugin: %s() of '%s' returned NULL",
			LEAGUE_GAME_ENTRY, path);
		return LG_EINVAL;
	}
	return 0;
}

int env_game_open(struct env_game *gm, const char *name,
		  const struct env_opts *opts, char *err, size_t errlen)
{
	struct env_opts def;
	struct league_game_spec spec;
	struct league_game_params p;
	const char *keys[ENV_PARAMS_MAX], *vals[ENV_PARAMS_MAX];
	const char *where;
	int rc;

	memset(gm, 0, sizeof *gm);
	if (!opts) {
		env_opts_default(&def);
		opts = &def;
	}
	if (opts->plugin[0]) {
		where = opts->plugin;
		if ((rc = load_plugin(gm, opts->plugin, err, errlen)))
			goto fail;
	} else {
		where = "env.name";
		gm->builtin = 1;
		for (size_t i = 0; name && i < LG_ARRAY_LEN(games); i++)
			if (!strcmp(games[i]->name, name))
				gm->g = games[i];
		if (!gm->g) {
			lg_errf(err, errlen, "no game named '%s' (see 'league "
				"env list', or load one with env.plugin)",
				name ? name : "(null)");
			return LG_ENOTFOUND;
		}
	}
	if ((rc = check_table(gm->g, where, err, errlen)))
		goto fail;
	if (!gm->builtin && name && *name && strcmp(name, gm->g->name)) {
		lg_errf(err, errlen, "env.name: '%s', but the plugin '%s' is "
			"the game '%s'", name, opts->plugin, gm->g->name);
		rc = LG_EINVAL;
		goto fail;
	}
	if (opts->params.n > ENV_PARAMS_MAX) {
		lg_errf(err, errlen, "env.params: more than %d entries",
			ENV_PARAMS_MAX);
		rc = LG_EINVAL;
		goto fail;
	}
	for (uint32_t i = 0; i < opts->params.n; i++) {
		keys[i] = opts->params.key[i];
		vals[i] = opts->params.val[i];
	}
	p.count = opts->params.n;
	p.keys = keys;
	p.values = vals;
	if (gm->builtin)
		gm->own = *opts;
	p.host = gm->builtin ? &gm->own : NULL;
	memset(&spec, 0, sizeof spec);
	if (err && errlen)
		err[0] = 0;
	if ((rc = gm->g->create(&p, &gm->inst, &spec, err, errlen))) {
		/* A plugin's message is about its params; it may be empty. */
		if (!gm->builtin && err && errlen) {
			char msg[256];
			snprintf(msg, sizeof msg, "%s", err);
			lg_errf(err, errlen, "env.params: game '%s' refused "
				"its params%s%s", gm->g->name,
				msg[0] ? ": " : "", msg);
		}
		/* A built-in's LG_E* code stands; a plugin's is its own. */
		if (!gm->builtin || rc > 0)
			rc = LG_EINVAL;
		goto fail;
	}
	if ((rc = check_spec(gm, &spec, where, err, errlen)))
		goto fail;
	if (opts->max_steps && opts->max_steps < gm->spec.max_steps)
		gm->spec.max_steps = opts->max_steps;
	return 0;
fail:
	env_game_close(gm);
	return rc;
}

void env_game_close(struct env_game *gm)
{
	/* A built-in's instance is gm->own, unless its create made one
	 * of its own (liars_dice: its params). */
	if (gm->g && gm->inst && gm->g->destroy && gm->inst != &gm->own)
		gm->g->destroy(gm->inst);
	if (gm->dl)
		dlclose(gm->dl);
	memset(gm, 0, sizeof *gm);
}

/* ---- registry ---------------------------------------------------------- */

size_t env_count(void)
{
	return LG_ARRAY_LEN(games);
}

int env_info(size_t i, struct env_spec *spec, const char **summary)
{
	struct env_opts o;
	struct env_game gm;

	if (i >= LG_ARRAY_LEN(games))
		return LG_ERANGE;
	env_opts_default(&o);
	if (games[i] == &env_game_matrix) {
		/* No default payoff: report the caps. */
		o.matrix.rows = o.matrix.cols = ENV_MATRIX_MAX;
	}
	if (env_game_open(&gm, games[i]->name, &o, NULL, 0))
		return LG_EINVAL; /* defaults are valid; a test checks */
	*spec = gm.spec;
	if (summary)
		*summary = games[i]->summary;
	env_game_close(&gm);
	return 0;
}

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
	if (!e->st) {
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
		size_t ol = e->gm.spec.obs_len;
		if (remote_mover(e, player))
			memcpy(out, e->rm->obs + (size_t)player * ol,
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
	size_t na = (size_t)e->gm.spec.num_actions;
	int n = 0;

	if (!e->rm) {
		call_begin(e, "legal", player);
		n = e->gm.g->legal(e->gm.inst, e->st, player, mask);
		call_end();
		return n;
	}
	memcpy(mask, e->rm->mask + (size_t)player * na, na);
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
		memset(out, 0, (size_t)e->gm.spec.num_actions);
		return 0;
	}
	return game_legal(e, player, out);
}

static int is_legal(const env *e, int player, int action)
{
	uint8_t mask[ENV_MAX_ACTIONS];

	if (action < 0 || action >= e->gm.spec.num_actions)
		return 0;
	game_legal(e, player, mask);
	return mask[action];
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
	if (e->truncated || game_player(e) != ENV_TERMINAL) {
		for (int p = 0; p < e->gm.spec.players; p++)
			out[p] = 0;
		return;
	}
	if (e->rm) {
		out[0] = e->rm->ret[0];
		out[1] = e->rm->ret[1];
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
