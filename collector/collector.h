/*
 * collector: a vectorized env manager with batched inference and
 * trajectory building, the inside of a collector worker.
 *
 * Shape:
 *   - A collector runs `num_envs` instances of one game. Each env has its
 *     own worker thread (env calls block: the timing game sleeps, a real
 *     simulator waits on I/O), and with `processes` the worker drives the
 *     env in a child process over a socketpair instead, so a game that
 *     crashes or is not thread-safe only takes its child down. Children
 *     are forked by a single-threaded spawner process that coll_new
 *     forks before the collector has threads (call it with no other
 *     thread of yours allocating), so no child inherits a lock held.
 *   - Modes: COLL_SERIAL (the caller steps every env in turn: baseline),
 *     COLL_SYNC (one forward per network over every env not resetting,
 *     then step them all, wait for all) and COLL_ASYNC (a forward as soon
 *     as `wait_num` envs are ready, or once the first ready one has waited
 *     `wait_timeout_s`). Forwards of different networks run at once, and
 *     of one network up to its policy's max_calls (no limit: one per
 *     ready batch).
 *   - Resets are off the critical path: an env whose episode ended resets
 *     in its own worker and joins later batches when done; the others go
 *     on (also in sync mode, which waits only for envs that are stepping).
 *   - Inference devices: each network's batches run in device threads
 *     (up to max_calls, started on demand). A device takes a batch when
 *     the batch rule says so, gathers the ready rows, calls the policy
 *     once, and wakes exactly the envs it answered; while rows are due
 *     it runs the next batch at once. One wake-up per transition on the
 *     critical path, and none per batch while the device is busy.
 *   - Inference goes through `struct coll_policy` (one per network), so
 *     the collector does not depend on the learner; the acting seat's
 *     network decides the batch, so in a match each side is batched
 *     separately.
 *   - Search (`search.sims` > 0, AlphaZero's policy improvement): a
 *     learning seat's move is chosen by PUCT (envs/mcts.c) with its
 *     network's `eval` as prior and value, run in the thread that hosts
 *     the env (collector/search.c): evaluations of one leaf or of a
 *     round of search.batch leaves, in that thread, no wake-up per
 *     simulation and no batch with other envs. Its rows store the root's
 *     visit shares (the visits column) beside the network's own logp of
 *     the move and value of the state.
 *   - Trajectories: for every learning seat of every env a buffer of at
 *     most `segment_len` transitions (bounded memory). A segment goes to
 *     the sink when it is full, when the env's next episode has another
 *     job (tag) or another player on that seat, when the env has no next
 *     episode, when an episode ends abnormally, or at stop; so one
 *     segment may hold several episodes (LG_ROW_END closes each), which
 *     in short games saves a message per episode; every transition is
 *     handed over exactly once, per env in order (segment_seq counts up
 *     per env with no gaps). Rewards are per seat: the change of that
 *     seat's return between its own consecutive actions. A row is built
 *     where the segment sends it from: the env's observation is copied
 *     once, into the seat's trajectory block, and inference reads it
 *     there.
 *   - Broken envs: a step that fails, crashes its child or passes
 *     `step_timeout_s` (resets: `reset_timeout_s`) ends its episode as
 *     abnormal (the seats' last transitions get LG_ROW_END and the result
 *     says abnormal), the env is recreated (up to `max_retries` times in a
 *     row, waiting `retry_backoff_s` before the first, doubling, in the
 *     worker modes) and the collector goes on. A hung thread cannot be killed: it
 *     is abandoned (joined at coll_free) and a new worker takes the env.
 *
 * Thread safety: one thread drives a collector (coll_collect, coll_stats,
 * coll_free). Callbacks (policy, sink, result) run on the collector's
 * threads; sink and result calls are serialized by the collector; policy
 * calls may run concurrently (see struct coll_policy).
 */
#ifndef LG_COLLECTOR_H
#define LG_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "envs/env.h"
#include "util/rows.h"
#include "util/util.h"

/* Caps on what comes from outside (config, command line). */
#define COLL_ENVS_MAX 4096
#define COLL_NETS_MAX 32
#define COLL_SEGMENT_MAX (1u << 20)
#define COLL_RETRIES_MAX 100
#define COLL_BASELINES_MAX 8
#define COLL_BASELINE_SPEC_MAX 64 /* bytes of a spec, with its NUL */
#define COLL_STATE_MAX 65536

enum coll_mode { COLL_SERIAL = 0, COLL_SYNC = 1, COLL_ASYNC = 2 };

