/* tests/proto.c: the test protocol helpers (see proto.h). */
#include "tests/proto.h"

#include <check.h>
#include <event2/event.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "conf/config.h"
#include "conf/options.h"
#include "tests/testutil.h"

void tp_league_open(struct tp_league *L, const char *yaml, int resume,
		    uint32_t probe_jobs)
{
	struct cfg c;
	char err[512];
	int rc;

	if (!resume)
		tu_mkdtemp(L->dir, sizeof L->dir);
	ck_assert_msg(cfg_load_string(&c, yaml, strlen(yaml), "test.yaml", err,
				      sizeof err) == 0, "%s", err);
	ck_assert_ptr_nonnull(L->base = event_base_new());
	struct league_daemon_opts o = {
		.cfg = &c, .dir = L->dir, .resume = resume, .port = 0,
		.http_port = 0, .store_flags = STORE_NOSYNC,
		.probe_jobs = probe_jobs,
	};
	rc = league_daemon_new(&L->d, L->base, &o, err, sizeof err);
	ck_assert_msg(rc == 0, "league_daemon_new: %s (%s)", err,
		      lg_strerror(rc));
}

void tp_league_turn(struct tp_league *L)
{
	/* Two passes: a close (deferred to the loop) may queue more. */
	for (int i = 0; i < 2; i++)
		event_base_loop(L->base, EVLOOP_NONBLOCK);
}

void tp_league_close(struct tp_league *L, int remove)
{
	tp_league_turn(L);
	league_daemon_free(L->d);
	event_base_free(L->base);
	L->d = NULL;
	L->base = NULL;
	if (remove)
		tu_rmrf(L->dir);
}

void tp_attach(struct tp_league *L, struct tp_peer *p, int role,
	       const char *name)
{
	memset(p, 0, sizeof *p);
	p->L = L;
	p->ss = league_server_attach(league_daemon_server(L->d), role, name);
	ck_assert_ptr_nonnull(p->ss);
}

void tp_detach(struct tp_peer *p)
{
	league_session_close(p->ss, "test: connection lost");
	tp_league_turn(p->L);
	p->ss = NULL;
}

void tp_connect(struct tp_peer *p, uint16_t port, int role,
		const char *name, const char *token)
{
	struct net_client_opts o = {
		.host = "127.0.0.1", .port = port, .token = token,
		.role = role, .name = name, .give_up_s = 10,
	};
	char err[256];

	memset(p, 0, sizeof *p);
	ck_assert_msg(net_client_connect(&p->c, &o, err, sizeof err) == 0,
		      "%s", err);
}

void tp_close(struct tp_peer *p)
{
	net_client_close(p->c);
	p->c = NULL;
}

/* In-process: the request through the codec (the daemon owns what it is
 * fed), one loop turn (the commit, then the reply), the reply out. */
static net_msg *call_inproc(struct tp_peer *p, net_msg *req)
{
	static uint64_t seq;
	lg_buf b = { 0 };
	net_msg *m = NULL, *r = NULL;
	size_t used;
	char err[256];

	req->seq = ++seq;
	ck_assert_int_eq(net_frame_encode(req, &b), 0);
	ck_assert_int_eq(net_frame_decode(b.data, b.len, b.len, &m, &used,
					  err, sizeof err), 0);
	lg_buf_free(&b);
	league_session_feed(p->ss, m);
	tp_league_turn(p->L);
	ck_assert_msg(league_session_take(p->ss, &r) == 0,
		      "no reply to %s", net_msg_name(req));
	ck_assert_uint_eq(r->reply_to, req->seq);
	return r;
}

net_msg *tp_call(struct tp_peer *p, net_msg *req)
{
	net_msg *r = NULL;
	char err[256];

	if (p->ss)
		return call_inproc(p, req);
	ck_assert_msg(net_client_call(p->c, req, &r, 10, err, sizeof err) == 0,
		      "%s: %s", net_msg_name(req), err);
	return r;
}

void tp_session_ack(league_session *ss, net_msg *m)
{
	net_msg r = LEAGUE__ENVELOPE__INIT;
	League__Ack ack = LEAGUE__ACK__INIT;

	ack.id = m->seq;
	r.reply_to = m->seq;
	r.body_case = LEAGUE__ENVELOPE__BODY_ACK;
	r.ack = &ack;
	league_session_send(ss, &r);
	net_msg_free(m);
}

int tp_ack_status(net_msg *r)
{
	ck_assert_msg(r->body_case == LEAGUE__ENVELOPE__BODY_ACK,
		      "expected an ack, got %s", net_msg_name(r));
	return r->ack->status;
}

