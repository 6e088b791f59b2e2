/*
 * cli/args.c: argument parsing for every command (cli/args.h): the flag
 * tables of cli_args(), the usage error they print, and the getopt_long
 * loop with the same messages for the commands that still walk argv
 * themselves. Writes nothing but the usage error to stderr.
 */
#include "cli/args.h"
#include "util/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* getopt_long's value for the long form of row i: above every letter. */
#define LONG_VAL(i) (256 + (i))

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "league%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'league%s%s --help')\n", cmd ? " " : "",
		cmd ? cmd : "");
	return CLI_USAGE;
}

/* args.h */
int cli_oom(const char *cmd)
{
	fprintf(stderr, "league%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "",
		lg_strerror(LG_ENOMEM));
	return CLI_FAIL;
}

/*
 * One getopt_long step with its errors as text: the option, -1 at the
 * end, or -2 with the message in err. longopts' values above 255 are
 * rows of a cli_arg table (LONG_VAL), so one given a value it does not
 * take is named as such; getopt_long reports that with optopt the value.
 */
static int getopt_step(int argc, char **argv, const char *shortopts,
		       const struct option *longopts, char *err,
		       size_t errlen)
{
	char spec[2 * CLI_ARGS_MAX + 2];
	int c;

	/* Leading ':' makes getopt report a missing argument as ':'. */
	snprintf(spec, sizeof spec, ":%s", shortopts ? shortopts : "");
	opterr = 0;
	c = getopt_long(argc, argv, spec, longopts, NULL);
	if (c == '?') {
		if (optopt >= LONG_VAL(0))
			snprintf(err, errlen, "option '--%s' takes no value",
				 longopts[optopt - LONG_VAL(0)].name);
		else if (optopt)
			snprintf(err, errlen, "unknown option '-%c'", optopt);
		else
			snprintf(err, errlen, "unknown option '%s'",
				 argv[optind - 1]);
		return -2;
	}
	if (c == ':') {
		snprintf(err, errlen, "option '%s' needs a value",
			 argv[optind - 1]);
		return -2;
	}
	return c;
}

int cli_getopt(int argc, char **argv, const char *cmd, const char *shortopts,
	       const struct option *longopts)
{
	char err[256];
	int c = getopt_step(argc, argv, shortopts, longopts, err, sizeof err);

	if (c == -2)
		cli_usage_error(cmd, "%s", err);
	return c;
}

int cli_opt_u64(const char *cmd, const char *opt, const char *val,
		unsigned long long lo, unsigned long long hi,
		unsigned long long *out)
{
	uint64_t v;
	int rc = lg_parse_u64(val, lo, hi, &v);

	if (rc) {
		cli_usage_error(cmd, "%s: '%s' is not a whole number in [%llu, %llu]",
				opt, val, lo, hi);
		return CLI_USAGE;
	}
	*out = v;
	return 0;
}

int cli_opt_double(const char *cmd, const char *opt, const char *val,
		   double lo, double hi, double *out)
{
	if (lg_parse_double(val, lo, hi, out)) {
		cli_usage_error(cmd, "%s: '%s' is not a number in [%g, %g]",
				opt, val, lo, hi);
		return CLI_USAGE;
	}
	return 0;
}

int cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

/* Whether row f is followed by a value. */
static int takes_value(const struct cli_arg *f)
{
	return f->kind == CLI_ARG_STRING || f->kind == CLI_ARG_U64 ||
	       f->kind == CLI_ARG_DOUBLE || f->kind == CLI_ARG_CALL;
}

/*
 * getopt_long's tables for the rows of a: longopts (ending in a zero row)
 * and the letters in shortopts. LG_EINVAL with err for more than
 * CLI_ARGS_MAX rows or a letter getopt keeps for itself.
 */
