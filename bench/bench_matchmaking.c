/*
 * bench/bench_matchmaking.c: `league bench matchmaking`: matchmaking
 * decisions per second of the real brain at several league sizes, each
 * decision followed by its result (job_episodes outcomes into the decayed
 * payoff and the Elo), everything committed to LMDB every --batch calls.
 *
 * A league of one main player, one main exploiter and one league exploiter
 * is grown to N players and snapshots (in a fresh directory), reopened
 * (which times a full load), then the three learners take turns asking for
 * jobs: the main player's PFSP branch and the league exploiter draw over
 * every snapshot, so a decision costs O(N). Reference: the smallest size
 * in the same run. `cost_exp` is log(cost_N / cost_ref) / log(N / N_ref):
 * at most 1 means the cost grows no faster than linearly. --seats N: a
 * game of N seats (each its own team), so a decision draws N - 1
 * opponents and its result is every seat's returns (zero-sum draws)
 * counted into every pair (brain_record_returns).
 */
#include "bench/bench.h"
#include "cli/cli.h"
#include "players/players.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 16

struct mm_result {
	double per_s, load_s;
	uint64_t decisions;
};

static void rm_dir(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "league bench matchmaking: could not remove "
			"%s\n", dir);
}

void bench_growth_opts(struct brain_opts *o)
{
	brain_opts_default(o);
	o->n_main = o->n_main_exploiter = o->n_league_exploiter = 1;
	o->main_exploiter.reset_prob = 0;
	o->league_exploiter.reset_prob = 0;
	o->batch = 4096;
	o->snapshot_steps = 1;
	o->snapshot_max_mult = 1;
}

/* Job j's result: its learner's outcomes (two seats), or every seat's
 * returns, zero-sum draws in -1..1 (more). */
static int record(brain *b, const struct brain_job *j, lg_rng *r)
{
	uint32_t n = LG_MIN(j->episodes, 64u), ns = j->nseats;
	double ret[64 * BRAIN_MAX_SEATS];
	int8_t out[64];

	if (ns == 2) {
		for (uint32_t e = 0; e < n; e++)
			out[e] = (int8_t)((int)lg_rng_below(r, 3) - 1);
		return brain_record_result(b, j->id, out, n);
	}
	for (uint32_t e = 0; e < n; e++) {
		double sum = 0;
		for (uint32_t q = 0; q + 1 < ns; q++)
			sum += ret[e * ns + q] =
				(double)lg_rng_below(r, 3) - 1;
		ret[e * ns + ns - 1] = -sum;
	}
	return brain_record_returns(b, j->id, ret, n);
}

static int measure(uint32_t n, uint32_t seats, double secs, uint32_t batch,
		   int nosync, struct mm_result *res)
{
	char tmpl[256], err[512];
	const char *tmp = getenv("TMPDIR");
	struct store_opts so = { nosync ? STORE_NOSYNC : 0, 0, 0 };
	struct brain_opts o;
	store *s = NULL;
	brain *b = NULL;
	uint64_t steps[3] = { 0, 0, 0 }, k = 0;
	const uint32_t learners[3] = { 0, 2, 3 };
	lg_rng r;
	double t0, t = 0;
	int rc;

	err[0] = 0;
	snprintf(tmpl, sizeof tmpl, "%s/league-bench-mm.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		perror("league bench matchmaking: mkdtemp");
		return -1;
	}
	bench_growth_opts(&o);
	o.seats = seats;
	for (uint32_t q = 0; q < seats; q++)
		o.team[q] = (uint8_t)q;
	if ((rc = store_open(&s, tmpl, &so, err, sizeof err)) ||
	    (rc = brain_open(&b, s, &o, err, sizeof err)))
		goto fail;
	/* grow: every report freezes a snapshot. Learners: the main player
	 * 0 (1 is its initial snapshot), the exploiters 2 and 3. */
	for (uint32_t i = 0; brain_count(b) < n; i++) {
		struct brain_step_report rep;
		uint32_t L = learners[i % 3];
		if ((rc = brain_report_steps(b, L, ++steps[i % 3], 0, &rep)))
			goto fail;
	}
	if ((rc = brain_close(b)))
		goto fail;
	b = NULL;
	/* reopen as the daemon would, with no more snapshots */
	o.batch = batch;
	o.snapshot_steps = UINT64_MAX / 4;
	t0 = lg_now_s();
	if ((rc = brain_open(&b, s, &o, err, sizeof err)))
		goto fail;
	res->load_s = lg_now_s() - t0;
	lg_rng_seed(&r, n);
	t0 = lg_now_s();
	do {
		for (int rep = 0; rep < 256; rep++, k++) {
			struct brain_job j;
			if ((rc = brain_next_job(b, learners[k % 3], &j)) ||
			    (rc = record(b, &j, &r)))
				goto fail;
		}
		t = lg_now_s() - t0;
	} while (t < secs);
	if ((rc = brain_flush(b)))
		goto fail;
	t = lg_now_s() - t0;
	res->decisions = k;
	res->per_s = (double)k / t;
	brain_close(b);
	store_close(s);
	rm_dir(tmpl);
	return 0;
fail:
	fprintf(stderr, "league bench matchmaking: %u players: %s\n", n,
		err[0] ? err : lg_strerror(rc));
	brain_close(b);
	store_close(s);
	rm_dir(tmpl);
	return -1;
}

