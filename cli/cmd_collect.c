/*
 * cli/cmd_collect.c: `league collect --connect HOST:PORT`, the collector
 * worker.
 *
 * One env manager (collector/) runs all its envs for the life of the
 * worker; jobs feed it episode by episode through next_episode, so several
 * jobs with different players play at once and no env waits for a job to
 * be set up. Networks live in NET_SLOTS slots, one per (player,
 * version) in use, fetched from the daemon once and shared by every job
 * that plays them; a slot is refilled only when no job uses it.
 *
 * Loop of the main thread: drive the envs for a few milliseconds
 * (coll_collect), report finished jobs (JobResult, acknowledged after the
 * daemon's commit), and ask for more jobs while fewer than enough to keep
 * every env busy are open. Trajectories of learning seats go straight to
 * the learner's endpoint from the env threads (the sink), blocking on the
 * learner's credit: backpressure, never a silent drop. A segment the
 * learner cannot take (it is gone) is counted and logged.
 *
 * Liveness (cli/traj_out.c): a learner that says nothing for
 * NET_SILENT_HEARTBEATS of the daemon's heartbeat periods while a segment
 * waits for it is given up, its rows dropped and counted undeliverable,
 * and the jobs keep playing: one stopped learner costs every other
 * learner's rows at most that long, and its own player's rows until the
 * daemon names it in a job again (it registered again).
 *
 * After a reconnect (daemon restart) the open jobs are abandoned: the
 * daemon re-issued them, so their results would be stale.
 *
 * league.deterministic: one job at a time, on one env, played by an env
 * manager made for it and seeded by the job's seed (its episodes, moves
 * and samples follow from the job alone). At the job's end the manager
 * is freed (every row is out), each learning seat's learner gets an end
 * mark (an empty segment with job_end), and the result goes to the
 * daemon, which answers BUSY until the learners kept the job's rows; it
 * is sent again until it counts or goes stale.
 */
#include "cli/cli.h"
#include "collector/collector.h"
#include "net/net.h"
#include "util/util.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OPEN_JOBS 32
#define CALL_TIMEOUT_S 60.0
#define SEND_TIMEOUT_S 120.0
#define MAX_EPISODES_PER_JOB LEAGUE_JOB_EPISODES_MAX
/* Net slots; the env manager sees each twice: policy k samples slot k,
 * policy NET_SLOTS + k plays slot k greedily (evaluation seats). */
#define NET_SLOTS (COLL_NETS_MAX / 2)

struct netslot {
	nn *net;
	nn_ws *ws;
	nn_ws *gws;            /* the greedy policy's: it may run at once */
	size_t search_batch;   /* rows of a search thread's workspace */
	uint32_t player, version;
	int refs;              /* open jobs using it */
};

struct cjob {
	League__Job *msg;      /* unpacked copy */
	uint64_t serial;       /* episode tag: unique per copy of a job (a
				  re-issued job may come back under the same
				  id while the abandoned copy still plays) */
	int net[2];            /* slot per seat (-1: a baseline plays it) */
	uint32_t base[2];      /* baseline per seat: index + 1, or 0 */
	int greedy[2];         /* seat plays its most probable action */
	uint32_t handed, ended;
	double got_at;         /* lg_now_s() when taken */
	int abandoned;         /* a reconnect made its result stale */
	/* deterministic: segments sent to each seat's learner, and whether
	 * any of the job's rows could not be sent (then no end mark and no
	 * result: the job is played again when its lease ends) */
	uint32_t sent[2];
	int lost;
	League__Episode *eps;  /* [msg->episodes] */
	double *ret;           /* [episodes x 2] */
};

struct collect {
	struct cfg cfg;
	int have_cfg;
	/* league.deterministic: W->c plays the one job of serial
	 * engine_serial, and exists only while it does; opts: the manager's
	 * options, made once */
	int det;
	uint64_t engine_serial;
	struct coll_opts opts;
	struct net_client_opts co;
	net_tls *tls; /* client context (LEAGUE_TLS_*), NULL: plain */
	net_client *cl;
	coll *c;
	char host[128], name[64];
	uint16_t port;
	uint64_t envs;
	struct env_spec spec;
	struct nn_shape shape;
	const char *token;

