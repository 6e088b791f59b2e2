/*
 * league/daemon.c: the league manager (see daemon.h).
 *
 * Layout: one struct league_daemon; a learner table indexed by player id
 * (who owns each learning player, its endpoint and newest parameters); the
 * message handlers, one per request type, each ending in exactly one
 * reply; a one-second tick for lease expiry, rates and the budget.
 */
#include "league/daemon.h"

#include <errno.h>
#include <event2/event.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "league/lease.h"
#include "league/options.h"
#include "league/server.h"
#include "net/net.h"
#include "storage/storage.h"

#define DAEMON_MAX_JOBS_PER_REQUEST 64
#define DAEMON_KEEP_VERSIONS 8
#define DAEMON_ENDPOINT_MAX 255
#define DAEMON_MATRIX_MAX 512 /* /payoff shows at most this many agents */

struct learner_slot {
	int is_learner;
	league_session *owner;       /* NULL: no learner connected */
	char endpoint[DAEMON_ENDPOINT_MAX + 1];
	int has_params;              /* some version is stored */
	uint32_t newest;             /* newest stored version */
	/* Training against baselines (main players): episodes owed, and
	 * the turn over baselines and seats. */
	double tb_credit;
	uint32_t tb_rr;
};

struct sess_data {
	struct sess_data *next, *prev; /* every live session's, for free */
	int role;
	uint32_t player;             /* learner: the player it owns */
	uint32_t max_jobs;           /* collector */
	uint64_t results;
};

struct eval_state {
	uint32_t next;               /* snapshots below this are evaluated */
	int have;                    /* a point is stored */
	double main, league;         /* NashConvs of the newest point */
};

/* One evaluation job of the version being evaluated. */
struct bg_job {
	uint64_t id;
	uint32_t base;               /* index into bgames.name */
	int seat;                    /* the evaluated player's seat */
	uint32_t episodes;
	int done;                    /* reported (or dropped) */
};

/* Evaluation against fixed baselines (daemon.h). */
struct bgames {
	char name[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	size_t nbase;
	double ratio;                /* eval episodes per training episode */
	double credit;               /* eval episodes owed */
	uint32_t epoch;              /* daemon starts, in the job ids */
	uint32_t next_id;
	uint32_t rr;                 /* round robin over main players */
	uint32_t *last;              /* per player: newest version evaluated
					(+1; 0: none), from the rows on disk */
	uint32_t nlast;
	int have;                    /* a version is being evaluated */
	uint32_t player, version;
	uint64_t env_steps;          /* when it was chosen */
	double seconds;
	struct bg_job *jobs;         /* its jobs: baselines x seats x parts */
	size_t njobs, issued, done;
	uint64_t games, steps;       /* recorded this run */
};

/* Training games against fixed opponents (matchmaking.baselines). Job
 * ids: LEAGUE_TBGAME_JOB_BIT, the daemon's start count (bgames.epoch)
 * in bits 32..61, then a counter, the baseline's index (3 bits) and the
 * learning seat (bit 0, as for every training job). */
#define TB_SEAT_BITS 1
#define TB_BASE_BITS 3
struct tbgames {
	char name[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	size_t nbase;
	double ratio;                /* baseline episodes per brain episode */
	uint32_t next_id;
	/* This run's results, by baseline and the main player's seat. */
	uint64_t games[CFG_BASELINES_MAX][2], wins[CFG_BASELINES_MAX][2],
		losses[CFG_BASELINES_MAX][2];
};

struct league_daemon {
	struct cfg cfg;
	struct event_base *base;
	store *st;
	brain *br;
	league_leases *leases;
	league_server *srv;
	struct event *tick, *sigterm, *sigint;
	char dir[CFG_STR_MAX];
	char ports_extra[4096];
	lg_buf config_yaml;          /* sent to every worker that registers */

	struct learner_slot *slots;  /* by player id, for ids < nslots */
	uint32_t nslots;
	uint32_t rr;                 /* round robin over learners */

	/* Counters persisted in meta with every result. */
	uint64_t env_steps, jobs_done, episodes, abnormal;
	double seconds_before;       /* run time of earlier runs */
	double started;
	/* Rates over the last tick interval. */
	uint64_t rate_steps, rate_jobs;
	double rate_t, steps_per_s, jobs_per_s;
	uint64_t stale_results, requeued;
	int counters_dirty;          /* written at the next tick */
	struct eval_state eval;      /* exploitability over time */
	struct bgames bg;            /* evaluation against baselines */
	struct tbgames tb;           /* training against baselines */

	struct sess_data *sessions;
	struct pending *out;         /* replies waiting for the commit */
	size_t nout, capout;
	struct event *flush_ev;
	uint64_t commits;
	int stopping;
	int failed;                  /* an LMDB write failed: stop */
	char stop_reason[128];
};

/* ---- small helpers ---------------------------------------------------- */

/*
 * Group commit. Every reply waits in d->out until the end of the loop
 * turn: flush_cb then commits the brain's changes of the whole turn in
 * one transaction (one fsync, however many results and jobs it holds)
 * and only then sends the replies. So nothing is acknowledged before it
 * is on disk, and a burst from many collectors costs one commit, not one
 * per message. Replies keep their order per session.
 */
static void fail(league_daemon *d, int rc, const char *what);

struct pending {
	league_session *ss; /* NULL once the session is gone */
	uint8_t *frame;
	size_t len;
};

static void reply(league_daemon *d, league_session *ss, const net_msg *m)
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

static void drop_replies(league_daemon *d)
{
	for (size_t i = 0; i < d->nout; i++)
		free(d->out[i].frame);
	d->nout = 0;
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	league_daemon *d = arg;
	int rc = d->failed ? d->failed : brain_flush(d->br);

	if (rc) {
		/* Nothing of this turn is on disk: acknowledge none of it. */
		drop_replies(d);
		if (!d->failed)
			fail(d, rc, "commit");
		return;
	}
	d->commits++;
	for (size_t i = 0; i < d->nout; i++)
		if (d->out[i].ss)
			league_session_send_frame(d->out[i].ss,
						  d->out[i].frame,
						  d->out[i].len);
	drop_replies(d);
}

static void ack(league_daemon *d, league_session *ss, uint64_t reply_to,
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
	reply(d, ss, &m);
}

static double run_seconds(const league_daemon *d)
{
	return d->seconds_before + (lg_now_s() - d->started);
}

static struct learner_slot *slot_of(league_daemon *d, uint32_t player)
{
	if (player >= d->nslots || !d->slots[player].is_learner)
		return NULL;
	return &d->slots[player];
}

/* Grow the learner table to cover every id the brain knows. */
static int slots_sync(league_daemon *d)
{
	uint32_t n = brain_count(d->br);

	if (n > d->nslots) {
		struct learner_slot *s = realloc(d->slots, sizeof(*s) * n);
		if (!s)
			return LG_ENOMEM;
		memset(s + d->nslots, 0, sizeof(*s) * (n - d->nslots));
		d->slots = s;
		for (uint32_t i = d->nslots; i < n; i++) {
			struct brain_player p;
			if (!brain_player_info(d->br, i, &p))
				s[i].is_learner = p.role != BRAIN_ROLE_HISTORICAL;
		}
		d->nslots = n;
	}
	return 0;
}

/* ---- parameters ------------------------------------------------------- */

struct params_scan {
	league_daemon *d;
};

static int params_scan_cb(const void *key, size_t klen, const void *val,
			  size_t vlen, void *arg)
{
	league_daemon *d = arg;

	if (klen != 8)
		return LG_ECORRUPT;
	uint32_t player = lg_get_be32(key), version = lg_get_be32(
						    (const uint8_t *)key + 4);
	if (player < d->nslots) {
		struct learner_slot *s = &d->slots[player];
		if (!s->has_params || version > s->newest)
			s->newest = version;
		s->has_params = 1;
	}
	return 0;
}

static int params_load_index(league_daemon *d)
{
	store_txn *t;
	int rc;

	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	rc = store_iter(t, STORE_DB_PARAMS, NULL, 0, params_scan_cb, d);
	store_txn_abort(t);
	return rc;
}

static int params_exist(league_daemon *d, uint32_t player, uint32_t version)
{
	uint8_t k[8];
	store_txn *t;
	const void *v;
	size_t vl;
	int rc;

	if (player < d->nslots && d->slots[player].has_params &&
	    version == d->slots[player].newest)
		return 1;
	if (store_txn_begin(d->st, STORE_TXN_READ, &t))
		return 0;
	store_key_u32x2(k, player, version);
	rc = store_get(t, STORE_DB_PARAMS, k, sizeof k, &v, &vl);
	store_txn_abort(t);
	return rc == 0;
}

/* Copy a version's blob out (caller frees *blob). */
static int params_read(league_daemon *d, uint32_t player, uint32_t version,
		       uint8_t **blob, size_t *len, char *err, size_t errlen)
{
	struct store_blob_info info;
	const void *p;
	uint8_t k[8];
	store_txn *t;
	int rc;

	*blob = NULL;
	*len = 0;
	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	store_key_u32x2(k, player, version);
	rc = store_blob_get(t, STORE_DB_PARAMS, k, sizeof k, &info, &p, err,
			    errlen);
	if (!rc) {
		*blob = malloc(info.nbytes ? info.nbytes : 1);
		if (!*blob)
			rc = LG_ENOMEM;
		else {
			memcpy(*blob, p, info.nbytes);
			*len = info.nbytes;
		}
	}
	store_txn_abort(t);
	return rc;
}

struct params_put {
	league_daemon *d;
	uint32_t player, version;
	const void *blob;
	size_t len;
};

/* Versions a snapshot froze are kept for good; so are version 0 (the
 * initial parameters a reset returns to) and the newest KEEP. */
static int version_pinned(league_daemon *d, uint32_t player, uint32_t v)
{
	uint32_t n = brain_count(d->br);

	if (v == 0)
		return 1;
	if (d->bg.have && d->bg.player == player && d->bg.version == v)
		return 1;
	for (uint32_t i = 0; i < n; i++) {
		struct brain_player p;
		if (!brain_player_info(d->br, i, &p) &&
		    p.role == BRAIN_ROLE_HISTORICAL && p.parent == player &&
		    p.version == v)
			return 1;
	}
	return 0;
}

static int params_put_txn(store_txn *t, void *arg)
{
	struct params_put *pp = arg;
	struct store_blob_info info = { .dtype = STORE_DT_BYTES, .rank = 1 };
	uint8_t k[8];

	info.dims[0] = (uint32_t)pp->len;
	info.nbytes = pp->len;
	store_key_u32x2(k, pp->player, pp->version);
	store_blob_put(t, STORE_DB_PARAMS, k, sizeof k, &info, pp->blob);
	/* Drop the version that just fell out of the kept window. */
	if (pp->version > DAEMON_KEEP_VERSIONS) {
		uint32_t old = pp->version - DAEMON_KEEP_VERSIONS - 1;
		if (!version_pinned(pp->d, pp->player, old)) {
			store_key_u32x2(k, pp->player, old);
			int rc = store_del(t, STORE_DB_PARAMS, k, sizeof k);
			if (rc && rc != LG_ENOTFOUND)
				return rc;
		}
	}
	return store_txn_error(t);
}

static int params_store(league_daemon *d, uint32_t player, uint32_t version,
			const void *blob, size_t len)
{
	struct params_put pp = { d, player, version, blob, len };
	int rc = store_update(d->st, params_put_txn, &pp);

	if (!rc) {
		struct learner_slot *s = &d->slots[player];
		s->has_params = 1;
		if (version > s->newest)
			s->newest = version;
	}
	return rc;
}

/* ---- counters --------------------------------------------------------- */

static int counters_txn(store_txn *t, void *arg)
{
	league_daemon *d = arg;

	store_meta_put_u64(t, "daemon.env_steps", d->env_steps);
	store_meta_put_u64(t, "daemon.jobs_done", d->jobs_done);
	store_meta_put_u64(t, "daemon.episodes", d->episodes);
	store_meta_put_u64(t, "daemon.abnormal", d->abnormal);
	store_meta_put_u64(t, "daemon.run_ms",
			   (uint64_t)(run_seconds(d) * 1000));
	return store_txn_error(t);
}

static int counters_load(league_daemon *d)
{
	store_txn *t;
	uint64_t ms = 0;
	int rc;

	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	store_meta_get_u64(t, "daemon.env_steps", &d->env_steps);
	store_meta_get_u64(t, "daemon.jobs_done", &d->jobs_done);
	store_meta_get_u64(t, "daemon.episodes", &d->episodes);
	store_meta_get_u64(t, "daemon.abnormal", &d->abnormal);
	store_meta_get_u64(t, "daemon.run_ms", &ms);
	store_txn_abort(t);
	d->seconds_before = (double)ms / 1000;
	return 0;
}

static void fail(league_daemon *d, int rc, const char *what)
{
	LG_ERROR("daemon: %s: %s; stopping (the league on disk is intact)",
		 what, lg_strerror(rc));
	d->failed = rc;
	league_daemon_stop(d, "storage failure");
}

/* ---- budget ----------------------------------------------------------- */

static uint64_t snapshot_count(league_daemon *d)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < brain_count(d->br); i++) {
		struct brain_player p;
		if (!brain_player_info(d->br, i, &p) &&
		    p.role == BRAIN_ROLE_HISTORICAL)
			n++;
	}
	return n;
}

