/*
 * players/opts.c: the brain's options: AlphaStar's numbers as defaults
 * (conf/options.c maps the config onto them; tests/check_config.c ties
 * the two) and the checks brain_open applies, which the config's
 * validation calls too, so a rule on these numbers is written once.
 */
#include "players/players.h"

#include <math.h>
#include <string.h>

void brain_opts_default(struct brain_opts *o)
{
	memset(o, 0, sizeof *o);
	o->seed = 1;
	o->n_main = 1;
	o->main.pfsp = 0.5;
	o->main.sp = 0.35;
	o->main.verification = 0.15;
	o->main.weighting = BRAIN_PFSP_SQUARED;
	o->main.sp_min_win_rate = 0.3;
	o->main.verify_exploiter_win_rate = 0.3;
	o->main.verify_historical_win_rate = 0.7;
	o->main_exploiter.main_min_win_rate = 0.1;
	o->main_exploiter.weighting = BRAIN_PFSP_VARIANCE;
	o->main_exploiter.reset_prob = 1;
	o->league_exploiter.weighting = BRAIN_PFSP_LINEAR_CAPPED;
	o->league_exploiter.reset_prob = 0.25;
	o->self_play.sp = 1;
	o->self_play.weighting = BRAIN_PFSP_SQUARED;
	o->pfsp_exponent = 2;
	o->job_episodes = 8;
	o->log_decisions = 1;
	o->snapshot_steps = 2000000000ull;
	o->snapshot_win_rate = 0.7;
	o->snapshot_max_mult = 2;
	o->snapshot_keep = 0;
	o->snapshot_prune = BRAIN_PRUNE_FIFO;
	o->snapshot_keep_newest = 1;
	payoff_opts_default(&o->payoff);
	o->psro.on = 0;
	payoff_meta_opts_default(&o->psro.meta);
	o->psro.crossplay_episodes = 256;
	o->psro.br_steps = 2000000;
	o->psro.patience_steps = 200000;
	o->psro.min_improve = 0.01;
	o->psro.return_scale = 1;
	o->psro.br_reset = 1;
	o->seats = 2;
	for (uint32_t i = 0; i < BRAIN_MAX_SEATS; i++)
		o->team[i] = (uint8_t)i;
	o->teammates = BRAIN_TEAMMATES_SELF;
	o->pops = 1;
	o->measure = BRAIN_MEASURE_AUTO;
	o->return_scale = 1;
	o->batch = 1;
}

static int prob_ok(double p)
{
	return p >= 0 && p <= 1;
}

static int weighting_ok(int w)
{
	return w >= BRAIN_PFSP_SQUARED && w <= BRAIN_PFSP_LINEAR_CAPPED;
}

/* The mix of a role (each in [0, 1], summing to 1); *sum, the sum. */
static int mix_ok(const double *p, size_t n, double *sum)
{
	int ok = 1;

	*sum = 0;
	for (size_t i = 0; i < n; i++) {
		*sum += p[i];
		ok = ok && prob_ok(p[i]);
	}
	return ok && fabs(*sum - 1.0) <= 1e-9;
}

/* The roles: their mixes, how many players each, the weightings, the
 * win rates and probabilities. 0 or LG_ECONFIG (err says which). */
