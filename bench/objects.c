/*
 * bench/objects.c: control-path cost per verbs object, and the same at scale, for `make bench` (docs/bench.md).
 *
 * Two modes.
 *
 * Instruction counts (default; run under callgrind like bench/datapath.c, --toggle-collect='bench_*'): the first
 * ibv_open_device of DEV (after ibv_get_device_list, not measured), then one warm-up cycle through unmeasured twin
 * wrappers (lazy PLT binding, first-touch faults) and N measured cycles of
 *
 *   bench_create_cq    ibv_create_cq, 64 CQEs
 *   bench_create_qp    ibv_create_qp, RC, 64 send + 64 recv WRs, 1 SGE, on that CQ
 *   bench_reg_mr       ibv_reg_mr of 4 KiB, local write + remote read/write
 *   bench_modify_rts   ibv_modify_qp RESET->INIT, INIT->RTR, RTR->RTS (three calls; the figure is per QP)
 *   bench_dereg_mr     ibv_dereg_mr
 *   bench_destroy_qp   ibv_destroy_qp
 *   bench_destroy_cq   ibv_destroy_cq
 *
 * RTR needs a remote: a made-up QPN (0x1234 + cycle) and the port's own GID at GIDIDX (a GID of this host, so the
 * kernel resolves its MAC at once; nothing is ever sent). Output:
 *   objects: open_device=1 create_cq=N create_qp=N reg_mr=N modify_rts=N dereg_mr=N destroy_qp=N destroy_cq=N
 *   objects: ok
 *
 * Scale (-s qp or -s cm): wall time (CLOCK_MONOTONIC), resident set (/proc/self/smaps_rollup) and malloc heap in use
 * (mallinfo2, as bench/memory.c) per object; the arrays of handles are allocated before the phase starts.
 *   -s qp -n N   N CQs of 16 CQEs and N RC QPs of 16+16 WRs (one CQ each); then each QP RESET->INIT->RTR->RTS as
 *                above (connect-free); then every QP and CQ destroyed. Phases create, rts, destroy.
 *   -s cm -n N   N rdma_create_id (RDMA_PS_TCP) on one event channel; then N rdma_destroy_id. Phases create,
 *                destroy.
 * Output, one line per phase (totals; divide by count), then the resident growth over the create phase:
 *   objects: scale=qp phase=create count=N usec=... rss_bytes=... heap_bytes=...
 *   objects: ok
 *
 *   objects [-d DEV] [-g GIDIDX] [-n N] [-s qp|cm]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define BENCH_PROG "objects"
#include "benchutil.h"
#include <rdma/rdma_cma.h>

#define NOINLINE __attribute__((noinline, noclone, used))
#define MRLEN 4096

/* ---- the measured wrappers (one library call each, or the three modify calls) ------------------------------ */
NOINLINE struct ibv_context *bench_open_device(struct ibv_device *d) { return ibv_open_device(d); }
NOINLINE struct ibv_cq *bench_create_cq(struct ibv_context *c, int cqe) { return ibv_create_cq(c, cqe, NULL, NULL, 0); }
NOINLINE struct ibv_qp *bench_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a) { return ibv_create_qp(pd, a); }
NOINLINE struct ibv_mr *bench_reg_mr(struct ibv_pd *pd, void *buf, size_t len, int acc)
{
	return ibv_reg_mr(pd, buf, len, acc);
}
NOINLINE int bench_dereg_mr(struct ibv_mr *mr) { return ibv_dereg_mr(mr); }
NOINLINE int bench_destroy_qp(struct ibv_qp *qp) { return ibv_destroy_qp(qp); }
NOINLINE int bench_destroy_cq(struct ibv_cq *cq) { return ibv_destroy_cq(cq); }

/* unmeasured twins (warm-up, and the scale mode) */
NOINLINE struct ibv_cq *warm_create_cq(struct ibv_context *c, int cqe) { return ibv_create_cq(c, cqe, NULL, NULL, 0); }
NOINLINE struct ibv_qp *warm_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a) { return ibv_create_qp(pd, a); }
NOINLINE struct ibv_mr *warm_reg_mr(struct ibv_pd *pd, void *buf, size_t len, int acc)
{
	return ibv_reg_mr(pd, buf, len, acc);
}
NOINLINE int warm_dereg_mr(struct ibv_mr *mr) { return ibv_dereg_mr(mr); }
NOINLINE int warm_destroy_qp(struct ibv_qp *qp) { return ibv_destroy_qp(qp); }
NOINLINE int warm_destroy_cq(struct ibv_cq *cq) { return ibv_destroy_cq(cq); }

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gid_index = 1;
static enum ibv_mtu mtu;

