/*
 * cli/cmd_plot.c: `league plot CSV --x COL --y COL[,COL...] -o OUT.png`:
 * a line plot of CSV columns, drawn by cli/plot.c (no image library).
 *
 * The CSV is what `league eval DIR --format csv` writes: a header line of
 * column names, then one row of numbers a line, comma separated, no
 * quoting. Only the named columns must hold numbers; blank lines are
 * skipped. Bad input is a usage error (exit 2) naming file:line.
 */
#include "cli/cli.h"
#include "cli/plot.h"

#include <errno.h>
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
};

static int parse_args(int argc, char **argv, struct plot_args *a)
{
	static const struct option opts[] = {
		{ "x", required_argument, NULL, 'x' },
		{ "y", required_argument, NULL, 'y' },
		{ "out", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 't' },
		{ "logy", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	while ((ch = cli_getopt(argc, argv, "plot", "o:", opts)) != -1) {
		switch (ch) {
		case -2: return CLI_USAGE;
		case 'x': a->xcol = optarg; break;
		case 'y': a->ycols = optarg; break;
		case 'o': a->out = optarg; break;
		case 't': a->title = optarg; break;
		case 'l': a->logy = 1; break;
		default: return cli_usage_error("plot", "unexpected option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("plot", "expected one CSV file");
	a->csv = argv[optind];
	if (!a->xcol || !a->ycols || !a->out)
		return cli_usage_error("plot", "--x, --y and -o are required");
	return CLI_OK;
}

static int run(int argc, char **argv)
{
	struct plot_args a = { 0 };
	struct csv c = { 0 };
	char *ynames = NULL, *yname[PLOT_SERIES_MAX];
	int yidx[PLOT_SERIES_MAX], xidx;
	size_t ny = 0, len = 0, n = 0, cap = 0;
	double *xs = NULL, *ys[PLOT_SERIES_MAX] = { 0 };
	struct plot_series ser[PLOT_SERIES_MAX];
	lg_buf png = { 0 };
	char err[256];
	FILE *f = NULL;
	int rc;

	if ((rc = parse_args(argc, argv, &a)))
		return rc;
	if (!(ynames = strdup(a.ycols)))
		return CLI_FAIL;
	{
		char *cells[PLOT_SERIES_MAX];
		ny = split(ynames, cells, PLOT_SERIES_MAX);
		if (ny > PLOT_SERIES_MAX) {
			rc = cli_usage_error("plot", "--y: at most %d columns",
					     PLOT_SERIES_MAX);
			goto out;
		}
		for (size_t k = 0; k < ny; k++) {
			if (!*cells[k]) {
				rc = cli_usage_error("plot", "--y: empty "
						     "column name");
				goto out;
			}
			yname[k] = cells[k];
		}
	}
	if ((rc = read_all(a.csv, &c.text, &len)))
		goto out;

	/* header */
	char *p = c.text, *nl;
	size_t lineno = 1;
	nl = strchr(p, '\n');
	if (nl)
		*nl = 0;
	if (nl && nl > p && nl[-1] == '\r')
		nl[-1] = 0;
	if (!*p) {
		rc = cli_usage_error("plot", "%s:1: empty file (no header "
				     "line)", a.csv);
		goto out;
	}
	c.ncols = split(p, c.col, CSV_COLS_MAX);
	if (c.ncols > CSV_COLS_MAX) {
		rc = cli_usage_error("plot", "%s:1: more than %d columns",
				     a.csv, CSV_COLS_MAX);
		goto out;
	}
	if ((xidx = find_col(&c, a.xcol)) < 0) {
		rc = cli_usage_error("plot", "%s:1: no column '%s'", a.csv,
				     a.xcol);
		goto out;
	}
	for (size_t k = 0; k < ny; k++)
		if ((yidx[k] = find_col(&c, yname[k])) < 0) {
			rc = cli_usage_error("plot", "%s:1: no column '%s'",
					     a.csv, yname[k]);
			goto out;
		}

	/* rows */
	while (nl) {
		p = nl + 1;
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
		if (nc != c.ncols) {
			rc = cli_usage_error("plot", "%s:%zu: %zu cells, the "
					     "header has %zu", a.csv, lineno,
					     nc, c.ncols);
			goto out;
		}
		if (n == cap) {
			if (cap >= PLOT_POINTS_MAX) {
				rc = cli_usage_error("plot", "%s:%zu: more "
						     "than %u rows", a.csv,
						     lineno, PLOT_POINTS_MAX);
				goto out;
			}
			size_t nc2 = cap ? cap * 2 : 256;
			double *nx = realloc(xs, nc2 * sizeof *xs);
			if (!nx) {
				rc = CLI_FAIL;
				goto out;
			}
			xs = nx;
			for (size_t k = 0; k < ny; k++) {
				double *nyv = realloc(ys[k], nc2 * sizeof *nyv);
				if (!nyv) {
					rc = CLI_FAIL;
					goto out;
				}
				ys[k] = nyv;
			}
			cap = nc2;
		}
		for (size_t k = 0; k <= ny; k++) {
			int ci = k < ny ? yidx[k] : xidx;
			const char *name = k < ny ? yname[k] : a.xcol;
			double v;
			if (lg_parse_double(cell[ci], -HUGE_VAL, HUGE_VAL,
					    &v) || !isfinite(v)) {
				rc = cli_usage_error("plot", "%s:%zu: column "
						     "'%s': '%s' is not a "
						     "finite number", a.csv,
						     lineno, name, cell[ci]);
				goto out;
			}
			if (k < ny && a.logy && v <= 0) {
				rc = cli_usage_error("plot", "%s:%zu: column "
						     "'%s': %s is not > 0 "
						     "(--logy)", a.csv, lineno,
						     name, cell[ci]);
				goto out;
			}
			if (k < ny)
				ys[k][n] = v;
			else
				xs[n] = v;
		}
		n++;
	}
	if (!n) {
		rc = cli_usage_error("plot", "%s:1: no data rows after the "
				     "header", a.csv);
		goto out;
	}

	for (size_t k = 0; k < ny; k++)
		ser[k] = (struct plot_series){ .name = yname[k], .y = ys[k] };
	struct plot_spec spec = {
		.title = a.title, .xlabel = a.xcol, .logy = a.logy,
		.x = xs, .n = n, .series = ser, .nseries = ny,
	};
	if ((rc = plot_render_png(&spec, &png, err, sizeof err))) {
		rc = rc == LG_EINVAL ? cli_usage_error("plot", "%s: %s", a.csv,
						       err)
				     : CLI_FAIL;
		goto out;
	}
	if (!(f = fopen(a.out, "wb")) ||
	    fwrite(png.data, 1, png.len, f) != png.len) {
		fprintf(stderr, "league plot: %s: %s\n", a.out,
			strerror(errno));
		rc = CLI_FAIL;
		goto out;
	}
	if (fclose(f)) {
		f = NULL;
		fprintf(stderr, "league plot: %s: %s\n", a.out,
			strerror(errno));
		rc = CLI_FAIL;
		goto out;
	}
	f = NULL;
	rc = CLI_OK;
out:
	if (f)
		fclose(f);
	lg_buf_free(&png);
	for (size_t k = 0; k < PLOT_SERIES_MAX; k++)
		free(ys[k]);
	free(xs);
	free(c.text);
	free(ynames);
	return rc;
}

const struct cli_cmd cli_cmd_plot = {
	.name = "plot",
	.summary = "draw CSV columns as a PNG line plot",
	.help =
	"usage: league plot CSV --x COL --y COL[,COL...] -o OUT.png\n"
	"                   [--title T] [--logy]\n"
	"\n"
	"Draw the --y columns (at most 8) against --x as lines in a\n"
	"720x450 PNG with axes, tick labels and a legend naming the\n"
	"columns. The CSV has a header line of column names and rows of\n"
	"comma-separated numbers (what `league eval DIR --format csv`\n"
	"writes); the named columns must hold finite numbers, and with\n"
	"--logy the y columns must be > 0 (log scale, decade ticks).\n"
	"\n"
	"Exit status: 0 written, 1 write failure, 2 bad arguments or bad\n"
	"input (the message names file:line).\n"
	"\n"
	"Example:\n"
	"  league plot runs/results-kuhn/kuhn.csv --x seconds \\\n"
	"    --y nashconv_main,nashconv_league -o kuhn.png --logy\n",
	.run = run,
};
