/*
 * collector/host.c: env hosting. An op (create, reset, step) runs on the
 * env either in the calling worker's thread or, with `processes`, in the
 * slot's child process over a socketpair (a cmd out, a reply and the
 * acting seats' observations and masks back), so a game that crashes or
 * is not thread-safe only takes its child down. Either way the host lets
 * the baselines move after the op until a network must act or the
 * episode is over (auto-play), and fault injection runs where the env
 * runs.
 */
#include "collector/collector_internal.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

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
void coll_host_clear(struct host *h)
{
	env_mcts_free(h->mcts); /* bound to the env */
	env_mcts_free(h->fast);
	h->mcts = h->fast = NULL;
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

/* The actions of one env step into a[]: network seats play
 * m->actions, baseline seats choose here, all from the state before the
 * step (simultaneous moves). A sequential game's mover's action goes to
 * a[0] too, as env_advance_many reads it. */
static int host_actions(const coll *c, struct host *h, const struct cmd *m,
			int *a)
{
	int cur = env_current_player(h->e);
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
	if (cur != ENV_SIMULTANEOUS)
		a[0] = a[cur];
	return 0;
}

/* One env step. */
static int host_step(const coll *c, struct host *h, const struct cmd *m)
{
	int a[ENV_MAX_PLAYERS] = { 0 };
	int rc = host_actions(c, h, m, a);

	if (rc)
		return rc;
	if (env_current_player(h->e) == ENV_SIMULTANEOUS)
		return env_step_joint(h->e, a);
	return env_step(h->e, a[0]);
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
		coll_host_clear(h);
		char err[300] = "";
		eo.seed = m->seed;
		rc = env_new(&h->e, c->game, &eo, err, sizeof err);
		if (rc)
			LG_WARN("collector: env %zu: cannot create %s: %s", i,
				c->game, err[0] ? err : lg_strerror(rc));
	} else if (!h->e) {
		rc = LG_EINVAL;
	} else if (m->op == OP_RESET) {
		rc = env_reset(h->e, m->seed);
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

/* Wait until fd is readable by deadline (monotonic seconds): 0 ready,
 * 1 interrupted (ask again), LG_ETIMEOUT, LG_EIO. */
static int wait_readable(int fd, double deadline)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	double left = deadline - lg_now_s();
	int ms = left <= 0 ? 0 : (int)ceil(left * 1e3);
	int k = poll(&pf, 1, ms);

	if (k < 0 && errno == EINTR)
		return 1;
	if (k == 0)
		return LG_ETIMEOUT;
	return k < 0 ? LG_EIO : 0;
}

/* All n bytes of b sent to fd (out: never raising SIGPIPE) or read from
 * it (by deadline, monotonic seconds; <= 0: none), retried on EINTR and
 * short counts. LG_EIO (an error or the peer's end), LG_ETIMEOUT. */
struct mover {
	int fd, out;
	double deadline;
	int rc; /* wait_readable's LG_ETIMEOUT or LG_EIO */
};

/* lg_io_fn: one send or (after waiting for it) read of move_all's. */
static ssize_t move_some(void *ctx, void *b, size_t n)
{
	struct mover *m = ctx;

	if (!m->out && m->deadline > 0) {
		int rc = wait_readable(m->fd, m->deadline);
		if (rc == 1) {
			errno = EINTR; /* ask again */
			return -1;
		}
		if (rc) {
			m->rc = rc; /* moving nothing stops lg_io_all */
			return 0;
		}
	}
	return m->out ? send(m->fd, b, n, MSG_NOSIGNAL) : read(m->fd, b, n);
}

static int move_all(int fd, uint8_t *b, size_t n, double deadline, int out)
{
	struct mover m = { fd, out, deadline, 0 };
	int rc = lg_io_all(move_some, &m, b, n);

	return m.rc ? m.rc : rc;
}

static int write_all(int fd, const void *p, size_t n)
{
	/* move_all only reads through b when out is set */
	return move_all(fd, (uint8_t *)(uintptr_t)p, n, 0, 1);
}

/* Read n bytes by deadline (monotonic seconds; <= 0: none). */
static int read_all(int fd, void *p, size_t n, double deadline)
{
	return move_all(fd, p, n, deadline, 0);
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
	coll_host_clear(&h);
	free(obs);
	free(mask);
	_exit(0);
}

/* ---- the spawner --------------------------------------------------------
 *
 * Env children are forked by a helper process, itself forked by coll_new
 * before any collector thread exists, so every fork happens in a
 * single-threaded process: no child can inherit a lock (the allocator's
 * under a sanitizer, a plugin's, stdio's) that some other thread held at
 * the fork, and then wait on it forever. The spawner also keeps each
 * child's pid until it has killed and reaped it, so a pid is never
 * signalled after it could have been reused. It holds no other
 * descriptor of the collector's (no socket to the daemon outlives it),
 * and when the collector's end closes it kills its children and exits;
 * a child whose spawner dies gets SIGKILL. */

enum { SP_SPAWN = 1, SP_KILL = 2 };

struct sp_req {
	uint32_t op;
	uint32_t pad;
	uint64_t idx;
};

struct sp_rep {
	int32_t rc;
	int32_t pid;
};

static void sp_reap(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	*pid = 0;
}

/* A Unix socketpair of `type`, then fork: the pid (0 in the child), or
 * -1 with nothing left open. */
static pid_t pair_fork(int type, int sv[2])
{
	pid_t pid;

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv))
		return -1;
	if ((pid = fork()) < 0) {
		close(sv[0]);
		close(sv[1]);
	}
	return pid;
}

