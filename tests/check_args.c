/* tests/check_args.c: the commands' flag parser (cli/args.c) on argv
 * built here: each kind of flag with its bounds, the long, one-letter,
 * `--name=value` and abbreviated forms, a missing value, an unknown or
 * refused flag, a repeated one, `--`, positional arguments in any order
 * and their count, and the exact text of every usage error, down to the
 * line cli_args() prints on stderr. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "util/util.h"

/* argv for one parse: copies of the strings (getopt reorders the
 * pointers, a command may write into its arguments). */
static char words[16][128];
static char *av[17];
static char err[512];
static char **pos;
static int npos;

/* Every destination a table below writes, reset per parse. */
static const char *name_s, *out_s;
static unsigned long long count, seed;
static double rate;
static int quiet, fmt, seed_seen, calls;
static unsigned bits;
static char keys[256];

static int add_key(void *dest, const char *val, char *e, size_t len)
{
	char *k = dest;

	calls++;
	if (!strchr(val, '=')) {
		snprintf(e, len, "--key: expected K=V, got '%s'", val);
		return -1;
	}
	strncat(k, val, 255 - strlen(k));
	strncat(k, ";", 255 - strlen(k));
	return 0;
}

static const struct cli_arg flags[] = {
	CLI_STRING("name", 0, &name_s),
	CLI_STRING("output", 'o', &out_s),
	CLI_U64("count", 'n', &count, 1, 10),
	{ .name = "seed", .kind = CLI_ARG_U64, .dest = &seed,
	  .max = UINT64_MAX, .seen = &seed_seen },
	CLI_DOUBLE("rate", 0, &rate, 0, 1),
	CLI_BOOL("quiet", 'q', &quiet),
	CLI_SET("json", 0, &fmt, 2),
	CLI_BITS("follow", 0, &bits, 4),
	CLI_BITS("sync", 0, &bits, 1),
	CLI_CALL("key", 0, keys, add_key),
	{ .name = "top", .kind = CLI_ARG_U64, .dest = &count, .max = 5,
	  .refused = 1 },
	{ .name = "all", .kind = CLI_ARG_SET, .dest = &quiet, .set = 1,
	  .refused = 1 },
	CLI_END,
};

/* `tool FILE [FILE]`: one or two positional arguments. */
static const struct cli_args one_or_two = { "tool", flags, 1, 2,
					    "expected one or two FILEs", 0 };

/* Parse the NULL-terminated words (after the command's name "tool") by
 * a; the parser's return. */
static int parse_by(const struct cli_args *a, const char *const *w)
{
	int n = 0;

	snprintf(words[n], sizeof words[n], "tool");
	av[n] = words[n];
	for (n = 1; w[n - 1]; n++) {
		ck_assert_int_lt(n, 16);
		snprintf(words[n], sizeof words[n], "%s", w[n - 1]);
		av[n] = words[n];
	}
	av[n] = NULL;
	name_s = out_s = NULL;
	count = 3;
	seed = 0;
	rate = 0.5;
	quiet = fmt = seed_seen = calls = 0;
	bits = 0;
	keys[0] = err[0] = 0;
	pos = NULL;
	npos = -1;
	return cli_args_parse(a, n, av, &pos, &npos, err, sizeof err);
}

#define PARSE(...) parse_by(&one_or_two, (const char *const[]){ __VA_ARGS__, \
								NULL })

/* The parse fails with exactly msg. */
#define REFUSED(msg, ...) do { \
		ck_assert_int_eq(PARSE(__VA_ARGS__), LG_EINVAL); \
		ck_assert_str_eq(err, msg); \
	} while (0)

