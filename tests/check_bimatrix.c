/* tests/check_bimatrix.c: the meta-Nash of a two-role general-sum game
 * (payoff/bimatrix.c). Hand cases whose equilibria are known: matching
 * pennies (unique, mixed), battle of the sexes (three: which one each
 * Lemke-Howson path reaches and which one is returned), a coordination
 * game where the welfare rule picks another equilibrium than label 0's
 * path, degenerate games (von Stengel's 3 x 2 example, an all-zero
 * table, a duplicated strategy), 1 x n and m x 1 games; zero-sum games
 * against payoff_nash's value; every equilibrium of random games by
 * support enumeration (tests/ref/meta_ref.py, numpy) and zero-sum values
 * by scipy's linprog; fictitious play where it converges (zero-sum) and
 * where it does not (Shapley's game); the medium tables' rule (the first
 * short path) and the large tables' fictitious play; errors. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "payoff/payoff.h"
#include "tests/testutil.h"
#include "util/util.h"

/* The most either role gains by deviating from (x, y), computed here
 * apart from the solver; *welfare gets x A y + x B y. */
static double gain(const double *A, const double *B, size_t m, size_t n,
		   const double *x, const double *y, double *welfare)
{
	double br = -INFINITY, bc = -INFINITY, va = 0, vb = 0;

	for (size_t i = 0; i < m; i++) {
		double u = 0;
		for (size_t j = 0; j < n; j++)
			u += A[i * n + j] * y[j];
		br = fmax(br, u);
		va += x[i] * u;
	}
	for (size_t j = 0; j < n; j++) {
		double u = 0;
		for (size_t i = 0; i < m; i++)
			u += x[i] * B[i * n + j];
		bc = fmax(bc, u);
		vb += u * y[j];
	}
	if (welfare)
		*welfare = va + vb;
	return fmax(br - va, bc - vb);
}

/* x is a probability vector. */
static void assert_simplex(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++) {
		ck_assert(x[i] >= 0);
		s += x[i];
	}
	ck_assert_double_eq_tol(s, 1, 1e-12);
}

static void assert_vec(const double *got, const double *want, size_t n,
		       double tol)
{
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(fabs(got[i] - want[i]) <= tol,
			      "entry %zu: %.17g, want %.17g", i, got[i],
			      want[i]);
}

/* Matching pennies: the only equilibrium is (1/2, 1/2) for both, and
 * every label's path reaches it. */
START_TEST(matching_pennies)
{
	const double A[4] = { 1, -1, -1, 1 }, B[4] = { -1, 1, 1, -1 };
	const double half[2] = { 0.5, 0.5 };
	double x[2], y[2], eps = -1;

	ck_assert_int_eq(payoff_bimatrix_nash(A, B, 2, 2, x, y, &eps), 0);
	assert_vec(x, half, 2, 1e-15);
	assert_vec(y, half, 2, 1e-15);
	ck_assert(eps >= 0 && eps <= 1e-15);
	for (size_t k = 0; k < 4; k++) {
		ck_assert_int_eq(payoff_bimatrix_lh(A, B, 2, 2, k, 0, x, y, &eps),
				 0);
		assert_vec(x, half, 2, 1e-15);
		assert_vec(y, half, 2, 1e-15);
	}
}
END_TEST

/*
 * Battle of the sexes: A = [[3, 0], [0, 2]], B = [[2, 0], [0, 3]]. Three
 * equilibria: (O, O) paying (3, 2), (F, F) paying (2, 3), and the mixed
 * x = (3/5, 2/5), y = (2/5, 3/5) paying 6/5 each. Dropping label 0 (row
 * O) or 2 (column O) ends at (O, O), labels 1 and 3 at (F, F); the mixed
 * one has index -1 and no path from (0, 0) reaches it. Both pure ones
 * have welfare 5, so the tie goes to the lowest label: (O, O).
 */
