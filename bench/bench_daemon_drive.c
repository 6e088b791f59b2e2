/*
 * bench/bench_daemon_drive.c: the client side of `league bench daemon`
 * (see bench/bench_daemon.h for the files).
 *
 * Collectors: --collectors raw non-blocking sockets driven by --threads
 * client threads (epoll), each looping
 *     JobRequest{max_jobs 1} -> Jobs -> JobResult{synthetic episodes} -> Ack
 * and timing each job from its request to its Ack.
 *
 * Reference: a trivial epoll echo server on its own thread that answers the
 * same client code with the daemon's own Jobs and Ack frames (captured from
 * the first daemon phase), so frame sizes, decoding and the client's work
 * are the same and only the daemon's work differs. One ping-pong "job" is
 * the same two round trips.
 *
 * Both sides buffer their sockets in struct bio, which is why they share
 * this file.
 */
#include "bench/bench_daemon.h"
#include "net/net.h"
#include "util/util.h"

#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- buffered non-blocking sockets ------------------------------------ */

struct bio {
	int fd;
	SSL *ssl; /* TLS over fd (the caller's; not freed here); NULL: plain */
	lg_buf in;
	size_t in_off;
	lg_buf out;
	size_t out_off;
	int want_out; /* EPOLLOUT registered */
	uint64_t k;   /* echo: frames answered */
	struct bio *prev, *next; /* echo: every open connection */
};

static void bio_close(struct bio *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	lg_buf_free(&b->in);
	lg_buf_free(&b->out);
	b->in_off = b->out_off = 0;
}

/* Read what is there. 0, or LG_ECLOSED (EOF, error), LG_EPROTO (input
 * beyond BD_FRAME_CAP). */
