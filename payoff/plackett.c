/*
 * payoff/plackett.c: ratings from ranked games of N teams, the
 * Plackett-Luce model (payoff.h, "Plackett-Luce ratings"), fitted by
 * maximum a posteriori with payoff_elo_fit's prior, with the full
 * covariance of the fit.
 *
 * The model. Agent a has a log-strength s_a (its rating is 400 / ln 10
 * times that, in Elo points); a team's log-strength S is the sum of its
 * seats' agents'. A game's ranking is built best first: at each stage the
 * group of teams sharing the best rank among those remaining (R) is
 * chosen, and the stage scores
 *
 *   (1 / t) sum_{i in G} S_i - log sum_{u in R} exp(S_u)     (|G| = t)
 *
 * then G leaves R; a stage with one team left scores 0. A group of one is
 * the Plackett-Luce choice; a tie of t teams shares the stage, each
 * chosen with weight 1/t (for two teams: a draw counts half, as in
 * payoff_elo_fit; the same rule as Weng and Lin 2011's A_q). Every stage is
 * linear minus a log-sum-exp of linear terms, so the log-likelihood is
 * concave, and the prior (prior virtual draws of every agent against an
 * anchor of log-strength 0, each scoring 0.5 log sigma(s) + 0.5 log
 * sigma(-s)) makes it strictly concave: one maximum, finite.
 *
 * The fit. Newton's method on F = -(log-likelihood + log-prior), dense
 * Hessian, Cholesky solve, backtracking line search (Armijo, halving),
 * stopped by the Newton decrement (pl_newton) or LG_ERANGE after 100
 * iterations. The covariance of s is the inverse Hessian at the optimum;
 * ratings are centred on mean 0 and so is their covariance (P H^-1 P,
 * P = I - 11'/n, pl_covariance).
 *
 * The online update (payoff_pl_update) is Weng and Lin's Algorithm 4 on
 * the same per-game derivatives (pl_game), evaluated at the beliefs'
 * means with their scale c.
 *
 * No fuzz harness: the module parses no outside bytes; it takes structs
 * from its callers, and checks every field of them (pl_check_game).
 */
#include "payoff/payoff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PL_ELO (400.0 / M_LN10) /* Elo points per unit of log-strength */
#define PL_DEC_TOL 1e-20
#define PL_DEC_FLOOR 1e-8
#define PL_ITERS 100

/* One game's teams, worked out from its seats. */
struct pl_view {
	uint32_t nteams;
	uint32_t tidx[PAYOFF_PL_MAX_SEATS];  /* seat -> local team */
	uint32_t trank[PAYOFF_PL_MAX_SEATS]; /* local team -> rank */
	uint32_t order[PAYOFF_PL_MAX_SEATS]; /* local teams, best first */
};

struct pl_ctx {
	const struct payoff_pl_game *g;
	size_t ngames;
	uint32_t n;
	double prior;
	double gT[PAYOFF_PL_MAX_SEATS];
	double hT[PAYOFF_PL_MAX_SEATS * PAYOFF_PL_MAX_SEATS];
};

/* The teams of a checked game g: dense local indices in order of first
 * seat, their ranks, and the order best first (stable: insertion). */
static void pl_teams(const struct payoff_pl_game *g, struct pl_view *v)
{
	uint32_t map[PAYOFF_PL_MAX_SEATS];

	v->nteams = 0;
	for (uint32_t s = 0; s < g->nseats; s++)
		map[s] = UINT32_MAX;
	for (uint32_t s = 0; s < g->nseats; s++) {
		uint32_t t = g->team ? g->team[s] : s;
		if (map[t] == UINT32_MAX) {
			map[t] = v->nteams;
			v->trank[v->nteams++] = g->rank[s];
		}
		v->tidx[s] = map[t];
	}
	for (uint32_t i = 0; i < v->nteams; i++) {
		uint32_t j = i;
		while (j > 0 && v->trank[v->order[j - 1]] > v->trank[i]) {
			v->order[j] = v->order[j - 1];
			j--;
		}
		v->order[j] = i;
	}
}

