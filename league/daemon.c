/*
 * league/daemon.c: the league manager's lifecycle and dispatch (see
 * daemon.h; daemon_internal.h maps the files beside it).
 *
 * Shape: one libevent loop. Each message goes to its handler, which ends
 * in exactly one reply; replies wait in d->out until the end of the loop
 * turn, when daemon_commit() commits the turn's write batch (the brain's
 * records and every handler's) in one transaction and only then sends
 * them. So nothing is acknowledged before it is on disk, and a burst
 * from many collectors costs one commit, not one per message.
 *
 * Jobs: each kind (kinds.c) makes its own, typed (league/job.h); this
 * file leases them, packs them for the wire when a collector takes them,
 * and takes their results back through the steps every kind shares.
 */
#include "league/daemon_internal.h"
#include "conf/options.h"
#include "server/series.h"
#include "util/list.h"

#include <errno.h>
#include <event2/event.h>
#include <math.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the reply queue and the turn's commit ------------------------------ */

struct pending {
	league_session *ss; /* NULL once the session is gone */
	uint8_t *frame;
	size_t len;
};

void daemon_reply(league_daemon *d, league_session *ss, const net_msg *m)
{
	lg_buf b = { 0 };

	if (d->nout == d->capout) {
		size_t cap = d->capout ? d->capout * 2 : 64;
		struct pending *p = realloc(d->out, sizeof(*p) * cap);
		if (!p) {
			league_session_close(ss, "out of memory");
			return;
		}
		d->out = p;
		d->capout = cap;
	}
	if (net_frame_encode(m, &b)) {
		lg_buf_free(&b);
		league_session_close(ss, "out of memory");
		return;
	}
	d->out[d->nout++] = (struct pending){ ss, b.data, b.len };
	if (d->nout == 1)
		event_active(d->flush_ev, EV_TIMEOUT, 0);
}

void daemon_ack(league_daemon *d, league_session *ss, uint64_t reply_to,
		int status, const char *error, uint64_t id, int reset)
{
	net_msg m = LEAGUE__ENVELOPE__INIT;
	League__Ack a = LEAGUE__ACK__INIT;

	a.status = (League__Status)status;
	a.error = (char *)(uintptr_t)(error ? error : "");
	a.id = id;
	a.reset = reset;
	m.reply_to = reply_to;
	m.body_case = LEAGUE__ENVELOPE__BODY_ACK;
	m.ack = &a;
	daemon_reply(d, ss, &m);
}

static void drop_replies(league_daemon *d)
{
	for (size_t i = 0; i < d->nout; i++)
		free(d->out[i].frame);
	d->nout = 0;
}

double daemon_run_seconds(const league_daemon *d)
{
	return d->seconds_before + (lg_now_s() - d->started);
}

/* The counters kept in meta (daemon.KEY), so `league players` shows
 * them; daemon.run_ms, the league's run time, is beside them. */
static const struct {
	const char *key;
	size_t off;
} counters[] = {
	{ "daemon.env_steps", offsetof(league_daemon, env_steps) },
	{ "daemon.jobs_done", offsetof(league_daemon, jobs_done) },
	{ "daemon.episodes", offsetof(league_daemon, episodes) },
	{ "daemon.abnormal", offsetof(league_daemon, abnormal) },
	{ "daemon.invalid_episodes",
	  offsetof(league_daemon, invalid_episodes) },
};

static uint64_t *counter(league_daemon *d, size_t i)
{
	return (uint64_t *)(void *)((char *)d + counters[i].off);
}

/* The counters, into the batch (meta, so `league players` shows them). */
static void counters_put(league_daemon *d)
{
	for (size_t i = 0; i < LG_ARRAY_LEN(counters); i++)
		store_batch_meta_u64(&d->wb, counters[i].key, *counter(d, i));
	store_batch_meta_u64(&d->wb, "daemon.run_ms",
			     (uint64_t)(daemon_run_seconds(d) * 1000));
}

/* The turn's transaction: the batch (the handlers' records, the
 * brain's per-call records, the counters), then the brain's state.
 * Repeatable (store_update runs it again in a grown map). */
static int turn_fn(store_txn *t, void *arg)
{
	league_daemon *d = arg;
	int rc;

	if ((rc = store_batch_apply(&d->wb, t)))
		return rc;
	return brain_write(d->br, t);
}

/*
 * Commit the turn: the counters when they changed, the brain's state and
 * everything in the batch, in one transaction the daemon owns. 0, or the
 * error, after which nothing of the turn is on disk and it all stays
 * pending.
 */
