/*
 * cli/cmd_eval.c: `league eval nashconv` and `league eval policy`: exact
 * evaluation of a policy on the small games by full tree traversal.
 *
 * The game's options come from --config FILE (its env section: name,
 * matrix, params) and/or --matrix '[[...],...]' (YAML/JSON rows, parsed
 * by the config parser so the same bounds apply) and --param KEY=VALUE
 * (env.params after the config's); --game overrides the name; --plugin
 * PATH plays a plugin's game. Reports give every seat's values, and a
 * common-payoff game's optimum. A --policy that is an agent file (`league
 * export`) is its network's policy on the game it recorded (a plugin
 * game's with the --plugin its user names, of the recorded SHA-256).
 *
 * `league eval DIR` (the first argument a directory): the league's
 * exploitability over time, as the evaluator worker stored it
 * (STORE_DB_EVAL), from a read-only open that works beside a running
 * daemon.
 *
 * `league eval search` (cli/eval_search.c) and `league eval br`
 * (cli/eval_br.c: a trained best response where no tree fits) live in
 * their own files.
 */
#include "cli/cli.h"
#include "envs/env.h"
#include "conf/config.h"
#include "eval/agent.h"
#include "eval/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CFR_ITERS_MAX 1000000ull
#define FP_ITERS_MAX 100000ull


struct eval_args {
	const char *cmd;
	const char *game, *policy, *matrix, *config, *out;
	const char *plugin, *remote; /* --plugin PATH, --remote ADDR */
	int json;
	unsigned out_flags; /* LG_OUT_FOLLOW_SYMLINKS (--follow-symlinks) */
	/* MMD's sampled steps: --sampled EPISODES, --estimator E, --clip C,
	 * --reach R, --seed S (env_mmd_set_sampling) */
	unsigned long long sample, seed;
	int estimator;
	double clip, reach;
	int sampling_opts; /* one of --estimator --clip --reach --seed given */
	struct env_params params; /* --param KEY=VALUE, after the config's */
};

/* --estimator outcome|history|allq: env_mmd_set_sampling's estimator (an
 * int). */
static int estimator_arg(void *dest, const char *val, char *err,
			 size_t errlen)
{
	static const char *const estimators[] = { "outcome", "history",
						  "allq" };
	int *estimator = dest;

	for (int i = 0; i < 3; i++)
		if (!strcmp(val, estimators[i])) {
			*estimator = i;
			return 0;
		}
	snprintf(err, errlen, "--estimator: expected outcome, history or "
		 "allq, got '%s'", val);
	return LG_EINVAL;
}

/* The arguments into a (a->cmd set by the caller); CLI_USAGE with the
 * reason on stderr. */
static int parse_args(int argc, char **argv, struct eval_args *a)
{
	int *sam = &a->sampling_opts; /* the flags that go with --sampled */
	const struct cli_arg flags[] = {
		CLI_STRING("game", 'g', &a->game),
		CLI_STRING("policy", 'p', &a->policy),
		CLI_STRING("matrix", 'm', &a->matrix),
		CLI_STRING("config", 'c', &a->config),
		CLI_STRING("out", 'o', &a->out),
		CLI_STRING("plugin", 0, &a->plugin),
		CLI_STRING("remote", 0, &a->remote),
		CLI_CALL("param", 0, &a->params, cli_env_param),
		CLI_BOOL("json", 0, &a->json),
		CLI_BITS("follow-symlinks", 0, &a->out_flags,
			 LG_OUT_FOLLOW_SYMLINKS),
		CLI_U64("sampled", 0, &a->sample, 1, UINT64_C(1) << 30),
		{ .name = "estimator", .kind = CLI_ARG_CALL,
		  .dest = &a->estimator, .call = estimator_arg, .seen = sam },
		{ .name = "seed", .kind = CLI_ARG_U64, .dest = &a->seed,
		  .min = 0, .max = UINT64_MAX, .seen = sam },
		{ .name = "clip", .kind = CLI_ARG_DOUBLE, .dest = &a->clip,
		  .lo = 0, .hi = 1e9, .seen = sam },
		{ .name = "reach", .kind = CLI_ARG_DOUBLE, .dest = &a->reach,
		  .lo = 0, .hi = 1e9, .seen = sam },
		CLI_END,
	};
	const struct cli_args spec = {
		.cmd = a->cmd, .flags = flags, .min_pos = 0, .max_pos = 0,
		.name_extra = 1,
	};

	a->seed = 1;
	if (cli_args(&spec, argc, argv, NULL, NULL))
		return CLI_USAGE;
	if (!a->policy)
		a->policy = "uniform";
	if (a->remote && !cli_is_agent_file(a->policy))
		return cli_usage_error(a->cmd, "--remote goes with an agent "
				       "file of a remote game as --policy "
				       "(a remote game has no exact tree)");
	if (a->plugin && a->config)
		return cli_usage_error(a->cmd, "--plugin or --config, not "
				       "both (a config names its plugin)");
	if (a->sampling_opts && !a->sample)
		return cli_usage_error(a->cmd, "--estimator, --clip, --reach and "
				       "--seed go with --sampled EPISODES");
	if (a->sample && strncmp(a->policy, "mmd:", 4) &&
	    strncmp(a->policy, "mmdavg:", 7))
		return cli_usage_error(a->cmd, "--sampled: takes an mmd: or "
				       "mmdavg: policy (not the optimistic "
				       "ones: an infoset a batch misses would "
				       "keep a stale previous q)");
	return 0;
}

