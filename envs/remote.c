/*
 * envs/remote.c: games served by another process over net/game.proto
 * (any language; python/league_game is the reference server), of 1 to 8
 * seats. The Hello offers protocol versions 1 and 2 and the server picks
 * (a version-1 server answers 1 and is played as before).
 *
 * Envs of one process that name the same server (address and params)
 * share one connection. An op (reset, step, close) joins the
 * connection's queue; whichever thread then finds the connection idle
 * becomes the leader: it sends every queued op as one Batch, reads the
 * BatchReply, hands each op its State and wakes the others. Envs that
 * step at once (a collector's workers) so share one round trip, and no
 * thread exists for the connection alone. A connection that fails (I/O
 * error, the deadline, a reply that breaks the protocol) is broken for
 * good: its ops fail with LG_EIO, and the envs the caller recreates get
 * a new one. A State that says the env failed (error set) fails only
 * that op.
 *
 * A connection belongs to the process that opened it: a forked child
 * (the collector's env processes) never touches its parent's, whose
 * mutex it may have copied locked.
 *
 * What the replies say is checked and decoded by remote_codec.c; this
 * file has the connections, the frames on them and the queue of ops.
 */
#include "envs/env_internal.h"

#include "game.pb-c.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct rop {
	struct rop *next;
	struct env_remote *r;
	int kind;
	uint64_t seed;
	int32_t act[ENV_MAX_PLAYERS];
	int nact;
	int done, rc;
	struct rwaiter *w; /* its caller's */
};

/* A caller of conn_call_many, asleep until its ops are answered or it
 * must lead. */
struct rwaiter {
	pthread_cond_t cv;
	size_t pending;
	int lead;
};

struct rconn {
	struct rconn *next; /* the registry */
	pid_t owner;
	char addr[ENV_REMOTE_MAX];
	struct env_params params;
	double timeout_s;
	int fd, refs, broken, busy;
	uint64_t next_id;
	struct env_spec spec;
	unsigned version; /* of net/game.proto, agreed in the Welcome */
	pthread_mutex_t mu;
	struct rop *head, **tail;
	/* the leader's: the batch being encoded, and frames */
	uint64_t *envs, *seeds;
	uint32_t *kindw;
	int32_t *acts;
	struct rop **taken;
	struct env_remote **views;
	int *kinds, *seats, *rcs; /* seats: a text op's */
	size_t opcap;
	uint8_t *buf;
	size_t bufcap;
};

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rconn *conns;
static uint64_t n_batches, n_ops; /* this process's, for tests and benches */

void env_remote_counters(uint64_t *batches, uint64_t *ops)
{
	*batches = __atomic_load_n(&n_batches, __ATOMIC_RELAXED);
	*ops = __atomic_load_n(&n_ops, __ATOMIC_RELAXED);
}

/* ---- frames ---------------------------------------------------------- */

static int io_wait(int fd, short ev, double deadline)
{
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = ev };
		double left = deadline - lg_now_s();
		int k;
		if (left <= 0)
			return LG_ETIMEOUT;
		k = poll(&pf, 1, (int)ceil(left * 1e3));
		if (k > 0)
			return 0;
		if (k == 0)
			return LG_ETIMEOUT;
		if (errno != EINTR)
			return LG_EIO;
	}
}

/* Move n bytes at p over fd by deadline: sent when ev is POLLOUT, else
 * received. 0, LG_ETIMEOUT, or LG_EIO (an error, or the peer closed). */
static int io_all(int fd, uint8_t *p, size_t n, short ev, double deadline)
{
	while (n) {
		ssize_t k = ev == POLLOUT
				    ? send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT)
				    : recv(fd, p, n, MSG_DONTWAIT);
		if (k > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		if (k == 0)
			return LG_EIO; /* the server closed */
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int rc = io_wait(fd, ev, deadline);
			if (rc)
				return rc;
			continue;
		}
		return LG_EIO;
	}
	return 0;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *nb;

	if (need <= *cap)
		return 0;
	nb = realloc(*buf, need);
	if (!nb)
		return LG_ENOMEM;
	*buf = nb;
	*cap = need;
	return 0;
}