void tp_register_collector(struct tp_peer *p, uint32_t envs,
			   uint32_t max_jobs)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__Register rg = LEAGUE__REGISTER__INIT;

	rg.envs = envs;
	rg.max_jobs = max_jobs;
	req.body_case = LEAGUE__ENVELOPE__BODY_REGISTER;
	req.register_ = &rg;
	r = tp_call(p, &req);
	ck_assert_int_eq(r->body_case, LEAGUE__ENVELOPE__BODY_REGISTER_REPLY);
	net_msg_free(r);
}

void tp_blob(const struct tp_peer *p, const char *tag, lg_buf *out)
{
	nn *n = NULL;

	if (!p->have_shape) {
		ck_assert_int_eq(lg_buf_append(out, tag, strlen(tag)), 0);
		return;
	}
	ck_assert_int_eq(nn_new(&n, &p->shape,
				lg_crc32c(0, tag, strlen(tag))), 0);
	ck_assert_int_eq(nn_save(n, out), 0);
	nn_free(n);
}

net_msg *tp_params_put_raw(struct tp_peer *p, uint32_t player,
			   uint64_t steps, const void *blob, size_t len)
{
	net_msg req = LEAGUE__ENVELOPE__INIT;
	League__ParamsPut pp = LEAGUE__PARAMS_PUT__INIT;

	pp.player = player;
	pp.player_steps = steps;
	pp.blob.data = (uint8_t *)(uintptr_t)blob;
	pp.blob.len = len;
	req.body_case = LEAGUE__ENVELOPE__BODY_PARAMS_PUT;
	req.params_put = &pp;
	return tp_call(p, &req);
}

net_msg *tp_params_put(struct tp_peer *p, uint32_t player, uint64_t steps,
		       const char *tag)
{
	lg_buf b = { 0 };
	net_msg *r;

	tp_blob(p, tag, &b);
	r = tp_params_put_raw(p, player, steps, b.data, b.len);
	lg_buf_free(&b);
	return r;
}

/* The league's model, from the config a RegisterReply carried. */
static void take_shape(struct tp_peer *p, const char *yaml)
{
	static struct cfg c;
	struct env_opts eo;
	struct env_spec spec;
	char err[512];

	ck_assert_msg(cfg_load_string(&c, yaml, strlen(yaml), "handed",
				      err, sizeof err) == 0, "%s", err);
	league_env_opts(&c, &eo);
	ck_assert_msg(env_check(c.env.plugin[0] || c.env.remote[0]
					? NULL : c.env.name,
				&eo, &spec, err, sizeof err) == 0, "%s", err);
	league_nn_shape(&c, &spec, &p->shape);
	p->have_shape = 1;
}

int tp_fake_learner(struct tp_peer *p, uint32_t player)
{
	return tp_fake_learner_at(p, player, "127.0.0.1:9");
}

int tp_fake_learner_at(struct tp_peer *p, uint32_t player,
		       const char *endpoint)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__Register rg = LEAGUE__REGISTER__INIT;
	int fresh, status;

	rg.player = player;
	rg.trajectory_endpoint = (char *)(uintptr_t)endpoint;
	req.body_case = LEAGUE__ENVELOPE__BODY_REGISTER;
	req.register_ = &rg;
	r = tp_call(p, &req);
	if (r->body_case == LEAGUE__ENVELOPE__BODY_ACK) {
		status = r->ack->status;
		net_msg_free(r);
		return status;
	}
	ck_assert_int_eq(r->body_case, LEAGUE__ENVELOPE__BODY_REGISTER_REPLY);
	fresh = r->register_reply->params.len == 0;
	take_shape(p, r->register_reply->config);
	net_msg_free(r);
	if (fresh) {
		r = tp_params_put(p, player, 0, "params");
		ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_OK);
		net_msg_free(r);
	}
	return LEAGUE__STATUS__STATUS_OK;
}

size_t tp_request_jobs(struct tp_peer *p, uint32_t want, uint64_t *ids,
		       int *status)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__JobRequest jq = LEAGUE__JOB_REQUEST__INIT;
	size_t n;

	jq.max_jobs = want;
	req.body_case = LEAGUE__ENVELOPE__BODY_JOB_REQUEST;
	req.job_request = &jq;
	r = tp_call(p, &req);
	ck_assert_int_eq(r->body_case, LEAGUE__ENVELOPE__BODY_JOBS);
	n = r->jobs->n_jobs;
	ck_assert_uint_le(n, want);
	for (size_t i = 0; ids && i < n; i++)
		ids[i] = r->jobs->jobs[i]->job_id;
	*status = r->jobs->status;
	net_msg_free(r);
	return n;
}