static int bio_read(struct bio *b)
{
	for (;;) {
		if (b->in_off && b->in_off == b->in.len)
			b->in.len = b->in_off = 0;
		if (b->in.len - b->in_off > BD_FRAME_CAP)
			return LG_EPROTO;
		if (lg_buf_reserve(&b->in, 16384))
			return LG_ENOMEM;
		if (b->ssl) {
			/* Until the socket is drained: nothing stays
			 * decrypted in the SSL object for epoll to miss. */
			int r = SSL_read(b->ssl, b->in.data + b->in.len,
					 (int)LG_MIN(b->in.cap - b->in.len,
						     (size_t)INT32_MAX));
			if (r > 0) {
				b->in.len += (size_t)r;
				continue;
			}
			int e = SSL_get_error(b->ssl, r);
			ERR_clear_error();
			if (e == SSL_ERROR_WANT_READ ||
			    e == SSL_ERROR_WANT_WRITE)
				return 0;
			return LG_ECLOSED;
		}
		ssize_t n = recv(b->fd, b->in.data + b->in.len,
				 b->in.cap - b->in.len, 0);
		if (n > 0) {
			b->in.len += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return LG_ECLOSED;
	}
}

/* Write queued output; register for EPOLLOUT while some is left. */
static int bio_flush(struct bio *b, int epfd, void *tag)
{
	while (b->out_off < b->out.len) {
		if (b->ssl) {
			int r = SSL_write(b->ssl, b->out.data + b->out_off,
					  (int)LG_MIN(b->out.len - b->out_off,
						      (size_t)INT32_MAX));
			if (r > 0) {
				b->out_off += (size_t)r;
				continue;
			}
			int e = SSL_get_error(b->ssl, r);
			ERR_clear_error();
			if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ)
				break;
			return LG_ECLOSED;
		}
		ssize_t n = send(b->fd, b->out.data + b->out_off,
				 b->out.len - b->out_off, MSG_NOSIGNAL);
		if (n > 0) {
			b->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		return LG_ECLOSED;
	}
	int want = b->out_off < b->out.len;
	if (b->out_off == b->out.len)
		b->out.len = b->out_off = 0;
	if (want != b->want_out) {
		struct epoll_event ev = { EPOLLIN | (want ? EPOLLOUT : 0),
					  { .ptr = tag } };
		if (epoll_ctl(epfd, EPOLL_CTL_MOD, b->fd, &ev))
			return LG_EIO;
		b->want_out = want;
	}
	return 0;
}

static int set_nonblock(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return evutil_make_socket_nonblocking(fd) ? LG_EIO : 0;
}

/* ---- the collectors' driver ------------------------------------------- */

/* What every phase shares: the measuring window (ns, CLOCK_MONOTONIC). */
struct window {
	_Atomic uint64_t start, end; /* acks in [start, end) count */
	atomic_int stop;
};

enum { WAIT_JOBS = 1, WAIT_ACK = 2 };

struct coll {
	struct bio io;
	int wait;
	uint64_t seq, t0;
};

struct driver {
	struct coll *c;
	size_t n;
	struct window *w;
	lg_rng rng;
	pthread_t th;
	int epfd;
	/* results */
	uint64_t jobs, empty, stale;
	float *rtt_us;
	size_t nrtt;
	int failed;
	char err[256];
	/* capture: the first one-job Jobs frame and the first Ack frame */
	int capture;
	lg_buf cap_jobs, cap_ack;
	int check_seq; /* the daemon: replies must answer our request */
	/* the JobResult being built (episodes capped at BD_MAX_EPISODES) */
	League__Episode ep[BD_MAX_EPISODES];
	League__Episode *eps[BD_MAX_EPISODES];
	double ret[BD_MAX_EPISODES][2];
};

static int send_msg(struct driver *dv, struct coll *c, net_msg *m)
{
	int rc;

	m->seq = ++c->seq;
	if ((rc = net_frame_encode(m, &c->io.out)))
		return rc;
	return bio_flush(&c->io, dv->epfd, c);
}

static int send_request(struct driver *dv, struct coll *c)
{
	net_msg m = LEAGUE__ENVELOPE__INIT;
	League__JobRequest jr = LEAGUE__JOB_REQUEST__INIT;

	jr.max_jobs = 1;
	m.body_case = LEAGUE__ENVELOPE__BODY_JOB_REQUEST;
	m.job_request = &jr;
	c->wait = WAIT_JOBS;
	c->t0 = lg_now_ns();
	return send_msg(dv, c, &m);
}

/* The job's episodes with synthetic returns (a fair coin, no draws). */
static int send_result(struct driver *dv, struct coll *c, const League__Job *j)
{
	net_msg m = LEAGUE__ENVELOPE__INIT;
	League__JobResult jr = LEAGUE__JOB_RESULT__INIT;
	size_t n = LG_MIN(j->episodes, (uint32_t)BD_MAX_EPISODES);

	for (size_t i = 0; i < n; i++) {
		League__Episode *e = &dv->ep[i];
		league__episode__init(e);
		dv->ret[i][0] = lg_rng_below(&dv->rng, 2) ? 1 : -1;
		dv->ret[i][1] = -dv->ret[i][0];
		e->n_returns = 2;
		e->returns = dv->ret[i];
		e->steps = 1;
		dv->eps[i] = e;
	}
	jr.job_id = j->job_id;
	jr.n_episodes = n;
	jr.episodes = dv->eps;
	m.body_case = LEAGUE__ENVELOPE__BODY_JOB_RESULT;
	m.job_result = &jr;
	c->wait = WAIT_ACK;
	return send_msg(dv, c, &m);
}

static int on_frame(struct driver *dv, struct coll *c, const net_msg *m,
		    const uint8_t *raw, size_t rawlen)
{
	uint64_t now = lg_now_ns();

	/* The echo server's canned replies carry the daemon's reply_to. */
	if (dv->check_seq && m->reply_to != c->seq) {
		snprintf(dv->err, sizeof dv->err, "%s replying to %llu, not "
			 "%llu", net_msg_name(m),
			 (unsigned long long)m->reply_to,
			 (unsigned long long)c->seq);
		return LG_EPROTO;
	}
	if (c->wait == WAIT_JOBS &&
	    m->body_case == LEAGUE__ENVELOPE__BODY_JOBS) {
		if (m->jobs->n_jobs == 0) {
			dv->empty++;
			return send_request(dv, c);
		}
		if (dv->capture && !dv->cap_jobs.len && m->jobs->n_jobs == 1 &&
		    lg_buf_append(&dv->cap_jobs, raw, rawlen))
			return LG_ENOMEM;
		return send_result(dv, c, m->jobs->jobs[0]);
	}
	if (c->wait == WAIT_ACK && m->body_case == LEAGUE__ENVELOPE__BODY_ACK) {
		if (m->ack->status != LEAGUE__STATUS__STATUS_OK) {
			dv->stale++;
		} else if (now >= atomic_load(&dv->w->start) &&
			   now < atomic_load(&dv->w->end)) {
			dv->jobs++;
			if (dv->nrtt < BD_MAX_SAMPLES)
				dv->rtt_us[dv->nrtt++] =
					(float)((double)(now - c->t0) / 1e3);
		}
		if (dv->capture && !dv->cap_ack.len &&
		    m->ack->status == LEAGUE__STATUS__STATUS_OK &&
		    lg_buf_append(&dv->cap_ack, raw, rawlen))
			return LG_ENOMEM;
		return send_request(dv, c);
	}
	snprintf(dv->err, sizeof dv->err, "unexpected %s", net_msg_name(m));
	return LG_EPROTO;
}

static int on_readable(struct driver *dv, struct coll *c)
{
	char err[256];
	int rc = bio_read(&c->io);

	if (rc)
		return rc;
	while (c->io.in_off < c->io.in.len) {
		net_msg *m;
		size_t used;
		const uint8_t *p = c->io.in.data + c->io.in_off;
		rc = net_frame_decode(p, c->io.in.len - c->io.in_off,
				      BD_FRAME_CAP, &m, &used, err,
				      sizeof err);
		if (rc == 1)
			break;
		if (rc) {
			snprintf(dv->err, sizeof dv->err, "%s", err);
			return rc;
		}
		c->io.in_off += used;
		rc = on_frame(dv, c, m, p, used);
		net_msg_free(m);
		if (rc)
			return rc;
	}
	return 0;
}

static void *driver_main(void *arg)
{
	struct driver *dv = arg;
	struct epoll_event evs[64];
	int rc = 0;

	for (size_t i = 0; i < dv->n && !rc; i++)
		rc = send_request(dv, &dv->c[i]);
	while (!rc && !atomic_load(&dv->w->stop)) {
		int n = epoll_wait(dv->epfd, evs, LG_ARRAY_LEN(evs), 50);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = LG_EIO;
			break;
		}
		for (int i = 0; i < n && !rc; i++) {
			struct coll *c = evs[i].data.ptr;
			if (evs[i].events & EPOLLOUT)
				rc = bio_flush(&c->io, dv->epfd, c);
			if (!rc && (evs[i].events & (EPOLLIN | EPOLLHUP |
						     EPOLLERR)))
				rc = on_readable(dv, c);
		}
	}
	if (rc) {
		dv->failed = rc;
		if (!dv->err[0])
			snprintf(dv->err, sizeof dv->err, "%s",
				 lg_strerror(rc));
		atomic_store(&dv->w->stop, 1);
	}
	return NULL;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* f's p50 and p99 over the round trips every driver kept (total of
 * them). 0 or LG_ENOMEM. */
