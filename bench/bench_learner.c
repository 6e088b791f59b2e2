/*
 * bench/bench_learner.c: `league bench learner`: samples per second of a
 * full PPO update (GAE, epochs of shuffled minibatches, forward, backward,
 * Adam) on a synthetic batch, the GFLOP/s of the matrix products that
 * implies (a convolution counted by its definition, 2 cin k k cout per
 * output, whatever the method: through Winograd, which multiplies less,
 * the figure is an effective rate), and the ratio to this machine's own
 * sgemm peak measured in the same run with the same BLAS thread count
 * (nn_sgemm_peak, the higher of a probe before and one after the
 * updates). samples_per_s is batch / seconds per update (each sample is
 * visited `epochs` times).
 * bench/learner_vs_torch runs the same update in PyTorch with --json.
 */
#include "bench/bench.h"
#include "cli/cli.h"
#include "learner/learner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct blopts {
	struct nn_shape s;
	char hidden_txt[128];
	unsigned long long batch, minibatch, epochs, threads;
	double seconds;
	int json;
	const char *model; /* "mlp" or "conv" */
	int inference;     /* forwards of --batch rows instead of updates */
	unsigned wide;     /* --wide A: bench_wide.c's comparison */
	unsigned legal_from; /* --legal-from K: its legal ids' range */
};

static int parse_hidden(const char *txt, struct nn_shape *s)
{
	char buf[128], *save = NULL, *tok;

	if (strlen(txt) >= sizeof buf)
		return -1;
	strcpy(buf, txt);
	s->nhidden = 0;
	if (!strcmp(buf, "") || !strcmp(buf, "none"))
		return 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (s->nhidden == NN_MAX_LAYERS ||
		    lg_parse_u64(tok, 1, NN_MAX_WIDTH, &v))
			return -1;
		s->hidden[s->nhidden++] = (uint32_t)v;
	}
	return 0;
}

/* Synthetic batch: gaussian observations, ~3/4 of actions legal, actions
 * and log-probabilities sampled from the net itself, episodes of 32. */
int bench_synth_rows(struct lg_rows *y, const nn *net, size_t n,
		     unsigned episode)
{
	const struct nn_shape *s = nn_shape_of(net);
	nn_ws *ws = NULL;
	lg_rng r;
	int rc;

	if ((rc = lg_rows_init(y, s->obs, s->actions, s->gru, n)))
		return rc;
	y->n = n;
	if (s->gru) /* every stored state 0: a fresh episode's */
		memset(y->state, 0, n * s->gru * sizeof *y->state);
	lg_rng_seed(&r, 42);
	for (size_t i = 0; i < n * s->obs; i++)
		y->obs[i] = (float)lg_rng_normal(&r);
	uint8_t *all = lg_rows_lists(y) ? malloc(n * s->actions) : y->mask;
	if (!all)
		return LG_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint8_t *m = all + i * s->actions;
		for (size_t a = 0; a < s->actions; a++)
			m[a] = lg_rng_below(&r, 4) != 0;
		m[lg_rng_below(&r, s->actions)] = 1;
		y->done[i] = i % episode == episode - 1 ? LG_ROW_END
							: LG_ROW_NEXT;
		y->reward[i] = y->done[i] ? (lg_rng_below(&r, 2) ? 1 : -1) : 0;
	}
	rc = nn_ws_new(&ws, net, n);
	if (!rc)
		rc = nn_act(net, ws, y->obs, all, n, &r, y->action, y->logp,
			    y->value);
	/* a gathered head's rows carry lists (util/rows.h) */
	for (size_t i = 0; !rc && all != y->mask && i < n; i++) {
		rc = lg_rows_put_mask(y, i, all + i * s->actions);
		y->legal_n += y->nlegal[i];
	}
	if (all != y->mask)
		free(all);
	nn_ws_free(ws);
	return rc;
}

