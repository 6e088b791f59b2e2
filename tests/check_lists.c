/*
 * tests/check_lists.c: games of more than 64 actions (util/rows.h
 * LG_ROWS_DENSE_MAX, learner.h NN_DENSE_ACTIONS): rows carrying legal
 * lists, their Segment columns and the checks on them, the gathered head's
 * gradient against finite differences, and othello's rows from the
 * collector through the wire into a PPO update that moves only the head
 * rows of the legal actions it saw.
 */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "collector/collector.h"
#include "learner/learner.h"
#include "net/net.h"
#include "tests/testutil.h"

/* A block of 3 rows of 100 actions, lists written from masks. */
static void three_rows(struct lg_rows *r)
{
	uint8_t m[100];

	ck_assert_int_eq(lg_rows_init(r, 2, 100, 0, 4), 0);
	ck_assert(lg_rows_lists(r));
	ck_assert_ptr_null(r->mask);
	for (int i = 0; i < 3; i++) {
		memset(m, 0, sizeof m);
		m[i] = m[50 + i] = m[99] = 1;
		ck_assert_int_eq(lg_rows_put_mask(r, (size_t)i, m), 0);
		r->obs[2 * i] = (float)i;
		r->obs[2 * i + 1] = 1;
		r->action[i] = 50 + i;
		r->logp[i] = -1.0986f;
		r->value[i] = 0;
		r->reward[i] = i == 2;
		r->done[i] = i == 2 ? LG_ROW_END : LG_ROW_NEXT;
		r->n = (size_t)i + 1;
		r->legal_n += r->nlegal[i];
	}
	memset(m, 0, sizeof m);
	ck_assert_int_eq(lg_rows_put_mask(r, 3, m), LG_EINVAL); /* none */
}

/* Encode r, parse the frame's Segment; the frame stays in buf. */
static void wire(const struct lg_rows *r, lg_buf *buf, struct net_segment *s)
{
	struct net_segment_hdr h = { 0 };
	const uint8_t *body;
	size_t blen;
	int bc;
	char err[256] = "";

	buf->len = 0;
	ck_assert_int_eq(net_segment_encode(&h, r, 1, buf), 0);
	ck_assert_int_eq(net_envelope_body(buf->data + NET_FRAME_HDR, buf->len - NET_FRAME_HDR, &bc,
					   &body, &blen, err, sizeof err), 0);
	ck_assert_int_eq(net_segment_parse(body, blen, s, err, sizeof err), 0);
}

/* Lists on the wire: they arrive as sent; a bad id, a list longer than
 * its ids, ids out of order, an action off its list are refused by name. */
