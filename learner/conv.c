/*
 * learner/conv.c: a 2-D convolution layer on OpenBLAS, forward and
 * backward over a whole batch, by one of two methods with the same maths
 * (a convolution with zero padding) and the same interface.
 *
 * Layout: a sample is planes, row-major: x[n][cin][h][w], y[n][cout][oh]
 * [ow]; weights W[cout][cin][k][k] (row-major, so W is a cout x K matrix,
 * K = cin*k*k) and b[cout].
 *
 * im2col, any kernel, stride and padding: im2col over the whole batch
 * into col[K][n*P] (P = oh*ow output positions; entry (ci,ki,kj ; s,oy,ox)
 * is x[s][ci][oy*stride-pad+ki][ox*stride-pad+kj], 0 in the padding), then
 * one sgemm Yt[cout][n*P] = W[cout][K] col[K][n*P], then Yt is scattered
 * to the sample-major y with the bias added. One large sgemm instead of n
 * small ones: board games have few output positions (42 for Connect
 * Four), and a per-sample sgemm of N = 42 leaves BLAS far from its peak.
 * Backward: dYt[cout][n*P] gathered from dy; dW += dYt col^T (sgemm,
 * M = cout, N = K, K = n*P); dcol = W^T dYt (sgemm), then col2im adds
 * dcol back into dx. (db, the sums of dy, is the same for both methods.)
 *
 * Winograd, 3x3 kernels of stride 1 (any padding): minimal filtering
 * F(mh x mw, 3 x 3) (Lavin and Gray, "Fast Algorithms for Convolutional
 * Neural Networks", 2015; the matrices, from Toom-Cook, are constant
 * tables below). The output planes are cut into th x tw tiles of mh x mw
 * outputs, each read from an ah x aw input tile (a = m + 2): per tile,
 * Y = AT_h [ sum_ci (G_h g G_w^T) . (BT_h d BT_w^T) ] AT_w^T, where . is
 * the element-wise product. So each of the E = ah aw elements is one
 * matrix product over the batch's tiles: M[e][cout][T] = U[e][cout][cin]
 * V[e][cin][T], one sgemm per element. For Connect Four's 6 x 7 planes
 * the tiles are 3 x 4 (2 x 2 of them; one padding column), 120
 * multiplies per output channel, input channel and sample instead of
 * im2col's 378. The backward is the exact adjoint of the same linear
 * maps: dM from dY by the output transform's transpose, dU = dM V^T
 * (sgemm) and dW += G_h^T dU G_w; dV = U^T dM (sgemm) and dx from dV by
 * the input transform's transpose, tiles overlapping (overlap-add).
 *
 * The batch goes through Winograd in chunks of up to CONV_CHUNK samples,
 * the sample index innermost (planes re-laid [c][row][col][s]), so every
 * transform is a few multiply-adds of whole vectors of samples and the
 * chunk's buffers stay in cache; the last chunk's vector is rounded up
 * to a multiple of CONV_LANES and its spare lanes hold zeros.
 *
 * conv2d_init takes Winograd where it applies and pays (wino_choose);
 * batches under CONV_WINO_MIN go through im2col even then.
 */
#include "learner/learner_internal.h"

#include <cblas.h>
#include <string.h>

static void wino_choose(struct conv2d *c);

int conv2d_init(struct conv2d *c, uint32_t cin, uint32_t h, uint32_t w,
		uint32_t cout, uint32_t k, uint32_t stride, uint32_t pad,
		char *err, size_t errlen)
{
	uint64_t oh, ow;

	memset(c, 0, sizeof *c);
	if (!cin || !h || !w || !cout || !k || !stride ||
	    cin > NN_MAX_WIDTH || cout > NN_MAX_WIDTH || k > 64 ||
	    stride > 64 || pad > 64 || h > 4096 || w > 4096) {
		lg_errf(err, errlen, "conv2d: channels, kernel and stride must "
			"be >= 1 (kernel, stride, padding <= 64; planes <= "
			"4096 x 4096)");
		return LG_EINVAL;
	}
	if (h + 2 * pad < k || w + 2 * pad < k) {
		lg_errf(err, errlen, "conv2d: a %ux%u kernel does not fit "
			"%ux%u planes padded by %u", k, k, h, w, pad);
		return LG_EINVAL;
	}
	oh = (h + 2 * pad - k) / stride + 1;
	ow = (w + 2 * pad - k) / stride + 1;
	/* the im2col columns of one sample, too: a wide kernel over tiny
	 * planes with much padding is small in parameters, not in work */
	if ((uint64_t)cin * k * k * cout > NN_MAX_PARAMS ||
	    (uint64_t)cin * h * w > NN_MAX_OBS ||
	    (uint64_t)cout * oh * ow > NN_MAX_OBS ||
	    (uint64_t)cin * k * k * oh * ow > NN_MAX_OBS) {
		lg_errf(err, errlen, "conv2d: %u -> %u channels of %ux%u "
			"is over the size caps", cin, cout, h, w);
		return LG_ERANGE;
	}
	c->cin = cin;
	c->h = h;
	c->w = w;
	c->cout = cout;
	c->k = k;
	c->stride = stride;
	c->pad = pad;
	c->oh = (uint32_t)oh;
	c->ow = (uint32_t)ow;
	wino_choose(c);
	return 0;
}

