/*
 * payoff/alpharank.c: α-Rank (Omidshafiei et al. 2019, "α-Rank:
 * Multi-Agent Evaluation by Evolution") of a symmetric two-player game, in
 * its single-population form.
 *
 * The model: a population of m agents nearly always plays one strategy
 * (it is monomorphic). Now and then one agent mutates to another strategy,
 * chosen uniformly among the n - 1 others, and the mutant either dies out
 * or takes the whole population over (fixates), under a Moran process
 * whose selection is the Fermi function of the fitness difference with
 * intensity alpha. The monomorphic populations are the n states of a
 * Markov chain: from s it moves to r with probability rho(s -> r) / (n-1)
 * and stays otherwise. The α-Rank score of a strategy is the chain's
 * stationary mass on it: the share of time evolution spends there.
 *
 * Fixation. With p mutants r among m residents s the fitness of a mutant
 * (against the m - 1 others) is f_r(p) = ((p-1) M[r][r] + (m-p) M[r][s])
 * / (m-1) and that of a resident f_s(p) = (p M[s][r] + (m-p-1) M[s][s])
 * / (m-1), and
 *
 *   rho(s -> r) = 1 / sum_{l=0}^{m-1} exp(-alpha sum_{p=1}^{l}
 *                                          (f_r(p) - f_s(p))).
 *
 * The difference is linear in p: f_r(p) - f_s(p) = (a + b p) / (m - 1)
 * with a = m M[r][s] - M[r][r] - (m-1) M[s][s] and b = M[r][r] - M[r][s]
 * - M[s][r] + M[s][s]. In a constant-sum game (M + M^T = c everywhere, so
 * the diagonal is c/2: a win rate matrix with 1/2 on the diagonal, as
 * league's is) b = 0 and the sum is geometric, rho = (1 - e^-x) /
 * (1 - e^-mx) with x = alpha a / (m-1) = alpha m / (m-1) (M[r][s] - c/2):
 * the Fermi fixation probability of the brief summaries. It is computed
 * in a form that cannot overflow (expm1 of non-positive arguments and one
 * exp that may only underflow); x = 0, the neutral mutant, gives exactly
 * 1/m. Other games take the sum term by term in log space (O(m) a pair).
 * alpha = infinity is the limit of the same formula, exactly (see
 * fixation_limit).
 *
 * Stationary distribution: by the GTH algorithm (Grassmann, Taksar and
 * Heyman 1985), Gaussian elimination of the states one by one in which
 * every quantity is a sum or product of non-negative numbers: no
 * subtraction, so no cancellation, and the masses come out with small
 * relative error however nearly reducible the chain is. That matters
 * here: at a large alpha a transition against selection has probability
 * e^-(hundreds) or underflows to 0. A solve of (I - P^T) pi = 0 with a
 * normalisation row subtracts numbers of wildly different size and loses
 * the small masses; power iteration needs ~1/(spectral gap) sweeps,
 * about m when many pairs are neutral and beyond reach in a general-sum
 * game whose strategies can hold the chain with an escape probability of
 * e^-(hundreds), and its stopping rule bounds a sweep's change, not the
 * error. GTH is direct (no tolerance, no iteration count). It needs each
 * eliminated state to reach an earlier one, so the states are ordered
 * first (stationary_order); O(n^3 / 3) multiply-adds in all.
 */
#include "payoff/payoff.h"
#include "payoff/payoff_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void payoff_alpharank_opts_default(struct payoff_alpharank_opts *o)
{
	o->alpha = 100;
	o->population = 50;
}

int payoff_alpharank_opts_check(const struct payoff_alpharank_opts *o,
				char *err, size_t errlen)
{
	if (!(o->alpha >= 0)) { /* NaN too; +infinity is the limit */
		lg_errf(err, errlen, "alpha-rank alpha %g is not >= 0",
			o->alpha);
		return LG_EINVAL;
	}
	if (o->population < 2 ||
	    o->population > PAYOFF_ALPHARANK_POP_MAX) {
		lg_errf(err, errlen, "alpha-rank population %u is not in "
			"[2, %u]", o->population, PAYOFF_ALPHARANK_POP_MAX);
		return LG_EINVAL;
	}
	return 0;
}

