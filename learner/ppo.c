/*
 * learner/ppo.c: training. The PPO loss and its gradient (forward, per-row
 * masked-softmax loss, backward through cblas_sgemm), global gradient-norm
 * clipping and Adam over the flat parameter buffer, and the
 * epoch/minibatch loop. GAE(lambda) over one player's transitions and the
 * gather of each minibatch (rows, or sequence chunks) are ppo_batch.c's.
 *
 * Loss of a minibatch of M rows (means over rows):
 *   pg  = -min(r A, clip(r, 1-c, 1+c) A),  r = exp(logp_new - logp_old)
 *   vl  = 0.5 (v - R)^2, or with value_clip k:
 *         0.5 max((v - R)^2, (v_old + clip(v - v_old, -k, k) - R)^2)
 *   H   = -sum_a p_a log p_a over legal actions
 *   KL  = sum_a p_a (log p_a - log m_a), m the magnet (magnet_coef > 0)
 *   CE  = -sum_a pi_a log p_a, pi the search's visit shares (a batch with
 *         the visits column: AlphaZero's policy target)
 *   loss = pg_coef pg + vf_coef vl - ent_coef H + magnet_coef KL
 *          + policy_coef CE
 * With MMD targets (mmd_eta > 0) pi is magnetic mirror descent's step at
 * each observation of the batch (ppo_mmd_targets) and the pg and KL
 * terms are off: the magnet is in the target.
 * d/dz_k of the logits (legal k; illegal logits get 0):
 *   pg_coef g (1[k=a] - p_k) + ent_coef p_k (log p_k + H)
 *     + magnet_coef p_k (log p_k - log m_k - KL)
 *     + policy_coef (p_k sum_a pi_a - pi_k),  g = d pg / d logp_a
 *
 * A recurrent net (a GRU core, learner/gru.c) trains on sequences: the
 * batch is cut into chunks of seq_len consecutive rows (the last one
 * padded), each starting from the state the collector stored with its
 * first row, and restarting from a row's stored state wherever the
 * stream breaks (the row before ended its episode or cut the stream).
 * Minibatches are shuffled chunks; padding rows take no part in the loss.
 * Stored states are the behaviour net's, so they go stale as the epochs
 * move the net (R2D2's "stored state", without burn-in).
 *
 * Threads: with opts.threads = T > 1 a minibatch is split into T row
 * shards (whole sequences for a recurrent net), each run forward and
 * backward on its own thread with single-threaded sgemm into its own
 * gradient buffer, and the buffers are summed in a fixed order
 * (deterministic for a given T). For the small matrices of RL nets this
 * scales far better than threading inside each sgemm call. Adam is one
 * loop on the calling thread. The threads are ppo_pool.c's.
 */
#include "learner/ppo_internal.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double current_ent(const ppo *p);

static void sums_add(struct sums *a, const struct sums *b)
{
	a->pg += b->pg;
	a->vl += b->vl;
	a->ent += b->ent;
	a->kl += b->kl;
	a->clipped += b->clipped;
	a->mkl += b->mkl;
	a->pol += b->pol;
}

static void shard_free_ws(struct shard *sh)
{
	free(sh->ws); /* the arrays it holds (shard_ensure) with it */
	sh->ws = NULL;
	sh->cap = 0;
	sh->cs_len = 0;
}

/* Shard sh's workspace for n rows of head width H (struct shard's hw). */
static int shard_ensure(const nn *net, struct shard *sh, size_t n, size_t H)
{
	size_t A = net->s.actions;

	/* the conv scratch also follows the layers' methods (conv2d.wino,
	 * which a test may switch after ppo_new) */
	if (n <= sh->cap && H <= sh->hw &&
	    nn_conv_scratch(net, n) <= sh->cs_len)
		return 0;
	n = LG_MAX(n, sh->cap);
	H = LG_MAX(H, sh->hw);
	shard_free_ws(sh);
	/* one block (lg_block_parts): the layers' activations, then the
	 * rest, each on a cache line */
	struct lg_part parts[NN_MAX_NET_LAYERS + 10];
	size_t k = 0, G = net->gl >= 0 ? net->s.gru : 0;
	for (int l = 0; l + 1 < net->nlayers; l++)
		parts[k++] = (struct lg_part){
			offsetof(struct shard, acts) + (size_t)l * sizeof(float *),
			n * net->dims[l + 1], sizeof(float) };
#define PART(member, count) \
	parts[k++] = (struct lg_part)LG_PART(struct shard, member, count)
	PART(head, n * H);
	PART(dhead, n * H);
	PART(d0, n * net->wmax);
	PART(d1, n * net->wmax);
	PART(dskip, n * net->wmax);
	PART(cs, nn_conv_scratch(net, n) + 1);
	PART(lp, A);
	PART(pr, A);
	/* T x B = n rows: one step of n rows needs the most */
	PART(gcache, G ? gru_cache(G, 1, n) : 0);
	PART(gwork, G ? gru_work(G, 1, n) : 0);
#undef PART
	sh->ws = lg_block_parts(sh, parts, k);
	if (!sh->ws)
		return LG_ENOMEM;
	sh->cs_len = nn_conv_scratch(net, n);
	sh->cap = n;
	sh->hw = H;
	return 0;
}

