/*
 * eval/agent.c: the agent file (eval/agent.h has the layout): encode,
 * and decode with every field checked before the network is built.
 */
#include "eval/agent.h"
#include "conf/options.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Provenance and the game record: lines `key=value\n`, key [a-z0-9_]+,
 * value printable ASCII without a newline. 0, or -1 with err naming the
 * section (what) and line. */
static int meta_invalid(const char *m, size_t len, const char *what,
			char *err, size_t errlen)
{
	size_t line = 1, i = 0;

	while (i < len) {
		size_t k = i;
		while (k < len && ((m[k] >= 'a' && m[k] <= 'z') ||
				   (m[k] >= '0' && m[k] <= '9') || m[k] == '_'))
			k++;
		if (k == i || k >= len || m[k] != '=') {
			lg_errf(err, errlen, "%s line %zu: expected key=value",
				what, line);
			return -1;
		}
		for (k++; k < len && m[k] != '\n'; k++)
			if (m[k] < 0x20 || m[k] > 0x7e) {
				lg_errf(err, errlen, "%s line %zu: byte %#x",
					what, line, (unsigned)(uint8_t)m[k]);
				return -1;
			}
		if (k >= len) {
			lg_errf(err, errlen, "%s line %zu: no newline", what,
				line);
			return -1;
		}
		i = k + 1;
		line++;
	}
	return 0;
}

/* What the agent needs of its league's config: the game's options
 * (env, without the plugin, server address or command), the network
 * (model) and how its search plays (learner.search), as a config of its
 * own (the league's name kept; nothing else: no paths to certificates,
 * no ports). */
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
	/* the game record names the plugin or server (by hash, by
	 * address), never the config: opening it loads and dials nothing */
	d->env.plugin[0] = d->env.remote[0] = d->env.serve[0] = 0;
	d->model = c->model;
	d->learner.search = c->learner.search;
	rc = cfg_emit_yaml(d, out);
	free(d);
	return rc;
}

