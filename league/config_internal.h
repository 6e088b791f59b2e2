/*
 * league/config_internal.h: what the config's files share (config.c
 * parses and checks, config_table.c holds the table, config_emit.c
 * prints). Not for use outside league/config*.c.
 */
#ifndef LG_LEAGUE_CONFIG_INTERNAL_H
#define LG_LEAGUE_CONFIG_INTERNAL_H

#include "league/config.h"

/* The table has at most this many keys (asserted beside it). */
#define CFG_KEYS_MAX 256

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
