/* tests/fuzz/fuzz_series.c: libFuzzer harness for the time series points
 * of STORE_DB_SERIES (server/series.h), which the live page and `league
 * inspect` read back from any league directory.
 *
 * Input: a key length byte (low 6 bits), the key, then the value.
 *
 * Checked: league_series_decode gives 0 or LG_ECORRUPT; a point that
 * decodes is written again by league_series_put and decodes to the same
 * point; stored in a scratch store (scratch.h), the record makes
 * league_series_json succeed exactly when it decodes, with a JSON object
 * whose brackets balance. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/series.h"
#include "tests/fuzz/scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int balanced(const lg_buf *b)
{
	long depth = 0;

	for (size_t i = 0; i < b->len; i++) {
		depth += b->data[i] == '{' || b->data[i] == '[';
		depth -= b->data[i] == '}' || b->data[i] == ']';
		if (depth < 0)
			return 0;
	}
	return depth == 0 && b->len && b->data[0] == '{';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct league_series_point p, q;
	const uint8_t *key, *val;
	size_t klen, vlen;
	store_batch b = { 0 };
	lg_buf js = { 0 };
	store_txn *t;
	int rc, jrc;

	if (size < 1)
		return 0;
	klen = data[0] & 63;
	if (klen > size - 1)
		klen = size - 1;
	key = data + 1;
	val = data + 1 + klen;
	vlen = size - 1 - klen;
	rc = league_series_decode(key, klen, val, vlen, &p);
	if (rc != 0 && rc != LG_ECORRUPT)
		abort();
	if (!klen)
		return 0; /* LMDB keeps no empty key */
	t = scratch_txn();
	if (!rc) {
		const void *v;
		size_t n;
		/* a point at or past 2^53 ms does not round-trip through a
		 * double: put refuses it */
		if (league_series_put(&b, &p) == 0) {
			if (store_batch_apply(&b, t) ||
			    store_get(t, STORE_DB_SERIES, key, klen, &v, &n) ||
			    league_series_decode(key, klen, v, n, &q) ||
			    q.kind != p.kind || q.player != p.player ||
			    q.n != p.n ||
			    memcmp(q.v, p.v, p.n * sizeof *p.v))
				abort();
		}
		store_batch_free(&b);
	}
	if (store_put(t, STORE_DB_SERIES, key, klen, val, vlen))
		abort();
	jrc = league_series_json(t, 3, &js);
	if ((rc == 0) != (jrc == 0) || (jrc && jrc != LG_ECORRUPT) ||
	    (!jrc && !balanced(&js)))
		abort();
	lg_buf_free(&js);
	store_txn_abort(t);
	return 0;
}
