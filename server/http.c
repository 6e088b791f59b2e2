/*
 * server/http.c: the daemon's HTTP port: /status, /metrics, /login, the
 * league's JSON endpoints (a table: /payoff, /ratings, /nashconv,
 * /series, /lineage, /jobs) and the live page's files, each behind the
 * token beyond loopback and the guard (http_guard.c). See server.h for
 * the contract.
 */
#include "server/server_internal.h"
#include "server/web.h"

#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const ss_names[] = { "hello", "ready", "closing" };

static int http_allowed(league_server *s, struct evhttp_request *req);

static void http_status(struct evhttp_request *req, void *arg)
{
	league_server *s = arg;
	struct evbuffer *out = evhttp_request_get_output_buffer(req);
	lg_buf b = { 0 };

	if (!http_allowed(s, req))
		return;
	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		evhttp_send_error(req, 405, "GET only");
		return;
	}
	lg_buf_printf(&b, "{\"league\": ");
	lg_buf_json_str(&b, s->league);
	lg_buf_printf(&b, ", \"env\": ");
	lg_buf_json_str(&b, s->env);
	lg_buf_printf(&b, ", \"uptime_s\": %.3f, \"pid\": %ld, \"draining\": %s,"
		      " \"connections\": {\"accepted\": %llu, \"open\": %zu, "
		      "\"ready\": %zu, \"auth_failures\": %llu, "
		      "\"protocol_errors\": %llu, \"timeouts\": %llu, "
		      "\"tls_failures\": %llu},"
		      " \"sessions\": [",
		      lg_now_s() - s->started, (long)getpid(),
		      s->draining ? "true" : "false",
		      (unsigned long long)s->accepted, s->nsessions, s->nready,
		      (unsigned long long)s->auth_failures,
		      (unsigned long long)s->protocol_errors,
		      (unsigned long long)s->timeouts,
		      (unsigned long long)s->tls_failures);
	for (league_session *ss = s->head; ss; ss = ss->next) {
		lg_buf_printf(&b, "%s{\"id\": %llu, \"state\": \"%s\", "
			      "\"role\": %d, \"name\": ", ss == s->head ? "" : ", ",
			      (unsigned long long)ss->id, ss_names[ss->state],
			      ss->role);
		lg_buf_json_str(&b, ss->name);
		lg_buf_printf(&b, ", \"peer\": ");
		lg_buf_json_str(&b, league_session_peer(ss));
		lg_buf_printf(&b, ", \"certificate\": ");
		lg_buf_json_str(&b, ss->cert);
		lg_buf_printf(&b, ", \"messages\": %llu, \"idle_s\": %.3f}",
			      (unsigned long long)ss->msgs,
			      lg_now_s() - ss->last_seen);
	}
	lg_buf_printf(&b, "]");
	if (s->ops.status_json)
		s->ops.status_json(s->ops.ctx, &b);
	lg_buf_printf(&b, "}\n");
	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Type", "application/json");
	evbuffer_add(out, b.data, b.len);
	evhttp_send_reply(req, 200, "OK", NULL);
	lg_buf_free(&b);
}

/* Beyond loopback every endpoint needs the token (league_http_token_ok,
 * server.h). */
int league_http_token_ok(struct evhttp_request *req, const char *token)
{
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	const char *auth = evhttp_find_header(in, "Authorization");
	const char *cookie = evhttp_find_header(in, "Cookie");

	if (auth && !strncmp(auth, "Bearer ", 7) && server_token_equal(auth + 7, token))
		return 1;
	char v[256];
	if (cookie && lg_cookie_value(cookie, "league_token", v, sizeof v) &&
	    server_token_equal(v, token))
		return 1;
	static const char why[] =
		"this league's HTTP needs its token: the header "
		"'Authorization: Bearer TOKEN', or the cookie the login link "
		"the daemon printed sets\n";
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	/* evhttp_send_error would drop the WWW-Authenticate header */
	evhttp_add_header(h, "WWW-Authenticate", "Bearer");
	evhttp_add_header(h, "Content-Type", "text/plain; charset=utf-8");
	evbuffer_add(evhttp_request_get_output_buffer(req), why,
		     sizeof why - 1);
	evhttp_send_reply(req, 401, "Unauthorized", NULL);
	return 0;
}

