/*
 * players/psro.c: PSRO (policy-space response oracles; Lanctot et al.
 * 2017) on the brain's players, brain_opts.psro.
 *
 * The population is the league's active snapshots, in id order. The
 * empirical game among them is played out by cross-play games
 * (brain_record_games, the daemon's crossplay job kind): every pair gets
 * psro.crossplay_episodes games, each scored (1 + r / R) / 2 for its
 * return r (psro.return_scale R), so a pair's win rate is an affine map
 * of its mean return and the meta-solver solves the game of expected
 * returns (chips, in poker), not of who wins more often. The meta-strategy is the meta-solver's
 * mixture (payoff_meta) over the longest prefix of the population whose
 * pairs are all complete, so a new member counts once its row is known.
 * Every self-play learner is a best responder: its opponents are drawn
 * from the meta-strategy (matchmaking.c), and its iteration ends
 * (brain_psro_step) when its expected win rate against the meta-strategy
 * has not risen by psro.min_improve for psro.patience_steps agent steps,
 * or at psro.br_steps, but never before snapshot.steps: it is then frozen
 * into the population and goes on from the same parameters against the
 * next meta-strategy, its results against the old one forgotten.
 */
#include "players/brain_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Games a pair has after `target` outcomes under the payoff's decay (the
 * count decays before each outcome is added), less a rounding margin. */
static double complete_games(const brain *b)
{
	double d = b->o.payoff.decay, t = b->o.psro.crossplay_episodes;
	double g = d >= 1 ? t : (1 - pow(d, t)) / (1 - d);

	return g - 1e-6 * g;
}

static double games_of(const brain *b, uint32_t a, uint32_t c)
{
	struct payoff_entry e;

	return payoff_get(b->pf, a, c, &e) ? 0 : e.games;
}

/* The complete prefix of the population, at most max ids. */
static size_t prefix(const brain *b, uint32_t *ids, size_t max)
{
	const struct idlist *pop = &b->hist_all[0]; /* one population */
	double need = complete_games(b);
	size_t n = 0;

	for (uint32_t k = 0; k < pop->n && n < max; k++) {
		uint32_t s = pop->v[k];
		size_t j = 0;
		while (j < n && games_of(b, s, ids[j]) >= need)
			j++;
		if (j < n)
			break;
		ids[n++] = s;
	}
	return n;
}

/* The meta-strategy last solved over the whole (uncapped) prefix: every
 * job's choice and step report asks for it, and a solver such as PRD
 * costs a good part of a second at 128 members. */
struct psro_cache {
	uint64_t games; /* b->psro_games when solved */
	size_t n;
	uint32_t ids[BRAIN_NASH_MAX];
	double x[BRAIN_NASH_MAX];
};

void brain_psro_free(brain *b)
{
	free(b->psro_cache);
	b->psro_cache = NULL;
}

int brain_psro_meta(brain *b, uint32_t *ids, double *x, size_t max,
		    size_t *n)
{
	struct psro_cache *c = b->psro_cache;
	int whole = max >= BRAIN_NASH_MAX;
	double *W;
	size_t k;
	int rc;

	*n = 0;
	if (!b->o.psro.on)
		return LG_EINVAL;
	k = prefix(b, ids, LG_MIN(max, (size_t)BRAIN_NASH_MAX));
	if (!k)
		return 0;
	if (whole && c && c->games == b->psro_games && c->n == k &&
	    !memcmp(c->ids, ids, k * sizeof *ids)) {
		memcpy(x, c->x, k * sizeof *x);
		*n = k;
		return 0;
	}
	if (!(W = malloc(k * k * sizeof *W)))
		return LG_ENOMEM;
	if (!(rc = payoff_matrix(b->pf, ids, k, W, NULL)) &&
	    !(rc = payoff_meta(W, k, &b->o.psro.meta, x)))
		*n = k;
	free(W);
	if (!rc && whole &&
	    (c || (c = b->psro_cache = malloc(sizeof *c)))) {
		c->games = b->psro_games;
		c->n = k;
		memcpy(c->ids, ids, k * sizeof *ids);
		memcpy(c->x, x, k * sizeof *x);
	}
	return rc;
}

/* Outcomes a pair of g games still needs to reach need (> g): the least
 * m with d^m g + (1 - d^m) / (1 - d) >= need under the payoff's decay d
 * (g + m >= need without decay), in [1, psro.crossplay_episodes]. */
