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
#include "payoff/payoff.h"
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

/* The opponent as loaded: nets, weights and where each came from. */
struct opponent {
	nn *nets[LEAGUE_BR_MIX_MAX];
	double w[LEAGUE_BR_MIX_MAX];
	uint32_t id[LEAGUE_BR_MIX_MAX], player[LEAGUE_BR_MIX_MAX],
		version[LEAGUE_BR_MIX_MAX];
	size_t k;
	uint32_t snapshots; /* the mixture: snapshots the meta-Nash saw */
};

/* What on_point prints with. */
struct printer {
	const struct bargs *a;
	int header;
	double exact; /* NaN: none */
};

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
	int ch, have_player = 0;

	a->player = a->version = ULLONG_MAX;
	/* 0 and -1: unset, league_br_opts_of's defaults or the league's */
	a->lr = a->ent_coef = a->magnet_coef = -1;
	while ((ch = cli_getopt(argc, argv, CMD, "", opts)) != -1) {
		int bad = 0;
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'p':
			have_player = 1;
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
		if (bad)
			return CLI_USAGE;
	}
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

/* --player ID: a learner's version (the newest stored unless --version),
 * or a snapshot's frozen one. */
static int player_opponent(const struct bargs *a, store *s, brain *b,
			   const struct env_spec *spec, struct opponent *op)
{
	struct brain_player bp;
	uint32_t from, v;
	int rc;

	if (brain_player_info(b, (uint32_t)a->player, &bp)) {
		fprintf(stderr, "league " CMD ": %s has no player %llu (%u "
			"players and snapshots)\n", a->dir, a->player,
			brain_count(b));
		return CLI_USAGE;
	}
	from = bp.role == BRAIN_ROLE_HISTORICAL ? bp.parent : bp.id;
	v = bp.role == BRAIN_ROLE_HISTORICAL ? bp.version
	    : a->version == ULLONG_MAX	     ? UINT32_MAX
					     : (uint32_t)a->version;
	if (bp.role == BRAIN_ROLE_HISTORICAL && a->version != ULLONG_MAX &&
	    a->version != bp.version) {
		fprintf(stderr, "league " CMD ": player %llu is a snapshot of "
			"player %u's version %u; --version must be that or "
			"absent\n", a->player, bp.parent, bp.version);
		return CLI_USAGE;
	}
	if ((rc = load_net(s, from, &v, spec, &op->nets[0])))
		return rc;
	op->w[0] = 1;
	op->id[0] = bp.id;
	op->player[0] = from;
	op->version[0] = v;
	op->k = 1;
	return CLI_OK;
}

/* --mixture: the meta-Nash over the newest snapshots, as the daemon
 * computes it for the evaluator (league/exploit.c eval_work). */