/* One frame out of msg (packed after a 4-byte length) by deadline. */
static int send_msg(int fd, const ProtobufCMessage *msg, uint8_t **buf,
		    size_t *cap, double deadline)
{
	size_t n = protobuf_c_message_get_packed_size(msg);
	int rc;

	if (n > ENV_REMOTE_FRAME_MAX)
		return LG_ERANGE;
	if ((rc = grow(buf, cap, n + 4)))
		return rc;
	(*buf)[0] = (uint8_t)n;
	(*buf)[1] = (uint8_t)(n >> 8);
	(*buf)[2] = (uint8_t)(n >> 16);
	(*buf)[3] = (uint8_t)(n >> 24);
	protobuf_c_message_pack(msg, *buf + 4);
	return io_all(fd, *buf, n + 4, POLLOUT, deadline);
}

/* One frame's body into *buf; *len its length. */
static int recv_frame(int fd, uint8_t **buf, size_t *cap, size_t *len,
		      double deadline)
{
	uint8_t h[4];
	size_t n;
	int rc;

	if ((rc = io_all(fd, h, 4, POLLIN, deadline)))
		return rc;
	n = (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 |
	    (size_t)h[3] << 24;
	if (n > ENV_REMOTE_FRAME_MAX)
		return LG_EPROTO;
	if ((rc = grow(buf, cap, n ? n : 1)))
		return rc;
	*len = n;
	return io_all(fd, *buf, n, POLLIN, deadline);
}

/* ---- connections ------------------------------------------------------ */

static int dial(const char *addr, double timeout_s, char *err, size_t errlen)
{
	struct timeval tv = { (time_t)timeout_s,
			      (suseconds_t)((timeout_s - floor(timeout_s)) *
					    1e6) };
	int fd = -1, one = 1;

	if (!strncmp(addr, "unix:", 5)) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		if (strlen(addr + 5) >= sizeof sa.sun_path || !addr[5]) {
			lg_errf(err, errlen, "'%s': bad Unix socket path",
				addr);
			return LG_EINVAL;
		}
		memcpy(sa.sun_path, addr + 5, strlen(addr + 5) + 1);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
					 sizeof tv) ||
		    connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
			lg_errf(err, errlen, "cannot reach the game server "
				"at %s: %s", addr, strerror(errno));
			if (fd >= 0)
				close(fd);
			return LG_ENOTFOUND;
		}
		return fd;
	}
	{
		char host[ENV_REMOTE_MAX];
		const char *colon = strrchr(addr, ':');
		struct addrinfo hints = { .ai_family = AF_UNSPEC,
					  .ai_socktype = SOCK_STREAM },
				*ai = NULL, *a;
		int e;

		if (!colon || colon == addr || !colon[1] ||
		    (size_t)(colon - addr) >= sizeof host) {
			lg_errf(err, errlen, "'%s': not HOST:PORT or "
				"unix:PATH", addr);
			return LG_EINVAL;
		}
		memcpy(host, addr, (size_t)(colon - addr));
		host[colon - addr] = 0;
		if ((e = getaddrinfo(host, colon + 1, &hints, &ai))) {
			lg_errf(err, errlen, "'%s': %s", addr,
				gai_strerror(e));
			return LG_EINVAL;
		}
		errno = 0;
		for (a = ai; a; a = a->ai_next) {
			fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
				    a->ai_protocol);
			if (fd < 0)
				continue;
			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
				   sizeof tv);
			if (!connect(fd, a->ai_addr, a->ai_addrlen))
				break;
			e = errno;
			close(fd);
			fd = -1;
			errno = e;
		}
		freeaddrinfo(ai);
		if (fd < 0) {
			lg_errf(err, errlen, "cannot reach the game server "
				"at %s: %s", addr, strerror(errno));
			return LG_ENOTFOUND;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		return fd;
	}
}

static void conn_free(struct rconn *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	pthread_mutex_destroy(&c->mu);
	free(c->envs);
	free(c->seeds);
	free(c->kindw);
	free(c->acts);
	free(c->taken);
	free(c->views);
	free(c->kinds);
	free(c->seats);
	free(c->rcs);
	free(c->buf);
	free(c);
}

/* Connect, say Hello (version 1, and every version we speak: a
 * version-1 server answers 1, a newer one the highest both speak), read
 * the Welcome. */
