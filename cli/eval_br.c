/*
 * cli/eval_br.c: `league eval br DIR --player ID | --mixture`, the
 * approximate exploitability of a league's player by a trained best
 * response (eval/bestresp.h has the model): a fresh network of the
 * league's model shape, trained with the league's learner settings
 * against the frozen opponent for --budget seconds, its value measured
 * at --points evaluations with a 95% interval.
 *
 * The opponent is a stored player's parameter version (the newest unless
 * --version; a snapshot is its parent's frozen version), or the league's
 * meta-Nash mixture over its newest active snapshots, the one the
 * daemon hands the evaluator (payoff_meta_nash over the newest
 * BRAIN_NASH_MAX; weights outside its support dropped), one snapshot
 * drawn per episode. For a game with a tree (kuhn, leduc, ...) the exact
 * NashConv of the same opponent is printed beside, unless --no-exact.
 *
 * DIR is opened read-only and closed before training: it runs beside a
 * live daemon, on the parameters committed when it started.
 */
#include "cli/cli.h"
#include "eval/bestresp.h"
#include "eval/brleague.h"
#include "players/players.h"
#include "storage/storage.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "eval br"

struct bargs {
	const char *dir;
	unsigned long long player, version, steps, points, episodes,
		final_episodes, seed, envs;
	double budget, lr, ent_coef, magnet_coef;
	int mixture, sample, json, csv, no_exact, seed_set;
};

/* One option ch (its value optarg) into a; *have_player when it is
 * --player. 0, or CLI_USAGE with the reason on stderr. */
static int parse_option(int ch, struct bargs *a, int *have_player)
{
	int bad = 0;

	switch (ch) {
	case -2: return CLI_USAGE;
	case 'p':
		*have_player = 1;
		if (!strcmp(optarg, "nash"))
			a->mixture = 1;
		else
			bad = cli_opt_u64(CMD, "--player", optarg, 0,
					  UINT32_MAX - 1, &a->player);
		break;
	case 'v':
		bad = cli_opt_u64(CMD, "--version", optarg, 0,
				  UINT32_MAX - 1, &a->version);
		break;
	case 'm': a->mixture = 1; break;
	case 'b':
		bad = cli_opt_double(CMD, "--budget", optarg, 0.01,
				     LEAGUE_BR_BUDGET_MAX, &a->budget);
		break;
	case 'S':
		bad = cli_opt_u64(CMD, "--steps", optarg, 1,
				  UINT64_MAX / 2, &a->steps);
		break;
	case 'P':
		bad = cli_opt_u64(CMD, "--points", optarg, 1,
				  LEAGUE_BR_POINTS_MAX, &a->points);
		break;
	case 'e':
		bad = cli_opt_u64(CMD, "--episodes", optarg, 4,
				  LEAGUE_BR_EPISODES_MAX, &a->episodes);
		break;
	case 'f':
		bad = cli_opt_u64(CMD, "--final-episodes", optarg, 4,
				  LEAGUE_BR_EPISODES_MAX,
				  &a->final_episodes);
		break;
	case 'x': a->sample = 1; break;
	case 's':
		bad = cli_opt_u64(CMD, "--seed", optarg, 0,
				  UINT64_MAX / 2, &a->seed);
		a->seed_set = 1;
		break;
	case 'E':
		bad = cli_opt_u64(CMD, "--envs", optarg, 1,
				  LEAGUE_BR_ENVS_MAX, &a->envs);
		break;
	case 'l':
		bad = cli_opt_double(CMD, "--lr", optarg, 0, 1, &a->lr);
		break;
	case 'n':
		bad = cli_opt_double(CMD, "--ent-coef", optarg, 0, 10,
				     &a->ent_coef);
		break;
	case 'g':
		bad = cli_opt_double(CMD, "--magnet-coef", optarg, 0,
				     100, &a->magnet_coef);
		break;
	case 'X': a->no_exact = 1; break;
	case 'j': a->json = 1; a->csv = 0; break;
	case 'F':
		a->json = !strcmp(optarg, "json");
		a->csv = !strcmp(optarg, "csv");
		if (!a->json && !a->csv && strcmp(optarg, "table"))
			return cli_usage_error(CMD, "--format: table, "
					       "csv or json, not '%s'",
					       optarg);
		break;
	default: return cli_usage_error(CMD, "unexpected option");
	}
	return bad ? CLI_USAGE : 0;
}

