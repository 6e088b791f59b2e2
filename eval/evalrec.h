/*
 * eval/evalrec: the evaluation records in STORE_DB_EVAL, written by the
 * daemon and read by `league eval` (read-only, beside a live run), so a
 * reader needs this header and storage, not the daemon. Two kinds share
 * the database, told apart by a magic: exploitability points (be64 seq
 * keys) and rows of games against fixed baselines ('B' keys).
 */
#ifndef LG_EVAL_EVALREC_H
#define LG_EVAL_EVALREC_H

#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "storage/storage.h"

/* ---- exploitability over time ------------------------------------------ */

/*
 * An evaluator worker (`league evaluate`, ROLE_INSPECTOR) asks with
 * EvalRequest; the daemon answers EvalWork with the newest snapshot not
 * yet evaluated (or nothing): the newest main player's parameters, the
 * newest BRAIN_NASH_MAX snapshots with their weights in the meta-Nash of
 * their win-rate matrix (as 2 x win rate - 1), env steps and run seconds
 * now, and the main player's own snapshots (for its average policy).
 * Snapshots rarely play each other, so that matrix is mostly the 0.5
 * prior; the league's mixture is what the league knows all the same, and
 * the evaluator also reports the mixture an exact meta-game solve would
 * give, as a separate column (nashconv_oracle_mix). EvalReport is
 * committed to STORE_DB_EVAL under be64 seq (with meta
 * "eval.next_snapshot", so no snapshot is evaluated twice, also across
 * resume) before the Ack.
 */
#define LEAGUE_EVAL_REC_BYTES 80
#define LEAGUE_EVAL_POINTS_MAX (1u << 20)

/*
 * One point. The NashConvs (game-tree exact, of one behaviour policy
 * each): the newest main player's; the league's, its snapshots mixed by
 * the daemon's own meta-Nash weights (its payoff table: what matchmaking
 * sees); the same snapshots mixed by the exact meta-Nash of their
 * game-tree cross values (an oracle the league does not have); the main
 * player's average policy (its snapshots and current version, uniformly:
 * NFSP's figure). A record written before the last two existed reads
 * them as NaN, and its league figure, which was the oracle's, as
 * nashconv_oracle_mix (nashconv_league NaN).
 */
struct league_eval_point {
	uint64_t seq;              /* key in STORE_DB_EVAL */
	uint32_t snapshot;         /* newest snapshot at this point */
	uint32_t main_player, main_version;
	uint32_t league_snapshots; /* snapshots the meta-Nash covered */
	uint32_t avg_versions;     /* versions the average mixes */
	uint64_t env_steps;
	double seconds;            /* league run seconds */
	double nashconv_main, nashconv_league;
	double nashconv_oracle_mix, nashconv_avg;
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
/* The points as the JSON list `league eval DIR --format json` prints
 * (NaN as null). LG_ENOMEM. */
int league_eval_json(const struct league_eval_point *pt, size_t n,
		     lg_buf *out);
/* The same for every point st holds now (one read transaction): what
 * GET /nashconv serves. Storage errors, LG_ECORRUPT, LG_ENOMEM. */
int league_eval_json_store(store *st, lg_buf *out);

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
 * and starts on the newest one; evaluation jobs take daemon job ids
 * (league/job.h), which carry the daemon's start count, so a result from
 * before a restart is stale, never counted twice
 * (league/kind_baseline_eval.c).
 */
#define LEAGUE_BGAME_REC_BYTES 96
#define LEAGUE_BGAME_KEY_MAX (9 + CFG_BASELINE_MAX)
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
 * (`baseline_training`). Daemon job ids carry the start count, so a
 * result from before a restart is stale (league/kind_baseline_train.c).
 */

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
