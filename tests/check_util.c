/* tests/check_util.c: rng, crc, byte order, buffers, strict parsing. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "util/util.h"

START_TEST(rng_deterministic)
{
	lg_rng a, b, c;

	lg_rng_seed(&a, 42);
	lg_rng_seed(&b, 42);
	lg_rng_seed(&c, 43);
	int differs = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = lg_rng_u64(&a);
		ck_assert_uint_eq(x, lg_rng_u64(&b));
		differs |= x != lg_rng_u64(&c);
	}
	ck_assert(differs);
	/* The state is a plain value: a copy continues the same stream. */
	lg_rng copy = a;
	ck_assert_uint_eq(lg_rng_u64(&copy), lg_rng_u64(&a));
}
END_TEST

START_TEST(rng_below_uniform)
{
	/* Chi-square over 10 bins, 100k draws, 9 degrees of freedom: the
	 * 0.999 quantile is 27.88; a fixed seed makes this deterministic. */
	enum { BINS = 10, N = 100000 };
	long count[BINS] = { 0 };
	lg_rng r;
	double chi = 0, e = (double)N / BINS;

	lg_rng_seed(&r, 7);
	for (int i = 0; i < N; i++) {
		uint64_t v = lg_rng_below(&r, BINS);
		ck_assert_uint_lt(v, BINS);
		count[v]++;
	}
	for (int i = 0; i < BINS; i++)
		chi += (count[i] - e) * (count[i] - e) / e;
	ck_assert_double_lt(chi, 27.88);
}
END_TEST

START_TEST(rng_double_range_and_mean)
{
	/* Mean of 1e5 U(0,1): sd 0.2887/sqrt(1e5) = 9.1e-4; allow 5 sd. */
	lg_rng r;
	double sum = 0;

	lg_rng_seed(&r, 9);
	for (int i = 0; i < 100000; i++) {
		double d = lg_rng_double(&r);
		float f = lg_rng_float(&r);
		ck_assert(d >= 0 && d < 1);
		ck_assert(f >= 0 && f < 1);
		sum += d;
	}
	ck_assert_double_lt(fabs(sum / 1e5 - 0.5), 5 * 9.1e-4);
}
END_TEST

START_TEST(rng_normal_moments)
{
	/* 1e5 draws: mean sd 3.2e-3, variance sd ~4.5e-3; 5 sd bounds. */
	lg_rng r;
	double s = 0, s2 = 0;

	lg_rng_seed(&r, 11);
	for (int i = 0; i < 100000; i++) {
		double x = lg_rng_normal(&r);
		ck_assert(isfinite(x));
		s += x;
		s2 += x * x;
	}
	ck_assert_double_lt(fabs(s / 1e5), 0.016);
	ck_assert_double_lt(fabs(s2 / 1e5 - 1.0), 0.023);
}
END_TEST

START_TEST(rng_categorical_weights)
{
	/* Weights 1:2:0:7 with 1e5 draws; chi-square over the 3 live bins
	 * (2 dof, 0.999 quantile 13.82) and the zero bin never drawn. */
	double w[4] = { 1, 2, 0, 7 };
	long count[4] = { 0 };
	lg_rng r;
	double chi = 0;

	lg_rng_seed(&r, 5);
	for (int i = 0; i < 100000; i++)
		count[lg_rng_categorical(&r, w, 4)]++;
	ck_assert_int_eq(count[2], 0);
	for (int i = 0; i < 4; i++) {
		double e = 1e5 * w[i] / 10.0;
		if (e > 0)
			chi += (count[i] - e) * (count[i] - e) / e;
	}
	ck_assert_double_lt(chi, 13.82);
}
END_TEST

/* lg_distinct_u64 counts each value once, sorts in place, and takes
 * the empty and single-value cases. */
