/* tests/fuzz/fuzz_trainer.c: libFuzzer harness for the trainer state
 * parser, ppo_state_load (what a learner does with the state the daemon
 * stored beside a version and sends back in RegisterReply).
 *
 * Input: one mode byte, then the state. Bit 0: the harness writes the
 * right CRC-32C at the end first, so the fuzzer reaches the checks behind
 * it; bit 1: the trainer has a magnet (tests/fuzz/trainer.h); bit 2: the
 * input is league.deterministic's blob (net_trainer_unpack: "LGTD", the
 * state's length, the state, the rows waiting as a Segment frame), split
 * first into a batch of the trainer's shape (the CRC of bit 0 is then
 * the inner state's).
 *
 * Checked: the result is 0 or a documented error with a message; a
 * rejected state leaves the trainer as it was (its own state saved before
 * and after is the same); a state that loads is canonical (saving it
 * again, with its tag, gives the same bytes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "tests/fuzz/trainer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* net_trainer_unpack into a batch of the trainer's shape: 0 with the
 * state's place, or 1 for a blob refused (checked: a documented error
 * with a message, the batch left empty). Rows it took pack again with
 * the state into a blob that splits into the same rows. */
static int split_rows(const uint8_t *b, size_t len, const uint8_t **sp,
		      size_t *sl)
{
	struct lg_rows r, r2;
	lg_buf again = { 0 };
	const uint8_t *sp2;
	size_t sl2;
	char err[256] = "";
	int rc;

	if (lg_rows_init(&r, 4, 3, 0, 64) || lg_rows_init(&r2, 4, 3, 0, 64))
		abort();
	rc = net_trainer_unpack(b, len, sp, sl, &r, err, sizeof err);
	if (rc && ((rc != LG_EPROTO && rc != LG_EINVAL) || !err[0] || r.n))
		abort();
	if (!rc && (*sp < b || *sl > len || *sp + *sl > b + len))
		abort();
	if (!rc &&
	    (net_trainer_pack(*sp, *sl, &r, &again) ||
	     net_trainer_unpack(again.data, again.len, &sp2, &sl2, &r2, err,
				sizeof err) ||
	     sl2 != *sl || memcmp(sp2, *sp, sl2) || r2.n != r.n ||
	     memcmp(r.obs, r2.obs, r.n * 4 * sizeof(float)) ||
	     memcmp(r.action, r2.action, r.n * sizeof(int32_t)) ||
	     memcmp(r.done, r2.done, r.n)))
		abort();
	lg_buf_free(&again);
	lg_rows_free(&r);
	lg_rows_free(&r2);
	return rc != 0;
}

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
	if (data[0] & 4) {
		/* the deterministic blob: split it, then load its state */
		uint8_t *whole = st, *inner;
		const uint8_t *sp;
		size_t sl;
		if (split_rows(st, len, &sp, &sl)) {
			free(whole);
			return 0;
		}
		if (!(inner = malloc(sl ? sl : 1)))
			abort();
		memcpy(inner, sp, sl);
		free(whole);
		st = inner;
		len = sl;
	}
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
