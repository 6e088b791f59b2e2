/*
 * cli/stored.c: what commands that read a league directory share: the
 * effective config the daemon stored in it at its last start.
 */
#include "cli/cli.h"
#include "storage/storage.h"

#include <stdio.h>
#include <string.h>

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
