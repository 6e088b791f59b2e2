/*
 * players/brain_internal.h: the brain's in-memory state and the functions
 * its files share. Included by the players module only; everything outside
 * goes through players.h. The files:
 *
 *   players.c      lifecycle (open, close, flush), agents and snapshots,
 *                  jobs and their results, the snapshot and reset rules,
 *                  frozen versions
 *   inspect.c      inspection: counts, a player's record, the payoff
 *                  object and its JSON, lineage and jobs in flight pages
 *   matchmaking.c  opponent choice by role: PFSP, uniform, self-play,
 *                  meta-Nash, verification (brain_choose)
 *   records.c      every record the brain stores, encode and decode side
 *                  by side (the log's decoder is public: brain_log_decode)
 *   opts.c         the options: defaults and checks
 *   prune.c        the prune rule: which snapshots retire beyond
 *                  snapshot_keep (fifo, or outside the meta-Nash support)
 *   psro.c         PSRO: the population's complete prefix and its
 *                  meta-strategy, cross-play pairs and results, the end
 *                  of a best responder's iteration
 *   ratings.c      the ratings ladder (Elo fit, meta-Nash, α-Rank) and
 *                  its JSON
 *   ladder.c       an N-seat or team league's ladder: Plackett-Luce
 *                  over its newest episodes from the log, cached
 *   replay.c       the decision log replayed into a fresh brain
 *   sim.c          the simulated league, on the public API only
 */
#ifndef LG_PLAYERS_BRAIN_INTERNAL_H
#define LG_PLAYERS_BRAIN_INTERNAL_H

#include "players/players.h"

struct idlist {
	uint32_t *v;
	uint32_t n, cap;
};

struct agent {
	uint8_t role, status, dirty, rdirty; /* rdirty: rating to write */
	uint8_t pop;            /* its population (a seat role); snapshots
				   their parent's */
	uint32_t parent, prev, version, snapshots, resets;
	uint32_t last_snapshot; /* learners: latest snapshot id or NONE */
	uint64_t steps, last_snap_steps;
	/* PSRO learners: the best expected win rate against the current
	 * meta-strategy in this iteration, and the steps when it was
	 * reached (0 and the iteration's start: none yet) */
	double psro_best;
	uint64_t psro_at;
	struct idlist snaps;    /* learners: own active snapshots, in order */
	struct idlist frozen;   /* learners: versions any snapshot of theirs
				   froze (retired ones too), ascending */
};

struct open_job {
	struct brain_job j;
	uint8_t done;    /* closed since the last flush ... */
	uint8_t counted; /* ... with its result counted (else cancelled) */
	uint8_t stored;  /* its record is in LMDB */
};

struct brain {
	store *s;
	int rdonly;
	struct brain_opts o;
	payoff *pf;
	struct agent *ag;
	uint32_t n, cap;
	uint64_t nsnapshots;  /* historical agents */
	lg_rng rng;
	uint64_t next_job, seq;
	/* Per population (brain_opts.pops): its main players, its active
	 * snapshots (all of them, and the main exploiters'), its learners
	 * in creation order (a learner's counterpart in another population
	 * sits at the same place). */
	struct idlist learners;
	struct idlist mains[BRAIN_MAX_SEATS], hist_all[BRAIN_MAX_SEATS];
	struct idlist hist_expl[BRAIN_MAX_SEATS], pop_learners[BRAIN_MAX_SEATS];
	/* PSRO: cross-play results counted (the meta-strategy's inputs
	 * change only with them and with the population), and the last
	 * meta-strategy (psro.c; NULL until one is solved) */
	uint64_t psro_games;
	struct psro_cache *psro_cache;
	/* the N-seat ladder's Plackett-Luce fit (ladder.c; NULL until
	 * one is made) */
	struct ladder_cache *ladder;
	struct idlist dirty_agents, dirty_ratings;
	uint64_t *dirty_pairs;
	size_t ndirty_pairs, cap_dirty_pairs;
	uint64_t *dead_jobs;  /* stored jobs closed since the last flush */
	size_t ndead, cap_dead;
	/* Per-call records (results, log, lineage) wait here for the flush:
	 * the caller's batch (brain_opts.wb) or our own. */
	store_batch own_wb;
	store_batch *wb;
	struct open_job *jobs;
	size_t njobs, cap_jobs, ndone;
	uint32_t pending;     /* calls since the last flush */
	int cb_err;           /* first error inside a payoff callback */
	double *scratch;
	size_t cap_scratch;
	uint32_t *cand;
	size_t cap_cand;
	int over_logged;      /* nash pruning kept more than the bound */
	int given;            /* opened with the caller's options (else
				 inspection: populations as stored) */
};

/* Grow *p (elements of elem bytes, capacity *cap) to hold need. */
int brain_reserve(void **p, size_t *cap, size_t need, size_t elem);
int brain_idl_push(struct idlist *l, uint32_t v);
void brain_idl_free(struct idlist *l);

