/*
 * bench/bench_wide.c: `league bench learner --wide A`: what a game of many
 * actions costs the learner and the collector's inference. The same
 * network twice, in the same run, on rows of the same observations with
 * 8 to 30 legal actions each (chess has about 30 in a middle game): once
 * with a head of A actions (more than NN_DENSE_ACTIONS: a gathered head,
 * rows carrying legal lists), once with 64 actions (today's dense head,
 * rows carrying masks). The updates and the batched forwards alternate, so
 * a neighbour's burst falls on both, and are timed in the thread's CPU
 * seconds (one BLAS thread: --threads is refused above 1 here); the
 * ratios are the wide net's seconds over the dense one's, near 1 when the head costs per legal action and
 * not per action (learner.h, ppo_list.c).
 */
#include "bench/bench.h"
#include "cli/cli.h"
#include "learner/learner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIDE_INFER_ROWS 256
#define WIDE_LEGAL_MIN 8
#define WIDE_LEGAL_MAX WIDE_LEGAL_FROM_MIN

struct side {
	ppo *p;
	struct lg_rows b;
	nn_ws *ws;
	uint8_t *mask; /* the batch's masks, n x actions */
	int32_t *act;
	float *logp, *value;
	double upd_s, inf_s;
};

/* Rows for side x of net's shape: observations from rng seed 42 (the same
 * for both sides), each row 8..30 legal actions drawn uniformly from the
 * first `from` of the net's, actions and log-probabilities from the net.
 * LG_ENOMEM. */
static int side_rows(struct side *x, const nn *net, size_t n, size_t from)
{
	const struct nn_shape *s = nn_shape_of(net);
	size_t A = s->actions;
	lg_rng r;
	int rc;

	if ((rc = lg_rows_init(&x->b, s->obs, s->actions, 0, n)))
		return rc;
	x->mask = calloc(n * A, 1);
	x->act = malloc(n * sizeof *x->act);
	x->logp = malloc(n * sizeof *x->logp);
	x->value = malloc(n * sizeof *x->value);
	if (!x->mask || !x->act || !x->logp || !x->value ||
	    (rc = nn_ws_new(&x->ws, net, n)))
		return rc ? rc : LG_ENOMEM;
	lg_rng_seed(&r, 42);
	for (size_t i = 0; i < n * s->obs; i++)
		x->b.obs[i] = (float)lg_rng_normal(&r);
	for (size_t i = 0; i < n; i++) {
		uint8_t *m = x->mask + i * A;
		size_t L = WIDE_LEGAL_MIN +
			   lg_rng_below(&r, WIDE_LEGAL_MAX - WIDE_LEGAL_MIN + 1);
		for (size_t k = 0; k < L;) {
			size_t a = lg_rng_below(&r, LG_MIN(from, A));
			k += !m[a];
			m[a] = 1;
		}
		x->b.done[i] = i % 32 == 31 ? LG_ROW_END : LG_ROW_NEXT;
		x->b.reward[i] = x->b.done[i] ? (i % 64 == 31 ? 1 : -1) : 0;
	}
	rc = nn_act(net, x->ws, x->b.obs, x->mask, n, &r, x->b.action,
		    x->b.logp, x->b.value);
	for (size_t i = 0; !rc && i < n; i++) {
		if (!lg_rows_lists(&x->b)) {
			memcpy(x->b.mask + i * A, x->mask + i * A, A);
			continue;
		}
		rc = lg_rows_put_mask(&x->b, i, x->mask + i * A);
		x->b.legal_n += x->b.nlegal[i];
	}
	x->b.n = n;
	return rc;
}

static void side_free(struct side *x)
{
	ppo_free(x->p);
	lg_rows_free(&x->b);
	nn_ws_free(x->ws);
	free(x->mask);
	free(x->act);
	free(x->logp);
	free(x->value);
}

/* CPU seconds of the calling thread (with one thread the update and the
 * forwards run on it): a neighbour's time slices on this shared machine
 * do not count, its use of the caches still does. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The distinct head rows the first minibatch of b's rows (m of them)
 * names, the value's among them: what its Adam step moves. */
static size_t head_rows(const struct lg_rows *b, size_t m)
{
	uint8_t *seen = calloc(b->num_actions, 1);
	size_t rows = 1, at = 0;

	if (!seen)
		return 0;
	for (size_t i = 0; i < LG_MIN(m, b->n); i++)
		for (uint32_t k = 0; k < b->nlegal[i]; k++, at++)
			if (!seen[b->legal[at]]) {
				seen[b->legal[at]] = 1;
				rows++;
			}
	free(seen);
	return rows;
}

/* One timed update and one timed batch of forwards of side x. */
static int side_round(struct side *x, lg_rng *r)
{
	struct ppo_stats st;
	nn *net = ppo_net(x->p);
	size_t B = LG_MIN((size_t)WIDE_INFER_ROWS, x->b.n);
	double t0 = cpu_s();
	int rc = ppo_update(x->p, &x->b, &st);

	x->upd_s += cpu_s() - t0;
	if (rc)
		return rc;
	t0 = cpu_s();
	rc = nn_act(net, x->ws, x->b.obs, x->mask, B, r, x->act, x->logp,
		    x->value);
	x->inf_s += cpu_s() - t0;
	return rc;
}

