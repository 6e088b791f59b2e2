/*
 * league/learners.c: who trains which player, and the parameter versions
 * they push (see daemon.h for the protocol).
 *
 * The learner table is indexed by player id (ids the brain knows; only
 * learning players have an entry in use). It holds the session that owns
 * each player, where its learner listens for trajectories, the newest
 * stored version and that version's bytes, so registration and the
 * collectors' ParamsGet of the newest version are served from memory,
 * also in the turn that stored it (the batch is not committed yet).
 *
 * Versions: STORE_DB_PARAMS, key (be32 player, be32 version), a
 * checksummed blob in the learner's own format. Versions are never
 * rewritten. A version is kept while an active snapshot froze it
 * (brain_version_held), for good when it is version 0 (what a reset
 * returns to), while a job kind pins it (league_kind.pins), and as one of
 * the newest DAEMON_KEEP_VERSIONS; any other is deleted when it falls out
 * of that window, or when the prune rule retires the last snapshot that
 * held it (snapshot.keep): so a long league stores its active snapshots'
 * parameters, not every snapshot's. A job already handed out against a
 * retired snapshot whose collector has not fetched the parameters yet
 * comes back empty and is cancelled, as one against a version that left
 * the window does.
 */
#include "league/daemon_internal.h"
#include "server/series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct learner *daemon_learner(league_daemon *d, uint32_t player)
{
	if (player >= d->nlearners || !d->learners[player].is_learner)
		return NULL;
	return &d->learners[player];
}

int daemon_learners_sync(league_daemon *d)
{
	uint32_t n = brain_count(d->br);

	if (n > d->nlearners) {
		struct learner *s = realloc(d->learners, sizeof(*s) * n);
		if (!s)
			return LG_ENOMEM;
		memset(s + d->nlearners, 0, sizeof(*s) * (n - d->nlearners));
		d->learners = s;
		for (uint32_t i = d->nlearners; i < n; i++) {
			struct brain_player p;
			if (!brain_player_info(d->br, i, &p))
				s[i].is_learner = p.role != BRAIN_ROLE_HISTORICAL;
		}
		d->nlearners = n;
	}
	return 0;
}

void daemon_learners_free(league_daemon *d)
{
	for (uint32_t i = 0; i < d->nlearners; i++) {
		free(d->learners[i].blob);
		free(d->learners[i].trainer);
	}
	free(d->learners);
	d->learners = NULL;
	d->nlearners = 0;
}

/* ---- versions ----------------------------------------------------------- */

static int params_scan_cb(const void *key, size_t klen, const void *val,
			  size_t vlen, void *arg)
{
	league_daemon *d = arg;
	uint32_t player, version;

	if (klen != 8)
		return LG_ECORRUPT;
	player = lg_get_be32(key);
	version = lg_get_be32((const uint8_t *)key + 4);
	if (player < d->nlearners) {
		struct learner *l = &d->learners[player];
		if (!l->has_params || version > l->newest)
			l->newest = version;
		l->has_params = 1;
	}
	return 0;
}

int daemon_params_load(league_daemon *d)
{
	store_txn *t;
	int rc;

	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	rc = store_iter(t, STORE_DB_PARAMS, NULL, 0, params_scan_cb, d);
	store_txn_abort(t);
	return rc;
}

/* Copy a committed blob of db at key out (caller frees *blob). */
static int blob_read_stored(league_daemon *d, enum store_db db,
			    const uint8_t *k, size_t klen, uint8_t **blob,
			    size_t *len, char *err, size_t errlen)
{
	struct store_blob_info info;
	const void *p;
	store_txn *t;
	int rc;

	*blob = NULL;
	*len = 0;
	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	rc = store_blob_get(t, db, k, klen, &info, &p, err, errlen);
	if (!rc) {
		if (!(*blob = malloc(info.nbytes ? info.nbytes : 1)))
			rc = LG_ENOMEM;
		else {
			memcpy(*blob, p, info.nbytes);
			*len = info.nbytes;
		}
	}
	store_txn_abort(t);
	return rc;
}