static int daemon_commit(league_daemon *d)
{
	int rc;

	if (d->failed)
		return d->failed;
	if (d->counters_dirty)
		counters_put(d);
	if ((rc = store_update(d->st, turn_fn, d)))
		return rc;
	store_batch_clear(&d->wb);
	brain_written(d->br);
	d->counters_dirty = 0;
	d->commits++;
	return 0;
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	league_daemon *d = arg;
	int rc = daemon_commit(d);

	if (rc) {
		/* Nothing of this turn is on disk: acknowledge none of it. */
		drop_replies(d);
		if (!d->failed)
			daemon_fail(d, rc, "commit");
		return;
	}
	for (size_t i = 0; i < d->nout; i++)
		if (d->out[i].ss)
			league_session_send_frame(d->out[i].ss,
						  d->out[i].frame,
						  d->out[i].len);
	drop_replies(d);
}

void daemon_fail(league_daemon *d, int rc, const char *what)
{
	LG_ERROR("daemon: %s: %s; stopping (the league on disk is intact%s)",
		 what, lg_strerror(rc),
		 rc == LG_ENOSPACE ? ": free space in its directory's file "
				     "system, then --resume" : "");
	d->failed = rc;
	league_daemon_stop(d, "storage failure");
}

/* The counters and the run time a resumed league had. */
static int counters_load(league_daemon *d)
{
	store_txn *t;
	uint64_t ms = 0;
	int rc;

	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	for (size_t i = 0; i < LG_ARRAY_LEN(counters); i++)
		store_meta_get_u64(t, counters[i].key, counter(d, i));
	store_meta_get_u64(t, "daemon.run_ms", &ms);
	store_txn_abort(t);
	d->seconds_before = (double)ms / 1000;
	return 0;
}

/* ---- budget ------------------------------------------------------------- */

void daemon_check_budget(league_daemon *d)
{
	const struct cfg *c = &d->cfg;
	const char *why = NULL;

	if (d->stopping)
		return;
	if (c->budget.env_steps && d->env_steps >= c->budget.env_steps)
		why = "budget: env_steps reached";
	else if (c->budget.jobs && d->jobs_done >= c->budget.jobs)
		why = "budget: jobs reached";
	else if (c->budget.seconds > 0 &&
		 daemon_run_seconds(d) >= c->budget.seconds)
		why = "budget: seconds reached";
	else if (c->budget.snapshots &&
		 brain_snapshot_count(d->br) >= c->budget.snapshots)
		why = "budget: snapshots reached";
	if (why) {
		LG_INFO("daemon: %s (env steps %llu, jobs %llu, %.1f s)", why,
			(unsigned long long)d->env_steps,
			(unsigned long long)d->jobs_done,
			daemon_run_seconds(d));
		league_daemon_stop(d, why);
	}
}

/* ---- jobs: what every kind shares ---------------------------------------- */

uint64_t daemon_job_id(league_daemon *d)
{
	return LEAGUE_JOB_DAEMON_BIT | (uint64_t)d->epoch << 32 |
	       d->next_id++;
}

uint64_t daemon_job_seed(const league_daemon *d, uint64_t job_id)
{
	return lg_mix64(d->cfg.league.seed ^ lg_mix64(job_id));
}

void *daemon_kind_state(const league_daemon *d, const struct league_kind *k)
{
	for (size_t i = 0; i < d->nkinds; i++)
		if (d->kinds[i] == k)
			return d->kstate[i];
	return NULL;
}

uint8_t daemon_baseline_index(const league_daemon *d, const char *name)
{
	for (size_t i = 0; i < d->nbaselines; i++)
		if (!strcmp(d->baselines[i], name))
			return (uint8_t)(i + 1);
	return 0;
}

int daemon_queue_job(league_daemon *d, const struct league_job *j)
{
	int rc = league_leases_enqueue(d->leases, j);

	if (rc)
		return rc;
	for (size_t i = 0; i < d->nkinds; i++)
		if (d->kinds[i]->queued)
			d->kinds[i]->queued(d, d->kstate[i], j);
	return 0;
}

/* The wire Job for j, into the caller's structs: its seats
 * (league_job_seats, the game's players), each naming who plays it.
 * Learning seats stream to wherever their learner listens now, so a job
 * queued before its learner (re)registered learns the endpoint here; a
 * learner that is not connected leaves it empty (the collector counts
 * those transitions as undeliverable; the games still count). Strings
 * point into d. */
