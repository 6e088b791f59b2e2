/* tests/check_collector.c: the env manager. Every mode (threads and child
 * processes) accounts for every transition exactly once, in per-env
 * order, with rewards summing to the episode returns; batches never mix
 * networks; step timeouts fire; a failing or crashing env is recovered
 * and its episode reported abnormal (its trajectory ends there, the next
 * episode starts fresh); dead envs and sink errors; option checks;
 * baseline seats (fixed players moving inside the env's host, in every
 * mode: they win as they should, their moves count as steps, they never
 * learn nor call a policy); and `league bench collector` through the
 * binary. The timing game with tiny times (or none) keeps every case
 * well under a second or two. */
#include <check.h>
#include <signal.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/collector.h"
#include "tests/testutil.h"
#include "util/util.h"

#define MAX_EP 4096
#define NENV 4

/* What the sink and the result callback saw. */
struct record {
	pthread_mutex_t mu;
	uint64_t rows;
	uint64_t segments;
	uint64_t next_seq[NENV];
	int seq_ok;
	/* per env, per episode, per seat: rows, reward sum, done seen, last
	 * step fraction (obs[1]) */
	struct {
		uint64_t rows[2];
		double rew[2];
		int done[2];
		float last_frac[2];
		int order_ok;
		int ended; /* result reported */
		int abnormal;
		int cause;
		uint64_t steps;
		double ret[2];
	} ep[NENV][64];
	int seat_seen[2];
	int sink_rc;
};

static void rec_init(struct record *r)
{
	memset(r, 0, sizeof *r);
	pthread_mutex_init(&r->mu, NULL);
	r->seq_ok = 1;
	for (int i = 0; i < NENV; i++)
		for (int k = 0; k < 64; k++) {
			r->ep[i][k].order_ok = 1;
			r->ep[i][k].last_frac[0] = r->ep[i][k].last_frac[1] =
				-1;
		}
}

static int sink(void *ctx, const struct coll_segment *g)
{
	struct record *r = ctx;
	const struct lg_rows *b = g->rows;

	pthread_mutex_lock(&r->mu);
	ck_assert_uint_lt(g->env_index, NENV);
	if (g->segment_seq != r->next_seq[g->env_index])
		r->seq_ok = 0;
	r->next_seq[g->env_index] = g->segment_seq + 1;
	r->rows += b->n;
	r->segments++;
	r->seat_seen[g->seat] = 1;
	ck_assert_uint_eq(b->obs_len, 8);
	ck_assert_uint_eq(b->num_actions, 2);
	ck_assert_uint_ge(b->n, 1);
	ck_assert_uint_le(b->n, b->cap);
	/* the last row closes its episode or cuts the stream, and only the
	 * last row cuts it (util/rows.h) */
	ck_assert(b->done[b->n - 1] == LG_ROW_END ||
		  b->done[b->n - 1] == LG_ROW_CUT);
	uint64_t e = g->episode; /* a done row closes it: e++ */
	for (uint32_t k = 0; k < b->n; k++) {
		const float *o = b->obs + k * b->obs_len;
		int s = g->seat;
		ck_assert_uint_lt(e, 64);
		ck_assert(o[0] == (float)s); /* the seat's own observation */
		ck_assert(b->action[k] == 0 || b->action[k] == 1);
		ck_assert(b->mask[2 * k] == 1 && b->mask[2 * k + 1] == 1);
		ck_assert(fabsf(b->logp[k] + logf(2)) < 1e-6f);
		ck_assert(b->done[k] != LG_ROW_CUT || k + 1 == b->n);
		if (o[1] <= r->ep[g->env_index][e].last_frac[s] ||
		    r->ep[g->env_index][e].done[s])
			r->ep[g->env_index][e].order_ok = 0;
		r->ep[g->env_index][e].last_frac[s] = o[1];
		r->ep[g->env_index][e].rows[s]++;
		r->ep[g->env_index][e].rew[s] += b->reward[k];
		if (b->done[k] == LG_ROW_END)
			r->ep[g->env_index][e++].done[s] = 1;
	}
	pthread_mutex_unlock(&r->mu);
	return r->sink_rc;
}

static void result(void *ctx, const struct coll_episode *ep)
{
	struct record *r = ctx;

	pthread_mutex_lock(&r->mu);
	ck_assert_uint_lt(ep->env_index, NENV);
	ck_assert_uint_lt(ep->episode, 64);
	ck_assert(!r->ep[ep->env_index][ep->episode].ended);
	r->ep[ep->env_index][ep->episode].ended = 1;
	r->ep[ep->env_index][ep->episode].abnormal = ep->abnormal;
	r->ep[ep->env_index][ep->episode].cause = ep->cause;
	r->ep[ep->env_index][ep->episode].steps = ep->steps;
	r->ep[ep->env_index][ep->episode].ret[0] = ep->returns[0];
	r->ep[ep->env_index][ep->episode].ret[1] = ep->returns[1];
	pthread_mutex_unlock(&r->mu);
}

static struct coll_policy uniform_pol;

static void base_opts(struct coll_opts *o, enum coll_mode mode, int procs,
		      double step_s, struct record *r)
{
	coll_opts_default(o);
	uniform_pol = coll_policy_uniform();
	o->game = "timing";
	o->env.seed = 7;
	o->env.timing.obs_len = 8;
	o->env.timing.reset_s = step_s * 3;
	o->env.timing.step_s = step_s;
	o->env.timing.infer_s = 0;
	o->env.timing.episode_len = 16;
	o->num_envs = NENV;
	o->mode = mode;
	o->wait_num = 3;
	o->wait_timeout_s = 0.0005;
	o->processes = procs;
	o->segment_len = 5;
	o->policies = &uniform_pol;
	o->num_policies = 1;
	o->retry_backoff_s = 0; /* the fault tests count retries, not time */
	o->sink = sink;
	o->sink_ctx = r;
	o->result = result;
	o->result_ctx = r;
}

/* Every completed transition reached the sink once, in order; finished
 * episodes' rows add up (steps, rewards = returns, done on the last). */
static void check_accounting(struct record *r, const struct coll_stats *st)
{
	uint64_t ended_steps = 0;

	ck_assert_int_eq(r->seq_ok, 1);
	ck_assert_uint_eq(r->rows, st->steps);
	ck_assert_uint_eq(r->rows, st->transitions);
	ck_assert_uint_eq(r->segments, st->segments);
	for (int i = 0; i < NENV; i++)
		for (int k = 0; k < 64; k++) {
			__typeof__(r->ep[0][0]) *e = &r->ep[i][k];
			ck_assert_msg(e->order_ok, "env %d episode %d out of "
				      "order", i, k);
			if (!e->ended)
				continue;
			ended_steps += e->steps;
			ck_assert_uint_eq(e->rows[0] + e->rows[1], e->steps);
			if (e->abnormal)
				continue;
			ck_assert(e->done[0] && e->done[1]);
			ck_assert(fabs(e->rew[0] - e->ret[0]) < 1e-9);
			ck_assert(fabs(e->rew[1] - e->ret[1]) < 1e-9);
			ck_assert(e->ret[0] == -e->ret[1]);
		}
	ck_assert_uint_le(ended_steps, st->steps);
}

