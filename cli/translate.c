/*
 * cli/translate.c: the config (league/config.h) as the option structs of
 * the lower modules, which never read the config themselves. One place, so
 * the daemon's workers, `league eval` and the benchmarks agree.
 */
#include "cli/cli.h"

#include <string.h>

void cli_env_opts(const struct cfg *c, struct env_opts *o)
{
	env_opts_default(o);
	o->seed = c->league.seed;
	o->max_steps = c->env.max_steps;
	o->matrix.rows = c->env.matrix.rows;
	o->matrix.cols = c->env.matrix.cols;
	for (uint32_t i = 0; i < c->env.matrix.rows; i++)
		for (uint32_t j = 0; j < c->env.matrix.cols; j++)
			o->matrix.v[i][j] = c->env.matrix.v[i][j];
	o->timing.obs_len = c->env.timing.obs_len;
	o->timing.reset_s = c->env.timing.reset_s;
	o->timing.step_s = c->env.timing.step_s;
	o->timing.infer_s = c->env.timing.infer_s;
	o->timing.episode_len = c->env.timing.episode_len;
	o->timing.jitter_lo = c->env.timing.jitter_lo;
	o->timing.jitter_hi = c->env.timing.jitter_hi;
}

void cli_nn_shape(const struct cfg *c, const struct env_spec *spec,
		  struct nn_shape *s)
{
	memset(s, 0, sizeof *s);
	s->obs = (uint32_t)spec->obs_len;
	s->actions = (uint32_t)spec->num_actions;
	s->nhidden = LG_MIN(c->model.hidden.n, (uint32_t)NN_MAX_LAYERS);
	for (uint32_t i = 0; i < s->nhidden; i++)
		s->hidden[i] = c->model.hidden.v[i];
	s->act = c->model.activation == CFG_ACT_RELU ? NN_RELU : NN_TANH;
}

void cli_ppo_opts(const struct cfg *c, struct ppo_opts *o)
{
	ppo_opts_default(o);
	o->lr = c->learner.lr;
	o->lr_schedule = c->learner.lr_schedule == CFG_LR_LINEAR
				 ? PPO_LR_LINEAR
				 : PPO_LR_CONSTANT;
	o->lr_final_frac = c->learner.lr_final_frac;
	o->gamma = c->learner.gamma;
	o->gae_lambda = c->learner.gae_lambda;
	o->clip = c->learner.clip;
	o->value_clip = c->learner.value_clip;
	o->vf_coef = c->learner.vf_coef;
	o->ent_coef = c->learner.ent_coef;
	o->magnet_coef = c->learner.magnet_coef;
	o->magnet_every = c->learner.magnet_every;
	o->epochs = c->learner.epochs;
	o->minibatch = c->learner.minibatch;
	/* A batch closes at the first segment that reaches learner.batch,
	 * so it can exceed it by one segment. */
	o->batch_max = c->learner.batch + c->collectors.segment_len;
	o->max_grad_norm = c->learner.max_grad_norm;
	o->adam_beta1 = c->learner.adam_beta1;
	o->adam_beta2 = c->learner.adam_beta2;
	o->adam_eps = c->learner.adam_eps;
	o->threads = (int)c->learner.threads;
}
