/* tests/fuzz/fuzz_remote.c: libFuzzer harness for the decoders of the
 * remote game protocol (net/game.proto, versions 1 and 2; envs/remote.c):
 * the Welcome a game server answers a Hello with
 * (env_remote_decode_welcome) and the columnar BatchReply it answers each
 * Batch with (env_remote_decode_reply), the bytes of a frame's body as
 * any server, ours or not, may send them.
 *
 * Input: a selector byte. Bit 0 clear: a Welcome, bits 1-2 the game the
 * client wants (NULL, "", "tictactoe", "rps"), then the message. Bit 0
 * set: a BatchReply of protocol version 1 (bit 3 clear) or 2 (set) for a
 * game of bits 1-2's spec (version 1, 0: sequential, 9 actions, obs_len
 * 27; 1: simultaneous, 3 actions, obs_len 2; 2: sequential, 1 action,
 * obs_len 1; 3: simultaneous, 2 actions, obs_len 1. Version 2, 0: three
 * seats in turn, 2 actions, obs_len 17, zero-sum; 1: three simultaneous
 * seats of two roles (obs 2 and 3, actions 3 and 100) in two teams,
 * general-sum; 2: four seats in turn, 4,672 actions, two teams,
 * constant-sum 1; 3: two simultaneous seats of one team, common payoff);
 * then a byte whose low 3 bits are the op count n (0..7), n bytes of op
 * kinds (version 1: each mod 3, reset, step, close; version 2: each mod
 * 4, 3 a text op for the seat byte / 4 mod players), the message.
 *
 * Checked, Welcome: 0, LG_EPROTO or LG_EINVAL with a one-line message (no
 * control character); a refused one leaves spec and version as they
 * were, and one whose error is set is LG_EINVAL and quotes it (control
 * characters made spaces). The verdict is the harness's own reading of
 * the rules (welcome_valid): version 1 or 2; a valid name, the wanted one
 * if any; max_steps >= 1; version 1: 2 players, 1..64 actions, 1 to 4
 * positive obs dims of at most 2^20 floats; version 2: 1..8 players, a
 * seat each (obs dims as above, 1..65536 actions, a role "" or
 * [a-z0-9_-]{1,15}, seats of one role alike, a team below teams, or 0
 * when teams is 0), teams 0..players each with a seat, payoff 0..3,
 * payoff_sum finite with |x| <= 1e9. An accepted one is what the message
 * says, seat by seat (team, role name, spaces), with obs_len and
 * num_actions the largest seat's, seat 0's shape, teams = players when
 * 0, the version, and exactly the flags simultaneous, zero-sum (payoff
 * 0), asymmetric (seats' spaces differ) and text (version 2's text).
 * BatchReply: 0 or LG_EPROTO with a one-line message; nothing written to
 * rcs past op n - 1, whatever the verdict; the verdict is the harness's
 * own reading of the rules (reply_valid, over the message unpacked again
 * with protobuf-c): one player per op, each a seat in a sequential game
 * or -2 in a simultaneous one (every seat moves), -1 (over) or -3 (no
 * state); per mover, in op order, its obs_len finite floats of obs and
 * its legal actions: version 1, num_actions bytes of mask, 0 or 1 with
 * at least one 1; version 2, the next legal_n entry: 0 and such a mask,
 * or k > 0 and k distinct entries of legal below its num_actions; per
 * op over one return per seat: version 1, two finite (|r| <= 1e9)
 * summing to 0 within 1e-6 * (1 + |first|); version 2, finite, |r| <=
 * 1e9, and within 1e-6 * (1 + max |r|) of the payoff (sum 0, sum
 * payoff_sum, all equal) and equal within a team; obs, mask, returns
 * (and in version 2 legal_n and legal) used up exactly (obs whole
 * floats); a close with player -3 and no failure; a Failure per op at
 * most, in range, for a reset, step or text op with player -3, and
 * player -3 on a reset or step only with one; a text op with player -3
 * and, unless failed, the next text (under 4,096 bytes) and names_n
 * entry k, then k entries of named (distinct, below its seat's
 * num_actions) and of names (1..63 bytes, none a blank, control or DEL),
 * with text, names_n, named and names used up exactly and as many named
 * as names. When 0, rcs[i] is LG_EINVAL exactly for
 * the ops a Failure names, else 0. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "envs/env_internal.h"

#include "game.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS 7

static const char *const wants[4] = { NULL, "", "tictactoe", "rps" };

/* Seats of obs_len ol and na actions, in team t, of role 0. */
#define SEAT(ol, na, t) { .obs_len = (ol), .num_actions = (na), .team = (t) }
#define SEATS2(ol, na) .seat = { SEAT(ol, na, 0), SEAT(ol, na, 1) }

