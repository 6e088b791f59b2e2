/*
 * bench/bench_daemon.h: the parts of `league bench daemon`, internal to
 * bench/bench_daemon*.c.
 *
 *   bench_daemon.c         the command: options, the phases in order, the
 *                          report
 *   bench_daemon_league.c  what is measured: the league grown by the
 *                          simulated league, its parameter blobs, and one
 *                          daemon phase (the daemon on its own thread,
 *                          simulated learners and collectors joining it)
 *   bench_daemon_drive.c   the clients: the collectors' non-blocking
 *                          sockets on client threads timing each job, and
 *                          the reference they also drive, an echo server
 *                          answering with the daemon's own frames
 *
 * A phase is: connect the collectors, bench_daemon_drive() them for a
 * warm-up and --seconds, fill struct figures; the daemon's and the
 * ping-pong's figures differ only in who answers.
 */
#ifndef LG_BENCH_DAEMON_H
#define LG_BENCH_DAEMON_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "league/job.h"
#include "net/net.h"
#include "util/util.h"

#define BD_MAX_COLLECTORS 1024
#define BD_MAX_THREADS 16
#define BD_MAX_PLAYERS 20000
#define BD_MAX_LEARNERS 256
#define BD_BLOB_BYTES 4096       /* parameter blob size */
#define BD_MAX_SAMPLES (1u << 22) /* round trips kept per thread */
#define BD_FRAME_CAP (1u << 20)  /* client and echo input cap */
#define BD_CALL_S 10.0
#define BD_MAX_EPISODES LEAGUE_JOB_EPISODES_MAX /* job_episodes cap */

/* The command line, checked against the caps above. */
struct bargs {
	uint64_t collectors, players, threads, episodes;
	double seconds;
	const char *store; /* both, fsync, nosync */
	int json;
	int tls; /* also each store mode over mutual TLS */
};

/* What one phase measured. */
struct figures {
	double per_s, p50, p99;
	double server_cpu_us; /* server thread CPU per job in the window */
	uint64_t jobs, empty, stale;
	int threads;
};

/* The league every daemon phase opens (with resume). */
struct league_setup {
	const struct cfg *cfg;
	const char *dir;
	char ports[CFG_STR_MAX + 16];
	uint32_t learners[BD_MAX_LEARNERS], nlearners, count;
	/* --tls: the config with server.tls set (mutual TLS), and the
	 * workers' client context (a certificate of the same CA). */
	const struct cfg *tls_cfg;
	net_tls *tls_client;
};

/*
 * Grow a fresh league in dir to at least `want` players and snapshots
 * with the simulated league, and store parameters for every (player,
 * version) a job can name. *learners gets the learning players (at most
 * BD_MAX_LEARNERS), *count the players and snapshots. 0, or an error code
 * with the reason in err.
 */
int bench_daemon_build_league(const struct cfg *c, const char *dir,
			      uint64_t want, uint32_t *learners,
			      uint32_t *nlearners, uint32_t *count, char *err,
			      size_t errlen);

/*
 * One daemon phase: open L's league in a daemon on its own thread and
 * event base (store_flags: 0 or STORE_NOSYNC; with tls, L's TLS config and
 * every worker over TLS), join one simulated learner
 * per learning player and a->collectors collectors, drive them and stop
 * the daemon. With cap_jobs/cap_ack, the first Jobs and Ack frames are
 * copied there (the ping-pong replays them). 0, or an error code with
 * the reason in err.
 */
int bench_daemon_phase(const struct bargs *a, const struct league_setup *L,
		       unsigned store_flags, int tls, struct figures *f,
		       lg_buf *cap_jobs, lg_buf *cap_ack, char *err,
		       size_t errlen);

/*
 * Drive the connected sockets fds[0..n) (with ssls: TLS sessions over
 * them, made non-blocking; NULL: plain) with `threads` threads: warm up,
 * measure `seconds`, stop. check_seq: every reply must answer the
 * connection's last request (the daemon; not the echo server). server is
 * the thread answering (its CPU time over the window is reported). The
 * sockets stay open (the caller closes). With cap_jobs/cap_ack, the first
 * Jobs and Ack frames are copied there. 0, or an error code with the
 * reason in err.
 */
struct ssl_st;
int bench_daemon_drive(const int *fds, struct ssl_st *const *ssls, size_t n,
		       uint64_t threads, double seconds, int check_seq,
		       pthread_t server,
		       struct figures *f, lg_buf *cap_jobs, lg_buf *cap_ack,
		       char *err, size_t errlen);

/*
 * The reference phase: the same collectors' client code against an echo
 * server that answers request k of a connection with jobs (k even) or
 * ackf (k odd), the frames a daemon phase captured. 0, or an error code
 * with the reason in err.
 */
int bench_daemon_pingpong(const struct bargs *a, const lg_buf *jobs,
			  const lg_buf *ackf, struct figures *f, char *err,
			  size_t errlen);

#endif
