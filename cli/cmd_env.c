/*
 * cli/cmd_env.c: `league env list` (the built-in games and their sizes)
 * and `league env check` (the conformance suite, envs/conform.c).
 */
#include "cli/cli.h"
#include "envs/env.h"

#include <stdio.h>
#include <string.h>

static void flags_text(unsigned f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s", f & ENV_F_SIMULTANEOUS ? "simul " : "",
		 f & ENV_F_CHANCE ? "chance " : "",
		 f & ENV_F_TREE ? "exact " : "", f & ENV_F_SLOW ? "slow " : "",
		 f & ENV_F_ASYMMETRIC ? "asym " : "",
		 f & ENV_F_TEXT ? "text " : "");
	if (*buf)
		buf[strlen(buf) - 1] = 0;
	else
		snprintf(buf, len, "-");
}

static int env_list(int argc, char **argv)
{
	int json = 0;
	const struct cli_arg flags[] = {
		CLI_BOOL("json", 0, &json),
		CLI_END,
	};
	const struct cli_args args = { "env list", flags, 0, 0,
				       "takes no arguments", 0 };

	if (cli_args(&args, argc, argv, NULL, NULL))
		return CLI_USAGE;
	if (!json)
		printf("%-12s %7s %7s %7s %9s  %-13s %-24s %s\n", "name",
		       "players", "obs", "actions", "max_steps", "payoff",
		       "flags", "summary");
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
			       "\"payoff\":\"%s\",\"teams\":%d,\"roles\":%d,"
			       "\"flags\":\"%s\"}\n",
			       s.name, s.players, s.obs_len, s.num_actions,
			       (unsigned long long)s.max_steps,
			       env_payoff_name(s.payoff), s.teams, s.roles, fl);
		else
			printf("%-12s %7d %7zu %7s %9llu  %-13s %-24s %s\n",
			       s.name, s.players, s.obs_len, acts,
			       (unsigned long long)s.max_steps,
			       env_payoff_name(s.payoff), fl, summary);
	}
	return CLI_OK;
}

/* cli.h */
int cli_env_param(void *dest, const char *val, char *err, size_t errlen)
{
	struct env_params *pm = dest;
	const char *eq = strchr(val, '=');

	if (!eq || eq == val || (size_t)(eq - val) >= ENV_PARAM_KEY_MAX ||
	    strlen(eq + 1) >= ENV_PARAM_VAL_MAX) {
		snprintf(err, errlen, "--param: expected KEY=VALUE (key 1-%d "
			 "bytes, value under %d), got '%s'",
			 ENV_PARAM_KEY_MAX - 1, ENV_PARAM_VAL_MAX, val);
		return -1;
	}
	if (pm->n == ENV_PARAMS_MAX) {
		snprintf(err, errlen, "more than %d --param", ENV_PARAMS_MAX);
		return -1;
	}
	snprintf(pm->key[pm->n], sizeof pm->key[0], "%.*s", (int)(eq - val),
		 val);
	snprintf(pm->val[pm->n++], sizeof pm->val[0], "%s", eq + 1);
	return 0;
}

/* GAME is a built-in name, or a plugin when it holds a '/' or ends in
 * ".so"; with --remote ADDR the game served there (GAME, if given, the
 * name it must serve). --param KEY=VALUE (repeatable) fills env.params. */
