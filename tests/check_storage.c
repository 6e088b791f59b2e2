/* tests/check_storage.c: the LMDB wrapper, map growth, concurrent read-only
 * opens, blob checksums, the writer lock, and the SIGKILL crash test. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lmdb.h>

#include "storage/storage.h"
#include "tests/testutil.h"

static char dir[128];

static void setup(void)
{
	tu_mkdtemp(dir, sizeof dir);
	lg_log_set_level(LG_LOG_ERROR);
}

static void teardown(void)
{
	tu_rmrf(dir);
}

static store *open_rw(size_t initial)
{
	struct store_opts o = { .initial_map = initial };
	char err[256];
	store *s;
	int rc = store_open(&s, dir, &o, err, sizeof err);

	ck_assert_msg(rc == 0, "open: %s", err);
	return s;
}

START_TEST(put_get_iterate_reopen)
{
	store *s = open_rw(0);
	store_txn *t;
	uint8_t k[8];
	const void *v;
	size_t vl;

	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_WRITE, &t), 0);
	/* Insert out of order; big-endian keys iterate numerically. */
	uint64_t ids[] = { 300, 2, 70000, 1, 256 };
	for (size_t i = 0; i < 5; i++) {
		store_key_u64(k, ids[i]);
		ck_assert_int_eq(store_put(t, STORE_DB_JOBS, k, 8, &ids[i], 8), 0);
	}
	ck_assert_int_eq(store_txn_commit(t), 0);
	/* a read transaction's id names the newest commit it sees: the same
	 * until a write commits, then larger (inspection reloads on it) */
	uint64_t id0, id1;
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	id0 = store_txn_id(t);
	store_txn_abort(t);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	ck_assert_uint_eq(store_txn_id(t), id0);
	store_txn_abort(t);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_WRITE, &t), 0);
	ck_assert_int_eq(store_put(t, STORE_DB_SCRATCH, "x", 1, "y", 1), 0);
	ck_assert_int_eq(store_txn_commit(t), 0);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	id1 = store_txn_id(t);
	store_txn_abort(t);
	ck_assert_uint_gt(id1, id0);
	store_close(s);

	s = open_rw(0);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	uint64_t n;
	ck_assert_int_eq(store_count(t, STORE_DB_JOBS, &n), 0);
	ck_assert_uint_eq(n, 5);
	store_key_u64(k, 256);
	ck_assert_int_eq(store_get(t, STORE_DB_JOBS, k, 8, &v, &vl), 0);
	ck_assert_uint_eq(vl, 8);
	ck_assert_uint_eq(*(const uint64_t *)v, 256);
	store_key_u64(k, 3);
	ck_assert_int_eq(store_get(t, STORE_DB_JOBS, k, 8, &v, &vl),
			 LG_ENOTFOUND);
	/* Not sticky: a read miss is not a failure of the txn. */
	ck_assert_int_eq(store_txn_error(t), 0);
	store_txn_abort(t);
	store_close(s);
}
END_TEST

struct collect {
	uint64_t keys[16];
	int n;
	int stop_after;
};

static int collect_cb(const void *key, size_t klen, const void *val,
		      size_t vlen, void *arg)
{
	struct collect *c = arg;

	ck_assert_uint_eq(klen, 8);
	c->keys[c->n++] = lg_get_be64(key);
	return c->n == c->stop_after;
}

