/*
 * players/players.c: the league brain (see players.h).
 *
 * In memory: one `struct agent` per id (learners and snapshots), candidate
 * lists kept up to date as snapshots appear (all active snapshots, those of
 * main exploiters, each learner's own, the main players), the payoff table
 * with a dense row per learner, and the open jobs sorted by id. A PFSP
 * decision is one pass over a candidate list reading the learner's row:
 * O(candidates), no hashing, no LMDB.
 *
 * Write-behind: calls mark what they changed (agents, pairs, ratings, open
 * jobs, closed jobs) and append the per-call records (results, decision
 * log, snapshot lineage) to a buffer; flush() writes all of it and the
 * counters and rng state in one store_update() transaction. A job opened
 * and closed within one batch never touches LMDB's jobs database.
 *
 * Stored records (little-endian fields, fixed layouts, format byte first
 * where they may grow):
 *   players   be32 id -> PLAYER_REC bytes
 *   snapshots be32 id -> parent, prev, version, step
 *   jobs      be64 id -> JOB_REC bytes (open jobs only)
 *   results   be64 id -> seq, learner, opponent, n, w, d, l, outcomes[n]
 *   log       be64 seq -> type, then per type (brain_log_decode)
 *   meta      brain.agents, brain.next_job, brain.seq (be64), brain.rng
 */
#include "players/players.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLAYER_REC 40
#define SNAP_REC 24
#define JOB_REC 48
#define LOG_DECISION_REC 72
#define LOG_RESULT_REC 28
#define LOG_STEPS_REC 24
#define LOG_CANCEL_REC 16
#define RESULT_HDR 32

struct idlist {
	uint32_t *v;
	uint32_t n, cap;
};

struct agent {
	uint8_t role, status, dirty, rdirty; /* rdirty: rating to write */
	uint32_t parent, prev, version, snapshots, resets;
	uint32_t last_snapshot; /* learners: latest snapshot id or NONE */
	uint64_t steps, last_snap_steps;
	struct idlist snaps;    /* learners: own active snapshots, in order */
};

struct open_job {
	struct brain_job j;
	uint8_t done, stored; /* stored: its record is in LMDB */
};

struct brain {
	store *s;
	int rdonly;
	struct brain_opts o;
	payoff *pf;
	struct agent *ag;
	uint32_t n, cap;
	lg_rng rng;
	uint64_t next_job, seq;
	struct idlist learners, mains, hist_all, hist_expl;
	struct idlist dirty_agents, dirty_ratings;
	uint64_t *dirty_pairs;
	size_t ndirty_pairs, cap_dirty_pairs;
	uint64_t *dead_jobs;  /* stored jobs closed since the last flush */
	size_t ndead, cap_dead;
	lg_buf rec;           /* pending records: db, klen, vlen, key, val */
	struct open_job *jobs;
	size_t njobs, cap_jobs, ndone;
	uint32_t pending;     /* calls since the last flush */
	int cb_err;           /* first error inside a payoff callback */
	double *scratch;
	size_t cap_scratch;
	uint32_t *cand;
	size_t cap_cand;
};

static const char *const role_names[] = {
	"main", "main_exploiter", "league_exploiter", "self_play",
	"historical",
};
static const char *const kind_names[] = {
	"pfsp", "verify_exploiter", "verify_historical", "sp", "curriculum",
	"exploit", "uniform", "nash", "fallback",
};

const char *brain_role_name(int role)
{
	return role >= 0 && role < BRAIN_ROLE__COUNT ? role_names[role] : "?";
}

const char *brain_kind_name(int kind)
{
	return kind >= 0 && kind < BRAIN_JOB__COUNT ? kind_names[kind] : "?";
}

/* ---- options ----------------------------------------------------------- */

void brain_opts_default(struct brain_opts *o)
{
	memset(o, 0, sizeof *o);
	o->seed = 1;
	o->n_main = 1;
	o->main.pfsp = 0.5;
	o->main.sp = 0.35;
	o->main.verification = 0.15;
	o->main.weighting = BRAIN_PFSP_SQUARED;
	o->main.sp_min_win_rate = 0.3;
	o->main.verify_exploiter_win_rate = 0.3;
	o->main.verify_historical_win_rate = 0.7;
	o->main_exploiter.main_min_win_rate = 0.1;
	o->main_exploiter.weighting = BRAIN_PFSP_VARIANCE;
	o->main_exploiter.reset_prob = 1;
	o->league_exploiter.weighting = BRAIN_PFSP_LINEAR_CAPPED;
	o->league_exploiter.reset_prob = 0.25;
	o->self_play.sp = 1;
	o->self_play.weighting = BRAIN_PFSP_SQUARED;
	o->pfsp_exponent = 2;
	o->job_episodes = 8;
	o->log_decisions = 1;
	o->snapshot_steps = 2000000000ull;
	o->snapshot_win_rate = 0.7;
	o->snapshot_max_mult = 2;
	o->snapshot_keep = 0;
	payoff_opts_default(&o->payoff);
	o->batch = 1;
}

static int prob_ok(double p)
{
	return p >= 0 && p <= 1;
}

static int weighting_ok(int w)
{
	return w >= BRAIN_PFSP_SQUARED && w <= BRAIN_PFSP_LINEAR_CAPPED;
}

