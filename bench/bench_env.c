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
 *
 * --remote: the example Python game (python/examples/tictactoe.py, or
 * --script) served over net/game.proto to --envs threads that each step
 * one env as a collector's workers do, against the same game's own step
 * loop in Python (its --selfplay-bench: random legal moves, observe and
 * mask of the mover every step, no protocol), alternating rounds in one
 * run, the best of each: steps_per_s, python_steps_per_s, ratio,
 * overhead_us (the protocol's cost per step beyond the game's) and
 * ops_per_batch.
 */
#include "bench/bench.h"
#include "cli/cli.h"
#include "envs/env.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
	uint8_t *mask = NULL; /* the largest seat's actions: any game's */
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
	mask = malloc((size_t)s->num_actions);
	if (!obs || !mask) {
		free(obs);
		free(mask);
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
						mask, s->seat[q].num_actions,
						&r);
				}
				env_step_joint(e, acts);
			} else {
				env_observe(e, p, obs);
				env_legal(e, p, mask);
				env_step(e, random_action(
					mask, s->seat[p].num_actions, &r));
			}
			steps++;
		}
		t = lg_now_s() - t0;
	} while (t < seconds);
	free(obs);
	free(mask);
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

/* ---- --remote ---------------------------------------------------------- */

#define REMOTE_OBS_MAX 4096 /* floats: the example games are small */

struct rworker {
	struct env_opts o;
	double until;
	uint64_t steps;
	int rc, seed;
};

static void *rworker_main(void *arg)
{
	struct rworker *w = arg;
	float obs[REMOTE_OBS_MAX];
	uint8_t mask[ENV_MAX_ACTIONS];
	env *e = NULL;
	lg_rng r;

	lg_rng_seed(&r, (uint64_t)w->seed);
	if ((w->rc = env_new(&e, NULL, &w->o, NULL, 0)))
		return NULL;
	if (env_spec_of(e)->obs_len > REMOTE_OBS_MAX ||
	    env_spec_of(e)->num_actions > ENV_MAX_ACTIONS ||
	    (env_spec_of(e)->flags & ENV_F_SIMULTANEOUS)) {
		w->rc = LG_EUNSUPP;
		env_free(e);
		return NULL;
	}
	while (lg_now_s() < w->until) {
		for (int k = 0; k < 16 && !w->rc; k++) {
			int p = env_current_player(e);
			if (p == ENV_TERMINAL) {
				w->rc = env_reset(e, lg_rng_u64(&r));
				continue;
			}
			env_observe(e, p, obs);
			env_legal(e, p, mask);
			w->rc = env_step(e, random_action(
				mask, env_spec_of(e)->num_actions, &r));
			w->steps++;
		}
		if (w->rc)
			break;
	}
	env_free(e);
	return NULL;
}

/* The remote ops per batch this process sent since the counters were
 * b0 batches and o0 ops (env_remote_counters); 0 without a batch. */
static double ops_per_batch_since(uint64_t b0, uint64_t o0)
{
	uint64_t b1, o1;

	env_remote_counters(&b1, &o1);
	return b1 > b0 ? (double)(o1 - o0) / (double)(b1 - b0) : 0;
}

/* A round's steps per second over t seconds, or -1 after saying on
 * stderr why the remote envs failed (rc). */
static double round_rate(int rc, uint64_t steps, double t)
{
	if (rc) {
		fprintf(stderr, "league bench env: remote envs failed: %s\n",
			lg_strerror(rc));
		return -1;
	}
	return (double)steps / t;
}

/* Steps per second of n threads on the server at addr. */
static double remote_round(const char *addr, int n, double secs,
			   double *ops_per_batch)
{
	struct rworker *w = calloc((size_t)n, sizeof *w);
	pthread_t *th = calloc((size_t)n, sizeof *th);
	uint64_t b0, o0, steps = 0;
	double t0, t;
	int rc = 0;

	if (!w || !th) {
		free(w);
		free(th);
		return -1;
	}
	env_remote_counters(&b0, &o0);
	t0 = lg_now_s();
	for (int i = 0; i < n; i++) {
		env_opts_default(&w[i].o);
		snprintf(w[i].o.remote, sizeof w[i].o.remote, "%s", addr);
		w[i].until = t0 + secs;
		w[i].seed = i + 1;
		if (pthread_create(&th[i], NULL, rworker_main, &w[i]))
			w[i].rc = LG_ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		if (w[i].rc != LG_ENOMEM)
			pthread_join(th[i], NULL);
		steps += w[i].steps;
		rc = rc ? rc : w[i].rc;
	}
	t = lg_now_s() - t0;
	*ops_per_batch = ops_per_batch_since(b0, o0);
	free(w);
	free(th);
	return round_rate(rc, steps, t);
}