START_TEST(iterate_in_key_order)
{
	store *s = open_rw(0);
	store_txn *t;
	uint8_t k[8];
	uint64_t ids[] = { 300, 2, 70000, 1, 256 }, want[] = { 1, 2, 256, 300,
							       70000 };
	struct collect c = { .stop_after = 100 };

	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_WRITE, &t), 0);
	for (size_t i = 0; i < 5; i++) {
		store_key_u64(k, ids[i]);
		store_put(t, STORE_DB_JOBS, k, 8, "x", 1);
	}
	ck_assert_int_eq(store_iter(t, STORE_DB_JOBS, NULL, 0, collect_cb, &c), 0);
	ck_assert_int_eq(c.n, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(c.keys[i], want[i]);
	/* From a key, and stopping early. */
	memset(&c, 0, sizeof c);
	c.stop_after = 2;
	store_key_u64(k, 3);
	ck_assert_int_eq(store_iter(t, STORE_DB_JOBS, k, 8, collect_cb, &c), 0);
	ck_assert_int_eq(c.n, 2);
	ck_assert_uint_eq(c.keys[0], 256);
	ck_assert_uint_eq(c.keys[1], 300);
	const void *lk, *lv;
	size_t lkl, lvl;
	ck_assert_int_eq(store_last(t, STORE_DB_JOBS, &lk, &lkl, &lv, &lvl), 0);
	ck_assert_uint_eq(lg_get_be64(lk), 70000);
	ck_assert_int_eq(store_last(t, STORE_DB_EVAL, &lk, &lkl, &lv, &lvl),
			 LG_ENOTFOUND);
	/* Backwards: all, from below a key (present or not), past the end,
	 * below the first, and an empty db. */
	uint64_t back[][6] = { { 0, 5, 70000, 300, 256, 2 },
			       { 300, 3, 256, 2, 1 },
			       { 257, 3, 256, 2, 1 },
			       { 90000, 5, 70000, 300, 256, 2 },
			       { 1, 0 } };
	for (size_t q = 0; q < 5; q++) {
		memset(&c, 0, sizeof c);
		c.stop_after = 100;
		store_key_u64(k, back[q][0]);
		ck_assert_int_eq(store_iter_back(t, STORE_DB_JOBS,
						 back[q][0] ? k : NULL, 8,
						 collect_cb, &c), 0);
		ck_assert_uint_eq(c.n, q == 0 || q == 3 ? 5 : back[q][1]);
		for (uint32_t i = 0; i < back[q][1] && i < 4; i++)
			ck_assert_uint_eq(c.keys[i], back[q][2 + i]);
	}
	memset(&c, 0, sizeof c);
	c.stop_after = 1;
	ck_assert_int_eq(store_iter_back(t, STORE_DB_JOBS, NULL, 0, collect_cb,
					 &c), 0);
	ck_assert_int_eq(c.n, 1);
	ck_assert_int_eq(store_iter_back(t, STORE_DB_EVAL, NULL, 0, collect_cb,
					 &c), 0);
	ck_assert_int_eq(c.n, 1);
	ck_assert_int_eq(store_txn_commit(t), 0);
	store_close(s);
}
END_TEST

START_TEST(sticky_error_aborts_commit)
{
	store *s = open_rw(0);
	store_txn *t;
	const void *v;
	size_t vl;

	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_WRITE, &t), 0);
	ck_assert_int_eq(store_put(t, STORE_DB_META, "a", 1, "1", 1), 0);
	/* An empty key is refused and the error sticks. */
	ck_assert_int_eq(store_put(t, STORE_DB_META, "", 0, "2", 1), LG_EINVAL);
	ck_assert_int_eq(store_put(t, STORE_DB_META, "b", 1, "3", 1), LG_EINVAL);
	ck_assert_int_eq(store_txn_error(t), LG_EINVAL);
	ck_assert_int_eq(store_txn_commit(t), LG_EINVAL);
	/* Nothing of the failed transaction was stored. */
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	ck_assert_int_eq(store_get(t, STORE_DB_META, "a", 1, &v, &vl),
			 LG_ENOTFOUND);
	store_txn_abort(t);
	store_close(s);
}
END_TEST

struct fill {
	uint64_t first, count;
	size_t vlen;
};

static int fill_fn(store_txn *t, void *arg)
{
	struct fill *f = arg;
	uint8_t k[8], *v = malloc(f->vlen);

	ck_assert_ptr_nonnull(v);
	for (uint64_t i = f->first; i < f->first + f->count; i++) {
		store_key_u64(k, i);
		memset(v, (int)(i & 0xff), f->vlen);
		if (store_put(t, STORE_DB_SCRATCH, k, 8, v, f->vlen))
			break;
	}
	free(v);
	return 0; /* the sticky error speaks for the txn */
}

START_TEST(map_grows_when_full)
{
	/* A 64 KiB map cannot hold 4 MiB; store_update must grow it, both
	 * across transactions and within one large transaction. */
	store *s = open_rw(64 << 10);
	size_t before = store_map_size(s);
	struct fill f = { 0, 64, 1024 };

	for (int round = 0; round < 32; round++) {
		f.first = (uint64_t)round * 64;
		ck_assert_int_eq(store_update(s, fill_fn, &f), 0);
	}
	f.first = 5000;
	f.count = 1024; /* 4 MiB in one transaction */
	f.vlen = 4096;
	ck_assert_int_eq(store_update(s, fill_fn, &f), 0);
	ck_assert_uint_gt(store_map_size(s), before);
	store_close(s);

	s = open_rw(64 << 10);
	store_txn *t;
	const void *v;
	size_t vl;
	uint8_t k[8];
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	for (uint64_t i = 0; i < 32 * 64; i += 97) {
		store_key_u64(k, i);
		ck_assert_int_eq(store_get(t, STORE_DB_SCRATCH, k, 8, &v, &vl), 0);
		ck_assert_uint_eq(vl, 1024);
		ck_assert_uint_eq(((const uint8_t *)v)[vl - 1], i & 0xff);
	}
	store_key_u64(k, 5000 + 1023);
	ck_assert_int_eq(store_get(t, STORE_DB_SCRATCH, k, 8, &v, &vl), 0);
	ck_assert_uint_eq(vl, 4096);
	store_txn_abort(t);
	store_close(s);
}
END_TEST

