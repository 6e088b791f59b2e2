/*
 * league/kind_baseline_eval.c: main players evaluated against the fixed
 * baselines of eval.baselines (eval/evalrec.h has the records and the
 * rules). With eval.share > 0, every training job queued pays for that
 * share of episodes (share / (1 - share) per training episode), spent
 * here.
 *
 * One version is evaluated at a time: the newest version of the next main
 * player (round robin) plays eval.games games against every baseline from
 * each seat, in jobs of at most LEAGUE_BGAME_JOB_EPISODES episodes laid
 * out as a plan (a job's tag is its place in the plan). In a game of
 * more than two seats it plays from seats 0 and 1 (a row's two columns),
 * the baseline in every other seat but its teammates' (copies of it;
 * daemon_seats_fill). The next version
 * is taken once every job of the plan has reported. The version stays
 * pinned in the parameter window while it is evaluated. Its rows (one per
 * baseline) are kept in memory and put whole into the batch with each
 * result, so a row on disk is always the sum of the results committed.
 * Nothing learns here and nothing touches the payoff matrix.
 */
#include "league/daemon_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/evalrec.h"

/* An evaluation job is a job like any other to the arrays sized by the
 * episode cap. */
_Static_assert(LEAGUE_BGAME_JOB_EPISODES <= LEAGUE_JOB_EPISODES_MAX,
	       "evaluation jobs fit the job episode cap");

/* One job of the version being evaluated. */
struct plan_entry {
	uint32_t base;               /* index into the kind's baselines */
	uint8_t seat;                /* the evaluated player's seat */
	uint32_t episodes;
	int done;                    /* reported (or given up) */
};

struct baseline_eval {
	uint8_t base[CFG_BASELINES_MAX]; /* daemon baseline index + 1 */
	size_t nbase;
	double ratio;                /* eval episodes per training episode */
	double credit;               /* eval episodes owed */
	uint32_t rr;                 /* round robin over main players */
	uint32_t *last;              /* per player: newest version evaluated
					(+1; 0: none), from the rows on disk */
	uint32_t nlast;
	int have;                    /* a version is being evaluated */
	uint32_t player, version;
	struct league_bgame_row rows[CFG_BASELINES_MAX]; /* its totals */
	struct plan_entry *plan;     /* baselines x seats x parts */
	size_t nplan, issued, done;
	uint64_t games, steps;       /* recorded this run */
};

/* After the learners and parameters are loaded: the newest version of
 * each player evaluated before (never evaluated twice, also across
 * restarts), and the version a previous run was evaluating when it
 * stopped, which is released now if the window has passed it. */
static int load_rows(league_daemon *d, struct baseline_eval *g)
{
	struct league_bgame_row *rows = NULL;
	store_txn *t;
	size_t n = 0;
	int rc;

	if (!(g->last = calloc(d->nlearners ? d->nlearners : 1,
			       sizeof *g->last)))
		return LG_ENOMEM;
	g->nlast = d->nlearners;
	if ((rc = store_txn_begin(d->st, STORE_TXN_READ, &t)))
		return rc;
	rc = league_bgame_list(t, &rows, &n);
	store_txn_abort(t);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		if (rows[i].player < g->nlast &&
		    rows[i].version + 1 > g->last[rows[i].player])
			g->last[rows[i].player] = rows[i].version + 1;
	free(rows);
	for (uint32_t p = 0; p < g->nlast && !rc; p++)
		if (g->last[p])
			rc = daemon_params_release(d, p, g->last[p] - 1);
	return rc;
}

