/*
 * learner/gru.c: a GRU layer on OpenBLAS over a batch of sequences,
 * forward and backward through time: the recurrent core of the nets of
 * docs/learner.md ("Recurrent core").
 *
 * Cell (gates in the order r, z, n; PyTorch's convention):
 *   r  = sigmoid(x Wi_r + bi_r + h Wh_r + bh_r)
 *   z  = sigmoid(x Wi_z + bi_z + h Wh_z + bh_z)
 *   n  = tanh(x Wi_n + bi_n + r * (h Wh_n + bh_n))
 *   h' = (1 - z) * n + z * h
 * Parameters: Wi[in][3H], Wh[H][3H], bi[3H], bh[3H] (row-major), one
 * block: the net's "G" tensor (in + H) x 3H and its "g" bias 6H.
 *
 * Layout: sequence-major, as PPO's chunks lie in its batch: B sequences
 * of T steps, row (b, t) at b*T + t of x[B*T][in] and h[B*T][H] (h of a
 * row is the state after its step). A sequence starts from a stored
 * state: the state before row (b, t) is hs[b*T + t] where t is 0 or
 * start[b*T + t] is set (an episode or another stream begins there: the
 * collector's state at that step), else the previous row's h. So one
 * chunk can hold several episodes, each from its own stored state.
 *
 * Forward: the input projections of all rows in one sgemm; then per step
 * one sgemm prev Wh (B x H x 3H) and the gates. The gates and the
 * recurrent projection's n part are kept (cache) for the backward.
 * Backward: through time from T-1 to 0, one sgemm per step for d prev and
 * one for dWh; then dWi and dx for all rows at once. Gradients reaching a
 * stored state go to dhs (the rows where one was used), nowhere else.
 */
#include "learner/learner_internal.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

size_t gru_params(uint32_t in, uint32_t H)
{
	return (size_t)in * 3 * H + (size_t)H * 3 * H + 6 * (size_t)H;
}

size_t gru_cache(uint32_t H, size_t T, size_t B)
{
	/* gates r z n [B*T][3H], hh_n [B*T][H], the recurrent projection of
	 * one step [B][3H], the state each step started from [T][B][H] */
	return T * B * 3 * H + T * B * H + B * 3 * H + T * B * H;
}

size_t gru_work(uint32_t H, size_t T, size_t B)
{
	return T * B * 3 * H + B * 3 * H + 2 * B * (size_t)H;
}

/* Does row (b, t) start from its stored state? */
static int restarts(const uint8_t *start, size_t T, size_t b, size_t t)
{
	return t == 0 || (start && start[b * T + t]);
}

void gru_forward(uint32_t in, uint32_t H, const float *p, const float *x,
		 const float *hs, const uint8_t *start, size_t T, size_t B,
		 float *h, float *cache)
{
	const float *Wi = p, *Wh = p + (size_t)in * 3 * H;
	const float *bi = Wh + (size_t)H * 3 * H, *bh = bi + 3 * H;
	size_t H3 = 3 * (size_t)H;
	float *g = cache, *hn = g + T * B * H3, *hh = hn + T * B * H;
	float *hp = hh + B * H3;

	if (!T || !B)
		return;
	/* input projections x Wi + bi of every row */
	for (size_t r = 0; r < T * B; r++)
		memcpy(g + r * H3, bi, H3 * sizeof *g);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(T * B),
		    (int)H3, (int)in, 1.0f, x, (int)in, Wi, (int)H3, 1.0f, g,
		    (int)H3);
	for (size_t t = 0; t < T; t++) {
		float *prev = hp + t * B * H;
		for (size_t b = 0; b < B; b++) {
			size_t row = b * T + t;
			const float *src = restarts(start, T, b, t)
						   ? hs + row * H
						   : h + (row - 1) * H;
			memcpy(prev + b * H, src, H * sizeof *prev);
			memcpy(hh + b * H3, bh, H3 * sizeof *hh);
		}
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)B,
			    (int)H3, (int)H, 1.0f, prev, (int)H, Wh, (int)H3,
			    1.0f, hh, (int)H3);
		for (size_t b = 0; b < B; b++) {
			size_t row = b * T + t;
			float *gr = g + row * H3, *gz = gr + H, *gn = gz + H;
			const float *hr = hh + b * H3, *hz = hr + H;
			const float *hnn = hz + H, *hpb = prev + b * H;
			float *out = h + row * H, *keep = hn + row * H;
			/* the gates r, z (gr, gz adjacent), then n, each
			 * one vectorised pass (vmath.c) */
			for (size_t j = 0; j < H; j++) {
				gr[j] += hr[j];
				gz[j] += hz[j];
			}
			nn_expneg_inplace(gr, 2 * (size_t)H);
			for (size_t j = 0; j < 2 * (size_t)H; j++)
				gr[j] = 1.0f / (1.0f + gr[j]);
			for (size_t j = 0; j < H; j++) {
				keep[j] = hnn[j];
				gn[j] += gr[j] * hnn[j];
			}
			nn_tanh_inplace(gn, H);
			for (size_t j = 0; j < H; j++)
				out[j] = (1 - gz[j]) * gn[j] + gz[j] * hpb[j];
		}
	}
}

