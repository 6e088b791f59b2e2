/*
 * bench/bench_collector.c: `league bench collector`, the seed experiment
 * of shared/seeds/collector_overview.txt against our env manager.
 *
 * Workload per row: 8 timing envs (Small: obs 64, reset 0.1 s, step
 * 0.005 s, inference 0.004 s; Middle: 300, 0.5, 0.01, 0.008; Big: 3000,
 * 2, 0.1, 0.02), episodes of 500 steps, every time and episode length
 * jittered uniformly in [1 - J, 1 + J] x nominal (--jitter J, default the
 * seed's 0.6; DI-engine's own FakeEnv uses 0.3); 300 collects of at least
 * 80 transitions; reset times x1 and x5; modes serial, sync and async
 * (wait_num 7). Inference is simulated (a jittered sleep per batch) on
 * ONE inference device by default, as the seed's single policy: batched
 * forwards, one at a time (--devices N allows N at once; 0, any number,
 * which is what makes the lower bound reachable). Trajectories are built
 * and handed to a sink that counts and drops them, as a learner would
 * take them.
 *
 * Each row prints our wall time (collector creation, so the first resets,
 * included), the workload's lower bound
 *     (collects x samples x (step + infer) + resets x reset) / envs
 * with nominal times and the resets actually done, their ratio, and the
 * seed's published nerveX and tianshou times for that row and mode
 * (nx-base for serial), and our time over the best published figure for
 * that workload (any collector, any mode: seed_best_s), all multiplied by
 * --time-scale so a quick run compares like with like. Beside them, for
 * the rows where it was measured, DI-engine v0.5.3's own speed test
 * (its FakeEnv and FakePolicy, same workload, one run each) measured
 * separately on this machine kind: a constant, not a same-run reference.
 *
 * --real-inference: real work on real cores. The env's resets and steps
 * burn their jittered times as CPU (timing.burn), inference is a forward
 * of a 256,256 ReLU net of the env's input size on one BLAS thread (as
 * the peer's), and the same collection runs right after in a Python peer
 * written from the seed documents' description of DI-engine's subprocess
 * env manager (bench/collector_peer.py: envs in processes, shared memory,
 * one numpy policy), timed the same way: peer_s and ratio_to_peer = ours
 * / peer. cpu_floor_s is the CPU both must burn over the machine's
 * cores, so floor_to_peer is the best ratio_to_peer any collector could
 * print, and overhead_to_peer = (ours - floor) / (peer - floor) compares
 * what each adds on top of that shared work.
 * Its default time scale is 0.02 (a 100 us step, a 2 ms reset): at the
 * seed's full times both sides spend nearly all their time burning the
 * env's CPU and the ratio says little (docs/benchmarks.md).
 */
#include "bench/bench.h"
#include "cli/cli.h"
#include "collector/collector.h"
#include "learner/learner.h"

#include <pthread.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct workload {
	const char *name;
	uint64_t obs;
	double reset, step, infer;
	/* seed seconds [reset x1, x5][serial, sync, async]: nerveX, tianshou
	 * (0: not published) */
	double nx[2][3], ts[2][3];
};

/*
 * DI-engine v0.5.3 measured separately on this machine kind (its speed
 * test, ding/worker/collector/tests/speed_test: FakeEnv and FakePolicy,
 * 300 collects of 80 samples, one run each): seconds for sync and async,
 * by workload, reset multiplier and jitter. Constants, never a same-run
 * reference. 0: not measured.
 */
struct di_figure {
	const char *env;
	int reset_mult;
	double jitter;
	double sync_s, async_s;
};

static const struct di_figure di_engine[] = {
	{ "small", 1, 0.3, 34.65, 34.98 },
	{ "small", 1, 0.6, 38.32, 38.48 },
	{ "small", 5, 0.3, 37.42, 37.69 },
	{ "middle", 1, 0.3, 69.83, 74.81 },
	{ "middle", 5, 0.3, 83.21, 84.65 }, /* async: 84.3-85.0 */
};

