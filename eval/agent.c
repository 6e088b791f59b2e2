/*
 * eval/agent.c: the agent file (eval/agent.h has the layout): encode,
 * and decode with every field checked before the network is built.
 */
#include "eval/agent.h"
#include "conf/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Provenance: lines `key=value\n`, key [a-z0-9_]+, value printable ASCII
 * without a newline. 0, or -1 with err naming the line. */
static int meta_invalid(const char *m, size_t len, char *err, size_t errlen)
{
	size_t line = 1, i = 0;

	while (i < len) {
		size_t k = i;
		while (k < len && ((m[k] >= 'a' && m[k] <= 'z') ||
				   (m[k] >= '0' && m[k] <= '9') || m[k] == '_'))
			k++;
		if (k == i || k >= len || m[k] != '=') {
			lg_errf(err, errlen, "provenance line %zu: expected "
				"key=value", line);
			return -1;
		}
		for (k++; k < len && m[k] != '\n'; k++)
			if (m[k] < 0x20 || m[k] > 0x7e) {
				lg_errf(err, errlen, "provenance line %zu: byte "
					"%#x", line, (unsigned)(uint8_t)m[k]);
				return -1;
			}
		if (k >= len) {
			lg_errf(err, errlen, "provenance line %zu: no newline",
				line);
			return -1;
		}
		i = k + 1;
		line++;
	}
	return 0;
}

/* What the agent needs of its league's config: the game (env), the
 * network (model) and how its search plays (learner.search), as a config
 * of its own (the league's name kept; nothing else: no paths to
 * certificates, no ports). */
static int agent_config(const struct cfg *c, lg_buf *out, char *err,
			size_t errlen)
{
	struct cfg *d = malloc(sizeof *d);
	int rc;

	if (!d)
		return LG_ENOMEM;
	if ((rc = cfg_defaults(d, err, errlen))) {
		free(d);
		return rc;
	}
	memcpy(d->league.name, c->league.name, sizeof d->league.name);
	d->env = c->env;
	d->model = c->model;
	d->learner.search = c->learner.search;
	rc = cfg_emit_yaml(d, out);
	free(d);
	return rc;
}

int league_agent_encode(const struct cfg *c, const char *meta,
			const void *blob, size_t blob_len, lg_buf *out,
			char *err, size_t errlen)
{
	size_t ml = strlen(meta), start = out->len, cl;
	uint8_t h[LEAGUE_AGENT_HEADER];
	lg_buf cfgtext = { 0 };
	int rc;

	if (ml > LEAGUE_AGENT_META_MAX || meta_invalid(meta, ml, err, errlen)) {
		if (ml > LEAGUE_AGENT_META_MAX)
			lg_errf(err, errlen, "provenance: %zu bytes, at most "
				"%u", ml, LEAGUE_AGENT_META_MAX);
		return LG_EINVAL;
	}
	if (c->env.plugin[0] || c->env.remote[0]) {
		lg_errf(err, errlen, "the league plays a %s game; an agent "
			"file holds a built-in game only (a file that named "
			"code to load or an address to dial would load or dial "
			"it wherever it is opened)",
			c->env.plugin[0] ? "plugin" : "remote");
		return LG_EUNSUPP;
	}
	if (!blob_len || blob_len > LEAGUE_AGENT_BLOB_MAX) {
		lg_errf(err, errlen, "parameters: %zu bytes", blob_len);
		return LG_EINVAL;
	}
	if ((rc = nn_check_blob(blob, blob_len, NULL, err, errlen)))
		return rc; /* a file no one could load: not written */
	if ((rc = agent_config(c, &cfgtext, err, errlen)))
		goto out;
	cl = cfgtext.len;
	if (cl > LEAGUE_AGENT_CONFIG_MAX) {
		lg_errf(err, errlen, "config: %zu bytes", cl);
		rc = LG_EINVAL;
		goto out;
	}
	memcpy(h, LEAGUE_AGENT_MAGIC, 4);
	lg_put_le32(h + 4, LEAGUE_AGENT_VERSION);
	lg_put_le32(h + 8, (uint32_t)ml);
	lg_put_le32(h + 12, (uint32_t)cl);
	lg_put_le64(h + 16, blob_len);
	if ((rc = lg_buf_append(out, h, sizeof h)) ||
	    (rc = lg_buf_append(out, meta, ml)) ||
	    (rc = lg_buf_append(out, cfgtext.data, cl)) ||
	    (rc = lg_buf_append(out, blob, blob_len)))
		goto out;
	lg_put_le32(h, lg_crc32c(0, (uint8_t *)out->data + start,
				 out->len - start));
	rc = lg_buf_append(out, h, 4);
out:
	if (rc)
		out->len = start;
	lg_buf_free(&cfgtext);
	return rc;
}

