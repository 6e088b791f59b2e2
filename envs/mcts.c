/*
 * envs/mcts.c: PUCT Monte Carlo tree search over the game ABI, AlphaZero
 * style: an evaluator (a network, in practice) gives each new state a
 * prior over the legal actions and a value for the player to move; no
 * rollouts. States are cloned by memcpy (league_game.h), so any built-in
 * or plugin game that is sequential and has no chance works.
 *
 * Tree: a node per expanded state, at most sims + 1 per search, in flat
 * arrays allocated once. Per node and action: the child (-1 until
 * expanded), visits n, value sum w (for the node's mover) and prior p.
 * A simulation walks from the root by
 *     a* = argmax Q(a) + c_puct p(a) sqrt(N + 1) / (1 + n(a)),
 * Q(a) = w(a) / n(a), and for an unvisited action the node's own value
 * (first-play urgency at the parent's value: with 0 instead, a mover the
 * evaluator thinks is losing would try every action once before looking
 * deeper at any, and play blind to short tactics), expands the first unexpanded child
 * (one evaluator call, or the returns if it is terminal), and adds the
 * value, as seen by player 0, to every edge on the path, negated at
 * player 1's nodes (two players, zero-sum). The move is the most visited
 * root action (ties: the larger prior, then the lower index), or with a
 * generator a sample in proportion to the root's visits.
 *
 * Root noise (AlphaZero's exploration in self-play): with noise_frac > 0
 * the root's prior becomes (1 - noise_frac) p + noise_frac eta, eta a
 * Dirichlet(dirichlet_alpha) draw over the legal actions, so the search
 * also looks at moves the network rules out. env_mcts_search hands the
 * evaluator's own root prior and value back beside the visits (a
 * collector stores them with the visits as a training row).
 */
#include "envs/env_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct env_mcts {
	const struct env_game *gm;
	struct env_mcts_opts o;
	env_mcts_eval_fn eval;
	void *ctx;
	int A;
	size_t obs_len, ssize, cap, used;
	unsigned char *states;  /* cap x ssize */
	int *mover;             /* cap: 0, 1, or -1 terminal */
	double *ret0;           /* cap: player 0's return at a terminal */
	uint32_t *total;        /* cap: visits through the node */
	float *fpu;             /* cap: an unvisited action's Q (the node's
				   value for its mover, from the evaluator) */
	int32_t *child;         /* cap x A */
	uint32_t *n;            /* cap x A */
	float *w, *p;           /* cap x A */
	float *obs;             /* obs_len */
	float *prior0;          /* A: the evaluator's root prior (no noise) */
	float root_v;           /* and its value of the root, for its mover */
	double *eta;            /* A: a Dirichlet draw */
	uint8_t *mask;          /* A */
	size_t *path_node;      /* cap */
	int *path_act;          /* cap */
	struct env_rng rng;     /* for apply(); the games searched draw none */
};

int env_mcts_new(env_mcts **out, const env *e, const struct env_mcts_opts *o,
		 env_mcts_eval_fn eval, void *ctx, char *err, size_t errlen)
{
	const struct env_spec *sp;
	env_mcts *m;

	*out = NULL;
	if (!e || !o || !eval || o->sims < 1 || o->sims > ENV_MCTS_SIMS_MAX ||
	    !(o->c_puct > 0 && o->c_puct <= 100)) {
		lg_errf(err, errlen, "search: sims must be in [1, %u] and "
			"c_puct in (0, 100]", ENV_MCTS_SIMS_MAX);
		return LG_EINVAL;
	}
	if (!(o->noise_frac >= 0 && o->noise_frac <= 1) ||
	    (o->noise_frac > 0 &&
	     !(o->dirichlet_alpha > 0 &&
	       o->dirichlet_alpha <= ENV_MCTS_ALPHA_MAX))) {
		lg_errf(err, errlen, "search: noise_frac must be in [0, 1] "
			"and, with noise, dirichlet_alpha in (0, %g]",
			ENV_MCTS_ALPHA_MAX);
		return LG_EINVAL;
	}
	sp = env_spec_of(e);
	if (!e->gm.g || (sp->flags & (ENV_F_SIMULTANEOUS | ENV_F_CHANCE))) {
		lg_errf(err, errlen, "search: %s is %s; tree search needs a "
			"sequential game without chance played in this "
			"process", sp->name,
			!e->gm.g ? "a remote game"
			: sp->flags & ENV_F_SIMULTANEOUS ? "simultaneous"
							 : "a game of chance");
		return LG_EUNSUPP;
	}
	m = calloc(1, sizeof *m);
	if (!m)
		goto oom;
	m->gm = &e->gm;
	m->o = *o;
	m->eval = eval;
	m->ctx = ctx;
	m->A = (int)sp->num_actions;
	m->obs_len = sp->obs_len;
	m->ssize = e->gm.state_size;
	m->cap = (size_t)o->sims + 1;
	m->states = malloc(m->cap * m->ssize);
	m->mover = malloc(m->cap * sizeof *m->mover);
	m->ret0 = malloc(m->cap * sizeof *m->ret0);
	m->total = malloc(m->cap * sizeof *m->total);
	m->fpu = malloc(m->cap * sizeof *m->fpu);
	m->child = malloc(m->cap * (size_t)m->A * sizeof *m->child);
	m->n = malloc(m->cap * (size_t)m->A * sizeof *m->n);
	m->w = malloc(m->cap * (size_t)m->A * sizeof *m->w);
	m->p = malloc(m->cap * (size_t)m->A * sizeof *m->p);
	m->obs = malloc(m->obs_len * sizeof *m->obs);
	m->prior0 = malloc((size_t)m->A * sizeof *m->prior0);
	m->eta = malloc((size_t)m->A * sizeof *m->eta);
	m->mask = malloc((size_t)m->A);
	m->path_node = malloc(m->cap * sizeof *m->path_node);
	m->path_act = malloc(m->cap * sizeof *m->path_act);
	if (!m->states || !m->mover || !m->ret0 || !m->total || !m->fpu ||
	    !m->child ||
	    !m->n || !m->w || !m->p || !m->obs || !m->prior0 || !m->eta ||
	    !m->mask || !m->path_node || !m->path_act)
		goto oom;
	env_rng_seed(&m->rng, 0x6d637473);
	*out = m;
	return 0;
oom:
	env_mcts_free(m);
	lg_errf(err, errlen, "search: out of memory");
	return LG_ENOMEM;
}

