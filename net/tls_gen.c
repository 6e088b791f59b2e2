/*
 * net/tls_gen.c: a certificate authority and certificates for a test
 * cluster (`league tls init`, and the tests' expired or foreign
 * certificates). EC P-256 keys, SHA-256 signatures, X.509 v3.
 *
 * The CA in DIR (ca.pem, ca.key) is made once and reused: running init
 * again with other names adds certificates signed by the same CA. Each
 * certificate's common name is its name (the label a mutual-TLS peer gets
 * in the daemon's logs and /status). Only the daemon's certificates are
 * valid at the daemon's hosts: they carry serverAuth (and clientAuth) and
 * the hosts as subjectAltName. A worker's carries clientAuth alone, so a
 * client that dials the daemon refuses it ("unsupported certificate
 * purpose"); a worker that also serves (a learner's trajectory endpoint,
 * NAME=HOST+HOST) gets serverAuth for its own hosts only, which may not
 * be the daemon's. Keys are written mode 0600.
 */
#include "net/net.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define GEN_PATH_MAX 4096

static int add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *e;
	int ok;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	if (!(e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value)))
		return 0;
	ok = X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return ok;
}

/* A certificate for key, named cn, signed by (issuer, ikey), or
 * self-signed (a CA) when issuer is NULL. san: "DNS:a,IP:1.2.3.4" or
 * NULL; eku: the extendedKeyUsage, e.g. "clientAuth". */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer,
		       EVP_PKEY *ikey, const char *san, const char *eku,
		       long nb, long na)
{
	X509 *x = X509_new();
	unsigned char serial[16];
	BIGNUM *bn = NULL;
	int ok;

	if (!x)
		return NULL;
	RAND_bytes(serial, sizeof serial);
	serial[0] &= 0x7f; /* positive */
	ok = X509_set_version(x, 2) &&
	     (bn = BN_bin2bn(serial, sizeof serial, NULL)) &&
	     BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) &&
	     X509_gmtime_adj(X509_getm_notBefore(x), nb) &&
	     X509_gmtime_adj(X509_getm_notAfter(x), na) &&
	     X509_set_pubkey(x, key) &&
	     X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN",
					MBSTRING_ASC,
					(const unsigned char *)cn, -1, -1, 0) &&
	     X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer)
					    : X509_get_subject_name(x));
	BN_free(bn);
	if (ok && !issuer)
		ok = add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE") &&
		     add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") &&
		     add_ext(x, x, NID_subject_key_identifier, "hash");
	else if (ok)
		ok = add_ext(x, issuer, NID_basic_constraints, "CA:FALSE") &&
		     add_ext(x, issuer, NID_key_usage,
			     "critical,digitalSignature") &&
		     add_ext(x, issuer, NID_ext_key_usage, eku) &&
		     add_ext(x, issuer, NID_authority_key_identifier,
			     "keyid") &&
		     (!san || add_ext(x, issuer, NID_subject_alt_name, san));
	if (ok)
		ok = X509_sign(x, issuer ? ikey : key, EVP_sha256()) > 0;
	if (!ok) {
		X509_free(x);
		return NULL;
	}
	return x;
}

static int write_pem(const char *path, X509 *x, EVP_PKEY *k, char *err,
		     size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      k ? 0600 : 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int ok;

	if (!f) {
		lg_errf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return LG_EIO;
	}
	ok = x ? PEM_write_X509(f, x)
	       : PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL);
	if (fclose(f) || !ok) {
		lg_errf(err, errlen, "%s: write failed", path);
		return LG_EIO;
	}
	return 0;
}

/* The subjectAltName value for hosts: IP: for addresses, DNS: else. */
static int san_of(const char *const *hosts, size_t n, char *out, size_t len)
{
	size_t o = 0;

	out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		ASN1_OCTET_STRING *ip = a2i_IPADDRESS(hosts[i]);
		int w = snprintf(out + o, len - o, "%s%s:%s", i ? "," : "",
				 ip ? "IP" : "DNS", hosts[i]);
		ASN1_OCTET_STRING_free(ip);
		if (w < 0 || (size_t)w >= len - o)
			return LG_EINVAL;
		o += (size_t)w;
	}
	return 0;
}

