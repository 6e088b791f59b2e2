/*
 * players/players.c: the league brain's lifecycle (see players.h and
 * brain_internal.h for the files beside it): open and close, the
 * write-behind flush, agents and snapshots, jobs and their results, the
 * snapshot and reset rules, and which versions are frozen (inspection
 * is inspect.c's, the ratings ladder ratings.c's).
 *
 * Write-behind: calls mark what they changed (agents, pairs, ratings,
 * open jobs, closed jobs) and append their per-call records (results,
 * decision log, snapshot lineage) to the write batch, the caller's
 * (brain_opts.wb: the daemon's turn) or the brain's own. brain_write()
 * writes the marked state, the counters and the rng state into a
 * transaction: the caller's (the daemon's turn, which applies its batch
 * beside it), or brain_flush()'s own store_update(), which applies the
 * batch first; brain_written() marks it clean once committed. A job opened and closed
 * within one batch never touches LMDB's jobs database. records.c has
 * every layout.
 *
 * Meta keys: brain.agents, brain.next_job, brain.seq (be64), brain.rng,
 * brain.payoff (the league's payoff options, for inspection).
 */
#include "players/brain_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- small containers -------------------------------------------------- */

int brain_reserve(void **p, size_t *cap, size_t need, size_t elem)
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

int brain_idl_push(struct idlist *l, uint32_t v)
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

void brain_idl_free(struct idlist *l)
{
	idl_free(l);
}
/* Insert v into the ascending list l (no duplicates). */
static int idl_insert_sorted(struct idlist *l, uint32_t v)
{
	uint32_t i = l->n;
	int rc;

	while (i > 0 && l->v[i - 1] > v)
		i--;
	if (i > 0 && l->v[i - 1] == v)
		return 0;
	if ((rc = brain_idl_push(l, v)))
		return rc;
	memmove(l->v + i + 1, l->v + i, (size_t)(l->n - 1 - i) * sizeof *l->v);
	l->v[i] = v;
	return 0;
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
	return brain_idl_push(&b->dirty_agents, id);
}

static int mark_rating(brain *b, uint32_t id)
{
	if (b->ag[id].rdirty)
		return 0;
	b->ag[id].rdirty = 1;
	return brain_idl_push(&b->dirty_ratings, id);
}

/* The pair's counts and both agents' ratings changed. */
static int mark_pair(brain *b, uint32_t a, uint32_t c)
{
	int rc = brain_reserve((void **)&b->dirty_pairs, &b->cap_dirty_pairs,
			       b->ndirty_pairs + 1, sizeof *b->dirty_pairs);
	if (rc || (rc = mark_rating(b, a)) || (rc = mark_rating(b, c)))
		return rc;
	b->dirty_pairs[b->ndirty_pairs++] =
		(uint64_t)LG_MIN(a, c) << 32 | LG_MAX(a, c);
	return 0;
}

/* Append e to the decision log (when logging) under the current seq. */
static int log_add(brain *b, const struct brain_log_entry *e)
{
	uint8_t k[8], r[BRAIN_REC_LOG_MAX];
	size_t len;

	if (!b->o.log_decisions)
		return 0;
	len = brain_rec_log_encode(e, r);
	store_key_u64(k, b->seq);
	return store_batch_put(b->wb, STORE_DB_LOG, k, 8, r, len);
}

/* ---- flush ------------------------------------------------------------- */

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, c = *(const uint32_t *)y;
	return a < c ? -1 : a > c;
}

