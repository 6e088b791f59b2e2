/*
 * conf/config.c: the table-driven YAML parser (libyaml events -> the
 * keys of struct cfg) and loading (defaults, string, sealed, file). See
 * config.h for the shape; the table is in config_table.c, the cross-key
 * checks in config_check.c, the baseline lists in config_baselines.c, the
 * emitter and documentation writer in config_emit.c, the model.layers
 * list (its own small language) in config_layers.c.
 *
 * The parser walks libyaml events recursively. A key is either a leaf (a row
 * of the table) or a section (a proper dotted prefix of some row); anything
 * else is an unknown key. Every leaf and section may appear once. Anchors,
 * aliases and more than one document are refused: a config is data, not a
 * program.
 */
#include "conf/config_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- parser ----------------------------------------------------------- */

/* cfg_perr's message from a va_list. */
static int vperr(struct parser *p, const yaml_mark_t *m, const char *fmt,
		 va_list ap) __attribute__((format(printf, 3, 0)));

static int vperr(struct parser *p, const yaml_mark_t *m, const char *fmt,
		 va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (m)
		lg_errf(p->err, p->errlen, "%s:%zu:%zu: %s", p->name,
			m->line + 1, m->column + 1, msg);
	else
		lg_errf(p->err, p->errlen, "%s: %s", p->name, msg);
	return LG_ECONFIG;
}

int cfg_perr(struct parser *p, const yaml_mark_t *m, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vperr(p, m, fmt, ap);
	va_end(ap);
	return rc;
}

int cfg_perr_del(struct parser *p, yaml_event_t *ev, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vperr(p, &ev->start_mark, fmt, ap);
	va_end(ap);
	yaml_event_delete(ev);
	return rc;
}

int cfg_next_event(struct parser *p, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&p->yp, ev)) {
		const char *ctx = p->yp.context;
		return cfg_perr(p, &p->yp.problem_mark,
				"YAML syntax error: %s%s%s",
				p->yp.problem ? p->yp.problem : "unknown",
				ctx ? " " : "", ctx ? ctx : "");
	}
	if (ev->type == YAML_ALIAS_EVENT) {
		yaml_mark_t m = ev->start_mark;
		yaml_event_delete(ev);
		return cfg_perr(p, &m,
				"YAML aliases are not supported in configs");
	}
	return 0;
}

int cfg_next_item(struct parser *p, yaml_event_t *ev, yaml_event_type_t end)
{
	int rc = cfg_next_event(p, ev);

	if (rc)
		return rc;
	if (ev->type != end)
		return 0;
	yaml_event_delete(ev);
	return 1;
}

const char *cfg_ev_text(const yaml_event_t *ev)
{
	return (const char *)ev->data.scalar.value;
}

/* A number within k's range, open bounds excluded. */
static int parse_double_text(const struct cfg_key *k, const char *s,
			     double *out)
{
	double v;

	if (lg_parse_double(s, k->lo, k->hi, &v) ||
	    ((k->flags & CFG_F_LO_OPEN) && v == k->lo) ||
	    ((k->flags & CFG_F_HI_OPEN) && v == k->hi))
		return LG_ERANGE;
	*out = v;
	return 0;
}

/* Levenshtein distance, capped: for "did you mean" hints. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[128], cur[128];

	if (la >= 127 || lb >= 127)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = LG_MIN(sub, LG_MIN(del, ins));
		}
		memcpy(prev, cur, (lb + 1) * sizeof *prev);
	}
	return prev[lb];
}

static const char *suggest(const char *path)
{
	const char *best = NULL;
	size_t bestd = 3;

	size_t nkeys;
	const struct cfg_key *table = cfg_keys(&nkeys);

	for (size_t i = 0; i < nkeys; i++) {
		size_t d = edit_distance(path, table[i].path);
		if (d < bestd) {
			bestd = d;
			best = table[i].path;
		}
	}
	return best;
}

int cfg_parse_u64(const char *s, double lo, double hi, uint64_t *out)
{
	uint64_t v;
	double d;

	if (!lg_parse_u64(s, 0, UINT64_MAX, &v)) {
		if ((double)v < lo || (double)v > hi)
			return LG_ERANGE;
		*out = v;
		return 0;
	}
	/* Scientific notation for exact whole numbers: 2e9, 1.5e6. */
	if (lg_parse_double(s, 0, 1.8e19, &d))
		return LG_EINVAL;
	if (d != floor(d) || d < lo || d > hi)
		return LG_ERANGE;
	*out = (uint64_t)d;
	return 0;
}

