/*
 * bench/memory.c: resident memory and library heap per verbs object, for `make bench` (see docs/bench.md).
 *
 * Measures, around each step, the process's resident set (Rss of /proc/self/smaps_rollup: benchutil.h's rss_bytes,
 * not statm, which lags on kernels before 6.2; this includes the queue rings the kernel maps into the process once
 * they are touched) and the malloc heap in use (mallinfo2():
 * uordblks + hblkhd, i.e. bytes handed out by malloc from the arena plus those in mmapped chunks). Our libraries
 * allocate with the system malloc, so the same counter sees both implementations.
 *
 *   startup   ibv_get_device_list + the first ibv_open_device (one-time costs: provider loading, sysfs, netlink)
 *   context   each further ibv_open_device of the same device (N of them)
 *   pd        ibv_alloc_pd (N)
 *   cq        ibv_create_cq with 256 entries (N)
 *   qp        ibv_create_qp, RC, 256 send + 256 recv WRs, 1 SGE (N, sharing one CQ)
 *   mr        ibv_reg_mr of 64 bytes, local write (N)
 *   srq       ibv_create_srq, 256 WRs, 1 SGE (N)
 *   ah        ibv_create_ah to the port's own GID at index GIDIDX (RoCE needs the GRH) (N)
 *
 * Library heap includes what each library keeps to know its live objects (ours: one registry entry per object,
 * in a hash table that grows by doubling, so a step that crosses a doubling is charged for it; docs/bench.md).
 *
 *   memory [-d DEV] [-n N] [-g GIDIDX]
 *
 * Output, one line per step, parsed by bench/guest.sh:
 *   memory: step=cq count=32 rss_bytes=... heap_bytes=...      (totals for the step; divide by count)
 *   memory: ok
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define BENCH_PROG "memory"
#include "benchutil.h"

#define MAXN 256

struct snap {
	long rss;  /* bytes */
	long heap; /* bytes */
};

static struct snap snap(void)
{
	struct snap s = { 0, 0 };
	s.rss = rss_bytes();
	struct mallinfo2 mi = mallinfo2();
	s.heap = (long)(mi.uordblks + mi.hblkhd);
	return s;
}

static void report(const char *step, int count, struct snap a, struct snap b)
{
	printf("memory: step=%s count=%d rss_bytes=%ld heap_bytes=%ld\n", step, count, b.rss - a.rss, b.heap - a.heap);
}

int main(int argc, char **argv)
{
	const char *devname = "rxe0";
	int n = 32, opt, ndev, i;
	struct ibv_device **list, *dev = NULL;
	static struct ibv_context *ctxs[MAXN];
	static struct ibv_pd *pds[MAXN];
	static struct ibv_cq *cqs[MAXN];
	static struct ibv_qp *qps[MAXN];
	static struct ibv_mr *mrs[MAXN];
	static struct ibv_srq *srqs[MAXN];
	static struct ibv_ah *ahs[MAXN];
	static char mrbuf[MAXN][64];
	struct ibv_port_attr pattr;
	int gid_index = 1;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *qpcq;
	struct snap a, b;

	while ((opt = getopt(argc, argv, "d:n:g:")) != -1) {
		switch (opt) {
		case 'd': devname = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-n N] [-g GIDIDX]\n", argv[0]);
			return 2;
		}
	}
	if (n < 1 || n > MAXN)
		n = 32;

	/* Touch stdio and the heap once so their own first-use costs are not charged to the library. */
	printf("memory: n=%d dev=%s\n", n, devname);
	free(malloc(1));
	snap();

	a = snap();
	list = ibv_get_device_list(&ndev);
	if (!list)
		die("ibv_get_device_list", errno);
	dev = device_named(list, ndev, devname);
	if (!dev)
		die("device not found", ENODEV);
	ctx = ibv_open_device(dev);
	if (!ctx)
		die("ibv_open_device", errno);
	b = snap();
	report("startup", 1, a, b);

	a = snap();
	for (i = 0; i < n; i++)
		if (!(ctxs[i] = ibv_open_device(dev)))
			die("ibv_open_device (more)", errno);
	b = snap();
	report("context", n, a, b);

	a = snap();
	for (i = 0; i < n; i++)
		if (!(pds[i] = ibv_alloc_pd(ctx)))
			die("ibv_alloc_pd", errno);
	b = snap();
	report("pd", n, a, b);
	pd = pds[0];

	a = snap();
	for (i = 0; i < n; i++)
		if (!(cqs[i] = ibv_create_cq(ctx, 256, NULL, NULL, 0)))
			die("ibv_create_cq", errno);
	b = snap();
	report("cq", n, a, b);
	qpcq = cqs[0];

	a = snap();
	for (i = 0; i < n; i++) {
		struct ibv_qp_init_attr qia;
		memset(&qia, 0, sizeof(qia));
		qia.send_cq = qpcq;
		qia.recv_cq = qpcq;
		qia.qp_type = IBV_QPT_RC;
		qia.cap.max_send_wr = 256;
		qia.cap.max_recv_wr = 256;
		qia.cap.max_send_sge = 1;
		qia.cap.max_recv_sge = 1;
		if (!(qps[i] = ibv_create_qp(pd, &qia)))
			die("ibv_create_qp", errno);
	}
	b = snap();
	report("qp", n, a, b);

	a = snap();
	for (i = 0; i < n; i++)
		if (!(mrs[i] = ibv_reg_mr(pd, mrbuf[i], sizeof(mrbuf[i]), IBV_ACCESS_LOCAL_WRITE)))
			die("ibv_reg_mr", errno);
	b = snap();
	report("mr", n, a, b);

	a = snap();
	for (i = 0; i < n; i++) {
		struct ibv_srq_init_attr sia;
		memset(&sia, 0, sizeof(sia));
		sia.attr.max_wr = 256;
		sia.attr.max_sge = 1;
		if (!(srqs[i] = ibv_create_srq(pd, &sia)))
			die("ibv_create_srq", errno);
	}
	b = snap();
	report("srq", n, a, b);

	/* Address handles to the port's own GID (RoCE: a GRH is required). */
	if (ibv_query_port(ctx, 1, &pattr))
		die("ibv_query_port", errno);
	a = snap();
	for (i = 0; i < n; i++) {
		struct ibv_ah_attr aha;
		memset(&aha, 0, sizeof(aha));
		aha.port_num = 1;
		aha.dlid = pattr.lid;
		if (pattr.link_layer == IBV_LINK_LAYER_ETHERNET) {
			aha.is_global = 1;
			aha.grh.sgid_index = gid_index;
			aha.grh.hop_limit = 1;
			if (ibv_query_gid(ctx, 1, gid_index, &aha.grh.dgid))
				die("ibv_query_gid", errno);
		}
		if (!(ahs[i] = ibv_create_ah(pd, &aha)))
			die("ibv_create_ah", errno);
	}
	b = snap();
	report("ah", n, a, b);

	for (i = 0; i < n; i++)
		ibv_destroy_ah(ahs[i]);
	for (i = 0; i < n; i++)
		ibv_destroy_srq(srqs[i]);
	for (i = 0; i < n; i++)
		ibv_dereg_mr(mrs[i]);
	for (i = 0; i < n; i++)
		ibv_destroy_qp(qps[i]);
	for (i = 0; i < n; i++)
		ibv_destroy_cq(cqs[i]);
	for (i = 0; i < n; i++)
		ibv_dealloc_pd(pds[i]);
	for (i = 0; i < n; i++)
		ibv_close_device(ctxs[i]);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("memory: ok\n");
	return 0;
}