int brain_opts_check(const struct brain_opts *o, char *err, size_t errlen)
{
	double s;

	s = o->main.pfsp + o->main.sp + o->main.verification;
	if (!prob_ok(o->main.pfsp) || !prob_ok(o->main.sp) ||
	    !prob_ok(o->main.verification) || !(fabs(s - 1.0) <= 1e-9)) {
		lg_errf(err, errlen, "roles.main: pfsp + sp + verification "
			"must be 1 (each in [0, 1]), is %.15g", s);
		return LG_ECONFIG;
	}
	s = o->self_play.sp + o->self_play.uniform + o->self_play.pfsp +
	    o->self_play.nash;
	if (!prob_ok(o->self_play.sp) || !prob_ok(o->self_play.uniform) ||
	    !prob_ok(o->self_play.pfsp) || !prob_ok(o->self_play.nash) ||
	    !(fabs(s - 1.0) <= 1e-9)) {
		lg_errf(err, errlen, "roles.self_play: sp + uniform + pfsp + "
			"nash must be 1 (each in [0, 1]), is %.15g", s);
		return LG_ECONFIG;
	}
	if (!o->n_main && !o->n_main_exploiter && !o->n_league_exploiter &&
	    !o->n_self_play) {
		lg_errf(err, errlen, "players: a league needs at least one "
			"learning player");
		return LG_ECONFIG;
	}
	if (o->n_main > BRAIN_MAX_PLAYERS_PER_ROLE ||
	    o->n_main_exploiter > BRAIN_MAX_PLAYERS_PER_ROLE ||
	    o->n_league_exploiter > BRAIN_MAX_PLAYERS_PER_ROLE ||
	    o->n_self_play > BRAIN_MAX_PLAYERS_PER_ROLE) {
		lg_errf(err, errlen, "players: at most %d per role",
			BRAIN_MAX_PLAYERS_PER_ROLE);
		return LG_ECONFIG;
	}
	if (o->n_main_exploiter && !o->n_main) {
		lg_errf(err, errlen, "players: main exploiters need a main "
			"player");
		return LG_ECONFIG;
	}
	if (!weighting_ok(o->main.weighting) ||
	    !weighting_ok(o->main_exploiter.weighting) ||
	    !weighting_ok(o->league_exploiter.weighting) ||
	    !weighting_ok(o->self_play.weighting)) {
		lg_errf(err, errlen, "roles: unknown pfsp weighting");
		return LG_ECONFIG;
	}
	if (!prob_ok(o->main.sp_min_win_rate) ||
	    !prob_ok(o->main.verify_exploiter_win_rate) ||
	    !prob_ok(o->main.verify_historical_win_rate) ||
	    !prob_ok(o->main_exploiter.main_min_win_rate) ||
	    !prob_ok(o->main_exploiter.reset_prob) ||
	    !prob_ok(o->league_exploiter.reset_prob) ||
	    !prob_ok(o->snapshot_win_rate)) {
		lg_errf(err, errlen, "roles/snapshot: a win rate or "
			"probability is outside [0, 1]");
		return LG_ECONFIG;
	}
	if (!(o->pfsp_exponent >= 0 && o->pfsp_exponent <= 100) ||
	    !o->job_episodes || o->job_episodes > BRAIN_MAX_EPISODES ||
	    !o->snapshot_steps || !(o->snapshot_max_mult >= 1) ||
	    !isfinite(o->snapshot_max_mult) || !o->batch) {
		lg_errf(err, errlen, "matchmaking/snapshot: pfsp_exponent, "
			"job_episodes, snapshot steps/max_mult or batch out "
			"of range");
		return LG_ECONFIG;
	}
	if (payoff_opts_check(&o->payoff, err, errlen))
		return LG_ECONFIG;
	return 0;
}

/* ---- small containers -------------------------------------------------- */

static int reserve(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*p, c * elem);
	if (!n)
		return LG_ENOMEM;
	*p = n;
	*cap = c;
	return 0;
}

static int idl_push(struct idlist *l, uint32_t v)
{
	if (l->n == l->cap) {
		uint32_t c = l->cap ? l->cap * 2 : 8;
		uint32_t *n = realloc(l->v, (size_t)c * sizeof *n);
		if (!n)
			return LG_ENOMEM;
		l->v = n;
		l->cap = c;
	}
	l->v[l->n++] = v;
	return 0;
}

static void idl_remove(struct idlist *l, uint32_t v)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->v[i] == v) {
			memmove(l->v + i, l->v + i + 1,
				(size_t)(l->n - i - 1) * sizeof *l->v);
			l->n--;
			return;
		}
}

static void idl_free(struct idlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static int is_learner(const brain *b, uint32_t id)
{
	return id < b->n && b->ag[id].role != BRAIN_ROLE_HISTORICAL;
}

static int mark_agent(brain *b, uint32_t id)
{
	if (b->ag[id].dirty)
		return 0;
	b->ag[id].dirty = 1;
	return idl_push(&b->dirty_agents, id);
}

static int mark_rating(brain *b, uint32_t id)
{
	if (b->ag[id].rdirty)
		return 0;
	b->ag[id].rdirty = 1;
	return idl_push(&b->dirty_ratings, id);
}

/* The pair's counts and both agents' ratings changed. */
static int mark_pair(brain *b, uint32_t a, uint32_t c)
{
	int rc = reserve((void **)&b->dirty_pairs, &b->cap_dirty_pairs,
			 b->ndirty_pairs + 1, sizeof *b->dirty_pairs);
	if (rc || (rc = mark_rating(b, a)) || (rc = mark_rating(b, c)))
		return rc;
	b->dirty_pairs[b->ndirty_pairs++] =
		(uint64_t)LG_MIN(a, c) << 32 | LG_MAX(a, c);
	return 0;
}

/* Append a pending put (val) or delete (val NULL) record. */
static int rec_add(brain *b, enum store_db db, const void *key, uint8_t klen,
		   const void *val, uint32_t vlen)
{
	uint8_t h[6];
	int rc;

	h[0] = (uint8_t)db;
	h[1] = klen;
	lg_put_le32(h + 2, val ? vlen : UINT32_MAX);
	if ((rc = lg_buf_append(&b->rec, h, sizeof h)) ||
	    (rc = lg_buf_append(&b->rec, key, klen)))
		return rc;
	return val ? lg_buf_append(&b->rec, val, vlen) : 0;
}

/* Append a log record under the current sequence number. */
static int log_add(brain *b, const uint8_t *r, uint32_t len)
{
	uint8_t k[8];

	store_key_u64(k, b->seq);
	return rec_add(b, STORE_DB_LOG, k, 8, r, len);
}

/* ---- records ----------------------------------------------------------- */

static void player_encode(const struct agent *a, uint8_t r[PLAYER_REC])
{
	memset(r, 0, PLAYER_REC);
	r[0] = 1; /* format */
	r[1] = a->role;
	r[2] = a->status;
	lg_put_le32(r + 4, a->parent);
	lg_put_le32(r + 8, a->prev);
	lg_put_le32(r + 12, a->version);
	lg_put_le32(r + 16, a->snapshots);
	lg_put_le32(r + 20, a->resets);
	lg_put_le64(r + 24, a->steps);
	lg_put_le64(r + 32, a->last_snap_steps);
}

static int player_decode(const uint8_t *r, size_t len, struct agent *a)
{
	if (len != PLAYER_REC || r[0] != 1 || r[1] >= BRAIN_ROLE__COUNT ||
	    r[2] > BRAIN_RETIRED)
		return LG_ECORRUPT;
	memset(a, 0, sizeof *a);
	a->role = r[1];
	a->status = r[2];
	a->parent = lg_get_le32(r + 4);
	a->prev = lg_get_le32(r + 8);
	a->version = lg_get_le32(r + 12);
	a->snapshots = lg_get_le32(r + 16);
	a->resets = lg_get_le32(r + 20);
	a->steps = lg_get_le64(r + 24);
	a->last_snap_steps = lg_get_le64(r + 32);
	a->last_snapshot = BRAIN_NONE;
	return 0;
}

static void job_encode(const struct brain_job *j, uint8_t r[JOB_REC])
{
	memset(r, 0, JOB_REC);
	lg_put_le64(r, j->id);
	lg_put_le32(r + 8, j->learner);
	lg_put_le32(r + 12, j->learner_version);
	lg_put_le32(r + 16, j->opponent);
	lg_put_le32(r + 20, j->opponent_params);
	lg_put_le32(r + 24, j->opponent_version);
	lg_put_le32(r + 28, j->episodes);
	lg_put_le32(r + 32, (uint32_t)j->kind);
	lg_put_le32(r + 36, j->candidates);
	lg_put_lef64(r + 40, j->prob);
}

static int job_decode(const uint8_t *r, size_t len, struct brain_job *j)
{
	if (len != JOB_REC)
		return LG_ECORRUPT;
	j->id = lg_get_le64(r);
	j->learner = lg_get_le32(r + 8);
	j->learner_version = lg_get_le32(r + 12);
	j->opponent = lg_get_le32(r + 16);
	j->opponent_params = lg_get_le32(r + 20);
	j->opponent_version = lg_get_le32(r + 24);
	j->episodes = lg_get_le32(r + 28);
	j->kind = (int)lg_get_le32(r + 32);
	j->candidates = lg_get_le32(r + 36);
	j->prob = lg_get_lef64(r + 40);
	if (j->kind < 0 || j->kind >= BRAIN_JOB__COUNT)
		return LG_ECORRUPT;
	return 0;
}

/* ---- flush ------------------------------------------------------------- */

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, c = *(const uint32_t *)y;
	return a < c ? -1 : a > c;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;
	return a < c ? -1 : a > c;
}

