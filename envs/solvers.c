/*
 * envs/solvers.c: tabular solvers on the exact tree (tree_internal.h):
 * CFR+, the reference equilibrium; magnetic mirror descent, the
 * reference for what an entropy temperature costs (its QRE) and for the
 * average of a cycling learner; smooth fictitious play, the reference for
 * how many snapshots an average of responses needs.
 */
#include "envs/tree_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A solver's table seen as a policy (table_fn's context). */
struct table_view {
	const env_tree *t;
	const char *who; /* for errors */
	const double *tab, *fallback;
};

/* ---- CFR and CFR+ ------------------------------------------------------ */

/*
 * CFR+: regret matching+ with alternating updates and linear averaging,
 * for any number of seats: in iteration t, for each seat i in turn (0, 1,
 * ..., np - 1), one traversal with the current strategies adds i's
 * counterfactual regrets (weighted by chance x every other seat's reach),
 * clamps them at 0 and re-derives i's current strategy (so seat i + 1
 * already plays against the updated strategies of seats 0..i), and adds
 * t x (i's own reach) x strategy to i's average. Vanilla CFR: the same
 * walk with plain regret matching (no clamping) and uniform averaging.
 *
 * Why alternating and not simultaneous updates: CFR+'s guarantees and its
 * speed in practice are for alternating updates (Tammelin et al. 2015,
 * Burch et al. 2019), and two seats then play exactly as before this
 * took N seats. It costs N traversals per iteration, one per seat (a
 * simultaneous update could do with one walk carrying every seat's
 * reach). With more than two seats (or general-sum returns) neither
 * converges to a Nash equilibrium in general. What no-regret learning
 * does give there, a coarse correlated equilibrium, is a property of the
 * empirical distribution of the joint iterates (every seat's strategy of
 * one iteration played together), not of the product of the seats'
 * average strategies that env_cfr_average gives; NashConv measures how
 * far that product is from Nash.
 *
 * The average weighs each iteration's strategy at an infostate by the
 * seat's own reach alone: a branch another seat (or chance) never takes
 * this iteration is still walked while the seat's own reach is > 0, so
 * the infostates below it get this iteration's weight (see cfr_walk).
 */
struct env_cfr {
	const env_tree *t;
	int plus; /* 1: CFR+, 0: vanilla CFR */
	uint64_t iters;
	double *regret, *avg, *cur; /* [ni * A] */
	struct table_view avg_view;
};

static void cfr_match(env_cfr *c, size_t info)
{
	const env_tree *t = c->t;
	const struct tinfo *ti = &t->info[info];
	double *r = c->regret + info * (size_t)t->A;
	double *s = c->cur + info * (size_t)t->A;
	double sum = 0;

	for (int a = 0; a < t->A; a++)
		sum += ti->mask[a] && r[a] > 0 ? r[a] : 0;
	for (int a = 0; a < t->A; a++) {
		if (!ti->mask[a])
			s[a] = 0;
		else if (sum > 0)
			s[a] = r[a] > 0 ? r[a] / sum : 0;
		else
			s[a] = 1.0 / ti->nlegal;
	}
}

int env_cfr_new_kind(env_cfr **out, const env_tree *t, int kind)
{
	env_cfr *c;
	size_t n = t->ni * (size_t)t->A + 1;
	const struct lg_part parts[] = {
		LG_PART(env_cfr, regret, n), LG_PART(env_cfr, avg, n),
		LG_PART(env_cfr, cur, n),
	};

	*out = NULL;
	if (kind != ENV_CFR_PLUS && kind != ENV_CFR_VANILLA)
		return LG_EINVAL;
	/* the solver and its tables: one block */
	if (!(c = lg_block_new(sizeof *c, parts, LG_ARRAY_LEN(parts))))
		return LG_ENOMEM;
	c->t = t;
	c->plus = kind == ENV_CFR_PLUS;
	for (size_t i = 0; i < t->ni; i++)
		cfr_match(c, i);
	*out = c;
	return 0;
}

int env_cfr_new(env_cfr **out, const env_tree *t)
{
	return env_cfr_new_kind(out, t, ENV_CFR_PLUS);
}

void env_cfr_free(env_cfr *c)
{
	free(c); /* one block with its tables */
}