START_TEST(battle_of_the_sexes)
{
	const double A[4] = { 3, 0, 0, 2 }, B[4] = { 2, 0, 0, 3 };
	const double O[2] = { 1, 0 }, F[2] = { 0, 1 };
	const double mx[2] = { 0.6, 0.4 }, my[2] = { 0.4, 0.6 };
	double x[2], y[2], eps, w;

	ck_assert_double_eq_tol(gain(A, B, 2, 2, mx, my, &w), 0, 1e-15);
	ck_assert_double_eq_tol(w, 2.4, 1e-15);
	for (size_t k = 0; k < 4; k++) {
		const double *want = k % 2 == 0 ? O : F;
		ck_assert_int_eq(payoff_bimatrix_lh(A, B, 2, 2, k, 0, x, y, &eps),
				 0);
		assert_vec(x, want, 2, 0);
		assert_vec(y, want, 2, 0);
		ck_assert_double_eq(eps, 0);
	}
	ck_assert_int_eq(payoff_bimatrix_nash(A, B, 2, 2, x, y, &eps), 0);
	assert_vec(x, O, 2, 0);
	assert_vec(y, O, 2, 0);
	ck_assert_double_eq(eps, 0);
}
END_TEST

/* A coordination game with a better and a worse pure equilibrium, both
 * roles paid alike: label 0's path ends at the worse (0, 0) (welfare 2),
 * label 1's at (1, 1) (welfare 4); the solver returns (1, 1). */
START_TEST(coordination_welfare)
{
	const double A[4] = { 1, 0, 0, 2 };
	const double e0[2] = { 1, 0 }, e1[2] = { 0, 1 };
	double x[2], y[2], eps;

	ck_assert_int_eq(payoff_bimatrix_lh(A, A, 2, 2, 0, 0, x, y, &eps), 0);
	assert_vec(x, e0, 2, 0);
	assert_vec(y, e0, 2, 0);
	ck_assert_int_eq(payoff_bimatrix_lh(A, A, 2, 2, 1, 0, x, y, &eps), 0);
	assert_vec(x, e1, 2, 0);
	ck_assert_int_eq(payoff_bimatrix_nash(A, A, 2, 2, x, y, &eps), 0);
	assert_vec(x, e1, 2, 0);
	assert_vec(y, e1, 2, 0);
}
END_TEST

/*
 * Degenerate games, where a mixture has more best replies than its
 * support: the ratio test ties, and only the lexicographic rule keeps the
 * path from circling. von Stengel's 3 x 2 example (row 0 against column
 * 0 or 1 has two best replies) has a continuum x = (1, 0, 0), y = (p,
 * 1-p) for p >= 2/3, and the mixed x = (0, 1/3, 2/3), y = (1/3, 2/3)
 * (welfare 4 + 8/3, above the continuum's 6 at most); an all-zero table
 * (every profile an equilibrium); rock-paper-scissors with rock twice
 * (value 0). Every path must end at an equilibrium.
 */
START_TEST(degenerate)
{
	const double A[6] = { 3, 3, 2, 5, 0, 6 }, B[6] = { 3, 2, 2, 6, 3, 1 };
	const double wx[3] = { 0, 1.0 / 3, 2.0 / 3 }, wy[2] = { 1.0 / 3,
							       2.0 / 3 };
	const double Z[9] = { 0 };
	const double R[12] = { 0, -1, 1, 0, -1, 1, 1, 0, -1, -1, 1, 0 };
	double x[4], y[4], R2[12], eps, v;

	for (size_t k = 0; k < 5; k++) {
		ck_assert_int_eq(payoff_bimatrix_lh(A, B, 3, 2, k, 0, x, y, &eps),
				 0);
		ck_assert(gain(A, B, 3, 2, x, y, NULL) <= 1e-14);
	}
	ck_assert_int_eq(payoff_bimatrix_nash(A, B, 3, 2, x, y, &eps), 0);
	assert_vec(x, wx, 3, 1e-15);
	assert_vec(y, wy, 2, 1e-15);
	ck_assert(gain(A, B, 3, 2, x, y, &v) <= 1e-14);
	ck_assert_double_eq_tol(v, 4 + 8.0 / 3, 1e-14);

	ck_assert_int_eq(payoff_bimatrix_nash(Z, Z, 3, 3, x, y, &eps), 0);
	assert_simplex(x, 3);
	assert_simplex(y, 3);
	ck_assert_double_eq(eps, 0);

	for (size_t k = 0; k < 12; k++)
		R2[k] = -R[k];
	for (size_t k = 0; k < 7; k++) {
		ck_assert_int_eq(payoff_bimatrix_lh(R, R2, 4, 3, k, 0, x, y, &eps),
				 0);
		ck_assert(gain(R, R2, 4, 3, x, y, NULL) <= 1e-14);
		ck_assert_double_eq_tol(x[0] + x[1], 1.0 / 3, 1e-14);
	}
}
END_TEST