/* A committed version's blob. */
static int params_read_stored(league_daemon *d, uint32_t player,
			      uint32_t version, uint8_t **blob, size_t *len,
			      char *err, size_t errlen)
{
	uint8_t k[8];

	store_key_u32x2(k, player, version);
	return blob_read_stored(d, STORE_DB_PARAMS, k, sizeof k, blob, len,
				err, errlen);
}

/* The newest version's bytes of learner l (player), cached: read once
 * from the store after a start, then kept as they are put. */
static int newest_blob(league_daemon *d, uint32_t player,
		       const uint8_t **blob, size_t *len, char *err,
		       size_t errlen)
{
	struct learner *l = &d->learners[player];
	int rc;

	if (!l->blob && (rc = params_read_stored(d, player, l->newest,
						 &l->blob, &l->blob_len, err,
						 errlen)))
		return rc;
	*blob = l->blob;
	*len = l->blob_len;
	return 0;
}

int daemon_params_exist(league_daemon *d, uint32_t player, uint32_t version)
{
	struct learner *l = player < d->nlearners ? &d->learners[player] : NULL;
	uint8_t k[8];
	store_txn *t;
	const void *v;
	size_t vl;
	int rc;

	if (l && l->has_params && version == l->newest)
		return 1;
	if (l && l->turn_puts && l->turn_commit == d->commits &&
	    version >= l->turn_first && version <= l->newest)
		return 1; /* put this turn, not committed yet */
	if (store_txn_begin(d->st, STORE_TXN_READ, &t))
		return 0;
	store_key_u32x2(k, player, version);
	rc = store_get(t, STORE_DB_PARAMS, k, sizeof k, &v, &vl);
	store_txn_abort(t);
	return rc == 0;
}

/* Kept for good (the initial version), while an active snapshot froze
 * it, or while a kind needs it. */
static int version_pinned(const league_daemon *d, uint32_t player,
			  uint32_t v)
{
	if (v == 0 || brain_version_held(d->br, player, v))
		return 1;
	for (size_t i = 0; i < d->nkinds; i++)
		if (d->kinds[i]->pins &&
		    d->kinds[i]->pins(d, d->kstate[i], player, v))
			return 1;
	return 0;
}

static int params_del(league_daemon *d, uint32_t player, uint32_t version)
{
	uint8_t k[8];

	store_key_u32x2(k, player, version);
	return store_batch_del(&d->wb, STORE_DB_PARAMS, k, sizeof k);
}

int daemon_params_release(league_daemon *d, uint32_t player,
			  uint32_t version)
{
	struct learner *l = daemon_learner(d, player);

	if (!l || !l->has_params || version + DAEMON_KEEP_VERSIONS >= l->newest ||
	    version_pinned(d, player, version))
		return 0;
	return params_del(d, player, version);
}

/* Append data (len bytes, a one-dimensional byte blob) to the turn's
 * batch under key k of db. 0, or store_batch_blob's error. */
static int batch_bytes(league_daemon *d, enum store_db db, const void *k,
		       size_t klen, const void *data, size_t len)
{
	struct store_blob_info info = { .dtype = STORE_DT_BYTES, .rank = 1 };

	info.dims[0] = (uint32_t)len;
	info.nbytes = len;
	return store_batch_blob(&d->wb, db, k, klen, &info, data);
}

/* Store version of player (the newest from now on), and drop the version
 * that just fell out of the kept window. */
static int params_store(league_daemon *d, uint32_t player, uint32_t version,
			const void *blob, size_t len)
{
	struct learner *l = &d->learners[player];
	uint8_t k[8], *copy;
	int rc;

	if (!(copy = malloc(len ? len : 1)))
		return LG_ENOMEM;
	memcpy(copy, blob, len);
	store_key_u32x2(k, player, version);
	if ((rc = batch_bytes(d, STORE_DB_PARAMS, k, sizeof k, blob, len))) {
		free(copy);
		return rc;
	}
	if (version > DAEMON_KEEP_VERSIONS) {
		uint32_t old = version - DAEMON_KEEP_VERSIONS - 1;
		if (!version_pinned(d, player, old) &&
		    (rc = params_del(d, player, old))) {
			free(copy);
			return rc;
		}
	}
	free(l->blob);
	l->blob = copy;
	l->blob_len = len;
	if (!l->turn_puts || l->turn_commit != d->commits) {
		l->turn_first = version;
		l->turn_commit = d->commits;
		l->turn_puts = 1;
	}
	l->has_params = 1;
	if (version > l->newest)
		l->newest = version;
	return 0;
}