static void free_gather(ppo *p)
{
	free(p->gather); /* the mb_ arrays it holds (ppo_ensure_gcap) */
	p->gather = NULL;
	p->gcap = 0;
}

/* Rows a sequence has: seq_len for a recurrent net, else 1. */
static size_t seq_rows(const ppo *p)
{
	return p->net->gl >= 0 ? (size_t)p->o.seq_len : 1;
}

/* Shards used for a minibatch of n rows (whole sequences each). */
static int shards_for(const ppo *p, size_t n)
{
	size_t k = n / PPO_MIN_SHARD_ROWS, seqs = n / seq_rows(p);

	k = LG_MIN(k, seqs);
	if (k < 1)
		k = 1;
	return (int)LG_MIN((size_t)p->nshards, k);
}

/* ppo_internal.h */
int ppo_ensure_gcap(ppo *p, size_t n)
{
	const nn *net = p->net;
	size_t A = net->s.actions, T = seq_rows(p);
	size_t seqs = (n + T - 1) / T, H = net->s.gru;
	int k = shards_for(p, n), rc, lists = nn_gathered(net);
	/* a gathered head: no mask, no visits (ppo_new, ppo_prepare) */
	size_t dense = lists ? 0 : A;

	for (int i = 0; i < k; i++) {
		size_t per = (seqs + (size_t)k - 1) / (size_t)k * T;
		rc = shard_ensure(net, &p->sh[i], per,
				  lists ? p->lmax + 1 : A + 1);
		if (rc)
			return rc;
	}
	if ((rc = ppo_list_alloc(p, LG_MAX(n, p->gcap))))
		return rc;
	if (n <= p->gcap)
		return 0;
	free_gather(p);
	/* one block (lg_block_parts), each array on a cache line */
#define PART(member, count) LG_PART(struct ppo, member, count)
	const struct lg_part parts[] = {
		PART(mb_obs, n * net->s.obs), PART(mb_logp, n),
		PART(mb_value, n),	      PART(mb_adv, n),
		PART(mb_ret, n),	      PART(mb_mask, n * dense),
		PART(mb_action, n),	      PART(mb_visits, n * dense),
		PART(mb_loff, lists ? n + 1 : 0),
		PART(mb_pw, n),		      PART(mb_mlogp, p->magnet ? n * A : 0),
		PART(mb_state, n * H),	      PART(mb_start, H ? n : 0),
		PART(mb_pad, H ? n : 0),
	};
#undef PART
	p->gather = lg_block_parts(p, parts, LG_ARRAY_LEN(parts));
	if (!p->gather)
		return LG_ENOMEM;
	p->gcap = n;
	return 0;
}

/* ppo_internal.h */
int ppo_ensure_bcap(ppo *p, size_t n)
{
	size_t A = p->net->s.actions;
	int sw = p->o.state_weight > 0, mmd = p->o.mmd_eta > 0;
	void *ws;

	if (n <= p->bcap)
		return 0;
	/* one block (lg_block_parts) of what the options use; a batch
	 * fills it after this call, so a larger one need not keep it */
	const struct lg_part parts[] = {
		LG_PART(struct ppo, adv, n),
		LG_PART(struct ppo, ret, n),
		LG_PART(struct ppo, idx, n),
		LG_PART(struct ppo, pw, sw ? n : 0),
		LG_PART(struct ppo, keys, sw || mmd ? 2 * n : 0),
		LG_PART(struct ppo, tgt, mmd ? n * A : 0),
		LG_PART(struct ppo, lpnew, mmd ? n * A : 0),
		LG_PART(struct ppo, mlogp, p->magnet ? n * A : 0),
		LG_PART(struct ppo, boff, nn_gathered(p->net) ? n + 1 : 0),
	};
	ws = lg_block_parts(p, parts, LG_ARRAY_LEN(parts));
	if (!ws)
		return LG_ENOMEM;
	free(p->batch_ws);
	p->batch_ws = ws;
	p->bcap = n;
	return 0;
}