/* The DI-engine figure for a row, scaled, or 0. */
static double di_engine_s(const char *name, int reset_mult, double jitter,
			  enum coll_mode mode, double scale)
{
	if (mode == COLL_SERIAL)
		return 0;
	for (size_t i = 0; i < LG_ARRAY_LEN(di_engine); i++) {
		const struct di_figure *d = &di_engine[i];
		if (!strcmp(d->env, name) && d->reset_mult == reset_mult &&
		    d->jitter > jitter - 1e-9 && d->jitter < jitter + 1e-9)
			return (mode == COLL_SYNC ? d->sync_s : d->async_s) *
			       scale;
	}
	return 0;
}

static const struct workload loads[] = {
	{ "small", 64, 0.1, 0.005, 0.004,
	  { { 157.70, 47.19, 47.60 }, { 176.55, 50.55, 50.71 } },
	  { { 0, 44.63, 49.54 }, { 0, 45.10, 55.11 } } },
	{ "middle", 300, 0.5, 0.01, 0.008,
	  { { 311.88, 82.73, 90.84 }, { 407.65, 94.18, 98.49 } },
	  { { 0, 88.70, 93.02 }, { 0, 112.27, 130.49 } } },
	{ "big", 3000, 2, 0.1, 0.02,
	  { { 2592.77, 467.50, 519.05 }, { 2976.80, 520.31, 555.15 } },
	  { { 0, 520.52, 545.07 }, { 0, 577.92, 703.49 } } },
};

struct bargs {
	const char *env, *mode;
	double scale, wait_timeout, jitter;
	uint64_t collects, samples, envs, wait_num, devices;
	int json, processes, real, no_peer;
};

/* The sink: count what a learner would take, drop it. */
struct sink_count {
	pthread_mutex_t mu;
	uint64_t segments, rows;
};

static int count_sink(void *ctx, const struct coll_segment *seg)
{
	struct sink_count *k = ctx;

	pthread_mutex_lock(&k->mu);
	k->segments++;
	k->rows += seg->rows->n;
	pthread_mutex_unlock(&k->mu);
	return 0;
}

/* --real-inference: a policy-value net of the workload's input size
 * (hidden 256,256, ReLU; the timing game has 2 actions), one forward per
 * batch through nn_act, with a workspace per concurrent call. */
#define REAL_MAX_CALLS 8
struct real_pol {
	nn *net;
	nn_ws *ws[REAL_MAX_CALLS];
	int busy[REAL_MAX_CALLS];
	pthread_mutex_t mu;
	double seconds;   /* in forwards, summed */
	uint64_t calls;
};

static int real_act(void *ctx, const float *obs, const uint8_t *mask,
		    size_t n, size_t obs_len, int na, lg_rng *rng,
		    int32_t *action, float *logp, float *value,
		    float *state)
{
	struct real_pol *rp = ctx;
	int k = 0, rc;

	pthread_mutex_lock(&rp->mu);
	while (k < REAL_MAX_CALLS - 1 && rp->busy[k])
		k++;
	rp->busy[k] = 1; /* max_calls keeps one free */
	pthread_mutex_unlock(&rp->mu);
	double t0 = lg_now_s();
	rc = nn_act(rp->net, rp->ws[k], obs, mask, n, rng, action, logp,
		    value);
	double dt = lg_now_s() - t0;
	pthread_mutex_lock(&rp->mu);
	rp->busy[k] = 0;
	rp->seconds += dt;
	rp->calls++;
	pthread_mutex_unlock(&rp->mu);
	return rc;
}