static void job_pack(league_daemon *d, const struct league_job *j,
		     League__Job *w, League__Seat seat[LEAGUE_JOB_SEATS],
		     League__Seat *seats[LEAGUE_JOB_SEATS])
{
	const char *base = NULL;
	int n = league_job_seats(j);

	*w = (League__Job)LEAGUE__JOB__INIT;
	for (int i = 0; i < n; i++) {
		const struct league_seat *s = &j->seat[i];
		struct learner *l = daemon_learner(d, s->player);
		seat[i] = (League__Seat)LEAGUE__SEAT__INIT;
		seats[i] = &seat[i];
		seat[i].player = s->player;
		seat[i].params_version = s->version;
		seat[i].learning = s->learning;
		seat[i].greedy = s->greedy;
		seat[i].learner_endpoint =
			s->learning && l && l->owner ? l->endpoint : "";
		if (s->baseline) {
			base = d->baselines[s->baseline - 1];
			seat[i].baseline = (char *)(uintptr_t)base;
		}
	}
	w->job_id = j->id;
	w->n_seats = (size_t)n;
	w->seats = seats;
	w->episodes = j->episodes;
	w->lease_s = j->lease_s;
	w->seed = daemon_job_seed(d, j->id);
	w->evaluation = j->evaluation;
	if (base)
		w->baseline = (char *)(uintptr_t)base;
}

/*
 * How many jobs session ss may take now, at most want: what is left of
 * the max_jobs it registered (1 when it did not) and of
 * server.max_jobs_in_flight. Expired leases are re-queued first, so they
 * no longer count. When nothing is left, *why says which cap is full.
 */
static size_t job_allowance(league_daemon *d, league_session *ss,
			    const struct sess_data *sd, size_t want,
			    const char **why)
{
	size_t cap = sd && sd->max_jobs ? sd->max_jobs : 1;
	size_t held = league_leases_held(d->leases, league_session_id(ss));
	size_t all = league_leases_active(d->leases);
	size_t server = d->cfg.server.max_jobs_in_flight;

	*why = "";
	if (held >= cap) {
		*why = "this session holds the max_jobs it registered: report "
		       "a result first";
		return 0;
	}
	if (all >= server) {
		*why = "the daemon holds server.max_jobs_in_flight jobs: try "
		       "again later";
		return 0;
	}
	want = want < cap - held ? want : cap - held;
	return want < server - all ? want : server - all;
}

static void on_job_request(league_daemon *d, league_session *ss,
			   struct sess_data *sd, net_msg *m)
{
	net_msg r = LEAGUE__ENVELOPE__INIT;
	League__Jobs jobs = LEAGUE__JOBS__INIT;
	League__Job list[DAEMON_MAX_JOBS_PER_REQUEST];
	League__Seat seat[DAEMON_MAX_JOBS_PER_REQUEST][LEAGUE_JOB_SEATS];
	League__Seat *seats[DAEMON_MAX_JOBS_PER_REQUEST][LEAGUE_JOB_SEATS];
	League__Job *lp[DAEMON_MAX_JOBS_PER_REQUEST];
	size_t want = m->job_request->max_jobs, n = 0;
	const char *why = "";

	if (want == 0 || want > DAEMON_MAX_JOBS_PER_REQUEST)
		want = want ? DAEMON_MAX_JOBS_PER_REQUEST : 1;
	league_leases_expire(d->leases, lg_now_s());
	if (d->cfg.league.deterministic)
		want = daemon_det_may_issue(d);
	if (want && !d->stopping &&
	    !(want = job_allowance(d, ss, sd, want, &why))) {
		jobs.status = LEAGUE__STATUS__STATUS_BUSY;
		jobs.error = (char *)(uintptr_t)why;
		d->refused_requests++;
	}
	if (!d->stopping && want) {
		size_t q;
		for (size_t i = 0; i < d->nkinds; i++) {
			q = league_leases_queued(d->leases);
			if (d->kinds[i]->make)
				d->kinds[i]->make(d, d->kstate[i],
						  q < want ? want - q : 0);
		}
		while (n < want) {
			const struct league_job *j;
			if (league_leases_take(d->leases,
					       league_session_id(ss),
					       lg_now_s(), &j))
				break;
			job_pack(d, j, &list[n], seat[n], seats[n]);
			lp[n] = &list[n];
			n++;
		}
	}
	jobs.n_jobs = n;
	jobs.jobs = lp;
	r.reply_to = m->seq;
	r.body_case = LEAGUE__ENVELOPE__BODY_JOBS;
	r.jobs = &jobs;
	daemon_reply(d, ss, &r);
}

/* A result that no lease holds: a resend of one counted before a restart
 * (Ack OK, counted once), else stale. */
