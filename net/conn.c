/* net/conn.c: one framed connection on a libevent bufferevent.
 *
 * Reading: the read callback decodes at most NET_FRAMES_PER_WAKE frames and,
 * if whole frames remain, arms a zero-timeout event to continue on the next
 * loop iteration, so other connections get their turn. Writing: when the
 * output buffer passes NET_OUT_HIGH_WATER the conn stops reading (PAUSED)
 * until the write callback sees it below NET_OUT_LOW_WATER. Closing is
 * deferred to the loop so callbacks never see a conn freed under them. */
#include "net/net.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>

struct net_conn {
	struct bufferevent *bev;
	struct event *more;    /* continue decoding next iteration */
	struct event *reaper;  /* deferred close */
	enum net_conn_state state;
	size_t max_frame;
	struct net_conn_cbs cbs;
	net_frame_cb on_frame; /* NULL: decode into messages */
	void *arg;
	int in_callback;
	char peer[64];
	char why[160];
	int tls;
	lg_buf scratch;        /* a frame split across evbuffer chunks */
};

const char *net_conn_state_name(enum net_conn_state s)
{
	switch (s) {
	case NET_CONN_OPEN: return "open";
	case NET_CONN_PAUSED: return "paused";
	case NET_CONN_CLOSING: return "closing";
	case NET_CONN_CLOSED: return "closed";
	}
	return "?";
}

static void conn_finish(net_conn *c)
{
	if (c->cbs.on_close)
		c->cbs.on_close(c, c->why, c->arg);
	bufferevent_free(c->bev);
	event_free(c->more);
	event_free(c->reaper);
	lg_buf_free(&c->scratch);
	free(c);
}

static void reap_cb(evutil_socket_t fd, short what, void *arg)
{
	conn_finish(arg);
}

static void schedule_close(net_conn *c, const char *why)
{
	if (c->state == NET_CONN_CLOSED)
		return;
	if (why && !c->why[0])
		snprintf(c->why, sizeof c->why, "%s", why);
	c->state = NET_CONN_CLOSED;
	bufferevent_disable(c->bev, EV_READ | EV_WRITE);
	event_del(c->more);
	event_active(c->reaper, EV_TIMEOUT, 0);
}

static void drain_frames(net_conn *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	char err[256];

	for (int i = 0; i < NET_FRAMES_PER_WAKE; i++) {
		size_t avail = evbuffer_get_length(in), used, n;
		uint8_t hdr[NET_FRAME_HDR];
		const uint8_t *p;
		net_msg *m;
		int rc;

		/* PAUSED too: frames already buffered would only add to
		 * the output the peer is not reading. */
		if (c->state != NET_CONN_OPEN)
			return;
		if (avail < NET_FRAME_HDR)
			return;
		evbuffer_copyout(in, hdr, sizeof hdr);
		n = lg_get_be32(hdr);
		if (n == 0 || n > c->max_frame) {
			/* Let the decoder name it, with a sample. */
			rc = net_frame_decode(evbuffer_pullup(in, NET_FRAME_HDR),
					      NET_FRAME_HDR, c->max_frame, &m,
					      &used, err, sizeof err);
			LG_WARN("net: %s: closing: %s", c->peer, err);
			schedule_close(c, "protocol error: bad frame length");
			return;
		}
		if (avail - NET_FRAME_HDR < n)
			return;
		p = evbuffer_pullup(in, (ev_ssize_t)(NET_FRAME_HDR + n));
		if (!p) {
			schedule_close(c, "out of memory");
			return;
		}
		if (c->on_frame) { /* the reader decodes in place */
			c->in_callback++;
			c->on_frame(c, p + NET_FRAME_HDR, n, c->arg);
			c->in_callback--;
			evbuffer_drain(in, NET_FRAME_HDR + n);
			continue;
		}
		rc = net_frame_decode(p, NET_FRAME_HDR + n, c->max_frame, &m,
				      &used, err, sizeof err);
		if (rc) {
			LG_WARN("net: %s: closing: %s", c->peer, err);
			schedule_close(c, "protocol error: bad message");
			return;
		}
		evbuffer_drain(in, used);
		c->in_callback++;
		c->cbs.on_msg(c, m, c->arg);
		c->in_callback--;
	}
	/* Budget spent: finish on the next loop iteration. */
	if (evbuffer_get_length(in) >= NET_FRAME_HDR)
		event_active(c->more, EV_TIMEOUT, 0);
}

