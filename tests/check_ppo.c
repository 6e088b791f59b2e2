/* tests/check_ppo.c: the PPO trainer (learner/ppo.c, ppo_state.c,
 * ppo_opts.c). Sharded loss and gradient match one thread; GAE on a
 * hand-worked batch; an update lowers its loss on a fixed batch; the
 * search term pulls the policy to the visit shares; state weights
 * (counted per observation, scaling the policy terms, reaching their
 * rows through an update); determinism and input validation; a trainer
 * restored from its state resumes bit for bit; the linear learning-rate
 * and entropy schedules; a policy facing a fixed biased opponent in a
 * 3x3 matrix game learns the best response within a bounded number of
 * updates; `league bench learner` through the binary. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envs/env.h"
#include "learner/learner.h"
#include "learner/learner_internal.h"
#include "learner/ppo_internal.h"
#include "tests/learner_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

START_TEST(shards_match_one_thread)
{
	/* threads = 3 splits 200 rows into 3 shards on 3 threads: the same
	 * loss and gradient as one thread up to float summation order, and
	 * bit-identical from run to run */
	static const uint32_t h[] = { 24, 16 };
	struct nn_shape s = shape3(7, 5, NN_RELU, 2, h);
	struct ppo_opts o;
	struct ppo_stats s1, s3;
	struct refbatch b;
	struct ppo_minibatch mb;
	ppo *p1 = NULL, *p3 = NULL, *q3 = NULL;
	size_t np;
	const float *g1, *g3;
	double gmax = 0;

	ppo_opts_default(&o);
	o.value_clip = 0.3;
	o.magnet_coef = 0.3; /* each shard reads its own magnet rows */
	o.threads = 1;
	ck_assert_int_eq(ppo_new(&p1, NULL, &s, &o, 4, NULL, 0), 0);
	o.threads = 3;
	ck_assert_int_eq(ppo_new(&p3, NULL, &s, &o, 4, NULL, 0), 0);
	ck_assert_int_eq(ppo_new(&q3, NULL, &s, &o, 4, NULL, 0), 0);
	refbatch_make(&b, ppo_net(p1), 200, 9);
	mb = (struct ppo_minibatch){ b.n, b.obs, b.mask, b.action, b.logp,
				     b.value, b.adv, b.ret, b.mlogp,
				     0, NULL, NULL, NULL, NULL, NULL,
				     NULL, NULL };
	ck_assert_int_eq(ppo_loss_grad(p1, &mb, &s1), 0);
	ck_assert_int_eq(ppo_loss_grad(p3, &mb, &s3), 0);
	ck_assert_double_eq_tol(s1.loss, s3.loss, 1e-6 * (1 + fabs(s1.loss)));
	g1 = ppo_grad(p1, &np);
	g3 = ppo_grad(p3, NULL);
	for (size_t i = 0; i < np; i++)
		gmax = fmax(gmax, fabs(g1[i]));
	ck_assert(gmax > 0);
	for (size_t i = 0; i < np; i++)
		ck_assert_msg(fabs(g1[i] - g3[i]) <= 1e-5 * gmax,
			      "param %zu: %g vs %g", i, g1[i], g3[i]);
	/* a whole update, twice over, with 3 threads */
	{
		struct fixed_like {
			uint8_t done[200];
			float reward[200];
		} fl;
		struct lg_rows pb;
		for (int i = 0; i < 200; i++) {
			fl.done[i] = i % 10 == 9;
			fl.reward[i] = (float)(i % 3) - 1;
		}
		pb = (struct lg_rows){ 200, 200, s.obs, s.actions, b.obs,
				       b.mask, b.action, b.logp, b.value,
				       fl.reward, fl.done, 0, NULL, 0, NULL,
				       NULL, NULL, 0, 0 };
		ck_assert_int_eq(ppo_update(p3, &pb, NULL), 0);
		ck_assert_int_eq(ppo_update(q3, &pb, NULL), 0);
		ck_assert_int_eq(memcmp(nn_params(ppo_net(p3), NULL),
					nn_params(ppo_net(q3), NULL),
					np * sizeof(float)), 0);
	}
	refbatch_free(&b);
	ppo_free(p1);
	ppo_free(p3);
	ppo_free(q3);
}
END_TEST

/* ---- GAE ---------------------------------------------------------------- */

