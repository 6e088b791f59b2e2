/* tests/fuzz/fuzz_evalrec.c: libFuzzer harness for the evaluation records
 * of STORE_DB_EVAL: exploitability points (league_eval_decode) and rows
 * of games against fixed baselines (league_bgame_decode). The daemon
 * reads them back on start and when it adds to a row; `league eval DIR`
 * lists them.
 *
 * Input: a key length byte (low 6 bits), the key, then the value; both
 * decoders get it.
 *
 * Checked: 0, LG_ENOTFOUND (another kind of record) or LG_ECORRUPT; a
 * record that decodes encodes to one that decodes to the same, and a
 * row's key is the one league_bgame_key builds for it. The record is
 * also stored in a scratch store (scratch.h) and listed with
 * league_eval_list and league_bgame_list, which add the key checks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/evalrec.h"
#include "tests/fuzz/scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void point(const uint8_t *val, size_t vlen)
{
	struct league_eval_point p, q;
	uint8_t out[LEAGUE_EVAL_REC_BYTES];
	int rc = league_eval_decode(val, vlen, &p);

	if (rc != 0 && rc != LG_ENOTFOUND && rc != LG_ECORRUPT)
		abort();
	if (rc)
		return;
	league_eval_encode(&p, out);
	if (league_eval_decode(out, sizeof out, &q) || memcmp(&p, &q, sizeof p))
		abort();
}

static void row(const uint8_t *key, size_t klen, const uint8_t *val,
		size_t vlen)
{
	struct league_bgame_row r, q;
	uint8_t out[LEAGUE_BGAME_REC_BYTES], k[LEAGUE_BGAME_KEY_MAX];
	size_t kl;
	int rc = league_bgame_decode(key, klen, val, vlen, &r);

	if (rc != 0 && rc != LG_ENOTFOUND && rc != LG_ECORRUPT)
		abort();
	if (rc)
		return;
	if (r.baseline[CFG_BASELINE_MAX - 1])
		abort(); /* the name is a C string */
	/* A decoded row makes the round trip whole: a NUL inside the
	 * key's name is refused (it read as the name's prefix: another row;
	 * corpus/fuzz_evalrec/nul_in_name). */
	league_bgame_encode(&r, out);
	kl = league_bgame_key(r.player, r.version, r.baseline, k);
	if (kl != klen || memcmp(k, key, klen) ||
	    league_bgame_decode(k, kl, out, sizeof out, &q) ||
	    memcmp(&r, &q, sizeof r))
		abort();
}

/* The record as the one entry of STORE_DB_EVAL, listed as the daemon and
 * `league eval` list it: each list has it once, or not at all. */
static void listed(const uint8_t *key, size_t klen, const uint8_t *val,
		   size_t vlen)
{
	struct league_eval_point p, *pts = NULL;
	struct league_bgame_row r, *rows = NULL;
	size_t n = 0;
	store_txn *t;
	int rc;

	if (!klen)
		return; /* LMDB keeps no empty key */
	t = scratch_txn();
	if (store_put(t, STORE_DB_EVAL, key, klen, val, vlen))
		abort();
	rc = league_eval_list(t, &pts, &n);
	if (rc != 0 && rc != LG_ECORRUPT)
		abort();
	if (!rc && n > 1)
		abort();
	if (!rc && n == 1 &&
	    (league_eval_decode(val, vlen, &p) || klen != 8 ||
	     pts[0].seq != lg_get_be64(key) ||
	     memcmp(&pts[0].snapshot, &p.snapshot,
		    sizeof p - offsetof(struct league_eval_point, snapshot))))
		abort();
	free(pts);
	rc = league_bgame_list(t, &rows, &n);
	if (rc != 0 && rc != LG_ECORRUPT)
		abort();
	if (!rc && (n > 1 || (n == 1 &&
			      (league_bgame_decode(key, klen, val, vlen, &r) ||
			       memcmp(&rows[0], &r, sizeof r)))))
		abort();
	free(rows);
	store_txn_abort(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t klen;

	if (size < 1)
		return 0;
	klen = data[0] & 63;
	if (klen > size - 1)
		klen = size - 1;
	point(data + 1 + klen, size - 1 - klen);
	row(data + 1, klen, data + 1 + klen, size - 1 - klen);
	listed(data + 1, klen, data + 1 + klen, size - 1 - klen);
	return 0;
}
