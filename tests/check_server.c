/* tests/check_server.c: the daemon's session layer over real sockets:
 * handshake, token and version checks, heartbeat timeouts, HTTP /status,
 * drain on shutdown. The parent runs the event loop; forked children are
 * the workers and report through their exit status. */
#include <check.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server/server.h"
#include "tests/proto.h"
#include "tests/testutil.h"

struct fixture {
	struct event_base *base;
	league_server *srv;
	int msgs, closes, drained;
	char last_close[128];
};

static void on_msg(void *ctx, league_session *ss, net_msg *m)
{
	struct fixture *f = ctx;

	f->msgs++;
	tp_session_ack(ss, m);
}

static void on_close(void *ctx, league_session *ss, const char *why)
{
	struct fixture *f = ctx;

	f->closes++;
	snprintf(f->last_close, sizeof f->last_close, "%s", why);
}

static int status_extra(void *ctx, lg_buf *out)
{
	return lg_buf_printf(out, ", \"players\": 3");
}

static int payoff_json(void *ctx, lg_buf *out)
{
	return lg_buf_printf(out, "{\"players\": [\"1\", \"2\"], "
			     "\"win_rate\": [[0.5, 0.75], [0.25, 0.5]], "
			     "\"games\": [[0, 8], [8, 0]]}");
}

static void start_on(struct fixture *f, const char *token, double hb,
		     const char *ports, uint16_t port)
{
	struct league_server_opts o = {
		.listen = "127.0.0.1", .port = port, .token = token,
		.heartbeat_s = hb,
		.league_name = "test-league", .env_name = "rps",
		.ports_file = ports, .hello_timeout_s = 1,
	};
	struct league_server_ops ops = { f, on_msg, on_close, status_extra,
					 payoff_json, NULL, NULL, NULL, NULL,
					 NULL, NULL, NULL };
	char err[256];

	memset(f, 0, sizeof *f);
	f->base = event_base_new();
	ck_assert_msg(league_server_new(&f->srv, f->base, &o, &ops, err,
					sizeof err) == 0, "%s", err);
}

static void start(struct fixture *f, const char *token, double hb,
		  const char *ports)
{
	start_on(f, token, hb, ports, 0);
}

static void stop(struct fixture *f)
{
	league_server_free(f->srv);
	event_base_free(f->base);
}

