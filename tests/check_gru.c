/* tests/check_gru.c: the recurrent core (learner/gru.c) and the nets
 * with one. The GRU layer against its definition in double (restarts
 * within a sequence) and its gradients against central differences; the
 * PPO loss's gradient through dense -> GRU -> head (restarts, padding,
 * two threads); training rebuilds inference's log-probabilities from the
 * stored states; a recurrent net learns to remember a cue a net without
 * the core cannot. */
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

/* ---- gru ------------------------------------------------------------- */

#define G_IN 3
#define G_H 4
#define G_T 5
#define G_B 3

/* The cell in double, step by step, from the stored states. */
static void gru_direct(const float *p, const float *x, const float *hs,
		       const uint8_t *start, double *h)
{
	const float *Wi = p, *Wh = p + G_IN * 3 * G_H;
	const float *bi = Wh + G_H * 3 * G_H, *bh = bi + 3 * G_H;

	for (int b = 0; b < G_B; b++) {
		double prev[G_H];
		for (int t = 0; t < G_T; t++) {
			int row = b * G_T + t;
			double a[3 * G_H], c[3 * G_H];
			if (t == 0 || start[row])
				for (int j = 0; j < G_H; j++)
					prev[j] = hs[row * G_H + j];
			for (int k = 0; k < 3 * G_H; k++) {
				a[k] = bi[k];
				c[k] = bh[k];
				for (int i = 0; i < G_IN; i++)
					a[k] += (double)x[row * G_IN + i] *
						Wi[i * 3 * G_H + k];
				for (int i = 0; i < G_H; i++)
					c[k] += prev[i] * Wh[i * 3 * G_H + k];
			}
			for (int j = 0; j < G_H; j++) {
				double r = 1 / (1 + exp(-(a[j] + c[j])));
				double z = 1 / (1 + exp(-(a[G_H + j] + c[G_H + j])));
				double n = tanh(a[2 * G_H + j] + r * c[2 * G_H + j]);
				h[row * G_H + j] = (1 - z) * n + z * prev[j];
			}
			for (int j = 0; j < G_H; j++)
				prev[j] = h[row * G_H + j];
		}
	}
}

/* [b][t]: sequence 1 restarts at steps 1 and 4, sequence 2 at 3 */
static const uint8_t gru_starts[G_T * G_B] = {
	0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0,
};

struct gru_fix {
	float p[G_IN * 3 * G_H + G_H * 3 * G_H + 6 * G_H];
	float x[G_T * G_B * G_IN], hs[G_T * G_B * G_H], h[G_T * G_B * G_H];
	float g[G_T * G_B * G_H];
	float *cache, *work;
};

static void gru_fix_init(struct gru_fix *f, uint64_t seed)
{
	lg_rng r;

	lg_rng_seed(&r, seed);
	ck_assert_uint_eq(gru_params(G_IN, G_H), LG_ARRAY_LEN(f->p));
	for (size_t i = 0; i < LG_ARRAY_LEN(f->p); i++)
		f->p[i] = 0.5f * (float)lg_rng_normal(&r);
	fill_normal(f->x, LG_ARRAY_LEN(f->x), &r);
	fill_normal(f->hs, LG_ARRAY_LEN(f->hs), &r);
	fill_normal(f->g, LG_ARRAY_LEN(f->g), &r);
	f->cache = malloc(gru_cache(G_H, G_T, G_B) * sizeof *f->cache);
	f->work = malloc(gru_work(G_H, G_T, G_B) * sizeof *f->work);
}

START_TEST(gru_forward_is_the_definition)
{
	struct gru_fix f;
	double want[G_T * G_B * G_H];

	gru_fix_init(&f, 31);
	gru_forward(G_IN, G_H, f.p, f.x, f.hs, gru_starts, G_T, G_B, f.h,
		    f.cache);
	gru_direct(f.p, f.x, f.hs, gru_starts, want);
	for (size_t i = 0; i < LG_ARRAY_LEN(want); i++)
		ck_assert_msg(fabs(f.h[i] - want[i]) < 1e-5, "h[%zu] %g, want %g",
			      i, f.h[i], want[i]);
	free(f.cache);
	free(f.work);
}
END_TEST

