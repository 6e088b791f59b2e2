/*
 * league/daemon: the league manager, `league serve`.
 *
 * One libevent loop owns everything: the LMDB store, the brain (players,
 * payoff, matchmaking; players/players.h), the lease table of jobs in
 * flight (league/lease.h) and the session layer (league/server.h). It never
 * runs an environment or a network: collectors play the jobs it hands out,
 * learners train and push parameter versions, and the daemon records what
 * they report.
 *
 * The conversation (docs/protocol.md):
 *   collector: Register{envs, max_jobs}; JobRequest -> Jobs (leased for
 *              matchmaking.job_lease_s); ParamsGet -> Params; JobResult ->
 *              Ack, sent only after the result is committed; a result from
 *              a session that no longer holds the lease is STATUS_STALE.
 *   learner:   Register{player, trajectory_endpoint} -> RegisterReply with
 *              the player's newest parameters (none on a fresh league: the
 *              learner initialises and puts version 0); ParamsPut -> Ack{id
 *              = the stored version, reset} after the commit and after the
 *              snapshot and reset rules ran.
 * A job is only handed out when both seats' parameters exist and the
 * learning player's learner is connected, so nothing waits on a job that
 * cannot be played.
 *
 * Parameters: STORE_DB_PARAMS, key (be32 params line, be32 version), a
 * checksummed blob holding the learner's own format. Versions are never
 * rewritten; a snapshot points at (parent, version), which is kept for
 * good; other old versions are deleted once `keep` newer ones exist.
 *
 * Crash safety: every reply that acknowledges something follows the LMDB
 * commit that holds it. After kill -9, `--resume` reloads the brain and
 * re-issues the jobs that were in flight, with their ids; a result the
 * dead daemon had committed is acknowledged again when a worker resends
 * it, and counts once. Throughput counters (env steps, jobs) are written
 * four times a second, so a crash may lose the last quarter second of
 * them; results, payoff and parameters are never lost once acknowledged.
 */
#ifndef LG_LEAGUE_DAEMON_H
#define LG_LEAGUE_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include "league/config.h"
#include "players/players.h"

struct event_base;
typedef struct league_daemon league_daemon;

struct league_daemon_opts {
	const struct cfg *cfg;   /* copied */
	const char *dir;         /* league directory (created if absent) */
	int resume;              /* 1: DIR must hold a league; 0: must not */
	const char *ports_file;  /* NULL or a path (see league_server_opts) */
	const char *token;       /* NULL/"": none (loopback only) */
	const char *listen;      /* NULL: cfg server.listen */
	int port;                /* -1: cfg server.port */
	int http_port;           /* -1: cfg server.http_port */
	unsigned store_flags;    /* enum store_flags, e.g. STORE_NOSYNC */
};

/*
 * Open (or create) the league in dir and start serving on base.
 * Errors: LG_EEXIST (a league is there and resume is 0), LG_ENOTFOUND
 * (resume and none there), LG_ECONFIG (the config does not fit the stored
 * league, or brain options are rejected), LG_EBUSY (another daemon owns
 * dir), LG_EIO; err says what and where.
 */
int league_daemon_new(league_daemon **out, struct event_base *base,
		      const struct league_daemon_opts *o, char *err,
		      size_t errlen);
/* Drain: tell every worker to stop, flush, and make league_daemon_run
 * return once they are gone. Safe to call more than once. */
void league_daemon_stop(league_daemon *d, const char *reason);
/* Dispatch until stopped (budget reached, SIGTERM/SIGINT, or stop()).
 * Returns 0, or an LG_E* code when the league could not be written. */
int league_daemon_run(league_daemon *d);
/* Flush, close the store. NULL is a no-op. */
void league_daemon_free(league_daemon *d);

/* Why the last run stopped ("budget: env_steps", "signal", ...). */
const char *league_daemon_stop_reason(const league_daemon *d);

/* ---- exploitability over time ------------------------------------------ */

/*
 * An evaluator worker (`league evaluate`, ROLE_INSPECTOR) asks with
 * EvalRequest; the daemon answers EvalWork with the newest snapshot not
 * yet evaluated (or nothing): the newest main player's parameters, the
 * newest BRAIN_NASH_MAX snapshots with their weights in the meta-Nash of
 * their win-rate matrix (as 2 x win rate - 1), env steps and run seconds
 * now. (Snapshots rarely play each other, so that matrix is mostly the
 * 0.5 prior; the evaluator solves the meta-game exactly instead and uses
 * these weights for its log only.) EvalReport is committed to STORE_DB_EVAL under be64 seq
 * (with meta "eval.next_snapshot", so no snapshot is evaluated twice, also
 * across resume) before the Ack.
 */