static int usage_help(void)
{
	printf("usage: league bench learner [--model mlp|conv] [--obs N] "
	       "[--hidden W,W,...] [--actions N]\n"
	       "       [--act relu|tanh] [--batch N] [--minibatch N] "
	       "[--epochs N]\n"
	       "       [--gru H] [--threads N] [--seconds S] [--json]\n"
	       "       [--wide A [--legal-from K]]\n\n"
	       "Samples per second of a full PPO update (defaults: obs 128, "
	       "hidden 256,256,\nactions 16, relu, batch 4096, minibatch "
	       "1024, epochs 4, 1 BLAS thread,\nabout 3 s of updates), "
	       "the GFLOP/s of its matrix products and the ratio to\nthe "
	       "sgemm peak of this machine measured in the same run with "
	       "the same threads.\n--model conv: Connect Four's 3x6x7 "
	       "planes through two 64-channel 3x3\nconvolutions (padding "
	       "1), then hidden 256, 7 actions.\n--inference: batched "
	       "forwards of --batch rows (nn_probs: net and masked\nsoftmax, "
	       "what a collector's inference device runs) instead of "
	       "updates.\n--gru H: a recurrent core of H units after the "
	       "hidden layers, trained on\nsequences of 16 rows (episodes "
	       "of 32, stored states 0).\n--wide A: the same net with a "
	       "gathered head of A actions (more than 64)\nagainst 64 "
	       "actions, rows of 8-30 legal actions, updates and forwards "
	       "of\n256 rows alternating; the ratios wide / dense. "
	       "--legal-from K: the wide net's legal\nids from its first K "
	       "actions (default all; 64: the dense net's).\n");
	return CLI_OK;
}

/* The defaults: an MLP of obs 128, hidden 256,256, 16 actions, relu;
 * batch 4096, minibatch 1024, 4 epochs, 1 thread, 3 s. */
static void blopts_default(struct blopts *o)
{
	memset(o, 0, sizeof *o);
	o->s.obs = 128;
	o->s.actions = 16;
	o->s.act = NN_RELU;
	o->s.nhidden = 2;
	o->s.hidden[0] = o->s.hidden[1] = 256;
	strcpy(o->hidden_txt, "256,256");
	o->batch = 4096;
	o->minibatch = 1024;
	o->epochs = 4;
	o->threads = 1;
	o->seconds = 3;
	o->model = "mlp";
}

/* --model: "mlp" (no convolutions) or "conv"; -1 for any other name. */
static int set_model(struct blopts *o, const char *name)
{
	if (!strcmp(name, "mlp")) {
		o->s.nconv = 0;
		memset(o->s.planes, 0, sizeof o->s.planes);
		memset(o->s.conv, 0, sizeof o->s.conv);
		o->model = "mlp";
		return 0;
	}
	if (strcmp(name, "conv"))
		return -1;
	/* Connect Four's planes, two 64-channel 3x3
	 * convolutions, one dense layer of 256 (later
	 * --hidden / --actions / --act still apply) */
	o->model = "conv";
	o->s.obs = 3 * 6 * 7;
	o->s.actions = 7;
	o->s.planes[0] = 3;
	o->s.planes[1] = 6;
	o->s.planes[2] = 7;
	o->s.nconv = 2;
	o->s.conv[0] = (struct nn_conv){ 64, 3, 1, 1, 0, 0 };
	o->s.conv[1] = (struct nn_conv){ 64, 3, 1, 1, 0, 0 };
	o->s.nhidden = 1;
	o->s.hidden[1] = 0;
	o->s.hidden[0] = 256;
	strcpy(o->hidden_txt, "256");
	return 0;
}

