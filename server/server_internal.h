/*
 * server/server_internal.h: what the server's two files share: the
 * session and server structs, the constant-time token comparison, and the
 * HTTP routes' setup. session.c owns the worker port (sessions,
 * handshake, heartbeats, drain, in-process sessions) and the server's
 * lifecycle; http.c owns the HTTP port's endpoints. Not for other
 * folders: they see server.h.
 */
#ifndef LG_SERVER_SERVER_INTERNAL_H
#define LG_SERVER_SERVER_INTERNAL_H

#include "server/server.h"

#include <event2/event.h>

/* Session states; http.c names them in /status (server.h lists them). */
enum ss_state { SS_HELLO, SS_READY, SS_CLOSING };

struct league_session {
	league_server *srv;
	net_conn *conn;
	uint64_t id;
	enum ss_state state;
	int role;
	char name[64];
	char cert[64]; /* the client certificate's name (mutual TLS) */
	double connected_at, last_seen;
	uint64_t msgs;
	void *data;
	league_session *prev, *next;
	/* In-process sessions (conn NULL): what is sent, oldest first from
	 * mem_off, and the close, which runs from the loop. */
	lg_buf mem;
	size_t mem_off;
	struct event *mem_close;
	char mem_why[64];
};

/*
 * One JSON endpoint of the HTTP port (http.c): GET answered with what
 * json appends, or with one page (struct league_page) of what paged
 * lists; at >= 0: an earlier moment with ?at= (league_http_history; 0
 * the payoff matrix, 1 the ratings) when the daemon keeps a store. what
 * is the 404 and 500 text.
 */
struct server_endpoint {
	league_server *s;
	const char *path, *what;
	int at;
	int (*json)(void *ctx, lg_buf *out);
	int (*paged)(void *ctx, const struct league_page *pg, lg_buf *out);
};
#define SERVER_ENDPOINTS 6

struct league_server {
	struct event_base *base;
	struct league_server_opts o;
	struct league_server_ops ops;
	char listen[128], token[256], league[128], env[64], ports_file[512];
	char login_code[33]; /* one use, beyond loopback; "" once used */
	int http_open;       /* HTTP without the token: a loopback listener */
	int lfd;
	uint16_t port, http_port;
	struct event *accept_ev, *tick_ev, *drain_ev, *retry_ev;
	struct evhttp *http;
	struct league_http_guard *guard;
	struct server_endpoint eps[SERVER_ENDPOINTS];
	struct lg_log_limit accept_lim;
	uint64_t accept_errors;
	league_session *head;
	size_t nsessions, nready;
	uint64_t next_id;
	double started;
	uint64_t accepted, auth_failures, protocol_errors, timeouts, tls_failures;
	int draining;
	double drain_deadline;
	char drain_reason[128];
	void (*drain_done)(void *);
	void *drain_arg;
};

/* 1 when a and b are the same string, in time that depends only on the
 * longer length (tokens and login codes). */
int server_token_equal(const char *a, const char *b);

/* The HTTP routes on s->http, whose listener is h, behind the guard
 * (http_guard.c): deadlines, a connection cap, accept backoff. 0, or the
 * guard's error (err says which). */
int server_http_setup(league_server *s, struct evhttp_bound_socket *h,
		      char *err, size_t errlen);

#endif