static void run_accounting(enum coll_mode mode, int procs, double step_s)
{
	struct record *r = malloc(sizeof *r);
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;

	rec_init(r);
	base_opts(&o, mode, procs, step_s, r);
	c = tu_coll_open(&o);
	for (int k = 0; k < 4; k++) {
		ck_assert_int_eq(coll_collect(c, 50, 20), 0);
		coll_stats(c, &st);
		ck_assert_uint_ge(st.steps, 50u * (unsigned)(k + 1));
	}
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	check_accounting(r, &st);
	ck_assert_uint_ge(st.episodes, 4); /* 200 steps, episodes <= 26 */
	ck_assert_uint_eq(st.abnormal, 0);
	/* every finished episode was followed by a reset (maybe running) */
	ck_assert_uint_ge(st.resets + NENV, NENV + st.episodes);
	ck_assert_uint_ge(st.rows, st.steps);
	ck_assert_uint_le(st.rows, st.steps + NENV);
	free(r);
}

START_TEST(accounting_threads)
{
	static const enum coll_mode modes[] = { COLL_SERIAL, COLL_SYNC,
						COLL_ASYNC };
	run_accounting(modes[_i], 0, 0);
	run_accounting(modes[_i], 0, 0.0005);
}
END_TEST

START_TEST(accounting_processes)
{
	static const enum coll_mode modes[] = { COLL_SERIAL, COLL_SYNC,
						COLL_ASYNC };
	run_accounting(modes[_i], 1, 0.0002);
}
END_TEST

/* Sync steps every env, then waits for all: with no resets in the way
 * (long episodes) every forward after the first two holds all envs. */
START_TEST(sync_batches_every_env)
{
	struct record *r = malloc(sizeof *r);
	struct coll_opts o;
	struct coll_stats st0, st;
	coll *c = NULL;
	uint64_t rows, fw;

	rec_init(r);
	base_opts(&o, COLL_SYNC, _i, 0.0002, r);
	o.env.timing.episode_len = 100000;
	o.env.timing.jitter_lo = o.env.timing.jitter_hi = 1;
	c = tu_coll_open(&o);
	/* Warm up: envs whose first reset ends late start in small
	 * batches (resets stay off the critical path). */
	do {
		ck_assert_int_eq(coll_collect(c, 20, 20), 0);
		coll_stats(c, &st0);
	} while (st0.resets < NENV);
	ck_assert_int_eq(coll_collect(c, 20, 20), 0);
	coll_stats(c, &st0);
	for (int k = 0; k < 4; k++)
		ck_assert_int_eq(coll_collect(c, 50, 20), 0);
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	rows = st.rows - st0.rows;
	fw = st.forwards - st0.forwards;
	ck_assert_uint_ge(fw, 45);
	ck_assert_msg(rows + NENV >= fw * NENV, "rows %llu forwards %llu",
		      (unsigned long long)rows, (unsigned long long)fw);
	ck_assert_uint_eq(r->rows, st.steps);
	free(r);
}
END_TEST

/* ---- batching by network ------------------------------------------------ */

struct netpol {
	int seat;
	uint64_t calls, rows, bad;
	pthread_mutex_t mu;
};

static int net_act(void *ctx, const float *obs, const uint8_t *mask,
		   size_t n, size_t obs_len, int na, lg_rng *rng,
		   int32_t *action, float *logp, float *value,
		   float *state)
{
	struct netpol *p = ctx;
	struct coll_policy u = coll_policy_uniform();

	pthread_mutex_lock(&p->mu);
	p->calls++;
	p->rows += n;
	for (size_t i = 0; i < n; i++)
		if (obs[i * obs_len] != (float)p->seat)
			p->bad++;
	pthread_mutex_unlock(&p->mu);
	lg_sleep_s(0.0005);
	return u.act(NULL, obs, mask, n, obs_len, na, rng, action, logp,
		     value, state);
}

START_TEST(batches_per_network)
{
	struct record *r = malloc(sizeof *r);
	struct netpol np[2] = { { .seat = 0 }, { .seat = 1 } };
	struct coll_policy pols[2];
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;
	enum coll_mode mode = _i ? COLL_ASYNC : COLL_SYNC;

	rec_init(r);
	for (int k = 0; k < 2; k++) {
		pthread_mutex_init(&np[k].mu, NULL);
		pols[k] = (struct coll_policy){ .act = net_act, .ctx = &np[k] };
	}
	base_opts(&o, mode, 0, 0.0005, r);
	o.policies = pols;
	o.num_policies = 2;
	o.match.seat[0] = (struct coll_seat){ 11, 0, 1, 0 };
	o.match.seat[1] = (struct coll_seat){ 22, 1, 0, 0 };
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 200, 20), 0);
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	ck_assert_uint_eq(np[0].bad + np[1].bad, 0);
	ck_assert_uint_gt(np[0].calls, 0);
	ck_assert_uint_gt(np[1].calls, 0);
	ck_assert_uint_eq(np[0].rows + np[1].rows, st.rows);
	ck_assert_uint_eq(np[0].calls + np[1].calls, st.forwards);
	/* Only the learning seat 0 has trajectories: half the steps. */
	ck_assert_int_eq(r->seat_seen[0], 1);
	ck_assert_int_eq(r->seat_seen[1], 0);
	ck_assert_uint_le(r->rows, np[0].rows);
	ck_assert_uint_ge(r->rows + NENV, np[0].rows);
	/* seat 0 moves first: at most one more move per episode */
	ck_assert_uint_ge(r->rows * 2 + NENV, st.steps);
	ck_assert_uint_le(r->rows * 2, st.steps + st.episodes + NENV);
	if (mode == COLL_SYNC)
		ck_assert_uint_gt(np[0].rows, np[0].calls);
	free(r);
}
END_TEST


/* ---- per-episode matches (next_episode) --------------------------------- */

#define PM_JOBS 6
#define PM_EPS 3

struct pm {
	pthread_mutex_t mu;
	int avail;                 /* jobs released so far */
	int handed[PM_JOBS];       /* episodes handed out per job */
	int ended[PM_JOBS];
	int bad;                   /* a check failed in a callback */
	uint64_t seg_rows[PM_JOBS];
	uint64_t rows[2];          /* policy rows per net */
};

/* Job k: player k learns on net 0 against player 50 on net 1; the
 * learner sits in seat k % 2. */
static int pm_next(void *ctx, size_t env_index, struct coll_match *m,
		   uint64_t *tag)
{
	struct pm *pm = ctx;

	pthread_mutex_lock(&pm->mu);
	for (int k = 0; k < pm->avail; k++) {
		if (pm->handed[k] == PM_EPS)
			continue;
		pm->handed[k]++;
		int ls = k % 2;
		m->seat[ls] = (struct coll_seat){ (uint32_t)k, 0, 1, 0 };
		m->seat[!ls] = (struct coll_seat){ 50, 1, 0, 0 };
		*tag = 100 + (uint64_t)k;
		pthread_mutex_unlock(&pm->mu);
		return 1;
	}
	pthread_mutex_unlock(&pm->mu);
	return 0;
}

static int pm_sink(void *ctx, const struct coll_segment *g)
{
	struct pm *pm = ctx;
	int k = (int)g->tag - 100;

	pthread_mutex_lock(&pm->mu);
	/* no row after the job's last result: a consumer that retires a
	 * job once all its results are in must have all its rows */
	if (k < 0 || k >= PM_JOBS || g->player != (uint32_t)k ||
	    g->seat != k % 2 || pm->ended[k] == PM_EPS)
		pm->bad++;
	else
		pm->seg_rows[k] += g->rows->n;
	pthread_mutex_unlock(&pm->mu);
	return 0;
}

static void pm_result(void *ctx, const struct coll_episode *ep)
{
	struct pm *pm = ctx;
	int k = (int)ep->tag - 100;

	pthread_mutex_lock(&pm->mu);
	if (k < 0 || k >= PM_JOBS || ep->abnormal ||
	    ep->player[k % 2] != (uint32_t)k || ep->player[!(k % 2)] != 50)
		pm->bad++;
	else
		pm->ended[k]++;
	pthread_mutex_unlock(&pm->mu);
}

