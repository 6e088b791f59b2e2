/* tests/fuzz/fuzz_nn.c: libFuzzer harness for the parameter blob parser,
 * nn_load (what a collector, learner or evaluator does with the Params
 * the daemon sends, and `league eval --policy FILE.nn`).
 *
 * Input: one mode byte, then the blob. Both CRC-32Cs of the format guard
 * everything behind them, so with mode bit 0 set the harness writes the
 * right ones into the blob first and the fuzzer reaches the shape checks
 * and the body; with it clear the blob is parsed as it is.
 *
 * Checked: the result is 0 or a documented error with a message; a blob
 * that loads is canonical (nn_save writes back the same bytes) and the
 * net it gives acts: one row with every action legal picks a legal
 * action. The daemon's validator of a pushed version, nn_check_blob,
 * agrees with nn_load on every blob, takes a loaded one as its own
 * shape and refuses it as any other (LG_EINVAL, with a message). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "learner/learner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One forward pass and a sample: a loaded net must be usable as is. */
static void act_once(const nn *n)
{
	const struct nn_shape *s = nn_shape_of(n);
	float *obs = malloc(s->obs * sizeof *obs);
	uint8_t *mask = malloc(s->actions);
	nn_ws *ws = NULL;
	int32_t action = -1;
	float logp, value;
	lg_rng rng;

	if (!obs || !mask || nn_ws_new(&ws, n, 1))
		abort();
	for (uint32_t i = 0; i < s->obs; i++)
		obs[i] = (float)(i % 3) - 1.0f;
	memset(mask, 1, s->actions);
	lg_rng_seed(&rng, 1);
	if (nn_act(n, ws, obs, mask, 1, &rng, &action, &logp, &value) ||
	    action < 0 || (uint32_t)action >= s->actions)
		abort();
	nn_ws_free(ws);
	free(mask);
	free(obs);
}

/* nn_check_blob against nn_load's verdict rc (n: the net it loaded). */
static void check_blob(const uint8_t *blob, size_t len, int rc, const nn *n)
{
	struct nn_shape other = { .obs = 3, .actions = 2, .act = NN_RELU };
	char err[256] = "";

	if (nn_check_blob(blob, len, NULL, err, sizeof err) != rc)
		abort();
	if (rc) {
		if (nn_check_blob(blob, len, &other, err, sizeof err) != rc)
			abort();
		return;
	}
	other = *nn_shape_of(n);
	if (nn_check_blob(blob, len, &other, err, sizeof err))
		abort();
	other.actions++;
	err[0] = 0;
	if (nn_check_blob(blob, len, &other, err, sizeof err) != LG_EINVAL ||
	    !err[0])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;
	uint8_t *blob;
	size_t len;
	nn *n = NULL;
	char err[256] = "";
	int rc;

	if (!once) {
		nn_set_threads(1); /* no BLAS thread pool per input */
		once = 1;
	}
	if (size < 1)
		return 0;
	len = size - 1;
	blob = malloc(len ? len : 1);
	if (!blob)
		abort();
	memcpy(blob, data + 1, len);
	if ((data[0] & 1) && len >= NN_FILE_HEADER) {
		/* the header's length goes by its version (2 and 3: the
		 * conv formats' longer headers) */
		uint32_t v = lg_get_le32(blob + 4);
		size_t hl = v == NN_FILE_VERSION3   ? NN_FILE_HEADER3
			    : v == NN_FILE_VERSION2 ? NN_FILE_HEADER2
						    : NN_FILE_HEADER;
		if (len >= hl) {
			lg_put_le32(blob + 64,
				    lg_crc32c(0, blob + hl, len - hl));
			lg_put_le32(blob + hl - 4,
				    lg_crc32c(0, blob, hl - 4));
		}
	}
	rc = nn_load(&n, blob, len, err, sizeof err);
	/* nn_load's list, exactly (an unknown activation was LG_EINVAL:
	 * docs/fuzzing.md, finding 3). */
	if (rc != 0 && rc != LG_ECORRUPT && rc != LG_EVERSION &&
	    rc != LG_ERANGE && rc != LG_ENOMEM)
		abort();
	if (rc && (n || !err[0]))
		abort(); /* every rejection says why and leaves no net */
	check_blob(blob, len, rc, n);
	if (!rc) {
		lg_buf b = { 0 };
		if (nn_save(n, &b) || b.len != len || memcmp(b.data, blob, len))
			abort();
		lg_buf_free(&b);
		act_once(n);
		nn_free(n);
	}
	free(blob);
	return 0;
}
