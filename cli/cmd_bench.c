/* cli/cmd_bench.c: `league bench NAME [OPTIONS]` dispatch. */
#include "bench/bench.h"
#include "cli/cli.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

/* Add benchmarks here, one line each. */
static const struct bench_entry benches[] = {
	{ "env", "environment steps per second per game", bench_env },
	{ "matchmaking", "brain decisions per second by league size", bench_matchmaking },
	{ "learner", "PPO update samples/s and GFLOP/s vs the sgemm peak", bench_learner },
	{ "collector", "env manager vs the seed collector table", bench_collector },
	{ "daemon", "daemon jobs/s and job round trips vs a raw loopback ping-pong", bench_daemon },
	{ "pipeline", "collector -> wire -> learner rows/s vs the stages alone", bench_pipeline },
	{ "payoff", "GET /payoff of league inspect at 1,000 players vs GET /status", bench_payoff },
	{ NULL, NULL, NULL },
};

static size_t nbenches(void)
{
	size_t n = 0;

	while (benches[n].name)
		n++;
	return n;
}

static int run(int argc, char **argv)
{
	size_t n = nbenches();

	if (argc < 2)
		return cli_usage_error("bench", "expected a benchmark name");
	if (!strcmp(argv[1], "all")) {
		int worst = CLI_OK;
		for (size_t i = 0; i < n; i++) {
			char *args[] = { (char *)(uintptr_t)benches[i].name,
					 NULL };
			printf("== league bench %s\n", benches[i].name);
			fflush(stdout);
			optind = 0;
			int rc = benches[i].run(1, args);
			if (rc > worst)
				worst = rc;
		}
		return worst;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(argv[1], benches[i].name)) {
			optind = 0;
			return benches[i].run(argc - 1, argv + 1);
		}
	return cli_usage_error("bench", "unknown benchmark '%s'", argv[1]);
}

const struct cli_cmd cli_cmd_bench = {
	.name = "bench",
	.summary = "run a benchmark (ratios against same-run references)",
	.help =
	"usage: league bench NAME [OPTIONS] [--json]\n"
	"       league bench all\n\n"
	"Each benchmark prints its figures beside a reference measured in the\n"
	"same run and the ratio of the two; --json prints one JSON object per\n"
	"line. 'league bench NAME --help' lists a benchmark's options.\n",
	.run = run,
	.own_help = 1,
};
