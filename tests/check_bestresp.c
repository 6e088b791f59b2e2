/* tests/check_bestresp.c: the trained best response (eval/bestresp.h,
 * `league eval br`) against opponents whose exact NashConv the game tree
 * gives. The runs end at a budget of env steps (the seconds budget is
 * far), so each is a function of its seed whatever the machine's load.
 *
 * Tolerances: the estimate of a best response is below the true
 * NashConv in expectation (no policy beats the best response), so it
 * must be at most exact + w, and at least exact - (w + a training
 * slack), w the run's 95% half-width widened to 99.9% (x 3.29 / 1.96):
 * a best responder that found the best response is an unbiased estimate
 * of the exact value, and a 95% bound would fail one seed in forty per
 * assertion (the sanitizer build's floats make other seeds). The slack
 * is what a short run may fall short of the best response: 0.05 on Kuhn
 * (NashConv 0.67 here) and 0.25 on Leduc (4.75). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envs/env.h"
#include "eval/bestresp.h"
#include "conf/options.h"
#include "tests/testutil.h"
#include "util/util.h"

#define MAX_POINTS 16
#define WIDEN (3.2905 / 1.95996) /* a 95% half-width to 99.9% */

struct seen {
	struct league_br_point p[MAX_POINTS];
	int n;
};

static void keep_point(void *ctx, const struct league_br_point *p)
{
	struct seen *s = ctx;

	ck_assert_int_lt(s->n, MAX_POINTS);
	ck_assert_uint_eq(p->index, (unsigned)s->n);
	s->p[s->n++] = *p;
}

/* The settings of configs/kuhn.yaml's or leduc.yaml's learner for game,
 * with a steps budget; the game's spec into *spec. */
static void opts_for(const char *game, const char *hidden, uint64_t steps,
		     struct cfg *c, struct league_br_opts *o,
		     struct env_spec *spec)
{
	char y[1024], err[512];
	struct env_opts eo;
	env *e = NULL;

	snprintf(y, sizeof y,
		 "league: {seed: 3}\n"
		 "env: {name: %s}\n"
		 "model: {hidden: [%s], activation: tanh}\n"
		 "learner: {lr: 0.003, batch: 2048, minibatch: 512, "
		 "epochs: 4, ent_coef: 0.05, magnet_coef: 0.5, gamma: 1.0, "
		 "gae_lambda: 1.0}\n"
		 "collectors: {envs: 64, mode: serial}\n", game, hidden);
	ck_assert_msg(cfg_load_string(c, y, strlen(y), "test", err,
				      sizeof err) == 0, "%s", err);
	league_env_opts(c, &eo);
	e = tu_env_open(game, &eo);
	*spec = *env_spec_of(e);
	env_free(e);
	league_br_opts_of(c, spec, o);
	o->budget_s = 600; /* the steps end it */
	o->budget_steps = steps;
	o->points = 4;
	o->episodes = 20000;
	o->final_episodes = 100000;
}

/* A net of the config's model whose policy is the same at every state:
 * softmax of bias over the legal actions (all parameters 0 but the
 * head's policy biases). */
static nn *bias_net(const struct cfg *c, const struct env_spec *spec,
		    const float *bias)
{
	struct nn_shape s;
	struct nn_tensor t;
	size_t count;
	nn *n = NULL;
	float *p;
	int found = 0;

	league_nn_shape(c, spec, &s);
	ck_assert_int_eq(nn_new(&n, &s, 1), 0);
	p = nn_params(n, &count);
	memset(p, 0, count * sizeof *p);
	for (size_t i = 0; i < nn_tensor_count(n); i++) {
		ck_assert_int_eq(nn_tensor_info(n, i, &t), 0);
		if (strcmp(t.name, "bhead"))
			continue;
		for (int a = 0; bias && a < spec->num_actions; a++)
			p[t.offset + (size_t)a] = bias[a];
		found = 1;
	}
	ck_assert(found);
	return n;
}

