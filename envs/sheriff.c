/*
 * envs/sheriff.c: Sheriff, OpenSpiel's simplified Sheriff of Nottingham
 * (Farina et al. 2019), with OpenSpiel's parameters and defaults: an
 * asymmetric general-sum game whose two seats differ in role, actions and
 * observations.
 *
 * Seat 0, the smuggler, first loads 0..max_items illegal items into its
 * cargo (the sheriff does not see how many). Then num_rounds bargaining
 * rounds follow: the smuggler offers a bribe 0..max_bribe (public), and
 * the sheriff, seat 1, answers whether it will inspect (public). Only the
 * last round counts: with bribe b and answer "pass", the smuggler gets
 * items x item_value - b and the sheriff b; with "inspect", an empty cargo
 * gives the smuggler sheriff_penalty and the sheriff minus that, and n > 0
 * items give the smuggler -n x item_penalty and the sheriff +n x
 * item_penalty.
 *
 * Actions. Smuggler: 0..max_items load that many items (only first),
 * max_items + 1 + b offers bribe b. Sheriff: 0 pass, 1 inspect.
 * Observations: per round the bribe (one-hot, max_bribe + 1) and the
 * answer (two bits: pass, inspect; both 0 before it); the smuggler's
 * begin with its cargo (one-hot, max_items + 1; all 0 before loading).
 * Both are perfect recall: an observation is a function of the seat's
 * infostate key and the other way round.
 * Infostate key: 'S' and the cargo ('?' before loading) for the smuggler,
 * 'H' for the sheriff, then per round '|', the bribe, and 'n' (pass) or
 * 'y' (inspect) once answered: "S2|1n|3", "H|1n|3".
 */
#include "envs/env_internal.h"

#include <stdio.h>
#include <stdlib.h>

#define SH_ROUNDS_MAX 10
#define SH_ITEMS_MAX 10
#define SH_BRIBE_MAX 10
#define SH_SMUGGLER 0
#define SH_SHERIFF 1

struct sheriff_inst {
	double item_penalty, item_value, sheriff_penalty;
	int max_items, max_bribe, rounds;
};

struct sheriff_st {
	int8_t items;                  /* -1 before loading */
	int8_t n;                      /* moves after loading */
	int8_t h[2 * SH_ROUNDS_MAX];   /* bribe, answer (0 pass, 1 inspect) */
};

/* One env.params entry (key k, value v) into si, or LG_EINVAL with err. */
static int sheriff_param(struct sheriff_inst *si, const char *k,
			 const char *v, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		int max;
	} ints[] = { { "max_items", SH_ITEMS_MAX },
		     { "max_bribe", SH_BRIBE_MAX },
		     { "num_rounds", SH_ROUNDS_MAX } };
	static const char *const reals[] = { "item_penalty", "item_value",
					     "sheriff_penalty" };
	int *iv[] = { &si->max_items, &si->max_bribe, &si->rounds };
	double *dv[] = { &si->item_penalty, &si->item_value,
			 &si->sheriff_penalty };

	for (int i = 0; i < 3; i++) {
		uint64_t u;
		int lo = i == 1 ? 0 : 1;
		if (strcmp(k, ints[i].key))
			continue;
		if (env_param_u64(k, v, (uint64_t)lo, (uint64_t)ints[i].max,
				  &u, err, errlen))
			return LG_EINVAL;
		*iv[i] = (int)u;
		return 0;
	}
	for (int i = 0; i < 3; i++) {
		if (strcmp(k, reals[i]))
			continue;
		if (lg_parse_double(v, 0, 1e6, dv[i])) {
			lg_errf(err, errlen, "env.params: %s: expected a number "
				"in [0, 1e6], got '%s'", k, v);
			return LG_EINVAL;
		}
		return 0;
	}
	lg_errf(err, errlen, "env.params: '%s': sheriff takes max_items, "
		"max_bribe, num_rounds, item_penalty, item_value and "
		"sheriff_penalty", k);
	return LG_EINVAL;
}

