/*
 * workers/collect_jobs.c: the collector's jobs. A job is taken (its nets
 * loaded into slots, its baselines named), its episodes are handed to the
 * env manager one by one through next_episode, so several jobs with
 * different players play at once and no env waits for a job to be set
 * up; each finished episode's returns are kept, the learning seats'
 * segments go to their learners from the env threads (the sink), and a
 * job whose episodes all ended is reported (JobResult) and dropped.
 *
 * W->mu guards the job list, the slots' references and the counters; the
 * env threads take it in the callbacks, the main thread around the list.
 */
#include "workers/workers_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- callbacks from env threads ---------------------------------------- */

struct cjob *worker_job_by_serial(struct collect *W, uint64_t serial)
{
	for (int i = 0; i < W->njobs; i++)
		if (W->jobs[i]->serial == serial)
			return W->jobs[i];
	return NULL;
}

/*
 * The engine's policy for seat p of job j. Outside deterministic mode
 * the engine serves every net slot: slot k samples as policy k and plays
 * greedily as COLLECT_NET_SLOTS + k, so the seats that play one (player,
 * version) the same way, in this job and in others, are one policy and
 * their rows one batch. In deterministic mode the engine is the job's
 * own and its policies are the job's seats (worker_det_engine): seat p
 * plays policy q, the first seat that plays the same net the same way
 * (p itself when no seat before it does; with two seats: seat 0 policy
 * 0, seat 1 policy 1, or 0). The engine forwards its policies in index
 * order from one rng, so when several seats move at once (a
 * simultaneous-move game) who draws first follows from the job, not
 * from which slots this process's earlier jobs left free (a resumed
 * collector starts with none held). A baseline seat's policy is never
 * called: 0.
 */
static uint32_t seat_policy(const struct collect *W, const struct cjob *j,
			    int p)
{
	int q = 0;

	if (j->net[p] < 0)
		return 0;
	if (W->det) {
		while (q < p && (j->net[q] != j->net[p] ||
				 j->greedy[q] != j->greedy[p]))
			q++;
		return (uint32_t)q;
	}
	return j->greedy[p] ? (uint32_t)(COLLECT_NET_SLOTS + j->net[p])
			    : (uint32_t)j->net[p];
}

static int next_episode(void *ctx, size_t env_index, struct coll_match *m,
			uint64_t *tag)
{
	struct collect *W = ctx;
	int got = 0;

	pthread_mutex_lock(&W->mu);
	for (int i = 0; i < W->njobs && !got; i++) {
		struct cjob *j = W->jobs[i];
		if (j->abandoned || j->handed >= j->msg->episodes ||
		    (W->det && j->serial != W->engine_serial))
			continue;
		j->handed++;
		for (int p = 0; p < (int)j->msg->n_seats; p++) {
			League__Seat *s = j->msg->seats[p];
			m->seat[p] = (struct coll_seat){
				.player = s->player,
				.net = seat_policy(W, j, p),
				.learning = s->learning && !j->base[p],
				.baseline = j->base[p],
			};
		}
		*tag = j->serial;
		got = 1;
	}
	pthread_mutex_unlock(&W->mu);
	return got;
}

static void on_episode(void *ctx, const struct coll_episode *ep)
{
	struct collect *W = ctx;
	struct cjob *j;

	pthread_mutex_lock(&W->mu);
	if ((j = worker_job_by_serial(W, ep->tag)) && j->ended < j->handed) {
		League__Episode *e = &j->eps[j->ended];
		size_t n = j->msg->n_seats;
		double *r = j->ret + n * j->ended;
		league__episode__init(e);
		memcpy(r, ep->returns, n * sizeof *r); /* every seat's */
		e->n_returns = n;
		e->returns = r;
		e->steps = (uint32_t)LG_MIN(ep->steps, UINT32_MAX);
		e->abnormal = ep->abnormal;
		j->ended++;
		W->episodes++;
	}
	pthread_mutex_unlock(&W->mu);
}

/* A finished segment: to its learner, encoded straight from the
 * collector's trajectory block (net_traj_send). */