START_TEST(gae_hand_worked)
{
	/* gamma 0.9, lambda 0.5; row 1 ends an episode, row 3 (last) is a
	 * cut bootstrapped with its own value:
	 *   A3 = 5 + 0.9*4 - 4             = 4.6
	 *   A2 = (0 + 0.9*4 - 3) + 0.45*A3 = 2.67
	 *   A1 = 1 - 2                     = -1
	 *   A0 = (0 + 0.9*2 - 1) + 0.45*A1 = 0.35 */
	float v[] = { 1, 2, 3, 4 }, r[] = { 0, 1, 0, 5 }, adv[4], ret[4];
	uint8_t done[] = { 0, 1, 0, 0 };
	struct lg_rows b = { 0 };
	const double want[] = { 0.35, -1, 2.67, 4.6 };

	b.n = 4;
	b.value = v;
	b.reward = r;
	b.done = done;
	ppo_gae(&b, 0.9, 0.5, adv, ret);
	for (int i = 0; i < 4; i++) {
		ck_assert_double_eq_tol(adv[i], want[i], 1e-5);
		ck_assert_double_eq_tol(ret[i], want[i] + v[i], 1e-5);
	}
	/* done = 2 cuts the stream in the middle: row 1 bootstraps from
	 * itself and row 0 still sees row 1 */
	done[1] = 2;
	ppo_gae(&b, 0.9, 0.5, adv, ret);
	ck_assert_double_eq_tol(adv[1], 1 + 0.9 * 2 - 2, 1e-5);
	ck_assert_double_eq_tol(adv[0], 0.8 + 0.45 * 0.8, 1e-5);
}
END_TEST

/* ---- PPO on a fixed batch ------------------------------------------ */

START_TEST(ppo_lowers_loss)
{
	static const uint32_t h[] = { 32, 32 };
	struct nn_shape s = shape3(10, 6, NN_TANH, 2, h);
	struct ppo_opts o;
	struct ppo_stats before, after, up;
	struct fixed f;
	ppo *p = NULL;

	ppo_opts_default(&o);
	o.lr = 1e-3;
	o.minibatch = 64;
	o.threads = 1;
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 7, NULL, 0), 0);
	fixed_make(&f, ppo_net(p), 512, 8);
	ck_assert_int_eq(ppo_evaluate(p, &f.b, &before), 0);
	/* the batch came from this net: every ratio is 1 */
	ck_assert_double_eq_tol(before.approx_kl, 0, 1e-5);
	ck_assert_double_eq_tol(before.clip_frac, 0, 1e-12);
	for (int k = 0; k < 3; k++) {
		ck_assert_int_eq(ppo_update(p, &f.b, &up), 0);
		ck_assert(isfinite(up.loss) && isfinite(up.grad_norm));
		ck_assert_uint_eq(up.minibatches, 4 * 512 / 64);
	}
	ck_assert_int_eq(ppo_evaluate(p, &f.b, &after), 0);
	ck_assert_msg(after.loss < before.loss - 0.05,
		      "loss %.5f -> %.5f", before.loss, after.loss);
	ck_assert(after.pg_loss < before.pg_loss);
	ck_assert(after.value_loss < before.value_loss);
	ck_assert(after.approx_kl > 0);
	fixed_free(&f);
	ppo_free(p);
}
END_TEST

/* Mean total-variation distance of the policy from the visit shares of
 * a fixed batch after 60 updates with AlphaZero's policy term of weight
 * yc alone (pg_coef 0, no entropy bonus), from *tv0 at the start; *pl0,
 * *pl1 the policy loss reported by the first and last update. The
 * target puts 3/4 on the first legal action where the observation's
 * first entry is positive, else on the last, and spreads the rest over
 * the other legal ones. */
static double fitted_tv(double yc, double *tv0, double *pl0, double *pl1)
{
	static const uint32_t h[] = { 32 };
	struct nn_shape s = shape3(10, 6, NN_TANH, 1, h);
	struct ppo_opts o;
	struct ppo_stats up = { 0 };
	struct fixed f;
	ppo *p = NULL;
	nn_ws *ws = NULL;
	size_t n = 512, A = 6;
	float *pr = malloc(n * A * sizeof *pr);
	double tv = 0;

	ppo_opts_default(&o);
	o.lr = 3e-3;
	o.minibatch = 128;
	o.ent_coef = 0;
	o.pg_coef = 0;
	o.policy_coef = yc;
	o.threads = 1;
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 31, NULL, 0), 0);
	fixed_make(&f, ppo_net(p), n, 32);
	ck_assert_int_eq(lg_rows_add_visits(&f.b), 0);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *m = f.b.mask + i * A;
		float *v = f.b.visits + i * A;
		int best = -1, legal = 0;
		for (size_t a = 0; a < A; a++)
			if (m[a]) {
				legal++;
				if (best < 0 || f.b.obs[i * 10] < 0)
					best = (int)a;
			}
		for (size_t a = 0; a < A; a++)
			v[a] = !m[a]		  ? 0
			       : legal == 1	  ? 1
			       : (int)a == best ? 0.75f
						  : 0.25f / (float)(legal - 1);
	}
	ck_assert_int_eq(nn_ws_new(&ws, ppo_net(p), n), 0);
	for (int k = 0; k <= 60; k++) {
		if (k == 0 || k == 60) {
			tv = 0;
			ck_assert_int_eq(nn_probs(ppo_net(p), ws, f.b.obs,
						  f.b.mask, n, pr, NULL), 0);
			for (size_t i = 0; i < n * A; i++)
				tv += 0.5 * fabs((double)pr[i] - f.b.visits[i]);
			tv /= (double)n;
			if (!k)
				*tv0 = tv;
		}
		if (k == 60)
			break;
		ck_assert_int_eq(ppo_update(p, &f.b, &up), 0);
		if (!k)
			*pl0 = up.policy_loss;
	}
	*pl1 = up.policy_loss;
	nn_ws_free(ws);
	free(pr);
	free(f.b.visits); /* the block's only column of its own */
	fixed_free(&f);
	ppo_free(p);
	return tv;
}

