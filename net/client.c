/* net/client.c: the worker-side blocking client (see net.h).
 *
 * The socket is shared by the caller's thread and the heartbeat thread;
 * a mutex serializes whole-frame sends so frames never interleave. Only the
 * caller's thread reads. */
#include "net/net.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct net_client {
	struct net_client_opts o;
	char host[256], token[256], name[128];
	char league[128], env[64];
	net_stream st; /* st.fd < 0: not connected */
	uint64_t seq, session;
	double heartbeat_s;
	int shutdown;
	pthread_mutex_t send_lock;
	pthread_mutex_t hb_lock;
	pthread_cond_t hb_cond;
	pthread_t hb_thread;
	int hb_running, hb_stop;
};

static int send_locked(net_client *c, net_msg *m)
{
	int rc;

	pthread_mutex_lock(&c->send_lock);
	rc = c->st.fd >= 0 ? net_stream_send(&c->st, m) : LG_ECLOSED;
	pthread_mutex_unlock(&c->send_lock);
	return rc;
}

static void *heartbeat_main(void *arg)
{
	net_client *c = arg;

	pthread_mutex_lock(&c->hb_lock);
	while (!c->hb_stop) {
		struct timespec ts;
		double period = c->heartbeat_s / 2, when;

		clock_gettime(CLOCK_REALTIME, &ts);
		when = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + period;
		ts.tv_sec = (time_t)when;
		ts.tv_nsec = (long)((when - (double)ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&c->hb_cond, &c->hb_lock, &ts);
		if (c->hb_stop)
			break;
		pthread_mutex_unlock(&c->hb_lock);
		net_msg m = LEAGUE__ENVELOPE__INIT;
		League__Heartbeat hb = LEAGUE__HEARTBEAT__INIT;
		hb.sent_us = lg_now_ns() / 1000;
		m.body_case = LEAGUE__ENVELOPE__BODY_HEARTBEAT;
		m.heartbeat = &hb;
		send_locked(c, &m); /* a failure shows up in the next call */
		pthread_mutex_lock(&c->hb_lock);
	}
	pthread_mutex_unlock(&c->hb_lock);
	return NULL;
}

static void stop_heartbeats(net_client *c)
{
	if (!c->hb_running)
		return;
	pthread_mutex_lock(&c->hb_lock);
	c->hb_stop = 1;
	pthread_cond_signal(&c->hb_cond);
	pthread_mutex_unlock(&c->hb_lock);
	pthread_join(c->hb_thread, NULL);
	c->hb_running = 0;
}

static void drop(net_client *c)
{
	stop_heartbeats(c);
	pthread_mutex_lock(&c->send_lock);
	net_stream_close(&c->st);
	pthread_mutex_unlock(&c->send_lock);
}

/* One connect + hello attempt. */
static int attempt(net_client *c, char *err, size_t errlen)
{
	net_msg m = LEAGUE__ENVELOPE__INIT, *r = NULL;
	League__Hello h = LEAGUE__HELLO__INIT;
	net_stream st;
	int rc;

	if ((rc = net_stream_connect(&st, c->host, c->o.port, c->o.tls, 10,
				     err, errlen)))
		return rc;
	h.protocol_version = LEAGUE__CONST__PROTOCOL_VERSION;
	h.token = c->token;
	h.role = (League__Role)c->o.role;
	h.name = c->name;
	m.seq = ++c->seq;
	m.body_case = LEAGUE__ENVELOPE__BODY_HELLO;
	m.hello = &h;
	if ((rc = net_stream_send(&st, &m)) ||
	    (rc = net_stream_recv(&st, c->o.max_frame, 10, &r, err, errlen))) {
		net_stream_close(&st);
		if (rc == LG_EAUTH)
			lg_errf(err, errlen, "the daemon refused this worker's "
				"TLS certificate (or it has none)");
		return rc == LG_EPROTO || rc == LG_EAUTH ? rc : LG_ECLOSED;
	}
	if (r->body_case != LEAGUE__ENVELOPE__BODY_HELLO_REPLY) {
		lg_errf(err, errlen, "daemon answered hello with %s",
			net_msg_name(r));
		rc = LG_EPROTO;
	} else if (r->hello_reply->status != LEAGUE__STATUS__STATUS_OK) {
		int why = r->hello_reply->status;
		lg_errf(err, errlen, "daemon refused: %s", r->hello_reply->error);
		rc = why == LEAGUE__STATUS__STATUS_AUTH ? LG_EAUTH
		     : why == LEAGUE__STATUS__STATUS_VERSION ? LG_EVERSION
		     : why == LEAGUE__STATUS__STATUS_SHUTTING_DOWN ? LG_ECLOSED
								  : LG_EPROTO;
	} else {
		c->session = r->hello_reply->session;
		c->heartbeat_s = r->hello_reply->heartbeat_s > 0
					 ? r->hello_reply->heartbeat_s : 5;
		snprintf(c->league, sizeof c->league, "%s", r->hello_reply->league);
		snprintf(c->env, sizeof c->env, "%s", r->hello_reply->env);
	}
	net_msg_free(r);
	if (rc) {
		net_stream_close(&st);
		return rc;
	}
	pthread_mutex_lock(&c->send_lock);
	c->st = st;
	pthread_mutex_unlock(&c->send_lock);
	c->shutdown = 0;
	c->hb_stop = 0;
	if (pthread_create(&c->hb_thread, NULL, heartbeat_main, c) == 0)
		c->hb_running = 1;
	return 0;
}

static int connect_with_backoff(net_client *c, char *err, size_t errlen)
{
	double deadline = lg_now_s() + c->o.give_up_s;
	double wait = c->o.backoff_min_s > 0 ? c->o.backoff_min_s : 0.05;
	double cap = c->o.backoff_max_s > 0 ? c->o.backoff_max_s : 2;

	for (;;) {
		int rc = attempt(c, err, errlen);
		if (rc == 0 || rc == LG_EAUTH || rc == LG_EVERSION)
			return rc;
		if (lg_now_s() + wait > deadline)
			return rc;
		lg_sleep_s(wait);
		wait = LG_MIN(wait * 2, cap);
	}
}

int net_client_connect(net_client **out, const struct net_client_opts *o,
		       char *err, size_t errlen)
{
	net_client *c = calloc(1, sizeof *c);
	int rc;

	*out = NULL;
	if (!c)
		return LG_ENOMEM;
	c->o = *o;
	net_stream_plain(&c->st, -1);
	if (!c->o.max_frame)
		c->o.max_frame = NET_DEFAULT_MAX_FRAME;
	snprintf(c->host, sizeof c->host, "%s", o->host ? o->host : "127.0.0.1");
	snprintf(c->token, sizeof c->token, "%s", o->token ? o->token : "");
	snprintf(c->name, sizeof c->name, "%s", o->name ? o->name : "worker");
	pthread_mutex_init(&c->send_lock, NULL);
	pthread_mutex_init(&c->hb_lock, NULL);
	pthread_cond_init(&c->hb_cond, NULL);
	if ((rc = connect_with_backoff(c, err, errlen))) {
		net_client_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

int net_client_reconnect(net_client *c, char *err, size_t errlen)
{
	drop(c);
	return connect_with_backoff(c, err, errlen);
}

int net_client_send(net_client *c, net_msg *m)
{
	m->seq = ++c->seq;
	return send_locked(c, m);
}

int net_client_call(net_client *c, net_msg *req, net_msg **reply,
		    double timeout_s, char *err, size_t errlen)
{
	double deadline = lg_now_s() + timeout_s;
	int rc;

	*reply = NULL;
	if ((rc = net_client_send(c, req)))
		return rc;
	for (;;) {
		net_msg *r;
		double left = deadline - lg_now_s();
		if (left <= 0)
			return LG_ETIMEOUT;
		rc = net_stream_recv(&c->st, c->o.max_frame, left, &r, err,
				     errlen);
		if (rc)
			return rc;
		if (r->body_case == LEAGUE__ENVELOPE__BODY_SHUTDOWN)
			c->shutdown = 1;
		if (r->reply_to == req->seq &&
		    r->body_case != LEAGUE__ENVELOPE__BODY_HEARTBEAT) {
			*reply = r;
			return 0;
		}
		net_msg_free(r); /* heartbeat echo or unsolicited */
	}
}

int net_client_poll(net_client *c)
{
	for (;;) {
		struct pollfd pfd = { .fd = c->st.fd, .events = POLLIN };
		net_msg *r;
		char err[128];
		int rc;

		if (c->st.fd < 0)
			return LG_ECLOSED;
		if (!net_stream_pending(&c->st) && poll(&pfd, 1, 0) <= 0)
			return 0;
		/* Readable: a frame (or the end) is arriving. */
		if ((rc = net_stream_recv(&c->st, c->o.max_frame, 1.0, &r, err,
					  sizeof err)))
			return rc;
		int stop = r->body_case == LEAGUE__ENVELOPE__BODY_SHUTDOWN;
		net_msg_free(r);
		if (stop) {
			c->shutdown = 1; /* the close that follows is expected */
			return 0;
		}
	}
}

int net_client_shutdown_requested(const net_client *c)
{
	return c->shutdown;
}

double net_client_heartbeat_s(const net_client *c)
{
	return c->heartbeat_s > 0 ? c->heartbeat_s : 5;
}

uint64_t net_client_session(const net_client *c)
{
	return c->session;
}

const char *net_client_league(const net_client *c)
{
	return c->league;
}

const char *net_client_env(const net_client *c)
{
	return c->env;
}

void net_client_close(net_client *c)
{
	if (!c)
		return;
	drop(c);
	pthread_mutex_destroy(&c->send_lock);
	pthread_mutex_destroy(&c->hb_lock);
	pthread_cond_destroy(&c->hb_cond);
	free(c);
}
