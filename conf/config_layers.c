/*
 * conf/config_layers.c: model.layers, the network as a list of layers
 * (config.h, struct cfg_layers; docs/config.md): the list read from its
 * YAML events, each entry checked for its place as it is read (so errors
 * point at the entry), and the whole list checked against the game once
 * the config is read. The parser and its error helpers are config.c's
 * (config_internal.h).
 */
#include "conf/config_internal.h"

#include "conf/options.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const layer_names[] = { "", "conv2d", "residual",
					   "flatten", "dense", "gru" };

/* One whole number of a layer's mapping (or its scalar shorthand). */
static int layer_number(struct parser *p, const yaml_event_t *ev,
			const char *what, uint64_t lo, uint64_t hi,
			uint32_t *out)
{
	uint64_t u;

	if (ev->type != YAML_SCALAR_EVENT ||
	    ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    cfg_parse_u64(cfg_ev_text(ev), (double)lo, (double)hi, &u))
		return cfg_perr(p, &ev->start_mark, "model.layers: %s: "
				"expected a whole number in [%llu, %llu], got "
				"'%s'", what, (unsigned long long)lo,
				(unsigned long long)hi,
				ev->type == YAML_SCALAR_EVENT
					? cfg_ev_text(ev)
					: "a list or mapping");
	*out = (uint32_t)u;
	return 0;
}

/* The fields of a conv2d or residual mapping, as bits of what a mapping
 * has given (a field twice is refused). */
enum { LF_SIZE = 1, LF_KERNEL = 2, LF_STRIDE = 4, LF_PAD = 8, LF_ACT = 16 };

/* Which field of l's mapping key names: *dst with its bounds for a
 * number, *is_act for a residual block's activation, *bit the field's
 * LF_ bit. Neither *dst nor *is_act: l's kind has no such field. */
static void layer_field(struct cfg_layer *l, const char *key, uint32_t **dst,
			uint32_t *lo, uint32_t *hi, int *is_act,
			unsigned *bit)
{
	*dst = NULL;
	*lo = *hi = 0;
	*is_act = 0;
	if (!strcmp(key, "channels"))
		*dst = &l->size, *lo = 1, *hi = NN_MAX_WIDTH;
	else if (!strcmp(key, "kernel"))
		*dst = &l->kernel, *lo = 1, *hi = 15;
	else if (!strcmp(key, "stride") && l->kind == CFG_LAYER_CONV2D)
		*dst = &l->stride, *lo = 1, *hi = 8;
	else if (!strcmp(key, "padding") && l->kind == CFG_LAYER_CONV2D)
		*dst = &l->padding, *lo = 0, *hi = 8;
	else if (!strcmp(key, "activation") && l->kind == CFG_LAYER_RESIDUAL)
		*is_act = 1;
	*bit = *dst == &l->size	     ? LF_SIZE
	       : *dst == &l->kernel  ? LF_KERNEL
	       : *dst == &l->stride  ? LF_STRIDE
	       : *dst == &l->padding ? LF_PAD
				     : LF_ACT;
}

/* The value of field `what`, read now: relu or tanh into l->act when
 * is_act, else a whole number in [lo, hi] into *dst. */
static int layer_field_value(struct parser *p, struct cfg_layer *l,
			     const char *what, int is_act, uint32_t *dst,
			     uint32_t lo, uint32_t hi)
{
	yaml_event_t vev;
	int rc;

	if ((rc = cfg_next_event(p, &vev)))
		return rc;
	if (is_act) {
		const char *v = vev.type == YAML_SCALAR_EVENT
					? cfg_ev_text(&vev) : "";
		if (!strcmp(v, "relu"))
			l->act = NN_LACT_RELU;
		else if (!strcmp(v, "tanh"))
			l->act = NN_LACT_TANH;
		else
			rc = cfg_perr(p, &vev.start_mark,
				      "model.layers: "
				      "%s: expected relu or tanh, got "
				      "'%s'",
				      what, v);
	} else {
		rc = layer_number(p, &vev, what, lo, hi, dst);
	}
	yaml_event_delete(&vev);
	return rc;
}

