/*
 * workers/learn.c: the learner worker (`league learn`).
 *
 * It owns one learning player. Collectors stream that player's
 * trajectories straight to its trajectory endpoint (net_traj_server: a
 * bounded queue with credit flow control, so a slow learner slows the
 * collectors down and nothing is dropped). Every learner.batch transitions
 * make one PPO update; every learner.push_every updates the parameters go
 * to the daemon as a new version (learn_sync.c, which also says what a
 * registration keeps of the trainer). league.deterministic keeps the
 * state at every job's end instead (learn_det.c).
 *
 * The game, the network shape and the PPO settings come from the config
 * the daemon sends in RegisterReply, so the worker needs no config file.
 */
#include "workers/workers_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int train(struct learn *W)
{
	struct ppo_stats st;
	double t0 = lg_now_s();
	int rc;

	if (W->cfg.learner.lr_schedule == CFG_LR_LINEAR &&
	    W->cfg.budget.seconds > 0)
		ppo_set_progress(W->p, (W->league_s + t0 - W->league_at) /
					       W->cfg.budget.seconds);
	rc = ppo_update(W->p, &W->batch, &st);

	if (rc) {
		LG_ERROR("learn: PPO update on %zu rows: %s", W->batch.n,
			 lg_strerror(rc));
		return rc;
	}
	W->steps += W->batch.n;
	W->updates++;
	W->last = st;
	W->last_rate = (double)W->batch.n / LG_MAX(lg_now_s() - t0, 1e-9);
	W->have_last = 1;
	/* `league bench pipeline` counts the rows trained on from this
	 * line ("update N: ROWS rows in"): keep that wording. */
	LG_INFO("learn: player %u update %llu: %zu rows in %.3f s, loss %.4f "
		"(pg %.4f, value %.4f, entropy %.4f, policy %.4f), kl %.4f, "
		"clip %.3f, magnet kl %.4f, mmd step %.5f, left %.5f",
		W->player, (unsigned long long)W->updates, W->batch.n,
		lg_now_s() - t0, st.loss, st.pg_loss, st.value_loss,
		st.entropy, st.policy_loss, st.approx_kl, st.clip_frac,
		st.magnet_kl, st.mmd_step, st.mmd_miss);
	lg_rows_clear(&W->batch);
	return 0;
}

/* A segment from a collector: into the batch (training first when it
 * would not fit: only a collector with a longer segment_len than the
 * config's sends such), or rejected, counted and logged when it is not
 * ours or not valid. In deterministic mode a job's end mark keeps the
 * state. 0, or an error from training or keeping. */
static int take_segment(struct learn *W, const struct net_segment *g)
{
	char why[256] = "";
	int rc, skip = 0;

	if (W->det && ((rc = worker_learn_det_before(W, g, &skip)) || skip))
		return rc;
	if (W->det && g->h.player == W->player && !g->count)
		return g->h.job_end ? worker_learn_det_job_end(W, g) : 0;
	if (g->h.player != W->player)
		snprintf(why, sizeof why, "for player %u", g->h.player);
	else if (g->count > W->batch.cap)
		snprintf(why, sizeof why, "%u rows, more than a batch (%zu)",
			 g->count, W->batch.cap);
	if (!why[0] && g->count > W->batch.cap - W->batch.n &&
	    (rc = train(W)))
		return rc;
	if (!why[0] && !net_segment_append(g, &W->batch, why, sizeof why)) {
		if (!W->det)
			return 0;
		W->cur_count++;
		if (W->batch.n >= W->cfg.learner.batch && (rc = train(W)))
			return rc;
		return g->h.job_end ? worker_learn_det_job_end(W, g) : 0;
	}
	W->rejected++;
	/* the first ten, then the 16th, 32nd, ...: a collector that sends
	 * only bad segments must not fill the disk with one line each */
	if (W->rejected <= 10 || !(W->rejected & (W->rejected - 1)))
		LG_WARN("learn: segment %llu of job %llu (env %u) rejected: %s "
			"(%llu rejected so far%s)",
			(unsigned long long)g->h.segment_seq,
			(unsigned long long)g->h.job_id, g->h.env_index, why,
			(unsigned long long)W->rejected,
			W->rejected >= 10 ? "; logged at powers of two from "
					    "now" : "");
	return 0;
}

static int reconnect(void *ctx)
{
	struct learn *W = ctx;
	int rc = worker_redial(W->cl, "learn");

	return rc ? rc : worker_learn_register(W);
}

/* Idle: is the daemon still there (or telling us to stop)? 0 (still
 * there, or back: registered again), WORKER_STOP, or an error. */
static int idle_check(struct learn *W)
{
	int rc;

	if (!(rc = net_client_poll(W->cl)))
		return 0;
	if (worker_stopping(W->cl))
		return WORKER_STOP;
	LG_WARN("learn: lost the daemon: %s", lg_strerror(rc));
	return reconnect(W);
}

/* A full batch: one update, and a push every learner.push_every; a push
 * the connection lost is not sent again (the daemon's newest version
 * stands after the reconnect), a refused one registers again. 0,
 * WORKER_BROKEN, or an error. */
static int train_and_push(struct learn *W)
{
	int rc;

	if ((rc = train(W)))
		return rc;
	if (W->updates % W->cfg.learner.push_every)
		return 0;
	rc = worker_learn_push(W, 0);
	if (rc == LG_ECLOSED || rc == LG_ETIMEOUT)
		return WORKER_BROKEN;
	if (rc == LG_EPROTO)
		return reconnect(W);
	return rc;
}

