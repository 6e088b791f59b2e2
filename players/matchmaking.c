/*
 * players/matchmaking.c: who a learner plays next, by its role's rules
 * (players.h has the rules; AlphaStar's numbers are the defaults).
 *
 * Every decision reads the learner's dense payoff row and walks one
 * candidate list the brain keeps up to date (all active snapshots, the
 * main exploiters' snapshots, each learner's own, the main players), so a
 * PFSP draw is O(candidates) with no hashing and no LMDB. Every random
 * choice draws from the brain's one rng, whose state the caller logs.
 */
#include "players/brain_internal.h"

#include <math.h>
#include <stdlib.h>

double brain_pfsp_weight(int weighting, double x, double exponent)
{
	if (!(x >= 0))
		x = isnan(x) ? 0.5 : 0.0;
	if (x > 1)
		x = 1;
	switch (weighting) {
	case BRAIN_PFSP_SQUARED:
		return exponent == 2 ? (1 - x) * (1 - x) : pow(1 - x, exponent);
	case BRAIN_PFSP_VARIANCE:
		return x * (1 - x);
	case BRAIN_PFSP_LINEAR:
		return 1 - x;
	case BRAIN_PFSP_LINEAR_CAPPED:
		return LG_MIN(0.5, 1 - x);
	}
	return 0;
}

struct pick {
	uint32_t id;
	uint32_t n;
	double prob;
};

/*
 * PFSP over c[0..n): weights f(row[c[i]]), normalised; every weight below
 * 1e-10 in total falls back to uniform. n must be > 0.
 */
static int pick_pfsp(brain *b, const double *row, const uint32_t *c,
		     uint32_t n, int weighting, struct pick *out)
{
	double *w, sum = 0, u, e = b->o.pfsp_exponent;
	uint32_t i;
	int rc;

	if ((rc = brain_reserve((void **)&b->scratch, &b->cap_scratch, n,
			  sizeof *b->scratch)))
		return rc;
	w = b->scratch;
	switch (weighting) {
	case BRAIN_PFSP_SQUARED:
		if (e == 2) {
			for (i = 0; i < n; i++) {
				double y = 1 - brain_rate(row, c[i]);
				sum += w[i] = y * y;
			}
		} else {
			for (i = 0; i < n; i++)
				sum += w[i] = pow(1 - brain_rate(row, c[i]), e);
		}
		break;
	case BRAIN_PFSP_VARIANCE:
		for (i = 0; i < n; i++) {
			double x = brain_rate(row, c[i]);
			sum += w[i] = x * (1 - x);
		}
		break;
	case BRAIN_PFSP_LINEAR:
		for (i = 0; i < n; i++)
			sum += w[i] = 1 - brain_rate(row, c[i]);
		break;
	default:
		for (i = 0; i < n; i++)
			sum += w[i] = LG_MIN(0.5, 1 - brain_rate(row, c[i]));
		break;
	}
	out->n = n;
	if (!(sum >= 1e-10) || !isfinite(sum)) {
		out->id = c[lg_rng_below(&b->rng, n)];
		out->prob = 1.0 / n;
		return 0;
	}
	u = lg_rng_double(&b->rng) * sum;
	for (i = 0; i + 1 < n; i++) {
		if (u < w[i])
			break;
		u -= w[i];
	}
	/* Rounding may leave u past the end: take the last positive one. */
	while (i > 0 && !(w[i] > 0))
		i--;
	out->id = c[i];
	out->prob = w[i] / sum;
	return 0;
}

static void pick_uniform(brain *b, const uint32_t *c, uint32_t n,
			 struct pick *out)
{
	out->id = c[lg_rng_below(&b->rng, n)];
	out->n = n;
	out->prob = 1.0 / n;
}

/* PSRO: an opponent drawn from the meta-strategy over the population
 * (psro.c); LG_ENOTFOUND before there is one. */
static int pick_psro(brain *b, struct pick *out)
{
	uint32_t ids[BRAIN_NASH_MAX];
	double x[BRAIN_NASH_MAX];
	size_t n, i;
	int rc;

	if ((rc = brain_psro_meta(b, ids, x, BRAIN_NASH_MAX, &n)))
		return rc;
	if (!n)
		return LG_ENOTFOUND;
	i = lg_rng_categorical(&b->rng, x, n);
	out->id = ids[i];
	out->n = (uint32_t)n;
	out->prob = x[i];
	return 0;
}

/* Meta-Nash mixture (payoff_meta_nash) of the latest BRAIN_NASH_MAX
 * snapshots in c. */
static int pick_nash(brain *b, const uint32_t *c, uint32_t n,
		     struct pick *out)
{
	uint32_t k = LG_MIN(n, BRAIN_NASH_MAX), off = n - k;
	double *x = malloc(k * sizeof *x);
	size_t i;
	int rc;

