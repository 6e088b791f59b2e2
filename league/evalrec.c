/*
 * league/evalrec.c: the exploitability-over-time records in STORE_DB_EVAL
 * (see daemon.h, "exploitability over time"). The daemon writes them as
 * the evaluator reports; `league eval DIR` reads them read-only.
 *
 * Record (little-endian, LEAGUE_EVAL_REC_BYTES): magic "NCV1", snapshot,
 * main player, main version, league snapshots, reserved (u32 each);
 * env steps (u64); seconds, nashconv_main, nashconv_league, eval_seconds
 * (f64). Records of other kinds in the same database (other magic) are
 * skipped by readers, so other evaluation tables can share it.
 */
#include "league/daemon.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EVAL_MAGIC "NCV1"

void league_eval_encode(const struct league_eval_point *p,
			uint8_t out[LEAGUE_EVAL_REC_BYTES])
{
	memset(out, 0, LEAGUE_EVAL_REC_BYTES);
	memcpy(out, EVAL_MAGIC, 4);
	lg_put_le32(out + 4, p->snapshot);
	lg_put_le32(out + 8, p->main_player);
	lg_put_le32(out + 12, p->main_version);
	lg_put_le32(out + 16, p->league_snapshots);
	lg_put_le64(out + 24, p->env_steps);
	lg_put_lef64(out + 32, p->seconds);
	lg_put_lef64(out + 40, p->nashconv_main);
	lg_put_lef64(out + 48, p->nashconv_league);
	lg_put_lef64(out + 56, p->eval_seconds);
}

int league_eval_decode(const void *val, size_t len,
		       struct league_eval_point *p)
{
	const uint8_t *v = val;

	if (len < 4 || memcmp(v, EVAL_MAGIC, 4))
		return LG_ENOTFOUND;
	if (len != LEAGUE_EVAL_REC_BYTES)
		return LG_ECORRUPT;
	memset(p, 0, sizeof *p);
	p->snapshot = lg_get_le32(v + 4);
	p->main_player = lg_get_le32(v + 8);
	p->main_version = lg_get_le32(v + 12);
	p->league_snapshots = lg_get_le32(v + 16);
	p->env_steps = lg_get_le64(v + 24);
	p->seconds = lg_get_lef64(v + 32);
	p->nashconv_main = lg_get_lef64(v + 40);
	p->nashconv_league = lg_get_lef64(v + 48);
	p->eval_seconds = lg_get_lef64(v + 56);
	return 0;
}

struct eval_list {
	struct league_eval_point *p;
	size_t n, cap;
	int rc;
};

static int list_cb(const void *key, size_t klen, const void *val,
		   size_t vlen, void *arg)
{
	struct eval_list *l = arg;
	struct league_eval_point pt;
	int rc = league_eval_decode(val, vlen, &pt);

	if (rc == LG_ENOTFOUND)
		return 0; /* another kind of evaluation record */
	if (rc || klen != 8)
		return LG_ECORRUPT;
	pt.seq = lg_get_be64(key);
	if (l->n == LEAGUE_EVAL_POINTS_MAX)
		return LG_EFULL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct league_eval_point *np = realloc(l->p, cap * sizeof *np);
		if (!np)
			return LG_ENOMEM;
		l->p = np;
		l->cap = cap;
	}
	l->p[l->n++] = pt;
	return 0;
}

int league_eval_list(store_txn *t, struct league_eval_point **out,
		     size_t *n)
{
	struct eval_list l = { 0 };
	int rc = store_iter(t, STORE_DB_EVAL, NULL, 0, list_cb, &l);

	*out = NULL;
	*n = 0;
	if (rc) {
		free(l.p);
		return rc;
	}
	*out = l.p;
	*n = l.n;
	return 0;
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

void league_bgame_encode(const struct league_bgame_row *r,
			 uint8_t out[LEAGUE_BGAME_REC_BYTES])
{
	memset(out, 0, LEAGUE_BGAME_REC_BYTES);
	memcpy(out, BGAME_MAGIC, 4);
	lg_put_le32(out + 4, r->player);
	lg_put_le32(out + 8, r->version);
	lg_put_le64(out + 16, r->env_steps);
	lg_put_lef64(out + 24, r->seconds);
	for (int s = 0; s < 2; s++) {
		uint8_t *o = out + 32 + 32 * s;
		lg_put_le64(o, r->games[s]);
		lg_put_le64(o + 8, r->wins[s]);
		lg_put_le64(o + 16, r->draws[s]);
		lg_put_le64(o + 24, r->losses[s]);
	}
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
	r->player = lg_get_le32(v + 4);
	r->version = lg_get_le32(v + 8);
	if (r->player != lg_get_be32(k + 1) ||
	    r->version != lg_get_be32(k + 5))
		return LG_ECORRUPT;
	memcpy(r->baseline, k + 9, klen - 9);
	r->env_steps = lg_get_le64(v + 16);
	r->seconds = lg_get_lef64(v + 24);
	for (int s = 0; s < 2; s++) {
		const uint8_t *o = v + 32 + 32 * s;
		r->games[s] = lg_get_le64(o);
		r->wins[s] = lg_get_le64(o + 8);
		r->draws[s] = lg_get_le64(o + 16);
		r->losses[s] = lg_get_le64(o + 24);
		if (r->wins[s] + r->draws[s] + r->losses[s] != r->games[s])
			return LG_ECORRUPT;
	}
	return 0;
}

struct bgame_list {
	struct league_bgame_row *r;
	size_t n, cap;
};

static int bgame_cb(const void *key, size_t klen, const void *val,
		    size_t vlen, void *arg)
{
	struct bgame_list *l = arg;
	struct league_bgame_row row;
	int rc = league_bgame_decode(key, klen, val, vlen, &row);

	if (rc == LG_ENOTFOUND)
		return 0; /* an exploitability record */
	if (rc)
		return rc;
	if (l->n == LEAGUE_EVAL_POINTS_MAX)
		return LG_EFULL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct league_bgame_row *nr = realloc(l->r, cap * sizeof *nr);
		if (!nr)
			return LG_ENOMEM;
		l->r = nr;
		l->cap = cap;
	}
	l->r[l->n++] = row;
	return 0;
}

int league_bgame_list(store_txn *t, struct league_bgame_row **out,
		      size_t *n)
{
	struct bgame_list l = { 0 };
	int rc = store_iter(t, STORE_DB_EVAL, NULL, 0, bgame_cb, &l);

	*out = NULL;
	*n = 0;
	if (rc) {
		free(l.r);
		return rc;
	}
	*out = l.r;
	*n = l.n;
	return 0;
}
