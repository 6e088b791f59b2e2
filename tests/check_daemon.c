/* tests/check_daemon.c: the daemon's handlers driven in-process
 * (tests/proto.h): no child process, no socket and no sleep, so a handler
 * bug fails at its assert. Each case opens a league in a temp dir, talks
 * to it through in-process sessions and reads its state directly
 * (league/daemon_internal.h) or from the store. Cases:
 *   - a job's round trip: registration, the job's seats and endpoint, the
 *     result counted once (a resend is acknowledged, not counted again);
 *   - bad requests get their refusal and change nothing;
 *   - one commit per loop turn, whatever the turn holds;
 *   - a lost collector's jobs go to the next one, with their ids;
 *   - a restarted daemon re-issues the jobs in flight, and a result from
 *     before it is stale unless it was counted;
 *   - the parameter window keeps version 0, frozen versions and the
 *     newest eight, and deletes the rest;
 *   - a snapshot the prune rule retires takes its parameters with it,
 *     and the evaluator is handed only the active ones;
 *   - the probe kind: a job kind made of one file and one table line;
 *   - bounded leases: a hoarding collector holds at most the max_jobs it
 *     registered, hoarders together at most server.max_jobs_in_flight,
 *     the store's open jobs stay flat, and a resume re-issues within
 *     the cap. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "league/daemon_internal.h"
#include "tests/proto.h"
#include "tests/testutil.h"

static const char *rps_cfg = TU_RPS_YAML("inproc");

/* Two learners (the main player 0 and the main exploiter 2: id 1 is
 * the main player's initial snapshot) and a collector. */
struct fx {
	struct tp_league L;
	struct tp_peer learner[2], col;
	uint32_t id[2];
};

static void fx_open(struct fx *f, const char *yaml, uint32_t probes)
{
	uint32_t n = 0;

	lg_log_set_level(LG_LOG_ERROR);
	tp_league_open(&f->L, yaml, 0, probes);
	for (uint32_t p = 0; p < f->L.d->nlearners && n < 2; p++)
		if (f->L.d->learners[p].is_learner)
			f->id[n++] = p;
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(f->id[1], 2);
	for (uint32_t i = 0; i < 2; i++) {
		tp_attach(&f->L, &f->learner[i], LEAGUE__ROLE__ROLE_LEARNER,
			  "learner");
		ck_assert_int_eq(tp_fake_learner(&f->learner[i], f->id[i]),
				 LEAGUE__STATUS__STATUS_OK);
	}
	tp_attach(&f->L, &f->col, LEAGUE__ROLE__ROLE_COLLECTOR, "collector");
	tp_register_collector(&f->col, 4, 4);
}

static double games_in_payoff(league_daemon *d)
{
	double sum = 0;
	uint32_t n = brain_count(d->br);

	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i; j < n; j++) {
			struct payoff_entry e;
			ck_assert_int_eq(payoff_get(brain_payoff(d->br), i, j,
						    &e), 0);
			sum += e.games;
		}
	return sum;
}

