/*
 * net/segment.c: trajectory segments on the wire, layout 2
 * (net/league.proto, docs/protocol.md). A segment's columns travel as
 * bytes fields holding the values of util/rows.h as they lie in memory,
 * so the collector serializes its trajectory block once and the learner
 * appends a received segment straight into its batch: no per-row
 * conversion on either side, and no protobuf-c unpacking (which would
 * copy every column once more) on the learner's side.
 *
 * The reader is a small protobuf wire-format parser for the two messages
 * involved (Envelope, Segment): fields in any order, unknown fields
 * skipped, a repeated scalar or bytes field's last value wins, as protobuf
 * does. Everything it reads comes from outside: every length is checked
 * against the bytes left before it is used, column lengths against count
 * times the column's width, and the values against the learner's batch
 * before they count (tests/fuzz/fuzz_segment.c).
 */
#include "net/net.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "net/segment.c sends and reads columns as they lie in memory: \
little-endian hosts only"
#endif

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* One field of a message being read. */
struct field {
	uint32_t num;
	int wt;
	uint64_t v;          /* WT_VARINT */
	const uint8_t *p;    /* WT_LEN: the bytes */
	size_t len;
};

static int rd_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b;
		if (*p == end)
			return -1;
		b = *(*p)++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1; /* more than ten bytes */
}

/* Read the field at *p; 0, or -1 with *why for bytes that are not one. */
static int next_field(const uint8_t **p, const uint8_t *end,
		      struct field *f, const char **why)
{
	uint64_t key, len;

	if (rd_varint(p, end, &key)) {
		*why = "truncated field key";
		return -1;
	}
	f->num = (uint32_t)(key >> 3);
	f->wt = (int)(key & 7);
	if (key >> 3 == 0 || key >> 3 > 0x1fffffff) {
		*why = "field number out of range";
		return -1;
	}
	switch (f->wt) {
	case WT_VARINT:
		if (rd_varint(p, end, &f->v)) {
			*why = "truncated varint";
			return -1;
		}
		return 0;
	case WT_I64:
	case WT_I32:
		len = f->wt == WT_I64 ? 8 : 4;
		break;
	case WT_LEN:
		if (rd_varint(p, end, &len)) {
			*why = "truncated length";
			return -1;
		}
		break;
	default:
		*why = "unsupported wire type";
		return -1;
	}
	if (len > (size_t)(end - *p)) {
		*why = "field longer than its message";
		return -1;
	}
	f->p = *p;
	f->len = (size_t)len;
	*p += len;
	return 0;
}

int net_envelope_body(const uint8_t *buf, size_t len, int *body_case,
		      const uint8_t **body, size_t *body_len, char *err,
		      size_t errlen)
{
	const uint8_t *p = buf, *end = buf + len;
	const char *why = NULL;
	struct field f;

	*body_case = 0;
	*body = NULL;
	*body_len = 0;
	while (p < end) {
		if (next_field(&p, end, &f, &why))
			goto bad;
		/* The body's oneof starts at field 10; below are seq and
		 * reply_to. */
		if (f.num < 10)
			continue;
		if (f.wt != WT_LEN) {
			why = "a body field that is not a message";
			goto bad;
		}
		if (*body_case) {
			why = "more than one body";
			goto bad;
		}
		*body_case = (int)f.num;
		*body = f.p;
		*body_len = f.len;
	}
	if (!*body_case) {
		why = "message without a body";
		goto bad;
	}
	return 0;
bad:
	{
		char sample[160];
		net_sample(buf, len, sample, sizeof sample);
		lg_errf(err, errlen, "%s in a %zu-byte envelope (bytes: %s)",
			why, len, sample);
	}
	*body_case = 0;
	return LG_EPROTO;
}

/* A uint32 field's value, or -1 with *why. */
static int as_u32(const struct field *f, uint32_t *out, const char **why)
{
	if (f->wt != WT_VARINT || f->v > UINT32_MAX) {
		*why = "a uint32 field out of range or of another type";
		return -1;
	}
	*out = (uint32_t)f->v;
	return 0;
}

#define SEG_COLUMNS 11
static const char *const column_names[SEG_COLUMNS] = {
	"obs",	  "mask", "action", "logp",   "value",  "reward",
	"done",	  "state", "visits", "nlegal", "legal",
};