int ppo_new(ppo **out, nn *net, const struct nn_shape *shape,
	    const struct ppo_opts *o, uint64_t seed, char *err, size_t errlen)
{
	ppo *p;
	int rc;

	if (!out || !o || (!net && !shape)) {
		lg_errf(err, errlen, "ppo_new: missing argument");
		return LG_EINVAL;
	}
	*out = NULL;
	rc = ppo_opts_check(o, err, errlen);
	if (rc)
		return rc;
	if (o->mmd_eta > 0 && (net ? nn_shape_of(net) : shape)->gru) {
		lg_errf(err, errlen, "mmd_eta needs a feed-forward net (the "
			"targets group rows by observation)");
		return LG_EINVAL;
	}
	if (!net) {
		rc = nn_shape_check(shape, err, errlen);
		if (rc)
			return rc;
	}
	if ((net ? nn_shape_of(net) : shape)->actions > NN_DENSE_ACTIONS &&
	    (o->magnet_coef > 0 || o->mmd_eta > 0 || o->state_weight > 0)) {
		lg_errf(err, errlen, "magnet_coef, mmd_eta and state_weight "
			"need a net of at most %d actions (theirs read every "
			"action of a row; this one gathers the legal ones)",
			NN_DENSE_ACTIONS);
		return LG_EINVAL;
	}
	p = calloc(1, sizeof *p);
	if (!p)
		return LG_ENOMEM;
	p->o = *o;
	p->progress = -1;
	lg_rng_seed2(&p->rng, seed, 0x7070);
	if (net) {
		p->net = net;
	} else {
		rc = nn_new(&p->net, shape, seed);
		if (rc)
			goto fail;
	}
	p->nshards = LG_MIN(LG_MAX(o->threads, 1), PPO_MAX_SHARDS);
	/* the gradient, the moments and the other shards' gradients: one
	 * zeroed block (lg_block_parts) */
	size_t np = p->net->nparams, k = 0;
	struct lg_part parts[3 + PPO_MAX_SHARDS] = {
		LG_PART(struct ppo, g, np),
		LG_PART(struct ppo, m, np),
		LG_PART(struct ppo, v, np),
	};
	for (k = 3; k < (size_t)p->nshards + 2; k++)
		parts[k] = (struct lg_part){
			offsetof(struct ppo, sh) + (k - 2) * sizeof(struct shard) +
				offsetof(struct shard, g),
			np, sizeof(float) };
	p->params_ws = lg_block_parts(p, parts, k);
	if (!p->params_ws) {
		rc = LG_ENOMEM;
		goto fail;
	}
	p->sh[0].g = p->g;
	if (o->magnet_coef > 0) {
		rc = nn_clone(&p->magnet, p->net);
		if (rc)
			goto fail;
	}
	if (o->magnet_coef > 0 || o->mmd_eta > 0) {
		rc = nn_ws_new(&p->mws, p->net, PPO_MAGNET_CHUNK);
		if (rc)
			goto fail;
	}
	rc = ppo_pool_start(p);
	if (rc)
		goto fail;
	rc = ppo_ensure_gcap(p, (size_t)o->minibatch);
	if (rc)
		goto fail;
	/* threads work on shards; each sgemm call stays on one thread */
	if (o->threads)
		nn_set_threads(1);
	*out = p;
	return 0;
fail:
	if (!net)
		nn_free(p->net);
	p->net = NULL;
	ppo_free(p);
	lg_errf(err, errlen, "%s", lg_strerror(rc));
	return rc;
}