/* The policy term fits the policy to the visit shares: the mean TV
 * distance falls from that of the near-uniform start (over 0.4) to under
 * 0.15 (not to 0: the 3/4 target over masks of different sizes is not
 * one softmax), and the reported loss with it; with the term's weight
 * 0 the same updates leave the policy where it was. */
START_TEST(visits_pull_the_policy)
{
	double tv0, tv1, off, pl0, pl1, q0, q1;

	tv1 = fitted_tv(1, &tv0, &pl0, &pl1);
	off = fitted_tv(0, &tv0, &q0, &q1);
	fprintf(stderr, "learner: visit shares fitted: mean TV %.3f -> %.3f "
		"(%.3f without the term), policy loss %.3f -> %.3f\n", tv0,
		tv1, off, pl0, pl1);
	ck_assert_msg(tv0 > 0.4 && tv1 < 0.15, "TV %.3f -> %.3f", tv0, tv1);
	ck_assert_msg(off > 0.4, "TV without the term %.3f", off);
	ck_assert(pl1 < pl0 - 0.2);
}
END_TEST

/* learner.state_weight R: rows of an observation seen n times in the
 * batch weigh min(R, n_max / n), scaled to a mean of 1. 8 rows of one
 * observation, 2 of another, 1 of a third, R 4: 1, 4, 4 before the
 * scaling by 11 / 20. With R 1 every row weighs 1. */
START_TEST(state_weights_count_observations)
{
	static const uint32_t h[] = { 8 };
	struct nn_shape s = shape3(3, 2, NN_TANH, 1, h);
	struct ppo_opts o;
	struct lg_rows b;
	ppo *p = NULL;
	static const int which[11] = { 0, 1, 0, 0, 2, 0, 0, 1, 0, 0, 0 };
	const double want[3] = { 11.0 / 20, 4 * 11.0 / 20, 4 * 11.0 / 20 };

	ppo_opts_default(&o);
	o.state_weight = 4;
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 1, NULL, 0), 0);
	ck_assert_int_eq(lg_rows_init(&b, 3, 2, 0, 11), 0);
	b.n = 11;
	memset(b.mask, 1, 11 * 2);
	for (size_t r = 0; r < 11; r++)
		for (size_t j = 0; j < 3; j++)
			b.obs[r * 3 + j] = (float)(which[r] == (int)j);
	ck_assert_int_eq(ppo_state_weights(p, &b), 0);
	for (size_t r = 0; r < 11; r++)
		ck_assert_double_eq_tol(p->pw[r], want[which[r]], 1e-6);
	p->o.state_weight = 1;
	ck_assert_int_eq(ppo_state_weights(p, &b), 0);
	for (size_t r = 0; r < 11; r++)
		ck_assert_double_eq_tol(p->pw[r], 1, 1e-6);
	lg_rows_free(&b);
	ppo_free(p);
}
END_TEST

/* A row's weight scales its policy terms (surrogate, entropy, magnet,
 * search target) and leaves its value term alone: the gradient is affine
 * in the weights (g(2w) - g(w) = g(w) - g(0)), weights of 1 are no
 * weights, weights of 0 leave exactly the value term's gradient (a
 * trainer whose policy coefficients are all 0), and with vf_coef 0 no
 * gradient at all. Three threads, so every shard reads its own slice of
 * the weights. */
