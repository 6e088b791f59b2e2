/* tests/fuzz/fuzz_segment.c: libFuzzer harness for the learner's reader
 * of trajectory frames (net/segment.c): what the trajectory endpoint does
 * with a frame's bytes after a sender's hello. Any byte string is an
 * Envelope with one body or LG_EPROTO; a Segment body parses or is
 * LG_EPROTO; a parsed one appends to a batch of its shape or is
 * LG_EINVAL leaving the batch as it was; an appended one re-encodes to a
 * frame that parses and appends to the very same rows. The first byte
 * says how many rows the batch holds already (bits 0-2) and whether it
 * lacks room for one of the segment's (bit 3), which must be refused.
 * The batch takes the segment's recurrent state width, so a state column
 * is appended and re-encoded like the others, and its visits column
 * unless bit 4 says otherwise: then the batch has one exactly when the
 * segment has none, which must be refused. A job's end mark
 * (job_end) may carry no rows; any other segment has some. A segment of
 * more than LG_ROWS_DENSE_MAX actions carries legal lists, not masks: the
 * rows the batch holds already have empty lists there (placeholders,
 * never read), so the appended rows' ids start at 0. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Keep the batch small: a shape larger than this is only parsed. */
#define MAX_ROWS 4096
#define MAX_CELLS (1u << 20)

static int same_rows(const struct lg_rows *a, size_t ka,
		     const struct lg_rows *b, size_t kb, size_t n)
{
	size_t ol = a->obs_len, na = a->num_actions;

	if (lg_rows_lists(a) &&
	    (a->legal_n != b->legal_n ||
	     memcmp(a->nlegal + ka, b->nlegal + kb, n * 4) ||
	     memcmp(a->legal, b->legal, a->legal_n * 2)))
		return 0;
	return !memcmp(a->obs + ka * ol, b->obs + kb * ol, n * ol * 4) &&
	       (lg_rows_lists(a) ||
		!memcmp(a->mask + ka * na, b->mask + kb * na, n * na)) &&
	       !memcmp(a->action + ka, b->action + kb, n * 4) &&
	       !memcmp(a->logp + ka, b->logp + kb, n * 4) &&
	       !memcmp(a->value + ka, b->value + kb, n * 4) &&
	       !memcmp(a->reward + ka, b->reward + kb, n * 4) &&
	       !memcmp(a->done + ka, b->done + kb, n) &&
	       (!a->state_len ||
		!memcmp(a->state + ka * a->state_len,
			b->state + kb * a->state_len, n * a->state_len * 4)) &&
	       a->has_visits == b->has_visits &&
	       (!a->has_visits ||
		!memcmp(a->visits + ka * na, b->visits + kb * na, n * na * 4));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *body;
	size_t blen, before, short_by, flip;
	struct net_segment g, g2;
	struct lg_rows dst, again;
	lg_buf frame = { 0 };
	char err[512];
	int bc, rc;

	if (size < 1)
		return 0;
	before = data[0] & 7;
	short_by = (data[0] >> 3) & 1;
	flip = (data[0] >> 4) & 1;
	data++;
	size--;
	if (net_envelope_body(data, size, &bc, &body, &blen, err, sizeof err))
		return 0;
	if (bc <= 0 || !body || blen > size || body < data ||
	    body + blen > data + size)
		abort();
	if (bc != LEAGUE__ENVELOPE__BODY_SEGMENT)
		return 0;
	if (net_segment_parse(body, blen, &g, err, sizeof err))
		return 0;
	if (!g.obs_len || !g.num_actions || (!g.count && !g.h.job_end))
		abort(); /* parse promised these */
	if (!g.count)
		return 0; /* a job's end mark (league.deterministic): no rows */
	if (g.count > MAX_ROWS ||
	    (uint64_t)g.count * (g.obs_len + 2 * g.num_actions +
				 g.state_len) > MAX_CELLS)
		return 0;
	if (lg_rows_init(&dst, g.obs_len, g.num_actions, g.state_len,
			 before + g.count - short_by))
		return 0;
	if (((g.visits != NULL) ^ flip) && lg_rows_add_visits(&dst)) {
		lg_rows_free(&dst);
		return 0;
	}
	dst.n = before;
	for (size_t i = 0; lg_rows_lists(&dst) && i < before; i++)
		dst.nlegal[i] = 0;
	rc = net_segment_append(&g, &dst, err, sizeof err);
	if ((rc && (rc != LG_EINVAL || dst.n != before || dst.legal_n)) ||
	    ((short_by || flip) && !rc))
		abort();
	if (!rc) {
		struct lg_rows view = dst;
		if (dst.n != before + g.count)
			abort();
		/* the rows as a block of their own, sent again */
		view.obs += before * dst.obs_len;
		if (lg_rows_lists(&dst))
			view.nlegal += before;
		else
			view.mask += before * dst.num_actions;
		view.action += before;
		view.logp += before;
		view.value += before;
		view.reward += before;
		view.done += before;
		if (view.state_len)
			view.state += before * view.state_len;
		if (view.has_visits)
			view.visits += before * dst.num_actions;
		view.n = g.count;
		if (net_segment_encode(&g.h, &view, 1, &frame) ||
		    net_envelope_body(frame.data + NET_FRAME_HDR,
				      frame.len - NET_FRAME_HDR, &bc, &body,
				      &blen, err, sizeof err) ||
		    net_segment_parse(body, blen, &g2, err, sizeof err) ||
		    g2.h.player != g.h.player || g2.h.job_id != g.h.job_id ||
		    g2.h.params_version != g.h.params_version ||
		    g2.h.env_index != g.h.env_index ||
		    g2.h.segment_seq != g.h.segment_seq || g2.count != g.count ||
		    g2.state_len != g.state_len ||
		    (g2.visits != NULL) != (g.visits != NULL) ||
		    lg_rows_init(&again, g.obs_len, g.num_actions,
				 g.state_len, g.count) ||
		    (g.visits && lg_rows_add_visits(&again)))
			abort();
		if (net_segment_append(&g2, &again, err, sizeof err) ||
		    !same_rows(&dst, before, &again, 0, g.count))
			abort();
		lg_rows_free(&again);
		lg_buf_free(&frame);
	}
	lg_rows_free(&dst);
	return 0;
}
