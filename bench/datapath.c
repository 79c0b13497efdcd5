/*
 * bench/datapath.c: library CPU cost on the data path, for `make bench` (see docs/bench.md).
 *
 * One process opens two Soft-RoCE devices, connects an RC QP on the first to an RC QP on the second (RoCE v2,
 * IPv4-mapped GIDs) and posts 64-byte RDMA writes from the first to the second, polling the first one's CQ.
 * Every call whose cost is measured goes through one of the bench_* wrappers below, which do nothing but make that
 * one call. Run under
 *
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_* ./datapath ...
 *
 * callgrind counts only the instructions executed inside those wrappers (the library's, and the wrapper's own
 * handful), and `callgrind_annotate --inclusive=yes` gives each wrapper's total. This program prints how many
 * calls each wrapper made and how many work requests / completions they handled, so the per-WR and per-CQE figures
 * are total / count. Without valgrind it runs the same sequence (useful to check that it works).
 *
 * Determinism: posting is measured only on a send queue with room; polling is measured only when every completion
 * of the batch is already in the CQ (we wait for the last write to land in the target buffer, then sleep, without
 * touching the CQ), so no measured poll spins on an empty queue unless the program says so (it prints the number of
 * calls; "empty" counts the calls that returned 0). Empty polls are measured on their own (bench_poll_empty).
 *
 *   datapath [-d DEV0] [-D DEV1] [-g GIDIDX0] [-G GIDIDX1] [-n BATCHES]
 *
 * Output (one line each, key=value, parsed by bench/guest.sh):
 *   datapath: post1 calls=N wrs=N | postlist calls=N wrs=N | poll16 calls=N cqes=N empty=N | poll1 ... | pollempty calls=N
 *   datapath: ok
 * Exit status 0 on success; 1 with a "datapath: FAILED step: reason" line otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MSG 64            /* bytes per RDMA write */
#define BATCH 16          /* WRs per batch */
#define SLOTS 256         /* target buffer slots of MSG bytes; a batch never wraps */
#define NOINLINE __attribute__((noinline, noclone, used))

/* ---- the measured wrappers: one library call each, nothing else ---------------------------------------------- */
NOINLINE struct ibv_device **bench_get_device_list(int *n) { return ibv_get_device_list(n); }
NOINLINE struct ibv_context *bench_open_device(struct ibv_device *d) { return ibv_open_device(d); }
NOINLINE int bench_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}
NOINLINE int bench_post_list(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}
NOINLINE int bench_poll16(struct ibv_cq *cq, int n, struct ibv_wc *wc) { return ibv_poll_cq(cq, n, wc); }
NOINLINE int bench_poll1(struct ibv_cq *cq, struct ibv_wc *wc) { return ibv_poll_cq(cq, 1, wc); }
NOINLINE int bench_poll_empty(struct ibv_cq *cq, int n, struct ibv_wc *wc) { return ibv_poll_cq(cq, n, wc); }

/* The same calls, not measured: warm-up (lazy PLT binding inside the library, first-touch page faults). */
NOINLINE int warm_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}
NOINLINE int warm_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc) { return ibv_poll_cq(cq, n, wc); }

/* ------------------------------------------------------------------------------------------------------------- */
static void die(const char *step, int err)
{
	printf("datapath: FAILED %s: %s\n", step, strerror(err ? err : EIO));
	fflush(stdout);
	exit(1);
}

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf;
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
};

static void setup_side(struct side *s, struct ibv_device *dev, int gid_index, int measured_open)
{
	struct ibv_port_attr pattr;
	struct ibv_qp_init_attr qia;
	struct ibv_qp_attr a;

	s->gid_index = gid_index;
	s->ctx = measured_open ? bench_open_device(dev) : ibv_open_device(dev);
	if (!s->ctx)
		die("ibv_open_device", errno);
	if (ibv_query_port(s->ctx, 1, &pattr))
		die("ibv_query_port", errno);
	s->mtu = pattr.active_mtu;
	if (ibv_query_gid(s->ctx, 1, gid_index, &s->gid))
		die("ibv_query_gid", errno);
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		die("ibv_alloc_pd", errno);
	if (posix_memalign((void **)&s->buf, 4096, SLOTS * MSG))
		die("posix_memalign", ENOMEM);
	memset(s->buf, 0, SLOTS * MSG);
	s->mr = ibv_reg_mr(s->pd, s->buf, SLOTS * MSG,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr)
		die("ibv_reg_mr", errno);
	s->cq = ibv_create_cq(s->ctx, 4 * BATCH, NULL, NULL, 0);
	if (!s->cq)
		die("ibv_create_cq", errno);
	memset(&qia, 0, sizeof(qia));
	qia.send_cq = s->cq;
	qia.recv_cq = s->cq;
	qia.qp_type = IBV_QPT_RC;
	qia.cap.max_send_wr = 2 * BATCH;
	qia.cap.max_recv_wr = 4;
	qia.cap.max_send_sge = 1;
	qia.cap.max_recv_sge = 1;
	s->qp = ibv_create_qp(s->pd, &qia);
	if (!s->qp)
		die("ibv_create_qp", errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE;
	if ((errno = ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)))
		die("ibv_modify_qp(INIT)", errno);
}

