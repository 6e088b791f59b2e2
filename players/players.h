/*
 * players: the league brain. Player roles (main, main exploiter, league
 * exploiter, plain self-play) and their frozen snapshots (historical),
 * opponent choice (PFSP, uniform, self-play, meta-Nash, verification),
 * snapshot and reset rules, jobs and their results, all persisted in the
 * league's LMDB store.
 *
 * Shape: a `brain` owns the in-memory league (agents, candidate lists, the
 * payoff table with a dense win-rate row per learner, the rng) and writes
 * it behind to LMDB. Every mutating call ends with a commit when the
 * batch size is 1 (the default): when brain_next_job() returns, the job,
 * the rng state and the decision log are on disk. A larger batch commits
 * every `batch` calls (and on brain_flush / brain_close): state on disk is
 * then always a consistent prefix, and a crash loses at most the calls of
 * the last batch. The daemon owns its transaction instead: it hands
 * the brain its write batch (brain_opts.wb), so calls commit nothing,
 * appends its own records to the same batch, and once per loop turn
 * opens one store_update in which it applies the batch and the brain
 * writes its state (brain_write), so the turn commits once. The daemon (one libevent thread) is the only
 * caller; a brain is not thread-safe.
 *
 * Ids: players and snapshots share one dense id space (0, 1, 2, ... in
 * creation order), the payoff table's. Parameter blobs are not the
 * brain's: a job names whose parameter line (player, version) each side
 * plays, and a snapshot records which (player, version) it froze, so the
 * daemon can copy the blob.
 *
 * Every random choice draws from one util rng whose state is persisted:
 * the same seed and the same sequence of calls give the same jobs, also
 * across close and reopen.
 */
#ifndef LG_PLAYERS_H
#define LG_PLAYERS_H

#include <stddef.h>
#include <stdint.h>

#include "payoff/payoff.h"
#include "storage/storage.h"
#include "util/util.h"

#define BRAIN_NONE UINT32_MAX
/* Caps on outside input. */
#define BRAIN_MAX_PLAYERS_PER_ROLE 64
#define BRAIN_MAX_EPISODES (1u << 20)
#define BRAIN_MAX_OPEN_JOBS (1u << 20)
/* The nash branch solves over at most this many (the latest) snapshots;
 * so does nash pruning, over the league's. */
#define BRAIN_NASH_MAX 128
/* Most snapshots one step report retires (brain_step_report.retired). */
#define BRAIN_RETIRE_MAX 8

/* Most seats a job fills (the game's players; envs' ENV_MAX_PLAYERS). */
#define BRAIN_MAX_SEATS 8

/* What the payoff table counts (payoff.measure). */
enum brain_measure {
	BRAIN_MEASURE_AUTO = -1, /* options only: a league's stored measure,
				    win for a new one */
	BRAIN_MEASURE_WIN,    /* who finished ahead: win, draw, loss */
	BRAIN_MEASURE_RETURN, /* the mean return (chips in poker): a pair's
				 score (1 + (c_a - c_b) / 2R) / 2 of the
				 returns clamped to [-R, R]
				 (payoff_record_score), R the return_scale;
				 a mean score s reads as R (2s - 1) */
};

/* Who sits in the learner's teammates' seats (matchmaking.teammates). */
enum brain_teammates {
	BRAIN_TEAMMATES_SELF,   /* copies of the learner (team self-play) */
	BRAIN_TEAMMATES_LEAGUE, /* drawn like opponents, by the role's rule */
};

/* Same order as the config's pfsp_weighting names. */
enum brain_weighting {
	BRAIN_PFSP_SQUARED,
	BRAIN_PFSP_VARIANCE,
	BRAIN_PFSP_LINEAR,
	BRAIN_PFSP_LINEAR_CAPPED,
};

enum brain_role {
	BRAIN_ROLE_MAIN,
	BRAIN_ROLE_MAIN_EXPLOITER,
	BRAIN_ROLE_LEAGUE_EXPLOITER,
	BRAIN_ROLE_SELF_PLAY,
	BRAIN_ROLE_HISTORICAL,
	BRAIN_ROLE__COUNT
};

enum brain_status {
	BRAIN_ACTIVE,  /* a learner, or a snapshot offered to matchmaking */
	BRAIN_RETIRED, /* a snapshot pruned (snapshot_keep): its record and
			  results kept, not offered to matchmaking, its
			  version no longer held (brain_version_held) */
};

