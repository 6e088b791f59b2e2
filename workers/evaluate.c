/*
 * workers/evaluate.c: the evaluator worker (`league evaluate`):
 * exploitability over time for the games with an exact evaluator (kuhn,
 * leduc, rps, matrix).
 *
 * The daemon never runs networks, so this worker does: it connects as an
 * inspector, registers for the league's config (game and model), builds
 * the game tree once, and loops: EvalRequest -> EvalWork (the newest
 * snapshot not yet evaluated, the newest main player's parameters, the
 * meta-Nash weights over the snapshots); fetch the nets it does not hold
 * (ParamsGet; cached by (player, version) while later work still names
 * them); NashConvs by full tree traversal of: the main player; the
 * league's snapshots mixed as ONE behaviour policy (env_tree_mixture) by
 * the daemon's own meta-Nash weights (what its matchmaking sees); the same
 * snapshots mixed by the exact meta-Nash of their game-tree cross values
 * (meta_nash below: an oracle the league does not have, reported as its
 * own column); and the main player's average policy (its snapshots and
 * current version, uniformly, as NFSP reports); EvalReport, which the
 * daemon commits before its Ack. With no work it waits half a
 * second and asks again. A main version the daemon dropped meanwhile
 * (it keeps the newest few) just means asking again.
 */
#include "workers/workers_internal.h"
#include "payoff/payoff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EVAL_CACHE_MAX 320  /* nets held: the league mixture, the main
			     player's snapshots and its version */
#define EVAL_SNAPSHOTS_MAX 128 /* per work item (the daemon's cap too) */
#define IDLE_S 0.5

struct cached {
	nn *net;
	nn_ws *ws;
	uint32_t player, version;
	int used; /* named by the current work item */
};

struct evaluator {
	struct cfg cfg;
	net_tls *tls; /* LEAGUE_TLS_*; NULL: plain */
	net_client *cl;
	char name[64];
	int configured;
	env *e;
	env_tree *tree;
	struct nn_shape shape;
	struct cached cache[EVAL_CACHE_MAX];
	uint64_t points, fetches;
};

static int call(struct evaluator *W, net_msg *req, net_msg **rep,
		const char *what)
{
	return worker_call(W->cl, "evaluate", what, req, rep);
}

/* Register for the config; the first time, build the game and its tree. */
static int do_register(struct evaluator *W)
{
	League__Register rg = LEAGUE__REGISTER__INIT;
	struct env_opts eo;
	char err[512];
	int rc;

	rc = worker_register(W->cl, "evaluate", &rg,
			     W->configured ? NULL : &W->cfg);
	if (rc || W->configured)
		return rc;
	league_env_opts(&W->cfg, &eo);
	if ((rc = env_new(&W->e, W->cfg.env.name, &eo, err, sizeof err)) ||
	    (rc = env_tree_new(&W->tree, W->e, err, sizeof err))) {
		LG_ERROR("evaluate: %s", err);
		return rc == LG_EUNSUPP ? LG_EUNSUPP : rc;
	}
	league_nn_shape(&W->cfg, env_spec_of(W->e), &W->shape);
	W->configured = 1;
	LG_INFO("evaluate: %s: %zu infostates, %zu nodes", W->cfg.env.name,
		env_tree_infostates(W->tree), env_tree_nodes(W->tree));
	return 0;
}

static int reconnect(void *ctx)
{
	struct evaluator *W = ctx;
	int rc;

	if ((rc = worker_redial(W->cl, "evaluate")))
		return rc;
	return do_register(W);
}

/* The cached net of (player, version), fetched if need be. */
static int net_get(struct evaluator *W, uint32_t player, uint32_t version,
		   struct cached **out)
{
	struct cached *slot = NULL;
	nn *net = NULL;
	nn_ws *ws = NULL;
	int rc;

	for (int k = 0; k < EVAL_CACHE_MAX; k++) {
		struct cached *c = &W->cache[k];
		if (c->net && c->player == player && c->version == version) {
			c->used = 1;
			*out = c;
			return 0;
		}
		if (!slot && !c->net)
			slot = c;
	}
	if (!slot)
		return LG_EFULL;
	if ((rc = worker_fetch_net(W->cl, "evaluate", player, version,
				   &W->shape, &net)))
		return rc;
	if ((rc = nn_ws_new(&ws, net, 1))) {
		nn_free(net);
		return rc;
	}
	slot->net = net;
	slot->ws = ws;
	slot->player = player;
	slot->version = version;
	slot->used = 1;
	W->fetches++;
	*out = slot;
	return 0;
}

