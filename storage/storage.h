/*
 * storage: the league directory's LMDB environment.
 *
 * One environment per league directory, with a fixed set of named databases
 * (enum store_db) and a schema version in `meta`. Keys are fixed-width
 * big-endian integers (store_key_* below) so cursors walk them in numeric
 * order. Only this module includes <lmdb.h>; LMDB codes are translated to
 * LG_E* codes here and logged with LMDB's own text.
 *
 * Transactions carry a *sticky* error: after the first failed put or del,
 * every later put/del is a no-op returning that error and commit turns into
 * abort. Callers check once, at commit.
 *
 * Writers: one process (the daemon) opens the directory read-write; a second
 * read-write open fails with LG_EBUSY while the first lives (an flock on
 * DIR/league.lock, released by the kernel when the holder dies, so a
 * kill -9 never leaves the directory locked). Readers (inspection tools)
 * open with STORE_RDONLY at any time and see consistent snapshots while the
 * writer commits. Every process opens the environment itself; a handle is
 * never used across fork().
 *
 * Map growth: when a write transaction hits the end of the memory map it
 * fails with LG_EFULL; the map is doubled (up to max_map) when that
 * transaction ends, so retrying succeeds. store_update() does the retry.
 * Growth and MDB_MAP_RESIZED (another process grew the map) require that no
 * other transaction of this handle is active: a handle is for one thread at
 * a time, or for one libevent loop.
 */
#ifndef LG_STORAGE_H
#define LG_STORAGE_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define STORE_SCHEMA_VERSION 1u

enum store_db {
	STORE_DB_META,      /* string keys: schema, config, counters, rng */
	STORE_DB_PLAYERS,   /* be32 player id -> player record */
	STORE_DB_PARAMS,    /* be32 player, be32 version -> blob */
	STORE_DB_PAYOFF,    /* be32 a, be32 b -> decayed counts */
	STORE_DB_JOBS,      /* be64 job id -> job record */
	STORE_DB_RESULTS,   /* be64 job id -> result (idempotence) */
	STORE_DB_RATINGS,   /* be32 player -> ratings */
	STORE_DB_SNAPSHOTS, /* be32 snapshot id -> lineage */
	STORE_DB_EVAL,      /* be64 seq -> evaluation record */
	STORE_DB_LOG,       /* be64 seq -> matchmaking decision */
	STORE_DB_SERIES,    /* kind, be64 ms, be32 player -> time series
			     * point (server/series.h) */
	STORE_DB_TRAINER,   /* be32 player -> be32 version, the learner's
			     * trainer state with that version */
	STORE_DB_SCRATCH,   /* free for tests and tools */
	STORE_DB__COUNT
};

/* Name of a database ("params", ...). */
const char *store_db_name(enum store_db db);

typedef struct store store;
typedef struct store_txn store_txn;

enum store_flags {
	STORE_RDONLY = 1 << 0, /* inspection: read-only, no lock, no create */
	STORE_NOSYNC = 1 << 1, /* skip fsync at commit (benchmarks, tests);
				  still crash-safe against kill -9, not
				  against power loss */
};

struct store_opts {
	unsigned flags;      /* enum store_flags */
	size_t initial_map;  /* bytes; 0 = 64 MiB. Rounded up by LMDB to
				pages; an existing larger map is kept */
	size_t max_map;      /* growth cap in bytes; 0 = 1 TiB */
};

/*
 * Open (creating when read-write and absent) the environment in dir.
 * Read-write opens take the writer lock, clear stale reader slots, create
 * the databases and write or check the schema version. Read-only opens need
 * an existing league directory.
 * Both check first that data.mdb is as long as its meta pages say
 * (store_file_check); a writer then keeps it at least as long as the map.
 * Errors: LG_EBUSY (another writer holds dir), LG_ENOTFOUND (read-only and
 * not a league directory), LG_ECORRUPT (damaged store: truncated, or a
 * meta page that is not LMDB's), LG_EVERSION (schema mismatch), LG_EIO,
 * LG_ESTORAGE; err names dir and the cause. opts may be NULL.
 */
int store_open(store **out, const char *dir, const struct store_opts *opts,
	       char *err, size_t errlen);
/*
 * Check dir/data.mdb against its own meta pages before LMDB maps it: the
 * file must be at least (last page + 1) * page size long, as the newer of
 * its two meta pages says (read with pread, never mapped), so a truncated
 * store is an error, not a SIGBUS on the first read past its end.
 * store_open() calls it on every open. 0; LG_ENOTFOUND (no data.mdb);
 * LG_ECORRUPT with "dir/data.mdb: damaged store (N bytes, expected M)" or
 * the meta page at fault in err; LG_EIO, LG_ENOMEM.
 */
