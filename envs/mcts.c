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
 *
 * Batched leaves (opts.batch > 1): a round walks from the root until
 * batch new leaves wait for the evaluator, each walk counting a visit of
 * value 0 (a virtual draw) on every edge it crosses: that shrinks the
 * edge's exploration term and moves its mean toward 0, so the next walk
 * tends elsewhere where the mover is not losing (where it is, a pending
 * edge looks better than before and the next walk may meet its leaf and
 * end the round early: a shorter round, never a wrong count); it stops
 * at the first walk that meets a leaf still
 * waiting for its evaluation, evaluates the round's new leaves in one
 * call and backs each up, its value added to the visits already
 * counted. A walk that ends at a terminal backs up at once. Each node
 * keeps its parent and the action that leads to it, so a backup needs
 * no stored path. With batch 1 the search is the sequential one, to the
 * last bit. Why not AlphaZero's virtual loss (a pending visit worth -1
 * to the mover): with Connect Four's trained net, 64 simulations in
 * rounds of 16, it moved the root's visit shares by 0.140 in total
 * variation from the sequential search's (another move 21% of the
 * time), the virtual draw by 0.074 (13%), about what 48 or 96
 * sequential simulations differ from 64 by (0.073, 0.078); against
 * alpha-beta depth 2 that net's search agent won 0.333 with the loss,
 * 0.443 with the draw, 0.438 sequential (docs/learner.md). A walk that
 * meets a pending leaf ends the round rather than walking on under more
 * virtual visits, which would spread a round's visits further. The
 * price of the draw: on such a net a round of 16 holds 2.9 new leaves
 * on average (8.8 under the loss), the prior sending the next walk down
 * the pending path; batches across games would not have that limit.
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
	size_t obs_len, ssize, cap, used, batch;
	unsigned char *states;  /* cap x ssize */
	int *mover;             /* cap: 0, 1, -1 terminal, or MOVER_PENDING */
	double *ret0;           /* cap: player 0's return at a terminal */
	uint32_t *total;        /* cap: visits through the node */
	float *fpu;             /* cap: an unvisited action's Q (the node's
				   value for its mover, from the evaluator) */
	int32_t *parent;        /* cap: the node's parent (-1: the root) */
	int *pact;              /* cap: and the action from it */
	int32_t *child;         /* cap x A */
	uint32_t *n;            /* cap x A */
	float *w, *p;           /* cap x A */
	/* a round's leaves: their nodes, and the evaluator's in and out */
	size_t *leaf;           /* batch */
	const void **lstate;    /* batch */
	float *obs;             /* batch x obs_len */
	uint8_t *mask;          /* batch x A */
	float *prior;           /* batch x A */
	float *value;           /* batch */
	int *nlegal, *lmover;   /* batch: each leaf's legal count, mover */
	float *prior0;          /* A: the evaluator's root prior (no noise) */
	float root_v;           /* and its value of the root, for its mover */
	int searched;           /* the last search ran to its end */
	double *eta;            /* A: a Dirichlet draw */
	struct env_rng rng;     /* for apply(); the games searched draw none */
};

/* A leaf waiting for its evaluation (never a root, never selected). */
#define MOVER_PENDING (-2)

