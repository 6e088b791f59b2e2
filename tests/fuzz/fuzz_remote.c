/* tests/fuzz/fuzz_remote.c: libFuzzer harness for the decoders of the
 * remote game protocol (net/game.proto; envs/remote.c): the Welcome a
 * game server answers a Hello with (env_remote_decode_welcome) and the
 * columnar BatchReply it answers each Batch with
 * (env_remote_decode_reply), the bytes of a frame's body as any server,
 * ours or not, may send them.
 *
 * Input: a selector byte. Bit 0 clear: a Welcome, bits 1-2 the game the
 * client wants (NULL, "", "tictactoe", "rps"), then the message. Bit 0
 * set: a BatchReply for a game of bits 1-2's spec (0: sequential, 9
 * actions, obs_len 27; 1: simultaneous, 3 actions, obs_len 2; 2:
 * sequential, 1 action, obs_len 1; 3: simultaneous, 2 actions, obs_len
 * 1); then a byte whose low 3 bits are the op count n (0..7), n bytes of
 * op kinds (each mod 3: reset, step, close), the message.
 *
 * Checked, Welcome: 0, LG_EPROTO or LG_EINVAL with a one-line message (no
 * control character); a refused one leaves spec as it was, and one whose
 * error is set is LG_EINVAL and quotes it (control characters made
 * spaces); an accepted one is in range (a valid name, the wanted one if
 * any, 2 players, 1..64 actions, 1 <= obs_len <= 2^20, max_steps >= 1, an
 * obs shape whose product is obs_len) and is what the message says.
 * BatchReply: 0 or LG_EPROTO with a one-line message; nothing written to
 * rcs past op n - 1, whatever the verdict; the verdict is the harness's
 * own reading of the rules (reply_valid, over the message unpacked again
 * with protobuf-c): one player per op, each 0/1 in a sequential game or
 * -2 in a simultaneous one (a mover each), -1 (over) or -3 (no state);
 * per mover, in op order, obs_len finite floats of obs and num_actions
 * bytes of mask, 0 or 1 with at least one 1; per op over two finite
 * returns (|r| <= 1e9) summing to 0 within 1e-6 * (1 + |first|); obs,
 * mask and returns used up exactly (obs whole floats); a close with
 * player -3 and no failure; a Failure per op at most, in range, for a
 * reset or step with player -3, and player -3 on a reset or step only
 * with one. When 0, rcs[i] is LG_EINVAL exactly for the ops a Failure
 * names, else 0. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "envs/env_internal.h"

#include "game.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS 7

static const char *const wants[4] = { NULL, "", "tictactoe", "rps" };

/* The games a BatchReply answers (selector bits 1-2). */
static const struct env_spec specs[4] = {
	{ .name = "tictactoe", .players = 2, .obs_len = 27, .num_actions = 9,
	  .max_steps = 9, .flags = ENV_F_ZERO_SUM, .obs_rank = 3,
	  .obs_shape = { 3, 3, 3 } },
	{ .name = "rps", .players = 2, .obs_len = 2, .num_actions = 3,
	  .max_steps = 1, .flags = ENV_F_ZERO_SUM | ENV_F_SIMULTANEOUS },
	{ .name = "tiny", .players = 2, .obs_len = 1, .num_actions = 1,
	  .max_steps = 4, .flags = ENV_F_ZERO_SUM },
	{ .name = "tiny_sim", .players = 2, .obs_len = 1, .num_actions = 2,
	  .max_steps = 4, .flags = ENV_F_ZERO_SUM | ENV_F_SIMULTANEOUS },
};