/* L = sum(h * g) of the fixture's forward pass; its arg is the fixture. */
static double gru_loss(void *arg)
{
	struct gru_fix *f = arg;
	double L = 0;

	gru_forward(G_IN, G_H, f->p, f->x, f->hs, gru_starts, G_T, G_B, f->h,
		    f->cache);
	for (size_t i = 0; i < LG_ARRAY_LEN(f->h); i++)
		L += (double)f->h[i] * f->g[i];
	return L;
}

/* Central differences (eps 0.01: truncation ~eps^2, rounding of |L| ~ 5
 * in float over 2 eps ~3e-5) against the backward for every parameter,
 * input and stored state, through the restarts. */
START_TEST(gru_gradients_match_differences)
{
	struct gru_fix f;
	float dp[LG_ARRAY_LEN(f.p)] = { 0 }, dx[LG_ARRAY_LEN(f.x)];
	float dhs[LG_ARRAY_LEN(f.hs)];

	gru_fix_init(&f, 37);
	gru_loss(&f);
	gru_backward(G_IN, G_H, f.p, f.x, gru_starts, G_T, G_B, f.g, dp, dx,
		     dhs, f.cache, f.work);
	grad_vs_differences(f.p, LG_ARRAY_LEN(f.p), 1, dp, 0.01f, 3e-3, 3e-3,
			    gru_loss, &f, "dp");
	grad_vs_differences(f.x, LG_ARRAY_LEN(f.x), 1, dx, 0.01f, 3e-3, 3e-3,
			    gru_loss, &f, "dx");
	grad_vs_differences(f.hs, LG_ARRAY_LEN(f.hs), 1, dhs, 0.01f, 3e-3,
			    3e-3, gru_loss, &f, "dhs");
	/* only the stored states a sequence starts from are read: those of
	 * steps 0 and of the restarts */
	for (int b = 0; b < G_B; b++)
		for (int t = 0; t < G_T; t++) {
			int used = t == 0 || gru_starts[b * G_T + t];
			float v = dhs[(b * G_T + t) * G_H];
			ck_assert_msg(used ? v != 0.0f : v == 0.0f,
				      "dhs[%d][%d] = %g", b, t, v);
		}
	free(f.cache);
	free(f.work);
}
END_TEST

/* ---- a net with a recurrent core -------------------------------------- */

/* obs 5, a tanh dense layer of 6, a GRU of 4, 3 actions */
static struct nn_shape gru_shape(void)
{
	static const uint32_t h[] = { 6 };
	struct nn_shape s = shape3(5, 3, NN_TANH, 1, h);

	s.gru = 4;
	return s;
}

#define RG_T 4
#define RG_N 12 /* three sequences of four */

struct rg_fix {
	float obs[RG_N * 5], state[RG_N * 4], logp[RG_N], value[RG_N];
	float adv[RG_N], ret[RG_N];
	uint8_t mask[RG_N * 3], start[RG_N], pad[RG_N];
	int32_t action[RG_N];
	struct ppo_minibatch mb;
};

/* Sequence 1 restarts at its step 2, sequence 2 ends after two steps
 * (two padding rows); behaviour log-probabilities near the net's so the
 * ratios stay far from the clip. */
static void rg_fix_init(struct rg_fix *f, lg_rng *r)
{
	fill_normal(f->obs, LG_ARRAY_LEN(f->obs), r);
	fill_normal(f->state, LG_ARRAY_LEN(f->state), r);
	fill_normal(f->value, RG_N, r);
	fill_normal(f->adv, RG_N, r);
	fill_normal(f->ret, RG_N, r);
	memset(f->start, 0, sizeof f->start);
	memset(f->pad, 0, sizeof f->pad);
	f->start[RG_T + 2] = 1;
	f->pad[2 * RG_T + 2] = f->pad[2 * RG_T + 3] = 1;
	for (size_t i = 0; i < RG_N; i++) {
		for (int a = 0; a < 3; a++)
			f->mask[i * 3 + a] = a != (int)(i % 4);
		f->action[i] = (int32_t)((i + 1) % 4 == 3 ? 0 : (i + 1) % 4);
		f->logp[i] = -1.1f + 0.1f * (float)lg_rng_normal(r);
	}
	f->mb = (struct ppo_minibatch){
		RG_N,	    f->obs,   f->mask,	f->action, f->logp, f->value,
		f->adv,	    f->ret,   NULL,	RG_T,	   f->state, f->start,
		f->pad,	    NULL,     NULL, NULL, NULL,
	};
}

