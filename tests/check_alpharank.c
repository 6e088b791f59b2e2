/* tests/check_alpharank.c: α-Rank (payoff/alpharank.c) on games whose
 * answer is known: rock-paper-scissors is uniform at every alpha; a
 * transitive game puts the mass on its top strategy; a game with linear
 * payoffs has a closed-form (Boltzmann) answer that the solver must meet
 * in relative terms down to masses of 1e-44; OpenSpiel's published
 * example (Han et al. 2013, m = 20, alpha = 0.1) and the same game at
 * alpha 100 and infinity; fixation probabilities against the paper's
 * formula summed naively; stationarity of the result on a random league;
 * errors. And `league ratings --alpha-rank` on a simulated league: the
 * table column, the JSON fields, the options and their errors. The
 * multi-population model (payoff/alpharank_multi.c): two 2 x 2 games by
 * hand, random potential games (a closed form), the relation to the
 * single-population model on symmetric games, random 2- and 3-role games
 * against tests/ref/meta_ref.py's numpy chain, errors. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "payoff/payoff.h"
#include "tests/testutil.h"
#include "util/util.h"

static struct payoff_alpharank_opts opts(double alpha, uint32_t m)
{
	struct payoff_alpharank_opts o = { alpha, m };
	return o;
}

/* Rock-paper-scissors as win rates (1/2 against itself): by symmetry
 * every strategy has 1/3, whatever alpha and m. */
START_TEST(rps_uniform)
{
	const double M[9] = { 0.5, 0, 1, 1, 0.5, 0, 0, 1, 0.5 };
	const double alphas[] = { 0, 0.1, 1, 100, 1e4, 1e8, INFINITY };
	const uint32_t pops[] = { 2, 50, 1000 };
	double pi[3];

	for (size_t a = 0; a < LG_ARRAY_LEN(alphas); a++)
		for (size_t k = 0; k < LG_ARRAY_LEN(pops); k++) {
			struct payoff_alpharank_opts o =
				opts(alphas[a], pops[k]);
			ck_assert_int_eq(payoff_alpharank(M, 3, &o, pi), 0);
			for (int i = 0; i < 3; i++)
				ck_assert_msg(fabs(pi[i] - 1.0 / 3) < 1e-12,
					      "alpha %g m %u: pi[%d] = %.17g",
					      alphas[a], pops[k], i, pi[i]);
		}
}
END_TEST

/* Strategy i beats j 60:40 when i < j. The chain drains into strategy 0:
 * at alpha 100 (m 50) each step against selection costs e^-500 or less,
 * so everything but pi[0] is below 1e-200; at infinity exactly (1, 0,
 * ...); at alpha 0 (neutral drift) uniform; in between the mass still
 * falls with the rank. */
START_TEST(transitive_top)
{
	enum { N = 6 };
	double M[N * N], pi[N];
	struct payoff_alpharank_opts o;

	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			M[i * N + j] = i == j ? 0.5 : i < j ? 0.6 : 0.4;
	o = opts(100, 50);
	ck_assert_int_eq(payoff_alpharank(M, N, &o, pi), 0);
	ck_assert_double_eq(pi[0], 1);
	for (int i = 1; i < N; i++)
		ck_assert(pi[i] >= 0 && pi[i] < 1e-200);
	o = opts(INFINITY, 50);
	ck_assert_int_eq(payoff_alpharank(M, N, &o, pi), 0);
	ck_assert_double_eq(pi[0], 1);
	for (int i = 1; i < N; i++)
		ck_assert_double_eq(pi[i], 0);
	o = opts(0, 50);
	ck_assert_int_eq(payoff_alpharank(M, N, &o, pi), 0);
	for (int i = 0; i < N; i++)
		ck_assert_double_eq_tol(pi[i], 1.0 / N, 1e-15);
	o = opts(0.5, 50);
	ck_assert_int_eq(payoff_alpharank(M, N, &o, pi), 0);
	ck_assert(pi[0] > 0.5);
	for (int i = 1; i < N; i++)
		ck_assert(pi[i] < pi[i - 1]);
}
END_TEST

/*
 * M[i][j] = 1/2 + s_i - s_j (constant-sum, payoff linear in strength).
 * For a mutant i among j the fixation exponent per step is x = alpha m /
 * (m-1) (s_i - s_j), and rho(j -> i) / rho(i -> j) = e^{(m-1) x}: the
 * chain satisfies detailed balance with pi_i proportional to
 * exp(alpha m s_i). A closed form to hold the solver to, in relative
 * terms, on masses from 1 down to e^-100 (alpha 10) and through e^-500
 * (alpha 100, where the last two underflow to 0).
 */
START_TEST(boltzmann_exact)
{
	enum { N = 5 };
	const double s[N] = { 0.2, 0.15, 0.1, 0.05, 0 };
	const double alphas[] = { 1, 10, 100 };
	const uint32_t m = 50;
	double M[N * N], pi[N];

	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			M[i * N + j] = 0.5 + (s[i] - s[j]);
	for (size_t a = 0; a < LG_ARRAY_LEN(alphas); a++) {
		struct payoff_alpharank_opts o = opts(alphas[a], m);
		double z = 0, want[N];
		for (int i = 0; i < N; i++)
			z += want[i] = exp(alphas[a] * m * (s[i] - s[0]));
		ck_assert_int_eq(payoff_alpharank(M, N, &o, pi), 0);
		for (int i = 0; i < N; i++) {
			want[i] /= z;
			if (want[i] < 1e-300) {
				ck_assert(pi[i] < 1e-290);
				continue;
			}
			ck_assert_msg(fabs(pi[i] / want[i] - 1) < 1e-9,
				      "alpha %g: pi[%d] = %.17g, want %.17g",
				      alphas[a], i, pi[i], want[i]);
		}
	}
}
END_TEST