void gru_backward(uint32_t in, uint32_t H, const float *p, const float *x,
		  const uint8_t *start, size_t T, size_t B, const float *dh,
		  float *dp, float *dx, float *dhs, float *cache, float *work)
{
	const float *Wi = p, *Wh = p + (size_t)in * 3 * H;
	float *dWi = dp, *dWh = dp + (size_t)in * 3 * H;
	float *dbi = dWh + (size_t)H * 3 * H, *dbh = dbi + 3 * H;
	size_t H3 = 3 * (size_t)H;
	float *g = cache, *hn = g + T * B * H3, *hp = hn + T * B * H + B * H3;
	/* work: dXi [B*T][3H], dHh [B][3H], the gradient at each sequence's
	 * current output from later steps [B][H], at its previous [B][H] */
	float *dxi = work, *dhh = dxi + T * B * H3, *run = dhh + B * H3;
	float *nxt = run + B * H;

	if (!T || !B)
		return;
	if (dhs)
		memset(dhs, 0, T * B * H * sizeof *dhs);
	memset(run, 0, B * H * sizeof *run);
	for (size_t t = T; t-- > 0;) {
		const float *prev = hp + t * B * H;
		for (size_t b = 0; b < B; b++) {
			size_t row = b * T + t;
			const float *gr = g + row * H3, *gz = gr + H;
			const float *gn = gz + H, *hnn = hn + row * H;
			const float *d = dh + row * H, *hpb = prev + b * H;
			float *ri = run + b * H, *nx = nxt + b * H;
			float *xr = dxi + row * H3, *xz = xr + H, *xn = xz + H;
			float *hr = dhh + b * H3, *hz = hr + H, *hnd = hz + H;
			for (size_t j = 0; j < H; j++) {
				float r = gr[j], z = gz[j], n = gn[j];
				float dht = d[j] + ri[j];
				float dn = dht * (1 - z) * (1 - n * n);
				float dz = dht * (hpb[j] - n) * z * (1 - z);
				float dr = dn * hnn[j] * r * (1 - r);
				xr[j] = dr;
				xz[j] = dz;
				xn[j] = dn;
				hr[j] = dr;
				hz[j] = dz;
				hnd[j] = dn * r;
				nx[j] = dht * z;
			}
		}
		/* dWh += prev^T dHh; dbh += sum dHh; d prev += dHh Wh^T */
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)H,
			    (int)H3, (int)B, 1.0f, prev, (int)H, dhh, (int)H3,
			    1.0f, dWh, (int)H3);
		for (size_t b = 0; b < B; b++)
			for (size_t j = 0; j < H3; j++)
				dbh[j] += dhh[b * H3 + j];
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)B,
			    (int)H, (int)H3, 1.0f, dhh, (int)H3, Wh, (int)H3,
			    1.0f, nxt, (int)H);
		/* a row that started from its stored state sends the
		 * gradient there, not to the step before */
		for (size_t b = 0; b < B; b++) {
			if (!restarts(start, T, b, t))
				continue;
			if (dhs)
				memcpy(dhs + (b * T + t) * H, nxt + b * H,
				       H * sizeof *dhs);
			memset(nxt + b * H, 0, H * sizeof *nxt);
		}
		memcpy(run, nxt, B * H * sizeof *run);
	}
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)in, (int)H3,
		    (int)(T * B), 1.0f, x, (int)in, dxi, (int)H3, 1.0f, dWi,
		    (int)H3);
	for (size_t r = 0; r < T * B; r++)
		for (size_t j = 0; j < H3; j++)
			dbi[j] += dxi[r * H3 + j];
	if (dx)
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans,
			    (int)(T * B), (int)in, (int)H3, 1.0f, dxi, (int)H3,
			    Wi, (int)H3, 0.0f, dx, (int)in);
}
