/*
 * bench/bench_daemon_league.c: what `league bench daemon` measures (see
 * bench/bench_daemon.h for the files).
 *
 * The league: the command's config (3 learners: main, main exploiter,
 * league exploiter) grown to --players players and snapshots by the real
 * brain with players/sim.c (brain_sim_run, what `league sim` runs), then
 * a parameter blob is stored for every (player, version) a job can name,
 * in the daemon's own layout (league/daemon.h: STORE_DB_PARAMS, key be32
 * player, be32 version).
 *
 * A phase: the daemon opens that league with resume, in this process on
 * its own thread and event base; one simulated learner per learning
 * player (net_client: Hello, Register, one ParamsPut; its heartbeat thread
 * keeps it connected) and --collectors simulated collectors (Hello,
 * Register, blocking) join it, and bench_daemon_drive() plays jobs.
 */
#include "bench/bench_daemon.h"
#include "conf/config.h"
#include "league/daemon.h"
#include "conf/options.h"
#include "learner/learner.h"
#include "net/net.h"
#include "players/players.h"
#include "storage/storage.h"
#include "util/util.h"

#include <event2/event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* See bench/bench_daemon.h. The store is written without fsync: it is
 * scratch, and growing it is not what is measured. */
int bench_daemon_build_league(const struct cfg *c, const char *dir,
			      uint64_t want, uint32_t *learners,
			      uint32_t *nlearners, uint32_t *count, char *err,
			      size_t errlen)
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

/* A network of the model of the league whose config is yaml (what a
 * learner's RegisterReply carries), as the learner pushes it; the daemon
 * stores nothing else. */
static int model_blob(const char *yaml, lg_buf *out, char *err,
		      size_t errlen)
{
	static struct cfg c;
	struct env_opts eo;
	struct env_spec spec;
	struct nn_shape shape;
	nn *n = NULL;
	int rc;

	if ((rc = cfg_load_string(&c, yaml, strlen(yaml), "handed config",
				  err, errlen)))
		return rc;
	league_env_opts(&c, &eo);
	if ((rc = env_check(c.env.name, &eo, &spec, err, errlen)))
		return rc;
	league_nn_shape(&c, &spec, &shape);
	if ((rc = nn_new(&n, &shape, 1)) || (rc = nn_save(n, out)))
		lg_errf(err, errlen, "a network of the model: %s",
			lg_strerror(rc));
	nn_free(n);
	return rc;
}

/* A simulated learner: Register, then one ParamsPut of a network. */
static int learner_join(net_client **out, uint16_t port, net_tls *tls,
			uint32_t player, char *err, size_t errlen)
{
	lg_buf blob = { 0 };
	char name[32];
	struct net_client_opts co = {
		.host = "127.0.0.1", .port = port, .tls = tls,
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
			 "learner register")) ||
	    (rc = model_blob(r->register_reply->config, &blob, err, errlen)))
		goto out;
	pp.player = player;
	pp.base_version = r->register_reply->params_version;
	pp.player_steps = r->register_reply->player_steps;
	pp.blob.data = blob.data;
	pp.blob.len = blob.len;
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
	lg_buf_free(&blob);
	if (rc)
		net_client_close(cl);
	else
		*out = cl;
	return rc;
}

/* A simulated collector: connect, Hello, Register (blocking). */
static int collector_join(net_stream *st, uint16_t port, net_tls *tls,
			  size_t i, char *err, size_t errlen)
{
	net_msg m = LEAGUE__ENVELOPE__INIT, *r = NULL;
	League__Hello h = LEAGUE__HELLO__INIT;
	League__Register rg = LEAGUE__REGISTER__INIT;
	char name[48];
	int rc;

	if ((rc = net_stream_connect(st, "127.0.0.1", port, tls, BD_CALL_S, err,
				     errlen)))
		return rc;
	snprintf(name, sizeof name, "bench-collector-%zu", i);
	h.protocol_version = LEAGUE__CONST__PROTOCOL_VERSION;
	h.token = (char *)"";
	h.role = LEAGUE__ROLE__ROLE_COLLECTOR;
	h.name = name;
	m.seq = 1;
	m.body_case = LEAGUE__ENVELOPE__BODY_HELLO;
	m.hello = &h;
	if ((rc = net_stream_send(st, &m)) ||
	    (rc = net_stream_recv(st, BD_FRAME_CAP, BD_CALL_S, &r, err,
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
	if ((rc = net_stream_send(st, &m)) ||
	    (rc = net_stream_recv(st, BD_FRAME_CAP, BD_CALL_S, &r, err,
				  errlen)))
		goto out;
	rc = expect(r, LEAGUE__ENVELOPE__BODY_REGISTER_REPLY, err, errlen,
		    "collector register");
out:
	net_msg_free(r);
	if (rc)
		net_stream_close(st);
	return rc;
}

/* See bench/bench_daemon.h. Every learner, collector and the daemon are
 * gone before return, whatever failed. */
int bench_daemon_phase(const struct bargs *a, const struct league_setup *L,
		       unsigned store_flags, int tls, struct figures *f,
		       lg_buf *cap_jobs, lg_buf *cap_ack, char *err,
		       size_t errlen)
{
	struct league_daemon_opts o = {
		.cfg = tls ? L->tls_cfg : L->cfg, .dir = L->dir, .resume = 1,
		.ports_file = L->ports, .port = 0, .http_port = 0,
		.store_flags = store_flags,
	};
	struct event_base *base = NULL;
	struct event *stop_ev = NULL;
	league_daemon *d = NULL;
	net_client *lc[BD_MAX_LEARNERS] = { 0 };
	net_stream *sts = NULL;
	struct ssl_st **ssls = NULL;
	net_tls *ctls = tls ? L->tls_client : NULL;
	int *fds = NULL, pfd[2] = { -1, -1 }, running = 0, rc;
	pthread_t th;
	uint16_t port;

	if (!(fds = malloc(sizeof(int) * a->collectors)) ||
	    !(sts = malloc(sizeof *sts * a->collectors)) ||
	    !(ssls = malloc(sizeof *ssls * a->collectors)) || pipe(pfd) ||
	    !(base = event_base_new())) {
		rc = LG_ENOMEM;
		goto out;
	}
	for (uint64_t i = 0; i < a->collectors; i++)
		net_stream_plain(&sts[i], -1);
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
		if ((rc = learner_join(&lc[i], port, ctls, L->learners[i], err,
				       errlen)))
			goto out;
	for (uint64_t i = 0; i < a->collectors; i++) {
		if ((rc = collector_join(&sts[i], port, ctls, (size_t)i, err,
					 errlen)))
			goto out;
		fds[i] = sts[i].fd;
		ssls[i] = sts[i].ssl;
	}
	rc = bench_daemon_drive(fds, tls ? ssls : NULL, (size_t)a->collectors,
				a->threads,
				a->seconds, 1, th, f, cap_jobs, cap_ack, err,
				errlen);
out:
	for (uint64_t i = 0; sts && i < a->collectors; i++)
		net_stream_close(&sts[i]);
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
	free(sts);
	free(ssls);
	return rc;
}
