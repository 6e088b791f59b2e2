/* tests/check_plot.c: `league plot` through the real binary. Each PNG is
 * read back with cairo (cairo_image_surface_create_from_png) and checked
 * where cli/plot.h's geometry puts known data: its size, each series'
 * colour at the height its values map to (a rising line lower left to
 * upper right, a log axis with 1e-1 and 1e-2 a third and two thirds of the
 * way down), antialiased edges, the legend where no data is, the title's
 * ink. The SVG is parsed as XML by Python's ElementTree and must hold a
 * path; the PDF has a header, a 720x450 page and an end. Then the bad
 * input and usage cases: exit 2 naming the file (and line), no output. */
#include <cairo.h>
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/plot.h"
#include "tests/testutil.h"

#define COLOUR_TOL 30 /* per channel: a line's core, not its blended edge */

static const uint8_t plot_series_rgb[PLOT_SERIES_MAX][3] = PLOT_SERIES_RGB;
static const uint8_t plot_bg_rgb[3] = PLOT_BG_RGB;
static const uint8_t plot_fg_rgb[3] = PLOT_FG_RGB;
static const uint8_t plot_grid_rgb[3] = PLOT_GRID_RGB;

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s not written", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	ck_assert(n > 0 && n < (64l << 20));
	rewind(f);
	uint8_t *b = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	b[n] = 0;
	*len = (size_t)n;
	return b;
}

/* `league plot CSV --x t --y Y -o OUT [extra...]`, which must succeed. */
static void plot_ok(const char *csv, const char *y, const char *out,
		    const char *extra1, const char *extra2)
{
	char o[4096], e[4096];
	const char *argv[] = { "plot", csv, "--x", "t", "--y", y, "-o", out,
			       extra1, extra2, NULL };
	int rc = tu_run_league(o, sizeof o, e, sizeof e, argv);
	ck_assert_msg(rc == 0, "league plot %s -> %s: rc %d: %s", csv, out,
		      rc, e);
}

struct img {
	cairo_surface_t *s;
	const unsigned char *d;
	int w, h, stride;
};

static void img_load(struct img *im, const char *path)
{
	im->s = cairo_image_surface_create_from_png(path);
	ck_assert_msg(cairo_surface_status(im->s) == CAIRO_STATUS_SUCCESS,
		      "%s: %s", path,
		      cairo_status_to_string(cairo_surface_status(im->s)));
	cairo_surface_flush(im->s);
	im->d = cairo_image_surface_get_data(im->s);
	im->w = cairo_image_surface_get_width(im->s);
	im->h = cairo_image_surface_get_height(im->s);
	im->stride = cairo_image_surface_get_stride(im->s);
	ck_assert_int_eq(im->w, PLOT_W);
	ck_assert_int_eq(im->h, PLOT_H);
	ck_assert(cairo_image_surface_get_format(im->s) ==
		  CAIRO_FORMAT_RGB24);
}

/* Free the image and what cairo keeps for the process (so the forked
 * test's leak check under ASan sees nothing of cairo's). */
static void img_free(struct img *im)
{
	cairo_surface_destroy(im->s);
	cairo_debug_reset_static_data();
}

static void rgb_at(const struct img *im, int x, int y, uint8_t rgb[3])
{
	uint32_t v;

	ck_assert(x >= 0 && x < im->w && y >= 0 && y < im->h);
	memcpy(&v, im->d + (size_t)y * (size_t)im->stride + 4 * (size_t)x, 4);
	rgb[0] = (uint8_t)(v >> 16);
	rgb[1] = (uint8_t)(v >> 8);
	rgb[2] = (uint8_t)v;
}

static int near(const uint8_t a[3], const uint8_t b[3], int tol)
{
	for (int i = 0; i < 3; i++)
		if (abs((int)a[i] - (int)b[i]) > tol)
			return 0;
	return 1;
}

static int is(const struct img *im, int x, int y, const uint8_t want[3])
{
	uint8_t c[3];

	rgb_at(im, x, y, c);
	return near(c, want, COLOUR_TOL);
}