static void stale_result(league_daemon *d, league_session *ss, net_msg *m)
{
	uint64_t id = m->job_result->job_id;

	for (size_t i = 0; i < d->nkinds; i++)
		if (d->kinds[i]->counted &&
		    d->kinds[i]->counted(d, d->kstate[i], id)) {
			daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "",
				   id, 0);
			return;
		}
	d->stale_results++;
	daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_STALE,
		   "job not leased to this session", id, 0);
}

static void on_job_result(league_daemon *d, league_session *ss,
			  struct sess_data *sd, net_msg *m)
{
	League__JobResult *jr = m->job_result;
	int8_t out[LEAGUE_JOB_EPISODES_MAX];
	double ret[LEAGUE_JOB_EPISODES_MAX], *sret;
	struct league_tally t = { .outcomes = out, .returns = ret };
	struct league_job j;
	const struct league_kind *k;
	void *ks;
	uint32_t waits;
	uint64_t invalid;
	char why[160] = "";
	int rc;

	if (d->cfg.league.deterministic &&
	    (waits = daemon_det_rows_missing(d, jr->job_id)) != BRAIN_NONE) {
		snprintf(why, sizeof why, "the learner of player %u has not "
			 "kept the job's rows yet", waits);
		daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BUSY, why,
			   jr->job_id, 0);
		return;
	}
	if (league_leases_complete(d->leases, league_session_id(ss),
				   jr->job_id, &j) != LEASE_OK) {
		stale_result(d, ss, m);
		return;
	}
	k = j.kind;
	ks = daemon_kind_state(d, k);
	if (jr->n_episodes > j.episodes ||
	    jr->n_episodes > LEAGUE_JOB_EPISODES_MAX)
		snprintf(why, sizeof why, "too many episodes");
	else
		daemon_result_check(ss, jr, &j, why, sizeof why);
	if (why[0]) {
		if (k->drop)
			k->drop(d, ks, &j);
		daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
			   why, jr->job_id, 0);
		return;
	}
	/* every seat's returns: LEAGUE_JOB_EPISODES_MAX x 8 at most */
	sret = malloc((jr->n_episodes ? jr->n_episodes : 1) *
		      (size_t)league_job_seats(&j) * sizeof *sret);
	invalid = sret ? daemon_tally_episodes(d, ss, jr, &j, &t, out, ret,
					       sret)
		       : 0;
	rc = !sret ? LG_ENOMEM
	     : k->result ? k->result(d, ks, &j, &t) : KIND_COUNTED;
	free(sret);
	if (rc < 0) {
		daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_SERVER,
			   lg_strerror(rc), jr->job_id, 0);
		daemon_fail(d, rc, k->name);
		return;
	}
	if (invalid) {
		d->invalid_episodes += invalid;
		d->counters_dirty = 1;
	}
	if (rc == KIND_COUNTED)
		daemon_steps_seen(d, &j, t.steps);
	if (rc == KIND_COUNTED && k->counts) {
		d->env_steps += t.steps;
		d->episodes += t.episodes;
		d->abnormal += t.abnormal;
		d->jobs_done++;
		sd->results++;
		d->counters_dirty = 1;
	}
	daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", jr->job_id, 0);
	daemon_check_budget(d);
}

/* ---- session callbacks ---------------------------------------------------- */

/* Each message a session may send after its Hello, and its handler
 * (each ends in exactly one reply, or closes the session). */
static const struct {
	League__Envelope__BodyCase body;
	void (*fn)(league_daemon *d, league_session *ss, struct sess_data *sd,
		   net_msg *m);
} handlers[] = {
	{ LEAGUE__ENVELOPE__BODY_REGISTER, daemon_on_register },
	{ LEAGUE__ENVELOPE__BODY_JOB_REQUEST, on_job_request },
	{ LEAGUE__ENVELOPE__BODY_JOB_RESULT, on_job_result },
	{ LEAGUE__ENVELOPE__BODY_PARAMS_GET, daemon_on_params_get },
	{ LEAGUE__ENVELOPE__BODY_PARAMS_PUT, daemon_on_params_put },
	{ LEAGUE__ENVELOPE__BODY_EVAL_REQUEST, daemon_on_eval_request },
	{ LEAGUE__ENVELOPE__BODY_EVAL_REPORT, daemon_on_eval_report },
};

