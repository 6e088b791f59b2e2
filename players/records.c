/*
 * players/records.c: every record the brain stores, each encoder beside
 * its decoder, so a layout is written down once (players.c writes them,
 * players.c's load and replay.c read them). Fields are little-endian;
 * keys are the big-endian ids of storage.h.
 *
 *   players   be32 id  -> format 2, role, status, pad, parent@4, prev@8,
 *                         version@12, snapshots@16, resets@20, steps@24,
 *                         last snapshot steps@32, PSRO best f64@40 and
 *                         its steps@48 (format 1: 40 bytes, no PSRO)
 *   snapshots be32 id  -> parent, prev, version, 0, steps@16
 *   jobs      be64 id  -> id, learner@8, learner version@12, opponent@16,
 *                         opponent params@20, opponent version@24,
 *                         episodes@28, kind@32, candidates@36, prob@40
 *   results   be64 job -> seq, learner@8, opponent@12, n@16, wins@20,
 *                         draws@24, losses@28, outcomes[n]@32
 *   log       be64 seq -> type, then per type:
 *             decision  learner@4, opponent@8, kind@12, candidates@16,
 *                       episodes@20, job@24, prob@32, rng before@40..71
 *             result    n@4, job@8, wins@16, draws@20, losses@24
 *             games     as result (PSRO's cross-play: the result record
 *                       names the two snapshots)
 *             steps     snapshot@1, reset@2, retired@3, player@4,
 *                       version@8, snapshot id@12, steps@16, then the
 *                       retired snapshots' ids@24 (retired: 0x80 | their
 *                       count; 0 and no ids in a record from before
 *                       retirements were logged, which still decodes)
 *             cancel    job@8
 *   meta      brain.rng: the four rng words; brain.payoff: decay,
 *             min_games, prior, prior_strength, elo_k (f64 each)
 */
#include "players/brain_internal.h"

#include <math.h>
#include <string.h>

#define LOG_DECISION 72
#define LOG_RESULT 28
#define LOG_STEPS 24 /* and 4 bytes per retired snapshot */
#define LOG_RETIRED_LOGGED 0x80
_Static_assert(LOG_STEPS + 4 * BRAIN_RETIRE_MAX <= BRAIN_REC_LOG_MAX &&
		       BRAIN_RETIRE_MAX < LOG_RETIRED_LOGGED,
	       "a step report's retirements fit its record");
#define LOG_CANCEL 16

void brain_rec_player_encode(const struct agent *a,
			     uint8_t r[BRAIN_REC_PLAYER])
{
	memset(r, 0, BRAIN_REC_PLAYER);
	r[0] = 2; /* format */
	r[1] = a->role;
	r[2] = a->status;
	lg_put_le32(r + 4, a->parent);
	lg_put_le32(r + 8, a->prev);
	lg_put_le32(r + 12, a->version);
	lg_put_le32(r + 16, a->snapshots);
	lg_put_le32(r + 20, a->resets);
	lg_put_le64(r + 24, a->steps);
	lg_put_le64(r + 32, a->last_snap_steps);
	lg_put_lef64(r + 40, a->psro_best);
	lg_put_le64(r + 48, a->psro_at);
}

int brain_rec_player_decode(const void *val, size_t len, struct agent *a)
{
	const uint8_t *r = val;

	if (len < 1 || !((r[0] == 1 && len == 40) ||
			 (r[0] == 2 && len == BRAIN_REC_PLAYER)) ||
	    r[1] >= BRAIN_ROLE__COUNT || r[2] > BRAIN_RETIRED)
		return LG_ECORRUPT;
	memset(a, 0, sizeof *a);
	a->role = r[1];
	a->status = r[2];
	a->parent = lg_get_le32(r + 4);
	a->prev = lg_get_le32(r + 8);
	a->version = lg_get_le32(r + 12);
	a->snapshots = lg_get_le32(r + 16);
	a->resets = lg_get_le32(r + 20);
	a->steps = lg_get_le64(r + 24);
	a->last_snap_steps = lg_get_le64(r + 32);
	if (r[0] == 2) {
		a->psro_best = lg_get_lef64(r + 40);
		a->psro_at = lg_get_le64(r + 48);
		if (!isfinite(a->psro_best))
			return LG_ECORRUPT;
	}
	a->last_snapshot = BRAIN_NONE;
	return 0;
}

void brain_rec_snapshot_encode(const struct agent *s,
			       uint8_t r[BRAIN_REC_SNAPSHOT])
{
	memset(r, 0, BRAIN_REC_SNAPSHOT);
	lg_put_le32(r, s->parent);
	lg_put_le32(r + 4, s->prev);
	lg_put_le32(r + 8, s->version);
	lg_put_le64(r + 16, s->steps);
}