	pthread_mutex_t mu;    /* jobs, slots' refs, counters */
	struct cjob *jobs[MAX_OPEN_JOBS];
	int njobs;
	uint64_t next_serial;
	struct netslot slots[NET_SLOTS];
	/* The league's eval.baselines and matchmaking.baselines: what a
	 * seat's `baseline` may name. */
	char base[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	const char *basep[CFG_BASELINES_MAX];
	size_t nbase;
	struct coll_policy pols[COLL_NETS_MAX];
	struct cli_traj_out out; /* learner endpoints; sink thread only */
	/* deterministic: the engine's policies, one per seat of its job */
	struct coll_policy det_pols[2];
	uint64_t jobs_done, jobs_stale, episodes, undeliverable;
	/* Set when the daemon's Shutdown ended the loop: the segments
	 * coll_free flushes then have no learner to go to (the daemon
	 * stops the learners too), so they are counted in `dropped`, not
	 * sent. A collector stopped alone (a signal) still sends them. */
	int stopping;
	uint64_t dropped;
	/* --drop (benchmarks): the sink counts every row in `dropped` and
	 * sends nothing, so `league bench pipeline` can time the collector
	 * without the learners (its collector-alone figure). */
	int drop;
	double log_every;   /* seconds between counter lines */
	uint64_t fetches;
	double t_envs, t_report, t_request; /* main loop time, for the log */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* ---- inference: one policy per net slot ------------------------------- */

static int slot_act(void *ctx, const float *obs, const uint8_t *mask,
		    size_t n, size_t obs_len, int na, lg_rng *rng,
		    int32_t *action, float *logp, float *value,
		    float *state)
{
	struct netslot *ns = ctx;

	if (!ns->net)
		return LG_EINVAL;
	return nn_act_state(ns->net, ns->ws, obs, mask, n, state, rng, action,
			    logp, value);
}

/* The search's evaluator (learner.search): n states' probabilities and
 * values through one forward in the calling thread, its workspace made
 * there on first use for the most leaves a search evaluates at once.
 * Every net a collector holds has the league's shape, so a thread's
 * workspace fits whichever net the slot holds later. */
static int slot_eval(void *ctx, void **ws, size_t n, const float *obs,
		     const uint8_t *mask, int na, float *prior, float *value)
{
	struct netslot *ns = ctx;
	int rc;

	if (!ns->net)
		return LG_EINVAL;
	if (!*ws) {
		nn_ws *w = NULL;
		if ((rc = nn_ws_new(&w, ns->net, ns->search_batch)))
			return rc;
		*ws = w;
	}
	/* more than search_batch rows: LG_EINVAL from the forward */
	return nn_probs(ns->net, *ws, obs, mask, n, prior, value);
}

static void slot_ws_free(void *ctx, void *ws)
{
	nn_ws_free(ws);
}

/* The most probable legal action (the first of equals). */
static int slot_act_greedy(void *ctx, const float *obs, const uint8_t *mask,
			   size_t n, size_t obs_len, int na, lg_rng *rng,
			   int32_t *action, float *logp, float *value,
			   float *state)
{
	struct netslot *ns = ctx;

	if (!ns->net)
		return LG_EINVAL;
	return nn_greedy_state(ns->net, ns->gws, obs, mask, n, state, action,
			       logp, value);
}

/* ---- callbacks from env threads ---------------------------------------- */

static struct cjob *job_by_serial(struct collect *W, uint64_t serial)
{
	for (int i = 0; i < W->njobs; i++)
		if (W->jobs[i]->serial == serial)
			return W->jobs[i];
	return NULL;
}

/*
 * The engine's policy for seat p of job j. Outside deterministic mode
 * the engine serves every net slot: slot k samples as policy k and plays
 * greedily as NET_SLOTS + k. In deterministic mode the engine is the
 * job's own and its policies are the job's seats (det_engine): seat 0
 * plays policy 0 and seat 1 policy 1, or 0 when it plays the same net
 * the same way. The engine forwards its policies in index order from one
 * rng, so when both seats move at once (a simultaneous-move game) who
 * draws first follows from the job, not from which slots this process's
 * earlier jobs left free (a resumed collector starts with none held).
 * A baseline seat's policy is never called: 0.
 */
static uint32_t seat_policy(const struct collect *W, const struct cjob *j,
			    int p)
{
	if (j->net[p] < 0)
		return 0;
	if (W->det)
		return p && j->net[1] == j->net[0] &&
				       j->greedy[1] == j->greedy[0]
			       ? 0
			       : (uint32_t)p;
	return j->greedy[p] ? (uint32_t)(NET_SLOTS + j->net[p])
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
		for (int p = 0; p < 2; p++) {
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
	if ((j = job_by_serial(W, ep->tag)) && j->ended < j->handed) {
		League__Episode *e = &j->eps[j->ended];
		double *r = j->ret + 2 * (size_t)j->ended;
		league__episode__init(e);
		r[0] = ep->returns[0];
		r[1] = ep->returns[1];
		e->n_returns = 2;
		e->returns = r;
		e->steps = (uint32_t)LG_MIN(ep->steps, UINT32_MAX);
		e->abnormal = ep->abnormal;
		j->ended++;
		W->episodes++;
	}
	pthread_mutex_unlock(&W->mu);
}

/* Deterministic mode: a segment of g's job went to its learner (sent) or
 * was lost. */
static void det_count(struct collect *W, const struct coll_segment *g,
		      int sent)
{
	struct cjob *j;

	if (!W->det)
		return;
	pthread_mutex_lock(&W->mu);
	if ((j = job_by_serial(W, g->tag)) && g->seat >= 0 && g->seat < 2) {
		if (sent)
			j->sent[g->seat]++;
		else
			j->lost = 1;
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
	if ((j = job_by_serial(W, g->tag)) && g->seat >= 0 && g->seat < 2) {
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
		det_count(W, g, 0);
		return 0;
	}
	rc = cli_traj_out_send(&W->out, endpoint, got_at, &h, g->rows,
			       SEND_TIMEOUT_S);
	det_count(W, g, !rc);
	if (rc)
		__atomic_add_fetch(&W->undeliverable, rows, __ATOMIC_RELAXED);
	return 0;
}

/* ---- jobs ------------------------------------------------------------- */

static void job_free(struct cjob *j)
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
	return cli_worker_call(W->cl, "collect", what, req, rep);
}

static void slot_clear(struct netslot *ns)
{
	nn_ws_free(ns->ws);
	nn_ws_free(ns->gws);
	nn_free(ns->net);
	ns->ws = ns->gws = NULL;
	ns->net = NULL;
}

/* A net slot holding (player, version), loading it if need be. Caller
 * holds no lock: slots with refs 0 are touched by no env. */
static int slot_get(struct collect *W, uint32_t player, uint32_t version,
		    int *out)
{
	int free_k = -1, rc;
	nn *net = NULL;
	nn_ws *ws = NULL, *gws = NULL;

	pthread_mutex_lock(&W->mu);
	for (int k = 0; k < NET_SLOTS; k++) {
		struct netslot *ns = &W->slots[k];
		if (ns->net && ns->player == player && ns->version == version) {
			ns->refs++;
			*out = k;
			pthread_mutex_unlock(&W->mu);
			return 0;
		}
		if (!ns->refs && (free_k < 0 || !ns->net))
			free_k = k;
	}
	if (free_k >= 0)
		W->slots[free_k].refs = 1; /* reserve it */
	pthread_mutex_unlock(&W->mu);
	if (free_k < 0)
		return LG_EFULL;
	if ((rc = cli_worker_fetch_net(W->cl, "collect", player, version,
					&W->shape, &net)))
		goto fail;
	if ((rc = nn_ws_new(&ws, net, W->envs * 2)) ||
	    (rc = nn_ws_new(&gws, net, W->envs * 2)))
		goto fail;
	W->fetches++;
	pthread_mutex_lock(&W->mu);
	struct netslot *ns = &W->slots[free_k];
	slot_clear(ns);
	ns->net = net;
	ns->ws = ws;
	ns->gws = gws;
	ns->player = player;
	ns->version = version;
	*out = free_k;
	pthread_mutex_unlock(&W->mu);
	return 0;
fail:
	nn_ws_free(ws);
	nn_ws_free(gws);
	nn_free(net);
	pthread_mutex_lock(&W->mu);
	W->slots[free_k].refs = 0;
	pthread_mutex_unlock(&W->mu);
	return rc;
}

static void slot_put(struct collect *W, int k)
{
	if (k >= 0 && W->slots[k].refs > 0)
		W->slots[k].refs--;
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
		    stop_signal || net_client_shutdown_requested(W->cl))
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

/* league.deterministic: the engine's job is over. The engine goes (its
 * threads joined, every row sent), then each learning seat's learner
 * gets the job's end mark with the number of segments it was sent. The
 * senders are the sink's, and no sink runs now. A job some of whose rows
 * were not sent gets no mark and no result (it is abandoned): its lease
 * ends and it is played again; a learner that cannot take the mark lost
 * the job's rows anyway, and the daemon plays the job again once it
 * registers anew. */
static void det_job_over(struct collect *W, struct cjob *j)
{
	struct lg_rows none = { .obs_len = W->spec.obs_len,
				.num_actions = (uint32_t)W->spec.num_actions };
	const char *sent[LEAGUE_JOB_SEATS] = { NULL };

	coll_free(W->c);
	W->c = NULL;
	W->engine_serial = 0;
	if (j->lost && !j->abandoned) {
		LG_WARN("collect: job %llu: some of its rows did not reach "
			"their learner; no result (it is played again when its "
			"lease ends)", (unsigned long long)j->msg->job_id);
		j->abandoned = 1;
	}
	for (int p = 0; p < 2 && !j->abandoned; p++) {
		const League__Seat *st = j->msg->seats[p];
		const char *ep = st->learner_endpoint;
		struct net_segment_hdr h = {
			.player = st->player, .job_id = j->msg->job_id,
			.params_version = st->params_version,
			.segment_seq = UINT64_MAX, .job_end = 1,
			.job_segments = j->sent[p],
		};
		if (!st->learning || j->base[p] || !ep || !ep[0] ||
		    (p && sent[0] && !strcmp(sent[0], ep)))
			continue;
		if (!p && j->msg->seats[1]->learning && !j->base[1] &&
		    j->msg->seats[1]->learner_endpoint &&
		    !strcmp(j->msg->seats[1]->learner_endpoint, ep))
			h.job_segments += j->sent[1]; /* one learner, both seats */
		sent[p] = ep;
		cli_traj_out_mark(&W->out, ep, &h, &none, SEND_TIMEOUT_S);
	}
}

/* Report and drop every finished job. */
static int report_done(struct collect *W)
{
	for (;;) {
		struct cjob *j = NULL;
		pthread_mutex_lock(&W->mu);
		for (int i = 0; i < W->njobs; i++) {
			struct cjob *x = W->jobs[i];
			if (x->ended == x->msg->episodes ||
			    (x->abandoned && x->ended == x->handed)) {
				j = x;
				W->jobs[i] = W->jobs[--W->njobs];
				slot_put(W, j->net[0]);
				slot_put(W, j->net[1]);
				break;
			}
		}
		pthread_mutex_unlock(&W->mu);
		if (!j)
			return 0;
		int rc = 0;
		if (W->det && j->serial == W->engine_serial)
			det_job_over(W, j);
		if (!j->abandoned) {
			League__Episode *ptrs[MAX_EPISODES_PER_JOB];
			for (uint32_t i = 0; i < j->ended; i++)
				ptrs[i] = &j->eps[i];
			rc = report(W, j->msg->job_id, ptrs, j->ended);
			if (!rc)
				W->jobs_done++;
		}
		job_free(j);
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

/* Take a job: load its nets, then offer its episodes to the envs. A job
 * that cannot be played here is reported at once with no episodes, which
 * the daemon treats as cancelled. */
static int take_job(struct collect *W, const League__Job *src)
{
	uint8_t buf[4096];
	size_t len = league__job__get_packed_size(src);
	struct cjob *j = calloc(1, sizeof *j);
	int rc = 0;

	if (!j)
		return LG_ENOMEM;
	j->net[0] = j->net[1] = -1;
	j->got_at = lg_now_s();
	if (len > sizeof buf || src->n_seats != 2 || !src->episodes ||
	    src->episodes > MAX_EPISODES_PER_JOB) {
		LG_WARN("collect: job %llu malformed (%zu seats, %u episodes)",
			(unsigned long long)src->job_id, src->n_seats,
			src->episodes);
		free(j);
		return report(W, src->job_id, NULL, 0);
	}
	pthread_mutex_lock(&W->mu);
	int full = W->njobs >= MAX_OPEN_JOBS;
	pthread_mutex_unlock(&W->mu);
	if (full) { /* only after a reconnect left abandoned jobs behind */
		free(j);
		return report(W, src->job_id, NULL, 0);
	}
	league__job__pack(src, buf);
	j->msg = league__job__unpack(NULL, len, buf);
	j->eps = calloc(src->episodes, sizeof *j->eps);
	j->ret = calloc(2 * (size_t)src->episodes, sizeof *j->ret);
	if (!j->msg || !j->eps || !j->ret) {
		job_free(j);
		return LG_ENOMEM;
	}
	for (int p = 0; p < 2 && !rc; p++) {
		const League__Seat *st = j->msg->seats[p];
		j->greedy[p] = st->greedy;
		if (st->baseline && st->baseline[0]) {
			rc = baseline_index(W, st->baseline, &j->base[p]);
			continue;
		}
		rc = slot_get(W, st->player, st->params_version, &j->net[p]);
	}
	if (rc) {
		uint64_t id = j->msg->job_id;
		pthread_mutex_lock(&W->mu);
		slot_put(W, j->net[0]);
		slot_put(W, j->net[1]);
		pthread_mutex_unlock(&W->mu);
		job_free(j);
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

/* Jobs held, abandoned ones included (they still take a place). */
static int open_jobs(struct collect *W)
{
	int n;

	pthread_mutex_lock(&W->mu);
	n = W->njobs;
	pthread_mutex_unlock(&W->mu);
	return n;
}

/* Episodes not yet handed to an env. */
static uint64_t backlog(struct collect *W)
{
	uint64_t n = 0;

	pthread_mutex_lock(&W->mu);
	for (int i = 0; i < W->njobs; i++)
		if (!W->jobs[i]->abandoned)
			n += W->jobs[i]->msg->episodes - W->jobs[i]->handed;
	pthread_mutex_unlock(&W->mu);
	return n;
}

static int request_jobs(struct collect *W, uint32_t want)
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

/* ---- connection -------------------------------------------------------- */

static int do_register(struct collect *W)
{
	League__Register rg = LEAGUE__REGISTER__INIT;

	rg.envs = (uint32_t)W->envs;
	rg.max_jobs = MAX_OPEN_JOBS;
	/* The config only the first time: the envs run on it. */
	int rc = cli_worker_register(W->cl, "collect", &rg,
				     W->have_cfg ? NULL : &W->cfg);
	if (!rc)
		W->have_cfg = 1;
	return rc;
}

/* Reconnect after the daemon went away: jobs in hand are stale now. */
static int reconnect(struct collect *W)
{
	char err[256];
	int rc;

	pthread_mutex_lock(&W->mu);
	for (int i = 0; i < W->njobs; i++)
		W->jobs[i]->abandoned = 1;
	pthread_mutex_unlock(&W->mu);
	if ((rc = net_client_reconnect(W->cl, err, sizeof err))) {
		LG_ERROR("collect: daemon unreachable: %s", err);
		return rc;
	}
	LG_INFO("collect: reconnected; open jobs abandoned");
	return do_register(W);
}

/* The env manager of the worker (deterministic mode: of job j, else
 * NULL), seeded by seed, on the options setup_envs made. */
static int engine_start(struct collect *W, const struct cjob *j,
			uint64_t seed)
{
	struct coll_opts o = W->opts;
	char err[512];
	int rc;

	o.env.seed = seed;
	if (j) {
		/* one policy per seat (seat_policy); a baseline's is never
		 * called */
		for (int p = 0; p < 2; p++) {
			int k = j->net[p] < 0 ? 0 : j->net[p];
			W->det_pols[p] = W->pols[(j->greedy[p] ? NET_SLOTS : 0) +
						 k];
		}
		o.policies = W->det_pols;
		o.num_policies = 2;
	}
	if ((rc = coll_new(&W->c, &o, err, sizeof err))) {
		LG_ERROR("collect: %s", err);
		return rc;
	}
	return 0;
}

static int setup_envs(struct collect *W)
{
	struct coll_opts o;
	char err[512];
	env *e;
	int rc;

	league_coll_opts(&W->cfg, W->envs, &o);
	if ((rc = env_new(&e, o.game, &o.env, err, sizeof err))) {
		LG_ERROR("collect: game %s: %s", W->cfg.env.name, err);
		return rc;
	}
	W->spec = *env_spec_of(e);
	env_free(e);
	if (W->spec.players != 2) {
		LG_ERROR("collect: game %s has %d players; jobs have two seats",
			 W->cfg.env.name, W->spec.players);
		return LG_EUNSUPP;
	}
	league_nn_shape(&W->cfg, &W->spec, &W->shape);
	/* The search's forwards run in every env thread at once:
	 * BLAS threads of their own would only contend for the cores (as in
	 * `league eval search`). */
	if (o.search.sims)
		nn_set_threads(1);
	for (int k = 0; k < NET_SLOTS; k++)
		W->slots[k].search_batch = o.search.batch ? o.search.batch : 1;
	for (int k = 0; k < NET_SLOTS; k++) {
		struct coll_policy p = { .act = slot_act, .ctx = &W->slots[k],
					 .max_calls = 1, .eval = slot_eval,
					 .ws_free = slot_ws_free };
		W->pols[k] = p;
		p.act = slot_act_greedy;
		W->pols[NET_SLOTS + k] = p;
	}
	o.policies = W->pols;
	o.num_policies = COLL_NETS_MAX;
	if (cfg_all_baselines(&W->cfg, W->base, &W->nbase, err, sizeof err)) {
		LG_ERROR("collect: baselines: %s", err);
		return LG_ECONFIG;
	}
	for (size_t i = 0; i < W->nbase; i++)
		W->basep[i] = W->base[i];
	o.baselines = W->basep;
	o.num_baselines = W->nbase;
	o.sink = sink;
	o.sink_ctx = W;
	o.result = on_episode;
	o.result_ctx = W;
	o.next_episode = next_episode;
	o.episode_ctx = W;
	W->opts = o;
	/* Different collectors play different episodes; deterministic: the
	 * job's seed, when it comes. */
	if (!W->det && (rc = engine_start(W, NULL, W->cfg.league.seed ^
					      (uint64_t)getpid() << 20 ^
					      (uint64_t)(lg_now_s() * 1e6))))
		return rc;
	LG_INFO("collect: %zu envs of %s (%s mode)%s", o.num_envs, o.game,
		coll_mode_name(o.mode), W->det ? ", deterministic: an env "
		"manager per job, seeded by it" : "");
	return 0;
}

/* Deterministic mode: a job came and no engine plays: one for it. */
static int det_engine(struct collect *W)
{
	struct cjob *j = NULL;

	pthread_mutex_lock(&W->mu);
	for (int i = 0; i < W->njobs && !j; i++)
		if (!W->jobs[i]->abandoned)
			j = W->jobs[i];
	pthread_mutex_unlock(&W->mu);
	if (!j)
		return 0;
	/* only this thread takes jobs off the list (report_done) */
	W->engine_serial = j->serial;
	return engine_start(W, j, j->msg->seed);
}

static int collect_loop(struct collect *W)
{
	double last_log = lg_now_s(), idle_until = 0;
	uint64_t last_steps = 0;
	int rc = 0;

	while (!stop_signal && !net_client_shutdown_requested(W->cl)) {
		double t0 = lg_now_s();
		if (W->det && !W->c && (rc = det_engine(W)))
			return rc;
		if (W->c)
			rc = coll_collect(W->c, 1u << 20, 0.005);
		else
			usleep(1000);
		if (rc && rc != LG_ETIMEOUT) {
			LG_ERROR("collect: env manager: %s", lg_strerror(rc));
			return rc;
		}
		double t1 = lg_now_s();
		rc = report_done(W);
		double t2 = lg_now_s();
		W->t_envs += t1 - t0;
		W->t_report += t2 - t1;
		/* Keep a job's worth of episodes waiting beyond what the
		 * envs play, so no env idles between jobs. */
		double now = lg_now_s();
		if (!rc && now >= idle_until &&
		    (W->det ? !open_jobs(W)
			    : backlog(W) < W->envs &&
				      open_jobs(W) < MAX_OPEN_JOBS / 2)) {
			int got = request_jobs(W, W->det ? 1 : 2);
			if (got == 0)
				idle_until = now + 0.05; /* nothing to do */
			rc = got < 0 ? got : 0;
			W->t_request += lg_now_s() - now;
		}
		if (rc == LG_ECLOSED || rc == LG_ETIMEOUT) {
			/* A Shutdown may sit unread behind the close. */
			net_client_poll(W->cl);
			if (stop_signal ||
			    net_client_shutdown_requested(W->cl))
				break;
			if ((rc = reconnect(W)))
				return rc;
			continue;
		}
		if (rc)
			return rc;
		if (now - last_log >= W->log_every && W->c) {
			struct coll_stats st;
			coll_stats(W->c, &st);
			/* `league bench pipeline` reads the totals at the end
			 * of this line: keep their wording. */
			LG_INFO("collect: %.0f steps/s, %llu episodes, %llu "
				"jobs (%llu stale), %llu net fetches, %llu "
				"transitions undeliverable; time in envs %.0f%%, "
				"reporting %.0f%%, requesting %.0f%%; totals: "
				"%llu steps, %llu rows",
				(double)(st.steps - last_steps) /
					(now - last_log),
				(unsigned long long)W->episodes,
				(unsigned long long)W->jobs_done,
				(unsigned long long)W->jobs_stale,
				(unsigned long long)W->fetches,
				(unsigned long long)W->undeliverable,
				100 * W->t_envs / (now - last_log),
				100 * W->t_report / (now - last_log),
				100 * W->t_request / (now - last_log),
				(unsigned long long)st.steps,
				(unsigned long long)st.transitions);
			W->t_envs = W->t_report = W->t_request = 0;
			last_steps = st.steps;
			last_log = now;
		}
	}
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "connect", required_argument, NULL, 'c' },
		{ "envs", required_argument, NULL, 'e' },
		{ "name", required_argument, NULL, 'n' },
		{ "drop", no_argument, NULL, 'D' },
		{ "log-every", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	static struct collect W;
	const char *connect = NULL;
	unsigned long long envs = 0;
	char err[512];
	int ch, rc;

	memset(&W, 0, sizeof W);
	W.token = getenv("LEAGUE_TOKEN");
	W.log_every = 10;
	while ((ch = cli_getopt(argc, argv, "collect", "", opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'c': connect = optarg; break;
		case 'n': snprintf(W.name, sizeof W.name, "%s", optarg); break;
		case 'D': W.drop = 1; break;
		case 'L':
			if (cli_opt_double("collect", "--log-every", optarg,
					   0.05, 86400, &W.log_every))
				return CLI_USAGE;
			break;
		case 'e':
			if (cli_opt_u64("collect", "--envs", optarg, 1,
					COLL_ENVS_MAX, &envs))
				return CLI_USAGE;
			break;
		}
	}
	if (optind != argc)
		return cli_usage_error("collect", "unexpected argument '%s'",
				       argv[optind]);
	if ((rc = cli_worker_address("collect", connect, W.host,
				      sizeof W.host, &W.port)))
		return rc;
	if (!W.name[0])
		snprintf(W.name, sizeof W.name, "collector.%ld",
			 (long)getpid());
	if ((rc = cli_worker_tls("league collect", &W.tls, NULL, 0)))
		return rc;
	cli_worker_signals(W.name, on_signal);
	cli_worker_fatal_signals();
	pthread_mutex_init(&W.mu, NULL);

	W.co = (struct net_client_opts){
		.host = W.host, .port = W.port, .token = W.token,
		.tls = W.tls,
		.role = LEAGUE__ROLE__ROLE_COLLECTOR, .name = W.name,
		.give_up_s = 60,
	};
	if ((rc = net_client_connect(&W.cl, &W.co, err, sizeof err))) {
		fprintf(stderr, "league collect: %s\n", err);
		return rc == LG_EAUTH || rc == LG_EVERSION ? CLI_USAGE
							   : CLI_FAIL;
	}
	W.out = (struct cli_traj_out){
		.token = W.token, .name = W.name, .tls = W.tls,
		.silent_s = NET_SILENT_HEARTBEATS *
			    net_client_heartbeat_s(W.cl),
		.undeliverable = &W.undeliverable,
	};
	W.envs = 8;
	if (!(rc = do_register(&W))) {
		W.envs = envs ? envs : W.cfg.collectors.envs;
		W.det = W.cfg.league.deterministic;
		if (W.det && W.envs != 1) {
			LG_WARN("collect: league.deterministic plays one env; "
				"--envs %llu not used",
				(unsigned long long)W.envs);
			W.envs = 1;
		}
		rc = setup_envs(&W);
	}
	if (!rc)
		rc = collect_loop(&W);
	if (W.cl && net_client_shutdown_requested(W.cl))
		__atomic_store_n(&W.stopping, 1, __ATOMIC_RELEASE);
	coll_free(W.c);
	LG_INFO("collect: stops: %llu jobs, %llu episodes, %llu stale, %llu "
		"transitions undeliverable, %llu dropped at the stop",
		(unsigned long long)W.jobs_done,
		(unsigned long long)W.episodes,
		(unsigned long long)W.jobs_stale,
		(unsigned long long)W.undeliverable,
		(unsigned long long)W.dropped);
	for (int i = 0; i < W.njobs; i++)
		job_free(W.jobs[i]);
	for (int k = 0; k < NET_SLOTS; k++)
		slot_clear(&W.slots[k]);
	cli_traj_out_close(&W.out);
	net_client_close(W.cl);
	net_tls_free(W.tls);
	return rc == LG_ECONFIG || rc == LG_EUNSUPP ? CLI_USAGE
	       : rc				    ? CLI_FAIL
						    : CLI_OK;
}

const struct cli_cmd cli_cmd_collect = {
	.name = "collect",
	.summary = "run a collector worker (many envs, batched inference)",
	.help =
	"usage: league collect --connect HOST:PORT [--envs N] [--name NAME]\n"
	"                      [--log-every S] [--drop]\n\n"
	"Plays the jobs the daemon at HOST:PORT hands out: many envs at once,\n"
	"one batched forward per network, several jobs in flight; reports\n"
	"every job's episodes to the daemon and streams the learning seats'\n"
	"trajectories to their learners. Game and env manager settings come\n"
	"from the daemon's config (collectors.*). Reconnects with backoff\n"
	"when the daemon restarts.\n\n"
	"  --envs N      envs to run (default collectors.envs)\n"
	"  --name NAME   label in daemon logs\n"
	"  --log-every S seconds between counter lines in the log (default\n"
	"                10)\n"
	"  --drop        benchmarks: count the learning rows and drop them\n"
	"                instead of sending them to the learners\n\n"
	"Token: $LEAGUE_TOKEN.\n",
	.run = run,
};
