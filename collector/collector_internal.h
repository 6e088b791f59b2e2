/*
 * collector/collector_internal.h: what the collector's files share. Only
 * the collector's .c files include it; collector.h is the public
 * contract.
 *
 * Files, top to bottom: a file calls only files below it, never one
 * above nor one beside it (tests/layers.py checks it at make test):
 *   collector.c  the public lifecycle: options, coll_new/collect/stop/free
 *   slot.c       the drivers of the slot state machine: a worker thread
 *                per env (its wait for actions, coll_await_actions) or
 *                the caller in serial mode, and the watchdog that
 *                replaces a hung worker
 *   batch.c      batching shared by every mode: rows posted per network,
 *                one forward per batch (gather, act, scatter), the
 *                inference devices of the threaded modes (a thread per
 *                device that runs its network's batches)
 *   host.c       env hosting: env calls in the worker's thread or in a
 *                child process over a socketpair, baselines' moves
 *   traj.c       trajectory building: rows per learning seat, rewards,
 *                episode ends, segments to the sink and held results
 *   search.c     the search operator: PUCT at a learning seat's move, in
 *                the thread that hosts the env, before the slot posts
 *   state.c      the bottom: the state setter (coll_slot_set_state) and
 *                per-state counts, the step count, the fatal error, the
 *                parks, and a seat's role (coll_learning, coll_searches)
 *
 * Invariants:
 *   - c->mu guards every slot's state fields, the ready rows of each
 *     network group, the groups' device counts and the counters.
 *     Trajectory buffers of a slot are touched only by the slot's
 *     current worker (or by coll_stop after every worker is joined);
 *     sink and result calls hold c->sink_mu only.
 *   - A slot's state changes only in coll_slot_set_state, which keeps
 *     c->nstate[] (slots per state) right; the counters the batching
 *     rules read (busy, resetting, dead) are sums of nstate, never kept
 *     by hand.
 *   - Threads wake each other one by one (struct park), never by a
 *     broadcast on a condition variable many threads wait on, and where
 *     the hot path wakes a thread it does so after releasing c->mu, so
 *     the woken thread does not block on mu at once.
 *   - A worker whose env call passes its deadline (thread mode) is
 *     abandoned: the slot's generation moves on and a new worker takes
 *     the slot; the old thread, once its call returns, sees the
 *     generation changed and exits touching only its own env.
 *   - A searched seat never reaches a group: its worker searches before
 *     the slot posts (BOOKING or RESETTING, no mu held) and answers the
 *     seat itself when it posts (coll_post_ready), so a slot whose
 *     acting seats all searched goes READY -> ACTED at once.
 *   - Baseline seats never reach the slot: every op ends with auto-play
 *     (the baselines move until a network must act or the episode is
 *     over) in whoever hosts the env, so a reply always describes a
 *     state where only network seats act, and acting/batching never see
 *     a baseline seat. The cmd carries each seat's baseline, so the
 *     child needs no other copy of the match.
 */
#ifndef LG_COLLECTOR_INTERNAL_H
#define LG_COLLECTOR_INTERNAL_H

#include <pthread.h>
#include <sys/types.h>

#include "collector/collector.h"
#include "util/rows.h"

/*
 * Slot states, in the order of an env's life:
 *
 *   RESETTING --> READY --> ACTED --> STEPPING --> BOOKING --+--> READY
 *      ^  |                              |                   |
 *      |  +--> DEAD, EXITED              +--> RESETTING      +--> RESETTING
 *      +------------------------------------(watchdog)       +--> DEAD
 *
 * RESETTING  the env is being created or reset, or waits for a match
 *            (an idle env), or for coll_collect (all-baseline matches)
 * READY      its acting seats' rows are posted in their groups
 * ACTED      every row has its action; the worker is about to step
 * STEPPING   the env call is in flight (the watchdog's step deadline)
 * BOOKING    the call returned: steps, rewards and the episode's end are
 *            being booked, outside mu
 * DEAD       given up after max_retries (final)
 * EXITED     its worker left at coll_stop before posting (final)
 */
enum slot_state {
	SLOT_RESETTING,
	SLOT_READY,
	SLOT_ACTED,
	SLOT_STEPPING,
	SLOT_BOOKING,
	SLOT_DEAD,
	SLOT_EXITED,
	SLOT_NSTATES
};

enum op { OP_CREATE = 1, OP_RESET, OP_STEP };

