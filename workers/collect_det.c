/*
 * workers/collect_det.c: the collector's deterministic mode
 * (league.deterministic): one job at a time, on one env, played by an env
 * manager made for it and seeded by the job's seed (its episodes, moves
 * and samples follow from the job alone). At the job's end the manager
 * is freed (every row is out), each learning seat's learner gets an end
 * mark (an empty segment with job_end), and the result goes to the
 * daemon, which answers BUSY until the learners kept the job's rows; it
 * is sent again until it counts or goes stale (collect_jobs.c, report).
 */
#include "workers/workers_internal.h"

#include <string.h>

/* Deterministic mode: a job came and no engine plays: one for it. */
int worker_det_engine(struct collect *W)
{
	struct cjob *j = NULL;

	pthread_mutex_lock(&W->mu);
	for (int i = 0; i < W->njobs && !j; i++)
		if (!W->jobs[i]->abandoned)
			j = W->jobs[i];
	pthread_mutex_unlock(&W->mu);
	if (!j)
		return 0;
	/* only this thread takes jobs off the list (worker_jobs_report) */
	W->engine_serial = j->serial;
	return worker_engine_start(W, j, j->msg->seed);
}

/* Deterministic mode: a segment of g's job went to its learner (sent) or
 * was lost. */
void worker_det_count(struct collect *W, const struct coll_segment *g,
		      int sent)
{
	struct cjob *j;

	if (!W->det)
		return;
	pthread_mutex_lock(&W->mu);
	if ((j = worker_job_by_serial(W, g->tag)) && g->seat >= 0 &&
	    (size_t)g->seat < j->msg->n_seats) {
		if (sent)
			j->sent[g->seat]++;
		else
			j->lost = 1;
	}
	pthread_mutex_unlock(&W->mu);
}

/* Where the rows of j's seat p go: its learner's endpoint, "" when none
 * (a seat that does not learn, a baseline's). */
static const char *seat_learner(const struct cjob *j, size_t p)
{
	const League__Seat *st = j->msg->seats[p];

	return st->learning && !j->base[p] && st->learner_endpoint
		       ? st->learner_endpoint
		       : "";
}

/* league.deterministic: the engine's job is over. The engine goes (its
 * threads joined, every row sent), then each learner of a learning seat
 * gets the job's end mark with the number of segments it was sent (one
 * mark per learner, counting every seat whose rows went to it). The
 * senders are the sink's, and no sink runs now. A job some of whose rows
 * were not sent gets no mark and no result (it is abandoned): its lease
 * ends and it is played again; a learner that cannot take the mark lost
 * the job's rows anyway, and the daemon plays the job again once it
 * registers anew. */
void worker_det_job_over(struct collect *W, struct cjob *j)
{
	struct lg_rows none = { .obs_len = W->spec.obs_len,
				.num_actions = (uint32_t)W->spec.num_actions };
	size_t n = j->msg->n_seats;

	coll_free(W->c);
	W->c = NULL;
	W->engine_serial = 0;
	if (j->lost && !j->abandoned) {
		LG_WARN("collect: job %llu: some of its rows did not reach "
			"their learner; no result (it is played again when its "
			"lease ends)", (unsigned long long)j->msg->job_id);
		j->abandoned = 1;
	}
	for (size_t p = 0; p < n && !j->abandoned; p++) {
		const League__Seat *st = j->msg->seats[p];
		const char *ep = seat_learner(j, p);
		struct net_segment_hdr h = {
			.player = st->player, .job_id = j->msg->job_id,
			.params_version = st->params_version,
			.segment_seq = UINT64_MAX, .job_end = 1,
		};
		size_t q = 0;
		while (q < p && strcmp(seat_learner(j, q), ep))
			q++;
		if (!ep[0] || q < p)
			continue; /* none, or marked with an earlier seat */
		for (q = p; q < n; q++)
			if (!strcmp(seat_learner(j, q), ep))
				h.job_segments += j->sent[q];
		worker_traj_out_mark(&W->out, ep, &h, &none,
				     COLLECT_SEND_TIMEOUT_S);
	}
}
