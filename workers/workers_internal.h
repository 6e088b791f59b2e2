/*
 * workers/workers_internal.h: what the worker processes' files share.
 * Only workers/ includes it; workers.h is the public contract.
 *
 *   client.c        what every worker does and says to the daemon the
 *                   same way: its start (name, TLS, signals), connecting
 *                   and dialling again, calls that log why they failed,
 *                   registration, a network fetched by (player, version)
 *   signals.c       the stop signals every worker obeys and the fatal
 *                   signals' one-line report
 *   traj_out.c      the collector's trajectory senders, one per learner
 *   collect.c       the collector: start, registration, the main loop,
 *                   the counters, the stop
 *   collect_slots.c the collector's networks: net slots and the env
 *                   manager's policies over them
 *   collect_jobs.c  the collector's jobs: taken, episodes handed to the
 *                   envs, segments to the learners, results reported
 *   collect_det.c   the collector's deterministic mode: an env manager
 *                   per job, end marks, segments counted
 *   learn.c         the learner: start, the loop, segments into the
 *                   batch, PPO updates, the stop
 *   learn_sync.c    the learner's trainer as the daemon holds it:
 *                   registration (the trainer kept or loaded), pushes
 *   learn_det.c     the learner's deterministic mode: a job's rows in
 *                   order, its state kept at the job's end
 *   evaluate.c      the evaluator
 */
#ifndef LG_WORKERS_INTERNAL_H
#define LG_WORKERS_INTERNAL_H

#include <pthread.h>
#include <signal.h>

#include "collector/collector.h"
#include "conf/config.h"
#include "conf/options.h"
#include "envs/env.h"
#include "learner/learner.h"
#include "net/net.h"
#include "util/util.h"
#include "workers/workers.h"

/* ---- the daemon, for every worker (client.c) ---- */

#define WORKER_CALL_S 60.0

/* What every worker does first: its name into name (given, else
 * "PREFIX.ID"), its TLS from the environment (worker_tls: a client
 * context into *client; server, when not NULL, a learner endpoint's),
 * its log tag and stop signals (worker_signals). 0, or the exit status
 * with the reason on stderr. */
int worker_start(const char *who, const char *given, const char *prefix,
		 long id, char *name, size_t namelen, net_tls **client,
		 net_tls **server, int server_verify);
/* Connect to the daemon at host:port as role (League__Role) under name,
 * with $LEAGUE_TOKEN and tls (NULL: plain), retrying for 60 s. 0 with
 * *cl; else "league WHO: why" on stderr and the exit status:
 * WORKER_EXIT_USAGE for a refused token or protocol version, else
 * WORKER_EXIT_FAIL. */
int worker_connect(const char *who, const char *host, uint16_t port,
		   net_tls *tls, int role, const char *name, net_client **cl);
/* Dial the daemon again after it went away (with backoff, as connect):
 * 0, or the error with "WHO: daemon unreachable: why" logged. The caller
 * registers again. */
int worker_redial(net_client *cl, const char *who);
/* What a worker's step returns, beside 0 (go on) and errors (stop,
 * failed): WORKER_STOP, the worker is to stop (a signal, or the daemon's
 * Shutdown), which is no failure; WORKER_BROKEN, the connection to the
 * daemon broke (a call failed with LG_ECLOSED or LG_ETIMEOUT). */
enum { WORKER_STOP = 1, WORKER_BROKEN = 2 };
/* A worker's main loop: step(ctx) until a stop signal or the daemon's
 * Shutdown. A broken connection is read to its end (a Shutdown may sit
 * unread behind the close) and then, unless the worker is to stop,
 * mended by reconnect(ctx), the worker's own (worker_redial, then its
 * registration). 0 when the worker stopped, else the first error of a
 * step or of reconnect. */
int worker_loop(net_client *cl, int (*step)(void *ctx),
		int (*reconnect)(void *ctx), void *ctx);
/* net_client_call with a log line "<who>: <what>: <why>" on failure. */
int worker_call(net_client *c, const char *who, const char *what,
		net_msg *req, net_msg **rep);
