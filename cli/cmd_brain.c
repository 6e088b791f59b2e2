/*
 * cli/cmd_brain.c: the league brain on the command line.
 *
 *   league payoff DIR [--format table|csv|json] [--top N]
 *                                                  win rates and game counts
 *   league players DIR [--format table|json]      players and snapshots
 *   league ratings DIR [--format table|json] [--alpha-rank [--alpha A]
 *                  [--population M]]       Elo (fit and online), Nash, α-Rank
 *   league sim CONFIG [--dir DIR] [--jobs N]      a simulated league
 *
 * The inspection commands open the league directory read-only
 * (STORE_RDONLY), so they run beside a writing daemon and see one
 * consistent snapshot. `league sim` writes: it creates (or continues) the
 * league of CONFIG in DIR and plays it with fixed-strength non-transitive
 * players (players/sim.c) through the real matchmaking and payoff code.
 *
 * The config becomes brain options through league_brain_opts()
 * (conf/options.h), as in the daemon.
 */
#include "cli/cli.h"
#include "conf/config.h"
#include "league/daemon.h"
#include "conf/options.h"
#include "players/players.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fmt { FMT_TABLE, FMT_CSV, FMT_JSON };

/* ---- shared option parsing -------------------------------------------- */

/* The commands of this file, for which of them a flag is. */
enum { ON_PAYOFF = 1, ON_PLAYERS = 2, ON_RATINGS = 4, ON_SIM = 8 };

struct args {
	const char *cmd;
	unsigned on;      /* which command (ON_*) */
	const char *path; /* DIR or CONFIG */
	const char *dir;
	int fmt;
	unsigned long long jobs, seed;
	int seed_set, drift;
	unsigned long long top; /* payoff table: at most this many players */
	int alpha_rank;          /* ratings: the α-Rank column */
	struct payoff_alpharank_opts ar;
};

/* --alpha: a number >= 0, or inf for the limit. */
static int parse_alpha(void *dest, const char *val, char *err, size_t len)
{
	double *out = dest;

	if (!strcmp(val, "inf") || !strcmp(val, "infinity")) {
		*out = INFINITY;
		return 0;
	}
	if (lg_parse_double(val, 0, 1e12, out)) {
		snprintf(err, len, "--alpha: expected a number in [0, 1e12] "
			 "or 'inf', got '%s'", val);
		return -1;
	}
	return 0;
}

/* --format into the struct args at dest: csv for the payoff only. */
static int parse_format(void *dest, const char *val, char *err, size_t len)
{
	struct args *a = dest;
	int csv = a->on == ON_PAYOFF;

	if (!strcmp(val, "table"))
		a->fmt = FMT_TABLE;
	else if (!strcmp(val, "json"))
		a->fmt = FMT_JSON;
	else if (!strcmp(val, "csv") && csv)
		a->fmt = FMT_CSV;
	else {
		snprintf(err, len, "--format: expected %s, got '%s'",
			 csv ? "table, csv or json" : "table or json", val);
		return -1;
	}
	return 0;
}

/* The four commands share one table: a flag of another of them is known
 * but refused ("option '--top' does not apply here"). */
