/* tests/fuzz/seeds.c: writes the hand-made seed inputs of the harnesses
 * of binary records (fuzz_nn, fuzz_trainer, fuzz_agent, fuzz_blob, fuzz_brainlog, fuzz_evalrec,
 * fuzz_payoff, fuzz_series), of fuzz_tabular, of fuzz_remote and the
 * recurrent-state segments of fuzz_segment into DIR/<harness>/,
 * with the library's own encoders where it has them (for fuzz_remote the
 * protoc-c code of net/game.proto it links), so a seed is what the code
 * writes today. `make fuzz-seeds` runs it on tests/fuzz/corpus; the config
 * and frame seeds are written by hand. Each harness gets valid inputs and
 * near-valid ones (one thing wrong), named for what they are.
 *
 * Usage: seeds DIR */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "eval/agent.h"
#include "eval/evalrec.h"
#include "conf/options.h"
#include "server/series.h"
#include "learner/learner.h"
#include "net/net.h"
#include "payoff/payoff.h"
#include "players/players.h"
#include "tests/fuzz/scratch.h"
#include "tests/fuzz/trainer.h"

#include "game.pb-c.h"

/* fuzz_remote's replies answer at most 7 ops (the harness's cap). */
#define MAX_SEED_OPS 7

static const char *outdir;
static int failed;

/* Write DIR/harness/name with bytes [p, p + n). */
static void seed(const char *harness, const char *name, const void *p,
		 size_t n)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", outdir, harness);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		failed = 1;
		return;
	}
	snprintf(path, sizeof path, "%s/%s/%s.bin", outdir, harness, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		failed = 1;
	}
}

/* A mode byte, then [p, p + n): the input of fuzz_nn and fuzz_blob. */
static void seed_mode(const char *harness, const char *name, uint8_t mode,
		      const void *p, size_t n)
{
	uint8_t *b = malloc(n + 1);

	if (!b)
		exit(1);
	b[0] = mode;
	memcpy(b + 1, p, n);
	seed(harness, name, b, n + 1);
	free(b);
}

/* ---- fuzz_agent ---------------------------------------------------------- */

/* An agent file from its parts as they are (no checks): the near-valid
 * seeds. game NULL: format 1's layout (no game record), else format 2's
 * with that record. */
static void agent_raw(lg_buf *out, uint32_t version, const char *meta,
		      const char *config, const char *game, const void *blob,
		      size_t blen)
{
	uint8_t h[LEAGUE_AGENT_HEADER];
	size_t hl = game ? LEAGUE_AGENT_HEADER : LEAGUE_AGENT_HEADER_V1;

	out->len = 0;
	memcpy(h, LEAGUE_AGENT_MAGIC, 4);
	lg_put_le32(h + 4, version);
	lg_put_le32(h + 8, (uint32_t)strlen(meta));
	lg_put_le32(h + 12, (uint32_t)strlen(config));
	lg_put_le64(h + 16, blen);
	if (game)
		lg_put_le32(h + 24, (uint32_t)strlen(game));
	if (lg_buf_append(out, h, hl) ||
	    lg_buf_append(out, meta, strlen(meta)) ||
	    lg_buf_append(out, config, strlen(config)) ||
	    (game && lg_buf_append(out, game, strlen(game))) ||
	    lg_buf_append(out, blob, blen) || lg_buf_append(out, h, 4))
		exit(1);
	lg_put_le32((uint8_t *)out->data + out->len - 4,
		    lg_crc32c(0, out->data, out->len - 4));
}

/* Format 2's game records around tic-tac-toe's config and network: a
 * valid one, the plugin and remote ones (refused: no plugin or address
 * is named), and each a thing wrong (mode 1: the CRC made right). */
static void seeds_agent_game(const char *meta, const char *ttt,
			     const lg_buf *blob, lg_buf *f)
{
#define SEED_SHA "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0"
	static const struct {
		const char *name, *game;
	} recs[] = {
		{ "game_builtin", "kind=builtin\nname=tictactoe\n" },
		{ "game_plugin", "kind=plugin\nname=tictactoe\n"
				 "path=/nonexistent/game.so\nsha256=" SEED_SHA
				 "8\n" },
		{ "game_remote", "kind=remote\nname=tictactoe\n"
				 "address=unix:/nonexistent.sock\n" },
		{ "game_other_name", "kind=builtin\nname=connect4\n" },
		{ "game_unknown_key", "kind=builtin\nname=tictactoe\nx=1\n" },
		{ "game_key_twice", "kind=builtin\nkind=builtin\n"
				    "name=tictactoe\n" },
		{ "game_bad_kind", "kind=dlopen\nname=tictactoe\n" },
		{ "game_bad_sha256", "kind=plugin\nname=tictactoe\n"
				     "path=/x.so\nsha256=" SEED_SHA "\n" },
		{ "game_plugin_no_path", "kind=plugin\nname=tictactoe\n"
					 "sha256=" SEED_SHA "8\n" },
		{ "game_builtin_address", "kind=builtin\nname=tictactoe\n"
					  "address=127.0.0.1:9\n" },
		{ "game_no_newline", "kind=builtin\nname=tictactoe" },
		{ "game_empty", "" },
	};
#undef SEED_SHA
	for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++) {
		agent_raw(f, 2, meta, ttt, recs[i].game, blob->data,
			  blob->len);
		seed_mode("fuzz_agent", recs[i].name, i == 0 ? 0 : 1,
			  f->data, f->len);
	}
}

/* The network league's config text gives for its game, saved. */
static void agent_net(const char *yaml, struct cfg *c, lg_buf *blob)
{
	struct env_opts eo;
	struct nn_shape s;
	char err[512];
	env *e;
	nn *n;

	blob->len = 0;
	if (cfg_load_string(c, yaml, strlen(yaml), "seed", err, sizeof err)) {
		fprintf(stderr, "seeds: %s\n", err);
		exit(1);
	}
	league_env_opts(c, &eo);
	if (env_new(&e, c->env.name, &eo, err, sizeof err))
		exit(1);
	league_nn_shape(c, env_spec_of(e), &s);
	env_free(e);
	if (nn_new(&n, &s, 5) || nn_save(n, blob))
		exit(1);
	nn_free(n);
}

static void seeds_agent(void)
{
	static struct cfg c;
	lg_buf blob = { 0 }, f = { 0 }, c4 = { 0 };
	const char *meta = "league=seed\nplayer=0\nrole=main\nversion=3\n";
	const char *ttt = "env: {name: tictactoe}\nmodel: {hidden: [8]}\n";
	char err[256];

	agent_net("env: {name: connect4}\nmodel: {conv: [4], hidden: [8]}\n",
		  &c, &c4);
	if (league_agent_encode(&c, meta, c4.data, c4.len, &f, err,
				sizeof err))
		exit(1);
	seed_mode("fuzz_agent", "connect4_conv", 0, f.data, f.len);
	agent_net(ttt, &c, &blob);
	f.len = 0;
	if (league_agent_encode(&c, meta, blob.data, blob.len, &f, err,
				sizeof err))
		exit(1);
	seed_mode("fuzz_agent", "tictactoe", 0, f.data, f.len);
	seed_mode("fuzz_agent", "truncated", 1, f.data, f.len - 9);
	/* near-valid, each one thing wrong (mode 1: the CRC made right) */
	/* format 1 (no game record): a file today's readers keep loading */
	agent_raw(&f, 1, meta, ttt, NULL, blob.data, blob.len);
	seed_mode("fuzz_agent", "minimal_config", 0, f.data, f.len);
	agent_raw(&f, 3, meta, ttt, "kind=builtin\nname=tictactoe\n",
		  blob.data, blob.len);
	seed_mode("fuzz_agent", "format_version", 1, f.data, f.len);
	seeds_agent_game(meta, ttt, &blob, &f);
	agent_raw(&f, 1, "league=x", ttt, NULL, blob.data, blob.len);
	seed_mode("fuzz_agent", "meta_no_newline", 1, f.data, f.len);
	agent_raw(&f, 1, "League=x\n", ttt, NULL, blob.data, blob.len);
	seed_mode("fuzz_agent", "meta_bad_key", 1, f.data, f.len);
	agent_raw(&f, 1, meta,
		  "env: {name: tictactoe, plugin: /nonexistent/game.so}\n"
		  "model: {hidden: [8]}\n", NULL, blob.data, blob.len);
	seed_mode("fuzz_agent", "config_plugin", 1, f.data, f.len);
	agent_raw(&f, 1, meta, "env: {name: tictactoe, serve: 'rm -rf /'}\n",
		  NULL, blob.data, blob.len);
	seed_mode("fuzz_agent", "config_serve", 1, f.data, f.len);
	agent_raw(&f, 1, meta, "env: {name: connect4}\nmodel: {hidden: [8]}\n",
		  NULL, blob.data, blob.len);
	seed_mode("fuzz_agent", "net_of_another_game", 1, f.data, f.len);
	agent_raw(&f, 1, meta, ttt, NULL, blob.data, blob.len - 4);
	seed_mode("fuzz_agent", "blob_short", 1, f.data, f.len);
	lg_buf_free(&blob);
	lg_buf_free(&c4);
	lg_buf_free(&f);
}

/* ---- fuzz_trainer ----------------------------------------------------- */

/* A state of the harness's trainer after two updates on a small batch
 * (moments and step not zero), with or without its magnet. */