static void on_msg(void *ctx, league_session *ss, net_msg *m)
{
	league_daemon *d = ctx;
	struct sess_data *sd = league_session_data(ss);

	if (!sd) {
		if (!(sd = calloc(1, sizeof *sd))) {
			league_session_close(ss, "out of memory");
			net_msg_free(m);
			return;
		}
		sd->role = league_session_role(ss);
		sd->player = BRAIN_NONE;
		LG_LIST_PUSH(d->sessions, sd);
		league_session_set_data(ss, sd);
	}
	for (size_t i = 0; i < LG_ARRAY_LEN(handlers); i++)
		if (handlers[i].body == m->body_case) {
			handlers[i].fn(d, ss, sd, m);
			net_msg_free(m);
			return;
		}
	LG_WARN("daemon: %s: unexpected %s; closing",
		league_session_name(ss), net_msg_name(m));
	league_session_close(ss, "protocol error: unexpected message");
	net_msg_free(m);
}

static void on_close(void *ctx, league_session *ss, const char *why)
{
	league_daemon *d = ctx;
	struct sess_data *sd = league_session_data(ss);
	size_t n = league_leases_drop_session(d->leases,
					      league_session_id(ss));

	d->requeued += n;
	if (n)
		LG_INFO("daemon: %s gone (%s): %zu job(s) re-queued",
			league_session_name(ss), why, n);
	for (size_t i = 0; i < d->nout; i++)
		if (d->out[i].ss == ss)
			d->out[i].ss = NULL;
	if (!sd)
		return;
	if (sd->player != BRAIN_NONE) {
		struct learner *l = daemon_learner(d, sd->player);
		if (l && l->owner == ss)
			l->owner = NULL;
	}
	LG_LIST_UNLINK(d->sessions, sd);
	free(sd);
	league_session_set_data(ss, NULL);
}

/* ---- lifecycle ------------------------------------------------------------- */

/* A point of the league's throughput, and of each learner's mix that
 * changed, committed with the next turn (or on its own, now). A failure
 * to store it fails the daemon like any other write. */
static void series_league(league_daemon *d)
{
	struct league_series_point p = {
		.kind = LEAGUE_SERIES_LEAGUE,
		.seconds = daemon_run_seconds(d),
		.v = {
			[LST_ENV_STEPS] = (double)d->env_steps,
			[LST_JOBS_DONE] = (double)d->jobs_done,
			[LST_EPISODES] = (double)d->episodes,
			[LST_ENV_STEPS_PER_S] = d->steps_per_s,
			[LST_JOBS_PER_S] = d->jobs_per_s,
			[LST_LOG_SEQ] = (double)brain_log_seq(d->br),
		},
	};
	int rc;

	for (uint32_t i = 0; i < d->nlearners; i++)
		if (d->learners[i].is_learner && d->learners[i].owner)
			p.v[LST_SAMPLES_PER_S] += d->learners[i].samples_per_s;
	rc = league_series_put(&d->wb, &p);
	for (uint32_t i = 0; !rc && i < d->nlearners; i++) {
		struct learner *l = &d->learners[i];
		struct league_series_point m = { .kind = LEAGUE_SERIES_MIX,
						 .seconds = p.seconds,
						 .player = i };
		if (!l->is_learner || !l->mix_dirty)
			continue;
		for (int k = 0; k < BRAIN_JOB__COUNT; k++)
			m.v[k] = (double)l->mix[k];
		l->mix_dirty = 0;
		rc = league_series_put(&d->wb, &m);
	}
	if (rc) {
		daemon_fail(d, rc, "series");
		return;
	}
	if (d->flush_ev)
		event_active(d->flush_ev, EV_TIMEOUT, 0);
}

_Static_assert(LSM_COUNT == BRAIN_JOB__COUNT, "a mix field per job kind");

/* Each learner's mix from its newest stored point: a resumed league
 * counts on. */
static int mix_load(league_daemon *d)
{
	uint64_t *c = calloc((size_t)d->nlearners * LSM_COUNT + 1, sizeof *c);
	store_txn *t;
	int rc;

	if (!c)
		return LG_ENOMEM;
	if (!(rc = store_txn_begin(d->st, STORE_TXN_READ, &t))) {
		rc = league_series_last_mix(t, c, d->nlearners);
		store_txn_abort(t);
	}
	for (uint32_t i = 0; !rc && i < d->nlearners; i++)
		memcpy(d->learners[i].mix, c + (size_t)i * LSM_COUNT,
		       sizeof d->learners[i].mix);
	free(c);
	return rc;
}

/* Every 250 ms: lease expiry, the rates, the seconds budget, the
 * throughput series. */
