/*
 * eval/search.c: `league eval search`'s core (eval/search.h): the
 * player's stored versions listed, each one's network (or the mean of
 * the K in a row ending at it) played against the baseline as the raw
 * policy and as PUCT search, each agent's games a row.
 *
 * Games alternate seats; the baseline's ties are broken by a generator
 * seeded from the run's seed, the game's chance by the game's seeds.
 * Each row counts its lines, the distinct games (move sequences) each
 * seat played: sampled openings repeat, and a greedy agent replays a
 * line.
 */
#include "eval/search.h"
#include "eval/evalrec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int eval_policy_act(const nn *net, nn_ws *ws, const env *e, int player,
		    int sample, lg_rng *rng, int *action)
{
	const struct env_spec *sp = env_spec_of(e);
	size_t A = (size_t)sp->num_actions;
	float obs[4096], *pr, v;
	uint8_t *mask;
	int rc, best = -1;

	if (sp->obs_len > LG_ARRAY_LEN(obs))
		return LG_ERANGE;
	/* a game may have up to ENV_GAME_ACTIONS_MAX actions (othello's 65
	 * a network plays through a gathered head) */
	pr = malloc(A * sizeof *pr);
	mask = malloc(A);
	if (!pr || !mask) {
		rc = LG_ENOMEM;
		goto out;
	}
	if ((rc = env_observe(e, player, obs)))
		goto out;
	if ((rc = env_legal(e, player, mask)) < 1) {
		rc = rc < 0 ? rc : LG_EINVAL;
		goto out;
	}
	if ((rc = nn_probs(net, ws, obs, mask, 1, pr, &v)))
		goto out;
	if (sample) {
		float u = lg_rng_float(rng), acc = 0;
		for (size_t a = 0; a < A; a++) {
			if (!mask[a])
				continue;
			best = (int)a;
			acc += pr[a];
			if (u < acc)
				break;
		}
	} else {
		for (size_t a = 0; a < A; a++)
			if (mask[a] && (best < 0 || pr[a] > pr[best]))
				best = (int)a;
	}
	*action = best;
	rc = best < 0 ? LG_EINVAL : 0;
out:
	free(pr);
	free(mask);
	return rc;
}

struct tally {
	uint64_t games[2], wins[2], draws[2], losses[2];
	uint64_t lines[2]; /* distinct games (move sequences) per seat */
};

/* games per seat of the agent (mcts if m, else the policy) against b. */
static int play(env *e, env_baseline *b, env_mcts *m, struct agent_net *an,
		const struct eval_search_opts *a, struct tally *t)
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
				rc = eval_policy_act(an->net, an->ws, e, p,
						     sample, &r, &act);
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

/* One row: version's games as agent (t), with its time and env steps
 * from the league's own row of it (when; NULL: '-'), as JSON or a table
 * line (its header first, *header then set). */
