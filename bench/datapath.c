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
 *   datapath [-d DEV0] [-D DEV1] [-g GIDIDX0] [-G GIDIDX1] [-n BATCHES] [-x] [-c ADDR0,ADDR1]
 *
 * -x adds the extended rows, each in its own phase after the main one: ibv_post_recv (1 WR per call) and UD sends
 *    with an AH (1 WR per call) on a pair of UD QPs, whose receive completions are reaped through the ibv_cq_ex
 *    API (ibv_start_poll / ibv_next_poll / ibv_end_poll, per CQE); and the ibv_qp_ex API (ibv_wr_start,
 *    ibv_wr_rdma_write + ibv_wr_set_sge per WR, ibv_wr_complete; 16 WRs per batch) on the RC pair.
 * -c connects the RC pair through librdmacm instead (iWARP needs it: Soft-iWARP's siw0/siw1): DEV0's QP is the
 *    passive side, listening on ADDR0; DEV1's is the active side, bound to ADDR1. The device list is then
 *    librdmacm's business, so bench_get_device_list / bench_open_device are not measured (reported as 0 calls).
 *
 * Output (one line each, key=value, parsed by bench/guest.sh):
 *   datapath: post1 calls=N wrs=N | postlist calls=N wrs=N | poll16 calls=N cqes=N empty=N | poll1 ... | pollempty calls=N
 *             | open calls=N | devlist calls=N [| postrecv calls=N wrs=N | postud calls=N wrs=N | wrapi wrs=N
 *             | pollex cqes=N empty=N]
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

#define BENCH_PROG "datapath"
#include "benchutil.h"
#include <netdb.h>
#include <rdma/rdma_cma.h>

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

/* The extended rows (-x). */
NOINLINE int bench_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	return ibv_post_recv(qp, wr, bad);
}
NOINLINE int bench_post_send_ud(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}
NOINLINE void bench_wr_start(struct ibv_qp_ex *qpx) { ibv_wr_start(qpx); }
NOINLINE void bench_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr)
{
	ibv_wr_rdma_write(qpx, rkey, raddr);
}
NOINLINE void bench_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t len)
{
	ibv_wr_set_sge(qpx, lkey, addr, len);
}
NOINLINE int bench_wr_complete(struct ibv_qp_ex *qpx) { return ibv_wr_complete(qpx); }
NOINLINE int bench_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr) { return ibv_start_poll(cq, attr); }
NOINLINE int bench_next_poll(struct ibv_cq_ex *cq) { return ibv_next_poll(cq); }
NOINLINE void bench_end_poll(struct ibv_cq_ex *cq) { ibv_end_poll(cq); }

/* The same calls, not measured: warm-up (lazy PLT binding inside the library, first-touch page faults). */
NOINLINE int warm_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}
NOINLINE int warm_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc) { return ibv_poll_cq(cq, n, wc); }

/* ------------------------------------------------------------------------------------------------------------- */
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

/* PD, buffer, MR and CQ on s->ctx; the QP is made by the caller (verbs or rdma_cm). */
static void setup_resources(struct side *s, int gid_index)
{
	struct ibv_port_attr pattr;

	s->gid_index = gid_index;
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
}

static void rc_init_attr(struct side *s, struct ibv_qp_init_attr_ex *qia, int ex)
{
	memset(qia, 0, sizeof(*qia));
	qia->send_cq = s->cq;
	qia->recv_cq = s->cq;
	qia->qp_type = IBV_QPT_RC;
	qia->cap.max_send_wr = 2 * BATCH;
	qia->cap.max_recv_wr = 4;
	qia->cap.max_send_sge = 1;
	qia->cap.max_recv_sge = 1;
	qia->comp_mask = IBV_QP_INIT_ATTR_PD;
	qia->pd = s->pd;
	if (ex) {
		qia->comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qia->send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	}
}

static void setup_side(struct side *s, struct ibv_device *dev, int gid_index, int measured_open, int ex)
{
	struct ibv_qp_init_attr_ex qia;
	struct ibv_qp_attr a;

	s->ctx = measured_open ? bench_open_device(dev) : ibv_open_device(dev);
	if (!s->ctx)
		die("ibv_open_device", errno);
	setup_resources(s, gid_index);
	rc_init_attr(s, &qia, ex);
	s->qp = ibv_create_qp_ex(s->ctx, &qia);
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

/* ---- -c: the RC pair connected through librdmacm (A passive on ADDR0, B active from ADDR1) ----------------- */
static struct rdma_event_channel *cm_ch;
static struct rdma_cm_id *cm_listen, *cm_a, *cm_b;

static struct rdma_cm_event *cm_wait(enum rdma_cm_event_type want, const char *step)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(cm_ch, &ev))
		die(step, errno);
	if (ev->event != want) {
		printf("datapath: FAILED %s: event %s (status %d)\n", step, rdma_event_str(ev->event), ev->status);
		exit(1);
	}
	return ev;
}