/* One role with one strategy: the other best-responds. A 1 x 3 game
 * where column 1 pays the column role most; a 3 x 1 game where row 2
 * pays the row role most; and a 1 x 3 game whose columns 0 and 1 tie
 * for the column role: every path's lexicographic tie-break leaves
 * through column 1 (the row's payoff plays no part in a path), so column
 * 1 is returned though column 0 would pay the row role more: the rule
 * picks the best of what the paths reach. */
START_TEST(one_strategy)
{
	const double A[3] = { 5, 0, 7 }, B[3] = { 1, 3, 2 }, Bt[3] = { 2, 2,
									1 };
	const double e1[3] = { 0, 1, 0 }, e2[3] = { 0, 0, 1 };
	double x[3], y[3], eps;

	ck_assert_int_eq(payoff_bimatrix_nash(A, B, 1, 3, x, y, &eps), 0);
	ck_assert_double_eq(x[0], 1);
	assert_vec(y, e1, 3, 0);
	ck_assert_double_eq(eps, 0);
	ck_assert_int_eq(payoff_bimatrix_nash(A, B, 3, 1, x, y, &eps), 0);
	assert_vec(x, e2, 3, 0);
	ck_assert_double_eq(y[0], 1);
	ck_assert_int_eq(payoff_bimatrix_nash(A, Bt, 1, 3, x, y, &eps), 0);
	assert_vec(y, e1, 3, 0);
	ck_assert_double_eq(eps, 0);
}
END_TEST

/* Zero-sum games (B = -A) of random sizes: the equilibrium's value x A y
 * is payoff_nash's, to 1e-9. */
START_TEST(zero_sum_agrees)
{
	lg_rng r;
	double A[64], B[64], x[8], y[8], nx[8], ny[8], v, eps, w;

	lg_rng_seed(&r, 39);
	for (int t = 0; t < 200; t++) {
		size_t m = 1 + lg_rng_below(&r, 8), n = 1 + lg_rng_below(&r, 8);
		double val = 0;
		for (size_t k = 0; k < m * n; k++) {
			A[k] = lg_rng_double(&r) * 2 - 1;
			B[k] = -A[k];
		}
		ck_assert_int_eq(payoff_nash(A, m, n, nx, ny, &v, NULL), 0);
		ck_assert_int_eq(payoff_bimatrix_nash(A, B, m, n, x, y, &eps),
				 0);
		ck_assert(eps <= 1e-9);
		ck_assert(gain(A, B, m, n, x, y, &w) <= 1e-9);
		ck_assert_double_eq_tol(w, 0, 1e-12);
		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++)
				val += x[i] * A[i * n + j] * y[j];
		ck_assert_msg(fabs(val - v) <= 1e-9, "%zux%zu: %.17g vs %.17g",
			      m, n, val, v);
	}
}
END_TEST

/* Reads meta_ref.py's records; cmd is the script's arguments. */
static FILE *ref_open(const char *args)
{
	char cmd[1024];
	FILE *f;

	snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/ref/meta_ref.py %s",
		 tu_src_dir(), args);
	f = popen(cmd, "r");
	ck_assert_msg(f != NULL, "%s", cmd);
	return f;
}

/* One reference game: its tables, and whether (x, y) is one of its
 * listed equilibria to 1e-9. */
struct ref_game {
	size_t m, n, neq;
	double A[36], B[36], eq[64][12];
};

static int ref_has(const struct ref_game *g, const double *x,
		   const double *y)
{
	for (size_t e = 0; e < g->neq; e++) {
		double d = 0;
		for (size_t i = 0; i < g->m; i++)
			d = fmax(d, fabs(x[i] - g->eq[e][i]));
		for (size_t j = 0; j < g->n; j++)
			d = fmax(d, fabs(y[j] - g->eq[e][g->m + j]));
		if (d <= 1e-9)
			return 1;
	}
	return 0;
}

/* The solver's answer and every path's are among the game's equilibria
 * (support enumeration lists them all), each exact (eps <= 1e-9), and
 * the answer has the highest welfare of the paths' ends. */