static int flush_fn(store_txn *t, void *arg)
{
	brain *b = arg;
	const uint8_t *p = b->rec.data, *end = b->rec.data + b->rec.len;
	uint8_t k[8], v[PLAYER_REC > JOB_REC ? PLAYER_REC : JOB_REC];
	uint8_t rs[32];
	int rc;

	while (p < end) {
		enum store_db db = (enum store_db)p[0];
		uint8_t klen = p[1];
		uint32_t vlen = lg_get_le32(p + 2);
		const uint8_t *key = p + 6;
		if (vlen == UINT32_MAX) {
			rc = store_del(t, db, key, klen);
			p = key + klen;
		} else {
			rc = store_put(t, db, key, klen, key + klen, vlen);
			p = key + klen + vlen;
		}
		if (rc && rc != LG_ENOTFOUND)
			return rc;
	}
	for (uint32_t i = 0; i < b->dirty_agents.n; i++) {
		uint32_t id = b->dirty_agents.v[i];
		store_key_u32(k, id);
		player_encode(&b->ag[id], v);
		if ((rc = store_put(t, STORE_DB_PLAYERS, k, 4, v, PLAYER_REC)))
			return rc;
	}
	for (size_t i = 0; i < b->ndirty_pairs; i++) {
		uint64_t pr = b->dirty_pairs[i];
		uint32_t x = (uint32_t)(pr >> 32), y = (uint32_t)pr;
		if (i && pr == b->dirty_pairs[i - 1])
			continue;
		if ((rc = payoff_store_pair(b->pf, t, x, y)))
			return rc;
	}
	for (uint32_t i = 0; i < b->dirty_ratings.n; i++)
		if ((rc = payoff_store_rating(b->pf, t,
					      b->dirty_ratings.v[i])))
			return rc;
	for (size_t i = 0; i < b->ndead; i++) {
		store_key_u64(k, b->dead_jobs[i]);
		rc = store_del(t, STORE_DB_JOBS, k, 8);
		if (rc && rc != LG_ENOTFOUND)
			return rc;
	}
	for (size_t i = 0; i < b->njobs; i++) {
		const struct open_job *oj = &b->jobs[i];
		if (oj->done || oj->stored)
			continue;
		store_key_u64(k, oj->j.id);
		job_encode(&oj->j, v);
		if ((rc = store_put(t, STORE_DB_JOBS, k, 8, v, JOB_REC)))
			return rc;
	}
	for (int i = 0; i < 4; i++)
		lg_put_le64(rs + 8 * i, b->rng.s[i]);
	if ((rc = store_meta_put_u64(t, "brain.agents", b->n)) ||
	    (rc = store_meta_put_u64(t, "brain.next_job", b->next_job)) ||
	    (rc = store_meta_put_u64(t, "brain.seq", b->seq)) ||
	    (rc = store_put(t, STORE_DB_META, "brain.rng", 9, rs, sizeof rs)))
		return rc;
	/* The payoff options, so inspection shows win rates as the league
	 * computes them. */
	{
		uint8_t po[40];
		lg_put_lef64(po, b->o.payoff.decay);
		lg_put_lef64(po + 8, b->o.payoff.min_games);
		lg_put_lef64(po + 16, (double)b->o.payoff.prior);
		lg_put_lef64(po + 24, b->o.payoff.prior_strength);
		lg_put_lef64(po + 32, b->o.payoff.elo_k);
		if ((rc = store_put(t, STORE_DB_META, "brain.payoff", 12, po,
				    sizeof po)))
			return rc;
	}
	return store_txn_error(t);
}

int brain_flush(brain *b)
{
	size_t w = 0;
	int rc;

	if (b->rdonly)
		return 0;
	/* Pairs sorted so duplicates are written once (and keys in order). */
	if (b->ndirty_pairs > 1)
		qsort(b->dirty_pairs, b->ndirty_pairs, sizeof *b->dirty_pairs,
		      cmp_u64);
	if (b->dirty_ratings.n > 1)
		qsort(b->dirty_ratings.v, b->dirty_ratings.n,
		      sizeof *b->dirty_ratings.v, cmp_u32);
	rc = store_update(b->s, flush_fn, b);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < b->dirty_agents.n; i++)
		b->ag[b->dirty_agents.v[i]].dirty = 0;
	b->dirty_agents.n = 0;
	for (uint32_t i = 0; i < b->dirty_ratings.n; i++)
		b->ag[b->dirty_ratings.v[i]].rdirty = 0;
	b->dirty_ratings.n = 0;
	b->ndirty_pairs = 0;
	b->ndead = 0;
	b->rec.len = 0;
	b->pending = 0;
	/* Open jobs are now stored; closed ones leave the array. */
	for (size_t i = 0; i < b->njobs; i++) {
		if (b->jobs[i].done)
			continue;
		b->jobs[i].stored = 1;
		b->jobs[w++] = b->jobs[i];
	}
	b->njobs = w;
	b->ndone = 0;
	return 0;
}

/* One call done: commit when the batch is full. */
static int call_done(brain *b)
{
	if (++b->pending >= b->o.batch)
		return brain_flush(b);
	return 0;
}

/* ---- agents and snapshots ---------------------------------------------- */

static int add_agent(brain *b, const struct agent *a, uint32_t *id_out)
{
	uint32_t id = b->n;
	int rc;

	if (b->n == b->cap) {
		uint32_t c = b->cap ? b->cap * 2 : 64;
		struct agent *n = realloc(b->ag, (size_t)c * sizeof *n);
		if (!n)
			return LG_ENOMEM;
		b->ag = n;
		b->cap = c;
	}
	if ((rc = payoff_add(b->pf, id)))
		return rc;
	b->ag[id] = *a;
	b->ag[id].dirty = 0;
	b->ag[id].rdirty = 0;
	memset(&b->ag[id].snaps, 0, sizeof b->ag[id].snaps);
	b->n++;
	*id_out = id;
	return 0;
}

