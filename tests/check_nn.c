/* tests/check_nn.c: the net of learner/nn.c and its files
 * (learner/nnfile.c). vmath.c's vector tanh and exp(-x) against the
 * double ones; a finite-difference gradient check of every parameter
 * tensor of an MLP (both activations, the magnet's KL term, AlphaZero's
 * search term, a head without hidden layers) against the
 * double-precision reference of the PPO loss (tests/learner_fixture.c:
 * masks with illegal actions, clipped ratios and value clipping active);
 * inference sampling matches the masked softmax, greedy play, small
 * batches match large; deterministic init and shape caps; bit-exact
 * save/load; truncated and corrupt files. */
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

/* nn_tanh_inplace (learner/vmath.c, glibc's vector tanhf where the
 * build has it): within 4 float ulp of the double tanh on a dense grid
 * over [-20, 20] and at the edges (tiny and subnormal inputs keep their
 * value, large ones saturate to +-1 exactly, infinities too), odd, and
 * NaN stays NaN. A length not a multiple of the vector width takes the
 * tail too. */
START_TEST(vector_tanh)
{
	enum { N = 400001 };
	float *y = malloc(N * sizeof *y), edge[] = {
		0.0f, -0.0f, 1e-30f, -1e-30f, 1e-40f, 1e-7f, 0.5f, 9.0f,
		10.0f, 88.0f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN };
	size_t ne = sizeof edge / sizeof edge[0];
	double worst = 0;

	ck_assert_ptr_nonnull(y);
	for (size_t i = 0; i < N; i++)
		y[i] = (float)(-20.0 + 40.0 * (double)i / (N - 1));
	nn_tanh_inplace(y, N);
	for (size_t i = 0; i < N; i++) {
		float x = (float)(-20.0 + 40.0 * (double)i / (N - 1));
		double t = tanh((double)x);
		double ulp = nextafterf((float)fabs(t), INFINITY) - fabs(t);
		double e = fabs(y[i] - t) / ulp;
		worst = e > worst ? e : worst;
		ck_assert_msg(e <= 4, "tanh(%.9g) = %.9g, want %.9g", x, y[i],
			      t);
		if (i < N / 2) /* odd: y[i] and y[N-1-i] are x and -x */
			ck_assert_float_eq(y[i], -y[N - 1 - i]);
	}
	memcpy(y, edge, sizeof edge);
	nn_tanh_inplace(y, ne);
	for (size_t i = 0; i + 1 < ne; i++) {
		double t = tanh((double)edge[i]);
		if (fabs(edge[i]) < 1e-7f)
			ck_assert_float_eq(y[i], edge[i]);
		else if (fabs(edge[i]) >= 10)
			ck_assert_float_eq(y[i], edge[i] > 0 ? 1.0f : -1.0f);
		else
			ck_assert_double_le(fabs(y[i] - t), 4 * 6e-8 * fabs(t));
	}
	ck_assert(isnan(y[ne - 1]));
	free(y);
	ck_assert_double_le(worst, 4);
}
END_TEST

/* The recurrent core's gates: exp(-x) by vmath.c's vector expf within 4
 * ulp of the double exp across [-80, 80], exactly 1 at 0, overflow to
 * infinity and underflow to 0 as expf does, NaN kept. */
START_TEST(vector_expneg)
{
	enum { N = 400001 };
	float *y = malloc(N * sizeof *y), edge[] = { 0.0f, -120.0f, -1e30f,
		-INFINITY, 120.0f, 1e30f, INFINITY, NAN };
	const float want[] = { 1, INFINITY, INFINITY, INFINITY, 0, 0, 0 };

	ck_assert_ptr_nonnull(y);
	for (size_t i = 0; i < N; i++)
		y[i] = (float)(-80.0 + 160.0 * (double)i / (N - 1));
	nn_expneg_inplace(y, N);
	for (size_t i = 0; i < N; i++) {
		float x = (float)(-80.0 + 160.0 * (double)i / (N - 1));
		double e = exp(-(double)x);
		double ulp = nextafterf((float)e, INFINITY) - (float)e;
		ck_assert_msg(fabs(y[i] - e) <= 4 * ulp,
			      "exp(-%.9g) = %.9g, want %.9g", x, y[i], e);
	}
	nn_expneg_inplace(edge, 8);
	for (size_t i = 0; i < 7; i++)
		ck_assert_float_eq(edge[i], want[i]);
	ck_assert(isnan(edge[7]));
	free(y);
}
END_TEST