/* Win rate from a payoff row, clamped so a weight can never be NaN. */
static inline double brain_rate(const double *row, uint32_t q)
{
	double x = row[q];
	return x >= 0 ? (x <= 1 ? x : 1) : (x != x ? 0.5 : 0);
}

/* players.c: snapshot id leaves matchmaking's lists and is marked
 * retired (its record kept). LG_ENOMEM. */
int brain_retire(brain *b, uint32_t id);

/* prune.c: the prune rule for learner L, just after its snapshot (and
 * the reset it caused): retire what the rule chooses, at most
 * BRAIN_RETIRE_MAX, oldest first into out->retired. LG_ENOMEM, the
 * meta-Nash solver's errors. */
int brain_prune(brain *b, uint32_t L, struct brain_step_report *out);

/* matchmaking.c: fill j's opponent, kind, candidates and probability for
 * learner L by its role's rules (draws from b->rng), from population pop
 * (the seat's; L's own for a symmetric game). LG_EINVAL for a role
 * without rules, LG_ENOMEM. */
int brain_choose(brain *b, uint32_t L, uint32_t pop, struct brain_job *j);
/* matchmaking.c: fill every seat of job j (its id set) for learner L:
 * the learner in the (id mod k)-th of the k seats of its population,
 * its teammates by the teammates rule,
 * an opponent drawn by brain_choose for every other seat, in seat order
 * (one draw for two seats, as before N seats); j's opponent, kind,
 * candidates and probability are the first opponent seat's (the
 * learner's own when every seat is its team's). brain_choose's
 * errors. */
int brain_fill_seats(brain *b, uint32_t L, struct brain_job *j);

/* players.c: learner L's counterpart in population pop (the learner at
 * L's place among its own population's); L itself for its own. */
uint32_t brain_counterpart(const brain *b, uint32_t L, uint32_t pop);
/* The population a learner of pop meets first: that of the first seat
 * of another population (pop itself in a symmetric game). */
static inline uint32_t brain_opponent_pop(const brain *b, uint32_t pop)
{
	for (uint32_t s = 0; s < b->o.seats; s++)
		if (b->o.seat_pop[s] != pop)
			return b->o.seat_pop[s];
	return pop;
}

/* players.c: open job id's index (or -1); close job i (counted or
 * cancelled); the answer for a job that is not open (LG_EEXIST: its
 * result counted, LG_ENOTFOUND: never issued or cancelled). */
long brain_find_open_job(const brain *b, uint64_t id);
int brain_close_job(brain *b, size_t i, int counted);
int brain_closed_job_code(brain *b, uint64_t id);

/* results.c: one episode's returns r[0..nseats) of the seats' agents and
 * teams counted into pf by the measure (brain_record_returns's rule);
 * mark (may be NULL) gets every pair it changed. The history rebuild
 * and the brain share it, so they count alike. */
int brain_count_episode(payoff *pf, int measure, double return_scale,
			uint32_t nseats, const uint32_t *agent,
			const uint32_t *team, const double *r,
			brain *mark);
/* results.c: meta "brain.measure" (payoff.measure and return_scale):
 * written with the brain's state; read when an existing league opens
 * (given: the caller passed options, which must agree with the stored
 * ones, else LG_ECONFIG with err; not given: the stored ones are taken).
 * A league from before it was stored counts wins. */
int brain_measure_write(const brain *b, store_txn *t);
int brain_measure_load(brain *b, store_txn *t, int given, char *err,
		       size_t errlen);

/* players.c, for the other files of the brain: mark a payoff pair (and
 * both ratings) to be stored, append a log entry under the current seq,
 * end a mutating call (the batch rule). */
int brain_mark_pair(brain *b, uint32_t a, uint32_t c);
int brain_log_add(brain *b, const struct brain_log_entry *e);
/* A result's record (every outcome, for replay; cnt: losses, draws,
 * wins) and its log entry of type (a job's result, PSRO's games). */
int brain_put_result(brain *b, int type, uint64_t job_id, uint32_t a,
		     uint32_t c, const int8_t *outcomes, size_t n,
		     const uint32_t cnt[3]);
int brain_call_done(brain *b);

/* psro.c: whether PSRO learner L (its steps just reported) is done with
 * this iteration (*freeze), updating its best; and, after it was frozen,
 * the next iteration's start (its results against the old meta-strategy
 * forgotten). */
int brain_psro_step(brain *b, uint32_t L, int *freeze);
int brain_psro_next(brain *b, uint32_t L);
/* ladder.c: an N-seat or team league's ratings (BRAIN_LADDER_EPISODES
 * newest episodes of its N-seat results, walked back from the log at
 * the brain's position, as ranked games of their teams; a reset's older
 * results count for its snapshot): *pl 1 and each agent's
 * Plackett-Luce rating and standard error (payoff_pl_fit, prior 1, on
 * the Elo scale) into rating and se (brain_count entries, NaN for an
 * agent outside the window), *episodes how many counted. *pl 0 (rating
 * and se untouched) for a league whose newest result is of two single
 * seats or without a log. Cached until the log or the agents change.
 * Storage errors, LG_ECORRUPT, LG_ENOMEM. brain_ladder_free at close. */
