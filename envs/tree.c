/*
 * envs/tree.c: exact evaluation of games with small trees, 1 to
 * ENV_MAX_PLAYERS seats (cross values: two seats only).
 *
 * The tree is built once by enumerating every chance outcome and action
 * from the game's pure state functions. Nodes live in one array; the
 * children of a node are contiguous and come after it. Decision nodes
 * point at their information state (infoset): its key, player, legal mask
 * and observation (so network policies can be asked once per infoset).
 *
 * Evaluating a policy asks it once per infoset, then:
 *   value(profile)     one traversal;
 *   best response of i memoised recursion: at i's infosets pick the action
 *                      maximising sum over the infoset's histories of
 *                      (chance x opponent reach) x value below, values below
 *                      using the best response already fixed deeper down;
 *   NashConv           sum_i br_value_i - value_i (OpenSpiel's definition),
 *                      exploitability = NashConv / players.
 * CFR+ and magnetic mirror descent run on the same arrays (solvers.c).
 */
#include "envs/tree_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int node_reserve(env_tree *t, size_t n)
{
	if (t->nn + n > TREE_NODES_MAX)
		return LG_EFULL;
	if (t->nn + n > t->ncap) {
		size_t cap = t->ncap ? t->ncap : 1024;
		while (cap < t->nn + n)
			cap *= 2;
		struct tnode *p = realloc(t->nodes, cap * sizeof *p);
		if (!p)
			return LG_ENOMEM;
		t->nodes = p;
		t->ncap = cap;
	}
	return 0;
}

/* Each seat's latest infoset on the way to a node (-1: none) and the
 * action it took there. */
struct tree_past {
	int32_t info[ENV_MAX_PLAYERS];
	int act[ENV_MAX_PLAYERS];
};

/* The infoset of st for player, made on first sight; past holds the
 * player's infoset before it on this path and its action there. Perfect
 * recall needs both to be the same on every history of the infoset
 * (a seat that forgets its own move fails on the action alone); when
 * either differs the infoset's prev becomes TREE_NO_RECALL. */
static int info_of(env_tree *t, const void *st, int player,
		   const struct tree_past *past, int32_t *out)
{
	int32_t prev = past->info[player];
	int prev_act = past->act[player];
	char key[ENV_KEY_MAX];
	int idx;

	t->gm.g->infostate(t->gm.inst, st, player, key, sizeof key);
	idx = env_strmap_get(&t->map, key);
	if (idx < 0) {
		struct tinfo *ti;
		int rc;
		if (t->ni == t->icap) {
			size_t cap = t->icap ? t->icap * 2 : 64;
			struct tinfo *p = realloc(t->info, cap * sizeof *p);
			if (!p)
				return LG_ENOMEM;
			t->info = p;
			t->icap = cap;
		}
		ti = &t->info[t->ni];
		memset(ti, 0, sizeof *ti);
		ti->player = player;
		ti->prev = prev;
		ti->prev_act = prev_act;
		ti->depth = prev >= 0 ? t->info[prev].depth + 1 : 1;
		ti->key = strdup(key);
		ti->obs = calloc(t->spec.obs_len, sizeof *ti->obs);
		if (!ti->key || !ti->obs) {
			free(ti->key);
			free(ti->obs);
			return LG_ENOMEM;
		}
		ti->nlegal = t->gm.g->legal(t->gm.inst, st, player, ti->mask);
		t->gm.g->observe(t->gm.inst, st, player, ti->obs);
		idx = (int)t->ni++;
		rc = env_strmap_put(&t->map, key, idx);
		if (rc)
			return rc;
	} else if (t->info[idx].prev != prev ||
		   t->info[idx].prev_act != prev_act) {
		t->info[idx].prev = TREE_NO_RECALL;
	}
	*out = idx;
	return 0;
}

/* Node `at` a terminal: its returns into a new row of t->ret. */
static int terminal(env_tree *t, size_t at, const void *st)
{
	double out[ENV_MAX_PLAYERS];

	if (t->nt == t->tcap) {
		size_t cap = t->tcap ? t->tcap * 2 : 1024;
		double *p = realloc(t->ret, cap * (size_t)t->np * sizeof *p);
		if (!p)
			return LG_ENOMEM;
		t->ret = p;
		t->tcap = cap;
	}
	t->gm.g->returns(t->gm.inst, st, out);
	memcpy(t->ret + t->nt * (size_t)t->np, out,
	       (size_t)t->np * sizeof *out);
	t->nodes[at].kind = T_TERMINAL;
	t->nodes[at].n = 0;
	t->nodes[at].info = (int32_t)t->nt++;
	return 0;
}