static int http_allowed(league_server *s, struct evhttp_request *req)
{
	return s->http_open || league_http_token_ok(req, s->token);
}

/* GET /login?code=CODE, once: set the token cookie and go to the page. */
static void http_login(struct evhttp_request *req, void *arg)
{
	league_server *s = arg;
	struct evkeyvalq q;
	const char *uri = evhttp_request_get_uri(req), *code, *qs;
	char cookie[320];

	qs = strchr(uri, '?');
	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET || !qs ||
	    evhttp_parse_query_str(qs + 1, &q)) {
		evhttp_send_error(req, 400, "GET /login?code=CODE");
		return;
	}
	code = evhttp_find_header(&q, "code");
	if (s->http_open || !s->login_code[0] || !code ||
	    !server_token_equal(code, s->login_code)) {
		evhttp_clear_headers(&q);
		evhttp_send_error(req, 403, "no such login code (each is good "
				  "once)");
		return;
	}
	evhttp_clear_headers(&q);
	s->login_code[0] = 0;
	/* Secure under TLS: a cookie is not scoped to a port, and a plain
	 * request to another port of the host must not carry it. */
	snprintf(cookie, sizeof cookie, "league_token=%s; Path=/; HttpOnly; "
		 "SameSite=Strict%s", s->token, s->o.tls ? "; Secure" : "");
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	evhttp_add_header(h, "Set-Cookie", cookie);
	evhttp_add_header(h, "Location", "/");
	evhttp_send_reply(req, 303, "See Other", NULL);
}

/* A request a JSON endpoint may answer: allowed (else answered), a GET
 * (else 405) and one the daemon serves (have; else 404). */
static int http_get_ok(league_server *s, struct evhttp_request *req,
		       int have, const char *what)
{
	if (!http_allowed(s, req))
		return 0;
	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		evhttp_send_error(req, 405, "GET only");
		return 0;
	}
	if (!have) {
		evhttp_send_error(req, 404, what);
		return 0;
	}
	return 1;
}

/* The caps of an earlier moment's /payoff and /ratings: the daemon's
 * own (league/status.c). */
#define HISTORY_AGENTS 512
#define HISTORY_NASH 256

/* A JSON endpoint (struct server_endpoint, arg): at an earlier moment
 * with ?at= where it may be, else what its op appends, or one page of
 * what it lists (404 without an op, 400 on a bad page, 500 when the op
 * fails). */
static void http_endpoint(struct evhttp_request *req, void *arg)
{
	const struct server_endpoint *e = arg;
	league_server *s = e->s;
	struct league_page pg;
	lg_buf b = { 0 };
	int rc;

	if (e->at >= 0) {
		if (!http_allowed(s, req))
			return;
		if (s->ops.history &&
		    evhttp_request_get_command(req) == EVHTTP_REQ_GET &&
		    league_http_history(req, s->ops.history, e->at,
					HISTORY_AGENTS, HISTORY_NASH))
			return;
	}
	if (!http_get_ok(s, req, e->json || e->paged, e->what))
		return;
	if (e->paged && league_http_page(req, &pg))
		return; /* answered 400 */
	rc = e->paged ? e->paged(s->ops.ctx, &pg, &b) : e->json(s->ops.ctx, &b);
	if (rc || lg_buf_printf(&b, "\n")) {
		lg_buf_free(&b);
		evhttp_send_error(req, 500, e->what);
		return;
	}
	league_http_reply(req, "application/json", b.data, b.len);
	lg_buf_free(&b);
}

