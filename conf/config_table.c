/*
 * conf/config_table.c: the key table, the one place each key's name,
 * type, bounds (the modules' own caps), default and documentation are
 * written (config.h has the shape; config.c parses and checks against it,
 * config_emit.c prints it).
 */
#include "conf/config_internal.h"

#include <string.h>

#include "conf/options.h"
#include "players/players.h"

/* ---- the table -------------------------------------------------------- */

static const char *const act_names[] = { "relu", "tanh", NULL };
static const char *const sched_names[] = { "constant", "linear", NULL };
static const char *const weight_names[] = { "squared", "variance", "linear",
					    "linear_capped", NULL };
static const char *const mode_names[] = { "serial", "sync", "async", NULL };
static const char *const prior_names[] = { "half", "beta", NULL };
static const char *const measure_names[] = { "auto", "win", "return", NULL };
static const char *const teammates_names[] = { "self", "league", NULL };
static const char *const league_mode_names[] = { "league", "psro", NULL };
/* the order of enum payoff_meta_solver */
static const char *const solver_names[] = { "nash", "uniform", "alpha_rank",
					    "prd", NULL };
static const char *const prune_names[] = { "fifo", "nash", NULL };
/* the order of enum cfg_search_value */
static const char *const search_value_names[] = { "net", "search", NULL };

const char *const cfg_model_shorthand[] = {
	"model.hidden", "model.activation", "model.conv",
	"model.conv_kernel", "model.conv_stride", "model.conv_padding", NULL
};

/* Caps in doc text, so the prose follows the number. */
#define STR_(x) #x
#define XSTR(x) STR_(x)

#define OFF(f) offsetof(struct cfg, f)
#define U64(p, f, lo, hi, d, doc) \
	{ p, CFG_T_U64, OFF(f), lo, hi, d, NULL, doc, 0 }
#define DBL(p, f, lo, hi, d, doc) \
	{ p, CFG_T_DOUBLE, OFF(f), lo, hi, d, NULL, doc, 0 }
#define BOOL(p, f, d, doc) { p, CFG_T_BOOL, OFF(f), 0, 1, d, NULL, doc, 0 }
#define STR(p, f, lo, d, doc) \
	{ p, CFG_T_STR, OFF(f), lo, CFG_STR_MAX - 1, d, NULL, doc, 0 }
#define ENUM(p, f, names, d, doc) \
	{ p, CFG_T_ENUM, OFF(f), 0, 0, d, names, doc, 0 }
/* A number with an excluded bound (CFG_F_LO_OPEN, CFG_F_HI_OPEN). */
#define DBLX(p, f, lo, hi, fl, d, doc) \
	{ p, CFG_T_DOUBLE, OFF(f), lo, hi, d, NULL, doc, fl }

#define BIG 1e15 /* exact in a double; plenty for counters */