/* Which snapshots go when a learner has more than snapshot_keep. */
enum brain_prune {
	BRAIN_PRUNE_FIFO, /* the oldest */
	BRAIN_PRUNE_NASH, /* the oldest outside the league's meta-Nash
			     support and the learner's newest keep_newest */
};

/* What a job is for: which branch of the role's rules chose it. */
enum brain_kind {
	BRAIN_JOB_PFSP,        /* PFSP over historical snapshots */
	BRAIN_JOB_VERIFY_EXPLOITER, /* main: exploiter snapshots it loses to */
	BRAIN_JOB_VERIFY_HISTORICAL, /* main: forgetting check */
	BRAIN_JOB_SP,          /* a live player (main: a main; self: itself) */
	BRAIN_JOB_CURRICULUM,  /* PFSP over the snapshots of a too-strong
				  live opponent */
	BRAIN_JOB_EXPLOIT,     /* main exploiter against a live main */
	BRAIN_JOB_UNIFORM,     /* uniform over own snapshots */
	BRAIN_JOB_NASH,        /* meta-Nash mixture of own snapshots */
	BRAIN_JOB_FALLBACK,    /* empty candidate set: the latest self */
	BRAIN_JOB__COUNT
};

struct brain_opts {
	uint64_t seed;
	uint32_t n_main, n_main_exploiter, n_league_exploiter, n_self_play;
	struct {
		double pfsp, sp, verification; /* sum to 1 */
		int weighting;                 /* PFSP branch: squared */
		double sp_min_win_rate;        /* 0.3 */
		double verify_exploiter_win_rate;  /* 0.3 */
		double verify_historical_win_rate; /* 0.7 */
	} main;
	struct {
		double main_min_win_rate; /* 0.1 */
		int weighting;            /* variance */
		double reset_prob;        /* 1 */
	} main_exploiter;
	struct {
		int weighting;     /* linear_capped */
		double reset_prob; /* 0.25 */
	} league_exploiter;
	struct {
		double sp, uniform, pfsp, nash; /* sum to 1 */
		int weighting;                  /* squared */
	} self_play;
	double pfsp_exponent;       /* of `squared`: (1 - x)^p; 2 */
	uint32_t job_episodes;      /* 8 */
	int log_decisions;          /* 1 */
	uint64_t snapshot_steps;    /* 2e9 */
	double snapshot_win_rate;   /* 0.7 */
	double snapshot_max_mult;   /* 2 */
	uint64_t snapshot_keep;     /* active snapshots per learner; 0: all */
	int snapshot_prune;         /* enum brain_prune; fifo */
	uint64_t snapshot_keep_newest; /* nash: never retired; 1 */
	struct payoff_opts payoff;
	/* PSRO (players/psro.c; league.mode psro): only self-play
	 * learners, each a best responder to the meta-strategy over the
	 * snapshots; snapshot_steps is an iteration's least length */
	struct {
		int on;
		struct payoff_meta_opts meta;  /* the meta-solver: nash */
		uint32_t crossplay_episodes;   /* games per pair: 256 */
		uint64_t br_steps;             /* an iteration's most: 2e6 */
		uint64_t patience_steps;       /* no rise for this long: 2e5 */
		double min_improve;            /* a rise: 0.01 */
		double return_scale;           /* a game's most |return|: 1 */
		int br_reset;                  /* fresh responders: 1 */
	} psro;
	/* Seats and teams (N-player and team games). A job fills `seats`
	 * seats: the learner sits in seat id % seats, its teammates (seats
	 * of its team) per `teammates`, every other seat gets an opponent
	 * drawn on its own by the learner's role rule. team[s] is seat s's
	 * team (0 .. seats - 1; default: seat s in team s). */
	uint32_t seats;             /* 2 */
	uint8_t team[BRAIN_MAX_SEATS];
	/* Populations (seat roles: an asymmetric game's sides, AlphaStar's
	 * races): each has its own players (the counts above, each), its
	 * snapshots and its rules' candidates; seat s is played by
	 * population seat_pop[s]. A learner sits in a seat of its own and
	 * every other seat draws from that seat's population. 1 (a
	 * symmetric game), every seat 0. */
	uint32_t pops;
	uint8_t seat_pop[BRAIN_MAX_SEATS];
	int teammates;              /* enum brain_teammates; self */
	int measure;                /* enum brain_measure; auto */
	double return_scale;        /* R: returns clamp to [-R, R]; 1 */
	uint32_t batch;             /* calls per commit (own batch); 1 */
	/* Where per-call records wait for the commit: NULL, the brain's
	 * own (committed every `batch` calls); else the caller's, which
	 * must outlive the brain: the caller then owns the transaction,
	 * calls commit nothing, and the caller commits with brain_write
	 * inside its own (or brain_flush, which applies and clears the
	 * batch, the caller's ops too). */
	store_batch *wb;
};

