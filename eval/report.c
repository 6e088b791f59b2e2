/*
 * eval/report.c: the league's evaluation records (eval/evalrec.h) read
 * from its directory and printed as a table, CSV or JSON: the
 * exploitability curve (`league eval DIR`) and the rows of games
 * against baselines (`league eval baselines DIR`).
 */
#include "eval/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* s as a JSON string on f. */
void eval_json_str(FILE *f, const char *s)
{
	lg_buf b = { 0 };

	if (!lg_buf_json_str(&b, s))
		fwrite(b.data, 1, b.len, f);
	lg_buf_free(&b);
}

/* A NashConv cell: CSV (width 0: "%.9g", empty when NaN) or the table
 * ("%*.6f" in width, "-" when NaN). */
static void cell_nc(FILE *f, int width, double v, const char *sep)
{
	if (!width && isfinite(v))
		fprintf(f, "%.9g%s", v, sep);
	else if (!width)
		fprintf(f, "%s", sep);
	else if (isfinite(v))
		fprintf(f, "%*.6f%s", width, v, sep);
	else
		fprintf(f, "%*s%s", width, "-", sep);
}

/* A point's four NashConvs (main, league, oracle mix, average) as
 * cells of width[j] (cell_nc), each followed by sep. */
static void point_cells(FILE *f, const struct league_eval_point *p,
			const int width[4], const char *sep)
{
	const double v[4] = { p->nashconv_main, p->nashconv_league,
			      p->nashconv_oracle_mix, p->nashconv_avg };

	for (int j = 0; j < 4; j++)
		cell_nc(f, width[j], v[j], sep);
}

/* The exploitability points as JSON, CSV or a table. The columns:
 * nashconv_main (the newest main player), nashconv_league (the
 * snapshots mixed by the league's own meta-Nash weights),
 * nashconv_oracle_mix (mixed by the exact meta-Nash: an oracle),
 * nashconv_avg (the main player's average policy over avg_versions). */
void eval_print_points(FILE *f, const struct league_eval_point *pt,
		       size_t n, const char *fmt)
{
	static const int csv[4] = { 0, 0, 0, 0 }, table[4] = { 13, 15, 11, 9 };

	if (!strcmp(fmt, "json")) {
		lg_buf b = { 0 };
		if (league_eval_json(pt, n, &b))
			fprintf(stderr, "league eval: out of memory\n");
		else
			fprintf(f, "%.*s\n", (int)b.len, (const char *)b.data);
		lg_buf_free(&b);
		return;
	}
	if (!strcmp(fmt, "csv")) {
		fprintf(f, "seconds,env_steps,nashconv_main,nashconv_league,"
		           "nashconv_oracle_mix,nashconv_avg,snapshot,"
		           "league_snapshots,avg_versions,main_player,"
		           "main_version\n");
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%.3f,%llu,", pt[i].seconds,
			           (unsigned long long)pt[i].env_steps);
			point_cells(f, &pt[i], csv, ",");
			fprintf(f, "%u,%u,%u,%u,%u\n", pt[i].snapshot,
			           pt[i].league_snapshots, pt[i].avg_versions,
			           pt[i].main_player, pt[i].main_version);
		}
		return;
	}
	fprintf(f, "%9s %12s %13s %15s %11s %9s %8s %9s %8s\n", "seconds",
	           "env_steps", "nashconv_main", "nashconv_league", "oracle_mix",
	           "main_avg", "snapshot", "snapshots", "main");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%9.1f %12llu ", pt[i].seconds,
		           (unsigned long long)pt[i].env_steps);
		point_cells(f, &pt[i], table, " ");
		fprintf(f, "%8u %9u %3u/v%u\n", pt[i].snapshot,
		           pt[i].league_snapshots, pt[i].main_player,
		           pt[i].main_version);
	}
	if (!n)
		fprintf(f, "(no evaluations yet: `league run` stores one "
			    "per snapshot when eval.nashconv is true and the game "
			    "has an exact evaluator)\n");
}

/* a / b, 0 when b is. */
static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

