/*
 * learner/nnfile.c: the parameter file format (learner.h, "nn_save";
 * docs/learner.md, "Parameter file format"): versions 1 to 4, written in
 * the oldest version that holds the net, read with every field checked
 * before anything is allocated, and their file wrappers.
 */
#include "learner/learner_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- parameter files ------------------------------------------------ */

/* The oldest file version that holds s: 1 an MLP with one activation, 2
 * a plain convolution torso of at most 4 layers, 4 a recurrent core,
 * else 3. */
static uint32_t file_version(const struct nn_shape *s)
{
	int plain = s->nconv <= NN_FILE_V2_CONV;

	if (s->gru)
		return NN_FILE_VERSION4;
	for (uint32_t i = 0; i < s->nhidden; i++)
		plain &= s->hidden_act[i] == NN_LACT_NET;
	for (uint32_t i = 0; i < s->nconv; i++)
		plain &= !s->conv[i].residual &&
			 s->conv[i].act == NN_LACT_NET;
	if (!plain)
		return NN_FILE_VERSION3;
	return s->nconv ? NN_FILE_VERSION2 : NN_FILE_VERSION;
}

static size_t header_len(uint32_t version)
{
	return version >= NN_FILE_VERSION3   ? NN_FILE_HEADER3
	       : version == NN_FILE_VERSION2 ? NN_FILE_HEADER2
					     : NN_FILE_HEADER;
}

int nn_save(const nn *n, lg_buf *out)
{
	uint8_t h[NN_FILE_HEADER3];
	uint32_t version = file_version(&n->s);
	size_t start, hl = header_len(version);
	size_t cw = version >= NN_FILE_VERSION3 ? 24 : 16;
	uint8_t *body;
	int rc;

	rc = lg_buf_reserve(out, hl + n->nparams * 4);
	if (rc)
		return rc;
	start = out->len;
	memset(h, 0, sizeof h);
	memcpy(h, NN_FILE_MAGIC, 4);
	lg_put_le32(h + 4, version);
	lg_put_le32(h + 8, n->s.obs);
	lg_put_le32(h + 12, n->s.actions);
	lg_put_le32(h + 16, (uint32_t)n->s.act);
	lg_put_le32(h + 20, n->s.nhidden);
	for (uint32_t i = 0; i < n->s.nhidden; i++)
		lg_put_le32(h + 24 + 4 * i, n->s.hidden[i]);
	lg_put_le64(h + 56, n->nparams);
	if (version != NN_FILE_VERSION) {
		lg_put_le32(h + 68, n->s.nconv);
		for (int i = 0; i < 3; i++)
			lg_put_le32(h + 72 + 4 * i, n->s.planes[i]);
		for (uint32_t i = 0; i < n->s.nconv; i++) {
			uint8_t *c = h + 84 + cw * i;
			lg_put_le32(c, n->s.conv[i].channels);
			lg_put_le32(c + 4, n->s.conv[i].kernel);
			lg_put_le32(c + 8, n->s.conv[i].stride);
			lg_put_le32(c + 12, n->s.conv[i].pad);
			if (version >= NN_FILE_VERSION3) {
				lg_put_le32(c + 16, n->s.conv[i].residual);
				lg_put_le32(c + 20, n->s.conv[i].act);
			}
		}
	}
	if (version >= NN_FILE_VERSION3)
		for (uint32_t i = 0; i < n->s.nhidden; i++)
			lg_put_le32(h + 276 + 4 * i, n->s.hidden_act[i]);
	lg_put_le32(h + 308, n->s.gru); /* 0 below version 4 */
	out->len += hl;
	body = out->data + out->len;
	for (size_t i = 0; i < n->nparams; i++)
		lg_put_lef32(body + 4 * i, n->p[i]);
	lg_put_le32(h + 64, lg_crc32c(0, body, n->nparams * 4));
	lg_put_le32(h + hl - 4, lg_crc32c(0, h, hl - 4));
	memcpy(out->data + start, h, hl);
	out->len += n->nparams * 4;
	return 0;
}