/* The games a BatchReply answers: [version - 1][selector bits 1-2]. */
static const struct env_spec specs[2][4] = {
	{
		{ .name = "tictactoe", .players = 2, .obs_len = 27,
		  .num_actions = 9, .max_steps = 9, .flags = ENV_F_ZERO_SUM,
		  .obs_rank = 3, .obs_shape = { 3, 3, 3 }, .teams = 2,
		  .roles = 1, SEATS2(27, 9) },
		{ .name = "rps", .players = 2, .obs_len = 2, .num_actions = 3,
		  .max_steps = 1, .flags = ENV_F_ZERO_SUM | ENV_F_SIMULTANEOUS,
		  .teams = 2, .roles = 1, SEATS2(2, 3) },
		{ .name = "tiny", .players = 2, .obs_len = 1, .num_actions = 1,
		  .max_steps = 4, .flags = ENV_F_ZERO_SUM, .teams = 2,
		  .roles = 1, SEATS2(1, 1) },
		{ .name = "tiny_sim", .players = 2, .obs_len = 1,
		  .num_actions = 2, .max_steps = 4,
		  .flags = ENV_F_ZERO_SUM | ENV_F_SIMULTANEOUS, .teams = 2,
		  .roles = 1, SEATS2(1, 2) },
	},
	{
		{ .name = "kuhn3", .players = 3, .obs_len = 17,
		  .num_actions = 2, .max_steps = 5, .flags = ENV_F_ZERO_SUM,
		  .teams = 3, .roles = 1,
		  .seat = { SEAT(17, 2, 0), SEAT(17, 2, 1), SEAT(17, 2, 2) } },
		{ .name = "sheriff", .players = 3, .obs_len = 3,
		  .num_actions = 100, .max_steps = 1,
		  .flags = ENV_F_SIMULTANEOUS | ENV_F_ASYMMETRIC,
		  .payoff = ENV_GENERAL_SUM, .teams = 2, .roles = 2,
		  .seat = { SEAT(2, 3, 0), SEAT(3, 100, 1),
			    SEAT(3, 100, 1) } },
		{ .name = "big4", .players = 4, .obs_len = 1,
		  .num_actions = 4672, .max_steps = 8,
		  .payoff = ENV_CONSTANT_SUM, .payoff_sum = 1, .teams = 2,
		  .roles = 1,
		  .seat = { SEAT(1, 4672, 0), SEAT(1, 4672, 1),
			    SEAT(1, 4672, 0), SEAT(1, 4672, 1) } },
		{ .name = "coop", .players = 2, .obs_len = 1, .num_actions = 2,
		  .max_steps = 4, .flags = ENV_F_SIMULTANEOUS,
		  .payoff = ENV_COMMON_PAYOFF, .teams = 1, .roles = 1,
		  .seat = { SEAT(1, 2, 0), SEAT(1, 2, 0) } },
	},
};

static int name_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n < 1 || n >= max)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* No control character in err (the server's text is made one line). */
static int one_line(const char *err)
{
	for (; *err; err++)
		if ((unsigned char)*err < 0x20 || *err == 0x7f)
			return 0;
	return 1;
}

/* A Welcome that refuses (a non-empty error): its text in err, at least
 * its first 100 bytes (up to a NUL), control characters made spaces. */
static void refused_text(const char *error, const char *err)
{
	char want[101];
	size_t n = strnlen(error, 100);

	memcpy(want, error, n);
	want[n] = 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)want[i] < 0x20 || want[i] == 0x7f)
			want[i] = ' ';
	if (!strstr(err, want))
		abort();
}

