/*
 * tests/check_roles.c: the brain beyond two seats (players/matchmaking.c
 * brain_fill_seats, players/results.c). Every seat of an N-seat job is
 * filled, the learner's seat turns with the job id, teammates follow the
 * teammates rule; an episode's returns update every pair of seats on
 * different teams (who finished ahead, or the score of the returns under
 * measure return), worked by hand; two seats under measure win count
 * exactly as the learner's outcomes did; N-seat jobs and returns survive
 * a reopen, replay and the history rebuild byte for byte; the measure a
 * league began with is kept; bad input is refused.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "players/players.h"
#include "tests/brain_fixture.h"
#include "tests/testutil.h"

START_TEST(every_seat_is_filled)
{
	struct brain_opts o;
	struct brain_job j;
	struct fx f;

	fx_seat_opts(&o, 3, NULL, BRAIN_MEASURE_WIN);
	fx_open(&f, &o, 1);
	fx_snapshots(f.b, 3);
	for (int i = 0; i < 60; i++) {
		ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
		ck_assert_uint_eq(j.nseats, 3);
		ck_assert_uint_eq(j.learner_seat, j.id % 3);
		ck_assert_uint_eq(j.seat_agent[j.learner_seat], 0);
		ck_assert_uint_eq(j.seat_params[j.learner_seat], 0);
		for (uint32_t s = 0; s < 3; s++) {
			struct brain_player p;
			ck_assert_int_eq(brain_player_info(f.b, j.seat_agent[s],
							   &p), 0);
			/* a snapshot plays its parent's parameters */
			ck_assert_uint_eq(j.seat_params[s],
					  p.parent == BRAIN_NONE ? p.id
								 : p.parent);
			ck_assert_uint_eq(j.seat_version[s], p.version);
		}
		/* opponent is the first seat after the learner's filled */
		ck_assert_uint_eq(j.opponent,
				  j.seat_agent[j.learner_seat ? 0 : 1]);
		ck_assert_int_eq(brain_cancel_job(f.b, j.id), 0);
	}
	fx_close(&f, 1);
}
END_TEST

/* Two teams of two: the learner's teammate is the learner itself under
 * teammates self; under league it is drawn like an opponent. */
START_TEST(teammates_follow_the_rule)
{
	static const uint8_t team[4] = { 0, 1, 0, 1 };
	struct brain_opts o;
	struct brain_job j;
	struct fx f;
	int drawn = 0;

	fx_seat_opts(&o, 4, team, BRAIN_MEASURE_WIN);
	fx_open(&f, &o, 1);
	fx_snapshots(f.b, 4);
	for (int i = 0; i < 40; i++) {
		uint32_t ls, mate;
		ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
		ls = j.learner_seat;
		mate = (ls + 2) % 4;
		ck_assert_uint_eq(j.seat_agent[mate], 0);
		ck_assert_uint_eq(j.seat_version[mate],
				  j.seat_version[ls]);
		ck_assert_int_eq(brain_cancel_job(f.b, j.id), 0);
	}
	fx_close(&f, 1);

	o.teammates = BRAIN_TEAMMATES_LEAGUE;
	fx_open(&f, &o, 1);
	fx_snapshots(f.b, 4);
	for (int i = 0; i < 40; i++) {
		ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
		drawn += j.seat_agent[(j.learner_seat + 2) % 4] != 0;
		ck_assert_int_eq(brain_cancel_job(f.b, j.id), 0);
	}
	/* the main player's PFSP draws its snapshots half of the time */
	ck_assert_int_gt(drawn, 0);
	fx_close(&f, 1);
}
END_TEST

/* A three-seat job's one episode, by hand. Seats: learner 0 and two
 * snapshots; returns (2, -1, -1). Win: the learner beats both, the two
 * snapshots draw. Return, R 2: scaled returns 1, 0.25, 0.25, so the
 * learner's score against each is (1 + 1 - 0.25) / 2 = 0.875 and the
 * snapshots' pair 0.5. */