static double rg_loss(ppo *p, struct rg_fix *f)
{
	struct ppo_stats st;

	ck_assert_int_eq(ppo_loss_grad(p, &f->mb, &st), 0);
	return st.loss;
}

/* rg_loss as grad_vs_differences calls it. */
struct rg_arg {
	ppo *p;
	struct rg_fix *f;
};

static double rg_loss_of(void *arg)
{
	struct rg_arg *a = arg;

	return rg_loss(a->p, a->f);
}

/* The PPO loss's gradient through dense -> GRU -> head against central
 * differences of the loss (float: eps 0.01, tolerance 5e-3 relative plus
 * 2e-4), with a restart and padding; two threads (a sequence each, the
 * third on one of them) give the same gradient; padding rows change
 * nothing whatever they hold. */
START_TEST(gradcheck_recurrent)
{
	struct nn_shape s = gru_shape();
	struct ppo_opts po;
	struct rg_fix f;
	ppo *p = NULL, *p2 = NULL;
	char err[256];
	size_t np;
	lg_rng r;

	ppo_opts_default(&po);
	po.seq_len = RG_T;
	po.clip = 10;
	po.ent_coef = 0.1;
	po.threads = 1;
	ck_assert_msg(ppo_new(&p, NULL, &s, &po, 3, err, sizeof err) == 0,
		      "%s", err);
	lg_rng_seed(&r, 41);
	float *w = nn_params(ppo_net(p), &np);
	for (size_t i = 0; i < np; i++)
		w[i] = (float)(0.4 * lg_rng_normal(&r));
	rg_fix_init(&f, &r);
	rg_loss(p, &f);
	float *g = malloc(np * sizeof *g);
	memcpy(g, ppo_grad(p, NULL), np * sizeof *g);
	struct rg_arg ra = { p, &f };
	grad_vs_differences(w, np, 1, g, 0.01f, 5e-3, 2e-4, rg_loss_of, &ra,
			    "param");
	/* padding rows hold anything */
	for (int k = 0; k < 5; k++)
		f.obs[(2 * RG_T + 3) * 5 + k] = 1e3f;
	f.adv[2 * RG_T + 2] = 1e3f;
	rg_loss(p, &f);
	const float *g2 = ppo_grad(p, NULL);
	for (size_t i = 0; i < np; i++)
		ck_assert_msg(g2[i] == g[i], "padding moved param %zu", i);
	/* two threads */
	po.threads = 2;
	nn *copy = NULL;
	ck_assert_int_eq(nn_clone(&copy, ppo_net(p)), 0);
	ck_assert_int_eq(ppo_new(&p2, copy, NULL, &po, 3, err, sizeof err), 0);
	ck_assert_int_eq(ppo_loss_grad(p2, &f.mb, NULL), 0);
	g2 = ppo_grad(p2, NULL);
	for (size_t i = 0; i < np; i++)
		ck_assert_msg(fabsf(g2[i] - g[i]) <= 1e-5f * (1 + fabsf(g[i])),
			      "param %zu: %g on two threads, %g on one", i,
			      g2[i], g[i]);
	/* a minibatch that is not whole sequences, or without states */
	f.mb.n = RG_N - 1;
	ck_assert_int_eq(ppo_loss_grad(p, &f.mb, NULL), LG_EINVAL);
	f.mb.n = RG_N;
	f.mb.state = NULL;
	ck_assert_int_eq(ppo_loss_grad(p, &f.mb, NULL), LG_EINVAL);
	free(g);
	ppo_free(p);
	ppo_free(p2);
}
END_TEST

/* Episodes played step by step with nn_act_state into a batch with the
 * state column (as the collector builds it), 3 episodes of 5 steps then
 * a cut stream of 4: PPO's sequences (seq_len 4, so chunks start
 * mid-episode and an episode starts mid-chunk; 19 rows, the last chunk
 * padded) rebuild every row's log-probability from the stored states:
 * ratio 1 everywhere. With the states zeroed they do not. */
