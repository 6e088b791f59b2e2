/*
 * cli/cmd_learn.c: `league learn --connect HOST:PORT --player ID`, the
 * learner worker.
 *
 * It owns one learning player. Collectors stream that player's
 * trajectories straight to its trajectory endpoint (net_traj_server: a
 * bounded queue with credit flow control, so a slow learner slows the
 * collectors down and nothing is dropped). Every learner.batch transitions
 * make one PPO update; every learner.push_every updates the parameters go
 * to the daemon as a new version (ParamsPut), and the daemon answers with
 * the stored version, or with a reset (the league's rules for exploiters):
 * then the learner fetches that version and starts over with fresh
 * optimizer state.
 *
 * The daemon is the source of truth: after a reconnect (a daemon restart
 * with --resume) the learner re-registers. When the daemon's newest
 * parameters are byte for byte the ones this trainer last synced (the
 * version acknowledged, or a push whose answer the restart swallowed),
 * the learner goes on with its trainer as it was: parameters with the
 * updates since, optimizer state, rng. Otherwise (a new learner process,
 * a reset, a restored store, another learner's pushes) it continues from
 * the newest version the daemon holds, with the trainer state stored
 * beside that version (learner.store_trainer: each push carries it and
 * the daemon commits both together) or, where there is none, a fresh
 * trainer; training the daemon never stored is then lost, never
 * half-applied.
 *
 * league.deterministic: the state is kept at every job's end (the
 * collector's end mark), with the rows still waiting in the batch and the
 * job's id, as a version when the job made an update or else as a
 * checkpoint of the newest; nothing is pushed within a job. A learner
 * always goes on from the kept state when it registers, drops rows of a
 * job it kept already, and goes back to the kept state when a job is
 * played again before its end (docs/architecture.md, "Deterministic
 * mode").
 *
 * The game, the network shape and the PPO settings come from the config
 * the daemon sends in RegisterReply, so the worker needs no config file.
 */
#include "cli/cli.h"
#include "net/net.h"
#include "util/util.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALL_TIMEOUT_S 60.0

struct learn {
	struct cfg cfg;
	net_tls *tls, *tls_srv; /* to the daemon; the endpoint's (LEAGUE_TLS_*) */
	/* What the daemon may hold of this trainer: the blob of version
	 * `version` (pushed and acknowledged, or loaded), and the blob of a
	 * push whose answer never came (committed or not). A re-registration
	 * keeps the trainer only when the daemon's newest is one of them. */
	struct blob_id { uint32_t crc; size_t len; int set; } synced, inflight;
	struct net_client_opts co;
	net_client *cl;
	net_traj_server *ts;
	char host[128], name[64], endpoint[160], listen[128];
	uint16_t port;
	uint32_t player;
	int have_cfg;

	struct env_spec spec;
	struct nn_shape shape;
	struct ppo_opts po;
	ppo *p;
	uint32_t version;     /* the version our net started from */
	uint64_t steps;       /* agent steps trained on (daemon's count) */
	uint64_t updates, pushes, rejected, resets, trainer_too_big;
	/* The last update's statistics and rows per second of training,
	 * sent with the next push (the daemon's time series) */
	struct ppo_stats last;
	double last_rate;
	int have_last;
	/* League time at registration and when it came: the clock of the
	 * linear learning-rate schedule over budget.seconds */
	double league_s, league_at;

	/* league.deterministic (det): the state is kept at every job's
	 * end, the rows waiting in the batch with it. kept: 1 + the id of
	 * the last job whose rows it holds (0: none); cur_job/cur_seq: the
	 * job being taken (cur_on) and its last segment; pushed_updates:
	 * the update count at the last version, so a job's end without an
	 * update keeps the state (a checkpoint) without a version. */
	int det, cur_on;
	uint64_t kept, cur_job, cur_seq, pushed_updates;
	uint32_t cur_count; /* segments of cur_job taken */

