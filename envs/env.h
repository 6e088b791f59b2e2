/*
 * envs: games the league plays, and exact evaluators for the small ones.
 *
 * Shape:
 *   - A game is a table of functions behind an opaque `env` handle: create
 *     by name with options, reset with a seed, ask who moves, observe,
 *     legal-action mask, step, terminal test, returns, free. Chance events
 *     (card deals) are drawn inside reset/step from the env's own rng, so
 *     a given seed and action sequence always give the same episode.
 *     reset/step/observe/legal never allocate: the collector runs thousands.
 *   - A registry by name (env_count / env_info).
 *   - Exact evaluators for games with an infostate hook (kuhn, leduc,
 *     liars_dice, rps, matrix), 1 to 8 seats: a game tree is built once
 *     (env_tree) with every chance outcome enumerated; best response,
 *     NashConv and exploitability of any policy (env_policy callback), CFR
 *     and CFR+ solvers whose average policy is itself an env_policy, and
 *     a common-payoff game's optimum.
 *   - Baseline players (env_baseline): "random" for every game, "minimax"
 *     (perfect) for tictactoe, "alphabeta:N" for connect4.
 *
 * Games (docs/envs.md gives rules and encodings in full):
 *
 *   name       players obs  actions  encoding of env_observe(e, p, out)
 *   rps        2 simul   2     3     [1,0] for p=0, [0,1] for p=1
 *   matrix     2 simul   2   <=16    same; rows for p0, cols for p1
 *   kuhn       2        11     2     player one-hot(2), own card J,Q,K (3),
 *                                    3 betting slots x [pass,bet] (6)
 *              N      6N-1     2     (players: N) one-hot(N), card (N+1),
 *                                    2N-1 slots x [pass,bet]
 *   leduc      2        32     3     player one-hot(2), own rank (3),
 *                                    public rank (3, zero before dealt),
 *                                    2 rounds x 4 slots x [fold,call,raise]
 *              N    21N-10     3     (players: N) ranks N+1, 3N-2 slots
 *   tictactoe  2        27     9     planes own/opponent/empty x 9 cells
 *   connect4   2       126     7     planes own/opponent/empty x 42 cells
 *                                    (row-major, row 0 at the bottom)
 *   timing     2   obs_len     2     synthetic: obs[i] = step parity etc.
 *
 * "own"/"opponent" are from the view of the observing player p. Every
 * observation of kuhn/leduc/rps/matrix is a function of p's information
 * state only, so a network policy may use it directly.
 *
 * Thread safety: one env (tree, baseline, cfr) per thread; the registry
 * and env_tree are read-only after creation and may be shared.
 */
#ifndef LG_ENV_H
#define LG_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define ENV_MAX_PLAYERS 8 /* LEAGUE_GAME_PLAYERS_MAX: seats of a game */
/* Actions of a seat: a game may declare up to ENV_GAME_ACTIONS_MAX, and
 * the env functions here play them all, as do the collector and the
 * network (past 64 actions with legal lists and a gathered head:
 * util/rows.h, learner.h); the exact evaluators (env_tree), the
 * baselines' searches and the collector's search take games of at most
 * ENV_MAX_ACTIONS (and refuse bigger ones by name). */
#define ENV_MAX_ACTIONS 64
#define ENV_GAME_ACTIONS_MAX 65536 /* LEAGUE_GAME_ACTIONS_MAX */
#define ENV_ROLE_MAX 16 /* a role's name, with its NUL */
#define ENV_TEXT_MAX 4096 /* env_describe's text, with its NUL */
#define ENV_ACTION_NAME_MAX 64 /* env_action_name's, with its NUL */
#define ENV_MATRIX_MAX 16
#define ENV_MATRIX_VALUE_MAX 1e6 /* |payoff| of the matrix game */
#define ENV_NAME_MAX 32
/* Caps on what comes from outside (config, command line). */
#define ENV_TIMING_OBS_MAX (1u << 20)
#define ENV_TIMING_EPISODE_MAX 1000000000ull
#define ENV_TIMING_SECONDS_MAX 3600.0
#define ENV_TIMING_JITTER_MAX 100.0
#define ENV_C4_DEPTH_MAX 12
#define ENV_OTH_DEPTH_MAX 8 /* othello's alphabeta:N */
#define ENV_PLUGIN_MAX 256   /* path of a game plugin, with its NUL */
#define ENV_REMOTE_MAX 256   /* address of a game server, with its NUL */
#define ENV_REMOTE_TIMEOUT_DEFAULT 30.0 /* seconds per batch */
#define ENV_PARAMS_MAX 32    /* env.params entries */
#define ENV_PARAM_KEY_MAX 64
#define ENV_PARAM_VAL_MAX 256