/* Drop the nets the last work item did not name (old main versions). */
static void cache_trim(struct evaluator *W)
{
	for (int k = 0; k < EVAL_CACHE_MAX; k++) {
		struct cached *c = &W->cache[k];
		if (c->net && !c->used) {
			nn_ws_free(c->ws);
			nn_free(c->net);
			memset(c, 0, sizeof *c);
		}
		c->used = 0;
	}
}

/*
 * The meta-Nash over the snapshots, solved exactly: the symmetric
 * zero-sum meta-game whose entry (i, j) is snapshot i's expected return
 * against j, both seats averaged, from the game tree (PSRO's meta-game
 * without sampling noise). The league has no such table: snapshots
 * rarely play each other, so its snapshot-vs-snapshot win rates are
 * mostly the 0.5 prior. Hence an oracle column, never the league's.
 */
static int meta_nash(struct evaluator *W, const struct env_policy *pols,
		     size_t k, double *x, char *err, size_t errlen)
{
	double *v = malloc(sizeof(*v) * k * k * 2), *y;
	int rc;

	if (!v)
		return LG_ENOMEM;
	y = v + k * k;
	if (!(rc = env_tree_cross_values(W->tree, pols, k, v, err, errlen))) {
		for (size_t i = 0; i < k; i++)
			for (size_t j = 0; j < k; j++)
				y[i * k + j] = (v[i * k + j] - v[j * k + i]) / 2;
		if ((rc = payoff_nash(y, k, k, x, v, NULL, NULL)))
			lg_errf(err, errlen, "meta-Nash: %s", lg_strerror(rc));
	}
	free(v);
	return rc;
}

static void log_small_policy(struct evaluator *W, uint32_t snapshot,
			     const char *what, const struct env_policy *pol);

/* NashConv of the snapshots pols[0..k) mixed by weights as one policy. */
static int mixture_nashconv(struct evaluator *W, const struct env_policy *pols,
			    const double *weights, size_t k, uint32_t snapshot,
			    const char *what, double *out)
{
	struct env_nashconv nc;
	env_tabular *mix = NULL;
	struct env_policy p;
	char err[512];
	int rc;

	if ((rc = env_tree_mixture(W->tree, pols, weights, k, &mix, err,
				   sizeof err)))
		goto out;
	p = env_tabular_policy(mix);
	log_small_policy(W, snapshot, what, &p);
	if (!(rc = env_tree_nashconv(W->tree, &p, &nc, err, sizeof err)))
		*out = nc.nashconv;
out:
	if (rc)
		LG_WARN("evaluate: snapshot %u: %s: %s", snapshot, what, err);
	env_tabular_free(mix);
	return rc;
}

/* Games with a handful of information states (rps, matrix): log the
 * league mixture's action distribution itself, e.g. to compare it with
 * the uniform equilibrium of rock-paper-scissors (L1 distance). */
static void log_small_policy(struct evaluator *W, uint32_t snapshot,
			     const char *what, const struct env_policy *pol)
{
	lg_buf b = { 0 };
	char err[256];

	if (env_tree_infostates(W->tree) > 4 ||
	    env_tree_dump_policy(W->tree, pol, &b, err, sizeof err) ||
	    lg_buf_append(&b, "", 1)) {
		lg_buf_free(&b);
		return;
	}
	for (char *line = (char *)b.data, *nl; line && *line; line = nl) {
		double p[ENV_MAX_ACTIONS], l1 = 0;
		int n = 0, off = 0;
		if ((nl = strchr(line, '\n')))
			*nl++ = 0;
		if (*line == '#')
			continue;
		const char *q = strchr(line, ' ');
		while (q && n < ENV_MAX_ACTIONS &&
		       sscanf(q, " %lf%n", &p[n], &off) == 1) {
			q += off;
			n++;
		}
		for (int a = 0; a < n; a++)
			l1 += fabs(p[a] - 1.0 / n);
		LG_INFO("evaluate: snapshot %u: %s at %s (L1 from uniform "
			"%.4f)", snapshot, what, line, l1);
	}
	lg_buf_free(&b);
}

/* The main player's average policy: its snapshots in w and its current
 * version (ctx[k], the main net), mixed uniformly. */
