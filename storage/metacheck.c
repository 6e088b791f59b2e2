/*
 * storage/metacheck.c: is DIR/data.mdb as long as its meta pages say?
 *
 * LMDB maps the whole file and reads pages straight from the map; a page
 * past the end of a truncated file is a SIGBUS, not an error code. So
 * every open reads the two meta pages with plain read(2) first and
 * refuses a file shorter than the newer meta's last page, before LMDB
 * maps anything.
 *
 * The layout read here is LMDB 0.9's on-disk format on a 64-bit host
 * (native byte order, pgno_t and size_t of 8 bytes), checked against the
 * header's version at build time:
 *
 *   page header 16 bytes: pgno (8), pad (2), flags (2), lower/upper (4)
 *   MDB_meta at 16: magic (4) version (4) address (8) mapsize (8)
 *     dbs[2] of 48 bytes each: pad (4, the page size in dbs[0]),
 *       flags (2) depth (2) branch, leaf, overflow pages, entries,
 *       root (8 each)
 *     last_pg (8) at 136, txnid (8) at 144
 *
 * Meta page 0 is at offset 0, meta page 1 at the page size that meta 0
 * records, as LMDB reads them (mdb_env_read_header). The writer keeps the
 * file at least as long as the map (storage.c, extend_file), so a healthy
 * store always passes, whatever pages LMDB left unwritten at the end.
 */
#include "storage/storage.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if MDB_VERSION_MAJOR != 0 || MDB_VERSION_MINOR != 9
#error "storage/metacheck.c reads LMDB 0.9's meta page layout"
#endif
_Static_assert(sizeof(size_t) == 8, "metacheck.c reads 64-bit meta pages");

#define META_MAGIC 0xBEEFC0DEu
#define META_DATA_VERSION 1u
#define META_OFF 16u       /* the page header */
#define META_PSIZE (META_OFF + 24u)
#define META_LAST_PG (META_OFF + 120u)
#define META_TXNID (META_OFF + 128u)
#define META_END (META_OFF + 136u)
#define META_MIN_PAGE 512u
#define META_MAX_PAGE 65536u

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* One meta page at off in head: 0 with *last_pg and *txnid, 1 when it is
 * not whole in head, -1 when its magic or version is wrong. */
static int meta_read(const uint8_t *head, size_t len, size_t off,
		     uint64_t *last_pg, uint64_t *txnid)
{
	if (off > len || len - off < META_END)
		return 1;
	if (rd32(head + off + META_OFF) != META_MAGIC ||
	    rd32(head + off + META_OFF + 4) != META_DATA_VERSION)
		return -1;
	*last_pg = rd64(head + off + META_LAST_PG);
	*txnid = rd64(head + off + META_TXNID);
	return 0;
}

/* Why meta page `page` was refused: m > 0, the file ends before it
 * (expected: the bytes the pages so far need); m < 0, not LMDB's. */
static int meta_refused(int m, int page, uint64_t fsize, uint64_t expected,
			char *why, size_t whylen)
{
	if (m > 0)
		lg_errf(why, whylen, "%llu bytes, expected at least %llu",
			(unsigned long long)fsize,
			(unsigned long long)expected);
	else
		lg_errf(why, whylen, "meta page %d: not an LMDB meta page",
			page);
	return LG_ECORRUPT;
}

int store_meta_check(const void *headp, size_t len, uint64_t fsize,
		     uint64_t *expected, char *why, size_t whylen)
{
	const uint8_t *head = headp;
	uint64_t last[2], txn[2], psize, need;
	int m0, m1;

	*expected = 2 * META_MIN_PAGE;
	m0 = meta_read(head, len, 0, &last[0], &txn[0]);
	if (m0)
		return meta_refused(m0, 0, fsize, *expected, why, whylen);
	psize = rd32(head + META_PSIZE);
	if (psize < META_MIN_PAGE || psize > META_MAX_PAGE ||
	    (psize & (psize - 1))) {
		lg_errf(why, whylen, "meta page 0: page size %llu",
			(unsigned long long)psize);
		return LG_ECORRUPT;
	}
	*expected = 2 * psize;
	m1 = meta_read(head, len, psize, &last[1], &txn[1]);
	if (m1)
		return meta_refused(m1, 1, fsize, *expected, why, whylen);
	/* the newer meta is the one LMDB opens */
	uint64_t lp = txn[1] > txn[0] ? last[1] : last[0];
	if (lp < 1 || lp >= (UINT64_MAX / psize) - 1) {
		lg_errf(why, whylen, "meta page %d: last page %llu",
			txn[1] > txn[0], (unsigned long long)lp);
		return LG_ECORRUPT;
	}
	need = (lp + 1) * psize;
	*expected = need;
	if (fsize < need) {
		lg_errf(why, whylen, "%llu bytes, expected %llu",
			(unsigned long long)fsize, (unsigned long long)need);
		return LG_ECORRUPT;
	}
	return 0;
}

int store_file_check(const char *dir, char *err, size_t errlen)
{
	static const size_t headlen = META_MAX_PAGE + META_END;
	char path[600], why[160];
	uint8_t *head = NULL;
	uint64_t expected;
	struct stat sb;
	ssize_t n = 0;
	int fd, rc = 0;

	snprintf(path, sizeof path, "%s/data.mdb", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return LG_ENOTFOUND;
	if (fd < 0) {
		lg_errf(err, errlen, "%s: cannot open: %s", path,
			strerror(errno));
		return LG_EIO;
	}
	if (!(head = malloc(headlen))) {
		rc = LG_ENOMEM;
		goto out;
	}
	/* The meta pages first, the length after: a live writer extends
	 * the file before it writes a meta page naming the new pages. */
	while ((size_t)n < headlen) {
		ssize_t k = pread(fd, head + n, headlen - (size_t)n, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			lg_errf(err, errlen, "%s: cannot read: %s", path,
				strerror(errno));
			rc = LG_EIO;
			goto out;
		}
		if (k == 0)
			break;
		n += k;
	}
	if (fstat(fd, &sb) < 0) {
		lg_errf(err, errlen, "%s: cannot stat: %s", path,
			strerror(errno));
		rc = LG_EIO;
		goto out;
	}
	rc = store_meta_check(head, (size_t)n, (uint64_t)sb.st_size,
			      &expected, why, sizeof why);
	if (rc)
		lg_errf(err, errlen, "%s: damaged store (%s)", path, why);
out:
	free(head);
	close(fd);
	return rc;
}
