/* tests/learner_fixture.c: helpers shared by the learner's suites
 * (check_nn, check_conv, check_gru, check_ppo, check_mmd): the
 * double-precision reference of the PPO loss and the finite-difference
 * gradient check built on it, fixed batches from a net's own play, and
 * shape and fill helpers. Declared in tests/learner_fixture.h. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learner/learner.h"
#include "learner/learner_internal.h"
#include "learner/ppo_internal.h"
#include "tests/learner_fixture.h"
#include "util/util.h"

struct nn_shape shape3(uint32_t obs, uint32_t actions, int act,
		       uint32_t nh, const uint32_t *h)
{
	struct nn_shape s;

	memset(&s, 0, sizeof s);
	s.obs = obs;
	s.actions = actions;
	s.act = act;
	s.nhidden = nh;
	for (uint32_t i = 0; i < nh; i++)
		s.hidden[i] = h[i];
	return s;
}

/* ---- double-precision reference of the loss --------------------------- */

/* Each layer's activation (0 relu, 1 tanh, 2 none) and skip, read from
 * the shape as learner.h defines it (not from the net's own tables). */
static void ref_plan(const struct nn_shape *s, int *act, int *skip)
{
	static const int lact[] = { -1, 0, 1, 2 };
	size_t l = 0;

	for (uint32_t i = 0; i < s->nconv; i++)
		for (uint32_t j = 0; j <= s->conv[i].residual; j++) {
			act[l] = s->conv[i].act ? lact[s->conv[i].act]
						: s->act;
			skip[l++] = s->conv[i].residual && j == 1;
		}
	for (uint32_t i = 0; i < s->nhidden; i++) {
		act[l] = s->hidden_act[i] ? lact[s->hidden_act[i]] : s->act;
		skip[l++] = 0;
	}
	act[l] = 2; /* the head */
	skip[l] = 0;
}

static double ref_act(int act, double z)
{
	return act == 0 ? (z > 0 ? z : 0) : act == 1 ? tanh(z) : z;
}