/*
 * The published example: OpenSpiel's
 * open_spiel/python/egt/alpharank_test.py, test_stationary_distribution
 * (payoffs of Han et al. 2013 with r 1, t 2, p 0, s -1, delta 4,
 * eps 1/4; a general-sum game), m = 20, alpha = 0.1, whose expected pi
 * (8 digits there) we meet to 5e-8. At alpha 100 and as alpha -> infinity
 * the references are ours: the paper's formulas evaluated by mpmath with
 * 60 significant digits (the chain solved by LU in that precision), the
 * limit confirmed at alpha 1e4, where it equals (25/66, 25/198, 23/99,
 * 13/99, 13/99) to 17 digits.
 */
START_TEST(published_example)
{
	const double r = 1, t = 2, p = 0, s = -1, delta = 4, eps = 0.25;
	const double M[25] = {
		r - eps / 2, r - eps, 0, s + delta - eps, r - eps,
		r, r, s, s, s,
		0, t, p, p, p,
		t - delta, t, p, p, p,
		r, t, p, p, p,
	};
	const double open_spiel[5] = { 0.40966787, 0.07959841, 0.20506998,
				       0.08505983, 0.2206039 };
	const double at100[5] = { 0.37838427937285195, 0.1261278496739649,
				  0.23304918708948914, 0.13121934193184701,
				  0.13121934193184701 };
	const double limit[5] = { 25.0 / 66, 25.0 / 198, 23.0 / 99,
				  13.0 / 99, 13.0 / 99 };
	struct payoff_alpharank_opts o = opts(0.1, 20);
	double pi[5];

	ck_assert_int_eq(payoff_alpharank(M, 5, &o, pi), 0);
	for (int i = 0; i < 5; i++)
		ck_assert_double_eq_tol(pi[i], open_spiel[i], 5e-8);
	o = opts(100, 20);
	ck_assert_int_eq(payoff_alpharank(M, 5, &o, pi), 0);
	for (int i = 0; i < 5; i++)
		ck_assert_double_eq_tol(pi[i], at100[i], 1e-12);
	o = opts(INFINITY, 20);
	ck_assert_int_eq(payoff_alpharank(M, 5, &o, pi), 0);
	for (int i = 0; i < 5; i++)
		ck_assert_double_eq_tol(pi[i], limit[i], 1e-14);
}
END_TEST

/* rho(s -> r) as the paper writes it, summed term by term in long
 * double: 1 / sum_{l=0}^{m-1} prod_{p=1}^{l} exp(-alpha (f_r(p) -
 * f_s(p))). Only for exponents that stay in range. */
static double naive_rho(const double *M, size_t n, size_t s, size_t r,
			double alpha, uint32_t m)
{
	long double sum = 1, prod = 1;

	for (uint32_t l = 1; l < m; l++) {
		uint32_t q = l; /* mutants */
		long double fr = ((q - 1) * (long double)M[r * n + r] +
				  (m - q) * (long double)M[r * n + s]) / (m - 1);
		long double fs = (q * (long double)M[s * n + r] +
				  (m - q - 1) * (long double)M[s * n + s]) /
				 (m - 1);
		prod *= expl(-(long double)alpha * (fr - fs));
		sum += prod;
	}
	return (double)(1 / sum);
}

/* The fixation probabilities against the formula: a constant-sum matrix
 * (the geometric closed form), a general-sum one (the log-space sum), a
 * neutral pair (exactly 1/m) and the infinite-alpha limits. */
START_TEST(fixation_formula)
{
	enum { N = 4 };
	/* win rates (constant-sum) and a general-sum game */
	const double W[N * N] = { 0.5, 0.7, 0.2, 0.5,  0.3, 0.5, 0.9, 0.5,
				  0.8, 0.1, 0.5, 0.5,  0.5, 0.5, 0.5, 0.5 };
	const double G[N * N] = { 1, -2, 0.5, 3,  0.25, 2, -1, 0,
				  1.5, 0.5, -0.5, 2,  -1, 1, 0.75, 0.5 };
	const double *games[2] = { W, G };
	const double alphas[] = { 0.1, 1, 5 };
	const uint32_t pops[] = { 2, 7, 50 };
	double rho[N * N];

	for (int g = 0; g < 2; g++)
		for (size_t a = 0; a < LG_ARRAY_LEN(alphas); a++)
			for (size_t k = 0; k < LG_ARRAY_LEN(pops); k++) {
				struct payoff_alpharank_opts o =
					opts(alphas[a], pops[k]);
				ck_assert_int_eq(payoff_alpharank_fixation(
					games[g], N, &o, rho), 0);
				for (size_t s = 0; s < N; s++)
					for (size_t r = 0; r < N; r++) {
						double want = r == s ? 0 :
							naive_rho(games[g], N,
								  s, r,
								  alphas[a],
								  pops[k]);
						ck_assert_msg(
							fabs(rho[s * N + r] -
							     want) <=
								1e-12 * want,
							"game %d alpha %g m %u "
							"rho(%zu -> %zu) = "
							"%.17g, want %.17g", g,
							alphas[a], pops[k], s,
							r, rho[s * N + r],
							want);
					}
			}
	/* strategy 3 of W is neutral against everything: 1/m both ways */
	{
		struct payoff_alpharank_opts o = opts(1e6, 50);
		ck_assert_int_eq(payoff_alpharank_fixation(W, N, &o, rho), 0);
		for (size_t i = 0; i < 3; i++) {
			ck_assert_double_eq(rho[3 * N + i], 1.0 / 50);
			ck_assert_double_eq(rho[i * N + 3], 1.0 / 50);
		}
		/* 0.7 against 0.3 at alpha 1e6: sure one way, 0 (underflow,
		 * no overflow) the other */
		ck_assert_double_eq(rho[1 * N + 0], 1);
		ck_assert_double_eq(rho[0 * N + 1], 0);
		o = opts(INFINITY, 50);
		ck_assert_int_eq(payoff_alpharank_fixation(W, N, &o, rho), 0);
		ck_assert_double_eq(rho[1 * N + 0], 1);
		ck_assert_double_eq(rho[0 * N + 1], 0);
		ck_assert_double_eq(rho[3 * N + 0], 1.0 / 50);
	}
}
END_TEST