START_TEST(distinct_u64)
{
	uint64_t v[] = { 7, UINT64_MAX, 7, 0, 3, 7, 0 }, one = 5;

	ck_assert_uint_eq(lg_distinct_u64(v, 7), 4);
	for (int i = 1; i < 7; i++)
		ck_assert(v[i - 1] <= v[i]);
	ck_assert_uint_eq(lg_distinct_u64(v, 0), 0);
	ck_assert_uint_eq(lg_distinct_u64(&one, 1), 1);
	uint64_t same[4] = { 9, 9, 9, 9 };
	ck_assert_uint_eq(lg_distinct_u64(same, 4), 1);
}
END_TEST

START_TEST(rng_categorical_degenerate)
{
	/* All-zero, negative and NaN weights fall back to uniform, never to
	 * an out-of-range index. */
	double w[3] = { 0, -1, NAN };
	long count[3] = { 0 };
	lg_rng r;

	lg_rng_seed(&r, 3);
	for (int i = 0; i < 30000; i++) {
		size_t k = lg_rng_categorical(&r, w, 3);
		ck_assert_uint_lt(k, 3);
		count[k]++;
	}
	for (int i = 0; i < 3; i++) /* 1e4 expected, sd ~82 */
		ck_assert_int_lt(labs(count[i] - 10000), 500);
}
END_TEST

START_TEST(crc32c_known_vectors)
{
	/* RFC 3720 B.4 check value, and chaining. */
	ck_assert_uint_eq(lg_crc32c(0, "123456789", 9), 0xe3069283u);
	uint32_t c = lg_crc32c(0, "1234", 4);
	ck_assert_uint_eq(lg_crc32c(c, "56789", 5), 0xe3069283u);
	uint8_t zeros[32] = { 0 };
	ck_assert_uint_eq(lg_crc32c(0, zeros, 32), 0x8a9136aau);
}
END_TEST

START_TEST(byte_order)
{
	uint8_t b[8];

	lg_put_be64(b, 0x0102030405060708ULL);
	ck_assert_uint_eq(b[0], 1);
	ck_assert_uint_eq(b[7], 8);
	ck_assert_uint_eq(lg_get_be64(b), 0x0102030405060708ULL);
	lg_put_le32(b, 0x01020304u);
	ck_assert_uint_eq(b[0], 4);
	ck_assert_uint_eq(lg_get_le32(b), 0x01020304u);
	lg_put_lef32(b, -1.5f);
	ck_assert(lg_get_lef32(b) == -1.5f);
	lg_put_lef64(b, 0.1);
	ck_assert(lg_get_lef64(b) == 0.1);
}
END_TEST

START_TEST(buf_grows)
{
	lg_buf b = { 0 };

	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(lg_buf_printf(&b, "%d,", i), 0);
	ck_assert_int_eq(lg_buf_append(&b, "", 1), 0);
	ck_assert(!strncmp((char *)b.data, "0,1,2,", 6));
	ck_assert(strstr((char *)b.data, "999,") != NULL);
	lg_buf_free(&b);
	ck_assert_ptr_null(b.data);
	ck_assert_uint_eq(b.len, 0);
}
END_TEST

START_TEST(strict_parsing)
{
	int64_t i;
	uint64_t u;
	double d;

	ck_assert_int_eq(lg_parse_i64("-12", -100, 100, &i), 0);
	ck_assert_int_eq(i, -12);
	ck_assert_int_eq(lg_parse_i64("12x", -100, 100, &i), LG_EINVAL);
	ck_assert_int_eq(lg_parse_i64("", -100, 100, &i), LG_EINVAL);
	ck_assert_int_eq(lg_parse_i64("101", -100, 100, &i), LG_ERANGE);
	ck_assert_int_eq(lg_parse_u64("-1", 0, 10, &u), LG_EINVAL);
	ck_assert_int_eq(lg_parse_u64("18446744073709551616", 0, UINT64_MAX,
				      &u), LG_ERANGE);
	ck_assert_int_eq(lg_parse_u64("7", 0, 10, &u), 0);
	ck_assert_uint_eq(u, 7);
	ck_assert_int_eq(lg_parse_double("1e-3", 0, 1, &d), 0);
	ck_assert(d == 1e-3);
	ck_assert_int_eq(lg_parse_double("nan", -1, 1, &d), LG_EINVAL);
	ck_assert_int_eq(lg_parse_double("inf", -1e300, 1e300, &d), LG_ERANGE);
	ck_assert_int_eq(lg_parse_double("2", 0, 1, &d), LG_ERANGE);
	ck_assert_int_eq(lg_parse_double(" 1", 0, 1, &d), LG_EINVAL);
}
END_TEST