START_TEST(map_cap_is_respected)
{
	struct store_opts o = { .initial_map = 64 << 10, .max_map = 256 << 10 };
	char err[256];
	store *s;
	struct fill f = { 0, 1024, 4096 };

	ck_assert_int_eq(store_open(&s, dir, &o, err, sizeof err), 0);
	ck_assert_int_eq(store_update(s, fill_fn, &f), LG_EFULL);
	store_close(s);
}
END_TEST

START_TEST(single_writer_lock)
{
	store *s = open_rw(0), *s2;
	char err[256] = "";

	ck_assert_int_eq(store_open(&s2, dir, NULL, err, sizeof err), LG_EBUSY);
	ck_assert_ptr_nonnull(strstr(err, "in use by another writer"));
	/* Readers are welcome while the writer lives. */
	struct store_opts ro = { .flags = STORE_RDONLY };
	ck_assert_int_eq(store_open(&s2, dir, &ro, err, sizeof err), 0);
	store_close(s2);
	store_close(s);
	s = open_rw(0);
	store_close(s);
}
END_TEST

START_TEST(rdonly_refuses_writes_and_strangers)
{
	struct store_opts ro = { .flags = STORE_RDONLY };
	char err[256] = "", sub[200];
	store *s;
	store_txn *t;

	snprintf(sub, sizeof sub, "%s/nothing-here", dir);
	ck_assert_int_eq(store_open(&s, sub, &ro, err, sizeof err),
			 LG_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err, "not a league directory"));
	s = open_rw(0);
	store_close(s);
	ck_assert_int_eq(store_open(&s, dir, &ro, err, sizeof err), 0);
	ck_assert(store_is_rdonly(s));
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_WRITE, &t), LG_EINVAL);
	store_close(s);
}
END_TEST