static double cfr_walk(env_cfr *c, size_t n, int me, double pi_me,
		       double pi_opp, double weight)
{
	const env_tree *t = c->t;
	const struct tnode *x = &t->nodes[n];
	size_t A = (size_t)t->A;
	double v = 0;

	if (x->kind == T_TERMINAL)
		return tnode_ret(t, x)[me];
	/* Nobody's reach: no regret or average below changes, and the value
	 * returned is weighted by 0 wherever it is used. */
	if (pi_me == 0 && pi_opp == 0)
		return 0;
	if (x->kind == T_CHANCE) {
		for (int i = 0; i < x->n; i++) {
			double p = t->nodes[x->first + i].p;
			v += p * cfr_walk(c, (size_t)(x->first + i), me, pi_me,
					  pi_opp * p, weight);
		}
		return v;
	}
	const double *s = c->cur + (size_t)x->info * A;
	if (x->player != me) {
		for (int i = 0; i < x->n; i++) {
			double p = s[t->nodes[x->first + i].action];
			/* A branch the opponent never takes still carries
			 * me's own reach: the average below it must get this
			 * iteration's weight (CFR averages by own reach
			 * alone), so it is skipped only when that is 0 too
			 * (then nothing below changes). Skipping it whenever
			 * p == 0 weighted each infostate's average by the
			 * opponent's play, and CFR+ stalled where regret
			 * matching zeroes many actions (liars_dice: NashConv
			 * 0.034 at 100 iterations and at 2,000). */
			if (p > 0 || pi_me > 0)
				v += p * cfr_walk(c, (size_t)(x->first + i), me,
						  pi_me, pi_opp * p, weight);
		}
		return v;
	}
	double q[ENV_MAX_ACTIONS] = { 0 };
	double *r = c->regret + (size_t)x->info * A;
	double *avg = c->avg + (size_t)x->info * A;
	for (int i = 0; i < x->n; i++) {
		int a = t->nodes[x->first + i].action;
		q[a] = cfr_walk(c, (size_t)(x->first + i), me, pi_me * s[a],
				pi_opp, weight);
		v += s[a] * q[a];
	}
	for (int i = 0; i < x->n; i++) {
		int a = t->nodes[x->first + i].action;
		r[a] += pi_opp * (q[a] - v);
		avg[a] += weight * pi_me * s[a];
	}
	return v;
}

void env_cfr_run(env_cfr *c, uint64_t iters)
{
	const env_tree *t = c->t;

	for (uint64_t k = 0; k < iters; k++) {
		double w = (double)++c->iters;
		if (!c->plus)
			w = 1;
		for (int me = 0; me < t->np; me++) {
			cfr_walk(c, 0, me, 1, 1, w);
			for (size_t i = 0; i < t->ni; i++) {
				if (t->info[i].player != me)
					continue;
				double *r = c->regret + i * (size_t)t->A;
				for (int a = 0; a < t->A && c->plus; a++)
					if (r[a] < 0)
						r[a] = 0;
				cfr_match(c, i);
			}
		}
	}
}

uint64_t env_cfr_iterations(const env_cfr *c)
{
	return c->iters;
}

/* A solver's table as a policy: row `key` of tab (ni x t->A, any scale)
 * read for the seat's A actions and normalised over the legal ones; a row
 * summing to 0 falls back to that row of fallback, or to uniform without
 * one. LG_ENOTFOUND (a key not in the tree), LG_EINVAL (A > t->A). */
static int table_probs(const env_tree *t, const char *who, const char *key,
		       const double *tab, const double *fallback,
		       const uint8_t *mask, int A, double *probs, char *err,
		       size_t errlen)
{
	int i = env_strmap_get(&t->map, key);
	double sum = 0;

	if (i < 0) {
		lg_errf(err, errlen, "%s: unknown infostate '%s'", who, key);
		return LG_ENOTFOUND;
	}
	if (A > t->A) {
		lg_errf(err, errlen, "%s: asked for %d actions at '%s', but "
			"the tree's seats have at most %d", who, A, key, t->A);
		return LG_EINVAL;
	}
	/* rows keep the tree's stride t->A, whatever the seat's count */
	const double *s = tab + (size_t)i * (size_t)t->A;
	const double *f = fallback ? fallback + (size_t)i * (size_t)t->A
				   : NULL;
	for (int a = 0; a < A; a++)
		sum += mask[a] ? s[a] : 0;
	for (int a = 0; a < A; a++)
		probs[a] = !mask[a]  ? 0
			   : sum > 0 ? s[a] / sum
			   : f	     ? f[a]
				     : 1.0 / t->info[i].nlegal;
	return 0;
}

