/* tests/fuzz/fuzz_trainer.c: libFuzzer harness for the trainer state
 * parser, ppo_state_load (what a learner does with the state the daemon
 * stored beside a version and sends back in RegisterReply).
 *
 * Input: one mode byte, then the state. Bit 0: the harness writes the
 * right CRC-32C at the end first, so the fuzzer reaches the checks behind
 * it; bit 1: the trainer has a magnet (tests/fuzz/trainer.h).
 *
 * Checked: the result is 0 or a documented error with a message; a
 * rejected state leaves the trainer as it was (its own state saved before
 * and after is the same); a state that loads is canonical (saving it
 * again, with its tag, gives the same bytes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/trainer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static ppo *tr[2];
	lg_buf before = { 0 }, after = { 0 };
	uint8_t *st;
	size_t len;
	uint64_t tag = 0;
	char err[256] = "";
	ppo *p;
	int rc;

	if (!tr[0]) {
		nn_set_threads(1);
		tr[0] = fuzz_trainer(0);
		tr[1] = fuzz_trainer(1);
	}
	if (size < 1)
		return 0;
	p = tr[(data[0] >> 1) & 1];
	len = size - 1;
	if (!(st = malloc(len ? len : 1)))
		abort();
	memcpy(st, data + 1, len);
	if ((data[0] & 1) && len >= 4)
		lg_put_le32(st + len - 4, lg_crc32c(0, st, len - 4));
	if (ppo_state_save(p, 0, &before))
		abort();
	rc = ppo_state_load(p, st, len, &tag, err, sizeof err);
	if (rc != 0 && rc != LG_ECORRUPT && rc != LG_EUNSUPP &&
	    rc != LG_EINVAL)
		abort();
	if (rc && !err[0])
		abort(); /* every rejection says why */
	if (ppo_state_save(p, tag, &after))
		abort();
	if (rc) {
		/* untouched (the tag is the caller's, not the trainer's) */
		if (after.len != before.len ||
		    memcmp(after.data, before.data, after.len))
			abort();
	} else if (after.len != len || memcmp(after.data, st, len)) {
		abort();
	}
	lg_buf_free(&before);
	lg_buf_free(&after);
	free(st);
	return 0;
}