/* The one walk over (input entry, column entry) pairs. With x, im2col:
 * col[K][n*P] from x[n][cin][h][w], 0 where the kernel hangs over the
 * padding. With dx instead, its adjoint col2im: dx += every column entry
 * that read it. */
static void im2col_walk(const struct conv2d *c, const float *x, float *dx,
			size_t n, float *col)
{
	size_t P = (size_t)c->oh * c->ow, NP = n * P;
	size_t in = (size_t)c->cin * c->h * c->w, plane = (size_t)c->h * c->w;

	for (uint32_t ci = 0; ci < c->cin; ci++)
		for (uint32_t ki = 0; ki < c->k; ki++)
			for (uint32_t kj = 0; kj < c->k; kj++) {
				size_t row = ((size_t)ci * c->k + ki) * c->k + kj;
				for (size_t s = 0; s < n; s++) {
					size_t base = s * in + ci * plane;
					float *d = col + row * NP + s * P;
					for (uint32_t oy = 0; oy < c->oh;
					     oy++, d += c->ow) {
						long iy = (long)oy * c->stride -
							  (long)c->pad + ki;
						if (iy < 0 || iy >= (long)c->h) {
							if (x)
								memset(d, 0, c->ow * sizeof *d);
							continue;
						}
						size_t r = base + (size_t)iy * c->w;
						for (uint32_t ox = 0; ox < c->ow; ox++) {
							long ix = (long)ox * c->stride -
								  (long)c->pad + kj;
							int inside = ix >= 0 && ix < (long)c->w;
							if (x)
								d[ox] = inside ? x[r + (size_t)ix]
									       : 0.0f;
							else if (inside)
								dx[r + (size_t)ix] += d[ox];
						}
					}
				}
			}
}

static size_t im2col_scratch(const struct conv2d *c, size_t n)
{
	size_t K = (size_t)c->cin * c->k * c->k;
	size_t NP = n * (size_t)c->oh * c->ow;

	/* col, and Yt / dYt */
	return K * NP + (size_t)c->cout * NP;
}

static void im2col_forward(const struct conv2d *c, const float *W,
			   const float *b, const float *x, size_t n, float *y,
			   float *scratch)
{
	size_t K = (size_t)c->cin * c->k * c->k, P = (size_t)c->oh * c->ow;
	size_t NP = n * P;
	float *col = scratch, *yt = scratch + K * NP;

	im2col_walk(c, x, NULL, n, col);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->cout,
		    (int)NP, (int)K, 1.0f, W, (int)K, col, (int)NP, 0.0f, yt,
		    (int)NP);
	for (size_t s = 0; s < n; s++)
		for (uint32_t co = 0; co < c->cout; co++) {
			const float *src = yt + (size_t)co * NP + s * P;
			float *dst = y + (s * c->cout + co) * P;
			float bias = b[co];
			for (size_t p = 0; p < P; p++)
				dst[p] = src[p] + bias;
		}
}

static void im2col_backward(const struct conv2d *c, const float *W,
			    const float *x, const float *dy, size_t n,
			    float *dW, float *dx, float *scratch)
{
	size_t K = (size_t)c->cin * c->k * c->k, P = (size_t)c->oh * c->ow;
	size_t NP = n * P;
	float *col = scratch, *dyt = scratch + K * NP;

	for (size_t s = 0; s < n; s++)
		for (uint32_t co = 0; co < c->cout; co++)
			memcpy(dyt + (size_t)co * NP + s * P,
			       dy + (s * c->cout + co) * P, P * sizeof *dy);
	im2col_walk(c, x, NULL, n, col);
	/* dW[cout][K] += dYt[cout][NP] col[K][NP]^T */
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)c->cout,
		    (int)K, (int)NP, 1.0f, dyt, (int)NP, col, (int)NP, 1.0f, dW,
		    (int)K);
	if (!dx)
		return;
	/* dcol[K][NP] = W[cout][K]^T dYt[cout][NP], into col's space */
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)K, (int)NP,
		    (int)c->cout, 1.0f, W, (int)K, dyt, (int)NP, 0.0f, col,
		    (int)NP);
	memset(dx, 0, n * (size_t)c->cin * c->h * c->w * sizeof *dx);
	im2col_walk(c, NULL, dx, n, col);
}

/* ---- Winograd F(m x m', 3 x 3) --------------------------------------- */

/* Samples per chunk: small enough that the chunk's V and M (for Connect
 * Four's 64 -> 64 layer, 30 elements x 64 channels x 4 tiles x 16
 * samples, 0.5 MB each) stay in the second-level cache. Forward and
 * backward of that layer over 512 samples, one thread, AVX2 transforms:
 * 44.5 us a sample with 16, 46.4 with 32, 47.0 with 64, 57.6 with 128;
 * AVX-512 transforms: 35.2 with 16, 40.6 with 32 (and 32 lanes). */
