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
#include "envs/env.h"
#include "conf/config.h"
#include "league/daemon.h"
#include "eval/evalrec.h"
#include "storage/storage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEARCH_VERSIONS_MAX 4096

struct sargs {
	const char *config, *dir, *against;
	unsigned long long sims, batch, games, player, last, seed,
		sample_moves, average;
	double c_puct;
	int sample, json;
};

struct agent_net {
	nn *net;
	nn_ws *ws;
};

/* The network as the search's evaluator: its policy as the prior, its
 * value head (the mover's expected return) as the value. */
static int net_eval(void *ctx, size_t n, const float *obs,
		    const uint8_t *mask, const void *const *states,
		    float *prior, float *value)
{
	struct agent_net *an = ctx;

	(void)states;
	return nn_probs(an->net, an->ws, obs, mask, n, prior, value);
}

/* The raw policy's move: its most probable legal action (the first of
 * equals), or a sample. */
int cli_policy_act(const nn *net, nn_ws *ws, const env *e, int player,
		   int sample, lg_rng *rng, int *action)
{
	const struct env_spec *sp = env_spec_of(e);
	float obs[4096], pr[ENV_MAX_ACTIONS], v;
	uint8_t mask[ENV_MAX_ACTIONS];
	int rc, best = -1;

	if (sp->obs_len > LG_ARRAY_LEN(obs))
		return LG_ERANGE;
	if ((rc = env_observe(e, player, obs)))
		return rc;
	if ((rc = env_legal(e, player, mask)) < 1)
		return rc < 0 ? rc : LG_EINVAL;
	if ((rc = nn_probs(net, ws, obs, mask, 1, pr, &v)))
		return rc;
	if (sample) {
		float u = lg_rng_float(rng), acc = 0;
		for (int a = 0; a < sp->num_actions; a++) {
			if (!mask[a])
				continue;
			best = a;
			acc += pr[a];
			if (u < acc)
				break;
		}
	} else {
		for (int a = 0; a < sp->num_actions; a++)
			if (mask[a] && (best < 0 || pr[a] > pr[best]))
				best = a;
	}
	*action = best;
	return best < 0 ? LG_EINVAL : 0;
}

struct tally {
	uint64_t games[2], wins[2], draws[2], losses[2];
	uint64_t lines[2]; /* distinct games (move sequences) per seat */
};

/* games per seat of the agent (mcts if m, else the policy) against b. */
static int play(env *e, env_baseline *b, env_mcts *m, struct agent_net *an,
		const struct sargs *a, struct tally *t)
{
	uint64_t *hash = calloc(2 * a->games, sizeof *hash);
	lg_rng r;
	int rc = 0;

	memset(t, 0, sizeof *t);
	if (!hash)
		return LG_ENOMEM;
	lg_rng_seed(&r, a->seed);
	for (uint64_t g = 0; g < 2 * a->games; g++) {
		int seat = (int)(g % 2);
		uint64_t moves = 0; /* the agent's, this game */
		/* FNV-1a over the moves: games that differ only in the
		 * game's chance count once, a fair under-count */
		uint64_t h = 0xcbf29ce484222325ull;
		if ((rc = env_reset(e, a->seed + g)))
			goto out;
		while (!env_is_terminal(e)) {
			int p = env_current_player(e), act;
			int sample = a->sample || moves < a->sample_moves;
			if (p != seat)
				rc = env_baseline_act(b, e, p, &r, &act);
			else if (m)
				rc = env_mcts_act(m, e, sample ? &r : NULL,
						  &act, NULL);
			else
				rc = cli_policy_act(an->net, an->ws, e, p, sample,
						    &r, &act);
			moves += p == seat;
			if (rc || (rc = env_step(e, act)))
				goto out;
			h = (h ^ (uint64_t)act) * 0x100000001b3ull;
		}
		hash[(g % 2) * a->games + g / 2] = h;
		double ret[2];
		env_returns(e, ret);
		t->games[seat]++;
		t->wins[seat] += ret[seat] > 0;
		t->draws[seat] += ret[seat] == 0;
		t->losses[seat] += ret[seat] < 0;
	}
	for (int s = 0; s < 2; s++)
		t->lines[s] = lg_distinct_u64(hash + s * a->games, a->games);
out:
	free(hash);
	return rc;
}

