/*
 * players/records.c: every record the brain stores, each encoder beside
 * its decoder and their fixed fields one table both read, so a layout is
 * written down once (players.c writes them, players.c's load and
 * replay.c read them). Fields are little-endian;
 * keys are the big-endian ids of storage.h.
 *
 *   players   be32 id  -> format 2, role, status, population, parent@4, prev@8,
 *                         version@12, snapshots@16, resets@20, steps@24,
 *                         last snapshot steps@32, PSRO best f64@40 and
 *                         its steps@48 (format 1: 40 bytes, no PSRO)
 *   snapshots be32 id  -> parent, prev, version, 0, steps@16
 *   jobs      be64 id  -> id, learner@8, learner version@12, opponent@16,
 *                         opponent params@20, opponent version@24,
 *                         episodes@28, kind@32, candidates@36, prob@40;
 *                         an N-seat job then nseats@48, learner seat@49
 *                         and each seat's agent, params, version@52..
 *   results   be64 job -> seq, learner@8, opponent@12, n@16, wins@20,
 *                         draws@24, losses@28, outcomes[n]@32; a
 *                         returns result (log type returns) instead
 *                         nseats@32, learner seat@36, each seat's agent
 *                         and team@40.., then the returns (f64, n x
 *                         nseats)
 *   log       be64 seq -> type, then per type:
 *             decision  learner@4, opponent@8, kind@12, candidates@16,
 *                       episodes@20, job@24, prob@32, rng before@40..71;
 *                       an N-seat job's then nseats@72, learner seat@73
 *                       and each seat's agent@76..
 *             result    n@4, job@8, wins@16, draws@20, losses@24
 *             games     as result (PSRO's cross-play: the result record
 *                       names the two snapshots)
 *             returns   as result (its record holds the returns)
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
#include <stddef.h>
#include <string.h>

#define LOG_DECISION 72
#define LOG_RESULT 28
#define LOG_STEPS 24 /* and 4 bytes per retired snapshot */
#define LOG_RETIRED_LOGGED 0x80
_Static_assert(LOG_STEPS + 4 * BRAIN_RETIRE_MAX <= BRAIN_REC_LOG_MAX &&
		       BRAIN_RETIRE_MAX < LOG_RETIRED_LOGGED,
	       "a step report's retirements fit its record");
#define LOG_CANCEL 16

/* Each record's fixed fields, one table for its encoder and its decoder
 * (util's lg_record_put / lg_record_get); an int member (kind) travels
 * as its 32 bits. What a table cannot say (bytes, versions, checks)
 * stays in the code below. */
_Static_assert(sizeof(int) == sizeof(uint32_t), "an int is 32 bits");
#define AG(type, at, member) LG_FIELD(type, at, struct agent, member)
static const struct lg_field player_fields[] = {
	AG(U32, 4, parent),	 AG(U32, 8, prev),
	AG(U32, 12, version),	 AG(U32, 16, snapshots),
	AG(U32, 20, resets),	 AG(U64, 24, steps),
	AG(U64, 32, last_snap_steps),
};
static const struct lg_field player_psro[] = { /* format 2 */
	AG(F64, 40, psro_best),
	AG(U64, 48, psro_at),
};
static const struct lg_field snapshot_fields[] = {
	AG(U32, 0, parent),	 AG(U32, 4, prev),
	AG(U32, 8, version),	 AG(U64, 16, steps),
};
#define JOB(type, at, member) LG_FIELD(type, at, struct brain_job, member)
static const struct lg_field job_fields[] = {
	JOB(U64, 0, id),	       JOB(U32, 8, learner),
	JOB(U32, 12, learner_version), JOB(U32, 16, opponent),
	JOB(U32, 20, opponent_params), JOB(U32, 24, opponent_version),
	JOB(U32, 28, episodes),	       JOB(U32, 32, kind),
	JOB(U32, 36, candidates),      JOB(F64, 40, prob),
};
#define RES(type, at, member) \
	LG_FIELD(type, at, struct brain_rec_result, member)