/* The run's points against the exact figures. */
static void check_curve(const struct seen *s, const struct env_nashconv *nc,
			double slack, const char *what)
{
	const struct league_br_point *first = &s->p[0], *last = &s->p[s->n - 1];

	ck_assert_int_eq(s->n, 5);
	ck_assert(last->final && !first->final);
	ck_assert_uint_eq(last->episodes[0] + last->episodes[1] +
				  last->abnormal, 100000);
	ck_assert_uint_eq(first->episodes[0], 10000);
	for (int i = 1; i < s->n; i++) {
		ck_assert_uint_ge(s->p[i].env_steps, s->p[i - 1].env_steps);
		ck_assert_uint_gt(s->p[i].updates, s->p[i - 1].updates);
	}
	printf("bestresp: %s: exact NashConv %.4f (%.4f, %.4f by seat); "
	       "estimate %.4f +- %.4f at the start, %.4f +- %.4f (%.4f, "
	       "%.4f) after %llu env steps, %llu updates, %.1f s\n", what,
	       nc->nashconv, nc->br_value[0], nc->br_value[1],
	       first->nashconv, first->nashconv_ci, last->nashconv,
	       last->nashconv_ci, last->br_value[0], last->br_value[1],
	       (unsigned long long)last->env_steps,
	       (unsigned long long)last->updates, last->seconds);
	/* the sum of the seats, the mean over them */
	ck_assert_double_eq_tol(last->nashconv,
				last->br_value[0] + last->br_value[1], 1e-12);
	ck_assert_double_eq_tol(last->value, last->nashconv / 2, 1e-12);
	/* from below: at most exact + the interval, per seat too */
	double w = last->nashconv_ci * WIDEN;
	ck_assert_msg(last->nashconv <= nc->nashconv + w,
		      "%s: estimate %.4f +- %.4f above the exact %.4f", what,
		      last->nashconv, w, nc->nashconv);
	for (int p = 0; p < 2; p++)
		ck_assert_msg(last->br_value[p] <=
				      nc->br_value[p] + last->br_ci[p] * WIDEN,
			      "%s: seat %d: %.4f +- %.4f above the exact %.4f",
			      what, p, last->br_value[p],
			      last->br_ci[p] * WIDEN, nc->br_value[p]);
	/* ... and close to it */
	ck_assert_msg(last->nashconv >= nc->nashconv - w - slack,
		      "%s: estimate %.4f +- %.4f short of the exact %.4f by "
		      "more than %.2f", what, last->nashconv, w, nc->nashconv,
		      slack);
	/* it rose: the untrained net's figure is well below */
	ck_assert_msg(first->nashconv + first->nashconv_ci <
			      last->nashconv - last->nashconv_ci,
		      "%s: %.4f +- %.4f at the start, %.4f +- %.4f at the end",
		      what, first->nashconv, first->nashconv_ci,
		      last->nashconv, last->nashconv_ci);
}

/* Kuhn: the uniform policy's exact NashConv is 11/12; against a
 * mixture of it (1/4) and a policy that bets or calls 88% of the time
 * (3/4), one of the two drawn per episode, the trained best response's
 * value comes to the exact NashConv of the mixture as one behaviour
 * policy (0.668) from below, and rises from the untrained net's. */
