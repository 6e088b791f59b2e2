/*
 * envs/remote_codec.c: the remote game protocol's replies (net/game.proto),
 * checked and decoded: a server's Welcome into a spec, a BatchReply into
 * its ops' States, and the games' failures it reports logged (once in
 * full, then counted). Pure functions of the bytes but for that log: the
 * fuzz harness (tests/fuzz/fuzz_remote.c) drives them. The connections
 * and the queue of ops are remote.c's.
 */
#include "envs/env_internal.h"

#include "game.pb-c.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The games' failures, this process's (a collector's envs come and go,
 * and their connections with them): the last one logged in full, those
 * like it since, when they were last told. Under fail_mu. */
static pthread_mutex_t fail_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char key[ENV_REMOTE_MAX + 210];
	uint64_t more;
	double told;
} fails;

/* One line of a server's text: control characters become spaces. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

int env_remote_decode_welcome(const uint8_t *buf, size_t len,
			      const char *want, struct env_spec *spec,
			      char *err, size_t errlen)
{
	League__Game__Welcome *w =
		league__game__welcome__unpack(NULL, len, buf);
	const League__Game__Spec *s;
	uint64_t prod = 1;
	int rc = LG_EPROTO;

	if (!w) {
		lg_errf(err, errlen, "its Welcome is not a valid message");
		return LG_EPROTO;
	}
	s = w->spec;
	if (w->error && w->error[0]) {
		char msg[201];
		snprintf(msg, sizeof msg, "%s", w->error);
		one_line(msg);
		lg_errf(err, errlen, "it refused: %s", msg);
		rc = LG_EINVAL;
		goto out;
	}
	if (w->version != ENV_REMOTE_VERSION) {
		lg_errf(err, errlen, "it speaks protocol version %u, league "
			"speaks %u", w->version, ENV_REMOTE_VERSION);
		goto out;
	}
	if (!s || !s->name || !env_name_ok(s->name)) {
		lg_errf(err, errlen, "its spec has no valid game name "
			"([a-z0-9_-]{1,31})");
		goto out;
	}
	if (s->players != 2 || s->num_actions < 1 ||
	    s->num_actions > ENV_MAX_ACTIONS || s->n_obs_shape < 1 ||
	    s->n_obs_shape > LEAGUE_GAME_SHAPE_MAX || s->max_steps < 1) {
		lg_errf(err, errlen, "game '%s': its spec is out of range "
			"(2 players, 1..%d actions, 1..%d obs dims, max_steps "
			">= 1)", s->name, ENV_MAX_ACTIONS,
			LEAGUE_GAME_SHAPE_MAX);
		goto out;
	}
	for (size_t i = 0; i < s->n_obs_shape; i++) {
		prod *= s->obs_shape[i];
		if (!s->obs_shape[i] || prod > LEAGUE_GAME_OBS_MAX) {
			lg_errf(err, errlen, "game '%s': obs_shape must be "
				"positive, %u floats at most", s->name,
				LEAGUE_GAME_OBS_MAX);
			goto out;
		}
	}
	if (want && want[0] && strcmp(want, s->name)) {
		lg_errf(err, errlen, "it serves the game '%s', not '%s'",
			s->name, want);
		rc = LG_EINVAL;
		goto out;
	}
	memset(spec, 0, sizeof *spec);
	snprintf(spec->name, sizeof spec->name, "%s", s->name);
	spec->players = 2;
	spec->num_actions = (int)s->num_actions;
	spec->obs_len = (size_t)prod;
	spec->max_steps = s->max_steps;
	spec->flags = ENV_F_ZERO_SUM |
		      (s->simultaneous ? ENV_F_SIMULTANEOUS : 0);
	if (s->n_obs_shape > 1) {
		spec->obs_rank = (uint32_t)s->n_obs_shape;
		for (size_t i = 0; i < s->n_obs_shape; i++)
			spec->obs_shape[i] = s->obs_shape[i];
	}
	rc = 0;
out:
	league__game__welcome__free_unpacked(w, NULL);
	return rc;
}

static float f32le(const uint8_t *p)
{
	uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
		     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

#define REMOTE_FAIL_TEXT 4000 /* of a failure's text (a traceback) */
#define REMOTE_FAIL_EVERY_S 10.0

/*
 * The game failed env id's op with text (the server's Failure.error: a
 * Python server sends the traceback, its last line the exception). A
 * failure unlike the last one told (its last line differs) is logged in
 * full, traceback and all, once; the same failure again is counted and
 * told as a count at most every REMOTE_FAIL_EVERY_S ("failed 3,210 more
 * times since"), not once a line per env step, whichever env and
 * connection of this process it comes from.
 */