/* AlphaStar's numbers; one main player. */
void brain_opts_default(struct brain_opts *o);
/* LG_ECONFIG with detail in err: branch probabilities that do not sum to
 * 1 (within 1e-9), no learning player, more than
 * BRAIN_MAX_PLAYERS_PER_ROLE of a role, main exploiters without a main
 * player, nash pruning without snapshot_keep or with keep_newest above
 * it, a value out of range. */
int brain_opts_check(const struct brain_opts *o, char *err, size_t errlen);

typedef struct brain brain;

/*
 * Open the brain over an open store. Read-write store: a fresh league gets
 * its players (per role in the order main, main exploiter, league
 * exploiter, self-play; each main and self-play player also freezes its
 * initial parameters, version 0, as a first snapshot), committed before
 * return; an existing one is loaded (players, lineage, payoff, ratings,
 * open jobs, counters, rng) and continues with o's rule numbers (role
 * counts come from the store; a new snapshot_keep or prune rule applies
 * from the next snapshot on). Read-only store (inspection): loads only;
 * the mutating calls then fail with LG_EINVAL. o NULL: defaults, except
 * the payoff options, which come from the store (the league's own). The store
 * must outlive the brain.
 * Errors: LG_ECONFIG (o rejected, detail in err), LG_ENOTFOUND (read-only
 * and no league in the store), LG_ECORRUPT, LG_ENOMEM, storage errors.
 */
int brain_open(brain **out, store *s, const struct brain_opts *o, char *err,
	       size_t errlen);
/* Flush and free; NULL is a no-op. Returns the flush's result. */
int brain_close(brain *b);
/* Commit everything not yet committed, with every op of the write batch,
 * in one transaction; the batch is cleared after the commit. On error
 * nothing of it is on disk and the state stays pending. */
int brain_flush(brain *b);
/* Write everything the brain has not committed (players, pairs, ratings,
 * open and closed jobs, counters, rng) into the caller's transaction t,
 * not the write batch, which is the caller's to apply. Repeatable, as
 * store_update may run its function again. Once t commits, call
 * brain_written; if it does not, the state stays pending. LG_EINVAL on a
 * read-only brain, else storage errors. */
int brain_write(brain *b, store_txn *t);
/* What brain_write wrote is committed: mark the brain clean. */
void brain_written(brain *b);

struct brain_job {
	uint64_t id;
	uint32_t learner, learner_version;
	uint32_t opponent;         /* a player or snapshot id */
	uint32_t opponent_params;  /* whose parameter line it plays */
	uint32_t opponent_version; /* ... and which version of it */
	uint32_t episodes;
	int kind;                  /* enum brain_kind */
	uint32_t candidates;       /* size of the set it was drawn from */
	double prob;               /* probability of this opponent in it */
	/* Every seat (opponent* above is the first opponent seat's): the
	 * agent in it (a player or snapshot id; the learner in its own
	 * seat and in its teammates' under teammates self) and whose
	 * parameter line and version it plays. */
	uint8_t nseats, learner_seat;
	uint32_t seat_agent[BRAIN_MAX_SEATS];
	uint32_t seat_params[BRAIN_MAX_SEATS];
	uint32_t seat_version[BRAIN_MAX_SEATS];
};

/*
 * Choose the next job for `learner` by its role's rules, with a fresh job
 * id. The job record, the rng state and (log_decisions) the decision log
 * (rng state before, branch, candidates, probability) are committed per
 * the batch rule before return. LG_EINVAL (not a learner, read-only),
 * LG_EFULL (BRAIN_MAX_OPEN_JOBS open), storage errors.
 */
int brain_next_job(brain *b, uint32_t learner, struct brain_job *out);

