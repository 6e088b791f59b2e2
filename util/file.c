/* util/file.c: whole files written whole or not at all. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int lg_file_write_atomic(const char *path, const void *p, size_t n,
			 char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	const char *b = p;
	int fd, e;

	if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >=
	    (int)sizeof tmp) {
		lg_errf(err, errlen, "%s: path too long", path);
		return LG_EINVAL;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
		lg_errf(err, errlen, "%s: %s", tmp, strerror(errno));
		return LG_EIO;
	}
	while (n) { /* write(2) may write less than asked */
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			goto fail;
		b += w;
		n -= (size_t)w;
	}
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
