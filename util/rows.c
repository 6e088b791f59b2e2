/* util/rows.c: allocation of row blocks (util/rows.h). */
#include "util/rows.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* realloc to cap x width bytes (at least one), the product checked by
 * the caller. */
static void *resize(void *p, size_t cap, size_t width)
{
	size_t bytes = cap * width;

	return realloc(p, bytes ? bytes : 1);
}

/* The column whose pointer is at col (a float *, uint8_t * or int32_t *
 * of r, copied as bytes: POSIX pointers share one representation) to cap
 * rows of width bytes. LG_ENOMEM leaves it as it was. */
static int grow_col(void *col, size_t cap, size_t width)
{
	void *p, *q;

	memcpy(&p, col, sizeof p);
	if (!(q = resize(p, cap, width)))
		return LG_ENOMEM;
	memcpy(col, &q, sizeof q);
	return 0;
}

/* The columns, once for growing and freeing them: where each one's
 * pointer is in the block, and what one row of it holds. */
enum col_row { ROW_OBS, ROW_MASK, ROW_I32, ROW_F32, ROW_BYTE, ROW_STATE,
	       ROW_VISITS, ROW_NLEGAL, ROW_LEGAL };
static const struct {
	size_t at;
	enum col_row row;
} cols[] = {
	{ offsetof(struct lg_rows, obs), ROW_OBS },
	{ offsetof(struct lg_rows, mask), ROW_MASK },
	{ offsetof(struct lg_rows, action), ROW_I32 },
	{ offsetof(struct lg_rows, logp), ROW_F32 },
	{ offsetof(struct lg_rows, value), ROW_F32 },
	{ offsetof(struct lg_rows, reward), ROW_F32 },
	{ offsetof(struct lg_rows, done), ROW_BYTE },
	{ offsetof(struct lg_rows, state), ROW_STATE },
	{ offsetof(struct lg_rows, visits), ROW_VISITS },
	{ offsetof(struct lg_rows, nlegal), ROW_NLEGAL },
	{ offsetof(struct lg_rows, legal), ROW_LEGAL }, /* grown apart */
};

/* Bytes a row of the column takes in r; 0 for a column r lacks (no
 * state, no visits). */
static size_t col_width(const struct lg_rows *r, enum col_row row)
{
	switch (row) {
	case ROW_OBS:
		return r->obs_len * sizeof(float);
	case ROW_MASK:
		return lg_rows_lists(r) ? 0 : r->num_actions;
	case ROW_NLEGAL:
		return lg_rows_lists(r) ? sizeof(uint32_t) : 0;
	case ROW_LEGAL:
		return 0; /* lg_rows_reserve_legal */
	case ROW_I32:
		return sizeof(int32_t);
	case ROW_F32:
		return sizeof(float);
	case ROW_BYTE:
		return 1;
	case ROW_STATE:
		return r->state_len * sizeof(float);
	case ROW_VISITS:
		return r->has_visits ? r->num_actions * sizeof(float) : 0;
	}
	return 0;
}

int lg_rows_reserve(struct lg_rows *r, size_t cap)
{
	size_t ol = r->obs_len, na = r->num_actions, sl = r->state_len;

	if (cap <= r->cap)
		return 0;
	if (ol > SIZE_MAX / sizeof(float) / cap ||
	    sl > SIZE_MAX / sizeof(float) / cap ||
	    na > SIZE_MAX / cap || cap > SIZE_MAX / sizeof(float) ||
	    (r->has_visits && na > SIZE_MAX / sizeof(float) / cap))
		return LG_ERANGE;
	/* A failure leaves some columns larger, which is harmless: cap
	 * only moves once all of them are. */
	for (size_t i = 0; i < LG_ARRAY_LEN(cols); i++) {
		size_t w = col_width(r, cols[i].row);
		if (w && grow_col((char *)r + cols[i].at, cap, w))
			return LG_ENOMEM;
	}
	r->cap = cap;
	return 0;
}

int lg_rows_reserve_legal(struct lg_rows *r, size_t ids)
{
	size_t cap = r->legal_cap;

	if (ids <= cap)
		return 0;
	if (ids > SIZE_MAX / 2 / sizeof(uint16_t))
		return LG_ERANGE;
	cap = LG_MAX(ids, 2 * cap);
	if (grow_col(&r->legal, cap, sizeof(uint16_t)))
		return LG_ENOMEM;
	r->legal_cap = cap;
	return 0;
}

void lg_rows_clear(struct lg_rows *r)
{
	r->n = 0;
	r->legal_n = 0;
}