static int table_fn(void *ctx, int player, const char *key,
		    const float *obs, const uint8_t *mask, int A, double *probs,
		    char *err, size_t errlen)
{
	const struct table_view *v = ctx;

	(void)player;
	(void)obs;
	return table_probs(v->t, v->who, key, v->tab, v->fallback, mask, A,
			   probs, err, errlen);
}

/* v, which its solver holds, set to show tab (and fallback), as a
 * policy valid while the solver lives. */
static struct env_policy table_policy(struct table_view *v,
				      const env_tree *t, const char *who,
				      const double *tab,
				      const double *fallback)
{
	*v = (struct table_view){ t, who, tab, fallback };
	return (struct env_policy){ table_fn, v, NULL };
}

struct env_policy env_cfr_average(env_cfr *c)
{
	return table_policy(&c->avg_view, c->t,
			    c->plus ? "CFR+ policy" : "CFR policy", c->avg,
			    NULL);
}

/* ---- walks of the tree under a table policy (MMD, fictitious play) ---- */

/* The probability of the edge from x to its child c: chance's, or the
 * table's for the mover's infoset. */
static double edge_weight(const env_tree *t, const struct tnode *x, size_t c,
			  const double *tab)
{
	return x->kind == T_CHANCE ? t->nodes[c].p
				   : tab[(size_t)x->info * (size_t)t->A +
					 (size_t)t->nodes[c].action];
}

/* Every seat's value of node n and every node below it when everyone
 * plays tab, into val[np * node + seat]. */
static void tree_values(const env_tree *t, const double *tab, size_t n,
			double *val)
{
	const struct tnode *x = &t->nodes[n];
	size_t np = (size_t)t->np;
	double *v = val + np * n;

	if (tnode_start_value(t, x, v))
		return;
	for (int i = 0; i < x->n; i++) {
		size_t c = (size_t)(x->first + i);
		double w = edge_weight(t, x, c, tab);
		tree_values(t, tab, c, val);
		for (size_t p = 0; p < np; p++)
			v[p] += w * val[np * c + p];
	}
}

/* Chance x reach of everyone but me (r) of node n and every node below it
 * under tab into reach[], and me's own reach (ro) of each of me's
 * infosets into own[] (one value per infoset under perfect recall;
 * without it the last history visited sets it). */
static void tree_reach(const env_tree *t, const double *tab, size_t n,
		       double r, double ro, int me, double *reach, double *own)
{
	const struct tnode *x = &t->nodes[n];
	int mine = x->kind == T_DECISION && x->player == me;

	reach[n] = r;
	if (mine)
		own[x->info] = ro;
	for (int i = 0; i < x->n; i++) {
		size_t c = (size_t)(x->first + i);
		double w = edge_weight(t, x, c, tab);
		tree_reach(t, tab, c, mine ? r : r * w, mine ? ro * w : ro, me,
			   reach, own);
	}
}

/* The uniform policy over each infoset's legal actions into tab. */
static void uniform_table(const env_tree *t, double *tab)
{
	for (size_t i = 0; i < t->ni; i++)
		for (int a = 0; a < t->A; a++)
			tab[i * (size_t)t->A + (size_t)a] =
				t->info[i].mask[a] ? 1.0 / t->info[i].nlegal
						   : 0;
}

/* softmax(z) over the legal actions of infoset ti into out. */
static void softmax_legal(const struct tinfo *ti, int A, const double *z,
			  double *out)
{
	double mx = -INFINITY, sum = 0;

	for (int a = 0; a < A; a++)
		if (ti->mask[a] && z[a] > mx)
			mx = z[a];
	for (int a = 0; a < A; a++)
		sum += out[a] = ti->mask[a] ? exp(z[a] - mx) : 0;
	for (int a = 0; a < A; a++)
		out[a] /= sum;
}

/* ---- magnetic mirror descent to the QRE --------------------------------- */

