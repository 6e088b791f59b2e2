/* tests/check_plackett.c: Plackett-Luce ratings of ranked team games
 * (payoff/plackett.c): closed forms for two agents, a three-team game and
 * a tie; agreement with payoff_elo_fit on pairwise games; self-play and
 * zero weights change nothing; a simulated population with known
 * strengths recovered within the intervals, whose width shrinks as
 * 1/sqrt(games); bad input. The online update against Weng and Lin's
 * Algorithm 4 as printed, and on a stream of simulated games. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "payoff/payoff.h"
#include "tests/testutil.h"
#include "util/util.h"

#define ELO (400.0 / M_LN10)

/* A game store: up to MAXG games of up to 8 seats, arrays inline. */
#define MAXG 20000
struct games {
	struct payoff_pl_game g[MAXG];
	uint32_t agent[MAXG][8], team[MAXG][8], rank[MAXG][8];
	size_t n;
};

/* Append a game of ns seats (team NULL: a team per seat). */
static void add(struct games *G, uint32_t ns, const uint32_t *agent,
		const uint32_t *team, const uint32_t *rank, double w)
{
	size_t i = G->n++;

	ck_assert_uint_lt(i, MAXG);
	memcpy(G->agent[i], agent, ns * sizeof *agent);
	memcpy(G->rank[i], rank, ns * sizeof *rank);
	if (team)
		memcpy(G->team[i], team, ns * sizeof *team);
	G->g[i] = (struct payoff_pl_game){
		.nseats = ns, .agent = G->agent[i],
		.team = team ? G->team[i] : NULL, .rank = G->rank[i],
		.weight = w};
}

/* 0 beats 1 (weight w), 1 beats 0 (weight l), draws (weight d). */
static void add_pair(struct games *G, uint32_t a, uint32_t b, double w,
		     double d, double l)
{
	const uint32_t ag[2] = {a, b}, win[2] = {0, 1}, loss[2] = {1, 0},
		       draw[2] = {0, 0};

	add(G, 2, ag, NULL, win, w);
	add(G, 2, ag, NULL, loss, l);
	add(G, 2, ag, NULL, draw, d);
}

static void fit(const struct games *G, uint32_t n, double prior, double *r,
		double *se, double *cov)
{
	char err[256] = "";
	int rc = payoff_pl_fit(G->g, G->n, n, prior, r, se, cov, err,
			       sizeof err);
	ck_assert_msg(rc == 0, "fit: %d %s", rc, err);
}

/* Two agents, 30 wins and 10 losses, a vanishing prior: the maximum
 * likelihood difference is 400 log10(30 / 10), centred as +-half; the
 * difference d has Fisher information N q (1 - q) (N = 40, q = 3/4), so
 * each centred rating (d / 2) has se ELO / 2 / sqrt(7.5). */
START_TEST(two_agents_closed_form)
{
	static struct games G;
	double r[2], se[2], cov[4];

	G.n = 0;
	add_pair(&G, 0, 1, 30, 0, 10);
	fit(&G, 2, 1e-9, r, se, cov);
	ck_assert_double_eq_tol(r[0] - r[1], 400 * log10(3.0), 1e-6);
	ck_assert_double_eq_tol(r[0] + r[1], 0, 1e-9);
	ck_assert_double_eq_tol(se[0], ELO / 2 / sqrt(7.5), 1e-6);
	ck_assert_double_eq_tol(se[1], se[0], 1e-9);
	ck_assert_double_eq_tol(cov[1], -cov[0], 1e-6);
	ck_assert_double_eq_tol(cov[0], se[0] * se[0], 1e-6);
	/* draws count half: 30 wins, 20 draws, 10 losses is 40 to 20 */
	G.n = 0;
	add_pair(&G, 0, 1, 30, 20, 10);
	fit(&G, 2, 1e-9, r, se, NULL);
	ck_assert_double_eq_tol(r[0] - r[1], 400 * log10(2.0), 1e-6);
}
END_TEST

/* Pairwise games are Bradley-Terry: the fit equals payoff_elo_fit's with
 * the same prior (its MM stops at a relative change of 1e-11). Two
 * agents without draws, then six with draws, fractional counts and a
 * pair that never met. */
