/*
 * learner/learner_internal.h: what nn.c shares with ppo.c (not part of the
 * public API). The net's layers are l = 0..nlayers-1; dims[l] -> dims[l+1];
 * the last layer is the fused head (actions logits + 1 value).
 */
#ifndef LG_LEARNER_INTERNAL_H
#define LG_LEARNER_INTERNAL_H

#include "learner/learner.h"

/* Convolution layers a torso can run: a residual block is two. */
#define NN_MAX_CONVL (2 * NN_MAX_CONV)
/* conv, dense, the recurrent core, the head */
#define NN_MAX_NET_LAYERS (NN_MAX_CONVL + NN_MAX_LAYERS + 2)
#define NN_MAX_TENSORS (2 * NN_MAX_NET_LAYERS)

/* Winograd's output tiles are at most 4 wide: F(4,3) reads 6 inputs */
#define CONV_WINO_MAXA 6

/* a 2-D convolution layer (conv.c, below) */
struct conv2d {
	uint32_t cin, h, w;        /* input planes */
	uint32_t cout, k, stride, pad;
	uint32_t oh, ow;           /* output planes (derived) */
	/* Winograd F(mh x mw, 3x3) when wino (conv2d_init chooses; 0:
	 * im2col). Tiles of mh x mw outputs (m = 2, 3 or 4) read ah x aw
	 * inputs (a = m + 2); th x tw tiles cover the output planes. */
	int wino;
	uint32_t wino_min;         /* ... for batches of at least this */
	uint32_t mh, mw, ah, aw, th, tw;
};

/* Layers l = 0 .. nconv-1 are convolutions (cv[l]; a residual block of
 * the shape is two of them), then the dense ones, then the recurrent core
 * (layer gl, if s.gru: its "weights" are Wi and Wh as one (in + H) x 3H
 * tensor, its "bias" bi and bh, gru.c's block), then the head; dims[] are
 * the flat sizes between layers either way. Layer l's output goes
 * through act[l] (NN_RELU, NN_TANH or NN_NONE; the head's is NN_NONE);
 * with skip[l], layer l adds layer l-1's input to its output before the
 * activation (the second convolution of a residual block). */
struct nn {
	struct nn_shape s;
	int nlayers;                       /* nconv + nhidden + !!gru + 1 */
	int nconv;
	int gl;                            /* the core's layer, or -1 */
	struct conv2d cv[NN_MAX_CONVL];
	uint8_t act[NN_MAX_NET_LAYERS];
	uint8_t skip[NN_MAX_NET_LAYERS];
	uint32_t dims[NN_MAX_NET_LAYERS + 1];
	size_t wmax;                       /* widest hidden layer (>= 1) */
	size_t nparams;
	size_t ntensors;
	struct nn_tensor t[NN_MAX_TENSORS];
	float *p;
};

/* Fill n's dims, convolutions, size table and nparams from its (checked)
 * shape n->s; and a zeroed net of shape s (checked) with that layout.
 * LG_ENOMEM. For nn.c and the file reader (nnfile.c). */
void nn_layout(nn *n);
int nn_alloc(nn **out, const struct nn_shape *s);

/* Weights and bias of layer l inside a buffer of the params' layout. */
static inline float *nn_w(const nn *n, float *buf, int l)
{
	return buf + n->t[2 * l].offset;
}
static inline float *nn_b(const nn *n, float *buf, int l)
{
	return buf + n->t[2 * l + 1].offset;
}

/* y[B x out] = x[B x in] W + b for dense layer l (sgemm). */
void nn_linear(const nn *n, int l, const float *x, size_t B, float *y);
/* Floats of scratch the convolutions need for batches of up to B rows
 * (the largest of conv2d_scratch over the layers; 0 without any). */
size_t nn_conv_scratch(const nn *n, size_t B);
/* Layer l's forward before its activation, conv or dense; scratch holds
 * nn_conv_scratch(n, B) floats (unused by dense layers). */
void nn_layer_forward(const nn *n, int l, const float *x, size_t B,
		      float *y, float *scratch);
/* Apply activation act (enum nn_act) to y[len] in place. */
void nn_activate(int act, float *y, size_t len);
/* y[i] = tanh(y[i]) and exp(-y[i]), vectorised where the C library can
 * (vmath.c). */
void nn_tanh_inplace(float *y, size_t len);
void nn_expneg_inplace(float *y, size_t len);
/* Layer l's output y[B x dims[l+1]] from its input x: forward, the skip
 * (skip_in: layer l-1's input, when n->skip[l]) and the activation. */
void nn_layer_apply(const nn *n, int l, const float *x, const float *skip_in,
		    size_t B, float *y, float *scratch);

/* Masked log-softmax of one row of logits z[A]: writes logp[A] and p[A]
 * (both 0 on illegal actions); returns the number of legal actions (0:
 * nothing written). */
