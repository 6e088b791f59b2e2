/*
 * tests/check_games.c: the game ABI (envs/league_game.h): every built-in
 * game and the example plugin pass the conformance suite, a broken game
 * fails it, bad plugins and params are refused with a clear error, the
 * plugin's exact NashConv matches a value worked out by hand, configs
 * name plugins, and a league trains on the plugin game end to end; its
 * player exported plays with the plugin named by its user and no other.
 *
 * The plugins come from the Makefile (build/<variant>/examples, found
 * through LEAGUE_EXAMPLES), built with the suite's own sanitizers.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/collector.h"
#include "envs/env.h"
#include "conf/config.h"
#include "conf/options.h"
#include "eval/agent.h"
#include "learner/learner.h"
#include "tests/testutil.h"

static void plugin_path(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("LEAGUE_EXAMPLES");

	ck_assert_msg(dir && *dir, "LEAGUE_EXAMPLES is not set (run the "
		      "suites through make test)");
	snprintf(buf, len, "%s/%s.so", dir, name);
}

static void plugin_opts(struct env_opts *o, const char *name)
{
	env_opts_default(o);
	plugin_path(o->plugin, sizeof o->plugin, name);
}

static void add_param(struct env_opts *o, const char *k, const char *v)
{
	snprintf(o->params.key[o->params.n], ENV_PARAM_KEY_MAX, "%s", k);
	snprintf(o->params.val[o->params.n++], ENV_PARAM_VAL_MAX, "%s", v);
}

START_TEST(builtin_games_pass_the_conformance_suite)
{
	for (size_t i = 0; i < env_count(); i++) {
		struct env_spec s;
		struct env_opts o;
		lg_buf rep = { 0 };
		char err[256];
		int rc;

		ck_assert_int_eq(env_info(i, &s, NULL), 0);
		env_opts_default(&o);
		o.timing.reset_s = o.timing.step_s = 0;
		o.timing.episode_len = 20;
		o.matrix.rows = o.matrix.cols = 2;
		o.matrix.v[0][0] = o.matrix.v[1][1] = 1;
		o.matrix.v[0][1] = o.matrix.v[1][0] = -1;
		rc = env_conform(s.name, &o, 200, 7, &rep, err, sizeof err);
		ck_assert_msg(rc == 0, "%s: %d\n%.*s%s", s.name, rc,
			      (int)rep.len, (char *)rep.data, err);
		ck_assert_ptr_nonnull(strstr((char *)rep.data,
					     "ok    playouts"));
		lg_buf_free(&rep);
	}
}
END_TEST

START_TEST(goofspiel_plugin_conforms)
{
	struct env_opts o;
	struct env_spec s;
	lg_buf rep = { 0 };
	char err[512];
	int rc;

	plugin_opts(&o, "goofspiel");
	ck_assert_msg(env_check(NULL, &o, &s, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_str_eq(s.name, "goofspiel");
	ck_assert_int_eq(s.num_actions, 4);
	ck_assert_uint_eq(s.obs_len, 21);
	ck_assert_uint_eq(s.max_steps, 4);
	ck_assert_uint_eq(s.flags & (ENV_F_SIMULTANEOUS | ENV_F_CHANCE |
				     ENV_F_TREE | ENV_F_ZERO_SUM),
			  ENV_F_SIMULTANEOUS | ENV_F_CHANCE | ENV_F_TREE |
				  ENV_F_ZERO_SUM);
	rc = env_conform(NULL, &o, 500, 3, &rep, err, sizeof err);
	ck_assert_msg(rc == 0, "%d\n%.*s%s", rc, (int)rep.len,
		      (char *)rep.data, err);
	ck_assert_ptr_nonnull(strstr((char *)rep.data, "ok    infostate"));
	ck_assert_ptr_nonnull(strstr((char *)rep.data, "ok    clone"));
	lg_buf_free(&rep);
	/* Params reach the game: five cards. */
	add_param(&o, "cards", "5");
	ck_assert_int_eq(env_check(NULL, &o, &s, err, sizeof err), 0);
	ck_assert_int_eq(s.num_actions, 5);
	ck_assert_uint_eq(s.obs_len, 26);
}
END_TEST

/* A game ABI version 1 plugin (goofspiel built against the version 1
 * header, tests/plugins/v1/) loads unchanged: two seats alike, each its
 * own team, zero-sum, and the same episodes as its version 2 build. */
