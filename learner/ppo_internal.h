/*
 * learner/ppo_internal.h: what ppo.c shares with its worker threads
 * (ppo_pool.c), its batch preparation (ppo_batch.c) and its batch grouping
 * (ppo_obs.c): the trainer, its shards and their calls.
 */
#ifndef LG_PPO_INTERNAL_H
#define LG_PPO_INTERNAL_H

#include "learner/learner_internal.h"

#include <pthread.h>
#include <stdatomic.h>

#define PPO_MAX_SHARDS 16
/* Fewer rows per shard than this are not worth a thread. */
#define PPO_MIN_SHARD_ROWS 32
/* Polls before a waiting thread blocks on the condition variable: about
 * the serial gap between two minibatches (Adam, gather). Creating a
 * thread per minibatch cost 0.2-0.35 ms on this VM, and a futex wake-up
 * is of that order too. */
#define PPO_SPIN 10000
/* Rows per nn_probs call of the magnet's log-probabilities (ppo_net_logp;
 * its workspace p->mws is this big). */
#define PPO_MAGNET_CHUNK 4096

/* Accumulated per-row figures of one minibatch. */
struct sums {
	double pg, vl, ent, kl, clipped, mkl, pol;
};

/* One thread's share of a minibatch: workspace for `cap` rows and its own
 * gradient buffer (shard 0 uses the ppo's). */
struct shard {
	/* post-activation of each layer before the head */
	float *acts[NN_MAX_NET_LAYERS];
	/* cap x hw: the logits and the value (dense: hw = actions + 1, the
	 * value last; a gathered head: hw = the batch's longest legal list
	 * + 1, a row's list logits first, its value at hw - 1) */
	float *head, *dhead;
	size_t hw;
	float *d0, *d1;             /* cap x wmax back-propagated deltas */
	float *dskip;               /* cap x wmax: a residual block's */
	float *cs;                  /* convolutions', cs_len floats */
	size_t cs_len;
	float *lp, *pr;             /* one row: log-probs, probs */
	float *gcache, *gwork;      /* the recurrent core's */
	float *g;                   /* in the ppo's params_ws */
	/* a gathered head (ppo_list.c): the shard's (row, list index)
	 * entries grouped by action, action a's at ent[at[a] .. at[a] +
	 * cnt[a]); ent_cap entries, at and cnt actions + 1 */
	uint32_t *ent_row, *ent_k, *at, *cnt;
	size_t ent_cap;
	size_t cap;
	void *ws;                   /* the block the arrays above live in
				       (all but g) while cap > 0 */
	/* the job while it runs */
	const struct ppo *p;
	struct ppo_minibatch mb;
	float invn;
	struct sums s;
};

struct ppo {
	nn *net;
	struct ppo_opts o;
	lg_rng rng;
	float *g, *m, *v;     /* gradient, Adam moments (params' layout) */
	void *params_ws;      /* the block g, m, v and the shards' g are in */
	uint64_t adam_t, updates;
	int nshards;
	struct shard sh[PPO_MAX_SHARDS];
	/* worker threads for shards 1..nworkers, parked between jobs */
	struct {
		pthread_t th[PPO_MAX_SHARDS];
		int nworkers, init;
		int active;             /* shards in the current job */
		atomic_uint gen;        /* bumped to start a job (or quit) */
		atomic_int pending;     /* workers not done with the job */
		atomic_int quit;
		pthread_mutex_t mu;
		pthread_cond_t cv;
	} pool;
	/* gathered minibatch, `gcap` rows, in the gather block */
	size_t gcap;
	void *gather;
	float *mb_obs, *mb_logp, *mb_value, *mb_adv, *mb_ret, *mb_state;
	float *mb_visits; /* gcap x actions */
	float *mb_pw;     /* gcap: state weights (state_weight > 0) */
	int visits;       /* the batch being trained has the visits column */
	uint8_t *mb_mask, *mb_start, *mb_pad;
	int32_t *mb_action;
	/* a gathered head (nn_gathered): the minibatch's legal lists, row i's
	 * at mb_legal[mb_loff[i] .. mb_loff[i + 1]) (gcap + 1 offsets, in
	 * the gather block; mb_legal_cap ids, its own); lmax the batch's
	 * longest list, boff[r] where row r's list starts in the batch */
	size_t *mb_loff;
	uint16_t *mb_legal;
	size_t mb_legal_cap, lmax;
	size_t *boff;
	/* the head's rows the minibatch reads (its legal actions' and the
	 * value's): tids[0 .. ntouch), tmark[a] == tgen for each; ptids the
	 * previous minibatch's, the only head rows of the shards' gradients
	 * that are not 0 */
	uint32_t *tids, *ptids, *tmark, tgen;
	size_t ntouch, nptouch;
	/* batch workspace, `bcap` rows, in the batch_ws block: adv, ret,
	 * idx, pw, keys, tgt, lpnew and mlogp below */
	size_t bcap;
	void *batch_ws;
	float *adv, *ret;
	uint32_t *idx;
	float *pw;       /* state weights (state_weight > 0) */
	uint64_t *keys;  /* their workspace: observation hash, row */
	/* the magnet (magnet_coef > 0): a lagged copy of the net, its
	 * log-probabilities over the batch (bcap x actions) and over the
	 * gathered minibatch (gcap x actions) */
	nn *magnet;
	nn_ws *mws;
	float *mlogp, *mb_mlogp;
	/* MMD targets (mmd_eta > 0): each row's target policy, bcap x
	 * actions (the net's log-probabilities before they are made) */
	float *tgt;
	float *lpnew;    /* bcap x actions: the policy after an update */
	double mmd_step; /* mean KL(target || policy) at the targets */
	double progress; /* ppo_set_progress; < 0: not set */
};