static void check_budget(league_daemon *d)
{
	const char *why = NULL;

	if (d->stopping)
		return;
	if (d->cfg.budget.env_steps && d->env_steps >= d->cfg.budget.env_steps)
		why = "budget: env_steps reached";
	else if (d->cfg.budget.jobs && d->jobs_done >= d->cfg.budget.jobs)
		why = "budget: jobs reached";
	else if (d->cfg.budget.seconds > 0 &&
		 run_seconds(d) >= d->cfg.budget.seconds)
		why = "budget: seconds reached";
	else if (d->cfg.budget.snapshots &&
		 snapshot_count(d) >= d->cfg.budget.snapshots)
		why = "budget: snapshots reached";
	if (why) {
		LG_INFO("daemon: %s (env steps %llu, jobs %llu, %.1f s)", why,
			(unsigned long long)d->env_steps,
			(unsigned long long)d->jobs_done, run_seconds(d));
		league_daemon_stop(d, why);
	}
}

/* ---- jobs ------------------------------------------------------------- */

/* The learner sits in seat 1 on odd job ids, so it learns both seats. */
static int learner_seat(uint64_t job_id)
{
	return (int)(job_id & 1);
}

static uint64_t job_seed(const league_daemon *d, uint64_t job_id)
{
	uint64_t x = d->cfg.league.seed ^ (job_id * 0x9e3779b97f4a7c15ull);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	return x ^ (x >> 29);
}

/* An episode's outcome for one seat: 1 won, 0 drawn, -1 lost, or
 * EP_UNUSABLE (abnormal, malformed, a return that is not a number). */
#define EP_UNUSABLE 2
static int episode_outcome(const League__Episode *e, int seat)
{
	if (e->abnormal || e->n_returns != 2 || !isfinite(e->returns[seat]))
		return EP_UNUSABLE;
	return e->returns[seat] > 0 ? 1 : e->returns[seat] < 0 ? -1 : 0;
}

/* Pack a brain job as the wire Job, into the lease table. */
/* Pack job and queue it under its id for the collectors to lease. */
static int lease_job(league_daemon *d, const League__Job *job)
{
	size_t len = league__job__get_packed_size(job);
	uint8_t *buf = malloc(len ? len : 1);
	int rc;

	if (!buf)
		return LG_ENOMEM;
	league__job__pack(job, buf);
	rc = league_leases_enqueue(d->leases, job->job_id, buf, len);
	free(buf);
	return rc;
}

static int enqueue_job(league_daemon *d, const struct brain_job *j)
{
	League__Job job = LEAGUE__JOB__INIT;
	League__Seat seat[2] = { LEAGUE__SEAT__INIT, LEAGUE__SEAT__INIT };
	League__Seat *seats[2] = { &seat[0], &seat[1] };
	int ls = learner_seat(j->id);
	struct learner_slot *s = slot_of(d, j->learner);

	seat[ls].player = j->learner;
	seat[ls].params_version = j->learner_version;
	seat[ls].learning = 1;
	seat[ls].learner_endpoint = s ? s->endpoint : (char *)"";
	seat[!ls].player = j->opponent_params;
	seat[!ls].params_version = j->opponent_version;
	seat[!ls].learner_endpoint = (char *)"";
	/* Plain self-play against the same parameters: both seats teach. */
	if (j->opponent_params == j->learner &&
	    j->opponent_version == j->learner_version) {
		seat[!ls].learning = 1;
		seat[!ls].learner_endpoint = seat[ls].learner_endpoint;
	}
	job.job_id = j->id;
	job.n_seats = 2;
	job.seats = seats;
	job.episodes = j->episodes;
	job.lease_s = d->cfg.matchmaking.job_lease_s;
	job.seed = job_seed(d, j->id);
	return lease_job(d, &job);
}

/* ---- evaluation against baselines (daemon.h) ---------------------------- */

static int bg_init(league_daemon *d, char *err, size_t errlen)
{
	struct bgames *g = &d->bg;
	double share = d->cfg.eval.share;

	if (!(share > 0))
		return 0;
	if (cfg_eval_baselines(&d->cfg, g->name, &g->nbase, err, errlen))
		return LG_ECONFIG;
	g->ratio = share / (1 - share);
	return 0;
}

static int bg_epoch_txn(store_txn *t, void *arg)
{
	struct bgames *g = arg;
	uint64_t e = 0;

	store_meta_get_u64(t, "eval.baseline_epoch", &e);
	g->epoch = (uint32_t)(e + 1) & 0x7fffffff;
	store_meta_put_u64(t, "eval.baseline_epoch", g->epoch);
	return store_txn_error(t);
}

