/*
 * collector/search.c: the search operator (AlphaZero's policy
 * improvement). With coll_opts.search.sims > 0 a learning seat does not
 * post its row for a batched forward: its worker runs PUCT (envs/mcts.c)
 * on the env it hosts, with the seat's policy's eval as prior and value,
 * before the slot posts, and answers the seat itself. Every evaluation
 * is a call in this thread, of one leaf or of search.batch leaves
 * gathered in rounds (envs/mcts.c): waking another thread costs about 100 us
 * on these machines, a small net's forward a few, so a search does
 * without wake-ups altogether.
 *
 * The move: a sample in proportion to the root's visits for the seat's
 * first temperature_moves moves of the episode, then the most visited
 * (ties: the larger prior, then the lower index). The row keeps what the
 * learner trains on: the visit shares (the policy target), the policy's
 * log-probability of the move at the root before noise (logp, so PPO's
 * ratio starts at 1 if its term is on) and its value of the root, or with
 * search.search_value the search's (the bootstrap of the learner's
 * TD(lambda) value target).
 *
 * Everything here runs in the slot's current worker, which owns the env,
 * the search tree and this scratch; only coll_search_answer touches the
 * slot's shared fields, under mu.
 */
#include "collector/collector_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A worker's search scratch. */
struct wsearch {
	coll *c;
	void *ws[COLL_NETS_MAX];  /* each policy's eval scratch, this thread */
	const struct coll_policy *pol; /* the seat being searched */
	void **pws;
	uint32_t *visits;         /* A */
	float *prior;             /* A */
	float *share;             /* players x A: searched seats' shares */
	int ready[ENV_MAX_PLAYERS];
	int32_t act[ENV_MAX_PLAYERS];
	float logp[ENV_MAX_PLAYERS], value[ENV_MAX_PLAYERS];
	lg_rng rng;               /* root noise, temperature */
};

/* For the options' check: a search is made but never run. */
static int no_eval(void *ctx, size_t n, const float *obs,
		   const uint8_t *mask, const void *const *states,
		   float *prior, float *value)
{
	return LG_EINVAL;
}

int coll_search_check(const struct coll_opts *o, const env *probe,
		      char *err, size_t errlen)
{
	const struct coll_search *q = &o->search;
	struct env_mcts_opts mo = { q->sims, q->c_puct, q->dirichlet_alpha,
				    q->noise_frac, q->batch };
	env_mcts *m = NULL;
	int rc;

	if (!q->sims)
		return 0;
	if (q->fast_sims > q->sims ||
	    (q->fast_sims && !(q->full_frac > 0 && q->full_frac <= 1))) {
		lg_errf(err, errlen, "collector: search: fast_sims must be at "
			"most sims and full_frac in (0, 1] with it");
		return LG_EINVAL;
	}
	if (o->processes) {
		lg_errf(err, errlen, "collector: search needs the envs in "
			"this process (not processes): it searches the env "
			"where it runs");
		return LG_EUNSUPP;
	}
	if (o->state_len) {
		lg_errf(err, errlen, "collector: search with a recurrent "
			"policy: the search visits states without a history "
			"for its core");
		return LG_EUNSUPP;
	}
	for (size_t k = 0; k < o->num_policies; k++)
		if (!o->policies[k].eval) {
			lg_errf(err, errlen, "collector: search: policy %zu "
				"has no eval", k);
			return LG_EINVAL;
		}
	/* the game and the numbers, as the search itself will see them */
	rc = env_mcts_new(&m, probe, &mo, no_eval, NULL, err, errlen);
	env_mcts_free(m);
	return rc;
}

void coll_search_free(coll *c, struct worker *w)
{
	struct wsearch *sr = w->sr;

	if (!sr)
		return;
	for (size_t k = 0; k < c->o.num_policies; k++)
		if (sr->ws[k] && c->pols[k].ws_free)
			c->pols[k].ws_free(c->pols[k].ctx, sr->ws[k]);
	free(sr->visits);
	free(sr->prior);
	free(sr->share);
	free(sr);
	w->sr = NULL;
}

int coll_search_alloc(coll *c, struct worker *w)
{
	size_t A = (size_t)c->spec.num_actions;
	struct wsearch *sr;

	if (!c->o.search.sims)
		return 0;
	if (!(sr = calloc(1, sizeof *sr)))
		return LG_ENOMEM;
	w->sr = sr;
	sr->c = c;
	sr->visits = calloc(A, sizeof *sr->visits);
	sr->prior = calloc(A, sizeof *sr->prior);
	sr->share = calloc((size_t)c->spec.players * A, sizeof *sr->share);
	if (!sr->visits || !sr->prior || !sr->share) {
		coll_search_free(c, w);
		return LG_ENOMEM;
	}
	/* a stream per slot and worker generation */
	lg_rng_seed2(&sr->rng, c->o.env.seed ^ 0x736561726368ull,
		     (uint64_t)w->s->idx << 20 | (w->gen & 0xfffff));
	return 0;
}