static int conn_open(struct rconn **out, const char *name,
		     const struct env_opts *o, char *err, size_t errlen)
{
	League__Game__Hello h = LEAGUE__GAME__HELLO__INIT;
	League__Game__Param pv[ENV_PARAMS_MAX], *pp[ENV_PARAMS_MAX];
	uint32_t versions[ENV_REMOTE_VERSION];
	char msg[300], want[ENV_NAME_MAX + 1];
	struct rconn *c = calloc(1, sizeof *c);
	double dl;
	size_t len;
	int rc;

	*out = NULL;
	if (!c)
		return LG_ENOMEM;
	c->owner = getpid();
	snprintf(c->addr, sizeof c->addr, "%s", o->remote);
	c->params = o->params;
	c->timeout_s = o->remote_timeout_s > 0 ? o->remote_timeout_s
					       : ENV_REMOTE_TIMEOUT_DEFAULT;
	c->tail = &c->head;
	pthread_mutex_init(&c->mu, NULL);
	c->fd = dial(o->remote, c->timeout_s, err, errlen);
	if (c->fd < 0) {
		rc = c->fd;
		c->fd = -1;
		conn_free(c);
		return rc;
	}
	dl = lg_now_s() + c->timeout_s;
	h.version = 1;
	for (uint32_t v = 1; v <= ENV_REMOTE_VERSION; v++)
		versions[v - 1] = v;
	h.n_versions = ENV_REMOTE_VERSION;
	h.versions = versions;
	snprintf(want, sizeof want, "%s", name ? name : "");
	h.game = want;
	h.n_params = o->params.n;
	h.params = pp;
	for (uint32_t i = 0; i < o->params.n; i++) {
		league__game__param__init(&pv[i]);
		pv[i].key = (char *)c->params.key[i];
		pv[i].value = (char *)c->params.val[i];
		pp[i] = &pv[i];
	}
	rc = send_msg(c->fd, &h.base, &c->buf, &c->bufcap, dl);
	if (!rc)
		rc = recv_frame(c->fd, &c->buf, &c->bufcap, &len, dl);
	if (rc) {
		lg_errf(err, errlen, "game server at %s: no Welcome: %s",
			o->remote, rc == LG_EIO ? "it closed the connection"
						: lg_strerror(rc));
		conn_free(c);
		return rc == LG_EIO ? LG_ENOTFOUND : rc;
	}
	msg[0] = 0;
	if ((rc = env_remote_decode_welcome(c->buf, len, name, &c->spec,
					    &c->version, msg, sizeof msg))) {
		lg_errf(err, errlen, "game server at %s: %s", o->remote, msg);
		conn_free(c);
		return rc == LG_EPROTO ? LG_EINVAL : rc;
	}
	*out = c;
	return 0;
}

static int same_params(const struct env_params *a, const struct env_params *b)
{
	if (a->n != b->n)
		return 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (strcmp(a->key[i], b->key[i]) || strcmp(a->val[i], b->val[i]))
			return 0;
	return 1;
}

/* ---- the leader's round trip ----------------------------------------- */

static int ensure_ops(struct rconn *c, size_t n)
{
	uint64_t *e, *sd;
	uint32_t *k;
	int32_t *a;
	struct rop **t;
	struct env_remote **v;
	int *ki, *se, *r;

	if (n <= c->opcap)
		return 0;
	n = n < 16 ? 16 : 2 * n;
#define GROW(field, var, count)                                        \
	do {                                                           \
		var = realloc(c->field, (count) * sizeof *var);         \
		if (!var)                                              \
			return LG_ENOMEM;                              \
		c->field = var;                                        \
	} while (0)
	GROW(envs, e, n);
	GROW(seeds, sd, n);
	GROW(kindw, k, n);
	GROW(acts, a, n * ENV_MAX_PLAYERS);
	GROW(taken, t, n);
	GROW(views, v, n);
	GROW(kinds, ki, n);
	GROW(seats, se, n);
	GROW(rcs, r, n);
#undef GROW
	c->opcap = n;
	return 0;
}

/* Send ops (a list) as one Batch and hand out the reply. Called by the
 * leader without c->mu; returns a connection error (0: each op's rc is
 * set). */
