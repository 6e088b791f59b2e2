/*
 * cli/runlog.c: the first error in a worker's log, for `league run` to
 * name why a child it started failed.
 *
 * A log line of ours starts with a timestamp and a level
 * ("12:00:00.000 collector.0 error: ..."); anything else in the file was
 * written to stderr directly: a command's own error ("league serve: ..."),
 * a fatal signal's report (cli/worker.c), a Python traceback. The first
 * error-level line or the first such direct line (not a traceback's
 * frame) is the cause.
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

/* A line worth naming as the cause. */
static int is_error(const char *l)
{
	if (stamped(l))
		return strstr(l, " error: ") != NULL;
	/* a traceback's header and frames lead to its last line */
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
	while (!found && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!is_error(line))
			continue;
		snprintf(out, len, "%s", line);
		found = 1;
	}
	fclose(f);
	return found;
}
