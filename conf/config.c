/*
 * conf/config.c: the table-driven YAML parser, the cross-key checks and
 * the baseline lists. See config.h for the shape; the table is in
 * config_table.c, the emitter and documentation writer in config_emit.c,
 * the model.layers list (its own small language) in config_layers.c.
 *
 * The parser walks libyaml events recursively. A key is either a leaf (a row
 * of the table) or a section (a proper dotted prefix of some row); anything
 * else is an unknown key. Every leaf and section may appear once. Anchors,
 * aliases and more than one document are refused: a config is data, not a
 * program.
 */
#include "conf/config_internal.h"

#include "conf/options.h"
#include "net/net.h"
#include "players/players.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- parser ----------------------------------------------------------- */

int cfg_perr(struct parser *p, const yaml_mark_t *m, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (m)
		lg_errf(p->err, p->errlen, "%s:%zu:%zu: %s", p->name,
			m->line + 1, m->column + 1, msg);
	else
		lg_errf(p->err, p->errlen, "%s: %s", p->name, msg);
	return LG_ECONFIG;
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
		if ((rc = cfg_next_event(p, &ev)))
			return rc;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		if (ev.type != YAML_SCALAR_EVENT) {
			rc = cfg_perr(p, &ev.start_mark,
				      "%s: expected a number", k->path);
			yaml_event_delete(&ev);
			return rc;
		}
		if (*n >= max) {
			rc = cfg_perr(p, &ev.start_mark,
				      "%s: more than %u entries", k->path, max);
			yaml_event_delete(&ev);
			return rc;
		}
		double d;
		uint64_t u;
		int bad = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		if (!bad && whole) {
			bad = cfg_parse_u64(cfg_ev_text(&ev), k->lo, k->hi, &u);
			d = (double)u;
		} else if (!bad) {
			bad = parse_double_text(k, cfg_ev_text(&ev), &d);
		}
		if (bad) {
			rc = cfg_perr(p, &ev.start_mark,
				      "%s: expected a %s in %s, got '%s'",
				      k->path,
				      whole ? "whole number" : "number", range,
				      cfg_ev_text(&ev));
			yaml_event_delete(&ev);
			return rc;
		}
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
		if ((rc = cfg_next_event(p, &ev)))
			return rc;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		yaml_mark_t at = ev.start_mark;
		if (ev.type != YAML_SEQUENCE_START_EVENT) {
			yaml_event_delete(&ev);
			return cfg_perr(p, &at,
					"%s: expected a list of rows like "
					"[[3, -2], [-2, 1]]",
					k->path);
		}
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
	return 0;
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
		if ((rc = cfg_next_event(p, &kev)))
			return rc;
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			return 0;
		}
		yaml_mark_t at = kev.start_mark;
		const char *key = kev.type == YAML_SCALAR_EVENT
					  ? cfg_ev_text(&kev)
					  : NULL;
		size_t kn = key ? kev.data.scalar.length : 0;
		if (!key || !kn || kn >= ENV_PARAM_KEY_MAX ||
		    strlen(key) != kn) {
			yaml_event_delete(&kev);
			return cfg_perr(p, &at,
					"%s: keys are strings of 1 to %d "
					"bytes",
					k->path, ENV_PARAM_KEY_MAX - 1);
		}
		for (uint32_t i = 0; i < m->n; i++)
			if (!strcmp(m->key[i], key)) {
				rc = cfg_perr(p, &at, "%s: duplicate key '%s'",
					      k->path, key);
				yaml_event_delete(&kev);
				return rc;
			}
		if (m->n == ENV_PARAMS_MAX) {
			yaml_event_delete(&kev);
			return cfg_perr(p, &at, "%s: more than %d entries",
					k->path, ENV_PARAMS_MAX);
		}
		memcpy(m->key[m->n], key, kn + 1);
		yaml_event_delete(&kev);
		if ((rc = cfg_next_event(p, &vev)))
			return rc;
		at = vev.start_mark;
		size_t vn = vev.type == YAML_SCALAR_EVENT
				    ? vev.data.scalar.length : 0;
		if (vev.type != YAML_SCALAR_EVENT || vn >= ENV_PARAM_VAL_MAX ||
		    strlen(cfg_ev_text(&vev)) != vn) {
			yaml_event_delete(&vev);
			return cfg_perr(p, &at,
					"%s.%s: expected a single value of "
					"at most %d bytes",
					k->path, m->key[m->n],
					ENV_PARAM_VAL_MAX - 1);
		}
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
		if ((rc = cfg_next_event(p, &ev)))
			return rc;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
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

