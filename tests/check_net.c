/* tests/check_net.c: frame codec and framed connections over real loopback
 * sockets: bad input closes only the offender, bursts are handled in
 * bounded slices, backpressure pauses and resumes reading. */
#include <check.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net.h"
#include "tests/testutil.h"

static void make_job(net_msg *m, League__Job *job, League__Seat *seats,
		     League__Seat **sp, League__Jobs *jobs, League__Job **jp)
{
	league__envelope__init(m);
	league__jobs__init(jobs);
	league__job__init(job);
	for (int i = 0; i < 2; i++) {
		league__seat__init(&seats[i]);
		seats[i].player = 10 + (uint32_t)i;
		seats[i].params_version = 7;
		sp[i] = &seats[i];
	}
	seats[0].learning = 1;
	seats[0].learner_endpoint = (char *)"127.0.0.1:9";
	job->job_id = 123456789012ull;
	job->n_seats = 2;
	job->seats = sp;
	job->episodes = 8;
	job->lease_s = 2.5;
	jp[0] = job;
	jobs->n_jobs = 1;
	jobs->jobs = jp;
	m->seq = 99;
	m->body_case = LEAGUE__ENVELOPE__BODY_JOBS;
	m->jobs = jobs;
}

START_TEST(frame_roundtrip_and_partial)
{
	net_msg m, *d;
	League__Job job;
	League__Seat seats[2], *sp[2];
	League__Jobs jobs;
	League__Job *jp[1];
	lg_buf b = { 0 };
	size_t used;
	char err[256];

	make_job(&m, &job, seats, sp, &jobs, jp);
	ck_assert_int_eq(net_frame_encode(&m, &b), 0);
	size_t one = b.len;
	ck_assert_int_eq(net_frame_encode(&m, &b), 0); /* two back to back */
	/* Every strict prefix of the first frame is incomplete, not an error. */
	for (size_t n = 0; n < one; n++)
		ck_assert_int_eq(net_frame_decode(b.data, n, 1 << 20, &d, &used,
						  err, sizeof err), 1);
	ck_assert_int_eq(net_frame_decode(b.data, b.len, 1 << 20, &d, &used, err,
					  sizeof err), 0);
	ck_assert_uint_eq(used, one);
	ck_assert_str_eq(net_msg_name(d), "jobs");
	ck_assert_uint_eq(d->seq, 99);
	ck_assert_uint_eq(d->jobs->n_jobs, 1);
	ck_assert_uint_eq(d->jobs->jobs[0]->job_id, 123456789012ull);
	ck_assert_uint_eq(d->jobs->jobs[0]->n_seats, 2);
	ck_assert(d->jobs->jobs[0]->seats[0]->learning);
	ck_assert_str_eq(d->jobs->jobs[0]->seats[0]->learner_endpoint,
			 "127.0.0.1:9");
	ck_assert_uint_eq(d->jobs->jobs[0]->seats[1]->player, 11);
	net_msg_free(d);
	ck_assert_int_eq(net_frame_decode(b.data + one, b.len - one, 1 << 20, &d,
					  &used, err, sizeof err), 0);
	net_msg_free(d);
	lg_buf_free(&b);
}
END_TEST

START_TEST(frame_errors_are_named)
{
	uint8_t buf[64];
	net_msg *d;
	size_t used;
	char err[256];

	/* Oversized: refused from the header alone, before allocation. */
	lg_put_be32(buf, 1u << 30);
	ck_assert_int_eq(net_frame_decode(buf, 4, 1 << 20, &d, &used, err,
					  sizeof err), LG_EPROTO);
	ck_assert_ptr_nonnull(strstr(err, "frame length 1073741824 outside"));
	lg_put_be32(buf, 0);
	ck_assert_int_eq(net_frame_decode(buf, 4, 1 << 20, &d, &used, err,
					  sizeof err), LG_EPROTO);
	/* Garbage body: not protobuf. */
	lg_put_be32(buf, 6);
	memcpy(buf + 4, "\xff\xff\xff\xff\xff\xff", 6);
	ck_assert_int_eq(net_frame_decode(buf, 10, 1 << 20, &d, &used, err,
					  sizeof err), LG_EPROTO);
	ck_assert_ptr_nonnull(strstr(err, "undecodable message"));
	ck_assert_ptr_nonnull(strstr(err, "\\xff"));
	/* Valid protobuf (seq = 1) but no body. */
	lg_put_be32(buf, 2);
	buf[4] = 0x08;
	buf[5] = 0x01;
	ck_assert_int_eq(net_frame_decode(buf, 6, 1 << 20, &d, &used, err,
					  sizeof err), LG_EPROTO);
	ck_assert_ptr_nonnull(strstr(err, "without a body"));
}
END_TEST

