/*
 * conf/config: the league's YAML configuration.
 *
 * One declarative table (config.c, `table`) lists every key: its dotted
 * path, type, bounds, default and a line of documentation. Everything else is
 * driven by that table: parsing (libyaml events), defaults (the defaults are
 * YAML text run through the same parser, so a default can never be invalid),
 * printing the effective config as YAML (`league config check`), and the
 * reference in docs/config.md (`league config doc`).
 *
 * A bound a lower module enforces is that module's exported cap (COLL_*,
 * ENV_*, NN_*, PPO_*, BRAIN_*) where it exports one; where it checks a
 * literal of its own, tests/check_config.c shows that every value the table
 * allows passes the module's check. The cross-key rules of the players
 * module are its brain_opts_check, run on the translated options.
 *
 * struct cfg is a plain value: fixed-size strings and arrays, no pointers,
 * so it can be copied, compared and stored. Lower modules (envs, learner,
 * collector, players) never include this header; conf/options.h
 * translates a cfg into their option structs.
 *
 * Errors name file:line:column and the key, e.g.
 *   league.yaml:12:7: learner.lr: expected a number in [0, 1], got 'fast'
 * and every load function returns LG_ECONFIG for a rejected config.
 */
#ifndef LG_CONFIG_H
#define LG_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "collector/collector.h"
#include "envs/env.h"
#include "learner/learner.h"
#include "util/util.h"

/* A job's seats, and the most episodes one job may ask for
 * (matchmaking.job_episodes' bound): the daemon and the collector worker
 * hold a job's results in arrays this long, and a result with more is
 * refused. At most BRAIN_MAX_EPISODES (asserted in conf/options.c). */
#define LEAGUE_JOB_SEATS ENV_MAX_PLAYERS
#define LEAGUE_JOB_EPISODES_MAX 4096

#define CFG_STR_MAX 256
#define CFG_LIST_MAX NN_MAX_LAYERS /* the one list is model.hidden */
#define CFG_MATRIX_MAX ENV_MATRIX_MAX

enum cfg_activation { CFG_ACT_RELU, CFG_ACT_TANH };
enum cfg_search_value { CFG_SEARCH_VALUE_NET, CFG_SEARCH_VALUE_SEARCH };
enum cfg_lr_schedule { CFG_LR_CONSTANT, CFG_LR_LINEAR };
enum cfg_league_mode { CFG_MODE_LEAGUE, CFG_MODE_PSRO };
enum cfg_weighting {
	CFG_PFSP_SQUARED,
	CFG_PFSP_VARIANCE,
	CFG_PFSP_LINEAR,
	CFG_PFSP_LINEAR_CAPPED,
};
enum cfg_env_mode { CFG_MODE_SERIAL, CFG_MODE_SYNC, CFG_MODE_ASYNC };
enum cfg_prior { CFG_PRIOR_HALF, CFG_PRIOR_BETA };
enum cfg_prune { CFG_PRUNE_FIFO, CFG_PRUNE_NASH };
enum cfg_measure { CFG_MEASURE_AUTO, CFG_MEASURE_WIN, CFG_MEASURE_RETURN };
enum cfg_teammates { CFG_TEAMMATES_SELF, CFG_TEAMMATES_LEAGUE };

struct cfg_u32_list {
	uint32_t n;
	uint32_t v[CFG_LIST_MAX];
};

/* One entry of model.layers (docs/config.md, "Networks as layer lists"):
 * kind, its size (channels or units), the convolution's geometry and the
 * activation after it (enum nn_layer_act: NN_LACT_NONE unless an
 * activation entry follows; a residual block's own, relu by default). */
enum cfg_layer_kind {
	CFG_LAYER_CONV2D = 1,
	CFG_LAYER_RESIDUAL,
	CFG_LAYER_FLATTEN,
	CFG_LAYER_DENSE,
	CFG_LAYER_GRU,
};
#define CFG_LAYERS_MAX (NN_MAX_CONV + NN_MAX_LAYERS + 2)
struct cfg_layer {
	uint32_t kind, size, kernel, stride, padding, act;
};
struct cfg_layers {
	uint32_t n;
	struct cfg_layer v[CFG_LAYERS_MAX];
};

struct cfg_matrix {
	uint32_t rows, cols; /* 0 x 0 when unset */
	double v[CFG_MATRIX_MAX][CFG_MATRIX_MAX];
};

