/* tests/check_conv.c: the convolutions of learner/conv.c and the nets
 * built on them. The PPO loss's gradient through a convolution torso,
 * residual blocks with per-layer activations, and Winograd layers,
 * against the double-precision reference (tests/learner_fixture.c);
 * conv and residual nets' files (versions 2 and 3) load bit for bit,
 * batch inference equals row by row, bad headers refused; conv2d's
 * forward against its definition, its gradients against central
 * differences, its shapes checked; Winograd's forward and backward
 * against their definitions within a rounding bound, its gradients,
 * small batches, and where the method applies. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learner/learner.h"
#include "learner/learner_internal.h"
#include "learner/ppo_internal.h"
#include "tests/learner_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

/* A convolution torso (2 x 4 x 5 planes; 3 channels, kernel 3, padding
 * 1, then 2 channels, kernel 2, stride 2) under a dense layer. */
START_TEST(gradcheck_conv)
{
	static const uint32_t h[] = { 6 };
	struct nn_shape s = shape3(40, 4, _i ? NN_RELU : NN_TANH, 1, h);

	s.nconv = 2;
	s.planes[0] = 2;
	s.planes[1] = 4;
	s.planes[2] = 5;
	s.conv[0] = (struct nn_conv){ 3, 3, 1, 1, 0, 0 };
	s.conv[1] = (struct nn_conv){ 2, 2, 2, 0, 0, 0 };
	grad_check_shape(&s, 17 + (uint64_t)_i, 0, 0);
}
END_TEST

/* A new net of shape s, saved as file `version` (header bytes
 * `header`), loaded back into *b: the same shape and the same bits. */
static void save_and_load(const struct nn_shape *s, uint64_t seed,
			  uint32_t version, size_t header, nn **a, nn **b,
			  lg_buf *buf)
{
	char err[256];
	size_t np, npb;

	ck_assert_int_eq(nn_new(a, s, seed), 0);
	ck_assert_int_eq(nn_save(*a, buf), 0);
	ck_assert_uint_eq(lg_get_le32(buf->data + 4), version);
	const float *x = nn_params_const(*a, &np);
	ck_assert_uint_eq(buf->len, header + 4 * np);
	ck_assert_msg(nn_load(b, buf->data, buf->len, err, sizeof err) == 0,
		      "%s", err);
	ck_assert(!memcmp(nn_shape_of(*a), nn_shape_of(*b), sizeof *s));
	const float *y = nn_params_const(*b, &npb);
	ck_assert_uint_eq(np, npb);
	ck_assert(!memcmp(x, y, np * sizeof *x));
}

static struct nn_shape conv_shape(void);

/* Residual blocks and per-layer activations: a 3-channel convolution, a
 * residual block of 3 (tanh), another (the net's activation), a strided
 * linear convolution (no activation), then a dense layer with its own
 * activation. */
static struct nn_shape residual_shape(int act)
{
	static const uint32_t h[] = { 6 };
	struct nn_shape s = shape3(40, 4, act, 1, h);

	s.nconv = 4;
	s.planes[0] = 2;
	s.planes[1] = 4;
	s.planes[2] = 5;
	s.conv[0] = (struct nn_conv){ 3, 3, 1, 1, 0, 0 };
	s.conv[1] = (struct nn_conv){ 3, 3, 1, 1, 1, NN_LACT_TANH };
	s.conv[2] = (struct nn_conv){ 3, 1, 1, 0, 1, NN_LACT_NET };
	s.conv[3] = (struct nn_conv){ 2, 2, 2, 0, 0, NN_LACT_NONE };
	s.hidden_act[0] = act == NN_RELU ? NN_LACT_TANH : NN_LACT_RELU;
	return s;
}

START_TEST(gradcheck_residual)
{
	struct nn_shape s = residual_shape(_i ? NN_RELU : NN_TANH);

	grad_check_shape(&s, 29 + (uint64_t)_i, 0, 0);
}
END_TEST

/* The PPO loss's gradient through Winograd convolutions: the torsos of
 * gradcheck_conv (its 3x3 layer) and gradcheck_residual (the plain 3x3
 * layer and the tanh block's two), against the same double-precision
 * reference, which knows nothing of the method. */
START_TEST(gradcheck_wino)
{
	struct nn_shape s;

	if (_i == 0) {
		static const uint32_t h[] = { 6 };
		s = shape3(40, 4, NN_RELU, 1, h);
		s.nconv = 2;
		s.planes[0] = 2;
		s.planes[1] = 4;
		s.planes[2] = 5;
		s.conv[0] = (struct nn_conv){ 3, 3, 1, 1, 0, 0 };
		s.conv[1] = (struct nn_conv){ 2, 2, 2, 0, 0, 0 };
	} else {
		s = residual_shape(NN_RELU);
	}
	wino_force = 1;
	grad_check_shape(&s, 61 + (uint64_t)_i, 0, 0);
	wino_force = 0;
}
END_TEST

/* The residual net: a version 3 file that loads bit for bit, batch
 * inference equal to row by row (the three buffers a skip needs, through
 * both the sgemm and the sgemv paths), and bad version 3 headers
 * refused. */