START_TEST(hostport_parsing)
{
	char host[64];
	uint16_t port;

	ck_assert_int_eq(net_parse_hostport("10.1.2.3:7000", host, sizeof host,
					    &port), 0);
	ck_assert_str_eq(host, "10.1.2.3");
	ck_assert_uint_eq(port, 7000);
	ck_assert_int_eq(net_parse_hostport(":80", host, sizeof host, &port), 0);
	ck_assert_str_eq(host, "127.0.0.1");
	ck_assert_int_eq(net_parse_hostport("x:70000", host, sizeof host, &port),
			 LG_EINVAL);
	ck_assert_int_eq(net_parse_hostport("nocolon", host, sizeof host, &port),
			 LG_EINVAL);
}
END_TEST

/* ---- a tiny echo server on the real net_conn ---------------------------- */

struct server {
	struct event_base *base;
	int lfd;
	uint16_t port;
	struct event *accept_ev;
	int open, closed, msgs;
	int reply_bytes;   /* when > 0, answer each heartbeat with this much */
	net_conn *last;
	int saw_paused;
	char why[8][160];
	/* Messages handled per wake-up: the first of a wake activates
	 * `mark`, which runs once the read callback has returned. */
	struct event *mark;
	int run, max_run, wakes;
};

static void srv_mark(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;

	s->max_run = s->run > s->max_run ? s->run : s->max_run;
	s->run = 0;
	s->wakes++;
}

static void srv_msg(net_conn *c, net_msg *m, void *arg)
{
	struct server *s = arg;
	net_msg r = LEAGUE__ENVELOPE__INIT;
	League__Ack ack = LEAGUE__ACK__INIT;
	League__Params p = LEAGUE__PARAMS__INIT;

	s->msgs++;
	if (!s->run++)
		event_active(s->mark, EV_TIMEOUT, 0);
	r.reply_to = m->seq;
	if (s->reply_bytes) {
		p.blob.len = (size_t)s->reply_bytes;
		p.blob.data = calloc(1, p.blob.len);
		r.body_case = LEAGUE__ENVELOPE__BODY_PARAMS;
		r.params = &p;
	} else {
		ack.id = m->seq;
		r.body_case = LEAGUE__ENVELOPE__BODY_ACK;
		r.ack = &ack;
	}
	ck_assert_int_eq(net_conn_send(c, &r), 0);
	if (net_conn_state(c) == NET_CONN_PAUSED)
		s->saw_paused = 1;
	free(p.blob.data);
	net_msg_free(m);
}

static void srv_close(net_conn *c, const char *why, void *arg)
{
	struct server *s = arg;

	if (s->closed < 8)
		snprintf(s->why[s->closed], sizeof s->why[0], "%s", why);
	s->closed++;
}

static void srv_accept(evutil_socket_t fd, short what, void *arg)
{
	struct server *s = arg;
	struct net_conn_cbs cbs = { srv_msg, srv_close };
	int cfd = accept(fd, NULL, NULL);

	if (cfd < 0)
		return;
	ck_assert_int_eq(net_conn_new(&s->last, s->base, cfd, 1 << 20, &cbs, s,
				      "test"), 0);
	s->open++;
}

static void server_start(struct server *s)
{
	char err[256];

	memset(s, 0, sizeof *s);
	s->base = event_base_new();
	ck_assert_int_eq(net_listen_tcp("127.0.0.1", 0, &s->lfd, &s->port, err,
					sizeof err), 0);
	evutil_make_socket_nonblocking(s->lfd);
	s->accept_ev = event_new(s->base, s->lfd, EV_READ | EV_PERSIST,
				 srv_accept, s);
	event_add(s->accept_ev, NULL);
	ck_assert_ptr_nonnull(s->mark = event_new(s->base, -1, 0, srv_mark,
						  s));
}

