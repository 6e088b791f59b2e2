/*
 * tests/check_othello.c: Othello (envs/othello.c), driven through its
 * game table: move-generation counts from the start (the published perft
 * numbers), flips on hand-built boards, passing and the end of the game,
 * the masks of random games against a plain cell-by-cell reference, the
 * text hooks, and the alpha-beta baseline (envs/baseline.c) against
 * random play and against itself at two depths.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envs/env_internal.h"
#include "tests/testutil.h"

#define G env_game_othello
#define CELL(r, c) ((r) * 8 + (c))
#define BIT(r, c) (1ull << CELL(r, c))

static void root(struct env_oth_st *s)
{
	G.root(NULL, s, NULL);
}

/* Leaves at depth d below s (a pass is a move; a game over before depth
 * d is no leaf). */
static uint64_t perft(const struct env_oth_st *s, int d)
{
	uint8_t mask[ENV_OTH_ACTIONS];
	uint64_t n = 0;

	if (G.player(NULL, s) == LEAGUE_GAME_TERMINAL)
		return 0;
	if (d == 0)
		return 1;
	G.legal(NULL, s, s->cur, mask);
	for (int a = 0; a < ENV_OTH_ACTIONS; a++) {
		struct env_oth_st c = *s;
		if (!mask[a])
			continue;
		G.apply(NULL, &c, a, NULL);
		n += perft(&c, d - 1);
	}
	return n;
}

START_TEST(perft_matches_the_published_counts)
{
	static const uint64_t want[] = { 1, 4, 12, 56, 244, 1396, 8200,
					 55092, 390216 };
	struct league_game_spec spec;
	struct env_oth_st s;
	void *inst = (void *)&spec; /* must be replaced by create */
	char err[128];

	ck_assert_int_eq(G.create(NULL, &inst, &spec, err, sizeof err), 0);
	ck_assert_ptr_null(inst);
	ck_assert_uint_eq(spec.players, 2);
	ck_assert_uint_eq(spec.payoff, LEAGUE_GAME_ZERO_SUM);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(spec.seat[i].num_actions, 65);
		ck_assert_uint_eq(spec.seat[i].obs_len, 192);
	}
	ck_assert_uint_eq(spec.state_size, sizeof s);
	root(&s);
	for (int d = 0; d < (int)LG_ARRAY_LEN(want); d++)
		ck_assert_msg(perft(&s, d) == want[d], "depth %d: %llu", d,
			      (unsigned long long)perft(&s, d));
}
END_TEST

START_TEST(start_position_and_first_moves)
{
	struct env_oth_st s;
	uint8_t m[ENV_OTH_ACTIONS];
	float obs[192];

	root(&s);
	ck_assert_int_eq(G.player(NULL, &s), 0);
	ck_assert_uint_eq(s.disc[0], BIT(3, 4) | BIT(4, 3)); /* e4 d5 */
	ck_assert_uint_eq(s.disc[1], BIT(3, 3) | BIT(4, 4)); /* d4 e5 */
	ck_assert_int_eq(G.legal(NULL, &s, 0, m), 4);
	ck_assert(m[CELL(2, 3)] && m[CELL(3, 2)] && m[CELL(4, 5)] &&
		  m[CELL(5, 4)] && !m[ENV_OTH_PASS]); /* d3 c4 f5 e6 */
	ck_assert_int_eq(G.legal(NULL, &s, 1, m), 0); /* not white's turn */
	/* d3 flips d4 */
	G.apply(NULL, &s, CELL(2, 3), NULL);
	ck_assert_uint_eq(s.disc[0], BIT(2, 3) | BIT(3, 3) | BIT(3, 4) |
					     BIT(4, 3));
	ck_assert_uint_eq(s.disc[1], BIT(4, 4));
	ck_assert_int_eq(G.player(NULL, &s), 1);
	/* white sees its e5 as its own, black's d3 as the opponent's */
	G.observe(NULL, &s, 1, obs);
	ck_assert(obs[CELL(4, 4)] == 1 && obs[64 + CELL(2, 3)] == 1 &&
		  obs[128 + CELL(0, 0)] == 1 && obs[CELL(2, 3)] == 0);
}
END_TEST

