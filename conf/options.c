/*
 * conf/options.c: config -> module options (see options.h). Enums are
 * mapped through tables indexed by the config's value, so neither side's
 * order matters.
 */
#include "conf/options.h"

#include <stdio.h>
#include <string.h>

#include "players/players.h"

_Static_assert(LEAGUE_JOB_EPISODES_MAX <= BRAIN_MAX_EPISODES,
	       "a job the config allows must fit the brain's cap");

static const int act_of[] = {
	[CFG_ACT_RELU] = NN_RELU,
	[CFG_ACT_TANH] = NN_TANH,
};

static const int schedule_of[] = {
	[CFG_LR_CONSTANT] = PPO_LR_CONSTANT,
	[CFG_LR_LINEAR] = PPO_LR_LINEAR,
};

static const int weighting_of[] = {
	[CFG_PFSP_SQUARED] = BRAIN_PFSP_SQUARED,
	[CFG_PFSP_VARIANCE] = BRAIN_PFSP_VARIANCE,
	[CFG_PFSP_LINEAR] = BRAIN_PFSP_LINEAR,
	[CFG_PFSP_LINEAR_CAPPED] = BRAIN_PFSP_LINEAR_CAPPED,
};

static const int prior_of[] = {
	[CFG_PRIOR_HALF] = PAYOFF_PRIOR_HALF,
	[CFG_PRIOR_BETA] = PAYOFF_PRIOR_BETA,
};

static const int prune_of[] = {
	[CFG_PRUNE_FIFO] = BRAIN_PRUNE_FIFO,
	[CFG_PRUNE_NASH] = BRAIN_PRUNE_NASH,
};

static const enum coll_mode mode_of[] = {
	[CFG_MODE_SERIAL] = COLL_SERIAL,
	[CFG_MODE_SYNC] = COLL_SYNC,
	[CFG_MODE_ASYNC] = COLL_ASYNC,
};

void league_env_opts(const struct cfg *c, struct env_opts *o)
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
	snprintf(o->plugin, sizeof o->plugin, "%s", c->env.plugin);
	snprintf(o->remote, sizeof o->remote, "%s", c->env.remote);
	o->remote_timeout_s = c->env.remote_timeout;
	o->params = c->env.params;
}

/* model.layers as a shape: conv2d and residual entries become the conv
 * torso (over the game's planes), dense entries the hidden layers, each
 * with its own activation; flatten is where the one becomes the other.
 * Counts beyond the caps are the config parser's to refuse. */
static void layers_shape(const struct cfg_layers *ls,
			 const struct env_spec *spec, struct nn_shape *s)
{
	s->act = NN_RELU; /* every layer names its own */
	for (uint32_t i = 0; i < ls->n; i++) {
		const struct cfg_layer *l = &ls->v[i];
		if (l->kind == CFG_LAYER_DENSE && s->nhidden < NN_MAX_LAYERS) {
			s->hidden_act[s->nhidden] = l->act;
			s->hidden[s->nhidden++] = l->size;
		} else if (l->kind == CFG_LAYER_GRU) {
			s->gru = l->size;
		} else if ((l->kind == CFG_LAYER_CONV2D ||
			    l->kind == CFG_LAYER_RESIDUAL) &&
			   s->nconv < NN_MAX_CONV) {
			s->conv[s->nconv++] = (struct nn_conv){
				l->size, l->kernel, l->stride, l->padding,
				l->kind == CFG_LAYER_RESIDUAL, l->act
			};
		}
	}
	if (s->nconv && spec->obs_rank == 3)
		for (int i = 0; i < 3; i++)
			s->planes[i] = spec->obs_shape[i];
}

