/*
 * util: the few things every module needs and nothing else.
 *
 *   - error codes: every function in the project returns int, 0 for success
 *     and one of the negative LG_E* codes below on failure; lg_strerror()
 *     turns a code into text. Human detail (file, line, key, peer) travels in
 *     a caller-supplied buffer or in the log, never in the code.
 *   - logging to stderr with a level and a process tag.
 *   - a small, fast, seedable RNG whose whole state is a plain value, so it
 *     can be stored in LMDB and restored bit-exactly on resume.
 *   - clocks, byte order helpers, CRC-32C, a growable byte buffer and strict
 *     number parsing for command-line arguments.
 *
 * util depends on libc only.
 */
#ifndef LG_UTIL_H
#define LG_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h> /* ssize_t */

/* ---- errors ----------------------------------------------------------- */

enum lg_err {
	LG_OK = 0,
	LG_ENOMEM = -1,     /* allocation failed */
	LG_EINVAL = -2,     /* bad argument or input */
	LG_EIO = -3,        /* operating system I/O error */
	LG_ENOTFOUND = -4,  /* no such key, player, file, ... */
	LG_ECORRUPT = -5,   /* stored data failed its checks */
	LG_EFULL = -6,      /* a bounded container or map is full */
	LG_EEXIST = -7,     /* already exists */
	LG_EPROTO = -8,     /* peer broke the wire protocol */
	LG_ETIMEOUT = -9,   /* deadline passed */
	LG_EBUSY = -10,     /* resource in use, try again */
	LG_ECONFIG = -11,   /* configuration rejected */
	LG_EVERSION = -12,  /* incompatible format or protocol version */
	LG_EAUTH = -13,     /* authentication failed */
	LG_ECLOSED = -14,   /* connection or object closed */
	LG_ERANGE = -15,    /* value out of range */
	LG_ESTORAGE = -16,  /* storage engine failure */
	LG_EUNSUPP = -17,   /* not supported */
	LG_ECANCELED = -18, /* operation canceled */
	LG_ENOSPACE = -19,  /* the file system is full (ENOSPC, EDQUOT) */
};

/* Text for an LG_E* code (static storage; never NULL). */
const char *lg_strerror(int err);

/* ---- logging ---------------------------------------------------------- */

enum lg_log_level { LG_LOG_ERROR = 0, LG_LOG_WARN, LG_LOG_INFO, LG_LOG_DEBUG };

/* Messages above this level are dropped. Defaults to LG_LOG_INFO, or the
 * level named by the LEAGUE_LOG environment variable (error|warn|info|debug)
 * read on first use. */
void lg_log_set_level(enum lg_log_level level);
enum lg_log_level lg_log_get_level(void);
/* Short name printed in every line, e.g. "daemon" or "collector.2". The
 * string is copied (at most 31 bytes). */
