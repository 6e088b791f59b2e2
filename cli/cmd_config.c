/* cli/cmd_config.c: `league config check FILE` and `league config doc`. */
#include "cli/cli.h"
#include "conf/config.h"

#include <stdio.h>
#include <string.h>

static int config_check(int argc, char **argv)
{
	struct cfg c;
	const char *path;
	char err[512];
	lg_buf out = { 0 };
	int quiet = 0, rc;
	const struct cli_arg flags[] = {
		CLI_BOOL("quiet", 'q', &quiet),
		CLI_END,
	};

	if (cli_args_one("config check", flags, "expected one CONFIG file",
			 argc, argv, &path))
		return CLI_USAGE;
	rc = cfg_load_file(&c, path, err, sizeof err);
	if (rc) {
		fprintf(stderr, "league: %s\n", err);
		return rc == LG_ECONFIG || rc == LG_EIO ? CLI_USAGE : CLI_FAIL;
	}
	if (quiet)
		return CLI_OK;
	if (cfg_emit_yaml(&c, &out))
		return cli_oom(NULL);
	printf("# effective config of %s\n", path);
	fwrite(out.data, 1, out.len, stdout);
	lg_buf_free(&out);
	return CLI_OK;
}

static int config_doc(int argc, char **argv)
{
	lg_buf out = { 0 };

	if (argc != 1)
		return cli_usage_error("config doc", "takes no arguments");
	if (cfg_emit_markdown(&out))
		return cli_oom(NULL);
	fwrite(out.data, 1, out.len, stdout);
	lg_buf_free(&out);
	return CLI_OK;
}

static const struct cli_sub subs[] = {
	{ "check", config_check },
	{ "doc", config_doc },
	{ NULL, NULL },
};

const struct cli_cmd cli_cmd_config = {
	.name = "config",
	.summary = "validate a config or print the key reference",
	.help =
	"usage: league config check CONFIG [--quiet]\n"
	"       league config doc\n\n"
	"check  Validate CONFIG and print the effective config as YAML, every\n"
	"       default filled in (the output passes 'config check' itself).\n"
	"       Errors name file:line:column and the key; exit status 2.\n"
	"       --quiet  print nothing on success\n"
	"doc    Print the Markdown reference of every key (docs/config.md).\n",
	.subs = subs,
	.subs_name_unknown = 1,
};
