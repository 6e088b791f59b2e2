/*
 * learner/nn.c: the net (shape, size table, deterministic init), batched
 * forward through cblas_sgemm, inference for collectors (nn_act), the
 * env_policy adapter and the sgemm peak probe. The parameter file format
 * is in nnfile.c; training (backward, PPO, Adam) in ppo.c.
 */
#include "learner/learner_internal.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shape ---------------------------------------------------------- */

/* The torso's convolution layers as the net runs them (a residual entry
 * of the shape is two), each reading the one before (the first, the
 * observation's planes), with their activations (enum nn_act) and skips. */
struct conv_plan {
	int n;
	struct conv2d cv[NN_MAX_CONVL];
	uint8_t act[NN_MAX_CONVL], skip[NN_MAX_CONVL];
};

/* A layer activation of the shape resolved against the net's; -1 if
 * unknown. */
static int resolve_act(uint32_t lact, int net)
{
	switch (lact) {
	case NN_LACT_NET:
		return net;
	case NN_LACT_RELU:
		return NN_RELU;
	case NN_LACT_TANH:
		return NN_TANH;
	case NN_LACT_NONE:
		return NN_NONE;
	default:
		return -1;
	}
}

/* The plan of s's conv[0 .. nconv) (nconv <= NN_MAX_CONV). 0, or the
 * error of the first entry that does not fit, err naming it. */
static int conv_chain(const struct nn_shape *s, struct conv_plan *pl,
		      char *err, size_t errlen)
{
	uint32_t c = s->planes[0], h = s->planes[1], w = s->planes[2];

	pl->n = 0;
	for (uint32_t i = 0; i < s->nconv; i++) {
		const struct nn_conv *k = &s->conv[i];
		const char *what = k->residual ? "residual block" : "convolution";
		int act = resolve_act(k->act, s->act);
		char e[160];
		int rc;

		if (act < 0 || k->residual > 1) {
			lg_errf(err, errlen, "%s %u: unknown %s %u", what, i,
				act < 0 ? "activation" : "kind",
				act < 0 ? k->act : k->residual);
			return LG_EINVAL;
		}
		if (k->residual) {
			if (k->kernel % 2 == 0 || k->stride != 1 ||
			    k->pad != (k->kernel - 1) / 2) {
				lg_errf(err, errlen, "residual block %u: kernel "
					"%u must be odd, with stride 1 and "
					"padding (kernel-1)/2 (got %u, %u)", i,
					k->kernel, k->stride, k->pad);
				return LG_EINVAL;
			}
			if (k->channels != c) {
				lg_errf(err, errlen, "residual block %u: its "
					"input has %u channels, the block %u "
					"(a conv2d before it can change them)",
					i, c, k->channels);
				return LG_EINVAL;
			}
		}
		for (uint32_t j = 0; j <= k->residual; j++) {
			struct conv2d *cv = &pl->cv[pl->n];
			rc = conv2d_init(cv, c, h, w, k->channels, k->kernel,
					 k->stride, k->pad, e, sizeof e);
			if (rc) {
				lg_errf(err, errlen, "%s %u: %s", what, i, e);
				return rc;
			}
			pl->act[pl->n] = (uint8_t)act;
			pl->skip[pl->n] = (uint8_t)(k->residual && j == 1);
			pl->n++;
			c = cv->cout;
			h = cv->oh;
			w = cv->ow;
		}
	}
	return 0;
}

