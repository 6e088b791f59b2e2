/*
 * collector/collector.c: the public lifecycle (coll_new, coll_collect,
 * coll_stats, coll_stop, coll_free), option checks and the built-in
 * policies. The model is described in collector.h; how the parts fit and
 * the invariants that matter are in collector_internal.h.
 */
#include "collector/collector_internal.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *coll_mode_name(enum coll_mode m)
{
	return m == COLL_SERIAL ? "serial" : m == COLL_SYNC ? "sync" : "async";
}

int coll_mode_parse(const char *s, enum coll_mode *out)
{
	for (int m = COLL_SERIAL; m <= COLL_ASYNC; m++)
		if (!strcmp(s, coll_mode_name((enum coll_mode)m))) {
			*out = (enum coll_mode)m;
			return 0;
		}
	return LG_EINVAL;
}

void coll_opts_default(struct coll_opts *o)
{
	memset(o, 0, sizeof *o);
	env_opts_default(&o->env);
	o->num_envs = 8;
	o->mode = COLL_ASYNC;
	o->wait_num = 7;
	o->wait_timeout_s = 0.01;
	o->step_timeout_s = 60;
	o->reset_timeout_s = 120;
	o->retry_backoff_s = 0.25;
	o->max_retries = 3;
	o->segment_len = 128;
	o->num_policies = 1;
	/* off; the rest as the config's learner.search defaults */
	o->search = (struct coll_search){ .sims = 0, .c_puct = 1.5,
					  .temperature_moves = 8,
					  .dirichlet_alpha = 0.3,
					  .noise_frac = 0.25,
					  .full_frac = 0.25, .batch = 1 };
	for (int p = 0; p < ENV_MAX_PLAYERS; p++)
		o->match.seat[p] = (struct coll_seat){ 0, 0, 1, 0 };
}

static int uniform_pick(const uint8_t *mask, int na, lg_rng *rng,
			float *logp)
{
	int k = 0, pick;

	for (int a = 0; a < na; a++)
		k += mask[a] != 0;
	if (k == 0) {
		*logp = 0;
		return 0;
	}
	*logp = -logf((float)k);
	pick = (int)lg_rng_below(rng, (uint64_t)k);
	for (int a = 0; a < na; a++)
		if (mask[a] && pick-- == 0)
			return a;
	return 0;
}

static int uniform_act(void *ctx, const float *obs, const uint8_t *mask,
		       size_t n, size_t obs_len, int na, lg_rng *rng,
		       int32_t *action, float *logp, float *value,
		       float *state)
{
	for (size_t i = 0; i < n; i++) {
		action[i] = uniform_pick(mask + i * (size_t)na, na, rng,
					 &logp[i]);
		value[i] = 0;
	}
	return 0;
}

static int uniform_eval(void *ctx, void **ws, size_t n, const float *obs,
			const uint8_t *mask, int na, float *prior,
			float *value)
{
	for (size_t i = 0; i < n * (size_t)na; i++)
		prior[i] = mask[i] ? 1.0f : 0.0f;
	for (size_t i = 0; i < n; i++)
		value[i] = 0;
	return 0;
}

struct coll_policy coll_policy_uniform(void)
{
	return (struct coll_policy){ .act = uniform_act,
				     .eval = uniform_eval };
}

static int sim_act(void *ctx, const float *obs, const uint8_t *mask,
		   size_t n, size_t obs_len, int na, lg_rng *rng,
		   int32_t *action, float *logp, float *value,
		   float *state)
{
	const struct coll_sim *sim = ctx;
	double f = sim->jitter_lo +
		   (sim->jitter_hi - sim->jitter_lo) * lg_rng_double(rng);

	if (sim->infer_s > 0)
		lg_sleep_s(sim->infer_s * f);
	return uniform_act(NULL, obs, mask, n, obs_len, na, rng, action, logp,
			   value, state);
}

struct coll_policy coll_policy_simulated(const struct coll_sim *sim)
{
	return (struct coll_policy){ .act = sim_act,
				     .ctx = (void *)(uintptr_t)sim };
}

/* ---- public ------------------------------------------------------------- */

