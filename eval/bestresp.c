/*
 * eval/bestresp.c: a best response trained by PPO against a frozen
 * opponent, and its value over time (eval/bestresp.h has the model).
 *
 * Shape: two serial collectors over the same game, one to train (policy
 * 0 the best responder sampling, learning; 1..k the opponent's nets) and
 * one to evaluate (policy 0 the best responder greedy or sampling, not
 * learning; 1..k the same nets), each choosing every episode's match
 * through next_episode. Training segments go to a batch; at learner.batch
 * rows the caller's thread runs one PPO update between two coll_collect
 * calls, when no inference is under way (serial mode runs none between
 * calls). An evaluation hands out exactly its episodes and collects until
 * each has ended, so none spans a change of the network.
 */
#include "eval/bestresp.h"
#include "collector/collector.h"
#include "conf/options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BR_COLLECT_STEPS 256  /* env steps a training coll_collect asks */
#define BR_COLLECT_S 0.25     /* ... at most this long (a slow game) */
#define BR_EVAL_STEPS 64
#define BR_EVAL_S 0.05
#define BR_Z95 1.959963984540054

/* A network as a collector policy. */
struct br_net {
	const nn *net;
	nn_ws *ws;     /* batches of up to envs rows */
	int greedy;
};

struct br {
	const struct league_br_opts *o;
	struct env_spec spec;
	size_t k;
	double w[LEAGUE_BR_MIX_MAX];
	struct br_net learner, evaluated, opp[LEAGUE_BR_MIX_MAX];
	coll *train, *eval;
	nn *fresh;            /* the best responder until ppo_new owns it */
	ppo *p;
	struct lg_rows batch;
	lg_rng draws;         /* opponent and nothing else */
	uint64_t handed;      /* training episodes handed out */
	int sink_rc;          /* the first sink error */
	uint64_t rows, updates;
	double train_s;
	/* the evaluation in progress */
	uint64_t want, ev_handed, ev_done, abnormal, n[2];
	double sum[2], sumsq[2];
};

void league_br_opts_of(const struct cfg *c, const struct env_spec *spec,
		       struct league_br_opts *o)
{
	memset(o, 0, sizeof *o);
	o->game = c->env.name;
	league_env_opts(c, &o->env);
	league_nn_shape(c, spec, &o->shape);
	league_ppo_opts(c, &o->ppo);
	/* plain PPO: the collector here does not search, and a best
	 * response is a policy gradient's job, not MMD's */
	o->ppo.pg_coef = 1;
	o->ppo.policy_coef = 0;
	o->ppo.mmd_eta = 0;
	o->batch = c->learner.batch;
	o->envs = (size_t)c->collectors.envs;
	o->segment_len = (uint32_t)c->collectors.segment_len;
	o->processes = c->collectors.processes;
	o->step_timeout_s = c->collectors.step_timeout_s;
	o->reset_timeout_s = c->collectors.reset_timeout_s;
	o->budget_s = 60;
	o->points = 10;
	o->episodes = 2000;
	o->final_episodes = 10000;
	o->seed = c->league.seed;
}

/* ---- the policies ----------------------------------------------------- */

/* A sampling net's rows, or a greedy one's most probable legal actions. */
static int net_act(void *ctx, const float *obs, const uint8_t *mask,
		   size_t n, size_t obs_len, int na, lg_rng *rng,
		   int32_t *action, float *logp, float *value, float *state)
{
	struct br_net *b = ctx;

	return b->greedy ? nn_greedy_state(b->net, b->ws, obs, mask, n, state,
					   action, logp, value)
			 : nn_act_state(b->net, b->ws, obs, mask, n, state,
					rng, action, logp, value);
}

static struct coll_policy policy_of(struct br_net *b)
{
	return (struct coll_policy){ .act = net_act, .ctx = b };
}

/* b's workspace for batches of up to envs rows. */
static int net_init(struct br_net *b, const nn *net, size_t envs, int greedy)
{
	b->net = net;
	b->greedy = greedy;
	return nn_ws_new(&b->ws, net, envs);
}

static void net_fini(struct br_net *b)
{
	nn_ws_free(b->ws);
	memset(b, 0, sizeof *b);
}

/* ---- matches ------------------------------------------------------------ */