START_TEST(state_weights_scale_the_policy_terms)
{
	static const uint32_t h[] = { 12 };
	struct nn_shape s = shape3(5, 4, NN_TANH, 1, h);
	struct ppo_opts o;
	struct ppo_stats st;
	struct refbatch b;
	struct ppo_minibatch mb;
	ppo *p = NULL;
	size_t np;
	float w[90], zero[90], ones[90], two[90];
	double *g[5], gmax = 0;

	ppo_opts_default(&o);
	o.magnet_coef = 0.3;
	o.ent_coef = 0.05;
	o.threads = 3;
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 5, NULL, 0), 0);
	refbatch_make(&b, ppo_net(p), 90, 7);
	for (int i = 0; i < 90; i++) {
		w[i] = 0.25f + (float)(i % 7) * 0.5f;
		two[i] = 2 * w[i];
		zero[i] = 0;
		ones[i] = 1;
	}
	const float *pws[5] = { NULL, ones, zero, w, two };
	nn_params(ppo_net(p), &np);
	for (int k = 0; k < 5; k++) {
		mb = (struct ppo_minibatch){ b.n, b.obs, b.mask, b.action,
					     b.logp, b.value, b.adv, b.ret,
					     b.mlogp, 0, NULL, NULL, NULL,
					     b.visits, pws[k], NULL, NULL };
		ck_assert_int_eq(ppo_loss_grad(p, &mb, &st), 0);
		g[k] = malloc(np * sizeof *g[k]);
		for (size_t i = 0; i < np; i++)
			g[k][i] = ppo_grad(p, NULL)[i];
	}
	for (size_t i = 0; i < np; i++)
		gmax = fmax(gmax, fabs(g[4][i] - g[2][i]));
	ck_assert(gmax > 0);
	for (size_t i = 0; i < np; i++) {
		ck_assert_double_eq_tol(g[0][i], g[1][i], 1e-6 * gmax);
		ck_assert_double_eq_tol(g[4][i] - g[3][i], g[3][i] - g[2][i],
					1e-4 * gmax);
	}
	ppo_free(p);
	{
		/* weights 0: the value term's gradient alone */
		struct ppo_opts v = o;
		v.pg_coef = v.ent_coef = v.magnet_coef = v.policy_coef = 0;
		ck_assert_int_eq(ppo_new(&p, NULL, &s, &v, 5, NULL, 0), 0);
		mb.pw = NULL;
		ck_assert_int_eq(ppo_loss_grad(p, &mb, &st), 0);
		for (size_t i = 0; i < np; i++)
			ck_assert_double_eq_tol(g[2][i], ppo_grad(p, NULL)[i],
						1e-6 * gmax);
		ppo_free(p);
	}
	o.vf_coef = 0;
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 5, NULL, 0), 0);
	mb.pw = zero;
	ck_assert_int_eq(ppo_loss_grad(p, &mb, &st), 0);
	for (size_t i = 0; i < np; i++)
		ck_assert_double_eq(ppo_grad(p, NULL)[i], 0);
	for (int k = 0; k < 5; k++)
		free(g[k]);
	refbatch_free(&b);
	ppo_free(p);
}
END_TEST

/* State weights through a whole ppo_update (prepare, the shuffle, the
 * gather): 90 rows of one observation that took action 0 and 10 of
 * another that took action 1, each with advantage 1 (reward 1, value 0,
 * the episode over). With R 100 the weights are 100/180 and 900/180 and
 * the head's bias gradient (one epoch, one minibatch of the whole
 * shuffled batch, nothing but the surrogate) is exactly
 *   d/db_0 = (-sum_A w_A p_1(A) + sum_B w_B p_0(B)) / 100
 * from the net's own probabilities: a weight on the wrong row breaks
 * it. Without weights the same sum has weights of 1. */
START_TEST(state_weights_reach_their_rows_in_an_update)
{
	static const uint32_t h[] = { 4 };
	struct nn_shape s = shape3(2, 2, NN_TANH, 1, h);
	struct ppo_opts o;
	struct lg_rows b;
	float pr[2][2], obs[2][2] = { { 1, 0 }, { 0, 1 } };
	uint8_t mask[2] = { 1, 1 };

	for (int weighted = 0; weighted < 2; weighted++) {
		ppo *p = NULL;
		nn_ws *ws = NULL;
		const nn *net;
		double wa = weighted ? 100.0 / 180 : 1, wb = weighted ? 5 : 1;

		ppo_opts_default(&o);
		o.state_weight = weighted ? 100 : 0;
		o.vf_coef = o.ent_coef = o.magnet_coef = 0;
		o.max_grad_norm = 0;
		o.norm_adv = 0;
		o.gamma = o.gae_lambda = 1;
		o.epochs = 1;
		o.minibatch = 128;
		ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 11, NULL, 0), 0);
		net = ppo_net(p);
		ck_assert_int_eq(nn_ws_new(&ws, net, 2), 0);
		ck_assert_int_eq(nn_probs(net, ws, &obs[0][0], (uint8_t[]){
					  1, 1, 1, 1 }, 2, &pr[0][0], NULL), 0);
		ck_assert_int_eq(lg_rows_init(&b, 2, 2, 0, 100), 0);
		b.n = 100;
		for (size_t r = 0; r < 100; r++) {
			int g = r % 10 == 3; /* 10 rows of B among A's 90 */
			memcpy(b.obs + 2 * r, obs[g], sizeof obs[g]);
			memcpy(b.mask + 2 * r, mask, 2);
			b.action[r] = g;
			b.logp[r] = logf(pr[g][g]);
			b.value[r] = 0;
			b.reward[r] = 1;
			b.done[r] = LG_ROW_END;
		}
		ck_assert_int_eq(ppo_update(p, &b, NULL), 0);
		/* the head's bias: the last tensor */
		const float *g = ppo_grad(p, NULL) +
				 net->t[net->ntensors - 1].offset;
		double want = (-90 * wa * pr[0][1] + 10 * wb * pr[1][0]) / 100;
		ck_assert_double_eq_tol(g[0], want, 1e-5);
		ck_assert_double_eq_tol(g[1], -want, 1e-5);
		lg_rows_free(&b);
		nn_ws_free(ws);
		ppo_free(p);
	}
}
END_TEST

