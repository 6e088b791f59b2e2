/* tests/check_plot.c: `league plot` through the real binary. The PNG is
 * decoded here independently of cli/plot.c (own CRC-32 and Adler-32,
 * checked against their published check values): signature, chunk CRCs,
 * IHDR, the stored deflate blocks (LEN/NLEN), the Adler-32, filter bytes,
 * and pixels where cli/plot.h's geometry puts known data points. Then the
 * bad-input cases: exit 2 with file:line in the message. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/plot.h"
#include "tests/testutil.h"

static uint32_t crc32_ref(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
	}
	return c ^ 0xFFFFFFFFu;
}

static uint32_t adler32_ref(const uint8_t *p, size_t n)
{
	uint64_t a = 1, b = 0;
	for (size_t i = 0; i < n; i++) {
		a = (a + p[i]) % 65521;
		b = (b + a) % 65521;
	}
	return (uint32_t)(b << 16 | a);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s not written", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	ck_assert(n > 0 && n < (64l << 20));
	rewind(f);
	uint8_t *b = malloc((size_t)n);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

struct img {
	uint32_t w, h;
	uint8_t plte[256][3];
	uint8_t *raw; /* h rows of 1 + ceil(w/2) bytes */
};

/* Decode our subset of PNG: 4-bit palette, stored deflate, filter 0. */
static void decode(const char *path, struct img *im)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', 13, 10, 26, 10 };
	size_t len, off = 8, zlen = 0, nplte = 0;
	uint8_t *f = slurp(path, &len), *z = malloc(len);
	int seen_end = 0;

	ck_assert_ptr_nonnull(z);
	ck_assert(len > 8 && !memcmp(f, sig, 8));
	while (off + 12 <= len && !seen_end) {
		uint32_t n = be32(f + off);
		ck_assert(off + 12 + n <= len);
		const uint8_t *type = f + off + 4, *data = f + off + 8;
		ck_assert_msg(crc32_ref(type, 4 + n) == be32(data + n),
			      "chunk %.4s CRC", (const char *)type);
		if (!memcmp(type, "IHDR", 4)) {
			ck_assert_uint_eq(n, 13);
			im->w = be32(data);
			im->h = be32(data + 4);
			ck_assert_uint_eq(data[8], 4); /* bit depth */
			ck_assert_uint_eq(data[9], 3); /* palette */
			ck_assert_uint_eq(data[12], 0);
		} else if (!memcmp(type, "PLTE", 4)) {
			ck_assert(n % 3 == 0 && n / 3 <= 16);
			nplte = n / 3;
			memcpy(im->plte, data, n);
		} else if (!memcmp(type, "IDAT", 4)) {
			memcpy(z + zlen, data, n);
			zlen += n;
		} else if (!memcmp(type, "IEND", 4)) {
			seen_end = 1;
		}
		off += 12 + n;
	}
	ck_assert(seen_end && off == len);
	ck_assert_uint_eq(im->w, PLOT_W);
	ck_assert_uint_eq(im->h, PLOT_H);
	ck_assert_uint_ge(nplte, PLOT_C_SERIES + 2);

	/* zlib header, then stored blocks only */
	ck_assert(zlen >= 6);
	ck_assert_uint_eq(z[0] & 0x0F, 8);
	ck_assert_uint_eq(((unsigned)z[0] << 8 | z[1]) % 31, 0);
	size_t rowb = 1 + (im->w + 1) / 2, rawn = rowb * im->h, got = 0;
	im->raw = malloc(rawn);
	ck_assert_ptr_nonnull(im->raw);
	size_t p = 2;
	int final = 0, blocks = 0;
	while (!final) {
		ck_assert(p + 5 <= zlen);
		final = z[p] & 1;
		ck_assert_uint_eq((z[p] >> 1) & 3, 0); /* stored */
		unsigned bl = z[p + 1] | z[p + 2] << 8;
		unsigned nl = z[p + 3] | z[p + 4] << 8;
		ck_assert_uint_eq(bl ^ 0xFFFF, nl);
		p += 5;
		ck_assert(p + bl <= zlen && got + bl <= rawn);
		memcpy(im->raw + got, z + p, bl);
		got += bl;
		p += bl;
		blocks++;
	}
	ck_assert_uint_eq(got, rawn);
	ck_assert_uint_gt(blocks, 1); /* 162 kB: more than one 64 kB block */
	ck_assert_uint_eq(p + 4, zlen);
	ck_assert_uint_eq(be32(z + p), adler32_ref(im->raw, rawn));
	for (uint32_t y = 0; y < im->h; y++)
		ck_assert_uint_eq(im->raw[y * rowb], 0);
	free(z);
	free(f);
}

