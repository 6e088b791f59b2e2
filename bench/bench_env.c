/*
 * bench/bench_env.c: `league bench env`: environment steps per second per
 * game on one core, random legal actions, with the observation of the
 * acting player(s) and the legal mask computed every step as a collector
 * does. Reference: rps in the same run (the cheapest game: the cost of the
 * rng + mask + step loop itself); each game also prints its ratio to it.
 * The timing game runs with zero reset/step times (its sleeps would only
 * measure the clock).
 *
 * --plugin PATH: the plugin's game against the built-in game of the same
 * name (e.g. build/release/examples/tictactoe.so, the built-in
 * tic-tac-toe compiled as a plugin), alternating rounds in one run, the
 * best round of each: steps_per_s, builtin_steps_per_s and their ratio.
 */
#include "bench/bench.h"
#include "cli/cli.h"
#include "envs/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int random_action(const uint8_t *mask, int n, lg_rng *r)
{
	int k = 0, pick;

	for (int a = 0; a < n; a++)
		k += mask[a];
	pick = (int)lg_rng_below(r, (uint64_t)k);
	for (int a = 0; a < n; a++)
		if (mask[a] && pick-- == 0)
			return a;
	return 0;
}

/* Steps per second of game `name` over about `seconds`; <0 on error. */
static double measure(const char *name, const char *plugin, double seconds,
		      uint64_t *steps_out)
{
	struct env_opts o;
	const struct env_spec *s;
	env *e = NULL;
	float *obs = NULL;
	uint8_t mask[ENV_MAX_ACTIONS];
	char err[256];
	lg_rng r;
	uint64_t steps = 0, seed = 1;
	double t0, t = 0;

	env_opts_default(&o);
	o.matrix.rows = o.matrix.cols = 2;
	o.matrix.v[0][0] = 3;
	o.matrix.v[0][1] = o.matrix.v[1][0] = -2;
	o.matrix.v[1][1] = 1;
	o.timing.reset_s = o.timing.step_s = 0;
	if (plugin)
		snprintf(o.plugin, sizeof o.plugin, "%s", plugin);
	if (env_new(&e, name, &o, err, sizeof err)) {
		fprintf(stderr, "league bench env: %s\n", err);
		return -1;
	}
	s = env_spec_of(e);
	obs = malloc(s->obs_len * sizeof *obs);
	if (!obs) {
		env_free(e);
		return -1;
	}
	lg_rng_seed(&r, 12345);
	t0 = lg_now_s();
	do {
		for (int k = 0; k < 256; k++) {
			int p = env_current_player(e);
			if (p == ENV_TERMINAL) {
				env_reset(e, seed++);
				continue;
			}
			if (p == ENV_SIMULTANEOUS) {
				int acts[ENV_MAX_PLAYERS];
				for (int q = 0; q < s->players; q++) {
					env_observe(e, q, obs);
					env_legal(e, q, mask);
					acts[q] = random_action(
						mask, s->num_actions, &r);
				}
				env_step_joint(e, acts);
			} else {
				env_observe(e, p, obs);
				env_legal(e, p, mask);
				env_step(e, random_action(mask,
							  s->num_actions, &r));
			}
			steps++;
		}
		t = lg_now_s() - t0;
	} while (t < seconds);
	free(obs);
	env_free(e);
	*steps_out = steps;
	return (double)steps / t;
}

/* The plugin's game and the built-in one of the same name, `rounds`
 * alternating rounds of `secs` each. */
