/*
 * eval/brleague.c: `league eval br`'s opponent picked from a league's
 * brain and its report printed (eval/brleague.h). The mixture is the one
 * the daemon hands the evaluator, so the two exploit the same opponent.
 */
#include "eval/brleague.h"
#include "payoff/payoff.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int eval_br_player(brain *b, const char *dir, unsigned long long player,
		   unsigned long long version, struct eval_br_opponent *op,
		   char *err, size_t errlen)
{
	struct brain_player bp;
	uint32_t from, v;

	if (brain_player_info(b, (uint32_t)player, &bp)) {
		lg_errf(err, errlen, "%s has no player %llu (%u players and "
			"snapshots)", dir, player, brain_count(b));
		return LG_EINVAL;
	}
	from = bp.role == BRAIN_ROLE_HISTORICAL ? bp.parent : bp.id;
	v = bp.role == BRAIN_ROLE_HISTORICAL ? bp.version
	    : version == ULLONG_MAX	     ? UINT32_MAX
					     : (uint32_t)version;
	if (bp.role == BRAIN_ROLE_HISTORICAL && version != ULLONG_MAX &&
	    version != bp.version) {
		lg_errf(err, errlen, "player %llu is a snapshot of player %u's "
			"version %u; --version must be that or absent", player,
			bp.parent, bp.version);
		return LG_EINVAL;
	}
	op->w[0] = 1;
	op->id[0] = bp.id;
	op->player[0] = from;
	op->version[0] = v;
	op->k = 1;
	return 0;
}

