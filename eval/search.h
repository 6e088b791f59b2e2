/*
 * eval/search.h: a league's stored versions of one player played against
 * a fixed baseline as the raw policy and as a search agent (PUCT, envs/
 * mcts.c, the network as prior and value), `league eval search`'s core.
 * The command (cli/eval_search.c) parses the arguments and opens the
 * config, the game and the baseline; this reads the store (read-only,
 * beside a daemon), plays each version and prints its two rows.
 */
#ifndef LG_EVAL_SEARCH_H
#define LG_EVAL_SEARCH_H

#include <stdint.h>
#include <stdio.h>

#include "envs/env.h"
#include "learner/learner.h"
#include "storage/storage.h"
#include "util/util.h"

/* At most this many stored versions of the player are listed. */
#define EVAL_SEARCH_VERSIONS_MAX 4096

/* The network of player's version `version` averaged with the k - 1
 * before it, read in t (cli_params_mean's contract: LG_ENOTFOUND when
 * they are not all stored, the reason in err). */
typedef int (*eval_params_fn)(store_txn *t, uint32_t player,
			      uint32_t version, uint32_t k, nn **out,
			      char *err, size_t errlen);

/* What a run plays and prints. */
struct eval_search_opts {
	const char *dir;     /* the league directory */
	const char *against; /* the baseline's spec, for the rows */
	unsigned long long sims, batch, games, player, last, seed,
		sample_moves, average;
	double c_puct;
	int sample, json;
	eval_params_fn params; /* loads (and averages) a version's net */
	FILE *out;	       /* the rows */
};

/* The raw policy's move for player in e: the network's most probable
 * legal action (the first of equals), or a sample of its probabilities
 * from rng. ws: a workspace of net for one row. 0, or env_observe's,
 * env_legal's or nn_probs's code; LG_ERANGE when the observation is
 * longer than 4096 floats; LG_EINVAL when no action is legal. */
int eval_policy_act(const nn *net, nn_ws *ws, const env *e, int player,
		    int sample, lg_rng *rng, int *action);

/* Plays o->games games a seat of each of the last o->last (0: all)
 * stored versions of o->player in o->dir (with o->average K > 1, the
 * mean of the K versions in a row ending at each; a version without them
 * is passed over) against baseline b in e (the config's game `game`), as
 * the policy and as the search, and prints each version's two rows to
 * o->out. *played: the
 * versions played. 0, or a code with the reason in err and *usage 1 when
 * the caller asked for what cannot be (no league at o->dir, a game the
 * search refuses) rather than a failure. */
int eval_search_run(const struct eval_search_opts *o, env *e,
		    env_baseline *b, const char *game, uint32_t *played,
		    int *usage, char *err, size_t errlen);

#endif