/* env_current_player() values beside a player index. Far from the LG_E*
 * codes so that neither can be mistaken for the other. */
#define ENV_SIMULTANEOUS (-1000)
#define ENV_TERMINAL (-1001)

enum env_flags {
	ENV_F_SIMULTANEOUS = 1 << 0, /* every player acts at once (step_joint) */
	ENV_F_CHANCE = 1 << 1,       /* has chance events (resolved in-env) */
	ENV_F_ZERO_SUM = 1 << 2,     /* returns sum to 0 */
	ENV_F_TREE = 1 << 3,         /* env_tree_new supports it */
	ENV_F_SLOW = 1 << 4,         /* sleeps to simulate cost (timing) */
	ENV_F_ASYMMETRIC = 1 << 5,   /* seats differ in their spaces */
	ENV_F_TEXT = 1 << 6,         /* has describe and action_name */
};

/* What a finished episode's returns satisfy (league_game.h's payoff). */
enum env_payoff {
	ENV_ZERO_SUM = 0,      /* they sum to 0 */
	ENV_CONSTANT_SUM,      /* they sum to spec.payoff_sum */
	ENV_COMMON_PAYOFF,     /* all equal */
	ENV_GENERAL_SUM,       /* anything finite */
};

/* One seat: its spaces, team and role. */
struct env_seat {
	size_t obs_len;        /* floats env_observe writes for the seat */
	int num_actions;       /* bytes env_legal writes for the seat */
	uint32_t obs_rank;     /* 0: flat */
	uint32_t obs_shape[4]; /* product == obs_len when obs_rank > 0 */
	int team;              /* 0 .. spec.teams-1 */
	int role;              /* 0 .. spec.roles-1 */
};

/* A game's spec. obs_len, num_actions and the shape are seat 0's, and
 * obs_len and num_actions the largest of any seat (buffers of that size
 * fit every seat); seat[] has each seat's own. */
struct env_spec {
	char name[ENV_NAME_MAX];
	int players;      /* 1..ENV_MAX_PLAYERS */
	size_t obs_len;   /* the largest seat's observation */
	int num_actions;  /* the largest seat's action count */
	uint64_t max_steps; /* no episode is longer (after any override) */
	unsigned flags;   /* enum env_flags */
	uint32_t obs_rank;     /* seat 0's: 0 flat */
	uint32_t obs_shape[4]; /* seat 0's; product == its obs_len */
	int payoff;       /* enum env_payoff */
	double payoff_sum; /* ENV_CONSTANT_SUM's (else 0) */
	int teams;        /* 1..players (players when each seat is its own) */
	int roles;        /* 1..players */
	char role_name[ENV_MAX_PLAYERS][ENV_ROLE_MAX]; /* [roles] */
	struct env_seat seat[ENV_MAX_PLAYERS];         /* [players] */
};

/* env.params: strings handed to the game's create(), in order. */
struct env_params {
	uint32_t n;
	char key[ENV_PARAMS_MAX][ENV_PARAM_KEY_MAX];
	char val[ENV_PARAMS_MAX][ENV_PARAM_VAL_MAX];
};

/* What the YAML config may set. Zero it (or use env_opts_default) and set
 * what the game needs; other games ignore the rest. */
struct env_opts {
	uint64_t seed;      /* seed of the first episode (env_reset reseeds) */
	uint64_t max_steps; /* 0: the game's own limit; else truncate there */
	struct {
		uint32_t rows, cols; /* 0 x 0: unset (matrix then fails) */
		double v[ENV_MATRIX_MAX][ENV_MATRIX_MAX]; /* row player's payoff */
	} matrix;
	struct {
		uint64_t obs_len;     /* 1..ENV_TIMING_OBS_MAX */
		double reset_s, step_s, infer_s; /* nominal, 0..3600 */
		uint64_t episode_len; /* nominal steps, 1..1e9 */
		double jitter_lo, jitter_hi; /* multipliers, 0 <= lo <= hi <=
					      * ENV_TIMING_JITTER_MAX */
		int burn;             /* 1: resets and steps spend their time
					 as CPU time of the calling thread
					 (real work on real cores), not
					 asleep */
	} timing;
	/* A game plugin (league_game.h) to load instead of a built-in game;
	 * "" for none. */
	char plugin[ENV_PLUGIN_MAX];
	/* A game server (net/game.proto) to play instead: "HOST:PORT" or
	 * "unix:PATH"; "" for none. Its I/O deadline: remote_timeout_s. */
	char remote[ENV_REMOTE_MAX];
	double remote_timeout_s;
	struct env_params params;
};

