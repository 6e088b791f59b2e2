/*
 * payoff/nash.c: the meta-Nash solver. payoff_nash solves a zero-sum
 * matrix game as a linear program by the simplex method (Bland's rule on
 * a perturbed right-hand side), and payoff_meta_nash applies it to the
 * win-rate matrix of a set of agents of the payoff table (through
 * payoff_matrix, nothing of the table's insides). Its pivot
 * (payoff_pivot) is Lemke-Howson's too (bimatrix.c).
 */
#include "payoff/payoff.h"
#include "payoff/payoff_internal.h"

#include <math.h>
#include <stdlib.h>

/* payoff_nash gives up after this many pivots per row and column. */
#define NASH_PIVOTS_PER_SIDE 200
/* Entries of the table this close to zero count as zero. */
#define NASH_EPS 1e-12

/* Duality gap of (x, y) in A; *v gets x A y. */
static double duality_gap(const double *A, size_t m, size_t n,
			  const double *x, const double *y, double *v)
{
	double best_row = -INFINITY, best_col = INFINITY, val = 0;

	for (size_t i = 0; i < m; i++) {
		double u = 0;
		for (size_t j = 0; j < n; j++)
			u += A[i * n + j] * y[j];
		best_row = LG_MAX(best_row, u);
		val += x[i] * u;
	}
	for (size_t j = 0; j < n; j++) {
		double u = 0;
		for (size_t i = 0; i < m; i++)
			u += x[i] * A[i * n + j];
		best_col = LG_MIN(best_col, u);
	}
	*v = val;
	return best_row - best_col;
}

/* The right-hand side of row i: 1, moved by less than 2e-9 by an
 * irregular (golden-ratio) sequence so no two rows tie in a ratio test. */
static double nash_rhs(size_t i)
{
	return 1 + 1e-9 * (1 + fmod((double)(i + 1) * 0.6180339887498949, 1));
}

/* The starting table T ((m + 1) x w, w = n + m + 1, zeroed by the caller)
 * of the column player's LP on A + c: rows A' | slack identity |
 * right-hand side, the objective row -1 under the n columns, and the
 * slack basis. */
static void nash_table(const double *A, size_t m, size_t n, double c,
		       double *T, size_t *basis)
{
	size_t w = n + m + 1;

	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j < n; j++)
			T[i * w + j] = A[i * n + j] + c;
		T[i * w + n + i] = 1;
		T[i * w + w - 1] = nash_rhs(i);
		basis[i] = n + i;
	}
	for (size_t j = 0; j < n; j++)
		T[m * w + j] = -1;
}

/* Bland's entering column: the lowest whose objective entry is negative;
 * w when there is none (the table is optimal). */
static size_t nash_entering(const double *T, size_t m, size_t w)
{
	for (size_t j = 0; j + 1 < w; j++)
		if (T[m * w + j] < -NASH_EPS)
			return j;
	return w;
}

/* The ratio test on column e: the row with the least ratio, ties to the
 * lowest basic index; m when the column is unbounded. */
static size_t nash_leaving(const double *T, const size_t *basis, size_t m,
			   size_t w, size_t e)
{
	size_t l = m;
	double best = INFINITY;

	for (size_t i = 0; i < m; i++) {
		double a = T[i * w + e], r;
		if (a <= NASH_EPS)
			continue;
		r = T[i * w + w - 1] / a;
		if (r < best - NASH_EPS ||
		    (r <= best + NASH_EPS && l < m && basis[i] < basis[l])) {
			best = r;
			l = i;
		}
	}
	return l;
}

void payoff_pivot(double *T, size_t rows, size_t w, size_t l, size_t e)
{
	double piv = T[l * w + e];

	for (size_t j = 0; j < w; j++)
		T[l * w + j] /= piv;
	for (size_t i = 0; i < rows; i++) {
		double f = T[i * w + e];
		if (i == l || f == 0)
			continue;
		for (size_t j = 0; j < w; j++)
			T[i * w + j] -= f * T[l * w + j];
	}
}

/* Pivot until optimal: 0, or LG_ERANGE past the pivot cap or on an
 * unbounded column (impossible with A' > 0). */