void league_nn_shape(const struct cfg *c, const struct env_spec *spec,
		     struct nn_shape *s)
{
	memset(s, 0, sizeof *s);
	s->obs = (uint32_t)spec->obs_len;
	s->actions = (uint32_t)spec->num_actions;
	if (c->model.layers.n) {
		layers_shape(&c->model.layers, spec, s);
		return;
	}
	/* The config's list cap is NN_MAX_LAYERS (config.h), so the min
	 * never cuts a loaded config; it guards the array. */
	s->nhidden = LG_MIN(c->model.hidden.n, (uint32_t)NN_MAX_LAYERS);
	for (uint32_t i = 0; i < s->nhidden; i++)
		s->hidden[i] = c->model.hidden.v[i];
	s->act = act_of[c->model.activation];
	/* A convolution torso needs the game's planes; without them the
	 * shape is left without one and the config check refuses it. */
	if (c->model.conv.n && spec->obs_rank == 3) {
		s->nconv = LG_MIN(c->model.conv.n, (uint32_t)NN_MAX_CONV);
		for (int i = 0; i < 3; i++)
			s->planes[i] = spec->obs_shape[i];
		for (uint32_t i = 0; i < s->nconv; i++)
			s->conv[i] = (struct nn_conv){
				c->model.conv.v[i], (uint32_t)c->model.conv_kernel,
				(uint32_t)c->model.conv_stride,
				(uint32_t)c->model.conv_padding, 0, NN_LACT_NET
			};
	}
}

void league_ppo_opts(const struct cfg *c, struct ppo_opts *o)
{
	ppo_opts_default(o);
	o->lr = c->learner.lr;
	o->lr_schedule = schedule_of[c->learner.lr_schedule];
	o->lr_final_frac = c->learner.lr_final_frac;
	o->gamma = c->learner.gamma;
	o->gae_lambda = c->learner.gae_lambda;
	o->clip = c->learner.clip;
	o->value_clip = c->learner.value_clip;
	o->vf_coef = c->learner.vf_coef;
	o->ent_coef = c->learner.ent_coef;
	o->ent_final_frac = c->learner.ent_final_frac;
	o->magnet_coef = c->learner.magnet_coef;
	o->state_weight = c->learner.state_weight;
	o->mmd_eta = c->learner.mmd_eta;
	o->mmd_alpha = c->learner.mmd_alpha;
	o->mmd_clip = c->learner.mmd_clip;
	if (c->learner.mmd_eta > 0)
		o->policy_coef = c->learner.mmd_coef;
	o->magnet_every = c->learner.magnet_every;
	o->seq_len = c->learner.seq_len;
	o->epochs = c->learner.epochs;
	o->minibatch = c->learner.minibatch;
	/* A batch closes at the first segment that reaches learner.batch,
	 * so it can exceed it by one segment (the table's bound on
	 * learner.batch leaves room for that). */
	o->batch_max = c->learner.batch + c->collectors.segment_len;
	o->max_grad_norm = c->learner.max_grad_norm;
	o->adam_beta1 = c->learner.adam_beta1;
	o->adam_beta2 = c->learner.adam_beta2;
	o->adam_eps = c->learner.adam_eps;
	o->threads = (int)c->learner.threads;
	if (c->learner.search.sims) {
		o->pg_coef = c->learner.search.pg_coef;
		o->policy_coef = c->learner.search.policy_coef;
	}
}