static int real_new(struct real_pol *rp, size_t obs, size_t envs)
{
	struct nn_shape sh = { .obs = (uint32_t)obs, .actions = 2,
			       .nhidden = 2, .hidden = { 256, 256 },
			       .act = NN_RELU };
	int rc;

	memset(rp, 0, sizeof *rp);
	pthread_mutex_init(&rp->mu, NULL);
	if ((rc = nn_new(&rp->net, &sh, 7)))
		return rc;
	for (int k = 0; k < REAL_MAX_CALLS; k++)
		if ((rc = nn_ws_new(&rp->ws[k], rp->net, envs)))
			return rc;
	return 0;
}

static void real_free(struct real_pol *rp)
{
	for (int k = 0; k < REAL_MAX_CALLS; k++)
		nn_ws_free(rp->ws[k]);
	nn_free(rp->net);
	pthread_mutex_destroy(&rp->mu);
}

/* bench/collector_peer.py: beside the binary's tree ($LEAGUE_SRC, the
 * executable's ../bench or ../../../bench, ./bench). 0 with path, or
 * LG_ENOTFOUND. */
static int peer_path(char *path, size_t len)
{
	static const char *const up[] = { "/..", "/../../.." };
	const char *src = getenv("LEAGUE_SRC");
	char dir[PATH_MAX];
	struct stat sb;
	ssize_t n;

	if (src && *src && (size_t)snprintf(path, len, "%s/bench/"
					    "collector_peer.py", src) < len &&
	    !stat(path, &sb))
		return 0;
	n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (n > 0) {
		dir[n] = 0;
		*strrchr(dir, '/') = 0;
		for (size_t k = 0; k < LG_ARRAY_LEN(up); k++)
			if ((size_t)snprintf(path, len, "%.*s%s/bench/"
					     "collector_peer.py", 3000, dir,
					     up[k]) < len &&
			    !stat(path, &sb))
				return 0;
	}
	snprintf(path, len, "bench/collector_peer.py");
	return stat(path, &sb) ? LG_ENOTFOUND : 0;
}

/* Run the Python peer on row w, rm: its seconds into *secs. */
static int run_peer(const struct bargs *a, const struct workload *w,
		    double rm, double *secs)
{
	char path[PATH_MAX], cmd[PATH_MAX + 512], line[1024] = "";
	const double f = a->scale;
	FILE *p;
	int rc;

	if (peer_path(path, sizeof path)) {
		fprintf(stderr, "league bench collector: bench/collector_peer.py "
			"not found (set LEAGUE_SRC to the source tree)\n");
		return CLI_FAIL;
	}
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s --envs %llu --obs %llu "
		 "--hidden 256,256 --step-s %.9g --reset-s %.9g "
		 "--episode-len 500 --jitter %.9g --collects %llu --samples "
		 "%llu --wait-num %llu --wait-timeout %.9g --segment-len 128 "
		 "--seed 1 --json", path, (unsigned long long)a->envs,
		 (unsigned long long)w->obs, w->step * f, w->reset * rm * f,
		 a->jitter, (unsigned long long)a->collects,
		 (unsigned long long)a->samples,
		 (unsigned long long)a->wait_num, a->wait_timeout * f);
	if (!(p = popen(cmd, "r")))
		return CLI_FAIL;
	while (fgets(line, sizeof line, p) && !strstr(line, "\"seconds\""))
		;
	rc = pclose(p);
	const char *q = strstr(line, "\"seconds\": ");
	if (rc || !q) {
		fprintf(stderr, "league bench collector: the Python peer failed "
			"(it needs Debian's python3-numpy: apt-get install "
			"python3-numpy): %s\n", cmd);
		return CLI_FAIL;
	}
	*secs = strtod(q + 11, NULL);
	return CLI_OK;
}

/* The lower bound with the nominal times (see the file comment). */
static double lower_bound(const struct bargs *a, const struct workload *w,
			  double rm, double infer, uint64_t resets)
{
	return ((double)(a->collects * a->samples) * (w->step + infer) +
		(double)resets * w->reset * rm) * a->scale / (double)a->envs;
}

