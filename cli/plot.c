/*
 * cli/plot.c: the line plot behind `league plot` (see cli/plot.h).
 *
 * Drawing happens on a PLOT_W x PLOT_H array of palette indices: grid and
 * ticks first, then the series (3x3 brush, Bresenham, clipped to the plot
 * area), then the legend and the text on top. Encoding packs two pixels a
 * byte (4-bit palette), prefixes each row with filter byte 0 and wraps the
 * rows in a zlib stream of stored deflate blocks.
 */
#include "cli/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const uint8_t plot_palette[PLOT_C_SERIES + PLOT_SERIES_MAX][3] = {
	{ 255, 255, 255 }, /* background */
	{ 0, 0, 0 },       /* axes, text */
	{ 222, 222, 222 }, /* grid */
	{ 31, 119, 180 },  /* series: blue, orange, green, red, ... */
	{ 255, 127, 14 },
	{ 44, 160, 44 },
	{ 214, 39, 40 },
	{ 148, 103, 189 },
	{ 140, 86, 75 },
	{ 227, 119, 194 },
	{ 127, 127, 127 },
};

/* ---- font: 5x7, one byte a row, bit 4 is the leftmost column ---- */

struct glyph {
	char c;
	uint8_t row[7];
};

static const struct glyph font[] = {
	{ ' ', { 0, 0, 0, 0, 0, 0, 0 } },
	{ '0', { 0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E } },
	{ '1', { 0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E } },
	{ '2', { 0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F } },
	{ '3', { 0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E } },
	{ '4', { 0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02 } },
	{ '5', { 0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E } },
	{ '6', { 0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E } },
	{ '7', { 0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08 } },
	{ '8', { 0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E } },
	{ '9', { 0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C } },
	{ 'A', { 0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11 } },
	{ 'B', { 0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E } },
	{ 'C', { 0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E } },
	{ 'D', { 0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C } },
	{ 'E', { 0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F } },
	{ 'F', { 0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10 } },
	{ 'G', { 0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F } },
	{ 'H', { 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11 } },
	{ 'I', { 0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E } },
	{ 'J', { 0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C } },
	{ 'K', { 0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11 } },
	{ 'L', { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F } },
	{ 'M', { 0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11 } },
	{ 'N', { 0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11 } },
	{ 'O', { 0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E } },
	{ 'P', { 0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10 } },
	{ 'Q', { 0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D } },
	{ 'R', { 0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11 } },
	{ 'S', { 0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E } },
	{ 'T', { 0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04 } },
	{ 'U', { 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E } },
	{ 'V', { 0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04 } },
	{ 'W', { 0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A } },
	{ 'X', { 0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11 } },
	{ 'Y', { 0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04 } },
	{ 'Z', { 0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F } },
	{ '.', { 0, 0, 0, 0, 0, 0x0C, 0x0C } },
	{ ',', { 0, 0, 0, 0, 0x0C, 0x04, 0x08 } },
	{ '-', { 0, 0, 0, 0x1F, 0, 0, 0 } },
	{ '+', { 0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0 } },
	{ '_', { 0, 0, 0, 0, 0, 0, 0x1F } },
	{ ':', { 0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0 } },
	{ '/', { 0, 0x01, 0x02, 0x04, 0x08, 0x10, 0 } },
	{ '(', { 0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02 } },
	{ ')', { 0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08 } },
	{ '[', { 0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E } },
	{ ']', { 0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E } },
	{ '=', { 0, 0, 0x1F, 0, 0x1F, 0, 0 } },
	{ '<', { 0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02 } },
	{ '>', { 0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08 } },
	{ '*', { 0, 0x04, 0x15, 0x0E, 0x15, 0x04, 0 } },
	{ '%', { 0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03 } },
	{ '!', { 0x04, 0x04, 0x04, 0x04, 0x04, 0, 0x04 } },
	{ '\'', { 0x04, 0x04, 0x08, 0, 0, 0, 0 } },
	{ '?', { 0x0E, 0x11, 0x01, 0x02, 0x04, 0, 0x04 } },
};

