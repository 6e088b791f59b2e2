/* tests/fuzz/fuzz_config.c: libFuzzer harness for the YAML config parser.
 * Any input must give 0 or LG_ECONFIG with a message, never a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "conf/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg c;
	char err[512] = "";
	int rc = cfg_load_string(&c, (const char *)data, size, "fuzz", err,
				 sizeof err);

	if (rc != 0 && rc != LG_ECONFIG)
		abort();
	if (rc == LG_ECONFIG && !err[0])
		abort(); /* every rejection says why */
	if (rc == 0) {
		/* What loads must print and load back to the same value. */
		struct cfg d;
		lg_buf y = { 0 };
		if (cfg_emit_yaml(&c, &y) ||
		    cfg_load_string(&d, (char *)y.data, y.len, "re", err,
				    sizeof err) ||
		    memcmp(&c, &d, sizeof c))
			abort();
		lg_buf_free(&y);
	}
	return 0;
}
