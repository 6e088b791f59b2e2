/*
 * envs/conform_remote.c: `league env check --remote ADDR`, the checks of
 * envs/conform.c that a game served over net/game.proto allows. The
 * league sees no state of a remote game (no clone, serialization or
 * information states), so this plays through the env layer as a
 * collector does, and the client checks every reply as it comes
 * (envs/remote_codec.c: each mover's observation finite and of its
 * seat's length, a mask or list of legal actions with one at least,
 * returns as the spec declares them). The checks:
 *
 *   playouts     random legal play from `episodes` seeds: every op is
 *                answered, every episode ends (the league cuts one at
 *                max_steps)
 *   payoff,      what the client checks of every reply (a reply that
 *   observations breaks them fails its op: then playouts fails, naming
 *                the step, and the log says what the reply broke)
 *   determinism  an episode replayed from its seed with the same
 *                actions gives the same observations, masks and returns
 *   text         (a server with text) at each of a mover's steps in the
 *                first REMOTE_TEXT_EPISODES episodes: describe answers,
 *                the names of its legal actions are distinct and each
 *                parses back to its action (env_action_parse)
 *
 * Every failure names the call, the seat, the step and the seed.
 */
#include "envs/env_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define REMOTE_TEXT_EPISODES 100
#define REMOTE_DET_EPISODES 16
#define REMOTE_NAMES_CMP 64 /* legal names compared for distinctness */

enum { R_PLAY, R_PAYOFF, R_OBS, R_DET, R_CLONE, R_SER, R_INFO, R_TEXT,
       R_N };
static const char *const rcheck_names[R_N] = {
	"playouts", "payoff", "observations", "determinism", "clone",
	"serialize", "infostate", "text",
};

struct rrun {
	env *e;
	const struct env_spec *sp;
	float *obs;       /* the largest seat's obs_len */
	uint8_t *mask;    /* the largest seat's num_actions */
	char (*names)[ENV_ACTION_NAME_MAX]; /* [REMOTE_NAMES_CMP] */
	uint64_t hash, steps;
	char fail[R_N][200];
};