/* Fill node `at` (its action and p already set) from state st; last
 * holds each player's latest infoset on the way here and its action. */
static int build(env_tree *t, size_t at, const void *st,
		 const struct tree_past *last)
{
	struct tree_past below;
	unsigned char *child;
	int acts[ENV_MAX_ACTIONS > ENV_CHANCE_MAX ? ENV_MAX_ACTIONS
						  : ENV_CHANCE_MAX];
	double probs[ENV_MAX_ACTIONS > ENV_CHANCE_MAX ? ENV_MAX_ACTIONS
						   : ENV_CHANCE_MAX];
	int pl = t->gm.g->player(t->gm.inst, st), n = 0, rc;
	size_t first;

	if (pl == ENV_TERMINAL)
		return terminal(t, at, st);
	if (pl == ENV_CHANCE) {
		t->nodes[at].kind = T_CHANCE;
		n = t->gm.g->chance(t->gm.inst, st, acts, probs);
	} else {
		int32_t info;
		if (pl < 0 || pl >= t->np)
			return LG_EINVAL; /* a seat the game does not have */
		rc = info_of(t, st, pl, last, &info);
		if (rc)
			return rc;
		t->nodes[at].kind = T_DECISION;
		t->nodes[at].player = (int8_t)pl;
		t->nodes[at].info = info;
		uint8_t mask[ENV_MAX_ACTIONS] = { 0 };
		t->gm.g->legal(t->gm.inst, st, pl, mask);
		for (int a = 0; a < tree_seat_actions(t, pl); a++)
			if (mask[a]) {
				acts[n] = a;
				probs[n++] = 1;
			}
	}
	rc = node_reserve(t, (size_t)n);
	if (rc)
		return rc;
	child = malloc(t->gm.state_size);
	if (!child)
		return LG_ENOMEM;
	below = *last;
	if (pl >= 0)
		below.info[pl] = t->nodes[at].info;
	first = t->nn;
	t->nn += (size_t)n;
	t->nodes[at].first = (int32_t)first;
	t->nodes[at].n = n;
	for (int i = 0; i < n; i++) {
		struct tnode *c = &t->nodes[first + (size_t)i];
		memset(c, 0, sizeof *c);
		c->action = (int8_t)acts[i];
		c->p = probs[i];
		memcpy(child, st, t->gm.state_size);
		t->gm.g->apply(t->gm.inst, child, acts[i], NULL);
		if (pl >= 0)
			below.act[pl] = acts[i];
		rc = build(t, first + (size_t)i, child, &below);
		if (rc)
			break;
	}
	free(child);
	return rc;
}

static int group_infosets(env_tree *t)
{
	int32_t *fill;

	t->inodes = calloc(t->nn ? t->nn : 1, sizeof *t->inodes);
	fill = calloc(t->ni ? t->ni : 1, sizeof *fill);
	if (!t->inodes || !fill) {
		free(fill);
		return LG_ENOMEM;
	}
	for (size_t i = 0; i < t->nn; i++)
		if (t->nodes[i].kind == T_DECISION)
			t->info[t->nodes[i].info].nodes_n++;
	for (size_t i = 0, at = 0; i < t->ni; i++) {
		t->info[i].nodes_first = (int32_t)at;
		at += (size_t)t->info[i].nodes_n;
	}
	for (size_t i = 0; i < t->nn; i++)
		if (t->nodes[i].kind == T_DECISION) {
			struct tinfo *ti = &t->info[t->nodes[i].info];
			t->inodes[ti->nodes_first + fill[t->nodes[i].info]++] =
				(int32_t)i;
		}
	free(fill);
	return 0;
}

static void no_tree(const char *name, char *err, size_t errlen)
{
	lg_errf(err, errlen, "%s: no exact evaluation for this game (it has "
		"no infostate() hook; kuhn, leduc, liars_dice, rps and matrix "
		"have one)", name);
}