static void one_episode(int measure, const double want[3][3])
{
	struct brain_opts o;
	struct brain_job j;
	struct fx f;
	double ret[3];

	fx_seat_opts(&o, 3, NULL, measure);
	o.return_scale = 2;
	fx_open(&f, &o, 1);
	fx_snapshots(f.b, 2);
	/* draw until both snapshots sit in the two other seats */
	for (;;) {
		ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
		uint32_t a = j.seat_agent[(j.learner_seat + 1) % 3];
		uint32_t c = j.seat_agent[(j.learner_seat + 2) % 3];
		if (a != c && a && c)
			break;
		ck_assert_int_eq(brain_cancel_job(f.b, j.id), 0);
	}
	for (uint32_t s = 0; s < 3; s++)
		ret[s] = s == j.learner_seat ? 2 : -1;
	ck_assert_int_eq(brain_record_returns(f.b, j.id, ret, 1), 0);
	for (uint32_t a = 0; a < 3; a++)
		for (uint32_t c = 0; c < 3; c++) {
			struct payoff_entry e;
			if (a == c)
				continue;
			ck_assert_int_eq(payoff_get(brain_payoff(f.b), a, c,
						    &e), 0);
			ck_assert_double_eq_tol(e.games, 1, 1e-12);
			ck_assert_double_eq_tol(e.wins + e.draws / 2,
						want[a][c], 1e-12);
		}
	/* a result counts once */
	ck_assert_int_eq(brain_record_returns(f.b, j.id, ret, 1), LG_EEXIST);
	fx_close(&f, 1);
}

START_TEST(an_episode_updates_every_pair)
{
	static const double win[3][3] = { { 0, 1, 1 },
					  { 0, 0, 0.5 },
					  { 0, 0.5, 0 } };
	static const double ret[3][3] = { { 0, 0.875, 0.875 },
					  { 0.125, 0, 0.5 },
					  { 0.125, 0.5, 0 } };

	one_episode(BRAIN_MEASURE_WIN, win);
	one_episode(BRAIN_MEASURE_RETURN, ret);
}
END_TEST

/* Run n jobs of learner 0 with fixed-seed returns: zero-sum draws of
 * {-2..2} for two seats; for more, seat values whose mean is 0. */
static void run_returns(brain *b, int n, uint64_t seed)
{
	lg_rng g;
	struct brain_job j;
	struct brain_step_report r;
	double ret[4 * BRAIN_MAX_SEATS];

	lg_rng_seed(&g, seed);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(brain_next_job(b, 0, &j), 0);
		for (uint32_t e = 0; e < 4; e++) {
			double sum = 0;
			for (uint32_t s = 0; s + 1 < j.nseats; s++) {
				ret[e * j.nseats + s] =
					(double)lg_rng_below(&g, 5) - 2;
				sum += ret[e * j.nseats + s];
			}
			ret[e * j.nseats + j.nseats - 1] = -sum;
		}
		ck_assert_int_eq(brain_record_returns(b, j.id, ret, 4), 0);
		if (i % 7 == 6) {
			struct brain_player p;
			brain_player_info(b, 0, &p);
			ck_assert_int_eq(brain_report_steps(b, 0, p.steps + 10,
							    p.version + 1, &r),
					 0);
		}
	}
}

static void payoff_json(brain *b, lg_buf *out)
{
	uint32_t ids[256], n = brain_count(b);

	ck_assert_uint_le(n, 256);
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	out->len = 0;
	ck_assert_int_eq(brain_payoff_json(b, ids, n, out), 0);
}

/* Two seats under measure win: the returns count as the learner seat's
 * outcomes always did (a second league fed the outcomes ends equal). */
