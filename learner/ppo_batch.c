/*
 * learner/ppo_batch.c: a batch made ready for the PPO update. Its checks,
 * GAE(lambda) over one player's transitions with the advantages
 * normalised as configured, the magnet's log-probabilities, and the
 * gather of each minibatch into the trainer's buffers: rows for a
 * feed-forward net, chunks of seq_len consecutive rows for a recurrent
 * one (the last padded, a row restarting from its stored state where the
 * stream breaks). The update itself (loss, gradient, Adam, the
 * epoch/minibatch loop) is ppo.c's.
 */
#include "learner/ppo_internal.h"

#include <math.h>
#include <string.h>

/* ppo_internal.h */
int ppo_check_rows(const nn *net, size_t n, const uint8_t *mask,
		      const int32_t *action)
{
	size_t A = net->s.actions;

	for (size_t i = 0; i < n; i++) {
		if (action[i] < 0 || (size_t)action[i] >= A ||
		    !mask[i * A + (size_t)action[i]])
			return LG_EINVAL;
	}
	return 0;
}

/* ppo_internal.h */
int ppo_check_lists(const nn *net, size_t n, const uint16_t *legal,
		    const size_t *loff, const int32_t *action)
{
	for (size_t i = 0; i < n; i++)
		if (loff[i + 1] < loff[i] ||
		    ppo_list_check(legal + loff[i], loff[i + 1] - loff[i],
				   net->s.actions, action[i], NULL))
			return LG_EINVAL;
	return 0;
}

/* A batch of lists: their counts add up to legal_n, and each is a legal
 * list holding its row's action; p->boff[0 .. n] their offsets and
 * p->lmax the longest (p->boff must hold n + 1: ppo_ensure_bcap). */
static int check_lists(ppo *p, const struct lg_rows *b)
{
	size_t o = 0;

	if (!b->nlegal || !b->legal || b->has_visits)
		return LG_EINVAL;
	p->lmax = 0;
	for (size_t i = 0; i < b->n; i++) {
		size_t L = b->nlegal[i];
		if (L > b->legal_n - o ||
		    ppo_list_check(b->legal + o, L, b->num_actions,
				   b->action[i], NULL))
			return LG_EINVAL;
		p->boff[i] = o;
		o += L;
		p->lmax = LG_MAX(p->lmax, L);
	}
	p->boff[b->n] = o;
	return o == b->legal_n ? 0 : LG_EINVAL;
}