/* ---- trainer states ------------------------------------------------------ */

/* league.deterministic: 1 + the id of the last job whose rows player's
 * trainer state holds (0: none) sits beside the state (STORE_DB_TRAINER, key player then 'j',
 * be64). A reset drops the state but not this: a fresh trainer has
 * taken those rows as much as the one it replaced. */
static void through_key(uint8_t k[5], uint32_t player)
{
	store_key_u32(k, player);
	k[4] = 'j';
}

static int through_read(league_daemon *d, uint32_t player, uint64_t *job)
{
	uint8_t k[5];
	const void *v;
	size_t vlen;
	store_txn *t;
	int rc;

	*job = 0;
	through_key(k, player);
	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	rc = store_get(t, STORE_DB_TRAINER, k, sizeof k, &v, &vlen);
	if (!rc && vlen == 8)
		*job = lg_get_be64(v);
	store_txn_abort(t);
	return rc == LG_ENOTFOUND ? 0 : rc;
}

static int through_store(league_daemon *d, uint32_t player, uint64_t job)
{
	uint8_t k[5], v[8];

	through_key(k, player);
	lg_put_be64(v, job);
	d->learners[player].through_job = job;
	return store_batch_put(&d->wb, STORE_DB_TRAINER, k, sizeof k, v,
			       sizeof v);
}

/* The trainer state stored for player, into the cache (none: trainer
 * NULL), with what it has taken (through_job). */
static int trainer_cached(league_daemon *d, uint32_t player, char *err,
			  size_t errlen)
{
	struct learner *l = &d->learners[player];
	uint8_t k[4], *rec;
	size_t len;
	int rc;

	if (l->trainer_read)
		return 0;
	store_key_u32(k, player);
	rc = blob_read_stored(d, STORE_DB_TRAINER, k, sizeof k, &rec, &len,
			      err, errlen);
	if (rc == LG_ENOTFOUND)
		rc = 0;
	else if ((!rc && len < 5) || rc == LG_ECORRUPT) {
		/* the state is optional: a damaged one is none (the learner
		 * starts a fresh optimizer), not a player that can never be
		 * trained again; the next push replaces it */
		LG_WARN("daemon: trainer state of player %u damaged (%s); "
			"its learner starts a fresh optimizer", player,
			rc ? err : "too short");
		rc = 0;
	} else if (!rc) {
		/* the record: be32 version, then the state */
		l->trainer_version = lg_get_be32(rec);
		l->trainer_len = len - 4;
		memmove(rec, rec + 4, len - 4);
		l->trainer = rec;
		rec = NULL;
	}
	free(rec);
	if (!rc && (rc = through_read(d, player, &l->through_job)))
		lg_errf(err, errlen, "jobs taken by player %u's trainer: %s",
			player, lg_strerror(rc));
	if (!rc)
		l->trainer_read = 1;
	return rc;
}

uint64_t daemon_through_job(league_daemon *d, uint32_t player)
{
	char err[256];

	if (trainer_cached(d, player, err, sizeof err)) {
		LG_WARN("daemon: %s", err);
		return 0;
	}
	return d->learners[player].through_job;
}

/* Store the trainer state that goes with version (len 0: drop the one
 * stored, it belongs to no version the player will train on). */