/* Steps per second of one thread driving n envs on the server at addr:
 * each turn observes every env's mover, and one env_advance_many steps
 * them and resets those that ended, in one batch. */
static double batched_round(const char *addr, int n, double secs,
			    double *ops_per_batch)
{
	env **es = calloc((size_t)n, sizeof *es);
	int *acts = calloc((size_t)n * ENV_MAX_PLAYERS, sizeof *acts);
	int *rcs = calloc((size_t)n, sizeof *rcs);
	uint64_t *seeds = calloc((size_t)n, sizeof *seeds);
	float obs[REMOTE_OBS_MAX];
	uint8_t mask[ENV_MAX_ACTIONS];
	uint64_t b0, o0, steps = 0;
	struct env_opts o;
	double t0, t = -1;
	lg_rng r;
	int rc = LG_ENOMEM, nact;

	lg_rng_seed(&r, 99);
	env_opts_default(&o);
	snprintf(o.remote, sizeof o.remote, "%s", addr);
	if (!es || !acts || !rcs || !seeds)
		goto out;
	for (int i = 0; i < n; i++)
		if ((rc = env_new(&es[i], NULL, &o, NULL, 0)))
			goto out;
	rc = LG_EUNSUPP;
	if (env_spec_of(es[0])->obs_len > REMOTE_OBS_MAX ||
	    env_spec_of(es[0])->num_actions > ENV_MAX_ACTIONS ||
	    (env_spec_of(es[0])->flags & ENV_F_SIMULTANEOUS))
		goto out;
	nact = env_spec_of(es[0])->num_actions;
	env_remote_counters(&b0, &o0);
	t0 = lg_now_s();
	rc = 0;
	while (!rc && (t = lg_now_s() - t0) < secs) {
		for (int i = 0; i < n; i++) {
			int p = env_current_player(es[i]);
			seeds[i] = lg_rng_u64(&r);
			if (p == ENV_TERMINAL)
				continue;
			env_observe(es[i], p, obs);
			env_legal(es[i], p, mask);
			acts[2 * i] = random_action(mask, nact, &r);
			steps++;
		}
		if (!(rc = env_advance_many(es, acts, seeds, (size_t)n, rcs)))
			for (int i = 0; i < n && !rc; i++)
				rc = rcs[i];
	}
	*ops_per_batch = ops_per_batch_since(b0, o0);
out:
	for (int i = 0; es && i < n; i++)
		env_free(es[i]);
	free(es);
	free(acts);
	free(rcs);
	free(seeds);
	return round_rate(rc, steps, t);
}

/* The script's own step loop (--selfplay-bench), in steps per second. */
static double python_round(const char *script, double secs)
{
	char cmd[1024], line[256];
	double v = -1;
	FILE *f;

	snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s' --selfplay-bench %g",
		 script, secs);
	if (!(f = popen(cmd, "r")))
		return -1;
	while (fgets(line, sizeof line, f)) {
		const char *p = strstr(line, "\"python_steps_per_s\":");
		if (p)
			v = strtod(p + 21, NULL);
	}
	if (pclose(f) != 0)
		return -1;
	return v;
}

