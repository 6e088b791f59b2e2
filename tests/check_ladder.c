/*
 * tests/check_ladder.c: the ladder of leagues beyond two symmetric
 * players (players/ladder.c, players/ratings.c). A three-seat league's
 * and a two-against-two league's ratings are exactly the Plackett-Luce
 * fit of their episodes, ranked here by hand from the returns (ties
 * shared, a team's seats one rank); the window keeps the newest
 * BRAIN_LADDER_EPISODES; a simulated three-seat league with known
 * strengths is recovered within its intervals; a two-role league's
 * meta-Nash and α-Rank come from its bimatrix (matching pennies: one
 * half each) and its ratings stay Elo.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "payoff/payoff.h"
#include "players/players.h"
#include "tests/brain_fixture.h"
#include "tests/testutil.h"

#define EPS 4        /* episodes per job in the hand league */
#define MAXJOBS 200

/* Every job the test played: its seats' agents and returns. */
struct played {
	uint32_t nseats, njobs, eps[MAXJOBS];
	uint32_t agent[MAXJOBS][BRAIN_MAX_SEATS];
	double *ret[MAXJOBS];
};

static uint32_t play_learner; /* whose jobs play() asks for */

static void play(brain *b, uint32_t jobs, uint32_t eps,
		 double (*ret_of)(uint32_t, uint32_t, uint32_t, uint32_t),
		 struct played *pl)
{
	struct brain_job j;

	for (uint32_t i = 0; i < jobs; i++) {
		uint32_t k = pl->njobs++;
		ck_assert_uint_lt(k, MAXJOBS);
		ck_assert_int_eq(brain_next_job(b, play_learner, &j), 0);
		pl->nseats = j.nseats;
		pl->eps[k] = eps;
		pl->ret[k] = malloc(sizeof(double) * eps * j.nseats);
		memcpy(pl->agent[k], j.seat_agent, sizeof pl->agent[k]);
		for (uint32_t e = 0; e < eps; e++)
			for (uint32_t s = 0; s < j.nseats; s++)
				pl->ret[k][e * j.nseats + s] =
					ret_of(j.seat_agent[s], s, e, k);
		ck_assert_int_eq(brain_record_returns(b, j.id, pl->ret[k],
						      eps), 0);
	}
}

static void played_free(struct played *pl)
{
	for (uint32_t k = 0; k < pl->njobs; k++)
		free(pl->ret[k]);
}

#define TEAM(t, s) ((t) ? (uint32_t)(t)[s] : (s))

/*
 * The fit the ladder must equal: every episode of the newest jobs from
 * `from` on as its own weight-1 game, ranked here by hand (a seat's rank
 * the number of teams whose return beats its team's; the teams' seats
 * agree, so a seat's return is its team's), over the agents that
 * appear (compact ids, centred among them). want gets brain_count
 * entries, NaN for an agent that does not appear.
 */
static void expected(const struct played *pl, uint32_t from,
		     const uint8_t *team, uint32_t count, double *want,
		     double *want_se)
{
	uint32_t ns = pl->nseats, slot[64], nslot = 0, nep = 0;
	uint32_t *ag, *tm, *rk, g = 0;
	struct payoff_pl_game *games;
	double r[64], se[64];
	char err[256] = "";

	for (uint32_t k = from; k < pl->njobs; k++)
		nep += pl->eps[k];
	ag = malloc(sizeof *ag * nep * ns);
	tm = malloc(sizeof *tm * nep * ns);
	rk = malloc(sizeof *rk * nep * ns);
	games = malloc(sizeof *games * nep);
	for (uint32_t a = 0; a < count; a++)
		slot[a] = BRAIN_NONE;
	for (uint32_t k = from; k < pl->njobs; k++)
		for (uint32_t e = 0; e < pl->eps[k]; e++, g++) {
			const double *x = pl->ret[k] + e * ns;
			for (uint32_t s = 0; s < ns; s++) {
				uint32_t a = pl->agent[k][s], beat = 0;
				if (slot[a] == BRAIN_NONE)
					slot[a] = nslot++;
				ag[g * ns + s] = slot[a];
				tm[g * ns + s] = team ? team[s] : s;
				/* teams beating s's: one seat each */
				for (uint32_t u = 0; u < ns; u++) {
					int first = 1;
					for (uint32_t v = 0; v < u; v++)
						if (TEAM(team, v) ==
						    TEAM(team, u))
							first = 0;
					beat += first && x[u] > x[s];
				}
				rk[g * ns + s] = beat;
			}
			games[g] = (struct payoff_pl_game){ ns, ag + g * ns,
							    tm + g * ns,
							    rk + g * ns, 1 };
		}
	ck_assert_msg(payoff_pl_fit(games, g, nslot, 1.0, r, se, NULL, err,
				    sizeof err) == 0, "%s", err);
	for (uint32_t a = 0; a < count; a++) {
		want[a] = slot[a] == BRAIN_NONE ? NAN : r[slot[a]];
		want_se[a] = slot[a] == BRAIN_NONE ? NAN : se[slot[a]];
	}
	free(ag);
	free(tm);
	free(rk);
	free(games);
}