START_TEST(json_strings_and_loopback)
{
	lg_buf b = { 0 };

	ck_assert_int_eq(lg_buf_json_str(&b, "a\"b\\c\n\x7f\xc3\xa9"), 0);
	ck_assert_int_eq(lg_buf_append(&b, "", 1), 0);
	ck_assert_str_eq((char *)b.data,
			 "\"a\\\"b\\\\c\\u000a\\u007f\xc3\xa9\"");
	lg_buf_free(&b);
	ck_assert(lg_is_loopback("127.0.0.1") && lg_is_loopback("127.9.9.9"));
	ck_assert(lg_is_loopback("::1") && lg_is_loopback("localhost"));
	ck_assert(!lg_is_loopback("0.0.0.0") && !lg_is_loopback("10.0.0.1"));
	ck_assert(!lg_is_loopback("::") && !lg_is_loopback("1270.0.0.1x"));
	/* a name that starts like 127/8 is a name (it resolves anywhere) */
	ck_assert(!lg_is_loopback("127.evil.example") && !lg_is_loopback("127."));
	ck_assert(lg_is_loopback("0:0:0:0:0:0:0:1"));
	/* The mixer the seeds come from: a bijection, so distinct counters
	 * give distinct seeds. */
	ck_assert_uint_ne(lg_mix64(0), lg_mix64(1));
	ck_assert_uint_eq(lg_mix64(0), 0xe220a8397b1dcdafull);
}
END_TEST

/* lg_buf_g6 writes what "%.6g" writes: edge cases, then random win rates,
 * game counts and magnitudes across the fast path's range and beyond. */
static void g6_same(double v)
{
	char want[64];
	lg_buf b = { 0 };

	snprintf(want, sizeof want, "%.6g", v);
	ck_assert_int_eq(lg_buf_g6(&b, v), 0);
	ck_assert_int_eq(lg_buf_append(&b, "", 1), 0);
	ck_assert_msg(!strcmp((char *)b.data, want), "%.17g: %s, want %s", v,
		      (char *)b.data, want);
	lg_buf_free(&b);
}

START_TEST(g6_matches_printf)
{
	const double edge[] = { 0, -0.0, 0.5, 1, -1, 0.1, 0.25, 1e-4,
				9.99999e-5, 0.000123456, 999999, 999999.5,
				1e6, 123456.5, 0.1234565, 0.9999995,
				9.999995, 1.0000005, 100, 2.5e-7, 3e12,
				NAN, INFINITY, -INFINITY, 0.3, 1.0 / 3,
				2.0 / 3, 59.99999951, 10, 1000.5 };
	lg_rng r;

	for (size_t i = 0; i < LG_ARRAY_LEN(edge); i++)
		g6_same(edge[i]);
	lg_rng_seed(&r, 6);
	for (int i = 0; i < 25000; i++) {
		double u = lg_rng_double(&r);
		g6_same(u);
		g6_same(60 * u);
		g6_same(-u * 1000);
		g6_same(pow(10, 16 * u - 8));
		/* six-digit decimals and their halves: near ties */
		g6_same(floor(u * 1e6) / 1e6 + 5e-7);
		g6_same((double)lg_rng_below(&r, 2000000) / 2e6);
	}
}
END_TEST