void lg_log_set_tag(const char *tag);
void lg_log(enum lg_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void lg_vlog(enum lg_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* A repeated warning logged at most once per interval: a caller keeps one
 * struct lg_log_limit per call site (zeroed to start). */
struct lg_log_limit {
	double last_s;       /* when the last line was written */
	uint64_t suppressed; /* identical messages dropped since then */
	char msg[256];       /* the last message written */
};

/* Decide whether a message may be written now: 1 when it differs from the
 * last one or interval_s has passed since the last was written (then
 * *dropped is how many identical ones were dropped in between, and the
 * count restarts), 0 when it is dropped (and counted). */
int lg_log_limit_pass(struct lg_log_limit *l, const char *msg, double now_s,
		      double interval_s, uint64_t *dropped);

/* Log a printf-style message through l: at most one identical line per
 * interval_s, and the line that ends a run of drops says how many were
 * dropped ("(N more like this)"). */
void lg_log_limited(struct lg_log_limit *l, double interval_s,
		    enum lg_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define LG_ERROR(...) lg_log(LG_LOG_ERROR, __VA_ARGS__)
#define LG_WARN(...) lg_log(LG_LOG_WARN, __VA_ARGS__)
#define LG_INFO(...) lg_log(LG_LOG_INFO, __VA_ARGS__)
#define LG_DEBUG(...)                                                          \
	do {                                                                   \
		if (lg_log_get_level() >= LG_LOG_DEBUG)                        \
			lg_log(LG_LOG_DEBUG, __VA_ARGS__);                     \
	} while (0)

/* snprintf into a caller buffer that may be NULL (then nothing happens). */
void lg_errf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- rng: xoshiro256** seeded through splitmix64 ------------------------ */

/* splitmix64's output function: a bijection of 64-bit words that spreads
 * every input bit over the output, for deriving seeds (of jobs, episodes,
 * streams) from a league seed and a counter. */
static inline uint64_t lg_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The whole state; copy it, store it, restore it. */
typedef struct lg_rng {
	uint64_t s[4];
} lg_rng;

void lg_rng_seed(lg_rng *r, uint64_t seed);
/* Derive an independent stream: seed mixed with a stream number. */
void lg_rng_seed2(lg_rng *r, uint64_t seed, uint64_t stream);
uint64_t lg_rng_u64(lg_rng *r);
/* len bytes from the kernel's generator (getrandom), for secrets, never
 * for anything a seed must reproduce. LG_EIO if it fails. */
int lg_random_bytes(void *buf, size_t len);

/* Uniform double in [0, 1) with 53 random bits. */
double lg_rng_double(lg_rng *r);
/* Uniform float in [0, 1) with 24 random bits. */
float lg_rng_float(lg_rng *r);
/* Uniform integer in [0, n), unbiased; n must be > 0. */
uint64_t lg_rng_below(lg_rng *r, uint64_t n);
/* Standard normal (Box-Muller, no cached second value so state stays one
 * plain value). */
double lg_rng_normal(lg_rng *r);
/* Index drawn with probability w[i] / sum(w). Negative, NaN or infinite
 * weights count as 0; when every weight is 0 the draw is uniform over n.
 * n must be > 0. */
size_t lg_rng_categorical(lg_rng *r, const double *w, size_t n);

/* ---- clocks ----------------------------------------------------------- */

uint64_t lg_now_ns(void);    /* CLOCK_MONOTONIC */
double lg_now_s(void);       /* CLOCK_MONOTONIC in seconds */
double lg_wall_s(void);      /* CLOCK_REALTIME in seconds */
void lg_sleep_s(double s);   /* nanosleep, restarted on EINTR */
/* Spin until the calling thread has used s more seconds of CPU time
 * (CLOCK_THREAD_CPUTIME_ID): work that costs a core, not wall time. */
void lg_burn_cpu_s(double s);

/* ---- byte order ------------------------------------------------------- */

static inline void lg_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);  p[3] = (uint8_t)v;
}
static inline uint32_t lg_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static inline void lg_put_be64(uint8_t *p, uint64_t v)
{
	lg_put_be32(p, (uint32_t)(v >> 32));
	lg_put_be32(p + 4, (uint32_t)v);
}
static inline uint64_t lg_get_be64(const uint8_t *p)
{
	return (uint64_t)lg_get_be32(p) << 32 | lg_get_be32(p + 4);
}
static inline void lg_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;         p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t lg_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}
static inline void lg_put_le64(uint8_t *p, uint64_t v)
{
	lg_put_le32(p, (uint32_t)v);
	lg_put_le32(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t lg_get_le64(const uint8_t *p)
{
	return (uint64_t)lg_get_le32(p) | (uint64_t)lg_get_le32(p + 4) << 32;
}
/* IEEE floats little-endian: the bits of a float of `bits` bits as the
 * unsigned integer of that width. Defines lg_put_lef32/lg_get_lef32
 * (float) and lg_put_lef64/lg_get_lef64 (double). */
#define LG_LE_FLOAT_CODEC(bits, T)                                         \
	static inline void lg_put_lef##bits(uint8_t *p, T f)               \
	{                                                                  \
		uint##bits##_t v;                                          \
		memcpy(&v, &f, sizeof v);                                  \
		lg_put_le##bits(p, v);                                     \
	}                                                                  \
	static inline T lg_get_lef##bits(const uint8_t *p)                 \
	{                                                                  \
		uint##bits##_t v = lg_get_le##bits(p);                     \
		T f;                                                       \
		memcpy(&f, &v, sizeof f);                                  \
		return f;                                                  \
	}
LG_LE_FLOAT_CODEC(32, float)
LG_LE_FLOAT_CODEC(64, double)
#undef LG_LE_FLOAT_CODEC

/* A fixed-size little-endian record described once, for its encoder and
 * its decoder alike: each field's type, its byte offset in the record
 * and the offset of the struct member it mirrors (a uint32_t, uint64_t
 * or double). */
enum lg_field_type { LG_FIELD_U32, LG_FIELD_U64, LG_FIELD_F64 };
struct lg_field {
	enum lg_field_type type;
	size_t at;  /* in the record */
	size_t off; /* in the struct (offsetof) */
};
/* A table entry: field `member` of struct type st at byte `at`. */
#define LG_FIELD(type, at, st, member) \
	{ LG_FIELD_##type, (at), offsetof(st, member) }
/* The n fields of the struct at base written into rec. */
void lg_fields_put(uint8_t *rec, const struct lg_field *f, size_t n,
		   const void *base);
/* The n fields of rec read into the struct at base. */
void lg_fields_get(const uint8_t *rec, const struct lg_field *f, size_t n,
		   void *base);
/* A record of exactly len bytes whose fields are f[0, n), the rest
 * zero: LG_RECORD(len, table) for a static table. */
struct lg_record {
	size_t len;
	const struct lg_field *f;
	size_t n;
};
#define LG_RECORD(len, table) { (len), (table), LG_ARRAY_LEN(table) }
/* rec's len bytes zeroed, then the fields of the struct at base. */
void lg_record_put(uint8_t *rec, const struct lg_record *r, const void *base);
/* The fields of the len bytes at val into the struct at base (what the
 * table does not name is left alone); LG_ECORRUPT (base untouched) when
 * len is not the record's. */
int lg_record_get(const void *val, size_t len, const struct lg_record *r,
		  void *base);

/* ---- one allocation for an object and its arrays ----------------------- */

/* One array of an object: reached through the pointer member at byte
 * `at` of the object (offsetof), count elements of size bytes. */
struct lg_part {
	size_t at;
	size_t count, size;
};
#define LG_PART(st, member, count) \
	{ offsetof(st, member), (count), sizeof *((st *)0)->member }
#define LG_BLOCK_ALIGN 64 /* where every part starts: a cache line */

/* One zeroed block, LG_BLOCK_ALIGN-aligned: head bytes (the object, at
 * the start) then the n parts in turn, each at a multiple of
 * LG_BLOCK_ALIGN, each part's pointer member (at block + p[i].at) set to
 * it (a part of no elements too, to room of no bytes). One free() of
 * the block frees it all. NULL: out of memory or the sizes overflow. */
void *lg_block_new(size_t head, const struct lg_part *p, size_t n);
/* The same for an object that lives elsewhere: a block of the n parts
 * alone, their pointer members set in obj (at obj + p[i].at). The
 * caller frees the block it returns (NULL: out of memory or overflow;
 * obj is then untouched). */
void *lg_block_parts(void *obj, const struct lg_part *p, size_t n);

/* ---- whole files ------------------------------------------------------ */

/* All n bytes at buf moved by op (a read(2)- or write(2)-like call on
 * ctx), retried on EINTR and short counts: 0, or LG_EIO when op fails
 * or moves nothing (errno as op left it). A writer's buf is only read. */
typedef ssize_t (*lg_io_fn)(void *ctx, void *buf, size_t n);
int lg_io_all(lg_io_fn op, void *ctx, void *buf, size_t n);

/* Write [p, p + n) to path whole or not at all: a temporary beside it
 * (path.tmp-PID), written, synced, then renamed over path. LG_EIO (err
 * names the file and the system's reason; the temporary is removed),
 * LG_EINVAL (path too long). */
int lg_file_write_atomic(const char *path, const void *p, size_t n,
			 char *err, size_t errlen);

/* Flags of lg_file_write_out. */
#define LG_OUT_FOLLOW_SYMLINKS 1u /* write through a symlink to its target */

/* Write [p, p + n) to a user-named output path whole or not at all, like
 * lg_file_write_atomic, but only where a regular file may go: path must be
 * missing or a regular file. A FIFO, device node, socket or directory is
 * refused, and so is a symlink unless flags has LG_OUT_FOLLOW_SYMLINKS (then
 * its target, which must itself be missing or regular, is replaced and the
 * link stays). Nothing is written when refused. LG_EINVAL (refused; err
 * names the path and what it is), LG_EIO (err names the file and the
 * system's reason). */
int lg_file_write_out(const char *path, const void *p, size_t n,
		      unsigned flags, char *err, size_t errlen);

/* The shared token from a token file's bytes [b, b + n): its first line
 * without the line end (\n or \r\n). Anything after that line must be
 * blank (spaces, tabs, line ends). The token must be 1..len-1 bytes of
 * printable ASCII. 0 and tok filled; LG_EINVAL (empty, too long, a control
 * byte, a second line; err says which, tok is ""). */
int lg_token_parse(const char *b, size_t n, char *tok, size_t len,
		   char *err, size_t errlen);

/* lg_token_parse over the file at path (read up to 4096 bytes; a longer
 * file is refused). err names the file. LG_EINVAL, LG_EIO. */
int lg_token_read_file(const char *path, char *tok, size_t len, char *err,
		       size_t errlen);

/* ---- checksums -------------------------------------------------------- */

/* CRC-32C (Castagnoli). Start with crc = 0; chain calls to extend. */
uint32_t lg_crc32c(uint32_t crc, const void *data, size_t len);

/* qsort's comparison of two uint64_t, ascending. */
int lg_cmp_u64(const void *x, const void *y);
/* How many distinct values among v[0..n) (sorts v in place). */
size_t lg_distinct_u64(uint64_t *v, size_t n);
/* v[0, n) in reverse order, in place. */
void lg_reverse_u32(uint32_t *v, size_t n);
/* v[0..n) divided by its sum (summed in index order, each entry divided,
 * not multiplied by the inverse), so a distribution's weights add to 1;
 * returns the sum. A zero or non-finite sum is the caller's to avoid. */
double lg_normalize(double *v, size_t n);

/* ---- growable byte buffer --------------------------------------------- */

typedef struct lg_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
} lg_buf;

/* A zeroed lg_buf is empty and valid. lg_buf_free leaves it empty. */
void lg_buf_free(lg_buf *b);
int lg_buf_reserve(lg_buf *b, size_t extra);
int lg_buf_append(lg_buf *b, const void *p, size_t n);
int lg_buf_printf(lg_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* v as printf's "%.6g" writes it, byte for byte, appended to b: a
 * fast path for the usual magnitudes (the payoff matrix writes a million
 * numbers), snprintf for the rest (ties too close to call, exponents,
 * NaN, infinities). LG_ENOMEM. */
int lg_buf_g6(lg_buf *b, double v);

/* s as a JSON string (quoted; '"', '\\' and control bytes and DEL escaped,
 * other bytes as they are), appended to b. */
int lg_buf_json_str(lg_buf *b, const char *s);
/* s quoted as lg_buf_json_str does, but with control bytes and DEL as
 * \u00XX (json) or \xXX (0: YAML's double-quoted style). */
int lg_buf_quoted(lg_buf *b, const char *s, int json);

/* 1 when addr names this host's loopback ("127.x.y.z", "::1",
 * "localhost"): where league may listen without a token. */
int lg_is_loopback(const char *addr);
/* The value of cookie `name` in a Cookie header ("a=1; b=2"): 1 with it
 * copied into out (NUL-terminated; trailing blanks dropped), 0 when absent
 * or longer than outlen - 1 (a value is never truncated). */
int lg_cookie_value(const char *header, const char *name, char *out,
		    size_t outlen);

/* ---- strict parsing --------------------------------------------------- */

/* Whole-string parses: no trailing junk, no empty string, range checked.
 * Return 0 or LG_EINVAL / LG_ERANGE. */
int lg_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
int lg_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
int lg_parse_double(const char *s, double lo, double hi, double *out);

#define LG_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define LG_MIN(a, b) ((a) < (b) ? (a) : (b))
#define LG_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
