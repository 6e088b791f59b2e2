/*
 * cli/runlog.c: the first error in a worker's log, for `league run` to
 * name why a child it started failed.
 *
 * A log line of ours starts with a timestamp and a level
 * ("12:00:00.000 collector.0 error: ..."); anything else in the file was
 * written to stderr directly: a command's own error ("league serve: ..."),
 * a fatal signal's report (cli/worker.c), a Python traceback. The first
 * error-level line is the cause; without one, the last line written
 * directly (not a traceback's frame): a process's last words.
 */
#include "cli/cli.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* "HH:MM:SS" at the start. */
static int stamped(const char *l)
{
	return isdigit((unsigned char)l[0]) && isdigit((unsigned char)l[1]) &&
	       l[2] == ':' && isdigit((unsigned char)l[3]) &&
	       isdigit((unsigned char)l[4]) && l[5] == ':';
}

/* A line written to stderr directly that may be the cause: not a
 * traceback's header or frames (its last line names the exception), not
 * run's own note of the command it started. */
static int is_direct(const char *l)
{
	return *l && !isspace((unsigned char)*l) &&
	       strncmp(l, "Traceback (most recent call last)", 33) &&
	       strncmp(l, "league run: env.serve: ", 23);
}

int cli_log_first_error(const char *path, long from, char *out, size_t len)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int found = 0;

	if (len)
		out[0] = 0;
	if (!f)
		return 0;
	if (from > 0 && fseek(f, from, SEEK_SET))
		rewind(f);
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (stamped(line) ? !strstr(line, " error: ") : !is_direct(line))
			continue;
		/* a logged error is the cause; of the lines written
		 * directly, the last (a process's last words) */
		snprintf(out, len, "%s", line);
		found = stamped(line) ? 2 : 1;
		if (found == 2)
			break;
	}
	fclose(f);
	return found != 0;
}