static int sheriff_create(const struct league_game_params *p, void **inst,
			  struct league_game_spec *spec, char *err,
			  size_t errlen)
{
	struct sheriff_inst si = { .item_penalty = 2, .item_value = 1,
				   .sheriff_penalty = 3, .max_items = 3,
				   .max_bribe = 3, .rounds = 4 };
	struct league_game_seat *sm = &spec->seat[SH_SMUGGLER];
	struct league_game_seat *sh = &spec->seat[SH_SHERIFF];
	int rc;

	for (uint32_t i = 0; p && i < p->count; i++)
		if ((rc = sheriff_param(&si, p->keys[i], p->values[i], err,
					errlen)))
			return rc;
	if (!(*inst = malloc(sizeof si))) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	memcpy(*inst, &si, sizeof si);
	memset(spec, 0, sizeof *spec);
	spec->players = 2;
	spec->payoff = LEAGUE_GAME_GENERAL_SUM;
	spec->state_size = sizeof(struct sheriff_st);
	spec->max_steps = (uint64_t)(2 * si.rounds + 1);
	sm->num_actions = (uint32_t)(si.max_items + si.max_bribe + 2);
	sm->obs_len = (uint32_t)(si.max_items + 1 +
				 si.rounds * (si.max_bribe + 3));
	snprintf(sm->role, sizeof sm->role, "smuggler");
	sh->num_actions = 2;
	sh->obs_len = (uint32_t)(si.rounds * (si.max_bribe + 3));
	snprintf(sh->role, sizeof sh->role, "sheriff");
	return 0;
}

static void sheriff_destroy(void *inst)
{
	free(inst);
}

static void sheriff_root(const void *inst, void *st,
			 struct league_game_rng *rng)
{
	struct sheriff_st *s = st;

	memset(s, 0, sizeof *s);
	s->items = -1;
}

static int sheriff_player(const void *inst, const void *st)
{
	const struct sheriff_inst *si = inst;
	const struct sheriff_st *s = st;

	if (s->items < 0)
		return SH_SMUGGLER;
	if (s->n == 2 * si->rounds)
		return LEAGUE_GAME_TERMINAL;
	return s->n % 2 ? SH_SHERIFF : SH_SMUGGLER;
}

static int sheriff_legal(const void *inst, const void *st, int seat,
			 uint8_t *mask)
{
	const struct sheriff_inst *si = inst;
	const struct sheriff_st *s = st;
	int bribes = si->max_items + 1, n = 0;

	if (seat == SH_SHERIFF) {
		n = sheriff_player(inst, st) == SH_SHERIFF;
		mask[0] = mask[1] = (uint8_t)n;
		return 2 * n;
	}
	memset(mask, 0, (size_t)(bribes + si->max_bribe + 1));
	if (sheriff_player(inst, st) != SH_SMUGGLER)
		return 0;
	if (s->items < 0)
		for (; n <= si->max_items; n++)
			mask[n] = 1;
	else
		for (; n <= si->max_bribe; n++)
			mask[bribes + n] = 1;
	return n;
}

static void sheriff_apply(const void *inst, void *st, int a,
			  struct league_game_rng *rng)
{
	const struct sheriff_inst *si = inst;
	struct sheriff_st *s = st;

	if (s->items < 0)
		s->items = (int8_t)a;
	else if (s->n % 2 == 0)
		s->h[s->n++] = (int8_t)(a - si->max_items - 1);
	else
		s->h[s->n++] = (int8_t)a;
}

static void sheriff_observe(const void *inst, const void *st, int seat,
			    float *out)
{
	const struct sheriff_inst *si = inst;
	const struct sheriff_st *s = st;
	int round = si->max_bribe + 3;

	if (seat == SH_SMUGGLER) {
		memset(out, 0, (size_t)(si->max_items + 1) * sizeof *out);
		if (s->items >= 0)
			out[s->items] = 1;
		out += si->max_items + 1;
	}
	memset(out, 0, (size_t)(si->rounds * round) * sizeof *out);
	for (int i = 0; i < s->n; i++)
		if (i % 2 == 0)
			out[i / 2 * round + s->h[i]] = 1;
		else
			out[i / 2 * round + si->max_bribe + 1 + s->h[i]] = 1;
}