/* GET /metrics: Prometheus' text exposition format, version 0.0.4. */
static void http_metrics(struct evhttp_request *req, void *arg)
{
	league_server *s = arg;
	lg_buf b = { 0 };
	int rc;

	if (!http_allowed(s, req))
		return;
	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		evhttp_send_error(req, 405, "GET only");
		return;
	}
	rc = lg_buf_printf(&b,
			   "# HELP league_up_seconds Seconds since the server "
			   "started.\n# TYPE league_up_seconds gauge\n"
			   "league_up_seconds %.3f\n"
			   "# HELP league_sessions Worker and inspector "
			   "sessions connected.\n# TYPE league_sessions gauge\n"
			   "league_sessions %zu\n",
			   lg_now_s() - s->started, league_server_sessions(s));
	if (!rc && s->ops.metrics_text)
		rc = s->ops.metrics_text(s->ops.ctx, &b);
	if (rc) {
		lg_buf_free(&b);
		evhttp_send_error(req, 500, "metrics unavailable");
		return;
	}
	league_http_reply(req, "text/plain; version=0.0.4; charset=utf-8", b.data,
		   b.len);
	lg_buf_free(&b);
}

static void http_other(struct evhttp_request *req, void *arg)
{
	const char *uri = evhttp_request_get_uri(req);

	if (!http_allowed(arg, req))
		return;
	const struct league_web_asset *a = league_web_find(uri);
	if (evhttp_request_get_command(req) == EVHTTP_REQ_GET && a) {
		league_http_reply(req, a->type, a->data, a->len);
		return;
	}
	evhttp_send_error(req, 404, "try /, /status, /payoff, /ratings, "
			  "/nashconv or /metrics");
}

/* The JSON endpoints' table, filled from the ops (http_endpoint). GET
 * /lineage?after=ID&limit=N and /jobs?after=ID&limit=N answer one page of
 * the players and of the jobs. */
static void endpoints_fill(league_server *s)
{
	const struct league_server_ops *o = &s->ops;
	const struct server_endpoint eps[SERVER_ENDPOINTS] = {
		{ s, "/payoff", "no payoff matrix", 0, o->payoff_json, NULL },
		{ s, "/ratings", "no ratings", 1, o->ratings_json, NULL },
		{ s, "/nashconv", "no NashConv points", -1, o->nashconv_json,
		  NULL },
		{ s, "/series", "no time series", -1, o->series_json, NULL },
		{ s, "/lineage", "no lineage", -1, NULL, o->lineage_json },
		{ s, "/jobs", "no jobs", -1, NULL, o->jobs_json },
	};

	memcpy(s->eps, eps, sizeof eps);
}

/* The route path (NULL: every other path) to cb with arg, through the
 * guard; err names the path when it fails. */
static int http_route(league_server *s, const char *path,
		      void (*cb)(struct evhttp_request *, void *), void *arg,
		      char *err, size_t errlen)
{
	int rc = league_http_guard_route(s->guard, path, cb, arg);

	if (rc)
		lg_errf(err, errlen, "http: route %s: %s", path ? path : "*",
			lg_strerror(rc));
	return rc;
}

int server_http_setup(league_server *s, struct evhttp_bound_socket *h,
		      char *err, size_t errlen)
{
	static const struct {
		const char *path;
		void (*cb)(struct evhttp_request *, void *);
	} routes[] = {
		{ "/status", http_status },   { "/metrics", http_metrics },
		{ "/login", http_login },     { NULL, http_other },
	};
	struct league_http_guard_opts go = {
		.request_timeout_s = s->o.http_request_timeout_s,
		.tls = s->o.tls,
	};
	int rc;

	if ((rc = league_http_guard_new(&s->guard, s->base, s->http, h, &go,
					err, errlen)))
		return rc;
	endpoints_fill(s);
	for (size_t i = 0; i < LG_ARRAY_LEN(s->eps); i++)
		if ((rc = http_route(s, s->eps[i].path, http_endpoint,
				     &s->eps[i], err, errlen)))
			return rc;
	for (size_t i = 0; i < LG_ARRAY_LEN(routes); i++)
		if ((rc = http_route(s, routes[i].path, routes[i].cb, s, err,
				     errlen)))
			return rc;
	evhttp_set_max_headers_size(s->http, 8192);
	evhttp_set_max_body_size(s->http, 4096);
	evhttp_set_timeout(s->http, 10);
	return 0;
}
