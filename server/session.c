/*
 * server/session.c: the worker port's sessions (handshake, heartbeats,
 * drain, in-process sessions for tests, accept paused on EMFILE) and the
 * server's lifecycle, which opens both ports; http.c answers the HTTP
 * port. See server.h for the contract.
 */
#include "server/server_internal.h"
#include "util/list.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------------- */

int server_token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), n = la > lb ? la : lb;
	unsigned char diff = la != lb;

	/* Constant time in the longer length: no early exit on a mismatch. */
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)((i < la ? a[i] : 0) ^ (i < lb ? b[i] : 0));
	return diff == 0;
}

static void sanitize(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	for (; src && *src && o + 1 < len; src++)
		dst[o++] = (*src >= 0x20 && *src < 0x7f) ? *src : '?';
	dst[o] = 0;
}

/* ---- sessions --------------------------------------------------------- */

/* ss joins its server's list (newest first). */
static void session_link(league_session *ss)
{
	league_server *s = ss->srv;

	LG_LIST_PUSH(s->head, ss);
	s->nsessions++;
}

static void session_unlink(league_session *ss)
{
	league_server *s = ss->srv;

	LG_LIST_UNLINK(s->head, ss);
	s->nsessions--;
}

static void maybe_drained(league_server *s)
{
	void (*done)(void *) = s->drain_done;

	if (!s->draining || !done)
		return;
	if (s->nsessions && lg_now_s() < s->drain_deadline)
		return;
	s->drain_done = NULL;
	done(s->drain_arg);
}

static void session_free(league_session *ss)
{
	if (ss->mem_close)
		event_free(ss->mem_close);
	lg_buf_free(&ss->mem);
	free(ss);
}

/* The session is gone (its connection closed, or a memory session was
 * closed): the league hears of it once. */
static void session_gone(league_session *ss, const char *why)
{
	league_server *s = ss->srv;
	int was_ready = ss->role != 0 && ss->state != SS_HELLO;

	LG_DEBUG("server: session %llu (%s) closed: %s",
		 (unsigned long long)ss->id, ss->name, why);
	if (!was_ready && why && !strncmp(why, "TLS: ", 5)) {
		/* A refused handshake: no certificate, another CA's, an
		 * expired one, or not TLS at all. */
		s->tls_failures++;
		LG_WARN("server: %s: refused: %s", league_session_peer(ss),
			why);
	}
	session_unlink(ss);
	if (was_ready) {
		s->nready--;
		if (s->ops.on_close)
			s->ops.on_close(s->ops.ctx, ss, why);
	}
	session_free(ss);
	maybe_drained(s);
}

static void conn_closed(net_conn *c, const char *why, void *arg)
{
	session_gone(arg, why);
}

static void mem_closed(evutil_socket_t fd, short what, void *arg)
{
	league_session *ss = arg;

	session_gone(ss, ss->mem_why);
}

static void send_hello_reply(league_session *ss, int status, const char *error)
{
	league_server *s = ss->srv;
	League__HelloReply r = LEAGUE__HELLO_REPLY__INIT;

	r.heartbeat_s = s->o.heartbeat_s;
	r.league = s->league;
	r.env = s->env;
	net_conn_hello_reply(ss->conn, &r, status, error, ss->id);
}

static void refuse(league_session *ss, int status, const char *error)
{
	send_hello_reply(ss, status, error);
	ss->state = SS_CLOSING;
	net_conn_close(ss->conn, error, 1);
}

