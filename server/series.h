/*
 * server/series: time series in STORE_DB_SERIES, written by the daemon and
 * read by the live page and `league inspect` (read-only, like evalrec).
 * Three kinds: each learner's training statistics, one point per pushed
 * version (the learner sends them with ParamsPut); the league's
 * throughput, one point every LEAGUE_SERIES_EVERY_S seconds; and each
 * learner's matchmaking mix, the league jobs it was given so far by the
 * brain's kind (pfsp, sp, verify_..., uniform, nash, ...; cumulative), a
 * point every LEAGUE_SERIES_EVERY_S seconds when it changed. A daemon
 * that stops (not on a storage failure) writes one more of each, so a
 * run's series end where it ended. A point is
 * stored in the turn's write batch, so it commits with whatever else the
 * turn stored.
 *
 * Key (13 bytes): the kind ('L', 'T' or 'M'), be64 league run milliseconds,
 * be32 player (0 for the league), so a kind's points sort by time. Value:
 * magic "SER1", u32 count, then count f64 values in the kind's field order
 * (league_series_fields); a reader takes the fields it knows, ignores any
 * more a newer writer appended and reads those an older one lacked as
 * NaN.
 */
#ifndef LG_SERVER_SERIES_H
#define LG_SERVER_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "storage/storage.h"
#include "util/util.h"

#define LEAGUE_SERIES_EVERY_S 5.0
#define LEAGUE_SERIES_KEY_BYTES 13
#define LEAGUE_SERIES_FIELDS_MAX 32
#define LEAGUE_SERIES_POINTS_MAX (1u << 22)
/* Points a series of GET /series has at most (the page's charts). */
#define LEAGUE_SERIES_JSON_POINTS 2000

enum league_series_kind {
	LEAGUE_SERIES_LEARNER = 'L',
	LEAGUE_SERIES_LEAGUE = 'T',
	LEAGUE_SERIES_MIX = 'M',
};

/* The mix's fields: the brain's job kinds, in enum brain_kind order
 * (brain_kind_name). */
#define LSM_COUNT 9

/* The learner's fields, in record order. */
enum {
	LSL_VERSION,
	LSL_UPDATES,
	LSL_PLAYER_STEPS,
	LSL_SAMPLES_PER_S,
	LSL_LOSS,
	LSL_PG_LOSS,
	LSL_VALUE_LOSS,
	LSL_ENTROPY,
	LSL_APPROX_KL,
	LSL_CLIP_FRAC,
	LSL_LR,
	LSL_GRAD_NORM,
	LSL_MAGNET_KL,
	LSL_COUNT
};

/* The league's fields, in record order. */
enum {
	LST_ENV_STEPS,
	LST_JOBS_DONE,
	LST_EPISODES,
	LST_ENV_STEPS_PER_S,
	LST_JOBS_PER_S,
	LST_SAMPLES_PER_S,
	LST_LOG_SEQ, /* decision-log records so far: ?at= of the slider */
	LST_COUNT
};

struct league_series_point {
	int kind;          /* enum league_series_kind */
	double seconds;    /* league run seconds (ms resolution) */
	uint32_t player;   /* learner points; 0 for the league */
	size_t n;          /* values known (the kind's count) */
	double v[LEAGUE_SERIES_FIELDS_MAX];
};

/* The field names of a kind (JSON keys), and their count; NULL / 0 for
 * an unknown kind. */
const char *const *league_series_fields(int kind, size_t *n);

/* Add p to the batch (the kind's count of values). LG_EINVAL (unknown
 * kind or a negative time), LG_ENOMEM. */
int league_series_put(store_batch *b, const struct league_series_point *p);

/* Decode a stored point. LG_ECORRUPT naming nothing (the caller knows
 * the key): a bad key, magic, count or length. */
int league_series_decode(const void *key, size_t klen, const void *val,
			 size_t vlen, struct league_series_point *p);

/* Every point of st (one read transaction) as the JSON GET /series
 * serves, each series at most max_points long (evenly thinned, the last
 * point kept):
 *   {"league": {"t": [...], "env_steps": [...], ...},
 *    "learners": {"PLAYER": {"t": [...], "pg_loss": [...], ...}, ...},
 *    "mix": {"PLAYER": {"t": [...], "pfsp": [...], ...}, ...}}
 * Non-finite values are null. LG_ECORRUPT, LG_EFULL (more than
 * LEAGUE_SERIES_POINTS_MAX points), LG_ENOMEM, storage errors. */
int league_series_json_store(store *st, size_t max_points, lg_buf *out);
/* The same from a transaction the caller holds. */
int league_series_json(store_txn *t, size_t max_points, lg_buf *out);

/* The newest mix point of each learner into counts[player * LSM_COUNT +
 * kind] for players < n (what a resumed daemon counts on from).
 * LG_ECORRUPT, storage errors. */
int league_series_last_mix(store_txn *t, uint64_t *counts, uint32_t n);

#endif
