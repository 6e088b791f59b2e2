/* util/misc.c: clocks, CRC-32C, the growable buffer and strict parsers. */
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t lg_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double lg_now_s(void)
{
	return (double)lg_now_ns() * 1e-9;
}

double lg_wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void lg_burn_cpu_s(double s)
{
	struct timespec ts;
	double end;

	if (!(s > 0) || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return;
	end = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + s;
	do {
		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
			return;
	} while ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 < end);
}

void lg_sleep_s(double s)
{
	struct timespec ts;

	if (!(s > 0))
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* CRC-32C, slicing by 8: tables built once, on first use. */
static uint32_t crc_tab[8][256];
static int crc_ready;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82f63b78U : c >> 1;
		crc_tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^
					crc_tab[0][crc_tab[t - 1][i] & 0xff];
	__atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

uint32_t lg_crc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE))
		crc_init(); /* idempotent: racing threads write equal tables */
	crc = ~crc;
	while (len >= 8) {
		uint32_t lo = crc ^ lg_get_le32(p);
		uint32_t hi = lg_get_le32(p + 4);
		crc = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
		      crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^
		      crc_tab[3][hi & 0xff] ^ crc_tab[2][(hi >> 8) & 0xff] ^
		      crc_tab[1][(hi >> 16) & 0xff] ^ crc_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

void lg_buf_free(lg_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int lg_buf_reserve(lg_buf *b, size_t extra)
{
	size_t need, cap;
	uint8_t *p;

	if (extra > SIZE_MAX - b->len)
		return LG_ENOMEM;
	need = b->len + extra;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		return LG_ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int lg_buf_append(lg_buf *b, const void *p, size_t n)
{
	int rc = lg_buf_reserve(b, n);

	if (rc)
		return rc;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int lg_buf_printf(lg_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return LG_EINVAL;
	if ((rc = lg_buf_reserve(b, (size_t)n + 1)))
		return rc;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int lg_buf_json_str(lg_buf *b, const char *s)
{
	int rc = lg_buf_append(b, "\"", 1);

	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			rc = lg_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			rc = lg_buf_printf(b, "\\u%04x", c);
		else
			rc = lg_buf_append(b, s, 1);
	}
	return rc ? rc : lg_buf_append(b, "\"", 1);
}

int lg_is_loopback(const char *addr)
{
	return !strncmp(addr, "127.", 4) || !strcmp(addr, "localhost") ||
	       !strcmp(addr, "::1");
}

int lg_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return LG_EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return LG_EINVAL;
	if (errno == ERANGE || v < lo || v > hi)
		return LG_ERANGE;
	*out = v;
	return 0;
}

int lg_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return LG_EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return LG_EINVAL;
	if (errno == ERANGE || v < lo || v > hi)
		return LG_ERANGE;
	*out = v;
	return 0;
}

int lg_parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == ' ')
		return LG_EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end || isnan(v))
		return LG_EINVAL;
	if (errno == ERANGE || isinf(v) || v < lo || v > hi)
		return LG_ERANGE;
	*out = v;
	return 0;
}

int lg_cookie_value(const char *header, const char *name, char *out,
		    size_t outlen)
{
	size_t nl = strlen(name);

	for (const char *c = header; c && *c;) {
		c += strspn(c, " \t;");
		size_t n = strcspn(c, ";");
		if (n > nl && c[nl] == '=' && !strncmp(c, name, nl)) {
			size_t vl = n - nl - 1;
			while (vl && (c[nl + 1 + vl - 1] == ' ' ||
				      c[nl + 1 + vl - 1] == '\t'))
				vl--;
			if (vl >= outlen)
				return 0; /* never a truncated value */
			memcpy(out, c + nl + 1, vl);
			out[vl] = 0;
			return 1;
		}
		c += n;
	}
	return 0;
}