int brain_write(brain *b, store_txn *t)
{
	uint8_t k[8], v[BRAIN_REC_PLAYER > BRAIN_REC_JOB_MAX
				? BRAIN_REC_PLAYER
				: BRAIN_REC_JOB_MAX];
	uint8_t rs[BRAIN_REC_RNG], po[BRAIN_REC_PAYOFF_OPTS];
	size_t vl;
	int rc;

	if (b->rdonly)
		return LG_EINVAL;
	/* Pairs sorted so duplicates are written once (and keys in order);
	 * sorting again when store_update runs this again is harmless. */
	if (b->ndirty_pairs > 1)
		qsort(b->dirty_pairs, b->ndirty_pairs, sizeof *b->dirty_pairs,
		      lg_cmp_u64);
	if (b->dirty_ratings.n > 1)
		qsort(b->dirty_ratings.v, b->dirty_ratings.n,
		      sizeof *b->dirty_ratings.v, cmp_u32);
	for (uint32_t i = 0; i < b->dirty_agents.n; i++) {
		uint32_t id = b->dirty_agents.v[i];
		store_key_u32(k, id);
		brain_rec_player_encode(&b->ag[id], v);
		if ((rc = store_put(t, STORE_DB_PLAYERS, k, 4, v,
				    BRAIN_REC_PLAYER)))
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
		vl = brain_rec_job_encode(&oj->j, v);
		if ((rc = store_put(t, STORE_DB_JOBS, k, 8, v, vl)))
			return rc;
	}
	brain_rec_rng_encode(&b->rng, rs);
	/* The payoff options, so inspection shows win rates as the league
	 * computes them. */
	brain_rec_payoff_opts_encode(&b->o.payoff, po);
	if ((rc = store_meta_put_u64(t, "brain.agents", b->n)) ||
	    (rc = store_meta_put_u64(t, "brain.next_job", b->next_job)) ||
	    (rc = store_meta_put_u64(t, "brain.seq", b->seq)) ||
	    (rc = store_put(t, STORE_DB_META, "brain.rng", 9, rs, sizeof rs)) ||
	    (rc = store_put(t, STORE_DB_META, "brain.payoff", 12, po,
			    sizeof po)) ||
	    (rc = brain_measure_write(b, t)))
		return rc;
	return store_txn_error(t);
}

void brain_written(brain *b)
{
	size_t w = 0;

	for (uint32_t i = 0; i < b->dirty_agents.n; i++)
		b->ag[b->dirty_agents.v[i]].dirty = 0;
	b->dirty_agents.n = 0;
	for (uint32_t i = 0; i < b->dirty_ratings.n; i++)
		b->ag[b->dirty_ratings.v[i]].rdirty = 0;
	b->dirty_ratings.n = 0;
	b->ndirty_pairs = 0;
	b->ndead = 0;
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
}

/* The write batch, then the brain's state, into t: one turn of
 * brain_flush. Repeatable (store_update may run it again). */
static int flush_fn(store_txn *t, void *arg)
{
	brain *b = arg;
	int rc;

	if ((rc = store_batch_apply(b->wb, t)))
		return rc;
	return brain_write(b, t);
}

int brain_flush(brain *b)
{
	int rc;

	if (b->rdonly)
		return 0;
	if ((rc = store_update(b->s, flush_fn, b)))
		return rc;
	store_batch_clear(b->wb);
	brain_written(b);
	return 0;
}

/* One call done: commit when the brain's own batch is full. With the
 * caller's batch (brain_opts.wb) the caller owns the transaction and
 * commits when it chooses (brain_write), so calls commit nothing. */
static int call_done(brain *b)
{
	if (b->o.wb)
		return 0;
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
	memset(&b->ag[id].frozen, 0, sizeof b->ag[id].frozen);
	b->n++;
	*id_out = id;
	return 0;
}

/* A snapshot joins its parent's lineage: counted, and its version frozen
 * for good. */
static int note_snapshot(brain *b, uint32_t id)
{
	const struct agent *s = &b->ag[id];

	b->nsnapshots++;
	return idl_insert_sorted(&b->ag[s->parent].frozen, s->version);
}