/* A learning seat's rows not yet sent: rows [0, n) are complete, and
 * while the seat's row is posted row n holds its observation and mask
 * (the pending row), so they are written once, where the segment will
 * send them from. */
struct traj {
	struct lg_rows rows; /* cap segment_len */
	uint64_t episode;    /* the env's episode of the first row */
};

struct worker;

/* An env and the fixed players acting in it, owned by whoever hosts the
 * env: a worker (threads, serial) or the child. Baselines are not
 * thread-safe (minimax memoises), hence one set per env. */
struct host {
	env *e;
	env_baseline *base[COLL_BASELINES_MAX]; /* by index, made on use */
	lg_rng rng; /* the baselines', reseeded by every create/reset */
	env_mcts *mcts; /* search (search.c): bound to e, made on use */
	env_mcts *fast; /* its fast search (search.fast_sims), the same */
};

/* One thread's wake-up: a flag under a private mutex. A waker wakes
 * exactly the thread it means, and a wake-up sent before the wait is
 * not lost (the flag stays set); a stale one costs one spurious return,
 * so a waiter re-checks its condition under c->mu. */
struct park {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int set, waiting;
};

struct slot {
	size_t idx;
	struct worker *w;
	struct park park;   /* its worker waits here for its actions */
	unsigned gen;
	enum slot_state state; /* coll_slot_set_state only */
	double deadline;    /* thread mode watchdog, RESETTING and STEPPING */
	double ready_at;
	int nacting, pending;
	int acting[ENV_MAX_PLAYERS];
	uint8_t waiting[ENV_MAX_PLAYERS]; /* seat's row not yet answered */
	int32_t act[ENV_MAX_PLAYERS];
	float logp[ENV_MAX_PLAYERS], value[ENV_MAX_PLAYERS];
	/* The seat's move was chosen by the search (its worker answers it,
	 * no group sees it); set when the slot posts. */
	uint8_t searched[ENV_MAX_PLAYERS];
	/* Where each acting seat's observation and mask are while it is
	 * posted (its pending row): its trajectory's row n if the seat
	 * learns, else its part of obs / mask ([players][len]). */
	float *pobs[ENV_MAX_PLAYERS];
	uint8_t *pmask[ENV_MAX_PLAYERS];
	float *obs;
	uint8_t *mask;
	/* Each seat's recurrent state ([players][state_len]): zeros when an
	 * episode starts, the policy's after each of the seat's steps. */
	float *hstate;
	int abnormal_pending; /* a new worker must end the episode first */
	int cause;
	int next_op;        /* serial mode: the op a RESETTING slot needs */
	/* The episode's match and tag, set by the slot's worker before each
	 * episode (next_episode) and read by it and by coll_post_ready. */
	struct coll_match match;
	uint64_t tag;

	/* Owned by the current worker. */
	uint64_t episode, ep_steps, seg_seq;
	uint32_t smoves[ENV_MAX_PLAYERS]; /* each seat's searched moves in
					   * the episode (temperature) */
	uint32_t retries;
	double retry_at; /* serial: idle until then (backoff), 0 none */
	double ret[ENV_MAX_PLAYERS];
	struct traj tr[ENV_MAX_PLAYERS];
	/* A finished episode whose rows are still buffered: its result
	 * waits until they went to the sink or the slot has its next
	 * episode of the same job, so a consumer never sees a job end
	 * before its rows (coll_result_flush) */
	struct coll_episode held;
	int holding;
	pid_t pid;
	int fd;
};

struct rowref {
	uint32_t slot;
	int seat;
};

/* A batch's scratch: the rows taken from a group, their observations
 * and masks gathered, the policy's answers, and the rng the policy
 * gets. Sized for every row of every env (c->rows_max). */
struct batch {
	struct rowref *rows;
	float *obs;
	float *state; /* rows x state_len (state_len > 0) */
	uint8_t *mask;
	int32_t *act;
	float *logp, *val;
	uint32_t *acted; /* slots a scatter answered (to wake) */
	lg_rng rng;
};

/* An inference device of a network (threaded modes): a thread that runs
 * the group's due batches one after another, so one device is one
 * forward at a time and a forward never waits for a thread to be woken
 * while rows are due. Started on demand, up to the group's devmax. */
struct device {
	struct coll *c;
	struct group *g;
	pthread_t th;
	int idle;          /* parked, counted in g->nidle (under mu) */
	struct park park;
	struct batch b;
};

