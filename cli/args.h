/*
 * cli/args.h: the one way `league` commands read their arguments. A
 * command describes its flags in a table (long name, one-letter form,
 * kind, destination, bounds) and its positional arguments by count;
 * cli_args() walks argv with getopt_long (GNU rules: flags and
 * positional arguments in any order, `--name=value`, unique prefixes of
 * a long name, `--` ends the flags) and stores each value where its row
 * says, or prints the usage error and returns CLI_USAGE.
 *
 * Standalone on purpose (util/ only): the test runner and the fuzz
 * harness link cli/args.o without the rest of the binary.
 */
#ifndef LG_CLI_ARGS_H
#define LG_CLI_ARGS_H

#include <getopt.h>
#include <stddef.h>

/* The binary's exit statuses: success, runtime failure, usage or config
 * error. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* At most this many rows in a flag table. */
#define CLI_ARGS_MAX 32

enum cli_arg_kind {
	CLI_ARG_STRING,  /* const char **: the value as given (into argv) */
	CLI_ARG_U64,     /* unsigned long long *: whole number in [min, max] */
	CLI_ARG_DOUBLE,  /* double *: a number in [lo, hi] */
	CLI_ARG_SET,     /* int *: set to `set` (no value; a bool: 1) */
	CLI_ARG_BITS,    /* unsigned *: `set` or'ed in (no value) */
	CLI_ARG_CALL,    /* call(dest, value, err, errlen): its own syntax */
};

/*
 * One flag. Given twice, the last value stands (a CALL sees each, so
 * `--param` can add up). seen, when set, becomes 1 once the flag is
 * given and its value taken. A CALL returns 0, or nonzero with the
 * whole message (naming the flag) in err.
 */
struct cli_arg {
	const char *name;      /* the long form, without "--"; NULL ends */
	int letter;            /* the one-letter form (-o), 0: none */
	enum cli_arg_kind kind;
	void *dest;
	unsigned long long min, max; /* CLI_ARG_U64 */
	double lo, hi;               /* CLI_ARG_DOUBLE */
	int set;                     /* CLI_ARG_SET, CLI_ARG_BITS */
	int (*call)(void *dest, const char *val, char *err, size_t errlen);
	int *seen;
	/* 1: a flag of a sibling command (a shared table), refused here as
	 * "option '--x' does not apply here" once getopt has its value */
	int refused;
};

/* Rows whose destination's type the compiler checks. */
#define CLI_ARG_DEST(T, d) ((void *)(1 ? (d) : (T *)0))
#define CLI_STRING(n, l, d) \
	{ .name = (n), .letter = (l), .kind = CLI_ARG_STRING, \
	  .dest = CLI_ARG_DEST(const char *, d) }
#define CLI_U64(n, l, d, lo_, hi_) \
	{ .name = (n), .letter = (l), .kind = CLI_ARG_U64, \
	  .dest = CLI_ARG_DEST(unsigned long long, d), .min = (lo_), \
	  .max = (hi_) }
#define CLI_DOUBLE(n, l, d, lo_, hi_) \
	{ .name = (n), .letter = (l), .kind = CLI_ARG_DOUBLE, \
	  .dest = CLI_ARG_DEST(double, d), .lo = (lo_), .hi = (hi_) }
#define CLI_SET(n, l, d, v) \
	{ .name = (n), .letter = (l), .kind = CLI_ARG_SET, \
	  .dest = CLI_ARG_DEST(int, d), .set = (v) }
#define CLI_BOOL(n, l, d) CLI_SET(n, l, d, 1)
#define CLI_BITS(n, l, d, v) \
	{ .name = (n), .letter = (l), .kind = CLI_ARG_BITS, \
	  .dest = CLI_ARG_DEST(unsigned, d), .set = (int)(v) }
#define CLI_CALL(n, l, d, fn) \
	{ .name = (n), .letter = (l), .kind = CLI_ARG_CALL, .dest = (d), \
	  .call = (fn) }