/* The bytes column i must have for s's shape; 0 on overflow. */
static uint64_t column_bytes(const struct net_segment *s, int i)
{
	uint64_t width, n;

	switch (i) {
	case 0: width = (uint64_t)s->obs_len * sizeof(float); break;
	case 1: width = s->num_actions; break;
	case 9: width = sizeof(uint32_t); break;
	case 6: width = 1; break;
	case 7: width = (uint64_t)s->state_len * sizeof(float); break;
	case 8: width = (uint64_t)s->num_actions * sizeof(float); break;
	default: width = 4; break; /* int32, float32 */
	}
	if (__builtin_mul_overflow(width, (uint64_t)s->count, &n))
		return 0;
	return n;
}

/* The columns a segment's action count allows: legal lists (nlegal,
 * legal: whole uint16 ids) and no mask past LG_ROWS_DENSE_MAX actions
 * (at most 65,536: ids are uint16), the mask and no lists up to it. 0,
 * or -1 with err. */
static int segment_lists_bad(const struct net_segment *s, const size_t *lens,
			     char *err, size_t errlen)
{
	if (!lg_rows_lists_for(s->num_actions)) {
		if (lens[9] || lens[10]) {
			lg_errf(err, errlen, "segment of %u actions with legal "
				"lists (only past %d actions; a mask here)",
				s->num_actions, LG_ROWS_DENSE_MAX);
			return -1;
		}
		return 0;
	}
	if (s->num_actions > 65536) {
		lg_errf(err, errlen, "segment of %u actions, at most 65536",
			s->num_actions);
		return -1;
	}
	if (lens[1] || lens[8]) {
		lg_errf(err, errlen, "segment of %u actions with a %s column "
			"(past %d actions rows carry legal lists)",
			s->num_actions, lens[1] ? "mask" : "visits",
			LG_ROWS_DENSE_MAX);
		return -1;
	}
	if (lens[10] % sizeof(uint16_t)) {
		lg_errf(err, errlen, "segment column legal: %zu bytes, not "
			"whole uint16 ids", lens[10]);
		return -1;
	}
	return 0;
}

/* s's column pointers from the checked columns (net_segment_parse). */
static void point_columns(struct net_segment *s, const uint8_t *const *cols,
			  const size_t *lens)
{
	s->obs = cols[0];
	s->mask = cols[1];
	s->action = cols[2];
	s->logp = cols[3];
	s->value = cols[4];
	s->reward = cols[5];
	s->done = cols[6];
	s->state = cols[7];
	/* an empty field 26 is protobuf's default: no column (its pointer
	 * would promise count x num_actions floats) */
	s->visits = lens[8] ? cols[8] : NULL;
	if (lg_rows_lists_for(s->num_actions)) {
		s->mask = NULL;
		s->nlegal = cols[9];
		s->legal = cols[10];
		s->legal_len = lens[10] / sizeof(uint16_t);
	}
}