/* In the spawner: fork slot idx's child; *cfd gets the collector's end. */
static int sp_fork(const coll *c, size_t idx, int spfd, pid_t *kid, int *cfd)
{
	pid_t me = getpid(), pid;
	int sv[2];

	if ((pid = pair_fork(SOCK_STREAM, sv)) < 0)
		return LG_EIO;
	if (pid == 0) {
		close(spfd);
		close(sv[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != me) /* the spawner died before prctl */
			_exit(72);
		child_main(c, idx, sv[1]);
	}
	close(sv[1]);
	*kid = pid;
	*cfd = sv[0];
	return 0;
}

static int sp_send(int fd, struct sp_rep *r, int pass_fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec io = { r, sizeof *r };
	struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1 };

	if (pass_fd >= 0) {
		memset(&u, 0, sizeof u);
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof u.buf;
		CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&mh)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), &pass_fd, sizeof(int));
	}
	for (;;) {
		ssize_t k = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		return k == (ssize_t)sizeof *r ? 0 : LG_EIO;
	}
}

/* The spawner: serve requests until the collector's end closes. */
static void spawner_main(const coll *c, int fd)
{
	pid_t *kids = c->sp.kids;
	struct sp_req q;

	/* Keep stdio and our socket; drop the collector's other
	 * descriptors (its network connections among them). */
	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			_exit(73);
		fd = 3;
	}
	if (close_range(4, ~0u, 0)) /* before Linux 5.9: one by one */
		for (int fd2 = 4; fd2 < 65536; fd2++)
			close(fd2);
	/* We reap our children ourselves: never auto-reaped (an ignored
	 * SIGCHLD inherited from the collector would let a pid be reused
	 * under sp_reap's kill). */
	signal(SIGCHLD, SIG_DFL);
	for (;;) {
		struct sp_rep r = { 0, 0 };
		int cfd = -1;
		ssize_t k = recv(fd, &q, sizeof q, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k != (ssize_t)sizeof q || q.idx >= c->n)
			break;
		sp_reap(&kids[q.idx]);
		if (q.op == SP_SPAWN) {
			r.rc = sp_fork(c, (size_t)q.idx, fd, &kids[q.idx], &cfd);
			r.pid = kids[q.idx];
		}
		k = sp_send(fd, &r, cfd);
		if (cfd >= 0)
			close(cfd);
		if (k)
			break;
	}
	for (size_t i = 0; i < c->n; i++)
		sp_reap(&kids[i]);
	_exit(0);
}

int coll_spawner_start(coll *c)
{
	int sv[2];
	pid_t pid;

	c->sp.kids = calloc(c->n, sizeof *c->sp.kids);
	if (!c->sp.kids)
		return LG_ENOMEM;
	if ((pid = pair_fork(SOCK_SEQPACKET, sv)) < 0)
		return LG_EIO;
	if (pid == 0) {
		close(sv[0]);
		spawner_main(c, sv[1]);
	}
	close(sv[1]);
	pthread_mutex_init(&c->sp.mu, NULL);
	c->sp.fd = sv[0];
	c->sp.pid = pid;
	return 0;
}

void coll_spawner_stop(coll *c)
{
	if (c->sp.fd >= 0) {
		close(c->sp.fd); /* it kills its children and exits */
		while (waitpid(c->sp.pid, NULL, 0) < 0 && errno == EINTR)
			;
		pthread_mutex_destroy(&c->sp.mu);
		c->sp.fd = -1;
	}
	free(c->sp.kids);
	c->sp.kids = NULL;
}

/* One request to the spawner; for SP_SPAWN, *cfd gets the child's end. */
static int sp_call(coll *c, uint32_t op, size_t idx, pid_t *pid, int *cfd)
{
	struct sp_req q = { op, 0, idx };
	struct sp_rep r;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec io = { &r, sizeof r };
	struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof u.buf };
	struct cmsghdr *h;
	ssize_t k;
	int rc = 0;

	pthread_mutex_lock(&c->sp.mu);
	if (c->sp.fd < 0) { /* stopped, or a restart failed */
		pthread_mutex_unlock(&c->sp.mu);
		return LG_EIO;
	}
	do
		k = send(c->sp.fd, &q, sizeof q, MSG_NOSIGNAL);
	while (k < 0 && errno == EINTR);
	if (k == (ssize_t)sizeof q)
		do
			k = recvmsg(c->sp.fd, &mh, MSG_CMSG_CLOEXEC);
		while (k < 0 && errno == EINTR);
	pthread_mutex_unlock(&c->sp.mu);
	if (k != (ssize_t)sizeof r)
		return LG_ECLOSED; /* the spawner is gone */
	h = CMSG_FIRSTHDR(&mh);
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
		int fd;
		memcpy(&fd, CMSG_DATA(h), sizeof fd);
		if (cfd)
			*cfd = fd;
		else
			close(fd);
	} else if (cfd && !r.rc) {
		rc = LG_EIO;
	}
	if (pid)
		*pid = r.pid;
	return r.rc ? r.rc : rc;
}

