/* tests/check_config.c: the key table, the YAML parser's errors, the
 * emitter round trip, the shipped configs, docs/config.md freshness, and
 * the ties between the table and the modules: the default config
 * translates (conf/options.h) to each module's own defaults, and every
 * value the table allows passes the module's own check. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "conf/config.h"
#include "conf/options.h"
#include "net/net.h"
#include "players/players.h"
#include "tests/testutil.h"

static int load(struct cfg *c, const char *yaml, char *err, size_t errlen)
{
	return cfg_load_string(c, yaml, strlen(yaml), "t.yaml", err, errlen);
}

START_TEST(defaults_are_valid_and_documented)
{
	size_t n;
	const struct cfg_key *k = cfg_keys(&n);
	struct cfg c;
	char err[512] = "";

	ck_assert_uint_gt(n, 50);
	ck_assert_msg(load(&c, "", err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(c.env.name, "rps");
	ck_assert(c.learner.lr == 0.0003);
	ck_assert_uint_eq(c.snapshot.steps, 2000000000ull);
	ck_assert_uint_eq(c.model.hidden.n, 2);
	ck_assert_uint_eq(c.model.hidden.v[1], 64);
	ck_assert_int_eq(c.roles.main_exploiter.pfsp_weighting,
			 CFG_PFSP_VARIANCE);
	ck_assert(c.matchmaking.log_decisions);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(k[i].doc && strlen(k[i].doc) > 10, "%s", k[i].path);
		ck_assert_msg(strchr(k[i].path, '.'), "%s", k[i].path);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(k[i].path, k[j].path);
	}
}
END_TEST

START_TEST(values_are_read)
{
	struct cfg c;
	char err[512] = "";
	const char *y =
		"league:\n  name: x\n  seed: 42\n"
		"env:\n  name: matrix\n  matrix:\n    - [3, -2]\n    - [-2, 1]\n"
		"  timing:\n    step_s: 0.25\n"
		"model:\n  hidden: []\n  activation: relu\n"
		"snapshot:\n  steps: 1.5e6\n"
		"matchmaking:\n  log_decisions: false\n"
		"server:\n  token_file: \"/tmp/my token\"\n";

	ck_assert_msg(load(&c, y, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(c.league.name, "x");
	ck_assert_uint_eq(c.league.seed, 42);
	ck_assert_uint_eq(c.env.matrix.rows, 2);
	ck_assert_uint_eq(c.env.matrix.cols, 2);
	ck_assert(c.env.matrix.v[0][1] == -2 && c.env.matrix.v[1][1] == 1);
	ck_assert(c.env.timing.step_s == 0.25);
	ck_assert_uint_eq(c.model.hidden.n, 0);
	ck_assert_int_eq(c.model.activation, CFG_ACT_RELU);
	ck_assert_uint_eq(c.snapshot.steps, 1500000);
	ck_assert(!c.matchmaking.log_decisions);
	ck_assert_str_eq(c.server.token_file, "/tmp/my token");
}
END_TEST

/* Every rejected input names file:line:column and what is wrong. */
static const struct {
	const char *yaml;
	const char *msg;
} bad[] = {
	{ "learner:\n  lr: fast\n", "t.yaml:2:7: learner.lr: expected a number in [0, 1], got 'fast'" },
	{ "learner:\n  lr: 2\n", "t.yaml:2:7: learner.lr: expected a number in [0, 1]" },
	{ "learner:\n  lr: \"0.1\"\n", "t.yaml:2:7: learner.lr: expected a number" },
	{ "learner:\n  lrr: 0.1\n", "t.yaml:2:3: unknown key 'learner.lrr' (did you mean 'learner.lr'?)" },
	{ "bogus: 1\n", "t.yaml:1:1: unknown key 'bogus'" },
	{ "learner:\n  lr: 0.1\n  lr: 0.2\n", "t.yaml:3:3: duplicate key 'learner.lr' (first at line 2)" },
	{ "learner:\n  lr: 0.1\nlearner:\n  gamma: 0.5\n", "t.yaml:3:1: duplicate section 'learner'" },
	{ "learner: 3\n", "t.yaml:1:10: learner: expected a mapping of keys" },
	{ "learner:\n  epochs: 2.5\n", "t.yaml:2:11: learner.epochs: expected a whole number in [1, 1000], got '2.5'" },
	{ "learner:\n  epochs: -1\n", "learner.epochs: expected a whole number" },
	{ "learner:\n  epochs:\n", "t.yaml:2:10: learner.epochs: missing value" },
	{ "model:\n  activation: sigmoid\n", "t.yaml:2:15: model.activation: expected one of relu, tanh, got 'sigmoid'" },
	{ "model:\n  hidden: 64\n", "t.yaml:2:11: model.hidden: expected a list like [64, 64]" },
	{ "model:\n  hidden: [64, x]\n", "t.yaml:2:16: model.hidden: expected a whole number in [1, 65536], got 'x'" },
	{ "model:\n  hidden: [1,2,3,4,5,6,7,8,9]\n", "model.hidden: more than 8 entries" },
	{ "env: {name: kuhn}\nmodel:\n  conv: [8]\n", "t.yaml:3:3: model.conv: game 'kuhn' gives flat observations (11 floats), convolutions need planes" },
	{ "env: {name: tictactoe}\nmodel:\n  conv: [8]\n  conv_kernel: 7\n  conv_padding: 0\n", "t.yaml:3:3: model.conv: convolution 0: conv2d: a 7x7 kernel does not fit 3x3 planes padded by 0" },
	{ "env: {name: connect4}\nmodel:\n  conv: [8, 8, 8, 8, 8, 8, 8, 8, 8]\n", "t.yaml:3:34: model.conv: more than 8 entries" },
	/* model.layers: each entry's place, then each prefix's shape */
	{ "env: {name: connect4}\nmodel:\n  - relu\n", "t.yaml:3:5: model.layers: relu must follow a conv2d or dense layer" },
	{ "env: {name: connect4}\nmodel:\n  - {dense: 8}\n  - relu\n  - tanh\n", "t.yaml:5:5: model.layers: tanh must follow" },
	{ "env: {name: connect4}\nmodel:\n  - {lstm: 64}\n", "t.yaml:3:6: model.layers: unknown layer 'lstm' (conv2d, residual, flatten, dense, gru, relu, tanh)" },
	{ "env: {name: kuhn}\nmodel:\n  - gru: 8\n  - dense: 4\n", "t.yaml:4:5: model.layers: dense after gru: the recurrent core is the last layer" },
	{ "env: {name: kuhn}\nmodel:\n  - gru: 8\n  - tanh\n", "t.yaml:4:5: model.layers: tanh must follow a conv2d or dense layer" },
	{ "env: {name: connect4}\nmodel:\n  - conv2d: 4\n  - gru: 8\n", "t.yaml:4:5: model.layers: gru after a convolution: put `flatten` between them" },
	{ "env: {name: kuhn}\nmodel:\n  - gru: 0\n", "t.yaml:3:10: model.layers: gru: expected a whole number in [1, 65536]" },
	{ "env: {name: kuhn}\nmodel:\n  - gru: {units: 8}\n", "t.yaml:3:10: model.layers: gru: expected a width like 64" },
	{ "env: {name: kuhn}\nlearner: {seq_len: 0}\n", "t.yaml:2:20: learner.seq_len" },
	{ "env: {name: connect4}\nmodel:\n  - dense: 8\n  - conv2d: 4\n", "t.yaml:4:5: model.layers: conv2d after a dense layer: convolutions come first" },
	{ "env: {name: connect4}\nmodel:\n  - conv2d: 4\n  - dense: 8\n", "t.yaml:4:5: model.layers: dense after a convolution: put `flatten` between them" },
	{ "env: {name: connect4}\nmodel:\n  - flatten\n", "t.yaml:3:5: model.layers: flatten needs convolutions before it" },
	{ "env: {name: connect4}\nmodel:\n  - conv2d: 4\n  - flatten\n  - flatten\n", "t.yaml:5:5: model.layers: flatten twice" },
	{ "env: {name: connect4}\nmodel:\n  - conv2d: {channels: 4, stride: 0}\n", "t.yaml:3:35: model.layers: conv2d.stride: expected a whole number in [1, 8], got '0'" },
	{ "env: {name: connect4}\nmodel:\n  - conv2d: {channels: 4, dilation: 2}\n", "t.yaml:3:27: model.layers: conv2d: unknown field 'dilation'" },
	{ "env: {name: connect4}\nmodel:\n  - conv2d: {kernel: 3}\n", "t.yaml:3:5: model.layers: conv2d: needs channels" },
	{ "env: {name: connect4}\nmodel:\n  - conv2d: {channels: 4, channels: 8}\n", "t.yaml:3:27: model.layers: conv2d: duplicate field 'channels'" },
	{ "env: {name: connect4}\nmodel:\n  - residual: {channels: 4, activation: sigmoid}\n", "t.yaml:3:41: model.layers: residual.activation: expected relu or tanh, got 'sigmoid'" },
	{ "env: {name: connect4}\nmodel:\n  - {conv2d: 4, dense: 8}\n", "model.layers: one layer per entry" },
	{ "env: {name: connect4}\nmodel:\n  - conv2d: 8\n  - residual: 4\n", "t.yaml:4:5: model.layers: residual: residual block 1: its input has 8 channels, the block 4" },
	{ "env: {name: connect4}\nmodel:\n  - conv2d: {channels: 4, kernel: 9, padding: 0}\n", "t.yaml:3:5: model.layers: conv2d: convolution 0: conv2d: a 9x9 kernel does not fit 6x7 planes padded by 0" },
	{ "env: {name: kuhn}\nmodel:\n  - dense: 8\n  - relu\n  - residual: 8\n", "t.yaml:5:5: model.layers: residual after a dense layer" },
	{ "env: {name: kuhn}\nmodel:\n  - conv2d: 8\n", "t.yaml:3:5: model.layers: conv2d: game 'kuhn' gives flat observations (11 floats)" },
	{ "env: {name: connect4}\nmodel:\n  layers: [{dense: 8}]\n  hidden: [4]\n", "t.yaml:4:3: model.hidden: model.layers replaces this key: give one or the other" },
	{ "env: {name: connect4}\nmodel:\n  - {dense: 8}\n  - {dense: 8}\n  - {dense: 8}\n  - {dense: 8}\n  - {dense: 8}\n  - {dense: 8}\n  - {dense: 8}\n  - {dense: 8}\n  - {dense: 8}\n", "t.yaml:11:5: model.layers: more than 8 dense layers" },
	{ "env:\n  matrix: [[1, 2], [3]]\n", "t.yaml:2:20: env.matrix: row 2 has 1 entries, expected 2" },
	{ "env:\n  matrix: [1, 2]\n", "env.matrix: expected a list of rows" },
	{ "matchmaking:\n  log_decisions: yes\n", "t.yaml:2:18: matchmaking.log_decisions: expected true or false, got 'yes'" },
	{ "model:\n  hidden: [64\n", "t.yaml:3:1: YAML syntax error" },
	{ "learner:\n\tlr: 0.1\n", "YAML syntax error" },
	{ "a: &x 1\nb: *x\n", "unknown key 'a'" },
	{ "learner: &x\n  lr: 0.1\nmodel: *x\n", "YAML aliases are not supported" },
	{ "league:\n  seed: 1\n---\nleague:\n  seed: 2\n", "only one YAML document" },
	{ "- a\n- b\n", "t.yaml:1:1: the config must be a mapping of sections" },
	{ "? [a, b]\n: 1\n", "keys must be plain words" },
	/* learner.search: its numbers, and what cannot be searched */
	{ "env: {name: connect4}\nlearner:\n  search: {sims: 200000}\n", "t.yaml:3:18: learner.search.sims: expected a whole number in [0, 100000], got '200000'" },
	{ "env: {name: connect4}\nlearner:\n  search: {sims: 50, c_puct: 0}\n", "t.yaml:3:30: learner.search.c_puct: expected a number in (0, 100], got '0'" },
	{ "env: {name: connect4}\nlearner:\n  search:\n    dirichlet_alpha: 0\n", "t.yaml:4:22: learner.search.dirichlet_alpha: expected a number in (0, 100]" },
	{ "env: {name: connect4}\nlearner:\n  search: {noise_frac: 1.5}\n", "t.yaml:3:24: learner.search.noise_frac: expected a number in [0, 1]" },
	{ "env: {name: connect4}\nlearner:\n  search: {pg_coef: -1}\n", "learner.search.pg_coef: expected a number in [0, 10]" },
	{ "env: {name: connect4}\nlearner:\n  search: {temperature_moves: 2.5}\n", "learner.search.temperature_moves: expected a whole number" },
	{ "env: {name: connect4}\nlearner:\n  search: {sims: 16, fast_sims: 32}\n", "t.yaml:3:22: learner.search.fast_sims: 32 is more than learner.search.sims (16)" },
	{ "env: {name: connect4}\nlearner:\n  search: {sims: 16, fast_sims: 4, full_frac: 0}\n", "learner.search.full_frac: must be more than 0 with fast_sims" },
	{ "env: {name: connect4}\nlearner:\n  search: {simulations: 50}\n", "t.yaml:3:12: unknown key 'learner.search.simulations'" },
	{ "env: {name: kuhn}\nlearner:\n  search: {sims: 50}\n", "t.yaml:3:12: learner.search.sims: game 'kuhn' has chance; tree search needs a sequential game without chance" },
	{ "env: {name: rps}\nlearner:\n  search: {sims: 50}\n", "t.yaml:3:12: learner.search.sims: game 'rps' has simultaneous moves" },
	{ "env: {name: connect4}\ncollectors: {processes: true}\nlearner:\n  search: {sims: 50}\n", "t.yaml:4:12: learner.search.sims: searches the env in the collector's thread, and collectors.processes hosts envs in child processes" },
	{ "env: {name: kuhn}\nmodel:\n  - dense: 8\n  - gru: 8\nlearner:\n  search: {sims: 50}\n", "learner.search.sims: the model has a recurrent core (gru)" },
	{ "env: {name: kuhn}\nmodel:\n  - dense: 8\n  - gru: 8\nlearner:\n  mmd_eta: 0.3\n", "t.yaml:6:3: learner.mmd_eta: the model has a recurrent core (gru)" },
	{ "env: {name: connect4}\nlearner:\n  mmd_eta: 0.3\n  search: {sims: 8}\n", "t.yaml:3:3: learner.mmd_eta: learner.search gives the policy its target already" },
	{ "learner:\n  mmd_eta: -0.1\n", "t.yaml:2:12: learner.mmd_eta: expected a number in [0, 100]" },
	{ "env: {name: tictactoe, remote: '127.0.0.1:1', serve: 'true'}\nlearner:\n  search: {sims: 50}\n", "t.yaml:3:12: learner.search.sims: searches the game where the collector plays it, and env.remote plays it in a game server" },
	/* Cross-key rules name the key and its place. */
	/* The players module's rules, from brain_opts_check, placed at the
	 * first key of the section they name. */
	{ "roles:\n  main:\n    pfsp: 0.6\n", "t.yaml:3:5: roles.main.pfsp: pfsp + sp + verification must be 1 (each in [0, 1]), is 1.1" },
	{ "roles:\n  self_play:\n    uniform: 0.1\n    sp: 0.5\n", "t.yaml:3:5: roles.self_play.uniform: sp + uniform + pfsp + nash must be 1" },
	{ "players:\n  main: 0\n", "t.yaml:2:3: players.main: a league needs at least one learning player" },
	{ "players:\n  main: 0\n  main_exploiter: 1\n", "t.yaml:2:3: players.main: main exploiters need a main player" },
	{ "env: {name: connect4}\nlearner:\n  search: {sims: 8, value: tree}\n", "t.yaml:3:28: learner.search.value: expected one of net, search, got 'tree'" },
	{ "snapshot:\n  prune: lru\n", "t.yaml:2:10: snapshot.prune: expected one of fifo, nash, got 'lru'" },
	{ "snapshot:\n  steps: 100\n  prune: nash\n", "t.yaml:3:3: snapshot.prune: nash needs a bound: set snapshot.keep (0 keeps every snapshot, so nothing is pruned)" },
	{ "snapshot:\n  prune: nash\n  keep: 4\n  keep_newest: 5\n", "t.yaml:4:3: snapshot.keep_newest: 5 is more than snapshot.keep (4)" },
	{ "snapshot:\n  keep_newest: 0\n", "t.yaml:2:16: snapshot.keep_newest: expected a whole number in [1, 1000000000], got '0'" },
	{ "collectors:\n  envs: 4\n", "collectors.wait_num: 7 is more than collectors.envs (4)" },
	{ "learner:\n  batch: 100\n", "learner.minibatch: 256 is more than learner.batch (100)" },
	{ "budget:\n  seconds: 0\n", "set at least one budget" },
	{ "learner:\n  lr_schedule: linear\nbudget:\n  seconds: 0\n  jobs: 9\n", "t.yaml:2:3: learner.lr_schedule: linear runs over budget.seconds, which is 0" },
	/* league.deterministic: one collector of one env, a budget in jobs,
	 * no clock, league jobs only */
	{ "league: {deterministic: true}\ncollectors: {count: 2, envs: 1, wait_num: 1}\nbudget: {seconds: 0, jobs: 9}\n", "t.yaml:2:14: collectors.count: league.deterministic runs one collector (this is 2)" },
	{ "league: {deterministic: true}\ncollectors: {envs: 2, wait_num: 1}\nbudget: {seconds: 0, jobs: 9}\n", "collectors.envs: league.deterministic plays one env (this is 2)" },
	{ "league: {deterministic: true}\ncollectors: {envs: 1, wait_num: 1}\nbudget: {seconds: 0, env_steps: 900}\n", "budget.jobs: league.deterministic needs a budget in jobs" },
	{ "league: {deterministic: true}\ncollectors: {envs: 1, wait_num: 1}\nbudget: {seconds: 60, jobs: 9}\n", "t.yaml:3:10: budget.seconds: league.deterministic runs on no clock: set it to 0" },
	{ "league: {deterministic: true}\ncollectors: {envs: 1, wait_num: 1}\nbudget: {seconds: 0, jobs: 9}\nmatchmaking: {baselines: random, baseline_share: 0.2}\n", "matchmaking.baseline_share: league.deterministic plays league jobs only" },
	{ "league: {deterministic: true, mode: psro}\nplayers: {main: 0, self_play: 1}\nsnapshot: {keep: 10}\ncollectors: {envs: 1, wait_num: 1}\nbudget: {seconds: 0, jobs: 9}\n", "league.mode: league.deterministic runs the league mode only" },
	/* league.mode psro: best responders only */
	{ "league: {mode: psro}\n", "league.mode psro trains self-play players only" },
	{ "league: {mode: psro}\nplayers: {main: 0, self_play: 2}\nsnapshot: {keep: 100}\n", "league.mode psro keeps its population within 128 members" },
	{ "league: {deterministic: true}\ncollectors: {envs: 1, wait_num: 1}\nbudget: {seconds: 0, jobs: 9}\neval: {share: 0.1, baselines: random}\n", "eval.share: league.deterministic plays league jobs only" },
	{ "league: {mode: pbt}\n", "t.yaml:1:16: league.mode: expected one of league, psro" },
	{ "psro: {solver: fictitious}\n", "psro.solver: expected one of nash, uniform, alpha_rank, prd" },
	{ "env:\n  name: matrix\n", "env.matrix: the matrix game needs its payoff matrix" },
	{ "server:\n  listen: 0.0.0.0\n", "t.yaml:2:3: server.listen: listening beyond loopback needs server.token_file" },
	{ "server:\n  listen: 0.0.0.0\n  token_file: tok\n", "t.yaml:2:3: server.listen: listening beyond loopback without TLS: set server.tls (cert, key, ca) or, to send the token in clear, server.insecure: true" },
	{ "server:\n  tls:\n    cert: a.pem\n    ca: ca.pem\n", "t.yaml:3:5: server.tls.cert: TLS needs server.tls.cert, key and ca: server.tls.key is missing" },
	{ "server:\n  tls:\n    verify_peers: true\n", "t.yaml:3:5: server.tls.verify_peers: mutual TLS needs server.tls.cert, key and ca" },
	{ "eval:\n  baselines: minimax\n", "t.yaml:2:3: eval.baselines: baseline 'minimax' plays tictactoe, not rps" },
	{ "env: {name: tictactoe}\neval:\n  baselines: random, alphabeta:2\n", "eval.baselines: baseline 'alphabeta:2' plays connect4 and othello, not tictactoe" },
	{ "env: {name: connect4}\neval:\n  baselines: alphabeta:13\n", "eval.baselines: baseline 'alphabeta:13': depth must be 1..12 for connect4" },
	{ "eval:\n  baselines: random,random\n", "eval.baselines: 'random' named twice" },
	{ "eval:\n  baselines: random,\n", "eval.baselines: empty or overlong entry" },
	{ "eval:\n  baselines: greedy\n", "eval.baselines: unknown baseline 'greedy'" },
	{ "eval:\n  share: 0.95\n", "eval.share: expected a number in [0, 0.9]" },
	{ "matchmaking:\n  baseline_share: 0.3\n", "t.yaml:2:3: matchmaking.baseline_share: is 0.3 but matchmaking.baselines names none" },
	{ "matchmaking:\n  baselines: minimax\n", "matchmaking.baselines: baseline 'minimax' plays tictactoe, not rps" },
	{ "matchmaking:\n  baselines: auto\n", "matchmaking.baselines: unknown baseline 'auto'" },
	{ "matchmaking:\n  baselines: random, random\n", "matchmaking.baselines: 'random' named twice" },
	{ "matchmaking:\n  baseline_share: 1\n", "matchmaking.baseline_share: expected a number in [0, 0.9]" },
	{ "env: {name: connect4}\neval: {baselines: 'alphabeta:1,alphabeta:2,alphabeta:3,alphabeta:4,alphabeta:5'}\nmatchmaking: {baselines: 'alphabeta:5,alphabeta:6,alphabeta:7,alphabeta:8,random'}\n", "matchmaking.baselines: eval.baselines and matchmaking.baselines name more than 8 baselines together" },
	/* Values the config once allowed and a module then refused. */
	{ "payoff:\n  decay: 0\n", "t.yaml:2:10: payoff.decay: expected a number in (0, 1], got '0'" },
	{ "collectors:\n  envs: 4097\n  wait_num: 1\n", "collectors.envs: expected a whole number in [1, 4096]" },
	{ "learner:\n  batch: 67108864\n", "learner.batch: expected a whole number in [1, 66060288]" },
	{ "learner:\n  adam_beta2: 1\n", "learner.adam_beta2: expected a number in [0, 1), got '1'" },
	/* Nothing read it: the collector runs one worker per env. */
	{ "collectors:\n  threads: 2\n", "t.yaml:2:3: unknown key 'collectors.threads'" },
};

