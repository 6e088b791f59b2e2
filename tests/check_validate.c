/* tests/check_validate.c: what the daemon believes of a worker that
 * speaks the protocol correctly but lies (league/validate.c), driven
 * in-process (tests/proto.h), and the offline tools that hand a stored
 * network on (`league export`, `league play`). Cases:
 *   - a version that is no network of the league's model (NaN weights,
 *     a 21-byte text, a real network with 64 trailing bytes, another
 *     shape) is refused and nothing changes; an honest one is taken,
 *     and a learner that registers after a restart gets it;
 *   - player_steps 2^64-1 is refused and the next honest push taken;
 *     the bound grows with the steps the player's jobs reported;
 *   - an episode longer than the game's max_steps, or with a return
 *     that is not finite or beyond the cap, moves neither env_steps, the
 *     budget nor the payoff; it is counted in invalid_episodes and the
 *     job is completed;
 *   - `league export` and `league play` refuse a NaN network, naming the
 *     player and version, or the file. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/agent.h"
#include "league/daemon_internal.h"
#include "tests/proto.h"
#include "tests/testutil.h"

static const char *rps_cfg =
	"league: {name: validate, seed: 5}\n"
	"env: {name: rps}\n"
	"model: {hidden: [8]}\n"
	"players: {main: 1, main_exploiter: 0, league_exploiter: 0}\n"
	"payoff: {decay: 1.0}\n"
	"matchmaking: {job_episodes: 4, job_lease_s: 30}\n"
	"learner: {batch: 8, minibatch: 8}\n"
	"collectors: {segment_len: 8}\n"
	"snapshot: {steps: 1000000000}\n"
	"budget: {seconds: 600, env_steps: 1000000000}\n";

/* A network of p's model whose parameter i is v (nn_save writes it with
 * the right checksums). */
static void odd_blob(const struct tp_peer *p, size_t i, float v, lg_buf *out)
{
	nn *n = NULL;
	size_t np;

	ck_assert(p->have_shape);
	ck_assert_int_eq(nn_new(&n, &p->shape, 7), 0);
	ck_assert_uint_lt(i, (nn_params(n, &np), np));
	nn_params(n, NULL)[i] = v;
	ck_assert_int_eq(nn_save(n, out), 0);
	nn_free(n);
}

static int status_has(league_daemon *d, const char *what)
{
	lg_buf st = { 0 };
	int has;

	ck_assert_int_eq(daemon_status_json(d, &st), 0);
	has = strstr((const char *)st.data, what) != NULL;
	lg_buf_free(&st);
	return has;
}

/* A put of blob that must be refused and change nothing. */
static void refused(struct tp_league *L, struct tp_peer *lr, uint64_t steps,
		    const void *blob, size_t len)
{
	struct learner *l = &L->d->learners[0];
	uint32_t newest = l->newest;
	size_t was_len = l->blob_len;
	uint8_t *was = malloc(was_len);
	struct brain_player bp, after;
	net_msg *r;

	memcpy(was, l->blob, was_len);
	brain_player_info(L->d->br, 0, &bp);
	r = tp_params_put_raw(lr, 0, steps, blob, len);
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_BAD_REQUEST);
	ck_assert(r->ack->error && r->ack->error[0]);
	net_msg_free(r);
	ck_assert_uint_eq(l->newest, newest);
	ck_assert(!daemon_params_exist(L->d, 0, newest + 1));
	ck_assert_uint_eq(l->blob_len, was_len);
	ck_assert(!memcmp(l->blob, was, was_len));
	brain_player_info(L->d->br, 0, &after);
	ck_assert_uint_eq(after.steps, bp.steps);
	free(was);
}

