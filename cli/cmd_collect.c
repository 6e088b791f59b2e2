/*
 * cli/cmd_collect.c: `league collect --connect HOST:PORT`, the collector
 * worker: its flags, then worker_collect (workers/collect.c).
 */
#include "cli/cli.h"
#include "collector/collector.h"

static int run(int argc, char **argv)
{
	struct worker_collect_opts o = { .log_every = 10 };
	const char *connect = NULL;
	unsigned long long envs = 0;
	char host[128];
	const struct cli_arg flags[] = {
		CLI_STRING("connect", 0, &connect),
		CLI_U64("envs", 0, &envs, 1, COLL_ENVS_MAX),
		CLI_STRING("name", 0, &o.name),
		CLI_BOOL("drop", 0, &o.drop),
		CLI_DOUBLE("log-every", 0, &o.log_every, 0.05, 86400),
		CLI_END,
	};

	if (cli_worker_flags("collect", flags, argc, argv) ||
	    cli_worker_connect("collect", NULL, connect, host, sizeof host,
			       &o.port))
		return CLI_USAGE;
	o.host = host;
	o.envs = envs;
	return worker_collect(&o);
}

const struct cli_cmd cli_cmd_collect = {
	.name = "collect",
	.summary = "run a collector worker (many envs, batched inference)",
	.help =
	"usage: league collect --connect HOST:PORT [--envs N] [--name NAME]\n"
	"                      [--log-every S] [--drop]\n\n"
	"Plays the jobs the daemon at HOST:PORT hands out: many envs at once,\n"
	"one batched forward per network, several jobs in flight; reports\n"
	"every job's episodes to the daemon and streams the learning seats'\n"
	"trajectories to their learners. Game and env manager settings come\n"
	"from the daemon's config (collectors.*). Reconnects with backoff\n"
	"when the daemon restarts.\n\n"
	"  --envs N      envs to run (default collectors.envs)\n"
	"  --name NAME   label in daemon logs\n"
	"  --log-every S seconds between counter lines in the log (default\n"
	"                10)\n"
	"  --drop        benchmarks: count the learning rows and drop them\n"
	"                instead of sending them to the learners\n\n"
	"Token: $LEAGUE_TOKEN.\n",
	.run = run,
};
