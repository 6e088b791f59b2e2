/*
 * conf/config_emit.c: the config printed back: the effective config as
 * YAML that loads to an equal cfg (`league config check`), the defaults as
 * YAML (what cfg_defaults parses), and the Markdown reference
 * (`league config doc`, docs/config.md). Everything walks the table.
 */
#include "conf/config_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fmt_bound(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.15g", v);
}

/* A number key's range as "[lo, hi]", with "(" or ")" at an open bound. */
void cfg_fmt_range(char *buf, size_t len, const struct cfg_key *k)
{
	char lo[32], hi[32];

	fmt_bound(lo, sizeof lo, k->lo);
	fmt_bound(hi, sizeof hi, k->hi);
	snprintf(buf, len, "%c%s, %s%c", k->flags & CFG_F_LO_OPEN ? '(' : '[',
		 lo, hi, k->flags & CFG_F_HI_OPEN ? ')' : ']');
}

/* ---- emitting --------------------------------------------------------- */

/* Shortest text that reads back to the same double. */
static void fmt_double(char *buf, size_t len, double v)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* A YAML reader should see a number, never a bare word. */
}

static int emit_value(lg_buf *b, const struct cfg_key *k, const struct cfg *c)
{
	const char *base = (const char *)c + k->off;
	char num[40];
	int rc = 0;

	switch (k->type) {
	case CFG_T_U64:
		return lg_buf_printf(b, "%llu",
				     (unsigned long long)*(const uint64_t *)base);
	case CFG_T_DOUBLE:
		fmt_double(num, sizeof num, *(const double *)base);
		return lg_buf_printf(b, "%s", num);
	case CFG_T_BOOL:
		return lg_buf_printf(b, "%s", *(const int *)base ? "true"
								 : "false");
	case CFG_T_STR:
		return lg_buf_quoted(b, base, 0);
	case CFG_T_ENUM:
		return lg_buf_printf(b, "%s", k->names[*(const int *)base]);
	case CFG_T_U32_LIST: {
		const struct cfg_u32_list *l = (const void *)base;
		rc = lg_buf_printf(b, "[");
		for (uint32_t i = 0; !rc && i < l->n; i++)
			rc = lg_buf_printf(b, "%s%u", i ? ", " : "", l->v[i]);
		return rc ? rc : lg_buf_printf(b, "]");
	}
	case CFG_T_MATRIX: {
		const struct cfg_matrix *m = (const void *)base;
		rc = lg_buf_printf(b, "[");
		for (uint32_t r = 0; !rc && r < m->rows; r++) {
			rc = lg_buf_printf(b, "%s[", r ? ", " : "");
			for (uint32_t j = 0; !rc && j < m->cols; j++) {
				fmt_double(num, sizeof num, m->v[r][j]);
				rc = lg_buf_printf(b, "%s%s", j ? ", " : "",
						   num);
			}
			if (!rc)
				rc = lg_buf_printf(b, "]");
		}
		return rc ? rc : lg_buf_printf(b, "]");
	}
	case CFG_T_LAYERS: {
		static const char *const act[] = { "", "relu", "tanh", "" };
		const struct cfg_layers *ls = (const void *)base;
		rc = lg_buf_printf(b, "[");
		for (uint32_t i = 0; !rc && i < ls->n; i++) {
			const struct cfg_layer *l = &ls->v[i];
			const char *sep = i ? ", " : "";
			switch (l->kind) {
			case CFG_LAYER_CONV2D:
				rc = lg_buf_printf(b, "%s{conv2d: {channels: %u, "
						   "kernel: %u, stride: %u, "
						   "padding: %u}}", sep, l->size,
						   l->kernel, l->stride,
						   l->padding);
				break;
			case CFG_LAYER_RESIDUAL:
				rc = lg_buf_printf(b, "%s{residual: {channels: "
						   "%u, kernel: %u, activation: "
						   "%s}}", sep, l->size,
						   l->kernel, act[l->act & 3]);
				break;
			case CFG_LAYER_FLATTEN:
				rc = lg_buf_printf(b, "%sflatten", sep);
				break;
			case CFG_LAYER_GRU:
				rc = lg_buf_printf(b, "%s{gru: %u}", sep,
						   l->size);
				break;
			default:
				rc = lg_buf_printf(b, "%s{dense: %u}", sep,
						   l->size);
			}
			if (!rc && l->kind != CFG_LAYER_RESIDUAL &&
			    (l->act == NN_LACT_RELU || l->act == NN_LACT_TANH))
				rc = lg_buf_printf(b, ", %s", act[l->act]);
		}
		return rc ? rc : lg_buf_printf(b, "]");
	}
	case CFG_T_PARAMS: {
		const struct env_params *m = (const void *)base;
		rc = lg_buf_printf(b, "{");
		for (uint32_t i = 0; !rc && i < m->n; i++) {
			rc = lg_buf_printf(b, "%s", i ? ", " : "");
			if (!rc)
				rc = lg_buf_quoted(b, m->key[i], 0);
			if (!rc)
				rc = lg_buf_printf(b, ": ");
			if (!rc)
				rc = lg_buf_quoted(b, m->val[i], 0);
		}
		return rc ? rc : lg_buf_printf(b, "}");
	}
	}
	return LG_EINVAL;
}

