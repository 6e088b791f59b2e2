/* tests/check_search.c: the search operator (collector/search.c), end to
 * end through the env manager. With the uniform evaluator and training's
 * root noise a searching learner takes every one-move win and blocks every
 * one-move loss it meets on Connect Four and tic-tac-toe, from both seats,
 * against a uniform network, in every mode; its rows carry visit shares
 * that are a distribution over the legal actions with the move among the
 * most visited (after the temperature moves), the evaluator's logp and
 * value (or with search_value the search's value, high where a win is
 * on the board); moves within temperature_moves are samples; a self-play match
 * whose seats both search never calls a batched forward; what cannot
 * search is refused at coll_new saying why. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/collector.h"
#include "tests/testutil.h"
#include "util/util.h"

#define NENV 4
#define MAX_A 9

struct srec {
	pthread_mutex_t mu;
	int learner_seat_by_parity; /* learner on seat (env + episode) % 2 */
	int both_learn;             /* self-play: both seats learn */
	uint32_t eps_per_env;
	uint32_t handed[NENV], ended[NENV];
	int c4;                     /* the game is Connect Four */
	int tactics;                /* check wins and blocks (enough sims) */
	uint64_t rows, sampled_rows, off_argmax;
	uint64_t wins_seen, wins_taken, threats_seen, threats_blocked;
	uint64_t learner_losses, learner_wins, episodes;
	uint32_t temperature_moves;
	/* playout cap randomization: full searches of pcr_sims, else fast
	 * ones whose rows carry no shares */
	uint32_t pcr_sims;
	uint64_t full_rows;
	/* search.search_value: rows keep the search's value of the root;
	 * the least of it where a win in one was on the board */
	int search_value;
	float min_win_value;
	double value_sum; /* of |value| over the checked rows */
	/* per env: the learner's move number in the running episode */
	uint32_t move[NENV];
	const char *bad; /* the first broken expectation */
	char why[160];
};

static int s_next(void *ctx, size_t ei, struct coll_match *m, uint64_t *tag)
{
	struct srec *r = ctx;
	int got = 0;

	pthread_mutex_lock(&r->mu);
	if (r->handed[ei] < r->eps_per_env) {
		int ls = (int)((ei + r->handed[ei]) % 2);
		for (int p = 0; p < 2; p++)
			m->seat[p] = (struct coll_seat){
				.player = p == ls ? 0u : 1u,
				.net = p == ls ? 0u : 1u,
				.learning = r->both_learn || p == ls,
			};
		*tag = (uint64_t)ls;
		r->handed[ei]++;
		got = 1;
	}
	pthread_mutex_unlock(&r->mu);
	return got;
}

static void s_result(void *ctx, const struct coll_episode *ep)
{
	struct srec *r = ctx;
	int ls = (int)ep->tag;

	pthread_mutex_lock(&r->mu);
	ck_assert(!ep->abnormal);
	r->ended[ep->env_index]++;
	r->episodes++;
	if (!r->both_learn) {
		r->learner_losses += ep->returns[ls] < 0;
		r->learner_wins += ep->returns[ls] > 0;
	}
	pthread_mutex_unlock(&r->mu);
}

/* Connect Four from the mover's planes (own, opponent, empty; row 0 at
 * the bottom): does dropping `who`'s stone (1 own, 2 opponent) in
 * column c make four? */
static int c4_wins(const int8_t *cell, int c, int who)
{
	int8_t b[42];
	int r = 0;
	static const int d[4][2] = { { 0, 1 }, { 1, 0 }, { 1, 1 }, { 1, -1 } };

	while (r < 6 && cell[r * 7 + c])
		r++;
	if (r == 6)
		return 0;
	memcpy(b, cell, sizeof b);
	b[r * 7 + c] = (int8_t)who;
	for (int k = 0; k < 4; k++) {
		int n = 1;
		for (int sgn = -1; sgn <= 1; sgn += 2)
			for (int j = 1; j < 4; j++) {
				int rr = r + sgn * j * d[k][0];
				int cc = c + sgn * j * d[k][1];
				if (rr < 0 || rr >= 6 || cc < 0 || cc >= 7 ||
				    b[rr * 7 + cc] != who)
					break;
				n++;
			}
		if (n >= 4)
			return 1;
	}
	return 0;
}