static int bg_del_txn(store_txn *t, void *arg)
{
	const uint32_t *pv = arg;
	uint8_t k[8];
	int rc;

	store_key_u32x2(k, pv[0], pv[1]);
	rc = store_del(t, STORE_DB_PARAMS, k, sizeof k);
	return rc == LG_ENOTFOUND ? 0 : rc ? rc : store_txn_error(t);
}

/* A version evaluation no longer pins: delete it when the parameter
 * window has moved past it (params_put_txn skipped it then). */
static int bg_release(league_daemon *d, uint32_t player, uint32_t version)
{
	uint32_t pv[2] = { player, version };
	struct learner_slot *s = slot_of(d, player);

	if (!s || !s->has_params ||
	    version + DAEMON_KEEP_VERSIONS >= s->newest ||
	    version_pinned(d, player, version))
		return 0;
	return store_update(d->st, bg_del_txn, pv);
}

static void bg_unpin(league_daemon *d)
{
	struct bgames *g = &d->bg;
	int rc;

	if (!g->have)
		return;
	g->have = 0;
	if ((rc = bg_release(d, g->player, g->version)))
		fail(d, rc, "evaluation: dropping an old version");
}

/* After the slots and parameters are loaded: the newest version of each
 * player evaluated before (never evaluated twice, also across restarts)
 * and the version a previous run was evaluating when it stopped, which
 * is deleted now if the window has passed it. */
static int bg_load(league_daemon *d)
{
	struct bgames *g = &d->bg;
	struct league_bgame_row *rows = NULL;
	store_txn *t;
	size_t n = 0;
	int rc;

	if (!g->nbase)
		return 0;
	if (!(g->last = calloc(d->nslots ? d->nslots : 1, sizeof *g->last)))
		return LG_ENOMEM;
	g->nlast = d->nslots;
	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	rc = league_bgame_list(t, &rows, &n);
	store_txn_abort(t);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		if (rows[i].player < g->nlast &&
		    rows[i].version + 1 > g->last[rows[i].player])
			g->last[rows[i].player] = rows[i].version + 1;
	free(rows);
	for (uint32_t p = 0; p < g->nlast && !rc; p++)
		if (g->last[p])
			rc = bg_release(d, p, g->last[p] - 1);
	return rc;
}


/* Choose the next version to evaluate and lay out its jobs. 0 when none
 * can be evaluated now (no main player with parameters, or the newest
 * version was the last one evaluated). */
static int bg_pick(league_daemon *d)
{
	struct bgames *g = &d->bg;
	uint32_t games = (uint32_t)d->cfg.eval.games, mp = BRAIN_NONE;
	uint32_t per = LEAGUE_BGAME_JOB_EPISODES;

	/* The next main player (round robin) with a version not yet
	 * evaluated. */
	for (uint32_t k = 0; k < d->nslots && mp == BRAIN_NONE; k++) {
		uint32_t i = (g->rr + k) % d->nslots;
		struct brain_player p;
		if (d->slots[i].is_learner && d->slots[i].has_params &&
		    !brain_player_info(d->br, i, &p) &&
		    p.role == BRAIN_ROLE_MAIN &&
		    !(i < g->nlast && g->last[i] == d->slots[i].newest + 1))
			mp = i;
	}
	if (mp == BRAIN_NONE)
		return 0;
	bg_unpin(d);
	if (mp < g->nlast && g->last[mp] == d->slots[mp].newest + 1)
		return 0; /* nothing new to evaluate */
	size_t parts = (games + per - 1) / per;
	size_t n = g->nbase * 2 * parts;
	struct bg_job *jobs = realloc(g->jobs, n * sizeof *jobs);
	if (!jobs)
		return 0;
	g->jobs = jobs;
	g->njobs = g->issued = g->done = 0;
	/* Interleave baselines and seats, so a partial evaluation (cut
	 * short by the budget) still covers both seats of every one. */
	for (size_t k = 0; k < parts; k++)
		for (size_t b = 0; b < g->nbase; b++)
			for (int seat = 0; seat < 2; seat++) {
				struct bg_job *j = &jobs[g->njobs++];
				uint32_t left = games - (uint32_t)k * per;
				*j = (struct bg_job){
					.id = LEAGUE_BGAME_JOB_BIT |
					      (uint64_t)g->epoch << 32 |
					      g->next_id++,
					.base = (uint32_t)b,
					.seat = seat,
					.episodes = LG_MIN(left, per),
				};
			}
	g->rr = mp + 1;
	g->have = 1;
	g->player = mp;
	g->version = d->slots[mp].newest;
	if (mp < g->nlast)
		g->last[mp] = g->version + 1;
	g->env_steps = d->env_steps;
	g->seconds = run_seconds(d);
	return 1;
}

static int bg_enqueue(league_daemon *d, const struct bg_job *j)
{
	struct bgames *g = &d->bg;
	League__Job job = LEAGUE__JOB__INIT;
	League__Seat seat[2] = { LEAGUE__SEAT__INIT, LEAGUE__SEAT__INIT };
	League__Seat *seats[2] = { &seat[0], &seat[1] };

	seat[j->seat].player = g->player;
	seat[j->seat].params_version = g->version;
	seat[j->seat].greedy = d->cfg.eval.greedy;
	seat[!j->seat].player = g->player;
	seat[!j->seat].baseline = g->name[j->base];
	job.job_id = j->id;
	job.n_seats = 2;
	job.seats = seats;
	job.episodes = j->episodes;
	/* The lease covers a training job's episodes; these are longer. */
	job.lease_s = d->cfg.matchmaking.job_lease_s *
		      LG_MAX(1.0, (double)j->episodes /
					  (double)d->cfg.matchmaking.job_episodes);
	job.seed = job_seed(d, j->id);
	job.evaluation = 1;
	job.baseline = g->name[j->base];
	return lease_job(d, &job);
}

/* Queue the evaluation jobs the training episodes handed out so far
 * have paid for (eval.share of all episodes). */
static void bg_make_jobs(league_daemon *d)
{
	struct bgames *g = &d->bg;

	if (!g->nbase)
		return;
	for (;;) {
		if (g->issued == g->njobs) {
			if (g->done < g->njobs || !bg_pick(d))
				break;
		}
		struct bg_job *j = &g->jobs[g->issued];
		if (g->credit < j->episodes)
			break;
		if (bg_enqueue(d, j)) {
			j->done = 1; /* skip it */
			g->done++;
		}
		g->credit -= j->episodes;
		g->issued++;
	}
	/* Credit left over while nothing could be evaluated (no new
	 * version, results outstanding) would come out as a burst later:
	 * keep at most two jobs' worth. */
	g->credit = LG_MIN(g->credit, 2.0 * LEAGUE_BGAME_JOB_EPISODES);
}

/* A queued evaluation job the daemon could not hand out: forget it. */
static void bg_drop(league_daemon *d, uint64_t id)
{
	struct bgames *g = &d->bg;

	for (size_t i = 0; i < g->issued; i++)
		if (g->jobs[i].id == id && !g->jobs[i].done) {
			g->jobs[i].done = 1;
			g->done++;
		}
}

struct bg_add {
	uint32_t player, version;
	const char *baseline;
	uint64_t env_steps;
	double seconds;
	int seat;
	uint64_t wins, draws, losses;
};

static int bg_add_txn(store_txn *t, void *arg)
{
	const struct bg_add *a = arg;
	struct league_bgame_row r = { 0 };
	uint8_t k[LEAGUE_BGAME_KEY_MAX], v[LEAGUE_BGAME_REC_BYTES];
	size_t kl = league_bgame_key(a->player, a->version, a->baseline, k);
	const void *old;
	size_t ol;
	int rc = store_get(t, STORE_DB_EVAL, k, kl, &old, &ol);

	if (rc == LG_ENOTFOUND) {
		r.player = a->player;
		r.version = a->version;
		r.env_steps = a->env_steps;
		r.seconds = a->seconds;
	} else if (rc || (rc = league_bgame_decode(k, kl, old, ol, &r))) {
		return rc == LG_ENOTFOUND ? LG_ECORRUPT : rc;
	}
	r.games[a->seat] += a->wins + a->draws + a->losses;
	r.wins[a->seat] += a->wins;
	r.draws[a->seat] += a->draws;
	r.losses[a->seat] += a->losses;
	league_bgame_encode(&r, v);
	store_put(t, STORE_DB_EVAL, k, kl, v, sizeof v);
	return store_txn_error(t);
}