/* A board from rows of ".xo" (row 1 first), x (black) to move unless
 * cur says otherwise. */
static void board(struct env_oth_st *s, const char *const rows[8], int cur)
{
	memset(s, 0, sizeof *s);
	for (int r = 0; r < 8; r++)
		for (int c = 0; c < 8; c++)
			if (rows[r][c] != '.')
				s->disc[rows[r][c] == 'o'] |= BIT(r, c);
	s->cur = (int8_t)cur;
}

START_TEST(placements_flip_every_closed_line)
{
	/* x plays d4: east run e4 f4 closed by g4 flips; west c4 b4 runs
	 * to the empty a4 (no flip); south d5 d6 closed by d7 flips;
	 * north d3 runs to the empty d2 (no flip); diagonal e5 closed by
	 * f6 flips; diagonal c5 runs to the empty b6 (no flip); diagonal
	 * c3 closed by b2 flips. */
	static const char *const rows[8] = {
		"........", ".x......", "..oo....", ".oo.oox.",
		"..ooo...", "...o.x..", "...x....", "........",
	};
	struct env_oth_st s;
	uint64_t flips = BIT(3, 4) | BIT(3, 5) | BIT(4, 3) | BIT(5, 3) |
			 BIT(4, 4) | BIT(2, 2);
	uint64_t x0, o0;
	uint8_t m[ENV_OTH_ACTIONS];

	board(&s, rows, 0);
	x0 = s.disc[0];
	o0 = s.disc[1];
	ck_assert_uint_eq(env_oth_flips(x0, o0, CELL(3, 3)), flips);
	G.legal(NULL, &s, 0, m);
	ck_assert(m[CELL(3, 3)]);
	G.apply(NULL, &s, CELL(3, 3), NULL);
	ck_assert_uint_eq(s.disc[0], x0 | flips | BIT(3, 3));
	ck_assert_uint_eq(s.disc[1], o0 & ~flips);
	ck_assert_int_eq(s.cur, 1);
}
END_TEST

START_TEST(lines_do_not_wrap_around_the_edges)
{
	/* o on h1 and x on a2 are neighbours in bit order (7 and 8) only:
	 * x may not flank h1 by playing g1 against a2, nor o flank a2 by
	 * playing b2 against h1. Neither side has a placement. */
	static const char *const rows[8] = {
		".......o", "x.......", "........", "........",
		"........", "........", "........", ".......o",
	};
	struct env_oth_st s;

	board(&s, rows, 0);
	ck_assert_uint_eq(env_oth_moves(s.disc[0], s.disc[1]), 0);
	ck_assert_uint_eq(env_oth_flips(s.disc[0], s.disc[1], CELL(1, 7)),
			  0);
	ck_assert_uint_eq(env_oth_flips(s.disc[1], s.disc[0], CELL(1, 1)),
			  0);
	ck_assert_uint_eq(env_oth_moves(s.disc[1], s.disc[0]), 0);
}
END_TEST

START_TEST(pass_only_without_a_placement_and_the_end)
{
	/* o to move with only b1 against x's a1: no placement, so pass is
	 * o's one action; x then takes b1 with c1, o has no disc left and
	 * the game is over, x winning 3 to 0. */
	static const char *const rows[8] = {
		"xo......", "........", "........", "........",
		"........", "........", "........", "........",
	};
	struct env_oth_st s;
	uint8_t m[ENV_OTH_ACTIONS];
	double ret[2];
	char name[LEAGUE_GAME_NAME_MAX];

	board(&s, rows, 1);
	ck_assert_int_eq(G.player(NULL, &s), 1);
	ck_assert_int_eq(G.legal(NULL, &s, 1, m), 1);
	ck_assert(m[ENV_OTH_PASS]);
	G.action_name(NULL, &s, 1, ENV_OTH_PASS, name, sizeof name);
	ck_assert_str_eq(name, "pass");
	G.apply(NULL, &s, ENV_OTH_PASS, NULL);
	ck_assert_uint_eq(s.disc[0], BIT(0, 0)); /* a pass changes no disc */
	ck_assert_uint_eq(s.disc[1], BIT(0, 1));
	ck_assert_int_eq(G.player(NULL, &s), 0);
	ck_assert_int_eq(G.legal(NULL, &s, 0, m), 1);
	ck_assert(m[CELL(0, 2)] && !m[ENV_OTH_PASS]);
	G.apply(NULL, &s, CELL(0, 2), NULL);
	ck_assert_int_eq(G.player(NULL, &s), LEAGUE_GAME_TERMINAL);
	ck_assert_int_eq(G.legal(NULL, &s, 1, m), 0);
	G.returns(NULL, &s, ret);
	ck_assert(ret[0] == 1 && ret[1] == -1);
}
END_TEST

