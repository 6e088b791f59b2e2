/*
 * learner/conv.c: a 2-D convolution layer on OpenBLAS, forward and
 * backward over a whole batch (the first piece of the layered networks of
 * docs/learner.md; the MLP does not use it yet).
 *
 * Layout: a sample is planes, row-major: x[n][cin][h][w], y[n][cout][oh]
 * [ow]; weights W[cout][cin][k][k] (row-major, so W is a cout x K matrix,
 * K = cin*k*k) and b[cout].
 *
 * Method: im2col over the whole batch into col[K][n*P] (P = oh*ow output
 * positions; entry (ci,ki,kj ; s,oy,ox) is x[s][ci][oy*stride-pad+ki]
 * [ox*stride-pad+kj], 0 in the padding), then one sgemm
 * Yt[cout][n*P] = W[cout][K] col[K][n*P], then Yt is scattered to the
 * sample-major y with the bias added. One large sgemm instead of n small
 * ones: board games have few output positions (42 for Connect Four), and
 * a per-sample sgemm of N = 42 leaves BLAS far from its peak.
 *
 * Backward: dYt[cout][n*P] gathered from dy; dW += dYt col^T (sgemm,
 * M = cout, N = K, K = n*P); db += row sums of dYt; dcol = W^T dYt
 * (sgemm), then col2im adds dcol back into dx.
 */
#include "learner/learner_internal.h"

#include <cblas.h>
#include <string.h>

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

size_t conv2d_scratch(const struct conv2d *c, size_t n)
{
	size_t K = (size_t)c->cin * c->k * c->k;
	size_t NP = n * (size_t)c->oh * c->ow;

	/* col, and Yt / dYt */
	return K * NP + (size_t)c->cout * NP;
}

void conv2d_forward(const struct conv2d *c, const float *W, const float *b,
		    const float *x, size_t n, float *y, float *scratch)
{
	size_t K = (size_t)c->cin * c->k * c->k, P = (size_t)c->oh * c->ow;
	size_t NP = n * P;
	float *col = scratch, *yt = scratch + K * NP;

	if (!n)
		return;
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

void conv2d_backward(const struct conv2d *c, const float *W, const float *x,
		     const float *dy, size_t n, float *dW, float *db,
		     float *dx, float *scratch)
{
	size_t K = (size_t)c->cin * c->k * c->k, P = (size_t)c->oh * c->ow;
	size_t NP = n * P;
	float *col = scratch, *dyt = scratch + K * NP;

	if (!n)
		return;
	for (size_t s = 0; s < n; s++)
		for (uint32_t co = 0; co < c->cout; co++)
			memcpy(dyt + (size_t)co * NP + s * P,
			       dy + (s * c->cout + co) * P, P * sizeof *dy);
	for (uint32_t co = 0; co < c->cout; co++) {
		double sum = 0;
		const float *r = dyt + (size_t)co * NP;
		for (size_t j = 0; j < NP; j++)
			sum += r[j];
		db[co] += (float)sum;
	}
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