/* snapshot.prune and keep_newest reach the brain's options. */
START_TEST(snapshot_prune_maps_to_the_brain)
{
	struct cfg c;
	struct brain_opts o;
	char err[512] = "";

	ck_assert_msg(load(&c, "snapshot:\n  keep: 8\n  prune: nash\n"
			      "  keep_newest: 2\n", err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(c.snapshot.prune, CFG_PRUNE_NASH);
	league_brain_opts(&c, &o);
	ck_assert_int_eq(o.snapshot_prune, BRAIN_PRUNE_NASH);
	ck_assert_uint_eq(o.snapshot_keep, 8);
	ck_assert_uint_eq(o.snapshot_keep_newest, 2);
	ck_assert_msg(load(&c, "snapshot:\n  keep: 8\n", err, sizeof err) == 0,
		      "%s", err);
	league_brain_opts(&c, &o);
	ck_assert_int_eq(o.snapshot_prune, BRAIN_PRUNE_FIFO);
}
END_TEST

START_TEST(search_value_reaches_the_collector)
{
	struct cfg c;
	struct coll_opts o;
	char err[512] = "";

	ck_assert_msg(load(&c, "env: {name: connect4}\nlearner:\n  search: "
			      "{sims: 8, value: search}\n", err,
			      sizeof err) == 0, "%s", err);
	ck_assert_int_eq(c.learner.search.value, CFG_SEARCH_VALUE_SEARCH);
	league_coll_opts(&c, 0, &o);
	ck_assert_int_eq(o.search.search_value, 1);
	ck_assert_msg(load(&c, "env: {name: connect4}\nlearner:\n  search: "
			      "{sims: 8}\n", err, sizeof err) == 0, "%s", err);
	league_coll_opts(&c, 0, &o);
	ck_assert_int_eq(o.search.search_value, 0);
}
END_TEST

START_TEST(eval_baselines_resolve)
{
	static const struct {
		const char *yaml;
		const char *want[3];
	} cases[] = {
		{ "eval: {share: 0.1}\n", { "random" } },
		{ "env: {name: tictactoe}\n", { "random", "minimax" } },
		{ "env: {name: connect4, connect4_depth: 3}\n",
		  { "random", "alphabeta:3" } },
		{ "env: {name: connect4}\neval: {baselines: ' alphabeta:5 ,"
		  "random'}\n", { "alphabeta:5", "random" } },
		/* The baselines' own default depth, as the collector plays
		 * it. */
		{ "env: {name: connect4}\neval: {baselines: alphabeta}\n",
		  { "alphabeta:4" } },
	};
	char out[CFG_BASELINES_MAX][CFG_BASELINE_MAX], err[256];

	for (size_t i = 0; i < LG_ARRAY_LEN(cases); i++) {
		struct cfg c;
		size_t n, want = 0;
		ck_assert_int_eq(load(&c, cases[i].yaml, err, sizeof err), 0);
		ck_assert_int_eq(cfg_eval_baselines(&c, out, &n, err,
						    sizeof err), 0);
		while (want < 3 && cases[i].want[want])
			want++;
		ck_assert_uint_eq(n, want);
		for (size_t k = 0; k < n; k++)
			ck_assert_str_eq(out[k], cases[i].want[k]);
	}
}
END_TEST

/* A collector may be asked to play the evaluation baselines and the
 * training ones: their union, the evaluation ones first, each once. */
START_TEST(training_baselines_join_the_evaluation_ones)
{
	char out[CFG_BASELINES_MAX][CFG_BASELINE_MAX], err[256];
	struct cfg c;
	size_t n;

	ck_assert_int_eq(load(&c, "env: {name: connect4}\n"
			      "matchmaking: {baseline_share: 0.5, baselines: "
			      "'alphabeta:3, alphabeta:02, random'}\n", err,
			      sizeof err), 0);
	ck_assert_int_eq(cfg_train_baselines(&c, out, &n, err, sizeof err),
			 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(out[1], "alphabeta:2");
	ck_assert_int_eq(cfg_all_baselines(&c, out, &n, err, sizeof err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(out[0], "random");
	ck_assert_str_eq(out[1], "alphabeta:2");
	ck_assert_str_eq(out[2], "alphabeta:3");
	/* None by default. */
	ck_assert_int_eq(load(&c, "env: {name: connect4}\n", err, sizeof err),
			 0);
	ck_assert_int_eq(cfg_train_baselines(&c, out, &n, err, sizeof err),
			 0);
	ck_assert_uint_eq(n, 0);
}
END_TEST

/* model.conv becomes the net's torso over the game's planes. */
START_TEST(conv_torso_reaches_the_shape)
{
	struct cfg c;
	char err[512] = "";
	struct env_spec spec;
	struct nn_shape s;
	nn *n = NULL;

	ck_assert_msg(load(&c, "env: {name: connect4}\nmodel:\n  conv: [16, 8]"
			       "\n  conv_stride: 2\n  hidden: [32]\n",
			   err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(env_check("connect4", NULL, &spec, err, sizeof err),
			 0);
	league_nn_shape(&c, &spec, &s);
	ck_assert_uint_eq(s.nconv, 2);
	ck_assert_uint_eq(s.planes[0], 3);
	ck_assert_uint_eq(s.planes[1], 6);
	ck_assert_uint_eq(s.planes[2], 7);
	ck_assert_uint_eq(s.conv[0].channels, 16);
	ck_assert_uint_eq(s.conv[1].channels, 8);
	ck_assert_uint_eq(s.conv[1].kernel, 3);
	ck_assert_uint_eq(s.conv[1].stride, 2);
	ck_assert_uint_eq(s.conv[1].pad, 1);
	ck_assert_uint_eq(s.conv[2].channels, 0);
	ck_assert_int_eq(nn_new(&n, &s, 1), 0);
	nn_free(n);
}
END_TEST

/* model.layers (or `model:` as the list) becomes the net: the conv torso
 * with its residual blocks, the dense layers, every activation; it
 * round-trips through the emitted YAML, and the net it names builds. */
START_TEST(layers_reach_the_shape)
{
	struct cfg c, d, e;
	char err[512] = "";
	struct env_spec spec;
	struct nn_shape s;
	lg_buf y = { 0 };
	nn *n = NULL;
	const char *list =
		"  - conv2d: {channels: 16, kernel: 3, stride: 1}\n"
		"  - relu\n"
		"  - residual: {channels: 16, activation: tanh}\n"
		"  - residual: 16\n"
		"  - conv2d: {channels: 4, kernel: 1}\n"
		"  - flatten\n"
		"  - dense: 32\n"
		"  - tanh\n"
		"  - dense: 8\n";
	char yaml[1024], nested[1024];

	snprintf(yaml, sizeof yaml, "env: {name: connect4}\nmodel:\n%s", list);
	ck_assert_msg(load(&c, yaml, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(env_check("connect4", NULL, &spec, err, sizeof err),
			 0);
	league_nn_shape(&c, &spec, &s);
	ck_assert_uint_eq(s.nconv, 4);
	ck_assert_uint_eq(s.planes[0], 3);
	ck_assert_uint_eq(s.planes[2], 7);
	const struct nn_conv want[] = {
		{ 16, 3, 1, 1, 0, NN_LACT_RELU },
		{ 16, 3, 1, 1, 1, NN_LACT_TANH },
		{ 16, 3, 1, 1, 1, NN_LACT_RELU },
		{ 4, 1, 1, 0, 0, NN_LACT_NONE },
	};
	for (int i = 0; i < 4; i++)
		ck_assert_msg(!memcmp(&s.conv[i], &want[i], sizeof want[i]),
			      "conv[%d]: %u %u %u %u %u %u", i,
			      s.conv[i].channels, s.conv[i].kernel,
			      s.conv[i].stride, s.conv[i].pad,
			      s.conv[i].residual, s.conv[i].act);
	ck_assert_uint_eq(s.nhidden, 2);
	ck_assert_uint_eq(s.hidden[0], 32);
	ck_assert_uint_eq(s.hidden_act[0], NN_LACT_TANH);
	ck_assert_uint_eq(s.hidden[1], 8);
	ck_assert_uint_eq(s.hidden_act[1], NN_LACT_NONE);
	ck_assert_int_eq(nn_new(&n, &s, 1), 0);
	nn_free(n);
	/* the same list under model.layers */
	snprintf(nested, sizeof nested, "env: {name: connect4}\nmodel:\n  "
		 "layers:\n");
	for (const char *l = list; *l;) {
		const char *eol = strchr(l, '\n');
		snprintf(nested + strlen(nested), sizeof nested - strlen(nested),
			 "  %.*s\n", (int)(eol - l), l);
		l = eol + 1;
	}
	ck_assert_msg(load(&d, nested, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(memcmp(&c, &d, sizeof c), 0);
	/* emitted and read back: the same config, without the shorthand */
	ck_assert_int_eq(cfg_emit_yaml(&c, &y), 0);
	ck_assert_int_eq(lg_buf_append(&y, "", 1), 0);
	ck_assert_ptr_null(strstr((char *)y.data, " hidden: "));
	ck_assert_msg(cfg_load_string(&e, (char *)y.data, y.len - 1, "emitted",
				      err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(memcmp(&c, &e, sizeof c), 0);
	lg_buf_free(&y);
}
END_TEST

/* A recurrent core: the last layer of the list, the shape's gru and the
 * collector's state; emitted and read back. */
START_TEST(gru_layer_reaches_the_shape)
{
	struct cfg c, e;
	char err[512] = "";
	struct env_spec spec;
	struct nn_shape s;
	struct coll_opts co;
	lg_buf y = { 0 };
	nn *n = NULL;
	const char *yaml = "env: {name: leduc_short}\nmodel:\n"
			   "  - dense: 32\n  - tanh\n  - gru: 16\n"
			   "learner: {seq_len: 8}\n";

	ck_assert_msg(load(&c, yaml, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(env_check("leduc_short", NULL, &spec, err,
				   sizeof err), 0);
	league_nn_shape(&c, &spec, &s);
	ck_assert_uint_eq(s.nhidden, 1);
	ck_assert_uint_eq(s.hidden[0], 32);
	ck_assert_uint_eq(s.gru, 16);
	ck_assert_int_eq(nn_new(&n, &s, 1), 0);
	ck_assert_uint_eq(nn_state_len(n), 16);
	nn_free(n);
	league_coll_opts(&c, 4, &co);
	ck_assert_uint_eq(co.state_len, 16);
	ck_assert_int_eq(cfg_emit_yaml(&c, &y), 0);
	ck_assert_int_eq(lg_buf_append(&y, "", 1), 0);
	ck_assert_ptr_nonnull(strstr((char *)y.data, "{gru: 16}"));
	ck_assert_msg(cfg_load_string(&e, (char *)y.data, y.len - 1, "emitted",
				      err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(memcmp(&c, &e, sizeof c), 0);
	ck_assert_uint_eq(e.learner.seq_len, 8);
	lg_buf_free(&y);
}
END_TEST

/* A config that came inside a file from elsewhere (cfg_load_sealed, an
 * agent file's) names no code, command, address or file: each is refused
 * at its key, before anything would use it (the plugin does not exist,
 * and the error is the sealed one, not "cannot find"); a config without
 * them loads. */
START_TEST(sealed_configs_name_no_code_or_address)
{
	static const struct {
		const char *yaml, *says;
	} cases[] = {
		{ "env: {name: tictactoe, plugin: /nonexistent/g.so}\n",
		  "s.yaml:1:24: env.plugin: not taken from this file" },
		{ "env: {name: connect4, remote: '127.0.0.1:9'}\n",
		  "env.remote: not taken from this file" },
		{ "env: {name: connect4, remote: '127.0.0.1:9', serve: 'x'}\n",
		  "env.remote: not taken" },
		{ "env: {name: rps}\nserver: {tls: {cert: a, key: b, ca: c}}\n",
		  "server.tls.cert: not taken from this file" },
	};
	static struct cfg c;
	char err[512];

	for (size_t k = 0; k < LG_ARRAY_LEN(cases); k++) {
		ck_assert_int_eq(cfg_load_sealed(&c, cases[k].yaml,
						 strlen(cases[k].yaml),
						 "s.yaml", err, sizeof err),
				 LG_ECONFIG);
		ck_assert_msg(strstr(err, cases[k].says), "case %zu: %s", k,
			      err);
	}
	ck_assert_int_eq(cfg_load_sealed(&c, "env: {name: connect4}\n", 22,
					 "s.yaml", err, sizeof err), 0);
}
END_TEST

START_TEST(bad_inputs_are_named)
{
	struct cfg c;
	char err[512] = "";
	int rc;

	unsetenv("LEAGUE_TOKEN");
	rc = load(&c, bad[_i].yaml, err, sizeof err);
	ck_assert_msg(rc == LG_ECONFIG, "case %d accepted: %s", _i, bad[_i].yaml);
	ck_assert_msg(strstr(err, bad[_i].msg), "case %d: got '%s', want '%s'",
		      _i, err, bad[_i].msg);
}
END_TEST

/* Table-driven: one past each numeric bound is refused, naming the key. */
START_TEST(every_bound_is_enforced)
{
	size_t n;
	const struct cfg_key *k = cfg_keys(&n);
	int checked = 0;

	for (size_t i = 0; i < n; i++) {
		if (k[i].type != CFG_T_U64 && k[i].type != CFG_T_DOUBLE)
			continue;
		/* An open bound itself is out too. */
		double probes[4] = { k[i].lo - 1, k[i].hi * 2 + 1, k[i].lo,
				     k[i].hi };
		int nprobe = 2;
		if (k[i].flags & CFG_F_LO_OPEN)
			nprobe = 3;
		if (k[i].flags & CFG_F_HI_OPEN)
			probes[nprobe++] = k[i].hi;
		for (int j = 0; j < nprobe; j++) {
			/* Nest the dotted path as YAML mappings. */
			char yaml[512] = "", err[512] = "", path[128];
			snprintf(path, sizeof path, "%s", k[i].path);
			int depth = 0;
			char *save, *tok = strtok_r(path, ".", &save), *next;
			for (; (next = strtok_r(NULL, ".", &save)); tok = next)
				snprintf(yaml + strlen(yaml),
					 sizeof yaml - strlen(yaml),
					 "%*s%s:\n", 2 * depth++, "", tok);
			snprintf(yaml + strlen(yaml), sizeof yaml - strlen(yaml),
				 "%*s%s: %.17g\n", 2 * depth, "", tok, probes[j]);
			struct cfg c;
			if (j == 0 && k[i].lo <= 0 && k[i].type == CFG_T_U64)
				continue; /* -1 is a different error; below */
			ck_assert_msg(load(&c, yaml, err, sizeof err) == LG_ECONFIG,
				      "%s accepted %.17g", k[i].path, probes[j]);
			ck_assert_msg(strstr(err, k[i].path), "%s: %s", k[i].path,
				      err);
			checked++;
		}
	}
	ck_assert_int_gt(checked, 100);
}
END_TEST

START_TEST(emit_round_trips)
{
	struct cfg a, b;
	lg_buf y = { 0 };
	char err[512] = "";
	const char *src =
		"env:\n  name: matrix\n  matrix: [[0.1, -2.5e-7], [3, 1e5]]\n"
		"league:\n  name: \"quote\\\" back\\\\slash\"\n"
		"model:\n  hidden: [7, 9, 11]\n"
		"learner:\n  lr: 0.1\n  adam_eps: 1.234567890123e-9\n";

	ck_assert_msg(load(&a, src, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(cfg_emit_yaml(&a, &y), 0);
	ck_assert_msg(cfg_load_string(&b, (char *)y.data, y.len, "emitted", err,
				      sizeof err) == 0, "%s", err);
	ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
	ck_assert_str_eq(b.league.name, "quote\" back\\slash");
	/* Every key appears in the output. */
	size_t n;
	const struct cfg_key *k = cfg_keys(&n);
	ck_assert_int_eq(lg_buf_append(&y, "", 1), 0);
	for (size_t i = 0; i < n; i++) {
		const char *leaf = strrchr(k[i].path, '.') + 1;
		char needle[96];
		snprintf(needle, sizeof needle, " %s: ", leaf);
		ck_assert_msg(strstr((char *)y.data, needle), "%s missing",
			      k[i].path);
	}
	lg_buf_free(&y);
}
END_TEST

START_TEST(shipped_configs_are_valid)
{
	char path[512];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof path, "%s/configs", tu_src_dir());
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		char file[800], err[512] = "";
		struct cfg c;
		snprintf(file, sizeof file, "%s/%s", path, e->d_name);
		ck_assert_msg(cfg_load_file(&c, file, err, sizeof err) == 0,
			      "%s", err);
		n++;
	}
	closedir(d);
	ck_assert_int_ge(n, 2);
}
END_TEST

START_TEST(docs_config_md_is_current)
{
	char path[512];
	lg_buf want = { 0 };
	FILE *f;

	snprintf(path, sizeof path, "%s/docs/config.md", tu_src_dir());
	ck_assert_int_eq(cfg_emit_markdown(&want), 0);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s missing: run make docs", path);
	char *have = calloc(1, want.len + 2);
	size_t got = fread(have, 1, want.len + 1, f);
	fclose(f);
	ck_assert_msg(got == want.len && !memcmp(have, want.data, want.len),
		      "docs/config.md is stale: run make docs");
	free(have);
	lg_buf_free(&want);
}
END_TEST

/* The default config, translated, is each module's own defaults: a
 * default changed on one side only fails here. Field by field for the
 * message, then the whole struct so a field the translation sets and this
 * list forgets fails too. Where the two differ on purpose the module's
 * value is overwritten first, with the reason. */
#define SAME(f) ck_assert_msg(t.f == d.f, "%s: config default differs from " \
			      "the module's", #f)

START_TEST(defaults_are_the_modules_defaults)
{
	struct cfg c;
	char err[512] = "";

	ck_assert_msg(cfg_defaults(&c, err, sizeof err) == 0, "%s", err);
	{
		struct brain_opts t, d;
		league_brain_opts(&c, &t);
		brain_opts_default(&d);
		SAME(seed); SAME(n_main); SAME(n_main_exploiter);
		SAME(n_league_exploiter); SAME(n_self_play);
		SAME(main.pfsp); SAME(main.sp); SAME(main.verification);
		SAME(main.weighting); SAME(main.sp_min_win_rate);
		SAME(main.verify_exploiter_win_rate);
		SAME(main.verify_historical_win_rate);
		SAME(main_exploiter.main_min_win_rate);
		SAME(main_exploiter.weighting); SAME(main_exploiter.reset_prob);
		SAME(league_exploiter.weighting);
		SAME(league_exploiter.reset_prob);
		SAME(self_play.sp); SAME(self_play.uniform);
		SAME(self_play.pfsp); SAME(self_play.nash);
		SAME(self_play.weighting); SAME(pfsp_exponent);
		SAME(job_episodes); SAME(log_decisions); SAME(snapshot_steps);
		SAME(snapshot_win_rate); SAME(snapshot_max_mult);
		SAME(snapshot_keep); SAME(snapshot_prune);
		SAME(snapshot_keep_newest); SAME(payoff.decay);
		SAME(payoff.min_games);
		SAME(payoff.prior); SAME(payoff.prior_strength);
		SAME(payoff.elo_k);
		ck_assert(!memcmp(&t, &d, sizeof t));
	}
	{
		struct ppo_opts t, d;
		league_ppo_opts(&c, &t);
		ppo_opts_default(&d);
		SAME(lr); SAME(lr_schedule); SAME(lr_final_frac); SAME(gamma);
		SAME(gae_lambda); SAME(clip); SAME(value_clip); SAME(vf_coef);
		SAME(ent_coef); SAME(magnet_coef); SAME(magnet_every);
		SAME(epochs); SAME(minibatch); SAME(max_grad_norm);
		SAME(adam_beta1); SAME(adam_beta2); SAME(adam_eps);
		SAME(pg_coef); SAME(policy_coef); SAME(state_weight);
		SAME(mmd_eta); SAME(mmd_alpha); SAME(mmd_clip);
		/* The module's batch_max is its cap; a league's is
		 * learner.batch plus one segment. */
		ck_assert_uint_eq(t.batch_max,
				  c.learner.batch + c.collectors.segment_len);
		d.batch_max = t.batch_max;
		/* The module leaves BLAS threading alone (0); a league
		 * learner always shards its minibatches (learner.threads). */
		ck_assert_int_eq(t.threads, 1);
		d.threads = t.threads;
		ck_assert(!memcmp(&t, &d, sizeof t));
	}
	{
		struct coll_opts t, d;
		league_coll_opts(&c, 0, &t);
		coll_opts_default(&d);
		SAME(num_envs); SAME(mode); SAME(wait_num); SAME(wait_timeout_s);
		SAME(step_timeout_s); SAME(reset_timeout_s); SAME(processes);
		SAME(segment_len); SAME(search.sims); SAME(search.c_puct);
		SAME(search.temperature_moves); SAME(search.dirichlet_alpha);
		SAME(search.noise_frac); SAME(search.fast_sims);
		SAME(search.full_frac); SAME(search.batch);
		SAME(search.search_value);
		/* The module has no game; the env options are compared
		 * below. */
		ck_assert_str_eq(t.game, "rps");
		d.game = t.game;
		d.env = t.env;
		ck_assert(!memcmp(&t, &d, sizeof t));
		/* An explicit env count wins and clamps wait_num. */
		league_coll_opts(&c, 4, &t);
		ck_assert_uint_eq(t.num_envs, 4);
		ck_assert_uint_eq(t.wait_num, 4);
	}
	{
		struct env_opts t, d;
		league_env_opts(&c, &t);
		env_opts_default(&d);
		SAME(max_steps); SAME(matrix.rows); SAME(matrix.cols);
		SAME(timing.obs_len); SAME(timing.reset_s); SAME(timing.step_s);
		SAME(timing.infer_s); SAME(timing.episode_len);
		SAME(timing.jitter_lo); SAME(timing.jitter_hi);
		/* The env's first episode seed is the league's seed. */
		ck_assert_uint_eq(t.seed, c.league.seed);
		d.seed = t.seed;
		ck_assert(!memcmp(&t, &d, sizeof t));
	}
	ck_assert_uint_eq(c.server.max_frame, NET_DEFAULT_MAX_FRAME);
}
END_TEST

/* Key k of c at its lowest (hi = 0) or highest allowed value. */
static void set_extreme(struct cfg *c, const struct cfg_key *k, int hi)
{
	double v = hi ? k->hi : k->lo;

	if (k->type == CFG_T_U64) {
		*(uint64_t *)((char *)c + k->off) = (uint64_t)v;
		return;
	}
	if (!hi && (k->flags & CFG_F_LO_OPEN))
		v = nextafter(v, k->hi);
	if (hi && (k->flags & CFG_F_HI_OPEN))
		v = nextafter(v, k->lo);
	*(double *)((char *)c + k->off) = v;
}

static int has_prefix(const char *path, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (!strncmp(path, *prefixes, strlen(*prefixes)))
			return 1;
	return 0;
}

/* A sum-to-1 group holding key k (set to v): the others at 0, or one of
 * them at 1 when v is 0, so only k's bound is on trial. */
static void fix_sums(struct cfg *c, const struct cfg_key *k, double v)
{
	double *mains[] = { &c->roles.main.pfsp, &c->roles.main.sp,
			    &c->roles.main.verification, NULL };
	double *selfs[] = { &c->roles.self_play.sp,
			    &c->roles.self_play.uniform,
			    &c->roles.self_play.pfsp, &c->roles.self_play.nash,
			    NULL };
	double *mine = (double *)((char *)c + k->off);

	for (double **g = mains; g; g = g == mains ? selfs : NULL) {
		int in = 0;
		for (double **q = g; *q; q++)
			in |= *q == mine;
		if (!in)
			continue;
		for (double **q = g; *q; q++)
			if (*q != mine)
				**q = 0;
		if (v == 0)
			*(g[0] == mine ? g[1] : g[0]) = 1;
	}
}

/* Every number the table allows for a key the players module reads
 * passes brain_opts_check, alone at its bound (the rules between keys
 * held). A bound wider than the module's fails here. */
START_TEST(bounds_pass_the_brain_check)
{
	static const char *const brain_keys[] = {
		"league.seed", "players.", "roles.", "matchmaking.",
		"snapshot.", "payoff.", NULL };
	size_t n;
	const struct cfg_key *k = cfg_keys(&n);
	struct cfg def;
	char err[512] = "";
	int tried = 0;

	ck_assert_int_eq(cfg_defaults(&def, err, sizeof err), 0);
	for (size_t i = 0; i < n; i++) {
		if ((k[i].type != CFG_T_U64 && k[i].type != CFG_T_DOUBLE) ||
		    !has_prefix(k[i].path, brain_keys))
			continue;
		for (int hi = 0; hi < 2; hi++) {
			struct cfg c = def;
			struct brain_opts o;
			set_extreme(&c, &k[i], hi);
			fix_sums(&c, &k[i], hi ? k[i].hi : k[i].lo);
			if (!c.players.main)
				c.players.self_play = 1; /* a learner */
			league_brain_opts(&c, &o);
			ck_assert_msg(brain_opts_check(&o, err, sizeof err) == 0,
				      "%s at %s: %s", k[i].path,
				      hi ? "hi" : "lo", err);
			tried++;
		}
	}
	ck_assert_int_gt(tried, 40);
}
END_TEST

/* The same for the learner: ppo_new checks every option before it
 * allocates, threads last, so an impossible thread count shows that all
 * the others passed. */
START_TEST(bounds_pass_the_ppo_check)
{
	static const char *const ppo_keys[] = {
		"learner.", "collectors.segment_len", NULL };
	struct nn_shape shape = { .obs = 2, .actions = 3, .act = NN_TANH };
	size_t n;
	const struct cfg_key *k = cfg_keys(&n);
	struct cfg def;
	char err[512] = "";
	ppo *p;
	int tried = 0;

	ck_assert_int_eq(cfg_defaults(&def, err, sizeof err), 0);
	def.learner.magnet_coef = 0.1; /* so magnet_every is checked */
	for (size_t i = 0; i < n; i++) {
		if ((k[i].type != CFG_T_U64 && k[i].type != CFG_T_DOUBLE) ||
		    !has_prefix(k[i].path, ppo_keys) ||
		    !strcmp(k[i].path, "learner.threads"))
			continue;
		for (int hi = 0; hi < 2; hi++) {
			struct cfg c = def;
			struct ppo_opts o;
			set_extreme(&c, &k[i], hi);
			league_ppo_opts(&c, &o);
			o.threads = -1;
			int rc = ppo_new(&p, NULL, &shape, &o, 1, err,
					 sizeof err);
			ck_assert_msg(rc == LG_EINVAL &&
				      strstr(err, "threads -1"), "%s at %s: %s",
				      k[i].path, hi ? "hi" : "lo", err);
			tried++;
		}
	}
	ck_assert_int_gt(tried, 30);
	/* The largest batch with the longest segment. */
	{
		struct cfg c = def;
		struct ppo_opts o;
		c.learner.batch = PPO_BATCH_MAX - COLL_SEGMENT_MAX;
		c.collectors.segment_len = COLL_SEGMENT_MAX;
		league_ppo_opts(&c, &o);
		o.threads = -1;
		int rc = ppo_new(&p, NULL, &shape, &o, 1, err, sizeof err);
		ck_assert_msg(rc == LG_EINVAL && strstr(err, "threads -1"),
			      "%s", err);
	}
	/* learner.threads itself, for real (a tiny net). */
	for (int hi = 0; hi < 2; hi++) {
		struct cfg c = def;
		struct ppo_opts o;
		c.learner.threads = hi ? PPO_THREADS_MAX : 1;
		league_ppo_opts(&c, &o);
		ck_assert_msg(ppo_new(&p, NULL, &shape, &o, 1, err,
				      sizeof err) == 0, "%s", err);
		ppo_free(p);
	}
}
END_TEST

/* And the collector: coll_new checks its options before anything else,
 * the policies after every collectors.* value. */
START_TEST(bounds_pass_the_collector_check)
{
	size_t n;
	const struct cfg_key *k = cfg_keys(&n);
	struct cfg def;
	char err[512] = "";
	coll *cl;
	int tried = 0;

	ck_assert_int_eq(cfg_defaults(&def, err, sizeof err), 0);
	for (size_t i = 0; i < n; i++) {
		if ((k[i].type != CFG_T_U64 && k[i].type != CFG_T_DOUBLE) ||
		    strncmp(k[i].path, "collectors.", 11))
			continue;
		for (int hi = 0; hi < 2; hi++) {
			struct cfg c = def;
			struct coll_opts o;
			set_extreme(&c, &k[i], hi);
			league_coll_opts(&c, 0, &o);
			o.num_policies = 0;
			int rc = coll_new(&cl, &o, err, sizeof err);
			ck_assert_msg(rc == LG_EINVAL &&
				      strstr(err, "policies"), "%s at %s: %s",
				      k[i].path, hi ? "hi" : "lo", err);
			tried++;
		}
	}
	ck_assert_int_gt(tried, 10);
}
END_TEST

START_TEST(missing_file_is_io_error)
{
	struct cfg c;
	char err[512] = "";

	ck_assert_int_eq(cfg_load_file(&c, "/nonexistent/x.yaml", err,
				       sizeof err), LG_EIO);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.yaml: cannot open"));
}
END_TEST

Suite *suite_config(void)
{
	Suite *s = suite_create("config");
	const struct tu_test core_tests[] = {
		{ defaults_are_valid_and_documented, 1 },
		{ values_are_read, 1 },
		{ snapshot_prune_maps_to_the_brain, 1 },
		{ search_value_reaches_the_collector, 1 },
		{ eval_baselines_resolve, 1 },
		{ training_baselines_join_the_evaluation_ones, 1 },
		{ conv_torso_reaches_the_shape, 1 },
		{ layers_reach_the_shape, 1 },
		{ gru_layer_reaches_the_shape, 1 },
		{ bad_inputs_are_named, (int)LG_ARRAY_LEN(bad) },
		{ sealed_configs_name_no_code_or_address, 1 },
		{ every_bound_is_enforced, 1 },
		{ emit_round_trips, 1 },
		{ shipped_configs_are_valid, 1 },
		{ docs_config_md_is_current, 1 },
		{ missing_file_is_io_error, 1 },
		{ defaults_are_the_modules_defaults, 1 },
		{ bounds_pass_the_brain_check, 1 },
		{ bounds_pass_the_ppo_check, 1 },
		{ bounds_pass_the_collector_check, 1 },
	};

	/* Pure computation, but under ASan on a busy machine the default 4 s
	 * is a wall-clock budget, not a deadline. */
	TU_TCASE(s, "core", 60, core_tests);
	return s;
}