/* Defaults: no matrix, timing = the seed table's small env (64 floats,
 * 0.1 s reset, 0.005 s step, 0.004 s inference, 500 steps, x[0.4, 1.6]). */
void env_opts_default(struct env_opts *o);

typedef struct env env;

/* ---- registry --------------------------------------------------------- */

/* Number of registered games. */
size_t env_count(void);
/* Spec of game i (0 <= i < env_count()) with default options, and a one
 * line summary (static storage). For matrix, num_actions is the cap
 * ENV_MATRIX_MAX. Returns LG_ERANGE for a bad index. */
int env_info(size_t i, struct env_spec *spec, const char **summary);

/* ---- lifecycle and play ----------------------------------------------- */

/* Create game `name` with options (NULL: defaults). With opts->plugin set
 * the game comes from that shared object (league_game.h; dlopen, ABI
 * version and sizes checked) and `name`, unless NULL or "", must be its
 * name. opts->params go to the game's create(); built-in games take none.
 * On error *out is NULL, err (may be NULL) says why in one line, and the
 * return is LG_ENOTFOUND (no such game, or the plugin cannot be loaded),
 * LG_EINVAL / LG_ERANGE (options, params or the plugin's sizes rejected,
 * wrong ABI version) or LG_ENOMEM. The env is reset with opts->seed. Free
 * with env_free. */
int env_new(env **out, const char *name, const struct env_opts *opts,
	    char *err, size_t errlen);
void env_free(env *e); /* NULL is fine */
/* Open and close the game as env_new would (plugin, ABI, sizes, params),
 * without playing: for config checks. spec (may be NULL) gets its spec. */
int env_check(const char *name, const struct env_opts *opts,
	      struct env_spec *spec, char *err, size_t errlen);

/* The spec (owned by e, valid until env_free). */
const struct env_spec *env_spec_of(const env *e);
/* Simulated inference seconds per batch for the timing game (jittered by
 * the caller); 0 for every other game. */
double env_infer_s(const env *e);

/* Start an episode: chance and jitter come from an rng seeded with seed.
 * The timing game sleeps here. Never allocates; fails (LG_EIO, the env
 * is then over) only for a remote game whose server failed. */
/*
 * The call into a game's code (a built-in game or a plugin's) the calling
 * thread is making now: fn ("root", "player", "legal", "observe",
 * "apply", "returns"), the game's name, the player it is for (-1: none)
 * and the env's step in its episode. fn is NULL outside of one. Thread-
 * local, for a fatal signal handler to name the game's fault; the pointer
 * is the thread's own and stays valid.
 */
struct env_call {
	const char *volatile fn;
	const char *game;
	int player;
	uint64_t step;
};
const struct env_call *env_current_call(void);
int env_reset(env *e, uint64_t seed);

/* A player index, ENV_SIMULTANEOUS (call env_step_joint) or ENV_TERMINAL. */
int env_current_player(const env *e);
int env_is_terminal(const env *e);

/* Observation of `player` into out[spec.seat[player].obs_len] (encoding
 * above). Legal at any state, also terminal. LG_EINVAL for a bad player. */
int env_observe(const env *e, int player, float *out);
/* out[spec.seat[player].num_actions]: 1 where `player` may act now, else
 * 0 (all zero when it is not that player's turn or the episode is over).
 * Returns the number of legal actions, or LG_EINVAL for a bad player. */
int env_legal(const env *e, int player, uint8_t *out);

/* The state as `player` sees it, as text for a human (lines separated
 * by '\n', NUL-terminated, truncated to len): the game's describe(), or
 * a remote game's (its server's TEXT op, net/game.proto).
 * LG_EUNSUPP when the game has none (spec flag ENV_F_TEXT unset);
 * LG_EINVAL for a bad player; a remote game's LG_EIO when its server
 * failed the op (the episode is then over, as after a failed step). */
int env_describe(const env *e, int player, char *buf, size_t len);
/* The name of `player`'s action at the current state ("bet", "c3"):
 * the game's action_name(), or the action's number when it has none (a
 * remote game: when its server named none, e.g. an action not legal
 * now). LG_EINVAL for a bad player or an action out of the seat's
 * range; a remote game's errors as env_describe. */
