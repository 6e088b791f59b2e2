/*
 * league/config.c: the key table and the table-driven YAML parser, emitter
 * and documentation writer. See config.h for the shape.
 *
 * The parser walks libyaml events recursively. A key is either a leaf (a row
 * of the table) or a section (a proper dotted prefix of some row); anything
 * else is an unknown key. Every leaf and section may appear once. Anchors,
 * aliases and more than one document are refused: a config is data, not a
 * program.
 */
#include "league/config.h"

#include "league/options.h"
#include "players/players.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- the table -------------------------------------------------------- */

static const char *const act_names[] = { "relu", "tanh", NULL };
static const char *const sched_names[] = { "constant", "linear", NULL };
static const char *const weight_names[] = { "squared", "variance", "linear",
					    "linear_capped", NULL };
static const char *const mode_names[] = { "serial", "sync", "async", NULL };
static const char *const prior_names[] = { "half", "beta", NULL };

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

	STR("env.name", env.name, 1, "rps",
	    "Game to play; `league env list` names them."),
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
	DBL("learner.magnet_coef", learner.magnet_coef, 0, 10, "0",
	    "Weight of the KL divergence of the policy from the magnet, a "
	    "copy of the net refreshed every learner.magnet_every updates "
	    "(magnetic mirror descent); 0 disables it."),
	U64("learner.magnet_every", learner.magnet_every, 1,
	    PPO_MAGNET_EVERY_MAX, "10",
	    "PPO updates between two refreshes of the magnet."),
	U64("learner.epochs", learner.epochs, 1, PPO_EPOCHS_MAX, "4",
	    "PPO epochs over each batch."),
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
	U64("learner.queue_segments", learner.queue_segments, 1, 1 << 20, "64",
	    "Trajectory segments the learner queues before it pushes back on "
	    "collectors (never dropped)."),
	U64("learner.threads", learner.threads, 1, PPO_THREADS_MAX, "1",
	    "Threads per learner: each minibatch is split into row shards "
	    "trained in parallel, each with single-threaded BLAS."),

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
	    "Most snapshots kept per player for matchmaking; 0 keeps all."),

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
	    "required when listening beyond loopback."),
	DBL("server.heartbeat_s", server.heartbeat_s, 0.01, 3600, "5",
	    "Workers silent for three heartbeats are dropped."),
	U64("server.max_frame", server.max_frame, 1024, 1 << 30, "67108864",
	    "Largest wire frame in bytes."),

	DBL("eval.share", eval.share, 0, 0.9, "0",
	    "Share of the episodes collectors play that evaluate main players "
	    "against fixed baselines (eval.baselines); 0 turns baseline "
	    "evaluation off. Results go to their own table (`league eval "
	    "baselines DIR`), never into the payoff matrix."),
	STR("eval.baselines", eval.baselines, 1, "auto",
	    "Baselines evaluation plays, comma-separated: random (any game), "
	    "minimax (tictactoe, perfect play), alphabeta:N (connect4, depth "
	    "1.." XSTR(ENV_C4_DEPTH_MAX) "); auto: random, plus minimax for "
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
};

#define NKEYS LG_ARRAY_LEN(table)

const struct cfg_key *cfg_keys(size_t *n)
{
	*n = NKEYS;
	return table;
}

static const struct cfg_key *key_find(const char *path)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(table[i].path, path))
			return &table[i];
	return NULL;
}

const char *cfg_enum_name(const char *path, int value)
{
	const struct cfg_key *k = key_find(path);

	if (!k || k->type != CFG_T_ENUM || value < 0)
		return NULL;
	for (int i = 0; k->names[i]; i++)
		if (i == value)
			return k->names[i];
	return NULL;
}

/* A section is a proper dotted prefix of some key. */
static int is_section(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < NKEYS; i++)
		if (!strncmp(table[i].path, path, n) && table[i].path[n] == '.')
			return 1;
	return 0;
}

/* ---- parser ----------------------------------------------------------- */

struct mark {
	unsigned line, col; /* 1-based; 0 when the key was not in the file */
};

#define MAX_SECTIONS 64

struct parser {
	yaml_parser_t yp;
	const char *name;
	struct cfg *c;
	char *err;
	size_t errlen;
	struct mark marks[NKEYS];
	char sections[MAX_SECTIONS][256];
	size_t nsections;
};