static int percentiles(const struct driver *dv, uint64_t threads,
		       size_t total, struct figures *f)
{
	float *all;

	if (!total)
		return 0;
	if (!(all = malloc(sizeof(float) * total)))
		return LG_ENOMEM;
	for (uint64_t t = 0, k = 0; t < threads; t++) {
		memcpy(all + k, dv[t].rtt_us, sizeof(float) * dv[t].nrtt);
		k += dv[t].nrtt;
	}
	qsort(all, total, sizeof(float), cmp_float);
	f->p50 = all[(size_t)(0.50 * (double)(total - 1))];
	f->p99 = all[(size_t)(0.99 * (double)(total - 1))];
	free(all);
	return 0;
}

/* Ready the drivers dv[0..threads) on window w: their rng, samples
 * buffer and epoll set (the first one capturing its frames when
 * capture). 0 or LG_ENOMEM (the caller frees what was made). */
static int drivers_init(struct driver *dv, uint64_t threads,
			struct window *w, int check_seq, int capture)
{
	for (uint64_t t = 0; t < threads; t++) {
		struct driver *d = &dv[t];
		d->w = w;
		d->capture = t == 0 && capture;
		d->check_seq = check_seq;
		d->epfd = -1;
		lg_rng_seed2(&d->rng, 20261123, t);
		if (!(d->rtt_us = malloc(sizeof(float) * BD_MAX_SAMPLES)) ||
		    (d->epfd = epoll_create1(0)) < 0)
			return LG_ENOMEM;
	}
	return 0;
}