START_TEST(job_round_trip_counts_once)
{
	struct fx f;
	struct tp_job j;
	struct tp_result res;
	league_daemon *d;

	fx_open(&f, rps_cfg, 0);
	d = f.L.d;
	ck_assert(tp_take_job(&f.col, &j));
	ck_assert_uint_eq(j.episodes, 4);
	ck_assert_double_eq(j.lease_s, 30);
	ck_assert(!j.evaluation);
	ck_assert_int_eq(j.base_seat, -1);
	/* The learner's seat alternates with the id; it streams to where
	 * its learner said it listens. */
	int ls = (int)(j.id & 1);
	ck_assert(j.learning[ls]);
	ck_assert_str_eq(j.endpoint, "127.0.0.1:9");
	ck_assert(j.player[ls] == f.id[0] || j.player[ls] == f.id[1]);

	tp_make_result(&res, j.id, 4, NULL, 1);
	ck_assert_int_eq(tp_send_result(&f.col, &res),
			 LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(d->jobs_done, 1);
	ck_assert_uint_eq(d->env_steps, 4);
	ck_assert_double_eq(games_in_payoff(d), 4);
	/* The same result again (a worker that missed the Ack): the brain
	 * counted it, so it is acknowledged, and nothing moves. */
	ck_assert_int_eq(tp_send_result(&f.col, &res),
			 LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(d->jobs_done, 1);
	ck_assert_double_eq(games_in_payoff(d), 4);
	ck_assert_uint_eq(d->stale_results, 0);
	tp_league_close(&f.L, 1);
}
END_TEST

START_TEST(bad_requests_are_refused_and_change_nothing)
{
	struct fx f;
	struct tp_peer other, insp;
	struct tp_job j;
	struct tp_result res;
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__Register rg = LEAGUE__REGISTER__INIT;
	League__EvalRequest er = LEAGUE__EVAL_REQUEST__INIT;
	league_daemon *d;

	fx_open(&f, rps_cfg, 0);
	d = f.L.d;
	/* A second learner for an owned player; a player that is not a
	 * learning one; parameters from a collector. */
	tp_attach(&f.L, &other, LEAGUE__ROLE__ROLE_LEARNER, "intruder");
	ck_assert_int_eq(tp_fake_learner(&other, 0),
			 LEAGUE__STATUS__STATUS_BUSY);
	ck_assert_int_eq(tp_fake_learner(&other, 77),
			 LEAGUE__STATUS__STATUS_NOT_FOUND);
	ck_assert_int_eq(tp_fake_learner(&other, 1), /* a snapshot */
			 LEAGUE__STATUS__STATUS_NOT_FOUND);
	rg.player = 2;
	rg.trajectory_endpoint = (char *)"";
	req.body_case = LEAGUE__ENVELOPE__BODY_REGISTER;
	req.register_ = &rg;
	r = tp_call(&other, &req);
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_BUSY);
	net_msg_free(r);
	r = tp_params_put(&f.col, 0, 10, "blob");
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_BAD_REQUEST);
	net_msg_free(r);
	/* Steps that go back. */
	r = tp_params_put(&f.learner[0], 0, 100, "v1");
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_OK);
	net_msg_free(r);
	r = tp_params_put(&f.learner[0], 0, 50, "v2");
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_BAD_REQUEST);
	net_msg_free(r);
	ck_assert_uint_eq(d->learners[0].newest, 1);
	/* Evaluation work is for inspectors. */
	req = (net_msg)LEAGUE__ENVELOPE__INIT;
	req.body_case = LEAGUE__ENVELOPE__BODY_EVAL_REQUEST;
	req.eval_request = &er;
	r = tp_call(&f.col, &req);
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_BAD_REQUEST);
	net_msg_free(r);
	tp_attach(&f.L, &insp, LEAGUE__ROLE__ROLE_INSPECTOR, "evaluator");
	r = tp_call(&insp, &req);
	ck_assert_int_eq(r->body_case, LEAGUE__ENVELOPE__BODY_EVAL_WORK);
	net_msg_free(r);
	/* A result for a job nobody leased; one with more episodes than
	 * its job: refused, and the job is given up in the brain. */
	tp_make_result(&res, 12345, 1, NULL, 1);
	ck_assert_int_eq(tp_send_result(&f.col, &res),
			 LEAGUE__STATUS__STATUS_STALE);
	ck_assert_uint_eq(d->stale_results, 1);
	ck_assert(tp_take_job(&f.col, &j));
	uint64_t open = brain_open_jobs(d->br);
	tp_make_result(&res, j.id, j.episodes + 1, NULL, 1);
	ck_assert_int_eq(tp_send_result(&f.col, &res),
			 LEAGUE__STATUS__STATUS_BAD_REQUEST);
	ck_assert_uint_eq(brain_open_jobs(d->br), open - 1);
	ck_assert_uint_eq(d->jobs_done, 0);
	ck_assert_double_eq(games_in_payoff(d), 0);
	tp_league_close(&f.L, 1);
}
END_TEST

/* Results of many jobs fed in one loop turn commit once, and every Ack
 * follows that commit. */
