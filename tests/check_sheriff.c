/*
 * tests/check_sheriff.c: the sheriff game (envs/sheriff.c), driven through
 * its game table: per-seat spaces and roles, hand-played episodes with
 * returns worked out from the rules, the masks of each phase, the size
 * of its tree against OpenSpiel's table (terminal histories and
 * infostates per seat), observations that are functions of the
 * infostate key, text hooks, and params refused with clear messages.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envs/env_internal.h"
#include "tests/testutil.h"

#define G env_game_sheriff

struct sh {
	void *inst;
	struct league_game_spec spec;
	_Alignas(16) unsigned char st[256];
};

/* Open sheriff with n params (keys k, values v); 0 or create's code. */
static int sh_open(struct sh *h, int n, const char *const *k,
		   const char *const *v, char *err, size_t errlen)
{
	struct league_game_params p = { .count = (uint32_t)n, .keys = k,
					.values = v };

	memset(h, 0, sizeof *h);
	return G.create(&p, &h->inst, &h->spec, err, errlen);
}

/* Play `acts` (count n) from the root, each legal for the mover. */
static void sh_play(struct sh *h, const int *acts, int n)
{
	uint8_t mask[32];

	G.root(h->inst, h->st, NULL);
	for (int i = 0; i < n; i++) {
		int pl = G.player(h->inst, h->st);
		ck_assert_int_ge(pl, 0);
		ck_assert_uint_le(h->spec.seat[pl].num_actions, sizeof mask);
		G.legal(h->inst, h->st, pl, mask);
		ck_assert_msg(mask[acts[i]], "move %d: action %d illegal", i,
			      acts[i]);
		G.apply(h->inst, h->st, acts[i], NULL);
	}
}