int env_mcts_new(env_mcts **out, const env *e, const struct env_mcts_opts *o,
		 env_mcts_eval_fn eval, void *ctx, char *err, size_t errlen)
{
	const struct env_spec *sp;
	env_mcts *m;
	size_t B, A;

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
	if (o->batch > ENV_MCTS_BATCH_MAX) {
		lg_errf(err, errlen, "search: batch must be at most %u (0 "
			"and 1: one leaf a call)", ENV_MCTS_BATCH_MAX);
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
	/* the search and its arrays: one block (lg_block_new) */
	size_t cap = (size_t)o->sims + 1, ssize = e->gm.state_size;
	B = o->batch ? o->batch : 1;
	A = (size_t)sp->num_actions;
#define PART(member, count) LG_PART(env_mcts, member, count)
	const struct lg_part parts[] = {
		PART(states, cap * ssize), PART(mover, cap), PART(ret0, cap),
		PART(total, cap), PART(fpu, cap), PART(parent, cap),
		PART(pact, cap), PART(child, cap * A), PART(n, cap * A),
		PART(w, cap * A), PART(p, cap * A), PART(leaf, B),
		PART(lstate, B), PART(obs, B * sp->obs_len), PART(mask, B * A),
		PART(prior, B * A), PART(value, B), PART(nlegal, B),
		PART(lmover, B), PART(prior0, A), PART(eta, A),
	};
#undef PART
	m = lg_block_new(sizeof *m, parts, LG_ARRAY_LEN(parts));
	if (!m) {
		lg_errf(err, errlen, "search: out of memory");
		return LG_ENOMEM;
	}
	m->gm = &e->gm;
	m->o = *o;
	m->eval = eval;
	m->ctx = ctx;
	m->A = (int)sp->num_actions;
	m->obs_len = sp->obs_len;
	m->ssize = ssize;
	m->cap = cap;
	m->batch = B;
	env_rng_seed(&m->rng, 0x6d637473);
	*out = m;
	return 0;
}

void env_mcts_free(env_mcts *m)
{
	free(m);
}

/* Node i's state is set: clear its edges and set its mover. A terminal
 * is done (*value0: player 0's return, returns 1); a decision becomes
 * the round's leaf k, its observation and mask written for the evaluator
 * (returns 0); or an LG_E* code. */
static int prepare(env_mcts *m, size_t i, size_t k, double *value0)
{
	const struct league_game *g = m->gm->g;
	const void *inst = m->gm->inst;
	const unsigned char *st = m->states + i * m->ssize;
	size_t A = (size_t)m->A;
	int pl = g->player(inst, st);

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
		return 1;
	}
	if (pl != 0 && pl != 1)
		return LG_EUNSUPP; /* a chance node the spec did not declare */
	m->mover[i] = MOVER_PENDING;
	g->observe(inst, st, pl, m->obs + k * m->obs_len);
	m->nlegal[k] = g->legal(inst, st, pl, m->mask + k * A);
	if (m->nlegal[k] < 1)
		return LG_EINVAL;
	m->leaf[k] = i;
	m->lstate[k] = st;
	m->lmover[k] = pl;
	return 0;
}

/* The round's leaf k evaluated: its prior and first-play value set, its
 * mover restored; *value0 its value for player 0. */
static int settle(env_mcts *m, size_t k, double *value0)
{
	size_t A = (size_t)m->A, i = m->leaf[k];
	const uint8_t *mask = m->mask + k * A;
	const float *in = m->prior + k * A;
	float *pr = m->p + i * A, v = m->value[k];
	int pl = m->lmover[k];
	double sum = 0;

	for (size_t a = 0; a < A; a++) {
		pr[a] = mask[a] && in[a] >= 0 && isfinite(in[a]) ? in[a] : 0;
		sum += pr[a];
	}
	for (size_t a = 0; a < A; a++) /* illegal: -1, never chosen */
		pr[a] = !mask[a]  ? -1.0f
			: sum > 0 ? (float)(pr[a] / sum)
				  : 1.0f / (float)m->nlegal[k];
	if (!isfinite(v))
		return LG_EINVAL;
	m->mover[i] = pl;
	m->fpu[i] = v;
	*value0 = pl == 0 ? v : -v;
	return 0;
}

/* The round's first n leaves through the evaluator (what it leaves
 * unwritten reads as a uniform prior and value 0, not as the last
 * round's). */