START_TEST(one_commit_per_turn)
{
	struct fx f;
	struct tp_job j[4];
	struct tp_result res[4];
	league_daemon *d;
	net_msg *r;
	lg_buf b = { 0 };

	fx_open(&f, rps_cfg, 0);
	d = f.L.d;
	for (int i = 0; i < 4; i++)
		ck_assert(tp_take_job(&f.col, &j[i]));
	uint64_t before = d->commits;
	for (int i = 0; i < 4; i++) {
		net_msg *m = NULL;
		size_t used;
		char err[128];
		tp_make_result(&res[i], j[i].id, 4, NULL, -1);
		b.len = 0;
		ck_assert_int_eq(net_frame_encode(&res[i].m, &b), 0);
		ck_assert_int_eq(net_frame_decode(b.data, b.len, b.len, &m,
						  &used, err, sizeof err), 0);
		league_session_feed(f.col.ss, m);
	}
	/* Nothing is sent before the turn's commit. */
	ck_assert_int_eq(league_session_take(f.col.ss, &r), LG_ENOTFOUND);
	tp_league_turn(&f.L);
	ck_assert_uint_eq(d->commits, before + 1);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(league_session_take(f.col.ss, &r), 0);
		ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_OK);
		net_msg_free(r);
	}
	ck_assert_uint_eq(d->jobs_done, 4);
	lg_buf_free(&b);
	tp_league_close(&f.L, 1);
}
END_TEST

START_TEST(lost_collector_jobs_go_to_the_next)
{
	struct fx f;
	struct tp_peer next;
	struct tp_job a, b, c;

	fx_open(&f, rps_cfg, 0);
	ck_assert(tp_take_job(&f.col, &a));
	ck_assert(tp_take_job(&f.col, &b));
	tp_detach(&f.col);
	ck_assert_uint_eq(f.L.d->requeued, 2);
	tp_attach(&f.L, &next, LEAGUE__ROLE__ROLE_COLLECTOR, "next");
	tp_register_collector(&next, 4, 4);
	ck_assert(tp_take_job(&next, &c));
	ck_assert_uint_eq(c.id, a.id);
	ck_assert(tp_take_job(&next, &c));
	ck_assert_uint_eq(c.id, b.id);
	tp_league_close(&f.L, 1);
}
END_TEST

START_TEST(restart_reissues_jobs_in_flight)
{
	struct fx f;
	struct tp_job counted, held, again;
	struct tp_result res;

	fx_open(&f, rps_cfg, 0);
	ck_assert(tp_take_job(&f.col, &counted));
	ck_assert(tp_take_job(&f.col, &held));
	tp_make_result(&res, counted.id, 4, NULL, 0);
	ck_assert_int_eq(tp_send_result(&f.col, &res),
			 LEAGUE__STATUS__STATUS_OK);
	tp_league_close(&f.L, 0);

	tp_league_open(&f.L, rps_cfg, 1, 0);
	ck_assert_uint_eq(f.L.d->jobs_done, 1);
	ck_assert_uint_eq(league_leases_queued(f.L.d->leases), 1);
	tp_attach(&f.L, &f.col, LEAGUE__ROLE__ROLE_COLLECTOR, "collector");
	tp_register_collector(&f.col, 4, 4);
	/* The counted result sent again: acknowledged, counted once. */
	ck_assert_int_eq(tp_send_result(&f.col, &res),
			 LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(f.L.d->jobs_done, 1);
	/* The held job comes back with its id (its learner has not come
	 * back yet, so its seat streams nowhere). */
	ck_assert(tp_take_job(&f.col, &again));
	ck_assert_uint_eq(again.id, held.id);
	ck_assert_str_eq(again.endpoint, "");
	tp_league_close(&f.L, 1);
}
END_TEST

static int has_version(league_daemon *d, uint32_t player, uint32_t v)
{
	store_txn *t;
	uint8_t k[8];
	const void *val;
	size_t vl;
	int rc;

	ck_assert_int_eq(store_txn_begin(d->st, STORE_TXN_READ, &t), 0);
	store_key_u32x2(k, player, v);
	rc = store_get(t, STORE_DB_PARAMS, k, 8, &val, &vl);
	store_txn_abort(t);
	return rc == 0;
}

/* ParamsPut of blob with trainer state `trainer` ("" none): the Ack's
 * version and reset flag. */
static uint32_t put_with_trainer(struct tp_peer *p, uint32_t player,
				 uint64_t steps, const char *blob,
				 const char *trainer, int *reset)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__ParamsPut pp = LEAGUE__PARAMS_PUT__INIT;
	lg_buf b = { 0 };
	uint32_t v;

	tp_blob(p, blob, &b);
	pp.player = player;
	pp.player_steps = steps;
	pp.blob.data = b.data;
	pp.blob.len = b.len;
	pp.trainer.data = (uint8_t *)(uintptr_t)trainer;
	pp.trainer.len = strlen(trainer);
	req.body_case = LEAGUE__ENVELOPE__BODY_PARAMS_PUT;
	req.params_put = &pp;
	r = tp_call(p, &req);
	lg_buf_free(&b);
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_OK);
	v = (uint32_t)r->ack->id;
	if (reset)
		*reset = r->ack->reset;
	net_msg_free(r);
	return v;
}