static void tell_failure(const char *addr, uint64_t id, const char *text)
{
	char full[REMOTE_FAIL_TEXT + 1], key[sizeof fails.key];
	double now = lg_now_s();
	size_t n;

	snprintf(full, sizeof full, "%s", text);
	for (char *p = full; *p; p++) /* lines stay lines; no other controls */
		if (((unsigned char)*p < 0x20 && *p != '\n') || *p == 0x7f)
			*p = ' ';
	n = strlen(full);
	while (n && (full[n - 1] == '\n' || full[n - 1] == ' '))
		full[--n] = 0;
	const char *last = strrchr(full, '\n');
	/* the server and the exception: the same failure again */
	snprintf(key, sizeof key, "%s: %.199s", addr, last ? last + 1 : full);
	pthread_mutex_lock(&fail_mu);
	if (fails.told > 0 && !strcmp(key, fails.key)) {
		fails.more++;
		if (now - fails.told >= REMOTE_FAIL_EVERY_S) {
			LG_WARN("remote game %s: env %llu: the game failed %llu "
				"more times since", key, (unsigned long long)id,
				(unsigned long long)fails.more);
			fails.more = 0;
			fails.told = now;
		}
		pthread_mutex_unlock(&fail_mu);
		return;
	}
	if (fails.more)
		LG_WARN("remote game %s: the game failed %llu more times",
			fails.key, (unsigned long long)fails.more);
	LG_WARN("remote game %s: env %llu: the game failed:%s%s", addr,
		(unsigned long long)id, strchr(full, '\n') ? "\n" : " ", full);
	snprintf(fails.key, sizeof fails.key, "%s", key);
	fails.more = 0;
	fails.told = now;
	pthread_mutex_unlock(&fail_mu);
}

/* Where decoding a BatchReply stands: how much of its obs (floats),
 * mask bytes and returns the ops so far used. */
struct reply_cursor {
	const League__Game__BatchReply *rp;
	size_t nobs, oo, mo, ro;
};

/* The reply's failures: rcs[op] = LG_EINVAL for each op the server says
 * failed (told with addr unless NULL); LG_EPROTO (err says why) for a
 * failure of an op with a state, of a close, named twice or outside the
 * batch of n ops. */
static int reply_failures(const League__Game__BatchReply *rp,
			  const int *kinds, size_t n,
			  struct env_remote *const *views, int *rcs,
			  const char *addr, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		rcs[i] = 0;
	for (size_t k = 0; k < rp->n_failures; k++) {
		const League__Game__Failure *f = rp->failures[k];
		if (f->op >= n || rp->player[f->op] != -3 ||
		    kinds[f->op] == ENV_REMOTE_CLOSE || rcs[f->op]) {
			lg_errf(err, errlen, "a failure for op %u, which has "
				"a state, is a close, is named twice or is "
				"not in the batch", f->op);
			return LG_EPROTO;
		}
		rcs[f->op] = LG_EINVAL;
		if (addr)
			tell_failure(addr, views ? views[f->op]->id : 0,
				     f->error ? f->error : "");
	}
	return 0;
}

/* Op i (a kind) without a state (player p -3) must be a close or a
 * failed op (rc), and a close must have none: LG_EPROTO else. */
static int reply_stateless(size_t i, int kind, int p, int rc, char *err,
			   size_t errlen)
{
	if (kind == ENV_REMOTE_CLOSE ? p != -3 : !rc) {
		lg_errf(err, errlen, "op %zu: player %d for "
			"a %s", i, p,
			kind == ENV_REMOTE_CLOSE
				? "close (must be -3)"
				: "reset or step without a "
				  "failure");
		return LG_EPROTO;
	}
	return 0;
}

/* Op i ended: its two returns, next at the cursor, must be finite and
 * sum to 0; into view unless NULL. */
static int reply_returns(struct reply_cursor *cur, size_t i,
			 struct env_remote *view, char *err, size_t errlen)
{
	const League__Game__BatchReply *rp = cur->rp;
	double a, b;

	if (cur->ro + 2 > rp->n_returns) {
		lg_errf(err, errlen, "op %zu ended without "
			"its two returns", i);
		return LG_EPROTO;
	}
	a = rp->returns[cur->ro];
	b = rp->returns[cur->ro + 1];
	cur->ro += 2;
	if (!isfinite(a) || !isfinite(b) || fabs(a) > 1e9 ||
	    fabs(a + b) > 1e-6 * (1 + fabs(a))) {
		lg_errf(err, errlen, "op %zu: returns %g, %g: "
			"not finite and summing to 0", i, a,
			b);
		return LG_EPROTO;
	}
	if (view) {
		view->player = -1;
		view->ret[0] = a;
		view->ret[1] = b;
	}
	return 0;
}

/* The movers [*lo, *hi) of op i with player p on a game with flags:
 * -2 (both) in a simultaneous game, 0 or 1 in a sequential one;
 * LG_EPROTO for any other p. */
static int reply_movers(size_t i, int p, uint32_t flags, int *lo, int *hi,
			char *err, size_t errlen)
{
	if (p == -2 && (flags & ENV_F_SIMULTANEOUS)) {
		*lo = 0;
		*hi = 2;
	} else if ((p == 0 || p == 1) && !(flags & ENV_F_SIMULTANEOUS)) {
		*lo = p;
		*hi = p + 1;
	} else {
		lg_errf(err, errlen, "op %zu: player %d (0 or 1 in a "
			"sequential game, -2 in a simultaneous one, "
			"-1 over, -3 none)", i, p);
		return LG_EPROTO;
	}
	return 0;
}

