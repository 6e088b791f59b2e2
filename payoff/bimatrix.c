/*
 * payoff/bimatrix.c: the meta-Nash of a two-role general-sum game, the
 * bimatrix (A, B): the row role gets A[i][j] and the column role B[i][j]
 * when the row plays i and the column j.
 *
 * Lemke-Howson (Lemke and Howson 1964, in the tableau form of von
 * Stengel's "Computing equilibria for two-person games", 2002). Both
 * tables are first mapped onto [1, 2] (A' = 1 + (A - min A) / range A,
 * the same for B), which keeps every equilibrium and makes the polytopes
 * P = {x >= 0 : B'^T x <= 1} and Q = {y >= 0 : A' y <= 1} bounded. Label
 * i < m is "row strategy i is unplayed (x_i = 0) or a best response
 * (slack r_i = 0)", label m + j the same for column strategy j. The
 * corner (0, 0) carries every label; dropping label k and pivoting in
 * the two tableaux alternately (the variable that leaves one tableau has
 * its label twice, so its partner enters the other) walks a path of
 * corners missing only k, which ends at a corner pair carrying every
 * label again: a Nash equilibrium, x and y scaled to sum 1. The ratio
 * test is lexicographic (the right-hand side, then the columns of the
 * starting slacks, i.e. the inverse basis, each divided by the pivot
 * column's entry): the perturbation 1 -> 1 + (e, e^2, ...) of the
 * right-hand side carried symbolically, so a degenerate game (a strategy
 * with more best responses than its support) cannot make the path
 * circle. The paths are exponential in the worst case (Savani and von
 * Stengel 2006), so each has a pivot cap; a path that hits it, or whose
 * answer misses an equilibrium by more than rounding, counts as failed.
 *
 * Which equilibrium. A general-sum game may have several equilibria with
 * different payoffs, and which one the league trains against matters.
 * When m + n <= PAYOFF_BIMATRIX_ALL_LABELS_MAX every one of the m + n
 * paths is walked and the equilibrium with the highest sum of the two
 * roles' payoffs is returned, ties to the lowest starting label: where
 * the roles share an interest (a common-payoff or coordination game) that
 * is the best coordinated equilibrium the paths reach, not one a starting
 * label happened to lead to; in a zero-sum game every equilibrium has
 * the same value (and the sum is 0), so the tie rule alone decides.
 * Lemke-Howson reaches only equilibria of index +1 from the corner
 * (0, 0) (a 2 x 2 coordination game's mixed equilibrium is never
 * returned), so this is the best of those reached, not of all. Larger
 * games take the first of labels 0, 1, ... whose path ends within a
 * short cap (path lengths are heavy-tailed: one label's may be 10
 * pivots, the next one's 40,000); beyond PAYOFF_BIMATRIX_LH_MAX (or when
 * every path failed), fictitious play.
 *
 * Fictitious play (Brown 1951): each round both roles play a best
 * response (lowest index on ties) to the other's empirical mixture so
 * far. The empirical mixtures converge to an equilibrium in zero-sum
 * games (Robinson 1951), 2 x n games (Berger 2005) and potential games,
 * not in general (Shapley's 3 x 3 game cycles), so eps reports how far
 * the answer is: the mixtures at rounds 1, 2, 4, ... and the last are
 * measured and the best is returned.
 */
#include "payoff/payoff.h"
#include "payoff/payoff_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lemke-Howson's path gives up after this many pivots per row and
 * column (payoff_bimatrix_lh, and each path when every label is walked)
 * ... */
#define LH_PIVOTS_PER_SIDE 100
/* ... and above PAYOFF_BIMATRIX_ALL_LABELS_MAX, where the first path to
 * end is taken, after this many, over at most LH_MID_LABELS labels (100
 * (m + n) pivots in all). Path lengths are heavy-tailed: on random
 * 200 x 250 games the paths of labels 0..11 took from 10 to over 45,000
 * pivots (the same counts in exact rational arithmetic), and a short one
 * was always among the first few. */
#define LH_MID_PIVOTS_PER_SIDE 4
#define LH_MID_LABELS 25
/* Pivot column entries at or below this count as zero (the tableaux
 * start in [1, 2]). */
