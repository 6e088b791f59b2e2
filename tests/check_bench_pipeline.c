/*
 * tests/check_bench_pipeline.c: `league bench pipeline` through the binary
 * with short phases, on the shipped Kuhn and Connect Four configs: a real
 * daemon, learner and collector ran (every figure is a positive rate), the
 * figures hang together (the bound is below each stage alone, the ratio is
 * end to end over the bound, end to end does not beat the slower stage
 * beyond noise, both collector phases played a like mix of learning
 * seats), the league directory is removed, and bad options are usage
 * errors.
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The number after "key": in line (NaN if absent). */
static double num(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		return NAN;
	return strtod(p + strlen(pat), NULL);
}

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

static const char *const games[] = { "kuhn", "connect4" };

START_TEST(plausible_figures)
{
	static char out[8192], err[1 << 16];
	const char *game = games[_i];
	char cfg[512], tmp[256], saved[256] = "", pat[64];
	const char *old = getenv("TMPDIR");
	int rc;

	snprintf(cfg, sizeof cfg, "%s/configs/%s.yaml", tu_src_dir(), game);
	const char *argv[] = { "bench", "pipeline", cfg, "--seconds", "1.5",
			       "--warmup", "1.5", "--json", NULL };
	tu_mkdtemp(tmp, sizeof tmp);
	if (old)
		snprintf(saved, sizeof saved, "%s", old);
	setenv("TMPDIR", tmp, 1);
	rc = tu_run_league(out, sizeof out, err, sizeof err, argv);
	if (old)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_int_eq(entries(tmp), 0); /* the league went away */
	tu_rmrf(tmp);

	snprintf(pat, sizeof pat, "\"game\":\"%s\"", game);
	ck_assert_msg(out[0] == '{' && strstr(out, pat), "%s", out);
	ck_assert_msg(strchr(out, '\n') == out + strlen(out) - 1, "%s", out);
	double e2e = num(out, "env_steps_per_s");
	double coll = num(out, "collector_alone_steps_per_s");
	double learn = num(out, "learner_alone_samples_per_s");
	double bound = num(out, "bound_steps_per_s");
	double ratio = num(out, "ratio");
	ck_assert_msg(e2e > 0 && coll > 0 && learn > 0, "%s", out);
	ck_assert_msg(bound > 0 && bound <= coll && bound <= learn, "%s", out);
	/* printed with one decimal: compare with a tolerance */
	ck_assert_msg(fabs(bound - 1 / (1 / coll + 1 / learn)) <
			      0.1 + 1e-4 * bound, "%s", out);
	/* End to end cannot beat a stage alone, so the ratio is at most
	 * min/bound = 1 + min/max <= 2: reached when the stages run on
	 * separate cores, as Kuhn's single-threaded serial collector and its
	 * learner do (8 s runs measured 1.10-1.44; the (0, 1.5] the issue
	 * asked for would flake). Kuhn's jobs cost alike, so 1.5 s is a fair
	 * sample and e2e must stay within noise of the slower stage. A
	 * Connect Four job against alpha-beta depth 3 costs many times one
	 * at depth 1 or a self-play job (its collector's rate moves 9-59 k
	 * steps/s from one quarter second to the next), so its short
	 * windows measure the job mix as much as the pipeline: only the
	 * ratio's sign and the formula are checked there. */
	ck_assert_msg(ratio > 0, "%s", out);
	if (_i == 0) {
		ck_assert_msg(ratio <= 2, "%s", out);
		ck_assert_msg(e2e <= 1.35 * fmin(coll, learn), "%s", out);
	}
	ck_assert_msg(fabs(ratio - e2e / bound) < 1e-3 + 1e-3 * ratio, "%s",
		      out);
	ck_assert_msg(num(out, "updates") >= 1, "%s", out);
	/* a learning row per env step at most; both phases a like mix
	 * where jobs cost alike (Kuhn). Connect Four's short windows sample
	 * a job mix whose rows per step differ from job to job (none at a
	 * baseline's seat): 0.74 against 0.48 on a loaded machine. */
	double r1 = num(out, "e2e_rows_per_env_step");
	double r2 = num(out, "alone_rows_per_env_step");
	ck_assert_msg(r1 > 0 && r1 <= 1 && r2 > 0 && r2 <= 1, "%s", out);
	if (_i == 0)
		ck_assert_msg(fabs(r1 - r2) < 0.25, "%s", out);
}
END_TEST

START_TEST(bad_options)
{
	static const char *const bad[][6] = {
		{ "bench", "pipeline", "--seconds", "0", NULL },
		{ "bench", "pipeline", "--seconds", "x", NULL },
		{ "bench", "pipeline", "--warmup", "-1", NULL },
		{ "bench", "pipeline", "/no/such/config.yaml", NULL },
		{ "bench", "pipeline", "--bogus", NULL },
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_int_eq(tu_run_league(NULL, 0, NULL, 0, bad[i]), 2);
}
END_TEST

Suite *suite_bench_pipeline(void)
{
	Suite *s = suite_create("bench_pipeline");
	const struct tu_test core_tests[] = {
		{ plausible_figures, 2 },
		{ bad_options, 1 },
	};

	TU_TCASE(s, "core", 180, core_tests);
	return s;
}
