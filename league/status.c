/*
 * league/status.c: what the daemon shows over HTTP (server/server.h serves
 * it): the /status fields after the server's own, and /payoff, the same
 * object `league payoff --format json` prints. Each job kind adds its
 * fields (league_kind.status).
 */
#include "league/daemon_internal.h"
#include "eval/evalrec.h"
#include "server/series.h"

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
		      "\"invalid_episodes\": %llu, \"refused_params\": %llu, "
		      "\"clamped_steps\": %llu, "
		      "\"jobs_queued\": %zu, \"jobs_in_flight\": %zu, "
		      "\"jobs_requeued\": %llu, \"stale_results\": %llu, "
		      "\"max_jobs_in_flight\": %llu, "
		      "\"job_requests_refused\": %llu, "
		      "\"commits\": %llu, "
		      "\"players\": %u, \"snapshots\": %llu, "
		      "\"main_rating\": %.1f, \"stopping\": %s, ",
		      daemon_run_seconds(d),
		      (unsigned long long)d->env_steps, d->steps_per_s,
		      (unsigned long long)d->jobs_done, d->jobs_per_s,
		      (unsigned long long)d->episodes,
		      (unsigned long long)d->abnormal,
		      (unsigned long long)d->invalid_episodes,
		      (unsigned long long)d->refused_params,
		      (unsigned long long)d->clamped_steps,
		      league_leases_queued(d->leases),
		      league_leases_active(d->leases),
		      (unsigned long long)d->requeued,
		      (unsigned long long)d->stale_results,
		      (unsigned long long)d->cfg.server.max_jobs_in_flight,
		      (unsigned long long)d->refused_requests,
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

/* One metric family: its HELP, TYPE and unlabelled sample. */
static int metric(lg_buf *b, const char *name, const char *type,
		  const char *help, double v)
{
	return lg_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n",
			     name, help, name, type, name, v);
}

/* The per-learner families: one sample per learning player, labelled
 * by its id and role. */
enum learner_field { LF_STEPS, LF_VERSION, LF_SNAPSHOTS, LF_RESETS, LF_ELO,
		     LF_CONNECTED };

static const struct {
	const char *name, *type, *help;
	enum learner_field what;
} learner_families[] = {
	{ "league_learner_steps_total", "counter",
	  "A learning player's env steps.", LF_STEPS },
	{ "league_learner_version", "gauge",
	  "A learning player's parameter version.", LF_VERSION },
	{ "league_learner_snapshots_total", "counter",
	  "Snapshots a learning player froze.", LF_SNAPSHOTS },
	{ "league_learner_resets_total", "counter",
	  "Times a learning player was reset.", LF_RESETS },
	{ "league_learner_elo", "gauge", "A learning player's Elo rating.",
	  LF_ELO },
	{ "league_learner_connected", "gauge",
	  "1 while a learner process holds the player.", LF_CONNECTED },
};

static double learner_value(league_daemon *d, uint32_t i,
			    const struct brain_player *p,
			    enum learner_field what)
{
	switch (what) {
	case LF_STEPS: return (double)p->steps;
	case LF_VERSION: return p->version;
	case LF_SNAPSHOTS: return p->snapshots;
	case LF_RESETS: return p->resets;
	case LF_ELO: return payoff_elo(brain_payoff(d->br), i);
	case LF_CONNECTED: return d->learners[i].owner != NULL;
	}
	return 0;
}

static int learner_metrics(league_daemon *d, lg_buf *b)
{
	int rc = 0;

	for (size_t f = 0; !rc && f < LG_ARRAY_LEN(learner_families); f++) {
		rc = lg_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n",
				   learner_families[f].name,
				   learner_families[f].help,
				   learner_families[f].name,
				   learner_families[f].type);
		for (uint32_t i = 0; !rc && i < d->nlearners; i++) {
			struct brain_player p;
			if (!d->learners[i].is_learner ||
			    brain_player_info(d->br, i, &p))
				continue;
			rc = lg_buf_printf(b, "%s{learner=\"%u\",role=\"%s\"} "
					   "%.17g\n", learner_families[f].name,
					   i, brain_role_name(p.role),
					   learner_value(d, i, &p,
							 learner_families[f].what));
		}
	}
	return rc;
}

