/*
 * bench/bench_payoff.c: `league bench payoff`: GET /payoff of a league of
 * N players (default 1,000) as `league inspect DIR` serves it, over
 * loopback, against GET /status of the same server (the reference: one
 * HTTP round trip with a small body). `league inspect` writes the JSON
 * once per load of the league, off the request path; json_write_ms is
 * that cost, measured in this process.
 *
 * The league directory is built through the real code: the brain grows
 * one main player, one main exploiter and one league exploiter to N
 * players and snapshots (every step report freezes a snapshot, as in
 * `league bench matchmaking`), then every pair gets decayed counts from
 * a strength model (agent i's strength grows with i, plus noise; about
 * one pair in ten never met), written by the payoff module's own
 * encoder (payoff_store_pair; the online Elo is the strength, centred,
 * by payoff_store_rating). That is the worst case for /payoff: a
 * real league's snapshots rarely meet each other, so most of its cells
 * are empty and print shorter. `--keep DIR` builds into DIR and leaves
 * it there (the browser benchmark serves it to Chromium).
 */
#include "bench/bench.h"
#include "cli/cli.h"
#include "payoff/payoff.h"
#include "players/players.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BP_CMD "bench payoff"
#define BP_MAX_REPS 1000

/* The brain's players and snapshots: N agents. */
static int grow_league(store *s, uint32_t n, char *err, size_t errlen)
{
	const uint32_t learners[3] = { 0, 2, 3 };
	uint64_t steps[3] = { 0, 0, 0 };
	struct brain_opts o;
	brain *b = NULL;
	int rc;

	bench_growth_opts(&o);
	if ((rc = brain_open(&b, s, &o, err, errlen)))
		return rc;
	for (uint32_t i = 0; !rc && brain_count(b) < n; i++) {
		struct brain_step_report rep;
		rc = brain_report_steps(b, learners[i % 3], ++steps[i % 3], 0,
					&rep);
	}
	if (rc)
		snprintf(err, errlen, "growing the league: %s",
			 lg_strerror(rc));
	rc = brain_close(b) ? LG_EIO : rc;
	return rc;
}

struct fill {
	payoff *pf;
	uint32_t n;
	const char *name;
};

/* Every pair's counts (from the strength model) and the meta the page's
 * title reads, in one write transaction. */
static int fill_txn(store_txn *t, void *arg)
{
	struct fill *f = arg;
	int rc = 0;

	rc = store_put(t, STORE_DB_META, "league.name", 11, f->name,
		       strlen(f->name));
	rc = rc ? rc : store_put(t, STORE_DB_META, "env.name", 8, "synthetic",
				 9);
	for (uint32_t a = 0; !rc && a < f->n; a++) {
		for (uint32_t b = a; !rc && b < f->n; b++)
			rc = payoff_store_pair(f->pf, t, a, b);
		rc = rc ? rc : payoff_store_rating(f->pf, t, a);
	}
	return rc;
}

/* Counts of a against b: g games, a's win probability from the strength
 * gap (Elo scale), 10% of them draws. */
static void model_entry(lg_rng *r, const double *strength, uint32_t a,
			uint32_t b, struct payoff_entry *e)
{
	double g = lg_rng_below(r, 10) ? 1 + 60 * lg_rng_double(r) : 0;
	double p = 1 / (1 + pow(10, (strength[b] - strength[a]) / 400));

	e->games = g;
	e->draws = 0.1 * g;
	e->wins = 0.9 * g * p;
	e->losses = g - e->wins - e->draws;
}

static int fill_payoff(store *s, uint32_t n)
{
	double *strength = malloc(sizeof *strength * n);
	struct fill f = { .n = n, .name = "bench-payoff" };
	lg_rng r;
	int rc = LG_ENOMEM;

	if (!strength || payoff_new(&f.pf, NULL))
		goto out;
	lg_rng_seed(&r, n);
	for (uint32_t i = 0; i < n; i++)
		strength[i] = 0.8 * i + 150 * (lg_rng_double(&r) - 0.5);
	for (uint32_t i = 0; i < n; i++)
		if ((rc = payoff_add(f.pf, i)))
			goto out;
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = a + 1; b < n; b++) {
			struct payoff_entry e;
			model_entry(&r, strength, a, b, &e);
			if ((rc = payoff_set(f.pf, a, b, &e)))
				goto out;
		}
	for (uint32_t i = 0; i < n; i++)
		payoff_set_elo(f.pf, i, strength[i] - 0.4 * n, 60.0 * n);
	rc = store_update(s, fill_txn, &f);
out:
	payoff_free(f.pf);
	free(strength);
	return rc;
}

