/*
 * envs/timing.c: a synthetic game for collector benchmarks, after the
 * experiment in shared/seeds/collector_overview.txt: an env whose reset
 * and step take configurable (simulated) time, with a configurable
 * observation length and episode length, each jittered uniformly in
 * [jitter_lo, jitter_hi] x nominal with the env's rng (so an episode is
 * reproducible from its seed). Waiting is a sleep: the env costs wall time,
 * not CPU, like an env in another process or on a remote simulator; with
 * timing.burn it is CPU time of the calling thread instead, an env whose
 * step is real computation (the collector benchmark's --real-inference).
 *
 * Two players alternate (player = step % 2) so the league can run it like
 * any other match; actions 0 and 1. Returns: +1 to the player who chose
 * action 1 more often, -1 to the other, 0 on a tie. Observation of p:
 * obs[0] = p, obs[1] = step / episode length, the rest a cheap pattern
 * that changes every step (so writing it costs what a real obs of that
 * length costs). infer_s is carried for the collector (env_infer_s).
 */
#include "envs/env_internal.h"

#include <math.h>

struct timing_st {
	uint64_t step, len;
	int64_t ones[2];
};

static int timing_setup(struct env_opts *o, struct env_spec *spec, char *err,
			size_t errlen)
{
	const double tmax = ENV_TIMING_SECONDS_MAX;
	double lo = o->timing.jitter_lo, hi = o->timing.jitter_hi;

	if (o->timing.obs_len < 1 || o->timing.obs_len > ENV_TIMING_OBS_MAX) {
		lg_errf(err, errlen, "timing: obs_len must be in [1, %u]",
			ENV_TIMING_OBS_MAX);
		return LG_ERANGE;
	}
	if (o->timing.episode_len < 1 ||
	    o->timing.episode_len > ENV_TIMING_EPISODE_MAX) {
		lg_errf(err, errlen, "timing: episode_len must be in [1, 1e9]");
		return LG_ERANGE;
	}
	if (!(o->timing.reset_s >= 0 && o->timing.reset_s <= tmax) ||
	    !(o->timing.step_s >= 0 && o->timing.step_s <= tmax) ||
	    !(o->timing.infer_s >= 0 && o->timing.infer_s <= tmax)) {
		lg_errf(err, errlen, "timing: times must be in [0, %g] s", tmax);
		return LG_ERANGE;
	}
	if (!(lo >= 0 && lo <= hi && hi <= ENV_TIMING_JITTER_MAX)) {
		lg_errf(err, errlen, "timing: need 0 <= jitter_lo <= jitter_hi "
			"<= %g", ENV_TIMING_JITTER_MAX);
		return LG_ERANGE;
	}
	spec->players = 2;
	spec->obs_len = (size_t)o->timing.obs_len;
	spec->num_actions = 2;
	spec->max_steps = (uint64_t)ceil((double)o->timing.episode_len * hi);
	if (spec->max_steps < 1)
		spec->max_steps = 1;
	spec->flags = ENV_F_ZERO_SUM | ENV_F_SLOW;
	return 0;
}

/* Spend t seconds as the options say: asleep or on the CPU. */
static void spend(const void *inst, double t)
{
	const struct env_opts *o = inst;
	if (o->timing.burn)
		lg_burn_cpu_s(t);
	else
		lg_sleep_s(t);
}

static double jitter(const void *inst, struct league_game_rng *rng)
{
	const struct env_opts *o = inst;
	double lo = o->timing.jitter_lo, hi = o->timing.jitter_hi;

	return lo + (hi - lo) * env_rng_double(rng);
}

static void timing_root(const void *inst, void *st, struct league_game_rng *rng)
{
	const struct env_opts *o = inst;
	struct timing_st *s = st;
	double len;

	memset(s, 0, sizeof *s);
	len = rng ? floor((double)o->timing.episode_len * jitter(o, rng) + 0.5)
		  : (double)o->timing.episode_len;
	s->len = len < 1 ? 1 : (uint64_t)len;
	if (rng && o->timing.reset_s > 0)
		spend(o, o->timing.reset_s * jitter(o, rng));
}

static int timing_player(const void *inst, const void *st)
{
	const struct timing_st *s = st;

	return s->step >= s->len ? ENV_TERMINAL : (int)(s->step % 2);
}

static void timing_apply(const void *inst, void *st, int a,
			 struct league_game_rng *rng)
{
	const struct env_opts *o = inst;
	struct timing_st *s = st;

	if (rng && o->timing.step_s > 0)
		spend(o, o->timing.step_s * jitter(o, rng));
	s->ones[s->step % 2] += a;
	s->step++;
}

static void timing_observe(const void *inst, const void *st, int pl,
			   float *out)
{
	const struct env_opts *o = inst;
	const struct timing_st *s = st;
	size_t n = (size_t)o->timing.obs_len;
	unsigned k = (unsigned)s->step;

	out[0] = (float)pl;
	if (n > 1)
		out[1] = (float)((double)s->step / (double)s->len);
	for (size_t i = 2; i < n; i++)
		out[i] = (float)((i + k) & 7) * 0.125f;
}

static void timing_returns(const void *inst, const void *st,
			   double *out)
{
	const struct timing_st *s = st;

	out[0] = s->ones[0] > s->ones[1] ? 1 : s->ones[0] < s->ones[1] ? -1 : 0;
	out[1] = -out[0];
}

ENV_BUILTIN_GAME(timing, timing_setup, sizeof(struct timing_st))

const struct league_game env_game_timing = {
	ENV_GAME_HEAD("timing", "synthetic collector benchmark: sleeps for "
				"reset/step, jittered"),
	.create = timing_create, .destroy = timing_destroy,
	.observe = timing_observe, .root = timing_root,
	.player = timing_player, .legal = env_legal_two,
	.apply = timing_apply, .returns = timing_returns,
	.chance = env_no_chance,
};