START_TEST(agrees_with_elo_fit)
{
	static struct games G;
	const double priors[] = {1.0, 0.3, 5.0};
	lg_rng rng;

	lg_rng_seed(&rng, 39);
	for (int pass = 0; pass < 2; pass++) {
		uint32_t n = pass ? 6 : 2;
		uint32_t ids[6] = {0, 1, 2, 3, 4, 5};
		payoff *p = NULL;
		G.n = 0;
		ck_assert_int_eq(payoff_new(&p, NULL), 0);
		for (uint32_t i = 0; i < n; i++)
			ck_assert_int_eq(payoff_add(p, i), 0);
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = a + 1; b < n; b++) {
				struct payoff_entry e = {0};
				if (pass && a == 1 && b == 4)
					continue; /* never met */
				e.wins = floor(lg_rng_double(&rng) * 20) +
					 (pass ? 0.37 : 0);
				e.losses = floor(lg_rng_double(&rng) * 20);
				e.draws = pass ? lg_rng_double(&rng) * 6 : 0;
				e.games = e.wins + e.losses + e.draws;
				ck_assert_int_eq(payoff_set(p, a, b, &e), 0);
				add_pair(&G, a, b, e.wins, e.draws, e.losses);
			}
		for (size_t k = 0; k < LG_ARRAY_LEN(priors); k++) {
			double elo[6], r[6];
			ck_assert_int_eq(payoff_elo_fit(p, ids, n, priors[k],
							elo), 0);
			fit(&G, n, priors[k], r, NULL, NULL);
			for (uint32_t i = 0; i < n; i++)
				ck_assert_msg(fabs(r[i] - elo[i]) < 1e-6,
					      "n %u prior %g agent %u: %.9f "
					      "vs elo %.9f", n, priors[k], i,
					      r[i], elo[i]);
		}
		payoff_free(p);
	}
}
END_TEST

/* Three single-agent teams in all six orders, each weighted by its
 * Plackett-Luce probability under strengths (4, 2, 1) (times 105: 40,
 * 20, 24, 6, 10, 5). The maximum likelihood equations say each agent's
 * observed choices equal their expectation, which holds at (4, 2, 1)
 * since the data are the model's own distribution: ratings 400 log10 of
 * the strengths, centred: 400 log10 2 * (1, 0, -1). */
START_TEST(three_teams_closed_form)
{
	static struct games G;
	const uint32_t ag[3] = {0, 1, 2};
	/* rank of agents 0, 1, 2 in each order, and its weight */
	const uint32_t order[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
				      {2, 0, 1}, {1, 2, 0}, {2, 1, 0}};
	const double w[6] = {40, 20, 24, 6, 10, 5};
	double r[3], se[3];

	G.n = 0;
	for (int i = 0; i < 6; i++)
		add(&G, 3, ag, NULL, order[i], w[i]);
	fit(&G, 3, 1e-9, r, se, NULL);
	for (int a = 0; a < 3; a++) {
		ck_assert_double_eq_tol(r[a], 400 * log10(2.0) * (1 - a), 1e-6);
		ck_assert(se[a] > 0 && isfinite(se[a]));
	}
}
END_TEST

/* A tie: agents A, B tie first and C is last (weight w1); C wins and A, B
 * tie last (w2). By symmetry A and B share strength x, C has y; the tie
 * rule makes the log-likelihood w2 log(y/x) - (w1 + w2) log(2 + y/x) +
 * const, maximal at y/x = 2 w2 / w1. With w1 = 1, w2 = 2: C is 400
 * log10 4 above A and B; centred, A = B = -1/3 and C = 2/3 of that. The
 * same games scored as a strict order (A before B) would split A and B. */
START_TEST(tie_closed_form)
{
	static struct games G;
	const uint32_t ag[3] = {0, 1, 2}, first[3] = {0, 0, 2},
		       last[3] = {1, 1, 0};
	double r[3], d = 400 * log10(4.0);

	G.n = 0;
	add(&G, 3, ag, NULL, first, 1);
	add(&G, 3, ag, NULL, last, 2);
	fit(&G, 3, 1e-9, r, NULL, NULL);
	ck_assert_double_eq_tol(r[0], -d / 3, 1e-6);
	ck_assert_double_eq_tol(r[1], -d / 3, 1e-6);
	ck_assert_double_eq_tol(r[2], 2 * d / 3, 1e-6);
}
END_TEST

