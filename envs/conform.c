/*
 * envs/conform.c: `league env check`: the conformance suite every game,
 * built in or plugin, must pass before a league trusts it. It drives the
 * game's table directly (not the play wrapper), so it sees chance nodes
 * and every call's output, and checks:
 *
 *   playouts     random legal play ends within max_steps; the mover's
 *                mask is never empty; chance nodes list 1..CHANCE_MAX
 *                distinct outcomes whose probabilities are > 0 and sum
 *                to 1
 *   payoff       terminal returns are finite and what the game declares
 *                (zero-sum: sum to 0; constant-sum: to payoff_sum;
 *                common-payoff: all equal), and equal within a team
 *   observations observe() writes the seat's obs_len finite floats and
 *                nothing past them (canaries), legal() nothing past the
 *                seat's num_actions
 *   determinism  the same seed and actions give the same episode
 *   clone        a state copied mid-episode (its bytes) plays on exactly
 *                as the original
 *   serialize    (when the hooks exist) serialize -> deserialize ->
 *                serialize gives the same bytes and the same observation
 *   infostate    (when the hook exists) keys are NUL-terminated within
 *                LEAGUE_GAME_KEY_MAX, and the game tree builds
 *   text         (when the hooks exist) describe() and action_name()
 *                write NUL-terminated text within len, and the names of
 *                the mover's legal actions are non-empty, without blanks
 *                and distinct
 *
 * Every failure names the call, the seat and the step (and the seed of
 * the episode where it has one). A remote game (opts->remote) gets the
 * checks its protocol allows (envs/conform_remote.c).
 */
#include "envs/env_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define CANARY 16 /* floats / bytes past the end that must stay intact */
#define CANARY_F (-12345.678f)
#define CANARY_B 0xA5

struct run {
	const struct env_game *gm;
	const struct league_game *g;
	const void *in;
	int A;          /* the largest seat's actions */
	size_t L, S;    /* the largest seat's observation; state bytes */
	float *obs;     /* L + CANARY */
	uint8_t *mask;  /* A + CANARY */
	unsigned char *st, *st2;
	uint64_t hash;  /* of one episode: observations, actions, returns */
	/* failures: the first message of each check */
	char fail[8][200]; /* C_N */
	char info_note[200]; /* infostate passed, but the tree is not built */
	uint64_t steps, episodes, truncated, chance_nodes;
};

enum { C_PLAY, C_PAYOFF, C_OBS, C_DET, C_CLONE, C_SER, C_INFO, C_TEXT,
       C_N };
_Static_assert(C_N <= 8, "struct run holds 8 checks' failures");
static const char *const check_names[C_N] = {
	"playouts", "payoff", "observations", "determinism", "clone",
	"serialize", "infostate", "text",
};