START_TEST(each_kind_lands_in_its_destination)
{
	ck_assert_int_eq(PARSE("--name", "alpha", "--count", "7", "--seed",
			       "18446744073709551615", "--rate", "0.25",
			       "--quiet", "--json", "--follow", "--sync",
			       "--key", "a=b", "f1"), 0);
	ck_assert_str_eq(name_s, "alpha");
	ck_assert_uint_eq(count, 7);
	ck_assert_uint_eq(seed, UINT64_MAX);
	ck_assert_int_eq(seed_seen, 1);
	ck_assert(rate == 0.25);
	ck_assert_int_eq(quiet, 1);
	ck_assert_int_eq(fmt, 2);
	ck_assert_uint_eq(bits, 5);
	ck_assert_str_eq(keys, "a=b;");
	ck_assert_int_eq(npos, 1);
	ck_assert_str_eq(pos[0], "f1");
	/* nothing given: the defaults stand, seen stays 0 */
	ck_assert_int_eq(PARSE("f1"), 0);
	ck_assert_ptr_null(name_s);
	ck_assert_uint_eq(count, 3);
	ck_assert_int_eq(seed_seen, 0);
	ck_assert(rate == 0.5);
	ck_assert_int_eq(quiet + fmt + (int)bits, 0);
}
END_TEST

START_TEST(long_letter_equals_and_prefix_forms)
{
	ck_assert_int_eq(PARSE("-o", "x.png", "-n", "4", "-q", "f"), 0);
	ck_assert_str_eq(out_s, "x.png");
	ck_assert_uint_eq(count, 4);
	ck_assert_int_eq(quiet, 1);
	ck_assert_int_eq(PARSE("-oy.svg", "-n5", "f"), 0);
	ck_assert_str_eq(out_s, "y.svg");
	ck_assert_uint_eq(count, 5);
	ck_assert_int_eq(PARSE("--output=z.pdf", "--count=6", "--name=",
			       "f"), 0);
	ck_assert_str_eq(out_s, "z.pdf");
	ck_assert_uint_eq(count, 6);
	ck_assert_str_eq(name_s, "");
	/* a unique prefix of a long name is the flag */
	ck_assert_int_eq(PARSE("--cou", "2", "--outp", "w", "f"), 0);
	ck_assert_uint_eq(count, 2);
	ck_assert_str_eq(out_s, "w");
}
END_TEST

START_TEST(bounds_refused_with_the_flag_and_range)
{
	REFUSED("--count: '0' is not a whole number in [1, 10]",
		"--count", "0", "f");
	REFUSED("--count: '11' is not a whole number in [1, 10]",
		"-n", "11", "f");
	REFUSED("--count: '3x' is not a whole number in [1, 10]",
		"--count=3x", "f");
	REFUSED("--count: '-1' is not a whole number in [1, 10]",
		"--count", "-1", "f");
	REFUSED("--seed: '18446744073709551616' is not a whole number in "
		"[0, 18446744073709551615]", "--seed", "18446744073709551616",
		"f");
	REFUSED("--rate: '1.5' is not a number in [0, 1]", "--rate", "1.5",
		"f");
	REFUSED("--rate: 'nan' is not a number in [0, 1]", "--rate", "nan",
		"f");
	REFUSED("--rate: '' is not a number in [0, 1]", "--rate=", "f");
	/* the ends are in */
	ck_assert_int_eq(PARSE("--count", "10", "--rate", "1", "f"), 0);
	ck_assert_uint_eq(count, 10);
	ck_assert_int_eq(PARSE("--count", "1", "--rate", "0", "f"), 0);
	ck_assert_uint_eq(count, 1);
	/* a CALL's own message */
	REFUSED("--key: expected K=V, got 'ab'", "--key", "ab", "f");
}
END_TEST

START_TEST(missing_value_unknown_and_refused_flags)
{
	REFUSED("option '--count' needs a value", "f", "--count");
	REFUSED("option '-o' needs a value", "f", "-o");
	REFUSED("unknown option '--bogus'", "--bogus", "f");
	REFUSED("unknown option '--bogus=1'", "--bogus=1", "f");
	REFUSED("unknown option '-x'", "-x", "f");
	REFUSED("unknown option '-x'", "-qx", "f");
	/* --s is --seed or --sync */
	REFUSED("unknown option '--s'", "--s", "1", "f");
	REFUSED("option '--quiet' takes no value", "--quiet=1", "f");
	REFUSED("option '--follow' takes no value", "--follow=", "f");
	/* another command's flag: its value is taken, then refused */
	REFUSED("option '--top' does not apply here", "--top", "3", "f");
	REFUSED("option '--top' does not apply here", "--top", "99", "f");
	REFUSED("option '--all' does not apply here", "f", "--all");
	REFUSED("option '--top' needs a value", "f", "--top");
	/* flags before the bad one are stored, later ones are not */
	ck_assert_int_eq(PARSE("--name", "n", "--bogus", "--count", "9",
			       "f"), LG_EINVAL);
	ck_assert_str_eq(name_s, "n");
	ck_assert_uint_eq(count, 3);
}
END_TEST