START_TEST(lists_through_the_wire)
{
	struct lg_rows r, dst, bad;
	struct net_segment s;
	lg_buf buf = { 0 };
	char err[256];

	three_rows(&r);
	ck_assert_uint_eq(r.legal_n, 9);
	wire(&r, &buf, &s);
	ck_assert_ptr_null(s.mask);
	ck_assert_uint_eq(s.legal_len, 9);
	ck_assert_int_eq(lg_rows_init(&dst, 2, 100, 0, 8), 0);
	ck_assert_int_eq(net_segment_append(&s, &dst, err, sizeof err), 0);
	ck_assert_int_eq(net_segment_append(&s, &dst, err, sizeof err), 0);
	ck_assert_uint_eq(dst.n, 6);
	ck_assert_uint_eq(dst.legal_n, 18);
	for (int i = 0; i < 6; i++) {
		const uint16_t *ids = dst.legal + 3 * i;
		ck_assert_uint_eq(dst.nlegal[i], 3);
		ck_assert_uint_eq(ids[0], (unsigned)(i % 3));
		ck_assert_uint_eq(ids[1], (unsigned)(50 + i % 3));
		ck_assert_uint_eq(ids[2], 99);
	}
	/* an id past num_actions */
	ck_assert_int_eq(lg_rows_init(&bad, 2, 100, 0, 4), 0);
	ck_assert_int_eq(lg_rows_append(&bad, &r), 0);
	bad.legal[2] = 100;
	wire(&bad, &buf, &s);
	dst.n = dst.legal_n = 0;
	ck_assert_int_eq(net_segment_append(&s, &dst, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "row 0: legal id 100, the game has 100"),
		      "%s", err);
	ck_assert_uint_eq(dst.n, 0);
	ck_assert_uint_eq(dst.legal_n, 0);
	/* ids out of order */
	bad.legal[2] = 99;
	bad.legal[1] = 0;
	wire(&bad, &buf, &s);
	ck_assert_int_eq(net_segment_append(&s, &dst, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "strictly increasing"), "%s", err);
	/* the action off its list */
	bad.legal[1] = 51;
	wire(&bad, &buf, &s);
	ck_assert_int_eq(net_segment_append(&s, &dst, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "row 0: action 50 is not on its legal list"),
		      "%s", err);
	/* a list longer than the ids declared */
	bad.legal[1] = 50;
	bad.nlegal[2] = 4;
	wire(&bad, &buf, &s);
	ck_assert_int_eq(net_segment_append(&s, &dst, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "row 2: a legal list of 4 ids (3 of the "
			      "segment's 9 left"), "%s", err);
	/* fewer ids in the lists than sent */
	bad.nlegal[2] = 2;
	wire(&bad, &buf, &s);
	ck_assert_int_eq(net_segment_append(&s, &dst, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "1 legal ids past the rows' lists"), "%s",
		      err);
	lg_rows_free(&bad);
	lg_rows_free(&dst);
	lg_rows_free(&r);
	lg_buf_free(&buf);
}
END_TEST

/* A segment's shape decides its columns: lists with a mask beside them,
 * or lists on a segment of 64 actions, are refused by the parser. */
START_TEST(lists_or_mask_by_shape)
{
	float obs[2] = { 0, 1 }, f0 = 0;
	int32_t act = 1;
	uint8_t done = LG_ROW_END, mask[100] = { 0, 1 };
	uint32_t nl = 2;
	uint16_t ids[2] = { 0, 1 };
	League__Segment sg = LEAGUE__SEGMENT__INIT;
	net_msg m = LEAGUE__ENVELOPE__INIT;
	struct net_segment s;
	lg_buf buf = { 0 };
	const uint8_t *body;
	size_t blen;
	char err[256] = "";
	int bc;

	sg.obs_len = 2;
	sg.count = 1;
	sg.layout = LEAGUE__CONST__SEGMENT_LAYOUT;
	sg.obs = (ProtobufCBinaryData){ sizeof obs, (uint8_t *)obs };
	sg.action = (ProtobufCBinaryData){ 4, (uint8_t *)&act };
	sg.logp = sg.value = sg.reward =
		(ProtobufCBinaryData){ 4, (uint8_t *)&f0 };
	sg.done = (ProtobufCBinaryData){ 1, &done };
	sg.nlegal = (ProtobufCBinaryData){ 4, (uint8_t *)&nl };
	sg.legal = (ProtobufCBinaryData){ 4, (uint8_t *)ids };
	m.body_case = LEAGUE__ENVELOPE__BODY_SEGMENT;
	m.segment = &sg;
	for (int k = 0; k < 3; k++) {
		/* 100 actions: lists alone parse; with a mask they do not;
		 * 64 actions: lists do not (a mask is due there) */
		sg.num_actions = k == 2 ? 64 : 100;
		sg.mask = k == 1 ? (ProtobufCBinaryData){ 100, mask }
				 : (ProtobufCBinaryData){ 0, NULL };
		buf.len = 0;
		ck_assert_int_eq(net_frame_encode(&m, &buf), 0);
		ck_assert_int_eq(net_envelope_body(buf.data + NET_FRAME_HDR,
						   buf.len - NET_FRAME_HDR,
						   &bc, &body, &blen, err,
						   sizeof err), 0);
		ck_assert_int_eq(net_segment_parse(body, blen, &s, err,
						   sizeof err),
				 k == 0 ? 0 : LG_EPROTO);
	}
	ck_assert_msg(strstr(err, "segment of 64 actions with legal lists"),
		      "%s", err);
	lg_buf_free(&buf);
}
END_TEST