/* Version 2, 3 and 4's convolution entries, layer activations and core
 * into s; LG_ECORRUPT with err. */
static int load_convs(const uint8_t *h, uint32_t version, struct nn_shape *s,
		      char *err, size_t errlen)
{
	uint32_t max = version >= NN_FILE_VERSION3 ? NN_MAX_CONV
						   : NN_FILE_V2_CONV;
	size_t cw = version >= NN_FILE_VERSION3 ? 24 : 16;

	s->nconv = lg_get_le32(h + 68);
	if (s->nconv > max || (version == NN_FILE_VERSION2 && !s->nconv)) {
		lg_errf(err, errlen, "bad shape in header: version %u with %u "
			"convolutions (%d..%u)", version, s->nconv,
			version == NN_FILE_VERSION2, max);
		return LG_ECORRUPT;
	}
	for (int i = 0; i < 3; i++)
		s->planes[i] = lg_get_le32(h + 72 + 4 * i);
	for (uint32_t i = 0; i < max; i++) {
		const uint8_t *c = h + 84 + cw * i;
		struct nn_conv *k = &s->conv[i];
		*k = (struct nn_conv){ lg_get_le32(c), lg_get_le32(c + 4),
				       lg_get_le32(c + 8), lg_get_le32(c + 12),
				       0, 0 };
		if (version >= NN_FILE_VERSION3) {
			k->residual = lg_get_le32(c + 16);
			k->act = lg_get_le32(c + 20);
		}
		if (i >= s->nconv && (k->channels || k->kernel || k->stride ||
				      k->pad || k->residual || k->act)) {
			lg_errf(err, errlen, "bad shape in header: conv[%u] "
				"set beyond nconv", i);
			return LG_ECORRUPT;
		}
	}
	if (!s->nconv &&
	    (s->planes[0] || s->planes[1] || s->planes[2])) {
		lg_errf(err, errlen, "bad shape in header: planes without "
			"convolutions");
		return LG_ECORRUPT;
	}
	if (version >= NN_FILE_VERSION3) {
		for (uint32_t i = 0; i < NN_MAX_LAYERS; i++)
			s->hidden_act[i] = lg_get_le32(h + 276 + 4 * i);
		s->gru = lg_get_le32(h + 308);
		if (version == NN_FILE_VERSION3 && s->gru) {
			lg_errf(err, errlen, "bad shape in header: reserved "
				"bytes 308..311 set");
			return LG_ECORRUPT;
		}
	}
	return 0;
}

/* The header of buf (len bytes): its magic, its length for its version
 * (*hl), its checksum, then the version itself (*version). LG_ECORRUPT,
 * LG_EVERSION, with the reason in err. */
static int load_header(const uint8_t *h, size_t len, uint32_t *version,
		       size_t *hl, char *err, size_t errlen)
{
	*hl = NN_FILE_HEADER;
	if (!h || len < NN_FILE_HEADER) {
		lg_errf(err, errlen, "truncated: %zu bytes, the header alone "
			"is %u", len, NN_FILE_HEADER);
		return LG_ECORRUPT;
	}
	if (memcmp(h, NN_FILE_MAGIC, 4)) {
		lg_errf(err, errlen, "not a network parameter file (bad "
			"magic)");
		return LG_ECORRUPT;
	}
	*version = lg_get_le32(h + 4);
	if (*version >= NN_FILE_VERSION2 && *version <= NN_FILE_VERSION4)
		*hl = header_len(*version);
	if (len < *hl) {
		lg_errf(err, errlen, "truncated: %zu bytes, the header alone "
			"is %zu", len, *hl);
		return LG_ECORRUPT;
	}
	if (lg_crc32c(0, h, *hl - 4) != lg_get_le32(h + *hl - 4)) {
		lg_errf(err, errlen, "header checksum mismatch (corrupt)");
		return LG_ECORRUPT;
	}
	if (*version < NN_FILE_VERSION || *version > NN_FILE_VERSION4) {
		lg_errf(err, errlen, "format version %u, this build reads %u "
			"to %u", *version, NN_FILE_VERSION, NN_FILE_VERSION4);
		return LG_EVERSION;
	}
	return 0;
}