/* Game gi's contract (payoff_pl_fit's errors), detail in err. */
static int pl_check_game(const struct payoff_pl_game *g, size_t gi,
			 uint32_t nagents, char *err, size_t errlen)
{
	uint32_t seen[PAYOFF_PL_MAX_SEATS];
	struct pl_view v;

	if (g->nseats < 2 || g->nseats > PAYOFF_PL_MAX_SEATS) {
		lg_errf(err, errlen, "game %zu: %u seats, not in 2..%u", gi,
			g->nseats, PAYOFF_PL_MAX_SEATS);
		return LG_EINVAL;
	}
	if (!g->agent || !g->rank) {
		lg_errf(err, errlen, "game %zu: no %s array", gi,
			g->agent ? "rank" : "agent");
		return LG_EINVAL;
	}
	if (!(g->weight >= 0) || !isfinite(g->weight)) {
		lg_errf(err, errlen, "game %zu: weight %g is not a finite "
			"number >= 0", gi, g->weight);
		return LG_EINVAL;
	}
	for (uint32_t s = 0; s < g->nseats; s++) {
		uint32_t t = g->team ? g->team[s] : s;
		if (g->agent[s] >= nagents) {
			lg_errf(err, errlen, "game %zu seat %u: agent %u out "
				"of range (%u agents)", gi, s, g->agent[s],
				nagents);
			return LG_EINVAL;
		}
		if (t >= g->nseats || g->rank[s] >= g->nseats) {
			lg_errf(err, errlen, "game %zu seat %u: %s %u is not "
				"below the %u seats", gi, s,
				t >= g->nseats ? "team" : "rank",
				t >= g->nseats ? t : g->rank[s], g->nseats);
			return LG_EINVAL;
		}
		seen[t] = UINT32_MAX;
	}
	for (uint32_t s = 0; s < g->nseats; s++) {
		uint32_t t = g->team ? g->team[s] : s;
		if (seen[t] != UINT32_MAX && g->rank[seen[t]] != g->rank[s]) {
			lg_errf(err, errlen, "game %zu team %u: seats %u and "
				"%u carry ranks %u and %u", gi, t, seen[t], s,
				g->rank[seen[t]], g->rank[s]);
			return LG_EINVAL;
		}
		if (seen[t] == UINT32_MAX)
			seen[t] = s;
	}
	pl_teams(g, &v);
	if (v.nteams < 2) {
		lg_errf(err, errlen, "game %zu: one team, nothing ranked", gi);
		return LG_EINVAL;
	}
	return 0;
}

/*
 * -log of the probability that team x (log-strength S[x]) is chosen from
 * the teams R[0..m) (x among them): log sum_u exp(S_u - S_x), formed so
 * that a near-certain choice keeps its tiny value (log1p of the others'
 * odds) instead of vanishing in S_x + log z - S_x.
 */
static double pl_surprise(const double *S, const uint32_t *R, uint32_t m,
			  uint32_t x)
{
	double mx = 0, z = 0;

	for (uint32_t u = 0; u < m; u++)
		mx = LG_MAX(mx, S[R[u]] - S[x]);
	for (uint32_t u = 0; u < m; u++)
		if (mx > 0 || R[u] != x)
			z += exp(S[R[u]] - S[x] - mx);
	return mx > 0 ? mx + log(z) : log1p(z);
}

/*
 * One stage: the group R[0..t) chosen from R[0..m), weight w; gT, hT
 * as pl_game's. The choice probabilities p and their complements
 * 1 - p (summed from the others, exact where p is near 1) come from the
 * shifted exponentials.
 */