static void trainer_state(int magnet, lg_buf *b)
{
	ppo *p = fuzz_trainer(magnet);
	struct lg_rows r = { 0 };

	if (lg_rows_init(&r, 4, 3, 0, 16))
		exit(1);
	for (size_t i = 0; i < 16; i++) {
		for (int k = 0; k < 4; k++)
			r.obs[i * 4 + (size_t)k] = (float)((i + (size_t)k) % 3);
		memset(r.mask + i * 3, 1, 3);
		r.action[i] = (int32_t)(i % 3);
		r.logp[i] = -1.0986f;
		r.value[i] = 0; /* the block is not zeroed */
		r.reward[i] = i % 4 == 3 ? 1.0f : 0.0f;
		r.done[i] = i % 4 == 3 ? LG_ROW_END : LG_ROW_NEXT;
	}
	r.n = 16;
	b->len = 0;
	if (ppo_update(p, &r, NULL) || ppo_update(p, &r, NULL) ||
	    ppo_state_save(p, 42, b))
		exit(1);
	lg_rows_free(&r);
	ppo_free(p);
}

static void seeds_trainer(void)
{
	lg_buf b = { 0 };
	size_t n;

	trainer_state(0, &b);
	n = b.len;
	seed_mode("fuzz_trainer", "plain", 0, b.data, n);
	seed_mode("fuzz_trainer", "plain_truncated", 1, b.data, n - 8);
	seed_mode("fuzz_trainer", "plain_into_magnet", 2, b.data, n);
	((uint8_t *)b.data)[4] = 9; /* format version */
	seed_mode("fuzz_trainer", "format_version", 1, b.data, n);
	((uint8_t *)b.data)[4] = 1;
	lg_put_lef32((uint8_t *)b.data + 88 + 4 * 40, -1.0f); /* a v < 0 */
	seed_mode("fuzz_trainer", "negative_v", 1, b.data, n);
	trainer_state(1, &b);
	seed_mode("fuzz_trainer", "magnet", 2, b.data, b.len);
	seed_mode("fuzz_trainer", "magnet_into_plain", 1, b.data, b.len);
	memset((uint8_t *)b.data + 32, 0, 32); /* the rng */
	seed_mode("fuzz_trainer", "zero_rng", 3, b.data, b.len);
	/* league.deterministic's blob: the state with rows waiting */
	{
		struct lg_rows r = { 0 };
		lg_buf d = { 0 };
		trainer_state(0, &b);
		if (lg_rows_init(&r, 4, 3, 0, 8))
			exit(1);
		for (size_t i = 0; i < 5; i++) {
			for (size_t k = 0; k < 4; k++) /* not zeroed */
				r.obs[i * 4 + k] = k ? 0 : (float)i;
			memset(r.mask + i * 3, 1, 3);
			r.action[i] = (int32_t)(i % 3);
			r.logp[i] = r.value[i] = r.reward[i] = 0;
			r.done[i] = i == 4 ? LG_ROW_CUT : LG_ROW_NEXT;
		}
		r.n = 5;
		if (net_trainer_pack(b.data, b.len, &r, &d))
			exit(1);
		seed_mode("fuzz_trainer", "det_rows", 4, d.data, d.len);
		seed_mode("fuzz_trainer", "det_rows_truncated", 4, d.data,
			  d.len - 3);
		d.len = 0;
		r.n = 0;
		if (net_trainer_pack(b.data, b.len, &r, &d))
			exit(1);
		seed_mode("fuzz_trainer", "det_no_rows", 5, d.data, d.len);
		lg_buf_free(&d);
		lg_rows_free(&r);
	}
	lg_buf_free(&b);
}

/* ---- fuzz_nn ---------------------------------------------------------- */

static void nn_blob(const struct nn_shape *s, lg_buf *b)
{
	nn *n;

	b->len = 0;
	if (nn_new(&n, s, 7) || nn_save(n, b))
		exit(1);
	nn_free(n);
}

static void seeds_nn(void)
{
	struct nn_shape tiny = { .obs = 1, .actions = 1, .act = NN_TANH };
	struct nn_shape mlp = { .obs = 3, .actions = 2, .nhidden = 2,
				.hidden = { 4, 3 }, .act = NN_RELU };
	struct nn_shape conv = { .obs = 18, .actions = 3, .nhidden = 1,
				 .hidden = { 4 }, .act = NN_RELU, .nconv = 2,
				 .planes = { 2, 3, 3 },
				 .conv = { { 3, 3, 1, 1, 0, 0 },
					   { 2, 2, 1, 0, 0, 0 } } };
	/* version 3: a residual block, per-layer activations */
	struct nn_shape res = { .obs = 18, .actions = 3, .nhidden = 1,
				.hidden = { 4 }, .act = NN_RELU, .nconv = 3,
				.planes = { 2, 3, 3 },
				.conv = { { 3, 3, 1, 1, 0, 0 },
					  { 3, 3, 1, 1, 1, NN_LACT_TANH },
					  { 2, 1, 1, 0, 0, NN_LACT_NONE } },
				.hidden_act = { NN_LACT_TANH } };
	struct nn_shape gru = { .obs = 3, .actions = 2, .nhidden = 1,
				.hidden = { 4 }, .act = NN_TANH, .gru = 3 };
	lg_buf b = { 0 };

	nn_blob(&tiny, &b);
	seed_mode("fuzz_nn", "tiny_tanh", 0, b.data, b.len);
	nn_blob(&mlp, &b);
	seed_mode("fuzz_nn", "mlp_relu", 0, b.data, b.len);
	/* Near-valid: mode 1 makes the harness fix both CRCs, so each
	 * reaches the check it names. */
	seed_mode("fuzz_nn", "truncated_body", 1, b.data, b.len - 4);
	seed_mode("fuzz_nn", "truncated_header", 0, b.data, 40);
	lg_put_le32(b.data + 4, 4);
	seed_mode("fuzz_nn", "version4", 1, b.data, b.len);
	nn_blob(&mlp, &b);
	lg_put_le32(b.data + 16, 2);
	seed_mode("fuzz_nn", "bad_activation", 1, b.data, b.len);
	nn_blob(&mlp, &b);
	lg_put_le32(b.data + 24 + 4 * 2, 5);
	seed_mode("fuzz_nn", "hidden_beyond_nhidden", 1, b.data, b.len);
	nn_blob(&mlp, &b);
	lg_put_le32(b.data + 8, NN_MAX_OBS + 1);
	seed_mode("fuzz_nn", "obs_beyond_cap", 1, b.data, b.len);
	nn_blob(&mlp, &b);
	lg_put_le64(b.data + 56, 1);
	seed_mode("fuzz_nn", "count_mismatch", 1, b.data, b.len);
	nn_blob(&mlp, &b);
	b.data[NN_FILE_HEADER] ^= 1;
	seed_mode("fuzz_nn", "body_crc_mismatch", 0, b.data, b.len);
	nn_blob(&tiny, &b);
	lg_put_lef32(b.data + NN_FILE_HEADER, NAN);
	lg_put_lef32(b.data + NN_FILE_HEADER + 4, INFINITY);
	seed_mode("fuzz_nn", "nan_weights", 1, b.data, b.len);
	/* what a lying learner pushed (docs/reliability.md, "validated
	 * inputs"): a text, a real net with 64 bytes after it */
	seed_mode("fuzz_nn", "text_21_bytes", 0, "not a network at all", 21);
	nn_blob(&mlp, &b);
	for (int i = 0; i < 64; i++)
		if (lg_buf_append(&b, "\xa5", 1))
			exit(1);
	seed_mode("fuzz_nn", "trailing_64_bytes", 1, b.data, b.len);
	seed_mode("fuzz_nn", "trailing_64_bytes_crc", 0, b.data, b.len);
	/* Version 2, a net with convolutions (2 x 3 x 3 planes). */
	nn_blob(&conv, &b);
	seed_mode("fuzz_nn", "conv_v2", 0, b.data, b.len);
	lg_put_le32(b.data + 84 + 16 * 2, 3);
	seed_mode("fuzz_nn", "conv_beyond_nconv", 1, b.data, b.len);
	nn_blob(&conv, &b);
	lg_put_le32(b.data + 72, 5);
	seed_mode("fuzz_nn", "conv_planes_mismatch", 1, b.data, b.len);
	nn_blob(&conv, &b);
	lg_put_le32(b.data + 84 + 4, 7);
	seed_mode("fuzz_nn", "conv_kernel_too_wide", 1, b.data, b.len);
	nn_blob(&conv, &b);
	lg_put_le32(b.data + 68, 0);
	seed_mode("fuzz_nn", "conv_v2_nconv0", 1, b.data, b.len);
	nn_blob(&res, &b);
	seed_mode("fuzz_nn", "residual_v3", 0, b.data, b.len);
	lg_put_le32(b.data + 84 + 24 * 1 + 4, 2);
	seed_mode("fuzz_nn", "residual_even_kernel", 1, b.data, b.len);
	nn_blob(&res, &b);
	lg_put_le32(b.data + 84 + 24 * 0 + 16, 1);
	seed_mode("fuzz_nn", "residual_channels_mismatch", 1, b.data, b.len);
	nn_blob(&res, &b);
	lg_put_le32(b.data + 276, 7);
	seed_mode("fuzz_nn", "hidden_act_unknown", 1, b.data, b.len);
	/* version 4: a recurrent core after the dense layer */
	nn_blob(&gru, &b);
	seed_mode("fuzz_nn", "gru_v4", 0, b.data, b.len);
	lg_put_le32(b.data + 308, NN_MAX_WIDTH + 1);
	seed_mode("fuzz_nn", "gru_beyond_cap", 1, b.data, b.len);
	nn_blob(&gru, &b);
	lg_put_le32(b.data + 4, NN_FILE_VERSION3);
	seed_mode("fuzz_nn", "gru_in_v3", 1, b.data, b.len);
	lg_buf_free(&b);
}

/* ---- fuzz_blob -------------------------------------------------------- */