#define LH_PIVOT_MIN 1e-12
/* Ratios this close (relative) tie in the lexicographic test. */
#define LH_TIE 1e-12
/* A path's answer counts as an equilibrium when no role gains more than
 * this times the payoffs' scale by deviating. */
#define LH_ACCEPT 1e-9

/* A checked game: its tables and their ranges. */
struct game {
	const double *A, *B;
	size_t m, n;
	double amin, arange, bmin, brange;
	double accept; /* largest gain a path's answer may leave */
};

/* Lemke-Howson's tableaux, columns by label (0..m-1 the row strategies,
 * m..m+n-1 the column ones) and the right-hand side last, w = m + n + 1:
 * tab[0] (n rows): s_j + sum_i B'[i][j] x_i = 1 (x_i label i, s_j label
 * m + j); tab[1] (m rows): r_i + sum_j A'[i][j] y_j = 1 (r_i label i, y_j
 * label m + j). basis[t][row] is the label of the row's basic variable. */
struct lh {
	size_t m, n, w;
	double *tab[2];
	size_t *basis[2];
};

static int game_check(const double *A, const double *B, size_t m, size_t n,
		      struct game *g)
{
	double amax = -INFINITY, bmax = -INFINITY, mag = 0, scale;

	if (!A || !B || !m || !n || m > PAYOFF_BIMATRIX_MAX ||
	    n > PAYOFF_BIMATRIX_MAX)
		return LG_EINVAL;
	g->A = A;
	g->B = B;
	g->m = m;
	g->n = n;
	g->amin = g->bmin = INFINITY;
	for (size_t k = 0; k < m * n; k++) {
		if (!(fabs(A[k]) <= PAYOFF_BIMATRIX_PAYOFF_MAX) ||
		    !(fabs(B[k]) <= PAYOFF_BIMATRIX_PAYOFF_MAX)) /* NaN too */
			return LG_EINVAL;
		g->amin = LG_MIN(g->amin, A[k]);
		amax = LG_MAX(amax, A[k]);
		g->bmin = LG_MIN(g->bmin, B[k]);
		bmax = LG_MAX(bmax, B[k]);
		mag = fmax(mag, fmax(fabs(A[k]), fabs(B[k])));
	}
	g->arange = amax - g->amin;
	g->brange = bmax - g->bmin;
	/* the ranges, or a millionth of the magnitude for a table that is
	 * nearly constant (rounding of payoffs of that size) */
	scale = fmax(fmax(g->arange, g->brange), 1e-6 * mag);
	g->accept = LH_ACCEPT * scale;
	return 0;
}

/*
 * The most either role gains by deviating alone from (x, y): max(max_i
 * (A y)_i - x A y, max_j (x B)_j - x B y), never below 0; *welfare gets
 * x A y + x B y. col holds n doubles of scratch.
 */
static double bimatrix_gain(const struct game *g, const double *x,
			    const double *y, double *col, double *welfare)
{
	size_t m = g->m, n = g->n;
	double best_row = -INFINITY, best_col = -INFINITY, va = 0, vb = 0;

	for (size_t j = 0; j < n; j++)
		col[j] = 0;
	for (size_t i = 0; i < m; i++) {
		const double *a = g->A + i * n, *b = g->B + i * n;
		double u = 0;
		for (size_t j = 0; j < n; j++) {
			u += a[j] * y[j];
			col[j] += x[i] * b[j];
		}
		best_row = LG_MAX(best_row, u);
		va += x[i] * u;
	}
	for (size_t j = 0; j < n; j++) {
		best_col = LG_MAX(best_col, col[j]);
		vb += col[j] * y[j];
	}
	if (welfare)
		*welfare = va + vb;
	return fmax(0, fmax(best_row - va, best_col - vb));
}

/* Frees the tableaux; a second call is a no-op. */
static void lh_free(struct lh *h)
{
	for (int t = 0; t < 2; t++) {
		free(h->tab[t]);
		free(h->basis[t]);
		h->tab[t] = NULL;
		h->basis[t] = NULL;
	}
}