START_TEST(version_1_plugin_loads_unchanged)
{
	struct env_opts o1, o2;
	struct env_spec s;
	env *e1 = NULL, *e2 = NULL;
	lg_buf rep = { 0 };
	char err[512];
	int rc;

	plugin_opts(&o1, "goofspiel_v1");
	plugin_opts(&o2, "goofspiel");
	add_param(&o1, "cards", "4");
	add_param(&o2, "cards", "4");
	ck_assert_msg(env_check(NULL, &o1, &s, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_str_eq(s.name, "goofspiel");
	ck_assert_int_eq(s.players, 2);
	ck_assert_int_eq(s.payoff, ENV_ZERO_SUM);
	ck_assert_int_eq(s.teams, 2);
	ck_assert_int_eq(s.roles, 1);
	ck_assert_str_eq(s.role_name[0], "player");
	for (int p = 0; p < 2; p++) {
		ck_assert_int_eq(s.seat[p].num_actions, 4);
		ck_assert_uint_eq(s.seat[p].obs_len, 21);
		ck_assert_int_eq(s.seat[p].team, p);
	}
	ck_assert_uint_eq(s.flags & (ENV_F_ASYMMETRIC | ENV_F_TEXT), 0);
	rc = env_conform(NULL, &o1, 300, 5, &rep, err, sizeof err);
	ck_assert_msg(rc == 0, "%d\n%.*s%s", rc, (int)rep.len,
		      (char *)rep.data, err);
	lg_buf_free(&rep);
	ck_assert_int_eq(env_new(&e1, NULL, &o1, err, sizeof err), 0);
	ck_assert_int_eq(env_new(&e2, NULL, &o2, err, sizeof err), 0);
	for (uint64_t ep = 0; ep < 50; ep++) {
		lg_rng rng;
		lg_rng_seed(&rng, ep);
		env_reset(e1, ep);
		env_reset(e2, ep);
		while (!env_is_terminal(e1)) {
			uint8_t m1[8], m2[8];
			int a[2];
			float ob1[21], ob2[21];
			ck_assert(!env_is_terminal(e2));
			for (int p = 0; p < 2; p++) {
				int n = env_legal(e1, p, m1);
				ck_assert_int_eq(env_legal(e2, p, m2), n);
				ck_assert(!memcmp(m1, m2, 4));
				env_observe(e1, p, ob1);
				env_observe(e2, p, ob2);
				ck_assert(!memcmp(ob1, ob2, sizeof ob1));
				do
					a[p] = (int)lg_rng_below(&rng, 4);
				while (!m1[a[p]]);
			}
			ck_assert_int_eq(env_step_joint(e1, a), 0);
			ck_assert_int_eq(env_step_joint(e2, a), 0);
		}
		ck_assert(env_is_terminal(e2));
		double r1[2], r2[2];
		env_returns(e1, r1);
		env_returns(e2, r2);
		ck_assert(r1[0] == r2[0] && r1[1] == r2[1]);
	}
	env_free(e1);
	env_free(e2);
}
END_TEST

/* The worked example for N seats: goofspiel with a players param
 * conforms (zero-sum, text hooks), rotates seats in league play, and
 * refuses a wrong count of players by name. */
START_TEST(goofspiel_plays_three_seats)
{
	static char out[1 << 14], errb[1 << 14];
	char so[256], rep_s[64];
	const char *argv3[] = { "play", "random", "random", "random",
				"--plugin", so, "--param", "players=3",
				"--games", "30", "--json", NULL };
	const char *argv2[] = { "play", "random", "random", "--plugin", so,
				"--param", "players=3", NULL };
	struct env_opts o;
	struct env_spec s;
	lg_buf rep = { 0 };
	char err[512];
	unsigned long long w[3], draws, games;
	int rc;

	plugin_opts(&o, "goofspiel");
	add_param(&o, "players", "3");
	add_param(&o, "cards", "3");
	ck_assert_msg(env_check(NULL, &o, &s, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_int_eq(s.players, 3);
	ck_assert_int_eq(s.teams, 3);
	ck_assert_uint_eq(s.seat[2].obs_len, 6 * 3 + 1);
	ck_assert_uint_eq(s.flags & ENV_F_TEXT, ENV_F_TEXT);
	rc = env_conform(NULL, &o, 300, 9, &rep, err, sizeof err);
	ck_assert_msg(rc == 0, "%d\n%.*s%s", rc, (int)rep.len,
		      (char *)rep.data, err);
	ck_assert_ptr_nonnull(strstr((char *)rep.data, "ok    infostate"));
	ck_assert_ptr_nonnull(strstr((char *)rep.data, "ok    payoff"));
	ck_assert_ptr_nonnull(strstr((char *)rep.data, "ok    text"));
	ck_assert_ptr_nonnull(strstr((char *)rep.data, "ok    playouts"));
	lg_buf_free(&rep);
	plugin_path(so, sizeof so, "goofspiel");
	rc = tu_run_league(out, sizeof out, errb, sizeof errb, argv3);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, errb);
	ck_assert_int_eq(sscanf(out, "{\"games\": %llu, \"wins_a\": %llu, "
				"\"wins_b\": %llu, \"wins_c\": %llu, "
				"\"draws\": %llu", &games, &w[0], &w[1], &w[2],
				&draws), 5);
	ck_assert_uint_eq(games, 30);
	ck_assert_uint_eq(w[0] + w[1] + w[2] + draws, 30);
	snprintf(rep_s, sizeof rep_s, "\"c\": \"random\"");
	ck_assert_ptr_nonnull(strstr(out, rep_s));
	rc = tu_run_league(out, sizeof out, errb, sizeof errb, argv2);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(errb, "goofspiel has 3 seats: name a player "
			     "for each (2 given)"), "%s", errb);
}
END_TEST

/* league play reports each side's mean return with its 95% interval:
 * in zero-sum Kuhn the two means are opposite, the half-widths equal
 * 1.96 sd / sqrt(n) with n the games (so about halve from 1,000 to
 * 4,000 games), and random against random (seats rotating, so the true
 * mean is 0) lies inside at this fixed seed. */
static void kuhn_mean(unsigned games, double *m, double *h)
{
	char out[4096], err[4096], ng[16];
	const char *argv[] = { "play", "random", "random", "--game", "kuhn",
			       "--games", ng, "--json", NULL };
	double mb, hb;
	const char *p;

	snprintf(ng, sizeof ng, "%u", games);
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, argv),
			 0);
	ck_assert_ptr_nonnull(p = strstr(out, "\"mean_return_a\""));
	ck_assert_int_eq(sscanf(p, "\"mean_return_a\": %lf, "
				"\"mean_return_ci95_a\": %lf, "
				"\"mean_return_b\": %lf, "
				"\"mean_return_ci95_b\": %lf", m, h, &mb, &hb),
			 4);
	ck_assert_double_eq_tol(*m, -mb, 1e-9);
	ck_assert_double_eq_tol(*h, hb, 1e-9);
	ck_assert(fabs(*m) <= *h);
}