/* The same for tic-tac-toe's cells. */
static int ttt_wins(const int8_t *cell, int c, int who)
{
	static const int L[8][3] = { { 0, 1, 2 }, { 3, 4, 5 }, { 6, 7, 8 },
				     { 0, 3, 6 }, { 1, 4, 7 }, { 2, 5, 8 },
				     { 0, 4, 8 }, { 2, 4, 6 } };
	int8_t b[9];

	if (cell[c])
		return 0;
	memcpy(b, cell, sizeof b);
	b[c] = (int8_t)who;
	for (int i = 0; i < 8; i++)
		if (b[L[i][0]] == who && b[L[i][1]] == who &&
		    b[L[i][2]] == who)
			return 1;
	return 0;
}

/* Drop `who`'s stone in column (Connect Four) or cell k: its index, or
 * -1 where it cannot go. */
static int place(const struct srec *r, int8_t *b, int k, int who)
{
	int i = k;

	if (r->c4)
		while (i < 42 && b[i])
			i += 7;
	if (i >= (r->c4 ? 42 : 9) || b[i])
		return -1;
	b[i] = (int8_t)who;
	return i;
}

/* Can `who` (1 or 2) to move force a win within `plies` plies (odd)? */
static int forced_win(const struct srec *r, int8_t *b, int who, int plies)
{
	int A = r->c4 ? 7 : 9, other = 3 - who;
	int (*wins)(const int8_t *, int, int) = r->c4 ? c4_wins : ttt_wins;

	for (int k = 0; k < A; k++)
		if (wins(b, k, who))
			return 1;
	if (plies < 3)
		return 0;
	for (int k = 0; k < A; k++) {
		int i = place(r, b, k, who), all = 1, any = 0;
		if (i < 0)
			continue;
		for (int j = 0; j < A && all; j++) {
			int q;
			if (wins(b, j, other)) {
				all = 0;
				break;
			}
			if ((q = place(r, b, j, other)) < 0)
				continue;
			any = 1;
			all = forced_win(r, b, who, plies - 2);
			b[q] = 0;
		}
		b[i] = 0;
		if (any && all)
			return 1;
	}
	return 0;
}

/* Does blocking at t still lose within three plies (the opponent wins
 * above it, elsewhere, or by a threat that cannot be met)? Then the
 * position is lost anyway and no test of the search's block. */
static int blocked_loses(const struct srec *r, const int8_t *cell, int t)
{
	int8_t b[42];

	memcpy(b, cell, r->c4 ? 42 : 9);
	if (place(r, b, t, 1) < 0)
		return 1;
	return forced_win(r, b, 2, 3);
}

static void note_bad(struct srec *r, const char *what, int row)
{
	if (!r->bad) {
		r->bad = what;
		snprintf(r->why, sizeof r->why, "%s (row %d)", what, row);
	}
}

/* Row i of b, a greedy move from the position its planes show: a win in
 * one taken (Connect Four: tic-tac-toe's search may as well take a
 * forced win in three, which it sees as surely), a loss in one blocked
 * where the block saves the game. Caller holds r->mu. */
static void check_tactics(struct srec *r, const struct lg_rows *b, size_t i)
{
	size_t A = b->num_actions, cells = r->c4 ? 42 : 9;
	const float *o = b->obs + i * b->obs_len;
	const uint8_t *m = b->mask + i * A;
	int (*wins)(const int8_t *, int, int) = r->c4 ? c4_wins : ttt_wins;
	int a = b->action[i], win = 0, threat = -1, threats = 0;
	int8_t cell[42];

	for (size_t k = 0; k < cells; k++)
		cell[k] = o[k] ? 1 : o[cells + k] ? 2 : 0;
	for (size_t k = 0; k < A; k++) {
		if (!m[k])
			continue;
		win |= wins(cell, (int)k, 1);
		if (wins(cell, (int)k, 2)) {
			threat = (int)k;
			threats++;
		}
	}
	if (win && r->c4) {
		r->wins_seen++;
		if (b->value[i] < r->min_win_value)
			r->min_win_value = b->value[i];
		r->wins_taken += wins(cell, a, 1);
		if (!wins(cell, a, 1))
			note_bad(r, "a win in one missed", (int)i);
	} else if (!win && threats == 1 && !blocked_loses(r, cell, threat)) {
		r->threats_seen++;
		r->threats_blocked += a == threat;
		if (a != threat)
			note_bad(r, "a loss in one not blocked", (int)i);
	}
}