/* Offer snapshot id to matchmaking (lists in id order). */
static int list_snapshot(brain *b, uint32_t id)
{
	const struct agent *s = &b->ag[id];
	int rc;

	if ((rc = idl_push(&b->hist_all, id)) ||
	    (rc = idl_push(&b->ag[s->parent].snaps, id)))
		return rc;
	if (b->ag[s->parent].role == BRAIN_ROLE_MAIN_EXPLOITER)
		return idl_push(&b->hist_expl, id);
	return 0;
}

static void retire_snapshot(brain *b, uint32_t id)
{
	struct agent *s = &b->ag[id];

	s->status = BRAIN_RETIRED;
	idl_remove(&b->hist_all, id);
	idl_remove(&b->hist_expl, id);
	idl_remove(&b->ag[s->parent].snaps, id);
}

/* Freeze learner L's current parameters as a new historical agent. */
static int freeze(brain *b, uint32_t L, uint32_t *sid)
{
	struct agent s;
	uint8_t k[4], r[SNAP_REC];
	int rc;

	memset(&s, 0, sizeof s);
	s.role = BRAIN_ROLE_HISTORICAL;
	s.status = BRAIN_ACTIVE;
	s.parent = L;
	s.prev = b->ag[L].last_snapshot;
	s.version = b->ag[L].version;
	s.steps = b->ag[L].steps;
	s.last_snapshot = BRAIN_NONE;
	if ((rc = add_agent(b, &s, sid)) || (rc = list_snapshot(b, *sid)))
		return rc;
	b->ag[L].last_snapshot = *sid;
	b->ag[L].last_snap_steps = b->ag[L].steps;
	b->ag[L].snapshots++;
	if (b->o.snapshot_keep && b->ag[L].snaps.n > b->o.snapshot_keep) {
		uint32_t old = b->ag[L].snaps.v[0];
		retire_snapshot(b, old);
		if ((rc = mark_agent(b, old)))
			return rc;
	}
	store_key_u32(k, *sid);
	lg_put_le32(r, L);
	lg_put_le32(r + 4, s.prev);
	lg_put_le32(r + 8, s.version);
	lg_put_le32(r + 12, 0);
	lg_put_le64(r + 16, s.steps);
	if ((rc = rec_add(b, STORE_DB_SNAPSHOTS, k, 4, r, SNAP_REC)) ||
	    (rc = mark_agent(b, *sid)) || (rc = mark_agent(b, L)))
		return rc;
	return 0;
}

static int create_league(brain *b)
{
	static const int roles[] = { BRAIN_ROLE_MAIN,
				     BRAIN_ROLE_MAIN_EXPLOITER,
				     BRAIN_ROLE_LEAGUE_EXPLOITER,
				     BRAIN_ROLE_SELF_PLAY };
	uint32_t counts[] = { b->o.n_main, b->o.n_main_exploiter,
			      b->o.n_league_exploiter, b->o.n_self_play };
	int rc;

	for (size_t r = 0; r < LG_ARRAY_LEN(roles); r++)
		for (uint32_t i = 0; i < counts[r]; i++) {
			struct agent a;
			uint32_t id, sid;
			memset(&a, 0, sizeof a);
			a.role = (uint8_t)roles[r];
			a.parent = a.prev = BRAIN_NONE;
			a.last_snapshot = BRAIN_NONE;
			if ((rc = add_agent(b, &a, &id)) ||
			    (rc = payoff_track(b->pf, id)) ||
			    (rc = idl_push(&b->learners, id)) ||
			    (rc = mark_agent(b, id)))
				return rc;
			if (roles[r] == BRAIN_ROLE_MAIN &&
			    (rc = idl_push(&b->mains, id)))
				return rc;
			if ((roles[r] == BRAIN_ROLE_MAIN ||
			     roles[r] == BRAIN_ROLE_SELF_PLAY) &&
			    (rc = freeze(b, id, &sid)))
				return rc;
			/* The initial snapshot is not an interval's end. */
			b->ag[id].snapshots = 0;
		}
	return brain_flush(b);
}

/* ---- loading ----------------------------------------------------------- */

struct load_ctx {
	brain *b;
	int rc;
};

static int load_player(const void *key, size_t klen, const void *val,
		       size_t vlen, void *arg)
{
	struct load_ctx *c = arg;
	brain *b = c->b;
	struct agent a;
	uint32_t id;
	int rc;

	if (klen != 4 || lg_get_be32(key) != b->n ||
	    player_decode(val, vlen, &a))
		return LG_ECORRUPT;
	if (a.role == BRAIN_ROLE_HISTORICAL &&
	    (a.parent >= b->n || !is_learner(b, a.parent)))
		return LG_ECORRUPT;
	if ((rc = add_agent(b, &a, &id)))
		return rc;
	if (a.role != BRAIN_ROLE_HISTORICAL) {
		if ((rc = payoff_track(b->pf, id)) ||
		    (rc = idl_push(&b->learners, id)))
			return rc;
		if (a.role == BRAIN_ROLE_MAIN && (rc = idl_push(&b->mains, id)))
			return rc;
		return 0;
	}
	b->ag[a.parent].last_snapshot = id;
	if (a.status == BRAIN_ACTIVE)
		return list_snapshot(b, id);
	return 0;
}

static int load_job(const void *key, size_t klen, const void *val,
		    size_t vlen, void *arg)
{
	brain *b = arg;
	struct brain_job j;
	int rc;

	if (klen != 8 || job_decode(val, vlen, &j) ||
	    j.id != lg_get_be64(key) || !is_learner(b, j.learner) ||
	    j.opponent >= b->n)
		return LG_ECORRUPT;
	if ((rc = reserve((void **)&b->jobs, &b->cap_jobs, b->njobs + 1,
			  sizeof *b->jobs)))
		return rc;
	b->jobs[b->njobs].j = j;
	b->jobs[b->njobs].done = 0;
	b->jobs[b->njobs].stored = 1;
	b->njobs++;
	return 0;
}

static int load_league(brain *b, store_txn *t)
{
	struct load_ctx c = { b, 0 };
	const void *v;
	size_t vl;
	uint64_t n;
	int rc;

	if ((rc = store_meta_get_u64(t, "brain.agents", &n)))
		return rc;
	if ((rc = store_iter(t, STORE_DB_PLAYERS, NULL, 0, load_player, &c)))
		return rc;
	if (b->n != n || !b->learners.n)
		return LG_ECORRUPT;
	if ((rc = payoff_load(b->pf, t)) ||
	    (rc = store_iter(t, STORE_DB_JOBS, NULL, 0, load_job, b)) ||
	    (rc = store_meta_get_u64(t, "brain.next_job", &b->next_job)) ||
	    (rc = store_meta_get_u64(t, "brain.seq", &b->seq)))
		return rc == LG_ENOTFOUND ? LG_ECORRUPT : rc;
	if ((rc = store_get(t, STORE_DB_META, "brain.rng", 9, &v, &vl)))
		return rc == LG_ENOTFOUND ? LG_ECORRUPT : rc;
	if (vl != 32)
		return LG_ECORRUPT;
	for (int i = 0; i < 4; i++)
		b->rng.s[i] = lg_get_le64((const uint8_t *)v + 8 * i);
	return 0;
}