static void print_row(const struct sargs *a, const struct league_bgame_row *when,
		      uint32_t version, const char *agent,
		      const struct tally *t, int *header)
{
	uint64_t g = t->games[0] + t->games[1];
	double win = g ? (double)(t->wins[0] + t->wins[1]) / (double)g : 0;
	double loss = g ? (double)(t->losses[0] + t->losses[1]) / (double)g : 0;

	if (a->json) {
		printf("{\"player\":%llu,\"version\":%u,", a->player, version);
		if (when)
			printf("\"seconds\":%.1f,\"env_steps\":%llu,",
			       when->seconds,
			       (unsigned long long)when->env_steps);
		printf("\"agent\":\"%s\",\"against\":\"%s\",\"games\":%llu,"
		       "\"win\":%.4f,\"loss\":%.4f", agent, a->against,
		       (unsigned long long)g, win, loss);
		for (int s = 0; s < 2; s++)
			printf(",\"seat%d\":[%llu,%llu,%llu]", s,
			       (unsigned long long)t->wins[s],
			       (unsigned long long)t->draws[s],
			       (unsigned long long)t->losses[s]);
		printf(",\"lines\":[%llu,%llu]",
		       (unsigned long long)t->lines[0],
		       (unsigned long long)t->lines[1]);
		printf("}\n");
		fflush(stdout);
		return;
	}
	if (!*header) {
		printf("%9s %12s %7s %-15s %-12s %6s %6s %6s %14s %14s %11s\n",
		       "seconds", "env_steps", "version", "agent", "against",
		       "games", "win", "loss", "seat0 W/D/L", "seat1 W/D/L",
		       "lines");
		*header = 1;
	}
	char sec[32] = "-", steps[32] = "-", s0[48], s1[48], ln[48];
	if (when) {
		snprintf(sec, sizeof sec, "%.1f", when->seconds);
		snprintf(steps, sizeof steps, "%llu",
			 (unsigned long long)when->env_steps);
	}
	snprintf(s0, sizeof s0, "%llu/%llu/%llu",
		 (unsigned long long)t->wins[0], (unsigned long long)t->draws[0],
		 (unsigned long long)t->losses[0]);
	snprintf(s1, sizeof s1, "%llu/%llu/%llu",
		 (unsigned long long)t->wins[1], (unsigned long long)t->draws[1],
		 (unsigned long long)t->losses[1]);
	snprintf(ln, sizeof ln, "%llu/%llu", (unsigned long long)t->lines[0],
		 (unsigned long long)t->lines[1]);
	printf("%9s %12s %7u %-15s %-12s %6llu %6.3f %6.3f %14s %14s %11s\n",
	       sec, steps, version, agent, a->against, (unsigned long long)g,
	       win, loss, s0, s1, ln);
	fflush(stdout);
}

struct vlist {
	uint32_t player, n;
	uint32_t v[SEARCH_VERSIONS_MAX];
};

static int version_cb(const void *key, size_t klen, const void *val,
		      size_t vlen, void *arg)
{
	struct vlist *l = arg;

	(void)val;
	(void)vlen;
	if (klen == 8 && lg_get_be32(key) == l->player) {
		if (l->n == SEARCH_VERSIONS_MAX)
			return LG_EFULL;
		l->v[l->n++] = lg_get_be32((const uint8_t *)key + 4);
	}
	return 0;
}

/* The network a row plays: version vl->v[i], or with --average K the
 * mean of the parameters of versions v-K+1 .. v (cli_params_mean),
 * LG_ENOTFOUND when they are not all stored (the store keeps the newest
 * few versions in a row, and the snapshots' apart); checked to fit the
 * game and to be feed-forward. */