static int init(league_daemon *d, void **state, char *err, size_t errlen)
{
	char names[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	struct baseline_eval *g;
	double share = d->cfg.eval.share;
	int rc;

	if (!(share > 0))
		return 0;
	if (!(g = calloc(1, sizeof *g)))
		return LG_ENOMEM;
	*state = g;
	if (cfg_eval_baselines(&d->cfg, names, &g->nbase, err, errlen))
		return LG_ECONFIG;
	for (size_t i = 0; i < g->nbase; i++)
		g->base[i] = daemon_baseline_index(d, names[i]);
	g->ratio = share / (1 - share);
	if ((rc = load_rows(d, g)))
		lg_errf(err, errlen, "%s: cannot load the evaluation rows: %s",
			d->dir, lg_strerror(rc));
	return rc;
}

static void fini(league_daemon *d, void *state)
{
	struct baseline_eval *g = state;

	if (!g)
		return;
	free(g->plan);
	free(g->last);
	free(g);
}

static const char *base_name(const league_daemon *d,
			     const struct baseline_eval *g, uint32_t b)
{
	return d->baselines[g->base[b] - 1];
}

/* The evaluated version is no longer pinned: drop it if the window has
 * moved past it. */
static void unpin(league_daemon *d, struct baseline_eval *g)
{
	int rc;

	if (!g->have)
		return;
	g->have = 0;
	if ((rc = daemon_params_release(d, g->player, g->version)))
		daemon_fail(d, rc, "evaluation: dropping an old version");
}

/* The next main player (round robin) with a version not yet evaluated, or
 * BRAIN_NONE. */
static uint32_t next_player(league_daemon *d, const struct baseline_eval *g)
{
	for (uint32_t k = 0; k < d->nlearners; k++) {
		uint32_t i = (g->rr + k) % d->nlearners;
		const struct learner *l = &d->learners[i];
		struct brain_player p;
		if (l->is_learner && l->has_params &&
		    !brain_player_info(d->br, i, &p) &&
		    p.role == BRAIN_ROLE_MAIN &&
		    !(i < g->nlast && g->last[i] == l->newest + 1))
			return i;
	}
	return BRAIN_NONE;
}

/* Choose the next version to evaluate and lay out its plan. 0 when none
 * can be evaluated now (no main player with parameters, or the newest
 * version was the last one evaluated). */
static int pick(league_daemon *d, struct baseline_eval *g)
{
	uint32_t games = (uint32_t)d->cfg.eval.games;
	uint32_t per = LEAGUE_BGAME_JOB_EPISODES, mp = next_player(d, g);

	if (mp == BRAIN_NONE)
		return 0;
	unpin(d, g);
	size_t parts = (games + per - 1) / per;
	size_t n = g->nbase * 2 * parts;
	struct plan_entry *plan = realloc(g->plan, n * sizeof *plan);
	if (!plan)
		return 0;
	g->plan = plan;
	g->nplan = g->issued = g->done = 0;
	/* Interleave baselines and seats, so a partial evaluation (cut
	 * short by the budget) still covers both seats of every one. */
	for (size_t k = 0; k < parts; k++)
		for (size_t b = 0; b < g->nbase; b++)
			for (int seat = 0; seat < 2; seat++)
				if (daemon_seat_fits(d, mp, seat))
				plan[g->nplan++] = (struct plan_entry){
					.base = (uint32_t)b,
					.seat = (uint8_t)seat,
					.episodes = LG_MIN(games -
						(uint32_t)k * per, per),
				};
	g->rr = mp + 1;
	g->have = 1;
	g->player = mp;
	g->version = d->learners[mp].newest;
	if (mp < g->nlast)
		g->last[mp] = g->version + 1;
	for (size_t b = 0; b < g->nbase; b++) {
		struct league_bgame_row *r = &g->rows[b];
		memset(r, 0, sizeof *r);
		r->player = mp;
		r->version = g->version;
		snprintf(r->baseline, sizeof r->baseline, "%s",
			 base_name(d, g, (uint32_t)b));
		r->env_steps = d->env_steps;
		r->seconds = daemon_run_seconds(d);
	}
	return 1;
}

static int queue(league_daemon *d, struct baseline_eval *g, size_t i)
{
	const struct plan_entry *e = &g->plan[i];
	struct league_job j = {
		.id = daemon_job_id(d),
		.kind = &league_kind_baseline_eval,
		.tag = (uint32_t)i,
		.episodes = e->episodes,
		/* The lease covers a training job's episodes; these are
		 * longer. */
		.lease_s = d->cfg.matchmaking.job_lease_s *
			   LG_MAX(1.0, (double)e->episodes /
					       (double)d->cfg.matchmaking
						       .job_episodes),
		.evaluation = 1,
	};
	struct league_seat mine = {
		.player = g->player, .version = g->version,
		.greedy = (uint8_t)d->cfg.eval.greedy };
	struct league_seat base = {
		.player = g->player, .baseline = g->base[e->base] };

	daemon_seats_fill(d, &j, e->seat, &mine, &base);
	return daemon_queue_job(d, &j);
}

/* Queue the evaluation jobs the training episodes queued so far have
 * paid for. */
static void make(league_daemon *d, void *state, size_t want)
{
	struct baseline_eval *g = state;

	if (!g)
		return;
	for (;;) {
		if (g->issued == g->nplan &&
		    (g->done < g->nplan || !pick(d, g)))
			break;
		struct plan_entry *e = &g->plan[g->issued];
		if (g->credit < e->episodes)
			break;
		if (queue(d, g, g->issued)) {
			e->done = 1; /* skip it */
			g->done++;
		}
		g->credit -= e->episodes;
		g->issued++;
	}
	/* Credit left over while nothing could be evaluated (no new
	 * version, results outstanding) would come out as a burst later:
	 * keep at most two jobs' worth. */
	g->credit = LG_MIN(g->credit, 2.0 * LEAGUE_BGAME_JOB_EPISODES);
}

/* Every training job pays for its share. */
static void queued(league_daemon *d, void *state, const struct league_job *j)
{
	struct baseline_eval *g = state;

	if (g && j->kind->counts)
		g->credit += g->ratio * j->episodes;
}

/* The plan entry of j, or NULL when j belongs to a version given up. */
static struct plan_entry *entry_of(struct baseline_eval *g,
				   const struct league_job *j)
{
	if (!g->have || j->tag >= g->issued ||
	    j->seat[j->subject].player != g->player ||
	    j->seat[j->subject].version != g->version ||
	    g->plan[j->tag].done)
		return NULL;
	return &g->plan[j->tag];
}

static int result(league_daemon *d, void *state, const struct league_job *j,
		  const struct league_tally *t)
{
	struct baseline_eval *g = state;
	struct plan_entry *e = entry_of(g, j);
	uint8_t k[LEAGUE_BGAME_KEY_MAX], v[LEAGUE_BGAME_REC_BYTES];
	uint64_t w = 0, dr = 0, l = 0;
	int s = j->subject, rc;

	if (!e)
		return KIND_IGNORED;
	for (size_t i = 0; i < t->n; i++) {
		w += t->outcomes[i] == 1;
		dr += t->outcomes[i] == 0;
		l += t->outcomes[i] == -1;
	}
	if (t->n) {
		struct league_bgame_row *r = &g->rows[e->base];
		r->games[s] += t->n;
		r->wins[s] += w;
		r->draws[s] += dr;
		r->losses[s] += l;
		size_t kl = league_bgame_key(r->player, r->version,
					     r->baseline, k);
		league_bgame_encode(r, v);
		if ((rc = store_batch_put(&d->wb, STORE_DB_EVAL, k, kl, v,
					  sizeof v)))
			return rc;
	}
	e->done = 1;
	g->done++;
	g->games += t->n;
	g->steps += t->steps;
	if (g->done == g->nplan)
		LG_INFO("daemon: player %u version %u evaluated against %zu "
			"baseline(s)", g->player, g->version, g->nbase);
	return KIND_COUNTED;
}

static void drop(league_daemon *d, void *state, const struct league_job *j)
{
	struct baseline_eval *g = state;
	struct plan_entry *e = entry_of(g, j);

	if (e) {
		e->done = 1;
		g->done++;
	}
}

static int pins(const league_daemon *d, const void *state, uint32_t player,
		uint32_t version)
{
	const struct baseline_eval *g = state;

	return g && g->have && g->player == player && g->version == version;
}

static void status(const league_daemon *d, const void *state, lg_buf *b)
{
	const struct baseline_eval *g = state;

	if (!g)
		return;
	if (!g->have) {
		lg_buf_printf(b, "\"baseline_games\": %llu, "
			      "\"baseline_eval\": null, ",
			      (unsigned long long)g->games);
		return;
	}
	lg_buf_printf(b, "\"baseline_games\": %llu, "
		      "\"baseline_eval\": {\"player\": %u, \"version\": %u, "
		      "\"jobs\": %zu, \"jobs_done\": %zu}, ",
		      (unsigned long long)g->games, g->player, g->version,
		      g->nplan, g->done);
}

const struct league_kind league_kind_baseline_eval = {
	.name = "baseline_eval",
	.counts = 0,
	.init = init,
	.fini = fini,
	.make = make,
	.queued = queued,
	.result = result,
	.drop = drop,
	.pins = pins,
	.status = status,
};