static void cm_addr(const char *ip, int port, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_flags = AI_NUMERICHOST }, *res;
	char p[16];

	snprintf(p, sizeof(p), "%d", port);
	if (getaddrinfo(ip, p, &hints, &res))
		die("getaddrinfo", EINVAL);
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
}

static void cm_connect_pair(const char *addr0, const char *addr1)
{
	struct sockaddr_storage l, src, dst;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr_ex qx;
	struct ibv_qp_init_attr qia;
	struct rdma_cm_event *ev;
	int port = 7471 + (getpid() % 1000), established = 0;

	cm_ch = rdma_create_event_channel();
	if (!cm_ch)
		die("rdma_create_event_channel", errno);
	if (rdma_create_id(cm_ch, &cm_listen, NULL, RDMA_PS_TCP) || rdma_create_id(cm_ch, &cm_b, NULL, RDMA_PS_TCP))
		die("rdma_create_id", errno);
	cm_addr(addr0, port, &l);
	if (rdma_bind_addr(cm_listen, (struct sockaddr *)&l) || rdma_listen(cm_listen, 1))
		die("rdma_bind_addr/rdma_listen", errno);
	cm_addr(addr1, 0, &src);
	cm_addr(addr0, port, &dst);
	if (rdma_resolve_addr(cm_b, (struct sockaddr *)&src, (struct sockaddr *)&dst, 5000))
		die("rdma_resolve_addr", errno);
	rdma_ack_cm_event(cm_wait(RDMA_CM_EVENT_ADDR_RESOLVED, "rdma_resolve_addr"));
	if (rdma_resolve_route(cm_b, 5000))
		die("rdma_resolve_route", errno);
	rdma_ack_cm_event(cm_wait(RDMA_CM_EVENT_ROUTE_RESOLVED, "rdma_resolve_route"));

	B.ctx = cm_b->verbs;
	setup_resources(&B, 0);
	rc_init_attr(&B, &qx, 0);
	memset(&qia, 0, sizeof(qia));
	qia.send_cq = qx.send_cq, qia.recv_cq = qx.recv_cq, qia.qp_type = qx.qp_type, qia.cap = qx.cap;
	if (rdma_create_qp(cm_b, B.pd, &qia))
		die("rdma_create_qp (active)", errno);
	B.qp = cm_b->qp;
	memset(&param, 0, sizeof(param));
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(cm_b, &param))
		die("rdma_connect", errno);

	ev = cm_wait(RDMA_CM_EVENT_CONNECT_REQUEST, "waiting for the connect request");
	cm_a = ev->id;
	rdma_ack_cm_event(ev);
	A.ctx = cm_a->verbs;
	setup_resources(&A, 0);
	rc_init_attr(&A, &qx, 0);
	qia.send_cq = A.cq, qia.recv_cq = A.cq;
	if (rdma_create_qp(cm_a, A.pd, &qia))
		die("rdma_create_qp (passive)", errno);
	A.qp = cm_a->qp;
	if (rdma_accept(cm_a, &param))
		die("rdma_accept", errno);
	while (established < 2) {
		rdma_ack_cm_event(cm_wait(RDMA_CM_EVENT_ESTABLISHED, "waiting for ESTABLISHED"));
		established++;
	}
}

/* ---- -x: UD pair (U0 sends with an AH, U1 receives; its CQ is an ibv_cq_ex) ------------------------------- */
#define QKEY 0x11111111
#define UDBUF (40 + MSG)                /* GRH + message */
static struct {
	struct ibv_qp *qp0, *qp1;
	struct ibv_cq *cq0;
	struct ibv_cq_ex *cq1;
	struct ibv_ah *ah;
	struct ibv_mr *mr0, *mr1;
	unsigned char *buf0, *buf1;     /* buf1: SLOTS receive slots of UDBUF bytes */
} U;