static int trainer_store(league_daemon *d, uint32_t player, uint32_t version,
			 const void *state, size_t len)
{
	struct learner *l = &d->learners[player];
	uint8_t k[4], *rec;
	int rc;

	if (!l->trainer_read && (rc = through_read(d, player,
						   &l->through_job)))
		return rc;
	store_key_u32(k, player);
	free(l->trainer);
	l->trainer = NULL;
	l->trainer_len = 0;
	l->trainer_read = 1;
	if (!len)
		return store_batch_del(&d->wb, STORE_DB_TRAINER, k, sizeof k);
	if (!(rec = malloc(len + 4)))
		return LG_ENOMEM;
	lg_put_be32(rec, version);
	memcpy(rec + 4, state, len);
	if ((rc = batch_bytes(d, STORE_DB_TRAINER, k, sizeof k, rec,
			      len + 4))) {
		free(rec);
		return rc;
	}
	memmove(rec, rec + 4, len);
	l->trainer = rec;
	l->trainer_len = len;
	l->trainer_version = version;
	return 0;
}

/* ---- messages -------------------------------------------------------------- */

/* A learner session takes over player: checks, then the RegisterReply
 * fields (the newest parameters, the steps, the league's time). 0, or
 * the Ack already queued. */
static int register_learner(league_daemon *d, league_session *ss,
			    struct sess_data *sd, net_msg *m,
			    League__RegisterReply *rr)
{
	League__Register *rg = m->register_;
	struct learner *l = daemon_learner(d, rg->player);
	const char *ep = rg->trajectory_endpoint;
	struct brain_player bp;
	const uint8_t *blob = NULL;
	size_t len = 0;
	char err[256];
	int status = 0;
	const char *why = NULL;

	if (!l) {
		status = LEAGUE__STATUS__STATUS_NOT_FOUND;
		why = "no such learning player";
	} else if (sd->player != BRAIN_NONE && sd->player != rg->player) {
		status = LEAGUE__STATUS__STATUS_BAD_REQUEST;
		why = "a learner session owns one player";
	} else if (l->owner && l->owner != ss) {
		status = LEAGUE__STATUS__STATUS_BUSY;
		why = "another learner owns this player";
	} else if (!ep || !*ep || strlen(ep) > DAEMON_ENDPOINT_MAX) {
		status = LEAGUE__STATUS__STATUS_BAD_REQUEST;
		why = "trajectory_endpoint missing or too long";
	} else if (l->has_params &&
		   (newest_blob(d, rg->player, &blob, &len, err, sizeof err) ||
		    trainer_cached(d, rg->player, err, sizeof err))) {
		status = LEAGUE__STATUS__STATUS_SERVER;
		why = err;
	}
	if (why) {
		daemon_ack(d, ss, m->seq, status, why, rg->player, 0);
		return -1;
	}
	brain_player_info(d->br, rg->player, &bp);
	int again = l->owner == ss; /* a learner reloading its state */
	l->owner = ss;
	snprintf(l->endpoint, sizeof l->endpoint, "%s", ep);
	sd->player = rg->player;
	rr->params_version = l->has_params ? l->newest : 0;
	rr->params.data = (uint8_t *)(uintptr_t)blob;
	rr->params.len = len;
	rr->player_steps = bp.steps;
	rr->league_seconds = daemon_run_seconds(d);
	if (l->has_params && l->trainer &&
	    l->trainer_version == rr->params_version) {
		rr->trainer.data = l->trainer;
		rr->trainer.len = l->trainer_len;
	}
	rr->through_job = l->through_job;
	if (!again)
		daemon_det_requeue(d, rg->player);
	LG_INFO("daemon: learner %s owns player %u (version %u%s, %llu "
		"steps), trajectories to %s", league_session_name(ss),
		rg->player, rr->params_version,
		rr->trainer.len ? " with its trainer state" : "",
		(unsigned long long)bp.steps, l->endpoint);
	return 0;
}

void daemon_on_register(league_daemon *d, league_session *ss,
			struct sess_data *sd, net_msg *m)
{
	net_msg r = LEAGUE__ENVELOPE__INIT;
	League__RegisterReply rr = LEAGUE__REGISTER_REPLY__INIT;