static int serve_until_exit(struct fixture *f, pid_t pid)
{
	struct timeval tick = { 0, 2000 };
	double deadline = lg_now_s() + 20;
	int status;

	for (;;) {
		event_base_loopexit(f->base, &tick);
		event_base_dispatch(f->base);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		ck_assert_msg(lg_now_s() < deadline, "worker hung");
	}
	for (int i = 0; i < 5; i++) {
		event_base_loopexit(f->base, &tick);
		event_base_dispatch(f->base);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

/* Run worker(port of f's server) in a child process while f's server
 * serves: the child's exit status (serve_until_exit). */
static int serve_worker(struct fixture *f, int (*worker)(uint16_t port))
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(worker(league_server_port(f->srv)));
	return serve_until_exit(f, pid);
}

/* Worker side (in the child): connect and say hello. Returns the fd and
 * the status the daemon answered. */
static int hello(uint16_t port, const char *token, uint32_t version,
		 int *status, double *hb)
{
	net_msg m = LEAGUE__ENVELOPE__INIT, *r;
	League__Hello h = LEAGUE__HELLO__INIT;
	int fd;

	if (net_connect_tcp("127.0.0.1", port, &fd, NULL, 0))
		_exit(90);
	h.protocol_version = version;
	h.token = (char *)(uintptr_t)token;
	h.role = LEAGUE__ROLE__ROLE_COLLECTOR;
	h.name = (char *)"worker\n\x01"; /* sanitized by the daemon */
	m.body_case = LEAGUE__ENVELOPE__BODY_HELLO;
	m.hello = &h;
	if (net_send_blocking(fd, &m))
		_exit(91);
	if (net_recv_blocking(fd, 1 << 20, 5, &r, NULL, 0))
		_exit(92);
	if (r->body_case != LEAGUE__ENVELOPE__BODY_HELLO_REPLY)
		_exit(93);
	*status = r->hello_reply->status;
	if (hb)
		*hb = r->hello_reply->heartbeat_s;
	net_msg_free(r);
	return fd;
}

static int closed_by_peer(int fd)
{
	net_msg *r;
	int rc;

	/* Anything still queued (e.g. Shutdown) first, then EOF. */
	while ((rc = net_recv_blocking(fd, 1 << 20, 5, &r, NULL, 0)) == 0)
		net_msg_free(r);
	return rc == LG_ECLOSED;
}

/* The worker side: hello, then ten job requests each acked by its seq; 0
 * when all held. */
static int handshake_worker(uint16_t port)
{
	int st;
	double hb;
	int fd = hello(port, "sekrit", 1, &st, &hb);
	if (st != LEAGUE__STATUS__STATUS_OK || hb != 5)
		return 1;
	for (uint64_t i = 1; i <= 10; i++) {
		net_msg m = LEAGUE__ENVELOPE__INIT, *r;
		League__JobRequest jr = LEAGUE__JOB_REQUEST__INIT;
		m.seq = i;
		m.body_case = LEAGUE__ENVELOPE__BODY_JOB_REQUEST;
		m.job_request = &jr;
		if (net_send_blocking(fd, &m) ||
		    net_recv_blocking(fd, 1 << 20, 5, &r, NULL, 0))
			return 2;
		if (r->body_case != LEAGUE__ENVELOPE__BODY_ACK ||
		    r->ack->id != i)
			return 3;
		net_msg_free(r);
	}
	return 0;
}

START_TEST(handshake_then_messages_flow)
{
	struct fixture f;

	start(&f, "sekrit", 5, NULL);
	ck_assert_int_eq(serve_worker(&f, handshake_worker), 0);
	ck_assert_int_eq(f.msgs, 10);
	ck_assert_int_eq(f.closes, 1); /* the worker went away */
	ck_assert_str_eq(f.last_close, "peer closed");
	stop(&f);
}
END_TEST

/* The worker side: wrong tokens, a wrong version and a first message that
 * is not hello, each refused and closed; 0 when all were. */
static int refused_worker(uint16_t port)
{
	int st;
	int fd = hello(port, "guess", 1, &st, NULL);
	if (st != LEAGUE__STATUS__STATUS_AUTH || !closed_by_peer(fd))
		return 1;
	fd = hello(port, "", 1, &st, NULL);
	if (st != LEAGUE__STATUS__STATUS_AUTH || !closed_by_peer(fd))
		return 2;
	fd = hello(port, "sekritX", 1, &st, NULL);
	if (st != LEAGUE__STATUS__STATUS_AUTH || !closed_by_peer(fd))
		return 3;
	fd = hello(port, "sekrit", 2, &st, NULL);
	if (st != LEAGUE__STATUS__STATUS_VERSION || !closed_by_peer(fd))
		return 4;
	/* Anything but hello first: closed without a reply. */
	net_msg m = LEAGUE__ENVELOPE__INIT;
	League__JobRequest jr = LEAGUE__JOB_REQUEST__INIT;
	if (net_connect_tcp("127.0.0.1", port, &fd, NULL, 0))
		return 5;
	m.body_case = LEAGUE__ENVELOPE__BODY_JOB_REQUEST;
	m.job_request = &jr;
	if (net_send_blocking(fd, &m) || !closed_by_peer(fd))
		return 6;
	return 0;
}

START_TEST(wrong_token_and_version_refused)
{
	struct fixture f;

	start(&f, "sekrit", 5, NULL);
	ck_assert_int_eq(serve_worker(&f, refused_worker), 0);
	ck_assert_int_eq(f.msgs, 0);   /* nothing reached the league */
	ck_assert_int_eq(f.closes, 0); /* no session was ever ready */
	stop(&f);
}
END_TEST

/* The worker side: hello, then silence until the daemon closes (within 2
 * s); 0 when it did. */
static int silent_worker(uint16_t port)
{
	int st;
	int fd = hello(port, "", 1, &st, NULL);
	if (st != LEAGUE__STATUS__STATUS_OK)
		return 1;
	/* Say nothing: within 3 heartbeats (0.15 s) plus a tick the
	 * daemon drops us. */
	double t0 = lg_now_s();
	if (!closed_by_peer(fd))
		return 2;
	return lg_now_s() - t0 < 2 ? 0 : 3;
}

START_TEST(silent_worker_times_out)
{
	struct fixture f;

	start(&f, NULL, 0.05, NULL);
	ck_assert_int_eq(serve_worker(&f, silent_worker), 0);
	ck_assert_int_eq(f.closes, 1);
	ck_assert_str_eq(f.last_close, "heartbeat timeout");
	stop(&f);
}
END_TEST

START_TEST(http_status_reports_sessions)
{
	struct fixture f;
	pid_t pid;
	char dir[128], ports[256];

	tu_mkdtemp(dir, sizeof dir);
	snprintf(ports, sizeof ports, "%s/ports", dir);
	start(&f, NULL, 5, ports);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char body[1 << 15]; /* the page's files are each below it */
		int st;
		int fd = hello(league_server_port(f.srv), "", 1, &st, NULL);
		if (net_http_get(league_server_http_port(f.srv), "/status", 5, body,
			     sizeof body))
			_exit(1);
		if (!strstr(body, "200 OK") || !strstr(body, "application/json") ||
		    !strstr(body, "\"league\": \"test-league\"") ||
		    !strstr(body, "\"state\": \"ready\"") ||
		    !strstr(body, "\"name\": \"worker??\"") ||
		    !strstr(body, "\"players\": 3"))
			_exit(2);
		if (net_http_get(league_server_http_port(f.srv), "/nope", 5, body,
			     sizeof body) || !strstr(body, "404"))
			_exit(3);
		/* The live page and the matrix it polls. */
		if (net_http_get(league_server_http_port(f.srv), "/", 5, body,
			     sizeof body) || !strstr(body, "200 OK") ||
		    !strstr(body, "text/html") ||
		    !strstr(body, "<script src=\"/app.js\">"))
			_exit(4);
		/* its files, embedded at build time, each with its type */
		if (net_http_get(league_server_http_port(f.srv), "/app.js", 5,
				 body, sizeof body) || !strstr(body, "200 OK") ||
		    !strstr(body, "Content-Type: text/javascript") ||
		    !strstr(body, "json(atURL(\"/payoff\"))"))
			_exit(7);
		if (net_http_get(league_server_http_port(f.srv),
				 "/style.css?v=1", 5, body, sizeof body) ||
		    !strstr(body, "200 OK") ||
		    !strstr(body, "Content-Type: text/css"))
			_exit(8);
		if (net_http_get(league_server_http_port(f.srv), "/payoff", 5, body,
			     sizeof body) || !strstr(body, "200 OK") ||
		    !strstr(body, "\"win_rate\": [[0.5, 0.75]"))
			_exit(5);
		/* Without league metrics, the server's own. */
		if (net_http_get(league_server_http_port(f.srv), "/metrics", 5,
				 body, sizeof body) ||
		    !strstr(body, "200 OK") ||
		    !strstr(body, "# TYPE league_sessions gauge\n"
				  "league_sessions 1\n"))
			_exit(6);
		close(fd);
		_exit(0);
	}
	ck_assert_int_eq(serve_until_exit(&f, pid), 0);
	/* The ports file names both ports for local workers. */
	FILE *pf = fopen(ports, "r");
	unsigned p = 0, hp = 0;
	ck_assert_ptr_nonnull(pf);
	ck_assert_int_eq(fscanf(pf, "port %u\nhttp_port %u", &p, &hp), 2);
	fclose(pf);
	ck_assert_uint_eq(p, league_server_port(f.srv));
	ck_assert_uint_eq(hp, league_server_http_port(f.srv));
	stop(&f);
	tu_rmrf(dir);
}
END_TEST