/* The flags of `league bench learner` (usage_help lists them). */
static const struct option learner_opts[] = {
	{ "obs", required_argument, NULL, 'o' },
	{ "hidden", required_argument, NULL, 'H' },
	{ "actions", required_argument, NULL, 'a' },
	{ "act", required_argument, NULL, 'A' },
	{ "batch", required_argument, NULL, 'b' },
	{ "minibatch", required_argument, NULL, 'm' },
	{ "epochs", required_argument, NULL, 'e' },
	{ "threads", required_argument, NULL, 't' },
	{ "seconds", required_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'j' },
	{ "model", required_argument, NULL, 'M' },
	{ "inference", no_argument, NULL, 'I' },
	{ "gru", required_argument, NULL, 'G' },
	{ "wide", required_argument, NULL, 'W' },
	{ "legal-from", required_argument, NULL, 'L' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The flags of argv into o, from the defaults: CLI_OK, CLI_USAGE (said
 * why on stderr), or -1 after --help printed the usage. */
static int parse(int argc, char **argv, struct blopts *o)
{
	const char *cmd = "bench learner";
	unsigned long long v;
	int ch;

	blopts_default(o);
	while ((ch = cli_getopt(argc, argv, cmd, "", learner_opts)) != -1) {
		switch (ch) {
		case -2:
			return CLI_USAGE;
		case 'o':
			if (cli_opt_u64(cmd, "--obs", optarg, 1, NN_MAX_OBS,
					&v))
				return CLI_USAGE;
			o->s.obs = (uint32_t)v;
			break;
		case 'a':
			if (cli_opt_u64(cmd, "--actions", optarg, 1,
					NN_MAX_ACTIONS, &v))
				return CLI_USAGE;
			o->s.actions = (uint32_t)v;
			break;
		case 'H':
			if (parse_hidden(optarg, &o->s))
				return cli_usage_error(cmd, "--hidden: expected "
						       "up to 8 widths in [1, "
						       "65536] like 256,256");
			snprintf(o->hidden_txt, sizeof o->hidden_txt, "%s",
				 optarg);
			break;
		case 'A':
			if (strcmp(optarg, "relu") && strcmp(optarg, "tanh"))
				return cli_usage_error(cmd, "--act: relu or "
						       "tanh");
			o->s.act = strcmp(optarg, "relu") ? NN_TANH : NN_RELU;
			break;
		case 'b':
			if (cli_opt_u64(cmd, "--batch", optarg, 1, 1 << 22,
					&o->batch))
				return CLI_USAGE;
			break;
		case 'm':
			if (cli_opt_u64(cmd, "--minibatch", optarg, 1, 1 << 22,
					&o->minibatch))
				return CLI_USAGE;
			break;
		case 'e':
			if (cli_opt_u64(cmd, "--epochs", optarg, 1, 1000,
					&o->epochs))
				return CLI_USAGE;
			break;
		case 't':
			if (cli_opt_u64(cmd, "--threads", optarg, 1, 256,
					&o->threads))
				return CLI_USAGE;
			break;
		case 's':
			if (cli_opt_double(cmd, "--seconds", optarg, 0.01, 600,
					   &o->seconds))
				return CLI_USAGE;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'I':
			o->inference = 1;
			break;
		case 'G':
			if (cli_opt_u64(cmd, "--gru", optarg, 1, 65536, &v))
				return CLI_USAGE;
			o->s.gru = (uint32_t)v;
			break;
		case 'W': /* --wide, --legal-from */
		case 'L':
			if (cli_opt_u64(cmd, ch == 'W' ? "--wide" : "--legal-from",
					optarg, ch == 'W' ? NN_DENSE_ACTIONS + 1
							  : WIDE_LEGAL_FROM_MIN,
					NN_MAX_ACTIONS, &v))
				return CLI_USAGE;
			*(ch == 'W' ? &o->wide : &o->legal_from) = (unsigned)v;
			break;
		case 'M':
			if (set_model(o, optarg))
				return cli_usage_error(cmd, "--model: mlp or "
						       "conv");
			break;
		case 'h':
			usage_help();
			return -1;
		}
	}
	if (optind != argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
				       argv[optind]);
	return CLI_OK;
}

/* --inference: what a collector's inference device does, batched
 * forwards (nn_probs: the net, the masked softmax) of o->batch rows,
 * samples/s over o->seconds. */
static int bench_inference(const struct blopts *o)
{
	nn *net = NULL;
	nn_ws *ws = NULL;
	float *obs = NULL, *probs = NULL, *val = NULL;
	uint8_t *mask = NULL;
	size_t B = (size_t)o->batch;
	uint64_t rows = 0;
	double t0, dt;
	lg_rng r;
	int rc = CLI_FAIL;

	nn_set_threads((int)o->threads);
	if (nn_new(&net, &o->s, 1) || nn_ws_new(&ws, net, B))
		goto out;
	obs = malloc(B * o->s.obs * sizeof *obs);
	probs = malloc(B * o->s.actions * sizeof *probs);
	val = malloc(B * sizeof *val);
	mask = malloc(B * o->s.actions);
	if (!obs || !probs || !val || !mask)
		goto out;
	lg_rng_seed(&r, 7);
	for (size_t i = 0; i < B * o->s.obs; i++)
		obs[i] = (float)(lg_rng_below(&r, 3) == 0);
	memset(mask, 1, B * o->s.actions);
	if (nn_probs(net, ws, obs, mask, B, probs, val)) /* warm-up */
		goto out;
	t0 = lg_now_s();
	do {
		for (int k = 0; k < 8; k++) {
			if (nn_probs(net, ws, obs, mask, B, probs, val))
				goto out;
			rows += B;
		}
		dt = lg_now_s() - t0;
	} while (dt < o->seconds);
	if (o->json)
		printf("{\"bench\":\"inference\",\"model\":\"%s\","
		       "\"obs\":%u,\"hidden\":\"%s\",\"actions\":%u,"
		       "\"batch\":%llu,\"threads\":%llu,"
		       "\"samples_per_s\":%.1f,\"forward_us\":%.2f}\n",
		       o->model, o->s.obs, o->hidden_txt, o->s.actions,
		       o->batch, o->threads, (double)rows / dt,
		       dt / ((double)rows / (double)B) * 1e6);
	else
		printf("inference: %s, batch %llu, %llu thread(s): %.0f "
		       "samples/s, %.1f us a forward\n", o->model, o->batch,
		       o->threads, (double)rows / dt,
		       dt / ((double)rows / (double)B) * 1e6);
	rc = CLI_OK;
out:
	free(obs);
	free(probs);
	free(val);
	free(mask);
	nn_ws_free(ws);
	nn_free(net);
	return rc;
}

int bench_learner(int argc, char **argv)
{
	struct blopts o;
	struct ppo_opts po;
	struct lg_rows b = { 0 };
	struct ppo_stats st;
	ppo *p = NULL;
	char err[256];
	double peak = 0, t0, dt, sps, gflops;
	uint64_t updates = 0;
	int rc, ret = CLI_FAIL;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	if (nn_shape_check(&o.s, err, sizeof err))
		return cli_usage_error("bench learner", "%s", err);
	if (o.inference)
		return bench_inference(&o);
	if (o.wide)
		return bench_learner_wide(&(struct bench_wide_opts){
			&o.s, o.hidden_txt, o.wide, o.legal_from, o.batch,
			o.minibatch,
			o.epochs, o.threads, o.seconds, o.json });
	ppo_opts_default(&po);
	po.epochs = o.epochs;
	po.minibatch = o.minibatch;
	po.threads = (int)o.threads;
	if (ppo_new(&p, NULL, &o.s, &po, 1, err, sizeof err)) {
		fprintf(stderr, "league bench learner: %s\n", err);
		goto out;
	}
	if (bench_synth_rows(&b, ppo_net(p), (size_t)o.batch, 32)) {
		fprintf(stderr, "league bench learner: out of memory\n");
		goto out;
	}
	/* reference first, then the learner */
	if (nn_sgemm_peak(LG_MIN(1.5, o.seconds), (int)o.threads, &peak)) {
		fprintf(stderr, "league bench learner: out of memory\n");
		goto out;
	}
	if (ppo_update(p, &b, &st)) /* warm-up */
		goto out;
	t0 = lg_now_s();
	do {
		if (ppo_update(p, &b, &st))
			goto out;
		updates++;
		dt = lg_now_s() - t0;
	} while (dt < o.seconds || updates < 2);
	/* and again after: a neighbour's burst during one probe would make
	 * the peak look low and the ratio flattering; keep the higher */
	{
		double again = 0;
		if (nn_sgemm_peak(LG_MIN(1.5, o.seconds), (int)o.threads,
				  &again))
			goto out;
		peak = LG_MAX(peak, again);
	}
	sps = (double)o.batch * updates / dt;
	gflops = nn_train_flops_per_row(&o.s) * (double)o.epochs * sps / 1e9;
	if (o.json) {
		printf("{\"bench\":\"learner\",\"model\":\"%s\",\"obs\":%u,"
		       "\"hidden\":\"%s\",\"gru\":%u,\"actions\":%u,"
		       "\"act\":\"%s\",\"batch\":%llu,"
		       "\"minibatch\":%llu,\"epochs\":%llu,\"threads\":%llu,"
		       "\"updates\":%llu,\"update_s\":%.6f,"
		       "\"samples_per_s\":%.1f,\"gflops\":%.3f,"
		       "\"sgemm_peak_gflops\":%.3f,\"peak_ratio\":%.4f,"
		       "\"loss\":%.6f}\n",
		       o.model, o.s.obs, o.hidden_txt, o.s.gru, o.s.actions,
		       o.s.act == NN_RELU ? "relu" : "tanh", o.batch,
		       o.minibatch, o.epochs, o.threads,
		       (unsigned long long)updates, dt / updates, sps, gflops,
		       peak, gflops / peak, st.loss);
	} else {
		printf("learner: %s%s, obs %u hidden %s gru %u actions %u %s, "
		       "batch %llu minibatch %llu epochs %llu, %llu BLAS "
		       "thread(s)\n", o.model,
		       o.s.nconv ? " (3x6x7 planes, conv 64,64 k3)" : "",
		       o.s.obs, o.hidden_txt, o.s.gru, o.s.actions,
		       o.s.act == NN_RELU ? "relu" : "tanh", o.batch,
		       o.minibatch, o.epochs, o.threads);
		printf("%14s %10s %10s %12s %10s\n", "samples/s", "update_s",
		       "GFLOP/s", "sgemm peak", "vs peak");
		printf("%14.0f %10.4f %10.2f %12.2f %10.4f\n", sps,
		       dt / updates, gflops, peak, gflops / peak);
	}
	fflush(stdout);
	ret = CLI_OK;
out:
	lg_rows_free(&b);
	ppo_free(p);
	return ret;
}