#define TXT_SCALE 2
#define TXT_ADV (6 * TXT_SCALE)
#define TXT_HT (7 * TXT_SCALE)

static const struct glyph *glyph_for(char c)
{
	if (c >= 'a' && c <= 'z')
		c = (char)(c - 'a' + 'A');
	for (size_t i = 0; i < LG_ARRAY_LEN(font); i++)
		if (font[i].c == c)
			return &font[i];
	return &font[LG_ARRAY_LEN(font) - 1]; /* '?' */
}

struct canvas {
	uint8_t *px; /* PLOT_W * PLOT_H palette indices */
};

static void put(struct canvas *cv, long x, long y, uint8_t c)
{
	if (x >= 0 && x < PLOT_W && y >= 0 && y < PLOT_H)
		cv->px[(size_t)y * PLOT_W + (size_t)x] = c;
}

static void fill(struct canvas *cv, long x0, long y0, long x1, long y1,
		 uint8_t c)
{
	for (long y = y0; y <= y1; y++)
		for (long x = x0; x <= x1; x++)
			put(cv, x, y, c);
}

static long text_width(const char *s)
{
	size_t n = strlen(s);
	return n ? (long)n * TXT_ADV - TXT_SCALE : 0;
}

/* Text with its top-left corner at (x, y). */
static void text(struct canvas *cv, long x, long y, const char *s, uint8_t c)
{
	for (; *s; s++, x += TXT_ADV) {
		const struct glyph *g = glyph_for(*s);
		for (int r = 0; r < 7; r++)
			for (int k = 0; k < 5; k++)
				if (g->row[r] & (0x10 >> k))
					fill(cv, x + k * TXT_SCALE,
					     y + r * TXT_SCALE,
					     x + k * TXT_SCALE + TXT_SCALE - 1,
					     y + r * TXT_SCALE + TXT_SCALE - 1,
					     c);
	}
}

/* Bresenham with a 3x3 brush, kept inside the plot area. */
static void line(struct canvas *cv, long x0, long y0, long x1, long y1,
		 uint8_t c)
{
	long dx = labs(x1 - x0), dy = -labs(y1 - y0);
	long sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
	long e = dx + dy;

	for (;;) {
		for (long yy = y0 - 1; yy <= y0 + 1; yy++)
			for (long xx = x0 - 1; xx <= x0 + 1; xx++)
				if (xx >= PLOT_L && xx <= PLOT_R &&
				    yy >= PLOT_T && yy <= PLOT_B)
					put(cv, xx, yy, c);
		if (x0 == x1 && y0 == y1)
			break;
		long e2 = 2 * e;
		if (e2 >= dy) {
			e += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			e += dx;
			y0 += sy;
		}
	}
}

/* ---- axes ---- */

#define TICKS_MAX 64
#define PLOT_MARKS_MAX 100

struct axis {
	double lo, hi;          /* mapped range (linear, or log10 with logy) */
	double tick[TICKS_MAX]; /* in the mapped unit */
	int nticks;
	int log;
};

/* Whole tick steps of 1, 2 or 5 times a power of ten around [mn, mx]. */
static void axis_linear(struct axis *a, double mn, double mx)
{
	if (!(mx > mn)) { /* one value: a range around it */
		double d = mn == 0 ? 1 : fabs(mn) * 0.1;
		mn -= d;
		mx += d;
	}
	double raw = (mx - mn) / 5, mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	a->lo = floor(mn / step) * step;
	a->hi = ceil(mx / step) * step;
	a->nticks = 0;
	for (int i = 0; a->nticks < TICKS_MAX; i++) {
		double t = a->lo + i * step;
		if (t > a->hi + step * 1e-9)
			break;
		a->tick[a->nticks++] = fabs(t) < step * 1e-9 ? 0 : t;
	}
	a->log = 0;
}

