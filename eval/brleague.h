/*
 * eval/brleague.h: a league's player as the opponent of a trained best
 * response (`league eval br`, eval/bestresp.h) and the run's report.
 * The opponent is picked from the league's brain (opened read-only by
 * the caller): a stored player's version (a snapshot's frozen one), or
 * the meta-Nash mixture over the newest active snapshots as the daemon
 * hands it to the evaluator. The caller loads each pick's network; the
 * report prints the points and the summary as a table, CSV or JSON.
 */
#ifndef LG_EVAL_BRLEAGUE_H
#define LG_EVAL_BRLEAGUE_H

#include <stdint.h>
#include <stdio.h>

#include "eval/bestresp.h"
#include "players/players.h"

/* The opponent: nets, weights and where each came from. */
struct eval_br_opponent {
	nn *nets[LEAGUE_BR_MIX_MAX]; /* the caller's to load and free */
	double w[LEAGUE_BR_MIX_MAX];
	uint32_t id[LEAGUE_BR_MIX_MAX], player[LEAGUE_BR_MIX_MAX],
		version[LEAGUE_BR_MIX_MAX]; /* UINT32_MAX: the newest */
	size_t k;
	uint32_t snapshots; /* the mixture: snapshots the meta-Nash saw */
	int mixture;	    /* the meta-Nash mixture, not one player */
};

/* Player `player` of b (in the league at dir) as op's one entry: a
 * learner's version `version` (ULLONG_MAX: the newest stored), or a
 * snapshot's frozen one (version ULLONG_MAX or that one). 0, or
 * LG_EINVAL with the reason in err (no such player, another version of
 * a snapshot). */
int eval_br_player(brain *b, const char *dir, unsigned long long player,
		   unsigned long long version, struct eval_br_opponent *op,
		   char *err, size_t errlen);

/* The meta-Nash over b's newest BRAIN_NASH_MAX active snapshots (as
 * league/exploit.c eval_work computes it for the evaluator; weights at
 * most PAYOFF_SUPPORT_MIN dropped, the rest normalized) as op's entries.
 * 0; or the reason in err and *usage 1 when the league has no snapshots
 * yet, else 0 (out of memory, the meta-Nash's code, no weight). */
int eval_br_mixture(brain *b, const char *dir, struct eval_br_opponent *op,
		    int *usage, char *err, size_t errlen);

/* How the report prints: to out, as JSON lines, CSV or a table. */
struct eval_br_printer {
	FILE *out;
	int json, csv;
	int header;   /* the table's or CSV's header is out */
	double exact; /* the exact NashConv; NaN: none */
};

/* league_br_opts.on_point for a printer ctx: one point as a JSON line, a
 * CSV row or a table line. */
void eval_br_on_point(void *ctx, const struct league_br_point *p);
/* The table's opening lines (nothing for JSON or CSV): the game, whom,
 * the budget, the exact NashConv when have_exact. */
void eval_br_intro(const struct eval_br_printer *pr,
		   const struct league_br_opts *o,
		   const struct eval_br_opponent *op, const char *game,
		   int have_exact, const struct env_nashconv *nc);
/* The last point p as the summary (a JSON line or the table's estimate
 * line; nothing for CSV). */
void eval_br_summary(const struct eval_br_printer *pr,
		     const struct league_br_opts *o,
		     const struct eval_br_opponent *op, const char *game,
		     const struct league_br_point *p, int have_exact,
		     const struct env_nashconv *nc);

#endif
