/*
 * cli/cmd_run.c: `league run CONFIG`, the embedded default.
 *
 * A supervisor, not a league: it starts `league serve` and the local
 * workers (`league collect`, `league learn`) as child processes of this
 * same binary, over loopback, exactly as they would run on many machines.
 * It shows a progress line read from the daemon's HTTP /status, restarts a
 * worker that dies (with backoff), and when the daemon exits (budget
 * reached, or drained after Ctrl-C) it stops the workers and prints the
 * payoff matrix from the league directory.
 *
 * Shape:
 *   - the daemon writes DIR/ports (port, http_port, learners) once it
 *     listens; run waits for that file;
 *   - a fresh random token in DIR/token (mode 0600) authenticates every
 *     worker (LEAGUE_TOKEN in their environment);
 *   - children's stderr goes to DIR/logs/NAME.log; run's own output is the
 *     progress line and the final matrix;
 *   - SIGINT/SIGTERM: forward SIGTERM to the daemon, which drains the
 *     workers (Shutdown message) and exits; stragglers get SIGTERM after
 *     a grace period and SIGKILL after another.
 */
#include "cli/cli.h"
#include "conf/config.h"
#include "net/net.h"
#include "storage/storage.h"
#include "util/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUN_MAX_CHILDREN 64
#define RUN_GRACE_S 15.0

enum child_kind { CH_GAME, CH_DAEMON, CH_COLLECTOR, CH_LEARNER,
		  CH_EVALUATOR };

struct child {
	enum child_kind kind;
	char name[32];
	char *argv[16];
	char argbuf[16][CFG_STR_MAX + 32];
	int argc;
	pid_t pid;
	int restarts;
	double restart_at; /* 0: running or not to restart */
	int status;        /* last wait status */
	long log_from;     /* its log's length when last started */
	int idle;          /* deaths since the league last finished an
			      episode (episodes_seen) */
	double episodes_seen;
	char cause[512]; /* the first error of its last run's log */
};

struct run {
	struct cfg cfg;
	const char *config;
	char dir[CFG_STR_MAX];
	char logs[CFG_STR_MAX + 16];
	char self[4096];
	int resume, quiet, overwrite;
	uint64_t collectors;
	struct child ch[RUN_MAX_CHILDREN];
	int nch;
	int daemon; /* index of the daemon in ch (after the game server) */
	uint16_t port, http_port;
	net_tls *tls; /* server.tls as a client: the progress line's HTTPS */
	uint32_t learners[RUN_MAX_CHILDREN + 1];
	int nlearners;
	double t0;
	double episodes0; /* the league's episodes when the workers started */
	char fail[CFG_STR_MAX + 1600]; /* why run gives up: the last word */
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void child_arg(struct child *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void child_arg(struct child *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->argbuf[c->argc], sizeof c->argbuf[0], fmt, ap);
	va_end(ap);
	c->argv[c->argc] = c->argbuf[c->argc];
	c->argc++;
	c->argv[c->argc] = NULL;
}

/* In the game server's child: run env.serve with /bin/sh in the config
 * file's directory, LEAGUE_GAME_ADDRESS set to env.remote. A simple
 * command is exec'd by the shell, so that the server itself is our child
 * (and gets our signals and the parent-death signal). */
static void game_exec(struct run *r)
{
	char dir[CFG_STR_MAX], cmd[CFG_STR_MAX + 8];
	const char *slash = strrchr(r->config, '/');
	const char *serve = r->cfg.env.serve;

	if (slash) {
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - r->config),
			 r->config);
		if (chdir(slash == r->config ? "/" : dir)) {
			fprintf(stderr, "league run: env.serve: cd %s: %s\n",
				dir, strerror(errno));
			_exit(127);
		}
	}
	setenv("LEAGUE_GAME_ADDRESS", r->cfg.env.remote, 1);
	snprintf(cmd, sizeof cmd, "%s%s",
		 strpbrk(serve, ";&|()<>`$\n") ? "" : "exec ", serve);
	fprintf(stderr, "league run: env.serve: %s\n", serve);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	fprintf(stderr, "league run: exec /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

/* Start (or restart) child c with stderr and stdout in its log file. */
static int child_spawn(struct run *r, struct child *c)
{
	char log[CFG_STR_MAX + 64];
	pid_t pid;

	snprintf(log, sizeof log, "%s/%s.log", r->logs, c->name);
	struct stat sb;
	c->log_from = stat(log, &sb) ? 0 : (long)sb.st_size;
	pid = fork();
	if (pid < 0)
		return LG_EIO;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			      0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		/* Our own process group: Ctrl-C in the terminal reaches run
		 * alone, which drains the league through the daemon. If run
		 * dies (kill -9), its children hear of it. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(0); /* run died before prctl */
		signal(SIGTERM, SIG_DFL);
		if (c->kind == CH_GAME)
			game_exec(r);
		execv(r->self, c->argv);
		fprintf(stderr, "league run: exec %s: %s\n", r->self,
			strerror(errno));
		_exit(127);
	}
	c->pid = pid;
	c->restart_at = 0;
	return 0;
}

