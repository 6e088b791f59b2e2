/*
 * eval/evalrec.c: the evaluation records in STORE_DB_EVAL (see
 * evalrec.h). The daemon writes them as the evaluator and the baseline
 * games report; `league eval DIR` reads them read-only.
 *
 * Record (little-endian, LEAGUE_EVAL_REC_BYTES): magic "NCV2", snapshot,
 * main player, main version, league snapshots, average versions (u32
 * each); env steps (u64); seconds, nashconv_main, nashconv_league,
 * eval_seconds, nashconv_oracle_mix, nashconv_avg (f64). "NCV1" records
 * (64 bytes, no average, the league figure the oracle's) still read.
 * Records of other kinds in the same database (other magic) are skipped
 * by readers, so other evaluation tables can share it.
 */
#include "eval/evalrec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EVAL_MAGIC "NCV2"
#define EVAL_MAGIC_V1 "NCV1"
#define EVAL_REC_V1_BYTES 64

#define PT(type, at, member) \
	LG_FIELD(type, at, struct league_eval_point, member)

/* A point's fields: those a version-1 record has, then the rest. */
static const struct lg_field point_v1[] = {
	PT(U32, 4, snapshot),	      PT(U32, 8, main_player),
	PT(U32, 12, main_version),    PT(U32, 16, league_snapshots),
	PT(U64, 24, env_steps),	      PT(F64, 32, seconds),
	PT(F64, 40, nashconv_main),   PT(F64, 48, nashconv_league),
	PT(F64, 56, eval_seconds),
};
static const struct lg_field point_v2[] = {
	PT(U32, 20, avg_versions),
	PT(F64, 64, nashconv_oracle_mix),
	PT(F64, 72, nashconv_avg),
};

void league_eval_encode(const struct league_eval_point *p,
			uint8_t out[LEAGUE_EVAL_REC_BYTES])
{
	memset(out, 0, LEAGUE_EVAL_REC_BYTES);
	memcpy(out, EVAL_MAGIC, 4);
	lg_fields_put(out, point_v1, LG_ARRAY_LEN(point_v1), p);
	lg_fields_put(out, point_v2, LG_ARRAY_LEN(point_v2), p);
}

int league_eval_decode(const void *val, size_t len,
		       struct league_eval_point *p)
{
	const uint8_t *v = val;
	int v1;

	if (len < 4)
		return LG_ENOTFOUND;
	v1 = !memcmp(v, EVAL_MAGIC_V1, 4);
	if (!v1 && memcmp(v, EVAL_MAGIC, 4))
		return LG_ENOTFOUND;
	if (len != (v1 ? EVAL_REC_V1_BYTES : LEAGUE_EVAL_REC_BYTES))
		return LG_ECORRUPT;
	memset(p, 0, sizeof *p);
	lg_fields_get(v, point_v1, LG_ARRAY_LEN(point_v1), p);
	if (v1) {
		p->nashconv_oracle_mix = p->nashconv_league;
		p->nashconv_league = p->nashconv_avg = NAN;
		return 0;
	}
	lg_fields_get(v, point_v2, LG_ARRAY_LEN(point_v2), p);
	return 0;
}

/* The records of one kind, decoded into a growable array of `size`-byte
 * items (an lg_buf: malloc'd, so aligned for any struct). */
struct rec_list {
	lg_buf b;
	size_t size;
	int (*decode)(const void *key, size_t klen, const void *val,
		      size_t vlen, void *item);
};

static int rec_cb(const void *key, size_t klen, const void *val, size_t vlen,
		  void *arg)
{
	struct rec_list *l = arg;
	union {
		struct league_eval_point p;
		struct league_bgame_row r;
	} item;
	int rc = l->decode(key, klen, val, vlen, &item);

	if (rc == LG_ENOTFOUND)
		return 0; /* another kind of evaluation record */
	if (rc)
		return rc;
	if (l->b.len / l->size == LEAGUE_EVAL_POINTS_MAX)
		return LG_EFULL;
	return lg_buf_append(&l->b, &item, l->size);
}

static int rec_list(store_txn *t, struct rec_list *l, void **out, size_t *n)
{
	int rc = store_iter(t, STORE_DB_EVAL, NULL, 0, rec_cb, l);

	*out = NULL;
	*n = 0;
	if (rc) {
		lg_buf_free(&l->b);
		return rc;
	}
	*out = l->b.data; /* NULL when empty */
	*n = l->b.len / l->size;
	return 0;
}

static int point_decode(const void *key, size_t klen, const void *val,
			size_t vlen, void *item)
{
	struct league_eval_point *pt = item;
	int rc = league_eval_decode(val, vlen, pt);

	if (rc)
		return rc;
	if (klen != 8)
		return LG_ECORRUPT;
	pt->seq = lg_get_be64(key);
	return 0;
}

int league_eval_list(store_txn *t, struct league_eval_point **out,
		     size_t *n)
{
	struct rec_list l = { .size = sizeof **out, .decode = point_decode };

	return rec_list(t, &l, (void **)out, n);
}

/* ---- evaluation against fixed baselines -------------------------------- */

/*
 * Key: 'B', be32 player, be32 version, the baseline's name (no NUL): one
 * row per evaluated version and baseline, in version order. The 'B' sorts
 * after every be64 seq key of the exploitability records (seq < 2^56).
 * Value (little-endian, LEAGUE_BGAME_REC_BYTES): magic "BGM1", player,
 * version (u32), reserved (u32); env steps (u64), seconds (f64), then
 * games, wins, draws, losses (u64) for seat 0 and seat 1.
 */