/* The league's own payoff options, when stored and valid. */
static void stored_payoff_opts(store_txn *t, struct payoff_opts *po)
{
	struct payoff_opts p;
	const uint8_t *v;
	const void *vp;
	size_t vl;

	if (store_get(t, STORE_DB_META, "brain.payoff", 12, &vp, &vl) ||
	    vl != 40)
		return;
	v = vp;
	p.decay = lg_get_lef64(v);
	p.min_games = lg_get_lef64(v + 8);
	p.prior = lg_get_lef64(v + 16) == PAYOFF_PRIOR_BETA ?
			  PAYOFF_PRIOR_BETA : PAYOFF_PRIOR_HALF;
	p.prior_strength = lg_get_lef64(v + 24);
	p.elo_k = lg_get_lef64(v + 32);
	if (!payoff_opts_check(&p, NULL, 0))
		*po = p;
}

int brain_open(brain **out, store *s, const struct brain_opts *o, char *err,
	       size_t errlen)
{
	brain *b;
	store_txn *t = NULL;
	uint64_t n;
	int rc;

	*out = NULL;
	b = calloc(1, sizeof *b);
	if (!b)
		return LG_ENOMEM;
	if (o)
		b->o = *o;
	else
		brain_opts_default(&b->o);
	b->s = s;
	b->rdonly = store_is_rdonly(s);
	if ((rc = brain_opts_check(&b->o, err, errlen)))
		goto fail;
	if ((rc = store_txn_begin(s, STORE_TXN_READ, &t)))
		goto fail;
	if (!o)
		stored_payoff_opts(t, &b->o.payoff);
	if ((rc = payoff_new(&b->pf, &b->o.payoff)))
		goto fail;
	rc = store_meta_get_u64(t, "brain.agents", &n);
	if (rc == LG_ENOTFOUND) {
		store_txn_abort(t);
		t = NULL;
		if (b->rdonly) {
			lg_errf(err, errlen, "no league in this directory yet");
			goto fail;
		}
		lg_rng_seed(&b->rng, b->o.seed);
		if ((rc = create_league(b))) {
			lg_errf(err, errlen, "creating the league: %s",
				lg_strerror(rc));
			goto fail;
		}
	} else if (rc) {
		goto fail;
	} else {
		rc = load_league(b, t);
		store_txn_abort(t);
		t = NULL;
		if (rc) {
			lg_errf(err, errlen, "loading the league: %s",
				lg_strerror(rc));
			goto fail;
		}
	}
	*out = b;
	return 0;
fail:
	store_txn_abort(t);
	b->rdonly = 1; /* nothing to flush */
	brain_close(b);
	return rc;
}

int brain_close(brain *b)
{
	int rc;

	if (!b)
		return 0;
	rc = brain_flush(b);
	for (uint32_t i = 0; i < b->n; i++)
		idl_free(&b->ag[i].snaps);
	free(b->ag);
	payoff_free(b->pf);
	idl_free(&b->learners);
	idl_free(&b->mains);
	idl_free(&b->hist_all);
	idl_free(&b->hist_expl);
	idl_free(&b->dirty_agents);
	idl_free(&b->dirty_ratings);
	free(b->dirty_pairs);
	free(b->dead_jobs);
	lg_buf_free(&b->rec);
	free(b->jobs);
	free(b->scratch);
	free(b->cand);
	free(b);
	return rc;
}

/* ---- matchmaking ------------------------------------------------------- */

double brain_pfsp_weight(int weighting, double x, double exponent)
{
	if (!(x >= 0))
		x = isnan(x) ? 0.5 : 0.0;
	if (x > 1)
		x = 1;
	switch (weighting) {
	case BRAIN_PFSP_SQUARED:
		return exponent == 2 ? (1 - x) * (1 - x) : pow(1 - x, exponent);
	case BRAIN_PFSP_VARIANCE:
		return x * (1 - x);
	case BRAIN_PFSP_LINEAR:
		return 1 - x;
	case BRAIN_PFSP_LINEAR_CAPPED:
		return LG_MIN(0.5, 1 - x);
	}
	return 0;
}

struct pick {
	uint32_t id;
	uint32_t n;
	double prob;
};

/* Win rate from the row, clamped so a weight can never be NaN. */
static inline double rate(const double *row, uint32_t q)
{
	double x = row[q];
	return x >= 0 ? (x <= 1 ? x : 1) : (x != x ? 0.5 : 0);
}

/*
 * PFSP over c[0..n): weights f(row[c[i]]), normalised; every weight below
 * 1e-10 in total falls back to uniform. n must be > 0.
 */
static int pick_pfsp(brain *b, const double *row, const uint32_t *c,
		     uint32_t n, int weighting, struct pick *out)
{
	double *w, sum = 0, u, e = b->o.pfsp_exponent;
	uint32_t i;
	int rc;

	if ((rc = reserve((void **)&b->scratch, &b->cap_scratch, n,
			  sizeof *b->scratch)))
		return rc;
	w = b->scratch;
	switch (weighting) {
	case BRAIN_PFSP_SQUARED:
		if (e == 2) {
			for (i = 0; i < n; i++) {
				double y = 1 - rate(row, c[i]);
				sum += w[i] = y * y;
			}
		} else {
			for (i = 0; i < n; i++)
				sum += w[i] = pow(1 - rate(row, c[i]), e);
		}
		break;
	case BRAIN_PFSP_VARIANCE:
		for (i = 0; i < n; i++) {
			double x = rate(row, c[i]);
			sum += w[i] = x * (1 - x);
		}
		break;
	case BRAIN_PFSP_LINEAR:
		for (i = 0; i < n; i++)
			sum += w[i] = 1 - rate(row, c[i]);
		break;
	default:
		for (i = 0; i < n; i++)
			sum += w[i] = LG_MIN(0.5, 1 - rate(row, c[i]));
		break;
	}
	out->n = n;
	if (!(sum >= 1e-10) || !isfinite(sum)) {
		out->id = c[lg_rng_below(&b->rng, n)];
		out->prob = 1.0 / n;
		return 0;
	}
	u = lg_rng_double(&b->rng) * sum;
	for (i = 0; i + 1 < n; i++) {
		if (u < w[i])
			break;
		u -= w[i];
	}
	/* Rounding may leave u past the end: take the last positive one. */
	while (i > 0 && !(w[i] > 0))
		i--;
	out->id = c[i];
	out->prob = w[i] / sum;
	return 0;
}