/* Mover q of op i: its mask (na bytes of 0 or 1, one 1 at least) and its
 * ol finite obs, next at the cursor (the caller checked they are there),
 * into view's row q unless view is NULL; the cursor moves past them. */
static int reply_mover(struct reply_cursor *cur, size_t i, int q, size_t ol,
		       size_t na, struct env_remote *view, char *err,
		       size_t errlen)
{
	const uint8_t *m = cur->rp->mask.data + cur->mo;
	const uint8_t *ob = cur->rp->obs.data + 4 * cur->oo;
	size_t legal = 0;

	for (size_t a = 0; a < na; a++) {
		if (m[a] > 1) {
			lg_errf(err, errlen, "op %zu: mask "
				"byte %u (not 0 or 1)", i,
				m[a]);
			return LG_EPROTO;
		}
		legal += m[a];
	}
	if (!legal) {
		lg_errf(err, errlen, "op %zu: player %d must "
			"move but has no legal action", i, q);
		return LG_EPROTO;
	}
	for (size_t x = 0; x < ol; x++) {
		float v = f32le(ob + 4 * x);
		if (!isfinite(v)) {
			lg_errf(err, errlen, "op %zu: obs[%zu] "
				"is not finite", i, x);
			return LG_EPROTO;
		}
		if (view)
			view->obs[(size_t)q * ol + x] = v;
	}
	if (view)
		memcpy(view->mask + (size_t)q * na, m, na);
	cur->oo += ol;
	cur->mo += na;
	return 0;
}

/* Op i of a reset or step, with player p: its state (returns when over,
 * else each mover's mask and obs) from the cursor into view unless
 * NULL. LG_EPROTO (err says why) for one that breaks the protocol. */
static int reply_state(struct reply_cursor *cur, const struct env_spec *sp,
		       size_t i, int p, struct env_remote *view, char *err,
		       size_t errlen)
{
	size_t ol = sp->obs_len, na = (size_t)sp->num_actions;
	int lo, hi, rc;

	if (p == -1)
		return reply_returns(cur, i, view, err, errlen);
	if ((rc = reply_movers(i, p, sp->flags, &lo, &hi, err, errlen)))
		return rc;
	if (cur->oo + (size_t)(hi - lo) * ol > cur->nobs ||
	    cur->mo + (size_t)(hi - lo) * na > cur->rp->mask.len) {
		lg_errf(err, errlen, "op %zu: obs or mask run out "
			"(%zu floats, %zu mask bytes in all)", i, cur->nobs,
			cur->rp->mask.len);
		return LG_EPROTO;
	}
	for (int q = lo; q < hi; q++)
		if ((rc = reply_mover(cur, i, q, ol, na, view, err, errlen)))
			return rc;
	if (view)
		view->player = p;
	return 0;
}

int env_remote_decode_batch(const uint8_t *buf, size_t len,
			    const struct env_spec *sp, const int *kinds,
			    size_t n, struct env_remote *const *views,
			    int *rcs, const char *addr, char *err,
			    size_t errlen)
{
	League__Game__BatchReply *rp =
		league__game__batch_reply__unpack(NULL, len, buf);
	struct reply_cursor cur = { .rp = rp };
	int rc = LG_EPROTO;

	if (!rp) {
		lg_errf(err, errlen, "a BatchReply that is not a valid "
			"message");
		return LG_EPROTO;
	}
	cur.nobs = rp->obs.len / 4;
	if (rp->n_player != n || rp->obs.len % 4) {
		lg_errf(err, errlen, "%zu players for %zu ops, or obs of %zu "
			"bytes (not whole floats)", rp->n_player, n,
			rp->obs.len);
		goto out;
	}
	if ((rc = reply_failures(rp, kinds, n, views, rcs, addr, err,
				 errlen)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		int p = rp->player[i];
		if (kinds[i] == ENV_REMOTE_CLOSE || p == -3)
			rc = reply_stateless(i, kinds[i], p, rcs[i], err,
					     errlen);
		else
			rc = reply_state(&cur, sp, i, p,
					 views ? views[i] : NULL, err, errlen);
		if (rc)
			goto out;
	}
	if (cur.oo != cur.nobs || cur.mo != rp->mask.len ||
	    cur.ro != rp->n_returns) {
		lg_errf(err, errlen, "bytes left over: %zu of %zu floats, %zu "
			"of %zu mask bytes, %zu of %zu returns used", cur.oo,
			cur.nobs, cur.mo, rp->mask.len, cur.ro,
			rp->n_returns);
		rc = LG_EPROTO;
		goto out;
	}
	rc = 0;
out:
	league__game__batch_reply__free_unpacked(rp, NULL);
	return rc;
}

int env_remote_decode_reply(const uint8_t *buf, size_t len,
			    const struct env_spec *spec, const int *kinds,
			    size_t n, int *rcs, char *err, size_t errlen)
{
	return env_remote_decode_batch(buf, len, spec, kinds, n, NULL, rcs,
				       NULL, err, errlen);
}