/* With --real-inference, the least wall time any collector could take on
 * this machine: the CPU the envs burn (the steps and resets done, at
 * their nominal times, which the symmetric jitter keeps as the mean) plus
 * the forwards' measured time, spread over every online core. Both sides
 * burn the same, so floor / peer_s is the best ratio_to_peer possible. */
static double cpu_floor(const struct workload *w, double rm, double f,
			const struct coll_stats *st, double forward_s)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	double burn = ((double)st->steps * w->step +
		      (double)st->resets * w->reset * rm) * f;

	return (burn + forward_s) / (double)(cores > 0 ? cores : 1);
}

/* The collector of one row: options, policy, sink. */
static void row_opts(const struct bargs *a, const struct workload *w,
		     double rm, enum coll_mode mode, struct coll_opts *o)
{
	const double f = a->scale;

	coll_opts_default(o);
	o->game = "timing";
	o->env.seed = 20260101;
	o->env.timing.obs_len = w->obs;
	o->env.timing.reset_s = w->reset * rm * f;
	o->env.timing.step_s = w->step * f;
	o->env.timing.infer_s = a->real ? 0 : w->infer * f;
	o->env.timing.episode_len = 500;
	o->env.timing.jitter_lo = 1 - a->jitter;
	o->env.timing.jitter_hi = 1 + a->jitter;
	o->env.timing.burn = a->real;
	o->num_envs = (size_t)a->envs;
	o->mode = mode;
	o->wait_num = (size_t)a->wait_num;
	o->wait_timeout_s = a->wait_timeout * f;
	o->processes = a->processes;
	o->num_policies = 1;
	o->sink = count_sink;
}

/* What run_row measured of one row, and what it is compared with. */
struct row_figures {
	double secs, lb, nx, ts, best, di, peer, floor, infer;
	uint64_t segments, rows;
};

/* The best time the seed published for workload w (reset x5 when
 * rm_i) in any mode, times the time scale f. */
static double seed_best(const struct workload *w, int rm_i, double f)
{
	double best = w->nx[rm_i][0] * f;

	for (int k = 0; k < 3; k++) {
		if (w->nx[rm_i][k] > 0 && w->nx[rm_i][k] * f < best)
			best = w->nx[rm_i][k] * f;
		if (w->ts[rm_i][k] > 0 && w->ts[rm_i][k] * f < best)
			best = w->ts[rm_i][k] * f;
	}
	return best;
}

/* Print one row of figures r (and the collector's stats st): a JSON
 * object with --json, else a line of the table. */
static void print_row(const struct bargs *a, const struct workload *w,
		      double rm, enum coll_mode mode,
		      const struct row_figures *r, const struct coll_stats *st)
{
	const double f = a->scale;

	if (a->json) {
		printf("{\"env\":\"%s\",\"reset_mult\":%g,\"mode\":\"%s\","
		       "\"inference_devices\":%llu,\"real_inference\":%s,"
		       "\"jitter\":%g,\"time_scale\":%g,"
		       "\"seconds\":%.3f,\"lower_bound_s\":%.3f,"
		       "\"ratio\":%.4f,", w->name, rm, coll_mode_name(mode),
		       (unsigned long long)a->devices,
		       a->real ? "true" : "false", a->jitter, f, r->secs,
		       r->lb, r->secs / r->lb);
		if (r->di > 0)
			printf("\"di_engine_s\":%.3f,\"ratio_to_di_engine\":"
			       "%.4f,", r->di, r->secs / r->di);
		if (r->floor > 0)
			printf("\"cpu_floor_s\":%.3f,", r->floor);
		if (r->peer > 0)
			printf("\"peer_s\":%.3f,\"ratio_to_peer\":%.4f,"
			       "\"floor_to_peer\":%.4f,", r->peer,
			       r->secs / r->peer, r->floor / r->peer);
		/* What each collector adds to the CPU both must burn. */
		if (r->peer > r->floor && r->floor > 0)
			printf("\"overhead_to_peer\":%.4f,",
			       (r->secs - r->floor) / (r->peer - r->floor));
		printf("\"seed_best_s\":%.3f,\"seed_nx_s\":%.3f,"
		       "\"seed_ts_s\":%.3f,\"steps\":%llu,\"resets\":%llu,"
		       "\"forwards\":%llu,\"segments\":%llu,"
		       "\"transitions\":%llu,\"infer_s\":%.6f}\n",
		       r->best, r->nx, r->ts, (unsigned long long)st->steps,
		       (unsigned long long)st->resets,
		       (unsigned long long)st->forwards,
		       (unsigned long long)r->segments,
		       (unsigned long long)r->rows, r->infer * f);
	} else {
		char tsbuf[32] = "-", dibuf[32] = "-", pbuf[32] = "-";
		if (r->ts > 0)
			snprintf(tsbuf, sizeof tsbuf, "%.2f", r->ts);
		if (r->di > 0)
			snprintf(dibuf, sizeof dibuf, "%.2f", r->di);
		if (r->peer > 0)
			snprintf(pbuf, sizeof pbuf, "%.2f", r->peer);
		printf("%-7s x%-2g %-7s %10.2f %10.2f %7.3f %10s %10s %10.2f "
		       "%10s\n", w->name, rm, coll_mode_name(mode), r->secs,
		       r->lb, r->secs / r->lb, dibuf, pbuf, r->nx, tsbuf);
	}
}