static void drained(void *arg)
{
	((struct fixture *)arg)->drained = 1;
}

START_TEST(shutdown_tells_workers_and_drains)
{
	struct fixture f;
	pid_t pid;

	start(&f, NULL, 5, NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int st;
		net_msg *r;
		int fd = hello(league_server_port(f.srv), "", 1, &st, NULL);
		if (net_recv_blocking(fd, 1 << 20, 5, &r, NULL, 0))
			_exit(2);
		if (r->body_case != LEAGUE__ENVELOPE__BODY_SHUTDOWN ||
		    strcmp(r->shutdown->reason, "test over"))
			_exit(3);
		net_msg_free(r);
		_exit(closed_by_peer(fd) ? 0 : 4);
	}
	struct timeval tick = { 0, 2000 };
	double deadline = lg_now_s() + 10;
	while (league_server_sessions(f.srv) < 1) {
		ck_assert(lg_now_s() < deadline);
		event_base_loopexit(f.base, &tick);
		event_base_dispatch(f.base);
	}
	league_server_shutdown(f.srv, "test over", 5, drained, &f);
	ck_assert_int_eq(serve_until_exit(&f, pid), 0);
	ck_assert(f.drained);
	stop(&f);
}
END_TEST

START_TEST(beyond_loopback_needs_token)
{
	struct league_server_opts o = { .listen = "0.0.0.0", .heartbeat_s = 1 };
	struct league_server_ops ops = { 0 };
	struct event_base *base = event_base_new();
	league_server *s;
	char err[256] = "";

	ck_assert_int_eq(league_server_new(&s, base, &o, &ops, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "needs a token"));
	event_base_free(base);
}
END_TEST

