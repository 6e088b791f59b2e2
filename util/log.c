/* util/log.c: leveled logging to stderr, one write per line so lines from
 * several processes sharing a terminal do not interleave mid-line. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static int log_level = -1;
static char log_tag[32] = "league";

static void log_init(void)
{
	const char *e = getenv("LEAGUE_LOG");

	log_level = LG_LOG_INFO;
	if (!e)
		return;
	if (!strcasecmp(e, "error"))
		log_level = LG_LOG_ERROR;
	else if (!strcasecmp(e, "warn"))
		log_level = LG_LOG_WARN;
	else if (!strcasecmp(e, "debug"))
		log_level = LG_LOG_DEBUG;
}

void lg_log_set_level(enum lg_log_level level)
{
	log_level = (int)level;
}

enum lg_log_level lg_log_get_level(void)
{
	if (log_level < 0)
		log_init();
	return (enum lg_log_level)log_level;
}

void lg_log_set_tag(const char *tag)
{
	snprintf(log_tag, sizeof log_tag, "%s", tag ? tag : "");
}

void lg_vlog(enum lg_log_level level, const char *fmt, va_list ap)
{
	static const char *names[] = { "error", "warn", "info", "debug" };
	char line[2048];
	struct timespec ts;
	struct tm tm;
	int n, m;

	if ((int)level > (int)lg_log_get_level())
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof line, "%02d:%02d:%02d.%03ld %s %s: ",
		     tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L,
		     log_tag, names[level]);
	if (n < 0)
		return;
	m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n >= sizeof line - 1)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	/* A short write to stderr is not worth reporting anywhere. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

void lg_log(enum lg_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lg_vlog(level, fmt, ap);
	va_end(ap);
}

int lg_log_limit_pass(struct lg_log_limit *l, const char *msg, double now_s,
		      double interval_s, uint64_t *dropped)
{
	*dropped = 0;
	if (l->last_s > 0 && now_s - l->last_s < interval_s &&
	    !strncmp(l->msg, msg, sizeof l->msg - 1)) {
		l->suppressed++;
		return 0;
	}
	*dropped = l->suppressed;
	l->suppressed = 0;
	l->last_s = now_s > 0 ? now_s : 1e-9;
	snprintf(l->msg, sizeof l->msg, "%s", msg);
	return 1;
}

void lg_log_limited(struct lg_log_limit *l, double interval_s,
		    enum lg_log_level level, const char *fmt, ...)
{
	char msg[512];
	uint64_t dropped;
	va_list ap;

	if ((int)level > (int)lg_log_get_level())
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	int same = !strncmp(l->msg, msg, sizeof l->msg - 1);
	if (!lg_log_limit_pass(l, msg, lg_now_s(), interval_s, &dropped))
		return;
	if (dropped)
		lg_log(level, "%s (%llu %s dropped)", msg,
		       (unsigned long long)dropped,
		       same ? "more like this" : "of the one before");
	else
		lg_log(level, "%s", msg);
}