/* Build the env from the arguments; CLI status. */
static int make_env(const struct eval_args *a, env **e)
{
	struct cfg c;
	struct env_opts o;
	char err[512];
	const char *name = a->game;
	int rc;

	if (a->config) {
		rc = cfg_load_file(&c, a->config, err, sizeof err);
		if (rc) {
			fprintf(stderr, "league: %s\n", err);
			return CLI_USAGE;
		}
	} else if ((rc = cfg_defaults(&c, err, sizeof err))) {
		fprintf(stderr, "league: %s\n", err);
		return CLI_FAIL;
	}
	if (a->matrix) {
		struct cfg m;
		lg_buf y = { 0 };
		if (strchr(a->matrix, '\n'))
			return cli_usage_error(a->cmd, "--matrix: one line "
					       "please, e.g. '[[3,-2],[-2,1]]'");
		if (lg_buf_printf(&y, "env:\n  name: matrix\n  matrix: %s\n",
				  a->matrix))
			return cli_oom(NULL);
		rc = cfg_load_string(&m, (const char *)y.data, y.len,
				     "--matrix", err, sizeof err);
		lg_buf_free(&y);
		if (rc)
			return cli_usage_error(a->cmd, "%s", err);
		c.env.matrix = m.env.matrix;
		if (!name)
			name = "matrix";
	}
	if (!name)
		name = a->config ? c.env.name : NULL;
	if (a->plugin) {
		if (strlen(a->plugin) >= sizeof c.env.plugin)
			return cli_usage_error(a->cmd, "--plugin: a path longer "
					       "than %zu bytes",
					       sizeof c.env.plugin - 1);
		snprintf(c.env.plugin, sizeof c.env.plugin, "%s", a->plugin);
	} else if (!name) {
		return cli_usage_error(a->cmd, "which game? (--game NAME or "
				       "--plugin PATH)");
	}
	if (name && !strcmp(name, "matrix") && !c.env.matrix.rows)
		return cli_usage_error(a->cmd, "the matrix game needs its "
				       "payoff: --matrix '[[3,-2],[-2,1]]' or "
				       "--config FILE with env.matrix");
	league_env_opts(&c, &o);
	for (uint32_t i = 0; i < a->params.n; i++) {
		if (o.params.n == ENV_PARAMS_MAX)
			return cli_usage_error(a->cmd, "more than %d env.params "
					       "with --param", ENV_PARAMS_MAX);
		memcpy(o.params.key[o.params.n], a->params.key[i],
		       sizeof o.params.key[0]);
		memcpy(o.params.val[o.params.n++], a->params.val[i],
		       sizeof o.params.val[0]);
	}
	rc = env_new(e, name, &o, err, sizeof err);
	if (rc)
		return cli_usage_error(a->cmd, "%s", err);
	if (!(env_spec_of(*e)->flags & ENV_F_TREE)) {
		/* the name lives in the env: said before it is freed */
		rc = cli_usage_error(a->cmd, "%s has no exact evaluation "
				     "(kuhn, leduc, rps, matrix do)",
				     env_spec_of(*e)->name);
		env_free(*e);
		*e = NULL;
		return rc;
	}
	return 0;
}

/* --policy FILE, an agent file: its game (as recorded, with the user's
 * --plugin or --remote) into *e, which must have an exact tree, and the
 * agent into ag. CLI status; the game's options are the file's, so
 * --game, --config, --matrix and --param are refused. */
