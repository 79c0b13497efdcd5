/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * What bench/datapath.c, bench/memory.c and bench/objects.c share: how a failed step is reported (one line
 * "<prog>: FAILED <step>: <strerror>" that bench/guest.sh looks for, then exit 1) and finding a device by name.
 * Define BENCH_PROG (the program's name, a string) before including this file.
 */
#ifndef BENCH_BENCHUTIL_H
#define BENCH_BENCHUTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#endif