/* Inference for one network. act gets n rows: obs[n * obs_len] and
 * mask[n * num_actions] (1 = legal) and fills action[n] (a legal action),
 * logp[n] (log-probability of that action) and value[n]. With the
 * collector's state_len > 0, state[n * state_len] is each row's recurrent
 * state before the step (zeros at an episode's first), and act leaves the
 * state after it there; else state is NULL. rng is the calling thread's
 * own. Returns 0 or an LG_E* code, which stops the
 * collector (coll_collect returns it).
 *
 * act is called from the collector's threads (the network's inference
 * devices), and up to max_calls calls (0: no limit) of one policy may
 * run at once, each from its own thread; a network forward needs one
 * workspace per concurrent call (nn_act's ws). */
struct coll_policy {
	int (*act)(void *ctx, const float *obs, const uint8_t *mask,
		   size_t n, size_t obs_len, int num_actions, lg_rng *rng,
		   int32_t *action, float *logp, float *value, float *state);
	void *ctx;
	unsigned max_calls;
	/* Search's evaluator (coll_opts.search; NULL: this policy cannot
	 * search): for each of n states (n at most search.batch, or 1),
	 * prior[i * num_actions ...] over the actions (its probabilities;
	 * illegal entries are ignored) and value[i], the expected return
	 * of the player to move, from obs[i * obs_len ...] and
	 * mask[i * num_actions ...].
	 * Called many times a move from the thread that hosts the env (a
	 * worker, or the caller in serial mode), concurrently with act and
	 * with other threads' evals. *ws is that thread's own scratch for
	 * this policy: NULL at the thread's first call, where the callee
	 * may allocate what it needs and keep it there; ws_free(ctx, ws)
	 * frees it when the thread's worker goes (NULL: nothing to free).
	 * Returns 0 or an LG_E* code, which stops the collector. */
	int (*eval)(void *ctx, void **ws, size_t n, const float *obs,
		    const uint8_t *mask, int num_actions, float *prior,
		    float *value);
	void (*ws_free)(void *ctx, void *ws);
};

/* Uniform over legal actions, no waiting (tests); its eval is the
 * uniform prior and value 0. */
struct coll_policy coll_policy_uniform(void);

/* Simulated inference (benchmarks): each call sleeps infer_s times a
 * uniform factor in [jitter_lo, jitter_hi] once per batch, then picks
 * uniform legal actions. The struct must outlive the policy. */
struct coll_sim {
	double infer_s, jitter_lo, jitter_hi;
};
struct coll_policy coll_policy_simulated(const struct coll_sim *sim);

/* Who sits where in a match. net indexes opts.policies; only learning
 * seats produce trajectories. A seat with baseline k >= 1 is played by
 * the fixed player opts.baselines[k - 1] (envs/ env_baseline) inside the
 * env's own worker (or child): no inference, no batch, its net is
 * ignored (not even range-checked) and it never produces a trajectory,
 * whatever learning says (a baseline has no logp or value to learn
 * from). Its moves are env steps like any other (coll_stats.steps,
 * coll_episode.steps) and its returns are reported as usual. Between
 * network moves the baselines move at once, in the same env call, so
 * step_timeout_s covers them too; a baseline that fails to move fails
 * that call (an abnormal episode). A match where every seat is a
 * baseline plays whole episodes inside its resets, and only while
 * coll_collect runs. */
struct coll_seat {
	uint32_t player;
	uint32_t net;
	int learning;
	uint32_t baseline;  /* 0: the net plays this seat */
};
struct coll_match {
	struct coll_seat seat[ENV_MAX_PLAYERS];
};

/* A finished trajectory segment of one learning seat: rows [0, rows->n)
 * of the seat's trajectory block, in the layout the wire Segment and the
 * learner's batch share (util/rows.h), so a sink serializes it as it is.
 * rows->n >= 1; the last row's done is LG_ROW_END (its episode ended) or
 * LG_ROW_CUT (the rest of its episode follows in a later segment of the
 * same env, or never: an abnormal end or coll_stop). The block is valid
 * only during the sink call and must not be changed. */
struct coll_segment {
	uint64_t tag;         /* the episode's tag (next_episode) */
	uint32_t player;
	uint32_t env_index;
	int seat;
	uint64_t segment_seq; /* per env: 0, 1, 2, ... over all its seats */
	uint64_t episode;     /* per env episode number of the first row;
			       * each row with done LG_ROW_END closes one,
			       * and the next row is the next episode's */
	const struct lg_rows *rows;
};

