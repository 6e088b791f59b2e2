/* util/rng.c: xoshiro256** (Blackman and Vigna), seeded with splitmix64.
 * The state is four words in a plain struct so a league can persist it. */
#include "util.h"

#include <math.h>
#include <errno.h>
#include <sys/random.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = lg_mix64(*x);

	*x += 0x9e3779b97f4a7c15ULL;
	return z;
}

void lg_rng_seed(lg_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

void lg_rng_seed2(lg_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = stream;

	lg_rng_seed(r, seed ^ splitmix64(&x));
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t lg_rng_u64(lg_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double lg_rng_double(lg_rng *r)
{
	return (double)(lg_rng_u64(r) >> 11) * 0x1.0p-53;
}

float lg_rng_float(lg_rng *r)
{
	return (float)(lg_rng_u64(r) >> 40) * 0x1.0p-24f;
}

uint64_t lg_rng_below(lg_rng *r, uint64_t n)
{
	/* Lemire's multiply-shift with rejection: unbiased. */
	__uint128_t m = (__uint128_t)lg_rng_u64(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t t = (0 - n) % n;
		while (lo < t) {
			m = (__uint128_t)lg_rng_u64(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double lg_rng_normal(lg_rng *r)
{
	double u1 = 1.0 - lg_rng_double(r); /* (0, 1] so log is finite */
	double u2 = lg_rng_double(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

size_t lg_rng_categorical(lg_rng *r, const double *w, size_t n)
{
	double total = 0.0, u;

	for (size_t i = 0; i < n; i++)
		if (isfinite(w[i]) && w[i] > 0)
			total += w[i];
	if (!(total > 0) || !isfinite(total))
		return (size_t)lg_rng_below(r, n);
	u = lg_rng_double(r) * total;
	for (size_t i = 0; i < n; i++) {
		if (!(isfinite(w[i]) && w[i] > 0))
			continue;
		if (u < w[i])
			return i;
		u -= w[i];
	}
	/* Rounding left u just above the last positive weight. */
	for (size_t i = n; i-- > 0;)
		if (isfinite(w[i]) && w[i] > 0)
			return i;
	return 0;
}

/* lg_io_fn: getrandom(2), blocking until the pool is ready. */
static ssize_t random_some(void *ctx, void *b, size_t n)
{
	return getrandom(b, n, 0);
}

int lg_random_bytes(void *buf, size_t len)
{
	return lg_io_all(random_some, NULL, buf, len);
}