/*
 * The one run of pixels of colour want in column x between rows y0 and
 * y1: its middle in cairo's continuous coordinates (a run of rows a..b
 * spans [a, b + 1]). Fails the test if there is none or it is broken.
 */
static double band(const struct img *im, int x, const uint8_t want[3],
		   int y0, int y1)
{
	int first = -1, last = -1, n = 0;

	for (int y = y0; y <= y1; y++)
		if (is(im, x, y, want)) {
			if (first < 0)
				first = y;
			last = y;
			n++;
		}
	ck_assert_msg(n > 0, "colour %u,%u,%u not in column %d", want[0],
		      want[1], want[2], x);
	ck_assert_msg(n == last - first + 1, "column %d: colour in pieces "
		      "(rows %d..%d, %d pixels)", x, first, last, n);
	ck_assert_msg(n <= 8, "column %d: band of %d rows", x, n);
	return (first + last + 1) / 2.0;
}

/* Pixel column and continuous height of data point (x, y) on a linear
 * plot whose axes both run 0..10 (cli/plot.h's mapping). */
static int col_of(double x)
{
	return (int)floor(PLOT_L + x / 10 * (PLOT_R - PLOT_L));
}

static double row_of(double y)
{
	return PLOT_B - y / 10 * (PLOT_B - PLOT_T);
}

/* 1 when the box holds a pixel of colour want. */
static int box_has(const struct img *im, int x0, int y0, int x1, int y1,
		   const uint8_t want[3])
{
	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++)
			if (is(im, x, y, want))
				return 1;
	return 0;
}

/* Dark (text) pixels in rows y0..y1, and their mean column. */
static int ink(const struct img *im, int y0, int y1, double *mean_x)
{
	int n = 0;
	double sx = 0;

	for (int y = y0; y <= y1; y++)
		for (int x = 0; x < im->w; x++) {
			uint8_t c[3];
			rgb_at(im, x, y, c);
			if (c[0] < 128 && c[1] < 128 && c[2] < 128) {
				n++;
				sx += x;
			}
		}
	if (mean_x)
		*mean_x = n ? sx / n : -1;
	return n;
}

