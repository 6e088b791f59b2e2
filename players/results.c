/*
 * players/results.c: a job's result into the payoff table and the
 * store. Two-seat jobs under measure win count the learner seat's
 * outcome per episode (brain_record_result, as ever); every other job
 * counts every seat's returns (brain_record_returns): each ordered pair
 * of seats on different teams whose agents differ gets the episode's
 * outcome between them, who finished ahead (measure win) or the score
 * (1 + (c_a - c_b) / 2R) / 2 of their returns clamped to [-R, R]
 * (measure return; for two zero-sum seats that is (1 + r_a / R) / 2,
 * so a pair's mean score s reads back as the mean return R (2s - 1)).
 * Results are stored whole (every return), so replay and the history
 * rebuild count them again the same way (brain_count_episode). The
 * measure and R are the league's: stored once, refused when a resumed
 * run's config changes them.
 */
#include "players/brain_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int brain_put_result(brain *b, int type, uint64_t job_id, uint32_t a,
		     uint32_t c, const int8_t *outcomes, size_t n,
		     const uint32_t cnt[3])
{
	struct brain_rec_result res = {
		.seq = b->seq, .learner = a, .opponent = c, .n = (uint32_t)n,
		.wins = cnt[2], .draws = cnt[1], .losses = cnt[0],
		.outcomes = outcomes,
	};
	struct brain_log_entry e = {
		.type = type, .job = job_id, .n = (uint32_t)n,
		.wins = cnt[2], .draws = cnt[1], .losses = cnt[0],
	};
	uint8_t k[8], *r;
	int rc;

	if (!(r = malloc(brain_rec_result_size(n))))
		return LG_ENOMEM;
	brain_rec_result_encode(&res, r);
	store_key_u64(k, job_id);
	rc = store_batch_put(b->wb, STORE_DB_RESULTS, k, 8, r,
			     brain_rec_result_size(n));
	free(r);
	return rc ? rc : brain_log_add(b, &e);
}

int brain_record_result(brain *b, uint64_t job_id, const int8_t *outcomes,
			size_t n)
{
	struct brain_job *j;
	uint32_t cnt[3] = { 0, 0, 0 };
	long i;
	int rc;

	if (b->rdonly || !n || n > BRAIN_MAX_EPISODES)
		return LG_EINVAL;
	for (size_t e = 0; e < n; e++)
		if (outcomes[e] < -1 || outcomes[e] > 1)
			return LG_EINVAL;
	i = brain_find_open_job(b, job_id);
	if (i < 0)
		return brain_closed_job_code(b, job_id);
	j = &b->jobs[i].j;
	for (size_t e = 0; e < n; e++) {
		if ((rc = payoff_record(b->pf, j->learner, j->opponent,
					outcomes[e])))
			return rc;
		cnt[outcomes[e] + 1]++;
	}
	if ((rc = brain_mark_pair(b, j->learner, j->opponent)) ||
	    (rc = brain_put_result(b, BRAIN_LOG_RESULT, job_id, j->learner,
				   j->opponent, outcomes, n, cnt)) ||
	    (rc = brain_close_job(b, (size_t)i, 1)))
		return rc;
	b->seq++;
	return brain_call_done(b);
}

/* r clamped to [-R, R], scaled to [0, 1]. */
static double scaled(double r, double R)
{
	return ((r < -R ? -R : r > R ? R : r) + R) / (2 * R);
}

int brain_count_episode(payoff *pf, int measure, double return_scale,
			uint32_t nseats, const uint32_t *agent,
			const uint32_t *team, const double *r, brain *mark)
{
	int rc;

	for (uint32_t i = 0; i < nseats; i++)
		for (uint32_t k = i + 1; k < nseats; k++) {
			if (team[i] == team[k] || agent[i] == agent[k])
				continue;
			if (measure == BRAIN_MEASURE_WIN)
				rc = payoff_record(pf, agent[i], agent[k],
						   r[i] > r[k]	 ? 1
						   : r[i] < r[k] ? -1
								 : 0);
			else
				rc = payoff_record_returns(
					pf, agent[i], agent[k],
					(1 + scaled(r[i], return_scale) -
					 scaled(r[k], return_scale)) / 2,
					r[i], r[k]);
			if (rc || (mark && (rc = brain_mark_pair(mark, agent[i],
								 agent[k]))))
				return rc;
		}
	return 0;
}

/* An outcome from a seat's return: 1 won, 0 drawn, -1 lost. */
static int8_t outcome_of(double r)
{
	return (int8_t)(r > 0 ? 1 : r < 0 ? -1 : 0);
}

/* The learner seat's outcomes, for a two-seat job under measure win:
 * brain_record_result's input. */
static int learner_outcomes(brain *b, uint64_t job_id, uint32_t ls,
			    uint32_t ns, const double *ret, size_t n)
{
	int8_t *o = malloc(n);
	int rc;

	if (!o)
		return LG_ENOMEM;
	for (size_t e = 0; e < n; e++)
		o[e] = outcome_of(ret[e * ns + ls]);
	rc = brain_record_result(b, job_id, o, n);
	free(o);
	return rc;
}