int daemon_metrics_text(void *ctx, lg_buf *b)
{
	league_daemon *d = ctx;
	const struct nashconv_state *e = &d->nashconv;
	int rc = 0;
	const struct {
		const char *name, *type, *help;
		double v;
	} m[] = {
		{ "league_run_seconds", "gauge",
		  "League run time, over restarts.", daemon_run_seconds(d) },
		{ "league_env_steps_total", "counter",
		  "Env steps of every finished job.", (double)d->env_steps },
		{ "league_env_steps_per_second", "gauge",
		  "Env steps per second, recent.", d->steps_per_s },
		{ "league_jobs_done_total", "counter",
		  "Jobs whose results were committed.", (double)d->jobs_done },
		{ "league_jobs_per_second", "gauge", "Jobs per second, recent.",
		  d->jobs_per_s },
		{ "league_episodes_total", "counter",
		  "Episodes of every finished job.", (double)d->episodes },
		{ "league_abnormal_episodes_total", "counter",
		  "Episodes that ended abnormally (a broken env).",
		  (double)d->abnormal },
		{ "league_invalid_episodes_total", "counter",
		  "Episodes not counted: longer than the game's max_steps, "
		  "or a return not finite or beyond its cap.",
		  (double)d->invalid_episodes },
		{ "league_refused_params_total", "counter",
		  "Parameter versions refused (not the model, not finite, "
		  "player_steps went back), this run.",
		  (double)d->refused_params },
		{ "league_clamped_steps_total", "counter",
		  "Parameter versions whose player_steps was beyond what the "
		  "learner can have trained on, counted at that bound, this "
		  "run.", (double)d->clamped_steps },
		{ "league_jobs_queued", "gauge", "Jobs waiting for a collector.",
		  (double)league_leases_queued(d->leases) },
		{ "league_jobs_in_flight", "gauge", "Jobs leased to collectors.",
		  (double)league_leases_active(d->leases) },
		{ "league_jobs_requeued_total", "counter",
		  "Jobs issued again after a lease expired.",
		  (double)d->requeued },
		{ "league_stale_results_total", "counter",
		  "Results refused as stale (repeated, or from before a "
		  "restart).", (double)d->stale_results },
		{ "league_job_requests_refused_total", "counter",
		  "Job requests refused with BUSY: the session held its "
		  "max_jobs, or the daemon server.max_jobs_in_flight.",
		  (double)d->refused_requests },
		{ "league_commits_total", "counter",
		  "LMDB write transactions committed.", (double)d->commits },
		{ "league_players", "gauge",
		  "Players and snapshots in the payoff matrix.",
		  brain_count(d->br) },
		{ "league_snapshots", "gauge", "Frozen snapshots.",
		  (double)brain_snapshot_count(d->br) },
	};

	for (size_t i = 0; !rc && i < LG_ARRAY_LEN(m); i++)
		rc = metric(b, m[i].name, m[i].type, m[i].help, m[i].v);
	rc = rc ? rc : learner_metrics(d, b);
	if (!rc && e->have) {
		const char *kind[] = { "main", "league", "oracle_mix", "avg" };
		double v[] = { e->main, e->league, e->oracle_mix, e->avg };
		rc = lg_buf_printf(b, "# HELP league_nashconv NashConv of the "
				   "newest evaluated point (league eval DIR).\n"
				   "# TYPE league_nashconv gauge\n");
		for (size_t i = 0; !rc && i < LG_ARRAY_LEN(v); i++)
			if (isfinite(v[i]))
				rc = lg_buf_printf(b, "league_nashconv{kind=\"%s\"} "
						   "%.17g\n", kind[i], v[i]);
	}
	return rc;
}