/* Teams of two: {0,1} against {2,3} 3 to 1, {0,2} against {1,3} 2 to 1,
 * {0,3} against {1,2} 1 to 1. Three games, three free ratings (centred):
 * the fit is exact, d1 = s0 + s1 - s2 - s3 = ln 3, d2 = ln 2, d3 = 0;
 * with sum(s) = 0, d_j = 2 (s0 + s_j), so s0 = (d1 + d2 + d3) / 4 =
 * ln 6 / 4, s1 = ln(3/2) / 4, s2 = ln(2/3) / 4, s3 = -ln 6 / 4. */
START_TEST(teams_closed_form)
{
	static struct games G;
	const uint32_t ag[3][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2}},
		       tm[4] = {0, 0, 1, 1}, win[4] = {0, 0, 1, 1},
		       loss[4] = {1, 1, 0, 0};
	const double w[3] = {300, 200, 100};
	const double want[4] = {log(6.0) / 4, log(1.5) / 4, log(2 / 3.0) / 4,
				-log(6.0) / 4};
	double r[4];

	G.n = 0;
	for (int i = 0; i < 3; i++) {
		add(&G, 4, ag[i], tm, win, w[i]);
		add(&G, 4, ag[i], tm, loss, 100);
	}
	fit(&G, 4, 1e-9, r, NULL, NULL);
	for (int a = 0; a < 4; a++)
		ck_assert_double_eq_tol(r[a], want[a] * ELO, 1e-6);
}
END_TEST

/* Near-certain outcomes: 10^12 wins against 10^-3 losses. The winner's
 * log-likelihood terms are log1p of odds near 1e-15, which a plain
 * S + log z - S rounds away (the line search then stalls): the fit must
 * converge and agree with payoff_elo_fit. A prior lost in rounding
 * against such weights is LG_ERANGE, said so. */
START_TEST(saturated)
{
	static struct games G;
	const uint32_t ids[2] = {0, 1};
	double r[2], elo[2], se[2];
	payoff *p = NULL;
	struct payoff_entry e = {.wins = 1e12, .losses = 1e-3,
				 .games = 1e12 + 1e-3};
	char err[256] = "";

	ck_assert_int_eq(payoff_new(&p, NULL), 0);
	ck_assert_int_eq(payoff_add(p, 0), 0);
	ck_assert_int_eq(payoff_add(p, 1), 0);
	ck_assert_int_eq(payoff_set(p, 0, 1, &e), 0);
	ck_assert_int_eq(payoff_elo_fit(p, ids, 2, 1, elo), 0);
	G.n = 0;
	add_pair(&G, 0, 1, e.wins, 0, e.losses);
	fit(&G, 2, 1, r, se, NULL);
	ck_assert_double_eq_tol(r[0], elo[0], 1e-6);
	ck_assert_double_eq_tol(r[1], elo[1], 1e-6);
	ck_assert(isfinite(se[0]) && se[0] > 0);
	ck_assert_int_eq(payoff_pl_fit(G.g, G.n, 2, 1e-20, r, NULL, NULL,
				       err, sizeof err), LG_ERANGE);
	ck_assert_ptr_nonnull(strstr(err, "not positive definite"));
	payoff_free(p);
}
END_TEST

/* Self-play (one agent on both sides) and weight-0 games carry no
 * information: adding them changes nothing. */
START_TEST(no_information)
{
	static struct games G;
	const uint32_t self[2] = {1, 1}, win[2] = {0, 1},
		       ag4[4] = {0, 1, 1, 2}, tm4[4] = {0, 0, 1, 1},
		       rk4[4] = {0, 0, 1, 1}, ag3[3] = {0, 1, 2},
		       rk3[3] = {2, 0, 1};
	double a[3], b[3], sa[3], sb[3];

	G.n = 0;
	add_pair(&G, 0, 1, 7, 1, 3);
	add_pair(&G, 1, 2, 4, 0, 5);
	add_pair(&G, 0, 2, 2, 2, 2);
	fit(&G, 3, 1, a, sa, NULL);
	add(&G, 2, self, NULL, win, 1000);
	add(&G, 3, ag3, NULL, rk3, 0);
	fit(&G, 3, 1, b, sb, NULL);
	for (int i = 0; i < 3; i++) {
		ck_assert_double_eq_tol(a[i], b[i], 1e-9);
		ck_assert_double_eq_tol(sa[i], sb[i], 1e-9);
	}
	/* agent 1 on both teams: {0, 1} beating {1, 2} is 0 beating 2 */
	add(&G, 4, ag4, tm4, rk4, 50);
	fit(&G, 3, 1, b, sb, NULL);
	G.n--;
	add_pair(&G, 0, 2, 50, 0, 0);
	fit(&G, 3, 1, a, sa, NULL);
	for (int i = 0; i < 3; i++) {
		ck_assert_double_eq_tol(a[i], b[i], 1e-9);
		ck_assert_double_eq_tol(sa[i], sb[i], 1e-9);
	}
	ck_assert(b[0] - b[2] > 100);
}
END_TEST