int net_segment_parse(const uint8_t *buf, size_t len, struct net_segment *s,
		      char *err, size_t errlen)
{
	const uint8_t *p = buf, *end = buf + len, *cols[SEG_COLUMNS] = { 0 };
	const char *why = NULL;
	size_t lens[SEG_COLUMNS] = { 0 };
	uint32_t job_end = 0;
	struct field f;

	memset(s, 0, sizeof *s);
	while (p < end) {
		int rc = 0;
		if (next_field(&p, end, &f, &why))
			goto bad;
		switch (f.num) {
		case 1: rc = as_u32(&f, &s->h.player, &why); break;
		case 2: rc = as_u32(&f, &s->h.params_version, &why); break;
		case 4: rc = as_u32(&f, &s->h.env_index, &why); break;
		case 6: rc = as_u32(&f, &s->obs_len, &why); break;
		case 7: rc = as_u32(&f, &s->num_actions, &why); break;
		case 8: rc = as_u32(&f, &s->count, &why); break;
		case 16: rc = as_u32(&f, &s->layout, &why); break;
		case 24: rc = as_u32(&f, &s->state_len, &why); break;
		case 27: rc = as_u32(&f, &job_end, &why); break;
		case 28: rc = as_u32(&f, &s->h.job_segments, &why); break;
		case 3:
		case 5:
			if (f.wt != WT_VARINT) {
				why = "a uint64 field of another type";
				goto bad;
			}
			*(f.num == 3 ? &s->h.job_id : &s->h.segment_seq) = f.v;
			break;
		case 17: case 18: case 19: case 20: case 21: case 22: case 23:
		case 25: case 26: case 29: case 30:
			if (f.wt != WT_LEN) {
				why = "a column that is not bytes";
				goto bad;
			}
			/* 17..23: columns 0..6; 25 state, 26 visits, 29
			 * nlegal, 30 legal */
			cols[f.num < 24 ? f.num - 17 : f.num < 29 ? f.num - 18
								  : f.num - 20] = f.p;
			lens[f.num < 24 ? f.num - 17 : f.num < 29 ? f.num - 18
								  : f.num - 20] = f.len;
			break;
		default: /* unknown (or layout 1's): skipped */
			break;
		}
		if (rc)
			goto bad;
	}
	if (s->layout != LEAGUE__CONST__SEGMENT_LAYOUT) {
		lg_errf(err, errlen, "segment layout %u, this learner reads "
			"layout %d (a collector from before layout 2 sends "
			"repeated fields)", s->layout,
			LEAGUE__CONST__SEGMENT_LAYOUT);
		return LG_EPROTO;
	}
	s->h.job_end = job_end != 0;
	if ((!s->count && !s->h.job_end) || !s->obs_len || !s->num_actions) {
		lg_errf(err, errlen, "segment of %u rows of obs_len %u and "
			"num_actions %u: each must be at least 1 (rows may be "
			"0 only in a job's end mark)", s->count, s->obs_len,
			s->num_actions);
		return LG_EPROTO;
	}
	if (s->state_len > NET_SEGMENT_STATE_MAX) {
		lg_errf(err, errlen, "segment state_len %u, at most %u",
			s->state_len, NET_SEGMENT_STATE_MAX);
		return LG_EPROTO;
	}
	if (segment_lists_bad(s, lens, err, errlen))
		return LG_EPROTO;
	for (int i = 0; i < SEG_COLUMNS; i++) {
		uint64_t want = column_bytes(s, i);
		if ((i == 7 && !s->state_len && !lens[i]) ||
		    (i == 8 && !lens[i]) || i == 10 ||
		    (lg_rows_lists_for(s->num_actions) ? i == 1 : i == 9))
			continue; /* no state column, no visits column;
				     the lists', or the mask, apart */
		if ((!want && s->count) || lens[i] != want) {
			lg_errf(err, errlen, "segment column %s: %zu bytes, %u "
				"rows of obs_len %u and num_actions %u need "
				"%llu", column_names[i], lens[i], s->count,
				s->obs_len, s->num_actions,
				(unsigned long long)want);
			return LG_EPROTO;
		}
	}
	point_columns(s, cols, lens);
	return 0;
bad:
	lg_errf(err, errlen, "segment: %s", why);
	return LG_EPROTO;
}

/* Row i's visit distribution (row j of its segment): finite, >= 0, 0 on
 * illegal actions, summing to 1 within 1e-3 (AlphaZero's policy loss
 * reads it as a distribution over the legal actions), or all 0: a move
 * of a fast search (learner.search.fast_sims), no policy target. 0, or
 * -1 with err. */
static int visits_invalid(const struct lg_rows *r, size_t i, size_t j,
			  char *err, size_t errlen)
{
	size_t na = r->num_actions;
	const float *v = r->visits + i * na;
	double sum = 0;

	for (size_t a = 0; a < na; a++) {
		if (!isfinite(v[a]) || v[a] < 0) {
			lg_errf(err, errlen, "row %zu: visit share %g of "
				"action %zu", j, (double)v[a], a);
			return -1;
		}
		if (v[a] > 0 && !r->mask[i * na + a]) {
			lg_errf(err, errlen, "row %zu: visits on illegal "
				"action %zu", j, a);
			return -1;
		}
		sum += v[a];
	}
	if (sum != 0 && fabs(sum - 1) > 1e-3) {
		lg_errf(err, errlen, "row %zu: visit shares sum to %g, not 1 "
			"(or 0)",
			j, sum);
		return -1;
	}
	return 0;
}