/*
 * MMD (Sokota et al., 2023) with the uniform magnet, both players at once
 * on exact values: at every infoset I
 *     pi'(.|I) ~ exp((log pi(.|I) + eta q(I, .)) / (1 + alpha eta)),
 * q(I, a) the value of a at I averaged over I's histories weighted by
 * chance x opponent reach. Its fixed point is the logit quantal-response
 * equilibrium of temperature alpha (return units): pi = softmax(q / alpha)
 * at every infoset. The residual measures the distance from it.
 */
struct env_mmd {
	const env_tree *t;
	double alpha, eta, residual;
	uint64_t iters;
	double *pi, *q, *den; /* [ni * A], [ni * A], [ni] */
	double optimism, *qprev; /* qprev [ni * A] once optimism > 0 */
	int have_prev;           /* qprev holds the last iteration's q */
	/* the moving magnet (env_mmd_set_magnet): weight beta, log of the
	 * policy it last copied [ni * A], refreshed every magnet_every */
	double beta, *lmag;
	uint64_t magnet_every;
	/* sampled q (env_mmd_set_sampling): its settings, the rng, each
	 * infoset's visits this iteration [ni] and the most of them */
	struct env_mmd_sampling smp;
	lg_rng rng;
	double *visits, vmax;
	double *val, *reach;  /* [nn * np], [nn] */
	/* the average: sum over averaged iterations of own reach x pi, and
	 * its normalised view; own reach of every infoset [ni] */
	double *avg, *own;
	uint64_t avg_from;
	struct table_view pi_view, avg_view;
};

int env_mmd_new(env_mmd **out, const env_tree *t, double alpha, double eta)
{
	env_mmd *m;
	size_t na = t->ni * (size_t)t->A + 1;
	const struct lg_part parts[] = {
		LG_PART(env_mmd, pi, na), LG_PART(env_mmd, q, na),
		LG_PART(env_mmd, den, t->ni + 1),
		LG_PART(env_mmd, val, t->nn * (size_t)t->np + 1),
		LG_PART(env_mmd, reach, t->nn + 1), LG_PART(env_mmd, avg, na),
		LG_PART(env_mmd, own, t->ni + 1),
	};

	*out = NULL;
	if (!(alpha > 0) || !(eta > 0) || !isfinite(alpha) || !isfinite(eta))
		return LG_EINVAL;
	/* the solver and the tables every run needs: one block (qprev,
	 * lmag and visits come on their own when a setting asks for them) */
	if (!(m = lg_block_new(sizeof *m, parts, LG_ARRAY_LEN(parts))))
		return LG_ENOMEM;
	m->t = t;
	m->alpha = alpha;
	m->eta = eta;
	m->residual = INFINITY;
	uniform_table(t, m->pi);
	*out = m;
	return 0;
}

void env_mmd_free(env_mmd *m)
{
	if (!m)
		return;
	free(m->qprev);
	free(m->lmag);
	free(m->visits);
	free(m); /* one block with the other tables */
}

/* Sampled steps' bounds: decisions on one path, children of one node
 * (env_mmd_set_sampling refuses a tree beyond them). */
#define MMD_PATH_MAX 256
#define MMD_FANOUT (ENV_MAX_ACTIONS > ENV_CHANCE_MAX ? ENV_MAX_ACTIONS \
						     : ENV_CHANCE_MAX)

/* The most decisions on a path from node n down, and the widest node
 * below it, into *fan. */
static int tree_depth(const env_tree *t, size_t n, int *fan)
{
	const struct tnode *x = &t->nodes[n];
	int d = 0;

	*fan = LG_MAX(*fan, x->n);
	for (int i = 0; i < x->n; i++)
		d = LG_MAX(d, tree_depth(t, (size_t)(x->first + i), fan));
	return d + (x->kind == T_DECISION);
}

int env_mmd_set_sampling(env_mmd *m, const struct env_mmd_sampling *smp)
{
	int fan = 0;

	if (smp->estimator < ENV_MMD_OUTCOME ||
	    smp->estimator > ENV_MMD_ALLQ || !(smp->clip >= 0) ||
	    !(smp->reach >= 0) || !isfinite(smp->reach) ||
	    isnan(smp->clip))
		return LG_EINVAL;
	if (smp->episodes &&
	    (tree_depth(m->t, 0, &fan) > MMD_PATH_MAX || fan > MMD_FANOUT))
		return LG_EUNSUPP;
	if (smp->episodes && !m->visits &&
	    !(m->visits = calloc(m->t->ni + 1, sizeof *m->visits)))
		return LG_ENOMEM;
	m->smp = *smp;
	lg_rng_seed(&m->rng, smp->seed);
	return 0;
}