/* The PPO loss of learner/ppo.c, written out naively in double. */
double ref_loss(const nn *net, const double *p,
		const struct ppo_opts *o, const struct refbatch *b)
{
	const struct nn_shape *s = nn_shape_of(net);
	size_t L = nn_tensor_count(net) / 2, A = s->actions;
	double total_pg = 0, total_vl = 0, total_ent = 0, total_mkl = 0;
	double total_ce = 0;
	double *cur = malloc(4096 * sizeof *cur), *nxt = malloc(4096 *
							       sizeof *nxt);
	double *before = malloc(4096 * sizeof *before); /* layer l-1's input */
	int acts[64], skips[64];

	ck_assert_ptr_nonnull(cur);
	ck_assert_ptr_nonnull(nxt);
	ck_assert_ptr_nonnull(before);
	ck_assert_uint_le(L, 64);
	ref_plan(s, acts, skips);
	for (size_t i = 0; i < b->n; i++) {
		size_t in = s->obs, in_before = 0;
		double lse, mx = -1e300, ent = 0, ratio, rc, pg, v, vl;
		for (size_t k = 0; k < in; k++)
			cur[k] = b->obs[i * in + k];
		for (size_t l = 0; l < L; l++) {
			size_t out;
			struct nn_tensor w, bb;
			nn_tensor_info(net, 2 * l, &w);
			nn_tensor_info(net, 2 * l + 1, &bb);
			if (l < (size_t)net->nconv) {
				/* the definition of a convolution, in double */
				const struct conv2d *c = &net->cv[l];
				size_t P = (size_t)c->oh * c->ow;
				ck_assert(c->cout * P <= 4096);
				for (uint32_t co = 0; co < c->cout; co++)
					for (size_t q = 0; q < P; q++) {
						long oy = (long)(q / c->ow);
						long ox = (long)(q % c->ow);
						double z = p[bb.offset + co];
						for (uint32_t ci = 0; ci < c->cin; ci++)
							for (uint32_t ki = 0; ki < c->k; ki++)
								for (uint32_t kj = 0; kj < c->k; kj++) {
									long iy = oy * c->stride - c->pad + ki;
									long ix = ox * c->stride - c->pad + kj;
									if (iy < 0 || ix < 0 || iy >= (long)c->h || ix >= (long)c->w)
										continue;
									z += cur[((size_t)ci * c->h + (size_t)iy) * c->w + (size_t)ix] *
									     p[w.offset + co * w.cols + ((size_t)ci * c->k + ki) * c->k + kj];
								}
						nxt[co * P + q] = z;
					}
				out = c->cout * P;
			} else {
				ck_assert(w.cols <= 4096);
				for (size_t j = 0; j < w.cols; j++) {
					double z = p[bb.offset + j];
					for (size_t k = 0; k < w.rows; k++)
						z += cur[k] *
						     p[w.offset + k * w.cols + j];
					nxt[j] = z;
				}
				out = w.cols;
			}
			if (skips[l]) {
				/* a residual block adds its input */
				ck_assert_uint_eq(in_before, out);
				for (size_t k = 0; k < out; k++)
					nxt[k] += before[k];
			}
			for (size_t k = 0; k < out; k++)
				nxt[k] = ref_act(acts[l], nxt[k]);
			memcpy(before, cur, in * sizeof *cur);
			in_before = in;
			memcpy(cur, nxt, out * sizeof *cur);
			in = out;
		}
		for (size_t a = 0; a < A; a++)
			if (b->mask[i * A + a] && cur[a] > mx)
				mx = cur[a];
		lse = 0;
		for (size_t a = 0; a < A; a++)
			if (b->mask[i * A + a])
				lse += exp(cur[a] - mx);
		lse = mx + log(lse);
		for (size_t a = 0; a < A; a++)
			if (b->mask[i * A + a]) {
				ent -= exp(cur[a] - lse) * (cur[a] - lse);
				total_mkl += exp(cur[a] - lse) *
					     (cur[a] - lse - b->mlogp[i * A + a]);
				if (b->use_visits)
					total_ce -= b->visits[i * A + a] *
						    (cur[a] - lse);
			}
		ratio = exp(cur[b->action[i]] - lse - b->logp[i]);
		rc = fmin(fmax(ratio, 1 - o->clip), 1 + o->clip);
		pg = -fmin(ratio * b->adv[i], rc * b->adv[i]);
		v = cur[A];
		vl = (v - b->ret[i]) * (v - b->ret[i]);
		if (o->value_clip > 0) {
			double vc = b->value[i] +
				    fmin(fmax(v - b->value[i], -o->value_clip),
					 o->value_clip);
			vl = fmax(vl, (vc - b->ret[i]) * (vc - b->ret[i]));
		}
		total_pg += pg;
		total_vl += 0.5 * vl;
		total_ent += ent;
	}
	free(cur);
	free(nxt);
	free(before);
	return (o->pg_coef * total_pg + o->vf_coef * total_vl -
		o->ent_coef * total_ent + o->magnet_coef * total_mkl +
		o->policy_coef * total_ce) /
	       (double)b->n;
}

void refbatch_free(struct refbatch *b)
{
	free(b->obs);
	free(b->logp);
	free(b->value);
	free(b->adv);
	free(b->ret);
	free(b->mask);
	free(b->action);
	free(b->mlogp);
	free(b->visits);
}

/* Rows with random masks (action A-1 illegal everywhere, so its head
 * column must get no gradient), old log-probabilities spread so that some
 * ratios fall outside the clip range, values near the returns so that the
 * value clip is active for some rows. */
