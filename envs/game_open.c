/*
 * envs/game_open.c: opening a game: the registry of built-in games, a
 * plugin by path (game ABI version 1 or 2), the checks its table and
 * spec must pass before anything plays it, and the env_spec the rest of
 * the league reads. A version 1 plugin (two seats, zero-sum) is opened
 * through its own spec (envs/league_game_v1.h) and then played as a
 * version 2 game: its functions are the same but for create's spec.
 */
#include "envs/env_internal.h"

#include "envs/league_game_v1.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct league_game *const games[] = {
	&env_game_rps,	     &env_game_matrix,	 &env_game_kuhn,
	&env_game_leduc,     &env_game_leduc_short, &env_game_tictactoe,
	&env_game_connect4,  &env_game_timing,	 &env_game_liars_dice,
	&env_game_tiny_hanabi, &env_game_tiny_whist,
	&env_game_sheriff,   &env_game_othello,
};

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

const char *env_payoff_name(int payoff)
{
	static const char *const names[] = {
		[ENV_ZERO_SUM] = "zero-sum",
		[ENV_CONSTANT_SUM] = "constant-sum",
		[ENV_COMMON_PAYOFF] = "common-payoff",
		[ENV_GENERAL_SUM] = "general-sum",
	};

	return payoff >= 0 && payoff < (int)LG_ARRAY_LEN(names)
		       ? names[payoff]
		       : "?";
}

/* The checks a table must pass before anything calls it: gm->g is a
 * version 2 table (a version 1 plugin's copied into gm->v1tab). */
static int check_table(struct env_game *gm, const void *table,
		       const char *where, char *err, size_t errlen)
{
	uint32_t abi = *(const uint32_t *)table;
	const struct league_game *g;

	if (abi == LEAGUE_GAME_V1_ABI) {
		/* Version 1 is version 2's prefix, create's spec apart. */
		const struct league_game_v1 *v1 = table;
		memset(&gm->v1tab, 0, sizeof gm->v1tab);
		gm->v1tab.abi = abi;
		gm->v1tab.name = v1->name;
		gm->v1tab.summary = v1->summary;
		gm->v1tab.destroy = v1->destroy;
		gm->v1tab.root = v1->root;
		gm->v1tab.player = v1->player;
		gm->v1tab.chance = v1->chance;
		gm->v1tab.legal = v1->legal;
		gm->v1tab.apply = v1->apply;
		gm->v1tab.observe = v1->observe;
		gm->v1tab.returns = v1->returns;
		gm->v1tab.infostate = v1->infostate;
		gm->v1tab.serialize = v1->serialize;
		gm->v1tab.deserialize = v1->deserialize;
		gm->v1create = v1->create;
		gm->g = &gm->v1tab;
	} else if (abi == LEAGUE_GAME_ABI) {
		gm->g = table;
	} else {
		lg_errf(err, errlen, "%s: game ABI version %u, this league "
			"speaks versions 1 and %u (rebuild the game against "
			"this league_game.h)", where, abi, LEAGUE_GAME_ABI);
		return LG_EINVAL;
	}
	g = gm->g;
	if (!env_name_ok(g->name)) {
		lg_errf(err, errlen, "%s: the game's name must be 1-31 of "
			"[a-z0-9_-]", where);
		return LG_EINVAL;
	}
	if (!(g->create || gm->v1create) || !g->root || !g->player ||
	    !g->legal || !g->apply || !g->observe || !g->returns) {
		lg_errf(err, errlen, "%s: game '%s' leaves a required function "
			"NULL (create, root, player, legal, apply, observe and "
			"returns are required)", where, g->name);
		return LG_EINVAL;
	}
	return 0;
}

/* A version 1 spec as version 2's: two seats alike, each its own team,
 * zero-sum, at most 64 actions. */
