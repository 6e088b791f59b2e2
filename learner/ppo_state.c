/*
 * learner/ppo_state.c: the trainer's state beside its parameters, so a
 * restarted learner goes on as if it never stopped (learner.h,
 * "ppo_state_save"; docs/learner.md, "Trainer state").
 *
 * Layout, little-endian, every field checked on load before anything is
 * written into the trainer:
 *
 *   0   magic "LGTS"
 *   4   u32 format version (1)
 *   8   u64 n: the net's parameter count
 *   16  u64 Adam's step
 *   24  u64 updates (the linear schedule's clock, the magnet's refresh)
 *   32  u64 s[4]: the minibatch shuffling rng
 *   64  f64 the schedule's progress (< 0: not set)
 *   72  u64 the caller's tag
 *   80  u32 flags (bit 0: a magnet follows)
 *   84  u32 reserved, 0
 *   88  f32 m[n], f32 v[n], with a magnet f32 magnet[n]
 *   end u32 CRC-32C of everything before it
 *
 * The parameters themselves are not here: they are the version blob the
 * state goes with (nn_save), stored beside it.
 */
#include "learner/ppo_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STATE_MAGIC "LGTS"
#define STATE_VERSION 1u
#define STATE_HEADER 88u
#define STATE_F_MAGNET 1u

static void put_floats(uint8_t *d, const float *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lg_put_lef32(d + 4 * i, f[i]);
}

int ppo_state_save(const ppo *p, uint64_t tag, lg_buf *out)
{
	size_t n = p->net->nparams, arrays = p->magnet ? 3 : 2;
	size_t len = STATE_HEADER + arrays * n * 4 + 4, start;
	uint8_t *b;
	int rc;

	if ((rc = lg_buf_reserve(out, len)))
		return rc;
	start = out->len;
	b = (uint8_t *)out->data + start;
	memset(b, 0, STATE_HEADER);
	memcpy(b, STATE_MAGIC, 4);
	lg_put_le32(b + 4, STATE_VERSION);
	lg_put_le64(b + 8, n);
	lg_put_le64(b + 16, p->adam_t);
	lg_put_le64(b + 24, p->updates);
	for (int i = 0; i < 4; i++)
		lg_put_le64(b + 32 + 8 * i, p->rng.s[i]);
	lg_put_lef64(b + 64, p->progress);
	lg_put_le64(b + 72, tag);
	lg_put_le32(b + 80, p->magnet ? STATE_F_MAGNET : 0);
	put_floats(b + STATE_HEADER, p->m, n);
	put_floats(b + STATE_HEADER + n * 4, p->v, n);
	if (p->magnet)
		put_floats(b + STATE_HEADER + 2 * n * 4,
			   nn_params_const(p->magnet, NULL), n);
	lg_put_le32(b + len - 4, lg_crc32c(0, b, len - 4));
	out->len = start + len;
	return 0;
}

int ppo_state_load(ppo *p, const void *buf, size_t len, uint64_t *tag,
		   char *err, size_t errlen)
{
	const uint8_t *b = buf;
	size_t n = p->net->nparams, arrays;
	uint32_t flags;
	double progress;

	if (len < STATE_HEADER + 4 || memcmp(b, STATE_MAGIC, 4)) {
		lg_errf(err, errlen, "trainer state: not one (%zu bytes)", len);
		return LG_ECORRUPT;
	}
	if (lg_get_le32(b + 4) != STATE_VERSION) {
		lg_errf(err, errlen, "trainer state: format version %u, this "
			"build reads %u", lg_get_le32(b + 4), STATE_VERSION);
		return LG_EUNSUPP;
	}
	if (lg_get_le32(b + len - 4) != lg_crc32c(0, b, len - 4)) {
		lg_errf(err, errlen, "trainer state: checksum mismatch");
		return LG_ECORRUPT;
	}
	if (lg_get_le64(b + 8) != n) {
		lg_errf(err, errlen, "trainer state: %llu parameters, the net "
			"has %zu", (unsigned long long)lg_get_le64(b + 8), n);
		return LG_EINVAL;
	}
	flags = lg_get_le32(b + 80);
	if ((flags & ~STATE_F_MAGNET) || lg_get_le32(b + 84)) {
		lg_errf(err, errlen, "trainer state: unknown flags %#x", flags);
		return LG_ECORRUPT;
	}
	if (!(flags & STATE_F_MAGNET) != !p->magnet) {
		lg_errf(err, errlen, "trainer state: %s a magnet, the "
			"trainer %s", flags & STATE_F_MAGNET ? "with" : "without",
			p->magnet ? "has one (learner.magnet_coef)" : "has none");
		return LG_EINVAL;
	}
	arrays = p->magnet ? 3 : 2;
	if (len != STATE_HEADER + arrays * n * 4 + 4) {
		lg_errf(err, errlen, "trainer state: %zu bytes, %zu expected",
			len, STATE_HEADER + arrays * n * 4 + 4);
		return LG_ECORRUPT;
	}
	if (!(lg_get_le64(b + 32) | lg_get_le64(b + 40) | lg_get_le64(b + 48) |
	      lg_get_le64(b + 56))) {
		lg_errf(err, errlen, "trainer state: an rng of zeros");
		return LG_ECORRUPT;
	}
	progress = lg_get_lef64(b + 64);
	if (!(progress < 0 || progress <= 1) || isnan(progress)) {
		lg_errf(err, errlen, "trainer state: progress %g", progress);
		return LG_ECORRUPT;
	}
	for (size_t i = 0; i < arrays * n; i++) {
		float f = lg_get_lef32(b + STATE_HEADER + 4 * i);
		/* moments are finite, the second ones not negative */
		if (!isfinite(f) || (i >= n && i < 2 * n && f < 0)) {
			lg_errf(err, errlen, "trainer state: %s %zu is %g",
				i < n ? "m" : i < 2 * n ? "v" : "magnet",
				i % n, (double)f);
			return LG_ECORRUPT;
		}
	}
	/* checked: now into the trainer */
	p->adam_t = lg_get_le64(b + 16);
	p->updates = lg_get_le64(b + 24);
	for (int i = 0; i < 4; i++)
		p->rng.s[i] = lg_get_le64(b + 32 + 8 * i);
	p->progress = progress;
	for (size_t i = 0; i < n; i++) {
		p->m[i] = lg_get_lef32(b + STATE_HEADER + 4 * i);
		p->v[i] = lg_get_lef32(b + STATE_HEADER + 4 * (n + i));
	}
	if (p->magnet) {
		float *mg = nn_params(p->magnet, NULL);
		for (size_t i = 0; i < n; i++)
			mg[i] = lg_get_lef32(b + STATE_HEADER + 4 * (2 * n + i));
	}
	if (tag)
		*tag = lg_get_le64(b + 72);
	return 0;
}