void refbatch_make(struct refbatch *b, const nn *net, size_t n,
		   uint64_t seed)
{
	const struct nn_shape *s = nn_shape_of(net);
	size_t A = s->actions;
	lg_rng r;

	lg_rng_seed(&r, seed);
	b->n = n;
	b->obs = malloc(n * s->obs * sizeof(float));
	b->logp = malloc(n * sizeof(float));
	b->value = malloc(n * sizeof(float));
	b->adv = malloc(n * sizeof(float));
	b->ret = malloc(n * sizeof(float));
	b->mask = malloc(n * A);
	b->action = malloc(n * sizeof(int32_t));
	b->mlogp = malloc(n * A * sizeof(float));
	b->visits = malloc(n * A * sizeof(float));
	b->use_visits = 0;
	for (size_t i = 0; i < n * s->obs; i++)
		b->obs[i] = (float)lg_rng_normal(&r);
	for (size_t i = 0; i < n; i++) {
		int legal[64], k = 0;
		for (size_t a = 0; a + 1 < A; a++) {
			b->mask[i * A + a] = lg_rng_below(&r, 3) != 0;
			if (b->mask[i * A + a])
				legal[k++] = (int)a;
		}
		b->mask[i * A + A - 1] = 0;
		if (!k) {
			b->mask[i * A] = 1;
			legal[k++] = 0;
		}
		b->action[i] = legal[lg_rng_below(&r, (uint64_t)k)];
		b->logp[i] = (float)(-1.0 - lg_rng_double(&r));
		b->value[i] = (float)lg_rng_normal(&r);
		b->ret[i] = b->value[i] + (float)(0.3 * lg_rng_normal(&r));
		b->adv[i] = (float)lg_rng_normal(&r);
		/* a magnet distribution over the legal actions */
		{
			double z[64], sum = 0;
			for (size_t a = 0; a < A; a++) {
				z[a] = b->mask[i * A + a]
					       ? exp(lg_rng_normal(&r))
					       : 0;
				sum += z[a];
			}
			for (size_t a = 0; a < A; a++)
				b->mlogp[i * A + a] =
					z[a] > 0 ? (float)log(z[a] / sum) : 0;
		}
		/* visit shares over the legal actions, some of them 0 (a
		 * search leaves moves unvisited) */
		{
			double sum = 0;
			for (size_t a = 0; a < A; a++) {
				b->visits[i * A + a] =
					b->mask[i * A + a] &&
							lg_rng_below(&r, 4)
						? (float)lg_rng_below(&r, 20)
						: 0;
				sum += b->visits[i * A + a];
			}
			if (sum == 0) {
				b->visits[i * A + (size_t)b->action[i]] = 1;
				sum = 1;
			}
			for (size_t a = 0; a < A; a++)
				b->visits[i * A + a] /= (float)sum;
		}
	}
}

/* both_branches: the batch must also have rows clipped and rows not
 * (the MLP checks cover the clipped objective; the convolution check is
 * about the torso, which feeds both branches alike). */
/* Set by gradcheck_wino: grad_check_shape switches every 3x3 stride-1
 * convolution of the net to Winograd (conv2d_init leaves layers this
 * narrow to im2col), the magnet off. */
int wino_force;
/* Set by gradcheck_search: AlphaZero's terms on (the clipped surrogate
 * weighed by pg_coef, the cross-entropy to the visit shares). */
int search_force;

static void force_wino(nn *net)
{
	for (int l = 0; l < net->nconv; l++)
		if (net->cv[l].k == 3 && net->cv[l].stride == 1)
			ck_assert_int_eq(conv2d_set_method(&net->cv[l], 1), 0);
}

