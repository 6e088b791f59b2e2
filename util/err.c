/* util/err.c: error code text and the caller-buffer error formatter. */
#include "util.h"

#include <stdio.h>

const char *lg_strerror(int err)
{
	switch (err) {
	case LG_OK: return "success";
	case LG_ENOMEM: return "out of memory";
	case LG_EINVAL: return "invalid argument or input";
	case LG_EIO: return "I/O error";
	case LG_ENOTFOUND: return "not found";
	case LG_ECORRUPT: return "corrupt data";
	case LG_EFULL: return "full";
	case LG_EEXIST: return "already exists";
	case LG_EPROTO: return "protocol error";
	case LG_ETIMEOUT: return "timed out";
	case LG_EBUSY: return "busy";
	case LG_ECONFIG: return "configuration error";
	case LG_EVERSION: return "incompatible version";
	case LG_EAUTH: return "authentication failed";
	case LG_ECLOSED: return "closed";
	case LG_ERANGE: return "out of range";
	case LG_ESTORAGE: return "storage error";
	case LG_EUNSUPP: return "not supported";
	case LG_ECANCELED: return "canceled";
	case LG_ENOSPACE: return "no space left on the device";
	}
	return "unknown error";
}

void lg_errf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
