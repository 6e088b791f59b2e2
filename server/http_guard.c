/*
 * server/http_guard.c: the HTTP port's defences against clients that hold
 * connections (server.h, league_http_guard_*), shared by the daemon and
 * `league inspect`.
 *
 * Every connection evhttp accepts gets a record here (from evhttp's
 * bufferevent factory, evhttp_set_bevcb): when it started waiting for a
 * request and whether a request is being answered. A connection that has
 * not delivered a whole request (line, headers and body) within the
 * request timeout of its start, or of the end of its previous reply, is
 * closed, however slowly it trickles bytes (evhttp's own timeout is per
 * read, so one header every few seconds kept a connection forever).
 * Open connections are capped below the process's file limit: at the cap
 * the listener stops accepting (the kernel's backlog holds the rest) and
 * resumes as connections close, so the worker port keeps descriptors
 * for workers. accept() failing for want of descriptors or memory stops
 * the listener and retries on a timer instead of spinning, and the
 * warning says how many times it happened (lg_log_limited).
 *
 * The record learns its evhttp connection on a zero-delay event after the
 * factory returns (evhttp sets the bufferevent's callbacks, whose argument
 * is the connection, before any byte can arrive), then hears of its close
 * through evhttp_connection_set_closecb.
 */
#include "server/server.h"
#include "util/list.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define GUARD_MAX_ROUTES 24
#define GUARD_RETRY_S 0.5 /* accept backoff after EMFILE and the like */

struct guard_conn {
	struct league_http_guard *g;
	struct bufferevent *bev;
	struct evhttp_connection *evcon; /* NULL until picked up */
	double start; /* since when a request is awaited */
	int busy;     /* a request is being answered */
	struct guard_conn *prev, *next;
};

struct guard_route {
	struct league_http_guard *g;
	void (*cb)(struct evhttp_request *, void *);
	void *arg;
};

struct league_http_guard {
	struct event_base *base;
	struct evhttp *http;
	struct evconnlistener *lev;
	void *tls;
	double timeout_s;
	size_t max_conns, nconns;
	int full, backoff; /* why the listener is off */
	struct event *pickup_ev, *sweep_ev, *retry_ev;
	struct guard_conn *head;
	struct guard_route routes[GUARD_MAX_ROUTES];
	size_t nroutes;
	uint64_t timeouts, accept_errors;
	struct lg_log_limit lim_err, lim_full;
};

static void tv_of(struct timeval *tv, double s)
{
	tv->tv_sec = (time_t)s;
	tv->tv_usec = (suseconds_t)((s - (double)tv->tv_sec) * 1e6);
}

/* Listen again unless still full or backing off. */
static void guard_listen_update(struct league_http_guard *g)
{
	int want = !g->full && !g->backoff;

	if (!g->lev)
		return;
	if (want)
		evconnlistener_enable(g->lev);
	else
		evconnlistener_disable(g->lev);
}

static void conn_unlink(struct guard_conn *c)
{
	struct league_http_guard *g = c->g;

	LG_LIST_UNLINK(g->head, c);
	g->nconns--;
	if (g->full && g->nconns < g->max_conns) {
		g->full = 0;
		guard_listen_update(g);
	}
	free(c);
}

static void conn_closed(struct evhttp_connection *evcon, void *arg)
{
	conn_unlink(arg);
}

/* Learn each new record's connection (see the file comment). */
static void pickup_cb(evutil_socket_t fd, short what, void *arg)
{
	struct league_http_guard *g = arg;
	struct guard_conn *c, *next;

	for (c = g->head; c; c = next) {
		void *cbarg = NULL;
		next = c->next;
		if (c->evcon)
			continue;
		bufferevent_getcb(c->bev, NULL, NULL, NULL, &cbarg);
		if (!cbarg || evhttp_connection_get_bufferevent(cbarg) !=
				      c->bev) {
			/* not evhttp's (yet): not tracked, not capped */
			LG_WARN("http: a connection's bufferevent is not "
				"evhttp's; not guarded");
			conn_unlink(c);
			continue;
		}
		c->evcon = cbarg;
		evhttp_connection_set_closecb(c->evcon, conn_closed, c);
	}
}

/* evhttp's bufferevent factory: plain or TLS, and a record. */
static struct bufferevent *guard_bev(struct event_base *base, void *arg)
{
	struct league_http_guard *g = arg;
	struct bufferevent *bev;
	struct guard_conn *c = calloc(1, sizeof *c);