static void connect_side(struct side *s, const struct side *peer)
{
	struct ibv_qp_attr a;
	int e;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = s->mtu < peer->mtu ? s->mtu : peer->mtu;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = s->gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	e = ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (e)
		die("ibv_modify_qp(RTR)", e);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	e = ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				  IBV_QP_MAX_QP_RD_ATOMIC);
	if (e)
		die("ibv_modify_qp(RTS)", e);
}

static struct side A, B;               /* A posts RDMA writes into B's buffer */
static struct ibv_sge sges[BATCH];
static struct ibv_send_wr wrs[BATCH];
static uint32_t seq;                    /* sequence number written into each message */

/* Fills WR i of the next batch: 64 bytes from A's slot to B's slot, stamped with a sequence number. */
static void prepare_batch(int chain)
{
	for (int i = 0; i < BATCH; i++) {
		uint32_t n = ++seq;
		unsigned slot = n % SLOTS;
		memcpy(A.buf + slot * MSG, &n, sizeof(n));
		sges[i].addr = (uintptr_t)(A.buf + slot * MSG);
		sges[i].length = MSG;
		sges[i].lkey = A.mr->lkey;
		memset(&wrs[i], 0, sizeof(wrs[i]));
		wrs[i].wr_id = n;
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = 1;
		wrs[i].opcode = IBV_WR_RDMA_WRITE;
		wrs[i].send_flags = IBV_SEND_SIGNALED;
		wrs[i].wr.rdma.remote_addr = (uintptr_t)(B.buf + slot * MSG);
		wrs[i].wr.rdma.rkey = B.mr->rkey;
		wrs[i].next = chain && i + 1 < BATCH ? &wrs[i + 1] : NULL;
	}
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Waits, without touching the CQ, until the last write of the batch has landed in B's buffer, then a little more
 * so that its ACK has produced the requester's completion. At most ~10 s. */
static void wait_landed(void)
{
	volatile uint32_t *last = (volatile uint32_t *)(B.buf + (seq % SLOTS) * MSG);
	for (int i = 0; i < 10000 && *last != seq; i++)
		sleep_ms(1);
	if (*last != seq)
		die("waiting for the RDMA writes to land", ETIMEDOUT);
	sleep_ms(5);
}

static void check_wc(const struct ibv_wc *wc, int n)
{
	for (int i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS) {
			printf("datapath: FAILED completion: %s (wr_id %" PRIu64 ")\n", ibv_wc_status_str(wc[i].status),
			       (uint64_t)wc[i].wr_id);
			exit(1);
		}
}

int main(int argc, char **argv)
{
	const char *dev0 = "rxe0", *dev1 = "rxe1";
	int gid0 = 1, gid1 = 1, batches = 32, opt, ndev, i, b;
	struct ibv_device **list, *d0 = NULL, *d1 = NULL;
	struct ibv_send_wr *bad;
	struct ibv_wc wc[BATCH];
	long post1_calls = 0, post1_wrs = 0, list_calls = 0, list_wrs = 0;
	long p16_calls = 0, p16_cqes = 0, p16_empty = 0, p1_calls = 0, p1_cqes = 0, p1_empty = 0, pe_calls = 0;

	while ((opt = getopt(argc, argv, "d:D:g:G:n:")) != -1) {
		switch (opt) {
		case 'd': dev0 = optarg; break;
		case 'D': dev1 = optarg; break;
		case 'g': gid0 = atoi(optarg); break;
		case 'G': gid1 = atoi(optarg); break;
		case 'n': batches = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-d DEV0] [-D DEV1] [-g GIDIDX0] [-G GIDIDX1] [-n BATCHES]\n", argv[0]);
			return 2;
		}
	}
	if (batches < 4)
		batches = 4;

	list = bench_get_device_list(&ndev);
	if (!list)
		die("ibv_get_device_list", errno);
	for (i = 0; i < ndev; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), dev0))
			d0 = list[i];
		if (!strcmp(ibv_get_device_name(list[i]), dev1))
			d1 = list[i];
	}
	if (!d0 || !d1) {
		printf("datapath: FAILED devices: %s and %s not both found (%d devices)\n", dev0, dev1, ndev);
		return 1;
	}
	setup_side(&A, d0, gid0, 1);
	setup_side(&B, d1, gid1, 0);
	connect_side(&A, &B);
	connect_side(&B, &A);

	/* Warm-up, not measured: both post styles and both poll styles once. */
	for (int chain = 0; chain < 2; chain++) {
		prepare_batch(chain);
		if (chain) {
			if ((errno = warm_post_send(A.qp, &wrs[0], &bad)))
				die("ibv_post_send (warm-up, list)", errno);
		} else {
			for (i = 0; i < BATCH; i++)
				if ((errno = warm_post_send(A.qp, &wrs[i], &bad)))
					die("ibv_post_send (warm-up)", errno);
		}
		wait_landed();
		for (int got = 0, tries = 0; got < BATCH; tries++) {
			int n = warm_poll(A.cq, chain ? 1 : BATCH - got, wc);
			if (n < 0)
				die("ibv_poll_cq (warm-up)", EIO);
			check_wc(wc, n);
			got += n;
			if (tries > 10000)
				die("ibv_poll_cq (warm-up): completions missing", ETIMEDOUT);
			if (!n)
				sleep_ms(1);
		}
	}

	/* Measured: alternate the two post styles, and the two poll styles. */
	for (b = 0; b < batches; b++) {
		int chain = b & 1, one = (b >> 1) & 1;
		prepare_batch(chain);
		if (chain) {
			if ((errno = bench_post_list(A.qp, &wrs[0], &bad)))
				die("ibv_post_send (list)", errno);
			list_calls++;
			list_wrs += BATCH;
		} else {
			for (i = 0; i < BATCH; i++) {
				if ((errno = bench_post_send(A.qp, &wrs[i], &bad)))
					die("ibv_post_send", errno);
				post1_calls++;
				post1_wrs++;
			}
		}
		wait_landed();
		for (int got = 0, tries = 0; got < BATCH; tries++) {
			int n;
			if (one) {
				n = bench_poll1(A.cq, wc);
				p1_calls++;
				p1_cqes += n > 0 ? n : 0;
				p1_empty += n == 0;
			} else {
				n = bench_poll16(A.cq, BATCH - got, wc);
				p16_calls++;
				p16_cqes += n > 0 ? n : 0;
				p16_empty += n == 0;
			}
			if (n < 0)
				die("ibv_poll_cq", EIO);
			check_wc(wc, n);
			got += n;
			if (tries > 10000)
				die("ibv_poll_cq: completions missing", ETIMEDOUT);
			if (!n)
				sleep_ms(1);
		}
		/* The CQ is empty now: measure polls that find nothing. */
		for (i = 0; i < 4; i++) {
			int n = bench_poll_empty(A.cq, BATCH, wc);
			pe_calls++;
			if (n != 0)
				die("ibv_poll_cq (empty CQ returned a completion)", EIO);
		}
	}

	printf("datapath: post1 calls=%ld wrs=%ld | postlist calls=%ld wrs=%ld | poll16 calls=%ld cqes=%ld empty=%ld"
	       " | poll1 calls=%ld cqes=%ld empty=%ld | pollempty calls=%ld | open calls=1 | devlist calls=1\n",
	       post1_calls, post1_wrs, list_calls, list_wrs, p16_calls, p16_cqes, p16_empty, p1_calls, p1_cqes,
	       p1_empty, pe_calls);

	ibv_destroy_qp(A.qp);
	ibv_destroy_qp(B.qp);
	ibv_destroy_cq(A.cq);
	ibv_destroy_cq(B.cq);
	ibv_dereg_mr(A.mr);
	ibv_dereg_mr(B.mr);
	ibv_dealloc_pd(A.pd);
	ibv_dealloc_pd(B.pd);
	ibv_close_device(A.ctx);
	ibv_close_device(B.ctx);
	ibv_free_device_list(list);
	printf("datapath: ok\n");
	return 0;
}