static int set_scalar(struct parser *p, const struct cfg_key *k,
		      const yaml_event_t *ev)
{
	char *base = (char *)p->c + k->off;
	const char *s = cfg_ev_text(ev);
	int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	char lo[32], hi[32], range[80];

	snprintf(lo, sizeof lo, "%.15g", k->lo);
	snprintf(hi, sizeof hi, "%.15g", k->hi);
	cfg_fmt_range(range, sizeof range, k);
	switch (k->type) {
	case CFG_T_U64:
		if (!plain || cfg_parse_u64(s, k->lo, k->hi, (uint64_t *)base))
			return cfg_perr(p, &ev->start_mark,
					"%s: expected a whole number in %s, "
					"got '%s'", k->path, range, s);
		return 0;
	case CFG_T_DOUBLE:
		if (!plain || parse_double_text(k, s, (double *)base))
			return cfg_perr(p, &ev->start_mark,
					"%s: expected a number in %s, got '%s'",
					k->path, range, s);
		return 0;
	case CFG_T_BOOL:
		if (plain && !strcmp(s, "true"))
			*(int *)base = 1;
		else if (plain && !strcmp(s, "false"))
			*(int *)base = 0;
		else
			return cfg_perr(p, &ev->start_mark,
					"%s: expected true or false, got '%s'",
					k->path, s);
		return 0;
	case CFG_T_STR: {
		size_t n = ev->data.scalar.length;
		if (plain && (!strcmp(s, "~") || !strcmp(s, "null")))
			n = 0, s = "";
		if (n < (size_t)k->lo || n > (size_t)k->hi || strlen(s) != n)
			return cfg_perr(
				p, &ev->start_mark,
				"%s: expected a string of %s to %s bytes "
				"without NUL, got %zu bytes",
				k->path, lo, hi, n);
		memcpy(base, s, n);
		base[n] = 0;
		return 0;
	}
	case CFG_T_ENUM: {
		char choices[256] = "";
		for (int i = 0; k->names[i]; i++) {
			if (plain && !strcmp(s, k->names[i])) {
				*(int *)base = i;
				return 0;
			}
			snprintf(choices + strlen(choices),
				 sizeof choices - strlen(choices), "%s%s",
				 i ? ", " : "", k->names[i]);
		}
		return cfg_perr(p, &ev->start_mark,
				"%s: expected one of %s, got '%s'", k->path,
				choices, s);
	}
	default:
		return cfg_perr(p, &ev->start_mark, "%s: expected a list",
				k->path);
	}
}

/* One list of numbers; calls put(i, value) for each. The SEQUENCE_START
 * event has been consumed. */
static int parse_number_row(struct parser *p, const struct cfg_key *k,
			    double *vals, uint32_t max, uint32_t *n,
			    int whole)
{
	yaml_event_t ev;
	char range[80];
	int rc;

	cfg_fmt_range(range, sizeof range, k);
	*n = 0;
	for (;;) {
		if ((rc = cfg_next_item(p, &ev, YAML_SEQUENCE_END_EVENT)))
			return rc < 0 ? rc : 0;
		if (ev.type != YAML_SCALAR_EVENT)
			return cfg_perr_del(p, &ev, "%s: expected a number",
					    k->path);
		if (*n >= max)
			return cfg_perr_del(p, &ev, "%s: more than %u entries",
					    k->path, max);
		double d;
		uint64_t u;
		int bad = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		if (!bad && whole) {
			bad = cfg_parse_u64(cfg_ev_text(&ev), k->lo, k->hi, &u);
			d = (double)u;
		} else if (!bad) {
			bad = parse_double_text(k, cfg_ev_text(&ev), &d);
		}
		if (bad)
			return cfg_perr_del(p, &ev,
					    "%s: expected a %s in %s, got '%s'",
					    k->path,
					    whole ? "whole number" : "number",
					    range, cfg_ev_text(&ev));
		vals[(*n)++] = d;
		yaml_event_delete(&ev);
	}
}