#define CONV_CHUNK 16
/* Floats between one element's matrix of V (or M) and the next beyond
 * the matrix itself: without them the ah aw elements a tile writes are a
 * power of two apart and fall into one set of the first-level cache
 * (the transforms ran 3 times slower). */
#define CONV_SKEW 16
/* Spare lanes: vectors of samples are rounded up to this. */
#define CONV_LANES 16
/* Smaller batches go through im2col even in a Winograd layer: a chunk
 * costs as much as 16 samples, and for Connect Four's 64 -> 64 layer
 * (forward, one thread) im2col took 0.04 ms for one sample, 0.13 for 4,
 * 0.26 for 8, Winograd 0.23 for any of them. */
#define CONV_WINO_MIN 8

/* The transforms of F(m, 3), m = 2, 3, 4, from Toom-Cook with a = m + 2
 * points: 0, 1, -1, 2, -2 (the first a - 1 of them) and infinity. With
 * V the a x a evaluation of polynomials of degree a-1 at the points (the
 * last row picks the leading coefficient), the linear convolution of g
 * (3 taps) and h (m) is V^-1 [(Eg g) . (Eh h)], so the correlation, its
 * transpose in h, is y = Eh^T [(Eg g) . (V^-T d)]: AT = Eh^T, G = Eg,
 * BT = V^-T, row j of G divided and row j of BT multiplied by prod_{l !=
 * j} (p_j - p_l), which leaves AT and BT integers (F(4,3)'s are Lavin
 * and Gray's). The small points keep the transforms' growth, and so the
 * rounding error, low for these sizes (the tests' tolerance). BT[a][a],
 * AT[m][a] and G[a][3], row-major, indexed by m. */
static const float wino_bt2[16] = {
	1, 0, -1, 0,
	0, 1, 1, 0,
	0, -1, 1, 0,
	0, -1, 0, 1,
};
static const float wino_bt3[25] = {
	2, -1, -2, 1, 0,
	0, -2, -1, 1, 0,
	0, 2, -3, 1, 0,
	0, -1, 0, 1, 0,
	0, 2, -1, -2, 1,
};
static const float wino_bt4[36] = {
	4, 0, -5, 0, 1, 0,
	0, -4, -4, 1, 1, 0,
	0, 4, -4, -1, 1, 0,
	0, -2, -1, 2, 1, 0,
	0, 2, -1, -2, 1, 0,
	0, 4, 0, -5, 0, 1,
};
static const float wino_at2[8] = {
	1, 1, 1, 0,
	0, 1, -1, 1,
};
static const float wino_at3[15] = {
	1, 1, 1, 1, 0,
	0, 1, -1, 2, 0,
	0, 1, 1, 4, 1,
};
static const float wino_at4[24] = {
	1, 1, 1, 1, 1, 0,
	0, 1, -1, 2, -2, 0,
	0, 1, 1, 4, 4, 0,
	0, 1, -1, 8, -8, 1,
};
static const float wino_g2[12] = {
	1, 0, 0,
	0.5f, 0.5f, 0.5f,
	0.5f, -0.5f, 0.5f,
	0, 0, 1,
};
static const float wino_g3[15] = {
	0.5f, 0, 0,
	-0.5f, -0.5f, -0.5f,
	-1.0f / 6, 1.0f / 6, -1.0f / 6,
	1.0f / 6, 1.0f / 3, 2.0f / 3,
	0, 0, 1,
};
static const float wino_g4[18] = {
	0.25f, 0, 0,
	-1.0f / 6, -1.0f / 6, -1.0f / 6,
	-1.0f / 6, 1.0f / 6, -1.0f / 6,
	1.0f / 24, 1.0f / 12, 1.0f / 6,
	1.0f / 24, -1.0f / 12, 1.0f / 6,
	0, 0, 1,
};
static const float *const wino_g[5] = { NULL, NULL, wino_g2, wino_g3,
					wino_g4 };

/* Sixteen lanes as one value (GCC's and clang's vector extension: one
 * AVX-512 register, two AVX ones, four SSE ones), loaded and stored
 * unaligned. */
typedef float wino_v16 __attribute__((vector_size(64), aligned(4),
				     may_alias));
#define WINO_VECS (CONV_LANES / 16)

int conv2d_wino_matrices(uint32_t m, const float **bt, const float **g,
			 const float **at)
{
	static const float *const b[5] = { NULL, NULL, wino_bt2, wino_bt3,
					   wino_bt4 };
	static const float *const a[5] = { NULL, NULL, wino_at2, wino_at3,
					   wino_at4 };

	if (m < 2 || m > 4)
		return LG_EINVAL;
	*bt = b[m];
	*g = wino_g[m];
	*at = a[m];
	return 0;
}