/* Centred covariance: every row sums to 0, its diagonal is se^2, it is
 * symmetric; se of a difference from it. */
START_TEST(covariance_centred)
{
	static struct games G;
	const uint32_t ag[4] = {0, 1, 2, 3}, tm[4] = {0, 0, 1, 1};
	uint32_t rk[4];
	double r[4], se[4], cov[16];
	lg_rng rng;

	lg_rng_seed(&rng, 7);
	G.n = 0;
	for (int i = 0; i < 200; i++) {
		uint32_t perm[4] = {0, 1, 2, 3};
		for (int k = 3; k > 0; k--) {
			uint32_t j = (uint32_t)lg_rng_below(&rng, (uint64_t)k + 1);
			uint32_t t = perm[k];
			perm[k] = perm[j];
			perm[j] = t;
		}
		if (i % 2) {
			uint32_t w = lg_rng_below(&rng, 3) ? 0 : 1;
			uint32_t tm2[4] = {0, 0, 1, 1};
			for (int s = 0; s < 4; s++)
				rk[s] = tm2[s] == w ? 0 : 1;
			add(&G, 4, perm, tm, rk, 1);
		} else {
			add(&G, 4, ag, NULL, perm, 1);
		}
	}
	fit(&G, 4, 1, r, se, cov);
	for (int a = 0; a < 4; a++) {
		double row = 0;
		for (int b = 0; b < 4; b++) {
			row += cov[a * 4 + b];
			ck_assert_double_eq_tol(cov[a * 4 + b], cov[b * 4 + a],
						1e-9);
		}
		ck_assert_double_eq_tol(row, 0, 1e-7);
		ck_assert_double_eq_tol(se[a] * se[a], cov[a * 4 + a], 1e-7);
		ck_assert(se[a] > 10 && se[a] < 200);
	}
}
END_TEST

/* ---- a simulated population ---- */

#define POP 20

/* ngames games of 3 or 4 teams (alternating) of 1 or 2 seats each,
 * agents drawn without repeats from POP, ranked by drawing Plackett-Luce
 * choices from the true log-strengths s. */
static void simulate(struct games *G, lg_rng *rng, const double *s,
		     size_t ngames)
{
	G->n = 0;
	for (size_t i = 0; i < ngames; i++) {
		uint32_t k = 3 + (uint32_t)(i % 2), ns = 0, pool[POP];
		uint32_t ag[8], tm[8], rk[8], left[4];
		double S[4] = {0};
		for (uint32_t a = 0; a < POP; a++)
			pool[a] = a;
		for (uint32_t t = 0; t < k; t++) {
			uint32_t m = 1 + (uint32_t)lg_rng_below(rng, 2);
			for (uint32_t j = 0; j < m; j++, ns++) {
				uint32_t x = ns + (uint32_t)lg_rng_below(
							  rng, POP - ns);
				uint32_t y = pool[x];
				pool[x] = pool[ns];
				pool[ns] = y;
				ag[ns] = y;
				tm[ns] = t;
				S[t] += s[y];
			}
			left[t] = t;
		}
		for (uint32_t pos = 0; pos < k; pos++) {
			double w[4], z = 0, u;
			uint32_t pick = k - 1 - pos;
			for (uint32_t j = 0; j < k - pos; j++)
				z += w[j] = exp(S[left[j]]);
			u = lg_rng_double(rng) * z;
			for (uint32_t j = 0; j < k - pos; j++)
				if ((u -= w[j]) < 0) {
					pick = j;
					break;
				}
			for (uint32_t x = 0; x < ns; x++)
				if (tm[x] == left[pick])
					rk[x] = pos;
			left[pick] = left[k - 1 - pos];
		}
		add(G, ns, ag, tm, rk, 1);
	}
}

/* True log-strengths, uniform in [-1.5, 1.5] (+-260 Elo), centred. */
static void truth(lg_rng *rng, double *s)
{
	double m = 0;
	for (int a = 0; a < POP; a++)
		m += s[a] = 3 * lg_rng_double(rng) - 1.5;
	for (int a = 0; a < POP; a++)
		s[a] -= m / POP;
}

