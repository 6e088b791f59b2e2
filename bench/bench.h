/*
 * bench: benchmarks behind `league bench NAME`. Each prints a ratio against
 * a reference measured in the same run (these machines are shared and
 * noisy), and with --json one JSON object per line.
 *
 * A benchmark is `int bench_<name>(int argc, char **argv)` with argv[0] the
 * benchmark name, returning a CLI exit status; register it in the table in
 * cli/cmd_bench.c.
 */
#ifndef LG_BENCH_H
#define LG_BENCH_H

#include <stddef.h>

struct bench_entry {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

int bench_env(int argc, char **argv);
int bench_matchmaking(int argc, char **argv);
int bench_learner(int argc, char **argv);
int bench_collector(int argc, char **argv);
int bench_daemon(int argc, char **argv);
int bench_pipeline(int argc, char **argv);
int bench_payoff(int argc, char **argv);

/* n synthetic rows for a PPO update of net's shape, into the block y
 * (lg_rows_init'd here; free with lg_rows_free): gaussian observations,
 * about 3/4 of the actions legal, actions, log-probabilities and values
 * from the net itself, episodes of `episode` rows ending in +-1. PPO's
 * cost does not depend on the values. LG_ENOMEM. (bench_learner.c) */
struct lg_rows;
struct nn;
int bench_synth_rows(struct lg_rows *y, const struct nn *net, size_t n,
		     unsigned episode);

/* `league bench learner --wide A` (bench_wide.c): the net of shape (its
 * actions aside) with a gathered head of `wide` actions against the same
 * net with 64, updates and forwards alternating; prints the ratios. */
struct nn_shape;
#define WIDE_LEGAL_FROM_MIN 30 /* a row's most legal actions */
struct bench_wide_opts {
	const struct nn_shape *shape;
	const char *hidden_txt;
	unsigned wide;
	unsigned legal_from; /* legal ids from the first this many (0: all) */
	unsigned long long batch, minibatch, epochs, threads;
	double seconds;
	int json;
};
int bench_learner_wide(const struct bench_wide_opts *o);

/* The league the matchmaking and payoff benchmarks grow: one main player,
 * one main and one league exploiter (learners 0, 2, 3), no resets, and a
 * snapshot at every step report, so N reports make N snapshots.
 * (bench_matchmaking.c) */
struct brain_opts;
void bench_growth_opts(struct brain_opts *o);

#endif