/* The record store_blob_put writes for info and payload. */
static void blob_seed(const char *name, const struct store_blob_info *info,
		      const void *payload, void (*spoil)(uint8_t *, size_t),
		      uint8_t mode)
{
	store_txn *t = scratch_txn();
	const void *v;
	size_t n;
	uint8_t *rec;

	if (store_blob_put(t, STORE_DB_SCRATCH, "k", 1, info, payload) ||
	    store_get(t, STORE_DB_SCRATCH, "k", 1, &v, &n) ||
	    !(rec = malloc(n)))
		exit(1);
	memcpy(rec, v, n);
	store_txn_abort(t);
	if (spoil)
		spoil(rec, n);
	seed_mode("fuzz_blob", name, mode, rec, n);
	free(rec);
}

static void spoil_payload(uint8_t *r, size_t n)
{
	r[n - 1] ^= 0x80;
}
static void spoil_header(uint8_t *r, size_t n)
{
	r[8] ^= 1;
}
static void spoil_version(uint8_t *r, size_t n)
{
	r[4] = 2;
}
static void spoil_rank(uint8_t *r, size_t n)
{
	lg_put_le32(r + 8, STORE_BLOB_MAX_RANK + 1);
}
static void spoil_dims(uint8_t *r, size_t n)
{
	lg_put_le32(r + 12, 0x10000);
	lg_put_le32(r + 16, 0x10000);
	lg_put_le32(r + 20, 0x10000);
	lg_put_le32(r + 24, 0x10000);
}
static void spoil_dtype(uint8_t *r, size_t n)
{
	r[6] = 9;
}

static void seeds_blob(void)
{
	float f[6] = { 0, 1, -2, 0.5f, 1e30f, -0.0f };
	struct store_blob_info m = { .dtype = STORE_DT_F32, .rank = 2,
				     .dims = { 2, 3 }, .nbytes = sizeof f };
	struct store_blob_info bytes = { .dtype = STORE_DT_BYTES,
					 .nbytes = 5 };
	struct store_blob_info vec = { .dtype = STORE_DT_BYTES, .rank = 1,
				       .dims = { 5 }, .nbytes = 5 };
	struct store_blob_info empty = { .dtype = STORE_DT_F32, .rank = 1 };

	blob_seed("f32_2x3", &m, f, NULL, 0);
	blob_seed("bytes", &bytes, "hello", NULL, 0);
	blob_seed("bytes_rank1", &vec, "hello", NULL, 0);
	blob_seed("empty_f32", &empty, "", NULL, 0);
	blob_seed("payload_crc_mismatch", &m, f, spoil_payload, 0);
	blob_seed("header_crc_mismatch", &m, f, spoil_header, 0);
	blob_seed("version2", &m, f, spoil_version, 1);
	blob_seed("rank_beyond_cap", &m, f, spoil_rank, 1);
	blob_seed("dims_overflow", &m, f, spoil_dims, 1);
	blob_seed("unknown_dtype", &m, f, spoil_dtype, 1);
	blob_seed("shape_mismatch", &m, f, spoil_header, 1);
}

/* ---- fuzz_brainlog ---------------------------------------------------- */

/* Key length byte, be64 seq, then the value. */
static void log_seed(const char *name, uint8_t klen, uint64_t seq,
		     const uint8_t *v, size_t n)
{
	uint8_t b[1 + 8 + 128];

	b[0] = klen;
	lg_put_be64(b + 1, seq);
	memcpy(b + 1 + (klen & 15), v, n);
	seed("fuzz_brainlog", name, b, 1 + (klen & 15) + n);
}

static void seeds_brainlog(void)
{
	uint8_t d[72] = { BRAIN_LOG_DECISION }, r[28] = { BRAIN_LOG_RESULT };
	uint8_t s[24] = { BRAIN_LOG_STEPS, 1, 0 }, c[16] = { BRAIN_LOG_CANCEL };

	lg_put_le32(d + 4, 0);
	lg_put_le32(d + 8, 3);
	lg_put_le32(d + 12, BRAIN_JOB_PFSP);
	lg_put_le32(d + 16, 2);
	lg_put_le32(d + 20, 8);
	lg_put_le64(d + 24, 17);
	lg_put_lef64(d + 32, 0.25);
	for (int i = 0; i < 4; i++)
		lg_put_le64(d + 40 + 8 * i, 0x9e3779b97f4a7c15ull * (i + 1));
	lg_put_le32(r + 4, 8);
	lg_put_le64(r + 8, 17);
	lg_put_le32(r + 16, 5);
	lg_put_le32(r + 20, 1);
	lg_put_le32(r + 24, 2);
	lg_put_le32(s + 4, 0);
	lg_put_le32(s + 8, 3);
	lg_put_le32(s + 12, 4);
	lg_put_le64(s + 16, 100000);
	lg_put_le64(c + 8, 17);
	log_seed("decision", 8, 1, d, sizeof d);
	log_seed("result", 8, 2, r, sizeof r);
	log_seed("steps", 8, 3, s, sizeof s);
	log_seed("cancel", 8, 4, c, sizeof c);
	log_seed("decision_short", 8, 5, d, sizeof d - 1);
	log_seed("key_short", 7, 6, r, sizeof r);
	lg_put_le32(d + 12, BRAIN_JOB__COUNT);
	log_seed("decision_bad_kind", 8, 7, d, sizeof d);
	{
		/* a step report that retired two snapshots (0x80 | 2, their
		 * ids after the fixed part); one that claims more than it
		 * holds; one beyond BRAIN_RETIRE_MAX */
		uint8_t sr[24 + 4 * BRAIN_RETIRE_MAX];
		memcpy(sr, s, sizeof s);
		sr[3] = 0x80 | 2;
		lg_put_le32(sr + 24, 1);
		lg_put_le32(sr + 28, 2);
		log_seed("steps_retired", 8, 8, sr, 24 + 8);
		log_seed("steps_retired_short", 8, 9, sr, 24 + 4);
		sr[3] = 0x80 | (BRAIN_RETIRE_MAX + 1);
		log_seed("steps_retired_too_many", 8, 10, sr, sizeof sr);
	}
	{
		/* an N-seat job's decision (its seats after the fixed part),
		 * a returns result's log entry, and the stored records of
		 * such a job (jobs) and result (results), which the harness
		 * decodes too */
		uint8_t dn[72 + 4 + 4 * 3], rr[28], jb[48 + 4 + 12 * 3];
		uint8_t rs[32 + 8 + 8 * 3 + 8 * 2 * 3];
		lg_put_le32(d + 12, BRAIN_JOB_PFSP);
		memcpy(dn, d, sizeof d);
		dn[72] = 3;
		dn[73] = 1;
		dn[74] = dn[75] = 0;
		for (int i = 0; i < 3; i++)
			lg_put_le32(dn + 76 + 4 * i, (uint32_t)(i ? 3 + i : 0));
		log_seed("decision_seats", 8, 11, dn, sizeof dn);
		dn[73] = 3; /* the learner's seat past the seats */
		log_seed("decision_seat_out", 8, 12, dn, sizeof dn);
		memcpy(rr, r, sizeof r);
		rr[0] = BRAIN_LOG_RETURNS;
		log_seed("returns", 8, 13, rr, sizeof rr);
		memset(jb, 0, sizeof jb);
		lg_put_le64(jb, 17);
		lg_put_le32(jb + 16, 3);
		jb[48] = 3;
		jb[49] = 2;
		for (int i = 0; i < 3; i++)
			lg_put_le32(jb + 52 + 12 * i, (uint32_t)i);
		log_seed("job_record_seats", 8, 14, jb, sizeof jb);
		memset(rs, 0, sizeof rs);
		lg_put_le32(rs + 16, 2);     /* n */
		lg_put_le32(rs + 32, 3);     /* nseats */
		lg_put_le32(rs + 36, 0);     /* learner seat */
		for (int i = 0; i < 3; i++) {
			lg_put_le32(rs + 40 + 8 * i, (uint32_t)i);
			lg_put_le32(rs + 44 + 8 * i, (uint32_t)i);
		}
		for (int i = 0; i < 6; i++)
			lg_put_lef64(rs + 64 + 8 * i, i % 3 ? -1.0 : 2.0);
		log_seed("returns_record", 8, 15, rs, sizeof rs);
		lg_put_lef64(rs + 64, NAN);
		log_seed("returns_record_nan", 8, 16, rs, sizeof rs);
	}
	c[0] = BRAIN_LOG_RETURNS + 1;
	log_seed("unknown_type", 8, 8, c, sizeof c);
}

/* ---- fuzz_evalrec ----------------------------------------------------- */

static void evalrec_seed(const char *name, const uint8_t *k, size_t klen,
			 const uint8_t *v, size_t vlen)
{
	uint8_t b[1 + 63 + LEAGUE_BGAME_REC_BYTES];

	b[0] = (uint8_t)klen;
	memcpy(b + 1, k, klen);
	memcpy(b + 1 + klen, v, vlen);
	seed("fuzz_evalrec", name, b, 1 + klen + vlen);
}