/* What one seat of a Welcome says, read from the message. */
struct wseat {
	const uint32_t *dims;
	size_t rank;
	uint64_t obs_len;
	uint32_t na, team;
	const char *role;
};

/* Seat p of Spec s in protocol version v, into *o; 0 when out of
 * range. */
static int wseat_read(const League__Game__Spec *s, unsigned v, uint32_t p,
		      struct wseat *o)
{
	uint32_t na_max = v == 1 ? ENV_MAX_ACTIONS : ENV_GAME_ACTIONS_MAX;

	if (v == 1) {
		o->dims = s->obs_shape;
		o->rank = s->n_obs_shape;
		o->na = s->num_actions;
		o->team = p;
		o->role = "player";
	} else {
		const League__Game__Seat *t = s->seats[p];
		o->dims = t->obs_shape;
		o->rank = t->n_obs_shape;
		o->na = t->num_actions;
		o->team = s->teams ? t->team : p;
		o->role = t->role[0] ? t->role : "player";
		if ((s->teams ? t->team >= s->teams : t->team != 0) ||
		    (t->role[0] && !name_ok(t->role, ENV_ROLE_MAX)))
			return 0;
	}
	if (o->rank < 1 || o->rank > LEAGUE_GAME_SHAPE_MAX || o->na < 1 ||
	    o->na > na_max)
		return 0;
	o->obs_len = 1;
	for (size_t i = 0; i < o->rank; i++) {
		o->obs_len *= o->dims[i];
		if (!o->dims[i] || o->obs_len > LEAGUE_GAME_OBS_MAX)
			return 0;
	}
	return 1;
}

static int wseat_alike(const struct wseat *a, const struct wseat *b)
{
	return a->na == b->na && a->rank == b->rank &&
	       !memcmp(a->dims, b->dims, a->rank * sizeof *a->dims);
}

/* The harness's reading of a Welcome's rules (see the top): 1 when w
 * (no error set) is valid for `want`, its seats into ws. */
static int welcome_valid(const League__Game__Welcome *w, const char *want,
			 struct wseat *ws)
{
	const League__Game__Spec *s = w->spec;
	unsigned v = w->version;
	int has[ENV_MAX_PLAYERS] = { 0 };

	if ((v != 1 && v != 2) || !s || !name_ok(s->name, ENV_NAME_MAX) ||
	    s->max_steps < 1 || (want && want[0] && strcmp(want, s->name)))
		return 0;
	if (v == 1 ? s->players != 2
		   : s->players < 1 || s->players > ENV_MAX_PLAYERS ||
			     s->n_seats != s->players ||
			     s->teams > s->players || (unsigned)s->payoff > 3 ||
			     !isfinite(s->payoff_sum) ||
			     fabs(s->payoff_sum) > 1e9)
		return 0;
	for (uint32_t p = 0; p < s->players; p++) {
		if (!wseat_read(s, v, p, &ws[p]))
			return 0;
		has[ws[p].team] = 1;
		for (uint32_t q = 0; q < p; q++)
			if (!strcmp(ws[q].role, ws[p].role) &&
			    !wseat_alike(&ws[q], &ws[p]))
				return 0;
	}
	for (uint32_t t = 0; v == 2 && t < s->teams; t++)
		if (!has[t])
			return 0;
	return 1;
}