/* Row i's legal list (row j of its segment) at r->legal + *at: ids
 * strictly increasing, each < num_actions, the row's action among them;
 * *at moved past it. 0, or -1 with err. */
static int list_invalid(const struct lg_rows *r, size_t i, size_t j,
			size_t *at, char *err, size_t errlen)
{
	const uint16_t *ids = r->legal + *at;
	size_t L = r->nlegal[i];
	int found = 0;

	for (size_t k = 0; k < L; k++) {
		if (ids[k] >= r->num_actions) {
			lg_errf(err, errlen, "row %zu: legal id %u, the game "
				"has %u actions", j, ids[k], r->num_actions);
			return -1;
		}
		if (k && ids[k] <= ids[k - 1]) {
			lg_errf(err, errlen, "row %zu: legal ids %u then %u "
				"(a list is strictly increasing)", j,
				ids[k - 1], ids[k]);
			return -1;
		}
		found |= ids[k] == (uint32_t)r->action[i];
	}
	if (!found) {
		lg_errf(err, errlen, "row %zu: action %d is not on its legal "
			"list", j, r->action[i]);
		return -1;
	}
	*at += L;
	return 0;
}

/* Check rows [k, k + c) of r as a segment's (lists: theirs from
 * r->legal_n): 0, or -1 with err. */
static int rows_invalid(const struct lg_rows *r, size_t k, size_t c,
			char *err, size_t errlen)
{
	size_t ol = r->obs_len, na = r->num_actions, at = r->legal_n;

	for (size_t i = k; i < k + c; i++) {
		int32_t a = r->action[i];
		if (r->done[i] > LG_ROW_CUT) {
			lg_errf(err, errlen, "row %zu: done %u (0, 1 or 2)",
				i - k, r->done[i]);
			return -1;
		}
		if (a < 0 || (size_t)a >= na) {
			lg_errf(err, errlen, "row %zu: action %d outside [0, "
				"%zu)", i - k, a, na);
			return -1;
		}
		if (lg_rows_lists(r)
			    ? list_invalid(r, i, i - k, &at, err, errlen)
			    : !r->mask[i * na + (size_t)a]) {
			if (!lg_rows_lists(r))
				lg_errf(err, errlen, "row %zu: action %d is "
					"illegal", i - k, a);
			return -1;
		}
		if (!isfinite(r->logp[i]) || !isfinite(r->value[i]) ||
		    !isfinite(r->reward[i])) {
			lg_errf(err, errlen, "row %zu: a non-finite logp, "
				"value or reward", i - k);
			return -1;
		}
		for (size_t j = 0; j < ol; j++)
			if (!isfinite(r->obs[i * ol + j])) {
				lg_errf(err, errlen, "row %zu: non-finite "
					"observation", i - k);
				return -1;
			}
		for (size_t j = 0; j < r->state_len; j++)
			if (!isfinite(r->state[i * r->state_len + j])) {
				lg_errf(err, errlen, "row %zu: non-finite "
					"recurrent state", i - k);
				return -1;
			}
		if (r->has_visits && visits_invalid(r, i, i - k, err, errlen))
			return -1;
	}
	if (r->done[k + c - 1] == LG_ROW_NEXT) {
		lg_errf(err, errlen, "last row neither ends its episode nor "
			"cuts the stream (done 0)");
		return -1;
	}
	return 0;
}

/* A segment's list lengths against its ids (each in [1, num_actions],
 * adding up to exactly legal_len: none longer than the ids declared), and
 * room in dst for the ids. 0, or -1 with err. */
static int lists_room(const struct net_segment *s, struct lg_rows *dst,
		      char *err, size_t errlen)
{
	size_t left = s->legal_len;

	for (size_t i = 0; i < s->count; i++) {
		uint32_t L;
		memcpy(&L, s->nlegal + i * sizeof L, sizeof L);
		if (!L || L > s->num_actions || L > left) {
			lg_errf(err, errlen, "row %zu: a legal list of %u ids "
				"(%zu of the segment's %zu left, %u actions)",
				i, L, left, s->legal_len, s->num_actions);
			return -1;
		}
		left -= L;
	}
	if (left) {
		lg_errf(err, errlen, "%zu legal ids past the rows' lists",
			left);
		return -1;
	}
	if (lg_rows_reserve_legal(dst, dst->legal_n + s->legal_len)) {
		lg_errf(err, errlen, "no memory for %zu legal ids",
			s->legal_len);
		return -1;
	}
	return 0;
}