/* What the options say together, once all are read: one league DIR
 * (argv[optind]), whom to exploit, even episode counts. 0, or CLI_USAGE
 * with the reason on stderr. */
static int check_args(int argc, char **argv, struct bargs *a,
		      int have_player)
{
	if (optind + 1 != argc)
		return cli_usage_error(CMD, "expected one league DIR");
	a->dir = argv[optind];
	if (!have_player && !a->mixture)
		return cli_usage_error(CMD, "whom to exploit? --player ID, or "
				       "--mixture (--player nash) for the "
				       "league's meta-Nash mixture");
	if (a->mixture && a->player != ULLONG_MAX)
		return cli_usage_error(CMD, "--player ID or --mixture, not "
				       "both");
	if (a->mixture && a->version != ULLONG_MAX)
		return cli_usage_error(CMD, "--version goes with --player ID");
	if (a->episodes % 2 || a->final_episodes % 2)
		return cli_usage_error(CMD, "--episodes and --final-episodes: "
				       "even counts (half from each seat)");
	return 0;
}

static int parse(int argc, char **argv, struct bargs *a)
{
	static const struct option opts[] = {
		{ "player", required_argument, NULL, 'p' },
		{ "version", required_argument, NULL, 'v' },
		{ "mixture", no_argument, NULL, 'm' },
		{ "budget", required_argument, NULL, 'b' },
		{ "steps", required_argument, NULL, 'S' },
		{ "points", required_argument, NULL, 'P' },
		{ "episodes", required_argument, NULL, 'e' },
		{ "final-episodes", required_argument, NULL, 'f' },
		{ "sample", no_argument, NULL, 'x' },
		{ "seed", required_argument, NULL, 's' },
		{ "envs", required_argument, NULL, 'E' },
		{ "lr", required_argument, NULL, 'l' },
		{ "ent-coef", required_argument, NULL, 'n' },
		{ "magnet-coef", required_argument, NULL, 'g' },
		{ "no-exact", no_argument, NULL, 'X' },
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, rc, have_player = 0;

	a->player = a->version = ULLONG_MAX;
	/* 0 and -1: unset, league_br_opts_of's defaults or the league's */
	a->lr = a->ent_coef = a->magnet_coef = -1;
	while ((ch = cli_getopt(argc, argv, CMD, "", opts)) != -1)
		if ((rc = parse_option(ch, a, &have_player)))
			return rc;
	return check_args(argc, argv, a, have_player);
}

/* Net (player, *version) from s (UINT32_MAX: the newest, written
 * back), checked against the game. */
static int load_net(store *s, uint32_t player, uint32_t *version,
		    const struct env_spec *spec, nn **out)
{
	lg_buf blob = { 0 };
	char err[512];
	int rc;

	if ((rc = cli_stored_params(s, CMD, player, version, &blob)))
		return rc;
	rc = nn_load(out, blob.data, blob.len, err, sizeof err);
	lg_buf_free(&blob);
	if (rc) {
		fprintf(stderr, "league " CMD ": parameters %u/%u: %s\n",
			player, *version, err);
		return CLI_FAIL;
	}
	if (nn_shape_of(*out)->obs != spec->obs_len ||
	    nn_shape_of(*out)->actions != (uint32_t)spec->num_actions) {
		fprintf(stderr, "league " CMD ": parameters %u/%u do not fit "
			"%s\n", player, *version, spec->name);
		nn_free(*out);
		*out = NULL;
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* Each entry of op its network from s (a version UINT32_MAX: the newest,
 * written back). */
static int load_nets(store *s, const struct env_spec *spec,
		     struct eval_br_opponent *op)
{
	int rc;

	for (size_t j = 0; j < op->k; j++)
		if ((rc = load_net(s, op->player[j], &op->version[j], spec,
				   &op->nets[j])))
			return rc;
	return CLI_OK;
}

/* The stored config and the opponent, with DIR closed again. */
static int load(const struct bargs *a, struct cfg *c, struct env_spec *spec,
		struct eval_br_opponent *op)
{
	struct store_opts so = { .flags = STORE_RDONLY };
	struct env_opts eo;
	store *s = NULL;
	brain *b = NULL;
	env *e = NULL;
	char err[512] = "";
	int rc, usage = 0;

	if (store_open(&s, a->dir, &so, err, sizeof err)) {
		fprintf(stderr, "league " CMD ": %s: %s\n", a->dir,
			err[0] ? err : "no league here");
		return CLI_USAGE;
	}
	if ((rc = cli_stored_config(s, a->dir, CMD, c)))
		goto out;
	league_env_opts(c, &eo);
	if (env_new(&e, c->env.name, &eo, err, sizeof err)) {
		fprintf(stderr, "league " CMD ": %s\n", err);
		rc = CLI_USAGE;
		goto out;
	}
	*spec = *env_spec_of(e);
	if (spec->players != 2 || !(spec->flags & ENV_F_ZERO_SUM)) {
		fprintf(stderr, "league " CMD ": %s is not a two-player "
			"zero-sum game: its best response's value is no "
			"NashConv\n", c->env.name);
		rc = CLI_USAGE;
		goto out;
	}
	if (brain_open(&b, s, NULL, err, sizeof err)) {
		fprintf(stderr, "league " CMD ": %s: %s\n", a->dir, err);
		rc = CLI_FAIL;
		goto out;
	}
	rc = a->mixture ? eval_br_mixture(b, a->dir, op, &usage, err,
					  sizeof err)
			: eval_br_player(b, a->dir, a->player, a->version, op,
					 err, sizeof err);
	if (rc) {
		fprintf(stderr, "league " CMD ": %s\n", err);
		rc = !a->mixture || usage ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	rc = load_nets(s, spec, op);
out:
	env_free(e);
	brain_close(b);
	store_close(s);
	return rc;
}

/* The settings: the league's, then the command line's. */
static void settings(const struct bargs *a, const struct cfg *c,
		     const struct env_spec *spec, struct league_br_opts *o)
{
	league_br_opts_of(c, spec, o);
	if (a->budget > 0)
		o->budget_s = a->budget;
	o->budget_steps = a->steps;
	if (a->points)
		o->points = (uint32_t)a->points;
	if (a->episodes)
		o->episodes = a->episodes;
	if (a->final_episodes)
		o->final_episodes = a->final_episodes;
	o->sample = a->sample;
	if (a->seed_set)
		o->seed = a->seed;
	o->env.seed = o->seed;
	if (a->envs)
		o->envs = (size_t)a->envs;
	if (a->lr >= 0)
		o->ppo.lr = a->lr;
	if (a->ent_coef >= 0)
		o->ppo.ent_coef = a->ent_coef;
	if (a->magnet_coef >= 0)
		o->ppo.magnet_coef = a->magnet_coef;
}

int cli_eval_br(int argc, char **argv)
{
	struct bargs a = { 0 };
	struct eval_br_opponent *op = NULL;
	struct league_br_opts o;
	struct league_br_point last;
	struct env_nashconv nc;
	struct env_spec spec;
	struct eval_br_printer pr = { stdout, 0, 0, 0, NAN };
	static struct cfg c;
	char err[512] = "";
	int rc, have_exact = 0;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	pr.json = a.json;
	pr.csv = a.csv;
	if (!(op = calloc(1, sizeof *op))) {
		fprintf(stderr, "league " CMD ": out of memory\n");
		return CLI_FAIL;
	}
	if ((rc = load(&a, &c, &spec, op)))
		goto out;
	settings(&a, &c, &spec, &o);
	o.on_point = eval_br_on_point;
	o.ctx = &pr;
	struct league_br_opponent bo = { (const nn *const *)op->nets, op->w,
					 op->k };
	if (!a.no_exact && (spec.flags & ENV_F_TREE)) {
		if (league_br_exact(o.game, &o.env, &bo, &nc, err, sizeof err))
			fprintf(stderr, "league " CMD ": exact NashConv: %s\n",
				err);
		else
			have_exact = 1;
	}
	if (have_exact)
		pr.exact = nc.nashconv;
	eval_br_intro(&pr, &o, op, spec.name, have_exact, &nc);
	if ((rc = league_br_run(&o, &bo, &last, err, sizeof err))) {
		fprintf(stderr, "league " CMD ": %s\n", err);
		rc = rc == LG_EINVAL || rc == LG_EUNSUPP ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	eval_br_summary(&pr, &o, op, spec.name, &last, have_exact, &nc);
	rc = CLI_OK;
out:
	if (op)
		for (size_t j = 0; j < op->k; j++)
			nn_free(op->nets[j]);
	free(op);
	return rc;
}
