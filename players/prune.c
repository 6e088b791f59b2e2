/*
 * players/prune.c: the prune rule (players.h, brain_report_steps): which
 * of a learner's snapshots retire when it has more than snapshot_keep
 * active ones. fifo: the oldest. nash: the oldest that is neither among
 * its newest keep_newest nor in the support of the meta-Nash of the
 * league's newest BRAIN_NASH_MAX active snapshots (payoff_meta_nash, the
 * construction matchmaking and the evaluator use), solved once per
 * report. No random draw, so replay makes the same choice from the same
 * table.
 */
#include "players/brain_internal.h"

#include <stdlib.h>

/* Index of id in the ascending list v[0..n), or n. */
static uint32_t sorted_find(const uint32_t *v, uint32_t n, uint32_t id)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == id ? lo : n;
}

/*
 * The nash rule's choice among learner L's active snapshots when it has
 * `excess` too many: its oldest outside its newest min(keep_newest,
 * keep) whose weight in the meta-Nash of the league's newest
 * BRAIN_NASH_MAX active snapshots is at most PAYOFF_SUPPORT_MIN (outside
 * that window a snapshot has no weight). Ids into pick, oldest first, at
 * most min(excess, max); *np gets how many. LG_ENOMEM, the solver's
 * errors.
 */
static int nash_candidates(brain *b, uint32_t L, uint32_t excess,
			   uint32_t *pick, uint32_t max, uint32_t *np)
{
	const struct idlist *own = &b->ag[L].snaps, *all = &b->hist_all[b->ag[L].pop];
	uint32_t k = LG_MIN(all->n, BRAIN_NASH_MAX);
	const uint32_t *win = all->v + (all->n - k); /* id order: the tail */
	uint32_t newest = (uint32_t)LG_MIN(b->o.snapshot_keep_newest,
					   b->o.snapshot_keep);
	uint32_t want = LG_MIN(excess, max), n = 0;
	double *x = malloc(k * sizeof *x);
	int rc;

	*np = 0;
	if (!x)
		return LG_ENOMEM;
	if ((rc = payoff_meta_nash(b->pf, win, k, x, NULL)))
		goto out;
	for (uint32_t i = 0; i + newest < own->n && n < want; i++) {
		uint32_t at = sorted_find(win, k, own->v[i]);
		if (at == k || !(x[at] > PAYOFF_SUPPORT_MIN))
			pick[n++] = own->v[i];
	}
	*np = n;
out:
	free(x);
	return rc;
}

int brain_prune(brain *b, uint32_t L, struct brain_step_report *out)
{
	const struct idlist *own = &b->ag[L].snaps;
	uint32_t pick[BRAIN_RETIRE_MAX], n = 0, excess;
	int rc;

	if (!b->o.snapshot_keep || own->n <= b->o.snapshot_keep)
		return 0;
	excess = own->n - (uint32_t)b->o.snapshot_keep;
	if (b->o.snapshot_prune == BRAIN_PRUNE_NASH) {
		if ((rc = nash_candidates(b, L, excess, pick, BRAIN_RETIRE_MAX,
					  &n)))
			return rc;
	} else {
		while (n < excess && n < BRAIN_RETIRE_MAX) {
			pick[n] = own->v[n];
			n++;
		}
	}
	/* chosen first, retired after: the meta-Nash was the league's as
	 * it stood */
	for (uint32_t i = 0; i < n; i++) {
		if ((rc = brain_retire(b, pick[i])))
			return rc;
		out->retired[out->nretired++] = pick[i];
	}
	if (own->n > b->o.snapshot_keep && n < BRAIN_RETIRE_MAX &&
	    !b->over_logged) {
		b->over_logged = 1;
		LG_INFO("brain: player %u keeps %u snapshots, more than "
			"snapshot.keep (%llu): each of the others is in the "
			"meta-Nash support or among its newest (said once)",
			L, own->n, (unsigned long long)b->o.snapshot_keep);
	}
	return 0;
}