static int lh_alloc(struct lh *h, size_t m, size_t n)
{
	memset(h, 0, sizeof *h);
	h->m = m;
	h->n = n;
	h->w = m + n + 1;
	h->tab[0] = malloc(n * h->w * sizeof(double));
	h->tab[1] = malloc(m * h->w * sizeof(double));
	h->basis[0] = malloc(n * sizeof(size_t));
	h->basis[1] = malloc(m * sizeof(size_t));
	if (!h->tab[0] || !h->tab[1] || !h->basis[0] || !h->basis[1]) {
		lh_free(h);
		return LG_ENOMEM;
	}
	return 0;
}

/* The starting tableaux of g (the corner (0, 0): every slack basic). */
static void lh_init(struct lh *h, const struct game *g)
{
	size_t m = h->m, n = h->n, w = h->w;
	double as = g->arange > 0 ? 1 / g->arange : 0;
	double bs = g->brange > 0 ? 1 / g->brange : 0;

	memset(h->tab[0], 0, n * w * sizeof(double));
	memset(h->tab[1], 0, m * w * sizeof(double));
	for (size_t j = 0; j < n; j++) {
		double *row = h->tab[0] + j * w;
		for (size_t i = 0; i < m; i++)
			row[i] = 1 + (g->B[i * n + j] - g->bmin) * bs;
		row[m + j] = 1;
		row[w - 1] = 1;
		h->basis[0][j] = m + j;
	}
	for (size_t i = 0; i < m; i++) {
		double *row = h->tab[1] + i * w;
		for (size_t j = 0; j < n; j++)
			row[m + j] = 1 + (g->A[i * n + j] - g->amin) * as;
		row[i] = 1;
		row[w - 1] = 1;
		h->basis[1][i] = i;
	}
}

/* Whether row r beats row b in the lexicographic ratio test on column e:
 * the ratios of the right-hand side, then of the slack columns slack0..
 * slack0 + rows - 1 (the inverse basis), to the column's entry. */
static int lh_lex_less(const double *T, size_t w, size_t e, size_t slack0,
		       size_t rows, size_t r, size_t b)
{
	const double *tr = T + r * w, *tb = T + b * w;

	for (size_t c = 0; c <= rows; c++) {
		size_t col = c == 0 ? w - 1 : slack0 + c - 1;
		double qr = tr[col] / tr[e], qb = tb[col] / tb[e];
		double tol = LH_TIE * (1 + fmax(fabs(qr), fabs(qb)));
		if (qr < qb - tol)
			return 1;
		if (qr > qb + tol)
			return 0;
	}
	return 0;
}

/* The leaving row for entering column e of tableau t; rows when no entry
 * of the column is positive (impossible on the bounded polytopes). */
static size_t lh_leaving(const struct lh *h, int t, size_t e)
{
	size_t rows = t ? h->m : h->n, slack0 = t ? 0 : h->m, best = rows;
	const double *T = h->tab[t];

	for (size_t r = 0; r < rows; r++) {
		if (T[r * h->w + e] <= LH_PIVOT_MIN)
			continue;
		if (best == rows ||
		    lh_lex_less(T, h->w, e, slack0, rows, r, best))
			best = r;
	}
	return best;
}

/* The path of dropped label k from the starting tableaux: 0 at its end,
 * LG_ERANGE past cap pivots or on a column with no pivot. */
static int lh_path(struct lh *h, size_t k, size_t cap)
{
	size_t e = k;
	int t = k < h->m ? 0 : 1; /* x_k enters P, y_(k-m) enters Q */

	for (size_t pivots = 0; pivots < cap; pivots++) {
		size_t rows = t ? h->m : h->n, r = lh_leaving(h, t, e), left;
		if (r == rows)
			return LG_ERANGE;
		left = h->basis[t][r];
		payoff_pivot(h->tab[t], rows, h->w, r, e);
		h->basis[t][r] = e;
		if (left == k)
			return 0;
		e = left; /* its label is now missing twice: the partner enters */
		t = !t;
	}
	return LG_ERANGE;
}