/* One line of a transform, CONV_LANES samples wide: out(i) (+)= sum_k
 * M(i, k) in(k), in(k) at in + k is, out(i) at out + i os, M(i, k) at
 * M[i C + k] (or M[k R + i] transposed). Always inlined into the
 * instances below with M a constant table, so the compiler unrolls it,
 * drops the zero entries and keeps the lanes in vector registers. */
static inline __attribute__((always_inline)) void
wino_line(const float *M, int R, int C, int tr, const float *in, size_t is,
	  float *out, size_t os, int acc)
{
	wino_v16 x[CONV_WINO_MAXA][WINO_VECS];

	for (int k = 0; k < C; k++)
		for (int h = 0; h < WINO_VECS; h++)
			x[k][h] = *(const wino_v16 *)(in + k * is + 16 * h);
	for (int i = 0; i < R; i++)
		for (int h = 0; h < WINO_VECS; h++) {
			wino_v16 *o = (wino_v16 *)(out + i * os + 16 * h);
			wino_v16 v = acc ? *o : (wino_v16){ 0 };
			for (int k = 0; k < C; k++) {
				float q = tr ? M[k * R + i] : M[i * C + k];
				if (q != 0.0f)
					v += q * x[k][h];
			}
			*o = v;
		}
}

typedef void wino_line_fn(const float *in, size_t is, float *out, size_t os,
			  int acc);

/* The instances: BT, BT^T, AT, AT^T for each m, built for AVX-512 and
 * for AVX2 with FMA too, taken at run time where the CPU has them (the
 * AVX-512 build made the 64 -> 64 layer 19% faster than the AVX2 one). */
#define WINO_LINE(name, M, R, C, tr)                                        \
	__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",   \
				     "default"))) static                   \
	void name(const float *in, size_t is, float *out, size_t os,       \
		  int acc)                                                  \
	{                                                                   \
		wino_line(M, R, C, tr, in, is, out, os, acc);               \
	}
WINO_LINE(wino_b2, wino_bt2, 4, 4, 0)
WINO_LINE(wino_b3, wino_bt3, 5, 5, 0)
WINO_LINE(wino_b4, wino_bt4, 6, 6, 0)
WINO_LINE(wino_bt2t, wino_bt2, 4, 4, 1)
WINO_LINE(wino_bt3t, wino_bt3, 5, 5, 1)
WINO_LINE(wino_bt4t, wino_bt4, 6, 6, 1)
WINO_LINE(wino_a2, wino_at2, 2, 4, 0)
WINO_LINE(wino_a3, wino_at3, 3, 5, 0)
WINO_LINE(wino_a4, wino_at4, 4, 6, 0)
WINO_LINE(wino_at2t, wino_at2, 4, 2, 1)
WINO_LINE(wino_at3t, wino_at3, 5, 3, 1)
WINO_LINE(wino_at4t, wino_at4, 6, 4, 1)
#undef WINO_LINE

/* A transform along one direction: its line and its shape (rows out,
 * entries in). */
struct wino_dir {
	wino_line_fn *f;
	uint32_t rows, cols;
};

enum { WINO_IN, WINO_IN_ADJ, WINO_OUT, WINO_OUT_ADJ };

static struct wino_dir wino_dir(uint32_t m, int kind)
{
	static wino_line_fn *const f[4][3] = {
		{ wino_b2, wino_b3, wino_b4 },
		{ wino_bt2t, wino_bt3t, wino_bt4t },
		{ wino_a2, wino_a3, wino_a4 },
		{ wino_at2t, wino_at3t, wino_at4t },
	};
	struct wino_dir d = { f[kind][m - 2], m + 2, m + 2 };

	if (kind == WINO_OUT)
		d.rows = m;
	else if (kind == WINO_OUT_ADJ)
		d.cols = m;
	return d;
}

/* Multiplies per output channel, input channel and sample of one
 * direction's tiles of m over len outputs. */
static uint32_t wino_cost(uint32_t len, uint32_t m)
{
	return (len + m - 1) / m * (m + 2);
}

/* The tile over len outputs with the fewest multiplies (the smaller on a
 * tie: less rounding). */
static uint32_t wino_best_m(uint32_t len)
{
	uint32_t best = 2;

	for (uint32_t m = 3; m <= 4; m++)
		if (wino_cost(len, m) < wino_cost(len, best))
			best = m;
	return best;
}

static void wino_plan(struct conv2d *c, uint32_t mh, uint32_t mw)
{
	c->wino = 1;
	c->wino_min = CONV_WINO_MIN;
	c->mh = mh;
	c->mw = mw;
	c->ah = mh + 2;
	c->aw = mw + 2;
	c->th = (c->oh + mh - 1) / mh;
	c->tw = (c->ow + mw - 1) / mw;
}

/* Winograd where it applies, does at most 3/4 of im2col's multiplies
 * (every padded 3x3 board: Connect Four's 6 x 7 needs 120 per channel
 * pair and sample against 378; a 1 x 1 output, 16 against 9, is left to
 * im2col) and has the channels to pay for its transforms, which cost per
 * channel while the products it saves cost per pair of channels: on
 * Connect Four's planes with 64 outputs, 3 inputs ran 1.6 times slower
 * than im2col, 8 level, 16 1.7 times faster (forward and dW, one
 * thread, 512 samples). */
