/* tests/check_tls.c: TLS on league's sockets. Certificates from `league
 * tls init`'s generator are loaded and checked (a mismatched key, another
 * CA, an expired certificate and a missing file are each named); the
 * learners' trajectory endpoint and the daemon's session layer speak TLS
 * and, with mutual TLS, refuse a client without a certificate or with one
 * from another CA; a client refuses a server whose certificate does not
 * name the host it dialled; HTTPS serves /status with the workers'
 * certificate names. */
#include <check.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf/config.h"
#include "server/server.h"
#include "tests/proto.h"
#include "tests/testutil.h"

#define OL 3
#define NA 4

/* One test's certificates: DIR (CA, "daemon" and "worker" for
 * localhost and 127.0.0.1, "far" for 10.9.9.9 only, "old" expired an
 * hour ago) and OTHER (another CA and its "worker"). */
struct certs {
	char dir[256], other[256];
	char path[16][512];
};

static const char *cpath(struct certs *c, int k, const char *base,
			 const char *file)
{
	snprintf(c->path[k], sizeof c->path[k], "%s/%s", base, file);
	return c->path[k];
}

static void make_certs(struct certs *c)
{
	const char *names[] = { "daemon", "worker" }, *far[] = { "far" },
		   *old[] = { "old" };
	const char *hosts[] = { "localhost", "127.0.0.1" },
		   *farhost[] = { "10.9.9.9" };
	char err[256];

	tu_mkdtemp(c->dir, sizeof c->dir);
	tu_mkdtemp(c->other, sizeof c->other);
	ck_assert_msg(net_tls_init_dir(c->dir, names, 2, names, 1, hosts, 2,
				       -60, 86400, 0, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_msg(net_tls_init_dir(c->dir, far, 1, far, 1, farhost, 1, -60,
				       86400, 0, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_msg(net_tls_init_dir(c->dir, old, 1, old, 1, hosts, 2, -7200,
				       -3600, 0, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_msg(net_tls_init_dir(c->other, names + 1, 1, NULL, 0, hosts,
				       2, -60, 86400, 0, err, sizeof err) == 0,
		      "%s", err);
	/* The CA is made once: a second init with an existing name is
	 * refused, not overwritten. */
	ck_assert_int_eq(net_tls_init_dir(c->dir, names, 1, names, 1, hosts, 2,
					  -60, 60, 0, err, sizeof err),
			 LG_EEXIST);
}

static void drop_certs(struct certs *c)
{
	tu_rmrf(c->dir);
	tu_rmrf(c->other);
}

/* A context for name in base (NULL name: CA only). */
static net_tls *ctx(struct certs *c, const char *base, const char *name,
		    int server, int verify)
{
	char cert[512] = "", key[512] = "", ca[512];
	struct net_tls_opts o = { cert, key, ca, verify };
	net_tls *t;
	char err[256];

	snprintf(ca, sizeof ca, "%s/ca.pem", base);
	if (name) {
		snprintf(cert, sizeof cert, "%s/%s.pem", base, name);
		snprintf(key, sizeof key, "%s/%s.key", base, name);
	}
	(void)c;
	ck_assert_msg(net_tls_new(&t, &o, server, NULL, err, sizeof err) == 0,
		      "%s", err);
	return t;
}

START_TEST(bad_files_are_named)
{
	struct certs c;
	char err[512];
	int which;

	make_certs(&c);
	struct net_tls_opts o = { cpath(&c, 0, c.dir, "daemon.pem"),
				  cpath(&c, 1, c.dir, "daemon.key"),
				  cpath(&c, 2, c.dir, "ca.pem"), 1 };
	ck_assert_int_eq(net_tls_check(&o, 1, &which, err, sizeof err), 0);

	o.key = cpath(&c, 1, c.dir, "worker.key");
	ck_assert_int_eq(net_tls_check(&o, 1, &which, err, sizeof err),
			 LG_EINVAL);
	ck_assert_int_eq(which, NET_TLS_KEY);
	ck_assert_ptr_nonnull(strstr(err, "does not match certificate"));

	o.cert = cpath(&c, 0, c.other, "worker.pem");
	o.key = cpath(&c, 1, c.other, "worker.key");
	ck_assert_int_eq(net_tls_check(&o, 1, &which, err, sizeof err),
			 LG_EINVAL);
	ck_assert_int_eq(which, NET_TLS_CERT);
	ck_assert_ptr_nonnull(strstr(err, "does not verify against CA"));

	o.cert = cpath(&c, 0, c.dir, "old.pem");
	o.key = cpath(&c, 1, c.dir, "old.key");
	ck_assert_int_eq(net_tls_check(&o, 1, &which, err, sizeof err),
			 LG_EINVAL);
	ck_assert_int_eq(which, NET_TLS_CERT);
	ck_assert_msg(strstr(err, "expired on"), "%s", err);

	o.cert = cpath(&c, 0, c.dir, "nope.pem");
	ck_assert_int_eq(net_tls_check(&o, 1, &which, err, sizeof err),
			 LG_EINVAL);
	ck_assert_int_eq(which, NET_TLS_CERT);
	ck_assert_ptr_nonnull(strstr(err, "No such file"));

	o.cert = cpath(&c, 0, c.dir, "daemon.pem");
	o.key = cpath(&c, 1, c.dir, "daemon.key");
	o.ca = cpath(&c, 2, c.dir, "ca.key"); /* a key, not a certificate */
	ck_assert_int_eq(net_tls_check(&o, 1, &which, err, sizeof err),
			 LG_EINVAL);
	ck_assert_int_eq(which, NET_TLS_CA);
	ck_assert_ptr_nonnull(strstr(err, "no PEM certificate"));

	/* A listener needs its key. */
	o.ca = cpath(&c, 2, c.dir, "ca.pem");
	o.key = "";
	ck_assert_int_eq(net_tls_check(&o, 1, &which, err, sizeof err),
			 LG_EINVAL);
	ck_assert_int_eq(which, NET_TLS_KEY);
	drop_certs(&c);
}
END_TEST

static net_traj_server *endpoint(net_tls *srv)
{
	struct net_traj_server_opts o = { .token = "tok", .tls = srv,
					  .window = 4 };
	net_traj_server *s;
	char err[256];

	ck_assert_msg(net_traj_server_start(&s, &o, err, sizeof err) == 0, "%s",
		      err);
	return s;
}

static void fill_rows(struct lg_rows *r, size_t n)
{
	ck_assert_int_eq(lg_rows_init(r, OL, NA, 0, n), 0);
	r->n = n;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < OL; j++)
			r->obs[i * OL + j] = (float)(i * OL + j);
		for (size_t a = 0; a < NA; a++)
			r->mask[i * NA + a] = 1;
		r->action[i] = (int32_t)(i % NA);
		r->logp[i] = -(float)i;
		r->value[i] = 0.25f * (float)i;
		r->reward[i] = 0;
		r->done[i] = i + 1 == n ? LG_ROW_END : LG_ROW_NEXT;
	}
}

/* Segments cross a mutual-TLS endpoint intact (many, so records split
 * across reads); clients without a certificate, with another CA's, or
 * speaking plain TCP are refused; a server whose certificate does not
 * name the host dialled is refused by the client. */
START_TEST(trajectory_endpoint_mutual_tls)
{
	struct certs c;
	net_tls *srv, *cli, *bare, *stranger, *farsrv;
	net_traj_server *s;
	net_traj_sender *tx;
	struct lg_rows r;
	const struct net_segment *seg;
	char err[256] = "";
	uint16_t port;

	make_certs(&c);
	srv = ctx(&c, c.dir, "daemon", 1, 1);
	cli = ctx(&c, c.dir, "worker", 0, 0);
	bare = ctx(&c, c.dir, NULL, 0, 0);
	stranger = ctx(&c, c.other, "worker", 0, 0);
	s = endpoint(srv);
	port = net_traj_server_port(s);
	fill_rows(&r, 200);

	ck_assert_msg(net_traj_sender_connect(&tx, "127.0.0.1", port, "tok",
					      cli, "c", 10, err,
					      sizeof err) == 0, "%s", err);
	for (uint64_t k = 0; k < 20; k++) {
		struct net_segment_hdr h = { 1, 2, 3, 4, k, 0, 0 };
		ck_assert_int_eq(net_traj_send(tx, &h, &r, 10, 0), 0);
		ck_assert_int_eq(net_traj_pop(s, &seg, 10), 0);
		ck_assert_uint_eq(seg->h.segment_seq, k);
		ck_assert_uint_eq(seg->count, 200);
		float v;
		memcpy(&v, seg->value + 199 * sizeof v, sizeof v);
		ck_assert(v == 0.25f * 199);
		net_traj_release(s, seg);
	}
	net_traj_sender_close(tx);

	ck_assert_int_eq(net_traj_sender_connect(&tx, "127.0.0.1", port, "tok",
						 bare, "c", 10, err, sizeof err),
			 LG_EAUTH);
	ck_assert_msg(strstr(err, "the server refused this client's certificate"),
		      "%s", err);
	ck_assert_int_eq(net_traj_sender_connect(&tx, "127.0.0.1", port, "tok",
						 stranger, "c", 10, err,
						 sizeof err),
			 LG_EAUTH);
	/* Plain TCP to a TLS endpoint: no Hello ever decodes. */
	ck_assert_int_ne(net_traj_sender_connect(&tx, "127.0.0.1", port, "tok",
						 NULL, "c", 2, err, sizeof err),
			 0);
	ck_assert_uint_eq(net_traj_depth(s), 0);
	net_traj_server_stop(s);

	/* The client checks the name: "far" is for 10.9.9.9 only. */
	farsrv = ctx(&c, c.dir, "far", 1, 0);
	s = endpoint(farsrv);
	ck_assert_int_eq(net_traj_sender_connect(&tx, "127.0.0.1",
						 net_traj_server_port(s), "tok",
						 cli, "c", 10, err, sizeof err),
			 LG_EAUTH);
	ck_assert_msg(strstr(err, "server's certificate"), "%s", err);
	net_traj_server_stop(s);

	lg_rows_free(&r);
	net_tls_free(srv);
	net_tls_free(cli);
	net_tls_free(bare);
	net_tls_free(stranger);
	net_tls_free(farsrv);
	drop_certs(&c);
}
END_TEST

/* ---- the daemon's session layer over TLS ------------------------------ */

struct fixture {
	struct event_base *base;
	league_server *srv;
};

static void on_msg(void *ctx_, league_session *ss, net_msg *m)
{
	(void)ctx_;
	tp_session_ack(ss, m);
}

static void on_close(void *ctx_, league_session *ss, const char *why)
{
	(void)ctx_;
	(void)ss;
	(void)why;
}

/* The worker side, in a child: 0 when everything held. */
static int worker(struct certs *c, uint16_t port, uint16_t http_port)
{
	net_tls *cli = ctx(c, c->dir, "worker", 0, 0);
	net_tls *bare = ctx(c, c->dir, NULL, 0, 0);
	struct net_client_opts o = { .host = "127.0.0.1", .port = port,
				     .token = "tok", .tls = cli, .role = 1,
				     .name = "w1" };
	net_client *cl;
	net_msg req = LEAGUE__ENVELOPE__INIT, *rep;
	static char body[1 << 16];
	char err[256];

	if (net_client_connect(&cl, &o, err, sizeof err))
		return 1;
	req.body_case = LEAGUE__ENVELOPE__BODY_ACK;
	League__Ack a = LEAGUE__ACK__INIT;
	req.ack = &a;
	if (net_client_call(cl, &req, &rep, 5, err, sizeof err) ||
	    rep->body_case != LEAGUE__ENVELOPE__BODY_ACK)
		return 2;
	net_msg_free(rep);
	/* HTTPS: /status names the worker's certificate. */
	if (net_http_get_tls(cli, http_port, "/status", NULL, 5, body,
			     sizeof body) ||
	    !strstr(body, " 200 ") || !strstr(body, "\"certificate\": \"worker\""))
		return 3;
	/* Plain HTTP to the HTTPS port gets no answer. */
	body[0] = 0;
	net_http_get_tls(NULL, http_port, "/status", NULL, 2, body,
			 sizeof body);
	if (strstr(body, " 200 "))
		return 4;
	net_client_close(cl);
	/* Without a client certificate: refused, final (no retry). */
	o.tls = bare;
	o.give_up_s = 5;
	if (net_client_connect(&cl, &o, err, sizeof err) != LG_EAUTH ||
	    !strstr(err, "the server refused this client's certificate"))
		return 5;
	net_tls_free(cli);
	net_tls_free(bare);
	return 0;
}

START_TEST(daemon_port_and_https_with_mutual_tls)
{
	struct certs c;
	struct fixture f;
	net_tls *srv;
	char err[256];
	pid_t pid;
	int st;

	make_certs(&c);
	srv = ctx(&c, c.dir, "daemon", 1, 1);
	struct league_server_opts o = {
		.listen = "127.0.0.1", .token = "tok", .tls = srv,
		.heartbeat_s = 5, .league_name = "t", .env_name = "rps",
		.hello_timeout_s = 2,
	};
	struct league_server_ops ops = { .ctx = &f, .on_msg = on_msg,
					 .on_close = on_close };
	f.base = event_base_new();
	ck_assert_msg(league_server_new(&f.srv, f.base, &o, &ops, err,
					sizeof err) == 0, "%s", err);
	uint16_t port = league_server_port(f.srv),
		 http_port = league_server_http_port(f.srv);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(worker(&c, port, http_port));
	struct timeval tick = { 0, 2000 };
	double deadline = lg_now_s() + 30;
	for (;;) {
		event_base_loopexit(f.base, &tick);
		event_base_dispatch(f.base);
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		ck_assert_msg(lg_now_s() < deadline, "worker hung");
	}
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "worker step %d",
		      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	league_server_free(f.srv);
	event_base_free(f.base);
	net_tls_free(srv);
	drop_certs(&c);
}
END_TEST

/* Beyond loopback: TLS, or server.insecure said out loud. */
START_TEST(beyond_loopback_needs_tls_or_insecure)
{
	struct league_server_opts o = {
		.listen = "0.0.0.0", .token = "tok", .heartbeat_s = 5,
		.no_http = 1,
	};
	struct league_server_ops ops = { .on_msg = on_msg,
					 .on_close = on_close };
	struct event_base *base = event_base_new();
	league_server *s;
	char err[256];

	ck_assert_int_eq(league_server_new(&s, base, &o, &ops, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "without TLS needs server.insecure"));
	o.insecure = 1;
	ck_assert_msg(league_server_new(&s, base, &o, &ops, err, sizeof err) ==
			      0, "%s", err);
	league_server_free(s);
	event_base_free(base);
}
END_TEST

/* A config's TLS files are checked when it is loaded: each fault is an
 * error at its key's line and column, paths relative to the config's
 * directory; server.insecure lets a plain listener go beyond loopback. */
START_TEST(config_errors_at_their_keys)
{
	static const struct {
		const char *cert, *key, *want;
	} cases[] = {
		{ "daemon.pem", "daemon.key", NULL },
		{ "daemon.pem", "worker.key", "t.yaml:7:5: server.tls.key: key " },
		{ "old.pem", "old.key", "t.yaml:6:5: server.tls.cert: certificate " },
		{ "missing.pem", "daemon.key", "t.yaml:6:5: server.tls.cert: certificate " },
	};
	struct certs c;
	char path[600], text[1024], err[1024];
	struct cfg cfg;

	make_certs(&c);
	snprintf(path, sizeof path, "%s/t.yaml", c.dir);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(text, sizeof text,
			 "env: {name: rps}\n"
			 "server:\n"
			 "  listen: 0.0.0.0\n"
			 "  token_file: tok\n"
			 "  tls:\n"
			 "    cert: %s\n"
			 "    key: %s\n"
			 "    ca: ca.pem\n"
			 "    verify_peers: true\n", cases[i].cert, cases[i].key);
		tu_write_file(path, text);
		int rc = cfg_load_file(&cfg, path, err, sizeof err);
		if (!cases[i].want) {
			ck_assert_msg(rc == 0, "%s", err);
			ck_assert_str_eq(cfg.server.tls.ca + strlen(c.dir),
					 "/ca.pem");
			continue;
		}
		ck_assert_int_eq(rc, LG_ECONFIG);
		ck_assert_msg(strstr(err, cases[i].want), "case %zu: %s", i, err);
	}
	tu_write_file(path, "server:\n  listen: 0.0.0.0\n  token_file: tok\n"
			    "  insecure: true\n");
	ck_assert_msg(cfg_load_file(&cfg, path, err, sizeof err) == 0, "%s",
		      err);
	drop_certs(&c);
}
END_TEST

/* league inspect beyond loopback: HTTPS, or --insecure said out loud. */
START_TEST(inspect_beyond_loopback_needs_tls_or_insecure)
{
	static char out[4096], err[4096];
	const char *argv[] = { "inspect", "/nonexistent", "--listen",
			       "0.0.0.0", NULL };

	setenv("LEAGUE_TOKEN", "tok", 1);
	unsetenv("LEAGUE_TLS_CA");
	unsetenv("LEAGUE_TLS_CERT");
	unsetenv("LEAGUE_TLS_KEY");
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, argv),
			 2);
	unsetenv("LEAGUE_TOKEN");
	ck_assert_msg(strstr(err, "without TLS") && strstr(err, "--insecure"),
		      "%s", err);
}
END_TEST


/* ---- who may serve ---------------------------------------------------- */

/* The client side of worker_cert_cannot_pose_as_daemon, in a child: 0
 * when the daemon's port and HTTPS were both refused. */
static int dial_fake_daemon(net_tls *cli, uint16_t port, uint16_t http_port)
{
	struct net_client_opts o = { .host = "127.0.0.1", .port = port,
				     .token = "tok", .tls = cli, .role = 1,
				     .name = "w1", .give_up_s = 5 };
	static char body[1 << 16];
	net_client *cl = NULL;
	char err[256] = "";

	if (net_client_connect(&cl, &o, err, sizeof err) == 0)
		return 1;
	if (!strstr(err, "server's certificate"))
		return 2;
	body[0] = 0;
	net_http_get_tls(cli, http_port, "/status", "tok", 5, body,
			 sizeof body);
	return strstr(body, " 200 ") ? 3 : 0;
}

/* `league tls init DIR` with its defaults (daemon,worker at localhost and
 * 127.0.0.1): the worker's certificate, presented as a server at
 * 127.0.0.1, is refused by a client's verification on a trajectory
 * endpoint, the daemon's port and HTTPS (it used to carry serverAuth and
 * every host, so any worker could pose as the daemon); the daemon's is
 * taken. */
START_TEST(worker_cert_cannot_pose_as_daemon)
{
	char d[256], out[4096], err[4096];
	struct fixture f;
	net_traj_sender *tx;
	net_traj_server *ep;
	net_tls *wsrv, *dsrv, *cli;
	pid_t pid;
	int st;

	tu_mkdtemp(d, sizeof d);
	const char *argv[] = { "tls", "init", d, NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, argv),
			 0);
	wsrv = ctx(NULL, d, "worker", 1, 0);
	dsrv = ctx(NULL, d, "daemon", 1, 0);
	cli = ctx(NULL, d, "worker", 0, 0);

	ep = endpoint(dsrv); /* the control: the daemon's serves */
	ck_assert_msg(net_traj_sender_connect(&tx, "127.0.0.1",
					      net_traj_server_port(ep), "tok",
					      cli, "c", 10, err,
					      sizeof err) == 0, "%s", err);
	net_traj_sender_close(tx);
	net_traj_server_stop(ep);
	ep = endpoint(wsrv);
	ck_assert_int_eq(net_traj_sender_connect(&tx, "127.0.0.1",
						 net_traj_server_port(ep),
						 "tok", cli, "c", 10, err,
						 sizeof err), LG_EAUTH);
	ck_assert_msg(strstr(err, "server's certificate"), "%s", err);
	net_traj_server_stop(ep);

	struct league_server_opts o = {
		.listen = "127.0.0.1", .token = "tok", .tls = wsrv,
		.heartbeat_s = 5, .league_name = "t", .env_name = "rps",
		.hello_timeout_s = 2,
	};
	struct league_server_ops ops = { .ctx = &f, .on_msg = on_msg,
					 .on_close = on_close };
	f.base = event_base_new();
	ck_assert_msg(league_server_new(&f.srv, f.base, &o, &ops, err,
					sizeof err) == 0, "%s", err);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(dial_fake_daemon(cli, league_server_port(f.srv),
				       league_server_http_port(f.srv)));
	struct timeval tick = { 0, 2000 };
	double deadline = lg_now_s() + 60;
	for (;;) {
		event_base_loopexit(f.base, &tick);
		event_base_dispatch(f.base);
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		ck_assert_msg(lg_now_s() < deadline, "client hung");
	}
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "a worker's certificate passed as the daemon's (step "
		      "%d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	league_server_free(f.srv);
	event_base_free(f.base);
	net_tls_free(wsrv);
	net_tls_free(dsrv);
	net_tls_free(cli);
	tu_rmrf(d);
}
END_TEST