/* The ladder's rating of each agent (by id) and its JSON. */
static void ladder(brain *b, double *rating, double *se, lg_buf *json)
{
	uint32_t n = brain_count(b);
	struct brain_rating r[64];
	double gap;

	ck_assert_uint_le(n, 64);
	ck_assert_int_eq(brain_ratings(b, 256, r, &gap), 0);
	for (uint32_t k = 0; k < n; k++) {
		rating[r[k].id] = r[k].rating;
		se[r[k].id] = r[k].rating_se;
		if (k)  /* best first, the unrated last */
			ck_assert(isnan(r[k].rating) ||
				  r[k - 1].rating >= r[k].rating);
	}
	json->len = 0;
	ck_assert_int_eq(brain_ratings_json(b, 256, json), 0);
	ck_assert_int_eq(lg_buf_printf(json, "%c", 0), 0);
}

static void same(const double *got, const double *want, uint32_t n)
{
	for (uint32_t a = 0; a < n; a++) {
		if (isnan(want[a])) {
			ck_assert_msg(isnan(got[a]), "agent %u: %g", a, got[a]);
			continue;
		}
		ck_assert_msg(fabs(got[a] - want[a]) <= 1e-9,
			      "agent %u: %.12g, want %.12g", a, got[a],
			      want[a]);
	}
}

/* Returns by hand: the learner (0) scores 2 in even episodes, -1 in odd
 * ones; snapshot a scores a mod 3 - 1, so two snapshots may tie. */
static double hand_ret(uint32_t a, uint32_t s, uint32_t e, uint32_t job)
{
	if (a == 0)
		return e % 2 ? -1 : 2;
	return (double)(a % 3) - 1;
}

START_TEST(three_seats_rate_by_plackett_luce)
{
	struct brain_opts o;
	struct fx f;
	struct played pl = { 0 };
	double got[64], gse[64], want[64], wse[64];
	lg_buf json = { 0 };

	uint64_t at;
	fx_seat_opts(&o, 3, NULL, BRAIN_MEASURE_RETURN);
	fx_open(&f, &o, 1);
	fx_snapshots(f.b, 3);
	play(f.b, 20, EPS, hand_ret, &pl);
	at = brain_log_seq(f.b);
	play(f.b, 20, EPS, hand_ret, &pl);
	ladder(f.b, got, gse, &json);
	expected(&pl, 0, NULL, brain_count(f.b), want, wse);
	same(got, want, brain_count(f.b));
	same(gse, wse, brain_count(f.b));
	ck_assert_msg(strstr((char *)json.data, "\"model\":\"plackett-luce\","
			     "\"meta\":\"zero-sum\",\"episodes\":160"),
		      "%s", (char *)json.data);
	/* the learner wins half its episodes outright and ties the
	 * snapshots that score -1 in the others: above them */
	for (uint32_t a = 1; a < brain_count(f.b); a++)
		if (!isnan(got[a]) && a % 3 == 0)
			ck_assert(got[0] > got[a]);
	/* a reopened (inspected) league shows the same ladder */
	fx_close(&f, 0);
	{
		struct store_opts ro = { STORE_RDONLY, 0, 0 };
		store *s = NULL;
		brain *b = NULL;
		double g2[64], s2[64];
		ck_assert_int_eq(store_open(&s, f.dir, &ro, NULL, 0), 0);
		ck_assert_int_eq(brain_open(&b, s, NULL, NULL, 0), 0);
		ladder(b, g2, s2, &json);
		same(g2, want, brain_count(b));
		brain_close(b);
		/* and the league as it stood after 20 jobs (the page's
		 * time slider): the fit of those jobs only */
		char err[256] = "";
		struct played early = pl;
		early.njobs = 20;
		ck_assert_msg(brain_open_at(&b, s, at, err, sizeof err) == 0,
			      "%s", err);
		ladder(b, g2, s2, &json);
		expected(&early, 0, NULL, brain_count(b), want, wse);
		same(g2, want, brain_count(b));
		same(s2, wse, brain_count(b));
		ck_assert_msg(strstr((char *)json.data, "\"episodes\":80"),
			      "%s", (char *)json.data);
		brain_close(b);
		store_close(s);
	}
	played_free(&pl);
	tu_rmrf(f.dir);
	lg_buf_free(&json);
}
END_TEST