static int spec_from_v1(const struct league_game_v1_spec *v1,
			struct league_game_spec *s, const char *where,
			const char *g, char *err, size_t errlen)
{
	if (v1->players != 2) {
		lg_errf(err, errlen, "%s: game '%s' (game ABI version 1) has "
			"%u players; version 1 games have 2", where, g,
			v1->players);
		return LG_EINVAL;
	}
	if (v1->num_actions > LEAGUE_GAME_V1_ACTIONS_MAX) {
		lg_errf(err, errlen, "%s: game '%s' (game ABI version 1) has "
			"%u actions; version 1 allows %u", where, g,
			v1->num_actions, LEAGUE_GAME_V1_ACTIONS_MAX);
		return LG_EINVAL;
	}
	memset(s, 0, sizeof *s);
	s->players = 2;
	s->flags = v1->flags;
	s->payoff = LEAGUE_GAME_ZERO_SUM;
	s->state_size = v1->state_size;
	s->max_steps = v1->max_steps;
	for (int p = 0; p < 2; p++) {
		s->seat[p].obs_len = v1->obs_len;
		s->seat[p].obs_rank = v1->obs_rank;
		memcpy(s->seat[p].obs_shape, v1->obs_shape,
		       sizeof s->seat[p].obs_shape);
		s->seat[p].num_actions = v1->num_actions;
	}
	return 0;
}

/* 1 when s is a role name: [a-z0-9_-]{1,ENV_ROLE_MAX-1}. */
static int role_ok(const char *s)
{
	size_t n = strnlen(s, ENV_ROLE_MAX);

	return n >= 1 && n < ENV_ROLE_MAX && env_name_ok(s);
}

/* One seat's sizes against the caps. */
static int check_seat(const struct league_game_seat *st, uint32_t p,
		      const char *where, const char *g, char *err,
		      size_t errlen)
{
	uint64_t prod = 1;

	if (st->num_actions < 1 || st->num_actions > LEAGUE_GAME_ACTIONS_MAX ||
	    st->obs_len < 1 || st->obs_len > LEAGUE_GAME_OBS_MAX ||
	    st->obs_rank > LEAGUE_GAME_SHAPE_MAX) {
		lg_errf(err, errlen, "%s: game '%s' reports inconsistent "
			"sizes for seat %u: num_actions %u (1..%u), obs_len %u "
			"(1..%u), obs_rank %u (0..%u)", where, g, p,
			st->num_actions, LEAGUE_GAME_ACTIONS_MAX, st->obs_len,
			LEAGUE_GAME_OBS_MAX, st->obs_rank,
			LEAGUE_GAME_SHAPE_MAX);
		return LG_EINVAL;
	}
	for (uint32_t i = 0; i < st->obs_rank; i++)
		prod *= st->obs_shape[i];
	if (st->obs_rank && prod != st->obs_len) {
		lg_errf(err, errlen, "%s: game '%s' reports an observation "
			"shape for seat %u whose product (%llu) is not obs_len "
			"(%u)", where, g, p, (unsigned long long)prod,
			st->obs_len);
		return LG_EINVAL;
	}
	if (memchr(st->role, 0, sizeof st->role) == NULL ||
	    (st->role[0] && !role_ok(st->role))) {
		lg_errf(err, errlen, "%s: game '%s' gives seat %u a role name "
			"that is not 1-15 of [a-z0-9_-]", where, g, p);
		return LG_EINVAL;
	}
	return 0;
}

/* Seats' roles into spec->roles / role_name / seat[].role, checking
 * that seats of one role have the same spaces. */
static int assign_roles(const struct league_game_spec *s,
			struct env_spec *es, const char *where, const char *g,
			char *err, size_t errlen)
{
	for (uint32_t p = 0; p < s->players; p++) {
		const struct league_game_seat *st = &s->seat[p];
		const char *name = st->role[0] ? st->role : "player";
		int r = 0;
		while (r < es->roles && strcmp(es->role_name[r], name))
			r++;
		if (r == es->roles) {
			snprintf(es->role_name[r], ENV_ROLE_MAX, "%s", name);
			es->roles++;
		} else {
			const struct env_seat *o = NULL;
			for (uint32_t q = 0; q < p && !o; q++)
				if (es->seat[q].role == r)
					o = &es->seat[q];
			if (o->obs_len != st->obs_len ||
			    o->num_actions != (int)st->num_actions ||
			    o->obs_rank != st->obs_rank ||
			    memcmp(o->obs_shape, st->obs_shape,
				   sizeof o->obs_shape)) {
				lg_errf(err, errlen, "%s: game '%s': seat %u "
					"has role '%s' but not the spaces of "
					"the role's first seat (seats of one "
					"role share obs_len, shape and "
					"num_actions)", where, g, p, name);
				return LG_EINVAL;
			}
		}
		es->seat[p].role = r;
	}
	return 0;
}

/* Teams: each seat its own (teams 0), or ids below spec->teams with
 * every team used. */