int brain_rec_snapshot_decode(const void *val, size_t len, struct agent *s)
{
	const uint8_t *r = val;

	if (len != BRAIN_REC_SNAPSHOT)
		return LG_ECORRUPT;
	s->parent = lg_get_le32(r);
	s->prev = lg_get_le32(r + 4);
	s->version = lg_get_le32(r + 8);
	s->steps = lg_get_le64(r + 16);
	return 0;
}

void brain_rec_job_encode(const struct brain_job *j, uint8_t r[BRAIN_REC_JOB])
{
	memset(r, 0, BRAIN_REC_JOB);
	lg_put_le64(r, j->id);
	lg_put_le32(r + 8, j->learner);
	lg_put_le32(r + 12, j->learner_version);
	lg_put_le32(r + 16, j->opponent);
	lg_put_le32(r + 20, j->opponent_params);
	lg_put_le32(r + 24, j->opponent_version);
	lg_put_le32(r + 28, j->episodes);
	lg_put_le32(r + 32, (uint32_t)j->kind);
	lg_put_le32(r + 36, j->candidates);
	lg_put_lef64(r + 40, j->prob);
}

int brain_rec_job_decode(const void *val, size_t len, struct brain_job *j)
{
	const uint8_t *r = val;

	if (len != BRAIN_REC_JOB)
		return LG_ECORRUPT;
	j->id = lg_get_le64(r);
	j->learner = lg_get_le32(r + 8);
	j->learner_version = lg_get_le32(r + 12);
	j->opponent = lg_get_le32(r + 16);
	j->opponent_params = lg_get_le32(r + 20);
	j->opponent_version = lg_get_le32(r + 24);
	j->episodes = lg_get_le32(r + 28);
	j->kind = (int)lg_get_le32(r + 32);
	j->candidates = lg_get_le32(r + 36);
	j->prob = lg_get_lef64(r + 40);
	if (j->kind < 0 || j->kind >= BRAIN_JOB__COUNT)
		return LG_ECORRUPT;
	return 0;
}

void brain_rec_result_encode(const struct brain_rec_result *res, uint8_t *r)
{
	memset(r, 0, BRAIN_REC_RESULT_HDR);
	lg_put_le64(r, res->seq);
	lg_put_le32(r + 8, res->learner);
	lg_put_le32(r + 12, res->opponent);
	lg_put_le32(r + 16, res->n);
	lg_put_le32(r + 20, res->wins);
	lg_put_le32(r + 24, res->draws);
	lg_put_le32(r + 28, res->losses);
	memcpy(r + BRAIN_REC_RESULT_HDR, res->outcomes, res->n);
}

int brain_rec_result_decode(const void *val, size_t len,
			    struct brain_rec_result *res)
{
	const uint8_t *r = val;

	if (len < BRAIN_REC_RESULT_HDR)
		return LG_ECORRUPT;
	res->seq = lg_get_le64(r);
	res->learner = lg_get_le32(r + 8);
	res->opponent = lg_get_le32(r + 12);
	res->n = lg_get_le32(r + 16);
	res->wins = lg_get_le32(r + 20);
	res->draws = lg_get_le32(r + 24);
	res->losses = lg_get_le32(r + 28);
	res->outcomes = (const int8_t *)(r + BRAIN_REC_RESULT_HDR);
	if (len != brain_rec_result_size(res->n))
		return LG_ECORRUPT;
	return 0;
}

size_t brain_rec_log_encode(const struct brain_log_entry *e,
			    uint8_t r[BRAIN_REC_LOG_MAX])
{
	memset(r, 0, BRAIN_REC_LOG_MAX);
	r[0] = (uint8_t)e->type;
	switch (e->type) {
	case BRAIN_LOG_DECISION:
		lg_put_le32(r + 4, e->player);
		lg_put_le32(r + 8, e->opponent);
		lg_put_le32(r + 12, (uint32_t)e->kind);
		lg_put_le32(r + 16, e->candidates);
		lg_put_le32(r + 20, e->episodes);
		lg_put_le64(r + 24, e->job);
		lg_put_lef64(r + 32, e->prob);
		for (int i = 0; i < 4; i++)
			lg_put_le64(r + 40 + 8 * i, e->rng_before.s[i]);
		return LOG_DECISION;
	case BRAIN_LOG_RESULT:
	case BRAIN_LOG_GAMES:
		lg_put_le32(r + 4, e->n);
		lg_put_le64(r + 8, e->job);
		lg_put_le32(r + 16, e->wins);
		lg_put_le32(r + 20, e->draws);
		lg_put_le32(r + 24, e->losses);
		return LOG_RESULT;
	case BRAIN_LOG_STEPS:
		r[1] = (uint8_t)e->snapshot;
		r[2] = (uint8_t)e->reset;
		lg_put_le32(r + 4, e->player);
		lg_put_le32(r + 8, e->version);
		lg_put_le32(r + 12, e->snapshot_id);
		lg_put_le64(r + 16, e->steps);
		if (!e->retired_logged)
			return LOG_STEPS;
		r[3] = (uint8_t)(LOG_RETIRED_LOGGED | e->nretired);
		for (uint32_t i = 0; i < e->nretired; i++)
			lg_put_le32(r + LOG_STEPS + 4 * i, e->retired[i]);
		return LOG_STEPS + 4 * (size_t)e->nretired;
	case BRAIN_LOG_CANCEL:
		lg_put_le64(r + 8, e->job);
		return LOG_CANCEL;
	}
	return 0;
}