static int parse(int argc, char **argv, struct args *a)
{
	const unsigned shown = ON_PAYOFF | ON_PLAYERS | ON_RATINGS;
	unsigned long long pop;
	struct cli_arg flags[] = {
		CLI_CALL("format", 'f', a, parse_format),
		CLI_STRING("dir", 'd', &a->dir),
		CLI_U64("jobs", 'n', &a->jobs, 0, 100000000ull),
		{ .name = "seed", .letter = 's', .kind = CLI_ARG_U64,
		  .dest = &a->seed, .max = UINT64_MAX, .seen = &a->seed_set },
		CLI_BOOL("drift", 0, &a->drift),
		CLI_U64("top", 't', &a->top, 1, 1000000),
		CLI_SET("json", 0, &a->fmt, FMT_JSON),
		CLI_BOOL("alpha-rank", 0, &a->alpha_rank),
		{ .name = "alpha", .kind = CLI_ARG_CALL, .dest = &a->ar.alpha,
		  .call = parse_alpha, .seen = &a->alpha_rank },
		{ .name = "population", .kind = CLI_ARG_U64, .dest = &pop,
		  .min = 2, .max = PAYOFF_ALPHARANK_POP_MAX,
		  .seen = &a->alpha_rank },
		CLI_END,
	};
	/* flags[i] is for the commands on[i] */
	static const unsigned on[] = { shown, ON_SIM, ON_SIM, ON_SIM, ON_SIM,
		ON_PAYOFF, shown, ON_RATINGS, ON_RATINGS, ON_RATINGS };
	const struct cli_args args = { a->cmd, flags, 1, 1, a->on == ON_SIM
		? "expected CONFIG" : "expected the league directory", 1 };
	char **pos;

	_Static_assert(sizeof on / sizeof on[0] ==
		       sizeof flags / sizeof flags[0] - 1, "one on[] per flag");
	for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
		flags[i].refused = !(on[i] & a->on);
	a->fmt = FMT_TABLE;
	a->jobs = 1000;
	payoff_alpharank_opts_default(&a->ar);
	pop = a->ar.population;
	if (cli_args(&args, argc, argv, &pos, NULL))
		return CLI_USAGE;
	a->ar.population = (uint32_t)pop;
	a->path = pos[0];
	if (a->top && a->fmt != FMT_TABLE)
		return cli_usage_error(a->cmd, "--top applies to the table "
				       "(csv and json list every player)");
	return 0;
}

/* Open DIR read-only and load the league. */
static int open_ro(const char *cmd, const char *dir, store **s, brain **b)
{
	struct store_opts so = { STORE_RDONLY, 0, 0 };
	char err[512];
	int rc;

	rc = store_open(s, dir, &so, err, sizeof err);
	if (rc) {
		fprintf(stderr, "league %s: %s\n", cmd, err);
		return CLI_FAIL;
	}
	rc = brain_open(b, *s, NULL, err, sizeof err);
	if (rc) {
		fprintf(stderr, "league %s: %s: %s\n", cmd, dir,
			err[0] ? err : lg_strerror(rc));
		store_close(*s);
		*s = NULL;
		return CLI_FAIL;
	}
	return 0;
}

static const char *status_name(const struct brain_player *p)
{
	if (p->role != BRAIN_ROLE_HISTORICAL)
		return "learning";
	return p->status == BRAIN_RETIRED ? "retired" : "frozen";
}

/* Everyone, in id order (learners and snapshots). */
static uint32_t *all_ids(const brain *b)
{
	uint32_t n = brain_count(b), *ids = malloc((n ? n : 1) * sizeof *ids);

	if (ids)
		for (uint32_t i = 0; i < n; i++)
			ids[i] = i;
	return ids;
}

/* ---- league payoff ----------------------------------------------------- */

/* Row labels of the table. */
static const char *const short_role[BRAIN_ROLE__COUNT] = {
	"main", "mexp", "lexp", "self", "hist",
};

/* The players of the table, in id order into ids[]: all n, or (top <
 * n) every learning player and then the newest snapshots, top in all
 * (the learning ones first if they alone are more). */
static uint32_t table_players(brain *b, uint32_t n, unsigned long long top,
			      uint32_t *ids)
{
	uint32_t k = 0, learning = 0, room;

	if (!top || top >= n) {
		for (uint32_t i = 0; i < n; i++)
			ids[i] = i;
		return n;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct brain_player p;
		brain_player_info(b, i, &p);
		learning += p.role != BRAIN_ROLE_HISTORICAL;
	}
	room = top > learning ? (uint32_t)top - learning : 0;
	/* snapshots newer than the (room)-th newest are kept */
	for (uint32_t i = n, seen = 0; i-- > 0;) {
		struct brain_player p;
		brain_player_info(b, i, &p);
		if (p.role == BRAIN_ROLE_HISTORICAL && seen++ >= room)
			continue;
		if (p.role == BRAIN_ROLE_HISTORICAL || k < top)
			ids[k++] = i;
	}
	lg_reverse_u32(ids, k); /* back to id order */
	return k;
}

