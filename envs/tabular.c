/*
 * envs/tabular.c: tabular policy files (env.h's format): a table of
 * probabilities per infostate key, read from a file or made from a tree's
 * table (mixtures, the common-payoff optimum).
 */
#include "envs/tree_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tabular policy files ----------------------------------------------- */

#define TAB_LINE_MAX 4096
#define TAB_ENTRIES_MAX 1000000


/* Parse one line of a tabular policy file (path:lineno for errors)
 * into its infostate *key (pointing into line) and num_actions
 * probabilities pr summing to *sum. 1 for a blank or comment line, 0
 * for an entry, LG_EINVAL (err says why) for a malformed one. */
static int tab_parse_line(char *line, int num_actions, const char *path,
			  long lineno, char **key, double *pr, double *sum,
			  char *err, size_t errlen)
{
	char *p = line, *save = NULL, *tok;
	int k = 0;

	*sum = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
		return 1;
	*key = strtok_r(p, " \t\r\n", &save);
	if (strlen(*key) >= ENV_KEY_MAX) {
		lg_errf(err, errlen, "%s:%ld: infostate longer than "
			"%d bytes", path, lineno, ENV_KEY_MAX - 1);
		return LG_EINVAL;
	}
	while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
		if (k == num_actions) {
			k++;
			break;
		}
		if (lg_parse_double(tok, 0, 1, &pr[k])) {
			lg_errf(err, errlen, "%s:%ld: '%s' is not a "
				"probability in [0, 1]", path, lineno,
				tok);
			return LG_EINVAL;
		}
		*sum += pr[k++];
	}
	if (k != num_actions) {
		lg_errf(err, errlen, "%s:%ld: expected an infostate "
			"and %d probabilities", path, lineno,
			num_actions);
		return LG_EINVAL;
	}
	if (fabs(*sum - 1) > 1e-6) {
		lg_errf(err, errlen, "%s:%ld: probabilities sum to "
			"%.9g, not 1", path, lineno, *sum);
		return LG_EINVAL;
	}
	return 0;
}

/* Add the entry key -> pr / sum to t (path:lineno for errors).
 * LG_EINVAL for a duplicate infostate, LG_EFULL past TAB_ENTRIES_MAX
 * (err says which), LG_ENOMEM. */
static int tab_add(env_tabular *t, const char *key, const double *pr,
		   double sum, const char *path, long lineno, char *err,
		   size_t errlen)
{
	size_t A = (size_t)t->A;
	int rc;

	if (env_strmap_get(&t->map, key) >= 0) {
		lg_errf(err, errlen, "%s:%ld: duplicate infostate "
			"'%s'", path, lineno, key);
		return LG_EINVAL;
	}
	if (t->n == TAB_ENTRIES_MAX) {
		lg_errf(err, errlen, "%s:%ld: more than %d entries",
			path, lineno, TAB_ENTRIES_MAX);
		return LG_EFULL;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		double *np = realloc(t->probs, cap * A * sizeof *np);
		if (!np)
			return LG_ENOMEM;
		t->probs = np;
		t->cap = cap;
	}
	for (size_t a = 0; a < A; a++)
		t->probs[t->n * A + a] = pr[a] / sum;
	rc = env_strmap_put(&t->map, key, (int)t->n);
	if (rc)
		return rc;
	t->n++;
	return 0;
}

int env_tabular_load(env_tabular **out, const char *path, int num_actions,
		     char *err, size_t errlen)
{
	char line[TAB_LINE_MAX + 2];
	env_tabular *t = NULL;
	FILE *f = NULL;
	long lineno = 0;
	int rc = 0;

	*out = NULL;
	if (num_actions < 1 || num_actions > ENV_MAX_ACTIONS)
		return LG_EINVAL;
	f = fopen(path, "r");
	if (!f) {
		lg_errf(err, errlen, "%s: %s", path, strerror(errno));
		return LG_EIO;
	}
	t = calloc(1, sizeof *t);
	if (!t) {
		rc = LG_ENOMEM;
		goto out;
	}
	t->A = num_actions;
	while (fgets(line, sizeof line, f)) {
		double pr[ENV_MAX_ACTIONS], sum;
		size_t len = strlen(line);
		char *key = NULL;

		lineno++;
		if (len > TAB_LINE_MAX ||
		    (len && line[len - 1] != '\n' && !feof(f))) {
			lg_errf(err, errlen, "%s:%ld: line longer than %d "
				"bytes", path, lineno, TAB_LINE_MAX);
			rc = LG_EINVAL;
			goto out;
		}
		rc = tab_parse_line(line, num_actions, path, lineno, &key, pr,
				    &sum, err, errlen);
		if (rc == 1) {
			rc = 0;
			continue;
		}
		if (rc || (rc = tab_add(t, key, pr, sum, path, lineno, err,
					errlen)))
			goto out;
	}
	if (ferror(f)) {
		lg_errf(err, errlen, "%s: read error", path);
		rc = LG_EIO;
		goto out;
	}
	*out = t;
	t = NULL;
out:
	if (rc == LG_ENOMEM)
		lg_errf(err, errlen, "%s: out of memory", path);
	if (f)
		fclose(f);
	env_tabular_free(t);
	return rc;
}

void env_tabular_free(env_tabular *t)
{
	if (!t)
		return;
	env_strmap_free(&t->map);
	free(t->probs);
	free(t);
}

static int tabular_fn(void *ctx, int player, const char *key,
		      const float *obs, const uint8_t *mask, int A, double *probs,
		      char *err, size_t errlen)
{
	env_tabular *t = ctx;
	int i = env_strmap_get(&t->map, key);
	const double *row;

	/* A seat with fewer actions than the game's most reads the first A
	 * of its row; the rest must be 0. */
	if (A > t->A) {
		lg_errf(err, errlen, "tabular policy has %d actions, the game "
			"%d", t->A, A);
		return LG_EINVAL;
	}
	if (i < 0) {
		lg_errf(err, errlen, "tabular policy has no entry for "
			"infostate '%s'", key);
		return LG_ENOTFOUND;
	}
	row = t->probs + (size_t)i * (size_t)t->A;
	for (int a = A; a < t->A; a++)
		if (row[a] != 0) {
			lg_errf(err, errlen, "tabular policy at '%s': "
				"probability %g for action %d, beyond the "
				"seat's %d actions", key, row[a], a, A);
			return LG_EINVAL;
		}
	memcpy(probs, row, (size_t)A * sizeof *probs);
	return 0;
}

struct env_policy env_tabular_policy(env_tabular *t)
{
	struct env_policy p = { tabular_fn, t, NULL };
	return p;
}

int tree_tabular_of(const env_tree *t, double *tab, env_tabular **out)
{
	env_tabular *tb = calloc(1, sizeof *tb);
	int rc;

	*out = NULL;
	if (!tb) {
		free(tab);
		return LG_ENOMEM;
	}
	tb->A = t->A;
	tb->n = tb->cap = t->ni;
	tb->probs = tab;
	for (size_t i = 0; i < t->ni; i++)
		if ((rc = env_strmap_put(&tb->map, t->info[i].key, (int)i))) {
			env_tabular_free(tb);
			return rc;
		}
	*out = tb;
	return 0;
}