int nn_shape_check(const struct nn_shape *s, char *err, size_t errlen)
{
	uint64_t total = 0, in;

	if (!s) {
		lg_errf(err, errlen, "no shape");
		return LG_EINVAL;
	}
	if (s->obs < 1 || s->obs > NN_MAX_OBS) {
		lg_errf(err, errlen, "obs %u not in [1, %u]", s->obs,
			NN_MAX_OBS);
		return LG_ERANGE;
	}
	if (s->actions < 1 || s->actions > NN_MAX_ACTIONS) {
		lg_errf(err, errlen, "actions %u not in [1, %u]", s->actions,
			NN_MAX_ACTIONS);
		return LG_ERANGE;
	}
	if (s->nhidden > NN_MAX_LAYERS) {
		lg_errf(err, errlen, "%u hidden layers, at most %d",
			s->nhidden, NN_MAX_LAYERS);
		return LG_ERANGE;
	}
	if (s->act != NN_RELU && s->act != NN_TANH) {
		lg_errf(err, errlen, "unknown activation %d", s->act);
		return LG_EINVAL;
	}
	if (s->nconv > NN_MAX_CONV) {
		lg_errf(err, errlen, "%u convolution layers, at most %d",
			s->nconv, NN_MAX_CONV);
		return LG_ERANGE;
	}
	for (uint32_t i = 0; i < s->nhidden; i++)
		if (resolve_act(s->hidden_act[i], s->act) < 0) {
			lg_errf(err, errlen, "hidden[%u]: unknown activation "
				"%u", i, s->hidden_act[i]);
			return LG_EINVAL;
		}
	in = s->obs;
	if (s->nconv) {
		uint32_t c = s->planes[0], h = s->planes[1], w = s->planes[2];
		if ((uint64_t)c * h * w != s->obs) {
			lg_errf(err, errlen, "convolutions need the observation "
				"as planes: %u x %u x %u is not obs %u", c, h, w,
				s->obs);
			return LG_EINVAL;
		}
		struct conv_plan pl;
		int rc = conv_chain(s, &pl, err, errlen);
		if (rc)
			return rc;
		for (int i = 0; i < pl.n; i++)
			total += (uint64_t)pl.cv[i].cout * pl.cv[i].cin *
					 pl.cv[i].k * pl.cv[i].k +
				 pl.cv[i].cout;
		in = (uint64_t)pl.cv[pl.n - 1].cout * pl.cv[pl.n - 1].oh *
		     pl.cv[pl.n - 1].ow;
	}
	if (s->gru > NN_MAX_WIDTH) {
		lg_errf(err, errlen, "recurrent core of %u, at most %u", s->gru,
			NN_MAX_WIDTH);
		return LG_ERANGE;
	}
	for (uint32_t i = 0; i <= s->nhidden; i++) {
		uint64_t out = i < s->nhidden ? s->hidden[i] : s->actions + 1;
		if (i < s->nhidden && (out < 1 || out > NN_MAX_WIDTH)) {
			lg_errf(err, errlen, "hidden[%u] = %llu not in [1, %u]",
				i, (unsigned long long)out, NN_MAX_WIDTH);
			return LG_ERANGE;
		}
		if (i == s->nhidden && s->gru) {
			/* the core before the head: (in + H) 3H + 6H */
			total += (in + s->gru) * 3 * s->gru + 6ull * s->gru;
			in = s->gru;
		}
		/* in, out <= 2^20: no overflow in 64 bits */
		total += in * out + out;
		if (total > NN_MAX_PARAMS) {
			lg_errf(err, errlen, "more than %llu parameters",
				(unsigned long long)NN_MAX_PARAMS);
			return LG_ERANGE;
		}
		in = out;
	}
	return 0;
}

/* Fill dims, the convolutions, the size table and nparams from the
 * (checked) shape. A convolution's W is cout x (cin k k), its b cout; a
 * dense layer's W is in x out, but a gathered head's (nn_gathered) is
 * out x in. */