int lg_rows_put_mask(struct lg_rows *r, size_t i, const uint8_t *mask)
{
	size_t A = r->num_actions, k = 0;
	int rc;

	/* at most A ids: room for them all once, so the loop never grows */
	if ((rc = lg_rows_reserve_legal(r, r->legal_n + A)))
		return rc;
	for (size_t a = 0; a < A; a++)
		if (mask[a])
			r->legal[r->legal_n + k++] = (uint16_t)a;
	if (!k)
		return LG_EINVAL;
	r->nlegal[i] = (uint32_t)k;
	return 0;
}

int lg_rows_add_visits(struct lg_rows *r)
{
	size_t na = r->num_actions, cap = LG_MAX(r->cap, (size_t)1);
	float *q;

	if (r->has_visits)
		return 0;
	if (lg_rows_lists(r))
		return LG_EINVAL;
	if (na > SIZE_MAX / sizeof(float) / cap)
		return LG_ERANGE;
	if (!(q = calloc(cap * na, sizeof(float))))
		return LG_ENOMEM;
	r->visits = q;
	r->has_visits = 1;
	return 0;
}

int lg_rows_init(struct lg_rows *r, size_t obs_len, uint32_t num_actions,
		 size_t state_len, size_t cap)
{
	int rc;

	memset(r, 0, sizeof *r);
	if (!obs_len || !num_actions || !cap)
		return LG_EINVAL;
	r->obs_len = obs_len;
	r->num_actions = num_actions;
	r->state_len = state_len;
	if (num_actions > 65536)
		return LG_ERANGE; /* ids are uint16 */
	if ((rc = lg_rows_reserve(r, cap)) ||
	    (lg_rows_lists(r) && (rc = lg_rows_reserve_legal(r, 8 * cap))))
		lg_rows_free(r);
	return rc;
}

int lg_rows_append(struct lg_rows *r, const struct lg_rows *src)
{
	size_t n = r->n, m = src->n, O = r->obs_len, A = r->num_actions,
	       S = r->state_len;
	int rc;

	if (src->obs_len != O || src->num_actions != A ||
	    src->state_len != S || !src->has_visits != !r->has_visits)
		return LG_EINVAL;
	if (m > SIZE_MAX - n)
		return LG_ERANGE;
	if (n + m > r->cap &&
	    (rc = lg_rows_reserve(r, LG_MAX(n + m, 2 * r->cap))))
		return rc;
	if (lg_rows_lists(r) &&
	    (src->legal_n > SIZE_MAX / 2 - r->legal_n ||
	     (rc = lg_rows_reserve_legal(r, r->legal_n + src->legal_n))))
		return rc ? rc : LG_ERANGE;
	lg_rows_put(r, n, m,
		    &(struct lg_rows_cols){ src->obs, src->mask, src->action,
					    src->logp, src->value,
					    src->reward, src->done,
					    src->state, src->visits,
					    src->nlegal, src->legal,
					    src->legal_n });
	r->n = n + m;
	r->legal_n += src->legal_n;
	return 0;
}

void lg_rows_put(struct lg_rows *r, size_t at, size_t m,
		 const struct lg_rows_cols *c)
{
	size_t O = r->obs_len, A = r->num_actions, S = r->state_len;

	memcpy(r->obs + at * O, c->obs, m * O * sizeof(float));
	if (lg_rows_lists(r)) {
		memcpy(r->nlegal + at, c->nlegal, m * sizeof(uint32_t));
		memcpy(r->legal + r->legal_n, c->legal,
		       c->nids * sizeof(uint16_t));
	} else {
		memcpy(r->mask + at * A, c->mask, m * A);
	}
	memcpy(r->action + at, c->action, m * sizeof(int32_t));
	memcpy(r->logp + at, c->logp, m * sizeof(float));
	memcpy(r->value + at, c->value, m * sizeof(float));
	memcpy(r->reward + at, c->reward, m * sizeof(float));
	memcpy(r->done + at, c->done, m);
	if (S)
		memcpy(r->state + at * S, c->state, m * S * sizeof(float));
	if (r->has_visits)
		memcpy(r->visits + at * A, c->visits, m * A * sizeof(float));
}

void lg_rows_free(struct lg_rows *r)
{
	void *const none = NULL;

	if (!r)
		return;
	for (size_t i = 0; i < LG_ARRAY_LEN(cols); i++) {
		void *p;
		memcpy(&p, (char *)r + cols[i].at, sizeof p);
		free(p);
		memcpy((char *)r + cols[i].at, &none, sizeof none);
	}
	r->has_visits = 0;
	r->n = r->cap = 0;
	r->legal_n = r->legal_cap = 0;
}