void ppo_free(ppo *p)
{
	if (!p)
		return;
	ppo_pool_stop(p);
	for (int i = 0; i < PPO_MAX_SHARDS; i++) {
		shard_free_ws(&p->sh[i]);
		ppo_list_free(&p->sh[i]);
	}
	free_gather(p);
	free(p->mb_legal);
	free(p->tids);
	free(p->ptids);
	free(p->tmark);
	free(p->params_ws);
	free(p->batch_ws);
	nn_ws_free(p->mws);
	nn_free(p->magnet);
	nn_free(p->net);
	free(p);
}

nn *ppo_net(ppo *p)
{
	return p->net;
}

const float *ppo_grad(const ppo *p, size_t *count)
{
	if (count)
		*count = p->net->nparams;
	return p->g;
}

/* ---- loss and gradient ------------------------------------------------ */

/* A row's value loss (with value_clip vclip > 0: clipped around the
 * behaviour's vo) into s->vl, and its derivative by the value v. */
static float value_grad(float v, float R, float vo, float vclip,
			struct sums *s)
{
	float dv = v - R;

	if (vclip > 0) {
		float d = v - vo;
		float vc = vo + (d < -vclip ? -vclip : d > vclip ? vclip : d);
		float l1 = (v - R) * (v - R), l2 = (vc - R) * (vc - R);
		if (l1 >= l2) {
			s->vl += 0.5 * l1;
		} else {
			s->vl += 0.5 * l2;
			dv = fabsf(d) < vclip ? vc - R : 0;
		}
	} else {
		s->vl += 0.5 * (double)dv * dv;
	}
	return dv;
}

/* Per-row loss terms and d loss / d head into sh->dhead; invn is 1 over
 * the whole minibatch's rows. A gathered head's row is its legal list:
 * A its length, every entry legal (mask NULL), the value at hw - 1. */
static void head_grad(const ppo *p, struct shard *sh)
{
	const struct ppo_minibatch *mb = &sh->mb;
	struct sums *s = &sh->s;
	const nn *net = p->net;
	size_t A = net->s.actions, H = sh->hw, n = mb->n, V = A;
	int lists = nn_gathered(net);
	const struct ppo_opts *o = &p->o;
	float invn = sh->invn;
	float c = (float)o->clip, vclip = (float)o->value_clip;
	float vf = (float)o->vf_coef, ec = (float)current_ent(p);
	float mc = (float)o->magnet_coef;
	float pc = o->mmd_eta > 0 ? 0 : (float)o->pg_coef;
	float yc = (float)o->policy_coef;

	for (size_t i = 0; i < n; i++) {
		const float *z = sh->head + i * H;
		const uint8_t *mask = lists ? NULL : mb->mask + i * A;
		float *dz = sh->dhead + i * H;
		size_t a = (size_t)mb->action[i];
		float adv = mb->adv[i], ratio, rc, s1, s2, glogp, ent = 0;
		float lr, pn = mb->pw ? invn * mb->pw[i] : invn;

		if (mb->pad && mb->pad[i]) {
			memset(dz, 0, H * sizeof *dz);
			continue;
		}
		if (lists) {
			size_t at = mb->loff[i];
			A = mb->loff[i + 1] - at;
			V = H - 1;
			/* checked: the action is on the list */
			ppo_list_check(mb->legal + at, A, net->s.actions,
				       mb->action[i], &a);
			nn_list_softmax(z, A, sh->lp, sh->pr);
		} else {
			nn_masked_softmax(z, mask, A, sh->lp, sh->pr);
		}
		lr = sh->lp[a] - mb->logp[i];
		ratio = expf(lr);
		rc = ratio < 1 - c ? 1 - c : ratio > 1 + c ? 1 + c : ratio;
		s1 = ratio * adv;
		s2 = rc * adv;
		glogp = s1 <= s2 ? -adv * ratio : 0;
		s->pg += -(s1 <= s2 ? s1 : s2);
		s->kl += (ratio - 1) - lr;
		s->clipped += fabsf(ratio - 1) > c;
		for (size_t k = 0; k < A; k++)
			if (!mask || mask[k])
				ent -= sh->pr[k] * sh->lp[k];
		s->ent += ent;
		for (size_t k = 0; k < A; k++) {
			if (mask && !mask[k]) {
				dz[k] = 0;
				continue;
			}
			dz[k] = pn * (pc * glogp * ((k == a) -
						   sh->pr[k]) +
				      ec * sh->pr[k] * (sh->lp[k] + ent));
		}
		if (mb->visits) {
			/* yc CE(pi, p); d/dz_k = p_k sum(pi) - pi_k */
			const float *pi = mb->visits + i * A;
			float ce = 0, sum = 0;

			for (size_t k = 0; k < A; k++)
				if (mask[k]) {
					ce -= pi[k] * sh->lp[k];
					sum += pi[k];
				}
			s->pol += ce;
			for (size_t k = 0; k < A; k++)
				if (mask[k])
					dz[k] += pn * yc *
						 (sh->pr[k] * sum - pi[k]);
		}
		if (mb->mlogp) {
			/* mc KL(pi || magnet); d/dz_k = pi_k (d_k - KL) with
			 * d_k = log pi_k - log magnet_k */
			const float *ml = mb->mlogp + i * A;
			float kl = 0;

			for (size_t k = 0; k < A; k++)
				if (mask[k])
					kl += sh->pr[k] * (sh->lp[k] - ml[k]);
			s->mkl += kl;
			for (size_t k = 0; k < A; k++)
				if (mask[k])
					dz[k] += pn * mc * sh->pr[k] *
						 (sh->lp[k] - ml[k] - kl);
		}
		dz[V] = invn * vf * value_grad(z[V], mb->ret[i], mb->value[i],
					       vclip, s);
	}
}

