/*
 * league/job: a job as the daemon holds it. Typed from the moment a kind
 * makes it until its result is counted; packed into the wire Job
 * (net/league.proto) only when a collector takes it, with the learning
 * seats' endpoints as they are then. The lease table (league/lease.h)
 * stores it by value.
 *
 * Who a job is for travels here, not in bits of its id: `kind` names the
 * kind that made it (league/daemon_internal.h has the kinds' interface)
 * and `tag` is that kind's own reference (say, its place in a plan).
 */
#ifndef LG_LEAGUE_JOB_H
#define LG_LEAGUE_JOB_H

#include <stdint.h>

#include "conf/config.h"

/* LEAGUE_JOB_SEATS and LEAGUE_JOB_EPISODES_MAX are the config's bounds
 * (conf/config.h), which the workers share. */

/* Ids: the brain numbers its jobs from 0 up; every other kind takes ids
 * from the daemon, with this bit and the daemon's start count (epoch) in
 * bits 32..62, so an id never repeats across kinds or across restarts and
 * a result from before a restart is recognised as stale. */
#define LEAGUE_JOB_DAEMON_BIT (1ull << 63)

struct league_kind;

struct league_seat {
	uint32_t player;    /* whose parameter line the net plays */
	uint32_t version;   /* ... and which version of it */
	uint8_t learning;   /* its transitions go to player's learner */
	uint8_t greedy;     /* the net plays its most probable action */
	uint8_t baseline;   /* 0: the net plays; k: the daemon's baseline
			       k - 1 (league_daemon.baselines) */
};

struct league_job {
	uint64_t id;
	const struct league_kind *kind;
	uint32_t tag;       /* the kind's own reference */
	uint32_t episodes;
	double lease_s;
	uint8_t subject;    /* the seat whose outcomes the result counts */
	uint8_t evaluation; /* nothing learns (the wire's Job.evaluation) */
	uint8_t nseats;     /* seats the job fills: the game's players (0
			       reads as 2, a job made before N seats) */
	struct league_seat seat[LEAGUE_JOB_SEATS];
};

/* The seats j fills: nseats, or 2 for a job made before N seats (0). */
static inline int league_job_seats(const struct league_job *j)
{
	return j->nseats ? j->nseats : 2;
}

#endif