static void pl_stage_derivs(const double *S, const uint32_t *R, uint32_t m,
			    uint32_t t, uint32_t k, double w, double *gT,
			    double *hT)
{
	double e[PAYOFF_PL_MAX_SEATS], mx = -INFINITY, z = 0;

	for (uint32_t i = 0; i < m; i++)
		mx = LG_MAX(mx, S[R[i]]);
	for (uint32_t i = 0; i < m; i++)
		z += e[i] = exp(S[R[i]] - mx);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t a = R[i];
		double p = e[i] / z, q = 0;
		for (uint32_t j = 0; j < m; j++)
			q += j == i ? 0 : e[j];
		q /= z;
		if (i < t)
			gT[a] += w * (t == 1 ? -q : p - 1.0 / t);
		else
			gT[a] += w * p;
		hT[a * k + a] += w * p * q;
		for (uint32_t j = 0; j < i; j++) {
			uint32_t b = R[j];
			hT[a * k + b] -= w * p * e[j] / z;
			hT[b * k + a] -= w * p * e[j] / z;
		}
	}
}

/*
 * One game's F = -weight * log-likelihood at log-strengths scale * s
 * (s by agent id); with gT non-NULL also its gradient gT[t] and Hessian
 * hT[t * k + u] with respect to the k teams' log-strengths (added to
 * what they hold).
 */
static double pl_game(const struct payoff_pl_game *g, const struct pl_view *v,
		      const double *s, double scale, double *gT, double *hT)
{
	double S[PAYOFF_PL_MAX_SEATS], f = 0;
	uint32_t k = v->nteams, pos = 0;

	for (uint32_t t = 0; t < k; t++)
		S[t] = 0;
	for (uint32_t x = 0; x < g->nseats; x++)
		S[v->tidx[x]] += scale * s[g->agent[x]];
	while (k - pos > 1) {
		const uint32_t *R = v->order + pos;
		uint32_t end = pos + 1;
		while (end < k && v->trank[v->order[end]] ==
					  v->trank[v->order[pos]])
			end++;
		for (uint32_t i = 0; i < end - pos; i++)
			f += pl_surprise(S, R, k - pos, R[i]) /
			     (double)(end - pos);
		if (gT)
			pl_stage_derivs(S, R, k - pos, end - pos, k,
					g->weight, gT, hT);
		pos = end;
	}
	return g->weight * f;
}

/* log(1 + e^x) without overflow. */
static double softplus(double x)
{
	return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

/*
 * F(s) over every game and the prior; with grad and H non-NULL (n and
 * n * n, overwritten) also its gradient and Hessian.
 */
static double pl_eval(struct pl_ctx *c, const double *s, double *grad,
		      double *H)
{
	size_t n = c->n;
	double f = 0;

	if (grad) {
		memset(grad, 0, n * sizeof *grad);
		memset(H, 0, n * n * sizeof *H);
	}
	for (size_t gi = 0; gi < c->ngames; gi++) {
		const struct payoff_pl_game *g = &c->g[gi];
		struct pl_view v;
		uint32_t k;
		if (!(g->weight > 0))
			continue;
		pl_teams(g, &v);
		k = v.nteams;
		if (grad) {
			memset(c->gT, 0, k * sizeof *c->gT);
			memset(c->hT, 0, (size_t)k * k * sizeof *c->hT);
		}
		f += pl_game(g, &v, s, 1.0, grad ? c->gT : NULL, c->hT);
		for (uint32_t x = 0; grad && x < g->nseats; x++) {
			uint32_t a = g->agent[x], tx = v.tidx[x];
			grad[a] += c->gT[tx];
			for (uint32_t y = 0; y < g->nseats; y++)
				H[(size_t)a * n + g->agent[y]] +=
					c->hT[tx * k + v.tidx[y]];
		}
	}
	for (size_t a = 0; a < n; a++) {
		double q = 1.0 / (1.0 + exp(-s[a]));
		f += c->prior * 0.5 * (softplus(-s[a]) + softplus(s[a]));
		if (grad) {
			grad[a] += c->prior * (q - 0.5);
			H[a * n + a] += c->prior * q * (1 - q);
		}
	}
	return f;
}

/* a . b over n entries, in four partial sums (the compiler may not
 * reorder a floating-point sum itself; this keeps the Cholesky and the
 * inverse near the machine's speed). */
static double dot(const double *a, const double *b, size_t n)
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t k = 0;

	for (; k + 4 <= n; k += 4) {
		s0 += a[k] * b[k];
		s1 += a[k + 1] * b[k + 1];
		s2 += a[k + 2] * b[k + 2];
		s3 += a[k + 3] * b[k + 3];
	}
	for (; k < n; k++)
		s0 += a[k] * b[k];
	return (s0 + s1) + (s2 + s3);
}

