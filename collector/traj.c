/*
 * collector/traj.c: trajectory building. For every learning seat of every
 * env a block of at most segment_len rows (util/rows.h). A row starts as
 * the seat's pending row: when the seat posts, its observation and mask
 * are copied from the reply into row n of its block, where inference
 * reads them and the segment will send them from (a game of more than
 * LG_ROWS_DENSE_MAX actions: the row keeps its legal list, inference
 * reads the mask from the seat's scratch); it becomes row n when
 * the seat gets its action (coll_traj_append), earns its reward as the
 * env steps until the seat's next action, and is closed (LG_ROW_END) at
 * the episode's end. A full block goes to the sink before its seat posts
 * again (its last reward is final then) or at the episode's end; blocks
 * also go when the next episode belongs to another job or player, at
 * abnormal ends and at stop (collector.h), a last row still LG_ROW_NEXT
 * becoming LG_ROW_CUT. A finished episode's result is held until its rows
 * are out, so a consumer never sees a job end before its rows.
 *
 * Everything here runs in the slot's current worker (or in coll_stop once
 * every worker is joined), which owns the slot's buffers; sink and result
 * calls are serialized by c->sink_mu.
 */
#include "collector/collector_internal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void coll_traj_free(struct traj *t)
{
	lg_rows_free(&t->rows);
}

int coll_traj_alloc(struct traj *t, size_t len, size_t obs_len, int na,
		    size_t state_len, int visits)
{
	int rc;

	t->episode = 0;
	rc = lg_rows_init(&t->rows, obs_len, (uint32_t)na, state_len, len);
	if (!rc && visits)
		rc = lg_rows_add_visits(&t->rows);
	return rc;
}

int coll_traj_flush(coll *c, struct slot *s, int seat)
{
	struct traj *t = &s->tr[seat];
	struct coll_segment seg;
	size_t n = t->rows.n;
	int rc;

	if (!n)
		return 0;
	if (t->rows.done[n - 1] == LG_ROW_NEXT)
		t->rows.done[n - 1] = LG_ROW_CUT;
	seg = (struct coll_segment){
		.tag = s->tag,
		.player = s->match.seat[seat].player,
		.env_index = (uint32_t)s->idx,
		.seat = seat,
		.episode = t->episode,
		.rows = &t->rows,
	};
	pthread_mutex_lock(&c->sink_mu);
	seg.segment_seq = s->seg_seq++;
	rc = c->o.sink(c->o.sink_ctx, &seg);
	pthread_mutex_unlock(&c->sink_mu);
	pthread_mutex_lock(&c->mu);
	c->st.segments++;
	c->st.transitions += n;
	pthread_mutex_unlock(&c->mu);
	lg_rows_clear(&t->rows);
	if (rc)
		coll_set_fatal(c, rc);
	return rc;
}

void coll_traj_make_room(coll *c, struct slot *s)
{
	for (int k = 0; k < s->nacting; k++) {
		int p = s->acting[k];
		if (coll_learning(c, s, p) &&
		    s->tr[p].rows.n == s->tr[p].rows.cap)
			coll_traj_flush(c, s, p);
	}
}

void coll_traj_pending(coll *c, struct slot *s, const float *shares,
		       const float *obs, const uint8_t *mask)
{
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;

	for (int k = 0; k < s->nacting; k++) {
		size_t p = (size_t)s->acting[k];
		struct lg_rows *r = &s->tr[p].rows;
		if (coll_learning(c, s, (int)p) && lg_rows_lists(r)) {
			/* the row keeps the list; inference reads the
			 * mask from the seat's scratch */
			int rc = lg_rows_put_mask(r, r->n, mask + p * na);
			s->pobs[p] = r->obs + r->n * ol;
			s->pmask[p] = s->mask + p * na;
			if (rc == LG_ENOMEM)
				coll_set_fatal(c, rc);
		} else if (coll_learning(c, s, (int)p)) {
			s->pobs[p] = r->obs + r->n * ol;
			s->pmask[p] = r->mask + r->n * na;
			if (s->searched[p])
				memcpy(r->visits + r->n * na, shares + p * na,
				       na * sizeof(float));
		} else {
			s->pobs[p] = s->obs + p * ol;
			s->pmask[p] = s->mask + p * na;
		}
		memcpy(s->pobs[p], obs + p * ol, ol * sizeof *obs);
		memcpy(s->pmask[p], mask + p * na, na);
	}
}

