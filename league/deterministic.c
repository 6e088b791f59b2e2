/*
 * league/deterministic.c: league.deterministic's gates. A job goes out
 * only when none is in flight and every learner is there; a result counts
 * only once its learners have kept its rows; a learner that registers
 * again has the jobs it learns in played again. So who learns in which
 * job does not depend on timing (see daemon_internal.h).
 */
#include "league/daemon_internal.h"

/* league.deterministic: a job goes out only when none is in flight and
 * every learning player's learner is registered with its parameters
 * (who learns in the next job must not depend on who connected first). */
int daemon_det_may_issue(league_daemon *d)
{
	if (league_leases_active(d->leases))
		return 0;
	for (uint32_t p = 0; p < d->nlearners; p++) {
		const struct learner *l = &d->learners[p];
		if (l->is_learner && (!l->owner || !l->has_params))
			return 0;
	}
	return 1;
}

struct det_find {
	uint64_t id;
	struct league_job job;
	int found;
};

static int det_find_cb(const struct league_job *j, int leased, double left_s,
		       void *arg)
{
	struct det_find *f = arg;

	(void)left_s;
	if (!leased || j->id != f->id)
		return 0;
	f->job = *j;
	f->found = 1;
	return 1;
}

/* league.deterministic: the player of a learning seat of leased job id
 * whose learner has not yet kept the job's rows (BRAIN_NONE: none, or
 * no such lease, which the lease check answers). A result waits for
 * them: once it counts, the next job goes out, and rows lost with a
 * learner could never be played again. */
uint32_t daemon_det_rows_missing(league_daemon *d, uint64_t id)
{
	struct det_find f = { .id = id };

	league_leases_each(d->leases, lg_now_s(), det_find_cb, &f);
	for (int i = 0; f.found && i < league_job_seats(&f.job); i++) {
		const struct league_seat *s = &f.job.seat[i];
		if (s->learning && !s->baseline &&
		    daemon_through_job(d, s->player) != id + 1)
			return s->player;
	}
	return BRAIN_NONE;
}

struct det_learns {
	uint32_t player;
	uint64_t ids[8];
	size_t n;
};

static int det_learns_cb(const struct league_job *j, int leased,
			 double left_s, void *arg)
{
	struct det_learns *f = arg;

	(void)left_s;
	for (int i = 0; leased && i < league_job_seats(j); i++)
		if (j->seat[i].learning && j->seat[i].player == f->player) {
			f->ids[f->n++] = j->id;
			break;
		}
	return f->n == LG_ARRAY_LEN(f->ids);
}

void daemon_det_requeue(league_daemon *d, uint32_t player)
{
	struct det_learns f = { .player = player };
	struct league_job j;

	if (!d->cfg.league.deterministic)
		return;
	league_leases_each(d->leases, lg_now_s(), det_learns_cb, &f);
	for (size_t i = 0; i < f.n; i++)
		if (!league_leases_cancel(d->leases, f.ids[i], &j) &&
		    !league_leases_enqueue(d->leases, &j))
			LG_INFO("daemon: job %llu goes out again: the learner "
				"of player %u registered while it was played "
				"(its rows so far are lost with the learner's "
				"batch)", (unsigned long long)j.id, player);
}
