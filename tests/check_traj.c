/* tests/check_traj.c: trajectory segments and their streams. The layout-2
 * Segment codec: a block of rows survives encode, parse and append bit
 * for bit, and every malformed or invalid segment is refused with a
 * reason and leaves the learner's batch as it was. Streams with credit
 * flow control, over real loopback sockets: nothing lost, duplicated or
 * reordered per sender; the queue never holds more than senders x window;
 * a sender ignoring credit is cut off, and so is one sending a segment of
 * another layout; a wrong token is refused. Liveness: a sender gives up
 * on a learner that says nothing or stops reading, and waits for one
 * that heartbeats. */
#include <check.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net.h"
#include "tests/proto.h"
#include "tests/testutil.h"

enum { SENDERS = 3, PER_SENDER = 400, WINDOW = 8 };
enum { OL = 4, NA = 3 };

static net_traj_server *start(const char *token)
{
	struct net_traj_server_opts o = { .token = token, .window = WINDOW,
					  .max_senders = 4 };
	net_traj_server *s;
	char err[256];

	ck_assert_msg(net_traj_server_start(&s, &o, err, sizeof err) == 0, "%s",
		      err);
	return s;
}

/* n rows of obs_len OL and NA actions (action 2 illegal), every value
 * telling its row and seq; action 1, an episode end on row 2, the last
 * row a cut (unless it is row 2). */
static void fill_rows(struct lg_rows *r, size_t n, uint64_t seq)
{
	ck_assert_int_eq(lg_rows_init(r, OL, NA, 0, n), 0);
	r->n = n;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < OL; j++)
			r->obs[i * OL + j] = (float)(seq * 100 + i * OL + j);
		for (size_t a = 0; a < NA; a++)
			r->mask[i * NA + a] = a != 2;
		r->action[i] = 1;
		r->logp[i] = -(float)i;
		r->value[i] = 0.5f * (float)i;
		r->reward[i] = i == 2 ? 1.0f : 0.0f;
		r->done[i] = i == 2 ? LG_ROW_END : LG_ROW_NEXT;
	}
	if (r->done[n - 1] == LG_ROW_NEXT)
		r->done[n - 1] = LG_ROW_CUT;
}