int env_action_name(const env *e, int player, int action, char *buf,
		    size_t len);
/* The action of `player` whose name (env_action_name) or decimal number
 * is `text`, legal now. LG_ENOTFOUND when none is. */
int env_action_parse(const env *e, int player, const char *text,
		     int *action);
/* The name of a payoff type ("zero-sum", "constant-sum",
 * "common-payoff", "general-sum"), "?" for another value. */
const char *env_payoff_name(int payoff);

/* Sequential games: the current player takes `action`. LG_EINVAL if the
 * action is illegal, the game is simultaneous or over (state unchanged). */
int env_step(env *e, int action);
/* Simultaneous games: actions[p] for every player. Same errors. */
int env_step_joint(env *e, const int *actions);

/* Advance n envs of one game at once: an env whose episode is over
 * resets from seeds[i], any other steps with actions[i * players + p]
 * (a sequential game reads each env's mover's action at p = 0). rcs[i]
 * as env_reset's or env_step's. Envs on one game server go to it as one
 * batch, so one thread drives many remote envs for one round trip; in-
 * process envs just advance. LG_ENOMEM, else 0 (look at rcs). */
int env_advance_many(env *const *es, const int *actions,
		     const uint64_t *seeds, size_t n, int *rcs);

/* Steps taken this episode (a joint step counts once). */
uint64_t env_steps(const env *e);
/* out[players]: returns of the episode so far (final once terminal). An
 * episode cut by max_steps ends as a draw: returns 0 for all, or for a
 * constant-sum game payoff_sum / players each. */
void env_returns(const env *e, double *out);

/* Batches sent to game servers (env.remote) by this process, and the ops
 * they carried: ops / batches is the batching factor. */
void env_remote_counters(uint64_t *batches, uint64_t *ops);

/* The conformance suite of `league env check` (envs/conform.c says what
 * each check asks) over `episodes` random episodes from `seed`: a line
 * per check appended to report. Returns the number of failed checks, or a
 * negative LG_E* when the game does not open (err says why). */
int env_conform(const char *name, const struct env_opts *opts,
		uint64_t episodes, uint64_t seed, lg_buf *report, char *err,
		size_t errlen);

/* ---- policies --------------------------------------------------------- */

/* A policy for the evaluators: fill probs[num_actions] for `player` at an
 * information state, given as its key string (docs/envs.md), its
 * observation (env_observe encoding, spec.obs_len floats) and legal mask
 * (num_actions bytes). probs must be >= 0,
 * zero on illegal actions and sum to 1 (checked to 1e-6; the evaluator
 * fails with LG_EINVAL otherwise). Return 0 or a negative LG_E* code,
 * which aborts the evaluation. A network policy plugs in here: it reads
 * obs and mask; tabular ones read the key. err/errlen may carry detail. */
typedef int (*env_policy_fn)(void *ctx, int player, const char *infostate,
			     const float *obs, const uint8_t *mask,
			     int num_actions, double *probs, char *err,
			     size_t errlen);

/* A policy with memory (a recurrent net) is asked instead with the
 * player's observations at each of its own decisions so far, oldest
 * first, the current one last: obs[k * obs_len ..] for k < nobs. The
 * exact evaluators give them from the tree, which needs perfect recall
 * (each infostate of a player has one previous infostate of the same
 * player, or none); a game without it fails the evaluation. */
typedef int (*env_policy_seq_fn)(void *ctx, int player,
				 const char *infostate, const float *obs,
				 size_t nobs, const uint8_t *mask,
				 int num_actions, double *probs, char *err,
				 size_t errlen);

struct env_policy {
	env_policy_fn fn;
	void *ctx;
	env_policy_seq_fn seq; /* NULL: fn; else used in its place */
};

/* Uniform over legal actions. */
struct env_policy env_policy_uniform(void);

/* Tabular policy: a text file, one line per information state:
 *     INFOSTATE P0 P1 ... P(num_actions-1)
 * separated by blanks; '#' starts a comment line; blank lines are
 * skipped. Probabilities are over all actions (illegal ones 0), >= 0, and
 * sum to 1 within 1e-6 (then they are renormalised). Lines are at most
 * 4096 bytes, at most 1e6 entries, no duplicates. A state missing from the
 * table makes the evaluation fail naming it. */
typedef struct env_tabular env_tabular;

/* Load for a game with num_actions actions. Errors: LG_EIO (cannot read),
 * LG_EINVAL (malformed; err names file:line), LG_EFULL, LG_ENOMEM. */
