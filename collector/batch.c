/*
 * collector/batch.c: batches per network, shared by every mode. A slot
 * whose seats must act posts one row per acting seat in the group of the
 * seat's network (coll_post_ready); a batch is taken from a group
 * (coll_batch_take), run as one forward (coll_batch_forward: gather the
 * rows' pending observations, the policy, actions checked) and given out
 * (coll_batch_scatter), which moves every slot with all its rows answered
 * to ACTED.
 *
 * Serial mode runs a batch per group per round from the caller's thread.
 * The threaded modes give each network inference devices: a device is a
 * thread that takes the group's batch when it is due, runs the forward,
 * hands the actions out and wakes exactly the workers it answered, each
 * on its own park, after releasing mu; then it looks again, so while rows
 * are due one forward follows the other with nobody to wake. A group
 * has up to pol.max_calls devices (no limit: one per env), started when
 * a batch is due and every device is in a forward. A worker waiting for
 * its actions wakes an idle device when its posting made a batch due;
 * the worker of a batch's first row keeps the time of async's
 * wait_timeout while no device is awake (or, for a wait shorter than
 * the timer slack, wakes one at once). One wake-up per transition on the
 * critical path, none per batch while the devices are busy.
 *
 * The batch rule: sync mode waits until no env is stepping; async until
 * wait_num envs (or every env that could) are in, or no env is stepping,
 * or the first has waited wait_timeout_s. The worker's wait itself
 * (coll_await_actions) is in slot.c, with the drivers.
 */
#include "collector/collector_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Is group g's batch due? If not, *deadline is when it will be by
 * timeout (0: only an event can make it due). Caller holds mu. */
static int batch_due(const coll *c, const struct group *g, double *deadline)
{
	double t;

	*deadline = 0;
	if (!g->n)
		return 0;
	if (c->o.mode == COLL_SYNC)
		return coll_busy(c) == 0;
	if (g->n >= LG_MIN(c->o.wait_num, coll_could_post(c)) ||
	    coll_busy(c) == 0)
		return 1;
	t = c->slots[g->rows[0].slot].ready_at + c->o.wait_timeout_s;
	if (lg_now_s() >= t)
		return 1;
	*deadline = t;
	return 0;
}

/* ---- scratch ------------------------------------------------------------ */

void coll_batch_free(struct batch *b)
{
	free(b->rows);
	free(b->obs);
	free(b->state);
	free(b->mask);
	free(b->act);
	free(b->logp);
	free(b->val);
	free(b->acted);
	memset(b, 0, sizeof *b);
}

int coll_batch_alloc(coll *c, struct batch *b)
{
	size_t r = c->rows_max;

	memset(b, 0, sizeof *b);
	b->rows = malloc(r * sizeof *b->rows);
	b->obs = malloc(r * c->spec.obs_len * sizeof *b->obs);
	b->state = malloc((r * c->o.state_len + 1) * sizeof *b->state);
	b->mask = malloc(r * (size_t)c->spec.num_actions);
	b->act = malloc(r * sizeof *b->act);
	b->logp = malloc(r * sizeof *b->logp);
	b->val = malloc(r * sizeof *b->val);
	b->acted = malloc(c->n * sizeof *b->acted);
	if (!b->rows || !b->obs || !b->state || !b->mask || !b->act ||
	    !b->logp || !b->val || !b->acted) {
		coll_batch_free(b);
		return LG_ENOMEM;
	}
	return 0;
}

/* ---- one batch ---------------------------------------------------------- */

void coll_post_ready(coll *c, struct slot *s)
{
	coll_slot_set_state(c, s, SLOT_READY);
	if (c->o.mode == COLL_ASYNC) /* its wait_timeout_s runs from here */
		s->ready_at = lg_now_s();
	s->pending = s->nacting;
	for (int k = 0; k < s->nacting; k++) {
		int p = s->acting[k];
		struct group *g = &c->groups[s->match.seat[p].net];
		if (s->searched[p]) { /* answered by its worker's search */
			s->pending--;
			continue;
		}
		g->rows[g->n++] = (struct rowref){ (uint32_t)s->idx, p };
		s->waiting[p] = 1;
	}
	if (!s->pending)
		coll_slot_set_state(c, s, SLOT_ACTED);
}

size_t coll_batch_take(coll *c, struct group *g, struct batch *b)
{
	size_t n = g->n;

	memcpy(b->rows, g->rows, n * sizeof *g->rows);
	g->n = 0;
	return n;
}