int eval_br_mixture(brain *b, const char *dir, struct eval_br_opponent *op,
		    int *usage, char *err, size_t errlen)
{
	uint32_t ids[BRAIN_NASH_MAX], n;
	double *x = NULL, sum = 0;
	int rc;

	*usage = 0;
	op->mixture = 1;
	if (!(n = brain_newest_snapshots(b, BRAIN_NASH_MAX, ids))) {
		lg_errf(err, errlen, "%s has no snapshots yet: no mixture to "
			"exploit", dir);
		*usage = 1;
		return LG_ENOTFOUND;
	}
	if (!(x = malloc(sizeof(*x) * n))) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	/* the league's meta-Nash, as matchmaking and the evaluator see it */
	if ((rc = payoff_meta_nash(brain_payoff(b), ids, n, x, NULL))) {
		lg_errf(err, errlen, "the meta-Nash: %s", lg_strerror(rc));
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		sum += x[i] > PAYOFF_SUPPORT_MIN ? x[i] : 0;
	op->snapshots = n;
	for (uint32_t i = 0; i < n && sum > 0; i++) {
		struct brain_player p;
		if (x[i] <= PAYOFF_SUPPORT_MIN ||
		    brain_player_info(b, ids[i], &p))
			continue;
		op->w[op->k] = x[i] / sum;
		op->id[op->k] = ids[i];
		op->player[op->k] = p.parent;
		op->version[op->k] = p.version;
		op->k++;
	}
	rc = op->k ? 0 : LG_ENOTFOUND;
	if (!op->k)
		lg_errf(err, errlen, "the meta-Nash has no weight");
out:
	free(x);
	return rc;
}

/* A number as JSON: null when not finite. */
static void jnum(FILE *out, const char *key, double v, const char *sep)
{
	if (isfinite(v))
		fprintf(out, "\"%s\":%.9g%s", key, v, sep);
	else
		fprintf(out, "\"%s\":null%s", key, sep);
}

/* A pair of numbers as a JSON array, each null when not finite. */
static void jpair(FILE *out, const char *key, const double v[2],
		  const char *sep)
{
	fprintf(out, "\"%s\":[", key);
	for (int s = 0; s < 2; s++) {
		if (isfinite(v[s]))
			fprintf(out, "%.9g", v[s]);
		else
			fprintf(out, "null");
		fprintf(out, "%s", s ? "]" : ",");
	}
	fprintf(out, "%s", sep);
}

/* A point's estimate as JSON fields, each followed by a comma: the best
 * response's value and interval by seat, the opponent's value, the
 * NashConv estimate (named key) and its interval. */
static void jestimate(FILE *out, const struct league_br_point *p,
		      const char *key)
{
	jpair(out, "br_value", p->br_value, ",");
	jpair(out, "br_ci95", p->br_ci, ",");
	jnum(out, "value", p->value, ",");
	jnum(out, key, p->nashconv, ",");
	jnum(out, "ci95", p->nashconv_ci, ",");
}

void eval_br_on_point(void *ctx, const struct league_br_point *p)
{
	struct eval_br_printer *pr = ctx;
	FILE *f = pr->out;

	if (pr->json) {
		fprintf(f, "{\"point\":%u,\"final\":%s,\"seconds\":%.3f,"
		           "\"env_steps\":%llu,\"rows\":%llu,\"updates\":%llu,"
		           "\"episodes\":[%llu,%llu],\"abnormal\":%llu,",
		           p->index, p->final ? "true" : "false", p->seconds,
		           (unsigned long long)p->env_steps,
		           (unsigned long long)p->rows,
		           (unsigned long long)p->updates,
		           (unsigned long long)p->episodes[0],
		           (unsigned long long)p->episodes[1],
		           (unsigned long long)p->abnormal);
		jestimate(pr->out, p, "nashconv");
		jnum(pr->out, "ci_low", p->nashconv - p->nashconv_ci, ",");
		jnum(pr->out, "ci_high", p->nashconv + p->nashconv_ci, ",");
		fprintf(f, "\"eval_seconds\":%.3f}\n", p->eval_seconds);
		fflush(pr->out);
		return;
	}
	if (pr->csv) {
		if (!pr->header)
			fprintf(f, "seconds,env_steps,rows,updates,br_seat0,"
			           "br_seat1,nashconv,ci95,ci_low,ci_high,"
			           "exact_nashconv,episodes,eval_seconds\n");
		pr->header = 1;
		fprintf(f, "%.3f,%llu,%llu,%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,",
		           p->seconds, (unsigned long long)p->env_steps,
		           (unsigned long long)p->rows,
		           (unsigned long long)p->updates, p->br_value[0],
		           p->br_value[1], p->nashconv, p->nashconv_ci,
		           p->nashconv - p->nashconv_ci,
		           p->nashconv + p->nashconv_ci);
		if (isfinite(pr->exact))
			fprintf(f, "%.9g", pr->exact);
		fprintf(f, ",%llu,%.3f\n",
		           (unsigned long long)(p->episodes[0] + p->episodes[1]),
		           p->eval_seconds);
		fflush(pr->out);
		return;
	}
	if (!pr->header) {
		fprintf(f, "%9s %12s %8s %10s %10s %10s %10s %10s %9s\n",
		           "seconds", "env_steps", "updates", "br_seat0",
		           "br_seat1", "nashconv", "ci_low", "ci_high",
		           "episodes");
		pr->header = 1;
	}
	fprintf(f, "%9.1f %12llu %8llu %10.4f %10.4f %10.4f %10.4f %10.4f %9llu\n",
	           p->seconds, (unsigned long long)p->env_steps,
	           (unsigned long long)p->updates, p->br_value[0],
	           p->br_value[1], p->nashconv, p->nashconv - p->nashconv_ci,
	           p->nashconv + p->nashconv_ci,
	           (unsigned long long)(p->episodes[0] + p->episodes[1]));
	fflush(pr->out);
}

/* Who is exploited, as the table's first line or JSON fields. */
static void describe(const struct eval_br_printer *pr,
		     const struct eval_br_opponent *op, int json)
{
	FILE *f = pr->out;
	if (json && !op->mixture) {
		fprintf(f, "\"player\":%u,\"params_player\":%u,\"version\":%u,",
		           op->id[0], op->player[0], op->version[0]);
		return;
	}
	if (json) {
		fprintf(f, "\"player\":\"nash\",\"snapshots\":%u,\"mixture\":[",
		           op->snapshots);
		for (size_t j = 0; j < op->k; j++)
			fprintf(f, "%s{\"id\":%u,\"player\":%u,\"version\":%u,"
			           "\"weight\":%.9g}", j ? "," : "", op->id[j],
			           op->player[j], op->version[j], op->w[j]);
		fprintf(f, "],");
		return;
	}
	if (!op->mixture) {
		fprintf(f, "opponent     player %u (parameters %u, version %u)\n",
		           op->id[0], op->player[0], op->version[0]);
		return;
	}
	fprintf(f, "opponent     the meta-Nash mixture of the newest %u "
	           "snapshots:", op->snapshots);
	for (size_t j = 0; j < op->k; j++)
		fprintf(f, " %u (%u/v%u) %.3f", op->id[j], op->player[j],
		           op->version[j], op->w[j]);
	fprintf(f, "\n");
}

void eval_br_intro(const struct eval_br_printer *pr,
		   const struct league_br_opts *o,
		   const struct eval_br_opponent *op, const char *game,
		   int have_exact, const struct env_nashconv *nc)
{
	FILE *f = pr->out;
	if (pr->json || pr->csv)
		return;
	fprintf(f, "game         %s; best responder: the league's model "
		    "and learner, %s evaluation\n", game,
		    o->sample ? "sampled" : "greedy");
	describe(pr, op, 0);
	fprintf(f, "budget       %.1f s of training", o->budget_s);
	if (o->budget_steps)
		fprintf(f, " or %llu env steps, whichever ends first",
			    (unsigned long long)o->budget_steps);
	fprintf(f, "; %u evaluations of %llu episodes (%llu at the "
		    "end)\n", o->points + 1, (unsigned long long)o->episodes,
		    (unsigned long long)o->final_episodes);
	if (have_exact)
		fprintf(f, "exact        NashConv %.6f (best response "
			    "%.4f and %.4f by seat)\n", nc->nashconv,
			    nc->br_value[0], nc->br_value[1]);
	fflush(pr->out);
}

void eval_br_summary(const struct eval_br_printer *pr,
		     const struct league_br_opts *o,
		     const struct eval_br_opponent *op, const char *game,
		     const struct league_br_point *p, int have_exact,
		     const struct env_nashconv *nc)
{
	FILE *f = pr->out;
	double nan2[2] = { NAN, NAN };

	if (pr->csv)
		return;
	if (pr->json) {
		fprintf(f, "{\"summary\":true,\"game\":\"%s\",", game);
		describe(pr, op, 1);
		fprintf(f, "\"budget_s\":%.9g,\"budget_steps\":%llu,"
		           "\"greedy\":%s,\"episodes\":%llu,"
		           "\"final_episodes\":%llu,\"seed\":%llu,"
		           "\"seconds\":%.3f,\"env_steps\":%llu,"
		           "\"updates\":%llu,",
		           o->budget_s, (unsigned long long)o->budget_steps,
		           o->sample ? "false" : "true",
		           (unsigned long long)o->episodes,
		           (unsigned long long)o->final_episodes,
		           (unsigned long long)o->seed, p->seconds,
		           (unsigned long long)p->env_steps,
		           (unsigned long long)p->updates);
		jestimate(pr->out, p, "nashconv_estimate");
		jnum(pr->out, "exact_nashconv",
		     have_exact ? nc->nashconv : NAN, ",");
		jpair(pr->out, "exact_br_value",
		      have_exact ? nc->br_value : nan2, ",");
		fprintf(f, "\"points\":%llu}\n",
			    (unsigned long long)o->points + 1);
		return;
	}
	fprintf(f, "estimate     NashConv %.4f +- %.4f (95%%; best response "
	           "%.4f and %.4f by seat)", p->nashconv, p->nashconv_ci,
	           p->br_value[0], p->br_value[1]);
	if (have_exact)
		fprintf(f, ", exact %.4f", nc->nashconv);
	fprintf(f, "\n");
}