static int check_opts(const struct coll_opts *o, char *err, size_t errlen)
{
	if (!o->game || !*o->game || strlen(o->game) >= ENV_NAME_MAX) {
		lg_errf(err, errlen, "collector: no game name");
		return LG_EINVAL;
	}
	if (o->num_envs < 1 || o->num_envs > COLL_ENVS_MAX) {
		lg_errf(err, errlen, "collector: envs must be in [1, %d]",
			COLL_ENVS_MAX);
		return LG_ERANGE;
	}
	if (o->mode != COLL_SERIAL && o->mode != COLL_SYNC &&
	    o->mode != COLL_ASYNC) {
		lg_errf(err, errlen, "collector: bad mode");
		return LG_EINVAL;
	}
	if (o->mode == COLL_ASYNC &&
	    (o->wait_num < 1 || o->wait_num > o->num_envs)) {
		lg_errf(err, errlen, "collector: wait_num must be in [1, "
			"envs]");
		return LG_ERANGE;
	}
	if (!(o->wait_timeout_s >= 0 && o->wait_timeout_s <= 3600) ||
	    !(o->step_timeout_s > 0 && o->step_timeout_s <= 86400) ||
	    !(o->reset_timeout_s > 0 && o->reset_timeout_s <= 86400) ||
	    !(o->retry_backoff_s >= 0 && o->retry_backoff_s <= 60)) {
		lg_errf(err, errlen, "collector: timeouts out of range");
		return LG_ERANGE;
	}
	if (o->max_retries > COLL_RETRIES_MAX || o->segment_len < 1 ||
	    o->segment_len > COLL_SEGMENT_MAX ||
	    o->state_len > COLL_STATE_MAX) {
		lg_errf(err, errlen, "collector: retries, segment_len or "
			"state_len out of range");
		return LG_ERANGE;
	}
	if (o->num_policies < 1 || o->num_policies > COLL_NETS_MAX ||
	    !o->policies) {
		lg_errf(err, errlen, "collector: need 1..%d policies",
			COLL_NETS_MAX);
		return LG_EINVAL;
	}
	for (size_t k = 0; k < o->num_policies; k++)
		if (!o->policies[k].act) {
			lg_errf(err, errlen, "collector: policy %zu has no "
				"act", k);
			return LG_EINVAL;
		}
	if (o->num_baselines > COLL_BASELINES_MAX) {
		lg_errf(err, errlen, "collector: at most %d baselines",
			COLL_BASELINES_MAX);
		return LG_ERANGE;
	}
	for (size_t k = 0; k < o->num_baselines; k++)
		if (!o->baselines || !o->baselines[k] ||
		    strlen(o->baselines[k]) >= COLL_BASELINE_SPEC_MAX) {
			lg_errf(err, errlen, "collector: baseline %zu: no spec "
				"or longer than %d bytes", k + 1,
				COLL_BASELINE_SPEC_MAX - 1);
			return LG_EINVAL;
		}
	for (int p = 0; p < ENV_MAX_PLAYERS; p++) {
		const struct coll_seat *st = &o->match.seat[p];
		if (st->baseline > o->num_baselines) {
			lg_errf(err, errlen, "collector: seat %d uses baseline "
				"%u of %zu", p, st->baseline,
				o->num_baselines);
			return LG_EINVAL;
		}
		if (!st->baseline && st->net >= o->num_policies) {
			lg_errf(err, errlen, "collector: seat %d uses network "
				"%u of %zu", p, st->net, o->num_policies);
			return LG_EINVAL;
		}
	}
	return 0;
}

/* Every baseline spec must play this game: try each on the probe env
 * now rather than failing every env's first move later. */
static int check_baselines(const struct coll_opts *o, const env *probe,
			   char *err, size_t errlen)
{
	for (size_t k = 0; k < o->num_baselines; k++) {
		env_baseline *b = NULL;
		char why[160] = "";
		int rc = env_baseline_new(&b, o->baselines[k], probe, why,
					  sizeof why);
		env_baseline_free(b);
		if (rc) {
			lg_errf(err, errlen, "collector: baseline %zu '%s' "
				"for %s: %s", k + 1, o->baselines[k],
				o->game, why);
			return rc;
		}
	}
	return 0;
}

/* collector.h */
/* Some seat's observation has a shape (planes for a convolution). */
static int shaped_seats(const struct env_spec *s)
{
	for (int q = 0; q < s->players; q++)
		if (s->seat[q].obs_rank > 0)
			return 1;
	return 0;
}