static int env_check_cmd(int argc, char **argv)
{
	struct env_opts o;
	unsigned long long episodes = 1000, seed = 1;
	const char *game, *remote = NULL;
	lg_buf rep = { 0 };
	char err[512], **pos;
	int rc, npos;
	const struct cli_arg flags[] = {
		CLI_CALL("param", 0, &o.params, cli_env_param),
		CLI_U64("episodes", 0, &episodes, 1, 10000000),
		CLI_U64("seed", 0, &seed, 0, UINT64_MAX),
		CLI_STRING("remote", 0, &remote),
		CLI_END,
	};
	const struct cli_args args = { "env check", flags, 0, 1,
		"expected one GAME (a name or a plugin's path)", 0 };

	env_opts_default(&o);
	if (cli_args(&args, argc, argv, &pos, &npos))
		return CLI_USAGE;
	if (!npos && !remote)
		return cli_usage_error("env check", "expected one GAME (a name "
				       "or a plugin's path), or --remote ADDR");
	game = npos ? pos[0] : NULL;
	if (remote) {
		if (strlen(remote) >= sizeof o.remote)
			return cli_usage_error("env check", "--remote: an "
					       "address longer than %zu bytes",
					       sizeof o.remote - 1);
		snprintf(o.remote, sizeof o.remote, "%s", remote);
	} else if (strchr(game, '/') ||
		   (strlen(game) > 3 &&
		    !strcmp(game + strlen(game) - 3, ".so"))) {
		if (strlen(game) >= sizeof o.plugin)
			return cli_usage_error("env check", "plugin path "
					       "longer than %zu bytes",
					       sizeof o.plugin - 1);
		snprintf(o.plugin, sizeof o.plugin, "%s", game);
		game = NULL;
	}
	if (game && !strcmp(game, "matrix")) {
		/* The matrix game needs a payoff: check on matching pennies. */
		o.matrix.rows = o.matrix.cols = 2;
		o.matrix.v[0][0] = o.matrix.v[1][1] = 1;
		o.matrix.v[0][1] = o.matrix.v[1][0] = -1;
	}
	if (game && !strcmp(game, "timing"))
		o.timing.reset_s = o.timing.step_s = 0; /* no sleeping */
	rc = env_conform(game, &o, episodes, seed, &rep, err, sizeof err);
	if (rc < 0) {
		fprintf(stderr, "league env check: %s\n", err);
		return CLI_USAGE;
	}
	fwrite(rep.data, 1, rep.len, stdout);
	printf("%s: %d check%s failed\n", rc ? "FAIL" : "ok", rc,
	       rc == 1 ? "" : "s");
	lg_buf_free(&rep);
	return rc ? CLI_FAIL : CLI_OK;
}

static const struct cli_sub subs[] = {
	{ "list", env_list },
	{ "check", env_check_cmd },
	{ NULL, NULL },
};

const struct cli_cmd cli_cmd_env = {
	.name = "env",
	.summary = "list the games; check a game (built in or plugin)",
	.help =
	"usage: league env list [--json]\n"
	"       league env check GAME|PLUGIN.so [--param KEY=VALUE]...\n"
	"                        [--episodes N] [--seed S]\n"
	"       league env check [GAME] --remote ADDR [--param KEY=VALUE]...\n"
	"                        [--episodes N] [--seed S]\n\n"
	"List every registered game with its number of players, observation\n"
	"length (floats), number of actions, longest episode (steps) and\n"
	"flags: simul (simultaneous moves), chance (cards are dealt), exact\n"
	"('league eval nashconv' works), slow (sleeps to simulate cost).\n"
	"Sizes are for the default options: matrix has up to 16 actions;\n"
	"timing's observation and episode length come from env.timing.\n"
	"--json prints one object per line. Rules and observation encodings:\n"
	"docs/envs.md.\n\n"
	"check runs the conformance suite on a built-in game or on a plugin\n"
	"(a path with a '/' or ending in .so; docs/games.md): N random\n"
	"episodes (default 1000) checking masks, chance nodes, zero-sum\n"
	"returns, observation and mask sizes, determinism by seed, that a\n"
	"copied state plays on the same, serialize round trips and tree\n"
	"building when the game has those hooks. One line per check; exit 0\n"
	"when all pass, 1 when one fails, 2 when the game does not load.\n"
	"--remote ADDR checks the game served at ADDR (HOST:PORT or\n"
	"unix:PATH; GAME, if given, is the name it must serve) as far as\n"
	"the protocol lets: random episodes with every reply checked,\n"
	"determinism by seed, and the text (descriptions, action names) of\n"
	"a server that has it; clone, serialize and infostate are skipped.\n",
	.subs = subs,
	.subs_name_unknown = 1,
};