/* The page polls every 2 s: the ladder (an Elo fit and, up to 256
 * players, a dense meta-Nash LP and α-Rank, 4 ms; for two roles the
 * bimatrix meta-Nash, up to 0.2 s at 128 x 128) is rebuilt at most once
 * a second, and only when the brain's log moved (a result, a snapshot:
 * anything the ladder reads). */
#define DAEMON_RATINGS_NASH_MAX 256

int daemon_ratings_json(void *ctx, lg_buf *b)
{
	league_daemon *d = ctx;
	double now = lg_now_s();

	if (!d->ratings.len || (now - d->ratings_at >= 1.0 &&
				brain_log_seq(d->br) != d->ratings_seq)) {
		d->ratings.len = 0;
		int rc = brain_ratings_json(d->br, DAEMON_RATINGS_NASH_MAX,
					    &d->ratings);
		if (rc) {
			d->ratings.len = 0;
			return rc;
		}
		d->ratings_at = now;
		d->ratings_seq = brain_log_seq(d->br);
	}
	return lg_buf_append(b, d->ratings.data, d->ratings.len);
}

int daemon_nashconv_json(void *ctx, lg_buf *b)
{
	league_daemon *d = ctx;

	return league_eval_json_store(d->st, b);
}

int daemon_series_json(void *ctx, lg_buf *b)
{
	league_daemon *d = ctx;

	return league_series_json_store(d->st, LEAGUE_SERIES_JSON_POINTS, b);
}

/* One page of the lineage (league_page), players in id order. */
int daemon_lineage_json(void *ctx, const struct league_page *pg, lg_buf *b)
{
	league_daemon *d = ctx;

	return league_lineage_page(d->br, pg, b);
}

struct jobs_out {
	lg_buf *b;
	int first;
	uint64_t last;
	const struct env_spec *spec; /* the game's seats (NULL: not open) */
};

static int job_json(const struct league_job *j, int leased, double left_s,
		    void *arg)
{
	struct jobs_out *o = arg;
	int rc = lg_buf_printf(o->b, "%s{\"id\":%llu,\"kind\":\"%s\","
			       "\"state\":\"%s\",\"lease_left_s\":%.1f,"
			       "\"episodes\":%u,\"seats\":[",
			       o->first ? "" : ",", (unsigned long long)j->id,
			       j->kind ? j->kind->name : "?",
			       leased ? "leased" : "queued", left_s,
			       j->episodes);

	for (int s = 0; !rc && s < league_job_seats(j); s++) {
		rc = lg_buf_printf(o->b, "%s{\"player\":%u,\"version\":%u,"
				   "\"learning\":%s,\"baseline\":%u",
				   s ? "," : "", j->seat[s].player,
				   j->seat[s].version,
				   j->seat[s].learning ? "true" : "false",
				   j->seat[s].baseline);
		/* the seat's team and role (population), from the game */
		if (!rc && o->spec && s < o->spec->players)
			rc = lg_buf_printf(o->b, ",\"team\":%d,\"role\":%d",
					   o->spec->seat[s].team,
					   o->spec->seat[s].role);
		if (!rc)
			rc = lg_buf_printf(o->b, "}");
	}
	o->first = 0;
	o->last = j->id;
	return rc ? rc : lg_buf_printf(o->b, "]}");
}

/* One page of the lease table (league_page): jobs queued for a collector
 * and jobs a collector holds, with the seconds left of each lease, in id
 * order. Bounded by the page, not by the table. */
int daemon_jobs_json(void *ctx, const struct league_page *pg, lg_buf *b)
{
	league_daemon *d = ctx;
	struct jobs_out o = { b, 1, 0, d->have_game ? &d->spec : NULL };
	size_t more = 0;
	int rc = lg_buf_printf(b, "{\"jobs\":[");

	rc = rc ? rc : league_leases_page(d->leases, lg_now_s(), pg->after,
					  pg->from_start, pg->limit, job_json,
					  &o, &more);
	return rc ? rc : league_page_end(b, pg,
					 league_leases_queued(d->leases) +
						 league_leases_active(d->leases),
					 more, o.last);
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