/* One finished episode (normal or abnormal). */
struct coll_episode {
	uint64_t tag;      /* the episode's tag (next_episode) */
	uint32_t env_index;
	uint64_t episode;  /* per env, counts up from 0 */
	int players;
	uint32_t player[ENV_MAX_PLAYERS];
	double returns[ENV_MAX_PLAYERS]; /* 0 for an abnormal episode */
	uint64_t steps;
	int abnormal;
	int cause;         /* LG_E* why it was abnormal (0 if normal) */
};

/* Fault injection for tests, called in the env's worker (or child)
 * before each env call: step is the step number within the episode, or
 * COLL_FAULT_RESET for the reset. Return one of enum coll_fault. */
#define COLL_FAULT_RESET UINT64_MAX
enum coll_fault {
	COLL_FAULT_NONE = 0,
	COLL_FAULT_FAIL,  /* the call fails with LG_EIO */
	COLL_FAULT_HANG,  /* the call sleeps fault_hang_s first */
	COLL_FAULT_CRASH, /* processes: the child exits; threads: FAIL */
};

struct coll_opts {
	const char *game;       /* env name (copied) */
	struct env_opts env;    /* env options; env.seed seeds the collector */
	size_t num_envs;        /* 1..COLL_ENVS_MAX */
	enum coll_mode mode;
	size_t wait_num;        /* async: 1..num_envs */
	double wait_timeout_s;  /* async: >= 0 */
	double step_timeout_s;  /* > 0 */
	double reset_timeout_s; /* > 0 */
	int processes;          /* envs in child processes */
	uint32_t max_retries;   /* env recreations in a row, <= RETRIES_MAX */
	double retry_backoff_s; /* wait before the first recreation in a row;
				 * doubled for each next, at most 16x; 0-60 */
	uint32_t segment_len;   /* 1..COLL_SEGMENT_MAX */
	/* Floats of recurrent state each seat's policy carries through an
	 * episode (0..COLL_STATE_MAX; 0: none). Every policy gets it (act's
	 * state), and a learning seat's rows store the state before each
	 * step (the segment's state column). */
	size_t state_len;
	/* Search at learning seats (AlphaZero's policy improvement): with
	 * sims > 0 every learning seat's move is chosen by PUCT with its
	 * policy's eval (every policy needs one), sims simulations
	 * (1..ENV_MCTS_SIMS_MAX), exploration c_puct, root noise as in
	 * struct env_mcts_opts; the move is a sample in proportion to the
	 * root's visits for the seat's first temperature_moves moves of an
	 * episode, then the most visited. The row stores the visit shares
	 * (lg_rows.visits), the policy's log-probability of the move at
	 * the root (before noise) as logp and its value of the root. Needs
	 * a sequential game without chance played in this process (not
	 * `processes`, not remote) and state_len 0: coll_new refuses the
	 * rest (LG_EUNSUPP, LG_EINVAL), err saying why. */
	struct coll_search {
		uint32_t sims;             /* 0: off */
		double c_puct;
		uint32_t temperature_moves;
		double dirichlet_alpha, noise_frac;
		/* Playout cap randomization (KataGo): with fast_sims > 0
		 * (at most sims) a move is a full search as above with
		 * probability full_frac, else one of fast_sims simulations
		 * without root noise whose row's visit shares are all 0 (no
		 * policy target; the learner's cross-entropy weighs a row
		 * by the sum of its shares). */
		uint32_t fast_sims;
		double full_frac;
		/* Leaves per evaluation (env_mcts_opts.batch): 0 or 1 one,
		 * the sequential search; up to ENV_MCTS_BATCH_MAX. */
		uint32_t batch;
		/* 1: a searched row's value is the search's value of the
		 * root (env_mcts_root_value), the bootstrap of its GAE
		 * target; 0: the network's, as for any row. */
		int search_value;
	} search;
	const struct coll_policy *policies; /* [num_policies], copied */
	size_t num_policies;    /* 1..COLL_NETS_MAX */
	/* Fixed players seats may name (coll_seat.baseline): env_baseline
	 * specs such as "random", "minimax", "alphabeta:2", each shorter
	 * than COLL_BASELINE_SPEC_MAX, copied (the array need not outlive
	 * coll_new); each is checked against the game at coll_new
	 * (LG_EINVAL naming the spec). Every env makes its own instances
	 * (baselines are not thread-safe), and their rng is seeded from
	 * each episode's seed. A seat naming a baseline past num_baselines
	 * is rejected like a net out of range. */
	const char *const *baselines;
	size_t num_baselines;   /* 0..COLL_BASELINES_MAX */
	struct coll_match match; /* every env plays this match, unless: */
	/* Optional: choose each episode's match. Called before every
	 * episode of env env_index, from that env's thread (so calls for
	 * different envs may run at once: the callee locks what it
	 * shares): fill *m (nets index policies) and *tag, which comes back
	 * in the episode's segments and result, and return 1; or return 0
	 * when there is nothing to play: the env idles and asks again
	 * shortly (an idle env counts as resetting, so it holds no batch
	 * up). NULL: every episode plays `match` with tag 0. A match naming
	 * a net past num_policies stops the collector (LG_EINVAL). */
	int (*next_episode)(void *ctx, size_t env_index,
			    struct coll_match *m, uint64_t *tag);
	void *episode_ctx;

