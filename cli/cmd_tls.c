/*
 * cli/cmd_tls.c: `league tls init DIR`, a CA and certificates for a test
 * cluster (net/tls_gen.c), and `league tls check`, which loads a
 * certificate, its key and a CA exactly as the daemon and the workers do.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TLS_NAMES_MAX 64
#define TLS_HOSTS_MAX 64

/* Split a comma-separated list in place into out[]. */
static int split(char *s, const char **out, size_t max, size_t *n)
{
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		if (*n == max)
			return -1;
		out[(*n)++] = tok;
	}
	return 0;
}

static int tls_init(int argc, char **argv)
{
	static char names_s[4096], hosts_s[4096], daemon_s[4096];
	const char *names[TLS_NAMES_MAX], *hosts[TLS_HOSTS_MAX],
		*daemons[TLS_NAMES_MAX];
	const char *names_a = "daemon,worker", *hosts_a = "localhost,127.0.0.1",
		   *daemon_a = "daemon";
	size_t nnames = 0, nh = 0, nd = 0;
	unsigned long long days = 365;
	const char *dir;
	char err[512];
	int force = 0, daemon_given = 0;
	const struct cli_arg flags[] = {
		CLI_STRING("names", 0, &names_a),
		CLI_STRING("hosts", 0, &hosts_a),
		{ .name = "daemon", .kind = CLI_ARG_STRING, .dest = &daemon_a,
		  .seen = &daemon_given },
		CLI_U64("days", 0, &days, 1, 36500),
		CLI_BOOL("force", 0, &force),
		CLI_END,
	};

	if (cli_args_one("tls init", flags, "expected one DIR", argc, argv,
			 &dir))
		return CLI_USAGE;
	/* split in place: copies, cut as before at the buffers' size */
	snprintf(names_s, sizeof names_s, "%s", names_a);
	snprintf(hosts_s, sizeof hosts_s, "%s", hosts_a);
	snprintf(daemon_s, sizeof daemon_s, "%s", daemon_a);
	if (split(names_s, names, TLS_NAMES_MAX, &nnames) || !nnames)
		return cli_usage_error("tls init", "--names: 1 to %d names",
				       TLS_NAMES_MAX);
	if (split(hosts_s, hosts, TLS_HOSTS_MAX, &nh) || !nh)
		return cli_usage_error("tls init", "--hosts: 1 to %d hosts",
				       TLS_HOSTS_MAX);
	/* the default daemon name counts only when among --names (a run
	 * adding workers to an existing CA names no daemon); a --daemon
	 * name must be */
	if (split(daemon_s, daemons, TLS_NAMES_MAX, &nd))
		return cli_usage_error("tls init", "--daemon: at most %d names",
				       TLS_NAMES_MAX);
	size_t keep = 0;
	for (size_t j = 0; j < nd; j++)
		for (size_t i = 0; i < nnames; i++)
			if (!strcmp(daemons[j], names[i]) || daemon_given) {
				daemons[keep++] = daemons[j];
				break;
			}
	int rc = net_tls_init_dir(dir, names, nnames, daemons, keep,
				  hosts, nh, -60, (long)days * 86400, force,
				  err, sizeof err);
	if (rc) {
		fprintf(stderr, "league tls init: %s\n", err);
		return rc == LG_EIO || rc == LG_ENOMEM ? CLI_FAIL : CLI_USAGE;
	}
	printf("league tls init: %s/ca.pem (CA)", dir);
	for (size_t i = 0; i < nnames; i++)
		printf(", %s/%.*s.pem and .key", dir,
		       (int)strcspn(names[i], "="), names[i]);
	printf("\n");
	return CLI_OK;
}

static int tls_check(int argc, char **argv)
{
	struct net_tls_opts o = { "", "", "", 0 };
	static const char *const what[] = { "", "--cert", "--key", "--ca" };
	char err[512];
	int which;
	const struct cli_arg flags[] = {
		CLI_STRING("cert", 0, &o.cert),
		CLI_STRING("key", 0, &o.key),
		CLI_STRING("ca", 0, &o.ca),
		CLI_END,
	};
	const struct cli_args args = { "tls check", flags, 0, 0, NULL, 1 };

	if (cli_args(&args, argc, argv, NULL, NULL))
		return CLI_USAGE;
	if (net_tls_check(&o, o.cert[0] != 0, &which, err, sizeof err)) {
		fprintf(stderr, "league tls check: %s%s%s\n",
			which ? what[which] : "", which ? ": " : "", err);
		return CLI_USAGE;
	}
	printf("league tls check: ok\n");
	return CLI_OK;
}

static const struct cli_sub subs[] = {
	{ "init", tls_init },
	{ "check", tls_check },
	{ NULL, NULL },
};

const struct cli_cmd cli_cmd_tls = {
	.name = "tls",
	.summary = "make a test CA and certificates; check TLS files",
	.help =
	"usage: league tls init DIR [--names N1,N2[=H1+H2],...]\n"
	"                           [--hosts H1,H2,...] [--daemon N,...]\n"
	"                           [--days D] [--force]\n"
	"       league tls check --ca FILE [--cert FILE --key FILE]\n"
	"\n"
	"init  writes a CA (DIR/ca.pem, DIR/ca.key; made once, reused by\n"
	"      later runs) and, for each name (default daemon,worker),\n"
	"      DIR/NAME.pem and DIR/NAME.key: an EC P-256 certificate\n"
	"      signed by the CA, its common name the name (mutual TLS\n"
	"      labels workers with it), valid for D days (default 365).\n"
	"      The daemon's names (--daemon, default daemon) are for\n"
	"      server and client use at every host in --hosts (DNS names\n"
	"      or IP addresses; default localhost,127.0.0.1). Any other\n"
	"      name is a worker's, for client use only, so it cannot pose\n"
	"      as the daemon; NAME=H1+H2 also serves at its own hosts (a\n"
	"      learner's trajectory endpoint), which may not be among\n"
	"      --hosts. Keys are mode 0600. An existing NAME.pem is kept\n"
	"      unless --force. For a test cluster: production CAs are\n"
	"      your own.\n"
	"check loads the files as the daemon and workers do: readable\n"
	"      PEM, within their dates, the key matching the certificate,\n"
	"      the certificate chaining to the CA.\n"
	"\n"
	"Use them in a config (server.tls.cert, key, ca; verify_peers for\n"
	"mutual TLS) and on workers ($LEAGUE_TLS_CA, $LEAGUE_TLS_CERT,\n"
	"$LEAGUE_TLS_KEY). Exit status: 0 done, 1 write failure, 2 bad\n"
	"arguments or files.\n",
	.subs = subs,
	.own_help = 1,
};