static int count_cb(const void *key, size_t klen, const void *val,
		    size_t vlen, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

/* A store made before a database existed, opened read-only: every read
 * of that database answers as for an empty one (get and last: not found;
 * count: 0; iter: no rows), the others read as ever, and an unknown
 * database is LG_EINVAL for each read (count leaving *out alone). */
START_TEST(rdonly_reads_a_missing_db_as_empty)
{
	struct store_opts ro = { .flags = STORE_RDONLY };
	const enum store_db bad = STORE_DB__COUNT;
	store *s = open_rw(0);
	store_txn *t;
	MDB_env *menv;
	MDB_txn *mt;
	MDB_dbi dbi;
	uint8_t k[8];
	const void *v, *kp;
	size_t vl, kl;
	uint64_t n;
	int calls = 0;
	char err[256] = "";

	store_key_u64(k, 7);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_WRITE, &t), 0);
	ck_assert_int_eq(store_put(t, STORE_DB_JOBS, k, 8, "job", 3), 0);
	ck_assert_int_eq(store_put(t, STORE_DB_TRAINER, k, 8, "tr", 2), 0);
	ck_assert_int_eq(store_txn_commit(t), 0);
	store_close(s);
	/* drop the trainer database, as if an older build made the store */
	ck_assert_int_eq(mdb_env_create(&menv), 0);
	ck_assert_int_eq(mdb_env_set_maxdbs(menv, 32), 0);
	ck_assert_int_eq(mdb_env_open(menv, dir, 0, 0644), 0);
	ck_assert_int_eq(mdb_txn_begin(menv, NULL, 0, &mt), 0);
	ck_assert_int_eq(mdb_dbi_open(mt, "trainer", 0, &dbi), 0);
	ck_assert_int_eq(mdb_drop(mt, dbi, 1), 0);
	ck_assert_int_eq(mdb_txn_commit(mt), 0);
	mdb_env_close(menv);

	ck_assert_msg(store_open(&s, dir, &ro, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	ck_assert_int_eq(store_get(t, STORE_DB_TRAINER, k, 8, &v, &vl),
			 LG_ENOTFOUND);
	n = 99;
	ck_assert_int_eq(store_count(t, STORE_DB_TRAINER, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(store_iter(t, STORE_DB_TRAINER, NULL, 0, count_cb,
				    &calls), 0);
	ck_assert_int_eq(calls, 0);
	ck_assert_int_eq(store_last(t, STORE_DB_TRAINER, &kp, &kl, &v, &vl),
			 LG_ENOTFOUND);
	/* the jobs database is there */
	ck_assert_int_eq(store_get(t, STORE_DB_JOBS, k, 8, &v, &vl), 0);
	ck_assert_uint_eq(vl, 3);
	ck_assert_int_eq(memcmp(v, "job", 3), 0);
	ck_assert_int_eq(store_count(t, STORE_DB_JOBS, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(store_iter(t, STORE_DB_JOBS, NULL, 0, count_cb,
				    &calls), 0);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(store_last(t, STORE_DB_JOBS, &kp, &kl, &v, &vl), 0);
	ck_assert_uint_eq(kl, 8);
	/* no such database */
	ck_assert_int_eq(store_get(t, bad, k, 8, &v, &vl), LG_EINVAL);
	n = 99;
	ck_assert_int_eq(store_count(t, bad, &n), LG_EINVAL);
	ck_assert_uint_eq(n, 99);
	ck_assert_int_eq(store_iter(t, bad, NULL, 0, count_cb, &calls),
			 LG_EINVAL);
	ck_assert_int_eq(store_last(t, bad, &kp, &kl, &v, &vl), LG_EINVAL);
	ck_assert_int_eq(calls, 1);
	store_txn_abort(t);
	store_close(s);
}
END_TEST

START_TEST(schema_version_checked)
{
	store *s = open_rw(0);
	store_txn *t;
	char err[256] = "";

	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_WRITE, &t), 0);
	ck_assert_int_eq(store_meta_put_u64(t, "schema", 99), 0);
	ck_assert_int_eq(store_txn_commit(t), 0);
	store_close(s);
	ck_assert_int_eq(store_open(&s, dir, NULL, err, sizeof err), LG_EVERSION);
	ck_assert_ptr_nonnull(strstr(err, "schema version 99"));
}
END_TEST

START_TEST(blob_roundtrip_and_corruption)
{
	store *s = open_rw(0);
	store_txn *t;
	float w[6] = { 1.5f, -2, 0, 3.25f, 1e-7f, -0.0f };
	struct store_blob_info in = { STORE_DT_F32, 2, { 2, 3 }, sizeof w }, out;
	const void *p, *raw;
	size_t rawlen;
	uint8_t k[8];
	char err[256] = "";

	store_key_u32x2(k, 3, 7);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_WRITE, &t), 0);
	ck_assert_int_eq(store_blob_put(t, STORE_DB_PARAMS, k, 8, &in, w), 0);
	ck_assert_int_eq(store_blob_get(t, STORE_DB_PARAMS, k, 8, &out, &p, err,
					sizeof err), 0);
	ck_assert_uint_eq(out.rank, 2);
	ck_assert_uint_eq(out.dims[1], 3);
	ck_assert_uint_eq(out.nbytes, sizeof w);
	ck_assert_int_eq(memcmp(p, w, sizeof w), 0);

	/* A shape that does not match the payload is refused at put. */
	struct store_blob_info bad = { STORE_DT_F32, 2, { 2, 4 }, sizeof w };
	store_txn *t2;
	ck_assert_int_eq(store_txn_commit(t), 0);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_WRITE, &t2), 0);
	ck_assert_int_eq(store_blob_put(t2, STORE_DB_PARAMS, k, 8, &bad, w),
			 LG_EINVAL);
	store_txn_abort(t2);

	/* Flip one payload byte, one header byte, truncate: each is named. */
	static const struct {
		size_t at; /* byte to flip, or SIZE_MAX to truncate */
		const char *why;
	} cases[] = {
		{ STORE_BLOB_HDR + 5, "payload checksum mismatch" },
		{ 9, "header checksum mismatch" },
		{ 0, "bad magic" },
		{ SIZE_MAX, "shorter than the blob header" },
	};
	for (size_t c = 0; c < LG_ARRAY_LEN(cases); c++) {
		uint8_t copy[STORE_BLOB_HDR + sizeof w];
		ck_assert_int_eq(store_txn_begin(s, STORE_TXN_WRITE, &t), 0);
		ck_assert_int_eq(store_blob_put(t, STORE_DB_PARAMS, k, 8, &in, w), 0);
		ck_assert_int_eq(store_get(t, STORE_DB_PARAMS, k, 8, &raw,
					   &rawlen), 0);
		ck_assert_uint_eq(rawlen, sizeof copy);
		memcpy(copy, raw, rawlen);
		if (cases[c].at == SIZE_MAX)
			rawlen = 20;
		else
			copy[cases[c].at] ^= 0x40;
		ck_assert_int_eq(store_put(t, STORE_DB_PARAMS, k, 8, copy,
					   rawlen), 0);
		ck_assert_int_eq(store_txn_commit(t), 0);
		ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
		ck_assert_int_eq(store_blob_get(t, STORE_DB_PARAMS, k, 8, &out,
						&p, err, sizeof err),
				 LG_ECORRUPT);
		ck_assert_msg(strstr(err, cases[c].why), "case %zu: %s", c, err);
		ck_assert_ptr_nonnull(strstr(err, "params[0000000300000007]"));
		store_txn_abort(t);
	}
	store_close(s);
}
END_TEST

