/* tests/check_lease.c: the daemon's job lease table. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "league/lease.h"
#include "tests/testutil.h"
#include "util/util.h"

static league_leases *mk(void)
{
	league_leases *l;

	ck_assert_int_eq(league_leases_new(&l), 0);
	return l;
}

/* A job whose fields say which id it is, leased for lease seconds. */
static struct league_job job_of(uint64_t id, double lease)
{
	struct league_job j = { .id = id, .lease_s = lease };

	j.tag = (uint32_t)(id * 7 + 1);
	j.episodes = (uint32_t)id + 3;
	j.seat[1].player = (uint32_t)id ^ 0x55;
	return j;
}

/* Field by field: padding bytes need not survive a struct copy. */
static int job_eq(const struct league_job *a, const struct league_job *b)
{
	return a->id == b->id && a->lease_s == b->lease_s &&
	       a->tag == b->tag && a->episodes == b->episodes &&
	       a->seat[1].player == b->seat[1].player;
}

static void put(league_leases *l, uint64_t id, double lease)
{
	struct league_job j = job_of(id, lease);

	ck_assert_int_eq(league_leases_enqueue(l, &j), 0);
}

/* Take the next job; it must come back whole, with the lease it was
 * queued with. */
static uint64_t take(league_leases *l, uint64_t session, double now,
		     double lease)
{
	const struct league_job *j = NULL;

	ck_assert_int_eq(league_leases_take(l, session, now, &j), 0);
	struct league_job want = job_of(j->id, lease);
	ck_assert(job_eq(j, &want));
	return j->id;
}

START_TEST(fifo_and_complete_once)
{
	league_leases *l = mk();
	const struct league_job *j;
	struct league_job got, dup = job_of(3, 10);

	for (uint64_t i = 1; i <= 5; i++)
		put(l, i, 10);
	ck_assert_uint_eq(league_leases_queued(l), 5);
	for (uint64_t i = 1; i <= 5; i++)
		ck_assert_uint_eq(take(l, 7, 0, 10), i);
	ck_assert_int_eq(league_leases_take(l, 7, 0, &j), LG_ENOTFOUND);
	ck_assert_uint_eq(league_leases_active(l), 5);
	/* Another session's report does not count; the holder's counts once. */
	ck_assert_int_eq(league_leases_complete(l, 8, 3, &got), LEASE_STALE);
	ck_assert_int_eq(league_leases_complete(l, 7, 3, &got), LEASE_OK);
	ck_assert(job_eq(&got, &dup)); /* the job, whole */
	ck_assert_int_eq(league_leases_complete(l, 7, 3, NULL), LEASE_STALE);
	ck_assert_int_eq(league_leases_complete(l, 7, 99, NULL), LEASE_STALE);
	ck_assert_uint_eq(league_leases_active(l), 4);
	ck_assert(!league_leases_has(l, 3));
	/* A finished id may be queued again (a daemon restart re-issues). */
	put(l, 3, 10);
	ck_assert_int_eq(league_leases_enqueue(l, &dup), LG_EEXIST);
	dup.id = 4;
	ck_assert_int_eq(league_leases_enqueue(l, &dup), LG_EEXIST);
	/* Id 0 is an id like any other (the brain's first job). */
	put(l, 0, 10);
	ck_assert(league_leases_has(l, 0));
	league_leases_free(l);
	league_leases_free(NULL);
}
END_TEST