/* The best responder (player 0, net 0) in seat, the opponent (player 1,
 * one of its nets drawn by weight) in the other. */
static void match_of(struct br *B, int seat, int learning,
		     struct coll_match *m)
{
	size_t j = B->k > 1 ? lg_rng_categorical(&B->draws, B->w, B->k) : 0;

	memset(m, 0, sizeof *m);
	m->seat[seat] = (struct coll_seat){ .player = 0, .net = 0,
					    .learning = learning };
	m->seat[1 - seat] = (struct coll_seat){ .player = 1,
						.net = (uint32_t)(1 + j) };
}

/* Training: seats alternate episode by episode over all envs. */
static int train_next(void *ctx, size_t env_index, struct coll_match *m,
		      uint64_t *tag)
{
	struct br *B = ctx;
	int seat = (int)(B->handed++ % 2);

	match_of(B, seat, 1, m);
	*tag = (uint64_t)seat;
	return 1;
}

/* Evaluation: exactly `want` episodes, alternating seats; the tag is
 * the best responder's seat. */
static int eval_next(void *ctx, size_t env_index, struct coll_match *m,
		     uint64_t *tag)
{
	struct br *B = ctx;
	int seat;

	if (B->ev_handed >= B->want)
		return 0;
	seat = (int)(B->ev_handed++ % 2);
	match_of(B, seat, 0, m);
	*tag = (uint64_t)seat;
	return 1;
}

static void eval_result(void *ctx, const struct coll_episode *ep)
{
	struct br *B = ctx;
	int seat = ep->tag ? 1 : 0;
	double r = ep->returns[seat];

	B->ev_done++;
	if (ep->abnormal) {
		B->abnormal++;
		return;
	}
	B->n[seat]++;
	B->sum[seat] += r;
	B->sumsq[seat] += r * r;
}

/* ---- the batch ---------------------------------------------------------- */

static int train_sink(void *ctx, const struct coll_segment *seg)
{
	struct br *B = ctx;
	int rc = lg_rows_append(&B->batch, seg->rows);

	if (rc && !B->sink_rc)
		B->sink_rc = rc;
	return rc;
}

/* ---- setup -------------------------------------------------------------- */

static int check_opts(const struct league_br_opts *o, char *err,
		      size_t errlen)
{
	if (!o->game)
		lg_errf(err, errlen, "no game");
	else if (!(o->budget_s > 0 && o->budget_s <= LEAGUE_BR_BUDGET_MAX))
		lg_errf(err, errlen, "budget %g s not in (0, %g]", o->budget_s,
			LEAGUE_BR_BUDGET_MAX);
	else if (!o->points || o->points > LEAGUE_BR_POINTS_MAX)
		lg_errf(err, errlen, "points %u not in [1, %u]", o->points,
			LEAGUE_BR_POINTS_MAX);
	else if (o->episodes < 4 || o->episodes > LEAGUE_BR_EPISODES_MAX ||
		 o->episodes % 2 || o->final_episodes < 4 ||
		 o->final_episodes > LEAGUE_BR_EPISODES_MAX ||
		 o->final_episodes % 2)
		lg_errf(err, errlen, "episodes %llu and %llu: each even, in "
			"[4, %llu]", (unsigned long long)o->episodes,
			(unsigned long long)o->final_episodes,
			LEAGUE_BR_EPISODES_MAX);
	else if (!o->envs || o->envs > LEAGUE_BR_ENVS_MAX)
		lg_errf(err, errlen, "envs %zu not in [1, %d]", o->envs,
			LEAGUE_BR_ENVS_MAX);
	else if (!o->batch || o->batch > PPO_BATCH_MAX / 2)
		lg_errf(err, errlen, "batch %llu not in [1, %u]",
			(unsigned long long)o->batch, PPO_BATCH_MAX / 2);
	else
		return 0;
	return LG_EINVAL;
}

/* The game's spec; two players, zero-sum, or LG_EUNSUPP. */
static int game_spec(const char *game, const struct env_opts *eo,
		     struct env_spec *spec, char *err, size_t errlen)
{
	env *e = NULL;
	int rc;

