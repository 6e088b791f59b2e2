/*
 * learner: the policy-value network and its PPO trainer, on OpenBLAS.
 *
 * Shape:
 *   - nn: an MLP with a shared torso (nhidden layers, ReLU or tanh) and one
 *     fused linear head of actions+1 outputs: the first `actions` are the
 *     policy logits (masked softmax over legal actions), the last is the
 *     value. Every layer is a row-major W[in x out] and b[out]; all tensors
 *     live in one contiguous float buffer described by a size table
 *     (nn_tensor), so gradients and Adam moments are the same layout and the
 *     optimizer is one loop. Forward and backward are batched through
 *     cblas_sgemm.
 *   - nn_ws + nn_act: forward-only inference for collectors, no allocation
 *     per call.
 *   - nn_save/nn_load: the parameter file format (docs/learner.md):
 *       offset size
 *        0      4   magic "LGNN"
 *        4      4   format version (1)
 *        8      4   obs            12  4  actions
 *       16      4   activation (0 relu, 1 tanh)
 *       20      4   nhidden
 *       24     32   hidden[8] (unused entries 0)
 *       56      8   parameter count (floats)
 *       64      4   CRC-32C of the body
 *       68      4   CRC-32C of bytes 0..67
 *       72     ...  body: parameter count x float32
 *     every integer and float little-endian. A net with convolutions is
 *     written as version 2: bytes 0..67 as above (version 2), then
 *       68      4   nconv (1..NN_MAX_CONV)
 *       72     12   planes[3] (channels, rows, columns of obs)
 *       84     64   conv[4] x (channels, kernel, stride, padding), unused 0
 *      148      4   CRC-32C of bytes 0..147
 *      152    ...   body
 *     A net with residual blocks, more than 4 conv entries or a layer's
 *     own activation is version 3: bytes 0..83 as version 2, then
 *       84    192   conv[8] x (channels, kernel, stride, padding,
 *                   residual, act), unused 0
 *      276     32   hidden_act[8] (enum nn_layer_act), unused 0
 *      308      4   0
 *      312      4   CRC-32C of bytes 0..311
 *      316    ...   body
 *     A net with a recurrent core (gru > 0) is version 4: version 3's
 *     header with the core's width at 308.
 *     So MLP files stay version 1 (older builds read them), a plain conv
 *     torso version 2, and older builds refuse a newer file by its
 *     version. Loading checks the header CRC,
 *     the caps below and that the count matches the shape and the length
 *     before it allocates, then the body CRC.
 *   - ppo: PPO with GAE(lambda), clipped surrogate, optional value clip,
 *     entropy bonus, advantage normalisation, epochs of shuffled
 *     minibatches, Adam with global gradient-norm clipping and a linear
 *     learning-rate schedule.
 *
 * Only this module includes <cblas.h>. It does not read the league config:
 * struct ppo_opts mirrors the learner.* keys and struct nn_shape the
 * model.* keys; the daemon and CLI translate.
 *
 * Thread safety: an nn is read-only during nn_act, so several threads may
 * share one net, each with its own nn_ws and rng. A ppo is single-threaded
 * (BLAS parallelises inside). BLAS thread count is process-wide
 * (nn_set_threads); ppo_new with opts.threads >= 1 sets it to 1 and
 * parallelises over row shards itself.
 */
#ifndef LG_LEARNER_H
#define LG_LEARNER_H

#include <stddef.h>
#include <stdint.h>

#include "envs/env.h"
#include "util/rows.h"
#include "util/util.h"

#define NN_MAX_LAYERS 8
/* Caps on shapes that come from outside (config, files). */
#define NN_MAX_OBS (1u << 20)
#define NN_MAX_ACTIONS 65536u /* ENV_GAME_ACTIONS_MAX */
/* A net of more actions has a gathered head (nn_gathered): its Whead is
 * (actions + 1) x in, a row per action and the value's last, and only
 * the rows of a row's legal actions are read (inference) or trained
 * (ppo_update): the head costs in x (legal + 1), not in x (actions + 1).
 * Its training rows carry legal lists (util/rows.h). A net of at most
 * this many keeps the dense in x (actions + 1) head. */
