/*
 * bench/bench_pipeline.c: `league bench pipeline [CONFIG...]`, the data
 * path collector -> wire -> learner end to end, against its two stages
 * measured alone in the same run.
 *
 * For each config (default configs/kuhn.yaml and configs/connect4.yaml):
 *   1. learner alone, in this process before anything else runs: PPO
 *      updates of learner.batch synthetic rows with the config's model
 *      and learner settings (what `league learn` builds from the same
 *      config), samples per second;
 *   2. end to end: `league serve CONFIG --nosync`, one `league learn` per
 *      learning player and collectors.count `league collect`, child
 *      processes of this binary on loopback as `league run` starts them;
 *      the rate is the rows the learners trained on (their update lines)
 *      between two update lines at least `seconds` apart, after a
 *      warm-up;
 *   3. collector alone: the same daemon and learners, the collectors
 *      replaced by ones whose sink drops the rows (`league collect
 *      --drop`), rows per second from their counter lines.
 * bound = 1 / (1/collector_alone + 1/learner_alone), since the stages
 * share the same cores; ratio = end to end / bound.
 *
 * The unit is a learning row (one transition of a learning seat, what the
 * learner trains on): in matches against a snapshot or a fixed player only
 * one seat learns, so rows per env step is below 1; the JSON carries that
 * figure for both collector phases, so a reader can see the two phases
 * played a like mix.
 *
 * Child processes rather than threads: it is the deployment `league run`
 * makes, each stage keeps its own process-wide state (BLAS threads, signal
 * handlers, logs), and the figures are read from the same log lines an
 * operator sees. The daemon runs with --nosync: its commits are off the
 * data path, and fsync times on a shared disk would only add noise.
 */
#include "bench/bench.h"
#include "cli/cli.h"
#include "conf/config.h"
#include "learner/learner.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define BP_MAX_PROCS 16
#define BP_LINE_MAX 2048
#define BP_START_S 60.0  /* a process must say it is up within this */
#define BP_STOP_S 15.0   /* then SIGKILL */

/* P_RETIRED: stopped before the end (the first collectors), ignored. */
enum proc_kind { P_DAEMON, P_LEARNER, P_COLLECTOR, P_RETIRED };

/* A child of this binary whose stderr we read line by line. */
struct proc {
	enum proc_kind kind;
	char name[32];
	pid_t pid;
	int fd;               /* read end of its stderr; -1 once closed */
	char buf[BP_LINE_MAX];
	size_t len;
	FILE *log;            /* a copy of every line, for a failed run */
	int up;               /* learner registered / collector counting */
};

/* Counters read from the children's lines, with the time they came. */
struct counts {
	double t_rows;        /* learners: the last update line */
	uint64_t rows;        /* learners: rows trained on, summed */
	uint64_t updates;
	double t_coll;        /* collectors: the last counter line */
	uint64_t coll_steps, coll_rows; /* summed over collectors */
	uint64_t cs[BP_MAX_PROCS], cr[BP_MAX_PROCS]; /* per collector */
};

struct bp {
	const char *config;
	char self[4096];
	char dir[256];
	double seconds, warmup;
	int json, keep;
	struct cfg cfg;
	struct proc p[BP_MAX_PROCS];
	int np;
	uint16_t port;
	uint32_t learners[BP_MAX_PROCS];
	int nlearners;
	struct counts c;
};

/* One measured phase: counters at its two ends. */
struct window {
	double t0, t1;
	uint64_t rows0, rows1;    /* learner rows (end to end) */
	uint64_t csteps0, csteps1, crows0, crows1; /* collector counters */
	double ct0, ct1;
	uint64_t updates;
};

static int rm_cb(const char *path, const struct stat *sb, int flag,
		 struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Run `league ARGS...` with stderr (and stdout) into a pipe we read. */
static int spawn(struct bp *b, enum proc_kind kind, const char *name,
		 char *const argv[])
{
	struct proc *p;
	char path[512];
	int fds[2];
	pid_t pid;

	if (b->np == BP_MAX_PROCS)
		return LG_EFULL;
	if (pipe2(fds, O_CLOEXEC))
		return LG_EIO;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return LG_EIO;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		/* The figures come from info lines. */
		setenv("LEAGUE_LOG", "info", 1);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(b->self, argv);
		_exit(127);
	}
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	p = &b->p[b->np++];
	memset(p, 0, sizeof *p);
	p->kind = kind;
	snprintf(p->name, sizeof p->name, "%s", name);
	p->pid = pid;
	p->fd = fds[0];
	snprintf(path, sizeof path, "%s/%s.log", b->dir, name);
	p->log = fopen(path, "a");
	return 0;
}