/*
 * The outcomes of job_id's episodes, from the learner's side (1 win,
 * 0 draw, -1 loss), n in [1, BRAIN_MAX_EPISODES]. Each episode updates the
 * decayed payoff and the online Elo; the result record (idempotence), the
 * payoff pairs and the ratings are committed together (batch rule).
 * LG_EEXIST: the job's result was already counted (nothing changes).
 * LG_ENOTFOUND: no such job was issued (or it was cancelled). LG_EINVAL.
 */
int brain_record_result(brain *b, uint64_t job_id, const int8_t *outcomes,
			size_t n);
/*
 * The returns of job_id's episodes for every seat: returns[e * nseats +
 * s] is seat s's return in episode e (nseats the job's), n in [1,
 * BRAIN_MAX_EPISODES], every one finite. Each episode updates every
 * pair of seats on different teams whose agents differ: under measure
 * win, who finished ahead (payoff_record); under measure return, the
 * score of their returns (enum brain_measure). Committed like brain_record_result (a result
 * record with the returns, a log entry), so replay and history rebuild
 * the same table. A two-seat job under measure win may come here or to
 * brain_record_result with the learner seat's outcomes: the table is
 * the same. LG_EEXIST, LG_ENOTFOUND, LG_EINVAL as there.
 */
int brain_record_returns(brain *b, uint64_t job_id, const double *returns,
			 size_t n);
/*
 * PSRO: the returns (a's, whole numbers) of games between snapshots a
 * and c played for the empirical game under job_id (the daemon's
 * crossplay job), each scored (1 + r / R) / 2 (psro.return_scale R, r
 * clamped to [-R, R]; payoff_record_score). A result record (the returns
 * as its outcomes) and a log entry like a job's result, so replay and
 * idempotence work alike. LG_EEXIST: job_id's result was counted before;
 * LG_EINVAL (not two distinct snapshots, read-only).
 */
int brain_record_games(brain *b, uint64_t job_id, uint32_t a, uint32_t c,
		       const int8_t *returns, size_t n);
/* PSRO: 1 when brain_record_games counted job_id (committed), 0 when
 * not, or a negative storage error. */
int brain_games_counted(brain *b, uint64_t job_id);
/* PSRO: the population members the meta-strategy is over (the longest
 * prefix of the active snapshots whose pairs have all their cross-play
 * games; at most max, BRAIN_NASH_MAX) into ids and their meta-strategy
 * weights into x; *n how many (0 before any). LG_EINVAL without PSRO,
 * the meta-solver's errors. */
int brain_psro_meta(brain *b, uint32_t *ids, double *x, size_t max,
		    size_t *n);
/* PSRO: the pairs of active snapshots (a[k], c[k]) still short of their
 * cross-play games, and how many games each still needs (left[k]), at
 * most max pairs, oldest members first (the order the prefix grows in). */
int brain_psro_pairs(const brain *b, uint32_t *a, uint32_t *c,
		     uint32_t *left, size_t max, size_t *n);
/* Drop an open job without a result (its lease expired). LG_ENOTFOUND. */
int brain_cancel_job(brain *b, uint64_t job_id);
/* Where job id stands: BRAIN_JOB_OPEN (issued, no result yet),
 * BRAIN_JOB_COUNTED (its result is in), BRAIN_JOB_GONE (never issued, or
 * cancelled), or a negative storage error. A daemon that restarted uses it
 * to answer a result it may already have committed before it died. */
enum { BRAIN_JOB_GONE = 0, BRAIN_JOB_OPEN = 1, BRAIN_JOB_COUNTED = 2 };
int brain_job_state(brain *b, uint64_t job_id);
/* Copy up to max open jobs (oldest first) into out; *n gets how many
 * were copied. For a restarted daemon to re-issue the jobs in flight. */
int brain_open_jobs_list(const brain *b, struct brain_job *out, size_t max,
			 size_t *n);

struct brain_step_report {
	int snapshot;          /* a snapshot was frozen */
	uint32_t snapshot_id;
	uint32_t snapshot_version; /* the version it froze */
	int reset;             /* reset the learner to its initial params */
	/* Snapshots the prune rule retired, oldest first: their parameter
	 * versions are no longer held (brain_version_held). */
	uint32_t nretired;
	uint32_t retired[BRAIN_RETIRE_MAX];
};