/* Offer snapshot id to matchmaking (lists in id order). */
static int list_snapshot(brain *b, uint32_t id)
{
	const struct agent *s = &b->ag[id];
	int rc;

	if ((rc = brain_idl_push(&b->hist_all[s->pop], id)) ||
	    (rc = brain_idl_push(&b->ag[s->parent].snaps, id)))
		return rc;
	if (b->ag[s->parent].role == BRAIN_ROLE_MAIN_EXPLOITER)
		return brain_idl_push(&b->hist_expl[s->pop], id);
	return 0;
}

int brain_retire(brain *b, uint32_t id)
{
	struct agent *s = &b->ag[id];

	s->status = BRAIN_RETIRED;
	idl_remove(&b->hist_all[s->pop], id);
	idl_remove(&b->hist_expl[s->pop], id);
	idl_remove(&b->ag[s->parent].snaps, id);
	return mark_agent(b, id);
}

/* Freeze learner L's current parameters as a new historical agent. */
static int freeze(brain *b, uint32_t L, uint32_t *sid)
{
	struct agent s;
	uint8_t k[4], r[BRAIN_REC_SNAPSHOT];
	int rc;

	memset(&s, 0, sizeof s);
	s.role = BRAIN_ROLE_HISTORICAL;
	s.status = BRAIN_ACTIVE;
	s.pop = b->ag[L].pop;
	s.parent = L;
	s.prev = b->ag[L].last_snapshot;
	s.version = b->ag[L].version;
	s.steps = b->ag[L].steps;
	s.last_snapshot = BRAIN_NONE;
	if ((rc = add_agent(b, &s, sid)) || (rc = list_snapshot(b, *sid)) ||
	    (rc = note_snapshot(b, *sid)))
		return rc;
	b->ag[L].last_snapshot = *sid;
	b->ag[L].last_snap_steps = b->ag[L].steps;
	b->ag[L].snapshots++;
	store_key_u32(k, *sid);
	brain_rec_snapshot_encode(&s, r);
	if ((rc = store_batch_put(b->wb, STORE_DB_SNAPSHOTS, k, 4, r,
				  sizeof r)) ||
	    (rc = mark_agent(b, *sid)) || (rc = mark_agent(b, L)))
		return rc;
	return 0;
}

/* Learner id joins the learners, its population's, and its mains. */
static int list_learner(brain *b, uint32_t id)
{
	const struct agent *a = &b->ag[id];
	int rc;

	if ((rc = payoff_track(b->pf, id)) ||
	    (rc = brain_idl_push(&b->learners, id)) ||
	    (rc = brain_idl_push(&b->pop_learners[a->pop], id)))
		return rc;
	if (a->role == BRAIN_ROLE_MAIN)
		return brain_idl_push(&b->mains[a->pop], id);
	return 0;
}

