/*
 * league/lease.c: the job lease table (see lease.h).
 *
 * Records live in a slab (array plus free list) and are found by job id
 * through an open-addressing index. A queued record sits on one of two
 * intrusive FIFO lists (re-queued jobs first, then fresh ones); a leased
 * record has a heap entry carrying its generation, so an entry left behind
 * by a lease that already ended is recognised and dropped when it surfaces.
 */
#include "league/lease.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

enum rec_state { REC_FREE, REC_QUEUED, REC_LEASED };
enum { Q_REQUEUE, Q_FRESH, Q__COUNT };

#define NIL UINT32_MAX

struct rec {
	uint64_t id;
	struct league_job job;
	uint64_t session;
	double deadline;
	uint32_t gen;       /* bumped whenever a lease starts or ends */
	uint32_t next, prev; /* queue links, or free-list next */
	int state;
	int q;              /* which queue, while queued */
};

struct heap_ent {
	double deadline;
	uint32_t rec;
	uint32_t gen;
};

struct fifo {
	uint32_t head, tail;
};

/* Leases a session holds; a slot with n == 0 is empty. */
struct held_ent {
	uint64_t session;
	uint32_t n;
};

struct league_leases {
	struct rec *recs;
	uint32_t nrecs, caprecs, free_head;
	uint32_t *index; /* slot -> record, NIL when empty */
	uint32_t index_cap; /* power of two */
	struct fifo q[Q__COUNT];
	size_t queued, active;
	struct heap_ent *heap;
	size_t nheap, capheap;
	struct held_ent *held;  /* open addressing by session */
	uint32_t held_cap, nheld; /* power of two; sessions with leases */
};

static uint32_t hash_id(uint64_t id, uint32_t mask)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return (uint32_t)id & mask;
}

/* Slot holding job id, or the empty slot where it would go. */
static uint32_t index_find(const league_leases *l, uint64_t id)
{
	uint32_t mask = l->index_cap - 1, i = hash_id(id, mask);

	while (l->index[i] != NIL && l->recs[l->index[i]].id != id)
		i = (i + 1) & mask;
	return i;
}

static int index_grow(league_leases *l)
{
	uint32_t ncap = l->index_cap ? l->index_cap * 2 : 64;
	uint32_t *old = l->index, ocap = l->index_cap;
	uint32_t *idx = malloc(sizeof(*idx) * ncap);

	if (!idx)
		return LG_ENOMEM;
	for (uint32_t i = 0; i < ncap; i++)
		idx[i] = NIL;
	l->index = idx;
	l->index_cap = ncap;
	for (uint32_t i = 0; i < ocap; i++)
		if (old[i] != NIL)
			l->index[index_find(l, l->recs[old[i]].id)] = old[i];
	free(old);
	return 0;
}

/* Remove slot i, shifting later members of its probe run back so lookups
 * never need tombstones. */
static void index_remove(league_leases *l, uint32_t i)
{
	uint32_t mask = l->index_cap - 1, j = i;

	l->index[i] = NIL;
	for (;;) {
		j = (j + 1) & mask;
		if (l->index[j] == NIL)
			return;
		uint32_t home = hash_id(l->recs[l->index[j]].id, mask);
		/* Move j into the hole at i unless its home lies cyclically in
		 * (i, j], where it is still reachable. */
		int reachable = i <= j ? (home > i && home <= j)
				       : (home > i || home <= j);
		if (!reachable) {
			l->index[i] = l->index[j];
			l->index[j] = NIL;
			i = j;
		}
	}
}

/* Slot of session in the held table, or the empty slot where it would
 * go. */
static uint32_t held_find(const league_leases *l, uint64_t session)
{
	uint32_t mask = l->held_cap - 1, i = hash_id(session, mask);

	while (l->held[i].n && l->held[i].session != session)
		i = (i + 1) & mask;
	return i;
}

static int held_grow(league_leases *l)
{
	uint32_t ncap = l->held_cap ? l->held_cap * 2 : 16;
	struct held_ent *old = l->held, *h = calloc(ncap, sizeof(*h));
	uint32_t ocap = l->held_cap;

	if (!h)
		return LG_ENOMEM;
	l->held = h;
	l->held_cap = ncap;
	for (uint32_t i = 0; i < ocap; i++)
		if (old[i].n)
			l->held[held_find(l, old[i].session)] = old[i];
	free(old);
	return 0;
}