static const struct lg_field result_fields[] = {
	RES(U64, 0, seq),	RES(U32, 8, learner),
	RES(U32, 12, opponent), RES(U32, 16, n),
	RES(U32, 20, wins),	RES(U32, 24, draws),
	RES(U32, 28, losses),
};
#define LOG(type, at, member) \
	LG_FIELD(type, at, struct brain_log_entry, member)
static const struct lg_field log_decision[] = {
	LOG(U32, 4, player),	     LOG(U32, 8, opponent),
	LOG(U32, 12, kind),	     LOG(U32, 16, candidates),
	LOG(U32, 20, episodes),	     LOG(U64, 24, job),
	LOG(F64, 32, prob),	     LOG(U64, 40, rng_before.s[0]),
	LOG(U64, 48, rng_before.s[1]), LOG(U64, 56, rng_before.s[2]),
	LOG(U64, 64, rng_before.s[3]),
};
static const struct lg_field log_result[] = { /* and games */
	LOG(U32, 4, n),	     LOG(U64, 8, job),
	LOG(U32, 16, wins),  LOG(U32, 20, draws),
	LOG(U32, 24, losses),
};
static const struct lg_field log_cancel[] = {
	LOG(U64, 8, job),
};
static const struct lg_field log_steps[] = { /* and the retired ids */
	LOG(U32, 4, player),	   LOG(U32, 8, version),
	LOG(U32, 12, snapshot_id), LOG(U64, 16, steps),
};
static const struct lg_record snapshot_rec =
	LG_RECORD(BRAIN_REC_SNAPSHOT, snapshot_fields);
static const struct lg_record result_rec = LG_RECORD(LOG_RESULT, log_result);
static const struct lg_record cancel_rec = LG_RECORD(LOG_CANCEL, log_cancel);
#define PUT(rec, table, base) \
	lg_fields_put(rec, table, LG_ARRAY_LEN(table), base)
#define GET(rec, table, base) \
	lg_fields_get(rec, table, LG_ARRAY_LEN(table), base)

void brain_rec_player_encode(const struct agent *a,
			     uint8_t r[BRAIN_REC_PLAYER])
{
	memset(r, 0, BRAIN_REC_PLAYER);
	r[0] = 2; /* format */
	r[1] = a->role;
	r[2] = a->status;
	r[3] = a->pop;
	PUT(r, player_fields, a);
	PUT(r, player_psro, a);
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
	a->pop = r[3]; /* 0 in a record from before populations */
	if (a->pop >= BRAIN_MAX_SEATS)
		return LG_ECORRUPT;
	GET(r, player_fields, a);
	if (r[0] == 2) {
		GET(r, player_psro, a);
		if (!isfinite(a->psro_best))
			return LG_ECORRUPT;
	}
	a->last_snapshot = BRAIN_NONE;
	return 0;
}

void brain_rec_snapshot_encode(const struct agent *s,
			       uint8_t r[BRAIN_REC_SNAPSHOT])
{
	lg_record_put(r, &snapshot_rec, s);
}

int brain_rec_snapshot_decode(const void *val, size_t len, struct agent *s)
{
	return lg_record_get(val, len, &snapshot_rec, s);
}

/* The seats after a record's `fixed` bytes: their count and the
 * learner's seat, then `per` bytes a seat to the record's end. -1 when
 * they do not fit len. */
static int seats_head(const uint8_t *r, size_t len, size_t fixed,
		      size_t per, uint32_t *ns, uint32_t *ls)
{
	if (len < fixed + 4)
		return -1;
	*ns = r[fixed];
	*ls = r[fixed + 1];
	return !*ns || *ns > BRAIN_MAX_SEATS || *ls >= *ns ||
			       len != fixed + 4 + per * *ns
		       ? -1
		       : 0;
}