uint32_t brain_counterpart(const brain *b, uint32_t L, uint32_t pop)
{
	const struct idlist *own = &b->pop_learners[b->ag[L].pop];
	uint32_t at = 0;

	if (pop == b->ag[L].pop)
		return L;
	while (at < own->n && own->v[at] != L)
		at++;
	return b->pop_learners[pop].v[at];
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

	for (uint32_t p = 0; p < b->o.pops; p++)
	for (size_t r = 0; r < LG_ARRAY_LEN(roles); r++)
		for (uint32_t i = 0; i < counts[r]; i++) {
			struct agent a;
			uint32_t id, sid;
			memset(&a, 0, sizeof a);
			a.role = (uint8_t)roles[r];
			a.pop = (uint8_t)p;
			a.parent = a.prev = BRAIN_NONE;
			a.last_snapshot = BRAIN_NONE;
			if ((rc = add_agent(b, &a, &id)) ||
			    (rc = list_learner(b, id)) ||
			    (rc = mark_agent(b, id)))
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
	    brain_rec_player_decode(val, vlen, &a))
		return LG_ECORRUPT;
	if (a.role == BRAIN_ROLE_HISTORICAL &&
	    (a.parent >= b->n || !is_learner(b, a.parent)))
		return LG_ECORRUPT;
	if (a.role == BRAIN_ROLE_HISTORICAL)
		a.pop = b->ag[a.parent].pop;
	if ((rc = add_agent(b, &a, &id)))
		return rc;
	if (a.role != BRAIN_ROLE_HISTORICAL)
		return list_learner(b, id);
	b->ag[a.parent].last_snapshot = id;
	if ((rc = note_snapshot(b, id)))
		return rc;
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

	if (klen != 8 || brain_rec_job_decode(val, vlen, &j) ||
	    j.id != lg_get_be64(key) || !is_learner(b, j.learner) ||
	    j.opponent >= b->n)
		return LG_ECORRUPT;
	for (uint32_t s = 0; s < j.nseats; s++)
		if (j.seat_agent[s] >= b->n)
			return LG_ECORRUPT;
	if ((rc = brain_reserve((void **)&b->jobs, &b->cap_jobs, b->njobs + 1,
			  sizeof *b->jobs)))
		return rc;
	b->jobs[b->njobs].j = j;
	b->jobs[b->njobs].done = 0;
	b->jobs[b->njobs].counted = 0;
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
	if (!b->given)
		while (b->o.pops < BRAIN_MAX_SEATS &&
		       b->pop_learners[b->o.pops].n)
			b->o.pops++;
	for (uint32_t p = 0; p < BRAIN_MAX_SEATS; p++)
		if ((p < b->o.pops) != (b->pop_learners[p].n > 0) ||
		    b->pop_learners[p].n % b->pop_learners[0].n ||
		    (p < b->o.pops &&
		     b->pop_learners[p].n != b->pop_learners[0].n))
			return LG_ECONFIG;
	if ((rc = payoff_load(b->pf, t)) ||
	    (rc = store_iter(t, STORE_DB_JOBS, NULL, 0, load_job, b)) ||
	    (rc = store_meta_get_u64(t, "brain.next_job", &b->next_job)) ||
	    (rc = store_meta_get_u64(t, "brain.seq", &b->seq)))
		return rc == LG_ENOTFOUND ? LG_ECORRUPT : rc;
	if ((rc = store_get(t, STORE_DB_META, "brain.rng", 9, &v, &vl)))
		return rc == LG_ENOTFOUND ? LG_ECORRUPT : rc;
	return brain_rec_rng_decode(v, vl, &b->rng);
}

