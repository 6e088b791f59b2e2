/*
 * conf/config_internal.h: what the config's files share (config.c
 * parses, config_check.c checks across keys, config_table.c holds the
 * table, config_emit.c prints). Not for use outside conf/config*.c.
 */
#ifndef LG_CONF_CONFIG_INTERNAL_H
#define LG_CONF_CONFIG_INTERNAL_H

#include "conf/config.h"

#include <yaml.h>

/* The table has at most this many keys (asserted beside it). */
#define CFG_KEYS_MAX 256
/* Episodes of `league env check` a plugin game plays at config check. */
#define CFG_PLUGIN_EPISODES 64
#define CFG_PLUGIN_REPORT_MAX 8192 /* bytes of its report read back */

/* ---- the parser (config.c), shared with config_layers.c ---------------- */

struct mark {
	unsigned line, col; /* 1-based; 0 when the key was not in the file */
};

#define MAX_SECTIONS 64

struct parser {
	yaml_parser_t yp;
	const char *name;
	struct cfg *c;
	char *err;
	size_t errlen;
	struct mark marks[CFG_KEYS_MAX];
	struct mark layer_marks[CFG_LAYERS_MAX]; /* model.layers' entries */
	char sections[MAX_SECTIONS][256];
	size_t nsections;
	int is_file; /* name is the config file's path */
	int sealed;  /* cfg_load_sealed: no plugin, remote, serve, TLS */
	/* cfg_load_sealed_game: the caller's plugin path or game server
	 * address (never the text's), set once the text is found sealed */
	const char *bind_plugin, *bind_remote;
};

/* An error at YAML mark m (NULL: none) as "file:line:col: msg";
 * LG_ECONFIG. */
int cfg_perr(struct parser *p, const yaml_mark_t *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* cfg_perr at event ev's start, then ev freed (the message is made
 * first, so its arguments may point into ev); LG_ECONFIG. */
int cfg_perr_del(struct parser *p, yaml_event_t *ev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An error at key path's place in the file (or the file's name alone);
 * LG_ECONFIG. */
int cfg_verr(struct parser *p, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The next libyaml event; anchors, aliases and syntax errors are
 * LG_ECONFIG with the message set. */
int cfg_next_event(struct parser *p, yaml_event_t *ev);
/* The next item of a sequence or mapping whose end event is end: 0 with
 * the item in ev (the caller frees it), 1 at the end (read and freed),
 * or cfg_next_event's error. */
int cfg_next_item(struct parser *p, yaml_event_t *ev, yaml_event_type_t end);
/* A scalar event's text. */
const char *cfg_ev_text(const yaml_event_t *ev);
/* A whole number in [lo, hi]; nonzero when s is not one. */
int cfg_parse_u64(const char *s, double lo, double hi, uint64_t *out);

/* The cross-key checks (config_check.c) of a config p has read whole:
 * the game opened, its model and the players module's rules, in the
 * order a user meets them. 0 or LG_ECONFIG with the message set. */
int cfg_validate(struct parser *p);

/* model.layers (config_layers.c): the list whose SEQUENCE_START is start
 * (model: given as a list, or model.layers), and after the whole config
 * is read, the list against the game's spec. 0 or LG_ECONFIG. */
int cfg_parse_layers(struct parser *p, const yaml_event_t *start);
int cfg_check_layers(struct parser *p, const struct env_spec *spec);

/* The model.* keys a model.layers list replaces (NULL-terminated). */
extern const char *const cfg_model_shorthand[];

/* The row of a dotted key path, or NULL. */
const struct cfg_key *cfg_key_find(const char *path);
/* 1 when path is a section: a proper dotted prefix of some key. */
int cfg_is_section(const char *path);
/* A number key's range as "[lo, hi]", "(" or ")" at an open bound. */
void cfg_fmt_range(char *buf, size_t len, const struct cfg_key *k);
/* Nested YAML of every key: c's values, or with c NULL and defaults
 * set, the table's defaults; comments: each key's doc line. */
int cfg_emit(const struct cfg *c, lg_buf *b, int defaults, int comments);

#endif