START_TEST(strerror_total)
{
	for (int e = 0; e >= -18; e--)
		ck_assert_str_ne(lg_strerror(e), "unknown error");
	ck_assert_str_eq(lg_strerror(-999), "unknown error");
}
END_TEST


/* A user-named output is replaced through a temporary and a rename, and
 * only when it is a regular file or missing: special nodes and (without
 * the flag) symlinks are refused and left as they were. */
START_TEST(write_out_refuses_special_files)
{
	char d[256], p[512], q[512], err[1024], buf[16];
	struct stat st;
	FILE *f;

	tu_mkdtemp(d, sizeof d);
	snprintf(p, sizeof p, "%s/new", d); /* missing: written */
	ck_assert_int_eq(lg_file_write_out(p, "abc", 3, 0, err, sizeof err), 0);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_size, 3);
	/* regular: replaced */
	ck_assert_int_eq(lg_file_write_out(p, "hello", 5, 0, err, sizeof err),
			 0);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_size, 5);
	/* FIFO: refused, still a FIFO */
	snprintf(q, sizeof q, "%s/fifo", d);
	ck_assert_int_eq(mkfifo(q, 0600), 0);
	ck_assert_int_eq(lg_file_write_out(q, "x", 1, 0, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, q));
	ck_assert_ptr_nonnull(strstr(err, "FIFO"));
	ck_assert_int_eq(lstat(q, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	/* with the flag too: following is for symlinks only */
	ck_assert_int_eq(lg_file_write_out(q, "x", 1, LG_OUT_FOLLOW_SYMLINKS,
					   err, sizeof err), LG_EINVAL);
	/* a directory and a device node */
	ck_assert_int_eq(lg_file_write_out(d, "x", 1, 0, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "directory"));
	ck_assert_int_eq(lg_file_write_out("/dev/null", "x", 1, 0, err,
					   sizeof err), LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "/dev/null"));
	ck_assert_int_eq(lstat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	/* a symlink: refused, unless followed (then the target changes and
	 * the link stays) */
	snprintf(q, sizeof q, "%s/link", d);
	ck_assert_int_eq(symlink(p, q), 0);
	ck_assert_int_eq(lg_file_write_out(q, "zz", 2, 0, err, sizeof err),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "symlink"));
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_size, 5);
	ck_assert_int_eq(lg_file_write_out(q, "zz", 2, LG_OUT_FOLLOW_SYMLINKS,
					   err, sizeof err), 0);
	ck_assert_int_eq(lstat(q, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_ptr_nonnull(f = fopen(p, "r"));
	ck_assert_uint_eq(fread(buf, 1, sizeof buf, f), 2);
	fclose(f);
	/* a symlink to a FIFO is refused even when followed */
	snprintf(p, sizeof p, "%s/fifo", d);
	snprintf(q, sizeof q, "%s/link2", d);
	ck_assert_int_eq(symlink(p, q), 0);
	ck_assert_int_eq(lg_file_write_out(q, "x", 1, LG_OUT_FOLLOW_SYMLINKS,
					   err, sizeof err), LG_EINVAL);
	tu_rmrf(d);
}
END_TEST

/* Token files: the first line without its line end; over-long refused,
 * never cut. */
START_TEST(token_parse_rules)
{
	char tok[256], err[256], big[400];

	ck_assert_int_eq(lg_token_parse("abc\n", 4, tok, sizeof tok, err,
					sizeof err), 0);
	ck_assert_str_eq(tok, "abc");
	ck_assert_int_eq(lg_token_parse("abc\r\n", 5, tok, sizeof tok, err,
					sizeof err), 0);
	ck_assert_str_eq(tok, "abc");
	ck_assert_int_eq(lg_token_parse("abc", 3, tok, sizeof tok, err,
					sizeof err), 0);
	ck_assert_str_eq(tok, "abc");
	ck_assert_int_eq(lg_token_parse("abc\n\n  \n", 8, tok, sizeof tok,
					err, sizeof err), 0);
	ck_assert_int_eq(lg_token_parse("\n", 1, tok, sizeof tok, err,
					sizeof err), LG_EINVAL);
	ck_assert_int_eq(lg_token_parse("abc\ndef\n", 8, tok, sizeof tok, err,
					sizeof err), LG_EINVAL);
	ck_assert_int_eq(lg_token_parse("a\tb\n", 4, tok, sizeof tok, err,
					sizeof err), LG_EINVAL);
	ck_assert_int_eq(lg_token_parse("a\0b", 3, tok, sizeof tok, err,
					sizeof err), LG_EINVAL);
	memset(big, 'k', 300);
	big[300] = '\n';
	ck_assert_int_eq(lg_token_parse(big, 301, tok, sizeof tok, err,
					sizeof err), LG_EINVAL);
	ck_assert_str_eq(tok, "");
	ck_assert_ptr_nonnull(strstr(err, "300"));
	ck_assert_ptr_nonnull(strstr(err, "255"));
	ck_assert_int_eq(lg_token_parse(big, 255, tok, sizeof tok, err,
					sizeof err), 0);
	ck_assert_int_eq(lg_token_parse(big, 256, tok, sizeof tok, err,
					sizeof err), LG_EINVAL);
}
END_TEST

/* The log limiter: identical messages within the interval are dropped and
 * counted; the next one that passes reports the count. */
START_TEST(log_limit_counts)
{
	struct lg_log_limit l = { 0 };
	uint64_t dropped = 99;
	int passed = 0;

	ck_assert_int_eq(lg_log_limit_pass(&l, "accept: EMFILE", 100.0, 1.0,
					   &dropped), 1);
	ck_assert_uint_eq(dropped, 0);
	for (int i = 0; i < 60000; i++)
		passed += lg_log_limit_pass(&l, "accept: EMFILE",
					    100.0 + i * 1e-5, 1.0, &dropped);
	ck_assert_int_eq(passed, 0);
	ck_assert_uint_eq(l.suppressed, 60000);
	ck_assert_int_eq(lg_log_limit_pass(&l, "accept: EMFILE", 101.5, 1.0,
					   &dropped), 1);
	ck_assert_uint_eq(dropped, 60000);
	ck_assert_uint_eq(l.suppressed, 0);
	/* another message passes at once */
	ck_assert_int_eq(lg_log_limit_pass(&l, "other", 101.6, 1.0, &dropped),
			 1);
	ck_assert_uint_eq(dropped, 0);
}
END_TEST

/* lg_block_new: the object first, every part on a 64-byte line, its
 * pointer set, everything zeroed, a part of no elements a pointer too;
 * a size that overflows is NULL. lg_block_parts: the pointers in an
 * object outside the block. */
struct blk {
	double x;
	float *f;
	uint8_t *u;
	uint64_t *w;
};

START_TEST(block_layout)
{
	const struct lg_part parts[] = {
		LG_PART(struct blk, f, 5),
		LG_PART(struct blk, u, 0),
		LG_PART(struct blk, w, 17),
	};
	struct blk *b = lg_block_new(sizeof *b, parts, 3), o = { 0 };
	const struct lg_part huge[] = { LG_PART(struct blk, w, SIZE_MAX / 4) };
	void *m;

	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq((uintptr_t)b % LG_BLOCK_ALIGN, 0);
	ck_assert_ptr_eq((char *)b->f, (char *)b + LG_BLOCK_ALIGN);
	ck_assert_ptr_eq(b->u, (uint8_t *)b + 2 * LG_BLOCK_ALIGN);
	ck_assert_ptr_eq((char *)b->w, (char *)b + 2 * LG_BLOCK_ALIGN);
	ck_assert(b->x == 0);
	for (int i = 0; i < 5; i++)
		ck_assert(b->f[i] == 0);
	for (int i = 0; i < 17; i++)
		ck_assert_uint_eq(b->w[i], 0);
	b->w[16] = 7; /* the last element is ours (ASan would say) */
	free(b);
	ck_assert_ptr_null(lg_block_new(sizeof *b, huge, 1));
	m = lg_block_parts(&o, parts, 3);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_eq((void *)o.f, m);
	ck_assert_ptr_eq((char *)o.w, (char *)m + LG_BLOCK_ALIGN);
	o.w[16] = 1;
	free(m);
	o.f = NULL;
	ck_assert_ptr_null(lg_block_parts(&o, huge, 1));
	ck_assert_ptr_null(o.f); /* untouched */
}
END_TEST

/* lg_record_put zeroes the record and writes the table's fields;
 * lg_record_get refuses any other length, leaving the struct alone. */
struct rec2 {
	uint32_t a;
	uint64_t b;
	double c;
};

START_TEST(record_round_trip)
{
	static const struct lg_field f[] = {
		LG_FIELD(U32, 0, struct rec2, a),
		LG_FIELD(U64, 8, struct rec2, b),
		LG_FIELD(F64, 16, struct rec2, c),
	};
	static const struct lg_record r = LG_RECORD(28, f);
	struct rec2 in = { 0xdeadbeef, 0x0102030405060708ull, -2.5 }, out;
	uint8_t rec[28];

	memset(rec, 0xff, sizeof rec);
	lg_record_put(rec, &r, &in);
	ck_assert_uint_eq(rec[0], 0xef);
	ck_assert_uint_eq(rec[8], 0x08);
	for (int i = 4; i < 8; i++)
		ck_assert_uint_eq(rec[i], 0);
	for (int i = 24; i < 28; i++)
		ck_assert_uint_eq(rec[i], 0);
	memset(&out, 0, sizeof out);
	ck_assert_int_eq(lg_record_get(rec, 27, &r, &out), LG_ECORRUPT);
	ck_assert_uint_eq(out.a, 0);
	ck_assert_int_eq(lg_record_get(rec, 28, &r, &out), 0);
	ck_assert_uint_eq(out.a, in.a);
	ck_assert_uint_eq(out.b, in.b);
	ck_assert(out.c == in.c);
}
END_TEST

START_TEST(reverse_u32)
{
	uint32_t v[5] = { 1, 2, 3, 4, 5 }, w[4] = { 1, 2, 3, 4 };

	lg_reverse_u32(v, 0);
	ck_assert_uint_eq(v[0], 1);
	lg_reverse_u32(v, 1);
	ck_assert_uint_eq(v[0], 1);
	lg_reverse_u32(v, 5);
	lg_reverse_u32(w, 4);
	for (uint32_t i = 0; i < 5; i++)
		ck_assert_uint_eq(v[i], 5 - i);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(w[i], 4 - i);
}
END_TEST

Suite *suite_util(void)
{
	Suite *s = suite_create("util");
	const struct tu_test core_tests[] = {
		{ rng_deterministic, 1 },
		{ distinct_u64, 1 },
		{ rng_below_uniform, 1 },
		{ rng_double_range_and_mean, 1 },
		{ rng_normal_moments, 1 },
		{ rng_categorical_weights, 1 },
		{ rng_categorical_degenerate, 1 },
		{ crc32c_known_vectors, 1 },
		{ byte_order, 1 },
		{ buf_grows, 1 },
		{ strict_parsing, 1 },
		{ json_strings_and_loopback, 1 },
		{ strerror_total, 1 },
		{ g6_matches_printf, 1 },
		{ write_out_refuses_special_files, 1 },
		{ token_parse_rules, 1 },
		{ log_limit_counts, 1 },
		{ block_layout, 1 },
		{ record_round_trip, 1 },
		{ reverse_u32, 1 },
	};

	/* Pure computation, but under ASan on a busy machine the default 4 s
	 * is a wall-clock budget, not a deadline. */
	TU_TCASE(s, "core", 60, core_tests);
	return s;
}