/*
 * Learner `player` now has `steps` agent steps in total (never less than
 * before) and parameter version `version`. Applies the snapshot rule
 * (nothing before snapshot_steps since the last snapshot; then snapshot
 * when the minimum win rate over the role's reference set exceeds
 * snapshot_win_rate, or at snapshot_max_mult times the interval; an empty
 * reference set waits for the latter) and the role's reset rule after a
 * snapshot. A reset moves the learner's payoff results and online Elo to
 * the snapshot just frozen (they describe those parameters) and starts
 * the learner afresh. Then the prune rule: while the learner has more
 * than snapshot_keep active snapshots (0: no bound), retire its oldest
 * (fifo), or its oldest that is neither among its newest
 * min(keep_newest, keep) nor in the support (weight > PAYOFF_SUPPORT_MIN)
 * of the meta-Nash (payoff_meta_nash) of the league's newest
 * BRAIN_NASH_MAX active snapshots, solved once, after the reset moved
 * the learner's results to the snapshot (nash). At most BRAIN_RETIRE_MAX
 * a call. With nash, when every candidate is in the support the learner
 * keeps more than the bound (logged once): the support is never pruned.
 * No random draw: replay makes the same choice from the same table.
 * Committed (batch rule).
 * LG_EINVAL (not a learner, steps going back, read-only), LG_ENOMEM.
 */
int brain_report_steps(brain *b, uint32_t player, uint64_t steps,
		       uint32_t version, struct brain_step_report *out);

/* ---- inspection ------------------------------------------------------ */

/* The league's payoff measure (enum brain_measure, never auto) and its
 * return_scale into *return_scale (may be NULL). */
int brain_measure(const brain *b, double *return_scale);

struct brain_player {
	uint32_t id;
	int role;             /* enum brain_role */
	uint32_t pop;         /* its population (brain_opts.pops) */
	int status;           /* enum brain_status */
	uint32_t parent;      /* snapshot: the player frozen; else NONE */
	uint32_t prev;        /* snapshot: the parent's previous snapshot */
	uint64_t steps;       /* learner: agent steps; snapshot: the
				 parent's steps when frozen */
	uint64_t last_snapshot_steps; /* learner */
	uint32_t version;     /* learner: current; snapshot: frozen */
	uint32_t snapshots, resets; /* learner */
};

/* Number of players and snapshots (ids are 0 .. count - 1). */
uint32_t brain_count(const brain *b);
/* Player or snapshot `id`; LG_ENOTFOUND past brain_count(). */
int brain_player_info(const brain *b, uint32_t id, struct brain_player *out);
/* The newest active snapshots (at most cap), oldest first, into ids;
 * their count. A retired snapshot's networks are gone, so it is left out. */
uint32_t brain_newest_snapshots(const brain *b, uint32_t cap, uint32_t *ids);
/* The payoff table (owned by b). Changes made through it are not
 * persisted: tests use it to pose win rates. */
payoff *brain_payoff(brain *b);
/* The id the next job will get; the number of jobs issued and neither
 * answered nor cancelled. */
uint64_t brain_next_job_id(const brain *b);
uint64_t brain_open_jobs(const brain *b);
/* Snapshots (historical agents, retired ones included). O(1). */
uint64_t brain_snapshot_count(const brain *b);
/* 1 when some snapshot of learner `player` froze parameter `version`
 * (kept for good, even once retired), else 0. O(log snapshots). */
int brain_version_frozen(const brain *b, uint32_t player, uint32_t version);
/* 1 when an active snapshot of learner `player` froze `version` (one that
 * matchmaking may hand out and a meta-Nash may weigh), else 0: once the
 * prune rule retired every snapshot of a version, its parameters are
 * needed by nothing the brain does. O(log snapshots + active snapshots of
 * player). */
int brain_version_held(const brain *b, uint32_t player, uint32_t version);

/* The mean return of ids[i] against ids[j] (its decayed return sum over
 * the decayed games[i * n + j] from payoff_matrix; 0 where none) into
 * out (n x n): measure return's unit. */
void brain_mean_returns(const brain *b, const uint32_t *ids, size_t n,
			const double *games, double *out);
/* Append the payoff matrix of ids[0..n) as the JSON object `league payoff
 * --format json` prints: {"players":[ids],"measure":"win","win_rate":
 * [[..]],"games":[[..]]} (rows in ids order; a pair never met is null);
 * under measure return "measure":"return","return_scale":R,
 * "mean_return":[[..]] (brain_mean_returns) come before win_rate (the
 * mean score the rules use). LG_ENOMEM. */
int brain_payoff_json(brain *b, const uint32_t *ids, size_t n, lg_buf *out);