int env_tabular_load(env_tabular **out, const char *path, int num_actions,
		     char *err, size_t errlen);
void env_tabular_free(env_tabular *t);
/* A policy view of t (valid while t lives). */
struct env_policy env_tabular_policy(env_tabular *t);

/* ---- exact evaluation (kuhn, leduc, rps, matrix) ----------------------- */

typedef struct env_tree env_tree;

/* Build the full game tree of e's game (e's options and params). 1 to
 * ENV_MAX_PLAYERS seats, at most ENV_MAX_ACTIONS actions a seat. Errors
 * (err says which): LG_EUNSUPP (no infostate hook, ENV_F_TREE unset, a
 * remote game, more actions), LG_EFULL (over 2^24 nodes), LG_ENOMEM. */
int env_tree_new(env_tree **out, const env *e, char *err, size_t errlen);
void env_tree_free(env_tree *t);
/* Number of nodes and information states (for reports and tests). */
size_t env_tree_nodes(const env_tree *t);
size_t env_tree_infostates(const env_tree *t);

/* [0, players) filled; any payoff type (general-sum too). */
struct env_nashconv {
	int players;
	double value[ENV_MAX_PLAYERS];    /* expected return of the profile */
	double br_value[ENV_MAX_PLAYERS]; /* best response to the others */
	double nashconv;       /* sum_p br_value[p] - value[p] */
	double exploitability; /* nashconv / players */
};

/* Evaluate a policy profile (the same policy for every player; it is told
 * who acts). Calls pol once per information state. Errors: LG_EUNSUPP
 * when a seat lacks perfect recall (err names the infostate: an exact
 * best response needs one past per infostate), the policy's own code,
 * LG_EINVAL for a malformed distribution, LG_ENOMEM. */
int env_tree_nashconv(const env_tree *t, const struct env_policy *pol,
		      struct env_nashconv *out, char *err, size_t errlen);

/*
 * The optimum of a common-payoff game (every terminal pays every seat the
 * same; env.h's ENV_COMMON_PAYOFF, or one seat): the best expected return
 * of any joint policy, which a deterministic one attains. Exact: one
 * seat with perfect recall best-responds to each deterministic policy of
 * the others, enumerated at the infostates their earlier choices reach
 * (envs/optimum.c); LG_EFULL (err says how far it got) when that passes
 * 2^31 node visits. The gap of a policy is value - its value[0]
 * (env_tree_nashconv). *policy (may be NULL) gets the best joint policy
 * (free with env_tabular_free). LG_EUNSUPP (err names a terminal) when
 * the returns are not common, or when no seat has perfect recall (then
 * no seat's best response is exact and a mixed joint policy can beat
 * every deterministic one, so there is no exact answer here); LG_ENOMEM.
 */
struct env_optimum {
	double value;      /* every seat's expected return under the best */
	uint64_t policies; /* joint policies of the other seats enumerated */
	int responder;     /* the seat best-responding to each */
};
int env_tree_optimum(const env_tree *t, struct env_optimum *out,
		     env_tabular **policy, char *err, size_t errlen);

/* Write pol as a tabular policy file text (the format above) to out. */
int env_tree_dump_policy(const env_tree *t, const struct env_policy *pol,
			 lg_buf *out, char *err, size_t errlen);

/*
 * The league's mixture of k policies as ONE behaviour policy (Kuhn's
 * theorem): at an information state I of player p,
 *     mix(a|I) = sum_j w_j r_j(I) pol_j(a|I) / sum_j w_j r_j(I),
 * with r_j(I) player p's own reach probability of I under pol_j; where
 * every r_j(I) is 0 it is the w-weighted average sum_j w_j pol_j(a|I) /
 * sum_j w_j. Playing mix is then the same as drawing j with probability
 * w_j / sum(w) once per episode and playing pol_j throughout. Each policy
 * with w_j > 0 is asked once per infostate (zero weights are skipped).
 * *out is a tabular policy over every infostate of t (free with
 * env_tabular_free; view it with env_tabular_policy). Errors: LG_EINVAL (k
 * outside 1..ENV_MIX_MAX, a weight negative or not finite, weights summing
 * to 0, a policy's malformed distribution), the policies' own codes,
 * LG_ENOMEM; err says which.
 */
#define ENV_MIX_MAX 4096
int env_tree_mixture(const env_tree *t, const struct env_policy *pols,
		     const double *w, size_t k, env_tabular **out, char *err,
		     size_t errlen);