/* The shape a checked header of this version describes, into *s, and
 * checked: a valid shape, nothing beyond nhidden, the version its writer
 * would pick. LG_ERANGE (beyond the caps), LG_ECORRUPT, with the reason
 * in err. */
static int load_shape(const uint8_t *h, uint32_t version,
		      struct nn_shape *s, char *err, size_t errlen)
{
	char why[128];
	int rc;

	memset(s, 0, sizeof *s);
	s->obs = lg_get_le32(h + 8);
	s->actions = lg_get_le32(h + 12);
	s->act = (int)lg_get_le32(h + 16);
	s->nhidden = lg_get_le32(h + 20);
	for (uint32_t i = 0; i < NN_MAX_LAYERS; i++)
		s->hidden[i] = lg_get_le32(h + 24 + 4 * i);
	if (version != NN_FILE_VERSION &&
	    (rc = load_convs(h, version, s, err, errlen)))
		return rc;
	rc = nn_shape_check(s, why, sizeof why);
	if (rc) {
		lg_errf(err, errlen, "bad shape in header: %s", why);
		/* A shape beyond the caps is LG_ERANGE; anything else the
		 * check refuses (an unknown activation) is a corrupt file. */
		return rc == LG_ERANGE ? rc : LG_ECORRUPT;
	}
	for (uint32_t i = s->nhidden; i < NN_MAX_LAYERS; i++)
		if (s->hidden[i] || s->hidden_act[i]) {
			lg_errf(err, errlen, "bad shape in header: hidden[%u] "
				"set beyond nhidden", i);
			return LG_ECORRUPT;
		}
	if (file_version(s) != version) {
		/* one net, one file: a writer always picks the oldest */
		lg_errf(err, errlen, "bad shape in header: a version %u file "
			"of a version %u net", version, file_version(s));
		return LG_ECORRUPT;
	}
	return 0;
}

/* The body after a header of hl bytes: as many parameters as shape s
 * has, as long as the rest of the file, matching the header's checksum,
 * every one finite. LG_ECORRUPT with the reason in err. */
static int load_body(const uint8_t *h, size_t len, size_t hl,
		     const struct nn_shape *s, char *err, size_t errlen)
{
	const uint8_t *body = h + hl;
	uint64_t count = lg_get_le64(h + 56);
	nn probe;

	memset(&probe, 0, sizeof probe);
	probe.s = *s;
	nn_layout(&probe);
	if (count != probe.nparams) {
		lg_errf(err, errlen, "parameter count %llu does not "
			"match the shape (%zu)",
			(unsigned long long)count, probe.nparams);
		return LG_ECORRUPT;
	}
	if (len - hl != count * 4) {
		lg_errf(err, errlen, "%s: body is %zu bytes, expected %llu",
			len - hl < count * 4 ? "truncated" : "trailing bytes",
			len - hl, (unsigned long long)count * 4);
		return LG_ECORRUPT;
	}
	if (lg_crc32c(0, body, count * 4) != lg_get_le32(h + 64)) {
		lg_errf(err, errlen, "body checksum mismatch (corrupt)");
		return LG_ECORRUPT;
	}
	for (uint64_t i = 0; i < count; i++) {
		/* a NaN or an infinity is no network: every forward pass
		 * through it gives NaN probabilities */
		float f = lg_get_lef32(body + 4 * i);
		if (!isfinite(f)) {
			lg_errf(err, errlen, "parameter %llu of %llu is not "
				"finite (%g)", (unsigned long long)i,
				(unsigned long long)count, (double)f);
			return LG_ECORRUPT;
		}
	}
	return 0;
}

int nn_load(nn **out, const void *buf, size_t len, char *err, size_t errlen)
{
	const uint8_t *h = buf, *body;
	struct nn_shape s;
	uint32_t version = 0;
	size_t hl;
	nn *n = NULL;
	int rc;

	if (!out)
		return LG_EINVAL;
	*out = NULL;
	if ((rc = load_header(h, len, &version, &hl, err, errlen)) ||
	    (rc = load_shape(h, version, &s, err, errlen)) ||
	    (rc = load_body(h, len, hl, &s, err, errlen)))
		return rc;
	body = h + hl;
	rc = nn_alloc(&n, &s);
	if (rc) {
		lg_errf(err, errlen, "out of memory");
		return rc;
	}
	for (size_t i = 0; i < n->nparams; i++)
		n->p[i] = lg_get_lef32(body + 4 * i);
	*out = n;
	return 0;
}

