/*
 * collector/slot.c: the two drivers that move slots through the state
 * machine, and the watchdog. Each env is a slot; its states and
 * transitions are in collector_internal.h, and coll_slot_set_state
 * (state.c) is the only place a state changes (it keeps the per-state
 * counts the batching rules read).
 *
 * Drivers:
 *   - threads (sync, async): one worker thread per slot loops prepare
 *     (wait for a match and reset, or wait for actions and step), run the
 *     op on the host, book it (after_op), post the next rows;
 *   - serial: the caller's thread resets what needs it, runs one batch
 *     per network over every posted row (the same batch.c calls the
 *     threads' inference devices make) and steps every env in turn.
 * Booking (steps, rewards, episode ends, retries) is the same code for
 * both. A worker waiting for its actions wakes the devices whose batch
 * is due (coll_await_actions, through batch.c's coll_group_kick). The
 * watchdog (the caller's thread in coll_collect, thread mode) replaces
 * workers whose env call passed its deadline.
 */
#include "collector/collector_internal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* Seed of episode k of env i: a pure function, so runs are replayable. */
static uint64_t episode_seed(const coll *c, size_t i, uint64_t k)
{
	return lg_mix64(lg_mix64(c->o.env.seed ^ lg_mix64(i + 1)) + k);
}

/* Every seat a baseline: whole episodes run inside one reset. */
static int all_baseline(const coll *c, const struct coll_match *m)
{
	for (int p = 0; p < c->spec.players; p++)
		if (!m->seat[p].baseline)
			return 0;
	return 1;
}

/* Set acting seats from the reply; 0 seats means the episode is over.
 * Auto-play left a network to move, so a sequential mover is never a
 * baseline seat; simultaneous baseline seats are chosen in the host. */
static void set_acting(coll *c, struct slot *s, const struct reply *r)
{
	s->nacting = 0;
	if (r->player >= 0 && r->player < c->spec.players)
		s->acting[s->nacting++] = r->player;
	else if (r->player == ENV_SIMULTANEOUS)
		for (int p = 0; p < c->spec.players; p++)
			if (!s->match.seat[p].baseline)
				s->acting[s->nacting++] = p;
}

/* *m: a cmd for the slot's current episode: its baselines ride along,
 * and for a step the acting seats' actions. (Filled in place: a struct
 * built bytewise and returned by value cost a store-forwarding stall
 * per step, a tenth of serial mode's time on Kuhn.) */
static void cmd_for(const coll *c, const struct slot *s, int op,
		    struct cmd *m)
{
	memset(m, 0, sizeof *m);
	m->op = (uint32_t)op;
	m->episode = s->episode;
	m->step = s->ep_steps;
	for (int p = 0; p < c->spec.players; p++)
		m->base[p] = (uint8_t)s->match.seat[p].baseline;
	if (op == OP_STEP)
		for (int k = 0; k < s->nacting; k++)
			m->actions[s->acting[k]] = s->act[s->acting[k]];
}

/* The env steps a step op that returned rc took: a failed op's reply
 * is not to be trusted, so it counts once. */
static uint64_t step_count(int rc, const struct reply *r)
{
	return 1 + (rc ? 0 : r->moves);
}

/* Book an op that returned rc (the slot is BOOKING after a step, whose
 * steps the caller counted already with coll_count_steps, RESETTING
 * after a create or reset) and decide the next op; 0: the env is given
 * up. Called without mu; the slot's worker owns the slot's episode
 * fields. */
static int after_op(coll *c, struct slot *s, int op, int rc,
		    const struct reply *r)
{
	if (op == OP_STEP) {
		s->ep_steps += step_count(rc, r);
		if (rc) {
			coll_episode_end(c, s, 1, rc);
			goto recreate;
		}
		coll_traj_rewards(c, s, r);
		if (r->player == ENV_TERMINAL) {
			coll_episode_end(c, s, 0, 0);
			s->retries = 0;
			return OP_RESET;
		}
		return OP_STEP;
	}
	/* OP_CREATE / OP_RESET */
	if (!rc) {
		pthread_mutex_lock(&c->mu);
		c->st.resets++;
		coll_count_steps(c, r->moves);
		pthread_mutex_unlock(&c->mu);
		/* Baselines may have moved already (or played it out). */
		memcpy(s->ret, r->returns, sizeof s->ret);
		s->ep_steps = r->moves;
		if (r->player == ENV_TERMINAL) { /* empty or all-baseline */
			coll_episode_end(c, s, 0, 0);
			return OP_RESET;
		}
		return OP_STEP;
	}
	coll_episode_end(c, s, 1, rc);
recreate:
	pthread_mutex_lock(&c->mu);
	c->st.recreated++;
	if (rc == LG_ETIMEOUT)
		c->st.timeouts++;
	pthread_mutex_unlock(&c->mu);
	if (++s->retries > c->o.max_retries)
		return 0;
	return OP_CREATE;
}

