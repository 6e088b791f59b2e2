/*
 * workers/workers.h: the worker processes of a league, each one entry
 * point: the collector (worker_collect), the learner (worker_learn) and
 * the evaluator (worker_evaluate). `league collect`, `league learn` and
 * `league evaluate` (cli/) parse their flags into the options below and
 * call them; what a worker reads from its environment ($LEAGUE_TOKEN,
 * $LEAGUE_TLS_*) it reads itself.
 *
 * Each entry point runs the worker until a signal (SIGINT, SIGTERM), the
 * daemon's Shutdown, or an error, and returns the process's exit status:
 * WORKER_EXIT_OK, WORKER_EXIT_FAIL (a runtime failure) or
 * WORKER_EXIT_USAGE (a usage or config error: a refused token or
 * protocol version, a config that does not load, an unsupported game).
 * A failure to start is said on stderr ("league CMD: ..."), the rest in
 * the log. One worker per process: they install signal handlers.
 */
#ifndef LG_WORKERS_H
#define LG_WORKERS_H

#include <stdint.h>

#include "net/net.h"

/* The exit statuses, the same numbers as cli's CLI_OK, CLI_FAIL and
 * CLI_USAGE. */
enum { WORKER_EXIT_OK = 0, WORKER_EXIT_FAIL = 1, WORKER_EXIT_USAGE = 2 };

/* `league collect`: plays the jobs the daemon hands out. */
struct worker_collect_opts {
	const char *host;  /* the daemon (--connect HOST:PORT) */
	uint16_t port;
	const char *name;  /* --name; NULL or "": collector.PID */
	uint64_t envs;     /* --envs; 0: the config's collectors.envs */
	double log_every;  /* --log-every: seconds between counter lines */
	int drop;          /* --drop: count the learning rows, send none */
};
int worker_collect(const struct worker_collect_opts *o);

/* `league learn`: trains one learning player. */
struct worker_learn_opts {
	const char *host;  /* the daemon (--connect HOST:PORT) */
	uint16_t port;
	uint32_t player;   /* --player */
	const char *name;  /* --name; NULL or "": learner.PLAYER */
	const char *listen; /* --listen: the trajectory endpoint's address
			       (NULL: 127.0.0.1) */
};
int worker_learn(const struct worker_learn_opts *o);

/* `league evaluate`: exploitability over time. */
struct worker_evaluate_opts {
	const char *host;  /* the daemon (--connect HOST:PORT) */
	uint16_t port;
	const char *name;  /* --name; NULL or "": evaluator.PID */
};
int worker_evaluate(const struct worker_evaluate_opts *o);

/* The TLS of a worker (or of inspect) from its environment:
 * LEAGUE_TLS_CA (the CA the daemon's and learners' certificates chain
 * to), and LEAGUE_TLS_CERT with LEAGUE_TLS_KEY (this process's
 * certificate). client (may be NULL) gets a client context: TLS to the
 * daemon and learners, with the certificate for mutual TLS. server (may
 * be NULL; needs the certificate) gets a listener's context, requiring
 * client certificates when server_verify (a learner's endpoint starts
 * out so, until the league's config says server.tls.verify_peers is
 * off). Both NULL when no variable is set. 0, or WORKER_EXIT_USAGE with
 * the reason on stderr ("WHO: ...", naming the variable). The contexts
 * are the caller's (net_tls_free). */
int worker_tls(const char *who, net_tls **client, net_tls **server,
	       int server_verify);

#endif
