/*
 * players/ratings.c: the ratings ladder that `league ratings`, `/ratings`
 * and `league inspect` share (players.h, "inspection"): every player's
 * Elo fit with its standard error, online Elo, meta-Nash weight
 * (payoff_meta_nash) and α-Rank mass (payoff_alpharank), best first, and
 * its JSON.
 */
#include "players/brain_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_rating(const void *x, const void *y)
{
	const struct brain_rating *a = x, *c = y;

	if (isnan(a->rating) != isnan(c->rating))
		return isnan(a->rating) ? 1 : -1;
	return a->rating < c->rating ? 1 : a->rating > c->rating ? -1 :
	       (a->id > c->id) - (a->id < c->id);
}

void brain_ratings_opts_default(struct brain_ratings_opts *o,
				uint32_t max_nash)
{
	o->max_nash = max_nash;
	o->alpha_rank = 1;
	payoff_alpharank_opts_default(&o->ar);
}

/*
 * α-Rank of the win-rate matrix W (n x n, n >= 1) into ar, with 1/2 on
 * the diagonal (W is changed there). A chain without a unique answer
 * (LG_ERANGE; a constant-sum matrix never is one) leaves ar NaN, as for
 * a ladder too big to rank; LG_EINVAL (options) and LG_ENOMEM are
 * passed on.
 */
static int ladder_alpharank(double *W, uint32_t n,
			    const struct payoff_alpharank_opts *o, double *ar)
{
	int rc;

	for (uint32_t i = 0; i < n; i++)
		W[(size_t)i * n + i] = 0.5;
	rc = payoff_alpharank(W, n, o, ar);
	if (rc == LG_ERANGE) {
		for (uint32_t i = 0; i < n; i++)
			ar[i] = NAN;
		rc = 0;
	}
	return rc;
}

/* The two roles' bimatrix: A[i * n + j] row role agent r0[i]'s payoff
 * against column role agent r1[j], B the column's; under measure return
 * each one's mean return (payoff_returns over the pair's decayed games,
 * 0 where they never met), under measure win the win rate - 1/2 and its
 * negative. */
static void role_bimatrix(brain *b, const uint32_t *r0, uint32_t m,
			  const uint32_t *r1, uint32_t n, double *A, double *B)
{
	int ret = brain_measure(b, NULL) == BRAIN_MEASURE_RETURN;

	for (uint32_t i = 0; i < m; i++)
		for (uint32_t j = 0; j < n; j++) {
			size_t k = (size_t)i * n + j;
			struct payoff_entry e;
			double ra = 0, rb = 0;
			payoff_get(b->pf, r0[i], r1[j], &e);
			if (!ret) {
				A[k] = payoff_win_rate(b->pf, r0[i], r1[j]) -
				       0.5;
				B[k] = -A[k];
				continue;
			}
			payoff_returns(b->pf, r0[i], r1[j], &ra, &rb);
			A[k] = e.games > 0 ? ra / e.games : 0;
			B[k] = e.games > 0 ? rb / e.games : 0;
		}
}

/*
 * Two roles: the meta-Nash of the role-0 x role-1 bimatrix
 * (payoff_bimatrix_nash: each role's mixture into x by agent id, *gap
 * its eps) and, with arank, the two-population α-Rank's marginals
 * (payoff_alpharank_multi) into ar by agent id (NaN when its chain has
 * no unique answer). pop[i] is agent i's population, n agents.
 */