/* A new learner of player registers (the old session dropped): the
 * version and trainer state it is handed must be these. */
static void expect_handed(struct tp_league *L, uint32_t player,
			  uint32_t version, const char *trainer)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *r;
	League__Register rg = LEAGUE__REGISTER__INIT;
	struct tp_peer p;

	tp_attach(L, &p, LEAGUE__ROLE__ROLE_LEARNER, "learner");
	rg.player = player;
	rg.trajectory_endpoint = (char *)"127.0.0.1:9";
	req.body_case = LEAGUE__ENVELOPE__BODY_REGISTER;
	req.register_ = &rg;
	r = tp_call(&p, &req);
	ck_assert_int_eq(r->body_case, LEAGUE__ENVELOPE__BODY_REGISTER_REPLY);
	ck_assert_uint_eq(r->register_reply->params_version, version);
	ck_assert_uint_eq(r->register_reply->trainer.len, strlen(trainer));
	if (strlen(trainer))
		ck_assert(!memcmp(r->register_reply->trainer.data, trainer,
				  strlen(trainer)));
	net_msg_free(r);
	tp_detach(&p);
}

/* The trainer state a learner pushes with a version is committed with it
 * and handed to the next learner of the player with that version, also
 * after a restart; a push without one, or a reset (the initial
 * parameters again), leaves none to hand. */