/* An accepted Welcome's spec is what the message says (ws: its seats). */
static void welcome_matches(const League__Game__Welcome *w,
			    const struct wseat *ws,
			    const struct env_spec *spec, unsigned version)
{
	const League__Game__Spec *s = w->spec;
	unsigned flags = (s->simultaneous ? ENV_F_SIMULTANEOUS : 0) |
			 (w->version == 2 && s->text ? ENV_F_TEXT : 0);
	int payoff = w->version == 1 ? 0 : (int)s->payoff, roles = 0;
	size_t ol = 0;
	int na = 0;

	if (version != w->version || strcmp(s->name, spec->name) ||
	    spec->players != (int)s->players ||
	    spec->max_steps != s->max_steps || spec->payoff != payoff ||
	    spec->payoff_sum != (payoff == ENV_CONSTANT_SUM ? s->payoff_sum
							     : 0) ||
	    spec->teams != (int)(w->version == 2 && s->teams ? s->teams
							      : s->players))
		abort();
	for (uint32_t p = 0; p < s->players; p++) {
		const struct env_seat *t = &spec->seat[p];
		int first = 1;
		if (t->obs_len != ws[p].obs_len || t->num_actions != (int)ws[p].na ||
		    t->team != (int)ws[p].team || t->role < 0 ||
		    t->role >= spec->roles ||
		    strcmp(spec->role_name[t->role], ws[p].role) ||
		    t->obs_rank != (ws[p].rank > 1 ? ws[p].rank : 0))
			abort();
		for (uint32_t i = 0; i < t->obs_rank; i++)
			if (t->obs_shape[i] != ws[p].dims[i])
				abort();
		for (uint32_t q = 0; q < p; q++)
			if (!strcmp(ws[q].role, ws[p].role))
				first = 0;
		roles += first;
		ol = t->obs_len > ol ? t->obs_len : ol;
		na = t->num_actions > na ? t->num_actions : na;
		if (!wseat_alike(&ws[p], &ws[0]))
			flags |= ENV_F_ASYMMETRIC;
	}
	if (payoff == 0)
		flags |= ENV_F_ZERO_SUM;
	if (spec->roles != roles || spec->obs_len != ol ||
	    spec->num_actions != na || spec->flags != flags ||
	    spec->obs_rank != spec->seat[0].obs_rank ||
	    memcmp(spec->obs_shape, spec->seat[0].obs_shape,
		   sizeof spec->obs_shape))
		abort();
}

static void welcome(const uint8_t *data, size_t size, const char *want)
{
	struct env_spec spec, before;
	struct wseat ws[ENV_MAX_PLAYERS];
	League__Game__Welcome *w;
	unsigned version = 77;
	char err[512] = "";
	int rc, refused, valid;

	memset(&spec, 0xa5, sizeof spec);
	memcpy(&before, &spec, sizeof spec);
	rc = env_remote_decode_welcome(data, size, want, &spec, &version, err,
				       sizeof err);
	w = league__game__welcome__unpack(NULL, size, data);
	refused = w && w->error && w->error[0];
	valid = w && !refused && welcome_valid(w, want, ws);
	if (rc) {
		if ((rc != LG_EPROTO && rc != LG_EINVAL) || !err[0] ||
		    !one_line(err) || memcmp(&spec, &before, sizeof spec) ||
		    version != 77 || valid)
			abort();
		if (refused) {
			if (rc != LG_EINVAL)
				abort();
			refused_text(w->error, err);
		}
	} else {
		if (!valid)
			abort();
		welcome_matches(w, ws, &spec, version);
	}
	if (w)
		league__game__welcome__free_unpacked(w, NULL);
}

/* One mover's mask (na bytes, 0 or 1, at least one 1) and obs_len
 * finite little-endian floats. */
static int mask_ok(const uint8_t *mask, size_t na)
{
	size_t legal = 0;

	for (size_t a = 0; a < na; a++) {
		if (mask[a] > 1)
			return 0;
		legal += mask[a];
	}
	return legal > 0;
}

static int obs_ok(const uint8_t *obs, size_t ol)
{
	for (size_t x = 0; x < ol; x++) {
		uint32_t u = (uint32_t)obs[4 * x] |
			     (uint32_t)obs[4 * x + 1] << 8 |
			     (uint32_t)obs[4 * x + 2] << 16 |
			     (uint32_t)obs[4 * x + 3] << 24;
		float f;
		memcpy(&f, &u, sizeof f);
		if (!isfinite(f))
			return 0;
	}
	return 1;
}

/* k listed actions, distinct and below na (quadratic: k is small here). */
static int list_ok(const uint32_t *l, size_t k, size_t na)
{
	for (size_t j = 0; j < k; j++) {
		if (l[j] >= na)
			return 0;
		for (size_t i = 0; i < j; i++)
			if (l[i] == l[j])
				return 0;
	}
	return 1;
}