/* Why a reply is not the one asked for (an Ack's error, or its type). */
const char *worker_refusal(const net_msg *r);
/* Register as rg says; with cfg, load the config the reply carries into
 * it. A refusal is logged and LG_EINVAL; call errors as worker_call;
 * LG_ECONFIG (logged) for a config that does not load. */
int worker_register(net_client *c, const char *who, League__Register *rg,
		    struct cfg *cfg);
/* The config a RegisterReply carries, into c. LG_ECONFIG (logged). */
int worker_config(const net_msg *register_reply, struct cfg *c,
		  const char *who);
/* Parse a parameter blob; with shape, refuse another shape (LG_ECONFIG). */
int worker_load_net(const void *blob, size_t len,
		    const struct nn_shape *shape, const char *who,
		    uint32_t player, uint32_t version, nn **out);
/* ParamsGet (player, version), then worker_load_net. LG_ENOTFOUND
 * when the daemon has no such version; connection errors as the call. */
int worker_fetch_net(net_client *c, const char *who, uint32_t player,
		     uint32_t version, const struct nn_shape *shape,
		     nn **out);

/* ---- signals (signals.c) ---- */

/* The stop signal received (SIGINT, SIGTERM), 0 while none. */
extern volatile sig_atomic_t worker_stop_signal;
/* Log tag name, SIGPIPE ignored, SIGINT and SIGTERM set
 * worker_stop_signal. */
void worker_signals(const char *name);
/* True when the worker is to stop: a stop signal, or the daemon's
 * Shutdown on cl. */
int worker_stopping(const net_client *cl);
/* Fatal signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) write one line
 * to stderr before the process dies: "fatal: signal 11 (SIGSEGV) in the
 * game 'NAME': its apply() for player 0 at step 3 of the episode" when a
 * thread was in a game's code (env_current_call), so a worker's log says
 * what killed it. Left alone where a sanitizer installed its handler. */
void worker_fatal_signals(void);

/* ---- the collector's trajectory senders (traj_out.c) ---- */

/* Senders and down marks kept: the oldest goes beyond this. */
#define WORKER_TRAJ_OUT_MAX 16

struct worker_traj_sender {
	char endpoint[160];
	net_traj_sender *s;
};

/* An endpoint that refused or failed a send: its segments are refused
 * until `until`, and for jobs taken before `since` (the failure). */
struct worker_traj_down {
	char endpoint[160];
	double until, since, warned_at;
	unsigned fails;      /* in a row: the hold-off doubles with each */
};

/* Zero it, then set the first five fields. One thread at a time. */
struct worker_traj_out {
	const char *token, *name; /* the league's token, the worker's name */
	net_tls *tls;             /* client context, NULL: plain */
	double silent_s;          /* NET_SILENT_HEARTBEATS x heartbeat_s */
	const uint64_t *undeliverable; /* the caller's count, for warnings */
	struct worker_traj_sender senders[WORKER_TRAJ_OUT_MAX];
	int nsenders;
	struct worker_traj_down down[WORKER_TRAJ_OUT_MAX];
	int ndown;
};

/* h and rows to the learner at ep (the seat's endpoint in a job taken at
 * got_at, lg_now_s() clock), waiting for its credit up to timeout_s, and
 * up to silent_s for a learner that says nothing or takes no byte. 0:
 * sent. Else the rows did not go (the caller counts them): LG_ECLOSED
 * when ep is down (not tried: within its hold-off, or the job is older
 * than the failure) or cannot be reached, or what the send failed with
 * (LG_ETIMEOUT: given up); either way ep is down now and logged. */
int worker_traj_out_send(struct worker_traj_out *o, const char *ep,
			 double got_at, const struct net_segment_hdr *h,
			 const struct lg_rows *rows, double timeout_s);
/* A deterministic job's end mark (none: no rows) to ep, tried whatever
 * ep's down mark says; as worker_traj_out_send otherwise. */
int worker_traj_out_mark(struct worker_traj_out *o, const char *ep,
			 const struct net_segment_hdr *h,
			 const struct lg_rows *none, double timeout_s);
/* Close every sender (o itself is the caller's). */
void worker_traj_out_close(struct worker_traj_out *o);

/* ---- the collector (collect*.c) ---- */

