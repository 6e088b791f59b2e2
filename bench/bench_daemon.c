/*
 * bench/bench_daemon.c: `league bench daemon`, jobs per second and job
 * round trips through the real daemon over loopback, beside a raw
 * request/response ping-pong measured in the same run.
 *
 * The league: the config below (3 learners: main, main exploiter, league
 * exploiter; --episodes per job, 64 like configs/default.yaml) grown to --players players and snapshots
 * by the real brain with players/sim.c (brain_sim_run, what `league sim`
 * runs), then a parameter blob is stored for every (player, version) a
 * job can name, in the daemon's own layout (league/daemon.h: STORE_DB_PARAMS,
 * key be32 player, be32 version). The daemon then opens it with resume, in
 * this process on its own thread and event base.
 *
 * Workers: one simulated learner per learning player (net_client: Hello,
 * Register, one ParamsPut; its heartbeat thread keeps it connected) and
 * --collectors simulated collectors, raw non-blocking sockets driven by
 * --threads client threads (epoll), each looping
 *     JobRequest{max_jobs 1} -> Jobs -> JobResult{synthetic episodes} -> Ack
 * and timing each job from its request to its Ack.
 *
 * Reference: a trivial epoll echo server on its own thread that answers the
 * same client code with the daemon's own Jobs and Ack frames (captured from
 * the first daemon phase), so frame sizes, decoding and the client's work
 * are the same and only the daemon's work differs. One ping-pong "job" is
 * the same two round trips. ratio = jobs_per_s / pingpong_per_s.
 *
 * Phases, each --seconds after a short warm-up: the daemon with fsync per
 * commit (its default), the ping-pong, the daemon with STORE_NOSYNC.
 */
#include "bench/bench.h"
#include "cli/cli.h"
#include "league/config.h"
#include "league/daemon.h"
#include "league/options.h"
#include "net/net.h"
#include "players/players.h"
#include "storage/storage.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BD_MAX_COLLECTORS 1024
#define BD_MAX_THREADS 16
#define BD_MAX_PLAYERS 20000
#define BD_MAX_LEARNERS 256
#define BD_BLOB_BYTES 4096       /* parameter blob size */
#define BD_MAX_SAMPLES (1u << 22) /* round trips kept per thread */
#define BD_FRAME_CAP (1u << 20)  /* client and echo input cap */
#define BD_CALL_S 10.0
#define BD_MAX_EPISODES LEAGUE_JOB_EPISODES_MAX /* job_episodes cap */

/* The league's config; %llu is --episodes. */
static const char bd_config[] =
	"league:\n  name: bench\n  seed: 1\n"
	"env:\n  name: rps\n"
	"players:\n  main: 1\n  main_exploiter: 1\n  league_exploiter: 1\n"
	"snapshot:\n  steps: 20000\n"
	"matchmaking:\n  job_episodes: %llu\n  job_lease_s: 60\n"
	"server:\n  heartbeat_s: 5\n"
	"budget:\n  seconds: 1e8\n";

struct bargs {
	uint64_t collectors, players, threads, episodes;
	double seconds;
	const char *store; /* both, fsync, nosync */
	int json;
};

/* ---- buffered non-blocking sockets ------------------------------------ */

