/*
 * league/lease: jobs leased to collector sessions.
 *
 * The daemon hands a job to one session at a time with a deadline. A lease
 * ends in one of three ways:
 *   - its holder reports the result in time: league_leases_complete() says
 *     LEASE_OK once; the daemon records the result and the job is gone;
 *   - the deadline passes, or the holder's session is lost: the job is
 *     re-queued ahead of every job never handed out, and the next request
 *     gets it (the same job, same id);
 *   - anyone else reports it (an earlier holder whose lease expired, a
 *     reconnected worker, a duplicate): LEASE_STALE, and nothing counts.
 * A job is held by value (league/job.h: typed, packed for the wire only
 * when it is handed out), so a record costs no allocation of its own.
 *
 * Costs: enqueue, take, complete are O(1) expected (an open-addressing
 * table by job id, linear probing with backward-shift deletion, so no
 * tombstones). Expiry pops a min-heap of deadlines and stops at the first
 * deadline still in the future; heap entries of leases that already ended
 * are skipped by a generation check. Dropping a session walks the active
 * leases: O(jobs in flight), which the daemon bounds (a session holds at
 * most the max_jobs it registered, the daemon at most
 * server.max_jobs_in_flight); a count per session, kept in a second
 * open-addressing table, lets it check the first in O(1).
 *
 * Not thread-safe: the daemon's one event loop owns it.
 */
#ifndef LG_LEAGUE_LEASE_H
#define LG_LEAGUE_LEASE_H

#include <stddef.h>
#include <stdint.h>

#include "league/job.h"

typedef struct league_leases league_leases;

enum league_lease_status {
	LEASE_OK = 0,      /* the holder finished it: count the result */
	LEASE_STALE = 1,   /* not (or no longer) this session's job */
};

/* New empty table. LG_ENOMEM. */
int league_leases_new(league_leases **out);
/* Free the table; NULL is a no-op. */
void league_leases_free(league_leases *l);

/* Queue a job for assignment (new from a kind, or re-issued after a
 * restart), copied in, under job->id. LG_EEXIST if that id is queued or
 * leased, LG_EFULL, LG_ENOMEM. */
int league_leases_enqueue(league_leases *l, const struct league_job *job);
/* Jobs waiting for a collector. */
size_t league_leases_queued(const league_leases *l);
/* Jobs held by sessions. */
size_t league_leases_active(const league_leases *l);
/* 1 when job_id is queued or leased. */
int league_leases_has(const league_leases *l, uint64_t job_id);

/*
 * Lease the next job to session until now + the job's lease_s: a
 * re-queued job first (oldest first), else the oldest fresh one. Returns
 * 0 with *job pointing at it (owned by the table, valid until the next
 * call that changes the table), or LG_ENOTFOUND when nothing is queued.
 */
int league_leases_take(league_leases *l, uint64_t session, double now,
		       const struct league_job **job);
/* A result for job_id from session: LEASE_OK (the lease ends, the job is
 * forgotten; *job, when not NULL, gets a copy) or LEASE_STALE (unknown
 * job, queued job, or another session's lease: nothing changes). */
enum league_lease_status league_leases_complete(league_leases *l,
						uint64_t session,
						uint64_t job_id,
						struct league_job *job);
/* Re-queue every lease whose deadline is at or before now; returns how
 * many. */
size_t league_leases_expire(league_leases *l, double now);
/* Re-queue every lease of a lost session; returns how many. */
size_t league_leases_drop_session(league_leases *l, uint64_t session);
/* Every queued and leased job, in no particular order: fn(job, leased,
 * seconds left of the lease (0 when queued), arg) for each, until fn
 * returns nonzero (which is returned). */
int league_leases_each(const league_leases *l, double now,
		       int (*fn)(const struct league_job *job, int leased,
				 double left_s, void *arg),
		       void *arg);
/*
 * One page of the table for a reader (GET /jobs): the jobs whose id is
 * above `after` (every job with from_start), the limit smallest ids,
 * in id order, through fn as league_leases_each. *more gets how many
 * jobs beyond the page match. O(jobs in the table * log limit) time and
 * O(limit) memory, whatever the table holds. LG_ENOMEM, or fn's nonzero.
 */
int league_leases_page(const league_leases *l, double now, uint64_t after,
		       int from_start, size_t limit,
		       int (*fn)(const struct league_job *job, int leased,
				 double left_s, void *arg),
		       void *arg, size_t *more);
/* Leases session holds now (each counts from take until it completes,
 * expires, is dropped with the session or is cancelled). O(1). */
size_t league_leases_held(const league_leases *l, uint64_t session);
/* Forget a queued or leased job (the daemon cancelled it): 0 (with a
 * copy in *job when not NULL) or LG_ENOTFOUND. */
int league_leases_cancel(league_leases *l, uint64_t job_id,
			 struct league_job *job);

#endif