static int sink(void *ctx, const struct coll_segment *g)
{
	struct collect *W = ctx;
	struct net_segment_hdr h = {
		.player = g->player, .env_index = g->env_index,
		.segment_seq = g->segment_seq,
	};
	char endpoint[160] = "";
	size_t rows = g->rows->n;
	double got_at = 0;
	struct cjob *j;
	int rc;

	pthread_mutex_lock(&W->mu);
	if ((j = worker_job_by_serial(W, g->tag)) && g->seat >= 0 &&
	    (size_t)g->seat < j->msg->n_seats) {
		League__Seat *s = j->msg->seats[g->seat];
		h.job_id = j->msg->job_id;
		snprintf(endpoint, sizeof endpoint, "%s",
			 s->learner_endpoint ? s->learner_endpoint : "");
		h.params_version = s->params_version;
		got_at = j->got_at;
	}
	pthread_mutex_unlock(&W->mu);
	if (W->drop || __atomic_load_n(&W->stopping, __ATOMIC_ACQUIRE)) {
		__atomic_add_fetch(&W->dropped, rows, __ATOMIC_RELAXED);
		return 0;
	}
	if (!endpoint[0]) {
		__atomic_add_fetch(&W->undeliverable, rows, __ATOMIC_RELAXED);
		worker_det_count(W, g, 0);
		return 0;
	}
	rc = worker_traj_out_send(&W->out, endpoint, got_at, &h, g->rows,
				  COLLECT_SEND_TIMEOUT_S);
	worker_det_count(W, g, !rc);
	if (rc)
		__atomic_add_fetch(&W->undeliverable, rows, __ATOMIC_RELAXED);
	return 0;
}

void worker_jobs_hook(struct collect *W, struct coll_opts *o)
{
	o->sink = sink;
	o->sink_ctx = W;
	o->result = on_episode;
	o->result_ctx = W;
	o->next_episode = next_episode;
	o->episode_ctx = W;
}

/* ---- jobs ------------------------------------------------------------- */

void worker_job_free(struct cjob *j)
{
	if (!j)
		return;
	league__job__free_unpacked(j->msg, NULL);
	free(j->eps);
	free(j->ret);
	free(j);
}

static int call(struct collect *W, net_msg *req, net_msg **rep,
		const char *what)
{
	return worker_call(W->cl, "collect", what, req, rep);
}

/* Report a job as played (or as unplayable, with no episodes). */
static int report(struct collect *W, uint64_t job_id, League__Episode **eps,
		  size_t n)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__JobResult jr = LEAGUE__JOB_RESULT__INIT;
	int rc;

	jr.job_id = job_id;
	jr.n_episodes = n;
	jr.episodes = eps;
	req.body_case = LEAGUE__ENVELOPE__BODY_JOB_RESULT;
	req.job_result = &jr;
	for (;;) {
		if ((rc = call(W, &req, &r, "job result")))
			return rc;
		/* deterministic: the learners have not kept the rows yet */
		if (r->body_case != LEAGUE__ENVELOPE__BODY_ACK ||
		    r->ack->status != LEAGUE__STATUS__STATUS_BUSY ||
		    worker_stopping(W->cl))
			break;
		net_msg_free(r);
		usleep(2000);
	}
	if (r->body_case == LEAGUE__ENVELOPE__BODY_ACK &&
	    r->ack->status == LEAGUE__STATUS__STATUS_STALE)
		W->jobs_stale++;
	else if (r->body_case != LEAGUE__ENVELOPE__BODY_ACK ||
		 r->ack->status != LEAGUE__STATUS__STATUS_OK)
		LG_WARN("collect: job %llu result: %s",
			(unsigned long long)job_id,
			r->body_case == LEAGUE__ENVELOPE__BODY_ACK
				? r->ack->error
				: net_msg_name(r));
	net_msg_free(r);
	return 0;
}

void worker_job_put_slots(struct collect *W, struct cjob *j)
{
	for (int p = 0; p < ENV_MAX_PLAYERS; p++)
		worker_slot_put(W, j->net[p]);
}

/* A finished job off the list (its slots given back), or NULL. */
static struct cjob *take_finished(struct collect *W)
{
	struct cjob *j = NULL;

	pthread_mutex_lock(&W->mu);
	for (int i = 0; i < W->njobs; i++) {
		struct cjob *x = W->jobs[i];
		if (x->ended == x->msg->episodes ||
		    (x->abandoned && x->ended == x->handed)) {
			j = x;
			W->jobs[i] = W->jobs[--W->njobs];
			worker_job_put_slots(W, j);
			break;
		}
	}
	pthread_mutex_unlock(&W->mu);
	return j;
}

int worker_jobs_report(struct collect *W)
{
	for (;;) {
		struct cjob *j = take_finished(W);
		if (!j)
			return 0;
		int rc = 0;
		if (W->det && j->serial == W->engine_serial)
			worker_det_job_over(W, j);
		if (!j->abandoned) {
			League__Episode *ptrs[COLLECT_MAX_EPISODES_PER_JOB];
			for (uint32_t i = 0; i < j->ended; i++)
				ptrs[i] = &j->eps[i];
			rc = report(W, j->msg->job_id, ptrs, j->ended);
			if (!rc)
				W->jobs_done++;
		}
		worker_job_free(j);
		if (rc)
			return rc;
	}
}

/* A seat's baseline by name: index + 1 into W->base. LG_EINVAL for one
 * this league neither evaluates nor trains against (then the job is
 * refused). */
