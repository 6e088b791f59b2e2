/* tests/fuzz/fuzz_token.c: libFuzzer harness for the token file reader's
 * parser (lg_token_parse, util/util.h). Any bytes either are refused with
 * an empty token, or give a token of 1..255 printable ASCII bytes that is
 * the input's first line without its line end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char tok[256], err[256];
	const char *b = (const char *)data;
	size_t n;

	if (lg_token_parse(b, size, tok, sizeof tok, err, sizeof err)) {
		if (tok[0] || !err[0])
			abort();
		return 0;
	}
	n = strlen(tok);
	if (!n || n >= sizeof tok || memcmp(tok, b, n))
		abort();
	for (size_t i = 0; i < n; i++)
		if (tok[i] < 0x20 || tok[i] > 0x7e)
			abort();
	if (n < size && b[n] != '\n' && b[n] != '\r')
		abort();
	return 0;
}