/* One more lease for session; LG_ENOMEM leaves the table as it was. */
static int held_inc(league_leases *l, uint64_t session)
{
	uint32_t i;
	int rc;

	if ((size_t)(l->nheld + 1) * 2 > l->held_cap && (rc = held_grow(l)))
		return rc;
	i = held_find(l, session);
	if (!l->held[i].n) {
		l->held[i].session = session;
		l->nheld++;
	}
	l->held[i].n++;
	return 0;
}

/* One lease fewer for session; the slot empties at zero, shifting later
 * members of its probe run back (as index_remove). */
static void held_dec(league_leases *l, uint64_t session)
{
	uint32_t mask, i, j;

	if (!l->held_cap)
		return;
	mask = l->held_cap - 1;
	i = j = held_find(l, session);
	if (!l->held[i].n || --l->held[i].n)
		return;
	l->nheld--;
	for (;;) {
		j = (j + 1) & mask;
		if (!l->held[j].n)
			return;
		uint32_t home = hash_id(l->held[j].session, mask);
		int reachable = i <= j ? (home > i && home <= j)
				       : (home > i || home <= j);
		if (!reachable) {
			l->held[i] = l->held[j];
			l->held[j].n = 0;
			i = j;
		}
	}
}

size_t league_leases_held(const league_leases *l, uint64_t session)
{
	return l->held_cap ? l->held[held_find(l, session)].n : 0;
}

static void fifo_push(league_leases *l, int q, uint32_t r)
{
	struct fifo *f = &l->q[q];

	l->recs[r].q = q;
	l->recs[r].next = NIL;
	l->recs[r].prev = f->tail;
	if (f->tail != NIL)
		l->recs[f->tail].next = r;
	else
		f->head = r;
	f->tail = r;
}

static void fifo_unlink(league_leases *l, uint32_t r)
{
	struct rec *x = &l->recs[r];
	struct fifo *f = &l->q[x->q];

	if (x->prev != NIL)
		l->recs[x->prev].next = x->next;
	else
		f->head = x->next;
	if (x->next != NIL)
		l->recs[x->next].prev = x->prev;
	else
		f->tail = x->prev;
	x->next = x->prev = NIL;
}

/* Double the array *p of *cap items of elem bytes (first items when it
 * has none). 0, or LG_ENOMEM with *p and *cap as they were. */
static int array_double(void **p, size_t *cap, size_t first, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : first;
	void *n = realloc(*p, elem * ncap);

	if (!n)
		return LG_ENOMEM;
	*p = n;
	*cap = ncap;
	return 0;
}

static int heap_less(const struct heap_ent *a, const struct heap_ent *b)
{
	return a->deadline < b->deadline;
}

static int heap_push(league_leases *l, struct heap_ent e)
{
	if (l->nheap == l->capheap &&
	    array_double((void **)&l->heap, &l->capheap, 64, sizeof *l->heap))
		return LG_ENOMEM;
	size_t i = l->nheap++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!heap_less(&e, &l->heap[p]))
			break;
		l->heap[i] = l->heap[p];
		i = p;
	}
	l->heap[i] = e;
	return 0;
}

static void heap_pop(league_leases *l)
{
	struct heap_ent last = l->heap[--l->nheap];
	size_t i = 0, n = l->nheap;

	if (!n)
		return;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && heap_less(&l->heap[c + 1], &l->heap[c]))
			c++;
		if (!heap_less(&l->heap[c], &last))
			break;
		l->heap[i] = l->heap[c];
		i = c;
	}
	l->heap[i] = last;
}

int league_leases_new(league_leases **out)
{
	league_leases *l = calloc(1, sizeof(*l));

	*out = NULL;
	if (!l)
		return LG_ENOMEM;
	l->free_head = NIL;
	for (int q = 0; q < Q__COUNT; q++)
		l->q[q].head = l->q[q].tail = NIL;
	if (index_grow(l)) {
		free(l);
		return LG_ENOMEM;
	}
	*out = l;
	return 0;
}

void league_leases_free(league_leases *l)
{
	if (!l)
		return;
	free(l->recs);
	free(l->index);
	free(l->heap);
	free(l->held);
	free(l);
}

