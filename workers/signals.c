/*
 * workers/signals.c: the signals of a worker process: SIGINT and SIGTERM
 * stop it (its loop sees worker_stop_signal), SIGPIPE is ignored (a
 * peer's close is an error code, not a death), and a fatal signal writes
 * one line saying which game call the thread was in before the process
 * dies.
 */
#include "workers/workers_internal.h"

#include <signal.h>
#include <unistd.h>

volatile sig_atomic_t worker_stop_signal;

static void on_stop(int sig)
{
	worker_stop_signal = sig;
}

void worker_signals(const char *name)
{
	struct sigaction sa = { .sa_handler = on_stop };

	lg_log_set_tag(name);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int worker_stopping(const net_client *cl)
{
	return worker_stop_signal || net_client_shutdown_requested(cl);
}

/* Append text to buf (async-signal-safe). */
static void put_str(char *buf, size_t cap, size_t *n, const char *t)
{
	while (t && *t && *n + 1 < cap)
		buf[(*n)++] = *t++;
}

static void put_u64(char *buf, size_t cap, size_t *n, uint64_t v)
{
	char d[24];
	int k = 0;

	do
		d[k++] = (char)('0' + v % 10);
	while ((v /= 10) && k < 23);
	while (k && *n + 1 < cap)
		buf[(*n)++] = d[--k];
}

/* A fatal signal: one line on stderr (the worker's log) naming the game
 * call this thread was in, if any, then the default action (the handler
 * was reset: returning re-runs the fault, abort raises again). Only
 * async-signal-safe calls. */
static void on_fatal(int sig)
{
	static const char *const names[] = {
		[SIGSEGV] = "SIGSEGV", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
		[SIGILL] = "SIGILL",   [SIGABRT] = "SIGABRT",
	};
	const struct env_call *c = env_current_call();
	char buf[512];
	size_t n = 0;

	put_str(buf, sizeof buf, &n, "fatal: signal ");
	put_u64(buf, sizeof buf, &n, (uint64_t)sig);
	put_str(buf, sizeof buf, &n, " (");
	put_str(buf, sizeof buf, &n, names[sig]);
	put_str(buf, sizeof buf, &n, ")");
	if (c->fn) {
		put_str(buf, sizeof buf, &n, " in the game '");
		put_str(buf, sizeof buf, &n, c->game);
		put_str(buf, sizeof buf, &n, "': its ");
		put_str(buf, sizeof buf, &n, c->fn);
		put_str(buf, sizeof buf, &n, "()");
		if (c->player >= 0) {
			put_str(buf, sizeof buf, &n, " for player ");
			put_u64(buf, sizeof buf, &n, (uint64_t)c->player);
		}
		put_str(buf, sizeof buf, &n, " at step ");
		put_u64(buf, sizeof buf, &n, c->step);
		put_str(buf, sizeof buf, &n, " of the episode");
	}
	buf[n++] = '\n';
	if (write(2, buf, n) < 0)
		return;
}

void worker_fatal_signals(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old, sa = { .sa_handler = on_fatal,
					     .sa_flags = SA_RESETHAND };
		/* a sanitizer's own handler reports better: keep it */
		if (sigaction(sigs[i], NULL, &old) ||
		    old.sa_handler != SIG_DFL)
			continue;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}