static void wino_choose(struct conv2d *c)
{
	uint32_t mh = wino_best_m(c->oh), mw = wino_best_m(c->ow);

	c->wino = 0;
	if (c->k != 3 || c->stride != 1 ||
	    (uint64_t)c->cin * c->cout < 8 * ((uint64_t)c->cin + c->cout))
		return;
	if (4 * (uint64_t)wino_cost(c->oh, mh) * wino_cost(c->ow, mw) <=
	    3 * 9 * (uint64_t)c->oh * c->ow)
		wino_plan(c, mh, mw);
}

int conv2d_set_method(struct conv2d *c, int wino)
{
	if (wino < 0 || wino > 4)
		return LG_EINVAL;
	if (!wino) {
		c->wino = 0;
		return 0;
	}
	if (c->k != 3 || c->stride != 1)
		return LG_EINVAL;
	if (wino == 1)
		wino_plan(c, wino_best_m(c->oh), wino_best_m(c->ow));
	else
		wino_plan(c, (uint32_t)wino, (uint32_t)wino);
	c->wino_min = 1;
	return 0;
}

/* The chunk's vector length for s samples: rounded up to whole lanes. */
static size_t wino_lanes(size_t s)
{
	return (s + CONV_LANES - 1) / CONV_LANES * CONV_LANES;
}

/* The planes' buffer of a chunk: the padded input [cin][hp][wp] or the
 * tiles' output [cout][th mh][tw mw], whichever is larger, per lane. */
static size_t wino_planes(const struct conv2d *c)
{
	size_t in = (size_t)c->cin * (c->th * c->mh + 2) * (c->tw * c->mw + 2);
	size_t out = (size_t)c->cout * c->th * c->mh * c->tw * c->mw;

	return in > out ? in : out;
}

static size_t wino_scratch(const struct conv2d *c, size_t n)
{
	size_t E = (size_t)c->ah * c->aw, T = (size_t)c->th * c->tw;
	size_t S = wino_lanes(n < CONV_CHUNK ? n : CONV_CHUNK);

	/* U and dU; per lane: the planes, V, M (all with their skews) */
	return 2 * E * (c->cout * c->cin + CONV_SKEW) + 2 * E * CONV_SKEW +
	       S * (wino_planes(c) + E * T * (c->cin + c->cout));
}

/* A chunk's buffers, carved from the scratch. */
struct wino_buf {
	float *u, *du;      /* [E][cout][cin] */
	float *pl;          /* planes, [c][rows][cols][S] */
	float *v, *m;       /* [E][cin][T S], [E][cout][T S] */
};

static void wino_carve(const struct conv2d *c, size_t n, float *scratch,
		       struct wino_buf *b)
{
	size_t E = (size_t)c->ah * c->aw, T = (size_t)c->th * c->tw;
	size_t S = wino_lanes(n < CONV_CHUNK ? n : CONV_CHUNK);

	b->u = scratch;
	b->du = b->u + E * (c->cout * c->cin + CONV_SKEW);
	b->pl = b->du + E * (c->cout * c->cin + CONV_SKEW);
	b->v = b->pl + S * wino_planes(c);
	b->m = b->v + E * (S * T * c->cin + CONV_SKEW);
}

/* Planes of ns samples src[s][ch][h][w] into dst[ch][rows][cols][S],
 * shifted by off (the padding) each way; zeros elsewhere and in the spare
 * lanes. */
static void wino_pack(const float *src, size_t ns, size_t S, uint32_t ch,
		      uint32_t h, uint32_t w, uint32_t off, uint32_t rows,
		      uint32_t cols, float *restrict dst)
{
	size_t plane = (size_t)h * w, in = ch * plane;

	memset(dst, 0, (size_t)ch * rows * cols * S * sizeof *dst);
	for (uint32_t c = 0; c < ch; c++)
		for (uint32_t y = 0; y < h && y + off < rows; y++)
			for (uint32_t x = 0; x < w && x + off < cols; x++) {
				float *d = dst + (((size_t)c * rows + y + off) *
						  cols + x + off) * S;
				const float *p = src + c * plane + y * w + x;
				for (size_t s = 0; s < ns; s++)
					d[s] = p[s * in];
			}
}

/* The inverse: dst[s][ch][h][w] = src[ch][y + off][x + off][s] (+ bias[ch]
 * when bias). */
static void wino_unpack(const float *src, size_t ns, size_t S, uint32_t ch,
			uint32_t h, uint32_t w, uint32_t off, uint32_t rows,
			uint32_t cols, const float *bias, float *restrict dst)
{
	size_t plane = (size_t)h * w, in = ch * plane;

	for (uint32_t c = 0; c < ch; c++) {
		float add = bias ? bias[c] : 0.0f;
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++) {
				size_t at = ((size_t)c * rows + y + off) *
						    cols + x + off;
				const float *p = src + at * S;
				float *d = dst + c * plane + y * w + x;
				for (size_t s = 0; s < ns; s++)
					d[s * in] = p[s] + add;
			}
	}
}