START_TEST(expiry_requeues_first_and_late_result_is_stale)
{
	league_leases *l = mk();

	put(l, 1, 5);
	put(l, 2, 10);
	put(l, 3, 5);
	ck_assert_uint_eq(take(l, 1, 0.0, 5.0), 1);  /* deadline 5 */
	ck_assert_uint_eq(take(l, 2, 1.0, 10.0), 2); /* deadline 11 */
	ck_assert_uint_eq(league_leases_expire(l, 4.9), 0);
	ck_assert_uint_eq(league_leases_expire(l, 5.0), 1);
	ck_assert_uint_eq(league_leases_queued(l), 2);
	/* Job 1 comes back before job 3, which was never handed out. */
	ck_assert_uint_eq(take(l, 3, 6.0, 5.0), 1);
	ck_assert_int_eq(league_leases_complete(l, 1, 1, NULL), LEASE_STALE);
	ck_assert_int_eq(league_leases_complete(l, 3, 1, NULL), LEASE_OK);
	/* Completed before its deadline: the stale heap entry is skipped. */
	ck_assert_int_eq(league_leases_complete(l, 2, 2, NULL), LEASE_OK);
	ck_assert_uint_eq(league_leases_expire(l, 100), 0);
	ck_assert_uint_eq(take(l, 3, 100, 5), 3);
	ck_assert_uint_eq(league_leases_active(l), 1);
	league_leases_free(l);
}
END_TEST

START_TEST(drop_session_requeues_only_its_leases)
{
	league_leases *l = mk();

	for (uint64_t i = 1; i <= 6; i++)
		put(l, i, 60);
	for (uint64_t i = 1; i <= 6; i++)
		take(l, i % 2 ? 10 : 20, 0, 60);
	ck_assert_uint_eq(league_leases_drop_session(l, 10), 3);
	ck_assert_uint_eq(league_leases_active(l), 3);
	ck_assert_uint_eq(league_leases_queued(l), 3);
	ck_assert_int_eq(league_leases_complete(l, 10, 1, NULL), LEASE_STALE);
	ck_assert_int_eq(league_leases_complete(l, 20, 2, NULL), LEASE_OK);
	/* Re-queued in the order they were found: 1, 3, 5. */
	ck_assert_uint_eq(take(l, 30, 1, 60), 1);
	ck_assert_uint_eq(take(l, 30, 1, 60), 3);
	ck_assert_int_eq(league_leases_cancel(l, 5, NULL), 0);
	ck_assert_int_eq(league_leases_cancel(l, 5, NULL), LG_ENOTFOUND);
	ck_assert_int_eq(league_leases_cancel(l, 4, NULL), 0);
	ck_assert_uint_eq(league_leases_queued(l), 0);
	/* The old deadline of a cancelled lease does not resurrect it. */
	ck_assert_uint_eq(league_leases_expire(l, 1000), 3);
	ck_assert_uint_eq(league_leases_queued(l), 3); /* 6, 1, 3 */
	league_leases_free(l);
}
END_TEST

/*
 * Random operations against a plain-array model: every count, every take
 * order and every complete status must agree. Many inserts and deletes
 * exercise the index's backward-shift deletion and growth.
 */
enum { M_CAP = 4096 };
struct model {
	uint64_t id[M_CAP];
	int state[M_CAP]; /* 0 absent, 1 queued, 2 leased */
	uint64_t sess[M_CAP];
	double deadline[M_CAP];
	uint64_t order[M_CAP]; /* queue position: requeued < fresh */
	int requeued[M_CAP];
	int n;
	uint64_t seq;
};