/* A gathered net (obs 3, tanh 5, 70 actions): tiny random weights. */
static ppo *tiny_gathered(void)
{
	struct nn_shape s = { 0 };
	struct ppo_opts o;
	ppo *p = NULL;
	char err[256] = "";
	size_t np;
	float *w;
	lg_rng r;

	s.obs = 3;
	s.actions = 70;
	s.nhidden = 1;
	s.hidden[0] = 5;
	s.act = NN_TANH;
	ppo_opts_default(&o);
	o.threads = 1;
	o.ent_coef = 0.05;
	o.minibatch = 8;
	o.batch_max = 128;
	ck_assert_msg(ppo_new(&p, NULL, &s, &o, 9, err, sizeof err) == 0,
		      "%s", err);
	w = nn_params(ppo_net(p), &np);
	lg_rng_seed(&r, 10);
	for (size_t i = 0; i < np; i++)
		w[i] = (float)(0.5 * lg_rng_normal(&r));
	return p;
}

/* The gathered head's gradient is the loss's: central differences of
 * ppo_loss_grad's loss at head rows of legal actions, the value's row
 * and the layer below; 0 exactly on rows no row's list holds. */
START_TEST(gathered_gradient)
{
	static const uint16_t legal[] = { 3, 40, 69, 0, 3, 68, 10, 11, 12, 13 };
	static const size_t loff[] = { 0, 3, 6, 7, 10 };
	const int32_t action[] = { 40, 68, 10, 13 };
	const float obs[] = { 0.3f, -1, 0.5f, 1, 0.2f, -0.4f,
			      -0.7f, 0.1f, 0.9f, 0.4f, 0.4f, -0.2f };
	const float logp[] = { -1.2f, -1.0f, 0.0f, -1.5f };
	const float value[] = { 0.1f, -0.2f, 0.3f, 0 };
	const float adv[] = { 1.0f, -0.5f, 0.7f, 0.2f };
	const float ret[] = { 0.5f, 0.1f, -0.3f, 1.0f };
	struct ppo_minibatch mb = { 0 };
	struct ppo_stats st;
	ppo *p = tiny_gathered();
	nn *net = ppo_net(p);
	size_t np, head = 0, hb = 0;
	float *w = nn_params(net, &np);
	const float *g = ppo_grad(p, NULL);
	float *g0 = malloc(np * sizeof *g0);
	struct nn_tensor t;

	mb.n = 4;
	mb.obs = obs;
	mb.action = action;
	mb.logp = logp;
	mb.value = value;
	mb.adv = adv;
	mb.ret = ret;
	mb.legal = legal;
	mb.loff = loff;
	ck_assert_int_eq(ppo_loss_grad(p, &mb, &st), 0);
	memcpy(g0, g, np * sizeof *g0);
	ck_assert_int_eq(nn_tensor_info(net, 2, &t), 0);
	ck_assert_str_eq(t.name, "Whead");
	ck_assert_uint_eq(t.rows, 71); /* a row per action, the value's */
	ck_assert_uint_eq(t.cols, 5);
	head = t.offset;
	hb = head + 71 * 5;
	/* W0 entries, Whead rows 3, 68 and the value's (70), biases */
	size_t at[] = { 1, 7, head + 3 * 5 + 2, head + 68 * 5,
			head + 70 * 5 + 4, hb + 40, hb + 70, 16 };
	for (size_t k = 0; k < LG_ARRAY_LEN(at); k++) {
		float keep = w[at[k]];
		double lp, lm, fd, e = 1e-2;
		w[at[k]] = keep + (float)e;
		ppo_loss_grad(p, &mb, &st);
		lp = st.loss;
		w[at[k]] = keep - (float)e;
		ppo_loss_grad(p, &mb, &st);
		lm = st.loss;
		w[at[k]] = keep;
		fd = (lp - lm) / (2 * e);
		ck_assert_msg(fabs(fd - g0[at[k]]) < 2e-3 + 2e-2 * fabs(fd),
			      "param %zu: finite difference %g, gradient %g",
			      at[k], fd, (double)g0[at[k]]);
		ck_assert(g0[at[k]] != 0);
	}
	/* rows on no list: 1, 2, 20, 50 */
	ck_assert_int_eq(ppo_loss_grad(p, &mb, &st), 0);
	for (int a = 0; a < 70; a++) {
		int on = 0;
		for (size_t j = 0; j < LG_ARRAY_LEN(legal); j++)
			on |= legal[j] == a;
		if (on)
			continue;
		for (size_t c = 0; c < 5; c++)
			ck_assert(g[head + (size_t)a * 5 + c] == 0);
		ck_assert(g[hb + (size_t)a] == 0);
	}
	/* an action off its list, an id past the actions: refused */
	int32_t off[] = { 41, 68, 10, 13 };
	mb.action = off;
	ck_assert_int_eq(ppo_loss_grad(p, &mb, &st), LG_EINVAL);
	static const uint16_t far[] = { 3, 40, 70, 0, 3, 68, 10, 11, 12, 13 };
	mb.action = action;
	mb.legal = far;
	ck_assert_int_eq(ppo_loss_grad(p, &mb, &st), LG_EINVAL);
	free(g0);
	ppo_free(p);
}
END_TEST