static int plugin_vs_builtin(const char *plugin, double secs, int json)
{
	struct env_opts o;
	struct env_spec s;
	char err[512];
	double best_p = 0, best_b = 0, v;
	uint64_t n;

	env_opts_default(&o);
	snprintf(o.plugin, sizeof o.plugin, "%s", plugin);
	if (env_check(NULL, &o, &s, err, sizeof err)) {
		fprintf(stderr, "league bench env: %s\n", err);
		return CLI_USAGE;
	}
	for (int round = 0; round < 3; round++) {
		if ((v = measure(s.name, plugin, secs, &n)) < 0)
			return CLI_FAIL;
		best_p = v > best_p ? v : best_p;
		if ((v = measure(s.name, NULL, secs, &n)) < 0) {
			fprintf(stderr, "league bench env: the plugin's game "
				"'%s' is not a built-in game to compare "
				"with\n", s.name);
			return CLI_FAIL;
		}
		best_b = v > best_b ? v : best_b;
	}
	if (json)
		printf("{\"game\":\"%s\",\"plugin\":\"%s\","
		       "\"steps_per_s\":%.0f,\"builtin_steps_per_s\":%.0f,"
		       "\"ratio\":%.4f}\n", s.name, plugin, best_p, best_b,
		       best_p / best_b);
	else
		printf("%s: plugin %.0f steps/s, built in %.0f steps/s, "
		       "ratio %.4f (best of 3 alternating rounds of %g s)\n",
		       s.name, best_p, best_b, best_p / best_b, secs);
	return CLI_OK;
}

int bench_env(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "game", required_argument, NULL, 'g' },
		{ "plugin", required_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double secs = 1.0, ref;
	const char *only = NULL, *plugin = NULL;
	int json = 0, ch;
	uint64_t n;

	while ((ch = cli_getopt(argc, argv, "bench env", "s:g:j", opts)) !=
	       -1) {
		if (ch == -2)
			return CLI_USAGE;
		if (ch == 's' && cli_opt_double("bench env", "--seconds",
						optarg, 0.01, 600, &secs))
			return CLI_USAGE;
		if (ch == 'g')
			only = optarg;
		if (ch == 'P')
			plugin = optarg;
		if (ch == 'j')
			json = 1;
		if (ch == 'h') {
			printf("usage: league bench env [--seconds S] "
			       "[--game NAME] [--plugin PATH] [--json]\n\n"
			       "Steps per second of each game on one core "
			       "(random legal actions, observation\nand mask "
			       "every step), S seconds per game (default 1), "
			       "and the ratio to rps\nmeasured in the same "
			       "run.\n--plugin PATH: the plugin's game "
			       "against the built-in game of the same name\n"
			       "(best of 3 alternating rounds): steps_per_s, "
			       "builtin_steps_per_s, ratio.\n");
			return CLI_OK;
		}
	}
	if (optind != argc)
		return cli_usage_error("bench env", "unexpected argument '%s'",
				       argv[optind]);
	if (plugin)
		return plugin_vs_builtin(plugin, secs, json);
	if (only) {
		struct env_spec s;
		size_t i;
		for (i = 0; i < env_count(); i++)
			if (!env_info(i, &s, NULL) && !strcmp(s.name, only))
				break;
		if (i == env_count())
			return cli_usage_error("bench env", "--game: no game "
					       "'%s' (see 'league env list')",
					       only);
	}
	ref = measure("rps", NULL, secs, &n);
	if (ref < 0)
		return CLI_FAIL;
	if (!json)
		printf("%-10s %14s %12s %10s\n", "game", "steps/s", "steps",
		       "vs rps");
	for (size_t i = 0; i < env_count(); i++) {
		struct env_spec s;
		double sps;
		env_info(i, &s, NULL);
		if (only && strcmp(only, s.name))
			continue;
		sps = strcmp(s.name, "rps") ? measure(s.name, NULL, secs, &n) : ref;
		if (sps < 0)
			return CLI_FAIL;
		if (json)
			printf("{\"game\":\"%s\",\"steps_per_s\":%.0f,"
			       "\"steps\":%llu,\"ratio_to_rps\":%.4f}\n",
			       s.name, sps, (unsigned long long)n, sps / ref);
		else
			printf("%-10s %14.0f %12llu %10.4f\n", s.name, sps,
			       (unsigned long long)n, sps / ref);
	}
	return CLI_OK;
}
