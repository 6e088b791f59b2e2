/*
 * cli/worker.c: the steps the worker commands (collect, learn, evaluate)
 * take the same way on their arguments before they hand over to
 * workers/: nothing left over, --connect HOST:PORT given and parsed.
 */
#include "cli/cli.h"

int cli_worker_args(const char *cmd, int argc, char **argv,
		    const char *missing, const char *connect, char *host,
		    size_t hostlen, uint16_t *port)
{
	if (optind != argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
				       argv[optind]);
	if (missing)
		return cli_usage_error(cmd, "%s", missing);
	if (!connect)
		return cli_usage_error(cmd, "--connect HOST:PORT is required");
	if (net_parse_hostport(connect, host, hostlen, port))
		return cli_usage_error(cmd, "--connect: expected HOST:PORT, "
				       "got '%s'", connect);
	return CLI_OK;
}