static int pm_act(void *ctx, const float *obs, const uint8_t *mask, size_t n,
		  size_t obs_len, int na, lg_rng *rng, int32_t *action,
		  float *logp, float *value,
		  float *state)
{
	uint64_t *rows = ctx;

	__atomic_add_fetch(rows, n, __ATOMIC_RELAXED);
	return coll_policy_uniform().act(NULL, obs, mask, n, obs_len, na, rng,
					 action, logp, value, state);
}

static int pm_all_ended(struct pm *pm, int jobs)
{
	int done = 1;

	pthread_mutex_lock(&pm->mu);
	for (int k = 0; k < jobs; k++)
		done &= pm->ended[k] == PM_EPS;
	pthread_mutex_unlock(&pm->mu);
	return done;
}

/* A collector fed episode by episode: each episode plays the match and
 * carries the tag next_episode chose, envs idle (without stalling or
 * spinning the caller) when there is nothing to play, and pick up work
 * released later. Every mode. */
START_TEST(per_episode_matches)
{
	static const enum coll_mode modes[] = { COLL_SERIAL, COLL_SYNC,
						COLL_ASYNC };
	struct pm *pm = calloc(1, sizeof *pm);
	struct coll_policy pols[2];
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;
	double t0;

	pthread_mutex_init(&pm->mu, NULL);
	pm->avail = PM_JOBS / 2;
	for (int k = 0; k < 2; k++)
		pols[k] = (struct coll_policy){ .act = pm_act,
						 .ctx = &pm->rows[k] };
	base_opts(&o, modes[_i], 0, 0.0002, NULL);
	o.policies = pols;
	o.num_policies = 2;
	o.sink = pm_sink;
	o.sink_ctx = pm;
	o.result = pm_result;
	o.result_ctx = pm;
	o.next_episode = pm_next;
	o.episode_ctx = pm;
	c = tu_coll_open(&o);
	t0 = lg_now_s();
	while (!pm_all_ended(pm, PM_JOBS / 2)) {
		int rc = coll_collect(c, 1u << 20, 0.05);
		ck_assert(rc == 0 || rc == LG_ETIMEOUT);
		ck_assert_msg(lg_now_s() - t0 < 20, "first jobs never ended");
	}
	/* Out of work: the envs idle and the caller gets its timeout. */
	coll_stats(c, &st);
	uint64_t steps = st.steps;
	ck_assert_int_eq(coll_collect(c, 1u << 20, 0.05), LG_ETIMEOUT);
	coll_stats(c, &st);
	ck_assert_uint_eq(st.steps, steps);
	pthread_mutex_lock(&pm->mu);
	pm->avail = PM_JOBS;
	pthread_mutex_unlock(&pm->mu);
	t0 = lg_now_s();
	while (!pm_all_ended(pm, PM_JOBS)) {
		int rc = coll_collect(c, 1u << 20, 0.05);
		ck_assert(rc == 0 || rc == LG_ETIMEOUT);
		ck_assert_msg(lg_now_s() - t0 < 20, "later jobs never ended");
	}
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	ck_assert_int_eq(pm->bad, 0);
	uint64_t seg = 0;
	for (int k = 0; k < PM_JOBS; k++) {
		ck_assert_int_eq(pm->handed[k], PM_EPS);
		ck_assert_int_eq(pm->ended[k], PM_EPS);
		seg += pm->seg_rows[k];
	}
	ck_assert_uint_eq(st.episodes, PM_JOBS * PM_EPS);
	/* Both nets acted, and every learning row reached the sink. */
	ck_assert_uint_gt(pm->rows[0], 0);
	ck_assert_uint_gt(pm->rows[1], 0);
	ck_assert_uint_eq(seg, pm->rows[0]);
	ck_assert_uint_eq(pm->rows[0] + pm->rows[1], st.steps);
	free(pm);
}
END_TEST


/* Regression: in sync mode a worker could take the lead of a group while
 * its own rows were still in the previous leader's batch in flight; once
 * answered, its slot waited to step while it waited (as leader) for every
 * slot to finish stepping. Simultaneous moves, one network per seat, one
 * forward at a time per network, a policy slow enough to overlap. */
static int slow_act(void *ctx, const float *obs, const uint8_t *mask,
		    size_t n, size_t obs_len, int na, lg_rng *rng,
		    int32_t *action, float *logp, float *value,
		    float *state)
{
	lg_sleep_s(0.0002);
	return coll_policy_uniform().act(NULL, obs, mask, n, obs_len, na, rng,
					 action, logp, value, state);
}

static int rps_next(void *ctx, size_t env_index, struct coll_match *m,
		    uint64_t *tag)
{
	int k = (int)(env_index + *(uint64_t *)ctx);

	m->seat[0] = (struct coll_seat){ 1, (uint32_t)(k % 3), 1, 0 };
	m->seat[1] = (struct coll_seat){ 2, (uint32_t)((k / 3) % 3), 0,
					    0 };
	*tag = 1;
	return 1;
}

START_TEST(sync_leader_never_waits_for_itself)
{
	struct coll_policy pols[3];
	struct coll_opts o;
	struct coll_stats st;
	uint64_t salt = 0;
	coll *c = NULL;

	for (int k = 0; k < 3; k++)
		pols[k] = (struct coll_policy){ .act = slow_act,
						 .max_calls = 1 };
	coll_opts_default(&o);
	o.game = "rps";
	o.num_envs = 8;
	o.mode = COLL_SYNC;
	o.wait_num = 8;
	o.policies = pols;
	o.num_policies = 3;
	o.next_episode = rps_next;
	o.episode_ctx = &salt;
	c = tu_coll_open(&o);
	/* 2000 one-step episodes take well under a second when nothing
	 * stalls; the bug managed a few dozen per second. */
	int rc = coll_collect(c, 2000, 20);
	coll_stats(c, &st);
	coll_free(c);
	ck_assert_msg(rc == 0, "only %llu steps in 20 s",
		      (unsigned long long)st.steps);
}
END_TEST

/* ---- faults ------------------------------------------------------------- */

struct fault_plan {
	size_t env;
	uint64_t episode, step;
	int kind;
};

static int fault_hook(void *ctx, size_t ei, uint64_t ep, uint64_t step)
{
	const struct fault_plan *f = ctx;

	if (ei == f->env && ep == f->episode && step == f->step)
		return f->kind;
	return COLL_FAULT_NONE;
}