static void bg_on_result(league_daemon *d, league_session *ss, net_msg *m)
{
	struct bgames *g = &d->bg;
	League__JobResult *jr = m->job_result;
	struct bg_job *j = NULL;
	uint64_t steps = 0;
	int rc;

	if (league_leases_complete(d->leases, league_session_id(ss),
				   jr->job_id) != LEASE_OK) {
		d->stale_results++;
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_STALE,
		    "job not leased to this session", jr->job_id, 0);
		return;
	}
	for (size_t i = 0; i < g->issued; i++)
		if (g->jobs[i].id == jr->job_id && !g->jobs[i].done)
			j = &g->jobs[i];
	if (!j) { /* its version was given up: nothing to count */
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", jr->job_id, 0);
		return;
	}
	struct bg_add a = { g->player, g->version, g->name[j->base],
			    g->env_steps, g->seconds, j->seat, 0, 0, 0 };
	for (size_t i = 0; i < jr->n_episodes; i++) {
		int o = episode_outcome(jr->episodes[i], j->seat);
		steps += jr->episodes[i]->steps;
		a.wins += o == 1;
		a.draws += o == 0;
		a.losses += o == -1;
	}
	if (jr->n_episodes > j->episodes) {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
		    "too many episodes", jr->job_id, 0);
		a.wins = a.draws = a.losses = 0;
	} else if (a.wins + a.draws + a.losses &&
		   (rc = store_update(d->st, bg_add_txn, &a))) {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_SERVER,
		    lg_strerror(rc), jr->job_id, 0);
		fail(d, rc, "evaluation result");
		return;
	} else {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", jr->job_id, 0);
	}
	j->done = 1;
	g->done++;
	g->games += a.wins + a.draws + a.losses;
	g->steps += steps;
	if (g->done == g->njobs)
		LG_INFO("daemon: player %u version %u evaluated against %zu "
			"baseline(s)", g->player, g->version, g->nbase);
}

/* A training result is in: count it, Ack it, and see whether the budget
 * is spent. */
static void result_counted(league_daemon *d, league_session *ss,
			   struct sess_data *sd, net_msg *m, uint64_t steps,
			   uint64_t abnormal)
{
	League__JobResult *jr = m->job_result;

	d->env_steps += steps;
	d->episodes += jr->n_episodes;
	d->abnormal += abnormal;
	d->jobs_done++;
	sd->results++;
	d->counters_dirty = 1;
	ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", jr->job_id, 0);
	check_budget(d);
}

/* ---- training against baselines (daemon.h) ----------------------------- */

static int tb_init(league_daemon *d, char *err, size_t errlen)
{
	struct tbgames *t = &d->tb;
	double share = d->cfg.matchmaking.baseline_share;

	t->nbase = 0;
	if (!(share > 0))
		return 0;
	if (cfg_train_baselines(&d->cfg, t->name, &t->nbase, err, errlen))
		return LG_ECONFIG;
	t->ratio = share / (1 - share);
	return 0;
}

static int tb_base(uint64_t id)
{
	return (int)(id >> TB_SEAT_BITS) & ((1 << TB_BASE_BITS) - 1);
}

/* One job of main player p's newest version against its next baseline
 * from its next seat (each player takes both in turn). Its seat learns;
 * the baseline's never does (the collector plays it inside the env). */
static int tb_enqueue(league_daemon *d, uint32_t p)
{
	struct tbgames *t = &d->tb;
	struct learner_slot *s = slot_of(d, p);
	League__Job job = LEAGUE__JOB__INIT;
	League__Seat seat[2] = { LEAGUE__SEAT__INIT, LEAGUE__SEAT__INIT };
	League__Seat *seats[2] = { &seat[0], &seat[1] };
	uint32_t b = (uint32_t)(s->tb_rr / 2 % t->nbase);
	int ls = (int)(s->tb_rr & 1);

	s->tb_rr++;
	seat[ls].player = p;
	seat[ls].params_version = s->newest;
	seat[ls].learning = 1;
	seat[ls].learner_endpoint = s->endpoint;
	seat[!ls].player = p;
	seat[!ls].baseline = t->name[b];
	seat[!ls].learner_endpoint = (char *)"";
	job.job_id = LEAGUE_TBGAME_JOB_BIT |
		     (uint64_t)(d->bg.epoch & 0x3fffffff) << 32 |
		     (uint64_t)t->next_id++ << (TB_SEAT_BITS + TB_BASE_BITS) |
		     b << TB_SEAT_BITS | (uint32_t)ls;
	t->next_id &= (1u << (32 - TB_SEAT_BITS - TB_BASE_BITS)) - 1;
	job.n_seats = 2;
	job.seats = seats;
	job.episodes = (uint32_t)d->cfg.matchmaking.job_episodes;
	job.lease_s = d->cfg.matchmaking.job_lease_s;
	job.seed = job_seed(d, job.job_id);
	job.baseline = t->name[b];
	return lease_job(d, &job);
}

/* After a training job of player p: queue the baseline games its
 * episodes paid for, if p is a main player. Each pays for its share of
 * evaluation games too, as eval.share is of all episodes. */
static size_t tb_make_jobs(league_daemon *d, uint32_t p, uint64_t episodes)
{
	struct tbgames *t = &d->tb;
	struct learner_slot *s = slot_of(d, p);
	struct brain_player bp;
	double per = (double)d->cfg.matchmaking.job_episodes;
	size_t n = 0;

	if (!t->nbase || !s || !s->has_params ||
	    brain_player_info(d->br, p, &bp) || bp.role != BRAIN_ROLE_MAIN)
		return 0;
	s->tb_credit += t->ratio * (double)episodes;
	while (s->tb_credit >= per) {
		int rc = tb_enqueue(d, p);
		if (rc) {
			LG_WARN("daemon: baseline job: %s", lg_strerror(rc));
			break;
		}
		s->tb_credit -= per;
		d->bg.credit += d->bg.ratio * per;
		n++;
	}
	return n;
}

static void tb_on_result(league_daemon *d, league_session *ss,
			 struct sess_data *sd, net_msg *m)
{
	struct tbgames *t = &d->tb;
	League__JobResult *jr = m->job_result;
	int ls = learner_seat(jr->job_id), b = tb_base(jr->job_id);
	uint64_t steps = 0, abnormal = 0, w = 0, l = 0, n = 0;

	if (league_leases_complete(d->leases, league_session_id(ss),
				   jr->job_id) != LEASE_OK) {
		d->stale_results++;
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_STALE,
		    "job not leased to this session", jr->job_id, 0);
		return;
	}
	if (jr->n_episodes > d->cfg.matchmaking.job_episodes ||
	    (size_t)b >= t->nbase) { /* b: only a forged id */
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
		    (size_t)b >= t->nbase ? "no such baseline"
					  : "too many episodes",
		    jr->job_id, 0);
		return;
	}
	for (size_t i = 0; i < jr->n_episodes; i++) {
		int o = episode_outcome(jr->episodes[i], ls);
		steps += jr->episodes[i]->steps;
		if (o == EP_UNUSABLE) {
			abnormal++;
			continue;
		}
		n++;
		w += o == 1;
		l += o == -1;
	}
	t->games[b][ls] += n;
	t->wins[b][ls] += w;
	t->losses[b][ls] += l;
	result_counted(d, ss, sd, m, steps, abnormal);
}

/*
 * Make up to `want` new jobs, round robin over the learners that can play
 * now (a learner connected, both seats' parameters stored). A job whose
 * opponent has no parameters yet is cancelled in the brain.
 */
static void make_jobs(league_daemon *d, size_t want)
{
	uint32_t tries = 0;

	while (want && tries < d->nslots) {
		uint32_t p = d->rr++ % d->nslots;
		struct learner_slot *s = &d->slots[p];
		struct brain_job j;
		int rc;

		tries++;
		if (!s->is_learner || !s->owner || !s->has_params)
			continue;
		if ((rc = brain_next_job(d->br, p, &j))) {
			if (rc != LG_EFULL)
				fail(d, rc, "brain_next_job");
			return;
		}
		if (!params_exist(d, j.learner, j.learner_version) ||
		    !params_exist(d, j.opponent_params, j.opponent_version)) {
			if ((rc = brain_cancel_job(d->br, j.id)))
				fail(d, rc, "brain_cancel_job");
			continue;
		}
		if ((rc = enqueue_job(d, &j))) {
			brain_cancel_job(d->br, j.id);
			LG_WARN("daemon: job %llu: %s",
				(unsigned long long)j.id, lg_strerror(rc));
			return;
		}
		d->bg.credit += d->bg.ratio * j.episodes;
		want--;
		tries = 0;
		size_t extra = tb_make_jobs(d, p, j.episodes);
		want -= LG_MIN(want, extra);
	}
}

/* Learning seats stream to wherever their learner listens now: a job
 * queued (or re-issued after a restart) before its learner (re)registered
 * learns the endpoint here, when it is handed out. A learner that is not
 * connected leaves the endpoint empty: the collector counts and logs those
 * transitions as undeliverable; the games still count. */
static void set_endpoints(league_daemon *d, League__Job *job)
{
	for (size_t i = 0; i < job->n_seats; i++) {
		League__Seat *st = job->seats[i];
		struct learner_slot *s;
		if (!st->learning)
			continue;
		s = slot_of(d, st->player);
		const char *ep = s && s->owner ? s->endpoint : "";
		char *dup = strdup(ep);
		if (!dup)
			continue; /* keep the packed one */
		/* Unpacked strings are ours to free, except protobuf-c's
		 * shared default for a field that was empty. */
		if (st->learner_endpoint &&
		    st->learner_endpoint != protobuf_c_empty_string)
			free(st->learner_endpoint);
		st->learner_endpoint = dup;
	}
}