/* In place: the lower triangle of A (n x n, symmetric positive definite)
 * becomes its Cholesky factor L (A = L L'). LG_ERANGE if A is not
 * positive definite in floating point. */
static int pl_cholesky(double *A, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		double *rj = A + j * n, d = rj[j] - dot(rj, rj, j);
		if (!(d > 0))
			return LG_ERANGE;
		rj[j] = sqrt(d);
		for (size_t i = j + 1; i < n; i++) {
			double *ri = A + i * n;
			ri[j] = (ri[j] - dot(ri, rj, j)) / rj[j];
		}
	}
	return 0;
}

/* x := (L L')^-1 x. */
static void pl_solve(const double *L, size_t n, double *x)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < i; k++)
			x[i] -= L[i * n + k] * x[k];
		x[i] /= L[i * n + i];
	}
	for (size_t i = n; i-- > 0;) {
		for (size_t k = i + 1; k < n; k++)
			x[i] -= L[k * n + i] * x[k];
		x[i] /= L[i * n + i];
	}
}

/*
 * Newton's method from s = 0 on c's F; H and grad (n * n and n) are its
 * workspace and end as the Cholesky factor of the Hessian and the
 * gradient at the returned s; step and trial are n more. Stops when the
 * Newton decrement g' H^-1 g is below PL_DEC_TOL: the distance to the
 * optimum is then below 1e-10 of a standard error in every direction
 * (|e_a| <= sqrt(decrement * (H^-1)_aa)). Rounding of the gradient (sums
 * of large weights, a direction of tiny curvature such as a tiny prior's)
 * can hold the decrement above that: once it is below PL_DEC_FLOOR (1e-4
 * standard errors) and no longer falls quadratically (not halved by a
 * step), or no step of the line search lowers F, s is taken as it is.
 * LG_ERANGE if the Hessian is not positive definite, the line search
 * fails above the floor or PL_ITERS are not enough.
 */
static int pl_newton(struct pl_ctx *c, double *s, double *grad, double *H,
		     double *step, double *trial, const char **why)
{
	size_t n = c->n;
	double prev = INFINITY;
	int rc;

	memset(s, 0, n * sizeof *s);
	for (int it = 0; it < PL_ITERS; it++) {
		double f = pl_eval(c, s, grad, H), dec = 0, t = 1;
		*why = "its Hessian is not positive definite in floating "
		       "point (a prior below about 1e-15 of an agent's total "
		       "game weight is lost in rounding)";
		if ((rc = pl_cholesky(H, n)))
			return rc;
		for (size_t a = 0; a < n; a++)
			step[a] = -grad[a];
		pl_solve(H, n, step);
		for (size_t a = 0; a < n; a++)
			dec -= grad[a] * step[a];
		if (dec < PL_DEC_TOL || (dec < PL_DEC_FLOOR && dec > prev / 2)) {
			for (size_t a = 0; a < n; a++)
				s[a] += step[a];
			return 0;
		}
		for (; t >= 1e-10; t *= 0.5) {
			for (size_t a = 0; a < n; a++)
				trial[a] = s[a] + t * step[a];
			if (pl_eval(c, trial, NULL, NULL) <= f - 1e-4 * t * dec)
				break;
		}
		*why = "no step of the line search lowered the objective";
		if (t < 1e-10)
			return dec < PL_DEC_FLOOR ? 0 : LG_ERANGE;
		memcpy(s, trial, n * sizeof *s);
		prev = dec;
	}
	*why = "100 iterations were not enough";
	return LG_ERANGE;
}

