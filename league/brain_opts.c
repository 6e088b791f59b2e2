/*
 * league/brain_opts.c: the config as the brain's options.
 */
#include "league/daemon.h"

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
	o->main.weighting = c->roles.main.pfsp_weighting;
	o->main.sp_min_win_rate = c->roles.main.sp_min_win_rate;
	o->main.verify_exploiter_win_rate =
		c->roles.main.verify_exploiter_win_rate;
	o->main.verify_historical_win_rate =
		c->roles.main.verify_historical_win_rate;
	o->main_exploiter.main_min_win_rate =
		c->roles.main_exploiter.main_min_win_rate;
	o->main_exploiter.weighting = c->roles.main_exploiter.pfsp_weighting;
	o->main_exploiter.reset_prob = c->roles.main_exploiter.reset_prob;
	o->league_exploiter.weighting =
		c->roles.league_exploiter.pfsp_weighting;
	o->league_exploiter.reset_prob = c->roles.league_exploiter.reset_prob;
	o->self_play.sp = c->roles.self_play.sp;
	o->self_play.uniform = c->roles.self_play.uniform;
	o->self_play.pfsp = c->roles.self_play.pfsp;
	o->self_play.nash = c->roles.self_play.nash;
	o->self_play.weighting = c->roles.self_play.pfsp_weighting;
	o->pfsp_exponent = c->matchmaking.pfsp_exponent;
	o->job_episodes = (uint32_t)c->matchmaking.job_episodes;
	o->log_decisions = c->matchmaking.log_decisions;
	o->snapshot_steps = c->snapshot.steps;
	o->snapshot_win_rate = c->snapshot.win_rate;
	o->snapshot_max_mult = c->snapshot.max_mult;
	o->snapshot_keep = c->snapshot.keep;
	o->payoff.decay = c->payoff.decay;
	o->payoff.min_games = c->payoff.min_games;
	o->payoff.prior = c->payoff.prior == CFG_PRIOR_BETA ? PAYOFF_PRIOR_BETA
							    : PAYOFF_PRIOR_HALF;
	o->payoff.prior_strength = c->payoff.prior_strength;
	o->payoff.elo_k = c->payoff.elo_k;
}