/* The Cookie header's parser: the named value, wherever it stands, never
 * a near name, never truncated. */
START_TEST(cookie_values)
{
	char v[8];

	ck_assert_int_eq(lg_cookie_value("a=1; league_token=xy ; b=2",
					 "league_token", v, sizeof v), 1);
	ck_assert_str_eq(v, "xy");
	ck_assert_int_eq(lg_cookie_value("league_tokenx=1;league_token =2",
					 "league_token", v, sizeof v), 0);
	ck_assert_int_eq(lg_cookie_value("league_token=12345678",
					 "league_token", v, sizeof v), 0);
	ck_assert_int_eq(lg_cookie_value("league_token=1234567",
					 "league_token", v, sizeof v), 1);
	ck_assert_int_eq(lg_cookie_value("league_token=", "league_token", v,
					 sizeof v), 1);
	ck_assert_str_eq(v, "");
	ck_assert_int_eq(lg_cookie_value("", "league_token", v, sizeof v), 0);
}
END_TEST

/* Beyond loopback every HTTP endpoint wants the token: as a bearer
 * header, or as the cookie the one-time login link sets. */
START_TEST(http_beyond_loopback_needs_the_token)
{
	struct league_server_opts o = {
		.listen = "0.0.0.0", .token = "s3cret", .heartbeat_s = 5,
		.insecure = 1, /* the token, not TLS, is tested here */
		.league_name = "t", .env_name = "rps", .hello_timeout_s = 1,
	};
	struct fixture f;
	struct league_server_ops ops = { &f, on_msg, on_close, status_extra,
					 payoff_json, NULL, NULL, NULL, NULL,
					 NULL, NULL, NULL };
	char err[256], code[64];
	pid_t pid;

	memset(&f, 0, sizeof f);
	f.base = event_base_new();
	ck_assert_msg(league_server_new(&f.srv, f.base, &o, &ops, err,
					sizeof err) == 0, "%s", err);
	snprintf(code, sizeof code, "%s", league_server_login_code(f.srv));
	ck_assert_uint_eq(strlen(code), 32);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uint16_t hp = league_server_http_port(f.srv);
		char body[8192], path[128];
		static const char *const paths[] = { "/", "/status", "/payoff",
						     "/metrics" };
		for (int i = 0; i < 4; i++) {
			if (net_http_get(hp, paths[i], 5, body, sizeof body) ||
			    !strstr(body, " 401 ") ||
			    !strstr(body, "WWW-Authenticate: Bearer")) {
				fprintf(stderr, "%s: %s\n", paths[i], body);
				_exit(10 + i);
			}
			if (net_http_get_hdr(hp, paths[i], "Authorization: Bearer "
					     "s3cre\r\n", 5, body, sizeof body) ||
			    !strstr(body, " 401 "))
				_exit(20 + i);
			if (net_http_get_hdr(hp, paths[i], "Authorization: Bearer "
					     "s3cret\r\n", 5, body, sizeof body) ||
			    !strstr(body, " 200 "))
				_exit(30 + i);
		}
		if (net_http_get(hp, "/login?code=00", 5, body, sizeof body) ||
		    !strstr(body, " 403 "))
			_exit(40);
		snprintf(path, sizeof path, "/login?code=%s", code);
		if (net_http_get(hp, path, 5, body, sizeof body) ||
		    !strstr(body, " 303 ") ||
		    !strstr(body, "Set-Cookie: league_token=s3cret;") ||
		    !strstr(body, "HttpOnly") || !strstr(body, "Location: /"))
			_exit(41);
		if (net_http_get(hp, path, 5, body, sizeof body) ||
		    !strstr(body, " 403 ")) /* once */
			_exit(42);
		if (net_http_get_hdr(hp, "/status", "Cookie: a=b; league_token="
				     "s3cret\r\n", 5, body, sizeof body) ||
		    !strstr(body, " 200 "))
			_exit(43);
		if (net_http_get_hdr(hp, "/status", "Cookie: league_token=s3cre"
				     "\r\n", 5, body, sizeof body) ||
		    !strstr(body, " 401 "))
			_exit(44);
		_exit(0);
	}
	ck_assert_int_eq(serve_until_exit(&f, pid), 0);
	ck_assert_str_eq(league_server_login_code(f.srv), ""); /* used */
	league_server_free(f.srv);
	event_base_free(f.base);
}
END_TEST