#define NN_DENSE_ACTIONS LG_ROWS_DENSE_MAX
#define NN_MAX_WIDTH 65536u
#define NN_MAX_PARAMS (1ull << 28)
#define NN_FILE_MAGIC "LGNN"
#define NN_FILE_VERSION 1u   /* an MLP's file */
#define NN_FILE_HEADER 72u
#define NN_FILE_VERSION2 2u  /* a net with convolutions */
#define NN_FILE_HEADER2 152u
#define NN_FILE_VERSION3 3u  /* residual blocks or per-layer activations */
#define NN_FILE_HEADER3 316u
#define NN_FILE_VERSION4 4u  /* a recurrent core: version 3's header */

enum nn_act { NN_RELU, NN_TANH, NN_NONE };

/* A layer's own activation: the net's (act), or one named. */
enum nn_layer_act {
	NN_LACT_NET = 0,
	NN_LACT_RELU,
	NN_LACT_TANH,
	NN_LACT_NONE,
};

#define NN_MAX_CONV 8      /* entries of conv[]: layers or residual blocks */
#define NN_FILE_V2_CONV 4  /* what a version 2 file holds */

/* One entry of the convolution torso (learner/conv.c): a convolution
 * layer, or with residual 1 a residual block of two convolutions of
 * `channels` (the block's input must have as many), kernel `kernel`
 * (odd), stride 1 and padding (kernel-1)/2, the second adding the
 * block's input before its activation: y = act(x + conv(act(conv(x)))). */
struct nn_conv {
	uint32_t channels, kernel, stride, pad;
	uint32_t residual; /* 0 or 1 */
	uint32_t act;      /* enum nn_layer_act */
};

/* The net: an optional convolution torso over the observation read as
 * planes[0] x planes[1] x planes[2] (channels x rows x columns, product
 * obs; all 0 without convolutions), then the hidden dense layers over its
 * output flattened, then the fused head. Each layer is followed by its
 * activation (conv[i].act, hidden_act[i]; NN_LACT_NET: the net's act).
 * Unused entries are 0 (shapes are compared with memcmp). */
struct nn_shape {
	uint32_t obs, actions, nhidden, hidden[NN_MAX_LAYERS];
	int act; /* enum nn_act: NN_RELU or NN_TANH */
	uint32_t nconv, planes[3];
	struct nn_conv conv[NN_MAX_CONV];
	uint32_t hidden_act[NN_MAX_LAYERS]; /* enum nn_layer_act */
	uint32_t gru; /* a recurrent core of this width after the dense
		       * layers, before the head (learner/gru.c); 0: none */
};

typedef struct nn nn;

/* One parameter tensor: floats [offset, offset + rows*cols) of the
 * parameter (and gradient, and moment) buffer. */
struct nn_tensor {
	char name[16]; /* "W0", "b0", ..., "Whead", "bhead" */
	size_t offset, rows, cols;
};

/* Check a shape against the caps (obs, actions >= 1, widths >= 1, total
 * parameters <= NN_MAX_PARAMS). LG_EINVAL / LG_ERANGE, detail in err. */
int nn_shape_check(const struct nn_shape *s, char *err, size_t errlen);

/* A new net of shape s, initialised deterministically from seed: weights
 * normal with std sqrt(2/in) (relu) or sqrt(1/in) (tanh), policy logits
 * scaled by 0.01, biases 0. Errors: LG_EINVAL / LG_ERANGE (shape),
 * LG_ENOMEM. Free with nn_free. */
int nn_new(nn **out, const struct nn_shape *s, uint64_t seed);
void nn_free(nn *n); /* NULL is fine */
/* A deep copy (frozen snapshots must never alias a live net). */
int nn_clone(nn **out, const nn *n);
const struct nn_shape *nn_shape_of(const nn *n);

/* The parameter buffer (owned by n) and its length in floats. Writing
 * through it changes the net. */