static void print_row(const struct eval_search_opts *a,
		      const struct league_bgame_row *when, uint32_t version, const char *agent,
		      const struct tally *t, int *header)
{
	FILE *f = a->out;
	uint64_t g = t->games[0] + t->games[1];
	double win = g ? (double)(t->wins[0] + t->wins[1]) / (double)g : 0;
	double loss = g ? (double)(t->losses[0] + t->losses[1]) / (double)g : 0;

	if (a->json) {
		fprintf(f, "{\"player\":%llu,\"version\":%u,", a->player, version);
		if (when)
			fprintf(f, "\"seconds\":%.1f,\"env_steps\":%llu,",
			           when->seconds,
			           (unsigned long long)when->env_steps);
		fprintf(f, "\"agent\":\"%s\",\"against\":\"%s\",\"games\":%llu,"
		           "\"win\":%.4f,\"loss\":%.4f", agent, a->against,
		           (unsigned long long)g, win, loss);
		for (int s = 0; s < 2; s++)
			fprintf(f, ",\"seat%d\":[%llu,%llu,%llu]", s,
			           (unsigned long long)t->wins[s],
			           (unsigned long long)t->draws[s],
			           (unsigned long long)t->losses[s]);
		fprintf(f, ",\"lines\":[%llu,%llu]",
		           (unsigned long long)t->lines[0],
		           (unsigned long long)t->lines[1]);
		fprintf(f, "}\n");
		fflush(a->out);
		return;
	}
	if (!*header) {
		fprintf(f, "%9s %12s %7s %-15s %-12s %6s %6s %6s %14s %14s %11s\n",
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
	fprintf(f, "%9s %12s %7u %-15s %-12s %6llu %6.3f %6.3f %14s %14s %11s\n",
	           sec, steps, version, agent, a->against, (unsigned long long)g,
	           win, loss, s0, s1, ln);
	fflush(a->out);
}

struct vlist {
	uint32_t player, n;
	uint32_t v[EVAL_SEARCH_VERSIONS_MAX];
};

/* STORE_DB_PARAMS' keys (be32 player, be32 version) of l->player. */
static int version_cb(const void *key, size_t klen, const void *val,
		      size_t vlen, void *arg)
{
	struct vlist *l = arg;

	(void)val;
	(void)vlen;
	if (klen == 8 && lg_get_be32(key) == l->player) {
		if (l->n == EVAL_SEARCH_VERSIONS_MAX)
			return LG_EFULL;
		l->v[l->n++] = lg_get_be32((const uint8_t *)key + 4);
	}
	return 0;
}

/* The network a row plays: version vl->v[i], or with --average K the
 * mean of the parameters of versions v-K+1 .. v (a->params),
 * LG_ENOTFOUND when they are not all stored (the store keeps the newest
 * few versions in a row, and the snapshots' apart); checked to fit the
 * game and to be feed-forward. */
static int load_net(store_txn *t, const struct eval_search_opts *a,
		    const env *e, const char *game, uint32_t i, const struct vlist *vl,
		    nn **out, char *err, size_t errlen)
{
	uint32_t ver = vl->v[i], k = a->average > 1 ? (uint32_t)a->average : 1;
	int rc;

	if (k > i + 1 || ver < k - 1 || vl->v[i + 1 - k] != ver - (k - 1))
		return LG_ENOTFOUND; /* v is ascending: k-1 before it, in a row */
	if ((rc = a->params(t, (uint32_t)a->player, ver, k, out, err,
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

/* What a run reads from the store, in one read transaction. */
struct stored {
	store *st;
	store_txn *t;
	struct league_bgame_row *rows; /* the league's baseline rows */
	size_t nrows;
	struct vlist *vl;
};

static void stored_close(struct stored *s)
{
	if (s->t)
		store_txn_abort(s->t);
	store_close(s->st);
	free(s->rows);
	free(s->vl);
}

/* o->dir opened read-only, the player's versions and the league's
 * baseline rows read; s closed by stored_close whatever this returns. */
static int stored_open(const struct eval_search_opts *o, struct stored *s,
		       int *usage, char *err, size_t errlen)
{
	struct store_opts so = { .flags = STORE_RDONLY };
	int rc;

	if (!(s->vl = calloc(1, sizeof *s->vl))) {
		lg_errf(err, errlen, "%s", lg_strerror(LG_ENOMEM));
		return LG_ENOMEM;
	}
	s->vl->player = (uint32_t)o->player;
	if ((rc = store_open(&s->st, o->dir, &so, err, errlen))) {
		*usage = rc == LG_ENOTFOUND;
		return rc;
	}
	if ((rc = store_txn_begin(s->st, STORE_TXN_READ, &s->t)) ||
	    (rc = store_iter(s->t, STORE_DB_PARAMS, NULL, 0, version_cb,
			     s->vl)) ||
	    (rc = league_bgame_list(s->t, &s->rows, &s->nrows))) {
		lg_errf(err, errlen, "%s: reading the store: %s", o->dir,
			lg_strerror(rc));
		return rc;
	}
	if (!s->vl->n) {
		lg_errf(err, errlen, "%s holds no parameters of player %llu",
			o->dir, o->player);
		return LG_ENOTFOUND;
	}
	return 0;
}

/* The two rows' agent labels: [avgK:]policy[~|~K] and
 * [avgK:]mcts[~|~K]:N[/B] (~ sampled moves, ~K the first K of each
 * game). */
static void row_labels(const struct eval_search_opts *o, char *policy,
		       char *mcts, size_t len)
{
	char mark[24] = "", avg[32] = "";

	if (o->sample)
		snprintf(mark, sizeof mark, "~");
	else if (o->sample_moves)
		snprintf(mark, sizeof mark, "~%llu", o->sample_moves);
	if (o->average > 1)
		snprintf(avg, sizeof avg, "avg%llu:", o->average);
	snprintf(policy, len, "%spolicy%s", avg, mark);
	if (o->batch > 1)
		snprintf(mcts, len, "%smcts%s:%llu/%llu", avg, mark, o->sims,
			 o->batch);
	else
		snprintf(mcts, len, "%smcts%s:%llu", avg, mark, o->sims);
}

/* Version s->vl->v[i] played as the policy and as the search, its two
 * rows printed. LG_ENOTFOUND with nothing printed: fewer than
 * o->average versions in a row end at it. */
static int play_version(const struct eval_search_opts *o, env *e,
			env_baseline *b, const char *game,
			const struct stored *s, uint32_t i, int *header,
			int *usage, char *err, size_t errlen)
{
	uint32_t ver = s->vl->v[i];
	struct agent_net an = { 0 };
	env_mcts *m = NULL;
	struct env_mcts_opts mo = { .sims = (uint32_t)o->sims,
				    .c_puct = o->c_puct,
				    .batch = (uint32_t)o->batch };
	struct tally tp, tm;
	char msg[512] = "", lp[128], lm[128];
	const struct league_bgame_row *when = NULL;
	int rc, search_rc = 0;

	for (size_t r = 0; r < s->nrows; r++)
		if (s->rows[r].player == o->player &&
		    s->rows[r].version == ver)
			when = &s->rows[r];
	rc = load_net(s->t, o, e, game, i, s->vl, &an.net, msg, sizeof msg);
	if (rc == LG_ENOTFOUND)
		return rc; /* fewer than --average versions before it */
	if (rc) {
		lg_errf(err, errlen, "player %llu version %u: %s", o->player,
			ver, msg);
		return rc;
	}
	msg[0] = 0;
	if (!(rc = nn_ws_new(&an.ws, an.net, (size_t)o->batch)))
		rc = search_rc = env_mcts_new(&m, e, &mo, net_eval, &an, msg,
					      sizeof msg);
	if (!rc)
		rc = play(e, b, NULL, &an, o, &tp);
	if (!rc)
		rc = play(e, b, m, &an, o, &tm);
	env_mcts_free(m);
	nn_ws_free(an.ws);
	nn_free(an.net);
	if (rc) {
		/* msg holds a message only when the search refused the
		 * game; a search that failed says its code */
		lg_errf(err, errlen, "version %u: %s", ver,
			search_rc && msg[0] ? msg : lg_strerror(rc));
		*usage = search_rc == LG_EUNSUPP;
		return rc;
	}
	row_labels(o, lp, lm, sizeof lp);
	print_row(o, when, ver, lp, &tp, header);
	print_row(o, when, ver, lm, &tm, header);
	return 0;
}

int eval_search_run(const struct eval_search_opts *o, env *e,
		    env_baseline *b, const char *game, uint32_t *played,
		    int *usage, char *err, size_t errlen)
{
	struct stored s = { 0 };
	int rc, header = 0;

	*played = 0;
	*usage = 0;
	if ((rc = stored_open(o, &s, usage, err, errlen)))
		goto out;
	nn_set_threads(1);
	uint32_t n = s.vl->n;
	uint32_t from = o->last && o->last < n ? n - (uint32_t)o->last : 0;
	for (uint32_t i = from; i < n; i++) {
		rc = play_version(o, e, b, game, &s, i, &header, usage, err,
				  errlen);
		if (rc == LG_ENOTFOUND)
			continue;
		if (rc)
			goto out;
		++*played;
	}
	rc = 0;
out:
	stored_close(&s);
	return rc;
}