/* ---- cross-key checks ------------------------------------------------- */

/* path as seen from the config file's directory, into out: a relative
 * path of a config file that names a directory is joined to it; anything
 * else (absolute, a config given as a string) is copied. */
static void from_config_dir(const struct parser *p, const char *path,
			    char *out, size_t len)
{
	const char *slash;

	if (path[0] != '/' && p->is_file && (slash = strrchr(p->name, '/')))
		snprintf(out, len, "%.*s/%s", (int)(slash - p->name), p->name,
			 path);
	else
		snprintf(out, len, "%s", path);
}

/* env.plugin relative to the config file's directory, made absolute so
 * that workers started elsewhere (and the YAML the daemon hands them)
 * name the same file. */
static int resolve_plugin(struct parser *p)
{
	char *pl = p->c->env.plugin, joined[2 * CFG_STR_MAX], real[PATH_MAX];

	if (!pl[0])
		return 0;
	from_config_dir(p, pl, joined, sizeof joined);
	if (!realpath(joined, real))
		return cfg_verr(
			p, "env.plugin", "cannot find '%s': %s%s", joined,
			strerror(errno),
			pl[0] == '/'
				? ""
				: " (a relative path is taken from the config "
				  "file's directory)");
	if (strlen(real) >= CFG_STR_MAX || strlen(real) >= ENV_PLUGIN_MAX)
		return cfg_verr(p, "env.plugin", "'%s' is longer than %d bytes",
				real, ENV_PLUGIN_MAX - 1);
	memcpy(pl, real, strlen(real) + 1);
	return 0;
}

/* A TLS file path: a relative one is taken from the config file's
 * directory, like env.plugin (it stays relative when the config's own
 * path is; the files need not exist yet in a config a worker gets). */
static int tls_path(struct parser *p, const char *key, char *path)
{
	char joined[2 * CFG_STR_MAX];

	if (!path[0])
		return 0;
	from_config_dir(p, path, joined, sizeof joined);
	if (strlen(joined) >= CFG_STR_MAX)
		return cfg_verr(p, key, "'%s' is longer than %d bytes", joined,
				CFG_STR_MAX - 1);
	memcpy(path, joined, strlen(joined) + 1);
	return 0;
}

/* server.tls: all three files or none; in a config file, each loaded and
 * checked now (readable PEM, within its dates, the key matching, the
 * certificate chaining to the CA), so a bad one is an error at its key,
 * not a refused handshake later. A config a worker got from the daemon
 * names the daemon's files, which the worker does not read. Without TLS,
 * no listening beyond loopback unless server.insecure. */
static int check_tls(struct parser *p)
{
	static const char *const keys[] = { NULL, "server.tls.cert",
					    "server.tls.key", "server.tls.ca" };
	struct cfg *c = p->c;
	char *f[] = { NULL, c->server.tls.cert, c->server.tls.key,
		      c->server.tls.ca };
	char msg[512];
	int n = 0, which, rc;

	for (int i = 1; i <= 3; i++) {
		n += f[i][0] != 0;
		if ((rc = tls_path(p, keys[i], f[i])))
			return rc;
	}
	if (n && n < 3) {
		int have = 1;
		for (which = 1; f[which][0]; which++)
			;
		while (!f[have][0])
			have++;
		return cfg_verr(p, keys[have], "TLS needs server.tls.cert, key "
				"and ca: %s is missing", keys[which]);
	}
	if (!n && c->server.tls.verify_peers)
		return cfg_verr(p, "server.tls.verify_peers", "mutual TLS needs "
				"server.tls.cert, key and ca");
	if (!n && !lg_is_loopback(c->server.listen) && !c->server.insecure)
		return cfg_verr(p, "server.listen", "listening beyond loopback "
				"without TLS: set server.tls (cert, key, ca) or, "
				"to send the token in clear, server.insecure: "
				"true");
	if (!n || !p->is_file)
		return 0;
	struct net_tls_opts o = { f[1], f[2], f[3], c->server.tls.verify_peers };
	if (net_tls_check(&o, 1, &which, msg, sizeof msg))
		return cfg_verr(p, keys[which ? which : 1], "%s", msg);
	return 0;
}