START_TEST(play_reports_mean_return)
{
	double m1, h1, m4, h4;

	kuhn_mean(1000, &m1, &h1);
	kuhn_mean(4000, &m4, &h4);
	ck_assert_double_gt(h1, 0);
	ck_assert_double_eq_tol(h4 / h1, 0.5, 0.05);
}
END_TEST

/* With more than two sides the text line shows each side's own interval:
 * the same games (seeded alike) printed as text and as JSON agree side by
 * side, to the text's two significant digits. 3-player Kuhn: its three
 * sides' returns differ, so their intervals do. */
START_TEST(play_text_intervals_are_each_sides)
{
	char out[4096], js[4096], err[4096], want[64];
	const char *argv[] = { "play", "random", "random", "random", "--game",
			       "kuhn", "--param", "players=3", "--games", "600",
			       NULL, NULL };
	double h[3];
	const char *p;

	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, argv),
			 0);
	argv[10] = "--json";
	ck_assert_int_eq(tu_run_league(js, sizeof js, err, sizeof err, argv),
			 0);
	for (int i = 0; i < 3; i++) {
		char key[32];
		snprintf(key, sizeof key, "\"mean_return_ci95_%c\": ", 'a' + i);
		ck_assert_ptr_nonnull(p = strstr(js, key));
		ck_assert_int_eq(sscanf(p + strlen(key), "%lf", &h[i]), 1);
		ck_assert_double_gt(h[i], 0);
		snprintf(want, sizeof want, "%c random wins", 'A' + i);
		ck_assert_msg((p = strstr(out, want)), "%s", out);
		ck_assert_ptr_nonnull(p = strstr(p, "+- "));
		snprintf(want, sizeof want, "+- %.2g)", h[i]);
		ck_assert_msg(!strncmp(p, want, strlen(want)),
			      "side %c: want '%s' in %s", 'A' + i, want, out);
	}
	ck_assert_msg(h[0] != h[1] || h[1] != h[2], "%s", js);
}
END_TEST

/* A plugin that opens but breaks a rule must fail the suite. */
/* The built-in tic-tac-toe built as a plugin (for bench env --plugin)
 * loads, and plays the same episodes as the compiled-in game. */
START_TEST(tictactoe_plugin_is_the_builtin)
{
	struct env_opts o;
	env *p = NULL, *b = NULL;
	char err[512];
	float op[27], ob[27];
	uint8_t mp[9], mb[9];
	lg_rng r;

	plugin_opts(&o, "tictactoe");
	p = tu_env_open(NULL, &o);
	ck_assert_int_eq(env_new(&b, "tictactoe", NULL, err, sizeof err), 0);
	lg_rng_seed(&r, 2);
	for (int ep = 0; ep < 50; ep++) {
		env_reset(p, (uint64_t)ep);
		env_reset(b, (uint64_t)ep);
		while (env_current_player(b) != ENV_TERMINAL) {
			int pl = env_current_player(b), n, a = 0, k;
			ck_assert_int_eq(env_current_player(p), pl);
			env_observe(p, pl, op);
			env_observe(b, pl, ob);
			ck_assert(!memcmp(op, ob, sizeof op));
			n = env_legal(b, pl, mb);
			ck_assert_int_eq(env_legal(p, pl, mp), n);
			ck_assert(!memcmp(mp, mb, sizeof mp));
			k = (int)lg_rng_below(&r, (uint64_t)n);
			for (; a < 9; a++)
				if (mb[a] && k-- == 0)
					break;
			ck_assert_int_eq(env_step(p, a), 0);
			ck_assert_int_eq(env_step(b, a), 0);
		}
		ck_assert_int_eq(env_current_player(p), ENV_TERMINAL);
	}
	env_free(p);
	env_free(b);
}
END_TEST

/* The board games expose their observation as planes (own, opponent,
 * empty) x rows x columns, and the planes are that: after player 0's
 * move, the mover's stone shows in player 0's own plane at the move's
 * cell, and player 1's opponent plane. */
START_TEST(board_games_expose_planes)
{
	static const struct {
		const char *name;
		uint32_t h, w;
		int action, row, col; /* where the first move lands */
	} g[] = { { "tictactoe", 3, 3, 4, 1, 1 },
		  { "connect4", 6, 7, 3, 0, 3 } };

	for (size_t i = 0; i < LG_ARRAY_LEN(g); i++) {
		env *e = NULL;
		char err[256];
		float o[3 * 6 * 7];
		ck_assert_int_eq(env_new(&e, g[i].name, NULL, err, sizeof err),
				 0);
		const struct env_spec *s = env_spec_of(e);
		ck_assert_uint_eq(s->obs_rank, 3);
		ck_assert_uint_eq(s->obs_shape[0], 3);
		ck_assert_uint_eq(s->obs_shape[1], g[i].h);
		ck_assert_uint_eq(s->obs_shape[2], g[i].w);
		ck_assert_int_eq(env_step(e, g[i].action), 0);
		size_t cell = (size_t)g[i].row * g[i].w + (size_t)g[i].col;
		size_t plane = (size_t)g[i].h * g[i].w;
		env_observe(e, 0, o);
		ck_assert(o[cell] == 1 && o[plane + cell] == 0 &&
			  o[2 * plane + cell] == 0);
		env_observe(e, 1, o);
		ck_assert(o[cell] == 0 && o[plane + cell] == 1);
		env_free(e);
	}
}
END_TEST

START_TEST(conformance_suite_catches_a_broken_game)
{
	struct env_opts o;
	lg_buf rep = { 0 };
	char err[512];
	int rc;

	plugin_opts(&o, "bad_returns");
	rc = env_conform(NULL, &o, 50, 1, &rep, err, sizeof err);
	ck_assert_msg(rc == 1, "%d\n%.*s%s", rc, (int)rep.len,
		      (char *)rep.data, err);
	ck_assert_ptr_nonnull(strstr((char *)rep.data, "FAIL  payoff"));
	lg_buf_free(&rep);
	plugin_opts(&o, "bad_mask");
	rc = env_conform(NULL, &o, 50, 1, &rep, err, sizeof err);
	ck_assert_msg(rc >= 1, "%d\n%.*s", rc, (int)rep.len,
		      (char *)rep.data);
	ck_assert_ptr_nonnull(strstr((char *)rep.data, "FAIL  playouts"));
	ck_assert_ptr_nonnull(strstr((char *)rep.data, "gave an empty mask"));
	lg_buf_free(&rep);
}
END_TEST

