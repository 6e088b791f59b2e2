/*
 * conf/config_baselines.c: the baseline lists (eval.baselines,
 * matchmaking.baselines and both together): comma-separated specs, each
 * checked against the game by envs/ and put in its canonical form, with
 * duplicates and more than CFG_BASELINES_MAX refused.
 */
#include "conf/config_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int cfg_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int cfg_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	char msg[256];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	lg_errf(err, errlen, "%s", msg);
	return LG_ECONFIG;
}

/* One baseline spec (len bytes at spec): checked against the game by the
 * baselines' own parser (envs/), which writes its canonical form to out
 * (alphabeta:02 is alphabeta:2, so duplicates show). */
static int baseline_one(const struct cfg *c, const char *spec, size_t len,
			char *out, char *err, size_t errlen)
{
	char b[CFG_BASELINE_MAX];

	if (!len || len >= sizeof b)
		return cfg_fail(err, errlen, "empty or overlong entry");
	memcpy(b, spec, len);
	b[len] = 0;
	if (env_baseline_check(b, c->env.name, out, CFG_BASELINE_MAX, err,
			       errlen))
		return LG_ECONFIG;
	return 0;
}

/* The comma-separated list s, appended to out[*n..). */
static int baseline_list(const struct cfg *c, const char *s,
			 char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
			 size_t errlen)
{
	size_t first = *n;

	for (;;) {
		size_t len = strcspn(s, ",");

		while (len && *s == ' ')
			s++, len--;
		while (len && s[len - 1] == ' ')
			len--;
		if (*n == CFG_BASELINES_MAX)
			return cfg_fail(err, errlen, "more than %d baselines",
					CFG_BASELINES_MAX);
		if (baseline_one(c, s, len, out[*n], err, errlen))
			return LG_ECONFIG;
		for (size_t i = first; i < *n; i++)
			if (!strcmp(out[i], out[*n]))
				return cfg_fail(err, errlen, "'%s' named "
						"twice", out[i]);
		++*n;
		s += strcspn(s, ",");
		if (!*s)
			return 0;
		s++;
	}
}

int cfg_eval_baselines(const struct cfg *c,
		       char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
		       size_t errlen)
{
	const char *s = c->eval.baselines;

	*n = 0;
	if (!strcmp(s, "auto")) {
		snprintf(out[(*n)++], CFG_BASELINE_MAX, "random");
		if (!strcmp(c->env.name, "tictactoe"))
			snprintf(out[(*n)++], CFG_BASELINE_MAX, "minimax");
		else if (!strcmp(c->env.name, "connect4"))
			snprintf(out[(*n)++], CFG_BASELINE_MAX, "alphabeta:%u",
				 (unsigned)c->env.connect4_depth);
		return 0;
	}
	return baseline_list(c, s, out, n, err, errlen);
}

int cfg_train_baselines(const struct cfg *c,
			char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
			size_t errlen)
{
	*n = 0;
	if (!c->matchmaking.baselines[0])
		return 0;
	return baseline_list(c, c->matchmaking.baselines, out, n, err, errlen);
}

int cfg_all_baselines(const struct cfg *c,
		      char (*out)[CFG_BASELINE_MAX], size_t *n, char *err,
		      size_t errlen)
{
	char tr[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	size_t nt;
	int rc;

	if ((rc = cfg_eval_baselines(c, out, n, err, errlen)) ||
	    (rc = cfg_train_baselines(c, tr, &nt, err, errlen)))
		return rc;
	for (size_t i = 0; i < nt; i++) {
		size_t k = 0;
		while (k < *n && strcmp(out[k], tr[i]))
			k++;
		if (k < *n)
			continue;
		if (*n == CFG_BASELINES_MAX)
			return cfg_fail(err, errlen, "eval.baselines and "
					"matchmaking.baselines name more than "
					"%d baselines together",
					CFG_BASELINES_MAX);
		memcpy(out[(*n)++], tr[i], CFG_BASELINE_MAX);
	}
	return 0;
}