/* Each row's recurrent state before its step into the batch, and into
 * the seat's pending trajectory row if it learns (the slot waits for its
 * actions meanwhile: the device reads and writes its rows). */
static void gather_state(coll *c, struct batch *b, size_t n)
{
	size_t sl = c->o.state_len;

	for (size_t i = 0; i < n; i++) {
		struct slot *s = &c->slots[b->rows[i].slot];
		int p = b->rows[i].seat;
		const float *src = s->hstate + (size_t)p * sl;
		memcpy(b->state + i * sl, src, sl * sizeof(float));
		if (coll_learning(c, s, p)) {
			struct lg_rows *r = &s->tr[p].rows;
			memcpy(r->state + r->n * sl, src, sl * sizeof(float));
		}
	}
}

static int any_legal(const uint8_t *mask, size_t na)
{
	for (size_t a = 0; a < na; a++)
		if (mask[a])
			return 1;
	return 0;
}

int coll_batch_forward(coll *c, struct group *g, struct batch *b, size_t n)
{
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;
	int rc;

	for (size_t i = 0; i < n; i++) {
		struct slot *s = &c->slots[b->rows[i].slot];
		int p = b->rows[i].seat;
		memcpy(b->obs + i * ol, s->pobs[p], ol * sizeof(float));
		memcpy(b->mask + i * na, s->pmask[p], na);
		if (!any_legal(s->pmask[p], na)) {
			/* the game's fault, not the policy's: say so */
			LG_ERROR("collector: env %zu: the game '%s' gave player "
				 "%d no legal action (an empty mask from its "
				 "legal()) at step %llu of episode %llu",
				 s->idx, c->game, p,
				 (unsigned long long)s->ep_steps,
				 (unsigned long long)s->episode);
			return LG_EINVAL;
		}
	}
	if (c->o.state_len)
		gather_state(c, b, n);
	rc = g->pol.act(g->pol.ctx, b->obs, b->mask, n, ol,
			c->spec.num_actions, &b->rng, b->act, b->logp,
			b->val, c->o.state_len ? b->state : NULL);
	if (rc)
		return rc;
	/* A policy's action out of range would index past the mask. */
	for (size_t i = 0; i < n; i++)
		if (b->act[i] < 0 || b->act[i] >= c->spec.num_actions)
			b->act[i] = 0;
	return 0;
}

size_t coll_batch_scatter(coll *c, struct batch *b, size_t n)
{
	size_t acted = 0;

	for (size_t i = 0; i < n; i++) {
		struct slot *s = &c->slots[b->rows[i].slot];
		int p = b->rows[i].seat;
		s->act[p] = b->act[i];
		s->logp[p] = b->logp[i];
		s->value[p] = b->val[i];
		s->waiting[p] = 0;
		if (c->o.state_len)
			memcpy(s->hstate + (size_t)p * c->o.state_len,
			       b->state + i * c->o.state_len,
			       c->o.state_len * sizeof(float));
		if (--s->pending == 0) {
			coll_slot_set_state(c, s, SLOT_ACTED);
			b->acted[acted++] = (uint32_t)s->idx;
		}
	}
	c->st.forwards++;
	c->st.rows += n;
	return acted;
}

/* ---- devices (threaded modes) ------------------------------------------- */

static void *device_main(void *arg);

static void device_free(struct device *d)
{
	if (!d)
		return;
	coll_batch_free(&d->b);
	coll_park_destroy(&d->park);
	free(d);
}

/* Start one more device for g (below devmax). Caller holds mu. 0, or
 * LG_ENOMEM / LG_EIO. */
static int device_start(coll *c, struct group *g)
{
	struct device *d = calloc(1, sizeof *d);

	if (!d)
		return LG_ENOMEM;
	if (coll_batch_alloc(c, &d->b)) {
		free(d);
		return LG_ENOMEM;
	}
	d->c = c;
	d->g = g;
	coll_park_init(&d->park);
	lg_rng_seed2(&d->b.rng, c->o.env.seed ^ 0x646576696365ull,
		     (uint64_t)(g - c->groups) * COLL_ENVS_MAX + g->ndev);
	if (pthread_create(&d->th, NULL, device_main, d)) {
		device_free(d);
		return LG_EIO;
	}
	g->dev[g->ndev++] = d;
	return 0;
}