/* A reset learner's games before its reset count for the snapshot that
 * froze it (as the payoff table's), after it for the learner. */
START_TEST(a_reset_moves_games_to_the_snapshot)
{
	struct brain_opts o;
	struct brain_player p;
	struct brain_step_report rep;
	struct fx f;
	struct played pl = { 0 };
	double got[64], gse[64], want[64], wse[64];
	uint32_t E = BRAIN_NONE, before;
	lg_buf json = { 0 };

	fx_seat_opts(&o, 3, NULL, BRAIN_MEASURE_RETURN);
	o.n_main_exploiter = 1;
	o.main_exploiter.reset_prob = 1;
	fx_open(&f, &o, 1);
	fx_snapshots(f.b, 2);
	for (uint32_t a = 0; a < brain_count(f.b); a++) {
		brain_player_info(f.b, a, &p);
		if (p.role == BRAIN_ROLE_MAIN_EXPLOITER)
			E = a;
	}
	ck_assert_uint_ne(E, BRAIN_NONE);
	play_learner = E;
	play(f.b, 12, EPS, hand_ret, &pl);
	before = pl.njobs;
	brain_player_info(f.b, E, &p);
	ck_assert_int_eq(brain_report_steps(f.b, E, p.steps + 10, p.version + 1,
					    &rep), 0);
	ck_assert(rep.snapshot && rep.reset);
	play(f.b, 12, EPS, hand_ret, &pl);
	play_learner = 0;
	play(f.b, 12, EPS, hand_ret, &pl);
	for (uint32_t k = 0; k < before; k++)
		for (uint32_t s = 0; s < pl.nseats; s++)
			if (pl.agent[k][s] == E)
				pl.agent[k][s] = rep.snapshot_id;
	ladder(f.b, got, gse, &json);
	expected(&pl, 0, NULL, brain_count(f.b), want, wse);
	ck_assert(!isnan(want[rep.snapshot_id]) && !isnan(want[E]));
	same(got, want, brain_count(f.b));
	same(gse, wse, brain_count(f.b));
	played_free(&pl);
	fx_close(&f, 1);
	lg_buf_free(&json);
}
END_TEST

/* Two against two: a team's seats score alike (the learner's team
 * copies it), teams ranked by their return. */
static double team_ret(uint32_t a, uint32_t s, uint32_t e, uint32_t job)
{
	/* seat s is on team s / 2; team 0 wins on even jobs, ties on
	 * jobs divisible by 3 */
	if (job % 3 == 0)
		return 0;
	return (s / 2 == job % 2) ? 1 : -1;
}

START_TEST(teams_rate_by_plackett_luce)
{
	static const uint8_t team[4] = { 0, 0, 1, 1 };
	struct brain_opts o;
	struct fx f;
	struct played pl = { 0 };
	double got[64], gse[64], want[64], wse[64];
	lg_buf json = { 0 };

	fx_seat_opts(&o, 4, team, BRAIN_MEASURE_RETURN);
	fx_open(&f, &o, 1);
	fx_snapshots(f.b, 2);
	play(f.b, 30, EPS, team_ret, &pl);
	ladder(f.b, got, gse, &json);
	expected(&pl, 0, team, brain_count(f.b), want, wse);
	same(got, want, brain_count(f.b));
	same(gse, wse, brain_count(f.b));
	ck_assert_msg(strstr((char *)json.data, "\"plackett-luce\""), "%s",
		      (char *)json.data);
	played_free(&pl);
	fx_close(&f, 1);
	lg_buf_free(&json);
}
END_TEST

/* 64 episodes a job: the learner first in the old jobs, last in the
 * newest ones. */
static double window_ret(uint32_t a, uint32_t s, uint32_t e, uint32_t job)
{
	if (a == 0)
		return job < 40 ? 5 : -5;
	return (double)((a + e) % 3);
}

