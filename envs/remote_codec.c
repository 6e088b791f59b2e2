/*
 * envs/remote_codec.c: the remote game protocol's replies (net/game.proto,
 * versions 1 and 2), checked and decoded: a server's Welcome into a spec
 * with every seat's spaces, team and role (a version 1 Welcome into two
 * seats alike, zero-sum), a BatchReply into its ops' States (each
 * mover's observation and mask, from a mask or a list of legal actions;
 * returns per seat checked against the declared payoff and teams), and
 * the games' failures it reports logged (once in full, then counted).
 * Pure functions of the bytes but for that log: the fuzz harness
 * (tests/fuzz/fuzz_remote.c) drives them. The connections and the queue
 * of ops are remote.c's.
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

/* Seat p's observation shape (n dims at dims) into its spec seat:
 * LG_EPROTO (err names the seat) unless 1..4 positive dims of at most
 * LEAGUE_GAME_OBS_MAX floats in all. */
static int seat_shape(const char *game, int p, const uint32_t *dims,
		      size_t n, struct env_seat *seat, char *err,
		      size_t errlen)
{
	uint64_t prod = 1;

	if (n < 1 || n > LEAGUE_GAME_SHAPE_MAX) {
		lg_errf(err, errlen, "game '%s': seat %d: obs_shape has %zu "
			"dims (1..%d)", game, p, n, LEAGUE_GAME_SHAPE_MAX);
		return LG_EPROTO;
	}
	for (size_t i = 0; i < n; i++) {
		prod *= dims[i];
		if (!dims[i] || prod > LEAGUE_GAME_OBS_MAX) {
			lg_errf(err, errlen, "game '%s': seat %d: obs_shape "
				"must be positive, %u floats at most", game,
				p, LEAGUE_GAME_OBS_MAX);
			return LG_EPROTO;
		}
	}
	seat->obs_len = (size_t)prod;
	seat->obs_rank = n > 1 ? (uint32_t)n : 0;
	memset(seat->obs_shape, 0, sizeof seat->obs_shape);
	for (size_t i = 0; n > 1 && i < n; i++)
		seat->obs_shape[i] = dims[i];
	return 0;
}

/* 1 when s is a role's name: [a-z0-9_-]{1,ENV_ROLE_MAX-1}. */
static int role_ok(const char *s)
{
	size_t n = strlen(s);

	return n < ENV_ROLE_MAX && env_name_ok(s);
}

/* The role `name` ("" is "player") of seat p: its index in spec's
 * roles, added when new; LG_EPROTO when a seat of that role has other
 * spaces. */
static int seat_role(struct env_spec *sp, int p, const char *name,
		     char *err, size_t errlen)
{
	const struct env_seat *me = &sp->seat[p];
	int r = 0;

	if (!name[0])
		name = "player";
	while (r < sp->roles && strcmp(sp->role_name[r], name))
		r++;
	if (r == sp->roles)
		snprintf(sp->role_name[sp->roles++], ENV_ROLE_MAX, "%s", name);
	sp->seat[p].role = r;
	for (int q = 0; q < p; q++) {
		const struct env_seat *o = &sp->seat[q];
		if (o->role == r &&
		    (o->obs_len != me->obs_len ||
		     o->num_actions != me->num_actions ||
		     o->obs_rank != me->obs_rank ||
		     memcmp(o->obs_shape, me->obs_shape,
			    sizeof o->obs_shape))) {
			lg_errf(err, errlen, "game '%s': seats %d and %d of "
				"the role '%s' differ in their spaces",
				sp->name, q, p, name);
			return LG_EPROTO;
		}
	}
	return 0;
}

/* A version 2 Spec's seats, payoff and teams into sp (name, players
 * set). LG_EPROTO (err says which seat and what) for one out of
 * range. */