	/* The batch being gathered: segments are appended to it straight
	 * from the frames they came in (net_segment_append), and PPO
	 * trains on it as it is. Room for learner.batch + segment_len. */
	struct lg_rows batch;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* A reply's Ack, or NULL with a log line when it is something else. */
static League__Ack *as_ack(net_msg *r, const char *what)
{
	if (r->body_case != LEAGUE__ENVELOPE__BODY_ACK) {
		LG_WARN("learn: %s: unexpected %s", what, net_msg_name(r));
		return NULL;
	}
	return r->ack;
}

static int call(struct learn *W, net_msg *req, net_msg **rep,
		const char *what)
{
	return cli_worker_call(W->cl, "learn", what, req, rep);
}

/* Replace the trainer with one around net (fresh optimizer state), its
 * rng seeded by the league, the player and W->version (the version net
 * holds): a fresh trainer on a version is the same in every process. */
static int new_trainer(struct learn *W, nn *net)
{
	char err[256];
	ppo *p;
	int rc = ppo_new(&p, net, NULL, &W->po,
			 W->cfg.league.seed ^ ((uint64_t)W->player << 32) ^
				 W->version,
			 err, sizeof err);

	if (rc) {
		LG_ERROR("learn: trainer: %s", err);
		nn_free(net);
		return rc;
	}
	ppo_free(W->p);
	W->p = p;
	return 0;
}

static int load_params(struct learn *W, const void *blob, size_t len,
		       uint32_t version, nn **out)
{
	return cli_worker_load_net(blob, len, &W->shape, "learn", W->player,
				   version, out);
}

static int fetch_version(struct learn *W, uint32_t version, nn **out)
{
	return cli_worker_fetch_net(W->cl, "learn", W->player, version,
				    &W->shape, out);
}

static struct blob_id blob_id_of(const void *p, size_t len)
{
	return (struct blob_id){ lg_crc32c(0, p, len), len, 1 };
}

static int blob_is(const struct blob_id *id, const void *p, size_t len)
{
	return id->set && id->len == len && id->crc == lg_crc32c(0, p, len);
}

/* The identity of net's parameters as a blob (after a reset's fetch). */
static struct blob_id net_blob_id(const nn *net)
{
	lg_buf b = { 0 };
	struct blob_id id = { 0, 0, 0 };

	if (!nn_save(net, &b))
		id = blob_id_of(b.data, b.len);
	lg_buf_free(&b);
	return id;
}

/* The trainer state to push: ppo_state_save's, and in deterministic mode
 * with the rows waiting in the batch (net_trainer_pack). */
static int trainer_bytes(struct learn *W, lg_buf *out)
{
	lg_buf st = { 0 };
	int rc;

	if (!W->det)
		return W->cfg.learner.store_trainer
			       ? ppo_state_save(W->p, W->updates, out)
			       : 0;
	if (!(rc = ppo_state_save(W->p, W->updates, &st)))
		rc = net_trainer_pack(st.data, st.len, &W->batch, out);
	lg_buf_free(&st);
	return rc;
}

/* Send our parameters; the daemon stores them as a new version (or as
 * version 0 when it holds none yet). A checkpoint (deterministic mode,
 * no update since the last version) sends the trainer state alone, for
 * the newest version. */
static int push(struct learn *W, int checkpoint)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__ParamsPut pp = LEAGUE__PARAMS_PUT__INIT;
	League__LearnerStats ls = LEAGUE__LEARNER_STATS__INIT;
	lg_buf blob = { 0 }, trainer = { 0 };
	League__Ack *a;
	int rc;

