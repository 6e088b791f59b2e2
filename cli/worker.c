/*
 * cli/worker.c: the steps the worker commands (collect, learn, evaluate)
 * take the same way on their arguments before they hand over to
 * workers/: their flags read by cli_args (nothing positional), then
 * --connect HOST:PORT given and parsed.
 */
#include "cli/cli.h"

int cli_worker_flags(const char *cmd, const struct cli_arg *flags, int argc,
		     char **argv)
{
	const struct cli_args args = { cmd, flags, 0, 0, NULL, 1 };

	return cli_args(&args, argc, argv, NULL, NULL);
}

int cli_worker_connect(const char *cmd, const char *missing,
		       const char *connect, char *host, size_t hostlen,
		       uint16_t *port)
{
	if (missing)
		return cli_usage_error(cmd, "%s", missing);
	if (!connect)
		return cli_usage_error(cmd, "--connect HOST:PORT is required");
	if (net_parse_hostport(connect, host, hostlen, port))
		return cli_usage_error(cmd, "--connect: expected HOST:PORT, "
				       "got '%s'", connect);
	return CLI_OK;
}
