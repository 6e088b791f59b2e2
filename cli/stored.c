/*
 * cli/stored.c: what commands that read a league directory share: the
 * effective config the daemon stored in it at its last start, and a
 * player's stored parameters; and what those that also take a player
 * out of its league (an agent file) share: telling one and opening it.
 */
#include "cli/cli.h"
#include "eval/agent.h"
#include "league/daemon.h"
#include "storage/storage.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int cli_is_agent_file(const char *path)
{
	char magic[4];
	struct stat sb;
	FILE *f;
	int yes;

	if (!path || stat(path, &sb) || !S_ISREG(sb.st_mode) ||
	    !(f = fopen(path, "rb")))
		return 0;
	yes = fread(magic, 1, 4, f) == 4 &&
	      !memcmp(magic, LEAGUE_AGENT_MAGIC, 4);
	fclose(f);
	return yes;
}

int cli_agent_open(struct league_agent *a, const char *path,
		   const char *plugin, const char *remote, const char *cmd)
{
	const struct league_agent_with with = { plugin, remote };
	char err[1024];

	if (league_agent_load(a, path, &with, err, sizeof err)) {
		fprintf(stderr, "league %s: %s\n", cmd, err);
		return CLI_USAGE;
	}
	return CLI_OK;
}

int cli_stored_config(store *s, const char *dir, const char *cmd,
		      struct cfg *c)
{
	store_txn *t;
	const void *v;
	size_t len;
	char err[512];
	int rc;

	if (store_txn_begin(s, STORE_TXN_READ, &t))
		return CLI_FAIL;
	rc = store_get(t, STORE_DB_META, "league.config", 13, &v, &len);
	if (rc) {
		store_txn_abort(t);
		fprintf(stderr, "league %s: %s holds no config (a league "
			"from before the daemon stored it)%s\n", cmd, dir,
			strcmp(cmd, "replay") ? "" : "; pass --config");
		return CLI_USAGE;
	}
	rc = cfg_load_string(c, v, len, "the league's stored config", err,
			     sizeof err);
	store_txn_abort(t);
	if (rc) {
		fprintf(stderr, "league %s: %s\n", cmd, err);
		return CLI_USAGE;
	}
	return CLI_OK;
}

struct newest {
	uint32_t player, version;
	int found;
};

static int newest_cb(const void *key, size_t klen, const void *val,
		     size_t vlen, void *arg)
{
	struct newest *n = arg;

	if (klen != 8 || lg_get_be32(key) != n->player)
		return 1;
	n->version = lg_get_be32((const uint8_t *)key + 4);
	n->found = 1;
	return 0;
}

int cli_stored_params_txn(store_txn *t, const char *cmd, uint32_t player,
			  uint32_t *version, lg_buf *blob)
{
	struct store_blob_info info;
	struct newest n = { player, 0, 0 };
	const void *p;
	uint8_t k[8];
	char err[256];
	int rc;

	if (*version == UINT32_MAX) {
		store_key_u32x2(k, player, 0);
		rc = store_iter(t, STORE_DB_PARAMS, k, sizeof k, newest_cb,
				&n);
		if (rc < 0) {
			fprintf(stderr, "league %s: reading the parameters' "
				"index: %s\n", cmd, lg_strerror(rc));
			return CLI_FAIL;
		}
		if (!n.found) {
			fprintf(stderr, "league %s: player %u has no stored "
				"parameters\n", cmd, player);
			return CLI_USAGE;
		}
		*version = n.version;
	}
	store_key_u32x2(k, player, *version);
	rc = store_blob_get(t, STORE_DB_PARAMS, k, sizeof k, &info, &p, err,
			    sizeof err);
	if (!rc && nn_check_blob(p, info.nbytes, NULL, err, sizeof err)) {
		/* stored before the daemon checked what it stores: nothing
		 * to hand on (a NaN network plays nothing but NaN) */
		fprintf(stderr, "league %s: player %u version %u is not a "
			"usable network: %s\n", cmd, player, *version, err);
		return CLI_FAIL;
	}
	if (!rc)
		rc = lg_buf_append(blob, p, info.nbytes);
	if (rc == LG_ENOTFOUND) {
		fprintf(stderr, "league %s: player %u has no version %u "
			"stored (the league keeps its newest versions and its "
			"active snapshots'; a retired snapshot's go, see "
			"snapshot.keep; `league players DIR` lists them)\n",
			cmd, player, *version);
		return CLI_USAGE;
	}
	if (rc) {
		fprintf(stderr, "league %s: parameters %u/%u: %s\n", cmd,
			player, *version, rc == LG_ENOMEM ? lg_strerror(rc)
							  : err);
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cli_stored_params(store *s, const char *cmd, uint32_t player,
		      uint32_t *version, lg_buf *blob)
{
	store_txn *t;
	int rc;

	if (store_txn_begin(s, STORE_TXN_READ, &t))
		return CLI_FAIL;
	rc = cli_stored_params_txn(t, cmd, player, version, blob);
	store_txn_abort(t);
	return rc;
}

/* One stored version of player's network into *out. */
static int params_load(store_txn *t, uint32_t player, uint32_t version,
		       nn **out, char *err, size_t errlen)
{
	struct store_blob_info info;
	const void *blob;
	uint8_t key[8];
	int rc;

	store_key_u32x2(key, player, version);
	rc = store_blob_get(t, STORE_DB_PARAMS, key, sizeof key, &info, &blob,
			    err, errlen);
	if (rc == LG_ENOTFOUND)
		snprintf(err, errlen, "player %u's version %u is not stored "
			 "(the league keeps its newest %d in a row)", player,
			 version, DAEMON_KEEP_VERSIONS + 1);
	return rc ? rc : nn_load(out, blob, info.nbytes, err, errlen);
}

int cli_params_mean(store_txn *t, uint32_t player, uint32_t version,
		    uint32_t k, nn **out, char *err, size_t errlen)
{
	float *sum;
	size_t n, m;
	int rc;

	*out = NULL;
	if (!k || k - 1 > version) {
		snprintf(err, errlen, "no %u versions end at version %u", k,
			 version);
		return LG_ENOTFOUND;
	}
	if ((rc = params_load(t, player, version, out, err, errlen)))
		return rc;
	sum = nn_params(*out, &n);
	for (uint32_t j = 1; j < k && !rc; j++) {
		nn *o = NULL;
		if ((rc = params_load(t, player, version - j, &o, err, errlen)))
			break;
		const float *p = nn_params_const(o, &m);
		if (m != n || memcmp(nn_shape_of(o), nn_shape_of(*out),
				     sizeof(struct nn_shape))) {
			snprintf(err, errlen, "version %u's network has "
				 "another shape than version %u's",
				 version - j, version);
			rc = LG_EINVAL;
		}
		for (size_t x = 0; !rc && x < n; x++)
			sum[x] += p[x];
		nn_free(o);
	}
	for (size_t x = 0; !rc && k > 1 && x < n; x++)
		sum[x] /= (float)k;
	if (rc) {
		nn_free(*out);
		*out = NULL;
	}
	return rc;
}