static void run_fault(int procs, int kind, int want_cause)
{
	struct record *r = malloc(sizeof *r);
	struct fault_plan plan = { 1, 0, 5, kind };
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;

	rec_init(r);
	base_opts(&o, COLL_ASYNC, procs, 0.0005, r);
	o.fault = fault_hook;
	o.fault_ctx = &plan;
	o.fault_hang_s = 0.6;
	o.step_timeout_s = 0.1;
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 300, 20), 0);
	/* The watchdog runs inside coll_collect: go on until the fault has
	 * been handled and env 1's next episode is over. */
	for (int k = 0; k < 200; k++) {
		int seen;
		pthread_mutex_lock(&r->mu);
		seen = r->ep[1][1].ended;
		pthread_mutex_unlock(&r->mu);
		if (seen)
			break;
		ck_assert_int_eq(coll_collect(c, 20, 20), 0);
	}
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	check_accounting(r, &st);
	ck_assert_uint_eq(st.abnormal, 1);
	ck_assert_uint_ge(st.recreated, 1);
	if (want_cause == LG_ETIMEOUT)
		ck_assert_uint_eq(st.timeouts, 1);
	/* env 1's first episode: abnormal after 6 transitions (the sixth
	 * failed), its trajectory closed with done; episode 1 starts anew. */
	ck_assert_int_eq(r->ep[1][0].ended, 1);
	ck_assert_int_eq(r->ep[1][0].abnormal, 1);
	ck_assert_int_eq(r->ep[1][0].cause, want_cause);
	ck_assert_uint_eq(r->ep[1][0].steps, 6);
	ck_assert_uint_eq(r->ep[1][0].rows[0] + r->ep[1][0].rows[1], 6);
	ck_assert(r->ep[1][0].done[0] && r->ep[1][0].done[1]);
	ck_assert_int_eq(r->ep[1][1].ended, 1);
	ck_assert_int_eq(r->ep[1][1].abnormal, 0);
	ck_assert(r->ep[1][1].rows[0] + r->ep[1][1].rows[1] ==
		  r->ep[1][1].steps);
	/* the other envs never noticed */
	for (int i = 0; i < NENV; i++)
		if (i != 1)
			ck_assert_int_eq(r->ep[i][0].abnormal, 0);
	free(r);
}

START_TEST(fail_recovered_threads)
{
	run_fault(0, COLL_FAULT_FAIL, LG_EIO);
}
END_TEST

START_TEST(timeout_fires_threads)
{
	run_fault(0, COLL_FAULT_HANG, LG_ETIMEOUT);
}
END_TEST

START_TEST(crash_recovered_processes)
{
	run_fault(1, COLL_FAULT_CRASH, LG_EIO);
}
END_TEST

START_TEST(timeout_fires_processes)
{
	run_fault(1, COLL_FAULT_HANG, LG_ETIMEOUT);
}
END_TEST

/* A child must not start life holding a lock that some other thread held
 * when it was forked. The caller takes fork_lock right after coll_new
 * and keeps it; the hook, run in the env's child on every op, takes it
 * too. A child forked from the collector's threaded process would
 * inherit it locked and hang until the timeout, episode after episode;
 * forked from the spawner, made in coll_new before the lock was taken,
 * it finds it free. */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

static int lock_hook(void *ctx, size_t ei, uint64_t ep, uint64_t step)
{
	pthread_mutex_lock(&fork_lock);
	pthread_mutex_unlock(&fork_lock);
	return COLL_FAULT_NONE;
}

START_TEST(children_inherit_no_held_lock)
{
	struct record *r = malloc(sizeof *r);
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;

	rec_init(r);
	base_opts(&o, COLL_ASYNC, 1, 0, r);
	o.fault = lock_hook;
	o.step_timeout_s = o.reset_timeout_s = 2;
	c = tu_coll_open(&o);
	pthread_mutex_lock(&fork_lock);
	ck_assert_int_eq(coll_collect(c, 200, 20), 0);
	coll_stop(c);
	pthread_mutex_unlock(&fork_lock);
	coll_stats(c, &st);
	coll_free(c);
	ck_assert_uint_eq(st.timeouts, 0);
	ck_assert_uint_eq(st.abnormal, 0);
	ck_assert_uint_ge(st.steps, 200);
	check_accounting(r, &st);
	free(r);
}
END_TEST

/* The spawner is the one child process this test process has: killed
 * mid-collection, its env children die with it; the envs' episodes are
 * dropped and counted, a new spawner starts, and collection goes on with
 * no env given up. */
static pid_t only_child(void)
{
	pid_t me = getpid(), found = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		char path[300], buf[512], *rp;
		FILE *f;
		long ppid;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		buf[0] = 0;
		if (!fgets(buf, sizeof buf, f))
			buf[0] = 0;
		fclose(f);
		/* pid (comm) state ppid: after the last ')' */
		if ((rp = strrchr(buf, ')')) && sscanf(rp + 2, "%*c %ld",
						       &ppid) == 1 &&
		    ppid == me) {
			ck_assert_msg(!found, "more than one child");
			found = (pid_t)atol(e->d_name);
		}
	}
	closedir(d);
	return found;
}

START_TEST(spawner_killed_is_restarted)
{
	struct record *r = malloc(sizeof *r);
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;
	pid_t sp;

	rec_init(r);
	base_opts(&o, COLL_ASYNC, 1, 0, r);
	o.max_retries = 3;
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 200, 20), 0);
	ck_assert_int_gt(sp = only_child(), 0);
	kill(sp, SIGKILL);
	ck_assert_int_eq(coll_collect(c, 2000, 30), 0);
	ck_assert_int_gt(only_child(), 0);
	ck_assert_int_ne(only_child(), sp);
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	ck_assert_uint_ge(st.abnormal, 1);
	ck_assert_uint_eq(st.dead_envs, 0);
	check_accounting(r, &st);
	free(r);
}
END_TEST

static int always_fail_reset(void *ctx, size_t ei, uint64_t ep,
			     uint64_t step)
{
	const size_t *bad = ctx;

	return (*bad == SIZE_MAX || ei == *bad) && step == COLL_FAULT_RESET
		       ? COLL_FAULT_FAIL
		       : COLL_FAULT_NONE;
}

START_TEST(dead_env_and_all_dead)
{
	struct record *r = malloc(sizeof *r);
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;
	size_t bad = 0;

	rec_init(r);
	base_opts(&o, _i ? COLL_SERIAL : COLL_ASYNC, 0, 0, r);
	o.fault = always_fail_reset;
	o.fault_ctx = &bad;
	o.max_retries = 2;
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 100, 20), 0);
	/* The others may outrun env 0's three failed creations. */
	for (int k = 0; k < 500; k++) {
		coll_stats(c, &st);
		if (st.dead_envs)
			break;
		ck_assert_int_eq(coll_collect(c, 10, 20), 0);
	}
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	ck_assert_uint_eq(st.dead_envs, 1);
	ck_assert_uint_eq(st.abnormal, 3); /* first try + 2 retries */
	check_accounting(r, &st);

	bad = SIZE_MAX;
	rec_init(r);
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 100, 20), LG_EIO);
	coll_free(c);
	free(r);
}
END_TEST

START_TEST(sink_error_stops)
{
	struct record *r = malloc(sizeof *r);
	struct coll_opts o;
	coll *c = NULL;

	rec_init(r);
	r->sink_rc = LG_EFULL;
	base_opts(&o, _i ? COLL_SERIAL : COLL_ASYNC, 0, 0, r);
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 1000, 20), LG_EFULL);
	coll_free(c);
	free(r);
}
END_TEST

static int failing_act(void *ctx, const float *obs, const uint8_t *mask,
		       size_t n, size_t obs_len, int na, lg_rng *rng,
		       int32_t *action, float *logp, float *value,
		       float *state)
{
	return LG_EIO;
}

/* A deadline ends a collect with LG_ETIMEOUT; a policy error stops the
 * collector with that error. */
START_TEST(deadline_and_policy_error)
{
	struct record *r = malloc(sizeof *r);
	struct coll_policy bad = { .act = failing_act };
	struct coll_opts o;
	coll *c = NULL;
	double t0;

	rec_init(r);
	base_opts(&o, _i ? COLL_SERIAL : COLL_ASYNC, 0, 0.001, r);
	c = tu_coll_open(&o);
	t0 = lg_now_s();
	ck_assert_int_eq(coll_collect(c, 1000000, 0.2), LG_ETIMEOUT);
	ck_assert(lg_now_s() - t0 < 1.5);
	/* the unmet goal carries over to the next call */
	ck_assert_int_eq(coll_collect(c, 0, 0.05), LG_ETIMEOUT);
	coll_free(c);

	rec_init(r);
	o.policies = &bad;
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 100, 20), LG_EIO);
	coll_free(c);
	free(r);
}
END_TEST