static int spec_seats_v2(const League__Game__Spec *s, struct env_spec *sp,
			 char *err, size_t errlen)
{
	int seen[ENV_MAX_PLAYERS] = { 0 }, rc;

	if (s->n_seats != s->players) {
		lg_errf(err, errlen, "game '%s': %zu seats for %u players",
			s->name, s->n_seats, s->players);
		return LG_EPROTO;
	}
	if (s->teams > s->players) {
		lg_errf(err, errlen, "game '%s': teams %u (0..%u)", s->name,
			s->teams, s->players);
		return LG_EPROTO;
	}
	if ((unsigned)s->payoff > ENV_GENERAL_SUM ||
	    !isfinite(s->payoff_sum) || fabs(s->payoff_sum) > 1e9) {
		lg_errf(err, errlen, "game '%s': payoff %d (0..3) or "
			"payoff_sum %g (finite, |x| <= 1e9)", s->name,
			(int)s->payoff, s->payoff_sum);
		return LG_EPROTO;
	}
	for (int p = 0; p < sp->players; p++) {
		const League__Game__Seat *t = s->seats[p];
		struct env_seat *st = &sp->seat[p];
		if ((rc = seat_shape(s->name, p, t->obs_shape, t->n_obs_shape,
				     st, err, errlen)))
			return rc;
		if (t->num_actions < 1 ||
		    t->num_actions > ENV_GAME_ACTIONS_MAX) {
			lg_errf(err, errlen, "game '%s': seat %d: num_actions "
				"%u (1..%d)", s->name, p, t->num_actions,
				ENV_GAME_ACTIONS_MAX);
			return LG_EPROTO;
		}
		if (s->teams ? t->team >= s->teams : t->team != 0) {
			lg_errf(err, errlen, "game '%s': seat %d: team %u (%s "
				"%u)", s->name, p, t->team,
				s->teams ? "teams are 0 .." : "no teams: must be",
				s->teams ? s->teams - 1 : 0);
			return LG_EPROTO;
		}
		if (t->role[0] && !role_ok(t->role)) {
			lg_errf(err, errlen, "game '%s': seat %d: a role must "
				"match [a-z0-9_-]{1,15} (or be \"\")",
				s->name, p);
			return LG_EPROTO;
		}
		st->num_actions = (int)t->num_actions;
		st->team = s->teams ? (int)t->team : p;
		seen[st->team] = 1;
		if ((rc = seat_role(sp, p, t->role, err, errlen)))
			return rc;
	}
	for (uint32_t k = 0; k < s->teams; k++)
		if (!seen[k]) {
			lg_errf(err, errlen, "game '%s': team %u has no seat",
				s->name, k);
			return LG_EPROTO;
		}
	sp->teams = s->teams ? (int)s->teams : sp->players;
	sp->payoff = (int)s->payoff;
	sp->payoff_sum =
		sp->payoff == ENV_CONSTANT_SUM ? s->payoff_sum : 0;
	return 0;
}

/* A version 1 Spec (2 seats alike, zero-sum, <= 64 actions) into sp
 * (name set). */
static int spec_seats_v1(const League__Game__Spec *s, struct env_spec *sp,
			 char *err, size_t errlen)
{
	int rc;

	if (s->players != 2 || s->num_actions < 1 ||
	    s->num_actions > ENV_MAX_ACTIONS) {
		lg_errf(err, errlen, "game '%s': its spec is out of range "
			"(2 players, 1..%d actions)", s->name,
			ENV_MAX_ACTIONS);
		return LG_EPROTO;
	}
	if ((rc = seat_shape(s->name, 0, s->obs_shape, s->n_obs_shape,
			     &sp->seat[0], err, errlen)))
		return rc;
	sp->seat[0].num_actions = (int)s->num_actions;
	sp->seat[1] = sp->seat[0];
	sp->seat[1].team = 1;
	sp->teams = 2;
	sp->roles = 1;
	snprintf(sp->role_name[0], ENV_ROLE_MAX, "player");
	sp->payoff = ENV_ZERO_SUM;
	return 0;
}

/* The spec's summary fields from its seats: the largest obs_len and
 * num_actions, seat 0's shape, the flags (text: the server answers text
 * ops). */