	if (sd->role == LEAGUE__ROLE__ROLE_COLLECTOR) {
		sd->max_jobs = m->register_->max_jobs ? m->register_->max_jobs
						      : 1;
	} else if (sd->role == LEAGUE__ROLE__ROLE_LEARNER) {
		if (register_learner(d, ss, sd, m, &rr))
			return;
	} else if (sd->role != LEAGUE__ROLE__ROLE_INSPECTOR) {
		/* Inspectors (the evaluator) register for the config only. */
		daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
			   "only collectors, learners and inspectors register",
			   0, 0);
		return;
	}
	rr.status = LEAGUE__STATUS__STATUS_OK;
	rr.error = (char *)"";
	rr.config = (char *)d->config_yaml.data;
	r.reply_to = m->seq;
	r.body_case = LEAGUE__ENVELOPE__BODY_REGISTER_REPLY;
	r.register_reply = &rr;
	daemon_reply(d, ss, &r);
}

void daemon_on_params_get(league_daemon *d, league_session *ss,
			  struct sess_data *sd, net_msg *m)
{
	League__ParamsGet *g = m->params_get;
	struct learner *l = daemon_learner(d, g->player);
	net_msg r = LEAGUE__ENVELOPE__INIT;
	League__Params p = LEAGUE__PARAMS__INIT;
	const uint8_t *blob;
	uint8_t *copy = NULL;
	size_t len;
	char err[256] = "";
	int rc;

	if (l && l->has_params && g->version == l->newest)
		rc = newest_blob(d, g->player, &blob, &len, err, sizeof err);
	else {
		rc = params_read_stored(d, g->player, g->version, &copy, &len,
					err, sizeof err);
		blob = copy;
	}
	if (rc) {
		daemon_ack(d, ss, m->seq, rc == LG_ENOTFOUND
				? LEAGUE__STATUS__STATUS_NOT_FOUND
				: LEAGUE__STATUS__STATUS_SERVER,
			   rc == LG_ENOTFOUND ? "no such parameters" : err,
			   g->version, 0);
		return;
	}
	p.player = g->player;
	p.version = g->version;
	p.blob.data = (uint8_t *)(uintptr_t)blob;
	p.blob.len = len;
	r.reply_to = m->seq;
	r.body_case = LEAGUE__ENVELOPE__BODY_PARAMS;
	r.params = &p;
	daemon_reply(d, ss, &r);
	free(copy);
}

/* The prune rule retired these snapshots: their versions go unless
 * something else still needs them (daemon_params_release). */
static int release_retired(league_daemon *d,
			   const struct brain_step_report *rep)
{
	int rc;

	for (uint32_t i = 0; i < rep->nretired; i++) {
		struct brain_player p;
		if (brain_player_info(d->br, rep->retired[i], &p))
			continue;
		if ((rc = daemon_params_release(d, p.parent, p.version)))
			return rc;
		LG_INFO("daemon: player %u: snapshot %u (version %u) retired",
			p.parent, rep->retired[i], p.version);
	}
	return 0;
}

/* The snapshot and reset rules said reset: the player starts again from
 * its initial parameters, stored as the next version. */
static int reset_player(league_daemon *d, uint32_t player,
			uint64_t player_steps, uint32_t *version)
{
	struct brain_step_report rep;
	uint8_t *blob;
	size_t len;
	char err[256];
	int rc;

	if ((rc = params_read_stored(d, player, 0, &blob, &len, err,
				     sizeof err))) {
		LG_ERROR("daemon: reset of player %u: %s", player, err);
		return rc;
	}
	++*version;
	rc = params_store(d, player, *version, blob, len);
	free(blob);
	if (rc || (rc = brain_report_steps(d->br, player, player_steps,
					   *version, &rep)))
		return rc;
	LG_INFO("daemon: player %u: reset to its initial parameters (version "
		"%u)", player, *version);
	return 0;
}

/* The learner's statistics as a point of its time series, in the batch
 * with the version they came with. */