static int all_finite(const float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

/* ---- GAE -------------------------------------------------------------- */

void ppo_gae(const struct lg_rows *b, double gamma, double lambda,
	     float *adv, float *ret)
{
	double next_adv = 0;

	for (size_t k = b->n; k-- > 0;) {
		double v = b->value[k], delta;
		int last = k + 1 == b->n;
		if (b->done[k] == LG_ROW_END) {
			delta = b->reward[k] - v;
			next_adv = delta;
		} else if (b->done[k] == LG_ROW_CUT || last) {
			/* cut: bootstrap with the state's own estimate */
			delta = b->reward[k] + gamma * v - v;
			next_adv = delta;
		} else {
			delta = b->reward[k] + gamma * b->value[k + 1] - v;
			next_adv = delta + gamma * lambda * next_adv;
		}
		adv[k] = (float)next_adv;
		ret[k] = (float)(next_adv + v);
	}
}

static int check_batch(const ppo *p, const struct lg_rows *b)
{
	const nn *net = p->net;

	if (!b || !b->n || !b->obs || !b->action || !b->logp ||
	    !b->value || !b->reward || !b->done ||
	    (!nn_gathered(net) && !b->mask))
		return LG_EINVAL;
	if (b->n > p->o.batch_max)
		return LG_ERANGE;
	if (b->obs_len != net->s.obs || b->num_actions != net->s.actions ||
	    b->state_len != net->s.gru || (b->state_len && !b->state))
		return LG_EINVAL;
	if (!nn_gathered(net) && ppo_check_rows(net, b->n, b->mask, b->action))
		return LG_EINVAL;
	if (!all_finite(b->obs, b->n * net->s.obs) ||
	    !all_finite(b->logp, b->n) || !all_finite(b->value, b->n) ||
	    !all_finite(b->reward, b->n) ||
	    (b->state_len && !all_finite(b->state, b->n * b->state_len)) ||
	    (b->has_visits &&
	     (!b->visits || !all_finite(b->visits, b->n * net->s.actions))))
		return LG_EINVAL;
	for (size_t i = 0; i < b->n; i++)
		if (b->done[i] > LG_ROW_CUT)
			return LG_EINVAL;
	return 0;
}

/* Row r of b into row i of the minibatch buffers (with the magnet's
 * log-probabilities if mlogp). */
static void copy_row(ppo *p, const struct lg_rows *b, size_t r, size_t i,
		     int mlogp)
{
	size_t O = p->net->s.obs, A = p->net->s.actions, H = b->state_len;

	memcpy(p->mb_obs + i * O, b->obs + r * O, O * sizeof(float));
	if (nn_gathered(p->net)) {
		/* rows are copied in order: row i's list follows row i-1's */
		size_t at = i ? p->mb_loff[i] : 0, L = b->nlegal[r];
		memcpy(p->mb_legal + at, b->legal + p->boff[r],
		       L * sizeof *p->mb_legal);
		p->mb_loff[0] = 0;
		p->mb_loff[i + 1] = at + L;
	} else {
		memcpy(p->mb_mask + i * A, b->mask + r * A, A);
	}
	p->mb_action[i] = b->action[r];
	p->mb_logp[i] = b->logp[r];
	p->mb_value[i] = b->value[r];
	p->mb_adv[i] = p->adv[r];
	p->mb_ret[i] = p->ret[r];
	if (p->o.state_weight > 0)
		p->mb_pw[i] = p->pw[r];
	if (p->o.mmd_eta > 0)
		memcpy(p->mb_visits + i * A, p->tgt + r * A,
		       A * sizeof(float));
	if (mlogp)
		memcpy(p->mb_mlogp + i * A, p->mlogp + r * A,
		       A * sizeof(float));
	if (H)
		memcpy(p->mb_state + i * H, b->state + r * H,
		       H * sizeof(float));
	if (b->has_visits)
		memcpy(p->mb_visits + i * A, b->visits + r * A,
		       A * sizeof(float));
}

static void point_mb(ppo *p, size_t m, struct ppo_minibatch *mb)
{
	*mb = (struct ppo_minibatch){
		.n = m,
		.obs = p->mb_obs,
		.mask = p->mb_mask,
		.action = p->mb_action,
		.logp = p->mb_logp,
		.value = p->mb_value,
		.adv = p->mb_adv,
		.ret = p->mb_ret,
		/* MMD targets hold the magnet instead of a KL term */
		.mlogp = p->magnet && !(p->o.mmd_eta > 0) ? p->mb_mlogp
							  : NULL,
		.visits = p->visits || p->o.mmd_eta > 0 ? p->mb_visits : NULL,
		.pw = p->o.state_weight > 0 ? p->mb_pw : NULL,
		.legal = nn_gathered(p->net) ? p->mb_legal : NULL,
		.loff = nn_gathered(p->net) ? p->mb_loff : NULL,
	};
}

/* Copy rows idx[0..m) of b into the minibatch buffers. */
static void gather(ppo *p, const struct lg_rows *b, const uint32_t *idx,
		   size_t m, struct ppo_minibatch *mb)
{
	for (size_t i = 0; i < m; i++)
		copy_row(p, b, idx[i], i, p->magnet != NULL);
	point_mb(p, m, mb);
}

/* A recurrent net's minibatch: chunks idx[0..m) of b (chunk c is rows
 * [c T, c T + T) of b, the last one shorter), each a sequence of T rows,
 * short ones padded with copies of their last row. A row starts from its
 * stored state when the row before it ended an episode or cut the
 * stream. Returns the rows that count. */
static size_t gather_seq(ppo *p, const struct lg_rows *b,
			 const uint32_t *idx, size_t m, int mlogp,
			 struct ppo_minibatch *mb)
{
	size_t T = (size_t)p->o.seq_len, real = 0;

	for (size_t j = 0; j < m; j++) {
		size_t r0 = (size_t)idx[j] * T, len = LG_MIN(T, b->n - r0);
		for (size_t t = 0; t < T; t++) {
			size_t i = j * T + t, r = r0 + LG_MIN(t, len - 1);
			copy_row(p, b, r, i, mlogp);
			p->mb_start[i] = t > 0 && t < len &&
					 b->done[r - 1] != LG_ROW_NEXT;
			p->mb_pad[i] = t >= len;
		}
		real += len;
	}
	point_mb(p, m * T, mb);
	if (!mlogp)
		mb->mlogp = NULL;
	mb->seq_len = T;
	mb->state = p->mb_state;
	mb->start = p->mb_start;
	mb->pad = p->mb_pad;
	return real;
}

/* Chunks of seq_len rows b's n rows make. */
static size_t chunks_of(const ppo *p, size_t n)
{
	return (n + (size_t)p->o.seq_len - 1) / (size_t)p->o.seq_len;
}

/* Chunks in a minibatch: minibatch rows' worth, at least one. */
static size_t chunks_per_mb(const ppo *p)
{
	return LG_MAX((size_t)1, (size_t)(p->o.minibatch / p->o.seq_len));
}

/* A recurrent magnet's log-probabilities: its forward over b's chunks in
 * order, in shard 0's workspace, from the stored states. */
static int magnet_logp_seq(ppo *p, const struct lg_rows *b)
{
	struct shard *sh = &p->sh[0];
	size_t A = p->net->s.actions, T = (size_t)p->o.seq_len;
	size_t C = chunks_of(p, b->n), per = LG_MAX(sh->cap / T, (size_t)1);

	for (size_t c = 0; c < C; c++)
		p->idx[c] = (uint32_t)c;
	for (size_t c0 = 0; c0 < C; c0 += per) {
		size_t m = LG_MIN(per, C - c0);
		gather_seq(p, b, p->idx + c0, m, 0, &sh->mb);
		ppo_shard_forward(p->magnet, sh);
		for (size_t i = 0; i < m * T; i++) {
			size_t r = (c0 + i / T) * T + i % T;
			float *out = p->mlogp + r * A;
			if (p->mb_pad[i])
				continue;
			nn_masked_softmax(sh->head + i * (A + 1),
					  b->mask + r * A, A, out, sh->pr);
			for (size_t a = 0; a < A; a++)
				if (!b->mask[r * A + a])
					out[a] = -69.0f;
		}
	}
	return 0;
}

/* ppo_internal.h */
int ppo_net_logp(ppo *p, const nn *net, const struct lg_rows *b,
		 float *out)
{
	size_t O = p->net->s.obs, A = p->net->s.actions;

	for (size_t r0 = 0; r0 < b->n; r0 += PPO_MAGNET_CHUNK) {
		size_t m = LG_MIN((size_t)PPO_MAGNET_CHUNK, b->n - r0);
		float *o = out + r0 * A;
		int rc = nn_probs(net, p->mws, b->obs + r0 * O,
				  b->mask + r0 * A, m, o, NULL);
		if (rc)
			return rc;
		for (size_t i = 0; i < m * A; i++)
			o[i] = o[i] > 1e-30f ? logf(o[i]) : -69.0f;
	}
	return 0;
}

/* The magnet's log-probabilities of every legal action of b into
 * p->mlogp (illegal ones -69 at most; never read). */
static int magnet_logp(ppo *p, const struct lg_rows *b)
{
	if (p->net->gl >= 0)
		return magnet_logp_seq(p, b);
	return ppo_net_logp(p, p->magnet, b, p->mlogp);
}

/* Rows of the largest minibatch a batch of n rows makes. */
static size_t mb_rows(const ppo *p, size_t n)
{
	if (p->net->gl < 0)
		return LG_MIN(n, (size_t)p->o.minibatch);
	return LG_MIN(chunks_of(p, n), chunks_per_mb(p)) *
	       (size_t)p->o.seq_len;
}

/* GAE into p->adv/p->ret, normalised as configured; the magnet's
 * log-probabilities; the state weights; the MMD targets. */
int ppo_prepare(ppo *p, const struct lg_rows *b, struct ppo_stats *st)
{
	double mean = 0, var = 0, rmean = 0;
	size_t n = b->n;
	int rc;

	rc = check_batch(p, b);
	if (rc)
		return rc;
	if (p->o.mmd_eta > 0 && b->has_visits)
		return LG_EINVAL; /* two policy targets */
	rc = ppo_ensure_bcap(p, n);
	if (rc)
		return rc;
	if (nn_gathered(p->net) && (rc = check_lists(p, b)))
		return rc;
	rc = ppo_ensure_gcap(p, mb_rows(p, n));
	if (rc)
		return rc;
	p->visits = b->has_visits;
	ppo_gae(b, p->o.gamma, p->o.gae_lambda, p->adv, p->ret);
	for (size_t i = 0; i < n; i++) {
		mean += p->adv[i];
		rmean += p->ret[i];
	}
	mean /= n;
	rmean /= n;
	for (size_t i = 0; i < n; i++)
		var += (p->adv[i] - mean) * (p->adv[i] - mean);
	var = n > 1 ? var / (n - 1) : 0;
	if (p->o.norm_adv) {
		double inv = 1.0 / (sqrt(var) + 1e-8);
		for (size_t i = 0; i < n; i++)
			p->adv[i] = (float)((p->adv[i] - mean) * inv);
	}
	if (p->o.state_weight > 0 && (rc = ppo_state_weights(p, b)))
		return rc;
	if (p->magnet && (rc = magnet_logp(p, b)))
		return rc;
	if (p->o.mmd_eta > 0 && (rc = ppo_mmd_targets(p, b)))
		return rc;
	memset(st, 0, sizeof *st);
	st->adv_mean = mean;
	st->ret_mean = rmean;
	return 0;
}

/* Minibatch `at` (of `per` units from idx) of an epoch: rows for a
 * feed-forward net, chunks for a recurrent one. Returns the rows that
 * count. */
size_t ppo_gather_unit(ppo *p, const struct lg_rows *b, size_t at,
			  size_t units, size_t per, struct ppo_minibatch *mb)
{
	size_t m = LG_MIN(per, units - at);

	if (p->net->gl >= 0)
		return gather_seq(p, b, p->idx + at, m, p->magnet != NULL, mb);
	gather(p, b, p->idx + at, m, mb);
	return m;
}

/* Units a batch of n rows is shuffled in (rows or chunks) and how many
 * make a minibatch. */
size_t ppo_units_of(const ppo *p, size_t n, size_t *per)
{
	if (p->net->gl >= 0) {
		*per = chunks_per_mb(p);
		return chunks_of(p, n);
	}
	*per = LG_MIN(n, (size_t)p->o.minibatch);
	return n;
}