/* The network the config describes fits the game: a convolution torso
 * needs planes, and the whole shape must pass the learner's check. */
static int check_model(struct parser *p, const struct env_spec *spec)
{
	struct cfg *c = p->c;
	struct nn_shape s;
	char msg[256];

	if (c->model.layers.n)
		return cfg_check_layers(p, spec);

	/* model.conv's list cap (CFG_LIST_MAX) already keeps it within the
	 * learner's: the list parser refuses a longer one. */
	_Static_assert(CFG_LIST_MAX <= NN_MAX_CONV, "model.conv's cap");
	if (c->model.conv.n && spec->obs_rank != 3)
		return cfg_verr(p, "model.conv",
				"game '%s' gives flat "
				"observations (%zu floats), convolutions need "
				"planes (channels x rows x columns)",
				spec->name, spec->obs_len);
	league_nn_shape(c, spec, &s);
	if (nn_shape_check(&s, msg, sizeof msg))
		return cfg_verr(p,
				c->model.conv.n ? "model.conv" : "model.hidden",
				"%s", msg);
	return 0;
}

/* learner.state_weight is 0 (off) or a cap of at least 1. */
static int check_state_weight(struct parser *p)
{
	double w = p->c->learner.state_weight;

	if (w > 0 && w < 1)
		return cfg_verr(p, "learner.state_weight", "%g: 0 (off) or a "
				"cap of at least 1", w);
	return 0;
}

/* learner.mmd_eta needs a feed-forward net (its targets group rows by
 * observation) and no search (whose visit shares are the other policy
 * target). */
static int check_mmd(struct parser *p)
{
	const struct cfg *c = p->c;

	if (!(c->learner.mmd_eta > 0))
		return 0;
	if (league_state_len(c))
		return cfg_verr(p, "learner.mmd_eta", "the model has a "
				"recurrent core (gru); MMD targets group "
				"rows by observation and need a feed-forward "
				"net");
	if (c->learner.search.sims)
		return cfg_verr(p, "learner.mmd_eta", "learner.search gives "
				"the policy its target already");
	return 0;
}

/* learner.search against what it needs: the game sequential without
 * chance and played in league's processes (spec NULL: a game server
 * league run starts, whose spec is not known yet), envs in the
 * collector's threads, a net without a recurrent core. */
static int check_search(struct parser *p, const struct env_spec *spec)
{
	const struct cfg *c = p->c;
	const char *k = "learner.search.sims";

	if (!c->learner.search.sims)
		return 0;
	if (c->learner.search.fast_sims > c->learner.search.sims)
		return cfg_verr(p, "learner.search.fast_sims", "%llu is more "
				"than learner.search.sims (%llu): the fast "
				"search is the smaller one",
				(unsigned long long)c->learner.search.fast_sims,
				(unsigned long long)c->learner.search.sims);
	if (c->learner.search.fast_sims && !(c->learner.search.full_frac > 0))
		return cfg_verr(p, "learner.search.full_frac", "must be more "
				"than 0 with fast_sims: only full searches "
				"give policy targets");
	if (c->env.remote[0])
		return cfg_verr(p, k, "searches the game where the collector "
				"plays it, and env.remote plays it in a game "
				"server");
	if (c->collectors.processes)
		return cfg_verr(p, k, "searches the env in the collector's "
				"thread, and collectors.processes hosts envs "
				"in child processes");
	if (league_state_len(c))
		return cfg_verr(p, k, "the model has a recurrent core (gru), "
				"and the search visits states without a "
				"history for it");
	if (spec && (spec->flags & (ENV_F_CHANCE | ENV_F_SIMULTANEOUS)))
		return cfg_verr(p, k, "game '%s' has %s; tree search needs "
				"a sequential game without chance", spec->name,
				spec->flags & ENV_F_SIMULTANEOUS
					? "simultaneous moves"
					: "chance");
	return 0;
}