/* One tile, vectors of S lanes (S a multiple of CONV_LANES): out(i, j)
 * (+)= sum_k,l L(i, k) in(k, l) R(j, l), in(k, l) at in + k irs + l ics,
 * out(i, j) at out + i ors + j ocs: L down each column into t, then R
 * along each row of t, CONV_LANES samples at a time. */
static void wino_tile(struct wino_dir L, struct wino_dir R, const float *in,
		      size_t irs, size_t ics, float *out, size_t ors,
		      size_t ocs, size_t S, int acc)
{
	float t[CONV_WINO_MAXA * CONV_WINO_MAXA * CONV_LANES];

	for (size_t s0 = 0; s0 < S; s0 += CONV_LANES) {
		for (uint32_t l = 0; l < R.cols; l++)
			L.f(in + l * ics + s0, irs, t + l * CONV_LANES,
			    R.cols * CONV_LANES, 0);
		for (uint32_t i = 0; i < L.rows; i++)
			R.f(t + i * R.cols * CONV_LANES, CONV_LANES,
			    out + i * ors + s0, ocs, acc);
	}
}

/* Element e's matrix of U or dU ([E][cout][cin]; and wino_e: of V or M,
 * [E][ch][N]), each CONV_SKEW floats after the one before. */
static float *wino_u(const struct conv2d *c, float *u, size_t e)
{
	return u + e * ((size_t)c->cout * c->cin + CONV_SKEW);
}

/* U[e][co][ci] = (G_h g G_w^T)[e] for every kernel g = W[co][ci], for
 * CONV_LANES kernels at a time (their taps gathered into lanes first),
 * so it vectorises: done once per call, it is most of a small batch's
 * work otherwise. */
static void wino_kernels(const struct conv2d *c, const float *W, float *u)
{
	size_t cc = (size_t)c->cout * c->cin;
	const float *gh = wino_g[c->mh], *gw = wino_g[c->mw];

	for (size_t q0 = 0; q0 < cc; q0 += CONV_LANES) {
		size_t nq = cc - q0 < CONV_LANES ? cc - q0 : CONV_LANES;
		float g[9][CONV_LANES] = { { 0 } }, t[3][CONV_LANES];
		for (size_t q = 0; q < nq; q++)
			for (int k = 0; k < 9; k++)
				g[k][q] = W[(q0 + q) * 9 + (size_t)k];
		for (uint32_t i = 0; i < c->ah; i++) {
			for (int l = 0; l < 3; l++)
				for (int v = 0; v < CONV_LANES; v++)
					t[l][v] = gh[i * 3] * g[l][v] +
						  gh[i * 3 + 1] * g[3 + l][v] +
						  gh[i * 3 + 2] * g[6 + l][v];
			for (uint32_t j = 0; j < c->aw; j++) {
				float o[CONV_LANES];
				for (int v = 0; v < CONV_LANES; v++)
					o[v] = gw[j * 3] * t[0][v] +
					       gw[j * 3 + 1] * t[1][v] +
					       gw[j * 3 + 2] * t[2][v];
				memcpy(wino_u(c, u, (size_t)i * c->aw + j) + q0,
				       o, nq * sizeof *o);
			}
		}
	}
}

/* Its adjoint: dW[co][ci] += G_h^T dU[.][co][ci] G_w, lanes as above. */
static void wino_kernels_adjoint(const struct conv2d *c, float *du,
				 float *dW)
{
	size_t cc = (size_t)c->cout * c->cin;
	const float *gh = wino_g[c->mh], *gw = wino_g[c->mw];

	for (size_t q0 = 0; q0 < cc; q0 += CONV_LANES) {
		size_t nq = cc - q0 < CONV_LANES ? cc - q0 : CONV_LANES;
		float g[9][CONV_LANES] = { { 0 } };
		for (uint32_t i = 0; i < c->ah; i++) {
			float t[3][CONV_LANES] = { { 0 } };
			for (uint32_t j = 0; j < c->aw; j++) {
				float d[CONV_LANES] = { 0 };
				memcpy(d, wino_u(c, du, (size_t)i * c->aw + j) +
						  q0, nq * sizeof *d);
				for (int l = 0; l < 3; l++)
					for (int v = 0; v < CONV_LANES; v++)
						t[l][v] += gw[j * 3 + l] * d[v];
			}
			for (int k = 0; k < 3; k++)
				for (int l = 0; l < 3; l++)
					for (int v = 0; v < CONV_LANES; v++)
						g[k * 3 + l][v] +=
							gh[i * 3 + k] * t[l][v];
		}
		for (size_t q = 0; q < nq; q++)
			for (int k = 0; k < 9; k++)
				dW[(q0 + q) * 9 + (size_t)k] += g[k][q];
	}
}

