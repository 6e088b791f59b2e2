/*
 * collector/state.c: the bottom of the collector, what every other file
 * of it calls and which calls none of them: the slot state machine's
 * setter and its per-state counts, the step count and the fatal error,
 * the parks threads wake each other on, and the predicates of a slot's
 * seat (does it learn, does it search).
 *
 * The collector's files call downward only (docs/architecture.md,
 * tests/layers.py): collector.c -> slot.c -> {batch.c, search.c, traj.c,
 * host.c} -> state.c.
 */
#include "collector/collector_internal.h"

#include <assert.h>
#include <math.h>
#include <time.h>

#define B(st) (1u << (st))

static const char *const state_names[SLOT_NSTATES] = {
	[SLOT_RESETTING] = "resetting", [SLOT_READY] = "ready",
	[SLOT_ACTED] = "acted",		[SLOT_STEPPING] = "stepping",
	[SLOT_BOOKING] = "booking",	[SLOT_DEAD] = "dead",
	[SLOT_EXITED] = "exited",
};

/* The machine: the states each state may move to. */
static const unsigned next_states[SLOT_NSTATES] = {
	[SLOT_RESETTING] = B(SLOT_READY) | B(SLOT_DEAD) | B(SLOT_EXITED),
	[SLOT_READY] = B(SLOT_ACTED),
	[SLOT_ACTED] = B(SLOT_STEPPING),
	[SLOT_STEPPING] = B(SLOT_BOOKING) | B(SLOT_RESETTING),
	[SLOT_BOOKING] = B(SLOT_READY) | B(SLOT_RESETTING) | B(SLOT_DEAD) |
			 B(SLOT_EXITED),
};

const char *coll_slot_state_name(enum slot_state st)
{
	return st < SLOT_NSTATES ? state_names[st] : "?";
}

/* For the assertion: says which transition was wrong. */
static int transition_ok(const coll *c, const struct slot *s,
			 enum slot_state to)
{
	if (to < SLOT_NSTATES && (next_states[s->state] & B(to)) &&
	    c->nstate[s->state] > 0)
		return 1;
	LG_ERROR("collector: env %zu: %s -> %s is not a slot transition",
		 s->idx, coll_slot_state_name(s->state),
		 coll_slot_state_name(to));
	return 0;
}

void coll_slot_set_state(coll *c, struct slot *s, enum slot_state to)
{
	assert(transition_ok(c, s, to));
	c->nstate[s->state]--;
	c->nstate[to]++;
	s->state = to;
	switch (to) {
	case SLOT_RESETTING:
		if (c->watched)
			s->deadline = lg_now_s() + c->o.reset_timeout_s;
		break;
	case SLOT_STEPPING:
		if (c->watched)
			s->deadline = lg_now_s() + c->o.step_timeout_s;
		break;
	case SLOT_DEAD:
		c->st.dead_envs = c->nstate[SLOT_DEAD];
		/* The caller stops when every env is dead. Batches need
		 * not wait for it either: whoever sets DEAD (book_reset,
		 * the watchdog) kicks the groups next, in the same hold
		 * of mu (batch.c is above this file). */
		pthread_cond_broadcast(&c->cv_caller);
		break;
	default:
		break;
	}
}

int coll_slot_counts_ok(const coll *c)
{
	size_t n[SLOT_NSTATES] = { 0 };

	for (size_t i = 0; i < c->n; i++)
		n[c->slots[i].state]++;
	for (int k = 0; k < SLOT_NSTATES; k++)
		if (n[k] != c->nstate[k]) {
			LG_ERROR("collector: %zu slots %s, counted %zu",
				 n[k], state_names[k], c->nstate[k]);
			return 0;
		}
	return 1;
}

void coll_count_steps(coll *c, uint64_t n)
{
	c->st.steps += n;
	if (c->collecting && c->st.steps >= c->goal) {
		c->collecting = 0;
		pthread_cond_broadcast(&c->cv_caller);
	}
}

void coll_set_fatal(coll *c, int rc)
{
	pthread_mutex_lock(&c->mu);
	if (!c->fatal)
		c->fatal = rc;
	pthread_cond_broadcast(&c->cv_caller);
	pthread_mutex_unlock(&c->mu);
}

void coll_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu,
			  double t_mono)
{
	/* Condition variables use CLOCK_MONOTONIC (set in coll_new). */
	double s = floor(t_mono);
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((t_mono - s) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	pthread_cond_timedwait(cv, mu, &ts);
}

void coll_park_init(struct park *p)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	p->set = p->waiting = 0;
}

void coll_park_destroy(struct park *p)
{
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
}

void coll_park_wait(struct park *p, double t_mono)
{
	pthread_mutex_lock(&p->mu);
	p->waiting = 1;
	while (!p->set) {
		if (t_mono <= 0) {
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		if (lg_now_s() >= t_mono)
			break;
		coll_cond_wait_until(&p->cv, &p->mu, t_mono);
	}
	p->set = 0;
	p->waiting = 0;
	pthread_mutex_unlock(&p->mu);
}

/* The signal goes out after the unlock, so the woken thread does not
 * find p->mu held (the waiter re-checks p->set under it). */
void coll_park_wake(struct park *p)
{
	int waiting;

	pthread_mutex_lock(&p->mu);
	p->set = 1;
	waiting = p->waiting;
	pthread_mutex_unlock(&p->mu);
	if (waiting)
		pthread_cond_signal(&p->cv);
}

/* ---- a seat's role ------------------------------------------------------ */

/* Baseline seats never learn: they have no logp or value to train on,
 * whatever their learning flag says. */
int coll_learning(const coll *c, const struct slot *s, int seat)
{
	return c->o.sink && seat < c->spec.players &&
	       s->match.seat[seat].learning && !s->match.seat[seat].baseline;
}

int coll_searches(const coll *c, const struct slot *s, int seat)
{
	return c->o.search.sims && coll_learning(c, s, seat);
}