static void rfail(struct rrun *r, int c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void rfail(struct rrun *r, int c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	env_conform_vfail(r->fail[c], sizeof r->fail[c], fmt, ap);
	va_end(ap);
}

static void rmix(struct rrun *r, const void *p, size_t n)
{
	r->hash = env_fnv_mix(r->hash, p, n);
}

/* Mover p's text at step `step` of the episode from seed (its legal
 * actions in r->mask): describe answers, and each legal action's name
 * parses back to it, the first REMOTE_NAMES_CMP distinct. */
static void text_checked(struct rrun *r, int p, uint64_t step, uint64_t seed)
{
	char text[ENV_TEXT_MAX], name[ENV_ACTION_NAME_MAX];
	int na = r->sp->seat[p].num_actions, k = 0, rc, back;

	if ((rc = env_describe(r->e, p, text, sizeof text))) {
		rfail(r, R_TEXT, "describe(seat %d) at step %llu (seed %llu): "
		      "%s", p, (unsigned long long)step,
		      (unsigned long long)seed, lg_strerror(rc));
		return;
	}
	for (int a = 0; a < na; a++) {
		if (!r->mask[a])
			continue;
		if ((rc = env_action_name(r->e, p, a, name, sizeof name))) {
			rfail(r, R_TEXT, "action_name(seat %d, action %d) at "
			      "step %llu (seed %llu): %s", p, a,
			      (unsigned long long)step,
			      (unsigned long long)seed, lg_strerror(rc));
			return;
		}
		for (int j = 0; j < k; j++)
			if (!strcmp(r->names[j], name))
				rfail(r, R_TEXT, "action_name(seat %d) at step "
				      "%llu (seed %llu) names two legal "
				      "actions '%s'", p,
				      (unsigned long long)step,
				      (unsigned long long)seed, name);
		if (env_action_parse(r->e, p, name, &back) || back != a)
			rfail(r, R_TEXT, "action_name(seat %d, action %d) at "
			      "step %llu (seed %llu) is '%s', which does not "
			      "name that action", p, a,
			      (unsigned long long)step,
			      (unsigned long long)seed, name);
		if (k < REMOTE_NAMES_CMP)
			memcpy(r->names[k++], name, sizeof name);
	}
}

/* One random episode from seed (actions drawn from pick seeded with
 * seed too), its observations, masks and returns hashed into r->hash;
 * with text, the movers' text checked. 0, or the failed call's rc
 * (R_PLAY says where). */
static int episode(struct rrun *r, uint64_t seed, int text)
{
	const struct env_spec *sp = r->sp;
	int acts[ENV_MAX_PLAYERS], rc;
	double ret[ENV_MAX_PLAYERS];
	uint64_t step = 0;
	lg_rng pick;

	r->hash = 1469598103934665603ull;
	lg_rng_seed(&pick, seed ^ 0x9e3779b97f4a7c15ull);
	if ((rc = env_reset(r->e, seed))) {
		rfail(r, R_PLAY, "reset (seed %llu) failed: %s",
		      (unsigned long long)seed, lg_strerror(rc));
		return rc;
	}
	while (!env_is_terminal(r->e)) {
		int pl = env_current_player(r->e);
		int lo = pl == ENV_SIMULTANEOUS ? 0 : pl;
		int hi = pl == ENV_SIMULTANEOUS ? sp->players - 1 : pl;
		for (int p = lo; p <= hi; p++) {
			int na = sp->seat[p].num_actions;
			int n = env_legal(r->e, p, r->mask), k;
			env_observe(r->e, p, r->obs);
			rmix(r, r->obs, sp->seat[p].obs_len * sizeof *r->obs);
			rmix(r, r->mask, (size_t)na);
			if (text)
				text_checked(r, p, step, seed);
			k = (int)lg_rng_below(&pick, (uint64_t)(n > 0 ? n : 1));
			for (acts[p] = 0; acts[p] < na; acts[p]++)
				if (r->mask[acts[p]] && k-- == 0)
					break;
		}
		rc = pl == ENV_SIMULTANEOUS ? env_step_joint(r->e, acts)
					    : env_step(r->e, acts[pl]);
		if (rc) {
			rfail(r, R_PLAY, "step %llu (seed %llu, seat %d) "
			      "failed: %s (the server failed the op or its "
			      "reply broke the protocol: the log says which)",
			      (unsigned long long)step,
			      (unsigned long long)seed, pl, lg_strerror(rc));
			return rc;
		}
		step++;
		r->steps++;
	}
	env_returns(r->e, ret);
	rmix(r, ret, (size_t)sp->players * sizeof *ret);
	return 0;
}

/* The report's lines for r's checks. Returns the number failed. */
static int report_checks(const struct rrun *r, uint64_t episodes,
			 double secs, lg_buf *report)
{
	int failed = 0;

	for (int c = 0; c < R_N; c++) {
		char detail[160] = "";
		const char *skip = NULL;
		if (c == R_CLONE || c == R_SER || c == R_INFO)
			skip = "(remote: the league sees no state)";
		else if (c == R_TEXT && !(r->sp->flags & ENV_F_TEXT))
			skip = "(the server has no text)";
		else if ((c == R_PAYOFF || c == R_OBS || c == R_DET) &&
			 r->fail[R_PLAY][0])
			skip = "(not reached: see playouts)";
		if (c == R_PLAY)
			snprintf(detail, sizeof detail, "%llu episodes, %llu "
				 "steps, %.0f steps/s",
				 (unsigned long long)episodes,
				 (unsigned long long)r->steps,
				 secs > 0 ? (double)r->steps / secs : 0);
		if (c == R_PAYOFF || c == R_OBS)
			snprintf(detail, sizeof detail, "every reply checked "
				 "by the client");
		if (c == R_TEXT && !skip)
			snprintf(detail, sizeof detail, "every mover's step in "
				 "the first %d episodes",
				 REMOTE_TEXT_EPISODES);
		failed += r->fail[c][0] != 0;
		lg_buf_printf(report, "%-5s %-13s %s\n",
			      r->fail[c][0] ? "FAIL" : skip ? "skip" : "ok",
			      rcheck_names[c],
			      r->fail[c][0] ? r->fail[c] : skip ? skip
								: detail);
	}
	return failed;
}

int env_conform_remote(const char *name, const struct env_opts *o,
		       uint64_t episodes, uint64_t seed, lg_buf *report,
		       char *err, size_t errlen)
{
	struct rrun r;
	double t0;
	int rc;

	memset(&r, 0, sizeof r);
	if ((rc = env_new(&r.e, name, o, err, errlen)))
		return rc;
	r.sp = env_spec_of(r.e);
	r.obs = malloc(r.sp->obs_len * sizeof *r.obs);
	r.mask = malloc((size_t)r.sp->num_actions);
	r.names = malloc(REMOTE_NAMES_CMP * sizeof *r.names);
	if (!r.obs || !r.mask || !r.names) {
		lg_errf(err, errlen, "out of memory");
		rc = LG_ENOMEM;
		goto out;
	}
	t0 = lg_now_s();
	for (uint64_t i = 0; i < episodes && !r.fail[R_PLAY][0]; i++)
		episode(&r, seed + i, (r.sp->flags & ENV_F_TEXT) &&
					      i < REMOTE_TEXT_EPISODES);
	t0 = lg_now_s() - t0;
	for (uint64_t i = 0; i < REMOTE_DET_EPISODES && i < episodes &&
			     !r.fail[R_PLAY][0]; i++) {
		uint64_t h1, steps = r.steps;
		if (episode(&r, seed + i, 0))
			break;
		h1 = r.hash;
		if (episode(&r, seed + i, 0))
			break;
		if (h1 != r.hash)
			rfail(&r, R_DET, "seed %llu gave two different "
			      "episodes", (unsigned long long)(seed + i));
		r.steps = steps;
	}
	env_conform_header(r.sp, 0, o->remote, report);
	rc = report_checks(&r, episodes, t0, report);
out:
	free(r.obs);
	free(r.mask);
	free(r.names);
	env_free(r.e);
	return rc;
}