static void seeds_evalrec(void)
{
	struct league_eval_point p = {
		.snapshot = 3, .main_player = 0, .main_version = 12,
		.league_snapshots = 3, .env_steps = 123456, .seconds = 61.5,
		.nashconv_main = 0.125, .nashconv_league = 0.0625,
		.eval_seconds = 0.75,
	};
	struct league_bgame_row r = {
		.player = 0, .version = 12, .baseline = "minimax",
		.env_steps = 123456, .seconds = 61.5,
		.games = { 10, 10 }, .wins = { 2, 0 }, .draws = { 8, 9 },
		.losses = { 0, 1 },
	};
	uint8_t ev[LEAGUE_EVAL_REC_BYTES], bg[LEAGUE_BGAME_REC_BYTES];
	uint8_t seq[8], key[LEAGUE_BGAME_KEY_MAX];
	size_t kl;

	lg_put_be64(seq, 5);
	league_eval_encode(&p, ev);
	evalrec_seed("point", seq, 8, ev, sizeof ev);
	evalrec_seed("point_short", seq, 8, ev, sizeof ev - 8);
	evalrec_seed("point_key_short", seq, 4, ev, sizeof ev);
	kl = league_bgame_key(r.player, r.version, r.baseline, key);
	league_bgame_encode(&r, bg);
	evalrec_seed("row", key, kl, bg, sizeof bg);
	evalrec_seed("row_short", key, kl, bg, sizeof bg - 1);
	evalrec_seed("row_key_no_name", key, 9, bg, sizeof bg);
	key[kl - 1] = 0;
	evalrec_seed("row_name_nul", key, kl, bg, sizeof bg);
	kl = league_bgame_key(r.player + 1, r.version, r.baseline, key);
	evalrec_seed("row_key_other_player", key, kl, bg, sizeof bg);
	kl = league_bgame_key(r.player, r.version, r.baseline, key);
	r.wins[1] = 5;
	league_bgame_encode(&r, bg);
	evalrec_seed("row_counts_disagree", key, kl, bg, sizeof bg);
	memcpy(bg, "XYZ1", 4);
	evalrec_seed("other_kind", key, kl, bg, sizeof bg);
}

/* ---- fuzz_payoff ------------------------------------------------------ */

/* Append one record: selector, klen, vlen, key, value. */
static void rec(lg_buf *b, int ratings, const uint8_t *k, size_t klen,
		const uint8_t *v, size_t vlen)
{
	uint8_t h[3] = { (uint8_t)ratings, (uint8_t)klen, (uint8_t)vlen };

	if (lg_buf_append(b, h, 3) || lg_buf_append(b, k, klen) ||
	    lg_buf_append(b, v, vlen))
		exit(1);
}

static void pair(lg_buf *b, uint32_t a, uint32_t c,
		 const struct payoff_entry *e)
{
	struct payoff_entry m = { e->losses, e->draws, e->wins, e->games };
	uint8_t k[8], v[PAYOFF_ENTRY_BYTES];

	store_key_u32x2(k, a, c);
	payoff_entry_encode(e, v);
	rec(b, 0, k, 8, v, sizeof v);
	store_key_u32x2(k, c, a);
	payoff_entry_encode(&m, v);
	rec(b, 0, k, 8, v, sizeof v);
}

static void rating(lg_buf *b, uint32_t id, double elo, double games)
{
	uint8_t k[4], v[PAYOFF_RATING_BYTES];

	store_key_u32(k, id);
	lg_put_lef64(v, elo);
	lg_put_lef64(v + 8, games);
	rec(b, 1, k, 4, v, sizeof v);
}

static void seeds_payoff(void)
{
	struct payoff_entry e01 = { 3.5, 1, 2, 6.5 }, e02 = { 0, 0, 4, 4 };
	struct payoff_entry e13 = { 1e300, 0, 1e300, 1e300 };
	struct payoff_entry neg = { -1, 0, 0, 0 };
	lg_buf b = { 0 };

	pair(&b, 0, 1, &e01);
	pair(&b, 0, 2, &e02);
	pair(&b, 0, 0, &e02);
	rating(&b, 0, 12.5, 10.5);
	rating(&b, 1, -12.5, 6.5);
	seed("fuzz_payoff", "league", b.data, b.len);
	b.len = 0;
	pair(&b, 1, 3, &e13);
	rating(&b, 3, 4800, 1e300);
	seed("fuzz_payoff", "huge_counts", b.data, b.len);
	b.len = 0;
	pair(&b, 0, 4, &e01);
	seed("fuzz_payoff", "unknown_agent", b.data, b.len);
	b.len = 0;
	pair(&b, 2, 3, &neg);
	seed("fuzz_payoff", "negative_count", b.data, b.len);
	b.len = 0;
	rating(&b, 1, NAN, 1);
	seed("fuzz_payoff", "rating_nan", b.data, b.len);
	lg_buf_free(&b);
}

/* ---- fuzz_tabular ----------------------------------------------------- */

/* The action count byte (A - 1), then the text. */
static void tab_seed(const char *name, int A, const char *text)
{
	size_t n = strlen(text);
	uint8_t *b = malloc(n + 1);

	if (!b)
		exit(1);
	b[0] = (uint8_t)(A - 1);
	memcpy(b + 1, text, n);
	seed("fuzz_tabular", name, b, n + 1);
	free(b);
}

static void seeds_tabular(void)
{
	char *longkey, *longline;

	tab_seed("kuhn", 2, "# Kuhn poker, player 0 bets with the king\n"
		 "0 0.6667 0.3333\nK 0 1\n\n  Qpb\t1 0\r\n0pb 1e-1 9e-1\n");
	tab_seed("three_actions", 3, "r 0.2 0.3 0.5\np 1 0 0\n");
	tab_seed("no_newline", 1, "a 1");
	tab_seed("sum_not_one", 2, "x 0.5 0.4\n");
	tab_seed("duplicate", 2, "x 0.5 0.5\nx 1 0\n");
	tab_seed("too_few", 3, "x 0.5 0.5\n");
	tab_seed("too_many", 1, "x 1 0\n");
	tab_seed("negative", 2, "x -0.5 1.5\n");
	tab_seed("not_a_number", 2, "x nan 1\ny 0x1p-1 0.5\n");
	longkey = malloc(200);
	longline = malloc(4200);
	if (!longkey || !longline)
		exit(1);
	memset(longkey, 'k', 199);
	longkey[70] = ' ';
	longkey[71] = '1';
	longkey[72] = 0;
	tab_seed("key_too_long", 1, longkey);
	memset(longline, ' ', 4199);
	memcpy(longline, "x 1", 3);
	longline[4199] = 0;
	tab_seed("line_too_long", 1, longline);
	free(longkey);
	free(longline);
}

/* ---- fuzz_remote ------------------------------------------------------ */

/* The selector byte (and, for a reply, the op count and kinds), then m
 * packed, less its last `cut` bytes. */
static void remote_seed(const char *name, const uint8_t *head, size_t nhead,
			const ProtobufCMessage *m, size_t cut)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *b = malloc(nhead + n + 1);

	if (!b || cut > n)
		exit(1);
	memcpy(b, head, nhead);
	protobuf_c_message_pack(m, b + nhead);
	seed("fuzz_remote", name, b, nhead + n - cut);
	free(b);
}

/* Selector 0 (want NULL) or want<<1, then a Welcome. */
static void welcome_seed(const char *name, uint8_t want,
			 const League__Game__Welcome *w, size_t cut)
{
	uint8_t h = (uint8_t)(want << 1);

	remote_seed(name, &h, 1, &w->base, cut);
}

static void seeds_welcome(void)
{
	League__Game__Welcome w = LEAGUE__GAME__WELCOME__INIT;
	League__Game__Spec s = LEAGUE__GAME__SPEC__INIT;
	uint32_t shape[5] = { 3, 3, 3, 1, 1 };

	/* what python/league_game sends for a tic-tac-toe server */
	s.name = "tictactoe";
	s.players = 2;
	s.num_actions = 9;
	s.n_obs_shape = 3;
	s.obs_shape = shape;
	s.max_steps = 9;
	w.version = 1;
	w.spec = &s;
	welcome_seed("welcome", 0, &w, 0);
	welcome_seed("welcome_want", 2, &w, 0);
	welcome_seed("welcome_want_any", 1, &w, 0);
	welcome_seed("welcome_other_game", 3, &w, 0);
	welcome_seed("welcome_truncated", 0, &w, 3);
	s.name = "rps";
	s.num_actions = 3;
	s.n_obs_shape = 1;
	shape[0] = 2;
	s.simultaneous = 1;
	s.max_steps = 1;
	welcome_seed("welcome_simultaneous", 3, &w, 0);
	/* one thing wrong each */
	s.name = "Tic Tac";
	welcome_seed("welcome_bad_name", 0, &w, 0);
	s.name = "a_name_of_thirty_two_characters_";
	welcome_seed("welcome_long_name", 0, &w, 0);
	s.name = "rps";
	s.players = 3;
	welcome_seed("welcome_players3", 0, &w, 0);
	s.players = 2;
	s.num_actions = ENV_MAX_ACTIONS + 1;
	welcome_seed("welcome_actions65", 0, &w, 0);
	s.num_actions = 0;
	welcome_seed("welcome_actions0", 0, &w, 0);
	s.num_actions = 3;
	s.n_obs_shape = 0;
	welcome_seed("welcome_no_obs_shape", 0, &w, 0);
	s.n_obs_shape = 5;
	welcome_seed("welcome_obs_rank5", 0, &w, 0);
	s.n_obs_shape = 2;
	shape[0] = 4;
	shape[1] = 0;
	welcome_seed("welcome_obs_dim0", 0, &w, 0);
	shape[0] = 1024;
	shape[1] = 1025;
	welcome_seed("welcome_obs_too_big", 0, &w, 0);
	shape[0] = 2;
	s.n_obs_shape = 1;
	s.max_steps = 0;
	welcome_seed("welcome_max_steps0", 0, &w, 0);
	s.max_steps = 1;
	w.version = 2;
	welcome_seed("welcome_version2", 0, &w, 0);
	w.version = 1;
	w.spec = NULL;
	welcome_seed("welcome_no_spec", 0, &w, 0);
	w.error = "env.params: unknown parameter 'size'";
	welcome_seed("welcome_error", 0, &w, 0);
	w.error = "Traceback:\n\tValueError: size\x7f\r\x1b[31m";
	welcome_seed("welcome_error_control_chars", 0, &w, 0);
}