static struct child *child_add(struct run *r, enum child_kind kind,
			       const char *name)
{
	struct child *c = &r->ch[r->nch++];

	memset(c, 0, sizeof *c);
	c->kind = kind;
	snprintf(c->name, sizeof c->name, "%s", name);
	child_arg(c, "league");
	return c;
}

/* Parse DIR/ports once it is complete (the daemon renames it into place,
 * so a file that exists is whole). 1 when not there yet. */
static int read_ports(struct run *r)
{
	char path[CFG_STR_MAX + 16], line[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/ports", r->dir);
	if (!(f = fopen(path, "r")))
		return 1;
	r->port = r->http_port = 0;
	r->nlearners = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned v;
		if (sscanf(line, "port %u", &v) == 1)
			r->port = (uint16_t)v;
		else if (sscanf(line, "http_port %u", &v) == 1)
			r->http_port = (uint16_t)v;
		else if (!strncmp(line, "learners", 8)) {
			char *p = line + 8, *end;
			for (;;) {
				unsigned long id = strtoul(p, &end, 10);
				if (end == p)
					break;
				if (r->nlearners == RUN_MAX_CHILDREN) {
					r->nlearners++; /* too many: refused */
					break;
				}
				r->learners[r->nlearners++] = (uint32_t)id;
				p = end;
			}
		}
	}
	fclose(f);
	return r->port ? 0 : 1;
}

/* The number after "key": in a flat JSON text; NAN when absent. */
static double json_num(const char *body, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	if (!(p = strstr(body, pat)))
		return NAN;
	return strtod(p + strlen(pat), NULL);
}

static void progress(struct run *r, int final)
{
	static char body[1 << 16];
	double now = lg_now_s() - r->t0;

	if (r->quiet || !r->http_port ||
	    net_http_get_tls(r->tls, r->http_port, "/status", NULL, 2, body,
			     sizeof body) ||
	    !strstr(body, " 200 "))
		return;
	double sps = json_num(body, "env_steps_per_s");
	double jps = json_num(body, "jobs_per_s");
	double steps = json_num(body, "env_steps");
	double players = json_num(body, "players");
	double snaps = json_num(body, "snapshots");
	double rating = json_num(body, "main_rating");
	double ncl = json_num(body, "nashconv_league");
	char nc[48] = "";
	if (!isnan(ncl))
		snprintf(nc, sizeof nc, "  nashconv league %.4f", ncl);
	printf("%s[%6.1fs] env steps %.0f (%.0f/s)  jobs/s %.1f  players %.0f"
	       "  snapshots %.0f  main elo %.0f%s%s",
	       isatty(1) ? "\r" : "", now, steps, sps, jps, players, snaps,
	       rating, nc, isatty(1) && !final ? "   " : "\n");
	fflush(stdout);
}