START_TEST(residual_files_and_inference)
{
	struct nn_shape s = residual_shape(NN_RELU);
	nn *a = NULL, *b = NULL;
	nn_ws *wa = NULL, *wb = NULL;
	lg_buf buf = { 0 };
	char err[256];
	size_t n = 11, np;
	float obs[11 * 40], pa[11 * 4], pb[4], va[11], vb[1];
	uint8_t mask[11 * 4];
	lg_rng r;

	save_and_load(&s, 9, NN_FILE_VERSION3, NN_FILE_HEADER3, &a, &b, &buf);
	nn_params(a, &np);
	/* weights large enough that the skips and activations matter */
	lg_rng_seed(&r, 4);
	float *pw = nn_params(a, &np);
	for (size_t i = 0; i < np; i++)
		pw[i] = (float)(0.5 * lg_rng_normal(&r));
	memcpy(nn_params(b, NULL), pw, np * sizeof *pw);
	for (size_t i = 0; i < n * 40; i++)
		obs[i] = (float)lg_rng_normal(&r);
	for (size_t i = 0; i < n * 4; i++)
		mask[i] = 1;
	ck_assert_int_eq(nn_ws_new(&wa, a, n), 0);
	ck_assert_int_eq(nn_ws_new(&wb, b, 1), 0);
	ck_assert_int_eq(nn_probs(a, wa, obs, mask, n, pa, va), 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(nn_probs(b, wb, obs + i * 40, mask + i * 4, 1,
					  pb, vb), 0);
		for (int k = 0; k < 4; k++)
			ck_assert(fabsf(pa[i * 4 + k] - pb[k]) < 1e-5f);
		ck_assert(fabsf(va[i] - vb[0]) < 1e-4f * (1 + fabsf(vb[0])));
	}
	/* inference (forward_ws: three buffers in turn) against the PPO
	 * forward (shard_run: a buffer per layer), which gradcheck_residual
	 * ties to the double reference: the behaviour log-probabilities and
	 * values inference gives make a minibatch with ratio 1 and no value
	 * error */
	{
		struct ppo_opts po;
		ppo *pp = NULL;
		nn *copy = NULL;
		struct ppo_stats st;
		int32_t act[11];
		float lp[11], adv[11];
		ppo_opts_default(&po);
		po.threads = 1;
		ck_assert_int_eq(nn_clone(&copy, a), 0);
		ck_assert_msg(ppo_new(&pp, copy, &s, &po, 1, err, sizeof err) ==
				      0, "%s", err);
		for (size_t i = 0; i < n; i++) {
			act[i] = (int32_t)(i % 4);
			lp[i] = logf(pa[i * 4 + (size_t)act[i]]);
			adv[i] = (float)lg_rng_normal(&r);
		}
		struct ppo_minibatch mb = { n, obs, mask, act, lp, va, adv, va,
					    NULL, 0, NULL, NULL, NULL,
					    NULL, NULL, NULL, NULL };
		ck_assert_int_eq(ppo_loss_grad(pp, &mb, &st), 0);
		ck_assert_msg(fabs(st.approx_kl) < 1e-6 && st.clip_frac == 0 &&
				      st.value_loss < 1e-9,
			      "kl %g clip %g value loss %g", st.approx_kl,
			      st.clip_frac, st.value_loss);
		ppo_free(pp);
	}
	/* bad version 3 headers: each refused as corrupt, naming why */
	static const struct {
		size_t off;
		uint32_t val;
		const char *why;
	} bad[] = {
		{ 84 + 24 * 1 + 4, 2, "odd" },      /* a block's kernel */
		{ 84 + 24 * 0 + 16, 1, "channels" }, /* 2 planes into 3 */
		{ 84 + 24 * 1 + 20, 9, "activation" },
		{ 84 + 24 * 5 + 16, 1, "beyond nconv" },
		{ 276 + 4 * 1, 1, "beyond nhidden" },
		{ 308, 1, "reserved" },
	};
	for (size_t k = 0; k < LG_ARRAY_LEN(bad); k++) {
		lg_buf c = { 0 };
		nn *no = NULL;
		lg_buf_append(&c, buf.data, buf.len);
		lg_put_le32(c.data + bad[k].off, bad[k].val);
		lg_put_le32(c.data + 312, lg_crc32c(0, c.data, 312));
		ck_assert_int_eq(nn_load(&no, c.data, c.len, err, sizeof err),
				 LG_ECORRUPT);
		ck_assert_msg(strstr(err, bad[k].why), "%zu: %s", k, err);
		lg_buf_free(&c);
	}
	/* a version 3 file of a net that version 2 holds */
	{
		struct nn_shape v2 = conv_shape();
		nn *plain = NULL, *no = NULL;
		lg_buf c = { 0 }, d = { 0 };
		ck_assert_int_eq(nn_new(&plain, &v2, 1), 0);
		ck_assert_int_eq(nn_save(plain, &c), 0);
		/* rewrite its header as version 3 */
		uint8_t h3[NN_FILE_HEADER3] = { 0 };
		memcpy(h3, c.data, 84);
		lg_put_le32(h3 + 4, NN_FILE_VERSION3);
		for (int i = 0; i < 2; i++)
			memcpy(h3 + 84 + 24 * i, c.data + 84 + 16 * i, 16);
		lg_put_le32(h3 + 312, lg_crc32c(0, h3, 312));
		lg_buf_append(&d, h3, sizeof h3);
		lg_buf_append(&d, c.data + NN_FILE_HEADER2,
			      c.len - NN_FILE_HEADER2);
		ck_assert_int_eq(nn_load(&no, d.data, d.len, err, sizeof err),
				 LG_ECORRUPT);
		ck_assert_msg(strstr(err, "version 2 net"), "%s", err);
		nn_free(plain);
		lg_buf_free(&c);
		lg_buf_free(&d);
	}
	nn_ws_free(wa);
	nn_ws_free(wb);
	nn_free(a);
	nn_free(b);
	lg_buf_free(&buf);
}
END_TEST