struct bio {
	int fd;
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

struct figures {
	double per_s, p50, p99;
	double server_cpu_us; /* server thread CPU per job in the window */
	uint64_t jobs, empty, stale;
	int threads;
};

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/*
 * Drive the connected sockets fds[0..n) with `threads` threads: warm up,
 * measure `seconds`, stop. check_seq: every reply must answer the
 * connection's last request (the daemon; not the echo server). server is
 * the thread answering (its CPU time over the window is reported). The sockets stay open (the caller closes).
 * With cap_jobs/cap_ack, the first Jobs and Ack frames are copied there.
 */
static int drive(const int *fds, size_t n, uint64_t threads, double seconds,
		 int check_seq, pthread_t server, struct figures *f,
		 lg_buf *cap_jobs, lg_buf *cap_ack, char *err, size_t errlen)
{
	struct window w;
	struct driver *dv = calloc(threads, sizeof *dv);
	struct coll *cs = calloc(n, sizeof *cs);
	float *all = NULL;
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
	for (uint64_t t = 0; t < threads; t++) {
		struct driver *d = &dv[t];
		d->w = &w;
		d->capture = t == 0 && cap_jobs;
		d->check_seq = check_seq;
		d->epfd = -1;
		lg_rng_seed2(&d->rng, 20261123, t);
		if (!(d->rtt_us = malloc(sizeof(float) * BD_MAX_SAMPLES)) ||
		    (d->epfd = epoll_create1(0)) < 0) {
			rc = LG_ENOMEM;
			goto out;
		}
	}
	/* Collector i goes to thread i % threads; each thread's block of cs
	 * is contiguous. */
	for (uint64_t t = 0, at = 0; t < threads; t++) {
		struct driver *d = &dv[t];
		d->c = cs + at;
		for (size_t i = t; i < n; i += threads) {
			struct coll *c = &cs[at++];
			struct epoll_event ev = { EPOLLIN, { .ptr = c } };
			c->io.fd = fds[i];
			if (set_nonblock(c->io.fd) ||
			    epoll_ctl(d->epfd, EPOLL_CTL_ADD, c->io.fd, &ev)) {
				rc = LG_EIO;
				goto out;
			}
			d->n++;
		}
	}
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
	for (uint64_t t = 0; t < threads; t++) {
		if (dv[t].failed) {
			lg_errf(err, errlen, "collector thread %llu: %s",
				(unsigned long long)t, dv[t].err);
			rc = dv[t].failed;
			goto out;
		}
		f->jobs += dv[t].jobs;
		f->empty += dv[t].empty;
		f->stale += dv[t].stale;
		total += dv[t].nrtt;
	}
	f->threads = (int)threads;
	f->per_s = (double)f->jobs / ((double)(t_end - t_start) / 1e9);
	if (f->jobs)
		f->server_cpu_us = ((double)(cpu1.tv_sec - cpu0.tv_sec) * 1e6 +
				    (double)(cpu1.tv_nsec - cpu0.tv_nsec) /
					    1e3) /
				   (double)f->jobs;
	if (total) {
		if (!(all = malloc(sizeof(float) * total))) {
			rc = LG_ENOMEM;
			goto out;
		}
		for (uint64_t t = 0, k = 0; t < threads; t++) {
			memcpy(all + k, dv[t].rtt_us,
			       sizeof(float) * dv[t].nrtt);
			k += dv[t].nrtt;
		}
		qsort(all, total, sizeof(float), cmp_float);
		f->p50 = all[(size_t)(0.50 * (double)(total - 1))];
		f->p99 = all[(size_t)(0.99 * (double)(total - 1))];
	}
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
	free(all);
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

/* Start the echo server on a free loopback port (e->port). Connections
 * are freed as their peers close, the rest by echo_stop. */
static void echo_stop(struct echo *e);

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

/* ---- the league -------------------------------------------------------- */

static int seed_params_txn(store_txn *t, void *arg)
{
	brain *b = arg;
	struct store_blob_info info = { .dtype = STORE_DT_BYTES, .rank = 1 };
	static uint8_t blob[BD_BLOB_BYTES];
	uint8_t k[8];

	info.dims[0] = BD_BLOB_BYTES;
	info.nbytes = BD_BLOB_BYTES;
	for (uint32_t i = 0; i < brain_count(b); i++) {
		struct brain_player p;
		if (brain_player_info(b, i, &p))
			continue;
		if (p.role == BRAIN_ROLE_HISTORICAL) {
			store_key_u32x2(k, p.parent, p.version);
			store_blob_put(t, STORE_DB_PARAMS, k, sizeof k, &info,
				       blob);
		} else {
			store_key_u32x2(k, i, 0);
			store_blob_put(t, STORE_DB_PARAMS, k, sizeof k, &info,
				       blob);
			store_key_u32x2(k, i, p.version);
			store_blob_put(t, STORE_DB_PARAMS, k, sizeof k, &info,
				       blob);
		}
	}
	return store_txn_error(t);
}

/*
 * Grow a fresh league in dir to at least `want` players and snapshots
 * with the simulated league, and store parameters for every (player,
 * version) a job can name. *learners gets the learning players.
 */
static int build_league(const struct cfg *c, const char *dir, uint64_t want,
			uint32_t *learners, uint32_t *nlearners,
			uint32_t *count, char *err, size_t errlen)
{
	struct store_opts so = { .flags = STORE_NOSYNC };
	struct brain_opts bo;
	struct brain_sim_opts sim;
	store *s = NULL;
	brain *b = NULL;
	int rc;

	if ((rc = store_open(&s, dir, &so, err, errlen)))
		return rc;
	league_brain_opts(c, &bo);
	bo.batch = 256;
	bo.log_decisions = 0;
	if ((rc = brain_open(&b, s, &bo, err, errlen)))
		goto out;
	brain_sim_opts_default(&sim);
	sim.steps_per_job = bo.snapshot_steps / 20 ? bo.snapshot_steps / 20
						   : 1;
	for (uint64_t round = 0; brain_count(b) < want && !rc; round++) {
		uint64_t missing = want - brain_count(b);
		sim.seed = 1 + round;
		sim.jobs = LG_MAX(8, LG_MIN(4096, missing * 8));
		rc = brain_sim_run(b, &sim, NULL);
	}
	if (!rc)
		rc = brain_flush(b);
	if (!rc)
		rc = store_update(s, seed_params_txn, b);
	*nlearners = 0;
	*count = brain_count(b);
	for (uint32_t i = 0; !rc && i < brain_count(b); i++) {
		struct brain_player p;
		if (!brain_player_info(b, i, &p) &&
		    p.role != BRAIN_ROLE_HISTORICAL &&
		    *nlearners < BD_MAX_LEARNERS)
			learners[(*nlearners)++] = i;
	}
	if (rc)
		lg_errf(err, errlen, "%s: building the league: %s", dir,
			lg_strerror(rc));
out:
	if (brain_close(b) && !rc)
		rc = LG_EIO;
	store_close(s);
	return rc;
}

/* ---- one daemon phase -------------------------------------------------- */

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
	league_daemon_stop(arg, "benchmark done");
}

static void *daemon_main(void *arg)
{
	league_daemon_run(arg);
	return NULL;
}

static int read_port(const char *path, uint16_t *port)
{
	char line[256];
	unsigned v;
	FILE *f = fopen(path, "r");

	*port = 0;
	if (!f)
		return LG_EIO;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "port %u", &v) == 1 && v && v < 65536)
			*port = (uint16_t)v;
	fclose(f);
	return *port ? 0 : LG_EIO;
}

