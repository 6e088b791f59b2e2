/*
 * tests/same_bits/envloop.c GAME STEPS: fixed work through the env layer,
 * as `league bench env`'s loop does it: STEPS steps of random legal play
 * (a two-player sequential game) with the mover's observation and mask at
 * every step. Prints a hash of the moves and observations, so two builds
 * are seen to do the same work; time it with /usr/bin/time (CPU seconds
 * hold on a loaded machine where bench env's steps per wall second do
 * not). Built against either tree's library, the env API being the same:
 *
 *   cc -std=c11 -O2 -D_GNU_SOURCE -I$T -I$T/build/release/gen \
 *      -o envloop tests/same_bits/envloop.c $T/build/release/libleague.a \
 *      $(the Makefile's link flags)
 *
 * docs/benchmarks.md ("Games of ABI version 2") has its figures.
 */
#include "envs/env.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct env_opts o;
	const struct env_spec *s;
	unsigned long long n, steps = 0, eps = 0, seed = 1;
	unsigned long long h = 1469598103934665603ull;
	uint64_t x = 88172645463325252ull;
	char err[256];
	env *e;

	if (argc != 3)
		return 2;
	n = strtoull(argv[2], NULL, 10);
	env_opts_default(&o);
	if (env_new(&e, argv[1], &o, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	s = env_spec_of(e);
	float *obs = malloc(s->obs_len * sizeof *obs);
	uint8_t *mask = malloc((size_t)s->num_actions);
	while (steps < n) {
		int p = env_current_player(e), k, a, c;
		if (p == ENV_TERMINAL) {
			env_reset(e, seed++);
			eps++;
			continue;
		}
		env_observe(e, p, obs);
		c = env_legal(e, p, mask);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = (int)(x % (uint64_t)c);
		for (a = 0; a < s->num_actions; a++)
			if (mask[a] && k-- == 0)
				break;
		env_step(e, a);
		h = (h ^ (unsigned)a ^ ((unsigned)(obs[0] * 7) << 8)) *
		    1099511628211ull;
		steps++;
	}
	printf("%s: %llu steps, %llu episodes, hash %016llx\n", argv[1],
	       steps, eps, h);
	env_free(e);
	return 0;
}