START_TEST(repeated_flag_last_wins_call_sees_each)
{
	ck_assert_int_eq(PARSE("--name", "a", "--name", "b", "-n", "2",
			       "--count", "8", "--quiet", "-q", "f"), 0);
	ck_assert_str_eq(name_s, "b");
	ck_assert_uint_eq(count, 8);
	ck_assert_int_eq(quiet, 1);
	ck_assert_int_eq(PARSE("--key", "a=1", "f", "--key", "b=2", "--key",
			       "a=3"), 0);
	ck_assert_int_eq(calls, 3);
	ck_assert_str_eq(keys, "a=1;b=2;a=3;");
	/* a repeated value is checked again */
	REFUSED("--count: '12' is not a whole number in [1, 10]",
		"-n", "2", "-n", "12", "f");
}
END_TEST

START_TEST(double_dash_ends_the_flags)
{
	ck_assert_int_eq(PARSE("--quiet", "--", "--name", "-o"), 0);
	ck_assert_int_eq(quiet, 1);
	ck_assert_ptr_null(name_s);
	ck_assert_int_eq(npos, 2);
	ck_assert_str_eq(pos[0], "--name");
	ck_assert_str_eq(pos[1], "-o");
	ck_assert_int_eq(PARSE("f", "--", "--"), 0);
	ck_assert_int_eq(npos, 2);
	ck_assert_str_eq(pos[1], "--");
	/* "-" alone is an argument */
	ck_assert_int_eq(PARSE("-", "-q"), 0);
	ck_assert_int_eq(npos, 1);
	ck_assert_str_eq(pos[0], "-");
}
END_TEST

START_TEST(positional_arguments_in_order_and_counted)
{
	static const struct cli_args none = { "tool", flags, 0, 0, NULL, 1 };
	static const struct cli_args exactly_two = { "tool", flags, 2, 2,
						     "expected two players A B",
						     0 };
	static const struct cli_args one_named = { "tool", flags, 1, 1,
		"expected the league directory", 1 };

	/* flags between and after the arguments; their order kept */
	ck_assert_int_eq(PARSE("a", "--quiet", "b", "-n", "2"), 0);
	ck_assert_int_eq(npos, 2);
	ck_assert_str_eq(pos[0], "a");
	ck_assert_str_eq(pos[1], "b");
	ck_assert_int_eq(quiet, 1);
	ck_assert_uint_eq(count, 2);
	REFUSED("expected one or two FILEs", "--quiet");
	REFUSED("expected one or two FILEs", "a", "b", "c");
	ck_assert_int_eq(parse_by(&none, (const char *const[]){ "-q", NULL }),
			 0);
	ck_assert_int_eq(npos, 0);
	ck_assert_int_eq(parse_by(&none, (const char *const[]){ "x", "y",
								NULL }),
			 LG_EINVAL);
	ck_assert_str_eq(err, "unexpected argument 'x'");
	ck_assert_int_eq(parse_by(&exactly_two,
				  (const char *const[]){ "a", NULL }),
			 LG_EINVAL);
	ck_assert_str_eq(err, "expected two players A B");
	ck_assert_int_eq(parse_by(&one_named, (const char *const[]){ NULL }),
			 LG_EINVAL);
	ck_assert_str_eq(err, "expected the league directory");
	ck_assert_int_eq(parse_by(&one_named,
				  (const char *const[]){ "d", "e", "f", NULL }),
			 LG_EINVAL);
	ck_assert_str_eq(err, "unexpected argument 'e'");
	/* a flag's error comes before the count's */
	REFUSED("unknown option '--bogus'", "--bogus");
}
END_TEST