static int expect(net_msg *r, int body, char *err, size_t errlen,
		  const char *what)
{
	if (r->body_case == (League__Envelope__BodyCase)body)
		return 0;
	lg_errf(err, errlen, "%s: got %s%s%s", what, net_msg_name(r),
		r->body_case == LEAGUE__ENVELOPE__BODY_ACK ? ": " : "",
		r->body_case == LEAGUE__ENVELOPE__BODY_ACK ? r->ack->error
							    : "");
	return LG_EPROTO;
}

/* A simulated learner: Register, then one ParamsPut of a blob. */
static int learner_join(net_client **out, uint16_t port, uint32_t player,
			char *err, size_t errlen)
{
	static uint8_t blob[BD_BLOB_BYTES];
	char name[32];
	struct net_client_opts co = {
		.host = "127.0.0.1", .port = port,
		.role = LEAGUE__ROLE__ROLE_LEARNER, .name = name,
	};
	net_msg req = LEAGUE__ENVELOPE__INIT, *r = NULL;
	League__Register rg = LEAGUE__REGISTER__INIT;
	League__ParamsPut pp = LEAGUE__PARAMS_PUT__INIT;
	net_client *cl;
	int rc;

	snprintf(name, sizeof name, "bench-learner-%u", player);
	if ((rc = net_client_connect(&cl, &co, err, errlen)))
		return rc;
	rg.player = player;
	rg.trajectory_endpoint = (char *)"127.0.0.1:9"; /* never used */
	req.body_case = LEAGUE__ENVELOPE__BODY_REGISTER;
	req.register_ = &rg;
	if ((rc = net_client_call(cl, &req, &r, BD_CALL_S, err, errlen)) ||
	    (rc = expect(r, LEAGUE__ENVELOPE__BODY_REGISTER_REPLY, err, errlen,
			 "learner register")))
		goto out;
	pp.player = player;
	pp.base_version = r->register_reply->params_version;
	pp.player_steps = r->register_reply->player_steps;
	pp.blob.data = blob;
	pp.blob.len = sizeof blob;
	net_msg_free(r);
	r = NULL;
	req = (net_msg)LEAGUE__ENVELOPE__INIT;
	req.body_case = LEAGUE__ENVELOPE__BODY_PARAMS_PUT;
	req.params_put = &pp;
	if ((rc = net_client_call(cl, &req, &r, BD_CALL_S, err, errlen)) ||
	    (rc = expect(r, LEAGUE__ENVELOPE__BODY_ACK, err, errlen,
			 "params put")))
		goto out;
	if (r->ack->status != LEAGUE__STATUS__STATUS_OK) {
		lg_errf(err, errlen, "params put: %s", r->ack->error);
		rc = LG_EPROTO;
	}
out:
	net_msg_free(r);
	if (rc)
		net_client_close(cl);
	else
		*out = cl;
	return rc;
}

