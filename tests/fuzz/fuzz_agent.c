/* tests/fuzz/fuzz_agent.c: libFuzzer harness for the agent file parser,
 * league_agent_decode (what `league play` and `league eval` do with a
 * file someone hands them).
 *
 * Input: one mode byte, then the file. With bit 0 set the harness writes
 * the right CRC-32C at the end first, so the fuzzer reaches the sections
 * behind it (provenance, the config, the game record, the parameters);
 * with it clear the file is parsed as it is. Format 1 files (no game
 * record) and format 2 ones are both in the corpus.
 *
 * Checked: the result is 0 or one of the documented errors with a
 * message (a plugin or remote game's agent: refused, as no plugin or
 * address is named); a file that decodes has a network of its game's shape that
 * acts (a legal action from the game's first observation; not for the
 * timing game, whose resets sleep as its config says), provenance
 * lines that league_agent_meta reads, and encodes again (from its config
 * and provenance) to a file that decodes to the same network bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/agent.h"
#include "conf/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void acts(const struct league_agent *a)
{
	struct env_opts eo;
	env *e = NULL;
	nn_ws *ws = NULL;
	float *obs = malloc(a->spec.obs_len * sizeof *obs);
	uint8_t mask[ENV_MAX_ACTIONS];
	char err[256];
	int32_t action = -1;
	float logp, value;
	lg_rng rng;
	int p;

	league_env_opts(&a->cfg, &eo);
	if (!obs || env_new(&e, a->cfg.env.name, &eo, err, sizeof err) ||
	    env_reset(e, 1) || nn_ws_new(&ws, a->net, 1))
		abort();
	p = env_current_player(e);
	if (p < 0)
		p = 0;
	lg_rng_seed(&rng, 1);
	if (env_observe(e, p, obs) || env_legal(e, p, mask) < 1 ||
	    nn_act(a->net, ws, obs, mask, 1, &rng, &action, &logp, &value) ||
	    action < 0 || !mask[action])
		abort();
	nn_ws_free(ws);
	env_free(e);
	free(obs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;
	static struct league_agent a, again;
	uint8_t *f;
	size_t len;
	char err[512] = "", val[64];
	int rc;

	if (!once) {
		nn_set_threads(1);
		lg_log_set_level(LG_LOG_ERROR);
		once = 1;
	}
	if (size < 1)
		return 0;
	len = size - 1;
	if (!(f = malloc(len ? len : 1)))
		abort();
	memcpy(f, data + 1, len);
	if ((data[0] & 1) && len >= 4)
		lg_put_le32(f + len - 4, lg_crc32c(0, f, len - 4));
	/* nothing named: a plugin or remote game's agent is refused before
	 * its config, and no code is loaded nor address dialled */
	rc = league_agent_decode(&a, f, len, NULL, err, sizeof err);
	if (rc != 0 && rc != LG_ECORRUPT && rc != LG_EVERSION &&
	    rc != LG_ECONFIG && rc != LG_EINVAL && rc != LG_ERANGE &&
	    rc != LG_EUNSUPP && rc != LG_ENOTFOUND && rc != LG_EIO &&
	    rc != LG_ENOMEM)
		abort();
	if (rc && (!err[0] || a.net))
		abort(); /* every refusal says why and leaves no network */
	if (!rc) {
		lg_buf b1 = { 0 }, b2 = { 0 }, out = { 0 };
		/* the timing game sleeps in its resets, as long as its config
		 * says (up to an hour): not a parser's business */
		if (strcmp(a.cfg.env.name, "timing"))
			acts(&a);
		league_agent_meta(&a, "league", val, sizeof val);
		if (nn_save(a.net, &b1) ||
		    league_agent_encode(&a.cfg, a.meta, b1.data, b1.len, &out,
					err, sizeof err) ||
		    league_agent_decode(&again, out.data, out.len, NULL, err,
					sizeof err) ||
		    nn_save(again.net, &b2) || b1.len != b2.len ||
		    memcmp(b1.data, b2.data, b1.len))
			abort();
		league_agent_free(&again);
		lg_buf_free(&b1);
		lg_buf_free(&b2);
		lg_buf_free(&out);
	}
	league_agent_free(&a);
	free(f);
	return 0;
}