/* A columnar BatchReply under construction: the columns live here. */
struct rbuild {
	int32_t player[MAX_SEED_OPS + 1];
	uint8_t obs[4 * 2 * 27 * (MAX_SEED_OPS + 1) + 8];
	uint8_t mask[2 * 4672 + 8];
	double ret[8 * (MAX_SEED_OPS + 1) + 2];
	uint32_t legal_n[8 * (MAX_SEED_OPS + 1)];
	uint32_t legal[64];
	char *text[MAX_SEED_OPS + 1];     /* a text op's: text, names_n, */
	uint32_t names_n[MAX_SEED_OPS + 1]; /* named and names */
	uint32_t named[64];
	char *names[64];
	League__Game__Failure fail[MAX_SEED_OPS + 1];
	League__Game__Failure *fp[MAX_SEED_OPS + 1];
	League__Game__BatchReply rp;
};

/* The seeds' games, as the harness's selector bits 1-2 name them. */
enum { G_SEQ, G_SIM, G_TINY, G_TINY_SIM };
static const struct {
	size_t ol, na;
} rgames[4] = { { 27, 9 }, { 2, 3 }, { 1, 1 }, { 1, 2 } };

static void rb_init(struct rbuild *r)
{
	memset(r, 0, sizeof *r);
	league__game__batch_reply__init(&r->rp);
	r->rp.player = r->player;
	r->rp.obs.data = r->obs;
	r->rp.mask.data = r->mask;
	r->rp.returns = r->ret;
	r->rp.failures = r->fp;
	r->rp.legal_n = r->legal_n;
	r->rp.legal = r->legal;
	r->rp.text = r->text;
	r->rp.names_n = r->names_n;
	r->rp.named = r->named;
	r->rp.names = r->names;
}

/* One mover's obs (0.5, 0.5, ...) and mask (all legal) of game g. */
static void rb_mover(struct rbuild *r, int g)
{
	for (size_t k = 0; k < rgames[g].ol; k++) {
		lg_put_lef32(r->obs + r->rp.obs.len, 0.5f);
		r->rp.obs.len += 4;
	}
	memset(r->mask + r->rp.mask.len, 1, rgames[g].na);
	r->rp.mask.len += rgames[g].na;
}

/* The next op's player, with its entries: a mover's obs and mask (two
 * movers for -2), or returns ret, -ret for -1 (over); none for -3. */
static void rb_op(struct rbuild *r, int g, int32_t player, double ret)
{
	r->player[r->rp.n_player++] = player;
	if (player == -1) {
		r->ret[r->rp.n_returns++] = ret;
		r->ret[r->rp.n_returns++] = -ret;
	} else if (player == -2) {
		rb_mover(r, g);
		rb_mover(r, g);
	} else if (player >= 0) {
		rb_mover(r, g);
	}
}

static void rb_fail(struct rbuild *r, uint32_t op, char *error)
{
	League__Game__Failure *f = &r->fail[r->rp.n_failures];

	league__game__failure__init(f);
	f->op = op;
	f->error = error;
	r->fp[r->rp.n_failures++] = f;
}

/* Selector (the reply bit, game g in bits 1-2), op count, kinds (a digit
 * per op: 0 reset, 1 step, 2 close), the reply less its last cut bytes. */
static void reply_seed(const char *name, int g, const char *kinds,
		       struct rbuild *r, size_t cut)
{
	uint8_t h[2 + MAX_SEED_OPS];
	size_t n = strlen(kinds);

	if (n > MAX_SEED_OPS)
		exit(1);
	h[0] = (uint8_t)(1 | g << 1);
	h[1] = (uint8_t)n;
	for (size_t i = 0; i < n; i++)
		h[2 + i] = (uint8_t)(kinds[i] - '0');
	remote_seed(name, h, 2 + n, &r->rp.base, cut);
}

/* A reset answered (player 0 to move) and a step (player 1 to move) in
 * the sequential game: the base of the near-valid sequential seeds. */
static void rb_reset_step(struct rbuild *r)
{
	rb_init(r);
	rb_op(r, G_SEQ, 0, 0);
	rb_op(r, G_SEQ, 1, 0);
}

static void seeds_reply(void)
{
	static struct rbuild r;

	/* valid: sequential (9 actions, obs_len 27) */
	rb_reset_step(&r);
	reply_seed("reply_reset_step", G_SEQ, "01", &r, 0);
	rb_init(&r);
	reply_seed("reply_empty", G_SEQ, "", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, -1, 1);
	reply_seed("reply_terminal", G_SEQ, "1", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, -3, 0);
	reply_seed("reply_close", G_SEQ, "2", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, 1, 0);
	rb_op(&r, G_SEQ, -3, 0);
	rb_op(&r, G_SEQ, 0, 0);
	reply_seed("reply_step_close_reset", G_SEQ, "120", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, -3, 0);
	rb_op(&r, G_SEQ, 0, 0);
	rb_fail(&r, 0, "ValueError: illegal action 4");
	reply_seed("reply_failure", G_SEQ, "10", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, 0, 0);
	rb_op(&r, G_SEQ, -3, 0);
	rb_op(&r, G_SEQ, -3, 0);
	rb_op(&r, G_SEQ, -1, 0);
	rb_op(&r, G_SEQ, 1, 0);
	rb_op(&r, G_SEQ, -1, -0.5);
	rb_op(&r, G_SEQ, -3, 0);
	rb_fail(&r, 6, "RuntimeError: the game broke\n  at line 3");
	rb_fail(&r, 1, "");
	reply_seed("reply_seven_ops", G_SEQ, "0121011", &r, 0);
	/* valid: simultaneous (3 actions, obs_len 2): both move */
	rb_init(&r);
	rb_op(&r, G_SIM, -2, 0);
	rb_op(&r, G_SIM, -1, -1);
	reply_seed("reply_simultaneous", G_SIM, "01", &r, 0);
	/* valid: the tiny games (obs_len 1; 1 action, resp. 2) */
	rb_init(&r);
	rb_op(&r, G_TINY, 0, 0);
	rb_op(&r, G_TINY, -1, 0.25);
	rb_op(&r, G_TINY, -3, 0);
	reply_seed("reply_tiny", G_TINY, "012", &r, 0);
	rb_init(&r);
	rb_op(&r, G_TINY_SIM, -2, 0);
	rb_op(&r, G_TINY_SIM, -3, 0);
	rb_fail(&r, 1, "illegal");
	reply_seed("reply_tiny_simultaneous", G_TINY_SIM, "01", &r, 0);

	/* near-valid, one thing wrong each: the columns */
	rb_reset_step(&r);
	reply_seed("reply_truncated", G_SEQ, "01", &r, 5);
	rb_reset_step(&r);
	r.rp.n_player = 1;
	reply_seed("reply_fewer_players", G_SEQ, "01", &r, 0);
	rb_reset_step(&r);
	reply_seed("reply_more_players", G_SEQ, "0", &r, 0);
	rb_reset_step(&r);
	r.rp.obs.len += 4;
	reply_seed("reply_obs_leftover", G_SEQ, "01", &r, 0);
	rb_reset_step(&r);
	r.rp.obs.len += 2;
	reply_seed("reply_obs_not_whole_floats", G_SEQ, "01", &r, 0);
	rb_reset_step(&r);
	r.rp.obs.len -= 4;
	reply_seed("reply_obs_short", G_SEQ, "01", &r, 0);
	rb_reset_step(&r);
	r.rp.mask.len += 1;
	reply_seed("reply_mask_leftover", G_SEQ, "01", &r, 0);
	rb_reset_step(&r);
	r.rp.mask.len -= 1;
	reply_seed("reply_mask_short", G_SEQ, "01", &r, 0);
	rb_reset_step(&r);
	r.ret[0] = 1;
	r.ret[1] = -1;
	r.rp.n_returns = 2;
	reply_seed("reply_returns_before_end", G_SEQ, "01", &r, 0);
	/* the values */
	rb_reset_step(&r);
	r.mask[9 + 4] = 2;
	reply_seed("reply_mask_byte2", G_SEQ, "01", &r, 0);
	rb_reset_step(&r);
	memset(r.mask + 9, 0, 9);
	reply_seed("reply_no_legal", G_SEQ, "01", &r, 0);
	rb_reset_step(&r);
	lg_put_lef32(r.obs + 4 * (27 + 26), NAN);
	reply_seed("reply_obs_nan", G_SEQ, "01", &r, 0);
	rb_reset_step(&r);
	lg_put_lef32(r.obs, -INFINITY);
	reply_seed("reply_obs_inf", G_SEQ, "01", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, -1, 1);
	r.ret[1] = 1;
	reply_seed("reply_returns_not_zero_sum", G_SEQ, "1", &r, 0);
	r.ret[1] = -1 + 1e-3;
	reply_seed("reply_returns_nearly_zero_sum", G_SEQ, "1", &r, 0);
	r.ret[0] = INFINITY;
	r.ret[1] = -INFINITY;
	reply_seed("reply_returns_inf", G_SEQ, "1", &r, 0);
	r.ret[0] = 1e10;
	r.ret[1] = -1e10;
	reply_seed("reply_returns_huge", G_SEQ, "1", &r, 0);
	r.ret[0] = 1;
	r.ret[1] = -1;
	r.rp.n_returns = 1;
	reply_seed("reply_returns_missing", G_SEQ, "1", &r, 0);
	/* the players */
	rb_init(&r);
	rb_op(&r, G_SEQ, 0, 0);
	rb_op(&r, G_SEQ, -2, 0);
	reply_seed("reply_both_move_sequential", G_SEQ, "01", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, 0, 0);
	rb_op(&r, G_SEQ, 2, 0);
	reply_seed("reply_player2", G_SEQ, "01", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SIM, -2, 0);
	rb_op(&r, G_SIM, 0, 0);
	reply_seed("reply_one_mover_simultaneous", G_SIM, "01", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SIM, -2, 0);
	rb_op(&r, G_SIM, -1, -1);
	memset(r.mask + 3, 0, 3);
	reply_seed("reply_simultaneous_second_no_legal", G_SIM, "01", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, 1, 0);
	rb_op(&r, G_SEQ, 0, 0);
	reply_seed("reply_close_with_state", G_SEQ, "12", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, -3, 0);
	rb_op(&r, G_SEQ, 0, 0);
	reply_seed("reply_no_state_without_failure", G_SEQ, "10", &r, 0);
	/* the failures */
	rb_init(&r);
	rb_op(&r, G_SEQ, 1, 0);
	rb_op(&r, G_SEQ, -3, 0);
	rb_fail(&r, 1, "closed");
	reply_seed("reply_failure_for_close", G_SEQ, "12", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, -3, 0);
	rb_op(&r, G_SEQ, 0, 0);
	rb_fail(&r, 0, "ValueError: illegal action 4");
	rb_fail(&r, 0, "ValueError: illegal action 4");
	reply_seed("reply_failure_duplicate", G_SEQ, "10", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, -3, 0);
	rb_op(&r, G_SEQ, 0, 0);
	rb_fail(&r, 0, "ValueError: illegal action 4");
	rb_fail(&r, 2, "no such op");
	reply_seed("reply_failure_out_of_range", G_SEQ, "10", &r, 0);
	rb_init(&r);
	rb_op(&r, G_SEQ, 1, 0);
	rb_op(&r, G_SEQ, 0, 0);
	rb_fail(&r, 0, "failed, yet a state");
	reply_seed("reply_failure_with_state", G_SEQ, "10", &r, 0);
}

