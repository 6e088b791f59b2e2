/*
 * net/traj.c: trajectory streams with credit-based flow control.
 *
 * Segments are not unpacked: the loop thread finds an Envelope's body
 * (net_envelope_body), parses a Segment in place (net_segment_parse) and
 * queues one copy of the frame with the parsed view pointing into it; the
 * learner appends the columns straight into its batch.
 *
 * Server threads: the loop thread owns the event base and every connection;
 * the consumer thread only touches the queue and the list of senders owed a
 * credit, both under one mutex, and wakes the loop through an eventfd (only
 * when that list goes from empty to non-empty, so one wake-up carries many
 * credits).
 *
 * Credits return when a segment is popped. Per sender the invariant
 *     outstanding + queued + owed == window
 * holds (window: what the sender was granted at its hello), so a sender with no credit left has all its window either queued
 * or owed, and owed credit is flushed once it reaches half a window (or the
 * whole window): flow never stalls while the consumer keeps popping.
 *
 * Liveness: a sender with no credit hears a Heartbeat from the loop
 * thread every heartbeat period / 2, whatever the consumer does, so it
 * waits for a learner that is busy and gives up on one that says
 * nothing (stopped, cut off) after NET_SILENT_HEARTBEATS periods.
 */
#include "net/net.h"

#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

struct tconn {
	net_traj_server *s;
	net_conn *conn;
	uint64_t id;
	int ready;
	uint32_t window;      /* granted at hello */
	uint32_t outstanding; /* granted, not yet received */
	uint32_t owed;        /* popped, credit not yet sent */
	struct tconn *next;
};

/* A queued segment: the parsed view first (what net_traj_pop hands
 * out), then the frame's bytes it points into. */
struct qent {
	struct net_segment seg;
	uint64_t conn_id;
	struct qent *next;
	uint8_t frame[];
};

struct net_traj_server {
	struct net_traj_server_opts o;
	char listen[128], token[256];
	struct event_base *base;
	struct event *accept_ev, *wake_ev, *hb_ev;
	double hb_armed;      /* loop thread: the period hb_ev runs at */
	pthread_t thread;
	int lfd, wfd;
	uint16_t port;
	struct tconn *conns; /* loop thread only */
	size_t nready;
	uint64_t next_id;

	pthread_mutex_t mu; /* guards everything below */
	pthread_cond_t cv;
	struct qent *head, *tail;
	size_t depth, max_depth;
	uint32_t window;      /* granted to the next senders */
	double hb_s;          /* heartbeat period; <= 0: none */
	uint64_t *owed_ids;
	size_t nowed, capowed;
	int stopping;
};

static void wake_loop(net_traj_server *s)
{
	uint64_t one = 1;

	if (write(s->wfd, &one, sizeof one) < 0)
		LG_WARN("traj: cannot wake loop");
}

static void send_credit(struct tconn *t, uint32_t n)
{
	net_msg m = LEAGUE__ENVELOPE__INIT;
	League__Credit cr = LEAGUE__CREDIT__INIT;

	cr.segments = n;
	m.body_case = LEAGUE__ENVELOPE__BODY_CREDIT;
	m.credit = &cr;
	if (net_conn_send(t->conn, &m) == 0)
		t->outstanding += n;
}

static int token_ok(const char *want, const char *got)
{
	size_t lw = strlen(want), lg = strlen(got), n = lw > lg ? lw : lg;
	unsigned char d = lw != lg;

	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)((i < lw ? want[i] : 0) ^ (i < lg ? got[i] : 0));
	return !d;
}