/* A random league's win-rate matrix (seeded): pi is a distribution that
 * the chain built from payoff_alpharank_fixation leaves where it is. */
START_TEST(stationary_on_random_league)
{
	enum { N = 40 };
	const double alphas[] = { 0.5, 10, 100, INFINITY };
	double *M = malloc(N * N * sizeof *M), *rho = malloc(N * N *
							      sizeof *rho);
	double pi[N], next[N];
	lg_rng rng;

	ck_assert(M && rho);
	lg_rng_seed(&rng, 21);
	for (int i = 0; i < N; i++) {
		M[i * N + i] = 0.5;
		for (int j = i + 1; j < N; j++) {
			/* some pairs never met: exactly 1/2, neutral */
			double w = lg_rng_below(&rng, 5) ? lg_rng_double(&rng)
							 : 0.5;
			M[i * N + j] = w;
			M[j * N + i] = 1 - w;
		}
	}
	for (size_t a = 0; a < LG_ARRAY_LEN(alphas); a++) {
		struct payoff_alpharank_opts o = opts(alphas[a], 50);
		double sum = 0, resid = 0;
		ck_assert_int_eq(payoff_alpharank(M, N, &o, pi), 0);
		ck_assert_int_eq(payoff_alpharank_fixation(M, N, &o, rho), 0);
		for (int j = 0; j < N; j++) {
			double out = 0;
			ck_assert(pi[j] >= 0);
			sum += pi[j];
			next[j] = 0;
			for (int i = 0; i < N; i++)
				if (i != j)
					next[j] += pi[i] * rho[i * N + j] /
						   (N - 1);
			for (int k = 0; k < N; k++)
				out += rho[j * N + k] / (N - 1);
			next[j] += pi[j] * (1 - out);
		}
		for (int j = 0; j < N; j++)
			resid += fabs(next[j] - pi[j]);
		ck_assert_double_eq_tol(sum, 1, 1e-12);
		ck_assert_msg(resid < 1e-13, "alpha %g: |pi C - pi| = %g",
			      alphas[a], resid);
	}
	free(M);
	free(rho);
}
END_TEST

START_TEST(bad_input)
{
	const double M[4] = { 0.5, 0.25, 0.75, 0.5 };
	/* a coordination game: at an infinite alpha neither strategy's
	 * mutant ever fixates in the other's population */
	const double C[4] = { 1, 0, 0, 1 };
	double N[4] = { 0.5, NAN, 0.5, 0.5 }, pi[2];
	struct payoff_alpharank_opts o, d;
	char err[128] = "";

	payoff_alpharank_opts_default(&d);
	ck_assert_double_eq(d.alpha, 100);
	ck_assert_uint_eq(d.population, 50);
	ck_assert_int_eq(payoff_alpharank_opts_check(&d, err, sizeof err), 0);
	ck_assert_int_eq(payoff_alpharank(M, 0, &d, pi), LG_EINVAL);
	ck_assert_int_eq(payoff_alpharank(M, PAYOFF_ALPHARANK_MAX + 1, &d,
					  pi), LG_EINVAL);
	ck_assert_int_eq(payoff_alpharank(N, 2, &d, pi), LG_EINVAL);
	N[1] = INFINITY;
	ck_assert_int_eq(payoff_alpharank(N, 2, &d, pi), LG_EINVAL);
	N[1] = 1e200;
	ck_assert_int_eq(payoff_alpharank(N, 2, &d, pi), LG_EINVAL);
	o = opts(-1, 50);
	ck_assert_int_eq(payoff_alpharank_opts_check(&o, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "alpha"));
	ck_assert_int_eq(payoff_alpharank(M, 2, &o, pi), LG_EINVAL);
	o = opts(NAN, 50);
	ck_assert_int_eq(payoff_alpharank(M, 2, &o, pi), LG_EINVAL);
	o = opts(1, 1);
	ck_assert_int_eq(payoff_alpharank_opts_check(&o, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "population"));
	o = opts(1, PAYOFF_ALPHARANK_POP_MAX + 1);
	ck_assert_int_eq(payoff_alpharank(M, 2, &o, pi), LG_EINVAL);
	/* one strategy has all the mass */
	ck_assert_int_eq(payoff_alpharank(M, 1, &d, pi), 0);
	ck_assert_double_eq(pi[0], 1);
	/* the coordination game: symmetric at a finite alpha, no unique
	 * answer in the limit */
	o = opts(1, 10);
	ck_assert_int_eq(payoff_alpharank(C, 2, &o, pi), 0);
	ck_assert_double_eq_tol(pi[0], 0.5, 1e-15);
	o = opts(INFINITY, 10);
	ck_assert_int_eq(payoff_alpharank(C, 2, &o, pi), LG_ERANGE);
}
END_TEST

