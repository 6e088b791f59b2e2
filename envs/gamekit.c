/*
 * envs/gamekit.c: small helpers the built-in games written directly on
 * the game ABI share (params they refuse or read, text for their hooks).
 * Pure and allocation-free, as the play functions that call them.
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
int env_param_u64(const char *key, const char *val, uint64_t lo,
		  uint64_t hi, uint64_t *out, char *err, size_t errlen)
{
	if (!lg_parse_u64(val, lo, hi, out))
		return 0;
	lg_errf(err, errlen, "env.params: %s: expected a whole number in "
		"[%llu, %llu], got '%s'", key, (unsigned long long)lo,
		(unsigned long long)hi, val);
	return LG_EINVAL;
}

/* env_internal.h */
void env_deal_or_move(int8_t *card, int8_t *dealt, int deals,
		      int8_t *moves, int8_t *n, int a)
{
	if (*dealt < deals)
		card[(*dealt)++] = (int8_t)a;
	else
		moves[(*n)++] = (int8_t)a;
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