/* Input tiles of the packed planes pl[cin][hp][wp][S] to V[e][cin][T S]
 * (adj 0), or the adjoint: dV in v added into the planes (adj 1, the
 * planes zeroed first). */
static void wino_inputs(const struct conv2d *c, float *pl, float *v,
			size_t S, int adj)
{
	size_t hp = c->th * c->mh + 2, wp = c->tw * c->mw + 2;
	size_t N = (size_t)c->th * c->tw * S, es = c->cin * N + CONV_SKEW;
	struct wino_dir L = wino_dir(c->mh, adj ? WINO_IN_ADJ : WINO_IN);
	struct wino_dir R = wino_dir(c->mw, adj ? WINO_IN_ADJ : WINO_IN);

	if (adj)
		memset(pl, 0, c->cin * hp * wp * S * sizeof *pl);
	for (uint32_t ci = 0; ci < c->cin; ci++)
		for (uint32_t ty = 0; ty < c->th; ty++)
			for (uint32_t tx = 0; tx < c->tw; tx++) {
				float *d = pl + ((ci * hp + ty * c->mh) * wp +
						 tx * c->mw) * S;
				float *e = v + ci * N +
					   ((size_t)ty * c->tw + tx) * S;
				if (adj)
					wino_tile(L, R, e, c->aw * es, es, d,
						   wp * S, S, S, 1);
				else
					wino_tile(L, R, d, wp * S, S, e,
						   c->aw * es, es, S, 0);
			}
}

/* M[e][cout][T S] to the output tiles op[cout][th mh][tw mw][S] (adj 0),
 * or the adjoint: the tiles' dY to dM (adj 1). */
static void wino_outputs(const struct conv2d *c, float *m, float *op,
			 size_t S, int adj)
{
	size_t rows = c->th * c->mh, cols = c->tw * c->mw;
	size_t N = (size_t)c->th * c->tw * S, es = c->cout * N + CONV_SKEW;
	struct wino_dir L = wino_dir(c->mh, adj ? WINO_OUT_ADJ : WINO_OUT);
	struct wino_dir R = wino_dir(c->mw, adj ? WINO_OUT_ADJ : WINO_OUT);

	for (uint32_t co = 0; co < c->cout; co++)
		for (uint32_t ty = 0; ty < c->th; ty++)
			for (uint32_t tx = 0; tx < c->tw; tx++) {
				float *d = op + ((co * rows + ty * c->mh) *
						 cols + tx * c->mw) * S;
				float *e = m + co * N +
					   ((size_t)ty * c->tw + tx) * S;
				if (adj)
					wino_tile(L, R, d, cols * S, S, e,
						   c->aw * es, es, S, 0);
				else
					wino_tile(L, R, e, c->aw * es, es, d,
						   cols * S, S, S, 0);
			}
}

static float *wino_e(float *vm, size_t ch, size_t N, size_t e)
{
	return vm + e * (ch * N + CONV_SKEW);
}

/* A chunk of ns samples x (S lanes) packed into padded tiles and through
 * the input transform into bf->v: what forward and backward both start
 * a chunk with. */
static void wino_input_chunk(const struct conv2d *c, const float *x,
			     size_t ns, size_t S, const struct wino_buf *bf)
{
	wino_pack(x, ns, S, c->cin, c->h, c->w, c->pad, c->th * c->mh + 2,
		  c->tw * c->mw + 2, bf->pl);
	wino_inputs(c, bf->pl, bf->v, S, 0);
}

/* The transform elements' products with U: M[e] = U[e] V[e] (adj 0,
 * [cout][cin] x [cin][N]), or the adjoint: V[e] = U[e]^T M[e] (adj 1, the
 * input's gradient). */
static void wino_by_u(const struct conv2d *c, const struct wino_buf *bf,
		      size_t N, int adj)
{
	size_t E = (size_t)c->ah * c->aw;
	size_t rows = adj ? c->cin : c->cout, inner = adj ? c->cout : c->cin;

	for (size_t e = 0; e < E; e++)
		cblas_sgemm(CblasRowMajor, adj ? CblasTrans : CblasNoTrans,
			    CblasNoTrans, (int)rows, (int)N, (int)inner, 1.0f,
			    wino_u(c, bf->u, e), (int)c->cin,
			    wino_e(adj ? bf->m : bf->v, inner, N, e), (int)N,
			    0.0f, wino_e(adj ? bf->v : bf->m, rows, N, e),
			    (int)N);
}