/* The game the config names opens (built in, or the plugin with its
 * params); the plugin's game name becomes env.name when that is unset. */
static int check_game(struct parser *p)
{
	struct cfg *c = p->c;
	const struct cfg_key *kn = cfg_key_find("env.name");
	int name_set = p->marks[kn - cfg_keys(NULL)].line != 0;
	struct env_opts eo;
	struct env_spec spec;
	char msg[400];
	const char *key = c->env.plugin[0]   ? "env.plugin"
			  : c->env.remote[0] ? "env.remote"
					     : "env.name";
	static const char *const keys[] = { "env.plugin", "env.params",
					    "env.name", "env.remote" };
	int rc;

	if ((rc = resolve_plugin(p)))
		return rc;
	if (c->env.remote[0] && c->env.plugin[0])
		return cfg_verr(p, "env.remote", "a game is either a plugin or "
				"remote, not both (env.plugin is set)");
	if (c->env.serve[0] && !c->env.remote[0])
		return cfg_verr(p, "env.serve", "needs env.remote, the address "
				"the command serves at");
	if (c->env.serve[0] && !name_set)
		return cfg_verr(p, "env.serve", "needs env.name, the game it "
				"serves (the server is not up yet to ask)");
	if (c->env.serve[0]) /* league run starts it and checks it then */
		return check_search(p, NULL);
	league_env_opts(c, &eo);
	msg[0] = 0;
	if (env_check((c->env.plugin[0] || c->env.remote[0]) && !name_set
			      ? NULL
			      : c->env.name,
		      &eo, &spec, msg, sizeof msg)) {
		const char *m = msg;
		for (size_t i = 0; i < LG_ARRAY_LEN(keys); i++) {
			size_t n = strlen(keys[i]);
			if (!strncmp(msg, keys[i], n) && msg[n] == ':') {
				key = keys[i];
				m = msg + n + 1 + (msg[n + 1] == ' ');
			}
		}
		return cfg_verr(p, key, "%s", m);
	}
	if (c->env.plugin[0] || c->env.remote[0])
		snprintf(c->env.name, sizeof c->env.name, "%s", spec.name);
	if ((rc = check_model(p, &spec)))
		return rc;
	return check_search(p, &spec);
}

int cfg_verr(struct parser *p, const char *path, const char *fmt, ...)
{
	const struct cfg_key *k = cfg_key_find(path);
	struct mark m = k ? p->marks[k - cfg_keys(NULL)] : (struct mark){0, 0};
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (m.line)
		lg_errf(p->err, p->errlen, "%s:%u:%u: %s: %s", p->name, m.line,
			m.col, path, msg);
	else
		lg_errf(p->err, p->errlen, "%s: %s: %s", p->name, path, msg);
	return LG_ECONFIG;
}

/* A module check's message as a key error. brain_opts_check begins each
 * message with the config section it concerns ("roles.main: ...",
 * "players: ...", "payoff decay ..."); the first key of that section the
 * file sets gives the key and the place (none set: the section alone). A
 * message that begins with a key ("snapshot.prune: ...") is that key's.
 * tests/check_config.c has a bad input for every rule a config within the
 * table's bounds can break, so a change of wording there shows; the other
 * rules are the bounds, which bounds_pass_the_brain_check ties. */
