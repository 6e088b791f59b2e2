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
 * live daemon, on the parameters committed when it started. DIR may
 * instead be an agent file (`league export`): its network is the
 * opponent, on the game it recorded (a plugin game's with the --plugin
 * its user names, of the recorded SHA-256; a remote game's at --remote),
 * with its config's model and the default learner.
 */
#include "cli/cli.h"
#include "eval/agent.h"
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
	const char *dir, *plugin, *remote;
	int agent; /* dir is an agent file */
	unsigned long long player, version, steps, points, episodes,
		final_episodes, seed, envs;
	double budget, lr, ent_coef, magnet_coef;
	int mixture, sample, json, csv, no_exact, seed_set;
};

/* How the results are printed: --format's words, --json for json. */
enum { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON };

/* --player ID, or "nash" for the league's meta-Nash mixture (a struct
 * bargs). */
static int player_arg(void *dest, const char *val, char *err, size_t errlen)
{
	struct bargs *a = dest;
	uint64_t v;

	if (!strcmp(val, "nash")) {
		a->mixture = 1;
		return 0;
	}
	if (lg_parse_u64(val, 0, UINT32_MAX - 1, &v)) {
		snprintf(err, errlen, "--player: '%s' is not a whole number "
			 "in [0, %llu]", val, (unsigned long long)UINT32_MAX - 1);
		return LG_EINVAL;
	}
	a->player = v;
	return 0;
}

/* --format table|csv|json (an int, FORMAT_*). */
static int format_arg(void *dest, const char *val, char *err, size_t errlen)
{
	int *format = dest;

	if (!strcmp(val, "json"))
		*format = FORMAT_JSON;
	else if (!strcmp(val, "csv"))
		*format = FORMAT_CSV;
	else if (!strcmp(val, "table"))
		*format = FORMAT_TABLE;
	else {
		snprintf(err, errlen, "--format: table, csv or json, not '%s'",
			 val);
		return LG_EINVAL;
	}
	return 0;
}

/* What the options say together, once all are read: whom to exploit,
 * even episode counts. 0, or CLI_USAGE with the reason on stderr. */
