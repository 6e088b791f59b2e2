/* util/misc.c: clocks, CRC-32C, the growable buffer and strict parsers. */
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
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

int lg_cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;

	return a < c ? -1 : a > c;
}

void lg_reverse_u32(uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t t = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
}

size_t lg_distinct_u64(uint64_t *v, size_t n)
{
	size_t d = 0;

	if (n > 1)
		qsort(v, n, sizeof *v, lg_cmp_u64);
	for (size_t i = 0; i < n; i++)
		d += !i || v[i] != v[i - 1];
	return d;
}

double lg_normalize(double *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	for (size_t i = 0; i < n; i++)
		v[i] /= sum;
	return sum;
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

/* The digits of %.6g for 1e-4 <= |v| < 1e6 into out (no sign), or 0
 * when the rounding is too close to a tie to decide in doubles. A
 * number with six significant digits is r * 10^(e - 5), r in [1e5, 1e6):
 * r is v scaled and rounded, then its digits are placed around the point
 * and trailing zeros dropped, as %g does. */
static size_t g6_digits(double v, char *out)
{
	static const double p10[] = { 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1,
				      1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
				      1e8, 1e9 };
	int e2, e;
	double m, f;
	char d[6];
	size_t n = 0;
	long r;

	/* the decimal exponent from the binary one, then corrected */
	frexp(v, &e2);
	e = (int)floor((e2 - 1) * 0.30102999566398120);
	if (e > -4 && v < p10[e + 5])
		e--;
	if (e < 5 && v >= p10[e + 6])
		e++;
	m = v * p10[(5 - e) + 5];
	r = (long)m;
	f = m - (double)r;
	if (fabs(f - 0.5) < 1e-6)
		return 0; /* a tie or close to one: snprintf decides */
	r += f > 0.5;
	if (r < 100000 || r > 999999)
		return 0; /* rounded into the next decade */
	for (int i = 5; i >= 0; i--, r /= 10)
		d[i] = (char)('0' + r % 10);
	int last = 5; /* the last significant digit kept */
	while (last > 0 && d[last] == '0' && last > e)
		last--;
	if (e < 0) {
		out[n++] = '0';
		out[n++] = '.';
		for (int z = -1; z > e; z--)
			out[n++] = '0';
	}
	for (int i = 0; i <= last; i++) {
		if (e >= 0 && i == e + 1)
			out[n++] = '.';
		out[n++] = d[i];
	}
	return n;
}

int lg_buf_g6(lg_buf *b, double v)
{
	char *s;
	size_t n = 0;
	int rc;

	if ((rc = lg_buf_reserve(b, 32)))
		return rc;
	s = (char *)b->data + b->len;
	if (v == 0 && !signbit(v)) {
		s[n++] = '0';
	} else if (fabs(v) >= 1e-4 && fabs(v) < 1e6) {
		if (v < 0)
			s[n++] = '-';
		size_t k = g6_digits(fabs(v), s + n);
		n = k ? n + k : 0;
	}
	if (!n)
		n = (size_t)snprintf(s, 32, "%.6g", v);
	b->len += n;
	return 0;
}

int lg_buf_quoted(lg_buf *b, const char *s, int json)
{
	int rc = lg_buf_append(b, "\"", 1);

	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			rc = lg_buf_printf(b, "\\%c", c);
		else if ((c < 0x20 || c == 0x7f) && json)
			rc = lg_buf_printf(b, "\\u%04x", c);
		else if (c < 0x20 || c == 0x7f)
			rc = lg_buf_printf(b, "\\x%02x", c);
		else
			rc = lg_buf_append(b, s, 1);
	}
	return rc ? rc : lg_buf_append(b, "\"", 1);
}

int lg_buf_json_str(lg_buf *b, const char *s)
{
	return lg_buf_quoted(b, s, 1);
}

void lg_fields_put(uint8_t *rec, const struct lg_field *f, size_t n,
		   const void *base)
{
	for (size_t i = 0; i < n; i++) {
		const char *m = (const char *)base + f[i].off;
		uint32_t u32;
		uint64_t u64;
		double d;

		switch (f[i].type) {
		case LG_FIELD_U32:
			memcpy(&u32, m, sizeof u32);
			lg_put_le32(rec + f[i].at, u32);
			break;
		case LG_FIELD_U64:
			memcpy(&u64, m, sizeof u64);
			lg_put_le64(rec + f[i].at, u64);
			break;
		case LG_FIELD_F64:
			memcpy(&d, m, sizeof d);
			lg_put_lef64(rec + f[i].at, d);
			break;
		}
	}
}

void lg_fields_get(const uint8_t *rec, const struct lg_field *f, size_t n,
		   void *base)
{
	for (size_t i = 0; i < n; i++) {
		char *m = (char *)base + f[i].off;
		uint32_t u32;
		uint64_t u64;
		double d;

		switch (f[i].type) {
		case LG_FIELD_U32:
			u32 = lg_get_le32(rec + f[i].at);
			memcpy(m, &u32, sizeof u32);
			break;
		case LG_FIELD_U64:
			u64 = lg_get_le64(rec + f[i].at);
			memcpy(m, &u64, sizeof u64);
			break;
		case LG_FIELD_F64:
			d = lg_get_lef64(rec + f[i].at);
			memcpy(m, &d, sizeof d);
			break;
		}
	}
}

/* util.h; here (not file.c) for the game plugins, which link rng.c and
 * misc.c of util/ alone (the Makefile's PLUGIN_TTT_SRC). */
int lg_io_all(lg_io_fn op, void *ctx, void *buf, size_t n)
{
	char *b = buf;

	while (n) {
		ssize_t k = op(ctx, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return LG_EIO;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

void lg_record_put(uint8_t *rec, const struct lg_record *r, const void *base)
{
	memset(rec, 0, r->len);
	lg_fields_put(rec, r->f, r->n, base);
}

int lg_record_get(const void *val, size_t len, const struct lg_record *r,
		  void *base)
{
	if (len != r->len)
		return LG_ECORRUPT;
	lg_fields_get(val, r->f, r->n, base);
	return 0;
}

int lg_is_loopback(const char *addr)
{
	struct in_addr a4;
	struct in6_addr a6;

	/* An address, parsed: "127.evil.example" is a name, not 127/8. */
	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, addr, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6);
	return !strcmp(addr, "localhost");
}

/* The verdict on a strto* call that stopped at end with errno as it
 * left it, the value in [lo, hi] or not (in): LG_EINVAL (not the whole
 * string), LG_ERANGE, else 0. */
static int parsed(const char *end, int in)
{
	if (*end)
		return LG_EINVAL;
	return errno == ERANGE || !in ? LG_ERANGE : 0;
}

int lg_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;
	int rc;

	if (!s || !*s)
		return LG_EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (!(rc = parsed(end, v >= lo && v <= hi)))
		*out = v;
	return rc;
}

int lg_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;
	int rc;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return LG_EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (!(rc = parsed(end, v >= lo && v <= hi)))
		*out = v;
	return rc;
}

int lg_parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;
	int rc;

	if (!s || !*s || *s == ' ')
		return LG_EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (isnan(v))
		return LG_EINVAL;
	if (!(rc = parsed(end, !isinf(v) && v >= lo && v <= hi)))
		*out = v;
	return rc;
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