START_TEST(png_rising_line_where_the_data_says)
{
	char dir[256], csv[300], png[300], row[64];
	const uint8_t *ca = plot_series_rgb[0], *cb = plot_series_rgb[1];
	size_t len;
	struct img im;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(csv, sizeof csv, "%s/c.csv", dir);
	snprintf(png, sizeof png, "%s/c.png", dir);
	/* a rises 0..10 with t; b is 2.5 throughout (axes 0..10, step 2);
	 * a CR line end, a blank line and a text column on the way */
	char text[1024] = "t,a,name,b\n";
	for (int i = 0; i <= 10; i++) {
		snprintf(row, sizeof row, "%d,%d,n%d,2.5%s", i, i, i,
			 i == 4 ? "\r\n\n" : "\n");
		strcat(text, row);
	}
	tu_write_file(csv, text);
	plot_ok(csv, "a,b", png, "--title", "test plot");
	uint8_t *file = slurp(png, &len);
	/* deflated: an 8-bit RGB image stored raw would be over 970 kB */
	ck_assert_msg(len < (size_t)PLOT_W * PLOT_H / 4, "%zu bytes", len);
	free(file);
	img_load(&im, png);

	double prev = 1e9;
	for (int i = 1; i <= 9; i++) {
		int x = col_of(i);
		double ya = band(&im, x, ca, PLOT_T, PLOT_B);
		ck_assert_msg(fabs(ya - row_of(i)) <= 1.5, "a(%d) at row %.1f, "
			      "expected %.1f", i, ya, row_of(i));
		ck_assert_msg(ya < prev, "a(%d) not above a(%d)", i, i - 1);
		prev = ya;
		double yb = band(&im, x, cb, PLOT_T, PLOT_B);
		ck_assert_msg(fabs(yb - row_of(2.5)) <= 1.5,
			      "b at t=%d at row %.1f", i, yb);
	}
	/* antialiased: just outside a's band at t=5 the colour is blended
	 * with the background, neither the series' nor white */
	int x5 = col_of(5), y5 = (int)floor(row_of(5));
	uint8_t c[3];
	int blended = 0;
	for (int y = y5 - 4; y <= y5 + 4; y++) {
		rgb_at(&im, x5, y, c);
		blended += !near(c, ca, COLOUR_TOL) &&
			   !near(c, plot_bg_rgb, 8) &&
			   !near(c, plot_grid_rgb, 8);
	}
	ck_assert_msg(blended > 0, "no antialiased pixel beside the line");
	/* away from the lines (t=5, y=8): no series colour */
	ck_assert(!is(&im, x5, (int)row_of(8), ca) &&
		  !is(&im, x5, (int)row_of(8), cb));
	/* the frame: the column left of the plot area is the text colour */
	ck_assert(is(&im, PLOT_L - 1, (PLOT_T + PLOT_B) / 2, plot_fg_rgb));
	/* the legend is in the top-left corner, the one without data: a
	 * swatch of each colour there, and no swatch of b in the top-right
	 * corner (where a's line ends, and the legend would go on a tie) */
	ck_assert(box_has(&im, PLOT_L + 8, PLOT_T + 8, PLOT_L + 48,
			  PLOT_T + 60, ca));
	ck_assert(box_has(&im, PLOT_L + 8, PLOT_T + 8, PLOT_L + 48,
			  PLOT_T + 60, cb));
	ck_assert(!box_has(&im, PLOT_R - 60, PLOT_T + 8, PLOT_R - 20,
			   PLOT_T + 60, cb));
	/* the title: ink above the plot area, centred on the page */
	double mx;
	ck_assert_int_gt(ink(&im, 0, PLOT_T - 5, &mx), 50);
	ck_assert_msg(fabs(mx - PLOT_W / 2.0) < 30, "title centred at %.1f",
		      mx);
	img_free(&im);
	tu_rmrf(dir);
}
END_TEST

START_TEST(png_log_axis_decades)
{
	char dir[256], csv[300], png[300], row[128];
	struct img im;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(csv, sizeof csv, "%s/log.csv", dir);
	snprintf(png, sizeof png, "%s/log.png", dir);
	/* a = 1e-1, b = 1e-2 throughout; c rises from 1e-3 to 1, so the
	 * axis spans exactly the three decades 1e-3 .. 1 */
	char text[2048] = "t,a,b,c\n";
	for (int i = 0; i <= 10; i++) {
		snprintf(row, sizeof row, "%d,0.1,0.01,%.17g\n", i,
			 pow(10, -3 + 0.3 * i));
		strcat(text, row);
	}
	tu_write_file(csv, text);
	plot_ok(csv, "a,b,c", png, "--logy", NULL);
	img_load(&im, png);
	const double h = PLOT_B - PLOT_T;
	for (int i = 3; i <= 7; i += 2) {
		int x = col_of(i);
		double ya = band(&im, x, plot_series_rgb[0], PLOT_T, PLOT_B);
		double yb = band(&im, x, plot_series_rgb[1], PLOT_T, PLOT_B);
		double yc = band(&im, x, plot_series_rgb[2], PLOT_T, PLOT_B);
		ck_assert_msg(fabs(ya - (PLOT_T + h / 3)) <= 1.5,
			      "1e-1 at row %.1f, expected %.1f", ya,
			      PLOT_T + h / 3);
		ck_assert_msg(fabs(yb - (PLOT_T + 2 * h / 3)) <= 1.5,
			      "1e-2 at row %.1f, expected %.1f", yb,
			      PLOT_T + 2 * h / 3);
		/* c = 10^(-3 + 0.3 i): 0.3 i decades above the bottom */
		ck_assert_msg(fabs(yc - (PLOT_B - 0.1 * i * h)) <= 1.5,
			      "c(%d) at row %.1f", i, yc);
	}
	img_free(&im);
	tu_rmrf(dir);
}
END_TEST