void grad_check_shape(const struct nn_shape *sp, uint64_t seed,
		      double magnet, int both_branches)
{
	struct nn_shape s = *sp;
	int act = s.act;
	struct ppo_opts o;
	struct ppo_stats st;
	struct refbatch b;
	struct ppo_minibatch mb;
	ppo *p = NULL;
	char err[256];
	size_t np, ng;
	float *pf;
	const float *g;
	double *pd, loss;
	lg_rng r;

	ppo_opts_default(&o);
	o.clip = 0.2;
	o.value_clip = 0.2;
	o.ent_coef = 0.05;
	o.vf_coef = 0.7;
	o.magnet_coef = magnet;
	o.threads = 1;
	if (search_force) {
		o.pg_coef = 0.4;
		o.policy_coef = 0.8;
	}
	ck_assert_msg(ppo_new(&p, NULL, &s, &o, seed, err, sizeof err) == 0,
		      "%s", err);
	if (wino_force) {
		ck_assert(magnet == 0);
		force_wino(ppo_net(p));
	}
	pf = nn_params(ppo_net(p), &np);
	/* larger than the init so the policy is far from uniform */
	lg_rng_seed(&r, seed + 1);
	for (size_t i = 0; i < np; i++)
		pf[i] = (float)(0.6 * lg_rng_normal(&r));
	refbatch_make(&b, ppo_net(p), 9, seed + 2);
	b.use_visits = search_force;
	mb = (struct ppo_minibatch){ b.n, b.obs, b.mask, b.action, b.logp,
				     b.value, b.adv, b.ret,
				     magnet > 0 ? b.mlogp : NULL,
				     0, NULL, NULL, NULL,
				     search_force ? b.visits : NULL, NULL,
				     NULL, NULL };
	ck_assert_int_eq(ppo_loss_grad(p, &mb, &st), 0);
	g = ppo_grad(p, &ng);
	ck_assert_uint_eq(ng, np);
	pd = malloc(np * sizeof *pd);
	for (size_t i = 0; i < np; i++)
		pd[i] = pf[i];
	loss = ref_loss(ppo_net(p), pd, &o, &b);
	ck_assert_msg(fabs(loss - st.loss) < 1e-5 * (1 + fabs(loss)),
		      "loss %.9g vs reference %.9g", st.loss, loss);
	for (size_t t = 0; t < nn_tensor_count(ppo_net(p)); t++) {
		struct nn_tensor ti;
		double max_abs = 0, max_rel = 0;
		nn_tensor_info(ppo_net(p), t, &ti);
		for (size_t k = 0; k < ti.rows * ti.cols; k++) {
			size_t i = ti.offset + k;
			double hh = 1e-6, lp, lm, num, diff;
			pd[i] = (double)pf[i] + hh;
			lp = ref_loss(ppo_net(p), pd, &o, &b);
			pd[i] = (double)pf[i] - hh;
			lm = ref_loss(ppo_net(p), pd, &o, &b);
			pd[i] = pf[i];
			num = (lp - lm) / (2 * hh);
			diff = fabs(num - g[i]);
			ck_assert_msg(diff <= 2e-5 + 1e-3 * fabs(num),
				      "%s act %d: %s[%zu] analytic %.8g "
				      "numeric %.8g", act ? "tanh" : "relu",
				      act, ti.name, k, g[i], num);
			max_abs = fmax(max_abs, diff);
			if (fabs(num) > 1e-4)
				max_rel = fmax(max_rel, diff / fabs(num));
		}
		fprintf(stderr, "gradcheck %s %-6s %4zu params: max |err| "
			"%.2e, max rel err %.2e\n", act ? "tanh" : "relu",
			ti.name, ti.rows * ti.cols, max_abs, max_rel);
	}
	/* masking: logits of an action illegal in every row get nothing */
	{
		struct nn_tensor wh, bh;
		size_t L = nn_tensor_count(ppo_net(p));
		nn_tensor_info(ppo_net(p), L - 2, &wh);
		nn_tensor_info(ppo_net(p), L - 1, &bh);
		for (size_t k = 0; k < wh.rows; k++)
			ck_assert(g[wh.offset + k * wh.cols + 3] == 0.0f);
		ck_assert(g[bh.offset + 3] == 0.0f);
	}
	if (both_branches)
		ck_assert(st.clip_frac > 0 && st.clip_frac < 1);
	if (search_force)
		ck_assert(st.policy_loss > 0);
	else
		ck_assert(st.policy_loss == 0);
	free(pd);
	refbatch_free(&b);
	ppo_free(p);
}

void grad_check(int act, uint64_t seed, double magnet)
{
	static const uint32_t h[] = { 6, 5 };
	struct nn_shape s = shape3(5, 4, act, 2, h);

	grad_check_shape(&s, seed, magnet, 1);
}

/* ---- PPO on a fixed batch ------------------------------------------ */