static int parse_list(struct parser *p, const struct cfg_key *k,
		      const yaml_event_t *start)
{
	char *base = (char *)p->c + k->off;
	double vals[CFG_MATRIX_MAX];
	uint32_t n;
	int rc;

	if (start->type != YAML_SEQUENCE_START_EVENT)
		return cfg_perr(p, &start->start_mark,
				"%s: expected a list like [64, 64]", k->path);
	if (k->type == CFG_T_U32_LIST) {
		struct cfg_u32_list *l = (struct cfg_u32_list *)base;
		if ((rc = parse_number_row(p, k, vals, CFG_LIST_MAX, &n, 1)))
			return rc;
		l->n = n;
		for (uint32_t i = 0; i < n; i++)
			l->v[i] = (uint32_t)vals[i];
		return 0;
	}
	/* Matrix: a list of equally long rows. */
	struct cfg_matrix *m = (struct cfg_matrix *)base;
	yaml_event_t ev;
	memset(m, 0, sizeof *m);
	for (;;) {
		if ((rc = cfg_next_item(p, &ev, YAML_SEQUENCE_END_EVENT)))
			return rc < 0 ? rc : 0;
		yaml_mark_t at = ev.start_mark;
		if (ev.type != YAML_SEQUENCE_START_EVENT)
			return cfg_perr_del(p, &ev,
					    "%s: expected a list of rows like "
					    "[[3, -2], [-2, 1]]",
					    k->path);
		yaml_event_delete(&ev);
		if (m->rows >= CFG_MATRIX_MAX)
			return cfg_perr(p, &at, "%s: more than %d rows",
					k->path, CFG_MATRIX_MAX);
		if ((rc = parse_number_row(p, k, vals, CFG_MATRIX_MAX, &n, 0)))
			return rc;
		if (n == 0 || (m->rows && n != m->cols))
			return cfg_perr(p, &at, "%s: row %u has %u entries, "
					"expected %u", k->path, m->rows + 1, n,
					m->rows ? m->cols : 1);
		m->cols = n;
		memcpy(m->v[m->rows++], vals, n * sizeof *vals);
	}
}

/* env.params: a flat mapping of scalars to scalars, kept as strings. */
static int parse_params(struct parser *p, const struct cfg_key *k,
			const yaml_event_t *start)
{
	struct env_params *m = (struct env_params *)((char *)p->c + k->off);
	yaml_event_t kev, vev;
	int rc;

	if (start->type != YAML_MAPPING_START_EVENT)
		return cfg_perr(p, &start->start_mark, "%s: expected a mapping "
				"like {size: 4}", k->path);
	memset(m, 0, sizeof *m);
	for (;;) {
		if ((rc = cfg_next_item(p, &kev, YAML_MAPPING_END_EVENT)))
			return rc < 0 ? rc : 0;
		const char *key = kev.type == YAML_SCALAR_EVENT
					  ? cfg_ev_text(&kev)
					  : NULL;
		size_t kn = key ? kev.data.scalar.length : 0;
		if (!key || !kn || kn >= ENV_PARAM_KEY_MAX ||
		    strlen(key) != kn)
			return cfg_perr_del(p, &kev,
					    "%s: keys are strings of 1 to %d "
					    "bytes",
					    k->path, ENV_PARAM_KEY_MAX - 1);
		for (uint32_t i = 0; i < m->n; i++)
			if (!strcmp(m->key[i], key))
				return cfg_perr_del(p, &kev,
						    "%s: duplicate key '%s'",
						    k->path, key);
		if (m->n == ENV_PARAMS_MAX)
			return cfg_perr_del(p, &kev,
					    "%s: more than %d entries",
					    k->path, ENV_PARAMS_MAX);
		memcpy(m->key[m->n], key, kn + 1);
		yaml_event_delete(&kev);
		if ((rc = cfg_next_event(p, &vev)))
			return rc;
		size_t vn = vev.type == YAML_SCALAR_EVENT
				    ? vev.data.scalar.length : 0;
		if (vev.type != YAML_SCALAR_EVENT || vn >= ENV_PARAM_VAL_MAX ||
		    strlen(cfg_ev_text(&vev)) != vn)
			return cfg_perr_del(p, &vev,
					    "%s.%s: expected a single value of "
					    "at most %d bytes",
					    k->path, m->key[m->n],
					    ENV_PARAM_VAL_MAX - 1);
		memcpy(m->val[m->n++], cfg_ev_text(&vev), vn + 1);
		yaml_event_delete(&vev);
	}
}


static int parse_mapping(struct parser *p, const char *prefix);

