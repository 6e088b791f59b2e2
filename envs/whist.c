/*
 * envs/whist.c: tiny whist, a partnership trick-taking game of league's
 * own for four seats in two teams (seats 0 and 2 against 1 and 3), small
 * enough for the exact evaluators. Written on game ABI v2: zero-sum
 * between the teams, teammates get the same return.
 *
 * Eight cards, two suits (hearts H, spades S) of four ranks J < Q < K < A;
 * card c is suit c / 4 (0 H, 1 S), rank c % 4. Spades are trumps. Chance
 * deals two cards to seat 0 (one of the 28 pairs, uniform), then seat 1
 * (15 pairs of the 6 left) and seat 2 (6 of the 4 left); seat 3 gets the
 * last two: the 2,520 deals are equally likely. Each seat sees its own
 * hand only.
 *
 * Trick 1: seat 0 leads any card; seats 1, 2, 3 follow in turn, each with
 * a card of the suit led if it holds one, else with any card. The highest
 * spade played wins the trick, else the highest card of the suit led.
 * Trick 2 plays itself: the winner of trick 1 leads its last card and the
 * others follow clockwise with theirs (one card each, so no choice), won
 * as trick 1. A team's return is (its tricks - the other team's) / 2:
 * +1 for both tricks, 0 for one each, -1 for none. So the game is the four
 * decisions of trick 1, where what to keep for trick 2 (a trump, a high
 * heart) and whether to beat a partner's card is a team's judgement from
 * its own hand and the cards seen.
 *
 * Action a is playing card a (8 actions, names "JH" .. "AS"). Infostate
 * key: the seat, ':', its hand (two card names, lower first), ':', the
 * cards of trick 1 so far in seat order: "0:JHKS:", "3:QHAS:AHJSKH".
 * Observation (44 floats): seat one-hot [0,4), own hand (both cards, kept
 * after playing) [4,12), then seat s's card of trick 1 at [12+8s, 20+8s)
 * (zeros until played).
 */
#include "envs/env_internal.h"

#include <stdio.h>

#define TW_SEATS 4
#define TW_CARDS 8
#define TW_OBS (TW_SEATS + TW_CARDS + TW_SEATS * TW_CARDS)
#define TW_TRUMP 1

struct tiny_whist_st {
	int8_t hand[TW_SEATS][2]; /* card, lower first; -1 not dealt */
	int8_t play[TW_SEATS];    /* seat's card of trick 1; -1 not yet */
	int8_t dealt;             /* hands dealt: 0, 1, 2, then 4 */
	int8_t n;                 /* cards played in trick 1 */
};

static const char tw_rank[] = "JQKA", tw_suit[] = "HS";

static int tw_suit_of(int c)
{
	return c / 4;
}

/* No params; no instance. */
static int tiny_whist_create(const struct league_game_params *p,
			     void **inst, struct league_game_spec *spec,
			     char *err, size_t errlen)
{
	if (env_params_none(p, "tiny_whist", err, errlen))
		return LG_EINVAL;
	memset(spec, 0, sizeof *spec);
	spec->players = TW_SEATS;
	spec->flags = LEAGUE_GAME_HAS_CHANCE;
	spec->payoff = LEAGUE_GAME_ZERO_SUM;
	spec->teams = 2;
	spec->state_size = sizeof(struct tiny_whist_st);
	spec->max_steps = TW_SEATS;
	for (int i = 0; i < TW_SEATS; i++) {
		spec->seat[i].obs_len = TW_OBS;
		spec->seat[i].num_actions = TW_CARDS;
		spec->seat[i].team = (uint32_t)(i % 2);
	}
	*inst = NULL;
	return 0;
}

static void tiny_whist_destroy(void *inst)
{
}

static void tiny_whist_root(const void *inst, void *st,
			    struct league_game_rng *rng)
{
	struct tiny_whist_st *s = st;

	memset(s, -1, sizeof *s);
	s->dealt = s->n = 0;
}