static void expect_refused(struct env_opts *o, const char *name, int code,
			   const char *needle)
{
	struct env_spec s;
	char err[512] = "";
	env *e = NULL;
	int rc = env_check(name, o, &s, err, sizeof err);

	ck_assert_msg(rc == code, "%s: rc %d, expected %d (%s)", needle, rc,
		      code, err);
	ck_assert_msg(strstr(err, needle), "'%s' not in '%s'", needle, err);
	ck_assert_int_eq(env_new(&e, name, o, err, sizeof err), code);
	ck_assert_ptr_null(e);
}

START_TEST(bad_plugins_and_params_are_refused)
{
	struct env_opts o;

	plugin_opts(&o, "no_such_plugin");
	expect_refused(&o, NULL, LG_ENOTFOUND, "no_such_plugin.so");
	plugin_opts(&o, "no_entry");
	expect_refused(&o, NULL, LG_ENOTFOUND, "exports no league_game()");
	plugin_opts(&o, "bad_abi");
	expect_refused(&o, NULL, LG_EINVAL, "game ABI version 99");
	plugin_opts(&o, "bad_sizes");
	expect_refused(&o, NULL, LG_EINVAL, "inconsistent sizes");
	plugin_opts(&o, "bad_team");
	expect_refused(&o, NULL, LG_EINVAL, "puts seat 1 in team 7");
	plugin_opts(&o, "goofspiel");
	expect_refused(&o, "kuhn", LG_EINVAL, "is the game 'goofspiel'");
	add_param(&o, "cards", "99");
	expect_refused(&o, NULL, LG_EINVAL, "cards: expected a whole number");
	plugin_opts(&o, "goofspiel");
	add_param(&o, "colour", "red");
	expect_refused(&o, NULL, LG_EINVAL, "unknown param 'colour'");
	env_opts_default(&o);
	add_param(&o, "cards", "3");
	expect_refused(&o, "tictactoe", LG_EINVAL, "takes no params");
	expect_refused(&o, "kuhn", LG_EINVAL,
		       "env.params: 'cards': kuhn takes only 'players'");
	env_opts_default(&o);
	add_param(&o, "players", "9");
	expect_refused(&o, "leduc", LG_EINVAL, "env.params: players: "
		       "expected a whole number in [2, 8], got '9'");
	env_opts_default(&o);
	add_param(&o, "players", "3");
	expect_refused(&o, "leduc_short", LG_EINVAL,
		       "env.params: 'players': leduc_short takes no params");
	env_opts_default(&o);
	expect_refused(&o, "mygame", LG_ENOTFOUND, "no game named 'mygame'");
}
END_TEST

/*
 * Goofspiel with 2 cards, worked out by hand: the turn-1 bids decide all
 * (turn 2 plays the cards left). Equal bids draw. Against a uniform
 * opponent, a player who knows the prize P1 of turn 1 bids 2 when P1 = 2
 * (wins with probability 1/2, else draws) and 1 when P1 = 1 (then the
 * opponent's 2 takes prize 1 and loses prize 2: again 1/2 win, 1/2 draw):
 * best response value 1/2 for each seat, profile value 0, so NashConv of
 * the uniform policy is exactly 1.
 */