START_TEST(the_window_keeps_the_newest_episodes)
{
	struct brain_opts o;
	struct fx f;
	struct played pl = { 0 };
	double got[64], gse[64], want[64], wse[64];
	uint32_t jobs = 40 + BRAIN_LADDER_EPISODES / 64 + 10;
	lg_buf json = { 0 };

	fx_seat_opts(&o, 3, NULL, BRAIN_MEASURE_RETURN);
	fx_open(&f, &o, 1);
	fx_snapshots(f.b, 3);
	play(f.b, jobs, 64, window_ret, &pl);
	ladder(f.b, got, gse, &json);
	expected(&pl, jobs - BRAIN_LADDER_EPISODES / 64, NULL,
		 brain_count(f.b), want, wse);
	same(got, want, brain_count(f.b));
	char want_ep[64];
	snprintf(want_ep, sizeof want_ep, "\"episodes\":%u",
		 BRAIN_LADDER_EPISODES);
	ck_assert_msg(strstr((char *)json.data, want_ep), "%s",
		      (char *)json.data);
	/* the learner lost every counted episode */
	for (uint32_t a = 1; a < brain_count(f.b); a++)
		if (!isnan(got[a]))
			ck_assert(got[0] < got[a]);
	played_free(&pl);
	fx_close(&f, 1);
	lg_buf_free(&json);
}
END_TEST

/* A simulated league: agent a's true log-strength th(a); each episode
 * a Plackett-Luce draw of the seats' order (seats drawn best first with
 * probability proportional to e^th), returns 1, 0, -1 by place. */
static lg_rng sim_rng;
static double th(uint32_t a)
{
	static const double t[] = { 1.0, -0.5, 0.0, 0.6, -1.2, 0.3, 0.9 };
	return t[a % 7];
}

/* One episode's returns ret[0..3) of seats with agents ag. */
static void sim_episode(const uint32_t *ag, double *ret)
{
	int left[3] = { 1, 1, 1 };

	for (int place = 0; place < 3; place++) {
		double tot = 0, u;
		int pick = -1;
		for (int q = 0; q < 3; q++)
			tot += left[q] ? exp(th(ag[q])) : 0;
		u = lg_rng_double(&sim_rng) * tot;
		for (int q = 0; q < 3 && pick < 0; q++) {
			if (!left[q])
				continue;
			pick = q; /* the last one left if u runs past */
			u -= exp(th(ag[q]));
			if (u > 0)
				for (int r = q + 1; r < 3; r++)
					if (left[r]) {
						pick = -1;
						break;
					}
		}
		left[pick] = 0;
		ret[pick] = 1 - place;
	}
}

START_TEST(simulated_strengths_are_recovered)
{
	struct brain_opts o;
	struct fx f;
	struct brain_job j;
	double got[64], gse[64], truth[64], mean = 0;
	uint32_t n, seen[64] = { 0 }, nseen = 0, within = 0;
	lg_buf json = { 0 };

	lg_rng_seed(&sim_rng, 12345);
	fx_seat_opts(&o, 3, NULL, BRAIN_MEASURE_RETURN);
	fx_open(&f, &o, 1);
	fx_snapshots(f.b, 5);
	n = brain_count(f.b);
	for (uint32_t k = 0; k < 160; k++) {
		double ret[50 * 3];
		ck_assert_int_eq(brain_next_job(f.b, 0, &j), 0);
		for (uint32_t e = 0; e < 50; e++)
			sim_episode(j.seat_agent, ret + e * 3);
		for (uint32_t s = 0; s < 3; s++)
			seen[j.seat_agent[s]] = 1;
		ck_assert_int_eq(brain_record_returns(f.b, j.id, ret, 50), 0);
	}
	ladder(f.b, got, gse, &json);
	for (uint32_t a = 0; a < n; a++)
		if (seen[a]) {
			mean += th(a) * 400 / log(10);
			nseen++;
		}
	ck_assert_uint_ge(nseen, 4);
	mean /= nseen;
	for (uint32_t a = 0; a < n; a++) {
		if (!seen[a]) {
			ck_assert(isnan(got[a]));
			continue;
		}
		truth[a] = th(a) * 400 / log(10) - mean;
		double z = fabs(got[a] - truth[a]) / gse[a];
		/* each within 3.3 standard errors (a 1e-3 miss per agent),
		 * most within 1.96 */
		ck_assert_msg(z < 3.3, "agent %u: %.1f, truth %.1f, se %.1f",
			      a, got[a], truth[a], gse[a]);
		within += z < 1.96;
		ck_assert(gse[a] > 0 && gse[a] < 60);
	}
	ck_assert_uint_ge(within, nseen - 1);
	fx_close(&f, 1);
	lg_buf_free(&json);
}
END_TEST