/*
 * rho for a constant fitness difference, the exponent of step l being
 * -x l: 1 / sum_{l<m} e^{-x l}. x > 0 (the mutant is fitter): (1 - e^-x)
 * / (1 - e^-mx). x < 0: the same sum read backwards, e^{-(m-1)|x|} (1 -
 * e^-|x|) / (1 - e^-m|x|), whose exp may underflow to 0 but never
 * overflows. Infinite x gives 1 or 0.
 */
static double fixation_geometric(double x, uint32_t m)
{
	double y = fabs(x);

	if (x == 0)
		return 1.0 / m;
	if (x > 0)
		return expm1(-y) / expm1(-(double)m * y);
	return exp(-(double)(m - 1) * y) * (expm1(-y) /
					     expm1(-(double)m * y));
}

/*
 * rho = 1 / sum_{l=0}^{m-1} exp(e_l), e_l = -k (a l + b l (l+1) / 2),
 * k = alpha / (m-1), by log-sum-exp: e_0 = 0 keeps the largest term at
 * least 1, so an overflowing exponent means rho underflows to 0.
 */
static double fixation_sum(double a, double b, double k, uint32_t m)
{
	double emax = 0, s = 0;

	for (uint32_t l = 1; l < m; l++) {
		double e = -k * (l * (a + b * (l + 1) * 0.5));
		if (e > emax)
			emax = e;
	}
	if (isinf(emax))
		return 0;
	for (uint32_t l = 0; l < m; l++)
		s += exp(-k * (l * (a + b * (l + 1) * 0.5)) - emax);
	return exp(-emax) / s;
}

/*
 * The alpha -> infinity limit of fixation_sum: the terms with t_l = a l +
 * b l (l+1) / 2 < 0 grow without bound (rho -> 0), those with t_l = 0
 * stay 1, the rest vanish: rho -> 1 / (1 + #{l >= 1: t_l = 0}), so a
 * neutral mutant keeps 1/m and a strictly fitter one fixates surely.
 * |t_l| within tol l counts as 0: payoffs that differ by rounding only
 * are ties.
 */
static double fixation_limit(double a, double b, double tol, uint32_t m)
{
	uint32_t ties = 0;

	for (uint32_t l = 1; l < m; l++) {
		double t = l * (a + b * (l + 1) * 0.5);
		if (t < -tol * l)
			return 0;
		ties += t <= tol * l;
	}
	return 1.0 / (1.0 + ties);
}

/* Largest |alpha b| m / 2 (the most the b term can move an exponent) that
 * the geometric form ignores: a relative error of rho below 1e-10. It
 * takes the league's constant-sum matrices, whose b is a rounding error,
 * by the O(1) path. */
#define GEOMETRIC_SLACK 1e-10

/* rho(s -> r) of mutant r in a population of s (r != s). */
static double fixation(const double *M, size_t n, size_t s, size_t r,
		       double alpha, uint32_t m)
{
	double rr = M[r * n + r], rs = M[r * n + s], sr = M[s * n + r],
	       ss = M[s * n + s];
	double a = (double)m * rs - rr - (double)(m - 1) * ss;
	double b = rr - rs - sr + ss;

	if (isinf(alpha)) {
		double scale = fmax(fmax(fabs(rr), fabs(rs)),
				    fmax(fabs(sr), fabs(ss)));
		double tol = 1e-12 * (scale > 0 ? scale : 1) * m;
		if (fabs(b) <= tol / m)
			b = 0;
		return fixation_limit(a, b, tol, m);
	}
	if (a == 0 && b == 0)
		return 1.0 / m; /* neutral: exactly, whatever alpha */
	if (alpha * fabs(b) * m * 0.5 <= GEOMETRIC_SLACK)
		return fixation_geometric(alpha * a / (m - 1), m);
	return fixation_sum(a, b, alpha / (m - 1), m);
}

