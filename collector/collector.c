/*
 * collector/collector.c: the env manager (workers, batching leaders, the
 * watchdog), trajectory building and the child-process env host. The
 * model is described in collector.h; the invariants that matter:
 *
 *   - c->mu guards every slot's state fields, the ready rows of each
 *     network group and the counters. Trajectory buffers of a slot are
 *     touched only by the slot's current worker (or by coll_stop after
 *     every worker is joined); sink and result calls hold c->sink_mu only.
 *   - A slot is in one state: RESET (its worker creates/resets the env),
 *     READY (rows posted, waiting for actions), CMD/STEP/POST (actions
 *     assigned, env stepping, result being processed), DEAD, or EXIT.
 *     busy_steps counts slots in CMD/STEP/POST: sync mode waits for it
 *     to reach 0.
 *   - A worker whose env call passes its deadline (thread mode) is
 *     abandoned: the slot's generation moves on and a new worker takes
 *     the slot; the old thread, once its call returns, sees the
 *     generation changed and exits touching only its own env.
 *   - Baseline seats never reach the slot: every op ends with auto-play
 *     (the baselines move until a network must act or the episode is
 *     over) in whoever hosts the env, so a reply always describes a
 *     state where only network seats act, and acting/batching never see
 *     a baseline seat. The cmd carries each seat's baseline, so the
 *     child needs no other copy of the match.
 */
#include "collector/collector.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum slot_state { ST_RESET, ST_READY, ST_CMD, ST_STEP, ST_POST, ST_DEAD,
		  ST_EXIT };
enum op { OP_CREATE = 1, OP_RESET, OP_STEP };

struct traj {
	uint32_t count;
	uint64_t episode; /* the env's episode of the first row */
	float *obs;
	uint8_t *masks, *dones;
	int32_t *actions;
	float *logp, *values, *rewards;
};

struct worker;

/* An env and the fixed players acting in it, owned by whoever hosts the
 * env: a worker (threads, serial) or the child. Baselines are not
 * thread-safe (minimax memoises), hence one set per env. */
struct host {
	env *e;
	env_baseline *base[COLL_BASELINES_MAX]; /* by index, made on use */
	lg_rng rng; /* the baselines', reseeded by every create/reset */
};

struct slot {
	size_t idx;
	struct worker *w;
	unsigned gen;
	int state;
	double deadline;    /* thread mode watchdog, RESET and STEP */
	double ready_at;
	int nacting, pending;
	int acting[ENV_MAX_PLAYERS];
	uint8_t waiting[ENV_MAX_PLAYERS]; /* seat's row not yet answered */
	int32_t act[ENV_MAX_PLAYERS];
	float logp[ENV_MAX_PLAYERS], value[ENV_MAX_PLAYERS];
	float *obs;         /* [players][obs_len] */
	uint8_t *mask;      /* [players][num_actions] */
	int abnormal_pending; /* a new worker must end the episode first */
	int cause;
	int next_op;        /* serial mode: the op a RESET slot needs */
	/* The episode's match and tag, set by the slot's worker before each
	 * episode (next_episode) and read by it and by post_ready. */
	struct coll_match match;
	uint64_t tag;

	/* Owned by the current worker. */
	uint64_t episode, ep_steps, seg_seq;
	uint32_t retries;
	double ret[ENV_MAX_PLAYERS];
	struct traj tr[ENV_MAX_PLAYERS];
	/* A finished episode whose rows are still buffered: its result
	 * waits until they went to the sink or the slot has its next
	 * episode of the same job, so a consumer never sees a job end
	 * before its rows (result_flush) */
	struct coll_episode held;
	int holding;
	pid_t pid;
	int fd;
};

struct rowref {
	uint32_t slot;
	int seat;
};

struct group {
	struct coll_policy pol;
	struct rowref *rows;
	size_t n;
	int leader;
	unsigned calls;
	pthread_cond_t cv;
};

struct worker {
	struct coll *c;
	struct slot *s;
	unsigned gen;
	pthread_t th;
	int started;
	struct host h;
	lg_rng rng;
	float *bobs;
	uint8_t *bmask;
	int32_t *bact;
	float *blogp, *bval;
	struct rowref *brows;
	int leading;         /* group this worker leads now, or -1 */
	struct worker *next; /* zombie list */
};

struct coll {
	struct coll_opts o;
	char game[ENV_NAME_MAX];
	struct env_spec spec;
	size_t n, rows_max;
	struct slot *slots;
	struct group groups[COLL_NETS_MAX];
	struct coll_policy pols[COLL_NETS_MAX];
	char bspec[COLL_BASELINES_MAX][COLL_BASELINE_SPEC_MAX];
	const char *bspecs[COLL_BASELINES_MAX]; /* o.baselines points here */

	pthread_mutex_t mu, sink_mu;
	pthread_cond_t cv_work, cv_caller;
	int threads_up; /* mutex/conds initialised */
	int stop, stopped, collecting, fatal;
	uint64_t goal;
	size_t busy_steps, resetting, dead;
	struct coll_stats st;
	struct worker *zombies;
	struct worker *serial_w; /* serial mode: the caller's worker */
};

/* ---- small helpers ------------------------------------------------------ */

const char *coll_mode_name(enum coll_mode m)
{
	return m == COLL_SERIAL ? "serial" : m == COLL_SYNC ? "sync" : "async";
}

int coll_mode_parse(const char *s, enum coll_mode *out)
{
	for (int m = COLL_SERIAL; m <= COLL_ASYNC; m++)
		if (!strcmp(s, coll_mode_name((enum coll_mode)m))) {
			*out = (enum coll_mode)m;
			return 0;
		}
	return LG_EINVAL;
}

void coll_opts_default(struct coll_opts *o)
{
	memset(o, 0, sizeof *o);
	env_opts_default(&o->env);
	o->num_envs = 8;
	o->mode = COLL_ASYNC;
	o->wait_num = 7;
	o->wait_timeout_s = 0.01;
	o->step_timeout_s = 60;
	o->reset_timeout_s = 120;
	o->max_retries = 3;
	o->segment_len = 128;
	o->num_policies = 1;
	for (int p = 0; p < ENV_MAX_PLAYERS; p++)
		o->match.seat[p] = (struct coll_seat){ 0, 0, 1, 0 };
}

static int uniform_pick(const uint8_t *mask, int na, lg_rng *rng,
			float *logp)
{
	int k = 0, pick;

	for (int a = 0; a < na; a++)
		k += mask[a] != 0;
	if (k == 0) {
		*logp = 0;
		return 0;
	}
	*logp = -logf((float)k);
	pick = (int)lg_rng_below(rng, (uint64_t)k);
	for (int a = 0; a < na; a++)
		if (mask[a] && pick-- == 0)
			return a;
	return 0;
}

static int uniform_act(void *ctx, const float *obs, const uint8_t *mask,
		       size_t n, size_t obs_len, int na, lg_rng *rng,
		       int32_t *action, float *logp, float *value)
{
	for (size_t i = 0; i < n; i++) {
		action[i] = uniform_pick(mask + i * (size_t)na, na, rng,
					 &logp[i]);
		value[i] = 0;
	}
	return 0;
}

struct coll_policy coll_policy_uniform(void)
{
	return (struct coll_policy){ uniform_act, NULL, 0 };
}

static int sim_act(void *ctx, const float *obs, const uint8_t *mask,
		   size_t n, size_t obs_len, int na, lg_rng *rng,
		   int32_t *action, float *logp, float *value)
{
	const struct coll_sim *sim = ctx;
	double f = sim->jitter_lo +
		   (sim->jitter_hi - sim->jitter_lo) * lg_rng_double(rng);

	if (sim->infer_s > 0)
		lg_sleep_s(sim->infer_s * f);
	return uniform_act(NULL, obs, mask, n, obs_len, na, rng, action, logp,
			   value);
}