int nn_masked_softmax(const float *z, const uint8_t *mask, size_t A,
		      float *logp, float *p);

/* A net with a gathered head (more than NN_DENSE_ACTIONS actions). */
static inline int nn_gathered(const nn *n)
{
	return n->s.actions > NN_DENSE_ACTIONS;
}
/* A gathered head on one row x (dims[nlayers - 1] floats): the logits of
 * actions ids[0 .. L) into z[L] (bhead[a] + Whead row a . x), and its
 * value into *value when value is not NULL. O(in x (L + 1)). */
void nn_head_gather(const nn *n, const float *x, const uint16_t *ids,
		    size_t L, float *z, float *value);
/* w . x over in floats (nn_gather.c). */
float nn_dot(const float *w, const float *x, size_t in);
/* The legal ids of a mask of A bytes into ids (ascending); how many. */
size_t nn_mask_list(const uint8_t *mask, size_t A, uint16_t *ids);
/* Log-softmax of L logits z (a legal list's): logp[L], p[L]; returns L
 * (0: nothing written). */
int nn_list_softmax(const float *z, size_t L, float *logp, float *p);

/* ---- conv.c: a 2-D convolution layer (im2col + sgemm) ---------------- */

/* Check and derive the output size, and choose the method: Winograd for
 * 3x3 kernels of stride 1 where it saves multiplies, else im2col.
 * LG_EINVAL / LG_ERANGE, detail in err. Parameters: W[cout][cin][k][k]
 * then b[cout]. */
int conv2d_init(struct conv2d *c, uint32_t cin, uint32_t h, uint32_t w,
		uint32_t cout, uint32_t k, uint32_t stride, uint32_t pad,
		char *err, size_t errlen);
/* Choose the method by hand (tests, benchmarks): wino 0 is im2col, 1
 * Winograd with the tile conv2d_init would choose, 2..4 Winograd with
 * tiles of that many outputs each way, at every batch size (conv2d_init's
 * choice leaves batches under CONV_WINO_MIN to im2col). LG_EINVAL where
 * Winograd does not apply (kernel not 3, stride not 1) or wino is out of
 * range. */
int conv2d_set_method(struct conv2d *c, int wino);
/* Winograd F(m, 3)'s matrices for m = 2, 3, 4 (static tables, row-major):
 * bt[a][a], g[a][3], at[m][a], a = m + 2 (the tests bound the rounding
 * error with them). LG_EINVAL for another m. */
int conv2d_wino_matrices(uint32_t m, const float **bt, const float **g,
			 const float **at);
/* Floats of scratch a batch of n needs (forward and backward alike); not
 * proportional to n: take it for the largest batch. */
size_t conv2d_scratch(const struct conv2d *c, size_t n);
/* y[n][cout][oh][ow] = conv(x[n][cin][h][w]) + b. */
void conv2d_forward(const struct conv2d *c, const float *W, const float *b,
		    const float *x, size_t n, float *y, float *scratch);
/* From dy[n][cout][oh][ow] at input x: dW and db accumulate (+=), dx (if
 * not NULL) is overwritten. */
void conv2d_backward(const struct conv2d *c, const float *W, const float *x,
		     const float *dy, size_t n, float *dW, float *db,
		     float *dx, float *scratch);

/* ---- gru.c: a GRU layer over a batch of sequences --------------------- */

/* Parameters of a GRU from in to H: Wi[in][3H], Wh[H][3H], bi[3H],
 * bh[3H]. */
size_t gru_params(uint32_t in, uint32_t H);
/* Floats of the forward's cache (kept for the backward) and of the
 * backward's work space, for B sequences of T steps. */
size_t gru_cache(uint32_t H, size_t T, size_t B);
size_t gru_work(uint32_t H, size_t T, size_t B);
/* h[B*T][H] from x[B*T][in], row (b, t) at b*T + t. The state before row
 * (b, t) is the stored hs[b*T + t] where t == 0 or start[b*T + t] (start
 * NULL: only t == 0), else the row before's h. */
void gru_forward(uint32_t in, uint32_t H, const float *p, const float *x,
		 const float *hs, const uint8_t *start, size_t T, size_t B,
		 float *h, float *cache);
/* From dh[B*T][H] (the loss's gradient at every output): dp += the
 * parameters' gradient; dx[B*T][in] overwritten, and dhs[B*T][H] with
 * the gradient at each stored state used (0 at the other rows); either
 * may be NULL. cache from the matching forward. */
void gru_backward(uint32_t in, uint32_t H, const float *p, const float *x,
		  const uint8_t *start, size_t T, size_t B, const float *dh,
		  float *dp, float *dx, float *dhs, float *cache, float *work);

#endif