/* NAME=HOSTS: a worker that serves (a learner's endpoint) at its own
 * hosts, never at the daemon's. */
START_TEST(tls_init_worker_hosts)
{
	char d[256], err[512];
	const char *names[] = { "daemon", "lrn=127.0.0.1" },
		   *daemons[] = { "daemon" }, *hosts[] = { "localhost",
							  "127.0.0.1" };
	const char *own[] = { "lrn=127.0.0.1+localhost" };
	net_traj_sender *tx;
	net_traj_server *ep;
	net_tls *srv, *cli;

	tu_mkdtemp(d, sizeof d);
	/* the daemon's host: refused, nothing written */
	ck_assert_int_eq(net_tls_init_dir(d, names, 2, daemons, 1, hosts, 2,
					  -60, 86400, 0, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "127.0.0.1") && strstr(err, "pose as the "
							  "daemon"), "%s", err);
	/* a daemon name must be among the names */
	ck_assert_int_eq(net_tls_init_dir(d, names + 1, 1, daemons, 1, hosts,
					  2, -60, 86400, 0, err, sizeof err),
			 LG_EINVAL);
	/* a CA of learners only (the daemon's elsewhere): serves there */
	ck_assert_msg(net_tls_init_dir(d, own, 1, NULL, 0, NULL, 0, -60, 86400,
				       0, err, sizeof err) == 0, "%s", err);
	srv = ctx(NULL, d, "lrn", 1, 0);
	cli = ctx(NULL, d, "lrn", 0, 0);
	ep = endpoint(srv);
	ck_assert_msg(net_traj_sender_connect(&tx, "127.0.0.1",
					      net_traj_server_port(ep), "tok",
					      cli, "c", 10, err,
					      sizeof err) == 0, "%s", err);
	net_traj_sender_close(tx);
	net_traj_server_stop(ep);
	net_tls_free(srv);
	net_tls_free(cli);
	tu_rmrf(d);
}
END_TEST

Suite *suite_tls(void)
{
	Suite *s = suite_create("tls");
	const struct tu_test core_tests[] = {
		{ bad_files_are_named, 1 },
		{ trajectory_endpoint_mutual_tls, 1 },
		{ daemon_port_and_https_with_mutual_tls, 1 },
		{ beyond_loopback_needs_tls_or_insecure, 1 },
		{ config_errors_at_their_keys, 1 },
		{ inspect_beyond_loopback_needs_tls_or_insecure, 1 },
		{ worker_cert_cannot_pose_as_daemon, 1 },
		{ tls_init_worker_hosts, 1 },
	};

	TU_TCASE(s, "core", 120, core_tests);
	return s;
}