/* A minibatch of n rows of the tiny gathered net's 70 actions: row i
 * lists 2 + i % 5 ids two apart from base + (7 i mod span) on, its
 * action one of them. */
struct lists_mb {
	float obs[3 * 96], logp[96], value[96], adv[96], ret[96];
	int32_t action[96];
	uint16_t legal[96 * 8];
	size_t loff[97];
	struct ppo_minibatch mb;
};

static void lists_mb_make(struct lists_mb *m, size_t n, unsigned base,
			  unsigned span)
{
	lg_rng r;

	lg_rng_seed(&r, base + 1);
	m->loff[0] = 0;
	for (size_t i = 0; i < n; i++) {
		size_t L = 2 + i % 5, at = m->loff[i];
		unsigned first = base + 7 * (unsigned)i % span;
		for (size_t k = 0; k < L; k++)
			m->legal[at + k] = (uint16_t)(first + 2 * k);
		m->loff[i + 1] = at + L;
		m->action[i] = m->legal[at + i % L];
		for (int j = 0; j < 3; j++)
			m->obs[3 * i + (size_t)j] = (float)lg_rng_normal(&r);
		m->logp[i] = -1.0f;
		m->value[i] = 0.1f;
		m->adv[i] = (float)lg_rng_normal(&r);
		m->ret[i] = (float)lg_rng_normal(&r);
	}
	m->mb = (struct ppo_minibatch){ 0 };
	m->mb.n = n;
	m->mb.obs = m->obs;
	m->mb.action = m->action;
	m->mb.logp = m->logp;
	m->mb.value = m->value;
	m->mb.adv = m->adv;
	m->mb.ret = m->ret;
	m->mb.legal = m->legal;
	m->mb.loff = m->loff;
}

/* Shards on threads: 96 rows are 3 shards of 32 on 3 threads, whose
 * gradients sum to the one thread's; a second minibatch naming other
 * rows leaves the first's rows of the head at 0 in the gradient (each
 * shard's buffer cleaned of them). */