static int run_row(const struct bargs *a, const struct workload *w,
		   int rm_i, enum coll_mode mode)
{
	const double rm = rm_i ? 5 : 1, f = a->scale;
	struct coll_sim sim = { w->infer * f, 1 - a->jitter, 1 + a->jitter };
	struct coll_policy pol = coll_policy_simulated(&sim);
	struct sink_count sk = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct real_pol rp;
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;
	char err[256];
	double t0, secs, lb, nx, ts, best, di, peer = 0, floor = 0;
	struct row_figures fig;
	int rc;

	row_opts(a, w, rm, mode, &o);
	pol.max_calls = (unsigned)a->devices;
	if (a->real) {
		if ((rc = real_new(&rp, w->obs, (size_t)a->envs))) {
			fprintf(stderr, "league bench collector: net: %s\n",
				lg_strerror(rc));
			real_free(&rp);
			return CLI_FAIL;
		}
		pol = (struct coll_policy){
			.act = real_act, .ctx = &rp,
			.max_calls = a->devices ? (unsigned)a->devices
						: REAL_MAX_CALLS - 1 };
	}
	o.policies = &pol;
	o.sink_ctx = &sk;

	t0 = lg_now_s();
	rc = coll_new(&c, &o, err, sizeof err);
	if (rc) {
		fprintf(stderr, "league bench collector: %s\n", err);
		if (a->real)
			real_free(&rp);
		return CLI_FAIL;
	}
	for (uint64_t k = 0; k < a->collects && !rc; k++)
		rc = coll_collect(c, a->samples, 0);
	secs = lg_now_s() - t0;
	coll_stats(c, &st);
	coll_free(c);
	double infer = w->infer;
	if (a->real) {
		/* The bound charges each transition one forward of a batch
		 * of one: the measured mean forward, at any batch size, is
		 * an upper estimate of that (so the bound stays a bound
		 * only approximately; the figure to read is the ratio). */
		infer = rp.calls ? rp.seconds / (double)rp.calls / f : 0;
		floor = cpu_floor(w, rm, f, &st, rp.seconds);
		real_free(&rp);
	}
	if (rc) {
		fprintf(stderr, "league bench collector: %s\n",
			lg_strerror(rc));
		return CLI_FAIL;
	}
	if (a->real && !a->no_peer && (rc = run_peer(a, w, rm, &peer)))
		return rc;
	lb = lower_bound(a, w, rm, infer, st.resets);
	nx = w->nx[rm_i][mode] * f;
	ts = w->ts[rm_i][mode] * f;
	/* DI-engine's figures are for the seed workload as it stands:
	 * simulated inference, 300 collects of 80. */
	di = a->real || a->collects != 300 || a->samples != 80 ||
			     a->envs != 8 || a->wait_num != 7
		     ? 0
		     : di_engine_s(w->name, (int)rm, a->jitter, mode, f);
	best = seed_best(w, rm_i, f);
	fig = (struct row_figures){ secs, lb, nx, ts, best, di, peer, floor,
				    infer, sk.segments, sk.rows };
	print_row(a, w, rm, mode, &fig, &st);
	fflush(stdout);
	return CLI_OK;
}