static void on_job_request(league_daemon *d, league_session *ss,
			   struct sess_data *sd, net_msg *m)
{
	net_msg r = LEAGUE__ENVELOPE__INIT;
	League__Jobs jobs = LEAGUE__JOBS__INIT;
	League__Job *list[DAEMON_MAX_JOBS_PER_REQUEST];
	size_t want = m->job_request->max_jobs;
	size_t n = 0;

	if (want == 0 || want > DAEMON_MAX_JOBS_PER_REQUEST)
		want = want ? DAEMON_MAX_JOBS_PER_REQUEST : 1;
	if (!d->stopping) {
		league_leases_expire(d->leases, lg_now_s());
		if (league_leases_queued(d->leases) < want)
			make_jobs(d, want - league_leases_queued(d->leases));
		bg_make_jobs(d);
		while (n < want) {
			uint64_t id;
			const void *p;
			size_t len;
			if (league_leases_take(d->leases,
					       league_session_id(ss),
					       lg_now_s(),
					       d->cfg.matchmaking.job_lease_s,
					       &id, &p, &len))
				break;
			list[n] = league__job__unpack(NULL, len, p);
			if (!list[n]) {
				league_leases_cancel(d->leases, id);
				if (id & LEAGUE_BGAME_JOB_BIT)
					bg_drop(d, id);
				continue;
			}
			set_endpoints(d, list[n]);
			n++;
		}
	}
	jobs.n_jobs = n;
	jobs.jobs = list;
	r.reply_to = m->seq;
	r.body_case = LEAGUE__ENVELOPE__BODY_JOBS;
	r.jobs = &jobs;
	reply(d, ss, &r);
	for (size_t i = 0; i < n; i++)
		league__job__free_unpacked(list[i], NULL);
	(void)sd;
}

static void on_job_result(league_daemon *d, league_session *ss,
			  struct sess_data *sd, net_msg *m)
{
	League__JobResult *jr = m->job_result;
	int8_t out[LEAGUE_JOB_EPISODES_MAX];
	size_t n = 0;
	uint64_t steps = 0, abnormal = 0;
	int ls = learner_seat(jr->job_id), rc;

	if (jr->job_id & LEAGUE_BGAME_JOB_BIT) {
		bg_on_result(d, ss, m);
		return;
	}
	if (jr->job_id & LEAGUE_TBGAME_JOB_BIT) {
		tb_on_result(d, ss, sd, m);
		return;
	}
	if (league_leases_complete(d->leases, league_session_id(ss),
				   jr->job_id) != LEASE_OK) {
		/* A result we committed before a crash, sent again by a
		 * worker that never saw the ack: it counted, say so. */
		if (brain_job_state(d->br, jr->job_id) == BRAIN_JOB_COUNTED) {
			ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "",
			    jr->job_id, 0);
			return;
		}
		d->stale_results++;
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_STALE,
		    "job not leased to this session", jr->job_id, 0);
		return;
	}
	if (jr->n_episodes > sizeof out) {
		brain_cancel_job(d->br, jr->job_id);
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
		    "too many episodes", jr->job_id, 0);
		return;
	}
	for (size_t i = 0; i < jr->n_episodes; i++) {
		int o = episode_outcome(jr->episodes[i], ls);
		steps += jr->episodes[i]->steps;
		if (o == EP_UNUSABLE)
			abnormal++;
		else
			out[n++] = (int8_t)o;
	}
	if (n)
		rc = brain_record_result(d->br, jr->job_id, out, n);
	else
		rc = brain_cancel_job(d->br, jr->job_id);
	if (rc == LG_EEXIST || rc == LG_ENOTFOUND) {
		/* Counted before (a restart re-issued it) or cancelled. */
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", jr->job_id, 0);
		return;
	}
	if (rc) {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_SERVER, lg_strerror(rc),
		    jr->job_id, 0);
		fail(d, rc, "brain_record_result");
		return;
	}
	result_counted(d, ss, sd, m, steps, abnormal);
}

/* ---- parameters over the wire ----------------------------------------- */

static void on_params_get(league_daemon *d, league_session *ss, net_msg *m)
{
	League__ParamsGet *g = m->params_get;
	net_msg r = LEAGUE__ENVELOPE__INIT;
	League__Params p = LEAGUE__PARAMS__INIT;
	uint8_t *blob;
	size_t len;
	char err[256] = "";
	int rc = params_read(d, g->player, g->version, &blob, &len, err,
			     sizeof err);

	if (rc) {
		ack(d, ss, m->seq, rc == LG_ENOTFOUND
				? LEAGUE__STATUS__STATUS_NOT_FOUND
				: LEAGUE__STATUS__STATUS_SERVER,
		    rc == LG_ENOTFOUND ? "no such parameters" : err,
		    g->version, 0);
		return;
	}
	p.player = g->player;
	p.version = g->version;
	p.blob.data = blob;
	p.blob.len = len;
	r.reply_to = m->seq;
	r.body_case = LEAGUE__ENVELOPE__BODY_PARAMS;
	r.params = &p;
	reply(d, ss, &r);
	free(blob);
}

static void on_params_put(league_daemon *d, league_session *ss,
			  struct sess_data *sd, net_msg *m)
{
	League__ParamsPut *pp = m->params_put;
	struct learner_slot *s = slot_of(d, pp->player);
	struct brain_step_report rep = { 0 };
	struct brain_player bp;
	uint32_t version;
	int rc;

	if (sd->role != LEAGUE__ROLE__ROLE_LEARNER || !s || s->owner != ss) {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
		    "not the registered learner of this player", 0, 0);
		return;
	}
	if (!pp->blob.len || pp->blob.len > d->cfg.server.max_frame) {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
		    "empty parameters", 0, 0);
		return;
	}
	if (!s->has_params) {
		/* The learner's initialisation: version 0, what resets go
		 * back to and what the first snapshots froze. */
		if ((rc = params_store(d, pp->player, 0, pp->blob.data,
				       pp->blob.len))) {
			fail(d, rc, "params");
			return;
		}
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", 0, 0);
		return;
	}
	brain_player_info(d->br, pp->player, &bp);
	if (pp->player_steps < bp.steps) {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
		    "player_steps went back", 0, 0);
		return;
	}
	version = s->newest + 1;
	if ((rc = params_store(d, pp->player, version, pp->blob.data,
			       pp->blob.len)) ||
	    (rc = brain_report_steps(d->br, pp->player, pp->player_steps,
				     version, &rep))) {
		fail(d, rc, "params put");
		return;
	}
	if (rep.snapshot) {
		slots_sync(d);
		LG_INFO("daemon: player %u: snapshot %u of version %u at %llu "
			"steps", pp->player, rep.snapshot_id,
			rep.snapshot_version,
			(unsigned long long)pp->player_steps);
	}
	if (rep.reset) {
		uint8_t *blob;
		size_t len;
		char err[256];
		if ((rc = params_read(d, pp->player, 0, &blob, &len, err,
				      sizeof err))) {
			fail(d, rc, err);
			return;
		}
		version++;
		rc = params_store(d, pp->player, version, blob, len);
		free(blob);
		if (rc || (rc = brain_report_steps(d->br, pp->player,
						   pp->player_steps, version,
						   &rep))) {
			fail(d, rc, "reset");
			return;
		}
		LG_INFO("daemon: player %u: reset to its initial parameters "
			"(version %u)", pp->player, version);
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", version, 1);
	} else {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", version, 0);
	}
	check_budget(d);
}

/* ---- registration ----------------------------------------------------- */

static void on_register(league_daemon *d, league_session *ss,
			struct sess_data *sd, net_msg *m)
{
	League__Register *rg = m->register_;
	net_msg r = LEAGUE__ENVELOPE__INIT;
	League__RegisterReply rr = LEAGUE__REGISTER_REPLY__INIT;
	uint8_t *blob = NULL;
	size_t len = 0;

	if (sd->role == LEAGUE__ROLE__ROLE_COLLECTOR) {
		sd->max_jobs = rg->max_jobs ? rg->max_jobs : 1;
	} else if (sd->role == LEAGUE__ROLE__ROLE_LEARNER) {
		struct learner_slot *s = slot_of(d, rg->player);
		const char *ep = rg->trajectory_endpoint;
		struct brain_player bp;
		char err[256];
		if (!s) {
			ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_NOT_FOUND,
			    "no such learning player", rg->player, 0);
			return;
		}
		if (sd->player != BRAIN_NONE && sd->player != rg->player) {
			ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
			    "a learner session owns one player", rg->player,
			    0);
			return;
		}
		if (s->owner && s->owner != ss) {
			ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BUSY,
			    "another learner owns this player", rg->player,
			    0);
			return;
		}
		if (!ep || !*ep || strlen(ep) > DAEMON_ENDPOINT_MAX) {
			ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
			    "trajectory_endpoint missing or too long",
			    rg->player, 0);
			return;
		}
		brain_player_info(d->br, rg->player, &bp);
		if (s->has_params && params_read(d, rg->player, s->newest,
						 &blob, &len, err,
						 sizeof err)) {
			ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_SERVER, err,
			    rg->player, 0);
			return;
		}
		s->owner = ss;
		snprintf(s->endpoint, sizeof s->endpoint, "%s", ep);
		sd->player = rg->player;
		rr.params_version = s->has_params ? s->newest : 0;
		rr.params.data = blob;
		rr.params.len = len;
		rr.player_steps = bp.steps;
		rr.league_seconds = run_seconds(d);
		LG_INFO("daemon: learner %s owns player %u (version %u, %llu "
			"steps), trajectories to %s",
			league_session_name(ss), rg->player, rr.params_version,
			(unsigned long long)bp.steps, s->endpoint);
	} else if (sd->role != LEAGUE__ROLE__ROLE_INSPECTOR) {
		/* Inspectors (the evaluator) register for the config only. */
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
		    "only collectors, learners and inspectors register", 0,
		    0);
		return;
	}
	rr.status = LEAGUE__STATUS__STATUS_OK;
	rr.error = (char *)"";
	rr.config = (char *)d->config_yaml.data;
	r.reply_to = m->seq;
	r.body_case = LEAGUE__ENVELOPE__BODY_REGISTER_REPLY;
	r.register_reply = &rr;
	reply(d, ss, &r);
	free(blob);
}