static uint32_t games_left(const brain *b, double g, double need)
{
	double d = b->o.payoff.decay, m;

	if (d >= 1) {
		m = ceil(need - g);
	} else {
		/* the counts approach L geometrically: L - x_m = d^m (L - g) */
		double L = 1 / (1 - d);
		m = ceil(log((L - need) / (L - g)) / log(d));
	}
	if (!(m >= 1))
		m = 1;
	return m > b->o.psro.crossplay_episodes ? b->o.psro.crossplay_episodes
						 : (uint32_t)m;
}

int brain_psro_pairs(const brain *b, uint32_t *a, uint32_t *c,
		     uint32_t *left, size_t max, size_t *n)
{
	const struct idlist *pop = &b->hist_all[0]; /* one population */
	double need = complete_games(b);

	*n = 0;
	for (uint32_t i = 0; i < pop->n && *n < max; i++)
		for (uint32_t j = 0; j < i && *n < max; j++) {
			double g = games_of(b, pop->v[i], pop->v[j]);
			if (g >= need)
				continue;
			a[*n] = pop->v[i];
			c[*n] = pop->v[j];
			left[*n] = games_left(b, g, need);
			++*n;
		}
	return 0;
}

int brain_psro_step(brain *b, uint32_t L, int *freeze)
{
	struct agent *a = &b->ag[L];
	uint64_t passed = a->steps - a->last_snap_steps;
	uint32_t ids[BRAIN_NASH_MAX];
	double x[BRAIN_NASH_MAX], v = 0;
	const double *row = payoff_row(b->pf, L);
	size_t n;
	int rc;

	*freeze = 0;
	if ((rc = brain_psro_meta(b, ids, x, BRAIN_NASH_MAX, &n)))
		return rc;
	for (size_t i = 0; i < n; i++)
		v += x[i] * brain_rate(row, ids[i]);
	if (v > a->psro_best + b->o.psro.min_improve) {
		a->psro_best = v;
		a->psro_at = a->steps;
	}
	*freeze = passed >= b->o.snapshot_steps &&
		  (a->steps - a->psro_at >= b->o.psro.patience_steps ||
		   passed >= b->o.psro.br_steps);
	return 0;
}

/* A payoff pair of L was forgotten: its stored entry goes. */
static void forget_cb(void *arg, uint32_t p, uint32_t q)
{
	brain *b = arg;
	int rc = brain_mark_pair(b, p, q);

	if (rc && !b->cb_err)
		b->cb_err = rc;
}

int brain_psro_next(brain *b, uint32_t L)
{
	struct agent *a = &b->ag[L];
	int rc;

	a->psro_best = 0;
	a->psro_at = a->steps;
	b->cb_err = 0;
	if ((rc = payoff_clear(b->pf, L, forget_cb, b)))
		return rc;
	return b->cb_err;
}

int brain_record_games(brain *b, uint64_t job_id, uint32_t a, uint32_t c,
		       const int8_t *returns, size_t n)
{
	double R = b->o.psro.return_scale;
	uint32_t cnt[3] = { 0, 0, 0 };
	int rc;

	if (b->rdonly || !n || n > BRAIN_MAX_EPISODES || a == c ||
	    a >= b->n || c >= b->n ||
	    b->ag[a].role != BRAIN_ROLE_HISTORICAL ||
	    b->ag[c].role != BRAIN_ROLE_HISTORICAL)
		return LG_EINVAL;
	if ((rc = brain_games_counted(b, job_id)))
		return rc > 0 ? LG_EEXIST : rc; /* counted before */
	for (size_t e = 0; e < n; e++) {
		double q = returns[e] / R;
		double sc = (1 + (q > 1 ? 1 : q < -1 ? -1 : q)) / 2;
		if ((rc = payoff_record_score(b->pf, a, c, sc)))
			return rc;
		cnt[(returns[e] > 0) - (returns[e] < 0) + 1]++;
	}
	b->psro_games++;
	if ((rc = brain_mark_pair(b, a, c)) ||
	    (rc = brain_put_result(b, BRAIN_LOG_GAMES, job_id, a, c, returns,
				   n, cnt)))
		return rc;
	b->seq++;
	return brain_call_done(b);
}

int brain_games_counted(brain *b, uint64_t job_id)
{
	store_txn *t;
	const void *v;
	size_t vl;
	uint8_t k[8];
	int rc;

	store_key_u64(k, job_id);
	if ((rc = store_txn_begin(b->s, STORE_TXN_READ, &t)))
		return rc;
	rc = store_get(t, STORE_DB_RESULTS, k, 8, &v, &vl);
	store_txn_abort(t);
	return rc == 0 ? 1 : rc == LG_ENOTFOUND ? 0 : rc;
}