static void pick_uniform(brain *b, const uint32_t *c, uint32_t n,
			 struct pick *out)
{
	out->id = c[lg_rng_below(&b->rng, n)];
	out->n = n;
	out->prob = 1.0 / n;
}

/* Meta-Nash mixture of the latest BRAIN_NASH_MAX snapshots in c. */
static int pick_nash(brain *b, const uint32_t *c, uint32_t n,
		     struct pick *out)
{
	uint32_t k = LG_MIN(n, BRAIN_NASH_MAX), off = n - k;
	double *A = NULL, *x = NULL, *y = NULL;
	size_t i;
	int rc;

	A = malloc((size_t)k * k * sizeof *A);
	x = malloc(k * sizeof *x);
	y = malloc(k * sizeof *y);
	if (!A || !x || !y) {
		rc = LG_ENOMEM;
		goto out;
	}
	if ((rc = payoff_matrix(b->pf, c + off, k, A, NULL)))
		goto out;
	for (i = 0; i < (size_t)k * k; i++)
		A[i] -= 0.5;
	if ((rc = payoff_nash(A, k, k, x, y, NULL, NULL)))
		goto out;
	i = lg_rng_categorical(&b->rng, x, k);
	out->id = c[off + i];
	out->n = k;
	out->prob = x[i];
out:
	free(A);
	free(x);
	free(y);
	return rc;
}

static void live(const brain *b, uint32_t id, struct brain_job *j)
{
	j->opponent = id;
	j->opponent_params = id;
	j->opponent_version = b->ag[id].version;
}

static void frozen(const brain *b, uint32_t id, struct brain_job *j)
{
	j->opponent = id;
	j->opponent_params = b->ag[id].parent;
	j->opponent_version = b->ag[id].version;
}

static void set_pick(const brain *b, const struct pick *p, int kind,
		     struct brain_job *j)
{
	if (b->ag[p->id].role == BRAIN_ROLE_HISTORICAL)
		frozen(b, p->id, j);
	else
		live(b, p->id, j);
	j->kind = kind;
	j->candidates = p->n;
	j->prob = p->prob;
}

static void fallback(const brain *b, uint32_t L, struct brain_job *j)
{
	live(b, L, j);
	j->kind = BRAIN_JOB_FALLBACK;
	j->candidates = 0;
	j->prob = 1;
}

/* Main: verification. 1 when it chose, 0 when it passes, <0 error. */
static int verify(brain *b, uint32_t L, uint32_t opp, const double *row,
		  struct brain_job *j)
{
	const struct idlist *ex = &b->hist_expl, *own = &b->ag[opp].snaps;
	struct pick p;
	double mn = INFINITY;
	uint32_t k;
	int rc;

	for (uint32_t i = 0; i < ex->n; i++)
		mn = LG_MIN(mn, rate(row, ex->v[i]));
	if (ex->n && mn < b->o.main.verify_exploiter_win_rate) {
		if ((rc = pick_pfsp(b, row, ex->v, ex->n, BRAIN_PFSP_SQUARED,
				    &p)))
			return rc;
		set_pick(b, &p, BRAIN_JOB_VERIFY_EXPLOITER, j);
		return 1;
	}
	/* Drop the monotonic suffix (AlphaStar's remove_monotonic_suffix):
	 * keep up to the last point where the win rate still rose. */
	for (k = own->n; k > 1; k--)
		if (rate(row, own->v[k - 2]) < rate(row, own->v[k - 1]))
			break;
	if (k <= 1)
		k = 0;
	mn = INFINITY;
	for (uint32_t i = 0; i < k; i++)
		mn = LG_MIN(mn, rate(row, own->v[i]));
	if (k && mn < b->o.main.verify_historical_win_rate) {
		if ((rc = pick_pfsp(b, row, own->v, k, BRAIN_PFSP_SQUARED, &p)))
			return rc;
		set_pick(b, &p, BRAIN_JOB_VERIFY_HISTORICAL, j);
		return 1;
	}
	return 0;
}

/* Play live `opp` while beating it more than min_rate, else PFSP over its
 * snapshots (live opp when it has none). */
static int live_or_curriculum(brain *b, uint32_t opp, const double *row,
			      double min_rate, int weighting, int live_kind,
			      struct brain_job *j)
{
	const struct idlist *own = &b->ag[opp].snaps;
	struct pick p;
	int rc;

	if (rate(row, opp) > min_rate || !own->n) {
		live(b, opp, j);
		j->kind = live_kind;
		j->candidates = 1;
		j->prob = 1;
		return 0;
	}
	if ((rc = pick_pfsp(b, row, own->v, own->n, weighting, &p)))
		return rc;
	set_pick(b, &p, BRAIN_JOB_CURRICULUM, j);
	return 0;
}

static int choose(brain *b, uint32_t L, struct brain_job *j)
{
	const double *row = payoff_row(b->pf, L);
	const struct idlist *all = &b->hist_all, *own = &b->ag[L].snaps;
	struct pick p;
	double u;
	uint32_t opp;
	int rc;

	switch (b->ag[L].role) {
	case BRAIN_ROLE_MAIN:
		u = lg_rng_double(&b->rng);
		if (u < b->o.main.pfsp) {
			if (!all->n) {
				fallback(b, L, j);
				return 0;
			}
			if ((rc = pick_pfsp(b, row, all->v, all->n,
					    b->o.main.weighting, &p)))
				return rc;
			set_pick(b, &p, BRAIN_JOB_PFSP, j);
			return 0;
		}
		opp = b->mains.v[lg_rng_below(&b->rng, b->mains.n)];
		if (u < b->o.main.pfsp + b->o.main.verification) {
			rc = verify(b, L, opp, row, j);
			if (rc)
				return rc < 0 ? rc : 0;
		}
		return live_or_curriculum(b, opp, row,
					  b->o.main.sp_min_win_rate,
					  BRAIN_PFSP_VARIANCE, BRAIN_JOB_SP, j);
	case BRAIN_ROLE_MAIN_EXPLOITER:
		opp = b->mains.v[lg_rng_below(&b->rng, b->mains.n)];
		return live_or_curriculum(
			b, opp, row, b->o.main_exploiter.main_min_win_rate,
			b->o.main_exploiter.weighting, BRAIN_JOB_EXPLOIT, j);
	case BRAIN_ROLE_LEAGUE_EXPLOITER:
		if (!all->n) {
			fallback(b, L, j);
			return 0;
		}
		if ((rc = pick_pfsp(b, row, all->v, all->n,
				    b->o.league_exploiter.weighting, &p)))
			return rc;
		set_pick(b, &p, BRAIN_JOB_PFSP, j);
		return 0;
	case BRAIN_ROLE_SELF_PLAY:
		u = lg_rng_double(&b->rng);
		if (u < b->o.self_play.sp) {
			live(b, L, j);
			j->kind = BRAIN_JOB_SP;
			j->candidates = 1;
			j->prob = 1;
			return 0;
		}
		if (!own->n) {
			fallback(b, L, j);
			return 0;
		}
		if (u < b->o.self_play.sp + b->o.self_play.uniform) {
			pick_uniform(b, own->v, own->n, &p);
			set_pick(b, &p, BRAIN_JOB_UNIFORM, j);
			return 0;
		}
		if (u < b->o.self_play.sp + b->o.self_play.uniform +
			    b->o.self_play.pfsp) {
			if ((rc = pick_pfsp(b, row, own->v, own->n,
					    b->o.self_play.weighting, &p)))
				return rc;
			set_pick(b, &p, BRAIN_JOB_PFSP, j);
			return 0;
		}
		if ((rc = pick_nash(b, own->v, own->n, &p)))
			return rc;
		set_pick(b, &p, BRAIN_JOB_NASH, j);
		return 0;
	}
	return LG_EINVAL;
}