void brain_job_two_seats(struct brain_job *j)
{
	uint32_t ls = (uint32_t)(j->id & 1);

	j->nseats = 2;
	j->learner_seat = (uint8_t)ls;
	j->seat_agent[ls] = j->seat_params[ls] = j->learner;
	j->seat_version[ls] = j->learner_version;
	j->seat_agent[!ls] = j->opponent;
	j->seat_params[!ls] = j->opponent_params;
	j->seat_version[!ls] = j->opponent_version;
}

size_t brain_rec_job_encode(const struct brain_job *j,
			    uint8_t r[BRAIN_REC_JOB_MAX])
{
	uint8_t *q = r + BRAIN_REC_JOB + 4;

	memset(r, 0, BRAIN_REC_JOB_MAX);
	PUT(r, job_fields, j);
	if (j->nseats == 2 && j->learner_seat == (j->id & 1))
		return BRAIN_REC_JOB;
	r[BRAIN_REC_JOB] = j->nseats;
	r[BRAIN_REC_JOB + 1] = j->learner_seat;
	for (uint32_t s = 0; s < j->nseats; s++, q += 12) {
		lg_put_le32(q, j->seat_agent[s]);
		lg_put_le32(q + 4, j->seat_params[s]);
		lg_put_le32(q + 8, j->seat_version[s]);
	}
	return BRAIN_REC_JOB + 4 + 12 * (size_t)j->nseats;
}

int brain_rec_job_decode(const void *val, size_t len, struct brain_job *j)
{
	const uint8_t *r = val, *q = r + BRAIN_REC_JOB + 4;
	uint32_t ns, ls;

	memset(j, 0, sizeof *j);
	if (len < BRAIN_REC_JOB)
		return LG_ECORRUPT;
	GET(r, job_fields, j);
	if (j->kind < 0 || j->kind >= BRAIN_JOB__COUNT)
		return LG_ECORRUPT;
	if (len == BRAIN_REC_JOB) {
		brain_job_two_seats(j);
		return 0;
	}
	if (seats_head(r, len, BRAIN_REC_JOB, 12, &ns, &ls))
		return LG_ECORRUPT;
	j->nseats = (uint8_t)ns;
	j->learner_seat = (uint8_t)ls;
	for (uint32_t s = 0; s < j->nseats; s++, q += 12) {
		j->seat_agent[s] = lg_get_le32(q);
		j->seat_params[s] = lg_get_le32(q + 4);
		j->seat_version[s] = lg_get_le32(q + 8);
	}
	return 0;
}

void brain_rec_result_encode(const struct brain_rec_result *res, uint8_t *r)
{
	memset(r, 0, BRAIN_REC_RESULT_HDR);
	PUT(r, result_fields, res);
	memcpy(r + BRAIN_REC_RESULT_HDR, res->outcomes, res->n);
}

int brain_rec_result_decode(const void *val, size_t len,
			    struct brain_rec_result *res)
{
	const uint8_t *r = val;

	if (len < BRAIN_REC_RESULT_HDR)
		return LG_ECORRUPT;
	GET(r, result_fields, res);
	res->outcomes = (const int8_t *)(r + BRAIN_REC_RESULT_HDR);
	if (len != brain_rec_result_size(res->n))
		return LG_ECORRUPT;
	return 0;
}

void brain_rec_returns_encode(const struct brain_rec_returns *res,
			      const double *ret, uint8_t *r)
{
	uint8_t *q = r + BRAIN_REC_RESULT_HDR;
	size_t k = (size_t)res->h.n * res->nseats;

	memset(r, 0, BRAIN_REC_RESULT_HDR);
	PUT(r, result_fields, &res->h);
	lg_put_le32(q, res->nseats);
	lg_put_le32(q + 4, res->learner_seat);
	q += 8;
	for (uint32_t s = 0; s < res->nseats; s++, q += 8) {
		lg_put_le32(q, res->agent[s]);
		lg_put_le32(q + 4, res->team[s]);
	}
	for (size_t i = 0; i < k; i++, q += 8)
		lg_put_lef64(q, ret[i]);
}

