/*
 * collector/batch.c: batches per network, shared by every mode. A slot
 * whose seats must act posts one row per acting seat in the group of the
 * seat's network (coll_post_ready); a batch is taken from a group
 * (coll_batch_take), run as one forward (coll_batch_forward: gather the
 * rows' pending observations, the policy, actions checked) and given out
 * (coll_batch_scatter), which
 * moves every slot with all its rows answered to ACTED.
 *
 * Serial mode runs a batch per group per round from the caller's thread.
 * The threaded modes batch leader/follower: the worker that finds no
 * batch forming for one of its rows' networks leads one (waits for the
 * batch rule, runs the forward without mu, hands the actions out with one
 * broadcast and steps its own env): one wake-up per transition on the
 * critical path. The batch rule: sync mode waits until no env is
 * stepping; async until wait_num envs (or every env that could) are in,
 * or the first has waited wait_timeout_s. The watchdog (the caller's
 * thread, thread mode) replaces workers whose env call passed its
 * deadline.
 */
#include "collector/collector_internal.h"

#include <assert.h>
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

void coll_kick_groups(coll *c)
{
	for (size_t k = 0; k < c->o.num_policies; k++) {
		struct group *g = &c->groups[k];
		double d;
		if (g->leader && batch_due(c, g, &d))
			pthread_cond_signal(&g->cv);
	}
}

void coll_post_ready(coll *c, struct slot *s)
{
	int leaderless = 0;

	coll_slot_set_state(c, s, SLOT_READY);
	if (c->o.mode == COLL_ASYNC) /* its wait_timeout_s runs from here */
		s->ready_at = lg_now_s();
	s->pending = s->nacting;
	for (int k = 0; k < s->nacting; k++) {
		int p = s->acting[k];
		struct group *g = &c->groups[s->match.seat[p].net];
		g->rows[g->n++] = (struct rowref){ (uint32_t)s->idx, p };
		s->waiting[p] = 1;
	}
	/* This worker will lead one of its groups; when its rows sit in
	 * more than one group without a leader (simultaneous moves, one
	 * network per seat), parked workers must hear of the others. */
	for (int k = 0; k < s->nacting; k++) {
		struct group *g = &c->groups[s->match.seat[s->acting[k]].net];
		leaderless += !g->leader && g->n;
	}
	if (leaderless > 1)
		pthread_cond_broadcast(&c->cv_work);
	if (c->o.mode != COLL_SERIAL) /* serial mode has no leaders */
		coll_kick_groups(c);
}

size_t coll_batch_take(coll *c, struct group *g, struct worker *w)
{
	size_t n = g->n;

	memcpy(w->brows, g->rows, n * sizeof *g->rows);
	g->n = 0;
	return n;
}

int coll_batch_forward(coll *c, struct group *g, struct worker *w, size_t n)
{
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;
	int rc;

	for (size_t i = 0; i < n; i++) {
		struct slot *s = &c->slots[w->brows[i].slot];
		int p = w->brows[i].seat;
		memcpy(w->bobs + i * ol, s->pobs[p], ol * sizeof(float));
		memcpy(w->bmask + i * na, s->pmask[p], na);
	}
	rc = g->pol.act(g->pol.ctx, w->bobs, w->bmask, n, ol,
			c->spec.num_actions, &w->rng, w->bact, w->blogp,
			w->bval);
	if (rc)
		return rc;
	/* A policy's action out of range would index past the mask. */
	for (size_t i = 0; i < n; i++)
		if (w->bact[i] < 0 || w->bact[i] >= c->spec.num_actions)
			w->bact[i] = 0;
	return 0;
}

void coll_batch_scatter(coll *c, struct worker *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct slot *s = &c->slots[w->brows[i].slot];
		int p = w->brows[i].seat;
		s->act[p] = w->bact[i];
		s->logp[p] = w->blogp[i];
		s->value[p] = w->bval[i];
		s->waiting[p] = 0;
		if (--s->pending == 0) {
			coll_slot_set_state(c, s, SLOT_ACTED);
			/* Its worker may be waiting as some group's leader:
			 * wake it so it can step (see lead()). */
			if (s->w && s->w->leading >= 0)
				pthread_cond_broadcast(
					&c->groups[s->w->leading].cv);
		}
	}
	c->st.forwards++;
	c->st.rows += n;
}

/* Lead group gi: wait for the batch rule, run one forward, hand out the
 * actions. Called and returns with mu held. */