/* The ladder: every player and snapshot with its maximum-likelihood
 * rating over the decayed matrix (payoff_elo_fit, prior 1, mean 0), its
 * online Elo and games, its meta-Nash weight in the zero-sum meta-game of
 * win rate - 1/2 (0 where never met) and its α-Rank score (the
 * stationary mass of payoff_alpharank on the win-rate matrix with 1/2 on
 * the diagonal, as a self-play pair carries no information about a
 * player), sorted by rating, highest first (ties by id). The meta-Nash
 * and α-Rank are dense (O(n^3)): each is solved for at most max_nash
 * players (beyond, every Nash weight is 0 and *gap -1; every alpha_rank
 * NaN). *gap is the meta-Nash's duality gap. out has brain_count(b)
 * entries. LG_ENOMEM; LG_EINVAL when o->ar is out of range (and α-Rank
 * on). */
struct brain_rating {
	uint32_t id;
	int role;
	uint32_t parent; /* a snapshot: the player it froze; else NONE */
	double rating, elo, games, nash;
	double rating_se; /* standard error of rating (payoff_elo_fit_se) */
	double alpha_rank; /* α-Rank mass; NaN when not computed */
	uint32_t pop;      /* its population (seat role) */
};
/* An N-seat or team league's ladder (players/ladder.c): ratings from a
 * Plackett-Luce fit of its newest this many episodes. */
#define BRAIN_LADDER_EPISODES 8192
/* What brain_ratings_with computes besides the Elo fit. */
struct brain_ratings_opts {
	uint32_t max_nash;        /* meta-Nash and α-Rank up to this many */
	int alpha_rank;           /* 0: no α-Rank (alpha_rank NaN) */
	struct payoff_alpharank_opts ar; /* alpha and population */
};
/* max_nash, α-Rank on with payoff_alpharank_opts_default (alpha 100,
 * population 50). */
void brain_ratings_opts_default(struct brain_ratings_opts *o,
				uint32_t max_nash);
int brain_ratings_with(brain *b, const struct brain_ratings_opts *o,
		       struct brain_rating *out, double *gap);
/* What the ladder computed besides each player's numbers. */
enum brain_meta {
	BRAIN_META_NONE,     /* not computed (over max_nash players, more
				than two populations, or the solver failed) */
	BRAIN_META_ZEROSUM,  /* one population: payoff_meta_nash */
	BRAIN_META_BIMATRIX, /* two populations: payoff_bimatrix_nash */
};
struct brain_ladder_info {
	int pl;            /* ratings from Plackett-Luce (else the Elo fit) */
	int meta;          /* enum brain_meta */
	uint64_t episodes; /* Plackett-Luce: the episodes counted */
	double gap;        /* the meta-Nash's duality gap or, two roles,
			      eps (payoff_bimatrix_nash); -1: none */
};
/*
 * brain_ratings_with, and what it computed into *info. The ratings:
 * for a league whose newest result is an episode of more than two seats
 * or with a team of several (N-player and team games), the
 * Plackett-Luce fit of its newest BRAIN_LADDER_EPISODES episodes as
 * ranked games of their teams (payoff_pl_fit, prior 1, Elo points, mean
 * 0 over the agents in them; rating and rating_se NaN for an agent not
 * in them); else the Elo fit of the decayed table. The meta-game: one
 * population, the zero-sum meta-Nash of win rate - 1/2 and the
 * single-population α-Rank, as above; two populations (seat roles), the
 * equilibrium payoff_bimatrix_nash returns for the role-0 x role-1
 * bimatrix (under measure return each role's mean return, 0 where
 * never met; under measure win win rate - 1/2 and its negative), each
 * role's weights summing to 1, and payoff_alpharank_multi's marginals
 * with one population per role (each role's summing to 1); more
 * populations: neither (nash 0, alpha_rank NaN).
 */
int brain_ratings_info(brain *b, const struct brain_ratings_opts *o,
		       struct brain_rating *out,
		       struct brain_ladder_info *info);
/* brain_ratings_with under brain_ratings_opts_default(max_nash). */
int brain_ratings(brain *b, uint32_t max_nash, struct brain_rating *out,
		  double *gap);
