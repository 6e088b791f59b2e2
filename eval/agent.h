/*
 * eval/agent.h: the agent file, one trained player taken out of its
 * league (`league export`) to be shared and played against (`league
 * play`, `league eval`): self-contained and checksummed.
 *
 * Layout (little-endian; docs/agents.md), format version 2:
 *
 *   0   magic "LGAG"
 *   4   u32 format version (2; version 1 files, without the game
 *       record and its length, still load: a built-in game)
 *   8   u32 meta_len: provenance, `key=value` lines (printable ASCII)
 *   12  u32 config_len: the game's options and the network as league
 *       config YAML (env without plugin, remote and serve; model and
 *       learner.search of the league it came from)
 *   16  u64 blob_len: the parameters (nn_save's format, which carries
 *       the architecture and its own checksums)
 *   24  u32 game_len: the game record, `key=value` lines: kind=builtin,
 *       plugin or remote; name=GAME; a plugin's path=PATH (when
 *       exported) and sha256=HEX of its bytes; a remote game's
 *       address=ADDR (when exported)
 *   28  meta, config, game, blob
 *   end u32 CRC-32C of everything before it
 *
 * Loading checks every field, the config as any config (file:line:col
 * errors), the parameters as nn_load does, and that the network is the
 * one the config's model gives for the config's game. The file never
 * makes its reader load code or dial an address: a plugin game's agent
 * opens only with a plugin its user names whose SHA-256 is the
 * recorded one, a remote game's only with an address its user names
 * whose server's Welcome names the recorded game (league_agent_with).
 */
#ifndef LG_EVAL_AGENT_H
#define LG_EVAL_AGENT_H

#include "envs/env.h"
#include "conf/config.h"
#include "learner/learner.h"

#define LEAGUE_AGENT_MAGIC "LGAG"
#define LEAGUE_AGENT_VERSION 2u
#define LEAGUE_AGENT_HEADER 28u    /* version 2's */
#define LEAGUE_AGENT_HEADER_V1 24u /* version 1's: no game record */
#define LEAGUE_AGENT_GAME_MAX 1024u
#define LEAGUE_AGENT_SHA256_HEX 64
#define LEAGUE_AGENT_META_MAX 4096u
#define LEAGUE_AGENT_CONFIG_MAX (1u << 20)
#define LEAGUE_AGENT_BLOB_MAX (1ull << 31)

enum league_agent_kind {
	LEAGUE_AGENT_BUILTIN,
	LEAGUE_AGENT_PLUGIN,
	LEAGUE_AGENT_REMOTE,
};

/* The game an agent file records (version 1 files: a built-in one). */
struct league_agent_game {
	int kind;                       /* enum league_agent_kind */
	char name[ENV_NAME_MAX];
	char path[CFG_STR_MAX];         /* plugin: where it was exported */
	char sha256[LEAGUE_AGENT_SHA256_HEX + 1]; /* plugin: its bytes' */
	char address[CFG_STR_MAX];      /* remote: where it was exported */
};

/* What the user who opens an agent file names to play its game with
 * (never taken from the file): the plugin's path, the game server's
 * address; NULL or "" for none. */
struct league_agent_with {
	const char *plugin, *remote;
};

struct league_agent {
	struct cfg cfg;                 /* env (with the user's plugin or
					 * address), model, learner.search */
	struct league_agent_game game;  /* as recorded */
	unsigned format;                /* the file's format version */
	char meta[LEAGUE_AGENT_META_MAX + 1]; /* NUL-terminated */
	struct env_spec spec;           /* the game's, with the cfg's options */
	nn *net;
};

/* The agent file of parameters blob (nn_save's bytes) trained in a league
 * of config c, with provenance meta (`key=value` lines, each ended by a
 * newline; printable ASCII): appended to out. The game is recorded as
 * c names it: built in; c's env.plugin with the SHA-256 of its bytes
 * now; c's env.remote. LG_EINVAL (meta or blob out of bounds; err says
 * which), nn_load's errors (blob is not a whole network with every value
 * finite: nn_check_blob), LG_EIO (the plugin cannot be read), LG_ENOMEM. */
int league_agent_encode(const struct cfg *c, const char *meta,
			const void *blob, size_t blob_len, lg_buf *out,
			char *err, size_t errlen);
/* Decode and check an agent file's bytes into a (league_agent_free it,
 * also after an error), its game played with what `with` names (NULL:
 * nothing; a built-in game's agent needs nothing and takes nothing).
 * LG_ECORRUPT (layout, checksum, meta, game record), LG_EVERSION
 * (format), LG_EUNSUPP (a plugin or remote game and `with` names no
 * plugin or address: err says which plugin and SHA-256 to pass), LG_EIO
 * (with's plugin cannot be read), LG_EINVAL (with's plugin has another
 * SHA-256, err naming both and the recorded path; `with` names what the
 * game is not; the network is not the config's for its game),
 * LG_ECONFIG (its config, or a server of another game), nn_load's
 * errors; err says which. */
int league_agent_decode(struct league_agent *a, const void *buf, size_t len,
			const struct league_agent_with *with, char *err,
			size_t errlen);
/* The same from a file (err starts with its path). */
int league_agent_load(struct league_agent *a, const char *path,
		      const struct league_agent_with *with, char *err,
		      size_t errlen);
/* The SHA-256 of the file at path as lowercase hex into hex (65 bytes).
 * LG_EIO with err naming the path. */
int league_agent_sha256(const char *path, char *hex, char *err,
			size_t errlen);
void league_agent_free(struct league_agent *a);
/* Provenance value of key into val; LG_ENOTFOUND when absent. */
int league_agent_meta(const struct league_agent *a, const char *key,
		      char *val, size_t vlen);

#endif