	bev = g->tls ? league_https_bev(base, g->tls)
		     : bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!c || !bev) {
		free(c);
		return bev; /* evhttp copes with NULL; untracked on ENOMEM */
	}
	c->g = g;
	c->bev = bev;
	c->start = lg_now_s();
	LG_LIST_PUSH(g->head, c);
	if (++g->nconns >= g->max_conns && !g->full) {
		g->full = 1;
		lg_log_limited(&g->lim_full, 10, LG_LOG_WARN, "http: %zu "
			       "connections open, the cap; accepting again "
			       "as they close", g->nconns);
		guard_listen_update(g);
	}
	event_active(g->pickup_ev, EV_TIMEOUT, 0);
	return bev;
}

/* Close connections past their request deadline. */
static void sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	struct league_http_guard *g = arg;
	struct guard_conn *c, *next;
	double now = lg_now_s();

	for (c = g->head; c; c = next) {
		struct evhttp_connection *evcon = c->evcon;
		next = c->next;
		if (!evcon || c->busy || now - c->start <= g->timeout_s)
			continue;
		g->timeouts++;
		LG_DEBUG("http: closing a connection: no whole request "
			 "within %g s", g->timeout_s);
		evhttp_connection_set_closecb(evcon, NULL, NULL);
		conn_unlink(c);
		evhttp_connection_free(evcon);
	}
}

static struct guard_conn *conn_of(struct league_http_guard *g,
				  struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);

	for (struct guard_conn *c = g->head; c; c = c->next)
		if (c->evcon == evcon)
			return c;
	return NULL;
}

static void request_done(struct evhttp_request *req, void *arg)
{
	struct guard_conn *c = arg;

	c->busy = 0;
	c->start = lg_now_s(); /* the next request's deadline */
}

/* Every request reaches its handler through here: its connection is
 * answering, not waiting, until the reply is sent. */
static void guard_dispatch(struct evhttp_request *req, void *arg)
{
	struct guard_route *r = arg;
	struct guard_conn *c = conn_of(r->g, req);

	if (c) {
		c->busy = 1;
		evhttp_request_set_on_complete_cb(req, request_done, c);
	}
	r->cb(req, r->arg);
}

static void retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct league_http_guard *g = arg;

	g->backoff = 0;
	guard_listen_update(g);
}

static void accept_error_cb(struct evconnlistener *lev, void *arg)
{
	struct league_http_guard *g = arg;
	int e = EVUTIL_SOCKET_ERROR();
	struct timeval tv;

	g->accept_errors++;
	lg_log_limited(&g->lim_err, 10, LG_LOG_WARN, "http: accept: %s; "
		       "pausing the listener %g s (%zu connections open)",
		       strerror(e), GUARD_RETRY_S, g->nconns);
	g->backoff = 1;
	guard_listen_update(g);
	tv_of(&tv, GUARD_RETRY_S);
	event_add(g->retry_ev, &tv);
}

size_t league_fd_headroom(void)
{
	struct rlimit rl;
	size_t open_fds = 0;
	DIR *d;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	if ((d = opendir("/proc/self/fd"))) {
		struct dirent *de;
		while ((de = readdir(d)))
			open_fds += de->d_name[0] != '.';
		closedir(d);
	}
	return rl.rlim_cur > open_fds ? (size_t)rl.rlim_cur - open_fds : 0;
}

int league_http_guard_new(struct league_http_guard **out,
			  struct event_base *base, struct evhttp *http,
			  struct evhttp_bound_socket *h,
			  const struct league_http_guard_opts *o, char *err,
			  size_t errlen)
{
	struct league_http_guard *g = calloc(1, sizeof *g);
	size_t room = league_fd_headroom();
	struct timeval tv;

	*out = NULL;
	if (!g)
		return LG_ENOMEM;
	g->base = base;
	g->http = http;
	g->tls = o->tls;
	g->timeout_s = o->request_timeout_s > 0 ? o->request_timeout_s
						: LEAGUE_HTTP_REQUEST_TIMEOUT_S;
	/* half the descriptors left: the other half for workers, files */
	g->max_conns = o->max_conns ? o->max_conns : LEAGUE_HTTP_MAX_CONNS;
	if (room / 2 < g->max_conns)
		g->max_conns = room / 2 > 4 ? room / 2 : 4;
	g->lev = h ? evhttp_bound_socket_get_listener(h) : NULL;
	g->pickup_ev = event_new(base, -1, 0, pickup_cb, g);
	g->sweep_ev = event_new(base, -1, EV_PERSIST, sweep_cb, g);
	g->retry_ev = event_new(base, -1, 0, retry_cb, g);
	tv_of(&tv, LG_MIN(g->timeout_s / 4, 0.5));
	if (!g->pickup_ev || !g->sweep_ev || !g->retry_ev ||
	    event_add(g->sweep_ev, &tv)) {
		league_http_guard_free(g);
		lg_errf(err, errlen, "http: out of memory");
		return LG_ENOMEM;
	}
	if (g->lev)
		evconnlistener_set_error_cb(g->lev, accept_error_cb);
	evhttp_set_bevcb(http, guard_bev, g);
	*out = g;
	return 0;
}