START_TEST(gathered_shards)
{
	struct lists_mb *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	ppo *p1 = tiny_gathered(), *p3;
	struct ppo_opts o;
	struct ppo_stats s1, s3;
	size_t np;
	double gmax = 0;
	struct nn_tensor t;

	ppo_opts_default(&o);
	o.threads = 3;
	o.ent_coef = 0.05;
	o.minibatch = 8;
	o.batch_max = 128;
	ck_assert_int_eq(ppo_new(&p3, NULL, nn_shape_of(ppo_net(p1)), &o, 9,
				 NULL, 0), 0);
	const float *w1 = nn_params(ppo_net(p1), &np);
	memcpy(nn_params(ppo_net(p3), NULL), w1, np * sizeof(float));
	lists_mb_make(a, 96, 0, 60);  /* ids 0 .. 69 */
	lists_mb_make(b, 40, 40, 11); /* ids 40 .. 60 */
	for (int round = 0; round < 2; round++) {
		const struct ppo_minibatch *mb = round ? &b->mb : &a->mb;
		const float *g1, *g3;
		ck_assert_int_eq(ppo_loss_grad(p1, mb, &s1), 0);
		ck_assert_int_eq(ppo_loss_grad(p3, mb, &s3), 0);
		ck_assert_double_eq_tol(s1.loss, s3.loss,
					1e-6 * (1 + fabs(s1.loss)));
		g1 = ppo_grad(p1, NULL);
		g3 = ppo_grad(p3, NULL);
		for (size_t i = 0; i < np; i++)
			gmax = fmax(gmax, fabs(g1[i]));
		ck_assert(gmax > 0);
		for (size_t i = 0; i < np; i++)
			ck_assert_msg(fabs(g1[i] - g3[i]) <= 1e-5 * gmax,
				      "round %d param %zu: %g vs %g", round,
				      i, (double)g1[i], (double)g3[i]);
	}
	/* rows b names none of (a named them): 0 on both */
	ck_assert_int_eq(nn_tensor_info(ppo_net(p1), 2, &t), 0);
	int checked = 0;
	for (int id = 0; id < 70; id++) {
		int in_b = 0;
		for (size_t j = 0; j < b->loff[40]; j++)
			in_b |= b->legal[j] == id;
		if (in_b)
			continue;
		checked++;
		for (size_t c = 0; c < 5; c++) {
			ck_assert(ppo_grad(p1, NULL)[t.offset + (size_t)id * 5 +
						     c] == 0);
			ck_assert(ppo_grad(p3, NULL)[t.offset + (size_t)id * 5 +
						     c] == 0);
		}
	}
	ck_assert_int_ge(checked, 40); /* 0 .. 39 at least */
	ppo_free(p1);
	ppo_free(p3);
	free(a);
	free(b);
}
END_TEST

/* ---- othello through the collector ---- */

#define OTH_OBS 192
#define OTH_A 65

struct oth {
	pthread_mutex_t mu;
	nn *net;
	nn_ws *ws;
	float probs[64 * OTH_A];
	struct lg_rows batch; /* what a learner decoded */
	lg_buf buf;
	int rows_checked, worst_legal;
	double worst_sum;
};

/* The net's choice (nn_act_state) for n rows, after checking its
 * probabilities (nn_probs): they sum to 1 over the legal actions and are
 * 0 on the others, and the chosen action's log-probability is theirs. */