/* ---- exploitability over time (daemon.h) ------------------------------- */

static int eval_last_cb(const void *key, size_t klen, const void *val,
			size_t vlen, void *arg)
{
	struct league_eval_point *last = arg;

	if (!league_eval_decode(val, vlen, last))
		last->seq = 1; /* marks "found"; the newest one wins */
	return 0;
}

static int eval_load(league_daemon *d)
{
	struct league_eval_point pt = { 0 };
	uint64_t next = 0;
	store_txn *t;
	int rc;

	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	rc = store_meta_get_u64(t, "eval.next_snapshot", &next);
	if (rc == LG_ENOTFOUND)
		rc = 0;
	if (!rc)
		rc = store_iter(t, STORE_DB_EVAL, NULL, 0, eval_last_cb, &pt);
	store_txn_abort(t);
	d->eval.next = (uint32_t)next;
	d->eval.have = pt.seq != 0;
	d->eval.main = pt.nashconv_main;
	d->eval.league = pt.nashconv_league;
	return rc;
}

/* The /status fields (with a trailing ", "), or "" before any point. */
static const char *eval_status(const league_daemon *d)
{
	static char buf[128];

	if (!d->eval.have)
		return "";
	snprintf(buf, sizeof buf, "\"nashconv_main\": %.6f, "
		 "\"nashconv_league\": %.6f, ", d->eval.main, d->eval.league);
	return buf;
}

/* The main player whose newest parameters a point evaluates: the first
 * main player, else the first learner. BRAIN_NONE if none has params. */
static uint32_t eval_main_player(league_daemon *d)
{
	uint32_t first = BRAIN_NONE;

	for (uint32_t i = 0; i < d->nslots; i++) {
		struct brain_player p;
		if (!d->slots[i].is_learner || !d->slots[i].has_params ||
		    brain_player_info(d->br, i, &p))
			continue;
		if (p.role == BRAIN_ROLE_MAIN)
			return i;
		if (first == BRAIN_NONE)
			first = i;
	}
	return first;
}

/* Fill w with the work for the newest snapshot; 0 with has_work unset
 * when there is none (nothing new, parameters missing). The arrays are
 * the caller's (cap entries). */
static int eval_work(league_daemon *d, uint32_t cap, League__EvalWork *w,
		     League__EvalSnapshot *snaps, League__EvalSnapshot **sp,
		     double *weights)
{
	uint32_t ids[BRAIN_NASH_MAX], n = 0, mp;
	double *wr = NULL, *x = NULL;
	size_t k = 0;
	int rc = 0;

	for (uint32_t i = brain_count(d->br); i-- > 0 && n < cap;) {
		struct brain_player p;
		if (!brain_player_info(d->br, i, &p) &&
		    p.role == BRAIN_ROLE_HISTORICAL)
			ids[n++] = i;
	}
	if (!n || ids[0] < d->eval.next ||
	    (mp = eval_main_player(d)) == BRAIN_NONE)
		return 0;
	for (uint32_t i = 0; i < n / 2; i++) { /* oldest first */
		uint32_t tmp = ids[i];
		ids[i] = ids[n - 1 - i];
		ids[n - 1 - i] = tmp;
	}
	wr = malloc(sizeof(*wr) * n * n);
	x = malloc(sizeof(*x) * n * 2);
	if (!wr || !x) {
		rc = LG_ENOMEM;
		goto out;
	}
	if ((rc = payoff_matrix(brain_payoff(d->br), ids, n, wr, NULL)))
		goto out;
	for (size_t i = 0; i < (size_t)n * n; i++)
		wr[i] = 2 * wr[i] - 1;
	if ((rc = payoff_nash(wr, n, n, x, x + n, NULL, NULL)))
		goto out;
	double sum = 0;
	for (uint32_t i = 0; i < n; i++)
		sum += x[i] > 1e-9 ? x[i] : 0;
	for (uint32_t i = 0; i < n; i++) {
		struct brain_player p;
		if (brain_player_info(d->br, ids[i], &p))
			continue;
		if (!params_exist(d, p.parent, p.version))
			goto out; /* not stored yet: nothing to do now */
		snaps[k] = (League__EvalSnapshot)LEAGUE__EVAL_SNAPSHOT__INIT;
		snaps[k].id = ids[i];
		snaps[k].player = p.parent;
		snaps[k].version = p.version;
		sp[k] = &snaps[k];
		weights[k++] = x[i] > 1e-9 && sum > 0 ? x[i] / sum : 0;
	}
	if (!k)
		goto out;
	w->has_work = 1;
	w->snapshot = ids[n - 1];
	w->main_player = mp;
	w->main_version = d->slots[mp].newest;
	w->n_snapshots = k;
	w->snapshots = sp;
	w->n_weights = k;
	w->weights = weights;
	w->env_steps = d->env_steps;
	w->seconds = run_seconds(d);
	w->league_snapshots = n;
out:
	free(wr);
	free(x);
	return rc;
}

static const char *bg_status(const league_daemon *d)
{
	static char buf[256];
	const struct bgames *g = &d->bg;

	if (!g->nbase)
		return "";
	if (!g->have) {
		snprintf(buf, sizeof buf, "\"baseline_games\": %llu, "
			 "\"baseline_eval\": null, ",
			 (unsigned long long)g->games);
		return buf;
	}
	snprintf(buf, sizeof buf, "\"baseline_games\": %llu, "
		 "\"baseline_eval\": {\"player\": %u, \"version\": %u, "
		 "\"jobs\": %zu, \"jobs_done\": %zu}, ",
		 (unsigned long long)g->games, g->player, g->version,
		 g->njobs, g->done);
	return buf;
}

static void on_eval_request(league_daemon *d, league_session *ss,
			    struct sess_data *sd, net_msg *m)
{
	League__EvalSnapshot snaps[BRAIN_NASH_MAX], *sp[BRAIN_NASH_MAX];
	League__EvalWork w = LEAGUE__EVAL_WORK__INIT;
	net_msg r = LEAGUE__ENVELOPE__INIT;
	double weights[BRAIN_NASH_MAX];
	uint32_t cap = m->eval_request->max_snapshots;
	int rc;

	if (sd->role != LEAGUE__ROLE__ROLE_INSPECTOR) {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
		    "evaluation is for inspectors", 0, 0);
		return;
	}
	if (!cap || cap > BRAIN_NASH_MAX)
		cap = BRAIN_NASH_MAX;
	if (!d->stopping &&
	    (rc = eval_work(d, cap, &w, snaps, sp, weights))) {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_SERVER, lg_strerror(rc),
		    0, 0);
		return;
	}
	r.reply_to = m->seq;
	r.body_case = LEAGUE__ENVELOPE__BODY_EVAL_WORK;
	r.eval_work = &w;
	reply(d, ss, &r);
}

static int seq_scan_cb(const void *key, size_t klen, const void *val,
		       size_t vlen, void *arg)
{
	uint64_t *next = arg;

	if (klen == 8 && lg_get_be64(key) >= *next)
		*next = lg_get_be64(key) + 1;
	return 0;
}

static int eval_put_txn(store_txn *t, void *arg)
{
	struct league_eval_point *pt = arg;
	uint8_t k[8], v[LEAGUE_EVAL_REC_BYTES];
	uint64_t next = 0;
	int rc = store_meta_get_u64(t, "eval.next_seq", &next);

	/* The exploitability records are the 8-byte keys; the baseline rows
	 * ('B' keys) sort after them, so the last key says nothing. A league
	 * from before the counter existed is scanned once. */
	if (rc == LG_ENOTFOUND)
		rc = store_iter(t, STORE_DB_EVAL, NULL, 0, seq_scan_cb, &next);
	if (rc)
		return rc;
	pt->seq = next;
	store_meta_put_u64(t, "eval.next_seq", next + 1);
	store_key_u64(k, pt->seq);
	league_eval_encode(pt, v);
	store_put(t, STORE_DB_EVAL, k, sizeof k, v, sizeof v);
	store_meta_put_u64(t, "eval.next_snapshot", (uint64_t)pt->snapshot + 1);
	return store_txn_error(t);
}