/*
 * Coverage: REPS = 40 populations of 20 agents, 2000 games each: 800
 * intervals r +- 1.96 se against the true centred ratings. If the
 * intervals are right each covers with probability 0.95, so the count is
 * about Binomial(800, 0.95) (mean 760, sd 6.2; the centring correlates
 * the 20 errors of a population only weakly); P(count <= 739) = 0.0009,
 * so at least 740 must cover. Too wide intervals would pass that, so the
 * mean of z^2 = ((r - true) / se)^2 must also be 1 within 0.2: its sd is
 * about sqrt(2 / 760) = 0.05 (19 free errors per centred population),
 * so that is 4 sd, and se off by 20% either way (z^2 1.56 or 0.69) fails.
 */
#define REPS 40
START_TEST(recovers_population)
{
	static struct games G;
	double s[POP], r[POP], se[POP], z2 = 0;
	int covered = 0;
	lg_rng rng;

	lg_rng_seed(&rng, 3901);
	for (int rep = 0; rep < REPS; rep++) {
		truth(&rng, s);
		simulate(&G, &rng, s, 2000);
		fit(&G, POP, 1, r, se, NULL);
		for (int a = 0; a < POP; a++) {
			double z = (r[a] - s[a] * ELO) / se[a];
			covered += fabs(z) <= 1.96;
			z2 += z * z;
		}
	}
	z2 /= REPS * POP;
	ck_assert_msg(covered >= 740, "%d of 800 intervals cover", covered);
	ck_assert_msg(fabs(z2 - 1) < 0.2, "mean z^2 %.3f", z2);
}
END_TEST

/*
 * The intervals shrink as 1/sqrt(games): the same population with 1000
 * and 4000 games, the mean se ratio must be 2 within 0.1. The se is
 * ELO / sqrt(information), the information a sum over games; an agent
 * plays about a quarter of the games, so at 1000 games its information
 * varies by about 1 / sqrt(250) = 6% and its se by 3%; averaged over 20
 * agents, 0.7%, so 5% is several sd.
 */
START_TEST(se_shrinks)
{
	static struct games G;
	double s[POP], r[POP], se1[POP], se4[POP], m1 = 0, m4 = 0;
	lg_rng rng;

	lg_rng_seed(&rng, 3902);
	truth(&rng, s);
	simulate(&G, &rng, s, 1000);
	fit(&G, POP, 1, r, se1, NULL);
	simulate(&G, &rng, s, 4000);
	fit(&G, POP, 1, r, se4, NULL);
	for (int a = 0; a < POP; a++) {
		m1 += se1[a] / POP;
		m4 += se4[a] / POP;
	}
	ck_assert_msg(fabs(m1 / m4 - 2) < 0.1, "se ratio %.4f", m1 / m4);
}
END_TEST

