/*
 * workers/learn_det.c: the learner's deterministic mode
 * (league.deterministic). The state is kept at every job's end (the
 * collector's end mark), with the rows still waiting in the batch and the
 * job's id, as a version when the job made an update or else as a
 * checkpoint of the newest; nothing is pushed within a job. A learner
 * always goes on from the kept state when it registers, drops rows of a
 * job it kept already, and goes back to the kept state when a job is
 * played again before its end (docs/architecture.md, "Deterministic
 * mode").
 */
#include "workers/workers_internal.h"

/*
 * Deterministic mode, before a segment of ours is taken: *skip when its
 * job's rows are kept already (a job played again after a restart).
 * Rows of a job must come in order, from its first segment: when the job
 * in hand is played again from the start or another begins before its
 * end, what was taken of it is undone by reloading the state the daemon
 * kept (registering again on the same session). 0, or an error.
 */
int worker_learn_det_before(struct learn *W, const struct net_segment *g,
			    int *skip)
{
	int rc;

	*skip = 0;
	if (g->h.player != W->player)
		return 0; /* refused as not ours */
	if ((*skip = g->h.job_id + 1 == W->kept))
		return 0;
	if (W->cur_on && (g->h.job_id != W->cur_job ||
			  (!g->h.job_end && g->h.segment_seq <= W->cur_seq))) {
		LG_INFO("learn: player %u: job %llu %s before job %llu's end: "
			"back to the state kept at job %lld's end",
			W->player, (unsigned long long)g->h.job_id,
			g->h.job_id == W->cur_job ? "played again" : "began",
			(unsigned long long)W->cur_job, (long long)W->kept - 1);
		if ((rc = worker_learn_register(W)))
			return rc;
		if ((*skip = g->h.job_id + 1 == W->kept))
			return 0;
	}
	if (!W->cur_on) {
		W->cur_on = 1;
		W->cur_job = g->h.job_id;
		W->cur_count = 0;
	}
	if (!g->h.job_end)
		W->cur_seq = g->h.segment_seq;
	return 0;
}

/* Deterministic mode, a job's end mark: when every segment it counts was
 * taken, the state (with the rows still waiting) is kept before the
 * job's result can count: a version when the job made an update, else a
 * checkpoint of the newest. Otherwise back to the kept state. */
int worker_learn_det_job_end(struct learn *W, const struct net_segment *g)
{
	W->cur_on = 0;
	if (W->cur_count != g->h.job_segments) {
		/* segments missed (registered mid-job, a send lost): the job
		 * is not kept; it is played again once its lease ends */
		LG_WARN("learn: player %u: job %llu ended with %u of its %u "
			"segments taken: back to the state kept at job %lld's "
			"end", W->player, (unsigned long long)g->h.job_id,
			W->cur_count, g->h.job_segments, (long long)W->kept - 1);
		return worker_learn_register(W);
	}
	W->kept = g->h.job_id + 1;
	return worker_learn_push(W, W->updates == W->pushed_updates);
}