START_TEST(ppo_deterministic_and_validating)
{
	static const uint32_t h[] = { 16 };
	struct nn_shape s = shape3(10, 6, NN_RELU, 1, h);
	struct ppo_opts o;
	struct fixed f;
	ppo *p = NULL, *q = NULL;
	size_t np;
	float *keep;
	float nanv = NAN;

	ppo_opts_default(&o);
	o.minibatch = 32;
	o.batch_max = 256;
	o.threads = 1;
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 9, NULL, 0), 0);
	ck_assert_int_eq(ppo_new(&q, NULL, &s, &o, 9, NULL, 0), 0);
	fixed_make(&f, ppo_net(p), 128, 10);
	ck_assert_int_eq(ppo_update(p, &f.b, NULL), 0);
	ck_assert_int_eq(ppo_update(q, &f.b, NULL), 0);
	nn_params(ppo_net(p), &np);
	ck_assert_int_eq(memcmp(nn_params(ppo_net(p), NULL),
				nn_params(ppo_net(q), NULL),
				np * sizeof(float)), 0);
	keep = malloc(np * sizeof *keep);
	memcpy(keep, nn_params(ppo_net(p), NULL), np * sizeof *keep);
	/* an illegal action, a bad done value, another shape, NaN, too
	 * large: rejected and the net is unchanged */
	{
		uint8_t m = f.mask[0 * 6 + (size_t)f.action[0]];
		f.mask[(size_t)f.action[0]] = 0;
		ck_assert_int_eq(ppo_update(p, &f.b, NULL), LG_EINVAL);
		f.mask[(size_t)f.action[0]] = m;
	}
	f.done[3] = 7;
	ck_assert_int_eq(ppo_update(p, &f.b, NULL), LG_EINVAL);
	f.done[3] = 0;
	/* a block of another shape than the net's (util/rows.h) */
	f.b.obs_len = 9;
	ck_assert_int_eq(ppo_update(p, &f.b, NULL), LG_EINVAL);
	f.b.obs_len = 10;
	f.b.num_actions = 7;
	ck_assert_int_eq(ppo_update(p, &f.b, NULL), LG_EINVAL);
	f.b.num_actions = 6;
	f.reward[5] = nanv;
	ck_assert_int_eq(ppo_update(p, &f.b, NULL), LG_EINVAL);
	f.reward[5] = 0;
	f.b.n = 257;
	ck_assert_int_eq(ppo_update(p, &f.b, NULL), LG_ERANGE);
	f.b.n = 0;
	ck_assert_int_eq(ppo_update(p, &f.b, NULL), LG_EINVAL);
	ck_assert_int_eq(memcmp(keep, nn_params(ppo_net(p), NULL),
				np * sizeof(float)), 0);
	free(keep);
	fixed_free(&f);
	ppo_free(p);
	ppo_free(q);
	/* options */
	o.epochs = 0;
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 1, NULL, 0), LG_EINVAL);
	ck_assert_ptr_null(p);
	ppo_free(NULL);
}
END_TEST

/* A trainer restored from its version blob and its state (the learner
 * after a restart) trains on bit for bit as the one that never stopped:
 * with the magnet (loop 1) and the linear schedule (loop 2), on two
 * threads (loop 3). A fresh trainer around the same parameters does not,
 * so the state is what makes the difference. */