/* Parse path as XML with Python's ElementTree; print the root's tag, its
 * width and the number of path elements. The exit status of python. */
static int svg_parse(const char *path, char *tag, size_t taglen,
		     double *width, int *paths)
{
	char cmd[1024], line[512];

	snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c '"
		 "import sys, xml.etree.ElementTree as E\n"
		 "r = E.parse(sys.argv[1]).getroot()\n"
		 "n = sum(1 for e in r.iter() if e.tag.endswith(\"}path\"))\n"
		 "print(r.tag, r.get(\"width\"), n)' %s 2>&1", path);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	*tag = 0;
	*width = 0;
	*paths = 0;
	if (fgets(line, sizeof line, p)) {
		char t[256] = "", w[64] = "";
		if (sscanf(line, "%255s %63s %d", t, w, paths) == 3) {
			snprintf(tag, taglen, "%s", t);
			*width = strtod(w, NULL);
		}
	}
	return pclose(p);
}

START_TEST(svg_and_pdf)
{
	char dir[256], csv[300], svg[300], pdf[300], cut[300], tag[256];
	size_t len;
	double width;
	int paths;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(csv, sizeof csv, "%s/c.csv", dir);
	snprintf(svg, sizeof svg, "%s/c.SVG", dir); /* any case */
	snprintf(pdf, sizeof pdf, "%s/c.pdf", dir);
	snprintf(cut, sizeof cut, "%s/cut.svg", dir);
	tu_write_file(csv, "t,a,b\n0,1,3\n1,2,2\n2,3,1\n");
	plot_ok(csv, "a,b", svg, "--title", "svg & <pdf>");
	plot_ok(csv, "a,b", pdf, NULL, NULL);

	ck_assert_int_eq(svg_parse(svg, tag, sizeof tag, &width, &paths), 0);
	ck_assert_str_eq(tag, "{http://www.w3.org/2000/svg}svg");
	ck_assert_double_eq(width, PLOT_W);
	ck_assert_int_gt(paths, 0);
	/* the checker refuses what is not well-formed: the SVG cut short */
	uint8_t *b = slurp(svg, &len);
	b[len / 2] = 0;
	tu_write_file(cut, (const char *)b);
	free(b);
	ck_assert_int_ne(svg_parse(cut, tag, sizeof tag, &width, &paths), 0);

	b = slurp(pdf, &len);
	ck_assert(len > 200 && !memcmp(b, "%PDF-1.", 7));
	ck_assert_msg(memmem(b + len - 16, 16, "%%EOF", 5), "no %%%%EOF");
	ck_assert(memmem(b, len, "/MediaBox [ 0 0 720 450 ]", 25));
	free(b);
	tu_rmrf(dir);
}
END_TEST

