/*
 * util/block.c: one allocation for an object's several arrays (util.h,
 * lg_block_new / lg_block_parts), so an object has one malloc, one free
 * and one failure path, and every array starts on a cache line.
 */
#include "util/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* x rounded up to LG_BLOCK_ALIGN; SIZE_MAX when that overflows. */
static size_t round_up(size_t x)
{
	if (x > SIZE_MAX - (LG_BLOCK_ALIGN - 1))
		return SIZE_MAX;
	return (x + LG_BLOCK_ALIGN - 1) / LG_BLOCK_ALIGN * LG_BLOCK_ALIGN;
}

/* The block: head bytes, then the parts; their pointers written into
 * (obj ? obj : the block). */
static void *block_alloc(void *obj, size_t head, const struct lg_part *p,
			 size_t n)
{
	size_t total = round_up(head), off;
	char *b;

	for (size_t i = 0; i < n; i++) {
		if (p[i].size && p[i].count > SIZE_MAX / p[i].size)
			return NULL;
		size_t bytes = round_up(p[i].count * p[i].size);
		if (total == SIZE_MAX || bytes > SIZE_MAX - total)
			return NULL;
		total += bytes;
	}
	if (total == SIZE_MAX)
		return NULL;
	b = aligned_alloc(LG_BLOCK_ALIGN, total ? total : LG_BLOCK_ALIGN);
	if (!b)
		return NULL;
	memset(b, 0, total);
	off = round_up(head);
	for (size_t i = 0; i < n; i++) {
		void *at = b + off;
		memcpy((obj ? (char *)obj : b) + p[i].at, &at, sizeof at);
		off += round_up(p[i].count * p[i].size);
	}
	return b;
}

void *lg_block_new(size_t head, const struct lg_part *p, size_t n)
{
	return block_alloc(NULL, head, p, n);
}

void *lg_block_parts(void *obj, const struct lg_part *p, size_t n)
{
	return block_alloc(obj, 0, p, n);
}