/* A booked slot whose next op is no step: dead (op 0) or resetting.
 * Caller holds mu. */
static void book_reset(coll *c, struct slot *s, int op)
{
	if (!op) {
		LG_WARN("collector: env %zu given up after %u retries", s->idx,
			c->o.max_retries);
		coll_slot_set_state(c, s, SLOT_DEAD);
	} else if (s->state == SLOT_BOOKING) {
		coll_slot_set_state(c, s, SLOT_RESETTING);
	}
	/* Fewer envs stepping (or alive): a batch may be due now. */
	coll_kick_groups(c);
}

/* A booked slot whose next op is a step (r: the reply, its observations
 * and masks in w's reply buffers): its acting seats, room in their
 * trajectories (the sink may run), the observations into their pending
 * rows, READY. 1 when the worker must exit instead (stop, or it was
 * abandoned meanwhile); 0, with mu still held if `keep` (the worker
 * waits for the actions next: one lock round trip less per step). */
static int post_step(coll *c, struct worker *w, const struct reply *r,
		     int keep)
{
	struct slot *s = w->s;

	set_acting(c, s, r);
	coll_traj_make_room(c, s);
	if (w->sr) {
		int rc = coll_search_acting(c, w);
		if (rc) {
			LG_ERROR("collector: env %zu: search: %s", s->idx,
				 lg_strerror(rc));
			coll_set_fatal(c, rc);
			return 1;
		}
	}
	coll_lock(c);
	if (w->gen != s->gen) {
		coll_unlock(c);
		return 1;
	}
	coll_search_answer(c, w);
	coll_traj_pending(c, s, coll_search_shares(w), w->robs, w->rmask);
	if (c->stop) {
		coll_slot_set_state(c, s, SLOT_EXITED);
		coll_unlock(c);
		return 1;
	}
	coll_post_ready(c, s);
	if (!keep)
		coll_unlock(c);
	return 0;
}

/* Ask next_episode for the slot's next match. 1: got one; 0: nothing to
 * play now; LG_EINVAL (made fatal): a net or baseline out of range (a
 * baseline seat's net is not used, so not checked). */
static int choose_match(coll *c, struct slot *s)
{
	struct coll_match m;
	uint64_t tag = 0;
	int got;

	if (!c->o.next_episode) {
		coll_result_flush(c, s);
		return 1;
	}
	m = c->o.match;
	/* Not under sink_mu: a sink blocked on a learner's credit must not
	 * hold up every env's next episode (nor look like a hung reset). */
	got = c->o.next_episode(c->o.episode_ctx, s->idx, &m, &tag);
	if (!got) {
		/* Idle: nothing buffered may wait for an episode that
		 * may never come. */
		coll_flush_guarded(c, s, NULL, 0);
		return 0;
	}
	for (int p = 0; p < c->spec.players; p++) {
		if (m.seat[p].baseline > c->o.num_baselines) {
			LG_ERROR("collector: next_episode: seat %d on "
				 "baseline %u of %zu", p, m.seat[p].baseline,
				 c->o.num_baselines);
			coll_set_fatal(c, LG_EINVAL);
			return LG_EINVAL;
		}
		if (!m.seat[p].baseline && m.seat[p].net >= c->o.num_policies) {
			LG_ERROR("collector: next_episode: seat %d on net %u "
				 "of %zu", p, m.seat[p].net,
				 c->o.num_policies);
			coll_set_fatal(c, LG_EINVAL);
			return LG_EINVAL;
		}
	}
	coll_flush_guarded(c, s, &m, tag);
	s->match = m;
	s->tag = tag;
	return 1;
}

/* ---- threads: one worker per slot --------------------------------------- */

void coll_worker_free(struct worker *w)
{
	if (!w)
		return;
	coll_host_clear(&w->h);
	coll_search_free(w->c, w);
	free(w->robs);
	free(w->rmask);
	free(w);
}

struct worker *coll_worker_alloc(coll *c, struct slot *s)
{
	struct worker *w = calloc(1, sizeof *w);