/* ---- the worker-side client ------------------------------------------- */

static int client_job_request(net_client *c, uint64_t *id)
{
	net_msg m = LEAGUE__ENVELOPE__INIT, *r;
	League__JobRequest jr = LEAGUE__JOB_REQUEST__INIT;
	int rc;

	m.body_case = LEAGUE__ENVELOPE__BODY_JOB_REQUEST;
	m.job_request = &jr;
	if ((rc = net_client_call(c, &m, &r, 5, NULL, 0)))
		return rc;
	rc = r->body_case == LEAGUE__ENVELOPE__BODY_ACK && r->ack->id == m.seq
		     ? 0 : LG_EPROTO;
	if (id)
		*id = r->ack->id;
	net_msg_free(r);
	return rc;
}

/* The worker side: a net_client busy for 1 s between its hello and its job
 * request; 0 when both went through. */
static int busy_worker(uint16_t port)
{
	struct net_client_opts o = { .port = port,
				     .token = "tok", .name = "busy",
				     .role = LEAGUE__ROLE__ROLE_LEARNER };
	net_client *c;
	if (net_client_connect(&c, &o, NULL, 0))
		return 1;
	if (strcmp(net_client_league(c), "test-league") ||
	    strcmp(net_client_env(c), "rps"))
		return 2;
	lg_sleep_s(1.0); /* "training" */
	if (client_job_request(c, NULL))
		return 3;
	net_client_close(c);
	return 0;
}

START_TEST(client_stays_alive_while_busy)
{
	/* Heartbeat 0.1 s: without the client's heartbeat thread a worker
	 * busy for 1 s would be dropped after 0.3 s. */
	struct fixture f;

	start(&f, "tok", 0.1, NULL);
	ck_assert_int_eq(serve_worker(&f, busy_worker), 0);
	ck_assert_int_eq(f.msgs, 1);
	ck_assert_str_eq(f.last_close, "peer closed"); /* not a timeout */
	stop(&f);
}
END_TEST

/* The worker side: a net_client with the wrong token gives up at once (no
 * retries); 0 when it did. */
static int wrong_token_worker(uint16_t port)
{
	struct net_client_opts o = { .port = port,
				     .token = "nope", .give_up_s = 5,
				     .role = LEAGUE__ROLE__ROLE_COLLECTOR };
	net_client *c;
	char err[256] = "";
	double t0 = lg_now_s();
	int rc = net_client_connect(&c, &o, err, sizeof err);
	if (rc != LG_EAUTH || !strstr(err, "wrong token"))
		return 1;
	return lg_now_s() - t0 < 1 ? 0 : 2; /* no retries */
}

START_TEST(client_auth_failure_is_final)
{
	struct fixture f;

	start(&f, "tok", 5, NULL);
	ck_assert_int_eq(serve_worker(&f, wrong_token_worker), 0);
	stop(&f);
}
END_TEST

/* A free port: bind port 0, read it, close. */
static uint16_t free_port(void)
{
	int fd;
	uint16_t port;

	ck_assert_int_eq(net_listen_tcp("127.0.0.1", 0, &fd, &port, NULL, 0), 0);
	close(fd);
	return port;
}