	if ((rc = env_new(&e, game, eo, err, errlen)))
		return rc;
	*spec = *env_spec_of(e);
	env_free(e);
	if (spec->players != 2 || !(spec->flags & ENV_F_ZERO_SUM)) {
		lg_errf(err, errlen, "%s is not a two-player zero-sum game: "
			"a best response's value is its NashConv only there",
			game);
		return LG_EUNSUPP;
	}
	return 0;
}

/* The opponent's weights into B (normalised), its nets checked against
 * the game and the best responder's recurrent state. */
static int opponent_check(struct br *B, const struct league_br_opponent *op,
			  size_t state_len, char *err, size_t errlen)
{
	double sum = 0;

	if (!op || !op->nets || !op->k || op->k > LEAGUE_BR_MIX_MAX) {
		lg_errf(err, errlen, "an opponent of 1 to %d nets, please",
			LEAGUE_BR_MIX_MAX);
		return LG_EINVAL;
	}
	for (size_t j = 0; j < op->k; j++) {
		const nn *n = op->nets[j];
		double w = op->weights ? op->weights[j] : 1;
		if (!n || nn_shape_of(n)->obs != B->spec.obs_len ||
		    nn_shape_of(n)->actions != (uint32_t)B->spec.num_actions) {
			lg_errf(err, errlen, "opponent net %zu does not fit "
				"%s", j, B->spec.name);
			return LG_EINVAL;
		}
		if (nn_state_len(n) && nn_state_len(n) != state_len) {
			lg_errf(err, errlen, "opponent net %zu carries %zu "
				"floats of recurrent state, the best "
				"responder %zu", j, nn_state_len(n), state_len);
			return LG_EINVAL;
		}
		if (!(w >= 0 && isfinite(w))) {
			lg_errf(err, errlen, "opponent weight %zu is %g", j, w);
			return LG_EINVAL;
		}
		B->w[j] = w;
		sum += w;
	}
	if (!(sum > 0)) {
		lg_errf(err, errlen, "the opponent's weights sum to 0");
		return LG_EINVAL;
	}
	for (size_t j = 0; j < op->k; j++)
		B->w[j] /= sum;
	B->k = op->k;
	return 0;
}

/* One serial collector: policy 0 is first, then the opponent's nets. */
static int collector_new(struct br *B, coll **out, struct br_net *first,
			 int training, char *err, size_t errlen)
{
	const struct league_br_opts *o = B->o;
	struct coll_policy pols[1 + LEAGUE_BR_MIX_MAX];
	struct coll_opts co;

	coll_opts_default(&co);
	co.game = o->game;
	co.env = o->env;
	/* the two collectors play different deals */
	co.env.seed = o->env.seed ^ (training ? 0 : 0x6576616cull);
	co.num_envs = o->envs;
	co.mode = COLL_SERIAL;
	co.wait_num = o->envs;
	co.processes = o->processes;
	if (o->step_timeout_s > 0)
		co.step_timeout_s = o->step_timeout_s;
	if (o->reset_timeout_s > 0)
		co.reset_timeout_s = o->reset_timeout_s;
	if (o->segment_len)
		co.segment_len = o->segment_len;
	co.state_len = nn_state_len(first->net);
	pols[0] = policy_of(first);
	for (size_t j = 0; j < B->k; j++)
		pols[1 + j] = policy_of(&B->opp[j]);
	co.policies = pols;
	co.num_policies = 1 + B->k;
	co.next_episode = training ? train_next : eval_next;
	co.episode_ctx = B;
	if (training) {
		co.sink = train_sink;
		co.sink_ctx = B;
	} else {
		co.result = eval_result;
		co.result_ctx = B;
	}
	return coll_new(out, &co, err, errlen);
}

/* Everything up to the trainer. The collectors are made before ppo_new,
 * which may start threads (coll_new may fork). */
