/*
 * workers/client.c: what the workers (collect, learn, evaluate) do and
 * say to the daemon the same way: the start (name, TLS from the
 * environment, signals), the connection, the main loop and the dial
 * again after a break, a request/reply call that logs why it failed, the registration
 * and the config a RegisterReply carries, and a network fetched by
 * (player, version) and checked against the config's model.
 */
#include "workers/workers_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int worker_tls(const char *who, net_tls **client, net_tls **server,
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
		return WORKER_EXIT_USAGE;
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
		return WORKER_EXIT_USAGE;
	}
	return 0;
}

int worker_start(const char *who, const char *given, const char *prefix,
		 long id, char *name, size_t namelen, net_tls **client,
		 net_tls **server, int server_verify)
{
	int rc;

	if (given && given[0])
		snprintf(name, namelen, "%s", given);
	else
		snprintf(name, namelen, "%s.%ld", prefix, id);
	if ((rc = worker_tls(who, client, server, server_verify)))
		return rc;
	worker_signals(name);
	return 0;
}

int worker_connect(const char *who, const char *host, uint16_t port,
		   net_tls *tls, int role, const char *name, net_client **cl)
{
	struct net_client_opts co = {
		.host = host, .port = port, .token = getenv("LEAGUE_TOKEN"),
		.tls = tls, .role = role, .name = name, .give_up_s = 60,
	};
	char err[512];
	int rc = net_client_connect(cl, &co, err, sizeof err);

	if (!rc)
		return 0;
	fprintf(stderr, "%s: %s\n", who, err);
	return rc == LG_EAUTH || rc == LG_EVERSION ? WORKER_EXIT_USAGE
						   : WORKER_EXIT_FAIL;
}

int worker_redial(net_client *cl, const char *who)
{
	char err[256];
	int rc = net_client_reconnect(cl, err, sizeof err);

	if (rc)
		LG_ERROR("%s: daemon unreachable: %s", who, err);
	return rc;
}

int worker_loop(net_client *cl, int (*step)(void *ctx),
		int (*reconnect)(void *ctx), void *ctx)
{
	int rc;

	while (!worker_stopping(cl)) {
		if ((rc = step(ctx)) == WORKER_BROKEN) {
			/* A Shutdown may sit unread behind the close. */
			net_client_poll(cl);
			rc = worker_stopping(cl) ? WORKER_STOP : reconnect(ctx);
		}
		if (rc)
			return rc == WORKER_STOP ? 0 : rc;
	}
	return 0;
}

int worker_call(net_client *c, const char *who, const char *what,
		net_msg *req, net_msg **rep)
{
	char err[256] = "";
	int rc = net_client_call(c, req, rep, WORKER_CALL_S, err, sizeof err);

	if (rc)
		LG_WARN("%s: %s: %s", who, what, err[0] ? err : lg_strerror(rc));
	return rc;
}

const char *worker_refusal(const net_msg *r)
{
	if (r->body_case == LEAGUE__ENVELOPE__BODY_ACK)
		return r->ack->error && *r->ack->error ? r->ack->error
						       : "refused";
	return net_msg_name(r);
}

int worker_register(net_client *c, const char *who, League__Register *rg,
		    struct cfg *cfg)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	int rc;

	req.body_case = LEAGUE__ENVELOPE__BODY_REGISTER;
	req.register_ = rg;
	if ((rc = worker_call(c, who, "register", &req, &r)))
		return rc;
	if (r->body_case != LEAGUE__ENVELOPE__BODY_REGISTER_REPLY) {
		LG_ERROR("%s: register refused: %s", who, worker_refusal(r));
		net_msg_free(r);
		return LG_EINVAL;
	}
	if (cfg)
		rc = worker_config(r, cfg, who);
	net_msg_free(r);
	return rc;
}

int worker_config(const net_msg *r, struct cfg *c, const char *who)
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

int worker_load_net(const void *blob, size_t len,
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

int worker_fetch_net(net_client *c, const char *who, uint32_t player,
		     uint32_t version, const struct nn_shape *shape, nn **out)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__ParamsGet g = LEAGUE__PARAMS_GET__INIT;
	int rc;

	*out = NULL;
	g.player = player;
	g.version = version;
	req.body_case = LEAGUE__ENVELOPE__BODY_PARAMS_GET;
	req.params_get = &g;
	if ((rc = worker_call(c, who, "params get", &req, &r)))
		return rc;
	if (r->body_case != LEAGUE__ENVELOPE__BODY_PARAMS) {
		LG_WARN("%s: params %u/%u: %s", who, player, version,
			worker_refusal(r));
		net_msg_free(r);
		return LG_ENOTFOUND;
	}
	rc = worker_load_net(r->params->blob.data, r->params->blob.len,
			     shape, who, player, version, out);
	net_msg_free(r);
	return rc;
}