START_TEST(trainer_state_resumes_bit_exact)
{
	static const uint32_t h[] = { 16 };
	struct nn_shape s = shape3(10, 6, NN_TANH, 1, h);
	struct ppo_opts o;
	struct fixed f;
	ppo *p = NULL, *q = NULL, *fresh = NULL;
	lg_buf blob = { 0 }, st = { 0 }, st2 = { 0 };
	nn *n1 = NULL, *n2 = NULL;
	uint64_t tag = 0;
	char err[256] = "";
	size_t np;

	ppo_opts_default(&o);
	o.minibatch = 32;
	o.threads = _i == 3 ? 2 : 1;
	o.magnet_coef = _i == 1 ? 0.2 : 0;
	o.magnet_every = 2;
	if (_i == 2) {
		o.lr_schedule = PPO_LR_LINEAR;
		o.total_updates = 6;
	}
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 9, NULL, 0), 0);
	fixed_make(&f, ppo_net(p), 128, 10);
	for (int k = 0; k < 3; k++)
		ck_assert_int_eq(ppo_update(p, &f.b, NULL), 0);
	ck_assert_int_eq(nn_save(ppo_net(p), &blob), 0);
	ck_assert_int_eq(ppo_state_save(p, 77, &st), 0);
	/* the restart: the version's parameters, a new trainer, the state */
	ck_assert_int_eq(nn_load(&n1, blob.data, blob.len, err, sizeof err), 0);
	ck_assert_int_eq(nn_load(&n2, blob.data, blob.len, err, sizeof err), 0);
	ck_assert_int_eq(ppo_new(&q, n1, NULL, &o, 1234, err, sizeof err), 0);
	ck_assert_int_eq(ppo_new(&fresh, n2, NULL, &o, 9, err, sizeof err), 0);
	ck_assert_int_eq(ppo_state_load(q, st.data, st.len, &tag, err,
					sizeof err), 0);
	ck_assert_uint_eq(tag, 77);
	ck_assert_int_eq(ppo_state_save(q, 77, &st2), 0);
	ck_assert_uint_eq(st2.len, st.len);
	ck_assert_int_eq(memcmp(st2.data, st.data, st.len), 0);
	for (int k = 0; k < 3; k++) {
		ck_assert_int_eq(ppo_update(p, &f.b, NULL), 0);
		ck_assert_int_eq(ppo_update(q, &f.b, NULL), 0);
		ck_assert_int_eq(ppo_update(fresh, &f.b, NULL), 0);
	}
	nn_params(ppo_net(p), &np);
	ck_assert_int_eq(memcmp(nn_params(ppo_net(p), NULL),
				nn_params(ppo_net(q), NULL),
				np * sizeof(float)), 0);
	ck_assert_int_ne(memcmp(nn_params(ppo_net(p), NULL),
				nn_params(ppo_net(fresh), NULL),
				np * sizeof(float)), 0);
	/* a state of another trainer is refused and changes nothing */
	st2.len = 0;
	ck_assert_int_eq(ppo_state_save(q, 0, &st2), 0);
	if (_i == 1) {
		ppo_free(fresh);
		o.magnet_coef = 0;
		ck_assert_int_eq(nn_load(&n2, blob.data, blob.len, err,
					 sizeof err), 0);
		ck_assert_int_eq(ppo_new(&fresh, n2, NULL, &o, 9, err,
					 sizeof err), 0);
		ck_assert_int_eq(ppo_state_load(fresh, st.data, st.len, NULL,
						err, sizeof err), LG_EINVAL);
		ck_assert_msg(strstr(err, "magnet"), "%s", err);
	}
	((uint8_t *)st.data)[100] ^= 1;
	ck_assert_int_eq(ppo_state_load(q, st.data, st.len, NULL, err,
					sizeof err), LG_ECORRUPT);
	ck_assert_msg(strstr(err, "checksum"), "%s", err);
	ck_assert_int_eq(ppo_state_load(q, st.data, 40, NULL, err, sizeof err),
			 LG_ECORRUPT);
	blob.len = 0;
	ck_assert_int_eq(ppo_state_save(q, 0, &blob), 0);
	ck_assert_int_eq(memcmp(blob.data, st2.data, st2.len), 0);
	lg_buf_free(&blob);
	lg_buf_free(&st);
	lg_buf_free(&st2);
	fixed_free(&f);
	ppo_free(p);
	ppo_free(q);
	ppo_free(fresh);
}
END_TEST

/* learner.ent_final_frac: the entropy bonus goes with the linear
 * schedule's progress to ent_coef * ent_final_frac; the coefficient is
 * read back from the update's statistics (loss = pg + vf vl - ent H). */
START_TEST(ent_anneals_with_the_schedule)
{
	static const uint32_t h[] = { 8 };
	struct nn_shape s = shape3(10, 6, NN_TANH, 1, h);
	struct ppo_opts o;
	struct ppo_stats st;
	struct fixed f;
	ppo *p = NULL;
	const double prog[] = { 0, 0.5, 1 }, want[] = { 0.1, 0.06, 0.02 };

	ppo_opts_default(&o);
	o.lr_schedule = PPO_LR_LINEAR;
	o.ent_coef = 0.1;
	o.ent_final_frac = 0.2;
	o.epochs = 1;
	o.minibatch = 64;
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 1, NULL, 0), 0);
	fixed_make(&f, ppo_net(p), 64, 2);
	for (int k = 0; k < 3; k++) {
		ppo_set_progress(p, prog[k]);
		ck_assert_int_eq(ppo_update(p, &f.b, &st), 0);
		double ec = (o.pg_coef * st.pg_loss + o.vf_coef * st.value_loss -
			     st.loss) / st.entropy;
		ck_assert_double_eq_tol(ec, want[k], 1e-5);
	}
	fixed_free(&f);
	ppo_free(p);
	o.ent_final_frac = 1.5;
	ck_assert_int_ne(ppo_opts_check(&o, NULL, 0), 0);
}
END_TEST