int coll_game_check(const struct env_spec *s, char *err, size_t errlen)
{
	char buf[160];
	const char *why = NULL;

	if (s->players < 2) {
		snprintf(buf, sizeof buf, "has %d seat: no one to play "
			 "against or with", s->players);
		why = buf;
	} else if (s->flags & ENV_F_ASYMMETRIC && shaped_seats(s)) {
		why = "has seats of different spaces with shaped observations "
		      "(one network takes every role's seat, each observation "
		      "padded with zeros to the longest: flat ones only)";
	} else if (s->num_actions > ENV_GAME_ACTIONS_MAX) {
		snprintf(buf, sizeof buf, "has %d actions (the network takes "
			 "at most %d)", s->num_actions, ENV_GAME_ACTIONS_MAX);
		why = buf;
	}
	if (!why)
		return 0;
	lg_errf(err, errlen, "game '%s' %s: a league trains games of 2 to "
		"%d seats of any payoff type, asymmetric ones with flat "
		"observations (league env check and league play take this "
		"one, and league eval nashconv where it has an exact tree)",
		s->name, why, ENV_MAX_PLAYERS);
	return LG_EUNSUPP;
}

/* The game's spec into *spec, from an env that does not sleep, and the
 * checks that need it (every baseline plays the game, the search can run
 * on it). The error's reason in err. */
static int probe_spec(const struct coll_opts *o, struct env_spec *spec,
		      char *err, size_t errlen)
{
	struct env_opts probe_opts;
	env *probe = NULL;
	int rc;

	/* The spec, from an env that does not sleep. */
	probe_opts = o->env;
	probe_opts.timing.reset_s = probe_opts.timing.step_s = 0;
	rc = env_new(&probe, o->game, &probe_opts, err, errlen);
	if (rc)
		return rc;
	if (env_spec_of(probe)->num_actions > ENV_GAME_ACTIONS_MAX) {
		lg_errf(err, errlen, "collector: game '%s' has %d actions; "
			"the network takes at most %d", o->game,
			env_spec_of(probe)->num_actions, ENV_GAME_ACTIONS_MAX);
		rc = LG_EUNSUPP;
	} else if (env_spec_of(probe)->num_actions > ENV_MAX_ACTIONS &&
		   o->search.sims) {
		/* the search's visit shares are a dense column of the rows */
		lg_errf(err, errlen, "collector: game '%s' has %d actions; "
			"the search (learner.search) takes games of at most "
			"%d", o->game, env_spec_of(probe)->num_actions,
			ENV_MAX_ACTIONS);
		rc = LG_EUNSUPP;
	}
	if (!rc)
		rc = check_baselines(o, probe, err, errlen);
	if (!rc)
		rc = coll_search_check(o, probe, err, errlen);
	if (!rc)
		*spec = *env_spec_of(probe);
	env_free(probe);
	return rc;
}

/* c's own copy of o: the game's name, the policies and the baseline
 * specs it points to, kept in c. */
static void copy_opts(coll *c, const struct coll_opts *o)
{
	c->o = *o;
	snprintf(c->game, sizeof c->game, "%s", o->game);
	c->o.game = c->game;
	memcpy(c->pols, o->policies, o->num_policies * sizeof *c->pols);
	c->o.policies = c->pols;
	for (size_t k = 0; k < o->num_baselines; k++) {
		snprintf(c->bspec[k], sizeof c->bspec[k], "%s",
			 o->baselines[k]);
		c->bspecs[k] = c->bspec[k];
	}
	c->o.baselines = c->bspecs;
}

/* A group per policy: its rows and its inference devices. LG_ENOMEM
 * (coll_free frees what was made). */
static int alloc_groups(coll *c)
{
	for (size_t k = 0; k < c->o.num_policies; k++) {
		struct group *g = &c->groups[k];
		g->pol = c->o.policies[k];
		/* Concurrent forwards: at most one per env, as each batch
		 * holds a row of one. */
		g->devmax = g->pol.max_calls && g->pol.max_calls < c->n
				    ? g->pol.max_calls
				    : c->n;
		g->rows = malloc(c->rows_max * sizeof *g->rows);
		g->dev = calloc(g->devmax, sizeof *g->dev);
		if (!g->rows || !g->dev)
			return LG_ENOMEM;
	}
	return 0;
}

/* The slots, every one resetting: their buffers and the trajectories of
 * the seats that may learn. LG_ENOMEM (coll_free frees what was made). */