static void server_stop(struct server *s)
{
	event_free(s->mark);
	event_free(s->accept_ev);
	close(s->lfd);
	event_base_free(s->base);
}

/* Run the loop until the child exits; return its exit status. */
static int serve_until_child_exits(struct server *s, pid_t pid)
{
	int status;
	struct timeval tick = { 0, 2000 };
	double deadline = lg_now_s() + 20;

	for (;;) {
		event_base_loopexit(s->base, &tick);
		event_base_dispatch(s->base);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		ck_assert_msg(lg_now_s() < deadline, "client hung");
	}
	/* Let pending closes run. */
	for (int i = 0; i < 5; i++) {
		event_base_loopexit(s->base, &tick);
		event_base_dispatch(s->base);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

static int client_connect(uint16_t port)
{
	int fd;

	if (net_connect_tcp("127.0.0.1", port, &fd, NULL, 0))
		_exit(90);
	return fd;
}

static int heartbeat_roundtrip(int fd, uint64_t seq)
{
	net_msg m = LEAGUE__ENVELOPE__INIT, *r;
	League__Heartbeat hb = LEAGUE__HEARTBEAT__INIT;

	m.seq = seq;
	m.body_case = LEAGUE__ENVELOPE__BODY_HEARTBEAT;
	m.heartbeat = &hb;
	if (net_send_blocking(fd, &m))
		return 1;
	if (net_recv_blocking(fd, 1 << 20, 5, &r, NULL, 0))
		return 2;
	int ok = r->body_case == LEAGUE__ENVELOPE__BODY_ACK && r->ack->id == seq;
	net_msg_free(r);
	return ok ? 0 : 3;
}

START_TEST(bad_peers_are_dropped_others_served)
{
	struct server s;
	pid_t pid;

	server_start(&s);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int good = client_connect(s.port);
		int garbage = client_connect(s.port);
		int huge = client_connect(s.port);
		uint8_t junk[12] = { 0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff,
				     0xff, 0xff, 0xff, 0xff };
		uint8_t big[4] = { 0x40, 0, 0, 0 }; /* 1 GiB frame */
		char c;

		if (heartbeat_roundtrip(good, 1))
			_exit(1);
		if (send(garbage, junk, sizeof junk, 0) != sizeof junk ||
		    send(huge, big, sizeof big, 0) != sizeof big)
			_exit(2);
		/* Both offenders see their connection closed... */
		if (recv(garbage, &c, 1, 0) != 0 || recv(huge, &c, 1, 0) != 0)
			_exit(3);
		/* ...while the good client keeps being served. */
		for (uint64_t i = 2; i < 20; i++)
			if (heartbeat_roundtrip(good, i))
				_exit(4);
		_exit(0);
	}
	ck_assert_int_eq(serve_until_child_exits(&s, pid), 0);
	ck_assert_int_eq(s.open, 3);
	ck_assert_int_eq(s.msgs, 19);
	int proto = 0;
	for (int i = 0; i < s.closed && i < 8; i++)
		proto += !strncmp(s.why[i], "protocol error", 14);
	ck_assert_int_eq(proto, 2);
	server_stop(&s);
}
END_TEST

START_TEST(burst_is_handled_in_bounded_slices)
{
	/* 1000 frames written at once: the server answers all of them even
	 * though each wake-up handles at most NET_FRAMES_PER_WAKE. */
	struct server s;
	pid_t pid;

	server_start(&s);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = client_connect(s.port);
		net_msg m = LEAGUE__ENVELOPE__INIT, *r;
		League__Heartbeat hb = LEAGUE__HEARTBEAT__INIT;
		lg_buf b = { 0 };

		m.body_case = LEAGUE__ENVELOPE__BODY_HEARTBEAT;
		m.heartbeat = &hb;
		for (uint64_t i = 1; i <= 1000; i++) {
			m.seq = i;
			net_frame_encode(&m, &b);
		}
		if (send(fd, b.data, b.len, 0) != (ssize_t)b.len)
			_exit(1);
		for (uint64_t i = 1; i <= 1000; i++) {
			if (net_recv_blocking(fd, 1 << 20, 5, &r, NULL, 0))
				_exit(2);
			if (r->ack->id != i) /* order is kept */
				_exit(3);
			net_msg_free(r);
		}
		_exit(0);
	}
	ck_assert_int_eq(serve_until_child_exits(&s, pid), 0);
	ck_assert_int_eq(s.msgs, 1000);
	/* The bound held, and it was reached: the 12 KB burst sat in the
	 * input buffer, so an unbounded read would have handled far more
	 * in one wake-up. */
	printf("net: 1000 frames in %d wake-ups, at most %d per wake-up\n",
	       s.wakes, s.max_run);
	ck_assert_int_le(s.max_run, NET_FRAMES_PER_WAKE);
	ck_assert_int_eq(s.max_run, NET_FRAMES_PER_WAKE);
	ck_assert_int_ge(s.wakes, (1000 + NET_FRAMES_PER_WAKE - 1) /
					  NET_FRAMES_PER_WAKE);
	server_stop(&s);
}
END_TEST

