/*
 * cli/cmd_learn.c: `league learn --connect HOST:PORT --player ID`, the
 * learner worker: its flags, then worker_learn (workers/learn.c).
 */
#include "cli/cli.h"

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "connect", required_argument, NULL, 'c' },
		{ "player", required_argument, NULL, 'p' },
		{ "listen", required_argument, NULL, 'l' },
		{ "name", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct worker_learn_opts o = { 0 };
	const char *connect = NULL;
	unsigned long long player = ~0ull;
	char host[128];
	int ch, rc;

	while ((ch = cli_getopt(argc, argv, "learn", "", opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'c': connect = optarg; break;
		case 'l': o.listen = optarg; break;
		case 'n': o.name = optarg; break;
		case 'p':
			if (cli_opt_u64("learn", "--player", optarg, 0,
					UINT32_MAX - 1, &player))
				return CLI_USAGE;
			break;
		}
	}
	if ((rc = cli_worker_args("learn", argc, argv,
				  player == ~0ull ? "--player ID is required"
						  : NULL,
				  connect, host, sizeof host, &o.port)))
		return rc;
	o.host = host;
	o.player = (uint32_t)player;
	return worker_learn(&o);
}

const struct cli_cmd cli_cmd_learn = {
	.name = "learn",
	.summary = "run a learner worker for one learning player",
	.help =
	"usage: league learn --connect HOST:PORT --player ID [--listen ADDR]\n"
	"                    [--name NAME]\n\n"
	"Owns learning player ID of the league served at HOST:PORT: takes its\n"
	"trajectories from collectors on a trajectory endpoint (bounded queue,\n"
	"credit flow control: nothing is dropped), trains it with PPO, and\n"
	"pushes a new parameter version every learner.push_every updates.\n"
	"Game, model and training settings come from the daemon's config.\n"
	"Reconnects with backoff when the daemon restarts.\n\n"
	"  --listen ADDR   trajectory endpoint address (default 127.0.0.1;\n"
	"                  collectors on other machines need a routable one)\n"
	"  --name NAME     label in daemon logs (default learner.ID)\n\n"
	"Token: $LEAGUE_TOKEN.\n",
	.run = run,
};
