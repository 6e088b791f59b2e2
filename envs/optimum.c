/*
 * envs/optimum.c: the exact optimum of a common-payoff game on its tree
 * (tree_internal.h): the best joint policy, which some deterministic joint
 * policy attains (the expected return is linear in each seat's mixed
 * strategy, so a vertex is as good as any mixture).
 *
 * Method: one seat, the responder (the seat with perfect recall and the
 * most infostates), best-responds exactly (tree_br_run); with no such
 * seat it refuses (LG_EUNSUPP: then a mixed joint policy can beat every
 * deterministic one, so enumerating those would not give the optimum); the others'
 * deterministic policies are enumerated, but only at infostates the
 * choices already made can reach: a depth-first search finds the first
 * reachable infostate of a non-responder seat without a choice, branches
 * on its legal actions, and evaluates once none is left. The work is the
 * number of joint policies so enumerated times the tree's size, capped at
 * OPT_WORK_MAX node visits (LG_EFULL, with the count in the message).
 */
#include "envs/tree_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPT_WORK_MAX (1ull << 31)

struct opt {
	const env_tree *t;
	int resp;          /* the responder seat (perfect recall) */
	double *pi;        /* [ni * A]: the enumerated seats' choices */
	int *choice;       /* [ni]: -1 unset */
	struct tree_br br;
	double best;
	double *best_pi;   /* [ni * A] */
	uint64_t leaves, work, work_max;
	int *stack;        /* [nn]: the search's nodes to visit */
};

/* The first infostate of a non-responder seat reachable under the
 * choices made so far that has none yet, or -1. */
static int32_t opt_frontier(struct opt *o)
{
	const env_tree *t = o->t;
	size_t top = 0;

	o->stack[top++] = 0;
	while (top > 0) {
		const struct tnode *x = &t->nodes[o->stack[--top]];
		o->work++;
		if (x->kind == T_DECISION && x->player != o->resp) {
			int c = o->choice[x->info];
			if (c < 0)
				return x->info;
			for (int i = 0; i < x->n; i++)
				if (t->nodes[x->first + i].action == c)
					o->stack[top++] = x->first + i;
			continue;
		}
		/* right to left, so the leftmost child is searched first */
		for (int i = x->n - 1; i >= 0; i--)
			o->stack[top++] = x->first + i;
	}
	return -1;
}

/* The value of the choices made, the responder best-responding; an
 * unreached infostate plays its first legal action. */
static void opt_leaf(struct opt *o)
{
	const env_tree *t = o->t;
	size_t A = (size_t)t->A;
	double v;

	for (size_t i = 0; i < t->ni; i++) {
		const struct tinfo *ti = &t->info[i];
		int a = o->choice[i];
		if (ti->player == o->resp)
			continue;
		for (int k = 0; a < 0 && k < t->A; k++)
			if (ti->mask[k])
				a = k;
		for (size_t k = 0; k < A; k++)
			o->pi[i * A + k] = (int)k == a;
	}
	v = tree_br_run(&o->br, o->pi, o->resp);
	for (size_t i = 0; i < t->ni; i++) {
		int a = o->br.act[i];
		if (t->info[i].player != o->resp)
			continue;
		for (int k = 0; a < 0 && k < t->A; k++)
			if (t->info[i].mask[k])
				a = k; /* unreached: any legal */
		for (size_t k = 0; k < A; k++)
			o->pi[i * A + k] = (int)k == a;
	}
	o->work += t->nn;
	o->leaves++;
	if (o->leaves == 1 || v > o->best) {
		o->best = v;
		memcpy(o->best_pi, o->pi, t->ni * A * sizeof *o->pi);
	}
}

static int opt_search(struct opt *o)
{
	const env_tree *t = o->t;
	int32_t i = opt_frontier(o);
	int rc = 0;

	if (o->work > o->work_max)
		return LG_EFULL;
	if (i < 0) {
		opt_leaf(o);
		return 0;
	}
	for (int a = 0; a < t->A && !rc; a++) {
		if (!t->info[i].mask[a])
			continue;
		o->choice[i] = a;
		rc = opt_search(o);
	}
	o->choice[i] = -1;
	return rc;
}