/* See report.h. */
void eval_print_baselines(FILE *f, const struct league_bgame_row *r,
			  size_t n, const char *fmt, const char *only,
			  size_t from)
{
	int first = 1;

	if (!strcmp(fmt, "json"))
		fprintf(f, "[");
	else if (!strcmp(fmt, "csv"))
		fprintf(f, "seconds,env_steps,player,version,baseline,games,"
		           "win_rate,loss_rate,games_seat0,wins_seat0,"
		           "draws_seat0,losses_seat0,games_seat1,wins_seat1,"
		           "draws_seat1,losses_seat1,win_rate_seat0,"
		           "loss_rate_seat0,win_rate_seat1,loss_rate_seat1\n");
	else
		fprintf(f, "%9s %12s %6s %7s %-12s %6s %6s %6s %17s %17s\n",
		           "seconds", "env_steps", "player", "version",
		           "baseline", "games", "win", "loss", "seat0 W/D/L",
		           "seat1 W/D/L");
	for (size_t i = 0; i < n; i++) {
		const struct league_bgame_row *x = &r[i];
		uint64_t g = x->games[0] + x->games[1];

		if (i < from || (only && strcmp(x->baseline, only)))
			continue;
		double w = ratio(x->wins[0] + x->wins[1], g);
		double l = ratio(x->losses[0] + x->losses[1], g);
		if (!strcmp(fmt, "json")) {
			fprintf(f, "%s{\"seconds\":%.3f,\"env_steps\":%llu,"
			           "\"player\":%u,\"version\":%u,\"baseline\":",
			           first ? "" : ",", x->seconds,
			           (unsigned long long)x->env_steps, x->player,
			           x->version);
			eval_json_str(f, x->baseline);
			fprintf(f, ",\"games\":%llu,\"win_rate\":%.9g,"
			           "\"loss_rate\":%.9g", (unsigned long long)g, w,
			           l);
			for (int s = 0; s < 2; s++)
				fprintf(f, ",\"seat%d\":{\"games\":%llu,"
				           "\"wins\":%llu,\"draws\":%llu,"
				           "\"losses\":%llu}", s,
				           (unsigned long long)x->games[s],
				           (unsigned long long)x->wins[s],
				           (unsigned long long)x->draws[s],
				           (unsigned long long)x->losses[s]);
			fprintf(f, "}");
		} else if (!strcmp(fmt, "csv")) {
			fprintf(f, "%.3f,%llu,%u,%u,%s,%llu,%.9g,%.9g",
			           x->seconds, (unsigned long long)x->env_steps,
			           x->player, x->version, x->baseline,
			           (unsigned long long)g, w, l);
			for (int s = 0; s < 2; s++)
				fprintf(f, ",%llu,%llu,%llu,%llu",
				           (unsigned long long)x->games[s],
				           (unsigned long long)x->wins[s],
				           (unsigned long long)x->draws[s],
				           (unsigned long long)x->losses[s]);
			for (int s = 0; s < 2; s++)
				fprintf(f, ",%.9g,%.9g", ratio(x->wins[s], x->games[s]),
				           ratio(x->losses[s], x->games[s]));
			fprintf(f, "\n");
		} else {
			char sd[2][40];
			for (int s = 0; s < 2; s++)
				snprintf(sd[s], sizeof sd[s], "%llu/%llu/%llu",
					 (unsigned long long)x->wins[s],
					 (unsigned long long)x->draws[s],
					 (unsigned long long)x->losses[s]);
			fprintf(f, "%9.1f %12llu %6u %7u %-12s %6llu %6.3f %6.3f "
			           "%17s %17s\n", x->seconds,
			           (unsigned long long)x->env_steps, x->player,
			           x->version, x->baseline, (unsigned long long)g,
			           w, l, sd[0], sd[1]);
		}
		first = 0;
	}
	if (!strcmp(fmt, "json"))
		fprintf(f, "]\n");
	else if (!strcmp(fmt, "table") && first)
		fprintf(f, "(no evaluation games yet: the daemon plays them when "
		           "eval.share > 0)\n");
}

size_t eval_bgame_last(const struct league_bgame_row *rows, size_t n,
		       uint64_t last)
{
	/* the N newest (player, version) pairs end the key order */
	size_t from = n;

	for (uint64_t k = 0; k < last && from > 0; k++) {
		uint32_t p = rows[from - 1].player;
		uint32_t v = rows[from - 1].version;
		while (from > 0 && rows[from - 1].player == p &&
		       rows[from - 1].version == v)
			from--;
	}
	return from;
}

int eval_records_read(const char *dir, int baselines,
		      struct league_eval_point **pt,
		      struct league_bgame_row **rows, size_t *n, int *usage,
		      char *err, size_t errlen)
{
	struct store_opts so = { .flags = STORE_RDONLY };
	store *st = NULL;
	store_txn *t = NULL;
	int rc;

	*usage = 0;
	if ((rc = store_open(&st, dir, &so, err, errlen))) {
		*usage = rc == LG_ENOTFOUND;
		return rc;
	}
	if ((rc = store_txn_begin(st, STORE_TXN_READ, &t)) ||
	    (baselines ? (rc = league_bgame_list(t, rows, n))
		       : (rc = league_eval_list(t, pt, n))))
		lg_errf(err, errlen, "%s: reading evaluations: %s", dir,
			lg_strerror(rc));
	store_txn_abort(t);
	store_close(st);
	return rc;
}