/* Collector i (fds[i], ssls[i] unless ssls is NULL) goes to thread
 * i % threads; each thread's block of cs is contiguous. 0 or LG_EIO (a
 * socket that cannot be made non-blocking or watched). */
static int drivers_assign(struct driver *dv, uint64_t threads,
			  struct coll *cs, const int *fds,
			  struct ssl_st *const *ssls, size_t n)
{
	for (uint64_t t = 0, at = 0; t < threads; t++) {
		struct driver *d = &dv[t];
		d->c = cs + at;
		for (size_t i = t; i < n; i += threads) {
			struct coll *c = &cs[at++];
			struct epoll_event ev = { EPOLLIN, { .ptr = c } };
			c->io.fd = fds[i];
			c->io.ssl = ssls ? ssls[i] : NULL;
			if (set_nonblock(c->io.fd) ||
			    epoll_ctl(d->epfd, EPOLL_CTL_ADD, c->io.fd, &ev))
				return LG_EIO;
			d->n++;
		}
	}
	return 0;
}

/* The drivers' counts summed into f (jobs, empty, stale, threads) and
 * *total (round trips sampled). A thread's failure instead: its code,
 * err naming the thread. */
static int sum_figures(const struct driver *dv, uint64_t threads,
		       size_t *total, struct figures *f, char *err,
		       size_t errlen)
{
	for (uint64_t t = 0; t < threads; t++) {
		if (dv[t].failed) {
			lg_errf(err, errlen, "collector thread %llu: %s",
				(unsigned long long)t, dv[t].err);
			return dv[t].failed;
		}
		f->jobs += dv[t].jobs;
		f->empty += dv[t].empty;
		f->stale += dv[t].stale;
		*total += dv[t].nrtt;
	}
	f->threads = (int)threads;
	return 0;
}