#define LEAGUE_EVAL_REC_BYTES 64
#define LEAGUE_EVAL_POINTS_MAX (1u << 20)

struct league_eval_point {
	uint64_t seq;              /* key in STORE_DB_EVAL */
	uint32_t snapshot;         /* newest snapshot at this point */
	uint32_t main_player, main_version;
	uint32_t league_snapshots; /* snapshots the meta-Nash covered */
	uint64_t env_steps;
	double seconds;            /* league run seconds */
	double nashconv_main, nashconv_league;
	double eval_seconds;       /* what the evaluation cost */
};

void league_eval_encode(const struct league_eval_point *p,
			uint8_t out[LEAGUE_EVAL_REC_BYTES]);
/* LG_ENOTFOUND: not an exploitability record (another kind in the same
 * database; skip it); LG_ECORRUPT: one, but malformed. seq is not set. */
int league_eval_decode(const void *val, size_t len,
		       struct league_eval_point *p);
/* Every exploitability record of the store in seq order (t may be a read
 * transaction of a read-only store). *out is malloc'd (free it), *n the
 * count; at most LEAGUE_EVAL_POINTS_MAX (else LG_EFULL). LG_ECORRUPT,
 * LG_ENOMEM, storage errors. */
int league_eval_list(store_txn *t, struct league_eval_point **out,
		     size_t *n);

/* ---- evaluation against fixed baselines -------------------------------- */

/*
 * With eval.share > 0 the daemon mixes evaluation jobs into the job queue
 * so that about that share of all episodes plays a main player against
 * the fixed baselines of eval.baselines. It evaluates one version at a
 * time: the newest version of the next main player (round robin), which
 * plays eval.games games against every baseline from each seat, in jobs
 * of at most LEAGUE_BGAME_JOB_EPISODES episodes; the next version is
 * taken once every job of this one has reported. The version is kept
 * (not deleted from the parameter window) while it is evaluated.
 *
 * Nothing learns in these games and they never touch the payoff matrix:
 * each result is added to the row (player, version, baseline) in
 * STORE_DB_EVAL before its Ack. `league eval baselines DIR` lists them.
 * A restart forgets the version being evaluated (its partial row stays)
 * and starts on the newest one; evaluation job ids carry the bit
 * LEAGUE_BGAME_JOB_BIT and the daemon's start count, so a result from
 * before a restart is stale, never counted twice.
 */
#define LEAGUE_BGAME_REC_BYTES 96
#define LEAGUE_BGAME_KEY_MAX (9 + CFG_BASELINE_MAX)
#define LEAGUE_BGAME_JOB_BIT (1ull << 63)
#define LEAGUE_BGAME_JOB_EPISODES 256

/*
 * Training against fixed opponents: with matchmaking.baseline_share > 0,
 * every training job handed to a main player pays for that share of
 * episodes (share / (1 - share) per brain episode) of jobs in which its
 * newest version plays one of matchmaking.baselines, the baselines and
 * the two seats taken in turn. Its seat learns as in any training job;
 * the baseline is played by the collector inside the env. The results
 * count in the league's env steps and episodes but never in the payoff
 * matrix or the matchmaking (the brain never sees these jobs); this
 * run's wins and losses per baseline and seat are in the status
 * (`baseline_training`). The ids carry LEAGUE_TBGAME_JOB_BIT (and the
 * start count), so a result from before a restart is stale.
 */
#define LEAGUE_TBGAME_JOB_BIT (1ull << 62)

struct league_bgame_row {
	uint32_t player, version;
	char baseline[CFG_BASELINE_MAX];
	uint64_t env_steps;        /* training env steps when it was chosen */
	double seconds;            /* league run seconds then */
	/* By the evaluated player's seat (0: it moves first). */
	uint64_t games[2], wins[2], draws[2], losses[2];
};

size_t league_bgame_key(uint32_t player, uint32_t version,
			const char *baseline,
			uint8_t key[LEAGUE_BGAME_KEY_MAX]);
void league_bgame_encode(const struct league_bgame_row *r,
			 uint8_t out[LEAGUE_BGAME_REC_BYTES]);
/* LG_ENOTFOUND: another kind of record; LG_ECORRUPT: malformed. */
int league_bgame_decode(const void *key, size_t klen, const void *val,
			size_t vlen, struct league_bgame_row *r);
/* Every row in key order (player, version, baseline); *out malloc'd. */
int league_bgame_list(store_txn *t, struct league_bgame_row **out,
		      size_t *n);

#endif
