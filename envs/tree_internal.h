/*
 * envs/tree_internal.h: the exact evaluator's tree layout, shared by
 * tree.c (building, best response, NashConv, tabular policies, mixtures)
 * and solvers.c (CFR+ and magnetic mirror descent, which walk the same
 * arrays). Not part of the module's interface (env.h).
 */
#ifndef LEAGUE_ENVS_TREE_INTERNAL_H
#define LEAGUE_ENVS_TREE_INTERNAL_H

#include "envs/env_internal.h"

enum { T_DECISION, T_CHANCE, T_TERMINAL };

struct tnode {
	int8_t kind, player;
	int8_t action; /* action (or chance outcome) leading here */
	int32_t info;  /* decision: infoset index */
	int32_t first, n;
	double p;      /* chance probability of this node given its parent */
	double ret[ENV_MAX_PLAYERS];
};

struct tinfo {
	char *key;
	int player;
	int nlegal;
	uint8_t mask[ENV_MAX_ACTIONS];
	float *obs;
	int32_t nodes_first, nodes_n; /* into tree->inodes */
	/* the player's infoset before this one on the way here (-1: none;
	 * TREE_NO_RECALL: it differs between histories of this one) */
	int32_t prev;
	int depth; /* the player's decisions up to this one, from 1 */
};

struct env_tree {
	struct env_game gm; /* its own instance of the env's game */
	struct env_spec spec;
	int A; /* num_actions */
	struct tnode *nodes;
	size_t nn, ncap;
	struct tinfo *info;
	size_t ni, icap;
	int32_t *inodes; /* nodes of each infoset, grouped */
	struct env_strmap map;
};

/* Start node x's two values v: its returns when it is terminal (then 1),
 * else 0 and 0 for the caller to sum its children into (then 0). */
static inline int tnode_start_value(const struct tnode *x, double *v)
{
	v[0] = v[1] = 0;
	if (x->kind != T_TERMINAL)
		return 0;
	v[0] = x->ret[0];
	v[1] = x->ret[1];
	return 1;
}

#define TREE_NODES_MAX (1u << 24)
#define TREE_NO_RECALL (-2)

#endif