static int roles_check(const struct brain_opts *o, char *err, size_t errlen)
{
	const double main_mix[] = { o->main.pfsp, o->main.sp,
				    o->main.verification };
	const double sp_mix[] = { o->self_play.sp, o->self_play.uniform,
				  o->self_play.pfsp, o->self_play.nash };
	double s;

	if (!mix_ok(main_mix, LG_ARRAY_LEN(main_mix), &s)) {
		lg_errf(err, errlen, "roles.main: pfsp + sp + verification "
			"must be 1 (each in [0, 1]), is %.15g", s);
		return LG_ECONFIG;
	}
	if (!mix_ok(sp_mix, LG_ARRAY_LEN(sp_mix), &s)) {
		lg_errf(err, errlen, "roles.self_play: sp + uniform + pfsp + "
			"nash must be 1 (each in [0, 1]), is %.15g", s);
		return LG_ECONFIG;
	}
	if (!o->n_main && !o->n_main_exploiter && !o->n_league_exploiter &&
	    !o->n_self_play) {
		lg_errf(err, errlen, "players: a league needs at least one "
			"learning player");
		return LG_ECONFIG;
	}
	if (o->n_main > BRAIN_MAX_PLAYERS_PER_ROLE ||
	    o->n_main_exploiter > BRAIN_MAX_PLAYERS_PER_ROLE ||
	    o->n_league_exploiter > BRAIN_MAX_PLAYERS_PER_ROLE ||
	    o->n_self_play > BRAIN_MAX_PLAYERS_PER_ROLE) {
		lg_errf(err, errlen, "players: at most %d per role",
			BRAIN_MAX_PLAYERS_PER_ROLE);
		return LG_ECONFIG;
	}
	if (o->n_main_exploiter && !o->n_main) {
		lg_errf(err, errlen, "players: main exploiters need a main "
			"player");
		return LG_ECONFIG;
	}
	if (!weighting_ok(o->main.weighting) ||
	    !weighting_ok(o->main_exploiter.weighting) ||
	    !weighting_ok(o->league_exploiter.weighting) ||
	    !weighting_ok(o->self_play.weighting)) {
		lg_errf(err, errlen, "roles: unknown pfsp weighting");
		return LG_ECONFIG;
	}
	if (!prob_ok(o->main.sp_min_win_rate) ||
	    !prob_ok(o->main.verify_exploiter_win_rate) ||
	    !prob_ok(o->main.verify_historical_win_rate) ||
	    !prob_ok(o->main_exploiter.main_min_win_rate) ||
	    !prob_ok(o->main_exploiter.reset_prob) ||
	    !prob_ok(o->league_exploiter.reset_prob) ||
	    !prob_ok(o->snapshot_win_rate)) {
		lg_errf(err, errlen, "roles/snapshot: a win rate or "
			"probability is outside [0, 1]");
		return LG_ECONFIG;
	}
	return 0;
}

/* Matchmaking's numbers and the snapshot rules (prune, keep). 0 or
 * LG_ECONFIG (err says which). */
static int snapshot_check(const struct brain_opts *o, char *err,
			  size_t errlen)
{
	if (!(o->pfsp_exponent >= 0 && o->pfsp_exponent <= 100) ||
	    !o->job_episodes || o->job_episodes > BRAIN_MAX_EPISODES ||
	    !o->snapshot_steps || !(o->snapshot_max_mult >= 1) ||
	    !isfinite(o->snapshot_max_mult) || !o->batch) {
		lg_errf(err, errlen, "matchmaking/snapshot: pfsp_exponent, "
			"job_episodes, snapshot steps/max_mult or batch out "
			"of range");
		return LG_ECONFIG;
	}
	if (o->snapshot_prune != BRAIN_PRUNE_FIFO &&
	    o->snapshot_prune != BRAIN_PRUNE_NASH) {
		lg_errf(err, errlen, "snapshot.prune: unknown rule %d",
			o->snapshot_prune);
		return LG_ECONFIG;
	}
	if (!o->snapshot_keep_newest) {
		lg_errf(err, errlen, "snapshot.keep_newest: must be at least "
			"1 (the snapshot just frozen has no results yet)");
		return LG_ECONFIG;
	}
	if (o->snapshot_prune == BRAIN_PRUNE_NASH && !o->snapshot_keep) {
		lg_errf(err, errlen, "snapshot.prune: nash needs a bound: "
			"set snapshot.keep (0 keeps every snapshot, so "
			"nothing is pruned)");
		return LG_ECONFIG;
	}
	if (o->snapshot_prune == BRAIN_PRUNE_NASH &&
	    o->snapshot_keep_newest > o->snapshot_keep) {
		lg_errf(err, errlen, "snapshot.keep_newest: %llu is more "
			"than snapshot.keep (%llu): nash pruning keeps the "
			"newest within the bound",
			(unsigned long long)o->snapshot_keep_newest,
			(unsigned long long)o->snapshot_keep);
		return LG_ECONFIG;
	}
	return 0;
}

/* league.mode psro: self-play players only, its numbers in range, the
 * population within BRAIN_NASH_MAX. 0 or LG_ECONFIG (err says which). */