START_TEST(a_full_or_blocked_board_ends_by_disc_count)
{
	/* neither side can place: a1 o against a row of x it cannot
	 * flank; 7 x to 1 o (the empties do not matter) */
	static const char *const blocked[8] = {
		"oxxxxxxx", "........", "........", "........",
		"........", "........", "........", "........",
	};
	/* 32 o, 31 x, h8 empty: o's h8 flips h7 h6 h5 (closed by h4) and
	 * g7 f6 e5 (closed by d4) and fills the board, 39 to 25 */
	static const char *const last[8] = {
		"oooooooo", "oooooooo", "oooooooo", "oooooooo",
		"xxxxxxxx", "xxxxxxxx", "xxxxxxxx", "xxxxxxx.",
	};
	static const char *const even[8] = {
		"oooooooo", "oooooooo", "oooooooo", "oooooooo",
		"xxxxxxxx", "xxxxxxxx", "xxxxxxxx", "xxxxxxxx",
	};
	struct env_oth_st s;
	uint8_t m[ENV_OTH_ACTIONS];
	double ret[2];

	board(&s, blocked, 0);
	ck_assert_uint_eq(env_oth_moves(s.disc[0], s.disc[1]), 0);
	ck_assert_uint_eq(env_oth_moves(s.disc[1], s.disc[0]), 0);
	G.returns(NULL, &s, ret);
	ck_assert(ret[0] == 1 && ret[1] == -1);
	board(&s, last, 1);
	ck_assert_int_eq(G.legal(NULL, &s, 1, m), 1);
	ck_assert(m[CELL(7, 7)]);
	G.apply(NULL, &s, CELL(7, 7), NULL);
	ck_assert_int_eq(G.player(NULL, &s), LEAGUE_GAME_TERMINAL);
	ck_assert_int_eq(__builtin_popcountll(s.disc[1]), 39);
	ck_assert_int_eq(__builtin_popcountll(s.disc[0]), 25);
	G.returns(NULL, &s, ret);
	ck_assert(ret[0] == -1 && ret[1] == 1);
	board(&s, even, 0);
	G.returns(NULL, &s, ret);
	ck_assert(ret[0] == 0 && ret[1] == 0);
}
END_TEST

/* The placements of `own` at s by walking each direction cell by cell
 * (the bitboards' reference). */
static uint64_t slow_moves(uint64_t own, uint64_t opp)
{
	static const int dr[8] = { 0, 0, 1, -1, 1, 1, -1, -1 };
	static const int dc[8] = { 1, -1, 0, 0, 1, -1, 1, -1 };
	uint64_t m = 0;

	for (int r = 0; r < 8; r++)
		for (int c = 0; c < 8; c++) {
			if ((own | opp) & BIT(r, c))
				continue;
			for (int d = 0; d < 8; d++) {
				int rr = r + dr[d], cc = c + dc[d], run = 0;
				while (rr >= 0 && rr < 8 && cc >= 0 &&
				       cc < 8 && (opp & BIT(rr, cc))) {
					rr += dr[d];
					cc += dc[d];
					run++;
				}
				if (run && rr >= 0 && rr < 8 && cc >= 0 &&
				    cc < 8 && (own & BIT(rr, cc)))
					m |= BIT(r, c);
			}
		}
	return m;
}