/* The Segment bytes inside an encoded frame. */
static void segment_bytes(const lg_buf *frame, const uint8_t **seg,
			  size_t *len)
{
	int body;
	char err[256];

	ck_assert_msg(net_envelope_body(frame->data + NET_FRAME_HDR,
					frame->len - NET_FRAME_HDR, &body, seg,
					len, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(body, LEAGUE__ENVELOPE__BODY_SEGMENT);
}

START_TEST(codec_round_trip)
{
	struct net_segment_hdr h = { 7, 3, 2, 0x1234567890ull, 41, 0, 0 };
	struct lg_rows r, dst;
	struct net_segment g;
	lg_buf frame = { 0 };
	const uint8_t *seg;
	size_t len;
	char err[256];

	fill_rows(&r, 5, 9);
	ck_assert_int_eq(net_segment_encode(&h, &r, 77, &frame), 0);
	/* protobuf-c reads what we wrote, field for field */
	{
		net_msg *m;
		size_t used;
		ck_assert_int_eq(net_frame_decode(frame.data, frame.len, 1 << 20,
						  &m, &used, err, sizeof err),
				 0);
		ck_assert_uint_eq(used, frame.len);
		ck_assert_uint_eq(m->seq, 77);
		ck_assert_int_eq(m->body_case, LEAGUE__ENVELOPE__BODY_SEGMENT);
		ck_assert_uint_eq(m->segment->layout,
				  LEAGUE__CONST__SEGMENT_LAYOUT);
		ck_assert_uint_eq(m->segment->count, 5);
		ck_assert_uint_eq(m->segment->obs.len, 5 * OL * sizeof(float));
		net_msg_free(m);
	}
	segment_bytes(&frame, &seg, &len);
	ck_assert_msg(net_segment_parse(seg, len, &g, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_uint_eq(g.h.player, 7);
	ck_assert_uint_eq(g.h.params_version, 3);
	ck_assert_uint_eq(g.h.env_index, 2);
	ck_assert_uint_eq(g.h.job_id, 0x1234567890ull);
	ck_assert_uint_eq(g.h.segment_seq, 41);
	ck_assert_uint_eq(g.count, 5);
	/* appended after two rows already there: the new rows land at 2 */
	ck_assert_int_eq(lg_rows_init(&dst, OL, NA, 0, 16), 0);
	dst.n = 2;
	ck_assert_msg(net_segment_append(&g, &dst, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_uint_eq(dst.n, 7);
	ck_assert_int_eq(memcmp(dst.obs + 2 * OL, r.obs, 5 * OL * 4), 0);
	ck_assert_int_eq(memcmp(dst.mask + 2 * NA, r.mask, 5 * NA), 0);
	ck_assert_int_eq(memcmp(dst.action + 2, r.action, 5 * 4), 0);
	ck_assert_int_eq(memcmp(dst.logp + 2, r.logp, 5 * 4), 0);
	ck_assert_int_eq(memcmp(dst.value + 2, r.value, 5 * 4), 0);
	ck_assert_int_eq(memcmp(dst.reward + 2, r.reward, 5 * 4), 0);
	ck_assert_int_eq(memcmp(dst.done + 2, r.done, 5), 0);
	ck_assert_int_eq(dst.done[6], LG_ROW_CUT); /* no recoding */
	lg_buf_free(&frame);
	lg_rows_free(&r);
	lg_rows_free(&dst);
}
END_TEST

/* league.deterministic: a job's end mark may carry no rows (and says
 * job_end); no other segment may. */
START_TEST(codec_job_end_mark)
{
	struct net_segment_hdr h = { 7, 3, 0, 12, UINT64_MAX, 1, 3 };
	struct lg_rows none = { .obs_len = OL, .num_actions = NA };
	struct net_segment g;
	lg_buf frame = { 0 };
	const uint8_t *seg;
	uint8_t copy[512];
	size_t len, n = 0;
	char err[256];

	ck_assert_int_eq(net_segment_encode(&h, &none, 5, &frame), 0);
	segment_bytes(&frame, &seg, &len);
	ck_assert_msg(net_segment_parse(seg, len, &g, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_int_eq(g.h.job_end, 1);
	ck_assert_uint_eq(g.count, 0);
	ck_assert_uint_eq(g.h.job_id, 12);
	ck_assert_uint_eq(g.h.job_segments, 3);
	/* the mark's bytes without field 27 (tag 0xd8 0x01, value 1): a
	 * segment of no rows, refused */
	ck_assert_uint_le(len, sizeof copy);
	for (size_t i = 0; i < len; i++) {
		if (i + 2 < len && seg[i] == 0xd8 && seg[i + 1] == 0x01 &&
		    seg[i + 2] == 0x01) {
			i += 2;
			continue;
		}
		copy[n++] = seg[i];
	}
	ck_assert_uint_eq(n, len - 3);
	ck_assert_int_eq(net_segment_parse(copy, n, &g, err, sizeof err),
			 LG_EPROTO);
	ck_assert_msg(strstr(err, "only in a job's end mark"), "%s", err);
	/* and nothing to encode without the mark */
	h.job_end = 0;
	frame.len = 0;
	ck_assert_int_eq(net_segment_encode(&h, &none, 5, &frame), LG_EINVAL);
	lg_buf_free(&frame);
}
END_TEST

/* league.deterministic's trainer blob: the state and the rows that wait
 * come back as they went; bytes that are not such a blob are refused
 * and leave the batch as it was. */
START_TEST(trainer_rows_round_trip)
{
	static const uint8_t state[] = "LGTS and some state";
	struct lg_rows r, back;
	lg_buf b = { 0 };
	const uint8_t *st;
	size_t sl;
	char err[256];

	fill_rows(&r, 6, 4);
	ck_assert_int_eq(lg_rows_init(&back, OL, NA, 0, 16), 0);
	ck_assert_int_eq(net_trainer_pack(state, sizeof state, &r, &b), 0);
	ck_assert_msg(net_trainer_unpack(b.data, b.len, &st, &sl, &back, err,
					 sizeof err) == 0, "%s", err);
	ck_assert_uint_eq(sl, sizeof state);
	ck_assert_int_eq(memcmp(st, state, sl), 0);
	ck_assert_uint_eq(back.n, 6);
	ck_assert_int_eq(memcmp(back.obs, r.obs, 6 * OL * 4), 0);
	ck_assert_int_eq(memcmp(back.done, r.done, 6), 0);
	/* no rows waiting: the state alone */
	back.n = 0;
	r.n = 0;
	b.len = 0;
	ck_assert_int_eq(net_trainer_pack(state, sizeof state, &r, &b), 0);
	ck_assert_uint_eq(b.len, 8 + sizeof state);
	ck_assert_int_eq(net_trainer_unpack(b.data, b.len, &st, &sl, &back,
					    err, sizeof err), 0);
	ck_assert_uint_eq(back.n, 0);
	/* refused: a torn frame, a state length past the end, another
	 * magic; the batch stays empty */
	r.n = 6;
	b.len = 0;
	ck_assert_int_eq(net_trainer_pack(state, sizeof state, &r, &b), 0);
	ck_assert_int_eq(net_trainer_unpack(b.data, b.len - 1, &st, &sl, &back,
					    err, sizeof err), LG_EPROTO);
	ck_assert_msg(strstr(err, "waiting rows"), "%s", err);
	b.data[4] = 0x7f;
	ck_assert_int_eq(net_trainer_unpack(b.data, b.len, &st, &sl, &back,
					    err, sizeof err), LG_EPROTO);
	b.data[0] = 'X';
	ck_assert_int_eq(net_trainer_unpack(b.data, b.len, &st, &sl, &back,
					    err, sizeof err), LG_EPROTO);
	ck_assert_msg(strstr(err, "LGTD"), "%s", err);
	ck_assert_uint_eq(back.n, 0);
	lg_buf_free(&b);
	lg_rows_free(&r);
	lg_rows_free(&back);
}
END_TEST

/* A recurrent policy's rows: the state column travels as field 25 with
 * state_len 24, and lands in a batch with the same state_len; a batch of
 * another width, a state-less batch, a non-finite state and a column of
 * the wrong length are refused. */
START_TEST(codec_state_column)
{
	struct net_segment_hdr h = { 7, 3, 2, 9, 1, 0, 0 };
	struct lg_rows r, dst, flat;
	struct net_segment g;
	lg_buf frame = { 0 };
	const uint8_t *seg;
	size_t len;
	char err[256];

	ck_assert_int_eq(lg_rows_init(&r, OL, NA, 3, 5), 0);
	{
		struct lg_rows t;
		fill_rows(&t, 5, 9);
		memcpy(r.obs, t.obs, 5 * OL * 4);
		memcpy(r.mask, t.mask, 5 * NA);
		memcpy(r.action, t.action, 5 * 4);
		memcpy(r.logp, t.logp, 5 * 4);
		memcpy(r.value, t.value, 5 * 4);
		memcpy(r.reward, t.reward, 5 * 4);
		memcpy(r.done, t.done, 5);
		lg_rows_free(&t);
	}
	r.n = 5;
	for (size_t i = 0; i < 15; i++)
		r.state[i] = 0.25f * (float)i - 1;
	ck_assert_int_eq(net_segment_encode(&h, &r, 1, &frame), 0);
	segment_bytes(&frame, &seg, &len);
	ck_assert_msg(net_segment_parse(seg, len, &g, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_uint_eq(g.state_len, 3);
	ck_assert_int_eq(lg_rows_init(&dst, OL, NA, 3, 8), 0);
	dst.n = 1;
	ck_assert_msg(net_segment_append(&g, &dst, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_int_eq(memcmp(dst.state + 3, r.state, 15 * 4), 0);
	ck_assert_int_eq(lg_rows_init(&flat, OL, NA, 0, 8), 0);
	ck_assert_int_eq(net_segment_append(&g, &flat, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "recurrent state"), "%s", err);
	/* a state-less segment into a recurrent batch */
	{
		struct lg_rows t;
		lg_buf f2 = { 0 };
		fill_rows(&t, 5, 9);
		ck_assert_int_eq(net_segment_encode(&h, &t, 2, &f2), 0);
		segment_bytes(&f2, &seg, &len);
		ck_assert_int_eq(net_segment_parse(seg, len, &g, err,
						   sizeof err), 0);
		dst.n = 0;
		ck_assert_int_eq(net_segment_append(&g, &dst, err, sizeof err),
				 LG_EINVAL);
		lg_buf_free(&f2);
		lg_rows_free(&t);
	}
	/* a non-finite state */
	r.state[4] = NAN;
	lg_buf_free(&frame);
	ck_assert_int_eq(net_segment_encode(&h, &r, 3, &frame), 0);
	segment_bytes(&frame, &seg, &len);
	ck_assert_int_eq(net_segment_parse(seg, len, &g, err, sizeof err), 0);
	dst.n = 0;
	ck_assert_int_eq(net_segment_append(&g, &dst, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "row 1") && strstr(err, "recurrent"), "%s",
		      err);
	ck_assert_uint_eq(dst.n, 0);
	/* state_len that disagrees with the column's bytes */
	r.n = 4;
	r.state_len = 2;
	lg_buf_free(&frame);
	ck_assert_int_eq(net_segment_encode(&h, &r, 4, &frame), 0);
	segment_bytes(&frame, &seg, &len);
	ck_assert_int_eq(net_segment_parse(seg, len, &g, err, sizeof err), 0);
	r.state_len = 3;
	{
		/* rewrite field 24 (state_len; key varint c0 01, value 2)
		 * to 3: the column then holds 8 floats where 12 are due */
		uint8_t *p = (uint8_t *)(uintptr_t)seg;
		int done = 0;
		for (size_t i = 0; i + 2 < len && !done; i++)
			if (p[i] == 0xc0 && p[i + 1] == 0x01 && p[i + 2] == 2) {
				p[i + 2] = 3;
				done = 1;
			}
		ck_assert(done);
	}
	ck_assert_int_eq(net_segment_parse(seg, len, &g, err, sizeof err),
			 LG_EPROTO);
	ck_assert_msg(strstr(err, "state"), "%s", err);
	lg_buf_free(&frame);
	lg_rows_free(&r);
	lg_rows_free(&dst);
	lg_rows_free(&flat);
}
END_TEST

/* A searched segment: the visits column travels as field 26 and lands
 * bit for bit in a batch that has one; a batch without one refuses it, a
 * batch with one refuses a segment without; a row of zeros (a fast
 * search's, no policy target) passes; shares that are negative, on an
 * illegal action, or sum to neither 1 nor 0 are refused naming the row (a
 * column of the wrong length: codec_refuses_bad_segments). */
/* lg_rows_append: rows after rows, the block grown past its room, every
 * column (state and visits too) copied; other widths refused with the
 * block unchanged. */
START_TEST(rows_append_grows_and_copies)
{
	struct lg_rows a, b, d, v, other;

	fill_rows(&a, 5, 4);
	fill_rows(&b, 3, 9);
	ck_assert_int_eq(lg_rows_init(&d, OL, NA, 0, 2), 0);
	ck_assert_int_eq(lg_rows_append(&d, &a), 0);
	ck_assert_int_eq(lg_rows_append(&d, &b), 0);
	ck_assert_uint_eq(d.n, 8);
	ck_assert_uint_ge(d.cap, 8);
	ck_assert_int_eq(memcmp(d.obs, a.obs, 5 * OL * 4), 0);
	ck_assert_int_eq(memcmp(d.obs + 5 * OL, b.obs, 3 * OL * 4), 0);
	ck_assert_int_eq(memcmp(d.mask + 5 * NA, b.mask, 3 * NA), 0);
	ck_assert_int_eq(memcmp(d.action + 5, b.action, 3 * 4), 0);
	ck_assert_int_eq(memcmp(d.logp + 5, b.logp, 3 * 4), 0);
	ck_assert_int_eq(memcmp(d.value + 5, b.value, 3 * 4), 0);
	ck_assert_int_eq(memcmp(d.reward + 5, b.reward, 3 * 4), 0);
	ck_assert_int_eq(memcmp(d.done + 5, b.done, 3), 0);
	/* the visits column goes with its rows; a block without it is
	 * refused, and so is another width */
	ck_assert_int_eq(lg_rows_add_visits(&b), 0);
	for (size_t i = 0; i < 3 * NA; i++)
		b.visits[i] = (float)i;
	ck_assert_int_eq(lg_rows_init(&v, OL, NA, 0, 1), 0);
	ck_assert_int_eq(lg_rows_add_visits(&v), 0);
	ck_assert_int_eq(lg_rows_append(&v, &b), 0);
	ck_assert_int_eq(memcmp(v.visits, b.visits, 3 * NA * 4), 0);
	ck_assert_int_eq(lg_rows_append(&v, &a), LG_EINVAL);
	ck_assert_int_eq(lg_rows_append(&d, &b), LG_EINVAL);
	ck_assert_int_eq(lg_rows_init(&other, OL + 1, NA, 0, 1), 0);
	ck_assert_int_eq(lg_rows_append(&d, &other), LG_EINVAL);
	ck_assert_uint_eq(d.n, 8);
	ck_assert_uint_eq(v.n, 3);
	/* the recurrent state column */
	{
		struct lg_rows st, ds;
		ck_assert_int_eq(lg_rows_init(&st, OL, NA, 2, 3), 0);
		st.n = 3;
		memset(st.obs, 0, 3 * OL * 4);
		for (size_t i = 0; i < 6; i++)
			st.state[i] = 0.5f + (float)i;
		ck_assert_int_eq(lg_rows_init(&ds, OL, NA, 2, 1), 0);
		ck_assert_int_eq(lg_rows_append(&ds, &st), 0);
		ck_assert_int_eq(lg_rows_append(&ds, &st), 0);
		ck_assert_int_eq(memcmp(ds.state + 6, st.state, 6 * 4), 0);
		ck_assert_int_eq(lg_rows_append(&d, &st), LG_EINVAL);
		lg_rows_free(&st);
		lg_rows_free(&ds);
	}
	lg_rows_free(&a);
	lg_rows_free(&b);
	lg_rows_free(&d);
	lg_rows_free(&v);
	lg_rows_free(&other);
}
END_TEST

START_TEST(codec_visits_column)
{
	struct net_segment_hdr h = { 7, 3, 2, 9, 1, 0, 0 };
	struct lg_rows r, dst, flat;
	struct net_segment g;
	lg_buf frame = { 0 };
	const uint8_t *seg;
	size_t len;
	char err[256];

	fill_rows(&r, 5, 4);
	ck_assert_int_eq(lg_rows_add_visits(&r), 0);
	for (size_t i = 0; i < 5; i++) { /* action 2 is illegal */
		r.visits[i * NA] = 0.125f * (float)i;
		r.visits[i * NA + 1] = 1 - 0.125f * (float)i;
	}
	r.visits[2 * NA] = r.visits[2 * NA + 1] = 0; /* a fast search's */
	ck_assert_int_eq(net_segment_encode(&h, &r, 1, &frame), 0);
	segment_bytes(&frame, &seg, &len);
	ck_assert_msg(net_segment_parse(seg, len, &g, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_ptr_nonnull(g.visits);
	ck_assert_int_eq(lg_rows_init(&dst, OL, NA, 0, 8), 0);
	ck_assert_int_eq(lg_rows_add_visits(&dst), 0);
	dst.n = 2;
	ck_assert_msg(net_segment_append(&g, &dst, err, sizeof err) == 0, "%s",
		      err);
	ck_assert_uint_eq(dst.n, 7);
	ck_assert_int_eq(memcmp(dst.visits + 2 * NA, r.visits, 5 * NA * 4), 0);
	ck_assert_int_eq(memcmp(dst.action + 2, r.action, 5 * 4), 0);
	/* the batch grows with its column */
	ck_assert_int_eq(lg_rows_reserve(&dst, 64), 0);
	ck_assert_int_eq(memcmp(dst.visits + 2 * NA, r.visits, 5 * NA * 4), 0);
	/* into a batch without the column */
	ck_assert_int_eq(lg_rows_init(&flat, OL, NA, 0, 8), 0);
	ck_assert_int_eq(net_segment_append(&g, &flat, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "learner.search off"), "%s", err);
	ck_assert_uint_eq(flat.n, 0);
	/* a segment without it into a batch with it */
	{
		struct lg_rows t;
		lg_buf f2 = { 0 };
		fill_rows(&t, 5, 9);
		ck_assert_int_eq(net_segment_encode(&h, &t, 2, &f2), 0);
		segment_bytes(&f2, &seg, &len);
		ck_assert_int_eq(net_segment_parse(seg, len, &g, err,
						   sizeof err), 0);
		ck_assert_ptr_null(g.visits);
		dst.n = 0;
		ck_assert_int_eq(net_segment_append(&g, &dst, err, sizeof err),
				 LG_EINVAL);
		ck_assert_msg(strstr(err, "no search visits"), "%s", err);
		lg_buf_free(&f2);
		lg_rows_free(&t);
	}
	/* shares that are no distribution over the legal actions */
	static const struct {
		size_t at;
		float v;
		const char *says;
	} bad[] = {
		{ 3 * NA + 0, -0.25f, "row 3: visit share -0.25" },
		{ 1 * NA + 2, 0.0f, "row 1: visit shares sum to" },
		{ 4 * NA + 2, 0.5f, "row 4: visits on illegal" },
		{ 0 * NA + 1, NAN, "row 0: visit share" },
	};
	for (size_t k = 0; k < LG_ARRAY_LEN(bad); k++) {
		struct lg_rows t = r;
		float v[5 * NA];
		memcpy(v, r.visits, sizeof v);
		if (k == 1)
			v[1 * NA + 1] = 0.5f; /* sums to 0.625 */
		else
			v[bad[k].at] = bad[k].v;
		t.visits = v;
		lg_buf_free(&frame);
		ck_assert_int_eq(net_segment_encode(&h, &t, 3, &frame), 0);
		segment_bytes(&frame, &seg, &len);
		ck_assert_int_eq(net_segment_parse(seg, len, &g, err,
						   sizeof err), 0);
		dst.n = 1;
		ck_assert_int_eq(net_segment_append(&g, &dst, err, sizeof err),
				 LG_EINVAL);
		ck_assert_msg(strstr(err, bad[k].says), "case %zu: %s", k,
			      err);
		ck_assert_uint_eq(dst.n, 1);
	}
	lg_buf_free(&frame);
	lg_rows_free(&r);
	lg_rows_free(&dst);
	lg_rows_free(&flat);
}
END_TEST

/* One bad segment per case: what is changed, where it is refused
 * (parse: malformed, LG_EPROTO; append: invalid against the batch,
 * LG_EINVAL) and a word the reason must hold. */
enum where { ROWS, BYTES, DST };
static const struct bad_case {
	const char *what;
	enum where where;
	int rc;
	const char *says;
} bad_cases[] = {
	{ "done 3", ROWS, LG_EINVAL, "done 3" },
	{ "last row next", ROWS, LG_EINVAL, "last row" },
	{ "action out of range", ROWS, LG_EINVAL, "outside" },
	{ "illegal action", ROWS, LG_EINVAL, "illegal" },
	{ "negative action", ROWS, LG_EINVAL, "outside" },
	{ "nan observation", ROWS, LG_EINVAL, "observation" },
	{ "inf reward", ROWS, LG_EINVAL, "non-finite" },
	{ "other obs_len", DST, LG_EINVAL, "differs" },
	{ "other num_actions", DST, LG_EINVAL, "differs" },
	{ "no room", DST, LG_EINVAL, "room" },
	{ "truncated", BYTES, LG_EPROTO, "segment" },
	{ "layout 1", BYTES, LG_EPROTO, "layout" },
	{ "short column", BYTES, LG_EPROTO, "column" },
	{ "short visits column", BYTES, LG_EPROTO, "column visits" },
	{ "count past columns", BYTES, LG_EPROTO, "column" },
	{ "zero count", BYTES, LG_EPROTO, "at least 1" },
	{ "column of another type", BYTES, LG_EPROTO, "not bytes" },
	{ "uint32 too large", BYTES, LG_EPROTO, "uint32" },
};

/* Append a varint to b. */
static void put_varint(lg_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	ck_assert_int_eq(lg_buf_append(b, tmp, n), 0);
}

/* Append a field: a varint (len < 0: v) or bytes p[0, len). */
static void put_field(lg_buf *b, uint32_t num, uint64_t v, const void *p,
		      long len)
{
	put_varint(b, (uint64_t)num << 3 | (len < 0 ? 0 : 2));
	if (len < 0) {
		put_varint(b, v);
		return;
	}
	put_varint(b, (uint64_t)len);
	ck_assert_int_eq(lg_buf_append(b, p, (size_t)len), 0);
}

static void put_varint_field(lg_buf *b, uint32_t num, uint64_t v)
{
	put_field(b, num, v, NULL, -1);
}

START_TEST(codec_refuses_bad_segments)
{
	const struct bad_case *bc = &bad_cases[_i];
	struct net_segment_hdr h = { 1, 0, 0, 5, 6, 0, 0 };
	struct lg_rows r, dst;
	struct net_segment g;
	lg_buf frame = { 0 }, seg = { 0 };
	const uint8_t *sp;
	size_t slen;
	char err[256] = "";
	int rc;

	fill_rows(&r, 4, 1);
	ck_assert_int_eq(lg_rows_init(&dst, OL, NA, 0, 8), 0);
	dst.n = 1;
	if (!strcmp(bc->what, "done 3"))
		r.done[1] = 3;
	else if (!strcmp(bc->what, "last row next"))
		r.done[3] = LG_ROW_NEXT;
	else if (!strcmp(bc->what, "action out of range"))
		r.action[1] = NA;
	else if (!strcmp(bc->what, "illegal action"))
		r.action[3] = 2;
	else if (!strcmp(bc->what, "negative action"))
		r.action[0] = -1;
	else if (!strcmp(bc->what, "nan observation"))
		r.obs[2 * OL + 1] = NAN;
	else if (!strcmp(bc->what, "inf reward"))
		r.reward[0] = INFINITY;
	else if (!strcmp(bc->what, "other obs_len"))
		dst.obs_len = OL + 1;
	else if (!strcmp(bc->what, "other num_actions"))
		dst.num_actions = NA - 1;
	else if (!strcmp(bc->what, "no room"))
		dst.n = 5; /* 3 free, 4 come */
	ck_assert_int_eq(net_segment_encode(&h, &r, 1, &frame), 0);
	segment_bytes(&frame, &sp, &slen);
	ck_assert_int_eq(lg_buf_append(&seg, sp, slen), 0);
	if (!strcmp(bc->what, "truncated"))
		seg.len -= 3;
	else if (!strcmp(bc->what, "layout 1"))
		put_varint_field(&seg, 16, 1); /* a later field wins */
	else if (!strcmp(bc->what, "short column")) {
		/* a done column one byte short: field 23 again wins */
		uint8_t d[] = { 0, 0, 1 };
		put_field(&seg, 23, 0, d, sizeof d);
	} else if (!strcmp(bc->what, "short visits column")) {
		/* one float where 4 rows x NA are due */
		float v[1] = { 1 };
		put_field(&seg, 26, 0, v, sizeof v);
	} else if (!strcmp(bc->what, "count past columns"))
		put_varint_field(&seg, 8, 5);
	else if (!strcmp(bc->what, "zero count"))
		put_varint_field(&seg, 8, 0);
	else if (!strcmp(bc->what, "column of another type"))
		put_varint_field(&seg, 17, 4);
	else if (!strcmp(bc->what, "uint32 too large"))
		put_varint_field(&seg, 7, 1ull << 32);
	rc = net_segment_parse(seg.data, seg.len, &g, err, sizeof err);
	if (bc->where == BYTES) {
		ck_assert_int_eq(rc, bc->rc);
	} else {
		ck_assert_msg(rc == 0, "%s", err);
		rc = net_segment_append(&g, &dst, err, sizeof err);
		ck_assert_int_eq(rc, bc->rc);
		/* nothing of a refused segment counts */
		ck_assert_uint_eq(dst.n, strcmp(bc->what, "no room") ? 1 : 5);
	}
	ck_assert_msg(strstr(err, bc->says), "%s: '%s' lacks '%s'", bc->what,
		      err, bc->says);
	dst.obs_len = OL;
	dst.num_actions = NA;
	lg_buf_free(&frame);
	lg_buf_free(&seg);
	lg_rows_free(&r);
	lg_rows_free(&dst);
}
END_TEST

/* An empty visits field (26) is protobuf's default: no column. The
 * segment goes into a batch without one, and a batch with one refuses it
 * (libFuzzer found the parser handing the empty field on as a column of
 * count x num_actions floats, which append then read past the frame). */
START_TEST(codec_empty_visits_is_none)
{
	struct net_segment_hdr h = { 1, 0, 0, 5, 6, 0, 0 };
	struct lg_rows r, flat, searched;
	struct net_segment g;
	lg_buf frame = { 0 }, seg = { 0 };
	const uint8_t *sp;
	size_t slen;
	char err[256] = "";

	fill_rows(&r, 4, 1);
	ck_assert_int_eq(lg_rows_init(&flat, OL, NA, 0, 8), 0);
	ck_assert_int_eq(lg_rows_init(&searched, OL, NA, 0, 8), 0);
	ck_assert_int_eq(lg_rows_add_visits(&searched), 0);
	ck_assert_int_eq(net_segment_encode(&h, &r, 1, &frame), 0);
	segment_bytes(&frame, &sp, &slen);
	ck_assert_int_eq(lg_buf_append(&seg, sp, slen), 0);
	put_field(&seg, 26, 0, NULL, 0);
	ck_assert_msg(net_segment_parse(seg.data, seg.len, &g, err,
					sizeof err) == 0, "%s", err);
	ck_assert_ptr_null(g.visits);
	ck_assert_msg(net_segment_append(&g, &flat, err, sizeof err) == 0,
		      "%s", err);
	ck_assert_uint_eq(flat.n, 4);
	ck_assert_int_eq(net_segment_append(&g, &searched, err, sizeof err),
			 LG_EINVAL);
	ck_assert_msg(strstr(err, "no search visits"), "%s", err);
	lg_buf_free(&frame);
	lg_buf_free(&seg);
	lg_rows_free(&r);
	lg_rows_free(&flat);
	lg_rows_free(&searched);
}
END_TEST

START_TEST(envelope_body_found_or_refused)
{
	lg_buf hb = { 0 }, two = { 0 }, none = { 0 }, notmsg = { 0 };
	const uint8_t *body;
	size_t len;
	char err[256];
	int bc;

	put_varint_field(&hb, 1, 5);          /* seq */
	put_field(&hb, 21, 0, "", 0);          /* heartbeat */
	put_field(&two, 21, 0, "", 0);
	put_field(&two, 23, 0, "", 0);         /* and a segment */
	put_varint_field(&none, 1, 5);
	put_varint_field(&notmsg, 23, 1);      /* a varint body */
	ck_assert_int_eq(net_envelope_body(hb.data, hb.len, &bc, &body, &len,
					   err, sizeof err), 0);
	ck_assert_int_eq(bc, LEAGUE__ENVELOPE__BODY_HEARTBEAT);
	ck_assert_uint_eq(len, 0);
	ck_assert_int_eq(net_envelope_body(two.data, two.len, &bc, &body,
					   &len, err, sizeof err), LG_EPROTO);
	ck_assert_ptr_nonnull(strstr(err, "more than one body"));
	ck_assert_int_eq(net_envelope_body(none.data, none.len, &bc, &body,
					   &len, err, sizeof err), LG_EPROTO);
	ck_assert_ptr_nonnull(strstr(err, "without a body"));
	ck_assert_int_eq(net_envelope_body(notmsg.data, notmsg.len, &bc,
					   &body, &len, err, sizeof err),
			 LG_EPROTO);
	ck_assert_ptr_nonnull(strstr(err, "not a message"));
	/* cut short inside the heartbeat's key */
	ck_assert_int_eq(net_envelope_body(hb.data, 3, &bc, &body, &len, err,
					   sizeof err), LG_EPROTO);
	lg_buf_free(&hb);
	lg_buf_free(&two);
	lg_buf_free(&none);
	lg_buf_free(&notmsg);
}
END_TEST

START_TEST(every_segment_once_in_order_within_bound)
{
	net_traj_server *s;
	uint16_t port;
	pid_t pids[SENDERS];
	uint64_t next[SENDERS] = { 0 };
	struct lg_rows batch;
	int got = 0, go[2];

	/* The senders are forked before the server's thread exists: a fork
	 * while another thread holds an allocator lock (ASan's, at least)
	 * can leave the child hung on its first malloc. They learn the port
	 * through a pipe. */
	ck_assert_int_eq(pipe(go), 0);
	for (int k = 0; k < SENDERS; k++) {
		pids[k] = fork();
		ck_assert_int_ge(pids[k], 0);
		if (pids[k] == 0) {
			net_traj_sender *tx;
			close(go[1]);
			if (read(go[0], &port, sizeof port) != sizeof port)
				_exit(3);
			/* Generous timeouts: under ASan on a loaded 2-core
			 * machine a slice of 10 s was seen to pass. */
			if (net_traj_sender_connect(&tx, "127.0.0.1", port, "tok",
						    NULL, "c", 30, NULL, 0))
				_exit(1);
			for (uint64_t i = 0; i < PER_SENDER; i++) {
				struct net_segment_hdr h = {
					.player = 1, .env_index = (uint32_t)k,
					.segment_seq = i,
				};
				struct lg_rows r;
				fill_rows(&r, 1 + i % 3, i);
				if (net_traj_send(tx, &h, &r, 30, 0))
					_exit(2);
				lg_rows_free(&r);
			}
			net_traj_sender_close(tx);
			_exit(0);
		}
	}
	s = start("tok");
	port = net_traj_server_port(s);
	close(go[0]);
	for (int k = 0; k < SENDERS; k++)
		ck_assert_int_eq(write(go[1], &port, sizeof port),
				 (ssize_t)sizeof port);
	close(go[1]);
	ck_assert_int_eq(lg_rows_init(&batch, OL, NA, 0, 8), 0);
	/* A slow consumer: the senders must wait for credit. */
	while (got < SENDERS * PER_SENDER) {
		const struct net_segment *g;
		char err[256];
		int prc = net_traj_pop(s, &g, 30);
		if (prc) { /* say which sender gave up, and how */
			for (int k = 0; k < SENDERS; k++) {
				int st;
				if (waitpid(pids[k], &st, WNOHANG) == pids[k])
					fprintf(stderr, "traj: sender %d exited "
						"%d after %llu segments\n", k,
						WIFEXITED(st) ? WEXITSTATUS(st)
							      : -1,
						(unsigned long long)next[k]);
				else
					fprintf(stderr, "traj: sender %d still "
						"running, %llu segments "
						"received, queue depth %zu\n",
						k, (unsigned long long)next[k],
						net_traj_depth(s));
			}
		}
		ck_assert_int_eq(prc, 0);
		ck_assert_uint_lt(g->h.env_index, SENDERS);
		ck_assert_uint_eq(g->h.segment_seq, next[g->h.env_index]);
		ck_assert_uint_eq(g->count, 1 + g->h.segment_seq % 3);
		/* decoded straight into a batch, values intact */
		batch.n = 0;
		ck_assert_msg(net_segment_append(g, &batch, err, sizeof err) == 0,
			      "%s", err);
		ck_assert(batch.obs[batch.n * OL - 1] ==
			  (float)(g->h.segment_seq * 100 + batch.n * OL - 1));
		next[g->h.env_index]++;
		net_traj_release(s, g);
		if (++got % 50 == 0)
			lg_sleep_s(0.005);
	}
	for (int k = 0; k < SENDERS; k++) {
		int st;
		ck_assert_int_eq(waitpid(pids[k], &st, 0), pids[k]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		ck_assert_uint_eq(next[k], PER_SENDER);
	}
	/* Bounded by credit, and the bound was reached: real backpressure. */
	ck_assert_uint_le(net_traj_max_depth(s), SENDERS * WINDOW);
	ck_assert_uint_ge(net_traj_max_depth(s), WINDOW);
	const struct net_segment *none;
	ck_assert_int_eq(net_traj_pop(s, &none, 0.05), LG_ETIMEOUT);
	net_traj_server_stop(s);
	lg_rows_free(&batch);
}
END_TEST

/* Send raw bytes on fd. */
static int send_raw(int fd, const lg_buf *b)
{
	return send(fd, b->data, b->len, MSG_NOSIGNAL) == (ssize_t)b->len
		       ? 0 : -1;
}

/* A child that says hello on port and then sends what `flood` says:
 * 200 valid segments without reading credit (flood 1), or one segment of
 * layout 1, as a collector from before layout 2 would (flood 0); then it
 * reads until the learner hangs up. */
static void rogue_sender(int go_fd, int flood)
{
	net_msg h = LEAGUE__ENVELOPE__INIT, *r;
	League__Hello hello = LEAGUE__HELLO__INIT;
	uint16_t port;
	int fd;

	if (read(go_fd, &port, sizeof port) != sizeof port)
		_exit(3);
	if (net_connect_tcp("127.0.0.1", port, &fd, NULL, 0))
		_exit(1);
	hello.protocol_version = LEAGUE__CONST__PROTOCOL_VERSION;
	hello.role = LEAGUE__ROLE__ROLE_COLLECTOR;
	h.body_case = LEAGUE__ENVELOPE__BODY_HELLO;
	h.hello = &hello;
	if (net_send_blocking(fd, &h))
		_exit(2);
	if (flood) {
		for (uint64_t i = 0; i < 200; i++) {
			struct net_segment_hdr sh = { .segment_seq = i };
			struct lg_rows rows;
			lg_buf b = { 0 };
			fill_rows(&rows, 1, i);
			if (net_segment_encode(&sh, &rows, i + 1, &b) ||
			    send_raw(fd, &b))
				break;
			lg_buf_free(&b);
			lg_rows_free(&rows);
		}
	} else {
		net_msg m = LEAGUE__ENVELOPE__INIT;
		League__Segment old = LEAGUE__SEGMENT__INIT;
		old.count = 1;
		old.obs_len = 1;
		m.body_case = LEAGUE__ENVELOPE__BODY_SEGMENT;
		m.segment = &old;
		if (net_send_blocking(fd, &m))
			_exit(4);
	}
	/* Read until the learner hangs up. */
	while (net_recv_blocking(fd, 1 << 20, 5, &r, NULL, 0) == 0)
		net_msg_free(r);
	_exit(0);
}

/* A sender breaking the protocol (0: sending without credit; 1: a
 * segment of layout 1) is closed, and only what was credited and valid
 * was ever queued; 2: the same flood after the window was raised before
 * the sender's hello (net_traj_server_set_window): that window is what
 * it was granted. */
START_TEST(rogue_sender_is_cut_off)
{
	net_traj_server *s;
	uint16_t port;
	int go[2], st;
	pid_t pid;

	/* Fork before the server's thread starts (see above). */
	ck_assert_int_eq(pipe(go), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(go[1]);
		rogue_sender(go[0], _i != 1);
	}
	s = start(NULL);
	if (_i == 2)
		net_traj_server_set_window(s, 2 * WINDOW);
	port = net_traj_server_port(s);
	close(go[0]);
	ck_assert_int_eq(write(go[1], &port, sizeof port),
			 (ssize_t)sizeof port);
	close(go[1]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* Only the credited window was ever accepted. */
	ck_assert_uint_eq(net_traj_max_depth(s), _i == 2 ? 2 * WINDOW
					       : _i == 0 ? WINDOW : 0);
	ck_assert_uint_eq(net_traj_depth(s), net_traj_max_depth(s));
	net_traj_server_stop(s);
}
END_TEST

START_TEST(wrong_token_refused)
{
	net_traj_server *s = start("right");
	net_traj_sender *tx;
	char err[256] = "";

	ck_assert_int_eq(net_traj_sender_connect(&tx, "127.0.0.1",
						 net_traj_server_port(s), "wrong",
						 NULL, "c", 5, err, sizeof err),
			 LG_EAUTH);
	ck_assert_ptr_nonnull(strstr(err, "wrong token"));
	net_traj_server_stop(s);
}
END_TEST

/* Liveness (docs/protocol.md): a sender waiting for credit gives up on a
 * learner that says nothing for silent_s (LG_ETIMEOUT after at least
 * silent_s, well before its timeout), and waits its whole timeout for
 * one that sends heartbeats while nothing is popped (a busy learner). */
START_TEST(silent_learner_given_up_busy_one_waited_for)
{
	net_traj_server *s = start(NULL);
	struct net_segment_hdr h = { .player = 1, .env_index = 2 };
	net_traj_sender *tx;
	struct lg_rows r;
	char err[256];
	double t0, el;

	fill_rows(&r, 3, 1);
	for (int beat = 0; beat < 2; beat++) {
		if (beat)
			net_traj_server_set_heartbeat(s, 0.2);
		ck_assert_msg(net_traj_sender_connect(&tx, "127.0.0.1",
						      net_traj_server_port(s),
						      NULL, NULL, "c", 10, err,
						      sizeof err) == 0,
			      "%s", err);
		for (int k = 0; k < WINDOW; k++) {
			h.segment_seq = (uint64_t)k;
			ck_assert_int_eq(net_traj_send(tx, &h, &r, 10, 1.0),
					 0);
		}
		/* nothing is popped: no credit comes back */
		t0 = lg_now_s();
		ck_assert_int_eq(net_traj_send(tx, &h, &r, beat ? 3.0 : 60,
					       1.0),
				 LG_ETIMEOUT);
		el = lg_now_s() - t0;
		ck_assert_msg(el >= 1.0, "gave up after %.2f s", el);
		if (beat) /* heard from throughout: the whole timeout */
			ck_assert_msg(el >= 3.0, "gave up after %.2f s", el);
		else      /* silent: long before the timeout */
			ck_assert_msg(el < 30, "gave up after %.2f s", el);
		net_traj_sender_close(tx);
	}
	lg_rows_free(&r);
	net_traj_server_stop(s);
}
END_TEST

/* A learner's end that answers one sender's hello, grants it a huge
 * credit and never reads again (its socket's window fills). */
struct deaf {
	int lfd, fd;
	uint16_t port;
};

static void *deaf_main(void *arg)
{
	struct deaf *f = arg;

	f->fd = tp_deaf_learner_accept(f->lfd, 30);
	return NULL;
}

/* The deaf learner: the send that finds the window full fails with
 * LG_ETIMEOUT after silent_s (not its 60 s timeout, not never). */
START_TEST(deaf_learner_given_up)
{
	struct deaf f = { .fd = -1 };
	struct net_segment_hdr h = { .player = 1 };
	net_traj_sender *tx;
	struct lg_rows r;
	pthread_t th;
	char err[256];
	int small = 4096, rc = 0, k;
	double t0 = 0, el;

	ck_assert_msg(net_listen_tcp("127.0.0.1", 0, &f.lfd, &f.port, err,
				     sizeof err) == 0, "%s", err);
	setsockopt(f.lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
	ck_assert_int_eq(pthread_create(&th, NULL, deaf_main, &f), 0);
	ck_assert_msg(net_traj_sender_connect(&tx, "127.0.0.1", f.port, NULL,
					      NULL, "c", 10, err,
					      sizeof err) == 0, "%s", err);
	fill_rows(&r, 2000, 1); /* about 50 KB a segment */
	for (k = 0; k < 2000 && !rc; k++) {
		h.segment_seq = (uint64_t)k;
		t0 = lg_now_s();
		rc = net_traj_send(tx, &h, &r, 60, 1.0);
	}
	el = lg_now_s() - t0;
	ck_assert_int_eq(rc, LG_ETIMEOUT);
	ck_assert_msg(el >= 1.0 && el < 30, "gave up after %.2f s", el);
	net_traj_sender_close(tx);
	pthread_join(th, NULL);
	if (f.fd >= 0)
		close(f.fd);
	close(f.lfd);
	lg_rows_free(&r);
}
END_TEST

Suite *suite_traj(void)
{
	Suite *s = suite_create("traj");
	const struct tu_test core_tests[] = {
		{ codec_round_trip, 1 },
		{ codec_job_end_mark, 1 },
		{ trainer_rows_round_trip, 1 },
		{ codec_state_column, 1 },
		{ codec_visits_column, 1 },
		{ rows_append_grows_and_copies, 1 },
		{ codec_empty_visits_is_none, 1 },
		{ codec_refuses_bad_segments, (int)LG_ARRAY_LEN(bad_cases) },
		{ envelope_body_found_or_refused, 1 },
		{ every_segment_once_in_order_within_bound, 1 },
		{ rogue_sender_is_cut_off, 3 },
		{ wrong_token_refused, 1 },
		{ silent_learner_given_up_busy_one_waited_for, 1 },
		{ deaf_learner_given_up, 1 },
	};

	signal(SIGPIPE, SIG_IGN);
	TU_TCASE(s, "core", 60, core_tests);
	return s;
}