START_TEST(client_reconnects_after_daemon_restart)
{
	/* The worker is forked before any daemon exists (as an exec'd worker
	 * would be, it holds no copy of the listening socket), so it also
	 * shows connect-with-backoff from a cold start. */
	struct fixture f;
	pid_t pid;
	uint16_t port = free_port();
	struct timeval tick = { 0, 2000 };
	double deadline;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct net_client_opts o = { .port = port, .give_up_s = 10,
					     .role = LEAGUE__ROLE__ROLE_COLLECTOR };
		net_client *c;
		int rc, ok = 0;
		if (net_client_connect(&c, &o, NULL, 0))
			_exit(1);
		/* Served until the daemon goes away; then a call fails... */
		while ((rc = client_job_request(c, NULL)) == 0) {
			ok++;
			lg_sleep_s(0.01);
		}
		if (rc != LG_ECLOSED || ok < 2)
			_exit(2);
		/* ...and reconnecting waits until it is back. */
		if (net_client_reconnect(c, NULL, 0) || client_job_request(c, NULL))
			_exit(3);
		net_client_close(c);
		_exit(0);
	}
	lg_sleep_s(0.2); /* the worker retries meanwhile */
	start_on(&f, NULL, 5, NULL, port);
	deadline = lg_now_s() + 10;
	/* The third request proves two replies reached the worker. */
	while (f.msgs < 3 && lg_now_s() < deadline) {
		event_base_loopexit(f.base, &tick);
		event_base_dispatch(f.base);
	}
	ck_assert_int_ge(f.msgs, 3);
	stop(&f); /* the daemon dies */
	lg_sleep_s(0.3);
	start_on(&f, NULL, 5, NULL, port); /* and comes back */
	ck_assert_int_eq(serve_until_exit(&f, pid), 0);
	ck_assert_int_ge(f.msgs, 1);
	stop(&f);
}
END_TEST


/* ---- HTTP under file-descriptor pressure ------------------------------ */

#define FLOOD_HTTP 100 /* trickling HTTP clients, past the daemon's fds */
#define FLOOD_FD_LIMIT 64

