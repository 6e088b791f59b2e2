/*
 * players/replay.c: replay a stored run's decision log into a fresh
 * brain, checking every decision and step report (see players.h). The
 * records are decoded by records.c, beside their encoders.
 */
#include "players/brain_internal.h"

#include <stdlib.h>

#include <string.h>

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

/* The snapshots a step report retired, as logged (a record from before
 * retirements were logged says nothing). */
static int same_retired(struct replay *rp, const struct brain_log_entry *e,
			const struct brain_step_report *sr)
{
	if (!e->retired_logged)
		return 0;
	if (sr->nretired != e->nretired)
		return differ(rp, e->seq, "retired count", e->nretired,
			      sr->nretired);
	for (uint32_t i = 0; i < e->nretired; i++)
		if (sr->retired[i] != e->retired[i])
			return differ(rp, e->seq, "retired snapshot",
				      e->retired[i], sr->retired[i]);
	return 0;
}

/* A returns result: recorded again from its stored returns. */
static int replay_returns(struct replay *rp, const struct brain_log_entry *e)
{
	struct brain_rec_returns res;
	const void *v;
	double *ret;
	size_t rlen, k;
	uint8_t key[8];
	int rc;

	store_key_u64(key, e->job);
	if (store_get(rp->t, STORE_DB_RESULTS, key, 8, &v, &rlen) ||
	    brain_rec_returns_decode(v, rlen, &res) || res.h.n != e->n) {
		lg_errf(rp->err, rp->errlen, "seq %llu: returns of job %llu "
			"missing", (unsigned long long)e->seq,
			(unsigned long long)e->job);
		return LG_ECORRUPT;
	}
	k = (size_t)res.h.n * res.nseats;
	if (!(ret = malloc(k * sizeof *ret)))
		return LG_ENOMEM;
	for (size_t i = 0; i < k; i++)
		ret[i] = brain_rec_return(&res, i / res.nseats,
					  i % res.nseats);
	rc = brain_record_returns(rp->b, e->job, ret, res.h.n);
	free(ret);
	return rc;
}

static int replay_one(const void *key, size_t klen, const void *val,
		      size_t vlen, void *arg)
{
	struct replay *rp = arg;
	struct brain_log_entry e;
	struct brain_job j;
	struct brain_step_report sr;
	struct brain_rec_result res;
	const void *v;
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
		for (uint32_t s = 0; s < e.nseats; s++)
			if (j.seat_agent[s] != e.seat_agent[s])
				return differ(rp, e.seq, "seat agent",
					      e.seat_agent[s], j.seat_agent[s]);
		break;
	case BRAIN_LOG_RETURNS:
		if ((rc = replay_returns(rp, &e)))
			return rc;
		break;
	case BRAIN_LOG_RESULT:
	case BRAIN_LOG_GAMES:
		store_key_u64(k, e.job);
		if ((rc = store_get(rp->t, STORE_DB_RESULTS, k, 8, &v,
				    &rlen)) ||
		    brain_rec_result_decode(v, rlen, &res) || res.n != e.n) {
			lg_errf(rp->err, rp->errlen, "seq %llu: result of job "
				"%llu missing", (unsigned long long)e.seq,
				(unsigned long long)e.job);
			return LG_ECORRUPT;
		}
		if ((rc = e.type == BRAIN_LOG_GAMES
				  ? brain_record_games(rp->b, e.job,
						       res.learner,
						       res.opponent,
						       res.outcomes, e.n)
				  : brain_record_result(rp->b, e.job,
							res.outcomes, e.n)))
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
		if ((rc = same_retired(rp, &e, &sr)))
			return rc;
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
