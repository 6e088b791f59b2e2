/*
 * cli/worker.c: what the worker front-ends (collect, learn, evaluate) say
 * to the daemon the same way: a request/reply call that logs why it
 * failed, the config a RegisterReply carries, and a network fetched by
 * (player, version) and checked against the config's model.
 */
#include "cli/cli.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_worker_call(net_client *c, const char *who, const char *what,
		    net_msg *req, net_msg **rep)
{
	char err[256] = "";
	int rc = net_client_call(c, req, rep, CLI_WORKER_CALL_S, err,
				 sizeof err);

	if (rc)
		LG_WARN("%s: %s: %s", who, what, err[0] ? err : lg_strerror(rc));
	return rc;
}

const char *cli_worker_refusal(const net_msg *r)
{
	if (r->body_case == LEAGUE__ENVELOPE__BODY_ACK)
		return r->ack->error && *r->ack->error ? r->ack->error
						       : "refused";
	return net_msg_name(r);
}

int cli_worker_register(net_client *c, const char *who, League__Register *rg,
			struct cfg *cfg)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	int rc;

	req.body_case = LEAGUE__ENVELOPE__BODY_REGISTER;
	req.register_ = rg;
	if ((rc = cli_worker_call(c, who, "register", &req, &r)))
		return rc;
	if (r->body_case != LEAGUE__ENVELOPE__BODY_REGISTER_REPLY) {
		LG_ERROR("%s: register refused: %s", who,
			 cli_worker_refusal(r));
		net_msg_free(r);
		return LG_EINVAL;
	}
	if (cfg)
		rc = cli_worker_config(r, cfg, who);
	net_msg_free(r);
	return rc;
}

int cli_worker_config(const net_msg *r, struct cfg *c, const char *who)
{
	const char *y = r->register_reply->config ? r->register_reply->config
						  : "";
	char err[512];

	if (cfg_load_string(c, y, strlen(y), "daemon config", err,
			    sizeof err)) {
		LG_ERROR("%s: %s", who, err);
		return LG_ECONFIG;
	}
	return 0;
}

int cli_worker_load_net(const void *blob, size_t len,
			const struct nn_shape *shape, const char *who,
			uint32_t player, uint32_t version, nn **out)
{
	char err[256];
	int rc = nn_load(out, blob, len, err, sizeof err);

	if (rc) {
		LG_WARN("%s: params %u/%u: %s", who, player, version, err);
		return rc;
	}
	const struct nn_shape *s = nn_shape_of(*out);
	if (shape && memcmp(s, shape, sizeof *s)) {
		LG_WARN("%s: params %u/%u: network shape (obs %u, actions %u, "
			"%u layers) differs from the config's model", who,
			player, version, s->obs, s->actions, s->nhidden);
		nn_free(*out);
		*out = NULL;
		return LG_ECONFIG;
	}
	return 0;
}

int cli_worker_fetch_net(net_client *c, const char *who, uint32_t player,
			 uint32_t version, const struct nn_shape *shape,
			 nn **out)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__ParamsGet g = LEAGUE__PARAMS_GET__INIT;
	int rc;

	*out = NULL;
	g.player = player;
	g.version = version;
	req.body_case = LEAGUE__ENVELOPE__BODY_PARAMS_GET;
	req.params_get = &g;
	if ((rc = cli_worker_call(c, who, "params get", &req, &r)))
		return rc;
	if (r->body_case != LEAGUE__ENVELOPE__BODY_PARAMS) {
		LG_WARN("%s: params %u/%u: %s", who, player, version,
			cli_worker_refusal(r));
		net_msg_free(r);
		return LG_ENOTFOUND;
	}
	rc = cli_worker_load_net(r->params->blob.data, r->params->blob.len,
				 shape, who, player, version, out);
	net_msg_free(r);
	return rc;
}

int cli_worker_address(const char *cmd, const char *connect, char *host,
		       size_t hostlen, uint16_t *port)
{
	if (!connect)
		return cli_usage_error(cmd, "--connect HOST:PORT is required");
	if (net_parse_hostport(connect, host, hostlen, port))
		return cli_usage_error(cmd, "--connect: expected HOST:PORT, "
				       "got '%s'", connect);
	return CLI_OK;
}