START_TEST(bad_parameters_are_refused)
{
	struct tp_league L;
	struct tp_peer lr, lr2;
	lg_buf b = { 0 };
	net_msg *r;
	const char *text = "not a network at all"; /* + NUL: 21 bytes */

	lg_log_set_level(LG_LOG_ERROR);
	tp_league_open(&L, rps_cfg, 0, 0);
	tp_attach(&L, &lr, LEAGUE__ROLE__ROLE_LEARNER, "liar");
	ck_assert_int_eq(tp_fake_learner(&lr, 0), LEAGUE__STATUS__STATUS_OK);
	odd_blob(&lr, 3, NAN, &b);
	refused(&L, &lr, 10, b.data, b.len);
	b.len = 0;
	odd_blob(&lr, 0, INFINITY, &b);
	refused(&L, &lr, 10, b.data, b.len);
	refused(&L, &lr, 10, text, strlen(text) + 1);
	b.len = 0;
	tp_blob(&lr, "honest", &b);
	{
		uint8_t tail[64];
		memset(tail, 0xa5, sizeof tail);
		ck_assert_int_eq(lg_buf_append(&b, tail, sizeof tail), 0);
	}
	refused(&L, &lr, 10, b.data, b.len);
	b.len = 0;
	{
		/* a real network, of another model */
		struct tp_peer other = lr;
		other.shape.hidden[0] = 9;
		tp_blob(&other, "other", &b);
		refused(&L, &lr, 10, b.data, b.len);
	}
	ck_assert(status_has(L.d, "\"refused_params\": 5"));
	r = tp_params_put(&lr, 0, 10, "honest");
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(r->ack->id, 1);
	net_msg_free(r);
	tp_detach(&lr);
	tp_league_close(&L, 0);
	/* the next learner of the player, after a restart, takes it */
	tp_league_open(&L, rps_cfg, 1, 0);
	tp_attach(&L, &lr2, LEAGUE__ROLE__ROLE_LEARNER, "next");
	ck_assert_int_eq(tp_fake_learner(&lr2, 0), LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(L.d->learners[0].newest, 1);
	b.len = 0;
	tp_blob(&lr2, "honest", &b);
	ck_assert_uint_eq(L.d->learners[0].blob_len, b.len);
	ck_assert(!memcmp(L.d->learners[0].blob, b.data, b.len));
	lg_buf_free(&b);
	tp_league_close(&L, 1);
}
END_TEST

/* Results of every job the collector is offered until one in which
 * player 0 learns has been played (one step and a win per episode):
 * the rows its learning seats could have sent. */
static uint64_t play_until_learning(struct tp_peer *col)
{
	struct tp_result res;
	struct tp_job j;

	for (int k = 0; k < 50; k++) {
		tp_wait_job(col, &j);
		tp_make_result(&res, j.id, j.episodes, NULL, 1);
		ck_assert_int_eq(tp_send_result(col, &res),
				 LEAGUE__STATUS__STATUS_OK);
		/* each seat player 0 learns in: a row a step */
		uint64_t seats = (j.learning[0] && j.player[0] == 0) +
				 (j.learning[1] && j.player[1] == 0);
		if (seats)
			return seats * j.episodes;
	}
	ck_abort_msg("no job in which player 0 learns");
	return 0;
}

/* player_steps beyond what the learner can have trained on is counted at
 * that bound (never refused, so an honest learner whose count outran it
 * pushes on); one that goes back is refused. */
START_TEST(player_steps_is_bounded)
{
	struct tp_league L;
	struct tp_peer lr, col;
	struct brain_player bp;
	lg_buf b = { 0 };
	net_msg *r;
	uint64_t seen;
	/* learner.push_every 1, batch 8, segment_len 8: two pushes' rows */
	const uint64_t slack = 2 * (8 + 8);

	lg_log_set_level(LG_LOG_ERROR);
	tp_league_open(&L, rps_cfg, 0, 0);
	tp_attach(&L, &lr, LEAGUE__ROLE__ROLE_LEARNER, "liar");
	ck_assert_int_eq(tp_fake_learner(&lr, 0), LEAGUE__STATUS__STATUS_OK);
	/* a count beyond the bound is counted at the bound: 2^64-1 gains
	 * the slack and no more */
	r = tp_params_put(&lr, 0, UINT64_MAX, "v1");
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(r->ack->id, 1);
	net_msg_free(r);
	brain_player_info(L.d->br, 0, &bp);
	ck_assert_uint_eq(bp.steps, slack);
	ck_assert_uint_eq(L.d->clamped_steps, 1);
	/* the steps its jobs reported widen the bound by exactly them */
	tp_attach(&L, &col, LEAGUE__ROLE__ROLE_COLLECTOR, "collector");
	tp_register_collector(&col, 1, 1);
	seen = play_until_learning(&col);
	r = tp_params_put(&lr, 0, UINT64_MAX, "v2");
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(r->ack->id, 2);
	net_msg_free(r);
	brain_player_info(L.d->br, 0, &bp);
	ck_assert_uint_eq(bp.steps, 2 * slack + seen);
	ck_assert_uint_eq(L.d->clamped_steps, 2);
	/* a count within the bound is taken as it is */
	r = tp_params_put(&lr, 0, bp.steps + 5, "v3");
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_OK);
	ck_assert_uint_eq(r->ack->id, 3);
	net_msg_free(r);
	brain_player_info(L.d->br, 0, &bp);
	ck_assert_uint_eq(bp.steps, 2 * slack + seen + 5);
	ck_assert_uint_eq(L.d->clamped_steps, 2);
	/* one that goes back is refused and changes nothing */
	tp_blob(&lr, "v4", &b);
	refused(&L, &lr, bp.steps - 1, b.data, b.len);
	lg_buf_free(&b);
	tp_league_close(&L, 1);
}
END_TEST