START_TEST(bad_tables_refused)
{
	static const struct cli_arg bad[] = {
		CLI_BOOL("what", '?', &quiet),
		CLI_END,
	};
	static const struct cli_args a = { "tool", bad, 0, 0, NULL, 1 };
	struct cli_arg big[CLI_ARGS_MAX + 2];
	struct cli_args b = { "tool", big, 0, 0, NULL, 1 };

	ck_assert_int_eq(parse_by(&a, (const char *const[]){ NULL }),
			 LG_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "flag table"));
	for (int i = 0; i <= CLI_ARGS_MAX; i++)
		big[i] = (struct cli_arg)CLI_BOOL("q", 0, &quiet);
	big[CLI_ARGS_MAX + 1] = (struct cli_arg)CLI_END;
	ck_assert_int_eq(parse_by(&b, (const char *const[]){ NULL }),
			 LG_EINVAL);
	big[CLI_ARGS_MAX] = (struct cli_arg)CLI_END;
	ck_assert_int_eq(parse_by(&b, (const char *const[]){ "-q", NULL }),
			 LG_EINVAL); /* no letter q: unknown */
	ck_assert_str_eq(err, "unknown option '-q'");
	ck_assert_int_eq(parse_by(&b, (const char *const[]){ "--q", NULL }),
			 0);
}
END_TEST