static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	league_daemon *d = arg;
	double now = lg_now_s();
	size_t n = league_leases_expire(d->leases, now);

	if (n) {
		d->requeued += n;
		LG_INFO("daemon: %zu job lease(s) expired; re-queued", n);
	}
	if (now - d->rate_t >= 1) {
		double dt = now - d->rate_t;
		d->steps_per_s = (double)(d->env_steps - d->rate_steps) / dt;
		d->jobs_per_s = (double)(d->jobs_done - d->rate_jobs) / dt;
		d->rate_steps = d->env_steps;
		d->rate_jobs = d->jobs_done;
		d->rate_t = now;
	}
	if (now - d->series_t >= LEAGUE_SERIES_EVERY_S && !d->failed &&
	    !d->stopping) {
		d->series_t = now;
		series_league(d);
	}
	daemon_check_budget(d);
}

static void signal_cb(evutil_socket_t sig, short what, void *arg)
{
	league_daemon *d = arg;

	LG_INFO("daemon: signal %d: draining", (int)sig);
	league_daemon_stop(d, sig == SIGINT ? "interrupted" : "terminated");
}

/* Every session is gone (or the drain timed out): nothing counts any
 * more. The series end where the run ends: a last point of the
 * throughput and of the mixes that changed since the tick's (a run
 * shorter than LEAGUE_SERIES_EVERY_S has its mix too), committed now. */
static void drained(void *arg)
{
	league_daemon *d = arg;

	if (!d->failed) {
		series_league(d);
		flush_cb(-1, 0, d);
	}
	event_base_loopexit(d->base, NULL);
}

void league_daemon_stop(league_daemon *d, const char *reason)
{
	if (d->stopping)
		return;
	d->stopping = 1;
	snprintf(d->stop_reason, sizeof d->stop_reason, "%s", reason);
	/* Commit and answer what this turn handled before the Shutdown;
	 * the run time goes with it. */
	d->counters_dirty = 1;
	flush_cb(-1, 0, d);
	league_server_shutdown(d->srv, reason, 10, drained, d);
}

const char *league_daemon_stop_reason(const league_daemon *d)
{
	return d->stop_reason;
}

league_server *league_daemon_server(league_daemon *d)
{
	return d->srv;
}

/* The structural part of a config must match the league on disk. */
static int config_matches(league_daemon *d, char *err, size_t errlen)
{
	store_txn *t;
	const void *v;
	size_t vl, n = strlen(d->cfg.env.name);
	int rc;

	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	rc = store_get(t, STORE_DB_META, "daemon.env", 10, &v, &vl);
	if (rc == LG_ENOTFOUND) {
		/* A fresh league: say which game it plays. */
		store_txn_abort(t);
		return store_batch_put(&d->wb, STORE_DB_META, "daemon.env", 10,
				       d->cfg.env.name, n);
	}
	if (rc || vl != n || memcmp(v, d->cfg.env.name, n)) {
		lg_errf(err, errlen, "%s: the league plays '%.*s', the config "
			"says env.name '%s'", d->dir, (int)(rc ? 0 : vl),
			rc ? "" : (const char *)v, d->cfg.env.name);
		rc = LG_ECONFIG;
	}
	store_txn_abort(t);
	return rc;
}

/* This start's number, for the ids of daemon-made jobs (the key of the
 * leagues before job kinds were typed is read too, so no id repeats). */
static int epoch_next(league_daemon *d)
{
	store_txn *t;
	uint64_t a = 0, b = 0;
	int rc;

	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	store_meta_get_u64(t, "daemon.epoch", &a);
	store_meta_get_u64(t, "eval.baseline_epoch", &b);
	store_txn_abort(t);
	d->epoch = (uint32_t)((LG_MAX(a, b) + 1) & 0x7fffffff);
	/* the league's and its game's names, for `league inspect DIR` */
	store_batch_put(&d->wb, STORE_DB_META, "league.name", 11,
			d->cfg.league.name, strlen(d->cfg.league.name));
	store_batch_put(&d->wb, STORE_DB_META, "env.name", 8, d->cfg.env.name,
			strlen(d->cfg.env.name));
	/* the effective config, for `league replay DIR` (the brain's rules
	 * come from it) */
	lg_buf y = { 0 };
	if (!(rc = cfg_emit_yaml(&d->cfg, &y)))
		rc = store_batch_put(&d->wb, STORE_DB_META, "league.config", 13,
				     y.data, y.len);
	lg_buf_free(&y);
	if (rc)
		return rc;
	return store_batch_meta_u64(&d->wb, "daemon.epoch", d->epoch);
}

/* Start every kind the table lists; the config turns some off. */
static int kinds_init(league_daemon *d, char *err, size_t errlen)
{
	size_t n;
	const struct league_kind *const *k = league_kinds(&n);
	int rc;

	for (size_t i = 0; i < n && i < DAEMON_KINDS_MAX; i++) {
		d->kinds[d->nkinds] = k[i];
		d->kstate[d->nkinds] = NULL;
		d->nkinds++;
		if (k[i]->init &&
		    (rc = k[i]->init(d, &d->kstate[d->nkinds - 1], err,
				     errlen)))
			return rc;
	}
	return 0;
}