	if (!x)
		return LG_ENOMEM;
	if (!(rc = payoff_meta_nash(b->pf, c + off, k, x, NULL))) {
		i = lg_rng_categorical(&b->rng, x, k);
		out->id = c[off + i];
		out->n = k;
		out->prob = x[i];
	}
	free(x);
	return rc;
}

static void live(const brain *b, uint32_t id, struct brain_job *j)
{
	j->opponent = id;
	j->opponent_params = id;
	j->opponent_version = b->ag[id].version;
}

/* A job of kind against id's live parameters, the only candidate. */
static void live_only(const brain *b, uint32_t id, int kind,
		      struct brain_job *j)
{
	live(b, id, j);
	j->kind = kind;
	j->candidates = 1;
	j->prob = 1;
}

static void frozen(const brain *b, uint32_t id, struct brain_job *j)
{
	j->opponent = id;
	j->opponent_params = b->ag[id].parent;
	j->opponent_version = b->ag[id].version;
}

static void set_pick(const brain *b, const struct pick *p, int kind,
		     struct brain_job *j)
{
	if (b->ag[p->id].role == BRAIN_ROLE_HISTORICAL)
		frozen(b, p->id, j);
	else
		live(b, p->id, j);
	j->kind = kind;
	j->candidates = p->n;
	j->prob = p->prob;
}

static void fallback(const brain *b, uint32_t L, struct brain_job *j)
{
	live(b, L, j);
	j->kind = BRAIN_JOB_FALLBACK;
	j->candidates = 0;
	j->prob = 1;
}

/* Main: verification. 1 when it chose, 0 when it passes, <0 error. */
static int verify(brain *b, uint32_t pop, uint32_t opp, const double *row,
		  struct brain_job *j)
{
	const struct idlist *ex = &b->hist_expl[pop], *own = &b->ag[opp].snaps;
	struct pick p;
	double mn = INFINITY;
	uint32_t k;
	int rc;

	for (uint32_t i = 0; i < ex->n; i++)
		mn = LG_MIN(mn, brain_rate(row, ex->v[i]));
	if (ex->n && mn < b->o.main.verify_exploiter_win_rate) {
		if ((rc = pick_pfsp(b, row, ex->v, ex->n, BRAIN_PFSP_SQUARED,
				    &p)))
			return rc;
		set_pick(b, &p, BRAIN_JOB_VERIFY_EXPLOITER, j);
		return 1;
	}
	/* Drop the monotonic suffix (AlphaStar's remove_monotonic_suffix):
	 * keep up to the last point where the win rate still rose. */
	for (k = own->n; k > 1; k--)
		if (brain_rate(row, own->v[k - 2]) < brain_rate(row, own->v[k - 1]))
			break;
	if (k <= 1)
		k = 0;
	mn = INFINITY;
	for (uint32_t i = 0; i < k; i++)
		mn = LG_MIN(mn, brain_rate(row, own->v[i]));
	if (k && mn < b->o.main.verify_historical_win_rate) {
		if ((rc = pick_pfsp(b, row, own->v, k, BRAIN_PFSP_SQUARED, &p)))
			return rc;
		set_pick(b, &p, BRAIN_JOB_VERIFY_HISTORICAL, j);
		return 1;
	}
	return 0;
}

/* Play live `opp` while beating it more than min_rate, else PFSP over its
 * snapshots (live opp when it has none). */
static int live_or_curriculum(brain *b, uint32_t opp, const double *row,
			      double min_rate, int weighting, int live_kind,
			      struct brain_job *j)
{
	const struct idlist *own = &b->ag[opp].snaps;
	struct pick p;
	int rc;

	if (brain_rate(row, opp) > min_rate || !own->n) {
		live_only(b, opp, live_kind, j);
		return 0;
	}
	if ((rc = pick_pfsp(b, row, own->v, own->n, weighting, &p)))
		return rc;
	set_pick(b, &p, BRAIN_JOB_CURRICULUM, j);
	return 0;
}

/* PFSP over every snapshot of population pop (the fallback, L's
 * counterpart there, while there is none) with weighting: L's job into
 * j. 0 or pick_pfsp's error. */
static int pfsp_all(brain *b, uint32_t L, uint32_t pop, const double *row,
		    int weighting, struct brain_job *j)
{
	const struct idlist *all = &b->hist_all[pop];
	struct pick p;
	int rc;

	if (!all->n) {
		fallback(b, brain_counterpart(b, L, pop), j);
		return 0;
	}
	if ((rc = pick_pfsp(b, row, all->v, all->n, weighting, &p)))
		return rc;
	set_pick(b, &p, BRAIN_JOB_PFSP, j);
	return 0;
}