/* The league's own payoff options, when stored and valid. */
static void stored_payoff_opts(store_txn *t, struct payoff_opts *po)
{
	const void *v;
	size_t vl;

	if (!store_get(t, STORE_DB_META, "brain.payoff", 12, &v, &vl))
		brain_rec_payoff_opts_decode(v, vl, po);
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
	b->given = o != NULL;
	b->rdonly = store_is_rdonly(s);
	b->wb = b->o.wb ? b->o.wb : &b->own_wb;
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
		if (b->o.measure == BRAIN_MEASURE_AUTO)
			b->o.measure = BRAIN_MEASURE_WIN;
		if ((rc = create_league(b))) {
			lg_errf(err, errlen, "creating the league: %s",
				lg_strerror(rc));
			goto fail;
		}
	} else if (rc) {
		goto fail;
	} else {
		if ((rc = brain_measure_load(b, t, o != NULL, err, errlen)))
			goto fail;
		rc = load_league(b, t);
		store_txn_abort(t);
		t = NULL;
		if (rc) {
			if (rc == LG_ECONFIG)
				lg_errf(err, errlen, "loading the league: its "
					"players are for another number of "
					"seat roles than the game's %u",
					b->o.pops);
			else
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
	for (uint32_t i = 0; i < b->n; i++) {
		idl_free(&b->ag[i].snaps);
		idl_free(&b->ag[i].frozen);
	}
	free(b->ag);
	payoff_free(b->pf);
	idl_free(&b->learners);
	for (int p = 0; p < BRAIN_MAX_SEATS; p++) {
		idl_free(&b->mains[p]);
		idl_free(&b->hist_all[p]);
		idl_free(&b->hist_expl[p]);
		idl_free(&b->pop_learners[p]);
	}
	idl_free(&b->dirty_agents);
	idl_free(&b->dirty_ratings);
	free(b->dirty_pairs);
	free(b->dead_jobs);
	store_batch_free(&b->own_wb);
	free(b->jobs);
	free(b->scratch);
	free(b->cand);
	brain_psro_free(b);
	brain_ladder_free(b);
	free(b);
	return rc;
}
/* ---- jobs and results -------------------------------------------------- */

int brain_next_job(brain *b, uint32_t learner, struct brain_job *out)
{
	struct brain_job j;
	lg_rng before = b->rng;
	int rc;

	if (b->rdonly || !is_learner(b, learner))
		return LG_EINVAL;
	if (b->njobs - b->ndone >= BRAIN_MAX_OPEN_JOBS)
		return LG_EFULL;
	if ((rc = brain_reserve((void **)&b->jobs, &b->cap_jobs, b->njobs + 1,
				sizeof *b->jobs)))
		return rc;
	memset(&j, 0, sizeof j);
	j.id = b->next_job;
	j.learner = learner;
	j.learner_version = b->ag[learner].version;
	j.episodes = b->o.job_episodes;
	if ((rc = brain_fill_seats(b, learner, &j))) {
		b->rng = before;
		return rc;
	}
	struct brain_log_entry e = {
		.type = BRAIN_LOG_DECISION, .job = j.id, .player = learner,
		.opponent = j.opponent, .candidates = j.candidates,
		.episodes = j.episodes, .kind = j.kind, .prob = j.prob,
		.rng_before = before,
	};
	if (j.nseats != 2) {
		e.nseats = j.nseats;
		e.learner_seat = j.learner_seat;
		memcpy(e.seat_agent, j.seat_agent, sizeof e.seat_agent);
	}
	if ((rc = log_add(b, &e)))
		return rc;
	b->jobs[b->njobs] = (struct open_job){ .j = j };
	b->njobs++;
	b->next_job++;
	b->seq++;
	*out = j;
	return call_done(b);
}

/* Index of job id among the jobs not yet flushed away (open, or closed
 * since the last flush), or -1. Jobs are sorted by id. */
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
	if (lo < b->njobs && b->jobs[lo].j.id == id)
		return (long)lo;
	return -1;
}

/* Index of open job id, or -1. */
long brain_find_open_job(const brain *b, uint64_t id)
{
	long i = find_job(b, id);

	return i >= 0 && !b->jobs[i].done ? i : -1;
}

int brain_close_job(brain *b, size_t i, int counted)
{
	struct open_job *oj = &b->jobs[i];
	int rc;

	oj->done = 1;
	oj->counted = (uint8_t)counted;
	b->ndone++;
	if (oj->stored) {
		if ((rc = brain_reserve((void **)&b->dead_jobs, &b->cap_dead,
					b->ndead + 1, sizeof *b->dead_jobs)))
			return rc;
		b->dead_jobs[b->ndead++] = oj->j.id;
	}
	return 0;
}

/*
 * The job is not open: LG_EEXIST when its result was counted, LG_ENOTFOUND
 * when it was never issued or was cancelled. A job closed since the last
 * flush answers from memory (its records still wait in the batch); an
 * older one from the results database, which holds what was committed.
 */
int brain_closed_job_code(brain *b, uint64_t id)
{
	store_txn *t = NULL;
	const void *v;
	size_t vl;
	uint8_t k[8];
	long i;
	int rc;

	if (id >= b->next_job)
		return LG_ENOTFOUND;
	if ((i = find_job(b, id)) >= 0)
		return b->jobs[i].counted ? LG_EEXIST : LG_ENOTFOUND;
	if ((rc = store_txn_begin(b->s, STORE_TXN_READ, &t)))
		return rc;
	store_key_u64(k, id);
	rc = store_get(t, STORE_DB_RESULTS, k, 8, &v, &vl);
	store_txn_abort(t);
	return rc == 0 ? LG_EEXIST : rc;
}