static int getopt_tables(const struct cli_args *a, struct option *longopts,
			 char *shortopts, char *err, size_t errlen)
{
	size_t n = 0, k = 0;

	for (const struct cli_arg *f = a->flags; f && f->name; f++, n++) {
		if (n == CLI_ARGS_MAX || f->letter == '?' || f->letter == ':' ||
		    f->letter < 0 || f->letter > 127) {
			snprintf(err, errlen, "flag table: row %zu ('--%s') "
				 "over %d rows or a bad letter", n, f->name,
				 CLI_ARGS_MAX);
			return LG_EINVAL;
		}
		longopts[n] = (struct option){ f->name, takes_value(f)
			? required_argument : no_argument, NULL,
			LONG_VAL((int)n) };
		if (f->letter) {
			shortopts[k++] = (char)f->letter;
			if (takes_value(f))
				shortopts[k++] = ':';
		}
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[k] = 0;
	return 0;
}

/* The row getopt_long's c stands for: its long form or its letter. */
static const struct cli_arg *row_of(const struct cli_args *a, int c)
{
	if (c >= LONG_VAL(0))
		return &a->flags[c - LONG_VAL(0)];
	for (const struct cli_arg *f = a->flags; f->name; f++)
		if (f->letter == c)
			return f;
	return NULL;
}

/* Row f given with val (NULL for a flag without one) into its
 * destination. 0, or LG_EINVAL with the message in err. */
static int store_value(const struct cli_arg *f, const char *val, char *err,
		       size_t errlen)
{
	uint64_t u;

	if (f->refused) {
		snprintf(err, errlen, "option '--%s' does not apply here",
			 f->name);
		return LG_EINVAL;
	}
	switch (f->kind) {
	case CLI_ARG_STRING:
		*(const char **)f->dest = val;
		break;
	case CLI_ARG_U64:
		if (lg_parse_u64(val, f->min, f->max, &u)) {
			snprintf(err, errlen, "--%s: '%s' is not a whole "
				 "number in [%llu, %llu]", f->name, val,
				 f->min, f->max);
			return LG_EINVAL;
		}
		*(unsigned long long *)f->dest = u;
		break;
	case CLI_ARG_DOUBLE:
		if (lg_parse_double(val, f->lo, f->hi, (double *)f->dest)) {
			snprintf(err, errlen, "--%s: '%s' is not a number in "
				 "[%g, %g]", f->name, val, f->lo, f->hi);
			return LG_EINVAL;
		}
		break;
	case CLI_ARG_SET:
		*(int *)f->dest = f->set;
		break;
	case CLI_ARG_BITS:
		*(unsigned *)f->dest |= (unsigned)f->set;
		break;
	case CLI_ARG_CALL:
		err[0] = 0;
		if (f->call(f->dest, val, err, errlen)) {
			if (!err[0])
				snprintf(err, errlen, "--%s: bad value '%s'",
					 f->name, val);
			return LG_EINVAL;
		}
		break;
	}
	if (f->seen)
		*f->seen = 1;
	return 0;
}

/* The count of positional arguments argv[first..argc) against a. */
static int check_positional(const struct cli_args *a, int argc, char **argv,
			    int first, char *err, size_t errlen)
{
	int n = argc - first;

	if (n > a->max_pos && a->name_extra) {
		snprintf(err, errlen, "unexpected argument '%s'",
			 argv[first + a->max_pos]);
		return LG_EINVAL;
	}
	if (n < a->min_pos || n > a->max_pos) {
		snprintf(err, errlen, "%s", a->want ? a->want
			 : "wrong number of arguments");
		return LG_EINVAL;
	}
	return 0;
}

int cli_args_parse(const struct cli_args *a, int argc, char **argv,
		   char ***pos, int *npos, char *err, size_t errlen)
{
	struct option longopts[CLI_ARGS_MAX + 1];
	char shortopts[2 * CLI_ARGS_MAX + 1];
	const struct cli_arg *f;
	int c, rc;

	if ((rc = getopt_tables(a, longopts, shortopts, err, errlen)))
		return rc;
	optind = 0; /* a new argv: getopt_long starts over */
	while ((c = getopt_step(argc, argv, shortopts, longopts, err,
				errlen)) != -1) {
		if (c == -2)
			return LG_EINVAL;
		if (!(f = row_of(a, c))) { /* getopt_long returned no row */
			snprintf(err, errlen, "unknown option '%s'",
				 argv[optind - 1]);
			return LG_EINVAL;
		}
		if ((rc = store_value(f, takes_value(f) ? optarg : NULL, err,
				      errlen)))
			return rc;
	}
	if ((rc = check_positional(a, argc, argv, optind, err, errlen)))
		return rc;
	if (pos)
		*pos = argv + optind;
	if (npos)
		*npos = argc - optind;
	return 0;
}

int cli_args(const struct cli_args *a, int argc, char **argv, char ***pos,
	     int *npos)
{
	char err[1024];

	if (cli_args_parse(a, argc, argv, pos, npos, err, sizeof err))
		return cli_usage_error(a->cmd, "%s", err);
	return CLI_OK;
}

/* args.h */
int cli_args_one(const char *cmd, const struct cli_arg *flags,
		 const char *want, int argc, char **argv, const char **arg)
{
	const struct cli_args a = { cmd, flags, 1, 1, want, 0 };
	char **pos;

	if (cli_args(&a, argc, argv, &pos, NULL))
		return CLI_USAGE;
	*arg = pos[0];
	return CLI_OK;
}

/* "expected 'a', 'b' or 'c'" from subs' names into buf. */
static const char *subs_expected(const struct cli_sub *subs, char *buf,
				 size_t len)
{
	size_t n = 0, at;

	while (subs[n].name)
		n++;
	at = (size_t)snprintf(buf, len, "expected");
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s'%s'",
				       !i ? " " : i + 1 < n ? ", " : " or ",
				       subs[i].name);
	return buf;
}

int cli_subcommand(const char *cmd, const struct cli_sub *subs, int argc,
		   char **argv, const char *want, int name_unknown)
{
	char expected[256];

	if (!want)
		want = subs_expected(subs, expected, sizeof expected);
	if (argc < 2)
		return cli_usage_error(cmd, "%s", want);
	for (; subs->name; subs++)
		if (!strcmp(argv[1], subs->name))
			return subs->run(argc - 1, argv + 1);
	if (!name_unknown)
		return cli_usage_error(cmd, "%s", want);
	return cli_usage_error(cmd, "unknown subcommand '%s'", argv[1]);
}
