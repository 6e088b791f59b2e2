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

int brain_ratings_with(brain *b, const struct brain_ratings_opts *o,
		       struct brain_rating *out, double *gap)
{
	uint32_t n = brain_count(b);
	uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
	double *fit = malloc((n ? n : 1) * sizeof *fit);
	double *se = malloc((n ? n : 1) * sizeof *se);
	double *x = calloc(n ? n : 1, sizeof *x);
	double *ar = malloc((n ? n : 1) * sizeof *ar);
	int dense = n && n <= o->max_nash;
	int nash = dense && n <= PAYOFF_NASH_MAX;
	int arank = dense && o->alpha_rank && n <= PAYOFF_ALPHARANK_MAX;
	double *A = arank ? malloc((size_t)n * n * sizeof *A) : NULL;
	int rc = LG_ENOMEM;

	*gap = -1;
	if (!ids || !fit || !se || !x || !ar || (arank && !A))
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		ids[i] = i;
		ar[i] = NAN;
	}
	if ((rc = payoff_elo_fit_se(b->pf, ids, n, 1.0, fit, se)))
		goto out;
	if (nash && payoff_meta_nash(b->pf, ids, n, x, gap)) {
		memset(x, 0, n * sizeof *x);
		*gap = -1;
	}
	if (arank) {
		payoff_matrix(b->pf, ids, n, A, NULL);
		if ((rc = ladder_alpharank(A, n, &o->ar, ar)))
			goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct brain_player p;
		brain_player_info(b, i, &p);
		out[i] = (struct brain_rating){ i, p.role, p.parent, fit[i],
						payoff_elo(b->pf, i),
						payoff_elo_games(b->pf, i),
						x[i], se[i], ar[i], p.pop };
	}
	qsort(out, n, sizeof *out, by_rating);
	rc = 0;
out:
	free(ids);
	free(fit);
	free(se);
	free(x);
	free(ar);
	free(A);
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

int brain_ratings_json_with(brain *b, const struct brain_ratings_opts *o,
			    lg_buf *out)
{
	uint32_t n = brain_count(b);
	struct brain_rating *r = malloc((n ? n : 1) * sizeof *r);
	double gap;
	int rc = r ? brain_ratings_with(b, o, r, &gap) : LG_ENOMEM;
	int ar = 0; /* the players carry α-Rank scores */

	if (!rc) {
		ar = o->alpha_rank && (!n || !isnan(r[0].alpha_rank));
		rc = lg_buf_printf(out, "{\"nash_gap\":%.3g", gap);
	}
	if (!rc && o->alpha_rank)
		rc = alpharank_json(out, &o->ar, ar);
	if (!rc)
		rc = lg_buf_printf(out, ",\"ratings\":[");
	for (uint32_t k = 0; !rc && k < n; k++) {
		rc = lg_buf_printf(out, "%s{\"id\":%u,\"role\":\"%s\","
				   "\"pop\":%u,"
				   "\"rating\":%.3f,\"elo\":%.3f,"
				   "\"games\":%.6g,\"nash\":%.6g,"
				   "\"parent\":%lld,",
				   k ? "," : "", r[k].id,
				   brain_role_name(r[k].role), r[k].pop,
				   r[k].rating,
				   r[k].elo, r[k].games, r[k].nash,
				   r[k].parent == BRAIN_NONE ? -1LL :
				   (long long)r[k].parent);
		if (!rc)
			rc = isfinite(r[k].rating_se)
				     ? lg_buf_printf(out, "\"rating_se\":%.3f",
						     r[k].rating_se)
				     : lg_buf_printf(out, "\"rating_se\":null");
		if (!rc && ar)
			rc = lg_buf_printf(out, ",\"alpha_rank\":%.6g",
					   r[k].alpha_rank);
		if (!rc)
			rc = lg_buf_printf(out, "}");
	}
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
