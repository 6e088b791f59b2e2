/*
 * tests/proto.h: a test's end of the league protocol, one set of helpers
 * over two transports:
 *   - a socket: a real net_client to a `league serve` child (tu_serve),
 *     so every byte crosses loopback (check_e2e, check_exploit);
 *   - in-process: a daemon on this thread's event loop (tp_league), with
 *     in-process sessions (league_server_attach). A call feeds the
 *     request, runs the loop until the turn's commit has sent the reply,
 *     and takes it, so a handler bug fails at its assert, not as a
 *     timeout (check_daemon).
 * Requests go through the frame codec on both, as on the wire. Every
 * helper asserts with check's macros.
 */
#ifndef LG_TESTS_PROTO_H
#define LG_TESTS_PROTO_H

#include <stdint.h>

#include "envs/env.h"
#include "league/daemon.h"
#include "server/server.h"
#include "learner/learner.h"
#include "net/net.h"

struct event_base;

struct tp_peer {
	net_client *c;        /* socket, or */
	league_session *ss;   /* in-process, on */
	struct tp_league *L;
	/* A learner's: the league's model (from the config its
	 * RegisterReply carried), for tp_blob. */
	struct nn_shape shape;
	int have_shape;
};

/* An in-process league in a fresh temp dir (or dir, resumed). */
struct tp_league {
	char dir[160];
	struct event_base *base;
	league_daemon *d;
};

/* Open a league from YAML text (nosync; ports chosen by the kernel).
 * resume: dir must hold one. probe_jobs as league_daemon_opts. */
void tp_league_open(struct tp_league *L, const char *yaml, int resume,
		    uint32_t probe_jobs);
/* Stop, free, and (remove) delete the directory. */
void tp_league_close(struct tp_league *L, int remove);
/* An in-process peer of role (League__Role). */
void tp_attach(struct tp_league *L, struct tp_peer *p, int role,
	       const char *name);
/* Drop an in-process peer as a lost connection would (on_close runs). */
void tp_detach(struct tp_peer *p);
/* Run the loop until nothing is pending. */
void tp_league_turn(struct tp_league *L);

/* A socket peer to port (token may be NULL); asserts it connects. */
void tp_connect(struct tp_peer *p, uint16_t port, int role,
		const char *name, const char *token);
void tp_close(struct tp_peer *p);

/* Send req, return the reply (free it with net_msg_free). */
net_msg *tp_call(struct tp_peer *p, net_msg *req);
/* The reply must be an Ack: its status. */
int tp_ack_status(net_msg *r);

/* A server-side handler's answer to any message: an Ack of m (by its
 * seq) sent on ss; m freed. */
void tp_session_ack(league_session *ss, net_msg *m);

/* Register as a collector with envs and max_jobs. */
void tp_register_collector(struct tp_peer *p, uint32_t envs,
			   uint32_t max_jobs);
/* Register as the learner of player (endpoint "127.0.0.1:9"), take the
 * league's model from the config handed back (p->shape) and, when the
 * player has no parameters yet, put tp_blob(p, "params") as version 0.
 * The Register status. */
int tp_fake_learner(struct tp_peer *p, uint32_t player);
/* A learner's trajectory endpoint gone deaf: on listening socket lfd,
 * accept one sender (waiting at most wait_s), answer its hello, grant it
 * 2^30 segments of credit and never read again, so its writes fill the
 * socket's window. The accepted socket (the caller closes it), or -1
 * when no sender came or its hello did not. */
int tp_deaf_learner_accept(int lfd, double wait_s);
/* The same with the trajectory endpoint given. */
int tp_fake_learner_at(struct tp_peer *p, uint32_t player,
		       const char *endpoint);
/* The parameters a test pushes as `tag`: a network of p's model seeded
 * by the tag (distinct tags, distinct bytes), appended to out; without a
 * model (not a registered learner), the tag's bytes themselves. */
void tp_blob(const struct tp_peer *p, const char *tag, lg_buf *out);
/* ParamsPut of tp_blob(p, tag) with player_steps: the Ack (caller
 * frees). */
net_msg *tp_params_put(struct tp_peer *p, uint32_t player, uint64_t steps,
		       const char *tag);
/* ParamsPut of these bytes as they are: the Ack (caller frees). */
net_msg *tp_params_put_raw(struct tp_peer *p, uint32_t player,
			   uint64_t steps, const void *blob, size_t len);

/* What a test collector needs to know of an offered job. */
struct tp_job {
	uint64_t id;
	uint32_t episodes;
	double lease_s;
	int evaluation;
	char baseline[32];     /* the (first) baseline seat's, "" if none */
	int base_seat;         /* -1: no baseline seat */
	int nbase_seats;
	int nseats;            /* the Job's n_seats */
	uint32_t player[ENV_MAX_PLAYERS], version[ENV_MAX_PLAYERS];
	int learning[ENV_MAX_PLAYERS];
	int greedy[ENV_MAX_PLAYERS];
	int baseline_seat[ENV_MAX_PLAYERS]; /* the seat names a baseline */
	char endpoint[160];    /* a learning seat's learner endpoint */
};

/* One JobRequest for at most want jobs: how many the reply offered (ids
 * into ids[] when not NULL, room for want), its status in *status. */
size_t tp_request_jobs(struct tp_peer *p, uint32_t want, uint64_t *ids,
		       int *status);
/* One JobRequest for at most one job: 1 with *j, 0 when none offered. */
int tp_take_job(struct tp_peer *p, struct tp_job *j);
/* tp_take_job until one comes (at most 10 s). */
void tp_wait_job(struct tp_peer *p, struct tp_job *j);

/* A JobResult of n episodes (n <= 256) of two seats; returns of seat 0
 * drawn from rng in {-1, 0, 1} (seat 1 gets the negation), or all
 * `fixed` when rng is NULL. */
struct tp_result {
	League__JobResult jr;
	League__Episode ep[256], *eps[256];
	double ret[256][ENV_MAX_PLAYERS];
	net_msg m;
};
void tp_make_result(struct tp_result *res, uint64_t id, uint32_t n,
		    lg_rng *rng, double fixed);
/* Its episodes carry nseats returns each (ret[i][0 .. nseats), which
 * the caller fills; those past seat 1 start at 0). */
void tp_result_seats(struct tp_result *res, uint32_t nseats);
/* Send it; the Ack's status. */
int tp_send_result(struct tp_peer *p, struct tp_result *res);

#endif
