/* cli/main.c: `league` entry point, command table and shared option helpers. */
#include "cli/cli.h"
#include "util/util.h"

#include <stdarg.h>
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

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "league%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'league%s%s --help')\n", cmd ? " " : "",
		cmd ? cmd : "");
	return CLI_USAGE;
}

int cli_getopt(int argc, char **argv, const char *cmd, const char *shortopts,
	       const struct option *longopts)
{
	char spec[64];
	int c;

	/* Leading ':' makes getopt report a missing argument as ':'. */
	snprintf(spec, sizeof spec, ":%s", shortopts ? shortopts : "");
	opterr = 0;
	c = getopt_long(argc, argv, spec, longopts, NULL);
	if (c == '?') {
		if (optopt)
			cli_usage_error(cmd, "unknown option '-%c'", optopt);
		else
			cli_usage_error(cmd, "unknown option '%s'",
					argv[optind - 1]);
		return -2;
	}
	if (c == ':') {
		cli_usage_error(cmd, "option '%s' needs a value",
				argv[optind - 1]);
		return -2;
	}
	return c;
}

int cli_opt_u64(const char *cmd, const char *opt, const char *val,
		unsigned long long lo, unsigned long long hi,
		unsigned long long *out)
{
	uint64_t v;
	int rc = lg_parse_u64(val, lo, hi, &v);

	if (rc) {
		cli_usage_error(cmd, "%s: '%s' is not a whole number in [%llu, %llu]",
				opt, val, lo, hi);
		return CLI_USAGE;
	}
	*out = v;
	return 0;
}

int cli_opt_double(const char *cmd, const char *opt, const char *val,
		   double lo, double hi, double *out)
{
	if (lg_parse_double(val, lo, hi, out)) {
		cli_usage_error(cmd, "%s: '%s' is not a number in [%g, %g]",
				opt, val, lo, hi);
		return CLI_USAGE;
	}
	return 0;
}

int cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
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
		return commands[i]->run(argc - 1, argv + 1);
	}
	return cli_usage_error(NULL, "unknown command '%s'", name);
}