START_TEST(recurrent_training_matches_inference)
{
	struct nn_shape s = gru_shape();
	struct lg_rows b;
	struct ppo_opts po;
	struct ppo_stats st;
	nn *net = NULL, *copy = NULL, *back = NULL;
	nn_ws *ws = NULL;
	ppo *p = NULL;
	lg_buf buf = { 0 };
	float h[4];
	char err[256];
	lg_rng r;
	size_t n = 19, np;

	ck_assert_int_eq(nn_new(&net, &s, 5), 0);
	lg_rng_seed(&r, 43);
	float *w = nn_params(net, &np);
	for (size_t i = 0; i < np; i++)
		w[i] = (float)(0.5 * lg_rng_normal(&r));
	ck_assert_uint_eq(nn_state_len(net), 4);
	ck_assert_int_eq(lg_rows_init(&b, 5, 3, 4, n), 0);
	ck_assert_int_eq(nn_ws_new(&ws, net, 1), 0);
	for (size_t i = 0; i < n; i++) {
		if (i % 5 == 0)
			memset(h, 0, sizeof h);
		fill_normal(b.obs + i * 5, 5, &r);
		memset(b.mask + i * 3, 1, 3);
		memcpy(b.state + i * 4, h, sizeof h);
		ck_assert_int_eq(nn_act_state(net, ws, b.obs + i * 5,
					      b.mask + i * 3, 1, h, &r,
					      b.action + i, b.logp + i,
					      b.value + i), 0);
		b.reward[i] = (float)lg_rng_normal(&r);
		b.done[i] = i % 5 == 4 ? LG_ROW_END : LG_ROW_NEXT;
	}
	b.done[n - 1] = LG_ROW_CUT;
	b.n = n;
	ppo_opts_default(&po);
	po.seq_len = 4;
	po.minibatch = 8;
	ck_assert_int_eq(nn_clone(&copy, net), 0);
	ck_assert_msg(ppo_new(&p, copy, NULL, &po, 1, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(ppo_evaluate(p, &b, &st), 0);
	ck_assert_msg(fabs(st.approx_kl) < 1e-7 && st.clip_frac == 0,
		      "kl %g clip %g", st.approx_kl, st.clip_frac);
	ck_assert_uint_eq(st.minibatches, 3); /* 5 chunks, 2 a minibatch */
	memset(b.state, 0, n * 4 * sizeof *b.state);
	ck_assert_int_eq(ppo_evaluate(p, &b, &st), 0);
	ck_assert_msg(st.approx_kl > 1e-4, "kl %g without the states",
		      st.approx_kl);
	/* a batch without the state column is not this net's */
	b.state_len = 0;
	ck_assert_int_eq(ppo_evaluate(p, &b, &st), LG_EINVAL);
	b.state_len = 4;
	/* version 4 files: the core's width at 308, bit for bit back */
	ck_assert_int_eq(nn_save(net, &buf), 0);
	ck_assert_uint_eq(lg_get_le32(buf.data + 4), NN_FILE_VERSION4);
	ck_assert_uint_eq(lg_get_le32(buf.data + 308), 4);
	ck_assert_msg(nn_load(&back, buf.data, buf.len, err, sizeof err) == 0,
		      "%s", err);
	ck_assert(!memcmp(nn_params_const(back, NULL), w, np * sizeof *w));
	nn_free(back);
	back = NULL;
	/* the same header as version 3 is refused: 308 is reserved there */
	lg_put_le32(buf.data + 4, NN_FILE_VERSION3);
	lg_put_le32(buf.data + 312, lg_crc32c(0, buf.data, 312));
	ck_assert_int_eq(nn_load(&back, buf.data, buf.len, err, sizeof err),
			 LG_ECORRUPT);
	ck_assert_msg(strstr(err, "reserved"), "%s", err);
	lg_buf_free(&buf);
	lg_rows_free(&b);
	nn_ws_free(ws);
	ppo_free(p);
	nn_free(net);
}
END_TEST

/* A cue at an episode's first step, blanks, then a choice that pays 1 if
 * it names the cue and -1 if not: memory is the whole task. */
#define RM_STEPS 4
#define RM_EPS 64

static void rm_obs(int t, int cue, float *o)
{
	o[0] = t == 0;
	o[1] = t == 0 ? (float)(2 * cue - 1) : 0;
	o[2] = (float)t / RM_STEPS;
}

/* RM_EPS episodes with the net into b; the share of right choices. */
static double rm_play(nn *net, nn_ws *ws, struct lg_rows *b, lg_rng *r)
{
	size_t S = nn_state_len(net), right = 0, k = 0;
	float h[8];

	for (int e = 0; e < RM_EPS; e++) {
		int cue = (int)lg_rng_below(r, 2);
		memset(h, 0, sizeof h);
		for (int t = 0; t < RM_STEPS; t++, k++) {
			rm_obs(t, cue, b->obs + k * 3);
			memset(b->mask + k * 2, 1, 2);
			if (S)
				memcpy(b->state + k * S, h, S * sizeof *h);
			ck_assert_int_eq(nn_act_state(net, ws, b->obs + k * 3,
						      b->mask + k * 2, 1,
						      S ? h : NULL, r,
						      b->action + k,
						      b->logp + k,
						      b->value + k), 0);
			b->reward[k] = 0;
			b->done[k] = LG_ROW_NEXT;
		}
		int ok = b->action[k - 1] == cue;
		b->reward[k - 1] = ok ? 1.0f : -1.0f;
		b->done[k - 1] = LG_ROW_END;
		right += (size_t)ok;
	}
	b->n = k;
	return (double)right / RM_EPS;
}

/* The recurrent net learns the task; the same net without the core
 * cannot beat chance. After 150 updates the share of right choices over
 * the last 10 batches (640 episodes): the core's > 0.9; without it the
 * expectation is 0.5 whatever it learns (sd 0.02 over 640), so < 0.62. */
static double rm_train(uint32_t gru)
{
	static const uint32_t hdn[] = { 16 };
	struct nn_shape s = shape3(3, 2, NN_TANH, 1, hdn);
	struct ppo_opts po;
	struct lg_rows b;
	nn_ws *ws = NULL;
	ppo *p = NULL;
	double right = 0;
	char err[256];
	lg_rng r;

	s.gru = gru;
	ppo_opts_default(&po);
	po.lr = 3e-3;
	po.gamma = 1;
	po.gae_lambda = 1;
	po.seq_len = 8; /* two episodes a sequence */
	po.minibatch = 64;
	po.ent_coef = 0.003;
	ck_assert_msg(ppo_new(&p, NULL, &s, &po, 7, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(lg_rows_init(&b, 3, 2, gru, RM_EPS * RM_STEPS), 0);
	ck_assert_int_eq(nn_ws_new(&ws, ppo_net(p), 1), 0);
	lg_rng_seed(&r, 47);
	for (int u = 0; u < 150; u++) {
		double got = rm_play(ppo_net(p), ws, &b, &r);
		if (u >= 140)
			right += got / 10;
		ck_assert_int_eq(ppo_update(p, &b, NULL), 0);
	}
	nn_ws_free(ws);
	lg_rows_free(&b);
	ppo_free(p);
	return right;
}

START_TEST(recurrent_learns_to_remember)
{
	double with = rm_train(8), without = rm_train(0);

	ck_assert_msg(with > 0.9, "with the core: %.3f right", with);
	ck_assert_msg(without < 0.62, "without: %.3f right", without);
	printf("learner: remembering a cue over %d steps: %.3f right with a "
	       "GRU core, %.3f without\n", RM_STEPS, with, without);
}
END_TEST

Suite *suite_gru(void)
{
	Suite *s = suite_create("gru");
	const struct tu_test gradient_tests[] = {
		{ gru_forward_is_the_definition, 1 },
		{ gru_gradients_match_differences, 1 },
		{ gradcheck_recurrent, 1 },
		{ recurrent_training_matches_inference, 1 },
	};
	const struct tu_test learning_tests[] = {
		{ recurrent_learns_to_remember, 1 },
	};

	TU_TCASE(s, "gradient", 60, gradient_tests);
	TU_TCASE(s, "learning", 180, learning_tests);
	return s;
}
