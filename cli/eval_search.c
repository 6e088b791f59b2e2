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
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "against", required_argument, NULL, 'a' },
		{ "sims", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "games", required_argument, NULL, 'g' },
		{ "player", required_argument, NULL, 'p' },
		{ "last", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 'S' },
		{ "c-puct", required_argument, NULL, 'c' },
		{ "sample", no_argument, NULL, 'x' },
		{ "sample-moves", required_argument, NULL, 'k' },
		{ "average", required_argument, NULL, 'A' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "eval search";
	int ch;

	a->o.sims = 100;
	a->o.batch = 1;
	a->o.games = 50;
	a->o.last = 0;
	a->o.seed = 1;
	a->o.c_puct = 1.5;
	while ((ch = cli_getopt(argc, argv, cmd, "", opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'd': a->o.dir = optarg; break;
		case 'a': a->o.against = optarg; break;
		case 's':
			if (cli_opt_u64(cmd, "--sims", optarg, 1,
					ENV_MCTS_SIMS_MAX, &a->o.sims))
				return CLI_USAGE;
			break;
		case 'b':
			if (cli_opt_u64(cmd, "--batch", optarg, 1,
					ENV_MCTS_BATCH_MAX, &a->o.batch))
				return CLI_USAGE;
			break;
		case 'g':
			if (cli_opt_u64(cmd, "--games", optarg, 1, 100000,
					&a->o.games))
				return CLI_USAGE;
			break;
		case 'p':
			if (cli_opt_u64(cmd, "--player", optarg, 0,
					UINT32_MAX, &a->o.player))
				return CLI_USAGE;
			break;
		case 'l':
			if (cli_opt_u64(cmd, "--last", optarg, 1,
					EVAL_SEARCH_VERSIONS_MAX, &a->o.last))
				return CLI_USAGE;
			break;
		case 'S':
			if (cli_opt_u64(cmd, "--seed", optarg, 0,
					UINT64_MAX / 2, &a->o.seed))
				return CLI_USAGE;
			break;
		case 'c':
			if (cli_opt_double(cmd, "--c-puct", optarg, 0.01, 100,
					   &a->o.c_puct))
				return CLI_USAGE;
			break;
		case 'x': a->o.sample = 1; break;
		case 'k':
			if (cli_opt_u64(cmd, "--sample-moves", optarg, 1, 1000,
					&a->o.sample_moves))
				return CLI_USAGE;
			break;
		case 'A':
			if (cli_opt_u64(cmd, "--average", optarg, 1,
					EVAL_SEARCH_VERSIONS_MAX, &a->o.average))
				return CLI_USAGE;
			break;
		case 'j': a->o.json = 1; break;
		default: return cli_usage_error(cmd, "unexpected option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error(cmd, "expected one league CONFIG file");
	a->config = argv[optind];
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
