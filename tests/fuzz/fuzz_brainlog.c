/* tests/fuzz/fuzz_brainlog.c: libFuzzer harness for the brain's decision
 * log records (brain_log_decode; brain_replay walks STORE_DB_LOG with
 * it).
 *
 * Input: a key length byte (low 4 bits), the key, then the value.
 *
 * Checked: 0 or LG_ECORRUPT; a record that decodes has a known type (a
 * decision, a result, a step report, a cancel, PSRO's games), its
 * seq is the key's, a decision names a known job kind, and a step report
 * retired at most BRAIN_RETIRE_MAX snapshots (none when it predates the
 * field). */
#include <stdint.h>
#include <stdlib.h>

#include "players/players.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	if (!rc && (e.type < BRAIN_LOG_DECISION || e.type > BRAIN_LOG_GAMES ||
		    klen != 8 || e.seq != lg_get_be64(data + 1) ||
		    (e.type == BRAIN_LOG_DECISION &&
		     (e.kind < 0 || e.kind >= BRAIN_JOB__COUNT)) ||
		    e.nretired > BRAIN_RETIRE_MAX ||
		    (e.nretired && !e.retired_logged)))
		abort();
	return 0;
}