void nn_layout(nn *n)
{
	size_t off = 0;
	struct conv_plan pl;
	int nc;

	conv_chain(&n->s, &pl, NULL, 0); /* checked by nn_shape_check */
	nc = n->nconv = pl.n;
	memcpy(n->cv, pl.cv, sizeof pl.cv);
	memset(n->act, NN_NONE, sizeof n->act);
	memset(n->skip, 0, sizeof n->skip);
	memcpy(n->act, pl.act, (size_t)nc);
	memcpy(n->skip, pl.skip, (size_t)nc);
	for (uint32_t i = 0; i < n->s.nhidden; i++)
		n->act[nc + (int)i] =
			(uint8_t)resolve_act(n->s.hidden_act[i], n->s.act);
	n->gl = n->s.gru ? nc + (int)n->s.nhidden : -1;
	n->nlayers = nc + (int)n->s.nhidden + (n->s.gru ? 1 : 0) + 1;
	n->dims[0] = n->s.obs;
	n->wmax = 1;
	for (int i = 0; i < nc; i++) {
		const struct conv2d *cv = &n->cv[i];
		n->dims[i + 1] = cv->cout * cv->oh * cv->ow;
		n->wmax = LG_MAX(n->wmax, n->dims[i + 1]);
	}
	for (uint32_t i = 0; i < n->s.nhidden; i++) {
		n->dims[nc + (int)i + 1] = n->s.hidden[i];
		n->wmax = LG_MAX(n->wmax, n->s.hidden[i]);
	}
	if (n->gl >= 0) {
		n->dims[n->gl + 1] = n->s.gru;
		n->wmax = LG_MAX(n->wmax, n->s.gru);
	}
	n->dims[n->nlayers] = n->s.actions + 1;
	n->ntensors = 0;
	for (int l = 0; l < n->nlayers; l++) {
		struct nn_tensor *wt = &n->t[n->ntensors++];
		struct nn_tensor *b = &n->t[n->ntensors++];
		int head = l == n->nlayers - 1;
		if (head) {
			snprintf(wt->name, sizeof wt->name, "Whead");
			snprintf(b->name, sizeof b->name, "bhead");
		} else if (l == n->gl) {
			snprintf(wt->name, sizeof wt->name, "G");
			snprintf(b->name, sizeof b->name, "g");
		} else if (l < nc) {
			snprintf(wt->name, sizeof wt->name, "C%d", l);
			snprintf(b->name, sizeof b->name, "c%d", l);
		} else {
			snprintf(wt->name, sizeof wt->name, "W%d", l - nc);
			snprintf(b->name, sizeof b->name, "b%d", l - nc);
		}
		wt->offset = off;
		if (l < nc) {
			wt->rows = n->cv[l].cout;
			wt->cols = (size_t)n->cv[l].cin * n->cv[l].k *
				   n->cv[l].k;
			b->cols = n->cv[l].cout;
		} else if (l == n->gl) {
			wt->rows = (size_t)n->dims[l] + n->s.gru;
			wt->cols = 3 * (size_t)n->s.gru;
			b->cols = 6 * (size_t)n->s.gru;
		} else if (head && nn_gathered(n)) {
			/* a row per action: a legal list's rows are
			 * contiguous */
			wt->rows = n->dims[l + 1];
			wt->cols = n->dims[l];
			b->cols = n->dims[l + 1];
		} else {
			wt->rows = n->dims[l];
			wt->cols = n->dims[l + 1];
			b->cols = n->dims[l + 1];
		}
		off += wt->rows * wt->cols;
		b->offset = off;
		b->rows = 1;
		off += b->cols;
	}
	n->nparams = off;
}

int nn_alloc(nn **out, const struct nn_shape *s)
{
	nn *n;

	*out = NULL;
	n = calloc(1, sizeof *n);
	if (!n)
		return LG_ENOMEM;
	n->s = *s;
	for (uint32_t i = s->nhidden; i < NN_MAX_LAYERS; i++)
		n->s.hidden[i] = n->s.hidden_act[i] = 0;
	for (uint32_t i = s->nconv; i < NN_MAX_CONV; i++)
		memset(&n->s.conv[i], 0, sizeof n->s.conv[i]);
	if (!s->nconv)
		memset(n->s.planes, 0, sizeof n->s.planes);
	nn_layout(n);
	n->p = calloc(n->nparams, sizeof *n->p);
	if (!n->p) {
		free(n);
		return LG_ENOMEM;
	}
	*out = n;
	return 0;
}

/* The core's Wi rows normal with std sqrt(1/in), Wh's sqrt(1/H) (each
 * gate's pre-activation starts at unit variance), biases 0. */
static void init_gru(nn *n, int l, lg_rng *r)
{
	const struct nn_tensor *w = &n->t[2 * l];
	float *W = n->p + w->offset;
	size_t in = n->dims[l];

	for (size_t i = 0; i < w->rows; i++) {
		double std = sqrt(1.0 / (double)(i < in ? in : n->s.gru));
		for (size_t j = 0; j < w->cols; j++)
			W[i * w->cols + j] = (float)(std * lg_rng_normal(r));
	}
}