/* x and y from the final tableaux (the basic x_i and y_j, scaled to sum
 * 1). LG_ERANGE when either is all zero (the path ended where it began:
 * only rounding could do that). */
static int lh_read(const struct lh *h, double *x, double *y)
{
	size_t m = h->m, n = h->n, w = h->w;
	double sx = 0, sy = 0;

	for (size_t i = 0; i < m; i++)
		x[i] = 0;
	for (size_t j = 0; j < n; j++)
		y[j] = 0;
	for (size_t r = 0; r < n; r++)
		if (h->basis[0][r] < m)
			x[h->basis[0][r]] = fmax(0, h->tab[0][r * w + w - 1]);
	for (size_t r = 0; r < m; r++)
		if (h->basis[1][r] >= m)
			y[h->basis[1][r] - m] =
				fmax(0, h->tab[1][r * w + w - 1]);
	for (size_t i = 0; i < m; i++)
		sx += x[i];
	for (size_t j = 0; j < n; j++)
		sy += y[j];
	if (!(sx > 0) || !(sy > 0))
		return LG_ERANGE;
	lg_normalize(x, m);
	lg_normalize(y, n);
	return 0;
}

/* Label k's path on g (at most cap pivots) into (x, y), its gain and
 * welfare (col: n doubles of scratch). LG_ERANGE when the path failed or
 * its answer is not an equilibrium to g->accept. */
static int lh_solve(struct lh *h, const struct game *g, size_t k, size_t cap,
		    double *x, double *y, double *col, double *gain,
		    double *welfare)
{
	int rc;

	lh_init(h, g);
	if ((rc = lh_path(h, k, cap)) || (rc = lh_read(h, x, y)))
		return rc;
	*gain = bimatrix_gain(g, x, y, col, welfare);
	return *gain <= g->accept ? 0 : LG_ERANGE;
}

int payoff_bimatrix_lh(const double *A, const double *B, size_t m, size_t n,
		       size_t label, size_t max_pivots, double *x, double *y,
		       double *eps)
{
	struct game g;
	struct lh h;
	double *col = NULL, gain = 0, welfare;
	int rc = game_check(A, B, m, n, &g);

	if (rc)
		return rc;
	if (m + n > PAYOFF_BIMATRIX_LH_MAX || label >= m + n)
		return LG_EINVAL;
	if ((rc = lh_alloc(&h, m, n)))
		return rc;
	if (!(col = malloc(n * sizeof *col))) {
		rc = LG_ENOMEM;
		goto out;
	}
	if (!max_pivots)
		max_pivots = LH_PIVOTS_PER_SIDE * (m + n);
	rc = lh_solve(&h, &g, label, max_pivots, x, y, col, &gain, &welfare);
	if (!rc && eps)
		*eps = gain;
out:
	free(col);
	lh_free(&h);
	return rc;
}

/* Lemke-Howson on g: up to the all-labels bound every label's path, the
 * highest welfare kept (ties to the earlier label); above it labels 0,
 * 1, ... (at most LH_MID_LABELS) on short caps, the first path to end
 * kept. 0, or LG_ERANGE when every path failed, LG_ENOMEM. */
static int lh_best(const struct game *g, double *x, double *y, double *eps)
{
	size_t m = g->m, n = g->n;
	int all = m + n <= PAYOFF_BIMATRIX_ALL_LABELS_MAX;
	size_t L = all ? m + n : LG_MIN(m + n, (size_t)LH_MID_LABELS);
	size_t cap = (all ? LH_PIVOTS_PER_SIDE : LH_MID_PIVOTS_PER_SIDE) *
		     (m + n);
	double *cx = malloc(m * sizeof *cx), *cy = malloc(n * sizeof *cy);
	double *col = malloc(n * sizeof *col), best = -INFINITY;
	struct lh h;
	int rc = lh_alloc(&h, m, n), found = 0;

	if (rc || !cx || !cy || !col) {
		rc = LG_ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < L && !(found && !all); k++) {
		double gain, welfare;
		if (lh_solve(&h, g, k, cap, cx, cy, col, &gain, &welfare))
			continue;
		/* a tie within rounding of the payoffs keeps the earlier */
		if (found && welfare <= best + g->accept)
			continue;
		found = 1;
		best = welfare;
		memcpy(x, cx, m * sizeof *x);
		memcpy(y, cy, n * sizeof *y);
		*eps = gain;
	}
	rc = found ? 0 : LG_ERANGE;
out:
	free(cx);
	free(cy);
	free(col);
	lh_free(&h);
	return rc;
}