/* Number of leading dotted components two paths share. */
static int common_depth(const char *a, const char *b)
{
	int depth = 0;

	for (;;) {
		const char *da = strchr(a, '.'), *db = strchr(b, '.');
		if (!da || !db || da - a != db - b || strncmp(a, b, (size_t)(da - a)))
			return depth;
		depth++;
		a = da + 1;
		b = db + 1;
	}
}

/* Keys c's values leave out: with model.layers set, the shorthand it
 * replaces (the parser refuses both together). */
static int shadowed(const struct cfg *c, const struct cfg_key *k)
{
	for (size_t i = 0; c && c->model.layers.n && cfg_model_shorthand[i];
	     i++)
		if (!strcmp(k->path, cfg_model_shorthand[i]))
			return 1;
	return 0;
}

/* Nested YAML of the whole table: with c == NULL and defaults set, the
 * default texts; otherwise the values in c. */
int cfg_emit(const struct cfg *c, lg_buf *b, int defaults, int comments)
{
	const char *prev = "";
	int rc = 0;

	size_t nkeys;
	const struct cfg_key *table = cfg_keys(&nkeys);

	for (size_t i = 0; !rc && i < nkeys; i++) {
		const struct cfg_key *k = &table[i];
		const char *p = k->path;
		int depth = common_depth(prev, p), d = 0;

		if (!defaults && shadowed(c, k))
			continue;
		/* Skip the components already open, then open the rest. */
		for (; d < depth; d++)
			p = strchr(p, '.') + 1;
		for (const char *dot; (dot = strchr(p, '.')); p = dot + 1, d++)
			rc = rc ? rc : lg_buf_printf(b, "%s%*s%.*s:\n",
				d == 0 && i ? "\n" : "", 2 * d, "",
				(int)(dot - p), p);
		if (!rc && comments)
			rc = lg_buf_printf(b, "%*s# %s\n", 2 * d, "", k->doc);
		if (!rc)
			rc = lg_buf_printf(b, "%*s%s: ", 2 * d, "", p);
		if (!rc)
			rc = !defaults ? emit_value(b, k, c)
			     : k->type == CFG_T_STR ? lg_buf_quoted(b, k->def, 0)
			     : lg_buf_printf(b, "%s", k->def);
		if (!rc)
			rc = lg_buf_printf(b, "\n");
		prev = k->path;
	}
	return rc;
}

int cfg_emit_yaml(const struct cfg *c, lg_buf *out)
{
	return cfg_emit(c, out, 0, 1);
}

static const char *type_name(const struct cfg_key *k)
{
	switch (k->type) {
	case CFG_T_U64: return "integer";
	case CFG_T_DOUBLE: return "number";
	case CFG_T_BOOL: return "boolean";
	case CFG_T_STR: return "string";
	case CFG_T_ENUM: return "enum";
	case CFG_T_U32_LIST: return "list of integers";
	case CFG_T_MATRIX: return "matrix";
	case CFG_T_PARAMS: return "mapping";
	case CFG_T_LAYERS: return "list of layers";
	}
	return "?";
}

int cfg_emit_markdown(lg_buf *b)
{
	char section[64] = "";
	int rc = lg_buf_printf(b,
		"# Configuration reference\n\n"
		"Generated by `league config doc` from the key table in "
		"`conf/config_table.c`; do not edit by hand (`make docs`).\n\n"
		"A league is configured by one YAML file. Every key is optional "
		"and has the default below. Unknown keys, duplicate keys, wrong "
		"types and out-of-range values are errors naming "
		"`file:line:column` and the key; `league config check FILE` "
		"prints the effective config with every default filled in.\n\n"
		"Cross-key rules: `roles.main` pfsp + sp + verification = 1; "
		"`roles.self_play` sp + uniform + pfsp + nash = 1; at least one "
		"learning player; main exploiters need a main player; "
		"`snapshot.prune` nash needs `snapshot.keep` > 0 and "
		"`snapshot.keep_newest` <= `snapshot.keep` (these six are the "
		"players module's own check); "
		"`collectors.wait_num` <= `collectors.envs`; "
		"`learner.minibatch` <= `learner.batch`; at least one budget; "
		"the `matrix` game needs `env.matrix`; listening beyond "
		"loopback needs a token.\n");

	size_t nkeys;
	const struct cfg_key *table = cfg_keys(&nkeys);

	for (size_t i = 0; !rc && i < nkeys; i++) {
		const struct cfg_key *k = &table[i];
		const char *dot = strchr(k->path, '.');
		size_t n = (size_t)(dot - k->path);
		char range[96] = "";

		if (strlen(section) != n || strncmp(section, k->path, n)) {
			snprintf(section, sizeof section, "%.*s", (int)n,
				 k->path);
			rc = lg_buf_printf(b, "\n## %s\n\n| key | type | default "
					   "| range | meaning |\n|---|---|---|"
					   "---|---|\n", section);
		}
		if (k->type == CFG_T_ENUM) {
			for (int j = 0; k->names[j]; j++)
				snprintf(range + strlen(range),
					 sizeof range - strlen(range), "%s%s",
					 j ? " \\| " : "", k->names[j]);
		} else if (k->type == CFG_T_STR) {
			snprintf(range, sizeof range, "%.0f to %.0f bytes",
				 k->lo, k->hi);
		} else if (k->type != CFG_T_BOOL) {
			cfg_fmt_range(range, sizeof range, k);
		}
		if (!rc)
			rc = lg_buf_printf(b, "| `%s` | %s | `%s` | %s | %s |\n",
					   k->path, type_name(k), k->def, range,
					   k->doc);
	}
	return rc;
}