void cli_worker_signals(const char *name, void (*on_stop)(int))
{
	struct sigaction sa = { .sa_handler = on_stop };

	lg_log_set_tag(name);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Append text to buf (async-signal-safe). */
static void put_str(char *buf, size_t cap, size_t *n, const char *t)
{
	while (t && *t && *n + 1 < cap)
		buf[(*n)++] = *t++;
}

static void put_u64(char *buf, size_t cap, size_t *n, uint64_t v)
{
	char d[24];
	int k = 0;

	do
		d[k++] = (char)('0' + v % 10);
	while ((v /= 10) && k < 23);
	while (k && *n + 1 < cap)
		buf[(*n)++] = d[--k];
}

/* A fatal signal: one line on stderr (the worker's log) naming the game
 * call this thread was in, if any, then the default action (the handler
 * was reset: returning re-runs the fault, abort raises again). Only
 * async-signal-safe calls. */
static void on_fatal(int sig)
{
	static const char *const names[] = {
		[SIGSEGV] = "SIGSEGV", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
		[SIGILL] = "SIGILL",   [SIGABRT] = "SIGABRT",
	};
	const struct env_call *c = env_current_call();
	char buf[512];
	size_t n = 0;

	put_str(buf, sizeof buf, &n, "fatal: signal ");
	put_u64(buf, sizeof buf, &n, (uint64_t)sig);
	put_str(buf, sizeof buf, &n, " (");
	put_str(buf, sizeof buf, &n, names[sig]);
	put_str(buf, sizeof buf, &n, ")");
	if (c->fn) {
		put_str(buf, sizeof buf, &n, " in the game '");
		put_str(buf, sizeof buf, &n, c->game);
		put_str(buf, sizeof buf, &n, "': its ");
		put_str(buf, sizeof buf, &n, c->fn);
		put_str(buf, sizeof buf, &n, "()");
		if (c->player >= 0) {
			put_str(buf, sizeof buf, &n, " for player ");
			put_u64(buf, sizeof buf, &n, (uint64_t)c->player);
		}
		put_str(buf, sizeof buf, &n, " at step ");
		put_u64(buf, sizeof buf, &n, c->step);
		put_str(buf, sizeof buf, &n, " of the episode");
	}
	buf[n++] = '\n';
	if (write(2, buf, n) < 0)
		return;
}

void cli_worker_fatal_signals(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old, sa = { .sa_handler = on_fatal,
					     .sa_flags = SA_RESETHAND };
		/* a sanitizer's own handler reports better: keep it */
		if (sigaction(sigs[i], NULL, &old) ||
		    old.sa_handler != SIG_DFL)
			continue;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

int cli_worker_tls(const char *who, net_tls **client, net_tls **server,
		   int server_verify)
{
	const char *ca = getenv("LEAGUE_TLS_CA"), *cert = getenv("LEAGUE_TLS_CERT"),
		   *key = getenv("LEAGUE_TLS_KEY");
	struct net_tls_opts o = { cert ? cert : "", key ? key : "",
				  ca ? ca : "", 0 };
	static const char *const var[] = { "", "LEAGUE_TLS_CERT",
					   "LEAGUE_TLS_KEY", "LEAGUE_TLS_CA" };
	char err[512];
	int which = 0;

	if (client)
		*client = NULL;
	if (server)
		*server = NULL;
	if (!o.ca[0] && !o.cert[0] && !o.key[0])
		return 0;
	if (!o.ca[0]) {
		fprintf(stderr, "%s: LEAGUE_TLS_CERT/KEY without LEAGUE_TLS_CA "
			"(the CA the daemon's certificate chains to)\n", who);
		return CLI_USAGE;
	}
	struct net_tls_opts so = o;
	so.verify_peer = server_verify;
	if ((client && net_tls_new(client, &o, 0, &which, err, sizeof err)) ||
	    (server && net_tls_new(server, &so, 1, &which, err, sizeof err))) {
		fprintf(stderr, "%s: %s%s%s\n", who, which ? var[which] : "",
			which ? ": " : "", err);
		if (client) {
			net_tls_free(*client);
			*client = NULL;
		}
		return CLI_USAGE;
	}
	return 0;
}