START_TEST(slow_reader_pauses_then_resumes)
{
	/* Each request gets a 1 MiB reply. The client sends 40 requests and
	 * reads nothing for a while: the server's output passes the high
	 * watermark and it stops reading (PAUSED). Then the client reads every
	 * reply and all 40 requests are answered. */
	struct server s;
	pid_t pid;
	int sv[2];

	server_start(&s);
	s.reply_bytes = 1 << 20;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = client_connect(s.port);
		net_msg m = LEAGUE__ENVELOPE__INIT, *r;
		League__Heartbeat hb = LEAGUE__HEARTBEAT__INIT;
		lg_buf b = { 0 };
		char go;

		m.body_case = LEAGUE__ENVELOPE__BODY_HEARTBEAT;
		m.heartbeat = &hb;
		for (uint64_t i = 1; i <= 40; i++) {
			m.seq = i;
			net_frame_encode(&m, &b);
		}
		if (send(fd, b.data, b.len, 0) != (ssize_t)b.len)
			_exit(1);
		if (read(sv[1], &go, 1) != 1) /* wait for the parent */
			_exit(2);
		for (uint64_t i = 1; i <= 40; i++) {
			if (net_recv_blocking(fd, 2 << 20, 10, &r, NULL, 0))
				_exit(3);
			if (r->reply_to != i || r->params->blob.len != 1 << 20)
				_exit(4);
			net_msg_free(r);
		}
		_exit(0);
	}
	/* Serve until the server pauses that client. */
	struct timeval tick = { 0, 2000 };
	double deadline = lg_now_s() + 10;
	while (!s.saw_paused && lg_now_s() < deadline) {
		event_base_loopexit(s.base, &tick);
		event_base_dispatch(s.base);
	}
	ck_assert(s.saw_paused);
	ck_assert_int_lt(s.msgs, 40); /* it stopped taking requests */
	ck_assert_int_eq(net_conn_state(s.last), NET_CONN_PAUSED);
	ck_assert_uint_gt(net_conn_outq(s.last), NET_OUT_LOW_WATER);
	ck_assert_int_eq(write(sv[0], "g", 1), 1);
	ck_assert_int_eq(serve_until_child_exits(&s, pid), 0);
	ck_assert_int_eq(s.msgs, 40);
	close(sv[0]);
	close(sv[1]);
	server_stop(&s);
}
END_TEST

Suite *suite_net(void)
{
	Suite *s = suite_create("net");
	const struct tu_test core_tests[] = {
		{ frame_roundtrip_and_partial, 1 },
		{ frame_errors_are_named, 1 },
		{ hostport_parsing, 1 },
		{ bad_peers_are_dropped_others_served, 1 },
		{ burst_is_handled_in_bounded_slices, 1 },
		{ slow_reader_pauses_then_resumes, 1 },
	};

	signal(SIGPIPE, SIG_IGN);
	TU_TCASE(s, "core", 60, core_tests);
	return s;
}