/* The rows waiting for one network's forward, and its devices. Every
 * device is idle (parked), awake (about to look at the rows under mu)
 * or in a forward (calls); an awake device, or the first back from a
 * forward, looks at the rows, so nobody needs waking then. */
struct group {
	struct coll_policy pol;
	struct rowref *rows;
	size_t n;
	unsigned calls;      /* devices in a forward */
	size_t ndev, nidle;
	size_t devmax;       /* pol.max_calls, or every env (no limit) */
	struct device **dev; /* [devmax] */
};

/* A slot's driver. */
struct worker {
	struct coll *c;
	struct slot *s;
	unsigned gen;
	pthread_t th;
	int started;
	struct host h;
	/* A reply's observations and masks ([players][len]) land here, and
	 * reach the slot only after the generation check (an abandoned
	 * worker must not write there). */
	float *robs;
	uint8_t *rmask;
	struct wsearch *sr;  /* search.c's scratch (search on), else NULL */
	struct worker *next; /* zombie list */
};

struct coll {
	struct coll_opts o;
	char game[ENV_NAME_MAX];
	struct env_spec spec;
	size_t n, rows_max;
	struct slot *slots;
	struct group groups[COLL_NETS_MAX];
	struct coll_policy pols[COLL_NETS_MAX];
	char bspec[COLL_BASELINES_MAX][COLL_BASELINE_SPEC_MAX];
	const char *bspecs[COLL_BASELINES_MAX]; /* o.baselines points here */

	pthread_mutex_t mu, sink_mu;
	/* cv_work: workers parked for coll_collect (all-baseline matches);
	 * cv_caller: the caller in coll_collect */
	pthread_cond_t cv_work, cv_caller;
	int threads_up; /* mutex/conds initialised */
	/* Worker threads with env calls in them (not serial, not child
	 * processes): the only case the watchdog and its deadlines serve */
	int watched;
	int stop, stopped, collecting, fatal;
	uint64_t goal;
	size_t nstate[SLOT_NSTATES]; /* slots per state */
	struct coll_stats st;
	struct worker *zombies;
	struct batch serial_b; /* serial mode: the caller's batches */
	/* processes: the spawner that forks env children (host.c) */
	struct spawner {
		pthread_mutex_t mu; /* one request/reply at a time */
		int fd;             /* -1: none */
		pid_t pid;
		pid_t *kids;        /* its copy: slot i's child, 0 none */
		unsigned gen;       /* spawners started after the first */
		unsigned restarts;
	} sp;
};

/* What a host answers to an op. */
struct reply {
	int32_t rc, player;
	uint64_t steps;
	uint64_t moves; /* env steps auto-play took after the op */
	double returns[ENV_MAX_PLAYERS];
};

/* An op for a host. actions[p] is seat p's action (only the seats that
 * act are read); base[p] is seat p's baseline (0: a network), valid for
 * every op. */
struct cmd {
	uint32_t op;
	int32_t actions[ENV_MAX_PLAYERS];
	uint8_t base[ENV_MAX_PLAYERS];
	uint64_t seed, episode, step;
};

/* mu for code both drivers run. Serial mode drives every env from the
 * caller's thread and starts no other (coll_collect, coll_stats and
 * coll_free come from that same thread), so it has nothing to lock
 * against: skipping the lock there took serial mode's per-step cost on
 * Kuhn back to what it was before the slot state machine. */
static inline void coll_lock(coll *c)
{
	if (c->o.mode != COLL_SERIAL)
		pthread_mutex_lock(&c->mu);
}

static inline void coll_unlock(coll *c)
{
	if (c->o.mode != COLL_SERIAL)
		pthread_mutex_unlock(&c->mu);
}

/* Slots stepping (their actions are in or their env call runs): sync
 * mode's batches wait for these. Caller holds mu. */
static inline size_t coll_busy(const coll *c)
{
	return c->nstate[SLOT_ACTED] + c->nstate[SLOT_STEPPING] +
	       c->nstate[SLOT_BOOKING];
}

/* Envs that could join a batch now: alive and not resetting. */
static inline size_t coll_could_post(const coll *c)
{
	return c->n - c->nstate[SLOT_DEAD] - c->nstate[SLOT_RESETTING];
}

/* ---- state.c: the bottom (calls no other collector file) ---------------- */