/* Each bad input: LG_EINVAL and an error naming the game and seat. */
START_TEST(bad_input)
{
	static struct games G;
	const uint32_t ag[3] = {0, 1, 2}, rk[3] = {0, 1, 2},
		       tm[3] = {0, 0, 1};
	const uint32_t bad_agent[3] = {0, 1, 3}, bad_rank[3] = {0, 3, 1},
		       mixed[3] = {0, 1, 2}, bad_team[3] = {0, 5, 1},
		       one_team[3] = {1, 1, 1};
	struct {
		const uint32_t *agent, *team, *rank;
		uint32_t ns;
		double w;
		const char *want;
	} cases[] = {
		{bad_agent, NULL, rk, 3, 1, "game 1 seat 2: agent 3 out of"},
		{ag, NULL, bad_rank, 3, 1, "game 1 seat 1: rank 3"},
		{ag, tm, mixed, 3, 1, "game 1 team 0: seats 0 and 1 carry "
				      "ranks 0 and 1"},
		{ag, bad_team, rk, 3, 1, "game 1 seat 1: team 5"},
		{ag, one_team, rk, 3, 1, "game 1 team 1: seats 0 and 1"},
		{ag, one_team, one_team, 3, 1, "game 1: one team"},
		{ag, NULL, rk, 3, -1, "game 1: weight -1"},
		{ag, NULL, rk, 3, NAN, "game 1: weight nan"},
		{ag, NULL, rk, 3, INFINITY, "game 1: weight inf"},
		{ag, NULL, rk, 1, 1, "game 1: 1 seats"},
		{ag, NULL, rk, 65, 1, "game 1: 65 seats"},
		{ag, NULL, NULL, 3, 1, "game 1: no rank"},
	};
	double r[3];
	char err[256];

	for (size_t i = 0; i < LG_ARRAY_LEN(cases); i++) {
		G.n = 0;
		add(&G, 3, ag, NULL, rk, 1);
		add(&G, 3, ag, NULL, rk, 1);
		G.g[1] = (struct payoff_pl_game){
			.nseats = cases[i].ns, .agent = cases[i].agent,
			.team = cases[i].team, .rank = cases[i].rank,
			.weight = cases[i].w};
		err[0] = 0;
		ck_assert_int_eq(payoff_pl_fit(G.g, G.n, 3, 1, r, NULL, NULL,
					       err, sizeof err), LG_EINVAL);
		ck_assert_msg(strstr(err, cases[i].want), "case %zu: '%s'", i,
			      err);
	}
	G.n = 1;
	ck_assert_int_eq(payoff_pl_fit(G.g, 1, 3, 0, r, NULL, NULL, err,
				       sizeof err), LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "prior 0"));
	ck_assert_int_eq(payoff_pl_fit(G.g, 1, 3, NAN, r, NULL, NULL, err,
				       sizeof err), LG_EINVAL);
	ck_assert_int_eq(payoff_pl_fit(G.g, 1, 0, 1, r, NULL, NULL, NULL, 0),
			 LG_EINVAL);
	ck_assert_int_eq(payoff_pl_fit(G.g, 1, PAYOFF_PL_MAX_AGENTS + 1, 1,
				       r, NULL, NULL, NULL, 0), LG_EINVAL);
	ck_assert_int_eq(payoff_pl_fit(NULL, 1, 3, 1, r, NULL, NULL, NULL, 0),
			 LG_EINVAL);
	ck_assert_int_eq(payoff_pl_fit(G.g, 1, 3, 1, NULL, NULL, NULL, NULL,
				       0), LG_EINVAL);
	/* no games: every agent at the anchor, se from the prior alone */
	{
		double se[3];
		ck_assert_int_eq(payoff_pl_fit(NULL, 0, 3, 4, r, se, NULL,
					       NULL, 0), 0);
		for (int a = 0; a < 3; a++) {
			ck_assert_double_eq(r[a], 0);
			/* var 1 / (prior / 4) = 1, centred (1 - 1/3) */
			ck_assert_double_eq_tol(se[a], ELO * sqrt(2.0 / 3),
						1e-9);
		}
	}
}
END_TEST

/* ---- the online update ---- */

/* Weng and Lin's Algorithm 4 as printed, on ns seats with distinct
 * agents (agent = seat), tm[s] the team of seat s among k, r[i] team i's
 * rank: the reference payoff_pl_update must match (c^2 = ELO^2 + the
 * teams' sigma^2, their k beta^2 set to the fit's scale; gamma = sigma_i
 * / c; a member moves by its share sigma_j^2 / sigma_i^2 of its team's
 * Omega and Delta). */
static void weng_lin(uint32_t ns, const uint32_t *tm, uint32_t k,
		     const uint32_t *r, double *mu, double *sg)
{
	double c2 = ELO * ELO, c, e[8], C[8], A[8], tmu[8] = {0}, tv[8] = {0};
	double om[8] = {0}, de[8] = {0};

	for (uint32_t s = 0; s < ns; s++) {
		tmu[tm[s]] += mu[s];
		tv[tm[s]] += sg[s] * sg[s];
	}
	for (uint32_t i = 0; i < k; i++)
		c2 += tv[i];
	c = sqrt(c2);
	for (uint32_t i = 0; i < k; i++)
		e[i] = exp(tmu[i] / c);
	for (uint32_t q = 0; q < k; q++) {
		C[q] = A[q] = 0;
		for (uint32_t s2 = 0; s2 < k; s2++) {
			C[q] += r[s2] >= r[q] ? e[s2] : 0;
			A[q] += r[s2] == r[q];
		}
	}
	for (uint32_t i = 0; i < k; i++) {
		double gam = sqrt(tv[i]) / c;
		for (uint32_t q = 0; q < k; q++) {
			double pq = e[i] / C[q];
			if (r[q] > r[i])
				continue;
			om[i] += tv[i] / c / A[q] * ((q == i) - pq);
			de[i] += gam * tv[i] / c2 / A[q] * pq * (1 - pq);
		}
	}
	for (uint32_t s = 0; s < ns; s++) {
		double v = sg[s] * sg[s], share = v / tv[tm[s]];
		mu[s] += share * om[tm[s]];
		sg[s] = sqrt(v * LG_MAX(1 - share * de[tm[s]], 1e-4));
	}
}