#define COLLECT_MAX_OPEN_JOBS 32
#define COLLECT_SEND_TIMEOUT_S 120.0
#define COLLECT_MAX_EPISODES_PER_JOB LEAGUE_JOB_EPISODES_MAX
/* Net slots; the env manager sees each twice: policy k samples slot k,
 * policy COLLECT_NET_SLOTS + k plays slot k greedily (evaluation
 * seats). */
#define COLLECT_NET_SLOTS (COLL_NETS_MAX / 2)

struct netslot {
	nn *net;
	nn_ws *ws;
	nn_ws *gws;            /* the greedy policy's: it may run at once */
	size_t search_batch;   /* rows of a search thread's workspace */
	uint32_t player, version;
	int refs;              /* open jobs using it */
};

/* What a policy of the env manager plays: a slot, sampling or greedy. */
struct slot_policy {
	struct netslot *slot;
	int greedy;
};

struct cjob {
	League__Job *msg;      /* unpacked copy */
	uint64_t serial;       /* episode tag: unique per copy of a job (a
				  re-issued job may come back under the same
				  id while the abandoned copy still plays) */
	/* Per seat, for the msg->n_seats seats (the game's players): */
	int net[ENV_MAX_PLAYERS];       /* slot (-1: a baseline plays it);
					   seats of one (player, version)
					   share it, batched together */
	uint32_t base[ENV_MAX_PLAYERS]; /* baseline: index + 1, or 0 */
	int greedy[ENV_MAX_PLAYERS];    /* plays its most probable action */
	uint32_t handed, ended;
	double got_at;         /* lg_now_s() when taken */
	int abandoned;         /* a reconnect made its result stale */
	/* deterministic: segments sent to each seat's learner, and whether
	 * any of the job's rows could not be sent (then no end mark and no
	 * result: the job is played again when its lease ends) */
	uint32_t sent[ENV_MAX_PLAYERS];
	int lost;
	League__Episode *eps;  /* [msg->episodes] */
	double *ret;           /* [episodes x n_seats] */
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
	net_tls *tls; /* client context (LEAGUE_TLS_*), NULL: plain */
	net_client *cl;
	coll *c;
	char name[64];
	uint64_t envs;
	struct env_spec spec;
	struct nn_shape shape;
	const char *token;