static int mixture_opponent(const struct bargs *a, store *s, brain *b,
			    const struct env_spec *spec, struct opponent *op)
{
	uint32_t ids[BRAIN_NASH_MAX], n = 0;
	double *x = NULL, sum = 0;
	int rc = CLI_FAIL, prc;

	for (uint32_t i = brain_count(b); i-- > 0 && n < BRAIN_NASH_MAX;) {
		struct brain_player p;
		if (!brain_player_info(b, i, &p) &&
		    p.role == BRAIN_ROLE_HISTORICAL &&
		    p.status == BRAIN_ACTIVE) /* a retired one's are gone */
			ids[n++] = i;
	}
	if (!n) {
		fprintf(stderr, "league " CMD ": %s has no snapshots yet: no "
			"mixture to exploit\n", a->dir);
		return CLI_USAGE;
	}
	for (uint32_t i = 0; i < n / 2; i++) {
		uint32_t t = ids[i];
		ids[i] = ids[n - 1 - i];
		ids[n - 1 - i] = t;
	}
	if (!(x = malloc(sizeof(*x) * n))) {
		fprintf(stderr, "league " CMD ": out of memory\n");
		goto out;
	}
	/* the league's meta-Nash, as matchmaking and the evaluator see it */
	if ((prc = payoff_meta_nash(brain_payoff(b), ids, n, x, NULL))) {
		fprintf(stderr, "league " CMD ": the meta-Nash: %s\n",
			lg_strerror(prc));
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		sum += x[i] > PAYOFF_SUPPORT_MIN ? x[i] : 0;
	op->snapshots = n;
	for (uint32_t i = 0; i < n && sum > 0; i++) {
		struct brain_player p;
		if (x[i] <= PAYOFF_SUPPORT_MIN ||
		    brain_player_info(b, ids[i], &p))
			continue;
		uint32_t v = p.version;
		if ((rc = load_net(s, p.parent, &v, spec, &op->nets[op->k])))
			goto out;
		op->w[op->k] = x[i] / sum;
		op->id[op->k] = ids[i];
		op->player[op->k] = p.parent;
		op->version[op->k] = p.version;
		op->k++;
	}
	rc = op->k ? CLI_OK : CLI_FAIL;
	if (!op->k)
		fprintf(stderr, "league " CMD ": the meta-Nash has no weight\n");
out:
	free(x);
	return rc;
}

/* The stored config and the opponent, with DIR closed again. */
static int load(const struct bargs *a, struct cfg *c, struct env_spec *spec,
		struct opponent *op)
{
	struct store_opts so = { .flags = STORE_RDONLY };
	struct env_opts eo;
	store *s = NULL;
	brain *b = NULL;
	env *e = NULL;
	char err[512] = "";
	int rc;

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
	rc = a->mixture ? mixture_opponent(a, s, b, spec, op)
			: player_opponent(a, s, b, spec, op);
out:
	env_free(e);
	brain_close(b);
	store_close(s);
	return rc;
}

/* A number as JSON: null when not finite. */
static void jnum(const char *key, double v, const char *sep)
{
	if (isfinite(v))
		printf("\"%s\":%.9g%s", key, v, sep);
	else
		printf("\"%s\":null%s", key, sep);
}

static void jpair(const char *key, const double v[2], const char *sep)
{
	printf("\"%s\":[", key);
	for (int s = 0; s < 2; s++) {
		if (isfinite(v[s]))
			printf("%.9g", v[s]);
		else
			printf("null");
		printf("%s", s ? "]" : ",");
	}
	printf("%s", sep);
}

static void on_point(void *ctx, const struct league_br_point *p)
{
	struct printer *pr = ctx;

	if (pr->a->json) {
		printf("{\"point\":%u,\"final\":%s,\"seconds\":%.3f,"
		       "\"env_steps\":%llu,\"rows\":%llu,\"updates\":%llu,"
		       "\"episodes\":[%llu,%llu],\"abnormal\":%llu,",
		       p->index, p->final ? "true" : "false", p->seconds,
		       (unsigned long long)p->env_steps,
		       (unsigned long long)p->rows,
		       (unsigned long long)p->updates,
		       (unsigned long long)p->episodes[0],
		       (unsigned long long)p->episodes[1],
		       (unsigned long long)p->abnormal);
		jpair("br_value", p->br_value, ",");
		jpair("br_ci95", p->br_ci, ",");
		jnum("value", p->value, ",");
		jnum("nashconv", p->nashconv, ",");
		jnum("ci95", p->nashconv_ci, ",");
		jnum("ci_low", p->nashconv - p->nashconv_ci, ",");
		jnum("ci_high", p->nashconv + p->nashconv_ci, ",");
		printf("\"eval_seconds\":%.3f}\n", p->eval_seconds);
		fflush(stdout);
		return;
	}
	if (pr->a->csv) {
		if (!pr->header)
			printf("seconds,env_steps,rows,updates,br_seat0,"
			       "br_seat1,nashconv,ci95,ci_low,ci_high,"
			       "exact_nashconv,episodes,eval_seconds\n");
		pr->header = 1;
		printf("%.3f,%llu,%llu,%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,",
		       p->seconds, (unsigned long long)p->env_steps,
		       (unsigned long long)p->rows,
		       (unsigned long long)p->updates, p->br_value[0],
		       p->br_value[1], p->nashconv, p->nashconv_ci,
		       p->nashconv - p->nashconv_ci,
		       p->nashconv + p->nashconv_ci);
		if (isfinite(pr->exact))
			printf("%.9g", pr->exact);
		printf(",%llu,%.3f\n",
		       (unsigned long long)(p->episodes[0] + p->episodes[1]),
		       p->eval_seconds);
		fflush(stdout);
		return;
	}
	if (!pr->header) {
		printf("%9s %12s %8s %10s %10s %10s %10s %10s %9s\n",
		       "seconds", "env_steps", "updates", "br_seat0",
		       "br_seat1", "nashconv", "ci_low", "ci_high",
		       "episodes");
		pr->header = 1;
	}
	printf("%9.1f %12llu %8llu %10.4f %10.4f %10.4f %10.4f %10.4f %9llu\n",
	       p->seconds, (unsigned long long)p->env_steps,
	       (unsigned long long)p->updates, p->br_value[0],
	       p->br_value[1], p->nashconv, p->nashconv - p->nashconv_ci,
	       p->nashconv + p->nashconv_ci,
	       (unsigned long long)(p->episodes[0] + p->episodes[1]));
	fflush(stdout);
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

/* Who is exploited, as the table's first line or JSON fields. */
static void describe(const struct bargs *a, const struct opponent *op,
		     int json)
{
	if (json && !a->mixture) {
		printf("\"player\":%u,\"params_player\":%u,\"version\":%u,",
		       op->id[0], op->player[0], op->version[0]);
		return;
	}
	if (json) {
		printf("\"player\":\"nash\",\"snapshots\":%u,\"mixture\":[",
		       op->snapshots);
		for (size_t j = 0; j < op->k; j++)
			printf("%s{\"id\":%u,\"player\":%u,\"version\":%u,"
			       "\"weight\":%.9g}", j ? "," : "", op->id[j],
			       op->player[j], op->version[j], op->w[j]);
		printf("],");
		return;
	}
	if (!a->mixture) {
		printf("opponent     player %u (parameters %u, version %u)\n",
		       op->id[0], op->player[0], op->version[0]);
		return;
	}
	printf("opponent     the meta-Nash mixture of the newest %u "
	       "snapshots:", op->snapshots);
	for (size_t j = 0; j < op->k; j++)
		printf(" %u (%u/v%u) %.3f", op->id[j], op->player[j],
		       op->version[j], op->w[j]);
	printf("\n");
}

static void summary(const struct bargs *a, const struct league_br_opts *o,
		    const struct opponent *op, const char *game,
		    const struct league_br_point *p, int have_exact,
		    const struct env_nashconv *nc)
{
	double nan2[2] = { NAN, NAN };

	if (a->csv)
		return;
	if (a->json) {
		printf("{\"summary\":true,\"game\":\"%s\",", game);
		describe(a, op, 1);
		printf("\"budget_s\":%.9g,\"budget_steps\":%llu,"
		       "\"greedy\":%s,\"episodes\":%llu,"
		       "\"final_episodes\":%llu,\"seed\":%llu,"
		       "\"seconds\":%.3f,\"env_steps\":%llu,"
		       "\"updates\":%llu,",
		       o->budget_s, (unsigned long long)o->budget_steps,
		       o->sample ? "false" : "true",
		       (unsigned long long)o->episodes,
		       (unsigned long long)o->final_episodes,
		       (unsigned long long)o->seed, p->seconds,
		       (unsigned long long)p->env_steps,
		       (unsigned long long)p->updates);
		jpair("br_value", p->br_value, ",");
		jpair("br_ci95", p->br_ci, ",");
		jnum("value", p->value, ",");
		jnum("nashconv_estimate", p->nashconv, ",");
		jnum("ci95", p->nashconv_ci, ",");
		jnum("exact_nashconv", have_exact ? nc->nashconv : NAN, ",");
		jpair("exact_br_value", have_exact ? nc->br_value : nan2, ",");
		printf("\"points\":%llu}\n", (unsigned long long)o->points + 1);
		return;
	}
	printf("estimate     NashConv %.4f +- %.4f (95%%; best response "
	       "%.4f and %.4f by seat)", p->nashconv, p->nashconv_ci,
	       p->br_value[0], p->br_value[1]);
	if (have_exact)
		printf(", exact %.4f", nc->nashconv);
	printf("\n");
}

int cli_eval_br(int argc, char **argv)
{
	struct bargs a = { 0 };
	struct opponent *op = NULL;
	struct league_br_opts o;
	struct league_br_point last;
	struct env_nashconv nc;
	struct env_spec spec;
	struct printer pr = { &a, 0, NAN };
	static struct cfg c;
	char err[512] = "";
	int rc, have_exact = 0;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	if (!(op = calloc(1, sizeof *op))) {
		fprintf(stderr, "league " CMD ": out of memory\n");
		return CLI_FAIL;
	}
	if ((rc = load(&a, &c, &spec, op)))
		goto out;
	settings(&a, &c, &spec, &o);
	o.on_point = on_point;
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
	if (!a.json && !a.csv) {
		printf("game         %s; best responder: the league's model "
		       "and learner, %s evaluation\n", spec.name,
		       o.sample ? "sampled" : "greedy");
		describe(&a, op, 0);
		printf("budget       %.1f s of training", o.budget_s);
		if (o.budget_steps)
			printf(" or %llu env steps, whichever ends first",
			       (unsigned long long)o.budget_steps);
		printf("; %u evaluations of %llu episodes (%llu at the "
		       "end)\n", o.points + 1, (unsigned long long)o.episodes,
		       (unsigned long long)o.final_episodes);
		if (have_exact)
			printf("exact        NashConv %.6f (best response "
			       "%.4f and %.4f by seat)\n", nc.nashconv,
			       nc.br_value[0], nc.br_value[1]);
		fflush(stdout);
	}
	if ((rc = league_br_run(&o, &bo, &last, err, sizeof err))) {
		fprintf(stderr, "league " CMD ": %s\n", err);
		rc = rc == LG_EINVAL || rc == LG_EUNSUPP ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	summary(&a, &o, op, spec.name, &last, have_exact, &nc);
	rc = CLI_OK;
out:
	if (op)
		for (size_t j = 0; j < op->k; j++)
			nn_free(op->nets[j]);
	free(op);
	return rc;
}