/* Build t's tree from its open game t->gm (t->spec set); on failure err
 * says why and t is the caller's to free. */
static int tree_build(env_tree *t, char *err, size_t errlen)
{
	const struct env_spec *es = &t->spec;
	unsigned char *st;
	int rc;

	if (!t->gm.g || !(es->flags & ENV_F_TREE) || !t->gm.g->infostate) {
		no_tree(es->name, err, errlen);
		return LG_EUNSUPP;
	}
	if (es->players < 1 || es->players > ENV_MAX_PLAYERS ||
	    es->num_actions < 1 || es->num_actions > ENV_MAX_ACTIONS) {
		lg_errf(err, errlen, "%s: no exact evaluation for this game: "
			"it has %d players and up to %d actions a seat; the "
			"tree takes 1..%d players and at most %d actions",
			es->name, es->players, es->num_actions,
			ENV_MAX_PLAYERS, ENV_MAX_ACTIONS);
		return LG_EUNSUPP;
	}
	t->A = es->num_actions;
	t->np = es->players;
	if (!(st = malloc(t->gm.state_size))) {
		rc = LG_ENOMEM;
		goto fail;
	}
	rc = node_reserve(t, 1);
	if (rc)
		goto fail;
	memset(&t->nodes[0], 0, sizeof t->nodes[0]);
	t->nodes[0].p = 1;
	t->nn = 1;
	t->gm.g->root(t->gm.inst, st, NULL);
	{
		struct tree_past none;
		for (int i = 0; i < ENV_MAX_PLAYERS; i++)
			none.info[i] = none.act[i] = -1;
		rc = build(t, 0, st, &none);
	}
	if (!rc)
		rc = group_infosets(t);
fail:
	if (rc)
		lg_errf(err, errlen, "%s: building the game tree: %s%s",
			es->name, lg_strerror(rc),
			rc == LG_EFULL ? " (more than 2^24 nodes)" : "");
	free(st);
	return rc;
}