/* The first frame: a Hello, decoded whole (it is small). */
static void on_hello(struct tconn *t, const uint8_t *body, size_t len)
{
	net_traj_server *s = t->s;
	net_msg *m = league__envelope__unpack(NULL, len, body);
	const char *why = NULL;
	int st = LEAGUE__STATUS__STATUS_OK;

	if (!m || m->body_case != LEAGUE__ENVELOPE__BODY_HELLO)
		why = "expected hello", st = LEAGUE__STATUS__STATUS_BAD_REQUEST;
	else if (m->hello->protocol_version != LEAGUE__CONST__PROTOCOL_VERSION)
		why = "protocol version", st = LEAGUE__STATUS__STATUS_VERSION;
	else if (s->token[0] && !token_ok(s->token, m->hello->token))
		why = "wrong token", st = LEAGUE__STATUS__STATUS_AUTH;
	else if (s->nready >= s->o.max_senders)
		why = "too many senders", st = LEAGUE__STATUS__STATUS_BUSY;
	net_msg_free(m);
	net_conn_hello_reply(t->conn, NULL, st, why, t->id);
	if (why) {
		LG_WARN("traj: %s: refused: %s", net_conn_peer(t->conn), why);
		net_conn_close(t->conn, why, 1);
		return;
	}
	t->ready = 1;
	s->nready++;
	pthread_mutex_lock(&s->mu);
	t->window = s->window;
	pthread_mutex_unlock(&s->mu);
	send_credit(t, t->window);
}

/* A segment frame: parsed in place, queued with the frame's bytes. */
static void on_segment(struct tconn *t, const uint8_t *frame, size_t len,
		       const uint8_t *body, size_t blen)
{
	net_traj_server *s = t->s;
	struct qent *q;
	char err[256];

	if (t->outstanding == 0) {
		LG_WARN("traj: %s: closing: segment without credit",
			net_conn_peer(t->conn));
		net_conn_close(t->conn, "protocol error: no credit", 0);
		return;
	}
	t->outstanding--;
	if (!(q = malloc(sizeof *q + len))) {
		net_conn_close(t->conn, "out of memory", 0);
		return;
	}
	memcpy(q->frame, frame, len);
	if (net_segment_parse(q->frame + (body - frame), blen, &q->seg, err,
			      sizeof err)) {
		LG_WARN("traj: %s: closing: %s", net_conn_peer(t->conn), err);
		free(q);
		net_conn_close(t->conn, "protocol error: bad segment", 0);
		return;
	}
	q->conn_id = t->id;
	q->next = NULL;
	pthread_mutex_lock(&s->mu);
	if (s->tail)
		s->tail->next = q;
	else
		s->head = q;
	s->tail = q;
	if (++s->depth > s->max_depth)
		s->max_depth = s->depth;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static void on_frame(net_conn *c, const uint8_t *frame, size_t len,
		     void *arg)
{
	struct tconn *t = arg;
	const uint8_t *body;
	size_t blen;
	char err[256];
	int body_case;

	if (!t->ready) {
		on_hello(t, frame, len);
		return;
	}
	if (net_envelope_body(frame, len, &body_case, &body, &blen, err,
			      sizeof err)) {
		LG_WARN("traj: %s: closing: %s", net_conn_peer(c), err);
		net_conn_close(c, "protocol error: bad message", 0);
		return;
	}
	switch (body_case) {
	case LEAGUE__ENVELOPE__BODY_SEGMENT:
		on_segment(t, frame, len, body, blen);
		return;
	case LEAGUE__ENVELOPE__BODY_HEARTBEAT:
		return;
	default:
		LG_WARN("traj: %s: closing: unexpected message (body field "
			"%d)", net_conn_peer(c), body_case);
		net_conn_close(c, "protocol error: unexpected message", 0);
	}
}

static void on_close(net_conn *c, const char *why, void *arg)
{
	struct tconn *t = arg, **pp;
	net_traj_server *s = t->s;

	for (pp = &s->conns; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	if (t->ready)
		s->nready--;
	free(t);
}

static void accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	net_traj_server *s = arg;
	struct net_conn_cbs cbs = { NULL, on_close };

	for (int i = 0; i < 64; i++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		struct tconn *t;
		char peer[32];
		if (fd < 0)
			return;
		t = calloc(1, sizeof *t);
		if (!t) {
			close(fd);
			continue;
		}
		t->s = s;
		t->id = ++s->next_id;
		snprintf(peer, sizeof peer, "sender %llu", (unsigned long long)t->id);
		if (net_conn_new_tls(&t->conn, s->base, fd, s->o.tls,
				     s->o.max_frame, &cbs, t, peer)) {
			free(t);
			continue;
		}
		net_conn_set_frame_cb(t->conn, on_frame);
		t->next = s->conns;
		s->conns = t;
	}
}

/* Every half period: a Heartbeat to each sender without credit, which
 * may be waiting for some (one with credit reads nothing). */
static void hb_cb(evutil_socket_t fd, short what, void *arg)
{
	net_traj_server *s = arg;
	net_msg m = LEAGUE__ENVELOPE__INIT;
	League__Heartbeat hb = LEAGUE__HEARTBEAT__INIT;

	hb.sent_us = (uint64_t)(lg_now_s() * 1e6);
	m.body_case = LEAGUE__ENVELOPE__BODY_HEARTBEAT;
	m.heartbeat = &hb;
	for (struct tconn *t = s->conns; t; t = t->next)
		if (t->ready && t->outstanding == 0)
			net_conn_send(t->conn, &m);
}

/* Loop thread: run hb_ev every period_s / 2 (<= 0: stop it). */
static void hb_arm(net_traj_server *s, double period_s)
{
	struct timeval tv;
	double half = period_s / 2;

	event_del(s->hb_ev);
	s->hb_armed = period_s;
	if (!(period_s > 0))
		return;
	tv.tv_sec = (time_t)half;
	tv.tv_usec = (suseconds_t)((half - (double)tv.tv_sec) * 1e6);
	event_add(s->hb_ev, &tv);
}

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
	net_traj_server *s = arg;
	uint64_t v, *ids;
	double hb;
	size_t n;
	int stop;

	if (read(fd, &v, sizeof v) < 0)
		return;
	pthread_mutex_lock(&s->mu);
	stop = s->stopping;
	hb = s->hb_s;
	ids = s->owed_ids;
	n = s->nowed;
	s->owed_ids = NULL;
	s->nowed = s->capowed = 0;
	pthread_mutex_unlock(&s->mu);
	for (size_t i = 0; i < n; i++)
		for (struct tconn *t = s->conns; t; t = t->next)
			if (t->id == ids[i]) {
				t->owed++;
				break;
			}
	free(ids);
	for (struct tconn *t = s->conns; t; t = t->next)
		if (t->ready && t->owed >= (t->window / 2 ? t->window / 2 : 1)) {
			send_credit(t, t->owed);
			t->owed = 0;
		}
	if (hb != s->hb_armed)
		hb_arm(s, hb);
	if (stop)
		event_base_loopbreak(s->base);
}