/* Palette index of pixel (x, y). */
static unsigned pixel(const struct img *im, uint32_t x, uint32_t y)
{
	size_t rowb = 1 + (im->w + 1) / 2;
	uint8_t b = im->raw[y * rowb + 1 + x / 2];
	return x % 2 ? b & 0x0F : b >> 4;
}

START_TEST(checksums_reference_values)
{
	/* the decoder's own checksums, against the published values */
	ck_assert_uint_eq(crc32_ref((const uint8_t *)"123456789", 9),
			  0xCBF43926u);
	ck_assert_uint_eq(adler32_ref((const uint8_t *)"Wikipedia", 9),
			  0x11E60398u);
}
END_TEST

START_TEST(plot_png_decodes_and_draws_lines)
{
	char dir[256], csv[300], png[300], out[4096], err[4096];
	struct img im = { 0 };

	tu_mkdtemp(dir, sizeof dir);
	snprintf(csv, sizeof csv, "%s/c.csv", dir);
	snprintf(png, sizeof png, "%s/c.png", dir);
	/* x and a span 0..10 exactly (tick step 2), b is constant 2 */
	tu_write_file(csv, "t,a,name,b\n0,0,x,2\n5,5,y,2\r\n\n10,10,z,2\n");
	const char *argv[] = { "plot", csv, "--x", "t", "--y", "a,b", "-o",
			       png, "--title", "test plot", NULL };
	int rc = tu_run_league(out, sizeof out, err, sizeof err, argv);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	decode(png, &im);

	const unsigned c0 = PLOT_C_SERIES, c1 = PLOT_C_SERIES + 1;
	uint32_t mx = PLOT_L + (PLOT_R - PLOT_L) / 2; /* x = 5 */
	uint32_t my = PLOT_B - (PLOT_B - PLOT_T) / 2; /* y = 5 */
	uint32_t y2 = PLOT_B - (PLOT_B - PLOT_T) / 5; /* y = 2 */
	uint32_t y8 = PLOT_B - 4 * (PLOT_B - PLOT_T) / 5; /* y = 8 */
	ck_assert((PLOT_R - PLOT_L) % 2 == 0 && (PLOT_B - PLOT_T) % 10 == 0);
	/* the palette: white background, black text, distinct colours */
	const uint8_t white[3] = { 255, 255, 255 }, black[3] = { 0, 0, 0 };
	ck_assert(!memcmp(im.plte[PLOT_C_BG], white, 3));
	ck_assert(!memcmp(im.plte[PLOT_C_FG], black, 3));
	ck_assert(memcmp(im.plte[c0], im.plte[c1], 3) &&
		  memcmp(im.plte[c0], white, 3) && memcmp(im.plte[c1], white, 3));
	ck_assert_msg(pixel(&im, mx, my) == c0, "(5,5) is %u",
		      pixel(&im, mx, my));
	ck_assert_msg(pixel(&im, mx, y2) == c1, "(5,2) is %u",
		      pixel(&im, mx, y2));
	/* away from the lines: background or grid, never a series colour */
	ck_assert(pixel(&im, mx, y8) == PLOT_C_BG ||
		  pixel(&im, mx, y8) == PLOT_C_GRID);
	/* the frame: the left axis is drawn in the foreground colour */
	ck_assert_uint_eq(pixel(&im, PLOT_L - 1, my), PLOT_C_FG);
	/* some text was drawn above the plot area (the title) */
	int title = 0;
	for (uint32_t y = 0; y < PLOT_T - 4; y++)
		for (uint32_t x = 0; x < PLOT_W; x++)
			title |= pixel(&im, x, y) == PLOT_C_FG;
	ck_assert(title);
	free(im.raw);

	/* --logy over 1..100: y = 10 sits half way up */
	tu_write_file(csv, "t,a\n0,1\n5,10\n10,100\n");
	const char *argv2[] = { "plot", csv, "--x", "t", "--y", "a", "-o",
				png, "--logy", NULL };
	rc = tu_run_league(out, sizeof out, err, sizeof err, argv2);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	memset(&im, 0, sizeof im);
	decode(png, &im);
	ck_assert_uint_eq(pixel(&im, mx, my), c0);
	free(im.raw);
	tu_rmrf(dir);
}
END_TEST