START_TEST(goofspiel_exact_nashconv_matches_the_hand_value)
{
	struct env_opts o;
	struct env_nashconv nc;
	struct env_policy u = env_policy_uniform(), avg;
	env_tree *t = NULL;
	env_cfr *cfr = NULL;
	env *e = NULL;
	char err[256];

	plugin_opts(&o, "goofspiel");
	add_param(&o, "cards", "2");
	ck_assert_int_eq(env_new(&e, NULL, &o, err, sizeof err), 0);
	ck_assert_msg(env_tree_new(&t, e, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(env_tree_nashconv(t, &u, &nc, err, sizeof err), 0);
	ck_assert_msg(fabs(nc.nashconv - 1.0) < 1e-12, "%.15g", nc.nashconv);
	ck_assert(fabs(nc.value[0]) < 1e-12);
	env_tree_free(t);
	env_free(e);
	/* CFR+ on the plugin's tree drives it to an equilibrium (the
	 * symmetric game's value is 0). */
	plugin_opts(&o, "goofspiel");
	add_param(&o, "cards", "2");
	ck_assert_int_eq(env_new(&e, NULL, &o, err, sizeof err), 0);
	ck_assert_int_eq(env_tree_new(&t, e, err, sizeof err), 0);
	ck_assert_int_eq(env_cfr_new(&cfr, t), 0);
	env_cfr_run(cfr, 300);
	avg = env_cfr_average(cfr);
	ck_assert_int_eq(env_tree_nashconv(t, &avg, &nc, err, sizeof err), 0);
	ck_assert_msg(nc.nashconv < 1e-3, "%g", nc.nashconv);
	ck_assert_msg(fabs(nc.value[0]) < 1e-9, "%g", nc.value[0]);
	env_cfr_free(cfr);
	env_tree_free(t);
	env_free(e);
}
END_TEST

/* The exact NashConv of net's policy on the goofspiel plugin of `cards`
 * cards, computed here on the plugin's tree. */
static double net_nashconv(const nn *net, const char *cards)
{
	struct nn_policy_ctx ctx = { net, NULL };
	struct env_nashconv nc;
	struct env_policy pol;
	struct env_opts o;
	env_tree *t = NULL;
	env *e = NULL;
	char err[256];

	plugin_opts(&o, "goofspiel");
	add_param(&o, "cards", cards);
	ck_assert_msg(env_new(&e, NULL, &o, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(env_tree_new(&t, e, err, sizeof err), 0);
	ck_assert_int_eq(nn_ws_new(&ctx.ws, net, 1), 0);
	pol = nn_env_policy(&ctx);
	ck_assert_int_eq(env_tree_nashconv(t, &pol, &nc, err, sizeof err), 0);
	nn_ws_free(ctx.ws);
	env_tree_free(t);
	env_free(e);
	return nc.nashconv;
}

/* An agent file (format 2) of the goofspiel plugin with 3 cards, whose
 * network is a fresh one of its config's model: `league eval nashconv
 * --policy FILE` and `league eval br FILE` open the game it recorded
 * only with the --plugin its user names, of the recorded SHA-256, and
 * then evaluate the network on that game (3 cards: the exact NashConv
 * computed here on the plugin's tree, not the uniform policy's); with no
 * plugin, another plugin, or options of their own they refuse, naming
 * what to pass. */
START_TEST(plugin_agent_file_is_evaluated)
{
	static char out[1 << 16], errb[1 << 16];
	static struct cfg c;
	char dir[128], so[256], other[256], file[300], hex[65], yaml[512];
	char err[512], want[64];
	struct env_opts eo;
	struct nn_shape s;
	lg_buf blob = { 0 }, f = { 0 };
	double nc3;
	env *e = NULL;
	nn *net = NULL;

	tu_mkdtemp(dir, sizeof dir);
	plugin_path(so, sizeof so, "goofspiel");
	plugin_path(other, sizeof other, "tictactoe");
	snprintf(yaml, sizeof yaml, "env: {plugin: %s, params: {cards: 3}}\n"
		 "model: {hidden: [8]}\n", so);
	ck_assert_msg(cfg_load_string(&c, yaml, strlen(yaml), "agent.yaml", err,
				      sizeof err) == 0, "%s", err);
	league_env_opts(&c, &eo);
	ck_assert_msg(env_new(&e, c.env.name, &eo, err, sizeof err) == 0, "%s",
		      err);
	league_nn_shape(&c, env_spec_of(e), &s);
	env_free(e);
	ck_assert_int_eq(nn_new(&net, &s, 38), 0);
	ck_assert_int_eq(nn_save(net, &blob), 0);
	ck_assert_msg(league_agent_encode(&c, "league=t\nplayer=2\nversion="
					  "5\n", blob.data, blob.len, &f, err,
					  sizeof err) == 0, "%s", err);
	snprintf(file, sizeof file, "%s/goof3.agent", dir);
	{
		FILE *fp = fopen(file, "wb");
		ck_assert_ptr_nonnull(fp);
		ck_assert_uint_eq(fwrite(f.data, 1, f.len, fp), f.len);
		ck_assert_int_eq(fclose(fp), 0);
	}
	nc3 = net_nashconv(net, "3");
	ck_assert_msg(nc3 > 0.01, "%g", nc3); /* a fresh net is exploitable */
	ck_assert_int_eq(league_agent_sha256(so, hex, err, sizeof err), 0);

	/* no plugin named: refused, naming the plugin and its SHA-256 */
	const char *n0[] = { "eval", "nashconv", "--policy", file, NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, errb, sizeof errb, n0),
			 2);
	ck_assert_msg(strstr(errb, "loads no code by itself") &&
			      strstr(errb, hex) && strstr(errb, "--plugin"),
		      "%s", errb);
	/* the plugin: the network's exact NashConv on the recorded game */
	const char *n1[] = { "eval", "nashconv", "--policy", file, "--plugin",
			     so, "--json", NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, errb, sizeof errb, n1) ==
			      0, "%s", errb);
	printf("games: eval nashconv of a plugin agent: %s", out);
	snprintf(want, sizeof want, "\"nashconv\":%.17g,", nc3);
	ck_assert_msg(strstr(out, "{\"game\":\"goofspiel\",\"players\":2,") &&
			      strstr(out, want),
		      "%s (want %s)", out, want);
	/* not the uniform policy's (--plugin names the game without an
	 * agent, too) */
	const char *u[] = { "eval", "nashconv", "--plugin", so, "--param",
			    "cards=3", "--json", NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, errb, sizeof errb, u) ==
			      0, "%s", errb);
	ck_assert_msg(strstr(out, "\"policy\":\"uniform\"") &&
			      !strstr(out, want), "%s", out);
	/* another plugin's bytes: refused, both hashes named */
	const char *n2[] = { "eval", "nashconv", "--policy", file, "--plugin",
			     other, NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, errb, sizeof errb, n2),
			 2);
	ck_assert_msg(strstr(errb, hex) && strstr(errb, other), "%s", errb);
	/* the file fixes the game and its options */
	const char *n3[] = { "eval", "nashconv", "--policy", file, "--plugin",
			     so, "--param", "cards=4", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, errb, sizeof errb, n3),
			 2);
	ck_assert_msg(strstr(errb, "is an agent file: its game and options "
			     "are the ones it recorded"), "%s", errb);
	/* a trained best response against it, the exact value beside */
	const char *b0[] = { "eval", "br", file, NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, errb, sizeof errb, b0),
			 2);
	ck_assert_msg(strstr(errb, "loads no code by itself"), "%s", errb);
	const char *b1[] = { "eval", "br", file, "--plugin", so, "--budget",
			     "0.3", "--points", "1", "--episodes", "8",
			     "--final-episodes", "8", "--envs", "4", NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, errb, sizeof errb, b1) ==
			      0, "%s", errb);
	printf("games: eval br of a plugin agent:\n%s", out);
	ck_assert_msg(strstr(out, "player 2 (parameters 2, version 5)") &&
			      strstr(out, "goofspiel"), "%s", out);
	snprintf(want, sizeof want, "%.4f", nc3);
	ck_assert_msg(strstr(out, want), "%s (want the exact %s)", out, want);
	const char *b2[] = { "eval", "br", file, "--plugin", so, "--player",
			     "0", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, errb, sizeof errb, b2),
			 2);
	ck_assert_msg(strstr(errb, "is an agent file: it is the opponent"),
		      "%s", errb);
	nn_free(net);
	lg_buf_free(&blob);
	lg_buf_free(&f);
	tu_rmrf(dir);
}
END_TEST

