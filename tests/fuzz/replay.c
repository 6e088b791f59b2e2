/* tests/fuzz/replay.c: runs a libFuzzer harness over files named on the
 * command line, so `make test` exercises every harness with gcc and no
 * fuzzer runtime. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int n = 0;

	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf = malloc(1 << 20);
		size_t len;

		if (!f || !buf) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			return 1;
		}
		len = fread(buf, 1, 1 << 20, f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		n++;
	}
	printf("%s: %d inputs replayed\n", argv[0], n);
	return 0;
}