/*
 * Exact expected return of player 0 for every ordered pair of k policies:
 * out[i * k + j] (k x k, caller's) is the value to player 0 when pols[i]
 * plays seat 0 and pols[j] seat 1 (zero-sum games: player 1 gets the
 * negative). Each policy is asked once per infostate; then one traversal
 * per pair. For a meta-game over snapshots (PSRO). Two-seat games only:
 * LG_EUNSUPP (err says so) for any other number of seats, whose seats
 * would need a policy each. Other errors as env_tree_mixture.
 */
int env_tree_cross_values(const env_tree *t, const struct env_policy *pols,
			  size_t k, double *out, char *err, size_t errlen);

/* CFR+ (regret matching+, alternating updates in seat order, linear
 * averaging) and vanilla CFR (regret matching, alternating updates,
 * uniform averaging), for any number of seats and any returns. With two
 * zero-sum seats the average goes to a Nash equilibrium; with more, or
 * general-sum returns, it need not (envs/solvers.c). */
typedef struct env_cfr env_cfr;
enum { ENV_CFR_PLUS, ENV_CFR_VANILLA };

/* The tree must outlive the solver. env_cfr_new is CFR+; _kind takes
 * ENV_CFR_PLUS or ENV_CFR_VANILLA (LG_EINVAL for another). LG_ENOMEM. */
int env_cfr_new(env_cfr **out, const env_tree *t);
int env_cfr_new_kind(env_cfr **out, const env_tree *t, int kind);
void env_cfr_free(env_cfr *c);
/* Run iters more iterations. */
void env_cfr_run(env_cfr *c, uint64_t iters);
uint64_t env_cfr_iterations(const env_cfr *c);
/* The average policy so far (valid while c lives, changes as c runs). */
struct env_policy env_cfr_average(env_cfr *c);

/* Magnetic mirror descent with the uniform magnet (temperature alpha, in
 * return units; step eta), both players at once on exact values: its last
 * iterate goes to the logit quantal-response equilibrium of temperature
 * alpha, pi(.|I) = softmax(q(I, .) / alpha), q(I, a) the value of a at I
 * under chance x opponent reach. The reference for what an entropy bonus
 * of that temperature costs in NashConv. Small eta converges; a large one
 * cycles. LG_EINVAL unless alpha and eta are finite and > 0. */
typedef struct env_mmd env_mmd;
int env_mmd_new(env_mmd **out, const env_tree *t, double alpha, double eta);
void env_mmd_free(env_mmd *m);
/* Run iters more iterations (and measure the residual of the result). */
void env_mmd_run(env_mmd *m, uint64_t iters);
uint64_t env_mmd_iterations(const env_mmd *m);
/* max over infosets and actions of |pi - softmax(q / alpha)|: 0 at the
 * QRE. */
double env_mmd_residual(const env_mmd *m);
/* The current policy (valid while m lives, changes as m runs). */
struct env_policy env_mmd_policy(env_mmd *m);
/* The average of the iterates from iteration `iteration` on (0, the
 * default: all) up to the one before the current (the policies the
 * updates were computed from), each weighted by its player's own reach (the sequence-
 * form average, as drawing one iterate per episode). Set before running
 * past it. A cycling last iterate can have a good average. */
void env_mmd_average_from(env_mmd *m, uint64_t iteration);
struct env_policy env_mmd_average(env_mmd *m);
/* Optimism c >= 0 (0, the default: plain): each step uses q + c (q -
 * q_prev), q_prev the values of the iteration before (optimistic mirror
 * descent; the first step is plain). A step that cycles plainly can
 * converge optimistically. LG_EINVAL unless c is finite and >= 0. */
int env_mmd_set_optimism(env_mmd *m, double c);
/* The learner's moving magnet (learner.magnet_coef, magnet_every): a
 * second regulariser beta KL(pi || rho), rho a copy of the policy taken
 * now and every `every` iterations; each step is then
 *     pi' ~ exp((log pi + eta (q + beta log rho)) / (1 + (alpha + beta) eta)),
 * whose fixed point for a fixed rho is softmax((q + beta log rho) /
 * (alpha + beta)). Refreshed only once that is reached, it is the
 * proximal point method (R-NaD's outer loop): the fixed points walk to
 * the QRE of temperature alpha without cycling. beta 0: off. LG_EINVAL
 * unless beta is finite and >= 0 with every >= 1. */