/* The same as the JSON object `league ratings --alpha-rank --format json`
 * prints: {"nash_gap":G,"alpha_rank":{"alpha":A,"population":M},
 * "ratings":[{"id":..,"role":..,"rating":..,"elo":..,"games":..,
 * "nash":..,"parent":..,"rating_se":..,"alpha_rank":..},...]}, parent -1
 * for a learning player (the page groups snapshots by their player's
 * role), rating_se null for an agent without games. alpha A is "inf" for
 * the limit. With α-Rank off (brain_ratings_json_with) neither
 * "alpha_rank" key appears; when it was not computed (over max_nash) the
 * top one is null and the players' are absent. LG_ENOMEM. */
int brain_ratings_json(brain *b, uint32_t max_nash, lg_buf *out);
int brain_ratings_json_with(brain *b, const struct brain_ratings_opts *o,
			    lg_buf *out);

/* A page of the lineage as JSON items {"id":..,"role":"main","status":
 * "active"|"retired","parent":ID|null,"prev":ID|null,"version":..,
 * "steps":..,"snapshots":..,"resets":..} separated by commas, no
 * brackets, in id order: the players above after (from id 0 with
 * from_start), at most limit. A snapshot's parent is the learner it
 * froze, prev that learner's snapshot before it. *more is 1 when
 * players follow, *last the id of the last one written. O(the page).
 * LG_ENOMEM. */
int brain_lineage_json(const brain *b, uint32_t after, int from_start,
		       size_t limit, lg_buf *out, int *more, uint32_t *last);
/* A page of the open jobs (issued, no result yet) as JSON items
 * {"id":..,"learner":..,"opponent":..,"kind":"pfsp",..,"episodes":..}
 * (a job of more than two seats then "seats":[{"player","version",
 * "learning","role"},..], role the agent's population)
 * separated by commas, no brackets: those with an id above after (every
 * one with from_start), at most limit, oldest first. *more is 1 when
 * another follows, *last the id of the last one written. O(log jobs +
 * the page) unless many jobs in the range are done. LG_ENOMEM. */
int brain_open_jobs_json(const brain *b, uint64_t after, int from_start,
			 size_t limit, lg_buf *out, int *more, uint64_t *last);

/* Names ("main", "pfsp", ...; "?" when out of range), static storage. */
const char *brain_role_name(int role);
const char *brain_kind_name(int kind);
/* PFSP weight f(x) of win rate x; x is clamped to [0, 1] and NaN reads as
 * 0.5, so the result is finite and >= 0. */
double brain_pfsp_weight(int weighting, double x, double exponent);

/* ---- decision log and replay ---------------------------------------- */

/*
 * With log_decisions, every call that changes the league appends one
 * record to STORE_DB_LOG under its sequence number (be64), in the same
 * commit as the change: decisions (with the rng state before them, the
 * branch, the candidate count and the probability), results (outcomes are
 * in STORE_DB_RESULTS under the job id), step reports (and the snapshot
 * or reset they caused) and cancellations. Walking the log in order
 * replays the run exactly.
 */
enum brain_log_type {
	BRAIN_LOG_DECISION = 1,
	BRAIN_LOG_RESULT,
	BRAIN_LOG_STEPS,
	BRAIN_LOG_CANCEL,
	BRAIN_LOG_GAMES,     /* cross-play games between two snapshots */
	BRAIN_LOG_RETURNS,   /* a result as every seat's returns
				(brain_record_returns) */
};

struct brain_log_entry {
	int type;             /* enum brain_log_type */
	uint64_t seq;
	uint64_t job;         /* decision, result, cancel */
	uint32_t player;      /* decision: learner; steps: the player */
	/* decision */
	uint32_t opponent, candidates, episodes;
	int kind;
	double prob;
	lg_rng rng_before;
	/* ... and an N-seat job's seats (nseats 0: a two-seat decision,
	 * whose one opponent is above) */
	uint32_t nseats, learner_seat;
	uint32_t seat_agent[BRAIN_MAX_SEATS];
	/* result */
	uint32_t n, wins, draws, losses;
	/* steps */
	uint64_t steps;
	uint32_t version, snapshot_id;
	int snapshot, reset;
	/* ... and the snapshots it retired; retired_logged 0 for a record
	 * written before retirements were logged (nretired is then 0, which
	 * says nothing). */
	int retired_logged;
	uint32_t nretired;
	uint32_t retired[BRAIN_RETIRE_MAX];
};

/* Decode one log record (key: be64 seq). LG_ECORRUPT when malformed. */
int brain_log_decode(const void *key, size_t klen, const void *val,
		     size_t vlen, struct brain_log_entry *e);

