/*
 * players/history.c: the league at an earlier moment (brain_open_at,
 * players.h): the payoff table rebuilt from the decision log and the
 * stored results, the way the brain built it as the run went.
 */
#include "players/brain_internal.h"

#include <stdlib.h>
#include <string.h>

struct rebuild {
	brain *b;
	store_txn *t;
	payoff *pf;
	uint64_t upto;
	uint32_t n;    /* agents registered so far */
	char *err;
	size_t errlen;
};

static void nothing(void *arg, uint32_t a, uint32_t c)
{
}

/* A snapshot frozen by a step report: the next agent id. */
static int snapshot(struct rebuild *r, const struct brain_log_entry *e)
{
	int rc;

	if (e->snapshot_id != r->n || e->snapshot_id >= r->b->n) {
		lg_errf(r->err, r->errlen, "seq %llu: snapshot %u, expected "
			"agent %u", (unsigned long long)e->seq, e->snapshot_id,
			r->n);
		return LG_ECORRUPT;
	}
	if ((rc = payoff_add(r->pf, r->n)))
		return rc;
	r->n++;
	if (e->reset)
		return payoff_move(r->pf, e->player, e->snapshot_id, nothing,
				   NULL);
	return 0;
}

/* Log entry e's stored result record into *v, *vl (0), or LG_ENOTFOUND
 * and storage errors. */
static int stored(struct rebuild *r, const struct brain_log_entry *e,
		  const void **v, size_t *vl)
{
	uint8_t k[8];

	store_key_u64(k, e->job);
	return store_get(r->t, STORE_DB_RESULTS, k, 8, v, vl);
}

/* A result the log names is missing or does not fit: LG_ECORRUPT. */
static int misfit(struct rebuild *r, const struct brain_log_entry *e)
{
	lg_errf(r->err, r->errlen, "seq %llu: the result of job %llu is "
		"missing or does not fit", (unsigned long long)e->seq,
		(unsigned long long)e->job);
	return LG_ECORRUPT;
}

/* A result's outcomes, as brain_record_result counted them. */
static int count_outcomes(struct rebuild *r, const struct brain_log_entry *e,
			  const void *v, size_t vl)
{
	struct brain_rec_result res;
	int rc = 0;

	if (brain_rec_result_decode(v, vl, &res) || res.n != e->n ||
	    res.learner >= r->n || res.opponent >= r->n)
		return misfit(r, e);
	for (uint32_t i = 0; i < res.n && !rc; i++)
		rc = payoff_record(r->pf, res.learner, res.opponent,
				   res.outcomes[i]);
	return rc;
}

/* A result's returns, as brain_record_returns counted them. */
static int count_returns(struct rebuild *r, const struct brain_log_entry *e,
			 const void *v, size_t vl)
{
	struct brain_rec_returns res;
	double ret[BRAIN_MAX_SEATS];
	int rc = 0;

	if (brain_rec_returns_decode(v, vl, &res) || res.h.n != e->n)
		return misfit(r, e);
	for (uint32_t s = 0; s < res.nseats; s++)
		if (res.agent[s] >= r->n)
			return misfit(r, e);
	for (uint32_t i = 0; i < res.h.n && !rc; i++) {
		for (uint32_t s = 0; s < res.nseats; s++)
			ret[s] = brain_rec_return(&res, i, s);
		rc = brain_count_episode(r->pf, r->b->o.measure,
					 r->b->o.return_scale, res.nseats,
					 res.agent, res.team, ret, NULL);
	}
	return rc;
}

/* A result the log names (its type says which record holds it). */
static int result(struct rebuild *r, const struct brain_log_entry *e)
{
	const void *v;
	size_t vl;

	if (stored(r, e, &v, &vl))
		return misfit(r, e);
	return e->type == BRAIN_LOG_RETURNS ? count_returns(r, e, v, vl)
					    : count_outcomes(r, e, v, vl);
}

