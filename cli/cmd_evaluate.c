/*
 * cli/cmd_evaluate.c: `league evaluate --connect HOST:PORT`, the evaluator
 * worker: its flags, then worker_evaluate (workers/evaluate.c).
 */
#include "cli/cli.h"

static int run(int argc, char **argv)
{
	struct worker_evaluate_opts o = { 0 };
	const char *connect = NULL;
	char host[128];
	const struct cli_arg flags[] = {
		CLI_STRING("connect", 0, &connect),
		CLI_STRING("name", 0, &o.name),
		CLI_END,
	};

	if (cli_worker_flags("evaluate", flags, argc, argv) ||
	    cli_worker_connect("evaluate", NULL, connect, host, sizeof host,
			       &o.port))
		return CLI_USAGE;
	o.host = host;
	return worker_evaluate(&o);
}

const struct cli_cmd cli_cmd_evaluate = {
	.name = "evaluate",
	.summary = "run an evaluator worker (exploitability over time)",
	.help =
	"usage: league evaluate --connect HOST:PORT [--name NAME]\n\n"
	"For games with an exact evaluator (kuhn, leduc, rps, matrix): after\n"
	"each snapshot the daemon at HOST:PORT freezes, computes the NashConv\n"
	"of the newest main player and of the league's meta-Nash mixture over\n"
	"its snapshots (as one behaviour policy) by full game-tree traversal,\n"
	"and reports both; the daemon stores them and `league eval DIR`\n"
	"shows the curve. Evaluation lags training when snapshots come fast:\n"
	"it always takes the newest snapshot, and one evaluation covers the\n"
	"snapshots frozen since the last. `league run` starts one when\n"
	"eval.nashconv is true and the game has a tree.\n\n"
	"  --name NAME   label in daemon logs\n\n"
	"Token: $LEAGUE_TOKEN.\n",
	.run = run,
};