/* Whole decades; ticks at 10^k (every few decades when there are many,
 * and at 2 and 5 times 10^k too when there are at most two). */
static void axis_log(struct axis *a, double mn, double mx)
{
	double lo = floor(log10(mn)), hi = ceil(log10(mx));
	if (hi <= lo)
		hi = lo + 1;
	int stride = (int)ceil((hi - lo) / 8);
	a->lo = lo;
	a->hi = hi;
	a->nticks = 0;
	for (double k = lo; k <= hi + 1e-9 && a->nticks < TICKS_MAX;
	     k += stride) {
		a->tick[a->nticks++] = k;
		if (hi - lo <= 2 && k < hi - 1e-9) {
			a->tick[a->nticks++] = k + log10(2);
			a->tick[a->nticks++] = k + log10(5);
		}
	}
	a->log = 1;
}

static void axis_label(const struct axis *a, double t, char *buf, size_t n)
{
	if (a->log)
		snprintf(buf, n, "%.6g", pow(10, t));
	else
		snprintf(buf, n, "%.6g", t + 0.0);
}

/* Nearest pixel, kept to a small band around the canvas so no coordinate
 * (even NaN) can make the line loop long. */
static long px_round(double v)
{
	if (!(v > -2.0 * PLOT_W))
		return -2 * PLOT_W;
	if (v > 2.0 * PLOT_W)
		return 2 * PLOT_W;
	return lround(v);
}

static long map_x(const struct axis *a, double v)
{
	return px_round(PLOT_L + (v - a->lo) / (a->hi - a->lo) *
				       (PLOT_R - PLOT_L));
}

static long map_y(const struct axis *a, double v)
{
	if (a->log)
		v = log10(v);
	return px_round(PLOT_B - (v - a->lo) / (a->hi - a->lo) *
				       (PLOT_B - PLOT_T));
}

static long tick_y(const struct axis *a, double t)
{
	return px_round(PLOT_B - (t - a->lo) / (a->hi - a->lo) *
				       (PLOT_B - PLOT_T));
}

/* ---- PNG ---- */

