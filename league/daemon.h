/*
 * league/daemon: the league manager, `league serve`.
 *
 * One libevent loop owns everything: the LMDB store, the brain (players,
 * payoff, matchmaking; players/players.h), the lease table of jobs in
 * flight (league/lease.h) and the session layer (server/server.h). It never
 * runs an environment or a network: collectors play the jobs it hands out,
 * learners train and push parameter versions, and the daemon records what
 * they report.
 *
 * The conversation (docs/protocol.md):
 *   collector: Register{envs, max_jobs}; JobRequest -> Jobs (leased for
 *              matchmaking.job_lease_s); ParamsGet -> Params; JobResult ->
 *              Ack, sent only after the result is committed; a result from
 *              a session that no longer holds the lease is STATUS_STALE.
 *   learner:   Register{player, trajectory_endpoint} -> RegisterReply with
 *              the player's newest parameters (none on a fresh league: the
 *              learner initialises and puts version 0); ParamsPut -> Ack{id
 *              = the stored version, reset} after the commit and after the
 *              snapshot and reset rules ran.
 * A job is only handed out when both seats' parameters exist and the
 * learning player's learner is connected, so nothing waits on a job that
 * cannot be played.
 *
 * Parameters: STORE_DB_PARAMS, key (be32 params line, be32 version), a
 * checksummed blob holding the learner's own format. Versions are never
 * rewritten; a snapshot points at (parent, version), which is kept for
 * good; other old versions are deleted once `keep` newer ones exist.
 *
 * Crash safety: every reply that acknowledges something follows the LMDB
 * commit that holds it. After kill -9, `--resume` reloads the brain and
 * re-issues the jobs that were in flight, with their ids; a result the
 * dead daemon had committed is acknowledged again when a worker resends
 * it, and counts once. Throughput counters (env steps, jobs) are written
 * four times a second, so a crash may lose the last quarter second of
 * them; results, payoff and parameters are never lost once acknowledged.
 */
#ifndef LG_LEAGUE_DAEMON_H
#define LG_LEAGUE_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "players/players.h"

/* Besides its newest version a learner keeps the DAEMON_KEEP_VERSIONS
 * before it (and any an active snapshot froze, league/learners.c): tools
 * that read versions in a row (`league export --average`, `eval search
 * --average`) can count on DAEMON_KEEP_VERSIONS + 1 of them. */
#define DAEMON_KEEP_VERSIONS 8

struct event_base;
typedef struct league_daemon league_daemon;
typedef struct league_server league_server;

struct league_daemon_opts {
	const struct cfg *cfg;   /* copied */
	const char *dir;         /* league directory (created if absent) */
	int resume;              /* 1: DIR must hold a league; 0: must not */
	const char *ports_file;  /* NULL or a path (see league_server_opts) */
	const char *token;       /* NULL/"": none (loopback only) */
	const char *listen;      /* NULL: cfg server.listen */
	int port;                /* -1: cfg server.port */
	int http_port;           /* -1: cfg server.http_port */
	unsigned store_flags;    /* enum store_flags, e.g. STORE_NOSYNC */
	uint32_t probe_jobs;     /* tests: this many one-episode probes of
				    the collectors (league/kind_probe.c) */
};

/*
 * Open (or create) the league in dir and start serving on base.
 * Errors: LG_EEXIST (a league is there and resume is 0), LG_ENOTFOUND
 * (resume and none there), LG_ECONFIG (the config does not fit the stored
 * league, or brain options are rejected), LG_EBUSY (another daemon owns
 * dir), LG_EIO; err says what and where.
 */
int league_daemon_new(league_daemon **out, struct event_base *base,
		      const struct league_daemon_opts *o, char *err,
		      size_t errlen);
/* Drain: tell every worker to stop, flush, and make league_daemon_run
 * return once they are gone. Safe to call more than once. */
void league_daemon_stop(league_daemon *d, const char *reason);
/* Dispatch until stopped (budget reached, SIGTERM/SIGINT, or stop()).
 * Returns 0, or an LG_E* code when the league could not be written. */
int league_daemon_run(league_daemon *d);
/* Flush, close the store. NULL is a no-op. */
void league_daemon_free(league_daemon *d);

/* Why the last run stopped ("budget: env_steps", "signal", ...). */
const char *league_daemon_stop_reason(const league_daemon *d);

/* The session layer, for tests that drive the handlers in-process
 * (league_server_attach, league_session_feed). */
league_server *league_daemon_server(league_daemon *d);

#endif