static void wino_forward(const struct conv2d *c, const float *W,
			 const float *b, const float *x, size_t n, float *y,
			 float *scratch)
{
	size_t T = (size_t)c->th * c->tw;
	size_t in = (size_t)c->cin * c->h * c->w;
	size_t out = (size_t)c->cout * c->oh * c->ow;
	struct wino_buf bf;

	wino_carve(c, n, scratch, &bf);
	wino_kernels(c, W, bf.u);
	for (size_t s0 = 0; s0 < n; s0 += CONV_CHUNK) {
		size_t ns = n - s0 < CONV_CHUNK ? n - s0 : CONV_CHUNK;
		size_t S = wino_lanes(ns), N = T * S;
		wino_input_chunk(c, x + s0 * in, ns, S, &bf);
		wino_by_u(c, &bf, N, 0);
		wino_outputs(c, bf.m, bf.pl, S, 0);
		wino_unpack(bf.pl, ns, S, c->cout, c->oh, c->ow, 0,
			    c->th * c->mh, c->tw * c->mw, b, y + s0 * out);
	}
}

static void wino_backward(const struct conv2d *c, const float *W,
			  const float *x, const float *dy, size_t n,
			  float *dW, float *dx, float *scratch)
{
	size_t E = (size_t)c->ah * c->aw, T = (size_t)c->th * c->tw;
	size_t in = (size_t)c->cin * c->h * c->w;
	size_t out = (size_t)c->cout * c->oh * c->ow;
	uint32_t hp = c->th * c->mh + 2, wp = c->tw * c->mw + 2;
	struct wino_buf bf;

	wino_carve(c, n, scratch, &bf);
	if (dx)
		wino_kernels(c, W, bf.u);
	memset(bf.du, 0, E * (c->cout * c->cin + CONV_SKEW) * sizeof *bf.du);
	for (size_t s0 = 0; s0 < n; s0 += CONV_CHUNK) {
		size_t ns = n - s0 < CONV_CHUNK ? n - s0 : CONV_CHUNK;
		size_t S = wino_lanes(ns), N = T * S;
		wino_input_chunk(c, x + s0 * in, ns, S, &bf);
		wino_pack(dy + s0 * out, ns, S, c->cout, c->oh, c->ow, 0,
			  c->th * c->mh, c->tw * c->mw, bf.pl);
		wino_outputs(c, bf.m, bf.pl, S, 1);
		/* dU[e][cout][cin] += dM[e][cout][N] V[e][cin][N]^T */
		for (size_t e = 0; e < E; e++)
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans,
				    (int)c->cout, (int)c->cin, (int)N, 1.0f,
				    wino_e(bf.m, c->cout, N, e), (int)N,
				    wino_e(bf.v, c->cin, N, e), (int)N, 1.0f,
				    wino_u(c, bf.du, e), (int)c->cin);
		if (!dx)
			continue;
		/* dV[e][cin][N] = U[e][cout][cin]^T dM[e][cout][N] */
		wino_by_u(c, &bf, N, 1);
		wino_inputs(c, bf.pl, bf.v, S, 1);
		wino_unpack(bf.pl, ns, S, c->cin, c->h, c->w, c->pad, hp, wp,
			    NULL, dx + s0 * in);
	}
	wino_kernels_adjoint(c, bf.du, dW);
}

/* ---- the layer -------------------------------------------------------- */

/* The sum of v[len] in double, from CONV_LANES float partial sums that
 * run side by side (one double chain over a batch's dy was a tenth of
 * the update's time). */
static double sum_floats(const float *v, size_t len)
{
	float part[CONV_LANES] = { 0 };
	double sum = 0;
	size_t j = 0;

	for (; j + CONV_LANES <= len; j += CONV_LANES)
		for (int u = 0; u < CONV_LANES; u++)
			part[u] += v[j + u];
	for (; j < len; j++)
		sum += v[j];
	for (int u = 0; u < CONV_LANES; u++)
		sum += part[u];
	return sum;
}

/* Whether a batch of n goes through Winograd. */
static int wino_for(const struct conv2d *c, size_t n)
{
	return c->wino && n >= c->wino_min;
}

size_t conv2d_scratch(const struct conv2d *c, size_t n)
{
	size_t im = im2col_scratch(c, c->wino && n >= c->wino_min ?
					      c->wino_min - 1 : n);

	if (!wino_for(c, n))
		return im;
	return LG_MAX(im, wino_scratch(c, n));
}

void conv2d_forward(const struct conv2d *c, const float *W, const float *b,
		    const float *x, size_t n, float *y, float *scratch)
{
	if (!n)
		return;
	if (wino_for(c, n))
		wino_forward(c, W, b, x, n, y, scratch);
	else
		im2col_forward(c, W, b, x, n, y, scratch);
}

void conv2d_backward(const struct conv2d *c, const float *W, const float *x,
		     const float *dy, size_t n, float *dW, float *db,
		     float *dx, float *scratch)
{
	size_t P = (size_t)c->oh * c->ow;

	if (!n)
		return;
	for (uint32_t co = 0; co < c->cout; co++) {
		double sum = 0;
		for (size_t s = 0; s < n; s++)
			sum += sum_floats(dy + (s * c->cout + co) * P, P);
		db[co] += (float)sum;
	}
	if (wino_for(c, n))
		wino_backward(c, W, x, dy, n, dW, dx, scratch);
	else
		im2col_backward(c, W, x, dy, n, dW, dx, scratch);
}