/* The search's evaluator: the seat's policy, with this thread's scratch
 * for it. */
static int search_eval(void *ctx, size_t n, const float *obs,
		       const uint8_t *mask, const void *const *states,
		       float *prior, float *value)
{
	struct wsearch *sr = ctx;

	(void)states;
	return sr->pol->eval(sr->pol->ctx, sr->pws, n, obs, mask,
			     sr->c->spec.num_actions, prior, value);
}

/* The move from the root's visits: a sample in proportion to them while
 * the seat is within temperature_moves, else the most visited. */
static int pick(struct wsearch *sr, size_t A, uint32_t total, int sample)
{
	int best = -1;

	if (sample) {
		uint64_t k = lg_rng_below(&sr->rng, total);
		for (size_t a = 0; a < A; a++) {
			if (k < sr->visits[a])
				return (int)a;
			k -= sr->visits[a];
		}
	}
	for (size_t a = 0; a < A; a++) {
		if (!sr->visits[a])
			continue;
		if (best < 0 || sr->visits[a] > sr->visits[best] ||
		    (sr->visits[a] == sr->visits[best] &&
		     sr->prior[a] > sr->prior[best]))
			best = (int)a;
	}
	return best;
}

/* Search seat p's move on the host's env. */
static int search_seat(coll *c, struct worker *w, int p)
{
	struct wsearch *sr = w->sr;
	struct slot *s = w->s;
	const struct coll_search *q = &c->o.search;
	size_t A = (size_t)c->spec.num_actions, net = s->match.seat[p].net;
	float v = 0, *share = sr->share + (size_t)p * A;
	uint32_t total = 0;
	/* playout cap randomization: a fast search, no policy target */
	int fast = q->fast_sims && lg_rng_double(&sr->rng) >= q->full_frac;
	env_mcts **m = fast ? &w->h.fast : &w->h.mcts;
	int rc, a;

	if (!w->h.e || env_current_player(w->h.e) != p)
		return LG_EINVAL; /* a sequential game's mover, always */
	sr->pol = &c->pols[net];
	sr->pws = &sr->ws[net];
	if (!*m) {
		struct env_mcts_opts mo = { fast ? q->fast_sims : q->sims,
					    q->c_puct, q->dirichlet_alpha,
					    fast ? 0 : q->noise_frac, q->batch };
		char err[256];
		rc = env_mcts_new(m, w->h.e, &mo, search_eval, sr, err,
				  sizeof err);
		if (rc) {
			LG_ERROR("collector: env %zu: %s", s->idx, err);
			return rc;
		}
	}
	rc = env_mcts_search(*m, w->h.e, &sr->rng, sr->visits, sr->prior,
			     &v);
	if (rc)
		return rc;
	for (size_t k = 0; k < A; k++)
		total += sr->visits[k];
	if (!total)
		return LG_EINVAL;
	for (size_t k = 0; k < A; k++)
		share[k] = fast ? 0.0f
				: (float)sr->visits[k] / (float)total;
	a = pick(sr, A, total, s->smoves[p] < q->temperature_moves);
	if (a < 0)
		return LG_EINVAL;
	s->smoves[p]++;
	sr->act[p] = a;
	/* logf(0) would be -inf, which no row may hold */
	sr->logp[p] = logf(sr->prior[a] > 1e-30f ? sr->prior[a] : 1e-30f);
	sr->value[p] = q->search_value ? (float)env_mcts_root_value(*m) : v;
	sr->ready[p] = 1;
	return 0;
}

int coll_search_acting(coll *c, struct worker *w)
{
	struct slot *s = w->s;
	int rc;

	for (int k = 0; k < s->nacting; k++) {
		int p = s->acting[k];
		w->sr->ready[p] = 0;
		if (coll_searches(c, s, p) && (rc = search_seat(c, w, p)))
			return rc;
	}
	return 0;
}

void coll_search_answer(coll *c, struct worker *w)
{
	struct slot *s = w->s;

	for (int k = 0; k < s->nacting; k++) {
		int p = s->acting[k];
		s->searched[p] = w->sr && w->sr->ready[p];
		if (!s->searched[p])
			continue;
		s->act[p] = w->sr->act[p];
		s->logp[p] = w->sr->logp[p];
		s->value[p] = w->sr->value[p];
	}
}

const float *coll_search_shares(const struct worker *w)
{
	return w->sr ? w->sr->share : NULL;
}