START_TEST(two_seats_count_as_outcomes)
{
	struct brain_opts o;
	struct fx a, c;
	lg_buf ja = { 0 }, jc = { 0 };
	struct brain_job j;
	lg_rng g;

	fx_seat_opts(&o, 2, NULL, BRAIN_MEASURE_WIN);
	fx_open(&a, &o, 1);
	fx_open(&c, &o, 1);
	lg_rng_seed(&g, 5);
	for (int i = 0; i < 50; i++) {
		double ret[2 * 3];
		int8_t out[3];
		ck_assert_int_eq(brain_next_job(a.b, 0, &j), 0);
		ck_assert_int_eq(brain_next_job(c.b, 0, &j), 0);
		ck_assert_uint_eq(j.learner_seat, j.id & 1);
		for (int e = 0; e < 3; e++) {
			double r = (double)lg_rng_below(&g, 3) - 1;
			ret[e * 2 + j.learner_seat] = r;
			ret[e * 2 + !j.learner_seat] = -r;
			out[e] = (int8_t)r;
		}
		ck_assert_int_eq(brain_record_returns(a.b, j.id, ret, 3), 0);
		ck_assert_int_eq(brain_record_result(c.b, j.id, out, 3), 0);
	}
	payoff_json(a.b, &ja);
	payoff_json(c.b, &jc);
	ck_assert_str_eq((char *)ja.data, (char *)jc.data);
	fx_close(&a, 1);
	fx_close(&c, 1);
	lg_buf_free(&ja);
	lg_buf_free(&jc);
}
END_TEST

/* Jobs in flight keep their seats across a reopen; the results replay
 * into a fresh league and rebuild in the history, byte for byte. */