int env_tree_of_game(env_tree **out, const struct league_game *g,
		     void *inst, const struct env_spec *spec,
		     size_t state_size, char *err, size_t errlen)
{
	env_tree *t = calloc(1, sizeof *t);
	int rc;

	*out = NULL;
	if (!t) {
		lg_errf(err, errlen, "%s: out of memory", spec->name);
		return LG_ENOMEM;
	}
	t->gm.g = g;
	t->gm.inst = inst;
	t->gm.spec = *spec;
	t->gm.state_size = state_size;
	t->spec = *spec;
	if ((rc = tree_build(t, err, errlen))) {
		env_tree_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int env_tree_new(env_tree **out, const env *e, char *err, size_t errlen)
{
	env_tree *t;
	int rc;

	*out = NULL;
	if (!e->gm.g || !(e->gm.spec.flags & ENV_F_TREE) ||
	    !e->gm.g->infostate) {
		no_tree(e->gm.spec.name, err, errlen);
		return LG_EUNSUPP;
	}
	if (!(t = calloc(1, sizeof *t))) {
		lg_errf(err, errlen, "%s: out of memory", e->gm.spec.name);
		return LG_ENOMEM;
	}
	/* its own instance, opened in place (an open game may point into
	 * itself, so it is never copied) */
	if ((rc = env_game_open(&t->gm, e->gm.g->name, &e->o, err,
				errlen))) {
		free(t);
		return rc;
	}
	t->spec = t->gm.spec;
	if ((rc = tree_build(t, err, errlen))) {
		env_tree_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void env_tree_free(env_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ni; i++) {
		free(t->info[i].key);
		free(t->info[i].obs);
	}
	free(t->info);
	free(t->nodes);
	free(t->inodes);
	free(t->ret);
	env_strmap_free(&t->map);
	env_game_close(&t->gm);
	free(t);
}

size_t env_tree_nodes(const env_tree *t)
{
	return t->nn;
}

size_t env_tree_infostates(const env_tree *t)
{
	return t->ni;
}

/* ---- policies ---------------------------------------------------------- */

static int uniform_fn(void *ctx, int player, const char *key, const float *obs,
		      const uint8_t *mask, int A, double *probs, char *err,
		      size_t errlen)
{
	int n = 0;

	for (int a = 0; a < A; a++)
		n += mask[a] != 0;
	if (!n) {
		lg_errf(err, errlen, "uniform policy: no legal action at '%s'",
			key);
		return LG_EINVAL;
	}
	for (int a = 0; a < A; a++)
		probs[a] = mask[a] ? 1.0 / n : 0;
	return 0;
}

struct env_policy env_policy_uniform(void)
{
	struct env_policy p = { uniform_fn, NULL, NULL };
	return p;
}

/* A policy with memory at infoset i: the player's observations from its
 * first decision to i, gathered along the prev links into seq (room for
 * the deepest infoset's depth of observations). */
static int ask_seq(const env_tree *t, const struct env_policy *pol, size_t i,
		   float *seq, const uint8_t *mask, double *probs, char *err,
		   size_t errlen)
{
	const struct tinfo *ti = &t->info[i];
	size_t O = t->spec.seat[ti->player].obs_len, k = (size_t)ti->depth;
	int32_t j = (int32_t)i;

	while (k-- > 0) {
		if (j < 0 || t->info[j].prev == TREE_NO_RECALL) {
			lg_errf(err, errlen, "infostate '%s': its player's "
				"earlier decisions differ between histories (no "
				"perfect recall), so a policy with memory has "
				"no single input there", ti->key);
			return LG_EUNSUPP;
		}
		memcpy(seq + k * O, t->info[j].obs, O * sizeof *seq);
		j = t->info[j].prev;
	}
	return pol->seq(pol->ctx, ti->player, ti->key, seq,
			(size_t)ti->depth, mask,
			tree_seat_actions(t, ti->player), probs, err, errlen);
}

/* Ask pol at infoset i into table[i * A ..], checked and normalised. */
static int ask_one(const env_tree *t, const struct env_policy *pol, size_t i,
		   float *seq, double *table, char *err, size_t errlen)
{
	const struct tinfo *ti = &t->info[i];
	uint8_t mask[ENV_MAX_ACTIONS] = { 0 };
	double probs[ENV_MAX_ACTIONS] = { 0 };
	double sum = 0;
	int rc, A = tree_seat_actions(t, ti->player);

	memcpy(mask, ti->mask, (size_t)A);
	if (pol->seq)
		rc = ask_seq(t, pol, i, seq, mask, probs, err, errlen);
	else
		rc = pol->fn(pol->ctx, ti->player, ti->key, ti->obs, mask, A,
			     probs, err, errlen);
	if (rc)
		return rc;
	for (int a = A; a < t->A; a++)
		probs[a] = 0; /* beyond the seat's actions: none */
	for (int a = 0; a < A; a++) {
		if (!(probs[a] >= 0) || !isfinite(probs[a]) ||
		    (!mask[a] && probs[a] != 0)) {
			lg_errf(err, errlen, "policy at '%s': bad probability "
				"%g for action %d", ti->key, probs[a], a);
			return LG_EINVAL;
		}
		sum += probs[a];
	}
	if (fabs(sum - 1) > 1e-6) {
		lg_errf(err, errlen, "policy at '%s': probabilities sum to "
			"%.9g, not 1", ti->key, sum);
		return LG_EINVAL;
	}
	for (int a = 0; a < t->A; a++)
		table[i * (size_t)t->A + (size_t)a] = probs[a] / sum;
	return 0;
}

/* Ask pol once per infoset; table[i * A + a]. */
static int ask_policy(const env_tree *t, const struct env_policy *pol,
		      double *table, char *err, size_t errlen)
{
	float *seq = NULL;
	int rc = 0, depth = 1;

	if (pol->seq) {
		for (size_t i = 0; i < t->ni; i++)
			depth = LG_MAX(depth, t->info[i].depth);
		seq = malloc((size_t)depth * t->spec.obs_len * sizeof *seq);
		if (!seq)
			return LG_ENOMEM;
	}
	for (size_t i = 0; i < t->ni && !rc; i++)
		rc = ask_one(t, pol, i, seq, table, err, errlen);
	free(seq);
	return rc;
}

void tree_profile_value(const env_tree *t, const double *pi, size_t n,
			  double *v)
{
	const struct tnode *x = &t->nodes[n];

	if (tnode_start_value(t, x, v))
		return;
	for (int i = 0; i < x->n; i++) {
		const struct tnode *c = &t->nodes[x->first + i];
		double w = x->kind == T_CHANCE
				   ? c->p
				   : pi[(size_t)x->info * (size_t)t->A +
					(size_t)c->action];
		double cv[ENV_MAX_PLAYERS];
		if (w == 0)
			continue;
		tree_profile_value(t, pi, (size_t)(x->first + i), cv);
		for (int p = 0; p < t->np; p++)
			v[p] += w * cv[p];
	}
}

static void br_reach(struct tree_br *b, size_t n, double r)
{
	const struct tnode *x = &b->t->nodes[n];

	b->reach[n] = r;
	for (int i = 0; i < x->n; i++) {
		const struct tnode *c = &b->t->nodes[x->first + i];
		double w = 1;
		if (x->kind == T_CHANCE)
			w = c->p;
		else if (x->player != b->me)
			w = b->pi[(size_t)x->info * (size_t)b->t->A +
				  (size_t)c->action];
		br_reach(b, (size_t)(x->first + i), r * w);
	}
}

static double br_value(struct tree_br *b, size_t n);

static int br_action(struct tree_br *b, int32_t info)
{
	const env_tree *t = b->t;
	const struct tinfo *ti = &t->info[info];
	double q[ENV_MAX_ACTIONS] = { 0 };
	int best = -1;

	if (b->act[info] >= 0)
		return b->act[info];
	for (int k = 0; k < ti->nodes_n; k++) {
		size_t h = (size_t)t->inodes[ti->nodes_first + k];
		const struct tnode *x = &t->nodes[h];
		for (int i = 0; i < x->n; i++) {
			const struct tnode *c = &t->nodes[x->first + i];
			q[c->action] += b->reach[h] *
					br_value(b, (size_t)(x->first + i));
		}
	}
	for (int a = 0; a < t->A; a++)
		if (ti->mask[a] && (best < 0 || q[a] > q[best]))
			best = a;
	b->act[info] = best;
	return best;
}

static double br_value(struct tree_br *b, size_t n)
{
	const env_tree *t = b->t;
	const struct tnode *x = &t->nodes[n];
	double v = 0;

	if (b->done[n])
		return b->val[n];
	if (x->kind == T_TERMINAL) {
		v = tnode_ret(t, x)[b->me];
	} else if (x->kind == T_DECISION && x->player == b->me) {
		int a = br_action(b, x->info);
		for (int i = 0; i < x->n; i++)
			if (t->nodes[x->first + i].action == a)
				v = br_value(b, (size_t)(x->first + i));
	} else {
		for (int i = 0; i < x->n; i++) {
			const struct tnode *c = &t->nodes[x->first + i];
			double w = x->kind == T_CHANCE
					   ? c->p
					   : b->pi[(size_t)x->info *
							   (size_t)t->A +
						   (size_t)c->action];
			if (w != 0)
				v += w * br_value(b, (size_t)(x->first + i));
		}
	}
	b->val[n] = v;
	b->done[n] = 1;
	return v;
}

int tree_br_init(struct tree_br *b, const env_tree *t)
{
	const struct lg_part parts[] = {
		LG_PART(struct tree_br, reach, t->nn),
		LG_PART(struct tree_br, val, t->nn),
		LG_PART(struct tree_br, done, t->nn),
		LG_PART(struct tree_br, act, t->ni ? t->ni : 1),
	};

	memset(b, 0, sizeof *b);
	b->t = t;
	if (!(b->block = lg_block_parts(b, parts, LG_ARRAY_LEN(parts)))) {
		tree_br_fini(b);
		return LG_ENOMEM;
	}
	return 0;
}

void tree_br_fini(struct tree_br *b)
{
	free(b->block);
	memset(b, 0, sizeof *b);
}

double tree_br_run(struct tree_br *b, const double *pi, int me)
{
	const env_tree *t = b->t;

	b->pi = pi;
	b->me = me;
	memset(b->done, 0, t->nn);
	for (size_t i = 0; i < t->ni; i++)
		b->act[i] = -1;
	br_reach(b, 0, 1);
	return br_value(b, 0);
}

int tree_check_recall(const env_tree *t, int seat, const char *what,
		      char *err, size_t errlen)
{
	for (size_t i = 0; i < t->ni; i++) {
		const struct tinfo *ti = &t->info[i];
		if (ti->prev != TREE_NO_RECALL || (seat >= 0 &&
						   ti->player != seat))
			continue;
		lg_errf(err, errlen, "%s: %s needs perfect recall, but "
			"infostate '%s' of seat %d follows different earlier "
			"decisions of that seat (or comes twice on one path)",
			t->spec.name, what, ti->key, ti->player);
		return LG_EUNSUPP;
	}
	return 0;
}

/* NashConv of table pi: each seat's best response (tree_br_run) needs
 * perfect recall, which the caller checked. LG_ENOMEM. */
static int nashconv_table(const env_tree *t, const double *pi,
			  struct env_nashconv *out)
{
	struct tree_br b;

	memset(out, 0, sizeof *out);
	out->players = t->np;
	tree_profile_value(t, pi, 0, out->value);
	if (tree_br_init(&b, t))
		return LG_ENOMEM;
	for (int me = 0; me < t->np; me++) {
		out->br_value[me] = tree_br_run(&b, pi, me);
		out->nashconv += out->br_value[me] - out->value[me];
	}
	out->exploitability = out->nashconv / t->np;
	tree_br_fini(&b);
	return 0;
}

int env_tree_nashconv(const env_tree *t, const struct env_policy *pol,
		      struct env_nashconv *out, char *err, size_t errlen)
{
	double *pi;
	int rc;

	memset(out, 0, sizeof *out);
	/* a best response without perfect recall has no single past at an
	 * infostate (and would recurse without end where one repeats) */
	if ((rc = tree_check_recall(t, -1, "NashConv", err, errlen)))
		return rc;
	if (!(pi = calloc(t->ni * (size_t)t->A + 1, sizeof *pi))) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	rc = ask_policy(t, pol, pi, err, errlen);
	if (!rc) {
		rc = nashconv_table(t, pi, out);
		if (rc)
			lg_errf(err, errlen, "out of memory");
	}
	free(pi);
	return rc;
}

int env_tree_dump_policy(const env_tree *t, const struct env_policy *pol,
			 lg_buf *out, char *err, size_t errlen)
{
	double *pi = calloc(t->ni * (size_t)t->A + 1, sizeof *pi);
	int rc;

	if (!pi) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	rc = ask_policy(t, pol, pi, err, errlen);
	if (rc)
		goto out;
	rc = lg_buf_printf(out, "# league tabular policy: %s, %zu infostates, "
			   "%d actions\n", t->spec.name, t->ni, t->A);
	for (size_t i = 0; !rc && i < t->ni; i++) {
		rc = lg_buf_printf(out, "%s", t->info[i].key);
		for (int a = 0; !rc && a < t->A; a++)
			rc = lg_buf_printf(out, " %.17g",
					   pi[i * (size_t)t->A + (size_t)a]);
		if (!rc)
			rc = lg_buf_printf(out, "\n");
	}
	if (rc)
		lg_errf(err, errlen, "out of memory");
out:
	free(pi);
	return rc;
}

/* ---- mixtures of policies as one behaviour policy ------------------------ */

/* reach[info] = the acting player's own reach probability of each infoset
 * under pi (perfect recall: the same for every history in it). */
static void own_reach(const env_tree *t, const double *pi, size_t n,
		      const double *r, double *reach)
{
	const struct tnode *x = &t->nodes[n];

	if (x->kind == T_DECISION)
		reach[x->info] = r[x->player];
	for (int i = 0; i < x->n; i++) {
		const struct tnode *c = &t->nodes[x->first + i];
		double rc[ENV_MAX_PLAYERS];
		memcpy(rc, r, (size_t)t->np * sizeof *rc);
		if (x->kind == T_DECISION)
			rc[x->player] *= pi[(size_t)x->info * (size_t)t->A +
					    (size_t)c->action];
		own_reach(t, pi, (size_t)(x->first + i), rc, reach);
	}
}

int env_tree_mixture(const env_tree *t, const struct env_policy *pols,
		     const double *w, size_t k, env_tabular **out, char *err,
		     size_t errlen)
{
	size_t A = (size_t)t->A, cells = t->ni * A + 1;
	double *pi = NULL, *reach = NULL, *num = NULL, *den = NULL;
	double *avg = NULL, wsum = 0;
	int rc = 0;

	*out = NULL;
	if (k == 0 || k > ENV_MIX_MAX) {
		lg_errf(err, errlen, "mixture of %zu policies (1..%d)", k,
			ENV_MIX_MAX);
		return LG_EINVAL;
	}
	for (size_t j = 0; j < k; j++) {
		if (!(w[j] >= 0) || !isfinite(w[j])) {
			lg_errf(err, errlen, "mixture weight %zu is %g", j,
				w[j]);
			return LG_EINVAL;
		}
		wsum += w[j];
	}
	if (!(wsum > 0)) {
		lg_errf(err, errlen, "mixture weights sum to 0");
		return LG_EINVAL;
	}
	pi = calloc(cells, sizeof *pi);
	num = calloc(cells, sizeof *num);
	avg = calloc(cells, sizeof *avg);
	reach = calloc(t->ni + 1, sizeof *reach);
	den = calloc(t->ni + 1, sizeof *den);
	if (!pi || !num || !avg || !reach || !den)
		goto nomem;
	for (size_t j = 0; j < k; j++) {
		double r0[ENV_MAX_PLAYERS];
		for (int p = 0; p < ENV_MAX_PLAYERS; p++)
			r0[p] = 1;
		if (w[j] == 0)
			continue;
		if ((rc = ask_policy(t, &pols[j], pi, err, errlen)))
			goto out;
		memset(reach, 0, (t->ni + 1) * sizeof *reach);
		own_reach(t, pi, 0, r0, reach);
		for (size_t i = 0; i < t->ni; i++) {
			double wr = w[j] * reach[i];
			den[i] += wr;
			for (size_t a = 0; a < A; a++) {
				num[i * A + a] += wr * pi[i * A + a];
				avg[i * A + a] += w[j] * pi[i * A + a];
			}
		}
	}
	for (size_t i = 0; i < t->ni; i++) {
		double *p = num + i * A;
		if (den[i] > 0)
			for (size_t a = 0; a < A; a++)
				p[a] /= den[i];
		else
			for (size_t a = 0; a < A; a++)
				p[a] = avg[i * A + a] / wsum;
	}
	rc = tree_tabular_of(t, num, out); /* takes num */
	num = NULL;
	goto out;
nomem:
	rc = LG_ENOMEM;
out:
	if (rc == LG_ENOMEM)
		lg_errf(err, errlen, "mixture: out of memory");
	free(pi);
	free(num);
	free(avg);
	free(reach);
	free(den);
	return rc;
}

int env_tree_cross_values(const env_tree *t, const struct env_policy *pols,
			  size_t k, double *out, char *err, size_t errlen)
{
	size_t A = (size_t)t->A, cells = t->ni * A + 1;
	double *tabs = NULL, *pi = NULL;
	int rc = 0;

	if (t->np != 2) {
		lg_errf(err, errlen, "%s: cross values pit one policy at seat 0 "
			"against one at seat 1, so they need a two-seat game; "
			"this one has %d seats", t->spec.name, t->np);
		return LG_EUNSUPP;
	}
	if (k == 0 || k > ENV_MIX_MAX) {
		lg_errf(err, errlen, "cross values of %zu policies (1..%d)", k,
			ENV_MIX_MAX);
		return LG_EINVAL;
	}
	tabs = calloc(k * cells, sizeof *tabs);
	pi = calloc(cells, sizeof *pi);
	if (!tabs || !pi) {
		lg_errf(err, errlen, "cross values: out of memory");
		rc = LG_ENOMEM;
		goto out;
	}
	for (size_t j = 0; j < k; j++)
		if ((rc = ask_policy(t, &pols[j], tabs + j * cells, err,
				     errlen)))
			goto out;
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < k; j++) {
			double v[ENV_MAX_PLAYERS];
			/* Seat 0's infostates from i, the others' from j. */
			for (size_t s = 0; s < t->ni; s++)
				memcpy(pi + s * A,
				       tabs + (t->info[s].player ? j : i) *
						      cells + s * A,
				       A * sizeof *pi);
			tree_profile_value(t, pi, 0, v);
			out[i * k + j] = v[0];
		}
out:
	free(tabs);
	free(pi);
	return rc;
}
