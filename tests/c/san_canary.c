/* san_canary: one deliberate error per run, so that guest case 57-sanitizers can prove each tool it relies on
 * really reports (a sanitizer run that cannot fail proves nothing):
 *
 *   san_canary leak       a block from malloc() never freed and unreachable at exit (LeakSanitizer; valgrind's
 *                         "definitely lost")
 *   san_canary lib-heap   reads one pointer past the NULL that ends ibv_get_device_list()'s array: a block our
 *                         libibverbs allocated (AddressSanitizer must see the Rust library's malloc: heap overflow)
 *   san_canary ub         a signed int overflow (UndefinedBehaviorSanitizer, fatal with -fno-sanitize-recover)
 *   san_canary uninit     a branch on an uninitialised malloc'd byte (valgrind memcheck)
 *   san_canary ok         none of them: exits 0 (the control run)
 *
 * Exit status 0 when the error went unnoticed (or with "ok"); under a tool that caught it, whatever the tool's
 * exit code is. Built with the others by tests/c/compile.sh (plain, for valgrind) and tests/c/compile.sh --sanitize.
 */
#include <infiniband/verbs.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile keep; /* defeats the optimiser; cleared so that the leak is unreachable */

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (!strcmp(what, "leak")) {
		keep = malloc(4242);
		memset(keep, 1, 4242);
		keep = NULL;
		printf("san_canary: leaked 4242 bytes\n");
		return 0;
	}
	if (!strcmp(what, "lib-heap")) {
		int n = 0;
		struct ibv_device **list = ibv_get_device_list(&n);
		struct ibv_device *volatile past;

		if (!list) {
			perror("ibv_get_device_list");
			return 2;
		}
		past = list[n + 1]; /* list[n] is the terminating NULL: one further is outside the block */
		printf("san_canary: read %p past the device list of %d\n", (void *)past, n);
		ibv_free_device_list(list);
		return 0;
	}
	if (!strcmp(what, "ub")) {
		volatile int big = INT_MAX;
		int sum = big + argc; /* argc >= 2 here */

		printf("san_canary: INT_MAX + %d = %d\n", argc, sum);
		return 0;
	}
	if (!strcmp(what, "uninit")) {
		unsigned char *volatile p = malloc(16);
		int r = 0;

		if (p[3] == 42) /* never written */
			r = 1;
		printf("san_canary: branched on an uninitialised byte (%d)\n", r);
		free(p);
		return 0;
	}
	if (!strcmp(what, "ok")) {
		printf("san_canary: no error\n");
		return 0;
	}
	fprintf(stderr, "usage: san_canary leak|lib-heap|ub|uninit|ok\n");
	return 2;
}