#define BGAME_MAGIC "BGM1"

size_t league_bgame_key(uint32_t player, uint32_t version,
			const char *baseline,
			uint8_t key[LEAGUE_BGAME_KEY_MAX])
{
	size_t n = strnlen(baseline, CFG_BASELINE_MAX - 1);

	key[0] = 'B';
	lg_put_be32(key + 1, player);
	lg_put_be32(key + 5, version);
	memcpy(key + 9, baseline, n);
	return 9 + n;
}

#define BG(type, at, member) \
	LG_FIELD(type, at, struct league_bgame_row, member)
/* A seat's counts: 32 bytes from 32 + 32 * seat. */
#define BG_SEAT(s)                                                      \
	BG(U64, 32 + 32 * (s), games[s]), BG(U64, 40 + 32 * (s), wins[s]), \
	BG(U64, 48 + 32 * (s), draws[s]), BG(U64, 56 + 32 * (s), losses[s])

/* A baseline row's fields (its baseline is the key's). */
static const struct lg_field bgame_fields[] = {
	BG(U32, 4, player),    BG(U32, 8, version),
	BG(U64, 16, env_steps), BG(F64, 24, seconds),
	BG_SEAT(0),		BG_SEAT(1),
};

void league_bgame_encode(const struct league_bgame_row *r,
			 uint8_t out[LEAGUE_BGAME_REC_BYTES])
{
	memset(out, 0, LEAGUE_BGAME_REC_BYTES);
	memcpy(out, BGAME_MAGIC, 4);
	lg_fields_put(out, bgame_fields, LG_ARRAY_LEN(bgame_fields), r);
}

int league_bgame_decode(const void *key, size_t klen, const void *val,
			size_t vlen, struct league_bgame_row *r)
{
	const uint8_t *k = key, *v = val;

	if (vlen < 4 || memcmp(v, BGAME_MAGIC, 4))
		return LG_ENOTFOUND;
	if (vlen != LEAGUE_BGAME_REC_BYTES || klen < 10 ||
	    klen >= LEAGUE_BGAME_KEY_MAX || k[0] != 'B')
		return LG_ECORRUPT;
	memset(r, 0, sizeof *r);
	lg_fields_get(v, bgame_fields, LG_ARRAY_LEN(bgame_fields), r);
	if (r->player != lg_get_be32(k + 1) ||
	    r->version != lg_get_be32(k + 5))
		return LG_ECORRUPT;
	/* A NUL inside the name would read as its prefix: another row. */
	if (memchr(k + 9, 0, klen - 9))
		return LG_ECORRUPT;
	memcpy(r->baseline, k + 9, klen - 9);
	for (int s = 0; s < 2; s++) {
		/* In this order, so no sum can wrap past 2^64. */
		if (r->wins[s] > r->games[s] ||
		    r->draws[s] > r->games[s] - r->wins[s] ||
		    r->losses[s] != r->games[s] - r->wins[s] - r->draws[s])
			return LG_ECORRUPT;
	}
	return 0;
}

static int row_decode(const void *key, size_t klen, const void *val,
		      size_t vlen, void *item)
{
	return league_bgame_decode(key, klen, val, vlen, item);
}

int league_bgame_list(store_txn *t, struct league_bgame_row **out,
		      size_t *n)
{
	struct rec_list l = { .size = sizeof **out, .decode = row_decode };

	return rec_list(t, &l, (void **)out, n);
}

/* ,"name":v (null when not finite). */
static int json_nc(lg_buf *b, const char *name, double v)
{
	return isfinite(v) ? lg_buf_printf(b, ",\"%s\":%.17g", name, v)
			   : lg_buf_printf(b, ",\"%s\":null", name);
}

int league_eval_json(const struct league_eval_point *pt, size_t n,
		     lg_buf *out)
{
	int rc = lg_buf_printf(out, "[");

	for (size_t i = 0; !rc && i < n; i++) {
		rc = lg_buf_printf(out, "%s{\"seconds\":%.3f,\"env_steps\":%llu",
				   i ? "," : "", pt[i].seconds,
				   (unsigned long long)pt[i].env_steps);
		rc = rc ? rc : json_nc(out, "nashconv_main", pt[i].nashconv_main);
		rc = rc ? rc : json_nc(out, "nashconv_league",
				       pt[i].nashconv_league);
		rc = rc ? rc : json_nc(out, "nashconv_oracle_mix",
				       pt[i].nashconv_oracle_mix);
		rc = rc ? rc : json_nc(out, "nashconv_avg", pt[i].nashconv_avg);
		rc = rc ? rc : lg_buf_printf(out, ",\"snapshot\":%u,"
					     "\"league_snapshots\":%u,"
					     "\"avg_versions\":%u,"
					     "\"main_player\":%u,"
					     "\"main_version\":%u}",
					     pt[i].snapshot,
					     pt[i].league_snapshots,
					     pt[i].avg_versions,
					     pt[i].main_player,
					     pt[i].main_version);
	}
	return rc ? rc : lg_buf_printf(out, "]");
}

int league_eval_json_store(store *st, lg_buf *out)
{
	struct league_eval_point *pt = NULL;
	store_txn *t;
	size_t n = 0;
	int rc;

	if ((rc = store_txn_begin(st, STORE_TXN_READ, &t)))
		return rc;
	rc = league_eval_list(t, &pt, &n);
	store_txn_abort(t);
	if (!rc)
		rc = league_eval_json(pt, n, out);
	free(pt);
	return rc;
}