/* The first way shape s is not want, into err. */
static void shape_diff(const struct nn_shape *s, const struct nn_shape *want,
		       char *err, size_t errlen)
{
	static const char *const what[] = { "inputs", "actions",
					    "hidden layers",
					    "recurrent core width",
					    "convolutions", "activation" };
	const uint32_t have[] = { s->obs, s->actions, s->nhidden, s->gru,
				  s->nconv, (uint32_t)s->act };
	const uint32_t need[] = { want->obs, want->actions, want->nhidden,
				  want->gru, want->nconv, (uint32_t)want->act };

	for (size_t i = 0; i < LG_ARRAY_LEN(what); i++)
		if (have[i] != need[i]) {
			lg_errf(err, errlen, "not the model: %s %u, the "
				"model's %u", what[i], have[i], need[i]);
			return;
		}
	for (uint32_t i = 0; i < s->nhidden; i++)
		if (s->hidden[i] != want->hidden[i]) {
			lg_errf(err, errlen, "not the model: hidden layer %u "
				"is %u wide, the model's %u", i, s->hidden[i],
				want->hidden[i]);
			return;
		}
	lg_errf(err, errlen, "not the model: its convolutions or layer "
		"activations differ");
}

int nn_check_blob(const void *buf, size_t len, const struct nn_shape *want,
		  char *err, size_t errlen)
{
	nn *n = NULL;
	int rc = nn_load(&n, buf, len, err, errlen);

	if (rc)
		return rc;
	if (want && memcmp(nn_shape_of(n), want, sizeof *want)) {
		shape_diff(nn_shape_of(n), want, err, errlen);
		rc = LG_EINVAL;
	}
	nn_free(n);
	return rc;
}

int nn_save_file(const nn *n, const char *path, char *err, size_t errlen)
{
	lg_buf b = { 0 };
	int rc = nn_save(n, &b);

	if (rc)
		lg_errf(err, errlen, "out of memory");
	else
		rc = lg_file_write_atomic(path, b.data, b.len, err, errlen);
	lg_buf_free(&b);
	return rc;
}

int nn_load_file(nn **out, const char *path, char *err, size_t errlen)
{
	char why[256];
	struct stat st;
	uint8_t *data = NULL;
	FILE *f;
	size_t len;
	int rc;

	if (!out)
		return LG_EINVAL;
	*out = NULL;
	f = fopen(path, "rb");
	if (!f) {
		lg_errf(err, errlen, "%s: %s", path, strerror(errno));
		return errno == ENOENT ? LG_ENOTFOUND : LG_EIO;
	}
	if (fstat(fileno(f), &st) || st.st_size < 0) {
		lg_errf(err, errlen, "%s: %s", path, strerror(errno));
		rc = LG_EIO;
		goto out;
	}
	if ((uint64_t)st.st_size > NN_FILE_HEADER3 + NN_MAX_PARAMS * 4) {
		lg_errf(err, errlen, "%s: %lld bytes is larger than any "
			"network file", path, (long long)st.st_size);
		rc = LG_ECORRUPT;
		goto out;
	}
	len = (size_t)st.st_size;
	data = malloc(len ? len : 1);
	if (!data) {
		lg_errf(err, errlen, "%s: out of memory", path);
		rc = LG_ENOMEM;
		goto out;
	}
	if (fread(data, 1, len, f) != len) {
		lg_errf(err, errlen, "%s: short read", path);
		rc = LG_EIO;
		goto out;
	}
	rc = nn_load(out, data, len, why, sizeof why);
	if (rc)
		lg_errf(err, errlen, "%s: %s", path, why);
out:
	fclose(f);
	free(data);
	return rc;
}