/* Returns r[0..n) as the game of spec sp in version v declares them. */
static int returns_ok(const double *r, int n, const struct env_spec *sp,
		      unsigned v)
{
	double sum = 0, big = 0, tol;

	if (v == 1)
		return isfinite(r[0]) && isfinite(r[1]) && fabs(r[0]) <= 1e9 &&
		       fabs(r[0] + r[1]) <= 1e-6 * (1 + fabs(r[0]));
	for (int p = 0; p < n; p++) {
		if (!isfinite(r[p]) || fabs(r[p]) > 1e9)
			return 0;
		sum += r[p];
		if (fabs(r[p]) > big)
			big = fabs(r[p]);
	}
	tol = 1e-6 * (1 + big);
	if ((sp->payoff == ENV_ZERO_SUM && fabs(sum) > tol) ||
	    (sp->payoff == ENV_CONSTANT_SUM &&
	     fabs(sum - sp->payoff_sum) > tol))
		return 0;
	for (int p = 0; p < n; p++)
		for (int q = 0; q < p; q++)
			if ((sp->payoff == ENV_COMMON_PAYOFF ||
			     sp->seat[p].team == sp->seat[q].team) &&
			    fabs(r[p] - r[q]) > tol)
				return 0;
	return 1;
}

/* Where the harness's reading of a BatchReply stands. */
struct rcur {
	const League__Game__BatchReply *rp;
	size_t oo, mo, ro, no, lo, to, tn, ni;
};