static int listen_and_serve(league_daemon *d, char *err, size_t errlen)
{
	const struct league_daemon_opts *o = &d->opts;
	size_t off = (size_t)snprintf(d->ports_extra, sizeof d->ports_extra,
				      "learners");

	/* Local workers read the learning players from the ports file. */
	for (uint32_t i = 0; i < d->nlearners && off < sizeof d->ports_extra - 16;
	     i++)
		if (d->learners[i].is_learner)
			off += (size_t)snprintf(d->ports_extra + off,
						sizeof d->ports_extra - off,
						" %u", i);
	snprintf(d->ports_extra + off, sizeof d->ports_extra - off, "\n");

	if (d->cfg.server.tls.cert[0]) {
		struct net_tls_opts to = {
			d->cfg.server.tls.cert, d->cfg.server.tls.key,
			d->cfg.server.tls.ca, d->cfg.server.tls.verify_peers,
		};
		int rc = net_tls_new(&d->tls, &to, 1, NULL, err, errlen);
		if (rc)
			return rc;
	}
	struct league_server_opts so = {
		.listen = o->listen ? o->listen : d->cfg.server.listen,
		.port = (uint16_t)(o->port >= 0 ? o->port
						: (int)d->cfg.server.port),
		.http_port = (uint16_t)(o->http_port >= 0
						? o->http_port
						: (int)d->cfg.server.http_port),
		.token = o->token,
		.tls = d->tls,
		.insecure = d->cfg.server.insecure,
		.heartbeat_s = d->cfg.server.heartbeat_s,
		.max_frame = d->cfg.server.max_frame,
		.http_request_timeout_s = d->cfg.server.http_request_timeout_s,
		.league_name = d->cfg.league.name,
		.env_name = d->cfg.env.name,
		.ports_file = o->ports_file,
		.ports_extra = d->ports_extra,
	};
	struct league_server_ops ops = {
		.ctx = d, .on_msg = on_msg, .on_close = on_close,
		.status_json = daemon_status_json,
		.payoff_json = daemon_payoff_json,
		.metrics_text = daemon_metrics_text,
		.ratings_json = daemon_ratings_json,
		.nashconv_json = daemon_nashconv_json,
		.series_json = daemon_series_json,
		.lineage_json = daemon_lineage_json,
		.jobs_json = daemon_jobs_json,
		.history = d->st,
	};
	int rc = league_server_new(&d->srv, d->base, &so, &ops, err, errlen);

	if (!rc)
		LG_INFO("daemon: league '%s' (%s) in %s: %u players, %llu env "
			"steps so far; workers on %s:%u, HTTP%s on %u%s; "
			"store: %s",
			d->cfg.league.name, d->cfg.env.name, d->dir,
			brain_count(d->br), (unsigned long long)d->env_steps,
			so.listen, league_server_port(d->srv),
			d->tls ? "S" : "", league_server_http_port(d->srv),
			!d->tls ? ""
			: d->cfg.server.tls.verify_peers ? "; mutual TLS"
							 : "; TLS",
			store_is_durable(d->st) ? "fsync at every commit"
						: "no fsync (--nosync)");
	if (!rc && league_server_login_code(d->srv)[0])
		LG_INFO("daemon: HTTP beyond loopback needs the token: open "
			"http%s://HOST:%u/login?code=%s once in a browser (it "
			"sets a cookie; the code works once), or send "
			"'Authorization: Bearer TOKEN'", d->tls ? "s" : "",
			league_server_http_port(d->srv),
			league_server_login_code(d->srv));
	return rc;
}