static int br_setup(struct br *B, const struct league_br_opponent *op,
		    char *err, size_t errlen)
{
	const struct league_br_opts *o = B->o;
	struct ppo_opts po = o->ppo;
	int rc;

	if ((rc = check_opts(o, err, errlen)) ||
	    (rc = game_spec(o->game, &o->env, &B->spec, err, errlen)))
		return rc;
	if (o->shape.obs != B->spec.obs_len ||
	    o->shape.actions != (uint32_t)B->spec.num_actions) {
		lg_errf(err, errlen, "the best responder's shape does not fit "
			"%s", B->spec.name);
		return LG_EINVAL;
	}
	if ((rc = nn_new(&B->fresh, &o->shape, o->seed * 1000003u + 7))) {
		lg_errf(err, errlen, "the best responder's network: %s",
			lg_strerror(rc));
		return rc;
	}
	if ((rc = opponent_check(B, op, nn_state_len(B->fresh), err, errlen)))
		return rc;
	lg_rng_seed2(&B->draws, o->seed, 0x6272);
	for (size_t j = 0; j < B->k; j++)
		if ((rc = net_init(&B->opp[j], op->nets[j], o->envs, 0)))
			return rc;
	if ((rc = net_init(&B->learner, B->fresh, o->envs, 0)) ||
	    (rc = net_init(&B->evaluated, B->fresh, o->envs, !o->sample)) ||
	    (rc = lg_rows_init(&B->batch, B->spec.obs_len,
			       (uint32_t)B->spec.num_actions,
			       nn_state_len(B->fresh), o->batch)))
		return rc;
	if ((rc = collector_new(B, &B->train, &B->learner, 1, err, errlen)) ||
	    (rc = collector_new(B, &B->eval, &B->evaluated, 0, err, errlen)))
		return rc;
	/* The batch closes at the first collect past learner.batch: it
	 * may hold a few segments more. */
	po.batch_max = PPO_BATCH_MAX;
	if ((rc = ppo_new(&B->p, B->fresh, NULL, &po, o->seed, err, errlen)))
		return rc;
	B->fresh = NULL;
	return 0;
}

static void br_free(struct br *B)
{
	coll_free(B->train);
	coll_free(B->eval);
	net_fini(&B->learner);
	net_fini(&B->evaluated);
	for (size_t j = 0; j < LEAGUE_BR_MIX_MAX; j++)
		net_fini(&B->opp[j]);
	ppo_free(B->p);
	nn_free(B->fresh);
	lg_rows_free(&B->batch);
}

/* ---- the run ------------------------------------------------------------ */

/* The budget used, 0..1: the larger of the two. */
static double progress(const struct br *B)
{
	struct coll_stats st;
	double f = B->train_s / B->o->budget_s;

	if (B->o->budget_steps) {
		coll_stats(B->train, &st);
		f = LG_MAX(f, (double)st.steps / (double)B->o->budget_steps);
	}
	return LG_MIN(f, 1.0);
}

/* Collect one round of training steps; a PPO update when the batch is
 * full. */
static int train_step(struct br *B)
{
	double t0 = lg_now_s();
	int rc = coll_collect(B->train, BR_COLLECT_STEPS, BR_COLLECT_S);

	if (rc == LG_ETIMEOUT)
		rc = 0;
	if (!rc && B->sink_rc)
		rc = B->sink_rc;
	if (!rc && B->batch.n >= B->o->batch) {
		if (B->o->ppo.lr_schedule == PPO_LR_LINEAR)
			ppo_set_progress(B->p, progress(B));
		if (!(rc = ppo_update(B->p, &B->batch, NULL))) {
			B->rows += B->batch.n;
			B->updates++;
			lg_rows_clear(&B->batch);
		}
	}
	B->train_s += lg_now_s() - t0;
	return rc;
}

/* Mean and 95% half-width of seat s's sample; *var its variance of
 * the mean (NaN under two returns). */
static void seat_stats(const struct br *B, int s, double *mean, double *ci,
		       double *var)
{
	double n = (double)B->n[s];

	*mean = n > 0 ? B->sum[s] / n : NAN;
	*var = n > 1 ? LG_MAX(0.0, (B->sumsq[s] - n * *mean * *mean) /
					   (n - 1)) / n
		     : NAN;
	*ci = BR_Z95 * sqrt(*var);
}

