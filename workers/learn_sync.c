/*
 * workers/learn_sync.c: the learner's trainer as the daemon holds it.
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
 * Every learner.push_every updates the parameters go to the daemon as a
 * new version (ParamsPut), and the daemon answers with the stored
 * version, or with a reset (the league's rules for exploiters): then the
 * learner fetches that version and starts over with fresh optimizer
 * state.
 */
#include "workers/workers_internal.h"

#include <stdio.h>
#include <string.h>

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
	return worker_call(W->cl, "learn", what, req, rep);
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

/* ---- pushes ------------------------------------------------------------ */

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

/* The parameters and the trainer state a push sends, within half of
 * server.max_frame (the daemon hands both back in one frame, with the
 * config): over it, the parameters alone (warned once), or in
 * deterministic mode LG_ECONFIG (logged). On error both are freed. */
static int push_bytes(struct learn *W, lg_buf *blob, lg_buf *trainer)
{
	int rc;

	if ((rc = nn_save(ppo_net(W->p), blob)) ||
	    (rc = trainer_bytes(W, trainer)))
		goto fail;
	if (W->det && blob->len + trainer->len > W->cfg.server.max_frame / 2) {
		/* determinism cannot drop the state */
		LG_ERROR("learn: player %u: parameters and trainer state with "
			 "the waiting rows (%zu bytes) over half of "
			 "server.max_frame: raise it (league.deterministic "
			 "keeps them all)", W->player, blob->len + trainer->len);
		rc = LG_ECONFIG;
		goto fail;
	}
	if (blob->len + trainer->len > W->cfg.server.max_frame / 2) {
		/* the daemon hands both back in one frame, with the config */
		if (trainer->len && !W->trainer_too_big++)
			LG_WARN("learn: player %u: parameters and trainer state "
				"(%zu bytes) over half of server.max_frame: "
				"pushing the parameters alone (a restarted "
				"learner starts a fresh optimizer)", W->player,
				blob->len + trainer->len);
		trainer->len = 0;
	}
	return 0;
fail:
	lg_buf_free(blob);
	lg_buf_free(trainer);
	return rc;
}

/* The last update's statistics, for the daemon's time series. */
static void push_stats(const struct learn *W, League__LearnerStats *ls)
{
	ls->updates = W->updates;
	ls->samples_per_s = W->last_rate;
	ls->loss = W->last.loss;
	ls->pg_loss = W->last.pg_loss;
	ls->value_loss = W->last.value_loss;
	ls->entropy = W->last.entropy;
	ls->approx_kl = W->last.approx_kl;
	ls->clip_frac = W->last.clip_frac;
	ls->lr = W->last.lr;
	ls->grad_norm = W->last.grad_norm;
	ls->magnet_kl = W->last.magnet_kl;
}

/* The daemon reset the player (the league's rules for exploiters): its
 * version W->version fetched into a fresh trainer, the batch dropped. */
static int take_reset(struct learn *W)
{
	nn *net;
	int rc;

	W->resets++;
	if ((rc = worker_fetch_net(W->cl, "learn", W->player, W->version,
				   &W->shape, &net)))
		return rc;
	W->synced = net_blob_id(net);
	if ((rc = new_trainer(W, net)))
		return rc;
	lg_rows_clear(&W->batch); /* data of the old parameters */
	LG_INFO("learn: player %u reset by the league: version %u, "
		"fresh optimizer", W->player, W->version);
	return 0;
}

/* The daemon's answer to a push (r, freed here). */
static int push_answer(struct learn *W, net_msg *r, int checkpoint)
{
	League__Ack *a;

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
	int reset = a->reset;
	net_msg_free(r);
	return reset ? take_reset(W) : 0;
}

int worker_learn_push(struct learn *W, int checkpoint)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__ParamsPut pp = LEAGUE__PARAMS_PUT__INIT;
	League__LearnerStats ls = LEAGUE__LEARNER_STATS__INIT;
	lg_buf blob = { 0 }, trainer = { 0 };
	int rc;

	if ((rc = push_bytes(W, &blob, &trainer)))
		return rc;
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
		push_stats(W, &ls);
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
	return push_answer(W, r, checkpoint);
}

/* ---- registration ------------------------------------------------------ */

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
		lg_rows_clear(&W->batch);
		LG_WARN("learn: player %u: version %u's trainer state not "
			"used, fresh optimizer: %s", W->player, W->version,
			err);
		return rc;
	}
	W->updates = updates;
	return 0;
}

/* Register; 0 with the RegisterReply in *out (the caller's), or an
 * error: a refusal logged and LG_EBUSY, LG_ENOTFOUND or LG_EINVAL as the
 * daemon's status says (LG_EPROTO for another reply), or the call's. */
static int register_call(struct learn *W, net_msg **out)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__Register rg = LEAGUE__REGISTER__INIT;
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
	*out = r;
	return 0;
}

