/*
 * eval/agent.h: the agent file, one trained player taken out of its
 * league (`league export`) to be shared and played against (`league
 * play`, `league eval`): self-contained and checksummed.
 *
 * Layout (little-endian; docs/agents.md):
 *
 *   0   magic "LGAG"
 *   4   u32 format version (1)
 *   8   u32 meta_len: provenance, `key=value` lines (printable ASCII)
 *   12  u32 config_len: the game and the network as league config YAML
 *       (env, model and learner.search of the league it came from)
 *   16  u64 blob_len: the parameters (nn_save's format, which carries
 *       the architecture and its own checksums)
 *   24  meta, config, blob
 *   end u32 CRC-32C of everything before it
 *
 * Loading checks every field, the config as any config (file:line:col
 * errors), the parameters as nn_load does, and that the network is the
 * one the config's model gives for the config's game.
 */
#ifndef LG_EVAL_AGENT_H
#define LG_EVAL_AGENT_H

#include "envs/env.h"
#include "conf/config.h"
#include "learner/learner.h"

#define LEAGUE_AGENT_MAGIC "LGAG"
#define LEAGUE_AGENT_VERSION 1u
#define LEAGUE_AGENT_HEADER 24u
#define LEAGUE_AGENT_META_MAX 4096u
#define LEAGUE_AGENT_CONFIG_MAX (1u << 20)
#define LEAGUE_AGENT_BLOB_MAX (1ull << 31)

struct league_agent {
	struct cfg cfg;                 /* env, model, learner.search */
	char meta[LEAGUE_AGENT_META_MAX + 1]; /* NUL-terminated */
	struct env_spec spec;           /* the game's, with the cfg's options */
	nn *net;
};

/* The agent file of parameters blob (nn_save's bytes) trained in a league
 * of config c, with provenance meta (`key=value` lines, each ended by a
 * newline; printable ASCII): appended to out. LG_EINVAL (meta or blob
 * out of bounds; err says which), nn_load's errors (blob is not a whole
 * network with every value finite: nn_check_blob), LG_EUNSUPP (a plugin
 * or remote game: the file's config is loaded sealed, cfg_load_sealed),
 * LG_ENOMEM. */
int league_agent_encode(const struct cfg *c, const char *meta,
			const void *blob, size_t blob_len, lg_buf *out,
			char *err, size_t errlen);
/* Decode and check an agent file's bytes into a (league_agent_free it,
 * also after an error). LG_ECORRUPT (layout, checksum, meta), LG_EVERSION
 * (format), LG_ECONFIG (its config), nn_load's errors, LG_EINVAL (the
 * network is not the config's for its game); err says which. */
int league_agent_decode(struct league_agent *a, const void *buf, size_t len,
			char *err, size_t errlen);
/* The same from a file (err starts with its path). */
int league_agent_load(struct league_agent *a, const char *path, char *err,
		      size_t errlen);
void league_agent_free(struct league_agent *a);
/* Provenance value of key into val; LG_ENOTFOUND when absent. */
int league_agent_meta(const struct league_agent *a, const char *key,
		      char *val, size_t vlen);

#endif