/* Row i's search columns: visit shares a distribution over the legal
 * actions, the move legal and visited, the uniform evaluator's logp and
 * value; *vmax the largest share. Caller holds r->mu. */
static void check_shares(struct srec *r, const struct lg_rows *b, size_t i,
			 float *vmax)
{
	size_t A = b->num_actions;
	const float *v = b->visits + i * A;
	const uint8_t *m = b->mask + i * A;
	int a = b->action[i], legal = 0, bad = 0;
	float sum = 0;

	*vmax = 0;
	for (size_t k = 0; k < A; k++) {
		legal += m[k];
		bad |= v[k] < 0 || (!m[k] && v[k] != 0);
		sum += v[k];
		*vmax = fmaxf(*vmax, v[k]);
	}
	if (bad)
		note_bad(r, "visits off the legal actions", (int)i);
	if (fabsf(sum - 1) > 1e-5f)
		note_bad(r, "visit shares do not sum to 1", (int)i);
	if (a < 0 || (size_t)a >= A || !m[a] || v[a] <= 0)
		note_bad(r, "an unvisited or illegal move", (int)i);
	if (fabsf(b->logp[i] + logf((float)legal)) > 1e-5f ||
	    (!r->search_value && b->value[i] != 0))
		note_bad(r, "logp or value not the evaluator's", (int)i);
	if (r->search_value && !(fabsf(b->value[i]) <= 1))
		note_bad(r, "a search value off [-1, 1]", (int)i);
	r->value_sum += fabs(b->value[i]);
}

/* With playout cap randomization: a fast search's row (1) has no
 * shares and a legal move; a full one's (0, for the caller's checks)
 * shares are counts out of pcr_sims. Caller holds r->mu. */
static int pcr_row(struct srec *r, const struct lg_rows *b, size_t i)
{
	size_t A = b->num_actions;
	const float *v = b->visits + i * A;
	float sum = 0;
	int a = b->action[i];

	r->rows++;
	for (size_t k = 0; k < A; k++) {
		float n = v[k] * (float)r->pcr_sims;
		sum += v[k];
		if (fabsf(n - roundf(n)) > 1e-3f)
			note_bad(r, "shares not counts of a full search",
				 (int)i);
	}
	if (sum == 0) {
		if (a < 0 || (size_t)a >= A || !b->mask[i * A + (size_t)a])
			note_bad(r, "an illegal fast move", (int)i);
		return 1;
	}
	r->full_rows++;
	r->rows--; /* check_shares' caller counts it */
	return 0;
}

/* Every learner row: check_shares; after the temperature moves the move
 * among the most visited, and check_tactics. */