START_TEST(options_rejected)
{
	struct coll_opts o;
	coll *c = (coll *)1;
	char err[256];

	base_opts(&o, COLL_ASYNC, 0, 0, NULL);
	o.wait_num = NENV + 1;
	ck_assert_int_eq(coll_new(&c, &o, err, sizeof err), LG_ERANGE);
	ck_assert_ptr_null(c);
	base_opts(&o, COLL_ASYNC, 0, 0, NULL);
	o.num_policies = 0;
	ck_assert_int_eq(coll_new(&c, &o, err, sizeof err), LG_EINVAL);
	base_opts(&o, COLL_ASYNC, 0, 0, NULL);
	o.match.seat[1].net = 3;
	ck_assert_int_eq(coll_new(&c, &o, err, sizeof err), LG_EINVAL);
	base_opts(&o, COLL_ASYNC, 0, 0, NULL);
	o.num_envs = COLL_ENVS_MAX + 1;
	ck_assert_int_eq(coll_new(&c, &o, err, sizeof err), LG_ERANGE);
	base_opts(&o, COLL_ASYNC, 0, 0, NULL);
	o.game = "nosuchgame";
	ck_assert_int_eq(coll_new(&c, &o, err, sizeof err), LG_ENOTFOUND);
	base_opts(&o, COLL_ASYNC, 0, 0, NULL);
	o.segment_len = 0;
	ck_assert_int_eq(coll_new(&c, &o, err, sizeof err), LG_ERANGE);
	coll_free(NULL);
	{
		enum coll_mode m;
		ck_assert_int_eq(coll_mode_parse("sync", &m), 0);
		ck_assert_int_eq(m, COLL_SYNC);
		ck_assert_int_eq(coll_mode_parse("fast", &m), LG_EINVAL);
		ck_assert_str_eq(coll_mode_name(COLL_ASYNC), "async");
	}
}
END_TEST

/* Any game: kuhn (chance, short episodes) and rps (simultaneous). */
START_TEST(other_games)
{
	static const char *games[] = { "kuhn", "rps", "tictactoe" };
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;

	coll_opts_default(&o);
	uniform_pol = coll_policy_uniform();
	o.game = games[_i];
	o.num_envs = 3;
	o.wait_num = 2;
	o.policies = &uniform_pol;
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 300, 20), 0);
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	ck_assert_uint_ge(st.steps, 300);
	ck_assert_uint_gt(st.episodes, 0);
	ck_assert_uint_eq(st.abnormal, 0);
	if (!strcmp(games[_i], "rps")) { /* two rows per joint step */
		ck_assert_uint_ge(st.rows, 2 * st.steps);
		ck_assert_uint_le(st.rows, 2 * (st.steps + 3));
	}
}
END_TEST

/* ---- N seats --------------------------------------------------------------- */

/* Three seats of one network (goofspiel for 3, the example plugin), envs
 * in threads and in child processes: every
 * seat's rows reach the sink under its own player with its own
 * observation, and each episode reports three returns summing to 0. */
struct three {
	pthread_mutex_t mu;
	uint64_t rows[3], episodes, bad;
};

static int three_sink(void *ctx, const struct coll_segment *g)
{
	struct three *t = ctx;
	const struct lg_rows *b = g->rows;

	pthread_mutex_lock(&t->mu);
	if (g->seat < 0 || g->seat > 2 || g->player != (uint32_t)g->seat + 10 ||
	    b->obs_len != 6 * 4 + 1 || b->num_actions != 4)
		t->bad++;
	else
		t->rows[g->seat] += b->n;
	for (uint32_t k = 0; k < b->n; k++) {
		const float *o = b->obs + k * b->obs_len;
		float held = 0;
		for (int i = 0; i < 4; i++) /* the seat's own hand */
			held += o[4 + i];
		int legal = 0;
		for (int a = 0; a < 4; a++)
			legal += b->mask[k * 4 + a];
		if ((int)held != legal || !b->mask[k * 4 + b->action[k]])
			t->bad++;
	}
	pthread_mutex_unlock(&t->mu);
	return 0;
}

static void three_result(void *ctx, const struct coll_episode *ep)
{
	struct three *t = ctx;
	double sum = 0;

	pthread_mutex_lock(&t->mu);
	for (int p = 0; p < 3; p++)
		sum += ep->returns[p];
	if (ep->players != 3 || ep->abnormal || fabs(sum) > 1e-9 ||
	    ep->player[2] != 12)
		t->bad++;
	t->episodes++;
	pthread_mutex_unlock(&t->mu);
}

START_TEST(three_seats_one_network)
{
	struct coll_opts o;
	struct three t;
	coll *c;
	const char *dir = getenv("LEAGUE_EXAMPLES");

	ck_assert_msg(dir && *dir, "LEAGUE_EXAMPLES is not set");
	memset(&t, 0, sizeof t);
	pthread_mutex_init(&t.mu, NULL);
	coll_opts_default(&o);
	uniform_pol = coll_policy_uniform();
	o.game = "goofspiel";
	snprintf(o.env.plugin, sizeof o.env.plugin, "%s/goofspiel.so", dir);
	snprintf(o.env.params.key[0], ENV_PARAM_KEY_MAX, "players");
	snprintf(o.env.params.val[0], ENV_PARAM_VAL_MAX, "3");
	o.env.params.n = 1;
	o.num_envs = 3;
	o.wait_num = 2;
	o.processes = _i; /* envs in threads, then in child processes */
	o.policies = &uniform_pol;
	for (int p = 0; p < 3; p++)
		o.match.seat[p] = (struct coll_seat){ (uint32_t)p + 10, 0, 1,
						      0 };
	o.sink = three_sink;
	o.sink_ctx = &t;
	o.result = three_result;
	o.result_ctx = &t;
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 400, 30), 0);
	coll_stop(c);
	coll_free(c);
	ck_assert_uint_eq(t.bad, 0);
	ck_assert_uint_gt(t.episodes, 0);
	/* Four bids a seat an episode: every seat's rows, in step. */
	for (int p = 0; p < 3; p++)
		ck_assert_uint_ge(t.rows[p], 4 * t.episodes);
}
END_TEST

/* ---- baseline seats ------------------------------------------------------ */

#define BL_EPS 75 /* episodes per env */

/* A network against one baseline, episode by episode: the baseline's
 * seat alternates per episode and env (tag = its seat), and its net
 * names no policy (a baseline seat's net is never used). Both seats say
 * learning; only the network's may produce rows. */
struct bl {
	pthread_mutex_t mu;
	int handed[NENV];
	int rock;          /* the network always plays action 0 */
	int simul;         /* one network row per step (rps) */
	int bad;           /* a callback saw something wrong */
	uint64_t pol_rows, pol_calls;
	struct {
		int ended, abnormal, done;
		uint64_t steps, rows;
		double ret[2], rew;
	} ep[NENV][BL_EPS];
};

static int bl_next(void *ctx, size_t ei, struct coll_match *m,
		   uint64_t *tag)
{
	struct bl *b = ctx;
	int k, bs;

	pthread_mutex_lock(&b->mu);
	if (b->handed[ei] == BL_EPS) {
		pthread_mutex_unlock(&b->mu);
		return 0;
	}
	k = b->handed[ei]++;
	pthread_mutex_unlock(&b->mu);
	bs = (int)((ei + (size_t)k) % 2);
	m->seat[bs] = (struct coll_seat){ 90, 7, 1, 1 };
	m->seat[!bs] = (struct coll_seat){ 1, 0, 1, 0 };
	*tag = (uint64_t)bs;
	return 1;
}