float *nn_params(nn *n, size_t *count);
const float *nn_params_const(const nn *n, size_t *count);
/* Number of tensors (2 per torso layer + 2 for the head) and tensor i. */
size_t nn_tensor_count(const nn *n);
int nn_tensor_info(const nn *n, size_t i, struct nn_tensor *t);

/* Process-wide BLAS thread count (1..256). */
void nn_set_threads(int threads);

/* ---- inference ---------------------------------------------------------- */

/* Floats of recurrent state a net carries per row from one step of an
 * episode to the next (its core's width); 0 for a feed-forward net. A
 * row's state starts at zeros when its episode does. */
size_t nn_state_len(const nn *n);

/* Caller-owned scratch for batches of up to max_batch rows (1..1<<20) of
 * n's shape; one per thread. Errors LG_EINVAL, LG_ENOMEM. */
typedef struct nn_ws nn_ws;
int nn_ws_new(nn_ws **out, const nn *n, size_t max_batch);
void nn_ws_free(nn_ws *w); /* NULL is fine */

/* obs[n x obs], mask[n x actions] (1 legal); out: sampled action, its
 * log-probability, value estimate per row. rng caller-owned. No
 * allocation. Errors: LG_EINVAL (n > ws capacity, ws of another shape, a
 * row without a legal action; outputs are then unspecified). */
int nn_act(const nn *net, nn_ws *ws, const float *obs, const uint8_t *mask,
	   size_t n, lg_rng *rng, int32_t *action, float *logp, float *value);

/* Deterministic variant: probs[n x actions] (0 on illegal actions) and
 * value[n] (value may be NULL). Same errors. */
int nn_probs(const nn *net, nn_ws *ws, const float *obs, const uint8_t *mask,
	     size_t n, float *probs, float *value);

/* The same for a recurrent net: state[n x nn_state_len] is each row's
 * state before the step and becomes the state after it. NULL: zeros (a
 * first step), nothing written back. A feed-forward net ignores it. */
int nn_act_state(const nn *net, nn_ws *ws, const float *obs,
		 const uint8_t *mask, size_t n, float *state, lg_rng *rng,
		 int32_t *action, float *logp, float *value);
int nn_probs_state(const nn *net, nn_ws *ws, const float *obs,
		   const uint8_t *mask, size_t n, float *state, float *probs,
		   float *value);
/* Greedy play: each row's most probable legal action (the first of
 * equals) with its log-probability, and the value; state as above. No
 * allocation. Same errors. */
int nn_greedy_state(const nn *net, nn_ws *ws, const float *obs,
		    const uint8_t *mask, size_t n, float *state,
		    int32_t *action, float *logp, float *value);

/* An env_policy (envs/env.h) view of a net for the exact evaluators, e.g.
 * NashConv of a saved network. ctx is caller-owned and must outlive the
 * policy; ws needs max_batch >= 1. A recurrent net is asked with the
 * player's observations from the episode's start (the policy's seq
 * callback), its state carried through them. The policy checks the
 * action count; the caller must make sure the net's obs length is the
 * game's (env_spec.obs_len), which the callback cannot see. */
struct nn_policy_ctx {
	const nn *net;
	nn_ws *ws;
};
struct env_policy nn_env_policy(struct nn_policy_ctx *ctx);

/* ---- parameter files ------------------------------------------------- */

/* Append the serialised net to out. LG_ENOMEM. */
int nn_save(const nn *n, lg_buf *out);
/* Parse a serialised net. Errors: LG_ECORRUPT (truncated, bad magic, CRC
 * mismatch, sizes that disagree, trailing bytes, a parameter that is NaN
 * or infinite), LG_EVERSION, LG_ERANGE (shape beyond the caps),
 * LG_ENOMEM; err says which. */
int nn_load(nn **out, const void *buf, size_t len, char *err, size_t errlen);
/* The validator of parameters from outside (the daemon's ParamsPut): 0
 * when buf is a net nn_load takes (whole, every value finite) of shape
 * want (NULL: any shape). nn_load's errors, or LG_EINVAL for a net of
 * another shape; err says which. Nothing is kept. */