static int baseline_index(struct collect *W, const char *name, uint32_t *out)
{
	for (size_t i = 0; i < W->nbase; i++)
		if (!strcmp(W->base[i], name)) {
			*out = (uint32_t)i + 1;
			return 0;
		}
	LG_WARN("collect: job names baseline '%s', not one of the league's "
		"baselines", name);
	return LG_EINVAL;
}

/* j's seats: a baseline's index, or a slot holding the seat's net. 0, or
 * the first seat's error (the slots taken so far stay in j->net). */
static int job_seats(struct collect *W, struct cjob *j)
{
	int rc = 0;

	for (int p = 0; p < (int)j->msg->n_seats && !rc; p++) {
		const League__Seat *st = j->msg->seats[p];
		j->greedy[p] = st->greedy;
		if (st->baseline && st->baseline[0]) {
			rc = baseline_index(W, st->baseline, &j->base[p]);
			continue;
		}
		rc = worker_slot_get(W, st->player, st->params_version,
				     &j->net[p]);
	}
	return rc;
}

/* Take a job: load its nets, then offer its episodes to the envs. A job
 * that cannot be played here is reported at once with no episodes, which
 * the daemon treats as cancelled: one whose seats are not the game's
 * players, one with no episodes or too many. */
static int take_job(struct collect *W, const League__Job *src)
{
	uint8_t buf[4096];
	size_t len = league__job__get_packed_size(src);
	struct cjob *j = calloc(1, sizeof *j);
	int rc;

	if (!j)
		return LG_ENOMEM;
	for (int p = 0; p < ENV_MAX_PLAYERS; p++)
		j->net[p] = -1;
	j->got_at = lg_now_s();
	if (len > sizeof buf || src->n_seats != (size_t)W->spec.players ||
	    !src->episodes || src->episodes > COLLECT_MAX_EPISODES_PER_JOB) {
		LG_WARN("collect: job %llu malformed (%zu seats, the game has "
			"%d; %u episodes)", (unsigned long long)src->job_id,
			src->n_seats, W->spec.players, src->episodes);
		free(j);
		return report(W, src->job_id, NULL, 0);
	}
	pthread_mutex_lock(&W->mu);
	int full = W->njobs >= COLLECT_MAX_OPEN_JOBS;
	pthread_mutex_unlock(&W->mu);
	if (full) { /* only after a reconnect left abandoned jobs behind */
		free(j);
		return report(W, src->job_id, NULL, 0);
	}
	league__job__pack(src, buf);
	j->msg = league__job__unpack(NULL, len, buf);
	j->eps = calloc(src->episodes, sizeof *j->eps);
	j->ret = calloc(src->n_seats * src->episodes, sizeof *j->ret);
	if (!j->msg || !j->eps || !j->ret) {
		worker_job_free(j);
		return LG_ENOMEM;
	}
	if ((rc = job_seats(W, j))) {
		uint64_t id = j->msg->job_id;
		pthread_mutex_lock(&W->mu);
		worker_job_put_slots(W, j);
		pthread_mutex_unlock(&W->mu);
		worker_job_free(j);
		if (rc == LG_ECLOSED || rc == LG_ETIMEOUT)
			return rc;
		return report(W, id, NULL, 0);
	}
	pthread_mutex_lock(&W->mu);
	j->serial = ++W->next_serial;
	W->jobs[W->njobs++] = j;
	pthread_mutex_unlock(&W->mu);
	return 0;
}

int worker_jobs_open(struct collect *W)
{
	int n;

	pthread_mutex_lock(&W->mu);
	n = W->njobs;
	pthread_mutex_unlock(&W->mu);
	return n;
}

uint64_t worker_jobs_backlog(struct collect *W)
{
	uint64_t n = 0;

	pthread_mutex_lock(&W->mu);
	for (int i = 0; i < W->njobs; i++)
		if (!W->jobs[i]->abandoned)
			n += W->jobs[i]->msg->episodes - W->jobs[i]->handed;
	pthread_mutex_unlock(&W->mu);
	return n;
}

int worker_jobs_request(struct collect *W, uint32_t want)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__JobRequest jq = LEAGUE__JOB_REQUEST__INIT;
	int rc;

	jq.max_jobs = want;
	req.body_case = LEAGUE__ENVELOPE__BODY_JOB_REQUEST;
	req.job_request = &jq;
	if ((rc = call(W, &req, &r, "job request")))
		return rc;
	if (r->body_case != LEAGUE__ENVELOPE__BODY_JOBS) {
		net_msg_free(r);
		return 0;
	}
	for (size_t i = 0; i < r->jobs->n_jobs && !rc; i++)
		rc = take_job(W, r->jobs->jobs[i]);
	rc = rc ? rc : (int)r->jobs->n_jobs;
	net_msg_free(r);
	return rc;
}