static void more_cb(evutil_socket_t fd, short what, void *arg)
{
	drain_frames(arg);
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	drain_frames(arg);
}

static void write_cb(struct bufferevent *bev, void *arg)
{
	net_conn *c = arg;
	size_t out = evbuffer_get_length(bufferevent_get_output(bev));

	if (c->state == NET_CONN_PAUSED && out <= NET_OUT_LOW_WATER) {
		c->state = NET_CONN_OPEN;
		bufferevent_enable(bev, EV_READ);
		drain_frames(c); /* frames that waited in the input buffer */
	} else if (c->state == NET_CONN_CLOSING && out == 0) {
		schedule_close(c, NULL);
	}
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	net_conn *c = arg;

	unsigned long e;
	char why[192];

	if (what & BEV_EVENT_EOF) {
		schedule_close(c, "peer closed");
	} else if ((what & BEV_EVENT_ERROR) && c->tls &&
		   (e = bufferevent_get_openssl_error(bev))) {
		/* A refused handshake (no client certificate, one from
		 * another CA, not TLS at all) says so in the log. */
		snprintf(why, sizeof why, "TLS: ");
		ERR_error_string_n(e, why + 5, sizeof why - 5);
		while (bufferevent_get_openssl_error(bev))
			;
		schedule_close(c, why);
	} else if (what & BEV_EVENT_ERROR) {
		schedule_close(c, evutil_socket_error_to_string(
					  EVUTIL_SOCKET_ERROR()));
	} else if (what & BEV_EVENT_TIMEOUT) {
		schedule_close(c, "timeout");
	}
}

int net_conn_new(net_conn **out, struct event_base *base, int fd,
		 size_t max_frame, const struct net_conn_cbs *cbs, void *arg,
		 const char *peer)
{
	return net_conn_new_tls(out, base, fd, NULL, max_frame, cbs, arg,
				peer);
}

int net_conn_new_tls(net_conn **out, struct event_base *base, int fd,
		     net_tls *tls, size_t max_frame,
		     const struct net_conn_cbs *cbs, void *arg,
		     const char *peer)
{
	net_conn *c = calloc(1, sizeof *c);

	*out = NULL;
	if (!c)
		return LG_ENOMEM;
	evutil_make_socket_nonblocking(fd);
	/* Small request/reply frames: Nagle plus the peer's delayed ACK
	 * would hold each reply up to 40 ms. (Fails harmlessly on a Unix
	 * socket.) */
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (tls) {
		/* The handshake runs inside the bufferevent: reads see only
		 * decrypted bytes, and a failed one is an error event. */
		SSL *ssl = net_tls_ssl_new(tls);
		/* On failure libevent has already freed ssl (and, with
		 * CLOSE_ON_FREE, the socket is ours to close below). */
		c->bev = ssl ? bufferevent_openssl_socket_new(
				       base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING,
				       BEV_OPT_CLOSE_ON_FREE)
			     : NULL;
		if (c->bev) /* a worker killed mid-stream sends no close_notify */
			bufferevent_openssl_set_allow_dirty_shutdown(c->bev, 1);
		c->tls = 1;
	} else {
		c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	}
	c->more = event_new(base, -1, 0, more_cb, c);
	c->reaper = event_new(base, -1, 0, reap_cb, c);
	if (!c->bev || !c->more || !c->reaper) {
		if (c->bev)
			bufferevent_free(c->bev);
		else
			evutil_closesocket(fd);
		if (c->more)
			event_free(c->more);
		if (c->reaper)
			event_free(c->reaper);
		free(c);
		return LG_ENOMEM;
	}
	c->max_frame = max_frame ? max_frame : NET_DEFAULT_MAX_FRAME;
	c->cbs = *cbs;
	c->arg = arg;
	snprintf(c->peer, sizeof c->peer, "%s", peer ? peer : "?");
	bufferevent_setcb(c->bev, read_cb, write_cb, event_cb, c);
	/* Wake the write callback once output falls to the low watermark. */
	bufferevent_setwatermark(c->bev, EV_WRITE, NET_OUT_LOW_WATER, 0);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	c->state = NET_CONN_OPEN;
	*out = c;
	return 0;
}