/* A config names the plugin by a path relative to its own directory; the
 * loaded config holds it absolute, and env.name becomes the game's. */
START_TEST(config_names_a_plugin)
{
	char dir[128], path[256], text[1024], so[256], err[512];
	struct cfg c;

	tu_mkdtemp(dir, sizeof dir);
	plugin_path(so, sizeof so, "goofspiel");
	snprintf(path, sizeof path, "%s/g.yaml", dir);
	snprintf(text, sizeof text, "env:\n  plugin: %s\n  params: {cards: "
		 "3, returns: points}\n", so);
	tu_write_file(path, text);
	ck_assert_msg(cfg_load_file(&c, path, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(c.env.name, "goofspiel");
	ck_assert_str_eq(c.env.plugin, so);
	ck_assert_uint_eq(c.env.params.n, 2);
	ck_assert_str_eq(c.env.params.key[1], "returns");
	ck_assert_str_eq(c.env.params.val[0], "3");
	/* Relative to the config's directory. */
	char cmd[600];
	snprintf(cmd, sizeof cmd, "cp %s %s/game.so", so, dir);
	ck_assert_int_eq(system(cmd), 0);
	tu_write_file(path, "env: {plugin: game.so, params: {cards: 3}}\n");
	ck_assert_msg(cfg_load_file(&c, path, err, sizeof err) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(c.env.plugin, "/game.so"));
	ck_assert_int_eq(c.env.plugin[0], '/');
	/* The emitted YAML loads back to the same params. */
	lg_buf y = { 0 };
	struct cfg c2;
	ck_assert_int_eq(cfg_emit_yaml(&c, &y), 0);
	ck_assert_int_eq(cfg_load_string(&c2, (char *)y.data, y.len, "emit",
					 err, sizeof err), 0);
	ck_assert_int_eq(memcmp(&c.env.params, &c2.env.params,
				sizeof c.env.params), 0);
	lg_buf_free(&y);
}
END_TEST

/* `league config check` exits 2 with file:line:col on every bad game. */
START_TEST(config_check_refuses_bad_games)
{
	static char out[1 << 14], errb[1 << 14];
	char dir[128], path[256], text[1024], so[256];
	const char *argv[] = { "config", "check", path, NULL };
	struct {
		const char *pre, *plugin, *post; /* pre PLUGIN-PATH post */
		const char *needle;
	} cases[] = {
		{ "env:\n  name: mygame\n", NULL, "",
		  "g.yaml:2:3: env.name: no game named 'mygame'" },
		{ "env:\n  plugin: nowhere/x.so\n", NULL, "",
		  "g.yaml:2:3: env.plugin: cannot find" },
		{ "env:\n  plugin: ", "bad_abi", "\n",
		  "game ABI version 99" },
		{ "env:\n  plugin: ", "bad_sizes", "\n", "inconsistent sizes" },
		{ "env:\n  plugin: ", "goofspiel", "\n  params: {cards: 1}\n",
		  "g.yaml:3:3: env.params: game 'goofspiel' refused its "
		  "params: cards" },
		{ "env:\n  name: rps\n  plugin: ", "goofspiel", "\n",
		  "env.name: 'rps', but the plugin" },
		{ "env:\n  name: tictactoe\n  params: {a: 1}\n", NULL, "",
		  "env.params: 'a': this built-in game takes no params" },
		{ "env:\n  name: kuhn\n  params: {a: 1}\n", NULL, "",
		  "env.params: 'a': kuhn takes only 'players'" },
		{ "env:\n  plugin: ", "goofspiel", "\n  params: [1, 2]\n",
		  "g.yaml:3:11: env.params: expected a mapping" },
		/* Version 2's rules, each with its call, seat and step. */
		{ "env:\n  plugin: ", "bad_team", "\n",
		  "puts seat 1 in team 7, out of range 0..1" },
		{ "env:\n  plugin: ", "bad_returns", "\n",
		  "g.yaml:2:3: env.plugin: game 'coin' fails league env "
		  "check: returns() sum to " },
		{ "env:\n  plugin: ", "bad_mask", "\n",
		  "fails league env check: legal(seat 0) gave an empty mask "
		  "to the seat to move at step 0" },
	};

	tu_mkdtemp(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/g.yaml", dir);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		so[0] = 0;
		if (cases[i].plugin)
			plugin_path(so, sizeof so, cases[i].plugin);
		snprintf(text, sizeof text, "%s%s%s", cases[i].pre, so,
			 cases[i].post);
		tu_write_file(path, text);
		int rc = tu_run_league(out, sizeof out, errb, sizeof errb, argv);
		ck_assert_msg(rc == 2, "case %zu: rc %d\n%s", i, rc, errb);
		ck_assert_msg(strstr(errb, cases[i].needle), "case %zu: '%s' "
			      "not in:\n%s", i, cases[i].needle, errb);
		/* `league run` refuses it the same way, before starting. */
		const char *rargv[] = { "run", path, "--dir", dir, "--quiet",
					NULL };
		rc = tu_run_league(out, sizeof out, errb, sizeof errb, rargv);
		ck_assert_msg(rc == 2, "run case %zu: rc %d\n%s", i, rc, errb);
		ck_assert_msg(strstr(errb, cases[i].needle), "run case %zu: "
			      "'%s' not in:\n%s", i, cases[i].needle, errb);
	}
}
END_TEST

/* A copy of file from into to. */
static void copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;

	ck_assert(in && out);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
	ck_assert(!ferror(in) && !fclose(out));
	fclose(in);
}

/* `league export` of the plugin league in ldir (goofspiel, cards 4):
 * the file records the plugin by path and SHA-256, loads no code by
 * itself (refused without --plugin, naming the plugin and hash), plays
 * with a copy of the plugin anywhere (the bytes, not the path), and is
 * refused with another plugin (both hashes named) or a game server. */
static void export_plugin_agent(const char *dir, const char *ldir,
				const char *so)
{
	static char out[1 << 16], errb[1 << 16];
	char file[300], copy[300], other[256], hex[65], ohex[65], err[1024];
	unsigned long long games, wa, wb, dr;
	struct league_agent a;

	snprintf(file, sizeof file, "%s/goof.agent", dir);
	snprintf(copy, sizeof copy, "%s/moved.so", dir);
	plugin_path(other, sizeof other, "tictactoe");
	ck_assert_int_eq(league_agent_sha256(so, hex, err, sizeof err), 0);
	ck_assert_int_eq(league_agent_sha256(other, ohex, err, sizeof err), 0);
	ck_assert_str_ne(hex, ohex);
	const char *ex[] = { "export", ldir, "--player", "0", "-o", file,
			     NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, errb, sizeof errb, ex) ==
			      0, "%s", errb);
	ck_assert_msg(strstr(out, "game goofspiel"), "%s", out);
	/* the config in the file names no plugin: the game record does */
	{
		static char body[1 << 20], rec[512];
		FILE *f = fopen(file, "rb");
		ck_assert_ptr_nonnull(f);
		size_t n = fread(body, 1, sizeof body, f);
		fclose(f);
		ck_assert_ptr_nonnull(memmem(body, n, "  plugin: \"\"\n", 13));
		snprintf(rec, sizeof rec, "kind=plugin\nname=goofspiel\n"
			 "path=%s\nsha256=%s\n", so, hex);
		ck_assert_ptr_nonnull(memmem(body, n, rec, strlen(rec)));
	}
	/* no plugin named: refused before anything is loaded */
	ck_assert_int_eq(league_agent_load(&a, file, NULL, err, sizeof err),
			 LG_EUNSUPP);
	ck_assert_ptr_null(a.net);
	league_agent_free(&a);
	const char *p0[] = { "play", file, "random", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, errb, sizeof errb, p0),
			 2);
	ck_assert_msg(strstr(errb, "plays the plugin game 'goofspiel' and "
			     "loads no code by itself") &&
			      strstr(errb, hex) && strstr(errb, so) &&
			      strstr(errb, "--plugin PATH"),
		      "%s", errb);
	/* the plugin moved: its bytes are what count */
	copy_file(so, copy);
	const struct league_agent_with w = { copy, NULL };
	ck_assert_msg(league_agent_load(&a, file, &w, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(a.format, LEAGUE_AGENT_VERSION);
	ck_assert_int_eq(a.game.kind, LEAGUE_AGENT_PLUGIN);
	ck_assert_str_eq(a.game.name, "goofspiel");
	ck_assert_str_eq(a.game.path, so);
	ck_assert_str_eq(a.game.sha256, hex);
	/* the league's params came along in the config */
	ck_assert_uint_eq(a.cfg.env.params.n, 1);
	ck_assert_str_eq(a.cfg.env.params.key[0], "cards");
	ck_assert_str_eq(a.cfg.env.params.val[0], "4");
	ck_assert_int_eq(a.spec.num_actions, 4);
	league_agent_free(&a);
	const char *p1[] = { "play", file, "random", "--plugin", copy,
			     "--games", "6", "--json", NULL };
	ck_assert_msg(tu_run_league(out, sizeof out, errb, sizeof errb, p1) ==
			      0, "%s", errb);
	ck_assert_int_eq(sscanf(out, "{\"games\": %llu, \"wins_a\": %llu, "
				"\"wins_b\": %llu, \"draws\": %llu", &games,
				&wa, &wb, &dr), 4);
	ck_assert_uint_eq(games, 6);
	ck_assert_uint_eq(wa + wb + dr, 6);
	ck_assert_msg(strstr(out, "\"game\": \"goofspiel\""), "%s", out);
	/* another plugin: both hashes and the recorded path named */
	const char *p2[] = { "play", file, "random", "--plugin", other, NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, errb, sizeof errb, p2),
			 2);
	ck_assert_msg(strstr(errb, ohex) && strstr(errb, hex) &&
			      strstr(errb, so) && strstr(errb, other),
		      "%s", errb);
	/* a game server is not what it plays */
	const char *p3[] = { "play", file, "random", "--remote",
			     "unix:/nonexistent.sock", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, errb, sizeof errb, p3),
			 2);
	ck_assert_msg(strstr(errb, "no game server: name the plugin"), "%s",
		      errb);
}

