/*
 * league/kind_crossplay.c: PSRO's empirical game (league.mode psro). The
 * brain lists the pairs of population members still short of their
 * psro.crossplay_episodes games (brain_psro_pairs); this kind plays them
 * out, snapshot against snapshot, nothing learning, in jobs of at most
 * matchmaking.job_episodes episodes, the newer member of the pair (whose
 * returns are recorded) in seat id % seats (seat 0 on even job ids and
 * seat 1 on odd ones in a two-seat game), with its teammates' seats (a
 * team game) and the other member in every other seat.
 * The returns go into the payoff table through brain_record_games,
 * scored as the game of expected returns (psro.return_scale), and the
 * meta-strategy takes a new member in once its every pair is complete.
 *
 * It makes its jobs before the league kind does (kinds.c): the best
 * responders' meta-strategy waits for them. Jobs in flight are held here
 * (by id, with their pair) so a pair is never asked twice; a restart
 * forgets them, and the games a pair still lacks are asked again (a late
 * result of a dead daemon's job is stale: its lease is gone).
 */
#include "league/daemon_internal.h"

#include <math.h>
#include <stdlib.h>

#define PAIRS_MAX 256

struct xjob {
	uint64_t id;
	uint32_t a, c, episodes;
};

struct crossplay {
	struct xjob *v;
	size_t n, cap;
	uint64_t jobs, games;
};

static int init(league_daemon *d, void **state, char *err, size_t errlen)
{
	if (d->cfg.league.mode != CFG_MODE_PSRO)
		return 0;
	if (!(*state = calloc(1, sizeof(struct crossplay))))
		return LG_ENOMEM;
	return 0;
}

static void fini(league_daemon *d, void *state)
{
	struct crossplay *x = state;

	if (x)
		free(x->v);
	free(x);
}

/* Episodes of jobs in flight for the pair (a, c). */
static uint32_t in_flight(const struct crossplay *x, uint32_t a, uint32_t c)
{
	uint32_t e = 0;

	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].a == a && x->v[i].c == c)
			e += x->v[i].episodes;
	return e;
}

/* A job of e episodes of snapshot a against snapshot c; 0, or an error
 * (the job is not queued). */
static int queue_pair(league_daemon *d, struct crossplay *x, uint32_t a,
		      uint32_t c, uint32_t e)
{
	struct brain_player pa, pc;
	struct league_job j = {
		.id = daemon_job_id(d),
		.kind = &league_kind_crossplay,
		.episodes = e,
		.lease_s = d->cfg.matchmaking.job_lease_s,
		.evaluation = 1,
	};
	int rc;

	if ((rc = brain_player_info(d->br, a, &pa)) ||
	    (rc = brain_player_info(d->br, c, &pc)))
		return rc;
	if (!daemon_params_exist(d, pa.parent, pa.version) ||
	    !daemon_params_exist(d, pc.parent, pc.version))
		return LG_ENOTFOUND; /* not stored yet */
	daemon_seats_fill(d, &j, (int)(j.id % (uint64_t)daemon_seats(d)),
			  &(struct league_seat){ .player = pa.parent,
						 .version = pa.version },
			  &(struct league_seat){ .player = pc.parent,
						 .version = pc.version });
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 16;
		struct xjob *v = realloc(x->v, cap * sizeof *v);
		if (!v)
			return LG_ENOMEM;
		x->v = v;
		x->cap = cap;
	}
	if ((rc = daemon_queue_job(d, &j)))
		return rc;
	x->v[x->n++] = (struct xjob){ j.id, a, c, e };
	return 0;
}

static void make(league_daemon *d, void *state, size_t want)
{
	struct crossplay *x = state;
	uint32_t a[PAIRS_MAX], c[PAIRS_MAX], left[PAIRS_MAX];
	uint32_t per = (uint32_t)d->cfg.matchmaking.job_episodes;
	size_t n, made = 0;

	if (!x || !want ||
	    brain_psro_pairs(d->br, a, c, left, PAIRS_MAX, &n))
		return;
	for (size_t k = 0; k < n && made < want; k++) {
		uint32_t have = in_flight(x, a[k], c[k]);
		while (have < left[k] && made < want) {
			uint32_t e = LG_MIN(per, left[k] - have);
			if (queue_pair(d, x, a[k], c[k], e))
				break;
			have += e;
			made++;
		}
	}
}

/* Forget job id; its pair in *a, *c (1), or 0 when it is not ours. */
static int take(struct crossplay *x, uint64_t id, uint32_t *a, uint32_t *c)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].id == id) {
			*a = x->v[i].a;
			*c = x->v[i].c;
			x->v[i] = x->v[--x->n];
			return 1;
		}
	return 0;
}

/* The episodes' returns of the subject seat, rounded to whole numbers in
 * [-127, 127] (what the brain records and replays; poker's returns are
 * whole chips). */
static void whole_returns(const struct league_tally *t, int8_t *out)
{
	for (size_t i = 0; i < t->n; i++) {
		double r = nearbyint(t->returns[i]);
		out[i] = (int8_t)(r > 127 ? 127 : r < -127 ? -127 : r);
	}
}

static int result(league_daemon *d, void *state, const struct league_job *j,
		  const struct league_tally *t)
{
	struct crossplay *x = state;
	int8_t out[LEAGUE_JOB_EPISODES_MAX];
	uint32_t a, c;
	int rc;

	if (!x || !take(x, j->id, &a, &c) || !t->n)
		return KIND_IGNORED;
	whole_returns(t, out);
	rc = brain_record_games(d->br, j->id, a, c, out, t->n);
	if (rc == LG_EEXIST)
		return KIND_IGNORED;
	if (rc)
		return rc;
	x->jobs++;
	x->games += t->n;
	return KIND_COUNTED;
}

static void drop(league_daemon *d, void *state, const struct league_job *j)
{
	uint32_t a, c;

	if (state)
		take(state, j->id, &a, &c);
}

static int counted(league_daemon *d, void *state, uint64_t job_id)
{
	return state && (job_id & LEAGUE_JOB_DAEMON_BIT) &&
	       brain_games_counted(d->br, job_id) == 1;
}

static void status(const league_daemon *d, const void *state, lg_buf *b)
{
	const struct crossplay *x = state;

	if (x)
		lg_buf_printf(b, "\"crossplay\": {\"jobs\": %llu, \"games\": "
			      "%llu, \"in_flight\": %zu}, ",
			      (unsigned long long)x->jobs,
			      (unsigned long long)x->games, x->n);
}

const struct league_kind league_kind_crossplay = {
	.name = "crossplay",
	.init = init,
	.fini = fini,
	.make = make,
	.result = result,
	.drop = drop,
	.counted = counted,
	.status = status,
};
