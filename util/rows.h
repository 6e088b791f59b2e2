/*
 * util/rows.h: a block of transition rows stored by column, the one layout
 * a row has on its way from an env to a PPO update: the collector's
 * trajectory buffers (collector/traj.c), the wire Segment's columns
 * (net/segment.c encodes them as they lie in memory and decodes straight
 * into a block) and the learner's batch (ppo_update takes a block). So a
 * row is written once into a trajectory block, serialized once, and
 * decoded once into the learner's batch; nothing converts it on the way.
 * It lives in util/ so that collector/, net/ and learner/ can all include
 * it without depending on each other.
 *
 * Row i of a block of obs_len O and num_actions A:
 *   obs[i*O .. i*O+O)    the acting seat's observation
 *   mask[i*A .. i*A+A)   1 = legal (A <= LG_ROWS_DENSE_MAX)
 *   nlegal[i], legal[..] with more actions (lg_rows_lists): the legal
 *                        ids as a list instead, row i's at legal[o_i ..
 *                        o_i + nlegal[i]) with o_i the sum of nlegal[j]
 *                        over j < i; ids strictly increasing, each
 *                        < A, at least one. A row then costs its legal
 *                        actions, not A bytes (a chess row: ~30 ids, not
 *                        4,672 mask bytes); legal_n ids are in use, and
 *                        no mask column exists (mask NULL)
 *   action[i]            the action taken (int32, legal)
 *   logp[i], value[i]    behaviour log-probability of it, value estimate
 *   reward[i]            what the seat received from this action until
 *                        its next one
 *   done[i]              LG_ROW_NEXT: row i+1 is this seat's next step of
 *                        the same episode; LG_ROW_END: the episode ended
 *                        after it (no bootstrap); LG_ROW_CUT: the stream
 *                        is cut here (another env, a later part of the
 *                        episode or nothing follows): bootstrap from
 *                        value[i]
 *   state[i*S .. i*S+S)  a recurrent policy's state before this step
 *                        (S = state_len; 0: no column)
 *   visits[i*A .. i*A+A) a search's root visit distribution at this step
 *                        (the policy target of AlphaZero's loss): >= 0,
 *                        0 on illegal actions, summing to 1, or all 0
 *                        (a fast search's move: no policy target; only
 *                        with has_visits; collector/search.c writes it;
 *                        never with lists)
 * Rows [0, n) hold data; the block has room for cap. A block made by
 * lg_rows_init owns its columns (lg_rows_free); one whose columns point
 * at the caller's arrays (a view: tests, a synthetic batch) is never
 * passed to lg_rows_reserve or lg_rows_free.
 */
#ifndef LG_ROWS_H
#define LG_ROWS_H

#include <stddef.h>
#include <stdint.h>

#define LG_ROW_NEXT 0
#define LG_ROW_END 1
#define LG_ROW_CUT 2

/* Rows of more actions carry legal lists, not masks (lg_rows_lists). */
#define LG_ROWS_DENSE_MAX 64

struct lg_rows {
	size_t n, cap;
	size_t obs_len;
	uint32_t num_actions;
	float *obs;      /* cap x obs_len */
	uint8_t *mask;   /* cap x num_actions */
	int32_t *action;
	float *logp, *value, *reward;
	uint8_t *done;
	size_t state_len;
	float *state;    /* cap x state_len; NULL when state_len is 0 */
	int has_visits;  /* the visits column is there */
	float *visits;   /* cap x num_actions; NULL without it */
	uint32_t *nlegal; /* cap: legal ids of each row (lists only) */
	uint16_t *legal;  /* legal_cap ids, legal_n of them rows [0, n)'s */
	size_t legal_n, legal_cap;
};

/* Whether rows of num_actions actions carry legal lists (more than
 * LG_ROWS_DENSE_MAX actions) rather than masks. */
static inline int lg_rows_lists_for(uint32_t num_actions)
{
	return num_actions > LG_ROWS_DENSE_MAX;
}
static inline int lg_rows_lists(const struct lg_rows *r)
{
	return lg_rows_lists_for(r->num_actions);
}

/* An empty block of obs_len x num_actions rows, with a state column of
 * state_len (0: none), with room for cap (obs_len, num_actions and cap at
 * least 1). LG_EINVAL (a zero size), LG_ERANGE (the sizes overflow),
 * LG_ENOMEM; on error *r is empty and lg_rows_free is still fine. */
int lg_rows_init(struct lg_rows *r, size_t obs_len, uint32_t num_actions,
		 size_t state_len, size_t cap);
/* Give an initialised block the visits column (has_visits; rows
 * [0, n) get zeros; a block that has it keeps it). LG_EINVAL for a block
 * of lists, LG_ERANGE, LG_ENOMEM (the block is unchanged then). */
int lg_rows_add_visits(struct lg_rows *r);
/* Room for at least cap rows, keeping rows [0, n). LG_ERANGE, LG_ENOMEM
 * (the block is unchanged then). */
int lg_rows_reserve(struct lg_rows *r, size_t cap);
/* Room for at least ids legal ids in a block of lists, keeping those in
 * use. LG_ERANGE, LG_ENOMEM (the block is unchanged then). */
int lg_rows_reserve_legal(struct lg_rows *r, size_t ids);
/* No rows (n and legal_n 0), the room kept. */
void lg_rows_clear(struct lg_rows *r);
/* Row i's legal ids of a block of lists written from a mask of
 * num_actions bytes, at legal[legal_n ..) (rows [0, i) must be all the
 * rows before: i == n), growing legal; nlegal[i] set, legal_n unchanged
 * (the caller adds nlegal[i] to it when it keeps the row). LG_EINVAL (no
 * legal action), LG_ENOMEM. */
int lg_rows_put_mask(struct lg_rows *r, size_t i, const uint8_t *mask);
/* Append src's rows to r (the same widths and columns), growing r by at
 * least doubling. LG_EINVAL (the widths, state or visits columns
 * differ), LG_ERANGE, LG_ENOMEM (r is unchanged then). */
int lg_rows_append(struct lg_rows *r, const struct lg_rows *src);
/* m rows' columns laid out as a row block lays them out (obs m x obs_len
 * floats, mask m x num_actions bytes, action int32, logp, value, reward
 * floats, done bytes, state m x state_len floats, visits m x num_actions
 * floats), not necessarily aligned: what lg_rows_put copies from. */
struct lg_rows_cols {
	const void *obs, *mask, *action, *logp, *value, *reward, *done;
	const void *state;  /* read only when r->state_len */
	const void *visits; /* read only when r->has_visits */
	/* lists (mask unread): m counts (uint32) and nids ids (uint16),
	 * nids the counts' sum */
	const void *nlegal, *legal;
	size_t nids;
};
/* Rows [at, at + m) of r from c, r's shape; the caller has checked the
 * shapes and the room (at + m <= r->cap; with lists at == r->n and
 * legal_n + c->nids <= legal_cap: the ids go at legal_n). Neither r->n
 * nor r->legal_n is changed. */
void lg_rows_put(struct lg_rows *r, size_t at, size_t m,
		 const struct lg_rows_cols *c);
/* Free the columns; the block is empty (cap 0) afterwards. NULL is
 * fine. */
void lg_rows_free(struct lg_rows *r);

#endif
