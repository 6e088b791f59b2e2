/*
 * workers/collect.c: the collector worker (`league collect`).
 *
 * One env manager (collector/) runs all its envs for the life of the
 * worker; jobs feed it episode by episode (collect_jobs.c), so several
 * jobs with different players play at once. Networks live in net slots
 * (collect_slots.c).
 *
 * Loop of the main thread: drive the envs for a few milliseconds
 * (coll_collect), report finished jobs (JobResult, acknowledged after the
 * daemon's commit), and ask for more jobs while fewer than enough to keep
 * every env busy are open. Trajectories of learning seats go straight to
 * the learner's endpoint from the env threads (the sink), blocking on the
 * learner's credit: backpressure, never a silent drop. A segment the
 * learner cannot take (it is gone) is counted and logged.
 *
 * Liveness (workers/traj_out.c): a learner that says nothing for
 * NET_SILENT_HEARTBEATS of the daemon's heartbeat periods while a segment
 * waits for it is given up, its rows dropped and counted undeliverable,
 * and the jobs keep playing: one stopped learner costs every other
 * learner's rows at most that long, and its own player's rows until the
 * daemon names it in a job again (it registered again).
 *
 * After a reconnect (daemon restart) the open jobs are abandoned: the
 * daemon re-issued them, so their results would be stale.
 *
 * league.deterministic: one job at a time, on an env manager of its own
 * (collect_det.c).
 */
#include "workers/workers_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int do_register(struct collect *W)
{
	League__Register rg = LEAGUE__REGISTER__INIT;

	rg.envs = (uint32_t)W->envs;
	rg.max_jobs = COLLECT_MAX_OPEN_JOBS;
	/* The config only the first time: the envs run on it. */
	int rc = worker_register(W->cl, "collect", &rg,
				 W->have_cfg ? NULL : &W->cfg);
	if (!rc)
		W->have_cfg = 1;
	return rc;
}

/* Reconnect after the daemon went away: jobs in hand are stale now. */
static int reconnect(void *ctx)
{
	struct collect *W = ctx;
	int rc;

	pthread_mutex_lock(&W->mu);
	for (int i = 0; i < W->njobs; i++)
		W->jobs[i]->abandoned = 1;
	pthread_mutex_unlock(&W->mu);
	if ((rc = worker_redial(W->cl, "collect")))
		return rc;
	LG_INFO("collect: reconnected; open jobs abandoned");
	return do_register(W);
}

int worker_engine_start(struct collect *W, const struct cjob *j,
			uint64_t seed)
{
	struct coll_opts o = W->opts;
	char err[512];
	int rc;

	o.env.seed = seed;
	if (j) {
		/* one policy per seat (seat_policy); a baseline's is never
		 * called */
		for (int p = 0; p < (int)j->msg->n_seats; p++) {
			int k = j->net[p] < 0 ? 0 : j->net[p];
			W->det_pols[p] =
				W->pols[(j->greedy[p] ? COLLECT_NET_SLOTS : 0) +
					k];
		}
		o.policies = W->det_pols;
		o.num_policies = j->msg->n_seats;
	}
	if ((rc = coll_new(&W->c, &o, err, sizeof err))) {
		LG_ERROR("collect: %s", err);
		return rc;
	}
	return 0;
}

/* The game of the league's config: its spec (its players are the seats
 * of every job, take_job) and the network shape. */
static int game_of(struct collect *W, const struct coll_opts *o)
{
	char err[512];
	env *e;
	int rc;

	if ((rc = env_new(&e, o->game, &o->env, err, sizeof err))) {
		LG_ERROR("collect: game %s: %s", W->cfg.env.name, err);
		return rc;
	}
	W->spec = *env_spec_of(e);
	env_free(e);
	league_nn_shape(&W->cfg, &W->spec, &W->shape);
	return 0;
}

/* The env manager's options from the league's config (W->opts), and the
 * manager itself outside deterministic mode. */