int nn_new(nn **out, const struct nn_shape *s, uint64_t seed)
{
	lg_rng r;
	nn *n;
	int rc;

	if (!out)
		return LG_EINVAL;
	*out = NULL;
	rc = nn_shape_check(s, NULL, 0);
	if (rc)
		return rc;
	rc = nn_alloc(&n, s);
	if (rc)
		return rc;
	lg_rng_seed2(&r, seed, 0x6e6e);
	for (int l = 0; l < n->nlayers; l++) {
		const struct nn_tensor *w = &n->t[2 * l];
		int head = l == n->nlayers - 1;
		if (l == n->gl) {
			init_gru(n, l, &r);
			continue;
		}
		/* fan-in: a dense layer's rows, a convolution's or a
		 * gathered head's columns */
		int by_row = l < n->nconv || (head && nn_gathered(n));
		double fan = (double)(by_row ? w->cols : w->rows);
		double std = sqrt((n->act[l] == NN_RELU ? 2.0 : 1.0) / fan);
		/* a residual block's second convolution starts small, so
		 * each block starts near the identity */
		if (n->skip[l])
			std *= 0.1;
		float *W = n->p + w->offset;
		for (size_t i = 0; i < w->rows; i++)
			for (size_t j = 0; j < w->cols; j++) {
				double g = std * lg_rng_normal(&r);
				/* near-uniform initial policy */
				if (head && (by_row ? i : j) < s->actions)
					g *= 0.01;
				W[i * w->cols + j] = (float)g;
			}
	}
	*out = n;
	return 0;
}

void nn_free(nn *n)
{
	if (!n)
		return;
	free(n->p);
	free(n);
}

int nn_clone(nn **out, const nn *n)
{
	int rc = nn_alloc(out, &n->s);

	if (rc)
		return rc;
	memcpy((*out)->p, n->p, n->nparams * sizeof *n->p);
	return 0;
}

const struct nn_shape *nn_shape_of(const nn *n)
{
	return &n->s;
}

float *nn_params(nn *n, size_t *count)
{
	if (count)
		*count = n->nparams;
	return n->p;
}

const float *nn_params_const(const nn *n, size_t *count)
{
	if (count)
		*count = n->nparams;
	return n->p;
}

size_t nn_tensor_count(const nn *n)
{
	return n->ntensors;
}

int nn_tensor_info(const nn *n, size_t i, struct nn_tensor *t)
{
	if (i >= n->ntensors)
		return LG_ERANGE;
	*t = n->t[i];
	return 0;
}

void nn_set_threads(int threads)
{
	if (threads >= 1 && threads <= 256)
		openblas_set_num_threads(threads);
}

double nn_train_flops_per_row(const struct nn_shape *s)
{
	double f = 0, in = s->obs;
	struct conv_plan pl;
	const struct conv2d *cv = pl.cv;

	if (s->nconv > NN_MAX_CONV || conv_chain(s, &pl, NULL, 0))
		return 0;
	for (int i = 0; i < pl.n; i++) {
		/* per output position: forward, dW and (after the first
		 * layer) dx, 2 cin k k cout each */
		f += (i == 0 ? 4.0 : 6.0) * cv[i].cin * cv[i].k * cv[i].k *
		     cv[i].cout * cv[i].oh * cv[i].ow;
		in = (double)cv[i].cout * cv[i].oh * cv[i].ow;
	}
	for (uint32_t i = 0; i <= s->nhidden; i++) {
		double out = i < s->nhidden ? s->hidden[i] : s->actions + 1;
		if (i == s->nhidden && s->gru) {
			/* the core's two projections, as a dense layer of
			 * in + H to 3H (the gates' arithmetic aside) */
			f += 6.0 * (in + s->gru) * 3 * s->gru;
			in = s->gru;
		}
		/* forward y = xW, backward dW = x^T dy, dx = dy W^T (none
		 * for the first layer: nothing consumes d obs) */
		f += (i == 0 && !s->nconv ? 4.0 : 6.0) * in * out;
		in = out;
	}
	return f;
}

/* ---- forward -------------------------------------------------------- */

void nn_linear(const nn *n, int l, const float *x, size_t B, float *y)
{
	size_t in = n->dims[l], out = n->dims[l + 1];
	const float *W = n->p + n->t[2 * l].offset;
	const float *b = n->p + n->t[2 * l + 1].offset;

	for (size_t i = 0; i < B; i++)
		memcpy(y + i * out, b, out * sizeof *y);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)B,
		    (int)out, (int)in, 1.0f, x, (int)in, W, (int)out, 1.0f, y,
		    (int)out);
}

size_t nn_conv_scratch(const nn *n, size_t B)
{
	size_t most = 0;

	for (int i = 0; i < n->nconv; i++)
		most = LG_MAX(most, conv2d_scratch(&n->cv[i], B));
	return most;
}