void coll_traj_append(coll *c, struct slot *s, int seat)
{
	struct traj *t = &s->tr[seat];
	size_t k = t->rows.n;

	/* coll_traj_make_room kept row n free, and the observation is
	 * already there */
	assert(k < t->rows.cap);
	if (!k)
		t->episode = s->episode;
	t->rows.action[k] = s->act[seat];
	t->rows.logp[k] = s->logp[seat];
	t->rows.value[k] = s->value[seat];
	t->rows.reward[k] = 0;
	t->rows.done[k] = LG_ROW_NEXT;
	t->rows.n = k + 1;
	if (lg_rows_lists(&t->rows))
		t->rows.legal_n += t->rows.nlegal[k];
}

void coll_traj_rewards(coll *c, struct slot *s, const struct reply *r)
{
	for (int p = 0; p < c->spec.players; p++) {
		struct lg_rows *t = &s->tr[p].rows;
		/* not onto a done row: the seat has not acted in this
		 * episode yet */
		if (coll_learning(c, s, p) && t->n &&
		    t->done[t->n - 1] == LG_ROW_NEXT)
			t->reward[t->n - 1] +=
				(float)(r->returns[p] - s->ret[p]);
		s->ret[p] = r->returns[p];
	}
}

void coll_result_flush(coll *c, struct slot *s)
{
	if (!s->holding)
		return;
	s->holding = 0;
	if (c->o.result) {
		pthread_mutex_lock(&c->sink_mu);
		c->o.result(c->o.result_ctx, &s->held);
		pthread_mutex_unlock(&c->sink_mu);
	}
}

void coll_episode_end(coll *c, struct slot *s, int abnormal, int cause)
{
	struct coll_episode ep = { 0 };
	int buffered = 0;

	for (int p = 0; p < c->spec.players; p++) {
		if (!coll_learning(c, s, p))
			continue;
		struct lg_rows *t = &s->tr[p].rows;
		/* A segment holds consecutive episodes: one the seat did
		 * not act in ends it (its last row already closes an
		 * episode). An abnormal end flushes: the env is recreated. A
		 * full one goes now: nothing of it is to come. */
		if (t->n && t->done[t->n - 1] != LG_ROW_NEXT)
			coll_traj_flush(c, s, p);
		else if (t->n)
			t->done[t->n - 1] = LG_ROW_END;
		if (abnormal || t->n == t->cap)
			coll_traj_flush(c, s, p);
		buffered |= t->n != 0;
	}
	/* the previous episode's rows went out above, if any were held */
	coll_result_flush(c, s);
	ep.tag = s->tag;
	ep.env_index = (uint32_t)s->idx;
	ep.episode = s->episode;
	ep.players = c->spec.players;
	for (int p = 0; p < c->spec.players; p++) {
		ep.player[p] = s->match.seat[p].player;
		ep.returns[p] = abnormal ? 0 : s->ret[p];
	}
	ep.steps = s->ep_steps;
	ep.abnormal = abnormal;
	ep.cause = abnormal ? cause : 0;
	s->held = ep;
	s->holding = 1;
	if (!buffered)
		coll_result_flush(c, s);
	pthread_mutex_lock(&c->mu);
	c->st.episodes++;
	if (abnormal)
		c->st.abnormal++;
	pthread_mutex_unlock(&c->mu);
	s->episode++;
	s->ep_steps = 0;
	memset(s->ret, 0, sizeof s->ret);
	/* the next episode's policies start from zeros */
	memset(s->hstate, 0, (size_t)c->spec.players * c->o.state_len *
				    sizeof *s->hstate);
	memset(s->smoves, 0, sizeof s->smoves);
}

/* Finished episodes stay buffered (one segment carries several, done = 1
 * closing each) only while the next one has the same job and the same
 * learning player on that seat; then the held result goes out (struct
 * slot). The sink may block on a learner's credit: keep the watchdog away
 * meanwhile. */
void coll_flush_guarded(coll *c, struct slot *s, const struct coll_match *m,
			uint64_t tag)
{
	int flush[ENV_MAX_PLAYERS], any = s->holding; /* sink_mu may wait */

	for (int p = 0; p < c->spec.players; p++) {
		flush[p] = s->tr[p].rows.n &&
			   (!m || tag != s->tag || m->seat[p].baseline ||
			    !m->seat[p].learning ||
			    m->seat[p].player != s->match.seat[p].player);
		any |= flush[p];
	}
	if (!any)
		return;
	pthread_mutex_lock(&c->mu);
	s->deadline = HUGE_VAL;
	pthread_mutex_unlock(&c->mu);
	for (int p = 0; p < c->spec.players; p++)
		if (flush[p])
			coll_traj_flush(c, s, p);
	coll_result_flush(c, s);
	pthread_mutex_lock(&c->mu);
	s->deadline = lg_now_s() + c->o.reset_timeout_s;
	pthread_mutex_unlock(&c->mu);
}
