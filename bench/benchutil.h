/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * What bench/datapath.c, bench/memory.c and bench/objects.c share: how a failed step is reported (one line
 * "<prog>: FAILED <step>: <strerror>" that bench/guest.sh looks for, then exit 1), finding a device by name and
 * reading the process's resident set.
 * Define BENCH_PROG (the program's name, a string) before including this file.
 */
#ifndef BENCH_BENCHUTIL_H
#define BENCH_BENCHUTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#ifndef BENCH_PROG
#error "define BENCH_PROG before including benchutil.h"
#endif

/* Reports step `step` failed with errno `err` (EIO if 0) and ends the program with status 1. */
static void die(const char *step, int err)
{
	printf(BENCH_PROG ": FAILED %s: %s\n", step, strerror(err ? err : EIO));
	fflush(stdout);
	exit(1);
}

/* The device called `name` among the `n` devices of `list`, or NULL. */
static struct ibv_device *device_named(struct ibv_device **list, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
	return NULL;
}

/* The resident set from /proc/self/smaps_rollup (a walk of the page tables). Not /proc/self/statm: on kernels before
 * 6.2 its counters are kept per thread and folded into the process's only every 64 page faults, so a reading can
 * miss megabytes of pages faulted just before (fault-around maps up to 16 pages a fault); that showed as a
 * one-time ~2 MB "growth" over our first 1,000 CM ids in bench/objects.c (docs/bench.md, "Plug-in and scale rows").
 * statm is the fallback when smaps_rollup is missing. */
__attribute__((unused)) static long rss_bytes(void)
{
	long size = 0, res = 0, kb = -1, v;
	char line[256];
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "Rss: %ld kB", &v) == 1)
				kb = v;
		fclose(f);
		if (kb >= 0)
			return kb * 1024;
	}
	f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%ld %ld", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * sysconf(_SC_PAGESIZE);
}

#endif