uint32_t plot_crc32(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;
	crc = ~crc;
	while (n--) {
		crc ^= *b++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

uint32_t plot_adler32(uint32_t adler, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t s1 = adler & 0xFFFF, s2 = adler >> 16;
	while (n) {
		size_t k = n < 5552 ? n : 5552; /* no overflow before mod */
		n -= k;
		while (k--) {
			s1 += *b++;
			s2 += s1;
		}
		s1 %= 65521;
		s2 %= 65521;
	}
	return s2 << 16 | s1;
}

static int chunk(lg_buf *out, const char *type, const uint8_t *data,
		 size_t len)
{
	uint8_t hdr[8];
	int rc;

	lg_put_be32(hdr, (uint32_t)len);
	memcpy(hdr + 4, type, 4);
	uint32_t crc = plot_crc32(0, type, 4);
	crc = plot_crc32(crc, data, len);
	uint8_t tail[4];
	lg_put_be32(tail, crc);
	if ((rc = lg_buf_append(out, hdr, 8)) ||
	    (len && (rc = lg_buf_append(out, data, len))) ||
	    (rc = lg_buf_append(out, tail, 4)))
		return rc;
	return 0;
}

static int encode(const struct canvas *cv, lg_buf *out)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
					0x1A, '\n' };
	const size_t rowb = 1 + (PLOT_W + 1) / 2;
	const size_t rawn = rowb * PLOT_H;
	uint8_t *raw = NULL;
	lg_buf z = { 0 };
	uint8_t ihdr[13], plte[3 * LG_ARRAY_LEN(plot_palette)];
	int rc;

	if (!(raw = calloc(1, rawn))) {
		rc = LG_ENOMEM;
		goto out;
	}
	for (size_t y = 0; y < PLOT_H; y++) {
		uint8_t *r = raw + y * rowb; /* r[0] = 0: filter None */
		for (size_t x = 0; x < PLOT_W; x++) {
			uint8_t c = cv->px[y * PLOT_W + x] & 0x0F;
			r[1 + x / 2] |= (uint8_t)(x % 2 ? c : c << 4);
		}
	}

	/* zlib: CMF 0x78 (deflate, 32K window), FLG 0x01 (check bits). */
	uint8_t zh[2] = { 0x78, 0x01 };
	if ((rc = lg_buf_append(&z, zh, 2)))
		goto out;
	for (size_t off = 0; off < rawn;) {
		size_t n = LG_MIN(rawn - off, (size_t)65535);
		uint8_t bh[5];
		bh[0] = off + n == rawn; /* BFINAL, BTYPE 00 = stored */
		bh[1] = (uint8_t)n;
		bh[2] = (uint8_t)(n >> 8);
		bh[3] = (uint8_t)~n;
		bh[4] = (uint8_t)(~n >> 8);
		if ((rc = lg_buf_append(&z, bh, 5)) ||
		    (rc = lg_buf_append(&z, raw + off, n)))
			goto out;
		off += n;
	}
	uint8_t ad[4];
	lg_put_be32(ad, plot_adler32(1, raw, rawn));
	if ((rc = lg_buf_append(&z, ad, 4)))
		goto out;

	lg_put_be32(ihdr, PLOT_W);
	lg_put_be32(ihdr + 4, PLOT_H);
	ihdr[8] = 4;  /* bit depth */
	ihdr[9] = 3;  /* palette */
	ihdr[10] = 0; /* deflate */
	ihdr[11] = 0; /* adaptive filtering, all rows None */
	ihdr[12] = 0; /* no interlace */
	memcpy(plte, plot_palette, sizeof plte);
	if ((rc = lg_buf_append(out, sig, 8)) ||
	    (rc = chunk(out, "IHDR", ihdr, sizeof ihdr)) ||
	    (rc = chunk(out, "PLTE", plte, sizeof plte)) ||
	    (rc = chunk(out, "IDAT", z.data, z.len)) ||
	    (rc = chunk(out, "IEND", NULL, 0)))
		goto out;
	rc = 0;
out:
	free(raw);
	lg_buf_free(&z);
	return rc;
}

/* ---- the plot ---- */

/*
 * Check s's counts and values and find the data ranges (x over all points,
 * y over every series). LG_EINVAL with the reason in err when a count is
 * out of range, a value is not finite (or not > 0 with logy), or a range
 * is one the tick arithmetic cannot hold; 0 otherwise.
 */
static int spec_ranges(const struct plot_spec *s, double *xmn, double *xmx,
		       double *ymn, double *ymx, char *err, size_t errlen)
{
	if (!s->n || s->n > PLOT_POINTS_MAX || !s->nseries ||
	    s->nseries > PLOT_SERIES_MAX) {
		lg_errf(err, errlen, "%zu points and %zu series (1..%u and "
			"1..%d)", s->n, s->nseries, PLOT_POINTS_MAX,
			PLOT_SERIES_MAX);
		return LG_EINVAL;
	}
	*xmn = INFINITY;
	*xmx = -INFINITY;
	*ymn = INFINITY;
	*ymx = -INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		if (!isfinite(s->x[i])) {
			lg_errf(err, errlen, "x[%zu] is not finite", i);
			return LG_EINVAL;
		}
		*xmn = fmin(*xmn, s->x[i]);
		*xmx = fmax(*xmx, s->x[i]);
		for (size_t k = 0; k < s->nseries; k++) {
			double v = s->series[k].y[i];
			if (!isfinite(v) || (s->logy && v <= 0)) {
				lg_errf(err, errlen, "%s[%zu] = %g: %s",
					s->series[k].name, i, v,
					s->logy ? "--logy needs finite "
						  "values > 0"
						: "not finite");
				return LG_EINVAL;
			}
			*ymn = fmin(*ymn, v);
			*ymx = fmax(*ymx, v);
		}
	}
	/* ranges whose width or tick step doubles cannot hold (near
	 * DBL_MAX, or subnormal) are refused rather than drawn wrong */
	if (!isfinite(*xmx - *xmn) || !isfinite(*ymx - *ymn) ||
	    fmax(fabs(*xmn), fabs(*xmx)) > 1e300 ||
	    fmax(fabs(*ymn), fabs(*ymx)) > 1e300 ||
	    (*xmx > *xmn && *xmx - *xmn < 1e-290) ||
	    (*ymx > *ymn && *ymx - *ymn < 1e-290)) {
		lg_errf(err, errlen, "value range too wide or too narrow to "
			"plot (x %g..%g, y %g..%g)", *xmn, *xmx, *ymn, *ymx);
		return LG_EINVAL;
	}
	return 0;
}