int brain_choose(brain *b, uint32_t L, uint32_t pop, struct brain_job *j)
{
	const double *row = payoff_row(b->pf, L);
	const struct idlist *mains = &b->mains[pop];
	/* self-play: L, or its counterpart in the seat's population */
	uint32_t self = brain_counterpart(b, L, pop);
	const struct idlist *own = &b->ag[self].snaps;
	struct pick p;
	double u;
	uint32_t opp;
	int rc;

	switch (b->ag[L].role) {
	case BRAIN_ROLE_MAIN:
		u = lg_rng_double(&b->rng);
		if (u < b->o.main.pfsp)
			return pfsp_all(b, L, pop, row,
					b->o.main.weighting, j);
		opp = mains->v[lg_rng_below(&b->rng, mains->n)];
		if (u < b->o.main.pfsp + b->o.main.verification) {
			rc = verify(b, pop, opp, row, j);
			if (rc)
				return rc < 0 ? rc : 0;
		}
		return live_or_curriculum(b, opp, row,
					  b->o.main.sp_min_win_rate,
					  BRAIN_PFSP_VARIANCE, BRAIN_JOB_SP, j);
	case BRAIN_ROLE_MAIN_EXPLOITER:
		opp = mains->v[lg_rng_below(&b->rng, mains->n)];
		return live_or_curriculum(
			b, opp, row, b->o.main_exploiter.main_min_win_rate,
			b->o.main_exploiter.weighting, BRAIN_JOB_EXPLOIT, j);
	case BRAIN_ROLE_LEAGUE_EXPLOITER:
		return pfsp_all(b, L, pop, row,
				b->o.league_exploiter.weighting, j);
	case BRAIN_ROLE_SELF_PLAY:
		if (b->o.psro.on) {
			rc = pick_psro(b, &p);
			if (rc == LG_ENOTFOUND) {
				fallback(b, self, j);
				return 0;
			}
			if (rc)
				return rc;
			set_pick(b, &p, BRAIN_JOB_NASH, j);
			return 0;
		}
		u = lg_rng_double(&b->rng);
		if (u < b->o.self_play.sp) {
			live_only(b, self, BRAIN_JOB_SP, j);
			return 0;
		}
		if (!own->n) {
			fallback(b, self, j);
			return 0;
		}
		if (u < b->o.self_play.sp + b->o.self_play.uniform) {
			pick_uniform(b, own->v, own->n, &p);
			set_pick(b, &p, BRAIN_JOB_UNIFORM, j);
			return 0;
		}
		if (u < b->o.self_play.sp + b->o.self_play.uniform +
			    b->o.self_play.pfsp) {
			if ((rc = pick_pfsp(b, row, own->v, own->n,
					    b->o.self_play.weighting, &p)))
				return rc;
			set_pick(b, &p, BRAIN_JOB_PFSP, j);
			return 0;
		}
		if ((rc = pick_nash(b, own->v, own->n, &p)))
			return rc;
		set_pick(b, &p, BRAIN_JOB_NASH, j);
		return 0;
	}
	return LG_EINVAL;
}

/* Seat s of job j plays learner L's current parameters. */
static void seat_learner(const brain *b, uint32_t L, struct brain_job *j,
			 uint32_t s)
{
	j->seat_agent[s] = j->seat_params[s] = L;
	j->seat_version[s] = b->ag[L].version;
}

/* The seat learner L takes in job id: the (id mod k)-th of the k seats
 * of its population (seat id % seats in a symmetric game). */
static uint32_t learner_seat(const brain *b, uint32_t L, uint64_t id)
{
	uint32_t pop = b->ag[L].pop, k = 0, s;

	for (s = 0; s < b->o.seats; s++)
		k += b->o.seat_pop[s] == pop;
	k = (uint32_t)(id % k);
	for (s = 0; s < b->o.seats; s++)
		if (b->o.seat_pop[s] == pop && !k--)
			break;
	return s;
}

int brain_fill_seats(brain *b, uint32_t L, struct brain_job *j)
{
	uint32_t ns = b->o.seats, ls = learner_seat(b, L, j->id);
	int first = 1, rc;

	j->nseats = (uint8_t)ns;
	j->learner_seat = (uint8_t)ls;
	for (uint32_t s = 0; s < ns; s++) {
		struct brain_job c = *j;
		if (s == ls || (b->o.team[s] == b->o.team[ls] &&
				b->o.seat_pop[s] == b->o.seat_pop[ls] &&
				b->o.teammates == BRAIN_TEAMMATES_SELF)) {
			seat_learner(b, L, j, s);
			continue;
		}
		if ((rc = brain_choose(b, L, b->o.seat_pop[s], &c)))
			return rc;
		j->seat_agent[s] = c.opponent;
		j->seat_params[s] = c.opponent_params;
		j->seat_version[s] = c.opponent_version;
		if (first) {
			j->opponent = c.opponent;
			j->opponent_params = c.opponent_params;
			j->opponent_version = c.opponent_version;
			j->kind = c.kind;
			j->candidates = c.candidates;
			j->prob = c.prob;
			first = 0;
		}
	}
	if (first) { /* a game of one team: nothing to draw */
		live_only(b, L, BRAIN_JOB_SP, j);
	}
	return 0;
}
