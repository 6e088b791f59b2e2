/*
 * learner/ppo_list.c: the PPO update of a gathered head (nn_gathered: a
 * net of more than NN_DENSE_ACTIONS actions, learner.h). A row's legal
 * list picks the head's rows it reads (Whead is a row per action there),
 * so with L legal actions the head's forward, its loss and its backward
 * cost in x (L + 1) for the row, not in x (actions + 1); the gradient
 * reaches only those rows, and Adam moves only the parameters below the
 * head and the rows the minibatch read (a lazy Adam: a row no row of the
 * minibatch could play keeps its moments and its value). The loss terms
 * are head_grad's (ppo.c) over the list.
 */
#include "learner/ppo_internal.h"

#include <stdlib.h>
#include <string.h>

/* ppo_internal.h */
int ppo_list_check(const uint16_t *ids, size_t L, size_t A, int32_t action,
		   size_t *at)
{
	int found = action < 0;

	if (!L || L > A)
		return LG_EINVAL;
	for (size_t k = 0; k < L; k++) {
		if (ids[k] >= A || (k && ids[k] <= ids[k - 1]))
			return LG_EINVAL;
		if (action >= 0 && ids[k] == (uint32_t)action) {
			found = 1;
			if (at)
				*at = k;
		}
	}
	return found ? 0 : LG_EINVAL;
}

/* ppo_internal.h */
int ppo_list_alloc(ppo *p, size_t rows)
{
	size_t A = p->net->s.actions, want = rows * LG_MAX(p->lmax, 1);
	void *q;

	if (!nn_gathered(p->net))
		return 0;
	if (!p->tids) {
		p->tids = calloc(A + 1, sizeof *p->tids);
		p->ptids = calloc(A + 1, sizeof *p->ptids);
		p->tmark = calloc(A + 1, sizeof *p->tmark);
		if (!p->tids || !p->ptids || !p->tmark)
			return LG_ENOMEM;
	}
	for (int i = 0; i < p->nshards; i++) {
		struct shard *sh = &p->sh[i];
		/* a row's list and its value */
		size_t ents = rows * (LG_MAX(p->lmax, 1) + 1);
		if (!sh->at) {
			sh->at = calloc(A + 1, sizeof *sh->at);
			sh->cnt = calloc(A + 1, sizeof *sh->cnt);
			if (!sh->at || !sh->cnt)
				return LG_ENOMEM;
		}
		if (ents > sh->ent_cap) {
			if (!(q = realloc(sh->ent_row, ents * sizeof(uint32_t))))
				return LG_ENOMEM;
			sh->ent_row = q;
			if (!(q = realloc(sh->ent_k, ents * sizeof(uint32_t))))
				return LG_ENOMEM;
			sh->ent_k = q;
			sh->ent_cap = ents;
		}
	}
	if (want <= p->mb_legal_cap)
		return 0;
	q = realloc(p->mb_legal, want * sizeof *p->mb_legal);
	if (!q)
		return LG_ENOMEM;
	p->mb_legal = q;
	p->mb_legal_cap = want;
	return 0;
}

/* ppo_internal.h */
void ppo_list_free(struct shard *sh)
{
	free(sh->at);
	free(sh->cnt);
	free(sh->ent_row);
	free(sh->ent_k);
	sh->at = sh->cnt = sh->ent_row = sh->ent_k = NULL;
	sh->ent_cap = 0;
}

/* The shard's (row, list index) entries grouped by action, in the order
 * of p->tids (the value's, every row's at index hw - 1, under action
 * A). */
static void group(const ppo *p, struct shard *sh)
{
	const struct ppo_minibatch *mb = &sh->mb;
	size_t A = p->net->s.actions, S = sh->hw, pos = 0;

	for (size_t t = 0; t < p->ntouch; t++)
		sh->cnt[p->tids[t]] = 0;
	for (size_t i = 0; i < mb->n; i++)
		for (size_t j = mb->loff[i]; j < mb->loff[i + 1]; j++)
			sh->cnt[mb->legal[j]]++;
	sh->cnt[A] = (uint32_t)mb->n;
	for (size_t t = 0; t < p->ntouch; t++) {
		uint32_t a = p->tids[t];
		sh->at[a] = (uint32_t)pos;
		pos += sh->cnt[a];
		sh->cnt[a] = 0; /* counts again as entries land */
	}
	for (size_t i = 0; i < mb->n; i++) {
		size_t o = mb->loff[i], L = mb->loff[i + 1] - o;
		for (size_t k = 0; k <= L; k++) {
			uint32_t a = k < L ? mb->legal[o + k] : (uint32_t)A;
			size_t e = sh->at[a] + sh->cnt[a]++;
			sh->ent_row[e] = (uint32_t)i;
			sh->ent_k[e] = (uint32_t)(k < L ? k : S - 1);
		}
	}
}