static int assign_teams(const struct league_game_spec *s,
			struct env_spec *es, const char *where, const char *g,
			char *err, size_t errlen)
{
	uint32_t used = 0;

	if (s->teams > s->players) {
		lg_errf(err, errlen, "%s: game '%s' reports %u teams for %u "
			"seats", where, g, s->teams, s->players);
		return LG_EINVAL;
	}
	es->teams = s->teams ? (int)s->teams : (int)s->players;
	for (uint32_t p = 0; p < s->players; p++) {
		uint32_t t = s->teams ? s->seat[p].team : p;
		if (t >= (uint32_t)es->teams) {
			lg_errf(err, errlen, "%s: game '%s' puts seat %u in "
				"team %u, out of range 0..%d", where, g, p, t,
				es->teams - 1);
			return LG_EINVAL;
		}
		es->seat[p].team = (int)t;
		used |= 1u << t;
	}
	if (used != (1u << es->teams) - 1) {
		lg_errf(err, errlen, "%s: game '%s' reports %d teams but "
			"leaves one without a seat", where, g, es->teams);
		return LG_EINVAL;
	}
	return 0;
}

/* What create() reported, against the caps; fills gm->spec. */
static int check_spec(struct env_game *gm, const struct league_game_spec *s,
		      const char *where, char *err, size_t errlen)
{
	const char *g = gm->g->name;
	struct env_spec *es = &gm->spec;
	int rc;

	if (s->players < 1 || s->players > LEAGUE_GAME_PLAYERS_MAX) {
		lg_errf(err, errlen, "%s: game '%s' has %u players; league "
			"plays games of 1 to %d", where, g, s->players,
			LEAGUE_GAME_PLAYERS_MAX);
		return LG_EINVAL;
	}
	if (s->state_size < 1 || s->state_size > LEAGUE_GAME_STATE_MAX ||
	    s->max_steps < 1) {
		lg_errf(err, errlen, "%s: game '%s' reports inconsistent "
			"sizes: state_size %llu (1..%u), max_steps %llu "
			"(>= 1)", where, g, (unsigned long long)s->state_size,
			LEAGUE_GAME_STATE_MAX,
			(unsigned long long)s->max_steps);
		return LG_EINVAL;
	}
	if (s->payoff > LEAGUE_GAME_GENERAL_SUM ||
	    (s->payoff == LEAGUE_GAME_CONSTANT_SUM && !isfinite(s->payoff_sum))) {
		lg_errf(err, errlen, "%s: game '%s' declares payoff type %u "
			"(0 zero-sum, 1 constant-sum with a finite payoff_sum, "
			"2 common-payoff, 3 general-sum)", where, g, s->payoff);
		return LG_EINVAL;
	}
	if ((s->flags & LEAGUE_GAME_HAS_CHANCE) && !gm->g->chance) {
		lg_errf(err, errlen, "%s: game '%s' has chance nodes but no "
			"chance()", where, g);
		return LG_EINVAL;
	}
	memset(es, 0, sizeof *es);
	for (uint32_t p = 0; p < s->players; p++) {
		const struct league_game_seat *st = &s->seat[p];
		if ((rc = check_seat(st, p, where, g, err, errlen)))
			return rc;
		es->seat[p].obs_len = st->obs_len;
		es->seat[p].num_actions = (int)st->num_actions;
		es->seat[p].obs_rank = st->obs_rank;
		memcpy(es->seat[p].obs_shape, st->obs_shape,
		       sizeof es->seat[p].obs_shape);
		if (st->obs_len > es->obs_len)
			es->obs_len = st->obs_len;
		if ((int)st->num_actions > es->num_actions)
			es->num_actions = (int)st->num_actions;
		if (st->obs_len != s->seat[0].obs_len ||
		    st->num_actions != s->seat[0].num_actions)
			es->flags |= ENV_F_ASYMMETRIC;
	}
	if ((rc = assign_roles(s, es, where, g, err, errlen)) ||
	    (rc = assign_teams(s, es, where, g, err, errlen)))
		return rc;
	snprintf(es->name, sizeof es->name, "%s", g);
	es->players = (int)s->players;
	es->max_steps = s->max_steps;
	es->obs_rank = s->seat[0].obs_rank;
	memcpy(es->obs_shape, s->seat[0].obs_shape, sizeof es->obs_shape);
	es->payoff = (int)s->payoff;
	es->payoff_sum = s->payoff == LEAGUE_GAME_CONSTANT_SUM ? s->payoff_sum
							       : 0;
	es->flags |= (s->payoff == LEAGUE_GAME_ZERO_SUM ? ENV_F_ZERO_SUM : 0) |
		(s->flags & LEAGUE_GAME_SIMULTANEOUS ? ENV_F_SIMULTANEOUS : 0) |
		(s->flags & LEAGUE_GAME_HAS_CHANCE ? ENV_F_CHANCE : 0) |
		(gm->g->infostate ? ENV_F_TREE : 0) |
		(gm->g->describe && gm->g->action_name ? ENV_F_TEXT : 0) |
		(gm->g == &env_game_timing ? ENV_F_SLOW : 0);
	gm->state_size = (size_t)s->state_size;
	return 0;
}