static int tiny_whist_player(const void *inst, const void *st)
{
	const struct tiny_whist_st *s = st;

	if (s->dealt < TW_SEATS)
		return LEAGUE_GAME_CHANCE;
	return s->n < TW_SEATS ? s->n : LEAGUE_GAME_TERMINAL;
}

/* The cards no hand holds yet, ascending, into left; returns how many. */
static int tw_left(const struct tiny_whist_st *s, int8_t *left)
{
	uint8_t held[TW_CARDS] = { 0 };
	int n = 0;

	for (int i = 0; i < s->dealt; i++)
		held[s->hand[i][0]] = held[s->hand[i][1]] = 1;
	for (int c = 0; c < TW_CARDS; c++)
		if (!held[c])
			left[n++] = (int8_t)c;
	return n;
}

/* Outcome k deals the k-th pair (i < j) of the cards left, in order. */
static int tiny_whist_chance(const void *inst, const void *st, int *out,
			     double *p)
{
	int8_t left[TW_CARDS];
	int n = tw_left(st, left);

	return env_chance_uniform(n * (n - 1) / 2, out, p);
}

static int tiny_whist_legal(const void *inst, const void *st, int seat,
			    uint8_t *mask)
{
	const struct tiny_whist_st *s = st;
	const int8_t *h = s->hand[seat];
	int follow = 0, n = 0;

	memset(mask, 0, TW_CARDS);
	if (tiny_whist_player(inst, st) != seat)
		return 0;
	if (seat > 0) {
		int led = tw_suit_of(s->play[0]);
		follow = tw_suit_of(h[0]) == led || tw_suit_of(h[1]) == led;
		for (int i = 0; i < 2; i++)
			if (!follow || tw_suit_of(h[i]) == led)
				n += mask[h[i]] = 1;
		return n;
	}
	mask[h[0]] = mask[h[1]] = 1;
	return 2;
}

static void tiny_whist_apply(const void *inst, void *st, int a,
			     struct league_game_rng *rng)
{
	struct tiny_whist_st *s = st;
	int8_t left[TW_CARDS];

	if (s->dealt < TW_SEATS) {
		int n = tw_left(s, left), i = 0;
		while (a >= n - 1 - i) { /* pairs starting at left[i] */
			a -= n - 1 - i;
			i++;
		}
		s->hand[s->dealt][0] = left[i];
		s->hand[s->dealt][1] = left[i + 1 + a];
		if (++s->dealt == TW_SEATS - 1) {
			tw_left(s, left);
			s->hand[3][0] = left[0];
			s->hand[3][1] = left[1];
			s->dealt = TW_SEATS;
		}
		return;
	}
	s->play[s->n++] = (int8_t)a;
}

/* The winner of a trick led by seat `lead`, card[s] being seat s's. */
static int tw_winner(const int8_t *card, int lead)
{
	int win = lead;

	for (int k = 1; k < TW_SEATS; k++) {
		int s = (lead + k) % TW_SEATS, c = card[s], b = card[win];
		if (tw_suit_of(c) == tw_suit_of(b) ? c > b
						   : tw_suit_of(c) == TW_TRUMP)
			win = s;
	}
	return win;
}

/* Both tricks' winners of a finished trick 1 (and the cards of trick 2). */
static void tw_tricks(const struct tiny_whist_st *s, int *w1, int *w2,
		      int8_t *last)
{
	for (int i = 0; i < TW_SEATS; i++)
		last[i] = s->hand[i][s->hand[i][0] == s->play[i]];
	*w1 = tw_winner(s->play, 0);
	*w2 = tw_winner(last, *w1);
}

static void tiny_whist_returns(const void *inst, const void *st,
			       double *out)
{
	int8_t last[TW_SEATS];
	int w1, w2, t0;

	tw_tricks(st, &w1, &w2, last);
	t0 = (w1 % 2 == 0) + (w2 % 2 == 0); /* team 0's tricks */
	for (int i = 0; i < TW_SEATS; i++)
		out[i] = i % 2 == 0 ? t0 - 1 : 1 - t0;
}

