/*
 * cli/plot.h: line plots as PNG, drawn by the project itself (cli/plot.c).
 *
 * A fixed-size canvas of palette indices: title on top, a plot area with
 * "nice" linear ticks (or decade ticks with logy), tick labels in a built-in
 * 5x7 bitmap font (lower case drawn as upper case), a legend box naming the
 * series in the corner of the plot area where it hides the least data, one
 * colour per series and a mark on each point (up to 100 points).
 * The PNG is 4-bit palette, no interlace, every row filter 0, its zlib
 * stream made of "stored" deflate blocks (no compression, no zlib needed);
 * CRC-32 and Adler-32 are computed here.
 *
 * The geometry is fixed and public so tests can find a data point's pixel:
 * a data point (x, y) lands at
 *   px = PLOT_L + (x - xlo) / (xhi - xlo) * (PLOT_R - PLOT_L)
 *   py = PLOT_B - (y - ylo) / (yhi - ylo) * (PLOT_B - PLOT_T)
 * (rounded to nearest) where [lo, hi] is the data range widened to whole
 * tick steps, and lines are drawn with a 3x3 brush.
 */
#ifndef LG_CLI_PLOT_H
#define LG_CLI_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define PLOT_W 720
#define PLOT_H 450
#define PLOT_L 110          /* plot area, inclusive pixel bounds */
#define PLOT_R (PLOT_W - 44)
#define PLOT_T 50
#define PLOT_B (PLOT_H - 70)
#define PLOT_SERIES_MAX 8
#define PLOT_POINTS_MAX 1000000u

/* Palette indices; series i is drawn in PLOT_C_SERIES + i. */
enum { PLOT_C_BG = 0, PLOT_C_FG, PLOT_C_GRID, PLOT_C_SERIES };
/* RGB of palette index i (i < PLOT_C_SERIES + PLOT_SERIES_MAX). */
extern const uint8_t plot_palette[PLOT_C_SERIES + PLOT_SERIES_MAX][3];

struct plot_series {
	const char *name;   /* legend text */
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
 * Draw spec and append the PNG file's bytes to out (caller owns and frees
 * it with lg_buf_free). LG_EINVAL (reason in err) when a count is out of
 * range, a value is not finite or, with logy, not positive; LG_ENOMEM.
 */
int plot_render_png(const struct plot_spec *spec, lg_buf *out, char *err,
		    size_t errlen);

/* PNG's CRC-32 (polynomial 0xEDB88320). Start with 0; chain calls. */
uint32_t plot_crc32(uint32_t crc, const void *p, size_t n);
/* zlib's Adler-32. Start with 1; chain calls. */
uint32_t plot_adler32(uint32_t adler, const void *p, size_t n);

#endif