	if (!w)
		return NULL;
	w->c = c;
	w->s = s;
	w->gen = s->gen;
	/* zeroed: a seat of fewer observations or actions than the
	 * largest (an asymmetric game) writes only its own, and the rest
	 * must read as zero padding and illegal actions */
	w->robs = calloc((size_t)c->spec.players * c->spec.obs_len,
			 sizeof *w->robs);
	w->rmask = calloc((size_t)c->spec.players,
			  (size_t)c->spec.num_actions);
	if (!w->robs || !w->rmask || coll_search_alloc(c, w)) {
		coll_worker_free(w);
		return NULL;
	}
	return w;
}

/* Must the worker leave (stop, a fatal error, abandoned)? Caller holds
 * mu. */
static int must_exit(const coll *c, const struct worker *w)
{
	return c->stop || c->fatal || w->gen != w->s->gen;
}

/* Wait until next_episode gives the slot a match. 0, or 1 when the
 * worker must exit instead. */
static int await_match(coll *c, struct worker *w)
{
	struct slot *s = w->s;
	int got;

	while ((got = choose_match(c, s)) == 0) {
		pthread_mutex_lock(&c->mu);
		int quit = must_exit(c, w);
		/* Idle is not hung: keep the watchdog away. */
		s->deadline = lg_now_s() + c->o.reset_timeout_s;
		pthread_mutex_unlock(&c->mu);
		if (quit)
			return 1;
		lg_sleep_s(0.002);
	}
	return got < 0;
}

/* An all-baseline match plays whole episodes inside its resets, which
 * nothing else holds back: wait for a coll_collect, or such an env would
 * run without bound between calls. Caller holds mu. 1: must exit. */
static int await_collecting(coll *c, struct worker *w)
{
	while (!c->collecting) {
		if (must_exit(c, w))
			return 1;
		/* Parked, not hung: keep the watchdog away. */
		w->s->deadline = HUGE_VAL;
		pthread_cond_wait(&c->cv_work, &c->mu);
	}
	return must_exit(c, w);
}

/* Linux's default timer slack: a timed wait may sleep up to this much
 * past its deadline, so a shorter one saves nothing over a wake-up. */
#define COLL_TIMER_SLACK_S 50e-6

int coll_await_actions(coll *c, struct worker *w)
{
	struct slot *s = w->s;

	while (s->state == SLOT_READY) {
		struct device *wake[COLL_NETS_MAX];
		size_t nw = 0;
		double until = 0;
		if (c->stop || c->fatal || w->gen != s->gen)
			return 1;
		/* Every group: a posting can make another network's batch
		 * due (sync mode: the last env stepping). The timeout runs
		 * from a batch's first row, and its worker keeps it (the
		 * others parking at the same deadline would all wake). */
		for (size_t k = 0; k < c->o.num_policies; k++) {
			struct group *g = &c->groups[k];
			double dl;
			struct device *d = coll_group_kick(c, g, 0, &dl);
			if (dl > 0 && g->rows[0].slot == s->idx &&
			    dl - lg_now_s() < COLL_TIMER_SLACK_S)
				/* A park that short may sleep the slack:
				 * the device, woken now, finds the batch due
				 * or waits the rest out itself. */
				d = coll_group_kick(c, g, 1, &dl);
			if (d)
				wake[nw++] = d;
			if (dl > 0 && g->rows[0].slot == s->idx &&
			    (!until || dl < until))
				until = dl;
		}
		pthread_mutex_unlock(&c->mu);
		for (size_t i = 0; i < nw; i++)
			coll_park_wake(&wake[i]->park);
		coll_park_wait(&s->park, until);
		pthread_mutex_lock(&c->mu);
	}
	return c->stop || w->gen != s->gen;
}

/* The next op is a step: wait for the actions (waking a device if need
 * be), complete the learning seats' pending rows, STEPPING, all in one
 * hold of mu (taken here unless `held`). 0, or 1: exit. */
static int prepare_step(coll *c, struct worker *w, struct cmd *m, int held)
{
	struct slot *s = w->s;

	if (!held)
		pthread_mutex_lock(&c->mu);
	if (coll_await_actions(c, w)) {
		pthread_mutex_unlock(&c->mu);
		return 1;
	}
	cmd_for(c, s, OP_STEP, m);
	/* The rows are the slot's worker's; three stores each, so under
	 * mu rather than another round trip. */
	for (int k = 0; k < s->nacting; k++)
		if (coll_learning(c, s, s->acting[k]))
			coll_traj_append(c, s, s->acting[k]);
	coll_slot_set_state(c, s, SLOT_STEPPING);
	pthread_mutex_unlock(&c->mu);
	return 0;
}

/* The next op creates or resets the env: wait for a match (and for an
 * all-baseline one, for coll_collect). 0, or 1: exit. */