static int series_learner(league_daemon *d, const League__ParamsPut *pp,
			  uint32_t version)
{
	const League__LearnerStats *s = pp->stats;
	struct league_series_point p = {
		.kind = LEAGUE_SERIES_LEARNER,
		.seconds = daemon_run_seconds(d),
		.player = pp->player,
		.v = {
			[LSL_VERSION] = version,
			[LSL_UPDATES] = (double)s->updates,
			[LSL_PLAYER_STEPS] = (double)pp->player_steps,
			[LSL_SAMPLES_PER_S] = s->samples_per_s,
			[LSL_LOSS] = s->loss,
			[LSL_PG_LOSS] = s->pg_loss,
			[LSL_VALUE_LOSS] = s->value_loss,
			[LSL_ENTROPY] = s->entropy,
			[LSL_APPROX_KL] = s->approx_kl,
			[LSL_CLIP_FRAC] = s->clip_frac,
			[LSL_LR] = s->lr,
			[LSL_GRAD_NORM] = s->grad_norm,
			[LSL_MAGNET_KL] = s->magnet_kl,
		},
	};

	d->learners[pp->player].samples_per_s = s->samples_per_s;
	return league_series_put(&d->wb, &p);
}

/* league.deterministic: a learner's state at a job's end that made no
 * version (no update in the job): it replaces the state stored with the
 * newest version, and the job's rows count as kept. */
static void checkpoint_put(league_daemon *d, league_session *ss, net_msg *m,
			   struct learner *l)
{
	League__ParamsPut *pp = m->params_put;
	const uint8_t *blob;
	size_t len = 0;
	char err[256];
	const char *why = NULL;
	int rc;

	if (!d->cfg.league.deterministic)
		why = "a checkpoint outside league.deterministic";
	else if (pp->blob.len)
		why = "a checkpoint carries no parameters";
	else if (!l->has_params || pp->base_version != l->newest)
		why = "a checkpoint of another version than the newest";
	else if (newest_blob(d, pp->player, &blob, &len, err, sizeof err))
		why = err;
	else if (pp->trainer.len + len > d->cfg.server.max_frame / 2)
		why = "parameters and trainer state over half of "
		      "server.max_frame";
	if (why) {
		daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
			   why, 0, 0);
		return;
	}
	if ((rc = trainer_store(d, pp->player, l->newest, pp->trainer.data,
				pp->trainer.len)) ||
	    (rc = through_store(d, pp->player, pp->through_job))) {
		daemon_fail(d, rc, "checkpoint");
		return;
	}
	daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", l->newest, 0);
}

/* A ParamsPut refused for what it carries: nothing is stored or
 * changed, the learner hears why, the log says it once with the
 * worker's name. */
static void refuse_put(league_daemon *d, league_session *ss, net_msg *m,
		       const char *why)
{
	d->refused_params++;
	LG_WARN("daemon: learner %s: parameters of player %u refused: %s",
		league_session_name(ss), m->params_put->player, why);
	daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST, why, 0,
		   0);
}

/* A version the learner of player l may push: its bytes are the
 * league's model (daemon_params_check), and player_steps moves from the
 * brain's count by no more than daemon_steps_allowed (a larger count
 * is cut to it, in pp). 0, or -1 with the refusal sent. */
static int put_acceptable(league_daemon *d, league_session *ss, net_msg *m,
			  struct learner *l)
{
	League__ParamsPut *pp = m->params_put;
	struct brain_player bp;
	char err[256], why[320];
	uint64_t most;