/* A simulated collector: connect, Hello, Register (blocking). */
static int collector_join(int *fd, uint16_t port, size_t i, char *err,
			  size_t errlen)
{
	net_msg m = LEAGUE__ENVELOPE__INIT, *r = NULL;
	League__Hello h = LEAGUE__HELLO__INIT;
	League__Register rg = LEAGUE__REGISTER__INIT;
	char name[48];
	int rc;

	if ((rc = net_connect_tcp("127.0.0.1", port, fd, err, errlen)))
		return rc;
	snprintf(name, sizeof name, "bench-collector-%zu", i);
	h.protocol_version = LEAGUE__CONST__PROTOCOL_VERSION;
	h.token = (char *)"";
	h.role = LEAGUE__ROLE__ROLE_COLLECTOR;
	h.name = name;
	m.seq = 1;
	m.body_case = LEAGUE__ENVELOPE__BODY_HELLO;
	m.hello = &h;
	if ((rc = net_send_blocking(*fd, &m)) ||
	    (rc = net_recv_blocking(*fd, BD_FRAME_CAP, BD_CALL_S, &r, err,
				    errlen)) ||
	    (rc = expect(r, LEAGUE__ENVELOPE__BODY_HELLO_REPLY, err, errlen,
			 "hello")))
		goto out;
	if (r->hello_reply->status != LEAGUE__STATUS__STATUS_OK) {
		lg_errf(err, errlen, "hello refused: %s",
			r->hello_reply->error);
		rc = LG_EAUTH;
		goto out;
	}
	net_msg_free(r);
	r = NULL;
	m = (net_msg)LEAGUE__ENVELOPE__INIT;
	rg.envs = 16;
	rg.max_jobs = 1;
	m.seq = 2;
	m.body_case = LEAGUE__ENVELOPE__BODY_REGISTER;
	m.register_ = &rg;
	if ((rc = net_send_blocking(*fd, &m)) ||
	    (rc = net_recv_blocking(*fd, BD_FRAME_CAP, BD_CALL_S, &r, err,
				    errlen)))
		goto out;
	rc = expect(r, LEAGUE__ENVELOPE__BODY_REGISTER_REPLY, err, errlen,
		    "collector register");
out:
	net_msg_free(r);
	if (rc) {
		close(*fd);
		*fd = -1;
	}
	return rc;
}

struct league_setup {
	const struct cfg *cfg;
	const char *dir;
	char ports[CFG_STR_MAX + 16];
	uint32_t learners[BD_MAX_LEARNERS], nlearners, count;
};