/* A league directory of n agents in dir (created when absent). */
static int build_league(const char *dir, uint32_t n)
{
	struct store_opts so = { STORE_NOSYNC, 0, 0 };
	char err[512] = "";
	store *s = NULL;
	int rc;

	if ((rc = store_open(&s, dir, &so, err, sizeof err)) ||
	    (rc = grow_league(s, n, err, sizeof err)) ||
	    (rc = fill_payoff(s, n)))
		fprintf(stderr, "league %s: %s: %s\n", BP_CMD, dir,
			err[0] ? err : lg_strerror(rc));
	store_close(s);
	return rc;
}

/* Seconds to write the JSON of /payoff for every player, in this process
 * (what inspect does once per load, off the request path); -1 on
 * failure. */
static double time_json(const char *dir, size_t *bytes)
{
	struct store_opts so = { STORE_RDONLY, 0, 0 };
	char err[512] = "";
	store *s = NULL;
	brain *b = NULL;
	uint32_t *ids = NULL, n;
	lg_buf out = { 0 };
	double t = -1, t0;

	if (store_open(&s, dir, &so, err, sizeof err) ||
	    brain_open(&b, s, NULL, err, sizeof err))
		goto out;
	n = brain_count(b);
	if (!(ids = malloc(sizeof *ids * (n ? n : 1))))
		goto out;
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	t0 = lg_now_s();
	if (!brain_payoff_json(b, ids, n, &out))
		t = lg_now_s() - t0;
	*bytes = out.len;
out:
	if (t < 0)
		fprintf(stderr, "league %s: %s\n", BP_CMD, err);
	lg_buf_free(&out);
	free(ids);
	brain_close(b);
	store_close(s);
	return t;
}

/* `league inspect dir` as a child on a free loopback port: its pid, and
 * the port into *port once it listens. */
static pid_t start_inspect(const char *dir, const char *ports,
			   unsigned *port)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	pid_t pid;

	if (len <= 0)
		return -1;
	self[len] = 0;
	unlink(ports);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		char d[PATH_MAX], f[PATH_MAX + 32], cmd[] = "inspect",
			port_opt[] = "--port", zero[] = "0",
			ports_opt[] = "--ports-file";
		char *argv[] = { self, cmd, d, port_opt, zero, ports_opt, f,
				 NULL };
		snprintf(d, sizeof d, "%s", dir);
		snprintf(f, sizeof f, "%s", ports);
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(127);
		execv(self, argv);
		_exit(127);
	}
	/* it listens once the league is loaded and its JSON written (about
	 * 2 s at 1,000 players, most of it the ladder's Elo fit) */
	for (int i = 0; i < 6000; i++) {
		FILE *f = fopen(ports, "r");
		int ok = f && fscanf(f, "http_port %u", port) == 1;
		if (f)
			fclose(f);
		if (ok)
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(50000);
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	return -1;
}

/* GET path over a new loopback connection, read to the end: the seconds
 * it took, the body's length into *body; -1 on any failure or a status
 * other than 200. */
static double http_get(unsigned port, const char *path, size_t *body)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	static char buf[1 << 16];
	char req[256], head[16] = "";
	size_t total = 0;
	double t0 = lg_now_s();
	ssize_t k;
	int fd = socket(AF_INET, SOCK_STREAM, 0), rc = -1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		 "Connection: close\r\n\r\n", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) ||
	    write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		goto out;
	while ((k = read(fd, buf, sizeof buf)) > 0) {
		if (!total)
			memcpy(head, buf, LG_MIN((size_t)k, sizeof head - 1));
		total += (size_t)k;
	}
	rc = k == 0 && !strncmp(head, "HTTP/1.1 200", 12) ? 0 : -1;
	*body = total;
out:
	if (fd >= 0)
		close(fd);
	return rc ? -1 : lg_now_s() - t0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

struct timing {
	double first, median, max;
	size_t bytes;
};

/* reps GETs of path: the first (the server's cold cache), the median and
 * the maximum of all of them, in seconds. */
static int time_gets(unsigned port, const char *path, int reps,
		     struct timing *tm)
{
	double t[BP_MAX_REPS];

	for (int i = 0; i < reps; i++)
		if ((t[i] = http_get(port, path, &tm->bytes)) < 0) {
			fprintf(stderr, "league %s: GET %s failed\n", BP_CMD,
				path);
			return -1;
		}
	tm->first = t[0];
	qsort(t, (size_t)reps, sizeof *t, cmp_double);
	tm->median = t[reps / 2];
	tm->max = t[reps - 1];
	return 0;
}