void league_brain_opts(const struct cfg *c, struct brain_opts *o)
{
	brain_opts_default(o);
	o->seed = c->league.seed;
	o->n_main = (uint32_t)c->players.main;
	o->n_main_exploiter = (uint32_t)c->players.main_exploiter;
	o->n_league_exploiter = (uint32_t)c->players.league_exploiter;
	o->n_self_play = (uint32_t)c->players.self_play;
	o->main.pfsp = c->roles.main.pfsp;
	o->main.sp = c->roles.main.sp;
	o->main.verification = c->roles.main.verification;
	o->main.weighting = weighting_of[c->roles.main.pfsp_weighting];
	o->main.sp_min_win_rate = c->roles.main.sp_min_win_rate;
	o->main.verify_exploiter_win_rate =
		c->roles.main.verify_exploiter_win_rate;
	o->main.verify_historical_win_rate =
		c->roles.main.verify_historical_win_rate;
	o->main_exploiter.main_min_win_rate =
		c->roles.main_exploiter.main_min_win_rate;
	o->main_exploiter.weighting =
		weighting_of[c->roles.main_exploiter.pfsp_weighting];
	o->main_exploiter.reset_prob = c->roles.main_exploiter.reset_prob;
	o->league_exploiter.weighting =
		weighting_of[c->roles.league_exploiter.pfsp_weighting];
	o->league_exploiter.reset_prob = c->roles.league_exploiter.reset_prob;
	o->self_play.sp = c->roles.self_play.sp;
	o->self_play.uniform = c->roles.self_play.uniform;
	o->self_play.pfsp = c->roles.self_play.pfsp;
	o->self_play.nash = c->roles.self_play.nash;
	o->self_play.weighting =
		weighting_of[c->roles.self_play.pfsp_weighting];
	o->pfsp_exponent = c->matchmaking.pfsp_exponent;
	o->job_episodes = (uint32_t)c->matchmaking.job_episodes;
	o->log_decisions = c->matchmaking.log_decisions;
	o->snapshot_steps = c->snapshot.steps;
	o->snapshot_win_rate = c->snapshot.win_rate;
	o->snapshot_max_mult = c->snapshot.max_mult;
	o->snapshot_keep = c->snapshot.keep;
	o->snapshot_prune = prune_of[c->snapshot.prune];
	o->snapshot_keep_newest = c->snapshot.keep_newest;
	o->payoff.decay = c->payoff.decay;
	o->payoff.min_games = c->payoff.min_games;
	o->payoff.prior = prior_of[c->payoff.prior];
	o->payoff.prior_strength = c->payoff.prior_strength;
	o->payoff.elo_k = c->payoff.elo_k;
	o->psro.on = c->league.mode == CFG_MODE_PSRO;
	o->psro.meta.solver = c->psro.solver;
	o->psro.crossplay_episodes = (uint32_t)c->psro.crossplay_episodes;
	o->psro.br_steps = c->psro.br_steps;
	o->psro.patience_steps = c->psro.patience_steps;
	o->psro.min_improve = c->psro.min_improve;
	o->psro.return_scale = c->psro.return_scale;
	o->psro.br_reset = c->psro.br_reset;
	o->teammates = c->matchmaking.teammates == CFG_TEAMMATES_LEAGUE
			       ? BRAIN_TEAMMATES_LEAGUE
			       : BRAIN_TEAMMATES_SELF;
	o->measure = c->payoff.measure == CFG_MEASURE_WIN ? BRAIN_MEASURE_WIN
		     : c->payoff.measure == CFG_MEASURE_RETURN
			     ? BRAIN_MEASURE_RETURN
			     : BRAIN_MEASURE_AUTO;
	o->return_scale = c->payoff.return_scale;
}

void league_brain_game(const struct env_spec *sp, struct brain_opts *o)
{
	o->seats = (uint32_t)sp->players;
	o->pops = (uint32_t)sp->roles;
	for (int s = 0; s < sp->players; s++) {
		o->team[s] = (uint8_t)sp->seat[s].team;
		o->seat_pop[s] = (uint8_t)sp->seat[s].role;
	}
	if (o->measure == BRAIN_MEASURE_AUTO)
		o->measure = sp->payoff == ENV_ZERO_SUM ||
				     sp->payoff == ENV_CONSTANT_SUM
			     ? BRAIN_MEASURE_WIN
			     : BRAIN_MEASURE_RETURN;
}

void league_coll_opts(const struct cfg *c, size_t envs, struct coll_opts *o)
{
	coll_opts_default(o);
	o->game = c->env.name;
	league_env_opts(c, &o->env);
	o->num_envs = envs ? envs : (size_t)c->collectors.envs;
	o->mode = mode_of[c->collectors.mode];
	o->wait_num = LG_MIN((size_t)c->collectors.wait_num, o->num_envs);
	o->wait_timeout_s = c->collectors.wait_timeout_s;
	o->step_timeout_s = c->collectors.step_timeout_s;
	o->reset_timeout_s = c->collectors.reset_timeout_s;
	o->processes = c->collectors.processes;
	o->segment_len = (uint32_t)c->collectors.segment_len;
	o->state_len = league_state_len(c);
	o->search = (struct coll_search){
		.sims = (uint32_t)c->learner.search.sims,
		.c_puct = c->learner.search.c_puct,
		.temperature_moves =
			(uint32_t)c->learner.search.temperature_moves,
		.dirichlet_alpha = c->learner.search.dirichlet_alpha,
		.noise_frac = c->learner.search.noise_frac,
		.fast_sims = (uint32_t)c->learner.search.fast_sims,
		.full_frac = c->learner.search.full_frac,
		.batch = (uint32_t)c->learner.search.batch,
		.search_value =
			c->learner.search.value == CFG_SEARCH_VALUE_SEARCH,
	};
}

size_t league_state_len(const struct cfg *c)
{
	for (uint32_t i = 0; i < c->model.layers.n; i++)
		if (c->model.layers.v[i].kind == CFG_LAYER_GRU)
			return c->model.layers.v[i].size;
	return 0;
}