int bench_learner_wide(const struct bench_wide_opts *o)
{
	struct side sd[2] = { 0 }; /* 0: dense, 64 actions; 1: wide */
	struct nn_shape s = *o->shape;
	struct ppo_opts po;
	char err[256] = "";
	uint64_t rounds = 0;
	double t0;
	lg_rng r;
	int ret = CLI_FAIL;

	if (o->legal_from > o->wide) {
		fprintf(stderr, "league bench learner: --legal-from %u is past "
			"--wide %u\n", o->legal_from, o->wide);
		return CLI_USAGE;
	}
	if (o->threads != 1) {
		fprintf(stderr, "league bench learner: --wide times one "
			"thread's CPU seconds: --threads 1\n");
		return CLI_USAGE;
	}
	ppo_opts_default(&po);
	po.epochs = o->epochs;
	po.minibatch = o->minibatch;
	po.threads = (int)o->threads;
	po.batch_max = LG_MAX(po.batch_max, o->batch);
	for (int k = 0; k < 2; k++) {
		s.actions = k ? o->wide : NN_DENSE_ACTIONS;
		if (ppo_new(&sd[k].p, NULL, &s, &po, 1, err, sizeof err) ||
		    side_rows(&sd[k], ppo_net(sd[k].p), (size_t)o->batch,
			      o->legal_from ? o->legal_from : s.actions)) {
			fprintf(stderr, "league bench learner: %s\n",
				err[0] ? err : "out of memory");
			goto out;
		}
	}
	lg_rng_seed(&r, 7);
	for (int k = 0; k < 2; k++) /* warm-up */
		if (side_round(&sd[k], &r))
			goto out;
	sd[0].upd_s = sd[0].inf_s = sd[1].upd_s = sd[1].inf_s = 0;
	t0 = lg_now_s();
	do {
		/* alternate which goes first */
		for (int k = 0; k < 2; k++)
			if (side_round(&sd[(k + (int)rounds) % 2], &r))
				goto out;
		rounds++;
	} while (lg_now_s() - t0 < o->seconds || rounds < 2);
	size_t rows_mb = head_rows(&sd[1].b, (size_t)o->minibatch);
	double u0 = sd[0].upd_s / rounds, u1 = sd[1].upd_s / rounds;
	double i0 = sd[0].inf_s / rounds * 1e6, i1 = sd[1].inf_s / rounds * 1e6;
	if (o->json)
		printf("{\"bench\":\"learner_wide\",\"obs\":%u,\"hidden\":"
		       "\"%s\",\"actions\":%u,\"dense_actions\":%d,"
		       "\"legal_min\":%d,\"legal_max\":%d,\"legal_from\":%u,"
		       "\"head_rows_per_minibatch\":%zu,\"batch\":%llu,"
		       "\"minibatch\":%llu,\"epochs\":%llu,\"threads\":%llu,"
		       "\"updates\":%llu,\"update_s\":%.6f,"
		       "\"dense_update_s\":%.6f,\"ratio\":%.4f,"
		       "\"infer_rows\":%zu,\"infer_us\":%.1f,"
		       "\"dense_infer_us\":%.1f,\"infer_ratio\":%.4f}\n",
		       s.obs, o->hidden_txt, o->wide, NN_DENSE_ACTIONS,
		       WIDE_LEGAL_MIN, WIDE_LEGAL_MAX,
		       o->legal_from ? o->legal_from : o->wide, rows_mb,
		       o->batch, o->minibatch,
		       o->epochs, o->threads, (unsigned long long)rounds, u1,
		       u0, u1 / u0,
		       LG_MIN((size_t)WIDE_INFER_ROWS, (size_t)o->batch), i1,
		       i0, i1 / i0);
	else
		printf("learner, %u actions (gathered head) against %d (dense), "
		       "%d-%d legal a row of the first %u, %zu head rows a "
		       "minibatch: obs %u hidden %s, batch %llu "
		       "minibatch %llu epochs %llu, %llu thread(s)\n"
		       "%10s %12s %12s %8s\n"
		       "%10s %12.4f %12.4f %8.3f\n"
		       "%10s %12.1f %12.1f %8.3f\n",
		       o->wide, NN_DENSE_ACTIONS, WIDE_LEGAL_MIN,
		       WIDE_LEGAL_MAX, o->legal_from ? o->legal_from : o->wide,
		       rows_mb, s.obs, o->hidden_txt, o->batch,
		       o->minibatch, o->epochs, o->threads, "", "wide",
		       "dense", "ratio", "update_s", u1, u0, u1 / u0,
		       "infer_us", i1, i0, i1 / i0);
	fflush(stdout);
	ret = CLI_OK;
out:
	side_free(&sd[0]);
	side_free(&sd[1]);
	return ret;
}