void coll_child_kill(coll *c, struct slot *s)
{
	if (s->pid > 0)
		sp_call(c, SP_KILL, s->idx, NULL, NULL);
	if (s->fd >= 0)
		close(s->fd);
	s->pid = -1;
	s->fd = -1;
}

/* A new spawner for one that died (its children died with it: they
 * have PDEATHSIG), once per death however many workers notice: gen
 * is the generation the caller's failed call used. This fork is from the
 * threaded collector, the hazard the spawner exists to avoid, so it is
 * kept to this rare case and to SPAWNER_RESTARTS in a collector's life. */
#define SPAWNER_RESTARTS 8
static int spawner_restart(coll *c, unsigned gen)
{
	int rc = 0, sv[2];
	pid_t pid;

	pthread_mutex_lock(&c->sp.mu);
	if (c->sp.gen != gen)
		goto out; /* another worker did it */
	if (c->sp.restarts >= SPAWNER_RESTARTS) {
		rc = LG_ECLOSED;
		goto out;
	}
	LG_WARN("collector: the env spawner (pid %d) is gone; starting "
		"another", (int)c->sp.pid);
	close(c->sp.fd);
	while (waitpid(c->sp.pid, NULL, 0) < 0 && errno == EINTR)
		;
	c->sp.fd = -1;
	if ((pid = pair_fork(SOCK_SEQPACKET, sv)) < 0) {
		rc = LG_EIO;
		goto out;
	}
	if (pid == 0) {
		close(sv[0]);
		spawner_main(c, sv[1]);
	}
	close(sv[1]);
	c->sp.fd = sv[0];
	c->sp.pid = pid;
	__atomic_add_fetch(&c->sp.gen, 1, __ATOMIC_RELEASE);
	c->sp.restarts++;
out:
	pthread_mutex_unlock(&c->sp.mu);
	return rc;
}

static int child_spawn(coll *c, struct slot *s)
{
	pid_t pid = -1;
	unsigned gen = __atomic_load_n(&c->sp.gen, __ATOMIC_ACQUIRE);
	int fd = -1, rc = sp_call(c, SP_SPAWN, s->idx, &pid, &fd);

	if (rc == LG_ECLOSED && !spawner_restart(c, gen))
		rc = sp_call(c, SP_SPAWN, s->idx, &pid, &fd);
	if (rc) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	s->pid = pid;
	s->fd = fd;
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
		coll_child_kill(c, s);
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
		coll_child_kill(c, s);
	return rc;
}


int coll_run_op(coll *c, struct worker *w, const struct cmd *m,
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

/* Serial mode without child processes: n steps at once. Each slot's
 * actions are chosen as coll_run_op would, then every env advances in one
 * env_advance_many (so the steps of envs on one game server go to it as
 * one batch: one round trip for the round, not one per env), then each
 * lets its baselines move and is observed into its worker's robs/rmask.
 * rcs[i] and rs[i] as coll_run_op's. */
void coll_run_steps(coll *c, struct slot *const *ss, const struct cmd *ms,
		    size_t n, int *rcs, struct reply *rs)
{
	size_t np = (size_t)c->spec.players, k = 0;
	env *es[COLL_STEP_BATCH];
	int acts[COLL_STEP_BATCH * ENV_MAX_PLAYERS], rr[COLL_STEP_BATCH];
	uint64_t seeds[COLL_STEP_BATCH] = { 0 };
	size_t idx[COLL_STEP_BATCH];

	for (size_t i = 0; i < n; i++) {
		struct host *h = &ss[i]->w->h;
		const struct cmd *m = &ms[i];
		rs[i] = (struct reply){ 0 };
		rcs[i] = fault_check(c, ss[i]->idx, m->episode, m->step, 0);
		if (!rcs[i] && !h->e)
			rcs[i] = LG_EINVAL;
		if (!rcs[i])
			rcs[i] = host_actions(c, h, m, acts + k * np);
		if (rcs[i])
			continue;
		es[k] = h->e;
		idx[k++] = i;
	}
	if (k && env_advance_many(es, acts, seeds, k, rr))
		for (size_t j = 0; j < k; j++)
			rr[j] = LG_ENOMEM;
	for (size_t j = 0; j < k; j++) {
		size_t i = idx[j];
		struct worker *w = ss[i]->w;
		rcs[i] = rr[j];
		if (!rcs[i])
			rcs[i] = autoplay(c, &w->h, &ms[i], &rs[i].moves);
		if (!rcs[i])
			local_observe(c, w->h.e, &rs[i], w->robs, w->rmask);
	}
}