/* An action's name: 1..63 bytes, each above the blank and not DEL. */
static int action_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 63)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* A text op's entries at the cursor for seat q: a text, names_n's k,
 * and k named (distinct, below q's actions) with their names. */
static int text_valid(struct rcur *c, const struct env_spec *sp, int q)
{
	const League__Game__BatchReply *rp = c->rp;
	size_t na = (size_t)sp->seat[q].num_actions, k;

	if (c->to >= rp->n_text || strlen(rp->text[c->to]) >= 4096 ||
	    c->tn >= rp->n_names_n)
		return 0;
	c->to++;
	k = rp->names_n[c->tn++];
	if (k > na || rp->n_named - c->ni < k || rp->n_names - c->ni < k ||
	    (k && !list_ok(rp->named + c->ni, k, na))) /* named: NULL if none */
		return 0;
	for (size_t j = 0; j < k; j++)
		if (!action_name_valid(rp->names[c->ni + j]))
			return 0;
	c->ni += k;
	return 1;
}

/* Seat q's obs and legal actions at the cursor, in version v. */
static int mover_valid(struct rcur *c, const struct env_spec *sp,
		       unsigned v, int q)
{
	const League__Game__BatchReply *rp = c->rp;
	size_t ol = sp->seat[q].obs_len, na = (size_t)sp->seat[q].num_actions;
	size_t k = 0;

	if (rp->obs.len / 4 - c->oo < ol || !obs_ok(rp->obs.data + 4 * c->oo,
						    ol))
		return 0;
	c->oo += ol;
	if (v == 2) {
		if (c->no >= rp->n_legal_n)
			return 0;
		k = rp->legal_n[c->no++];
	}
	if (k) {
		if (rp->n_legal - c->lo < k ||
		    !list_ok(rp->legal + c->lo, k, na))
			return 0;
		c->lo += k;
		return 1;
	}
	if (rp->mask.len - c->mo < na || !mask_ok(rp->mask.data + c->mo, na))
		return 0;
	c->mo += na;
	return 1;
}

/* The harness's own reading of net/game.proto's BatchReply rules: 1 when
 * rp is a valid answer in version v to ops of kinds on a game of spec
 * sp, with want[i] LG_EINVAL for an op a Failure names, else 0. Every
 * column must be used up exactly, in op order. */
static int reply_valid(const League__Game__BatchReply *rp,
		       const struct env_spec *sp, unsigned v,
		       const int *kinds, const int *seats, size_t n, int *want)
{
	struct rcur c = { .rp = rp };
	int sim = !!(sp->flags & ENV_F_SIMULTANEOUS);

	if (rp->n_player != n || rp->obs.len % 4)
		return 0;
	for (size_t i = 0; i < n; i++)
		want[i] = 0;
	for (size_t k = 0; k < rp->n_failures; k++) {
		uint32_t op = rp->failures[k]->op;
		if (op >= n || rp->player[op] != -3 || kinds[op] == 2 ||
		    want[op])
			return 0;
		want[op] = LG_EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		int32_t p = rp->player[i];
		if (kinds[i] == 3) { /* a text op: its text, unless failed */
			if (p != -3 || (!want[i] && !text_valid(&c, sp, seats[i])))
				return 0;
			continue;
		}
		if (kinds[i] == 2) { /* a close has no state, never fails */
			if (p != -3)
				return 0;
			continue;
		}
		if (p == -3) { /* no state: only with its Failure */
			if (!want[i])
				return 0;
			continue;
		}
		if (p == -1) { /* over: a return per seat, as declared */
			size_t np = (size_t)sp->players;
			if (rp->n_returns - c.ro < np ||
			    !returns_ok(rp->returns + c.ro, sp->players, sp, v))
				return 0;
			c.ro += np;
			continue;
		}
		if (sim ? p != -2 : (p < 0 || p >= sp->players))
			return 0;
		for (int q = sim ? 0 : p; q < (sim ? sp->players : p + 1); q++)
			if (!mover_valid(&c, sp, v, q))
				return 0;
	}
	return c.oo == rp->obs.len / 4 && c.mo == rp->mask.len &&
	       c.ro == rp->n_returns &&
	       (v == 1 || (c.no == rp->n_legal_n && c.lo == rp->n_legal &&
			   c.to == rp->n_text && c.tn == rp->n_names_n &&
			   c.ni == rp->n_named && c.ni == rp->n_names));
}

static void reply(const uint8_t *data, size_t size,
		  const struct env_spec *sp, unsigned v, const int *kinds,
		  const int *seats, size_t n)
{
	League__Game__BatchReply *rp;
	int rcs[MAX_OPS + 1], want[MAX_OPS];
	char err[512] = "";
	int rc, valid;

	for (size_t i = 0; i <= MAX_OPS; i++)
		rcs[i] = 1; /* never an rc */
	rc = env_remote_decode_reply(data, size, sp, v, kinds, seats, n, rcs,
				     err, sizeof err);
	for (size_t i = n; i <= MAX_OPS; i++)
		if (rcs[i] != 1)
			abort(); /* written beyond the ops */
	rp = league__game__batch_reply__unpack(NULL, size, data);
	valid = rp && reply_valid(rp, sp, v, kinds, seats, n, want);
	if (rc) {
		/* refused: a protocol error with a one-line message, and
		 * only what the rules refuse */
		if (rc != LG_EPROTO || !err[0] || !one_line(err) || valid)
			abort();
	} else {
		/* accepted: what the rules accept, each op's rc 0 or
		 * LG_EINVAL exactly as the Failures say */
		if (!valid)
			abort();
		for (size_t i = 0; i < n; i++)
			if (rcs[i] != want[i])
				abort();
	}
	if (rp)
		league__game__batch_reply__free_unpacked(rp, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int kinds[MAX_OPS], seats[MAX_OPS];
	const struct env_spec *sp;
	size_t n;
	uint8_t sel;
	unsigned v;

	if (size < 1)
		return 0;
	sel = data[0];
	data++;
	size--;
	if (!(sel & 1)) {
		welcome(data, size, wants[(sel >> 1) & 3]);
		return 0;
	}
	if (size < 1 || size - 1 < (size_t)(data[0] & 7))
		return 0;
	n = data[0] & 7;
	v = sel & 8 ? 2 : 1;
	sp = &specs[v - 1][(sel >> 1) & 3];
	for (size_t i = 0; i < n; i++) {
		kinds[i] = data[1 + i] % (v == 1 ? 3 : 4);
		seats[i] = data[1 + i] / 4 % sp->players;
	}
	data += 1 + n;
	size -= 1 + n;
	reply(data, size, sp, v, kinds, seats, n);
	return 0;
}