static int usage_help(void)
{
	printf("usage: league bench collector [--env small|middle|big] "
	       "[--mode serial|sync|async]\n"
	       "       [--devices N] [--jitter J] [--time-scale F] "
	       "[--collects N] [--samples N]\n"
	       "       [--wait-num N] [--wait-timeout S] [--processes]\n"
	       "       [--real-inference [--no-peer]] [--json]\n\n"
	       "The seed collector experiment: 8 timing envs, 300 collects "
	       "of 80 transitions,\nreset x1 and x5, trajectories built and "
	       "dropped by a sink; per row our time,\nthe lower bound\n"
	       "  (transitions x (step + infer) + resets x reset) / envs\n"
	       "(a bound for any number of inference devices), the ratio, "
	       "DI-engine's time\n(measured separately on this machine kind; "
	       "a constant) where known, and the\nseed's published nerveX / "
	       "tianshou times (nx-base for serial).\n"
	       "--devices N: forwards that may run at once (default 1, as "
	       "one policy on one\n  device; 0: any number).\n"
	       "--jitter J: times and episode lengths vary in [1-J, 1+J] x "
	       "nominal (0.6).\n"
	       "--time-scale multiplies every time (and the seed figures) by "
	       "F.\nAsync waits at most --wait-timeout x F (default 0.0002 "
	       "s) for wait_num envs.\n"
	       "--real-inference: envs burn their times as CPU, inference is "
	       "a forward of a\n  256,256 ReLU net, and the Python peer "
	       "(bench/collector_peer.py, python3-numpy)\n  collects the same "
	       "right after: peer_s, ratio_to_peer. Time scale 0.02 unless\n"
	       "  given.\n");
	return CLI_OK;
}