static void *loop_main(void *arg)
{
	net_traj_server *s = arg;

	event_base_dispatch(s->base);
	return NULL;
}

/* Everything s holds, however far net_traj_server_start got, once its
 * loop thread (if it ran) is gone: the stop and start's failure alike. */
static void server_free(net_traj_server *s)
{
	while (s->conns) {
		struct tconn *t = s->conns;
		s->conns = t->next;
		net_conn_free(t->conn);
		free(t);
	}
	while (s->head) {
		struct qent *q = s->head;
		s->head = q->next;
		free(q);
	}
	net_event_free(s->accept_ev);
	net_event_free(s->wake_ev);
	net_event_free(s->hb_ev);
	if (s->base)
		event_base_free(s->base);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->wfd >= 0)
		close(s->wfd);
	free(s->owed_ids);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

int net_traj_server_start(net_traj_server **out,
			  const struct net_traj_server_opts *o, char *err,
			  size_t errlen)
{
	net_traj_server *s = calloc(1, sizeof *s);
	int rc;

	*out = NULL;
	if (!s)
		return LG_ENOMEM;
	s->o = *o;
	s->lfd = s->wfd = -1;
	if (!s->o.window)
		s->o.window = 8;
	s->window = s->o.window;
	if (!s->o.max_senders)
		s->o.max_senders = 64;
	if (!s->o.max_frame)
		s->o.max_frame = NET_DEFAULT_MAX_FRAME;
	snprintf(s->listen, sizeof s->listen, "%s", o->listen ? o->listen
							      : "127.0.0.1");
	snprintf(s->token, sizeof s->token, "%s", o->token ? o->token : "");
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if ((rc = net_listen_tcp(s->listen, o->port, &s->lfd, &s->port, err,
				 errlen)))
		goto fail;
	evutil_make_socket_nonblocking(s->lfd);
	s->wfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	s->base = event_base_new();
	if (s->wfd < 0 || !s->base) {
		rc = LG_ENOMEM;
		goto fail;
	}
	s->accept_ev = event_new(s->base, s->lfd, EV_READ | EV_PERSIST,
				 accept_cb, s);
	s->wake_ev = event_new(s->base, s->wfd, EV_READ | EV_PERSIST, wake_cb, s);
	s->hb_ev = event_new(s->base, -1, EV_PERSIST, hb_cb, s);
	if (!s->accept_ev || !s->wake_ev || !s->hb_ev) {
		rc = LG_ENOMEM;
		goto fail;
	}
	event_add(s->accept_ev, NULL);
	event_add(s->wake_ev, NULL);
	if (pthread_create(&s->thread, NULL, loop_main, s)) {
		rc = LG_ENOMEM;
		goto fail;
	}
	*out = s;
	return 0;
fail:
	server_free(s);
	return rc;
}