void nn_layer_forward(const nn *n, int l, const float *x, size_t B,
		      float *y, float *scratch)
{
	if (l < n->nconv)
		conv2d_forward(&n->cv[l], n->p + n->t[2 * l].offset,
			       n->p + n->t[2 * l + 1].offset, x, B, y, scratch);
	else
		nn_linear(n, l, x, B, y);
}

/* nn_linear for a few rows (inference): one sgemv per row. sgemm packs
 * the whole of W on every call, which for a 256 x 256 layer and fewer
 * than 8 rows costs more than the arithmetic: one 64-256-256-3 forward
 * measured 3.7 us a row with sgemv against 19 us for one row and 36 us
 * for seven with sgemm (OpenBLAS 0.3.21, one thread). */
#define NN_GEMV_ROWS 7
static void linear_rows(const nn *n, int l, const float *x, size_t B,
			float *y)
{
	size_t in = n->dims[l], out = n->dims[l + 1];
	const float *W = n->p + n->t[2 * l].offset;
	const float *b = n->p + n->t[2 * l + 1].offset;

	for (size_t i = 0; i < B; i++) {
		memcpy(y + i * out, b, out * sizeof *y);
		cblas_sgemv(CblasRowMajor, CblasTrans, (int)in, (int)out, 1.0f,
			    W, (int)out, x + i * in, 1, 1.0f, y + i * out, 1);
	}
}

void nn_activate(int act, float *y, size_t len)
{
	if (act == NN_RELU) {
		for (size_t i = 0; i < len; i++)
			y[i] = y[i] > 0 ? y[i] : 0;
	} else if (act == NN_TANH) {
		nn_tanh_inplace(y, len);
	}
}

void nn_layer_apply(const nn *n, int l, const float *x, const float *skip_in,
		    size_t B, float *y, float *scratch)
{
	size_t len = B * n->dims[l + 1];

	nn_layer_forward(n, l, x, B, y, scratch);
	if (n->skip[l])
		for (size_t i = 0; i < len; i++)
			y[i] += skip_in[i];
	nn_activate(n->act[l], y, len);
}

int nn_masked_softmax(const float *z, const uint8_t *mask, size_t A,
		      float *logp, float *p)
{
	float mx = -INFINITY;
	double sum = 0;
	int legal = 0;
	float lse;

	for (size_t a = 0; a < A; a++)
		if (mask[a]) {
			legal++;
			if (z[a] > mx)
				mx = z[a];
		}
	if (!legal)
		return 0;
	for (size_t a = 0; a < A; a++)
		if (mask[a])
			sum += exp((double)(z[a] - mx));
	lse = mx + (float)log(sum);
	for (size_t a = 0; a < A; a++) {
		if (mask[a]) {
			logp[a] = z[a] - lse;
			p[a] = expf(logp[a]);
		} else {
			logp[a] = 0;
			p[a] = 0;
		}
	}
	return legal;
}

/* ---- inference ------------------------------------------------------ */

struct nn_ws {
	struct nn_shape s;
	size_t cap;
	float *a, *b, *c; /* cap x wmax, in turn */
	float *head;    /* cap x (actions + 1) */
	float *scratch; /* nn_conv_scratch(cap): the convolutions' */
	float *logp, *p; /* actions */
	float *gcache;   /* the core's cache for one step of cap rows */
	float *zero;     /* cap x gru zeros: a first step's state */
	/* a gathered head: a row's legal ids and their logits; the head's
	 * input rows (forward_ws stops before the head) */
	uint16_t *ids;
	float *z;
	const float *x;
};

static int same_shape(const struct nn_shape *x, const struct nn_shape *y)
{
	return !memcmp(x, y, sizeof *x); /* unused entries are 0 */
}

/* The workspace and its arrays are one block (lg_block_new), every
 * array on a cache line. */