struct coll_policy coll_policy_simulated(const struct coll_sim *sim)
{
	return (struct coll_policy){ sim_act, (void *)(uintptr_t)sim, 0 };
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Seed of episode k of env i: a pure function, so runs are replayable. */
static uint64_t episode_seed(const coll *c, size_t i, uint64_t k)
{
	return mix64(mix64(c->o.env.seed ^ mix64(i + 1)) + k);
}

static void abs_deadline(struct timespec *ts, double t_mono)
{
	/* Condition variables use CLOCK_MONOTONIC (set in coll_new). */
	double s = floor(t_mono);

	ts->tv_sec = (time_t)s;
	ts->tv_nsec = (long)((t_mono - s) * 1e9);
	if (ts->tv_nsec >= 1000000000L)
		ts->tv_nsec = 999999999L;
}

static void cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu,
			    double t)
{
	struct timespec ts;

	abs_deadline(&ts, t);
	pthread_cond_timedwait(cv, mu, &ts);
}

/* ---- trajectories ------------------------------------------------------- */

static void traj_free(struct traj *t)
{
	free(t->obs);
	free(t->masks);
	free(t->dones);
	free(t->actions);
	free(t->logp);
	free(t->values);
	free(t->rewards);
	memset(t, 0, sizeof *t);
}

static int traj_alloc(struct traj *t, size_t len, size_t obs_len, int na)
{
	t->obs = malloc(len * obs_len * sizeof *t->obs);
	t->masks = malloc(len * (size_t)na);
	t->dones = malloc(len);
	t->actions = malloc(len * sizeof *t->actions);
	t->logp = malloc(len * sizeof *t->logp);
	t->values = malloc(len * sizeof *t->values);
	t->rewards = malloc(len * sizeof *t->rewards);
	t->count = 0;
	if (!t->obs || !t->masks || !t->dones || !t->actions || !t->logp ||
	    !t->values || !t->rewards) {
		traj_free(t);
		return LG_ENOMEM;
	}
	return 0;
}

/* Baseline seats never learn: they have no logp or value to train on,
 * whatever their learning flag says. */
static int learning(const coll *c, const struct slot *s, int seat)
{
	return c->o.sink && seat < c->spec.players &&
	       s->match.seat[seat].learning && !s->match.seat[seat].baseline;
}

/* Every seat a baseline: whole episodes run inside one reset. */
static int all_baseline(const coll *c, const struct coll_match *m)
{
	for (int p = 0; p < c->spec.players; p++)
		if (!m->seat[p].baseline)
			return 0;
	return 1;
}

static void set_fatal(coll *c, int rc)
{
	pthread_mutex_lock(&c->mu);
	if (!c->fatal)
		c->fatal = rc;
	pthread_cond_broadcast(&c->cv_caller);
	pthread_mutex_unlock(&c->mu);
}

/* Hand seat's buffered rows to the sink (if any). */
static int traj_flush(coll *c, struct slot *s, int seat)
{
	struct traj *t = &s->tr[seat];
	struct coll_segment seg;
	int rc;

	if (!t->count)
		return 0;
	seg = (struct coll_segment){
		.tag = s->tag,
		.player = s->match.seat[seat].player,
		.env_index = (uint32_t)s->idx,
		.seat = seat,
		.episode = t->episode,
		.count = t->count,
		.obs_len = c->spec.obs_len,
		.num_actions = c->spec.num_actions,
		.obs = t->obs, .masks = t->masks, .actions = t->actions,
		.logp = t->logp, .values = t->values, .rewards = t->rewards,
		.dones = t->dones,
	};
	pthread_mutex_lock(&c->sink_mu);
	seg.segment_seq = s->seg_seq++;
	rc = c->o.sink(c->o.sink_ctx, &seg);
	pthread_mutex_unlock(&c->sink_mu);
	pthread_mutex_lock(&c->mu);
	c->st.segments++;
	c->st.transitions += t->count;
	pthread_mutex_unlock(&c->mu);
	t->count = 0;
	if (rc)
		set_fatal(c, rc);
	return rc;
}

/* A seat acts: append its row (obs and mask from the slot buffers). */
static void traj_append(coll *c, struct slot *s, int seat)
{
	struct traj *t = &s->tr[seat];
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;
	uint32_t k;

	if (t->count == c->o.segment_len)
		traj_flush(c, s, seat);
	if (!t->count)
		t->episode = s->episode;
	k = t->count++;
	memcpy(t->obs + k * ol, s->obs + (size_t)seat * ol, ol * sizeof(float));
	memcpy(t->masks + k * na, s->mask + (size_t)seat * na, na);
	t->actions[k] = s->act[seat];
	t->logp[k] = s->logp[seat];
	t->values[k] = s->value[seat];
	t->rewards[k] = 0;
	t->dones[k] = 0;
}

/* Hand a held episode result to the result callback. */
static void result_flush(coll *c, struct slot *s)
{
	if (!s->holding)
		return;
	s->holding = 0;
	if (c->o.result) {
		pthread_mutex_lock(&c->sink_mu);
		c->o.result(c->o.result_ctx, &s->held);
		pthread_mutex_unlock(&c->sink_mu);
	}
}

/* The episode ended (normally or not): close every seat's last row and
 * report the episode (now, or once its rows are out: struct slot). */
static void episode_end(coll *c, struct slot *s, int abnormal, int cause)
{
	struct coll_episode ep = { 0 };
	int buffered = 0;

	for (int p = 0; p < c->spec.players; p++) {
		if (!learning(c, s, p))
			continue;
		struct traj *t = &s->tr[p];
		/* A segment holds consecutive episodes: one the seat did
		 * not act in ends it (its last row already closes an
		 * episode). An abnormal end flushes: the env is recreated. */
		if (t->count && t->dones[t->count - 1])
			traj_flush(c, s, p);
		else if (t->count)
			t->dones[t->count - 1] = 1;
		if (abnormal)
			traj_flush(c, s, p);
		buffered |= t->count != 0;
	}
	/* the previous episode's rows went out above, if any were held */
	result_flush(c, s);
	ep.tag = s->tag;
	ep.env_index = (uint32_t)s->idx;
	ep.episode = s->episode;
	ep.players = c->spec.players;
	for (int p = 0; p < c->spec.players; p++) {
		ep.player[p] = s->match.seat[p].player;
		ep.returns[p] = abnormal ? 0 : s->ret[p];
	}
	ep.steps = s->ep_steps;
	ep.abnormal = abnormal;
	ep.cause = abnormal ? cause : 0;
	s->held = ep;
	s->holding = 1;
	if (!buffered)
		result_flush(c, s);
	pthread_mutex_lock(&c->mu);
	c->st.episodes++;
	if (abnormal)
		c->st.abnormal++;
	pthread_mutex_unlock(&c->mu);
	s->episode++;
	s->ep_steps = 0;
	memset(s->ret, 0, sizeof s->ret);
}

/* ---- env hosting: in-thread or in a child process ---------------------- */

struct reply {
	int32_t rc, player;
	uint64_t steps;
	uint64_t moves; /* env steps auto-play took after the op */
	double returns[ENV_MAX_PLAYERS];
};

/* actions[p] is seat p's action (only the seats that act are read);
 * base[p] is seat p's baseline (0: a network), valid for every op. */
struct cmd {
	uint32_t op;
	int32_t actions[ENV_MAX_PLAYERS];
	uint8_t base[ENV_MAX_PLAYERS];
	uint64_t seed, episode, step;
};

static int fault_check(const coll *c, size_t i, uint64_t ep, uint64_t step,
		       int in_child)
{
	int f;

	if (!c->o.fault)
		return 0;
	f = c->o.fault(c->o.fault_ctx, i, ep, step);
	if (f == COLL_FAULT_HANG) {
		lg_sleep_s(c->o.fault_hang_s);
		return 0;
	}
	if (f == COLL_FAULT_CRASH && in_child)
		_exit(70);
	return f == COLL_FAULT_FAIL || f == COLL_FAULT_CRASH ? LG_EIO : 0;
}