static void spec_summary(struct env_spec *sp, int simultaneous, int text)
{
	const struct env_seat *s0 = &sp->seat[0];

	sp->obs_rank = s0->obs_rank;
	memcpy(sp->obs_shape, s0->obs_shape, sizeof sp->obs_shape);
	sp->flags = (simultaneous ? ENV_F_SIMULTANEOUS : 0) |
		    (sp->payoff == ENV_ZERO_SUM ? ENV_F_ZERO_SUM : 0) |
		    (text ? ENV_F_TEXT : 0);
	for (int p = 0; p < sp->players; p++) {
		const struct env_seat *t = &sp->seat[p];
		if (t->obs_len > sp->obs_len)
			sp->obs_len = t->obs_len;
		if (t->num_actions > sp->num_actions)
			sp->num_actions = t->num_actions;
		if (t->obs_len != s0->obs_len ||
		    t->num_actions != s0->num_actions ||
		    t->obs_rank != s0->obs_rank ||
		    memcmp(t->obs_shape, s0->obs_shape, sizeof t->obs_shape))
			sp->flags |= ENV_F_ASYMMETRIC;
	}
}

int env_remote_decode_welcome(const uint8_t *buf, size_t len,
			      const char *want, struct env_spec *spec,
			      unsigned *version, char *err, size_t errlen)
{
	League__Game__Welcome *w =
		league__game__welcome__unpack(NULL, len, buf);
	const League__Game__Spec *s;
	struct env_spec sp;
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
	if (w->version < 1 || w->version > ENV_REMOTE_VERSION) {
		lg_errf(err, errlen, "it speaks protocol version %u, league "
			"speaks 1 to %u", w->version, ENV_REMOTE_VERSION);
		goto out;
	}
	if (!s || !s->name || !env_name_ok(s->name)) {
		lg_errf(err, errlen, "its spec has no valid game name "
			"([a-z0-9_-]{1,31})");
		goto out;
	}
	if (s->players < 1 || s->players > ENV_MAX_PLAYERS ||
	    s->max_steps < 1) {
		lg_errf(err, errlen, "game '%s': its spec is out of range "
			"(1..%d players, max_steps >= 1)", s->name,
			ENV_MAX_PLAYERS);
		goto out;
	}
	memset(&sp, 0, sizeof sp);
	snprintf(sp.name, sizeof sp.name, "%s", s->name);
	sp.players = (int)s->players;
	sp.max_steps = s->max_steps;
	if ((rc = w->version == 1 ? spec_seats_v1(s, &sp, err, errlen)
				  : spec_seats_v2(s, &sp, err, errlen)))
		goto out;
	rc = LG_EPROTO;
	if (want && want[0] && strcmp(want, s->name)) {
		lg_errf(err, errlen, "it serves the game '%s', not '%s'",
			s->name, want);
		rc = LG_EINVAL;
		goto out;
	}
	spec_summary(&sp, s->simultaneous, w->version >= 2 && s->text);
	*spec = sp;
	*version = w->version;
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

/* Where decoding a BatchReply of protocol `version` stands: how much of
 * its obs (floats), mask bytes, returns, legal_n and legal entries, and
 * of text, names_n and named/names the ops so far used; seen, a scratch
 * mask for the listed legal or named actions of an op (NULL until one
 * needs it). */
struct reply_cursor {
	const League__Game__BatchReply *rp;
	unsigned version;
	size_t nobs, oo, mo, ro, no, lo, to, tn, ni;
	uint8_t *seen;
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

/* Returns r[0..n) of a game with spec sp: "" when they are as it
 * declares (version 1: two summing to 0 within 1e-6 * (1 + |r0|);
 * version 2: finite, |r| <= 1e9, the payoff's sum or equality and equal
 * within a team, to 1e-6 * (1 + max |r|)), else what is wrong. */
static const char *returns_wrong(const double *r, int n,
				 const struct env_spec *sp, unsigned version)
{
	double sum = 0, big = 0, lo = r[0], hi = r[0], tol;
	double tlo[ENV_MAX_PLAYERS], thi[ENV_MAX_PLAYERS];
	int has[ENV_MAX_PLAYERS] = { 0 };

	if (version == 1)
		return isfinite(r[0]) && isfinite(r[1]) && fabs(r[0]) <= 1e9 &&
			       fabs(r[0] + r[1]) <= 1e-6 * (1 + fabs(r[0]))
			       ? ""
			       : "not finite and summing to 0";
	for (int p = 0; p < n; p++) {
		if (!isfinite(r[p]) || fabs(r[p]) > 1e9)
			return "not finite (|r| <= 1e9)";
		sum += r[p];
		big = fabs(r[p]) > big ? fabs(r[p]) : big;
		lo = r[p] < lo ? r[p] : lo;
		hi = r[p] > hi ? r[p] : hi;
	}
	tol = 1e-6 * (1 + big);
	if (sp->payoff == ENV_ZERO_SUM && fabs(sum) > tol)
		return "not summing to 0 (zero-sum)";
	if (sp->payoff == ENV_CONSTANT_SUM && fabs(sum - sp->payoff_sum) > tol)
		return "not summing to the game's constant";
	if (sp->payoff == ENV_COMMON_PAYOFF && hi - lo > tol)
		return "not all equal (common payoff)";
	for (int p = 0; p < n; p++) { /* each team's least and most */
		int t = sp->seat[p].team;
		tlo[t] = has[t] && tlo[t] < r[p] ? tlo[t] : r[p];
		thi[t] = has[t] && thi[t] > r[p] ? thi[t] : r[p];
		has[t] = 1;
	}
	for (int t = 0; t < ENV_MAX_PLAYERS; t++)
		if (has[t] && thi[t] - tlo[t] > tol)
			return "not equal within a team";
	return "";
}

/* Op i ended: its returns (one per seat), next at the cursor, must be
 * as the game declares; into view unless NULL. */
static int reply_returns(struct reply_cursor *cur,
			 const struct env_spec *sp, size_t i,
			 struct env_remote *view, char *err, size_t errlen)
{
	const League__Game__BatchReply *rp = cur->rp;
	size_t n = (size_t)sp->players;
	const double *r;
	const char *wrong;

	if (n > rp->n_returns - cur->ro) {
		lg_errf(err, errlen, "op %zu ended without its %zu returns",
			i, n);
		return LG_EPROTO;
	}
	r = rp->returns + cur->ro; /* not before: returns may be NULL */
	cur->ro += n;
	if (*(wrong = returns_wrong(r, (int)n, sp, cur->version))) {
		lg_errf(err, errlen, "op %zu: returns %g, %g%s: %s", i, r[0],
			r[1 % n], n > 2 ? ", ..." : "", wrong);
		return LG_EPROTO;
	}
	if (view) {
		view->player = -1;
		memcpy(view->ret, r, n * sizeof *r);
	}
	return 0;
}

/* The movers [*lo, *hi) of op i with player p on a game of spec sp:
 * every seat (-2) in a simultaneous game, one seat in a sequential one;
 * LG_EPROTO for any other p. */
static int reply_movers(size_t i, int p, const struct env_spec *sp, int *lo,
			int *hi, char *err, size_t errlen)
{
	if (p == -2 && (sp->flags & ENV_F_SIMULTANEOUS)) {
		*lo = 0;
		*hi = sp->players;
	} else if (p >= 0 && p < sp->players &&
		   !(sp->flags & ENV_F_SIMULTANEOUS)) {
		*lo = p;
		*hi = p + 1;
	} else {
		lg_errf(err, errlen, "op %zu: player %d (0..%d in a "
			"sequential game, -2 in a simultaneous one, "
			"-1 over, -3 none)", i, p, sp->players - 1);
		return LG_EPROTO;
	}
	return 0;
}

/* Mover q's legal actions as a mask of na bytes at m (0 or 1, one 1 at
 * least), next at the cursor, into row (na bytes) unless NULL. */
static int mover_mask(struct reply_cursor *cur, size_t i, int q, size_t na,
		      uint8_t *row, char *err, size_t errlen)
{
	const uint8_t *m;
	size_t legal = 0;

	if (na > cur->rp->mask.len - cur->mo) {
		lg_errf(err, errlen, "op %zu: the mask of seat %d runs out "
			"(%zu bytes in all)", i, q, cur->rp->mask.len);
		return LG_EPROTO;
	}
	m = cur->rp->mask.data + cur->mo;
	for (size_t a = 0; a < na; a++) {
		if (m[a] > 1) {
			lg_errf(err, errlen, "op %zu: mask byte %u (not 0 or "
				"1)", i, m[a]);
			return LG_EPROTO;
		}
		legal += m[a];
	}
	if (!legal) {
		lg_errf(err, errlen, "op %zu: player %d must move but has no "
			"legal action", i, q);
		return LG_EPROTO;
	}
	if (row)
		memcpy(row, m, na);
	cur->mo += na;
	return 0;
}

/* Mover q's k listed legal actions, next at the cursor: distinct, each
 * below na; made a mask in row (na bytes) when not NULL, else checked on
 * the cursor's scratch mask (left clear). */
static int mover_list(struct reply_cursor *cur, size_t i, int q, size_t k,
		      size_t na, size_t cap, uint8_t *row, char *err,
		      size_t errlen)
{
	const uint32_t *l;
	uint8_t *m = row;
	int rc = 0;

	if (k > cur->rp->n_legal - cur->lo) {
		lg_errf(err, errlen, "op %zu: the %zu legal actions of seat "
			"%d run out (%zu in all)", i, k, q, cur->rp->n_legal);
		return LG_EPROTO;
	}
	l = cur->rp->legal + cur->lo;
	if (!m && !cur->seen && !(cur->seen = calloc(cap, 1))) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	if (row)
		memset(row, 0, na);
	else
		m = cur->seen;
	for (size_t j = 0; j < k && !rc; j++) {
		if (l[j] >= na || m[l[j]]) {
			lg_errf(err, errlen, "op %zu: seat %d's legal action "
				"%u is not below %zu or is listed twice", i, q,
				l[j], na);
			rc = LG_EPROTO;
			k = j; /* clear what was set */
			break;
		}
		m[l[j]] = 1;
	}
	if (!row)
		for (size_t j = 0; j < k; j++)
			m[l[j]] = 0;
	cur->lo += k;
	return rc;
}

/* Mover q of op i on a game of spec sp: its legal actions (version 1: a
 * mask; version 2: the next legal_n entry says a mask or a list) and its
 * finite obs, next at the cursor, into view's row q unless view is NULL;
 * the cursor moves past them. */
static int reply_mover(struct reply_cursor *cur, const struct env_spec *sp,
		       size_t i, int q, struct env_remote *view, char *err,
		       size_t errlen)
{
	const struct env_seat *seat = &sp->seat[q];
	size_t ol = seat->obs_len, na = (size_t)seat->num_actions;
	uint8_t *row = view ? view->mask + (size_t)q * sp->num_actions : NULL;
	const uint8_t *ob;
	size_t k = 0;
	int rc;

	if (ol > cur->nobs - cur->oo) {
		lg_errf(err, errlen, "op %zu: the obs of seat %d run out "
			"(%zu floats in all)", i, q, cur->nobs);
		return LG_EPROTO;
	}
	ob = cur->rp->obs.data + 4 * cur->oo; /* ol >= 1 floats are there */
	if (cur->version >= 2) {
		if (cur->no >= cur->rp->n_legal_n) {
			lg_errf(err, errlen, "op %zu: no legal_n for seat %d "
				"(%zu in all)", i, q, cur->rp->n_legal_n);
			return LG_EPROTO;
		}
		k = cur->rp->legal_n[cur->no++];
	}
	rc = k ? mover_list(cur, i, q, k, na, (size_t)sp->num_actions, row,
			    err, errlen)
	       : mover_mask(cur, i, q, na, row, err, errlen);
	if (rc)
		return rc;
	for (size_t x = 0; x < ol; x++) {
		float v = f32le(ob + 4 * x);
		if (!isfinite(v)) {
			lg_errf(err, errlen, "op %zu: obs[%zu] of seat %d is "
				"not finite", i, x, q);
			return LG_EPROTO;
		}
		if (view)
			view->obs[(size_t)q * sp->obs_len + x] = v;
	}
	cur->oo += ol;
	return 0;
}

/* 1 when s is an action's name as a server may send it: 1 ..
 * ENV_ACTION_NAME_MAX - 1 bytes without blanks or control characters. */
static int action_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n >= ENV_ACTION_NAME_MAX)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* The k actions of seat q (na of them) that text op i names, next at the
 * cursor: distinct, each below na, each name action_name_ok. The
 * cursor's scratch mask is left clear. */
static int text_names_ok(struct reply_cursor *cur, size_t cap, size_t i,
			 int q, size_t k, size_t na, char *err, size_t errlen)
{
	const League__Game__BatchReply *rp = cur->rp;
	size_t j;
	int rc = 0;

	if (k > na || k > rp->n_named - cur->ni || k > rp->n_names - cur->ni) {
		lg_errf(err, errlen, "op %zu: %zu names of seat %d's %zu "
			"actions (named %zu, names %zu in all)", i, k, q, na,
			rp->n_named, rp->n_names);
		return LG_EPROTO;
	}
	if (!cur->seen && !(cur->seen = calloc(cap, 1))) {
		lg_errf(err, errlen, "out of memory");
		return LG_ENOMEM;
	}
	for (j = 0; j < k; j++) {
		uint32_t a = rp->named[cur->ni + j];
		if (a >= na || cur->seen[a] ||
		    !action_name_ok(rp->names[cur->ni + j])) {
			lg_errf(err, errlen, "op %zu: seat %d's named action "
				"%u is not below %zu, is named twice, or its "
				"name is not 1..%d bytes without blanks and "
				"control characters", i, q, a, na,
				ENV_ACTION_NAME_MAX - 1);
			rc = LG_EPROTO;
			break;
		}
		cur->seen[a] = 1;
	}
	for (size_t x = 0; x < j; x++)
		cur->seen[rp->named[cur->ni + x]] = 0;
	return rc;
}

/* Text op i for seat q (player -3, not failed): its text (under
 * ENV_TEXT_MAX bytes) and the names its names_n entry counts, next at the
 * cursor, into view's text block unless view is NULL (the text's control
 * characters but '\n' made spaces, each action not named ""). */
static int reply_text(struct reply_cursor *cur, const struct env_spec *sp,
		      size_t i, int q, struct env_remote *view, char *err,
		      size_t errlen)
{
	const League__Game__BatchReply *rp = cur->rp;
	size_t na, k;
	const char *t;
	int rc;

	if (q < 0 || q >= sp->players) {
		lg_errf(err, errlen, "op %zu: a text op for seat %d (0..%d)",
			i, q, sp->players - 1);
		return LG_EPROTO;
	}
	na = (size_t)sp->seat[q].num_actions;
	if (cur->to >= rp->n_text || cur->tn >= rp->n_names_n) {
		lg_errf(err, errlen, "op %zu: no text or names_n for its text "
			"op (%zu and %zu in all)", i, rp->n_text,
			rp->n_names_n);
		return LG_EPROTO;
	}
	t = rp->text[cur->to++];
	if (strlen(t) >= ENV_TEXT_MAX) {
		lg_errf(err, errlen, "op %zu: a text of %zu bytes (under %d)",
			i, strlen(t), ENV_TEXT_MAX);
		return LG_EPROTO;
	}
	k = rp->names_n[cur->tn++];
	if ((rc = text_names_ok(cur, (size_t)sp->num_actions, i, q, k, na,
				err, errlen)))
		return rc;
	if (view) {
		snprintf(view->text, ENV_TEXT_MAX, "%s", t);
		for (char *c = view->text; *c; c++)
			if (((unsigned char)*c < 0x20 && *c != '\n') ||
			    *c == 0x7f)
				*c = ' ';
		for (size_t a = 0; a < na; a++)
			view->names[a][0] = 0;
		for (size_t j = 0; j < k; j++)
			snprintf(view->names[rp->named[cur->ni + j]],
				 ENV_ACTION_NAME_MAX, "%s",
				 rp->names[cur->ni + j]);
	}
	cur->ni += k;
	return 0;
}

/* Op i of a reset or step, with player p: its state (returns when over,
 * else each mover's legal actions and obs) from the cursor into view
 * unless NULL. LG_EPROTO (err says why) for one that breaks the
 * protocol. */
static int reply_state(struct reply_cursor *cur, const struct env_spec *sp,
		       size_t i, int p, struct env_remote *view, char *err,
		       size_t errlen)
{
	int lo, hi, rc;

	if (p == -1)
		return reply_returns(cur, sp, i, view, err, errlen);
	if ((rc = reply_movers(i, p, sp, &lo, &hi, err, errlen)))
		return rc;
	for (int q = lo; q < hi; q++)
		if ((rc = reply_mover(cur, sp, i, q, view, err, errlen)))
			return rc;
	if (view)
		view->player = p;
	return 0;
}

int env_remote_decode_batch(const uint8_t *buf, size_t len,
			    const struct env_spec *sp, unsigned version,
			    const int *kinds, const int *seats, size_t n,
			    struct env_remote *const *views, int *rcs,
			    const char *addr, char *err, size_t errlen)
{
	League__Game__BatchReply *rp =
		league__game__batch_reply__unpack(NULL, len, buf);
	struct reply_cursor cur = { .rp = rp, .version = version };
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
		if (kinds[i] == ENV_REMOTE_TEXT && p != -3) {
			lg_errf(err, errlen, "op %zu: player %d for a text op "
				"(must be -3)", i, p);
			rc = LG_EPROTO;
		} else if (kinds[i] == ENV_REMOTE_TEXT)
			rc = rcs[i] ? 0
				    : reply_text(&cur, sp, i, seats ? seats[i] : -1,
						 views ? views[i] : NULL, err,
						 errlen);
		else if (kinds[i] == ENV_REMOTE_CLOSE || p == -3)
			rc = reply_stateless(i, kinds[i], p, rcs[i], err,
					     errlen);
		else
			rc = reply_state(&cur, sp, i, p,
					 views ? views[i] : NULL, err, errlen);
		if (rc)
			goto out;
	}
	/* version 1 does not know legal_n, legal and the text: not read */
	if (version == 1) {
		cur.no = rp->n_legal_n, cur.lo = rp->n_legal;
		cur.to = rp->n_text, cur.tn = rp->n_names_n;
		cur.ni = rp->n_named;
	}
	if (cur.oo != cur.nobs || cur.mo != rp->mask.len ||
	    cur.ro != rp->n_returns || cur.no != rp->n_legal_n ||
	    cur.lo != rp->n_legal || cur.to != rp->n_text ||
	    cur.tn != rp->n_names_n || cur.ni != rp->n_named ||
	    (version >= 2 && rp->n_named != rp->n_names)) {
		lg_errf(err, errlen, "entries left over: %zu of %zu floats, "
			"%zu of %zu mask bytes, %zu of %zu returns, %zu of %zu "
			"legal_n, %zu of %zu legal, %zu of %zu text, %zu of %zu "
			"names_n, %zu of %zu named and %zu names used", cur.oo,
			cur.nobs, cur.mo, rp->mask.len, cur.ro, rp->n_returns,
			cur.no, rp->n_legal_n, cur.lo, rp->n_legal, cur.to,
			rp->n_text, cur.tn, rp->n_names_n, cur.ni,
			rp->n_named, rp->n_names);
		rc = LG_EPROTO;
		goto out;
	}
	rc = 0;
out:
	free(cur.seen);
	league__game__batch_reply__free_unpacked(rp, NULL);
	return rc;
}

int env_remote_decode_reply(const uint8_t *buf, size_t len,
			    const struct env_spec *spec, unsigned version,
			    const int *kinds, const int *seats, size_t n,
			    int *rcs, char *err, size_t errlen)
{
	return env_remote_decode_batch(buf, len, spec, version, kinds, seats,
				       n, NULL, rcs, NULL, err, errlen);
}