void env_mcts_free(env_mcts *m)
{
	if (!m)
		return;
	free(m->states);
	free(m->mover);
	free(m->ret0);
	free(m->total);
	free(m->fpu);
	free(m->child);
	free(m->n);
	free(m->w);
	free(m->p);
	free(m->obs);
	free(m->prior0);
	free(m->eta);
	free(m->mask);
	free(m->path_node);
	free(m->path_act);
	free(m);
}

/* Node i's state, set: its mover, and for a decision its prior from the
 * evaluator (returned: the value for player 0). */
static int expand(env_mcts *m, size_t i, double *value0)
{
	const struct league_game *g = m->gm->g;
	const void *inst = m->gm->inst;
	const unsigned char *st = m->states + i * m->ssize;
	size_t A = (size_t)m->A;
	int pl = g->player(inst, st), rc;
	float v = 0, *pr = m->p + i * A;

	m->total[i] = 0;
	for (size_t a = 0; a < A; a++) {
		m->child[i * A + a] = -1;
		m->n[i * A + a] = 0;
		m->w[i * A + a] = 0;
	}
	if (pl == LEAGUE_GAME_TERMINAL) {
		double r[2];
		g->returns(inst, st, r);
		m->mover[i] = -1;
		m->ret0[i] = r[0];
		*value0 = r[0];
		return 0;
	}
	if (pl != 0 && pl != 1)
		return LG_EUNSUPP; /* a chance node the spec did not declare */
	m->mover[i] = pl;
	g->observe(inst, st, pl, m->obs);
	int nlegal = g->legal(inst, st, pl, m->mask);
	if (nlegal < 1)
		return LG_EINVAL;
	if ((rc = m->eval(m->ctx, m->obs, m->mask, st, pr, &v)))
		return rc;
	double sum = 0;
	for (size_t a = 0; a < A; a++) {
		if (!m->mask[a] || !(pr[a] >= 0) || !isfinite(pr[a]))
			pr[a] = 0;
		sum += pr[a];
	}
	for (size_t a = 0; a < A; a++) /* illegal: -1, never chosen */
		pr[a] = !m->mask[a] ? -1.0f
			: sum > 0   ? (float)(pr[a] / sum)
				    : 1.0f / (float)nlegal;
	if (!isfinite(v))
		return LG_EINVAL;
	m->fpu[i] = v;
	*value0 = pl == 0 ? v : -v;
	return 0;
}

/* The edge to follow from node i. */
static int select_action(const env_mcts *m, size_t i)
{
	size_t A = (size_t)m->A;
	double sq = sqrt((double)m->total[i] + 1), best = -INFINITY;
	int pick = -1;

	for (size_t a = 0; a < A; a++) {
		float pa = m->p[i * A + a];
		uint32_t na = m->n[i * A + a];
		if (pa < 0)
			continue;
		double q = na ? m->w[i * A + a] / na : m->fpu[i];
		double s = q + m->o.c_puct * pa * sq / (1.0 + na);
		if (s > best) {
			best = s;
			pick = (int)a;
		}
	}
	return pick;
}