/* league payoff --format csv: every pair that met; under measure return
 * (mr) its mean return first, and win_rate is the mean score. */
static void payoff_csv(brain *b, uint32_t n, const double *wr,
		       const double *mr)
{
	printf("player,opponent,%swin_rate,games,wins,draws,losses\n",
	       mr ? "mean_return," : "");
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			struct payoff_entry e;
			payoff_get(brain_payoff(b), i, j, &e);
			if (!(e.games > 0))
				continue;
			printf("%u,%u,", i, j);
			if (mr)
				printf("%.6g,", mr[(size_t)i * n + j]);
			printf("%.6g,%.6g,%.6g,%.6g,%.6g\n",
			       wr[(size_t)i * n + j], e.games, e.wins, e.draws,
			       e.losses);
		}
}

/* league payoff's table. Rows: the player; columns: the opponent. A cell
 * is the row's win rate (under measure return, mr: its mean return) and
 * the decayed games; '.' never met. ids[0..k): the players shown (with
 * --top N: the learning players, then the newest snapshots, N in
 * all). */
static void payoff_table(brain *b, uint32_t n, uint32_t k,
			 const uint32_t *ids, const double *wr,
			 const double *g, const double *mr, double R)
{
	if (mr)
		printf("mean return of row against column (decayed games; "
		       "payoff.measure return, scale %g); '.' = never met", R);
	else
		printf("win rate of row against column (decayed games); '.' "
		       "= never met");
	if (k < n)
		printf("; %u of %u players: the learning ones and the newest "
		       "snapshots", k, n);
	printf("\n%-9s", "");
	for (uint32_t x = 0; x < k; x++)
		printf(" %11u", ids[x]);
	printf("\n");
	for (uint32_t x = 0; x < k; x++) {
		struct brain_player p;
		uint32_t i = ids[x];
		brain_player_info(b, i, &p);
		printf("%4u %-4s", i, short_role[p.role]);
		for (uint32_t y = 0; y < k; y++) {
			size_t c = (size_t)i * n + ids[y];
			if (g[c] > 0)
				printf(" %4.2f(%5.4g)", (mr ? mr : wr)[c], g[c]);
			else
				printf(" %11s", ".");
		}
		printf("\n");
	}
}

static int run_payoff(int argc, char **argv)
{
	struct args a = { .cmd = "payoff", .on = ON_PAYOFF };
	store *s = NULL;
	brain *b = NULL;
	uint32_t n, *ids = NULL;
	double *wr = NULL, *g = NULL, *mr = NULL, R = 0;
	int rc;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	if ((rc = open_ro(a.cmd, a.path, &s, &b)))
		return rc;
	n = brain_count(b);
	ids = all_ids(b);
	wr = malloc((size_t)n * n * sizeof *wr + 1);
	g = malloc((size_t)n * n * sizeof *g + 1);
	if (!ids || !wr || !g) {
		rc = cli_oom(a.cmd);
		goto out;
	}
	payoff_matrix(brain_payoff(b), ids, n, wr, g);
	if (brain_measure(b, &R) != BRAIN_MEASURE_RETURN)
		R = 0;
	if (R && !(mr = malloc((size_t)n * n * sizeof *mr + 1))) {
		fprintf(stderr, "league payoff: %s\n", lg_strerror(LG_ENOMEM));
		rc = CLI_FAIL;
		goto out;
	}
	if (R)
		brain_mean_returns(b, ids, n, g, mr);
	if (a.fmt == FMT_JSON) {
		/* the daemon's /payoff serves the same object */
		lg_buf out = { 0 };
		if (brain_payoff_json(b, ids, n, &out)) {
			lg_buf_free(&out);
			rc = cli_oom(a.cmd);
			goto out;
		}
		printf("%.*s\n", (int)out.len, (const char *)out.data);
		lg_buf_free(&out);
	} else if (a.fmt == FMT_CSV) {
		payoff_csv(b, n, wr, R ? mr : NULL);
	} else {
		payoff_table(b, n, table_players(b, n, a.top, ids), ids, wr,
			     g, R ? mr : NULL, R);
	}
	rc = CLI_OK;
out:
	free(ids);
	free(wr);
	free(mr);
	free(g);
	brain_close(b);
	store_close(s);
	return rc;
}