static int exchange(struct rconn *c, struct rop *ops)
{
	League__Game__Batch b = LEAGUE__GAME__BATCH__INIT;
	double dl = lg_now_s() + c->timeout_s;
	size_t n = 0, len, k;
	char msg[300];
	int rc;

	for (struct rop *q = ops; q; q = q->next)
		n++;
	if ((rc = ensure_ops(c, n)))
		return rc;
	k = 0;
	for (struct rop *q = ops; q; q = q->next, k++) {
		c->envs[k] = q->r->id;
		c->kindw[k] = (uint32_t)q->kind; /* net/game.proto's numbers */
		if (q->kind == ENV_REMOTE_RESET)
			c->seeds[b.n_seed++] = q->seed;
		/* a step's actions; a text op's seat */
		for (int i = 0; (q->kind == ENV_REMOTE_STEP ||
				 q->kind == ENV_REMOTE_TEXT) && i < q->nact; i++)
			c->acts[b.n_actions++] = q->act[i];
		/* a new state: the text the env holds is stale */
		if (q->kind == ENV_REMOTE_RESET || q->kind == ENV_REMOTE_STEP)
			q->r->gen++;
		c->taken[k] = q;
	}
	b.n_env = b.n_kind = n;
	b.env = c->envs;
	b.kind = c->kindw;
	b.seed = c->seeds;
	b.actions = c->acts;
	__atomic_add_fetch(&n_batches, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&n_ops, n, __ATOMIC_RELAXED);
	rc = send_msg(c->fd, &b.base, &c->buf, &c->bufcap, dl);
	if (!rc)
		rc = recv_frame(c->fd, &c->buf, &c->bufcap, &len, dl);
	if (rc) {
		LG_WARN("remote game %s: %s", c->addr,
			rc == LG_EIO ? "the server closed the connection"
				     : lg_strerror(rc));
		return rc == LG_ETIMEOUT ? rc : LG_EIO;
	}
	for (k = 0; k < n; k++) {
		c->kinds[k] = c->taken[k]->kind;
		c->seats[k] = c->taken[k]->act[0];
		c->views[k] = c->taken[k]->r;
	}
	msg[0] = 0;
	if (env_remote_decode_batch(c->buf, len, &c->spec, c->version,
				    c->kinds, c->seats, n, c->views, c->rcs,
				    c->addr, msg, sizeof msg)) {
		LG_WARN("remote game %s: closing: %s", c->addr, msg);
		return LG_EIO;
	}
	/* A game's own failure breaks only its env's episode. */
	for (k = 0; k < n; k++)
		c->taken[k]->rc = c->rcs[k] ? LG_EIO : 0;
	return 0;
}

/* Run ops[0..n) (one caller's) on connection c: queue them, and lead a
 * round trip when nobody else is. A caller sleeps on its own waiter and
 * is woken once: when its last op is answered, or to lead. The leader
 * wakes the callers it finished and hands the lead to the first caller
 * still queued (with many envs a broadcast woke every waiter at every
 * batch, and the client cost more CPU than the server). */
static void conn_call_many(struct rconn *c, struct rop *ops, size_t n)
{
	struct rwaiter me = { .pending = n };

	pthread_cond_init(&me.cv, NULL);
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < n; i++) {
		ops[i].w = &me;
		ops[i].next = NULL;
		ops[i].done = 0;
		if (c->broken) {
			ops[i].rc = LG_EIO;
			ops[i].done = 1;
			me.pending--;
			continue;
		}
		*c->tail = &ops[i];
		c->tail = &ops[i].next;
	}
	if (me.pending && c->busy)
		while (me.pending && !me.lead)
			pthread_cond_wait(&me.cv, &c->mu);
	else if (me.pending)
		c->busy = 1;
	/* Done, or leading (busy is ours): send the queue, ours in it. */
	while (me.pending) {
		struct rop *take = c->head, *q, *next;
		int rc;
		me.lead = 0;
		c->head = NULL;
		c->tail = &c->head;
		pthread_mutex_unlock(&c->mu);
		rc = exchange(c, take);
		pthread_mutex_lock(&c->mu);
		if (rc) {
			c->broken = 1; /* the queued ones fail too */
			for (q = take; q->next; q = q->next)
				;
			q->next = c->head;
			c->head = NULL;
			c->tail = &c->head;
		}
		for (q = take; q; q = next) {
			struct rwaiter *w = q->w;
			next = q->next; /* q may be gone once w wakes */
			if (rc)
				q->rc = LG_EIO;
			q->done = 1;
			if (--w->pending == 0 && w != &me)
				pthread_cond_signal(&w->cv);
		}
		if (c->head) { /* more came meanwhile: its caller leads */
			c->head->w->lead = 1;
			pthread_cond_signal(&c->head->w->cv);
		} else {
			c->busy = 0;
		}
	}
	pthread_mutex_unlock(&c->mu);
	pthread_cond_destroy(&me.cv);
}

