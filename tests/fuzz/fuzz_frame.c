/* tests/fuzz/fuzz_frame.c: libFuzzer harness for the frame decoder. Any
 * byte string decodes to whole messages, "need more", or LG_EPROTO; every
 * decoded message re-encodes, and one without unknown fields re-encodes to
 * a frame that decodes again. (protobuf-c keeps unknown fields verbatim,
 * including a non-canonically encoded field number 0 that it rejects once
 * written canonically: corpus/fuzz_frame/unknown_field0.bin. We never
 * forward raw messages, so that quirk is harmless here.) */
#include <stdint.h>
#include <stdlib.h>

#include "net/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		net_msg *m, *again;
		size_t used, used2;
		char err[256];
		int rc = net_frame_decode(data + off, size - off, 1 << 16, &m,
					  &used, err, sizeof err);
		if (rc == 1 || rc == LG_EPROTO)
			return 0;
		if (rc != 0 || used == 0 || used > size - off)
			abort();
		/* Every body pointer shares the union's storage. */
		const ProtobufCMessage *body = (const void *)m->hello;
		int unknown = m->base.n_unknown_fields ||
			      (body && body->n_unknown_fields);
		lg_buf b = { 0 };
		if (net_frame_encode(m, &b))
			abort();
		if (!unknown) {
			if (net_frame_decode(b.data, b.len, 1 << 20, &again,
					     &used2, err, sizeof err) ||
			    used2 != b.len)
				abort();
			net_msg_free(again);
		}
		net_msg_free(m);
		lg_buf_free(&b);
		off += used;
	}
	return 0;
}
