/*
 * league/daemon_internal.h: the daemon's state and the seams between its
 * files. Included by league/ only; the public contract is daemon.h.
 *
 *   daemon.c         lifecycle, message dispatch, the reply queue and the
 *                    turn's one commit, the tick, the budget, and the
 *                    steps every job kind shares (hand out, take a
 *                    result back)
 *   deterministic.c  league.deterministic's gates (a job goes out, a
 *                    result counts, a learner re-registers)
 *   learners.c       registration, the learner table, parameter versions
 *                    (the window, pins, ParamsGet and ParamsPut)
 *   kind_league.c          jobs the brain's matchmaking chooses
 *   kind_baseline_eval.c   main players evaluated against fixed baselines
 *   kind_baseline_train.c  main players trained against fixed baselines
 *   kind_probe.c           one-episode probes of the collectors (tests)
 *   kinds.c          the table of job kinds
 *   exploit.c        exploitability over time (EvalRequest, EvalReport)
 *   status.c         /status and /payoff
 *
 * One write batch per loop turn: every handler appends what it stores to
 * d->wb (the brain appends to the same batch), and daemon_commit() at the
 * end of the turn commits it in one transaction before any reply of the
 * turn is sent. Nothing else writes to the store.
 */
#ifndef LG_LEAGUE_DAEMON_INTERNAL_H
#define LG_LEAGUE_DAEMON_INTERNAL_H

#include "envs/env.h"
#include "league/daemon.h"
#include "league/job.h"
#include "league/lease.h"
#include "server/server.h"
#include "learner/learner.h"
#include "net/net.h"
#include "storage/storage.h"

#define DAEMON_MAX_JOBS_PER_REQUEST 64
#define DAEMON_ENDPOINT_MAX 255
#define DAEMON_MATRIX_MAX 512 /* /payoff shows at most this many agents */
#define DAEMON_KINDS_MAX 8
/* An episode is counted only when it is plausible (league/validate.c):
 * at most the game's max_steps (the cap itself when the game's spec is
 * unknown: env.max_steps' bound) and every return finite and within
 * DAEMON_RETURN_CAP (no game declares bounds on its returns; the
 * built-in ones stay within a few hundred). */
#define DAEMON_STEPS_CAP 1000000000ull
#define DAEMON_RETURN_CAP 1e9

/* One learning player: who owns it now and what it has stored. */
struct learner {
	int is_learner;
	league_session *owner;       /* NULL: no learner connected */
	char endpoint[DAEMON_ENDPOINT_MAX + 1];
	int has_params;              /* some version is stored */
	uint32_t newest;             /* newest stored version */
	uint8_t *blob;               /* the newest version's bytes */
	size_t blob_len;
	/* The trainer state stored with version trainer_version (cached
	 * like blob: read once, then kept as it is put); trainer_read: the
	 * cache holds what the store has (none: trainer NULL). */
	uint8_t *trainer;
	size_t trainer_len;
	uint32_t trainer_version;
	int trainer_read;
	/* league.deterministic: 1 + the id of the last job whose rows the
	 * stored state holds, 0: none (read with the state: trainer_read) */
	uint64_t through_job;
	/* Versions turn_first..newest wait in the batch while commits is
	 * still turn_commit (more than one put in a turn). */
	uint32_t turn_first;
	uint64_t turn_commit;
	int turn_puts;
	/* Env steps of counted episodes of jobs with a learning seat of
	 * this player, once per such seat, not yet spent by a version
	 * (not kept across restarts): what player_steps may advance by,
	 * with a slack (daemon_steps_allowed) */
	uint64_t steps_seen;
	double samples_per_s;        /* its last report (0: none yet) */
	/* League jobs the brain gave it, by kind (enum brain_kind), since
	 * the league began (the series' mix points); dirty: a point is due */
	uint64_t mix[BRAIN_JOB__COUNT];
	int mix_dirty;
};

/* Per session. */
struct sess_data {
	struct sess_data *next, *prev; /* every live session's, for free */
	int role;
	uint32_t player;             /* learner: the player it owns */
	uint32_t max_jobs;           /* collector */
	uint64_t results;
};

/* Exploitability over time (exploit.c). */
struct nashconv_state {
	uint32_t next;               /* snapshots below this are evaluated */
	uint64_t next_seq;           /* the next record's key */
	int have;                    /* a point is stored */
	double main, league;         /* NashConvs of the newest point */
	double oracle_mix, avg;
};