int brain_rec_returns_decode(const void *val, size_t len,
			     struct brain_rec_returns *res)
{
	const uint8_t *r = val, *q = r + BRAIN_REC_RESULT_HDR;

	memset(res, 0, sizeof *res);
	if (len < BRAIN_REC_RESULT_HDR + 8)
		return LG_ECORRUPT;
	GET(r, result_fields, &res->h);
	res->nseats = lg_get_le32(q);
	res->learner_seat = lg_get_le32(q + 4);
	if (!res->nseats || res->nseats > BRAIN_MAX_SEATS ||
	    res->learner_seat >= res->nseats ||
	    len != brain_rec_returns_size(res->h.n, res->nseats))
		return LG_ECORRUPT;
	q += 8;
	for (uint32_t s = 0; s < res->nseats; s++, q += 8) {
		res->agent[s] = lg_get_le32(q);
		res->team[s] = lg_get_le32(q + 4);
		if (res->team[s] >= res->nseats)
			return LG_ECORRUPT;
	}
	res->ret = q;
	for (size_t i = 0; i < (size_t)res->h.n * res->nseats; i++)
		if (!isfinite(lg_get_lef64(q + 8 * i)))
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
		PUT(r, log_decision, e);
		if (!e->nseats)
			return LOG_DECISION;
		r[LOG_DECISION] = (uint8_t)e->nseats;
		r[LOG_DECISION + 1] = (uint8_t)e->learner_seat;
		for (uint32_t s = 0; s < e->nseats; s++)
			lg_put_le32(r + LOG_DECISION + 4 + 4 * s,
				    e->seat_agent[s]);
		return LOG_DECISION + 4 + 4 * (size_t)e->nseats;
	case BRAIN_LOG_RESULT:
	case BRAIN_LOG_GAMES:
	case BRAIN_LOG_RETURNS:
		PUT(r, log_result, e);
		return LOG_RESULT;
	case BRAIN_LOG_STEPS:
		r[1] = (uint8_t)e->snapshot;
		r[2] = (uint8_t)e->reset;
		PUT(r, log_steps, e);
		if (!e->retired_logged)
			return LOG_STEPS;
		r[3] = (uint8_t)(LOG_RETIRED_LOGGED | e->nretired);
		for (uint32_t i = 0; i < e->nretired; i++)
			lg_put_le32(r + LOG_STEPS + 4 * i, e->retired[i]);
		return LOG_STEPS + 4 * (size_t)e->nretired;
	case BRAIN_LOG_CANCEL:
		PUT(r, log_cancel, e);
		return LOG_CANCEL;
	}
	return 0;
}

/* A decision: its fixed fields, and an N-seat job's seats after them. */
static int decision_decode(const uint8_t *r, size_t vlen,
			   struct brain_log_entry *e)
{
	if (vlen < LOG_DECISION)
		return LG_ECORRUPT;
	GET(r, log_decision, e);
	if (e->kind < 0 || e->kind >= BRAIN_JOB__COUNT)
		return LG_ECORRUPT;
	if (vlen == LOG_DECISION)
		return 0;
	if (seats_head(r, vlen, LOG_DECISION, 4, &e->nseats, &e->learner_seat))
		return LG_ECORRUPT;
	for (uint32_t s = 0; s < e->nseats; s++)
		e->seat_agent[s] = lg_get_le32(r + LOG_DECISION + 4 + 4 * s);
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
		return decision_decode(r, vlen, e);
	case BRAIN_LOG_RESULT:
	case BRAIN_LOG_GAMES:
	case BRAIN_LOG_RETURNS:
		return lg_record_get(val, vlen, &result_rec, e);
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
		GET(r, log_steps, e);
		return 0;
	case BRAIN_LOG_CANCEL:
		return lg_record_get(val, vlen, &cancel_rec, e);
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