	if ((rc = nn_save(ppo_net(W->p), &blob)) ||
	    (rc = trainer_bytes(W, &trainer))) {
		lg_buf_free(&blob);
		lg_buf_free(&trainer);
		return rc;
	}
	if (W->det && blob.len + trainer.len > W->cfg.server.max_frame / 2) {
		/* determinism cannot drop the state */
		LG_ERROR("learn: player %u: parameters and trainer state with "
			 "the waiting rows (%zu bytes) over half of "
			 "server.max_frame: raise it (league.deterministic "
			 "keeps them all)", W->player, blob.len + trainer.len);
		lg_buf_free(&blob);
		lg_buf_free(&trainer);
		return LG_ECONFIG;
	}
	if (blob.len + trainer.len > W->cfg.server.max_frame / 2) {
		/* the daemon hands both back in one frame, with the config */
		if (trainer.len && !W->trainer_too_big++)
			LG_WARN("learn: player %u: parameters and trainer state "
				"(%zu bytes) over half of server.max_frame: "
				"pushing the parameters alone (a restarted "
				"learner starts a fresh optimizer)", W->player,
				blob.len + trainer.len);
		trainer.len = 0;
	}
	pp.trainer.data = trainer.data;
	pp.trainer.len = trainer.len;
	pp.player = W->player;
	pp.base_version = W->version;
	pp.blob.data = blob.data;
	pp.blob.len = checkpoint ? 0 : blob.len;
	pp.player_steps = W->steps;
	pp.checkpoint = checkpoint;
	pp.through_job = W->kept;
	if (W->have_last) {
		ls.updates = W->updates;
		ls.samples_per_s = W->last_rate;
		ls.loss = W->last.loss;
		ls.pg_loss = W->last.pg_loss;
		ls.value_loss = W->last.value_loss;
		ls.entropy = W->last.entropy;
		ls.approx_kl = W->last.approx_kl;
		ls.clip_frac = W->last.clip_frac;
		ls.lr = W->last.lr;
		ls.grad_norm = W->last.grad_norm;
		ls.magnet_kl = W->last.magnet_kl;
		pp.stats = &ls;
	}
	req.body_case = LEAGUE__ENVELOPE__BODY_PARAMS_PUT;
	req.params_put = &pp;
	if (!checkpoint)
		W->inflight = blob_id_of(blob.data, blob.len);
	rc = call(W, &req, &r, "params put");
	lg_buf_free(&blob);
	lg_buf_free(&trainer);
	if (rc)
		return rc;
	if (!(a = as_ack(r, "params put")) ||
	    a->status != LEAGUE__STATUS__STATUS_OK) {
		LG_WARN("learn: params put refused: %s; registering again "
			"to start from the daemon's newest version with a "
			"fresh trainer", a ? a->error : "");
		net_msg_free(r);
		/* A trainer whose version the daemon refused (a net gone
		 * non-finite, another model) must not be kept: forget what
		 * the daemon holds of it, so the registration that follows
		 * loads the daemon's newest and its count. */
		W->synced.set = 0;
		W->inflight.set = 0;
		return LG_EPROTO;
	}
	W->version = (uint32_t)a->id;
	if (!checkpoint) {
		W->pushes++;
		W->synced = W->inflight;
		W->inflight.set = 0;
		W->pushed_updates = W->updates;
	}
	if (a->reset) {
		nn *net;
		net_msg_free(r);
		W->resets++;
		if ((rc = fetch_version(W, W->version, &net)))
			return rc;
		W->synced = net_blob_id(net);
		if ((rc = new_trainer(W, net)))
			return rc;
		W->batch.n = 0; /* data of the old parameters */
		LG_INFO("learn: player %u reset by the league: version %u, "
			"fresh optimizer", W->player, W->version);
		return 0;
	}
	net_msg_free(r);
	return 0;
}

/* The trainer state the daemon stored with the version just loaded into
 * the new trainer: Adam's moments and step, the rng, the update count
 * (ours, the tag: push_every's clock). 0, or an error logged (the fresh
 * trainer stays: a state that does not fit is refused whole). */