/* dlopen the plugin at path and ask it for its table (*table). */
static int load_plugin(struct env_game *gm, const char *path,
		       const void **table, char *err, size_t errlen)
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
	*table = entry();
	if (!*table) {
		lg_errf(err, errlen, "env.plugin: %s() of '%s' returned NULL",
			LEAGUE_GAME_ENTRY, path);
		return LG_EINVAL;
	}
	return 0;
}

/* The game's create() with p, its spec as version 2's into *spec. */
static int call_create(struct env_game *gm,
		       const struct league_game_params *p,
		       struct league_game_spec *spec, const char *where,
		       char *err, size_t errlen)
{
	struct league_game_v1_spec v1;
	int rc;

	memset(spec, 0, sizeof *spec);
	if (err && errlen)
		err[0] = 0;
	if (gm->v1create) {
		memset(&v1, 0, sizeof v1);
		rc = gm->v1create(p, &gm->inst, &v1, err, errlen);
	} else {
		rc = gm->g->create(p, &gm->inst, spec, err, errlen);
	}
	if (rc) {
		/* A plugin's message is about its params; it may be empty. */
		if (!gm->builtin && err && errlen) {
			char msg[256];
			snprintf(msg, sizeof msg, "%s", err);
			lg_errf(err, errlen, "env.params: game '%s' refused "
				"its params%s%s", gm->g->name,
				msg[0] ? ": " : "", msg);
		}
		/* A built-in's LG_E* code stands; a plugin's is its own. */
		return !gm->builtin || rc > 0 ? LG_EINVAL : rc;
	}
	if (gm->v1create)
		return spec_from_v1(&v1, spec, where, gm->g->name, err,
				    errlen);
	return 0;
}

int env_game_open(struct env_game *gm, const char *name,
		  const struct env_opts *opts, char *err, size_t errlen)
{
	struct env_opts def;
	struct league_game_spec spec;
	struct league_game_params p;
	const char *keys[ENV_PARAMS_MAX], *vals[ENV_PARAMS_MAX];
	const void *table = NULL;
	const char *where;
	int rc;

	memset(gm, 0, sizeof *gm);
	if (!opts) {
		env_opts_default(&def);
		opts = &def;
	}
	if (opts->plugin[0]) {
		where = opts->plugin;
		if ((rc = load_plugin(gm, opts->plugin, &table, err, errlen)))
			goto fail;
	} else {
		where = "env.name";
		gm->builtin = 1;
		for (size_t i = 0; name && i < LG_ARRAY_LEN(games); i++)
			if (!strcmp(games[i]->name, name))
				table = games[i];
		if (!table) {
			lg_errf(err, errlen, "no game named '%s' (see 'league "
				"env list', or load one with env.plugin)",
				name ? name : "(null)");
			return LG_ENOTFOUND;
		}
	}
	if ((rc = check_table(gm, table, where, err, errlen)))
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
	if ((rc = call_create(gm, &p, &spec, where, err, errlen)) ||
	    (rc = check_spec(gm, &spec, where, err, errlen)))
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

/* env_internal.h */
void env_spec_symmetric(struct env_spec *s)
{
	if (s->seat[0].num_actions)
		return;
	for (int p = 0; p < s->players && p < ENV_MAX_PLAYERS; p++) {
		s->seat[p].obs_len = s->obs_len;
		s->seat[p].num_actions = s->num_actions;
		s->seat[p].obs_rank = s->obs_rank;
		memcpy(s->seat[p].obs_shape, s->obs_shape,
		       sizeof s->seat[p].obs_shape);
		s->seat[p].team = p;
		s->seat[p].role = 0;
	}
	s->teams = s->players;
	s->roles = 1;
	snprintf(s->role_name[0], ENV_ROLE_MAX, "player");
	if (s->flags & ENV_F_ZERO_SUM)
		s->payoff = ENV_ZERO_SUM;
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