/* The numbers of JSON array text from p on (after its first '['), up to
 * the bracket that closes it: at most max into v. */
static size_t json_numbers(const char *p, double *v, size_t max)
{
	size_t k = 0;
	int depth = 0;

	for (; *p; p++) {
		if (*p == '[') {
			depth++;
		} else if (*p == ']') {
			if (--depth == 0)
				break;
		} else if (depth && !strncmp(p, "null", 4)) {
			/* a pair never met: the win rate's prior */
			if (k < max)
				v[k++] = 0.5;
			p += 3;
		} else if (depth && (*p == '-' || (*p >= '0' && *p <= '9'))) {
			char *end;
			double x = strtod(p, &end);
			if (k < max)
				v[k++] = x;
			p = end - 1;
		}
	}
	return k;
}

/* `league ratings --alpha-rank` on a simulated league of 14 players: the
 * JSON carries the options and one score per player, the scores are
 * payoff_alpharank of the matrix `league payoff` prints (1/2 on the
 * diagonal), the table a column; without the flag the output is as it
 * was; bad options are usage errors naming the option. */
START_TEST(cli_ratings)
{
	enum { MAXP = 64 };
	char dir[128], cfgp[192], lg[192], err[2048];
	char *out = malloc(1 << 17);
	double *W = malloc(MAXP * MAXP * sizeof *W), pi[MAXP];
	uint32_t n;

	ck_assert(out && W);
	tu_mkdtemp(dir, sizeof dir);
	snprintf(cfgp, sizeof cfgp, "%s/l.yaml", dir);
	snprintf(lg, sizeof lg, "%s/league", dir);
	tu_write_file(cfgp, "league: {seed: 3}\n"
			    "players: {main: 2, main_exploiter: 1, "
			    "league_exploiter: 1}\n"
			    "snapshot: {steps: 2000}\n"
			    "budget: {jobs: 10}\n");
	{
		const char *const a[] = { "sim", cfgp, "--dir", lg, "--jobs",
					  "400", NULL };
		ck_assert_int_eq(tu_run_league(out, 1 << 17, err, sizeof err,
					       a), 0);
	}
	{	/* the matrix, and its α-Rank at alpha 1 (at 100 the 6 digits
		 * `league payoff` prints would move the scores too much) */
		const char *const a[] = { "payoff", lg, "--json", NULL };
		struct payoff_alpharank_opts o = opts(1, 50);
		char *p;
		size_t k;
		ck_assert_int_eq(tu_run_league(out, 1 << 17, err, sizeof err,
					       a), 0);
		n = (uint32_t)json_numbers(out, pi, MAXP);
		ck_assert_uint_ge(n, 8);
		ck_assert_ptr_nonnull(p = strstr(out, "\"win_rate\":"));
		k = json_numbers(p, W, MAXP * MAXP);
		ck_assert_uint_eq(k, (size_t)n * n);
		for (uint32_t i = 0; i < n; i++)
			W[i * n + i] = 0.5;
		ck_assert_int_eq(payoff_alpharank(W, n, &o, pi), 0);
	}
	{
		const char *const a[] = { "ratings", lg, "--alpha-rank",
					  "--json", "--alpha", "1", NULL };
		const char *p = out;
		double sum = 0;
		uint32_t seen = 0;
		ck_assert_int_eq(tu_run_league(out, 1 << 17, err, sizeof err,
					       a), 0);
		ck_assert_ptr_nonnull(strstr(out, "{\"nash_gap\":"));
		ck_assert_ptr_nonnull(strstr(out, ",\"alpha_rank\":{\"alpha\":"
						  "1,\"population\":50},"
						  "\"ratings\":["));
		while ((p = strstr(p, "{\"id\":"))) {
			unsigned id = (unsigned)strtoul(p + 6, NULL, 10);
			const char *q = strstr(p, "\"alpha_rank\":");
			const char *e = strchr(p, '}');
			double x;
			ck_assert(q && e && q < e && id < n);
			x = strtod(q + 13, NULL);
			ck_assert_msg(fabs(x - pi[id]) <= 1e-4 * pi[id] + 1e-9,
				      "player %u: %g, the matrix says %g", id,
				      x, pi[id]);
			sum += x;
			seen++;
			p = e;
		}
		ck_assert_uint_eq(seen, n);
		ck_assert_double_eq_tol(sum, 1, 1e-5);
	}
	{	/* the defaults, and the limit */
		const char *const a[] = { "ratings", lg, "--alpha-rank",
					  "--format", "json", NULL };
		const char *const b[] = { "ratings", lg, "--json", "--alpha",
					  "inf", "--population", "20", NULL };
		ck_assert_int_eq(tu_run_league(out, 1 << 17, err, sizeof err,
					       a), 0);
		ck_assert_ptr_nonnull(strstr(out, "\"alpha_rank\":{\"alpha\":"
						  "100,\"population\":50}"));
		ck_assert_int_eq(tu_run_league(out, 1 << 17, err, sizeof err,
					       b), 0);
		ck_assert_ptr_nonnull(strstr(out, "\"alpha_rank\":{\"alpha\":"
						  "\"inf\",\"population\":20}"));
	}
	{	/* the table: the note and the column */
		const char *const a[] = { "ratings", lg, "--alpha-rank", NULL };
		ck_assert_int_eq(tu_run_league(out, 1 << 17, err, sizeof err,
					       a), 0);
		ck_assert_ptr_nonnull(strstr(out, "(alpha-Rank, alpha 100, "
						  "population 50)"));
		ck_assert_ptr_nonnull(strstr(out, "nash  alpha-rank\n"));
	}
	{	/* no flag: neither key nor column */
		const char *const a[] = { "ratings", lg, "--json", NULL };
		const char *const b[] = { "ratings", lg, NULL };
		ck_assert_int_eq(tu_run_league(out, 1 << 17, err, sizeof err,
					       a), 0);
		ck_assert_ptr_nonnull(strstr(out, "\"rating_se\":"));
		ck_assert_ptr_null(strstr(out, "alpha_rank"));
		ck_assert_int_eq(tu_run_league(out, 1 << 17, err, sizeof err,
					       b), 0);
		ck_assert_ptr_null(strstr(out, "alpha"));
	}
	{
		static const char *const bad[][3] = {
			{ "--alpha", "-1", "--alpha" },
			{ "--alpha", "fast", "--alpha" },
			{ "--alpha", "nan", "--alpha" },
			{ "--population", "1", "--population" },
			{ "--population", "100001", "--population" },
			{ "--population", "2.5", "--population" },
		};
		for (size_t k = 0; k < LG_ARRAY_LEN(bad); k++) {
			const char *const a[] = { "ratings", lg, bad[k][0],
						  bad[k][1], NULL };
			ck_assert_int_eq(tu_run_league(NULL, 0, err,
						       sizeof err, a), 2);
			ck_assert_msg(strstr(err, bad[k][2]), "%s", err);
		}
	}
	{
		const char *const a[] = { "players", lg, "--alpha-rank", NULL };
		const char *const b[] = { "payoff", lg, "--alpha", "3", NULL };
		ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, a), 2);
		ck_assert_ptr_nonnull(strstr(err, "'--alpha-rank' does not "
						  "apply"));
		ck_assert_int_eq(tu_run_league(NULL, 0, err, sizeof err, b), 2);
		ck_assert_ptr_nonnull(strstr(err, "'--alpha' does not apply"));
	}
	tu_rmrf(dir);
	free(out);
	free(W);
}
END_TEST