int store_file_check(const char *dir, char *err, size_t errlen);
/*
 * The check itself, on bytes from outside: head is the file's first len
 * bytes (both meta pages need at most 65,688), fsize its length. 0 when
 * fsize is at least *expected; LG_ECORRUPT with the reason in why (a meta
 * page whose magic, version, page size or last page is wrong, or a file
 * shorter than the meta pages or than *expected). *expected is always
 * set: the length the file needs, or the least it could need.
 */
int store_meta_check(const void *head, size_t len, uint64_t fsize,
		     uint64_t *expected, char *why, size_t whylen);
/*
 * Take the writer lock of dir (DIR/league.lock, created if absent) without
 * opening the store, as a read-write store_open does: for a tool that
 * must make sure no process uses a league before it changes the
 * directory (league run --overwrite deletes one). *fd holds the lock
 * until store_unlock_dir(*fd) or exit; the file records our pid.
 * LG_EBUSY with "dir: in use by another writer (pid N)" in err while a
 * live process holds it; LG_EIO.
 */
int store_lock_dir(const char *dir, int *fd, char *err, size_t errlen);
/* Release a lock store_lock_dir took; -1 is a no-op. */
void store_unlock_dir(int fd);
/* Close; no transaction may be active. NULL is a no-op. */
void store_close(store *s);
/* Reclaim reader slots of dead processes (mdb_reader_check); *dead gets
 * their number. The daemon calls it now and then; opens call it too. */
int store_reader_check(store *s, int *dead);
/* Current map size in bytes. */
size_t store_map_size(const store *s);
int store_is_rdonly(const store *s);
/* 1 when a commit returns only after its data and meta pages were synced
 * to disk (LMDB's flags, as opened: no MDB_NOSYNC, MDB_NOMETASYNC or
 * MDB_MAPASYNC); 0 for STORE_NOSYNC and read-only stores. */
int store_is_durable(const store *s);

enum store_txn_flags { STORE_TXN_WRITE = 0, STORE_TXN_READ = 1 };

/* Begin a transaction (STORE_TXN_READ or STORE_TXN_WRITE; write is
 * refused on a read-only store with LG_EINVAL). Handles MDB_MAP_RESIZED and
 * stale reader slots internally. */
int store_txn_begin(store *s, int flags, store_txn **out);
/* Commit and free t. Returns the sticky error (after aborting) or the
 * commit's own result. LG_EFULL means the map was grown: run the whole
 * transaction again. */
int store_txn_commit(store_txn *t);
/* Abort and free t; NULL is a no-op. */
void store_txn_abort(store_txn *t);
/* The sticky error, 0 if none. */
int store_txn_error(const store_txn *t);
/* The transaction's id: for a read transaction, the id of the newest
 * commit it sees, so an unchanged id means unchanged data (inspection
 * reloads only when it grows). */
uint64_t store_txn_id(const store_txn *t);

/* Put/del: 0 or the sticky error. Keys are 1..511 bytes. del of a missing
 * key returns LG_ENOTFOUND without making it sticky. */
int store_put(store_txn *t, enum store_db db, const void *key, size_t klen,
	      const void *val, size_t vlen);
int store_del(store_txn *t, enum store_db db, const void *key, size_t klen);
/* Get: *val points into the map and is valid only until t ends.
 * LG_ENOTFOUND when absent (not sticky). */
int store_get(store_txn *t, enum store_db db, const void *key, size_t klen,
	      const void **val, size_t *vlen);
/* Number of entries in db. */
int store_count(store_txn *t, enum store_db db, uint64_t *out);

/*
 * Walk db in key order from the first key >= from (from NULL: the start).
 * cb returns 0 to go on, 1 to stop, negative to stop with that error (not
 * sticky). Pointers passed to cb are valid during the call only.
 */
typedef int (*store_iter_fn)(const void *key, size_t klen, const void *val,
			     size_t vlen, void *arg);
int store_iter(store_txn *t, enum store_db db, const void *from,
	       size_t fromlen, store_iter_fn cb, void *arg);
/* The same walk backwards: from the last key < before (before NULL: the
 * last key) down to the first, cb as for store_iter. */
int store_iter_back(store_txn *t, enum store_db db, const void *before,
		    size_t beforelen, store_iter_fn cb, void *arg);
/* The last entry of db (largest key); LG_ENOTFOUND if db is empty. */
int store_last(store_txn *t, enum store_db db, const void **key,
	       size_t *klen, const void **val, size_t *vlen);