int brain_next_job(brain *b, uint32_t learner, struct brain_job *out)
{
	struct brain_job j;
	lg_rng before = b->rng;
	int rc;

	if (b->rdonly || !is_learner(b, learner))
		return LG_EINVAL;
	if (b->njobs - b->ndone >= BRAIN_MAX_OPEN_JOBS)
		return LG_EFULL;
	if ((rc = reserve((void **)&b->jobs, &b->cap_jobs, b->njobs + 1,
			  sizeof *b->jobs)))
		return rc;
	memset(&j, 0, sizeof j);
	j.id = b->next_job;
	j.learner = learner;
	j.learner_version = b->ag[learner].version;
	j.episodes = b->o.job_episodes;
	if ((rc = choose(b, learner, &j))) {
		b->rng = before;
		return rc;
	}
	if (b->o.log_decisions) {
		uint8_t r[LOG_DECISION_REC];
		memset(r, 0, sizeof r);
		r[0] = BRAIN_LOG_DECISION;
		lg_put_le32(r + 4, learner);
		lg_put_le32(r + 8, j.opponent);
		lg_put_le32(r + 12, (uint32_t)j.kind);
		lg_put_le32(r + 16, j.candidates);
		lg_put_le32(r + 20, j.episodes);
		lg_put_le64(r + 24, j.id);
		lg_put_lef64(r + 32, j.prob);
		for (int i = 0; i < 4; i++)
			lg_put_le64(r + 40 + 8 * i, before.s[i]);
		if ((rc = log_add(b, r, sizeof r)))
			return rc;
	}
	b->jobs[b->njobs].j = j;
	b->jobs[b->njobs].done = 0;
	b->jobs[b->njobs].stored = 0;
	b->njobs++;
	b->next_job++;
	b->seq++;
	*out = j;
	return call_done(b);
}

/* Index of open job id, or -1. Jobs are sorted by id. */
static long find_job(const brain *b, uint64_t id)
{
	size_t lo = 0, hi = b->njobs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->jobs[mid].j.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < b->njobs && b->jobs[lo].j.id == id && !b->jobs[lo].done)
		return (long)lo;
	return -1;
}

static int close_job(brain *b, size_t i)
{
	struct open_job *oj = &b->jobs[i];
	int rc;

	oj->done = 1;
	b->ndone++;
	if (oj->stored) {
		if ((rc = reserve((void **)&b->dead_jobs, &b->cap_dead,
				  b->ndead + 1, sizeof *b->dead_jobs)))
			return rc;
		b->dead_jobs[b->ndead++] = oj->j.id;
	}
	return 0;
}

/* The job is not open: was its result counted, or was it never issued? */
static int closed_job_code(brain *b, uint64_t id)
{
	store_txn *t = NULL;
	const void *v;
	size_t vl;
	uint8_t k[8];
	int rc;

	if (id >= b->next_job)
		return LG_ENOTFOUND;
	if ((rc = brain_flush(b)) ||
	    (rc = store_txn_begin(b->s, STORE_TXN_READ, &t)))
		return rc;
	store_key_u64(k, id);
	rc = store_get(t, STORE_DB_RESULTS, k, 8, &v, &vl);
	store_txn_abort(t);
	return rc == 0 ? LG_EEXIST : rc;
}

int brain_job_state(brain *b, uint64_t job_id)
{
	int rc;

	if (find_job(b, job_id) >= 0)
		return BRAIN_JOB_OPEN;
	rc = closed_job_code(b, job_id);
	return rc == LG_EEXIST ? BRAIN_JOB_COUNTED
	       : rc == LG_ENOTFOUND ? BRAIN_JOB_GONE
				    : rc;
}

int brain_open_jobs_list(const brain *b, struct brain_job *out, size_t max,
			 size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < b->njobs && k < max; i++)
		if (!b->jobs[i].done)
			out[k++] = b->jobs[i].j;
	*n = k;
	return 0;
}

int brain_record_result(brain *b, uint64_t job_id, const int8_t *outcomes,
			size_t n)
{
	struct brain_job *j;
	uint8_t k[8], *r;
	uint32_t cnt[3] = { 0, 0, 0 };
	long i;
	int rc;

	if (b->rdonly || !n || n > BRAIN_MAX_EPISODES)
		return LG_EINVAL;
	for (size_t e = 0; e < n; e++)
		if (outcomes[e] < -1 || outcomes[e] > 1)
			return LG_EINVAL;
	i = find_job(b, job_id);
	if (i < 0)
		return closed_job_code(b, job_id);
	j = &b->jobs[i].j;
	for (size_t e = 0; e < n; e++) {
		if ((rc = payoff_record(b->pf, j->learner, j->opponent,
					outcomes[e])))
			return rc;
		cnt[outcomes[e] + 1]++;
	}
	if ((rc = mark_pair(b, j->learner, j->opponent)))
		return rc;
	/* The result record: header, then the outcomes for replay. */
	if ((rc = lg_buf_reserve(&b->rec, 6 + 8 + RESULT_HDR + n)))
		return rc;
	store_key_u64(k, job_id);
	{
		uint8_t h[6];
		h[0] = STORE_DB_RESULTS;
		h[1] = 8;
		lg_put_le32(h + 2, (uint32_t)(RESULT_HDR + n));
		lg_buf_append(&b->rec, h, 6);
		lg_buf_append(&b->rec, k, 8);
		r = b->rec.data + b->rec.len;
		memset(r, 0, RESULT_HDR);
		lg_put_le64(r, b->seq);
		lg_put_le32(r + 8, j->learner);
		lg_put_le32(r + 12, j->opponent);
		lg_put_le32(r + 16, (uint32_t)n);
		lg_put_le32(r + 20, cnt[2]);
		lg_put_le32(r + 24, cnt[1]);
		lg_put_le32(r + 28, cnt[0]);
		memcpy(r + RESULT_HDR, outcomes, n);
		b->rec.len += RESULT_HDR + n;
	}
	if (b->o.log_decisions) {
		uint8_t lr[LOG_RESULT_REC];
		memset(lr, 0, sizeof lr);
		lr[0] = BRAIN_LOG_RESULT;
		lg_put_le32(lr + 4, (uint32_t)n);
		lg_put_le64(lr + 8, job_id);
		lg_put_le32(lr + 16, cnt[2]);
		lg_put_le32(lr + 20, cnt[1]);
		lg_put_le32(lr + 24, cnt[0]);
		if ((rc = log_add(b, lr, sizeof lr)))
			return rc;
	}
	if ((rc = close_job(b, (size_t)i)))
		return rc;
	b->seq++;
	return call_done(b);
}

