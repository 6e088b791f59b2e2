/*
 * cli/cmd_collect.c: `league collect --connect HOST:PORT`, the collector
 * worker: its flags, then worker_collect (workers/collect.c).
 */
#include "cli/cli.h"
#include "collector/collector.h"

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "connect", required_argument, NULL, 'c' },
		{ "envs", required_argument, NULL, 'e' },
		{ "name", required_argument, NULL, 'n' },
		{ "drop", no_argument, NULL, 'D' },
		{ "log-every", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct worker_collect_opts o = { .log_every = 10 };
	const char *connect = NULL;
	unsigned long long envs = 0;
	char host[128];
	int ch, rc;

	while ((ch = cli_getopt(argc, argv, "collect", "", opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'c': connect = optarg; break;
		case 'n': o.name = optarg; break;
		case 'D': o.drop = 1; break;
		case 'L':
			if (cli_opt_double("collect", "--log-every", optarg,
					   0.05, 86400, &o.log_every))
				return CLI_USAGE;
			break;
		case 'e':
			if (cli_opt_u64("collect", "--envs", optarg, 1,
					COLL_ENVS_MAX, &envs))
				return CLI_USAGE;
			break;
		}
	}
	if ((rc = cli_worker_args("collect", argc, argv, NULL, connect, host,
				  sizeof host, &o.port)))
		return rc;
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