/* RESET->INIT->RTR->RTS against a made-up remote QPN and this port's own GID; 0 or the failing step's errno. */
static int to_rts(struct ibv_qp *qp, uint32_t remote_qpn, const char **step)
{
	struct ibv_qp_attr a;
	int e;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	*step = "ibv_modify_qp(INIT)";
	if ((e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)))
		return e;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = remote_qpn & 0xffffff;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	*step = "ibv_modify_qp(RTR)";
	if ((e = ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
		return e;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	*step = "ibv_modify_qp(RTS)";
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

NOINLINE int bench_modify_rts(struct ibv_qp *qp, uint32_t remote_qpn, const char **step)
{
	return to_rts(qp, remote_qpn, step);
}
NOINLINE int warm_modify_rts(struct ibv_qp *qp, uint32_t remote_qpn, const char **step)
{
	return to_rts(qp, remote_qpn, step);
}

static void qp_attr(struct ibv_qp_init_attr *qia, struct ibv_cq *cq, int wrs)
{
	memset(qia, 0, sizeof(*qia));
	qia->send_cq = cq;
	qia->recv_cq = cq;
	qia->qp_type = IBV_QPT_RC;
	qia->cap.max_send_wr = wrs;
	qia->cap.max_recv_wr = wrs;
	qia->cap.max_send_sge = 1;
	qia->cap.max_recv_sge = 1;
}

static void open_dev(const char *devname, int measured)
{
	struct ibv_device **list, *dev = NULL;
	struct ibv_port_attr pattr;
	int ndev;

	list = ibv_get_device_list(&ndev);
	if (!list)
		die("ibv_get_device_list", errno);
	dev = device_named(list, ndev, devname);
	if (!dev)
		die("device not found", ENODEV);
	ctx = measured ? bench_open_device(dev) : ibv_open_device(dev);
	if (!ctx)
		die("ibv_open_device", errno);
	if (ibv_query_port(ctx, 1, &pattr))
		die("ibv_query_port", errno);
	mtu = pattr.active_mtu;
	if (ibv_query_gid(ctx, 1, gid_index, &gid))
		die("ibv_query_gid", errno);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd", errno);
	/* the list stays allocated until exit: ctx keeps its device */
}

/* One cycle of the instruction-count mode; measure=0 is the warm-up. */
static void cycle(int measure, int i, void *buf)
{
	struct ibv_qp_init_attr qia;
	const char *step = "";
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, e;

	if (!(cq = measure ? bench_create_cq(ctx, 64) : warm_create_cq(ctx, 64)))
		die("ibv_create_cq", errno);
	qp_attr(&qia, cq, 64);
	if (!(qp = measure ? bench_create_qp(pd, &qia) : warm_create_qp(pd, &qia)))
		die("ibv_create_qp", errno);
	if (!(mr = measure ? bench_reg_mr(pd, buf, MRLEN, acc) : warm_reg_mr(pd, buf, MRLEN, acc)))
		die("ibv_reg_mr", errno);
	if ((e = measure ? bench_modify_rts(qp, 0x1234 + i, &step) : warm_modify_rts(qp, 0x1234 + i, &step)))
		die(step, e);
	if ((e = measure ? bench_dereg_mr(mr) : warm_dereg_mr(mr)))
		die("ibv_dereg_mr", e);
	if ((e = measure ? bench_destroy_qp(qp) : warm_destroy_qp(qp)))
		die("ibv_destroy_qp", e);
	if ((e = measure ? bench_destroy_cq(cq) : warm_destroy_cq(cq)))
		die("ibv_destroy_cq", e);
}

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static long heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();
	return (long)(mi.uordblks + mi.hblkhd);
}

static long h0; /* heap at the start of the phase (set with r0) */

static void phase(const char *scale, const char *name, int n, long long t0, long r0)
{
	long long t1 = now_us();
	printf("objects: scale=%s phase=%s count=%d usec=%lld rss_bytes=%ld heap_bytes=%ld\n", scale, name, n,
	       t1 - t0, rss_bytes() - r0, heap_bytes() - h0);
	fflush(stdout);
}

static void scale_qp(int n)
{
	struct ibv_cq **cqs = calloc(n, sizeof(*cqs));
	struct ibv_qp **qps = calloc(n, sizeof(*qps));
	struct ibv_qp_init_attr qia;
	const char *step = "";
	long long t0;
	long r0;
	int i, e;

	if (!cqs || !qps)
		die("calloc", ENOMEM);
	/* one object of each kind first, not counted: the libraries' first-use costs */
	{
		struct ibv_cq *cq = warm_create_cq(ctx, 16);
		struct ibv_qp *qp;
		if (!cq)
			die("ibv_create_cq (first)", errno);
		qp_attr(&qia, cq, 16);
		if (!(qp = warm_create_qp(pd, &qia)))
			die("ibv_create_qp (first)", errno);
		if ((e = warm_modify_rts(qp, 0x1233, &step)))
			die(step, e);
		warm_destroy_qp(qp);
		warm_destroy_cq(cq);
	}
	h0 = heap_bytes();
	r0 = rss_bytes();
	t0 = now_us();
	for (i = 0; i < n; i++) {
		if (!(cqs[i] = warm_create_cq(ctx, 16))) {
			printf("objects: at %d of %d:\n", i, n);
			die("ibv_create_cq", errno);
		}
		qp_attr(&qia, cqs[i], 16);
		if (!(qps[i] = warm_create_qp(pd, &qia))) {
			printf("objects: at %d of %d:\n", i, n);
			die("ibv_create_qp", errno);
		}
	}
	phase("qp", "create", n, t0, r0);
	h0 = heap_bytes();
	r0 = rss_bytes();
	t0 = now_us();
	for (i = 0; i < n; i++)
		if ((e = warm_modify_rts(qps[i], 0x100000 + i, &step))) {
			printf("objects: at %d of %d:\n", i, n);
			die(step, e);
		}
	phase("qp", "rts", n, t0, r0);
	h0 = heap_bytes();
	r0 = rss_bytes();
	t0 = now_us();
	for (i = 0; i < n; i++) {
		if ((e = warm_destroy_qp(qps[i])))
			die("ibv_destroy_qp", e);
		if ((e = warm_destroy_cq(cqs[i])))
			die("ibv_destroy_cq", e);
	}
	phase("qp", "destroy", n, t0, r0);
	free(cqs);
	free(qps);
}

static void scale_cm(int n)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id **ids = calloc(n, sizeof(*ids)), *first;
	long long t0;
	long r0;
	int i;

	if (!ch)
		die("rdma_create_event_channel", errno);
	if (!ids)
		die("calloc", ENOMEM);
	if (rdma_create_id(ch, &first, NULL, RDMA_PS_TCP))
		die("rdma_create_id (first)", errno);
	rdma_destroy_id(first);
	h0 = heap_bytes();
	r0 = rss_bytes();
	t0 = now_us();
	for (i = 0; i < n; i++)
		if (rdma_create_id(ch, &ids[i], NULL, RDMA_PS_TCP)) {
			printf("objects: at %d of %d:\n", i, n);
			die("rdma_create_id", errno);
		}
	phase("cm", "create", n, t0, r0);
	h0 = heap_bytes();
	r0 = rss_bytes();
	t0 = now_us();
	for (i = 0; i < n; i++)
		if (rdma_destroy_id(ids[i]))
			die("rdma_destroy_id", errno);
	phase("cm", "destroy", n, t0, r0);
	rdma_destroy_event_channel(ch);
	free(ids);
}