START_TEST(gradcheck_tanh)
{
	grad_check(NN_TANH, 11, 0);
}
END_TEST

START_TEST(gradcheck_magnet)
{
	/* the KL(pi || magnet) term of magnetic mirror descent */
	grad_check(NN_TANH, 13, 0.4);
}
END_TEST

/* AlphaZero's loss: the cross-entropy to a search's visit shares
 * (policy_coef 0.8) beside the clipped surrogate (pg_coef 0.4), through
 * an MLP of each activation and the convolution torso of gradcheck_conv,
 * against the reference. The term's gradient with its sign flipped fails
 * it (checked by hand: tanh W0[0] analytic -0.025, numeric -0.011). */
START_TEST(gradcheck_search)
{
	static const uint32_t h[] = { 6 };
	struct nn_shape s = shape3(40, 4, NN_RELU, 1, h);

	s.nconv = 2;
	s.planes[0] = 2;
	s.planes[1] = 4;
	s.planes[2] = 5;
	s.conv[0] = (struct nn_conv){ 3, 3, 1, 1, 0, 0 };
	s.conv[1] = (struct nn_conv){ 2, 2, 2, 0, 0, 0 };
	search_force = 1;
	grad_check(NN_TANH, 11, 0);
	grad_check(NN_RELU, 12, 0.3);
	grad_check_shape(&s, 73, 0, 0);
	search_force = 0;
}
END_TEST

START_TEST(gradcheck_relu)
{
	grad_check(NN_RELU, 12, 0);
}
END_TEST

START_TEST(gradcheck_linear_policy)
{
	/* no hidden layer: the head reads the observation directly */
	struct nn_shape s = shape3(3, 3, NN_TANH, 0, NULL);
	struct ppo_opts o;
	struct ppo_stats st;
	struct refbatch b;
	struct ppo_minibatch mb;
	ppo *p = NULL;
	size_t np;
	float *pf;
	const float *g;
	double *pd;

	ppo_opts_default(&o);
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 3, NULL, 0), 0);
	pf = nn_params(ppo_net(p), &np);
	ck_assert_uint_eq(np, 3 * 4 + 4);
	for (size_t i = 0; i < np; i++)
		pf[i] = (float)sin((double)i);
	refbatch_make(&b, ppo_net(p), 6, 5);
	mb = (struct ppo_minibatch){ b.n, b.obs, b.mask, b.action, b.logp,
				     b.value, b.adv, b.ret, NULL,
				     0, NULL, NULL, NULL, NULL, NULL,
				     NULL, NULL };
	ck_assert_int_eq(ppo_loss_grad(p, &mb, &st), 0);
	g = ppo_grad(p, NULL);
	pd = malloc(np * sizeof *pd);
	for (size_t i = 0; i < np; i++)
		pd[i] = pf[i];
	for (size_t i = 0; i < np; i++) {
		double lp, lm, num;
		pd[i] = (double)pf[i] + 1e-6;
		lp = ref_loss(ppo_net(p), pd, &o, &b);
		pd[i] = (double)pf[i] - 1e-6;
		lm = ref_loss(ppo_net(p), pd, &o, &b);
		pd[i] = pf[i];
		num = (lp - lm) / 2e-6;
		ck_assert_msg(fabs(num - g[i]) <= 2e-5 + 1e-3 * fabs(num),
			      "param %zu analytic %g numeric %g", i, g[i], num);
	}
	free(pd);
	refbatch_free(&b);
	ppo_free(p);
}
END_TEST

/* ---- inference ---------------------------------------------------------- */

/* Greedy play: each row's most probable legal action by nn_probs (the
 * first of equals), its log-probability and value; a row with one legal
 * action takes it with log-probability 0. */