static void sheriff_returns(const void *inst, const void *st, double *out)
{
	const struct sheriff_inst *si = inst;
	const struct sheriff_st *s = st;
	int bribe = s->h[s->n - 2], inspect = s->h[s->n - 1];

	if (!inspect) {
		out[SH_SMUGGLER] = s->items * si->item_value - bribe;
		out[SH_SHERIFF] = bribe;
	} else if (s->items > 0) {
		out[SH_SMUGGLER] = -s->items * si->item_penalty;
		out[SH_SHERIFF] = s->items * si->item_penalty;
	} else {
		out[SH_SMUGGLER] = si->sheriff_penalty;
		out[SH_SHERIFF] = -si->sheriff_penalty;
	}
}

static void sheriff_infostate(const void *inst, const void *st, int seat,
			      char *buf, size_t len)
{
	const struct sheriff_st *s = st;
	size_t k;

	if (seat == SH_SMUGGLER && s->items >= 0)
		snprintf(buf, len, "S%d", s->items);
	else
		snprintf(buf, len, seat == SH_SMUGGLER ? "S?" : "H");
	k = strlen(buf);
	for (int i = 0; i < s->n && k < len; i++) {
		int w = i % 2 ? snprintf(buf + k, len - k, "%c",
					 s->h[i] ? 'y' : 'n')
			      : snprintf(buf + k, len - k, "|%d", s->h[i]);
		k += w > 0 ? (size_t)w : 0;
	}
}

static void sheriff_action_name(const void *inst, const void *st, int seat,
				int a, char *buf, size_t len)
{
	const struct sheriff_inst *si = inst;

	if (seat == SH_SHERIFF)
		snprintf(buf, len, a ? "inspect" : "pass");
	else if (a <= si->max_items)
		snprintf(buf, len, "load%d", a);
	else
		snprintf(buf, len, "bribe%d", a - si->max_items - 1);
}

/* What the seat knows: its role, the cargo (the smuggler only), each
 * round's bribe and answer so far, and what happens next. */
static void sheriff_describe(const void *inst, const void *st, int seat,
			     char *buf, size_t len)
{
	const struct sheriff_inst *si = inst;
	const struct sheriff_st *s = st;
	int who = sheriff_player(inst, st);
	size_t k = env_text_put(buf, len, 0, "you are the %s\n",
				seat == SH_SMUGGLER ? "smuggler" : "sheriff");

	if (seat == SH_SMUGGLER && s->items >= 0)
		k = env_text_put(buf, len, k, "cargo: %d illegal item%s\n",
				 s->items, s->items == 1 ? "" : "s");
	for (int i = 0; i < s->n; i += 2)
		k = env_text_put(buf, len, k, "round %d: bribe %d, sheriff "
				 "%s\n", i / 2 + 1, s->h[i],
				 i + 1 >= s->n	 ? "to answer"
				 : s->h[i + 1] ? "will inspect"
					       : "will pass");
	if (who == LEAGUE_GAME_TERMINAL)
		env_text_put(buf, len, k, "game over\n");
	else if (s->items < 0)
		env_text_put(buf, len, k, "the smuggler loads 0..%d items\n",
			     si->max_items);
	else if (who == SH_SMUGGLER)
		env_text_put(buf, len, k, "round %d of %d: the smuggler offers "
			     "a bribe 0..%d\n", s->n / 2 + 1, si->rounds,
			     si->max_bribe);
	else
		env_text_put(buf, len, k, "the sheriff answers pass or "
			     "inspect%s\n", s->n / 2 + 1 == si->rounds ?
			     " (the final answer counts)" : "");
}

const struct league_game env_game_sheriff = {
	ENV_GAME_HEAD("sheriff",
		      "Sheriff (OpenSpiel's), asymmetric general-sum "
		      "bargaining"),
	ENV_GAME_FNS(sheriff),
	.infostate = sheriff_infostate,
	ENV_GAME_TEXT(sheriff),
};