static int conn_call(struct rconn *c, struct rop *op)
{
	conn_call_many(c, op, 1);
	return op->rc;
}

/* ---- envs on a connection --------------------------------------------- */

/* This process's live connection to o's server with o's params (and, if
 * named, that game), or NULL. Caller holds reg_mu. */
static struct rconn *find_conn(pid_t me, const char *name,
			       const struct env_opts *o)
{
	for (struct rconn *c = conns; c; c = c->next) {
		int broken;
		if (c->owner != me || strcmp(c->addr, o->remote) ||
		    !same_params(&c->params, &o->params) ||
		    (name && name[0] && strcmp(name, c->spec.name)))
			continue;
		pthread_mutex_lock(&c->mu);
		broken = c->broken;
		pthread_mutex_unlock(&c->mu);
		if (!broken)
			return c;
	}
	return NULL;
}

int env_remote_open(struct env_remote **out, const char *name,
		    const struct env_opts *o, struct env_spec *spec,
		    char *err, size_t errlen)
{
	struct env_remote *r;
	struct rconn *c;
	pid_t me = getpid();
	uint64_t id = 0;
	int rc = 0;

	*out = NULL;
	pthread_mutex_lock(&reg_mu);
	c = find_conn(me, name, o);
	if (!c) {
		/* Dial and greet without reg_mu: a server that takes its
		 * time must not hold up the other envs' opens and closes.
		 * Then keep ours, or the one another thread added meanwhile. */
		struct rconn *fresh = NULL;
		pthread_mutex_unlock(&reg_mu);
		rc = conn_open(&fresh, name, o, err, errlen);
		if (rc)
			return rc;
		pthread_mutex_lock(&reg_mu);
		c = find_conn(me, name, o);
		if (c) {
			conn_free(fresh);
		} else {
			c = fresh;
			c->next = conns;
			conns = c;
		}
	}
	c->refs++;
	id = ++c->next_id; /* only opens touch it, under reg_mu */
	pthread_mutex_unlock(&reg_mu);
	/* the binding and its rows: one block */
	size_t np = (size_t)c->spec.players;
	const struct lg_part parts[] = {
		LG_PART(struct env_remote, obs, np * c->spec.obs_len),
		LG_PART(struct env_remote, mask,
			np * (size_t)c->spec.num_actions),
	};
	r = lg_block_new(sizeof *r, parts, LG_ARRAY_LEN(parts));
	if (r) {
		r->c = c;
		r->id = id;
		r->player = -1;
	} else {
		lg_errf(err, errlen, "out of memory");
	}
	*spec = c->spec;
	if (!r) {
		struct env_remote tmp = { .c = c };
		env_remote_close(&tmp);
		return LG_ENOMEM;
	}
	*out = r;
	return 0;
}

void env_remote_close(struct env_remote *r)
{
	struct rconn *c, **pp;

	if (!r)
		return;
	c = r->c;
	if (r->id) {
		struct rop op = { .r = r, .kind = ENV_REMOTE_CLOSE };
		conn_call(c, &op);
	}
	pthread_mutex_lock(&reg_mu);
	if (--c->refs == 0) {
		for (pp = &conns; *pp && *pp != c; pp = &(*pp)->next)
			;
		if (*pp)
			*pp = c->next;
		conn_free(c);
	}
	pthread_mutex_unlock(&reg_mu);
	if (r->obs) { /* not the stand-in of a failed open */
		free(r->text);
		free(r); /* one block with its rows */
	}
}

int env_remote_reset(struct env_remote *r, uint64_t seed)
{
	struct rop op = { .r = r, .kind = ENV_REMOTE_RESET, .seed = seed };
	int rc = conn_call(r->c, &op);

	if (rc)
		r->player = -1;
	return rc;
}