/* ---- fuzz_remote, protocol version 2 ------------------------------------ */

/* A version 2 seat of obs_shape dims[0..rank), na actions, team, role. */
static void seat_v2(League__Game__Seat *t, uint32_t *dims, size_t rank,
		    uint32_t na, uint32_t team, char *role)
{
	league__game__seat__init(t);
	t->obs_shape = dims;
	t->n_obs_shape = rank;
	t->num_actions = na;
	t->team = team;
	t->role = role;
}

/* The spec of the harness's version 2 game 1 ("sheriff"): three
 * simultaneous seats, a sheriff (obs 2, 3 actions) and two smugglers
 * (obs 3, 100 actions, one team), general-sum. */
static void sheriff_v2(League__Game__Spec *s, League__Game__Seat *t,
		       League__Game__Seat **tp, uint32_t *d2, uint32_t *d3)
{
	league__game__spec__init(s);
	s->name = "sheriff";
	s->players = 3;
	s->simultaneous = 1;
	s->max_steps = 1;
	s->payoff = LEAGUE__GAME__PAYOFF__GENERAL_SUM;
	s->teams = 2;
	seat_v2(&t[0], d2, 1, 3, 0, "sheriff");
	seat_v2(&t[1], d3, 1, 100, 1, "smuggler");
	seat_v2(&t[2], d3, 1, 100, 1, "smuggler");
	for (int i = 0; i < 3; i++)
		tp[i] = &t[i];
	s->seats = tp;
	s->n_seats = 3;
}

static void seeds_welcome_v2(void)
{
	League__Game__Welcome w = LEAGUE__GAME__WELCOME__INIT;
	League__Game__Spec s;
	League__Game__Seat t[9], *tp[9];
	uint32_t d2[1] = { 2 }, d3[1] = { 3 }, d17[1] = { 17 }, d23[2] = { 2, 3 };

	w.version = 2;
	w.spec = &s;
	sheriff_v2(&s, t, tp, d2, d3);
	welcome_seed("welcome_v2_sheriff", 0, &w, 0);
	welcome_seed("welcome_v2_sheriff_truncated", 0, &w, 4);
	/* one thing wrong each */
	s.n_seats = 2;
	welcome_seed("welcome_v2_seats_short", 0, &w, 0);
	s.n_seats = 3;
	t[2].team = 2;
	welcome_seed("welcome_v2_team_out_of_range", 0, &w, 0);
	s.teams = 3;
	t[2].team = 1;
	welcome_seed("welcome_v2_team_without_seat", 0, &w, 0);
	s.teams = 0;
	welcome_seed("welcome_v2_team_without_teams", 0, &w, 0);
	s.teams = 4;
	welcome_seed("welcome_v2_teams_over_players", 0, &w, 0);
	s.teams = 2;
	t[2].num_actions = 99;
	welcome_seed("welcome_v2_role_spaces_differ", 0, &w, 0);
	t[2].num_actions = 100;
	t[0].role = "Sheriff";
	welcome_seed("welcome_v2_bad_role", 0, &w, 0);
	t[0].role = "a_sixteen_chars_";
	welcome_seed("welcome_v2_long_role", 0, &w, 0);
	t[0].role = "sheriff";
	t[1].num_actions = t[2].num_actions = 65537;
	welcome_seed("welcome_v2_actions65537", 0, &w, 0);
	t[1].num_actions = t[2].num_actions = 65536;
	welcome_seed("welcome_v2_actions65536", 0, &w, 0);
	t[1].num_actions = t[2].num_actions = 100;
	s.payoff = 4;
	welcome_seed("welcome_v2_payoff4", 0, &w, 0);
	s.payoff = LEAGUE__GAME__PAYOFF__CONSTANT_SUM;
	s.payoff_sum = NAN;
	welcome_seed("welcome_v2_payoff_sum_nan", 0, &w, 0);
	s.payoff_sum = 2;
	welcome_seed("welcome_v2_constant_sum", 0, &w, 0);
	w.version = 3;
	welcome_seed("welcome_v3", 0, &w, 0);
	w.version = 2;
	/* three seats alike (3-player Kuhn), wanted as "rps": refused */
	league__game__spec__init(&s);
	s.name = "kuhn3";
	s.players = 3;
	s.max_steps = 5;
	for (int i = 0; i < 9; i++) {
		seat_v2(&t[i], d17, 1, 2, 0, "");
		tp[i] = &t[i];
	}
	s.seats = tp;
	s.n_seats = 3;
	welcome_seed("welcome_v2_kuhn3", 0, &w, 0);
	welcome_seed("welcome_v2_kuhn3_other_game", 3, &w, 0);
	s.players = s.n_seats = 1;
	welcome_seed("welcome_v2_one_seat", 0, &w, 0);
	s.players = s.n_seats = 8;
	welcome_seed("welcome_v2_eight_seats", 0, &w, 0);
	s.players = s.n_seats = 9;
	welcome_seed("welcome_v2_nine_seats", 0, &w, 0);
	s.players = s.n_seats = 0;
	welcome_seed("welcome_v2_no_seats", 0, &w, 0);
	/* two seats of one team, shaped obs, common payoff */
	s.players = s.n_seats = 2;
	s.simultaneous = 1;
	s.teams = 1;
	s.payoff = LEAGUE__GAME__PAYOFF__COMMON_PAYOFF;
	t[0].obs_shape = t[1].obs_shape = d23;
	t[0].n_obs_shape = t[1].n_obs_shape = 2;
	welcome_seed("welcome_v2_coop_shaped", 0, &w, 0);
	/* a version 1 spec answered as version 2: no seats */
	w.version = 1;
	welcome_seed("welcome_v1_with_seats", 0, &w, 0);
}

/* The harness's version 2 games (selector bits 1-2 with bit 3): obs_len
 * and num_actions per seat. */
enum { V2_KUHN3, V2_SHERIFF, V2_BIG4, V2_COOP };
static const struct {
	int players;
	size_t ol[4], na[4];
} v2games[4] = {
	{ 3, { 17, 17, 17 }, { 2, 2, 2 } },
	{ 3, { 2, 3, 3 }, { 3, 100, 100 } },
	{ 4, { 1, 1, 1, 1 }, { 4672, 4672, 4672, 4672 } },
	{ 2, { 1, 1 }, { 2, 2 } },
};

/* Seat q of game g moves: its obs (0.25 each) and, with k = 0, an
 * all-legal mask, else the k actions of list. */
static void rb_seat_v2(struct rbuild *r, int g, int q, size_t k,
		       const uint32_t *list)
{
	for (size_t x = 0; x < v2games[g].ol[q]; x++) {
		lg_put_lef32(r->obs + r->rp.obs.len, 0.25f);
		r->rp.obs.len += 4;
	}
	r->legal_n[r->rp.n_legal_n++] = (uint32_t)k;
	if (!k) {
		memset(r->mask + r->rp.mask.len, 1, v2games[g].na[q]);
		r->rp.mask.len += v2games[g].na[q];
	}
	for (size_t j = 0; j < k; j++)
		r->legal[r->rp.n_legal++] = list[j];
}

/* An op over, with returns ret[0..players). */
static void rb_over_v2(struct rbuild *r, int g, const double *ret)
{
	r->player[r->rp.n_player++] = -1;
	for (int p = 0; p < v2games[g].players; p++)
		r->ret[r->rp.n_returns++] = ret[p];
}

static void reply_seed_v2(const char *name, int g, const char *kinds,
			  struct rbuild *r, size_t cut)
{
	reply_seed(name, g | 4, kinds, r, cut);
}

/* Kuhn3: a reset (seat 0, masked), a step (seat 1, listed [1, 0]), a
 * step that ends it with rets. */
static void rb_kuhn3(struct rbuild *r, const double *rets)
{
	static const uint32_t both[2] = { 1, 0 };

	rb_init(r);
	r->player[r->rp.n_player++] = 0;
	rb_seat_v2(r, V2_KUHN3, 0, 0, NULL);
	r->player[r->rp.n_player++] = 1;
	rb_seat_v2(r, V2_KUHN3, 1, 2, both);
	rb_over_v2(r, V2_KUHN3, rets);
}

/* Sheriff: a reset (every seat: a list, a mask, a list), a step that
 * ends it with rets. */