/* A child that holds a read transaction dies by SIGKILL; its reader slot
 * is reclaimed by the next read-write open. */
START_TEST(stale_reader_slots_cleared)
{
	int ready[2];
	pid_t pid;
	store *s = open_rw(0);

	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct store_opts ro = { .flags = STORE_RDONLY };
		store *r;
		store_txn *t;
		if (store_open(&r, dir, &ro, NULL, 0) ||
		    store_txn_begin(r, STORE_TXN_READ, &t))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char c;
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	int dead = -1;
	ck_assert_int_eq(store_reader_check(s, &dead), 0);
	ck_assert_int_eq(dead, 0); /* alive: its slot stays */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	ck_assert_int_eq(store_reader_check(s, &dead), 0);
	ck_assert_int_eq(dead, 1);
	ck_assert_int_eq(store_reader_check(s, &dead), 0);
	ck_assert_int_eq(dead, 0);
	store_close(s);
}
END_TEST

/* ---- concurrent reader ------------------------------------------------ */

static int rec_fn(store_txn *t, void *arg)
{
	uint64_t seq = *(uint64_t *)arg;
	uint8_t k[8], v[2048];

	store_key_u64(k, seq);
	memset(v, (int)(seq & 0xff), sizeof v);
	store_put(t, STORE_DB_SCRATCH, k, 8, v, sizeof v);
	return store_meta_put_u64(t, "count", seq);
}

START_TEST(reader_sees_consistent_snapshots_while_writer_grows_map)
{
	/* The child writes 600 records of 2 KiB from a 64 KiB map, so the
	 * map grows several times (MDB_MAP_RESIZED for the reader); every
	 * snapshot the reader takes has count == number of records. */
	pid_t pid;
	int reads = 0;
	store *s = open_rw(64 << 10);

	store_close(s);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct store_opts o = { .initial_map = 64 << 10,
					.flags = STORE_NOSYNC };
		store *w;
		if (store_open(&w, dir, &o, NULL, 0))
			_exit(1);
		for (uint64_t seq = 1; seq <= 600; seq++)
			if (store_update(w, rec_fn, &seq))
				_exit(2);
		store_close(w);
		_exit(0);
	}
	struct store_opts ro = { .flags = STORE_RDONLY };
	store *r;
	char err[256];
	ck_assert_int_eq(store_open(&r, dir, &ro, err, sizeof err), 0);
	uint64_t last = 0;
	for (;;) {
		int status, done = waitpid(pid, &status, WNOHANG) == pid;
		store_txn *t;
		uint64_t count = 0, n;
		ck_assert_int_eq(store_txn_begin(r, STORE_TXN_READ, &t), 0);
		int rc = store_meta_get_u64(t, "count", &count);
		ck_assert(rc == 0 || rc == LG_ENOTFOUND);
		ck_assert_int_eq(store_count(t, STORE_DB_SCRATCH, &n), 0);
		ck_assert_uint_eq(n, count);
		ck_assert_uint_ge(count, last);
		last = count;
		store_txn_abort(t);
		reads++;
		if (done) {
			ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
			break;
		}
	}
	ck_assert_uint_eq(last, 600);
	ck_assert_int_gt(reads, 1);
	store_close(r);
}
END_TEST

/* ---- crash test ------------------------------------------------------- */

/* Record seq: a deterministic length and content with its own checksum, so
 * a torn or partial record cannot pass. */
static size_t crash_record(uint64_t seq, uint8_t *buf)
{
	lg_rng r;
	size_t len;

	lg_rng_seed(&r, seq);
	len = 16 + (size_t)lg_rng_below(&r, 6000);
	lg_put_be64(buf, seq);
	for (size_t i = 12; i < len; i++)
		buf[i] = (uint8_t)lg_rng_u64(&r);
	lg_put_le32(buf + 8, lg_crc32c(0, buf + 12, len - 12));
	return len;
}

static int crash_write(store_txn *t, void *arg)
{
	uint64_t seq = *(uint64_t *)arg;
	uint8_t k[8], v[6100];
	size_t len = crash_record(seq, v);

	store_key_u64(k, seq);
	store_put(t, STORE_DB_SCRATCH, k, 8, v, len);
	return store_meta_put_u64(t, "count", seq);
}

static void crash_child(int ackfd)
{
	struct store_opts o = { .initial_map = 128 << 10 };
	store *s;
	store_txn *t;
	uint64_t seq = 0;

	if (store_open(&s, dir, &o, NULL, 0))
		_exit(3);
	if (store_txn_begin(s, STORE_TXN_READ, &t))
		_exit(4);
	store_meta_get_u64(t, "count", &seq);
	store_txn_abort(t);
	for (;;) {
		seq++;
		if (store_update(s, crash_write, &seq))
			_exit(5);
		/* Acknowledge only what is committed. 8-byte pipe writes are
		 * atomic. */
		if (write(ackfd, &seq, 8) != 8)
			_exit(6);
	}
}