uint16_t net_traj_server_port(const net_traj_server *s)
{
	return s->port;
}

void net_traj_server_set_window(net_traj_server *s, uint32_t window)
{
	if (!window)
		return;
	pthread_mutex_lock(&s->mu);
	s->window = window;
	pthread_mutex_unlock(&s->mu);
}

void net_traj_server_set_heartbeat(net_traj_server *s, double period_s)
{
	pthread_mutex_lock(&s->mu);
	s->hb_s = period_s > 0 ? period_s : 0;
	pthread_mutex_unlock(&s->mu);
	wake_loop(s);
}

int net_traj_pop(net_traj_server *s, const struct net_segment **seg,
		 double timeout_s)
{
	struct timespec ts;
	double until;
	struct qent *q;
	int wake;

	*seg = NULL;
	clock_gettime(CLOCK_REALTIME, &ts);
	until = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + timeout_s;
	ts.tv_sec = (time_t)until;
	ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
	pthread_mutex_lock(&s->mu);
	while (!s->head && !s->stopping)
		if (pthread_cond_timedwait(&s->cv, &s->mu, &ts))
			break;
	q = s->head;
	if (!q) {
		pthread_mutex_unlock(&s->mu);
		return LG_ETIMEOUT;
	}
	s->head = q->next;
	if (!s->head)
		s->tail = NULL;
	s->depth--;
	/* The credit goes back now: the segment has left the queue. */
	if (s->nowed == s->capowed) {
		size_t cap = s->capowed ? s->capowed * 2 : 64;
		uint64_t *p = realloc(s->owed_ids, cap * sizeof *p);
		if (p) {
			s->owed_ids = p;
			s->capowed = cap;
		}
	}
	wake = s->nowed == 0;
	if (s->nowed < s->capowed)
		s->owed_ids[s->nowed++] = q->conn_id;
	pthread_mutex_unlock(&s->mu);
	if (wake)
		wake_loop(s);
	*seg = &q->seg;
	return 0;
}

void net_traj_release(net_traj_server *s, const struct net_segment *seg)
{
	(void)s;
	/* seg is the first member of its queue entry */
	free((struct qent *)(uintptr_t)seg);
}

/* A counter of s (one of its fields) read under s->mu. */
static size_t read_locked(net_traj_server *s, const size_t *field)
{
	size_t d;

	pthread_mutex_lock(&s->mu);
	d = *field;
	pthread_mutex_unlock(&s->mu);
	return d;
}

size_t net_traj_depth(net_traj_server *s)
{
	return read_locked(s, &s->depth);
}

size_t net_traj_max_depth(net_traj_server *s)
{
	return read_locked(s, &s->max_depth);
}

void net_traj_server_stop(net_traj_server *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stopping = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	wake_loop(s);
	pthread_join(s->thread, NULL);
	server_free(s);
}

/* ---- sender ----------------------------------------------------------- */

struct net_traj_sender {
	net_stream st;
	uint32_t credit;
	uint64_t grants;  /* Credit messages received */
	uint64_t seq;
	lg_buf frame; /* reused for every segment */
};