int net_conn_send(net_conn *c, const net_msg *m)
{
	lg_buf b = { 0 };
	int rc;

	if (c->state == NET_CONN_CLOSING || c->state == NET_CONN_CLOSED)
		return LG_ECLOSED;
	if ((rc = net_frame_encode(m, &b)))
		return rc;
	rc = net_conn_send_frame(c, b.data, b.len);
	lg_buf_free(&b);
	return rc;
}

int net_conn_send_frame(net_conn *c, const void *frame, size_t len)
{
	int rc;

	if (c->state == NET_CONN_CLOSING || c->state == NET_CONN_CLOSED)
		return LG_ECLOSED;
	rc = bufferevent_write(c->bev, frame, len) ? LG_ENOMEM : 0;
	if (!rc && c->state == NET_CONN_OPEN &&
	    evbuffer_get_length(bufferevent_get_output(c->bev)) >
		    NET_OUT_HIGH_WATER) {
		/* The peer is not keeping up: stop taking its requests. */
		c->state = NET_CONN_PAUSED;
		bufferevent_disable(c->bev, EV_READ);
	}
	return rc;
}

void net_conn_close(net_conn *c, const char *why, int flush)
{
	if (c->state == NET_CONN_CLOSED)
		return;
	if (why && !c->why[0])
		snprintf(c->why, sizeof c->why, "%s", why);
	if (flush && evbuffer_get_length(bufferevent_get_output(c->bev))) {
		c->state = NET_CONN_CLOSING;
		bufferevent_disable(c->bev, EV_READ);
		return;
	}
	schedule_close(c, why);
}

int net_conn_hello_reply(net_conn *c, League__HelloReply *r, int status,
			 const char *error, uint64_t session)
{
	net_msg m = LEAGUE__ENVELOPE__INIT;
	League__HelloReply plain = LEAGUE__HELLO_REPLY__INIT;

	if (!r)
		r = &plain;
	r->protocol_version = LEAGUE__CONST__PROTOCOL_VERSION;
	r->status = (League__Status)status;
	r->error = (char *)(uintptr_t)(error ? error : "");
	r->session = session;
	m.body_case = LEAGUE__ENVELOPE__BODY_HELLO_REPLY;
	m.hello_reply = r;
	return net_conn_send(c, &m);
}

void net_event_free(struct event *ev)
{
	if (ev)
		event_free(ev);
}

void net_conn_free(net_conn *c)
{
	if (!c)
		return;
	c->cbs.on_close = NULL;
	conn_finish(c);
}

enum net_conn_state net_conn_state(const net_conn *c)
{
	return c->state;
}

const char *net_conn_peer(const net_conn *c)
{
	return c->peer;
}

size_t net_conn_outq(const net_conn *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}

void net_conn_set_arg(net_conn *c, void *arg)
{
	c->arg = arg;
}

void net_conn_set_frame_cb(net_conn *c, net_frame_cb on_frame)
{
	c->on_frame = on_frame;
}

void net_conn_peer_cert(const net_conn *c, char *out, size_t len)
{
	if (len)
		out[0] = 0;
	if (c->tls)
		net_tls_peer_name(bufferevent_openssl_get_ssl(c->bev), out, len);
}
