/*
 * players/inspect.c: the brain seen from outside (players.h): counts and
 * a player's record, the payoff object and its matrix as JSON, and the
 * pages of the lineage and of the jobs in flight (/lineage, /jobs). Read
 * only: nothing here marks or writes.
 */
#include "players/brain_internal.h"

#include <stdlib.h>

uint32_t brain_count(const brain *b)
{
	return b->n;
}

int brain_player_info(const brain *b, uint32_t id, struct brain_player *out)
{
	const struct agent *a;

	if (id >= b->n)
		return LG_ENOTFOUND;
	a = &b->ag[id];
	*out = (struct brain_player){
		.id = id, .role = a->role, .pop = a->pop, .status = a->status,
		.parent = a->parent, .prev = a->prev, .steps = a->steps,
		.last_snapshot_steps = a->last_snap_steps,
		.version = a->version, .snapshots = a->snapshots,
		.resets = a->resets,
	};
	return 0;
}

/* players.h */
uint32_t brain_newest_snapshots(const brain *b, uint32_t cap, uint32_t *ids)
{
	uint32_t n = 0;

	for (uint32_t i = brain_count(b); i-- > 0 && n < cap;) {
		struct brain_player p;
		if (!brain_player_info(b, i, &p) &&
		    p.role == BRAIN_ROLE_HISTORICAL &&
		    p.status == BRAIN_ACTIVE) /* a retired one's are gone */
			ids[n++] = i;
	}
	lg_reverse_u32(ids, n); /* oldest first */
	return n;
}

payoff *brain_payoff(brain *b)
{
	return b->pf;
}

uint64_t brain_next_job_id(const brain *b)
{
	return b->next_job;
}

/* One n x n matrix as JSON rows, numbers as "%.6g" (lg_buf_g6: the
 * matrix of 1,000 players is two million numbers, and snprintf for each
 * was most of /payoff's time); with g, null where g is 0 (never met). */
static int matrix_json(const double *v, const double *g, size_t n,
		       lg_buf *out)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++) {
		rc = lg_buf_append(out, i ? ",[" : "[", i ? 2 : 1);
		for (size_t j = 0; !rc && j < n; j++) {
			double x = v[i * n + j];
			if (j)
				rc = lg_buf_append(out, ",", 1);
			if (rc)
				break;
			if (g && !(g[i * n + j] > 0))
				rc = lg_buf_append(out, "null", 4);
			else
				rc = lg_buf_g6(out, x);
		}
		rc = rc ? rc : lg_buf_append(out, "]", 1);
	}
	return rc;
}

int brain_payoff_json(brain *b, const uint32_t *ids, size_t n, lg_buf *out)
{
	double R = b->o.measure == BRAIN_MEASURE_RETURN ? b->o.return_scale : 0;
	double *wr = malloc(n * n * sizeof(*wr) + 1);
	double *g = malloc(n * n * sizeof(*g) + 1);
	double *mr = malloc(n * n * sizeof(*mr) + 1);
	int rc = LG_ENOMEM;

	if (!wr || !g || !mr)
		goto out;
	if ((rc = payoff_matrix(b->pf, ids, n, wr, g)))
		goto out;
	/* about 6 bytes a win rate, 4 a game count: one growth at most */
	if ((rc = lg_buf_reserve(out, 11 * n * n + 12 * n + 64)))
		goto out;
	rc = lg_buf_printf(out, "{\"players\":[");
	for (size_t i = 0; !rc && i < n; i++)
		rc = lg_buf_printf(out, "%s%u", i ? "," : "", ids[i]);
	rc = rc ? rc : lg_buf_printf(out, "],\"measure\":\"%s\",",
				     R ? "return" : "win");
	if (!rc && R)
		rc = lg_buf_printf(out, "\"return_scale\":%.17g,"
				   "\"mean_return\":[", R);
	if (!rc && R) {
		brain_mean_returns(b, ids, n, g, mr);
		rc = matrix_json(mr, g, n, out);
	}
	rc = rc ? rc : lg_buf_printf(out, "%s\"win_rate\":[", R ? "]," : "");
	rc = rc ? rc : matrix_json(wr, g, n, out);
	rc = rc ? rc : lg_buf_printf(out, "],\"games\":[");
	rc = rc ? rc : matrix_json(g, NULL, n, out);
	rc = rc ? rc : lg_buf_printf(out, "]}");
out:
	free(wr);
	free(g);
	free(mr);
	return rc;
}