START_TEST(labels_not_utf8_still_drawn)
{
	char dir[256], csv[300], png[300];
	struct img im;

	/* cairo refuses invalid UTF-8 and would leave a blank page: the
	 * renderer must draw such bytes as '?' (here a Latin-1 column name
	 * and a cut-short title) */
	tu_mkdtemp(dir, sizeof dir);
	snprintf(csv, sizeof csv, "%s/c.csv", dir);
	snprintf(png, sizeof png, "%s/c.png", dir);
	tu_write_file(csv, "t,caf\xe9\n0,1\n1,2\n");
	plot_ok(csv, "caf\xe9", png, "--title", "bad \xe2\x82");
	img_load(&im, png);
	ck_assert_int_gt(ink(&im, 0, PLOT_T - 5, NULL), 30);
	(void)band(&im, col_of(5), plot_series_rgb[0], PLOT_T, PLOT_B);
	img_free(&im);
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

/* -o names a format by its extension; any other name is a usage error
 * naming it, before the CSV is read (here it does not even exist). */
static const char *const bad_out[] = {
	"plot.jpg", "plot", "plot.png.txt", "dir.svg/plot", ".pdfx",
};

START_TEST(plot_unknown_format)
{
	char dir[256], out[300], o[4096], e[4096];

	tu_mkdtemp(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/%s", dir, bad_out[_i]);
	const char *argv[] = { "plot", "/nonexistent/x.csv", "--x", "t",
			       "--y", "a", "-o", out, NULL };
	int rc = tu_run_league(o, sizeof o, e, sizeof e, argv);
	ck_assert_msg(rc == 2, "%s: rc %d", out, rc);
	ck_assert_msg(strstr(e, out) && strstr(e, "unknown output format"),
		      "%s: %s", out, e);
	ck_assert(access(out, F_OK) != 0);
	tu_rmrf(dir);
}
END_TEST

START_TEST(plot_usage_errors)
{
	char dir[256], csv[300], out[4096], err[4096];
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

	/* an output that cannot be written: exit 1 naming it */
	tu_mkdtemp(dir, sizeof dir);
	snprintf(csv, sizeof csv, "%s/c.csv", dir);
	tu_write_file(csv, "t,a\n0,1\n1,2\n");
	const char *unwritable[] = { "plot", csv, "--x", "t", "--y", "a",
				     "-o", "/nonexistent/dir/p.png", NULL };
	ck_assert_int_eq(tu_run_league(out, sizeof out, err, sizeof err,
				       unwritable), 1);
	ck_assert_msg(strstr(err, "/nonexistent/dir/p.png"), "%s", err);
	tu_rmrf(dir);
}
END_TEST


/* -o names a FIFO, a directory, a device or a symlink: refused with exit 2
 * naming the path, the node left as it was; --follow-symlinks writes the
 * link's target, and a regular file is replaced through a rename. */
START_TEST(plot_output_special_files)
{
	char dir[256], csv[300], fifo[300], link[300], real[300], sub[300];
	char out[4096], err[4096];
	struct stat st;
	int hold;

	tu_mkdtemp(dir, sizeof dir);
	snprintf(csv, sizeof csv, "%s/c.csv", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo.png", dir);
	snprintf(link, sizeof link, "%s/link.png", dir);
	snprintf(real, sizeof real, "%s/real.png", dir);
	snprintf(sub, sizeof sub, "%s/sub.png", dir);
	tu_write_file(csv, "t,a\n0,1\n1,2\n");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	/* a reader and writer of our own, so an old binary's open would not
	 * block */
	ck_assert_int_ge(hold = open(fifo, O_RDWR | O_NONBLOCK), 0);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	tu_write_file(real, "old");
	ck_assert_int_eq(symlink(real, link), 0);
	const char *targets[] = { fifo, sub, "/dev/null", link };
	for (size_t i = 0; i < LG_ARRAY_LEN(targets); i++) {
		const char *argv[] = { "plot", csv, "--x", "t", "--y", "a",
				       "-o", targets[i], NULL };
		ck_assert_int_eq(tu_run_league(out, sizeof out, err,
					       sizeof err, argv), 2);
		ck_assert_msg(strstr(err, targets[i]), "%s", err);
	}
	ck_assert_int_eq(lstat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(lstat(sub, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(stat(real, &st), 0);
	ck_assert_int_eq(st.st_size, 3);
	close(hold);
	/* followed: the target becomes the plot, the link stays a link */
	plot_ok(csv, "a", link, "--follow-symlinks", NULL);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(stat(real, &st), 0);
	ck_assert_int_gt(st.st_size, 100);
	tu_rmrf(dir);
}
END_TEST

Suite *suite_plot(void)
{
	Suite *s = suite_create("plot");
	const struct tu_test cli_tests[] = {
		{ png_rising_line_where_the_data_says, 1 },
		{ png_log_axis_decades, 1 },
		{ svg_and_pdf, 1 },
		{ labels_not_utf8_still_drawn, 1 },
		{ plot_bad_input, (int)LG_ARRAY_LEN(bad) },
		{ plot_unknown_format, (int)LG_ARRAY_LEN(bad_out) },
		{ plot_usage_errors, 1 },
		{ plot_output_special_files, 1 },
	};

	TU_TCASE(s, "cli", 60, cli_tests);
	return s;
}