/* Open the store and the brain; load the league. */
static int open_league(league_daemon *d, char *err, size_t errlen)
{
	struct store_opts so = { .flags = d->opts.store_flags };
	struct brain_opts bo;
	char path[CFG_STR_MAX + 16];
	struct stat sb;
	int rc, exists;

	snprintf(path, sizeof path, "%s/data.mdb", d->dir);
	exists = stat(path, &sb) == 0;
	if (exists && !d->opts.resume) {
		lg_errf(err, errlen, "%s already holds a league; pass --resume "
			"to continue it", d->dir);
		return LG_EEXIST;
	}
	if (!exists && d->opts.resume) {
		lg_errf(err, errlen, "--resume: no league in %s", d->dir);
		return LG_ENOTFOUND;
	}
	if (mkdir(d->dir, 0755) && errno != EEXIST) {
		lg_errf(err, errlen, "%s: cannot create: %s", d->dir,
			strerror(errno));
		return LG_EIO;
	}
	if ((rc = store_open(&d->st, d->dir, &so, err, errlen)) ||
	    (rc = config_matches(d, err, errlen)))
		return rc;
	league_brain_opts(&d->cfg, &bo);
	if (d->have_game)
		league_brain_game(&d->spec, &bo);
	bo.wb = &d->wb; /* the daemon's turn owns the transaction */
	if ((rc = brain_open(&d->br, d->st, &bo, err, errlen)))
		return rc;
	if ((rc = daemon_learners_sync(d)) || (rc = daemon_params_load(d)) ||
	    (rc = counters_load(d)) || (rc = daemon_nashconv_load(d)) ||
	    (rc = mix_load(d)) || (rc = epoch_next(d))) {
		lg_errf(err, errlen, "%s: cannot load the league: %s", d->dir,
			lg_strerror(rc));
		return rc;
	}
	return 0;
}

int league_daemon_new(league_daemon **out, struct event_base *base,
		      const struct league_daemon_opts *o, char *err,
		      size_t errlen)
{
	league_daemon *d;
	int rc;

	*out = NULL;
	if (!(d = calloc(1, sizeof *d)))
		return LG_ENOMEM;
	d->cfg = *o->cfg;
	d->opts = *o;
	d->opts.cfg = &d->cfg;
	d->base = base;
	snprintf(d->dir, sizeof d->dir, "%s", o->dir);
	daemon_game_load(d); /* the brain's seats and teams are the game's */
	if ((rc = open_league(d, err, errlen)) ||
	    (rc = league_leases_new(&d->leases)))
		goto fail;
	if (cfg_all_baselines(&d->cfg, d->baselines, &d->nbaselines, err,
			      errlen)) {
		rc = LG_ECONFIG;
		goto fail;
	}
	d->started = d->rate_t = lg_now_s();
	d->rate_steps = d->env_steps;
	d->rate_jobs = d->jobs_done;
	if ((rc = kinds_init(d, err, errlen)))
		goto fail;
	/* What the start wrote (a new league's game, the epoch, jobs
	 * re-issued, versions released) is committed before serving. */
	if ((rc = daemon_commit(d))) {
		lg_errf(err, errlen, "%s: cannot write: %s", d->dir,
			lg_strerror(rc));
		goto fail;
	}
	if ((rc = cfg_emit_yaml(&d->cfg, &d->config_yaml)) ||
	    (rc = lg_buf_append(&d->config_yaml, "", 1)) ||
	    (rc = listen_and_serve(d, err, errlen)))
		goto fail;
	d->tick = event_new(base, -1, EV_PERSIST, tick_cb, d);
	d->flush_ev = event_new(base, -1, 0, flush_cb, d);
	d->sigterm = evsignal_new(base, SIGTERM, signal_cb, d);
	d->sigint = evsignal_new(base, SIGINT, signal_cb, d);
	if (!d->tick || !d->flush_ev || !d->sigterm || !d->sigint) {
		rc = LG_ENOMEM;
		goto fail;
	}
	struct timeval tv = { 0, 250000 };
	event_add(d->tick, &tv);
	event_add(d->sigterm, NULL);
	event_add(d->sigint, NULL);
	*out = d;
	return 0;
fail:
	league_daemon_free(d);
	return rc;
}

int league_daemon_run(league_daemon *d)
{
	daemon_check_budget(d);
	event_base_dispatch(d->base);
	return d->failed;
}

void league_daemon_free(league_daemon *d)
{
	if (!d)
		return;
	net_event_free(d->tick);
	net_event_free(d->flush_ev);
	drop_replies(d);
	free(d->out);
	net_event_free(d->sigterm);
	net_event_free(d->sigint);
	league_server_free(d->srv); /* no on_close calls: free ours */
	net_tls_free(d->tls);
	while (d->sessions) {
		struct sess_data *n = d->sessions->next;
		free(d->sessions);
		d->sessions = n;
	}
	if (d->br && !store_is_rdonly(d->st) && !d->failed) {
		d->counters_dirty = 1;
		daemon_commit(d);
	}
	for (size_t i = 0; i < d->nkinds; i++)
		if (d->kinds[i]->fini)
			d->kinds[i]->fini(d, d->kstate[i]);
	brain_close(d->br);
	league_leases_free(d->leases);
	store_batch_free(&d->wb);
	store_close(d->st);
	daemon_learners_free(d);
	lg_buf_free(&d->config_yaml);
	lg_buf_free(&d->ratings);
	free(d);
}