/* Free the env and its baselines (a recreated env starts afresh). */
static void host_clear(struct host *h)
{
	env_free(h->e);
	h->e = NULL;
	for (int k = 0; k < COLL_BASELINES_MAX; k++) {
		env_baseline_free(h->base[k]);
		h->base[k] = NULL;
	}
}

/* Baseline k (1-based, checked against the specs) picks seat p's move.
 * Made on first use, so envs that never meet a baseline pay nothing. */
static int host_base_act(const coll *c, struct host *h, unsigned k, int p,
			 int *action)
{
	env_baseline **b;
	int rc;

	if (k < 1 || k > c->o.num_baselines)
		return LG_EINVAL;
	b = &h->base[k - 1];
	if (!*b) {
		rc = env_baseline_new(b, c->o.baselines[k - 1], h->e, NULL, 0);
		if (rc)
			return rc;
	}
	return env_baseline_act(*b, h->e, p, &h->rng, action);
}

/* One env step: network seats play m->actions, baseline seats choose
 * here, all from the state before the step (simultaneous moves). */
static int host_step(const coll *c, struct host *h, const struct cmd *m)
{
	int cur = env_current_player(h->e), a[ENV_MAX_PLAYERS] = { 0 };
	int lo = cur, hi = cur + 1, rc;

	if (cur == ENV_SIMULTANEOUS) {
		lo = 0;
		hi = c->spec.players;
	} else if (cur < 0 || cur >= c->spec.players) {
		return LG_EINVAL; /* over: the env would refuse it too */
	}
	for (int p = lo; p < hi; p++) {
		a[p] = m->actions[p];
		if (m->base[p]) {
			rc = host_base_act(c, h, m->base[p], p, &a[p]);
			if (rc)
				return rc;
		}
	}
	if (cur == ENV_SIMULTANEOUS)
		return env_step_joint(h->e, a);
	return env_step(h->e, a[cur]);
}

/* Must only baselines act now? */
static int bases_to_move(const coll *c, const env *e, const struct cmd *m)
{
	int cur = env_current_player(e);

	if (cur >= 0)
		return cur < c->spec.players && m->base[cur];
	if (cur != ENV_SIMULTANEOUS)
		return 0;
	for (int p = 0; p < c->spec.players; p++)
		if (!m->base[p])
			return 0;
	return 1;
}

/* Let the baselines move until a network must act or the episode is
 * over (max_steps bounds every episode, so this ends). */
static int autoplay(const coll *c, struct host *h, const struct cmd *m,
		    uint64_t *moves)
{
	while (bases_to_move(c, h->e, m)) {
		int rc = host_step(c, h, m);
		if (rc)
			return rc;
		++*moves;
	}
	return 0;
}

/* Run one op on the host's env (creating it for OP_CREATE), then
 * auto-play; r->moves says how many baseline steps that took. */
static int local_op(const coll *c, struct host *h, size_t i,
		    const struct cmd *m, int in_child, struct reply *r)
{
	int rc = fault_check(c, i, m->episode,
			     m->op == OP_STEP ? m->step : COLL_FAULT_RESET,
			     in_child);

	r->moves = 0;
	if (rc)
		return rc;
	if (m->op == OP_CREATE) {
		struct env_opts eo = c->o.env;
		host_clear(h);
		eo.seed = m->seed;
		rc = env_new(&h->e, c->game, &eo, NULL, 0);
	} else if (!h->e) {
		rc = LG_EINVAL;
	} else if (m->op == OP_RESET) {
		env_reset(h->e, m->seed);
	} else {
		rc = host_step(c, h, m);
	}
	if (rc)
		return rc;
	/* The episode's seed also drives its baselines: replayable. */
	if (m->op != OP_STEP)
		lg_rng_seed2(&h->rng, m->seed, 0x62617365ull);
	return autoplay(c, h, m, &r->moves);
}

/* What the env looks like now: who acts, returns, and the acting seats'
 * observations and masks into obs/mask ([players][len]). */
