/*
 * cli/plot.c: the line plot behind `league plot` (see cli/plot.h), drawn
 * with cairo.
 *
 * One drawing routine serves every format; only the surface differs (an
 * RGB image written as PNG, or an SVG or PDF stream). Back to front:
 * background, grid and tick labels, the series (clipped to the plot area),
 * the frame, the legend, the title and the x label. The legend's corner is
 * chosen first, by stroking the series onto an alpha-only scratch image
 * and counting the pixels each candidate box would hide, so the vector
 * formats get the placement the PNG gets.
 */
#include "cli/plot.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const uint8_t plot_series_rgb[PLOT_SERIES_MAX][3] = PLOT_SERIES_RGB;
static const uint8_t plot_bg_rgb[3] = PLOT_BG_RGB;
static const uint8_t plot_fg_rgb[3] = PLOT_FG_RGB;
static const uint8_t plot_grid_rgb[3] = PLOT_GRID_RGB;

#define FONT "sans-serif"   /* fontconfig picks the face */
#define TITLE_SIZE 16.0
#define TEXT_SIZE 12.0
#define LABEL_SIZE 13.0
#define TEXT_MAX 512        /* bytes of one label kept for drawing */
#define TICKS_MAX 64
#define PLOT_MARKS_MAX 100  /* a dot on each point up to this many */
#define MARK_R 2.5
#define LEGEND_ROW 18.0
#define LEGEND_PAD 8.0
#define LEGEND_SWATCH 24.0

/* ---- text ---- */

/* Length of the UTF-8 sequence that starts at s (1 to 4), or 0 when it is
 * not valid UTF-8 (overlong, surrogate, beyond U+10FFFF, cut short) or is
 * a control character. Reads no byte past a NUL. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;

	if (c >= 0x20 && c < 0x7F)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		return (s[1] & 0xC0) == 0x80 ? 2 : 0;
	if (c >= 0xE0 && c <= 0xEF) {
		lo = c == 0xE0 ? 0xA0 : 0x80;
		hi = c == 0xED ? 0x9F : 0xBF;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 ?
			3 : 0;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		lo = c == 0xF0 ? 0x90 : 0x80;
		hi = c == 0xF4 ? 0x8F : 0xBF;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 &&
			(s[3] & 0xC0) == 0x80 ? 4 : 0;
	}
	return 0;
}

/*
 * s made fit for cairo_show_text, in buf: a byte that starts no valid
 * UTF-8 character, or starts a control character, becomes '?' (cairo puts
 * a context into a permanent error state on invalid UTF-8, and labels come
 * from the user's CSV); cut at a character boundary to fit n bytes.
 */
static const char *text_clean(const char *s, char *buf, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	while (*p) {
		size_t k = utf8_len(p);
		if (o + (k ? k : 1) >= n)
			break;
		if (k) {
			memcpy(buf + o, p, k);
			o += k;
			p += k;
		} else {
			buf[o++] = '?';
			p++;
		}
	}
	buf[o] = 0;
	return buf;
}

