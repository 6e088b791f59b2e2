/*
 * tests/check_bench_daemon.c: `league bench daemon` through the binary with
 * tiny numbers: both store modes report every figure, the figures are sane
 * (jobs were played, p99 >= p50, the ratio is jobs_per_s / pingpong_per_s),
 * several client threads work, the league directory is removed, and bad
 * options are usage errors.
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The number after "key": in the JSON line starting at line (NaN if
 * absent from that line). */
static double num(const char *line, const char *key)
{
	char pat[64];
	const char *end = strchr(line, '\n'), *p;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	p = strstr(line, pat);
	if (!p || (end && p > end))
		return NAN;
	return strtod(p + strlen(pat), NULL);
}

static void check_line(const char *line, const char *store,
		       double collectors, double players)
{
	char pat[64];
	double jps = num(line, "jobs_per_s"), pps = num(line, "pingpong_per_s");
	double p50 = num(line, "p50_us"), p99 = num(line, "p99_us");
	double ratio = num(line, "ratio");

	snprintf(pat, sizeof pat, "\"store\":\"%s\"", store);
	ck_assert_msg(strstr(line, pat) && strstr(line, pat) < strchr(line, '\n'),
		      "%s missing in %s", pat, line);
	ck_assert_double_eq(num(line, "collectors"), collectors);
	ck_assert(num(line, "players") >= players);
	ck_assert(num(line, "players") < players + 20);
	ck_assert_double_eq(num(line, "learners"), 3);
	ck_assert_double_eq(num(line, "episodes"), 8);
	ck_assert_msg(jps > 0 && num(line, "jobs") > 0, "%s", line);
	ck_assert_msg(pps > 0, "%s", line);
	ck_assert_msg(p50 > 0 && p99 >= p50, "%s", line);
	ck_assert_msg(num(line, "pingpong_p99_us") >= num(line, "pingpong_p50_us"),
		      "%s", line);
	/* printed with 4 decimals from the unrounded rates */
	ck_assert_msg(fabs(ratio - jps / pps) < 1e-3 + 1e-3 * ratio, "%s",
		      line);
	ck_assert_double_eq(num(line, "stale_acks"), 0);
}

/* Entries in dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Run the benchmark with $TMPDIR a fresh directory: it must exit 0 and
 * leave nothing there (its league, and with --tls its CA, removed). */
static void run_leaving_nothing(const char **argv, char *out, size_t outlen,
				char *err, size_t errlen)
{
	const char *old = getenv("TMPDIR");
	char tmp[256], saved[256] = "";
	int rc;

	tu_mkdtemp(tmp, sizeof tmp);
	if (old)
		snprintf(saved, sizeof saved, "%s", old);
	setenv("TMPDIR", tmp, 1);
	rc = tu_run_league(out, outlen, err, errlen, argv);
	if (old)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_int_eq(entries(tmp), 0);
	tu_rmrf(tmp);
}

START_TEST(json_both_modes)
{
	static char out[8192], err[8192];
	const char *argv[] = { "bench", "daemon", "--seconds", "0.5",
			       "--collectors", "4", "--players", "20",
			       "--episodes", "8", "--json", NULL };
	const char *l1 = out, *l2;

	run_leaving_nothing(argv, out, sizeof out, err, sizeof err);
	l2 = strchr(l1, '\n');
	ck_assert_ptr_nonnull(l2);
	l2++;
	ck_assert_ptr_nonnull(strchr(l2, '\n'));
	ck_assert(*l1 == '{' && *l2 == '{');
	check_line(l1, "fsync", 4, 20);
	check_line(l2, "nosync", 4, 20);
	/* the same reference for both */
	ck_assert_double_eq(num(l1, "pingpong_per_s"),
			    num(l2, "pingpong_per_s"));
}
END_TEST

START_TEST(threads_and_text)
{
	static char out[8192], err[8192];
	const char *argv[] = { "bench", "daemon", "--seconds", "0.3",
			       "--collectors", "6", "--players", "12",
			       "--threads", "2", "--store", "nosync", NULL };
	int rc = tu_run_league(out, sizeof out, err, sizeof err, argv);

	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_ptr_nonnull(strstr(out, "pingpong "));
	ck_assert_ptr_nonnull(strstr(out, "nosync "));
	ck_assert_ptr_null(strstr(out, "fsync "));
	ck_assert_ptr_nonnull(strstr(out, "ratio"));
	ck_assert_ptr_nonnull(strstr(out, "2 client thread(s)"));
}
END_TEST

/* --tls: the same phase over mutual TLS beside the plain one; its jobs
 * are counted like the plain phase's, and the test CA is removed with the
 * league. */
START_TEST(tls_phase_beside_plain)
{
	static char out[8192], err[8192];
	const char *argv[] = { "bench", "daemon", "--seconds", "0.3",
			       "--collectors", "4", "--players", "12",
			       "--episodes", "8", "--store", "nosync", "--tls",
			       "--json", NULL };
	run_leaving_nothing(argv, out, sizeof out, err, sizeof err);
	check_line(out, "nosync", 4, 12);
	ck_assert_ptr_nonnull(strstr(out, "\"tls\":\"mutual\""));
	double tj = num(out, "tls_jobs_per_s"), pj = num(out, "jobs_per_s");
	ck_assert_msg(tj > 0, "%s", out);
	ck_assert_double_eq_tol(num(out, "tls_ratio"), tj / pj, 1e-3);
}
END_TEST

START_TEST(bad_options)
{
	static const char *const bad[][6] = {
		{ "bench", "daemon", "--store", "maybe", NULL },
		{ "bench", "daemon", "--collectors", "0", NULL },
		{ "bench", "daemon", "--players", "x", NULL },
		{ "bench", "daemon", "--seconds", "0", NULL },
		{ "bench", "daemon", "--episodes", "4097", NULL },
		{ "bench", "daemon", "extra", NULL },
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0, bad[i]), 2);
}
END_TEST

Suite *suite_bench_daemon(void)
{
	Suite *s = suite_create("bench_daemon");
	const struct tu_test core_tests[] = {
		{ json_both_modes, 1 },
		{ threads_and_text, 1 },
		{ tls_phase_beside_plain, 1 },
		{ bad_options, 1 },
	};

	TU_TCASE(s, "core", 60, core_tests);
	return s;
}
