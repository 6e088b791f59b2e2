/*
 * cli/cmd_learn.c: `league learn --connect HOST:PORT --player ID`, the
 * learner worker: its flags, then worker_learn (workers/learn.c).
 */
#include "cli/cli.h"

static int run(int argc, char **argv)
{
	struct worker_learn_opts o = { 0 };
	const char *connect = NULL;
	unsigned long long player = ~0ull; /* none given */
	char host[128];
	const struct cli_arg flags[] = {
		CLI_STRING("connect", 0, &connect),
		CLI_U64("player", 0, &player, 0, UINT32_MAX - 1),
		CLI_STRING("listen", 0, &o.listen),
		CLI_STRING("name", 0, &o.name),
		CLI_END,
	};

	if (cli_worker_flags("learn", flags, argc, argv) ||
	    cli_worker_connect("learn", player == ~0ull
			       ? "--player ID is required" : NULL, connect,
			       host, sizeof host, &o.port))
		return CLI_USAGE;
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