/* ppo_internal.h */
void ppo_shard_forward(const nn *net, struct shard *sh)
{
	const struct ppo_minibatch *mb = &sh->mb;
	int L = net->nlayers, run = L - nn_gathered(net);
	size_t n = mb->n, T = mb->seq_len ? mb->seq_len : 1;
	const float *x = mb->obs, *prev = NULL;

	/* a gathered head's rows per row's list, after the loop */
	for (int l = 0; l < run; l++) {
		float *y = l == L - 1 ? sh->head : sh->acts[l];
		if (l == net->gl)
			gru_forward(net->dims[l], net->s.gru,
				    nn_w(net, net->p, l), x, mb->state,
				    mb->start, T, n / T, y, sh->gcache);
		else
			nn_layer_apply(net, l, x, prev, n, y, sh->cs);
		prev = x;
		x = y;
	}
	if (run < L)
		ppo_list_forward(sh->p, sh, x);
}

/* One shard: forward its rows, head gradient, backward into sh->g (zeroed
 * first, then accumulated by sgemm with beta 1). A residual block's skip
 * sends the gradient at its second convolution's output straight to the
 * block's input too (dskip, added once the backward reaches it). The
 * recurrent core's backward runs through time over the shard's
 * sequences. */
void ppo_shard_run(struct shard *sh)
{
	const ppo *p = sh->p;
	const nn *net = p->net;
	const struct ppo_minibatch *mb = &sh->mb;
	int L = net->nlayers;
	size_t n = mb->n, T = mb->seq_len ? mb->seq_len : 1;
	float *dy, *dx;

	ppo_shard_forward(net, sh);
	head_grad(p, sh);
	/* a gathered head's rows: ppo_list_backward writes the minibatch's
	 * whole, and the others are 0 (ppo_list_touch) */
	memset(sh->g, 0, (nn_gathered(net) ? net->t[2 * (L - 1)].offset
					   : net->nparams) * sizeof *sh->g);
	dy = sh->dhead;
	dx = sh->d0;
	for (int l = L - 1; l >= 0; l--) {
		size_t in = net->dims[l], out = net->dims[l + 1];
		const float *xin = l == 0 ? mb->obs : sh->acts[l - 1];
		float *gW = nn_w(net, sh->g, l), *gb = nn_b(net, sh->g, l);
		const float *W = nn_w(net, net->p, l);

		if (net->skip[l])
			memcpy(sh->dskip, dy, n * out * sizeof *dy);
		if (l == L - 1 && nn_gathered(net)) {
			ppo_list_backward(p, sh, xin, l ? dx : NULL);
			if (l == 0)
				break;
			goto activation;
		}
		if (l == net->gl) {
			gru_backward((uint32_t)in, net->s.gru, W, xin,
				     mb->start, T, n / T, dy, gW,
				     l ? dx : NULL, NULL, sh->gcache,
				     sh->gwork);
			if (l == 0)
				break;
			goto activation;
		}
		if (l < net->nconv) {
			/* dW, db += ; dx (none for the first layer) */
			conv2d_backward(&net->cv[l], W, xin, dy, n, gW, gb,
					l ? dx : NULL, sh->cs);
			if (l == 0)
				break;
			goto activation;
		}
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)in,
			    (int)out, (int)n, 1.0f, xin, (int)in, dy, (int)out,
			    1.0f, gW, (int)out);
		for (size_t i = 0; i < n; i++) {
			const float *row = dy + i * out;
			for (size_t j = 0; j < out; j++)
				gb[j] += row[j];
		}
		if (l == 0)
			break;
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n,
			    (int)in, (int)out, 1.0f, dy, (int)out, W, (int)out,
			    0.0f, dx, (int)in);
