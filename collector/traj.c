/*
 * collector/traj.c: trajectory building. For every learning seat of every
 * env a buffer of at most segment_len rows; a row is appended when the
 * seat acts, earns its reward when the env steps, and is closed (done) at
 * the episode's end. Segments go to the sink when full, when the next
 * episode belongs to another job or player, at abnormal ends and at stop
 * (collector.h); a finished episode's result is held until its rows are
 * out, so a consumer never sees a job end before its rows.
 *
 * Everything here runs in the slot's current worker (or in coll_stop once
 * every worker is joined), which owns the slot's buffers; sink and result
 * calls are serialized by c->sink_mu.
 */
#include "collector/collector_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void coll_traj_free(struct traj *t)
{
	free(t->obs);
	free(t->masks);
	free(t->dones);
	free(t->actions);
	free(t->logp);
	free(t->values);
	free(t->rewards);
	memset(t, 0, sizeof *t);
}

int coll_traj_alloc(struct traj *t, size_t len, size_t obs_len, int na)
{
	t->obs = malloc(len * obs_len * sizeof *t->obs);
	t->masks = malloc(len * (size_t)na);
	t->dones = malloc(len);
	t->actions = malloc(len * sizeof *t->actions);
	t->logp = malloc(len * sizeof *t->logp);
	t->values = malloc(len * sizeof *t->values);
	t->rewards = malloc(len * sizeof *t->rewards);
	t->count = 0;
	if (!t->obs || !t->masks || !t->dones || !t->actions || !t->logp ||
	    !t->values || !t->rewards) {
		coll_traj_free(t);
		return LG_ENOMEM;
	}
	return 0;
}

/* Baseline seats never learn: they have no logp or value to train on,
 * whatever their learning flag says. */
int coll_learning(const coll *c, const struct slot *s, int seat)
{
	return c->o.sink && seat < c->spec.players &&
	       s->match.seat[seat].learning && !s->match.seat[seat].baseline;
}

int coll_traj_flush(coll *c, struct slot *s, int seat)
{
	struct traj *t = &s->tr[seat];
	struct coll_segment seg;
	int rc;

	if (!t->count)
		return 0;
	seg = (struct coll_segment){
		.tag = s->tag,
		.player = s->match.seat[seat].player,
		.env_index = (uint32_t)s->idx,
		.seat = seat,
		.episode = t->episode,
		.count = t->count,
		.obs_len = c->spec.obs_len,
		.num_actions = c->spec.num_actions,
		.obs = t->obs, .masks = t->masks, .actions = t->actions,
		.logp = t->logp, .values = t->values, .rewards = t->rewards,
		.dones = t->dones,
	};
	pthread_mutex_lock(&c->sink_mu);
	seg.segment_seq = s->seg_seq++;
	rc = c->o.sink(c->o.sink_ctx, &seg);
	pthread_mutex_unlock(&c->sink_mu);
	pthread_mutex_lock(&c->mu);
	c->st.segments++;
	c->st.transitions += t->count;
	pthread_mutex_unlock(&c->mu);
	t->count = 0;
	if (rc)
		coll_set_fatal(c, rc);
	return rc;
}

void coll_traj_append(coll *c, struct slot *s, int seat)
{
	struct traj *t = &s->tr[seat];
	size_t ol = c->spec.obs_len, na = (size_t)c->spec.num_actions;
	uint32_t k;

	if (t->count == c->o.segment_len)
		coll_traj_flush(c, s, seat);
	if (!t->count)
		t->episode = s->episode;
	k = t->count++;
	memcpy(t->obs + k * ol, s->obs + (size_t)seat * ol, ol * sizeof(float));
	memcpy(t->masks + k * na, s->mask + (size_t)seat * na, na);
	t->actions[k] = s->act[seat];
	t->logp[k] = s->logp[seat];
	t->values[k] = s->value[seat];
	t->rewards[k] = 0;
	t->dones[k] = 0;
}

void coll_traj_rewards(coll *c, struct slot *s, const struct reply *r)
{
	for (int p = 0; p < c->spec.players; p++) {
		struct traj *t = &s->tr[p];
		/* not onto a done row: the seat has not acted in this
		 * episode yet */
		if (coll_learning(c, s, p) && t->count &&
		    !t->dones[t->count - 1])
			t->rewards[t->count - 1] +=
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
		struct traj *t = &s->tr[p];
		/* A segment holds consecutive episodes: one the seat did
		 * not act in ends it (its last row already closes an
		 * episode). An abnormal end flushes: the env is recreated. */
		if (t->count && t->dones[t->count - 1])
			coll_traj_flush(c, s, p);
		else if (t->count)
			t->dones[t->count - 1] = 1;
		if (abnormal)
			coll_traj_flush(c, s, p);
		buffered |= t->count != 0;
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
		flush[p] = s->tr[p].count &&
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
