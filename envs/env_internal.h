/*
 * envs/env_internal.h: what the games, the play wrapper (env.c), the
 * evaluators (tree.c, cfr) and the baselines share. Not a public header:
 * only files in envs/ (and white-box tests) include it.
 *
 * Every game is written once, OpenSpiel-style, as pure functions on a
 * flat copyable state (the public ABI, league_game.h) in which chance is an
 * explicit player (ENV_CHANCE) with enumerable outcomes. The play wrapper
 * samples chance outcomes from the env's rng; the tree builder enumerates
 * them. Simultaneous games are written as sequential games whose second
 * mover cannot see the first move; the wrapper applies a joint action as
 * two moves.
 */
#ifndef LG_ENV_INTERNAL_H
#define LG_ENV_INTERNAL_H

#include "envs/env.h"

#include "envs/league_game.h"

#include <stdarg.h>

struct league_game_v1_spec;

#define ENV_CHANCE LEAGUE_GAME_CHANCE
#define ENV_CHANCE_MAX LEAGUE_GAME_CHANCE_MAX
#define ENV_KEY_MAX LEAGUE_GAME_KEY_MAX
_Static_assert(ENV_TERMINAL == LEAGUE_GAME_TERMINAL, "one terminal code");
_Static_assert(ENV_GAME_ACTIONS_MAX == LEAGUE_GAME_ACTIONS_MAX, "one action cap");
_Static_assert(ENV_MAX_PLAYERS == LEAGUE_GAME_PLAYERS_MAX, "one seat cap");
_Static_assert(ENV_ROLE_MAX == LEAGUE_GAME_ROLE_MAX, "one role cap");

/* The built-in games are written on the public ABI (league_game.h); their
 * instance is the env_opts the host passes as params->host (the host's
 * copy, completed in place by the game's setup), or a malloc'd copy of the
 * defaults when host is NULL (a plugin build, which destroy frees). They
 * take no env.params. */
typedef int (*env_setup_fn)(struct env_opts *o, struct env_spec *spec,
			    char *err, size_t errlen);
int env_builtin_create(const struct league_game_params *p, void **inst,
		       struct league_game_spec *spec, char *err, size_t errlen,
		       env_setup_fn setup, size_t state_size);
void env_builtin_destroy(void *inst);
#define ENV_BUILTIN_CREATE(fn, setup, size)                                   \
	static int fn(const struct league_game_params *p, void **inst,        \
		      struct league_game_spec *spec, char *err, size_t errlen) \
	{                                                                     \
		return env_builtin_create(p, inst, spec, err, errlen, setup,  \
					  size);                              \
	}

/* A built-in game on env_builtin_create: static pfx_create (as
 * ENV_BUILTIN_CREATE) and pfx_destroy (env_builtin_destroy), for
 * ENV_GAME_FNS(pfx). */