int nn_check_blob(const void *buf, size_t len, const struct nn_shape *want,
		  char *err, size_t errlen);
/* The same through a file (lg_file_write_atomic: a temporary beside it,
 * synced, then renamed). LG_EIO for I/O errors, naming the path. Files larger than the largest legal net are
 * rejected before reading. */
int nn_save_file(const nn *n, const char *path, char *err, size_t errlen);
int nn_load_file(nn **out, const char *path, char *err, size_t errlen);

/* Measure this machine's single-precision GEMM rate: square sgemm of a few
 * sizes (512..2048) for about `seconds`, best GFLOP/s, with `threads`
 * BLAS threads (the previous count is restored). The reference for the
 * learner benchmark. LG_ENOMEM. */
int nn_sgemm_peak(double seconds, int threads, double *gflops);

/* ---- PPO -------------------------------------------------------------- */

enum ppo_lr_schedule { PPO_LR_CONSTANT, PPO_LR_LINEAR };

/* Caps ppo_new checks (the config's learner.* bounds come from them). */
#define PPO_EPOCHS_MAX 1000
#define PPO_MINIBATCH_MAX (1u << 24)
#define PPO_BATCH_MAX (1u << 26)
#define PPO_MAGNET_EVERY_MAX 1000000
#define PPO_THREADS_MAX 256
#define PPO_SEQ_MAX 4096

/* Mirrors the learner.* config keys. */
struct ppo_opts {
	double lr;
	int lr_schedule;      /* enum ppo_lr_schedule */
	double lr_final_frac; /* linear: final lr = lr * this */
	uint64_t total_updates; /* linear: updates to reach the final lr */
	double gamma, gae_lambda;
	double clip;          /* ratio clip */
	double value_clip;    /* 0: off */
	double vf_coef, ent_coef;
	double ent_final_frac; /* linear: final ent_coef = ent_coef * this */
	/* AlphaZero's terms. pg_coef weighs PPO's clipped surrogate (1:
	 * plain PPO; 0 drops it). A batch with a visits column (rows chosen
	 * by a search, util/rows.h) adds policy_coef times the cross-entropy
	 * of the policy to the visit shares, -sum_a pi_a log p_a over the
	 * legal actions; its value is regressed on the GAE returns as
	 * always (gamma 1, lambda 1: the game's outcome). */
	double pg_coef, policy_coef;
	double magnet_coef;   /* 0: off. Else the loss adds magnet_coef *
			       * KL(pi || magnet), the magnet a copy of the
			       * net refreshed every magnet_every updates
			       * (magnetic mirror descent's moving magnet) */
	uint64_t magnet_every;
	/* 0: off. R >= 1: each row's policy terms (surrogate, entropy,
	 * magnet, search target) are weighted min(R, n_max / n_row), n_row
	 * the rows of the batch with its observation and n_max the most any
	 * observation has, the weights then scaled to a mean of 1. A policy
	 * gradient moves each information state in proportion to how often
	 * the batch visits it; this lets the rarer ones move up to R times
	 * faster (docs/learner.md, "State weights"). Meant for games whose
	 * observation is the information state (kuhn, leduc). */
	double state_weight;
	/* 0: off. ETA > 0: magnetic mirror descent's step as the policy's
	 * target (docs/learner.md, "MMD targets"). Each observation o of the
	 * batch (its rows grouped by a hash of the bytes) gets
	 *   q(o, a) = V + (1 / n_o) sum_rows 1[a_r = a] (G_r - V) / mu_r,
	 * V the mean behaviour value of its rows, G_r the GAE return, mu_r
	 * the behaviour probability of the action taken (1 / mu_r at most
	 * 1e6), clipped to
	 * [-mmd_clip, mmd_clip] (0: no clip), and the target
	 *   pi'(a|o) ~ exp((log pi(a|o) + ETA (q(o, a) + beta log m(a|o)))
	 *                  / (1 + (mmd_alpha + beta) ETA)),
	 * pi the net at the update's start, m the magnet and beta
	 * magnet_coef (0 without one). The loss is then policy_coef times
	 * the cross-entropy to pi' (weighted by state_weight as the other
	 * policy terms) in place of the clipped surrogate and the magnet's
	 * KL term. Every visited information state steps by ETA however
	 * rarely it is visited, where a policy gradient's step follows its
	 * visits. Feed-forward nets without a search only. */
	double mmd_eta, mmd_alpha, mmd_clip;
	uint64_t epochs, minibatch;
	uint64_t batch_max;   /* largest batch accepted (cap, 1..1<<26) */
	double max_grad_norm; /* 0: off */
	double adam_beta1, adam_beta2, adam_eps;
	int norm_adv;         /* 1: normalise advantages per batch */
	uint64_t seq_len;     /* a recurrent net trains on the batch cut into
			       * sequences of this many rows (1..4096), each
			       * from the states stored in its rows */
	int threads;          /* 0: leave BLAS threading as it is. T >= 1:
			       * split each minibatch into up to T row shards
			       * (at most 16, at least 32 rows each) on T
			       * threads, with single-threaded sgemm (this
			       * sets the process-wide BLAS count to 1) */
};