/* ppo_obs.c: p->pw[0 .. b->n) from b's observations
 * (learner.state_weight > 0). LG_ENOMEM. */
int ppo_state_weights(ppo *p, const struct lg_rows *b);
/* ppo_obs.c: p->tgt[0 .. b->n x actions) from b, p->ret and (with a
 * magnet) p->mlogp, and p->mmd_step (learner.mmd_eta > 0; ppo_opts in
 * learner.h). LG_ENOMEM. */
int ppo_mmd_targets(ppo *p, const struct lg_rows *b);
/* ppo_obs.c: the mean over b's rows of KL(target || the net now) into
 * *out, after an update on b. */
int ppo_mmd_miss(ppo *p, const struct lg_rows *b, double *out);
/* ppo.c: the batch workspace for n rows (LG_ENOMEM), and (ppo_batch.c)
 * net's log-probabilities of every legal action of b's rows into out (b->n
 * x actions; illegal ones -69 at most, never read): a feed-forward net,
 * the trainer's or its magnet, in p->mws. */
int ppo_ensure_bcap(ppo *p, size_t n);
int ppo_net_logp(ppo *p, const nn *net, const struct lg_rows *b,
		 float *out);

/* One shard's forward, loss and backward into its gradient buffer
 * (ppo.c). */
void ppo_shard_run(struct shard *sh);
/* ppo.c: forward sh->mb through net (the trainer's, or its magnet of the
 * same shape) into sh->acts and sh->head. */
void ppo_shard_forward(const nn *net, struct shard *sh);
/* ppo.c: make the shards' workspace and the gathered minibatch hold a
 * minibatch of n rows. LG_ENOMEM. */
int ppo_ensure_gcap(ppo *p, size_t n);

/* ppo_batch.c: LG_EINVAL unless every row's action is in range and legal
 * by its mask, or for a gathered head by its list (mb-style offsets
 * loff[0 .. n], ids legal; mask unread). */
int ppo_check_rows(const nn *net, size_t n, const uint8_t *mask,
		   const int32_t *action);
int ppo_check_lists(const nn *net, size_t n, const uint16_t *legal,
		    const size_t *loff, const int32_t *action);
/* ppo_batch.c: check b (LG_EINVAL, LG_ERANGE past batch_max), make the
 * workspaces hold it, GAE into p->adv/p->ret normalised as configured,
 * the magnet's log-probabilities, the state weights and the MMD targets;
 * *st zeroed but for adv_mean and ret_mean. */
int ppo_prepare(ppo *p, const struct lg_rows *b, struct ppo_stats *st);
/* ppo_batch.c: the units b's n rows are shuffled in (rows, or chunks for
 * a recurrent net) and in *per how many make a minibatch. */
size_t ppo_units_of(const ppo *p, size_t n, size_t *per);
/* ppo_batch.c: gather minibatch `at` (of `per` units from p->idx, out of
 * `units`) into the minibatch buffers and point mb at them. Returns the
 * rows that count (not padding). */
size_t ppo_gather_unit(ppo *p, const struct lg_rows *b, size_t at,
		       size_t units, size_t per, struct ppo_minibatch *mb);

/* ppo_list.c: a gathered head (nn_gathered). ppo_list_forward: the
 * logits of each row's legal list and its value into sh->head (stride
 * sh->hw), from the head's input (the last layer before it, or the
 * observation), a head row read once for all the shard's rows that list
 * its action. ppo_list_backward: the head's gradient from sh->dhead into
 * the minibatch's rows of sh->g (p->tids: each written whole, 0 where
 * none of the shard's rows lists it), and dx (n x in) = d loss / d
 * input. ppo_list_touch: the minibatch's rows of the head (p->tids),
 * after the previous minibatch's rows not among them are zeroed in every
 * shard's gradient.
 * ppo_list_range: range i of the parameters a minibatch's gradient
 * reaches ([*lo, *hi)); 0 past the last. A dense net has one range, all
 * of them. */
void ppo_list_forward(const ppo *p, struct shard *sh, const float *x);
void ppo_list_backward(const ppo *p, struct shard *sh, const float *x,
		       float *dx);
void ppo_list_touch(ppo *p, const struct ppo_minibatch *mb);
int ppo_list_range(const ppo *p, size_t i, size_t *lo, size_t *hi);
/* ppo_list.c: 0 if ids[0 .. L) is a legal list of A actions (at least
 * one, strictly increasing, each < A) holding action (action < 0: not
 * looked for); its index in the list into *at when at is not NULL. */
int ppo_list_check(const uint16_t *ids, size_t L, size_t A, int32_t action,
		   size_t *at);
/* ppo_list.c: the gathered minibatch's list memory for rows x lmax ids,
 * and p->tids etc. for the net. LG_ENOMEM. */
int ppo_list_alloc(ppo *p, size_t rows);
/* ppo_list.c: free shard sh's grouping arrays. */
void ppo_list_free(struct shard *sh);

/* ppo_pool.c: start nshards - 1 parked workers (on failure run with
 * those that started), stop and join them, and run shards 0..k-1 (0 on
 * the caller's thread) and wait for all. */
int ppo_pool_start(ppo *p);
void ppo_pool_stop(ppo *p);
void ppo_pool_run(ppo *p, int k);

#endif
