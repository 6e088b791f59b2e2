/*
 * cli/plot.h: line plots drawn with cairo (cli/plot.c), as PNG, SVG or PDF.
 *
 * A fixed-size page: title on top, a plot area with "nice" linear ticks (or
 * decade ticks with logy) and a light grid, tick labels and the x label in
 * a sans-serif font (fontconfig's "sans-serif": DejaVu Sans on Debian), a
 * legend box naming the series in the corner of the plot area where it
 * hides the least data, one colour per series, antialiased lines, and a
 * dot on each point while there are at most 100.
 *
 * The geometry is fixed and public so tests can find a data point: in
 * cairo's user space (PNG pixels, SVG and PDF points; pixel (i, j) covers
 * [i, i+1] x [j, j+1]) a data point (x, y) lands at
 *   px = PLOT_L + (x - xlo) / (xhi - xlo) * (PLOT_R - PLOT_L)
 *   py = PLOT_B - (y - ylo) / (yhi - ylo) * (PLOT_B - PLOT_T)
 * where [lo, hi] is the data range widened to whole tick steps (log10 of
 * the values and whole decades with logy), and a series is stroked
 * PLOT_LINE_W wide along those points.
 */
#ifndef LG_CLI_PLOT_H
#define LG_CLI_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define PLOT_W 720
#define PLOT_H 450
#define PLOT_L 110          /* the plot area's edges */
#define PLOT_R (PLOT_W - 44)
#define PLOT_T 50
#define PLOT_B (PLOT_H - 70)
#define PLOT_LINE_W 2.0
#define PLOT_SERIES_MAX 8
#define PLOT_POINTS_MAX 1000000u

/* Initialisers of the colours (RGB): series i is PLOT_SERIES_RGB[i]
 * (blue, orange, green, red, ...); the page's background, its frame and
 * text, its grid. Macros, so a test can know them without linking cli/. */
#define PLOT_SERIES_RGB { \
	{ 31, 119, 180 }, { 255, 127, 14 }, { 44, 160, 44 }, \
	{ 214, 39, 40 }, { 148, 103, 189 }, { 140, 86, 75 }, \
	{ 227, 119, 194 }, { 127, 127, 127 }, \
}
#define PLOT_BG_RGB { 255, 255, 255 }
#define PLOT_FG_RGB { 0, 0, 0 }
#define PLOT_GRID_RGB { 222, 222, 222 }

enum plot_format { PLOT_PNG, PLOT_SVG, PLOT_PDF };

struct plot_series {
	const char *name;   /* legend text (bytes that are not UTF-8: '?') */
	const double *y;    /* n values, finite (and > 0 with logy) */
};

struct plot_spec {
	const char *title;  /* may be NULL */
	const char *xlabel; /* may be NULL */
	int logy;
	const double *x;    /* n finite values, drawn in the given order */
	size_t n;           /* 1 .. PLOT_POINTS_MAX */
	const struct plot_series *series;
	size_t nseries;     /* 1 .. PLOT_SERIES_MAX */
};

/*
 * The format a file name asks for by its extension: .png, .svg or .pdf
 * (any case). 0, or LG_EINVAL for any other name.
 */
int plot_format_of(const char *path, enum plot_format *fmt);

/*
 * Draw spec in fmt and append the file's bytes to out (caller owns and
 * frees it with lg_buf_free). LG_EINVAL (reason in err) when a count is
 * out of range, a value is not finite or, with logy, not positive, or the
 * ranges are too wide or narrow to draw; LG_ENOMEM; LG_EIO when cairo
 * fails otherwise (its reason in err). Nothing is appended on error.
 */
int plot_render(const struct plot_spec *spec, enum plot_format fmt,
		lg_buf *out, char *err, size_t errlen);

/*
 * Release what cairo and fontconfig keep for the life of the process (font
 * caches, the font configuration), so a leak checker sees every block
 * freed. Only after the last plot_render; the process should exit soon.
 */
void plot_release_caches(void);

#endif