/* The config defaults (lr 3e-4, gamma 0.99, lambda 0.95, clip 0.2, ...). */
void ppo_opts_default(struct ppo_opts *o);
/* LG_EINVAL with err naming the option for a value out of its range (the
 * caps above); ppo_new applies it. */
int ppo_opts_check(const struct ppo_opts *o, char *err, size_t errlen);

/* A batch is a block of transitions of one learning player
 * (util/rows.h: the layout the collector builds and the wire Segment
 * carries, so the learner trains on the rows it decoded): row t is a step
 * where that player acted; a recurrent net's batch has the state column
 * (state_len = nn_state_len), a feed-forward net's none; done[t]
 * LG_ROW_NEXT: the next row is its next step of the same episode,
 * LG_ROW_END: the episode ended after it (no bootstrap), LG_ROW_CUT: the
 * stream is cut here (bootstrap with value[t]). The last row is a cut unless it ends an episode. reward[t]
 * is what the player received from its action until its next one. The
 * block's obs_len and num_actions must be the net's. A block with the
 * visits column (has_visits) adds AlphaZero's policy term (ppo_opts). */

struct ppo_stats {
	double loss, pg_loss, value_loss, entropy;
	double approx_kl, clip_frac, grad_norm, lr;
	double magnet_kl; /* mean KL(pi || magnet); 0 without a magnet */
	double policy_loss; /* mean cross-entropy to the search's visit
			     * shares; 0 for a batch without them */
	double adv_mean, ret_mean;
	/* mmd_eta > 0: the mean over rows of KL(target || policy) before
	 * the update (the step asked for) and after it (what the net left
	 * of it); 0 otherwise */
	double mmd_step, mmd_miss;
	uint64_t minibatches, updates;
};

typedef struct ppo ppo;

/* A trainer that takes ownership of net (freed with the ppo; NULL: a new
 * net of *shape initialised from seed). seed also seeds the minibatch
 * shuffling. Errors: LG_EINVAL / LG_ERANGE (bad options or shape; err
 * says which), LG_ENOMEM; on error the caller still owns net. With
 * o->threads > 1 it starts o->threads - 1 worker threads (stopped by
 * ppo_free). */
int ppo_new(ppo **out, nn *net, const struct nn_shape *shape,
	    const struct ppo_opts *o, uint64_t seed, char *err,
	    size_t errlen);
void ppo_free(ppo *p); /* NULL is fine; frees the net too */
nn *ppo_net(ppo *p);

/* The linear schedule's progress f in [0, 1] (clamped), set by the
 * caller before updates (the league learner: league time over
 * budget.seconds); once set it replaces updates / total_updates. */
void ppo_set_progress(ppo *p, double f);