static void survives(uint32_t n, const uint8_t *team, int measure)
{
	struct brain_opts o;
	struct fx a, c;
	struct brain_job j, open[2];
	struct store_opts ro = { STORE_RDONLY, 0, 0 };
	lg_buf ja = { 0 }, jc = { 0 }, jh = { 0 };
	store *src = NULL;
	brain *h = NULL;
	uint64_t checked = 0;
	size_t got;
	char err[256] = "";

	fx_seat_opts(&o, n, team, measure);
	fx_open(&a, &o, 1);
	run_returns(a.b, 60, 11);
	ck_assert_int_eq(brain_next_job(a.b, 0, &j), 0);
	payoff_json(a.b, &ja);
	fx_close(&a, 0);
	fx_open(&a, &o, 0);
	ck_assert_int_eq(brain_open_jobs_list(a.b, open, 2, &got), 0);
	ck_assert_uint_eq(got, 1);
	ck_assert_uint_eq(open[0].nseats, n);
	ck_assert_uint_eq(open[0].learner_seat, j.learner_seat);
	ck_assert(!memcmp(open[0].seat_agent, j.seat_agent,
			  sizeof j.seat_agent));
	ck_assert(!memcmp(open[0].seat_version, j.seat_version,
			  sizeof j.seat_version));
	fx_close(&a, 0);

	ck_assert_msg(fx_replay(&c, &o, a.dir, &checked, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_uint_gt(checked, 120);
	payoff_json(c.b, &jc);
	ck_assert_str_eq((char *)ja.data, (char *)jc.data);
	fx_close(&c, 1);

	ck_assert_int_eq(store_open(&src, a.dir, &ro, NULL, 0), 0);
	ck_assert_msg(brain_open_at(&h, src, UINT64_MAX, err, sizeof err) == 0,
		      "%s", err);
	payoff_json(h, &jh);
	ck_assert_str_eq((char *)ja.data, (char *)jh.data);
	ck_assert_int_eq(brain_measure(h, NULL), measure);
	brain_close(h);
	store_close(src);
	tu_rmrf(a.dir);
	lg_buf_free(&ja);
	lg_buf_free(&jc);
	lg_buf_free(&jh);
}

START_TEST(seats_survive_reopen_replay_and_history)
{
	static const uint8_t team[4] = { 0, 1, 0, 1 };

	survives(3, NULL, BRAIN_MEASURE_WIN);
	survives(3, NULL, BRAIN_MEASURE_RETURN);
	survives(4, team, BRAIN_MEASURE_RETURN);
	survives(2, NULL, BRAIN_MEASURE_RETURN);
}
END_TEST

/* A league keeps the unit it began with: reopening with another measure
 * or scale is refused by name; auto (or no options) takes the stored. */
START_TEST(a_league_keeps_its_measure)
{
	struct brain_opts o;
	struct fx f;
	char err[256] = "";
	brain *b = NULL;
	double R = 0;

	fx_seat_opts(&o, 2, NULL, BRAIN_MEASURE_RETURN);
	o.return_scale = 13;
	fx_open(&f, &o, 1);
	fx_close(&f, 0);
	o.measure = BRAIN_MEASURE_WIN;
	{
		struct store_opts so = { STORE_NOSYNC, 0, 0 };
		ck_assert_int_eq(store_open(&f.s, f.dir, &so, NULL, 0), 0);
		ck_assert_int_eq(brain_open(&b, f.s, &o, err, sizeof err),
				 LG_ECONFIG);
		ck_assert_msg(strstr(err, "payoff.measure return") &&
			      strstr(err, "win"), "%s", err);
		o.measure = BRAIN_MEASURE_RETURN;
		o.return_scale = 2;
		ck_assert_int_eq(brain_open(&b, f.s, &o, err, sizeof err),
				 LG_ECONFIG);
		store_close(f.s);
	}
	o.measure = BRAIN_MEASURE_AUTO;
	fx_open(&f, &o, 0);
	ck_assert_int_eq(brain_measure(f.b, &R), BRAIN_MEASURE_RETURN);
	ck_assert_double_eq(R, 13);
	fx_close(&f, 1);
	/* a new league under auto counts wins */
	fx_open(&f, &o, 1);
	ck_assert_int_eq(brain_measure(f.b, NULL), BRAIN_MEASURE_WIN);
	fx_close(&f, 1);
}
END_TEST

START_TEST(bad_seats_are_refused)
{
	struct brain_opts o;
	struct brain_job j;
	struct fx f;
	char err[256] = "";
	double ret[3] = { 1, NAN, 0 };

	fx_seat_opts(&o, 9, NULL, BRAIN_MEASURE_WIN);
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
	ck_assert_msg(strstr(err, "seats 9"), "%s", err);
	fx_seat_opts(&o, 3, NULL, BRAIN_MEASURE_WIN);
	o.team[2] = 3;
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
	ck_assert_msg(strstr(err, "seat 2's team 3"), "%s", err);
	fx_seat_opts(&o, 3, NULL, BRAIN_MEASURE_RETURN);
	o.return_scale = 0;
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
	o.return_scale = 1;
	fx_open(&f, &o, 1);
	ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
	ck_assert_int_eq(brain_record_returns(f.b, j.id, ret, 1), LG_EINVAL);
	ck_assert_int_eq(brain_record_returns(f.b, j.id, ret, 0), LG_EINVAL);
	ck_assert_int_eq(brain_record_returns(f.b, j.id + 1, ret, 0),
			 LG_EINVAL);
	ret[1] = -1;
	ck_assert_int_eq(brain_record_returns(f.b, j.id + 1, ret, 1),
			 LG_ENOTFOUND);
	ck_assert_int_eq(brain_record_returns(f.b, j.id, ret, 1), 0);
	fx_close(&f, 1);
}
END_TEST

/* An asymmetric game of two roles: each population's learners sit in
 * their own seat, every opponent comes from the other population, and
 * snapshots stay in their parent's; a reopen keeps the populations,
 * inspection (no options) finds them, and options for one population
 * are refused on this league. */
START_TEST(populations_play_their_own_seats)
{
	struct brain_opts o;
	struct brain_job j;
	struct brain_player p, q;
	struct fx f;
	struct store_opts ro = { STORE_RDONLY, 0, 0 };
	store *s = NULL;
	brain *b = NULL;
	char err[256] = "";
	uint32_t other = BRAIN_NONE;

	fx_seat_opts(&o, 2, NULL, BRAIN_MEASURE_RETURN);
	o.pops = 2;
	o.seat_pop[1] = 1;
	fx_open(&f, &o, 1);
	/* learner 0 (main, pop 0) froze snapshot 1; then pop 1's main */
	for (uint32_t i = 0; i < brain_count(f.b); i++) {
		brain_player_info(f.b, i, &p);
		if (p.role == BRAIN_ROLE_MAIN && p.pop == 1)
			other = i;
		if (p.role == BRAIN_ROLE_HISTORICAL) {
			brain_player_info(f.b, p.parent, &q);
			ck_assert_uint_eq(p.pop, q.pop);
		}
	}
	ck_assert_uint_ne(other, BRAIN_NONE);
	for (int i = 0; i < 40; i++) {
		uint32_t L = i % 2 ? other : 0, ls = i % 2 ? 1 : 0;
		double ret[2] = { 1, -1 };
		ck_assert_int_eq(brain_next_job(f.b, L, &j), 0);
		ck_assert_uint_eq(j.learner_seat, ls);
		ck_assert_uint_eq(j.seat_agent[ls], L);
		brain_player_info(f.b, j.seat_agent[!ls], &p);
		ck_assert_uint_eq(p.pop, !ls);
		ck_assert_int_eq(brain_record_returns(f.b, j.id, ret, 1), 0);
	}
	fx_close(&f, 0);
	fx_open(&f, &o, 0);
	brain_player_info(f.b, other, &p);
	ck_assert_uint_eq(p.pop, 1);
	fx_close(&f, 0);
	ck_assert_int_eq(store_open(&s, f.dir, &ro, NULL, 0), 0);
	ck_assert_int_eq(brain_open(&b, s, NULL, err, sizeof err), 0);
	brain_player_info(b, other, &p);
	ck_assert_uint_eq(p.pop, 1);
	brain_close(b);
	fx_seat_opts(&o, 2, NULL, BRAIN_MEASURE_RETURN);
	ck_assert_int_eq(brain_open(&b, s, &o, err, sizeof err), LG_ECONFIG);
	ck_assert_msg(strstr(err, "seat roles"), "%s", err);
	store_close(s);
	tu_rmrf(f.dir);
}
END_TEST

START_TEST(bad_populations_are_refused)
{
	struct brain_opts o;
	char err[256] = "";

	fx_seat_opts(&o, 2, NULL, BRAIN_MEASURE_WIN);
	o.pops = 3;
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
	ck_assert_msg(strstr(err, "3 populations for 2 seats"), "%s", err);
	o.pops = 2; /* both seats population 0: population 1 plays none */
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
	ck_assert_msg(strstr(err, "population 1 plays no seat"), "%s", err);
	o.seat_pop[1] = 1;
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), 0);
	o.psro.on = 1;
	o.self_play.sp = 1;
	ck_assert_int_eq(brain_opts_check(&o, err, sizeof err), LG_ECONFIG);
	ck_assert_msg(strstr(err, "one population"), "%s", err);
}
END_TEST

Suite *suite_roles(void)
{
	Suite *s = suite_create("roles");
	const struct tu_test tests[] = {
		{ every_seat_is_filled, 1 },
		{ teammates_follow_the_rule, 1 },
		{ an_episode_updates_every_pair, 1 },
		{ two_seats_count_as_outcomes, 1 },
		{ seats_survive_reopen_replay_and_history, 1 },
		{ a_league_keeps_its_measure, 1 },
		{ bad_seats_are_refused, 1 },
		{ populations_play_their_own_seats, 1 },
		{ bad_populations_are_refused, 1 },
	};

	TU_TCASE(s, "core", 120, tests);
	return s;
}
