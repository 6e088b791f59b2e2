/*
 * league/kind_league.c: the league's own jobs, the ones the brain's
 * matchmaking chooses (players/players.h): a learning player's current
 * version in seat id % seats (so it learns every seat), its teammates
 * and an opponent its role's rules drew for each other seat. Results go
 * into the payoff matrix through the brain; ids are the brain's.
 *
 * Jobs are made round robin over the learners that can play now (a
 * learner connected, both seats' parameters stored); a job whose
 * opponent has no parameters yet is cancelled in the brain. Jobs that
 * were in flight when the last daemon stopped go out again with their
 * ids, so a late result from before counts once.
 */
#include "league/daemon_internal.h"

#include <stdlib.h>

struct league_jobs {
	uint32_t rr;                 /* round robin over learners */
};

/* The typed job of brain job b: every seat as the brain filled it. A
 * seat that plays the learner's current parameters learns (its
 * teammates under team self-play, itself in plain self-play). */
static void job_of(const league_daemon *d, const struct brain_job *b,
		   struct league_job *j)
{
	*j = (struct league_job){
		.id = b->id,
		.kind = &league_kind_league,
		.episodes = b->episodes,
		.lease_s = d->cfg.matchmaking.job_lease_s,
		.subject = b->learner_seat,
		.nseats = b->nseats,
	};
	for (uint32_t s = 0; s < b->nseats; s++)
		j->seat[s] = (struct league_seat){
			.player = b->seat_params[s],
			.version = b->seat_version[s],
			.learning = b->seat_params[s] == b->learner &&
				    b->seat_version[s] == b->learner_version,
		};
}

/* Open jobs past the cap are cancelled this many at a time. */
#define REISSUE_CANCEL_CHUNK 65536

/* Cancel the open jobs after the oldest `keep` (a store from a run with
 * a larger server.max_jobs_in_flight, or from before the cap): their
 * results, should any come, are stale. js holds room for keep + chunk. */
static int cancel_open_beyond(league_daemon *d, struct brain_job *js,
			      size_t keep, size_t *cancelled)
{
	size_t got;
	int rc = 0;

	*cancelled = 0;
	while (!rc && brain_open_jobs(d->br) > keep) {
		brain_open_jobs_list(d->br, js, keep + REISSUE_CANCEL_CHUNK,
				     &got);
		for (size_t i = keep; i < got && !rc; i++)
			rc = brain_cancel_job(d->br, js[i].id);
		*cancelled += got > keep ? got - keep : 0;
	}
	return rc;
}

/* Re-issued jobs were paid for (evaluation credit, baseline games) by
 * the run that made them: they go straight to the lease table, at most
 * server.max_jobs_in_flight of them (the oldest), so a league stopped
 * with more open jobs than the cap resumes within it. */
static int reissue_open_jobs(league_daemon *d)
{
	uint64_t n = brain_open_jobs(d->br);
	size_t keep = (size_t)d->cfg.server.max_jobs_in_flight, got, gone = 0;
	struct brain_job *js;
	struct league_job j;
	int rc = 0;

	if (!n)
		return 0;
	if (n <= keep)
		keep = (size_t)n;
	if (!(js = malloc(sizeof(*js) * (keep + (n > keep ? REISSUE_CANCEL_CHUNK
							   : 0)))))
		return LG_ENOMEM;
	if (n > keep && (rc = cancel_open_beyond(d, js, keep, &gone)))
		goto out;
	brain_open_jobs_list(d->br, js, keep, &got);
	for (size_t i = 0; i < got && !rc; i++) {
		job_of(d, &js[i], &j);
		rc = league_leases_enqueue(d->leases, &j);
	}
	if (!rc && got)
		LG_INFO("daemon: %zu job(s) in flight before the restart "
			"re-issued", got);
	if (!rc && gone)
		LG_WARN("daemon: %zu more job(s) open before the restart "
			"cancelled: server.max_jobs_in_flight is %zu", gone,
			keep);
out:
	free(js);
	return rc;
}