START_TEST(random_ops_match_model)
{
	static struct model m;
	league_leases *l = mk();
	lg_rng r;
	uint64_t next_id = 1;
	double now = 0;

	memset(&m, 0, sizeof(m));
	lg_rng_seed(&r, 1234);
	for (int step = 0; step < 40000; step++) {
		int op = (int)lg_rng_below(&r, 6);
		now += lg_rng_double(&r);
		if (op == 0 && m.n < M_CAP) {
			uint64_t id = next_id++;
			put(l, id, 3);
			int i = m.n++;
			m.id[i] = id;
			m.state[i] = 1;
			m.requeued[i] = 0;
			m.order[i] = m.seq++;
		} else if (op == 1) {
			/* take: the model's next is the requeued one with the
			 * lowest order, else the fresh one with the lowest. */
			int best = -1;
			for (int i = 0; i < m.n; i++) {
				if (m.state[i] != 1)
					continue;
				if (best < 0 ||
				    m.requeued[i] > m.requeued[best] ||
				    (m.requeued[i] == m.requeued[best] &&
				     m.order[i] < m.order[best]))
					best = i;
			}
			uint64_t s = 1 + lg_rng_below(&r, 4);
			if (best < 0) {
				const struct league_job *j;
				ck_assert_int_eq(league_leases_take(l, s, now,
								    &j),
						 LG_ENOTFOUND);
				continue;
			}
			ck_assert_uint_eq(take(l, s, now, 3), m.id[best]);
			m.state[best] = 2;
			m.sess[best] = s;
			m.deadline[best] = now + 3;
		} else if (op == 2 && m.n) {
			int i = (int)lg_rng_below(&r, (uint64_t)m.n);
			uint64_t s = 1 + lg_rng_below(&r, 4);
			int ok = m.state[i] == 2 && m.sess[i] == s;
			ck_assert_int_eq(league_leases_complete(l, s, m.id[i],
							 NULL),
					 ok ? LEASE_OK : LEASE_STALE);
			if (ok)
				m.state[i] = 0;
		} else if (op == 3) {
			size_t want = 0;
			/* Requeue in deadline order. */
			for (;;) {
				int best = -1;
				for (int i = 0; i < m.n; i++)
					if (m.state[i] == 2 &&
					    m.deadline[i] <= now &&
					    (best < 0 ||
					     m.deadline[i] < m.deadline[best]))
						best = i;
				if (best < 0)
					break;
				m.state[best] = 1;
				m.requeued[best] = 1;
				m.order[best] = m.seq++;
				want++;
			}
			ck_assert_uint_eq(league_leases_expire(l, now), want);
		} else if (op == 4) {
			uint64_t s = 1 + lg_rng_below(&r, 4);
			size_t want = 0;
			for (int i = 0; i < m.n; i++)
				if (m.state[i] == 2 && m.sess[i] == s) {
					m.state[i] = 1;
					m.requeued[i] = 1;
					m.order[i] = m.seq++;
					want++;
				}
			ck_assert_uint_eq(league_leases_drop_session(l, s),
					  want);
		} else if (op == 5 && m.n && lg_rng_below(&r, 4) == 0) {
			int i = (int)lg_rng_below(&r, (uint64_t)m.n);
			ck_assert_int_eq(league_leases_cancel(l, m.id[i], NULL),
					 m.state[i] ? 0 : LG_ENOTFOUND);
			m.state[i] = 0;
		}
		size_t q = 0, a = 0;
		for (int i = 0; i < m.n; i++) {
			q += m.state[i] == 1;
			a += m.state[i] == 2;
		}
		ck_assert_uint_eq(league_leases_queued(l), q);
		ck_assert_uint_eq(league_leases_active(l), a);
	}
	for (int i = 0; i < m.n; i++)
		ck_assert_int_eq(league_leases_has(l, m.id[i]), m.state[i] != 0);
	league_leases_free(l);
}
END_TEST

/* The count per session follows every way a lease ends: complete,
 * expiry, a dropped session, a cancel; many sessions (past the count
 * table's growth and its backward-shift deletion) keep their own. */