static int bl_sink(void *ctx, const struct coll_segment *g)
{
	struct bl *b = ctx;

	pthread_mutex_lock(&b->mu);
	if (g->env_index >= NENV || g->episode >= BL_EPS ||
	    g->seat != !(int)g->tag || g->player != 1) {
		b->bad++;
	} else {
		uint64_t ei = g->episode; /* a done row closes it: ei++ */
		const struct lg_rows *r = g->rows;
		for (uint32_t k = 0; k < r->n; k++) {
			__typeof__(b->ep[0][0]) *e;
			if (ei >= BL_EPS) {
				b->bad++;
				break;
			}
			e = &b->ep[g->env_index][ei];
			if (e->done)
				b->bad++; /* rows after the last one */
			e->rows++;
			e->rew += r->reward[k];
			e->done |= r->done[k] == LG_ROW_END;
			ei += r->done[k] == LG_ROW_END;
		}
	}
	pthread_mutex_unlock(&b->mu);
	return 0;
}

static void bl_result(void *ctx, const struct coll_episode *ep)
{
	struct bl *b = ctx;

	pthread_mutex_lock(&b->mu);
	if (ep->env_index >= NENV || ep->episode >= BL_EPS ||
	    b->ep[ep->env_index][ep->episode].ended ||
	    ep->player[ep->tag] != 90 || ep->player[!ep->tag] != 1) {
		b->bad++;
	} else {
		__typeof__(b->ep[0][0]) *e = &b->ep[ep->env_index][ep->episode];
		e->ended = 1;
		e->abnormal = ep->abnormal;
		e->steps = ep->steps;
		e->ret[0] = ep->returns[0];
		e->ret[1] = ep->returns[1];
	}
	pthread_mutex_unlock(&b->mu);
}

static int bl_act(void *ctx, const float *obs, const uint8_t *mask, size_t n,
		  size_t obs_len, int na, lg_rng *rng, int32_t *action,
		  float *logp, float *value,
		  float *state)
{
	struct bl *b = ctx;

	__atomic_add_fetch(&b->pol_rows, n, __ATOMIC_RELAXED);
	__atomic_add_fetch(&b->pol_calls, 1, __ATOMIC_RELAXED);
	if (b->rock) {
		for (size_t i = 0; i < n; i++) {
			action[i] = 0;
			logp[i] = value[i] = 0;
		}
		return 0;
	}
	return coll_policy_uniform().act(NULL, obs, mask, n, obs_len, na, rng,
					 action, logp, value, state);
}

static int bl_all_ended(struct bl *b)
{
	int done = 1;

	pthread_mutex_lock(&b->mu);
	for (int i = 0; i < NENV; i++)
		for (int k = 0; k < BL_EPS; k++)
			done &= b->ep[i][k].ended;
	pthread_mutex_unlock(&b->mu);
	return done;
}

/* Modes the baseline tests run in: serial, sync, async (threads), then
 * serial and async with child processes. */
static const struct {
	enum coll_mode mode;
	int procs;
} bl_modes[] = { { COLL_SERIAL, 0 }, { COLL_SYNC, 0 }, { COLL_ASYNC, 0 },
		 { COLL_SERIAL, 1 }, { COLL_ASYNC, 1 } };

/* Play every env's BL_EPS episodes of game with baseline spec, then
 * check what every mode must give: each episode's steps count both
 * sides' moves and add up to stats.steps, the network acted exactly on
 * its own moves, only its seat left rows, and its rewards add up to its
 * return with done on the last row. */
static void bl_run(struct bl *b, const char *game, const char *spec, int mi)
{
	struct coll_policy pol = { .act = bl_act, .ctx = b };
	char spec_buf[32];
	const char *specs[1] = { spec_buf };
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;
	uint64_t steps = 0, net_rows = 0;
	double t0;

	pthread_mutex_init(&b->mu, NULL);
	snprintf(spec_buf, sizeof spec_buf, "%s", spec);
	coll_opts_default(&o);
	o.game = game;
	o.env.seed = 11;
	o.num_envs = NENV;
	o.mode = bl_modes[mi].mode;
	o.processes = bl_modes[mi].procs;
	o.wait_num = 2;
	o.segment_len = 2;
	o.policies = &pol;
	o.num_policies = 1;
	o.baselines = specs;
	o.num_baselines = 1;
	o.next_episode = bl_next;
	o.episode_ctx = b;
	o.sink = bl_sink;
	o.sink_ctx = b;
	o.result = bl_result;
	o.result_ctx = b;
	c = tu_coll_open(&o);
	/* The collector keeps its own copy of the spec. */
	memset(spec_buf, 'x', sizeof spec_buf - 1);
	t0 = lg_now_s();
	while (!bl_all_ended(b)) {
		int rc = coll_collect(c, 1u << 20, 0.05);
		ck_assert_msg(rc == 0 || rc == LG_ETIMEOUT, "rc %d", rc);
		ck_assert_msg(lg_now_s() - t0 < 30, "episodes never ended");
	}
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	ck_assert_int_eq(b->bad, 0);
	ck_assert_uint_eq(st.episodes, NENV * BL_EPS);
	ck_assert_uint_eq(st.abnormal, 0);
	for (int i = 0; i < NENV; i++)
		for (int k = 0; k < BL_EPS; k++) {
			__typeof__(b->ep[0][0]) *e = &b->ep[i][k];
			int bs = (i + k) % 2;
			uint64_t mine = b->simul ? e->steps
				      : bs ? (e->steps + 1) / 2 : e->steps / 2;
			ck_assert(!e->abnormal);
			ck_assert_uint_ge(e->steps, 1);
			ck_assert_uint_eq(e->rows, mine);
			ck_assert_msg(e->done, "env %d episode %d", i, k);
			ck_assert(e->rew == e->ret[!bs]);
			ck_assert(e->ret[0] == -e->ret[1]);
			steps += e->steps;
			net_rows += mine;
		}
	/* Every env idles at the end, so nothing is in flight. */
	ck_assert_uint_eq(st.steps, steps);
	ck_assert_uint_eq(b->pol_rows, net_rows);
	ck_assert_uint_eq(st.rows, net_rows);
	ck_assert_uint_eq(st.forwards, b->pol_calls);
	ck_assert_uint_eq(st.transitions, net_rows);
}

/* Perfect play never loses to the uniform network, and wins most games
 * from either seat (over 20000 games: 0.969 moving first, 0.777
 * second). Had the network played the baseline's seat too, that seat
 * would win 0.585 / 0.288; the bounds sit 4+ sd below the true rates
 * for 150 games a seat. */
START_TEST(baseline_tictactoe_minimax)
{
	struct bl *b = calloc(1, sizeof *b);
	int won[2] = { 0 }, lost = 0;

	bl_run(b, "tictactoe", "minimax", _i);
	for (int i = 0; i < NENV; i++)
		for (int k = 0; k < BL_EPS; k++) {
			int bs = (i + k) % 2;
			lost += b->ep[i][k].ret[bs] < 0;
			won[bs] += b->ep[i][k].ret[bs] > 0;
			ck_assert_uint_ge(b->ep[i][k].steps, 5);
		}
	ck_assert_int_eq(lost, 0);
	ck_assert_msg(won[0] >= 0.88 * NENV * BL_EPS / 2, "won %d", won[0]);
	ck_assert_msg(won[1] >= 0.62 * NENV * BL_EPS / 2, "won %d", won[1]);
	free(b);
}
END_TEST