	if (daemon_params_check(d, pp->blob.data, pp->blob.len, err,
				sizeof err)) {
		snprintf(why, sizeof why, "not a version of the league's "
			 "model: %s", err);
		refuse_put(d, ss, m, why);
		return -1;
	}
	if (!l->has_params)
		return 0; /* version 0: no steps yet */
	brain_player_info(d->br, pp->player, &bp);
	if (pp->player_steps < bp.steps) {
		refuse_put(d, ss, m, "player_steps went back");
		return -1;
	}
	most = daemon_steps_allowed(d, pp->player, bp.steps);
	if (pp->player_steps > most) {
		/* Counted at the bound, not refused: a refusal would leave
		 * an honest learner whose count outran the bound (rows of
		 * leases that expired, pushes lost to daemon restarts) with
		 * no way to push again, while the bound still holds what a
		 * liar gains to what it could have trained on. */
		d->clamped_steps++;
		LG_WARN("daemon: learner %s: player %u's player_steps %llu "
			"is more than it can have trained on (%llu, %llu "
			"steps counted since its last version, slack and "
			"jobs in flight): counted as %llu",
			league_session_name(ss), pp->player,
			(unsigned long long)pp->player_steps,
			(unsigned long long)bp.steps,
			(unsigned long long)l->steps_seen,
			(unsigned long long)most);
		pp->player_steps = most;
	}
	return 0;
}

void daemon_on_params_put(league_daemon *d, league_session *ss,
			  struct sess_data *sd, net_msg *m)
{
	League__ParamsPut *pp = m->params_put;
	struct learner *l = daemon_learner(d, pp->player);
	struct brain_step_report rep = { 0 };
	struct brain_player bp;
	uint32_t version;
	int rc;

	if (sd->role != LEAGUE__ROLE__ROLE_LEARNER || !l || l->owner != ss) {
		daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
			   "not the registered learner of this player", 0, 0);
		return;
	}
	if (pp->checkpoint) {
		checkpoint_put(d, ss, m, l);
		return;
	}
	if (!pp->blob.len) {
		daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
			   "empty parameters", 0, 0);
		return;
	}
	if (pp->trainer.len &&
	    pp->blob.len + pp->trainer.len > d->cfg.server.max_frame / 2) {
		/* RegisterReply hands both back, beside the config: the two
		 * must leave room in one frame */
		daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_BAD_REQUEST,
			   "parameters and trainer state over half of "
			   "server.max_frame", 0, 0);
		return;
	}
	if (put_acceptable(d, ss, m, l))
		return;
	if (!l->has_params) {
		/* The learner's initialisation: version 0, what resets go
		 * back to and what the first snapshots froze. */
		if ((rc = params_store(d, pp->player, 0, pp->blob.data,
				       pp->blob.len))) {
			daemon_fail(d, rc, "params");
			return;
		}
		daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", 0, 0);
		return;
	}
	brain_player_info(d->br, pp->player, &bp);
	version = l->newest + 1;
	if ((rc = params_store(d, pp->player, version, pp->blob.data,
			       pp->blob.len)) ||
	    (rc = trainer_store(d, pp->player, version, pp->trainer.data,
				pp->trainer.len)) ||
	    (d->cfg.league.deterministic &&
	     (rc = through_store(d, pp->player, pp->through_job))) ||
	    (rc = brain_report_steps(d->br, pp->player, pp->player_steps,
				     version, &rep))) {
		daemon_fail(d, rc, "params put");
		return;
	}
	/* what it trained on is spent (put_acceptable checked the bound) */
	l = &d->learners[pp->player];
	l->steps_seen -= LG_MIN(l->steps_seen, pp->player_steps - bp.steps);
	if (rep.snapshot) {
		daemon_learners_sync(d);
		LG_INFO("daemon: player %u: snapshot %u of version %u at %llu "
			"steps", pp->player, rep.snapshot_id,
			rep.snapshot_version,
			(unsigned long long)pp->player_steps);
	}
	if ((rc = release_retired(d, &rep))) {
		daemon_fail(d, rc, "retired parameters");
		return;
	}
	if (rep.reset &&
	    ((rc = reset_player(d, pp->player, pp->player_steps, &version)) ||
	     (rc = trainer_store(d, pp->player, version, NULL, 0)))) {
		daemon_fail(d, rc, "reset");
		return;
	}
	if (pp->stats && (rc = series_learner(d, pp, version))) {
		daemon_fail(d, rc, "series");
		return;
	}
	daemon_ack(d, ss, m->seq, LEAGUE__STATUS__STATUS_OK, "", version,
		   rep.reset);
	daemon_check_budget(d);
}