static int module_err(struct parser *p, const char *msg)
{
	size_t n = strcspn(msg, ":/ ");
	const char *detail = msg;
	const struct mark *bm = NULL;
	const char *path = NULL;
	char section[64];

	if (msg[n] == ':' && msg[n + 1] == ' ')
		detail = msg + n + 2;
	/* a message that names a key ("snapshot.keep_newest: ...") is
	 * placed at that key */
	snprintf(section, sizeof section, "%.*s", (int)n, msg);
	if (detail != msg && cfg_key_find(section))
		return cfg_verr(p, section, "%s", detail);
	size_t nkeys;
	const struct cfg_key *table = cfg_keys(&nkeys);

	for (size_t i = 0; i < nkeys; i++) {
		const struct mark *m = &p->marks[i];
		if (!m->line || strncmp(table[i].path, msg, n) ||
		    table[i].path[n] != '.')
			continue;
		if (!bm || m->line < bm->line ||
		    (m->line == bm->line && m->col < bm->col)) {
			bm = m;
			path = table[i].path;
		}
	}
	if (!path) {
		snprintf(section, sizeof section, "%.*s", (int)n, msg);
		path = section;
	}
	return cfg_verr(p, path, "%s", detail);
}

/* league.deterministic: what makes a run depend on more than its config
 * (several jobs at once, env interleaving, the clock, jobs whose seeds
 * carry the daemon's start count). */
static int check_deterministic(struct parser *p)
{
	const struct cfg *c = p->c;

	if (!c->league.deterministic)
		return 0;
	if (c->collectors.count > 1)
		return cfg_verr(p, "collectors.count", "league.deterministic "
				"runs one collector (this is %llu)",
				(unsigned long long)c->collectors.count);
	if (c->collectors.envs != 1)
		return cfg_verr(p, "collectors.envs", "league.deterministic "
				"plays one env (this is %llu)",
				(unsigned long long)c->collectors.envs);
	if (!c->budget.jobs)
		return cfg_verr(p, "budget.jobs", "league.deterministic needs "
				"a budget in jobs");
	if (c->budget.seconds > 0)
		return cfg_verr(p, "budget.seconds", "league.deterministic "
				"runs on no clock: set it to 0");
	if (c->matchmaking.baseline_share > 0)
		return cfg_verr(p, "matchmaking.baseline_share",
				"league.deterministic plays league jobs "
				"only: set it to 0");
	if (c->league.mode == CFG_MODE_PSRO)
		return cfg_verr(p, "league.mode", "league.deterministic runs "
				"the league mode only (psro's cross-play jobs "
				"are seeded by the daemon's start)");
	if (c->eval.share > 0)
		return cfg_verr(p, "eval.share", "league.deterministic plays "
				"league jobs only (evaluation jobs are seeded "
				"by the daemon's start): set it to 0");
	return 0;
}

/* The cross-key rules. Those of the players module are its own
 * brain_opts_check, run on the options this config becomes; the rest
 * belong to no module's check. */