START_TEST(lr_schedule_linear)
{
	static const uint32_t h[] = { 8 };
	struct nn_shape s = shape3(10, 6, NN_TANH, 1, h);
	struct ppo_opts o;
	struct ppo_stats st;
	struct fixed f;
	ppo *p = NULL;
	const double want[] = { 1e-3, 0.775e-3, 0.55e-3, 0.325e-3, 1e-4,
				1e-4 };

	ppo_opts_default(&o);
	o.lr = 1e-3;
	o.lr_schedule = PPO_LR_LINEAR;
	o.lr_final_frac = 0.1;
	o.total_updates = 4;
	o.epochs = 1;
	o.minibatch = 64;
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 1, NULL, 0), 0);
	fixed_make(&f, ppo_net(p), 64, 2);
	for (int k = 0; k < 6; k++) {
		ck_assert_int_eq(ppo_update(p, &f.b, &st), 0);
		ck_assert_double_eq_tol(st.lr, want[k], 1e-12);
	}
	/* the league's clock: progress replaces the update count */
	ppo_set_progress(p, 0.5);
	ck_assert_int_eq(ppo_update(p, &f.b, &st), 0);
	ck_assert_double_eq_tol(st.lr, 0.55e-3, 1e-12);
	ppo_set_progress(p, 0);
	ck_assert_int_eq(ppo_update(p, &f.b, &st), 0);
	ck_assert_double_eq_tol(st.lr, 1e-3, 1e-12);
	ppo_set_progress(p, 7); /* clamped */
	ck_assert_int_eq(ppo_update(p, &f.b, &st), 0);
	ck_assert_double_eq_tol(st.lr, 1e-4, 1e-12);
	fixed_free(&f);
	ppo_free(p);
}
END_TEST

/* ---- learning against a biased opponent ----------------------------- */

START_TEST(learns_best_response)
{
	/* Rock-paper-scissors as a matrix game; the opponent plays rock 1/2,
	 * paper 1/4, scissors 1/4, so paper is the unique best response
	 * (+0.25 against 0 for rock and -0.25 for scissors). */
	static const double rps[3][3] = { { 0, -1, 1 },
					  { 1, 0, -1 },
					  { -1, 1, 0 } };
	static const uint32_t h[] = { 16 };
	const size_t N = 256;
	struct nn_shape s = shape3(2, 3, NN_TANH, 1, h);
	struct env_opts eo;
	struct ppo_opts o;
	struct ppo_stats st;
	env *e = NULL;
	ppo *p = NULL;
	nn_ws *ws = NULL;
	char err[256];
	float obs[256 * 2], logp[256], value[256], reward[256], prob[3];
	uint8_t mask[256 * 3], done[256];
	int32_t action[256];
	lg_rng r, opp;
	int k, reached = -1;

	env_opts_default(&eo);
	eo.matrix.rows = eo.matrix.cols = 3;
	memcpy(eo.matrix.v[0], rps[0], sizeof rps[0]);
	memcpy(eo.matrix.v[1], rps[1], sizeof rps[1]);
	memcpy(eo.matrix.v[2], rps[2], sizeof rps[2]);
	e = tu_env_open("matrix", &eo);
	ppo_opts_default(&o);
	o.lr = 3e-3;
	o.minibatch = 64;
	o.ent_coef = 0.0;
	o.threads = 1;
	ck_assert_int_eq(ppo_new(&p, NULL, &s, &o, 21, NULL, 0), 0);
	ck_assert_int_eq(nn_ws_new(&ws, ppo_net(p), N), 0);
	lg_rng_seed(&r, 22);
	lg_rng_seed(&opp, 23);
	for (k = 0; k < 60; k++) {
		struct lg_rows b = { N, N, s.obs, s.actions, obs, mask, action,
				     logp, value, reward, done, 0, NULL, 0, NULL,
				     NULL, NULL, 0, 0 };
		for (size_t i = 0; i < N; i++) {
			env_reset(e, (uint64_t)k * N + i);
			env_observe(e, 0, obs + 2 * i);
			ck_assert_int_eq(env_legal(e, 0, mask + 3 * i), 3);
		}
		ck_assert_int_eq(nn_act(ppo_net(p), ws, obs, mask, N, &r,
					action, logp, value), 0);
		for (size_t i = 0; i < N; i++) {
			double u = lg_rng_double(&opp), ret[2];
			int acts[2] = { action[i], u < 0.5 ? 0 : u < 0.75 ? 1 : 2 };
			env_reset(e, (uint64_t)k * N + i);
			ck_assert_int_eq(env_step_joint(e, acts), 0);
			ck_assert(env_is_terminal(e));
			env_returns(e, ret);
			reward[i] = (float)ret[0];
			done[i] = 1;
		}
		ck_assert_int_eq(ppo_update(p, &b, &st), 0);
		ck_assert_int_eq(nn_probs(ppo_net(p), ws, obs, mask, 1, prob,
					  NULL), 0);
		if (prob[1] > 0.95) {
			reached = k + 1;
			break;
		}
	}
	ck_assert_msg(reached > 0, "P(paper) %.3f after 60 updates", prob[1]);
	fprintf(stderr, "learner: best response P(paper) > 0.95 after %d "
		"updates of %zu episodes\n", reached, N);
	/* The net as an env_policy: the exact evaluator sees the same
	 * nearly pure paper, which scissors exploits for about +1. */
	{
		env_tree *t = NULL;
		struct nn_policy_ctx ctx = { ppo_net(p), ws };
		struct env_policy pol = nn_env_policy(&ctx);
		struct env_nashconv nc;
		ck_assert_int_eq(env_tree_new(&t, e, err, sizeof err), 0);
		ck_assert_msg(env_tree_nashconv(t, &pol, &nc, err, sizeof err)
			      == 0, "%s", err);
		ck_assert(nc.br_value[1] > 0.9 && nc.br_value[1] <= 1.0);
		ck_assert(nc.nashconv > 0.9);
		env_tree_free(t);
	}
	nn_ws_free(ws);
	ppo_free(p);
	env_free(e);
}
END_TEST