static void print(int json, uint32_t n, int reps, double build_s,
		  double write_s, const struct timing *p,
		  const struct timing *s)
{
	if (json) {
		printf("{\"bench\":\"payoff_http\",\"players\":%u,\"reps\":%d,"
		       "\"bytes\":%zu,\"ms_first\":%.2f,\"ms_median\":%.2f,"
		       "\"ms_max\":%.2f,\"status_ms_median\":%.3f,"
		       "\"ratio_to_status\":%.1f,\"json_write_ms\":%.1f,"
		       "\"build_s\":%.1f}\n", n, reps, p->bytes,
		       1e3 * p->first, 1e3 * p->median, 1e3 * p->max,
		       1e3 * s->median, p->median / s->median, 1e3 * write_s,
		       build_s);
		return;
	}
	printf("%8s %10s %9s %10s %9s %10s %9s %9s\n", "players", "bytes",
	       "first_ms", "median_ms", "max_ms", "status_ms", "vs_status",
	       "write_ms");
	printf("%8u %10zu %9.2f %10.2f %9.2f %10.3f %9.1f %9.1f\n", n,
	       p->bytes, 1e3 * p->first, 1e3 * p->median, 1e3 * p->max,
	       1e3 * s->median, p->median / s->median, 1e3 * write_s);
}

static void rm_dir(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "league %s: could not remove %s\n", BP_CMD,
			dir);
}

static int usage(void)
{
	printf("usage: league bench payoff [--players N] [--reps R] "
	       "[--keep DIR] [--json]\n\n"
	       "GET /payoff of `league inspect` on a league of N players "
	       "and snapshots\n(default 1000) over loopback, R times "
	       "(default 20): the first, median and\nmaximum milliseconds, "
	       "against GET /status of the same server. Every pair\nhas "
	       "counts (the worst case for the body's size). --keep DIR "
	       "(new) builds the\nleague in DIR and leaves it there.\n");
	return CLI_OK;
}

/* Build the league, serve it, time the GETs. */
static int measure(const char *dir, uint32_t n, int reps, int json)
{
	char ports[PATH_MAX + 32];
	struct timing p = { 0 }, s = { 0 };
	double t0 = lg_now_s(), build_s, write_s;
	size_t bytes = 0;
	unsigned port = 0;
	pid_t pid;
	int rc = CLI_FAIL;

	if (build_league(dir, n))
		return CLI_FAIL;
	build_s = lg_now_s() - t0;
	if ((write_s = time_json(dir, &bytes)) < 0)
		return CLI_FAIL;
	snprintf(ports, sizeof ports, "%s.inspect-ports", dir);
	if ((pid = start_inspect(dir, ports, &port)) < 0) {
		fprintf(stderr, "league %s: league inspect did not start\n",
			BP_CMD);
		return CLI_FAIL;
	}
	if (!time_gets(port, "/payoff", reps, &p) &&
	    !time_gets(port, "/status", reps, &s)) {
		print(json, n, reps, build_s, write_s, &p, &s);
		rc = CLI_OK;
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	unlink(ports);
	return rc;
}

int bench_payoff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "players", required_argument, NULL, 'p' },
		{ "reps", required_argument, NULL, 'r' },
		{ "keep", required_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long n = 1000, reps = 20;
	const char *keep = NULL, *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	int json = 0, ch, rc;

	while ((ch = cli_getopt(argc, argv, BP_CMD, "p:r:k:j", opts)) != -1) {
		if (ch == -2)
			return CLI_USAGE;
		if (ch == 'p' && cli_opt_u64(BP_CMD, "--players", optarg, 4,
					     20000, &n))
			return CLI_USAGE;
		if (ch == 'r' && cli_opt_u64(BP_CMD, "--reps", optarg, 1,
					     BP_MAX_REPS, &reps))
			return CLI_USAGE;
		if (ch == 'k')
			keep = optarg;
		if (ch == 'j')
			json = 1;
		if (ch == 'h')
			return usage();
	}
	if (optind != argc)
		return cli_usage_error(BP_CMD, "unexpected argument '%s'",
				       argv[optind]);
	if (keep) {
		snprintf(dir, sizeof dir, "%s", keep);
		if (mkdir(keep, 0755)) {
			fprintf(stderr, "league %s: --keep %s: %s (it must not "
				"exist yet)\n", BP_CMD, keep,
				strerror(errno));
			return CLI_FAIL;
		}
	} else {
		snprintf(dir, sizeof dir, "%s/league-bench-payoff.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			perror("league bench payoff: mkdtemp");
			return CLI_FAIL;
		}
	}
	rc = measure(dir, (uint32_t)n, (int)reps, json);
	if (!keep)
		rm_dir(dir);
	return rc;
}