/* The returns record and its log entry (counts: the learner seat's
 * signs). */
static int put_returns(brain *b, const struct brain_job *j,
		       const double *ret, size_t n)
{
	struct brain_rec_returns res = {
		.h = { .seq = b->seq, .learner = j->learner,
		       .opponent = j->opponent, .n = (uint32_t)n },
		.nseats = j->nseats, .learner_seat = j->learner_seat,
	};
	struct brain_log_entry e = { .type = BRAIN_LOG_RETURNS, .job = j->id,
				     .n = (uint32_t)n };
	size_t len = brain_rec_returns_size(n, j->nseats);
	uint8_t k[8], *r;
	int rc;

	for (size_t i = 0; i < n; i++) {
		int8_t o = outcome_of(ret[i * j->nseats + j->learner_seat]);
		res.h.wins += o > 0;
		res.h.draws += o == 0;
		res.h.losses += o < 0;
	}
	e.wins = res.h.wins;
	e.draws = res.h.draws;
	e.losses = res.h.losses;
	for (uint32_t s = 0; s < j->nseats; s++) {
		res.agent[s] = j->seat_agent[s];
		res.team[s] = b->o.team[s];
	}
	if (!(r = malloc(len)))
		return LG_ENOMEM;
	brain_rec_returns_encode(&res, ret, r);
	store_key_u64(k, j->id);
	rc = store_batch_put(b->wb, STORE_DB_RESULTS, k, 8, r, len);
	free(r);
	return rc ? rc : brain_log_add(b, &e);
}

int brain_record_returns(brain *b, uint64_t job_id, const double *ret,
			 size_t n)
{
	struct brain_job *j;
	uint32_t ns, team[BRAIN_MAX_SEATS];
	long i;
	int rc;

	if (b->rdonly || !n || n > BRAIN_MAX_EPISODES)
		return LG_EINVAL;
	if ((i = brain_find_open_job(b, job_id)) < 0)
		return brain_closed_job_code(b, job_id);
	j = &b->jobs[i].j;
	ns = j->nseats;
	for (size_t e = 0; e < n * ns; e++)
		if (!isfinite(ret[e]))
			return LG_EINVAL;
	if (ns == 2 && b->o.measure == BRAIN_MEASURE_WIN)
		return learner_outcomes(b, job_id, j->learner_seat, ns, ret, n);
	for (uint32_t s = 0; s < ns; s++)
		team[s] = b->o.team[s];
	/* every episode has the job's seats: its pairs are marked once */
	for (size_t e = 0; e < n; e++)
		if ((rc = brain_count_episode(b->pf, b->o.measure,
					      b->o.return_scale, ns,
					      j->seat_agent, team,
					      ret + e * ns, e ? NULL : b)))
			return rc;
	if ((rc = put_returns(b, j, ret, n)) ||
	    (rc = brain_close_job(b, (size_t)i, 1)))
		return rc;
	b->seq++;
	return brain_call_done(b);
}

/* ---- the league's measure ------------------------------------------------ */

#define MEASURE_REC 16

int brain_measure_write(const brain *b, store_txn *t)
{
	uint8_t r[MEASURE_REC];

	lg_put_le64(r, (uint64_t)b->o.measure);
	lg_put_lef64(r + 8, b->o.return_scale);
	return store_put(t, STORE_DB_META, "brain.measure", 13, r, sizeof r);
}

static const char *measure_name(int m)
{
	return m == BRAIN_MEASURE_RETURN ? "return" : "win";
}

int brain_measure_load(brain *b, store_txn *t, int given, char *err,
		       size_t errlen)
{
	const void *v;
	size_t vl;
	int measure = BRAIN_MEASURE_WIN, rc;
	double R = 1;

	rc = store_get(t, STORE_DB_META, "brain.measure", 13, &v, &vl);
	if (rc && rc != LG_ENOTFOUND)
		return rc;
	if (!rc) {
		if (vl != MEASURE_REC || lg_get_le64(v) > BRAIN_MEASURE_RETURN)
			return LG_ECORRUPT;
		measure = (int)lg_get_le64(v);
		R = lg_get_lef64((const uint8_t *)v + 8);
		if (!(R > 0) || !isfinite(R))
			return LG_ECORRUPT;
	}
	if (!given || b->o.measure == BRAIN_MEASURE_AUTO) {
		b->o.measure = measure;
		b->o.return_scale = R;
		return 0;
	}
	if (b->o.measure != measure ||
	    (measure == BRAIN_MEASURE_RETURN && b->o.return_scale != R)) {
		lg_errf(err, errlen, "this league counts payoff.measure %s "
			"(return_scale %g) and the config says %s (%g): a "
			"league keeps the unit it began with",
			measure_name(measure), R, measure_name(b->o.measure),
			b->o.return_scale);
		return LG_ECONFIG;
	}
	return 0;
}

int brain_measure(const brain *b, double *return_scale)
{
	if (return_scale)
		*return_scale = b->o.return_scale;
	return b->o.measure;
}