/* A league trains on the plugin game for a few seconds and prints a
 * payoff matrix with games in it; its main player exported plays
 * (export_plugin_agent). */
START_TEST(league_trains_on_the_plugin_game)
{
	static char out[1 << 16], errb[1 << 16];
	char dir[128], ldir[192], so[256], text[1024];

	tu_mkdtemp(dir, sizeof dir);
	plugin_path(so, sizeof so, "goofspiel");
	snprintf(text, sizeof text,
		 "league: {name: goofspiel-e2e, seed: 3}\n"
		 "env: {plugin: %s, params: {cards: 4}}\n"
		 "model: {hidden: [16]}\n"
		 "learner: {batch: 256, minibatch: 64, push_every: 2}\n"
		 "players: {main: 1, main_exploiter: 1, league_exploiter: 0}\n"
		 "snapshot: {steps: 800}\n"
		 "matchmaking: {job_episodes: 16}\n"
		 "collectors: {count: 1, envs: 8, wait_num: 8}\n"
		 /* a count, not seconds: every job plays the main player,
		  * however slow the machine */
		 "budget: {seconds: 0, jobs: 30}\n", so);
	tu_run_config(text, dir, ldir, sizeof ldir, 0, NULL, NULL, out,
		      sizeof out, errb, sizeof errb);
	/* The run printed its matrix, and the main player met others:
	 * a row "   0 main" with at least one win rate in it. */
	const char *row = strstr(out, "\n   0 main ");
	ck_assert_msg(strstr(out, "win rate of row against column") && row,
		      "%s", out);
	double wr;
	ck_assert_msg(sscanf(row, " 0 main %lf(", &wr) == 1 && wr >= 0 &&
		      wr <= 1, "%s", out);
	export_plugin_agent(dir, ldir, so);
}
END_TEST

