/* tests/fuzz/scratch.h: a throw-away league store for the harnesses of
 * stored records, whose decoders are reached only through a transaction.
 *
 * One store per process, opened on first use in a fresh directory under
 * $TMPDIR (or /tmp) and removed at exit. Each input writes its records in
 * a write transaction that the harness aborts, so inputs never see each
 * other's records and nothing reaches the disk (fuzz_blob still runs
 * over 100,000 inputs/s). Failing to open the store is the machine's
 * fault, not the input's, so it ends the process with a message. */
#ifndef LG_FUZZ_SCRATCH_H
#define LG_FUZZ_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "storage/storage.h"

static char scratch_dir[512];
static store *scratch_s;

static void scratch_remove(void)
{
	static const char *const files[] = { "data.mdb", "lock.mdb",
					     "league.lock" };
	char path[600];

	store_close(scratch_s);
	scratch_s = NULL;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", scratch_dir, files[i]);
		unlink(path);
	}
	rmdir(scratch_dir);
}

/* The process's scratch store, opened on the first call. */
static store *scratch_store(void)
{
	const char *tmp = getenv("TMPDIR");
	struct store_opts o = { .flags = STORE_NOSYNC };
	char err[256] = "";

	if (scratch_s)
		return scratch_s;
	snprintf(scratch_dir, sizeof scratch_dir, "%s/league-fuzz-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch_dir)) {
		perror(scratch_dir);
		exit(2);
	}
	if (store_open(&scratch_s, scratch_dir, &o, err, sizeof err)) {
		fprintf(stderr, "scratch store: %s\n", err);
		rmdir(scratch_dir);
		exit(2);
	}
	atexit(scratch_remove);
	return scratch_s;
}

/* A write transaction on the scratch store, to be aborted. */
static store_txn *scratch_txn(void)
{
	store_txn *t;

	if (store_txn_begin(scratch_store(), STORE_TXN_WRITE, &t)) {
		fprintf(stderr, "scratch store: cannot begin a transaction\n");
		exit(2);
	}
	return t;
}

#endif