	pthread_mutex_t mu;    /* jobs, slots' refs, counters */
	struct cjob *jobs[COLLECT_MAX_OPEN_JOBS];
	int njobs;
	uint64_t next_serial;
	struct netslot slots[COLLECT_NET_SLOTS];
	struct slot_policy views[COLL_NETS_MAX]; /* the policies' ctx */
	/* The league's eval.baselines and matchmaking.baselines: what a
	 * seat's `baseline` may name. */
	char base[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	const char *basep[CFG_BASELINES_MAX];
	size_t nbase;
	struct coll_policy pols[COLL_NETS_MAX];
	struct worker_traj_out out; /* learner endpoints; sink thread only */
	/* deterministic: the engine's policies, one per seat of its job */
	struct coll_policy det_pols[ENV_MAX_PLAYERS];
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
	double last_log, idle_until; /* the last counter line; no job
					request before idle_until */
	uint64_t last_steps; /* env steps at the last counter line */
};

/* collect.c: the env manager of the worker (deterministic mode: of job
 * j, else NULL), seeded by seed, on the options made at the start. */
int worker_engine_start(struct collect *W, const struct cjob *j,
			uint64_t seed);

/* collect_slots.c: W->pols, every slot as a sampling and as a greedy
 * policy, each search thread's workspace search_batch rows. */
void worker_slots_policies(struct collect *W, size_t search_batch);
/* A net slot holding (player, version), loading it if need be; its
 * reference is the caller's (worker_slot_put). Caller holds no lock:
 * slots with refs 0 are touched by no env. LG_EFULL when every slot is
 * in use; else 0 or the fetch's error. */
int worker_slot_get(struct collect *W, uint32_t player, uint32_t version,
		    int *out);
/* Give back a reference of slot k (-1: none). Caller holds W->mu. */
void worker_slot_put(struct collect *W, int k);
/* Free what a slot holds. */
void worker_slot_clear(struct netslot *ns);

/* collect_jobs.c: the env manager's callbacks (next episode, an
 * episode's result, a segment's sink) into o, on W. */
void worker_jobs_hook(struct collect *W, struct coll_opts *o);
/* The open job of episode tag serial, or NULL. Caller holds W->mu. */
struct cjob *worker_job_by_serial(struct collect *W, uint64_t serial);
void worker_job_free(struct cjob *j);
/* Give back every slot reference of j's seats. Caller holds W->mu. */
void worker_job_put_slots(struct collect *W, struct cjob *j);
/* Report and drop every finished job. 0, or the daemon's call error. */
int worker_jobs_report(struct collect *W);
/* Ask for up to want jobs and take them: how many came, or an error. */
int worker_jobs_request(struct collect *W, uint32_t want);
/* Jobs held, abandoned ones included (they still take a place). */
int worker_jobs_open(struct collect *W);
/* Episodes not yet handed to an env. */
uint64_t worker_jobs_backlog(struct collect *W);

/* collect_det.c: deterministic mode. */
int worker_det_engine(struct collect *W);
void worker_det_count(struct collect *W, const struct coll_segment *g,
		      int sent);
void worker_det_job_over(struct collect *W, struct cjob *j);

/* ---- the learner (learn*.c) ---- */

/* What the daemon may hold of a trainer: a blob's checksum and length. */
struct blob_id { uint32_t crc; size_t len; int set; };

struct learn {
	struct cfg cfg;
	net_tls *tls, *tls_srv; /* to the daemon; the endpoint's (LEAGUE_TLS_*) */
	/* What the daemon may hold of this trainer: the blob of version
	 * `version` (pushed and acknowledged, or loaded), and the blob of a
	 * push whose answer never came (committed or not). A re-registration
	 * keeps the trainer only when the daemon's newest is one of them. */
	struct blob_id synced, inflight;
	net_client *cl;
	net_traj_server *ts;
	char name[64], endpoint[160], listen[128];
	uint32_t player;
	int have_cfg;

	struct env_spec spec;
	struct nn_shape shape;
	struct ppo_opts po;
	ppo *p;
	uint32_t version;     /* the version our net started from */
	uint64_t steps;       /* agent steps trained on (daemon's count) */
	uint64_t updates, pushes, rejected, resets, trainer_too_big;
	/* The last update's statistics and rows per second of training,
	 * sent with the next push (the daemon's time series) */
	struct ppo_stats last;
	double last_rate;
	int have_last;
	/* League time at registration and when it came: the clock of the
	 * linear learning-rate schedule over budget.seconds */
	double league_s, league_at;

	/* league.deterministic (det): the state is kept at every job's
	 * end, the rows waiting in the batch with it. kept: 1 + the id of
	 * the last job whose rows it holds (0: none); cur_job/cur_seq: the
	 * job being taken (cur_on) and its last segment; pushed_updates:
	 * the update count at the last version, so a job's end without an
	 * update keeps the state (a checkpoint) without a version. */
	int det, cur_on;
	uint64_t kept, cur_job, cur_seq, pushed_updates;
	uint32_t cur_count; /* segments of cur_job taken */

	/* The batch being gathered: segments are appended to it straight
	 * from the frames they came in (net_segment_append), and PPO
	 * trains on it as it is. Room for learner.batch + segment_len. */
	struct lg_rows batch;
};

/* learn_sync.c: register (again, after a reconnect) and take the
 * daemon's view of the player: its config, newest parameters and step
 * count. A fresh player gets initial parameters from the seed, pushed as
 * version 0. */
int worker_learn_register(struct learn *W);
/* Send our parameters; the daemon stores them as a new version (or as
 * version 0 when it holds none yet). A checkpoint (deterministic mode,
 * no update since the last version) sends the trainer state alone, for
 * the newest version. LG_EPROTO when the daemon refused it (register
 * again). */
int worker_learn_push(struct learn *W, int checkpoint);

/* learn_det.c: deterministic mode around a segment of ours. */
int worker_learn_det_before(struct learn *W, const struct net_segment *g,
			    int *skip);
int worker_learn_det_job_end(struct learn *W, const struct net_segment *g);

#endif
