/* cli/cmd_serve.c: `league serve CONFIG`: the league daemon alone. */
#include "cli/cli.h"
#include "conf/config.h"
#include "league/daemon.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>

#define TOKEN_MAX 256

/* The shared token: LEAGUE_TOKEN, else the config's server.token_file
 * (its one line without the line end, lg_token_read_file). Either is
 * refused when longer than len - 1 bytes, never cut. "" when neither is
 * set; -1 (the reason on stderr) when refused. */
static int read_token(const struct cfg *c, char *tok, size_t len)
{
	const char *tenv = getenv("LEAGUE_TOKEN");
	char err[CFG_STR_MAX + 128];

	tok[0] = 0;
	if (tenv && *tenv) {
		if (strlen(tenv) >= len) {
			fprintf(stderr, "league serve: LEAGUE_TOKEN is longer "
				"than %zu bytes\n", len - 1);
			return -1;
		}
		snprintf(tok, len, "%s", tenv);
		return 0;
	}
	if (!c->server.token_file[0])
		return 0;
	if (lg_token_read_file(c->server.token_file, tok, len, err,
			       sizeof err)) {
		fprintf(stderr, "league serve: server.token_file %s (a token "
			"is at most %zu bytes)\n", err, len - 1);
		return -1;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	static struct cfg c;
	struct league_daemon_opts o = { .port = -1, .http_port = -1 };
	const char *dir = NULL, *config;
	char err[1024], tok[TOKEN_MAX];
	unsigned long long port = 0, http_port = 0;
	struct event_base *base;
	league_daemon *d;
	int rc, if_any = 0, port_set = 0, http_port_set = 0;
	const struct cli_arg flags[] = {
		CLI_STRING("dir", 0, &dir),
		CLI_BOOL("resume", 0, &o.resume),
		CLI_BOOL("resume-if-any", 0, &if_any),
		CLI_STRING("ports-file", 0, &o.ports_file),
		CLI_STRING("listen", 0, &o.listen),
		{ .name = "port", .kind = CLI_ARG_U64, .dest = &port,
		  .max = 65535, .seen = &port_set },
		{ .name = "http-port", .kind = CLI_ARG_U64, .dest = &http_port,
		  .max = 65535, .seen = &http_port_set },
		CLI_BITS("nosync", 0, &o.store_flags, STORE_NOSYNC),
		CLI_END,
	};

	if (cli_args_one("serve", flags, "expected one CONFIG file", argc,
			 argv, &config))
		return CLI_USAGE;
	if (port_set)
		o.port = (int)port;
	if (http_port_set)
		o.http_port = (int)http_port;
	if (cfg_load_file(&c, config, err, sizeof err)) {
		fprintf(stderr, "league serve: %s\n", err);
		return CLI_USAGE;
	}
	if (read_token(&c, tok, sizeof tok))
		return CLI_USAGE;
	o.cfg = &c;
	o.dir = dir ? dir : c.league.dir;
	if (if_any) {
		/* A service manager restarts the daemon after any exit: the
		 * first start makes the league, every later one resumes it. */
		char path[CFG_STR_MAX + 16];
		struct stat sb;
		snprintf(path, sizeof path, "%s/data.mdb", o.dir);
		o.resume = stat(path, &sb) == 0;
	}
	o.token = tok;
	lg_log_set_tag("daemon");
	signal(SIGPIPE, SIG_IGN);
	if (!(base = event_base_new())) {
		fprintf(stderr, "league serve: no event base\n");
		return CLI_FAIL;
	}
	rc = league_daemon_new(&d, base, &o, err, sizeof err);
	if (rc) {
		fprintf(stderr, "league serve: %s\n", err);
		event_base_free(base);
		return rc == LG_EEXIST || rc == LG_ENOTFOUND || rc == LG_ECONFIG
			       ? CLI_USAGE
			       : CLI_FAIL;
	}
	rc = league_daemon_run(d);
	LG_INFO("daemon: stopped: %s", league_daemon_stop_reason(d));
	league_daemon_free(d);
	event_base_free(base);
	return rc ? CLI_FAIL : CLI_OK;
}

const struct cli_cmd cli_cmd_serve = {
	.name = "serve",
	.summary = "run the league daemon (matchmaking, payoff, parameters)",
	.help =
	"usage: league serve CONFIG [--dir DIR] [--resume | --resume-if-any]\n"
	"                    [--ports-file F]\n"
	"                    [--listen ADDR] [--port N] [--http-port N]\n"
	"                    [--nosync]\n\n"
	"Serves the league in DIR (default: league.dir) to collectors and\n"
	"learners until the config's budget is reached or SIGTERM/SIGINT,\n"
	"then drains: workers are told to stop, everything is committed.\n"
	"Everything acknowledged is in LMDB first, so after any crash (kill -9\n"
	"included) --resume continues the league.\n\n"
	"  --dir DIR         league directory\n"
	"  --resume          continue the league in DIR (required when DIR\n"
	"                    holds one; refused when it does not)\n"
	"  --resume-if-any   continue the league in DIR if it holds one,\n"
	"                    else start it (for systemd, Kubernetes, Slurm)\n"
	"  --ports-file F    write the bound ports and learning players to F\n"
	"  --listen ADDR     address (default server.listen, 127.0.0.1);\n"
	"                    beyond loopback a token is required\n"
	"  --port N, --http-port N   0: any free port\n"
	"  --nosync          no fsync per commit: safe against kill -9, not\n"
	"                    against power loss\n\n"
	"Token: $LEAGUE_TOKEN, else the file named by server.token_file.\n"
	"HTTP: /status (JSON), /payoff (JSON), / (live heatmap page).\n",
	.run = run,
};