activation:
		/* the block's skip reaches its input (layer l's) here */
		if (l + 1 < L && net->skip[l + 1])
			for (size_t i = 0; i < n * in; i++)
				dx[i] += sh->dskip[i];
		/* through the activation of layer l-1's output */
		{
			const float *a = sh->acts[l - 1];
			size_t len = n * in;
			if (net->act[l - 1] == NN_RELU) {
				for (size_t i = 0; i < len; i++)
					dx[i] = a[i] > 0 ? dx[i] : 0;
			} else if (net->act[l - 1] == NN_TANH) {
				for (size_t i = 0; i < len; i++)
					dx[i] *= 1 - a[i] * a[i];
			}
		}
		dy = dx;
		dx = dx == sh->d0 ? sh->d1 : sh->d0;
	}
}

/* Rows of mb that count (not padding). */
static size_t real_rows(const struct ppo_minibatch *mb)
{
	size_t n = mb->n;

	if (mb->pad)
		for (size_t i = 0; i < mb->n; i++)
			n -= mb->pad[i] != 0;
	return n;
}

/* Rows [r0, r0 + m) of mb as a minibatch of their own. */
static struct ppo_minibatch mb_slice(const ppo *p,
				     const struct ppo_minibatch *mb,
				     size_t r0, size_t m)
{
	size_t O = p->net->s.obs, A = p->net->s.actions, H = p->net->s.gru;
	struct ppo_minibatch s = {
		m,		  mb->obs + r0 * O,
		mb->mask ? mb->mask + r0 * A : NULL,
		mb->action + r0,  mb->logp + r0,    mb->value + r0,
		mb->adv + r0,	  mb->ret + r0,
		mb->mlogp ? mb->mlogp + r0 * A : NULL,
		mb->seq_len,	  NULL,		    NULL,
		NULL,
		mb->visits ? mb->visits + r0 * A : NULL,
		mb->pw ? mb->pw + r0 : NULL,
		mb->legal,
		mb->loff ? mb->loff + r0 : NULL,
	};

	if (H) {
		s.state = mb->state + r0 * H;
		s.start = mb->start ? mb->start + r0 : NULL;
		s.pad = mb->pad ? mb->pad + r0 : NULL;
	}
	return s;
}

/* The minibatch's loss sums into s and its gradient into p->g. The
 * workspace must hold mb->n rows (ppo_ensure_gcap). A recurrent net's
 * shards take whole sequences. */
static void loss_grad(ppo *p, const struct ppo_minibatch *mb, struct sums *s)
{
	size_t n = mb->n, T = seq_rows(p), seqs = n / T;
	size_t real = real_rows(mb);
	int k = shards_for(p, n);
	size_t lo, hi;

	if (nn_gathered(p->net))
		ppo_list_touch(p, mb);
	for (int i = 0; i < k; i++) {
		struct shard *sh = &p->sh[i];
		size_t r0 = seqs * (size_t)i / (size_t)k * T;
		size_t r1 = seqs * (size_t)(i + 1) / (size_t)k * T;
		sh->p = p;
		sh->invn = 1.0f / (float)(real ? real : 1);
		memset(&sh->s, 0, sizeof sh->s);
		sh->mb = mb_slice(p, mb, r0, r1 - r0);
		sh->mb.seq_len = T;
	}
	ppo_pool_run(p, k);
	for (int i = 0; i < k; i++) {
		const struct sums *t = &p->sh[i].s;
		if (i > 0) {
			const float *gi = p->sh[i].g;
			for (size_t r = 0; ppo_list_range(p, r, &lo, &hi); r++)
				for (size_t j = lo; j < hi; j++)
					p->g[j] += gi[j];
		}
		sums_add(s, t);
	}
}