/* ---- league players ---------------------------------------------------- */

static int run_players(int argc, char **argv)
{
	struct args a = { .cmd = "players", .on = ON_PLAYERS };
	store *s = NULL;
	brain *b = NULL;
	uint32_t n, *ids = NULL;
	double *fit = NULL, gap;
	struct brain_rating *r = NULL;
	struct brain_ratings_opts ro;
	int rc = 0;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	if ((rc = open_ro(a.cmd, a.path, &s, &b)))
		return rc;
	n = brain_count(b);
	ids = all_ids(b);
	fit = malloc((n ? n : 1) * sizeof *fit);
	r = malloc((n ? n : 1) * sizeof *r);
	/* the ladder's rating (Elo fit, or Plackett-Luce for N seats or
	 * teams), without its meta-game (max_nash 0) */
	brain_ratings_opts_default(&ro, 0);
	ro.alpha_rank = 0;
	if (!ids || !fit || !r || (rc = brain_ratings_with(b, &ro, r, &gap))) {
		fprintf(stderr, "league players: %s\n",
			lg_strerror(rc ? rc : LG_ENOMEM));
		rc = CLI_FAIL;
		goto out;
	}
	for (uint32_t k = 0; k < n; k++)
		fit[r[k].id] = r[k].rating;
	if (a.fmt == FMT_TABLE)
		printf("%6s %-17s %4s %6s %6s %12s %8s %8s %8s %-8s\n", "id",
		       "role", "pop", "parent", "prev", "steps", "version",
		       "rating", "elo", "status");
	else
		printf("[");
	for (uint32_t i = 0; i < n; i++) {
		struct brain_player p;
		char parent[16] = "-", prev[16] = "-", rt[32];
		brain_player_info(b, i, &p);
		/* not rated (outside a Plackett-Luce ladder's window) */
		if (isnan(fit[i]))
			snprintf(rt, sizeof rt, "%s",
				 a.fmt == FMT_TABLE ? "-" : "null");
		else
			snprintf(rt, sizeof rt, a.fmt == FMT_TABLE ? "%.1f" :
				 "%.3f", fit[i]);
		if (p.parent != BRAIN_NONE)
			snprintf(parent, sizeof parent, "%u", p.parent);
		if (p.prev != BRAIN_NONE)
			snprintf(prev, sizeof prev, "%u", p.prev);
		if (a.fmt == FMT_TABLE) {
			printf("%6u %-17s %4u %6s %6s %12llu %8u %8s %8.1f "
			       "%-8s", i, brain_role_name(p.role), p.pop,
			       parent, prev,
			       (unsigned long long)p.steps, p.version, rt,
			       payoff_elo(brain_payoff(b), i), status_name(&p));
			if (p.role != BRAIN_ROLE_HISTORICAL)
				printf(" snapshots=%u resets=%u", p.snapshots,
				       p.resets);
			printf("\n");
			continue;
		}
		printf("%s{\"id\":%u,\"role\":\"%s\",\"pop\":%u,"
		       "\"parent\":%s,"
		       "\"prev\":%s,\"steps\":%llu,\"version\":%u,"
		       "\"rating\":%s,\"elo\":%.3f,\"status\":\"%s\","
		       "\"snapshots\":%u,\"resets\":%u}",
		       i ? ",\n " : "", i, brain_role_name(p.role), p.pop,
		       p.parent == BRAIN_NONE ? "null" : parent,
		       p.prev == BRAIN_NONE ? "null" : prev,
		       (unsigned long long)p.steps, p.version, rt,
		       payoff_elo(brain_payoff(b), i), status_name(&p),
		       p.snapshots, p.resets);
	}
	if (a.fmt == FMT_JSON)
		printf("]\n");
	rc = CLI_OK;
out:
	free(ids);
	free(fit);
	free(r);
	brain_close(b);
	store_close(s);
	return rc;
}