/* worker_loop's step: a segment from the queue (waiting up to 0.25 s)
 * into the batch, an update (and push) on a full batch; idle, a look at
 * the daemon. 0, WORKER_STOP, WORKER_BROKEN, or an error. */
static int learn_step(void *ctx)
{
	struct learn *W = ctx;
	const struct net_segment *g;
	int rc = net_traj_pop(W->ts, &g, 0.25);

	if (rc == LG_ETIMEOUT)
		return idle_check(W);
	if (rc)
		return rc;
	rc = take_segment(W, g);
	net_traj_release(W->ts, g);
	if (W->det && (rc == LG_ECLOSED || rc == LG_ETIMEOUT ||
		       rc == LG_EPROTO))
		/* keeping the state at a job's end failed: the job is
		 * played again once we are back (the daemon re-issues it
		 * to a learner that registers anew) */
		return WORKER_BROKEN;
	if (rc || W->det || W->batch.n < W->cfg.learner.batch)
		return rc; /* deterministic: pushed at a job's end */
	return train_and_push(W);
}

/* The daemon's config rules the trajectory endpoint as it rules the
 * daemon's port: mutual TLS unless server.tls.verify_peers is off (the
 * endpoint starts out requiring client certificates; relaxing it happens
 * before any collector can know the endpoint, which it learns from jobs
 * made after this registration), and no endpoint beyond loopback without
 * TLS unless server.insecure. */
static int endpoint_policy(struct learn *W)
{
	if (W->tls_srv)
		net_tls_set_verify_peer(W->tls_srv,
					W->cfg.server.tls.verify_peers);
	if (!W->tls_srv && W->cfg.server.tls.verify_peers) {
		LG_ERROR("learn: the league uses mutual TLS; set "
			 "LEAGUE_TLS_CA, LEAGUE_TLS_CERT and LEAGUE_TLS_KEY");
		return LG_ECONFIG;
	}
	if (!W->tls_srv && !lg_is_loopback(W->listen) &&
	    !W->cfg.server.insecure) {
		LG_ERROR("learn: --listen %s without TLS: set LEAGUE_TLS_CA, "
			 "LEAGUE_TLS_CERT and LEAGUE_TLS_KEY, or "
			 "server.insecure: true in the league's config",
			 W->listen);
		return LG_ECONFIG;
	}
	return 0;
}

/* The trajectory endpoint on o->listen, then the connection to the
 * daemon; senders waiting for credit hear from the stream's thread at
 * the daemon's pace. 0, or the exit status with the reason on stderr. */
static int learn_start(struct learn *W, const struct worker_learn_opts *o)
{
	struct net_traj_server_opts to = {
		.listen = W->listen, .token = getenv("LEAGUE_TOKEN"),
		.tls = W->tls_srv, .window = 8, .max_senders = 64,
	};
	char err[512];
	int rc;

	if ((rc = net_traj_server_start(&W->ts, &to, err, sizeof err))) {
		fprintf(stderr, "league learn: trajectory endpoint: %s\n", err);
		return WORKER_EXIT_FAIL;
	}
	snprintf(W->endpoint, sizeof W->endpoint, "%s:%u", W->listen,
		 net_traj_server_port(W->ts));
	if ((rc = worker_connect("league learn", o->host, o->port, W->tls,
				 LEAGUE__ROLE__ROLE_LEARNER, W->name,
				 &W->cl)))
		return rc;
	/* senders waiting for credit hear from the stream's thread at the
	 * daemon's pace, so they wait through an update and give up on a
	 * learner stopped for NET_SILENT_HEARTBEATS periods */
	net_traj_server_set_heartbeat(W->ts, net_client_heartbeat_s(W->cl));
	return 0;
}

int worker_learn(const struct worker_learn_opts *o)
{
	static struct learn W;
	int rc;

	memset(&W, 0, sizeof W);
	snprintf(W.listen, sizeof W.listen, "%s",
		 o->listen ? o->listen : "127.0.0.1");
	W.player = o->player;
	if ((rc = worker_start("league learn", o->name, "learner",
			       (long)W.player, W.name, sizeof W.name, &W.tls,
			       &W.tls_srv, 1)))
		return rc;
	if ((rc = learn_start(&W, o))) {
		net_traj_server_stop(W.ts);
		net_tls_free(W.tls);
		net_tls_free(W.tls_srv);
		return rc;
	}
	rc = worker_learn_register(&W);
	if (!rc)
		rc = endpoint_policy(&W);
	if (!rc)
		rc = worker_loop(W.cl, learn_step, reconnect, &W);
	LG_INFO("learn: player %u stops: %llu updates, %llu pushes, %llu "
		"steps, %llu segments rejected%s", W.player,
		(unsigned long long)W.updates, (unsigned long long)W.pushes,
		(unsigned long long)W.steps, (unsigned long long)W.rejected,
		rc ? "" : " (clean)");
	net_client_close(W.cl);
	net_traj_server_stop(W.ts);
	net_tls_free(W.tls);
	net_tls_free(W.tls_srv);
	ppo_free(W.p);
	lg_rows_free(&W.batch);
	return rc == LG_EBUSY || rc == LG_ECONFIG || rc == LG_ENOTFOUND
		       ? WORKER_EXIT_USAGE
	       : rc				  ? WORKER_EXIT_FAIL
						  : WORKER_EXIT_OK;
}