static struct ibv_qp *ud_qp(struct side *s, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr qia;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;

	memset(&qia, 0, sizeof(qia));
	qia.send_cq = cq;
	qia.recv_cq = cq;
	qia.qp_type = IBV_QPT_UD;
	qia.cap.max_send_wr = 2 * BATCH;
	qia.cap.max_recv_wr = 2 * BATCH;
	qia.cap.max_send_sge = 1;
	qia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(s->pd, &qia);
	if (!qp)
		die("ibv_create_qp(UD)", errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = QKEY;
	if ((errno = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)))
		die("ibv_modify_qp(UD INIT)", errno);
	a.qp_state = IBV_QPS_RTR;
	if ((errno = ibv_modify_qp(qp, &a, IBV_QP_STATE)))
		die("ibv_modify_qp(UD RTR)", errno);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if ((errno = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)))
		die("ibv_modify_qp(UD RTS)", errno);
	return qp;
}

static void setup_ud(void)
{
	struct ibv_cq_init_attr_ex cqa;
	struct ibv_ah_attr ah;

	U.cq0 = ibv_create_cq(A.ctx, 4 * BATCH, NULL, NULL, 0);
	memset(&cqa, 0, sizeof(cqa));
	cqa.cqe = 4 * BATCH;
	cqa.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	U.cq1 = ibv_create_cq_ex(B.ctx, &cqa);
	if (!U.cq0 || !U.cq1)
		die("ibv_create_cq(_ex) (UD)", errno);
	U.qp0 = ud_qp(&A, U.cq0);
	U.qp1 = ud_qp(&B, ibv_cq_ex_to_cq(U.cq1));
	if (posix_memalign((void **)&U.buf0, 4096, SLOTS * MSG) || posix_memalign((void **)&U.buf1, 4096, SLOTS * UDBUF))
		die("posix_memalign", ENOMEM);
	memset(U.buf0, 0, SLOTS * MSG);
	memset(U.buf1, 0, SLOTS * UDBUF);
	U.mr0 = ibv_reg_mr(A.pd, U.buf0, SLOTS * MSG, IBV_ACCESS_LOCAL_WRITE);
	U.mr1 = ibv_reg_mr(B.pd, U.buf1, SLOTS * UDBUF, IBV_ACCESS_LOCAL_WRITE);
	if (!U.mr0 || !U.mr1)
		die("ibv_reg_mr (UD)", errno);
	memset(&ah, 0, sizeof(ah));
	ah.is_global = 1;
	ah.grh.dgid = B.gid;
	ah.grh.sgid_index = A.gid_index;
	ah.grh.hop_limit = 1;
	ah.port_num = 1;
	U.ah = ibv_create_ah(A.pd, &ah);
	if (!U.ah)
		die("ibv_create_ah", errno);
}

/* Drains up to n completions of cq without measuring (waiting at most ~10 s). */
static void drain(struct ibv_cq *cq, int n, const char *what)
{
	struct ibv_wc wc[BATCH];

	for (int got = 0, tries = 0; got < n; tries++) {
		int k = warm_poll(cq, n - got > BATCH ? BATCH : n - got, wc);
		if (k < 0)
			die(what, EIO);
		check_wc(wc, k);
		got += k;
		if (tries > 10000)
			die(what, ETIMEDOUT);
		if (!k)
			sleep_ms(1);
	}
}

struct ext_counts {
	long recv_calls, recv_wrs, ud_calls, ud_wrs, wr_wrs, pex_cqes, pex_empty;
};

/* One batch of the UD phase: 16 receives posted (1 per call), 16 UD sends (1 per call), then the receive CQEs
 * reaped through the cq_ex API once all have landed. measure=0 is the warm-up. */
