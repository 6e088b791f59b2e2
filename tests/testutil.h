/* tests/testutil.h: fixtures shared by the check suites. */
#ifndef LG_TESTUTIL_H
#define LG_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

/* `league <argv>` (a `league run` on dir with no seconds budget, or a
 * backstop one) until done(dir, arg) holds, polled every 50 ms, then
 * SIGTERM: the run drains and stops as on a user's Ctrl-C. A test waits
 * so for what it reads to be stored, however busy the machine, instead
 * of a budget of seconds. Fails the test when the run ends first or
 * deadline_s passes (then SIGKILL). Output as tu_run_league; the exit
 * status, or 128+signal. */
int tu_run_league_until(const char *const *argv, const char *dir,
			int (*done)(const char *dir, void *arg), void *arg,
			double deadline_s, char *out, size_t outlen,
			char *err, size_t errlen);
/* A `league serve` child on dir (--nosync, --resume when resume), with
 * LEAGUE_TOKEN set to token (NULL: unset); waits for its ports file and
 * reads the port and the learning players. Its stderr goes to DIR.log. */
struct tu_daemon {
	pid_t pid;
	uint16_t port, http_port;
	uint32_t learners[16];
	int nlearners;
};
void tu_serve(struct tu_daemon *d, const char *cfg, const char *dir,
	      int resume, const char *token);
/* The same; with sync, without --nosync: the daemon's default store,
 * which fsyncs at every commit. */
void tu_serve_sync(struct tu_daemon *d, const char *cfg, const char *dir,
		   int resume, const char *token, int sync);
/* Send sig and reap: the exit status, or 128 + the signal. */
int tu_serve_stop(struct tu_daemon *d, int sig);
/* The meta counter `name` ("daemon.jobs_done") of the league in dir, read
 * read-only beside a running league: 0 before its store exists or while
 * the counter is not stored. */
uint64_t tu_stored_u64(const char *dir, const char *name);

#endif