int league_agent_decode(struct league_agent *a, const void *buf, size_t len,
			char *err, size_t errlen)
{
	const uint8_t *b = buf;
	uint32_t ml, cl;
	uint64_t bl;
	struct env_opts eo;
	struct nn_shape want;
	env *e = NULL;
	int rc;

	memset(a, 0, sizeof *a);
	if (errlen)
		err[0] = 0;
	if (len < LEAGUE_AGENT_HEADER + 4 ||
	    memcmp(b, LEAGUE_AGENT_MAGIC, 4)) {
		lg_errf(err, errlen, "not an agent file");
		return LG_ECORRUPT;
	}
	if (lg_get_le32(b + 4) != LEAGUE_AGENT_VERSION) {
		lg_errf(err, errlen, "agent file format %u, this build reads %u",
			lg_get_le32(b + 4), LEAGUE_AGENT_VERSION);
		return LG_EVERSION;
	}
	ml = lg_get_le32(b + 8);
	cl = lg_get_le32(b + 12);
	bl = lg_get_le64(b + 16);
	if (ml > LEAGUE_AGENT_META_MAX || cl > LEAGUE_AGENT_CONFIG_MAX ||
	    bl > LEAGUE_AGENT_BLOB_MAX ||
	    LEAGUE_AGENT_HEADER + (uint64_t)ml + cl + bl + 4 != len) {
		lg_errf(err, errlen, "sections (%u, %u, %llu bytes) do not "
			"fill the file's %zu", ml, cl, (unsigned long long)bl,
			len);
		return LG_ECORRUPT;
	}
	if (lg_get_le32(b + len - 4) != lg_crc32c(0, b, len - 4)) {
		lg_errf(err, errlen, "checksum mismatch (the file is damaged)");
		return LG_ECORRUPT;
	}
	b += LEAGUE_AGENT_HEADER;
	if (meta_invalid((const char *)b, ml, err, errlen))
		return LG_ECORRUPT;
	memcpy(a->meta, b, ml);
	a->meta[ml] = 0;
	b += ml;
	if ((rc = cfg_load_sealed(&a->cfg, (const char *)b, cl,
				  "agent config", err, errlen))) {
		if (errlen && !err[0])
			lg_errf(err, errlen, "its config: %s", lg_strerror(rc));
		return rc;
	}
	b += cl;
	league_env_opts(&a->cfg, &eo);
	if ((rc = env_new(&e, a->cfg.env.name, &eo, err, errlen)))
		return rc;
	a->spec = *env_spec_of(e);
	env_free(e);
	league_nn_shape(&a->cfg, &a->spec, &want);
	if ((rc = nn_load(&a->net, b, (size_t)bl, err, errlen)))
		return rc;
	if (memcmp(nn_shape_of(a->net), &want, sizeof want)) {
		lg_errf(err, errlen, "the network (%u inputs, %u actions) is "
			"not the one its config's model gives for %s",
			nn_shape_of(a->net)->obs, nn_shape_of(a->net)->actions,
			a->spec.name);
		nn_free(a->net);
		a->net = NULL;
		return LG_EINVAL;
	}
	return 0;
}

int league_agent_load(struct league_agent *a, const char *path, char *err,
		      size_t errlen)
{
	char msg[512] = "";
	uint8_t *buf = NULL;
	struct stat st;
	size_t len;
	FILE *f = fopen(path, "rb");
	int rc = 0;

	memset(a, 0, sizeof *a);
	if (!f || fstat(fileno(f), &st)) {
		lg_errf(err, errlen, "%s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		return LG_EIO;
	}
	len = (size_t)st.st_size;
	if (!S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > LEAGUE_AGENT_HEADER + LEAGUE_AGENT_META_MAX +
					   LEAGUE_AGENT_CONFIG_MAX +
					   LEAGUE_AGENT_BLOB_MAX + 4) {
		lg_errf(err, errlen, "%s: not an agent file (%s)", path,
			S_ISREG(st.st_mode) ? "too large" : "not a file");
		fclose(f);
		return LG_EINVAL;
	}
	if (!(buf = malloc(len ? len : 1))) {
		lg_errf(err, errlen, "%s: out of memory (%zu bytes)", path, len);
		rc = LG_ENOMEM;
	} else if (fread(buf, 1, len, f) != len) {
		lg_errf(err, errlen, "%s: read error", path);
		rc = LG_EIO;
	}
	fclose(f);
	if (!rc && (rc = league_agent_decode(a, buf, len, msg, sizeof msg)))
		lg_errf(err, errlen, "%s: %s", path,
			msg[0] ? msg : lg_strerror(rc));
	free(buf);
	return rc;
}

void league_agent_free(struct league_agent *a)
{
	nn_free(a->net);
	a->net = NULL;
}

int league_agent_meta(const struct league_agent *a, const char *key,
		      char *val, size_t vlen)
{
	size_t kl = strlen(key);

	for (const char *p = a->meta; *p;) {
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(val, vlen, "%.*s", (int)(nl - p - kl - 1),
				 p + kl + 1);
			return 0;
		}
		p = nl + 1;
	}
	return LG_ENOTFOUND;
}