/* Fictitious play's counts and payoff vectors. */
struct fp {
	double *cx, *cy; /* plays of each strategy */
	double *ur, *uc; /* (A cy)_i, (cx B)_j */
	double *bx, *by, *col;
};

/* The empirical mixtures after t plays, measured; (x, y) and *eps take
 * them when they beat *eps. */
static void fp_checkpoint(const struct game *g, struct fp *f, uint32_t t,
			  double *x, double *y, double *eps)
{
	double gain;

	for (size_t i = 0; i < g->m; i++)
		f->bx[i] = f->cx[i] / t;
	for (size_t j = 0; j < g->n; j++)
		f->by[j] = f->cy[j] / t;
	gain = bimatrix_gain(g, f->bx, f->by, f->col, NULL);
	if (gain < *eps) {
		*eps = gain;
		memcpy(x, f->bx, g->m * sizeof *x);
		memcpy(y, f->by, g->n * sizeof *y);
	}
}

/* The first index of v's maximum. */
static size_t argmax(const double *v, size_t n)
{
	size_t b = 0;

	for (size_t k = 1; k < n; k++)
		if (v[k] > v[b])
			b = k;
	return b;
}

static int fp_solve(const struct game *g, uint32_t iters, double *x,
		    double *y, double *eps)
{
	size_t m = g->m, n = g->n, i = 0, j = 0;
	double *mem = calloc(3 * m + 4 * n, sizeof *mem);
	struct fp f;
	uint32_t next = 1;

	if (!mem)
		return LG_ENOMEM;
	f.cx = mem;
	f.ur = mem + m;
	f.bx = mem + 2 * m;
	f.cy = mem + 3 * m;
	f.uc = f.cy + n;
	f.by = f.cy + 2 * n;
	f.col = f.cy + 3 * n;
	*eps = INFINITY;
	for (uint32_t t = 1; t <= iters; t++) {
		/* play (i, j): both best responses to the counts so far,
		 * (0, 0) first */
		f.cx[i] += 1;
		f.cy[j] += 1;
		for (size_t r = 0; r < m; r++)
			f.ur[r] += g->A[r * n + j];
		for (size_t c = 0; c < n; c++)
			f.uc[c] += g->B[i * n + c];
		if (t == next || t == iters) {
			fp_checkpoint(g, &f, t, x, y, eps);
			next = next > UINT32_MAX / 2 ? UINT32_MAX : 2 * next;
		}
		i = argmax(f.ur, m);
		j = argmax(f.uc, n);
	}
	free(mem);
	return 0;
}

int payoff_bimatrix_fp(const double *A, const double *B, size_t m, size_t n,
		       uint32_t iters, double *x, double *y, double *eps)
{
	struct game g;
	double e;
	int rc = game_check(A, B, m, n, &g);

	if (rc)
		return rc;
	if (!iters)
		return LG_EINVAL;
	if ((rc = fp_solve(&g, iters, x, y, &e)))
		return rc;
	if (eps)
		*eps = e;
	return 0;
}

int payoff_bimatrix_nash(const double *A, const double *B, size_t m,
			 size_t n, double *x, double *y, double *eps)
{
	struct game g;
	double e = 0;
	int rc = game_check(A, B, m, n, &g);

	if (rc)
		return rc;
	rc = LG_ERANGE;
	if (m + n <= PAYOFF_BIMATRIX_LH_MAX)
		rc = lh_best(&g, x, y, &e);
	if (rc == LG_ERANGE)
		rc = fp_solve(&g, PAYOFF_BIMATRIX_FP_ITERS, x, y, &e);
	if (!rc && eps)
		*eps = e;
	return rc;
}
