/*
 * players/ladder.c: the rating of a league of N seats or teams
 * (brain_ladder_pl): a Plackett-Luce fit (payoff_pl_fit) of its newest
 * episodes as ranked games of their teams, read back from the decision
 * log and the stored results, cached by the log's position.
 *
 * Which games count: the newest BRAIN_LADDER_EPISODES episodes of
 * N-seat results (log type returns), each once at weight 1, walking the
 * log back from the brain's position. Why a window and not the payoff
 * table's decay: the table decays per pair (a pair forgets a game after
 * about 1 / (1 - decay) newer games of the same pair), which has no
 * meaning for a game of N agents; a window is one rule for any game,
 * keeps each counted game a real one (so the fit's standard errors are
 * those of the games it saw), forgets a learner's old, weaker play as
 * the table's decay does, and bounds the fit's cost whatever the
 * league's age. A job's episodes with the same order are one game of
 * their count's weight. The walk also stops before a job whose agents
 * would take the fit past BRAIN_LADDER_AGENTS (its Newton step is dense
 * in the agents), so the cost is at most a few hundred log records and
 * a fit of 512 agents, and only when the log moved (the cache).
 *
 * An episode's order: each team's score is the mean of its seats'
 * returns; teams are ranked by score, higher first, equal scores tied
 * (payoff_pl_rank). A learner's results moved to its snapshot when it
 * was reset (the payoff table's payoff_move) are moved here too: walking
 * back, a reset of P to snapshot S sends P's older games to S.
 *
 * Which leagues: those whose newest counted result is an episode of
 * more than two seats or with a team of several seats. A league of two
 * single seats (its newest result a two-seat one) keeps the Elo fit of
 * the payoff table, as does a league without a decision log.
 */
#include "players/brain_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ladder_cache {
	uint64_t key;     /* the newest log key seen + 1 (0: none) */
	uint32_t count;   /* brain_count when it was fitted */
	int pl;           /* Plackett-Luce (else the Elo fit applies) */
	double *rating, *se; /* count each; NaN: not in the window */
	uint64_t episodes; /* episodes counted */
};

/* The games gathered while walking the log back. */
struct walk {
	store_txn *t;
	uint32_t count;
	uint32_t *remap;        /* agent -> whom its results count for */
	uint32_t *slot;         /* agent -> compact index, or NONE */
	uint32_t nslots;
	int decided, pl;
	uint64_t episodes;
	/* games: seats, compact agents, teams and ranks, flat */
	uint32_t *seat_agent, *seat_team, *seat_rank;
	size_t nseat, capseat;
	struct payoff_pl_game *g;
	size_t ng, capg;
};

void brain_ladder_free(brain *b)
{
	if (!b->ladder)
		return;
	free(b->ladder->rating);
	free(b->ladder->se);
	free(b->ladder);
	b->ladder = NULL;
}

/* One episode's seat ranks from its returns r: teams by their mean
 * return, higher first, equal means tied; every seat its team's. */
static int episode_ranks(uint32_t ns, const uint32_t *team, const double *r,
			 uint32_t *rank)
{
	double score[BRAIN_MAX_SEATS] = { 0 }, cnt[BRAIN_MAX_SEATS] = { 0 };
	uint32_t trank[BRAIN_MAX_SEATS];
	int rc;

	for (uint32_t s = 0; s < ns; s++) {
		score[team[s]] += r[s];
		cnt[team[s]] += 1;
	}
	/* a team id without seats: the lowest score, never read */
	for (uint32_t u = 0; u < ns; u++)
		score[u] = cnt[u] ? score[u] / cnt[u] : -DBL_MAX;
	if ((rc = payoff_pl_rank(score, ns, trank)))
		return rc;
	for (uint32_t s = 0; s < ns; s++)
		rank[s] = trank[team[s]];
	return 0;
}

/* Whether a result of ns seats of these teams is one the ladder ranks
 * by Plackett-Luce: more than two seats (so more than two teams, or a
 * team of several) in at least two teams (one team alone, a
 * common-payoff game, has no order). */
static int multi_shape(uint32_t ns, const uint32_t *team)
{
	for (uint32_t s = 1; ns > 2 && s < ns; s++)
		if (team[s] != team[0])
			return 1;
	return 0;
}