static int prepare_reset(coll *c, struct worker *w, int op, struct cmd *m)
{
	struct slot *s = w->s;
	int quit;

	pthread_mutex_lock(&c->mu);
	quit = c->stop;
	pthread_mutex_unlock(&c->mu);
	if (quit || await_match(c, w))
		return 1;
	pthread_mutex_lock(&c->mu);
	if (c->stop || w->gen != s->gen ||
	    (all_baseline(c, &s->match) && await_collecting(c, w))) {
		pthread_mutex_unlock(&c->mu);
		return 1;
	}
	s->deadline = lg_now_s() + c->o.reset_timeout_s;
	pthread_mutex_unlock(&c->mu);
	cmd_for(c, s, op, m); /* the match just chosen */
	m->seed = episode_seed(c, s->idx, s->episode);
	return 0;
}

/* Before the k-th recreation in a row: retry_backoff_s (0.25 s by
 * default), doubling, at most 16 times that, so that a game server that
 * is restarting (or a resource that is back in a moment) gets the time
 * to return before the env is given up. Ends early at stop. */
static double retry_wait(const coll *c, uint32_t k)
{
	return c->o.retry_backoff_s * (double)(1u << LG_MIN(k - 1, 4u));
}

static void retry_backoff(coll *c, uint32_t k)
{
	double until = lg_now_s() + retry_wait(c, k);

	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED) &&
	       lg_now_s() < until)
		lg_sleep_s(0.01);
}

/* A slot's worker: the thread-mode driver of the state machine. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	coll *c = w->c;
	struct slot *s = w->s;
	int op = OP_CREATE, posted = 0;

	if (s->abnormal_pending) {
		coll_episode_end(c, s, 1, s->cause);
		pthread_mutex_lock(&c->mu);
		s->abnormal_pending = 0;
		pthread_mutex_unlock(&c->mu);
		if (++s->retries > c->o.max_retries)
			goto dead;
	}
	for (;;) {
		struct cmd m;
		struct reply r = { 0 };
		int rc;

		if (op == OP_STEP ? prepare_step(c, w, &m, posted)
				  : prepare_reset(c, w, op, &m))
			return NULL;
		if (op == OP_CREATE && s->retries)
			retry_backoff(c, s->retries);
		rc = coll_run_op(c, w, &m, &r, w->robs, w->rmask);
		pthread_mutex_lock(&c->mu);
		if (w->gen != s->gen) { /* abandoned by the watchdog */
			pthread_mutex_unlock(&c->mu);
			return NULL;
		}
		if (s->state == SLOT_STEPPING) {
			coll_slot_set_state(c, s, SLOT_BOOKING);
			coll_count_steps(c, step_count(rc, &r));
		}
		pthread_mutex_unlock(&c->mu);
		op = after_op(c, s, op, rc, &r);
		if (op == OP_STEP) {
			if (post_step(c, w, &r, 1))
				return NULL;
			posted = 1; /* mu held */
			continue;
		}
		posted = 0;
		pthread_mutex_lock(&c->mu);
		book_reset(c, s, op);
		pthread_mutex_unlock(&c->mu);
		if (!op)
			return NULL;
	}
dead:
	pthread_mutex_lock(&c->mu);
	if (w->gen == s->gen && s->state != SLOT_DEAD)
		book_reset(c, s, 0);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

