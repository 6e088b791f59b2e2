/* cli/main.c: `league` entry point and command table (argument parsing:
 * cli/args.c). */
#include "cli/cli.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

static const struct cli_cmd *const commands[] = {
	&cli_cmd_run,
	&cli_cmd_serve,
	&cli_cmd_collect,
	&cli_cmd_learn,
	&cli_cmd_evaluate,
	&cli_cmd_config,
	&cli_cmd_bench,
	&cli_cmd_env,
	&cli_cmd_eval, &cli_cmd_plot,
	&cli_cmd_payoff, &cli_cmd_players, &cli_cmd_ratings, &cli_cmd_sim,
	&cli_cmd_inspect, &cli_cmd_tls, &cli_cmd_replay, &cli_cmd_export,
	&cli_cmd_play,
};

static void print_main_help(FILE *f)
{
	fprintf(f, "usage: league COMMAND [ARGS]\n\n"
		   "A league / self-play training server.\n\ncommands:\n");
	for (size_t i = 0; i < LG_ARRAY_LEN(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name,
			commands[i]->summary);
	fprintf(f, "\n'league COMMAND --help' describes one command.\n"
		   "Exit status: 0 success, 1 runtime failure, 2 usage or "
		   "config error.\n");
}

int main(int argc, char **argv)
{
	const char *name;

	if (argc < 2) {
		print_main_help(stderr);
		return CLI_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") ||
	    !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			for (size_t i = 0; i < LG_ARRAY_LEN(commands); i++)
				if (!strcmp(commands[i]->name, argv[2])) {
					fputs(commands[i]->help, stdout);
					return CLI_OK;
				}
			return cli_usage_error(NULL, "unknown command '%s'",
					       argv[2]);
		}
		print_main_help(stdout);
		return CLI_OK;
	}
	if (name[0] == '-')
		return cli_usage_error(NULL, "unknown option '%s'", name);
	for (size_t i = 0; i < LG_ARRAY_LEN(commands); i++) {
		if (strcmp(commands[i]->name, name))
			continue;
		if (commands[i]->own_help
			    ? argc > 2 && (!strcmp(argv[2], "--help") ||
					   !strcmp(argv[2], "-h"))
			    : cli_wants_help(argc - 1, argv + 1)) {
			fputs(commands[i]->help, stdout);
			return CLI_OK;
		}
		optind = 0;
		if (commands[i]->subs)
			return cli_subcommand(name, commands[i]->subs,
					      argc - 1, argv + 1,
					      NULL,
					      commands[i]->subs_name_unknown);
		return commands[i]->run(argc - 1, argv + 1);
	}
	return cli_usage_error(NULL, "unknown command '%s'", name);
}