	/* Sink for finished segments; a nonzero return stops the collector
	 * (coll_collect returns it). NULL: trajectories are not built. */
	int (*sink)(void *ctx, const struct coll_segment *seg);
	void *sink_ctx;
	/* Finished episodes; NULL: not reported. */
	void (*result)(void *ctx, const struct coll_episode *ep);
	void *result_ctx;

	int (*fault)(void *ctx, size_t env_index, uint64_t episode,
		     uint64_t step);
	void *fault_ctx;
	double fault_hang_s;
};

/* Defaults: 8 envs, async, wait_num 7, wait_timeout 0.01 s, step timeout
 * 60 s, reset timeout 120 s, threads, 3 retries, segments of 128, self
 * play of player 0 on network 0 with every seat learning, no search (but
 * c_puct 1.5, 8 temperature moves, noise 0.25 of alpha 0.3 for one).
 * game, env and policies must still be set. */
void coll_opts_default(struct coll_opts *o);

struct coll_stats {
	uint64_t steps;       /* transitions completed (env steps taken) */
	uint64_t resets;      /* env resets done (env creations count) */
	uint64_t episodes;    /* finished episodes, normal or abnormal */
	uint64_t abnormal;    /* of which abnormal */
	uint64_t recreated;   /* envs recreated after a failure */
	uint64_t timeouts;    /* step or reset timeouts */
	uint64_t forwards;    /* policy calls */
	uint64_t rows;        /* rows over all policy calls */
	uint64_t segments;    /* segments handed to the sink */
	uint64_t transitions; /* rows handed to the sink */
	size_t dead_envs;     /* envs given up after max_retries */
};

typedef struct coll coll;

/* 0 when the collector (and the league's network and payoff table) can
 * play game s: 2 to ENV_MAX_PLAYERS seats alike (one role, the same
 * observation and action spaces), any payoff type, at most
 * ENV_MAX_ACTIONS actions. Else LG_EUNSUPP and err names the game and
 * why. */
int coll_game_check(const struct env_spec *s, char *err, size_t errlen);

/* Create the collector and start its envs (their first reset runs in the
 * background). Errors: LG_EINVAL / LG_ERANGE (options; err says which),
 * LG_ENOTFOUND (no such game), LG_ENOMEM, LG_EIO (thread or process
 * creation). Free with coll_free. */
int coll_new(coll **out, const struct coll_opts *o, char *err,
	     size_t errlen);

/* Run until at least min_steps more transitions are completed (counting
 * from the end of the previous goal, so transitions finished between
 * calls count towards the next one), or max_s seconds pass (0: no limit;
 * then LG_ETIMEOUT). Returns 0, LG_ETIMEOUT, an error from the policy or
 * the sink, or LG_EIO when every env is dead. Between calls the envs
 * finish what they started and then wait. */
int coll_collect(coll *c, uint64_t min_steps, double max_s);

/* Counters so far (consistent snapshot). */
void coll_stats(coll *c, struct coll_stats *out);

/* Stop every worker (waiting for env calls in progress, also abandoned
 * ones), kill children, then hand what is still buffered (episodes in
 * progress: their last rows are LG_ROW_CUT) to the sink, so that every
 * completed transition reaches the sink exactly once. Afterwards only
 * coll_stats and coll_free may be called. Idempotent. */
void coll_stop(coll *c);

/* coll_stop, then free. NULL is fine. */
void coll_free(coll *c);

/* "serial", "sync", "async" <-> enum; parse returns LG_EINVAL. */
const char *coll_mode_name(enum coll_mode m);
int coll_mode_parse(const char *s, enum coll_mode *out);

#endif