/* ---- league ratings ---------------------------------------------------- */

/* The meta-Nash is a dense LP: beyond this many players it is not a
 * glance. */
#define RATINGS_NASH_MAX 1024

/* The table's line saying what alpha_rank is. */
static void alpharank_note(const struct args *a, int computed)
{
	if (!computed) {
		printf("alpha-rank: not computed (over %u players)\n",
		       RATINGS_NASH_MAX);
		return;
	}
	printf("alpha-rank: share of time evolution spends on the player "
	       "(alpha-Rank, alpha %g, population %u)\n", a->ar.alpha,
	       a->ar.population);
}

/* What the table's rating and nash columns are. */
static void ratings_note(const struct brain_ladder_info *in)
{
	if (in->pl)
		printf("rating: Plackett-Luce fit of the newest %llu episodes "
		       "as ranked games of their teams (1 virtual draw "
		       "prior), mean 0 over the players in them; - not in "
		       "them\n", (unsigned long long)in->episodes);
	else
		printf("rating: maximum-likelihood Elo over the decayed "
		       "matrix (1 virtual draw prior), mean 0\n");
	printf("pop: the player's population (seat role); elo: online Elo "
	       "(K from the config)\n");
	if (in->meta == BRAIN_META_BIMATRIX)
		printf("nash: each role's weight in the meta-Nash of the two "
		       "roles' bimatrix (eps %.3g)\n", in->gap);
	else if (in->meta == BRAIN_META_ZEROSUM)
		printf("nash: meta-Nash weight\n");
	else
		printf("nash: meta-Nash weight (not computed: over %u players, "
		       "or more than two populations)\n", RATINGS_NASH_MAX);
}

static int run_ratings(int argc, char **argv)
{
	struct args a = { .cmd = "ratings", .on = ON_RATINGS };
	struct brain_ratings_opts ro;
	store *s = NULL;
	brain *b = NULL;
	struct brain_rating *r = NULL;
	lg_buf out = { 0 };
	uint32_t n;
	struct brain_ladder_info info;
	int rc;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	if ((rc = open_ro(a.cmd, a.path, &s, &b)))
		return rc;
	n = brain_count(b);
	brain_ratings_opts_default(&ro, RATINGS_NASH_MAX);
	ro.alpha_rank = a.alpha_rank;
	ro.ar = a.ar;
	if (a.fmt != FMT_TABLE) {
		rc = brain_ratings_json_with(b, &ro, &out);
		if (!rc)
			printf("%.*s\n", (int)out.len, (const char *)out.data);
	} else if (!(r = malloc((n ? n : 1) * sizeof *r))) {
		rc = LG_ENOMEM;
	} else if (!(rc = brain_ratings_info(b, &ro, r, &info))) {
		ratings_note(&info);
		if (a.alpha_rank)
			alpharank_note(&a, info.meta != BRAIN_META_NONE ||
					   !n || !isnan(r[0].alpha_rank));
		printf("%6s %-17s %4s %9s %9s %10s %8s", "id", "role", "pop",
		       "rating", "elo", "games", "nash");
		printf(a.alpha_rank ? " %11s\n" : "\n", "alpha-rank");
		for (uint32_t k = 0; k < n; k++) {
			char rt[32] = "-";
			if (!isnan(r[k].rating))
				snprintf(rt, sizeof rt, "%.1f", r[k].rating);
			printf("%6u %-17s %4u %9s %9.1f %10.4g %8.4f", r[k].id,
			       brain_role_name(r[k].role), r[k].pop, rt,
			       r[k].elo, r[k].games, r[k].nash);
			printf(a.alpha_rank ? " %11.4g\n" : "\n",
			       r[k].alpha_rank);
		}
	}
	if (rc)
		fprintf(stderr, "league ratings: %s\n", lg_strerror(rc));
	free(r);
	lg_buf_free(&out);
	brain_close(b);
	store_close(s);
	return rc ? CLI_FAIL : CLI_OK;
}