int brain_job_state(brain *b, uint64_t job_id)
{
	int rc;

	if (brain_find_open_job(b, job_id) >= 0)
		return BRAIN_JOB_OPEN;
	rc = brain_closed_job_code(b, job_id);
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

int brain_cancel_job(brain *b, uint64_t job_id)
{
	struct brain_log_entry e = { .type = BRAIN_LOG_CANCEL, .job = job_id };
	long i;
	int rc;

	if (b->rdonly)
		return LG_EINVAL;
	i = brain_find_open_job(b, job_id);
	if (i < 0)
		return LG_ENOTFOUND;
	if ((rc = log_add(b, &e)) || (rc = brain_close_job(b, (size_t)i, 0)))
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
	uint32_t op = brain_opponent_pop(b, b->ag[L].pop);
	double mn = INFINITY;

	switch (b->ag[L].role) {
	case BRAIN_ROLE_MAIN_EXPLOITER:
		ref = &b->mains[op];
		break;
	case BRAIN_ROLE_SELF_PLAY:
		ref = &b->ag[brain_counterpart(b, L, op)].snaps;
		break;
	default:
		ref = &b->hist_all[op];
		break;
	}
	for (uint32_t i = 0; i < ref->n; i++)
		mn = LG_MIN(mn, brain_rate(row, ref->v[i]));
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
	if (b->o.psro.on) {
		if ((rc = brain_psro_step(b, player, &snap)))
			return rc;
	} else if (passed >= interval) {
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
		if (b->o.psro.on) {
			/* the next iteration: its results against the old
			 * meta-strategy forgotten, and with psro.br_reset a
			 * fresh responder (classic PSRO) */
			if ((rc = brain_psro_next(b, player)))
				return rc;
			if (b->o.psro.br_reset) {
				out->reset = 1;
				a->resets++;
			}
		}
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
		/* After the reset: its results now describe the snapshot. */
		if ((rc = brain_prune(b, player, out)))
			return rc;
	}
	struct brain_log_entry e = {
		.type = BRAIN_LOG_STEPS, .player = player, .version = version,
		.steps = steps, .snapshot = out->snapshot, .reset = out->reset,
		.snapshot_id = out->snapshot ? out->snapshot_id : BRAIN_NONE,
		.retired_logged = 1, .nretired = out->nretired,
	};
	memcpy(e.retired, out->retired, sizeof e.retired);
	if ((rc = log_add(b, &e)))
		return rc;
	b->seq++;
	return call_done(b);
}

/* ---- snapshot versions ------------------------------------------------ */

int brain_version_frozen(const brain *b, uint32_t player, uint32_t version)
{
	const struct idlist *l;
	uint32_t lo = 0, hi;

	if (!is_learner(b, player))
		return 0;
	l = &b->ag[player].frozen;
	hi = l->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l->v[mid] < version)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && l->v[lo] == version;
}

int brain_version_held(const brain *b, uint32_t player, uint32_t version)
{
	const struct idlist *l;

	if (!brain_version_frozen(b, player, version))
		return 0;
	l = &b->ag[player].snaps;
	for (uint32_t i = 0; i < l->n; i++)
		if (b->ag[l->v[i]].version == version)
			return 1;
	return 0;
}

/* ---- for the brain's other files (brain_internal.h) -------------------- */

int brain_mark_pair(brain *b, uint32_t a, uint32_t c)
{
	return mark_pair(b, a, c);
}

int brain_log_add(brain *b, const struct brain_log_entry *e)
{
	return log_add(b, e);
}

int brain_call_done(brain *b)
{
	return call_done(b);
}