int net_segment_append(const struct net_segment *s, struct lg_rows *dst,
		       char *err, size_t errlen)
{
	size_t k = dst->n, c = s->count, ol = dst->obs_len;
	size_t na = dst->num_actions;

	if (!c) {
		lg_errf(err, errlen, "no rows");
		return LG_EINVAL;
	}
	if (s->obs_len != ol || s->num_actions != na) {
		lg_errf(err, errlen, "shape %u x %u differs from the model's "
			"%zu x %zu (obs_len x num_actions)", s->obs_len,
			s->num_actions, ol, na);
		return LG_EINVAL;
	}
	if (s->state_len != dst->state_len) {
		lg_errf(err, errlen, "recurrent state of %u floats a row, the "
			"model's is %zu", s->state_len, dst->state_len);
		return LG_EINVAL;
	}
	if ((s->visits != NULL) != (dst->has_visits != 0)) {
		lg_errf(err, errlen, "%s", dst->has_visits
			? "no search visits, and this learner trains on them "
			  "(learner.search)"
			: "search visits, and this learner has no search "
			  "(learner.search off)");
		return LG_EINVAL;
	}
	if (c > dst->cap - k) {
		lg_errf(err, errlen, "%zu rows, room for %zu", c,
			dst->cap - k);
		return LG_EINVAL;
	}
	if (lg_rows_lists(dst) && lists_room(s, dst, err, errlen))
		return LG_EINVAL;
	/* Into the rows past n first, checked there (aligned), counted only
	 * once every value passed. */
	lg_rows_put(dst, k, c,
		    &(struct lg_rows_cols){ s->obs, s->mask, s->action,
					    s->logp, s->value, s->reward,
					    s->done, s->state, s->visits,
					    s->nlegal, s->legal,
					    s->legal_len });
	if (rows_invalid(dst, k, c, err, errlen))
		return LG_EINVAL;
	dst->n = k + c;
	dst->legal_n += s->legal_len;
	return 0;
}

int net_segment_encode(const struct net_segment_hdr *h,
		       const struct lg_rows *r, uint64_t seq, lg_buf *out)
{
	League__Segment sg = LEAGUE__SEGMENT__INIT;
	net_msg m = LEAGUE__ENVELOPE__INIT;
	size_t c = r->n;

	if ((!c && !h->job_end) || c > UINT32_MAX || !r->obs_len || r->obs_len > UINT32_MAX ||
	    !r->num_actions || c > SIZE_MAX / sizeof(float) / r->obs_len ||
	    c > SIZE_MAX / r->num_actions ||
	    r->state_len > NET_SEGMENT_STATE_MAX ||
	    (r->state_len && c > SIZE_MAX / sizeof(float) / r->state_len) ||
	    (r->has_visits &&
	     c > SIZE_MAX / sizeof(float) / r->num_actions) ||
	    (lg_rows_lists(r) && r->has_visits))
		return LG_EINVAL;
	sg.player = h->player;
	sg.params_version = h->params_version;
	sg.job_id = h->job_id;
	sg.env_index = h->env_index;
	sg.segment_seq = h->segment_seq;
	sg.job_end = h->job_end;
	sg.job_segments = h->job_segments;
	sg.obs_len = (uint32_t)r->obs_len;
	sg.num_actions = r->num_actions;
	sg.count = (uint32_t)c;
	sg.layout = LEAGUE__CONST__SEGMENT_LAYOUT;
	/* protobuf-c reads these while packing; it never writes them. */
	sg.obs.data = (uint8_t *)(uintptr_t)r->obs;
	sg.obs.len = c * r->obs_len * sizeof(float);
	if (lg_rows_lists(r)) {
		sg.nlegal.data = (uint8_t *)(uintptr_t)r->nlegal;
		sg.nlegal.len = c * sizeof(uint32_t);
		sg.legal.data = (uint8_t *)(uintptr_t)r->legal;
		sg.legal.len = r->legal_n * sizeof(uint16_t);
	} else {
		sg.mask.data = (uint8_t *)(uintptr_t)r->mask;
		sg.mask.len = c * r->num_actions;
	}
	sg.action.data = (uint8_t *)(uintptr_t)r->action;
	sg.action.len = c * sizeof(int32_t);
	sg.logp.data = (uint8_t *)(uintptr_t)r->logp;
	sg.logp.len = c * sizeof(float);
	sg.value.data = (uint8_t *)(uintptr_t)r->value;
	sg.value.len = c * sizeof(float);
	sg.reward.data = (uint8_t *)(uintptr_t)r->reward;
	sg.reward.len = c * sizeof(float);
	sg.done.data = (uint8_t *)(uintptr_t)r->done;
	sg.done.len = c;
	if (r->state_len) {
		sg.state_len = (uint32_t)r->state_len;
		sg.state.data = (uint8_t *)(uintptr_t)r->state;
		sg.state.len = c * r->state_len * sizeof(float);
	}
	if (r->has_visits) {
		sg.visits.data = (uint8_t *)(uintptr_t)r->visits;
		sg.visits.len = c * r->num_actions * sizeof(float);
	}
	m.seq = seq;
	m.body_case = LEAGUE__ENVELOPE__BODY_SEGMENT;
	m.segment = &sg;
	return net_frame_encode(&m, out);
}