static int valid_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!(*s == '-' || *s == '_' || *s == '.' ||
		      (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z')))
			return 0;
	return 1;
}

static int load_ca(const char *pem, const char *keyf, X509 **x,
		   EVP_PKEY **k, char *err, size_t errlen)
{
	FILE *f = fopen(pem, "r");

	if (f) {
		*x = PEM_read_X509(f, NULL, NULL, NULL);
		fclose(f);
	}
	if ((f = fopen(keyf, "r"))) {
		*k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
		fclose(f);
	}
	ERR_clear_error();
	if (!*x || !*k || X509_check_private_key(*x, *k) != 1) {
		ERR_clear_error();
		lg_errf(err, errlen, "%s / %s: not a CA certificate and its "
			"key", pem, keyf);
		return LG_EINVAL;
	}
	return 0;
}

#define GEN_OWN_HOSTS 16

/* One certificate to make: a name of --names, "NAME" or "NAME=H1+H2". */
struct cert_spec {
	char name[65];
	char buf[1024]; /* the own hosts, split in place */
	const char *own[GEN_OWN_HOSTS];
	size_t nown;
	int daemon; /* among the daemon's names */
};

static int among(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(s, list[i]))
			return 1;
	return 0;
}

/* Parse in into sp and check it against the daemon's names and hosts. */
static int parse_spec(const char *in, const char *const *daemons,
		      size_t ndaemons, const char *const *hosts, size_t nhosts,
		      struct cert_spec *sp, char *err, size_t errlen)
{
	const char *eq = strchr(in, '=');
	size_t nl = eq ? (size_t)(eq - in) : strlen(in);

	memset(sp, 0, sizeof *sp);
	if (nl < sizeof sp->name)
		memcpy(sp->name, in, nl);
	if (nl >= sizeof sp->name || !valid_name(sp->name) ||
	    !strcmp(sp->name, "ca")) {
		lg_errf(err, errlen, "certificate name '%s': use 1-64 of "
			"[A-Za-z0-9._-], not 'ca'", in);
		return LG_EINVAL;
	}
	sp->daemon = among(sp->name, daemons, ndaemons);
	if (!eq)
		return 0;
	if (sp->daemon) {
		lg_errf(err, errlen, "'%s': the daemon's certificate is for "
			"--hosts, not hosts of its own", in);
		return LG_EINVAL;
	}
	if (strlen(eq + 1) >= sizeof sp->buf) {
		lg_errf(err, errlen, "'%s': hosts too long", in);
		return LG_EINVAL;
	}
	memcpy(sp->buf, eq + 1, strlen(eq + 1) + 1);
	for (char *save = NULL, *h = strtok_r(sp->buf, "+", &save); h;
	     h = strtok_r(NULL, "+", &save)) {
		if (sp->nown == GEN_OWN_HOSTS) {
			lg_errf(err, errlen, "'%s': at most %d hosts", in,
				GEN_OWN_HOSTS);
			return LG_EINVAL;
		}
		if (ndaemons && among(h, hosts, nhosts)) {
			lg_errf(err, errlen, "'%s': %s is one of the daemon's "
				"hosts (--hosts): a certificate serving there "
				"could pose as the daemon", in, h);
			return LG_EINVAL;
		}
		sp->own[sp->nown++] = h;
	}
	if (!sp->nown) {
		lg_errf(err, errlen, "'%s': no hosts after '='", in);
		return LG_EINVAL;
	}
	return 0;
}