/* Two roles, matching pennies by agent kind: pop 0's agent scores 1
 * when its kind (main: 0, its snapshot: 1) matches pop 1's, else -1;
 * pop 1's the opposite. Snapshots never meet, so that cell is 0 (never
 * met): A = [[1, -1], [-1, 0]], B = -A, whose one equilibrium is worked
 * by hand: the row role makes the columns equal, x0 - x1 = -x0, so
 * x = (1/3, 2/3); the column role likewise y = (1/3, 2/3); value -1/3. */
START_TEST(two_roles_solve_their_bimatrix)
{
	struct brain_opts o;
	struct brain_job j;
	struct brain_player p;
	struct fx f;
	struct brain_rating r[16];
	int par[16], met[2][2] = { { 0 } };
	double gap, sum[2] = { 0, 0 }, ar[2] = { 0, 0 };
	lg_buf json = { 0 };
	uint32_t n;

	fx_seat_opts(&o, 2, NULL, BRAIN_MEASURE_RETURN);
	o.pops = 2;
	o.seat_pop[1] = 1;
	fx_open(&f, &o, 1);
	n = brain_count(f.b);
	ck_assert_uint_eq(n, 4); /* each pop: its main and first snapshot */
	for (uint32_t a = 0; a < n; a++) {
		brain_player_info(f.b, a, &p);
		par[a] = p.role == BRAIN_ROLE_HISTORICAL;
	}
	uint32_t mains[2] = { BRAIN_NONE, BRAIN_NONE };
	for (uint32_t a = 0; a < n; a++) {
		brain_player_info(f.b, a, &p);
		if (p.role == BRAIN_ROLE_MAIN)
			mains[p.pop] = a;
	}
	ck_assert(mains[0] != BRAIN_NONE && mains[1] != BRAIN_NONE);
	for (int i = 0; i < 400 && !(met[0][0] && met[0][1] && met[1][0]);
	     i++) {
		uint32_t L = mains[i % 2];
		ck_assert_int_eq(brain_next_job(f.b, L, &j), 0);
		uint32_t a = j.seat_agent[0], c = j.seat_agent[1];
		double ret[2];
		ret[0] = par[a] == par[c] ? 1 : -1;
		ret[1] = -ret[0];
		met[par[a]][par[c]] = 1;
		ck_assert_int_eq(brain_record_returns(f.b, j.id, ret, 1), 0);
	}
	ck_assert(met[0][0] && met[0][1] && met[1][0] && !met[1][1]);
	ck_assert_int_eq(brain_ratings(f.b, 256, r, &gap), 0);
	ck_assert(gap >= 0 && gap < 1e-9);
	for (uint32_t k = 0; k < n; k++) {
		ck_assert_double_eq_tol(r[k].nash, par[r[k].id] ? 2.0 / 3 :
					1.0 / 3, 1e-9);
		ck_assert(r[k].alpha_rank >= 0 && r[k].alpha_rank <= 1);
		sum[r[k].pop] += r[k].nash;
		ar[r[k].pop] += r[k].alpha_rank;
	}
	for (int q = 0; q < 2; q++) {
		ck_assert_double_eq_tol(sum[q], 1, 1e-12);
		ck_assert_double_eq_tol(ar[q], 1, 1e-12);
	}
	ck_assert_int_eq(brain_ratings_json(f.b, 256, &json), 0);
	ck_assert_int_eq(lg_buf_printf(&json, "%c", 0), 0);
	/* two seats: the Elo fit stays */
	ck_assert_msg(strstr((char *)json.data, "\"model\":\"elo\","
			     "\"meta\":\"bimatrix\""), "%s",
		      (char *)json.data);
	fx_close(&f, 1);
	lg_buf_free(&json);
}
END_TEST

Suite *suite_ladder(void)
{
	Suite *s = suite_create("ladder");
	const struct tu_test tests[] = {
		{ three_seats_rate_by_plackett_luce, 1 },
		{ a_reset_moves_games_to_the_snapshot, 1 },
		{ teams_rate_by_plackett_luce, 1 },
		{ the_window_keeps_the_newest_episodes, 1 },
		{ simulated_strengths_are_recovered, 1 },
		{ two_roles_solve_their_bimatrix, 1 },
	};

	TU_TCASE(s, "core", 120, tests);
	return s;
}