START_TEST(greedy_takes_the_most_probable_legal_action)
{
	static const uint32_t h[] = { 12 };
	struct nn_shape s = shape3(4, 5, NN_RELU, 1, h);
	enum { N = 64 };
	float obs[N * 4], probs[N * 5], val[N], logp[N], v2[N];
	uint8_t mask[N * 5];
	int32_t act[N];
	nn *n = NULL;
	nn_ws *ws = NULL;
	size_t np;
	float *pf;
	lg_rng r;

	ck_assert_int_eq(nn_new(&n, &s, 5), 0);
	pf = nn_params(n, &np);
	lg_rng_seed(&r, 9);
	for (size_t i = 0; i < np; i++)
		pf[i] = (float)lg_rng_normal(&r);
	for (size_t i = 0; i < N; i++) {
		int legal = 0;
		for (int j = 0; j < 4; j++)
			obs[i * 4 + j] = (float)lg_rng_normal(&r);
		for (int a = 0; a < 5; a++)
			legal += mask[i * 5 + a] = lg_rng_float(&r) < 0.6f;
		if (!legal || i == 0) { /* row 0: one legal action */
			memset(mask + i * 5, 0, 5);
			mask[i * 5 + (i % 5)] = 1;
		}
	}
	ck_assert_int_eq(nn_ws_new(&ws, n, N), 0);
	ck_assert_int_eq(nn_probs(n, ws, obs, mask, N, probs, val), 0);
	ck_assert_int_eq(nn_greedy_state(n, ws, obs, mask, N, NULL, act, logp,
					 v2), 0);
	for (size_t i = 0; i < N; i++) {
		int best = -1;
		for (int a = 0; a < 5; a++)
			if (mask[i * 5 + a] &&
			    (best < 0 || probs[i * 5 + a] > probs[i * 5 + best]))
				best = a;
		ck_assert_int_eq(act[i], best);
		ck_assert_double_eq_tol(logp[i], logf(probs[i * 5 + best]),
					1e-5);
		ck_assert_float_eq(v2[i], val[i]);
	}
	ck_assert_float_eq(logp[0], 0);
	/* a row without a legal action is refused */
	memset(mask, 0, 5);
	ck_assert_int_eq(nn_greedy_state(n, ws, obs, mask, 1, NULL, act, logp,
					 v2), LG_EINVAL);
	nn_ws_free(ws);
	nn_free(n);
}
END_TEST

START_TEST(act_samples_masked_softmax)
{
	static const uint32_t h[] = { 12 };
	struct nn_shape s = shape3(4, 5, NN_RELU, 1, h);
	const size_t N = 20000;
	nn *n = NULL;
	nn_ws *ws = NULL;
	float obs[4] = { 0.5f, -1, 2, 0.1f }, probs[5], logp, value, v2;
	float *pf, *obsN, *logpN, *valN;
	uint8_t mask[5] = { 1, 0, 1, 1, 0 }, *maskN;
	int32_t a, *actN;
	size_t np, count[5] = { 0 };
	lg_rng r;

	ck_assert_int_eq(nn_new(&n, &s, 5), 0);
	pf = nn_params(n, &np);
	lg_rng_seed(&r, 6);
	for (size_t i = 0; i < np; i++)
		pf[i] = (float)lg_rng_normal(&r);
	ck_assert_int_eq(nn_ws_new(&ws, n, N), 0);
	ck_assert_int_eq(nn_probs(n, ws, obs, mask, 1, probs, &value), 0);
	ck_assert(probs[1] == 0 && probs[4] == 0);
	ck_assert_double_eq_tol(probs[0] + probs[2] + probs[3], 1, 1e-6);
	obsN = malloc(N * 4 * sizeof *obsN);
	maskN = malloc(N * 5);
	actN = malloc(N * sizeof *actN);
	logpN = malloc(N * sizeof *logpN);
	valN = malloc(N * sizeof *valN);
	for (size_t i = 0; i < N; i++) {
		memcpy(obsN + 4 * i, obs, sizeof obs);
		memcpy(maskN + 5 * i, mask, sizeof mask);
	}
	ck_assert_int_eq(nn_act(n, ws, obsN, maskN, N, &r, actN, logpN, valN),
			 0);
	for (size_t i = 0; i < N; i++) {
		ck_assert(mask[actN[i]]);
		ck_assert_double_eq_tol(logpN[i], logf(probs[actN[i]]), 1e-5);
		ck_assert_double_eq_tol(valN[i], value, 1e-5);
		count[actN[i]]++;
	}
	/* frequencies within 5 binomial standard deviations */
	for (int k = 0; k < 5; k++) {
		double sd = sqrt(probs[k] * (1 - probs[k]) / N);
		ck_assert_msg(fabs((double)count[k] / N - probs[k]) <=
				      5 * sd + 1e-12,
			      "action %d: %zu of %zu, p %.4f", k, count[k], N,
			      probs[k]);
	}
	/* one row alone gives the same value: batching changes nothing */
	ck_assert_int_eq(nn_act(n, ws, obs, mask, 1, &r, &a, &logp, &v2), 0);
	ck_assert_double_eq_tol(v2, value, 1e-5);
	/* an empty batch is a no-op */
	ck_assert_int_eq(nn_act(n, ws, obs, mask, 0, &r, &a, &logp, &v2), 0);
	/* errors */
	memset(mask, 0, sizeof mask);
	ck_assert_int_eq(nn_act(n, ws, obs, mask, 1, &r, &a, &logp, &v2),
			 LG_EINVAL);
	ck_assert_int_eq(nn_act(n, ws, obsN, maskN, N + 1, &r, actN, logpN,
				valN), LG_EINVAL);
	free(obsN);
	free(maskN);
	free(actN);
	free(logpN);
	free(valN);
	nn_ws_free(ws);
	nn_free(n);
	nn_ws_free(NULL);
	nn_free(NULL);
}
END_TEST