static void tiny_whist_observe(const void *inst, const void *st, int seat,
			       float *out)
{
	const struct tiny_whist_st *s = st;

	memset(out, 0, TW_OBS * sizeof *out);
	out[seat] = 1;
	for (int i = 0; i < 2; i++)
		if (s->hand[seat][i] >= 0)
			out[TW_SEATS + s->hand[seat][i]] = 1;
	for (int i = 0; i < s->n; i++)
		out[TW_SEATS + TW_CARDS + i * TW_CARDS + s->play[i]] = 1;
}

/* "AS", or "??" for no card. */
static size_t tw_card(char *buf, size_t len, size_t k, int c)
{
	if (c < 0)
		return env_textf(buf, len, k, "??");
	return env_textf(buf, len, k, "%c%c", tw_rank[c % 4], tw_suit[c / 4]);
}

static void tiny_whist_infostate(const void *inst, const void *st,
				 int seat, char *buf, size_t len)
{
	const struct tiny_whist_st *s = st;
	size_t k = env_textf(buf, len, 0, "%d:", seat);

	k = tw_card(buf, len, k, s->hand[seat][0]);
	k = tw_card(buf, len, k, s->hand[seat][1]);
	k = env_textf(buf, len, k, ":");
	for (int i = 0; i < s->n; i++)
		k = tw_card(buf, len, k, s->play[i]);
}

/* One trick's line: "trick N: seat S CARD, ..." from seat lead. */
static size_t tw_trick_line(char *buf, size_t len, size_t k, int no,
			    const int8_t *card, int lead, int count)
{
	k = env_textf(buf, len, k, "\ntrick %d:%s", no,
		      count ? "" : " no card yet, seat 0 leads");
	for (int j = 0; j < count; j++) {
		int s = (lead + j) % TW_SEATS;
		k = env_textf(buf, len, k, "%s seat %d ", j ? "," : "", s);
		k = tw_card(buf, len, k, card[s]);
	}
	return k;
}

/* The seat's hand and the cards played; once over, trick 2 and the
 * score. */
static void tiny_whist_describe(const void *inst, const void *st, int seat,
				char *buf, size_t len)
{
	const struct tiny_whist_st *s = st;
	int8_t last[TW_SEATS];
	double r[TW_SEATS];
	int w1, w2;
	size_t k;

	k = env_textf(buf, len, 0, "tiny whist, seat %d (team %d, with seat "
		      "%d); trumps: spades\nyour hand: ", seat, seat % 2,
		      (seat + 2) % TW_SEATS);
	k = tw_card(buf, len, k, s->hand[seat][0]);
	k = env_textf(buf, len, k, " ");
	k = tw_card(buf, len, k, s->hand[seat][1]);
	k = tw_trick_line(buf, len, k, 1, s->play, 0, s->n);
	if (tiny_whist_player(inst, st) != LEAGUE_GAME_TERMINAL)
		return;
	tw_tricks(s, &w1, &w2, last);
	tiny_whist_returns(inst, st, r);
	k = env_textf(buf, len, k, ": seat %d wins", w1);
	k = tw_trick_line(buf, len, k, 2, last, w1, TW_SEATS);
	env_textf(buf, len, k, ": seat %d wins\nteam %d returns %g", w2,
		  seat % 2, r[seat]);
}

static void tiny_whist_action_name(const void *inst, const void *st,
				   int seat, int action, char *buf,
				   size_t len)
{
	tw_card(buf, len, 0, action);
}

const struct league_game env_game_tiny_whist = {
	ENV_GAME_HEAD("tiny_whist",
		      "tiny whist: 4 seats in 2 teams, 8 cards, spades trumps, "
		      "two tricks"),
	ENV_GAME_FNS(tiny_whist),
	ENV_GAME_TREE(tiny_whist),
	ENV_GAME_TEXT(tiny_whist),
};