/* Depth-2 search against the uniform network: over 20000 games it won
 * 0.999 from either seat. */
START_TEST(baseline_connect4_alphabeta)
{
	struct bl *b = calloc(1, sizeof *b);
	int won = 0;

	bl_run(b, "connect4", "alphabeta:2", _i);
	for (int i = 0; i < NENV; i++)
		for (int k = 0; k < BL_EPS; k++)
			won += b->ep[i][k].ret[(i + k) % 2] > 0;
	ck_assert_msg(won >= 0.9 * NENV * BL_EPS, "won %d", won);
	free(b);
}
END_TEST

/* Simultaneous moves: the baseline's action is chosen in the host, the
 * network only sees its own row. A network always playing rock meets a
 * uniform baseline: wins, losses and draws about a third each (had the
 * baseline's action been left at 0, all draws). */
START_TEST(baseline_rps_random)
{
	struct bl *b = calloc(1, sizeof *b);
	int out[3] = { 0 };

	b->rock = 1;
	b->simul = 1;
	bl_run(b, "rps", "random", _i);
	for (int i = 0; i < NENV; i++)
		for (int k = 0; k < BL_EPS; k++) {
			double r = b->ep[i][k].ret[!((i + k) % 2)];
			ck_assert_uint_eq(b->ep[i][k].steps, 1);
			out[r > 0 ? 0 : r < 0 ? 1 : 2]++;
		}
	for (int j = 0; j < 3; j++) /* 300 games: mean 100, sd 8.2 */
		ck_assert_msg(out[j] >= 60, "outcome %d: %d", j, out[j]);
	free(b);
}
END_TEST

struct count_ctx {
	uint64_t calls, eps, bad;
};

static int count_act(void *ctx, const float *obs, const uint8_t *mask,
		     size_t n, size_t obs_len, int na, lg_rng *rng,
		     int32_t *action, float *logp, float *value,
		     float *state)
{
	struct count_ctx *cc = ctx;

	__atomic_add_fetch(&cc->calls, 1, __ATOMIC_RELAXED);
	return coll_policy_uniform().act(NULL, obs, mask, n, obs_len, na, rng,
					 action, logp, value, state);
}

static int count_sink(void *ctx, const struct coll_segment *g)
{
	struct count_ctx *cc = ctx;

	cc->bad++; /* baseline seats never learn */
	return 0;
}

static void count_result(void *ctx, const struct coll_episode *ep)
{
	struct count_ctx *cc = ctx;

	cc->eps++;
	if (ep->abnormal || ep->steps != 1 ||
	    ep->returns[0] != -ep->returns[1])
		cc->bad++;
}

/* Both seats baselines: episodes play out inside the resets with no
 * policy call and no trajectory, and only while coll_collect runs. */
START_TEST(baseline_all_seats)
{
	const char *specs[] = { "random" };
	struct count_ctx cc = { 0 };
	struct coll_policy pol = { .act = count_act, .ctx = &cc };
	struct coll_opts o;
	struct coll_stats st, st1;
	coll *c = NULL;

	coll_opts_default(&o);
	o.game = "rps";
	o.num_envs = NENV;
	o.mode = bl_modes[_i].mode;
	o.processes = bl_modes[_i].procs;
	o.wait_num = 2;
	o.policies = &pol;
	o.baselines = specs;
	o.num_baselines = 1;
	o.match.seat[0] = (struct coll_seat){ 1, 0, 1, 1 };
	o.match.seat[1] = (struct coll_seat){ 2, 3, 1, 1 };
	o.sink = count_sink;
	o.sink_ctx = &cc;
	o.result = count_result;
	o.result_ctx = &cc;
	c = tu_coll_open(&o);
	for (int k = 0; k < 3; k++)
		ck_assert_int_eq(coll_collect(c, 500, 20), 0);
	coll_stats(c, &st);
	ck_assert_uint_ge(st.steps, 1500);
	/* Between calls an env finishes at most the episode it started. */
	lg_sleep_s(0.05);
	coll_stats(c, &st1);
	ck_assert_uint_le(st1.steps, st.steps + NENV);
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	ck_assert_uint_eq(cc.calls, 0);
	ck_assert_uint_eq(cc.bad, 0);
	ck_assert_uint_eq(st.forwards, 0);
	ck_assert_uint_eq(st.segments, 0);
	ck_assert_uint_eq(st.abnormal, 0);
	ck_assert_uint_eq(st.episodes, cc.eps);
	ck_assert_uint_eq(st.steps, st.episodes);
}
END_TEST

static int bl3_next(void *ctx, size_t ei, struct coll_match *m,
		    uint64_t *tag)
{
	m->seat[1].baseline = 3;
	return 1;
}

/* Specs are checked against the game at coll_new; a seat naming a
 * baseline that does not exist stops the collector. */
START_TEST(baseline_rejected)
{
	static const struct {
		const char *game, *spec;
	} bad[] = { { "connect4", "minimax" }, { "tictactoe", "nosuch" },
		    { "tictactoe", "alphabeta:2" },
		    { "connect4", "alphabeta:99" } };
	const char *specs[COLL_BASELINES_MAX + 1];
	struct coll_opts o;
	coll *c = (coll *)1;
	char err[256];

	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		const char *two[2] = { "random", bad[k].spec };
		base_opts(&o, COLL_ASYNC, 0, 0, NULL);
		o.game = bad[k].game;
		o.baselines = two;
		o.num_baselines = 2;
		err[0] = 0;
		ck_assert_int_eq(coll_new(&c, &o, err, sizeof err), LG_EINVAL);
		ck_assert_ptr_null(c);
		ck_assert_msg(strstr(err, bad[k].spec), "err: %s", err);
	}
	for (int k = 0; k <= COLL_BASELINES_MAX; k++)
		specs[k] = "random";
	base_opts(&o, COLL_ASYNC, 0, 0, NULL);
	o.baselines = specs;
	o.num_baselines = COLL_BASELINES_MAX + 1;
	ck_assert_int_eq(coll_new(&c, &o, err, sizeof err), LG_ERANGE);
	o.num_baselines = COLL_BASELINES_MAX;
	c = tu_coll_open(&o);
	coll_free(c);
	/* The default match is checked at coll_new... */
	o.num_baselines = 1;
	o.match.seat[1].baseline = 3;
	ck_assert_int_eq(coll_new(&c, &o, err, sizeof err), LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "baseline"));
	/* ...each episode's when it starts. */
	for (int m = 0; m < 2; m++) {
		base_opts(&o, m ? COLL_ASYNC : COLL_SERIAL, 0, 0, NULL);
		o.baselines = specs;
		o.num_baselines = 1;
		o.next_episode = bl3_next;
		c = tu_coll_open(&o);
		ck_assert_int_eq(coll_collect(c, 100, 20), LG_EINVAL);
		coll_free(c);
	}
}
END_TEST

/* A number field of a JSON line, or NAN. */
static double jnum(const char *line, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof k, "\"%s\":", key);
	p = strstr(line, k);
	return p ? strtod(p + strlen(k), NULL) : NAN;
}

/* The collector benchmark's rows are plausible, not just present: no
 * row beats the lower bound (beyond the jitter of 400 transitions: the
 * sum of uniform [0.4, 1.6] factors is within 9% of nominal at 5 sd),
 * every transition asked for was taken and reached the sink, one
 * inference device by default; with --real-inference the forward was
 * measured and the Python peer ran the same collection. */