static void handle_hello(league_session *ss, net_msg *m)
{
	league_server *s = ss->srv;
	League__Hello *h;

	if (m->body_case != LEAGUE__ENVELOPE__BODY_HELLO) {
		LG_WARN("server: %s: closing: %s before hello",
			net_conn_peer(ss->conn), net_msg_name(m));
		s->protocol_errors++;
		ss->state = SS_CLOSING;
		net_conn_close(ss->conn, "protocol error: expected hello", 0);
		return;
	}
	h = m->hello;
	sanitize(ss->name, sizeof ss->name, h->name);
	if (h->protocol_version != LEAGUE__CONST__PROTOCOL_VERSION) {
		char why[96];
		snprintf(why, sizeof why, "protocol version %u, daemon speaks %d",
			 h->protocol_version, LEAGUE__CONST__PROTOCOL_VERSION);
		LG_WARN("server: %s: %s", net_conn_peer(ss->conn), why);
		refuse(ss, LEAGUE__STATUS__STATUS_VERSION, why);
		return;
	}
	if (s->token[0] &&
	    !server_token_equal(s->token, h->token ? h->token : "")) {
		LG_WARN("server: %s (%s): authentication failed",
			net_conn_peer(ss->conn), ss->name);
		s->auth_failures++;
		refuse(ss, LEAGUE__STATUS__STATUS_AUTH, "wrong token");
		return;
	}
	if (h->role == LEAGUE__ROLE__ROLE_UNKNOWN ||
	    h->role > LEAGUE__ROLE__ROLE_INSPECTOR) {
		refuse(ss, LEAGUE__STATUS__STATUS_BAD_REQUEST, "unknown role");
		return;
	}
	if (s->draining) {
		refuse(ss, LEAGUE__STATUS__STATUS_SHUTTING_DOWN, "shutting down");
		return;
	}
	ss->role = h->role;
	if (ss->conn)
		net_conn_peer_cert(ss->conn, ss->cert, sizeof ss->cert);
	ss->state = SS_READY;
	s->nready++;
	send_hello_reply(ss, LEAGUE__STATUS__STATUS_OK, NULL);
	LG_INFO("server: session %llu: %s %s from %s%s%s",
		(unsigned long long)ss->id,
		h->role == LEAGUE__ROLE__ROLE_COLLECTOR ? "collector"
		: h->role == LEAGUE__ROLE__ROLE_LEARNER ? "learner"
							: "inspector",
		ss->name, net_conn_peer(ss->conn),
		ss->cert[0] ? ", certificate " : "", ss->cert);
}

static void conn_msg(net_conn *c, net_msg *m, void *arg)
{
	league_session *ss = arg;
	league_server *s = ss->srv;

	ss->last_seen = lg_now_s();
	ss->msgs++;
	switch (ss->state) {
	case SS_HELLO:
		handle_hello(ss, m);
		net_msg_free(m);
		return;
	case SS_CLOSING:
		net_msg_free(m);
		return;
	case SS_READY:
		break;
	}
	if (m->body_case == LEAGUE__ENVELOPE__BODY_HEARTBEAT) {
		/* Echo, so the worker also knows the daemon is alive. */
		net_msg r = LEAGUE__ENVELOPE__INIT;
		League__Heartbeat hb = LEAGUE__HEARTBEAT__INIT;
		hb.sent_us = m->heartbeat->sent_us;
		r.reply_to = m->seq;
		r.body_case = LEAGUE__ENVELOPE__BODY_HEARTBEAT;
		r.heartbeat = &hb;
		net_conn_send(c, &r);
		net_msg_free(m);
		return;
	}
	if (m->body_case == LEAGUE__ENVELOPE__BODY_HELLO) {
		net_msg_free(m);
		s->protocol_errors++;
		league_session_close(ss, "protocol error: second hello");
		return;
	}
	if (s->ops.on_msg)
		s->ops.on_msg(s->ops.ctx, ss, m);
	else
		net_msg_free(m);
}

/* The worker port's accept failed with e. Out of descriptors or memory:
 * stop listening for a moment instead of spinning on a listener that stays
 * readable, and warn once per 10 s with the count. */
static void accept_failed(league_server *s, int e)
{
	struct timeval tv = { 0, 500000 };

	if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR ||
	    e == ECONNABORTED)
		return;
	s->accept_errors++;
	lg_log_limited(&s->accept_lim, 10, LG_LOG_WARN, "server: accept on "
		       "the worker port: %s; pausing it 0.5 s (%zu sessions)",
		       strerror(e), s->nsessions);
	event_del(s->accept_ev);
	event_add(s->retry_ev, &tv);
}