static void ref_check(const struct ref_game *g)
{
	double x[6], y[6], eps, w, best = -INFINITY;

	for (size_t k = 0; k < g->m + g->n; k++) {
		ck_assert_int_eq(payoff_bimatrix_lh(g->A, g->B, g->m, g->n, k,
						    0, x, y, &eps), 0);
		ck_assert(ref_has(g, x, y));
		gain(g->A, g->B, g->m, g->n, x, y, &w);
		best = fmax(best, w);
	}
	ck_assert_int_eq(payoff_bimatrix_nash(g->A, g->B, g->m, g->n, x, y,
					      &eps), 0);
	ck_assert_msg(ref_has(g, x, y), "%zux%zu: not an equilibrium of the "
		      "reference's %zu", g->m, g->n, g->neq);
	ck_assert(eps <= 1e-9);
	ck_assert(gain(g->A, g->B, g->m, g->n, x, y, &w) <= 1e-9);
	ck_assert_double_eq_tol(w, best, 1e-9);
}

START_TEST(reference_equilibria)
{
	static struct ref_game g;
	FILE *f = ref_open("bimatrix 39 60");
	char *line = NULL;
	size_t cap = 0, games = 0, eqs = 0;

	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "game %zu %zu", &g.m, &g.n) == 2) {
			ck_assert(g.m * g.n <= 36 && g.m <= 6 && g.n <= 6);
			g.neq = 0;
		} else if (!strncmp(line, "A ", 2)) {
			ck_assert_uint_eq(tu_parse_doubles(line + 2, g.A, 36),
					  g.m * g.n);
		} else if (!strncmp(line, "B ", 2)) {
			ck_assert_uint_eq(tu_parse_doubles(line + 2, g.B, 36),
					  g.m * g.n);
		} else if (!strncmp(line, "eq ", 3)) {
			ck_assert(g.neq < 64);
			ck_assert_uint_eq(tu_parse_doubles(line + 3,
							   g.eq[g.neq++], 12),
					  g.m + g.n);
			eqs++;
		} else if (!strncmp(line, "end", 3)) {
			ref_check(&g);
			games++;
		}
	}
	free(line);
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_uint_eq(games, 60);
	ck_assert_uint_gt(eqs, games); /* some games have several */
}
END_TEST

/* Zero-sum games against scipy's linprog value: payoff_nash's value and
 * the bimatrix equilibrium's x A y both equal it to 1e-9. */
START_TEST(reference_zero_sum)
{
	FILE *f = ref_open("zerosum 40 24");
	char *line = NULL;
	size_t cap = 0, m = 0, n = 0, games = 0;
	double A[36], B[36], x[6], y[6], ref, v, eps;

	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "zgame %zu %zu", &m, &n) == 2) {
			ck_assert(m <= 6 && n <= 6);
		} else if (!strncmp(line, "A ", 2)) {
			ck_assert_uint_eq(tu_parse_doubles(line + 2, A, 36),
					  m * n);
		} else if (sscanf(line, "value %lf", &ref) == 1) {
			double val = 0;
			for (size_t k = 0; k < m * n; k++)
				B[k] = -A[k];
			ck_assert_int_eq(payoff_nash(A, m, n, x, y, &v, NULL),
					 0);
			ck_assert_double_eq_tol(v, ref, 1e-9);
			ck_assert_int_eq(payoff_bimatrix_nash(A, B, m, n, x, y,
							      &eps), 0);
			for (size_t i = 0; i < m; i++)
				for (size_t j = 0; j < n; j++)
					val += x[i] * A[i * n + j] * y[j];
			ck_assert_double_eq_tol(val, ref, 1e-9);
			games++;
		}
	}
	free(line);
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_uint_eq(games, 24);
}
END_TEST

/*
 * Fictitious play. On rock-paper-scissors (zero-sum) it converges: eps
 * falls with the rounds (by at least 3x from 1,000 to 100,000 rounds)
 * and is what the mixtures leave, measured apart. On Shapley's game
 * (A the identity, B the identity shifted by one column) the empirical
 * mixtures circle the unique equilibrium (1/3, 1/3, 1/3) without
 * reaching it: eps stays above 0.1, and says so, while Lemke-Howson
 * finds the equilibrium exactly.
 */