static void fill_stats(const ppo *p, const struct sums *s, size_t n,
		       struct ppo_stats *st)
{
	double pg = s->pg / n, vl = s->vl / n, ent = s->ent / n;

	st->pg_loss = pg;
	st->value_loss = vl;
	st->entropy = ent;
	st->magnet_kl = s->mkl / n;
	st->policy_loss = s->pol / n;
	/* as head_grad weighs them: MMD targets replace the surrogate */
	st->loss = (p->o.mmd_eta > 0 ? 0 : p->o.pg_coef) * pg +
		   p->o.vf_coef * vl - current_ent(p) * ent +
		   p->o.magnet_coef * st->magnet_kl +
		   p->o.policy_coef * st->policy_loss;
	st->approx_kl = s->kl / n;
	st->clip_frac = s->clipped / n;
}

int ppo_loss_grad(ppo *p, const struct ppo_minibatch *mb,
		  struct ppo_stats *st)
{
	struct sums s = { 0 };
	int rc;

	if (!p || !mb || !mb->n || !mb->obs || !mb->action ||
	    !mb->logp || !mb->value || !mb->adv || !mb->ret ||
	    (nn_gathered(p->net) ? !mb->legal || !mb->loff || mb->visits ||
					   mb->mlogp || mb->pw
				 : !mb->mask))
		return LG_EINVAL;
	if (p->net->gl >= 0 &&
	    (!mb->state || mb->seq_len != p->o.seq_len ||
	     mb->n % mb->seq_len))
		return LG_EINVAL;
	if (mb->n > p->o.batch_max)
		return LG_ERANGE;
	if (nn_gathered(p->net)) {
		rc = ppo_check_lists(p->net, mb->n, mb->legal, mb->loff,
				     mb->action);
		/* the longest list sets the shards' head width */
		for (size_t i = 0; !rc && i < mb->n; i++)
			p->lmax = LG_MAX(p->lmax, mb->loff[i + 1] - mb->loff[i]);
	} else {
		rc = ppo_check_rows(p->net, mb->n, mb->mask, mb->action);
	}
	if (rc)
		return rc;
	rc = ppo_ensure_gcap(p, mb->n);
	if (rc)
		return rc;
	loss_grad(p, mb, &s);
	if (st) {
		size_t real = real_rows(mb);
		memset(st, 0, sizeof *st);
		fill_stats(p, &s, real ? real : 1, st);
		st->minibatches = 1;
	}
	return 0;
}

/* The linear schedule's progress in [0, 1], -1 without a schedule or a
 * clock. */
static double schedule_f(const ppo *p)
{
	double f;

	if (p->o.lr_schedule != PPO_LR_LINEAR)
		return -1;
	if (p->progress >= 0)
		f = p->progress;
	else if (p->o.total_updates)
		f = (double)p->updates / (double)p->o.total_updates;
	else
		return -1;
	return f > 1 ? 1 : f;
}

static double current_lr(const ppo *p)
{
	double f = schedule_f(p);

	return f < 0 ? p->o.lr : p->o.lr * (1 - (1 - p->o.lr_final_frac) * f);
}

/* The entropy bonus, annealed with the learning rate to ent_coef *
 * ent_final_frac (an entropy bonus holds the policy at a quantal-response
 * equilibrium of its temperature, short of the Nash equilibrium). */
static double current_ent(const ppo *p)
{
	double f = schedule_f(p);

	return f < 0 ? p->o.ent_coef
		     : p->o.ent_coef * (1 - (1 - p->o.ent_final_frac) * f);
}

void ppo_set_progress(ppo *p, double f)
{
	p->progress = f > 1 ? 1 : f > 0 ? f : 0; /* NaN: 0 */
}

/* Clip the global gradient norm, then one Adam step (PyTorch's form:
 * p -= lr/bc1 * m / (sqrt(v)/sqrt(bc2) + eps)). Returns the norm. */