static int nash_solve(double *T, size_t *basis, size_t m, size_t n)
{
	size_t w = n + m + 1;

	for (size_t pivots = 0;; pivots++) {
		size_t e = nash_entering(T, m, w), l;
		if (e == w)
			return 0;
		if (pivots >= NASH_PIVOTS_PER_SIDE * (m + n))
			return LG_ERANGE;
		l = nash_leaving(T, basis, m, w, e);
		if (l == m) /* unbounded: impossible with A' > 0 */
			return LG_ERANGE;
		payoff_pivot(T, m + 1, w, l, e); /* column e enters at row l */
		basis[l] = e;
	}
}

/* Both strategies from the optimal table: y from B^-1 1 (the slack
 * columns' row sums) of the basic columns, x from the objective row under
 * the slacks (the dual), each normalised to sum 1. */
static void nash_read(const double *T, const size_t *basis, size_t m,
		      size_t n, double *x, double *y)
{
	size_t w = n + m + 1;

	for (size_t j = 0; j < n; j++)
		y[j] = 0;
	for (size_t i = 0; i < m; i++)
		if (basis[i] < n) {
			double r = 0; /* (B^-1 1)_i */
			for (size_t k = 0; k < m; k++)
				r += T[i * w + n + k];
			y[basis[i]] = LG_MAX(0.0, r);
		}
	for (size_t i = 0; i < m; i++)
		x[i] = LG_MAX(0.0, T[m * w + n + i]);
	lg_normalize(x, m);
	lg_normalize(y, n);
}

/*
 * With A' = A + c > 0, the column player's LP is: maximise sum(v) subject
 * to A' v <= 1, v >= 0 (standard form, the slack basis is feasible). At the
 * optimum sum(v) = 1 / value(A'), y = v / sum(v), and the row player's
 * strategy is the dual: the objective row's entries under the slacks.
 * Bland's rule (lowest index enters, lowest basic index breaks ratio ties)
 * rules out cycling in exact arithmetic only: on a degenerate table (ties
 * of agents of one kind, pairs that never met) rounding let it pivot in a
 * circle without end. So the right-hand side is perturbed (nash_rhs): no
 * pivot is degenerate, the objective rises at every pivot, the loop ends.
 * The final basis is dual feasible whatever the right-hand side, so x (read
 * from it) is exact; y is B^-1 1 of the unperturbed 1, the slack columns'
 * row sums. A pivot cap far above what was ever seen (13 (m + n)) bounds
 * the time regardless.
 */
int payoff_nash(const double *A, size_t m, size_t n, double *x, double *y,
		double *value, double *gap)
{
	size_t w = n + m + 1, *basis = NULL;
	double *T = NULL, mn = INFINITY, v = 0, gp;
	int rc = 0;

	if (!m || !n || m > PAYOFF_NASH_MAX || n > PAYOFF_NASH_MAX)
		return LG_EINVAL;
	for (size_t k = 0; k < m * n; k++) {
		if (!isfinite(A[k]))
			return LG_EINVAL;
		mn = LG_MIN(mn, A[k]);
	}
	T = calloc((m + 1) * w, sizeof *T);
	basis = malloc(m * sizeof *basis);
	if (!T || !basis) {
		rc = LG_ENOMEM;
		goto out;
	}
	nash_table(A, m, n, 1.0 - mn, T, basis);
	if ((rc = nash_solve(T, basis, m, n)))
		goto out;
	nash_read(T, basis, m, n, x, y);
	gp = duality_gap(A, m, n, x, y, &v);
	if (value)
		*value = v;
	if (gap)
		*gap = gp;
out:
	free(T);
	free(basis);
	return rc;
}

int payoff_meta_nash(const payoff *p, const uint32_t *ids, size_t n,
		     double *x, double *gap)
{
	double *A = NULL, *y = NULL;
	int rc;

	if (!n || n > PAYOFF_NASH_MAX)
		return LG_EINVAL;
	A = malloc(n * n * sizeof *A);
	y = malloc(n * sizeof *y);
	if (!A || !y) {
		rc = LG_ENOMEM;
		goto out;
	}
	if ((rc = payoff_matrix(p, ids, n, A, NULL)))
		goto out;
	for (size_t k = 0; k < n * n; k++)
		A[k] -= 0.5;
	rc = payoff_nash(A, n, n, x, y, NULL, gap);
out:
	free(A);
	free(y);
	return rc;
}