int env_mmd_set_magnet(env_mmd *m, double beta, uint64_t every);
/* Sampled steps: each iteration's q comes from `episodes` episodes of
 * the current policy against itself (chance as the tree has it, drawn
 * from seed) instead of the tree: what a learner's sampling noise costs
 * the same dynamics. An infoset no episode visits keeps its policy. The
 * estimators of q(I, a) from the visits of I (pi = pi(a|I), a the action
 * taken, G its return):
 *   ENV_MMD_OUTCOME  b + 1[a] (G - b) / pi, b the batch's mean return
 *                    at I (a policy gradient with a baseline per
 *                    information state)
 *   ENV_MMD_HISTORY  V(h) + 1[a] (G - V(h)) / pi, V the exact value of
 *                    the history h (a perfect critic that sees the
 *                    opponent's cards, as AlphaStar's does)
 *   ENV_MMD_ALLQ     Q(h, a') of every action a' (that critic's
 *                    all-actions form)
 * averaged over I's visits, then clipped to [-clip, clip] (0: not). Every
 * visited infoset steps with eta (reach 0), or with eta min(1, reach x
 * visits / the most visits of any infoset): a policy gradient's step,
 * which grows with how often the batch visits the state (reach 1: in
 * proportion). LG_EINVAL for another estimator, clip or reach negative,
 * reach not finite; LG_EUNSUPP for a tree with more than 256 decisions on
 * one path. */
enum { ENV_MMD_OUTCOME, ENV_MMD_HISTORY, ENV_MMD_ALLQ };
struct env_mmd_sampling {
	uint64_t episodes; /* per iteration; 0: exact q (the default) */
	int estimator;
	double clip, reach;
	uint64_t seed;
};
int env_mmd_set_sampling(env_mmd *m, const struct env_mmd_sampling *smp);

/* Smooth fictitious play (the tabular reference for fictitious self-play,
 * a league whose learner plays a drawn snapshot of itself): in iteration
 * t each player's logit best response of temperature tau (0: the exact
 * best response) to the other's average policy, by backward induction
 * over the player's infosets, joins the average with weight 1 (linear 0)
 * or t (linear 1), weighted by its own reach (the sequence-form average,
 * as drawing one iterate per episode); the uniform policy is iteration 0,
 * weight 1. Its average converges to equilibrium in two-player zero-sum
 * games (to the logit QRE's neighbourhood with tau > 0), slowly: the
 * number of iterations is the question it answers. LG_EINVAL unless tau
 * is finite and >= 0; LG_EUNSUPP for a game without perfect recall. */
typedef struct env_fp env_fp;
int env_fp_new(env_fp **out, const env_tree *t, double tau, int linear);
void env_fp_free(env_fp *f);
void env_fp_run(env_fp *f, uint64_t iters);
uint64_t env_fp_iterations(const env_fp *f);
/* The average policy (valid while f lives, changes as f runs). */
struct env_policy env_fp_average(env_fp *f);
/* The last iteration's responses, each player's to the other's average
 * before it (the uniform policy before any iteration). */
struct env_policy env_fp_response(env_fp *f);

/* ---- baseline players ------------------------------------------------- */

typedef struct env_baseline env_baseline;

/* spec: "random" (any game), "minimax" (tictactoe: perfect play, ties
 * among equally good moves broken by the rng), "alphabeta:N" (connect4,
 * depth 1..ENV_C4_DEPTH_MAX, and othello, 1..ENV_OTH_DEPTH_MAX;
 * "alphabeta" alone is depth 4). The baseline
 * is tied to game `e`'s name but not to the env object. Errors:
 * LG_EINVAL (bad spec or wrong game), LG_ENOMEM. */
int env_baseline_new(env_baseline **out, const char *spec, const env *e,
		     char *err, size_t errlen);
/* The same spec checked against game `game` (a registry name) without an
 * env, with the same errors: the one parser of the syntax, for configs.
 * canon gets the canonical spec ("alphabeta" and "alphabeta:04" become
 * "alphabeta:4"), at most ENV_BASELINE_CANON_MAX bytes with its NUL
 * (truncated to canonlen). */
#define ENV_BASELINE_CANON_MAX 16
int env_baseline_check(const char *spec, const char *game, char *canon,
		       size_t canonlen, char *err, size_t errlen);
void env_baseline_free(env_baseline *b);
/* Choose an action for `player` in e's current state (for sequential
 * games player must be the current player). LG_EINVAL if it cannot act. */
int env_baseline_act(env_baseline *b, const env *e, int player, lg_rng *rng,
		     int *action);
/* The baseline's value of e's (non-terminal) state for the player to move:
 * exact game value for minimax (+1 win, 0 draw, -1 loss), the depth-N
 * search score for alphabeta. LG_EUNSUPP for random, LG_EINVAL if e is
 * over or another game. */
