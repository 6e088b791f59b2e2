/*
 * tests/plugins/bad.c: plugins that must be refused with a clear error,
 * built three ways by the Makefile:
 *   -DBAD_ABI    abi 99
 *   -DBAD_SIZES  create() reports obs_len 0
 *   -DNO_ENTRY   exports no league_game()
 *   -DBAD_TEAM   seat 1 in team 7 of 2
 * and two that load but break a rule `league env check` must catch:
 *   -DBAD_RETURNS returns that do not sum to 0 (declared zero-sum)
 *   -DBAD_MASK    an empty legal mask for the player to move
 * and one that crashes its process (abort) at every crash_every-th move
 * it plays there (env.params {crash_every: N}), for the fault tests:
 *   -DCRASHY
 * and one whose apply() dereferences NULL at its first move (SIGSEGV):
 *   -DSEGV_STEP
 * Otherwise a trivial one-move game (a coin the two players call).
 */
#include "league_game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CRASHY
static unsigned long crash_every, moves; /* this process's */
#endif

static int create(const struct league_game_params *p, void **inst,
		  struct league_game_spec *spec, char *err, size_t errlen)
{
#ifdef CRASHY
	for (uint32_t i = 0; i < p->count; i++) {
		char *end;
		if (strcmp(p->keys[i], "crash_every") ||
		    !(crash_every = strtoul(p->values[i], &end, 10)) || *end) {
			snprintf(err, errlen, "%s: only crash_every: N >= 1",
				 p->keys[i]);
			return 1;
		}
	}
#endif
	memset(spec, 0, sizeof *spec);
	spec->players = 2;
	for (int s = 0; s < 2; s++) {
		spec->seat[s].num_actions = 2;
#ifdef BAD_SIZES
		spec->seat[s].obs_len = 0;
#else
		spec->seat[s].obs_len = 1;
#endif
		spec->seat[s].team = (uint32_t)s;
	}
	spec->teams = 2;
#ifdef BAD_TEAM
	spec->seat[1].team = 7;
#endif
	spec->state_size = 1;
	spec->max_steps = 1;
	*inst = NULL;
	return 0;
}

static void root(const void *inst, void *st, struct league_game_rng *rng)
{
	*(unsigned char *)st = 0;
}

static int player(const void *inst, const void *st)
{
	return *(const unsigned char *)st ? LEAGUE_GAME_TERMINAL : 0;
}

static int legal(const void *inst, const void *st, int pl, uint8_t *mask)
{
#ifdef BAD_MASK
	mask[0] = mask[1] = 0;
	return 0;
#else
	mask[0] = mask[1] = 1;
	return 2;
#endif
}

static void apply(const void *inst, void *st, int a,
		  struct league_game_rng *rng)
{
	*(unsigned char *)st = (unsigned char)(1 + a);
#ifdef CRASHY
	if (crash_every && __atomic_add_fetch(&moves, 1, __ATOMIC_RELAXED) %
				   crash_every == 0)
		abort();
#endif
#ifdef SEGV_STEP
	*(volatile int *)(uintptr_t)inst = a; /* inst is NULL */
#endif
}

static void observe(const void *inst, const void *st, int pl, float *out)
{
	out[0] = (float)pl;
}

static void returns(const void *inst, const void *st, double *out)
{
	out[0] = *(const unsigned char *)st == 1 ? 1 : -1;
#ifdef BAD_RETURNS
	out[1] = out[0];
#else
	out[1] = -out[0];
#endif
}

static const struct league_game game = {
#ifdef BAD_ABI
	.abi = 99,
#else
	.abi = LEAGUE_GAME_ABI,
#endif
	.name = "coin",
	.summary = "test plugin",
	.create = create,
	.root = root,
	.player = player,
	.legal = legal,
	.apply = apply,
	.observe = observe,
	.returns = returns,
};

#ifndef NO_ENTRY
__attribute__((visibility("default"))) const struct league_game *
league_game(void)
{
	return &game;
}
#else
const struct league_game *not_the_entry(void);
__attribute__((visibility("default"))) const struct league_game *
not_the_entry(void)
{
	return &game;
}
#endif