/* ---- the multi-population model (payoff/alpharank_multi.c) ---------- */

/* pi (N entries) against the Boltzmann weights e^{k phi_s} normalised,
 * relative 1e-9 (masses that underflow below 1e-300: under 1e-290). */
static void assert_boltzmann(const double *pi, const double *phi, size_t N,
			     double k, const char *what)
{
	double top = -INFINITY, z = 0;

	for (size_t s = 0; s < N; s++)
		top = fmax(top, phi[s]);
	for (size_t s = 0; s < N; s++)
		z += exp(k * (phi[s] - top));
	for (size_t s = 0; s < N; s++) {
		double want = exp(k * (phi[s] - top)) / z;
		if (want < 1e-300) {
			ck_assert_msg(pi[s] < 1e-290, "%s: pi[%zu] = %g", what,
				      s, pi[s]);
			continue;
		}
		ck_assert_msg(fabs(pi[s] / want - 1) < 1e-9,
			      "%s: pi[%zu] = %.17g, want %.17g", what, s,
			      pi[s], want);
	}
}

/* The marginals m_out (sum n entries) are the sums of pi over the
 * profiles (row-major, last role fastest) where each role plays each
 * strategy, decoded here apart from the solver. */
static void assert_marginals(const double *pi, const uint32_t *n, size_t K,
			     const double *marg)
{
	size_t N = 1, off = 0;
	double want[64] = { 0 };

	for (size_t k = 0; k < K; k++)
		N *= n[k];
	for (size_t s = 0; s < N; s++) {
		size_t rest = s, o = 0;
		size_t digit[PAYOFF_ALPHARANK_POPS_MAX];
		for (size_t k = K; k-- > 0;) {
			digit[k] = rest % n[k];
			rest /= n[k];
		}
		for (size_t k = 0; k < K; k++) {
			want[o + digit[k]] += pi[s];
			o += n[k];
		}
	}
	for (size_t k = 0; k < K; k++) {
		double sum = 0;
		for (size_t t = 0; t < n[k]; t++) {
			ck_assert_double_eq_tol(marg[off + t], want[off + t],
						1e-15);
			sum += marg[off + t];
		}
		ck_assert_double_eq_tol(sum, 1, 1e-12);
		off += n[k];
	}
}

/*
 * Two 2 x 2 games by hand. The prisoner's dilemma (C = 0, D = 1; the row
 * gets 3, 0, 5, 1 at CC, CD, DC, DD, the column the transpose): each
 * role's gain from switching C -> D is 2 against C and 1 against D,
 * whoever the other is, so the chain's moves are those of the potential
 * Phi = (0, 2, 2, 3) over (CC, CD, DC, DD). With rho(d) / rho(-d) =
 * e^{(m-1) alpha d}, detailed balance holds with pi proportional to
 * e^{(m-1) alpha Phi}: at m = 2, alpha = 1, pi = (1, e^2, e^2, e^3) / (1 +
 * 2 e^2 + e^3); at alpha 0 uniform; as alpha -> infinity all on DD.
 * Matching pennies (the row wins 1 on a match, the column on a mismatch):
 * the four profiles form one cycle, each move forward gains 2 and each
 * move back loses 2, so the chain looks the same from every profile:
 * uniform at every alpha, the limit included.
 */