/*
 * The covariance of the centred ratings at the optimum s: se[a] (Elo
 * points) and, when cov is non-NULL, all of it (Elo points squared,
 * n * n). P H^-1 P (P = I - 11'/n) is formed without the cancellation
 * that subtracting the large variance of the common shift would bring
 * (a tiny prior): it equals M^+, M = H - v v' / (1'v) with v = H 1 (the
 * information about the centred ratings once the shift is free, M 1 = 0),
 * and M^+ = (M + a 11')^-1 - 11' / (a n^2) for any a > 0 (a: M's mean
 * eigenvalue scale). H, X (n * n), v and w (n) are workspace; X's row a
 * is column a of L^-1 (zero before a). O(n^3 / 6) for se, n^3 / 3 more
 * for cov. LG_ERANGE if M + a 11' is not positive definite in floating
 * point.
 */
static int pl_covariance(struct pl_ctx *c, const double *s, double *H,
			 double *X, double *v, double *w, double *se,
			 double *cov)
{
	size_t n = c->n;
	double d = 0, a = 0, dn = (double)n;

	pl_eval(c, s, w, H);
	for (size_t i = 0; i < n; i++) {
		v[i] = 0;
		for (size_t j = 0; j < n; j++)
			v[i] += H[i * n + j];
		d += v[i];
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++)
			H[i * n + j] -= v[i] * v[j] / d;
		a += H[i * n + i] / (dn * dn);
	}
	if (!(a > 0))
		a = 1;
	for (size_t i = 0; i < n * n; i++)
		H[i] += a;
	if (pl_cholesky(H, n))
		return LG_ERANGE;
	for (size_t i = 0; i < n; i++) {
		double *y = X + i * n;
		memset(y, 0, i * sizeof *y);
		for (size_t r = i; r < n; r++) {
			double t = (r == i ? 1.0 : 0.0) -
				   dot(H + r * n + i, y + i, r - i);
			y[r] = t / H[r * n + r];
		}
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = cov ? 0 : i; j <= i; j++) {
			double t = dot(X + i * n + i, X + j * n + i, n - i);
			t = (t - 1.0 / (a * dn * dn)) * PL_ELO * PL_ELO;
			if (cov)
				cov[i * n + j] = cov[j * n + i] = t;
			if (j == i && se)
				se[i] = sqrt(LG_MAX(t, 0.0));
		}
	return 0;
}

int payoff_pl_fit(const struct payoff_pl_game *g, size_t ngames,
		  uint32_t nagents, double prior, double *rating, double *se,
		  double *cov, char *err, size_t errlen)
{
	struct pl_ctx *c = NULL;
	double *H = NULL, *X = NULL, *v = NULL, mean = 0;
	const char *why = "";
	size_t n = nagents;
	int rc = 0;

	if (nagents < 1 || nagents > PAYOFF_PL_MAX_AGENTS || !rating ||
	    (ngames && !g)) {
		lg_errf(err, errlen, "plackett-luce fit: %u agents (1..%u), "
			"ratings %s, %zu games %s", nagents,
			PAYOFF_PL_MAX_AGENTS, rating ? "given" : "missing",
			ngames, g || !ngames ? "given" : "missing");
		return LG_EINVAL;
	}
	if (!(prior > 0) || !isfinite(prior)) {
		lg_errf(err, errlen, "plackett-luce fit: prior %g is not a "
			"finite number > 0", prior);
		return LG_EINVAL;
	}
	for (size_t gi = 0; gi < ngames; gi++)
		if ((rc = pl_check_game(&g[gi], gi, nagents, err, errlen)))
			return rc;
	c = malloc(sizeof *c);
	H = malloc(n * n * sizeof *H);
	v = malloc(4 * n * sizeof *v);
	if (se || cov)
		X = malloc(n * n * sizeof *X);
	if (!c || !H || !v || ((se || cov) && !X)) {
		rc = LG_ENOMEM;
		goto out;
	}
	*c = (struct pl_ctx){.g = g, .ngames = ngames, .n = nagents,
			     .prior = prior};
	if ((rc = pl_newton(c, v, v + n, H, v + 2 * n, v + 3 * n, &why))) {
		lg_errf(err, errlen, "plackett-luce fit: Newton's method "
			"failed: %s", why);
		goto out;
	}
	for (size_t a = 0; a < n; a++)
		mean += v[a] / (double)n;
	for (size_t a = 0; a < n; a++)
		rating[a] = (v[a] - mean) * PL_ELO;
	if ((se || cov) &&
	    (rc = pl_covariance(c, v, H, X, v + n, v + 2 * n, se, cov)))
		lg_errf(err, errlen, "plackett-luce fit: the Hessian is not "
			"positive definite in floating point");
out:
	free(c);
	free(H);
	free(X);
	free(v);
	return rc;
}