/* A few rows take one sgemv each (forward_ws), more one sgemm: every
 * batch size on either side of the switch gives what the batch of all
 * rows gives, on the collector benchmark's layer sizes. */
START_TEST(act_small_batches_match_large)
{
	static const uint32_t h[] = { 256, 256 };
	struct nn_shape s = shape3(64, 3, NN_RELU, 2, h);
	enum { ROWS = 16 };
	float *obs = malloc(ROWS * 64 * sizeof *obs);
	float all[ROWS * 3], some[ROWS * 3], vall[ROWS], vsome[ROWS];
	uint8_t mask[ROWS * 3];
	nn *n = NULL;
	nn_ws *ws = NULL;
	lg_rng r;

	ck_assert_int_eq(nn_new(&n, &s, 11), 0);
	ck_assert_int_eq(nn_ws_new(&ws, n, ROWS), 0);
	lg_rng_seed(&r, 12);
	for (size_t i = 0; i < ROWS * 64; i++)
		obs[i] = (float)lg_rng_normal(&r);
	memset(mask, 1, sizeof mask);
	ck_assert_int_eq(nn_probs(n, ws, obs, mask, ROWS, all, vall), 0);
	for (size_t k = 1; k <= 9; k++) {
		ck_assert_int_eq(nn_probs(n, ws, obs, mask, k, some, vsome), 0);
		for (size_t i = 0; i < k; i++) {
			ck_assert_double_eq_tol(vsome[i], vall[i], 1e-5);
			for (int a = 0; a < 3; a++)
				ck_assert_double_eq_tol(some[i * 3 + a],
							all[i * 3 + a], 1e-5);
		}
	}
	nn_ws_free(ws);
	nn_free(n);
	free(obs);
}
END_TEST