static int name_ok(const char *s)
{
	size_t n = strnlen(s, ENV_NAME_MAX);

	if (n < 1 || n >= ENV_NAME_MAX)
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

static void welcome(const uint8_t *data, size_t size, const char *want)
{
	struct env_spec spec, before;
	League__Game__Welcome *w;
	const League__Game__Spec *s;
	char err[512] = "";
	uint64_t prod = 1;
	int rc;

	memset(&spec, 0xa5, sizeof spec);
	memcpy(&before, &spec, sizeof spec);
	rc = env_remote_decode_welcome(data, size, want, &spec, err,
				       sizeof err);
	w = league__game__welcome__unpack(NULL, size, data);
	if (rc) {
		if ((rc != LG_EPROTO && rc != LG_EINVAL) || !err[0] ||
		    !one_line(err) || memcmp(&spec, &before, sizeof spec))
			abort();
		if (w && w->error && w->error[0]) {
			if (rc != LG_EINVAL)
				abort();
			refused_text(w->error, err);
		}
		if (w)
			league__game__welcome__free_unpacked(w, NULL);
		return;
	}
	if (!name_ok(spec.name) ||
	    (want && want[0] && strcmp(want, spec.name)) ||
	    spec.players != 2 || spec.num_actions < 1 ||
	    spec.num_actions > ENV_MAX_ACTIONS || spec.obs_len < 1 ||
	    spec.obs_len > LEAGUE_GAME_OBS_MAX || spec.max_steps < 1 ||
	    (spec.flags & ~(unsigned)(ENV_F_ZERO_SUM | ENV_F_SIMULTANEOUS)) ||
	    !(spec.flags & ENV_F_ZERO_SUM) || spec.obs_rank == 1 ||
	    spec.obs_rank > LEAGUE_GAME_SHAPE_MAX)
		abort();
	for (uint32_t i = 0; i < spec.obs_rank; i++)
		prod *= spec.obs_shape[i];
	if (spec.obs_rank && prod != spec.obs_len)
		abort();
	/* what the message says */
	if (!w || !(s = w->spec) || w->version != 1 ||
	    (w->error && w->error[0]) || strcmp(s->name, spec.name) ||
	    s->num_actions != (uint32_t)spec.num_actions ||
	    s->max_steps != spec.max_steps ||
	    !s->simultaneous != !(spec.flags & ENV_F_SIMULTANEOUS) ||
	    s->n_obs_shape < 1 ||
	    spec.obs_rank != (s->n_obs_shape > 1 ? s->n_obs_shape : 0))
		abort();
	prod = 1;
	for (size_t i = 0; i < s->n_obs_shape; i++) {
		prod *= s->obs_shape[i];
		if (spec.obs_rank && s->obs_shape[i] != spec.obs_shape[i])
			abort();
	}
	if (prod != spec.obs_len)
		abort();
	league__game__welcome__free_unpacked(w, NULL);
}

/* One mover's num_actions mask bytes, 0 or 1, at least one 1, and
 * obs_len finite little-endian floats. */
static int mover_ok(const uint8_t *mask, size_t na, const uint8_t *obs,
		    size_t ol)
{
	size_t legal = 0;

	for (size_t a = 0; a < na; a++) {
		if (mask[a] > 1)
			return 0;
		legal += mask[a];
	}
	if (!legal)
		return 0;
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

/* The harness's own reading of net/game.proto's BatchReply rules: 1 when
 * rp is a valid answer to ops of kinds on a game of spec sp, with want[i]
 * LG_EINVAL for an op a Failure names, else 0. Every column must be used
 * up exactly, in op order. */
static int reply_valid(const League__Game__BatchReply *rp,
		       const struct env_spec *sp, const int *kinds, size_t n,
		       int *want)
{
	size_t ol = sp->obs_len, na = (size_t)sp->num_actions;
	size_t oo = 0, mo = 0, ro = 0, nobs = rp->obs.len / 4;
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
		size_t movers;
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
		if (p == -1) { /* over: two finite returns summing to 0 */
			double a, b;
			if (rp->n_returns - ro < 2)
				return 0;
			a = rp->returns[ro];
			b = rp->returns[ro + 1];
			ro += 2;
			if (!isfinite(a) || !isfinite(b) || fabs(a) > 1e9 ||
			    fabs(a + b) > 1e-6 * (1 + fabs(a)))
				return 0;
			continue;
		}
		if (sim ? p != -2 : (p != 0 && p != 1))
			return 0;
		movers = sim ? 2 : 1;
		for (size_t q = 0; q < movers; q++) {
			if (nobs - oo < ol || rp->mask.len - mo < na ||
			    !mover_ok(rp->mask.data + mo, na,
				      rp->obs.data + 4 * oo, ol))
				return 0;
			oo += ol;
			mo += na;
		}
	}
	return oo == nobs && mo == rp->mask.len && ro == rp->n_returns;
}

static void reply(const uint8_t *data, size_t size,
		  const struct env_spec *sp, const int *kinds, size_t n)
{
	League__Game__BatchReply *rp;
	int rcs[MAX_OPS + 1], want[MAX_OPS];
	char err[512] = "";
	int rc, valid;

	for (size_t i = 0; i <= MAX_OPS; i++)
		rcs[i] = 1; /* never an rc */
	rc = env_remote_decode_reply(data, size, sp, kinds, n, rcs, err,
				     sizeof err);
	for (size_t i = n; i <= MAX_OPS; i++)
		if (rcs[i] != 1)
			abort(); /* written beyond the ops */
	rp = league__game__batch_reply__unpack(NULL, size, data);
	valid = rp && reply_valid(rp, sp, kinds, n, want);
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
	int kinds[MAX_OPS];
	size_t n;
	uint8_t sel;

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
	for (size_t i = 0; i < n; i++)
		kinds[i] = data[1 + i] % 3;
	data += 1 + n;
	size -= 1 + n;
	reply(data, size, &specs[(sel >> 1) & 3], kinds, n);
	return 0;
}