/* The trainer's state beside its net's parameters: Adam's moments and
 * step, the update count (the linear schedule's clock and the magnet's
 * refresh), the minibatch rng, the schedule's progress, the magnet's
 * parameters, and a caller's tag; appended to out (learner/ppo_state.c
 * has the layout, checksummed). A trainer made around the same
 * parameters (nn_load of the version blob) with the same options and
 * then ppo_state_load'ed trains on bit for bit as the saved one would
 * have. Advantages are normalised per batch: there is no running
 * normaliser to keep. */
int ppo_state_save(const ppo *p, uint64_t tag, lg_buf *out);
/* Restore what ppo_state_save wrote into p (its net already holds the
 * parameters); *tag (may be NULL) gets the caller's tag. Every field is
 * checked first, p is unchanged on error: LG_ECORRUPT (not a state,
 * torn, checksum, non-finite moments), LG_EUNSUPP (format version),
 * LG_EINVAL (another parameter count, a magnet where p has none or the
 * reverse); err says which. */
int ppo_state_load(ppo *p, const void *buf, size_t len, uint64_t *tag,
		   char *err, size_t errlen);

/* One PPO update on batch b: GAE, advantage normalisation, o.epochs
 * passes of shuffled minibatches, one Adam step each. st (may be NULL)
 * gets means over the minibatches. Errors: LG_EINVAL (another shape than
 * the net's, action out of range or illegal, a row without legal actions,
 * non-finite input, a done value past LG_ROW_CUT, n == 0),
 * LG_ERANGE (n > batch_max), LG_ENOMEM; the net is unchanged then. */
int ppo_update(ppo *p, const struct lg_rows *b, struct ppo_stats *st);

/* The PPO loss of the current net on b (same advantages as ppo_update
 * would use). Changes neither the net nor the optimizer state (only the
 * gradient buffer). */
int ppo_evaluate(ppo *p, const struct lg_rows *b, struct ppo_stats *st);

/* Low level, for tests and custom loops: one minibatch with given
 * advantages and returns. Zeroes the gradient buffer, then fills it with
 * the gradient of the loss (mean over rows) and st with the loss. */
struct ppo_minibatch {
	size_t n;
	const float *obs;
	const uint8_t *mask;
	const int32_t *action;
	const float *logp, *value; /* behaviour */
	const float *adv, *ret;
	const float *mlogp; /* n x actions magnet log-probs, or NULL */
	/* A recurrent net: the rows are n / seq_len sequences of seq_len
	 * steps, row (b, t) at b * seq_len + t. state[n x nn_state_len] is
	 * each row's stored state, read where a sequence starts: t = 0 or
	 * start[i] (NULL: t = 0 only). pad[i] (NULL: none) marks a row that
	 * only fills its sequence up: it takes no part in the loss. A
	 * feed-forward net reads none of these. */
	size_t seq_len;
	const float *state;
	const uint8_t *start, *pad;
	/* n x actions: the search's visit shares, the target of the
	 * policy_coef term (NULL: no such term) */
	const float *visits;
	/* n: each row's weight of its policy terms (NULL: 1; state_weight) */
	const float *pw;
	/* a gathered head (more than NN_DENSE_ACTIONS actions; mask unread):
	 * row i's legal ids at legal[loff[i] .. loff[i + 1]) */
	const uint16_t *legal;
	const size_t *loff;
};
int ppo_loss_grad(ppo *p, const struct ppo_minibatch *mb,
		  struct ppo_stats *st);
/* The gradient buffer (layout of nn_params) and its length. */
const float *ppo_grad(const ppo *p, size_t *count);
/* Compute GAE advantages and returns (value + advantage) of b into
 * adv[n] and ret[n] (caller-owned), as ppo_update does before
 * normalising. */
void ppo_gae(const struct lg_rows *b, double gamma, double lambda,
	     float *adv, float *ret);
/* FLOPs of one forward+backward pass over one row (for benchmarks): a
 * convolution counts as its definition (im2col's multiply-adds), also
 * where learner/conv.c computes it with fewer (Winograd). */
double nn_train_flops_per_row(const struct nn_shape *s);

#endif