static int simulate(env_mcts *m)
{
	size_t A = (size_t)m->A, depth = 0, i = 0;
	double v0 = 0;
	int rc;

	for (;;) {
		if (m->mover[i] < 0) { /* a terminal node: its returns again */
			v0 = m->ret0[i];
			break;
		}
		int a = select_action(m, i);
		if (a < 0)
			return LG_EINVAL;
		m->path_node[depth] = i;
		m->path_act[depth++] = a;
		int32_t c = m->child[i * A + (size_t)a];
		if (c >= 0) {
			i = (size_t)c;
			continue;
		}
		if (m->used == m->cap)
			return LG_EFULL; /* cannot happen: one node per sim */
		size_t j = m->used++;
		memcpy(m->states + j * m->ssize, m->states + i * m->ssize,
		       m->ssize);
		m->gm->g->apply(m->gm->inst, m->states + j * m->ssize, a,
				&m->rng.base);
		m->child[i * A + (size_t)a] = (int32_t)j;
		if ((rc = expand(m, j, &v0)))
			return rc;
		break;
	}
	for (size_t d = 0; d < depth; d++) {
		size_t k = m->path_node[d] * A + (size_t)m->path_act[d];
		m->n[k]++;
		m->w[k] += (float)(m->mover[m->path_node[d]] == 0 ? v0 : -v0);
		m->total[m->path_node[d]]++;
	}
	return 0;
}

/* A Gamma(a, 1) draw: Marsaglia and Tsang's method, for a < 1 through
 * Gamma(a + 1) U^(1/a). */
static double gamma_draw(lg_rng *r, double a)
{
	double boost = 1;

	if (a < 1) {
		boost = pow(1 - lg_rng_double(r), 1 / a); /* U in (0, 1] */
		a += 1;
	}
	double d = a - 1.0 / 3, c = 1 / sqrt(9 * d);
	for (;;) {
		double x = lg_rng_normal(r), v = 1 + c * x, u;
		if (v <= 0)
			continue;
		v = v * v * v;
		u = 1 - lg_rng_double(r);
		if (u < 1 - 0.0331 * x * x * x * x ||
		    log(u) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v * boost;
	}
}

/* The root's prior mixed with a Dirichlet(alpha) draw over its legal
 * actions (a draw of all zeros, possible for a tiny alpha in floats,
 * leaves the prior as it is). */
static void root_noise(env_mcts *m, lg_rng *rng)
{
	size_t A = (size_t)m->A;
	double sum = 0, f = m->o.noise_frac;

	for (size_t a = 0; a < A; a++) {
		m->eta[a] = m->p[a] < 0 ? 0
					: gamma_draw(rng, m->o.dirichlet_alpha);
		sum += m->eta[a];
	}
	if (!(sum > 0) || !isfinite(sum))
		return;
	for (size_t a = 0; a < A; a++)
		if (m->p[a] >= 0)
			m->p[a] = (float)((1 - f) * m->p[a] +
					  f * m->eta[a] / sum);
}

int env_mcts_search(env_mcts *m, const env *e, lg_rng *rng,
		    uint32_t *visits, float *prior, float *value)
{
	size_t A;
	double v0;
	int rc;

	if (!m || !e || &e->gm != m->gm || env_is_terminal(e) ||
	    (m->o.noise_frac > 0 && !rng))
		return LG_EINVAL;
	A = (size_t)m->A;
	m->used = 1;
	memcpy(m->states, e->st, m->ssize);
	if ((rc = expand(m, 0, &v0)))
		return rc;
	for (size_t a = 0; a < A; a++)
		m->prior0[a] = m->p[a] < 0 ? 0 : m->p[a];
	m->root_v = m->fpu[0];
	if (m->o.noise_frac > 0)
		root_noise(m, rng);
	for (uint32_t s = 0; s < m->o.sims; s++)
		if ((rc = simulate(m)))
			return rc;
	if (visits)
		for (size_t a = 0; a < A; a++)
			visits[a] = m->n[a];
	if (prior)
		memcpy(prior, m->prior0, A * sizeof *prior);
	if (value)
		*value = m->root_v;
	return 0;
}

int env_mcts_act(env_mcts *m, const env *e, lg_rng *rng, int *action,
		 uint32_t *visits)
{
	size_t A;
	int rc, best = -1;

	if (!action)
		return LG_EINVAL;
	if ((rc = env_mcts_search(m, e, rng, visits, NULL, NULL)))
		return rc;
	A = (size_t)m->A;
	if (rng) { /* a sample, in proportion to the visits */
		uint64_t k = lg_rng_below(rng, m->total[0]);
		for (size_t a = 0; a < A && best < 0; a++) {
			if (k < m->n[a])
				best = (int)a;
			else
				k -= m->n[a];
		}
	}
	for (size_t a = 0; a < A && !rng; a++) {
		if (m->p[a] < 0)
			continue;
		if (best < 0 || m->n[a] > m->n[best] ||
		    (m->n[a] == m->n[best] && m->p[a] > m->p[best]))
			best = (int)a;
	}
	*action = best;
	return best < 0 ? LG_EINVAL : 0;
}
