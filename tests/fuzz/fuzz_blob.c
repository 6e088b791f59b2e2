/* tests/fuzz/fuzz_blob.c: libFuzzer harness for the checksummed blob
 * records of the store (store_blob_get: parameter blobs in
 * STORE_DB_PARAMS). The decoder is reached only through a transaction, so
 * the input is stored as one record of a scratch store (scratch.h) and
 * read back.
 *
 * Input: one mode byte, then the record. With mode bit 0 set the harness
 * first writes the right payload and header CRC-32Cs into the record, so
 * the fuzzer reaches the shape checks behind them.
 *
 * Checked: 0 or LG_ECORRUPT with a message; a record that reads gives a
 * consistent shape and a payload inside the record, and writing that blob
 * again with store_blob_put reads back the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_info(const struct store_blob_info *a,
		     const struct store_blob_info *b)
{
	if (a->dtype != b->dtype || a->rank != b->rank ||
	    a->nbytes != b->nbytes)
		return 0;
	for (unsigned i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store_blob_info info, again;
	const void *payload, *payload2, *rec;
	size_t len, reclen;
	uint8_t *buf;
	store_txn *t;
	char err[256] = "";
	int rc;

	if (size < 1)
		return 0;
	len = size - 1;
	buf = malloc(len ? len : 1);
	if (!buf)
		abort();
	memcpy(buf, data + 1, len);
	if ((data[0] & 1) && len >= STORE_BLOB_HDR) {
		lg_put_le32(buf + 40, lg_crc32c(0, buf + STORE_BLOB_HDR,
						len - STORE_BLOB_HDR));
		lg_put_le32(buf + 44, lg_crc32c(0, buf, 44));
	}
	t = scratch_txn();
	if (store_put(t, STORE_DB_SCRATCH, "a", 1, buf, len) ||
	    store_get(t, STORE_DB_SCRATCH, "a", 1, &rec, &reclen))
		abort();
	rc = store_blob_get(t, STORE_DB_SCRATCH, "a", 1, &info, &payload, err,
			    sizeof err);
	if (rc != 0 && rc != LG_ECORRUPT)
		abort();
	if (rc == LG_ECORRUPT && !err[0])
		abort(); /* every rejection says why */
	if (!rc) {
		if (info.rank > STORE_BLOB_MAX_RANK ||
		    (info.dtype != STORE_DT_BYTES &&
		     info.dtype != STORE_DT_F32) ||
		    info.nbytes != reclen - STORE_BLOB_HDR ||
		    payload != (const uint8_t *)rec + STORE_BLOB_HDR)
			abort();
		/* The put may move "a" within its page: keep a copy. */
		memcpy(buf, payload, info.nbytes);
		if (store_blob_put(t, STORE_DB_SCRATCH, "b", 1, &info, buf) ||
		    store_blob_get(t, STORE_DB_SCRATCH, "b", 1, &again,
				   &payload2, err, sizeof err) ||
		    !same_info(&info, &again) ||
		    memcmp(buf, payload2, info.nbytes))
			abort();
	}
	store_txn_abort(t);
	free(buf);
	return 0;
}
