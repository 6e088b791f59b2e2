/*
 * conf/options: the config (conf/config.h) as the option structs of the
 * lower modules, which never read the config themselves.
 *
 * The one place a cfg becomes env_opts, nn_shape, ppo_opts, brain_opts and
 * coll_opts: one function per module, used by the daemon, the workers,
 * `league eval`, `league run`, the config's own cross-key check and the
 * benchmarks alike. Each starts from the module's own defaults and sets
 * every field the config has a key for; tests/check_config.c ties the
 * translation of the default config to those defaults field by field, and
 * the config's bounds to the modules' checks.
 */
#ifndef LG_OPTIONS_H
#define LG_OPTIONS_H

#include <stddef.h>

#include "collector/collector.h"
#include "envs/env.h"
#include "conf/config.h"
#include "learner/learner.h"

/* players/players.h; its users include it (it brings the payoff and
 * storage headers, which the workers do not need). */
struct brain_opts;

/* env.* and league.seed. */
void league_env_opts(const struct cfg *c, struct env_opts *o);

/* model.* for the game spec describes (its observation length and action
 * count). */
void league_nn_shape(const struct cfg *c, const struct env_spec *spec,
		     struct nn_shape *s);

/* learner.*; batch_max is learner.batch plus one collectors.segment_len,
 * as a batch closes at the first segment that reaches learner.batch.
 * threads is learner.threads (ppo_opts_default leaves BLAS alone with 0;
 * a league learner always shards). total_updates is the learner's own. */
void league_ppo_opts(const struct cfg *c, struct ppo_opts *o);

/* players, roles, matchmaking, snapshot and payoff. batch is left at the
 * brain's default: how often to commit is the caller's choice. */
void league_brain_opts(const struct cfg *c, struct brain_opts *o);
/* The game's part of the brain options: its seats and teams, and
 * payoff.measure auto resolved by its declared payoff type. */
void league_brain_game(const struct env_spec *sp, struct brain_opts *o);

/* collectors.* and the env options (league_env_opts) for `envs` envs (0:
 * collectors.envs); wait_num is clamped to them. o->game points into c
 * (coll_new copies it). Policies, baselines, callbacks and the seed of
 * this collector's episodes are the caller's. */
/* Floats of recurrent state the config's net carries (its gru layer's
 * width; 0 without one). */
size_t league_state_len(const struct cfg *c);
void league_coll_opts(const struct cfg *c, size_t envs,
		      struct coll_opts *o);

#endif