int env_baseline_value(env_baseline *b, const env *e, double *value);

/* ---- search: PUCT MCTS with an evaluator (envs/mcts.c) ----------------- */

typedef struct env_mcts env_mcts;

#define ENV_MCTS_SIMS_MAX 100000u
#define ENV_MCTS_ALPHA_MAX 100.0

/* The evaluator of n states new to the tree (n in [1, batch], the
 * search's option): for state i, from the mover's observation obs[i *
 * obs_len ...] and legal mask mask[i * num_actions ...] (states[i]: the
 * game's state bytes, for evaluators that read them),
 * prior[i * num_actions ...] (any non-negative weights; illegal and
 * non-finite entries count as 0, all 0 as uniform) and value[i], the
 * expected return of the player to move. Nonzero: the search fails with
 * that code. */
typedef int (*env_mcts_eval_fn)(void *ctx, size_t n, const float *obs,
				const uint8_t *mask,
				const void *const *states, float *prior,
				float *value);

#define ENV_MCTS_BATCH_MAX 64u

struct env_mcts_opts {
	uint32_t sims;  /* simulations per move, 1..ENV_MCTS_SIMS_MAX */
	double c_puct;  /* exploration weight, (0, 100]; 1.5 is usual */
	/* Root noise: the root's prior becomes (1 - noise_frac) p +
	 * noise_frac eta, eta ~ Dirichlet(dirichlet_alpha) over the legal
	 * actions, drawn at every search from the caller's generator.
	 * noise_frac in [0, 1] (0: none), dirichlet_alpha in
	 * (0, ENV_MCTS_ALPHA_MAX] when noise_frac > 0. */
	double dirichlet_alpha, noise_frac;
	/* Leaves per evaluator call, 0 or 1..ENV_MCTS_BATCH_MAX (0 and 1:
	 * one, the sequential search). With batch > 1 a round walks from
	 * the root until batch new leaves wait, then evaluates them in one
	 * call; each pending visit counts on its path as a visit of value 0
	 * (a virtual draw), so the next walk of the round tends elsewhere;
	 * a walk that meets a leaf still pending ends the round early. A
	 * network's batched forward costs less a state than batch-1 ones,
	 * and the search sees a little less of what it learns within a
	 * round (envs/mcts.c). */
	uint32_t batch;
};

/* A search for env e's game (sequential, no chance, not remote:
 * LG_EUNSUPP otherwise, err says why; LG_EINVAL for bad options), bound
 * to e: it searches from e's state at each call. Memory for sims + 1
 * nodes is allocated here, none per move. */
int env_mcts_new(env_mcts **out, const env *e, const struct env_mcts_opts *o,
		 env_mcts_eval_fn eval, void *ctx, char *err, size_t errlen);
void env_mcts_free(env_mcts *m); /* NULL is fine */
/* Search from e's current state (not over) with o.sims simulations:
 * visits[num_actions] gets the root's visit counts (they sum to o.sims;
 * 0 on illegal actions), prior[num_actions] the evaluator's prior at the
 * root normalised over the legal actions, before any noise (0 on illegal
 * ones), *value the evaluator's value of the root for the player to
 * move; each may be NULL. rng draws the root noise (needed with
 * noise_frac > 0, else unused). Errors: LG_EINVAL (e over, not the env
 * given to env_mcts_new, noise without rng), the evaluator's. */
int env_mcts_search(env_mcts *m, const env *e, lg_rng *rng,
		    uint32_t *visits, float *prior, float *value);
/* Search from e's current state (not over) with o.sims simulations and
 * set *action to the most visited root action (rng NULL: deterministic,
 * the same state and evaluator give the same move) or to a sample in
 * proportion to the root's visits (from rng); visits[num_actions] (may be
 * NULL) gets the root's visit counts. With noise rng also draws it
 * (then it must not be NULL). Errors: as env_mcts_search's. */
int env_mcts_act(env_mcts *m, const env *e, lg_rng *rng, int *action,
		 uint32_t *visits);
/* The last search's value of its root for the root's mover: the mean of
 * the evaluator's value of the root and every simulation's backed-up
 * value (a terminal's outcome or a leaf's evaluation), sims + 1 values in
 * all, in [-1, 1] when the evaluator's are. What the search believes the
 * position is worth, where env_mcts_search's *value is what the evaluator
 * alone said. NAN before any search and after one that failed. */
double env_mcts_root_value(const env_mcts *m);

#endif