static void ud_batch(int measure, struct ext_counts *c)
{
	static uint32_t useq;
	struct ibv_sge rs[BATCH], ss[BATCH];
	struct ibv_recv_wr rw[BATCH], *rbad;
	struct ibv_send_wr sw[BATCH], *sbad;
	struct ibv_poll_cq_attr pa = { 0 };
	uint32_t first = useq + 1;
	int i, got = 0, rc;

	for (i = 0; i < BATCH; i++) {
		unsigned slot = (first + i) % SLOTS;
		rs[i].addr = (uintptr_t)(U.buf1 + slot * UDBUF);
		rs[i].length = UDBUF;
		rs[i].lkey = U.mr1->lkey;
		memset(&rw[i], 0, sizeof(rw[i]));
		rw[i].wr_id = first + i;
		rw[i].sg_list = &rs[i];
		rw[i].num_sge = 1;
		if ((errno = measure ? bench_post_recv(U.qp1, &rw[i], &rbad) : ibv_post_recv(U.qp1, &rw[i], &rbad)))
			die("ibv_post_recv", errno);
		if (measure)
			c->recv_calls++, c->recv_wrs++;
	}
	for (i = 0; i < BATCH; i++) {
		uint32_t n = ++useq;
		unsigned slot = n % SLOTS;
		memcpy(U.buf0 + slot * MSG, &n, sizeof(n));
		ss[i].addr = (uintptr_t)(U.buf0 + slot * MSG);
		ss[i].length = MSG;
		ss[i].lkey = U.mr0->lkey;
		memset(&sw[i], 0, sizeof(sw[i]));
		sw[i].wr_id = n;
		sw[i].sg_list = &ss[i];
		sw[i].num_sge = 1;
		sw[i].opcode = IBV_WR_SEND;
		sw[i].send_flags = IBV_SEND_SIGNALED;
		sw[i].wr.ud.ah = U.ah;
		sw[i].wr.ud.remote_qpn = U.qp1->qp_num;
		sw[i].wr.ud.remote_qkey = QKEY;
		if ((errno = measure ? bench_post_send_ud(U.qp0, &sw[i], &sbad) : warm_post_send(U.qp0, &sw[i], &sbad)))
			die("ibv_post_send (UD)", errno);
		if (measure)
			c->ud_calls++, c->ud_wrs++;
	}
	/* the last message landed (after the 40-byte GRH), then a little more for its CQE */
	{
		volatile uint32_t *last = (volatile uint32_t *)(U.buf1 + (useq % SLOTS) * UDBUF + 40);
		for (i = 0; i < 10000 && *last != useq; i++)
			sleep_ms(1);
		if (*last != useq)
			die("waiting for the UD sends to land", ETIMEDOUT);
		sleep_ms(5);
	}
	/* All 16 CQEs are in the CQ now: one ibv_start_poll, 15 ibv_next_poll, one ibv_end_poll. (Not "next until
	 * ENOENT": rdma-core 44's rxe next_poll releases the CQ when it finds it empty, and its end_poll then hands
	 * back one slot too many, which corrupts the CQ; rdma-core fixed that later, we never had it.) */
	for (int tries = 0;; tries++) {
		rc = measure ? bench_start_poll(U.cq1, &pa) : ibv_start_poll(U.cq1, &pa);
		if (rc != ENOENT)
			break;
		if (measure)
			c->pex_empty++;
		if (tries > 10000)
			die("ibv_start_poll: completions missing", ETIMEDOUT);
		sleep_ms(1);
	}
	if (rc)
		die("ibv_start_poll", rc);
	for (;;) {
		if (U.cq1->status != IBV_WC_SUCCESS) {
			printf("datapath: FAILED UD receive: %s\n", ibv_wc_status_str(U.cq1->status));
			exit(1);
		}
		got++;
		if (measure)
			c->pex_cqes++;
		if (got == BATCH)
			break;
		rc = measure ? bench_next_poll(U.cq1) : ibv_next_poll(U.cq1);
		if (rc)
			die("ibv_next_poll: completions missing", rc);
	}
	if (measure)
		bench_end_poll(U.cq1);
	else
		ibv_end_poll(U.cq1);
	drain(U.cq0, BATCH, "UD send completions");
}