START_TEST(sigkill_never_loses_an_acknowledged_record)
{
	enum { KILLS = 25 };
	lg_rng rng;
	uint64_t acked = 0;
	int kills = 0;
	store *s = open_rw(128 << 10);

	store_close(s);
	lg_rng_seed(&rng, 2026);
	for (int round = 0; round < KILLS; round++) {
		int p[2];
		pid_t pid;
		ck_assert_int_eq(pipe(p), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			close(p[0]);
			crash_child(p[1]);
		}
		close(p[1]);
		/* Every other round waits for the child's first
		 * acknowledgement, so real work is done however busy the
		 * machine is; then a random moment, 0 to 40 ms (in the other
		 * rounds including during open). */
		if (round % 2) {
			uint64_t first;
			ck_assert_int_eq(read(p[0], &first, 8), 8);
			ck_assert_uint_eq(first, acked + 1);
			acked = first;
		}
		lg_sleep_s(lg_rng_double(&rng) * 0.04);
		ck_assert_int_eq(kill(pid, SIGKILL), 0);
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFSIGNALED(status), "child exited %d early",
			      WEXITSTATUS(status));
		kills++;
		uint64_t a;
		while (read(p[0], &a, 8) == 8) {
			ck_assert_uint_eq(a, acked + 1);
			acked = a;
		}
		close(p[0]);

		/* Reopen as the next writer would and check everything. */
		store_txn *t;
		uint64_t count = 0, n;
		s = open_rw(128 << 10);
		ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
		store_meta_get_u64(t, "count", &count);
		ck_assert_uint_ge(count, acked);
		ck_assert_int_eq(store_count(t, STORE_DB_SCRATCH, &n), 0);
		ck_assert_uint_eq(n, count);
		for (uint64_t seq = 1; seq <= count; seq++) {
			uint8_t k[8], want[6100];
			const void *v;
			size_t vl, len = crash_record(seq, want);
			store_key_u64(k, seq);
			ck_assert_int_eq(store_get(t, STORE_DB_SCRATCH, k, 8, &v,
						   &vl), 0);
			ck_assert_uint_eq(vl, len);
			ck_assert_int_eq(memcmp(v, want, len), 0);
		}
		store_txn_abort(t);
		store_close(s);
		/* Records the child committed but had not acknowledged yet
		 * stay; the next child continues after them. */
		acked = count;
	}
	ck_assert_int_ge(kills, 20);
	/* real work was done: at least one record in every waited round */
	ck_assert_uint_ge(acked, (uint64_t)KILLS / 2);
	fprintf(stderr, "crash test: %d SIGKILLs, %llu records verified\n",
		kills, (unsigned long long)acked);
}
END_TEST

struct batch_ctx {
	const store_batch *b;
	int runs;
};

static int batch_fn(store_txn *t, void *arg)
{
	struct batch_ctx *c = arg;

	c->runs++;
	return store_batch_apply(c->b, t);
}

/* A batch applies in order inside one transaction, repeatably (the map
 * grows under it: store_update runs it again), deletes of absent keys are
 * fine, blobs come out verified, and a bad append poisons the batch so
 * the commit writes nothing. */
/* The default store fsyncs at every commit; STORE_NOSYNC and read-only
 * stores say they do not. */
START_TEST(default_store_is_durable)
{
	struct store_opts o = { .flags = STORE_NOSYNC };
	store *s = open_rw(0), *r;
	char err[256];

	ck_assert(store_is_durable(s));
	store_close(s);
	ck_assert_int_eq(store_open(&s, dir, &o, err, sizeof err), 0);
	ck_assert(!store_is_durable(s));
	o.flags = STORE_RDONLY;
	ck_assert_int_eq(store_open(&r, dir, &o, err, sizeof err), 0);
	ck_assert(!store_is_durable(r));
	store_close(r);
	store_close(s);
}
END_TEST