int coll_worker_start(coll *c, struct slot *s)
{
	struct worker *w = coll_worker_alloc(c, s);

	if (!w)
		return LG_ENOMEM;
	s->w = w;
	if (pthread_create(&w->th, NULL, worker_main, w)) {
		s->w = NULL;
		coll_worker_free(w);
		return LG_EIO;
	}
	w->started = 1;
	return 0;
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

/* ---- serial mode: everything in the caller's thread --------------------- */

/* No mu below: serial mode has no other thread to lock against
 * (coll_lock). */

/* Run op m on slot s in the caller's thread, book it and move the slot
 * on; returns the next op (0: the env is dead). */
/* Book op m's outcome (rc, r) on slot s, which is STEPPING for a step,
 * and move the slot on; returns the next op (0: the env is dead). */
static int serial_book(coll *c, struct slot *s, const struct cmd *m, int rc,
		       struct reply *r)
{
	int op;

	if (m->op == OP_STEP) {
		coll_slot_set_state(c, s, SLOT_BOOKING);
		coll_count_steps(c, step_count(rc, r));
	}
	op = after_op(c, s, (int)m->op, rc, r);
	s->next_op = op;
	if (op == OP_STEP) {
		post_step(c, s->w, r, 0); /* no stop, nobody abandoned */
		return op;
	}
	book_reset(c, s, op);
	return op;
}

static int serial_op(coll *c, struct slot *s, const struct cmd *m)
{
	struct reply r = { 0 };
	int rc;

	if (m->op == OP_STEP)
		coll_slot_set_state(c, s, SLOT_STEPPING);
	rc = coll_run_op(c, s->w, m, &r, s->w->robs, s->w->rmask);
	return serial_book(c, s, m, rc, &r);
}

/* Step every slot that acted. Without child processes the steps go
 * together (coll_run_steps: the envs of a game server in one batch),
 * COLL_STEP_BATCH at a time; with them, one by one. */
static void serial_steps(coll *c)
{
	struct slot *ss[COLL_STEP_BATCH];
	struct cmd ms[COLL_STEP_BATCH];
	struct reply rs[COLL_STEP_BATCH];
	int rcs[COLL_STEP_BATCH];
	size_t i = 0;

	while (i < c->n) {
		size_t n = 0;
		for (; i < c->n && n < COLL_STEP_BATCH; i++) {
			struct slot *s = &c->slots[i];
			if (s->state != SLOT_ACTED)
				continue;
			cmd_for(c, s, OP_STEP, &ms[n]);
			for (int k = 0; k < s->nacting; k++)
				if (coll_learning(c, s, s->acting[k]))
					coll_traj_append(c, s, s->acting[k]);
			if (c->o.processes) {
				serial_op(c, s, &ms[n]);
				continue;
			}
			coll_slot_set_state(c, s, SLOT_STEPPING);
			ss[n++] = s;
		}
		if (!n)
			continue;
		coll_run_steps(c, ss, ms, n, rcs, rs);
		for (size_t k = 0; k < n; k++)
			serial_book(c, ss[k], &ms[k], rcs[k], &rs[k]);
	}
}

/* Create or reset every env that needs it until it has rows to post
 * (a reset may play a whole all-baseline episode: stop at the goal).
 * The ops run, or LG_EINVAL (a match out of range). */
static long serial_resets(coll *c, uint64_t goal)
{
	long ran = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct slot *s = &c->slots[i];
		while (s->state == SLOT_RESETTING && c->st.steps < goal &&
		       !c->fatal) {
			struct cmd m;
			int got;
			/* A recreation backs off without blocking the
			 * other envs: the slot idles until its time, before
			 * it takes a match (next_episode hands one out for
			 * good: taking one a round while idle would use a
			 * job's episodes up without playing them). */
			if (s->next_op == OP_CREATE && s->retries) {
				double now = lg_now_s();
				if (!s->retry_at)
					s->retry_at = now + retry_wait(c,
								       s->retries);
				if (now < s->retry_at)
					break;
				s->retry_at = 0;
			}
			got = choose_match(c, s);
			if (got < 0)
				return LG_EINVAL;
			if (!got)
				break; /* idle this round */
			cmd_for(c, s, s->next_op, &m);
			m.seed = episode_seed(c, i, s->episode);
			serial_op(c, s, &m);
			ran++;
		}
	}
	return ran;
}

/* One forward per network over every posted row, the same calls a
 * threaded inference device makes. 0 or the policy's error (made fatal). */
static int serial_batches(coll *c)
{
	struct batch *b = &c->serial_b;

	for (size_t k = 0; k < c->o.num_policies; k++) {
		struct group *g = &c->groups[k];
		size_t n;
		int rc;
		if (!g->n)
			continue;
		n = coll_batch_take(c, g, b);
		if ((rc = coll_batch_forward(c, g, b, n))) {
			coll_set_fatal(c, rc);
			return rc;
		}
		coll_batch_scatter(c, b, n);
	}
	return 0;
}

int coll_serial_collect(coll *c, uint64_t goal, double until)
{
	int rc;

	while (c->st.steps < goal && !c->fatal) {
		long ran = serial_resets(c, goal);
		if (ran < 0)
			return (int)ran;
		if (c->nstate[SLOT_DEAD] == c->n)
			return LG_EIO;
		/* nothing for a network, nothing searched to step */
		if (!c->nstate[SLOT_READY] && !c->nstate[SLOT_ACTED]) {
			if (until > 0 && lg_now_s() >= until)
				return LG_ETIMEOUT;
			if (!ran) /* every env idle */
				lg_sleep_s(0.002);
			continue;
		}
		if ((rc = serial_batches(c)))
			return rc;
		/* The whole round steps (like sync: at most n - 1 over the
		 * goal), so no forward's rows go to waste. */
		serial_steps(c);
		if (until > 0 && lg_now_s() >= until)
			return LG_ETIMEOUT;
	}
	return c->fatal;
}