static int parse_key(struct parser *p, const char *prefix,
		     const yaml_event_t *kev)
{
	char path[256];
	const struct cfg_key *k;
	yaml_event_t ev;
	int rc;

	if (kev->type != YAML_SCALAR_EVENT ||
	    kev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return cfg_perr(p, &kev->start_mark,
				"%s%skeys must be plain words", prefix,
				*prefix ? ": " : "");
	if ((size_t)snprintf(path, sizeof path, "%s%s%s", prefix,
			     *prefix ? "." : "",
			     cfg_ev_text(kev)) >= sizeof path)
		return cfg_perr(p, &kev->start_mark, "key path too long");
	k = cfg_key_find(path);
	if (!k && !cfg_is_section(path)) {
		const char *hint = suggest(path);
		if (hint)
			return cfg_perr(p, &kev->start_mark,
					"unknown key '%s' (did you mean '%s'?)",
					path, hint);
		return cfg_perr(p, &kev->start_mark, "unknown key '%s'", path);
	}
	if (k) {
		struct mark *m = &p->marks[k - cfg_keys(NULL)];
		if (m->line)
			return cfg_perr(p, &kev->start_mark,
					"duplicate key '%s' (first at line %u)",
					path, m->line);
		m->line = (unsigned)kev->start_mark.line + 1;
		m->col = (unsigned)kev->start_mark.column + 1;
	} else {
		for (size_t i = 0; i < p->nsections; i++)
			if (!strcmp(p->sections[i], path))
				return cfg_perr(p, &kev->start_mark,
						"duplicate section '%s'", path);
		if (p->nsections == MAX_SECTIONS)
			return cfg_perr(p, &kev->start_mark,
					"too many sections");
		snprintf(p->sections[p->nsections++], sizeof p->sections[0],
			 "%s", path);
	}
	if ((rc = cfg_next_event(p, &ev)))
		return rc;
	if (!k && !strcmp(path, "model") &&
	    ev.type == YAML_SEQUENCE_START_EVENT) {
		/* `model:` as the list of layers: model.layers */
		k = cfg_key_find("model.layers");
		p->marks[k - cfg_keys(NULL)] = (struct mark){
			(unsigned)kev->start_mark.line + 1,
			(unsigned)kev->start_mark.column + 1 };
		rc = cfg_parse_layers(p, &ev);
	} else if (!k) {
		if (ev.type != YAML_MAPPING_START_EVENT)
			rc = cfg_perr(p, &ev.start_mark,
				      "%s: expected a mapping of keys", path);
		else
			rc = parse_mapping(p, path);
	} else if (k->type == CFG_T_U32_LIST || k->type == CFG_T_MATRIX) {
		rc = parse_list(p, k, &ev);
	} else if (k->type == CFG_T_PARAMS) {
		rc = parse_params(p, k, &ev);
	} else if (k->type == CFG_T_LAYERS) {
		rc = cfg_parse_layers(p, &ev);
	} else if (ev.type != YAML_SCALAR_EVENT) {
		rc = cfg_perr(p, &ev.start_mark, "%s: expected a single value",
			      path);
	} else if (ev.data.scalar.length == 0 &&
		   ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		rc = cfg_perr(p, &ev.start_mark, "%s: missing value", path);
	} else {
		rc = set_scalar(p, k, &ev);
	}
	yaml_event_delete(&ev);
	return rc;
}

/* The MAPPING_START has been consumed; read key/value pairs to its end. */
static int parse_mapping(struct parser *p, const char *prefix)
{
	yaml_event_t ev;
	int rc;

	for (;;) {
		if ((rc = cfg_next_item(p, &ev, YAML_MAPPING_END_EVENT)))
			return rc < 0 ? rc : 0;
		rc = parse_key(p, prefix, &ev);
		yaml_event_delete(&ev);
		if (rc)
			return rc;
	}
}

static int parse_stream(struct parser *p)
{
	yaml_event_t ev;
	int rc, docs = 0;

	for (;;) {
		if ((rc = cfg_next_event(p, &ev)))
			return rc;
		yaml_event_type_t t = ev.type;
		yaml_mark_t m = ev.start_mark;
		yaml_event_delete(&ev);
		switch (t) {
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			break;
		case YAML_STREAM_END_EVENT:
			return 0;
		case YAML_DOCUMENT_START_EVENT:
			if (docs++)
				return cfg_perr(p, &m, "only one YAML document "
						"is allowed");
			if ((rc = cfg_next_event(p, &ev)))
				return rc;
			t = ev.type;
			m = ev.start_mark;
			int empty = t == YAML_SCALAR_EVENT &&
				    ev.data.scalar.length == 0;
			yaml_event_delete(&ev);
			if (empty)
				break;
			if (t != YAML_MAPPING_START_EVENT)
				return cfg_perr(p, &m, "the config must be a "
						"mapping of sections");
			if ((rc = parse_mapping(p, "")))
				return rc;
			break;
		default:
			return cfg_perr(p, &m, "unexpected YAML event");
		}
	}
}

/* ---- loading ---------------------------------------------------------- */

/* How run_parser reads a text: name is the config file's path (relative
 * paths in it are the file's directory's); the text came from elsewhere
 * (cfg_load_sealed). */
enum { LOAD_FILE = 1, LOAD_SEALED = 2 };

static int run_parser(struct cfg *c, const char *text, size_t len,
		      const char *name, int check, int how,
		      const char *const bind[2], char *err, size_t errlen)
{
	struct parser *p = calloc(1, sizeof *p);
	int rc;

	if (!p)
		return LG_ENOMEM;
	p->name = name;
	p->is_file = !!(how & LOAD_FILE);
	p->sealed = !!(how & LOAD_SEALED);
	if (bind) {
		p->bind_plugin = bind[0];
		p->bind_remote = bind[1];
	}
	p->c = c;
	p->err = err;
	p->errlen = errlen;
	if (!yaml_parser_initialize(&p->yp)) {
		free(p);
		return LG_ENOMEM;
	}
	yaml_parser_set_input_string(&p->yp, (const unsigned char *)text, len);
	rc = parse_stream(p);
	if (!rc && check)
		rc = cfg_validate(p);
	yaml_parser_delete(&p->yp);
	free(p);
	return rc;
}


int cfg_defaults(struct cfg *c, char *err, size_t errlen)
{
	lg_buf b = { 0 };
	int rc;

	memset(c, 0, sizeof *c);
	if ((rc = cfg_emit(NULL, &b, 1, 0)))
		return rc;
	rc = run_parser(c, (const char *)b.data, b.len, "<defaults>", 0, 0,
			NULL, err, errlen);
	lg_buf_free(&b);
	return rc;
}

static int load_text(struct cfg *c, const char *text, size_t len,
		     const char *name, int how, const char *const bind[2],
		     char *err, size_t errlen)
{
	int rc = cfg_defaults(c, err, errlen);

	if (rc)
		return rc;
	return run_parser(c, text, len, name, 1, how, bind, err, errlen);
}

int cfg_load_string(struct cfg *c, const char *text, size_t len,
		    const char *name, char *err, size_t errlen)
{
	return load_text(c, text, len, name, 0, NULL, err, errlen);
}

int cfg_load_sealed(struct cfg *c, const char *text, size_t len,
		    const char *name, char *err, size_t errlen)
{
	return load_text(c, text, len, name, LOAD_SEALED, NULL, err, errlen);
}

int cfg_load_sealed_game(struct cfg *c, const char *text, size_t len,
			 const char *name, const char *plugin,
			 const char *remote, char *err, size_t errlen)
{
	const char *const bind[2] = { plugin, remote };

	return load_text(c, text, len, name, LOAD_SEALED, bind, err, errlen);
}

#define CFG_FILE_MAX (1 << 20)

int cfg_load_file(struct cfg *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t n;
	int rc;

	if (!f) {
		lg_errf(err, errlen, "%s: cannot open: %s", path,
			strerror(errno));
		return LG_EIO;
	}
	text = malloc(CFG_FILE_MAX + 1);
	if (!text) {
		fclose(f);
		return LG_ENOMEM;
	}
	n = fread(text, 1, CFG_FILE_MAX + 1, f);
	if (ferror(f)) {
		lg_errf(err, errlen, "%s: read error: %s", path,
			strerror(errno));
		rc = LG_EIO;
	} else if (n > CFG_FILE_MAX) {
		lg_errf(err, errlen, "%s: larger than %d bytes", path,
			CFG_FILE_MAX);
		rc = LG_ECONFIG;
	} else {
		rc = load_text(c, text, n, path, LOAD_FILE, NULL, err, errlen);
	}
	free(text);
	fclose(f);
	return rc;
}

