/* tests/fuzz/fuzz_brainlog.c: libFuzzer harness for the brain's decision
 * log records (brain_log_decode; brain_replay walks STORE_DB_LOG with
 * it), and the same value as a stored job (brain_rec_job_decode, an
 * N-seat job's seats) and a stored returns result
 * (brain_rec_returns_decode).
 *
 * Input: a key length byte (low 4 bits), the key, then the value.
 *
 * Checked: 0 or LG_ECORRUPT; a record that decodes has a known type (a
 * decision, a result, a step report, a cancel, PSRO's games), its
 * seq is the key's, a decision names a known job kind, and a step report
 * retired at most BRAIN_RETIRE_MAX snapshots (none when it predates the
 * field), an N-seat decision's or job's seats are 1..BRAIN_MAX_SEATS
 * with the learner's among them, a returns record's teams are seats and
 * its returns finite. */
#include <stdint.h>
#include <stdlib.h>

#include <math.h>

#include "players/brain_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The value as a stored job and as a stored returns result. */
static void other_records(const uint8_t *v, size_t n)
{
	struct brain_job j;
	struct brain_rec_returns res;
	int rc = brain_rec_job_decode(v, n, &j);

	if ((rc && rc != LG_ECORRUPT) ||
	    (!rc && (!j.nseats || j.nseats > BRAIN_MAX_SEATS ||
		     j.learner_seat >= j.nseats)))
		abort();
	rc = brain_rec_returns_decode(v, n, &res);
	if (rc && rc != LG_ECORRUPT)
		abort();
	if (rc)
		return;
	if (!res.nseats || res.nseats > BRAIN_MAX_SEATS ||
	    res.learner_seat >= res.nseats)
		abort();
	for (uint32_t s = 0; s < res.nseats; s++)
		if (res.team[s] >= res.nseats)
			abort();
	for (uint32_t e = 0; e < res.h.n; e++)
		for (uint32_t s = 0; s < res.nseats; s++)
			if (!isfinite(brain_rec_return(&res, e, s)))
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct brain_log_entry e;
	size_t klen;
	int rc;

	if (size < 1)
		return 0;
	klen = data[0] & 15;
	if (klen > size - 1)
		klen = size - 1;
	rc = brain_log_decode(data + 1, klen, data + 1 + klen,
			      size - 1 - klen, &e);
	if (rc != 0 && rc != LG_ECORRUPT)
		abort();
	if (!rc && (e.type < BRAIN_LOG_DECISION || e.type > BRAIN_LOG_RETURNS ||
		    e.nseats > BRAIN_MAX_SEATS ||
		    (e.nseats && e.learner_seat >= e.nseats) ||
		    klen != 8 || e.seq != lg_get_be64(data + 1) ||
		    (e.type == BRAIN_LOG_DECISION &&
		     (e.kind < 0 || e.kind >= BRAIN_JOB__COUNT)) ||
		    e.nretired > BRAIN_RETIRE_MAX ||
		    (e.nretired && !e.retired_logged)))
		abort();
	other_records(data + 1 + klen, size - 1 - klen);
	return 0;
}