static int parse_sizes(const char *s, uint32_t *v, int *n)
{
	char buf[256], *save = NULL, *tok;

	if (strlen(s) >= sizeof buf)
		return -1;
	strcpy(buf, s);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		uint64_t x;
		if (*n == MAX_SIZES || lg_parse_u64(tok, 4, 1000000, &x))
			return -1;
		v[(*n)++] = (uint32_t)x;
	}
	return *n ? 0 : -1;
}

int bench_matchmaking(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "players", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "seats", required_argument, NULL, 'S' },
		{ "nosync", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "bench matchmaking";
	uint32_t sizes[MAX_SIZES] = { 10, 100, 1000, 10000 };
	int nsizes = 4, json = 0, nosync = 0, ch;
	double secs = 1.0, ref = 0;
	unsigned long long batch = 1000, seats = 2;

	while ((ch = cli_getopt(argc, argv, cmd, "p:s:b:j", opts)) != -1) {
		if (ch == -2)
			return CLI_USAGE;
		if (ch == 'p' && parse_sizes(optarg, sizes, &nsizes))
			return cli_usage_error(cmd, "--players: expected "
					       "sizes like 10,100,1000 (each "
					       "in [4, 1000000], at most %d)",
					       MAX_SIZES);
		if (ch == 's' && cli_opt_double(cmd, "--seconds", optarg, 0.01,
						600, &secs))
			return CLI_USAGE;
		if (ch == 'b' && cli_opt_u64(cmd, "--batch", optarg, 1,
					     1000000, &batch))
			return CLI_USAGE;
		if (ch == 'S' && cli_opt_u64(cmd, "--seats", optarg, 2,
					     BRAIN_MAX_SEATS, &seats))
			return CLI_USAGE;
		if (ch == 'n')
			nosync = 1;
		if (ch == 'j')
			json = 1;
		if (ch == 'h') {
			printf("usage: league bench matchmaking [--players "
			       "N,N,...] [--seconds S] [--batch B]\n"
			       "                               [--seats K] "
			       "[--nosync] [--json]\n\n"
			       "Matchmaking decisions per second of the real "
			       "brain with N players and\nsnapshots (default "
			       "10,100,1000,10000), each decision followed "
			       "by its\nresult, committed to LMDB every B "
			       "calls (default 1000; --nosync skips\nfsync). "
			       "S seconds per size (default 1). The "
			       "reference is the first size;\ncost_exp <= 1 "
			       "means cost grows no faster than linearly.\n"
			       "--seats K: a game of K seats (default 2): "
			       "K - 1 opponents a decision, every\nseat's "
			       "returns into every pair.\n");
			return CLI_OK;
		}
	}
	if (optind != argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
				       argv[optind]);
	if (!json)
		printf("%8s %14s %12s %10s %9s %9s\n", "players",
		       "decisions/s", "us/decision", "vs_first", "cost_exp",
		       "load_s");
	for (int i = 0; i < nsizes; i++) {
		struct mm_result r;
		double cexp = 0;
		if (measure(sizes[i], (uint32_t)seats, secs, (uint32_t)batch,
			    nosync, &r))
			return CLI_FAIL;
		if (i == 0)
			ref = r.per_s;
		if (sizes[i] != sizes[0])
			cexp = log(ref / r.per_s) /
			       log((double)sizes[i] / sizes[0]);
		if (json)
			printf("{\"players\":%u,\"decisions_per_s\":%.0f,"
			       "\"us_per_decision\":%.3f,\"decisions\":%llu,"
			       "\"ratio_to_first\":%.4f,\"cost_exp\":%.3f,"
			       "\"load_s\":%.4f,\"batch\":%llu,\"sync\":%s,"
			       "\"seats\":%llu}\n",
			       sizes[i], r.per_s, 1e6 / r.per_s,
			       (unsigned long long)r.decisions, r.per_s / ref,
			       cexp, r.load_s, batch,
			       nosync ? "false" : "true", seats);
		else
			printf("%8u %14.0f %12.3f %10.4f %9.3f %9.4f\n",
			       sizes[i], r.per_s, 1e6 / r.per_s, r.per_s / ref,
			       cexp, r.load_s);
		fflush(stdout);
	}
	return CLI_OK;
}