/* The fields of a conv2d or residual mapping (its MAPPING_START read) to
 * its end, into l; *seen: the LF_ bits of the fields given. */
static int parse_layer_fields(struct parser *p, struct cfg_layer *l,
			      unsigned *seen)
{
	const char *kind = layer_names[l->kind];
	yaml_event_t ev;
	char what[64];
	int rc;

	for (;;) {
		uint32_t *dst, lo, hi;
		unsigned bit;
		int is_act;

		if ((rc = cfg_next_item(p, &ev, YAML_MAPPING_END_EVENT)))
			return rc < 0 ? rc : 0;
		const char *key =
			ev.type == YAML_SCALAR_EVENT ? cfg_ev_text(&ev) : "";
		layer_field(l, key, &dst, &lo, &hi, &is_act, &bit);
		if ((dst || is_act) && (*seen & bit))
			return cfg_perr_del(p, &ev,
					    "model.layers: %s: duplicate field "
					    "'%s'",
					    kind, key);
		*seen |= bit;
		if (!dst && !is_act)
			return cfg_perr_del(
				p, &ev,
				"model.layers: %s: unknown field "
				"'%s' (%s)",
				kind, key,
				l->kind == CFG_LAYER_CONV2D
					? "channels, kernel, stride, padding"
					: "channels, kernel, activation");
		snprintf(what, sizeof what, "%s.%s", kind, key);
		yaml_event_delete(&ev);
		if ((rc = layer_field_value(p, l, what, is_act, dst, lo, hi)))
			return rc;
	}
}

/* The value of `conv2d:`, `residual:` or `dense:`: a number (channels or
 * units) or a mapping of the layer's fields. */
static int parse_layer_body(struct parser *p, struct cfg_layer *l,
			    const yaml_mark_t *at)
{
	const char *kind = layer_names[l->kind];
	int conv = l->kind == CFG_LAYER_CONV2D || l->kind == CFG_LAYER_RESIDUAL;
	unsigned seen = 0;
	yaml_event_t ev;
	int rc;

	if ((rc = cfg_next_event(p, &ev)))
		return rc;
	if (ev.type == YAML_SCALAR_EVENT) {
		rc = layer_number(p, &ev, kind, 1, NN_MAX_WIDTH, &l->size);
		yaml_event_delete(&ev);
		if (rc)
			return rc;
	} else if (ev.type != YAML_MAPPING_START_EVENT || !conv) {
		return cfg_perr_del(p, &ev,
				    "model.layers: %s: expected %s", kind,
				    conv ? "a channel count or a mapping like "
					   "{channels: 32, kernel: 3}"
					 : "a width like 64");
	} else {
		yaml_event_delete(&ev);
		if ((rc = parse_layer_fields(p, l, &seen)))
			return rc;
		if (!(seen & LF_SIZE))
			return cfg_perr(p, at, "model.layers: %s: needs "
					"channels", kind);
	}
	if (conv && !(seen & LF_PAD))
		l->padding = (l->kernel - 1) / 2; /* "same" for odd kernels */
	if (l->kind == CFG_LAYER_RESIDUAL) {
		l->stride = 1;
		l->padding = (l->kernel - 1) / 2;
	}
	return 0;
}

/* A bare relu or tanh at at: the activation of the entry before it
 * (last), which must be a conv2d or dense layer without one. */
static int layer_activation(struct parser *p, struct cfg_layer *last,
			    const char *name, const yaml_mark_t *at)
{
	if (!last || (last->kind != CFG_LAYER_CONV2D &&
		      last->kind != CFG_LAYER_DENSE) ||
	    last->act != NN_LACT_NONE)
		return cfg_perr(p, at,
				"model.layers: %s must follow "
				"a conv2d or dense layer without "
				"one (a residual block takes "
				"`activation:`; a gru has its "
				"own)",
				name);
	last->act = name[0] == 'r' ? NN_LACT_RELU : NN_LACT_TANH;
	return 0;
}

/* An entry `{kind: body}` at at, its MAPPING_START read: the kind's name,
 * its body, and nothing after it in the mapping. */
