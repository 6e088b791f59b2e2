/*
 * workers/traj_out.c: the collector's trajectory senders, one per learner
 * endpoint, and the rules that keep one learner from stopping the rest.
 *
 * Every call runs on the collector's sink (serialized by the collector),
 * so nothing here locks. A segment goes to its learner over a sender
 * connected on first use; a learner that says nothing for
 * NET_SILENT_HEARTBEATS of the daemon's heartbeat periods (no credit, no
 * stream heartbeat, no byte taken) while a segment waits for it is given
 * up (o->silent_s, the bound by which the daemon drops a silent worker):
 * its sender is closed and the endpoint is marked down. A down endpoint's
 * segments are refused at once, and it is tried again only after a
 * hold-off that doubles with each failure in a row and only for a job
 * taken after it failed: the daemon names a learner's endpoint in a job
 * only while that learner is registered, so a learner the daemon dropped
 * costs no further waits until it registers again.
 */
#include "workers/workers_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A learner the daemon stopped goes down a moment before the collector
 * hears of the stop; without a hold-off every segment flushed in between
 * tried to connect and logged two warnings. The hold-off is
 * max(DOWN_RETRY_S, silent_s) doubled for each failure in a row (at most
 * DOWN_MAX_DOUBLINGS times); a learner that grants credit again (it
 * reads) starts the count over. Warnings: at most one per DOWN_WARN_S
 * per endpoint. */
#define DOWN_RETRY_S 1.0
#define DOWN_WARN_S 10.0
#define DOWN_MAX_DOUBLINGS 3

static struct worker_traj_down *down_of(struct worker_traj_out *o,
					 const char *ep)
{
	for (int i = 0; i < o->ndown; i++)
		if (!strcmp(o->down[i].endpoint, ep))
			return &o->down[i];
	return NULL;
}

/* The hold-off after `fails` failures in a row before this one. */
static double down_hold(const struct worker_traj_out *o, unsigned fails)
{
	double base = LG_MAX(DOWN_RETRY_S, o->silent_s);

	return base * (double)(1u << LG_MIN(fails, DOWN_MAX_DOUBLINGS));
}

/* ep failed (why): no new attempt for its hold-off, nor for a job taken
 * before now; warn unless it was warned about within DOWN_WARN_S. */
static void mark_down(struct worker_traj_out *o, const char *ep,
		      const char *why)
{
	struct worker_traj_down *d = down_of(o, ep);
	double now = lg_now_s();

	if (!d) {
		if (o->ndown == WORKER_TRAJ_OUT_MAX) /* forget the oldest */
			memmove(o->down, o->down + 1,
				sizeof(o->down[0]) * --o->ndown);
		d = &o->down[o->ndown++];
		memset(d, 0, sizeof *d);
		snprintf(d->endpoint, sizeof d->endpoint, "%s", ep);
		d->warned_at = -HUGE_VAL;
	}
	d->since = now;
	d->until = now + down_hold(o, d->fails++);
	if (now - d->warned_at < DOWN_WARN_S)
		return;
	d->warned_at = now;
	LG_WARN("collect: learner at %s: %s; its transitions are dropped "
		"while it is down, tried again in %.1f s for a newer job "
		"(%llu undeliverable so far)", ep, why, d->until - now,
		(unsigned long long)(o->undeliverable
			? __atomic_load_n(o->undeliverable, __ATOMIC_RELAXED)
			: 0));
}

/* The connected sender of ep, or NULL. */
static net_traj_sender *sender_of(struct worker_traj_out *o,
				  const char *ep)
{
	for (int i = 0; i < o->nsenders; i++)
		if (!strcmp(o->senders[i].endpoint, ep))
			return o->senders[i].s;
	return NULL;
}

/* The sender of ep, connected now if need be (the hello answered within
 * silent_s, at most 5 s); NULL when it cannot be (then marked down). */
static net_traj_sender *sender_for(struct worker_traj_out *o, const char *ep)
{
	char host[128], err[256];
	uint16_t port;
	net_traj_sender *x;

	if ((x = sender_of(o, ep)))
		return x;
	if (o->nsenders == WORKER_TRAJ_OUT_MAX) {
		net_traj_sender_close(o->senders[0].s);
		memmove(o->senders, o->senders + 1,
			sizeof(o->senders[0]) * (WORKER_TRAJ_OUT_MAX - 1));
		o->nsenders--;
	}
	if (net_parse_hostport(ep, host, sizeof host, &port)) {
		LG_WARN("collect: bad learner endpoint '%s'", ep);
		return NULL;
	}
	struct worker_traj_sender *s = &o->senders[o->nsenders];
	if (net_traj_sender_connect(&s->s, host, port, o->token, o->tls,
				    o->name, LG_MIN(5.0, o->silent_s), err,
				    sizeof err)) {
		mark_down(o, ep, err);
		return NULL;
	}
	snprintf(s->endpoint, sizeof s->endpoint, "%s", ep);
	o->nsenders++;
	return s->s;
}

static void sender_drop(struct worker_traj_out *o, net_traj_sender *x)
{
	for (int i = 0; i < o->nsenders; i++)
		if (o->senders[i].s == x) {
			net_traj_sender_close(x);
			o->senders[i] = o->senders[--o->nsenders];
			return;
		}
}

/* Send over x, or give it up (closed, ep marked down with why). */
static int send_or_drop(struct worker_traj_out *o, const char *ep,
			net_traj_sender *x, const struct net_segment_hdr *h,
			const struct lg_rows *rows, double timeout_s,
			const char *why)
{
	struct worker_traj_down *dn;
	char msg[128];
	int rc = net_traj_send(x, h, rows, timeout_s, o->silent_s);

	if (!rc) {
		if ((dn = down_of(o, ep)) && dn->fails &&
		    net_traj_sender_grants(x) > 1)
			dn->fails = 0; /* it reads again */
		return 0;
	}
	sender_drop(o, x);
	snprintf(msg, sizeof msg, "%s (%s)", why, lg_strerror(rc));
	mark_down(o, ep, msg);
	return rc;
}

int worker_traj_out_send(struct worker_traj_out *o, const char *ep,
			 double got_at, const struct net_segment_hdr *h,
			 const struct lg_rows *rows, double timeout_s)
{
	struct worker_traj_down *dn = down_of(o, ep);
	net_traj_sender *x = sender_of(o, ep);

	/* a connected sender is used; a down endpoint is tried again only
	 * after its hold-off and for a job the daemon named it in since */
	if (!x && !(dn && (lg_now_s() < dn->until || got_at <= dn->since)))
		x = sender_for(o, ep);
	if (!x)
		return LG_ECLOSED;
	return send_or_drop(o, ep, x, h, rows, timeout_s, "sending failed");
}

int worker_traj_out_mark(struct worker_traj_out *o, const char *ep,
			 const struct net_segment_hdr *h,
			 const struct lg_rows *none, double timeout_s)
{
	net_traj_sender *x = sender_for(o, ep);

	if (!x)
		return LG_ECLOSED;
	return send_or_drop(o, ep, x, h, none, timeout_s,
			    "the job's end mark was not taken");
}

void worker_traj_out_close(struct worker_traj_out *o)
{
	for (int i = 0; i < o->nsenders; i++)
		net_traj_sender_close(o->senders[i].s);
	o->nsenders = 0;
}