static void accept_retry(evutil_socket_t fd, short what, void *arg)
{
	league_server *s = arg;

	event_add(s->accept_ev, NULL);
}

static void accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	league_server *s = arg;
	struct net_conn_cbs cbs = { conn_msg, conn_closed };

	/* Bounded work per wake-up: at most 64 accepts. */
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage ss_addr;
		socklen_t sl = sizeof ss_addr;
		char host[64] = "?", peer[80];
		int fd = accept4(lfd, (struct sockaddr *)&ss_addr, &sl,
				 SOCK_CLOEXEC);
		league_session *ss;

		if (fd < 0) {
			accept_failed(s, errno);
			return;
		}
		if (s->draining) {
			close(fd);
			continue;
		}
		if (ss_addr.ss_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)&ss_addr)->sin_addr,
				  host, sizeof host);
		else if (ss_addr.ss_family == AF_INET6)
			inet_ntop(AF_INET6,
				  &((struct sockaddr_in6 *)&ss_addr)->sin6_addr,
				  host, sizeof host);
		snprintf(peer, sizeof peer, "%s:%u", host,
			 ss_addr.ss_family == AF_INET
				 ? ntohs(((struct sockaddr_in *)&ss_addr)->sin_port)
				 : ntohs(((struct sockaddr_in6 *)&ss_addr)->sin6_port));
		ss = calloc(1, sizeof *ss);
		if (!ss) {
			close(fd);
			continue;
		}
		ss->srv = s;
		ss->id = ++s->next_id;
		ss->state = SS_HELLO;
		ss->connected_at = ss->last_seen = lg_now_s();
		snprintf(ss->name, sizeof ss->name, "?");
		if (net_conn_new_tls(&ss->conn, s->base, fd, s->o.tls,
				     s->o.max_frame, &cbs, ss, peer)) {
			free(ss);
			continue;
		}
		session_link(ss);
		s->accepted++;
	}
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	league_server *s = arg;
	double now = lg_now_s();

	for (league_session *ss = s->head; ss; ss = ss->next) {
		if (ss->state == SS_HELLO &&
		    now - ss->connected_at > s->o.hello_timeout_s) {
			s->timeouts++;
			ss->state = SS_CLOSING;
			net_conn_close(ss->conn, "hello timeout", 0);
		} else if (ss->state == SS_READY && ss->conn &&
			   now - ss->last_seen >
				   NET_SILENT_HEARTBEATS * s->o.heartbeat_s) {
			LG_WARN("server: session %llu (%s): heartbeat timeout",
				(unsigned long long)ss->id, ss->name);
			s->timeouts++;
			league_session_close(ss, "heartbeat timeout");
		}
	}
	maybe_drained(s);
}


/* ---- lifecycle -------------------------------------------------------- */

static int write_ports(league_server *s, char *err, size_t errlen)
{
	char tmp[600];
	FILE *f;

	if (!s->ports_file[0])
		return 0;
	snprintf(tmp, sizeof tmp, "%s.tmp", s->ports_file);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "port %u\nhttp_port %u\npid %ld\n%s", s->port,
			  s->http_port, (long)getpid(),
			  s->o.ports_extra ? s->o.ports_extra : "") < 0 ||
	    fclose(f) || rename(tmp, s->ports_file)) {
		lg_errf(err, errlen, "%s: cannot write: %s", s->ports_file,
			strerror(errno));
		return LG_EIO;
	}
	return 0;
}