#define CLI_END { .name = NULL }

/*
 * A command's arguments: its flags and how many positional arguments it
 * takes. Fewer than min_pos, or more than max_pos with name_extra 0, is
 * the usage error `want` ("expected one CONFIG file"); more than max_pos
 * with name_extra 1 is "unexpected argument 'X'" naming the first extra.
 */
struct cli_args {
	const char *cmd;              /* "tls init": the name in messages */
	const struct cli_arg *flags;  /* ends with a row whose name is NULL */
	int min_pos, max_pos;
	const char *want;
	int name_extra;
};

/*
 * Parse argv (argv[0] the command's name; reordered as getopt_long does)
 * by a: every flag's value into its destination, in argv's order, then
 * the positional arguments' count. 0 with *pos the first of *npos
 * positional arguments (into argv); else LG_EINVAL with the one-line
 * message in err (without the command or the hint), and the flags before
 * the bad one already stored. The messages: "unknown option '--x'",
 * "option '--x' needs a value", "option '--x' takes no value", "option
 * '--x' does not apply here", "--x: '7' is not a whole number in [1,
 * 5]", "--x: 'y' is not a number in [0, 1]", a CALL's own, and the
 * positional ones above. LG_EINVAL also for a table over CLI_ARGS_MAX
 * rows or with a letter '?' or ':'.
 */
int cli_args_parse(const struct cli_args *a, int argc, char **argv,
		   char ***pos, int *npos, char *err, size_t errlen);

/* cli_args_parse, its error printed as cli_usage_error does: CLI_OK or
 * CLI_USAGE. pos and npos may be NULL. */
int cli_args(const struct cli_args *a, int argc, char **argv, char ***pos,
	     int *npos);

/* cli_args for a command of flags and exactly one positional argument
 * (want: the usage error when there is not one, as "expected one CONFIG
 * file"): CLI_OK with *arg that argument, or CLI_USAGE (said on stderr). */
int cli_args_one(const char *cmd, const struct cli_arg *flags,
		 const char *want, int argc, char **argv, const char **arg);

/* A subcommand: `league CMD NAME ...` runs run(argc - 1, argv + 1). */
struct cli_sub {
	const char *name;
	int (*run)(int argc, char **argv);
};

/*
 * `league CMD NAME ...`: the subcommand of subs (ending in a NULL name)
 * argv[1] names, or the usage error `want` when there is none (NULL:
 * "expected 'list' or 'check'" from subs' names); when argv[1] names none
 * of them,
 * "unknown subcommand 'X'" with name_unknown, else `want` again.
 */
int cli_subcommand(const char *cmd, const struct cli_sub *subs, int argc,
		   char **argv, const char *want, int name_unknown);

/* Print "league CMD: <msg> (see 'league CMD --help')" to stderr (cmd
 * NULL: "league: ..."); return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "league CMD: out of memory" to stderr (cmd NULL: "league: out of
 * memory"); return CLI_FAIL. */
int cli_oom(const char *cmd);

/* getopt_long with our error reporting, for the commands that loop by
 * themselves. Returns the option like getopt_long, -1 at the end, or -2
 * after printing a usage error (unknown option, missing argument); the
 * caller returns CLI_USAGE then. Set optind = 0 before the first call for
 * a new argv (cli_main does that). */
int cli_getopt(int argc, char **argv, const char *cmd, const char *shortopts,
	       const struct option *longopts);

/* Strict numeric option parsing with a usage error naming the option. */
int cli_opt_u64(const char *cmd, const char *opt, const char *val,
		unsigned long long lo, unsigned long long hi,
		unsigned long long *out);
int cli_opt_double(const char *cmd, const char *opt, const char *val,
		   double lo, double hi, double *out);

/* True when argv holds -h or --help before any "--". */
int cli_wants_help(int argc, char **argv);

#endif