START_TEST(seats_differ_in_role_and_spaces)
{
	struct sh h;
	char err[256];

	ck_assert_int_eq(sh_open(&h, 0, NULL, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(h.spec.players, 2);
	ck_assert_uint_eq(h.spec.payoff, LEAGUE_GAME_GENERAL_SUM);
	ck_assert_uint_eq(h.spec.teams, 0);
	ck_assert_uint_eq(h.spec.flags, 0);
	ck_assert_str_eq(h.spec.seat[0].role, "smuggler");
	ck_assert_str_eq(h.spec.seat[1].role, "sheriff");
	/* load 0..3 and bribe 0..3; pass / inspect */
	ck_assert_uint_eq(h.spec.seat[0].num_actions, 8);
	ck_assert_uint_eq(h.spec.seat[1].num_actions, 2);
	/* cargo (4) + 4 rounds x (bribe 4 + answer 2); the rounds only */
	ck_assert_uint_eq(h.spec.seat[0].obs_len, 28);
	ck_assert_uint_eq(h.spec.seat[1].obs_len, 24);
	ck_assert_uint_eq(h.spec.max_steps, 9);
	ck_assert_uint_ge(sizeof h.st, h.spec.state_size);
	G.destroy(h.inst);
}
END_TEST

/* Four episodes with defaults (value 1, penalty 2, sheriff penalty 3):
 * the first three end in each of the rule's three cases, the fourth
 * shows that only the last round's bribe and answer count. */
START_TEST(hand_played_episodes_pay_by_the_rules)
{
	static const struct {
		int acts[9];
		double ret[2];
	} ep[] = {
		/* load 2; bribes 1 3 0 2 (actions 4 + b); answers n y y n:
		 * not inspected, last bribe 2: 2 x 1 - 2 = 0, sheriff 2 */
		{ { 2, 5, 0, 7, 1, 4, 1, 6, 0 }, { 0, 2 } },
		/* load 0; last answer inspect: an honest cargo, +3 / -3 */
		{ { 0, 4, 0, 4, 0, 4, 0, 7, 1 }, { 3, -3 } },
		/* load 3; inspected at the end: -3 x 2 / +6 */
		{ { 3, 7, 0, 7, 0, 7, 0, 4, 1 }, { -6, 6 } },
		/* load 1, every bribe 0 but inspect threats until the last
		 * round's pass: 1 x 1 - 0 = 1, sheriff 0 */
		{ { 1, 4, 1, 4, 1, 4, 1, 4, 0 }, { 1, 0 } },
	};
	struct sh h;
	char err[256];
	double out[2];

	ck_assert_int_eq(sh_open(&h, 0, NULL, NULL, err, sizeof err), 0);
	for (size_t e = 0; e < LG_ARRAY_LEN(ep); e++) {
		sh_play(&h, ep[e].acts, 9);
		ck_assert_int_eq(G.player(h.inst, h.st), LEAGUE_GAME_TERMINAL);
		G.returns(h.inst, h.st, out);
		ck_assert_msg(out[0] == ep[e].ret[0] && out[1] == ep[e].ret[1],
			      "episode %zu: %g %g", e, out[0], out[1]);
	}
	G.destroy(h.inst);
}
END_TEST

START_TEST(masks_follow_the_phases)
{
	struct sh h;
	char err[256];
	uint8_t m[8];
	static const int acts[] = { 2, 6 };

	ck_assert_int_eq(sh_open(&h, 0, NULL, NULL, err, sizeof err), 0);
	G.root(h.inst, h.st, NULL);
	ck_assert_int_eq(G.player(h.inst, h.st), 0);
	ck_assert_int_eq(G.legal(h.inst, h.st, 0, m), 4);
	ck_assert(m[0] && m[3] && !m[4] && !m[7]);
	ck_assert_int_eq(G.legal(h.inst, h.st, 1, m), 0); /* not its turn */
	ck_assert(!m[0] && !m[1]);
	sh_play(&h, acts, 1);
	ck_assert_int_eq(G.player(h.inst, h.st), 0); /* now a bribe */
	ck_assert_int_eq(G.legal(h.inst, h.st, 0, m), 4);
	ck_assert(!m[0] && !m[3] && m[4] && m[7]);
	sh_play(&h, acts, 2);
	ck_assert_int_eq(G.player(h.inst, h.st), 1);
	ck_assert_int_eq(G.legal(h.inst, h.st, 1, m), 2);
	ck_assert(m[0] && m[1]);
	ck_assert_int_eq(G.legal(h.inst, h.st, 0, m), 0);
	G.destroy(h.inst);
}
END_TEST

struct walk {
	struct sh *h;
	long terminals;
	double sum_lo, sum_hi; /* of the two returns over the leaves */
	struct env_strmap keys[2]; /* key -> index into obs */
	float *obs[2];             /* one row per key */
	int nkeys[2];
};

/* Record seat's key and observation at st: a key seen before must come
 * with the same observation, a new key with an observation no other key
 * has (checked by the caller through the count of distinct rows). */
static void record(struct walk *w, const void *st, int seat)
{
	const struct sh *h = w->h;
	size_t len = h->spec.seat[seat].obs_len;
	float obs[64];
	char key[LEAGUE_GAME_KEY_MAX];
	int at;

	G.infostate(h->inst, st, seat, key, sizeof key);
	G.observe(h->inst, st, seat, obs);
	at = env_strmap_get(&w->keys[seat], key);
	if (at >= 0) {
		ck_assert_msg(!memcmp(w->obs[seat] + (size_t)at * len, obs,
				      len * sizeof *obs),
			      "seat %d key %s: two observations", seat, key);
		return;
	}
	at = w->nkeys[seat]++;
	ck_assert_int_eq(env_strmap_put(&w->keys[seat], key, at), 0);
	w->obs[seat] = realloc(w->obs[seat], (size_t)(at + 1) * len *
				   sizeof *obs);
	ck_assert_ptr_nonnull(w->obs[seat]);
	memcpy(w->obs[seat] + (size_t)at * len, obs, len * sizeof *obs);
}

/* Every history below st: the mover's key at each decision. */
static void walk(struct walk *w, const void *st)
{
	const struct sh *h = w->h;
	int pl = G.player(h->inst, st);
	uint8_t mask[32];
	unsigned char c[256];

	if (pl == LEAGUE_GAME_TERMINAL) {
		double out[2];
		G.returns(h->inst, st, out);
		w->terminals++;
		w->sum_lo = LG_MIN(w->sum_lo, out[0] + out[1]);
		w->sum_hi = LG_MAX(w->sum_hi, out[0] + out[1]);
		return;
	}
	record(w, st, pl);
	G.legal(h->inst, st, pl, mask);
	for (uint32_t a = 0; a < h->spec.seat[pl].num_actions; a++) {
		if (!mask[a])
			continue;
		memcpy(c, st, h->spec.state_size);
		G.apply(h->inst, c, (int)a, NULL);
		walk(w, c);
	}
}

/* Distinct rows among the n rows of length len in obs. */
static int distinct_rows(const float *obs, int n, size_t len)
{
	int d = 0;

	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = !memcmp(obs + (size_t)i * len,
				       obs + (size_t)j * len,
				       len * sizeof *obs);
		d += !seen;
	}
	return d;
}

/* Walk the whole tree of sheriff with params (k, v) and compare with
 * OpenSpiel's table (sheriff.h, "Game size"): terminal histories and the
 * infostates of the smuggler and of the sheriff. */
static void check_size(int n, const char *const *k, const char *const *v,
		       long terminals, int sm_keys, int sh_keys)
{
	struct sh h;
	struct walk w = { .h = &h, .sum_lo = 1e9, .sum_hi = -1e9 };
	char err[256];

	ck_assert_int_eq(sh_open(&h, n, k, v, err, sizeof err), 0);
	G.root(h.inst, h.st, NULL);
	walk(&w, h.st);
	ck_assert_int_eq(w.terminals, terminals);
	ck_assert_int_eq(w.nkeys[0], sm_keys);
	ck_assert_int_eq(w.nkeys[1], sh_keys);
	/* one observation per key, and no two keys share one */
	for (int s = 0; s < 2; s++)
		ck_assert_int_eq(distinct_rows(w.obs[s], w.nkeys[s],
					       h.spec.seat[s].obs_len),
				 w.nkeys[s]);
	/* general-sum: the returns' sum is not constant */
	ck_assert(w.sum_hi > w.sum_lo);
	for (int s = 0; s < 2; s++) {
		env_strmap_free(&w.keys[s]);
		free(w.obs[s]);
	}
	G.destroy(h.inst);
}

START_TEST(tree_size_matches_openspiel)
{
	static const char *const k3[] = { "max_bribe", "max_items",
					  "num_rounds" };
	static const char *const v1[] = { "3", "3", "1" };
	static const char *const v2[] = { "5", "3", "2" };

	/* defaults (3, 3, 4): 4 x 8^4 leaves; 1 + 4 x 585 and 4 x 585 */
	check_size(0, NULL, NULL, 16384, 2341, 2340);
	check_size(3, k3, v1, 32, 5, 4);
	check_size(3, k3, v2, 576, 53, 78);
}
END_TEST

/* The exact evaluator on sheriff (through its infostate keys), against
 * values worked out by hand for the uniform profile: the last round
 * counts, its bribe b is uniform on 0..3 and its answer a fair coin; the
 * cargo n is uniform on 0..3. Passing: smuggler E[n - b] = 0, sheriff
 * E[b] = 1.5; inspecting: smuggler (3 - 2 - 4 - 6) / 4 = -2.25, sheriff
 * 2.25. Values: -1.125 and 1.875. Best responses: the smuggler loads
 * nothing (0 or +3 on the coin: 1.5); the sheriff passes on a last bribe
 * of 3 (3 > 2.25) and inspects otherwise: (3 x 2.25 + 3) / 4 = 2.4375. */
START_TEST(uniform_profile_values_by_hand)
{
	env *e = tu_env_open("sheriff", NULL);
	env_tree *t = NULL;
	struct env_nashconv nc;
	struct env_policy u = env_policy_uniform();
	char err[256];

	ck_assert_msg(env_tree_new(&t, e, err, sizeof err) == 0, "%s", err);
	ck_assert_msg(env_tree_nashconv(t, &u, &nc, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(nc.players, 2);
	ck_assert_double_eq_tol(nc.value[0], -1.125, 1e-12);
	ck_assert_double_eq_tol(nc.value[1], 1.875, 1e-12);
	ck_assert_double_eq_tol(nc.br_value[0], 1.5, 1e-12);
	ck_assert_double_eq_tol(nc.br_value[1], 2.4375, 1e-12);
	ck_assert_double_eq_tol(nc.nashconv, 2.625 + 0.5625, 1e-12);
	env_tree_free(t);
	env_free(e);
}
END_TEST

START_TEST(text_hooks_tell_each_seat_its_part)
{
	static const int acts[] = { 2, 5, 1, 7 };
	struct sh h;
	char err[256], t[LEAGUE_GAME_TEXT_MAX], name[LEAGUE_GAME_NAME_MAX];
	char key[LEAGUE_GAME_KEY_MAX];

	ck_assert_int_eq(sh_open(&h, 0, NULL, NULL, err, sizeof err), 0);
	sh_play(&h, acts, 4);
	G.describe(h.inst, h.st, 0, t, sizeof t);
	ck_assert_str_eq(t, "you are the smuggler\n"
			 "cargo: 2 illegal items\n"
			 "round 1: bribe 1, sheriff will inspect\n"
			 "round 2: bribe 3, sheriff to answer\n"
			 "the sheriff answers pass or inspect\n");
	G.describe(h.inst, h.st, 1, t, sizeof t);
	ck_assert_ptr_null(strstr(t, "cargo")); /* hidden from the sheriff */
	ck_assert_ptr_nonnull(strstr(t, "you are the sheriff\n"));
	G.infostate(h.inst, h.st, 0, key, sizeof key);
	ck_assert_str_eq(key, "S2|1y|3");
	G.infostate(h.inst, h.st, 1, key, sizeof key);
	ck_assert_str_eq(key, "H|1y|3");
	G.action_name(h.inst, h.st, 1, 1, name, sizeof name);
	ck_assert_str_eq(name, "inspect");
	G.action_name(h.inst, h.st, 0, 3, name, sizeof name);
	ck_assert_str_eq(name, "load3");
	G.action_name(h.inst, h.st, 0, 6, name, sizeof name);
	ck_assert_str_eq(name, "bribe2");
	/* a short buffer is cut and terminated */
	G.describe(h.inst, h.st, 0, t, 8);
	ck_assert_str_eq(t, "you are");
	G.destroy(h.inst);
}
END_TEST

START_TEST(bad_params_are_refused_by_name)
{
	static const struct {
		const char *k, *v, *msg;
	} bad[] = {
		{ "max_items", "0", "env.params: max_items: expected a whole "
				    "number in [1, 10], got '0'" },
		{ "num_rounds", "11", "env.params: num_rounds: expected a "
				      "whole number in [1, 10], got '11'" },
		{ "max_bribe", "2x", "env.params: max_bribe: expected a whole "
				     "number in [0, 10], got '2x'" },
		{ "item_value", "-1", "env.params: item_value: expected a "
				      "number in [0, 1e6], got '-1'" },
		{ "players", "3", "env.params: 'players': sheriff takes" },
	};
	static const char *const k[] = { "item_penalty", "max_bribe" };
	static const char *const v[] = { "0.5", "0" };
	struct sh h;
	char err[256];
	double out[2];
	/* load 1, four bribes of 0, inspected at the end */
	static const int acts[] = { 1, 4, 0, 4, 0, 4, 0, 4, 1 };

	for (size_t i = 0; i < LG_ARRAY_LEN(bad); i++) {
		err[0] = 0;
		ck_assert_int_ne(sh_open(&h, 1, &bad[i].k, &bad[i].v, err,
					 sizeof err), 0);
		ck_assert_msg(!strncmp(err, bad[i].msg, strlen(bad[i].msg)),
			      "%s", err);
	}
	/* good ones reach the rules: one bribe (0), penalty 0.5 */
	ck_assert_int_eq(sh_open(&h, 2, k, v, err, sizeof err), 0);
	ck_assert_uint_eq(h.spec.seat[0].num_actions, 5);
	ck_assert_uint_eq(h.spec.seat[0].obs_len, 4 + 4 * 3);
	sh_play(&h, acts, 9);
	G.returns(h.inst, h.st, out);
	ck_assert(out[0] == -0.5 && out[1] == 0.5);
	G.destroy(h.inst);
}
END_TEST

Suite *suite_sheriff(void)
{
	Suite *s = suite_create("sheriff");
	const struct tu_test tests[] = {
		{ seats_differ_in_role_and_spaces, 1 },
		{ hand_played_episodes_pay_by_the_rules, 1 },
		{ masks_follow_the_phases, 1 },
		{ tree_size_matches_openspiel, 1 },
		{ uniform_profile_values_by_hand, 1 },
		{ text_hooks_tell_each_seat_its_part, 1 },
		{ bad_params_are_refused_by_name, 1 },
	};

	TU_TCASE(s, "rules", 60, tests);
	return s;
}
