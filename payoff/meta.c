/*
 * payoff/meta.c: PSRO's meta-solvers over a population's win-rate matrix
 * (payoff.h, "meta-solvers"): the meta-Nash, uniform, α-Rank and
 * projected replicator dynamics.
 *
 * PRD (Lanctot et al. 2017, "A Unified Game-Theoretic Approach to
 * Multiagent Reinforcement Learning", section 3.1): replicator dynamics
 * x_i' = x_i ((A x)_i - x A x) on the zero-sum payoff A = W - 1/2,
 * integrated by Euler steps of dt and projected after each onto the
 * simplex whose coordinates are all at least gamma / n, so no strategy
 * dies out (exploration). The mixture returned is the average of the
 * iterates, which converges (the last iterate of replicator dynamics
 * cycles around an interior equilibrium of a zero-sum game).
 */
#include "payoff/payoff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void payoff_meta_opts_default(struct payoff_meta_opts *o)
{
	memset(o, 0, sizeof *o);
	o->solver = PAYOFF_META_NASH;
	o->prd_iters = 50000;
	o->prd_dt = 1e-3;
	o->prd_gamma = 1e-6;
	payoff_alpharank_opts_default(&o->alpharank);
}

/* Euclidean projection of x (n) onto { y : sum y = 1, y_i >= lo }: y_i =
 * max(lo, x_i - t) for the t that makes the sum 1 (found by sorting into
 * s, n scratch doubles). */
static void project(double *x, size_t n, double lo, double *s)
{
	double sum = 0, t = 0;
	size_t k;

	/* shift so the bound is 0: y - lo on the simplex of mass 1 - n lo */
	for (size_t i = 0; i < n; i++)
		s[i] = x[i] - lo;
	/* sort descending (n is a population: small) */
	for (size_t i = 1; i < n; i++) {
		double v = s[i];
		size_t j = i;
		for (; j > 0 && s[j - 1] < v; j--)
			s[j] = s[j - 1];
		s[j] = v;
	}
	double mass = 1 - (double)n * lo;
	for (k = 0; k < n; k++) {
		sum += s[k];
		double tk = (sum - mass) / (double)(k + 1);
		if (k + 1 == n || s[k + 1] <= tk) {
			t = tk;
			break;
		}
	}
	for (size_t i = 0; i < n; i++)
		x[i] = lo + fmax(0, x[i] - lo - t);
}

static int prd(const double *W, size_t n, const struct payoff_meta_opts *o,
	       double *x)
{
	double *cur = malloc(n * sizeof *cur), *Ax = malloc(n * sizeof *Ax);
	double *sc = malloc(n * sizeof *sc), lo = o->prd_gamma / (double)n;
	int rc = 0;

	if (!cur || !Ax || !sc) {
		rc = LG_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		cur[i] = 1.0 / (double)n;
		x[i] = 0;
	}
	for (uint32_t it = 0; it < o->prd_iters; it++) {
		double xAx = 0;
		for (size_t i = 0; i < n; i++) {
			double s = 0;
			for (size_t j = 0; j < n; j++)
				s += (W[i * n + j] - 0.5) * cur[j];
			Ax[i] = s;
			xAx += cur[i] * s;
		}
		for (size_t i = 0; i < n; i++)
			cur[i] += o->prd_dt * cur[i] * (Ax[i] - xAx);
		project(cur, n, lo, sc);
		for (size_t i = 0; i < n; i++)
			x[i] += cur[i];
	}
	for (size_t i = 0; i < n; i++)
		x[i] /= (double)o->prd_iters;
out:
	free(cur);
	free(Ax);
	free(sc);
	return rc;
}

int payoff_meta(const double *W, size_t n, const struct payoff_meta_opts *o,
		double *x)
{
	double *A = NULL, *y = NULL;
	int rc = 0;

	if (!n || n > PAYOFF_NASH_MAX || o->solver < 0 ||
	    o->solver >= PAYOFF_META__COUNT || !o->prd_iters ||
	    !(o->prd_dt > 0) || !(o->prd_gamma >= 0 && o->prd_gamma < 1))
		return LG_EINVAL;
	for (size_t i = 0; i < n * n; i++)
		if (!isfinite(W[i]))
			return LG_EINVAL;
	if (!(A = malloc(n * n * sizeof *A)) || !(y = malloc(n * sizeof *y))) {
		rc = LG_ENOMEM;
		goto out;
	}
	/* a strategy against itself: 1/2 (first-seat games of a snapshot
	 * with itself say nothing of the population game) */
	memcpy(A, W, n * n * sizeof *A);
	for (size_t i = 0; i < n; i++)
		A[i * n + i] = 0.5;
	switch (o->solver) {
	case PAYOFF_META_UNIFORM:
		for (size_t i = 0; i < n; i++)
			x[i] = 1.0 / (double)n;
		break;
	case PAYOFF_META_ALPHARANK:
		rc = payoff_alpharank(A, n, &o->alpharank, x);
		break;
	case PAYOFF_META_PRD:
		rc = prd(A, n, o, x);
		break;
	default:
		for (size_t i = 0; i < n * n; i++)
			A[i] -= 0.5;
		rc = payoff_nash(A, n, n, x, y, NULL, NULL);
		break;
	}
out:
	free(A);
	free(y);
	return rc;
}