#define ENV_BUILTIN_GAME(pfx, setup, size)                                    \
	ENV_BUILTIN_CREATE(pfx##_create, setup, size)                         \
	static void pfx##_destroy(void *inst)                                 \
	{                                                                     \
		env_builtin_destroy(inst);                                    \
	}

/* A built-in game's table, in parts named by its prefix. The head: ABI
 * version, name and summary. */
#define ENV_GAME_HEAD(game_name, game_summary)                              \
	.abi = LEAGUE_GAME_ABI, .name = game_name, .summary = game_summary
/* The rules: pfx_root, pfx_player, pfx_legal, pfx_apply, pfx_returns
 * (what two games that differ only in setup or observation share). */
#define ENV_GAME_RULES(pfx)                                                  \
	.root = pfx##_root, .player = pfx##_player, .legal = pfx##_legal,   \
	.apply = pfx##_apply, .returns = pfx##_returns
/* The required functions: pfx_create, pfx_destroy, pfx_observe and the
 * rules. */
#define ENV_GAME_FNS(pfx)                                                    \
	.create = pfx##_create, .destroy = pfx##_destroy,                   \
	.observe = pfx##_observe, ENV_GAME_RULES(pfx)
/* The optional hooks a tree needs: pfx_chance and pfx_infostate. */
#define ENV_GAME_TREE(pfx)                                                   \
	.chance = pfx##_chance, .infostate = pfx##_infostate
/* The optional text: pfx_describe and pfx_action_name. */
#define ENV_GAME_TEXT(pfx)                                                   \
	.describe = pfx##_describe, .action_name = pfx##_action_name

/* The chance() of a game without chance nodes: none, ever. */
int env_no_chance(const void *inst, const void *st, int *out, double *p);
/* The legal() of a game of two actions, both legal at every decision
 * (kuhn's pass and bet, timing's 0 and 1): mask[0] = mask[1] = 1, 2. */
int env_legal_two(const void *inst, const void *st, int player,
		  uint8_t *mask);

/* The games written on ABI v2 directly (envs/gamekit.c): for one that
 * takes no env.params, 0 when p has none, else LG_EINVAL with
 * "env.params: 'KEY': GAME takes no params" in err. */
int env_params_none(const struct league_game_params *p, const char *game,
		    char *err, size_t errlen);
/* One env.params value that is a whole number: 0 with *out set when val
 * is one in [lo, hi], else LG_EINVAL with "env.params: KEY: expected a
 * whole number in [LO, HI], got 'VAL'" in err (*out untouched). */
int env_param_u64(const char *key, const char *val, uint64_t lo,
		  uint64_t hi, uint64_t *out, char *err, size_t errlen);
/* The apply() of a card or dice game whose first `deals` actions are
 * chance's (each a card or die, kept in card[] in deal order, *dealt of
 * them so far) and every later one a player's move (kept in moves[] in
 * order, *n of them so far): records action a where it belongs. */
void env_deal_or_move(int8_t *card, int8_t *dealt, int deals,
		      int8_t *moves, int8_t *n, int a);
/* A chance node of n outcomes 0 .. n-1 alike (a die, a card from a full
 * deck, the k-th of n deals): out[i] = i, p[i] = 1/n; returns n. */
int env_chance_uniform(int n, int *out, double *p);
/* A card dealt from a deck of `cards` (0 .. cards-1, each once) of which
 * the ndealt in dealt[] are gone: the cards left in rising order, each
 * with probability 1 / (cards - ndealt); returns their count. */
int env_chance_deal(int cards, const int8_t *dealt, int ndealt, int *out,
		    double *p);
/* Append printf-style text at buf[at] (at most len bytes in all, always
 * NUL-terminated when len > 0, cut short when full); returns the new end,
 * which stays at len - 1 once full: for describe() and infostate(). */
size_t env_textf(char *buf, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
extern const struct league_game env_game_tiny_hanabi, env_game_tiny_whist;

extern const struct league_game env_game_rps, env_game_matrix,
	env_game_kuhn, env_game_leduc, env_game_leduc_short,
	env_game_tictactoe, env_game_connect4, env_game_timing,
	env_game_liars_dice, env_game_sheriff, env_game_othello;

/* Uniform double in [0, 1) from the ABI's generator. */
static inline double env_rng_double(struct league_game_rng *r)
{
	return (double)(r->next(r) >> 11) * 0x1.0p-53;
}

/* The league's generator behind the ABI's. */
struct env_rng {
	struct league_game_rng base;
	lg_rng r;
};
void env_rng_seed(struct env_rng *r, uint64_t seed);

/* One open instance of a game, built in or loaded from a plugin: what an
 * env, a tree and a conformance check hold. */
struct env_game {
	const struct league_game *g; /* version 2's table (a version 1
					plugin's: v1tab) */
	void *inst;           /* the game's, from create() */
	void *dl;             /* dlopen handle of a plugin, else NULL */
	struct env_spec spec; /* after the max_steps override */
	size_t state_size;
	int builtin;
	/* A version 1 plugin: its create() and the rest of its table
	 * as version 2's (envs/game_open.c). */
	int (*v1create)(const struct league_game_params *params, void **inst,
			struct league_game_v1_spec *spec, char *err,
			size_t errlen);
	struct league_game v1tab;
	struct env_opts own; /* a built-in's instance (no allocation: a
				collector's child process opens games after
				fork, where fewer allocations are safer) */
};

/* ---- remote games (envs/remote.c, net/game.proto) ---------------------- */

#define ENV_REMOTE_FRAME_MAX (16u << 20)
/* The versions of net/game.proto this client speaks: 1 .. 2. Its Hello
 * says version 1 (what a version-1 server accepts) and lists both; the
 * Welcome names the one the server chose. */
#define ENV_REMOTE_VERSION 2u

/* The kinds of op a Batch carries (its kind column's values). TEXT asks
 * for a seat's text at the env's state (only of a server whose spec has
 * ENV_F_TEXT). */
enum { ENV_REMOTE_RESET, ENV_REMOTE_STEP, ENV_REMOTE_CLOSE, ENV_REMOTE_TEXT };

/* One env on a game server: its id there and the last State it sent
 * (what env_observe, env_legal and env_returns read). Seat p's rows
 * start at p * spec.obs_len and p * spec.num_actions (the largest
 * seat's), and hold its own obs_len and num_actions entries. */
struct env_remote {
	struct rconn *c;
	uint64_t id;
	int player;      /* a seat, -1 over (or broken), -2 all (simultaneous) */
	double ret[ENV_MAX_PLAYERS];
	float *obs;      /* [players][obs_len]: the movers' rows are current */
	uint8_t *mask;   /* [players][num_actions] */
	/* The text of seat text_seat at the state of generation text_gen
	 * (gen counts the resets and steps sent), when text_have: one
	 * block, allocated at the first TEXT op. names[a] is "" for an
	 * action the server did not name. */
	uint64_t gen, text_gen;
	int text_seat, text_have;
	char *text;                          /* ENV_TEXT_MAX bytes */
	char (*names)[ENV_ACTION_NAME_MAX];  /* [spec.num_actions] */
};

/* Connect (or join this process's connection to the same server and
 * params), agree on the protocol version, check the Welcome against
 * `name` (NULL or "": any) and fill spec, every seat's too. Errors:
 * LG_ENOTFOUND (unreachable), LG_EINVAL (refused, wrong game, bad
 * address or spec), LG_ETIMEOUT, LG_ENOMEM; err says which in one line
 * naming the address. */
int env_remote_open(struct env_remote **out, const char *name,
		    const struct env_opts *o, struct env_spec *spec,
		    char *err, size_t errlen);
void env_remote_close(struct env_remote *r);
/* LG_EIO when the op failed (the env is then over and must be
 * recreated). Actions are checked against the mask by the caller; a
 * step of a simultaneous game carries one per seat. */
int env_remote_reset(struct env_remote *r, uint64_t seed);
int env_remote_step(struct env_remote *r, const int *actions, int n);
/* Seat's description of r's state (into buf, len bytes, truncated) and
 * the name of its action (the number when the server named none): one
 * TEXT op for each new state and seat, then from r's copy. LG_EUNSUPP
 * when the server has no text (spec without ENV_F_TEXT), LG_EIO when
 * the op failed (the env is then over, as for a failed step). */
int env_remote_describe(struct env_remote *r, int seat, char *buf,
			size_t len);
int env_remote_action_name(struct env_remote *r, int seat, int action,
			   char *buf, size_t len);
/* n envs in one batch per server: op i resets from seeds[i] where resets[i], else
 * steps with actions[i * nact ...]. */
int env_remote_advance_many(struct env_remote *const *rs, const int *resets,
			    const int *actions, int nact,
			    const uint64_t *seeds, size_t n, int *rcs);
/* The decoders behind them (for the fuzz harness): a Welcome into spec
 * (every seat's; ENV_F_TEXT when a version 2 server has text) and the
 * protocol version the server chose into *version, and a BatchReply of
 * that version for ops of kinds (0 reset, 1 step, 2 close, 3 text for
 * the seat seats[i]; seats may be NULL without text ops) with each op's
 * rc (0, or LG_EINVAL: the game failed it) into rcs. LG_EPROTO for what
 * breaks the protocol (LG_ENOMEM when a scratch mask cannot be had). */
int env_remote_decode_welcome(const uint8_t *buf, size_t len,
			      const char *want, struct env_spec *spec,
			      unsigned *version, char *err, size_t errlen);
int env_remote_decode_reply(const uint8_t *buf, size_t len,
			    const struct env_spec *spec, unsigned version,
			    const int *kinds, const int *seats, size_t n,
			    int *rcs, char *err, size_t errlen);
/* Check a BatchReply (net/game.proto, of the version agreed) to ops of
 * `kinds` (a text op's seat in seats[i]) on a game with spec sp; with
 * views, copy op i's state, or its text, into views[i] (whose text
 * block a text op needs). rcs[i] is 0, or LG_EINVAL for an op the server says failed
 * (logged with addr unless NULL). LG_EPROTO (err says why) for a reply
 * that breaks the protocol: then views may be half updated, and the
 * connection is done for. (envs/remote_codec.c, as the two decoders
 * above.) */
int env_remote_decode_batch(const uint8_t *buf, size_t len,
			    const struct env_spec *sp, unsigned version,
			    const int *kinds, const int *seats, size_t n,
			    struct env_remote *const *views, int *rcs,
			    const char *addr, char *err, size_t errlen);

/* `league env check` of a remote game (envs/conform_remote.c), as
 * env_conform, which hands it opts with a server address. */
int env_conform_remote(const char *name, const struct env_opts *opts,
		       uint64_t episodes, uint64_t seed, lg_buf *report,
		       char *err, size_t errlen);
/* A conformance check's failure: fmt into slot (len bytes) unless the
 * slot holds one already (the first failure of a check is reported). */
void env_conform_vfail(char *slot, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* FNV-1a of n bytes at p continued from h: the checks' episode hashes. */
uint64_t env_fnv_mix(uint64_t h, const void *p, size_t n);
/* The report's first lines: the game, its seats, payoff, teams and text
 * hooks; its state's bytes, or where it is served (remote, unless NULL
 * or ""). */
void env_conform_header(const struct env_spec *sp, size_t state_size,
			const char *remote, lg_buf *report);

/* A spec of seats alike (a version 1 game server's): each seat gets the
 * spec's obs_len, shape and num_actions, a team of its own and the role
 * "player". Does nothing when seat[0] is already filled. */
void env_spec_symmetric(struct env_spec *s);

/* 1 when s is a game's name: [a-z0-9_-]{1,ENV_NAME_MAX-1}; 0 for NULL. */
int env_name_ok(const char *s);

/* Open the game of opts (opts->plugin, else the built-in `name`) with
 * opts->params. Errors as env_new. Close with env_game_close. */
int env_game_open(struct env_game *gm, const char *name,
		  const struct env_opts *opts, char *err, size_t errlen);
void env_game_close(struct env_game *gm);

struct env {
	struct env_game gm;     /* gm.g NULL for a remote game */
	struct env_remote *rm;  /* a remote game's binding, else NULL */
	struct env_opts o;
	struct env_rng rng;
	uint64_t steps;
	int truncated;
	unsigned char *st; /* gm.state_size bytes: st_inline when they fit */
	uint8_t *scratch;  /* spec.num_actions bytes: a mask to check an
			      action against (mask_inline when they fit) */
	uint8_t mask_inline[ENV_MAX_ACTIONS];
	_Alignas(16) unsigned char st_inline[256];
};

/* Apply chance outcomes drawn from rng until a decision or the end. */
void env_resolve_chance(const struct env_game *gm, void *st,
			struct env_rng *rng);

/* Perfect-information board games, shared with the baselines. Cells hold
 * 0 (empty), 1 (player 0) or 2 (player 1). */
struct env_ttt_st {
	int8_t cell[9];
	int8_t cur, winner, moves; /* winner: -1 none yet / draw, else 0/1 */
};
#define ENV_C4_ROWS 6
#define ENV_C4_COLS 7
struct env_c4_st {
	int8_t cell[ENV_C4_ROWS * ENV_C4_COLS]; /* row-major, row 0 bottom */
	int8_t height[ENV_C4_COLS];
	int8_t cur, winner, moves;
};

/* ---- games-b: Othello (envs/othello.c) and its alpha-beta ------------- */

#define ENV_OTH_SIDE 8
#define ENV_OTH_PASS 64   /* the action after the 64 cells */
#define ENV_OTH_ACTIONS 65
/* Bit r * 8 + c of disc[p] is set where player p (0 black, 1 white) has
 * a disc on row r, column c. */
struct env_oth_st {
	uint64_t disc[2];
	int8_t cur, over; /* the player to move; 1 once neither can */
};
/* The cells where `own` may place against `opp` (one bit each). */
uint64_t env_oth_moves(uint64_t own, uint64_t opp);
/* The discs of opp that a disc of own placed on `cell` flips. */
uint64_t env_oth_flips(uint64_t own, uint64_t opp, int cell);

/* Format into buf[len] at offset k (describe()'s lines, truncated at
 * len - 1 and always NUL-terminated when len > 0); the new offset. */
size_t env_text_put(char *buf, size_t len, size_t k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A string -> int map with string keys copied in (open addressing). */
struct env_strmap {
	char **keys;
	int *vals;
	size_t cap, n;
};
int env_strmap_put(struct env_strmap *m, const char *key, int val);
/* Value or -1 when absent. */
int env_strmap_get(const struct env_strmap *m, const char *key);
void env_strmap_free(struct env_strmap *m);

#endif