static int agent_env(const struct eval_args *a, struct league_agent *ag,
		     env **e)
{
	struct env_opts o;
	char err[512];
	int rc;

	if (a->game || a->config || a->matrix || a->params.n)
		return cli_usage_error(a->cmd, "--policy %s is an agent file: "
				       "its game and options are the ones it "
				       "recorded (drop --game, --config, "
				       "--matrix and --param)", a->policy);
	if ((rc = cli_agent_open(ag, a->policy, a->plugin, a->remote,
				 a->cmd)))
		return rc;
	league_env_opts(&ag->cfg, &o);
	if ((rc = env_new(e, ag->cfg.env.name, &o, err, sizeof err)))
		return cli_usage_error(a->cmd, "%s", err);
	if (!(env_spec_of(*e)->flags & ENV_F_TREE))
		return cli_usage_error(a->cmd, "the agent %s plays %s, which "
				       "has no exact evaluation (no "
				       "infostate hook%s); league eval br "
				       "trains a best response instead",
				       a->policy, env_spec_of(*e)->name,
				       ag->game.kind == LEAGUE_AGENT_REMOTE
					       ? ": a remote game" : "");
	return 0;
}

struct policy_src {
	struct env_policy pol;
	env_cfr *cfr;
	env_mmd *mmd;
	env_fp *fp;
	env_tabular *tab;
	uint64_t iters;
};

/* --policy mmd:ALPHA:ETA:ITERS: magnetic mirror descent's last iterate,
 * the QRE of temperature ALPHA once converged (its residual is printed);
 * mmdavg:ALPHA:ETA:ITERS the average of its iterates ITERS/2 .. ITERS-1;
 * ommd:, ommdavg: the same with optimism 1 (env_mmd_set_optimism). */
static int make_mmd(const struct eval_args *a, const env_tree *t,
		    struct policy_src *ps)
{
	int opt = a->policy[0] == 'o';
	const char *name = a->policy + opt;
	int avg = !strncmp(name, "mmdavg:", 7);
	char what[64];
	const char *arg = name + (avg ? 7 : 4);

	snprintf(what, sizeof what, "--policy %s%s:ALPHA:ETA:ITERS",
		 opt ? "o" : "", avg ? "mmdavg" : "mmd");
	char buf[128], *eta, *iters, *beta_s = NULL, *every_s = NULL;
	unsigned long long n, every = 0;
	int rc = 0;
	double alpha, step, beta = 0;

	if (strlen(arg) >= sizeof buf)
		return cli_usage_error(a->cmd, "%s: too long", what);
	strcpy(buf, arg);
	if (!(eta = strchr(buf, ':')) || !(iters = strchr(eta + 1, ':')))
		return cli_usage_error(a->cmd, "%s: say all three, e.g. "
				       "mmd:0.2:0.05:20000", what);
	*eta++ = 0;
	*iters++ = 0;
	if ((beta_s = strchr(iters, ':'))) {
		*beta_s++ = 0;
		if (!(every_s = strchr(beta_s, ':')))
			return cli_usage_error(a->cmd, "%s:BETA:EVERY: a moving "
					       "magnet needs both", what);
		*every_s++ = 0;
	}
	if (cli_opt_double(a->cmd, what, buf, 1e-6, 1e6, &alpha) ||
	    cli_opt_double(a->cmd, what, eta, 1e-6, 1e6, &step) ||
	    cli_opt_u64(a->cmd, what, iters, 1, CFR_ITERS_MAX, &n) ||
	    (beta_s && (cli_opt_double(a->cmd, what, beta_s, 0, 1e6, &beta) ||
			cli_opt_u64(a->cmd, what, every_s, 1, CFR_ITERS_MAX,
				    &every))))
		return CLI_USAGE;
	/* alpha, eta, beta and every are in range here: the setters fail
	 * only for memory, or sampling for a tree too deep */
	if ((rc = env_mmd_new(&ps->mmd, t, alpha, step)) ||
	    (opt && (rc = env_mmd_set_optimism(ps->mmd, 1.0))) ||
	    (beta > 0 && (rc = env_mmd_set_magnet(ps->mmd, beta, every))) ||
	    (rc = env_mmd_set_sampling(ps->mmd, &(struct env_mmd_sampling){
			.episodes = a->sample, .estimator = a->estimator,
			.clip = a->clip, .reach = a->reach, .seed = a->seed }))) {
		if (rc == LG_EUNSUPP) {
			fprintf(stderr, "league: --sampled: the game's tree has "
				"paths of more decisions than sampled steps "
				"take (256)\n");
			return CLI_USAGE;
		}
		fprintf(stderr, "league: mmd: %s\n", lg_strerror(rc));
		return CLI_FAIL;
	}
	env_mmd_average_from(ps->mmd, n / 2);
	env_mmd_run(ps->mmd, n);
	ps->iters = n;
	ps->pol = avg ? env_mmd_average(ps->mmd) : env_mmd_policy(ps->mmd);
	return 0;
}

/* --policy fp:TAU:ITERS: smooth fictitious play's average after ITERS
 * iterations, each a logit best response of temperature TAU (0: exact)
 * to the average; fplin:TAU:ITERS with iteration t weighted t. */