START_TEST(kuhn_best_response_approaches_the_exact_nashconv)
{
	static struct cfg c;
	struct league_br_opts o;
	struct env_spec spec;
	struct env_nashconv nc;
	struct league_br_point last;
	static struct seen s;
	const float bets[2] = { 0, 2 };
	char err[512];

	opts_for("kuhn", "32", 1000000, &c, &o, &spec);
	nn *uni = bias_net(&c, &spec, NULL), *bet = bias_net(&c, &spec, bets);
	const nn *nets[2] = { uni, bet };
	const double w[2] = { 0.25, 0.75 };
	struct league_br_opponent alone = { nets, NULL, 1 },
				  mix = { nets, w, 2 };

	ck_assert_int_eq(league_br_exact("kuhn", &o.env, &alone, &nc, err,
					 sizeof err), 0);
	ck_assert_double_eq_tol(nc.nashconv, 11.0 / 12, 1e-9);
	ck_assert_msg(league_br_exact("kuhn", &o.env, &mix, &nc, err,
				      sizeof err) == 0, "%s", err);
	/* another target than uniform's */
	ck_assert(fabs(nc.nashconv - 11.0 / 12) > 0.1);
	memset(&s, 0, sizeof s);
	o.on_point = keep_point;
	o.ctx = &s;
	ck_assert_msg(league_br_run(&o, &mix, &last, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_mem_eq(&last, &s.p[s.n - 1], sizeof last);
	check_curve(&s, &nc, 0.05, "kuhn, uniform 1/4 + bets 3/4");
	nn_free(uni);
	nn_free(bet);
}
END_TEST

/* Leduc: the uniform policy (NashConv 4.747222, OpenSpiel's figure). */
START_TEST(leduc_best_response_approaches_the_exact_nashconv)
{
	static struct cfg c;
	struct league_br_opts o;
	struct env_spec spec;
	struct env_nashconv nc;
	static struct seen s;
	char err[512];

	opts_for("leduc", "128", 600000, &c, &o, &spec);
	nn *uni = bias_net(&c, &spec, NULL);
	const nn *nets[1] = { uni };
	struct league_br_opponent op = { nets, NULL, 1 };

	ck_assert_int_eq(league_br_exact("leduc", &o.env, &op, &nc, err,
					 sizeof err), 0);
	ck_assert_double_eq_tol(nc.nashconv, 4.747222222, 1e-6);
	memset(&s, 0, sizeof s);
	o.on_point = keep_point;
	o.ctx = &s;
	ck_assert_msg(league_br_run(&o, &op, NULL, err, sizeof err) == 0,
		      "%s", err);
	check_curve(&s, &nc, 0.25, "leduc, uniform");
	nn_free(uni);
}
END_TEST

/* Bad options and opponents are refused before anything runs, saying
 * what is wrong. */
START_TEST(bad_runs_are_refused)
{
	static struct cfg c, t;
	struct league_br_opts o, x;
	struct env_spec spec, tspec;
	const float bias[3] = { 0, 0, 0 };
	char err[512];

	opts_for("kuhn", "8", 1000, &c, &o, &spec);
	opts_for("leduc", "8", 1000, &t, &x, &tspec);
	nn *k = bias_net(&c, &spec, NULL), *l = bias_net(&t, &tspec, bias);
	const nn *nets[2] = { k, l }, *twice[2] = { k, k };
	const double neg[2] = { 1, -1 }, zero[1] = { 0 };
	struct {
		struct league_br_opponent op;
		const char *why;
	} bad_ops[] = {
		{ { nets, NULL, 0 }, "1 to" },
		{ { nets + 1, NULL, 1 }, "does not fit kuhn" },
		{ { nets, NULL, 2 }, "net 1 does not fit" },
		{ { twice, neg, 2 }, "weight 1 is -1" },
		{ { nets, zero, 1 }, "sum to 0" },
	};
	struct league_br_opponent good = { nets, NULL, 1 };

	for (size_t i = 0; i < LG_ARRAY_LEN(bad_ops); i++) {
		err[0] = 0;
		ck_assert_int_eq(league_br_run(&o, &bad_ops[i].op, NULL, err,
					       sizeof err), LG_EINVAL);
		ck_assert_msg(strstr(err, bad_ops[i].why), "case %zu: %s", i,
			      err);
	}
	x = o;
	x.episodes = 5;
	ck_assert_int_eq(league_br_run(&x, &good, NULL, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "even"), "%s", err);
	x = o;
	x.points = 0;
	ck_assert_int_eq(league_br_run(&x, &good, NULL, err, sizeof err),
			 LG_EINVAL);
	x = o;
	x.budget_s = 0;
	ck_assert_int_eq(league_br_run(&x, &good, NULL, err, sizeof err),
			 LG_EINVAL);
	x = o;
	x.game = "no-such-game";
	ck_assert_int_ne(league_br_run(&x, &good, NULL, err, sizeof err), 0);
	/* no tree: no exact figure */
	struct env_nashconv nc;
	ck_assert_int_eq(league_br_exact("tictactoe", &o.env, &good, &nc, err,
					 sizeof err), LG_EUNSUPP);
	nn_free(k);
	nn_free(l);
}
END_TEST

/* `league eval br` on a real league directory (a Kuhn league of 100 jobs):
 * --player and --mixture print a JSON object per point and a summary
 * with the exact NashConv beside the estimate; what cannot be asked is
 * refused with exit 2, naming why. */
START_TEST(cli_eval_br_on_a_league)
{
	static char out[1 << 16], errb[1 << 16];
	char dir[128], ldir[192];
	const char *text =
		"league: {name: br-run, seed: 2}\n"
		"env: {name: kuhn}\n"
		"model: {hidden: [8]}\n"
		"learner: {batch: 256, minibatch: 64, lr: 0.01}\n"
		"players: {main: 1, main_exploiter: 0, league_exploiter: 0}\n"
		"snapshot: {steps: 2000}\n"
		"matchmaking: {job_episodes: 16}\n"
		"collectors: {count: 1, envs: 8, mode: serial}\n"
		"budget: {seconds: 0, jobs: 100}\n";

	tu_mkdtemp(dir, sizeof dir);
	tu_run_config(text, dir, ldir, sizeof ldir, 1, NULL, NULL, out,
		      sizeof out, errb, sizeof errb);

	const char *br[] = { "eval", "br", ldir, "--player", "0", "--steps",
			     "20000", "--points", "2", "--episodes", "2000",
			     "--final-episodes", "4000", "--json", NULL };
	int rc = tu_run_league(out, sizeof out, errb, sizeof errb, br);
	ck_assert_msg(rc == 0, "eval br: %d\n%s", rc, errb);
	int points = 0;
	for (const char *p = out; (p = strstr(p, "{\"point\":")); p++)
		points++;
	ck_assert_int_eq(points, 3);
	const char *sum = strstr(out, "{\"summary\":true,\"game\":\"kuhn\","
				 "\"player\":0,\"params_player\":0,");
	ck_assert_msg(sum, "%s", out);
	double est, ci, exact;
	ck_assert_int_eq(sscanf(strstr(sum, "\"nashconv_estimate\":"),
				"\"nashconv_estimate\":%lf,\"ci95\":%lf,"
				"\"exact_nashconv\":%lf", &est, &ci, &exact),
			 3);
	printf("bestresp: eval br of a 100-job kuhn league's main player: "
	       "%.4f +- %.4f, exact %.4f\n", est, ci, exact);
	ck_assert(isfinite(est) && ci > 0 && exact >= 0);
	ck_assert(est <= exact + ci * WIDEN);

	const char *mix[] = { "eval", "br", ldir, "--player", "nash",
			      "--steps", "10000", "--points", "1",
			      "--episodes", "1000", "--final-episodes",
			      "1000", "--json", NULL };
	rc = tu_run_league(out, sizeof out, errb, sizeof errb, mix);
	ck_assert_msg(rc == 0, "eval br --mixture: %d\n%s", rc, errb);
	ck_assert_msg(strstr(out, "\"player\":\"nash\",\"snapshots\":") &&
			      strstr(out, "\"mixture\":[{\"id\":"),
		      "%s", out);

	/* the table */
	const char *tab[] = { "eval", "br", ldir, "--player", "0", "--steps",
			      "5000", "--points", "1", "--episodes", "100",
			      "--final-episodes", "100", NULL };
	rc = tu_run_league(out, sizeof out, errb, sizeof errb, tab);
	ck_assert_msg(rc == 0, "eval br: %d\n%s", rc, errb);
	ck_assert_msg(strstr(out, "exact        NashConv ") &&
			      strstr(out, "  seconds    env_steps") &&
			      strstr(out, "estimate     NashConv "),
		      "%s", out);

	/* CSV: a header, a row per point, the exact figure a column */
	const char *csv[] = { "eval", "br", ldir, "--player", "0", "--steps",
			      "5000", "--points", "1", "--episodes", "100",
			      "--final-episodes", "100", "--format", "csv",
			      NULL };
	rc = tu_run_league(out, sizeof out, errb, sizeof errb, csv);
	ck_assert_msg(rc == 0, "eval br: %d\n%s", rc, errb);
	ck_assert_msg(!strncmp(out, "seconds,env_steps,rows,updates,br_seat0,"
			       "br_seat1,nashconv,ci95,ci_low,ci_high,"
			       "exact_nashconv,episodes,eval_seconds\n", 115),
		      "%s", out);
	int lines = 0;
	for (const char *p = out; (p = strchr(p, '\n')); p++)
		lines++;
	ck_assert_int_eq(lines, 3);

	struct {
		const char *argv[12];
		const char *why;
	} bad[] = {
		{ { "eval", "br", ldir, NULL }, "--player ID, or --mixture" },
		{ { "eval", "br", "--player", "0", NULL }, "one league DIR" },
		{ { "eval", "br", ldir, "--player", "0", "--mixture", NULL },
		  "not both" },
		{ { "eval", "br", ldir, "--mixture", "--version", "1", NULL },
		  "--version goes with" },
		{ { "eval", "br", ldir, "--player", "0", "--episodes", "7",
		    NULL }, "even" },
		{ { "eval", "br", ldir, "--player", "0", "--budget", "0",
		    NULL }, "--budget" },
		{ { "eval", "br", ldir, "--player", "x", NULL }, "--player" },
		{ { "eval", "br", ldir, "--player", "999", NULL },
		  "has no player 999" },
		{ { "eval", "br", ldir, "--player", "0", "--version",
		    "99999999", NULL }, "no version 99999999" },
		{ { "eval", "br", ldir, "--player", "1", "--version", "7",
		    NULL }, "is a snapshot" },
		{ { "eval", "br", dir, "--player", "0", NULL }, dir },
		{ { "eval", "br", ldir, "--player", "0", "--format", "xml",
		    NULL }, "--format" },
	};
	for (size_t i = 0; i < LG_ARRAY_LEN(bad); i++) {
		rc = tu_run_league(out, sizeof out, errb, sizeof errb,
				   bad[i].argv);
		ck_assert_msg(rc == 2 && strstr(errb, bad[i].why),
			      "case %zu: exit %d: %s", i, rc, errb);
	}
	tu_rmrf(dir);
}
END_TEST

Suite *suite_bestresp(void)
{
	Suite *s = suite_create("bestresp");
	const struct tu_test exact_tests[] = {
		{ kuhn_best_response_approaches_the_exact_nashconv, 1 },
		{ leduc_best_response_approaches_the_exact_nashconv, 1 },
		{ bad_runs_are_refused, 1 },
	};
	const struct tu_test cli_tests[] = {
		{ cli_eval_br_on_a_league, 1 },
	};

	TU_TCASE(s, "exact", 120, exact_tests);
	TU_TCASE(s, "cli", 120, cli_tests);
	return s;
}
