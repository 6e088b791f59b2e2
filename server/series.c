/*
 * server/series.c: the time series of STORE_DB_SERIES (server/series.h):
 * the record, and the columns GET /series serves.
 */
#include "server/series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SERIES_MAGIC "SER1"

static const char *const learner_fields[LSL_COUNT] = {
	[LSL_VERSION] = "version",
	[LSL_UPDATES] = "updates",
	[LSL_PLAYER_STEPS] = "player_steps",
	[LSL_SAMPLES_PER_S] = "samples_per_s",
	[LSL_LOSS] = "loss",
	[LSL_PG_LOSS] = "pg_loss",
	[LSL_VALUE_LOSS] = "value_loss",
	[LSL_ENTROPY] = "entropy",
	[LSL_APPROX_KL] = "approx_kl",
	[LSL_CLIP_FRAC] = "clip_frac",
	[LSL_LR] = "lr",
	[LSL_GRAD_NORM] = "grad_norm",
	[LSL_MAGNET_KL] = "magnet_kl",
};

static const char *const league_fields[LST_COUNT] = {
	[LST_ENV_STEPS] = "env_steps",
	[LST_JOBS_DONE] = "jobs_done",
	[LST_EPISODES] = "episodes",
	[LST_ENV_STEPS_PER_S] = "env_steps_per_s",
	[LST_JOBS_PER_S] = "jobs_per_s",
	[LST_SAMPLES_PER_S] = "samples_per_s",
	[LST_LOG_SEQ] = "log_seq",
};

/* brain_kind_name's, in its order (a test ties the two) */
static const char *const mix_fields[LSM_COUNT] = {
	"pfsp",	   "verify_exploiter", "verify_historical",
	"sp",	   "curriculum",       "exploit",
	"uniform", "nash",	       "fallback",
};

const char *const *league_series_fields(int kind, size_t *n)
{
	switch (kind) {
	case LEAGUE_SERIES_MIX:
		*n = LSM_COUNT;
		return mix_fields;
	case LEAGUE_SERIES_LEARNER:
		*n = LSL_COUNT;
		return learner_fields;
	case LEAGUE_SERIES_LEAGUE:
		*n = LST_COUNT;
		return league_fields;
	default:
		*n = 0;
		return NULL;
	}
}