/*
 * Grid lines, tick marks and tick labels of both axes. Drawn first so the
 * data lies over the grid; an x label that would touch the one before it
 * is left out.
 */
static void draw_grid(struct canvas *cv, const struct axis *ax,
		      const struct axis *ay)
{
	char lab[64];
	long xlab_end = -1000;

	for (int i = 0; i < ax->nticks; i++) {
		long x = map_x(ax, ax->tick[i]);
		fill(cv, x, PLOT_T, x, PLOT_B, PLOT_C_GRID);
		fill(cv, x, PLOT_B + 1, x, PLOT_B + 6, PLOT_C_FG);
		axis_label(ax, ax->tick[i], lab, sizeof lab);
		long lx0 = x - text_width(lab) / 2;
		if (lx0 < xlab_end + TXT_ADV)
			continue;
		text(cv, lx0, PLOT_B + 10, lab, PLOT_C_FG);
		xlab_end = lx0 + text_width(lab);
	}
	for (int i = 0; i < ay->nticks; i++) {
		long y = tick_y(ay, ay->tick[i]);
		fill(cv, PLOT_L, y, PLOT_R, y, PLOT_C_GRID);
		fill(cv, PLOT_L - 6, y, PLOT_L - 1, y, PLOT_C_FG);
		axis_label(ay, ay->tick[i], lab, sizeof lab);
		text(cv, PLOT_L - 10 - text_width(lab), y - TXT_HT / 2, lab,
		     PLOT_C_FG);
	}
}

/*
 * Each series as a line through its points in the given order, series k
 * in palette index PLOT_C_SERIES + k (later series over earlier ones),
 * with a mark on each point when there are at most PLOT_MARKS_MAX.
 */
static void draw_series(struct canvas *cv, const struct plot_spec *s,
			const struct axis *ax, const struct axis *ay)
{
	for (size_t k = 0; k < s->nseries; k++) {
		uint8_t c = (uint8_t)(PLOT_C_SERIES + k);
		long px = map_x(ax, s->x[0]);
		long py = map_y(ay, s->series[k].y[0]);
		line(cv, px, py, px, py, c);
		for (size_t i = 1; i < s->n; i++) {
			long qx = map_x(ax, s->x[i]);
			long qy = map_y(ay, s->series[k].y[i]);
			line(cv, px, py, qx, qy, c);
			px = qx;
			py = qy;
		}
		/* a 5x5 mark on each point while they are few enough to
		 * tell apart, so a straight run shows where data is */
		for (size_t i = 0; s->n <= PLOT_MARKS_MAX && i < s->n; i++) {
			long qx = map_x(ax, s->x[i]);
			long qy = map_y(ay, s->series[k].y[i]);
			for (long d = -1; d <= 1; d++) /* 3x3 brush: 5x5 */
				line(cv, qx - 1, qy + d, qx + 1, qy + d, c);
		}
	}
}

/* A one-pixel outline of the rectangle (x0, y0)-(x1, y1), inclusive. */
static void box(struct canvas *cv, long x0, long y0, long x1, long y1,
		uint8_t c)
{
	fill(cv, x0, y0, x1, y0, c);
	fill(cv, x0, y1, x1, y1, c);
	fill(cv, x0, y0, x0, y1, c);
	fill(cv, x1, y0, x1, y1, c);
}

