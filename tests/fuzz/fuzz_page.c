/* tests/fuzz/fuzz_page.c: libFuzzer harness for the page a list endpoint
 * is asked for (league_page_parse, server/server.h: GET /jobs?after=&
 * limit=). Any URI either is refused or gives a page within the caps:
 * 1 <= limit <= LEAGUE_PAGE_MAX, and from_start exactly when no after
 * was given (after 0 then). The same bytes give the same page. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *uri = malloc(size + 1);
	struct league_page a, b;
	int ra, rb;

	if (!uri)
		abort();
	memcpy(uri, data, size);
	uri[size] = 0;
	ra = league_page_parse(uri, &a);
	rb = league_page_parse(uri, &b);
	if (ra != rb || (ra != 0 && ra != LG_EINVAL))
		abort();
	if (!ra) {
		if (a.limit < 1 || a.limit > LEAGUE_PAGE_MAX ||
		    a.limit != b.limit || a.after != b.after ||
		    a.from_start != b.from_start ||
		    (a.from_start && a.after))
			abort();
	}
	free(uri);
	return 0;
}
