/*
 * envs/gamekit.c: small helpers the built-in games written directly on
 * the game ABI share (params they refuse, text for their hooks). Pure and
 * allocation-free, as the play functions that call them.
 */
#include "envs/env_internal.h"

#include <stdarg.h>
#include <stdio.h>

/* env_internal.h */
int env_params_none(const struct league_game_params *p, const char *game,
		    char *err, size_t errlen)
{
	if (!p || !p->count)
		return 0;
	lg_errf(err, errlen, "env.params: '%s': %s takes no params",
		p->keys[0], game);
	return LG_EINVAL;
}

/* env_internal.h */
size_t env_textf(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!len)
		return 0;
	if (at >= len)
		return len - 1;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	if (n < 0)
		return at;
	return (size_t)n >= len - at ? len - 1 : at + (size_t)n;
}