static struct nn_shape conv_shape(void)
{
	static const uint32_t h[] = { 16 };
	struct nn_shape s = shape3(3 * 6 * 7, 7, NN_RELU, 1, h);

	s.nconv = 2;
	s.planes[0] = 3;
	s.planes[1] = 6;
	s.planes[2] = 7;
	s.conv[0] = (struct nn_conv){ 8, 3, 1, 1, 0, 0 };
	s.conv[1] = (struct nn_conv){ 4, 3, 1, 1, 0, 0 };
	return s;
}

/* A conv net: its file is version 2 and loads bit for bit; inference of
 * a batch equals inference row by row (the sgemv path of small batches)
 * and of the loaded copy; bad version 2 headers are refused. */
START_TEST(conv_net_files_and_inference)
{
	struct nn_shape s = conv_shape();
	nn *a = NULL, *b = NULL;
	nn_ws *wa = NULL, *wb = NULL;
	lg_buf buf = { 0 };
	char err[256];
	size_t n = 13;
	float obs[13 * 126], pa[13 * 7], pb[7], va[13], vb[1];
	uint8_t mask[13 * 7];
	lg_rng r;

	save_and_load(&s, 5, NN_FILE_VERSION2, NN_FILE_HEADER2, &a, &b, &buf);
	lg_rng_seed(&r, 3);
	for (size_t i = 0; i < n * 126; i++)
		obs[i] = (float)(lg_rng_u64(&r) % 3 == 0);
	for (size_t i = 0; i < n * 7; i++)
		mask[i] = i % 7 != 3;
	ck_assert_int_eq(nn_ws_new(&wa, a, n), 0);
	ck_assert_int_eq(nn_ws_new(&wb, b, 1), 0);
	ck_assert_int_eq(nn_probs(a, wa, obs, mask, n, pa, va), 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(nn_probs(b, wb, obs + i * 126, mask + i * 7,
					  1, pb, vb), 0);
		for (int k = 0; k < 7; k++)
			ck_assert(fabsf(pa[i * 7 + k] - pb[k]) < 1e-5f);
		ck_assert(fabsf(va[i] - vb[0]) < 1e-4f * (1 + fabsf(vb[0])));
		ck_assert(pa[i * 7 + 3] == 0.0f);
	}
	/* a ws of the MLP-only shape does not fit the conv net */
	{
		struct nn_shape m = s;
		nn *mlp = NULL;
		nn_ws *wm = NULL;
		m.nconv = 0;
		memset(m.planes, 0, sizeof m.planes);
		memset(m.conv, 0, sizeof m.conv);
		ck_assert_int_eq(nn_new(&mlp, &m, 5), 0);
		ck_assert_int_eq(nn_ws_new(&wm, mlp, 1), 0);
		ck_assert_int_eq(nn_probs(a, wm, obs, mask, 1, pb, vb),
				 LG_EINVAL);
		nn_ws_free(wm);
		nn_free(mlp);
	}
	/* truncated within the longer header; conv set beyond nconv */
	{
		nn *bad = NULL;
		ck_assert_int_eq(nn_load(&bad, buf.data, 100, err, sizeof err),
				 LG_ECORRUPT);
	}
	{
		lg_buf c = { 0 };
		nn *bad = NULL;
		lg_buf_append(&c, buf.data, buf.len);
		lg_put_le32(c.data + 84 + 16 * 3, 5);
		lg_put_le32(c.data + 148, lg_crc32c(0, c.data, 148));
		ck_assert_int_eq(nn_load(&bad, c.data, c.len, err, sizeof err),
				 LG_ECORRUPT);
		ck_assert_msg(strstr(err, "beyond nconv"), "%s", err);
		/* planes that do not multiply to obs */
		lg_put_le32(c.data + 84 + 16 * 3, 0);
		lg_put_le32(c.data + 72, 2);
		lg_put_le32(c.data + 148, lg_crc32c(0, c.data, 148));
		ck_assert_int_eq(nn_load(&bad, c.data, c.len, err, sizeof err),
				 LG_ECORRUPT);
		ck_assert_msg(strstr(err, "planes"), "%s", err);
		lg_buf_free(&c);
	}
	nn_ws_free(wa);
	nn_ws_free(wb);
	nn_free(a);
	nn_free(b);
	lg_buf_free(&buf);
}
END_TEST

/* ---- conv2d ---------------------------------------------------------- */