static void on_eval_report(league_daemon *d, league_session *ss,
			   struct sess_data *sd, net_msg *m)
{
	League__EvalReport *er = m->eval_report;
	struct league_eval_point pt = { 0 };
	struct brain_player p;
	int rc;

	if (sd->role != LEAGUE__ROLE__ROLE_INSPECTOR ||
	    brain_player_info(d->br, er->snapshot, &p) ||
	    p.role != BRAIN_ROLE_HISTORICAL || !isfinite(er->nashconv_main) ||
	    !isfinite(er->nashconv_league) || !isfinite(er->seconds)) {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
		    "not a report on a snapshot", er->snapshot, 0);
		return;
	}
	if (er->snapshot < d->eval.next) {
		/* Evaluated already (a resent report): it counted once. */
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", er->snapshot, 0);
		return;
	}
	pt.snapshot = er->snapshot;
	pt.main_player = er->main_player;
	pt.main_version = er->main_version;
	pt.league_snapshots = er->league_snapshots;
	pt.env_steps = er->env_steps;
	pt.seconds = er->seconds;
	pt.nashconv_main = er->nashconv_main;
	pt.nashconv_league = er->nashconv_league;
	pt.eval_seconds = er->eval_seconds;
	if ((rc = store_update(d->st, eval_put_txn, &pt))) {
		ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_SERVER, lg_strerror(rc),
		    er->snapshot, 0);
		fail(d, rc, "eval report");
		return;
	}
	d->eval.next = er->snapshot + 1;
	d->eval.have = 1;
	d->eval.main = er->nashconv_main;
	d->eval.league = er->nashconv_league;
	LG_INFO("daemon: snapshot %u evaluated: NashConv main %.4f, league "
		"%.4f (%u snapshots, %.0f s, %llu env steps)", er->snapshot,
		er->nashconv_main, er->nashconv_league, er->league_snapshots,
		er->seconds, (unsigned long long)er->env_steps);
	ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", er->snapshot, 0);
}

/* ---- session callbacks ------------------------------------------------ */

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
		sd->next = d->sessions;
		if (d->sessions)
			d->sessions->prev = sd;
		d->sessions = sd;
		league_session_set_data(ss, sd);
	}
	switch (m->body_case) {
	case LEAGUE__ENVELOPE__BODY_REGISTER:
		on_register(d, ss, sd, m);
		break;
	case LEAGUE__ENVELOPE__BODY_JOB_REQUEST:
		on_job_request(d, ss, sd, m);
		break;
	case LEAGUE__ENVELOPE__BODY_JOB_RESULT:
		on_job_result(d, ss, sd, m);
		break;
	case LEAGUE__ENVELOPE__BODY_PARAMS_GET:
		on_params_get(d, ss, m);
		break;
	case LEAGUE__ENVELOPE__BODY_PARAMS_PUT:
		on_params_put(d, ss, sd, m);
		break;
	case LEAGUE__ENVELOPE__BODY_EVAL_REQUEST:
		on_eval_request(d, ss, sd, m);
		break;
	case LEAGUE__ENVELOPE__BODY_EVAL_REPORT:
		on_eval_report(d, ss, sd, m);
		break;
	default:
		LG_WARN("daemon: %s: unexpected %s; closing",
			league_session_name(ss), net_msg_name(m));
		league_session_close(ss, "protocol error: unexpected message");
		break;
	}
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
		struct learner_slot *s = slot_of(d, sd->player);
		if (s && s->owner == ss)
			s->owner = NULL;
	}
	if (sd->prev)
		sd->prev->next = sd->next;
	else
		d->sessions = sd->next;
	if (sd->next)
		sd->next->prev = sd->prev;
	free(sd);
	league_session_set_data(ss, NULL);
}

/* ---- HTTP ------------------------------------------------------------- */

/* "baseline_training": this run's games per baseline, by the main
 * player's seat (arrays of two: seat 0 moves first). */
static void tb_status(const league_daemon *d, lg_buf *b)
{
	const struct tbgames *t = &d->tb;

	if (!t->nbase)
		return;
	lg_buf_printf(b, "\"baseline_training\": [");
	for (size_t i = 0; i < t->nbase; i++)
		lg_buf_printf(b, "%s{\"baseline\": \"%s\", \"games\": "
			      "[%llu, %llu], \"wins\": [%llu, %llu], "
			      "\"losses\": [%llu, %llu]}", i ? ", " : "",
			      t->name[i],
			      (unsigned long long)t->games[i][0],
			      (unsigned long long)t->games[i][1],
			      (unsigned long long)t->wins[i][0],
			      (unsigned long long)t->wins[i][1],
			      (unsigned long long)t->losses[i][0],
			      (unsigned long long)t->losses[i][1]);
	lg_buf_printf(b, "], ");
}

static int status_json(void *ctx, lg_buf *b)
{
	league_daemon *d = ctx;
	uint32_t n = brain_count(d->br);
	int first = 1;

	lg_buf_printf(b, ", \"dir\": \"%s\", \"run_s\": %.1f, "
		      "\"env_steps\": %llu, \"env_steps_per_s\": %.1f, "
		      "\"jobs_done\": %llu, \"jobs_per_s\": %.2f, "
		      "\"episodes\": %llu, \"abnormal_episodes\": %llu, "
		      "\"jobs_queued\": %zu, \"jobs_in_flight\": %zu, "
		      "\"jobs_requeued\": %llu, \"stale_results\": %llu, "
		      "\"commits\": %llu, "
		      "\"players\": %u, \"snapshots\": %llu, "
		      "\"main_rating\": %.1f, \"stopping\": %s, %s%s",
		      d->dir, run_seconds(d),
		      (unsigned long long)d->env_steps, d->steps_per_s,
		      (unsigned long long)d->jobs_done, d->jobs_per_s,
		      (unsigned long long)d->episodes,
		      (unsigned long long)d->abnormal,
		      league_leases_queued(d->leases),
		      league_leases_active(d->leases),
		      (unsigned long long)d->requeued,
		      (unsigned long long)d->stale_results,
		      (unsigned long long)d->commits, n,
		      (unsigned long long)snapshot_count(d),
		      payoff_elo(brain_payoff(d->br), 0),
		      d->stopping ? "true" : "false", eval_status(d),
		      bg_status(d));
	tb_status(d, b);
	lg_buf_printf(b, "\"learners\": [");
	for (uint32_t i = 0; i < d->nslots; i++) {
		struct brain_player p;
		if (!d->slots[i].is_learner || brain_player_info(d->br, i, &p))
			continue;
		lg_buf_printf(b, "%s{\"id\": %u, \"role\": \"%s\", "
			      "\"steps\": %llu, \"version\": %u, "
			      "\"snapshots\": %u, \"resets\": %u, "
			      "\"elo\": %.1f, \"connected\": %s}",
			      first ? "" : ", ", i, brain_role_name(p.role),
			      (unsigned long long)p.steps, p.version,
			      p.snapshots, p.resets,
			      payoff_elo(brain_payoff(d->br), i),
			      d->slots[i].owner ? "true" : "false");
		first = 0;
	}
	return lg_buf_printf(b, "]");
}

/* The same object `league payoff --format json` prints (the newest
 * DAEMON_MATRIX_MAX agents when there are more). */
static int payoff_json(void *ctx, lg_buf *b)
{
	league_daemon *d = ctx;
	uint32_t n = brain_count(d->br), first = 0;
	uint32_t *ids;
	int rc;

	if (n > DAEMON_MATRIX_MAX)
		first = n - DAEMON_MATRIX_MAX;
	n -= first;
	if (!(ids = malloc(sizeof(*ids) * (n ? n : 1))))
		return LG_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		ids[i] = first + i;
	rc = brain_payoff_json(d->br, ids, n, b);
	free(ids);
	return rc;
}

/* ---- lifecycle -------------------------------------------------------- */

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	league_daemon *d = arg;
	double now = lg_now_s();
	size_t n = league_leases_expire(d->leases, now);

	if (n) {
		d->requeued += n;
		LG_INFO("daemon: %zu job lease(s) expired; re-queued", n);
	}
	/* Throughput counters are statistics, not results: they go to disk
	 * four times a second (and at stop), not with every result. */
	if (d->counters_dirty && !d->failed) {
		int rc = store_update(d->st, counters_txn, d);
		if (rc)
			fail(d, rc, "counters");
		d->counters_dirty = 0;
	}
	if (now - d->rate_t >= 1) {
		double dt = now - d->rate_t;
		d->steps_per_s = (double)(d->env_steps - d->rate_steps) / dt;
		d->jobs_per_s = (double)(d->jobs_done - d->rate_jobs) / dt;
		d->rate_steps = d->env_steps;
		d->rate_jobs = d->jobs_done;
		d->rate_t = now;
	}
	check_budget(d);
}

static void signal_cb(evutil_socket_t sig, short what, void *arg)
{
	league_daemon *d = arg;

	LG_INFO("daemon: signal %d: draining", (int)sig);
	league_daemon_stop(d, sig == SIGINT ? "interrupted" : "terminated");
}