int league_server_new(league_server **out, struct event_base *base,
		      const struct league_server_opts *opts,
		      const struct league_server_ops *ops, char *err,
		      size_t errlen)
{
	league_server *s;
	int rc;

	*out = NULL;
	if (!opts->listen || !(opts->heartbeat_s > 0)) {
		lg_errf(err, errlen, "server: listen address and heartbeat "
			"needed");
		return LG_EINVAL;
	}
	if (!lg_is_loopback(opts->listen) && !(opts->token && *opts->token)) {
		lg_errf(err, errlen, "server: listening on %s needs a token",
			opts->listen);
		return LG_EINVAL;
	}
	if (!lg_is_loopback(opts->listen) && !opts->tls && !opts->insecure) {
		lg_errf(err, errlen, "server: listening on %s without TLS "
			"needs server.insecure: true", opts->listen);
		return LG_EINVAL;
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return LG_ENOMEM;
	s->base = base;
	s->o = *opts;
	s->ops = *ops;
	s->lfd = -1;
	s->started = lg_now_s();
	snprintf(s->listen, sizeof s->listen, "%s", opts->listen);
	snprintf(s->token, sizeof s->token, "%s", opts->token ? opts->token : "");
	s->http_open = lg_is_loopback(opts->listen);
	if (!s->http_open) {
		uint8_t r[16];
		if (lg_random_bytes(r, sizeof r)) {
			lg_errf(err, errlen, "server: no random bytes for the "
				"login code");
			free(s);
			return LG_EIO;
		}
		for (size_t i = 0; i < sizeof r; i++)
			snprintf(s->login_code + 2 * i, 3, "%02x", r[i]);
	}
	snprintf(s->league, sizeof s->league, "%s",
		 opts->league_name ? opts->league_name : "");
	snprintf(s->env, sizeof s->env, "%s", opts->env_name ? opts->env_name : "");
	snprintf(s->ports_file, sizeof s->ports_file, "%s",
		 opts->ports_file ? opts->ports_file : "");
	if (!(s->o.hello_timeout_s > 0))
		s->o.hello_timeout_s = 5;
	if (!s->o.max_frame)
		s->o.max_frame = NET_DEFAULT_MAX_FRAME;

	if ((rc = net_listen_tcp(s->listen, opts->port, &s->lfd, &s->port, err,
				 errlen)))
		goto fail;
	evutil_make_socket_nonblocking(s->lfd);
	s->accept_ev = event_new(base, s->lfd, EV_READ | EV_PERSIST, accept_cb, s);
	s->tick_ev = event_new(base, -1, EV_PERSIST, tick_cb, s);
	s->retry_ev = event_new(base, -1, 0, accept_retry, s);
	if (!s->accept_ev || !s->tick_ev || !s->retry_ev) {
		rc = LG_ENOMEM;
		goto fail;
	}
	double t = LG_MIN(s->o.heartbeat_s / 2, 0.5);
	struct timeval tv = { (time_t)t, (suseconds_t)((t - (time_t)t) * 1e6) };
	event_add(s->accept_ev, NULL);
	event_add(s->tick_ev, &tv);

	if (!opts->no_http) {
		struct evhttp_bound_socket *h;
		s->http = evhttp_new(base);
		if (!s->http ||
		    !(h = evhttp_bind_socket_with_handle(s->http, s->listen,
							 opts->http_port))) {
			lg_errf(err, errlen, "HTTP listen on %s:%u failed",
				s->listen, opts->http_port);
			rc = LG_EIO;
			goto fail;
		}
		s->http_port = league_http_bound_port(h);
		if ((rc = server_http_setup(s, h, err, errlen)))
			goto fail;
	}
	if ((rc = write_ports(s, err, errlen)))
		goto fail;
	*out = s;
	return 0;
fail:
	league_server_free(s);
	return rc;
}

void league_server_free(league_server *s)
{
	if (!s)
		return;
	while (s->head) {
		league_session *ss = s->head;
		session_unlink(ss);
		if (ss->conn)
			net_conn_free(ss->conn);
		session_free(ss);
	}
	league_http_guard_free(s->guard); /* before evhttp_free */
	if (s->http)
		evhttp_free(s->http);
	net_event_free(s->retry_ev);
	net_event_free(s->accept_ev);
	net_event_free(s->tick_ev);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s);
}

uint16_t league_server_port(const league_server *s)
{
	return s->port;
}

uint16_t league_server_http_port(const league_server *s)
{
	return s->http_port;
}

size_t league_server_sessions(const league_server *s)
{
	return s->nready;
}