/* The flags of `league bench collector` (usage_help lists them). */
static const struct option collector_opts[] = {
	{ "env", required_argument, NULL, 'e' },
	{ "mode", required_argument, NULL, 'm' },
	{ "time-scale", required_argument, NULL, 's' },
	{ "collects", required_argument, NULL, 'c' },
	{ "samples", required_argument, NULL, 'n' },
	{ "wait-num", required_argument, NULL, 'w' },
	{ "wait-timeout", required_argument, NULL, 't' },
	{ "processes", no_argument, NULL, 'p' },
	{ "real-inference", no_argument, NULL, 'r' },
	{ "no-peer", no_argument, NULL, 'P' },
	{ "devices", required_argument, NULL, 'd' },
	{ "jitter", required_argument, NULL, 'J' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The flags of argv into a (its defaults set): CLI_OK, CLI_USAGE (said
 * why on stderr), or CLI_OK with *help set after --help printed the
 * usage. --real-inference scales times by 0.02 unless --time-scale. */
static int parse_args(int argc, char **argv, struct bargs *a, int *help)
{
	const char *cmd = "bench collector";
	unsigned long long v;
	int ch, scaled = 0;

	*help = 0;
	while ((ch = cli_getopt(argc, argv, cmd, "", collector_opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'e': a->env = optarg; break;
		case 'm': a->mode = optarg; break;
		case 's':
			if (cli_opt_double(cmd, "--time-scale", optarg, 1e-4,
					   100, &a->scale))
				return CLI_USAGE;
			scaled = 1;
			break;
		case 'd':
			if (cli_opt_u64(cmd, "--devices", optarg, 0,
					REAL_MAX_CALLS - 1, &v))
				return CLI_USAGE;
			a->devices = v;
			break;
		case 'J':
			if (cli_opt_double(cmd, "--jitter", optarg, 0, 0.99,
					   &a->jitter))
				return CLI_USAGE;
			break;
		case 'P': a->no_peer = 1; break;
		case 'c':
			if (cli_opt_u64(cmd, "--collects", optarg, 1, 1000000,
					&v))
				return CLI_USAGE;
			a->collects = v;
			break;
		case 'n':
			if (cli_opt_u64(cmd, "--samples", optarg, 1, 1000000,
					&v))
				return CLI_USAGE;
			a->samples = v;
			break;
		case 'w':
			if (cli_opt_u64(cmd, "--wait-num", optarg, 1, 8, &v))
				return CLI_USAGE;
			a->wait_num = v;
			break;
		case 't':
			if (cli_opt_double(cmd, "--wait-timeout", optarg, 0,
					   10, &a->wait_timeout))
				return CLI_USAGE;
			break;
		case 'p': a->processes = 1; break;
		case 'j': a->json = 1; break;
		case 'r': a->real = 1; break;
		case 'h':
			*help = 1;
			return usage_help();
		}
	}
	if (optind != argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
				       argv[optind]);
	if (a->real && !scaled)
		a->scale = 0.02;
	return CLI_OK;
}

int bench_collector(int argc, char **argv)
{
	const char *cmd = "bench collector";
	struct bargs a = { .scale = 1.0, .wait_timeout = 0.0002,
			   .jitter = 0.6, .collects = 300, .samples = 80,
			   .envs = 8, .wait_num = 7, .devices = 1 };
	enum coll_mode only_mode = COLL_SERIAL;
	int rc, help, worst = CLI_OK, found = 0;

	if ((rc = parse_args(argc, argv, &a, &help)) || help)
		return rc;
	if (a.real) {
		/* One inference device is one core, as the peer's (it sets
		 * OPENBLAS_NUM_THREADS=1 before numpy loads). Left at its
		 * default, OpenBLAS splits a forward of 5 rows or more over
		 * its pool, whose threads then spin in sched_yield on the
		 * cores the envs burn (a fifth of a run's samples). The pool
		 * is made when the library loads, before main, and its
		 * threads spin about 2^28 cycles before they sleep even with
		 * one thread set: let them settle before the first row. */
		nn_set_threads(1);
		lg_sleep_s(0.3);
	}
	if (a.mode && coll_mode_parse(a.mode, &only_mode))
		return cli_usage_error(cmd, "--mode: expected serial, sync "
				       "or async, got '%s'", a.mode);
	for (size_t i = 0; i < LG_ARRAY_LEN(loads); i++)
		if (!a.env || !strcmp(a.env, loads[i].name))
			found = 1;
	if (!found)
		return cli_usage_error(cmd, "--env: expected small, middle or "
				       "big, got '%s'", a.env);
	if (!a.json)
		printf("%-7s %-3s %-7s %10s %10s %7s %10s %10s %10s %10s\n",
		       "env", "rst", "mode", "seconds", "bound_s", "ratio",
		       "di_engine", "peer_s", "seed_nx", "seed_ts");
	for (size_t i = 0; i < LG_ARRAY_LEN(loads); i++) {
		if (a.env && strcmp(a.env, loads[i].name))
			continue;
		for (int rm = 0; rm < 2; rm++)
			for (int m = COLL_SERIAL; m <= COLL_ASYNC; m++) {
				if (a.mode && m != (int)only_mode)
					continue;
				rc = run_row(&a, &loads[i], rm,
					     (enum coll_mode)m);
				if (rc > worst)
					worst = rc;
			}
	}
	return worst;
}