/* See bench/bench_daemon.h. Collector i goes to thread i % threads. */
int bench_daemon_drive(const int *fds, struct ssl_st *const *ssls, size_t n,
		       uint64_t threads, double seconds, int check_seq,
		       pthread_t server,
		       struct figures *f, lg_buf *cap_jobs, lg_buf *cap_ack,
		       char *err, size_t errlen)
{
	struct window w;
	struct driver *dv = calloc(threads, sizeof *dv);
	struct coll *cs = calloc(n, sizeof *cs);
	size_t total = 0, started = 0;
	double warm = LG_MIN(0.5, seconds / 4);
	uint64_t t_start = 0, t_end = 1;
	struct timespec cpu0 = { 0, 0 }, cpu1 = { 0, 0 };
	clockid_t clk;
	int rc = 0, have_clk = !pthread_getcpuclockid(server, &clk);

	memset(f, 0, sizeof *f);
	atomic_init(&w.start, UINT64_MAX);
	atomic_init(&w.end, UINT64_MAX);
	atomic_init(&w.stop, 0);
	if (!dv || !cs) {
		rc = LG_ENOMEM;
		goto out;
	}
	if ((rc = drivers_init(dv, threads, &w, check_seq,
			       cap_jobs != NULL)) ||
	    (rc = drivers_assign(dv, threads, cs, fds, ssls, n)))
		goto out;
	for (uint64_t t = 0; t < threads; t++, started++)
		if (pthread_create(&dv[t].th, NULL, driver_main, &dv[t])) {
			rc = LG_ENOMEM;
			atomic_store(&w.stop, 1);
			break;
		} else {
			pthread_setname_np(dv[t].th, "bench-client");
		}
	if (!rc) {
		lg_sleep_s(warm);
		if (have_clk)
			clock_gettime(clk, &cpu0);
		t_start = lg_now_ns();
		atomic_store(&w.start, t_start);
		lg_sleep_s(seconds);
		t_end = lg_now_ns();
		atomic_store(&w.end, t_end);
		if (have_clk)
			clock_gettime(clk, &cpu1);
		atomic_store(&w.stop, 1);
	}
	for (size_t t = 0; t < started; t++)
		pthread_join(dv[t].th, NULL);
	if (rc)
		goto out;
	if ((rc = sum_figures(dv, threads, &total, f, err, errlen)))
		goto out;
	f->per_s = (double)f->jobs / ((double)(t_end - t_start) / 1e9);
	if (f->jobs)
		f->server_cpu_us = ((double)(cpu1.tv_sec - cpu0.tv_sec) * 1e6 +
				    (double)(cpu1.tv_nsec - cpu0.tv_nsec) /
					    1e3) /
				   (double)f->jobs;
	if ((rc = percentiles(dv, threads, total, f)))
		goto out;
	if (cap_jobs) {
		if (!dv[0].cap_jobs.len || !dv[0].cap_ack.len) {
			lg_errf(err, errlen, "no job was played");
			rc = LG_EIO;
			goto out;
		}
		if ((rc = lg_buf_append(cap_jobs, dv[0].cap_jobs.data,
					dv[0].cap_jobs.len)) ||
		    (rc = lg_buf_append(cap_ack, dv[0].cap_ack.data,
					dv[0].cap_ack.len)))
			goto out;
	}
out:
	if (rc && !err[0])
		lg_errf(err, errlen, "%s", lg_strerror(rc));
	for (uint64_t t = 0; dv && t < threads; t++) {
		if (dv[t].epfd >= 0)
			close(dv[t].epfd);
		free(dv[t].rtt_us);
		lg_buf_free(&dv[t].cap_jobs);
		lg_buf_free(&dv[t].cap_ack);
	}
	for (size_t i = 0; cs && i < n; i++) {
		lg_buf_free(&cs[i].io.in);
		lg_buf_free(&cs[i].io.out);
	}
	free(cs);
	free(dv);
	return rc;
}

/* ---- the reference: a trivial echo server ------------------------------ */

struct echo {
	int lfd, epfd, wake[2];
	uint16_t port;
	pthread_t th;
	const lg_buf *reply[2]; /* answer frame k of a connection with
				   reply[k % 2] */
	struct bio *conns;      /* open connections, freed at stop */
	int started, failed;
};

static void echo_drop(struct echo *e, struct bio *b)
{
	epoll_ctl(e->epfd, EPOLL_CTL_DEL, b->fd, NULL);
	if (b->prev)
		b->prev->next = b->next;
	else
		e->conns = b->next;
	if (b->next)
		b->next->prev = b->prev;
	bio_close(b);
	free(b);
}

static int echo_frames(struct echo *e, struct bio *b)
{
	while (b->in.len - b->in_off >= NET_FRAME_HDR) {
		uint32_t len = lg_get_be32(b->in.data + b->in_off);
		if (len > BD_FRAME_CAP)
			return LG_EPROTO;
		if (b->in.len - b->in_off < NET_FRAME_HDR + (size_t)len)
			break;
		b->in_off += NET_FRAME_HDR + len;
		const lg_buf *r = e->reply[b->k++ & 1];
		if (lg_buf_append(&b->out, r->data, r->len))
			return LG_ENOMEM;
	}
	return bio_flush(b, e->epfd, b);
}