/*
 * Replay the log of league store `from` into `b`, a brain freshly opened
 * (over another directory) with the same options: every call is made
 * again in order, results with their stored outcomes, and each decision
 * and step report (its snapshot, reset and retired snapshots) is checked
 * against the log. *checked gets the number of
 * records replayed. LG_ECORRUPT with the first difference in err (seq,
 * what was logged, what the replay did); brain call errors as they come.
 */
int brain_replay(store *from, brain *b, uint64_t *checked, char *err,
		 size_t errlen);

/* ---- history ------------------------------------------------------------ */

/*
 * The league as it stood once the first `upto` decision-log records were
 * made (seq < upto; the time slider of the live page, which takes upto
 * from the throughput series' log_seq): the league of store s, opened
 * read-only
 * whatever s is (nothing is ever written), with its payoff table rebuilt
 * from scratch by the log up to `upto` and the stored results: every
 * result's outcomes in log order, each snapshot registered when its step
 * report froze it, a reset's results moved to its snapshot, as the brain
 * did them. Only the agents that existed then are kept (brain_count), so
 * brain_payoff_json and brain_ratings_json show that moment; the other
 * per-agent counters are today's. With upto past the log's last record
 * the payoff is the league's own, bit for bit. Needs
 * log_decisions (the log): LG_ENOTFOUND without a league, LG_EUNSUPP
 * without a log; LG_ECORRUPT, storage errors, LG_ENOMEM, err saying
 * which. Close with brain_close.
 */
int brain_open_at(brain **out, store *s, uint64_t upto, char *err,
		  size_t errlen);
/* The next decision-log sequence number (records so far). */
uint64_t brain_log_seq(const brain *b);

/* ---- simulated league -------------------------------------------------- */

/*
 * A league with no networks, for tests, `league sim` and the benchmark.
 * Every agent has a fixed *type* on a cycle of `types` (>= 2): type t + 1
 * beats type t with probability `edge`, other distinct types are even, a
 * type against itself is even. Learner k starts at type k mod types; each
 * snapshot freezes the learner's type and moves the learner one step on
 * (it learned to beat what it was), a reset moves it back to its start.
 * So the league is non-transitive: a learner beats its last snapshot but
 * loses to the one before (with 3 types).
 *
 * brain_sim_run() drives the real brain for `jobs` jobs, round robin over
 * the learners: brain_next_job, episodes drawn with the sim's own rng
 * (seeded by `seed`, independent of the brain's), brain_record_result,
 * then brain_report_steps with steps_per_job more steps and one more
 * parameter version, then on_report (when set) with what the report
 * did: a test's view of every snapshot, reset and retirement as it
 * happens. Types of existing agents are rebuilt from the lineage, so it
 * also continues a stored league.
 */
struct brain_sim_opts {
	uint64_t seed;
	uint32_t types;          /* 3 */
	double edge;             /* 0.8 */
	uint64_t jobs;
	uint64_t steps_per_job;  /* 100 */
	int drift;               /* 0 */
	/* After each step report (NULL: nothing); a nonzero return stops
	 * the run and is its result. */
	int (*on_report)(void *arg, brain *b, uint32_t learner,
			 const struct brain_step_report *rep);
	void *arg;
};

struct brain_sim_learner {
	uint32_t id;
	uint64_t jobs;
	/* Jobs against opponents this learner truly loses to (win prob
	 * < 0.5 by type) ... */
	uint64_t hard_jobs;
	/* ... and, summed over its jobs, the share of all active snapshots
	 * it truly loses to (what a uniform pick would give). */
	double hard_share_sum;
	uint64_t kinds[BRAIN_JOB__COUNT];
};

#define BRAIN_SIM_LEARNERS (4 * BRAIN_MAX_PLAYERS_PER_ROLE)

struct brain_sim_stats {
	uint64_t jobs, episodes, snapshots, resets, retired;
	uint32_t nlearners;
	struct brain_sim_learner l[BRAIN_SIM_LEARNERS];
};

void brain_sim_opts_default(struct brain_sim_opts *o);
/* Win probability of type t against type u under o. */
double brain_sim_win_prob(const struct brain_sim_opts *o, uint32_t t,
			  uint32_t u);
/* Run; st (may be NULL) gets the tallies. Errors from the brain calls;
 * LG_EINVAL for bad options. */
int brain_sim_run(brain *b, const struct brain_sim_opts *o,
		  struct brain_sim_stats *st);

#endif