/* One job's result with episode 0 made implausible by how: counted
 * nowhere but invalid_episodes; the other episodes count. */
static void implausible(void (*how)(League__Episode *e), const char *count)
{
	struct tp_league L;
	struct tp_peer lr, col;
	struct tp_result res;
	struct tp_job j;
	double games = 0;

	lg_log_set_level(LG_LOG_ERROR);
	tp_league_open(&L, rps_cfg, 0, 0);
	tp_attach(&L, &lr, LEAGUE__ROLE__ROLE_LEARNER, "learner");
	ck_assert_int_eq(tp_fake_learner(&lr, 0), LEAGUE__STATUS__STATUS_OK);
	tp_attach(&L, &col, LEAGUE__ROLE__ROLE_COLLECTOR, "liar");
	tp_register_collector(&col, 1, 1);
	tp_wait_job(&col, &j);
	ck_assert_uint_ge(j.episodes, 2);
	tp_make_result(&res, j.id, j.episodes, NULL, 1);
	how(&res.ep[0]);
	ck_assert_int_eq(tp_send_result(&col, &res),
			 LEAGUE__STATUS__STATUS_OK);
	tp_league_turn(&L);
	ck_assert_uint_eq(L.d->env_steps, j.episodes - 1);
	ck_assert(!L.d->stopping);
	ck_assert_uint_eq(league_leases_active(L.d->leases), 0);
	for (uint32_t a = 0; a < brain_count(L.d->br); a++)
		for (uint32_t c = a; c < brain_count(L.d->br); c++) {
			struct payoff_entry e;
			ck_assert_int_eq(payoff_get(brain_payoff(L.d->br), a, c,
						    &e), 0);
			games += e.games;
		}
	ck_assert_double_eq(games, j.episodes - 1);
	ck_assert_msg(status_has(L.d, count), "%s", count);
	tp_league_close(&L, 1);
}

static void long_episode(League__Episode *e)
{
	e->steps = UINT32_MAX; /* rock-paper-scissors plays one step */
}

static void nan_return(League__Episode *e)
{
	e->returns[0] = NAN;
}

static void huge_return(League__Episode *e)
{
	e->returns[1] = -1e300;
}

START_TEST(implausible_results_are_not_counted)
{
	implausible(long_episode, "\"invalid_episodes\": 1,");
	implausible(nan_return, "\"invalid_episodes\": 1,");
	implausible(huge_return, "\"invalid_episodes\": 1,");
}
END_TEST

/* A league of rps in dir whose player 0 has version 1 honest and
 * version 2 with NaN weights (written to the store straight, as a daemon
 * before these checks stored it). */