static int restore_trainer(struct learn *W, const void *state, size_t len)
{
	char err[256];
	uint64_t updates;
	int rc = 0;

	if (W->det) {
		/* the rows that waited in the batch come back with it */
		const uint8_t *st;
		size_t n;
		rc = net_trainer_unpack(state, len, &st, &n, &W->batch, err,
					sizeof err);
		state = st;
		len = n;
	}
	if (!rc)
		rc = ppo_state_load(W->p, state, len, &updates, err,
				    sizeof err);
	if (rc) {
		W->batch.n = 0;
		LG_WARN("learn: player %u: version %u's trainer state not "
			"used, fresh optimizer: %s", W->player, W->version,
			err);
		return rc;
	}
	W->updates = updates;
	return 0;
}

/*
 * Register (again, after a reconnect) and take the daemon's view of the
 * player: its config, newest parameters and step count. A fresh player
 * gets initial parameters from the seed, pushed as version 0.
 */
static int do_register(struct learn *W)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__Register rg = LEAGUE__REGISTER__INIT;
	League__RegisterReply *rr;
	char err[512];
	nn *net = NULL;
	int rc;

	rg.player = W->player;
	rg.trajectory_endpoint = W->endpoint;
	req.body_case = LEAGUE__ENVELOPE__BODY_REGISTER;
	req.register_ = &rg;
	if ((rc = call(W, &req, &r, "register")))
		return rc;
	if (r->body_case != LEAGUE__ENVELOPE__BODY_REGISTER_REPLY) {
		League__Ack *a = as_ack(r, "register");
		LG_ERROR("learn: player %u refused: %s", W->player,
			 a ? a->error : "unexpected reply");
		rc = !a ? LG_EPROTO
		     : a->status == LEAGUE__STATUS__STATUS_BUSY ? LG_EBUSY
		     : a->status == LEAGUE__STATUS__STATUS_NOT_FOUND
			     ? LG_ENOTFOUND
			     : LG_EINVAL;
		net_msg_free(r);
		return rc;
	}
	rr = r->register_reply;
	if (!W->have_cfg) {
		env *e;
		struct env_opts eo;
		if (cli_worker_config(r, &W->cfg, "learn")) {
			net_msg_free(r);
			return LG_ECONFIG;
		}
		league_env_opts(&W->cfg, &eo);
		if ((rc = env_new(&e, W->cfg.env.name, &eo, err, sizeof err))) {
			LG_ERROR("learn: game %s: %s", W->cfg.env.name, err);
			net_msg_free(r);
			return rc;
		}
		W->spec = *env_spec_of(e);
		env_free(e);
		league_nn_shape(&W->cfg, &W->spec, &W->shape);
		league_ppo_opts(&W->cfg, &W->po);
		/* learner.queue_segments, shared by the collectors.count
		 * collectors: with the 8 segments it used to grant, a
		 * collector ran at most 1024 rows ahead and then waited out
		 * every PPO update; a batch's worth lets the next batch be
		 * collected while this one trains. Collectors connect only
		 * once we are registered, so they all get it. */
		uint64_t share = W->cfg.learner.queue_segments /
				 LG_MAX(1, W->cfg.collectors.count);
		net_traj_server_set_window(W->ts, (uint32_t)LG_MAX(2, share));
		/* learner.search: the collectors send each row's visit
		 * shares, AlphaZero's policy target */
		if ((rc = lg_rows_init(&W->batch, W->shape.obs,
				       W->shape.actions, W->shape.gru,
				       W->po.batch_max)) ||
		    (W->cfg.learner.search.sims &&
		     (rc = lg_rows_add_visits(&W->batch)))) {
			LG_ERROR("learn: batch of %llu rows: %s",
				 (unsigned long long)W->po.batch_max,
				 lg_strerror(rc));
			net_msg_free(r);
			return rc;
		}
		W->have_cfg = 1;
	}
	W->league_s = rr->league_seconds;
	W->league_at = lg_now_s();
	int as_synced = blob_is(&W->synced, rr->params.data, rr->params.len),
	    as_inflight = blob_is(&W->inflight, rr->params.data,
				  rr->params.len);
	W->det = W->cfg.league.deterministic;
	if (!W->det && W->p && rr->params.len && (as_synced || as_inflight) &&
	    rr->player_steps <= W->steps) {
		/* The daemon's newest parameters are ours, byte for byte:
		 * the last version acknowledged, or the push whose answer a
		 * restart swallowed (committed after all). Go on with the
		 * trainer as it is (the updates since, Adam's moments and
		 * step, the rng); the next push is based on that version,
		 * as it would have been without the restart. Anything else
		 * (a reset, a restored store, another learner's pushes)
		 * loads the daemon's newest with a fresh trainer below. */
		W->version = rr->params_version;
		if (as_inflight)
			W->synced = W->inflight;
		W->inflight.set = 0;
		net_msg_free(r);
		LG_INFO("learn: player %u registered again: version %u, %s; "
			"kept its parameters and optimizer state (%llu steps)",
			W->player, W->version,
			as_inflight ? "the push in flight at the break"
				    : "as pushed",
			(unsigned long long)W->steps);
		return 0;
	}
	W->steps = rr->player_steps;
	int fresh = rr->params.len == 0, restored;
	W->inflight.set = 0;
	if (!fresh) {
		rc = load_params(W, rr->params.data, rr->params.len,
				 rr->params_version, &net);
		W->version = rr->params_version;
		W->synced = blob_id_of(rr->params.data, rr->params.len);
	} else {
		rc = nn_new(&net, &W->shape,
			    W->cfg.league.seed * 1000003u + W->player);
		W->version = 0;
	}
	if (rc || (rc = new_trainer(W, net))) {
		net_msg_free(r);
		return rc;
	}
	W->batch.n = 0;
	restored = !fresh && rr->trainer.len &&
		   !restore_trainer(W, rr->trainer.data, rr->trainer.len);
	if (W->det && !fresh && rr->trainer.len && !restored) {
		/* a fresh trainer would train on other bits than the run
		 * that stored this state: not deterministic any more */
		LG_ERROR("learn: player %u: league.deterministic cannot go "
			 "on without version %u's trainer state",
			 W->player, W->version);
		net_msg_free(r);
		return LG_ECORRUPT;
	}
	W->kept = rr->through_job;
	W->cur_on = 0;
	W->pushed_updates = W->updates;
	net_msg_free(r);
	if (fresh && (rc = push(W, 0)))
		return rc;
	LG_INFO("learn: player %u registered: version %u%s, %llu steps, "
		"trajectories on %s", W->player, W->version,
		restored ? " with its trainer state" : "",
		(unsigned long long)W->steps, W->endpoint);
	if (W->det)
		LG_INFO("learn: player %u: deterministic; %zu rows waiting, "
			"rows kept through job %lld", W->player, W->batch.n,
			(long long)W->kept - 1);
	return 0;
}

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
	W->batch.n = 0;
	return 0;
}