static int average_nashconv(struct evaluator *W, const League__EvalWork *w,
			    struct nn_policy_ctx *ctx, size_t k,
			    uint32_t *versions, double *out)
{
	struct nn_policy_ctx actx[EVAL_SNAPSHOTS_MAX + 1];
	struct env_policy pols[EVAL_SNAPSHOTS_MAX + 1];
	double wts[EVAL_SNAPSHOTS_MAX + 1];
	size_t m = 0;
	struct cached *c;
	int rc;

	for (size_t j = 0; j < w->n_main_snapshots &&
			   m < EVAL_SNAPSHOTS_MAX; j++) {
		const League__EvalSnapshot *s = w->main_snapshots[j];
		if (s->player == w->main_player &&
		    s->version == w->main_version)
			continue; /* the current version, added below */
		if ((rc = net_get(W, s->player, s->version, &c)))
			return rc;
		actx[m] = (struct nn_policy_ctx){ c->net, c->ws };
		pols[m] = nn_env_policy(&actx[m]);
		m++;
	}
	actx[m] = ctx[k];
	pols[m] = nn_env_policy(&actx[m]);
	m++;
	for (size_t j = 0; j < m; j++)
		wts[j] = 1.0 / (double)m;
	*versions = (uint32_t)m;
	return mixture_nashconv(W, pols, wts, m, w->snapshot,
				"main player's average", out);
}

/* Every NashConv of one work item into rep. */
static int evaluate(struct evaluator *W, const League__EvalWork *w,
		    League__EvalReport *rep)
{
	struct nn_policy_ctx ctx[EVAL_SNAPSHOTS_MAX + 1];
	struct env_policy pols[EVAL_SNAPSHOTS_MAX];
	struct env_nashconv nc_main;
	double x[EVAL_SNAPSHOTS_MAX], league, oracle, avg;
	struct env_policy pmain;
	struct cached *c;
	size_t k = w->n_snapshots;
	uint32_t nav = 0;
	int two;
	char err[512];
	double t0 = lg_now_s();
	int rc;

	if (!k || k > EVAL_SNAPSHOTS_MAX || w->n_weights != k ||
	    w->n_main_snapshots > EVAL_SNAPSHOTS_MAX) {
		LG_WARN("evaluate: work for snapshot %u has %zu snapshots, "
			"%zu weights and %zu of the main player", w->snapshot,
			k, w->n_weights, w->n_main_snapshots);
		return LG_EPROTO;
	}
	for (int j = 0; j < EVAL_CACHE_MAX; j++)
		W->cache[j].used = 0;
	if ((rc = net_get(W, w->main_player, w->main_version, &c)))
		goto out;
	ctx[k] = (struct nn_policy_ctx){ c->net, c->ws };
	for (size_t j = 0; j < k; j++) {
		const League__EvalSnapshot *s = w->snapshots[j];
		if ((rc = net_get(W, s->player, s->version, &c)))
			goto out;
		ctx[j] = (struct nn_policy_ctx){ c->net, c->ws };
		pols[j] = nn_env_policy(&ctx[j]);
	}
	pmain = nn_env_policy(&ctx[k]);
	/* The oracle mixture is a two-player meta-game's Nash: with more
	 * seats it is not computed (NaN, shown as null). */
	two = env_spec_of(W->e)->players == 2;
	if ((rc = env_tree_nashconv(W->tree, &pmain, &nc_main, err,
				    sizeof err)) ||
	    (two && (rc = meta_nash(W, pols, k, x, err, sizeof err)))) {
		LG_WARN("evaluate: snapshot %u: %s", w->snapshot, err);
		goto out;
	}
	oracle = NAN;
	if ((rc = mixture_nashconv(W, pols, w->weights, k, w->snapshot,
				   "league mixture", &league)) ||
	    (two && (rc = mixture_nashconv(W, pols, x, k, w->snapshot,
					   "oracle mixture", &oracle))) ||
	    (rc = average_nashconv(W, w, ctx, k, &nav, &avg)))
		goto out;
	rep->snapshot = w->snapshot;
	rep->main_player = w->main_player;
	rep->main_version = w->main_version;
	rep->env_steps = w->env_steps;
	rep->seconds = w->seconds;
	rep->league_snapshots = w->league_snapshots;
	rep->nashconv_main = nc_main.nashconv;
	rep->nashconv_league = league;
	rep->nashconv_oracle_mix = oracle;
	rep->nashconv_avg = avg;
	rep->avg_versions = nav;
	rep->eval_seconds = lg_now_s() - t0;
out:
	cache_trim(W);
	return rc;
}

