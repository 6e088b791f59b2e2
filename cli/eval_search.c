/*
 * cli/eval_search.c: `league eval search CONFIG`, a league's stored
 * versions of one player played against a fixed baseline twice: as the
 * raw policy (the network's most probable legal action, or a sample with
 * --sample) and as a search agent (PUCT MCTS, envs/mcts.c, with the
 * network as prior and value, --sims simulations a move). The two are
 * separate rows, labelled `policy` and `mcts:N`: the search agent is not
 * the policy the league trained, and its figures are never the policy's.
 * With --batch B > 1 the search evaluates up to B leaves a forward
 * (rounds under virtual draws, envs/mcts.c), row `mcts:N/B`.
 *
 * With --sample both agents sample their moves (the policy from its
 * probabilities, the search in proportion to its root visits; rows
 * `policy~`, `mcts~:N`): against a deterministic opponent a greedy agent
 * replays one or two games, so its "games" measure one line. With
 * --sample-moves K they sample only their first K moves of each game and
 * play greedily after (rows `policy~K`, `mcts~K:N`): different games,
 * each decided by the greedy agent, as a search agent trained with
 * learner.search.temperature_moves plays.
 *
 * The versions are the parameter lines the store still holds for the
 * player (the newest few and every snapshot's); the seconds and env
 * steps beside a version are those of its row in `league eval baselines`
 * when the league evaluated it, else '-'. Read-only: it runs beside a
 * daemon. Games alternate seats; the baseline's ties are broken by a
 * generator seeded from --seed, the game's chance by the game's seeds.
 * Each row counts its lines, the distinct games (move sequences) each
 * seat played: sampled openings repeat, and a greedy agent replays a
 * line. --average K plays the mean of K versions' parameters in a row
 * ending at each version (cli_params_mean), rows `avgK:...`.
 */
#include "cli/cli.h"
#include "conf/config.h"
#include "envs/env.h"
#include "eval/search.h"
#include "league/daemon.h" /* DAEMON_KEEP_VERSIONS, for --average's advice */

#include <stdio.h>
#include <string.h>

struct sargs {
	const char *config;
	struct eval_search_opts o;
};

int cli_policy_act(const nn *net, nn_ws *ws, const env *e, int player,
		   int sample, lg_rng *rng, int *action)
{
	return eval_policy_act(net, ws, e, player, sample, rng, action);
}

/* The arguments into a (a->o's defaults set here); CLI_USAGE with the
 * reason on stderr. */
static int parse(int argc, char **argv, struct sargs *a)
{
	struct eval_search_opts *o = &a->o;
	const struct cli_arg flags[] = {
		CLI_STRING("dir", 0, &o->dir),
		CLI_STRING("against", 0, &o->against),
		CLI_U64("sims", 0, &o->sims, 1, ENV_MCTS_SIMS_MAX),
		CLI_U64("batch", 0, &o->batch, 1, ENV_MCTS_BATCH_MAX),
		CLI_U64("games", 0, &o->games, 1, 100000),
		CLI_U64("player", 0, &o->player, 0, UINT32_MAX),
		CLI_U64("last", 0, &o->last, 1, EVAL_SEARCH_VERSIONS_MAX),
		CLI_U64("seed", 0, &o->seed, 0, UINT64_MAX / 2),
		CLI_DOUBLE("c-puct", 0, &o->c_puct, 0.01, 100),
		CLI_BOOL("sample", 0, &o->sample),
		CLI_U64("sample-moves", 0, &o->sample_moves, 1, 1000),
		CLI_U64("average", 0, &o->average, 1,
			EVAL_SEARCH_VERSIONS_MAX),
		CLI_BOOL("json", 0, &o->json),
		CLI_END,
	};
	const char *cmd = "eval search";

	o->sims = 100;
	o->batch = 1;
	o->games = 50;
	o->last = 0;
	o->seed = 1;
	o->c_puct = 1.5;
	if (cli_args_one(cmd, flags, "expected one league CONFIG file", argc,
			 argv, &a->config))
		return CLI_USAGE;
	if (!a->o.against)
		return cli_usage_error(cmd, "--against: the baseline to play, "
				       "e.g. alphabeta:2 or minimax");
	if (a->o.sample && a->o.sample_moves)
		return cli_usage_error(cmd, "--sample samples every move: "
				       "give it or --sample-moves, not both");
	return 0;
}

int cli_eval_search(int argc, char **argv)
{
	struct sargs a = { 0 };
	struct cfg c;
	struct env_opts eo;
	env *e = NULL;
	env_baseline *b = NULL;
	char err[512] = "";
	uint32_t played;
	int rc, usage;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	if (cfg_load_file(&c, a.config, err, sizeof err)) {
		fprintf(stderr, "league eval search: %s\n", err);
		return CLI_USAGE;
	}
	if (!a.o.dir)
		a.o.dir = c.league.dir;
	league_env_opts(&c, &eo);
	if ((rc = env_new(&e, c.env.name, &eo, err, sizeof err))) {
		fprintf(stderr, "league eval search: %s\n", err);
		return CLI_USAGE;
	}
	if ((rc = env_baseline_new(&b, a.o.against, e, err, sizeof err))) {
		rc = cli_usage_error("eval search", "--against: %s", err);
		goto out;
	}
	a.o.params = cli_params_mean;
	a.o.out = stdout;
	if (eval_search_run(&a.o, e, b, c.env.name, &played, &usage, err,
			    sizeof err)) {
		fprintf(stderr, "league eval search: %s\n", err);
		rc = usage ? CLI_USAGE : CLI_FAIL;
	} else if (!played) {
		fprintf(stderr, "league eval search: --average %llu: %s holds "
			"no %llu versions of player %llu in a row among the "
			"chosen ones (a league keeps its newest %d)\n",
			a.o.average, a.o.dir, a.o.average, a.o.player,
			DAEMON_KEEP_VERSIONS + 1);
		rc = CLI_USAGE;
	} else {
		rc = CLI_OK;
	}
out:
	env_baseline_free(b);
	env_free(e);
	return rc;
}