#define BRAIN_LADDER_AGENTS 512
int brain_ladder_pl(brain *b, double *rating, double *se, int *pl,
		    uint64_t *episodes);
void brain_ladder_free(brain *b);
/* psro.c: free the PSRO state (brain_close). */
void brain_psro_free(brain *b);

/* ---- records.c ---------------------------------------------------------- */

/* Fixed record sizes (little-endian fields; a format byte first where a
 * record may grow). */
#define BRAIN_REC_PLAYER 56 /* format 2; format 1 was 40 */
#define BRAIN_REC_SNAPSHOT 24
#define BRAIN_REC_JOB 48
#define BRAIN_REC_RESULT_HDR 32
#define BRAIN_REC_RNG 32
#define BRAIN_REC_PAYOFF_OPTS 40
/* A decision of an N-seat job adds its seats (4 + 4 per seat). */
#define BRAIN_REC_LOG_MAX (72 + 4 + 4 * BRAIN_MAX_SEATS)

/* players: be32 id -> the agent's stored fields. Decode refuses a bad
 * format, role or status (LG_ECORRUPT). */
void brain_rec_player_encode(const struct agent *a,
			     uint8_t r[BRAIN_REC_PLAYER]);
int brain_rec_player_decode(const void *r, size_t len, struct agent *a);
/* snapshots: be32 id -> parent, prev, version, steps (lineage). */
void brain_rec_snapshot_encode(const struct agent *s,
			       uint8_t r[BRAIN_REC_SNAPSHOT]);
int brain_rec_snapshot_decode(const void *r, size_t len, struct agent *s);
/* jobs: be64 id -> the open job: BRAIN_REC_JOB bytes for two seats
 * (whose seats follow from the id: the learner's is id % 2), else those
 * and every seat. Encode returns the length (at most
 * BRAIN_REC_JOB_MAX); decode fills the seats either way. */
#define BRAIN_REC_JOB_MAX (BRAIN_REC_JOB + 4 + 12 * BRAIN_MAX_SEATS)
size_t brain_rec_job_encode(const struct brain_job *j,
			    uint8_t r[BRAIN_REC_JOB_MAX]);
int brain_rec_job_decode(const void *r, size_t len, struct brain_job *j);
/* The two-seat job's seats from its learner and opponent fields. */
void brain_job_two_seats(struct brain_job *j);

/* results: be64 job id -> the log seq, learner, opponent, the counts and
 * every outcome (so replay can record it again). */
struct brain_rec_result {
	uint64_t seq;
	uint32_t learner, opponent, n, wins, draws, losses;
	const int8_t *outcomes; /* n, pointing into the record */
};
static inline size_t brain_rec_result_size(size_t n)
{
	return BRAIN_REC_RESULT_HDR + n;
}
void brain_rec_result_encode(const struct brain_rec_result *res,
			     uint8_t *r);
int brain_rec_result_decode(const void *r, size_t len,
			    struct brain_rec_result *res);

/* results of an N-seat job or under measure return (the log's
 * BRAIN_LOG_RETURNS): the header above (outcomes: the learner seat's
 * sign), then nseats, learner seat, each seat's agent and team, and
 * every episode's returns (f64, n x nseats, row-major). */
struct brain_rec_returns {
	struct brain_rec_result h; /* outcomes NULL */
	uint32_t nseats, learner_seat;
	uint32_t agent[BRAIN_MAX_SEATS], team[BRAIN_MAX_SEATS];
	const uint8_t *ret;        /* n * nseats LE doubles, in the record */
};
static inline size_t brain_rec_returns_size(size_t n, size_t nseats)
{
	return BRAIN_REC_RESULT_HDR + 8 + 8 * nseats + 8 * n * nseats;
}
void brain_rec_returns_encode(const struct brain_rec_returns *res,
			      const double *ret, uint8_t *r);
int brain_rec_returns_decode(const void *r, size_t len,
			     struct brain_rec_returns *res);
static inline double brain_rec_return(const struct brain_rec_returns *res,
				      size_t e, size_t s)
{
	return lg_get_lef64(res->ret + 8 * (e * res->nseats + s));
}

/* log: be64 seq -> the entry (its type's fields; brain_log_decode is the
 * decoder). Returns the record's length (at most BRAIN_REC_LOG_MAX), 0
 * for an unknown type. */
size_t brain_rec_log_encode(const struct brain_log_entry *e,
			    uint8_t r[BRAIN_REC_LOG_MAX]);

/* meta "brain.rng" and "brain.payoff". */
void brain_rec_rng_encode(const lg_rng *g, uint8_t r[BRAIN_REC_RNG]);
int brain_rec_rng_decode(const void *r, size_t len, lg_rng *g);
void brain_rec_payoff_opts_encode(const struct payoff_opts *p,
				  uint8_t r[BRAIN_REC_PAYOFF_OPTS]);
/* LG_ECORRUPT for a wrong length or options payoff_opts_check refuses. */
int brain_rec_payoff_opts_decode(const void *r, size_t len,
				 struct payoff_opts *p);

#endif