static int make_fp(const struct eval_args *a, const env_tree *t,
		   struct policy_src *ps)
{
	int lin = !strncmp(a->policy, "fplin:", 6);
	const char *what = lin ? "--policy fplin:TAU:ITERS"
			       : "--policy fp:TAU:ITERS";
	const char *arg = a->policy + (lin ? 6 : 3);
	char buf[128], *iters;
	unsigned long long n;
	double tau;

	if (strlen(arg) >= sizeof buf)
		return cli_usage_error(a->cmd, "%s: too long", what);
	strcpy(buf, arg);
	if (!(iters = strchr(buf, ':')))
		return cli_usage_error(a->cmd, "%s: say both, e.g. "
				       "fp:0.1:400", what);
	*iters++ = 0;
	if (cli_opt_double(a->cmd, what, buf, 0, 1e6, &tau) ||
	    cli_opt_u64(a->cmd, what, iters, 1, FP_ITERS_MAX, &n))
		return CLI_USAGE;
	int rc = env_fp_new(&ps->fp, t, tau, lin);
	if (rc == LG_EUNSUPP)
		return cli_usage_error(a->cmd, "%s: the game lacks perfect "
				       "recall, which its best responses by "
				       "backward induction need", what);
	if (rc)
		return cli_oom(NULL);
	env_fp_run(ps->fp, n);
	ps->iters = n;
	ps->pol = env_fp_average(ps->fp);
	return 0;
}

static int make_policy(const struct eval_args *a, const env *e,
		       const env_tree *t, struct policy_src *ps)
{
	char err[512];
	int rc;

	if (!strcmp(a->policy, "uniform")) {
		ps->pol = env_policy_uniform();
		return 0;
	}
	if (!strncmp(a->policy, "cfr:", 4) || !strncmp(a->policy, "vcfr:", 5)) {
		int plus = a->policy[0] == 'c';
		unsigned long long n;
		if (cli_opt_u64(a->cmd, plus ? "--policy cfr:ITERS"
					     : "--policy vcfr:ITERS",
				a->policy + (plus ? 4 : 5), 1, CFR_ITERS_MAX,
				&n))
			return CLI_USAGE;
		if (env_cfr_new_kind(&ps->cfr, t, plus ? ENV_CFR_PLUS
						       : ENV_CFR_VANILLA))
			return cli_oom(NULL);
		env_cfr_run(ps->cfr, n);
		ps->iters = n;
		ps->pol = env_cfr_average(ps->cfr);
		return 0;
	}
	if (!strncmp(a->policy, "mmd:", 4) || !strncmp(a->policy, "mmdavg:", 7) ||
	    !strncmp(a->policy, "ommd:", 5) ||
	    !strncmp(a->policy, "ommdavg:", 8))
		return make_mmd(a, t, ps);
	if (!strncmp(a->policy, "fp:", 3) || !strncmp(a->policy, "fplin:", 6))
		return make_fp(a, t, ps);
	if (!strcmp(a->policy, "cfr") || !strncmp(a->policy, "cfr+", 4))
		return cli_usage_error(a->cmd, "--policy: say cfr:ITERS, e.g. "
				       "cfr:1000 (vcfr:ITERS: vanilla CFR)");
	rc = env_tabular_load(&ps->tab, a->policy,
			      env_spec_of(e)->num_actions, err, sizeof err);
	if (rc == LG_EIO && errno == ENOENT)
		return cli_usage_error(a->cmd, "--policy: expected uniform, "
				       "cfr:ITERS, vcfr:ITERS, "
				       "[o]mmd:/[o]mmdavg:ALPHA:ETA:"
				       "ITERS, "
				       "fp:/fplin:TAU:ITERS or a policy file; "
				       "%s", err);
	if (rc) {
		fprintf(stderr, "league eval: %s\n", err);
		return rc == LG_ENOMEM ? CLI_FAIL : CLI_USAGE;
	}
	ps->pol = env_tabular_policy(ps->tab);
	return 0;
}

/* Print a per-seat row: label, then each seat's v (table form). */
static void print_seats(const char *label, const double *v, int np)
{
	printf("%-16s", label);
	for (int p = 0; p < np; p++)
		printf("%s%.12f", p ? " " : "", v[p]);
	printf("\n");
}

/* A JSON array of the np values v after ,"key":. */
static void json_seats(const char *key, const double *v, int np)
{
	printf(",\"%s\":[", key);
	for (int p = 0; p < np; p++)
		printf("%s%.17g", p ? "," : "", v[p]);
	printf("]");
}

/* `league eval nashconv`'s report of nc (policy ps on e's tree t, asked
 * since t0), with the optimum and the policy's gap to it for a
 * common-payoff game (or one seat). */