static int init(league_daemon *d, void **state, char *err, size_t errlen)
{
	int rc;

	if (!(*state = calloc(1, sizeof(struct league_jobs))))
		return LG_ENOMEM;
	if ((rc = reissue_open_jobs(d)))
		lg_errf(err, errlen, "%s: cannot re-issue the jobs in flight: "
			"%s", d->dir, lg_strerror(rc));
	return rc;
}

static void fini(league_daemon *d, void *state)
{
	free(state);
}

/* Every seat's parameters are stored. */
static int seats_have_params(league_daemon *d, const struct brain_job *b)
{
	for (uint32_t s = 0; s < b->nseats; s++)
		if (!daemon_params_exist(d, b->seat_params[s],
					 b->seat_version[s]))
			return 0;
	return 1;
}

static void make(league_daemon *d, void *state, size_t want)
{
	struct league_jobs *k = state;
	size_t target = league_leases_queued(d->leases) + want;
	uint32_t tries = 0;

	while (league_leases_queued(d->leases) < target &&
	       tries < d->nlearners) {
		/* league.deterministic: the turn follows from the brain's
		 * job count, which a restart keeps, not from this run's */
		uint32_t p = d->cfg.league.deterministic
				     ? (uint32_t)((brain_next_job_id(d->br) +
						   tries) % d->nlearners)
				     : k->rr++ % d->nlearners;
		struct learner *l = &d->learners[p];
		struct brain_job b;
		struct league_job j;
		int rc;

		tries++;
		if (!l->is_learner || !l->owner || !l->has_params)
			continue;
		if ((rc = brain_next_job(d->br, p, &b))) {
			if (rc != LG_EFULL)
				daemon_fail(d, rc, "brain_next_job");
			return;
		}
		if (!seats_have_params(d, &b)) {
			if ((rc = brain_cancel_job(d->br, b.id)))
				daemon_fail(d, rc, "brain_cancel_job");
			continue;
		}
		job_of(d, &b, &j);
		if ((rc = daemon_queue_job(d, &j))) {
			brain_cancel_job(d->br, b.id);
			LG_WARN("daemon: job %llu: %s",
				(unsigned long long)b.id, lg_strerror(rc));
			return;
		}
		if (b.kind >= 0 && b.kind < BRAIN_JOB__COUNT) {
			l->mix[b.kind]++;
			l->mix_dirty = 1;
		}
		tries = 0;
	}
}

/* Every seat's returns when the tally has them (N seats, measure
 * return; for two seats under measure win the brain counts the learner
 * seat's outcomes from them, as from t->outcomes). */
static int result(league_daemon *d, void *state, const struct league_job *j,
		  const struct league_tally *t)
{
	int rc = !t->n ? brain_cancel_job(d->br, j->id)
		 : t->seat_returns && t->nseats == j->nseats
			 ? brain_record_returns(d->br, j->id, t->seat_returns,
						t->n)
			 : brain_record_result(d->br, j->id, t->outcomes,
					       t->n);

	/* Counted before (a restart re-issued it) or cancelled. */
	if (rc == LG_EEXIST || rc == LG_ENOTFOUND)
		return KIND_IGNORED;
	return rc ? rc : KIND_COUNTED;
}

static void drop(league_daemon *d, void *state, const struct league_job *j)
{
	int rc = brain_cancel_job(d->br, j->id);

	if (rc && rc != LG_ENOTFOUND)
		daemon_fail(d, rc, "brain_cancel_job");
}

/* A result committed before a crash, sent again by a worker that never
 * saw the Ack: it counted. */
static int counted(league_daemon *d, void *state, uint64_t job_id)
{
	return !(job_id & LEAGUE_JOB_DAEMON_BIT) &&
	       brain_job_state(d->br, job_id) == BRAIN_JOB_COUNTED;
}

const struct league_kind league_kind_league = {
	.name = "league",
	.counts = 1,
	.init = init,
	.fini = fini,
	.make = make,
	.result = result,
	.drop = drop,
	.counted = counted,
};