int main(int argc, char **argv)
{
	const char *devname = "rxe0", *scale = NULL;
	int n = 16, opt, i;
	void *buf;

	while ((opt = getopt(argc, argv, "d:g:n:s:")) != -1) {
		switch (opt) {
		case 'd': devname = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 's': scale = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-g GIDIDX] [-n N] [-s qp|cm]\n", argv[0]);
			return 2;
		}
	}
	if (n < 1)
		n = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (scale && !strcmp(scale, "cm")) {
		scale_cm(n);
		printf("objects: ok\n");
		return 0;
	}
	open_dev(devname, !scale);
	if (scale) {
		if (strcmp(scale, "qp")) {
			fprintf(stderr, "%s: -s takes qp or cm\n", argv[0]);
			return 2;
		}
		scale_qp(n);
		printf("objects: ok\n");
		return 0;
	}
	if (posix_memalign(&buf, 4096, MRLEN))
		die("posix_memalign", ENOMEM);
	memset(buf, 0, MRLEN);
	cycle(0, 0, buf);
	for (i = 1; i <= n; i++)
		cycle(1, i, buf);
	printf("objects: open_device=1 create_cq=%d create_qp=%d reg_mr=%d modify_rts=%d dereg_mr=%d destroy_qp=%d"
	       " destroy_cq=%d\n", n, n, n, n, n, n, n);
	printf("objects: ok\n");
	return 0;
}