const char *coll_slot_state_name(enum slot_state st);
/* The only place a slot's state changes: checks the transition is one
 * of the machine's, keeps c->nstate and sets the watchdog deadline of
 * RESETTING and STEPPING (when c->watched). Caller holds mu (or runs
 * alone: serial mode, coll_new); a caller that sets DEAD kicks the groups
 * next (coll_kick_groups), as a batch need not wait for a dead env. */
void coll_slot_set_state(coll *c, struct slot *s, enum slot_state to);
/* nstate agrees with the slots' states (for assertions). Caller holds
 * mu. */
int coll_slot_counts_ok(const coll *c);
/* Count n completed transitions; the goal reached stops issuing. Caller
 * holds mu. */
void coll_count_steps(coll *c, uint64_t n);
void coll_set_fatal(coll *c, int rc);
void coll_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu,
			  double t_mono);
void coll_park_init(struct park *p);
void coll_park_destroy(struct park *p);
/* Wait until woken (or until t_mono, monotonic seconds; 0: no limit),
 * consuming the wake-up. Without c->mu. */
void coll_park_wait(struct park *p, double t_mono);
/* Wake p's thread (now, or its next wait returns at once). */
void coll_park_wake(struct park *p);
/* Does the slot's seat learn now (a sink, a learning network seat)? */
int coll_learning(const coll *c, const struct slot *s, int seat);
/* Does the slot's seat search (search on, a learning seat)? */
int coll_searches(const coll *c, const struct slot *s, int seat);

/* ---- slot.c: the drivers (worker threads, serial) and the watchdog ------ */

/* A worker record for slot s. */
struct worker *coll_worker_alloc(coll *c, struct slot *s);
void coll_worker_free(struct worker *w);
/* Start the slot's current worker thread. Caller holds mu or no thread
 * runs. LG_ENOMEM, LG_EIO. */
int coll_worker_start(coll *c, struct slot *s);
/* Serial mode: drive every env from the caller's thread until goal. */
int coll_serial_collect(coll *c, uint64_t goal, double until);
/* Threads: wait until w's slot has its actions, waking a device for
 * every group whose batch is due and keeping the time of async's
 * wait_timeout while no device does. Caller holds mu (released while
 * parked). 0, or 1 when the worker must exit. */
int coll_await_actions(coll *c, struct worker *w);
/* Threads: replace the workers of slots past their deadline. Caller
 * holds mu. The earliest deadline still pending (0: none). */
double coll_watchdog(coll *c);

/* ---- batch.c: batches per network ---------------------------------------- */

/* Post the slot's acting rows in their groups (RESETTING or BOOKING ->
 * READY). Caller holds mu. */
void coll_post_ready(coll *c, struct slot *s);
/* Threads, on an event that may make a batch due (fewer envs busy or
 * alive, coll_collect starting): see that a device looks at every group
 * with rows. Caller holds mu. */
void coll_kick_groups(coll *c);
/* Threads: see that a device will look at group g's rows (batch.c says
 * when one is woken or started); an idle device to wake is returned for
 * the caller to wake after releasing mu. With `timer` also for a batch
 * due only by timeout; else *deadline says when it will be (0: only an
 * event makes it due). Caller holds mu. */
struct device *coll_group_kick(coll *c, struct group *g, int timer,
			       double *deadline);
/* A batch's scratch for c (LG_ENOMEM), and its release (zeroed: a
 * second free is a no-op). */
int coll_batch_alloc(coll *c, struct batch *b);
void coll_batch_free(struct batch *b);
/* Move group g's rows into b: their count. Caller holds mu. */
size_t coll_batch_take(coll *c, struct group *g, struct batch *b);
/* One forward over b's n rows: gather, the policy, actions clamped to
 * the game. Without mu (the policy may be slow). 0 or the policy's
 * error. */
int coll_batch_forward(coll *c, struct group *g, struct batch *b,
		       size_t n);
/* Give the n actions out: a slot with all its rows answered goes READY
 * -> ACTED, and its index into b->acted. Caller holds mu. How many slots
 * went ACTED. */
size_t coll_batch_scatter(coll *c, struct batch *b, size_t n);
/* Threads, at coll_stop: wake every device and let it exit, then join
 * and free them. Caller does not hold mu; c->stop is set. */
void coll_devices_stop(coll *c);
/* Free the devices (coll_free, after coll_devices_stop). */
void coll_devices_free(coll *c);