int brain_log_decode(const void *key, size_t klen, const void *val,
		     size_t vlen, struct brain_log_entry *e)
{
	const uint8_t *r = val;

	memset(e, 0, sizeof *e);
	if (klen != 8 || vlen < 1)
		return LG_ECORRUPT;
	e->seq = lg_get_be64(key);
	e->type = r[0];
	switch (e->type) {
	case BRAIN_LOG_DECISION:
		if (vlen != LOG_DECISION)
			return LG_ECORRUPT;
		e->player = lg_get_le32(r + 4);
		e->opponent = lg_get_le32(r + 8);
		e->kind = (int)lg_get_le32(r + 12);
		e->candidates = lg_get_le32(r + 16);
		e->episodes = lg_get_le32(r + 20);
		e->job = lg_get_le64(r + 24);
		e->prob = lg_get_lef64(r + 32);
		for (int i = 0; i < 4; i++)
			e->rng_before.s[i] = lg_get_le64(r + 40 + 8 * i);
		return e->kind >= 0 && e->kind < BRAIN_JOB__COUNT ?
			       0 : LG_ECORRUPT;
	case BRAIN_LOG_RESULT:
	case BRAIN_LOG_GAMES:
		if (vlen != LOG_RESULT)
			return LG_ECORRUPT;
		e->n = lg_get_le32(r + 4);
		e->job = lg_get_le64(r + 8);
		e->wins = lg_get_le32(r + 16);
		e->draws = lg_get_le32(r + 20);
		e->losses = lg_get_le32(r + 24);
		return 0;
	case BRAIN_LOG_STEPS:
		if (vlen < LOG_STEPS)
			return LG_ECORRUPT;
		if (r[3] & LOG_RETIRED_LOGGED) {
			e->retired_logged = 1;
			e->nretired = r[3] & ~LOG_RETIRED_LOGGED;
			if (e->nretired > BRAIN_RETIRE_MAX ||
			    vlen != LOG_STEPS + 4 * (size_t)e->nretired)
				return LG_ECORRUPT;
			for (uint32_t i = 0; i < e->nretired; i++)
				e->retired[i] = lg_get_le32(r + LOG_STEPS + 4 * i);
		} else if (r[3] || vlen != LOG_STEPS) {
			return LG_ECORRUPT;
		}
		e->snapshot = r[1];
		e->reset = r[2];
		e->player = lg_get_le32(r + 4);
		e->version = lg_get_le32(r + 8);
		e->snapshot_id = lg_get_le32(r + 12);
		e->steps = lg_get_le64(r + 16);
		return 0;
	case BRAIN_LOG_CANCEL:
		if (vlen != LOG_CANCEL)
			return LG_ECORRUPT;
		e->job = lg_get_le64(r + 8);
		return 0;
	}
	return LG_ECORRUPT;
}

void brain_rec_rng_encode(const lg_rng *g, uint8_t r[BRAIN_REC_RNG])
{
	for (int i = 0; i < 4; i++)
		lg_put_le64(r + 8 * i, g->s[i]);
}

int brain_rec_rng_decode(const void *val, size_t len, lg_rng *g)
{
	if (len != BRAIN_REC_RNG)
		return LG_ECORRUPT;
	for (int i = 0; i < 4; i++)
		g->s[i] = lg_get_le64((const uint8_t *)val + 8 * i);
	return 0;
}

void brain_rec_payoff_opts_encode(const struct payoff_opts *p,
				  uint8_t r[BRAIN_REC_PAYOFF_OPTS])
{
	lg_put_lef64(r, p->decay);
	lg_put_lef64(r + 8, p->min_games);
	lg_put_lef64(r + 16, (double)p->prior);
	lg_put_lef64(r + 24, p->prior_strength);
	lg_put_lef64(r + 32, p->elo_k);
}

int brain_rec_payoff_opts_decode(const void *val, size_t len,
				 struct payoff_opts *p)
{
	const uint8_t *v = val;
	struct payoff_opts o;

	if (len != BRAIN_REC_PAYOFF_OPTS)
		return LG_ECORRUPT;
	o.decay = lg_get_lef64(v);
	o.min_games = lg_get_lef64(v + 8);
	o.prior = lg_get_lef64(v + 16) == PAYOFF_PRIOR_BETA ?
			  PAYOFF_PRIOR_BETA : PAYOFF_PRIOR_HALF;
	o.prior_strength = lg_get_lef64(v + 24);
	o.elo_k = lg_get_lef64(v + 32);
	if (payoff_opts_check(&o, NULL, 0))
		return LG_ECORRUPT;
	*p = o;
	return 0;
}