/* Write sp's certificate and key in dir, signed by (ca, cak). */
static int make_one(const char *dir, const struct cert_spec *sp,
		    const char *daemon_san, X509 *ca, EVP_PKEY *cak, long nb,
		    long na, int force, char *err, size_t errlen)
{
	char pem[GEN_PATH_MAX], keyf[GEN_PATH_MAX], own[4096];
	const char *san = NULL, *eku = "clientAuth";
	EVP_PKEY *k;
	X509 *x;
	int rc;

	snprintf(pem, sizeof pem, "%s/%s.pem", dir, sp->name);
	snprintf(keyf, sizeof keyf, "%s/%s.key", dir, sp->name);
	if (!force && (!access(pem, F_OK) || !access(keyf, F_OK))) {
		lg_errf(err, errlen, "%s exists (--force replaces it)", pem);
		return LG_EEXIST;
	}
	if (sp->daemon) {
		san = daemon_san;
		eku = "serverAuth,clientAuth";
	} else if (sp->nown) {
		if (san_of(sp->own, sp->nown, own, sizeof own)) {
			lg_errf(err, errlen, "%s: hosts too long", sp->name);
			return LG_EINVAL;
		}
		san = own;
		eku = "serverAuth,clientAuth";
	}
	k = EVP_EC_gen("P-256");
	x = k ? make_cert(k, sp->name, ca, cak, san, eku, nb, na) : NULL;
	if (!x) {
		lg_errf(err, errlen, "making %s's certificate failed",
			sp->name);
		rc = LG_ENOMEM;
	} else if (!(rc = write_pem(keyf, NULL, k, err, errlen))) {
		rc = write_pem(pem, x, NULL, err, errlen);
	}
	X509_free(x);
	EVP_PKEY_free(k);
	return rc;
}

int net_tls_init_dir(const char *dir, const char *const *names,
		     size_t nnames, const char *const *daemons,
		     size_t ndaemons, const char *const *hosts, size_t nhosts,
		     long not_before_s, long not_after_s, int force,
		     char *err, size_t errlen)
{
	char pem[GEN_PATH_MAX], keyf[GEN_PATH_MAX], san[4096] = "";
	struct cert_spec *specs = calloc(nnames ? nnames : 1, sizeof *specs);
	X509 *ca = NULL;
	EVP_PKEY *cak = NULL;
	int rc = 0;

	if (!specs)
		return LG_ENOMEM;
	for (size_t i = 0; i < nnames; i++)
		if ((rc = parse_spec(names[i], daemons, ndaemons, hosts,
				     nhosts, &specs[i], err, errlen)))
			goto out;
	for (size_t j = 0; j < ndaemons; j++) {
		size_t i = 0;
		while (i < nnames && strcasecmp(specs[i].name, daemons[j]))
			i++;
		if (i == nnames) {
			lg_errf(err, errlen, "the daemon's name '%s' is not "
				"among the names", daemons[j]);
			rc = LG_EINVAL;
			goto out;
		}
	}
	if (ndaemons && !nhosts) {
		lg_errf(err, errlen, "the daemon's certificate needs hosts");
		rc = LG_EINVAL;
		goto out;
	}
	if (nhosts && san_of(hosts, nhosts, san, sizeof san)) {
		lg_errf(err, errlen, "too many or too long hosts");
		rc = LG_EINVAL;
		goto out;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		lg_errf(err, errlen, "%s: %s", dir, strerror(errno));
		rc = LG_EIO;
		goto out;
	}
	snprintf(pem, sizeof pem, "%s/ca.pem", dir);
	snprintf(keyf, sizeof keyf, "%s/ca.key", dir);
	if (!access(pem, F_OK)) {
		if ((rc = load_ca(pem, keyf, &ca, &cak, err, errlen)))
			goto out;
	} else {
		cak = EVP_EC_gen("P-256");
		ca = cak ? make_cert(cak, "league test CA", NULL, NULL, NULL,
				     NULL, not_before_s, 10L * 365 * 86400)
			 : NULL;
		if (!ca) {
			lg_errf(err, errlen, "making the CA failed");
			rc = LG_ENOMEM;
			goto out;
		}
		if ((rc = write_pem(keyf, NULL, cak, err, errlen)) ||
		    (rc = write_pem(pem, ca, NULL, err, errlen)))
			goto out;
	}
	for (size_t i = 0; i < nnames && !rc; i++)
		rc = make_one(dir, &specs[i], san, ca, cak, not_before_s,
			      not_after_s, force, err, errlen);
out:
	ERR_clear_error();
	X509_free(ca);
	EVP_PKEY_free(cak);
	free(specs);
	return rc;
}