int env_remote_step(struct env_remote *r, const int *actions, int n)
{
	struct rop op = { .r = r, .kind = ENV_REMOTE_STEP, .nact = n };
	int rc;

	for (int i = 0; i < n; i++)
		op.act[i] = actions[i];
	rc = conn_call(r->c, &op);
	if (rc)
		r->player = -1;
	return rc;
}

/* r's text for seat at its state: asked of the server (one TEXT op)
 * unless r holds it. */
static int remote_text(struct env_remote *r, int seat)
{
	const struct env_spec *sp = &r->c->spec;
	struct rop op = { .r = r, .kind = ENV_REMOTE_TEXT, .nact = 1 };
	int rc;

	if (!(sp->flags & ENV_F_TEXT))
		return LG_EUNSUPP;
	if (seat < 0 || seat >= sp->players)
		return LG_EINVAL;
	if (r->text_have && r->text_gen == r->gen && r->text_seat == seat)
		return 0;
	if (!r->text) { /* text and names: one block, kept for the env */
		r->text = malloc(ENV_TEXT_MAX + (size_t)sp->num_actions *
						sizeof *r->names);
		if (!r->text)
			return LG_ENOMEM;
		r->names = (char (*)[ENV_ACTION_NAME_MAX])(void *)(r->text +
								 ENV_TEXT_MAX);
	}
	r->text_have = 0;
	op.act[0] = seat;
	if ((rc = conn_call(r->c, &op))) {
		r->player = -1;
		return rc;
	}
	r->text_have = 1;
	r->text_gen = r->gen;
	r->text_seat = seat;
	return 0;
}

int env_remote_describe(struct env_remote *r, int seat, char *buf,
			size_t len)
{
	int rc = remote_text(r, seat);

	if (!rc)
		snprintf(buf, len, "%s", r->text);
	return rc;
}

int env_remote_action_name(struct env_remote *r, int seat, int action,
			   char *buf, size_t len)
{
	int rc = remote_text(r, seat);

	if (rc)
		return rc;
	if (action < 0 || action >= r->c->spec.seat[seat].num_actions)
		return LG_EINVAL;
	if (r->names[action][0])
		snprintf(buf, len, "%s", r->names[action]);
	else
		snprintf(buf, len, "%d", action);
	return 0;
}

/* n ops, run as batches per connection (see conn_call_many): op i is a
 * reset from seeds[i] when kinds[i] is ENV_REMOTE_RESET, else a step with
 * actions[i * nact ...]. */
static int ops_many(struct env_remote *const *rs, const int *kinds,
		    const int *actions, int nact, const uint64_t *seeds,
		    size_t n, int *rcs)
{
	struct rop stack[64], *ops = n <= 64 ? stack : calloc(n, sizeof *ops);
	size_t i = 0;

	if (!ops)
		return LG_ENOMEM;
	while (i < n) {
		/* a run of envs on one connection goes as one call */
		size_t j = i;
		while (j < n && rs[j]->c == rs[i]->c)
			j++;
		for (size_t k = i; k < j; k++) {
			memset(&ops[k], 0, sizeof ops[k]);
			ops[k].r = rs[k];
			ops[k].kind = kinds[k];
			ops[k].seed = seeds ? seeds[k] : 0;
			ops[k].nact = ops[k].kind == ENV_REMOTE_STEP ? nact : 0;
			for (int a = 0; a < ops[k].nact; a++)
				ops[k].act[a] = actions[k * (size_t)nact +
							(size_t)a];
		}
		conn_call_many(rs[i]->c, ops + i, j - i);
		for (size_t k = i; k < j; k++) {
			rcs[k] = ops[k].rc;
			if (rcs[k])
				rs[k]->player = -1;
		}
		i = j;
	}
	if (ops != stack)
		free(ops);
	return 0;
}

int env_remote_advance_many(struct env_remote *const *rs, const int *resets,
			    const int *actions, int nact,
			    const uint64_t *seeds, size_t n, int *rcs)
{
	int stack[64] = { 0 }, *kinds = n <= 64 ? stack : malloc(n * sizeof *kinds);
	int rc;

	if (!kinds)
		return LG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		kinds[i] = resets[i] ? ENV_REMOTE_RESET : ENV_REMOTE_STEP;
	rc = ops_many(rs, kinds, actions, nact, seeds, n, rcs);
	if (kinds != stack)
		free(kinds);
	return rc;
}