struct cfg {
	struct {
		char name[CFG_STR_MAX];
		char dir[CFG_STR_MAX];
		uint64_t seed;
		int deterministic;
		int mode; /* enum cfg_league_mode */
	} league;
	struct {
		char name[CFG_STR_MAX];
		char plugin[CFG_STR_MAX]; /* absolute after a file load */
		char remote[CFG_STR_MAX]; /* a game server's address */
		char serve[CFG_STR_MAX];  /* the command league run starts */
		double remote_timeout;
		struct env_params params;
		uint64_t max_steps;
		struct cfg_matrix matrix;
		struct {
			uint64_t obs_len;
			double reset_s, step_s, infer_s;
			uint64_t episode_len;
			double jitter_lo, jitter_hi;
		} timing;
		uint64_t connect4_depth;
	} env;
	struct {
		struct cfg_u32_list hidden;
		int activation; /* enum cfg_activation */
		struct cfg_u32_list conv; /* channels per convolution */
		uint64_t conv_kernel, conv_stride, conv_padding;
		struct cfg_layers layers; /* n 0: the keys above say */
	} model;
	struct {
		double lr;
		int lr_schedule; /* enum cfg_lr_schedule */
		double lr_final_frac;
		double gamma, gae_lambda;
		double clip, value_clip;
		double vf_coef, ent_coef, ent_final_frac;
		double magnet_coef;
		uint64_t magnet_every;
		double state_weight;
		double mmd_eta, mmd_alpha, mmd_clip, mmd_coef;
		uint64_t epochs, minibatch, batch;
		uint64_t seq_len;
		double max_grad_norm;
		double adam_beta1, adam_beta2, adam_eps;
		uint64_t push_every;
		int store_trainer;
		uint64_t queue_segments;
		uint64_t threads;
		struct { /* AlphaZero's search operator; sims 0: off */
			uint64_t sims;
			double c_puct;
			uint64_t temperature_moves;
			double dirichlet_alpha, noise_frac;
			double policy_coef, pg_coef;
			uint64_t fast_sims; /* playout cap randomization */
			double full_frac;
			uint64_t batch; /* leaves a forward (envs/mcts.c) */
			int value; /* enum cfg_search_value */
		} search;
	} learner;
	struct {
		uint64_t main, main_exploiter, league_exploiter, self_play;
	} players;
	struct {
		struct {
			double pfsp, sp, verification;
			int pfsp_weighting; /* enum cfg_weighting */
			double sp_min_win_rate;
			double verify_exploiter_win_rate;
			double verify_historical_win_rate;
		} main;
		struct {
			double main_min_win_rate;
			int pfsp_weighting;
			double reset_prob;
		} main_exploiter;
		struct {
			int pfsp_weighting;
			double reset_prob;
		} league_exploiter;
		struct {
			double sp, uniform, pfsp, nash;
			int pfsp_weighting;
		} self_play;
	} roles;
	struct {
		double pfsp_exponent;
		uint64_t job_episodes;
		double job_lease_s;
		int log_decisions;
		double baseline_share;
		char baselines[CFG_STR_MAX];
		int teammates; /* enum cfg_teammates */
	} matchmaking;
	struct {
		uint64_t steps;
		double win_rate;
		double max_mult;
		uint64_t keep;
		int prune;
		uint64_t keep_newest;
	} snapshot;
	struct {
		int solver; /* enum payoff_meta_solver */
		uint64_t crossplay_episodes;
		uint64_t br_steps, patience_steps;
		double min_improve;
		double return_scale;
		int br_reset;
	} psro;
	struct {
		double decay;
		double min_games;
		int prior; /* enum cfg_prior */
		double prior_strength;
		double elo_k;
		int measure; /* enum cfg_measure */
		double return_scale;
	} payoff;
	struct {
		uint64_t count;
		uint64_t envs;
		int mode; /* enum cfg_env_mode */
		uint64_t wait_num;
		double wait_timeout_s;
		double step_timeout_s, reset_timeout_s;
		int processes;
		uint64_t segment_len;
	} collectors;
	struct {
		uint64_t max_restarts_without_episode;
	} run;
	struct {
		uint64_t env_steps;
		double seconds;
		uint64_t jobs;
		uint64_t snapshots;
	} budget;
	struct {
		char listen[CFG_STR_MAX];
		uint64_t port;
		uint64_t http_port;
		char token_file[CFG_STR_MAX];
		double heartbeat_s;
		double http_request_timeout_s;
		uint64_t max_frame;
		uint64_t max_jobs_in_flight;
		int insecure;
		struct {
			char cert[CFG_STR_MAX], key[CFG_STR_MAX];
			char ca[CFG_STR_MAX];
			int verify_peers;
		} tls;
	} server;
	struct {
		double share;
		char baselines[CFG_STR_MAX];
		int greedy;
		int nashconv;
		uint64_t games;
		double average_from; /* the average policy's oldest share left out */
	} eval;
};

