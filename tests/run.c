/* tests/run.c: the one check runner. Suites come from the generated
 * suites.h (every tests/check_*.c that exports `Suite *suite_<name>(void)`).
 *
 *   check_all              run every suite
 *   check_all NAME...      run only the named suites
 *
 * CK_RUN_CASE, CK_VERBOSITY and CK_DEFAULT_TIMEOUT work as check documents.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUITE(name) Suite *suite_##name(void);
#include "suites.h"
#undef SUITE

static const struct {
	const char *name;
	Suite *(*make)(void);
} suites[] = {
#define SUITE(name) { #name, suite_##name },
#include "suites.h"
#undef SUITE
};

int main(int argc, char **argv)
{
	SRunner *sr = NULL;
	size_t n = sizeof suites / sizeof suites[0];
	int failed, added = 0;

	/* As every league process does: a peer gone mid-write (a refused
	 * TLS handshake, a killed daemon) is an error return, not a
	 * signal. */
	signal(SIGPIPE, SIG_IGN);

	/* A name that is no suite is an error, not a suite quietly left
	 * out of the run. */
	for (int a = 1; a < argc; a++) {
		int known = 0;
		for (size_t i = 0; i < n; i++)
			known |= !strcmp(argv[a], suites[i].name);
		if (!known) {
			fprintf(stderr, "check_all: no suite named '%s' (the "
				"suites are tests/check_<name>.c)\n", argv[a]);
			return 2;
		}
	}
	for (size_t i = 0; i < n; i++) {
		int want = argc < 2;
		for (int a = 1; a < argc; a++)
			if (!strcmp(argv[a], suites[i].name))
				want = 1;
		if (!want)
			continue;
		if (!sr)
			sr = srunner_create(suites[i].make());
		else
			srunner_add_suite(sr, suites[i].make());
		added++;
	}
	if (!added) {
		fprintf(stderr, "check_all: no such suite\n");
		return 2;
	}
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