/* The first registration: the config the reply r carries, the game's
 * spec, the network shape, PPO's options, the endpoint's window and the
 * batch. */
static int configure(struct learn *W, const net_msg *r)
{
	char err[512];
	struct env_opts eo;
	env *e;
	int rc;

	if (worker_config(r, &W->cfg, "learn"))
		return LG_ECONFIG;
	league_env_opts(&W->cfg, &eo);
	if ((rc = env_new(&e, W->cfg.env.name, &eo, err, sizeof err))) {
		LG_ERROR("learn: game %s: %s", W->cfg.env.name, err);
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
	if ((rc = lg_rows_init(&W->batch, W->shape.obs, W->shape.actions,
			       W->shape.gru, W->po.batch_max)) ||
	    (W->cfg.learner.search.sims &&
	     (rc = lg_rows_add_visits(&W->batch)))) {
		LG_ERROR("learn: batch of %llu rows: %s",
			 (unsigned long long)W->po.batch_max, lg_strerror(rc));
		return rc;
	}
	W->have_cfg = 1;
	return 0;
}

/* Registered again: when the daemon's newest parameters are ours, byte
 * for byte, go on with the trainer as it is (1, logged); else 0. */
static int keep_trainer(struct learn *W, const League__RegisterReply *rr)
{
	int as_synced = blob_is(&W->synced, rr->params.data, rr->params.len),
	    as_inflight = blob_is(&W->inflight, rr->params.data,
				  rr->params.len);

	if (W->det || !W->p || !rr->params.len ||
	    !(as_synced || as_inflight) || rr->player_steps > W->steps)
		return 0;
	/* The daemon's newest parameters are ours, byte for byte:
	 * the last version acknowledged, or the push whose answer a
	 * restart swallowed (committed after all). Go on with the
	 * trainer as it is (the updates since, Adam's moments and
	 * step, the rng); the next push is based on that version,
	 * as it would have been without the restart. Anything else
	 * (a reset, a restored store, another learner's pushes)
	 * loads the daemon's newest with a fresh trainer (take_newest). */
	W->version = rr->params_version;
	if (as_inflight)
		W->synced = W->inflight;
	W->inflight.set = 0;
	LG_INFO("learn: player %u registered again: version %u, %s; "
		"kept its parameters and optimizer state (%llu steps)",
		W->player, W->version,
		as_inflight ? "the push in flight at the break" : "as pushed",
		(unsigned long long)W->steps);
	return 1;
}

/* The daemon's newest version (none: initial parameters from the seed,
 * *fresh) into a new trainer, with the trainer state stored beside it
 * when it loads (*restored). 0, or an error (logged). */
static int take_newest(struct learn *W, const League__RegisterReply *rr,
		       int *fresh, int *restored)
{
	nn *net = NULL;
	int rc;

	W->steps = rr->player_steps;
	*fresh = rr->params.len == 0;
	W->inflight.set = 0;
	if (!*fresh) {
		rc = worker_load_net(rr->params.data, rr->params.len,
				     &W->shape, "learn", W->player,
				     rr->params_version, &net);
		W->version = rr->params_version;
		W->synced = blob_id_of(rr->params.data, rr->params.len);
	} else {
		rc = nn_new(&net, &W->shape,
			    W->cfg.league.seed * 1000003u + W->player);
		W->version = 0;
	}
	if (rc || (rc = new_trainer(W, net)))
		return rc;
	lg_rows_clear(&W->batch);
	*restored = !*fresh && rr->trainer.len &&
		    !restore_trainer(W, rr->trainer.data, rr->trainer.len);
	if (W->det && !*fresh && rr->trainer.len && !*restored) {
		/* a fresh trainer would train on other bits than the run
		 * that stored this state: not deterministic any more */
		LG_ERROR("learn: player %u: league.deterministic cannot go "
			 "on without version %u's trainer state",
			 W->player, W->version);
		return LG_ECORRUPT;
	}
	W->kept = rr->through_job;
	W->cur_on = 0;
	W->pushed_updates = W->updates;
	return 0;
}

int worker_learn_register(struct learn *W)
{
	const League__RegisterReply *rr;
	net_msg *r;
	int rc, fresh = 0, restored = 0;

	if ((rc = register_call(W, &r)))
		return rc;
	rr = r->register_reply;
	if (!W->have_cfg && (rc = configure(W, r))) {
		net_msg_free(r);
		return rc;
	}
	W->league_s = rr->league_seconds;
	W->league_at = lg_now_s();
	W->det = W->cfg.league.deterministic;
	if (keep_trainer(W, rr)) {
		net_msg_free(r);
		return 0;
	}
	rc = take_newest(W, rr, &fresh, &restored);
	net_msg_free(r);
	if (rc || (fresh && (rc = worker_learn_push(W, 0))))
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