START_TEST(write_batch_applies_in_order_and_is_sticky)
{
	store *s = open_rw(1 << 16); /* small map: the batch must grow it */
	store_batch b = { 0 };
	struct batch_ctx c = { &b, 0 };
	struct store_blob_info info = { .dtype = STORE_DT_BYTES, .rank = 1 };
	static uint8_t big[4096];
	store_txn *t;
	uint8_t k[8];
	const void *v;
	size_t vl;
	char err[128];

	for (uint32_t i = 0; i < 64; i++) {
		store_key_u32x2(k, 1, i);
		memset(big, (int)i, sizeof big);
		ck_assert_int_eq(store_batch_put(&b, STORE_DB_SCRATCH, k, 8, big,
						 sizeof big), 0);
	}
	store_key_u32x2(k, 1, 3);
	ck_assert_int_eq(store_batch_del(&b, STORE_DB_SCRATCH, k, 8), 0);
	store_key_u32x2(k, 9, 9); /* absent: not an error */
	ck_assert_int_eq(store_batch_del(&b, STORE_DB_SCRATCH, k, 8), 0);
	store_key_u32x2(k, 1, 5); /* the later put wins */
	ck_assert_int_eq(store_batch_put(&b, STORE_DB_SCRATCH, k, 8, "x", 1),
			 0);
	info.dims[0] = 3;
	info.nbytes = 3;
	store_key_u32x2(k, 2, 0);
	ck_assert_int_eq(store_batch_blob(&b, STORE_DB_SCRATCH, k, 8, &info,
					  "abc"), 0);
	ck_assert_int_eq(store_batch_meta_u64(&b, "test.n", 42), 0);
	ck_assert_uint_eq(b.count, 64 + 3 + 2);
	ck_assert_int_eq(store_update(s, batch_fn, &c), 0);
	ck_assert_int_gt(c.runs, 1); /* it grew the map and ran again */

	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	store_key_u32x2(k, 1, 3);
	ck_assert_int_eq(store_get(t, STORE_DB_SCRATCH, k, 8, &v, &vl),
			 LG_ENOTFOUND);
	store_key_u32x2(k, 1, 5);
	ck_assert_int_eq(store_get(t, STORE_DB_SCRATCH, k, 8, &v, &vl), 0);
	ck_assert_uint_eq(vl, 1);
	store_key_u32x2(k, 1, 63);
	ck_assert_int_eq(store_get(t, STORE_DB_SCRATCH, k, 8, &v, &vl), 0);
	ck_assert_uint_eq(vl, sizeof big);
	ck_assert_int_eq(((const uint8_t *)v)[100], 63);
	store_key_u32x2(k, 2, 0);
	ck_assert_int_eq(store_blob_get(t, STORE_DB_SCRATCH, k, 8, &info, &v,
					err, sizeof err), 0);
	ck_assert_int_eq(memcmp(v, "abc", 3), 0);
	uint64_t n = 0;
	ck_assert_int_eq(store_meta_get_u64(t, "test.n", &n), 0);
	ck_assert_uint_eq(n, 42);
	store_txn_abort(t);

	/* Sticky: a bad key poisons the batch; nothing of it is written. */
	store_batch_clear(&b);
	store_key_u32x2(k, 3, 0);
	ck_assert_int_eq(store_batch_put(&b, STORE_DB_SCRATCH, k, 8, "y", 1),
			 0);
	ck_assert_int_eq(store_batch_put(&b, STORE_DB_SCRATCH, k, 0, "y", 1),
			 LG_EINVAL);
	ck_assert_int_eq(store_batch_put(&b, STORE_DB_SCRATCH, k, 8, "y", 1),
			 LG_EINVAL);
	ck_assert_int_eq(store_update(s, batch_fn, &c), LG_EINVAL);
	ck_assert_int_eq(store_txn_begin(s, STORE_TXN_READ, &t), 0);
	ck_assert_int_eq(store_get(t, STORE_DB_SCRATCH, k, 8, &v, &vl),
			 LG_ENOTFOUND);
	store_txn_abort(t);
	store_batch_clear(&b);
	ck_assert_int_eq(b.err, 0);
	store_batch_free(&b);
	store_close(s);
}
END_TEST

/* The file's length and its first bytes (the meta pages). */
static uint64_t file_head(const char *path, uint8_t *head, size_t len,
			  size_t *got)
{
	FILE *f = fopen(path, "rb");
	uint64_t n;

	ck_assert_ptr_nonnull(f);
	*got = fread(head, 1, len, f);
	fseek(f, 0, SEEK_END);
	n = (uint64_t)ftell(f);
	fclose(f);
	return n;
}

/* Both opens of a truncated store fail with LG_ECORRUPT and the lengths
 * named, whatever the truncation point, and neither changes the file:
 * no SIGBUS (check runs each test in its own process: a signal fails
 * it). */