static void rb_sheriff(struct rbuild *r, const double *rets)
{
	static const uint32_t l0[2] = { 2, 0 }, l2[2] = { 99, 5 };

	rb_init(r);
	r->player[r->rp.n_player++] = -2;
	rb_seat_v2(r, V2_SHERIFF, 0, 2, l0);
	rb_seat_v2(r, V2_SHERIFF, 1, 0, NULL);
	rb_seat_v2(r, V2_SHERIFF, 2, 2, l2);
	rb_over_v2(r, V2_SHERIFF, rets);
}

static void seeds_reply_v2(void)
{
	static struct rbuild r;
	static const uint32_t big[3] = { 4671, 0, 17 };
	const double zero3[3] = { 2, -1, -1 }, gen[3] = { 2, 104, 104 };
	const double c4[4] = { 0.5, 0, 0.5, 0 }, co[2] = { 3, 3 };

	rb_kuhn3(&r, zero3);
	reply_seed_v2("reply_v2_kuhn3", V2_KUHN3, "011", &r, 0);
	reply_seed_v2("reply_v2_kuhn3_truncated", V2_KUHN3, "011", &r, 6);
	rb_sheriff(&r, gen);
	reply_seed_v2("reply_v2_sheriff", V2_SHERIFF, "01", &r, 0);
	rb_init(&r);
	r.player[r.rp.n_player++] = 2;
	rb_seat_v2(&r, V2_BIG4, 2, 3, big);
	r.player[r.rp.n_player++] = 3;
	rb_seat_v2(&r, V2_BIG4, 3, 0, NULL);
	rb_over_v2(&r, V2_BIG4, c4);
	reply_seed_v2("reply_v2_big4", V2_BIG4, "111", &r, 0);
	rb_init(&r);
	r.player[r.rp.n_player++] = -2;
	rb_seat_v2(&r, V2_COOP, 0, 0, NULL);
	rb_seat_v2(&r, V2_COOP, 1, 0, NULL);
	rb_over_v2(&r, V2_COOP, co);
	reply_seed_v2("reply_v2_coop", V2_COOP, "01", &r, 0);

	/* one thing wrong each: the lists */
	rb_sheriff(&r, gen);
	r.legal[3] = 99;
	reply_seed_v2("reply_v2_list_twice", V2_SHERIFF, "01", &r, 0);
	rb_sheriff(&r, gen);
	r.legal[0] = 3;
	reply_seed_v2("reply_v2_list_out_of_range", V2_SHERIFF, "01", &r, 0);
	rb_sheriff(&r, gen);
	r.rp.n_legal_n--;
	reply_seed_v2("reply_v2_legal_n_short", V2_SHERIFF, "01", &r, 0);
	rb_sheriff(&r, gen);
	r.legal_n[r.rp.n_legal_n++] = 0;
	reply_seed_v2("reply_v2_legal_n_leftover", V2_SHERIFF, "01", &r, 0);
	rb_sheriff(&r, gen);
	r.rp.n_legal--;
	reply_seed_v2("reply_v2_legal_short", V2_SHERIFF, "01", &r, 0);
	rb_sheriff(&r, gen);
	r.legal[r.rp.n_legal++] = 7;
	reply_seed_v2("reply_v2_legal_leftover", V2_SHERIFF, "01", &r, 0);
	rb_kuhn3(&r, zero3);
	r.rp.n_legal_n = 0;
	r.rp.n_legal = 0;
	reply_seed_v2("reply_v2_as_version1", V2_KUHN3, "011", &r, 0);
	rb_reset_step(&r); /* version 1 does not read legal_n, legal */
	r.legal_n[r.rp.n_legal_n++] = 5;
	r.legal[r.rp.n_legal++] = 1;
	reply_seed("reply_v1_with_legal_n", G_SEQ, "01", &r, 0);
	/* the players and returns */
	rb_kuhn3(&r, zero3);
	r.player[1] = 3;
	reply_seed_v2("reply_v2_player3", V2_KUHN3, "011", &r, 0);
	rb_kuhn3(&r, zero3);
	r.rp.n_returns--;
	reply_seed_v2("reply_v2_returns_short", V2_KUHN3, "011", &r, 0);
	r.ret[2] = -0.5;
	r.rp.n_returns++;
	reply_seed_v2("reply_v2_not_zero_sum", V2_KUHN3, "011", &r, 0);
	rb_sheriff(&r, gen);
	r.ret[2] = 103;
	reply_seed_v2("reply_v2_team_differs", V2_SHERIFF, "01", &r, 0);
	r.ret[2] = 104 + 1e-5;
	reply_seed_v2("reply_v2_team_nearly_equal", V2_SHERIFF, "01", &r, 0);
	r.ret[0] = INFINITY;
	reply_seed_v2("reply_v2_returns_inf", V2_SHERIFF, "01", &r, 0);
	rb_init(&r);
	rb_over_v2(&r, V2_BIG4, c4);
	r.ret[1] = r.ret[3] = 0.25;
	reply_seed_v2("reply_v2_constant_sum_wrong", V2_BIG4, "1", &r, 0);
	rb_init(&r);
	rb_over_v2(&r, V2_COOP, co);
	r.ret[1] = 2;
	reply_seed_v2("reply_v2_common_payoff_differs", V2_COOP, "1", &r, 0);
}

/* A text op's answer: its text and the k actions of named[] with their
 * names. */
static void rb_text(struct rbuild *r, char *text, size_t k,
		    const uint32_t *named, char *const *names)
{
	r->player[r->rp.n_player++] = -3;
	r->text[r->rp.n_text++] = text;
	r->names_n[r->rp.n_names_n++] = (uint32_t)k;
	for (size_t j = 0; j < k; j++) {
		r->named[r->rp.n_named++] = named[j];
		r->names[r->rp.n_names++] = names[j];
	}
}

/* Kuhn3: a reset (seat 0 to move), then text ops for seat 0 (check and
 * bet named) and seat 1 (none named). The kind digits: 3 a text op for
 * seat 0, 7 for seat 1 (the byte / 4). */
static void rb_kuhn3_text(struct rbuild *r)
{
	static const uint32_t both[2] = { 0, 1 };
	static char *const cb[2] = { "check", "bet" };

	rb_init(r);
	r->player[r->rp.n_player++] = 0;
	rb_seat_v2(r, V2_KUHN3, 0, 0, NULL);
	rb_text(r, "kuhn poker, 3 players: you are seat 0\nyour card: K\n"
		"pot: 3 (you put in 1)\nmoves: none yet", 2, both, cb);
	rb_text(r, "kuhn poker, 3 players: you are seat 1", 0, NULL, NULL);
}

/* Version 2's text ops (net/game.proto's TEXT): valid answers, then one
 * thing wrong each. */
static void seeds_reply_text(void)
{
	static struct rbuild r;
	static char long_text[4097], long_name[65];
	static const uint32_t far[2] = { 4671, 0 };
	static char *const moves[2] = { "h8h7q", "a1a2" };
	static char *const bad[5] = { "b et", "", "bet\t", long_name,
				      "b\x7f" };
	static char boom[] = "ValueError: describe failed";

	rb_kuhn3_text(&r);
	reply_seed_v2("reply_v2_text", V2_KUHN3, "037", &r, 0);
	reply_seed_v2("reply_v2_text_truncated", V2_KUHN3, "037", &r, 5);
	rb_init(&r);
	rb_text(&r, "", 2, far, moves);
	reply_seed_v2("reply_v2_text_big4_seat2", V2_BIG4, ";", &r, 0);
	rb_init(&r);
	r.player[r.rp.n_player++] = -3;
	rb_fail(&r, 0, boom);
	reply_seed_v2("reply_v2_text_failed", V2_KUHN3, "3", &r, 0);
	/* one thing wrong each */
	rb_kuhn3_text(&r);
	r.player[1] = 0;
	reply_seed_v2("reply_v2_text_with_player", V2_KUHN3, "037", &r, 0);
	rb_kuhn3_text(&r);
	r.named[1] = 0;
	reply_seed_v2("reply_v2_text_named_twice", V2_KUHN3, "037", &r, 0);
	rb_kuhn3_text(&r);
	r.named[1] = 2;
	reply_seed_v2("reply_v2_text_named_out_of_range", V2_KUHN3, "037", &r,
		      0);
	memset(long_name, 'n', 64);
	for (int i = 0; i < 5; i++) {
		char name[48];
		rb_kuhn3_text(&r);
		r.names[1] = bad[i];
		snprintf(name, sizeof name, "reply_v2_text_bad_name%d", i);
		reply_seed_v2(name, V2_KUHN3, "037", &r, 0);
	}
	rb_kuhn3_text(&r);
	r.rp.n_names--;
	reply_seed_v2("reply_v2_text_names_short", V2_KUHN3, "037", &r, 0);
	rb_kuhn3_text(&r);
	r.names_n[1] = 3;
	reply_seed_v2("reply_v2_text_names_n_over", V2_KUHN3, "037", &r, 0);
	rb_kuhn3_text(&r);
	r.rp.n_names_n--;
	reply_seed_v2("reply_v2_text_no_names_n", V2_KUHN3, "037", &r, 0);
	rb_kuhn3_text(&r);
	r.text[r.rp.n_text++] = "left over";
	reply_seed_v2("reply_v2_text_leftover", V2_KUHN3, "037", &r, 0);
	memset(long_text, 'x', 4096);
	rb_kuhn3_text(&r);
	r.text[0] = long_text;
	reply_seed_v2("reply_v2_text_too_long", V2_KUHN3, "037", &r, 0);
	long_text[4095] = 0;
	reply_seed_v2("reply_v2_text_longest", V2_KUHN3, "037", &r, 0);
	rb_kuhn3_text(&r);
	r.rp.n_player = 1;
	r.rp.n_text = r.rp.n_names_n = r.rp.n_named = r.rp.n_names = 0;
	r.text[0] = NULL;
	r.rp.n_text = 0;
	r.names_n[0] = 0;
	rb_text(&r, "a text for a step", 0, NULL, NULL);
	reply_seed_v2("reply_v2_text_for_a_step", V2_KUHN3, "01", &r, 0);
}