START_TEST(online_matches_weng_lin)
{
	const uint32_t ag[4] = {0, 1, 2, 3};
	const uint32_t ranks[3][4] = {{0, 1, 1, 3}, {2, 0, 2, 1},
				      {0, 0, 0, 0}};
	struct payoff_pl_game g = {.nseats = 4, .agent = ag, .weight = 1};
	char err[128];

	for (int i = 0; i < 3; i++) {
		double mu[4] = {100, -50, 0, 20}, sg[4] = {300, 100, 200, 50};
		double m2[4], s2[4];
		memcpy(m2, mu, sizeof mu);
		memcpy(s2, sg, sizeof sg);
		g.rank = ranks[i];
		ck_assert_int_eq(payoff_pl_update(&g, 4, mu, sg, err,
						  sizeof err), 0);
		weng_lin(4, ag, 4, ranks[i], m2, s2);
		for (int a = 0; a < 4; a++) {
			ck_assert_double_eq_tol(mu[a], m2[a], 1e-9);
			ck_assert_double_eq_tol(sg[a], s2[a], 1e-9);
		}
	}
	/* teams of 2, 1 and 2 seats, the first two tied */
	{
		const uint32_t ag5[5] = {0, 1, 2, 3, 4},
			       tm5[5] = {0, 0, 1, 2, 2}, tr[3] = {0, 0, 2},
			       rk5[5] = {0, 0, 0, 2, 2};
		struct payoff_pl_game h = {.nseats = 5, .agent = ag5,
					   .team = tm5, .rank = rk5,
					   .weight = 1};
		double mu[5] = {80, -20, 150, 10, 40},
		       sg[5] = {250, 90, 300, 60, 120}, m2[5], s2[5];
		memcpy(m2, mu, sizeof mu);
		memcpy(s2, sg, sizeof sg);
		ck_assert_int_eq(payoff_pl_update(&h, 5, mu, sg, NULL, 0), 0);
		weng_lin(5, tm5, 3, tr, m2, s2);
		for (int a = 0; a < 5; a++) {
			ck_assert_double_eq_tol(mu[a], m2[a], 1e-9);
			ck_assert_double_eq_tol(sg[a], s2[a], 1e-9);
		}
	}
	/* two agents, 0 wins, by hand: p = 1/2, mu moves sigma^2 / (2c),
	 * sigma^2 shrinks by (sigma / c) sigma^2 / (4 c^2) */
	{
		const uint32_t two[2] = {0, 1}, win[2] = {0, 1};
		struct payoff_pl_game h = {.nseats = 2, .agent = two,
					   .rank = win, .weight = 1};
		double mu[2] = {0, 0}, sg[2] = {200, 200};
		double c = sqrt(ELO * ELO + 2 * 200 * 200), v = 200 * 200;
		ck_assert_int_eq(payoff_pl_update(&h, 2, mu, sg, NULL, 0), 0);
		ck_assert_double_eq_tol(mu[0], v / (2 * c), 1e-9);
		ck_assert_double_eq_tol(mu[1], -v / (2 * c), 1e-9);
		ck_assert_double_eq_tol(sg[0] * sg[0],
					v * (1 - 200 / c * v / (4 * c * c)),
					1e-7);
		/* weight 0 and self-play move nothing */
		double m0 = mu[0], s0 = sg[0];
		const uint32_t self[2] = {0, 0};
		h.weight = 0;
		ck_assert_int_eq(payoff_pl_update(&h, 2, mu, sg, NULL, 0), 0);
		h.weight = 3;
		h.agent = self;
		ck_assert_int_eq(payoff_pl_update(&h, 2, mu, sg, NULL, 0), 0);
		ck_assert_double_eq(mu[0], m0);
		ck_assert_double_eq(sg[0], s0);
	}
}
END_TEST