static int load_net(store_txn *t, const struct sargs *a, const env *e,
		    const char *game, uint32_t i, const struct vlist *vl,
		    nn **out, char *err, size_t errlen)
{
	uint32_t ver = vl->v[i], k = a->average > 1 ? (uint32_t)a->average : 1;
	int rc;

	if (k > i + 1 || ver < k - 1 || vl->v[i + 1 - k] != ver - (k - 1))
		return LG_ENOTFOUND; /* v is ascending: k-1 before it, in a row */
	if ((rc = cli_params_mean(t, (uint32_t)a->player, ver, k, out, err,
				  errlen)))
		return rc == LG_ENOTFOUND ? LG_EINVAL : rc;
	if (nn_shape_of(*out)->obs != env_spec_of(e)->obs_len ||
	    nn_shape_of(*out)->actions != (uint32_t)env_spec_of(e)->num_actions) {
		snprintf(err, errlen, "its network does not fit %s (another "
			 "league's directory?)", game);
		rc = LG_EINVAL;
	} else if (nn_state_len(*out)) {
		/* the search asks the net at states of its own making, with
		 * no history for a core to carry */
		snprintf(err, errlen, "its network has a recurrent core, "
			 "which search does not support (a feed-forward net "
			 "only)");
		rc = LG_EUNSUPP;
	}
	if (rc) {
		nn_free(*out);
		*out = NULL;
	}
	return rc;
}

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

	a->sims = 100;
	a->batch = 1;
	a->games = 50;
	a->last = 0;
	a->seed = 1;
	a->c_puct = 1.5;
	while ((ch = cli_getopt(argc, argv, cmd, "", opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'd': a->dir = optarg; break;
		case 'a': a->against = optarg; break;
		case 's':
			if (cli_opt_u64(cmd, "--sims", optarg, 1,
					ENV_MCTS_SIMS_MAX, &a->sims))
				return CLI_USAGE;
			break;
		case 'b':
			if (cli_opt_u64(cmd, "--batch", optarg, 1,
					ENV_MCTS_BATCH_MAX, &a->batch))
				return CLI_USAGE;
			break;
		case 'g':
			if (cli_opt_u64(cmd, "--games", optarg, 1, 100000,
					&a->games))
				return CLI_USAGE;
			break;
		case 'p':
			if (cli_opt_u64(cmd, "--player", optarg, 0,
					UINT32_MAX, &a->player))
				return CLI_USAGE;
			break;
		case 'l':
			if (cli_opt_u64(cmd, "--last", optarg, 1,
					SEARCH_VERSIONS_MAX, &a->last))
				return CLI_USAGE;
			break;
		case 'S':
			if (cli_opt_u64(cmd, "--seed", optarg, 0,
					UINT64_MAX / 2, &a->seed))
				return CLI_USAGE;
			break;
		case 'c':
			if (cli_opt_double(cmd, "--c-puct", optarg, 0.01, 100,
					   &a->c_puct))
				return CLI_USAGE;
			break;
		case 'x': a->sample = 1; break;
		case 'k':
			if (cli_opt_u64(cmd, "--sample-moves", optarg, 1, 1000,
					&a->sample_moves))
				return CLI_USAGE;
			break;
		case 'A':
			if (cli_opt_u64(cmd, "--average", optarg, 1,
					SEARCH_VERSIONS_MAX, &a->average))
				return CLI_USAGE;
			break;
		case 'j': a->json = 1; break;
		default: return cli_usage_error(cmd, "unexpected option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error(cmd, "expected one league CONFIG file");
	a->config = argv[optind];
	if (!a->against)
		return cli_usage_error(cmd, "--against: the baseline to play, "
				       "e.g. alphabeta:2 or minimax");
	if (a->sample && a->sample_moves)
		return cli_usage_error(cmd, "--sample samples every move: "
				       "give it or --sample-moves, not both");
	return 0;
}

int cli_eval_search(int argc, char **argv)
{
	struct sargs a = { 0 };
	struct store_opts so = { .flags = STORE_RDONLY };
	struct league_bgame_row *rows = NULL;
	struct vlist *vl = NULL;
	struct cfg c;
	struct env_opts eo;
	env *e = NULL;
	env_baseline *b = NULL;
	store *st = NULL;
	store_txn *t = NULL;
	size_t nrows = 0;
	char err[512] = "";
	int rc, header = 0;
	uint32_t played = 0;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	if (cfg_load_file(&c, a.config, err, sizeof err)) {
		fprintf(stderr, "league eval search: %s\n", err);
		return CLI_USAGE;
	}
	if (!a.dir)
		a.dir = c.league.dir;
	league_env_opts(&c, &eo);
	if ((rc = env_new(&e, c.env.name, &eo, err, sizeof err))) {
		fprintf(stderr, "league eval search: %s\n", err);
		return CLI_USAGE;
	}
	if ((rc = env_baseline_new(&b, a.against, e, err, sizeof err))) {
		rc = cli_usage_error("eval search", "--against: %s", err);
		goto out;
	}
	vl = calloc(1, sizeof *vl);
	if (!vl) {
		rc = CLI_FAIL;
		goto out;
	}
	vl->player = (uint32_t)a.player;
	if ((rc = store_open(&st, a.dir, &so, err, sizeof err))) {
		fprintf(stderr, "league eval search: %s\n", err);
		rc = rc == LG_ENOTFOUND ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	if ((rc = store_txn_begin(st, STORE_TXN_READ, &t)) ||
	    (rc = store_iter(t, STORE_DB_PARAMS, NULL, 0, version_cb, vl)) ||
	    (rc = league_bgame_list(t, &rows, &nrows))) {
		fprintf(stderr, "league eval search: %s: reading the store: "
			"%s\n", a.dir, lg_strerror(rc));
		rc = CLI_FAIL;
		goto out;
	}
	if (!vl->n) {
		fprintf(stderr, "league eval search: %s holds no parameters "
			"of player %llu\n", a.dir, a.player);
		rc = CLI_FAIL;
		goto out;
	}
	nn_set_threads(1);
	uint32_t from = a.last && a.last < vl->n ? vl->n - (uint32_t)a.last : 0;
	for (uint32_t i = from; i < vl->n; i++) {
		uint32_t ver = vl->v[i];
		struct agent_net an = { 0 };
		env_mcts *m = NULL;
		struct env_mcts_opts mo = { .sims = (uint32_t)a.sims,
					    .c_puct = a.c_puct,
					    .batch = (uint32_t)a.batch };
		struct tally tp, tm;
		char label[128];
		const struct league_bgame_row *when = NULL;

		for (size_t r = 0; r < nrows; r++)
			if (rows[r].player == a.player &&
			    rows[r].version == ver)
				when = &rows[r];
		rc = load_net(t, &a, e, c.env.name, i, vl, &an.net, err,
			      sizeof err);
		if (rc == LG_ENOTFOUND)
			continue; /* fewer than --average versions before it */
		if (rc) {
			fprintf(stderr, "league eval search: player %llu "
				"version %u: %s\n", a.player, ver, err);
			rc = CLI_FAIL;
			goto out;
		}
		played++;
		int search_rc = 0;
		err[0] = 0;
		if (!(rc = nn_ws_new(&an.ws, an.net, (size_t)a.batch)))
			rc = search_rc = env_mcts_new(&m, e, &mo, net_eval, &an,
						      err, sizeof err);
		if (!rc)
			rc = play(e, b, NULL, &an, &a, &tp);
		if (!rc)
			rc = play(e, b, m, &an, &a, &tm);
		env_mcts_free(m);
		nn_ws_free(an.ws);
		nn_free(an.net);
		if (rc) {
			/* err holds a message only when the search refused
			 * the game; a search that failed says its code */
			fprintf(stderr, "league eval search: version %u: %s\n",
				ver, search_rc && err[0] ? err
							 : lg_strerror(rc));
			rc = search_rc == LG_EUNSUPP ? CLI_USAGE : CLI_FAIL;
			goto out;
		}
		/* ~ sampled moves, ~K the first K of each game */
		char mark[24] = "";
		if (a.sample)
			snprintf(mark, sizeof mark, "~");
		else if (a.sample_moves)
			snprintf(mark, sizeof mark, "~%llu", a.sample_moves);
		char avg[32] = "";
		if (a.average > 1)
			snprintf(avg, sizeof avg, "avg%llu:", a.average);
		snprintf(label, sizeof label, "%spolicy%s", avg, mark);
		print_row(&a, when, ver, label, &tp, &header);
		if (a.batch > 1)
			snprintf(label, sizeof label, "%smcts%s:%llu/%llu", avg,
				 mark, a.sims, a.batch);
		else
			snprintf(label, sizeof label, "%smcts%s:%llu", avg,
				 mark, a.sims);
		print_row(&a, when, ver, label, &tm, &header);
	}
	if (!played) {
		fprintf(stderr, "league eval search: --average %llu: %s holds "
			"no %llu versions of player %llu in a row among the "
			"chosen ones (a league keeps its newest %d)\n",
			a.average, a.dir, a.average, a.player,
			DAEMON_KEEP_VERSIONS + 1);
		rc = CLI_USAGE;
		goto out;
	}
	rc = CLI_OK;
out:
	if (t)
		store_txn_abort(t);
	store_close(st);
	free(rows);
	free(vl);
	env_baseline_free(b);
	env_free(e);
	return rc;
}
