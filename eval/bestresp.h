/*
 * eval/bestresp.h: approximate exploitability by a trained best
 * response (`league eval br`), for games whose tree the exact evaluator
 * (envs/tree.c) cannot hold.
 *
 * A fresh network (the best responder) is trained by PPO (the league's
 * learner, learner/) against a frozen opponent: one network, or a
 * mixture of networks of which one is drawn per episode by its weight
 * (the league's meta-Nash over its snapshots). The best responder plays
 * seat 0 and seat 1 on alternate episodes; the opponent samples its
 * policy, as the exact evaluator reads it. Episodes are played by the
 * collector (collector/) in serial mode, in the caller's thread: no
 * inference runs between coll_collect calls, so the PPO update may
 * change the network there.
 *
 * At a schedule of points (training progress 0, 1/points, ..., 1) the
 * best responder is evaluated by a second collector: `episodes` fresh
 * episodes (`final_episodes` at the last point), half in each seat, the
 * best responder playing its most probable legal action (or sampling,
 * opts.sample), the opponent sampling. Per seat s the mean return
 * br_value[s] with a 95% normal-approximation interval (1.96 standard
 * errors of the sample); the NashConv estimate is their sum, as
 * env_tree_nashconv defines NashConv (sum over players of best-response
 * value minus the policy's own value; the latter sum to 0 in the
 * two-player zero-sum games this accepts). Any fixed policy's value is at
 * most the best response's, so in expectation the estimate approaches
 * the exact NashConv from below.
 */
#ifndef LG_EVAL_BESTRESP_H
#define LG_EVAL_BESTRESP_H

#include "envs/env.h"
#include "conf/config.h"
#include "learner/learner.h"

#define LEAGUE_BR_MIX_MAX 128          /* nets of a mixture */
#define LEAGUE_BR_POINTS_MAX 1000
#define LEAGUE_BR_EPISODES_MAX 10000000ull
#define LEAGUE_BR_ENVS_MAX 4096
#define LEAGUE_BR_BUDGET_MAX (30 * 86400.0)

/* The frozen opponent: nets[0..k) drawn per episode with probability
 * weights[j] (NULL: 1/k each; nonnegative, positive sum, normalised
 * here). The nets are the caller's, read only, and must outlive the
 * run. */
struct league_br_opponent {
	const nn *const *nets;
	const double *weights;
	size_t k;
};

/* One evaluation. */
struct league_br_point {
	uint32_t index;       /* 0 .. points */
	int final;            /* the last point */
	double progress;      /* of the budget, 0..1 */
	double seconds;       /* training seconds so far (evaluation apart) */
	uint64_t env_steps;   /* training env steps so far, both seats */
	uint64_t rows;        /* best-responder transitions trained on */
	uint64_t updates;     /* PPO updates */
	uint64_t episodes[2]; /* evaluation episodes, best responder in seat s */
	uint64_t abnormal;    /* evaluation episodes lost to a broken env */
	double br_value[2];   /* mean return of the best responder in seat s */
	double br_ci[2];      /* 95% half-width of each */
	double nashconv;      /* br_value[0] + br_value[1] */
	double nashconv_ci;   /* its 95% half-width */
	double value;         /* nashconv / 2: the mean over seats */
	double eval_seconds;  /* this evaluation's wall time */
};

struct league_br_opts {
	const char *game;      /* env name */
	struct env_opts env;   /* env.seed seeds the episodes */
	struct nn_shape shape; /* the best responder's */
	struct ppo_opts ppo;   /* search's terms are off: plain PPO */
	uint64_t batch;        /* rows per PPO update, >= 1 */
	size_t envs;           /* per collector, 1..LEAGUE_BR_ENVS_MAX */
	uint32_t segment_len;
	int processes;         /* envs in child processes */
	double step_timeout_s, reset_timeout_s;
	double budget_s;       /* training seconds, > 0 */
	uint64_t budget_steps; /* training env steps (0: none); the run ends
				* at whichever budget comes first */
	uint32_t points;       /* evaluations after the one at 0, >= 1 */
	uint64_t episodes;     /* per evaluation, even, >= 4 */
	uint64_t final_episodes; /* at the last point, even, >= 4 */
	int sample;            /* evaluate the sampled policy, not greedy */
	uint64_t seed;         /* the net's init, PPO's shuffles, the draws */
	/* Called at every point, in order (may be NULL). */
	void (*on_point)(void *ctx, const struct league_br_point *p);
	void *ctx;
};

/* The run's settings from a league's config c for its game spec: the
 * game and its options, the league's model as the best responder's
 * shape, its learner (league_ppo_opts, search's terms off, batch_max
 * raised for the collector's segments), collectors.envs, segment_len,
 * processes and timeouts; budget 60 s, 10 points of 2,000 episodes,
 * 10,000 at the last, greedy, seed league.seed. */
void league_br_opts_of(const struct cfg *c, const struct env_spec *spec,
		       struct league_br_opts *o);

/* Train and evaluate as above; *last (may be NULL) gets the last point.
 * Errors: LG_EINVAL (options, an opponent net of another game's shape or
 * recurrent state than the best responder's, bad weights; err says
 * which), LG_EUNSUPP (not a two-player zero-sum game), LG_ENOMEM, and
 * the collector's and learner's errors (LG_EIO: every env died). */
int league_br_run(const struct league_br_opts *o,
		  const struct league_br_opponent *op,
		  struct league_br_point *last, char *err, size_t errlen);

/* The exact NashConv of the opponent (the mixture as one behaviour
 * policy, env_tree_mixture) on game/env: for games with a tree
 * (ENV_F_TREE), else LG_EUNSUPP. Other errors as env_tree_nashconv. */
int league_br_exact(const char *game, const struct env_opts *env,
		    const struct league_br_opponent *op,
		    struct env_nashconv *out, char *err, size_t errlen);

#endif