static void lead(coll *c, struct worker *w, size_t gi)
{
	struct group *g = &c->groups[gi];
	size_t n;
	int rc;

	g->leader = 1;
	w->leading = (int)gi;
	for (;;) {
		double d;
		if (c->stop || c->fatal || w->gen != w->s->gen) {
			g->leader = 0;
			w->leading = -1;
			return;
		}
		/* Our own slot was answered meanwhile: its rows were in the
		 * batch the previous leader of this group had in flight when
		 * we took the lead (or in another group's). Step it instead
		 * of waiting, or sync mode waits for this very slot forever.
		 * Another worker takes the lead. */
		if (w->s->state != SLOT_READY) {
			g->leader = 0;
			w->leading = -1;
			pthread_cond_broadcast(&c->cv_work);
			return;
		}
		if (!c->collecting) {
			pthread_cond_wait(&c->cv_work, &c->mu);
			continue;
		}
		if (g->pol.max_calls && g->calls >= g->pol.max_calls) {
			pthread_cond_wait(&g->cv, &c->mu);
			continue;
		}
		if (batch_due(c, g, &d))
			break;
		if (d > 0)
			coll_cond_wait_until(&g->cv, &c->mu, d);
		else
			pthread_cond_wait(&g->cv, &c->mu);
	}
	n = coll_batch_take(c, g, w);
	g->leader = 0;
	w->leading = -1;
	g->calls++;
	pthread_mutex_unlock(&c->mu);
	rc = coll_batch_forward(c, g, w, n);
	pthread_mutex_lock(&c->mu);
	g->calls--;
	if (g->pol.max_calls)
		pthread_cond_signal(&g->cv);
	if (rc) {
		if (!c->fatal)
			c->fatal = rc;
		/* The rows are lost, which is fine: fatal is sticky and the
		 * caller stops. */
		pthread_cond_broadcast(&c->cv_caller);
		return;
	}
	coll_batch_scatter(c, w, n);
	pthread_cond_broadcast(&c->cv_work);
}

int coll_await_actions(coll *c, struct worker *w)
{
	struct slot *s = w->s;

	while (s->state == SLOT_READY) {
		int led = 0;
		if (c->stop || c->fatal || w->gen != s->gen)
			return 1;
		/* Lead only a group holding one of our own unanswered rows:
		 * a worker leading some other group could see its own slot
		 * answered meanwhile, and sync mode would wait forever for
		 * that slot to step while its worker waits to lead. */
		if (c->collecting)
			for (int k = 0; k < s->nacting && !led; k++) {
				if (!s->waiting[s->acting[k]])
					continue;
				size_t gi = s->match.seat[s->acting[k]].net;
				struct group *g = &c->groups[gi];
				if (!g->leader && g->n) {
					lead(c, w, gi);
					led = 1;
				}
			}
		if (!led && s->state == SLOT_READY)
			pthread_cond_wait(&c->cv_work, &c->mu);
	}
	return c->stop || w->gen != s->gen;
}

double coll_watchdog(coll *c)
{
	double now = lg_now_s(), next = 0;

	if (c->o.processes)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		struct slot *s = &c->slots[i];
		enum slot_state was = s->state;
		if (was != SLOT_STEPPING && was != SLOT_RESETTING)
			continue;
		if (s->abnormal_pending || !s->w)
			continue;
		if (now < s->deadline) {
			if (!next || s->deadline < next)
				next = s->deadline;
			continue;
		}
		LG_WARN("collector: env %zu %s timed out; replacing it", i,
			was == SLOT_STEPPING ? "step" : "reset");
		c->st.timeouts++;
		s->w->next = c->zombies;
		c->zombies = s->w;
		s->w = NULL;
		s->gen++;
		if (was == SLOT_STEPPING) {
			/* the in-flight transition is complete (abnormally) */
			coll_count_steps(c, 1);
			s->ep_steps++;
			coll_slot_set_state(c, s, SLOT_RESETTING);
		}
		s->abnormal_pending = 1;
		s->cause = LG_ETIMEOUT;
		c->st.recreated++;
		s->deadline = now + c->o.reset_timeout_s;
		if (coll_worker_start(c, s))
			coll_slot_set_state(c, s, SLOT_DEAD);
		coll_kick_groups(c);
	}
	assert(coll_slot_counts_ok(c));
	return next;
}