static int roles_meta(brain *b, const struct brain_ratings_opts *o,
		      const uint32_t *pop, uint32_t n, int arank, double *x,
		      double *ar, double *gap)
{
	uint32_t *r = malloc((n ? n : 1) * sizeof *r), m0 = 0, m1 = 0;
	double *A = NULL, *B = NULL, *xy = NULL;
	int rc = LG_ENOMEM;

	if (!r)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		if (pop[i] == 0)
			r[m0++] = i;
	for (uint32_t i = 0; i < n; i++)
		if (pop[i] == 1)
			r[m0 + m1++] = i;
	rc = 0;
	if (!m0 || !m1 || m0 > PAYOFF_BIMATRIX_MAX || m1 > PAYOFF_BIMATRIX_MAX)
		goto out;
	A = malloc((size_t)m0 * m1 * sizeof *A);
	B = malloc((size_t)m0 * m1 * sizeof *B);
	xy = malloc((size_t)(m0 + m1) * sizeof *xy);
	rc = LG_ENOMEM;
	if (!A || !B || !xy)
		goto out;
	role_bimatrix(b, r, m0, r + m0, m1, A, B);
	if ((rc = payoff_bimatrix_nash(A, B, m0, m1, xy, xy + m0, gap)))
		goto out;
	for (uint32_t k = 0; k < m0 + m1; k++)
		x[r[k]] = xy[k];
	if (arank && (size_t)m0 * m1 <= PAYOFF_ALPHARANK_MAX) {
		const double *tab[2] = { A, B };
		uint32_t sides[2] = { m0, m1 };
		rc = payoff_alpharank_multi(tab, sides, 2, &o->ar, NULL, xy);
		for (uint32_t k = 0; !rc && k < m0 + m1; k++)
			ar[r[k]] = xy[k];
		if (rc == LG_ERANGE)
			rc = 0;
	}
out:
	free(r);
	free(A);
	free(B);
	free(xy);
	return rc;
}

/* One population: the zero-sum meta-Nash of the win rates into x and
 * the single-population α-Rank into ar. */
static int one_pop_meta(brain *b, const struct brain_ratings_opts *o,
			const uint32_t *ids, uint32_t n, int nash, int arank,
			double *x, double *ar, struct brain_ladder_info *in)
{
	double *A = NULL;
	int rc = 0;

	if (nash && payoff_meta_nash(b->pf, ids, n, x, &in->gap)) {
		memset(x, 0, n * sizeof *x);
		in->gap = -1;
	} else if (nash) {
		in->meta = BRAIN_META_ZEROSUM;
	}
	if (arank) {
		if (!(A = malloc((size_t)n * n * sizeof *A)))
			return LG_ENOMEM;
		payoff_matrix(b->pf, ids, n, A, NULL);
		rc = ladder_alpharank(A, n, &o->ar, ar);
		free(A);
	}
	return rc;
}

int brain_ratings_info(brain *b, const struct brain_ratings_opts *o,
			  struct brain_rating *out, struct brain_ladder_info *in)
{
	uint32_t n = brain_count(b);
	uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
	uint32_t *pop = malloc((n ? n : 1) * sizeof *pop);
	double *fit = malloc((n ? n : 1) * sizeof *fit);
	double *se = malloc((n ? n : 1) * sizeof *se);
	double *x = calloc(n ? n : 1, sizeof *x);
	double *ar = malloc((n ? n : 1) * sizeof *ar);
	int dense = n && n <= o->max_nash;
	uint32_t pops = 1;
	int rc = LG_ENOMEM;

	*in = (struct brain_ladder_info){ .gap = -1 };
	if (!ids || !pop || !fit || !se || !x || !ar)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		struct brain_player p;
		brain_player_info(b, i, &p);
		ids[i] = i;
		pop[i] = p.pop;
		pops = p.pop + 1 > pops ? p.pop + 1 : pops;
		ar[i] = NAN;
	}
	if ((rc = brain_ladder_pl(b, fit, se, &in->pl, &in->episodes)))
		goto out;
	if (!in->pl && (rc = payoff_elo_fit_se(b->pf, ids, n, 1.0, fit, se)))
		goto out;
	if (pops == 1)
		rc = one_pop_meta(b, o, ids, n, dense && n <= PAYOFF_NASH_MAX,
				  dense && o->alpha_rank &&
					  n <= PAYOFF_ALPHARANK_MAX,
				  x, ar, in);
	else if (pops == 2 && dense) {
		rc = roles_meta(b, o, pop, n, o->alpha_rank, x, ar, &in->gap);
		if (rc && rc != LG_ENOMEM) {
			/* no meta-Nash (the solver's answer): none shown */
			memset(x, 0, n * sizeof *x);
			in->gap = -1;
			rc = 0;
		}
		if (in->gap >= 0)
			in->meta = BRAIN_META_BIMATRIX;
	}
	if (rc)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		struct brain_player p;
		brain_player_info(b, i, &p);
		out[i] = (struct brain_rating){ i, p.role, p.parent, fit[i],
						payoff_elo(b->pf, i),
						payoff_elo_games(b->pf, i),
						x[i], se[i], ar[i], p.pop };
	}
	qsort(out, n, sizeof *out, by_rating);
out:
	free(ids);
	free(pop);
	free(fit);
	free(se);
	free(x);
	free(ar);
	return rc;
}

