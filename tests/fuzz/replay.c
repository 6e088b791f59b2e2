/* tests/fuzz/replay.c: runs a libFuzzer harness over files named on the
 * command line, so `make test` exercises every harness with gcc and no
 * fuzzer runtime. A harness that aborts on an input (its checks failed)
 * is reported with the input's path. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *current;

/* Name the input before dying of it; only async-signal-safe calls. */
static void on_fatal(int sig)
{
	static const char msg[] = "replay: fatal signal on input ";

	if (write(2, msg, sizeof msg - 1) < 0 ||
	    write(2, current, strlen(current)) < 0 || write(2, "\n", 1) < 0)
		_exit(128 + sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The whole of path into a malloc'd buffer. */
static int read_file(const char *path, uint8_t **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *grown;
	size_t cap = 0, n = 0;
	int rc = -1;

	if (!f)
		return -1;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			if (!(grown = realloc(buf, cap)))
				goto out;
			buf = grown;
		}
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
	}
	if (!ferror(f))
		rc = 0;
out:
	fclose(f);
	if (rc)
		free(buf);
	else
		*out = buf, *len = n;
	return rc;
}

int main(int argc, char **argv)
{
	int n = 0;

	signal(SIGABRT, on_fatal);
	signal(SIGSEGV, on_fatal);
	signal(SIGBUS, on_fatal);
	signal(SIGFPE, on_fatal);
	for (int i = 1; i < argc; i++) {
		uint8_t *buf;
		size_t len;

		if (read_file(argv[i], &buf, &len)) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			return 1;
		}
		current = argv[i];
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		n++;
	}
	printf("%s: %d inputs replayed\n", argv[0], n);
	return 0;
}
