/*
 * league/kind_probe.c: probes of the collectors, the smallest job kind
 * and the worked example of adding one (docs/architecture.md). With
 * league_daemon_opts.probe_jobs = N (tests set it; no config key), the
 * daemon queues N jobs of one episode in which the first baseline of the
 * league plays itself (in every seat of the game): nothing learns, nothing is stored, and the status
 * says how many came back (`probes`). Every collector answers them with
 * no parameters and no learner, so a probe that does not come back
 * points at the collectors or the wire, not at training.
 */
#include "league/daemon_internal.h"

#include <stdlib.h>

struct probes {
	uint32_t left;               /* still to queue */
	uint64_t done, episodes, steps;
};

static int init(league_daemon *d, void **state, char *err, size_t errlen)
{
	struct probes *p;

	if (!d->opts.probe_jobs)
		return 0;
	if (!d->nbaselines) {
		lg_errf(err, errlen, "probe jobs need a baseline (eval.baselines)");
		return LG_ECONFIG;
	}
	if (!(p = calloc(1, sizeof *p)))
		return LG_ENOMEM;
	p->left = d->opts.probe_jobs;
	*state = p;
	return 0;
}

static void fini(league_daemon *d, void *state)
{
	free(state);
}

static void make(league_daemon *d, void *state, size_t want)
{
	struct probes *p = state;

	for (; p && p->left; p->left--) {
		struct league_job j = {
			.id = daemon_job_id(d),
			.kind = &league_kind_probe,
			.episodes = 1,
			.lease_s = d->cfg.matchmaking.job_lease_s,
		};
		daemon_seats_fill(d, &j, 0, &(struct league_seat){
					  .baseline = 1 },
				  &(struct league_seat){ .baseline = 1 });
		if (daemon_queue_job(d, &j))
			break;
	}
}

static int result(league_daemon *d, void *state, const struct league_job *j,
		  const struct league_tally *t)
{
	struct probes *p = state;

	p->done++;
	p->episodes += t->episodes;
	p->steps += t->steps;
	return KIND_COUNTED;
}

static void status(const league_daemon *d, const void *state, lg_buf *b)
{
	const struct probes *p = state;

	if (p)
		lg_buf_printf(b, "\"probes\": {\"done\": %llu, \"episodes\": "
			      "%llu, \"steps\": %llu}, ",
			      (unsigned long long)p->done,
			      (unsigned long long)p->episodes,
			      (unsigned long long)p->steps);
}

const struct league_kind league_kind_probe = {
	.name = "probe",
	.init = init,
	.fini = fini,
	.make = make,
	.result = result,
	.status = status,
};
