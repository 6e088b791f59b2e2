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