START_TEST(random_games_agree_with_the_reference)
{
	lg_rng r;

	lg_rng_seed(&r, 11);
	for (int g = 0; g < 300; g++) {
		struct env_oth_st s;
		int steps = 0;
		root(&s);
		while (G.player(NULL, &s) != LEAGUE_GAME_TERMINAL) {
			uint8_t m[ENV_OTH_ACTIONS];
			uint64_t want = slow_moves(s.disc[s.cur],
						   s.disc[1 - s.cur]), got = 0;
			int n = G.legal(NULL, &s, s.cur, m), k, a = 0;
			int before = __builtin_popcountll(s.disc[0] |
							 s.disc[1]);
			for (int i = 0; i < 64; i++)
				got |= m[i] ? 1ull << i : 0;
			ck_assert_uint_eq(got, want);
			ck_assert_int_eq(m[ENV_OTH_PASS], want == 0);
			k = (int)lg_rng_below(&r, (uint64_t)n);
			for (; a < ENV_OTH_ACTIONS; a++)
				if (m[a] && k-- == 0)
					break;
			G.apply(NULL, &s, a, NULL);
			ck_assert_int_eq(__builtin_popcountll(s.disc[0] |
							     s.disc[1]),
					 before + (a != ENV_OTH_PASS));
			ck_assert_uint_eq(s.disc[0] & s.disc[1], 0);
			steps++;
		}
		ck_assert_int_le(steps, 120);
		/* over: neither side has a placement */
		ck_assert_uint_eq(slow_moves(s.disc[0], s.disc[1]) |
					  slow_moves(s.disc[1], s.disc[0]),
				  0);
	}
}
END_TEST

START_TEST(text_hooks_name_cells_and_draw_the_board)
{
	struct env_oth_st s;
	char t[LEAGUE_GAME_TEXT_MAX], name[LEAGUE_GAME_NAME_MAX];

	root(&s);
	G.action_name(NULL, &s, 0, CELL(2, 3), name, sizeof name);
	ck_assert_str_eq(name, "d3");
	G.action_name(NULL, &s, 0, CELL(7, 0), name, sizeof name);
	ck_assert_str_eq(name, "a8");
	G.describe(NULL, &s, 1, t, sizeof t);
	ck_assert_str_eq(t, "  a b c d e f g h\n"
			 "1 . . . . . . . .\n"
			 "2 . . . . . . . .\n"
			 "3 . . . + . . . .\n"
			 "4 . . + o x . . .\n"
			 "5 . . . x o + . .\n"
			 "6 . . . . + . . .\n"
			 "7 . . . . . . . .\n"
			 "8 . . . . . . . .\n"
			 "x (black) 2, o (white) 2; you are o\n"
			 "x to move\n");
}
END_TEST

/* ---- the alpha-beta baseline (envs/baseline.c), through the env API ---- */

static env_baseline *baseline(env *e, const char *spec)
{
	env_baseline *b = NULL;
	char err[256];

	ck_assert_msg(env_baseline_new(&b, spec, e, err, sizeof err) == 0,
		      "%s: %s", spec, err);
	return b;
}

/* Baseline `a` against `b` in 2 x n games of othello, n from each seat,
 * drawing from an rng seeded `seed`: a's wins (into *won) and its wins
 * minus losses (returned). */
static int match(const char *a, const char *b, int n, uint64_t seed,
		 int *won)
{
	env *e = tu_env_open("othello", NULL);
	env_baseline *pa = baseline(e, a), *pb = baseline(e, b);
	int balance = 0;
	lg_rng r;

	*won = 0;
	lg_rng_seed(&r, seed);
	for (int g = 0; g < n; g++) {
		double first = tu_baseline_duel(e, pa, pb, (uint64_t)g, &r);
		double second = -tu_baseline_duel(e, pb, pa, (uint64_t)g, &r);
		*won += (first > 0) + (second > 0);
		balance += (int)first + (int)second;
	}
	env_baseline_free(pa);
	env_baseline_free(pb);
	env_free(e);
	return balance;
}