static void *echo_main(void *arg)
{
	struct echo *e = arg;
	struct epoll_event evs[64];

	for (;;) {
		int n = epoll_wait(e->epfd, evs, LG_ARRAY_LEN(evs), -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e->failed = LG_EIO;
			return NULL;
		}
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;
			if (tag == &e->wake)
				return NULL;
			if (tag == &e->lfd) {
				int fd = accept(e->lfd, NULL, NULL);
				struct bio *b;
				if (fd < 0)
					continue;
				if (!(b = calloc(1, sizeof *b)) ||
				    set_nonblock(fd)) {
					free(b);
					close(fd);
					continue;
				}
				b->fd = fd;
				b->next = e->conns;
				if (e->conns)
					e->conns->prev = b;
				e->conns = b;
				struct epoll_event ev = { EPOLLIN,
							  { .ptr = b } };
				if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev))
					echo_drop(e, b);
				continue;
			}
			struct bio *b = tag;
			int rc = 0;
			if (evs[i].events & EPOLLOUT)
				rc = bio_flush(b, e->epfd, b);
			if (!rc && (evs[i].events & (EPOLLIN | EPOLLHUP |
						     EPOLLERR)))
				rc = bio_read(b);
			if (!rc)
				rc = echo_frames(e, b);
			if (rc) /* the peer is gone (or misbehaved) */
				echo_drop(e, b);
		}
	}
}

static void echo_stop(struct echo *e);

/* Start the echo server on a free loopback port (e->port). Connections
 * are freed as their peers close, the rest by echo_stop. */
static int echo_start(struct echo *e, const lg_buf *jobs, const lg_buf *ackf,
		      char *err, size_t errlen)
{
	struct epoll_event ev = { EPOLLIN, { .ptr = &e->lfd } };
	struct epoll_event wv = { EPOLLIN, { .ptr = &e->wake } };
	int rc;

	memset(e, 0, sizeof *e);
	e->lfd = e->epfd = e->wake[0] = e->wake[1] = -1;
	e->reply[0] = jobs;
	e->reply[1] = ackf;
	if ((rc = net_listen_tcp("127.0.0.1", 0, &e->lfd, &e->port, err,
				 errlen)))
		return rc;
	if ((e->epfd = epoll_create1(0)) < 0 || pipe(e->wake) ||
	    epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->lfd, &ev) ||
	    epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->wake[0], &wv) ||
	    pthread_create(&e->th, NULL, echo_main, e)) {
		lg_errf(err, errlen, "echo server: %s", strerror(errno));
		echo_stop(e);
		return LG_EIO;
	}
	e->started = 1;
	pthread_setname_np(e->th, "bench-echo");
	return 0;
}

static void echo_stop(struct echo *e)
{
	int fds[4] = { e->lfd, e->epfd, e->wake[0], e->wake[1] };

	if (e->started && write(e->wake[1], "x", 1) == 1)
		pthread_join(e->th, NULL);
	while (e->conns)
		echo_drop(e, e->conns);
	for (int i = 0; i < 4; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* See bench/bench_daemon.h. The echo server is stopped before return. */
int bench_daemon_pingpong(const struct bargs *a, const lg_buf *jobs,
			  const lg_buf *ackf, struct figures *f, char *err,
			  size_t errlen)
{
	struct echo e;
	int *fds = calloc(a->collectors, sizeof(int)), rc;

	if (!fds)
		return LG_ENOMEM;
	if ((rc = echo_start(&e, jobs, ackf, err, errlen))) {
		free(fds);
		return rc;
	}
	for (uint64_t i = 0; i < a->collectors; i++)
		fds[i] = -1;
	for (uint64_t i = 0; i < a->collectors && !rc; i++)
		rc = net_connect_tcp("127.0.0.1", e.port, &fds[i], err,
				     errlen);
	if (!rc)
		rc = bench_daemon_drive(fds, NULL, (size_t)a->collectors, a->threads,
					a->seconds, 0, e.th, f, NULL, NULL,
					err, errlen);
	for (uint64_t i = 0; i < a->collectors; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	echo_stop(&e);
	if (!rc && e.failed)
		rc = e.failed;
	free(fds);
	return rc;
}