int nn_ws_new(nn_ws **out, const nn *n, size_t max_batch)
{
	nn_ws *w;

	if (!out || !n)
		return LG_EINVAL;
	*out = NULL;
	if (max_batch < 1 || max_batch > (1u << 20))
		return LG_EINVAL;
	size_t wide = max_batch * n->wmax, G = n->s.gru;
	const struct lg_part parts[] = {
		LG_PART(nn_ws, a, wide),
		LG_PART(nn_ws, b, wide),
		LG_PART(nn_ws, c, wide),
		LG_PART(nn_ws, head, nn_gathered(n) ? 0
					 : max_batch * (n->s.actions + 1)),
		LG_PART(nn_ws, scratch, nn_conv_scratch(n, max_batch) + 1),
		LG_PART(nn_ws, logp, n->s.actions),
		LG_PART(nn_ws, p, n->s.actions),
		LG_PART(nn_ws, gcache, G ? gru_cache(G, 1, max_batch) : 0),
		LG_PART(nn_ws, zero, max_batch * G),
		LG_PART(nn_ws, ids, nn_gathered(n) ? n->s.actions : 0),
		LG_PART(nn_ws, z, nn_gathered(n) ? n->s.actions : 0),
	};
	w = lg_block_new(sizeof *w, parts, LG_ARRAY_LEN(parts));
	if (!w)
		return LG_ENOMEM;
	w->s = n->s;
	w->cap = max_batch;
	*out = w;
	return 0;
}

void nn_ws_free(nn_ws *w)
{
	free(w);
}

size_t nn_state_len(const nn *n)
{
	return n->s.gru;
}

/* One step of the core for n rows from state (NULL: zeros) into y; the
 * new state back into state. */
static void core_step(const nn *net, nn_ws *ws, const float *x, size_t n,
		      float *state, float *y)
{
	int l = net->gl;

	gru_forward(net->dims[l], net->s.gru, nn_w(net, net->p, l), x,
		    state ? state : ws->zero, NULL, 1, n, y, ws->gcache);
	if (state)
		memcpy(state, y, n * net->s.gru * sizeof *state);
}

/* Forward n rows into ws->head; a gathered head's net stops before the
 * head, its input rows at ws->x. Three buffers rotate, so a residual
 * block's input is still there when its second convolution adds it. */
static int forward_ws(const nn *net, nn_ws *ws, const float *obs, size_t n,
		      float *state)
{
	const float *x = obs, *prev = NULL;
	float *buf[3] = { ws->a, ws->b, ws->c };
	int next = 0;

	if (!net || !ws || !obs || n > ws->cap || !same_shape(&net->s, &ws->s))
		return LG_EINVAL;
	if (!n)
		return 0;
	for (int l = 0; l < net->nlayers - nn_gathered(net); l++) {
		int head = l == net->nlayers - 1;
		float *dst = head ? ws->head : buf[next];
		if (l < net->nconv) {
			nn_layer_apply(net, l, x, prev, n, dst, ws->scratch);
		} else if (l == net->gl) {
			core_step(net, ws, x, n, state, dst);
		} else {
			if (n <= NN_GEMV_ROWS)
				linear_rows(net, l, x, n, dst);
			else
				nn_linear(net, l, x, n, dst);
			nn_activate(net->act[l], dst, n * net->dims[l + 1]);
		}
		prev = x;
		x = dst;
		next = (next + 1) % 3;
	}
	ws->x = x;
	return 0;
}

int nn_act(const nn *net, nn_ws *ws, const float *obs, const uint8_t *mask,
	   size_t n, lg_rng *rng, int32_t *action, float *logp, float *value)
{
	return nn_act_state(net, ws, obs, mask, n, NULL, rng, action, logp,
			    value);
}

/* Row i of the head forward_ws left in ws: the masked softmax of its
 * logits into probs (A floats; log-probabilities into ws->logp) and its
 * value into value[i] when value is not NULL. LG_EINVAL: the row has no
 * legal action. */
static int head_row(const nn *net, nn_ws *ws, const uint8_t *mask, size_t i,
		    float *probs, float *value)
{
	size_t A = net->s.actions;
	const float *z = ws->head + i * (A + 1);

	if (!nn_masked_softmax(z, mask + i * A, A, ws->logp, probs))
		return LG_EINVAL;
	if (value)
		value[i] = z[A];
	return 0;
}

/* Row i of a gathered head after forward_ws: its legal ids from the mask
 * into ws->ids (*L of them), the softmax over them into ws->logp and
 * ws->p (indexed by the list), the value into value[i] when value is not
 * NULL. The head reads L + 1 of its rows. LG_EINVAL: no legal action. */
static int head_list(const nn *net, nn_ws *ws, const uint8_t *mask, size_t i,
		     size_t *L, float *value)
{
	size_t A = net->s.actions, in = net->dims[net->nlayers - 1], k;

	k = nn_mask_list(mask + i * A, A, ws->ids);
	if (!k)
		return LG_EINVAL;
	nn_head_gather(net, ws->x + i * in, ws->ids, k, ws->z,
		       value ? value + i : NULL);
	nn_list_softmax(ws->z, k, ws->logp, ws->p);
	*L = k;
	return 0;
}