/* What fn(arg) writes on stderr, into buf. */
static int stderr_of(int (*fn)(void *), void *arg, char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char path[512];
	int fd, saved = dup(2), rc;
	ssize_t n;

	snprintf(path, sizeof path, "%s/check_args_XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	dup2(fd, 2);
	rc = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(path);
	return rc;
}

static int call_cli_args(void *arg)
{
	static const struct cli_args a = { "tls init", flags, 1, 1,
					   "expected one DIR", 0 };
	int n = 0;

	for (const char *const *w = arg; *w; w++, n++) {
		snprintf(words[n], sizeof words[n], "%s", *w);
		av[n] = words[n];
	}
	av[n] = NULL;
	return cli_args(&a, n, av, NULL, NULL);
}

static int run_sub(int argc, char **argv)
{
	return 40 + argc + (int)strlen(argv[0]);
}

static int call_subcommand(void *arg)
{
	static const struct cli_sub subs[] = {
		{ "init", run_sub },
		{ "check", run_sub },
		{ NULL, NULL },
	};
	const char *const *w = arg;
	int n = 0;

	for (; w[n]; n++) {
		snprintf(words[n], sizeof words[n], "%s", w[n]);
		av[n] = words[n];
	}
	av[n] = NULL;
	/* no `want`: the usage error names subs' names */
	return cli_subcommand("tls", subs, n, av, NULL,
			      !strcmp(w[0], "named"));
}

START_TEST(printed_usage_errors)
{
	char out[1024];
	const char *const ok[] = { "init", "--count", "4", "d", NULL };
	const char *const bad[] = { "init", "--count", "40", "d", NULL };
	const char *const none[] = { "init", "-q", NULL };

	ck_assert_int_eq(stderr_of(call_cli_args, (void *)(uintptr_t)ok, out,
				   sizeof out), CLI_OK);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(stderr_of(call_cli_args, (void *)(uintptr_t)bad, out,
				   sizeof out), CLI_USAGE);
	ck_assert_str_eq(out, "league tls init: --count: '40' is not a whole "
			 "number in [1, 10] (see 'league tls init --help')\n");
	ck_assert_int_eq(stderr_of(call_cli_args, (void *)(uintptr_t)none,
				   out, sizeof out), CLI_USAGE);
	ck_assert_str_eq(out, "league tls init: expected one DIR (see 'league "
			 "tls init --help')\n");
}
END_TEST

static const char *one_arg;

static int call_cli_args_one(void *arg)
{
	int n = 0;

	for (const char *const *w = arg; *w; w++, n++) {
		snprintf(words[n], sizeof words[n], "%s", *w);
		av[n] = words[n];
	}
	av[n] = NULL;
	return cli_args_one("tls init", flags, "expected one DIR", n, av,
			    &one_arg);
}

/* cli_args_one: the flags read and the one operand handed back, or the
 * usage error of cli_args (operand untouched) for none or two. */
START_TEST(one_operand_handed_back)
{
	char out[1024];
	const char *const ok[] = { "init", "--count", "4", "d", NULL };
	const char *const none[] = { "init", "--count", "4", NULL };
	const char *const two[] = { "init", "d", "e", NULL };
	const char *const bad[] = { "init", "--count", "40", "d", NULL };

	one_arg = NULL;
	ck_assert_int_eq(stderr_of(call_cli_args_one, (void *)(uintptr_t)ok,
				   out, sizeof out), CLI_OK);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(one_arg, "d");
	one_arg = "before";
	ck_assert_int_eq(stderr_of(call_cli_args_one, (void *)(uintptr_t)none,
				   out, sizeof out), CLI_USAGE);
	ck_assert_str_eq(out, "league tls init: expected one DIR (see 'league "
			 "tls init --help')\n");
	ck_assert_int_eq(stderr_of(call_cli_args_one, (void *)(uintptr_t)two,
				   out, sizeof out), CLI_USAGE);
	ck_assert_str_eq(out, "league tls init: expected one DIR (see 'league "
			 "tls init --help')\n");
	ck_assert_int_eq(stderr_of(call_cli_args_one, (void *)(uintptr_t)bad,
				   out, sizeof out), CLI_USAGE);
	ck_assert_str_eq(out, "league tls init: --count: '40' is not a whole "
			 "number in [1, 10] (see 'league tls init --help')\n");
	ck_assert_str_eq(one_arg, "before");
}
END_TEST

static int call_oom(void *arg)
{
	return cli_oom(arg);
}

START_TEST(out_of_memory_names_the_command)
{
	char out[256];

	ck_assert_int_eq(stderr_of(call_oom, "eval br", out, sizeof out),
			 CLI_FAIL);
	ck_assert_str_eq(out, "league eval br: out of memory\n");
	ck_assert_int_eq(stderr_of(call_oom, NULL, out, sizeof out), CLI_FAIL);
	ck_assert_str_eq(out, "league: out of memory\n");
}
END_TEST

START_TEST(subcommands_dispatch_and_refuse)
{
	char out[1024];
	const char *const init[] = { "tls", "init", "x", NULL };
	const char *const check[] = { "tls", "check", NULL };
	const char *const nothing[] = { "tls", NULL };
	const char *const other[] = { "tls", "frob", NULL };
	const char *const named[] = { "named", "frob", NULL };

	/* run_sub sees argv from the subcommand's name on */
	ck_assert_int_eq(stderr_of(call_subcommand, (void *)(uintptr_t)init,
				   out, sizeof out), 40 + 2 + 4);
	ck_assert_int_eq(stderr_of(call_subcommand, (void *)(uintptr_t)check,
				   out, sizeof out), 40 + 1 + 5);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(stderr_of(call_subcommand,
				   (void *)(uintptr_t)nothing, out,
				   sizeof out), CLI_USAGE);
	ck_assert_str_eq(out, "league tls: expected 'init' or 'check' (see "
			 "'league tls --help')\n");
	ck_assert_int_eq(stderr_of(call_subcommand, (void *)(uintptr_t)other,
				   out, sizeof out), CLI_USAGE);
	ck_assert_str_eq(out, "league tls: expected 'init' or 'check' (see "
			 "'league tls --help')\n");
	ck_assert_int_eq(stderr_of(call_subcommand, (void *)(uintptr_t)named,
				   out, sizeof out), CLI_USAGE);
	ck_assert_str_eq(out, "league tls: unknown subcommand 'frob' (see "
			 "'league tls --help')\n");
}
END_TEST

Suite *suite_args(void)
{
	Suite *s = suite_create("args");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, each_kind_lands_in_its_destination);
	tcase_add_test(tc, long_letter_equals_and_prefix_forms);
	tcase_add_test(tc, bounds_refused_with_the_flag_and_range);
	tcase_add_test(tc, missing_value_unknown_and_refused_flags);
	tcase_add_test(tc, repeated_flag_last_wins_call_sees_each);
	tcase_add_test(tc, double_dash_ends_the_flags);
	tcase_add_test(tc, positional_arguments_in_order_and_counted);
	tcase_add_test(tc, bad_tables_refused);
	tcase_add_test(tc, printed_usage_errors);
	tcase_add_test(tc, one_operand_handed_back);
	tcase_add_test(tc, out_of_memory_names_the_command);
	tcase_add_test(tc, subcommands_dispatch_and_refuse);
	suite_add_tcase(s, tc);
	return s;
}