static int psro_check(const struct brain_opts *o, char *err, size_t errlen)
{
	if (o->psro.on &&
	    (o->n_main || o->n_main_exploiter || o->n_league_exploiter ||
	     !o->n_self_play)) {
		lg_errf(err, errlen, "players: league.mode psro trains "
			"self-play players only (its best responders): set "
			"main, main_exploiter and league_exploiter to 0 and "
			"self_play to at least 1");
		return LG_ECONFIG;
	}
	if (o->psro.on &&
	    (!o->psro.crossplay_episodes ||
	     o->psro.crossplay_episodes > BRAIN_MAX_EPISODES ||
	     !o->psro.br_steps || !o->psro.patience_steps ||
	     !(o->psro.min_improve >= 0 && o->psro.min_improve <= 1) ||
	     !(o->psro.return_scale > 0 && o->psro.return_scale <= 127) ||
	     o->psro.meta.solver < 0 ||
	     o->psro.meta.solver >= PAYOFF_META__COUNT)) {
		lg_errf(err, errlen, "psro: crossplay_episodes, br_steps, "
			"patience_steps, min_improve or solver out of range");
		return LG_ECONFIG;
	}
	if (o->psro.on &&
	    (!o->snapshot_keep || o->snapshot_prune != BRAIN_PRUNE_FIFO ||
	     o->snapshot_keep * o->n_self_play > BRAIN_NASH_MAX)) {
		/* the meta-strategy is over at most BRAIN_NASH_MAX members:
		 * beyond, new responders would never join it */
		lg_errf(err, errlen, "snapshot: league.mode psro keeps its "
			"population within %d members: snapshot.keep at least "
			"1 and at most %d / players.self_play, snapshot.prune "
			"fifo", BRAIN_NASH_MAX, BRAIN_NASH_MAX);
		return LG_ECONFIG;
	}
	return 0;
}

/* Seats, teams and the measure. */
static int seats_check(const struct brain_opts *o, char *err, size_t errlen)
{
	if (o->seats < 1 || o->seats > BRAIN_MAX_SEATS) {
		lg_errf(err, errlen, "seats %u outside 1..%d", o->seats,
			BRAIN_MAX_SEATS);
		return -1;
	}
	for (uint32_t s = 0; s < o->seats; s++)
		if (o->team[s] >= o->seats) {
			lg_errf(err, errlen, "seat %u's team %u outside 0..%u",
				s, o->team[s], o->seats - 1);
			return -1;
		}
	if (o->pops < 1 || o->pops > o->seats) {
		lg_errf(err, errlen, "%u populations for %u seats", o->pops,
			o->seats);
		return -1;
	}
	for (uint32_t p = 0; p < o->pops; p++) {
		uint32_t k = 0;
		for (uint32_t s = 0; s < o->seats; s++)
			k += o->seat_pop[s] == p;
		if (!k) {
			lg_errf(err, errlen, "population %u plays no seat", p);
			return -1;
		}
	}
	for (uint32_t s = 0; s < o->seats; s++)
		if (o->seat_pop[s] >= o->pops) {
			lg_errf(err, errlen, "seat %u's population %u outside "
				"0..%u", s, o->seat_pop[s], o->pops - 1);
			return -1;
		}
	if (o->pops > 1 && (o->psro.on || o->snapshot_prune ==
						  BRAIN_PRUNE_NASH)) {
		lg_errf(err, errlen, "PSRO and nash pruning take one "
			"population (a symmetric game), not %u", o->pops);
		return -1;
	}
	if ((o->teammates != BRAIN_TEAMMATES_SELF &&
	     o->teammates != BRAIN_TEAMMATES_LEAGUE) ||
	    o->measure < BRAIN_MEASURE_AUTO ||
	    o->measure > BRAIN_MEASURE_RETURN) {
		lg_errf(err, errlen, "unknown teammates rule or measure");
		return -1;
	}
	if (!(o->return_scale > 0) || !isfinite(o->return_scale)) {
		lg_errf(err, errlen, "return_scale %g is not a positive "
			"number", o->return_scale);
		return -1;
	}
	return 0;
}

int brain_opts_check(const struct brain_opts *o, char *err, size_t errlen)
{
	if (roles_check(o, err, errlen) || snapshot_check(o, err, errlen) ||
	    seats_check(o, err, errlen))
		return LG_ECONFIG;
	if (payoff_opts_check(&o->payoff, err, errlen))
		return LG_ECONFIG;
	return psro_check(o, err, errlen);
}