void brain_mean_returns(const brain *b, const uint32_t *ids, size_t n,
			const double *games, double *out)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			double ra, rb, g = games[i * n + j];
			payoff_returns(b->pf, ids[i], ids[j], &ra, &rb);
			out[i * n + j] = g > 0 ? ra / g : 0;
		}
}

uint64_t brain_open_jobs(const brain *b)
{
	return b->njobs - b->ndone;
}

uint64_t brain_snapshot_count(const brain *b)
{
	return b->nsnapshots;
}
/* ,"name":ID or null for BRAIN_NONE */
static int json_id(lg_buf *out, const char *name, uint32_t id)
{
	return id == BRAIN_NONE ? lg_buf_printf(out, ",\"%s\":null", name)
				: lg_buf_printf(out, ",\"%s\":%u", name, id);
}

int brain_lineage_json(const brain *b, uint32_t after, int from_start,
		       size_t limit, lg_buf *out, int *more, uint32_t *last)
{
	uint32_t i = from_start ? 0 : after + 1;
	size_t k = 0;
	int rc = 0;

	*more = 0;
	if (!from_start && after == UINT32_MAX)
		return 0;
	for (; !rc && i < b->n && k < limit; i++, k++) {
		const struct agent *a = &b->ag[i];
		rc = lg_buf_printf(out, "%s{\"id\":%u,\"role\":\"%s\","
				   "\"pop\":%u,\"status\":\"%s\"",
				   k ? "," : "", i, brain_role_name(a->role),
				   a->pop,
				   a->status == BRAIN_RETIRED ? "retired"
							      : "active");
		rc = rc ? rc : json_id(out, "parent", a->parent);
		rc = rc ? rc : json_id(out, "prev", a->prev);
		rc = rc ? rc : lg_buf_printf(out, ",\"version\":%u,"
					     "\"steps\":%llu,"
					     "\"snapshots\":%u,"
					     "\"resets\":%u}", a->version,
					     (unsigned long long)a->steps,
					     a->snapshots, a->resets);
		*last = i;
	}
	*more = !rc && i < b->n;
	return rc;
}

/* ,"seats":[{"player":..,"version":..,"learning":..,"role":..}]} of an
 * N-seat job (role: the seat's agent's population), or just } for two
 * seats, whose learner and opponent say it all. */
static int job_seats_json(const brain *b, const struct brain_job *j,
			  lg_buf *out)
{
	int rc = 0;

	if (j->nseats <= 2)
		return lg_buf_printf(out, "}");
	rc = lg_buf_printf(out, ",\"seats\":[");
	for (uint32_t s = 0; !rc && s < j->nseats; s++) {
		uint32_t a = j->seat_agent[s];
		rc = lg_buf_printf(out, "%s{\"player\":%u,\"version\":%u,"
				   "\"learning\":%s,\"role\":%u}",
				   s ? "," : "", a, j->seat_version[s],
				   s == j->learner_seat ? "true" : "false",
				   a < b->n ? b->ag[a].pop : 0);
	}
	return rc ? rc : lg_buf_printf(out, "]}");
}

int brain_open_jobs_json(const brain *b, uint64_t after, int from_start,
			 size_t limit, lg_buf *out, int *more, uint64_t *last)
{
	size_t lo = 0, hi = b->njobs, k = 0;
	int rc = 0;

	*more = 0;
	/* Ids grow with the index: the first job above `after`. */
	while (!from_start && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->jobs[mid].j.id <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; !rc && i < b->njobs; i++) {
		const struct brain_job *j = &b->jobs[i].j;
		if (b->jobs[i].done)
			continue;
		if (k == limit) {
			*more = 1;
			break;
		}
		rc = lg_buf_printf(out, "%s{\"id\":%llu,\"learner\":%u,"
				   "\"learner_version\":%u,"
				   "\"opponent\":%u,\"opponent_version\":%u,"
				   "\"kind\":\"%s\",\"episodes\":%u",
				   k ? "," : "", (unsigned long long)j->id,
				   j->learner, j->learner_version, j->opponent,
				   j->opponent_version, brain_kind_name(j->kind),
				   j->episodes);
		if (!rc)
			rc = job_seats_json(b, j, out);
		*last = j->id;
		k++;
	}
	return rc;
}

uint64_t brain_log_seq(const brain *b)
{
	return b->seq;
}
