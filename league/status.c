/*
 * league/status.c: what the daemon shows over HTTP (league/server.h serves
 * it): the /status fields after the server's own, and /payoff, the same
 * object `league payoff --format json` prints. Each job kind adds its
 * fields (league_kind.status).
 */
#include "league/daemon_internal.h"

#include <math.h>
#include <stdlib.h>

/* The NashConvs of the newest point, if any (null where a point from an
 * older evaluator has none). */
static void nashconv_status(const league_daemon *d, lg_buf *b)
{
	const struct nashconv_state *e = &d->nashconv;
	const char *name[] = { "nashconv_main", "nashconv_league",
			       "nashconv_oracle_mix", "nashconv_avg" };
	double v[] = { e->main, e->league, e->oracle_mix, e->avg };

	for (size_t i = 0; e->have && i < LG_ARRAY_LEN(v); i++)
		lg_buf_printf(b, isfinite(v[i]) ? "\"%s\": %.6f, "
						: "\"%s\": null, ", name[i], v[i]);
}

static int learners_status(league_daemon *d, lg_buf *b)
{
	int first = 1;

	lg_buf_printf(b, "\"learners\": [");
	for (uint32_t i = 0; i < d->nlearners; i++) {
		struct brain_player p;
		if (!d->learners[i].is_learner ||
		    brain_player_info(d->br, i, &p))
			continue;
		lg_buf_printf(b, "%s{\"id\": %u, \"role\": \"%s\", "
			      "\"steps\": %llu, \"version\": %u, "
			      "\"snapshots\": %u, \"resets\": %u, "
			      "\"elo\": %.1f, \"connected\": %s}",
			      first ? "" : ", ", i, brain_role_name(p.role),
			      (unsigned long long)p.steps, p.version,
			      p.snapshots, p.resets,
			      payoff_elo(brain_payoff(d->br), i),
			      d->learners[i].owner ? "true" : "false");
		first = 0;
	}
	return lg_buf_printf(b, "]");
}

int daemon_status_json(void *ctx, lg_buf *b)
{
	league_daemon *d = ctx;

	lg_buf_printf(b, ", \"dir\": ");
	lg_buf_json_str(b, d->dir);
	lg_buf_printf(b, ", \"run_s\": %.1f, "
		      "\"env_steps\": %llu, \"env_steps_per_s\": %.1f, "
		      "\"jobs_done\": %llu, \"jobs_per_s\": %.2f, "
		      "\"episodes\": %llu, \"abnormal_episodes\": %llu, "
		      "\"jobs_queued\": %zu, \"jobs_in_flight\": %zu, "
		      "\"jobs_requeued\": %llu, \"stale_results\": %llu, "
		      "\"commits\": %llu, "
		      "\"players\": %u, \"snapshots\": %llu, "
		      "\"main_rating\": %.1f, \"stopping\": %s, ",
		      daemon_run_seconds(d),
		      (unsigned long long)d->env_steps, d->steps_per_s,
		      (unsigned long long)d->jobs_done, d->jobs_per_s,
		      (unsigned long long)d->episodes,
		      (unsigned long long)d->abnormal,
		      league_leases_queued(d->leases),
		      league_leases_active(d->leases),
		      (unsigned long long)d->requeued,
		      (unsigned long long)d->stale_results,
		      (unsigned long long)d->commits, brain_count(d->br),
		      (unsigned long long)brain_snapshot_count(d->br),
		      payoff_elo(brain_payoff(d->br), 0),
		      d->stopping ? "true" : "false");
	nashconv_status(d, b);
	for (size_t i = 0; i < d->nkinds; i++)
		if (d->kinds[i]->status)
			d->kinds[i]->status(d, d->kstate[i], b);
	return learners_status(d, b);
}

/* The newest DAEMON_MATRIX_MAX agents when there are more. */
int daemon_payoff_json(void *ctx, lg_buf *b)
{
	league_daemon *d = ctx;
	uint32_t n = brain_count(d->br), first = 0;
	uint32_t *ids;
	int rc;

	if (n > DAEMON_MATRIX_MAX)
		first = n - DAEMON_MATRIX_MAX;
	n -= first;
	if (!(ids = malloc(sizeof(*ids) * (n ? n : 1))))
		return LG_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		ids[i] = first + i;
	rc = brain_payoff_json(d->br, ids, n, b);
	free(ids);
	return rc;
}