/*
 * Run fn inside a write transaction and commit it, growing the map and
 * running fn again (from scratch, in a new transaction) while it hits
 * LG_EFULL. fn must therefore derive everything from the transaction and
 * arg, with no side effects outside them before commit. A non-zero return
 * from fn aborts and is returned.
 */
int store_update(store *s, int (*fn)(store_txn *t, void *arg), void *arg);

/* ---- checksummed blobs ------------------------------------------------ */

#define STORE_BLOB_MAX_RANK 4
#define STORE_BLOB_HDR 48

enum store_dtype { STORE_DT_BYTES = 1, STORE_DT_F32 = 2 };

struct store_blob_info {
	unsigned dtype;   /* enum store_dtype */
	unsigned rank;    /* 0..STORE_BLOB_MAX_RANK */
	uint32_t dims[STORE_BLOB_MAX_RANK];
	uint64_t nbytes;  /* payload bytes */
};

/*
 * Store payload under key with a header: magic, format version, dtype,
 * shape, payload length, CRC-32C of the payload and of the header. For
 * STORE_DT_F32 the payload is little-endian float32 and the product of dims
 * must match nbytes / 4. The put is sticky-error like store_put.
 */
int store_blob_put(store_txn *t, enum store_db db, const void *key,
		   size_t klen, const struct store_blob_info *info,
		   const void *payload);
/*
 * Read and verify the blob under key. On success *payload points into the
 * map (valid until t ends) and info describes it. A blob failing any check
 * is LG_ECORRUPT with err naming the database, the key (hex) and the check;
 * LG_ENOTFOUND when absent.
 */
int store_blob_get(store_txn *t, enum store_db db, const void *key,
		   size_t klen, struct store_blob_info *info,
		   const void **payload, char *err, size_t errlen);

/* ---- write batches ------------------------------------------------------ */

/*
 * A write batch: puts and deletes collected in memory, applied in order
 * inside one write transaction. The daemon keeps one per loop turn, and
 * the brain and the daemon's handlers both append to it, so a turn's
 * changes reach LMDB in one commit (one fsync). Because store_update()
 * may run a transaction again after growing the map, applying is
 * repeatable: the batch is not consumed; clear it after the commit.
 *
 * Appends copy key and value. Errors are sticky as in a transaction: the
 * first failed append (LG_EINVAL: bad db, a key outside 1..511 bytes, a
 * value of 4 GiB or more, a blob of a bad shape; LG_ENOMEM) makes every
 * later append a no-op returning it, and store_batch_apply returns it
 * without writing, so the commit turns into an abort. A zeroed batch is
 * empty and valid.
 */
typedef struct store_batch {
	lg_buf ops;     /* encoded ops (storage.c) */
	size_t count;   /* ops appended */
	int err;        /* sticky */
} store_batch;

int store_batch_put(store_batch *b, enum store_db db, const void *key,
		    size_t klen, const void *val, size_t vlen);
/* A delete of a key that is absent at apply time is not an error. */
int store_batch_del(store_batch *b, enum store_db db, const void *key,
		    size_t klen);
/* The checksummed blob store_blob_put would write, encoded now. */
int store_batch_blob(store_batch *b, enum store_db db, const void *key,
		     size_t klen, const struct store_blob_info *info,
		     const void *payload);
/* store_meta_put_u64's record. */
int store_batch_meta_u64(store_batch *b, const char *name, uint64_t v);
/* Apply every op to t, in order. The batch's sticky error, else t's. */
int store_batch_apply(const store_batch *b, store_txn *t);
/* Empty it (capacity kept) and clear its error; after a commit. */
void store_batch_clear(store_batch *b);
void store_batch_free(store_batch *b);

/* ---- meta helpers: string keys, be64 values --------------------------- */

int store_meta_put_u64(store_txn *t, const char *name, uint64_t v);
/* LG_ENOTFOUND when absent; LG_ECORRUPT when not 8 bytes. */
int store_meta_get_u64(store_txn *t, const char *name, uint64_t *v);

/* ---- keys ------------------------------------------------------------- */

static inline void store_key_u32(uint8_t k[4], uint32_t v)
{
	lg_put_be32(k, v);
}
static inline void store_key_u64(uint8_t k[8], uint64_t v)
{
	lg_put_be64(k, v);
}
static inline void store_key_u32x2(uint8_t k[8], uint32_t a, uint32_t b)
{
	lg_put_be32(k, a);
	lg_put_be32(k + 4, b);
}

#endif