static int rec_alloc(league_leases *l, uint32_t *out)
{
	if (l->free_head != NIL) {
		*out = l->free_head;
		l->free_head = l->recs[*out].next;
		return 0;
	}
	if (l->nrecs == l->caprecs) {
		if (l->caprecs >= UINT32_MAX / 4)
			return LG_EFULL;
		size_t ncap = l->caprecs;
		if (array_double((void **)&l->recs, &ncap, 32, sizeof *l->recs))
			return LG_ENOMEM;
		l->caprecs = (uint32_t)ncap;
	}
	*out = l->nrecs++;
	l->recs[*out].gen = 0;
	return 0;
}

/* Drop record r entirely (it must be off every queue). */
static void rec_release(league_leases *l, uint32_t r)
{
	struct rec *x = &l->recs[r];

	index_remove(l, index_find(l, x->id));
	x->state = REC_FREE;
	x->gen++;
	x->next = l->free_head;
	l->free_head = r;
}

int league_leases_enqueue(league_leases *l, const struct league_job *job)
{
	uint32_t r;
	int rc;

	if (league_leases_has(l, job->id))
		return LG_EEXIST;
	/* Keep the index at most half full. */
	if ((size_t)(l->queued + l->active + 1) * 2 > l->index_cap &&
	    (rc = index_grow(l)))
		return rc;
	if ((rc = rec_alloc(l, &r)))
		return rc;
	struct rec *x = &l->recs[r];
	x->id = job->id;
	x->job = *job;
	x->session = 0;
	x->deadline = 0;
	x->state = REC_QUEUED;
	l->index[index_find(l, job->id)] = r;
	fifo_push(l, Q_FRESH, r);
	l->queued++;
	return 0;
}

size_t league_leases_queued(const league_leases *l)
{
	return l->queued;
}

size_t league_leases_active(const league_leases *l)
{
	return l->active;
}

int league_leases_has(const league_leases *l, uint64_t job_id)
{
	return l->index[index_find(l, job_id)] != NIL;
}

int league_leases_take(league_leases *l, uint64_t session, double now,
		       const struct league_job **job)
{
	int q = l->q[Q_REQUEUE].head != NIL ? Q_REQUEUE : Q_FRESH;
	uint32_t r = l->q[q].head;
	int rc;

	if (r == NIL)
		return LG_ENOTFOUND;
	struct rec *x = &l->recs[r];
	struct heap_ent e = { now + x->job.lease_s, r, x->gen + 1 };
	if ((rc = held_inc(l, session)))
		return rc;
	if ((rc = heap_push(l, e))) {
		held_dec(l, session);
		return rc;
	}
	fifo_unlink(l, r);
	x->gen++;
	x->state = REC_LEASED;
	x->session = session;
	x->deadline = e.deadline;
	l->queued--;
	l->active++;
	*job = &x->job;
	return 0;
}

static struct rec *lookup(league_leases *l, uint64_t job_id, uint32_t *r)
{
	uint32_t slot = index_find(l, job_id);

	if (l->index[slot] == NIL)
		return NULL;
	*r = l->index[slot];
	return &l->recs[*r];
}

enum league_lease_status league_leases_complete(league_leases *l,
						uint64_t session,
						uint64_t job_id,
						struct league_job *job)
{
	uint32_t r;
	struct rec *x = lookup(l, job_id, &r);

	if (!x || x->state != REC_LEASED || x->session != session)
		return LEASE_STALE;
	if (job)
		*job = x->job;
	held_dec(l, session);
	l->active--;
	rec_release(l, r);
	return LEASE_OK;
}

/* A leased record goes back on the re-queue. */
static void requeue(league_leases *l, uint32_t r)
{
	struct rec *x = &l->recs[r];

	x->gen++; /* its heap entry is now stale */
	held_dec(l, x->session);
	x->state = REC_QUEUED;
	x->session = 0;
	fifo_push(l, Q_REQUEUE, r);
	l->active--;
	l->queued++;
}

size_t league_leases_expire(league_leases *l, double now)
{
	size_t n = 0;

	while (l->nheap && l->heap[0].deadline <= now) {
		struct heap_ent e = l->heap[0];
		heap_pop(l);
		struct rec *x = &l->recs[e.rec];
		if (x->state == REC_LEASED && x->gen == e.gen) {
			requeue(l, e.rec);
			n++;
		}
	}
	return n;
}