/* ---- fuzz_segment: a segment with a state column ------------------------ */

/* A searched segment: a visits column (shares over the legal actions), as
 * it is, taken by a batch without one (mode bit 4), and with shares that
 * do not sum to 1. */
static void seeds_segment_visits(void)
{
	struct net_segment_hdr h = { 1, 2, 3, 4, 5, 0, 0 };
	struct lg_rows r;
	lg_buf f = { 0 };

	if (lg_rows_init(&r, 2, 3, 0, 3) || lg_rows_add_visits(&r))
		exit(1);
	r.n = 3;
	for (size_t i = 0; i < 3; i++) {
		r.obs[2 * i] = (float)i;
		r.obs[2 * i + 1] = 1;
		memset(r.mask + 3 * i, 1, 3);
		r.mask[3 * i + 2] = i != 1;
		r.action[i] = 0;
		r.logp[i] = -0.7f;
		r.value[i] = 0.25f;
		r.reward[i] = -(float)(i == 2);
		r.done[i] = i == 2 ? LG_ROW_END : LG_ROW_NEXT;
		r.visits[3 * i] = 0.75f;
		r.visits[3 * i + 1] = i == 1 ? 0.25f : 0.125f;
		r.visits[3 * i + 2] = i == 1 ? 0 : 0.125f;
	}
	if (net_segment_encode(&h, &r, 9, &f))
		exit(1);
	seed_mode("fuzz_segment", "visits_column", 1, f.data + NET_FRAME_HDR,
		  f.len - NET_FRAME_HDR);
	seed_mode("fuzz_segment", "visits_unwanted", 1 | 16,
		  f.data + NET_FRAME_HDR, f.len - NET_FRAME_HDR);
	r.visits[3] = 0.5f;
	f.len = 0;
	if (net_segment_encode(&h, &r, 9, &f))
		exit(1);
	seed_mode("fuzz_segment", "visits_sum", 0, f.data + NET_FRAME_HDR,
		  f.len - NET_FRAME_HDR);
	/* league.deterministic: a job's end mark, no rows */
	h.job_end = 1;
	r.n = 0;
	f.len = 0;
	if (net_segment_encode(&h, &r, 10, &f))
		exit(1);
	seed_mode("fuzz_segment", "job_end_mark", 0, f.data + NET_FRAME_HDR,
		  f.len - NET_FRAME_HDR);
	lg_buf_free(&f);
	lg_rows_free(&r);
}

/* A segment of 100 actions: legal lists, not masks (util/rows.h). As it
 * is; with an id past the actions, ids out of order, the action off its
 * list, a list longer than the ids sent, ids left over. */
static void seeds_segment_lists(void)
{
	struct net_segment_hdr h = { 1, 2, 3, 4, 5, 0, 0 };
	static const struct {
		const char *name;
		int at, id, count_at, count;
	} bad[] = {
		{ "lists", -1, 0, -1, 0 },
		{ "lists_id_past_actions", 2, 100, -1, 0 },
		{ "lists_out_of_order", 1, 0, -1, 0 },
		{ "lists_action_off_list", 1, 52, -1, 0 },
		{ "lists_longer_than_ids", -1, 0, 2, 4 },
		{ "lists_ids_left_over", -1, 0, 2, 2 },
	};
	struct lg_rows r;
	lg_buf f = { 0 };
	uint8_t m[100];

	for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
		if (lg_rows_init(&r, 2, 100, 0, 3))
			exit(1);
		for (size_t i = 0; i < 3; i++) {
			memset(m, 0, sizeof m);
			m[i] = m[50 + i] = m[99] = 1;
			if (lg_rows_put_mask(&r, i, m))
				exit(1);
			r.legal_n += r.nlegal[i];
			r.obs[2 * i] = (float)i;
			r.obs[2 * i + 1] = 1;
			r.action[i] = 50 + (int32_t)i;
			r.logp[i] = -1.1f;
			r.value[i] = 0;
			r.reward[i] = i == 2;
			r.done[i] = i == 2 ? LG_ROW_END : LG_ROW_NEXT;
		}
		r.n = 3;
		if (bad[b].at >= 0)
			r.legal[bad[b].at] = (uint16_t)bad[b].id;
		if (bad[b].count_at >= 0)
			r.nlegal[bad[b].count_at] = (uint32_t)bad[b].count;
		f.len = 0;
		if (net_segment_encode(&h, &r, 9, &f))
			exit(1);
		seed_mode("fuzz_segment", bad[b].name, 1,
			  f.data + NET_FRAME_HDR, f.len - NET_FRAME_HDR);
		lg_rows_free(&r);
	}
	lg_buf_free(&f);
}

static void seeds_segment(void)
{
	struct net_segment_hdr h = { 1, 2, 3, 4, 5, 0, 0 };
	struct lg_rows r;
	lg_buf f = { 0 };

	if (lg_rows_init(&r, 2, 3, 2, 3))
		exit(1);
	r.n = 3;
	for (size_t i = 0; i < 3; i++) {
		r.obs[2 * i] = (float)i;
		r.obs[2 * i + 1] = -1;
		memset(r.mask + 3 * i, 1, 3);
		r.action[i] = (int32_t)i;
		r.logp[i] = -1.1f;
		r.value[i] = 0.5f;
		r.reward[i] = i == 2;
		r.done[i] = i == 2 ? LG_ROW_END : LG_ROW_NEXT;
		r.state[2 * i] = 0.1f * (float)i;
		r.state[2 * i + 1] = -0.2f;
	}
	if (net_segment_encode(&h, &r, 9, &f))
		exit(1);
	/* the harness reads the envelope, after its frame header */
	seed_mode("fuzz_segment", "state_column", 1,
		  f.data + NET_FRAME_HDR, f.len - NET_FRAME_HDR);
	r.state[3] = NAN;
	f.len = 0;
	if (net_segment_encode(&h, &r, 9, &f))
		exit(1);
	seed_mode("fuzz_segment", "state_nan", 0, f.data + NET_FRAME_HDR,
		  f.len - NET_FRAME_HDR);
	lg_buf_free(&f);
	lg_rows_free(&r);
	seeds_segment_visits();
	seeds_segment_lists();
}

/* ---- fuzz_series ---------------------------------------------------------- */

/* The key length byte, the key, the value: what one point puts. */
static void series_seed(const char *name, const struct league_series_point *p,
			void (*spoil)(uint8_t *, size_t *))
{
	store_txn *t = scratch_txn();
	uint8_t k[LEAGUE_SERIES_KEY_BYTES], rec[1 + sizeof k + 8 + 8 * 64];
	const void *v;
	size_t n;
	store_batch b = { 0 };

	k[0] = (uint8_t)p->kind;
	lg_put_be64(k + 1, (uint64_t)llround(p->seconds * 1000));
	lg_put_be32(k + 9, p->player);
	if (league_series_put(&b, p) || store_batch_apply(&b, t) ||
	    store_get(t, STORE_DB_SERIES, k, sizeof k, &v, &n) ||
	    n > sizeof rec - 1 - sizeof k)
		exit(1);
	rec[0] = sizeof k;
	memcpy(rec + 1, k, sizeof k);
	memcpy(rec + 1 + sizeof k, v, n);
	n += 1 + sizeof k;
	store_batch_free(&b);
	store_txn_abort(t);
	if (spoil)
		spoil(rec, &n);
	seed("fuzz_series", name, rec, n);
}

static void spoil_magic(uint8_t *r, size_t *n)
{
	r[14] = 'X';
}

static void spoil_count(uint8_t *r, size_t *n)
{
	lg_put_le32(r + 18, 1000);
}

static void spoil_truncate(uint8_t *r, size_t *n)
{
	*n -= 3;
}

static void spoil_player(uint8_t *r, size_t *n)
{
	r[13] = 9; /* a league point of player 9 */
}

/* A newer writer's point with two more fields: readers skip them. */
static void spoil_extra(uint8_t *r, size_t *n)
{
	uint32_t c = lg_get_le32(r + 18);

	lg_put_le32(r + 18, c + 2);
	memset(r + *n, 0, 16);
	*n += 16;
}

static void seeds_series(void)
{
	struct league_series_point lg = {
		.kind = LEAGUE_SERIES_LEAGUE, .seconds = 12.5,
		.v = { 1000, 10, 40, 80.5, 0.8, 2000 },
	};
	struct league_series_point ln = {
		.kind = LEAGUE_SERIES_LEARNER, .seconds = 3.25, .player = 2,
		.v = { 7, 70, 4096, 5000, 0.1, -0.02, 0.3, 1.05, 0.01, 0.1,
		       3e-4, 0.5, NAN },
	};

	series_seed("league", &lg, NULL);
	series_seed("learner", &ln, NULL);
	series_seed("bad_magic", &lg, spoil_magic);
	series_seed("count_huge", &lg, spoil_count);
	series_seed("truncated", &ln, spoil_truncate);
	series_seed("league_with_player", &lg, spoil_player);
	series_seed("newer_fields", &ln, spoil_extra);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	outdir = argv[1];
	seeds_nn();
	seeds_trainer();
	seeds_agent();
	seeds_blob();
	seeds_brainlog();
	seeds_evalrec();
	seeds_payoff();
	seeds_tabular();
	seeds_welcome();
	seeds_reply();
	seeds_welcome_v2();
	seeds_reply_v2();
	seeds_reply_text();
	seeds_segment();
	seeds_series();
	return failed;
}