static int s_sink(void *ctx, const struct coll_segment *g)
{
	struct srec *r = ctx;
	const struct lg_rows *b = g->rows;
	uint32_t *move = &r->move[g->env_index];

	pthread_mutex_lock(&r->mu);
	if (!b->has_visits || !b->visits)
		note_bad(r, "no visits column", 0);
	for (size_t i = 0; i < b->n && b->has_visits; i++) {
		const float *v = b->visits + i * b->num_actions;
		int a = b->action[i];
		float vmax;
		/* the seat's move number: rows of an episode are in order */
		int greedy = *move >= r->temperature_moves;

		*move = b->done[i] == LG_ROW_END ? 0 : *move + 1;
		if (r->pcr_sims && pcr_row(r, b, i))
			continue;
		check_shares(r, b, i, &vmax);
		r->rows++;
		if (!greedy) {
			r->sampled_rows++;
			r->off_argmax += v[a] < vmax;
			continue;
		}
		if (v[a] < vmax)
			note_bad(r, "a greedy move not the most visited",
				 (int)i);
		if (r->tactics)
			check_tactics(r, b, i);
	}
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static struct coll_policy pols[2];

static void s_opts(struct coll_opts *o, const char *game,
		   enum coll_mode mode, struct srec *r)
{
	coll_opts_default(o);
	pols[0] = pols[1] = coll_policy_uniform();
	o->game = game;
	o->env.seed = 5;
	o->num_envs = NENV;
	o->mode = mode;
	o->wait_num = 2;
	o->segment_len = 7; /* segments cut episodes, too */
	o->policies = pols;
	o->num_policies = 2;
	o->search = (struct coll_search){ .sims = 300, .c_puct = 1.5,
					  .temperature_moves = 0,
					  .dirichlet_alpha = 0.3,
					  .noise_frac = 0.25 };
	o->next_episode = s_next;
	o->episode_ctx = r;
	o->sink = s_sink;
	o->sink_ctx = r;
	o->result = s_result;
	o->result_ctx = r;
	pthread_mutex_init(&r->mu, NULL);
	r->c4 = !strcmp(game, "connect4");
	r->tactics = 1;
}

/* Run until every env has played its episodes; the stats. */
static void s_run(const struct coll_opts *o, struct srec *r,
		  struct coll_stats *st)
{
	coll *c = NULL;
	char err[256];
	double t0 = lg_now_s();

	ck_assert_msg(coll_new(&c, o, err, sizeof err) == 0, "%s", err);
	for (;;) {
		int done = 1;
		pthread_mutex_lock(&r->mu);
		for (int i = 0; i < NENV; i++)
			done &= r->ended[i] == r->eps_per_env;
		pthread_mutex_unlock(&r->mu);
		if (done)
			break;
		int rc = coll_collect(c, 1u << 20, 0.05);
		ck_assert_msg(rc == 0 || rc == LG_ETIMEOUT, "rc %d", rc);
		ck_assert_msg(lg_now_s() - t0 < 60, "episodes never ended");
	}
	coll_stop(c);
	coll_stats(c, st);
	coll_free(c);
	ck_assert_msg(!r->bad, "%s", r->why);
}

static const enum coll_mode modes[] = { COLL_SERIAL, COLL_SYNC,
					COLL_ASYNC };

/* Against a uniform network on Connect Four, from both seats, in each
 * mode (_i): every win in one taken, every loss in one blocked that a
 * block saves (greedy moves: temperature_moves 0), and the situations do
 * arise (at least 20 wins and 5 blocks over 48 games); at least 40 of
 * the 48 games won (a uniform evaluator sees only a few moves ahead, so
 * a random opponent's double threat can still beat it: 0 to 2 losses in
 * the runs seen). _i 3: async again, through rounds of 8 leaves a
 * forward (search.batch: the collector's evaluator takes a round's
 * leaves at once). */
START_TEST(connect4_wins_and_blocks)
{
	struct srec *r = calloc(1, sizeof *r);
	struct coll_opts o;
	struct coll_stats st;
	enum coll_mode mode = _i < 3 ? modes[_i] : COLL_ASYNC;

	r->eps_per_env = 12;
	s_opts(&o, "connect4", mode, r);
	o.search.batch = _i < 3 ? 1 : 8;
	s_run(&o, r, &st);
	fprintf(stderr, "search connect4 (%s, batch %u): %llu rows, wins in "
		"one %llu/%llu taken, losses in one %llu/%llu blocked; the "
		"learner won %llu of %llu, lost %llu\n",
		coll_mode_name(mode), o.search.batch,
		(unsigned long long)r->rows,
		(unsigned long long)r->wins_taken,
		(unsigned long long)r->wins_seen,
		(unsigned long long)r->threats_blocked,
		(unsigned long long)r->threats_seen,
		(unsigned long long)r->learner_wins,
		(unsigned long long)r->episodes,
		(unsigned long long)r->learner_losses);
	ck_assert_uint_eq(r->episodes, NENV * 12);
	ck_assert_uint_ge(r->wins_seen, 20);
	ck_assert_uint_ge(r->threats_seen, 5);
	ck_assert_uint_ge(r->learner_wins, 40);
	/* one batched forward per opponent move at most, none per
	 * simulation: the searched rows never reach a batch */
	ck_assert_uint_eq(st.transitions, r->rows);
	ck_assert_uint_eq(st.rows + r->rows, st.steps);
	free(r);
}
END_TEST

/* The same on tic-tac-toe (its blocks): the uniform network wins at most
 * a few of the 100 games. */
START_TEST(tictactoe_wins_and_blocks)
{
	struct srec *r = calloc(1, sizeof *r);
	struct coll_opts o;
	struct coll_stats st;

	r->eps_per_env = 25;
	s_opts(&o, "tictactoe", COLL_ASYNC, r);
	s_run(&o, r, &st);
	ck_assert_uint_eq(r->episodes, NENV * 25);
	fprintf(stderr, "search tictactoe: losses in one %llu/%llu blocked; "
		"the learner won %llu of %llu, lost %llu\n",
		(unsigned long long)r->threats_blocked,
		(unsigned long long)r->threats_seen,
		(unsigned long long)r->learner_wins,
		(unsigned long long)r->episodes,
		(unsigned long long)r->learner_losses);
	ck_assert_uint_ge(r->threats_seen, 10);
	ck_assert_uint_le(r->learner_losses, 5);
	free(r);
}
END_TEST

/* Self-play with both seats searching: no batched forward at all (each
 * seat's moves are its worker's), every move a row of one of them. */
START_TEST(selfplay_never_batches)
{
	struct srec *r = calloc(1, sizeof *r);
	struct coll_opts o;
	struct coll_stats st;

	r->eps_per_env = 6;
	r->both_learn = 1;
	s_opts(&o, "connect4", modes[_i], r);
	s_run(&o, r, &st);
	ck_assert_uint_eq(st.forwards, 0);
	ck_assert_uint_eq(st.rows, 0);
	ck_assert_uint_eq(r->rows, st.steps);
	ck_assert_uint_eq(st.transitions, st.steps);
	free(r);
}
END_TEST

/* Within temperature_moves the move is a sample of the visits: with a
 * uniform prior and 16 simulations spread over 7 columns, many of the
 * first 10 moves are not the most visited; none after them. */
START_TEST(temperature_moves_sample)
{
	struct srec *r = calloc(1, sizeof *r);
	struct coll_opts o;
	struct coll_stats st;

	r->eps_per_env = 8;
	r->temperature_moves = 10;
	s_opts(&o, "connect4", COLL_ASYNC, r);
	r->tactics = 0; /* too few simulations to see them */
	o.search.sims = 16;
	o.search.temperature_moves = 10;
	o.search.noise_frac = 0;
	s_run(&o, r, &st);
	fprintf(stderr, "search: %llu of %llu sampled moves off the most "
		"visited\n", (unsigned long long)r->off_argmax,
		(unsigned long long)r->sampled_rows);
	ck_assert_uint_ge(r->sampled_rows, 200);
	ck_assert_uint_ge(r->off_argmax, r->sampled_rows / 5);
	free(r);
}
END_TEST

/* Playout cap randomization: a move is a full search with probability
 * full_frac (its shares counts of `sims` visits), else a fast one whose
 * row has no policy target. The share of full rows is full_frac within
 * 4.5 binomial standard deviations of the rows seen. */
START_TEST(playout_cap_randomization)
{
	struct srec *r = calloc(1, sizeof *r);
	struct coll_opts o;
	struct coll_stats st;
	double p = 0.25, n, sd;

	r->eps_per_env = 12;
	s_opts(&o, "connect4", COLL_ASYNC, r);
	r->tactics = 0;
	r->pcr_sims = 64;
	o.search.sims = 64;
	o.search.fast_sims = 8;
	o.search.full_frac = p;
	s_run(&o, r, &st);
	n = (double)r->rows;
	sd = sqrt(n * p * (1 - p));
	fprintf(stderr, "search: %llu of %llu rows full searches (expected "
		"%.0f +- %.1f)\n", (unsigned long long)r->full_rows,
		(unsigned long long)r->rows, n * p, sd);
	ck_assert_msg(!r->bad, "%s", r->why);
	ck_assert_uint_ge(r->rows, 200);
	ck_assert_double_le(fabs((double)r->full_rows - n * p), 4.5 * sd);
	free(r);
}
END_TEST

/* search.search_value: where the uniform evaluator says 0 for every
 * position, the rows carry the search's values instead, in [-1, 1], not
 * all 0, and high where a win in one is on the board (most of the 300
 * simulations take it and back up a win: at least 0.5 in every such
 * row). Without it the same position's row says 0 (check_shares). */
START_TEST(search_value_rows)
{
	struct srec *r = calloc(1, sizeof *r);
	struct coll_opts o;
	struct coll_stats st;

	r->eps_per_env = 6;
	s_opts(&o, "connect4", COLL_ASYNC, r);
	o.search.search_value = 1;
	r->search_value = 1;
	r->min_win_value = 2;
	s_run(&o, r, &st);
	fprintf(stderr, "search values: %llu rows, mean |value| %.3f, the "
		"least at a win in one %.3f (%llu such rows)\n",
		(unsigned long long)r->rows, r->value_sum / (double)r->rows,
		(double)r->min_win_value, (unsigned long long)r->wins_seen);
	ck_assert_uint_ge(r->wins_seen, 10);
	ck_assert_float_ge(r->min_win_value, 0.5f);
	ck_assert_double_gt(r->value_sum / (double)r->rows, 0.05);
	free(r);
}
END_TEST

static int no_eval_act(void *ctx, const float *obs, const uint8_t *mask,
		       size_t n, size_t obs_len, int na, lg_rng *rng,
		       int32_t *action, float *logp, float *value,
		       float *state)
{
	return LG_EINVAL;
}

/* What cannot search is refused by coll_new, saying why. */
START_TEST(refused)
{
	static const struct {
		const char *game;
		int procs, state, no_eval;
		uint32_t sims;
		double noise, alpha;
		int rc;
		const char *says;
	} cases[] = {
		{ "connect4", 1, 0, 0, 10, 0, 0, LG_EUNSUPP, "processes" },
		{ "connect4", 0, 4, 0, 10, 0, 0, LG_EUNSUPP, "recurrent" },
		{ "connect4", 0, 0, 1, 10, 0, 0, LG_EINVAL, "no eval" },
		{ "kuhn", 0, 0, 0, 10, 0, 0, LG_EUNSUPP, "chance" },
		{ "rps", 0, 0, 0, 10, 0, 0, LG_EUNSUPP, "simultaneous" },
		{ "connect4", 0, 0, 0, 200000, 0, 0, LG_EINVAL, "sims" },
		{ "connect4", 0, 0, 0, 10, 0.25, 0, LG_EINVAL,
		  "dirichlet_alpha" },
		{ "connect4", 0, 0, 0, 10, 2, 0.3, LG_EINVAL, "noise_frac" },
	};
	for (size_t k = 0; k < LG_ARRAY_LEN(cases); k++) {
		struct coll_policy p[2] = { coll_policy_uniform(),
					    coll_policy_uniform() };
		struct coll_opts o;
		coll *c = NULL;
		char err[256] = "";
		coll_opts_default(&o);
		o.game = cases[k].game;
		o.num_envs = 2;
		o.wait_num = 1;
		o.processes = cases[k].procs;
		o.state_len = (size_t)cases[k].state;
		if (cases[k].no_eval)
			p[1] = (struct coll_policy){ .act = no_eval_act };
		o.policies = p;
		o.num_policies = 2;
		o.search = (struct coll_search){
			.sims = cases[k].sims, .c_puct = 1.5,
			.dirichlet_alpha = cases[k].alpha,
			.noise_frac = cases[k].noise };
		ck_assert_int_eq(coll_new(&c, &o, err, sizeof err),
				 cases[k].rc);
		ck_assert_ptr_null(c);
		ck_assert_msg(strstr(err, cases[k].says), "case %zu: %s", k,
			      err);
	}
}
END_TEST

Suite *suite_search(void)
{
	Suite *s = suite_create("search");
	const struct tu_test operator_tests[] = {
		{ connect4_wins_and_blocks, 4 },
		{ tictactoe_wins_and_blocks, 1 },
		{ selfplay_never_batches, 3 },
		{ temperature_moves_sample, 1 },
		{ playout_cap_randomization, 1 },
		{ search_value_rows, 1 },
		{ refused, 1 },
	};

	TU_TCASE(s, "operator", 120, operator_tests);
	return s;
}