static int check_args(const struct bargs *a, int have_player)
{
	if (a->agent && (have_player || a->mixture ||
			 a->version != ULLONG_MAX))
		return cli_usage_error(CMD, "%s is an agent file: it is the "
				       "opponent (drop --player, --version "
				       "and --mixture)", a->dir);
	if (!a->agent && (a->plugin || a->remote))
		return cli_usage_error(CMD, "--plugin and --remote go with an "
				       "agent file (a league directory's "
				       "config names its game)");
	if (a->agent)
		return 0;
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

/* The arguments into a (its defaults set here); CLI_USAGE with the
 * reason on stderr. */
static int parse(int argc, char **argv, struct bargs *a)
{
	int have_player = 0, format = FORMAT_TABLE;
	const struct cli_arg flags[] = {
		{ .name = "player", .kind = CLI_ARG_CALL, .dest = a,
		  .call = player_arg, .seen = &have_player },
		CLI_U64("version", 0, &a->version, 0, UINT32_MAX - 1),
		CLI_BOOL("mixture", 0, &a->mixture),
		CLI_DOUBLE("budget", 0, &a->budget, 0.01,
			   LEAGUE_BR_BUDGET_MAX),
		CLI_U64("steps", 0, &a->steps, 1, UINT64_MAX / 2),
		CLI_U64("points", 0, &a->points, 1, LEAGUE_BR_POINTS_MAX),
		CLI_U64("episodes", 0, &a->episodes, 4,
			LEAGUE_BR_EPISODES_MAX),
		CLI_U64("final-episodes", 0, &a->final_episodes, 4,
			LEAGUE_BR_EPISODES_MAX),
		CLI_BOOL("sample", 0, &a->sample),
		{ .name = "seed", .kind = CLI_ARG_U64, .dest = &a->seed,
		  .min = 0, .max = UINT64_MAX / 2, .seen = &a->seed_set },
		CLI_U64("envs", 0, &a->envs, 1, LEAGUE_BR_ENVS_MAX),
		CLI_DOUBLE("lr", 0, &a->lr, 0, 1),
		CLI_DOUBLE("ent-coef", 0, &a->ent_coef, 0, 10),
		CLI_DOUBLE("magnet-coef", 0, &a->magnet_coef, 0, 100),
		CLI_BOOL("no-exact", 0, &a->no_exact),
		CLI_STRING("plugin", 0, &a->plugin),
		CLI_STRING("remote", 0, &a->remote),
		CLI_SET("json", 0, &format, FORMAT_JSON),
		CLI_CALL("format", 0, &format, format_arg),
		CLI_END,
	};

	a->player = a->version = ULLONG_MAX;
	/* 0 and -1: unset, league_br_opts_of's defaults or the league's */
	a->lr = a->ent_coef = a->magnet_coef = -1;
	if (cli_args_one(CMD, flags, "expected one league DIR or agent FILE",
			 argc, argv, &a->dir))
		return CLI_USAGE;
	a->agent = cli_is_agent_file(a->dir);
	a->json = format == FORMAT_JSON;
	a->csv = format == FORMAT_CSV;
	return check_args(a, have_player);
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

/* The game of config c into *spec: CLI_OK, or CLI_USAGE (it does not
 * open, or is not two-player zero-sum) with the reason on stderr. */
static int game_spec(const struct cfg *c, struct env_spec *spec)
{
	struct env_opts eo;
	char err[512] = "";
	env *e = NULL;

	league_env_opts(c, &eo);
	if (env_new(&e, c->env.name, &eo, err, sizeof err)) {
		fprintf(stderr, "league " CMD ": %s\n", err);
		return CLI_USAGE;
	}
	*spec = *env_spec_of(e);
	env_free(e);
	if (spec->players != 2 || !(spec->flags & ENV_F_ZERO_SUM)) {
		fprintf(stderr, "league " CMD ": %s is not a two-player "
			"zero-sum game: its best response's value is no "
			"NashConv\n", spec->name);
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* The agent file a->dir as the opponent (its network moved into op),
 * its config into c. */
static int load_agent(const struct bargs *a, struct cfg *c,
		      struct env_spec *spec, struct eval_br_opponent *op)
{
	struct league_agent *ag = calloc(1, sizeof *ag);
	char v[32];
	int rc;

	if (!ag) {
		fprintf(stderr, "league " CMD ": out of memory\n");
		return CLI_FAIL;
	}
	if (!(rc = cli_agent_open(ag, a->dir, a->plugin, a->remote, CMD)))
		rc = game_spec(&ag->cfg, spec);
	if (!rc) {
		*c = ag->cfg;
		op->k = 1;
		op->w[0] = 1;
		op->nets[0] = ag->net;
		ag->net = NULL;
		/* as its provenance says (league_agent_meta) */
		if (!league_agent_meta(ag, "player", v, sizeof v))
			op->id[0] = op->player[0] = (uint32_t)strtoul(v, NULL,
								      10);
		if (!league_agent_meta(ag, "version", v, sizeof v))
			op->version[0] = (uint32_t)strtoul(v, NULL, 10);
	}
	league_agent_free(ag);
	free(ag);
	return rc;
}

/* The stored config and the opponent, with DIR closed again. */
static int load(const struct bargs *a, struct cfg *c, struct env_spec *spec,
		struct eval_br_opponent *op)
{
	struct store_opts so = { .flags = STORE_RDONLY };
	store *s = NULL;
	brain *b = NULL;
	char err[512] = "";
	int rc, usage = 0;

	if (store_open(&s, a->dir, &so, err, sizeof err)) {
		fprintf(stderr, "league " CMD ": %s: %s\n", a->dir,
			err[0] ? err : "no league here");
		return CLI_USAGE;
	}
	if ((rc = cli_stored_config(s, a->dir, CMD, c)) ||
	    (rc = game_spec(c, spec)))
		goto out;
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
	if (!(op = calloc(1, sizeof *op)))
		return cli_oom(CMD);
	if ((rc = a.agent ? load_agent(&a, &c, &spec, op)
			  : load(&a, &c, &spec, op)))
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