static double adam_step(ppo *p, double lr)
{
	float *w = p->net->p, *g = p->g, *m = p->m, *v = p->v;
	double norm2 = 0, norm, bc1, bc2;
	float b1 = (float)p->o.adam_beta1, b2 = (float)p->o.adam_beta2;
	float scale = 1, step, isb2, eps = (float)p->o.adam_eps;
	size_t lo, hi;

	/* all parameters, or a gathered head's minibatch rows and what is
	 * below the head (ppo_list.c: the others' gradient is 0) */
	for (size_t r = 0; ppo_list_range(p, r, &lo, &hi); r++)
		for (size_t i = lo; i < hi; i++)
			norm2 += (double)g[i] * g[i];
	norm = sqrt(norm2);
	if (p->o.max_grad_norm > 0 && norm > p->o.max_grad_norm)
		scale = (float)(p->o.max_grad_norm / (norm + 1e-6));
	p->adam_t++;
	bc1 = 1 - pow(p->o.adam_beta1, (double)p->adam_t);
	bc2 = 1 - pow(p->o.adam_beta2, (double)p->adam_t);
	step = (float)(lr / bc1);
	isb2 = (float)(1 / sqrt(bc2));
	for (size_t r = 0; ppo_list_range(p, r, &lo, &hi); r++)
		for (size_t i = lo; i < hi; i++) {
			float gi = g[i] * scale;
			m[i] = b1 * m[i] + (1 - b1) * gi;
			v[i] = b2 * v[i] + (1 - b2) * gi * gi;
			w[i] -= step * m[i] / (sqrtf(v[i]) * isb2 + eps);
		}
	return norm;
}

int ppo_update(ppo *p, const struct lg_rows *b, struct ppo_stats *st)
{
	struct ppo_stats local, acc;
	struct sums tot = { 0 };
	size_t units, per, rows = 0;
	double lr, gn = 0;
	int rc;

	if (!p)
		return LG_EINVAL;
	rc = ppo_prepare(p, b, &acc);
	if (rc)
		return rc;
	units = ppo_units_of(p, b->n, &per);
	lr = current_lr(p);
	for (size_t i = 0; i < units; i++)
		p->idx[i] = (uint32_t)i;
	for (uint64_t e = 0; e < p->o.epochs; e++) {
		for (size_t i = units - 1; i > 0; i--) {
			size_t j = (size_t)lg_rng_below(&p->rng, i + 1);
			uint32_t t = p->idx[i];
			p->idx[i] = p->idx[j];
			p->idx[j] = t;
		}
		for (size_t s0 = 0; s0 < units; s0 += per) {
			struct ppo_minibatch mb;
			struct sums s = { 0 };
			rows += ppo_gather_unit(p, b, s0, units, per, &mb);
			loss_grad(p, &mb, &s);
			gn += adam_step(p, lr);
			sums_add(&tot, &s);
			acc.minibatches++;
		}
	}
	p->updates++;
	if (p->magnet && p->updates % p->o.magnet_every == 0) {
		size_t np;
		float *dst = nn_params(p->magnet, &np);

		memcpy(dst, nn_params_const(p->net, NULL), np * sizeof *dst);
	}
	if (st) {
		local = acc;
		fill_stats(p, &tot, rows, &local);
		local.grad_norm = gn / (double)acc.minibatches;
		local.lr = lr;
		local.updates = p->updates;
		if (p->o.mmd_eta > 0) {
			local.mmd_step = p->mmd_step;
			rc = ppo_mmd_miss(p, b, &local.mmd_miss);
			if (rc)
				return rc;
		}
		*st = local;
	}
	return 0;
}

int ppo_evaluate(ppo *p, const struct lg_rows *b, struct ppo_stats *st)
{
	struct ppo_stats acc;
	struct sums tot = { 0 };
	size_t units, per;
	int rc;

	if (!p || !st)
		return LG_EINVAL;
	rc = ppo_prepare(p, b, &acc);
	if (rc)
		return rc;
	units = ppo_units_of(p, b->n, &per);
	for (size_t i = 0; i < units; i++)
		p->idx[i] = (uint32_t)i;
	for (size_t s0 = 0; s0 < units; s0 += per) {
		struct ppo_minibatch mb;
		ppo_gather_unit(p, b, s0, units, per, &mb);
		/* per-row sums are independent of the 1/m gradient scale */
		loss_grad(p, &mb, &tot);
		acc.minibatches++;
	}
	fill_stats(p, &tot, b->n, &acc);
	if (p->o.mmd_eta > 0)
		acc.mmd_step = acc.mmd_miss = p->mmd_step; /* no step taken */
	acc.lr = current_lr(p);
	acc.updates = p->updates;
	*st = acc;
	return 0;
}
