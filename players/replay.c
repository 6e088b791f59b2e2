/*
 * players/replay.c: decode the brain's decision log and replay a stored
 * run into a fresh brain, checking every decision and step report (see
 * players.h). Layouts match the writers in players.c (little-endian):
 *
 *   decision  type, learner@4, opponent@8, kind@12, candidates@16,
 *             episodes@20, job@24, prob@32, rng state before@40..71
 *   result    type, n@4, job@8, wins@16, draws@20, losses@24
 *   steps     type, snapshot@1, reset@2, player@4, version@8,
 *             snapshot id@12, steps@16
 *   cancel    type, job@8
 */
#include "players/players.h"

#include <string.h>

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
		if (vlen != 72)
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
		if (vlen != 28)
			return LG_ECORRUPT;
		e->n = lg_get_le32(r + 4);
		e->job = lg_get_le64(r + 8);
		e->wins = lg_get_le32(r + 16);
		e->draws = lg_get_le32(r + 20);
		e->losses = lg_get_le32(r + 24);
		return 0;
	case BRAIN_LOG_STEPS:
		if (vlen != 24)
			return LG_ECORRUPT;
		e->snapshot = r[1];
		e->reset = r[2];
		e->player = lg_get_le32(r + 4);
		e->version = lg_get_le32(r + 8);
		e->snapshot_id = lg_get_le32(r + 12);
		e->steps = lg_get_le64(r + 16);
		return 0;
	case BRAIN_LOG_CANCEL:
		if (vlen != 16)
			return LG_ECORRUPT;
		e->job = lg_get_le64(r + 8);
		return 0;
	}
	return LG_ECORRUPT;
}

struct replay {
	brain *b;
	store_txn *t; /* read txn on the source */
	uint64_t n;
	char *err;
	size_t errlen;
};

static int differ(struct replay *rp, uint64_t seq, const char *what,
		  unsigned long long logged, unsigned long long got)
{
	lg_errf(rp->err, rp->errlen, "seq %llu: logged %s %llu, replay %llu",
		(unsigned long long)seq, what, logged, got);
	return LG_ECORRUPT;
}

static int replay_one(const void *key, size_t klen, const void *val,
		      size_t vlen, void *arg)
{
	struct replay *rp = arg;
	struct brain_log_entry e;
	struct brain_job j;
	struct brain_step_report sr;
	const void *res;
	size_t rlen;
	uint8_t k[8];
	int rc;

	if ((rc = brain_log_decode(key, klen, val, vlen, &e))) {
		lg_errf(rp->err, rp->errlen, "malformed log record");
		return rc;
	}
	switch (e.type) {
	case BRAIN_LOG_DECISION:
		if ((rc = brain_next_job(rp->b, e.player, &j)))
			return rc;
		if (j.id != e.job)
			return differ(rp, e.seq, "job", e.job, j.id);
		if (j.opponent != e.opponent)
			return differ(rp, e.seq, "opponent", e.opponent,
				      j.opponent);
		if (j.kind != e.kind)
			return differ(rp, e.seq, "kind", (unsigned)e.kind,
				      (unsigned)j.kind);
		break;
	case BRAIN_LOG_RESULT:
		store_key_u64(k, e.job);
		if ((rc = store_get(rp->t, STORE_DB_RESULTS, k, 8, &res,
				    &rlen)) ||
		    rlen != 32 + (size_t)e.n) {
			lg_errf(rp->err, rp->errlen, "seq %llu: result of job "
				"%llu missing", (unsigned long long)e.seq,
				(unsigned long long)e.job);
			return LG_ECORRUPT;
		}
		if ((rc = brain_record_result(rp->b, e.job,
					      (const int8_t *)res + 32, e.n)))
			return rc;
		break;
	case BRAIN_LOG_STEPS:
		if ((rc = brain_report_steps(rp->b, e.player, e.steps,
					     e.version, &sr)))
			return rc;
		if (sr.snapshot != e.snapshot || sr.reset != e.reset)
			return differ(rp, e.seq, "snapshot/reset",
				      (unsigned)(e.snapshot * 2 + e.reset),
				      (unsigned)(sr.snapshot * 2 + sr.reset));
		break;
	case BRAIN_LOG_CANCEL:
		if ((rc = brain_cancel_job(rp->b, e.job)))
			return rc;
		break;
	}
	rp->n++;
	return 0;
}

int brain_replay(store *from, brain *b, uint64_t *checked, char *err,
		 size_t errlen)
{
	struct replay rp = { b, NULL, 0, err, errlen };
	int rc;

	*checked = 0;
	if ((rc = store_txn_begin(from, STORE_TXN_READ, &rp.t)))
		return rc;
	rc = store_iter(rp.t, STORE_DB_LOG, NULL, 0, replay_one, &rp);
	store_txn_abort(rp.t);
	if (!rc)
		rc = brain_flush(b);
	*checked = rp.n;
	return rc;
}
