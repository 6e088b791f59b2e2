/* cli/cmd_env.c: `league env list`: the registered games and their sizes. */
#include "cli/cli.h"
#include "envs/env.h"

#include <stdio.h>
#include <string.h>

static void flags_text(unsigned f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", f & ENV_F_SIMULTANEOUS ? "simul " : "",
		 f & ENV_F_CHANCE ? "chance " : "",
		 f & ENV_F_TREE ? "exact " : "", f & ENV_F_SLOW ? "slow " : "");
	if (*buf)
		buf[strlen(buf) - 1] = 0;
	else
		snprintf(buf, len, "-");
}

static int env_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, ch;

	while ((ch = cli_getopt(argc, argv, "env list", "", opts)) != -1) {
		if (ch == -2)
			return CLI_USAGE;
		if (ch == 'j')
			json = 1;
	}
	if (optind != argc)
		return cli_usage_error("env list", "takes no arguments");
	if (!json)
		printf("%-10s %7s %7s %7s %9s  %-19s %s\n", "name", "players",
		       "obs", "actions", "max_steps", "flags", "summary");
	for (size_t i = 0; i < env_count(); i++) {
		struct env_spec s;
		const char *summary;
		char fl[64], acts[16];
		if (env_info(i, &s, &summary)) {
			fprintf(stderr, "league env list: game %zu has invalid "
				"defaults\n", i);
			return CLI_FAIL;
		}
		flags_text(s.flags, fl, sizeof fl);
		if (!strcmp(s.name, "matrix"))
			snprintf(acts, sizeof acts, "<=%d", s.num_actions);
		else
			snprintf(acts, sizeof acts, "%d", s.num_actions);
		if (json)
			printf("{\"name\":\"%s\",\"players\":%d,\"obs_len\":%zu,"
			       "\"num_actions\":%d,\"max_steps\":%llu,"
			       "\"flags\":\"%s\"}\n",
			       s.name, s.players, s.obs_len, s.num_actions,
			       (unsigned long long)s.max_steps, fl);
		else
			printf("%-10s %7d %7zu %7s %9llu  %-19s %s\n", s.name,
			       s.players, s.obs_len, acts,
			       (unsigned long long)s.max_steps, fl, summary);
	}
	return CLI_OK;
}

static int run(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error("env", "expected 'list'");
	if (!strcmp(argv[1], "list"))
		return env_list(argc - 1, argv + 1);
	return cli_usage_error("env", "unknown subcommand '%s'", argv[1]);
}

const struct cli_cmd cli_cmd_env = {
	.name = "env",
	.summary = "list the games (name, players, observation, actions)",
	.help =
	"usage: league env list [--json]\n\n"
	"List every registered game with its number of players, observation\n"
	"length (floats), number of actions, longest episode (steps) and\n"
	"flags: simul (simultaneous moves), chance (cards are dealt), exact\n"
	"('league eval nashconv' works), slow (sleeps to simulate cost).\n"
	"Sizes are for the default options: matrix has up to 16 actions;\n"
	"timing's observation and episode length come from env.timing.\n"
	"--json prints one object per line. Rules and observation encodings:\n"
	"docs/envs.md.\n",
	.run = run,
};