int league_series_put(store_batch *b, const struct league_series_point *p)
{
	uint8_t k[LEAGUE_SERIES_KEY_BYTES];
	uint8_t v[8 + 8 * LEAGUE_SERIES_FIELDS_MAX];
	size_t n;

	if (!league_series_fields(p->kind, &n) || !(p->seconds >= 0) ||
	    p->seconds > 1e12) /* ms stay exact in a double */
		return LG_EINVAL;
	k[0] = (uint8_t)p->kind;
	lg_put_be64(k + 1, (uint64_t)llround(p->seconds * 1000));
	lg_put_be32(k + 9, p->player);
	memcpy(v, SERIES_MAGIC, 4);
	lg_put_le32(v + 4, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		lg_put_lef64(v + 8 + 8 * i, p->v[i]);
	return store_batch_put(b, STORE_DB_SERIES, k, sizeof k, v, 8 + 8 * n);
}

int league_series_decode(const void *key, size_t klen, const void *val,
			 size_t vlen, struct league_series_point *p)
{
	const uint8_t *k = key, *v = val;
	uint32_t count;
	size_t known;

	if (klen != LEAGUE_SERIES_KEY_BYTES ||
	    !league_series_fields(k[0], &known) || vlen < 8 ||
	    memcmp(v, SERIES_MAGIC, 4))
		return LG_ECORRUPT;
	count = lg_get_le32(v + 4);
	if (count > LEAGUE_SERIES_FIELDS_MAX || vlen != 8 + 8 * (size_t)count)
		return LG_ECORRUPT;
	memset(p, 0, sizeof *p);
	p->kind = k[0];
	p->seconds = (double)lg_get_be64(k + 1) / 1000;
	p->player = lg_get_be32(k + 9);
	if (p->kind == LEAGUE_SERIES_LEAGUE && p->player)
		return LG_ECORRUPT;
	p->n = known;
	/* an older writer's point lacks the fields added since: NaN */
	for (size_t i = 0; i < known; i++)
		p->v[i] = i < count ? lg_get_lef64(v + 8 + 8 * i) : NAN;
	return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

struct plist {
	struct league_series_point *p;
	size_t n, cap;
};

static int collect_cb(const void *key, size_t klen, const void *val,
		      size_t vlen, void *arg)
{
	struct plist *l = arg;
	int rc;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct league_series_point *q;
		if (l->n >= LEAGUE_SERIES_POINTS_MAX)
			return LG_EFULL;
		if (!(q = realloc(l->p, cap * sizeof *q)))
			return LG_ENOMEM;
		l->p = q;
		l->cap = cap;
	}
	if ((rc = league_series_decode(key, klen, val, vlen, &l->p[l->n])))
		return rc;
	l->n++;
	return 0;
}

static int json_num(lg_buf *b, const char *sep, double v)
{
	return isfinite(v) ? lg_buf_printf(b, "%s%.9g", sep, v)
			   : lg_buf_printf(b, "%snull", sep);
}

/* One series: the points idx[0..n) of l as columns, thinned to max. */
static int series_json(lg_buf *b, const struct plist *l, const size_t *idx,
		       size_t n, size_t max)
{
	size_t nf, stride = max && n > max ? (n + max - 1) / max : 1;
	const char *const *f = league_series_fields(l->p[idx[0]].kind, &nf);
	int rc = lg_buf_printf(b, "{");

	for (size_t c = 0; !rc && c <= nf; c++) {
		const char *sep = "";
		rc = lg_buf_printf(b, "%s\"%s\":[", c ? "," : "",
				   c ? f[c - 1] : "t");
		for (size_t i = 0; !rc && i < n; i++) {
			const struct league_series_point *p = &l->p[idx[i]];
			/* every stride-th point, and the last */
			if (i % stride && i + 1 != n)
				continue;
			rc = json_num(b, sep, c ? p->v[c - 1] : p->seconds);
			sep = ",";
		}
		rc = rc ? rc : lg_buf_printf(b, "]");
	}
	return rc ? rc : lg_buf_printf(b, "}");
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* ,"name":{"PLAYER": series, ...} for the points of kind, by player;
 * idx and players are scratch of l->n entries. */
static int per_player(lg_buf *b, const struct plist *l, int kind,
		      const char *name, size_t *idx, uint32_t *players,
		      size_t max)
{
	size_t np = 0, first = 1;
	int rc = lg_buf_printf(b, ",\"%s\":{", name);

	for (size_t i = 0; i < l->n; i++)
		if (l->p[i].kind == kind)
			players[np++] = l->p[i].player;
	qsort(players, np, sizeof *players, cmp_u32);
	for (size_t j = 0; !rc && j < np; j++) {
		size_t n = 0;
		if (j && players[j] == players[j - 1])
			continue;
		for (size_t i = 0; i < l->n; i++)
			if (l->p[i].kind == kind &&
			    l->p[i].player == players[j])
				idx[n++] = i;
		rc = lg_buf_printf(b, "%s\"%u\":", first ? "" : ",",
				   players[j]);
		rc = rc ? rc : series_json(b, l, idx, n, max);
		first = 0;
	}
	return rc ? rc : lg_buf_printf(b, "}");
}

static int write_json(lg_buf *b, const struct plist *l, size_t max)
{
	size_t *idx = malloc((l->n ? l->n : 1) * sizeof *idx), n = 0;
	uint32_t *players = malloc((l->n ? l->n : 1) * sizeof *players);
	int rc = 0;

	if (!idx || !players) {
		rc = LG_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l->n; i++)
		if (l->p[i].kind == LEAGUE_SERIES_LEAGUE)
			idx[n++] = i;
	rc = lg_buf_printf(b, "{\"league\":");
	rc = rc ? rc : n ? series_json(b, l, idx, n, max)
			 : lg_buf_printf(b, "null");
	rc = rc ? rc : per_player(b, l, LEAGUE_SERIES_LEARNER, "learners",
				  idx, players, max);
	rc = rc ? rc : per_player(b, l, LEAGUE_SERIES_MIX, "mix", idx,
				  players, max);
	rc = rc ? rc : lg_buf_printf(b, "}");
out:
	free(idx);
	free(players);
	return rc;
}

int league_series_json(store_txn *t, size_t max_points, lg_buf *out)
{
	struct plist l = { 0 };
	int rc = store_iter(t, STORE_DB_SERIES, NULL, 0, collect_cb, &l);

	if (!rc)
		rc = write_json(out, &l, max_points);
	free(l.p);
	return rc;
}

int league_series_json_store(store *st, size_t max_points, lg_buf *out)
{
	store_txn *t;
	int rc;

	if ((rc = store_txn_begin(st, STORE_TXN_READ, &t)))
		return rc;
	rc = league_series_json(t, max_points, out);
	store_txn_abort(t);
	return rc;
}

struct last_mix {
	uint64_t *counts;
	uint32_t n;
};

static int last_mix_cb(const void *key, size_t klen, const void *val,
		       size_t vlen, void *arg)
{
	struct last_mix *m = arg;
	struct league_series_point p;
	int rc;

	if (klen < 1 || *(const uint8_t *)key != LEAGUE_SERIES_MIX)
		return 1; /* past the mix points: stop */
	if ((rc = league_series_decode(key, klen, val, vlen, &p)))
		return rc;
	/* in time order: the last one of a player stays */
	if (p.player < m->n)
		for (size_t k = 0; k < LSM_COUNT; k++)
			m->counts[(size_t)p.player * LSM_COUNT + k] =
				p.v[k] >= 0 && p.v[k] < 1.8e19 ? (uint64_t)p.v[k]
							       : 0;
	return 0;
}

int league_series_last_mix(store_txn *t, uint64_t *counts, uint32_t n)
{
	struct last_mix m = { counts, n };
	uint8_t from = LEAGUE_SERIES_MIX;

	memset(counts, 0, (size_t)n * LSM_COUNT * sizeof *counts);
	return store_iter(t, STORE_DB_SERIES, &from, 1, last_mix_cb, &m);
}