static int check_input(const double *M, size_t n,
		       const struct payoff_alpharank_opts *o)
{
	if (!M || !n || n > PAYOFF_ALPHARANK_MAX ||
	    payoff_alpharank_opts_check(o, NULL, 0))
		return LG_EINVAL;
	for (size_t k = 0; k < n * n; k++)
		if (!(fabs(M[k]) <= PAYOFF_ALPHARANK_PAYOFF_MAX)) /* NaN too */
			return LG_EINVAL;
	return 0;
}

int payoff_alpharank_fixation(const double *M, size_t n,
			      const struct payoff_alpharank_opts *o,
			      double *rho)
{
	int rc = check_input(M, n, o);

	if (rc)
		return rc;
	for (size_t s = 0; s < n; s++)
		for (size_t r = 0; r < n; r++)
			rho[s * n + r] = r == s ? 0 :
				fixation(M, n, s, r, o->alpha, o->population);
	return 0;
}

/*
 * An order of the states for GTH: ord[0] a state every state can reach,
 * and each later state with a positive transition (P[u][v] > 0) to an
 * earlier one, so every state eliminated still has somewhere to go. It
 * is a breadth-first search from the root backwards along transitions.
 * The root is the candidate entered by the most "at least as likely
 * forwards as back" transitions, in a constant-sum game a strategy of the
 * top cycle, which all states reach: one search. When the search misses
 * some state, the root and every state that reaches it are not in a
 * class all reach (if one were, the root would be too), so the next
 * candidate is tried among the rest. 0, or LG_ERANGE when no candidate is
 * left: the chain has no single closed class in floating point (at an
 * infinite or huge alpha, two strategies of a coordination game that each
 * resist the other's mutants), so no unique stationary distribution.
 * seen and cand are n bytes of scratch.
 */
static int stationary_order(const double *P, size_t n, size_t *ord,
			    unsigned char *seen, unsigned char *cand)
{
	memset(cand, 1, n);
	for (;;) {
		size_t root = n, best = 0, head = 0, tail = 0;
		for (size_t v = 0; v < n; v++) {
			size_t in = 0;
			if (!cand[v])
				continue;
			for (size_t u = 0; u < n; u++)
				in += u != v && P[u * n + v] > 0 &&
				      P[u * n + v] >= P[v * n + u];
			if (root == n || in > best) {
				root = v;
				best = in;
			}
		}
		if (root == n)
			return LG_ERANGE;
		memset(seen, 0, n);
		seen[root] = 1;
		ord[tail++] = root;
		while (head < tail) {
			size_t v = ord[head++];
			for (size_t u = 0; u < n; u++)
				if (!seen[u] && P[u * n + v] > 0) {
					seen[u] = 1;
					ord[tail++] = u;
				}
		}
		if (tail == n)
			return 0;
		for (size_t k = 0; k < tail; k++)
			cand[ord[k]] = 0;
	}
}

/* P (n x n, row-major) permuted in place to P[ord[i]][ord[j]] at (i, j);
 * tmp holds n doubles, pos n indices. */
static void permute(double *P, size_t n, const size_t *ord, double *tmp,
		    size_t *pos)
{
	for (size_t i = 0; i < n; i++) {
		double *row = P + i * n;
		for (size_t j = 0; j < n; j++)
			tmp[j] = row[ord[j]];
		memcpy(row, tmp, n * sizeof *tmp);
	}
	/* rows by cycles: position i takes the row at ord[i] */
	for (size_t i = 0; i < n; i++)
		pos[i] = 0;
	for (size_t start = 0; start < n; start++) {
		size_t i = start;
		if (pos[start])
			continue;
		memcpy(tmp, P + i * n, n * sizeof *tmp);
		for (;;) {
			size_t from = ord[i];
			pos[i] = 1;
			if (from == start) {
				memcpy(P + i * n, tmp, n * sizeof *tmp);
				break;
			}
			memcpy(P + i * n, P + from * n, n * sizeof *tmp);
			i = from;
		}
	}
}