START_TEST(multi_hand_2x2)
{
	const double pd0[4] = { 3, 0, 5, 1 }, pd1[4] = { 3, 5, 0, 1 };
	const double mp0[4] = { 1, -1, -1, 1 }, mp1[4] = { -1, 1, 1, -1 };
	const double *pd[2] = { pd0, pd1 }, *mp[2] = { mp0, mp1 };
	const double phi[4] = { 0, 2, 2, 3 };
	const double e2 = exp(2), e3 = exp(3), z = 1 + 2 * e2 + e3;
	const double want[4] = { 1 / z, e2 / z, e2 / z, e3 / z };
	const double alphas[] = { 0.1, 1, 10, INFINITY };
	const uint32_t n[2] = { 2, 2 };
	struct payoff_alpharank_opts o = opts(1, 2);
	double pi[4], marg[4];

	ck_assert_int_eq(payoff_alpharank_multi(pd, n, 2, &o, pi, marg), 0);
	for (int s = 0; s < 4; s++)
		ck_assert_msg(fabs(pi[s] / want[s] - 1) < 1e-13,
			      "pi[%d] = %.17g, want %.17g", s, pi[s], want[s]);
	assert_marginals(pi, n, 2, marg);
	ck_assert_double_eq_tol(marg[1], (e2 + e3) / z, 1e-15);
	o = opts(0.3, 50);
	ck_assert_int_eq(payoff_alpharank_multi(pd, n, 2, &o, pi, marg), 0);
	assert_boltzmann(pi, phi, 4, 49 * 0.3, "pd alpha 0.3 m 50");
	o = opts(0, 50);
	ck_assert_int_eq(payoff_alpharank_multi(pd, n, 2, &o, pi, marg), 0);
	for (int s = 0; s < 4; s++)
		ck_assert_double_eq_tol(pi[s], 0.25, 1e-15);
	o = opts(INFINITY, 50);
	ck_assert_int_eq(payoff_alpharank_multi(pd, n, 2, &o, pi, marg), 0);
	ck_assert_double_eq(pi[3], 1);
	ck_assert_double_eq(pi[0] + pi[1] + pi[2], 0);
	for (size_t a = 0; a < LG_ARRAY_LEN(alphas); a++) {
		o = opts(alphas[a], 50);
		ck_assert_int_eq(payoff_alpharank_multi(mp, n, 2, &o, pi, marg),
				 0);
		for (int s = 0; s < 4; s++)
			ck_assert_msg(fabs(pi[s] - 0.25) < 1e-15,
				      "alpha %g: pi[%d] = %.17g", alphas[a], s,
				      pi[s]);
		assert_marginals(pi, n, 2, marg);
	}
}
END_TEST

/*
 * Random potential games: role k's payoff is Phi(s) plus anything that
 * depends only on the other roles' strategies, so every move's gain is
 * Phi's change and pi is proportional to e^{(m-1) alpha Phi}, in relative
 * terms, masses from 1 down to e^-490 (Phi spans less than 1; alpha 10
 * at m 50, alpha 100 at m 2). Not beyond: there a move against
 * selection has a probability below the least double (e^-745), stored
 * as 0, and a strict local maximum of Phi that only such moves reach
 * gets mass 0 however large its true mass (the header says so). Three
 * roles of 2, 3 and 4 strategies, and two of 1 and 5 (a role with one
 * strategy never mutates).
 */
START_TEST(multi_potential)
{
	const uint32_t shapes[2][3] = { { 2, 3, 4 }, { 1, 5, 0 } };
	const size_t Ks[2] = { 3, 2 };
	const double alphas[] = { 0.1, 1, 10, 100 };
	const uint32_t pops[] = { 2, 50, 50, 2 }; /* one per alpha */
	lg_rng r;

	lg_rng_seed(&r, 5);
	for (int sh = 0; sh < 2; sh++) {
		const uint32_t *n = shapes[sh];
		size_t K = Ks[sh], N = 1;
		double phi[24], t[3][24], pi[24], marg[12];
		const double *tab[3] = { t[0], t[1], t[2] };
		for (size_t k = 0; k < K; k++)
			N *= n[k];
		for (size_t s = 0; s < N; s++)
			phi[s] = lg_rng_double(&r);
		for (size_t k = 0; k < K; k++) {
			/* h_k(s_-k): one draw per profile of the others */
			size_t stride = 1;
			double h[24];
			for (size_t q = k + 1; q < K; q++)
				stride *= n[q];
			for (size_t s = 0; s < N; s++)
				h[s] = lg_rng_double(&r) * 4 - 2;
			for (size_t s = 0; s < N; s++) {
				size_t own = s / stride % n[k];
				t[k][s] = phi[s] + h[s - own * stride];
			}
		}
		for (size_t a = 0; a < LG_ARRAY_LEN(alphas); a++) {
			struct payoff_alpharank_opts o =
				opts(alphas[a], pops[a]);
			char what[64];
			snprintf(what, sizeof what, "K %zu alpha %g m %u", K,
				 alphas[a], pops[a]);
			ck_assert_int_eq(payoff_alpharank_multi(tab, n, K, &o,
								pi, marg), 0);
			assert_boltzmann(pi, phi, N, (pops[a] - 1) * alphas[a],
					 what);
			assert_marginals(pi, n, K, marg);
		}
	}
}
END_TEST

/* The two-population α-Rank of the symmetric game M (role 1 gets M
 * transposed) at alpha and m into marg (2 n). */