static int perr(struct parser *p, const yaml_mark_t *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *p, const yaml_mark_t *m, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (m)
		lg_errf(p->err, p->errlen, "%s:%zu:%zu: %s", p->name,
			m->line + 1, m->column + 1, msg);
	else
		lg_errf(p->err, p->errlen, "%s: %s", p->name, msg);
	return LG_ECONFIG;
}

static int next_event(struct parser *p, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&p->yp, ev)) {
		const char *ctx = p->yp.context;
		return perr(p, &p->yp.problem_mark, "YAML syntax error: %s%s%s",
			    p->yp.problem ? p->yp.problem : "unknown",
			    ctx ? " " : "", ctx ? ctx : "");
	}
	if (ev->type == YAML_ALIAS_EVENT) {
		yaml_mark_t m = ev->start_mark;
		yaml_event_delete(ev);
		return perr(p, &m, "YAML aliases are not supported in configs");
	}
	return 0;
}

static const char *ev_text(const yaml_event_t *ev)
{
	return (const char *)ev->data.scalar.value;
}

static void fmt_bound(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.15g", v);
}

/* A number key's range as "[lo, hi]", with "(" or ")" at an open bound. */
static void fmt_range(char *buf, size_t len, const struct cfg_key *k)
{
	char lo[32], hi[32];

	fmt_bound(lo, sizeof lo, k->lo);
	fmt_bound(hi, sizeof hi, k->hi);
	snprintf(buf, len, "%c%s, %s%c", k->flags & CFG_F_LO_OPEN ? '(' : '[',
		 lo, hi, k->flags & CFG_F_HI_OPEN ? ')' : ']');
}

/* A number within k's range, open bounds excluded. */
static int parse_double_text(const struct cfg_key *k, const char *s,
			     double *out)
{
	double v;

	if (lg_parse_double(s, k->lo, k->hi, &v) ||
	    ((k->flags & CFG_F_LO_OPEN) && v == k->lo) ||
	    ((k->flags & CFG_F_HI_OPEN) && v == k->hi))
		return LG_ERANGE;
	*out = v;
	return 0;
}

/* Levenshtein distance, capped: for "did you mean" hints. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[128], cur[128];

	if (la >= 127 || lb >= 127)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = LG_MIN(sub, LG_MIN(del, ins));
		}
		memcpy(prev, cur, (lb + 1) * sizeof *prev);
	}
	return prev[lb];
}

static const char *suggest(const char *path)
{
	const char *best = NULL;
	size_t bestd = 3;

	for (size_t i = 0; i < NKEYS; i++) {
		size_t d = edit_distance(path, table[i].path);
		if (d < bestd) {
			bestd = d;
			best = table[i].path;
		}
	}
	return best;
}

static int parse_u64_text(const char *s, double lo, double hi, uint64_t *out)
{
	uint64_t v;
	double d;

	if (!lg_parse_u64(s, 0, UINT64_MAX, &v)) {
		if ((double)v < lo || (double)v > hi)
			return LG_ERANGE;
		*out = v;
		return 0;
	}
	/* Scientific notation for exact whole numbers: 2e9, 1.5e6. */
	if (lg_parse_double(s, 0, 1.8e19, &d))
		return LG_EINVAL;
	if (d != floor(d) || d < lo || d > hi)
		return LG_ERANGE;
	*out = (uint64_t)d;
	return 0;
}