/* ppo_internal.h */
void ppo_list_forward(const ppo *p, struct shard *sh, const float *x)
{
	const nn *net = p->net;
	int l = net->nlayers - 1;
	size_t in = net->dims[l], S = sh->hw;
	const float *W = nn_w(net, net->p, l), *b = nn_b(net, net->p, l);

	group(p, sh);
	for (size_t t = 0; t < p->ntouch; t++) {
		uint32_t a = p->tids[t];
		const float *w = W + (size_t)a * in;
		for (size_t e = sh->at[a]; e < sh->at[a] + sh->cnt[a]; e++) {
			size_t i = sh->ent_row[e];
			sh->head[i * S + sh->ent_k[e]] =
				b[a] + nn_dot(w, x + i * in, in);
		}
	}
}

/* ppo_internal.h */
void ppo_list_backward(const ppo *p, struct shard *sh, const float *x,
		       float *dx)
{
	const nn *net = p->net;
	int l = net->nlayers - 1;
	size_t in = net->dims[l], S = sh->hw;
	const float *W = nn_w(net, net->p, l);
	float *gW = nn_w(net, sh->g, l), *gb = nn_b(net, sh->g, l);

	if (dx)
		memset(dx, 0, sh->mb.n * in * sizeof *dx);
	for (size_t t = 0; t < p->ntouch; t++) {
		uint32_t a = p->tids[t];
		const float *w = W + (size_t)a * in;
		float *gw = gW + (size_t)a * in, sb = 0;
		/* written whole, each minibatch row once */
		memset(gw, 0, in * sizeof *gw);
		for (size_t e = sh->at[a]; e < sh->at[a] + sh->cnt[a]; e++) {
			size_t i = sh->ent_row[e];
			float g = sh->dhead[i * S + sh->ent_k[e]];
			const float *xi = x + i * in;
			if (g == 0)
				continue;
			sb += g;
			/* short rows: vectorised loops, not BLAS calls */
			for (size_t j = 0; j < in; j++)
				gw[j] += g * xi[j];
			if (dx) {
				float *d = dx + i * in;
				for (size_t j = 0; j < in; j++)
					d[j] += g * w[j];
			}
		}
		gb[a] = sb;
	}
}

/* Zero head row a (its weights and bias) of gradient buffer g. */
static void zero_row(const nn *net, float *g, size_t a)
{
	int l = net->nlayers - 1;
	size_t in = net->dims[l];

	memset(nn_w(net, g, l) + a * in, 0, in * sizeof *g);
	nn_b(net, g, l)[a] = 0;
}

/* ppo_internal.h */
void ppo_list_touch(ppo *p, const struct ppo_minibatch *mb)
{
	const nn *net = p->net;
	size_t A = net->s.actions, end = mb->loff[mb->n];

	if (++p->tgen == 0) { /* wrapped: no stale mark may match */
		memset(p->tmark, 0, (A + 1) * sizeof *p->tmark);
		p->tgen = 1;
	}
	p->ntouch = 0;
	p->tids[p->ntouch++] = (uint32_t)A; /* the value's row */
	p->tmark[A] = p->tgen;
	for (size_t j = mb->loff[0]; j < end; j++) {
		uint16_t a = mb->legal[j];
		if (p->tmark[a] != p->tgen) {
			p->tmark[a] = p->tgen;
			p->tids[p->ntouch++] = a;
		}
	}
	/* the previous rows the backward will not write */
	for (size_t j = 0; j < p->nptouch; j++)
		if (p->tmark[p->ptids[j]] != p->tgen)
			for (int s = 0; s < p->nshards; s++)
				zero_row(net, p->sh[s].g, p->ptids[j]);
	/* the next call zeroes these */
	memcpy(p->ptids, p->tids, p->ntouch * sizeof *p->ptids);
	p->nptouch = p->ntouch;
}

/* ppo_internal.h */
int ppo_list_range(const ppo *p, size_t i, size_t *lo, size_t *hi)
{
	const nn *net = p->net;
	int l = net->nlayers - 1;
	size_t in = net->dims[l], w = net->t[2 * l].offset;
	size_t b = net->t[2 * l + 1].offset;

	if (!nn_gathered(net)) {
		*lo = 0;
		*hi = net->nparams;
		return i == 0;
	}
	if (i == 0) {
		*lo = 0;
		*hi = w;
		return 1;
	}
	if (--i < p->ntouch) {
		*lo = w + p->tids[i] * in;
		*hi = *lo + in;
		return 1;
	}
	if ((i -= p->ntouch) < p->ntouch) {
		*lo = b + p->tids[i];
		*hi = *lo + 1;
		return 1;
	}
	return 0;
}