static void failf(struct run *r, int c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* env_internal.h */
void env_conform_vfail(char *slot, size_t len, const char *fmt, va_list ap)
{
	if (!slot[0])
		vsnprintf(slot, len, fmt, ap);
}

/* env_internal.h */
uint64_t env_fnv_mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static void failf(struct run *r, int c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	env_conform_vfail(r->fail[c], sizeof r->fail[c], fmt, ap);
	va_end(ap);
}

static void mix(struct run *r, const void *p, size_t n)
{
	r->hash = env_fnv_mix(r->hash, p, n);
}

static void observe_checked(struct run *r, const void *st, int p)
{
	size_t L = r->gm->spec.seat[p].obs_len;

	for (size_t i = 0; i < L + CANARY; i++)
		r->obs[i] = i < L ? NAN : CANARY_F;
	r->g->observe(r->in, st, p, r->obs);
	for (size_t i = 0; i < L; i++)
		if (!isfinite(r->obs[i])) {
			failf(r, C_OBS, "observe(seat %d) left float %zu of "
			      "%zu unwritten or not finite", p, i, L);
			break;
		}
	for (size_t i = L; i < L + CANARY; i++)
		if (r->obs[i] != CANARY_F) {
			failf(r, C_OBS, "observe(seat %d) wrote past "
			      "obs_len %zu", p, L);
			break;
		}
	mix(r, r->obs, L * sizeof *r->obs);
}

/* Legal mask of p into r->mask; returns the count it reports. */
static int legal_checked(struct run *r, const void *st, int p)
{
	int n, count = 0, A = r->gm->spec.seat[p].num_actions;

	memset(r->mask, CANARY_B, (size_t)A + CANARY);
	n = r->g->legal(r->in, st, p, r->mask);
	for (int a = 0; a < A; a++) {
		if (r->mask[a] > 1)
			failf(r, C_OBS, "legal(seat %d) left mask[%d] %u "
			      "(not 0 or 1)", p, a, r->mask[a]);
		count += r->mask[a] == 1;
	}
	for (int a = A; a < A + CANARY; a++)
		if (r->mask[a] != CANARY_B) {
			failf(r, C_OBS, "legal(seat %d) wrote past "
			      "num_actions %d", p, A);
			break;
		}
	if (n != count)
		failf(r, C_OBS, "legal(seat %d) returned %d but set %d",
		      p, n, count);
	return count;
}

static int pick(const uint8_t *mask, int A, lg_rng *rng)
{
	int n = 0, k;

	for (int a = 0; a < A; a++)
		n += mask[a] == 1;
	k = (int)lg_rng_below(rng, (uint64_t)n);
	for (int a = 0; a < A; a++)
		if (mask[a] == 1 && k-- == 0)
			return a;
	return -1;
}

static int chance_checked(struct run *r, const void *st, struct env_rng *er)
{
	int out[LEAGUE_GAME_CHANCE_MAX];
	double p[LEAGUE_GAME_CHANCE_MAX], sum = 0;
	int n;

	r->chance_nodes++;
	if (!r->g->chance) {
		failf(r, C_PLAY, "player() gave a chance node and the game "
		      "has no chance()");
		return -1;
	}
	n = r->g->chance(r->in, st, out, p);
	if (n < 1 || n > LEAGUE_GAME_CHANCE_MAX) {
		failf(r, C_PLAY, "chance() listed %d outcomes (1..%d)", n,
		      LEAGUE_GAME_CHANCE_MAX);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (!(p[i] > 0))
			failf(r, C_PLAY, "chance() outcome %d has probability "
			      "%g", out[i], p[i]);
		for (int j = 0; j < i; j++)
			if (out[j] == out[i])
				failf(r, C_PLAY, "chance() lists outcome %d "
				      "twice", out[i]);
		sum += p[i];
	}
	if (fabs(sum - 1) > 1e-9) {
		failf(r, C_PLAY, "chance() probabilities sum to %.12g", sum);
		return -1;
	}
	return out[lg_rng_categorical(&er->r, p, (size_t)n)];
}

/* The returns of an episode (seed, after steps) against the declared
 * payoff type and the teams. */
static void returns_checked(struct run *r, const double *ret, uint64_t seed,
			    uint64_t steps)
{
	const struct env_spec *sp = &r->gm->spec;
	double sum = 0, big = 0, want = 0;
	int n = sp->players;

	for (int p = 0; p < n; p++) {
		if (!isfinite(ret[p])) {
			failf(r, C_PAYOFF, "returns() gave seat %d %g (seed "
			      "%llu, step %llu)", p, ret[p],
			      (unsigned long long)seed,
			      (unsigned long long)steps);
			return;
		}
		sum += ret[p];
		big = fmax(big, fabs(ret[p]));
	}
	for (int p = 1; p < n; p++)
		for (int q = 0; q < p; q++)
			if (sp->seat[p].team == sp->seat[q].team &&
			    fabs(ret[p] - ret[q]) > 1e-9 * (1 + big))
				failf(r, C_PAYOFF, "returns() gave seats %d "
				      "and %d of team %d %g and %g (seed "
				      "%llu, step %llu): a team's seats get "
				      "the same return", q, p,
				      sp->seat[p].team, ret[q], ret[p],
				      (unsigned long long)seed,
				      (unsigned long long)steps);
	if (sp->payoff == ENV_COMMON_PAYOFF) {
		for (int p = 1; p < n; p++)
			if (fabs(ret[p] - ret[0]) > 1e-9 * (1 + big))
				failf(r, C_PAYOFF, "returns() gave seats 0 "
				      "and %d %g and %g (seed %llu, step "
				      "%llu) in a game declared common-"
				      "payoff", p, ret[0], ret[p],
				      (unsigned long long)seed,
				      (unsigned long long)steps);
		return;
	}
	if (sp->payoff != ENV_ZERO_SUM && sp->payoff != ENV_CONSTANT_SUM)
		return;
	want = sp->payoff == ENV_CONSTANT_SUM ? sp->payoff_sum : 0;
	if (fabs(sum - want) > 1e-9 * (1 + big))
		failf(r, C_PAYOFF, "returns() sum to %.12g, not %g (seed %llu, "
		      "step %llu) in a game declared %s", sum, want,
		      (unsigned long long)seed, (unsigned long long)steps,
		      env_payoff_name(sp->payoff));
}

/* The text hooks at st for seat p (the mover, its mask in r->mask). */
static void text_checked(struct run *r, const void *st, int p,
			 uint64_t steps)
{
	char buf[LEAGUE_GAME_TEXT_MAX + CANARY];
	char names[64][LEAGUE_GAME_NAME_MAX];
	int A = r->gm->spec.seat[p].num_actions, k = 0;

	if (!r->g->describe || !r->g->action_name)
		return;
	memset(buf, CANARY_B, sizeof buf);
	r->g->describe(r->in, st, p, buf, LEAGUE_GAME_TEXT_MAX);
	if (!memchr(buf, 0, LEAGUE_GAME_TEXT_MAX) ||
	    (unsigned char)buf[LEAGUE_GAME_TEXT_MAX] != CANARY_B)
		failf(r, C_TEXT, "describe(seat %d) at step %llu left no NUL "
		      "within len or wrote past it", p,
		      (unsigned long long)steps);
	for (int a = 0; a < A; a++) {
		if (!r->mask[a])
			continue;
		char *nm = names[k < 64 ? k : 63];
		memset(buf, CANARY_B, sizeof buf);
		r->g->action_name(r->in, st, p, a, buf, LEAGUE_GAME_NAME_MAX);
		if (!memchr(buf, 0, LEAGUE_GAME_NAME_MAX) ||
		    (unsigned char)buf[LEAGUE_GAME_NAME_MAX] != CANARY_B) {
			failf(r, C_TEXT, "action_name(seat %d, action %d) at "
			      "step %llu left no NUL within len or wrote "
			      "past it", p, a, (unsigned long long)steps);
			return;
		}
		if (!buf[0] || strpbrk(buf, " \t\n\r"))
			failf(r, C_TEXT, "action_name(seat %d, action %d) at "
			      "step %llu is '%s' (empty or with blanks)", p,
			      a, (unsigned long long)steps, buf);
		/* Distinct among the first 64 legal actions (enough to
		 * catch a constant name; big games list far more). */
		for (int j = 0; j < k && j < 64; j++)
			if (!strcmp(names[j], buf))
				failf(r, C_TEXT, "action_name(seat %d) at step "
				      "%llu names two legal actions '%s'", p,
				      (unsigned long long)steps, buf);
		if (k < 64)
			memcpy(nm, buf, LEAGUE_GAME_NAME_MAX);
		k++;
	}
}

/* One step from st: a chance outcome or the movers' actions, drawn from
 * pick (the actions) and er (chance, and the game's own draws). Returns
 * 1 at the end (terminal or a failure), else 0. */
static int step(struct run *r, unsigned char *st, struct env_rng *er,
		lg_rng *pick_rng, uint64_t *steps)
{
	int pl = r->g->player(r->in, st);
	int simul = r->gm->spec.flags & ENV_F_SIMULTANEOUS;

	if (pl == LEAGUE_GAME_TERMINAL)
		return 1;
	if (pl == LEAGUE_GAME_CHANCE) {
		int o = chance_checked(r, st, er);
		if (o < 0)
			return 1;
		r->g->apply(r->in, st, o, &er->base);
		return 0;
	}
	if (pl < 0 || pl >= r->gm->spec.players) {
		failf(r, C_PLAY, "player() returned %d at step %llu (seats "
		      "0..%d, chance %d, terminal %d)", pl,
		      (unsigned long long)*steps, r->gm->spec.players - 1,
		      LEAGUE_GAME_CHANCE, LEAGUE_GAME_TERMINAL);
		return 1;
	}
	int acts[ENV_MAX_PLAYERS], first = simul ? 0 : pl;
	int last = simul ? r->gm->spec.players - 1 : pl;
	for (int p = first; p <= last; p++) {
		observe_checked(r, st, p);
		if (!legal_checked(r, st, p)) {
			failf(r, C_PLAY, "legal(seat %d) gave an empty mask "
			      "to the seat to move at step %llu", p,
			      (unsigned long long)*steps);
			return 1;
		}
		text_checked(r, st, p, *steps);
		acts[p] = pick(r->mask, r->gm->spec.seat[p].num_actions,
			       pick_rng);
		mix(r, &acts[p], sizeof acts[p]);
	}
	for (int p = first; p <= last; p++)
		r->g->apply(r->in, st, acts[p], &er->base);
	(*steps)++;
	return 0;
}

/* A whole random episode from seed; hash of it in r->hash. With clone_at
 * > 0 the state (and generators) are copied before that step, both play
 * on, and the copy's hash must match. */
static void episode(struct run *r, uint64_t seed, uint64_t clone_at,
		    double *ret)
{
	struct env_rng er, er2;
	lg_rng pr, pr2;
	uint64_t steps = 0, h2 = 0, steps2, max = r->gm->spec.max_steps;
	int done = 0, cloned = 0;

	env_rng_seed(&er, seed);
	lg_rng_seed(&pr, seed ^ 0x9e3779b97f4a7c15ull);
	r->hash = 1469598103934665603ull;
	r->g->root(r->in, r->st, &er.base);
	while (!done) {
		if (clone_at && steps == clone_at) {
			uint64_t h = r->hash;
			memcpy(r->st2, r->st, r->S);
			er2 = er;
			pr2 = pr;
			steps2 = steps;
			/* The copy plays first, into r->st2; the original
			 * then plays the same tail from the same hash. */
			while (!step(r, r->st2, &er2, &pr2, &steps2) &&
			       steps2 < max)
				;
			h2 = r->hash;
			r->hash = h;
			cloned = 1;
			clone_at = 0;
		}
		done = step(r, r->st, &er, &pr, &steps);
		if (!done && steps >= max &&
		    r->g->player(r->in, r->st) != LEAGUE_GAME_TERMINAL) {
			if (!cloned)
				r->truncated++;
			break;
		}
	}
	if (cloned && h2 != r->hash)
		failf(r, C_CLONE, "a state copied mid-episode (seed %llu) "
		      "played on differently from the original",
		      (unsigned long long)seed);
	for (int p = 0; p < r->gm->spec.players; p++)
		ret[p] = 0;
	if (r->g->player(r->in, r->st) == LEAGUE_GAME_TERMINAL) {
		r->g->returns(r->in, r->st, ret);
		mix(r, ret, (size_t)r->gm->spec.players * sizeof *ret);
		returns_checked(r, ret, seed, steps);
	}
	r->steps += steps;
	r->episodes++;
}

static void check_serialize(struct run *r, uint64_t seed)
{
	struct env_rng er;
	lg_rng pr;
	uint64_t steps = 0;
	size_t cap = r->S * 4 + 4096, n1, n2;
	uint8_t *b1 = malloc(cap), *b2 = malloc(cap);
	float *o1 = malloc(r->L * sizeof *o1);

	if (!b1 || !b2 || !o1) {
		failf(r, C_SER, "out of memory");
		goto out;
	}
	env_rng_seed(&er, seed);
	lg_rng_seed(&pr, seed + 1);
	r->g->root(r->in, r->st, &er.base);
	do {
		n1 = r->g->serialize(r->in, r->st, b1, cap);
		if (!n1 || n1 > cap) {
			failf(r, C_SER, "serialize() wrote %zu bytes (buffer "
			      "%zu)", n1, cap);
			break;
		}
		memset(r->st2, 0, r->S);
		if (r->g->deserialize(r->in, r->st2, b1, n1)) {
			failf(r, C_SER, "deserialize() refused what "
			      "serialize() wrote (step %llu)",
			      (unsigned long long)steps);
			break;
		}
		n2 = r->g->serialize(r->in, r->st2, b2, cap);
		if (n2 != n1 || memcmp(b1, b2, n1)) {
			failf(r, C_SER, "serialize(deserialize(x)) != x at "
			      "step %llu", (unsigned long long)steps);
			break;
		}
		for (int p = 0; p < r->gm->spec.players; p++) {
			size_t L = r->gm->spec.seat[p].obs_len;
			r->g->observe(r->in, r->st, p, o1);
			r->g->observe(r->in, r->st2, p, r->obs);
			if (memcmp(o1, r->obs, L * sizeof *o1))
				failf(r, C_SER, "a deserialized state observes "
				      "differently (step %llu)",
				      (unsigned long long)steps);
		}
	} while (!step(r, r->st, &er, &pr, &steps) &&
		 steps < r->gm->spec.max_steps);
	/* Garbage must be refused or give some state, never crash. */
	memset(b1, 0xff, cap < 64 ? cap : 64);
	(void)r->g->deserialize(r->in, r->st2, b1, cap < 64 ? cap : 64);
out:
	free(b1);
	free(b2);
	free(o1);
}

static void check_infostate(struct run *r, const env *e, uint64_t seed)
{
	struct env_rng er;
	lg_rng pr;
	uint64_t steps = 0;
	char key[LEAGUE_GAME_KEY_MAX + CANARY];
	char err[256];
	env_tree *t = NULL;

	env_rng_seed(&er, seed);
	lg_rng_seed(&pr, seed + 2);
	r->g->root(r->in, r->st, &er.base);
	do {
		int pl = r->g->player(r->in, r->st);
		if (pl < 0 || pl >= r->gm->spec.players)
			continue;
		memset(key, CANARY_B, sizeof key);
		r->g->infostate(r->in, r->st, pl, key, LEAGUE_GAME_KEY_MAX);
		if (!memchr(key, 0, LEAGUE_GAME_KEY_MAX))
			failf(r, C_INFO, "infostate() left no NUL within %d "
			      "bytes", LEAGUE_GAME_KEY_MAX);
		for (size_t i = LEAGUE_GAME_KEY_MAX; i < sizeof key; i++)
			if ((unsigned char)key[i] != CANARY_B)
				failf(r, C_INFO, "infostate() wrote past len");
	} while (!step(r, r->st, &er, &pr, &steps) &&
		 steps < r->gm->spec.max_steps);
	if (!r->fail[C_INFO][0]) {
		int rc = env_tree_new(&t, e, err, sizeof err);
		/* too big or too wide for the exact evaluators: not the
		 * game's fault, and said in the report */
		if (rc == LG_EFULL || rc == LG_EUNSUPP)
			snprintf(r->info_note, sizeof r->info_note, "keys ok; "
				 "no exact tree here: %.150s", err);
		else if (rc)
			failf(r, C_INFO, "the game tree does not build: %s",
			      err);
	}
	env_tree_free(t);
}

void env_conform_header(const struct env_spec *sp, size_t state_size,
			const char *remote, lg_buf *report)
{
	char where[ENV_REMOTE_MAX + 40];

	if (remote && remote[0])
		snprintf(where, sizeof where, "served at %s", remote);
	else
		snprintf(where, sizeof where, "%zu state bytes", state_size);
	lg_buf_printf(report, "game %s: %d players, %zu observation floats, "
		      "%d actions, %s, max_steps %llu%s%s\n",
		      sp->name, sp->players, sp->seat[0].obs_len,
		      sp->seat[0].num_actions, where,
		      (unsigned long long)sp->max_steps,
		      sp->flags & ENV_F_SIMULTANEOUS ? ", simultaneous" : "",
		      sp->flags & ENV_F_CHANCE ? ", chance" : "");
	lg_buf_printf(report, "payoff %s", env_payoff_name(sp->payoff));
	if (sp->payoff == ENV_CONSTANT_SUM)
		lg_buf_printf(report, " (sum %g)", sp->payoff_sum);
	lg_buf_printf(report, ", %d team%s, %d role%s%s\n", sp->teams,
		      sp->teams == 1 ? "" : "s", sp->roles,
		      sp->roles == 1 ? "" : "s",
		      sp->flags & ENV_F_TEXT ? ", text hooks" : "");
	if (!(sp->flags & ENV_F_ASYMMETRIC) && sp->roles == 1 &&
	    sp->teams == sp->players)
		return;
	for (int p = 0; p < sp->players; p++)
		lg_buf_printf(report, "seat %d: role %s, team %d, %zu "
			      "observation floats, %d actions\n", p,
			      sp->role_name[sp->seat[p].role],
			      sp->seat[p].team, sp->seat[p].obs_len,
			      sp->seat[p].num_actions);
}

int env_conform(const char *name, const struct env_opts *o,
		uint64_t episodes, uint64_t seed, lg_buf *report, char *err,
		size_t errlen)
{
	struct run r;
	env *e = NULL;
	double ret[ENV_MAX_PLAYERS], t0;
	uint64_t h1;
	int rc, failed = 0;
	lg_rng pick_seed;

	if (o && o->remote[0])
		return env_conform_remote(name, o, episodes, seed, report, err,
					  errlen);
	memset(&r, 0, sizeof r);
	if ((rc = env_new(&e, name, o, err, errlen)))
		return rc;
	r.gm = &e->gm;
	r.g = e->gm.g;
	r.in = e->gm.inst;
	r.A = e->gm.spec.num_actions;
	r.L = e->gm.spec.obs_len;
	r.S = e->gm.state_size;
	r.obs = malloc((r.L + CANARY) * sizeof *r.obs);
	r.mask = malloc((size_t)r.A + CANARY);
	r.st = malloc(r.S);
	r.st2 = malloc(r.S);
	if (!r.obs || !r.mask || !r.st || !r.st2) {
		lg_errf(err, errlen, "out of memory");
		rc = LG_ENOMEM;
		goto out;
	}
	lg_rng_seed(&pick_seed, seed);
	t0 = lg_now_s();
	for (uint64_t i = 0; i < episodes; i++)
		episode(&r, seed + i, 0, ret);
	t0 = lg_now_s() - t0;
	uint64_t play_steps = r.steps, play_cut = r.truncated,
		 play_chance = r.chance_nodes;
	/* Determinism: replay a few episodes and compare their hashes. */
	for (uint64_t i = 0; i < 16 && i < episodes; i++) {
		episode(&r, seed + i, 0, ret);
		h1 = r.hash;
		episode(&r, seed + i, 0, ret);
		if (h1 != r.hash)
			failf(&r, C_DET, "seed %llu gave two different "
			      "episodes", (unsigned long long)(seed + i));
	}
	/* Clone: copy mid-episode at a random step. */
	for (uint64_t i = 0; i < 64 && i < episodes; i++) {
		uint64_t at = 1 + lg_rng_below(&pick_seed, 1 +
			(r.steps / (r.episodes ? r.episodes : 1)));
		episode(&r, seed + 7919 * i, at, ret);
	}
	if (r.g->serialize && r.g->deserialize)
		for (uint64_t i = 0; i < 8 && i < episodes; i++)
			check_serialize(&r, seed + i);
	else if (r.g->serialize || r.g->deserialize)
		failf(&r, C_SER, "serialize and deserialize come together");
	if (r.g->infostate)
		check_infostate(&r, e, seed);
	env_conform_header(&e->gm.spec, e->gm.state_size, NULL, report);
	for (int c = 0; c < C_N; c++) {
		char detail[160] = "";
		int skip = (c == C_SER && !r.g->serialize) ||
			   (c == C_INFO && !r.g->infostate) ||
			   (c == C_TEXT && !(e->gm.spec.flags & ENV_F_TEXT));
		if (c == C_PLAY)
			snprintf(detail, sizeof detail, "%llu episodes, %llu "
				 "steps, %llu chance nodes, %llu cut at "
				 "max_steps, %.0f steps/s",
				 (unsigned long long)episodes,
				 (unsigned long long)play_steps,
				 (unsigned long long)play_chance,
				 (unsigned long long)play_cut,
				 t0 > 0 ? (double)play_steps / t0 : 0);
		if (c == C_INFO && r.info_note[0])
			snprintf(detail, sizeof detail, "%.150s", r.info_note);
		failed += r.fail[c][0] != 0;
		lg_buf_printf(report, "%-5s %-13s %s\n",
			      r.fail[c][0] ? "FAIL" : skip ? "skip" : "ok",
			      check_names[c],
			      r.fail[c][0] ? r.fail[c] :
			      skip ? "(no hook)" : detail);
	}
	if (play_cut)
		lg_buf_printf(report, "note: %llu episodes reached max_steps "
			      "without ending (the league scores them as "
			      "draws)\n", (unsigned long long)play_cut);
	rc = failed;
out:
	free(r.obs);
	free(r.mask);
	free(r.st);
	free(r.st2);
	env_free(e);
	return rc;
}