/* ---- host.c: env hosting ------------------------------------------------- */

/* Run op m on the slot's env (in w's thread or the slot's child). On
 * success the reply and the acting seats' obs/mask are in r / obs /
 * mask ([players][len]). */
int coll_run_op(coll *c, struct worker *w, const struct cmd *m,
		struct reply *r, float *obs, uint8_t *mask);
/* Serial mode, envs in this process: n (<= COLL_STEP_BATCH) steps at
 * once, remote envs batched (host.c). */
#define COLL_STEP_BATCH 256
void coll_run_steps(coll *c, struct slot *const *ss, const struct cmd *ms,
		    size_t n, int *rcs, struct reply *rs);
/* Free the env and its baselines. */
void coll_host_clear(struct host *h);
/* Kill the slot's child (if any) and close its socket. */
/* processes: start the spawner (before any collector thread), stop it
 * (its children with it). */
int coll_spawner_start(coll *c);
void coll_spawner_stop(coll *c);
void coll_child_kill(coll *c, struct slot *s);

/* ---- search.c: the search operator -------------------------------------- */

/* Search options against the game and the other options (coll_new):
 * 0, or LG_EINVAL / LG_EUNSUPP with err. probe: an env of the game. */
int coll_search_check(const struct coll_opts *o, const env *probe,
		      char *err, size_t errlen);
/* w's search scratch (search on; w->sr stays NULL otherwise) and its
 * release, with every policy's eval scratch (ws_free). LG_ENOMEM. */
int coll_search_alloc(coll *c, struct worker *w);
void coll_search_free(coll *c, struct worker *w);
/* The acting seats that search: PUCT for each on the host's env, in this
 * thread, without mu (the slot is BOOKING or RESETTING, and its worker
 * owns the env); the answers wait in w->sr for coll_search_answer. 0,
 * or the search's or the evaluator's error. */
int coll_search_acting(coll *c, struct worker *w);
/* The slot posts: each searched seat's move, logp and value into the
 * slot (s->searched marks them). Caller holds mu. */
void coll_search_answer(coll *c, struct worker *w);
/* The searched seats' visit shares ([players][num_actions], a seat's
 * valid while w->sr->ready for it), NULL when search is off. */
const float *coll_search_shares(const struct worker *w);

/* ---- traj.c: trajectories ------------------------------------------------ */

int coll_traj_alloc(struct traj *t, size_t len, size_t obs_len, int na,
		    size_t state_len, int visits);
void coll_traj_free(struct traj *t);
/* The acting seats are about to post: a learning seat's full trajectory
 * goes to the sink (its last row's reward is final now that the seat acts
 * again), so its pending row has room. Without mu: the sink may block. */
void coll_traj_make_room(coll *c, struct slot *s);
/* The acting seats' pending rows: where they are (struct slot), filled
 * from a reply's obs/mask ([players][len]), and a searched seat's with
 * its visit shares (shares: [players][num_actions], coll_search_shares;
 * read only for s->searched seats). Caller holds mu. */
void coll_traj_pending(coll *c, struct slot *s, const float *shares,
		       const float *obs, const uint8_t *mask);
/* A seat got its action: its pending row becomes row n of its
 * trajectory (the action, logp, value; reward 0, done LG_ROW_NEXT). */
void coll_traj_append(coll *c, struct slot *s, int seat);
/* Hand seat's buffered rows to the sink (if any); a last row still
 * LG_ROW_NEXT becomes LG_ROW_CUT (the rest of its episode comes in a
 * later segment, or never). */
int coll_traj_flush(coll *c, struct slot *s, int seat);
/* A step returned: each learning seat's last row earns the change of its
 * return; the slot's returns move on. */
void coll_traj_rewards(coll *c, struct slot *s, const struct reply *r);
/* The episode ended (normally or not): close every seat's last row
 * (LG_ROW_END), send full trajectories, and report the episode (now, or
 * once its rows are out). */
void coll_episode_end(coll *c, struct slot *s, int abnormal, int cause);
/* Hand a held episode result to the result callback. */
void coll_result_flush(coll *c, struct slot *s);
/* Before the slot's next episode (m, tag; NULL: none): flush what may
 * not stay buffered across it, and the held result. */
void coll_flush_guarded(coll *c, struct slot *s, const struct coll_match *m,
			uint64_t tag);

#endif
