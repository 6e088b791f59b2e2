/*
 * storage/storage.c: LMDB behind the store_* API (see storage.h).
 *
 * The environment is opened with MDB_NOTLS so a read transaction is not tied
 * to a thread's slot, and MDB_NOSUBDIR is not used: the league directory
 * holds data.mdb, lock.mdb and our own league.lock.
 */
#include "storage/storage.h"

#include <errno.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MAP (64ull << 20)
#define DEFAULT_MAX_MAP (1ull << 40)
#define MAX_KEY 511

static const char *const db_names[STORE_DB__COUNT] = {
	[STORE_DB_META] = "meta",         [STORE_DB_PLAYERS] = "players",
	[STORE_DB_PARAMS] = "params",     [STORE_DB_PAYOFF] = "payoff",
	[STORE_DB_JOBS] = "jobs",         [STORE_DB_RESULTS] = "results",
	[STORE_DB_RATINGS] = "ratings",   [STORE_DB_SNAPSHOTS] = "snapshots",
	[STORE_DB_EVAL] = "eval",         [STORE_DB_LOG] = "log",
	[STORE_DB_SERIES] = "series",     [STORE_DB_TRAINER] = "trainer",
	[STORE_DB_SCRATCH] = "scratch",
};

struct store {
	MDB_env *env;
	MDB_dbi dbi[STORE_DB__COUNT];
	/* read-only: a database an older build never made reads as empty */
	uint8_t absent[STORE_DB__COUNT];
	unsigned flags;
	size_t max_map;
	int lock_fd;
	int grow_pending; /* a txn hit MAP_FULL: grow once it has ended */
	int active;       /* transactions open on this handle */
	char dir[512];
};

struct store_txn {
	store *s;
	MDB_txn *txn;
	int rdonly;
	int err; /* sticky */
};

const char *store_db_name(enum store_db db)
{
	return (unsigned)db < STORE_DB__COUNT ? db_names[db] : "?";
}

/* Translate an LMDB or errno code, logging LMDB's text for the record. */
static int xlate(int rc, const char *what)
{
	int out;

	switch (rc) {
	case MDB_SUCCESS: return 0;
	case MDB_NOTFOUND: return LG_ENOTFOUND;
	case MDB_MAP_FULL: out = LG_EFULL; break;
	case MDB_CORRUPTED:
	case MDB_PAGE_NOTFOUND:
	case MDB_INVALID: out = LG_ECORRUPT; break;
	case MDB_VERSION_MISMATCH: out = LG_EVERSION; break;
	case MDB_READERS_FULL: out = LG_EBUSY; break;
	case ENOMEM: out = LG_ENOMEM; break;
	case ENOSPC:
	case EDQUOT: out = LG_ENOSPACE; break;
	case EACCES:
	case EIO:
	case EROFS: out = LG_EIO; break;
	default: out = LG_ESTORAGE; break;
	}
	if (out != LG_EFULL)
		LG_WARN("storage: %s: %s", what, mdb_strerror(rc));
	return out;
}

static int valid_db(enum store_db db)
{
	return (unsigned)db < STORE_DB__COUNT;
}

static int mkdir_p(const char *dir)
{
	char tmp[512];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof tmp)
		return -1;
	memcpy(tmp, dir, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int store_lock_dir(const char *dir, int *fdp, char *err, size_t errlen)
{
	char path[600];
	char pid[32];
	int fd;

	*fdp = -1;
	snprintf(path, sizeof path, "%s/league.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		lg_errf(err, errlen, "%s: cannot open: %s", path,
			strerror(errno));
		return LG_EIO;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
		pid[n > 0 ? n : 0] = 0;
		pid[strcspn(pid, "\n")] = 0;
		lg_errf(err, errlen, "%s: in use by another writer (pid %s)",
			dir, *pid ? pid : "?");
		close(fd);
		return LG_EBUSY;
	}
	snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 ||
	    pwrite(fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid))
		LG_WARN("storage: %s: cannot record pid", path);
	*fdp = fd;
	return 0;
}