static int oth_act(void *ctx, const float *obs, const uint8_t *mask, size_t n,
		   size_t obs_len, int num_actions, lg_rng *rng,
		   int32_t *action, float *logp, float *value, float *state)
{
	struct oth *o = ctx;
	int rc;

	ck_assert_int_eq(num_actions, OTH_A);
	ck_assert_uint_le(n, 64);
	pthread_mutex_lock(&o->mu);
	rc = nn_act_state(o->net, o->ws, obs, mask, n, NULL, rng, action,
			  logp, value);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(nn_probs(o->net, o->ws, obs, mask, n, o->probs,
				  NULL), 0);
	for (size_t i = 0; i < n; i++) {
		const float *p = o->probs + i * OTH_A;
		double sum = 0;
		for (int a = 0; a < OTH_A; a++) {
			if (!mask[i * OTH_A + a])
				ck_assert(p[a] == 0);
			sum += p[a];
		}
		o->worst_sum = fmax(o->worst_sum, fabs(sum - 1));
		ck_assert(mask[i * OTH_A + action[i]]);
		ck_assert_msg(fabsf(logf(p[action[i]]) - logp[i]) < 1e-5f,
			      "logp %g, probs say %g", (double)logp[i],
			      (double)logf(p[action[i]]));
		o->rows_checked++;
	}
	pthread_mutex_unlock(&o->mu);
	return 0;
}

/* Every segment as a learner takes it: encoded, parsed and appended. */
static int oth_sink(void *ctx, const struct coll_segment *g)
{
	struct oth *o = ctx;
	const struct lg_rows *r = g->rows;
	struct net_segment s;
	char err[256] = "";

	pthread_mutex_lock(&o->mu);
	ck_assert(lg_rows_lists(r));
	ck_assert_uint_eq(r->num_actions, OTH_A);
	for (size_t i = 0, at = 0; i < r->n; i++) {
		o->worst_legal = LG_MAX(o->worst_legal, (int)r->nlegal[i]);
		at += r->nlegal[i];
		ck_assert_uint_le(at, r->legal_n);
	}
	if (o->batch.n + r->n <= o->batch.cap) {
		wire(r, &o->buf, &s);
		ck_assert_msg(net_segment_append(&s, &o->batch, err,
						 sizeof err) == 0, "%s", err);
	}
	pthread_mutex_unlock(&o->mu);
	return 0;
}