static int remote_vs_python(const char *script, int nenvs, double secs,
			    int json)
{
	char dir[] = "/tmp/league-bench-XXXXXX", addr[128], err[400] = "";
	struct env_opts o;
	struct env_spec s;
	double best_r = 0, best_p = 0, best_t = 0, v, opb = 0, best_opb = 0;
	double best_topb = 0;
	pid_t pid;
	int rc = CLI_FAIL;

	if (access(script, R_OK)) {
		fprintf(stderr, "league bench env: --script %s: not readable "
			"(run from the source tree, or pass --script)\n",
			script);
		return CLI_USAGE;
	}
	if (!mkdtemp(dir))
		return CLI_FAIL;
	snprintf(addr, sizeof addr, "unix:%s/game.sock", dir);
	pid = fork();
	if (pid < 0)
		goto out;
	if (pid == 0) {
		execl("/usr/bin/python3", "python3", script, "--listen", addr,
		      (char *)NULL);
		_exit(127);
	}
	env_opts_default(&o);
	snprintf(o.remote, sizeof o.remote, "%s", addr);
	for (int k = 0; env_check(NULL, &o, &s, err, sizeof err); k++) {
		if (k == 200 || waitpid(pid, NULL, WNOHANG) == pid) {
			fprintf(stderr, "league bench env: the game server "
				"did not answer: %s\n", err);
			goto out;
		}
		lg_sleep_s(0.05);
	}
	for (int round = 0; round < 3; round++) {
		if ((v = python_round(script, secs)) < 0) {
			fprintf(stderr, "league bench env: %s "
				"--selfplay-bench failed\n", script);
			goto out;
		}
		best_p = v > best_p ? v : best_p;
		if ((v = batched_round(addr, nenvs, secs, &opb)) < 0)
			goto out;
		if (v > best_r) {
			best_r = v;
			best_opb = opb;
		}
		if ((v = remote_round(addr, nenvs, secs, &opb)) < 0)
			goto out;
		if (v > best_t) {
			best_t = v;
			best_topb = opb;
		}
	}
	if (json)
		printf("{\"game\":\"%s\",\"envs\":%d,\"steps_per_s\":%.0f,"
		       "\"python_steps_per_s\":%.0f,\"ratio\":%.4f,"
		       "\"overhead_us\":%.2f,\"ops_per_batch\":%.2f,"
		       "\"threads_steps_per_s\":%.0f,\"threads_ratio\":%.4f,"
		       "\"threads_ops_per_batch\":%.2f}\n",
		       s.name, nenvs, best_r, best_p, best_r / best_p,
		       1e6 / best_r - 1e6 / best_p, best_opb, best_t,
		       best_t / best_p, best_topb);
	else
		printf("%s over the remote protocol, %d envs in one thread: "
		       "%.0f steps/s; its own Python loop %.0f steps/s; ratio "
		       "%.4f, overhead %.2f us per step, %.1f ops per batch\n"
		       "the same envs on %d threads (a collector's "
		       "workers): %.0f steps/s, ratio %.4f, %.1f ops per "
		       "batch\n(best of 3 alternating rounds of %g s)\n",
		       s.name, nenvs, best_r, best_p, best_r / best_p,
		       1e6 / best_r - 1e6 / best_p, best_opb, nenvs, best_t,
		       best_t / best_p, best_topb, secs);
	rc = CLI_OK;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	{
		char sock[160];
		snprintf(sock, sizeof sock, "%s/game.sock", dir);
		unlink(sock);
		rmdir(dir);
	}
	return rc;
}

/* `league bench env --help`. */
static int usage_help(void)
{
	printf("usage: league bench env [--seconds S] "
	       "[--game NAME] [--plugin PATH] [--remote] "
	       "[--json]\n\n"
	       "Steps per second of each game on one core "
	       "(random legal actions, observation\nand mask "
	       "every step), S seconds per game (default 1), "
	       "and the ratio to rps\nmeasured in the same "
	       "run.\n--plugin PATH: the plugin's game "
	       "against the built-in game of the same name\n"
	       "(best of 3 alternating rounds): steps_per_s, "
	       "builtin_steps_per_s, ratio.\n"
	       "--remote [--script PY] [--envs N]: the "
	       "example Python game (python/examples/\n"
	       "tictactoe.py) served over the remote protocol "
	       "to N envs stepping at once\n(default 64) "
	       "against its own Python step loop (best of 3 "
	       "alternating\nrounds): steps_per_s, "
	       "python_steps_per_s, ratio, overhead_us, "
	       "ops_per_batch.\n");
	return CLI_OK;
}

int bench_env(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "game", required_argument, NULL, 'g' },
		{ "plugin", required_argument, NULL, 'P' },
		{ "remote", no_argument, NULL, 'R' },
		{ "script", required_argument, NULL, 'S' },
		{ "envs", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double secs = 1.0, ref;
	const char *only = NULL, *plugin = NULL;
	const char *script = "python/examples/tictactoe.py";
	int json = 0, ch, remote = 0;
	double nenvs = 64;
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
		if (ch == 'R')
			remote = 1;
		if (ch == 'S')
			script = optarg;
		if (ch == 'n' && cli_opt_double("bench env", "--envs", optarg,
						1, 256, &nenvs))
			return CLI_USAGE;
		if (ch == 'j')
			json = 1;
		if (ch == 'h')
			return usage_help();
	}
	if (optind != argc)
		return cli_usage_error("bench env", "unexpected argument '%s'",
				       argv[optind]);
	if (plugin)
		return plugin_vs_builtin(plugin, secs, json);
	if (remote)
		return remote_vs_python(script, (int)nenvs, secs, json);
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