/*
 * The legend box (lw x lh, inside the plot area) goes to the corner where
 * it hides the fewest data pixels, top right first on ties; so it must be
 * placed after the series are drawn. Returns its top-left corner.
 */
static void legend_corner(const struct canvas *cv, long lw, long lh,
			  long *lx, long *ly)
{
	long best = -1;

	*lx = PLOT_R - 8 - lw;
	*ly = PLOT_T + 8;
	for (int corner = 0; corner < 4; corner++) {
		long cx = corner % 2 ? PLOT_L + 8 : PLOT_R - 8 - lw;
		long cy = corner / 2 ? PLOT_B - 8 - lh : PLOT_T + 8;
		long hidden = 0;
		for (long y = cy; y <= cy + lh; y++)
			for (long x = cx; x <= cx + lw; x++)
				hidden += cv->px[(size_t)y * PLOT_W +
						 (size_t)x] >= PLOT_C_SERIES;
		if (best < 0 || hidden < best) {
			best = hidden;
			*lx = cx;
			*ly = cy;
		}
	}
}

/*
 * The legend: a framed box naming each series beside a swatch of its
 * colour, as wide as the longest name (cut to the plot area's width).
 */
static void draw_legend(struct canvas *cv, const struct plot_spec *s)
{
	long lw = 0, lx, ly;

	for (size_t k = 0; k < s->nseries; k++)
		lw = LG_MAX(lw, text_width(s->series[k].name));
	lw += 24 + 8 + 16;
	lw = LG_MIN(lw, (long)(PLOT_R - PLOT_L - 16)); /* long names: cut */
	long lh = (long)s->nseries * (TXT_HT + 6) + 10;
	legend_corner(cv, lw, lh, &lx, &ly);
	fill(cv, lx, ly, lx + lw, ly + lh, PLOT_C_BG);
	box(cv, lx, ly, lx + lw, ly + lh, PLOT_C_FG);
	for (size_t k = 0; k < s->nseries; k++) {
		long ty = ly + 8 + (long)k * (TXT_HT + 6);
		fill(cv, lx + 8, ty + TXT_HT / 2 - 1, lx + 8 + 24,
		     ty + TXT_HT / 2 + 1, (uint8_t)(PLOT_C_SERIES + k));
		text(cv, lx + 8 + 24 + 8, ty, s->series[k].name, PLOT_C_FG);
	}
}

int plot_render_png(const struct plot_spec *s, lg_buf *out, char *err,
		    size_t errlen)
{
	struct canvas cv = { 0 };
	struct axis ax, ay;
	double xmn, xmx, ymn, ymx;
	int rc;

	if ((rc = spec_ranges(s, &xmn, &xmx, &ymn, &ymx, err, errlen)))
		return rc;
	axis_linear(&ax, xmn, xmx);
	if (s->logy)
		axis_log(&ay, ymn, ymx);
	else
		axis_linear(&ay, ymn, ymx);

	if (!(cv.px = calloc((size_t)PLOT_W * PLOT_H, 1)))
		return LG_ENOMEM;
	/* back to front: what is drawn later covers what is below */
	draw_grid(&cv, &ax, &ay);
	draw_series(&cv, s, &ax, &ay);
	/* frame (drawn after the data so the axes stay visible) */
	box(&cv, PLOT_L - 1, PLOT_T - 1, PLOT_R + 1, PLOT_B + 1, PLOT_C_FG);
	draw_legend(&cv, s);
	if (s->title)
		text(&cv, (PLOT_W - text_width(s->title)) / 2, 16, s->title,
		     PLOT_C_FG);
	if (s->xlabel)
		text(&cv, PLOT_L + (PLOT_R - PLOT_L - text_width(s->xlabel)) / 2,
		     PLOT_B + 10 + TXT_HT + 14, s->xlabel, PLOT_C_FG);

	rc = encode(&cv, out);
	free(cv.px);
	return rc;
}