static void local_observe(const coll *c, const env *e, struct reply *r,
			  float *obs, uint8_t *mask)
{
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;

	r->player = env_current_player(e);
	r->steps = env_steps(e);
	env_returns(e, r->returns);
	if (r->player >= 0) {
		env_observe(e, r->player, obs + (size_t)r->player * ol);
		env_legal(e, r->player, mask + (size_t)r->player * na);
	} else if (r->player == ENV_SIMULTANEOUS) {
		for (int p = 0; p < c->spec.players; p++) {
			env_observe(e, p, obs + (size_t)p * ol);
			env_legal(e, p, mask + (size_t)p * na);
		}
	}
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return LG_EIO;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Read n bytes by deadline (monotonic seconds; <= 0: none). */
static int read_all(int fd, void *p, size_t n, double deadline)
{
	uint8_t *b = p;

	while (n) {
		if (deadline > 0) {
			struct pollfd pf = { .fd = fd, .events = POLLIN };
			double left = deadline - lg_now_s();
			int ms = left <= 0 ? 0 : (int)ceil(left * 1e3);
			int k = poll(&pf, 1, ms);
			if (k < 0 && errno == EINTR)
				continue;
			if (k == 0)
				return LG_ETIMEOUT;
			if (k < 0)
				return LG_EIO;
		}
		ssize_t k = read(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return LG_EIO;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The child: serve ops until the socket closes. Never returns. */
static void child_main(const coll *c, size_t i, int fd)
{
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;
	size_t np = (size_t)c->spec.players;
	float *obs = calloc(np * ol, sizeof *obs);
	uint8_t *mask = calloc(np * na, 1);
	struct host h = { 0 };
	struct cmd m;

	if (!obs || !mask)
		_exit(71);
	while (read_all(fd, &m, sizeof m, 0) == 0) {
		struct reply r = { 0 };
		r.rc = local_op(c, &h, i, &m, 1, &r);
		if (!r.rc)
			local_observe(c, h.e, &r, obs, mask);
		if (write_all(fd, &r, sizeof r))
			break;
		if (!r.rc && write_all(fd, obs, np * ol * sizeof *obs))
			break;
		if (!r.rc && write_all(fd, mask, np * na))
			break;
	}
	/* Tidy for leak checkers, though _exit would do. */
	host_clear(&h);
	free(obs);
	free(mask);
	_exit(0);
}

static void child_kill(struct slot *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (s->fd >= 0)
		close(s->fd);
	s->pid = -1;
	s->fd = -1;
}

/* Spawns are serialized so that no child inherits another child's end
 * of its socketpair (which would hide that child's crash as a timeout). */
static pthread_mutex_t spawn_mu = PTHREAD_MUTEX_INITIALIZER;

static int child_spawn(coll *c, struct slot *s)
{
	int sv[2];
	pid_t pid;

	pthread_mutex_lock(&spawn_mu);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		pthread_mutex_unlock(&spawn_mu);
		return LG_EIO;
	}
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		pthread_mutex_unlock(&spawn_mu);
		return LG_EIO;
	}
	if (pid == 0) {
		close(sv[0]);
		child_main(c, s->idx, sv[1]);
	}
	close(sv[1]);
	pthread_mutex_unlock(&spawn_mu);
	s->pid = pid;
	s->fd = sv[0];
	return 0;
}

/* One op in the slot's child, with the slot's timeout. Any failure kills
 * the child (the next OP_CREATE spawns a new one). */
static int remote_op(coll *c, struct slot *s, const struct cmd *m,
		     struct reply *r, float *obs, uint8_t *mask)
{
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;
	size_t np = (size_t)c->spec.players;
	double dl = lg_now_s() + (m->op == OP_STEP ? c->o.step_timeout_s
						   : c->o.reset_timeout_s);
	int rc;

	if (m->op == OP_CREATE) {
		child_kill(s);
		rc = child_spawn(c, s);
		if (rc)
			return rc;
	}
	if (s->fd < 0)
		return LG_EIO;
	rc = write_all(s->fd, m, sizeof *m);
	if (!rc)
		rc = read_all(s->fd, r, sizeof *r, dl);
	if (!rc && r->rc)
		return r->rc; /* the env said no; the child is fine */
	if (!rc)
		rc = read_all(s->fd, obs, np * ol * sizeof *obs, dl);
	if (!rc)
		rc = read_all(s->fd, mask, np * na, dl);
	if (rc)
		child_kill(s);
	return rc;
}

/* ---- workers ------------------------------------------------------------ */

static void worker_free(struct worker *w)
{
	if (!w)
		return;
	host_clear(&w->h);
	free(w->bobs);
	free(w->bmask);
	free(w->bact);
	free(w->blogp);
	free(w->bval);
	free(w->brows);
	free(w);
}

static struct worker *worker_alloc(coll *c, struct slot *s)
{
	struct worker *w = calloc(1, sizeof *w);
	size_t r = c->rows_max;

	if (!w)
		return NULL;
	w->c = c;
	w->s = s;
	w->gen = s->gen;
	w->leading = -1;
	lg_rng_seed2(&w->rng, c->o.env.seed ^ 0x636f6c6cull,
		     s->idx * 1000 + s->gen);
	w->bobs = malloc(r * c->spec.obs_len * sizeof *w->bobs);
	w->bmask = malloc(r * (size_t)c->spec.num_actions);
	w->bact = malloc(r * sizeof *w->bact);
	w->blogp = malloc(r * sizeof *w->blogp);
	w->bval = malloc(r * sizeof *w->bval);
	w->brows = malloc(r * sizeof *w->brows);
	if (!w->bobs || !w->bmask || !w->bact || !w->blogp || !w->bval ||
	    !w->brows) {
		worker_free(w);
		return NULL;
	}
	return w;
}

static size_t live_envs(const coll *c)
{
	return c->n - c->dead;
}

/* Is group g's batch due? If not, *deadline is when it will be by
 * timeout (0: only an event can make it due). Caller holds mu. */
static int batch_due(const coll *c, const struct group *g, double *deadline)
{
	size_t could;

	*deadline = 0;
	if (!g->n)
		return 0;
	if (c->o.mode == COLL_SYNC)
		return c->busy_steps == 0;
	could = live_envs(c) - c->resetting;
	if (g->n >= LG_MIN(c->o.wait_num, could) || c->busy_steps == 0)
		return 1;
	{
		struct slot *s0 = &c->slots[g->rows[0].slot];
		double t = s0->ready_at + c->o.wait_timeout_s;
		if (lg_now_s() >= t)
			return 1;
		*deadline = t;
	}
	return 0;
}

/* Wake leaders whose batch became due. Caller holds mu. */
static void kick_groups(coll *c)
{
	for (size_t k = 0; k < c->o.num_policies; k++) {
		struct group *g = &c->groups[k];
		double d;
		if (g->leader && batch_due(c, g, &d))
			pthread_cond_signal(&g->cv);
	}
}

static void gather(coll *c, struct worker *w, size_t n)
{
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;

	for (size_t i = 0; i < n; i++) {
		struct slot *s = &c->slots[w->brows[i].slot];
		int p = w->brows[i].seat;
		memcpy(w->bobs + i * ol, s->obs + (size_t)p * ol,
		       ol * sizeof(float));
		memcpy(w->bmask + i * na, s->mask + (size_t)p * na, na);
	}
}

/* Give out a finished batch's actions. Caller holds mu. */
static void scatter(coll *c, struct worker *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct slot *s = &c->slots[w->brows[i].slot];
		int p = w->brows[i].seat;
		s->act[p] = w->bact[i];
		s->logp[p] = w->blogp[i];
		s->value[p] = w->bval[i];
		s->waiting[p] = 0;
		if (--s->pending == 0) {
			s->state = ST_CMD;
			c->busy_steps++;
			/* Its worker may be waiting as some group's leader:
			 * wake it so it can step (see lead()). */
			if (s->w && s->w->leading >= 0)
				pthread_cond_broadcast(
					&c->groups[s->w->leading].cv);
		}
	}
	c->st.forwards++;
	c->st.rows += n;
}

/* Lead group gi: wait for the batch rule, run one forward, hand out the
 * actions. Called and returns with mu held. */
static void lead(coll *c, struct worker *w, size_t gi)
{
	struct group *g = &c->groups[gi];
	size_t n;
	int rc;

	g->leader = 1;
	w->leading = (int)gi;
	for (;;) {
		double d;
		if (c->stop || c->fatal || w->gen != w->s->gen) {
			g->leader = 0;
			w->leading = -1;
			return;
		}
		/* Our own slot was answered meanwhile: its rows were in the
		 * batch the previous leader of this group had in flight when
		 * we took the lead (or in another group's). Step it instead
		 * of waiting, or sync mode waits for this very slot forever.
		 * Another worker takes the lead. */
		if (w->s->state != ST_READY) {
			g->leader = 0;
			w->leading = -1;
			pthread_cond_broadcast(&c->cv_work);
			return;
		}
		if (!c->collecting) {
			pthread_cond_wait(&c->cv_work, &c->mu);
			continue;
		}
		if (g->pol.max_calls && g->calls >= g->pol.max_calls) {
			pthread_cond_wait(&g->cv, &c->mu);
			continue;
		}
		if (batch_due(c, g, &d))
			break;
		if (d > 0)
			cond_wait_until(&g->cv, &c->mu, d);
		else
			pthread_cond_wait(&g->cv, &c->mu);
	}
	n = g->n;
	memcpy(w->brows, g->rows, n * sizeof *g->rows);
	g->n = 0;
	g->leader = 0;
	w->leading = -1;
	g->calls++;
	pthread_mutex_unlock(&c->mu);
	gather(c, w, n);
	rc = g->pol.act(g->pol.ctx, w->bobs, w->bmask, n, c->spec.obs_len,
			c->spec.num_actions, &w->rng, w->bact, w->blogp,
			w->bval);
	pthread_mutex_lock(&c->mu);
	g->calls--;
	if (g->pol.max_calls)
		pthread_cond_signal(&g->cv);
	if (rc) {
		if (!c->fatal)
			c->fatal = rc;
		/* The rows go back so nothing is lost if the caller goes on
		 * after the error (it will not: fatal is sticky). */
		pthread_cond_broadcast(&c->cv_caller);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (w->bact[i] < 0 || w->bact[i] >= c->spec.num_actions)
			w->bact[i] = 0;
	scatter(c, w, n);
	pthread_cond_broadcast(&c->cv_work);
}

/* Post the slot's acting rows. Caller holds mu. */
static void post_ready(coll *c, struct slot *s)
{
	int leaderless = 0;

	s->state = ST_READY;
	s->ready_at = lg_now_s();
	s->pending = s->nacting;
	for (int k = 0; k < s->nacting; k++) {
		int p = s->acting[k];
		struct group *g = &c->groups[s->match.seat[p].net];
		g->rows[g->n++] = (struct rowref){ (uint32_t)s->idx, p };
		s->waiting[p] = 1;
	}
	/* This worker will lead one of its groups; when its rows sit in
	 * more than one group without a leader (simultaneous moves, one
	 * network per seat), parked workers must hear of the others. */
	for (int k = 0; k < s->nacting; k++) {
		struct group *g = &c->groups[s->match.seat[s->acting[k]].net];
		leaderless += !g->leader && g->n;
	}
	if (leaderless > 1)
		pthread_cond_broadcast(&c->cv_work);
	kick_groups(c);
}

/* Wait (leading batches when nobody does) until the slot has its actions.
 * Caller holds mu. Returns 0, or 1 when the worker must exit. */
static int await_actions(coll *c, struct worker *w)
{
	struct slot *s = w->s;

	while (s->state == ST_READY) {
		int led = 0;
		if (c->stop || c->fatal || w->gen != s->gen)
			return 1;
		/* Lead only a group holding one of our own unanswered rows:
		 * a worker leading some other group could see its own slot
		 * answered meanwhile, and sync mode would wait forever for
		 * that slot to step while its worker waits to lead. */
		if (c->collecting)
			for (int k = 0; k < s->nacting && !led; k++) {
				if (!s->waiting[s->acting[k]])
					continue;
				size_t gi = s->match.seat[s->acting[k]].net;
				struct group *g = &c->groups[gi];
				if (!g->leader && g->n) {
					lead(c, w, gi);
					led = 1;
				}
			}
		if (!led && s->state == ST_READY)
			pthread_cond_wait(&c->cv_work, &c->mu);
	}
	return c->stop || w->gen != s->gen;
}

/* Count n completed transitions (baseline moves included); the goal
 * reached stops issuing. Caller holds mu. */
static void count_steps(coll *c, uint64_t n)
{
	c->st.steps += n;
	if (c->collecting && c->st.steps >= c->goal) {
		c->collecting = 0;
		pthread_cond_broadcast(&c->cv_caller);
	}
}

/* Set acting seats from the reply; 0 seats means the episode is over.
 * Auto-play left a network to move, so a sequential mover is never a
 * baseline seat; simultaneous baseline seats are chosen in the host. */
static void set_acting(coll *c, struct slot *s, const struct reply *r)
{
	s->nacting = 0;
	if (r->player >= 0 && r->player < c->spec.players)
		s->acting[s->nacting++] = r->player;
	else if (r->player == ENV_SIMULTANEOUS)
		for (int p = 0; p < c->spec.players; p++)
			if (!s->match.seat[p].baseline)
				s->acting[s->nacting++] = p;
}

/* A cmd for the slot's current episode: its baselines ride along. */
static struct cmd cmd_for(const coll *c, const struct slot *s, int op)
{
	struct cmd m = { .op = (uint32_t)op, .episode = s->episode,
			 .step = s->ep_steps };

	for (int p = 0; p < c->spec.players; p++)
		m.base[p] = (uint8_t)s->match.seat[p].baseline;
	return m;
}

/* Run op m on the slot's env (thread or child). On success the reply
 * and the acting seats' obs/mask are in r / obs / mask. */
static int run_op(coll *c, struct worker *w, const struct cmd *m,
		  struct reply *r, float *obs, uint8_t *mask)
{
	int rc;

	if (c->o.processes)
		return remote_op(c, w->s, m, r, obs, mask);
	rc = local_op(c, &w->h, w->s->idx, m, 0, r);
	if (!rc)
		local_observe(c, w->h.e, r, obs, mask);
	return rc;
}

/* One round of a slot's life after its op returned: book the result and
 * decide the next op. Returns the next op, or 0 to stop (dead). Called
 * without mu; the slot's worker owns the slot's episode fields. */
static int after_op(coll *c, struct slot *s, int op, int rc,
		    const struct reply *r)
{
	if (op == OP_STEP) {
		/* A failed op's reply is not to be trusted: it counts once. */
		uint64_t n = 1 + (rc ? 0 : r->moves);
		pthread_mutex_lock(&c->mu);
		count_steps(c, n);
		pthread_mutex_unlock(&c->mu);
		s->ep_steps += n;
		if (rc) {
			episode_end(c, s, 1, rc);
			goto recreate;
		}
		for (int p = 0; p < c->spec.players; p++) {
			struct traj *t = &s->tr[p];
			/* not onto a done row: the seat has not acted in
			 * this episode yet */
			if (learning(c, s, p) && t->count &&
			    !t->dones[t->count - 1])
				t->rewards[t->count - 1] +=
					(float)(r->returns[p] - s->ret[p]);
			s->ret[p] = r->returns[p];
		}
		if (r->player == ENV_TERMINAL) {
			episode_end(c, s, 0, 0);
			s->retries = 0;
			return OP_RESET;
		}
		return OP_STEP;
	}
	/* OP_CREATE / OP_RESET */
	if (!rc) {
		pthread_mutex_lock(&c->mu);
		c->st.resets++;
		count_steps(c, r->moves);
		pthread_mutex_unlock(&c->mu);
		/* Baselines may have moved already (or played it out). */
		memcpy(s->ret, r->returns, sizeof s->ret);
		s->ep_steps = r->moves;
		if (r->player == ENV_TERMINAL) { /* empty or all-baseline */
			episode_end(c, s, 0, 0);
			return OP_RESET;
		}
		return OP_STEP;
	}
	episode_end(c, s, 1, rc);
recreate:
	pthread_mutex_lock(&c->mu);
	c->st.recreated++;
	if (rc == LG_ETIMEOUT)
		c->st.timeouts++;
	pthread_mutex_unlock(&c->mu);
	if (++s->retries > c->o.max_retries)
		return 0;
	return OP_CREATE;
}

/* Before the slot's next episode (m, tag; NULL: none): finished episodes
 * stay buffered (one segment carries several, done = 1 closing each) only
 * while the next one has the same job and the same learning player on
 * that seat; then the held result goes out (struct slot). The sink may
 * block on a learner's credit: keep the watchdog away meanwhile. */
static void flush_guarded(coll *c, struct slot *s, const struct coll_match *m,
			  uint64_t tag)
{
	int flush[ENV_MAX_PLAYERS], any = s->holding; /* sink_mu may wait */

	for (int p = 0; p < c->spec.players; p++) {
		flush[p] = s->tr[p].count &&
			   (!m || tag != s->tag || m->seat[p].baseline ||
			    !m->seat[p].learning ||
			    m->seat[p].player != s->match.seat[p].player);
		any |= flush[p];
	}
	if (!any)
		return;
	pthread_mutex_lock(&c->mu);
	s->deadline = HUGE_VAL;
	pthread_mutex_unlock(&c->mu);
	for (int p = 0; p < c->spec.players; p++)
		if (flush[p])
			traj_flush(c, s, p);
	result_flush(c, s);
	pthread_mutex_lock(&c->mu);
	s->deadline = lg_now_s() + c->o.reset_timeout_s;
	pthread_mutex_unlock(&c->mu);
}

/* Ask next_episode for the slot's next match. 1: got one; 0: nothing to
 * play now; LG_EINVAL (made fatal): a net or baseline out of range (a
 * baseline seat's net is not used, so not checked). */
static int choose_match(coll *c, struct slot *s)
{
	struct coll_match m;
	uint64_t tag = 0;
	int got;

	if (!c->o.next_episode) {
		result_flush(c, s);
		return 1;
	}
	m = c->o.match;
	/* Not under sink_mu: a sink blocked on a learner's credit must not
	 * hold up every env's next episode (nor look like a hung reset). */
	got = c->o.next_episode(c->o.episode_ctx, s->idx, &m, &tag);
	if (!got) {
		/* Idle: nothing buffered may wait for an episode that
		 * may never come. */
		flush_guarded(c, s, NULL, 0);
		return 0;
	}
	for (int p = 0; p < c->spec.players; p++) {
		if (m.seat[p].baseline > c->o.num_baselines) {
			LG_ERROR("collector: next_episode: seat %d on "
				 "baseline %u of %zu", p, m.seat[p].baseline,
				 c->o.num_baselines);
			set_fatal(c, LG_EINVAL);
			return LG_EINVAL;
		}
		if (!m.seat[p].baseline && m.seat[p].net >= c->o.num_policies) {
			LG_ERROR("collector: next_episode: seat %d on net %u "
				 "of %zu", p, m.seat[p].net,
				 c->o.num_policies);
			set_fatal(c, LG_EINVAL);
			return LG_EINVAL;
		}
	}
	flush_guarded(c, s, &m, tag);
	s->match = m;
	s->tag = tag;
	return 1;
}

/* Worker: wait until next_episode gives the slot a match. 0, or 1 when
 * the worker must exit instead. */
static int await_match(coll *c, struct worker *w)
{
	struct slot *s = w->s;
	int got;

	while ((got = choose_match(c, s)) == 0) {
		pthread_mutex_lock(&c->mu);
		int quit = c->stop || c->fatal || w->gen != s->gen;
		/* Idle is not hung: keep the watchdog away. */
		s->deadline = lg_now_s() + c->o.reset_timeout_s;
		pthread_mutex_unlock(&c->mu);
		if (quit)
			return 1;
		lg_sleep_s(0.002);
	}
	return got < 0;
}

/* An all-baseline match plays whole episodes inside its resets, which
 * nothing else holds back: wait for a coll_collect, or such an env would
 * run without bound between calls. Caller holds mu. 1: must exit. */
static int await_collecting(coll *c, struct worker *w)
{
	while (!c->collecting) {
		if (c->stop || c->fatal || w->gen != w->s->gen)
			return 1;
		/* Parked, not hung: keep the watchdog away. */
		w->s->deadline = HUGE_VAL;
		pthread_cond_wait(&c->cv_work, &c->mu);
	}
	return c->stop || c->fatal || w->gen != w->s->gen;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	coll *c = w->c;
	struct slot *s = w->s;
	size_t np = (size_t)c->spec.players;
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;
	float *obs = NULL;
	uint8_t *mask = NULL;
	int op = OP_CREATE;

	/* Replies land in worker buffers and are copied to the slot after
	 * the generation check (an abandoned worker must not write there). */
	obs = malloc(np * ol * sizeof *obs);
	mask = malloc(np * na);
	if (!obs || !mask) {
		set_fatal(c, LG_ENOMEM);
		goto dead;
	}
	if (s->abnormal_pending) {
		episode_end(c, s, 1, s->cause);
		pthread_mutex_lock(&c->mu);
		s->abnormal_pending = 0;
		pthread_mutex_unlock(&c->mu);
		if (++s->retries > c->o.max_retries)
			goto dead;
	}
	for (;;) {
		struct cmd m = cmd_for(c, s, op);
		struct reply r = { 0 };
		int rc;

		pthread_mutex_lock(&c->mu);
		if (op == OP_STEP) {
			/* Wait for actions (leading a batch if need be). */
			if (await_actions(c, w)) {
				pthread_mutex_unlock(&c->mu);
				goto out;
			}
			for (int k = 0; k < s->nacting; k++)
				m.actions[s->acting[k]] = s->act[s->acting[k]];
			pthread_mutex_unlock(&c->mu);
			/* State CMD: the watchdog leaves the slot alone. */
			for (int k = 0; k < s->nacting; k++)
				if (learning(c, s, s->acting[k]))
					traj_append(c, s, s->acting[k]);
			pthread_mutex_lock(&c->mu);
			s->state = ST_STEP;
			s->deadline = lg_now_s() + c->o.step_timeout_s;
			pthread_mutex_unlock(&c->mu);
		} else {
			if (c->stop) {
				pthread_mutex_unlock(&c->mu);
				goto out;
			}
			pthread_mutex_unlock(&c->mu);
			if (await_match(c, w))
				goto out;
			pthread_mutex_lock(&c->mu);
			if (c->stop || w->gen != s->gen ||
			    (all_baseline(c, &s->match) &&
			     await_collecting(c, w))) {
				pthread_mutex_unlock(&c->mu);
				goto out;
			}
			s->deadline = lg_now_s() + c->o.reset_timeout_s;
			pthread_mutex_unlock(&c->mu);
			m = cmd_for(c, s, op); /* the match just chosen */
			m.seed = episode_seed(c, s->idx, s->episode);
		}
		rc = run_op(c, w, &m, &r, obs, mask);
		pthread_mutex_lock(&c->mu);
		if (w->gen != s->gen) { /* abandoned by the watchdog */
			pthread_mutex_unlock(&c->mu);
			goto out;
		}
		if (s->state == ST_STEP)
			s->state = ST_POST;
		pthread_mutex_unlock(&c->mu);
		op = after_op(c, s, op, rc, &r);
		pthread_mutex_lock(&c->mu);
		if (s->state == ST_POST) {
			/* No longer stepping: resetting until posted. */
			c->busy_steps--;
			s->state = ST_RESET;
			s->deadline = lg_now_s() + c->o.reset_timeout_s;
			c->resetting++;
		}
		if (!op) {
			pthread_mutex_unlock(&c->mu);
			goto dead;
		}
		if (op == OP_STEP) {
			set_acting(c, s, &r);
			for (int k = 0; k < s->nacting; k++) {
				int p = s->acting[k];
				memcpy(s->obs + (size_t)p * ol,
				       obs + (size_t)p * ol, ol * sizeof *obs);
				memcpy(s->mask + (size_t)p * na,
				       mask + (size_t)p * na, na);
			}
			c->resetting--;
			if (c->stop) {
				s->state = ST_EXIT;
				pthread_mutex_unlock(&c->mu);
				goto out;
			}
			post_ready(c, s);
		}
		kick_groups(c);
		pthread_mutex_unlock(&c->mu);
	}
dead:
	pthread_mutex_lock(&c->mu);
	if (w->gen == s->gen && s->state != ST_DEAD) {
		if (s->state == ST_RESET)
			c->resetting--;
		s->state = ST_DEAD;
		c->dead++;
		c->st.dead_envs = c->dead;
		LG_WARN("collector: env %zu given up after %u retries", s->idx,
			c->o.max_retries);
		kick_groups(c);
		pthread_cond_broadcast(&c->cv_caller);
	}
	pthread_mutex_unlock(&c->mu);
out:
	free(obs);
	free(mask);
	return NULL;
}

/* Start the slot's current worker. Caller holds mu or no thread runs. */
static int worker_start(coll *c, struct slot *s)
{
	struct worker *w = worker_alloc(c, s);

	if (!w)
		return LG_ENOMEM;
	s->w = w;
	if (pthread_create(&w->th, NULL, worker_main, w)) {
		s->w = NULL;
		worker_free(w);
		return LG_EIO;
	}
	w->started = 1;
	return 0;
}

/* Thread mode: replace the workers of slots past their deadline. Caller
 * holds mu. Returns the earliest deadline still pending (0: none). */
static double watchdog(coll *c)
{
	double now = lg_now_s(), next = 0;

	if (c->o.processes)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		struct slot *s = &c->slots[i];
		if (s->state != ST_STEP && s->state != ST_RESET)
			continue;
		if (s->abnormal_pending || !s->w)
			continue;
		if (now < s->deadline) {
			if (!next || s->deadline < next)
				next = s->deadline;
			continue;
		}
		LG_WARN("collector: env %zu %s timed out; replacing it", i,
			s->state == ST_STEP ? "step" : "reset");
		c->st.timeouts++;
		s->w->next = c->zombies;
		c->zombies = s->w;
		s->w = NULL;
		s->gen++;
		if (s->state == ST_STEP) {
			c->busy_steps--;
			/* the in-flight transition is complete (abnormally) */
			count_steps(c, 1);
			s->ep_steps++;
			s->state = ST_RESET;
			c->resetting++;
		}
		s->abnormal_pending = 1;
		s->cause = LG_ETIMEOUT;
		c->st.recreated++;
		s->deadline = now + c->o.reset_timeout_s;
		if (worker_start(c, s)) {
			c->resetting--;
			s->state = ST_DEAD;
			c->dead++;
			c->st.dead_envs = c->dead;
		}
		kick_groups(c);
	}
	return next;
}

/* ---- serial mode: everything in the caller's thread --------------------- */

/* Run op on slot s in the caller's thread and book it; returns the next
 * op (0: the env is dead). */
static int serial_op(coll *c, struct slot *s, struct cmd *m)
{
	struct reply r = { 0 };
	int rc, op;

	rc = run_op(c, s->w, m, &r, s->obs, s->mask);
	op = after_op(c, s, (int)m->op, rc, &r);
	if (!op) {
		s->state = ST_DEAD;
		c->dead++;
		c->st.dead_envs = c->dead;
	} else if (op == OP_STEP) {
		set_acting(c, s, &r);
		s->state = ST_READY;
	} else {
		s->state = ST_RESET;
		s->next_op = op;
	}
	return op;
}

static int serial_collect(coll *c, uint64_t goal, double until)
{
	struct worker *w = c->serial_w;
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;
	int rc;

	while (c->st.steps < goal && !c->fatal) {
		size_t ran = 0;
		/* Reset what needs it, then one forward per network over
		 * every env, then step each env in turn. */
		for (size_t i = 0; i < c->n; i++) {
			struct slot *s = &c->slots[i];
			/* A reset may play a whole episode (all
			 * baselines): stop at the goal. */
			while (s->state == ST_RESET && c->st.steps < goal &&
			       !c->fatal) {
				struct cmd m;
				int got = choose_match(c, s);
				if (got < 0)
					return LG_EINVAL;
				if (!got)
					break; /* idle this round */
				m = cmd_for(c, s, s->next_op);
				m.seed = episode_seed(c, i, s->episode);
				serial_op(c, s, &m);
				ran++;
			}
		}
		if (c->dead == c->n)
			return LG_EIO;
		size_t nready = 0;
		for (size_t i = 0; i < c->n; i++)
			nready += c->slots[i].state == ST_READY;
		if (!nready) { /* nothing for a network to play */
			if (until > 0 && lg_now_s() >= until)
				return LG_ETIMEOUT;
			if (!ran) /* every env idle */
				lg_sleep_s(0.002);
			continue;
		}
		for (size_t k = 0; k < c->o.num_policies; k++) {
			struct group *g = &c->groups[k];
			size_t n = 0;
			for (size_t i = 0; i < c->n; i++) {
				struct slot *s = &c->slots[i];
				if (s->state != ST_READY)
					continue;
				for (int a = 0; a < s->nacting; a++)
					if (s->match.seat[s->acting[a]].net ==
					    k)
						w->brows[n++] = (struct rowref){
							(uint32_t)i,
							s->acting[a]
						};
			}
			if (!n)
				continue;
			gather(c, w, n);
			rc = g->pol.act(g->pol.ctx, w->bobs, w->bmask, n, ol,
					c->spec.num_actions, &w->rng, w->bact,
					w->blogp, w->bval);
			if (rc)
				return rc;
			for (size_t i = 0; i < n; i++) {
				struct slot *s = &c->slots[w->brows[i].slot];
				int p = w->brows[i].seat;
				int32_t a = w->bact[i];
				s->act[p] = a < 0 || a >= (int32_t)na ? 0 : a;
				s->logp[p] = w->blogp[i];
				s->value[p] = w->bval[i];
			}
			c->st.forwards++;
			c->st.rows += n;
		}
		/* The whole round steps (like sync: at most n - 1 over the
		 * goal), so no forward's rows go to waste. */
		for (size_t i = 0; i < c->n; i++) {
			struct slot *s = &c->slots[i];
			struct cmd m = cmd_for(c, s, OP_STEP);
			if (s->state != ST_READY)
				continue;
			for (int a = 0; a < s->nacting; a++) {
				m.actions[s->acting[a]] = s->act[s->acting[a]];
				if (learning(c, s, s->acting[a]))
					traj_append(c, s, s->acting[a]);
			}
			serial_op(c, s, &m);
		}
		if (until > 0 && lg_now_s() >= until)
			return LG_ETIMEOUT;
	}
	return c->fatal;
}

/* ---- public ------------------------------------------------------------- */

static int check_opts(const struct coll_opts *o, char *err, size_t errlen)
{
	if (!o->game || !*o->game || strlen(o->game) >= ENV_NAME_MAX) {
		lg_errf(err, errlen, "collector: no game name");
		return LG_EINVAL;
	}
	if (o->num_envs < 1 || o->num_envs > COLL_ENVS_MAX) {
		lg_errf(err, errlen, "collector: envs must be in [1, %d]",
			COLL_ENVS_MAX);
		return LG_ERANGE;
	}
	if (o->mode != COLL_SERIAL && o->mode != COLL_SYNC &&
	    o->mode != COLL_ASYNC) {
		lg_errf(err, errlen, "collector: bad mode");
		return LG_EINVAL;
	}
	if (o->mode == COLL_ASYNC &&
	    (o->wait_num < 1 || o->wait_num > o->num_envs)) {
		lg_errf(err, errlen, "collector: wait_num must be in [1, "
			"envs]");
		return LG_ERANGE;
	}
	if (!(o->wait_timeout_s >= 0 && o->wait_timeout_s <= 3600) ||
	    !(o->step_timeout_s > 0 && o->step_timeout_s <= 86400) ||
	    !(o->reset_timeout_s > 0 && o->reset_timeout_s <= 86400)) {
		lg_errf(err, errlen, "collector: timeouts out of range");
		return LG_ERANGE;
	}
	if (o->max_retries > COLL_RETRIES_MAX || o->segment_len < 1 ||
	    o->segment_len > COLL_SEGMENT_MAX) {
		lg_errf(err, errlen, "collector: retries or segment_len out "
			"of range");
		return LG_ERANGE;
	}
	if (o->num_policies < 1 || o->num_policies > COLL_NETS_MAX ||
	    !o->policies) {
		lg_errf(err, errlen, "collector: need 1..%d policies",
			COLL_NETS_MAX);
		return LG_EINVAL;
	}
	for (size_t k = 0; k < o->num_policies; k++)
		if (!o->policies[k].act) {
			lg_errf(err, errlen, "collector: policy %zu has no "
				"act", k);
			return LG_EINVAL;
		}
	if (o->num_baselines > COLL_BASELINES_MAX) {
		lg_errf(err, errlen, "collector: at most %d baselines",
			COLL_BASELINES_MAX);
		return LG_ERANGE;
	}
	for (size_t k = 0; k < o->num_baselines; k++)
		if (!o->baselines || !o->baselines[k] ||
		    strlen(o->baselines[k]) >= COLL_BASELINE_SPEC_MAX) {
			lg_errf(err, errlen, "collector: baseline %zu: no spec "
				"or longer than %d bytes", k + 1,
				COLL_BASELINE_SPEC_MAX - 1);
			return LG_EINVAL;
		}
	for (int p = 0; p < ENV_MAX_PLAYERS; p++) {
		const struct coll_seat *st = &o->match.seat[p];
		if (st->baseline > o->num_baselines) {
			lg_errf(err, errlen, "collector: seat %d uses baseline "
				"%u of %zu", p, st->baseline,
				o->num_baselines);
			return LG_EINVAL;
		}
		if (!st->baseline && st->net >= o->num_policies) {
			lg_errf(err, errlen, "collector: seat %d uses network "
				"%u of %zu", p, st->net, o->num_policies);
			return LG_EINVAL;
		}
	}
	return 0;
}

/* Every baseline spec must play this game: try each on the probe env
 * now rather than failing every env's first move later. */
static int check_baselines(const struct coll_opts *o, const env *probe,
			   char *err, size_t errlen)
{
	for (size_t k = 0; k < o->num_baselines; k++) {
		env_baseline *b = NULL;
		char why[160] = "";
		int rc = env_baseline_new(&b, o->baselines[k], probe, why,
					  sizeof why);
		env_baseline_free(b);
		if (rc) {
			lg_errf(err, errlen, "collector: baseline %zu '%s' "
				"for %s: %s", k + 1, o->baselines[k],
				o->game, why);
			return rc;
		}
	}
	return 0;
}

int coll_new(coll **out, const struct coll_opts *o, char *err,
	     size_t errlen)
{
	struct env_opts probe_opts;
	env *probe = NULL;
	coll *c = NULL;
	pthread_condattr_t ca;
	int rc;

	*out = NULL;
	rc = check_opts(o, err, errlen);
	if (rc)
		return rc;
	/* The spec, from an env that does not sleep. */
	probe_opts = o->env;
	probe_opts.timing.reset_s = probe_opts.timing.step_s = 0;
	rc = env_new(&probe, o->game, &probe_opts, err, errlen);
	if (rc)
		return rc;
	rc = check_baselines(o, probe, err, errlen);
	if (rc) {
		env_free(probe);
		return rc;
	}
	c = calloc(1, sizeof *c);
	if (!c) {
		env_free(probe);
		return LG_ENOMEM;
	}
	c->o = *o;
	snprintf(c->game, sizeof c->game, "%s", o->game);
	c->o.game = c->game;
	c->spec = *env_spec_of(probe);
	env_free(probe);
	memcpy(c->pols, o->policies, o->num_policies * sizeof *c->pols);
	c->o.policies = c->pols;
	for (size_t k = 0; k < o->num_baselines; k++) {
		snprintf(c->bspec[k], sizeof c->bspec[k], "%s",
			 o->baselines[k]);
		c->bspecs[k] = c->bspec[k];
	}
	c->o.baselines = c->bspecs;
	c->n = o->num_envs;
	c->rows_max = c->n * (size_t)c->spec.players;
	c->slots = calloc(c->n, sizeof *c->slots);
	if (!c->slots) {
		rc = LG_ENOMEM;
		goto fail;
	}
	for (size_t k = 0; k < o->num_policies; k++) {
		c->groups[k].pol = o->policies[k];
		c->groups[k].rows = malloc(c->rows_max *
					   sizeof *c->groups[k].rows);
		if (!c->groups[k].rows) {
			rc = LG_ENOMEM;
			goto fail;
		}
	}
	for (size_t i = 0; i < c->n; i++) {
		struct slot *s = &c->slots[i];
		size_t np = (size_t)c->spec.players;
		s->idx = i;
		s->pid = -1;
		s->fd = -1;
		s->state = ST_RESET;
		s->next_op = OP_CREATE;
		s->deadline = lg_now_s() + o->reset_timeout_s;
		s->obs = calloc(np * c->spec.obs_len, sizeof *s->obs);
		s->mask = calloc(np * (size_t)c->spec.num_actions, 1);
		if (!s->obs || !s->mask) {
			rc = LG_ENOMEM;
			goto fail;
		}
		s->match = c->o.match;
		for (int p = 0; p < c->spec.players; p++)
			/* Per-episode matches may make any seat learn. */
			if ((o->next_episode ? o->sink != NULL
					     : learning(c, s, p)) &&
			    traj_alloc(&s->tr[p], o->segment_len,
				       c->spec.obs_len, c->spec.num_actions)) {
				rc = LG_ENOMEM;
				goto fail;
			}
	}
	pthread_mutex_init(&c->mu, NULL);
	pthread_mutex_init(&c->sink_mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cv_work, &ca);
	pthread_cond_init(&c->cv_caller, &ca);
	for (size_t k = 0; k < o->num_policies; k++)
		pthread_cond_init(&c->groups[k].cv, &ca);
	pthread_condattr_destroy(&ca);
	c->threads_up = 1;

	if (o->mode == COLL_SERIAL) {
		c->serial_w = worker_alloc(c, &c->slots[0]);
		if (!c->serial_w) {
			rc = LG_ENOMEM;
			goto fail;
		}
		for (size_t i = 0; i < c->n; i++) {
			/* Each env keeps its env object (or child) in a
			 * worker record that no thread runs. */
			c->slots[i].w = worker_alloc(c, &c->slots[i]);
			if (!c->slots[i].w) {
				rc = LG_ENOMEM;
				goto fail;
			}
		}
		*out = c;
		return 0;
	}
	pthread_mutex_lock(&c->mu);
	c->resetting = c->n;
	for (size_t i = 0; i < c->n; i++) {
		rc = worker_start(c, &c->slots[i]);
		if (rc) {
			pthread_mutex_unlock(&c->mu);
			lg_errf(err, errlen, "collector: cannot start worker "
				"%zu", i);
			goto fail;
		}
	}
	pthread_mutex_unlock(&c->mu);
	*out = c;
	return 0;
fail:
	coll_free(c);
	return rc;
}

int coll_collect(coll *c, uint64_t min_steps, double max_s)
{
	double until = max_s > 0 ? lg_now_s() + max_s : 0;
	int rc;

	if (c->stopped)
		return LG_ECLOSED;
	if (c->o.mode == COLL_SERIAL) {
		c->goal += min_steps;
		return serial_collect(c, c->goal, until);
	}
	pthread_mutex_lock(&c->mu);
	c->goal += min_steps;
	if (c->st.steps < c->goal) {
		c->collecting = 1;
		pthread_cond_broadcast(&c->cv_work);
		kick_groups(c);
	}
	rc = 0;
	while (c->st.steps < c->goal && !c->fatal) {
		double next = watchdog(c), now;
		if (c->dead == c->n) {
			rc = LG_EIO;
			break;
		}
		now = lg_now_s();
		if (until > 0 && now >= until) {
			rc = LG_ETIMEOUT;
			break;
		}
		if (until > 0 && (!next || until < next))
			next = until;
		if (next > 0)
			cond_wait_until(&c->cv_caller, &c->mu, next);
		else
			pthread_cond_wait(&c->cv_caller, &c->mu);
	}
	if (!rc)
		rc = c->fatal;
	c->collecting = 0;
	pthread_mutex_unlock(&c->mu);
	return rc;
}

void coll_stats(coll *c, struct coll_stats *out)
{
	if (c->threads_up)
		pthread_mutex_lock(&c->mu);
	*out = c->st;
	out->dead_envs = c->dead;
	if (c->threads_up)
		pthread_mutex_unlock(&c->mu);
}

void coll_stop(coll *c)
{
	if (c->stopped || !c->threads_up)
		return;
	pthread_mutex_lock(&c->mu);
	c->stop = 1;
	c->collecting = 0;
	pthread_cond_broadcast(&c->cv_work);
	for (size_t k = 0; k < c->o.num_policies; k++)
		pthread_cond_broadcast(&c->groups[k].cv);
	pthread_mutex_unlock(&c->mu);
	for (size_t i = 0; i < c->n; i++) {
		struct slot *s = &c->slots[i];
		if (c->o.mode != COLL_SERIAL && s->w && s->w->started)
			pthread_join(s->w->th, NULL);
	}
	while (c->zombies) {
		struct worker *z = c->zombies;
		c->zombies = z->next;
		pthread_join(z->th, NULL);
		worker_free(z);
	}
	for (size_t i = 0; i < c->n; i++) {
		struct slot *s = &c->slots[i];
		child_kill(s);
		if (!c->fatal)
			for (int p = 0; p < c->spec.players; p++)
				if (learning(c, s, p))
					traj_flush(c, s, p);
		result_flush(c, s);
	}
	c->stopped = 1;
}

void coll_free(coll *c)
{
	if (!c)
		return;
	coll_stop(c);
	for (size_t i = 0; c->slots && i < c->n; i++) {
		struct slot *s = &c->slots[i];
		worker_free(s->w);
		free(s->obs);
		free(s->mask);
		for (int p = 0; p < ENV_MAX_PLAYERS; p++)
			traj_free(&s->tr[p]);
	}
	worker_free(c->serial_w);
	for (size_t k = 0; k < COLL_NETS_MAX; k++) {
		free(c->groups[k].rows);
		if (c->threads_up && k < c->o.num_policies)
			pthread_cond_destroy(&c->groups[k].cv);
	}
	if (c->threads_up) {
		pthread_cond_destroy(&c->cv_work);
		pthread_cond_destroy(&c->cv_caller);
		pthread_mutex_destroy(&c->mu);
		pthread_mutex_destroy(&c->sink_mu);
	}
	free(c->slots);
	free(c);
}