static int rebuild_one(const void *key, size_t klen, const void *val,
		       size_t vlen, void *arg)
{
	struct rebuild *r = arg;
	struct brain_log_entry e;

	if (brain_log_decode(key, klen, val, vlen, &e)) {
		lg_errf(r->err, r->errlen, "a malformed log record");
		return LG_ECORRUPT;
	}
	if (e.seq >= r->upto)
		return 1; /* stop: the moment asked for is before it */
	if (e.type == BRAIN_LOG_RESULT || e.type == BRAIN_LOG_RETURNS)
		return result(r, &e);
	if (e.type == BRAIN_LOG_STEPS && e.snapshot)
		return snapshot(r, &e);
	return 0;
}

/* Agents the league began with: all but the snapshots the log froze. */
static int count_frozen(const void *key, size_t klen, const void *val,
			size_t vlen, void *arg)
{
	struct brain_log_entry e;

	if (brain_log_decode(key, klen, val, vlen, &e))
		return LG_ECORRUPT;
	*(uint32_t *)arg += e.type == BRAIN_LOG_STEPS && e.snapshot;
	return 0;
}

static int rebuild(brain *b, store_txn *t, uint64_t upto, char *err,
		   size_t errlen)
{
	struct rebuild r = { b, t, NULL, upto, 0, err, errlen };
	uint32_t frozen = 0;
	int rc;

	if ((rc = store_iter(t, STORE_DB_LOG, NULL, 0, count_frozen,
			     &frozen))) {
		lg_errf(err, errlen, "a malformed log record");
		return rc;
	}
	if (frozen > b->n) {
		lg_errf(err, errlen, "the log froze %u snapshots of %u agents",
			frozen, b->n);
		return LG_ECORRUPT;
	}
	if ((rc = payoff_new(&r.pf, &b->o.payoff)))
		return rc;
	for (; r.n < b->n - frozen && !rc; r.n++)
		rc = payoff_add(r.pf, r.n);
	if (!rc)
		rc = store_iter(t, STORE_DB_LOG, NULL, 0, rebuild_one, &r);
	if (rc) {
		payoff_free(r.pf);
		return rc;
	}
	payoff_free(b->pf);
	b->pf = r.pf;
	/* only the agents there were then */
	for (uint32_t i = r.n; i < b->n; i++) {
		brain_idl_free(&b->ag[i].snaps);
		brain_idl_free(&b->ag[i].frozen);
	}
	b->n = r.n;
	/* the log's position then: what reads the log at the brain's
	 * position (the ladder's window) sees that moment too */
	if (upto < b->seq)
		b->seq = upto;
	return 0;
}

int brain_open_at(brain **out, store *s, uint64_t upto, char *err,
		  size_t errlen)
{
	store_txn *t;
	uint64_t n;
	int rc;

	*out = NULL;
	if ((rc = store_txn_begin(s, STORE_TXN_READ, &t)))
		return rc;
	rc = store_meta_get_u64(t, "brain.agents", &n);
	store_txn_abort(t);
	if (rc) {
		/* brain_open would create a league in a writable store */
		lg_errf(err, errlen, "no league in this directory yet");
		return rc;
	}
	if ((rc = brain_open(out, s, NULL, err, errlen)))
		return rc;
	(*out)->rdonly = 1; /* never flushed: this is a view */
	if ((rc = store_txn_begin(s, STORE_TXN_READ, &t)))
		goto fail;
	{
		uint64_t logged;
		if ((rc = store_count(t, STORE_DB_LOG, &logged)) == 0 &&
		    !logged && (*out)->seq) {
			lg_errf(err, errlen, "the league kept no decision log "
				"(matchmaking.log_decisions)");
			rc = LG_EUNSUPP;
		}
	}
	if (!rc)
		rc = rebuild(*out, t, upto, err, errlen);
	store_txn_abort(t);
	if (!rc)
		return 0;
fail:
	brain_close(*out);
	*out = NULL;
	return rc;
}