/* ---- league sim -------------------------------------------------------- */

static int run_sim(int argc, char **argv)
{
	struct args a = { .cmd = "sim", .on = ON_SIM };
	struct cfg *c = NULL;
	struct brain_opts o;
	struct brain_sim_opts so;
	struct brain_sim_stats *st = NULL;
	struct store_opts sto = { 0, 0, 0 };
	store *s = NULL;
	brain *b = NULL;
	char err[512];
	double t0;
	int rc;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	c = malloc(sizeof *c);
	st = malloc(sizeof *st);
	if (!c || !st) {
		rc = CLI_FAIL;
		goto out;
	}
	if (cfg_load_file(c, a.path, err, sizeof err)) {
		fprintf(stderr, "league sim: %s\n", err);
		rc = CLI_USAGE;
		goto out;
	}
	league_brain_opts(c, &o);
	o.batch = 256;
	if (brain_opts_check(&o, err, sizeof err)) {
		fprintf(stderr, "league sim: %s: %s\n", a.path, err);
		rc = CLI_USAGE;
		goto out;
	}
	if (!a.dir)
		a.dir = c->league.dir;
	if ((rc = store_open(&s, a.dir, &sto, err, sizeof err))) {
		fprintf(stderr, "league sim: %s\n", err);
		rc = CLI_FAIL;
		goto out;
	}
	if ((rc = brain_open(&b, s, &o, err, sizeof err))) {
		fprintf(stderr, "league sim: %s: %s\n", a.dir,
			err[0] ? err : lg_strerror(rc));
		rc = CLI_FAIL;
		goto out;
	}
	brain_sim_opts_default(&so);
	so.jobs = a.jobs;
	so.seed = a.seed_set ? a.seed : c->league.seed;
	so.drift = a.drift;
	/* one snapshot interval over about 20 jobs of a learner */
	so.steps_per_job = o.snapshot_steps / 20 ? o.snapshot_steps / 20 : 1;
	t0 = lg_now_s();
	rc = brain_sim_run(b, &so, st);
	if (!rc)
		rc = brain_flush(b);
	if (rc) {
		fprintf(stderr, "league sim: %s\n", lg_strerror(rc));
		rc = CLI_FAIL;
		goto out;
	}
	printf("simulated %llu jobs (%llu episodes) in %.2f s: %llu "
	       "snapshots, %llu resets, %llu retired, %u players and "
	       "snapshots in %s\n",
	       (unsigned long long)st->jobs,
	       (unsigned long long)st->episodes, lg_now_s() - t0,
	       (unsigned long long)st->snapshots,
	       (unsigned long long)st->resets,
	       (unsigned long long)st->retired, brain_count(b), a.dir);
	printf("%6s %-17s %6s %10s  %s\n", "id", "role", "jobs", "vs-harder",
	       "jobs by kind");
	for (uint32_t i = 0; i < st->nlearners; i++) {
		const struct brain_sim_learner *l = &st->l[i];
		struct brain_player p;
		brain_player_info(b, l->id, &p);
		printf("%6u %-17s %6llu %10.3f ", l->id,
		       brain_role_name(p.role), (unsigned long long)l->jobs,
		       l->jobs ? (double)l->hard_jobs / l->jobs : 0.0);
		for (int k = 0; k < BRAIN_JOB__COUNT; k++)
			if (l->kinds[k])
				printf(" %s=%llu", brain_kind_name(k),
				       (unsigned long long)l->kinds[k]);
		printf("\n");
	}
	rc = CLI_OK;
out:
	if (b && brain_close(b) && rc == CLI_OK)
		rc = CLI_FAIL;
	store_close(s);
	free(c);
	free(st);
	return rc;
}