static int set_scalar(struct parser *p, const struct cfg_key *k,
		      const yaml_event_t *ev)
{
	char *base = (char *)p->c + k->off;
	const char *s = ev_text(ev);
	int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	char lo[32], hi[32], range[80];

	fmt_bound(lo, sizeof lo, k->lo);
	fmt_bound(hi, sizeof hi, k->hi);
	fmt_range(range, sizeof range, k);
	switch (k->type) {
	case CFG_T_U64:
		if (!plain || parse_u64_text(s, k->lo, k->hi, (uint64_t *)base))
			return perr(p, &ev->start_mark,
				    "%s: expected a whole number in %s, "
				    "got '%s'", k->path, range, s);
		return 0;
	case CFG_T_DOUBLE:
		if (!plain || parse_double_text(k, s, (double *)base))
			return perr(p, &ev->start_mark,
				    "%s: expected a number in %s, got '%s'",
				    k->path, range, s);
		return 0;
	case CFG_T_BOOL:
		if (plain && !strcmp(s, "true"))
			*(int *)base = 1;
		else if (plain && !strcmp(s, "false"))
			*(int *)base = 0;
		else
			return perr(p, &ev->start_mark,
				    "%s: expected true or false, got '%s'",
				    k->path, s);
		return 0;
	case CFG_T_STR: {
		size_t n = ev->data.scalar.length;
		if (plain && (!strcmp(s, "~") || !strcmp(s, "null")))
			n = 0, s = "";
		if (n < (size_t)k->lo || n > (size_t)k->hi || strlen(s) != n)
			return perr(p, &ev->start_mark,
				    "%s: expected a string of %s to %s bytes "
				    "without NUL, got %zu bytes", k->path, lo,
				    hi, n);
		memcpy(base, s, n);
		base[n] = 0;
		return 0;
	}
	case CFG_T_ENUM: {
		char choices[256] = "";
		for (int i = 0; k->names[i]; i++) {
			if (plain && !strcmp(s, k->names[i])) {
				*(int *)base = i;
				return 0;
			}
			snprintf(choices + strlen(choices),
				 sizeof choices - strlen(choices), "%s%s",
				 i ? ", " : "", k->names[i]);
		}
		return perr(p, &ev->start_mark,
			    "%s: expected one of %s, got '%s'", k->path,
			    choices, s);
	}
	default:
		return perr(p, &ev->start_mark, "%s: expected a list", k->path);
	}
}

/* One list of numbers; calls put(i, value) for each. The SEQUENCE_START
 * event has been consumed. */
static int parse_number_row(struct parser *p, const struct cfg_key *k,
			    double *vals, uint32_t max, uint32_t *n,
			    int whole)
{
	yaml_event_t ev;
	char range[80];
	int rc;

	fmt_range(range, sizeof range, k);
	*n = 0;
	for (;;) {
		if ((rc = next_event(p, &ev)))
			return rc;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		if (ev.type != YAML_SCALAR_EVENT) {
			rc = perr(p, &ev.start_mark, "%s: expected a number",
				  k->path);
			yaml_event_delete(&ev);
			return rc;
		}
		if (*n >= max) {
			rc = perr(p, &ev.start_mark,
				  "%s: more than %u entries", k->path, max);
			yaml_event_delete(&ev);
			return rc;
		}
		double d;
		uint64_t u;
		int bad = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		if (!bad && whole) {
			bad = parse_u64_text(ev_text(&ev), k->lo, k->hi, &u);
			d = (double)u;
		} else if (!bad) {
			bad = parse_double_text(k, ev_text(&ev), &d);
		}
		if (bad) {
			rc = perr(p, &ev.start_mark,
				  "%s: expected a %s in %s, got '%s'",
				  k->path, whole ? "whole number" : "number",
				  range, ev_text(&ev));
			yaml_event_delete(&ev);
			return rc;
		}
		vals[(*n)++] = d;
		yaml_event_delete(&ev);
	}
}

static int parse_list(struct parser *p, const struct cfg_key *k,
		      const yaml_event_t *start)
{
	char *base = (char *)p->c + k->off;
	double vals[CFG_MATRIX_MAX];
	uint32_t n;
	int rc;

	if (start->type != YAML_SEQUENCE_START_EVENT)
		return perr(p, &start->start_mark,
			    "%s: expected a list like [64, 64]", k->path);
	if (k->type == CFG_T_U32_LIST) {
		struct cfg_u32_list *l = (struct cfg_u32_list *)base;
		if ((rc = parse_number_row(p, k, vals, CFG_LIST_MAX, &n, 1)))
			return rc;
		l->n = n;
		for (uint32_t i = 0; i < n; i++)
			l->v[i] = (uint32_t)vals[i];
		return 0;
	}
	/* Matrix: a list of equally long rows. */
	struct cfg_matrix *m = (struct cfg_matrix *)base;
	yaml_event_t ev;
	memset(m, 0, sizeof *m);
	for (;;) {
		if ((rc = next_event(p, &ev)))
			return rc;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		yaml_mark_t at = ev.start_mark;
		if (ev.type != YAML_SEQUENCE_START_EVENT) {
			yaml_event_delete(&ev);
			return perr(p, &at, "%s: expected a list of rows like "
				    "[[3, -2], [-2, 1]]", k->path);
		}
		yaml_event_delete(&ev);
		if (m->rows >= CFG_MATRIX_MAX)
			return perr(p, &at, "%s: more than %d rows", k->path,
				    CFG_MATRIX_MAX);
		if ((rc = parse_number_row(p, k, vals, CFG_MATRIX_MAX, &n, 0)))
			return rc;
		if (n == 0 || (m->rows && n != m->cols))
			return perr(p, &at, "%s: row %u has %u entries, "
				    "expected %u", k->path, m->rows + 1, n,
				    m->rows ? m->cols : 1);
		m->cols = n;
		memcpy(m->v[m->rows++], vals, n * sizeof *vals);
	}
	return 0;
}