/* Evaluate the best responder as it is: point index i. */
static int evaluate(struct br *B, uint32_t i, struct league_br_point *pt)
{
	const struct league_br_opts *o = B->o;
	struct coll_stats st;
	double t0 = lg_now_s(), var[2];
	int rc = 0;

	B->want = i == o->points ? o->final_episodes : o->episodes;
	B->ev_handed = B->ev_done = B->abnormal = 0;
	memset(B->n, 0, sizeof B->n);
	memset(B->sum, 0, sizeof B->sum);
	memset(B->sumsq, 0, sizeof B->sumsq);
	while (B->ev_done < B->want) {
		rc = coll_collect(B->eval, BR_EVAL_STEPS, BR_EVAL_S);
		if (rc && rc != LG_ETIMEOUT)
			return rc;
	}
	coll_stats(B->train, &st);
	memset(pt, 0, sizeof *pt);
	pt->index = i;
	pt->final = i == o->points;
	pt->progress = progress(B);
	pt->seconds = B->train_s;
	pt->env_steps = st.steps;
	pt->rows = B->rows;
	pt->updates = B->updates;
	pt->abnormal = B->abnormal;
	for (int s = 0; s < 2; s++) {
		pt->episodes[s] = B->n[s];
		seat_stats(B, s, &pt->br_value[s], &pt->br_ci[s], &var[s]);
	}
	pt->nashconv = pt->br_value[0] + pt->br_value[1];
	pt->nashconv_ci = BR_Z95 * sqrt(var[0] + var[1]);
	pt->value = pt->nashconv / 2;
	pt->eval_seconds = lg_now_s() - t0;
	if (o->on_point)
		o->on_point(o->ctx, pt);
	return 0;
}

int league_br_run(const struct league_br_opts *o,
		  const struct league_br_opponent *op,
		  struct league_br_point *last, char *err, size_t errlen)
{
	struct br *B = calloc(1, sizeof *B);
	struct league_br_point pt;
	int rc;

	if (errlen)
		err[0] = 0;
	if (!B)
		return LG_ENOMEM;
	B->o = o;
	if ((rc = br_setup(B, op, err, errlen)))
		goto out;
	for (uint32_t i = 0; i <= o->points && !rc; i++) {
		double goal = (double)i / o->points;
		while (!rc && progress(B) < goal)
			rc = train_step(B);
		if (!rc)
			rc = evaluate(B, i, &pt);
	}
	if (rc && errlen && !err[0])
		lg_errf(err, errlen, "%s", lg_strerror(rc));
	if (!rc && last)
		*last = pt;
out:
	br_free(B);
	free(B);
	return rc;
}

int league_br_exact(const char *game, const struct env_opts *eo,
		    const struct league_br_opponent *op,
		    struct env_nashconv *out, char *err, size_t errlen)
{
	struct nn_policy_ctx ctx[LEAGUE_BR_MIX_MAX];
	struct env_policy pols[LEAGUE_BR_MIX_MAX], mixed;
	env_tabular *mix = NULL;
	env_tree *t = NULL;
	env *e = NULL;
	size_t k = op->k;
	int rc;

	memset(ctx, 0, sizeof ctx);
	if (!k || k > LEAGUE_BR_MIX_MAX)
		return LG_EINVAL;
	if ((rc = env_new(&e, game, eo, err, errlen)))
		return rc;
	if (!(env_spec_of(e)->flags & ENV_F_TREE)) {
		lg_errf(err, errlen, "%s has no exact evaluation", game);
		rc = LG_EUNSUPP;
		goto out;
	}
	if ((rc = env_tree_new(&t, e, err, errlen)))
		goto out;
	for (size_t j = 0; j < k; j++) {
		ctx[j].net = op->nets[j];
		if ((rc = nn_ws_new(&ctx[j].ws, op->nets[j], 1)))
			goto out;
		pols[j] = nn_env_policy(&ctx[j]);
	}
	mixed = pols[0];
	if (k > 1 || op->weights) {
		double w[LEAGUE_BR_MIX_MAX], sum = 0;
		for (size_t j = 0; j < k; j++)
			sum += w[j] = op->weights ? op->weights[j] : 1;
		for (size_t j = 0; j < k; j++)
			w[j] /= sum;
		if ((rc = env_tree_mixture(t, pols, w, k, &mix, err, errlen)))
			goto out;
		mixed = env_tabular_policy(mix);
	}
	rc = env_tree_nashconv(t, &mixed, out, err, errlen);
out:
	for (size_t j = 0; j < k; j++)
		nn_ws_free(ctx[j].ws);
	env_tabular_free(mix);
	env_tree_free(t);
	env_free(e);
	return rc;
}