/* The magnet becomes the current policy (its log). */
static void mmd_take_magnet(env_mmd *m)
{
	for (size_t i = 0; i < m->t->ni * (size_t)m->t->A; i++)
		m->lmag[i] = log(LG_MAX(m->pi[i], 1e-300));
}

int env_mmd_set_magnet(env_mmd *m, double beta, uint64_t every)
{
	size_t na = m->t->ni * (size_t)m->t->A;

	if (!(beta >= 0) || !isfinite(beta) || (beta > 0 && !every))
		return LG_EINVAL;
	if (beta > 0 && !m->lmag &&
	    !(m->lmag = calloc(na + 1, sizeof *m->lmag)))
		return LG_ENOMEM;
	m->beta = beta;
	m->magnet_every = every;
	if (m->lmag)
		mmd_take_magnet(m);
	return 0;
}

int env_mmd_set_optimism(env_mmd *m, double c)
{
	if (!(c >= 0) || !isfinite(c))
		return LG_EINVAL;
	if (c > 0 && !m->qprev &&
	    !(m->qprev = calloc(m->t->ni * (size_t)m->t->A + 1,
				sizeof *m->qprev)))
		return LG_ENOMEM;
	m->optimism = c;
	return 0;
}

/* One episode of everyone playing m->pi from the root, chance as the
 * tree has it: each decision's node and the child taken into path[2d],
 * path[2d + 1] (at most cap decisions), the terminal node returned. */
static size_t mmd_episode(env_mmd *m, size_t *path, int *len, int cap)
{
	const env_tree *t = m->t;
	size_t n = 0;
	double w[MMD_FANOUT];

	*len = 0;
	while (t->nodes[n].kind != T_TERMINAL) {
		const struct tnode *x = &t->nodes[n];
		int k = x->n; /* <= MMD_FANOUT: env_mmd_set_sampling */
		for (int i = 0; i < k; i++)
			w[i] = edge_weight(t, x, (size_t)(x->first + i), m->pi);
		size_t c = (size_t)x->first +
			   lg_rng_categorical(&m->rng, w, (size_t)k);
		if (x->kind == T_DECISION && *len < cap) {
			path[2 * *len] = n;
			path[2 * *len + 1] = c;
			(*len)++;
		}
		n = c;
	}
	return n;
}

/* Replace m->q by an estimate from m->smp.episodes sampled episodes
 * (m->val holds the exact values under m->pi, for the critics that know
 * the history): per visit of infoset I at history h with action a taken
 * and return G, with pi = pi(a|I),
 *   OUTCOME: b + 1[a] (G - b) / pi, b the mean return at I this batch
 *   HISTORY: V(h) + 1[a] (G - V(h)) / pi
 *   ALLQ:    Q(h, a') for every action a'
 * averaged over I's visits (m->visits[I] counts them), then clipped to
 * [-clip, clip]. */