static const struct cfg_key table[] = {
	STR("league.name", league.name, 1, "league",
	    "Name shown in status pages and logs."),
	STR("league.dir", league.dir, 1, "runs/league",
	    "League directory: the LMDB environment and logs live here."),
	U64("league.seed", league.seed, 0, BIG, "1",
	    "Seed of every random choice the league makes (matchmaking, "
	    "initialisation, environments)."),
	ENUM("league.mode", league.mode, league_mode_names, "league",
	     "`league`: the roles' rules (players.*, roles.*). `psro`: "
	     "policy-space response oracles: every self-play player is a "
	     "best responder to the meta-strategy (psro.solver) over the "
	     "league's snapshots, whose empirical game cross-play jobs "
	     "complete; an iteration ends when the responder stops "
	     "improving (psro.*), and it joins the population as a "
	     "snapshot. Needs only self-play players."),
	BOOL("league.deterministic", league.deterministic, "false",
	     "Run so that the same config gives the same bits: one job in "
	     "flight, each played on a fresh env engine seeded by the job, "
	     "the learners' state (rows in their batch included) kept at "
	     "every job's end, and a job's result counted only once its rows "
	     "are kept. A run killed at any point and resumed ends with the "
	     "parameters and payoff of one never stopped. Needs one collector "
	     "with one env, a budget in jobs and no wall-clock budget; "
	     "learner.push_every is not used (a version is pushed at the end "
	     "of every job that updated the network). docs/architecture.md, "
	     "\"Deterministic mode\"."),

	STR("env.name", env.name, 1, "rps",
	    "Game to play; `league env list` names them. With env.plugin it "
	    "may be left out (it is then the plugin's game) or must name "
	    "the plugin's game."),
	STR("env.plugin", env.plugin, 0, "",
	    "Shared object of a game written to the ABI of envs/league_game.h "
	    "(docs/games.md), loaded instead of a built-in game. A relative "
	    "path is taken from the config file's directory; it is checked, "
	    "and made absolute, when the config is loaded."),
	STR("env.remote", env.remote, 0, "",
	    "Address of a game server (net/game.proto; python/league_game "
	    "serves a Python class), as HOST:PORT or unix:PATH: the game is "
	    "played there instead of in league. Without env.serve the "
	    "server must be up when the config is loaded (it is asked for "
	    "the game's spec, and env.name, if set, must be its game)."),
	STR("env.serve", env.serve, 0, "",
	    "Command (run by /bin/sh in the config file's directory) that "
	    "`league run` starts, with LEAGUE_GAME_ADDRESS set to "
	    "env.remote, to serve the game; restarted with backoff when it "
	    "dies. Needs env.remote and env.name. On many machines, start "
	    "the servers apart and leave it empty."),
	DBL("env.remote_timeout", env.remote_timeout, 0.1, 3600, "30",
	    "Seconds a game server may take to answer one batch before its "
	    "connection counts as failed (its envs' episodes are dropped "
	    "and the envs reconnect)."),
	{ "env.params", CFG_T_PARAMS, OFF(env.params), 0, ENV_PARAM_VAL_MAX - 1,
	  "{}", NULL,
	  "Options of the game, a mapping of names to values (strings), "
	  "handed to the plugin's create() as written. At most "
	  XSTR(ENV_PARAMS_MAX) " entries. Of the built-in games "
	  "liars_dice takes one (faces) and sheriff six (max_items, "
	  "max_bribe, num_rounds, item_value, item_penalty, "
	  "sheriff_penalty; docs/envs.md).", 0 },
	U64("env.max_steps", env.max_steps, 0, 1e9, "0",
	    "Cap on steps per episode; 0 keeps the game's own limit."),
	{ "env.matrix", CFG_T_MATRIX, OFF(env.matrix), -ENV_MATRIX_VALUE_MAX,
	  ENV_MATRIX_VALUE_MAX, "[]", NULL,
	  "Payoff of the row player for the `matrix` game, as a list of rows "
	  "(zero-sum: the column player gets the negation). At most "
	  XSTR(ENV_MATRIX_MAX) "x" XSTR(ENV_MATRIX_MAX) ".", 0 },
	U64("env.timing.obs_len", env.timing.obs_len, 1, ENV_TIMING_OBS_MAX,
	    "64", "`timing` game: observation length."),
	DBL("env.timing.reset_s", env.timing.reset_s, 0,
	    ENV_TIMING_SECONDS_MAX, "0.1",
	    "`timing` game: nominal reset time in seconds."),
	DBL("env.timing.step_s", env.timing.step_s, 0, ENV_TIMING_SECONDS_MAX,
	    "0.005", "`timing` game: nominal step time in seconds."),
	DBL("env.timing.infer_s", env.timing.infer_s, 0,
	    ENV_TIMING_SECONDS_MAX, "0.004",
	    "`timing` game: simulated inference time per batch in seconds."),
	U64("env.timing.episode_len", env.timing.episode_len, 1,
	    ENV_TIMING_EPISODE_MAX, "500",
	    "`timing` game: nominal episode length in steps."),
	/* lo <= 1 <= hi, so the game's jitter_lo <= jitter_hi always holds. */
	DBL("env.timing.jitter_lo", env.timing.jitter_lo, 0, 1, "0.4",
	    "`timing` game: lowest multiplier of every nominal time and length."),
	DBL("env.timing.jitter_hi", env.timing.jitter_hi, 1,
	    ENV_TIMING_JITTER_MAX, "1.6",
	    "`timing` game: highest multiplier of every nominal time and length."),
	U64("env.connect4_depth", env.connect4_depth, 1, ENV_C4_DEPTH_MAX, "2",
	    "Search depth of the Connect Four alpha-beta baseline."),

	{ "model.hidden", CFG_T_U32_LIST, OFF(model.hidden), 1, NN_MAX_WIDTH,
	  "[64, 64]", NULL,
	  "Hidden layer widths of the shared MLP torso (at most "
	  XSTR(NN_MAX_LAYERS) " layers; [] for a linear policy).", 0 },
	ENUM("model.activation", model.activation, act_names, "tanh",
	     "Hidden activation."),
	{ "model.conv", CFG_T_U32_LIST, OFF(model.conv), 1, NN_MAX_WIDTH, "[]",
	  NULL,
	  "Channels of each convolution layer of a torso before the hidden "
	  "layers (at most " XSTR(NN_MAX_CONV) "; [] for none). The "
	  "observation is read as the game's planes (channels x rows x "
	  "columns: tictactoe 3 x 3 x 3, connect4 3 x 6 x 7); a game with "
	  "flat observations is refused. Each layer is followed by "
	  "model.activation.", 0 },
	U64("model.conv_kernel", model.conv_kernel, 1, 15, "3",
	    "Kernel size (square) of every convolution."),
	U64("model.conv_stride", model.conv_stride, 1, 8, "1",
	    "Stride of every convolution."),
	U64("model.conv_padding", model.conv_padding, 0, 8, "1",
	    "Zero padding on each side of every convolution (1 with kernel 3 "
	    "keeps the planes' size)."),

	{ "model.layers", CFG_T_LAYERS, OFF(model.layers), 1, NN_MAX_WIDTH,
	  "[]", NULL,
	  "The network as a list of layers, in order (`model:` may also be "
	  "the list itself): `conv2d: {channels: C, kernel: 3, stride: 1, "
	  "padding: 1}` (or `conv2d: C`), `residual: {channels: C, kernel: "
	  "3, activation: relu}` (two convolutions and a skip), `flatten`, "
	  "`dense: N`, and `relu` or `tanh` after a conv2d or dense layer "
	  "(without one a layer is linear), and `gru: H`, a recurrent core "
	  "whose state the collector carries through each episode. "
	  "Convolutions come first, then `flatten`, then dense layers, then "
	  "the core if any; the fused policy-value head follows. When set, "
	  "it replaces model.hidden, model.activation and model.conv*.",
	  0 },

	DBL("learner.lr", learner.lr, 0, 1, "0.0003", "Adam learning rate."),
	ENUM("learner.lr_schedule", learner.lr_schedule, sched_names,
	     "constant", "Learning-rate schedule: linear goes from "
	     "learner.lr to lr * lr_final_frac over budget.seconds of league "
	     "time (resumes included; it needs a seconds budget)."),
	DBL("learner.lr_final_frac", learner.lr_final_frac, 0, 1, "0.1",
	    "With the linear schedule: final rate as a fraction of lr."),
	DBL("learner.gamma", learner.gamma, 0, 1, "0.99", "Discount factor."),
	DBL("learner.gae_lambda", learner.gae_lambda, 0, 1, "0.95",
	    "GAE lambda."),
	DBL("learner.clip", learner.clip, 0, 10, "0.2",
	    "PPO clipping range of the probability ratio."),
	DBL("learner.value_clip", learner.value_clip, 0, 1e6, "0",
	    "Clip range of the value update; 0 disables value clipping."),
	DBL("learner.vf_coef", learner.vf_coef, 0, 1e3, "0.5",
	    "Weight of the value loss."),
	DBL("learner.ent_coef", learner.ent_coef, 0, 10, "0.01",
	    "Weight of the entropy bonus."),
	DBL("learner.ent_final_frac", learner.ent_final_frac, 0, 1, "1",
	    "With the linear schedule: the entropy bonus goes with the "
	    "learning rate to ent_coef * this (1: constant). An entropy "
	    "bonus holds the policy at a quantal-response equilibrium of its "
	    "temperature, short of the Nash equilibrium."),
	DBL("learner.magnet_coef", learner.magnet_coef, 0, 10, "0",
	    "Weight of the KL divergence of the policy from the magnet, a "
	    "copy of the net refreshed every learner.magnet_every updates "
	    "(magnetic mirror descent); 0 disables it."),
	U64("learner.magnet_every", learner.magnet_every, 1,
	    PPO_MAGNET_EVERY_MAX, "10",
	    "PPO updates between two refreshes of the magnet."),
	DBL("learner.state_weight", learner.state_weight, 0, 1e6, "0",
	    "0: off. R >= 1: each row's policy terms weighted min(R, n_max / "
	    "n), n the batch's rows with its observation, n_max the most any "
	    "observation has (mean 1): a policy gradient moves each "
	    "information state as often as it is visited, this lets the rare "
	    "ones move up to R times faster. For games whose observation is "
	    "the information state (kuhn, leduc); values in (0, 1) are "
	    "refused."),
	DBL("learner.mmd_eta", learner.mmd_eta, 0, 100, "0",
	    "0: off. ETA > 0: the policy is trained by cross-entropy toward "
	    "magnetic mirror descent's step at each observation of the batch, in place of "
	    "PPO's surrogate and the magnet's KL term: pi' ~ exp((log pi + "
	    "ETA (q + beta log magnet)) / (1 + (mmd_alpha + beta) ETA)), q an "
	    "importance-weighted estimate of each action's value from the "
	    "batch, beta learner.magnet_coef. Every visited information "
	    "state steps alike, however rarely visited (docs/learner.md, "
	    "\"MMD targets\"). The entropy bonus stays: set "
	    "learner.ent_coef 0, mmd_alpha is the temperature. Feed-forward "
	    "nets, games whose observation is the information state, no "
	    "search."),
	DBL("learner.mmd_alpha", learner.mmd_alpha, 0, 100, "0.1",
	    "With learner.mmd_eta: the temperature, in return units, of the "
	    "quantal-response equilibrium the MMD step converges to."),
	DBL("learner.mmd_coef", learner.mmd_coef, 0, 1e4, "1",
	    "With learner.mmd_eta: the weight of the cross-entropy to the MMD "
	    "step. The step is small (on Leduc at ETA 0.3 its KL is about "
	    "0.004 an update); at weight 1 the net left 80-100% of it "
	    "undone, at 30 about a third (the learner's log: mmd step, left; "
	    "docs/results.md, \"MMD targets\")."),
	DBL("learner.mmd_clip", learner.mmd_clip, 0, 1e6, "0",
	    "With learner.mmd_eta: each action's value estimate is clipped "
	    "to [-mmd_clip, mmd_clip] (0: no clip); set it to the game's "
	    "return range, as importance weights of rare actions are "
	    "unbounded."),
	U64("learner.epochs", learner.epochs, 1, PPO_EPOCHS_MAX, "4",
	    "PPO epochs over each batch."),
	U64("learner.seq_len", learner.seq_len, 1, PPO_SEQ_MAX, "16",
	    "With a recurrent core (a `gru` layer): rows per training "
	    "sequence. The batch is cut into sequences of this many steps, "
	    "each starting from the state the collector stored with its first "
	    "row; minibatches are whole sequences."),
	U64("learner.minibatch", learner.minibatch, 1, PPO_MINIBATCH_MAX,
	    "256", "Samples per minibatch."),
	/* A batch may run one segment past learner.batch (options.h). */
	U64("learner.batch", learner.batch, 1,
	    PPO_BATCH_MAX - COLL_SEGMENT_MAX, "2048",
	    "Samples per PPO update."),
	DBL("learner.max_grad_norm", learner.max_grad_norm, 0, 1e6, "0.5",
	    "Global gradient-norm clip; 0 disables it."),
	DBLX("learner.adam_beta1", learner.adam_beta1, 0, 1, CFG_F_HI_OPEN,
	     "0.9", "Adam beta1."),
	DBLX("learner.adam_beta2", learner.adam_beta2, 0, 1, CFG_F_HI_OPEN,
	     "0.999", "Adam beta2."),
	DBL("learner.adam_eps", learner.adam_eps, 1e-12, 1, "1e-08",
	    "Adam epsilon."),
	U64("learner.push_every", learner.push_every, 1, 1e6, "1",
	    "Push a new parameter version to the daemon every this many "
	    "updates."),
	BOOL("learner.store_trainer", learner.store_trainer, "true",
	     "Each pushed version goes with the trainer's state (Adam's "
	     "moments and step, the update count, the rng, the schedule, "
	     "the magnet; about twice the parameters' bytes), stored in the "
	     "same commit: a learner that restarts, or a league resumed after "
	     "a crash, trains on from the newest version exactly as it would "
	     "have. false: a restarted learner starts a fresh optimizer."),
	U64("learner.queue_segments", learner.queue_segments, 1, 1 << 20, "8",
	    "Trajectory segments the learner lets the collectors send ahead "
	    "of its training, shared by collectors.count (at least 2 each; "
	    "never dropped, the collectors wait). More keeps the collectors "
	    "busy during updates but trains on older policies: Kuhn with 64 "
	    "reached NashConv 0.34 where 8 reached 0.11 (docs/results.md)."),
	U64("learner.threads", learner.threads, 1, PPO_THREADS_MAX, "1",
	    "Threads per learner: each minibatch is split into row shards "
	    "trained in parallel, each with single-threaded BLAS."),
	U64("learner.search.sims", learner.search.sims, 0, ENV_MCTS_SIMS_MAX,
	    "0",
	    "AlphaZero's search operator: with sims > 0 every move of a "
	    "learning seat is chosen by PUCT tree search with the seat's "
	    "current network as prior and value, this many simulations, run "
	    "in the collector thread that hosts the env; the rows keep the "
	    "root's visit shares as the policy target (learner.search."
	    "policy_coef). Opponents that do not learn play their raw policy. "
	    "Needs a sequential game without chance played in league's "
	    "processes (no env.remote, no collectors.processes) and a net "
	    "without a `gru` core. 0 turns it off."),
	DBLX("learner.search.c_puct", learner.search.c_puct, 0, 100,
	     CFG_F_LO_OPEN, "1.5",
	     "With search: PUCT's exploration weight."),
	U64("learner.search.temperature_moves",
	    learner.search.temperature_moves, 0, 1000, "8",
	    "With search: a seat's first this many moves of an episode are "
	    "sampled in proportion to the root's visits, later ones are the "
	    "most visited."),
	DBLX("learner.search.dirichlet_alpha", learner.search.dirichlet_alpha,
	     0, ENV_MCTS_ALPHA_MAX, CFG_F_LO_OPEN, "0.3",
	     "With search: concentration of the Dirichlet noise mixed into "
	     "the root's prior (about 10 over the typical number of legal "
	     "moves)."),
	DBL("learner.search.noise_frac", learner.search.noise_frac, 0, 1,
	    "0.25", "With search: weight of that noise in the root's prior; "
	    "0 turns it off."),
	DBL("learner.search.policy_coef", learner.search.policy_coef, 0, 10,
	    "1", "With search: weight of the cross-entropy between the "
	    "policy and the search's visit shares. The value is regressed "
	    "on the returns as always: learner.gamma 1 and gae_lambda 1 "
	    "make them the game's outcome."),
	U64("learner.search.fast_sims", learner.search.fast_sims, 0,
	    ENV_MCTS_SIMS_MAX, "0",
	    "With search: playout cap randomization (KataGo). A move is a "
	    "full search (sims, root noise, its visit shares the policy "
	    "target) with probability full_frac, else a fast one of this "
	    "many simulations without noise whose row has no policy target "
	    "(its value target counts as always): more games for the same "
	    "simulations. 0 turns it off: every move is a full search. At "
	    "most sims."),
	U64("learner.search.batch", learner.search.batch, 1,
	    ENV_MCTS_BATCH_MAX, "1",
	    "With search: leaves evaluated in one forward of the network. "
	    "Above 1 a search walks from the root until that many new "
	    "leaves wait, each walk counting a visit of value 0 on its way "
	    "so the next tends elsewhere, before one batched forward "
	    "evaluates them: "
	    "a batched forward costs less a state than single ones (the "
	    "conv net of `league bench learner --model conv --inference` "
	    "2.3 times less at 16), and the search sees a little less of "
	    "what it learns within a round (docs/learner.md). 1: the "
	    "sequential search."),
	DBL("learner.search.full_frac", learner.search.full_frac, 0, 1,
	    "0.25", "With search.fast_sims: the probability that a move is "
	    "a full search."),
	ENUM("learner.search.value", learner.search.value, search_value_names,
	     "net",
	     "With search: the value a searched row keeps, which the "
	     "learner's GAE bootstraps from: `net`, the network's value of "
	     "the root, as for any row; `search`, the search's (the mean of "
	     "that value and every simulation's backed-up one). With gamma 1 "
	     "and gae_lambda 1 the value target is the outcome either way; "
	     "with gae_lambda below 1 `search` makes it TD(lambda) over the "
	     "search's values, the mix of outcome and search value of "
	     "AlphaZero's successors. The search backs up undiscounted "
	     "outcomes: it is meant for gamma 1."),
	DBL("learner.search.pg_coef", learner.search.pg_coef, 0, 10, "0",
	    "With search: weight of PPO's clipped surrogate (on the searched "
	    "moves, the network's own log-probability of each as the "
	    "behaviour's); 0 trains on AlphaZero's loss alone. Without "
	    "search it is 1."),

	U64("players.main", players.main, 0, BRAIN_MAX_PLAYERS_PER_ROLE, "1",
	    "Number of main players."),
	U64("players.main_exploiter", players.main_exploiter, 0,
	    BRAIN_MAX_PLAYERS_PER_ROLE, "0", "Number of main exploiters."),
	U64("players.league_exploiter", players.league_exploiter, 0,
	    BRAIN_MAX_PLAYERS_PER_ROLE, "0", "Number of league exploiters."),
	U64("players.self_play", players.self_play, 0,
	    BRAIN_MAX_PLAYERS_PER_ROLE, "0",
	    "Number of plain self-play players (see roles.self_play)."),

	DBL("roles.main.pfsp", roles.main.pfsp, 0, 1, "0.5",
	    "Main: probability of PFSP over all historical snapshots."),
	DBL("roles.main.sp", roles.main.sp, 0, 1, "0.35",
	    "Main: probability of the self-play branch (a main player)."),
	DBL("roles.main.verification", roles.main.verification, 0, 1, "0.15",
	    "Main: probability of first trying verification opponents. "
	    "pfsp + sp + verification must be 1."),
	ENUM("roles.main.pfsp_weighting", roles.main.pfsp_weighting,
	     weight_names, "squared", "Main: PFSP weighting of the PFSP branch."),
	DBL("roles.main.sp_min_win_rate", roles.main.sp_min_win_rate, 0, 1,
	    "0.3",
	    "Main: self-play against a main player only while beating it more "
	    "often than this; else PFSP-variance over its snapshots."),
	DBL("roles.main.verify_exploiter_win_rate",
	    roles.main.verify_exploiter_win_rate, 0, 1, "0.3",
	    "Main: verify against exploiter snapshots it beats less often "
	    "than this."),
	DBL("roles.main.verify_historical_win_rate",
	    roles.main.verify_historical_win_rate, 0, 1, "0.7",
	    "Main: verify against its own older snapshots it beats less often "
	    "than this."),
	DBL("roles.main_exploiter.main_min_win_rate",
	    roles.main_exploiter.main_min_win_rate, 0, 1, "0.1",
	    "Main exploiter: play a main player while beating it more often "
	    "than this; else PFSP over that player's snapshots."),
	ENUM("roles.main_exploiter.pfsp_weighting",
	     roles.main_exploiter.pfsp_weighting, weight_names, "variance",
	     "Main exploiter: PFSP weighting over the main player's snapshots."),
	DBL("roles.main_exploiter.reset_prob", roles.main_exploiter.reset_prob,
	    0, 1, "1", "Main exploiter: probability of a reset after a snapshot."),
	ENUM("roles.league_exploiter.pfsp_weighting",
	     roles.league_exploiter.pfsp_weighting, weight_names,
	     "linear_capped", "League exploiter: PFSP weighting over all "
	     "historical snapshots."),
	DBL("roles.league_exploiter.reset_prob",
	    roles.league_exploiter.reset_prob, 0, 1, "0.25",
	    "League exploiter: probability of a reset after a snapshot."),
	DBL("roles.self_play.sp", roles.self_play.sp, 0, 1, "1",
	    "Self-play role: probability of playing its latest self."),
	DBL("roles.self_play.uniform", roles.self_play.uniform, 0, 1, "0",
	    "Self-play role: probability of a uniformly drawn own snapshot."),
	DBL("roles.self_play.pfsp", roles.self_play.pfsp, 0, 1, "0",
	    "Self-play role: probability of PFSP over its snapshots."),
	DBL("roles.self_play.nash", roles.self_play.nash, 0, 1, "0",
	    "Self-play role: probability of drawing from the meta-Nash "
	    "mixture of the snapshots. sp + uniform + pfsp + nash must be 1."),
	ENUM("roles.self_play.pfsp_weighting", roles.self_play.pfsp_weighting,
	     weight_names, "squared", "Self-play role: PFSP weighting."),

	DBL("matchmaking.pfsp_exponent", matchmaking.pfsp_exponent, 0, 100,
	    "2", "Exponent p of the `squared` weighting (1 - x)^p."),
	U64("matchmaking.job_episodes", matchmaking.job_episodes, 1,
	    LEAGUE_JOB_EPISODES_MAX, "8", "Episodes per job."),
	DBL("matchmaking.job_lease_s", matchmaking.job_lease_s, 0.1, 86400,
	    "60", "A job not finished within this many seconds is re-queued."),
	ENUM("matchmaking.teammates", matchmaking.teammates, teammates_names,
	     "self",
	     "A team game: who sits in the learner's teammates' seats: "
	     "`self`, copies of the learner (team self-play), or `league`, "
	     "drawn like its opponents by its role's rule."),
	BOOL("matchmaking.log_decisions", matchmaking.log_decisions, "true",
	     "Store every matchmaking decision with its inputs so a run can be "
	     "replayed."),
	DBL("matchmaking.baseline_share", matchmaking.baseline_share, 0, 0.9,
	    "0", "Share of the main players' training episodes played against "
	    "the fixed opponents of matchmaking.baselines (from both seats; "
	    "only the main player learns). Outside the payoff matrix; 0 turns "
	    "them off."),
	STR("matchmaking.baselines", matchmaking.baselines, 0, "",
	    "Fixed training opponents, comma-separated, as in eval.baselines "
	    "(no auto). Naming an evaluation baseline here trains against the "
	    "yardstick: say so when reporting its results."),

	U64("snapshot.steps", snapshot.steps, 1, BIG, "2e9",
	    "Agent steps since the last snapshot before a player may snapshot."),
	DBL("snapshot.win_rate", snapshot.win_rate, 0, 1, "0.7",
	    "Snapshot once the minimum win rate over the role's reference set "
	    "exceeds this."),
	DBL("snapshot.max_mult", snapshot.max_mult, 1, 1e6, "2",
	    "Snapshot anyway after this many times snapshot.steps."),
	U64("snapshot.keep", snapshot.keep, 0, 1e9, "0",
	    "Most active snapshots per player (offered to matchmaking, in the "
	    "meta-Nash, their parameters stored); beyond it snapshot.prune "
	    "retires some, and deletes their parameters unless still needed "
	    "(version 0, the newest 8 versions, another active snapshot of "
	    "the version). 0 keeps all."),
	ENUM("snapshot.prune", snapshot.prune, prune_names, "fifo",
	     "Which snapshots a player beyond snapshot.keep retires: `fifo` "
	     "the oldest; `nash` the oldest that is neither in the support "
	     "of the meta-Nash of the league's newest "
	     XSTR(BRAIN_NASH_MAX) " active snapshots nor among its "
	     "snapshot.keep_newest newest, so the mixture never loses what "
	     "it relies on (the player then keeps more than snapshot.keep "
	     "while the support needs them). nash needs snapshot.keep."),
	U64("snapshot.keep_newest", snapshot.keep_newest, 1, 1e9, "1",
	    "With snapshot.prune nash: a player's newest snapshots that are "
	    "never retired, whatever the meta-Nash says (the newest has no "
	    "results yet); at most snapshot.keep."),

	ENUM("psro.solver", psro.solver, solver_names, "nash",
	     "league.mode psro: the meta-solver over the population's "
	     "empirical game: `nash` (the meta-Nash), `uniform` (fictitious "
	     "play), `alpha_rank` (alpha 100, population 50) or `prd` "
	     "(projected replicator dynamics, the iterates' average)."),
	U64("psro.crossplay_episodes", psro.crossplay_episodes, 1, 1048576,
	    "256",
	    "league.mode psro: games of every pair of population members "
	    "(both seats in turn) before the pair counts in the empirical "
	    "game."),
	U64("psro.br_steps", psro.br_steps, 1, BIG, "2e6",
	    "league.mode psro: an iteration's most agent steps: the best "
	    "responder joins the population then, improving or not."),
	U64("psro.patience_steps", psro.patience_steps, 1, BIG, "2e5",
	    "league.mode psro: the iteration ends when the responder's "
	    "expected win rate against the meta-strategy has not risen by "
	    "psro.min_improve for this many agent steps (but not before "
	    "snapshot.steps)."),
	DBLX("psro.return_scale", psro.return_scale, 0, 127, CFG_F_LO_OPEN,
	     "1",
	     "league.mode psro: the game's largest |return| R. A cross-play "
	     "episode of return r (rounded to a whole number) scores (1 + r "
	     "/ R) / 2 for its player (r clamped to [-R, R]), so a pair's "
	     "win rate is (1 + its mean return / R) / 2 and the meta-solver "
	     "solves the game of expected returns (chips in poker), not of "
	     "who won more often. Kuhn: 2; Leduc: 13."),
	BOOL("psro.br_reset", psro.br_reset, "true",
	     "league.mode psro: each iteration's responder starts from the "
	     "initial parameters (classic PSRO); false: from the one just "
	     "frozen (cheaper, but a saturated policy unlearns slowly)."),
	DBL("psro.min_improve", psro.min_improve, 0, 1, "0.01",
	    "league.mode psro: the rise in expected win rate that counts as "
	    "improving."),

	DBLX("payoff.decay", payoff.decay, 0, 1, CFG_F_LO_OPEN, "0.99",
	     "Decay of a pair's counts per new game (1 = no decay)."),
	DBL("payoff.min_games", payoff.min_games, 0, 1e9, "1",
	    "Below this many decayed games a win rate is the prior."),
	ENUM("payoff.prior", payoff.prior, prior_names, "half",
	     "Win rate prior: `half` (0.5 below min_games) or `beta` "
	     "(Beta(s/2, s/2) pseudo-games always added)."),
	DBL("payoff.prior_strength", payoff.prior_strength, 0, 1e6, "1",
	    "Pseudo-games s of the beta prior."),
	DBL("payoff.elo_k", payoff.elo_k, 0, 1e3, "16",
	    "K factor of the online Elo rating."),
	ENUM("payoff.measure", payoff.measure, measure_names, "auto",
	     "What the payoff table counts: `win` (who finished ahead: "
	     "wins, draws, losses) or `return` (the mean return, e.g. chips "
	     "in poker: a pair's score is (1 + (r_a - r_b) / 2R) / 2 of the "
	     "returns clamped to [-R, R], shown back as the mean return). "
	     "`auto`: win for a zero- or constant-sum game, return for a "
	     "common-payoff or general-sum one. A league keeps the unit it "
	     "began with."),
	DBLX("payoff.return_scale", payoff.return_scale, 0, 1e9, CFG_F_LO_OPEN,
	     "1",
	     "R of payoff.measure return: the largest |return| the game "
	     "gives (Kuhn 2, Leduc 13); larger returns are clamped to it."),

	U64("collectors.count", collectors.count, 0, 1024, "1",
	    "Local collector processes started by `league run`."),
	U64("collectors.envs", collectors.envs, 1, COLL_ENVS_MAX, "8",
	    "Environments per collector, each on its own worker thread (or "
	    "child process)."),
	ENUM("collectors.mode", collectors.mode, mode_names, "async",
	     "Env manager mode."),
	U64("collectors.wait_num", collectors.wait_num, 1, COLL_ENVS_MAX, "7",
	    "Async mode: go on once this many envs are ready."),
	DBL("collectors.wait_timeout_s", collectors.wait_timeout_s, 0, 3600,
	    "0.01", "Async mode: or once this long has passed with at least "
	    "one env ready."),
	DBL("collectors.step_timeout_s", collectors.step_timeout_s, 0.001,
	    86400, "60", "An env step slower than this is a broken env."),
	DBL("collectors.reset_timeout_s", collectors.reset_timeout_s, 0.001,
	    86400, "120", "An env reset slower than this is a broken env."),
	BOOL("collectors.processes", collectors.processes, "false",
	     "Run envs in child processes (for games that are not thread-safe "
	     "or may crash)."),
	U64("collectors.segment_len", collectors.segment_len, 1,
	    COLL_SEGMENT_MAX, "128",
	    "Transitions per trajectory segment sent to a learner."),

	U64("run.max_restarts_without_episode",
	    run.max_restarts_without_episode, 0, 1000, "5",
	    "`league run` gives up (exit 1, the cause on the console) when a "
	    "worker it started has died this many times more, restarted "
	    "each time, with no episode finished in the league since its "
	    "first death: a game or worker that cannot play. 0 gives up at "
	    "the first such death."),

	U64("budget.env_steps", budget.env_steps, 0, BIG, "0",
	    "Stop after this many env steps; 0 for no limit."),
	DBL("budget.seconds", budget.seconds, 0, 1e9, "60",
	    "Stop after this many seconds of wall time; 0 for no limit."),
	U64("budget.jobs", budget.jobs, 0, BIG, "0",
	    "Stop after this many finished jobs; 0 for no limit."),
	U64("budget.snapshots", budget.snapshots, 0, BIG, "0",
	    "Stop after this many snapshots; 0 for no limit."),

	STR("server.listen", server.listen, 1, "127.0.0.1",
	    "Address the daemon listens on."),
	U64("server.port", server.port, 0, 65535, "0",
	    "Worker port; 0 picks a free one (written to the league dir)."),
	U64("server.http_port", server.http_port, 0, 65535, "0",
	    "HTTP status port; 0 picks a free one."),
	STR("server.token_file", server.token_file, 0, "",
	    "File holding the shared worker token (or set LEAGUE_TOKEN); "
	    "required when listening beyond loopback. One line of at most "
	    "255 printable bytes, its line end (\\n or \\r\\n) dropped; a "
	    "longer token or a second line is refused at start, never cut."),
	DBL("server.heartbeat_s", server.heartbeat_s, 0.01, 3600, "5",
	    "Workers silent for three heartbeats are dropped, and a "
	    "collector gives up on a learner's trajectory stream silent "
	    "(no credit, no heartbeat, no byte taken) for as long "
	    "(docs/protocol.md, Liveness)."),
	DBL("server.http_request_timeout_s", server.http_request_timeout_s,
	    0.1, 3600, "10",
	    "An HTTP connection that has not sent a whole request (line, "
	    "headers and body) this many seconds after it opened or after "
	    "its previous reply is closed, however slowly it trickles."),
	U64("server.max_frame", server.max_frame, 1024, 1 << 30, "67108864",
	    "Largest wire frame in bytes."),
	U64("server.max_jobs_in_flight", server.max_jobs_in_flight, 1,
	    1 << 20, "4096",
	    "Most jobs leased to collectors at once, over every session (a "
	    "session also holds at most the max_jobs it registered; a "
	    "request beyond either gets what is left, or none with status "
	    "BUSY). Each job in flight is an open job in the store and "
	    "memory in the daemon, and at most this many go out again after "
	    "--resume (the oldest; the rest are cancelled). 4096 serves 128 "
	    "`league collect` workers (each takes at most 32) on a machine "
	    "of a few hundred MB; raise it for a larger cluster."),
	BOOL("server.insecure", server.insecure, "false",
	     "Allow listening beyond loopback without TLS (server.tls): the "
	     "token and every message then cross the network in clear."),
	STR("server.tls.cert", server.tls.cert, 0, "",
	    "PEM certificate (chain) of the daemon: with key and ca, every "
	    "socket speaks TLS (the worker port, HTTP, and the learners' "
	    "trajectory endpoints). A relative path is taken from the config "
	    "file's directory. `league tls init DIR` makes a test CA and "
	    "certificates."),
	STR("server.tls.key", server.tls.key, 0, "",
	    "PEM private key of server.tls.cert."),
	STR("server.tls.ca", server.tls.ca, 0, "",
	    "PEM CA certificate(s) peers' certificates must chain to."),
	BOOL("server.tls.verify_peers", server.tls.verify_peers, "false",
	     "Mutual TLS: the daemon and the learners' endpoints refuse "
	     "peers without a certificate from server.tls.ca; a worker's "
	     "certificate name labels it in logs and /status."),

	DBL("eval.share", eval.share, 0, 0.9, "0",
	    "Share of the episodes collectors play that evaluate main players "
	    "against fixed baselines (eval.baselines); 0 turns baseline "
	    "evaluation off. Results go to their own table (`league eval "
	    "baselines DIR`), never into the payoff matrix."),
	STR("eval.baselines", eval.baselines, 1, "auto",
	    "Baselines evaluation plays, comma-separated: random (any game), "
	    "minimax (tictactoe, perfect play), alphabeta:N (connect4, depth "
	    "1.." XSTR(ENV_C4_DEPTH_MAX) "; othello, depth 1.."
	    XSTR(ENV_OTH_DEPTH_MAX) "); auto: random, plus minimax for "
	    "tictactoe or alphabeta at env.connect4_depth for connect4."),
	BOOL("eval.greedy", eval.greedy, "true",
	     "In games against baselines the evaluated player plays its most "
	     "probable legal action; false: it samples its policy as in "
	     "training."),
	BOOL("eval.nashconv", eval.nashconv, "true",
	     "After each snapshot, compute exact NashConv where the game "
	     "allows it."),
	U64("eval.games", eval.games, 1, 1e6, "100",
	    "Games each evaluated main-player version plays against each "
	    "baseline from each seat."),
	DBL("eval.average_from", eval.average_from, 0, 0.9, "0",
	    "The main player's average policy (nashconv_avg, `league eval "
	    "DIR`) mixes its snapshots uniformly, leaving out the oldest "
	    "average_from share of them: 0 mixes all of them, 0.5 the newest "
	    "half (an average over the later iterates of a learner that "
	    "cycles, as `league eval nashconv --policy mmdavg:...` takes the "
	    "second half of its iterates)."),
};

#define NKEYS LG_ARRAY_LEN(table)
_Static_assert(NKEYS <= CFG_KEYS_MAX, "raise CFG_KEYS_MAX");

const struct cfg_key *cfg_keys(size_t *n)
{
	if (n)
		*n = NKEYS;
	return table;
}

const struct cfg_key *cfg_key_find(const char *path)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(table[i].path, path))
			return &table[i];
	return NULL;
}

const char *cfg_enum_name(const char *path, int value)
{
	const struct cfg_key *k = cfg_key_find(path);

	if (!k || k->type != CFG_T_ENUM || value < 0)
		return NULL;
	for (int i = 0; k->names[i]; i++)
		if (i == value)
			return k->names[i];
	return NULL;
}

int cfg_is_section(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < NKEYS; i++)
		if (!strncmp(table[i].path, path, n) && table[i].path[n] == '.')
			return 1;
	return 0;
}