static const struct bad {
	const char *csv;
	const char *y;
	int logy;
	const char *where; /* ":LINE:" expected after the file name */
	const char *what;
} bad[] = {
	{ "", "a", 0, ":1:", "empty" },
	{ "t,a\n", "a", 0, ":1:", "no data rows" },
	{ "t,a\n0,1\n", "nope", 0, ":1:", "no column 'nope'" },
	{ "t,a\n0,1\n1,x1\n", "a", 0, ":3:", "'x1' is not a finite number" },
	{ "t,a\n0,1\n1,\n", "a", 0, ":3:", "not a finite number" },
	{ "t,a\n0,1\n\n2,nan\n", "a", 0, ":4:", "not a finite number" },
	{ "t,a\n0,1\n1,2,3\n", "a", 0, ":3:", "3 cells, the header has 2" },
	{ "t,a\n0,1\n1,0\n", "a", 1, ":3:", "not > 0" },
	/* no one line to blame: the file is named */
	{ "t,a\n0,1e308\n1,-1e308\n", "a", 0, ": ", "too wide" },
	{ "t,a\n1e-300,1\n1.0000000001e-300,2\n", "a", 0, ": ", "narrow" },
};

START_TEST(plot_bad_input)
{
	char dir[256], csv[300], png[300], out[4096], err[4096], want[400];
	const struct bad *b = &bad[_i];

	tu_mkdtemp(dir, sizeof dir);
	snprintf(csv, sizeof csv, "%s/bad.csv", dir);
	snprintf(png, sizeof png, "%s/bad.png", dir);
	tu_write_file(csv, b->csv);
	const char *argv[] = { "plot", csv, "--x", "t", "--y", b->y, "-o",
			       png, b->logy ? "--logy" : NULL, NULL };
	int rc = tu_run_league(out, sizeof out, err, sizeof err, argv);
	ck_assert_msg(rc == 2, "case %d: rc %d", _i, rc);
	snprintf(want, sizeof want, "%s%s", csv, b->where);
	ck_assert_msg(strstr(err, want), "case %d: '%s' not in: %s", _i,
		      want, err);
	ck_assert_msg(strstr(err, b->what), "case %d: '%s' not in: %s", _i,
		      b->what, err);
	ck_assert_msg(access(png, F_OK) != 0, "case %d: png written", _i);
	tu_rmrf(dir);
}
END_TEST

START_TEST(plot_usage_errors)
{
	char out[4096], err[4096];
	const char *missing[] = { "plot", "/nonexistent/x.csv", "--x", "t",
				  "--y", "a", "-o", "/tmp/never.png", NULL };
	const char *noy[] = { "plot", "x.csv", "--x", "t", "-o", "o.png",
			      NULL };
	const char *many[] = { "plot", "x.csv", "--x", "t", "--y",
			       "a,b,c,d,e,f,g,h,i", "-o", "o.png", NULL };

	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err,
				       missing), 2);
	ck_assert(strstr(err, "/nonexistent/x.csv"));
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, noy),
			 2);
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err, many),
			 2);
	ck_assert(strstr(err, "at most 8"));
}
END_TEST

Suite *suite_plot(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("cli");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, checksums_reference_values);
	tcase_add_test(tc, plot_png_decodes_and_draws_lines);
	tcase_add_loop_test(tc, plot_bad_input, 0, (int)LG_ARRAY_LEN(bad));
	tcase_add_test(tc, plot_usage_errors);
	suite_add_tcase(s, tc);
	return s;
}