/*
 * A stream of 8000 simulated games (the population of
 * recovers_population, 20 agents) from mu 0, sigma 350: the online
 * ratings (centred) end near the truth. The batch fit on the same games
 * has se about 6.3 Elo (se_shrinks: 8.9 at 4000 games, / sqrt 2); an
 * online method sees each game once, at the means of that moment (the
 * early games at sigma 350 move it far and are never revisited), so it is
 * given 4 times the fit's error: RMS error under 4 * 6.3 = 25 Elo (seen:
 * 15.8, with final sigmas near 19), and the fit's own RMS error under
 * 2 * 6.3 (seen: 5.7; a mean of 20 squared errors of sd 6.3 exceeds 4
 * times its expectation with probability below 1e-6).
 */
START_TEST(online_tracks_population)
{
	static struct games G;
	double s[POP], mu[POP], sg[POP], r[POP], m = 0, e_on = 0, e_fit = 0;
	lg_rng rng;

	lg_rng_seed(&rng, 3903);
	truth(&rng, s);
	simulate(&G, &rng, s, 8000);
	for (int a = 0; a < POP; a++) {
		mu[a] = 0;
		sg[a] = 350;
	}
	for (size_t i = 0; i < G.n; i++)
		ck_assert_int_eq(payoff_pl_update(&G.g[i], POP, mu, sg, NULL,
						  0), 0);
	fit(&G, POP, 1, r, NULL, NULL);
	for (int a = 0; a < POP; a++)
		m += mu[a] / POP;
	for (int a = 0; a < POP; a++) {
		e_on += pow(mu[a] - m - s[a] * ELO, 2) / POP;
		e_fit += pow(r[a] - s[a] * ELO, 2) / POP;
	}
	ck_assert_msg(sqrt(e_on) < 25, "online RMS error %.1f", sqrt(e_on));
	ck_assert_msg(sqrt(e_fit) < 12.6, "fit RMS error %.1f", sqrt(e_fit));
}
END_TEST

START_TEST(online_bad_input)
{
	const uint32_t ag[2] = {0, 1}, bad[2] = {0, 2}, rk[2] = {0, 1};
	struct payoff_pl_game g = {.nseats = 2, .agent = ag, .rank = rk,
				   .weight = 1};
	double mu[2] = {0, NAN}, sg[2] = {100, 100};
	char err[128] = "";

	ck_assert_int_eq(payoff_pl_update(&g, 2, mu, sg, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "agent 1 has mu nan"));
	mu[1] = 0;
	sg[0] = 0;
	ck_assert_int_eq(payoff_pl_update(&g, 2, mu, sg, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "sigma 0"));
	ck_assert_double_eq(mu[0], 0);
	sg[0] = 100;
	g.agent = bad;
	ck_assert_int_eq(payoff_pl_update(&g, 2, mu, sg, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "agent 2 out of range"));
	g.agent = ag;
	g.weight = -1;
	ck_assert_int_eq(payoff_pl_update(&g, 2, mu, sg, NULL, 0), LG_EINVAL);
	ck_assert_int_eq(payoff_pl_update(NULL, 2, mu, sg, NULL, 0),
			 LG_EINVAL);
}
END_TEST

START_TEST(ranks_from_scores)
{
	const double score[5] = {1, 3, 3, -1, 3};
	const double bad[2] = {1, NAN};
	uint32_t rank[5];

	ck_assert_int_eq(payoff_pl_rank(score, 5, rank), 0);
	ck_assert_uint_eq(rank[0], 3);
	ck_assert_uint_eq(rank[1], 0);
	ck_assert_uint_eq(rank[2], 0);
	ck_assert_uint_eq(rank[3], 4);
	ck_assert_uint_eq(rank[4], 0);
	ck_assert_int_eq(payoff_pl_rank(bad, 2, rank), LG_EINVAL);
}
END_TEST

Suite *suite_plackett(void)
{
	Suite *s = suite_create("plackett");
	const struct tu_test tests[] = {
		{ two_agents_closed_form, 1 },
		{ agrees_with_elo_fit, 1 },
		{ three_teams_closed_form, 1 },
		{ tie_closed_form, 1 },
		{ teams_closed_form, 1 },
		{ saturated, 1 },
		{ no_information, 1 },
		{ covariance_centred, 1 },
		{ recovers_population, 1 },
		{ se_shrinks, 1 },
		{ bad_input, 1 },
		{ ranks_from_scores, 1 },
		{ online_matches_weng_lin, 1 },
		{ online_tracks_population, 1 },
		{ online_bad_input, 1 },
	};

	TU_TCASE(s, "core", 60, tests);
	return s;
}