static void set_font(cairo_t *cr, double size, int bold)
{
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD
				    : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

static double text_width(cairo_t *cr, const char *s)
{
	char buf[TEXT_MAX];
	cairo_text_extents_t te;

	cairo_text_extents(cr, text_clean(s, buf, sizeof buf), &te);
	return te.x_advance;
}

enum align { ALIGN_LEFT, ALIGN_CENTRE, ALIGN_RIGHT };

/* s in the current font and source, its left end, middle or right end at
 * x, and the middle of its digits' height at y. */
static void text(cairo_t *cr, double x, double y, const char *s,
		 enum align al)
{
	char buf[TEXT_MAX];
	cairo_text_extents_t te;
	cairo_font_extents_t fe;

	s = text_clean(s, buf, sizeof buf);
	cairo_text_extents(cr, s, &te);
	cairo_font_extents(cr, &fe);
	if (al == ALIGN_CENTRE)
		x -= te.x_advance / 2;
	else if (al == ALIGN_RIGHT)
		x -= te.x_advance;
	cairo_move_to(cr, x, y + (fe.ascent - fe.descent) / 2);
	cairo_show_text(cr, s);
}

static void set_rgb(cairo_t *cr, const uint8_t rgb[3])
{
	cairo_set_source_rgb(cr, rgb[0] / 255.0, rgb[1] / 255.0,
			     rgb[2] / 255.0);
}

/* The middle of the pixel v falls in: a 1-unit line there is crisp. */
static double crisp(double v)
{
	return floor(v) + 0.5;
}

/* ---- axes ---- */

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
	for (double k = lo; k <= hi + 1e-9 && a->nticks < TICKS_MAX - 2;
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

static double map_x(const struct axis *a, double v)
{
	return PLOT_L + (v - a->lo) / (a->hi - a->lo) * (PLOT_R - PLOT_L);
}

/* Height of t, in the axis's mapped unit (log10 with logy). */
static double tick_y(const struct axis *a, double t)
{
	return PLOT_B - (t - a->lo) / (a->hi - a->lo) * (PLOT_B - PLOT_T);
}

static double map_y(const struct axis *a, double v)
{
	return tick_y(a, a->log ? log10(v) : v);
}

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

/* ---- drawing ---- */

/*
 * Grid lines, tick marks and tick labels of both axes. Drawn first so the
 * data lies over the grid; an x label that would touch the one before it
 * is left out.
 */
static void draw_grid(cairo_t *cr, const struct axis *ax,
		      const struct axis *ay)
{
	char lab[64];
	double xlab_end = -1e9;

	set_rgb(cr, plot_grid_rgb);
	cairo_set_line_width(cr, 1);
	for (int i = 0; i < ax->nticks; i++) {
		double x = crisp(map_x(ax, ax->tick[i]));
		cairo_move_to(cr, x, PLOT_T);
		cairo_line_to(cr, x, PLOT_B);
	}
	for (int i = 0; i < ay->nticks; i++) {
		double y = crisp(tick_y(ay, ay->tick[i]));
		cairo_move_to(cr, PLOT_L, y);
		cairo_line_to(cr, PLOT_R, y);
	}
	cairo_stroke(cr);

	set_rgb(cr, plot_fg_rgb);
	set_font(cr, TEXT_SIZE, 0);
	for (int i = 0; i < ax->nticks; i++) {
		double x = crisp(map_x(ax, ax->tick[i]));
		cairo_move_to(cr, x, PLOT_B);
		cairo_line_to(cr, x, PLOT_B + 6);
		cairo_stroke(cr);
		axis_label(ax, ax->tick[i], lab, sizeof lab);
		double w = text_width(cr, lab);
		if (x - w / 2 < xlab_end + 8)
			continue;
		text(cr, x, PLOT_B + 18, lab, ALIGN_CENTRE);
		xlab_end = x + w / 2;
	}
	for (int i = 0; i < ay->nticks; i++) {
		double y = crisp(tick_y(ay, ay->tick[i]));
		cairo_move_to(cr, PLOT_L - 6, y);
		cairo_line_to(cr, PLOT_L, y);
		cairo_stroke(cr);
		axis_label(ay, ay->tick[i], lab, sizeof lab);
		text(cr, PLOT_L - 10, y, lab, ALIGN_RIGHT);
	}
}

/* Series k as one path through its points in the given order. */
static void trace_series(cairo_t *cr, const struct plot_spec *s, size_t k,
			 const struct axis *ax, const struct axis *ay)
{
	cairo_new_path(cr);
	cairo_move_to(cr, map_x(ax, s->x[0]), map_y(ay, s->series[k].y[0]));
	for (size_t i = 1; i < s->n; i++)
		cairo_line_to(cr, map_x(ax, s->x[i]),
			      map_y(ay, s->series[k].y[i]));
	if (s->n == 1) /* a lone point: a round-capped dot */
		cairo_line_to(cr, map_x(ax, s->x[0]),
			      map_y(ay, s->series[k].y[0]));
}

/* A dot on each point of series k, while they are few enough to tell
 * apart, so a straight run shows where the data is. */
static void mark_series(cairo_t *cr, const struct plot_spec *s, size_t k,
			const struct axis *ax, const struct axis *ay)
{
	if (s->n > PLOT_MARKS_MAX)
		return;
	cairo_new_path(cr);
	for (size_t i = 0; i < s->n; i++) {
		cairo_new_sub_path(cr);
		cairo_arc(cr, map_x(ax, s->x[i]), map_y(ay, s->series[k].y[i]),
			  MARK_R, 0, 2 * M_PI);
	}
	cairo_fill(cr);
}

/*
 * Every series, clipped to the plot area, series k in plot_series_rgb[k]
 * (later series over earlier ones). On an alpha-only surface the colours
 * do not matter: that is the legend's coverage map.
 */
static void draw_series(cairo_t *cr, const struct plot_spec *s,
			const struct axis *ax, const struct axis *ay)
{
	cairo_save(cr);
	cairo_rectangle(cr, PLOT_L, PLOT_T, PLOT_R - PLOT_L, PLOT_B - PLOT_T);
	cairo_clip(cr);
	cairo_set_line_width(cr, PLOT_LINE_W);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
	for (size_t k = 0; k < s->nseries; k++) {
		set_rgb(cr, plot_series_rgb[k]);
		trace_series(cr, s, k, ax, ay);
		cairo_stroke(cr);
		mark_series(cr, s, k, ax, ay);
	}
	cairo_restore(cr);
}

/* The plot area's frame, one unit wide just outside it. */
static void draw_frame(cairo_t *cr)
{
	set_rgb(cr, plot_fg_rgb);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, PLOT_L - 0.5, PLOT_T - 0.5, PLOT_R - PLOT_L + 1,
			PLOT_B - PLOT_T + 1);
	cairo_stroke(cr);
}

/* ---- legend ---- */

struct legend {
	double x, y, w, h; /* the box, inside the plot area */
};

/* The box's size: the longest name beside a swatch (cut to the plot
 * area's width), one row a series. */
static void legend_size(cairo_t *cr, const struct plot_spec *s,
			struct legend *lg)
{
	double w = 0;

	set_font(cr, TEXT_SIZE, 0);
	for (size_t k = 0; k < s->nseries; k++)
		w = fmax(w, text_width(cr, s->series[k].name));
	w += LEGEND_PAD + LEGEND_SWATCH + LEGEND_PAD + LEGEND_PAD;
	lg->w = ceil(fmin(w, PLOT_R - PLOT_L - 2 * LEGEND_PAD));
	lg->h = ceil((double)s->nseries * LEGEND_ROW + 10);
}

/* Covered pixels of the A8 image data (stride bytes a row) in the box. */
static long covered(const unsigned char *data, int stride,
		    const struct legend *lg)
{
	long n = 0;

	for (long y = (long)lg->y; y < (long)(lg->y + lg->h); y++)
		for (long x = (long)lg->x; x < (long)(lg->x + lg->w); x++)
			n += data[y * stride + x] != 0;
	return n;
}

/*
 * Place the legend box (its size set) in the corner of the plot area
 * where it hides the fewest pixels of the series, top right first on
 * ties. 0, or a cairo status when the scratch image fails.
 */
static cairo_status_t legend_place(const struct plot_spec *s,
				   const struct axis *ax,
				   const struct axis *ay, struct legend *lg)
{
	cairo_surface_t *m = cairo_image_surface_create(CAIRO_FORMAT_A8,
							PLOT_W, PLOT_H);
	cairo_t *cr = cairo_create(m);
	cairo_status_t st;
	long best = -1;

	draw_series(cr, s, ax, ay);
	st = cairo_status(cr);
	cairo_destroy(cr);
	cairo_surface_flush(m);
	if (!st)
		st = cairo_surface_status(m);
	for (int corner = 0; !st && corner < 4; corner++) {
		struct legend c = *lg;
		c.x = corner % 2 ? PLOT_L + LEGEND_PAD
				 : PLOT_R - LEGEND_PAD - lg->w;
		c.y = corner / 2 ? PLOT_B - LEGEND_PAD - lg->h
				 : PLOT_T + LEGEND_PAD;
		long hidden = covered(cairo_image_surface_get_data(m),
				      cairo_image_surface_get_stride(m), &c);
		if (best < 0 || hidden < best) {
			best = hidden;
			*lg = c;
		}
	}
	cairo_surface_destroy(m);
	return st;
}

/* The legend: a framed white box naming each series beside a swatch of
 * its colour; names too long for the box are cut at its edge. */
static void draw_legend(cairo_t *cr, const struct plot_spec *s,
			const struct legend *lg)
{
	cairo_save(cr);
	cairo_rectangle(cr, lg->x, lg->y, lg->w, lg->h);
	set_rgb(cr, plot_bg_rgb);
	cairo_fill_preserve(cr);
	cairo_clip_preserve(cr);
	cairo_set_line_width(cr, 1);
	cairo_new_path(cr);
	cairo_rectangle(cr, lg->x + 0.5, lg->y + 0.5, lg->w - 1, lg->h - 1);
	set_rgb(cr, plot_fg_rgb);
	cairo_stroke(cr);
	set_font(cr, TEXT_SIZE, 0);
	cairo_set_line_width(cr, PLOT_LINE_W + 1);
	for (size_t k = 0; k < s->nseries; k++) {
		double y = lg->y + 5 + LEGEND_ROW * ((double)k + 0.5);
		double x = lg->x + LEGEND_PAD;
		set_rgb(cr, plot_series_rgb[k]);
		cairo_move_to(cr, x, y);
		cairo_line_to(cr, x + LEGEND_SWATCH, y);
		cairo_stroke(cr);
		set_rgb(cr, plot_fg_rgb);
		text(cr, x + LEGEND_SWATCH + LEGEND_PAD, y,
		     s->series[k].name, ALIGN_LEFT);
	}
	cairo_restore(cr);
}

/* The title above the plot area and the x label below its tick labels. */
static void draw_titles(cairo_t *cr, const struct plot_spec *s)
{
	set_rgb(cr, plot_fg_rgb);
	if (s->title) {
		set_font(cr, TITLE_SIZE, 1);
		text(cr, PLOT_W / 2.0, PLOT_T / 2.0, s->title, ALIGN_CENTRE);
	}
	if (s->xlabel) {
		set_font(cr, LABEL_SIZE, 0);
		text(cr, (PLOT_L + PLOT_R) / 2.0, PLOT_B + 44, s->xlabel,
		     ALIGN_CENTRE);
	}
}

/* The whole page onto cr. 0, or the status of a failed scratch image. */
static cairo_status_t draw_page(cairo_t *cr, const struct plot_spec *s,
				const struct axis *ax, const struct axis *ay)
{
	struct legend lg = { 0 };
	cairo_status_t st;

	legend_size(cr, s, &lg);
	if ((st = legend_place(s, ax, ay, &lg)))
		return st;
	set_rgb(cr, plot_bg_rgb);
	cairo_paint(cr);
	draw_grid(cr, ax, ay);
	draw_series(cr, s, ax, ay);
	draw_frame(cr);
	draw_legend(cr, s, &lg);
	draw_titles(cr, s);
	return cairo_status(cr);
}

/* ---- output ---- */

/* cairo's write callback: append to the lg_buf in closure. */
static cairo_status_t buf_write(void *closure, const unsigned char *p,
				unsigned int n)
{
	return lg_buf_append(closure, p, n) ? CAIRO_STATUS_NO_MEMORY
					    : CAIRO_STATUS_SUCCESS;
}

static cairo_surface_t *surface_new(enum plot_format fmt, lg_buf *dst)
{
	switch (fmt) {
	case PLOT_SVG:
		return cairo_svg_surface_create_for_stream(buf_write, dst,
							   PLOT_W, PLOT_H);
	case PLOT_PDF:
		return cairo_pdf_surface_create_for_stream(buf_write, dst,
							   PLOT_W, PLOT_H);
	case PLOT_PNG:
	default:
		return cairo_image_surface_create(CAIRO_FORMAT_RGB24, PLOT_W,
						  PLOT_H);
	}
}

int plot_format_of(const char *path, enum plot_format *fmt)
{
	static const struct {
		const char *ext;
		enum plot_format fmt;
	} ext[] = {
		{ ".png", PLOT_PNG },
		{ ".svg", PLOT_SVG },
		{ ".pdf", PLOT_PDF },
	};
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return LG_EINVAL;
	for (size_t i = 0; i < LG_ARRAY_LEN(ext); i++)
		if (!strcasecmp(dot, ext[i].ext)) {
			*fmt = ext[i].fmt;
			return 0;
		}
	return LG_EINVAL;
}

int plot_render(const struct plot_spec *s, enum plot_format fmt,
		lg_buf *out, char *err, size_t errlen)
{
	struct axis ax, ay;
	double xmn, xmx, ymn, ymx;
	lg_buf file = { 0 };
	cairo_status_t st;
	int rc;

	if ((rc = spec_ranges(s, &xmn, &xmx, &ymn, &ymx, err, errlen)))
		return rc;
	axis_linear(&ax, xmn, xmx);
	if (s->logy)
		axis_log(&ay, ymn, ymx);
	else
		axis_linear(&ay, ymn, ymx);

	/* a surface or context that failed to be made is an object in an
	 * error state: every call on it is a no-op, the status says why */
	cairo_surface_t *sf = surface_new(fmt, &file);
	cairo_t *cr = cairo_create(sf);
	st = draw_page(cr, s, &ax, &ay);
	cairo_destroy(cr);
	if (!st && fmt == PLOT_PNG)
		st = cairo_surface_write_to_png_stream(sf, buf_write, &file);
	cairo_surface_finish(sf); /* SVG and PDF are written here */
	if (!st)
		st = cairo_surface_status(sf);
	cairo_surface_destroy(sf);
	if (st) {
		lg_errf(err, errlen, "cairo: %s", cairo_status_to_string(st));
		rc = st == CAIRO_STATUS_NO_MEMORY ? LG_ENOMEM : LG_EIO;
	} else {
		rc = lg_buf_append(out, file.data, file.len);
	}
	lg_buf_free(&file);
	return rc;
}

void plot_release_caches(void)
{
	cairo_debug_reset_static_data();
	FcFini();
}