START_TEST(othello_collect_and_update)
{
	struct oth *o = calloc(1, sizeof *o);
	struct coll_policy pol = { oth_act, o, 0, NULL, NULL };
	struct nn_shape s = { 0 };
	struct coll_opts co;
	struct ppo_opts po;
	struct ppo_stats st;
	struct nn_tensor t;
	coll *c;
	ppo *p = NULL;
	float *before;
	size_t np, head, in = 32;
	char err[256] = "";
	int seen[OTH_A] = { 0 }, chose[OTH_A] = { 0 }, moved = 0;

	pthread_mutex_init(&o->mu, NULL);
	s.obs = OTH_OBS;
	s.actions = OTH_A;
	s.nhidden = 1;
	s.hidden[0] = (uint32_t)in;
	s.act = NN_RELU;
	ck_assert_int_eq(nn_new(&o->net, &s, 3), 0);
	ck_assert_int_eq(nn_ws_new(&o->ws, o->net, 64), 0);
	ck_assert_int_eq(lg_rows_init(&o->batch, OTH_OBS, OTH_A, 0, 256), 0);
	coll_opts_default(&co);
	co.game = "othello";
	co.env.seed = 5;
	co.num_envs = 2;
	co.wait_num = 2;
	co.segment_len = 40;
	co.policies = &pol;
	co.num_policies = 1;
	co.sink = oth_sink;
	co.sink_ctx = o;
	c = tu_coll_open(&co);
	ck_assert_int_eq(coll_collect(c, 400, 60), 0);
	coll_stop(c);
	coll_free(c);
	ck_assert_int_ge(o->rows_checked, 400);
	ck_assert_msg(o->worst_sum < 1e-5, "probabilities sum to 1 +- %g",
		      o->worst_sum);
	ck_assert_uint_ge(o->batch.n, 64);
	ck_assert_int_le(o->worst_legal, 32);
	/* the PPO update on what arrived */
	/* seen: on some list; chose: on a list of two or more (a forced
	 * move, a list of one, has probability 1 and no policy gradient) */
	for (size_t i = 0, at = 0; i < o->batch.n; i++) {
		for (uint32_t k = 0; k < o->batch.nlegal[i]; k++) {
			seen[o->batch.legal[at + k]] = 1;
			chose[o->batch.legal[at + k]] |= o->batch.nlegal[i] > 1;
		}
		at += o->batch.nlegal[i];
	}
	ppo_opts_default(&po);
	po.threads = 1;
	po.minibatch = 32;
	po.epochs = 2;
	po.batch_max = 256;
	ck_assert_msg(ppo_new(&p, o->net, NULL, &po, 4, err, sizeof err) == 0,
		      "%s", err);
	o->net = NULL; /* the trainer's now */
	nn_params_const(ppo_net(p), &np);
	before = malloc(np * sizeof(float));
	memcpy(before, nn_params_const(ppo_net(p), NULL), np * sizeof(float));
	ck_assert_int_eq(ppo_update(p, &o->batch, &st), 0);
	ck_assert(isfinite(st.loss));
	ck_assert_int_eq(nn_tensor_info(ppo_net(p), 2, &t), 0);
	head = t.offset;
	const float *w = nn_params_const(ppo_net(p), NULL);
	const float *hb = w + head + (size_t)(OTH_A + 1) * in;
	const float *hb0 = before + head + (size_t)(OTH_A + 1) * in;
	/* the four centre squares are never legal in othello */
	ck_assert(!seen[27] && !seen[28] && !seen[35] && !seen[36]);
	for (int a = 0; a < OTH_A; a++) {
		int same = !memcmp(w + head + (size_t)a * in,
				   before + head + (size_t)a * in,
				   in * sizeof *w) && hb[a] == hb0[a];
		if (!seen[a])
			ck_assert_msg(same, "row %d of the head moved, on no "
				      "legal list", a);
		else
			moved += !same && hb[a] != hb0[a];
	}
	ck_assert_int_gt(moved, 0);
	/* every row a choice named moved: Adam's first steps are ~lr */
	for (int a = 0; a < OTH_A; a++)
		if (chose[a])
			ck_assert_msg(hb[a] != hb0[a], "row %d stayed", a);
	ck_assert(hb[OTH_A] != hb0[OTH_A]); /* the value's */
	/* the updated policy still sums to 1 over each row's list */
	nn_ws_free(o->ws);
	ck_assert_int_eq(nn_ws_new(&o->ws, ppo_net(p), 1), 0);
	for (size_t i = 0, at = 0; i < o->batch.n; i++) {
		uint8_t m[OTH_A] = { 0 };
		double sum = 0;
		for (uint32_t k = 0; k < o->batch.nlegal[i]; k++)
			m[o->batch.legal[at + k]] = 1;
		at += o->batch.nlegal[i];
		ck_assert_int_eq(nn_probs(ppo_net(p), o->ws,
					  o->batch.obs + i * OTH_OBS, m, 1,
					  o->probs, NULL), 0);
		for (int a = 0; a < OTH_A; a++) {
			ck_assert(m[a] || o->probs[a] == 0);
			sum += o->probs[a];
		}
		ck_assert_msg(fabs(sum - 1) < 1e-5, "row %zu sums to %g", i,
			      sum);
	}
	free(before);
	ppo_free(p);
	nn_ws_free(o->ws);
	lg_rows_free(&o->batch);
	lg_buf_free(&o->buf);
	pthread_mutex_destroy(&o->mu);
	free(o);
}
END_TEST

Suite *suite_lists(void)
{
	Suite *s = suite_create("lists");
	const struct tu_test tests[] = {
		{ lists_through_the_wire, 1 },
		{ lists_or_mask_by_shape, 1 },
		{ gathered_gradient, 1 },
		{ gathered_shards, 1 },
		{ othello_collect_and_update, 1 },
	};

	TU_TCASE(s, "lists", 120, tests);
	return s;
}