static void signal_all(struct run *r, int sig, int workers_only)
{
	for (int i = 0; i < r->nch; i++)
		if (r->ch[i].pid > 0 &&
		    (!workers_only || r->ch[i].kind != CH_DAEMON))
			/* the game server's whole group (its shell's
			 * children too); a worker is one process */
			kill(r->ch[i].kind == CH_GAME ? -r->ch[i].pid
						      : r->ch[i].pid,
			     sig);
}

static int alive(const struct run *r)
{
	int n = 0;

	for (int i = 0; i < r->nch; i++)
		n += r->ch[i].pid > 0;
	return n;
}

/* The league's finished episodes, from the daemon's /status; NAN when
 * it does not answer. */
static double league_episodes(struct run *r)
{
	static char body[1 << 16];

	if (!r->http_port ||
	    net_http_get_tls(r->tls, r->http_port, "/status", NULL, 2, body,
			     sizeof body) ||
	    !strstr(body, " 200 "))
		return NAN;
	return json_num(body, "episodes");
}

/* Worker c died: 1 when it has now died more than
 * run.max_restarts_without_episode times with no episode finished in the
 * league since the first of those deaths (a daemon that does not answer
 * counts as no episode). */
static int gave_up(struct run *r, struct child *c)
{
	double e = league_episodes(r);

	if (!isnan(e) && e > c->episodes_seen) {
		c->episodes_seen = e;
		c->idle = 0;
	}
	c->idle++;
	return (uint64_t)c->idle > r->cfg.run.max_restarts_without_episode;
}

/* Why child c failed, as run's last word (r->fail): what (`what`, or how
 * often it died), how it exited, the first error in its log, the log. */
static void child_failed(struct run *r, struct child *c, const char *what)
{
	char log[CFG_STR_MAX + 64], cause[1024], how[160];
	int st = c->status;

	snprintf(log, sizeof log, "%s/%s.log", r->logs, c->name);
	if (c->cause[0])
		snprintf(cause, sizeof cause, "%s", c->cause);
	else if (!cli_log_first_error(log, c->log_from, cause, sizeof cause))
		snprintf(cause, sizeof cause, "no error in its log");
	if (*what)
		snprintf(how, sizeof how, "%s", what);
	else
		snprintf(how, sizeof how, "%s%s exited %d times with no "
			 "episode finished (run.max_restarts_without_episode "
			 "%llu)", c->kind == CH_GAME ? "the game server "
			 "(env.serve) " : "", c->name, c->idle,
			 (unsigned long long)r->cfg.run.max_restarts_without_episode);
	if (!r->fail[0])
		snprintf(r->fail, sizeof r->fail, "%s (%s %d): %s (log: %s)",
			 how, WIFEXITED(st) ? "status" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), cause,
			 log);
}

/* Whom to name when worker c is given up on: the game server when it
 * too has died since the league's last episode (the workers' deaths
 * follow from it), else c. */
static struct child *blame(struct run *r, struct child *c)
{
	for (int i = 0; i < r->nch; i++)
		if (r->ch[i].kind == CH_GAME && r->ch[i].idle > 0)
			return &r->ch[i];
	return c;
}

/* Reap exited children; returns 1 once the daemon has exited. */
static int reap(struct run *r, int stopping)
{
	int daemon_gone = 0, st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (int i = 0; i < r->nch; i++) {
			struct child *c = &r->ch[i];
			if (c->pid != pid)
				continue;
			c->pid = 0;
			c->status = st;
			/* its last words now, before a restart writes more */
			char log[CFG_STR_MAX + 64];
			snprintf(log, sizeof log, "%s/%s.log", r->logs, c->name);
			cli_log_first_error(log, c->log_from, c->cause,
					    sizeof c->cause);
			if (c->kind == CH_DAEMON) {
				daemon_gone = 1;
				break;
			}
			/* Status 0: the daemon told it to stop (draining). */
			if (stopping || (WIFEXITED(st) && !WEXITSTATUS(st)))
				break;
			/* The game server too: restarted like a worker
			 * (kill it and the league goes on), given up on
			 * like one. */
			if (gave_up(r, c)) {
				child_failed(r, blame(r, c), "");
				break;
			}
			/* A worker died under a live daemon: note it and
			 * start it again, backing off up to 10 s. */
			fprintf(stderr, "\nleague run: %s exited (%s %d); "
				"restarting (log: %s/%s.log)\n", c->name,
				WIFEXITED(st) ? "status" : "signal",
				WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
				r->logs, c->name);
			double wait = 0.5 * (1 << LG_MIN(c->restarts, 5));
			c->restarts++;
			c->restart_at = lg_now_s() + LG_MIN(wait, 10.0);
		}
	}
	return daemon_gone;
}