static void print_nashconv(const struct eval_args *a, const env *e,
			   const env_tree *t, const struct policy_src *ps,
			   const struct env_nashconv *nc, double t0)
{
	const struct env_spec *sp = env_spec_of(e);
	struct env_optimum opt;
	char err[512];
	int np = nc->players, have_opt = 0;

	if (sp->payoff == ENV_COMMON_PAYOFF || np == 1) {
		if (env_tree_optimum(t, &opt, NULL, err, sizeof err))
			fprintf(stderr, "league eval nashconv: %s\n", err);
		else
			have_opt = 1;
	}
	if (a->json) {
		printf("{\"game\":\"%s\",\"players\":%d,\"policy\":",
		       sp->name, np);
		eval_json_str(stdout, a->policy);
		printf(",\"nashconv\":%.17g,\"exploitability\":%.17g",
		       nc->nashconv, nc->exploitability);
		json_seats("value", nc->value, np);
		json_seats("br_value", nc->br_value, np);
		if (have_opt)
			printf(",\"optimum\":%.17g,\"gap\":%.17g,"
			       "\"optimum_policies\":%llu", opt.value,
			       opt.value - nc->value[0],
			       (unsigned long long)opt.policies);
		printf(",\"cfr_iterations\":%llu,\"infostates\":%zu,"
		       "\"nodes\":%zu,\"seconds\":%.3f",
		       (unsigned long long)(ps->cfr ? ps->iters : 0),
		       env_tree_infostates(t), env_tree_nodes(t),
		       lg_now_s() - t0);
		if (ps->mmd)
			printf(",\"mmd_iterations\":%llu,\"qre_residual\":"
			       "%.17g", (unsigned long long)ps->iters,
			       env_mmd_residual(ps->mmd));
		if (ps->fp)
			printf(",\"fp_iterations\":%llu",
			       (unsigned long long)ps->iters);
		printf("}\n");
		return;
	}
	printf("game            %s (%zu infostates, %zu nodes)\n"
	       "policy          %s\n"
	       "nashconv        %.12f\n"
	       "exploitability  %.12f\n",
	       sp->name, env_tree_infostates(t), env_tree_nodes(t), a->policy,
	       nc->nashconv, nc->exploitability);
	print_seats("value", nc->value, np);
	print_seats("br_value", nc->br_value, np);
	if (have_opt)
		printf("optimum         %.12f (the best joint policy: %llu "
		       "enumerated)\n"
		       "gap             %.12f (optimum - value)\n",
		       opt.value, (unsigned long long)opt.policies,
		       opt.value - nc->value[0]);
	if (ps->mmd)
		printf("qre_residual    %.3g (the last iterate's max |pi - "
		       "softmax(q / alpha)|, %llu iterations)\n",
		       env_mmd_residual(ps->mmd),
		       (unsigned long long)ps->iters);
	if (ps->fp)
		printf("fp_iterations   %llu\n", (unsigned long long)ps->iters);
}