/* ---- rows beside a trainer state (league.deterministic) ---------------- */

#define TRAINER_ROWS_MAGIC "LGTD"

int net_trainer_pack(const void *state, size_t len, const struct lg_rows *rows,
		     lg_buf *out)
{
	struct net_segment_hdr h = { 0 };
	uint8_t head[8];
	int rc;

	if (len > UINT32_MAX)
		return LG_EINVAL;
	memcpy(head, TRAINER_ROWS_MAGIC, 4);
	lg_put_be32(head + 4, (uint32_t)len);
	if ((rc = lg_buf_append(out, head, sizeof head)) ||
	    (rc = lg_buf_append(out, state, len)))
		return rc;
	return rows->n ? net_segment_encode(&h, rows, 0, out) : 0;
}

int net_trainer_unpack(const uint8_t *blob, size_t len, const uint8_t **state,
		       size_t *state_len, struct lg_rows *dst, char *err,
		       size_t errlen)
{
	const uint8_t *body, *p;
	size_t body_len, n, rest, frame;
	struct net_segment sg;
	int bc, rc;

	if (len < 8 || memcmp(blob, TRAINER_ROWS_MAGIC, 4)) {
		lg_errf(err, errlen, "not a deterministic trainer state "
			"(magic %s expected)", TRAINER_ROWS_MAGIC);
		return LG_EPROTO;
	}
	n = lg_get_be32(blob + 4);
	if (n > len - 8) {
		lg_errf(err, errlen, "trainer state of %zu bytes in a record "
			"of %zu", n, len);
		return LG_EPROTO;
	}
	*state = blob + 8;
	*state_len = n;
	p = blob + 8 + n;
	rest = len - 8 - n;
	if (!rest)
		return 0; /* no rows were waiting */
	if (rest < NET_FRAME_HDR ||
	    (frame = lg_get_be32(p)) != rest - NET_FRAME_HDR) {
		lg_errf(err, errlen, "waiting rows: a frame of %zu bytes that "
			"is not the record's last %zu", rest < NET_FRAME_HDR
			? rest : (size_t)lg_get_be32(p), rest);
		return LG_EPROTO;
	}
	if ((rc = net_envelope_body(p + NET_FRAME_HDR, frame, &bc, &body,
				    &body_len, err, errlen)))
		return rc;
	if (bc != LEAGUE__ENVELOPE__BODY_SEGMENT) {
		lg_errf(err, errlen, "waiting rows: message %d, not a "
			"Segment", bc);
		return LG_EPROTO;
	}
	if ((rc = net_segment_parse(body, body_len, &sg, err, errlen)))
		return rc;
	if (!sg.count) {
		lg_errf(err, errlen, "waiting rows: none in their frame");
		return LG_EPROTO;
	}
	return net_segment_append(&sg, dst, err, errlen);
}
