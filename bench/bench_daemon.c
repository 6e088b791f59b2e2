/*
 * bench/bench_daemon.c: `league bench daemon`, jobs per second and job
 * round trips through the real daemon over loopback, beside a raw
 * request/response ping-pong measured in the same run.
 *
 * The league: the config below (3 learners: main, main exploiter, league
 * exploiter; --episodes per job, 64 like configs/default.yaml) grown to
 * --players players and snapshots by the simulated league, with a
 * parameter blob for every (player, version) a job can name
 * (bench/bench_daemon_league.c). The daemon then opens it with resume, in
 * this process on its own thread and event base.
 *
 * Workers: one simulated learner per learning player and --collectors
 * simulated collectors on --threads client threads, each playing one job
 * at a time and timing it from its JobRequest to its Ack
 * (bench/bench_daemon_drive.c).
 *
 * Reference: an echo server answering the same client code with the
 * daemon's own Jobs and Ack frames, so only the daemon's work differs
 * (bench/bench_daemon_drive.c). ratio = jobs_per_s / pingpong_per_s.
 *
 * Phases, each --seconds after a short warm-up: the daemon with fsync per
 * commit (its default), the ping-pong, the daemon with STORE_NOSYNC.
 * This file is the command: options, the phases in that order, the report.
 */
#include "bench/bench.h"
#include "bench/bench_daemon.h"
#include "cli/cli.h"
#include "conf/config.h"
#include "net/net.h"
#include "storage/storage.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The league's config; %llu is --episodes. */
static const char bd_config[] =
	"league:\n  name: bench\n  seed: 1\n"
	"env:\n  name: rps\n"
	"players:\n  main: 1\n  main_exploiter: 1\n  league_exploiter: 1\n"
	"snapshot:\n  steps: 20000\n"
	"matchmaking:\n  job_episodes: %llu\n  job_lease_s: 60\n"
	"server:\n  heartbeat_s: 5\n"
	"budget:\n  seconds: 1e8\n";

/* ---- report ------------------------------------------------------------ */

static void report(const struct bargs *a, const struct league_setup *L,
		   const char *mode, const struct figures *d,
		   const struct figures *p, const struct figures *t)
{
	double ratio = p->per_s > 0 ? d->per_s / p->per_s : 0;
	double tls_ratio = t && d->per_s > 0 ? t->per_s / d->per_s : 0;

	if (a->json) {
		printf("{\"bench\":\"daemon\",\"store\":\"%s\",\"players\":%u,"
		       "\"learners\":%u,\"collectors\":%llu,\"threads\":%llu,"
		       "\"episodes\":%llu,\"seconds\":%g,\"jobs\":%llu,"
		       "\"jobs_per_s\":%.1f,"
		       "\"p50_us\":%.1f,\"p99_us\":%.1f,"
		       "\"pingpong_per_s\":%.1f,\"pingpong_p50_us\":%.1f,"
		       "\"pingpong_p99_us\":%.1f,\"ratio\":%.4f,"
		       "\"daemon_cpu_us_per_job\":%.1f,"
		       "\"echo_cpu_us_per_job\":%.1f,"
		       "\"empty_replies\":%llu,\"stale_acks\":%llu",
		       mode, L->count, L->nlearners,
		       (unsigned long long)a->collectors,
		       (unsigned long long)a->threads,
		       (unsigned long long)a->episodes, a->seconds,
		       (unsigned long long)d->jobs, d->per_s, d->p50, d->p99,
		       p->per_s, p->p50, p->p99, ratio, d->server_cpu_us,
		       p->server_cpu_us, (unsigned long long)d->empty,
		       (unsigned long long)d->stale);
		if (t)
			printf(",\"tls\":\"mutual\",\"tls_jobs_per_s\":%.1f,"
			       "\"tls_p50_us\":%.1f,\"tls_p99_us\":%.1f,"
			       "\"tls_daemon_cpu_us_per_job\":%.1f,"
			       "\"tls_ratio\":%.4f", t->per_s, t->p50, t->p99,
			       t->server_cpu_us, tls_ratio);
		printf("}\n");
	} else {
		printf("%-15s %10.1f %10.1f %10.1f %10.1f %8llu %8llu\n",
		       mode, d->per_s, d->p50, d->p99, d->server_cpu_us,
		       (unsigned long long)d->empty,
		       (unsigned long long)d->stale);
		printf("%-15s %10.4f   (jobs_per_s / pingpong_per_s)\n",
		       "  ratio", ratio);
		if (t)
			printf("%-15s %10.4f   (TLS jobs_per_s / plain "
			       "jobs_per_s)\n", "  tls_ratio", tls_ratio);
	}
	fflush(stdout);
}