START_TEST(init_deterministic_and_shape_caps)
{
	static const uint32_t h[] = { 7, 3 };
	struct nn_shape s = shape3(4, 5, NN_TANH, 2, h);
	nn *a = NULL, *b = NULL, *c = NULL;
	size_t na, nb;
	struct nn_tensor t;

	ck_assert_int_eq(nn_new(&a, &s, 1), 0);
	ck_assert_int_eq(nn_new(&b, &s, 1), 0);
	ck_assert_int_eq(nn_new(&c, &s, 2), 0);
	nn_params(a, &na);
	nn_params(b, &nb);
	ck_assert_uint_eq(na, nb);
	ck_assert_uint_eq(na, 4 * 7 + 7 + 7 * 3 + 3 + 3 * 6 + 6);
	ck_assert_int_eq(memcmp(nn_params(a, NULL), nn_params(b, NULL),
				na * 4), 0);
	ck_assert_int_ne(memcmp(nn_params(a, NULL), nn_params(c, NULL),
				na * 4), 0);
	ck_assert_uint_eq(nn_tensor_count(a), 6);
	ck_assert_int_eq(nn_tensor_info(a, 4, &t), 0);
	ck_assert_str_eq(t.name, "Whead");
	ck_assert_uint_eq(t.rows, 3);
	ck_assert_uint_eq(t.cols, 6);
	ck_assert_int_eq(nn_tensor_info(a, 6, &t), LG_ERANGE);
	nn_free(a);
	nn_free(b);
	nn_free(c);
	s.obs = 0;
	ck_assert_int_eq(nn_new(&a, &s, 1), LG_ERANGE);
	ck_assert_ptr_null(a);
	s.obs = 4;
	s.nhidden = 9;
	ck_assert_int_eq(nn_new(&a, &s, 1), LG_ERANGE);
	s.nhidden = 3;
	s.hidden[2] = 65536; /* 3 * 65536^2 params: over the cap */
	s.hidden[1] = 65536;
	ck_assert_int_eq(nn_new(&a, &s, 1), LG_ERANGE);
	s.nhidden = 2;
	s.act = 5;
	ck_assert_int_eq(nn_new(&a, &s, 1), LG_EINVAL);
}
END_TEST

/* ---- parameter files -------------------------------------------------- */

static void fix_header_crc(uint8_t *h)
{
	lg_put_le32(h + 68, lg_crc32c(0, h, 68));
}