static int evaluate(env_mcts *m, size_t n)
{
	memset(m->prior, 0, n * (size_t)m->A * sizeof *m->prior);
	memset(m->value, 0, n * sizeof *m->value);
	return m->eval(m->ctx, n, m->obs, m->mask, m->lstate, m->prior,
		       m->value);
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

/* From node i up to the root: every edge on the way gets a visit (but
 * with `counted` the walk already counted it) and v0, player 0's value,
 * for its mover. */
static void backup(env_mcts *m, size_t i, double v0, int counted)
{
	size_t A = (size_t)m->A;

	while (m->parent[i] >= 0) {
		size_t up = (size_t)m->parent[i];
		size_t k = up * A + (size_t)m->pact[i];
		if (!counted) {
			m->n[k]++;
			m->total[up]++;
		}
		m->w[k] += (float)(m->mover[up] == 0 ? v0 : -v0);
		i = up;
	}
}

/* A pending walk's visits (of value 0 until its backup) on the edges
 * from node i up. */
static void visit_pending(env_mcts *m, size_t i)
{
	size_t A = (size_t)m->A;

	while (m->parent[i] >= 0) {
		size_t up = (size_t)m->parent[i];
		size_t k = up * A + (size_t)m->pact[i];
		m->n[k]++;
		m->total[up]++;
		i = up;
	}
}

/* One round: walks until batch new leaves wait (walks ending at a
 * terminal back up at once and do not count) or `left` simulations
 * (walks that end at a new node or a terminal) are made, the leaves
 * evaluated in one call and backed up; *done the simulations made. */
static int round_of(env_mcts *m, uint32_t left, uint32_t *done)
{
	size_t A = (size_t)m->A, nleaf = 0;
	double v0 = 0;
	int rc;

	*done = 0;
	while (*done < left && nleaf < m->batch) {
		size_t i = 0;
		int a = -1, collided = 0;
		for (;;) {
			if (m->mover[i] == -1) /* a terminal: its returns */
				break;
			if ((a = select_action(m, i)) < 0)
				return LG_EINVAL;
			int32_t c = m->child[i * A + (size_t)a];
			if (c < 0)
				break;
			if (m->mover[c] == MOVER_PENDING) {
				collided = 1;
				break;
			}
			i = (size_t)c;
		}
		if (collided)
			break; /* the round's leaves first */
		if (m->mover[i] == -1) {
			backup(m, i, m->ret0[i], 0);
			++*done;
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
		m->parent[j] = (int32_t)i;
		m->pact[j] = a;
		++*done;
		if ((rc = prepare(m, j, nleaf, &v0)) < 0)
			return rc;
		if (rc == 1) { /* terminal */
			backup(m, j, v0, 0);
			continue;
		}
		visit_pending(m, j);
		nleaf++;
	}
	if (nleaf && (rc = evaluate(m, nleaf)))
		return rc;
	for (size_t k = 0; k < nleaf; k++) {
		if ((rc = settle(m, k, &v0)))
			return rc;
		backup(m, m->leaf[k], v0, 1);
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
	uint32_t left, done;
	int rc;

	if (!m || !e || &e->gm != m->gm || env_is_terminal(e) ||
	    (m->o.noise_frac > 0 && !rng))
		return LG_EINVAL;
	A = (size_t)m->A;
	m->searched = 0;
	m->used = 1;
	m->parent[0] = -1;
	memcpy(m->states, e->st, m->ssize);
	if ((rc = prepare(m, 0, 0, &v0)) < 0)
		return rc;
	if (rc == 1)
		return LG_EINVAL; /* not over, says env_is_terminal */
	if ((rc = evaluate(m, 1)) || (rc = settle(m, 0, &v0)))
		return rc;
	for (size_t a = 0; a < A; a++)
		m->prior0[a] = m->p[a] < 0 ? 0 : m->p[a];
	m->root_v = m->fpu[0];
	if (m->o.noise_frac > 0)
		root_noise(m, rng);
	for (left = m->o.sims; left; left -= done)
		if ((rc = round_of(m, left, &done)) || !done)
			return rc ? rc : LG_EINVAL; /* a round makes one */
	if (visits)
		for (size_t a = 0; a < A; a++)
			visits[a] = m->n[a];
	if (prior)
		memcpy(prior, m->prior0, A * sizeof *prior);
	if (value)
		*value = m->root_v;
	m->searched = 1;
	return 0;
}

double env_mcts_root_value(const env_mcts *m)
{
	size_t A;
	double sum;

	if (!m || !m->searched)
		return NAN;
	A = (size_t)m->A;
	sum = m->root_v;
	for (size_t a = 0; a < A; a++)
		sum += m->w[a]; /* the root's edges, for its mover */
	return sum / (1.0 + (double)m->total[0]);
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
