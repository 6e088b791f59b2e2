/*
 * workers/collect_slots.c: the collector's networks. They live in
 * COLLECT_NET_SLOTS slots, one per (player, version) in use, fetched from
 * the daemon once and shared by every job that plays them; a slot is
 * refilled only when no job uses it. The env manager sees each slot as
 * two policies: slot k sampling (policy k) and playing its most probable
 * action (policy COLLECT_NET_SLOTS + k, evaluation seats).
 */
#include "workers/workers_internal.h"

/* ---- inference: two policies per net slot ----------------------------- */

/* A sampling policy's move from the slot's workspace, or a greedy
 * policy's (the most probable legal action, the first of equals) from
 * its own: both may run at once. */
static int slot_act(void *ctx, const float *obs, const uint8_t *mask,
		    size_t n, size_t obs_len, int na, lg_rng *rng,
		    int32_t *action, float *logp, float *value,
		    float *state)
{
	const struct slot_policy *sp = ctx;
	struct netslot *ns = sp->slot;

	if (!ns->net)
		return LG_EINVAL;
	if (sp->greedy)
		return nn_greedy_state(ns->net, ns->gws, obs, mask, n, state,
				       action, logp, value);
	return nn_act_state(ns->net, ns->ws, obs, mask, n, state, rng, action,
			    logp, value);
}

/* The search's evaluator (learner.search): n states' probabilities and
 * values through one forward in the calling thread, its workspace made
 * there on first use for the most leaves a search evaluates at once.
 * Every net a collector holds has the league's shape, so a thread's
 * workspace fits whichever net the slot holds later. */
static int slot_eval(void *ctx, void **ws, size_t n, const float *obs,
		     const uint8_t *mask, int na, float *prior, float *value)
{
	struct netslot *ns = ((const struct slot_policy *)ctx)->slot;
	int rc;

	if (!ns->net)
		return LG_EINVAL;
	if (!*ws) {
		nn_ws *w = NULL;
		if ((rc = nn_ws_new(&w, ns->net, ns->search_batch)))
			return rc;
		*ws = w;
	}
	/* more than search_batch rows: LG_EINVAL from the forward */
	return nn_probs(ns->net, *ws, obs, mask, n, prior, value);
}

static void slot_ws_free(void *ctx, void *ws)
{
	nn_ws_free(ws);
}

void worker_slots_policies(struct collect *W, size_t search_batch)
{
	for (int k = 0; k < COLLECT_NET_SLOTS; k++)
		W->slots[k].search_batch = search_batch;
	for (int k = 0; k < COLL_NETS_MAX; k++) {
		W->views[k] = (struct slot_policy){
			.slot = &W->slots[k % COLLECT_NET_SLOTS],
			.greedy = k >= COLLECT_NET_SLOTS,
		};
		W->pols[k] = (struct coll_policy){
			.act = slot_act, .ctx = &W->views[k], .max_calls = 1,
			.eval = slot_eval, .ws_free = slot_ws_free,
		};
	}
}

/* ---- slots ------------------------------------------------------------- */

void worker_slot_clear(struct netslot *ns)
{
	nn_ws_free(ns->ws);
	nn_ws_free(ns->gws);
	nn_free(ns->net);
	ns->ws = ns->gws = NULL;
	ns->net = NULL;
}

/* A slot already holding (player, version) with one more reference, or
 * one no job uses (an empty one first) reserved with refs 1: 0 with *k
 * and *held (whether it holds the net already), or LG_EFULL. */
static int slot_find(struct collect *W, uint32_t player, uint32_t version,
		     int *k, int *held)
{
	int free_k = -1;

	pthread_mutex_lock(&W->mu);
	for (int i = 0; i < COLLECT_NET_SLOTS; i++) {
		struct netslot *ns = &W->slots[i];
		if (ns->net && ns->player == player && ns->version == version) {
			ns->refs++;
			*k = i;
			*held = 1;
			pthread_mutex_unlock(&W->mu);
			return 0;
		}
		if (!ns->refs && (free_k < 0 || !ns->net))
			free_k = i;
	}
	if (free_k >= 0)
		W->slots[free_k].refs = 1; /* reserve it */
	pthread_mutex_unlock(&W->mu);
	*k = free_k;
	*held = 0;
	return free_k < 0 ? LG_EFULL : 0;
}

int worker_slot_get(struct collect *W, uint32_t player, uint32_t version,
		    int *out)
{
	int free_k, held, rc;
	/* every seat of every env may ask at once (a simultaneous game, a
	 * net in every seat): the collector's largest batch */
	size_t rows = W->envs * (size_t)W->spec.players;
	nn *net = NULL;
	nn_ws *ws = NULL, *gws = NULL;

	if ((rc = slot_find(W, player, version, &free_k, &held)))
		return rc;
	if (held) {
		*out = free_k;
		return 0;
	}
	if ((rc = worker_fetch_net(W->cl, "collect", player, version,
				   &W->shape, &net)))
		goto fail;
	if ((rc = nn_ws_new(&ws, net, rows)) ||
	    (rc = nn_ws_new(&gws, net, rows)))
		goto fail;
	W->fetches++;
	pthread_mutex_lock(&W->mu);
	struct netslot *ns = &W->slots[free_k];
	worker_slot_clear(ns);
	ns->net = net;
	ns->ws = ws;
	ns->gws = gws;
	ns->player = player;
	ns->version = version;
	*out = free_k;
	pthread_mutex_unlock(&W->mu);
	return 0;
fail:
	nn_ws_free(ws);
	nn_ws_free(gws);
	nn_free(net);
	pthread_mutex_lock(&W->mu);
	W->slots[free_k].refs = 0;
	pthread_mutex_unlock(&W->mu);
	return rc;
}

void worker_slot_put(struct collect *W, int k)
{
	if (k >= 0 && W->slots[k].refs > 0)
		W->slots[k].refs--;
}