START_TEST(trainer_state_goes_with_its_version)
{
	const char *yaml =
		"league: {name: trainer, seed: 5}\n"
		"env: {name: rps}\n"
		"players: {main: 1, main_exploiter: 1}\n"
		"roles: {main_exploiter: {reset_prob: 1}}\n"
		"snapshot: {steps: 1000, max_mult: 1}\n"
		"budget: {seconds: 600}\n";
	struct tp_league L;
	struct tp_peer lr;
	uint32_t v;
	int reset;

	lg_log_set_level(LG_LOG_ERROR);
	tp_league_open(&L, yaml, 0, 0);
	tp_attach(&L, &lr, LEAGUE__ROLE__ROLE_LEARNER, "learner");
	ck_assert_int_eq(tp_fake_learner(&lr, 0), LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(put_with_trainer(&lr, 0, 10, "p1", "adam-1", NULL),
			  1);
	ck_assert_uint_eq(put_with_trainer(&lr, 0, 20, "p2", "adam-2", NULL),
			  2);
	tp_detach(&lr);
	expect_handed(&L, 0, 2, "adam-2");
	tp_league_close(&L, 0);

	tp_league_open(&L, yaml, 1, 0);
	expect_handed(&L, 0, 2, "adam-2");
	tp_attach(&L, &lr, LEAGUE__ROLE__ROLE_LEARNER, "learner");
	ck_assert_int_eq(tp_fake_learner(&lr, 0), LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(put_with_trainer(&lr, 0, 30, "p3", "", NULL), 3);
	tp_detach(&lr);
	expect_handed(&L, 0, 3, "");
	/* the main exploiter (player 2): a state, then a snapshot with a
	 * sure reset, which hands back version 0's parameters and no
	 * state */
	tp_attach(&L, &lr, LEAGUE__ROLE__ROLE_LEARNER, "learner");
	ck_assert_int_eq(tp_fake_learner(&lr, 2), LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(put_with_trainer(&lr, 2, 10, "e1", "adam-e1", NULL),
			  1);
	v = put_with_trainer(&lr, 2, 2000, "e2", "adam-e2", &reset);
	ck_assert(reset);
	ck_assert_uint_eq(v, 3);
	tp_detach(&lr);
	expect_handed(&L, 2, 3, "");
	tp_league_close(&L, 0);
	tp_league_open(&L, yaml, 1, 0);
	expect_handed(&L, 2, 3, "");
	expect_handed(&L, 0, 3, "");
	tp_league_close(&L, 1);
}
END_TEST

START_TEST(parameter_window_keeps_what_is_pinned)
{
	const char *yaml =
		"league: {name: window, seed: 5}\n"
		"env: {name: rps}\n"
		"players: {main: 1}\n"
		"snapshot: {steps: 1000, max_mult: 1}\n"
		"budget: {seconds: 600}\n";
	struct tp_league L;
	struct tp_peer lr;
	net_msg *r;
	char blob[32];

	tp_league_open(&L, yaml, 0, 0);
	tp_attach(&L, &lr, LEAGUE__ROLE__ROLE_LEARNER, "learner");
	ck_assert_int_eq(tp_fake_learner(&lr, 0), LEAGUE__STATUS__STATUS_OK);
	/* Versions 1..30, 100 steps each: a snapshot every 10 versions.
	 * The window is the newest version and the eight before it. */
	for (uint32_t v = 1; v <= 30; v++) {
		snprintf(blob, sizeof blob, "v%u", v);
		r = tp_params_put(&lr, 0, 100ull * v, blob);
		ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_OK);
		ck_assert_uint_eq(r->ack->id, v);
		net_msg_free(r);
	}
	ck_assert_uint_eq(brain_snapshot_count(L.d->br), 4); /* 0 + 3 */
	for (uint32_t v = 0; v <= 30; v++) {
		int want = v == 0 || v % 10 == 0 || v >= 30 - 8;
		ck_assert_msg(has_version(L.d, 0, v) == want,
			      "version %u %s", v, want ? "missing" : "kept");
	}
	tp_league_close(&L, 1);
}
END_TEST

/* A league of yaml (a snapshot every 1000 steps) whose main player's
 * learner pushed versions 1..60, 100 steps each: 7 snapshots. */
static void open_sixty_versions(struct tp_league *L, const char *yaml)
{
	struct tp_peer lr;
	char blob[32];
	net_msg *m;

	lg_log_set_level(LG_LOG_ERROR);
	tp_league_open(L, yaml, 0, 0);
	tp_attach(L, &lr, LEAGUE__ROLE__ROLE_LEARNER, "learner");
	ck_assert_int_eq(tp_fake_learner(&lr, 0), LEAGUE__STATUS__STATUS_OK);
	for (uint32_t v = 1; v <= 60; v++) {
		snprintf(blob, sizeof blob, "v%u", v);
		m = tp_params_put(&lr, 0, 100ull * v, blob);
		ck_assert_int_eq(tp_ack_status(m), LEAGUE__STATUS__STATUS_OK);
		net_msg_free(m);
	}
	tp_detach(&lr);
	ck_assert_uint_eq(brain_snapshot_count(L->d->br), 7);
}

/* An evaluator's work, asked for on ev (attached here; the caller
 * detaches it and frees the reply). */
static net_msg *eval_work_of(struct tp_league *L, struct tp_peer *ev)
{
	net_msg req = LEAGUE__ENVELOPE__INIT, *m;
	League__EvalRequest er = LEAGUE__EVAL_REQUEST__INIT;

	tp_attach(L, ev, LEAGUE__ROLE__ROLE_INSPECTOR, "evaluator");
	req.body_case = LEAGUE__ENVELOPE__BODY_EVAL_REQUEST;
	req.eval_request = &er;
	m = tp_call(ev, &req);
	ck_assert_int_eq(m->body_case, LEAGUE__ENVELOPE__BODY_EVAL_WORK);
	ck_assert(m->eval_work->has_work);
	return m;
}

/*
 * snapshot.keep 2: versions 1..60 with a snapshot every 10; the prune
 * rule retires all but the two newest snapshots, and their parameters go
 * with them (each retired version left the window long before), under
 * either rule; version 0 (the reset target, frozen by the retired initial
 * snapshot) stays, so do the active snapshots' versions and the window,
 * also after a restart. The evaluator is handed only active snapshots,
 * whose parameters exist.
 */
START_TEST(retired_snapshots_release_their_parameters)
{
	static const char *const rules[] = { "fifo", "nash" };

	for (int r = 0; r < 2; r++) {
		char yaml[512];
		struct tp_league L;
		struct tp_peer ev;
		net_msg *m;

		snprintf(yaml, sizeof yaml,
			 "league: {name: retire, seed: 5}\n"
			 "env: {name: rps}\n"
			 "players: {main: 1}\n"
			 "snapshot: {steps: 1000, max_mult: 1, keep: 2, "
			 "prune: %s}\n"
			 "budget: {seconds: 600}\n", rules[r]);
		open_sixty_versions(&L, yaml);
		for (int restart = 0; restart < 2; restart++) {
			if (restart) {
				tp_league_close(&L, 0);
				tp_league_open(&L, yaml, 1, 0);
			}
			for (uint32_t v = 0; v <= 60; v++) {
				int want = v == 0 || v == 50 || v >= 60 - 8;
				ck_assert_msg(has_version(L.d, 0, v) == want,
					      "%s: version %u %s", rules[r], v,
					      want ? "missing" : "kept");
			}
		}
		m = eval_work_of(&L, &ev);
		ck_assert_uint_eq(m->eval_work->n_snapshots, 2);
		ck_assert_uint_eq(m->eval_work->n_main_snapshots, 2);
		for (size_t i = 0; i < 2; i++) {
			ck_assert_uint_eq(m->eval_work->snapshots[i]->version,
					  50 + 10 * i);
			ck_assert_uint_eq(
				m->eval_work->main_snapshots[i]->version,
				50 + 10 * i);
		}
		net_msg_free(m);
		tp_detach(&ev);
		tp_league_close(&L, 1);
	}
}
END_TEST

/*
 * eval.average_from: versions 1..60, a snapshot every 10 (7 with the
 * initial one); the evaluator's average-policy list is every snapshot of
 * the main player with 0, and the newest 4 (7 less floor(0.5 x 7)) with
 * 0.5, oldest first.
 */
START_TEST(average_from_leaves_out_the_oldest)
{
	static const double from[] = { 0, 0.5 };
	static const uint32_t first[] = { 0, 30 }, count[] = { 7, 4 };

	for (int r = 0; r < 2; r++) {
		char yaml[512];
		struct tp_league L;
		struct tp_peer ev;
		net_msg *m;

		snprintf(yaml, sizeof yaml,
			 "league: {name: avg, seed: 5}\n"
			 "env: {name: rps}\n"
			 "players: {main: 1}\n"
			 "snapshot: {steps: 1000, max_mult: 1}\n"
			 "eval: {average_from: %g}\n"
			 "budget: {seconds: 600}\n", from[r]);
		open_sixty_versions(&L, yaml);
		m = eval_work_of(&L, &ev);
		ck_assert_uint_eq(m->eval_work->n_main_snapshots, count[r]);
		for (size_t i = 0; i < count[r]; i++)
			ck_assert_uint_eq(
				m->eval_work->main_snapshots[i]->version,
				first[r] + 10 * i);
		net_msg_free(m);
		tp_detach(&ev);
		tp_league_close(&L, 1);
	}
}
END_TEST

/* The probe kind (league/kind_probe.c): jobs in which the first baseline
 * plays itself; nothing learns and the league's counters do not move. */
START_TEST(probe_kind_round_trip)
{
	struct fx f;
	struct tp_job j;
	struct tp_result res;
	lg_buf st = { 0 };
	int probes = 0;

	fx_open(&f, rps_cfg, 3);
	for (int k = 0; k < 12 && probes < 3; k++) {
		ck_assert(tp_take_job(&f.col, &j));
		if (j.nbase_seats != 2)
			continue; /* a league job */
		probes++;
		ck_assert_str_eq(j.baseline, "random");
		ck_assert_uint_eq(j.episodes, 1);
		ck_assert(!j.learning[0] && !j.learning[1]);
		ck_assert(j.id & LEAGUE_JOB_DAEMON_BIT);
		tp_make_result(&res, j.id, 1, NULL, 1);
		res.ep[0].steps = 1; /* rock-paper-scissors: one step */
		ck_assert_int_eq(tp_send_result(&f.col, &res),
				 LEAGUE__STATUS__STATUS_OK);
	}
	ck_assert_int_eq(probes, 3);
	ck_assert_uint_eq(f.L.d->jobs_done, 0);
	ck_assert_int_eq(daemon_status_json(f.L.d, &st), 0);
	ck_assert_ptr_nonnull(strstr((char *)st.data, "\"probes\": {\"done\": "
				     "3, \"episodes\": 3, \"steps\": 3}"));
	lg_buf_free(&st);
	tp_league_close(&f.L, 1);
}
END_TEST

/* ---- bounded leases ------------------------------------------------------ */

#define HOARD_ROUNDS 200

/* A collector that registers max_jobs 1 and asks for 64 again and again,
 * never reporting, holds one job; the store's open jobs and the lease
 * table stay flat. An honest collector gets up to its allowance and a
 * place back for each result. */
START_TEST(hoarder_holds_its_max_jobs)
{
	struct fx f;
	struct tp_peer h;
	uint64_t ids[64];
	size_t got = 0, open_after_first = 0;
	int st;

	fx_open(&f, rps_cfg, 0);
	league_daemon *d = f.L.d;
	tp_attach(&f.L, &h, LEAGUE__ROLE__ROLE_COLLECTOR, "hoarder");
	tp_register_collector(&h, 4, 1);
	for (int i = 0; i < HOARD_ROUNDS; i++) {
		size_t n = tp_request_jobs(&h, 64, NULL, &st);
		got += n;
		if (i == 0) {
			ck_assert_uint_eq(n, 1);
			ck_assert_int_eq(st, LEAGUE__STATUS__STATUS_OK);
			open_after_first = brain_open_jobs(d->br);
			continue;
		}
		ck_assert_uint_eq(n, 0);
		ck_assert_int_eq(st, LEAGUE__STATUS__STATUS_BUSY);
		ck_assert_uint_eq(brain_open_jobs(d->br), open_after_first);
	}
	ck_assert_uint_eq(got, 1);
	ck_assert_uint_eq(league_leases_active(d->leases), 1);
	ck_assert_uint_le(league_leases_queued(d->leases) +
				  league_leases_active(d->leases), 2);
	ck_assert_uint_eq(d->refused_requests, HOARD_ROUNDS - 1);

	/* The fixture's collector registered max_jobs 4: 64 asked, 4 given;
	 * then none; a result gives one place back. */
	ck_assert_uint_eq(tp_request_jobs(&f.col, 64, ids, &st), 4);
	ck_assert_int_eq(st, LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(tp_request_jobs(&f.col, 64, NULL, &st), 0);
	ck_assert_int_eq(st, LEAGUE__STATUS__STATUS_BUSY);
	struct tp_result res;
	tp_make_result(&res, ids[0], 4, NULL, 0);
	ck_assert_int_eq(tp_send_result(&f.col, &res),
			 LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(tp_request_jobs(&f.col, 64, NULL, &st), 1);
	ck_assert_int_eq(st, LEAGUE__STATUS__STATUS_OK);
	/* A lost hoarder's job goes back to the queue: its place is free. */
	tp_detach(&h);
	ck_assert_uint_eq(league_leases_active(d->leases), 4);
	tp_league_close(&f.L, 1);
}
END_TEST

static const char *capped_cfg =
	TU_RPS_YAML("inproc")
	"server: {max_jobs_in_flight: 8}\n";

#define HOARDERS 4

/* Four hoarders registered with max_jobs 4 each, asking for 64 in turn:
 * together they hold server.max_jobs_in_flight (8), no more, and the
 * store's open jobs stop growing once the cap is reached. */
START_TEST(server_cap_holds_with_several_hoarders)
{
	struct fx f;
	struct tp_peer h[HOARDERS];
	size_t held[HOARDERS] = { 0 }, open_at_cap = 0;
	int st;

	fx_open(&f, capped_cfg, 0);
	league_daemon *d = f.L.d;
	for (int k = 0; k < HOARDERS; k++) {
		tp_attach(&f.L, &h[k], LEAGUE__ROLE__ROLE_COLLECTOR, "hoarder");
		tp_register_collector(&h[k], 4, 4);
	}
	for (int i = 0; i < HOARD_ROUNDS / 4; i++) {
		for (int k = 0; k < HOARDERS; k++) {
			held[k] += tp_request_jobs(&h[k], 64, NULL, &st);
			ck_assert_uint_le(held[k], 4);
			ck_assert_uint_le(league_leases_active(d->leases), 8);
		}
		if (i == 0)
			open_at_cap = brain_open_jobs(d->br);
		ck_assert_uint_eq(brain_open_jobs(d->br), open_at_cap);
	}
	ck_assert_uint_eq(held[0] + held[1] + held[2] + held[3], 8);
	ck_assert_uint_eq(league_leases_active(d->leases), 8);
	ck_assert_uint_le(open_at_cap, 8 + 4);
	/* Even the honest collector is told to wait, with BUSY. */
	ck_assert_uint_eq(tp_request_jobs(&f.col, 1, NULL, &st), 0);
	ck_assert_int_eq(st, LEAGUE__STATUS__STATUS_BUSY);
	tp_league_close(&f.L, 1);
}
END_TEST

static const char *capped3_cfg =
	TU_RPS_YAML("inproc")
	"server: {max_jobs_in_flight: 3}\n";

/* A league stopped with 8 jobs in flight resumes under a cap of 3: the
 * oldest 3 go out again, the other 5 are cancelled in the store (a late
 * result for one is stale), and the cap holds from the first request. */
START_TEST(resume_reissues_within_the_cap)
{
	struct fx f;
	struct tp_peer h[2];
	uint64_t ids[2][4], again[4];
	int st;

	fx_open(&f, capped_cfg, 0);
	for (int k = 0; k < 2; k++) {
		tp_attach(&f.L, &h[k], LEAGUE__ROLE__ROLE_COLLECTOR, "hoarder");
		tp_register_collector(&h[k], 4, 4);
		ck_assert_uint_eq(tp_request_jobs(&h[k], 64, ids[k], &st), 4);
	}
	ck_assert_uint_eq(brain_open_jobs(f.L.d->br), 8);
	tp_league_close(&f.L, 0);

	tp_league_open(&f.L, capped3_cfg, 1, 0);
	ck_assert_uint_eq(brain_open_jobs(f.L.d->br), 3);
	ck_assert_uint_eq(league_leases_queued(f.L.d->leases), 3);
	tp_league_close(&f.L, 0);
	/* The cancellation is on disk: a second resume finds 3. */
	tp_league_open(&f.L, capped3_cfg, 1, 0);
	ck_assert_uint_eq(brain_open_jobs(f.L.d->br), 3);
	tp_attach(&f.L, &h[0], LEAGUE__ROLE__ROLE_COLLECTOR, "hoarder");
	tp_register_collector(&h[0], 4, 64);
	ck_assert_uint_eq(tp_request_jobs(&h[0], 64, again, &st), 3);
	ck_assert_uint_eq(again[0], ids[0][0]);
	ck_assert_uint_eq(again[1], ids[0][1]);
	ck_assert_uint_eq(again[2], ids[0][2]);
	ck_assert_uint_eq(tp_request_jobs(&h[0], 64, NULL, &st), 0);
	ck_assert_int_eq(st, LEAGUE__STATUS__STATUS_BUSY);
	/* A result for a cancelled job counts nothing. */
	struct tp_result res;
	tp_make_result(&res, ids[1][3], 4, NULL, 0);
	ck_assert_int_eq(tp_send_result(&h[0], &res),
			 LEAGUE__STATUS__STATUS_STALE);
	tp_league_close(&f.L, 1);
}
END_TEST

Suite *suite_daemon(void)
{
	Suite *s = suite_create("daemon");
	const struct tu_test inproc_tests[] = {
		{ job_round_trip_counts_once, 1 },
		{ bad_requests_are_refused_and_change_nothing, 1 },
		{ one_commit_per_turn, 1 },
		{ lost_collector_jobs_go_to_the_next, 1 },
		{ restart_reissues_jobs_in_flight, 1 },
		{ parameter_window_keeps_what_is_pinned, 1 },
		{ retired_snapshots_release_their_parameters, 1 },
		{ average_from_leaves_out_the_oldest, 1 },
		{ trainer_state_goes_with_its_version, 1 },
		{ probe_kind_round_trip, 1 },
		{ hoarder_holds_its_max_jobs, 1 },
		{ server_cap_holds_with_several_hoarders, 1 },
		{ resume_reissues_within_the_cap, 1 },
	};

	TU_TCASE(s, "inproc", 30, inproc_tests);
	return s;
}