int league_agent_sha256(const char *path, char *hex, char *err,
			size_t errlen)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char buf[1 << 16], md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	FILE *f = fopen(path, "rb");
	int rc = LG_EIO, ok;
	size_t n;

	if (!f) {
		lg_errf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
		ok = EVP_DigestUpdate(ctx, buf, n);
	if (!ok || ferror(f) || !EVP_DigestFinal_ex(ctx, md, &mdlen) ||
	    mdlen * 2 != LEAGUE_AGENT_SHA256_HEX) {
		lg_errf(err, errlen, "%s: cannot read it to hash it", path);
		goto out;
	}
	for (unsigned i = 0; i < mdlen; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[2 * mdlen] = 0;
	rc = 0;
out:
	if (f)
		fclose(f);
	EVP_MD_CTX_free(ctx);
	return rc;
}

/* The game record of a league of config c (eval/agent.h) into buf. */
static int game_record(const struct cfg *c, char *buf, size_t len,
		       char *err, size_t errlen)
{
	char hex[LEAGUE_AGENT_SHA256_HEX + 1], msg[400];
	int n;

	for (const char *q = c->env.plugin[0] ? c->env.plugin : c->env.remote;
	     *q; q++)
		if (*q < 0x20 || *q > 0x7e) {
			lg_errf(err, errlen, "the league's %s '%s' has a byte "
				"%#x: not recorded", c->env.plugin[0] ? "plugin"
				: "game server", c->env.plugin[0] ?
				c->env.plugin : c->env.remote,
				(unsigned)(uint8_t)*q);
			return LG_EINVAL;
		}
	if (c->env.plugin[0]) {
		if (league_agent_sha256(c->env.plugin, hex, msg, sizeof msg)) {
			lg_errf(err, errlen, "the league's plugin: %s", msg);
			return LG_EIO;
		}
		n = snprintf(buf, len, "kind=plugin\nname=%s\npath=%s\n"
			     "sha256=%s\n", c->env.name, c->env.plugin, hex);
	} else if (c->env.remote[0]) {
		n = snprintf(buf, len, "kind=remote\nname=%s\naddress=%s\n",
			     c->env.name, c->env.remote);
	} else {
		n = snprintf(buf, len, "kind=builtin\nname=%s\n", c->env.name);
	}
	if (n < 0 || (size_t)n >= len) {
		lg_errf(err, errlen, "the game's record: over %u bytes",
			LEAGUE_AGENT_GAME_MAX);
		return LG_EINVAL;
	}
	return 0;
}

int league_agent_encode(const struct cfg *c, const char *meta,
			const void *blob, size_t blob_len, lg_buf *out,
			char *err, size_t errlen)
{
	size_t ml = strlen(meta), start = out->len, cl, gl;
	uint8_t h[LEAGUE_AGENT_HEADER];
	lg_buf cfgtext = { 0 };
	char game[LEAGUE_AGENT_GAME_MAX + 1];
	int rc;

	if (ml > LEAGUE_AGENT_META_MAX || meta_invalid(meta, ml, "provenance", err, errlen)) {
		if (ml > LEAGUE_AGENT_META_MAX)
			lg_errf(err, errlen, "provenance: %zu bytes, at most "
				"%u", ml, LEAGUE_AGENT_META_MAX);
		return LG_EINVAL;
	}
	if (!blob_len || blob_len > LEAGUE_AGENT_BLOB_MAX) {
		lg_errf(err, errlen, "parameters: %zu bytes", blob_len);
		return LG_EINVAL;
	}
	if ((rc = nn_check_blob(blob, blob_len, NULL, err, errlen)))
		return rc; /* a file no one could load: not written */
	if ((rc = game_record(c, game, sizeof game, err, errlen)))
		return rc;
	gl = strlen(game);
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
	lg_put_le32(h + 24, (uint32_t)gl);
	if ((rc = lg_buf_append(out, h, sizeof h)) ||
	    (rc = lg_buf_append(out, meta, ml)) ||
	    (rc = lg_buf_append(out, cfgtext.data, cl)) ||
	    (rc = lg_buf_append(out, game, gl)) ||
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

/* The sections of an agent file's bytes: their lengths, after the magic,
 * the format, the lengths filling the file exactly and the checksum. */
struct sections {
	unsigned format;
	uint32_t ml, cl, gl;
	uint64_t bl;
	size_t header;
};

static int sections_of(const uint8_t *b, size_t len, struct sections *s,
		       char *err, size_t errlen)
{
	if (len < LEAGUE_AGENT_HEADER_V1 + 4 ||
	    memcmp(b, LEAGUE_AGENT_MAGIC, 4)) {
		lg_errf(err, errlen, "not an agent file");
		return LG_ECORRUPT;
	}
	s->format = lg_get_le32(b + 4);
	if (s->format != 1 && s->format != LEAGUE_AGENT_VERSION) {
		lg_errf(err, errlen, "agent file format %u, this build reads "
			"1 to %u", s->format, LEAGUE_AGENT_VERSION);
		return LG_EVERSION;
	}
	s->header = s->format == 1 ? LEAGUE_AGENT_HEADER_V1
				   : LEAGUE_AGENT_HEADER;
	if (len < s->header + 4) {
		lg_errf(err, errlen, "not an agent file (%zu bytes)", len);
		return LG_ECORRUPT;
	}
	s->ml = lg_get_le32(b + 8);
	s->cl = lg_get_le32(b + 12);
	s->bl = lg_get_le64(b + 16);
	s->gl = s->format == 1 ? 0 : lg_get_le32(b + 24);
	if (s->ml > LEAGUE_AGENT_META_MAX || s->cl > LEAGUE_AGENT_CONFIG_MAX ||
	    s->gl > LEAGUE_AGENT_GAME_MAX || s->bl > LEAGUE_AGENT_BLOB_MAX ||
	    s->header + (uint64_t)s->ml + s->cl + s->gl + s->bl + 4 != len) {
		lg_errf(err, errlen, "sections (%u, %u, %u, %llu bytes) do "
			"not fill the file's %zu", s->ml, s->cl, s->gl,
			(unsigned long long)s->bl, len);
		return LG_ECORRUPT;
	}
	if (lg_get_le32(b + len - 4) != lg_crc32c(0, b, len - 4)) {
		lg_errf(err, errlen, "checksum mismatch (the file is damaged)");
		return LG_ECORRUPT;
	}
	return 0;
}

/* Value of key k in a game record line "k=v" (NULL: another key). */
static const char *record_value(const char *line, const char *k)
{
	size_t n = strlen(k);

	return !strncmp(line, k, n) && line[n] == '=' ? line + n + 1 : NULL;
}

/* The game record's text r (len bytes) into g: each key once, only those
 * of its kind, every one of them (eval/agent.h). LG_ECORRUPT. */
static int game_parse(const char *r, size_t len, struct league_agent_game *g,
		      char *err, size_t errlen)
{
	static const char *const keys[] = { "kind", "name", "path", "sha256",
					    "address" };
	static const unsigned need[] = { 0x3, 0xf, 0x13 }; /* by kind */
	char line[LEAGUE_AGENT_GAME_MAX + 1];
	unsigned seen = 0;

	memset(g, 0, sizeof *g);
	g->kind = -1;
	if (meta_invalid(r, len, "game record", err, errlen))
		return LG_ECORRUPT;
	for (size_t i = 0; i < len;) {
		size_t n = (size_t)((const char *)memchr(r + i, '\n', len - i) -
				    (r + i));
		const char *v = NULL;
		size_t k = 0;
		memcpy(line, r + i, n);
		line[n] = 0;
		i += n + 1;
		while (k < LG_ARRAY_LEN(keys) && !(v = record_value(line,
								    keys[k])))
			k++;
		if (!v || seen & (1u << k)) {
			lg_errf(err, errlen, "game record: '%.40s': %s", line,
				v ? "a key twice" : "an unknown key");
			return LG_ECORRUPT;
		}
		seen |= 1u << k;
		size_t vl = strlen(v);
		int bad = 0;
		switch (k) {
		case 0:
			g->kind = !strcmp(v, "builtin")  ? LEAGUE_AGENT_BUILTIN
				  : !strcmp(v, "plugin") ? LEAGUE_AGENT_PLUGIN
				  : !strcmp(v, "remote") ? LEAGUE_AGENT_REMOTE
							 : -1;
			bad = g->kind < 0;
			break;
		case 1:
			bad = !vl || vl >= sizeof g->name || strpbrk(v, " /");
			memcpy(g->name, v, bad ? 0 : vl + 1);
			break;
		case 2:
		case 4:
			bad = !vl || vl >= sizeof g->path;
			memcpy(k == 2 ? g->path : g->address, v,
			       bad ? 0 : vl + 1);
			break;
		default:
			bad = vl != LEAGUE_AGENT_SHA256_HEX ||
			      strspn(v, "0123456789abcdef") != vl;
			memcpy(g->sha256, v, bad ? 0 : vl + 1);
		}
		if (bad) {
			lg_errf(err, errlen, "game record: '%.60s': not a "
				"valid %s", line, keys[k]);
			return LG_ECORRUPT;
		}
	}
	if (!(seen & 1)) {
		lg_errf(err, errlen, "game record: no kind");
		return LG_ECORRUPT;
	}
	for (size_t k = 0; k < LG_ARRAY_LEN(keys); k++)
		if ((seen ^ need[g->kind]) & (1u << k)) {
			const char *kind = g->kind == LEAGUE_AGENT_PLUGIN ? "plugin"
					   : g->kind == LEAGUE_AGENT_REMOTE ? "remote"
									    : "built-in";
			if (seen & (1u << k))
				lg_errf(err, errlen, "game record: %s is not a "
					"%s game's key", keys[k], kind);
			else
				lg_errf(err, errlen, "game record: a %s game "
					"needs %s", kind, keys[k]);
			return LG_ECORRUPT;
		}
	return 0;
}

/* Whether the user's `with` opens game g: nothing for a built-in game; a
 * plugin whose bytes hash to the recorded SHA-256; an address. */
static int game_with(const struct league_agent_game *g,
		     const struct league_agent_with *w, char *err,
		     size_t errlen)
{
	const char *pl = w && w->plugin && w->plugin[0] ? w->plugin : NULL;
	const char *rm = w && w->remote && w->remote[0] ? w->remote : NULL;
	char hex[LEAGUE_AGENT_SHA256_HEX + 1];

	if (g->kind == LEAGUE_AGENT_BUILTIN && (pl || rm)) {
		lg_errf(err, errlen, "plays the built-in game '%s': a %s was "
			"named for it", g->name, pl ? "plugin" : "game server");
		return LG_EINVAL;
	}
	if (g->kind == LEAGUE_AGENT_PLUGIN && (!pl || rm)) {
		lg_errf(err, errlen, "plays the plugin game '%s' and loads no "
			"code by itself: %s the plugin with SHA-256 %s (it was "
			"%s when exported) with --plugin PATH",
			g->name, rm ? "no game server: name" : "name", g->sha256,
			g->path);
		return rm ? LG_EINVAL : LG_EUNSUPP;
	}
	if (g->kind == LEAGUE_AGENT_REMOTE && (!rm || pl)) {
		lg_errf(err, errlen, "plays the remote game '%s' and dials no "
			"address by itself: %s a server of '%s' with --remote "
			"ADDR (it was at %s when exported)", g->name,
			pl ? "no plugin: name" : "name", g->name, g->address);
		return pl ? LG_EINVAL : LG_EUNSUPP;
	}
	if (g->kind != LEAGUE_AGENT_PLUGIN)
		return 0;
	if (league_agent_sha256(pl, hex, err, errlen))
		return LG_EIO;
	if (strcmp(hex, g->sha256)) {
		lg_errf(err, errlen, "the plugin %s has SHA-256 %s; the agent's "
			"game '%s' is the plugin with SHA-256 %s (it was %s when "
			"exported)", pl, hex, g->name, g->sha256, g->path);
		return LG_EINVAL;
	}
	return 0;
}

/* The config (cl bytes at t) with the game `with` names, the game
 * opened for its spec, the parameters (bl bytes at blob) loaded and
 * checked to be the network the config gives for the game. */
static int agent_open(struct league_agent *a, const char *t, uint32_t cl,
		      const uint8_t *blob, uint64_t bl,
		      const struct league_agent_with *w, char *err,
		      size_t errlen)
{
	const char *pl = a->game.kind == LEAGUE_AGENT_PLUGIN ? w->plugin : NULL;
	const char *rm = a->game.kind == LEAGUE_AGENT_REMOTE ? w->remote : NULL;
	struct env_opts eo;
	struct nn_shape want;
	env *e = NULL;
	int rc;

	if ((rc = cfg_load_sealed_game(&a->cfg, t, cl, "agent config", pl, rm,
				       err, errlen))) {
		if (errlen && !err[0])
			lg_errf(err, errlen, "its config: %s", lg_strerror(rc));
		return rc;
	}
	/* no record (format 1): the config's built-in game */
	if (a->format == 1 && strlen(a->cfg.env.name) < sizeof a->game.name)
		memcpy(a->game.name, a->cfg.env.name,
		       strlen(a->cfg.env.name) + 1);
	if (strcmp(a->game.name, a->cfg.env.name)) {
		lg_errf(err, errlen, "its game record names '%s', its config "
			"'%s'", a->game.name, a->cfg.env.name);
		return LG_ECORRUPT;
	}
	league_env_opts(&a->cfg, &eo);
	if ((rc = env_new(&e, a->cfg.env.name, &eo, err, errlen)))
		return rc;
	a->spec = *env_spec_of(e);
	env_free(e);
	league_nn_shape(&a->cfg, &a->spec, &want);
	if ((rc = nn_load(&a->net, blob, (size_t)bl, err, errlen)))
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

int league_agent_decode(struct league_agent *a, const void *buf, size_t len,
			const struct league_agent_with *with, char *err,
			size_t errlen)
{
	static const struct league_agent_with none;
	const uint8_t *b = buf;
	struct sections s;
	int rc;

	memset(a, 0, sizeof *a);
	if (errlen)
		err[0] = 0;
	if (!with)
		with = &none;
	if ((rc = sections_of(b, len, &s, err, errlen)))
		return rc;
	a->format = s.format;
	b += s.header;
	if (meta_invalid((const char *)b, s.ml, "provenance", err, errlen))
		return LG_ECORRUPT;
	memcpy(a->meta, b, s.ml);
	a->meta[s.ml] = 0;
	b += s.ml;
	if (s.format == 1)
		a->game.kind = LEAGUE_AGENT_BUILTIN;
	else if ((rc = game_parse((const char *)b + s.cl, s.gl, &a->game, err,
				  errlen)))
		return rc;
	/* before the config: nothing is loaded or dialled unless the user
	 * named it, and a plugin only with the recorded bytes */
	if (s.format != 1 && (rc = game_with(&a->game, with, err, errlen)))
		return rc;
	if (s.format == 1 && ((with->plugin && with->plugin[0]) ||
			      (with->remote && with->remote[0]))) {
		lg_errf(err, errlen, "plays a built-in game (format 1): a "
			"plugin or game server was named for it");
		return LG_EINVAL;
	}
	return agent_open(a, (const char *)b, s.cl, b + s.cl + s.gl, s.bl,
			  with, err, errlen);
}

int league_agent_load(struct league_agent *a, const char *path,
		      const struct league_agent_with *with, char *err,
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
					   LEAGUE_AGENT_GAME_MAX +
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
	if (!rc && (rc = league_agent_decode(a, buf, len, with, msg,
					     sizeof msg)))
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