static int setup_envs(struct collect *W)
{
	struct coll_opts o;
	char err[512];
	int rc;

	league_coll_opts(&W->cfg, W->envs, &o);
	if ((rc = game_of(W, &o)))
		return rc;
	/* The search's forwards run in every env thread at once:
	 * BLAS threads of their own would only contend for the cores (as in
	 * `league eval search`). */
	if (o.search.sims)
		nn_set_threads(1);
	worker_slots_policies(W, o.search.batch ? o.search.batch : 1);
	o.policies = W->pols;
	o.num_policies = COLL_NETS_MAX;
	if (cfg_all_baselines(&W->cfg, W->base, &W->nbase, err, sizeof err)) {
		LG_ERROR("collect: baselines: %s", err);
		return LG_ECONFIG;
	}
	for (size_t i = 0; i < W->nbase; i++)
		W->basep[i] = W->base[i];
	o.baselines = W->basep;
	o.num_baselines = W->nbase;
	worker_jobs_hook(W, &o);
	W->opts = o;
	/* Different collectors play different episodes; deterministic: the
	 * job's seed, when it comes. */
	if (!W->det &&
	    (rc = worker_engine_start(W, NULL,
				      W->cfg.league.seed ^
					      (uint64_t)getpid() << 20 ^
					      (uint64_t)(lg_now_s() * 1e6))))
		return rc;
	LG_INFO("collect: %zu envs of %s (%s mode)%s", o.num_envs, o.game,
		coll_mode_name(o.mode), W->det ? ", deterministic: an env "
		"manager per job, seeded by it" : "");
	return 0;
}

/* The counter line, every log_every seconds; since: the last one. */
static void log_counters(struct collect *W, double now, double since,
			 uint64_t *last_steps)
{
	struct coll_stats st;

	coll_stats(W->c, &st);
	/* `league bench pipeline` reads the totals at the end of this
	 * line: keep their wording. */
	LG_INFO("collect: %.0f steps/s, %llu episodes, %llu jobs (%llu "
		"stale), %llu net fetches, %llu transitions undeliverable; "
		"time in envs %.0f%%, reporting %.0f%%, requesting %.0f%%; "
		"totals: %llu steps, %llu rows",
		(double)(st.steps - *last_steps) / (now - since),
		(unsigned long long)W->episodes,
		(unsigned long long)W->jobs_done,
		(unsigned long long)W->jobs_stale,
		(unsigned long long)W->fetches,
		(unsigned long long)W->undeliverable,
		100 * W->t_envs / (now - since),
		100 * W->t_report / (now - since),
		100 * W->t_request / (now - since),
		(unsigned long long)st.steps,
		(unsigned long long)st.transitions);
	W->t_envs = W->t_report = W->t_request = 0;
	*last_steps = st.steps;
}

/* One turn's work: the envs driven for a few milliseconds (or the
 * deterministic job's engine made), then finished jobs reported, with
 * what the report said (0 or a call's error) in *reported. 0, or the
 * env manager's error (logged): the worker stops. */
static int drive(struct collect *W, int *reported)
{
	double t0 = lg_now_s();
	int rc = 0;

	if (W->det && !W->c && (rc = worker_det_engine(W)))
		return rc;
	if (W->c)
		rc = coll_collect(W->c, 1u << 20, 0.005);
	else
		usleep(1000);
	if (rc && rc != LG_ETIMEOUT) {
		LG_ERROR("collect: env manager: %s", lg_strerror(rc));
		return rc;
	}
	double t1 = lg_now_s();
	*reported = worker_jobs_report(W);
	double t2 = lg_now_s();
	W->t_envs += t1 - t0;
	W->t_report += t2 - t1;
	return 0;
}

/* Keep a job's worth of episodes waiting beyond what the envs play, so
 * no env idles between jobs (deterministic: one job at a time). 0 (or
 * *idle_until set when the daemon had nothing), or a call's error. */
static int refill(struct collect *W, double now, double *idle_until)
{
	if (now < *idle_until ||
	    !(W->det ? !worker_jobs_open(W)
		     : worker_jobs_backlog(W) < W->envs &&
			       worker_jobs_open(W) <
				       COLLECT_MAX_OPEN_JOBS / 2))
		return 0;
	int got = worker_jobs_request(W, W->det ? 1 : 2);
	if (got == 0)
		*idle_until = now + 0.05; /* nothing to do */
	W->t_request += lg_now_s() - now;
	return got < 0 ? got : 0;
}