START_TEST(save_load_bit_exact)
{
	static const uint32_t h[] = { 9, 4 };
	struct nn_shape s = shape3(6, 3, NN_RELU, 2, h);
	nn *a = NULL, *b = NULL;
	lg_buf buf = { 0 };
	char dir[256], path[512], err[512];
	size_t na, nb;
	float *pa;

	ck_assert_int_eq(nn_new(&a, &s, 77), 0);
	pa = nn_params(a, &na);
	pa[0] = -0.0f; /* sign of zero survives */
	pa[1] = 1e-42f; /* a subnormal too */
	ck_assert_int_eq(nn_save(a, &buf), 0);
	ck_assert_uint_eq(buf.len, NN_FILE_HEADER + 4 * na);
	ck_assert_int_eq(memcmp(buf.data, "LGNN", 4), 0);
	ck_assert_uint_eq(lg_get_le32(buf.data + 4), NN_FILE_VERSION);
	ck_assert_uint_eq(lg_get_le32(buf.data + 8), 6);
	ck_assert_uint_eq(lg_get_le32(buf.data + 28), 4);
	ck_assert_uint_eq(lg_get_le64(buf.data + 56), na);
	ck_assert(lg_get_lef32(buf.data + NN_FILE_HEADER + 4) == 1e-42f);
	ck_assert_int_eq(nn_load(&b, buf.data, buf.len, err, sizeof err), 0);
	nn_params(b, &nb);
	ck_assert_uint_eq(na, nb);
	ck_assert_int_eq(memcmp(nn_params(a, NULL), nn_params(b, NULL),
				na * 4), 0);
	ck_assert_int_eq(memcmp(nn_shape_of(a), nn_shape_of(b),
				sizeof(struct nn_shape)), 0);
	nn_free(b);
	tu_mkdtemp(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/net.bin", dir);
	ck_assert_msg(nn_save_file(a, path, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(nn_load_file(&b, path, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(memcmp(nn_params(a, NULL), nn_params(b, NULL),
				na * 4), 0);
	nn_free(b);
	snprintf(path, sizeof path, "%s/missing.bin", dir);
	ck_assert_int_eq(nn_load_file(&b, path, err, sizeof err),
			 LG_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err, "missing.bin"));
	snprintf(path, sizeof path, "%s/junk.bin", dir);
	tu_write_file(path, "not a network at all, but long enough to hold "
			    "a header of seventy-two bytes........");
	ck_assert_int_eq(nn_load_file(&b, path, err, sizeof err),
			 LG_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "junk.bin"));
	ck_assert_ptr_nonnull(strstr(err, "magic"));
	tu_rmrf(dir);
	lg_buf_free(&buf);
	nn_free(a);
}
END_TEST

START_TEST(load_rejects_truncated_and_corrupt)
{
	static const uint32_t h[] = { 5 };
	struct nn_shape s = shape3(3, 2, NN_TANH, 1, h);
	nn *a = NULL, *b = NULL;
	lg_buf buf = { 0 };
	uint8_t *c;
	char err[256];

	ck_assert_int_eq(nn_new(&a, &s, 1), 0);
	ck_assert_int_eq(nn_save(a, &buf), 0);
	c = malloc(buf.len + 1);
	/* every truncation */
	for (size_t len = 0; len < buf.len; len++) {
		err[0] = 0;
		ck_assert_int_eq(nn_load(&b, buf.data, len, err, sizeof err),
				 LG_ECORRUPT);
		ck_assert_ptr_null(b);
		ck_assert_msg(strstr(err, "truncated"), "len %zu: %s", len,
			      err);
	}
	/* trailing byte */
	memcpy(c, buf.data, buf.len);
	c[buf.len] = 0;
	ck_assert_int_eq(nn_load(&b, c, buf.len + 1, err, sizeof err),
			 LG_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "trailing"));
	/* a flipped bit anywhere: header or body checksum */
	for (size_t i = 0; i < buf.len; i++) {
		memcpy(c, buf.data, buf.len);
		c[i] ^= 0x10;
		ck_assert_int_ne(nn_load(&b, c, buf.len, err, sizeof err), 0);
		ck_assert_ptr_null(b);
		if (i >= NN_FILE_HEADER)
			ck_assert_ptr_nonnull(strstr(err, "body checksum"));
	}
	/* a newer version, with a valid header checksum (2 to 4 are the
	 * conv and recurrent formats, whose headers are longer) */
	memcpy(c, buf.data, buf.len);
	lg_put_le32(c + 4, NN_FILE_VERSION4 + 1);
	fix_header_crc(c);
	ck_assert_int_eq(nn_load(&b, c, buf.len, err, sizeof err),
			 LG_EVERSION);
	/* a huge shape is refused before anything is allocated */
	memcpy(c, buf.data, buf.len);
	lg_put_le32(c + 8, 0x40000000u);
	fix_header_crc(c);
	ck_assert_int_eq(nn_load(&b, c, buf.len, err, sizeof err), LG_ERANGE);
	ck_assert_ptr_nonnull(strstr(err, "obs"));
	/* a count that disagrees with the shape */
	memcpy(c, buf.data, buf.len);
	lg_put_le64(c + 56, 1000);
	fix_header_crc(c);
	ck_assert_int_eq(nn_load(&b, c, buf.len, err, sizeof err),
			 LG_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "count"));
	/* hidden widths set past nhidden */
	memcpy(c, buf.data, buf.len);
	lg_put_le32(c + 24 + 4 * 5, 3);
	fix_header_crc(c);
	ck_assert_int_eq(nn_load(&b, c, buf.len, err, sizeof err),
			 LG_ECORRUPT);
	free(c);
	lg_buf_free(&buf);
	nn_free(a);
}
END_TEST

Suite *suite_nn(void)
{
	Suite *s = suite_create("nn");
	const struct tu_test gradient_tests[] = {
		{ vector_tanh, 1 },
		{ vector_expneg, 1 },
		{ gradcheck_tanh, 1 },
		{ gradcheck_magnet, 1 },
		{ gradcheck_search, 1 },
		{ gradcheck_relu, 1 },
		{ gradcheck_linear_policy, 1 },
	};
	const struct tu_test inference_tests[] = {
		{ act_samples_masked_softmax, 1 },
		{ greedy_takes_the_most_probable_legal_action, 1 },
		{ act_small_batches_match_large, 1 },
		{ init_deterministic_and_shape_caps, 1 },
	};
	const struct tu_test files_tests[] = {
		{ save_load_bit_exact, 1 },
		{ load_rejects_truncated_and_corrupt, 1 },
	};

	TU_TCASE(s, "gradient", 60, gradient_tests);
	TU_TCASE(s, "inference", 180, inference_tests);
	TU_TCASE(s, "files", 60, files_tests);
	return s;
}