START_TEST(alphabeta_beats_random)
{
	/* 40 games, 20 from each seat, fixed seeds. alphabeta:3 lost 1 of
	 * 400 games to random in `league play random alphabeta:3 --game
	 * othello --games 400 --seed 100` (398 won, 1 drawn): at a loss or
	 * draw rate of 1%, 3 or more in 40 games happen with probability
	 * 0.008, so at least 38 wins. */
	int won;

	match("alphabeta:3", "random", 20, 5, &won);
	ck_assert_msg(won >= 38, "alphabeta:3 won %d of 40", won);
}
END_TEST

START_TEST(deeper_alphabeta_does_not_lose_on_balance)
{
	/* depth 3 against depth 1, 10 games from each seat (the root's
	 * ties broken by the seeded rng make them differ): the deeper
	 * search's wins minus losses is positive (178 to 22 over 200 games
	 * of `league play alphabeta:3 alphabeta:1 --seed 100`) */
	int won, balance = match("alphabeta:3", "alphabeta:1", 10, 9, &won);

	ck_assert_msg(balance > 0, "depth 3 against depth 1: %d wins, "
		      "balance %d", won, balance);
}
END_TEST

START_TEST(alphabeta_values_and_specs)
{
	env *e = tu_env_open("othello", NULL);
	env_baseline *b1 = baseline(e, "alphabeta:1"), *b = NULL;
	char err[256], canon[ENV_BASELINE_CANON_MAX];
	double v;

	/* After any of black's four (symmetric) first moves, e.g. d3:
	 * white has 1 disc to 4 and 3 placements (c3 e3 c5) to black's 3
	 * (e6 f5 f6), no corners: -3 + 5 x 0 for white, so 3 for black. */
	env_reset(e, 1);
	ck_assert_int_eq(env_baseline_value(b1, e, &v), 0);
	ck_assert(v == 3);
	ck_assert_int_eq(env_baseline_check("alphabeta", "othello", canon,
					    sizeof canon, err, sizeof err), 0);
	ck_assert_str_eq(canon, "alphabeta:4");
	ck_assert_int_eq(env_baseline_check("alphabeta:08", "othello", canon,
					    sizeof canon, err, sizeof err), 0);
	ck_assert_str_eq(canon, "alphabeta:8");
	ck_assert_int_eq(env_baseline_new(&b, "alphabeta:9", e, err,
					  sizeof err), LG_EINVAL);
	ck_assert_str_eq(err, "baseline 'alphabeta:9': depth must be 1..8 "
			 "for othello");
	ck_assert_int_eq(env_baseline_new(&b, "alphabeta:0", e, err,
					  sizeof err), LG_EINVAL);
	ck_assert_int_eq(env_baseline_new(&b, "minimax", e, err, sizeof err),
			 LG_EINVAL);
	ck_assert_str_eq(err, "baseline 'minimax' plays tictactoe, not "
			 "othello");
	ck_assert_int_eq(env_baseline_check("alphabeta:2", "kuhn", canon,
					    sizeof canon, err, sizeof err),
			 LG_EINVAL);
	ck_assert_str_eq(err, "baseline 'alphabeta:2' plays connect4 and "
			 "othello, not kuhn");
	ck_assert_ptr_null(b);
	env_baseline_free(b1);
	env_free(e);
}
END_TEST

Suite *suite_othello(void)
{
	Suite *s = suite_create("othello");
	const struct tu_test rules[] = {
		{ perft_matches_the_published_counts, 1 },
		{ start_position_and_first_moves, 1 },
		{ placements_flip_every_closed_line, 1 },
		{ lines_do_not_wrap_around_the_edges, 1 },
		{ pass_only_without_a_placement_and_the_end, 1 },
		{ a_full_or_blocked_board_ends_by_disc_count, 1 },
		{ random_games_agree_with_the_reference, 1 },
		{ text_hooks_name_cells_and_draw_the_board, 1 },
	};

	const struct tu_test search[] = {
		{ alphabeta_beats_random, 1 },
		{ deeper_alphabeta_does_not_lose_on_balance, 1 },
		{ alphabeta_values_and_specs, 1 },
	};

	TU_TCASE(s, "rules", 60, rules);
	TU_TCASE(s, "alphabeta", 120, search);
	return s;
}