static void league_with_nan(char *dir, lg_buf *honest, lg_buf *nan)
{
	struct tp_league L;
	struct tp_peer lr;
	struct store_blob_info info = { .dtype = STORE_DT_BYTES, .rank = 1 };
	store_txn *t;
	uint8_t k[8];
	net_msg *r;

	lg_log_set_level(LG_LOG_ERROR);
	tp_league_open(&L, rps_cfg, 0, 0);
	tp_attach(&L, &lr, LEAGUE__ROLE__ROLE_LEARNER, "learner");
	ck_assert_int_eq(tp_fake_learner(&lr, 0), LEAGUE__STATUS__STATUS_OK);
	r = tp_params_put(&lr, 0, 10, "honest");
	ck_assert_int_eq(tp_ack_status(r), LEAGUE__STATUS__STATUS_OK);
	net_msg_free(r);
	tp_blob(&lr, "honest", honest);
	odd_blob(&lr, 5, NAN, nan);
	info.dims[0] = (uint32_t)nan->len;
	info.nbytes = nan->len;
	store_key_u32x2(k, 0, 2);
	ck_assert_int_eq(store_txn_begin(L.d->st, STORE_TXN_WRITE, &t), 0);
	store_blob_put(t, STORE_DB_PARAMS, k, sizeof k, &info, nan->data);
	ck_assert_int_eq(store_txn_commit(t), 0);
	tp_detach(&lr);
	tp_league_close(&L, 0);
	snprintf(dir, 160, "%s", L.dir);
}

START_TEST(export_and_play_refuse_nan)
{
	static char out[1 << 14], err[1 << 14];
	char dir[160], good[300], bad[300];
	lg_buf honest = { 0 }, nan = { 0 };
	static uint8_t body[1 << 20];
	size_t n;
	FILE *f;

	league_with_nan(dir, &honest, &nan);
	snprintf(good, sizeof good, "%s/good.agent", dir);
	snprintf(bad, sizeof bad, "%s/nan.agent", dir);
	const char *e2[] = { "export", dir, "--player", "0", "-o", bad, NULL };
	ck_assert_int_ne(tu_run_league(out, sizeof out, err, sizeof err, e2),
			 0);
	ck_assert_msg(strstr(err, "player 0 version 2") &&
		      strstr(err, "not finite"), "%s", err);
	ck_assert_int_ne(access(bad, F_OK), 0);
	const char *e1[] = { "export", dir, "--player", "0", "--version", "1",
			     "-o", good, NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, e1),
			 0);
	/* the good file with the NaN network in place of its own (the
	 * same model, so the same length), its checksum made right */
	f = fopen(good, "rb");
	ck_assert(f);
	n = fread(body, 1, sizeof body, f);
	fclose(f);
	ck_assert_uint_eq(nan.len, honest.len);
	ck_assert_uint_gt(n, nan.len + 4);
	ck_assert(!memcmp(body + n - 4 - honest.len, honest.data, honest.len));
	memcpy(body + n - 4 - nan.len, nan.data, nan.len);
	lg_put_le32(body + n - 4, lg_crc32c(0, body, n - 4));
	f = fopen(bad, "wb");
	ck_assert(f && fwrite(body, 1, n, f) == n && !fclose(f));
	const char *pl[] = { "play", bad, "random", "--games", "2", NULL };
	ck_assert_int_ne(tu_run_league(out, sizeof out, err, sizeof err, pl),
			 0);
	ck_assert_msg(strstr(err, "nan.agent") && strstr(err, "not finite"),
		      "%s", err);
	const char *pg[] = { "play", good, "random", "--games", "2", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, pg),
			 0);
	lg_buf_free(&honest);
	lg_buf_free(&nan);
	tu_rmrf(dir);
}
END_TEST

Suite *suite_validate(void)
{
	Suite *s = suite_create("validate");
	const struct tu_test lies_tests[] = {
		{ bad_parameters_are_refused, 1 },
		{ player_steps_is_bounded, 1 },
		{ implausible_results_are_not_counted, 1 },
		{ export_and_play_refuse_nan, 1 },
	};

	TU_TCASE(s, "lies", 120, lies_tests);
	return s;
}