static int alloc_slots(coll *c)
{
	const struct coll_opts *o = &c->o;

	c->slots = calloc(c->n, sizeof *c->slots);
	if (!c->slots)
		return LG_ENOMEM;
	c->nstate[SLOT_RESETTING] = c->n; /* calloc: every slot resetting */
	for (size_t i = 0; i < c->n; i++) {
		struct slot *s = &c->slots[i];
		size_t np = (size_t)c->spec.players;
		s->idx = i;
		s->pid = -1;
		s->fd = -1;
		s->next_op = OP_CREATE;
		s->deadline = lg_now_s() + o->reset_timeout_s;
		s->obs = calloc(np * c->spec.obs_len, sizeof *s->obs);
		s->mask = calloc(np * (size_t)c->spec.num_actions, 1);
		s->hstate = calloc(np * o->state_len + 1, sizeof *s->hstate);
		if (!s->obs || !s->mask || !s->hstate)
			return LG_ENOMEM;
		s->match = c->o.match;
		for (int p = 0; p < c->spec.players; p++)
			/* Per-episode matches may make any seat learn. */
			if ((o->next_episode ? o->sink != NULL
					     : coll_learning(c, s, p)) &&
			    coll_traj_alloc(&s->tr[p], o->segment_len,
					    c->spec.obs_len,
					    c->spec.num_actions,
					    o->state_len,
					    o->search.sims > 0))
				return LG_ENOMEM;
	}
	return 0;
}

/* The locks, the condition variables (on the monotonic clock) and the
 * slots' parks. */
static void init_sync(coll *c)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&c->mu, NULL);
	pthread_mutex_init(&c->sink_mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cv_work, &ca);
	pthread_cond_init(&c->cv_caller, &ca);
	pthread_condattr_destroy(&ca);
	for (size_t i = 0; i < c->n; i++)
		coll_park_init(&c->slots[i].park);
	c->threads_up = 1;
}

/* Serial mode: the caller's batch and a worker record per env that no
 * thread runs (each env keeps its env object or child there).
 * LG_ENOMEM. */
static int start_serial(coll *c)
{
	if (coll_batch_alloc(c, &c->serial_b))
		return LG_ENOMEM;
	/* the seed the caller's batches always had */
	lg_rng_seed2(&c->serial_b.rng, c->o.env.seed ^ 0x636f6c6cull, 0);
	for (size_t i = 0; i < c->n; i++) {
		c->slots[i].w = coll_worker_alloc(c, &c->slots[i]);
		if (!c->slots[i].w)
			return LG_ENOMEM;
	}
	return 0;
}

/* Sync and async modes: a worker thread per env. */
static int start_workers(coll *c, char *err, size_t errlen)
{
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&c->mu);
	for (i = 0; i < c->n && !rc; i++)
		rc = coll_worker_start(c, &c->slots[i]);
	pthread_mutex_unlock(&c->mu);
	if (rc)
		lg_errf(err, errlen, "collector: cannot start worker %zu",
			i - 1);
	return rc;
}

int coll_new(coll **out, const struct coll_opts *o, char *err,
	     size_t errlen)
{
	struct env_spec spec;
	coll *c = NULL;
	int rc;

	*out = NULL;
	rc = check_opts(o, err, errlen);
	if (rc)
		return rc;
	rc = probe_spec(o, &spec, err, errlen);
	if (rc)
		return rc;
	c = calloc(1, sizeof *c);
	if (!c)
		return LG_ENOMEM;
	c->sp.fd = -1;
	copy_opts(c, o);
	c->spec = spec;
	c->n = o->num_envs;
	c->watched = o->mode != COLL_SERIAL && !o->processes;
	c->rows_max = c->n * (size_t)c->spec.players;
	if ((rc = alloc_slots(c)) || (rc = alloc_groups(c)))
		goto fail;
	init_sync(c);
	/* Env children fork from a single-threaded spawner, made now while
	 * this collector has no threads: a fork from a threaded process may
	 * copy a lock that another thread holds (an allocator's, a game's)
	 * into a child that then waits on it forever. Other threads of the
	 * caller's (a client's heartbeat) run on; they allocate seldom, so
	 * the window left is this one fork, not one per env child. */
	if (o->processes && (rc = coll_spawner_start(c))) {
		lg_errf(err, errlen, "collector: cannot start the env "
			"spawner: %s", lg_strerror(rc));
		goto fail;
	}
	rc = o->mode == COLL_SERIAL ? start_serial(c)
				    : start_workers(c, err, errlen);
	if (rc)
		goto fail;
	*out = c;
	return 0;
fail:
	coll_free(c);
	return rc;
}

