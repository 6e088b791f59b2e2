/* util/file.c: whole files written whole or not at all. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* lg_io_fn: write(2) to the fd at ctx. */
static ssize_t write_some(void *ctx, void *b, size_t n)
{
	return write(*(const int *)ctx, b, n);
}

int lg_file_write_atomic(const char *path, const void *p, size_t n,
			 char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	int fd, e;

	if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >=
	    (int)sizeof tmp) {
		lg_errf(err, errlen, "%s: path too long", path);
		return LG_EINVAL;
	}
	unlink(tmp); /* a leftover of a killed run, or a planted link */
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
		       0644)) < 0) {
		lg_errf(err, errlen, "%s: %s", tmp, strerror(errno));
		return LG_EIO;
	}
	if (lg_io_all(write_some, &fd, (void *)(uintptr_t)p, n))
		goto fail;
	if (fsync(fd))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path)) {
		e = errno;
		lg_errf(err, errlen, "%s: %s", path, strerror(e));
		unlink(tmp);
		return LG_EIO;
	}
	return 0;
fail:
	e = errno ? errno : EIO;
	lg_errf(err, errlen, "%s: %s", tmp, strerror(e));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return LG_EIO;
}

/* What kind of node st is, for a refusal. */
static const char *node_kind(mode_t m)
{
	return S_ISFIFO(m)  ? "a FIFO"
	       : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device"
	       : S_ISDIR(m) ? "a directory"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISLNK(m) ? "a symlink"
			    : "not a regular file";
}

int lg_file_write_out(const char *path, const void *p, size_t n,
		      unsigned flags, char *err, size_t errlen)
{
	struct stat st;
	char *target = NULL;
	int rc;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return lg_file_write_atomic(path, p, n, err, errlen);
		lg_errf(err, errlen, "%s: %s", path, strerror(errno));
		return LG_EIO;
	}
	if (S_ISLNK(st.st_mode)) {
		if (!(flags & LG_OUT_FOLLOW_SYMLINKS)) {
			lg_errf(err, errlen, "%s is a symlink; refused "
				"(--follow-symlinks writes to its target)",
				path);
			return LG_EINVAL;
		}
		/* the final target; a dangling link names no file to write */
		if (!(target = realpath(path, NULL))) {
			lg_errf(err, errlen, "%s: symlink target: %s", path,
				strerror(errno));
			return errno == ENOENT ? LG_EINVAL : LG_EIO;
		}
		if (lstat(target, &st)) {
			lg_errf(err, errlen, "%s: %s", target,
				strerror(errno));
			free(target);
			return LG_EIO;
		}
	}
	if (!S_ISREG(st.st_mode)) {
		lg_errf(err, errlen, "%s%s%s is %s, not a regular file; refused",
			path, target ? " -> " : "", target ? target : "",
			node_kind(st.st_mode));
		free(target);
		return LG_EINVAL;
	}
	rc = lg_file_write_atomic(target ? target : path, p, n, err, errlen);
	free(target);
	return rc;
}

int lg_token_parse(const char *b, size_t n, char *tok, size_t len,
		   char *err, size_t errlen)
{
	size_t end = 0, k;

	tok[0] = 0;
	while (end < n && b[end] != '\n')
		end++;
	k = end;
	if (k && b[k - 1] == '\r')
		k--;
	for (size_t i = end; i < n; i++)
		if (b[i] != '\n' && b[i] != '\r' && b[i] != ' ' && b[i] != '\t') {
			lg_errf(err, errlen, "more than one line (the token "
				"is the first line alone)");
			return LG_EINVAL;
		}
	if (!k) {
		lg_errf(err, errlen, "empty");
		return LG_EINVAL;
	}
	if (k >= len) {
		lg_errf(err, errlen, "the token is %zu bytes, longer than "
			"%zu", k, len - 1);
		return LG_EINVAL;
	}
	for (size_t i = 0; i < k; i++)
		if ((unsigned char)b[i] < 0x20 || (unsigned char)b[i] > 0x7e) {
			lg_errf(err, errlen, "byte %zu of the token is not "
				"printable ASCII", i + 1);
			return LG_EINVAL;
		}
	memcpy(tok, b, k);
	tok[k] = 0;
	return 0;
}

int lg_token_read_file(const char *path, char *tok, size_t len, char *err,
		       size_t errlen)
{
	char buf[4097], why[128];
	size_t n;
	FILE *f;
	int rc;

	tok[0] = 0;
	if (!(f = fopen(path, "rb"))) {
		lg_errf(err, errlen, "%s: %s", path, strerror(errno));
		return LG_EIO;
	}
	n = fread(buf, 1, sizeof buf, f);
	rc = ferror(f);
	fclose(f);
	if (rc) {
		lg_errf(err, errlen, "%s: read error", path);
		return LG_EIO;
	}
	if (n == sizeof buf) {
		lg_errf(err, errlen, "%s: longer than %zu bytes; a token file "
			"holds one line", path, sizeof buf - 1);
		return LG_EINVAL;
	}
	if ((rc = lg_token_parse(buf, n, tok, len, why, sizeof why)))
		lg_errf(err, errlen, "%s: %s", path, why);
	return rc;
}