static int layer_entry_mapping(struct parser *p, struct cfg_layer *l,
			       const yaml_mark_t *at)
{
	yaml_event_t kev;
	int rc;

	if ((rc = cfg_next_event(p, &kev)))
		return rc;
	const char *k = kev.type == YAML_SCALAR_EVENT ? cfg_ev_text(&kev) : "";
	for (uint32_t i = 1; i < LG_ARRAY_LEN(layer_names); i++)
		if (i != CFG_LAYER_FLATTEN && !strcmp(k, layer_names[i]))
			l->kind = i;
	if (!l->kind)
		return cfg_perr_del(p, &kev,
				    "model.layers: "
				    "unknown layer '%s' (conv2d, "
				    "residual, flatten, dense, gru, "
				    "relu, tanh)",
				    k);
	yaml_event_delete(&kev);
	if (l->kind == CFG_LAYER_RESIDUAL)
		l->act = NN_LACT_RELU;
	if ((rc = parse_layer_body(p, l, at)))
		return rc;
	if ((rc = cfg_next_event(p, &kev)))
		return rc;
	if (kev.type != YAML_MAPPING_END_EVENT)
		return cfg_perr_del(p, &kev,
				    "model.layers: "
				    "one layer per entry (start "
				    "another with '- ')");
	yaml_event_delete(&kev);
	return 0;
}

/* What the list has so far, for the order rules. */
struct layer_order {
	uint32_t nconv, ndense;
	int flat;
};

/* Whether l (at at) may follow the layers so far (o; last the entry
 * before, or NULL): convolutions, flatten, dense layers, the recurrent
 * core (the head reads its state), within the learner's counts. o then
 * counts l in. */
static int layer_place(struct parser *p, struct layer_order *o,
		       const struct cfg_layer *last,
		       const struct cfg_layer *l, const yaml_mark_t *at)
{
	int conv = l->kind == CFG_LAYER_CONV2D ||
		   l->kind == CFG_LAYER_RESIDUAL;
	const char *kname = layer_names[l->kind];

	if (last && last->kind == CFG_LAYER_GRU)
		return cfg_perr(p, at, "model.layers: %s after gru: "
				"the recurrent core is the last layer "
				"(the head reads its state)", kname);
	if ((l->kind == CFG_LAYER_GRU || l->kind == CFG_LAYER_DENSE) &&
	    o->nconv && !o->flat)
		return cfg_perr(p, at, "model.layers: %s after a "
				"convolution: put `flatten` between them",
				kname);
	if (conv && (o->flat || o->ndense))
		return cfg_perr(p, at, "model.layers: %s after %s: "
				"convolutions come first", kname,
				o->flat ? "flatten" : "a dense layer");
	if (l->kind == CFG_LAYER_FLATTEN && (o->flat || !o->nconv))
		return cfg_perr(p, at, "model.layers: flatten %s",
				o->flat ? "twice"
					: "needs convolutions before it");
	if (conv && ++o->nconv > NN_MAX_CONV)
		return cfg_perr(p, at,
				"model.layers: more than %d "
				"conv2d and residual layers",
				NN_MAX_CONV);
	if (l->kind == CFG_LAYER_DENSE && ++o->ndense > NN_MAX_LAYERS)
		return cfg_perr(p, at,
				"model.layers: more than %d dense "
				"layers",
				NN_MAX_LAYERS);
	o->flat |= l->kind == CFG_LAYER_FLATTEN;
	return 0;
}

/* model.layers (or `model:` given as a list); the SEQUENCE_START has been
 * read. Each entry is checked for its place in the list here; whether the
 * whole fits the game is check_model's. */