/* A loopback TCP connection to port, non-blocking; -1 on failure. */
static int flood_connect(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* 1 when the daemon closed fd (EOF or reset), after sending it one more
 * header line. */
static int flood_closed(int fd)
{
	char b[512];
	ssize_t r = recv(fd, b, sizeof b, MSG_DONTWAIT);

	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
		return 1;
	if (send(fd, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
	    errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN)
		return 1;
	return 0;
}

/* Lines of path holding needle. */
static size_t count_lines(const char *path, const char *needle)
{
	char line[4096];
	size_t n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/* The daemon's user + system CPU seconds (/proc/PID/stat). */
static double cpu_s(pid_t pid)
{
	char path[64], b[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	ck_assert_ptr_nonnull(fgets(b, sizeof b, f));
	fclose(f);
	ck_assert_ptr_nonnull(p = strrchr(b, ')'));
	/* fields 14 and 15 after the name: state is field 3 */
	ck_assert_int_eq(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u "
				"%*u %*u %lu %lu", &ut, &st), 2);
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/*
 * A daemon limited to 64 file descriptors, and 100 HTTP clients that each
 * send a request line and then one header line every 0.2 s, never ending
 * the request, more than the daemon has descriptors for. Each is closed
 * (http_request_timeout_s 1) once accepted, however steadily it trickles;
 * meanwhile a worker connects and registers on the worker port; the
 * daemon does not spin on accept (its CPU time stays below half the wall
 * time) and its log does not fill with accept errors. Then 100 idle
 * connections to the worker port: the accept backoff there too, and once
 * the hello timeout has closed them a worker connects again.
 */
START_TEST(http_tricklers_at_the_fd_limit)
{
	char dir[128], ldir[192], cfg[192], log[256], text[512];
	int fds[FLOOD_HTTP];
	size_t open_n = FLOOD_HTTP;
	struct tu_daemon d;
	struct rlimit rl, low;
	struct tp_peer w;
	double t0, c0, deadline;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(ldir, sizeof ldir, "%s/league", dir);
	snprintf(cfg, sizeof cfg, "%s/l.yaml", dir);
	snprintf(log, sizeof log, "%s.log", ldir);
	snprintf(text, sizeof text, "league: {name: flood}\nenv: {name: rps}\n"
		 "server: {http_request_timeout_s: 1}\n");
	tu_write_file(cfg, text);
	/* the child inherits the low limit; this process gets its own back */
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = rl;
	low.rlim_cur = FLOOD_FD_LIMIT;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	tu_serve(&d, cfg, ldir, 0, "tok");
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);

	t0 = lg_now_s();
	c0 = cpu_s(d.pid);
	for (int i = 0; i < FLOOD_HTTP; i++) {
		ck_assert_int_ge(fds[i] = flood_connect(d.http_port), 0);
		lg_sleep_s(0.002);
		/* the line goes out once connected (loopback: at once) */
		send(fds[i], "GET /status HTTP/1.1\r\n", 22, MSG_NOSIGNAL);
	}
	lg_sleep_s(0.3);
	/* the HTTP clients hold all they can: a worker still gets in */
	tp_connect(&w, d.port, LEAGUE__ROLE__ROLE_COLLECTOR, "w", "tok");
	tp_register_collector(&w, 4, 1);
	tp_close(&w);
	deadline = lg_now_s() + 120;
	while (open_n && lg_now_s() < deadline) {
		for (int i = 0; i < FLOOD_HTTP; i++)
			if (fds[i] >= 0 && flood_closed(fds[i])) {
				close(fds[i]);
				fds[i] = -1;
				open_n--;
			}
		lg_sleep_s(0.2);
	}
	double wall = lg_now_s() - t0, cpu = cpu_s(d.pid) - c0;
	for (int i = 0; i < FLOOD_HTTP; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	ck_assert_msg(open_n == 0, "%zu trickling HTTP clients still open "
		      "after 120 s", open_n);
	ck_assert_msg(cpu < 0.5 * wall, "daemon used %.1f s CPU in %.1f s",
		      cpu, wall);

	/* idle connections past the limit on the worker port */
	for (int i = 0; i < FLOOD_HTTP; i++)
		ck_assert_int_ge(fds[i] = flood_connect(d.port), 0);
	t0 = lg_now_s();
	c0 = cpu_s(d.pid);
	lg_sleep_s(2);
	wall = lg_now_s() - t0;
	cpu = cpu_s(d.pid) - c0;
	ck_assert_msg(cpu < 0.5 * wall, "daemon used %.1f s CPU in %.1f s "
		      "with the worker port flooded", cpu, wall);
	for (int i = 0; i < FLOOD_HTTP; i++)
		close(fds[i]);
	/* the hello timeout (5 s) frees what was accepted */
	deadline = lg_now_s() + 60;
	for (;;) {
		struct net_client_opts o = {
			.host = "127.0.0.1", .port = d.port, .token = "tok",
			.role = LEAGUE__ROLE__ROLE_COLLECTOR, .name = "w2",
			.give_up_s = 10,
		};
		char err[256];
		net_client *c = NULL;
		if (net_client_connect(&c, &o, err, sizeof err) == 0) {
			net_client_close(c);
			break;
		}
		ck_assert_msg(lg_now_s() < deadline, "no worker after the "
			      "flood: %s", err);
	}
	ck_assert_int_eq(tu_serve_stop(&d, SIGTERM), 0);
	/* one warning per 10 s and listener, not one per failed accept */
	size_t n = count_lines(log, "accept");
	ck_assert_msg(n <= 40, "%zu accept lines in %s", n, log);
	/* the worker port ran out of descriptors and paused */
	ck_assert_msg(count_lines(log, "worker port: Too many open files; "
				  "pausing") >= 1, "no accept backoff logged");
	tu_rmrf(dir);
}
END_TEST

Suite *suite_server(void)
{
	Suite *s = suite_create("server");
	const struct tu_test core_tests[] = {
		{ handshake_then_messages_flow, 1 },
		{ wrong_token_and_version_refused, 1 },
		{ silent_worker_times_out, 1 },
		{ http_status_reports_sessions, 1 },
		{ shutdown_tells_workers_and_drains, 1 },
		{ beyond_loopback_needs_token, 1 },
		{ http_beyond_loopback_needs_the_token, 1 },
		{ cookie_values, 1 },
		{ client_stays_alive_while_busy, 1 },
		{ client_auth_failure_is_final, 1 },
		{ client_reconnects_after_daemon_restart, 1 },
	};
	const struct tu_test fd_pressure_tests[] = {
		{ http_tricklers_at_the_fd_limit, 1 },
	};

	signal(SIGPIPE, SIG_IGN);
	TU_TCASE(s, "core", 60, core_tests);
	TU_TCASE(s, "fd_pressure", 240, fd_pressure_tests);
	return s;
}