/* Remove the benchmark's league directory (flat: the store's files, the
 * lock file, the ports file). */
static void rm_league(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* --tls: a test CA and two certificates in DIR/tls, the league's config
 * with mutual TLS on, and the workers' client context. */
static int tls_setup(struct league_setup *L, struct cfg *tc, const char *dir,
		     char *err, size_t errlen)
{
	const char *names[] = { "daemon", "worker" },
		   *hosts[] = { "localhost", "127.0.0.1" };
	char tdir[200], cert[320], key[320], ca[320];
	int rc;

	snprintf(tdir, sizeof tdir, "%.190s/tls", dir);
	if ((rc = net_tls_init_dir(tdir, names, 2, names, 1, hosts, 2, -60,
				   86400, 0, err, errlen)))
		return rc;
	*tc = *L->cfg;
	snprintf(tc->server.tls.cert, sizeof tc->server.tls.cert,
		 "%s/daemon.pem", tdir);
	snprintf(tc->server.tls.key, sizeof tc->server.tls.key,
		 "%s/daemon.key", tdir);
	snprintf(tc->server.tls.ca, sizeof tc->server.tls.ca, "%s/ca.pem",
		 tdir);
	tc->server.tls.verify_peers = 1;
	snprintf(cert, sizeof cert, "%s/worker.pem", tdir);
	snprintf(key, sizeof key, "%s/worker.key", tdir);
	snprintf(ca, sizeof ca, "%s/ca.pem", tdir);
	struct net_tls_opts o = { cert, key, ca, 0 };
	if ((rc = net_tls_new(&L->tls_client, &o, 0, NULL, err, errlen)))
		return rc;
	L->tls_cfg = tc;
	return 0;
}

static void rm_tls(const char *dir)
{
	char tdir[300];

	snprintf(tdir, sizeof tdir, "%s/tls", dir);
	rm_league(tdir);
}

static int usage_help(void)
{
	printf("usage: league bench daemon [--collectors N] [--players N] "
	       "[--seconds S]\n"
	       "       [--threads N] [--episodes N] "
	       "[--store both|fsync|nosync] [--json]\n\n"
	       "Jobs per second and p50/p99 job round trip (JobRequest to "
	       "Ack) through the real\ndaemon over loopback, beside a raw "
	       "ping-pong of the same frames against a\ntrivial echo server "
	       "in the same run; ratio = jobs_per_s / pingpong_per_s.\n"
	       "The league (3 learners) is grown to --players players and "
	       "snapshots by the\nsimulated league (`league sim`), with a "
	       "%u-byte parameter blob for every version a\njob can name; "
	       "one simulated learner per learning player registers and puts\n"
	       "parameters. The daemon runs in this process on its own thread; "
	       "collectors are\nnon-blocking sockets on --threads client "
	       "threads.\n\n"
	       "  --collectors N  simulated collectors (64)\n"
	       "  --players N     players and snapshots (1000)\n"
	       "  --seconds S     measured seconds per phase (5)\n"
	       "  --threads N     client threads driving the collectors (1)\n"
	       "  --episodes N    episodes per job (64, as "
	       "configs/default.yaml)\n"
	       "  --store MODE    fsync (the daemon's default), nosync "
	       "(STORE_NOSYNC), both\n"
	       "  --tls           each store mode again over mutual TLS (a "
	       "test CA made in\n"
	       "                  the league's directory): tls_jobs_per_s, "
	       "tls_ratio = TLS\n"
	       "                  jobs_per_s / plain jobs_per_s, same run\n"
	       "  --json          one object per store mode\n",
	       BD_BLOB_BYTES);
	return CLI_OK;
}

/*
 * Read the command line into *a (defaults already there) and the store
 * modes to run, in order, into modes[0..*nmodes). CLI_OK; CLI_USAGE with
 * the message printed; with --help, the help printed, *help set and
 * CLI_OK. --threads is cut to --collectors (a thread needs a collector).
 */
static int parse_args(int argc, char **argv, struct bargs *a, int modes[2],
		      int *nmodes, int *help)
{
	static const struct option opts[] = {
		{ "collectors", required_argument, NULL, 'c' },
		{ "players", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "episodes", required_argument, NULL, 'e' },
		{ "store", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "tls", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "bench daemon";
	unsigned long long v;
	int ch;

	*help = 0;
	*nmodes = 0;
	while ((ch = cli_getopt(argc, argv, cmd, "", opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'c':
		case 'p':
		case 't':
			if (cli_opt_u64(cmd, ch == 'c'	 ? "--collectors"
					     : ch == 'p' ? "--players"
							 : "--threads",
					optarg, 1,
					ch == 'c'   ? BD_MAX_COLLECTORS
					: ch == 'p' ? BD_MAX_PLAYERS
						    : BD_MAX_THREADS,
					&v))
				return CLI_USAGE;
			if (ch == 'c')
				a->collectors = v;
			else if (ch == 'p')
				a->players = v;
			else
				a->threads = v;
			break;
		case 'e':
			if (cli_opt_u64(cmd, "--episodes", optarg, 1,
					BD_MAX_EPISODES, &v))
				return CLI_USAGE;
			a->episodes = v;
			break;
		case 's':
			if (cli_opt_double(cmd, "--seconds", optarg, 0.05, 3600,
					   &a->seconds))
				return CLI_USAGE;
			break;
		case 'S': a->store = optarg; break;
		case 'j': a->json = 1; break;
		case 'T': a->tls = 1; break;
		case 'h':
			*help = 1;
			return usage_help();
		}
	}
	if (optind != argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
				       argv[optind]);
	if (!strcmp(a->store, "both") || !strcmp(a->store, "fsync"))
		modes[(*nmodes)++] = 0;
	if (!strcmp(a->store, "both") || !strcmp(a->store, "nosync"))
		modes[(*nmodes)++] = STORE_NOSYNC;
	if (!*nmodes)
		return cli_usage_error(cmd, "--store: expected both, fsync or "
				       "nosync, got '%s'", a->store);
	if (a->threads > a->collectors)
		a->threads = a->collectors;
	return CLI_OK;
}

/* The daemon phases, one per store mode in modes[0..nmodes), each then
 * over TLS with --tls (into fs[i], ts[i]), and the echo server's
 * pingpong (into *pp) after the first; their text rows unless --json.
 * 0, or the first phase's error (err says why). */
static int run_phases(const struct bargs *a, const struct league_setup *L,
		      const int *modes, int nmodes, struct figures *fs,
		      struct figures *ts, struct figures *pp, char *err,
		      size_t errlen)
{
	lg_buf cap_jobs = { 0 }, cap_ack = { 0 };
	int rc = 0;

	for (int i = 0; i < nmodes; i++) {
		if ((rc = bench_daemon_phase(a, L, (unsigned)modes[i], 0,
					     &fs[i], i ? NULL : &cap_jobs,
					     i ? NULL : &cap_ack, err,
					     errlen)))
			goto out;
		/* The same phase over TLS right after, so the two see the
		 * same machine as nearly as a shared one allows. */
		if (a->tls &&
		    (rc = bench_daemon_phase(a, L, (unsigned)modes[i], 1,
					     &ts[i], NULL, NULL, err,
					     errlen)))
			goto out;
		if (a->tls && !a->json)
			printf("%-15s %10.1f %10.1f %10.1f %10.1f %8llu %8llu\n",
			       modes[i] ? "nosync+tls" : "fsync+tls",
			       ts[i].per_s, ts[i].p50, ts[i].p99,
			       ts[i].server_cpu_us,
			       (unsigned long long)ts[i].empty,
			       (unsigned long long)ts[i].stale);
		if (i == 0) {
			/* The reference, between the daemon phases. */
			if ((rc = bench_daemon_pingpong(a, &cap_jobs,
							&cap_ack, pp, err,
							errlen)))
				goto out;
			if (!a->json)
				printf("%-15s %10.1f %10.1f %10.1f %10.1f   "
				       "(echo server, same frames)\n",
				       "pingpong", pp->per_s, pp->p50, pp->p99,
				       pp->server_cpu_us);
		}
	}
out:
	lg_buf_free(&cap_jobs);
	lg_buf_free(&cap_ack);
	return rc;
}

int bench_daemon(int argc, char **argv)
{
	struct bargs a = { 64, 1000, 1, 64, 5.0, "both", 0, 0 };
	char cfgtext[sizeof bd_config + 32];
	static struct cfg c;
	struct league_setup L;
	struct figures fs[2], ts[2], pp;
	static struct cfg tc;
	char dir[256], err[1024] = "";
	const char *tmp = getenv("TMPDIR");
	int rc, modes[2], nmodes = 0, help;
	enum lg_log_level lvl = lg_log_get_level();

	if ((rc = parse_args(argc, argv, &a, modes, &nmodes, &help)) || help)
		return rc;
	snprintf(cfgtext, sizeof cfgtext, bd_config,
		 (unsigned long long)a.episodes);
	if (cfg_load_string(&c, cfgtext, strlen(cfgtext), "bench daemon", err,
			    sizeof err)) {
		fprintf(stderr, "league bench daemon: %s\n", err);
		return CLI_FAIL;
	}
	snprintf(dir, sizeof dir, "%s/league-bench-daemon-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "league bench daemon: %s: %s\n", dir,
			strerror(errno));
		return CLI_FAIL;
	}
	memset(&L, 0, sizeof L);
	L.cfg = &c;
	L.dir = dir;
	snprintf(L.ports, sizeof L.ports, "%s/ports", dir);
	signal(SIGPIPE, SIG_IGN);
	/* The daemon's per-connection info lines would drown the figures. */
	if (lvl > LG_LOG_WARN)
		lg_log_set_level(LG_LOG_WARN);

	double t0 = lg_now_s();
	if ((rc = bench_daemon_build_league(&c, dir, a.players, L.learners,
					    &L.nlearners, &L.count, err,
					    sizeof err)))
		goto out;
	if (a.tls && (rc = tls_setup(&L, &tc, dir, err, sizeof err)))
		goto out;
	if (!a.json) {
		printf("league: %u players and snapshots (%u learners; "
		       "snapshots grown by the simulated league in %.1f s), "
		       "%u-byte parameter blobs\n"
		       "%llu collectors on %llu client thread(s), %llu "
		       "episodes per job, %g s per phase, league in %s\n",
		       L.count, L.nlearners, lg_now_s() - t0, BD_BLOB_BYTES,
		       (unsigned long long)a.collectors,
		       (unsigned long long)a.threads,
		       (unsigned long long)a.episodes, a.seconds, dir);
		printf("%-15s %10s %10s %10s %10s %8s %8s\n", "phase",
		       "jobs/s", "p50_us", "p99_us", "cpu_us/job", "empty",
		       "stale");
		fflush(stdout);
	}
	if ((rc = run_phases(&a, &L, modes, nmodes, fs, ts, &pp, err,
			     sizeof err)))
		goto out;
	for (int i = 0; i < nmodes; i++)
		report(&a, &L, modes[i] ? "nosync" : "fsync", &fs[i], &pp,
		       a.tls ? &ts[i] : NULL);
out:
	lg_log_set_level(lvl);
	if (rc)
		fprintf(stderr, "league bench daemon: %s\n",
			err[0] ? err : lg_strerror(rc));
	net_tls_free(L.tls_client);
	rm_tls(dir);
	rm_league(dir);
	return rc ? CLI_FAIL : CLI_OK;
}