/* Read one message; a Credit adds to the balance. */
static int sender_read(net_traj_sender *s, double timeout_s)
{
	net_msg *m;
	int rc = net_stream_recv(&s->st, 1 << 20, timeout_s, &m, NULL, 0);

	if (rc)
		return rc;
	if (m->body_case == LEAGUE__ENVELOPE__BODY_CREDIT) {
		s->credit += m->credit->segments;
		s->grants++;
	}
	else if (m->body_case != LEAGUE__ENVELOPE__BODY_HEARTBEAT)
		rc = LG_EPROTO;
	net_msg_free(m);
	return rc;
}

int net_traj_sender_connect(net_traj_sender **out, const char *host,
			    uint16_t port, const char *token, net_tls *tls,
			    const char *name, double timeout_s, char *err,
			    size_t errlen)
{
	net_traj_sender *s = calloc(1, sizeof *s);
	net_msg m = LEAGUE__ENVELOPE__INIT, *r = NULL;
	League__Hello h = LEAGUE__HELLO__INIT;
	int rc;

	*out = NULL;
	if (!s)
		return LG_ENOMEM;
	if ((rc = net_stream_connect(&s->st, host, port, tls, timeout_s, err,
				     errlen)))
		goto fail;
	h.protocol_version = LEAGUE__CONST__PROTOCOL_VERSION;
	h.token = (char *)(uintptr_t)(token ? token : "");
	h.role = LEAGUE__ROLE__ROLE_COLLECTOR;
	h.name = (char *)(uintptr_t)(name ? name : "collector");
	m.seq = ++s->seq;
	m.body_case = LEAGUE__ENVELOPE__BODY_HELLO;
	m.hello = &h;
	if ((rc = net_stream_send(&s->st, &m)) ||
	    (rc = net_stream_recv(&s->st, 1 << 20, timeout_s, &r, err,
				  errlen))) {
		if (rc == LG_EAUTH)
			lg_errf(err, errlen, "the learner refused this "
				"collector's TLS certificate (or it has none)");
		goto fail;
	}
	if (r->body_case != LEAGUE__ENVELOPE__BODY_HELLO_REPLY ||
	    r->hello_reply->status != LEAGUE__STATUS__STATUS_OK) {
		lg_errf(err, errlen, "learner refused: %s",
			r->body_case == LEAGUE__ENVELOPE__BODY_HELLO_REPLY
				? r->hello_reply->error : net_msg_name(r));
		rc = r->body_case == LEAGUE__ENVELOPE__BODY_HELLO_REPLY &&
				     r->hello_reply->status ==
					     LEAGUE__STATUS__STATUS_AUTH
			     ? LG_EAUTH : LG_EPROTO;
		goto fail;
	}
	net_msg_free(r);
	*out = s;
	return 0;
fail:
	net_msg_free(r);
	net_traj_sender_close(s);
	return rc;
}

int net_traj_send(net_traj_sender *s, const struct net_segment_hdr *h,
		  const struct lg_rows *rows, double timeout_s,
		  double silent_s)
{
	double now = lg_now_s(), deadline = now + timeout_s;
	int rc;

	if (!rows->n && !h->job_end)
		return LG_EINVAL;
	while (s->credit == 0) {
		/* each message read (credit or heartbeat) says the learner
		 * lives: the silence bound starts again from it */
		double left = deadline - lg_now_s();
		if (silent_s > 0 && silent_s < left)
			left = silent_s;
		if (left <= 0)
			return LG_ETIMEOUT;
		if ((rc = sender_read(s, left)))
			return rc;
	}
	s->frame.len = 0;
	if ((rc = net_segment_encode(h, rows, s->seq + 1, &s->frame)))
		return rc;
	s->seq++;
	if ((rc = net_stream_write_idle(&s->st, s->frame.data, s->frame.len,
					silent_s > 0 && silent_s < timeout_s
						? silent_s : timeout_s)))
		return rc;
	s->credit--;
	return 0;
}

uint64_t net_traj_sender_grants(const net_traj_sender *s)
{
	return s->grants;
}

void net_traj_sender_close(net_traj_sender *s)
{
	if (!s)
		return;
	net_stream_close(&s->st);
	lg_buf_free(&s->frame);
	free(s);
}