int league_http_guard_route(struct league_http_guard *g, const char *path,
			    void (*cb)(struct evhttp_request *, void *),
			    void *arg)
{
	struct guard_route *r;

	if (g->nroutes == GUARD_MAX_ROUTES)
		return LG_EFULL;
	r = &g->routes[g->nroutes++];
	r->g = g;
	r->cb = cb;
	r->arg = arg;
	if (!path) {
		evhttp_set_gencb(g->http, guard_dispatch, r);
		return 0;
	}
	return evhttp_set_cb(g->http, path, guard_dispatch, r) ? LG_EINVAL : 0;
}

uint64_t league_http_guard_timeouts(const struct league_http_guard *g)
{
	return g ? g->timeouts : 0;
}

size_t league_http_guard_max_conns(const struct league_http_guard *g)
{
	return g ? g->max_conns : 0;
}

void league_http_guard_free(struct league_http_guard *g)
{
	if (!g)
		return;
	while (g->head) { /* evhttp_free closes them later: no callbacks */
		struct guard_conn *c = g->head;
		if (c->evcon)
			evhttp_connection_set_closecb(c->evcon, NULL, NULL);
		g->head = c->next;
		free(c);
	}
	if (g->lev)
		evconnlistener_set_error_cb(g->lev, NULL);
	if (g->http)
		evhttp_set_bevcb(g->http, NULL, NULL);
	net_event_free(g->pickup_ev);
	net_event_free(g->sweep_ev);
	net_event_free(g->retry_ev);
	free(g);
}

/* ---- helpers both HTTP servers share (server.h) ---- */

struct bufferevent *league_https_bev(struct event_base *base, void *tls)
{
	struct ssl_st *ssl = net_tls_ssl_new(tls);
	struct bufferevent *bev;

	if (!ssl)
		return NULL;
	bev = bufferevent_openssl_socket_new(base, -1, ssl,
					     BUFFEREVENT_SSL_ACCEPTING,
					     BEV_OPT_CLOSE_ON_FREE);
	if (bev)
		bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	return bev;
}

void league_http_reply(struct evhttp_request *req, const char *ctype,
		       const void *data, size_t len)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);

	evhttp_add_header(h, "Content-Type", ctype);
	evhttp_add_header(h, "Cache-Control", "no-store");
	evbuffer_add(evhttp_request_get_output_buffer(req), data, len);
	evhttp_send_reply(req, 200, "OK", NULL);
}

void league_http_reply_ref(struct evhttp_request *req, const char *ctype,
			   const void *data, size_t len,
			   void (*done)(const void *data, size_t len,
					void *arg),
			   void *arg)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);

	evhttp_add_header(h, "Content-Type", ctype);
	evhttp_add_header(h, "Cache-Control", "no-store");
	if (evbuffer_add_reference(evhttp_request_get_output_buffer(req), data,
				   len, done, arg)) {
		done(data, len, arg);
		evhttp_send_error(req, 500, "out of memory");
		return;
	}
	evhttp_send_reply(req, 200, "OK", NULL);
}

uint16_t league_http_bound_port(struct evhttp_bound_socket *h)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;

	if (getsockname(evhttp_bound_socket_get_fd(h), (struct sockaddr *)&ss,
			&sl))
		return 0;
	return ntohs(ss.ss_family == AF_INET6
			     ? ((struct sockaddr_in6 *)&ss)->sin6_port
			     : ((struct sockaddr_in *)&ss)->sin_port);
}