static int validate(struct parser *p)
{
	struct cfg *c = p->c;
	char msg[256], bl[CFG_BASELINES_MAX][CFG_BASELINE_MAX];
	struct brain_opts bo;
	size_t n;

	int rc;

	if (p->sealed) {
		/* from a file someone handed over: nothing that loads code,
		 * runs a command, dials out or reads other files */
		static const char *const keys[] = {
			"env.plugin", "env.remote", "env.serve",
			"server.tls.cert", "server.tls.key", "server.tls.ca",
			"server.token_file",
		};
		const char *v[] = { c->env.plugin, c->env.remote, c->env.serve,
				    c->server.tls.cert, c->server.tls.key,
				    c->server.tls.ca, c->server.token_file };
		for (size_t i = 0; i < LG_ARRAY_LEN(keys); i++)
			if (v[i][0])
				return cfg_verr(p, keys[i], "not taken from "
						"this file (it names code, a "
						"command, an address or a "
						"file to use)");
	}
	if (!c->env.plugin[0] && !c->env.remote[0] &&
	    !strcmp(c->env.name, "matrix") &&
	    !c->env.matrix.rows)
		return cfg_verr(p, "env.matrix",
				"the matrix game needs its payoff "
				"matrix");
	if ((rc = check_game(p)))
		return rc;
	league_brain_opts(c, &bo);
	if (brain_opts_check(&bo, msg, sizeof msg))
		return module_err(p, msg);
	if (c->collectors.wait_num > c->collectors.envs)
		return cfg_verr(p, "collectors.wait_num", "%llu is more than "
				"collectors.envs (%llu)",
				(unsigned long long)c->collectors.wait_num,
				(unsigned long long)c->collectors.envs);
	if (c->learner.lr_schedule == CFG_LR_LINEAR && !(c->budget.seconds > 0))
		return cfg_verr(p, "learner.lr_schedule", "linear runs over "
				"budget.seconds, which is 0 (no time budget)");
	if (c->learner.minibatch > c->learner.batch)
		return cfg_verr(p, "learner.minibatch", "%llu is more than "
				"learner.batch (%llu)",
				(unsigned long long)c->learner.minibatch,
				(unsigned long long)c->learner.batch);
	if (!c->budget.env_steps && !(c->budget.seconds > 0) &&
	    !c->budget.jobs && !c->budget.snapshots)
		return cfg_verr(p, "budget.seconds", "set at least one budget "
				"(env_steps, seconds, jobs or snapshots)");
	if (cfg_eval_baselines(c, bl, &n, msg, sizeof msg))
		return cfg_verr(p, "eval.baselines", "%s", msg);
	if (cfg_train_baselines(c, bl, &n, msg, sizeof msg))
		return cfg_verr(p, "matchmaking.baselines", "%s", msg);
	if (c->matchmaking.baseline_share > 0 && !n)
		return cfg_verr(p, "matchmaking.baseline_share", "is %g but "
				"matchmaking.baselines names none",
				c->matchmaking.baseline_share);
	if (cfg_all_baselines(c, bl, &n, msg, sizeof msg))
		return cfg_verr(p, "matchmaking.baselines", "%s", msg);
	if (!lg_is_loopback(c->server.listen) && !c->server.token_file[0] &&
	    !getenv("LEAGUE_TOKEN"))
		return cfg_verr(p, "server.listen", "listening beyond loopback "
				"needs server.token_file or LEAGUE_TOKEN");
	if ((rc = check_tls(p)) || (rc = check_deterministic(p)) ||
	    (rc = check_state_weight(p)) || (rc = check_mmd(p)))
		return rc;
	return 0;
}

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

/* ---- loading ---------------------------------------------------------- */

/* How run_parser reads a text: name is the config file's path (relative
 * paths in it are the file's directory's); the text came from elsewhere
 * (cfg_load_sealed). */
enum { LOAD_FILE = 1, LOAD_SEALED = 2 };

static int run_parser(struct cfg *c, const char *text, size_t len,
		      const char *name, int check, int how, char *err,
		      size_t errlen)
{
	struct parser *p = calloc(1, sizeof *p);
	int rc;

	if (!p)
		return LG_ENOMEM;
	p->name = name;
	p->is_file = !!(how & LOAD_FILE);
	p->sealed = !!(how & LOAD_SEALED);
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
		rc = validate(p);
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
			err, errlen);
	lg_buf_free(&b);
	return rc;
}

static int load_text(struct cfg *c, const char *text, size_t len,
		     const char *name, int how, char *err, size_t errlen)
{
	int rc = cfg_defaults(c, err, errlen);

	if (rc)
		return rc;
	return run_parser(c, text, len, name, 1, how, err, errlen);
}

int cfg_load_string(struct cfg *c, const char *text, size_t len,
		    const char *name, char *err, size_t errlen)
{
	return load_text(c, text, len, name, 0, err, errlen);
}

int cfg_load_sealed(struct cfg *c, const char *text, size_t len,
		    const char *name, char *err, size_t errlen)
{
	return load_text(c, text, len, name, LOAD_SEALED, err, errlen);
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
		rc = load_text(c, text, n, path, LOAD_FILE, err, errlen);
	}
	free(text);
	fclose(f);
	return rc;
}