static int write_token(struct run *r, char *tok, size_t len)
{
	char path[CFG_STR_MAX + 16];
	uint8_t raw[16];
	int fd, ok;

	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ok = fd >= 0 && read(fd, raw, sizeof raw) == (ssize_t)sizeof raw;
	if (fd >= 0)
		close(fd);
	if (!ok)
		return LG_EIO;
	for (size_t i = 0; i < sizeof raw && 2 * i + 2 < len; i++)
		snprintf(tok + 2 * i, 3, "%02x", raw[i]);
	snprintf(path, sizeof path, "%s/token", r->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return LG_EIO;
	ok = write(fd, tok, strlen(tok)) == (ssize_t)strlen(tok);
	close(fd);
	return ok ? 0 : LG_EIO;
}

static int mkdirs(const char *path)
{
	char tmp[CFG_STR_MAX + 16];

	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

/* Run `league ARGS...` (NULL-terminated) and wait: the same read-only
 * code path a person would use to print the payoff matrix or the games
 * against the baselines. */
static int run_self(struct run *r, char *const args[])
{
	pid_t pid;
	int st;

	fflush(stdout); /* our lines first, then the child's */
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		execv(r->self, args);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The payoff matrix, as `league payoff DIR` prints it; with eval.share
 * also the newest games against the baselines. */
static int print_matrix(struct run *r)
{
	char *payoff[] = { "league", "payoff", r->dir, "--top", "12", NULL };
	char *base[] = { "league", "eval", "baselines", r->dir, "--last", "2",
			 NULL };

	if (run_self(r, payoff))
		return -1;
	if (!(r->cfg.eval.share > 0))
		return 0;
	printf("\nmain player against the baselines (the newest evaluated "
	       "versions; all of them: league eval baselines %s):\n", r->dir);
	return run_self(r, base);
}

/* The game has an exact evaluator of a league's exploitability over
 * time: an exact tree, and seats of one role (the evaluator plays one
 * network in every seat; a league of populations per role is not
 * evaluated there yet). */
static int has_tree(const struct cfg *c)
{
	struct env_opts o;
	env *e;
	int yes;

	league_env_opts(c, &o);
	if (env_new(&e, c->env.name, &o, NULL, 0))
		return 0;
	yes = (env_spec_of(e)->flags & ENV_F_TREE) && env_spec_of(e)->roles == 1;
	env_free(e);
	return yes;
}

/* Send sig to every child and wait until none is left: the way out when
 * the league never got going. */
static void stop_all(struct run *r, int sig)
{
	signal_all(r, sig, 0);
	while (alive(r) && waitpid(-1, NULL, 0) > 0)
		;
}

/*
 * Make r->dir ready for a daemon: refuse to reuse or to miss a league
 * (against --resume and --overwrite, which removes only the files a
 * league directory holds), create DIR/logs and write a fresh DIR/token,
 * exported as LEAGUE_TOKEN for every child. CLI_OK, CLI_USAGE (the
 * directory does not match the flags) or CLI_FAIL, each with a message
 * on stderr.
 */
static int prepare_dir(struct run *r)
{
	char tok[64], path[CFG_STR_MAX + 16], err[700];
	struct stat sb;
	int lock = -1, rc = CLI_OK, lrc;

	snprintf(path, sizeof path, "%s/data.mdb", r->dir);
	int exists = stat(path, &sb) == 0;
	/* A league some process still runs is neither replaced nor resumed
	 * beside it: its writer lock first, held until DIR is ready, before
	 * anything in DIR changes (the daemon takes it over). */
	if (exists && (r->overwrite || r->resume) &&
	    (lrc = store_lock_dir(r->dir, &lock, err, sizeof err))) {
		fprintf(stderr, "league run: %s: %s%s\n",
			r->overwrite ? "--overwrite" : "--resume", err,
			lrc == LG_EBUSY ? "; stop it first" : "");
		return lrc == LG_EBUSY ? CLI_USAGE : CLI_FAIL;
	}
	if (exists && r->overwrite && !r->resume) {
		/* Only the files a league directory holds; nothing else in
		 * DIR is touched. league.lock stays: we hold it. */
		static const char *const files[] = {
			"data.mdb", "lock.mdb", "token", "ports",
			"logs/daemon.log",
		};
		char f[CFG_STR_MAX + 32];
		for (size_t i = 0; i < LG_ARRAY_LEN(files); i++) {
			snprintf(f, sizeof f, "%s/%s", r->dir, files[i]);
			if (unlink(f) && errno != ENOENT) {
				fprintf(stderr, "league run: --overwrite: %s: "
					"%s\n", f, strerror(errno));
				rc = CLI_FAIL;
				goto out;
			}
		}
		exists = 0;
	}
	if (exists && !r->resume) {
		fprintf(stderr, "league run: %s already holds a league; pass "
			"--resume to continue it, --overwrite to start over, "
			"or --dir for a new one\n", r->dir);
		rc = CLI_USAGE;
		goto out;
	}
	if (!exists && r->resume) {
		fprintf(stderr, "league run: --resume: no league in %s\n",
			r->dir);
		rc = CLI_USAGE;
		goto out;
	}
	snprintf(r->logs, sizeof r->logs, "%s/logs", r->dir);
	if (mkdirs(r->logs)) {
		fprintf(stderr, "league run: cannot create %s: %s\n", r->logs,
			strerror(errno));
		rc = CLI_FAIL;
		goto out;
	}
	if (write_token(r, tok, sizeof tok)) {
		fprintf(stderr, "league run: cannot write %s/token\n", r->dir);
		rc = CLI_FAIL;
		goto out;
	}
	setenv("LEAGUE_TOKEN", tok, 1);
out:
	store_unlock_dir(lock);
	return rc;
}

/*
 * Start `league serve` as child 0 and wait (up to 30 s) until it has
 * written DIR/ports, which fills r->port, r->http_port and r->learners.
 * CLI_OK with the daemon listening; CLI_FAIL when it could not start, it
 * exited, it was too slow or a signal came, with every child gone.
 */
static int start_daemon(struct run *r)
{
	char path[CFG_STR_MAX + 16];
	struct child *d;
	double started;

	/* a stale file would be read as the new daemon's ports */
	snprintf(path, sizeof path, "%s/ports", r->dir);
	unlink(path);

	r->daemon = r->nch;
	d = child_add(r, CH_DAEMON, "daemon");
	child_arg(d, "serve");
	child_arg(d, "%s", r->config);
	child_arg(d, "--dir");
	child_arg(d, "%s", r->dir);
	child_arg(d, "--ports-file");
	child_arg(d, "%s", path);
	if (r->resume)
		child_arg(d, "--resume");
	if (child_spawn(r, d)) {
		fprintf(stderr, "league run: cannot start the daemon\n");
		return CLI_FAIL;
	}
	started = lg_now_s();
	while (read_ports(r)) {
		if (got_signal) {
			stop_all(r, SIGTERM);
			return CLI_FAIL;
		}
		if (reap(r, 1) || lg_now_s() - started > 30) {
			if (d->pid > 0) /* too slow: still running */
				kill(d->pid, SIGKILL);
			stop_all(r, SIGKILL);
			child_failed(r, d, "the daemon did not start");
			fprintf(stderr, "league run: %s\n", r->fail);
			return CLI_FAIL;
		}
		lg_sleep_s(0.02);
	}
	return CLI_OK;
}

/*
 * Start the workers against the listening daemon: r->collectors
 * collectors, one learner per id the daemon listed, and the evaluator
 * when the config asks for NashConv and the game has a tree. A worker
 * that fails to fork is retried a second later by supervise(). CLI_OK;
 * CLI_USAGE (with every child stopped) when that is more processes than
 * RUN_MAX_CHILDREN.
 */
static int start_workers(struct run *r)
{
	if ((uint64_t)r->nch + r->collectors + (uint64_t)r->nlearners >
	    RUN_MAX_CHILDREN) {
		fprintf(stderr, "league run: %llu collectors and %d learners are "
			"more than the %d local processes league run starts; "
			"run league serve, collect and learn yourself\n",
			(unsigned long long)r->collectors, r->nlearners,
			RUN_MAX_CHILDREN - 1);
		stop_all(r, SIGTERM);
		return CLI_USAGE;
	}
	for (uint64_t i = 0; i < r->collectors; i++) {
		char name[32];
		snprintf(name, sizeof name, "collector.%llu",
			 (unsigned long long)i);
		struct child *c = child_add(r, CH_COLLECTOR, name);
		child_arg(c, "collect");
		child_arg(c, "--connect");
		child_arg(c, "127.0.0.1:%u", r->port);
		child_arg(c, "--name");
		child_arg(c, "%s", name);
	}
	for (int i = 0; i < r->nlearners; i++) {
		char name[32];
		snprintf(name, sizeof name, "learner.%u", r->learners[i]);
		struct child *c = child_add(r, CH_LEARNER, name);
		child_arg(c, "learn");
		child_arg(c, "--connect");
		child_arg(c, "127.0.0.1:%u", r->port);
		child_arg(c, "--player");
		child_arg(c, "%u", r->learners[i]);
	}
	if (r->cfg.eval.nashconv && has_tree(&r->cfg)) {
		struct child *c = child_add(r, CH_EVALUATOR, "evaluator");
		child_arg(c, "evaluate");
		child_arg(c, "--connect");
		child_arg(c, "127.0.0.1:%u", r->port);
		child_arg(c, "--name");
		child_arg(c, "evaluator");
	}
	double e = league_episodes(r);
	r->episodes0 = isnan(e) ? 0 : e;
	for (int i = 0; i < r->nch; i++) /* the game server's too */
		r->ch[i].episodes_seen = r->episodes0;
	for (int i = r->daemon + 1; i < r->nch; i++) {
		if (child_spawn(r, &r->ch[i]))
			r->ch[i].restart_at = lg_now_s() + 1;
	}
	return CLI_OK;
}

/*
 * Watch the children until none is left. While the daemon runs: restart
 * workers that died when their backoff is over and print the progress
 * line. A signal (forwarded to the daemon as SIGTERM) or the daemon's
 * exit starts the stop: the daemon drains its workers; without it they
 * get SIGTERM after 1 s and SIGKILL after 5 s; everyone gets SIGTERM
 * after RUN_GRACE_S and SIGKILL after twice that.
 */
static void supervise(struct run *r)
{
	struct child *d = &r->ch[r->daemon];
	int stopping = 0;
	double stop_at = 0, last_progress = 0;

	for (;;) {
		double now = lg_now_s();
		if (r->fail[0] && !stopping) {
			stopping = 1;
			stop_at = now;
			if (d->pid > 0)
				kill(d->pid, SIGTERM);
		}
		if (got_signal && !stopping) {
			stopping = 1;
			stop_at = now;
			if (!r->quiet)
				printf("\nleague run: stopping (signal %d); "
				       "the league is resumable with --resume\n",
				       (int)got_signal);
			if (d->pid > 0)
				kill(d->pid, SIGTERM);
		}
		if (reap(r, stopping) && !stopping) {
			stopping = 1;
			stop_at = now;
		}
		if (stopping) {
			if (!alive(r))
				break;
			/* With the daemon gone the workers have nothing left
			 * to finish: a second, then SIGTERM; five, SIGKILL. */
			if (d->pid <= 0 && now - stop_at > 1)
				signal_all(r, SIGTERM, 1);
			if (d->pid <= 0 && now - stop_at > 5)
				signal_all(r, SIGKILL, 1);
			if (now - stop_at > RUN_GRACE_S)
				signal_all(r, SIGTERM, 0);
			if (now - stop_at > 2 * RUN_GRACE_S)
				signal_all(r, SIGKILL, 0);
		} else {
			for (int i = 0; i < r->nch; i++)
				if (!r->ch[i].pid && r->ch[i].restart_at &&
				    now >= r->ch[i].restart_at)
					child_spawn(r, &r->ch[i]);
			/* A line a second on a terminal (rewritten in place),
			 * every five seconds into a file or pipe. */
			if (now - last_progress >= (isatty(1) ? 1 : 5)) {
				progress(r, 0);
				last_progress = now;
			}
		}
		lg_sleep_s(0.05);
	}
}

/*
 * After every child is gone: CLI_OK when the daemon exited with status 0
 * (else its status on stderr) and the payoff matrix could be printed,
 * CLI_FAIL otherwise.
 */
static int finish(struct run *r)
{
	struct child *d = &r->ch[r->daemon];
	int dst = d->status, rc = CLI_FAIL;

	if (r->fail[0]) {
		/* nothing was played the way the league meant: the cause is
		 * the whole word, not a matrix */
		fprintf(stderr, "\nleague run: %s\n", r->fail);
		return CLI_FAIL;
	}
	if (WIFEXITED(dst) && WEXITSTATUS(dst) == 0) {
		rc = CLI_OK;
	} else {
		child_failed(r, d, "the daemon exited");
		fprintf(stderr, "\nleague run: %s\n", r->fail);
	}
	if (!r->quiet)
		printf("\n");
	if (print_matrix(r))
		rc = CLI_FAIL;
	return rc;
}

/*
 * With env.serve: start the game server and wait (up to 30 s) until it
 * answers at env.remote with the game env.name names. CLI_OK; CLI_USAGE
 * (every child stopped) when it never did, with the last error and its
 * log on stderr: a command that fails or a game that is not the one
 * named are config errors.
 */
static int start_game(struct run *r)
{
	struct env_opts o;
	struct child *g;
	char err[400] = "";
	double started = lg_now_s();

	if (!r->cfg.env.serve[0])
		return CLI_OK;
	g = child_add(r, CH_GAME, "game");
	if (child_spawn(r, g)) {
		fprintf(stderr, "league run: cannot start env.serve\n");
		return CLI_FAIL;
	}
	league_env_opts(&r->cfg, &o);
	for (;;) {
		int rc = env_check(r->cfg.env.name, &o, NULL, err, sizeof err);
		if (!rc)
			return CLI_OK;
		if (rc != LG_ENOTFOUND || got_signal || !g->pid ||
		    lg_now_s() - started > 30) {
			if (!got_signal)
				fprintf(stderr, "league run: env.serve: %s%s "
					"(log: %s/game.log)\n", err,
					rc == LG_ENOTFOUND && g->pid
						? " after 30 s"
						: "",
					r->logs);
			stop_all(r, SIGTERM);
			return got_signal ? CLI_FAIL : CLI_USAGE;
		}
		lg_sleep_s(0.1);
		reap(r, 1);
	}
}

/* The whole run: directory, game server, daemon, workers, watching, the
 * last word. */
static int run_main(struct run *r)
{
	int rc;

	if ((rc = prepare_dir(r)) || (rc = start_game(r)) ||
	    (rc = start_daemon(r)) ||
	    (rc = start_workers(r)))
		return rc;
	if (!r->quiet)
		printf("league run: %s in %s: daemon on 127.0.0.1:%u, live page "
		       "http%s://127.0.0.1:%u/, %llu collector(s), %d "
		       "learner(s)\n", r->cfg.league.name, r->dir, r->port,
		       r->tls ? "s" : "", r->http_port,
		       (unsigned long long)r->collectors, r->nlearners);
	supervise(r);
	return finish(r);
}

static int run(int argc, char **argv)
{
	static struct run r;
	const char *dir = NULL;
	unsigned long long ncoll = ~0ull;
	char err[512];
	const struct cli_arg flags[] = {
		CLI_STRING("dir", 0, &dir),
		CLI_BOOL("resume", 0, &r.resume),
		CLI_U64("collectors", 0, &ncoll, 1, 32),
		CLI_BOOL("quiet", 0, &r.quiet),
		CLI_BOOL("overwrite", 0, &r.overwrite),
		CLI_END,
	};

	memset(&r, 0, sizeof r);
	if (cli_args_one("run", flags, "expected one CONFIG file", argc, argv,
			 &r.config))
		return CLI_USAGE;
	if (r.resume && r.overwrite)
		return cli_usage_error("run", "--resume and --overwrite "
				       "contradict each other");
	if (cfg_load_file(&r.cfg, r.config, err, sizeof err)) {
		fprintf(stderr, "league run: %s\n", err);
		return CLI_USAGE;
	}
	if (r.cfg.server.tls.cert[0]) {
		/* Every child speaks TLS with the daemon's certificate (it
		 * serves both ends), as workers on other machines would with
		 * their own. */
		struct net_tls_opts to = { r.cfg.server.tls.cert,
					   r.cfg.server.tls.key,
					   r.cfg.server.tls.ca, 0 };
		if (net_tls_new(&r.tls, &to, 0, NULL, err, sizeof err)) {
			fprintf(stderr, "league run: %s\n", err);
			return CLI_USAGE;
		}
		setenv("LEAGUE_TLS_CA", r.cfg.server.tls.ca, 1);
		setenv("LEAGUE_TLS_CERT", r.cfg.server.tls.cert, 1);
		setenv("LEAGUE_TLS_KEY", r.cfg.server.tls.key, 1);
	}
	snprintf(r.dir, sizeof r.dir, "%s", dir ? dir : r.cfg.league.dir);
	r.collectors = ncoll != ~0ull ? ncoll : r.cfg.collectors.count;
	if (r.cfg.league.deterministic && r.collectors > 1)
		return cli_usage_error("run", "--collectors %llu: "
				       "league.deterministic runs one "
				       "collector",
				       (unsigned long long)r.collectors);
	ssize_t n = readlink("/proc/self/exe", r.self, sizeof r.self - 1);
	if (n <= 0) {
		fprintf(stderr, "league run: cannot find my own binary\n");
		return CLI_FAIL;
	}
	r.self[n] = 0;
	r.t0 = lg_now_s();
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return run_main(&r);
}

const struct cli_cmd cli_cmd_run = {
	.name = "run",
	.summary = "run a whole league here: daemon, collectors, learners",
	.help =
	"usage: league run CONFIG [--dir DIR] [--resume | --overwrite]\n"
	"                  [--collectors N] [--quiet]\n\n"
	"Starts the daemon (league serve) and local collectors and learners as\n"
	"child processes over loopback, shows progress (env steps/s, jobs/s,\n"
	"players, snapshots, the main player's rating), stops at the config's\n"
	"budget and prints the payoff matrix. Ctrl-C drains and stops every\n"
	"process; --resume continues a stopped or killed run in the same DIR.\n"
	"Logs: DIR/logs/*.log. Live page: the http_port printed at start.\n\n"
	"  --dir DIR         league directory (default: league.dir)\n"
	"  --resume          continue the league in DIR\n"
	"  --overwrite       replace the league in DIR with a new one\n"
	"  --collectors N    local collectors (default: collectors.count)\n"
	"  --quiet           no progress line\n",
	.run = run,
};