/* 1 when every terminal gives every seat the same return (to 1e-9 of the
 * largest), else 0 with the first terminal that does not in err. */
static int common_payoff(const env_tree *t, char *err, size_t errlen)
{
	for (size_t k = 0; k < t->nt; k++) {
		const double *r = t->ret + k * (size_t)t->np;
		for (int p = 1; p < t->np; p++)
			if (fabs(r[p] - r[0]) >
			    1e-9 * (1 + LG_MAX(fabs(r[p]), fabs(r[0])))) {
				lg_errf(err, errlen, "%s: not a common-payoff "
					"game (a terminal pays seat 0 %g and "
					"seat %d %g), so it has no joint "
					"optimum", t->spec.name, r[0], p,
					r[p]);
				return 0;
			}
	}
	return 1;
}

/* The responder: the seat with perfect recall and the most infostates
 * (its best response is then exact), or -1. */
static int pick_responder(const env_tree *t)
{
	size_t count[ENV_MAX_PLAYERS] = { 0 };
	int recall[ENV_MAX_PLAYERS], best = -1;

	for (int p = 0; p < t->np; p++)
		recall[p] = 1;
	for (size_t i = 0; i < t->ni; i++) {
		count[t->info[i].player]++;
		if (t->info[i].prev == TREE_NO_RECALL)
			recall[t->info[i].player] = 0;
	}
	for (int p = 0; p < t->np; p++)
		if (recall[p] && (best < 0 || count[p] > count[best]))
			best = p;
	return best;
}

int env_tree_optimum(const env_tree *t, struct env_optimum *out,
		     env_tabular **policy, char *err, size_t errlen)
{
	struct opt o = { .t = t };
	size_t cells = t->ni * (size_t)t->A + 1;
	/* the search's arrays: one block (best_pi apart: policy takes it) */
	const struct lg_part parts[] = {
		LG_PART(struct opt, pi, cells),
		LG_PART(struct opt, choice, t->ni + 1),
		LG_PART(struct opt, stack, t->nn),
	};
	void *block = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	if (policy)
		*policy = NULL;
	if (!common_payoff(t, err, errlen))
		return LG_EUNSUPP;
	o.resp = pick_responder(t);
	if (o.resp < 0) {
		/* Without a best responder every seat is enumerated over
		 * deterministic policies, and without perfect recall a mixed
		 * (behaviour) policy can beat every deterministic one: the
		 * best found would not be the optimum. */
		lg_errf(err, errlen, "%s: no seat has perfect recall, so no "
			"exact optimum here (a mixed joint policy can beat "
			"every deterministic one)", t->spec.name);
		return LG_EUNSUPP;
	}
	o.work_max = OPT_WORK_MAX;
	block = lg_block_parts(&o, parts, LG_ARRAY_LEN(parts));
	o.best_pi = calloc(cells, sizeof *o.best_pi);
	if (!block || !o.best_pi || tree_br_init(&o.br, t)) {
		rc = LG_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < t->ni; i++)
		o.choice[i] = -1;
	rc = opt_search(&o);
	if (rc == LG_EFULL) {
		lg_errf(err, errlen, "%s: the optimum's enumeration passed "
			"%llu node visits (%llu joint policies of the seats "
			"other than %d so far, %zu nodes each): too big to "
			"solve exactly", t->spec.name,
			(unsigned long long)o.work_max,
			(unsigned long long)o.leaves, o.resp, t->nn);
		goto out;
	}
	out->value = o.best;
	out->policies = o.leaves;
	out->responder = o.resp;
	if (policy) {
		rc = tree_tabular_of(t, o.best_pi, policy);
		o.best_pi = NULL;
	}
out:
	if (rc == LG_ENOMEM)
		lg_errf(err, errlen, "%s: optimum: out of memory",
			t->spec.name);
	tree_br_fini(&o.br);
	free(block);
	free(o.best_pi);
	return rc;
}