/*
 * A job kind: who makes its jobs, what a result of one means, and what
 * happens when one is given up. The daemon does the steps they share:
 * leasing, packing for the wire, the stale check, the episode cap, the
 * outcome tally from the subject seat, the counters and the Ack. A new
 * kind is one file defining one of these and one line in kinds.c.
 *
 * Every hook may be NULL. Hooks run on the daemon's loop; what they store
 * goes to d->wb.
 */
struct league_tally {
	const int8_t *outcomes;  /* usable episodes, from the subject seat:
				    1 won, 0 drawn, -1 lost */
	const double *returns;   /* the same episodes' subject-seat returns */
	/* The same episodes' returns of every seat, row-major n x nseats
	 * (episode e, seat s at e * nseats + s): what an N-seat job's
	 * result is counted from. */
	const double *seat_returns;
	uint32_t nseats;
	size_t n;
	uint64_t steps;          /* env steps over every episode */
	uint64_t abnormal;       /* episodes that could not be used */
	uint64_t episodes;       /* every episode reported */
};

enum {
	KIND_COUNTED = 0,  /* the result counted */
	KIND_IGNORED = 1,  /* acknowledged, but nothing counted (it was
			      counted before, or its purpose is gone) */
};

struct league_kind {
	const char *name;
	/* Its results count in the league's env steps, episodes and jobs
	 * (training); evaluation does not. */
	int counts;
	/* After the learners and parameters are loaded: read the config
	 * and the store, allocate *state. A kind the config leaves off
	 * returns 0 and stays idle. LG_ECONFIG (err says why) or storage
	 * errors stop the daemon from starting. */
	int (*init)(league_daemon *d, void **state, char *err,
		    size_t errlen);
	void (*fini)(league_daemon *d, void *state);
	/* A JobRequest is being answered: queue what the kind owes now.
	 * want is how many more jobs the request could take. */
	void (*make)(league_daemon *d, void *state, size_t want);
	/* Any kind's job j was just queued (its episodes may pay for this
	 * kind's jobs). */
	void (*queued)(league_daemon *d, void *state,
		       const struct league_job *j);
	/* The result of its job j, from the session that held the lease,
	 * tallied. KIND_COUNTED, KIND_IGNORED, or an LG_E* error (the Ack
	 * says so and the daemon stops: it could not record it). */
	int (*result)(league_daemon *d, void *state, const struct league_job *j,
		      const struct league_tally *t);
	/* Its job j will not be played or counted (refused result). */
	void (*drop)(league_daemon *d, void *state,
		     const struct league_job *j);
	/* A result for job_id that no lease holds: 1 when this kind counted
	 * it before (a worker resending after a restart: Ack OK). */
	int (*counted)(league_daemon *d, void *state, uint64_t job_id);
	/* 1 when (player, version) must stay in the parameter window. */
	int (*pins)(const league_daemon *d, const void *state,
		    uint32_t player, uint32_t version);
	/* /status fields, each `"name": value, `. */
	void (*status)(const league_daemon *d, const void *state, lg_buf *b);
};

/* kinds.c: the kinds, in the order they make jobs and print status. */
const struct league_kind *const *league_kinds(size_t *n);
/* The seats a job of this league fills: the game's players (2 when the
 * game does not open here, have_game 0). */
int daemon_seats(const league_daemon *d);
/* j's seats for a kind other than the brain's: daemon_seats(d) of them,
 * `mine` in seat subject (< daemon_seats) and, in a game of more than
 * one team, in every seat of the subject's team (its teammates are
 * copies of it: team self-play), `other` in every other seat (in a game
 * of one team, a common-payoff one, those are its partners). Sets
 * j->nseats and j->subject. With two seats of two teams: seat subject
 * and seat !subject, as before N seats. */
/* kinds.c: 1 when player may sit in seat: a seat of its population's
 * role in an asymmetric game (players.h), any seat otherwise. */
int daemon_seat_fits(const league_daemon *d, uint32_t player, int seat);
void daemon_seats_fill(const league_daemon *d, struct league_job *j,
		       int subject, const struct league_seat *mine,
		       const struct league_seat *other);
extern const struct league_kind league_kind_crossplay, league_kind_league,
	league_kind_baseline_eval, league_kind_baseline_train,
	league_kind_probe;

struct league_daemon {
	struct cfg cfg;
	struct league_daemon_opts opts;
	struct event_base *base;
	store *st;
	store_batch wb;              /* this turn's writes */
	brain *br;
	league_leases *leases;
	league_server *srv;
	net_tls *tls; /* server.tls's context; NULL: plain */
	struct event *tick, *sigterm, *sigint;
	char dir[CFG_STR_MAX];
	char ports_extra[4096];
	lg_buf config_yaml;          /* sent to every worker that registers */
	lg_buf ratings;              /* /ratings, rebuilt at most once a second */
	double ratings_at;
	uint64_t ratings_seq; /* the brain's log position it was built at */