/* ---- the benchmark through the binary ---------------------------------- */

START_TEST(cli_bench_learner)
{
	char out[4096], err[4096];
	const char *const ok[] = { "bench", "learner", "--obs", "8",
				   "--hidden", "16,16", "--actions", "4",
				   "--batch", "64", "--minibatch", "32",
				   "--seconds", "0.05", "--json", NULL };
	const char *const bad[] = { "bench", "learner", "--hidden", "0",
				    NULL };

	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, ok),
			 0);
	/* Plausible, not just present: a rate, GFLOP/s under the peak the
	 * same run measured (within 20%: a tiny net's flop count is a
	 * model), their ratio what it says. */
	const char *p;
	double sps, gf, peak, ratio;
	ck_assert_ptr_nonnull(p = strstr(out, "\"samples_per_s\":"));
	sps = strtod(p + 16, NULL);
	ck_assert_ptr_nonnull(p = strstr(out, "\"gflops\":"));
	gf = strtod(p + 9, NULL);
	ck_assert_ptr_nonnull(p = strstr(out, "\"sgemm_peak_gflops\":"));
	peak = strtod(p + 20, NULL);
	ck_assert_ptr_nonnull(p = strstr(out, "\"peak_ratio\":"));
	ratio = strtod(p + 13, NULL);
	ck_assert_msg(sps > 0 && gf > 0 && peak > 0, "%s", out);
	ck_assert_msg(ratio > 0 && ratio < 1.2, "%s", out);
	ck_assert_double_eq_tol(ratio, gf / peak, 1e-3);
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, bad),
			 2);
	/* The conv model is Connect Four's net, and its GFLOP/s count the
	 * convolutions too: under the peak, and far above what its dense
	 * layers alone would give. */
	const char *const conv[] = { "bench", "learner", "--model", "conv",
				     "--batch", "64", "--minibatch", "32",
				     "--seconds", "0.05", "--json", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err,
				       conv), 0);
	ck_assert_msg(strstr(out, "\"model\":\"conv\",\"obs\":126,"), "%s",
		      out);
	ck_assert_ptr_nonnull(p = strstr(out, "\"samples_per_s\":"));
	sps = strtod(p + 16, NULL);
	ck_assert_ptr_nonnull(p = strstr(out, "\"gflops\":"));
	gf = strtod(p + 9, NULL);
	/* 4 epochs of ~13.7 MFLOP a row (the dense part is ~4.1) */
	ck_assert_msg(gf > sps * 4 * 10e6 / 1e9, "%s", out);
	/* --inference: forwards of --batch rows */
	const char *const inf[] = { "bench", "learner", "--model", "conv",
				    "--inference", "--batch", "8",
				    "--seconds", "0.05", "--json", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, inf),
			 0);
	ck_assert_msg(strstr(out, "\"bench\":\"inference\",\"model\":"
				  "\"conv\"") && strstr(out, "\"batch\":8,"),
		      "%s", out);
	ck_assert_ptr_nonnull(p = strstr(out, "\"samples_per_s\":"));
	sps = strtod(p + 16, NULL);
	ck_assert_ptr_nonnull(p = strstr(out, "\"forward_us\":"));
	ck_assert_double_eq_tol(strtod(p + 13, NULL), 8 / sps * 1e6,
				0.01 * 8 / sps * 1e6);
}
END_TEST

Suite *suite_ppo(void)
{
	Suite *s = suite_create("ppo");
	const struct tu_test gradient_tests[] = {
		{ shards_match_one_thread, 1 },
	};
	const struct tu_test ppo_tests[] = {
		{ gae_hand_worked, 1 },
		{ ppo_lowers_loss, 1 },
		{ visits_pull_the_policy, 1 },
		{ state_weights_count_observations, 1 },
		{ state_weights_scale_the_policy_terms, 1 },
		{ state_weights_reach_their_rows_in_an_update, 1 },
		{ ppo_deterministic_and_validating, 1 },
		{ trainer_state_resumes_bit_exact, 4 },
		{ lr_schedule_linear, 1 },
		{ ent_anneals_with_the_schedule, 1 },
		{ learns_best_response, 1 },
	};
	const struct tu_test cli_tests[] = {
		{ cli_bench_learner, 1 },
	};

	TU_TCASE(s, "gradient", 60, gradient_tests);
	TU_TCASE(s, "ppo", 180, ppo_tests);
	TU_TCASE(s, "cli", 60, cli_tests);
	return s;
}