static void two_pop(const double *M, uint32_t n, double alpha, uint32_t m,
		    double *marg)
{
	double T[25];
	const double *tab[2] = { M, T };
	const uint32_t ns[2] = { n, n };
	struct payoff_alpharank_opts o = opts(alpha, m);

	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			T[i * n + j] = M[j * n + i];
	ck_assert_int_eq(payoff_alpharank_multi(tab, ns, 2, &o, NULL, marg),
			 0);
}

/*
 * Single against two populations on symmetric games. With additive
 * payoffs M[i][j] = 1/2 + f_i - f_j the two-population game is a
 * potential game (Phi = f_i + f_j), so each role's marginal is
 * proportional to e^{(m-1) alpha f_i}; the single-population chain is
 * reversible too, with pi proportional to e^{m alpha f_i} (its mutant
 * also meets its own kind, boltzmann_exact): the two agree when the
 * single population's alpha is (m-1)/m of the two populations'. Every
 * constant-sum 2 x 2 symmetric game is additive. Rock-paper-scissors:
 * uniform in both. A symmetric constant-sum 3 x 3 game that is not
 * additive: both roles' marginals are equal (the game is symmetric) but
 * they are not the single-population answer at that alpha (the chain
 * passes through profiles where the roles differ).
 */
START_TEST(multi_vs_single)
{
	const double f[5] = { 0.2, 0.15, 0.1, 0.05, 0 };
	const double M2[4] = { 0.5, 0.8, 0.2, 0.5 };
	const double R[9] = { 0.5, 0, 1, 1, 0.5, 0, 0, 1, 0.5 };
	const double G[9] = { 0.5, 0.9, 0.3, 0.1, 0.5, 0.6, 0.7, 0.4, 0.5 };
	const double alphas[] = { 0.1, 1, 10 };
	const uint32_t m = 50;
	double M[25], marg[10], pi[5], diff = 0;

	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			M[i * 5 + j] = 0.5 + f[i] - f[j];
	for (size_t a = 0; a < LG_ARRAY_LEN(alphas); a++) {
		struct payoff_alpharank_opts o =
			opts(alphas[a] * (m - 1) / m, m);
		two_pop(M, 5, alphas[a], m, marg);
		ck_assert_int_eq(payoff_alpharank(M, 5, &o, pi), 0);
		assert_boltzmann(marg, f, 5, (m - 1) * alphas[a], "role 0");
		assert_boltzmann(marg + 5, f, 5, (m - 1) * alphas[a], "role 1");
		for (int i = 0; i < 5; i++)
			ck_assert_msg(fabs(marg[i] / pi[i] - 1) < 1e-9,
				      "alpha %g: %.17g vs single %.17g",
				      alphas[a], marg[i], pi[i]);
		two_pop(M2, 2, alphas[a], m, marg);
		ck_assert_int_eq(payoff_alpharank(M2, 2, &o, pi), 0);
		for (int i = 0; i < 2; i++)
			ck_assert_double_eq_tol(marg[i], pi[i], 1e-12);
		two_pop(R, 3, alphas[a], m, marg);
		for (int i = 0; i < 6; i++)
			ck_assert_double_eq_tol(marg[i], 1.0 / 3, 1e-15);
	}
	{
		struct payoff_alpharank_opts o = opts(1.0 * (m - 1) / m, m);
		two_pop(G, 3, 1, m, marg);
		ck_assert_int_eq(payoff_alpharank(G, 3, &o, pi), 0);
		for (int i = 0; i < 3; i++) {
			ck_assert_double_eq_tol(marg[i], marg[3 + i], 1e-12);
			diff = fmax(diff, fabs(marg[i] - pi[i]));
		}
		ck_assert_msg(diff > 1e-2, "differ by %g only", diff);
	}
}
END_TEST

/* Random 2- and 3-population games against tests/ref/meta_ref.py's
 * chain (built entry by entry, solved by numpy.linalg.lstsq) at alpha
 * 0.1 (m 50), 1 (m 10) and 10 (m 2): every profile's mass and every
 * marginal to 1e-9. */
START_TEST(multi_reference)
{
	char cmd[1024], *line = NULL;
	size_t cap = 0, K = 0, cases = 0, N = 1, tot = 0;
	uint32_t n[3], pop = 0;
	double alpha = 0, t[3][27], want[27], wmarg[9], pi[27], marg[9];
	const double *tab[3] = { t[0], t[1], t[2] };
	FILE *f;

	snprintf(cmd, sizeof cmd,
		 "/usr/bin/python3 %s/tests/ref/meta_ref.py alpharank 41",
		 tu_src_dir());
	ck_assert_msg((f = popen(cmd, "r")) != NULL, "%s", cmd);
	while (getline(&line, &cap, f) > 0) {
		unsigned k;
		int at;
		if (sscanf(line, "case %zu %lf %u", &K, &alpha, &pop) == 3) {
			ck_assert(K >= 2 && K <= 3);
		} else if (!strncmp(line, "n ", 2)) {
			double v[3];
			ck_assert_uint_eq(tu_parse_doubles(line + 2, v, 3), K);
			N = 1;
			tot = 0;
			for (size_t q = 0; q < K; q++) {
				n[q] = (uint32_t)v[q];
				N *= n[q];
				tot += n[q];
			}
			ck_assert(N <= 27 && tot <= 9);
		} else if (sscanf(line, "tab %u %n", &k, &at) == 1) {
			ck_assert(k < K);
			ck_assert_uint_eq(tu_parse_doubles(line + at, t[k], 27),
					  N);
		} else if (!strncmp(line, "pi ", 3)) {
			ck_assert_uint_eq(tu_parse_doubles(line + 3, want, 27),
					  N);
		} else if (!strncmp(line, "marg ", 5)) {
			ck_assert_uint_eq(tu_parse_doubles(line + 5, wmarg, 9),
					  tot);
		} else if (!strncmp(line, "end", 3)) {
			struct payoff_alpharank_opts o = opts(alpha, pop);
			ck_assert_int_eq(payoff_alpharank_multi(tab, n, K, &o,
								pi, marg), 0);
			for (size_t s = 0; s < N; s++)
				ck_assert_msg(fabs(pi[s] - want[s]) <= 1e-9,
					      "K %zu alpha %g: pi[%zu] %.17g "
					      "vs %.17g", K, alpha, s, pi[s],
					      want[s]);
			for (size_t s = 0; s < tot; s++)
				ck_assert_double_eq_tol(marg[s], wmarg[s],
							1e-9);
			cases++;
		}
	}
	free(line);
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_uint_eq(cases, 18);
}
END_TEST