/* eval.baselines resolved: the specs ("random", "minimax",
 * "alphabeta:N", checked and made canonical by env_baseline_check) into
 * out[0..*n), CFG_BASELINES_MAX entries. "auto" picks random plus the
 * game's strong baseline. LG_ECONFIG with err for an unknown spec, one for
 * another game, a duplicate, or too many. CFG_BASELINE_MAX is also the
 * size of a baseline name in stored evaluation keys (league/daemon.h). */
#define CFG_BASELINES_MAX COLL_BASELINES_MAX
#define CFG_BASELINE_MAX 32
_Static_assert(CFG_BASELINE_MAX >= ENV_BASELINE_CANON_MAX &&
	       CFG_BASELINE_MAX <= COLL_BASELINE_SPEC_MAX,
	       "a canonical spec fits, and the collector takes every entry");
int cfg_eval_baselines(const struct cfg *c,
		       char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
		       size_t errlen);
/* matchmaking.baselines resolved the same way (no "auto"; empty: none). */
int cfg_train_baselines(const struct cfg *c,
			char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
			size_t errlen);
/* Every baseline a collector may be asked to play: the evaluation ones,
 * then the training ones not among them. */
int cfg_all_baselines(const struct cfg *c,
		      char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
		      size_t errlen);

enum cfg_type {
	CFG_T_U64,
	CFG_T_DOUBLE,
	CFG_T_BOOL,
	CFG_T_STR,
	CFG_T_ENUM,
	CFG_T_U32_LIST,
	CFG_T_MATRIX,
	CFG_T_PARAMS, /* struct env_params: a mapping of strings */
	CFG_T_LAYERS, /* struct cfg_layers: model.layers */
};

/* cfg_key.flags: a CFG_T_DOUBLE bound that is itself excluded. */
#define CFG_F_LO_OPEN 1u
#define CFG_F_HI_OPEN 2u

/* One row of the table. */
struct cfg_key {
	const char *path;          /* dotted, e.g. "learner.lr" */
	enum cfg_type type;
	size_t off;                /* offset in struct cfg */
	double lo, hi;             /* numbers, list elements, matrix cells;
				      for strings hi is the max length */
	const char *def;           /* default as YAML text */
	const char *const *names;  /* CFG_T_ENUM: NULL-terminated names */
	const char *doc;
	unsigned flags;            /* CFG_F_* */
};

/* The table, in the order keys are printed; *n (n may be NULL) gets the
 * number of keys. */
const struct cfg_key *cfg_keys(size_t *n);

/* Fill c with every default. Never fails for the shipped table (a test
 * checks); returns LG_ECONFIG with detail in err if it did. */
int cfg_defaults(struct cfg *c, char *err, size_t errlen);

/* Defaults, then the YAML file, then the cross-key checks. On error c is
 * unspecified, err names file:line:column and key, and LG_ECONFIG (or LG_EIO
 * when the file cannot be read) is returned. */
int cfg_load_file(struct cfg *c, const char *path, char *err, size_t errlen);
/* The same from memory; name stands in for the file name in messages. */
int cfg_load_string(struct cfg *c, const char *text, size_t len,
		    const char *name, char *err, size_t errlen);

/* The same for a config that came inside a file from elsewhere (an agent
 * file): env.plugin, env.remote, env.serve and server.tls.* are refused
 * at their key before anything would load, run, dial or read them. */
int cfg_load_sealed(struct cfg *c, const char *text, size_t len,
		    const char *name, char *err, size_t errlen);
/* cfg_load_sealed, then the game the caller names (never the text):
 * env.plugin = plugin or env.remote = remote (NULL: not set), checked
 * as any config's (the plugin opens and passes its short env check, the
 * server's Welcome names env.name). For an agent file of a plugin or
 * remote game, opened with the plugin or address its user passed. */
int cfg_load_sealed_game(struct cfg *c, const char *text, size_t len,
			 const char *name, const char *plugin,
			 const char *remote, char *err, size_t errlen);

/* Append the whole effective config as YAML (every key, in table order,
 * with its doc line as a comment). The output loads back to an equal cfg. */
int cfg_emit_yaml(const struct cfg *c, lg_buf *out);
/* Append the Markdown reference of every key. */
int cfg_emit_markdown(lg_buf *out);

/* Name of an enum value for a key path (NULL when not an enum key). */
const char *cfg_enum_name(const char *path, int value);

#endif
