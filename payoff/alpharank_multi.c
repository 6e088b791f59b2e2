/*
 * payoff/alpharank_multi.c: α-Rank of a game of K roles, in the
 * multi-population form of Omidshafiei et al. 2019 ("α-Rank: Multi-Agent
 * Evaluation by Evolution", the m-population model).
 *
 * The model: role k has its own population of m agents, which nearly
 * always plays one of its n_k strategies. The state is a pure strategy
 * profile s = (s_0, ..., s_{K-1}), one strategy per population: prod n_k
 * states. Now and then one agent of one population mutates (the
 * population and the new strategy uniform among the sum_k (n_k - 1)
 * possible changes) and either dies out or takes its population over.
 * A population's members meet only the other populations, so a mutant
 * tau in population k earns payoff_k(tau, s_-k) and a resident
 * payoff_k(s), whatever the number of mutants: the Moran process with
 * Fermi selection has the fixation probability of a constant fitness
 * difference d = payoff_k(tau, s_-k) - payoff_k(s),
 *
 *   rho = (1 - e^{-alpha d}) / (1 - e^{-m alpha d})   (1/m when d = 0),
 *
 * and the chain moves from s to (tau, s_-k) with probability rho /
 * sum_k (n_k - 1). The scores are its stationary distribution over
 * profiles and, per role, each strategy's marginal mass.
 *
 * The fixation probability and the exact stationary solve (GTH) are the
 * single-population α-Rank's (alpharank.c, through payoff_internal.h),
 * alpha INFINITY included (the limit rho: 1, 0 or 1/m for a tie).
 *
 * Two relations the tests check. rho(d) / rho(-d) = e^{(m-1) alpha d}
 * exactly, so in a potential game (every population's gain from a change
 * of its own strategy is the change of one function Phi of the profile)
 * the chain is reversible and pi(s) is proportional to e^{(m-1) alpha
 * Phi(s)}. A symmetric two-player game with additive payoffs M[i][j] =
 * c/2 + f_i - f_j (and every symmetric constant-sum 2 x 2 game, which has
 * that form) is such a game with Phi(i, j) = f_i + f_j: each population's
 * marginal is proportional to e^{(m-1) alpha f_i}, which is the
 * single-population α-Rank of M at alpha (m-1)/m (its mutant meets its
 * own kind, which scales the fitness gap by m/(m-1)). Beyond such games
 * the two differ: the two-population chain walks through profiles where
 * the roles play different strategies, the single-population one never.
 */
#include "payoff/payoff.h"
#include "payoff/payoff_internal.h"

#include <math.h>
#include <stdlib.h>

/* Checks the game and options; *profiles and *changes get prod n_k and
 * sum_k (n_k - 1). */
static int multi_check(const double *const *tab, const uint32_t *n,
		       size_t K, const struct payoff_alpharank_opts *o,
		       size_t *profiles, size_t *changes)
{
	size_t N = 1, c = 0;

	if (!tab || !n || !o || !K || K > PAYOFF_ALPHARANK_POPS_MAX ||
	    payoff_alpharank_opts_check(o, NULL, 0))
		return LG_EINVAL;
	for (size_t k = 0; k < K; k++) {
		if (!n[k] || !tab[k] || n[k] > PAYOFF_ALPHARANK_MAX)
			return LG_EINVAL;
		N *= n[k]; /* at most 4096 * 4096 before the next check */
		if (N > PAYOFF_ALPHARANK_MAX)
			return LG_EINVAL;
		c += n[k] - 1;
	}
	for (size_t k = 0; k < K; k++)
		for (size_t s = 0; s < N; s++)
			if (!(fabs(tab[k][s]) <=
			      PAYOFF_ALPHARANK_PAYOFF_MAX)) /* NaN too */
				return LG_EINVAL;
	*profiles = N;
	*changes = c;
	return 0;
}

/* The transitions out of every profile into P (N x N, zeroed): for each
 * population k and each other strategy of it, rho / changes. stride[k]
 * is the index step of population k's strategy (row-major profiles, the
 * last population fastest). */
static void multi_transitions(const double *const *tab,
			      const uint32_t *n, size_t K,
			      const struct payoff_alpharank_opts *o, size_t N,
			      size_t changes, double *P)
{
	size_t stride[PAYOFF_ALPHARANK_POPS_MAX];

	stride[K - 1] = 1;
	for (size_t k = K - 1; k > 0; k--)
		stride[k - 1] = stride[k] * n[k];
	for (size_t s = 0; s < N; s++)
		for (size_t k = 0; k < K; k++) {
			size_t own = s / stride[k] % n[k];
			size_t base = s - own * stride[k];
			double fs = tab[k][s];
			for (size_t t = 0; t < n[k]; t++) {
				size_t r = base + t * stride[k];
				double fr = tab[k][r];
				/* at alpha INFINITY, differences within
				 * 1e-12 of the payoffs' size are ties */
				double sc = fmax(fabs(fr), fabs(fs));
				double tol = 1e-12 * (sc > 0 ? sc : 1);
				if (t == own)
					continue;
				P[s * N + r] = payoff_fixation_const(
					fr - fs, o->alpha, tol,
					o->population) / (double)changes;
			}
		}
}

/* Each population's marginal: out[off_k + t] = the mass of the profiles
 * where population k plays t. */
static void multi_marginals(const uint32_t *n, size_t K, size_t N,
			    const double *pi, double *out)
{
	size_t off = 0, stride = N;

	for (size_t k = 0; k < K; k++) {
		stride /= n[k];
		for (size_t t = 0; t < n[k]; t++)
			out[off + t] = 0;
		for (size_t s = 0; s < N; s++)
			out[off + s / stride % n[k]] += pi[s];
		off += n[k];
	}
}

int payoff_alpharank_multi(const double *const *tab, const uint32_t *n,
			   size_t K, const struct payoff_alpharank_opts *o,
			   double *pi_profiles, double *pi_marginal)
{
	double *P = NULL, *pi = NULL;
	size_t N = 0, changes = 0;
	int rc = multi_check(tab, n, K, o, &N, &changes);

	if (rc)
		return rc;
	if (!(pi = malloc(N * sizeof *pi)) ||
	    (N > 1 && !(P = calloc(N * N, sizeof *P)))) {
		rc = LG_ENOMEM;
		goto out;
	}
	if (N == 1) {
		pi[0] = 1;
	} else {
		multi_transitions(tab, n, K, o, N, changes, P);
		if ((rc = payoff_chain_stationary(P, N, pi)))
			goto out;
	}
	for (size_t s = 0; pi_profiles && s < N; s++)
		pi_profiles[s] = pi[s];
	if (pi_marginal)
		multi_marginals(n, K, N, pi, pi_marginal);
out:
	free(P);
	free(pi);
	return rc;
}