static int eval_run(int argc, char **argv, int dump)
{
	struct eval_args a = { .cmd = dump ? "eval policy" : "eval nashconv" };
	struct policy_src ps = { 0 };
	struct env_nashconv nc;
	env *e = NULL;
	env_tree *t = NULL;
	struct league_agent ag;
	struct nn_policy_ctx agent_pol = { 0 };
	char err[512];
	double t0;
	int rc, agent;

	memset(&ag, 0, sizeof ag);
	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	agent = cli_is_agent_file(a.policy);
	rc = agent ? agent_env(&a, &ag, &e) : make_env(&a, &e);
	if (rc)
		goto out;
	if (env_tree_new(&t, e, err, sizeof err)) {
		fprintf(stderr, "league: %s\n", err);
		rc = CLI_FAIL;
		goto out;
	}
	t0 = lg_now_s();
	if (agent) { /* the network's probabilities */
		agent_pol.net = ag.net;
		if (nn_ws_new(&agent_pol.ws, ag.net, 1)) {
			fprintf(stderr, "league: out of memory\n");
			rc = CLI_FAIL;
			goto out;
		}
		ps.pol = nn_env_policy(&agent_pol);
	} else if ((rc = make_policy(&a, e, t, &ps))) {
		goto out;
	}
	if (dump) {
		lg_buf b = { 0 };
		if (env_tree_dump_policy(t, &ps.pol, &b, err, sizeof err)) {
			fprintf(stderr, "league eval policy: %s\n", err);
			rc = ps.tab ? CLI_USAGE : CLI_FAIL;
			lg_buf_free(&b);
			goto out;
		}
		if (!a.out) {
			fwrite(b.data, 1, b.len, stdout);
		} else if ((rc = lg_file_write_out(a.out, b.data, b.len,
						   a.out_flags, err,
						   sizeof err))) {
			fprintf(stderr, "league eval policy: %s\n", err);
			rc = rc == LG_EINVAL ? CLI_USAGE : CLI_FAIL;
		}
		lg_buf_free(&b);
		goto out;
	}
	if (env_tree_nashconv(t, &ps.pol, &nc, err, sizeof err)) {
		fprintf(stderr, "league eval nashconv: %s\n", err);
		rc = ps.tab ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	print_nashconv(&a, e, t, &ps, &nc, t0);
	rc = CLI_OK;
out:
	env_cfr_free(ps.cfr);
	env_mmd_free(ps.mmd);
	env_fp_free(ps.fp);
	env_tabular_free(ps.tab);
	env_tree_free(t);
	env_free(e);
	nn_ws_free(agent_pol.ws);
	league_agent_free(&ag);
	return rc;
}

/* What `league eval [baselines] DIR` reads besides DIR. */
struct curve_args {
	int baselines;    /* `eval baselines`: --baseline and --last apply */
	const char *only; /* --baseline NAME */
	int64_t last;     /* --last N, 0: every version */
};

/* --baseline NAME (a struct curve_args), with `eval baselines` only. */
static int baseline_arg(void *dest, const char *val, char *err,
			size_t errlen)
{
	struct curve_args *ca = dest;

	if (!ca->baselines) {
		snprintf(err, errlen, "--baseline goes with 'eval baselines "
			 "DIR'");
		return LG_EINVAL;
	}
	ca->only = val;
	return 0;
}

/* --last N (a struct curve_args), with `eval baselines` only. */
static int last_arg(void *dest, const char *val, char *err, size_t errlen)
{
	struct curve_args *ca = dest;

	if (!ca->baselines || lg_parse_i64(val, 1, 1000000, &ca->last)) {
		snprintf(err, errlen, "--last: a count of versions "
			 "(1..1000000) with 'eval baselines DIR'");
		return LG_EINVAL;
	}
	return 0;
}

/* `league eval [baselines] DIR [--format table|csv|json]`. */
static int eval_curve(int argc, char **argv, int baselines)
{
	struct curve_args ca = { .baselines = baselines };
	const char *fmt = "table", *dir;
	const struct cli_arg flags[] = {
		CLI_STRING("format", 'f', &fmt),
		CLI_CALL("baseline", 'b', &ca, baseline_arg),
		CLI_CALL("last", 'l', &ca, last_arg),
		CLI_END,
	};
	const struct cli_args spec = {
		.cmd = "eval", .flags = flags, .min_pos = 1, .max_pos = 1,
		.want = "expected one league DIR",
	};
	struct league_eval_point *pt = NULL;
	struct league_bgame_row *rows = NULL;
	size_t n = 0;
	char err[512] = "";
	char **pos;
	int rc, usage;

	if (cli_args(&spec, argc, argv, &pos, NULL))
		return CLI_USAGE;
	dir = pos[0];
	if (strcmp(fmt, "table") && strcmp(fmt, "csv") && strcmp(fmt, "json"))
		return cli_usage_error("eval", "--format: table, csv or json, "
				       "not '%s'", fmt);
	if ((rc = eval_records_read(dir, baselines, &pt, &rows, &n, &usage,
				    err, sizeof err))) {
		fprintf(stderr, "league eval: %s\n", err);
		rc = usage ? CLI_USAGE : CLI_FAIL;
	} else if (baselines) {
		eval_print_baselines(stdout, rows, n, fmt, ca.only,
				     ca.last ? eval_bgame_last(rows, n,
							       (uint64_t)ca.last)
					     : 0);
	} else {
		eval_print_points(stdout, pt, n, fmt);
	}
	free(pt);
	free(rows);
	return rc ? rc : CLI_OK;
}

static int run(int argc, char **argv)
{
	struct stat sb;

	if (argc >= 2 && argv[1][0] != '-' && stat(argv[1], &sb) == 0 &&
	    S_ISDIR(sb.st_mode))
		return eval_curve(argc, argv, 0);
	if (argc >= 2 && !strcmp(argv[1], "baselines"))
		return eval_curve(argc - 1, argv + 1, 1);
	if (argc < 2)
		return cli_usage_error("eval", "expected 'nashconv' or "
				       "'policy'");
	if (!strcmp(argv[1], "nashconv"))
		return eval_run(argc - 1, argv + 1, 0);
	if (!strcmp(argv[1], "policy"))
		return eval_run(argc - 1, argv + 1, 1);
	if (!strcmp(argv[1], "search"))
		return cli_eval_search(argc - 1, argv + 1);
	if (!strcmp(argv[1], "br"))
		return cli_eval_br(argc - 1, argv + 1);
	return cli_usage_error("eval", "unknown subcommand '%s'", argv[1]);
}

const struct cli_cmd cli_cmd_eval = {
	.name = "eval",
	.summary = "exact NashConv of a policy; a league's NashConv curve; a "
		   "trained best response",
	.help =
	"usage: league eval DIR [--format table|csv|json]\n"
	"       league eval baselines DIR [--format table|csv|json]\n"
	"                                 [--baseline NAME] [--last N]\n"
	"       league eval nashconv --game GAME [--policy POLICY] [--json]\n"
	"                            [--param KEY=VALUE]... [--matrix ROWS]\n"
	"                            [--config FILE] [--plugin PATH]\n"
	"       league eval nashconv --policy AGENT [--plugin PATH] [--json]\n"
	"                            [--sampled EPISODES [--estimator E]\n"
	"                             [--clip C] [--reach R] [--seed S]]\n"
	"       league eval policy --game GAME [--policy POLICY] [--out FILE]\n"
	"                        [--follow-symlinks]\n"
	"       league eval search CONFIG --against BASELINE [--sims N]\n"
	"                          [--batch B] [--games G] [--last N]\n"
	"                          [--player P]\n"
	"                          [--dir DIR] [--c-puct C]\n"
	"                          [--sample | --sample-moves K] [--seed S]\n"
	"                          [--average K] [--json]\n"
	"       league eval br DIR (--player ID [--version V] | --mixture)\n"
	"       league eval br AGENT [--plugin PATH | --remote ADDR]\n"
	"                      [--budget SECONDS] [--steps N] [--points N]\n"
	"                      [--episodes N] [--final-episodes N] [--sample]\n"
	"                      [--seed S] [--envs N] [--lr X] [--ent-coef X]\n"
	"                      [--magnet-coef X] [--no-exact]\n"
	"                      [--json | --format table|csv|json]\n"
	"\n"
	"nashconv  Best responses by full game-tree traversal (kuhn, leduc,\n"
	"          liars_dice, rps, matrix; 1 to 8 seats) and NashConv = sum\n"
	"          over seats of (best response value - policy value);\n"
	"          exploitability = NashConv / players. --param sets\n"
	"          env.params (e.g. players=3) after --config's. For a\n"
	"          common-payoff game also the optimum (the best joint\n"
	"          policy, exact) and the policy's gap to it. --json prints\n"
	"          one object with game, players, policy, nashconv,\n"
	"          exploitability, value, br_value (one per seat), ...\n"
	"policy    Print POLICY as a tabular policy file (one line per\n"
	"          information state: INFOSTATE P0 P1 ...), e.g. to save a\n"
	"          CFR+ solution; --out writes it to FILE (only a regular\n"
	"          file or a missing one; a symlink with --follow-symlinks).\n"
	"\n"
	"POLICY    uniform (default), cfr:ITERS (CFR+ average policy after\n"
	"          ITERS iterations, 1..1000000; vcfr:ITERS vanilla CFR's),\n"
	"          mmd:ALPHA:ETA:ITERS\n"
	"          (magnetic mirror descent's last iterate: the quantal-\n"
	"          response equilibrium of temperature ALPHA once its\n"
	"          printed residual is near 0; ETA the step, e.g.\n"
	"          mmd:0.2:0.05:20000), mmdavg:ALPHA:ETA:ITERS (the\n"
	"          average of its iterates ITERS/2 .. ITERS-1, each\n"
	"          weighted by its own reach), ommd:, ommdavg: the same\n"
	"          optimistic (each step on q + (q - the previous q): it\n"
	"          converges where the plain step cycles); any of them\n"
	"          :BETA:EVERY more, the league's moving magnet (weight\n"
	"          BETA, the policy copied every EVERY iterations);\n"
	"          fp:TAU:ITERS (smooth\n"
	"          fictitious play's average after ITERS iterations, each\n"
	"          a logit best response of temperature TAU, 0 exact, to\n"
	"          the average; fplin:TAU:ITERS weighs iteration t by t)\n"
	"          or a tabular policy FILE, or an AGENT file (`league\n"
	"          export`): its network's policy on the game it recorded,\n"
	"          whose options it fixes; a plugin game's with --plugin\n"
	"          PATH naming a plugin of the SHA-256 it recorded.\n"
	"          --plugin PATH alone: that plugin's game (its params by\n"
	"          --param)\n"
	"          (format in docs/envs.md; errors name file:line, exit 2).\n"
	"--sampled EPISODES  (an mmd:/mmdavg: POLICY) each iteration's values from\n"
	"          EPISODES sampled self-play episodes instead of the tree:\n"
	"          --estimator outcome (default: the batch's mean return at\n"
	"          the infoset plus the taken action's importance-weighted\n"
	"          excess), history (the same over a perfect critic of the\n"
	"          whole history) or allq (that critic's value of every\n"
	"          action); --clip C bounds each estimate; --reach R scales\n"
	"          an infoset's step by min(1, R x its visits / the most);\n"
	"          --seed S (default 1). docs/envs.md.\n"
	"DIR       a league directory: its exploitability over time, one row\n"
	"          per evaluated snapshot (seconds, env_steps; NashConv of:\n"
	"          nashconv_main the newest main player; nashconv_league the\n"
	"          snapshots mixed as one behaviour policy by the league's\n"
	"          own meta-Nash weights (its payoff table); nashconv_oracle_mix\n"
	"          the same snapshots by the exact meta-Nash of their game-tree\n"
	"          values (an oracle the league lacks); nashconv_avg the main\n"
	"          player's average policy over avg_versions of its versions),\n"
	"          as stored by the evaluator (`league evaluate`). Read-only:\n"
	"          works beside a running daemon. JSON: a list of objects.\n"
	"baselines DIR: the league's games against fixed baselines\n"
	"          (eval.share, eval.baselines), one row per evaluated main\n"
	"          player version and baseline: games, win and loss rate\n"
	"          over both seats, and wins/draws/losses by the player's\n"
	"          seat (seat 0 moves first); --baseline keeps one\n"
	"          baseline's rows (e.g. to plot its curve); --last N\n"
	"          the rows of the N newest versions evaluated.\n"
	"search    The league's stored versions of a player (--player, 0 by\n"
	"          default: the main player; --last N the newest N) against\n"
	"          BASELINE (alphabeta:N, minimax, random), G games from each\n"
	"          seat, twice: as the raw policy (its most probable legal\n"
	"          action) and as a search agent, PUCT MCTS with N\n"
	"          simulations a move (100) using the network as prior and\n"
	"          value (the most visited move); --sample samples both (the\n"
	"          policy, and the search in proportion to its visits: rows\n"
	"          'policy~', 'mcts~:N'); --sample-moves K samples each\n"
	"          game's first K moves of the agent, then plays greedily\n"
	"          (rows 'policy~K', 'mcts~K:N': different games, each played\n"
	"          out by the greedy agent). --batch B evaluates up to B\n"
	"          leaves a forward (virtual draws; rows 'mcts:N/B').\n"
	"          --average K plays the mean of the parameters of K\n"
	"          versions in a row ending at each (rows 'avgK:...').\n"
	"          Each row counts its lines: the distinct games per seat.\n"
	"          Separate rows, 'policy' and 'mcts:N': the search agent\n"
	"          is not the trained policy. CONFIG is the\n"
	"          league's config (its game and directory; --dir overrides\n"
	"          league.dir). Sequential games without chance only.\n"
	"br        Approximate exploitability where no tree fits: a fresh\n"
	"          network of the league's model trained by PPO with the\n"
	"          league's learner settings (--lr, --ent-coef, --magnet-coef\n"
	"          override them) against a frozen opponent, seats\n"
	"          alternating: player ID's newest stored version (or V; a\n"
	"          snapshot is the version it froze), or --mixture (--player\n"
	"          nash): the league's meta-Nash over its newest snapshots,\n"
	"          one snapshot drawn per episode by weight. For --budget\n"
	"          seconds of training (60; evaluation apart) or --steps env\n"
	"          steps, whichever comes first; at the start and at --points\n"
	"          (10) even steps of it, --episodes fresh episodes (2000;\n"
	"          --final-episodes at the end, 10000), half from each seat,\n"
	"          the best responder playing its most probable legal action\n"
	"          (--sample: sampling), the opponent sampling. Prints per\n"
	"          point its mean return by seat and their sum, the NashConv\n"
	"          estimate (it approaches the true NashConv from below),\n"
	"          with a 95% interval (1.96 standard errors); for a game\n"
	"          with a tree, the exact NashConv of the same opponent too\n"
	"          (--no-exact skips it). --json: an object per point, then a\n"
	"          summary object; csv: a row per point with the exact\n"
	"          figure as a column (for `league plot`). Two-player\n"
	"          zero-sum games only. DIR is read-only, closed before\n"
	"          training. An AGENT file in its place is the opponent on\n"
	"          the game it recorded (--plugin PATH of the recorded\n"
	"          SHA-256, or --remote ADDR, as league play takes them),\n"
	"          with its config's model and the default learner.\n"
	"--matrix  payoff of the row player, e.g. '[[3,-2],[-2,1]]' (implies\n"
	"          --game matrix); --config takes env.name and env.matrix\n"
	"          from a league config.\n",
	.run = run,
};
