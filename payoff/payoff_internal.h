/*
 * payoff/payoff_internal.h: what the payoff module's solvers share among
 * their files. Included by the module's own files only; everything
 * outside goes through payoff.h. The sharing:
 *
 *   payoff_pivot         a Gauss-Jordan pivot on a dense table: the
 *                        zero-sum LP's simplex (nash.c) and Lemke-Howson's
 *                        two tableaux (bimatrix.c)
 *   payoff_fixation_const, payoff_chain_stationary
 *                        α-Rank's fixation probability for a fitness
 *                        difference that does not depend on the number
 *                        of mutants, and the exact stationary distribution
 *                        of a chain (GTH): the single-population α-Rank
 *                        (alpharank.c) and the multi-population one
 *                        (alpharank_multi.c)
 */
#ifndef LG_PAYOFF_INTERNAL_H
#define LG_PAYOFF_INTERNAL_H

#include "payoff/payoff.h"

/* Pivot the dense table T (rows x w, row-major) on row l, column e: row l
 * is divided by T[l][e], and column e is cleared from every other row
 * (rows whose entry in column e is exactly 0 are left alone, bit for
 * bit). The caller keeps its own basis bookkeeping. */
void payoff_pivot(double *T, size_t rows, size_t w, size_t l, size_t e);

/*
 * The probability that one mutant takes over a population of m residents
 * under Fermi selection of intensity alpha, when a mutant's fitness
 * exceeds a resident's by d whatever the number of mutants (the
 * multi-population model, where a population's members meet only the
 * other populations): (1 - e^{-alpha d}) / (1 - e^{-m alpha d}), exactly
 * 1/m for d = 0, computed so nothing overflows. alpha INFINITY gives the
 * limit: 1 for d > tol, 0 for d < -tol, 1/m for |d| <= tol (a tie:
 * payoffs that differ by rounding only). */
double payoff_fixation_const(double d, double alpha, double tol, uint32_t m);

/*
 * The stationary distribution pi (n entries, summing to 1) of the Markov
 * chain whose off-diagonal transition probabilities are P (n x n,
 * row-major; the diagonal is ignored), by GTH elimination (entrywise
 * accurate, no tolerance, O(n^3 / 3)). P is overwritten. LG_ENOMEM, or
 * LG_ERANGE when the chain has no single closed class in floating point
 * (no unique stationary distribution).
 */
int payoff_chain_stationary(double *P, size_t n, double *pi);

#endif