static const struct {
	uint32_t cin, h, w, cout, k, stride, pad;
} conv_cases[] = {
	{ 3, 6, 7, 8, 3, 1, 1 },  /* Connect Four planes, same size out */
	{ 2, 5, 4, 3, 3, 2, 0 },  /* stride 2, no padding */
	{ 4, 3, 3, 5, 1, 1, 0 },  /* 1x1 */
	{ 1, 2, 3, 2, 5, 1, 2 },  /* a kernel wider than the planes */
	{ 2, 7, 6, 3, 2, 3, 1 },  /* stride larger than the kernel */
};

static void conv_case(size_t i, struct conv2d *c)
{
	char err[200];

	ck_assert_msg(conv2d_init(c, conv_cases[i].cin, conv_cases[i].h,
				  conv_cases[i].w, conv_cases[i].cout,
				  conv_cases[i].k, conv_cases[i].stride,
				  conv_cases[i].pad, err, sizeof err) == 0,
		      "%s", err);
}


/* The definition, in double: y[s][co][oy][ox] = b[co] + sum over ci, ki,
 * kj inside the planes of W[co][ci][ki][kj] x[s][ci][iy][ix]. */
static double conv_direct(const struct conv2d *c, const float *W,
			  const float *b, const float *x, size_t s, uint32_t co,
			  uint32_t oy, uint32_t ox)
{
	double v = b[co];

	for (uint32_t ci = 0; ci < c->cin; ci++)
		for (uint32_t ki = 0; ki < c->k; ki++)
			for (uint32_t kj = 0; kj < c->k; kj++) {
				long iy = (long)oy * c->stride - c->pad + ki;
				long ix = (long)ox * c->stride - c->pad + kj;
				if (iy < 0 || ix < 0 || iy >= (long)c->h ||
				    ix >= (long)c->w)
					continue;
				v += (double)W[((co * c->cin + ci) * c->k + ki) *
						       c->k +
					       kj] *
				     x[((s * c->cin + ci) * c->h + (size_t)iy) *
					       c->w +
				       (size_t)ix];
			}
	return v;
}

START_TEST(conv_forward_is_the_definition)
{
	struct conv2d c;
	struct conv_bufs B;
	lg_rng r;
	size_t n = 5;

	conv_case((size_t)_i, &c);
	lg_rng_seed(&r, 11 + (uint64_t)_i);
	conv_bufs_open(&B, &c, n, &r, CONV_FILL_B);
	const float *W = B.W, *b = B.b, *x = B.x, *y = B.y;
	conv2d_forward(&c, B.W, B.b, B.x, n, B.y, B.sc);
	for (size_t s = 0; s < n; s++)
		for (uint32_t co = 0; co < c.cout; co++)
			for (uint32_t oy = 0; oy < c.oh; oy++)
				for (uint32_t ox = 0; ox < c.ow; ox++) {
					double want = conv_direct(&c, W, b, x, s,
								  co, oy, ox);
					float got = y[((s * c.cout + co) * c.oh +
						       oy) * c.ow + ox];
					ck_assert_msg(fabs(got - want) <=
							      1e-4 * (1 + fabs(want)),
						      "case %d y[%zu][%u][%u][%u] "
						      "%g, want %g", _i, s, co,
						      oy, ox, got, want);
				}
	conv_bufs_close(&B);
}
END_TEST

/* L = sum(y * g) for a fixed random g (conv_bufs_loss); central
 * differences of L against the backward pass. L is linear in each of W,
 * b and x, so a central difference is exact but for float rounding: of L
 * (|L| ~ 10, float: ~1e-6) over 2 eps (0.02), ~1e-4. */
START_TEST(conv_gradients_match_differences)
{
	struct conv2d c;
	struct conv_bufs B;
	lg_rng r;
	size_t n = 3;

	conv_case((size_t)_i, &c);
	lg_rng_seed(&r, 23 + (uint64_t)_i);
	conv_bufs_open(&B, &c, n, &r, CONV_FILL_B | CONV_FILL_G);
	conv2d_backward(&c, B.W, B.x, B.g, n, B.dW, B.db, B.dx, B.sc);
	grad_vs_differences(B.W, B.nw, 1, B.dW, 0.01f, 2e-3, 2e-3,
			    conv_bufs_loss, &B, "dW");
	grad_vs_differences(B.b, c.cout, 1, B.db, 0.01f, 2e-3, 2e-3,
			    conv_bufs_loss, &B, "db");
	grad_vs_differences(B.x, B.nx, 1, B.dx, 0.01f, 2e-3, 2e-3,
			    conv_bufs_loss, &B, "dx");
	/* dW and db accumulate; dx is overwritten */
	float w0 = B.dW[0], b0 = B.db[0], x0 = B.dx[0];
	conv2d_backward(&c, B.W, B.x, B.g, n, B.dW, B.db, B.dx, B.sc);
	ck_assert(fabsf(B.dW[0] - 2 * w0) <= 1e-4f * (1 + fabsf(w0)));
	ck_assert(fabsf(B.db[0] - 2 * b0) <= 1e-4f * (1 + fabsf(b0)));
	ck_assert(B.dx[0] == x0);
	conv_bufs_close(&B);
}
END_TEST