/* One batch of the qp_ex phase on the RC pair: 16 RDMA writes between ibv_wr_start and ibv_wr_complete. */
static void wr_batch(int measure, struct ext_counts *c)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(A.qp);
	int i;

	if (!qpx)
		die("ibv_qp_to_qp_ex", EOPNOTSUPP);
	prepare_batch(0);
	if (measure)
		bench_wr_start(qpx);
	else
		ibv_wr_start(qpx);
	for (i = 0; i < BATCH; i++) {
		qpx->wr_id = wrs[i].wr_id;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		if (measure) {
			bench_wr_rdma_write(qpx, wrs[i].wr.rdma.rkey, wrs[i].wr.rdma.remote_addr);
			bench_wr_set_sge(qpx, sges[i].lkey, sges[i].addr, sges[i].length);
			c->wr_wrs++;
		} else {
			ibv_wr_rdma_write(qpx, wrs[i].wr.rdma.rkey, wrs[i].wr.rdma.remote_addr);
			ibv_wr_set_sge(qpx, sges[i].lkey, sges[i].addr, sges[i].length);
		}
	}
	if ((errno = measure ? bench_wr_complete(qpx) : ibv_wr_complete(qpx)))
		die("ibv_wr_complete", errno);
	wait_landed();
	drain(A.cq, BATCH, "qp_ex completions");
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
	int extended = 0;
	char *cm = NULL, *cm_addr1 = NULL;
	struct ext_counts ext = { 0 };

	while ((opt = getopt(argc, argv, "d:D:g:G:n:xc:")) != -1) {
		switch (opt) {
		case 'd': dev0 = optarg; break;
		case 'D': dev1 = optarg; break;
		case 'g': gid0 = atoi(optarg); break;
		case 'G': gid1 = atoi(optarg); break;
		case 'n': batches = atoi(optarg); break;
		case 'x': extended = 1; break;
		case 'c': cm = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-d DEV0] [-D DEV1] [-g GIDIDX0] [-G GIDIDX1] [-n BATCHES] [-x]"
				" [-c ADDR0,ADDR1]\n", argv[0]);
			return 2;
		}
	}
	if (batches < 4)
		batches = 4;
	if (cm) {
		cm_addr1 = strchr(cm, ',');
		if (!cm_addr1 || extended) {
			fprintf(stderr, "%s: -c takes ADDR0,ADDR1 and excludes -x\n", argv[0]);
			return 2;
		}
		*cm_addr1++ = 0;
		cm_connect_pair(cm, cm_addr1);
		list = NULL;
		ndev = 0;
		goto connected;
	}

	list = bench_get_device_list(&ndev);
	if (!list)
		die("ibv_get_device_list", errno);
	d0 = device_named(list, ndev, dev0);
	d1 = device_named(list, ndev, dev1);
	if (!d0 || !d1) {
		printf("datapath: FAILED devices: %s and %s not both found (%d devices)\n", dev0, dev1, ndev);
		return 1;
	}
	setup_side(&A, d0, gid0, 1, extended);
	setup_side(&B, d1, gid1, 0, 0);
	connect_side(&A, &B);
	connect_side(&B, &A);
	if (extended)
		setup_ud();
connected:

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

	/* The extended rows, each phase warmed up once. */
	if (extended) {
		ud_batch(0, &ext);
		wr_batch(0, &ext);
		for (b = 0; b < batches / 2; b++)
			ud_batch(1, &ext);
		for (b = 0; b < batches / 2; b++)
			wr_batch(1, &ext);
	}

	printf("datapath: post1 calls=%ld wrs=%ld | postlist calls=%ld wrs=%ld | poll16 calls=%ld cqes=%ld empty=%ld"
	       " | poll1 calls=%ld cqes=%ld empty=%ld | pollempty calls=%ld | open calls=%d | devlist calls=%d",
	       post1_calls, post1_wrs, list_calls, list_wrs, p16_calls, p16_cqes, p16_empty, p1_calls, p1_cqes,
	       p1_empty, pe_calls, !cm, !cm);
	if (extended)
		printf(" | postrecv calls=%ld wrs=%ld | postud calls=%ld wrs=%ld | wrapi wrs=%ld | pollex cqes=%ld empty=%ld",
		       ext.recv_calls, ext.recv_wrs, ext.ud_calls, ext.ud_wrs, ext.wr_wrs, ext.pex_cqes, ext.pex_empty);
	printf("\n");
	if (cm) {
		rdma_disconnect(cm_b);
		rdma_destroy_qp(cm_a);
		rdma_destroy_qp(cm_b);
		ibv_destroy_cq(A.cq);
		ibv_destroy_cq(B.cq);
		ibv_dereg_mr(A.mr);
		ibv_dereg_mr(B.mr);
		ibv_dealloc_pd(A.pd);
		ibv_dealloc_pd(B.pd);
		rdma_destroy_id(cm_a);
		rdma_destroy_id(cm_b);
		rdma_destroy_id(cm_listen);
		rdma_destroy_event_channel(cm_ch);
		printf("datapath: ok\n");
		return 0;
	}
	if (extended) {
		ibv_destroy_qp(U.qp0);
		ibv_destroy_qp(U.qp1);
		ibv_destroy_ah(U.ah);
		ibv_destroy_cq(U.cq0);
		ibv_destroy_cq(ibv_cq_ex_to_cq(U.cq1));
		ibv_dereg_mr(U.mr0);
		ibv_dereg_mr(U.mr1);
	}

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