/* The number after `key` in line (*at: where it ends), or -1. */
static long long after(const char *line, const char *key, const char **at)
{
	const char *s = strstr(line, key);
	char *end;
	long long v;

	if (!s)
		return -1;
	v = strtoll(s + strlen(key), &end, 10);
	*at = end;
	return v;
}

/* A line from p: update the counters it carries. The formats are those
 * of workers/learn.c (an update) and workers/collect.c (the counters). */
static void on_line(struct bp *b, struct proc *p, const char *line,
		    double now)
{
	const char *s;

	if (p->log)
		fprintf(p->log, "%s\n", line);
	if (p->kind == P_LEARNER) {
		if (strstr(line, "learn: player ") &&
		    strstr(line, " registered: "))
			p->up = 1;
		if ((s = strstr(line, " update ")) && strstr(s, " rows in ")) {
			const char *colon = strchr(s, ':');
			long long rows = colon ? strtoll(colon + 1, NULL, 10)
					       : -1;
			if (rows > 0) {
				b->c.rows += (uint64_t)rows;
				b->c.updates++;
				b->c.t_rows = now;
			}
		}
	} else if (p->kind == P_COLLECTOR && strstr(line, "; totals: ")) {
		const char *at = line;
		long long st = after(line, "; totals: ", &at);
		long long rows = st < 0 ? -1 : after(at, " steps, ", &at);
		size_t k = (size_t)(p - b->p);
		if (st >= 0 && rows >= 0) {
			b->c.coll_steps += (uint64_t)st - b->c.cs[k];
			b->c.coll_rows += (uint64_t)rows - b->c.cr[k];
			b->c.cs[k] = (uint64_t)st;
			b->c.cr[k] = (uint64_t)rows;
			b->c.t_coll = now;
			p->up = 1;
		}
	}
}

/* Read what the children wrote, line by line, until `until` (monotonic
 * seconds). */
