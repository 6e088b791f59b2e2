/* tests/fuzz/fuzz_storemeta.c: libFuzzer harness for the check every
 * store open makes before LMDB maps data.mdb (store_meta_check,
 * storage/metacheck.c): the two meta pages, read from a file that may be
 * truncated, damaged or not LMDB's at all.
 *
 * Input: the file's length as 8 little-endian bytes, then its first
 * bytes (the meta pages).
 *
 * Checked: 0 or LG_ECORRUPT, with a reason; on 0 the length is at least
 * the expected one, which is a whole number of pages, and one byte less
 * is refused. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t fsize = 0, expected = 0, again = 0;
	char why[160];
	int rc;

	if (size < 8)
		return 0;
	for (int i = 7; i >= 0; i--)
		fsize = fsize << 8 | data[i];
	why[0] = 0;
	rc = store_meta_check(data + 8, size - 8, fsize, &expected, why,
			      sizeof why);
	if (rc != 0 && rc != LG_ECORRUPT)
		abort();
	if (!memchr(why, 0, sizeof why) || (rc && !why[0]))
		abort();
	if (rc)
		return 0;
	if (fsize < expected || expected < 1024 || expected % 512)
		abort();
	if (store_meta_check(data + 8, size - 8, expected - 1, &again, why,
			     sizeof why) != LG_ECORRUPT || again != expected)
		abort();
	return 0;
}
