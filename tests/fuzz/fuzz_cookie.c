/* tests/fuzz/fuzz_cookie.c: libFuzzer harness for the Cookie header parser
 * the HTTP token check reads (lg_cookie_value, util/util.h). Any bytes (up
 * to the first NUL) either have no league_token or give a value that fits
 * the buffer, holds no ';', and stands in the header right after
 * "league_token=". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *h = malloc(size + 1), out[64], *at;

	if (!h)
		abort();
	memcpy(h, data, size);
	h[size] = 0;
	if (lg_cookie_value(h, "league_token", out, sizeof out)) {
		size_t n = strlen(out);
		if (n >= sizeof out || strchr(out, ';'))
			abort();
		int found = 0;
		for (at = h; (at = strstr(at, "league_token=")); at++)
			if (!strncmp(at + 13, out, n))
				found = 1;
		if (!found)
			abort();
	}
	free(h);
	return 0;
}