static void pump(struct bp *b, double until)
{
	for (;;) {
		struct pollfd pf[BP_MAX_PROCS];
		int idx[BP_MAX_PROCS], n = 0;
		double left = until - lg_now_s();

		for (int i = 0; i < b->np; i++)
			if (b->p[i].fd >= 0) {
				pf[n].fd = b->p[i].fd;
				pf[n].events = POLLIN;
				idx[n++] = i;
			}
		if (left <= 0 || !n) {
			if (!n && left > 0)
				lg_sleep_s(left);
			return;
		}
		int k = poll(pf, (nfds_t)n, (int)ceil(left * 1e3));
		if (k < 0 && errno != EINTR)
			return;
		double now = lg_now_s();
		for (int j = 0; j < n && k > 0; j++) {
			struct proc *p = &b->p[idx[j]];
			ssize_t r;
			if (!(pf[j].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(p->fd, p->buf + p->len,
				 sizeof p->buf - 1 - p->len);
			if (r <= 0) {
				if (r < 0 && errno == EAGAIN)
					continue;
				close(p->fd);
				p->fd = -1;
				continue;
			}
			p->len += (size_t)r;
			p->buf[p->len] = 0;
			char *line = p->buf, *nl;
			while ((nl = strchr(line, '\n'))) {
				*nl = 0;
				on_line(b, p, line, now);
				line = nl + 1;
			}
			p->len -= (size_t)(line - p->buf);
			memmove(p->buf, line, p->len);
			if (p->len == sizeof p->buf - 1) { /* a huge line */
				on_line(b, p, p->buf, now);
				p->len = 0;
			}
		}
	}
}

/* Has child i exited? Reaps it. */
static int exited(struct proc *p)
{
	int st;

	if (p->pid <= 0)
		return 1;
	if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
		p->pid = 0;
		return 1;
	}
	return 0;
}

/* Stop p (SIGTERM, SIGKILL after BP_STOP_S), reading its output. */
static void stop_proc(struct bp *b, struct proc *p)
{
	double t0 = lg_now_s();

	if (p->pid > 0)
		kill(p->pid, SIGTERM);
	while (!exited(p)) {
		if (lg_now_s() - t0 > BP_STOP_S)
			kill(p->pid, SIGKILL);
		pump(b, lg_now_s() + 0.05);
	}
	pump(b, lg_now_s());
}

static void stop_all(struct bp *b)
{
	/* The daemon first: it tells every worker to stop. */
	for (int i = 0; i < b->np; i++)
		if (b->p[i].kind == P_DAEMON)
			stop_proc(b, &b->p[i]);
	for (int i = 0; i < b->np; i++)
		stop_proc(b, &b->p[i]);
	for (int i = 0; i < b->np; i++) {
		if (b->p[i].fd >= 0)
			close(b->p[i].fd);
		if (b->p[i].log)
			fclose(b->p[i].log);
	}
	b->np = 0;
}

/* Wait for the daemon's ports file: the port and the learning players. */
static int read_ports(struct bp *b, char *err, size_t errlen)
{
	char path[300], line[512];
	double t0 = lg_now_s();
	FILE *f;

	snprintf(path, sizeof path, "%s/ports", b->dir);
	while (!(f = fopen(path, "r"))) {
		if (exited(&b->p[0]) || lg_now_s() - t0 > BP_START_S) {
			lg_errf(err, errlen, "the daemon did not start (log: "
				"%s/daemon.log)", b->dir);
			return LG_EIO;
		}
		pump(b, lg_now_s() + 0.02);
	}
	while (fgets(line, sizeof line, f)) {
		unsigned v;
		if (sscanf(line, "port %u", &v) == 1)
			b->port = (uint16_t)v;
		else if (!strncmp(line, "learners", 8)) {
			char *p = line + 8, *end;
			for (;;) {
				unsigned long id = strtoul(p, &end, 10);
				if (end == p || b->nlearners == 8)
					break;
				b->learners[b->nlearners++] = (uint32_t)id;
				p = end;
			}
		}
	}
	fclose(f);
	if (!b->port || !b->nlearners) {
		lg_errf(err, errlen, "%s: no port or no learning player",
			path);
		return LG_EIO;
	}
	return 0;
}

/* Wait until every process of kind is up (its first telling line). */
static int wait_up(struct bp *b, enum proc_kind kind, char *err,
		   size_t errlen)
{
	double t0 = lg_now_s();

	for (;;) {
		int all = 1;
		for (int i = 0; i < b->np; i++) {
			struct proc *p = &b->p[i];
			if (p->kind != kind || p->pid <= 0)
				continue;
			if (exited(p)) {
				lg_errf(err, errlen, "%s exited (log: %s/%s.log)",
					p->name, b->dir, p->name);
				return LG_EIO;
			}
			all &= p->up;
		}
		if (all)
			return 0;
		if (lg_now_s() - t0 > BP_START_S) {
			lg_errf(err, errlen, "%s not up after %.0f s (logs in "
				"%s)", kind == P_LEARNER ? "learners"
							 : "collectors",
				BP_START_S, b->dir);
			return LG_ETIMEOUT;
		}
		pump(b, lg_now_s() + 0.05);
	}
}

static int start_collectors(struct bp *b, int drop)
{
	uint64_t n = b->cfg.collectors.count ? b->cfg.collectors.count : 1;

	for (uint64_t i = 0; i < n; i++) {
		char name[48], conn[64];
		snprintf(name, sizeof name, "%s.%llu",
			 drop ? "collector-drop" : "collector",
			 (unsigned long long)i);
		snprintf(conn, sizeof conn, "127.0.0.1:%u", b->port);
		char *argv[] = { "league", "collect", "--connect", conn,
				 "--name", name, "--log-every", "0.25",
				 drop ? "--drop" : NULL, NULL };
		if (spawn(b, P_COLLECTOR, name, argv))
			return LG_EIO;
	}
	return 0;
}

/* Wait until the counter `t` (t_rows or t_coll) has moved at least once
 * after `from`; 0, or LG_ETIMEOUT (nothing moved for BP_START_S). */
static int next_event(struct bp *b, const double *t, double from,
		      double limit)
{
	while (*t <= from) {
		if (lg_now_s() > limit)
			return LG_ETIMEOUT;
		for (int i = 0; i < b->np; i++)
			if (b->p[i].kind != P_RETIRED && exited(&b->p[i]))
				return LG_EIO;
		pump(b, lg_now_s() + 0.02);
	}
	return 0;
}

/*
 * Measure between two events of one counter: the first after `warmup`
 * seconds from now, the last at least `seconds` later (waiting for one
 * more when the window closes between two). Both kinds of counters are
 * sampled at both ends.
 */
static int measure(struct bp *b, int learner_rows, struct window *w,
		   char *err, size_t errlen)
{
	const double *t = learner_rows ? &b->c.t_rows : &b->c.t_coll;
	double start = lg_now_s() + b->warmup;
	double limit = start + BP_START_S + 4 * b->seconds;
	int rc;

	pump(b, start);
	if ((rc = next_event(b, t, start, limit)))
		goto fail;
	w->t0 = *t;
	w->rows0 = b->c.rows;
	w->updates = b->c.updates;
	w->csteps0 = b->c.coll_steps;
	w->crows0 = b->c.coll_rows;
	w->ct0 = b->c.t_coll;
	if ((rc = next_event(b, t, w->t0 + b->seconds, limit)))
		goto fail;
	w->t1 = *t;
	w->rows1 = b->c.rows;
	w->updates = b->c.updates - w->updates;
	w->csteps1 = b->c.coll_steps;
	w->crows1 = b->c.coll_rows;
	w->ct1 = b->c.t_coll;
	return 0;
fail:
	lg_errf(err, errlen, "%s", rc == LG_EIO
		? "a worker exited during the measurement"
		: learner_rows ? "the learners trained nothing"
			       : "the collectors counted nothing");
	return rc;
}

/* PPO updates of learner.batch synthetic rows for `seconds`. */
static int learner_alone(struct bp *b, double *samples_per_s, char *err,
			 size_t errlen)
{
	struct env_opts eo;
	struct nn_shape sh;
	struct ppo_opts po;
	struct ppo_stats st;
	struct lg_rows y;
	size_t n = (size_t)b->cfg.learner.batch;
	uint64_t updates = 0;
	ppo *p = NULL;
	env *e;
	double t0, dt;
	int rc;

	memset(&y, 0, sizeof y);
	league_env_opts(&b->cfg, &eo);
	if ((rc = env_new(&e, b->cfg.env.name, &eo, err, errlen)))
		return rc;
	league_nn_shape(&b->cfg, env_spec_of(e), &sh);
	env_free(e);
	league_ppo_opts(&b->cfg, &po);
	if ((rc = ppo_new(&p, NULL, &sh, &po, 1, err, errlen)))
		return rc;
	if ((rc = bench_synth_rows(&y, ppo_net(p), n, 16)))
		goto out;
	if ((rc = ppo_update(p, &y, &st))) /* warm-up */
		goto out;
	t0 = lg_now_s();
	do {
		if ((rc = ppo_update(p, &y, &st)))
			goto out;
		updates++;
		dt = lg_now_s() - t0;
	} while (dt < b->seconds || updates < 2);
	*samples_per_s = (double)n * (double)updates / dt;
out:
	if (rc && !err[0])
		lg_errf(err, errlen, "learner alone: %s", lg_strerror(rc));
	lg_rows_free(&y);
	ppo_free(p);
	return rc;
}

/* Start the daemon and the learners of a fresh league in b->dir. */
static int start_league(struct bp *b, char *err, size_t errlen)
{
	char ports[300];
	int rc;

	snprintf(ports, sizeof ports, "%s/ports", b->dir);
	char *dargv[] = { "league", "serve", (char *)(uintptr_t)b->config,
			  "--dir", b->dir, "--ports-file", ports, "--nosync",
			  NULL };
	if ((rc = spawn(b, P_DAEMON, "daemon", dargv))) {
		lg_errf(err, errlen, "cannot start the daemon");
		return rc;
	}
	if ((rc = read_ports(b, err, errlen)))
		return rc;
	for (int i = 0; i < b->nlearners; i++) {
		char name[32], conn[64], player[16];
		snprintf(name, sizeof name, "learner.%u", b->learners[i]);
		snprintf(conn, sizeof conn, "127.0.0.1:%u", b->port);
		snprintf(player, sizeof player, "%u", b->learners[i]);
		char *argv[] = { "league", "learn", "--connect", conn,
				 "--player", player, NULL };
		if ((rc = spawn(b, P_LEARNER, name, argv))) {
			lg_errf(err, errlen, "cannot start %s", name);
			return rc;
		}
	}
	return wait_up(b, P_LEARNER, err, errlen);
}

static double rate(uint64_t a, uint64_t b, double t0, double t1)
{
	return t1 > t0 ? (double)(b - a) / (t1 - t0) : 0;
}

static int run_config(struct bp *b)
{
	const char *tmp = getenv("TMPDIR");
	struct window e2e = { 0 }, alone = { 0 };
	double learner_sps = 0, e2e_rps, coll_rps, bound, ratio;
	double e2e_coll_rps, e2e_rpe, alone_rpe;
	char err[1024] = "";
	int rc;

	if (cfg_load_file(&b->cfg, b->config, err, sizeof err)) {
		fprintf(stderr, "league bench pipeline: %s\n", err);
		return CLI_USAGE;
	}
	memset(&b->c, 0, sizeof b->c);
	b->np = 0;
	b->nlearners = 0;
	b->port = 0;
	snprintf(b->dir, sizeof b->dir, "%s/league-bench-pipeline-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(b->dir)) {
		fprintf(stderr, "league bench pipeline: %s: %s\n", b->dir,
			strerror(errno));
		return CLI_FAIL;
	}
	if ((rc = learner_alone(b, &learner_sps, err, sizeof err)))
		goto out;
	if ((rc = start_league(b, err, sizeof err)) ||
	    (rc = start_collectors(b, 0)) ||
	    (rc = measure(b, 1, &e2e, err, sizeof err)))
		goto out;
	/* Collectors alone: the same league, sinks that drop the rows. */
	for (int i = 0; i < b->np; i++)
		if (b->p[i].kind == P_COLLECTOR) {
			stop_proc(b, &b->p[i]);
			b->p[i].kind = P_RETIRED;
		}
	if ((rc = start_collectors(b, 1)) ||
	    (rc = measure(b, 0, &alone, err, sizeof err)))
		goto out;
out:
	stop_all(b);
	if (rc) { /* the logs stay for a look */
		fprintf(stderr, "league bench pipeline: %s: %s (logs in %s)\n",
			b->config, err[0] ? err : lg_strerror(rc), b->dir);
		return CLI_FAIL;
	}
	if (!b->keep)
		nftw(b->dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	e2e_rps = rate(e2e.rows0, e2e.rows1, e2e.t0, e2e.t1);
	e2e_coll_rps = rate(e2e.crows0, e2e.crows1, e2e.ct0, e2e.ct1);
	coll_rps = rate(alone.crows0, alone.crows1, alone.ct0, alone.ct1);
	e2e_rpe = e2e.csteps1 > e2e.csteps0
			  ? (double)(e2e.crows1 - e2e.crows0) /
				    (double)(e2e.csteps1 - e2e.csteps0)
			  : 0;
	alone_rpe = alone.csteps1 > alone.csteps0
			    ? (double)(alone.crows1 - alone.crows0) /
				      (double)(alone.csteps1 - alone.csteps0)
			    : 0;
	bound = coll_rps > 0 && learner_sps > 0
			? 1 / (1 / coll_rps + 1 / learner_sps)
			: 0;
	ratio = bound > 0 ? e2e_rps / bound : 0;
	if (b->json)
		printf("{\"bench\":\"pipeline\",\"game\":\"%s\","
		       "\"config\":\"%s\",\"seconds\":%.3f,"
		       "\"env_steps_per_s\":%.1f,"
		       "\"collector_alone_steps_per_s\":%.1f,"
		       "\"learner_alone_samples_per_s\":%.1f,"
		       "\"bound_steps_per_s\":%.1f,\"ratio\":%.4f,"
		       "\"updates\":%llu,\"batch\":%llu,"
		       "\"e2e_collector_rows_per_s\":%.1f,"
		       "\"e2e_rows_per_env_step\":%.4f,"
		       "\"alone_rows_per_env_step\":%.4f}\n",
		       b->cfg.env.name, b->config, e2e.t1 - e2e.t0, e2e_rps,
		       coll_rps, learner_sps, bound, ratio,
		       (unsigned long long)e2e.updates,
		       (unsigned long long)b->cfg.learner.batch, e2e_coll_rps,
		       e2e_rpe, alone_rpe);
	else
		printf("%-10s %12.0f %12.0f %12.0f %12.0f %7.3f   (%llu "
		       "updates in %.1f s; rows/env step %.2f e2e, %.2f "
		       "alone)\n",
		       b->cfg.env.name, e2e_rps, coll_rps, learner_sps, bound,
		       ratio, (unsigned long long)e2e.updates, e2e.t1 - e2e.t0,
		       e2e_rpe, alone_rpe);
	fflush(stdout);
	return CLI_OK;
}

static int usage_help(void)
{
	printf("usage: league bench pipeline [CONFIG...] [--seconds S] "
	       "[--warmup S]\n"
	       "       [--keep] [--json]\n\n"
	       "The data path collector -> wire -> learner of each CONFIG "
	       "(default\nconfigs/kuhn.yaml configs/connect4.yaml) through a "
	       "real daemon, collectors\nand learners (child processes on "
	       "loopback), in learning rows per second:\n"
	       "  env_steps_per_s               rows the learners trained "
	       "on, end to end\n"
	       "  collector_alone_steps_per_s   the same collectors with a "
	       "sink that drops\n"
	       "  learner_alone_samples_per_s   PPO on synthetic rows, same "
	       "settings\n"
	       "  bound = 1 / (1/collector_alone + 1/learner_alone), ratio = "
	       "end to end / bound\n"
	       "Each phase measures about --seconds (default 8) after "
	       "--warmup (default 2).\n--keep leaves the league directory "
	       "and the workers' logs.\n");
	return CLI_OK;
}

int bench_pipeline(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "keep", no_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const defaults[] = { "configs/kuhn.yaml",
						"configs/connect4.yaml" };
	const char *cmd = "bench pipeline";
	static struct bp b;
	int ch, worst = CLI_OK;
	ssize_t n;

	memset(&b, 0, sizeof b);
	b.seconds = 8;
	b.warmup = 2;
	while ((ch = cli_getopt(argc, argv, cmd, "", opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 's':
			if (cli_opt_double(cmd, "--seconds", optarg, 0.2, 3600,
					   &b.seconds))
				return CLI_USAGE;
			break;
		case 'w':
			if (cli_opt_double(cmd, "--warmup", optarg, 0, 3600,
					   &b.warmup))
				return CLI_USAGE;
			break;
		case 'k': b.keep = 1; break;
		case 'j': b.json = 1; break;
		case 'h': return usage_help();
		}
	}
	for (int i = optind; i < argc; i++)
		if (access(argv[i], R_OK))
			return cli_usage_error(cmd, "%s: %s", argv[i],
					       strerror(errno));
	n = readlink("/proc/self/exe", b.self, sizeof b.self - 1);
	if (n <= 0) {
		fprintf(stderr, "league bench pipeline: cannot find my own "
			"binary\n");
		return CLI_FAIL;
	}
	b.self[n] = 0;
	signal(SIGPIPE, SIG_IGN);
	if (!b.json)
		printf("%-10s %12s %12s %12s %12s %7s   (learning rows per "
		       "second)\n", "game", "end_to_end", "coll_alone",
		       "learn_alone", "bound", "ratio");
	for (int i = 0; i < (optind < argc ? argc - optind : 2); i++) {
		b.config = optind < argc ? argv[optind + i] : defaults[i];
		int rc = run_config(&b);
		if (rc > worst)
			worst = rc;
		if (rc == CLI_USAGE)
			break;
	}
	return worst;
}