/* pick_rows for a gathered head: the same choice over the list. */
static int pick_list(const nn *net, nn_ws *ws, const uint8_t *mask, size_t n,
		     lg_rng *rng, int32_t *action, float *logp, float *value)
{
	for (size_t i = 0; i < n; i++) {
		size_t L, pick = 0;
		if (head_list(net, ws, mask, i, &L, value))
			return LG_EINVAL;
		if (rng) {
			float u = lg_rng_float(rng), acc = 0;
			for (size_t k = 0; k < L; k++) {
				pick = k; /* rounding: the last legal */
				acc += ws->p[k];
				if (u < acc)
					break;
			}
		} else {
			for (size_t k = 1; k < L; k++)
				if (ws->p[k] > ws->p[pick])
					pick = k;
		}
		action[i] = ws->ids[pick];
		logp[i] = ws->logp[pick];
	}
	return 0;
}

/* A legal action of each row from the masked softmax of its logits: a
 * sample from rng, or with rng NULL the most probable (the first of
 * equals); its log-probability, and the value when value is not NULL. */
static int pick_rows(const nn *net, nn_ws *ws, const float *obs,
		     const uint8_t *mask, size_t n, float *state, lg_rng *rng,
		     int32_t *action, float *logp, float *value)
{
	size_t A;
	int rc;

	rc = forward_ws(net, ws, obs, n, state);
	if (rc)
		return rc;
	if (nn_gathered(net))
		return pick_list(net, ws, mask, n, rng, action, logp, value);
	A = net->s.actions;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *m = mask + i * A;
		size_t pick = A;
		if (head_row(net, ws, mask, i, ws->p, value))
			return LG_EINVAL;
		if (rng) {
			float u = lg_rng_float(rng), acc = 0;
			for (size_t a = 0; a < A; a++) {
				if (!m[a])
					continue;
				pick = a; /* rounding: the last legal */
				acc += ws->p[a];
				if (u < acc)
					break;
			}
		} else {
			for (size_t a = 0; a < A; a++)
				if (m[a] &&
				    (pick == A || ws->p[a] > ws->p[pick]))
					pick = a;
		}
		action[i] = (int32_t)pick;
		logp[i] = ws->logp[pick];
	}
	return 0;
}

int nn_act_state(const nn *net, nn_ws *ws, const float *obs,
		 const uint8_t *mask, size_t n, float *state, lg_rng *rng,
		 int32_t *action, float *logp, float *value)
{
	if (!mask || !rng || !action || !logp || !value)
		return LG_EINVAL;
	return pick_rows(net, ws, obs, mask, n, state, rng, action, logp,
			 value);
}

int nn_probs(const nn *net, nn_ws *ws, const float *obs, const uint8_t *mask,
	     size_t n, float *probs, float *value)
{
	return nn_probs_state(net, ws, obs, mask, n, NULL, probs, value);
}

int nn_probs_state(const nn *net, nn_ws *ws, const float *obs,
		   const uint8_t *mask, size_t n, float *state, float *probs,
		   float *value)
{
	size_t A;
	int rc;

	if (!mask || !probs)
		return LG_EINVAL;
	rc = forward_ws(net, ws, obs, n, state);
	if (rc)
		return rc;
	A = net->s.actions;
	for (size_t i = 0; i < n; i++) {
		float *pr = probs + i * A;
		size_t L;
		if (!nn_gathered(net)) {
			if (head_row(net, ws, mask, i, pr, value))
				return LG_EINVAL;
			continue;
		}
		if (head_list(net, ws, mask, i, &L, value))
			return LG_EINVAL;
		memset(pr, 0, A * sizeof *pr);
		for (size_t k = 0; k < L; k++)
			pr[ws->ids[k]] = ws->p[k];
	}
	return 0;
}

int nn_greedy_state(const nn *net, nn_ws *ws, const float *obs,
		    const uint8_t *mask, size_t n, float *state,
		    int32_t *action, float *logp, float *value)
{
	if (!mask || !action || !logp)
		return LG_EINVAL;
	return pick_rows(net, ws, obs, mask, n, state, NULL, action, logp,
			 value);
}