static void mmd_q_sampled(env_mmd *m)
{
	const env_tree *t = m->t;
	const struct env_mmd_sampling *smp = &m->smp;
	size_t A = (size_t)t->A, np = (size_t)t->np, path[2 * MMD_PATH_MAX];
	int len, outcome = smp->estimator == ENV_MMD_OUTCOME;
	double *base = m->den; /* reused: the mean return at I (OUTCOME) */
	lg_rng start = m->rng;

	memset(m->q, 0, t->ni * A * sizeof *m->q);
	memset(base, 0, t->ni * sizeof *base);
	/* OUTCOME's baseline needs the batch first: pass 0 sums the returns
	 * at each infoset, pass 1 plays the same episodes again */
	for (int pass = !outcome; pass < 2; pass++) {
		if (pass == 1 && outcome) {
			m->rng = start;
			for (size_t i = 0; i < t->ni; i++)
				base[i] = m->visits[i] > 0
						  ? base[i] / m->visits[i]
						  : 0;
		}
		memset(m->visits, 0, t->ni * sizeof *m->visits);
		for (uint64_t e = 0; e < smp->episodes; e++) {
			size_t z = mmd_episode(m, path, &len, MMD_PATH_MAX);
			for (int d = 0; d < len; d++) {
				size_t h = path[2 * d], c = path[2 * d + 1];
				const struct tnode *x = &t->nodes[h];
				size_t I = (size_t)x->info;
				int me = x->player, a = t->nodes[c].action;
				double G = tnode_ret(t, &t->nodes[z])[me];
				double *q = m->q + I * A;

				m->visits[I] += 1;
				if (pass == 0) {
					base[I] += G;
					continue;
				}
				if (smp->estimator == ENV_MMD_ALLQ) {
					for (int i = 0; i < x->n; i++) {
						size_t cc = (size_t)(x->first + i);
						q[t->nodes[cc].action] +=
							m->val[np * cc + (size_t)me];
					}
					continue;
				}
				double b = outcome ? base[I]
						   : m->val[np * h + (size_t)me];
				for (size_t k = 0; k < A; k++)
					q[k] += t->info[I].mask[k] ? b : 0;
				q[a] += (G - b) / m->pi[I * A + (size_t)a];
			}
		}
	}
	m->vmax = 0;
	for (size_t i = 0; i < t->ni; i++) {
		m->vmax = LG_MAX(m->vmax, m->visits[i]);
		for (size_t a = 0; a < A && m->visits[i] > 0; a++) {
			double v = m->q[i * A + a] / m->visits[i];
			if (smp->clip > 0)
				v = LG_MAX(-smp->clip, LG_MIN(smp->clip, v));
			m->q[i * A + a] = v;
		}
	}
}

/* Add the current iterate to the average, each infoset's policy weighted
 * by its player's own reach (the sequence-form average: the same as
 * drawing one averaged iterate per episode); m->own is mmd_q's, of this
 * iterate. */
static void mmd_accumulate(env_mmd *m)
{
	const env_tree *t = m->t;
	size_t A = (size_t)t->A;

	for (size_t i = 0; i < t->ni; i++)
		for (size_t a = 0; a < A; a++)
			m->avg[i * A + a] += m->own[i] * m->pi[i * A + a];
}

/* q and its reach weights of every infoset under m->pi, and each
 * player's own reach of its infosets. */
static void mmd_q(env_mmd *m)
{
	const env_tree *t = m->t;
	size_t A = (size_t)t->A;

	memset(m->q, 0, t->ni * A * sizeof *m->q);
	memset(m->den, 0, t->ni * sizeof *m->den);
	tree_values(t, m->pi, 0, m->val);
	for (int me = 0; me < t->np; me++) {
		tree_reach(t, m->pi, 0, 1, 1, me, m->reach, m->own);
		for (size_t n = 0; n < t->nn; n++) {
			const struct tnode *x = &t->nodes[n];
			if (x->kind != T_DECISION || x->player != me)
				continue;
			m->den[x->info] += m->reach[n];
			for (int i = 0; i < x->n; i++) {
				size_t c = (size_t)(x->first + i);
				m->q[(size_t)x->info * A +
				     (size_t)t->nodes[c].action] +=
					m->reach[n] *
					m->val[(size_t)t->np * c + (size_t)me];
			}
		}
	}
	for (size_t i = 0; i < t->ni; i++)
		for (size_t a = 0; a < A; a++)
			m->q[i * A + a] = m->den[i] > 0
						  ? m->q[i * A + a] / m->den[i]
						  : 0;
}