static void expect_damaged(const char *path, uint64_t len)
{
	struct store_opts ro = { .flags = STORE_RDONLY };
	char err[700] = "", want[96];
	store *s = NULL;
	struct stat sb;

	ck_assert_int_eq(truncate(path, (off_t)len), 0);
	ck_assert_int_eq(store_open(&s, dir, &ro, err, sizeof err),
			 LG_ECORRUPT);
	ck_assert_msg(strstr(err, "data.mdb: damaged store ("), "%s", err);
	snprintf(want, sizeof want, "(%llu bytes, expected ",
		 (unsigned long long)len);
	ck_assert_msg(strstr(err, want), "%llu: %s", (unsigned long long)len,
		      err);
	ck_assert_int_eq(store_open(&s, dir, NULL, err, sizeof err),
			 LG_ECORRUPT);
	ck_assert_msg(strstr(err, want), "%s", err);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq((uint64_t)sb.st_size, len);
}

START_TEST(truncated_store_is_an_error_not_sigbus)
{
	static uint8_t head[70000];
	struct fill f = { 0, 256, 2048 };
	char path[300], why[160];
	uint64_t fsize, expected;
	size_t got;
	store *s = open_rw(0);

	ck_assert_int_eq(store_update(s, fill_fn, &f), 0);
	store_close(s);
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	fsize = file_head(path, head, sizeof head, &got);
	ck_assert_int_eq(store_meta_check(head, got, fsize, &expected, why,
					  sizeof why), 0);
	/* the writer keeps the file as long as its map */
	ck_assert_uint_ge(fsize, 64u << 20);
	ck_assert_uint_ge(expected, 256 * 2048);
	ck_assert_uint_eq(store_file_check(dir, why, sizeof why), 0);
	/* exactly as long as the meta pages say: still opens */
	ck_assert_int_eq(truncate(path, (off_t)expected), 0);
	s = open_rw(0);
	store_close(s);
	/* ... which extended it again to its map */
	ck_assert_uint_ge(file_head(path, head, sizeof head, &got), 64u << 20);
	/* one page short, the middle, just after and inside the meta
	 * pages, nothing */
	uint64_t psize = 4096;
	expect_damaged(path, expected - psize);
	expect_damaged(path, expected / 2);
	expect_damaged(path, 2 * psize);
	expect_damaged(path, psize + 100);
	expect_damaged(path, 100);
	expect_damaged(path, 0);
}
END_TEST

/* A meta page that is not LMDB's (bad magic), in either place. */
START_TEST(bad_meta_page_is_an_error)
{
	static uint8_t head[70000];
	uint64_t fsize, expected;
	char path[300], why[160], err[700];
	size_t got;
	store *s = open_rw(0);

	store_close(s);
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	fsize = file_head(path, head, sizeof head, &got);
	for (int page = 1; page >= 0; page--) {
		static const uint8_t junk[4] = { 1, 2, 3, 4 };
		FILE *fp = fopen(path, "r+b");
		ck_assert_ptr_nonnull(fp);
		fseek(fp, page * 4096 + 16, SEEK_SET);
		fwrite(junk, 1, 4, fp);
		fclose(fp);
		struct store_opts ro = { .flags = STORE_RDONLY };
		ck_assert_int_eq(store_open(&s, dir, &ro, err, sizeof err),
				 LG_ECORRUPT);
		char want[40];
		snprintf(want, sizeof want, "meta page %d:", page);
		ck_assert_msg(strstr(err, "damaged store") &&
			      strstr(err, want), "%s", err);
	}
	/* the parser alone: too short for either meta page */
	ck_assert_int_eq(store_meta_check(head, 100, fsize, &expected, why,
					  sizeof why), LG_ECORRUPT);
	ck_assert_int_eq(store_meta_check(head, 4096 + 100, fsize, &expected,
					  why, sizeof why), LG_ECORRUPT);
	ck_assert_uint_eq(expected, 8192);
}
END_TEST

Suite *suite_storage(void)
{
	Suite *s = suite_create("storage");
	const struct tu_test core_tests[] = {
		{ put_get_iterate_reopen, 1 },
		{ iterate_in_key_order, 1 },
		{ sticky_error_aborts_commit, 1 },
		{ map_grows_when_full, 1 },
		{ map_cap_is_respected, 1 },
		{ single_writer_lock, 1 },
		{ rdonly_refuses_writes_and_strangers, 1 },
		{ rdonly_reads_a_missing_db_as_empty, 1 },
		{ schema_version_checked, 1 },
		{ blob_roundtrip_and_corruption, 1 },
		{ write_batch_applies_in_order_and_is_sticky, 1 },
		{ default_store_is_durable, 1 },
		{ stale_reader_slots_cleared, 1 },
		{ reader_sees_consistent_snapshots_while_writer_grows_map, 1 },
		{ sigkill_never_loses_an_acknowledged_record, 1 },
		{ truncated_store_is_an_error_not_sigbus, 1 },
		{ bad_meta_page_is_an_error, 1 },
	};

	TCase *tc = TU_TCASE(s, "core", 60, core_tests);
	tcase_add_checked_fixture(tc, setup, teardown);
	return s;
}