/* See that a device will look at group g's rows. Nobody needs waking
 * when a device is awake (it looks under mu before it parks) or every
 * device is in a forward (the first back looks); else an idle device is
 * marked awake and returned for the caller to wake (after releasing mu
 * on the hot path), or a new one starts. Only for a batch that is due,
 * unless `timer`: then also for one that will be by timeout, which the
 * device waits out (*deadline says when otherwise, for a waiting worker
 * to keep). Caller holds mu. */
struct device *coll_group_kick(coll *c, struct group *g, int timer,
				double *deadline)
{
	double dl;
	int rc;

	*deadline = 0;
	if (!g->n || !c->collecting || c->stop || c->fatal)
		return NULL;
	if (g->ndev > g->nidle + g->calls) /* one is awake */
		return NULL;
	if (!batch_due(c, g, &dl) && !(timer && dl > 0)) {
		*deadline = dl;
		return NULL;
	}
	if (g->nidle) {
		for (size_t k = 0; k < g->ndev; k++) {
			struct device *d = g->dev[k];
			if (d->idle) {
				d->idle = 0;
				g->nidle--;
				return d;
			}
		}
	}
	if (g->ndev == g->devmax) /* all in forwards */
		return NULL;
	if ((rc = device_start(c, g))) {
		/* Make do with the devices there are, if any: else nobody
		 * could ever run this network's batches. */
		g->devmax = g->ndev;
		if (!g->ndev && !c->fatal) {
			c->fatal = rc;
			pthread_cond_broadcast(&c->cv_caller);
		}
	}
	return NULL;
}

void coll_kick_groups(coll *c)
{
	for (size_t k = 0; k < c->o.num_policies; k++) {
		double dl;
		struct device *d = coll_group_kick(c, &c->groups[k], 1, &dl);
		if (d)
			coll_park_wake(&d->park);
	}
}

/* Run one due batch of d's group: take it, forward without mu, scatter,
 * wake the workers answered (without mu). Called and returns with mu
 * held. */
static void device_run(coll *c, struct device *d)
{
	struct group *g = d->g;
	size_t n = coll_batch_take(c, g, &d->b), acted;
	int rc;

	g->calls++;
	pthread_mutex_unlock(&c->mu);
	rc = coll_batch_forward(c, g, &d->b, n);
	pthread_mutex_lock(&c->mu);
	g->calls--;
	if (rc) {
		if (!c->fatal)
			c->fatal = rc;
		/* The rows are lost, which is fine: fatal is sticky and the
		 * caller stops. */
		pthread_cond_broadcast(&c->cv_caller);
		return;
	}
	acted = coll_batch_scatter(c, &d->b, n);
	pthread_mutex_unlock(&c->mu);
	for (size_t i = 0; i < acted; i++)
		coll_park_wake(&c->slots[d->b.acted[i]].park);
	pthread_mutex_lock(&c->mu);
}

/* A device: run the group's batches while they are due; park when none
 * is (until the batch's timeout, if it has rows); exit at stop. */
static void *device_main(void *arg)
{
	struct device *d = arg;
	coll *c = d->c;
	struct group *g = d->g;

	pthread_mutex_lock(&c->mu);
	while (!c->stop) {
		double dl = 0;
		if (!c->fatal && c->collecting && batch_due(c, g, &dl)) {
			device_run(c, d);
			continue;
		}
		d->idle = 1;
		g->nidle++;
		pthread_mutex_unlock(&c->mu);
		coll_park_wait(&d->park, dl); /* dl: rows not yet due */
		pthread_mutex_lock(&c->mu);
		if (d->idle) { /* the timeout, not a kick */
			d->idle = 0;
			g->nidle--;
		}
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

void coll_devices_stop(coll *c)
{
	for (size_t k = 0; k < c->o.num_policies; k++) {
		struct group *g = &c->groups[k];
		pthread_mutex_lock(&c->mu);
		size_t n = g->ndev; /* none starts after stop */
		pthread_mutex_unlock(&c->mu);
		for (size_t i = 0; i < n; i++)
			coll_park_wake(&g->dev[i]->park);
		for (size_t i = 0; i < n; i++)
			pthread_join(g->dev[i]->th, NULL);
	}
}

void coll_devices_free(coll *c)
{
	for (size_t k = 0; k < COLL_NETS_MAX; k++) {
		struct group *g = &c->groups[k];
		for (size_t i = 0; i < g->ndev; i++)
			device_free(g->dev[i]);
		g->ndev = 0;
	}
}
