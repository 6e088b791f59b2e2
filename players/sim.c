/*
 * players/sim.c: a simulated league of fixed-strength, non-transitive
 * players driven through the real brain (see players.h). Only the public
 * brain API is used (and brain_reserve, the folder's array growth helper,
 * from brain_internal.h), so what it shows is what the daemon gets.
 */
#include "players/brain_internal.h"

#include <stdlib.h>
#include <string.h>

void brain_sim_opts_default(struct brain_sim_opts *o)
{
	memset(o, 0, sizeof *o);
	o->seed = 1;
	o->types = 3;
	o->edge = 0.8;
	o->jobs = 1000;
	o->steps_per_job = 100;
}

double brain_sim_win_prob(const struct brain_sim_opts *o, uint32_t t,
			  uint32_t u)
{
	if (t == u)
		return 0.5;
	if (t == (u + 1) % o->types)
		return o->edge;
	if (u == (t + 1) % o->types)
		return 1 - o->edge;
	return 0.5;
}

/* Share of active snapshots that `type` loses to. */
static double hard_share(const brain *b, const struct brain_sim_opts *o,
			 const uint32_t *ty, uint32_t type)
{
	uint32_t n = brain_count(b), snaps = 0, hard = 0;

	for (uint32_t id = 0; id < n; id++) {
		struct brain_player p;
		brain_player_info(b, id, &p);
		if (p.role != BRAIN_ROLE_HISTORICAL ||
		    p.status != BRAIN_ACTIVE)
			continue;
		snaps++;
		hard += brain_sim_win_prob(o, type, ty[id]) < 0.5;
	}
	return snaps ? (double)hard / snaps : 0.0;
}

int brain_sim_run(brain *b, const struct brain_sim_opts *o,
		  struct brain_sim_stats *st)
{
	uint32_t *ty = NULL, L[BRAIN_SIM_LEARNERS], start[BRAIN_SIM_LEARNERS];
	uint64_t steps[BRAIN_SIM_LEARNERS];
	uint32_t ver[BRAIN_SIM_LEARNERS], nl = 0, n = brain_count(b);
	struct brain_sim_stats local;
	int8_t *out = NULL;
	size_t cap = 0, ocap = 0;
	lg_rng r;
	int rc;

	if (!o || o->types < 3 || !(o->edge >= 0 && o->edge <= 1))
		return LG_EINVAL;
	if (!st)
		st = &local;
	memset(st, 0, sizeof *st);
	if ((rc = brain_reserve((void **)&ty, &cap, n, sizeof *ty)))
		return rc;
	/* Types from the lineage: learners start at k mod types, each
	 * snapshot freezes the parent's type and moves the parent on. */
	for (uint32_t id = 0; id < n; id++) {
		struct brain_player p;
		brain_player_info(b, id, &p);
		if (p.role != BRAIN_ROLE_HISTORICAL) {
			if (nl == BRAIN_SIM_LEARNERS) {
				rc = LG_EFULL;
				goto out;
			}
			start[nl] = nl % o->types;
			ty[id] = start[nl];
			steps[nl] = p.steps;
			ver[nl] = p.version;
			st->l[nl].id = id;
			L[nl++] = id;
		} else {
			ty[id] = ty[p.parent];
			if (o->drift)
				ty[p.parent] = (ty[p.parent] + 1) % o->types;
		}
	}
	st->nlearners = nl;
	lg_rng_seed2(&r, o->seed, 0x5133);
	for (uint64_t k = 0; k < o->jobs; k++) {
		uint32_t li = (uint32_t)(k % nl), me = L[li];
		struct brain_sim_learner *sl = &st->l[li];
		struct brain_job j;
		struct brain_step_report rep;
		double p;

		if ((rc = brain_next_job(b, me, &j)))
			goto out;
		p = brain_sim_win_prob(o, ty[me], ty[j.opponent]);
		sl->jobs++;
		sl->hard_jobs += p < 0.5;
		sl->kinds[j.kind]++;
		if (st != &local)
			sl->hard_share_sum += hard_share(b, o, ty, ty[me]);
		if (j.episodes > ocap) {
			int8_t *no = realloc(out, j.episodes);
			if (!no) {
				rc = LG_ENOMEM;
				goto out;
			}
			out = no;
			ocap = j.episodes;
		}
		for (uint32_t e = 0; e < j.episodes; e++)
			out[e] = lg_rng_double(&r) < p ? 1 : -1;
		if ((rc = brain_record_result(b, j.id, out, j.episodes)))
			goto out;
		st->jobs++;
		st->episodes += j.episodes;
		steps[li] += o->steps_per_job;
		ver[li]++;
		if ((rc = brain_report_steps(b, me, steps[li], ver[li], &rep)))
			goto out;
		if (rep.snapshot) {
			if ((rc = brain_reserve((void **)&ty, &cap,
						brain_count(b), sizeof *ty)))
				goto out;
			ty[rep.snapshot_id] = ty[me];
			if (o->drift)
				ty[me] = (ty[me] + 1) % o->types;
			st->snapshots++;
		}
		if (rep.reset && o->drift) {
			ty[me] = start[li];
		}
		st->resets += rep.reset;
		st->retired += rep.nretired;
		if (o->on_report && (rc = o->on_report(o->arg, b, me, &rep)))
			goto out;
	}
out:
	free(ty);
	free(out);
	return rc;
}