int cfg_parse_layers(struct parser *p, const yaml_event_t *start)
{
	struct cfg_layers *ls = &p->c->model.layers;
	struct layer_order o = { 0, 0, 0 };
	int rc;

	if (start->type != YAML_SEQUENCE_START_EVENT)
		return cfg_perr(p, &start->start_mark,
				"model.layers: expected a "
				"list like [{conv2d: 32}, relu, flatten, "
				"{dense: 64}, relu]");
	memset(ls, 0, sizeof *ls);
	for (;;) {
		yaml_event_t ev;
		struct cfg_layer l = { 0, 0, 3, 1, 0, NN_LACT_NONE };
		struct cfg_layer *last = ls->n ? &ls->v[ls->n - 1] : NULL;
		if ((rc = cfg_next_item(p, &ev, YAML_SEQUENCE_END_EVENT)))
			return rc < 0 ? rc : 0;
		yaml_mark_t at = ev.start_mark;
		const char *name =
			ev.type == YAML_SCALAR_EVENT ? cfg_ev_text(&ev) : NULL;
		if (name && (!strcmp(name, "relu") || !strcmp(name, "tanh"))) {
			rc = layer_activation(p, last, name, &at);
			yaml_event_delete(&ev);
			if (rc)
				return rc;
			continue;
		}
		if (ls->n == CFG_LAYERS_MAX)
			return cfg_perr_del(p, &ev,
					    "model.layers: more than %d layers",
					    CFG_LAYERS_MAX);
		if (name && !strcmp(name, "flatten")) {
			l.kind = CFG_LAYER_FLATTEN;
			yaml_event_delete(&ev);
		} else if (ev.type == YAML_MAPPING_START_EVENT) {
			yaml_event_delete(&ev);
			if ((rc = layer_entry_mapping(p, &l, &at)))
				return rc;
		} else {
			return cfg_perr_del(
				p, &ev,
				"model.layers: unknown layer '%s' "
				"(conv2d, residual, flatten, dense, gru, "
				"relu, tanh)",
				name ? name : "(a list)");
		}
		if ((rc = layer_place(p, &o, last, &l, &at)))
			return rc;
		p->layer_marks[ls->n] = (struct mark){
			(unsigned)at.line + 1, (unsigned)at.column + 1 };
		ls->v[ls->n++] = l;
	}
}

/* An error at entry i of model.layers. */
static int layer_err(struct parser *p, uint32_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int layer_err(struct parser *p, uint32_t i, const char *fmt, ...)
{
	const struct mark *m = &p->layer_marks[i];
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	lg_errf(p->err, p->errlen, "%s:%u:%u: model.layers: %s: %s", p->name,
		m->line, m->col, layer_names[p->c->model.layers.v[i].kind],
		msg);
	return LG_ECONFIG;
}

/* A layer list replaces the shorthand keys, needs planes for its
 * convolutions, and must be a net the learner builds. */
int cfg_check_layers(struct parser *p, const struct env_spec *spec)
{
	struct cfg_layers *ls = &p->c->model.layers;
	uint32_t n = ls->n;
	struct nn_shape s;
	char msg[256];

	for (size_t i = 0; cfg_model_shorthand[i]; i++) {
		const struct cfg_key *k = cfg_key_find(cfg_model_shorthand[i]);
		if (p->marks[k - cfg_keys(NULL)].line)
			return cfg_verr(
				p, cfg_model_shorthand[i],
				"model.layers "
				"replaces this key: give one or the other");
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t kind = ls->v[i].kind;
		if ((kind == CFG_LAYER_CONV2D || kind == CFG_LAYER_RESIDUAL) &&
		    spec->obs_rank != 3)
			return layer_err(p, i, "game '%s' gives flat "
					 "observations (%zu floats), "
					 "convolutions need planes (channels "
					 "x rows x columns)", spec->name,
					 spec->obs_len);
	}
	/* A list that builds is fine, whatever its prefixes would be as
	 * nets of their own (a wide convolution straight into the head can
	 * pass the parameter cap where the whole list, narrowed later, does
	 * not); one that does not is blamed on the first layer whose prefix
	 * fails, or on the last. */
	league_nn_shape(p->c, spec, &s);
	if (!nn_shape_check(&s, msg, sizeof msg))
		return 0;
	for (uint32_t i = 1; i <= n; i++) {
		ls->n = i;
		league_nn_shape(p->c, spec, &s);
		int rc = nn_shape_check(&s, msg, sizeof msg);
		ls->n = n;
		if (rc || i == n)
			return layer_err(p, i - 1, "%s", msg);
	}
	return 0;
}