void fixed_make(struct fixed *f, const nn *net, size_t n,
		uint64_t seed)
{
	const struct nn_shape *s = nn_shape_of(net);
	nn_ws *ws = NULL;
	lg_rng r;

	lg_rng_seed(&r, seed);
	f->obs = malloc(n * s->obs * sizeof(float));
	f->logp = malloc(n * sizeof(float));
	f->value = malloc(n * sizeof(float));
	f->reward = malloc(n * sizeof(float));
	f->mask = malloc(n * s->actions);
	f->done = malloc(n);
	f->action = malloc(n * sizeof(int32_t));
	for (size_t i = 0; i < n * s->obs; i++)
		f->obs[i] = (float)lg_rng_normal(&r);
	for (size_t i = 0; i < n; i++) {
		for (size_t a = 0; a < s->actions; a++)
			f->mask[i * s->actions + a] = lg_rng_below(&r, 4) != 0;
		f->mask[i * s->actions + lg_rng_below(&r, s->actions)] = 1;
		f->done[i] = i % 8 == 7;
	}
	ck_assert_int_eq(nn_ws_new(&ws, net, n), 0);
	ck_assert_int_eq(nn_act(net, ws, f->obs, f->mask, n, &r, f->action,
				f->logp, f->value), 0);
	/* reward: +1 for even actions at the episode's end */
	for (size_t i = 0; i < n; i++)
		f->reward[i] = f->done[i] ? (f->action[i] % 2 ? -1.0f : 1.0f)
					  : 0;
	nn_ws_free(ws);
	f->b = (struct lg_rows){ n, n, s->obs, s->actions, f->obs, f->mask,
				 f->action, f->logp, f->value, f->reward,
				 f->done, 0, NULL, 0, NULL, NULL, NULL,
				 0, 0 };
}

void fixed_free(struct fixed *f)
{
	free(f->obs);
	free(f->logp);
	free(f->value);
	free(f->reward);
	free(f->mask);
	free(f->done);
	free(f->action);
}

void fill_normal(float *v, size_t n, lg_rng *r)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (float)lg_rng_normal(r);
}

void grad_vs_differences(float *v, size_t n, size_t step, const float *grad,
			 float eps, double rel, double abs,
			 double (*loss)(void *), void *arg, const char *what)
{
	for (size_t i = 0; i < n; i += step) {
		float keep = v[i];
		v[i] = keep + eps;
		double lp = loss(arg);
		v[i] = keep - eps;
		double lm = loss(arg);
		v[i] = keep;
		double num = (lp - lm) / (2 * eps);
		ck_assert_msg(fabs(num - grad[i]) <= rel * fabs(num) + abs,
			      "%s[%zu]: backward %g, differences %g", what, i,
			      grad[i], num);
	}
}

void conv_bufs_open(struct conv_bufs *B, const struct conv2d *c, size_t n,
		    lg_rng *r, int fill)
{
	B->c = c;
	B->n = n;
	B->nw = (size_t)c->cout * c->cin * c->k * c->k;
	B->nx = n * c->cin * c->h * c->w;
	B->ny = n * c->cout * c->oh * c->ow;
	B->W = malloc(B->nw * sizeof *B->W);
	B->b = malloc(c->cout * sizeof *B->b);
	B->x = malloc(B->nx * sizeof *B->x);
	B->y = malloc(B->ny * sizeof *B->y);
	B->g = malloc(B->ny * sizeof *B->g);
	B->dx = malloc(B->nx * sizeof *B->dx);
	B->dW = calloc(B->nw, sizeof *B->dW);
	B->db = calloc(c->cout, sizeof *B->db);
	B->sc = malloc(conv2d_scratch(c, n) * sizeof *B->sc);
	ck_assert(B->W && B->b && B->x && B->y && B->g && B->dx && B->dW &&
		  B->db && B->sc);
	fill_normal(B->W, B->nw, r);
	if (fill & CONV_FILL_B)
		fill_normal(B->b, c->cout, r);
	fill_normal(B->x, B->nx, r);
	if (fill & CONV_FILL_G)
		fill_normal(B->g, B->ny, r);
}

void conv_bufs_close(struct conv_bufs *B)
{
	free(B->W);
	free(B->b);
	free(B->x);
	free(B->y);
	free(B->g);
	free(B->dx);
	free(B->dW);
	free(B->db);
	free(B->sc);
}

double conv_bufs_loss(void *arg)
{
	struct conv_bufs *B = arg;
	double L = 0;

	conv2d_forward(B->c, B->W, B->b, B->x, B->n, B->y, B->sc);
	for (size_t i = 0; i < B->ny; i++)
		L += (double)B->y[i] * B->g[i];
	return L;
}
