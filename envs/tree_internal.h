/*
 * envs/tree_internal.h: the exact evaluator's tree layout, shared by
 * tree.c (building, best response, NashConv, tabular policies, mixtures)
 * and solvers.c (CFR+ and magnetic mirror descent, which walk the same
 * arrays). Not part of the module's interface (env.h).
 */
#ifndef LEAGUE_ENVS_TREE_INTERNAL_H
#define LEAGUE_ENVS_TREE_INTERNAL_H

#include "envs/env_internal.h"

#include <string.h>

enum { T_DECISION, T_CHANCE, T_TERMINAL };

struct tnode {
	int8_t kind, player;
	int8_t action; /* action (or chance outcome) leading here */
	/* decision: infoset index; terminal: row of tree->ret */
	int32_t info;
	int32_t first, n;
	double p;      /* chance probability of this node given its parent */
};

struct tinfo {
	char *key;
	int player;
	int nlegal;
	uint8_t mask[ENV_MAX_ACTIONS];
	float *obs;
	int32_t nodes_first, nodes_n; /* into tree->inodes */
	/* the player's infoset before this one on the way here (-1: none;
	 * TREE_NO_RECALL: it, or the action taken there, differs between
	 * histories of this one, e.g. when it comes twice on one path) */
	int32_t prev;
	int prev_act; /* the player's action at prev (-1: none) */
	int depth; /* the player's decisions up to this one, from 1 */
};

struct env_tree {
	struct env_game gm; /* its own instance of the env's game */
	struct env_spec spec;
	int A;  /* the most actions of any seat: the stride of tables */
	int np; /* players */
	struct tnode *nodes;
	size_t nn, ncap;
	struct tinfo *info;
	size_t ni, icap;
	int32_t *inodes; /* nodes of each infoset, grouped */
	double *ret;     /* [terminals][np]: each terminal's returns */
	size_t nt, tcap;
	struct env_strmap map;
};

/* Terminal x's returns, np of them. */
static inline const double *tnode_ret(const env_tree *t,
				      const struct tnode *x)
{
	return t->ret + (size_t)x->info * (size_t)t->np;
}

/* Start node x's np values v: its returns when it is terminal (then 1),
 * else zeros for the caller to sum its children into (then 0). */
static inline int tnode_start_value(const env_tree *t, const struct tnode *x,
				    double *v)
{
	if (x->kind != T_TERMINAL) {
		memset(v, 0, (size_t)t->np * sizeof *v);
		return 0;
	}
	memcpy(v, tnode_ret(t, x), (size_t)t->np * sizeof *v);
	return 1;
}

/* The number of actions of seat p (its legal masks and policies are that
 * long; tables keep the stride A). */
static inline int tree_seat_actions(const env_tree *t, int p)
{
	return t->spec.seat[p].num_actions;
}

/* Every seat's expected return below node n when all play pi (ni x A),
 * into v[np]. */
void tree_profile_value(const env_tree *t, const double *pi, size_t n,
			double *v);

/* A best responder's work space on tree t (tree.c): chance x the
 * others' reach of each node, memoised values below, and the action
 * chosen at each of the responder's infosets. */
struct tree_br {
	const env_tree *t;
	const double *pi;
	int me;
	double *reach, *val; /* [nn] */
	uint8_t *done;       /* [nn] */
	int *act;            /* [ni]: -1 until fixed (and where unreached) */
	void *block;         /* the four arrays' one allocation */
};
int tree_br_init(struct tree_br *b, const env_tree *t); /* LG_ENOMEM */
void tree_br_fini(struct tree_br *b);
/* Seat me's best-response value when every other seat plays pi
 * (ni x A); b->act then holds me's choices. me must have perfect recall
 * (tree_check_recall): exact then; without it an infostate that comes
 * twice on one path recurses without end. */
double tree_br_run(struct tree_br *b, const double *pi, int me);

/* 0 when seat has perfect recall on t (every seat when seat < 0), else
 * LG_EUNSUPP with the first infostate marked TREE_NO_RECALL named in err
 * (what: the work refused, for the message). */
int tree_check_recall(const env_tree *t, int seat, const char *what,
		      char *err, size_t errlen);

/* A tabular policy file's table (envs/tabular.c). */
struct env_tabular {
	int A;
	struct env_strmap map;
	double *probs; /* [n * A] */
	size_t n, cap;
};

/* tab (t->ni x t->A, malloc'd, rows normalised) as a tabular policy over
 * t's infostates, which takes tab over (freeing it on failure too).
 * LG_ENOMEM. */
int tree_tabular_of(const env_tree *t, double *tab, env_tabular **out);

/* The tree of game table g with instance inst (which the tree takes
 * over: g->destroy, if any, is called on it when the tree is freed), spec
 * and state_size: env_tree_new's work on a game that is not registered,
 * for tests that build one of their own. Errors as env_tree_new. */
int env_tree_of_game(env_tree **out, const struct league_game *g,
		     void *inst, const struct env_spec *spec,
		     size_t state_size, char *err, size_t errlen);

#define TREE_NODES_MAX (1u << 24)
#define TREE_NO_RECALL (-2)

#endif
