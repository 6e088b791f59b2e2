/*
 * learner/ppo_obs.c: the batch by observation. Rows whose observation
 * (and legal actions) hash alike are one information state for a game
 * that observes its information state (kuhn, leduc); grouped so, the
 * batch gives each state's weight (learner.state_weight) and its MMD
 * target (learner.mmd_eta): learner.h, ppo_opts; docs/learner.md, "State
 * weights" and "MMD targets". ppo.c calls these from its prepare step.
 */
#include "learner/ppo_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The end of the run of equal hashes starting at pair i of k[0..n). */
static size_t run_end(const uint64_t *k, size_t i, size_t n)
{
	size_t j = i + 1;

	while (j < n && k[2 * j] == k[2 * i])
		j++;
	return j;
}

/* k[0 .. 2 b->n): pairs (a 64-bit hash of row r's observation and
 * legal-action bytes, r) sorted by hash, so the rows of an observation
 * make one run. */
static void obs_keys(const struct lg_rows *b, uint64_t *k)
{
	size_t n = b->n, O = b->obs_len, A = b->num_actions;

	for (size_t r = 0; r < n; r++) {
		const float *x = b->obs + r * O;
		const uint8_t *m = b->mask + r * A;
		uint64_t h = 0x6c675f7374617465ull;
		for (size_t j = 0; j < O; j++) {
			uint32_t u;
			memcpy(&u, x + j, sizeof u);
			h = lg_mix64(h ^ u);
		}
		for (size_t a = 0; a < A; a++)
			h = lg_mix64(h ^ ((uint64_t)m[a] << 40 | a));
		k[2 * r] = h;
		k[2 * r + 1] = r;
	}
	qsort(k, n, 2 * sizeof *k, lg_cmp_u64); /* by each pair's hash */
}

/* p->pw[r] = min(R, n_max / n_r) scaled to a mean of 1, n_r the rows of
 * b whose observation is row r's (by a 64-bit hash of its bytes) and
 * n_max the largest such count. */
int ppo_state_weights(ppo *p, const struct lg_rows *b)
{
	size_t n = b->n, nmax = 0;
	uint64_t *k;
	double R = p->o.state_weight, sum = 0;
	int rc = ppo_ensure_bcap(p, n);

	if (rc)
		return rc;
	k = p->keys; /* pairs: hash, row */

	obs_keys(b, k);
	for (size_t i = 0, j; i < n; i = j) {
		j = run_end(k, i, n);
		nmax = LG_MAX(nmax, j - i);
	}
	for (size_t i = 0, j; i < n; i = j) {
		j = run_end(k, i, n);
		double w = LG_MIN(R, (double)nmax / (double)(j - i));
		for (size_t t = i; t < j; t++)
			p->pw[k[2 * t + 1]] = (float)w;
		sum += w * (double)(j - i);
	}
	for (size_t r = 0; r < n; r++)
		p->pw[r] = (float)(p->pw[r] * (double)n / sum);
	return 0;
}

/* KL(t || exp(lp)) over the legal actions. */
static double kl_to(const float *t, const float *lp, const uint8_t *mask,
		    size_t A)
{
	double kl = 0;

	for (size_t a = 0; a < A; a++)
		if (mask[a] && t[a] > 0)
			kl += t[a] * (log(t[a]) - lp[a]);
	return kl;
}

/* One observation's MMD target from its rows k[2 i + 1], i in [i0, i1)
 * (ppo_opts in learner.h): the estimate q of each action's value, then
 * the step from the net's log-probabilities lp into out. */
static void mmd_target(const ppo *p, const struct lg_rows *b,
		       const uint64_t *k, size_t i0, size_t i1,
		       const float *lp, const float *ml, float *out)
{
	size_t A = p->net->s.actions, r0 = (size_t)k[2 * i0 + 1];
	const uint8_t *mask = b->mask + r0 * A;
	double q[NN_MAX_ACTIONS], z[NN_MAX_ACTIONS], V = 0;
	double n = (double)(i1 - i0), eta = p->o.mmd_eta, C = p->o.mmd_clip;
	double beta = ml ? p->o.magnet_coef : 0, zmax = -HUGE_VAL, sum = 0;

	for (size_t a = 0; a < A; a++)
		q[a] = 0;
	for (size_t i = i0; i < i1; i++)
		V += b->value[k[2 * i + 1]];
	V /= n;
	for (size_t i = i0; i < i1; i++) {
		size_t r = (size_t)k[2 * i + 1];
		/* 1 / mu, at most 1e6 so no estimate is infinite */
		double w = LG_MIN(exp(-(double)b->logp[r]), 1e6);
		q[b->action[r]] += (p->ret[r] - V) * w;
	}
	for (size_t a = 0; a < A; a++) {
		if (!mask[a])
			continue;
		q[a] = V + q[a] / n;
		if (C > 0)
			q[a] = LG_MAX(-C, LG_MIN(C, q[a]));
		z[a] = (lp[a] + eta * (q[a] + (ml ? beta * ml[a] : 0))) /
		       (1 + (p->o.mmd_alpha + beta) * eta);
		zmax = LG_MAX(zmax, z[a]);
	}
	for (size_t a = 0; a < A; a++) {
		out[a] = mask[a] ? (float)exp(z[a] - zmax) : 0;
		sum += out[a];
	}
	for (size_t a = 0; a < A; a++)
		out[a] = (float)(out[a] / sum);
}

int ppo_mmd_targets(ppo *p, const struct lg_rows *b)
{
	size_t n = b->n, A = p->net->s.actions;
	uint64_t *k;
	float t[NN_MAX_ACTIONS];
	int rc = ppo_ensure_bcap(p, n);

	if (rc)
		return rc;
	k = p->keys;
	rc = ppo_net_logp(p, p->net, b, p->tgt);
	if (rc)
		return rc;
	obs_keys(b, k);
	p->mmd_step = 0;
	for (size_t i = 0, j; i < n; i = j) {
		size_t r0 = (size_t)k[2 * i + 1];
		j = run_end(k, i, n);
		mmd_target(p, b, k, i, j, p->tgt + r0 * A,
			   p->magnet ? p->mlogp + r0 * A : NULL, t);
		p->mmd_step += (double)(j - i) *
			       kl_to(t, p->tgt + r0 * A, b->mask + r0 * A, A);
		for (size_t u = i; u < j; u++)
			memcpy(p->tgt + k[2 * u + 1] * A, t, A * sizeof *t);
	}
	p->mmd_step /= (double)n;
	return 0;
}

int ppo_mmd_miss(ppo *p, const struct lg_rows *b, double *out)
{
	size_t A = p->net->s.actions;
	double s = 0;
	int rc = ppo_net_logp(p, p->net, b, p->lpnew);

	if (rc)
		return rc;
	for (size_t r = 0; r < b->n; r++)
		s += kl_to(p->tgt + r * A, p->lpnew + r * A, b->mask + r * A,
			   A);
	*out = s / (double)b->n;
	return 0;
}