/* Room for one more game of ns seats. */
static int reserve_game(struct walk *w, uint32_t ns)
{
	if (brain_reserve((void **)&w->seat_agent, &w->capseat,
			  w->nseat + ns, sizeof *w->seat_agent))
		return LG_ENOMEM;
	size_t cap = w->capseat;
	void *a = realloc(w->seat_team, cap * sizeof *w->seat_team);
	if (!a)
		return LG_ENOMEM;
	w->seat_team = a;
	if (!(a = realloc(w->seat_rank, cap * sizeof *w->seat_rank)))
		return LG_ENOMEM;
	w->seat_rank = a;
	if (brain_reserve((void **)&w->g, &w->capg, w->ng + 1, sizeof *w->g))
		return LG_ENOMEM;
	return 0;
}

/* The job's distinct episode orders as games weighted by their counts;
 * its agents (remapped) already have slots. */
static int add_job(struct walk *w, const struct brain_rec_returns *res)
{
	uint32_t ns = res->nseats, first = (uint32_t)w->ng;
	double r[BRAIN_MAX_SEATS];
	uint32_t rank[BRAIN_MAX_SEATS];
	int rc;

	for (uint32_t e = 0; e < res->h.n; e++) {
		for (uint32_t s = 0; s < ns; s++)
			r[s] = brain_rec_return(res, e, s);
		if ((rc = episode_ranks(ns, res->team, r, rank)))
			return rc;
		size_t k = first;
		for (; k < w->ng; k++) {
			size_t off = (size_t)(uintptr_t)w->g[k].agent;
			if (!memcmp(w->seat_rank + off, rank,
				    ns * sizeof *rank))
				break;
		}
		if (k < w->ng) {
			w->g[k].weight += 1;
			continue;
		}
		if ((rc = reserve_game(w, ns)))
			return rc;
		for (uint32_t s = 0; s < ns; s++) {
			w->seat_agent[w->nseat + s] =
				w->slot[w->remap[res->agent[s]]];
			w->seat_team[w->nseat + s] = res->team[s];
			w->seat_rank[w->nseat + s] = rank[s];
		}
		/* agent holds the offset of the game's seats until the
		 * arrays stop moving (fit sets the pointers) */
		w->g[w->ng++] = (struct payoff_pl_game){
			.nseats = ns,
			.agent = (const uint32_t *)(uintptr_t)w->nseat,
			.weight = 1 };
		w->nseat += ns;
	}
	w->episodes += res->h.n;
	return 0;
}

/* A result of the log: decide the ladder's kind on the newest, then
 * count N-seat results until the window is full. 1 stops the walk. */
static int on_result(struct walk *w, uint64_t job, int type)
{
	struct brain_rec_returns res;
	const void *v;
	size_t vl;
	uint8_t k[8];
	int rc;

	if (type != BRAIN_LOG_RETURNS) {
		/* a two-seat result: a two-player league */
		w->decided = 1;
		return !w->pl;
	}
	store_key_u64(k, job);
	if ((rc = store_get(w->t, STORE_DB_RESULTS, k, 8, &v, &vl)))
		return rc == LG_ENOTFOUND ? LG_ECORRUPT : rc;
	if ((rc = brain_rec_returns_decode(v, vl, &res)))
		return rc;
	if (!w->decided) {
		w->decided = 1;
		w->pl = multi_shape(res.nseats, res.team);
	}
	if (!w->pl)
		return 1;
	if (!multi_shape(res.nseats, res.team))
		return 0;
	uint32_t fresh = 0, seen[BRAIN_MAX_SEATS];
	for (uint32_t s = 0; s < res.nseats; s++) {
		if (res.agent[s] >= w->count)
			return LG_ECORRUPT;
		uint32_t a = w->remap[res.agent[s]], d = 0;
		for (uint32_t q = 0; q < fresh; q++)
			d |= seen[q] == a;
		if (w->slot[a] == BRAIN_NONE && !d)
			seen[fresh++] = a;
	}
	if (w->nslots + fresh > BRAIN_LADDER_AGENTS)
		return 1;
	for (uint32_t q = 0; q < fresh; q++)
		w->slot[seen[q]] = w->nslots++;
	if ((rc = add_job(w, &res)))
		return rc;
	return w->episodes >= BRAIN_LADDER_EPISODES;
}

static int walk_cb(const void *key, size_t klen, const void *val,
		   size_t vlen, void *arg)
{
	struct walk *w = arg;
	struct brain_log_entry e;
	int rc;

	if ((rc = brain_log_decode(key, klen, val, vlen, &e)))
		return rc;
	switch (e.type) {
	case BRAIN_LOG_STEPS:
		if (e.reset && e.player < w->count &&
		    e.snapshot_id < w->count)
			w->remap[e.player] = w->remap[e.snapshot_id];
		return 0;
	case BRAIN_LOG_RESULT:
	case BRAIN_LOG_GAMES:
	case BRAIN_LOG_RETURNS:
		return on_result(w, e.job, e.type);
	default:
		return 0;
	}
}

