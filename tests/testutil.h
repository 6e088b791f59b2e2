/* tests/testutil.h: fixtures shared by the check suites. */
#ifndef LG_TESTUTIL_H
#define LG_TESTUTIL_H

#include <stddef.h>

/* Create a fresh directory under $TMPDIR (or /tmp) and return its path in
 * buf (at least 64 bytes). Aborts the test on failure. */
void tu_mkdtemp(char *buf, size_t len);
/* rm -rf path; ignores errors. */
void tu_rmrf(const char *path);
/* Write text to a file (created or truncated). */
void tu_write_file(const char *path, const char *text);
/* Path of the league binary under test ($LEAGUE_BIN, else bin/league). */
const char *tu_league_bin(void);
/* Path of the source tree ($LEAGUE_SRC, else "."). */
const char *tu_src_dir(void);
/* Run the league binary with argv (NULL-terminated, without argv[0]);
 * capture stdout and stderr (each truncated to len-1 bytes, NUL-terminated;
 * either may be NULL). Returns the exit status, or 128+signal. */
int tu_run_league(char *out, size_t outlen, char *err, size_t errlen,
		  const char *const *argv);

#endif