/* A plugin that crashes (abort, every 40th move in its process) with envs
 * in child processes costs only the child: the episode is dropped and
 * counted, the env is recreated in a new child, and collection goes on
 * to its goal with no env given up. */
START_TEST(crashing_plugin_costs_only_its_child)
{
	static struct coll_policy uni;
	struct coll_opts o;
	struct coll_stats st;
	coll *c = NULL;

	coll_opts_default(&o);
	plugin_opts(&o.env, "crashy");
	add_param(&o.env, "crash_every", "40");
	uni = coll_policy_uniform();
	o.game = "coin";
	o.num_envs = 4;
	o.wait_num = 4;
	o.mode = COLL_ASYNC;
	o.processes = 1;
	o.retry_backoff_s = 0.01;
	o.policies = &uni;
	o.num_policies = 1;
	c = tu_coll_open(&o);
	ck_assert_int_eq(coll_collect(c, 1000, 60), 0);
	coll_stop(c);
	coll_stats(c, &st);
	coll_free(c);
	printf("games: crashy plugin in child processes: %llu steps, %llu "
	       "abnormal, %llu recreated\n", (unsigned long long)st.steps,
	       (unsigned long long)st.abnormal,
	       (unsigned long long)st.recreated);
	/* every child crashes at its 40th move: at least 1000 / (4 * 40)
	 * crashes in all before the goal */
	ck_assert_uint_ge(st.steps, 1000);
	ck_assert_uint_ge(st.abnormal, 1000 / 40 - 4);
	ck_assert_uint_eq(st.recreated, st.abnormal);
	ck_assert_uint_eq(st.dead_envs, 0);
}
END_TEST

/* The same plugin in the collector's own process crashes the collector:
 * league run restarts it (with backoff), the daemon gives its job to
 * the next, and the league ends with its payoff matrix. */
START_TEST(league_run_restarts_a_collector_its_plugin_crashed)
{
	static char out[1 << 16], errb[1 << 16];
	char dir[128], ldir[192], so[256], text[1024];

	tu_mkdtemp(dir, sizeof dir);
	plugin_path(so, sizeof so, "crashy");
	snprintf(text, sizeof text,
		 "league: {name: crashy-e2e, seed: 3}\n"
		 "env: {plugin: %s, params: {crash_every: '3000'}}\n"
		 "model: {hidden: [8]}\n"
		 "learner: {batch: 256, minibatch: 64}\n"
		 "players: {main: 1, main_exploiter: 0, league_exploiter: 0}\n"
		 "snapshot: {steps: 1000}\n"
		 "matchmaking: {job_episodes: 64}\n"
		 "collectors: {count: 1, envs: 8, mode: serial}\n"
		 /* a collector process crashes at its 3000th move, so 4000
		  * env steps counted take two of them, however slow the
		  * machine */
		 "budget: {seconds: 0, env_steps: 4000}\n", so);
	tu_run_config(text, dir, ldir, sizeof ldir, 0, NULL, NULL, out,
		      sizeof out, errb, sizeof errb);
	ck_assert_msg(strstr(errb, "collector.0 exited (signal 6); "
			     "restarting"), "%s", errb);
	ck_assert_msg(strstr(out, "win rate of row against column"), "%s",
		      out);
	tu_rmrf(dir);
}
END_TEST

Suite *suite_games(void)
{
	Suite *s = suite_create("games");
	const struct tu_test abi_tests[] = {
		{ builtin_games_pass_the_conformance_suite, 1 },
		{ goofspiel_plugin_conforms, 1 },
		{ version_1_plugin_loads_unchanged, 1 },
		{ goofspiel_plays_three_seats, 1 },
		{ play_reports_mean_return, 1 },
		{ play_text_intervals_are_each_sides, 1 },
		{ tictactoe_plugin_is_the_builtin, 1 },
		{ board_games_expose_planes, 1 },
		{ conformance_suite_catches_a_broken_game, 1 },
		{ bad_plugins_and_params_are_refused, 1 },
		{ goofspiel_exact_nashconv_matches_the_hand_value, 1 },
		{ config_names_a_plugin, 1 },
		{ plugin_agent_file_is_evaluated, 1 },
	};
	const struct tu_test run_tests[] = {
		{ config_check_refuses_bad_games, 1 },
		{ league_trains_on_the_plugin_game, 1 },
		{ crashing_plugin_costs_only_its_child, 1 },
		{ league_run_restarts_a_collector_its_plugin_crashed, 1 },
	};

	TU_TCASE(s, "abi", 60, abi_tests);
	TU_TCASE(s, "run", 90, run_tests);
	return s;
}