static int cmp_rec_id(const void *a, const void *b, void *arg)
{
	const struct rec *recs = arg;
	uint64_t x = recs[*(const uint32_t *)a].id;
	uint64_t y = recs[*(const uint32_t *)b].id;

	return x < y ? -1 : x > y;
}

/* The session's leases go back oldest job first (ids grow with time), so
 * the order does not depend on where records happen to sit in the slab. */
size_t league_leases_drop_session(league_leases *l, uint64_t session)
{
	uint32_t *mine = malloc(sizeof(*mine) * (l->active ? l->active : 1));
	size_t n = 0, k = 0;

	for (uint32_t r = 0; r < l->nrecs; r++) {
		if (l->recs[r].state != REC_LEASED ||
		    l->recs[r].session != session)
			continue;
		if (!mine) {
			/* Out of memory: requeue in slab order rather than
			 * leave the jobs with a dead session. */
			requeue(l, r);
			n++;
			continue;
		}
		mine[k++] = r;
	}
	if (mine) {
		qsort_r(mine, k, sizeof(*mine), cmp_rec_id, l->recs);
		for (size_t i = 0; i < k; i++)
			requeue(l, mine[i]);
		free(mine);
	}
	return n + k;
}

int league_leases_cancel(league_leases *l, uint64_t job_id,
			 struct league_job *job)
{
	uint32_t r;
	struct rec *x = lookup(l, job_id, &r);

	if (!x)
		return LG_ENOTFOUND;
	if (job)
		*job = x->job;
	if (x->state == REC_QUEUED) {
		fifo_unlink(l, r);
		l->queued--;
	} else {
		held_dec(l, x->session);
		l->active--;
	}
	rec_release(l, r);
	return 0;
}

int league_leases_each(const league_leases *l, double now,
		       int (*fn)(const struct league_job *job, int leased,
				 double left_s, void *arg),
		       void *arg)
{
	for (uint32_t i = 0; i < l->nrecs; i++) {
		const struct rec *r = &l->recs[i];
		int rc;
		if (r->state == REC_FREE)
			continue;
		rc = fn(&r->job, r->state == REC_LEASED,
			r->state == REC_LEASED ? r->deadline - now : 0, arg);
		if (rc)
			return rc;
	}
	return 0;
}

/* Max-heap of record indices by job id: the page keeps the limit
 * smallest ids above `after` seen so far, the largest on top. */
static void page_sift_down(const struct rec *recs, uint32_t *h, size_t n,
			   size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && recs[h[c + 1]].id > recs[h[c]].id)
			c++;
		if (recs[h[c]].id <= recs[h[i]].id)
			return;
		uint32_t t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

static void page_sift_up(const struct rec *recs, uint32_t *h, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (recs[h[p]].id >= recs[h[i]].id)
			return;
		uint32_t t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

int league_leases_page(const league_leases *l, double now, uint64_t after,
		       int from_start, size_t limit,
		       int (*fn)(const struct league_job *job, int leased,
				 double left_s, void *arg),
		       void *arg, size_t *more)
{
	uint32_t *h = malloc(sizeof(*h) * (limit ? limit : 1));
	size_t n = 0, match = 0;
	int rc = 0;

	*more = 0;
	if (!h)
		return LG_ENOMEM;
	for (uint32_t i = 0; i < l->nrecs; i++) {
		const struct rec *x = &l->recs[i];
		if (x->state == REC_FREE || (!from_start && x->id <= after))
			continue;
		match++;
		if (n < limit) {
			h[n] = i;
			page_sift_up(l->recs, h, n++);
		} else if (n && x->id < l->recs[h[0]].id) {
			h[0] = i;
			page_sift_down(l->recs, h, n, 0);
		}
	}
	/* Heap sort in place: pop the largest to the end, smallest first. */
	for (size_t k = n; k > 1; k--) {
		uint32_t t = h[0];
		h[0] = h[k - 1];
		h[k - 1] = t;
		page_sift_down(l->recs, h, k - 1, 0);
	}
	for (size_t k = 0; k < n && !rc; k++) {
		const struct rec *x = &l->recs[h[k]];
		rc = fn(&x->job, x->state == REC_LEASED,
			x->state == REC_LEASED ? x->deadline - now : 0, arg);
	}
	free(h);
	*more = match - n;
	return rc;
}