/* Weng and Lin's floor on the fraction of an agent's variance one game
 * may leave (their kappa). */
#define PL_KAPPA 1e-4

/* The seats' beliefs in range: finite mu, finite sigma > 0. */
static int pl_check_belief(const struct payoff_pl_game *g, const double *mu,
			   const double *sigma, char *err, size_t errlen)
{
	for (uint32_t x = 0; x < g->nseats; x++) {
		uint32_t a = g->agent[x];
		if (!isfinite(mu[a]) || !(sigma[a] > 0) ||
		    !isfinite(sigma[a])) {
			lg_errf(err, errlen, "game seat %u: agent %u has mu %g "
				"and sigma %g (finite, sigma > 0)", x, a,
				mu[a], sigma[a]);
			return LG_EINVAL;
		}
	}
	return 0;
}

int payoff_pl_update(const struct payoff_pl_game *g, uint32_t nagents,
		     double *mu, double *sigma, char *err, size_t errlen)
{
	double gT[PAYOFF_PL_MAX_SEATS], var[PAYOFF_PL_MAX_SEATS];
	double hT[PAYOFF_PL_MAX_SEATS * PAYOFF_PL_MAX_SEATS], c2 = PL_ELO * PL_ELO;
	struct pl_view v;
	uint32_t k;
	int rc;

	if (!g || !mu || !sigma) {
		lg_errf(err, errlen, "plackett-luce update: no %s",
			!g ? "game" : "beliefs");
		return LG_EINVAL;
	}
	if ((rc = pl_check_game(g, 0, nagents, err, errlen)) ||
	    (rc = pl_check_belief(g, mu, sigma, err, errlen)))
		return rc;
	pl_teams(g, &v);
	k = v.nteams;
	memset(var, 0, k * sizeof *var);
	memset(gT, 0, k * sizeof *gT);
	memset(hT, 0, (size_t)k * k * sizeof *hT);
	for (uint32_t x = 0; x < g->nseats; x++)
		var[v.tidx[x]] += sigma[g->agent[x]] * sigma[g->agent[x]];
	for (uint32_t t = 0; t < k; t++)
		c2 += var[t];
	pl_game(g, &v, mu, 1.0 / sqrt(c2), gT, hT);
	for (uint32_t x = 0; x < g->nseats; x++) {
		uint32_t a = g->agent[x], first = 1;
		double ga = 0, ha = 0, s2 = sigma[a] * sigma[a], gamma;
		for (uint32_t y = 0; y < x; y++)
			first &= g->agent[y] != a;
		if (!first)
			continue; /* an agent in several seats: done once */
		for (uint32_t y = x; y < g->nseats; y++) {
			if (g->agent[y] != a)
				continue;
			ga -= gT[v.tidx[y]];
			for (uint32_t z = x; z < g->nseats; z++)
				if (g->agent[z] == a)
					ha += hT[v.tidx[y] * k + v.tidx[z]];
		}
		gamma = sqrt(var[v.tidx[x]] / c2);
		mu[a] += s2 * ga / sqrt(c2);
		sigma[a] = sqrt(s2 * LG_MAX(1 - gamma * s2 * ha / c2, PL_KAPPA));
	}
	return 0;
}

int payoff_pl_rank(const double *score, uint32_t n, uint32_t *rank)
{
	for (uint32_t i = 0; i < n; i++)
		if (!isfinite(score[i]))
			return LG_EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		rank[i] = 0;
		for (uint32_t j = 0; j < n; j++)
			rank[i] += score[j] > score[i];
	}
	return 0;
}