	/* Fixed players a seat may name (league_seat.baseline - 1): the
	 * evaluation ones, then the training ones (cfg_all_baselines). */
	char baselines[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	size_t nbaselines;

	struct learner *learners;    /* by player id, for ids < nlearners */
	uint32_t nlearners;

	const struct league_kind *kinds[DAEMON_KINDS_MAX];
	void *kstate[DAEMON_KINDS_MAX];
	size_t nkinds;
	uint32_t epoch;              /* daemon starts, in daemon job ids */
	uint32_t next_id;            /* ... and their counter */

	/* Counters committed with every turn that changed them. */
	uint64_t env_steps, jobs_done, episodes, abnormal;
	/* ... and episodes refused as implausible (validate.c); refused
	 * parameter versions (not kept: a count of this run). */
	uint64_t invalid_episodes, refused_params;
	uint64_t clamped_steps; /* ParamsPut counts cut to the bound */
	/* The game's spec and the model's shape (daemon_game_load);
	 * have_game 0: the game did not open here. */
	struct env_spec spec;
	struct nn_shape shape;
	int have_game;
	double seconds_before;       /* run time of earlier runs */
	double started;
	/* Rates over the last second. */
	uint64_t rate_steps, rate_jobs;
	double rate_t, steps_per_s, jobs_per_s;
	double series_t;             /* when the last throughput point was */
	uint64_t stale_results, requeued;
	uint64_t refused_requests;   /* JobRequests refused at a cap (BUSY) */
	int counters_dirty;
	struct nashconv_state nashconv;

	struct sess_data *sessions;
	struct pending *out;         /* replies waiting for the commit */
	size_t nout, capout;
	struct event *flush_ev;
	uint64_t commits;
	int stopping;
	int failed;                  /* an LMDB write failed: stop */
	char stop_reason[128];
};

/* ---- daemon.c ------------------------------------------------------------ */

/* Queue a reply for ss, sent after this turn's commit. */
void daemon_reply(league_daemon *d, league_session *ss, const net_msg *m);
void daemon_ack(league_daemon *d, league_session *ss, uint64_t reply_to,
		int status, const char *error, uint64_t id, int reset);
/* A write the league could not make: log, stop serving. */
void daemon_fail(league_daemon *d, int rc, const char *what);
/* League run seconds, resumes included. */
double daemon_run_seconds(const league_daemon *d);
/* Stop when a budget is spent. */
void daemon_check_budget(league_daemon *d);
/* A fresh id for a job of a kind other than the brain's. */
uint64_t daemon_job_id(league_daemon *d);
/* The seed of a job's episodes (from the league seed and the id). */
uint64_t daemon_job_seed(const league_daemon *d, uint64_t job_id);
/* Queue j for the collectors and tell every kind (kind->queued). 0,
 * LG_EEXIST, LG_ENOMEM. */
int daemon_queue_job(league_daemon *d, const struct league_job *j);
/* This kind's state. */
void *daemon_kind_state(const league_daemon *d, const struct league_kind *k);
/* The index + 1 of baseline name in d->baselines, 0 if it is not one. */
uint8_t daemon_baseline_index(const league_daemon *d, const char *name);

/* ---- deterministic.c ------------------------------------------------------- */

/* league.deterministic: 1 when a job may go out now (none in flight,
 * every learning player's learner registered with its parameters). */
int daemon_det_may_issue(league_daemon *d);
/* league.deterministic: the player of a learning seat of leased job id
 * whose learner has not yet kept the job's rows; BRAIN_NONE: none. */
uint32_t daemon_det_rows_missing(league_daemon *d, uint64_t id);
/* league.deterministic: a learner of player registered: the leased jobs
 * it learns in are played again (queued ahead, the same ids), since the
 * rows sent to its old process may be gone. No-op otherwise. */
void daemon_det_requeue(league_daemon *d, uint32_t player);

/* ---- learners.c ------------------------------------------------------------ */

/* The learner of player, or NULL when player is not a learning one. */
struct learner *daemon_learner(league_daemon *d, uint32_t player);
/* Grow the table to every id the brain knows. */
int daemon_learners_sync(league_daemon *d);
/* The index of stored parameter versions (at start). */
int daemon_params_load(league_daemon *d);
/* 1 when (player, version) is stored (or in this turn's batch). */
int daemon_params_exist(league_daemon *d, uint32_t player, uint32_t version);
/* league.deterministic: 1 + the id of the last job whose rows player's
 * learner has kept (its stored trainer state holds them); 0: none, or
 * unreadable (logged). */
uint64_t daemon_through_job(league_daemon *d, uint32_t player);
/* A version no one pins any more: delete it now if the window has
 * moved past it (appended to the batch). */
int daemon_params_release(league_daemon *d, uint32_t player,
			  uint32_t version);
void daemon_learners_free(league_daemon *d);
void daemon_on_register(league_daemon *d, league_session *ss,
			struct sess_data *sd, net_msg *m);
void daemon_on_params_get(league_daemon *d, league_session *ss,
			  struct sess_data *sd, net_msg *m);
void daemon_on_params_put(league_daemon *d, league_session *ss,
			  struct sess_data *sd, net_msg *m);

/* ---- validate.c -------------------------------------------------------------- */

/* The game's spec and the model's shape into d (a game that does not
 * open here, a remote one whose server is not up: have_game 0, logged).
 * Always 0. */
int daemon_game_load(league_daemon *d);
/* 0 when blob is a version of the league's model (nn_check_blob), else
 * its error with err saying why. */
int daemon_params_check(const league_daemon *d, const void *blob,
			size_t len, char *err, size_t errlen);
/* The most player_steps a ParamsPut of player may carry when the brain
 * has it at `have`: have + the steps of its counted episodes since its
 * last version, once per seat it learns in (steps_seen) + the rows of
 * the jobs leased now in which it learns (episodes x max_steps a seat:
 * their results are not in yet) + a slack of two pushes' rows, 2 x
 * learner.push_every x (learner.batch + collectors.segment_len), for
 * what a restart forgot and a push lost on the way. Saturates at
 * UINT64_MAX. */
uint64_t daemon_steps_allowed(league_daemon *d, uint32_t player,
			      uint64_t have);
/* Job j's counted episodes played steps: into the steps_seen of each
 * learning seat's player (a player in both seats twice: a simultaneous
 * game gives each seat a row at every step). */
void daemon_steps_seen(league_daemon *d, const struct league_job *j,
		       uint64_t steps);
/* The longest episode the game may play (DAEMON_STEPS_CAP when the game
 * is unknown). */
uint64_t daemon_max_steps(const league_daemon *d);
/* 0 when episode e is one the game could have played (steps, returns),
 * else -1 with why. */
int daemon_episode_check(const league_daemon *d, const League__Episode *e,
			 char *why, size_t whylen);

/* 0 when every episode of result jr (from ss) has one return per seat
 * of job j (league_job_seats), else -1 with why naming the first that
 * has not, logged with the worker's name: the result is refused whole. */
int daemon_result_check(league_session *ss, const League__JobResult *jr,
			const struct league_job *j, char *why, size_t whylen);
/* Job j's episodes (the result jr from ss, daemon_result_check passed)
 * into t: from its subject seat, outcomes and returns of the usable ones
 * into out and ret (room for LEAGUE_JOB_EPISODES_MAX); every seat's
 * returns of the same episodes into seat_ret (room for
 * LEAGUE_JOB_EPISODES_MAX x league_job_seats(j)), row-major, which
 * t->seat_returns and t->nseats then name. An episode
 * daemon_episode_check refuses counts nowhere, neither its steps nor
 * its outcome: their number is returned, and the first one's reason
 * logged with the worker's name (while fewer than ten were refused
 * before, then when that count is a power of two). */
uint64_t daemon_tally_episodes(league_daemon *d, league_session *ss,
			      const League__JobResult *jr,
			      const struct league_job *j,
			      struct league_tally *t, int8_t *out, double *ret,
			      double *seat_ret);

/* ---- exploit.c -------------------------------------------------------------- */

int daemon_nashconv_load(league_daemon *d);
void daemon_on_eval_request(league_daemon *d, league_session *ss,
			    struct sess_data *sd, net_msg *m);
void daemon_on_eval_report(league_daemon *d, league_session *ss,
			   struct sess_data *sd, net_msg *m);

/* ---- status.c ---------------------------------------------------------------- */

int daemon_status_json(void *ctx, lg_buf *b);
int daemon_payoff_json(void *ctx, lg_buf *b);
int daemon_metrics_text(void *ctx, lg_buf *b);
int daemon_ratings_json(void *ctx, lg_buf *b);
int daemon_nashconv_json(void *ctx, lg_buf *b);
int daemon_series_json(void *ctx, lg_buf *b);
int daemon_lineage_json(void *ctx, const struct league_page *pg, lg_buf *b);
int daemon_jobs_json(void *ctx, const struct league_page *pg, lg_buf *b);

#endif