/*
 * Deterministic mode, before a segment of ours is taken: *skip when its
 * job's rows are kept already (a job played again after a restart).
 * Rows of a job must come in order, from its first segment: when the job
 * in hand is played again from the start or another begins before its
 * end, what was taken of it is undone by reloading the state the daemon
 * kept (registering again on the same session). 0, or an error.
 */
static int det_before(struct learn *W, const struct net_segment *g, int *skip)
{
	int rc;

	*skip = 0;
	if (g->h.player != W->player)
		return 0; /* refused as not ours */
	if ((*skip = g->h.job_id + 1 == W->kept))
		return 0;
	if (W->cur_on && (g->h.job_id != W->cur_job ||
			  (!g->h.job_end && g->h.segment_seq <= W->cur_seq))) {
		LG_INFO("learn: player %u: job %llu %s before job %llu's end: "
			"back to the state kept at job %lld's end",
			W->player, (unsigned long long)g->h.job_id,
			g->h.job_id == W->cur_job ? "played again" : "began",
			(unsigned long long)W->cur_job, (long long)W->kept - 1);
		if ((rc = do_register(W)))
			return rc;
		if ((*skip = g->h.job_id + 1 == W->kept))
			return 0;
	}
	if (!W->cur_on) {
		W->cur_on = 1;
		W->cur_job = g->h.job_id;
		W->cur_count = 0;
	}
	if (!g->h.job_end)
		W->cur_seq = g->h.segment_seq;
	return 0;
}