void league_server_shutdown(league_server *s, const char *reason,
			    double grace_s, void (*done)(void *arg), void *arg)
{
	net_msg m = LEAGUE__ENVELOPE__INIT;
	League__Shutdown sd = LEAGUE__SHUTDOWN__INIT;

	s->draining = 1;
	s->drain_deadline = lg_now_s() + grace_s;
	s->drain_done = done;
	s->drain_arg = arg;
	snprintf(s->drain_reason, sizeof s->drain_reason, "%s",
		 reason ? reason : "shutdown");
	event_del(s->accept_ev);
	sd.reason = s->drain_reason;
	m.body_case = LEAGUE__ENVELOPE__BODY_SHUTDOWN;
	m.shutdown = &sd;
	for (league_session *ss = s->head; ss; ss = ss->next) {
		if (ss->state == SS_READY)
			league_session_send(ss, &m);
		ss->state = ss->state == SS_READY ? SS_READY : SS_CLOSING;
		if (ss->conn)
			net_conn_close(ss->conn, s->drain_reason, 1);
		else
			league_session_close(ss, s->drain_reason);
	}
	/* The tick notices when the last session is gone. */
}

int league_session_send(league_session *ss, const net_msg *m)
{
	if (!ss->conn)
		return net_frame_encode(m, &ss->mem);
	return net_conn_send(ss->conn, m);
}

int league_session_send_frame(league_session *ss, const void *frame,
			      size_t len)
{
	if (!ss->conn)
		return lg_buf_append(&ss->mem, frame, len);
	return net_conn_send_frame(ss->conn, frame, len);
}

void league_session_close(league_session *ss, const char *why)
{
	if (ss->conn) {
		net_conn_close(ss->conn, why, 0);
		return;
	}
	if (ss->state == SS_CLOSING)
		return;
	ss->state = SS_CLOSING;
	snprintf(ss->mem_why, sizeof ss->mem_why, "%s", why);
	event_active(ss->mem_close, EV_TIMEOUT, 0);
}

/* ---- in-process sessions --------------------------------------------- */

league_session *league_server_attach(league_server *s, int role,
				     const char *name)
{
	league_session *ss = calloc(1, sizeof *ss);

	if (!ss)
		return NULL;
	if (!(ss->mem_close = event_new(s->base, -1, 0, mem_closed, ss))) {
		free(ss);
		return NULL;
	}
	ss->srv = s;
	ss->id = ++s->next_id;
	ss->state = SS_READY;
	ss->role = role;
	sanitize(ss->name, sizeof ss->name, name);
	ss->connected_at = ss->last_seen = lg_now_s();
	session_link(ss);
	s->nready++;
	return ss;
}

void league_session_feed(league_session *ss, net_msg *m)
{
	league_server *s = ss->srv;

	ss->last_seen = lg_now_s();
	ss->msgs++;
	if (ss->state != SS_READY || !s->ops.on_msg)
		net_msg_free(m);
	else
		s->ops.on_msg(s->ops.ctx, ss, m);
}

int league_session_take(league_session *ss, net_msg **m)
{
	size_t used;
	char err[160];
	int rc;

	*m = NULL;
	if (ss->conn || ss->mem_off == ss->mem.len)
		return LG_ENOTFOUND;
	rc = net_frame_decode(ss->mem.data + ss->mem_off,
			      ss->mem.len - ss->mem_off, SIZE_MAX, m, &used,
			      err, sizeof err);
	if (rc)
		return rc == 1 ? LG_EPROTO : rc;
	ss->mem_off += used;
	if (ss->mem_off == ss->mem.len)
		ss->mem_off = ss->mem.len = 0;
	return 0;
}

uint64_t league_session_id(const league_session *ss)
{
	return ss->id;
}

int league_session_role(const league_session *ss)
{
	return ss->role;
}

const char *league_session_name(const league_session *ss)
{
	return ss->name;
}

const char *league_session_peer(const league_session *ss)
{
	return ss->conn ? net_conn_peer(ss->conn) : "memory";
}

void league_session_set_data(league_session *ss, void *data)
{
	ss->data = data;
}

void *league_session_data(const league_session *ss)
{
	return ss->data;
}

const char *league_server_login_code(const league_server *s)
{
	return s->login_code;
}