static int daemon_phase(const struct bargs *a, const struct league_setup *L,
			unsigned store_flags, struct figures *f,
			lg_buf *cap_jobs, lg_buf *cap_ack, char *err,
			size_t errlen)
{
	struct league_daemon_opts o = {
		.cfg = L->cfg, .dir = L->dir, .resume = 1,
		.ports_file = L->ports, .port = 0, .http_port = 0,
		.store_flags = store_flags,
	};
	struct event_base *base = NULL;
	struct event *stop_ev = NULL;
	league_daemon *d = NULL;
	net_client *lc[BD_MAX_LEARNERS] = { 0 };
	int *fds = NULL, pfd[2] = { -1, -1 }, running = 0, rc;
	pthread_t th;
	uint16_t port;

	if (!(fds = malloc(sizeof(int) * a->collectors)) || pipe(pfd) ||
	    !(base = event_base_new())) {
		rc = LG_ENOMEM;
		goto out;
	}
	for (uint64_t i = 0; i < a->collectors; i++)
		fds[i] = -1;
	if ((rc = league_daemon_new(&d, base, &o, err, errlen)))
		goto out;
	if (!(stop_ev = event_new(base, pfd[0], EV_READ, stop_cb, d)) ||
	    event_add(stop_ev, NULL)) {
		rc = LG_ENOMEM;
		goto out;
	}
	if ((rc = read_port(L->ports, &port))) {
		lg_errf(err, errlen, "%s: no port", L->ports);
		goto out;
	}
	if (pthread_create(&th, NULL, daemon_main, d)) {
		rc = LG_ENOMEM;
		goto out;
	}
	running = 1;
	pthread_setname_np(th, "bench-daemon"); /* for perf and top */
	for (uint32_t i = 0; i < L->nlearners; i++)
		if ((rc = learner_join(&lc[i], port, L->learners[i], err,
				       errlen)))
			goto out;
	for (uint64_t i = 0; i < a->collectors; i++)
		if ((rc = collector_join(&fds[i], port, (size_t)i, err,
					 errlen)))
			goto out;
	rc = drive(fds, (size_t)a->collectors, a->threads, a->seconds, 1, th,
		   f, cap_jobs, cap_ack, err, errlen);
out:
	for (uint64_t i = 0; fds && i < a->collectors; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (uint32_t i = 0; i < L->nlearners; i++)
		net_client_close(lc[i]);
	if (running) {
		if (write(pfd[1], "x", 1) != 1)
			LG_ERROR("bench daemon: cannot stop the daemon");
		pthread_join(th, NULL);
	}
	if (stop_ev)
		event_free(stop_ev);
	league_daemon_free(d);
	if (base)
		event_base_free(base);
	if (pfd[0] >= 0) {
		close(pfd[0]);
		close(pfd[1]);
	}
	free(fds);
	return rc;
}

static int pingpong_phase(const struct bargs *a, const lg_buf *jobs,
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
		rc = drive(fds, (size_t)a->collectors, a->threads, a->seconds,
			   0, e.th, f, NULL, NULL, err, errlen);
	for (uint64_t i = 0; i < a->collectors; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	echo_stop(&e);
	if (!rc && e.failed)
		rc = e.failed;
	free(fds);
	return rc;
}

/* ---- report ------------------------------------------------------------ */

static void report(const struct bargs *a, const struct league_setup *L,
		   const char *mode, const struct figures *d,
		   const struct figures *p)
{
	double ratio = p->per_s > 0 ? d->per_s / p->per_s : 0;

	if (a->json) {
		printf("{\"bench\":\"daemon\",\"store\":\"%s\",\"players\":%u,"
		       "\"learners\":%u,\"collectors\":%llu,\"threads\":%llu,"
		       "\"episodes\":%llu,\"seconds\":%g,\"jobs\":%llu,\"jobs_per_s\":%.1f,"
		       "\"p50_us\":%.1f,\"p99_us\":%.1f,"
		       "\"pingpong_per_s\":%.1f,\"pingpong_p50_us\":%.1f,"
		       "\"pingpong_p99_us\":%.1f,\"ratio\":%.4f,"
		       "\"daemon_cpu_us_per_job\":%.1f,"
		       "\"echo_cpu_us_per_job\":%.1f,"
		       "\"empty_replies\":%llu,\"stale_acks\":%llu}\n",
		       mode, L->count, L->nlearners,
		       (unsigned long long)a->collectors,
		       (unsigned long long)a->threads,
		       (unsigned long long)a->episodes, a->seconds,
		       (unsigned long long)d->jobs, d->per_s, d->p50, d->p99,
		       p->per_s, p->p50, p->p99, ratio, d->server_cpu_us,
		       p->server_cpu_us, (unsigned long long)d->empty,
		       (unsigned long long)d->stale);
	} else {
		printf("%-15s %10.1f %10.1f %10.1f %10.1f %8llu %8llu\n",
		       mode, d->per_s, d->p50, d->p99, d->server_cpu_us,
		       (unsigned long long)d->empty,
		       (unsigned long long)d->stale);
		printf("%-15s %10.4f   (jobs_per_s / pingpong_per_s)\n",
		       "  ratio", ratio);
	}
	fflush(stdout);
}

/* Remove the benchmark's league directory (flat: the store's files, the
 * lock file, the ports file). */
static void rm_league(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static int usage_help(void)
{
	printf("usage: league bench daemon [--collectors N] [--players N] "
	       "[--seconds S]\n"
	       "       [--threads N] [--episodes N] [--store both|fsync|nosync] "
	       "[--json]\n\n"
	       "Jobs per second and p50/p99 job round trip (JobRequest to "
	       "Ack) through the real\ndaemon over loopback, beside a raw "
	       "ping-pong of the same frames against a\ntrivial echo server "
	       "in the same run; ratio = jobs_per_s / pingpong_per_s.\n"
	       "The league (3 learners) is grown to --players players and "
	       "snapshots by the\nsimulated league (`league sim`), with a "
	       "%u-byte parameter blob for every version a\njob can name; "
	       "one simulated learner per learning player registers and puts\n"
	       "parameters. The daemon runs in this process on its own thread; "
	       "collectors are\nnon-blocking sockets on --threads client "
	       "threads.\n\n"
	       "  --collectors N  simulated collectors (64)\n"
	       "  --players N     players and snapshots (1000)\n"
	       "  --seconds S     measured seconds per phase (5)\n"
	       "  --threads N     client threads driving the collectors (1)\n"
	       "  --episodes N    episodes per job (64, as configs/default.yaml)\n"
	       "  --store MODE    fsync (the daemon's default), nosync "
	       "(STORE_NOSYNC), both\n"
	       "  --json          one object per store mode\n",
	       BD_BLOB_BYTES);
	return CLI_OK;
}

int bench_daemon(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "collectors", required_argument, NULL, 'c' },
		{ "players", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "episodes", required_argument, NULL, 'e' },
		{ "store", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "bench daemon";
	struct bargs a = { 64, 1000, 1, 64, 5.0, "both", 0 };
	char cfgtext[sizeof bd_config + 32];
	static struct cfg c;
	struct league_setup L;
	struct figures fs[2], pp;
	lg_buf cap_jobs = { 0 }, cap_ack = { 0 };
	unsigned long long v;
	char dir[256], err[1024] = "";
	const char *tmp = getenv("TMPDIR");
	int ch, rc, modes[2], nmodes = 0;
	enum lg_log_level lvl = lg_log_get_level();

	while ((ch = cli_getopt(argc, argv, cmd, "", opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'c':
		case 'p':
		case 't':
			if (cli_opt_u64(cmd, ch == 'c'	 ? "--collectors"
					     : ch == 'p' ? "--players"
							 : "--threads",
					optarg, 1,
					ch == 'c'   ? BD_MAX_COLLECTORS
					: ch == 'p' ? BD_MAX_PLAYERS
						    : BD_MAX_THREADS,
					&v))
				return CLI_USAGE;
			if (ch == 'c')
				a.collectors = v;
			else if (ch == 'p')
				a.players = v;
			else
				a.threads = v;
			break;
		case 'e':
			if (cli_opt_u64(cmd, "--episodes", optarg, 1,
					BD_MAX_EPISODES, &v))
				return CLI_USAGE;
			a.episodes = v;
			break;
		case 's':
			if (cli_opt_double(cmd, "--seconds", optarg, 0.05, 3600,
					   &a.seconds))
				return CLI_USAGE;
			break;
		case 'S': a.store = optarg; break;
		case 'j': a.json = 1; break;
		case 'h': return usage_help();
		}
	}
	if (optind != argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
				       argv[optind]);
	if (!strcmp(a.store, "both") || !strcmp(a.store, "fsync"))
		modes[nmodes++] = 0;
	if (!strcmp(a.store, "both") || !strcmp(a.store, "nosync"))
		modes[nmodes++] = STORE_NOSYNC;
	if (!nmodes)
		return cli_usage_error(cmd, "--store: expected both, fsync or "
				       "nosync, got '%s'", a.store);
	if (a.threads > a.collectors)
		a.threads = a.collectors;
	snprintf(cfgtext, sizeof cfgtext, bd_config,
		 (unsigned long long)a.episodes);
	if (cfg_load_string(&c, cfgtext, strlen(cfgtext), "bench daemon", err,
			    sizeof err)) {
		fprintf(stderr, "league bench daemon: %s\n", err);
		return CLI_FAIL;
	}
	snprintf(dir, sizeof dir, "%s/league-bench-daemon-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "league bench daemon: %s: %s\n", dir,
			strerror(errno));
		return CLI_FAIL;
	}
	memset(&L, 0, sizeof L);
	L.cfg = &c;
	L.dir = dir;
	snprintf(L.ports, sizeof L.ports, "%s/ports", dir);
	signal(SIGPIPE, SIG_IGN);
	/* The daemon's per-connection info lines would drown the figures. */
	if (lvl > LG_LOG_WARN)
		lg_log_set_level(LG_LOG_WARN);

	double t0 = lg_now_s();
	if ((rc = build_league(&c, dir, a.players, L.learners, &L.nlearners,
			       &L.count, err, sizeof err)))
		goto out;
	if (!a.json) {
		printf("league: %u players and snapshots (%u learners; "
		       "snapshots grown by the simulated league in %.1f s), "
		       "%u-byte parameter blobs\n"
		       "%llu collectors on %llu client thread(s), %llu "
		       "episodes per job, %g s per phase, league in %s\n",
		       L.count, L.nlearners, lg_now_s() - t0, BD_BLOB_BYTES,
		       (unsigned long long)a.collectors,
		       (unsigned long long)a.threads,
		       (unsigned long long)a.episodes, a.seconds, dir);
		printf("%-15s %10s %10s %10s %10s %8s %8s\n", "phase",
		       "jobs/s", "p50_us", "p99_us", "cpu_us/job", "empty",
		       "stale");
		fflush(stdout);
	}
	for (int i = 0; i < nmodes; i++) {
		if ((rc = daemon_phase(&a, &L, (unsigned)modes[i], &fs[i],
				       i ? NULL : &cap_jobs,
				       i ? NULL : &cap_ack, err, sizeof err)))
			goto out;
		if (i == 0) {
			/* The reference, between the daemon phases. */
			if ((rc = pingpong_phase(&a, &cap_jobs, &cap_ack, &pp,
						 err, sizeof err)))
				goto out;
			if (!a.json)
				printf("%-15s %10.1f %10.1f %10.1f %10.1f   "
				       "(echo server, same frames)\n",
				       "pingpong", pp.per_s, pp.p50, pp.p99,
				       pp.server_cpu_us);
		}
	}
	for (int i = 0; i < nmodes; i++)
		report(&a, &L, modes[i] ? "nosync" : "fsync", &fs[i], &pp);
out:
	lg_log_set_level(lvl);
	if (rc)
		fprintf(stderr, "league bench daemon: %s\n",
			err[0] ? err : lg_strerror(rc));
	lg_buf_free(&cap_jobs);
	lg_buf_free(&cap_ack);
	rm_league(dir);
	return rc ? CLI_FAIL : CLI_OK;
}