int coll_collect(coll *c, uint64_t min_steps, double max_s)
{
	double until = max_s > 0 ? lg_now_s() + max_s : 0;
	int rc;

	if (c->stopped)
		return LG_ECLOSED;
	if (c->o.mode == COLL_SERIAL) {
		c->goal += min_steps;
		return coll_serial_collect(c, c->goal, until);
	}
	pthread_mutex_lock(&c->mu);
	c->goal += min_steps;
	if (c->st.steps < c->goal) {
		c->collecting = 1;
		pthread_cond_broadcast(&c->cv_work);
		coll_kick_groups(c);
	}
	rc = 0;
	while (c->st.steps < c->goal && !c->fatal) {
		double next = coll_watchdog(c), now;
		if (c->nstate[SLOT_DEAD] == c->n) {
			rc = LG_EIO;
			break;
		}
		now = lg_now_s();
		if (until > 0 && now >= until) {
			rc = LG_ETIMEOUT;
			break;
		}
		if (until > 0 && (!next || until < next))
			next = until;
		if (next > 0)
			coll_cond_wait_until(&c->cv_caller, &c->mu, next);
		else
			pthread_cond_wait(&c->cv_caller, &c->mu);
	}
	if (!rc)
		rc = c->fatal;
	c->collecting = 0;
	pthread_mutex_unlock(&c->mu);
	return rc;
}

void coll_stats(coll *c, struct coll_stats *out)
{
	if (c->threads_up)
		pthread_mutex_lock(&c->mu);
	*out = c->st;
	out->dead_envs = c->nstate[SLOT_DEAD];
	if (c->threads_up)
		pthread_mutex_unlock(&c->mu);
}

void coll_stop(coll *c)
{
	if (c->stopped || !c->threads_up)
		return;
	pthread_mutex_lock(&c->mu);
	c->stop = 1;
	c->collecting = 0;
	pthread_cond_broadcast(&c->cv_work);
	pthread_mutex_unlock(&c->mu);
	for (size_t i = 0; i < c->n; i++)
		coll_park_wake(&c->slots[i].park);
	if (c->o.mode != COLL_SERIAL)
		coll_devices_stop(c);
	for (size_t i = 0; i < c->n; i++) {
		struct slot *s = &c->slots[i];
		if (c->o.mode != COLL_SERIAL && s->w && s->w->started)
			pthread_join(s->w->th, NULL);
	}
	while (c->zombies) {
		struct worker *z = c->zombies;
		c->zombies = z->next;
		pthread_join(z->th, NULL);
		coll_worker_free(z);
	}
	assert(coll_slot_counts_ok(c));
	for (size_t i = 0; i < c->n; i++) {
		struct slot *s = &c->slots[i];
		coll_child_kill(c, s);
		if (!c->fatal)
			for (int p = 0; p < c->spec.players; p++)
				if (coll_learning(c, s, p))
					coll_traj_flush(c, s, p);
		coll_result_flush(c, s);
	}
	c->stopped = 1;
}

void coll_free(coll *c)
{
	if (!c)
		return;
	coll_stop(c);
	coll_spawner_stop(c);
	for (size_t i = 0; c->slots && i < c->n; i++) {
		struct slot *s = &c->slots[i];
		coll_worker_free(s->w);
		free(s->obs);
		free(s->mask);
		free(s->hstate);
		for (int p = 0; p < ENV_MAX_PLAYERS; p++)
			coll_traj_free(&s->tr[p]);
	}
	coll_batch_free(&c->serial_b);
	coll_devices_free(c);
	for (size_t k = 0; k < COLL_NETS_MAX; k++) {
		free(c->groups[k].rows);
		free(c->groups[k].dev);
	}
	if (c->threads_up) {
		for (size_t i = 0; i < c->n; i++)
			coll_park_destroy(&c->slots[i].park);
		pthread_cond_destroy(&c->cv_work);
		pthread_cond_destroy(&c->cv_caller);
		pthread_mutex_destroy(&c->mu);
		pthread_mutex_destroy(&c->sink_mu);
	}
	free(c->slots);
	free(c);
}
