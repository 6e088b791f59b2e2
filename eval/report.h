/*
 * eval/report.h: the evaluation records of a league directory, read
 * (read-only, beside a live daemon) and printed for `league eval DIR`
 * and `league eval baselines DIR` as a table, CSV or JSON.
 */
#ifndef LG_EVAL_REPORT_H
#define LG_EVAL_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "eval/evalrec.h"

/* The exploitability points (baselines 0) or the baseline rows
 * (baselines 1) of the league at dir into a new array (*pt or *rows, the
 * caller frees it) of *n. 0; else the reason in err and *usage 1 when
 * there is no league at dir. */
int eval_records_read(const char *dir, int baselines,
		      struct league_eval_point **pt,
		      struct league_bgame_row **rows, size_t *n, int *usage,
		      char *err, size_t errlen);

/* The exploitability points to out in fmt ("table", "csv" or "json").
 * The columns: nashconv_main (the newest main player), nashconv_league
 * (the snapshots mixed by the league's own meta-Nash weights),
 * nashconv_oracle_mix (mixed by the exact meta-Nash: an oracle),
 * nashconv_avg (the main player's average policy over avg_versions).
 * A table without points says why there are none. */
void eval_print_points(FILE *out, const struct league_eval_point *pt,
		       size_t n, const char *fmt);

/* The baseline rows r[from..n) against baseline `only` (NULL: all) to
 * out in fmt ("table", "csv" or "json"); a table without rows says why
 * there are none. */
void eval_print_baselines(FILE *out, const struct league_bgame_row *r,
			  size_t n, const char *fmt, const char *only,
			  size_t from);

/* Where the rows of the `last` newest (player, version) pairs begin in
 * rows (in key order, whose end they are). */
size_t eval_bgame_last(const struct league_bgame_row *rows, size_t n,
		       uint64_t last);

/* s as a JSON string on f. */
void eval_json_str(FILE *f, const char *s);

#endif