/* The newest log key below the brain's position + 1 (0: none), the
 * cache's key. */
static int newest_cb(const void *key, size_t klen, const void *val,
		     size_t vlen, void *arg)
{
	*(uint64_t *)arg = klen == 8 ? lg_get_be64(key) + 1 : 0;
	return 1;
}

/* Fit the walk's games into c (ratings by agent id, NaN outside). */
static int fit(struct walk *w, struct ladder_cache *c, char *err,
	       size_t errlen)
{
	double *r = malloc((w->nslots ? w->nslots : 1) * sizeof *r);
	double *se = malloc((w->nslots ? w->nslots : 1) * sizeof *se);
	int rc = LG_ENOMEM;

	if (!r || !se)
		goto out;
	for (size_t k = 0; k < w->ng; k++) {
		size_t off = (size_t)(uintptr_t)w->g[k].agent;
		w->g[k].agent = w->seat_agent + off;
		w->g[k].team = w->seat_team + off;
		w->g[k].rank = w->seat_rank + off;
	}
	rc = payoff_pl_fit(w->g, w->ng, w->nslots, 1.0, r, se, NULL, err,
			   errlen);
	if (rc)
		goto out;
	for (uint32_t a = 0; a < w->count; a++) {
		uint32_t s = w->slot[a];
		c->rating[a] = s == BRAIN_NONE ? NAN : r[s];
		c->se[a] = s == BRAIN_NONE ? NAN : se[s];
	}
out:
	free(r);
	free(se);
	return rc;
}

static void walk_free(struct walk *w)
{
	free(w->remap);
	free(w->slot);
	free(w->seat_agent);
	free(w->seat_team);
	free(w->seat_rank);
	free(w->g);
}

/* Walk the log back from key `before` in t and fit into c. */
static int build(store_txn *t, const uint8_t before[8],
		 struct ladder_cache *c)
{
	struct walk w = { .t = t, .count = c->count };
	char err[256];
	int rc = LG_ENOMEM;

	w.remap = malloc((w.count ? w.count : 1) * sizeof *w.remap);
	w.slot = malloc((w.count ? w.count : 1) * sizeof *w.slot);
	if (!w.remap || !w.slot)
		goto out;
	for (uint32_t a = 0; a < w.count; a++) {
		w.remap[a] = a;
		w.slot[a] = BRAIN_NONE;
	}
	if ((rc = store_iter_back(t, STORE_DB_LOG, before, 8, walk_cb, &w)))
		goto out;
	c->pl = w.pl && w.ng > 0 && w.nslots > 0;
	c->episodes = w.episodes;
	if (c->pl && (rc = fit(&w, c, err, sizeof err)) == LG_ERANGE) {
		/* no answer in floating point (payoff_pl_fit says why):
		 * the ladder shows no ratings rather than wrong ones */
		lg_log(LG_LOG_WARN, "ladder: the Plackett-Luce fit "
		       "failed: %s", err);
		for (uint32_t a = 0; a < w.count; a++)
			c->rating[a] = c->se[a] = NAN;
		rc = 0;
	}
out:
	walk_free(&w);
	return rc;
}

int brain_ladder_pl(brain *b, double *rating, double *se, int *pl,
		    uint64_t *episodes)
{
	uint32_t n = brain_count(b);
	struct ladder_cache *c = b->ladder;
	store_txn *t;
	uint8_t before[8];
	uint64_t key = 0;
	int rc;

	*pl = 0;
	if ((rc = store_txn_begin(b->s, STORE_TXN_READ, &t)))
		return rc;
	store_key_u64(before, b->seq);
	if ((rc = store_iter_back(t, STORE_DB_LOG, before, 8, newest_cb,
				  &key)))
		goto out;
	if (!c || c->key != key || c->count != n) {
		brain_ladder_free(b);
		rc = LG_ENOMEM;
		if (!(c = calloc(1, sizeof *c)))
			goto out;
		b->ladder = c;
		c->key = key;
		c->count = n;
		c->rating = malloc((n ? n : 1) * sizeof *c->rating);
		c->se = malloc((n ? n : 1) * sizeof *c->se);
		if (!c->rating || !c->se) {
			brain_ladder_free(b);
			goto out;
		}
		if ((rc = build(t, before, c))) {
			brain_ladder_free(b);
			goto out;
		}
	}
	*pl = c->pl;
	*episodes = c->episodes;
	if (c->pl) {
		memcpy(rating, c->rating, n * sizeof *rating);
		memcpy(se, c->se, n * sizeof *se);
	}
	rc = 0;
out:
	store_txn_abort(t);
	return rc;
}