/* Deterministic mode, a job's end mark: when every segment it counts was
 * taken, the state (with the rows still waiting) is kept before the
 * job's result can count: a version when the job made an update, else a
 * checkpoint of the newest. Otherwise back to the kept state. */
static int det_job_end(struct learn *W, const struct net_segment *g)
{
	W->cur_on = 0;
	if (W->cur_count != g->h.job_segments) {
		/* segments missed (registered mid-job, a send lost): the job
		 * is not kept; it is played again once its lease ends */
		LG_WARN("learn: player %u: job %llu ended with %u of its %u "
			"segments taken: back to the state kept at job %lld's "
			"end", W->player, (unsigned long long)g->h.job_id,
			W->cur_count, g->h.job_segments, (long long)W->kept - 1);
		return do_register(W);
	}
	W->kept = g->h.job_id + 1;
	return push(W, W->updates == W->pushed_updates);
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

	if (W->det && ((rc = det_before(W, g, &skip)) || skip))
		return rc;
	if (W->det && g->h.player == W->player && !g->count)
		return g->h.job_end ? det_job_end(W, g) : 0;
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
		return g->h.job_end ? det_job_end(W, g) : 0;
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

static int reconnect(struct learn *W)
{
	char err[256];
	int rc = net_client_reconnect(W->cl, err, sizeof err);

	if (rc) {
		LG_ERROR("learn: daemon unreachable: %s", err);
		return rc;
	}
	return do_register(W);
}

static int learn_loop(struct learn *W)
{
	int rc;

	while (!stop_signal && !net_client_shutdown_requested(W->cl)) {
		const struct net_segment *g;

		rc = net_traj_pop(W->ts, &g, 0.25);
		if (rc == LG_ETIMEOUT) {
			/* Idle: is the daemon still there (or telling us to
			 * stop)? */
			if ((rc = net_client_poll(W->cl))) {
				if (stop_signal ||
				    net_client_shutdown_requested(W->cl))
					return 0;
				LG_WARN("learn: lost the daemon: %s",
					lg_strerror(rc));
				if ((rc = reconnect(W)))
					return rc;
			}
			continue;
		}
		if (rc)
			return rc;
		rc = take_segment(W, g);
		net_traj_release(W->ts, g);
		if (W->det && (rc == LG_ECLOSED || rc == LG_ETIMEOUT ||
			       rc == LG_EPROTO)) {
			/* keeping the state at a job's end failed: the job
			 * is played again once we are back (the daemon
			 * re-issues it to a learner that registers anew) */
			net_client_poll(W->cl);
			if (stop_signal || net_client_shutdown_requested(W->cl))
				return 0;
			if ((rc = reconnect(W)))
				return rc;
			continue;
		}
		if (rc)
			return rc;
		if (W->det || W->batch.n < W->cfg.learner.batch)
			continue; /* deterministic: pushed at a job's end */
		if ((rc = train(W)))
			return rc;
		if (W->updates % W->cfg.learner.push_every)
			continue;
		while ((rc = push(W, 0)) == LG_ECLOSED || rc == LG_ETIMEOUT) {
			/* A Shutdown may sit unread behind the close. */
			net_client_poll(W->cl);
			if (stop_signal || net_client_shutdown_requested(W->cl))
				return 0;
			if ((rc = reconnect(W)))
				return rc;
			break; /* the daemon's newest version stands */
		}
		if (rc == LG_EPROTO && (rc = reconnect(W)))
			return rc;
		if (rc)
			return rc;
	}
	return 0;
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

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "connect", required_argument, NULL, 'c' },
		{ "player", required_argument, NULL, 'p' },
		{ "listen", required_argument, NULL, 'l' },
		{ "name", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	static struct learn W;
	const char *connect = NULL, *token = getenv("LEAGUE_TOKEN");
	unsigned long long player = ~0ull;
	char err[512];
	int ch, rc;

	memset(&W, 0, sizeof W);
	snprintf(W.listen, sizeof W.listen, "127.0.0.1");
	while ((ch = cli_getopt(argc, argv, "learn", "", opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'c': connect = optarg; break;
		case 'l': snprintf(W.listen, sizeof W.listen, "%s", optarg);
			  break;
		case 'n': snprintf(W.name, sizeof W.name, "%s", optarg); break;
		case 'p':
			if (cli_opt_u64("learn", "--player", optarg, 0,
					UINT32_MAX - 1, &player))
				return CLI_USAGE;
			break;
		}
	}
	if (optind != argc)
		return cli_usage_error("learn", "unexpected argument '%s'",
				       argv[optind]);
	if (player == ~0ull)
		return cli_usage_error("learn", "--player ID is required");
	if ((rc = cli_worker_address("learn", connect, W.host, sizeof W.host,
				     &W.port)))
		return rc;
	W.player = (uint32_t)player;
	if (!W.name[0])
		snprintf(W.name, sizeof W.name, "learner.%u", W.player);
	if ((rc = cli_worker_tls("league learn", &W.tls, &W.tls_srv, 1)))
		return rc;
	cli_worker_signals(W.name, on_signal);

	struct net_traj_server_opts to = {
		.listen = W.listen, .token = token, .tls = W.tls_srv,
		.window = 8, .max_senders = 64,
	};
	if ((rc = net_traj_server_start(&W.ts, &to, err, sizeof err))) {
		fprintf(stderr, "league learn: trajectory endpoint: %s\n", err);
		return CLI_FAIL;
	}
	snprintf(W.endpoint, sizeof W.endpoint, "%s:%u", W.listen,
		 net_traj_server_port(W.ts));
	W.co = (struct net_client_opts){
		.host = W.host, .port = W.port, .token = token, .tls = W.tls,
		.role = LEAGUE__ROLE__ROLE_LEARNER, .name = W.name,
		.give_up_s = 60,
	};
	if ((rc = net_client_connect(&W.cl, &W.co, err, sizeof err))) {
		fprintf(stderr, "league learn: %s\n", err);
		net_traj_server_stop(W.ts);
		return rc == LG_EAUTH || rc == LG_EVERSION ? CLI_USAGE
							   : CLI_FAIL;
	}
	/* senders waiting for credit hear from the stream's thread at the
	 * daemon's pace, so they wait through an update and give up on a
	 * learner stopped for NET_SILENT_HEARTBEATS periods */
	net_traj_server_set_heartbeat(W.ts, net_client_heartbeat_s(W.cl));
	rc = do_register(&W);
	if (!rc)
		rc = endpoint_policy(&W);
	if (!rc)
		rc = learn_loop(&W);
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
		       ? CLI_USAGE
	       : rc				  ? CLI_FAIL
						  : CLI_OK;
}

const struct cli_cmd cli_cmd_learn = {
	.name = "learn",
	.summary = "run a learner worker for one learning player",
	.help =
	"usage: league learn --connect HOST:PORT --player ID [--listen ADDR]\n"
	"                    [--name NAME]\n\n"
	"Owns learning player ID of the league served at HOST:PORT: takes its\n"
	"trajectories from collectors on a trajectory endpoint (bounded queue,\n"
	"credit flow control: nothing is dropped), trains it with PPO, and\n"
	"pushes a new parameter version every learner.push_every updates.\n"
	"Game, model and training settings come from the daemon's config.\n"
	"Reconnects with backoff when the daemon restarts.\n\n"
	"  --listen ADDR   trajectory endpoint address (default 127.0.0.1;\n"
	"                  collectors on other machines need a routable one)\n"
	"  --name NAME     label in daemon logs (default learner.ID)\n\n"
	"Token: $LEAGUE_TOKEN.\n",
	.run = run,
};