START_TEST(held_counts_follow_every_end)
{
	league_leases *l = mk();
	enum { SESS = 300, PER = 3 };
	uint64_t ids[SESS][PER];

	for (uint64_t i = 1; i <= SESS * PER; i++)
		put(l, i, 10);
	for (uint64_t s = 0; s < SESS; s++)
		for (int k = 0; k < PER; k++)
			ids[s][k] = take(l, s + 1, 0, 10);
	for (uint64_t s = 0; s < SESS; s++)
		ck_assert_uint_eq(league_leases_held(l, s + 1), PER);
	ck_assert_uint_eq(league_leases_held(l, SESS + 1), 0);
	/* every other session completes one, cancels one */
	for (uint64_t s = 0; s < SESS; s += 2) {
		ck_assert_int_eq(league_leases_complete(l, s + 1, ids[s][0],
							NULL), LEASE_OK);
		ck_assert_int_eq(league_leases_cancel(l, ids[s][1], NULL), 0);
	}
	for (uint64_t s = 0; s < SESS; s++)
		ck_assert_uint_eq(league_leases_held(l, s + 1),
				  s % 2 ? PER : 1);
	/* sessions 2, 4, ... are lost */
	for (uint64_t s = 1; s < SESS; s += 2)
		ck_assert_uint_eq(league_leases_drop_session(l, s + 1), PER);
	for (uint64_t s = 0; s < SESS; s++)
		ck_assert_uint_eq(league_leases_held(l, s + 1),
				  s % 2 ? 0 : 1);
	/* the rest expire */
	league_leases_expire(l, 11);
	for (uint64_t s = 0; s < SESS; s++)
		ck_assert_uint_eq(league_leases_held(l, s + 1), 0);
	ck_assert_uint_eq(league_leases_active(l), 0);
	league_leases_free(l);
}
END_TEST

struct page_seen {
	uint64_t ids[64];
	size_t n;
};

static int page_cb(const struct league_job *j, int leased, double left_s,
		   void *arg)
{
	struct page_seen *p = arg;

	(void)leased;
	(void)left_s;
	ck_assert_uint_lt(p->n, 64);
	p->ids[p->n++] = j->id;
	return 0;
}

/* Pages walk the table in id order whatever the slab order (ids freed
 * and reused out of order), limit at a time, "more" counting the rest. */
START_TEST(pages_walk_in_id_order)
{
	league_leases *l = mk();
	struct page_seen p;
	size_t more, seen = 0;
	uint64_t after = 0, prev = 0;

	/* 200 jobs, ids shuffled into the slab; half leased. */
	for (uint64_t i = 0; i < 200; i++)
		put(l, (i * 73) % 200 + 1000, 10);
	for (int i = 0; i < 100; i++)
		take(l, 1 + i % 3, 0, 10);
	/* 50 gone, so records are reused by later ids */
	for (uint64_t id = 1000; id < 1100; id += 2)
		ck_assert_int_eq(league_leases_cancel(l, id, NULL), 0);
	for (uint64_t i = 0; i < 20; i++)
		put(l, 5000 - i, 10);
	for (int first = 1;; first = 0) {
		memset(&p, 0, sizeof p);
		ck_assert_int_eq(league_leases_page(l, 0, after, first, 16,
						    page_cb, &p, &more), 0);
		for (size_t k = 0; k < p.n; k++) {
			ck_assert_uint_gt(p.ids[k], prev);
			prev = p.ids[k];
		}
		seen += p.n;
		ck_assert_uint_eq(seen + more, 170);
		if (!more)
			break;
		ck_assert_uint_eq(p.n, 16);
		after = p.ids[p.n - 1];
	}
	ck_assert_uint_eq(seen, 170);
	ck_assert_uint_eq(prev, 5000);
	league_leases_free(l);
}
END_TEST

Suite *suite_lease(void)
{
	Suite *s = suite_create("lease");
	const struct tu_test lease_tests[] = {
		{ fifo_and_complete_once, 1 },
		{ expiry_requeues_first_and_late_result_is_stale, 1 },
		{ drop_session_requeues_only_its_leases, 1 },
		{ random_ops_match_model, 1 },
		{ held_counts_follow_every_end, 1 },
		{ pages_walk_in_id_order, 1 },
	};

	/* Pure computation, but under ASan on a busy machine the default 4 s
	 * is a wall-clock budget, not a deadline. */
	TU_TCASE(s, "lease", 60, lease_tests);
	return s;
}