START_TEST(fictitious_play)
{
	const double R[9] = { 0, -1, 1, 1, 0, -1, -1, 1, 0 };
	const double SA[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
	const double SB[9] = { 0, 1, 0, 0, 0, 1, 1, 0, 0 };
	const double third[3] = { 1.0 / 3, 1.0 / 3, 1.0 / 3 };
	double R2[9], x[3], y[3], e3, e5;

	for (int k = 0; k < 9; k++)
		R2[k] = -R[k];
	ck_assert_int_eq(payoff_bimatrix_fp(R, R2, 3, 3, 1000, x, y, &e3), 0);
	ck_assert_int_eq(payoff_bimatrix_fp(R, R2, 3, 3, 100000, x, y, &e5),
			 0);
	assert_simplex(x, 3);
	assert_simplex(y, 3);
	ck_assert_double_eq_tol(gain(R, R2, 3, 3, x, y, NULL), e5, 1e-15);
	ck_assert_msg(e5 < e3 / 3 && e5 < 0.01, "eps %g then %g", e3, e5);
	ck_assert_int_eq(payoff_bimatrix_fp(SA, SB, 3, 3, 100000, x, y, &e5),
			 0);
	ck_assert_double_eq_tol(gain(SA, SB, 3, 3, x, y, NULL), e5, 1e-15);
	ck_assert_msg(e5 > 0.1, "eps %g", e5);
	ck_assert_int_eq(payoff_bimatrix_nash(SA, SB, 3, 3, x, y, &e5), 0);
	assert_vec(x, third, 3, 1e-15);
	assert_vec(y, third, 3, 1e-15);
	ck_assert(e5 <= 1e-15);
}
END_TEST

/*
 * The size tiers. 40 x 40 (m + n = 80, over the all-labels bound): the
 * answer is the first of labels 0, 1, ... whose path ends within 4 (m +
 * n) = 320 pivots, bit for bit; in this game (seed 207) the paths of
 * labels 0 and 1 are longer (label 0's ends when let run), label 2's is
 * short. 300 x 300 zero-sum (m + n = 600, over Lemke-Howson's bound):
 * fictitious play, whose eps is the measured gain and whose value is
 * within eps of payoff_nash's.
 */
START_TEST(size_tiers)
{
	enum { M = 40, L = 300 };
	double *A = malloc(L * L * sizeof *A), *B = malloc(L * L * sizeof *B);
	double x[L], y[L], nx[L], ny[L], lx[M], ly[M], eps, leps, v, val = 0;
	const size_t cap = 4 * (M + M);
	lg_rng r;

	ck_assert(M + M > PAYOFF_BIMATRIX_ALL_LABELS_MAX &&
		  M + M <= PAYOFF_BIMATRIX_LH_MAX &&
		  L + L > PAYOFF_BIMATRIX_LH_MAX);
	lg_rng_seed(&r, 207);
	for (size_t k = 0; k < M * M; k++) {
		A[k] = lg_rng_double(&r);
		B[k] = lg_rng_double(&r);
	}
	ck_assert_int_eq(payoff_bimatrix_nash(A, B, M, M, x, y, &eps), 0);
	ck_assert(eps <= 1e-9);
	ck_assert_int_eq(payoff_bimatrix_lh(A, B, M, M, 0, cap, lx, ly, &leps),
			 LG_ERANGE);
	ck_assert_int_eq(payoff_bimatrix_lh(A, B, M, M, 1, cap, lx, ly, &leps),
			 LG_ERANGE);
	ck_assert_int_eq(payoff_bimatrix_lh(A, B, M, M, 0, 0, lx, ly, &leps),
			 0);
	ck_assert_int_eq(payoff_bimatrix_lh(A, B, M, M, 2, cap, lx, ly, &leps),
			 0);
	ck_assert_mem_eq(x, lx, sizeof lx);
	ck_assert_mem_eq(y, ly, sizeof ly);
	for (size_t k = 0; k < L * L; k++) {
		A[k] = lg_rng_double(&r) * 2 - 1;
		B[k] = -A[k];
	}
	ck_assert_int_eq(payoff_bimatrix_nash(A, B, L, L, x, y, &eps), 0);
	ck_assert_double_eq_tol(gain(A, B, L, L, x, y, NULL), eps, 1e-12);
	ck_assert_msg(eps > 1e-9 && eps < 0.05, "eps %g", eps);
	for (size_t i = 0; i < L; i++)
		for (size_t j = 0; j < L; j++)
			val += x[i] * A[i * L + j] * y[j];
	ck_assert_int_eq(payoff_nash(A, L, L, nx, ny, &v, NULL), 0);
	ck_assert_msg(fabs(val - v) <= eps, "%g vs %g (eps %g)", val, v, eps);
	free(A);
	free(B);
}
END_TEST

START_TEST(bad_input)
{
	double A[4] = { 1, 2, 3, 4 }, B[4] = { 4, 3, 2, 1 }, x[4], y[4], e;
	const double bad[] = { NAN, INFINITY, -INFINITY, 1e151 };

	for (size_t b = 0; b < LG_ARRAY_LEN(bad); b++) {
		double keep = A[2];
		A[2] = bad[b];
		ck_assert_int_eq(payoff_bimatrix_nash(A, B, 2, 2, x, y, &e),
				 LG_EINVAL);
		ck_assert_int_eq(payoff_bimatrix_lh(A, B, 2, 2, 0, 0, x, y, &e),
				 LG_EINVAL);
		ck_assert_int_eq(payoff_bimatrix_fp(A, B, 2, 2, 10, x, y, &e),
				 LG_EINVAL);
		A[2] = keep;
		B[1] = bad[b];
		ck_assert_int_eq(payoff_bimatrix_nash(A, B, 2, 2, x, y, &e),
				 LG_EINVAL);
		B[1] = 3;
	}
	ck_assert_int_eq(payoff_bimatrix_nash(A, B, 0, 2, x, y, &e),
			 LG_EINVAL);
	ck_assert_int_eq(payoff_bimatrix_nash(A, B, 2, 0, x, y, &e),
			 LG_EINVAL);
	ck_assert_int_eq(payoff_bimatrix_nash(A, B, PAYOFF_BIMATRIX_MAX + 1,
					      1, x, y, &e), LG_EINVAL);
	ck_assert_int_eq(payoff_bimatrix_nash(A, B, 1, PAYOFF_BIMATRIX_MAX + 1,
					      x, y, &e), LG_EINVAL);
	ck_assert_int_eq(payoff_bimatrix_nash(NULL, B, 2, 2, x, y, &e),
			 LG_EINVAL);
	ck_assert_int_eq(payoff_bimatrix_nash(A, NULL, 2, 2, x, y, &e),
			 LG_EINVAL);
	ck_assert_int_eq(payoff_bimatrix_lh(A, B, 2, 2, 4, 0, x, y, &e),
			 LG_EINVAL);
	ck_assert_int_eq(payoff_bimatrix_fp(A, B, 2, 2, 0, x, y, &e),
			 LG_EINVAL);
	{
		size_t side = PAYOFF_BIMATRIX_LH_MAX; /* m + n one over */
		double *big = calloc(side, sizeof *big), *bx = malloc(
			side * sizeof *bx);
		ck_assert_int_eq(payoff_bimatrix_lh(big, big, 1, side, 0, 0, bx,
						    bx, &e), LG_EINVAL);
		ck_assert_int_eq(payoff_bimatrix_lh(big, big, 1, side - 1, 0,
						    0, x, bx, &e), 0);
		free(big);
		free(bx);
	}
	/* the good game still solves: its row 1 dominates (3 > 1, 4 > 2),
	 * so column 0 answers (B 2 > 1) */
	ck_assert_int_eq(payoff_bimatrix_nash(A, B, 2, 2, x, y, &e), 0);
	ck_assert_double_eq(x[1], 1);
	ck_assert_double_eq(y[0], 1);
}
END_TEST

Suite *suite_bimatrix(void)
{
	Suite *s = suite_create("bimatrix");
	const struct tu_test hand_tests[] = {
		{ matching_pennies, 1 },
		{ battle_of_the_sexes, 1 },
		{ coordination_welfare, 1 },
		{ degenerate, 1 },
		{ one_strategy, 1 },
		{ zero_sum_agrees, 1 },
		{ fictitious_play, 1 },
		{ size_tiers, 1 },
		{ bad_input, 1 },
	};
	const struct tu_test ref_tests[] = {
		{ reference_equilibria, 1 },
		{ reference_zero_sum, 1 },
	};

	TU_TCASE(s, "hand", 60, hand_tests);
	TU_TCASE(s, "reference", 120, ref_tests);
	return s;
}