/* Wait up to s seconds, reading what the daemon sends unasked. */
static int idle(struct evaluator *W, double s)
{
	double until = lg_now_s() + s;
	int rc = 0;

	while (!rc && !worker_stopping(W->cl) && lg_now_s() < until) {
		lg_sleep_s(0.05);
		rc = net_client_poll(W->cl);
	}
	return rc;
}

/* rep to the daemon (it commits the point before its Ack), and the
 * point in the log. 0, or the call's error. */
static int send_report(struct evaluator *W, League__EvalReport *rep)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	int rc;

	req.body_case = LEAGUE__ENVELOPE__BODY_EVAL_REPORT;
	req.eval_report = rep;
	if ((rc = call(W, &req, &r, "eval report")))
		return rc;
	if (r->body_case == LEAGUE__ENVELOPE__BODY_ACK &&
	    r->ack->status == LEAGUE__STATUS__STATUS_OK)
		W->points++;
	else
		LG_WARN("evaluate: report refused");
	net_msg_free(r);
	LG_INFO("evaluate: snapshot %u (%u in the league): NashConv main "
		"%.4f, league %.4f, oracle mix %.4f, average of %u %.4f "
		"(%.2f s)", rep->snapshot, rep->league_snapshots,
		rep->nashconv_main, rep->nashconv_league,
		rep->nashconv_oracle_mix, rep->avg_versions, rep->nashconv_avg,
		rep->eval_seconds);
	return 0;
}

/* One round: EvalRequest, then the work evaluated and reported, or a
 * wait when there is none (or its parameters went meanwhile). 0, or a
 * call's error. */
static int eval_round(struct evaluator *W)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r = NULL;
	League__EvalRequest er = LEAGUE__EVAL_REQUEST__INIT;
	League__EvalReport rep = LEAGUE__EVAL_REPORT__INIT;
	int rc;

	er.max_snapshots = EVAL_SNAPSHOTS_MAX;
	req.body_case = LEAGUE__ENVELOPE__BODY_EVAL_REQUEST;
	req.eval_request = &er;
	if ((rc = call(W, &req, &r, "eval request")))
		return rc;
	if (r->body_case != LEAGUE__ENVELOPE__BODY_EVAL_WORK) {
		LG_WARN("evaluate: eval request: %s",
			r->body_case == LEAGUE__ENVELOPE__BODY_ACK
				? r->ack->error
				: net_msg_name(r));
		net_msg_free(r);
		return idle(W, IDLE_S);
	}
	if (!r->eval_work->has_work) {
		net_msg_free(r);
		return idle(W, IDLE_S);
	}
	rc = evaluate(W, r->eval_work, &rep);
	net_msg_free(r);
	if (rc == LG_ENOTFOUND || rc == LG_EPROTO || rc == LG_EFULL) {
		/* Parameters gone meanwhile: ask again. */
		return idle(W, IDLE_S / 5);
	}
	return rc ? rc : send_report(W, &rep);
}

/* worker_loop's step: a round, a broken connection told as such. */
static int eval_step(void *ctx)
{
	int rc = eval_round(ctx);

	return rc == LG_ECLOSED || rc == LG_ETIMEOUT ? WORKER_BROKEN : rc;
}

int worker_evaluate(const struct worker_evaluate_opts *o)
{
	static struct evaluator W;
	int rc;

	memset(&W, 0, sizeof W);
	if ((rc = worker_start("league evaluate", o->name, "evaluator",
			       (long)getpid(), W.name, sizeof W.name, &W.tls,
			       NULL, 0)))
		return rc;
	if ((rc = worker_connect("league evaluate", o->host, o->port, W.tls,
				 LEAGUE__ROLE__ROLE_INSPECTOR, W.name,
				 &W.cl))) {
		net_tls_free(W.tls);
		return rc;
	}
	if (!(rc = do_register(&W)))
		rc = worker_loop(W.cl, eval_step, reconnect, &W);
	LG_INFO("evaluate: stops: %llu points evaluated, %llu nets fetched",
		(unsigned long long)W.points, (unsigned long long)W.fetches);
	for (int k = 0; k < EVAL_CACHE_MAX; k++) {
		nn_ws_free(W.cache[k].ws);
		nn_free(W.cache[k].net);
	}
	env_tree_free(W.tree);
	env_free(W.e);
	net_client_close(W.cl);
	net_tls_free(W.tls);
	return rc == LG_ECONFIG || rc == LG_EUNSUPP ? WORKER_EXIT_USAGE
	       : rc				    ? WORKER_EXIT_FAIL
						    : WORKER_EXIT_OK;
}