int tp_take_job(struct tp_peer *p, struct tp_job *ji)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__JobRequest jq = LEAGUE__JOB_REQUEST__INIT;
	int got = 0;

	jq.max_jobs = 1;
	req.body_case = LEAGUE__ENVELOPE__BODY_JOB_REQUEST;
	req.job_request = &jq;
	r = tp_call(p, &req);
	ck_assert_int_eq(r->body_case, LEAGUE__ENVELOPE__BODY_JOBS);
	if (r->jobs->n_jobs) {
		League__Job *j = r->jobs->jobs[0];
		memset(ji, 0, sizeof *ji);
		ji->id = j->job_id;
		ji->episodes = j->episodes;
		ji->lease_s = j->lease_s;
		ji->evaluation = j->evaluation;
		ji->base_seat = -1;
		ck_assert_uint_ge(j->n_seats, 1);
		ck_assert_uint_le(j->n_seats, ENV_MAX_PLAYERS);
		ji->nseats = (int)j->n_seats;
		for (int k = 0; k < ji->nseats; k++) {
			League__Seat *st = j->seats[k];
			ji->player[k] = st->player;
			ji->version[k] = st->params_version;
			ji->learning[k] = st->learning;
			ji->greedy[k] = st->greedy;
			if (st->learning)
				snprintf(ji->endpoint, sizeof ji->endpoint,
					 "%s", st->learner_endpoint);
			if (st->baseline && st->baseline[0]) {
				ji->baseline_seat[k] = 1;
				if (ji->base_seat < 0) {
					ji->base_seat = k;
					snprintf(ji->baseline,
						 sizeof ji->baseline, "%s",
						 st->baseline);
				}
				ji->nbase_seats++;
			}
		}
		got = 1;
	}
	net_msg_free(r);
	return got;
}

void tp_wait_job(struct tp_peer *p, struct tp_job *j)
{
	double t0 = lg_now_s();

	while (!tp_take_job(p, j)) {
		ck_assert_msg(lg_now_s() - t0 < 10, "no job offered");
		if (p->c)
			lg_sleep_s(0.01);
	}
}

void tp_make_result(struct tp_result *res, uint64_t id, uint32_t n,
		    lg_rng *rng, double fixed)
{
	ck_assert_uint_le(n, 256);
	res->jr = (League__JobResult)LEAGUE__JOB_RESULT__INIT;
	for (uint32_t i = 0; i < n; i++) {
		league__episode__init(&res->ep[i]);
		double v = rng ? (double)lg_rng_below(rng, 3) - 1 : fixed;
		memset(res->ret[i], 0, sizeof res->ret[i]);
		res->ret[i][0] = v;
		res->ret[i][1] = -v;
		res->ep[i].n_returns = 2;
		res->ep[i].returns = res->ret[i];
		res->ep[i].steps = 1;
		res->eps[i] = &res->ep[i];
	}
	res->jr.job_id = id;
	res->jr.n_episodes = n;
	res->jr.episodes = res->eps;
	res->m = (net_msg)LEAGUE__ENVELOPE__INIT;
	res->m.body_case = LEAGUE__ENVELOPE__BODY_JOB_RESULT;
	res->m.job_result = &res->jr;
}

void tp_result_seats(struct tp_result *res, uint32_t nseats)
{
	ck_assert_uint_le(nseats, ENV_MAX_PLAYERS);
	for (size_t i = 0; i < res->jr.n_episodes; i++)
		res->ep[i].n_returns = nseats;
}

int tp_send_result(struct tp_peer *p, struct tp_result *res)
{
	net_msg *r = tp_call(p, &res->m);
	int st = tp_ack_status(r);

	net_msg_free(r);
	return st;
}

int tp_deaf_learner_accept(int lfd, double wait_s)
{
	struct pollfd p = { lfd, POLLIN, 0 };
	net_stream st;
	net_msg *m = NULL, r = LEAGUE__ENVELOPE__INIT;
	League__HelloReply hr = LEAGUE__HELLO_REPLY__INIT;
	League__Credit cr = LEAGUE__CREDIT__INIT;
	int fd;

	if (poll(&p, 1, (int)(wait_s * 1000)) != 1 ||
	    (fd = accept(lfd, NULL, NULL)) < 0)
		return -1;
	net_stream_plain(&st, fd);
	if (net_stream_recv(&st, 1 << 20, 30, &m, NULL, 0)) {
		close(fd);
		return -1;
	}
	net_msg_free(m);
	hr.protocol_version = LEAGUE__CONST__PROTOCOL_VERSION;
	hr.status = LEAGUE__STATUS__STATUS_OK;
	hr.error = (char *)"";
	r.body_case = LEAGUE__ENVELOPE__BODY_HELLO_REPLY;
	r.hello_reply = &hr;
	net_stream_send(&st, &r);
	cr.segments = 1u << 30;
	r.body_case = LEAGUE__ENVELOPE__BODY_CREDIT;
	r.credit = &cr;
	net_stream_send(&st, &r);
	return fd;
}
