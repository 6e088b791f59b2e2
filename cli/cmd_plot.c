/*
 * cli/cmd_plot.c: `league plot CSV --x COL --y COL[,COL...] -o OUT`: a
 * line plot of CSV columns, drawn by cli/plot.c with cairo as PNG, SVG or
 * PDF (by OUT's extension).
 *
 * The CSV is what `league eval DIR --format csv` writes: a header line of
 * column names, then one row of numbers a line, comma separated, no
 * quoting. Only the named columns must hold numbers; blank lines are
 * skipped. Bad input is a usage error (exit 2) naming file:line.
 */
#include "cli/cli.h"
#include "cli/plot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSV_BYTES_MAX (64u << 20)
#define CSV_COLS_MAX 256

struct csv {
	char *text;          /* whole file, split in place */
	char *col[CSV_COLS_MAX];
	size_t ncols;
};

/* Read path into memory (at most CSV_BYTES_MAX). CLI_OK or CLI_USAGE. */
static int read_all(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = CLI_USAGE;

	if (!f)
		return cli_usage_error("plot", "%s: %s", path, strerror(errno));
	for (;;) {
		if (cap - n < 4096) {
			if (cap >= CSV_BYTES_MAX) {
				cli_usage_error("plot", "%s: larger than %u "
						"bytes", path, CSV_BYTES_MAX);
				goto out;
			}
			size_t nc = cap ? cap * 2 : 65536;
			char *nb = realloc(buf, nc + 1);
			if (!nb) {
				rc = CLI_FAIL;
				goto out;
			}
			buf = nb;
			cap = nc;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (!k)
			break;
	}
	if (ferror(f)) {
		cli_usage_error("plot", "%s: read error", path);
		goto out;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	buf = NULL;
	rc = CLI_OK;
out:
	free(buf);
	fclose(f);
	return rc;
}

/* Cut line at commas into cell pointers; returns the count (may exceed
 * max, then only max are stored). */
static size_t split(char *line, char **cell, size_t max)
{
	size_t n = 0;
	for (char *p = line;; p++) {
		char *c = strchr(p, ',');
		if (n < max)
			cell[n] = p;
		n++;
		if (!c)
			break;
		*c = 0;
		p = c;
	}
	return n;
}

static int find_col(const struct csv *c, const char *name)
{
	for (size_t i = 0; i < c->ncols; i++)
		if (!strcmp(c->col[i], name))
			return (int)i;
	return -1;
}

struct plot_args {
	const char *csv, *xcol, *ycols, *out, *title;
	int logy;
	unsigned out_flags; /* LG_OUT_FOLLOW_SYMLINKS with --follow-symlinks */
	enum plot_format fmt; /* from out's extension */
};

static int parse_args(int argc, char **argv, struct plot_args *a)
{
	const struct cli_arg flags[] = {
		CLI_STRING("x", 0, &a->xcol),
		CLI_STRING("y", 0, &a->ycols),
		CLI_STRING("out", 'o', &a->out),
		CLI_STRING("title", 0, &a->title),
		CLI_BOOL("logy", 0, &a->logy),
		CLI_BITS("follow-symlinks", 0, &a->out_flags,
			 LG_OUT_FOLLOW_SYMLINKS),
		CLI_END,
	};

	if (cli_args_one("plot", flags, "expected one CSV file", argc, argv,
			 &a->csv))
		return CLI_USAGE;
	if (!a->xcol || !a->ycols || !a->out)
		return cli_usage_error("plot", "--x, --y and -o are required");
	if (plot_format_of(a->out, &a->fmt))
		return cli_usage_error("plot", "%s: unknown output format "
				       "(the name must end in .png, .svg or "
				       ".pdf)", a->out);
	return CLI_OK;
}

/* The columns to plot: names from --y, indices from the header, values
 * from the rows. */
struct columns {
	char *ynames;                     /* copy of --y, split in place */
	char *yname[PLOT_SERIES_MAX];     /* ny names into ynames */
	size_t ny;
	int xidx, yidx[PLOT_SERIES_MAX];  /* cell indices */
	double *xs, *ys[PLOT_SERIES_MAX]; /* n values each, room for cap */
	size_t n, cap;
};

static void columns_free(struct columns *cols)
{
	for (size_t k = 0; k < PLOT_SERIES_MAX; k++)
		free(cols->ys[k]);
	free(cols->xs);
	free(cols->ynames);
}

/*
 * Split the --y argument (comma-separated column names) into cols->yname.
 * CLI_USAGE for more than PLOT_SERIES_MAX names or an empty one, CLI_FAIL
 * out of memory; cols->ynames is set (to free) whenever it was allocated.
 */
static int parse_ycols(const char *arg, struct columns *cols)
{
	char *cells[PLOT_SERIES_MAX];

	if (!(cols->ynames = strdup(arg)))
		return CLI_FAIL;
	cols->ny = split(cols->ynames, cells, PLOT_SERIES_MAX);
	if (cols->ny > PLOT_SERIES_MAX)
		return cli_usage_error("plot", "--y: at most %d columns",
				       PLOT_SERIES_MAX);
	for (size_t k = 0; k < cols->ny; k++) {
		if (!*cells[k])
			return cli_usage_error("plot", "--y: empty column "
					       "name");
		cols->yname[k] = cells[k];
	}
	return CLI_OK;
}

/*
 * Cut the header line (a trailing CR is dropped) off c->text, split it
 * into c->col and find the --x and --y columns in it. *nl is left at the
 * header's end (where the rows start) or NULL when the file has one line.
 * CLI_OK, or CLI_USAGE naming path:1 (empty, too many columns, a column
 * missing).
 */
static int read_header(struct csv *c, const struct plot_args *a,
		       struct columns *cols, char **nl)
{
	char *p = c->text;

	*nl = strchr(p, '\n');
	if (*nl)
		**nl = 0;
	if (*nl && *nl > p && (*nl)[-1] == '\r')
		(*nl)[-1] = 0;
	if (!*p)
		return cli_usage_error("plot", "%s:1: empty file (no header "
				       "line)", a->csv);
	c->ncols = split(p, c->col, CSV_COLS_MAX);
	if (c->ncols > CSV_COLS_MAX)
		return cli_usage_error("plot", "%s:1: more than %d columns",
				       a->csv, CSV_COLS_MAX);
	if ((cols->xidx = find_col(c, a->xcol)) < 0)
		return cli_usage_error("plot", "%s:1: no column '%s'", a->csv,
				       a->xcol);
	for (size_t k = 0; k < cols->ny; k++)
		if ((cols->yidx[k] = find_col(c, cols->yname[k])) < 0)
			return cli_usage_error("plot", "%s:1: no column '%s'",
					       a->csv, cols->yname[k]);
	return CLI_OK;
}

/*
 * Make room for one more row in every column, doubling from 256 rows up
 * to PLOT_POINTS_MAX. CLI_OK, CLI_USAGE (too many rows; path:lineno is the
 * row that did not fit) or CLI_FAIL out of memory.
 */
static int columns_grow(struct columns *cols, const char *path,
			size_t lineno)
{
	if (cols->n < cols->cap)
		return CLI_OK;
	if (cols->cap >= PLOT_POINTS_MAX)
		return cli_usage_error("plot", "%s:%zu: more than %u rows",
				       path, lineno, PLOT_POINTS_MAX);
	size_t cap = cols->cap ? cols->cap * 2 : 256;
	double *nx = realloc(cols->xs, cap * sizeof *nx);
	if (!nx)
		return CLI_FAIL;
	cols->xs = nx;
	for (size_t k = 0; k < cols->ny; k++) {
		double *ny = realloc(cols->ys[k], cap * sizeof *ny);
		if (!ny)
			return CLI_FAIL;
		cols->ys[k] = ny;
	}
	cols->cap = cap;
	return CLI_OK;
}

/*
 * Store the plotted cells of one row (the y columns, then x) as row
 * cols->n, which must have room. CLI_OK, or CLI_USAGE naming path:lineno
 * and the column when a cell is not a finite number (or, with --logy, a y
 * cell is not > 0).
 */
static int row_values(struct columns *cols, char **cell,
		      const struct plot_args *a, size_t lineno)
{
	for (size_t k = 0; k <= cols->ny; k++) {
		int ci = k < cols->ny ? cols->yidx[k] : cols->xidx;
		const char *name = k < cols->ny ? cols->yname[k] : a->xcol;
		double v;
		if (lg_parse_double(cell[ci], -HUGE_VAL, HUGE_VAL, &v) ||
		    !isfinite(v))
			return cli_usage_error("plot", "%s:%zu: column '%s': "
					       "'%s' is not a finite number",
					       a->csv, lineno, name, cell[ci]);
		if (k < cols->ny && a->logy && v <= 0)
			return cli_usage_error("plot", "%s:%zu: column '%s': "
					       "%s is not > 0 (--logy)",
					       a->csv, lineno, name, cell[ci]);
		if (k < cols->ny)
			cols->ys[k][cols->n] = v;
		else
			cols->xs[cols->n] = v;
	}
	return CLI_OK;
}

/*
 * Read the rows after the header (nl is where read_header left it) into
 * cols. Blank lines are skipped, a trailing CR is dropped. CLI_OK with at
 * least one row; CLI_USAGE naming path:line (a row's cell count differs
 * from the header's, a bad value, too many rows, no rows at all);
 * CLI_FAIL out of memory.
 */
static int read_rows(struct columns *cols, const struct csv *c,
		     const struct plot_args *a, char *nl)
{
	size_t lineno = 1;
	int rc;

	while (nl) {
		char *p = nl + 1;
		lineno++;
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		size_t ll = strlen(p);
		if (ll && p[ll - 1] == '\r')
			p[--ll] = 0;
		if (!ll)
			continue;
		char *cell[CSV_COLS_MAX];
		size_t nc = split(p, cell, CSV_COLS_MAX);
		if (nc != c->ncols)
			return cli_usage_error("plot", "%s:%zu: %zu cells, "
					       "the header has %zu", a->csv,
					       lineno, nc, c->ncols);
		if ((rc = columns_grow(cols, a->csv, lineno)) ||
		    (rc = row_values(cols, cell, a, lineno)))
			return rc;
		cols->n++;
	}
	if (!cols->n)
		return cli_usage_error("plot", "%s:1: no data rows after the "
				       "header", a->csv);
	return CLI_OK;
}

/*
 * Draw cols into a->out in a->fmt. CLI_OK; CLI_USAGE naming the CSV when
 * the renderer refuses the data (a range it cannot draw); CLI_FAIL out of
 * memory, when cairo fails or when the file cannot be written (the reason
 * on stderr). Nothing is written unless the whole plot was drawn.
 */
static int write_plot(const struct columns *cols, const struct plot_args *a)
{
	struct plot_series ser[PLOT_SERIES_MAX];
	lg_buf file = { 0 };
	char err[PATH_MAX + 128];
	int rc;

	for (size_t k = 0; k < cols->ny; k++)
		ser[k] = (struct plot_series){ .name = cols->yname[k],
					       .y = cols->ys[k] };
	struct plot_spec spec = {
		.title = a->title, .xlabel = a->xcol, .logy = a->logy,
		.x = cols->xs, .n = cols->n, .series = ser,
		.nseries = cols->ny,
	};
	rc = plot_render(&spec, a->fmt, &file, err, sizeof err);
	plot_release_caches(); /* the last drawing of this process */
	if (rc == LG_EINVAL) {
		rc = cli_usage_error("plot", "%s: %s", a->csv, err);
		goto out;
	}
	if (rc) {
		fprintf(stderr, "league plot: %s: %s\n", a->out,
			rc == LG_ENOMEM ? lg_strerror(rc) : err);
		rc = CLI_FAIL;
		goto out;
	}
	if ((rc = lg_file_write_out(a->out, file.data, file.len, a->out_flags,
				    err, sizeof err))) {
		fprintf(stderr, "league plot: %s\n", err);
		rc = rc == LG_EINVAL ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	rc = CLI_OK;
out:
	lg_buf_free(&file);
	return rc;
}

static int run(int argc, char **argv)
{
	struct plot_args a = { 0 };
	struct csv c = { 0 };
	struct columns cols = { 0 };
	size_t len = 0;
	char *nl;
	int rc;

	if ((rc = parse_args(argc, argv, &a)))
		return rc;
	if ((rc = parse_ycols(a.ycols, &cols)) ||
	    (rc = read_all(a.csv, &c.text, &len)) ||
	    (rc = read_header(&c, &a, &cols, &nl)) ||
	    (rc = read_rows(&cols, &c, &a, nl)))
		goto out;
	rc = write_plot(&cols, &a);
out:
	columns_free(&cols);
	free(c.text);
	return rc;
}

const struct cli_cmd cli_cmd_plot = {
	.name = "plot",
	.summary = "draw CSV columns as a line plot (PNG, SVG or PDF)",
	.help =
	"usage: league plot CSV --x COL --y COL[,COL...] -o OUT\n"
	"                   [--title T] [--logy] [--follow-symlinks]\n"
	"       (OUT ends in .png, .svg or .pdf)\n"
	"\n"
	"Draw the --y columns (at most 8) against --x as antialiased\n"
	"lines on a 720x450 page (pixels for PNG, points for SVG and PDF;\n"
	"the format is OUT's extension) with a grid, tick labels, a title\n"
	"and a legend naming the columns, drawn with cairo in a sans-serif\n"
	"font. The CSV has a header line of column names and rows of\n"
	"comma-separated numbers (what `league eval DIR --format csv`\n"
	"writes); the named columns must hold finite numbers, and with\n"
	"--logy the y columns must be > 0 (log scale, decade ticks).\n"
	"\n"
	"Exit status: 0 written, 1 drawing or write failure, 2 bad\n"
	"arguments (an unknown OUT extension among them) or bad input\n"
	"(the message names file:line), or an OUT that is not a regular\n"
	"file. OUT is replaced whole (a temporary renamed into place), and\n"
	"only when it is a regular file or missing: a FIFO, device or\n"
	"directory is refused, a symlink too unless --follow-symlinks.\n"
	"\n"
	"Example:\n"
	"  league plot runs/results-kuhn/kuhn.csv --x seconds \\\n"
	"    --y nashconv_main,nashconv_league -o kuhn.png --logy\n",
	.run = run,
};