START_TEST(bench_cli_json)
{
	static char out[8192], errb[4096];
	const char *argv[] = { "bench", "collector", "--env", "small",
			       "--mode", "async", "--time-scale", "0.01",
			       "--collects", "5", "--json", NULL };
	const char *bad[] = { "bench", "collector", "--mode", "fast", NULL };
	int rc = tu_run_league(out, sizeof out, errb, sizeof errb, argv);
	int rows = 0;

	ck_assert_msg(rc == 0, "rc %d: %s", rc, errb);
	for (char *line = out; line && *line; rows++) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		ck_assert_ptr_nonnull(strstr(line, "\"env\":\"small\""));
		ck_assert_ptr_nonnull(strstr(line, "\"mode\":\"async\""));
		ck_assert_double_eq(jnum(line, "inference_devices"), 1);
		ck_assert_double_eq(jnum(line, "jitter"), 0.6);
		double secs = jnum(line, "seconds");
		double lb = jnum(line, "lower_bound_s");
		ck_assert_msg(lb > 0 && secs >= 0.91 * lb, "%s", line);
		/* Both printed to 3 decimals: the ratio's rounding. */
		ck_assert_double_eq_tol(jnum(line, "ratio"), secs / lb,
					0.0006 / lb * (secs / lb + 1) + 1e-4);
		double steps = jnum(line, "steps"), tr = jnum(line, "transitions");
		ck_assert_double_ge(steps, 5 * 80);
		/* Every completed step's row reaches the sink once; rows of
		 * steps in flight at the stop (at most one per env) too. */
		ck_assert_msg(tr >= steps && tr <= steps + 8, "%s", line);
		ck_assert_double_gt(jnum(line, "forwards"), 0);
		/* Not the seed workload (5 collects): no DI-engine figure. */
		ck_assert_ptr_null(strstr(line, "di_engine"));
		line = nl ? nl + 1 : NULL;
	}
	ck_assert_int_eq(rows, 2); /* resets x1 and x5 */
	ck_assert_int_eq(tu_run_league(out, sizeof out, errb, sizeof errb,
				       bad),
			 2);
	/* A real forward pass and CPU-burning envs, beside the peer. */
	const char *real[] = { "bench", "collector", "--env", "small",
			       "--mode", "async", "--time-scale", "0.01",
			       "--collects", "5", "--real-inference", "--json",
			       NULL };
	rc = tu_run_league(out, sizeof out, errb, sizeof errb, real);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, errb);
	ck_assert_ptr_nonnull(strstr(out, "\"real_inference\":true"));
	ck_assert_double_gt(jnum(out, "infer_s"), 0); /* it measured */
	double peer = jnum(out, "peer_s");
	ck_assert_msg(peer > 0, "%s", out);
	ck_assert_double_eq_tol(jnum(out, "ratio_to_peer"),
				jnum(out, "seconds") / peer,
				0.0006 / peer * (jnum(out, "seconds") / peer + 1) +
					1e-4);
	/* The CPU floor: at least the steps' nominal burn over the cores
	 * (Small's 5 ms step at scale 0.01: 50 us; 0.0006 for the printed
	 * rounding), at most our seconds (nobody beats the CPU they burn;
	 * 5% for the jitter's sample mean over >= 400 steps, ~3 sigma), and
	 * its ratio follows from the printed fields. */
	double floor = jnum(out, "cpu_floor_s");
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	ck_assert_double_ge(floor + 0.0006,
			    jnum(out, "steps") * 50e-6 /
				    (double)(cores > 0 ? cores : 1));
	ck_assert_double_le(floor, jnum(out, "seconds") * 1.05);
	ck_assert_double_eq_tol(jnum(out, "floor_to_peer"), floor / peer,
				0.0006 / peer * (floor / peer + 1) + 1e-4);
}
END_TEST

/* ---- recurrent state --------------------------------------------------- */

#define RS_ENVS 6

/* Each seat's state counts its steps in the episode (state[0]) and
 * remembers that it was written (state[1] = 7). */
static int rs_act(void *ctx, const float *obs, const uint8_t *mask,
		  size_t n, size_t obs_len, int na, lg_rng *rng,
		  int32_t *action, float *logp, float *value, float *state)
{
	if (!state)
		return LG_EINVAL;
	for (size_t i = 0; i < n; i++) {
		state[2 * i] += 1;
		state[2 * i + 1] = 7;
	}
	return coll_policy_uniform().act(NULL, obs, mask, n, obs_len, na, rng,
					 action, logp, value, NULL);
}

struct rs_check {
	uint64_t rows, bad;
	float next[RS_ENVS][2]; /* each seat's expected count */
};

/* Every row stores the state before its step: the seat's earlier steps
 * in the episode, zeros at an episode's first step, across segments. */
static int rs_sink(void *ctx, const struct coll_segment *g)
{
	struct rs_check *k = ctx;
	const struct lg_rows *r = g->rows;

	if (r->state_len != 2 || g->env_index >= RS_ENVS) {
		k->bad++;
		return 0;
	}
	for (size_t i = 0; i < r->n; i++) {
		float *want = &k->next[g->env_index][g->seat];
		const float *st = r->state + 2 * i;
		if (st[0] != *want || st[1] != (*want > 0 ? 7.0f : 0.0f))
			k->bad++;
		*want = r->done[i] == LG_ROW_END ? 0 : *want + 1;
		k->rows++;
	}
	return 0;
}

START_TEST(recurrent_state_carried)
{
	struct rs_check k = { 0 };
	struct coll_policy pol = { .act = rs_act };
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;

	coll_opts_default(&o);
	o.game = "tictactoe";
	o.num_envs = RS_ENVS;
	o.mode = bl_modes[_i].mode;
	o.processes = bl_modes[_i].procs;
	o.wait_num = 2;
	o.segment_len = 3; /* episodes span segments */
	o.state_len = 2;
	o.policies = &pol;
	o.sink = rs_sink;
	o.sink_ctx = &k;
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 2000, 30), 0);
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	ck_assert_uint_eq(k.bad, 0);
	ck_assert_uint_eq(k.rows, st.transitions);
	ck_assert_uint_ge(k.rows, 2000);
}
END_TEST

Suite *suite_collector(void)
{
	Suite *s = suite_create("collector");
	const struct tu_test core_tests[] = {
		{ accounting_threads, 3 },
		{ accounting_processes, 3 },
		{ sync_batches_every_env, 2 },
		{ batches_per_network, 2 },
		{ per_episode_matches, 3 },
		{ sync_leader_never_waits_for_itself, 1 },
		{ fail_recovered_threads, 1 },
		{ timeout_fires_threads, 1 },
		{ crash_recovered_processes, 1 },
		{ timeout_fires_processes, 1 },
		{ children_inherit_no_held_lock, 1 },
		{ spawner_killed_is_restarted, 1 },
		{ dead_env_and_all_dead, 2 },
		{ sink_error_stops, 2 },
		{ deadline_and_policy_error, 2 },
		{ options_rejected, 1 },
		{ other_games, 3 },
		{ three_seats_one_network, 2 },
		{ bench_cli_json, 1 },
	};
	const struct tu_test baseline_tests[] = {
		{ baseline_tictactoe_minimax, 5 },
		{ baseline_connect4_alphabeta, 5 },
		{ baseline_rps_random, 5 },
		{ baseline_all_seats, 5 },
		{ baseline_rejected, 1 },
		{ recurrent_state_carried, 5 },
	};

	TU_TCASE(s, "core", 60, core_tests);
	TU_TCASE(s, "baseline", 60, baseline_tests);
	return s;
}