START_TEST(conv_shapes_checked)
{
	struct conv2d c;
	char err[200];

	ck_assert_int_eq(conv2d_init(&c, 3, 6, 7, 16, 3, 1, 1, err,
				     sizeof err), 0);
	ck_assert_uint_eq(c.oh, 6);
	ck_assert_uint_eq(c.ow, 7);
	ck_assert_int_eq(conv2d_init(&c, 3, 6, 7, 16, 3, 2, 0, err,
				     sizeof err), 0);
	ck_assert_uint_eq(c.oh, 2);
	ck_assert_uint_eq(c.ow, 3);
	ck_assert_int_eq(conv2d_init(&c, 0, 6, 7, 16, 3, 1, 1, err,
				     sizeof err), LG_EINVAL);
	ck_assert_int_eq(conv2d_init(&c, 3, 2, 2, 16, 5, 1, 0, err,
				     sizeof err), LG_EINVAL);
	ck_assert_msg(strstr(err, "does not fit"), "%s", err);
	ck_assert_int_eq(conv2d_init(&c, 3, 6, 7, 16, 3, 0, 1, err,
				     sizeof err), LG_EINVAL);
	ck_assert_int_eq(conv2d_init(&c, 65536, 64, 64, 65536, 3, 1, 1, err,
				     sizeof err), LG_ERANGE);
	/* few parameters, but im2col columns of 64 x 64 x 129 x 129 floats
	 * for one 1 x 1 plane */
	ck_assert_int_eq(conv2d_init(&c, 1, 1, 1, 1, 64, 1, 64, err,
				     sizeof err), LG_ERANGE);
}
END_TEST

/* ---- conv2d by Winograd ---------------------------------------------- */

/* 3x3 kernels of stride 1, the method forced (1: the tile conv2d_init
 * would choose; 2..4: that tile both ways): odd planes, one to three
 * input channels, output channels of no particular multiple, batches of
 * 1 and 7, no padding and padding 2, and 70 samples (two chunks, the
 * second's lanes partly spare). */
static const struct {
	uint32_t cin, h, w, cout, pad;
	int m;
	size_t n;
} wino_cases[] = {
	{ 3, 6, 7, 5, 1, 1, 7 },  /* Connect Four: 3 x 4 tiles */
	{ 1, 5, 5, 3, 1, 2, 1 },  /* F(2x2) */
	{ 2, 7, 9, 7, 1, 4, 7 },  /* F(4x4), odd both ways */
	{ 3, 3, 3, 2, 1, 3, 1 },  /* tic-tac-toe, one F(3x3) tile */
	{ 2, 4, 6, 5, 0, 2, 7 },  /* no padding */
	{ 1, 6, 7, 3, 2, 1, 7 },  /* padding 2: 8 x 9 out */
	{ 3, 9, 4, 11, 1, 3, 1 },
	{ 2, 6, 7, 3, 1, 1, 70 }, /* two chunks */
};