/*
 * GTH on the off-diagonal transitions P (n x n; the diagonal is ignored
 * and overwritten), states in an order where each reaches an earlier one.
 * Eliminating state k (last first) folds its transitions into the states
 * before it: P[i][j] += P[i][k] P[k][j] / S_k for i, j < k, with S_k =
 * sum_{j<k} P[k][j] the probability of leaving k for them, kept on the
 * diagonal. Then pi_0 = 1 and pi_j = sum_{i<j} pi_i P[i][j] / S_j, the
 * balance of j in the chain seen only on states 0..j; the running masses
 * are rescaled before they could overflow. pi sums to 1. LG_ERANGE when
 * some S_k is 0 (only when the order's transitions all underflowed).
 */
static int gth(double *P, size_t n, double *pi)
{
	double total = 1;

	for (size_t k = n - 1; k > 0; k--) {
		double *pk = P + k * n, s = 0;
		for (size_t j = 0; j < k; j++)
			s += pk[j];
		if (!(s > 0) || !isfinite(s))
			return LG_ERANGE;
		for (size_t i = 0; i < k; i++) {
			double *pr = P + i * n, f = pr[k] / s;
			if (f == 0)
				continue;
			for (size_t j = 0; j < k; j++)
				pr[j] += f * pk[j];
		}
		pk[k] = s;
	}
	pi[0] = 1;
	for (size_t j = 1; j < n; j++) {
		double v = 0;
		for (size_t i = 0; i < j; i++)
			v += pi[i] * P[i * n + j];
		pi[j] = v / P[j * n + j];
		total += pi[j];
		if (total > 1e200) {
			for (size_t i = 0; i <= j; i++)
				pi[i] /= total;
			total = 1;
		}
	}
	for (size_t j = 0; j < n; j++)
		pi[j] /= total;
	return 0;
}

double payoff_fixation_const(double d, double alpha, double tol, uint32_t m)
{
	if (isinf(alpha))
		return fixation_limit(d, 0, tol, m);
	if (d == 0)
		return 1.0 / m; /* neutral: exactly, whatever alpha */
	return fixation_geometric(alpha * d, m);
}

int payoff_chain_stationary(double *P, size_t n, double *pi)
{
	double *tmp = malloc(n * sizeof *tmp), *x = malloc(n * sizeof *x);
	size_t *ord = malloc(n * sizeof *ord), *pos = malloc(n * sizeof *pos);
	unsigned char *flags = malloc(2 * n);
	int rc = 0;

	if (!tmp || !x || !ord || !pos || !flags) {
		rc = LG_ENOMEM;
		goto out;
	}
	if ((rc = stationary_order(P, n, ord, flags, flags + n)))
		goto out;
	permute(P, n, ord, tmp, pos);
	if ((rc = gth(P, n, x)))
		goto out;
	for (size_t i = 0; i < n; i++)
		pi[ord[i]] = x[i];
out:
	free(tmp);
	free(x);
	free(ord);
	free(pos);
	free(flags);
	return rc;
}

int payoff_alpharank(const double *M, size_t n,
		     const struct payoff_alpharank_opts *o, double *pi)
{
	double *P = NULL;
	int rc = check_input(M, n, o);

	if (rc)
		return rc;
	if (n == 1) {
		pi[0] = 1;
		return 0;
	}
	if (!(P = malloc(n * n * sizeof *P)))
		return LG_ENOMEM;
	payoff_alpharank_fixation(M, n, o, P);
	for (size_t k = 0; k < n * n; k++)
		P[k] /= (double)(n - 1); /* the mutant's strategy: uniform */
	rc = payoff_chain_stationary(P, n, pi);
	free(P);
	return rc;
}