int brain_ratings_with(brain *b, const struct brain_ratings_opts *o,
		       struct brain_rating *out, double *gap)
{
	struct brain_ladder_info in;
	int rc = brain_ratings_info(b, o, out, &in);

	*gap = in.gap;
	return rc;
}

int brain_ratings(brain *b, uint32_t max_nash, struct brain_rating *out,
		  double *gap)
{
	struct brain_ratings_opts o;

	brain_ratings_opts_default(&o, max_nash);
	return brain_ratings_with(b, &o, out, gap);
}

/* ,"alpha_rank":{"alpha":A,"population":M} (null when not computed) */
static int alpharank_json(lg_buf *out, const struct payoff_alpharank_opts *o,
			  int computed)
{
	if (!computed)
		return lg_buf_printf(out, ",\"alpha_rank\":null");
	if (isinf(o->alpha))
		return lg_buf_printf(out, ",\"alpha_rank\":{\"alpha\":\"inf\","
				     "\"population\":%u}", o->population);
	return lg_buf_printf(out, ",\"alpha_rank\":{\"alpha\":%.17g,"
			     "\"population\":%u}", o->alpha, o->population);
}

/* "rating":R or null (NaN: outside the Plackett-Luce window) */
static int num_or_null(lg_buf *out, const char *key, double v)
{
	return isfinite(v) ? lg_buf_printf(out, "\"%s\":%.3f", key, v)
			   : lg_buf_printf(out, "\"%s\":null", key);
}

static const char *const meta_names[] = { "none", "zero-sum", "bimatrix" };

/* One player's object. */
static int rating_json(lg_buf *out, const struct brain_rating *r, int ar,
		       int first)
{
	int rc = lg_buf_printf(out, "%s{\"id\":%u,\"role\":\"%s\","
			       "\"pop\":%u,", first ? "" : ",", r->id,
			       brain_role_name(r->role), r->pop);

	if (!rc)
		rc = num_or_null(out, "rating", r->rating);
	if (!rc)
		rc = lg_buf_printf(out, ",\"elo\":%.3f,\"games\":%.6g,"
				   "\"nash\":%.6g,\"parent\":%lld,",
				   r->elo, r->games, r->nash,
				   r->parent == BRAIN_NONE ? -1LL :
				   (long long)r->parent);
	if (!rc)
		rc = num_or_null(out, "rating_se", r->rating_se);
	if (!rc && ar)
		rc = isnan(r->alpha_rank)
			     ? lg_buf_printf(out, ",\"alpha_rank\":null")
			     : lg_buf_printf(out, ",\"alpha_rank\":%.6g",
					     r->alpha_rank);
	return rc ? rc : lg_buf_printf(out, "}");
}

int brain_ratings_json_with(brain *b, const struct brain_ratings_opts *o,
			    lg_buf *out)
{
	uint32_t n = brain_count(b);
	struct brain_rating *r = malloc((n ? n : 1) * sizeof *r);
	struct brain_ladder_info in;
	int rc = r ? brain_ratings_info(b, o, r, &in) : LG_ENOMEM;
	int ar = 0; /* the players carry α-Rank scores */

	for (uint32_t k = 0; !rc && k < n; k++)
		ar |= !isnan(r[k].alpha_rank);
	ar = !rc && o->alpha_rank && (!n || ar);
	if (!rc)
		rc = lg_buf_printf(out, "{\"nash_gap\":%.3g,\"model\":\"%s\","
				   "\"meta\":\"%s\"", in.gap,
				   in.pl ? "plackett-luce" : "elo",
				   meta_names[in.meta]);
	if (!rc && in.pl)
		rc = lg_buf_printf(out, ",\"episodes\":%llu",
				   (unsigned long long)in.episodes);
	if (!rc && o->alpha_rank)
		rc = alpharank_json(out, &o->ar, ar);
	if (!rc)
		rc = lg_buf_printf(out, ",\"ratings\":[");
	for (uint32_t k = 0; !rc && k < n; k++)
		rc = rating_json(out, &r[k], ar, k == 0);
	if (!rc)
		rc = lg_buf_printf(out, "]}");
	free(r);
	return rc;
}

int brain_ratings_json(brain *b, uint32_t max_nash, lg_buf *out)
{
	struct brain_ratings_opts o;

	brain_ratings_opts_default(&o, max_nash);
	return brain_ratings_json_with(b, &o, out);
}