int brain_cancel_job(brain *b, uint64_t job_id)
{
	long i;
	int rc;

	if (b->rdonly)
		return LG_EINVAL;
	i = find_job(b, job_id);
	if (i < 0)
		return LG_ENOTFOUND;
	if (b->o.log_decisions) {
		uint8_t lr[LOG_CANCEL_REC];
		memset(lr, 0, sizeof lr);
		lr[0] = BRAIN_LOG_CANCEL;
		lg_put_le64(lr + 8, job_id);
		if ((rc = log_add(b, lr, sizeof lr)))
			return rc;
	}
	if ((rc = close_job(b, (size_t)i)))
		return rc;
	b->seq++;
	return call_done(b);
}

/* ---- snapshot and reset rules ----------------------------------------- */

/* Minimum win rate of L over its role's reference set; INFINITY when the
 * set is empty (which never passes the win-rate test). */
static double reference_min(const brain *b, uint32_t L)
{
	const double *row = payoff_row(b->pf, L);
	const struct idlist *ref;
	double mn = INFINITY;

	switch (b->ag[L].role) {
	case BRAIN_ROLE_MAIN_EXPLOITER:
		ref = &b->mains;
		break;
	case BRAIN_ROLE_SELF_PLAY:
		ref = &b->ag[L].snaps;
		break;
	default:
		ref = &b->hist_all;
		break;
	}
	for (uint32_t i = 0; i < ref->n; i++)
		mn = LG_MIN(mn, rate(row, ref->v[i]));
	return mn;
}

static void clear_cb(void *arg, uint32_t a, uint32_t c)
{
	brain *b = arg;
	int rc = mark_pair(b, a, c);

	if (rc && !b->cb_err)
		b->cb_err = rc;
}

int brain_report_steps(brain *b, uint32_t player, uint64_t steps,
		       uint32_t version, struct brain_step_report *out)
{
	struct agent *a;
	uint64_t passed, interval = b->o.snapshot_steps;
	double mn, reset_prob = 0;
	int rc, snap;

	memset(out, 0, sizeof *out);
	if (b->rdonly || !is_learner(b, player))
		return LG_EINVAL;
	a = &b->ag[player];
	if (steps < a->steps)
		return LG_EINVAL;
	a->steps = steps;
	a->version = version;
	if ((rc = mark_agent(b, player)))
		return rc;
	passed = steps - a->last_snap_steps;
	snap = 0;
	if (passed >= interval) {
		mn = reference_min(b, player);
		snap = (mn != INFINITY && mn > b->o.snapshot_win_rate) ||
		       (double)passed >= b->o.snapshot_max_mult *
						 (double)interval;
	}
	if (snap) {
		if ((rc = freeze(b, player, &out->snapshot_id)))
			return rc;
		a = &b->ag[player]; /* freeze may move the array */
		out->snapshot = 1;
		out->snapshot_version = a->version;
		if (a->role == BRAIN_ROLE_MAIN_EXPLOITER)
			reset_prob = b->o.main_exploiter.reset_prob;
		else if (a->role == BRAIN_ROLE_LEAGUE_EXPLOITER)
			reset_prob = b->o.league_exploiter.reset_prob;
		if (reset_prob > 0 && lg_rng_double(&b->rng) < reset_prob) {
			out->reset = 1;
			a->resets++;
			/* The results belong to the parameters just frozen:
			 * they move to the snapshot. */
			b->cb_err = 0;
			if ((rc = payoff_move(b->pf, player, out->snapshot_id,
					      clear_cb, b)) ||
			    (rc = b->cb_err) ||
			    (rc = mark_pair(b, player, out->snapshot_id)))
				return rc;
		}
	}
	if (b->o.log_decisions) {
		uint8_t lr[LOG_STEPS_REC];
		memset(lr, 0, sizeof lr);
		lr[0] = BRAIN_LOG_STEPS;
		lr[1] = (uint8_t)out->snapshot;
		lr[2] = (uint8_t)out->reset;
		lg_put_le32(lr + 4, player);
		lg_put_le32(lr + 8, version);
		lg_put_le32(lr + 12, out->snapshot ? out->snapshot_id :
						     BRAIN_NONE);
		lg_put_le64(lr + 16, steps);
		if ((rc = log_add(b, lr, sizeof lr)))
			return rc;
	}
	b->seq++;
	return call_done(b);
}

/* ---- inspection -------------------------------------------------------- */

uint32_t brain_count(const brain *b)
{
	return b->n;
}

int brain_player_info(const brain *b, uint32_t id, struct brain_player *out)
{
	const struct agent *a;

	if (id >= b->n)
		return LG_ENOTFOUND;
	a = &b->ag[id];
	out->id = id;
	out->role = a->role;
	out->status = a->status;
	out->parent = a->parent;
	out->prev = a->prev;
	out->steps = a->steps;
	out->last_snapshot_steps = a->last_snap_steps;
	out->version = a->version;
	out->snapshots = a->snapshots;
	out->resets = a->resets;
	return 0;
}

payoff *brain_payoff(brain *b)
{
	return b->pf;
}

uint64_t brain_next_job_id(const brain *b)
{
	return b->next_job;
}

int brain_payoff_json(brain *b, const uint32_t *ids, size_t n, lg_buf *out)
{
	double *wr = malloc(n * n * sizeof(*wr) + 1);
	double *g = malloc(n * n * sizeof(*g) + 1);
	int rc = LG_ENOMEM;

	if (!wr || !g)
		goto out;
	if ((rc = payoff_matrix(b->pf, ids, n, wr, g)))
		goto out;
	lg_buf_printf(out, "{\"players\":[");
	for (size_t i = 0; i < n; i++)
		lg_buf_printf(out, "%s%u", i ? "," : "", ids[i]);
	for (int k = 0; k < 2; k++) {
		const double *v = k ? g : wr;
		lg_buf_printf(out, "],\"%s\":[", k ? "games" : "win_rate");
		for (size_t i = 0; i < n; i++) {
			lg_buf_printf(out, "%s[", i ? "," : "");
			for (size_t j = 0; j < n; j++)
				lg_buf_printf(out, "%s%.6g", j ? "," : "",
					      v[i * n + j]);
			lg_buf_printf(out, "]");
		}
	}
	rc = lg_buf_printf(out, "]}");
out:
	free(wr);
	free(g);
	return rc;
}

uint64_t brain_open_jobs(const brain *b)
{
	return b->njobs - b->ndone;
}