const struct cli_cmd cli_cmd_payoff = {
	.name = "payoff",
	.summary = "show a league's payoff matrix (read-only)",
	.help =
	"usage: league payoff DIR [--format table|csv|json] [--top N]\n\n"
	"The win rate of every player and snapshot (rows) against every other\n"
	"(columns), with the decayed number of games, read from the league in\n"
	"DIR without disturbing a running daemon. csv: one line per pair that\n"
	"met (player,opponent,win_rate,games,wins,draws,losses). json: one\n"
	"object {\"players\": ids, \"measure\": \"win\", \"win_rate\": rows\n"
	"(null: never met), \"games\": rows}; under payoff.measure return also\n"
	"\"return_scale\" and \"mean_return\" rows (csv: a mean_return column).\n"
	"--top N (table only): at most N players, the learning ones and then\n"
	"the newest snapshots (`league run` prints 12).\n",
	.run = run_payoff,
};

const struct cli_cmd cli_cmd_players = {
	.name = "players",
	.summary = "list a league's players and snapshots (read-only)",
	.help =
	"usage: league players DIR [--format table|json]\n\n"
	"Every player and snapshot: id, role, parent (the player a snapshot\n"
	"froze), prev (that player's previous snapshot), agent steps, params\n"
	"version, rating (maximum-likelihood Elo), online elo and status\n"
	"(learning, frozen, retired).\n",
	.run = run_players,
};

const struct cli_cmd cli_cmd_ratings = {
	.name = "ratings",
	.summary = "rank a league's players by rating (read-only)",
	.help =
	"usage: league ratings DIR [--format table|json] [--json]\n"
	"                      [--alpha-rank [--alpha A] [--population M]]\n\n"
	"Players and snapshots by maximum-likelihood Elo (fitted to the whole\n"
	"decayed payoff matrix, so repeated games count right), with the\n"
	"online Elo, rated games and the meta-Nash weight of the matrix\n"
	"(exact LP, up to 1024 players). --json is --format json.\n\n"
	"--alpha-rank adds each player's alpha-Rank score (up to 1024\n"
	"players): the stationary share of an evolutionary process over the\n"
	"win-rate matrix where a population of M agents playing one player's\n"
	"strategy is taken over by a mutant with a probability that grows\n"
	"with its win rate, selection intensity A. Cycles share the mass;\n"
	"a player that beats everyone takes it all. --alpha A: a number >= 0\n"
	"or inf (the limit; default 100); --population M: 2 to 100000\n"
	"(default 50); either implies --alpha-rank. JSON: \"alpha_rank\" per\n"
	"player and {\"alpha\":A,\"population\":M} at the top.\n",
	.run = run_ratings,
};

const struct cli_cmd cli_cmd_sim = {
	.name = "sim",
	.summary = "play a simulated league (no networks) into DIR",
	.help =
	"usage: league sim CONFIG [--dir DIR] [--jobs N] [--seed S] [--drift]\n"
	"\n"
	"Creates (or continues) the league of CONFIG in DIR (default: the\n"
	"config's league.dir) and plays N jobs (default 1000) with players of\n"
	"fixed strength on a rock-paper-scissors cycle of types, through the\n"
	"real matchmaking, payoff and snapshot code; a snapshot comes about\n"
	"every 20 jobs of a learner. --drift: each snapshot moves its learner\n"
	"one type on. Prints per learner the share of jobs against opponents\n"
	"it loses to. Inspect the result with league payoff/players/ratings.\n",
	.run = run_sim,
};