static int parse_mapping(struct parser *p, const char *prefix);

static int parse_key(struct parser *p, const char *prefix,
		     const yaml_event_t *kev)
{
	char path[256];
	const struct cfg_key *k;
	yaml_event_t ev;
	int rc;

	if (kev->type != YAML_SCALAR_EVENT ||
	    kev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return perr(p, &kev->start_mark, "%s%skeys must be plain words",
			    prefix, *prefix ? ": " : "");
	if ((size_t)snprintf(path, sizeof path, "%s%s%s", prefix,
			     *prefix ? "." : "", ev_text(kev)) >= sizeof path)
		return perr(p, &kev->start_mark, "key path too long");
	k = key_find(path);
	if (!k && !is_section(path)) {
		const char *hint = suggest(path);
		if (hint)
			return perr(p, &kev->start_mark,
				    "unknown key '%s' (did you mean '%s'?)",
				    path, hint);
		return perr(p, &kev->start_mark, "unknown key '%s'", path);
	}
	if (k) {
		struct mark *m = &p->marks[k - table];
		if (m->line)
			return perr(p, &kev->start_mark,
				    "duplicate key '%s' (first at line %u)",
				    path, m->line);
		m->line = (unsigned)kev->start_mark.line + 1;
		m->col = (unsigned)kev->start_mark.column + 1;
	} else {
		for (size_t i = 0; i < p->nsections; i++)
			if (!strcmp(p->sections[i], path))
				return perr(p, &kev->start_mark,
					    "duplicate section '%s'", path);
		if (p->nsections == MAX_SECTIONS)
			return perr(p, &kev->start_mark, "too many sections");
		snprintf(p->sections[p->nsections++], sizeof p->sections[0], "%s", path);
	}
	if ((rc = next_event(p, &ev)))
		return rc;
	if (!k) {
		if (ev.type != YAML_MAPPING_START_EVENT)
			rc = perr(p, &ev.start_mark,
				  "%s: expected a mapping of keys", path);
		else
			rc = parse_mapping(p, path);
	} else if (k->type == CFG_T_U32_LIST || k->type == CFG_T_MATRIX) {
		rc = parse_list(p, k, &ev);
	} else if (ev.type != YAML_SCALAR_EVENT) {
		rc = perr(p, &ev.start_mark, "%s: expected a single value",
			  path);
	} else if (ev.data.scalar.length == 0 &&
		   ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		rc = perr(p, &ev.start_mark, "%s: missing value", path);
	} else {
		rc = set_scalar(p, k, &ev);
	}
	yaml_event_delete(&ev);
	return rc;
}

/* The MAPPING_START has been consumed; read key/value pairs to its end. */
static int parse_mapping(struct parser *p, const char *prefix)
{
	yaml_event_t ev;
	int rc;

	for (;;) {
		if ((rc = next_event(p, &ev)))
			return rc;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		rc = parse_key(p, prefix, &ev);
		yaml_event_delete(&ev);
		if (rc)
			return rc;
	}
}

static int parse_stream(struct parser *p)
{
	yaml_event_t ev;
	int rc, docs = 0;

	for (;;) {
		if ((rc = next_event(p, &ev)))
			return rc;
		yaml_event_type_t t = ev.type;
		yaml_mark_t m = ev.start_mark;
		yaml_event_delete(&ev);
		switch (t) {
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			break;
		case YAML_STREAM_END_EVENT:
			return 0;
		case YAML_DOCUMENT_START_EVENT:
			if (docs++)
				return perr(p, &m, "only one YAML document "
					    "is allowed");
			if ((rc = next_event(p, &ev)))
				return rc;
			t = ev.type;
			m = ev.start_mark;
			int empty = t == YAML_SCALAR_EVENT &&
				    ev.data.scalar.length == 0;
			yaml_event_delete(&ev);
			if (empty)
				break;
			if (t != YAML_MAPPING_START_EVENT)
				return perr(p, &m, "the config must be a "
					    "mapping of sections");
			if ((rc = parse_mapping(p, "")))
				return rc;
			break;
		default:
			return perr(p, &m, "unexpected YAML event");
		}
	}
}

/* ---- cross-key checks ------------------------------------------------- */

static int verr(struct parser *p, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int verr(struct parser *p, const char *path, const char *fmt, ...)
{
	const struct cfg_key *k = key_find(path);
	struct mark m = k ? p->marks[k - table] : (struct mark){ 0, 0 };
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (m.line)
		lg_errf(p->err, p->errlen, "%s:%u:%u: %s: %s", p->name, m.line,
			m.col, path, msg);
	else
		lg_errf(p->err, p->errlen, "%s: %s: %s", p->name, path, msg);
	return LG_ECONFIG;
}

/* A module check's message as a key error. brain_opts_check begins each
 * message with the config section it concerns ("roles.main: ...",
 * "players: ...", "payoff decay ..."); the first key of that section the
 * file sets gives the key and the place (none set: the section alone).
 * tests/check_config.c has a bad input for every rule a config within the
 * table's bounds can break, so a change of wording there shows; the other
 * rules are the bounds, which bounds_pass_the_brain_check ties. */
static int module_err(struct parser *p, const char *msg)
{
	size_t n = strcspn(msg, ":/ ");
	const char *detail = msg;
	const struct mark *bm = NULL;
	const char *path = NULL;
	char section[64];

	if (msg[n] == ':' && msg[n + 1] == ' ')
		detail = msg + n + 2;
	for (size_t i = 0; i < NKEYS; i++) {
		const struct mark *m = &p->marks[i];
		if (!m->line || strncmp(table[i].path, msg, n) ||
		    table[i].path[n] != '.')
			continue;
		if (!bm || m->line < bm->line ||
		    (m->line == bm->line && m->col < bm->col)) {
			bm = m;
			path = table[i].path;
		}
	}
	if (!path) {
		snprintf(section, sizeof section, "%.*s", (int)n, msg);
		path = section;
	}
	return verr(p, path, "%s", detail);
}

/* The cross-key rules. Those of the players module are its own
 * brain_opts_check, run on the options this config becomes; the rest
 * belong to no module's check. */
static int validate(struct parser *p)
{
	const struct cfg *c = p->c;
	char msg[256], bl[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	struct brain_opts bo;
	size_t n;

	league_brain_opts(c, &bo);
	if (brain_opts_check(&bo, msg, sizeof msg))
		return module_err(p, msg);
	if (c->collectors.wait_num > c->collectors.envs)
		return verr(p, "collectors.wait_num", "%llu is more than "
			    "collectors.envs (%llu)",
			    (unsigned long long)c->collectors.wait_num,
			    (unsigned long long)c->collectors.envs);
	if (c->learner.lr_schedule == CFG_LR_LINEAR && !(c->budget.seconds > 0))
		return verr(p, "learner.lr_schedule", "linear runs over "
			    "budget.seconds, which is 0 (no time budget)");
	if (c->learner.minibatch > c->learner.batch)
		return verr(p, "learner.minibatch", "%llu is more than "
			    "learner.batch (%llu)",
			    (unsigned long long)c->learner.minibatch,
			    (unsigned long long)c->learner.batch);
	if (!c->budget.env_steps && !(c->budget.seconds > 0) &&
	    !c->budget.jobs && !c->budget.snapshots)
		return verr(p, "budget.seconds", "set at least one budget "
			    "(env_steps, seconds, jobs or snapshots)");
	if (!strcmp(c->env.name, "matrix") && !c->env.matrix.rows)
		return verr(p, "env.matrix", "the matrix game needs its payoff "
			    "matrix");
	if (cfg_eval_baselines(c, bl, &n, msg, sizeof msg))
		return verr(p, "eval.baselines", "%s", msg);
	if (cfg_train_baselines(c, bl, &n, msg, sizeof msg))
		return verr(p, "matchmaking.baselines", "%s", msg);
	if (c->matchmaking.baseline_share > 0 && !n)
		return verr(p, "matchmaking.baseline_share", "is %g but "
			    "matchmaking.baselines names none",
			    c->matchmaking.baseline_share);
	if (cfg_all_baselines(c, bl, &n, msg, sizeof msg))
		return verr(p, "matchmaking.baselines", "%s", msg);
	if (!lg_is_loopback(c->server.listen) && !c->server.token_file[0] &&
	    !getenv("LEAGUE_TOKEN"))
		return verr(p, "server.listen", "listening beyond loopback "
			    "needs server.token_file or LEAGUE_TOKEN");
	return 0;
}

static int cfg_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int cfg_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	char msg[256];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	lg_errf(err, errlen, "%s", msg);
	return LG_ECONFIG;
}

/* One baseline spec (len bytes at spec): checked against the game by the
 * baselines' own parser (envs/), which writes its canonical form to out
 * (alphabeta:02 is alphabeta:2, so duplicates show). */
static int baseline_one(const struct cfg *c, const char *spec, size_t len,
			char *out, char *err, size_t errlen)
{
	char b[CFG_BASELINE_MAX];

	if (!len || len >= sizeof b)
		return cfg_fail(err, errlen, "empty or overlong entry");
	memcpy(b, spec, len);
	b[len] = 0;
	if (env_baseline_check(b, c->env.name, out, CFG_BASELINE_MAX, err,
			       errlen))
		return LG_ECONFIG;
	return 0;
}

/* The comma-separated list s, appended to out[*n..). */
static int baseline_list(const struct cfg *c, const char *s,
			 char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
			 size_t errlen)
{
	size_t first = *n;

	for (;;) {
		size_t len = strcspn(s, ",");

		while (len && *s == ' ')
			s++, len--;
		while (len && s[len - 1] == ' ')
			len--;
		if (*n == CFG_BASELINES_MAX)
			return cfg_fail(err, errlen, "more than %d baselines",
					CFG_BASELINES_MAX);
		if (baseline_one(c, s, len, out[*n], err, errlen))
			return LG_ECONFIG;
		for (size_t i = first; i < *n; i++)
			if (!strcmp(out[i], out[*n]))
				return cfg_fail(err, errlen, "'%s' named "
						"twice", out[i]);
		++*n;
		s += strcspn(s, ",");
		if (!*s)
			return 0;
		s++;
	}
}

int cfg_eval_baselines(const struct cfg *c,
		       char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
		       size_t errlen)
{
	const char *s = c->eval.baselines;

	*n = 0;
	if (!strcmp(s, "auto")) {
		snprintf(out[(*n)++], CFG_BASELINE_MAX, "random");
		if (!strcmp(c->env.name, "tictactoe"))
			snprintf(out[(*n)++], CFG_BASELINE_MAX, "minimax");
		else if (!strcmp(c->env.name, "connect4"))
			snprintf(out[(*n)++], CFG_BASELINE_MAX, "alphabeta:%u",
				 (unsigned)c->env.connect4_depth);
		return 0;
	}
	return baseline_list(c, s, out, n, err, errlen);
}

int cfg_train_baselines(const struct cfg *c,
			char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
			size_t errlen)
{
	*n = 0;
	if (!c->matchmaking.baselines[0])
		return 0;
	return baseline_list(c, c->matchmaking.baselines, out, n, err, errlen);
}

int cfg_all_baselines(const struct cfg *c,
		      char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
		      size_t errlen)
{
	char tr[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	size_t nt;
	int rc;

	if ((rc = cfg_eval_baselines(c, out, n, err, errlen)) ||
	    (rc = cfg_train_baselines(c, tr, &nt, err, errlen)))
		return rc;
	for (size_t i = 0; i < nt; i++) {
		size_t k = 0;
		while (k < *n && strcmp(out[k], tr[i]))
			k++;
		if (k < *n)
			continue;
		if (*n == CFG_BASELINES_MAX)
			return cfg_fail(err, errlen, "eval.baselines and "
					"matchmaking.baselines name more than "
					"%d baselines together",
					CFG_BASELINES_MAX);
		memcpy(out[(*n)++], tr[i], CFG_BASELINE_MAX);
	}
	return 0;
}

/* ---- loading ---------------------------------------------------------- */

static int run_parser(struct cfg *c, const char *text, size_t len,
		      const char *name, int check, char *err, size_t errlen)
{
	struct parser *p = calloc(1, sizeof *p);
	int rc;

	if (!p)
		return LG_ENOMEM;
	p->name = name;
	p->c = c;
	p->err = err;
	p->errlen = errlen;
	if (!yaml_parser_initialize(&p->yp)) {
		free(p);
		return LG_ENOMEM;
	}
	yaml_parser_set_input_string(&p->yp, (const unsigned char *)text, len);
	rc = parse_stream(p);
	if (!rc && check)
		rc = validate(p);
	yaml_parser_delete(&p->yp);
	free(p);
	return rc;
}

static int emit(const struct cfg *c, lg_buf *out, int defaults, int comments);

int cfg_defaults(struct cfg *c, char *err, size_t errlen)
{
	lg_buf b = { 0 };
	int rc;

	memset(c, 0, sizeof *c);
	if ((rc = emit(NULL, &b, 1, 0)))
		return rc;
	rc = run_parser(c, (const char *)b.data, b.len, "<defaults>", 0, err,
			errlen);
	lg_buf_free(&b);
	return rc;
}

int cfg_load_string(struct cfg *c, const char *text, size_t len,
		    const char *name, char *err, size_t errlen)
{
	int rc = cfg_defaults(c, err, errlen);

	if (rc)
		return rc;
	return run_parser(c, text, len, name, 1, err, errlen);
}

#define CFG_FILE_MAX (1 << 20)

int cfg_load_file(struct cfg *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t n;
	int rc;

	if (!f) {
		lg_errf(err, errlen, "%s: cannot open: %s", path,
			strerror(errno));
		return LG_EIO;
	}
	text = malloc(CFG_FILE_MAX + 1);
	if (!text) {
		fclose(f);
		return LG_ENOMEM;
	}
	n = fread(text, 1, CFG_FILE_MAX + 1, f);
	if (ferror(f)) {
		lg_errf(err, errlen, "%s: read error: %s", path,
			strerror(errno));
		rc = LG_EIO;
	} else if (n > CFG_FILE_MAX) {
		lg_errf(err, errlen, "%s: larger than %d bytes", path,
			CFG_FILE_MAX);
		rc = LG_ECONFIG;
	} else {
		rc = cfg_load_string(c, text, n, path, err, errlen);
	}
	free(text);
	fclose(f);
	return rc;
}

/* ---- emitting --------------------------------------------------------- */

/* Shortest text that reads back to the same double. */
static void fmt_double(char *buf, size_t len, double v)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* A YAML reader should see a number, never a bare word. */
}

static int emit_string(lg_buf *b, const char *s)
{
	int rc = lg_buf_append(b, "\"", 1);

	for (; !rc && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			rc = lg_buf_printf(b, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			rc = lg_buf_printf(b, "\\x%02x", ch);
		else
			rc = lg_buf_append(b, s, 1);
	}
	return rc ? rc : lg_buf_append(b, "\"", 1);
}

static int emit_value(lg_buf *b, const struct cfg_key *k, const struct cfg *c)
{
	const char *base = (const char *)c + k->off;
	char num[40];
	int rc = 0;

	switch (k->type) {
	case CFG_T_U64:
		return lg_buf_printf(b, "%llu",
				     (unsigned long long)*(const uint64_t *)base);
	case CFG_T_DOUBLE:
		fmt_double(num, sizeof num, *(const double *)base);
		return lg_buf_printf(b, "%s", num);
	case CFG_T_BOOL:
		return lg_buf_printf(b, "%s", *(const int *)base ? "true"
								 : "false");
	case CFG_T_STR:
		return emit_string(b, base);
	case CFG_T_ENUM:
		return lg_buf_printf(b, "%s", k->names[*(const int *)base]);
	case CFG_T_U32_LIST: {
		const struct cfg_u32_list *l = (const void *)base;
		rc = lg_buf_printf(b, "[");
		for (uint32_t i = 0; !rc && i < l->n; i++)
			rc = lg_buf_printf(b, "%s%u", i ? ", " : "", l->v[i]);
		return rc ? rc : lg_buf_printf(b, "]");
	}
	case CFG_T_MATRIX: {
		const struct cfg_matrix *m = (const void *)base;
		rc = lg_buf_printf(b, "[");
		for (uint32_t r = 0; !rc && r < m->rows; r++) {
			rc = lg_buf_printf(b, "%s[", r ? ", " : "");
			for (uint32_t j = 0; !rc && j < m->cols; j++) {
				fmt_double(num, sizeof num, m->v[r][j]);
				rc = lg_buf_printf(b, "%s%s", j ? ", " : "",
						   num);
			}
			if (!rc)
				rc = lg_buf_printf(b, "]");
		}
		return rc ? rc : lg_buf_printf(b, "]");
	}
	}
	return LG_EINVAL;
}

/* Number of leading dotted components two paths share. */
static int common_depth(const char *a, const char *b)
{
	int depth = 0;

	for (;;) {
		const char *da = strchr(a, '.'), *db = strchr(b, '.');
		if (!da || !db || da - a != db - b || strncmp(a, b, (size_t)(da - a)))
			return depth;
		depth++;
		a = da + 1;
		b = db + 1;
	}
}

/* Nested YAML of the whole table: with c == NULL and defaults set, the
 * default texts; otherwise the values in c. */
static int emit(const struct cfg *c, lg_buf *b, int defaults, int comments)
{
	const char *prev = "";
	int rc = 0;

	for (size_t i = 0; !rc && i < NKEYS; i++) {
		const struct cfg_key *k = &table[i];
		const char *p = k->path;
		int depth = common_depth(prev, p), d = 0;

		/* Skip the components already open, then open the rest. */
		for (; d < depth; d++)
			p = strchr(p, '.') + 1;
		for (const char *dot; (dot = strchr(p, '.')); p = dot + 1, d++)
			rc = rc ? rc : lg_buf_printf(b, "%s%*s%.*s:\n",
				d == 0 && i ? "\n" : "", 2 * d, "",
				(int)(dot - p), p);
		if (!rc && comments)
			rc = lg_buf_printf(b, "%*s# %s\n", 2 * d, "", k->doc);
		if (!rc)
			rc = lg_buf_printf(b, "%*s%s: ", 2 * d, "", p);
		if (!rc)
			rc = !defaults ? emit_value(b, k, c)
			     : k->type == CFG_T_STR ? emit_string(b, k->def)
			     : lg_buf_printf(b, "%s", k->def);
		if (!rc)
			rc = lg_buf_printf(b, "\n");
		prev = k->path;
	}
	return rc;
}

int cfg_emit_yaml(const struct cfg *c, lg_buf *out)
{
	return emit(c, out, 0, 1);
}

static const char *type_name(const struct cfg_key *k)
{
	switch (k->type) {
	case CFG_T_U64: return "integer";
	case CFG_T_DOUBLE: return "number";
	case CFG_T_BOOL: return "boolean";
	case CFG_T_STR: return "string";
	case CFG_T_ENUM: return "enum";
	case CFG_T_U32_LIST: return "list of integers";
	case CFG_T_MATRIX: return "matrix";
	}
	return "?";
}

int cfg_emit_markdown(lg_buf *b)
{
	char section[64] = "";
	int rc = lg_buf_printf(b,
		"# Configuration reference\n\n"
		"Generated by `league config doc` from the key table in "
		"`league/config.c`; do not edit by hand (`make docs`).\n\n"
		"A league is configured by one YAML file. Every key is optional "
		"and has the default below. Unknown keys, duplicate keys, wrong "
		"types and out-of-range values are errors naming "
		"`file:line:column` and the key; `league config check FILE` "
		"prints the effective config with every default filled in.\n\n"
		"Cross-key rules: `roles.main` pfsp + sp + verification = 1; "
		"`roles.self_play` sp + uniform + pfsp + nash = 1; at least one "
		"learning player; main exploiters need a main player (these "
		"four are the players module's own check); "
		"`collectors.wait_num` <= `collectors.envs`; "
		"`learner.minibatch` <= `learner.batch`; at least one budget; "
		"the `matrix` game needs `env.matrix`; listening beyond "
		"loopback needs a token.\n");

	for (size_t i = 0; !rc && i < NKEYS; i++) {
		const struct cfg_key *k = &table[i];
		const char *dot = strchr(k->path, '.');
		size_t n = (size_t)(dot - k->path);
		char range[96] = "";

		if (strlen(section) != n || strncmp(section, k->path, n)) {
			snprintf(section, sizeof section, "%.*s", (int)n,
				 k->path);
			rc = lg_buf_printf(b, "\n## %s\n\n| key | type | default "
					   "| range | meaning |\n|---|---|---|"
					   "---|---|\n", section);
		}
		if (k->type == CFG_T_ENUM) {
			for (int j = 0; k->names[j]; j++)
				snprintf(range + strlen(range),
					 sizeof range - strlen(range), "%s%s",
					 j ? " \\| " : "", k->names[j]);
		} else if (k->type == CFG_T_STR) {
			snprintf(range, sizeof range, "%.0f to %.0f bytes",
				 k->lo, k->hi);
		} else if (k->type != CFG_T_BOOL) {
			fmt_range(range, sizeof range, k);
		}
		if (!rc)
			rc = lg_buf_printf(b, "| `%s` | %s | `%s` | %s | %s |\n",
					   k->path, type_name(k), k->def, range,
					   k->doc);
	}
	return rc;
}