static int policy_fn(void *ctx, int player, const char *infostate,
		     const float *obs, const uint8_t *mask, int num_actions,
		     double *probs, char *err, size_t errlen)
{
	struct nn_policy_ctx *c = ctx;
	float p[ENV_MAX_ACTIONS];
	double sum = 0;
	int rc;

	(void)player;
	(void)infostate;
	if (num_actions < 1 || num_actions > ENV_MAX_ACTIONS ||
	    (uint32_t)num_actions != c->net->s.actions) {
		lg_errf(err, errlen, "network has %u actions, game %d",
			c->net->s.actions, num_actions);
		return LG_EINVAL;
	}
	rc = nn_probs(c->net, c->ws, obs, mask, 1, p, NULL);
	if (rc) {
		lg_errf(err, errlen, "network policy: %s", lg_strerror(rc));
		return rc;
	}
	for (int a = 0; a < num_actions; a++)
		sum += p[a];
	/* float probabilities: renormalise in double for the 1e-6 check */
	for (int a = 0; a < num_actions; a++)
		probs[a] = p[a] / sum;
	return 0;
}

/* A recurrent net: its state through the player's earlier observations
 * (their actions' probabilities unused), then the current one's. */
static int policy_seq_fn(void *ctx, int player, const char *infostate,
			 const float *obs, size_t nobs, const uint8_t *mask,
			 int num_actions, double *probs, char *err,
			 size_t errlen)
{
	struct nn_policy_ctx *c = ctx;
	size_t O = c->net->s.obs;
	uint8_t all[ENV_MAX_ACTIONS];
	float p[ENV_MAX_ACTIONS], *state;
	double sum = 0;
	int rc = 0;

	if (num_actions < 1 || num_actions > ENV_MAX_ACTIONS ||
	    (uint32_t)num_actions != c->net->s.actions) {
		lg_errf(err, errlen, "network has %u actions, game %d",
			c->net->s.actions, num_actions);
		return LG_EINVAL;
	}
	state = calloc(c->net->s.gru, sizeof *state);
	if (!state)
		return LG_ENOMEM;
	memset(all, 1, sizeof all);
	for (size_t k = 0; k < nobs && !rc; k++)
		rc = nn_probs_state(c->net, c->ws, obs + k * O,
				    k + 1 < nobs ? all : mask, 1, state, p,
				    NULL);
	free(state);
	if (rc) {
		lg_errf(err, errlen, "network policy: %s", lg_strerror(rc));
		return rc;
	}
	(void)player;
	for (int a = 0; a < num_actions; a++)
		sum += p[a];
	for (int a = 0; a < num_actions; a++)
		probs[a] = p[a] / sum;
	return 0;
}

struct env_policy nn_env_policy(struct nn_policy_ctx *ctx)
{
	struct env_policy p = { policy_fn, ctx, NULL };

	if (ctx->net->s.gru)
		p.seq = policy_seq_fn;
	return p;
}

/* ---- sgemm peak ---------------------------------------------------- */

int nn_sgemm_peak(double seconds, int threads, double *gflops)
{
	int before = openblas_get_num_threads();
	static const int sizes[] = { 512, 1024, 2048 };
	double best = 0;
	float *a, *b, *c;
	size_t nmax = 2048;
	int rc = 0;

	a = malloc(nmax * nmax * sizeof *a);
	b = malloc(nmax * nmax * sizeof *b);
	c = malloc(nmax * nmax * sizeof *c);
	if (!a || !b || !c) {
		rc = LG_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nmax * nmax; i++) {
		a[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
		b[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
	}
	memset(c, 0, nmax * nmax * sizeof *c);
	nn_set_threads(threads);
	for (size_t k = 0; k < LG_ARRAY_LEN(sizes); k++) {
		int n = sizes[k];
		double flops = 2.0 * n * n * n;
		double t_end = lg_now_s() + seconds / LG_ARRAY_LEN(sizes);
		/* warm-up, then best single call */
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
			    1.0f, a, n, b, n, 0.0f, c, n);
		do {
			double t0 = lg_now_s(), dt;
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
				    n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
			dt = lg_now_s() - t0;
			if (dt > 0 && flops / dt / 1e9 > best)
				best = flops / dt / 1e9;
		} while (lg_now_s() < t_end);
	}
	*gflops = best;
	nn_set_threads(before);
out:
	free(a);
	free(b);
	free(c);
	return rc;
}