/* worker_loop's step: the envs driven, finished jobs reported, more
 * asked for, the counter line when due. 0, WORKER_BROKEN, or an error
 * (the env manager's, or a call's other than a break). */
static int collect_step(void *ctx)
{
	struct collect *W = ctx;
	int rc, fatal;

	if ((fatal = drive(W, &rc)))
		return fatal;
	double now = lg_now_s();
	if (!rc)
		rc = refill(W, now, &W->idle_until);
	if (rc == LG_ECLOSED || rc == LG_ETIMEOUT)
		return WORKER_BROKEN;
	if (rc)
		return rc;
	if (now - W->last_log >= W->log_every && W->c) {
		log_counters(W, now, W->last_log, &W->last_steps);
		W->last_log = now;
	}
	return 0;
}

/* Registered, the league's config says how many envs and whether
 * deterministic; then the env manager's options (and manager). */
static int configure(struct collect *W, uint64_t envs)
{
	int rc;

	W->envs = 8;
	if ((rc = do_register(W)))
		return rc;
	W->envs = envs ? envs : W->cfg.collectors.envs;
	W->det = W->cfg.league.deterministic;
	if (W->det && W->envs != 1) {
		LG_WARN("collect: league.deterministic plays one env; "
			"--envs %llu not used", (unsigned long long)W->envs);
		W->envs = 1;
	}
	return setup_envs(W);
}

/* The end: the manager's last segments flushed (dropped when the
 * daemon's Shutdown stopped the learners too), the totals logged,
 * everything freed. */
static void collect_stop(struct collect *W)
{
	if (W->cl && net_client_shutdown_requested(W->cl))
		__atomic_store_n(&W->stopping, 1, __ATOMIC_RELEASE);
	coll_free(W->c);
	LG_INFO("collect: stops: %llu jobs, %llu episodes, %llu stale, %llu "
		"transitions undeliverable, %llu dropped at the stop",
		(unsigned long long)W->jobs_done,
		(unsigned long long)W->episodes,
		(unsigned long long)W->jobs_stale,
		(unsigned long long)W->undeliverable,
		(unsigned long long)W->dropped);
	for (int i = 0; i < W->njobs; i++)
		worker_job_free(W->jobs[i]);
	for (int k = 0; k < COLLECT_NET_SLOTS; k++)
		worker_slot_clear(&W->slots[k]);
	worker_traj_out_close(&W->out);
	net_client_close(W->cl);
	net_tls_free(W->tls);
}

int worker_collect(const struct worker_collect_opts *opt)
{
	static struct collect W;
	int rc;

	memset(&W, 0, sizeof W);
	W.token = getenv("LEAGUE_TOKEN");
	W.log_every = opt->log_every;
	W.drop = opt->drop;
	if ((rc = worker_start("league collect", opt->name, "collector",
			       (long)getpid(), W.name, sizeof W.name, &W.tls,
			       NULL, 0)))
		return rc;
	worker_fatal_signals();
	pthread_mutex_init(&W.mu, NULL);
	if ((rc = worker_connect("league collect", opt->host, opt->port, W.tls,
				 LEAGUE__ROLE__ROLE_COLLECTOR, W.name, &W.cl))) {
		net_tls_free(W.tls);
		return rc;
	}
	W.out = (struct worker_traj_out){
		.token = W.token, .name = W.name, .tls = W.tls,
		.silent_s = NET_SILENT_HEARTBEATS *
			    net_client_heartbeat_s(W.cl),
		.undeliverable = &W.undeliverable,
	};
	if (!(rc = configure(&W, opt->envs))) {
		W.last_log = lg_now_s();
		rc = worker_loop(W.cl, collect_step, reconnect, &W);
	}
	collect_stop(&W);
	return rc == LG_ECONFIG || rc == LG_EUNSUPP ? WORKER_EXIT_USAGE
	       : rc				    ? WORKER_EXIT_FAIL
						    : WORKER_EXIT_OK;
}