void env_mmd_run(env_mmd *m, uint64_t iters)
{
	const env_tree *t = m->t;
	size_t A = (size_t)t->A;
	double z[ENV_MAX_ACTIONS], r[ENV_MAX_ACTIONS];

	if (iters == UINT64_MAX)
		iters--; /* k runs to iters inclusive */
	for (uint64_t k = 0; k <= iters; k++) {
		if (m->beta > 0 && k < iters && m->iters &&
		    m->iters % m->magnet_every == 0)
			mmd_take_magnet(m);
		mmd_q(m);
		if (m->smp.episodes && k < iters)
			mmd_q_sampled(m);
		if (k < iters && m->iters >= m->avg_from)
			mmd_accumulate(m);
		m->residual = 0;
		for (size_t i = 0; i < t->ni; i++) {
			const struct tinfo *ti = &t->info[i];
			double *pi = m->pi + i * A;
			const double *q = m->q + i * A;
			for (size_t a = 0; a < A; a++)
				z[a] = q[a] / m->alpha;
			softmax_legal(ti, t->A, z, r);
			for (size_t a = 0; a < A; a++)
				m->residual = LG_MAX(m->residual,
						     fabs(r[a] - pi[a]));
			if (k == iters)
				continue; /* the residual of the result only */
			if (m->smp.episodes && !(m->visits[i] > 0))
				continue; /* no sample: no step */
			for (size_t a = 0; a < A; a++) {
				double g = q[a];
				if (m->qprev) {
					double *qp = m->qprev + i * A + a;
					if (m->have_prev)
						g += m->optimism * (q[a] - *qp);
					*qp = q[a];
				}
				if (m->beta > 0)
					g += m->beta * m->lmag[i * A + a];
				double eta = m->eta;
				if (m->smp.episodes && m->smp.reach > 0)
					eta *= LG_MIN(1.0, m->smp.reach *
								   m->visits[i] /
								   m->vmax);
				z[a] = ti->mask[a]
					       ? (log(LG_MAX(pi[a], 1e-300)) +
						  eta * g) /
							 (1 + (m->alpha + m->beta) *
								      eta)
					       : 0;
			}
			softmax_legal(ti, t->A, z, pi);
		}
		if (k < iters) {
			m->iters++;
			m->have_prev = m->qprev != NULL;
		}
	}
}

uint64_t env_mmd_iterations(const env_mmd *m)
{
	return m->iters;
}

double env_mmd_residual(const env_mmd *m)
{
	return m->residual;
}

struct env_policy env_mmd_policy(env_mmd *m)
{
	return table_policy(&m->pi_view, m->t, "MMD policy", m->pi, NULL);
}

void env_mmd_average_from(env_mmd *m, uint64_t iteration)
{
	m->avg_from = iteration;
}

/* An infoset no averaged iterate reached plays the current one. */
struct env_policy env_mmd_average(env_mmd *m)
{
	return table_policy(&m->avg_view, m->t, "MMD average", m->avg, m->pi);
}

/* ---- smooth fictitious play ---------------------------------------------- */

struct env_fp {
	const env_tree *t;
	double tau;
	int linear;
	uint64_t iters;
	double *sum;  /* [ni * A]: sum of weight x own reach x iterate */
	double *avg;  /* [ni * A]: sum normalised per infoset */
	double *pi;   /* [ni * A]: this iteration's responses, both players */
	double *play; /* [ni * A]: a response in the making beside avg */
	double *val, *reach, *own; /* [nn * np], [nn], [ni] */
	int maxdepth;
	struct table_view avg_view, resp_view;
};

void env_fp_free(env_fp *f)
{
	free(f); /* one block with its tables */
}

/* Add the responses in f->pi to the average's sums with weight w, each
 * infoset's weighted by its player's own reach under them. */
static void fp_accumulate(env_fp *f, double w)
{
	const env_tree *t = f->t;
	size_t A = (size_t)t->A;

	for (int me = 0; me < t->np; me++) {
		tree_reach(t, f->pi, 0, 1, 1, me, f->reach, f->own);
		for (size_t i = 0; i < t->ni; i++) {
			if (t->info[i].player != me)
				continue;
			for (size_t a = 0; a < A; a++)
				f->sum[i * A + a] +=
					w * f->own[i] * f->pi[i * A + a];
		}
	}
}