static void wino_case(size_t i, struct conv2d *c)
{
	char err[200];

	ck_assert_msg(conv2d_init(c, wino_cases[i].cin, wino_cases[i].h,
				  wino_cases[i].w, wino_cases[i].cout, 3, 1,
				  wino_cases[i].pad, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(conv2d_set_method(c, wino_cases[i].m), 0);
	ck_assert(c->wino);
}

/* The rounding error's bound. Every entry Winograd computes is a sum of
 * products of two operands (kernel and input for y, dy and input for dW,
 * dy and kernel for dx) through the transforms; its exact value is what
 * the definition sums, the rest cancels. Done in floats, each product
 * term goes through at most N roundings, so (the usual forward error
 * analysis) the error is at most gamma_N = N u / (1 - N u), u = 2^-24,
 * times the same computation on absolute values of every matrix entry
 * and operand. In one direction that absolute computation weighs the
 * pair (operand a at t, operand b at r) of one tile by sum_i |AT(p, i)|
 * |G(i, t)| |BT(i, r)| <= kappa_m (the largest over p, t, r), so it is at
 * most kappa_mh kappa_mw (sum of |a| over its tile) (sum of |b| over
 * its tile), summed over the channels and tiles that meet in the entry.
 * N counts the longest chain: the kernel's transform (7, G's entries
 * rounded to floats too), the input's and output's transforms (a terms
 * each way, twice) and the sgemm's sums (cin, cout, or the batch's
 * tiles for dW), with some slack. For Connect Four's tiles kappa is
 * about 10, so the bound is near 1e-5 of the absolute sums; the errors
 * seen are far below it, and a wrong matrix entry far above. */
static double wino_kappa(uint32_t m)
{
	const float *bt, *g, *at;
	uint32_t a = m + 2;
	double most = 0;

	ck_assert_int_eq(conv2d_wino_matrices(m, &bt, &g, &at), 0);
	for (uint32_t p = 0; p < m; p++)
		for (uint32_t t = 0; t < 3; t++)
			for (uint32_t r = 0; r < a; r++) {
				double k = 0;
				for (uint32_t i = 0; i < a; i++)
					k += fabs(at[p * a + i]) *
					     fabs(g[i * 3 + t]) *
					     fabs(bt[i * a + r]);
				most = k > most ? k : most;
			}
	return most;
}

static double wino_gamma(const struct conv2d *c, size_t n)
{
	double N = c->cin + c->cout + (double)n * c->th * c->tw +
		   2.0 * (c->ah + c->aw) + 16, u = ldexp(1, -24);

	return N * u / (1 - N * u) * wino_kappa(c->mh) * wino_kappa(c->mw);
}

/* Sum of |v| over one plane's input tile (ty, tx) (plane h x w, padded
 * by pad), or over an output tile when in is 0 (plane oh x ow). */
static double tile_abs(const struct conv2d *c, const float *v, uint32_t ty,
		       uint32_t tx, int in)
{
	uint32_t h = in ? c->h : c->oh, w = in ? c->w : c->ow;
	long y0 = (long)ty * c->mh - (in ? (long)c->pad : 0);
	long x0 = (long)tx * c->mw - (in ? (long)c->pad : 0);
	uint32_t th = in ? c->ah : c->mh, tw = in ? c->aw : c->mw;
	double sum = 0;

	for (long y = y0; y < y0 + th; y++)
		for (long x = x0; x < x0 + tw; x++)
			if (y >= 0 && x >= 0 && y < (long)h && x < (long)w)
				sum += fabs(v[y * w + x]);
	return sum;
}

static double kernel_abs(const float *g)
{
	double sum = 0;

	for (int t = 0; t < 9; t++)
		sum += fabs(g[t]);
	return sum;
}

/* The bound on y[s][co][oy][ox]: the kernel's and the input tile's
 * absolute sums over the input channels. */
static double wino_y_bound(const struct conv2d *c, const float *W,
			   const float *x, size_t s, uint32_t co, uint32_t oy,
			   uint32_t ox)
{
	size_t plane = (size_t)c->h * c->w;
	double sum = 0;

	for (uint32_t ci = 0; ci < c->cin; ci++)
		sum += kernel_abs(W + (co * c->cin + ci) * 9) *
		       tile_abs(c, x + (s * c->cin + ci) * plane, oy / c->mh,
				ox / c->mw, 1);
	return sum;
}

/* dW[co][ci][t] of one sample's planes dy (output) and x (input), by
 * the definition; *bound += its share of the rounding bound. */
static double wino_dw_def(const struct conv2d *c, const float *dy,
			  const float *x, int t, double *bound)
{
	double want = 0;

	for (uint32_t oy = 0; oy < c->oh; oy++)
		for (uint32_t ox = 0; ox < c->ow; ox++) {
			long iy = (long)oy - c->pad + t / 3;
			long ix = (long)ox - c->pad + t % 3;
			if (iy < 0 || ix < 0 || iy >= (long)c->h ||
			    ix >= (long)c->w)
				continue;
			want += (double)dy[oy * c->ow + ox] *
				x[iy * (long)c->w + ix];
		}
	for (uint32_t ty = 0; ty < c->th; ty++)
		for (uint32_t tx = 0; tx < c->tw; tx++)
			*bound += tile_abs(c, dy, ty, tx, 0) *
				  tile_abs(c, x, ty, tx, 1);
	return want;
}

/* dx at (iy, ix) from one output channel's plane dy and its kernel g, by
 * the definition; *bound += its share: every tile whose input reads x
 * there. */
static double wino_dx_def(const struct conv2d *c, const float *dy,
			  const float *g, uint32_t iy, uint32_t ix,
			  double *bound)
{
	double want = 0;

	for (int t = 0; t < 9; t++) {
		long oy = (long)iy + c->pad - t / 3;
		long ox = (long)ix + c->pad - t % 3;
		if (oy >= 0 && ox >= 0 && oy < (long)c->oh &&
		    ox < (long)c->ow)
			want += (double)dy[oy * (long)c->ow + ox] * g[t];
	}
	for (uint32_t ty = 0; ty < c->th; ty++)
		for (uint32_t tx = 0; tx < c->tw; tx++) {
			long py = (long)iy + c->pad - (long)(ty * c->mh);
			long px = (long)ix + c->pad - (long)(tx * c->mw);
			if (py >= 0 && px >= 0 && py < (long)c->ah &&
			    px < (long)c->aw)
				*bound += tile_abs(c, dy, ty, tx, 0) *
					  kernel_abs(g);
		}
	return want;
}

START_TEST(wino_forward_is_the_definition)
{
	struct conv2d c;
	struct conv_bufs B;
	lg_rng r;

	wino_case((size_t)_i, &c);
	size_t n = wino_cases[_i].n;
	lg_rng_seed(&r, 31 + (uint64_t)_i);
	size_t P = (size_t)c.oh * c.ow;
	double gam = wino_gamma(&c, n), worst = 0;
	conv_bufs_open(&B, &c, n, &r, CONV_FILL_B);
	const float *W = B.W, *b = B.b, *x = B.x, *y = B.y;
	conv2d_forward(&c, B.W, B.b, B.x, n, B.y, B.sc);
	for (size_t i = 0; i < B.ny; i++) {
		size_t s = i / (c.cout * P), q = i % P;
		uint32_t co = (uint32_t)(i / P % c.cout);
		uint32_t oy = (uint32_t)(q / c.ow), ox = (uint32_t)(q % c.ow);
		double want = conv_direct(&c, W, b, x, s, co, oy, ox);
		double bound = gam * (wino_y_bound(&c, W, x, s, co, oy, ox) +
				      fabs(b[co]));
		ck_assert_msg(fabs(y[i] - want) <= bound,
			      "case %d y[%zu][%u][%u][%u] %g, want %g (bound "
			      "%g)", _i, s, co, oy, ox, y[i], want, bound);
		worst = fmax(worst, fabs(y[i] - want) / bound);
	}
	/* the bound is not vacuous: a tenth of it would still hold */
	ck_assert_msg(worst < 0.1, "case %d: error up to %.3f of the bound",
		      _i, worst);
	conv_bufs_close(&B);
}
END_TEST

/* dW, db and dx against their definitions in double, within the bound
 * above. */
START_TEST(wino_backward_is_the_definition)
{
	struct conv2d c;
	struct conv_bufs B;
	lg_rng r;

	wino_case((size_t)_i, &c);
	size_t n = wino_cases[_i].n;
	lg_rng_seed(&r, 41 + (uint64_t)_i);
	size_t P = (size_t)c.oh * c.ow, plane = (size_t)c.h * c.w;
	double gam = wino_gamma(&c, n);
	conv_bufs_open(&B, &c, n, &r, CONV_FILL_G);
	size_t nw = B.nw, nx = B.nx;
	const float *W = B.W, *x = B.x, *g = B.g, *dx = B.dx, *dW = B.dW;
	const float *db = B.db;
	conv2d_backward(&c, B.W, B.x, B.g, n, B.dW, B.db, B.dx, B.sc);
	for (uint32_t co = 0; co < c.cout; co++) {
		double want = 0, abs = 0;
		for (size_t s = 0; s < n; s++)
			for (size_t q = 0; q < P; q++) {
				want += g[(s * c.cout + co) * P + q];
				abs += fabs(g[(s * c.cout + co) * P + q]);
			}
		ck_assert_msg(fabs(db[co] - want) <= 1e-6 * abs,
			      "case %d db[%u] %g, want %g", _i, co, db[co],
			      want);
	}
	for (size_t i = 0; i < nw; i++) {
		uint32_t co = (uint32_t)(i / 9 / c.cin);
		uint32_t ci = (uint32_t)(i / 9 % c.cin);
		double want = 0, bound = 0;
		for (size_t s = 0; s < n; s++)
			want += wino_dw_def(&c, g + (s * c.cout + co) * P,
					    x + (s * c.cin + ci) * plane,
					    (int)(i % 9), &bound);
		ck_assert_msg(fabs(dW[i] - want) <= gam * bound,
			      "case %d dW[%u][%u][%zu] %g, want %g (bound %g)",
			      _i, co, ci, i % 9, dW[i], want, gam * bound);
	}
	for (size_t i = 0; i < nx; i++) {
		size_t s = i / (c.cin * plane), q = i % plane;
		uint32_t ci = (uint32_t)(i / plane % c.cin);
		uint32_t iy = (uint32_t)(q / c.w), ix = (uint32_t)(q % c.w);
		double want = 0, bound = 0;
		for (uint32_t co = 0; co < c.cout; co++)
			want += wino_dx_def(&c, g + (s * c.cout + co) * P,
					    W + (co * c.cin + ci) * 9, iy, ix,
					    &bound);
		ck_assert_msg(fabs(dx[i] - want) <= gam * bound,
			      "case %d dx[%zu][%u][%u][%u] %g, want %g (bound "
			      "%g)", _i, s, ci, iy, ix, dx[i], want,
			      gam * bound);
	}
	conv_bufs_close(&B);
}
END_TEST

/* Central differences of L = sum(y g) against the backward. L is linear
 * in each entry, so the difference is exact but for rounding whatever
 * the step; a step of 0.5 keeps L's rounding (|L| ~ 10-100, float
 * Winograd ~1e-5 of it) well under the tolerance. Every W and b entry,
 * and x entries spread over the batch (at most about 300). */
START_TEST(wino_gradients_match_differences)
{
	struct conv2d c;
	struct conv_bufs B;
	lg_rng r;
	const float eps = 0.5f;

	wino_case((size_t)_i, &c);
	size_t n = wino_cases[_i].n;
	lg_rng_seed(&r, 53 + (uint64_t)_i);
	conv_bufs_open(&B, &c, n, &r, CONV_FILL_B | CONV_FILL_G);
	conv2d_backward(&c, B.W, B.x, B.g, n, B.dW, B.db, B.dx, B.sc);
	const struct {
		float *v, *grad;
		size_t len, step;
		const char *what;
	} t[3] = {
		{ B.W, B.dW, B.nw, 1, "dW" },
		{ B.b, B.db, c.cout, 1, "db" },
		{ B.x, B.dx, B.nx, B.nx / 300 + 1, "dx" },
	};
	for (int k = 0; k < 3; k++) {
		char what[32];
		snprintf(what, sizeof what, "case %d %s", _i, t[k].what);
		grad_vs_differences(t[k].v, t[k].len, t[k].step, t[k].grad,
				    eps, 1e-3, 1e-3, conv_bufs_loss, &B, what);
	}
	conv_bufs_close(&B);
}
END_TEST

/* A Winograd layer as conv2d_init leaves it: batches under 8 go through
 * im2col, larger ones through Winograd, on one scratch sized for the
 * largest; the same sample's output agrees across (Connect Four's 16 ->
 * 16 layer, 9 samples, against each one alone). */
START_TEST(wino_small_batches_match)
{
	struct conv2d c;
	char err[200];
	lg_rng r;
	size_t n = 9, in = 16 * 42, out = 16 * 42;

	ck_assert_int_eq(conv2d_init(&c, 16, 6, 7, 16, 3, 1, 1, err,
				     sizeof err), 0);
	ck_assert(c.wino && c.wino_min > 1 && c.wino_min <= n);
	lg_rng_seed(&r, 71);
	float *W = malloc(16 * 16 * 9 * sizeof *W), b[16];
	float *x = malloc(n * in * sizeof *x), *y = malloc(n * out * sizeof *y);
	float one[16 * 42];
	float *sc = malloc(conv2d_scratch(&c, n) * sizeof *sc);
	fill_normal(W, 16 * 16 * 9, &r);
	fill_normal(b, 16, &r);
	fill_normal(x, n * in, &r);
	ck_assert(conv2d_scratch(&c, 1) <= conv2d_scratch(&c, n));
	conv2d_forward(&c, W, b, x, n, y, sc);
	for (size_t s = 0; s < n; s++) {
		conv2d_forward(&c, W, b, x + s * in, 1, one, sc);
		for (size_t i = 0; i < out; i++)
			ck_assert_msg(fabsf(one[i] - y[s * out + i]) <=
					      1e-4f * (1 + fabsf(one[i])),
				      "sample %zu [%zu]: alone %g, in the "
				      "batch %g", s, i, one[i], y[s * out + i]);
	}
	free(W);
	free(x);
	free(y);
	free(sc);
}
END_TEST

/* The method's choice: Winograd for Connect Four's 64-channel layers,
 * im2col for its 3-plane input, other kernels and strides; set_method
 * refuses Winograd where it does not apply. */
START_TEST(wino_where_it_applies)
{
	struct conv2d c;
	char err[200];

	ck_assert_int_eq(conv2d_init(&c, 64, 6, 7, 64, 3, 1, 1, err,
				     sizeof err), 0);
	ck_assert(c.wino && c.mh == 3 && c.mw == 4 && c.th == 2 &&
		  c.tw == 2 && c.wino_min == 8);
	ck_assert_int_eq(conv2d_set_method(&c, 1), 0);
	ck_assert(c.wino && c.wino_min == 1);
	ck_assert_int_eq(conv2d_init(&c, 3, 6, 7, 64, 3, 1, 1, err,
				     sizeof err), 0);
	ck_assert(!c.wino);
	ck_assert_int_eq(conv2d_init(&c, 64, 6, 7, 64, 3, 2, 1, err,
				     sizeof err), 0);
	ck_assert(!c.wino);
	ck_assert_int_eq(conv2d_set_method(&c, 1), LG_EINVAL);
	ck_assert_int_eq(conv2d_init(&c, 64, 6, 7, 64, 5, 1, 2, err,
				     sizeof err), 0);
	ck_assert(!c.wino);
	ck_assert_int_eq(conv2d_set_method(&c, 2), LG_EINVAL);
	/* a 1 x 1 output: 16 multiplies against 9 */
	ck_assert_int_eq(conv2d_init(&c, 64, 3, 3, 64, 3, 1, 0, err,
				     sizeof err), 0);
	ck_assert(!c.wino);
	ck_assert_int_eq(conv2d_set_method(&c, 5), LG_EINVAL);
	ck_assert_int_eq(conv2d_set_method(&c, 0), 0);
	ck_assert(!c.wino);
}
END_TEST

Suite *suite_conv(void)
{
	Suite *s = suite_create("conv");
	const struct tu_test net_tests[] = {
		{ gradcheck_conv, 2 },
		{ gradcheck_residual, 2 },
		{ gradcheck_wino, 2 },
		{ conv_net_files_and_inference, 1 },
		{ residual_files_and_inference, 1 },
	};
	const struct tu_test conv2d_tests[] = {
		{ conv_forward_is_the_definition,
		  (int)LG_ARRAY_LEN(conv_cases) },
		{ conv_gradients_match_differences,
		  (int)LG_ARRAY_LEN(conv_cases) },
		{ conv_shapes_checked, 1 },
	};
	const struct tu_test winograd_tests[] = {
		{ wino_forward_is_the_definition,
		  (int)LG_ARRAY_LEN(wino_cases) },
		{ wino_backward_is_the_definition,
		  (int)LG_ARRAY_LEN(wino_cases) },
		{ wino_gradients_match_differences,
		  (int)LG_ARRAY_LEN(wino_cases) },
		{ wino_where_it_applies, 1 },
		{ wino_small_batches_match, 1 },
	};

	TU_TCASE(s, "net", 60, net_tests);
	TU_TCASE(s, "conv2d", 60, conv2d_tests);
	TU_TCASE(s, "winograd", 60, winograd_tests);
	return s;
}