void store_unlock_dir(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

/*
 * Keep data.mdb at least as long as the map. LMDB does not write a page
 * it allocated and freed in the same transaction (a loose page), so the
 * file can end before the last page a meta names; the length check every
 * open makes (metacheck.c) would take that for damage. A file as long as
 * the map (sparse: the hole costs no disk) is always long enough, and is
 * extended before any transaction can use the new pages. 0 or LG_EIO.
 */
static int extend_file(store *s, char *err, size_t errlen)
{
	size_t map = store_map_size(s);
	struct stat sb;
	int fd;

	if (mdb_env_get_fd(s->env, &fd) || fstat(fd, &sb) < 0) {
		lg_errf(err, errlen, "%s/data.mdb: cannot stat: %s", s->dir,
			strerror(errno));
		return LG_EIO;
	}
	if ((uint64_t)sb.st_size >= map)
		return 0;
	if (ftruncate(fd, (off_t)map) < 0) {
		lg_errf(err, errlen, "%s/data.mdb: cannot extend to %zu "
			"bytes: %s", s->dir, map, strerror(errno));
		return errno == ENOSPC ? LG_ENOSPACE : LG_EIO;
	}
	return 0;
}

static int open_dbs(store *s, char *err, size_t errlen)
{
	store_txn *t;
	uint64_t ver;
	int rc, rdonly = s->flags & STORE_RDONLY;

	if ((rc = store_txn_begin(s, rdonly ? STORE_TXN_READ : STORE_TXN_WRITE,
				  &t))) {
		lg_errf(err, errlen, "%s: cannot begin transaction: %s", s->dir,
			lg_strerror(rc));
		return rc;
	}
	for (int i = 0; i < STORE_DB__COUNT; i++) {
		int mrc = mdb_dbi_open(t->txn, db_names[i],
				       rdonly ? 0 : MDB_CREATE, &s->dbi[i]);
		if (mrc == MDB_NOTFOUND && rdonly && i != STORE_DB_META) {
			s->absent[i] = 1;
			continue;
		}
		if (mrc) {
			rc = mrc == MDB_NOTFOUND ? LG_ENOTFOUND
						 : xlate(mrc, "dbi_open");
			lg_errf(err, errlen, "%s: database '%s': %s", s->dir,
				db_names[i], mdb_strerror(mrc));
			store_txn_abort(t);
			return rc;
		}
	}
	rc = store_meta_get_u64(t, "schema", &ver);
	if (rc == LG_ENOTFOUND && !rdonly) {
		rc = store_meta_put_u64(t, "schema", STORE_SCHEMA_VERSION);
	} else if (rc == LG_ENOTFOUND) {
		lg_errf(err, errlen, "%s: not a league directory (no schema)",
			s->dir);
	} else if (!rc && ver != STORE_SCHEMA_VERSION) {
		lg_errf(err, errlen, "%s: schema version %llu, this build "
			"reads %u", s->dir, (unsigned long long)ver,
			STORE_SCHEMA_VERSION);
		rc = LG_EVERSION;
	} else if (rc) {
		lg_errf(err, errlen, "%s: meta 'schema': %s", s->dir,
			lg_strerror(rc));
	}
	if (rc) {
		store_txn_abort(t);
		return rc;
	}
	rc = store_txn_commit(t);
	if (rc)
		lg_errf(err, errlen, "%s: cannot commit: %s", s->dir,
			lg_strerror(rc));
	return rc;
}

int store_open(store **out, const char *dir, const struct store_opts *opts,
	       char *err, size_t errlen)
{
	struct store_opts o = opts ? *opts : (struct store_opts){ 0 };
	unsigned envflags = MDB_NOTLS;
	store *s;
	int rc, mrc;

	*out = NULL;
	if (!dir || !*dir || strlen(dir) >= sizeof s->dir) {
		lg_errf(err, errlen, "league directory name empty or too long");
		return LG_EINVAL;
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return LG_ENOMEM;
	s->lock_fd = -1;
	s->flags = o.flags;
	s->max_map = o.max_map ? o.max_map : DEFAULT_MAX_MAP;
	snprintf(s->dir, sizeof s->dir, "%s", dir);

	if (o.flags & STORE_RDONLY) {
		char path[600];
		snprintf(path, sizeof path, "%s/data.mdb", dir);
		if (access(path, R_OK) < 0) {
			lg_errf(err, errlen, "%s: not a league directory (%s)",
				dir, strerror(errno));
			rc = LG_ENOTFOUND;
			goto fail;
		}
		if ((rc = store_file_check(dir, err, errlen)))
			goto fail;
		envflags |= MDB_RDONLY;
	} else {
		if (mkdir_p(dir) < 0) {
			lg_errf(err, errlen, "%s: cannot create: %s", dir,
				strerror(errno));
			rc = LG_EIO;
			goto fail;
		}
		if ((rc = store_lock_dir(dir, &s->lock_fd, err, errlen)))
			goto fail;
		rc = store_file_check(dir, err, errlen);
		if (rc && rc != LG_ENOTFOUND)
			goto fail;
		if (o.flags & STORE_NOSYNC)
			envflags |= MDB_NOSYNC;
	}
	if ((mrc = mdb_env_create(&s->env)) ||
	    (mrc = mdb_env_set_maxdbs(s->env, 32)) ||
	    (mrc = mdb_env_set_maxreaders(s->env, 256)) ||
	    (mrc = mdb_env_set_mapsize(s->env, o.initial_map ? o.initial_map
							     : DEFAULT_MAP)) ||
	    (mrc = mdb_env_open(s->env, dir, envflags, 0644))) {
		lg_errf(err, errlen, "%s: cannot open LMDB environment: %s",
			dir, mdb_strerror(mrc));
		rc = mrc == MDB_VERSION_MISMATCH ? LG_EVERSION
		     : mrc == MDB_INVALID ? LG_ECORRUPT : LG_ESTORAGE;
		goto fail;
	}
	if (!(o.flags & STORE_RDONLY)) {
		int dead = 0;
		if ((rc = extend_file(s, err, errlen)))
			goto fail;
		mdb_reader_check(s->env, &dead);
		if (dead)
			LG_INFO("storage: %s: cleared %d stale reader slot(s)",
				dir, dead);
	}
	if ((rc = open_dbs(s, err, errlen)))
		goto fail;
	*out = s;
	return 0;
fail:
	store_close(s);
	return rc;
}

void store_close(store *s)
{
	if (!s)
		return;
	if (s->env)
		mdb_env_close(s->env);
	if (s->lock_fd >= 0)
		close(s->lock_fd); /* releases the flock */
	free(s);
}

int store_reader_check(store *s, int *dead)
{
	int mrc = mdb_reader_check(s->env, dead);

	return mrc ? xlate(mrc, "reader_check") : 0;
}

size_t store_map_size(const store *s)
{
	MDB_envinfo info;

	mdb_env_info(s->env, &info);
	return info.me_mapsize;
}

int store_is_rdonly(const store *s)
{
	return !!(s->flags & STORE_RDONLY);
}

int store_is_durable(const store *s)
{
	unsigned int f = 0;

	if (store_is_rdonly(s) || mdb_env_get_flags(s->env, &f))
		return 0;
	return !(f & (MDB_NOSYNC | MDB_NOMETASYNC | MDB_MAPASYNC));
}

/* Double the map after a MAP_FULL, once no transaction is active. */
static void maybe_grow(store *s)
{
	char err[700];
	size_t cur, next;
	int mrc;

	if (!s->grow_pending || s->active)
		return;
	s->grow_pending = 0;
	cur = store_map_size(s);
	next = cur * 2 > s->max_map ? s->max_map : cur * 2;
	if (next <= cur) {
		LG_WARN("storage: %s: map at its cap of %zu bytes", s->dir,
			s->max_map);
		return;
	}
	mrc = mdb_env_set_mapsize(s->env, next);
	if (mrc) {
		LG_WARN("storage: %s: cannot grow map to %zu: %s", s->dir,
			next, mdb_strerror(mrc));
		return;
	}
	if (extend_file(s, err, sizeof err)) {
		/* the new pages would outrun the file: keep the old map */
		LG_WARN("storage: %s", err);
		mdb_env_set_mapsize(s->env, cur);
		return;
	}
	LG_DEBUG("storage: %s: map grown to %zu bytes", s->dir, next);
}

int store_txn_begin(store *s, int flags, store_txn **out)
{
	int rdonly = flags & STORE_TXN_READ;
	store_txn *t;
	int mrc = 0;

	*out = NULL;
	if (!rdonly && (s->flags & STORE_RDONLY))
		return LG_EINVAL;
	t = calloc(1, sizeof *t);
	if (!t)
		return LG_ENOMEM;
	for (int attempt = 0; attempt < 4; attempt++) {
		mrc = mdb_txn_begin(s->env, NULL, rdonly ? MDB_RDONLY : 0,
				    &t->txn);
		if (mrc == MDB_MAP_RESIZED && !s->active) {
			/* Another process grew the map: adopt its size. */
			mdb_env_set_mapsize(s->env, 0);
			continue;
		}
		if (mrc == MDB_READERS_FULL) {
			int dead = 0;
			mdb_reader_check(s->env, &dead);
			if (dead)
				continue;
		}
		break;
	}
	if (mrc) {
		free(t);
		return xlate(mrc, "txn_begin");
	}
	t->s = s;
	t->rdonly = rdonly;
	s->active++;
	*out = t;
	return 0;
}

static void txn_end(store_txn *t)
{
	store *s = t->s;

	s->active--;
	free(t);
	maybe_grow(s);
}

/* LMDB reports a short write as EIO, and a file system that fills up
 * mid-write gives short writes: an EIO on a file system with less than
 * STORE_LOW_SPACE bytes left is taken for what it is, a full disk. */
#define STORE_LOW_SPACE (1u << 20)

static int full_disk(const store *s, int rc)
{
	struct statvfs v;

	if (rc != LG_EIO || statvfs(s->dir, &v))
		return rc;
	return (uint64_t)v.f_bavail * v.f_frsize < STORE_LOW_SPACE
		       ? LG_ENOSPACE
		       : rc;
}

int store_txn_commit(store_txn *t)
{
	int rc = t->err, mrc;

	if (rc) {
		mdb_txn_abort(t->txn);
	} else if ((mrc = mdb_txn_commit(t->txn))) {
		rc = full_disk(t->s, xlate(mrc, "commit"));
		if (rc == LG_EFULL)
			t->s->grow_pending = 1;
	}
	txn_end(t);
	return rc;
}

void store_txn_abort(store_txn *t)
{
	if (!t)
		return;
	mdb_txn_abort(t->txn);
	txn_end(t);
}

int store_txn_error(const store_txn *t)
{
	return t->err;
}

uint64_t store_txn_id(const store_txn *t)
{
	return (uint64_t)mdb_txn_id(t->txn);
}

static int sticky(store_txn *t, int mrc, const char *what)
{
	t->err = xlate(mrc, what);
	if (t->err == LG_EFULL)
		t->s->grow_pending = 1;
	return t->err;
}

/* A write of a klen-byte key into db may go ahead in t: t's sticky error
 * if it has one, else LG_EINVAL (made sticky) for a read-only
 * transaction, an unknown db or a key empty or longer than MAX_KEY. */
static int write_check(store_txn *t, enum store_db db, size_t klen)
{
	if (t->err)
		return t->err;
	if (t->rdonly || !valid_db(db) || klen == 0 || klen > MAX_KEY)
		return t->err = LG_EINVAL;
	return 0;
}

int store_put(store_txn *t, enum store_db db, const void *key, size_t klen,
	      const void *val, size_t vlen)
{
	MDB_val k = { klen, (void *)(uintptr_t)key };
	MDB_val v = { vlen, (void *)(uintptr_t)val };
	int mrc;

	if ((mrc = write_check(t, db, klen)))
		return mrc;
	mrc = mdb_put(t->txn, t->s->dbi[db], &k, &v, 0);
	return mrc ? sticky(t, mrc, "put") : 0;
}

int store_del(store_txn *t, enum store_db db, const void *key, size_t klen)
{
	MDB_val k = { klen, (void *)(uintptr_t)key };
	int mrc;

	if ((mrc = write_check(t, db, klen)))
		return mrc;
	mrc = mdb_del(t->txn, t->s->dbi[db], &k, NULL);
	if (mrc == MDB_NOTFOUND)
		return LG_ENOTFOUND;
	return mrc ? sticky(t, mrc, "del") : 0;
}

/* A read of db may go ahead in t: LG_EINVAL for an unknown db; 1 when
 * this store lacks db (a store from before db, opened read-only: each
 * read answers as for an empty db); else 0. */
static int read_check(const store_txn *t, enum store_db db)
{
	if (!valid_db(db))
		return LG_EINVAL;
	return t->s->absent[db] ? 1 : 0;
}

int store_get(store_txn *t, enum store_db db, const void *key, size_t klen,
	      const void **val, size_t *vlen)
{
	MDB_val k = { klen, (void *)(uintptr_t)key }, v;
	int mrc, rc;

	if (klen == 0 || klen > MAX_KEY || (rc = read_check(t, db)) < 0)
		return LG_EINVAL;
	if (rc)
		return LG_ENOTFOUND;
	mrc = mdb_get(t->txn, t->s->dbi[db], &k, &v);
	if (mrc)
		return xlate(mrc, "get");
	*val = v.mv_data;
	*vlen = v.mv_size;
	return 0;
}

int store_count(store_txn *t, enum store_db db, uint64_t *out)
{
	MDB_stat st;
	int mrc, rc;

	if ((rc = read_check(t, db)) < 0)
		return rc;
	*out = 0;
	if (rc)
		return 0;
	if ((mrc = mdb_stat(t->txn, t->s->dbi[db], &st)))
		return xlate(mrc, "stat");
	*out = st.ms_entries;
	return 0;
}

/* Walk db from the cursor's first position (from NULL: the first key,
 * or back: the last; else the first key >= from, or back: the last key
 * < from) in key order or back, cb as store_iter's. */
static int walk(store_txn *t, enum store_db db, const void *from,
		size_t fromlen, int back, store_iter_fn cb, void *arg)
{
	MDB_cursor *c;
	MDB_val k = { fromlen, (void *)(uintptr_t)from }, v;
	MDB_cursor_op step = back ? MDB_PREV : MDB_NEXT;
	int mrc, rc = 0;

	if ((rc = read_check(t, db)))
		return rc < 0 ? rc : 0;
	if ((mrc = mdb_cursor_open(t->txn, t->s->dbi[db], &c)))
		return xlate(mrc, "cursor_open");
	mrc = from ? mdb_cursor_get(c, &k, &v, MDB_SET_RANGE) : MDB_NOTFOUND;
	if (!from && !back)
		mrc = mdb_cursor_get(c, &k, &v, MDB_FIRST);
	else if (back && mrc == 0) /* one below the first key >= from */
		mrc = mdb_cursor_get(c, &k, &v, MDB_PREV);
	else if (back && mrc == MDB_NOTFOUND) /* every key is below */
		mrc = mdb_cursor_get(c, &k, &v, MDB_LAST);
	while (mrc == 0) {
		rc = cb(k.mv_data, k.mv_size, v.mv_data, v.mv_size, arg);
		if (rc)
			break;
		mrc = mdb_cursor_get(c, &k, &v, step);
	}
	mdb_cursor_close(c);
	if (rc)
		return rc < 0 ? rc : 0;
	return mrc == MDB_NOTFOUND ? 0 : xlate(mrc, "cursor_get");
}

int store_iter(store_txn *t, enum store_db db, const void *from,
	       size_t fromlen, store_iter_fn cb, void *arg)
{
	return walk(t, db, from, fromlen, 0, cb, arg);
}

int store_iter_back(store_txn *t, enum store_db db, const void *before,
		    size_t beforelen, store_iter_fn cb, void *arg)
{
	return walk(t, db, before, beforelen, 1, cb, arg);
}

int store_last(store_txn *t, enum store_db db, const void **key,
	       size_t *klen, const void **val, size_t *vlen)
{
	MDB_cursor *c;
	MDB_val k, v;
	int mrc, rc;

	if ((rc = read_check(t, db)))
		return rc < 0 ? rc : LG_ENOTFOUND;
	if ((mrc = mdb_cursor_open(t->txn, t->s->dbi[db], &c)))
		return xlate(mrc, "cursor_open");
	mrc = mdb_cursor_get(c, &k, &v, MDB_LAST);
	mdb_cursor_close(c);
	if (mrc)
		return xlate(mrc, "cursor_last");
	*key = k.mv_data;
	*klen = k.mv_size;
	*val = v.mv_data;
	*vlen = v.mv_size;
	return 0;
}

int store_update(store *s, int (*fn)(store_txn *t, void *arg), void *arg)
{
	/* Each retry doubles the map; 40 doublings cover any cap. */
	for (int attempt = 0; attempt < 40; attempt++) {
		store_txn *t;
		int rc = store_txn_begin(s, STORE_TXN_WRITE, &t);
		if (rc)
			return rc;
		rc = fn(t, arg);
		if (rc == LG_EFULL || (!rc && t->err == LG_EFULL)) {
			store_txn_abort(t);
			if (store_map_size(s) >= s->max_map)
				return LG_EFULL;
			continue;
		}
		if (rc) {
			store_txn_abort(t);
			return rc;
		}
		rc = store_txn_commit(t);
		if (rc != LG_EFULL)
			return rc;
		if (store_map_size(s) >= s->max_map)
			return LG_EFULL;
	}
	return LG_EFULL;
}

/* ---- blobs ------------------------------------------------------------ */

#define BLOB_MAGIC 0x4c42474cu /* "LGBL" little-endian */
#define BLOB_VERSION 1u

static void key_hex(char *out, size_t len, const void *key, size_t klen)
{
	const uint8_t *k = key;
	size_t o = 0;

	out[0] = 0;
	for (size_t i = 0; i < klen && o + 3 < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%02x", k[i]);
}

static int blob_shape_ok(const struct store_blob_info *info)
{
	uint64_t n = 1;

	if (info->rank > STORE_BLOB_MAX_RANK)
		return 0;
	if (info->dtype != STORE_DT_BYTES && info->dtype != STORE_DT_F32)
		return 0;
	for (unsigned i = 0; i < info->rank; i++) {
		if (info->dims[i] && n > UINT64_MAX / info->dims[i])
			return 0;
		n *= info->dims[i];
	}
	if (info->dtype == STORE_DT_F32)
		return info->rank ? n * 4 == info->nbytes : info->nbytes % 4 == 0;
	return info->rank == 0 || n == info->nbytes;
}

/* The header and payload of a blob into out[STORE_BLOB_HDR + nbytes]. */
static void blob_encode(uint8_t *out, const struct store_blob_info *info,
			const void *payload)
{
	memset(out, 0, STORE_BLOB_HDR);
	lg_put_le32(out + 0, BLOB_MAGIC);
	out[4] = BLOB_VERSION & 0xff;
	out[5] = BLOB_VERSION >> 8;
	out[6] = (uint8_t)info->dtype;
	out[7] = 0;
	lg_put_le32(out + 8, info->rank);
	for (unsigned i = 0; i < STORE_BLOB_MAX_RANK; i++)
		lg_put_le32(out + 12 + 4 * i,
			    i < info->rank ? info->dims[i] : 0);
	lg_put_le64(out + 32, info->nbytes);
	lg_put_le32(out + 40, lg_crc32c(0, payload, info->nbytes));
	lg_put_le32(out + 44, lg_crc32c(0, out, 44));
	if (info->nbytes)
		memcpy(out + STORE_BLOB_HDR, payload, info->nbytes);
}

int store_blob_put(store_txn *t, enum store_db db, const void *key,
		   size_t klen, const struct store_blob_info *info,
		   const void *payload)
{
	uint8_t *buf;
	int rc;

	if (t->err)
		return t->err;
	if (!blob_shape_ok(info) || info->nbytes > SIZE_MAX - STORE_BLOB_HDR)
		return t->err = LG_EINVAL;
	buf = malloc(STORE_BLOB_HDR + info->nbytes);
	if (!buf)
		return t->err = LG_ENOMEM;
	blob_encode(buf, info, payload);
	rc = store_put(t, db, key, klen, buf, STORE_BLOB_HDR + info->nbytes);
	free(buf);
	return rc;
}

int store_blob_get(store_txn *t, enum store_db db, const void *key,
		   size_t klen, struct store_blob_info *info,
		   const void **payload, char *err, size_t errlen)
{
	const uint8_t *b;
	const void *v;
	size_t vlen;
	char hex[80];
	const char *why = NULL;
	int rc;

	if ((rc = store_get(t, db, key, klen, &v, &vlen)))
		return rc;
	b = v;
	key_hex(hex, sizeof hex, key, klen);
	if (vlen < STORE_BLOB_HDR)
		why = "shorter than the blob header";
	else if (lg_get_le32(b) != BLOB_MAGIC)
		why = "bad magic";
	else if (lg_crc32c(0, b, 44) != lg_get_le32(b + 44))
		why = "header checksum mismatch";
	else if ((unsigned)(b[4] | b[5] << 8) != BLOB_VERSION)
		why = "unknown blob format version";
	if (!why) {
		info->dtype = b[6];
		info->rank = lg_get_le32(b + 8);
		for (unsigned i = 0; i < STORE_BLOB_MAX_RANK; i++)
			info->dims[i] = lg_get_le32(b + 12 + 4 * i);
		info->nbytes = lg_get_le64(b + 32);
		if (info->nbytes != vlen - STORE_BLOB_HDR)
			why = "payload length does not match the header";
		else if (!blob_shape_ok(info))
			why = "shape does not match the payload length";
		else if (lg_crc32c(0, b + STORE_BLOB_HDR, info->nbytes) !=
			 lg_get_le32(b + 40))
			why = "payload checksum mismatch";
	}
	if (why) {
		lg_errf(err, errlen, "%s[%s]: corrupt blob: %s", db_names[db],
			hex, why);
		return LG_ECORRUPT;
	}
	*payload = b + STORE_BLOB_HDR;
	return 0;
}

/* ---- meta ------------------------------------------------------------- */

int store_meta_put_u64(store_txn *t, const char *name, uint64_t v)
{
	uint8_t b[8];

	lg_put_be64(b, v);
	return store_put(t, STORE_DB_META, name, strlen(name), b, 8);
}

int store_meta_get_u64(store_txn *t, const char *name, uint64_t *v)
{
	const void *p = NULL;
	size_t n = 0;
	int rc = store_get(t, STORE_DB_META, name, strlen(name), &p, &n);

	if (rc)
		return rc;
	if (n != 8)
		return LG_ECORRUPT;
	*v = lg_get_be64(p);
	return 0;
}

/* ---- write batches ---------------------------------------------------- */

/*
 * An op in the buffer: db (1 byte), key length (2, le), value length (4,
 * le; UINT32_MAX for a delete), key, value. Values are capped below 4 GiB
 * by that field, far above any frame the daemon accepts.
 */
#define OP_HDR 7
#define OP_DEL UINT32_MAX

/* Reserve an op of klen + vlen bytes and return where its value goes. */
static uint8_t *batch_op(store_batch *b, enum store_db db, const void *key,
			 size_t klen, size_t vlen, int del)
{
	uint8_t *p;
	int rc;

	if (b->err)
		return NULL;
	if (!valid_db(db) || klen == 0 || klen > MAX_KEY ||
	    vlen >= OP_DEL) {
		b->err = LG_EINVAL;
		return NULL;
	}
	if ((rc = lg_buf_reserve(&b->ops, OP_HDR + klen + vlen))) {
		b->err = rc;
		return NULL;
	}
	p = b->ops.data + b->ops.len;
	p[0] = (uint8_t)db;
	p[1] = (uint8_t)(klen & 0xff);
	p[2] = (uint8_t)(klen >> 8);
	lg_put_le32(p + 3, del ? OP_DEL : (uint32_t)vlen);
	memcpy(p + OP_HDR, key, klen);
	b->ops.len += OP_HDR + klen + vlen;
	b->count++;
	return p + OP_HDR + klen;
}

int store_batch_put(store_batch *b, enum store_db db, const void *key,
		    size_t klen, const void *val, size_t vlen)
{
	uint8_t *v = batch_op(b, db, key, klen, vlen, 0);

	if (!v)
		return b->err;
	if (vlen)
		memcpy(v, val, vlen);
	return 0;
}

int store_batch_del(store_batch *b, enum store_db db, const void *key,
		    size_t klen)
{
	return batch_op(b, db, key, klen, 0, 1) ? 0 : b->err;
}

int store_batch_blob(store_batch *b, enum store_db db, const void *key,
		     size_t klen, const struct store_blob_info *info,
		     const void *payload)
{
	uint8_t *v;

	if (b->err)
		return b->err;
	if (!blob_shape_ok(info) ||
	    info->nbytes >= (uint64_t)OP_DEL - STORE_BLOB_HDR)
		return b->err = LG_EINVAL;
	v = batch_op(b, db, key, klen, STORE_BLOB_HDR + info->nbytes, 0);
	if (!v)
		return b->err;
	blob_encode(v, info, payload);
	return 0;
}

int store_batch_meta_u64(store_batch *b, const char *name, uint64_t v)
{
	uint8_t val[8];

	lg_put_be64(val, v);
	return store_batch_put(b, STORE_DB_META, name, strlen(name), val, 8);
}

int store_batch_apply(const store_batch *b, store_txn *t)
{
	const uint8_t *p = b->ops.data, *end = b->ops.data + b->ops.len;

	if (b->err)
		return b->err;
	while (p < end) {
		enum store_db db = (enum store_db)p[0];
		size_t klen = (size_t)p[1] | (size_t)p[2] << 8;
		uint32_t vlen = lg_get_le32(p + 3);
		const uint8_t *key = p + OP_HDR;
		int rc;

		if (vlen == OP_DEL) {
			rc = store_del(t, db, key, klen);
			p = key + klen;
		} else {
			rc = store_put(t, db, key, klen, key + klen, vlen);
			p = key + klen + vlen;
		}
		if (rc && rc != LG_ENOTFOUND)
			return rc;
	}
	return store_txn_error(t);
}

void store_batch_clear(store_batch *b)
{
	b->ops.len = 0;
	b->count = 0;
	b->err = 0;
}

void store_batch_free(store_batch *b)
{
	lg_buf_free(&b->ops);
	b->count = 0;
	b->err = 0;
}