int env_fp_new(env_fp **out, const env_tree *t, double tau, int linear)
{
	size_t na = t->ni * (size_t)t->A + 1;
	const struct lg_part parts[] = {
		LG_PART(env_fp, sum, na), LG_PART(env_fp, avg, na),
		LG_PART(env_fp, pi, na), LG_PART(env_fp, play, na),
		LG_PART(env_fp, val, t->nn * (size_t)t->np + 1),
		LG_PART(env_fp, reach, t->nn + 1), LG_PART(env_fp, own, t->ni + 1),
	};
	env_fp *f;

	*out = NULL;
	if (!(tau >= 0) || !isfinite(tau))
		return LG_EINVAL;
	/* backward induction over a player's infosets by depth needs each
	 * to have one past (perfect recall) */
	for (size_t i = 0; i < t->ni; i++)
		if (t->info[i].prev == TREE_NO_RECALL)
			return LG_EUNSUPP;
	/* the solver and its tables: one block */
	if (!(f = lg_block_new(sizeof *f, parts, LG_ARRAY_LEN(parts))))
		return LG_ENOMEM;
	f->t = t;
	f->tau = tau;
	f->linear = linear != 0;
	for (size_t i = 0; i < t->ni; i++)
		f->maxdepth = LG_MAX(f->maxdepth, t->info[i].depth);
	uniform_table(t, f->avg);
	/* iteration 0, the uniform policy, weight 1 */
	memcpy(f->pi, f->avg, t->ni * (size_t)t->A * sizeof *f->pi);
	fp_accumulate(f, 1);
	*out = f;
	return 0;
}

/* me's response to the others' average into f->pi (me's infosets): the
 * deepest infosets first, each from the values below it, which its own
 * deeper infosets' responses already set. */
static void fp_respond(env_fp *f, int me)
{
	const env_tree *t = f->t;
	size_t A = (size_t)t->A;
	double q[ENV_MAX_ACTIONS], z[ENV_MAX_ACTIONS];

	memcpy(f->play, f->avg, t->ni * A * sizeof *f->play);
	/* others' reach: avg's */
	tree_reach(t, f->play, 0, 1, 1, me, f->reach, f->own);
	for (int d = f->maxdepth; d >= 1; d--) {
		tree_values(t, f->play, 0, f->val);
		for (size_t i = 0; i < t->ni; i++) {
			const struct tinfo *ti = &t->info[i];
			double den = 0;
			int best = -1;

			if (ti->player != me || ti->depth != d)
				continue;
			memset(q, 0, sizeof q);
			for (int32_t k = 0; k < ti->nodes_n; k++) {
				size_t n =
					(size_t)t->inodes[ti->nodes_first + k];
				const struct tnode *x = &t->nodes[n];
				den += f->reach[n];
				for (int c = 0; c < x->n; c++) {
					size_t cc = (size_t)(x->first + c);
					q[t->nodes[cc].action] +=
						f->reach[n] *
						f->val[(size_t)t->np * cc +
						       (size_t)me];
				}
			}
			for (size_t a = 0; a < A; a++) {
				q[a] = den > 0 ? q[a] / den : 0;
				if (ti->mask[a] && (best < 0 || q[a] > q[best]))
					best = (int)a;
			}
			double *out = f->play + i * A;
			if (f->tau > 0) {
				/* q - q[best] <= 0: a tiny tau gives
				 * -inf, not inf - inf */
				for (size_t a = 0; a < A; a++)
					z[a] = (q[a] - q[best]) / f->tau;
				softmax_legal(ti, t->A, z, out);
			} else {
				for (size_t a = 0; a < A; a++)
					out[a] = (int)a == best;
			}
		}
	}
	for (size_t i = 0; i < t->ni; i++)
		if (t->info[i].player == me)
			memcpy(f->pi + i * A, f->play + i * A,
			       A * sizeof *f->pi);
}

void env_fp_run(env_fp *f, uint64_t iters)
{
	const env_tree *t = f->t;
	size_t A = (size_t)t->A;

	for (uint64_t k = 0; k < iters; k++) {
		double w = f->linear ? (double)(f->iters + 1) : 1.0;
		for (int me = 0; me < t->np; me++)
			fp_respond(f, me); /* all against the same average */
		fp_accumulate(f, w);
		for (size_t i = 0; i < t->ni; i++) {
			double s = 0;
			for (size_t a = 0; a < A; a++)
				s += f->sum[i * A + a];
			for (size_t a = 0; a < A && s > 0; a++)
				f->avg[i * A + a] = f->sum[i * A + a] / s;
		}
		f->iters++;
	}
}

uint64_t env_fp_iterations(const env_fp *f)
{
	return f->iters;
}

struct env_policy env_fp_average(env_fp *f)
{
	return table_policy(&f->avg_view, f->t, "fictitious play average",
			    f->avg, NULL);
}

struct env_policy env_fp_response(env_fp *f)
{
	return table_policy(&f->resp_view, f->t, "fictitious play response",
			    f->pi, NULL);
}