static void drained(void *arg)
{
	league_daemon *d = arg;

	event_base_loopexit(d->base, NULL);
}

void league_daemon_stop(league_daemon *d, const char *reason)
{
	if (d->stopping)
		return;
	d->stopping = 1;
	snprintf(d->stop_reason, sizeof d->stop_reason, "%s", reason);
	/* Commit and answer what this turn handled before the Shutdown. */
	if (d->nout)
		flush_cb(-1, 0, d);
	if (brain_flush(d->br) || store_update(d->st, counters_txn, d))
		LG_ERROR("daemon: final flush failed");
	league_server_shutdown(d->srv, reason, 10, drained, d);
}

const char *league_daemon_stop_reason(const league_daemon *d)
{
	return d->stop_reason;
}

/* Jobs that were in flight when the last daemon stopped go out again with
 * their ids (a late result from before counts once, by id). */
static int reissue_open_jobs(league_daemon *d)
{
	uint64_t n = brain_open_jobs(d->br);
	struct brain_job *js;
	size_t got;
	int rc = 0;

	if (!n)
		return 0;
	if (!(js = malloc(sizeof(*js) * n)))
		return LG_ENOMEM;
	brain_open_jobs_list(d->br, js, n, &got);
	for (size_t i = 0; i < got && !rc; i++)
		rc = enqueue_job(d, &js[i]);
	free(js);
	if (!rc && got)
		LG_INFO("daemon: %zu job(s) in flight before the restart "
			"re-issued", got);
	return rc;
}

/* The structural part of a config must match the league on disk. */
static int config_matches(league_daemon *d, char *err, size_t errlen)
{
	lg_buf now = { 0 };
	store_txn *t;
	const void *v;
	size_t vl;
	int rc;

	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	rc = store_get(t, STORE_DB_META, "daemon.env", 10, &v, &vl);
	if (rc == LG_ENOTFOUND) {
		store_txn_abort(t);
		return 0;
	}
	lg_buf_printf(&now, "%s", d->cfg.env.name);
	if (rc || vl != now.len || memcmp(v, now.data, vl)) {
		lg_errf(err, errlen, "%s: the league plays '%.*s', the config "
			"says env.name '%s'", d->dir, (int)(rc ? 0 : vl),
			rc ? "" : (const char *)v, d->cfg.env.name);
		rc = LG_ECONFIG;
	}
	store_txn_abort(t);
	lg_buf_free(&now);
	return rc;
}

static int mark_created(store_txn *t, void *arg)
{
	league_daemon *d = arg;
	const void *v;
	size_t vl;

	if (store_get(t, STORE_DB_META, "daemon.env", 10, &v, &vl) == 0)
		return 0;
	store_put(t, STORE_DB_META, "daemon.env", 10, d->cfg.env.name,
		  strlen(d->cfg.env.name));
	return store_txn_error(t);
}

int league_daemon_new(league_daemon **out, struct event_base *base,
		      const struct league_daemon_opts *o, char *err,
		      size_t errlen)
{
	struct store_opts so = { .flags = o->store_flags };
	struct brain_opts bo;
	league_daemon *d;
	char path[CFG_STR_MAX + 16];
	struct stat sb;
	int rc;

	*out = NULL;
	if (!(d = calloc(1, sizeof *d)))
		return LG_ENOMEM;
	d->cfg = *o->cfg;
	d->base = base;
	snprintf(d->dir, sizeof d->dir, "%s", o->dir);
	snprintf(path, sizeof path, "%s/data.mdb", d->dir);
	int exists = stat(path, &sb) == 0;
	if (exists && !o->resume) {
		lg_errf(err, errlen, "%s already holds a league; pass --resume "
			"to continue it", d->dir);
		rc = LG_EEXIST;
		goto fail;
	}
	if (!exists && o->resume) {
		lg_errf(err, errlen, "--resume: no league in %s", d->dir);
		rc = LG_ENOTFOUND;
		goto fail;
	}
	if (mkdir(d->dir, 0755) && errno != EEXIST) {
		lg_errf(err, errlen, "%s: cannot create: %s", d->dir,
			strerror(errno));
		rc = LG_EIO;
		goto fail;
	}
	if ((rc = store_open(&d->st, d->dir, &so, err, errlen)))
		goto fail;
	if ((rc = config_matches(d, err, errlen)))
		goto fail;
	league_brain_opts(&d->cfg, &bo);
	bo.batch = UINT32_MAX; /* the daemon commits once per loop turn */
	if ((rc = brain_open(&d->br, d->st, &bo, err, errlen)))
		goto fail;
	if ((rc = store_update(d->st, mark_created, d))) {
		lg_errf(err, errlen, "%s: cannot write: %s", d->dir,
			lg_strerror(rc));
		goto fail;
	}
	if ((rc = slots_sync(d)) || (rc = params_load_index(d)) ||
	    (rc = counters_load(d)) || (rc = eval_load(d))) {
		lg_errf(err, errlen, "%s: cannot load the league: %s", d->dir,
			lg_strerror(rc));
		goto fail;
	}
	if ((rc = league_leases_new(&d->leases)))
		goto fail;
	if ((rc = bg_init(d, err, errlen)))
		goto fail;
	if ((rc = tb_init(d, err, errlen)))
		goto fail;
	if ((rc = bg_load(d))) {
		lg_errf(err, errlen, "%s: cannot load the evaluation rows: %s",
			d->dir, lg_strerror(rc));
		goto fail;
	}
	if ((d->bg.nbase || d->tb.nbase) &&
	    (rc = store_update(d->st, bg_epoch_txn, &d->bg))) {
		lg_errf(err, errlen, "%s: cannot write: %s", d->dir,
			lg_strerror(rc));
		goto fail;
	}
	if ((rc = reissue_open_jobs(d))) {
		lg_errf(err, errlen, "%s: cannot re-issue the jobs in flight: %s",
			d->dir, lg_strerror(rc));
		goto fail;
	}
	if ((rc = cfg_emit_yaml(&d->cfg, &d->config_yaml)) ||
	    (rc = lg_buf_append(&d->config_yaml, "", 1)))
		goto fail;

	/* Local workers read the learning players from the ports file. */
	size_t off = (size_t)snprintf(d->ports_extra, sizeof d->ports_extra,
				      "learners");
	for (uint32_t i = 0; i < d->nslots && off < sizeof d->ports_extra - 16;
	     i++)
		if (d->slots[i].is_learner)
			off += (size_t)snprintf(d->ports_extra + off,
						sizeof d->ports_extra - off,
						" %u", i);
	snprintf(d->ports_extra + off, sizeof d->ports_extra - off, "\n");

	struct league_server_opts so2 = {
		.listen = o->listen ? o->listen : d->cfg.server.listen,
		.port = (uint16_t)(o->port >= 0 ? o->port
						: (int)d->cfg.server.port),
		.http_port = (uint16_t)(o->http_port >= 0
						? o->http_port
						: (int)d->cfg.server.http_port),
		.token = o->token,
		.heartbeat_s = d->cfg.server.heartbeat_s,
		.max_frame = d->cfg.server.max_frame,
		.league_name = d->cfg.league.name,
		.env_name = d->cfg.env.name,
		.ports_file = o->ports_file,
		.ports_extra = d->ports_extra,
	};
	struct league_server_ops ops = {
		.ctx = d, .on_msg = on_msg, .on_close = on_close,
		.status_json = status_json, .payoff_json = payoff_json,
	};
	d->started = d->rate_t = lg_now_s();
	d->rate_steps = d->env_steps;
	d->rate_jobs = d->jobs_done;
	if ((rc = league_server_new(&d->srv, base, &so2, &ops, err, errlen)))
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
	LG_INFO("daemon: league '%s' (%s) in %s: %u players, %llu env steps "
		"so far; workers on %s:%u, HTTP on %u", d->cfg.league.name,
		d->cfg.env.name, d->dir, brain_count(d->br),
		(unsigned long long)d->env_steps, so2.listen,
		league_server_port(d->srv), league_server_http_port(d->srv));
	*out = d;
	return 0;
fail:
	league_daemon_free(d);
	return rc;
}

int league_daemon_run(league_daemon *d)
{
	check_budget(d);
	event_base_dispatch(d->base);
	return d->failed;
}

void league_daemon_free(league_daemon *d)
{
	if (!d)
		return;
	if (d->tick)
		event_free(d->tick);
	if (d->flush_ev)
		event_free(d->flush_ev);
	drop_replies(d);
	free(d->out);
	if (d->sigterm)
		event_free(d->sigterm);
	if (d->sigint)
		event_free(d->sigint);
	league_server_free(d->srv); /* no on_close calls: free ours */
	while (d->sessions) {
		struct sess_data *n = d->sessions->next;
		free(d->sessions);
		d->sessions = n;
	}
	if (d->br && d->st && !store_is_rdonly(d->st))
		store_update(d->st, counters_txn, d);
	brain_close(d->br);
	league_leases_free(d->leases);
	store_close(d->st);
	free(d->slots);
	free(d->bg.jobs);
	free(d->bg.last);
	lg_buf_free(&d->config_yaml);
	free(d);
}