START_TEST(multi_bad_input)
{
	double a[4] = { 1, 0, 0, 1 }, b[4] = { 1, 0, 0, 1 }, pi[4];
	double marg[PAYOFF_ALPHARANK_POPS_MAX + 1];
	const double *tab[2] = { a, b }, *half[2] = { a, NULL };
	const double *many[PAYOFF_ALPHARANK_POPS_MAX + 1];
	uint32_t n[2] = { 2, 2 }, big[2] = { 65, 64 }, zero[2] = { 2, 0 };
	uint32_t ones[PAYOFF_ALPHARANK_POPS_MAX + 1];
	struct payoff_alpharank_opts o = opts(1, 10);
	const double bad[] = { NAN, INFINITY, 1e200 };

	for (size_t k = 0; k <= PAYOFF_ALPHARANK_POPS_MAX; k++) {
		many[k] = a;
		ones[k] = 1;
	}
	for (size_t v = 0; v < LG_ARRAY_LEN(bad); v++) {
		b[2] = bad[v];
		ck_assert_int_eq(payoff_alpharank_multi(tab, n, 2, &o, pi,
							marg), LG_EINVAL);
	}
	b[2] = 0;
	ck_assert_int_eq(payoff_alpharank_multi(tab, n, 0, &o, pi, marg),
			 LG_EINVAL);
	ck_assert_int_eq(payoff_alpharank_multi(many, ones,
						PAYOFF_ALPHARANK_POPS_MAX + 1,
						&o, pi, marg), LG_EINVAL);
	ck_assert_int_eq(payoff_alpharank_multi(tab, zero, 2, &o, pi, marg),
			 LG_EINVAL);
	/* 65 * 64 = 4160 profiles, over PAYOFF_ALPHARANK_MAX (checked
	 * before any entry is read) */
	ck_assert_int_eq(payoff_alpharank_multi(tab, big, 2, &o, pi, marg),
			 LG_EINVAL);
	ck_assert_int_eq(payoff_alpharank_multi(half, n, 2, &o, pi, marg),
			 LG_EINVAL);
	ck_assert_int_eq(payoff_alpharank_multi(NULL, n, 2, &o, pi, marg),
			 LG_EINVAL);
	o = opts(NAN, 10);
	ck_assert_int_eq(payoff_alpharank_multi(tab, n, 2, &o, pi, marg),
			 LG_EINVAL);
	o = opts(1, 1);
	ck_assert_int_eq(payoff_alpharank_multi(tab, n, 2, &o, pi, marg),
			 LG_EINVAL);
	/* the largest population count: one profile, all the mass */
	o = opts(1, 10);
	ck_assert_int_eq(payoff_alpharank_multi(many, ones,
						PAYOFF_ALPHARANK_POPS_MAX, &o,
						pi, marg), 0);
	ck_assert_double_eq(pi[0], 1);
	ck_assert_double_eq(marg[PAYOFF_ALPHARANK_POPS_MAX - 1], 1);
	/* a coordination game: at a finite alpha its two pure equilibria
	 * share the mass alike; in the limit each holds the chain, so no
	 * unique answer */
	ck_assert_int_eq(payoff_alpharank_multi(tab, n, 2, &o, pi, NULL), 0);
	ck_assert_double_eq_tol(pi[0], pi[3], 1e-15);
	ck_assert(pi[0] > pi[1]);
	o = opts(INFINITY, 10);
	ck_assert_int_eq(payoff_alpharank_multi(tab, n, 2, &o, pi, marg),
			 LG_ERANGE);
}
END_TEST

Suite *suite_alpharank(void)
{
	Suite *s = suite_create("alpharank");
	const struct tu_test core_tests[] = {
		{ rps_uniform, 1 },
		{ transitive_top, 1 },
		{ boltzmann_exact, 1 },
		{ published_example, 1 },
		{ fixation_formula, 1 },
		{ stationary_on_random_league, 1 },
		{ bad_input, 1 },
		{ multi_hand_2x2, 1 },
		{ multi_potential, 1 },
		{ multi_vs_single, 1 },
		{ multi_reference, 1 },
		{ multi_bad_input, 1 },
	};
	const struct tu_test cli_tests[] = {
		{ cli_ratings, 1 },
	};

	TU_TCASE(s, "core", 60, core_tests);
	TU_TCASE(s, "cli", 60, cli_tests);
	return s;
}
