/* Conformance: queue pairs. An RC pair rxe0 <-> rxe1 in one process (QP numbers and GIDs exchanged in memory):
 * create, query, the state machine (legal and illegal transitions), every RC opcode with the data checked byte for
 * byte and the completion fields checked on both sides, inline data, unsignaled sends, WR chains, the error
 * returns of post_send/post_recv, the ibv_qp_to_qp_ex / ibv_wr_* API, UD with address handles (including
 * ibv_init_ah_from_wc / ibv_create_ah_from_wc), and UC. See testutil.h. */
#define _GNU_SOURCE
#include "testutil.h"

#define PROG "verbs_qp"

static struct ibv_device_attr dattr;

/* ---- Creation, query, state machine ----------------------------------------------------------------------------- */

static void create_and_states(void)
{
	struct tu_ep e;
	struct ibv_qp_init_attr ia, qia;
	struct ibv_qp_attr qa;
	struct ibv_qp *qp;
	const char *why;
	int ret, cookie = 0;

	if ((why = tu_ep_open(&e, 0))) {
		tu_fail("create-setup", "%s: %s", why, tu_errname(errno));
		return;
	}
	memset(&ia, 0, sizeof(ia));
	ia.qp_context = &cookie;
	ia.send_cq = e.scq;
	ia.recv_cq = e.rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 10;
	ia.cap.max_recv_wr = 12;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 3;
	ia.cap.max_inline_data = 32;
	qp = ibv_create_qp(e.pd, &ia);
	if (!CHECK("create_qp", qp && qp->qp_num && qp->state == IBV_QPS_RESET && qp->qp_type == IBV_QPT_RC &&
					qp->pd == e.pd && qp->send_cq == e.scq && qp->recv_cq == e.rcq &&
					qp->context == e.ctx && qp->qp_context == &cookie && !qp->srq,
		   "qp %p (%s)", (void *)qp, tu_errname(errno)))
		goto out;
	CHECK("create_qp-cap-written-back", ia.cap.max_send_wr >= 10 && ia.cap.max_recv_wr >= 12 &&
						      ia.cap.max_send_sge >= 2 && ia.cap.max_recv_sge >= 3 &&
						      ia.cap.max_inline_data >= 32,
	      "cap send_wr %u recv_wr %u send_sge %u recv_sge %u inline %u", ia.cap.max_send_wr, ia.cap.max_recv_wr,
	      ia.cap.max_send_sge, ia.cap.max_recv_sge, ia.cap.max_inline_data);
	memset(&qa, 0xa5, sizeof(qa));
	memset(&qia, 0, sizeof(qia));
	ret = ibv_query_qp(qp, &qa, IBV_QP_STATE | IBV_QP_CAP, &qia);
	CHECK("query_qp-reset", ret == 0 && qa.qp_state == IBV_QPS_RESET && qia.qp_type == IBV_QPT_RC &&
					qia.send_cq == e.scq && qia.recv_cq == e.rcq &&
					qia.cap.max_send_wr >= ia.cap.max_send_wr && qia.cap.max_recv_wr >= ia.cap.max_recv_wr &&
					qia.cap.max_send_sge == ia.cap.max_send_sge &&
					qia.cap.max_recv_sge == ia.cap.max_recv_sge && qia.cap.max_inline_data == ia.cap.max_inline_data &&
					qa.cap.max_send_wr == qia.cap.max_send_wr,
	      "ret %d state %d type %d send_cq %p recv_cq %p cap %u/%u/%u/%u/%u (created %u/%u/%u/%u/%u)", ret,
	      qa.qp_state, qia.qp_type, (void *)qia.send_cq, (void *)qia.recv_cq, qia.cap.max_send_wr,
	      qia.cap.max_recv_wr, qia.cap.max_send_sge, qia.cap.max_recv_sge, qia.cap.max_inline_data,
	      ia.cap.max_send_wr, ia.cap.max_recv_wr, ia.cap.max_send_sge, ia.cap.max_recv_sge,
	      ia.cap.max_inline_data);

	/* Posting in RESET. post_recv: rxe refuses with EINVAL before touching the queue (C10-97.2.1). post_send: rxe
	 * writes the WQE, then the kernel refuses the doorbell with EINVAL. rdma-core leaves bad_wr NULL in both
	 * cases; pointing it at the refused WR is accepted too. */
	{
		struct ibv_sge sge = { .addr = (uintptr_t)e.buf, .length = 8, .lkey = e.mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *rbad = &rwr;
		struct ibv_send_wr swr, *sbad = &swr;

		ret = ibv_post_recv(qp, &rwr, &rbad);
		CHECK("post_recv-in-RESET-EINVAL", ret == EINVAL && (rbad == NULL || rbad == &rwr), "ret %d (%s), bad_wr %s", ret, tu_errname(ret),
		      rbad == NULL ? "NULL" : rbad == &rwr ? "the WR" : "other");
		memset(&swr, 0, sizeof(swr));
		swr.opcode = IBV_WR_SEND;
		swr.sg_list = &sge;
		swr.num_sge = 1;
		ret = ibv_post_send(qp, &swr, &sbad);
		CHECK("post_send-in-RESET-EINVAL", ret == EINVAL && (sbad == NULL || sbad == &swr), "ret %d (%s), bad_wr %s", ret, tu_errname(ret),
		      sbad == NULL ? "NULL" : sbad == &swr ? "the WR" : "other");
	}

	/* Illegal transitions from RESET. */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE);
	CHECK("modify_qp-RESET-to-RTR-EINVAL", ret == EINVAL && qp->state == IBV_QPS_RESET, "ret %d (%s) state %d", ret,
	      tu_errname(ret), qp->state);
	qa.qp_state = IBV_QPS_RTS;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE);
	CHECK("modify_qp-RESET-to-RTS-EINVAL", ret == EINVAL, "ret %d (%s)", ret, tu_errname(ret));
	qa.qp_state = IBV_QPS_INIT;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE);
	CHECK("modify_qp-INIT-missing-attrs-EINVAL", ret == EINVAL, "RESET->INIT with only IBV_QP_STATE: ret %d (%s)",
	      ret, tu_errname(ret));
	/* An attribute that does not belong to the transition. */
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.sq_psn = 5;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS | IBV_QP_SQ_PSN);
	CHECK("modify_qp-INIT-extra-attr-EINVAL", ret == EINVAL, "RESET->INIT with IBV_QP_SQ_PSN: ret %d (%s)", ret,
	      tu_errname(ret));
	qa.port_num = 2;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	CHECK("modify_qp-INIT-bad-port-EINVAL", ret == EINVAL, "port 2: ret %d (%s)", ret, tu_errname(ret));

	ret = tu_qp_init(qp, IBV_QPT_RC);
	CHECK("modify_qp-RESET-to-INIT", ret == 0 && qp->state == IBV_QPS_INIT, "ret %d (%s) state %d", ret,
	      tu_errname(ret), qp->state);
	ret = tu_qp_init(qp, IBV_QPT_RC);
	CHECK("modify_qp-INIT-to-INIT", ret == 0 && qp->state == IBV_QPS_INIT, "ret %d (%s)", ret, tu_errname(ret));
	qa.qp_state = IBV_QPS_RTS;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE);
	CHECK("modify_qp-INIT-to-RTS-EINVAL", ret == EINVAL && qp->state == IBV_QPS_INIT, "ret %d (%s)", ret,
	      tu_errname(ret));
	{
		struct ibv_sge sge = { .addr = (uintptr_t)e.buf, .length = 8, .lkey = e.mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *rbad;

		struct ibv_send_wr swr, *sbad = NULL;

		ret = ibv_post_recv(qp, &rwr, &rbad);
		CHECK("post_recv-in-INIT", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
		/* Sending needs RTS: the kernel refuses the doorbell in INIT too. */
		memset(&swr, 0, sizeof(swr));
		swr.opcode = IBV_WR_SEND;
		swr.sg_list = &sge;
		swr.num_sge = 1;
		ret = ibv_post_send(qp, &swr, &sbad);
		CHECK("post_send-in-INIT-EINVAL", ret == EINVAL && (sbad == NULL || sbad == &swr), "ret %d (%s)", ret,
		      tu_errname(ret));
	}
	qa.qp_state = IBV_QPS_ERR;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE);
	CHECK("modify_qp-to-ERR", ret == 0 && qp->state == IBV_QPS_ERR, "ret %d (%s)", ret, tu_errname(ret));
	{
		struct ibv_wc wc;
		int n = tu_poll1(e.rcq, &wc);

		CHECK("ERR-flushes-receive", n == 1 && wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == 1 &&
						     wc.qp_num == qp->qp_num,
		      "%d completions %s", n, n == 1 ? tu_wc_str(&wc) : "");
	}
	qa.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE);
	CHECK("modify_qp-ERR-to-RTR-EINVAL", ret == EINVAL, "ret %d (%s)", ret, tu_errname(ret));
	qa.qp_state = IBV_QPS_RESET;
	ret = ibv_modify_qp(qp, &qa, IBV_QP_STATE);
	CHECK("modify_qp-ERR-to-RESET", ret == 0 && qp->state == IBV_QPS_RESET, "ret %d (%s)", ret, tu_errname(ret));
	CHECK("destroy_qp", ibv_destroy_qp(qp) == 0, "ibv_destroy_qp failed");
	qp = NULL;

	/* Limits. */
	{
		static const struct { const char *name; int field; } lim[] = {
			{ "create_qp-too-many-send_wr-EINVAL", 0 },
			{ "create_qp-too-many-send_sge-EINVAL", 1 },
			{ "create_qp-too-many-recv_sge-EINVAL", 2 },
			{ "create_qp-inline-too-large-EINVAL", 3 },
		};

		for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
			memset(&ia, 0, sizeof(ia));
			ia.send_cq = e.scq;
			ia.recv_cq = e.rcq;
			ia.qp_type = IBV_QPT_RC;
			ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
			ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
			if (lim[i].field == 0)
				ia.cap.max_send_wr = dattr.max_qp_wr + 1;
			else if (lim[i].field == 1)
				ia.cap.max_send_sge = dattr.max_sge + 1;
			else if (lim[i].field == 2)
				ia.cap.max_recv_sge = dattr.max_sge + 1;
			else
				ia.cap.max_inline_data = 1 << 20;
			errno = 0;
			qp = ibv_create_qp(e.pd, &ia);
			CHECK(lim[i].name, !qp && errno == EINVAL, "qp %p errno %s", (void *)qp, tu_errname(errno));
			if (qp)
				ibv_destroy_qp(qp);
		}
		qp = NULL;
	}
	/* Types rxe does not implement. */
	{
		static const struct { const char *name; enum ibv_qp_type type; } t[] = {
			{ "create_qp-RAW_PACKET-EOPNOTSUPP", IBV_QPT_RAW_PACKET },
			{ "create_qp-XRC_SEND-EOPNOTSUPP", IBV_QPT_XRC_SEND },
		};

		for (size_t i = 0; i < 2; i++) {
			memset(&ia, 0, sizeof(ia));
			ia.send_cq = e.scq;
			ia.recv_cq = e.rcq;
			ia.qp_type = t[i].type;
			ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
			ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
			errno = 0;
			qp = ibv_create_qp(e.pd, &ia);
			CHECK(t[i].name, !qp && errno == EOPNOTSUPP, "qp %p errno %s", (void *)qp, tu_errname(errno));
			if (qp)
				ibv_destroy_qp(qp);
		}
		qp = NULL;
	}
out:
	if (qp)
		ibv_destroy_qp(qp);
	tu_ep_close(&e);
}

/* ---- RC data path ----------------------------------------------------------------------------------------------- */

static struct tu_ep A, B; /* A on DEV0 sends, B on DEV1 receives/serves */

/* Expects exactly one completion on cq, with the given fields (want_len < 0: byte_len not checked). */
static int expect_wc(const char *name, struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_opcode op, long want_len,
		     unsigned want_flags, uint32_t qp_num, struct ibv_wc *out)
{
	struct ibv_wc wc;
	int n = tu_poll1(cq, &wc);

	if (out)
		*out = wc;
	return CHECK(name, n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == wr_id && wc.opcode == op &&
				   (want_len < 0 || wc.byte_len == (uint32_t)want_len) &&
				   (wc.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_GRH | IBV_WC_WITH_INV)) == want_flags &&
				   wc.qp_num == qp_num,
		     "%d completions; %s; want wr_id %llu opcode %d byte_len %ld wc_flags 0x%x qp_num 0x%x", n,
		     n == 1 ? tu_wc_str(&wc) : "-", (unsigned long long)wr_id, op, want_len, want_flags, qp_num);
}

static int cq_quiet(struct ibv_cq *cq, unsigned ms)
{
	struct ibv_wc wc;

	return tu_poll(cq, &wc, 1, ms) == 0;
}

static void rc_data(void)
{
	struct ibv_sge sge[4];
	struct ibv_send_wr wr, *bad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_wc wc;
	uint8_t *a = A.buf, *b = B.buf;
	const uint32_t al = A.mr->lkey, bl = B.mr->lkey, brk = B.mr->rkey;
	uint64_t *remote64 = (uint64_t *)(b + 60000), *local64 = (uint64_t *)(a + 60000);
	int ret;

	/* query_qp after RTS reflects what we set. */
	memset(&qa, 0, sizeof(qa));
	ret = ibv_query_qp(A.qp,
			   &qa,
			   IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_SQ_PSN | IBV_QP_RQ_PSN |
				   IBV_QP_ACCESS_FLAGS | IBV_QP_AV | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER | IBV_QP_PORT,
			   &qia);
	CHECK("query_qp-RTS", ret == 0 && qa.qp_state == IBV_QPS_RTS && qa.path_mtu == IBV_MTU_1024 &&
				      qa.dest_qp_num == B.qp->qp_num && qa.sq_psn == 0x1000 && qa.rq_psn == 0x2000 &&
				      qa.qp_access_flags == (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
							     IBV_ACCESS_REMOTE_ATOMIC) &&
				      qa.ah_attr.is_global == 1 && !memcmp(&qa.ah_attr.grh.dgid, &B.gid, 16) &&
				      qa.ah_attr.grh.sgid_index == A.gid_index && qa.ah_attr.port_num == 1 &&
				      qa.max_rd_atomic == 4 && qa.max_dest_rd_atomic == 4 && qa.timeout == 14 &&
				      qa.retry_cnt == 7 && qa.rnr_retry == 7 && qa.min_rnr_timer == 12 &&
				      qia.qp_type == IBV_QPT_RC && A.qp->state == IBV_QPS_RTS,
	      "ret %d state %d mtu %d dest_qp 0x%x sq_psn 0x%x rq_psn 0x%x access 0x%x global %d sgid_index %d port %d "
	      "rd_atomic %d/%d timeout %d retry %d rnr_retry %d min_rnr %d",
	      ret, qa.qp_state, qa.path_mtu, qa.dest_qp_num, qa.sq_psn, qa.rq_psn, qa.qp_access_flags,
	      qa.ah_attr.is_global, qa.ah_attr.grh.sgid_index, qa.ah_attr.port_num, qa.max_rd_atomic,
	      qa.max_dest_rd_atomic, qa.timeout, qa.retry_cnt, qa.rnr_retry, qa.min_rnr_timer);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(A.qp, &qa, IBV_QP_STATE);
	CHECK("modify_qp-RTS-to-RTR-EINVAL", ret == EINVAL && A.qp->state == IBV_QPS_RTS, "ret %d (%s)", ret,
	      tu_errname(ret));

	/* Completion flags as rxe reports them: a receive on RoCE always carries IBV_WC_GRH (every RoCE packet has
	 * one), and rxe also copies IBV_WC_WITH_IMM into the sender's completion of *_WITH_IMM work requests. */

	/* SEND: two SGEs gathered, scattered into two receive SGEs. */
	tu_fill(a, 3000, 1);
	memset(b, 0, 8192);
	sge[0] = (struct ibv_sge){ .addr = (uintptr_t)b + 100, .length = 1000, .lkey = bl };
	sge[1] = (struct ibv_sge){ .addr = (uintptr_t)b + 5000, .length = 3000, .lkey = bl };
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 0x1001;
	rwr.sg_list = sge;
	rwr.num_sge = 2;
	ret = ibv_post_recv(B.qp, &rwr, &rbad);
	CHECK("post_recv-2-sge", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
	sge[2] = (struct ibv_sge){ .addr = (uintptr_t)a, .length = 1500, .lkey = al };
	sge[3] = (struct ibv_sge){ .addr = (uintptr_t)a + 1500, .length = 1000, .lkey = al };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x2001;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge[2];
	wr.num_sge = 2;
	wr.send_flags = IBV_SEND_SIGNALED;
	ret = ibv_post_send(A.qp, &wr, &bad);
	CHECK("post_send-SEND", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
	expect_wc("SEND-sender-completion", A.scq, 0x2001, IBV_WC_SEND, -1, 0, A.qp->qp_num, NULL);
	expect_wc("SEND-receiver-completion", B.rcq, 0x1001, IBV_WC_RECV, 2500, IBV_WC_GRH, B.qp->qp_num, NULL);
	CHECK("SEND-data", tu_diff(b + 100, a, 1000) < 0 && tu_diff(b + 5000, a + 1000, 1500) < 0 && b[99] == 0 &&
				   b[1100] == 0 && b[6500] == 0,
	      "scatter/gather mismatch (first SGE at %ld, second at %ld)", tu_diff(b + 100, a, 1000),
	      tu_diff(b + 5000, a + 1000, 1500));

	/* SEND_WITH_IMM. */
	tu_fill(a, 512, 2);
	tu_post_recv(B.qp, 0x1002, b, 1024, bl);
	memset(&wr, 0, sizeof(wr));
	sge[0] = (struct ibv_sge){ .addr = (uintptr_t)a, .length = 512, .lkey = al };
	wr.wr_id = 0x2002;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0xdeadbeef);
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	ret = ibv_post_send(A.qp, &wr, &bad);
	expect_wc("SEND_WITH_IMM-sender-completion", A.scq, 0x2002, IBV_WC_SEND, -1, IBV_WC_WITH_IMM, A.qp->qp_num, NULL);
	if (expect_wc("SEND_WITH_IMM-receiver-completion", B.rcq, 0x1002, IBV_WC_RECV, 512, IBV_WC_WITH_IMM | IBV_WC_GRH,
		      B.qp->qp_num, &wc))
		CHECK("SEND_WITH_IMM-imm_data", wc.imm_data == htobe32(0xdeadbeef), "imm_data 0x%08x (network order)",
		      be32toh(wc.imm_data));
	CHECK("SEND_WITH_IMM-data", ret == 0 && tu_diff(b, a, 512) < 0, "post %d, data differs at %ld", ret,
	      tu_diff(b, a, 512));

	/* RDMA_WRITE: no receive consumed, no receiver completion. */
	tu_fill(a, 4000, 3);
	ret = tu_post_send1(A.qp, 0x2003, IBV_WR_RDMA_WRITE, a, 4000, al, (uintptr_t)b + 10000, brk, IBV_SEND_SIGNALED);
	expect_wc("RDMA_WRITE-completion", A.scq, 0x2003, IBV_WC_RDMA_WRITE, -1, 0, A.qp->qp_num, NULL);
	CHECK("RDMA_WRITE-data", ret == 0 && tu_diff(b + 10000, a, 4000) < 0, "post %d, differs at %ld", ret,
	      tu_diff(b + 10000, a, 4000));
	CHECK("RDMA_WRITE-no-receiver-completion", cq_quiet(B.rcq, 200), "the receiver got a completion");

	/* RDMA_WRITE_WITH_IMM: data at the remote address, the receive is consumed without touching its buffer. */
	tu_fill(a, 2048, 4);
	memset(b + 20000, 0x77, 64);
	tu_post_recv(B.qp, 0x1004, b + 20000, 64, bl);
	memset(&wr, 0, sizeof(wr));
	sge[0] = (struct ibv_sge){ .addr = (uintptr_t)a, .length = 2048, .lkey = al };
	wr.wr_id = 0x2004;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(0x01020304);
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)b + 30000;
	wr.wr.rdma.rkey = brk;
	ret = ibv_post_send(A.qp, &wr, &bad);
	expect_wc("RDMA_WRITE_WITH_IMM-sender-completion", A.scq, 0x2004, IBV_WC_RDMA_WRITE, -1, IBV_WC_WITH_IMM, A.qp->qp_num,
		  NULL);
	if (expect_wc("RDMA_WRITE_WITH_IMM-receiver-completion", B.rcq, 0x1004, IBV_WC_RECV_RDMA_WITH_IMM, 2048,
		      IBV_WC_WITH_IMM | IBV_WC_GRH, B.qp->qp_num, &wc))
		CHECK("RDMA_WRITE_WITH_IMM-imm_data", wc.imm_data == htobe32(0x01020304), "imm_data 0x%08x",
		      be32toh(wc.imm_data));
	{
		uint8_t untouched[64];

		memset(untouched, 0x77, 64);
		CHECK("RDMA_WRITE_WITH_IMM-data", ret == 0 && tu_diff(b + 30000, a, 2048) < 0 &&
							  !memcmp(b + 20000, untouched, 64),
		      "post %d, data differs at %ld, receive buffer %s", ret, tu_diff(b + 30000, a, 2048),
		      memcmp(b + 20000, untouched, 64) ? "written" : "untouched");
	}

	/* RDMA_READ (multi-packet). */
	tu_fill(b + 40000, 5000, 5);
	memset(a + 40000, 0, 5000);
	ret = tu_post_send1(A.qp, 0x2005, IBV_WR_RDMA_READ, a + 40000, 5000, al, (uintptr_t)b + 40000, brk,
			    IBV_SEND_SIGNALED);
	expect_wc("RDMA_READ-completion", A.scq, 0x2005, IBV_WC_RDMA_READ, 5000, 0, A.qp->qp_num, NULL);
	CHECK("RDMA_READ-data", ret == 0 && tu_diff(a + 40000, b + 40000, 5000) < 0, "post %d, differs at %ld", ret,
	      tu_diff(a + 40000, b + 40000, 5000));

	/* Atomics on an aligned 64-bit word. */
	*remote64 = 100;
	*local64 = 0;
	memset(&wr, 0, sizeof(wr));
	sge[0] = (struct ibv_sge){ .addr = (uintptr_t)local64, .length = 8, .lkey = al };
	wr.wr_id = 0x2006;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = (uintptr_t)remote64;
	wr.wr.atomic.rkey = brk;
	wr.wr.atomic.compare_add = 100;
	wr.wr.atomic.swap = 200;
	ret = ibv_post_send(A.qp, &wr, &bad);
	expect_wc("ATOMIC_CMP_AND_SWP-completion", A.scq, 0x2006, IBV_WC_COMP_SWAP, 8, 0, A.qp->qp_num, NULL);
	CHECK("ATOMIC_CMP_AND_SWP-swapped", ret == 0 && *local64 == 100 && *remote64 == 200,
	      "post %d, returned %llu (want 100), remote %llu (want 200)", ret, (unsigned long long)*local64,
	      (unsigned long long)*remote64);
	wr.wr_id = 0x2007;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 300;
	ret = ibv_post_send(A.qp, &wr, &bad);
	expect_wc("ATOMIC_CMP_AND_SWP-mismatch-completion", A.scq, 0x2007, IBV_WC_COMP_SWAP, 8, 0, A.qp->qp_num, NULL);
	CHECK("ATOMIC_CMP_AND_SWP-not-swapped", ret == 0 && *local64 == 200 && *remote64 == 200,
	      "post %d, returned %llu (want 200), remote %llu (want 200)", ret, (unsigned long long)*local64,
	      (unsigned long long)*remote64);
	wr.wr_id = 0x2008;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.compare_add = 23;
	ret = ibv_post_send(A.qp, &wr, &bad);
	expect_wc("ATOMIC_FETCH_AND_ADD-completion", A.scq, 0x2008, IBV_WC_FETCH_ADD, 8, 0, A.qp->qp_num, NULL);
	CHECK("ATOMIC_FETCH_AND_ADD-added", ret == 0 && *local64 == 200 && *remote64 == 223,
	      "post %d, returned %llu (want 200), remote %llu (want 223)", ret, (unsigned long long)*local64,
	      (unsigned long long)*remote64);

	/* Inline SEND from an unregistered buffer that is overwritten right after posting. */
	{
		uint8_t tmp[48], want[48];

		tu_fill(tmp, 48, 6);
		memcpy(want, tmp, 48);
		tu_post_recv(B.qp, 0x1009, b, 1024, bl);
		memset(&wr, 0, sizeof(wr));
		sge[0] = (struct ibv_sge){ .addr = (uintptr_t)tmp, .length = 48, .lkey = 0 };
		wr.wr_id = 0x2009;
		wr.opcode = IBV_WR_SEND;
		wr.sg_list = sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		ret = ibv_post_send(A.qp, &wr, &bad);
		memset(tmp, 0xee, sizeof(tmp));
		CHECK("post_send-inline", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
		expect_wc("inline-SEND-sender-completion", A.scq, 0x2009, IBV_WC_SEND, -1, 0, A.qp->qp_num, NULL);
		expect_wc("inline-SEND-receiver-completion", B.rcq, 0x1009, IBV_WC_RECV, 48, IBV_WC_GRH, B.qp->qp_num, NULL);
		CHECK("inline-SEND-data", !memcmp(b, want, 48), "differs at %ld", tu_diff(b, want, 48));

		tu_fill(tmp, 40, 7);
		memcpy(want, tmp, 40);
		sge[0].length = 40;
		wr.wr_id = 0x200a;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)b + 50000;
		wr.wr.rdma.rkey = brk;
		ret = ibv_post_send(A.qp, &wr, &bad);
		memset(tmp, 0xee, sizeof(tmp));
		expect_wc("inline-RDMA_WRITE-completion", A.scq, 0x200a, IBV_WC_RDMA_WRITE, -1, 0, A.qp->qp_num, NULL);
		CHECK("inline-RDMA_WRITE-data", ret == 0 && !memcmp(b + 50000, want, 40), "post %d, differs at %ld", ret,
		      tu_diff(b + 50000, want, 40));
	}

	/* Zero-length SEND. */
	tu_post_recv(B.qp, 0x100b, b, 1024, bl);
	ret = tu_post_send1(A.qp, 0x200b, IBV_WR_SEND, a, 0, al, 0, 0, IBV_SEND_SIGNALED);
	expect_wc("zero-length-SEND-sender", A.scq, 0x200b, IBV_WC_SEND, -1, 0, A.qp->qp_num, NULL);
	expect_wc("zero-length-SEND-receiver", B.rcq, 0x100b, IBV_WC_RECV, 0, IBV_WC_GRH, B.qp->qp_num, NULL);

	/* Unsignaled then signaled, as one chain of three WRs: one send completion (the last), three receives. */
	{
		struct ibv_send_wr w[3];
		struct ibv_sge s[3];
		struct ibv_wc wcs[4];
		int n;

		for (int i = 0; i < 3; i++) {
			tu_post_recv(B.qp, 0x1100 + i, b + 1024 * i, 1024, bl);
			tu_fill(a + 1024 * i, 100 + i, 20 + i);
			s[i] = (struct ibv_sge){ .addr = (uintptr_t)a + 1024 * i, .length = 100 + i, .lkey = al };
			memset(&w[i], 0, sizeof(w[i]));
			w[i].wr_id = 0x2100 + i;
			w[i].opcode = IBV_WR_SEND;
			w[i].sg_list = &s[i];
			w[i].num_sge = 1;
			w[i].next = i < 2 ? &w[i + 1] : NULL;
		}
		w[2].send_flags = IBV_SEND_SIGNALED;
		bad = NULL;
		ret = ibv_post_send(A.qp, w, &bad);
		n = tu_poll(B.rcq, wcs, 3, 5000);
		CHECK("chain-3-receives-in-order", ret == 0 && n == 3 && wcs[0].wr_id == 0x1100 && wcs[1].wr_id == 0x1101 &&
							   wcs[2].wr_id == 0x1102 && wcs[0].byte_len == 100 &&
							   wcs[2].byte_len == 102 && tu_diff(b + 2048, a + 2048, 102) < 0,
		      "post %d, %d receives", ret, n);
		n = tu_poll(A.scq, wcs, 2, 1000);
		CHECK("unsignaled-no-completion", n == 1 && wcs[0].wr_id == 0x2102 && wcs[0].status == IBV_WC_SUCCESS,
		      "%d send completions (want only the signaled wr_id 0x2102), first %s", n, tu_wc_str(&wcs[0]));
	}

	/* Post errors. */
	{
		struct ibv_sge many[64];
		struct ibv_send_wr good, badw;
		struct ibv_recv_wr rgood, rbadw;
		struct ibv_qp_init_attr ia;
		uint32_t max_send_sge, max_recv_sge;
		int n;

		memset(&qa, 0, sizeof(qa));
		ibv_query_qp(A.qp, &qa, IBV_QP_CAP, &ia);
		max_send_sge = ia.cap.max_send_sge;
		max_recv_sge = ia.cap.max_recv_sge;
		struct ibv_sge rmany[64];

		for (int i = 0; i < 64; i++) {
			many[i] = (struct ibv_sge){ .addr = (uintptr_t)a + 16 * i, .length = 16, .lkey = al };
			rmany[i] = (struct ibv_sge){ .addr = (uintptr_t)b + 16 * i, .length = 16, .lkey = bl };
		}

		/* A chain whose second WR has one SGE too many: the first is posted, bad_wr names the second. */
		tu_post_recv(B.qp, 0x1200, b, 4096, bl);
		memset(&good, 0, sizeof(good));
		good.wr_id = 0x2200;
		good.opcode = IBV_WR_SEND;
		good.sg_list = many;
		good.num_sge = 1;
		good.send_flags = IBV_SEND_SIGNALED;
		good.next = &badw;
		badw = good;
		badw.wr_id = 0x2201;
		badw.num_sge = (int)max_send_sge + 1;
		badw.next = NULL;
		bad = NULL;
		ret = max_send_sge < 64 ? ibv_post_send(A.qp, &good, &bad) : -1;
		CHECK("post_send-too-many-sge-EINVAL", ret == EINVAL && bad == &badw,
		      "max_send_sge %u: ret %d (%s), bad_wr %s", max_send_sge, ret, tu_errname(ret),
		      bad == &badw ? "the second WR" : bad == &good ? "the first WR" : bad ? "other" : "NULL");
		n = tu_poll(A.scq, &wc, 1, 5000);
		CHECK("post_send-first-of-chain-posted", n == 1 && wc.wr_id == 0x2200 && wc.status == IBV_WC_SUCCESS,
		      "%d completions %s", n, tu_wc_str(&wc));
		tu_poll(B.rcq, &wc, 1, 5000);

		memset(&rgood, 0, sizeof(rgood));
		rgood.wr_id = 0x1201;
		rgood.sg_list = rmany;
		rgood.num_sge = 1;
		rgood.next = &rbadw;
		rbadw = rgood;
		rbadw.wr_id = 0x1202;
		rbadw.num_sge = (int)max_recv_sge + 1;
		rbadw.next = NULL;
		rbad = NULL;
		ret = max_recv_sge < 64 ? ibv_post_recv(B.qp, &rgood, &rbad) : -1;
		CHECK("post_recv-too-many-sge-EINVAL", ret == EINVAL && rbad == &rbadw,
		      "max_recv_sge %u: ret %d (%s), bad_wr %s", max_recv_sge, ret, tu_errname(ret),
		      rbad == &rbadw ? "the second WR" : rbad == &rgood ? "the first WR" : rbad ? "other" : "NULL");
		/* The first receive was posted: a SEND lands in it. */
		tu_fill(a, 16, 30);
		ret = tu_post_send1(A.qp, 0x2202, IBV_WR_SEND, a, 16, al, 0, 0, IBV_SEND_SIGNALED);
		n = tu_poll(B.rcq, &wc, 1, 5000);
		CHECK("post_recv-first-of-chain-posted", ret == 0 && n == 1 && wc.wr_id == 0x1201 && wc.byte_len == 16,
		      "%d completions %s", n, tu_wc_str(&wc));
		tu_poll(A.scq, &wc, 1, 5000);

		/* Inline data longer than max_inline_data. */
		good.next = NULL;
		good.wr_id = 0x2203;
		good.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
		good.sg_list = many;
		good.num_sge = 1;
		many[0].length = ia.cap.max_inline_data + 1;
		bad = NULL;
		ret = ibv_post_send(A.qp, &good, &bad);
		CHECK("post_send-inline-too-long-EINVAL", ret == EINVAL && bad == &good,
		      "max_inline_data %u, length %u: ret %d (%s), bad_wr %s", ia.cap.max_inline_data, many[0].length, ret,
		      tu_errname(ret), bad == &good ? "the WR" : bad ? "other" : "NULL");
		many[0].length = 16;

		/* Atomics: misaligned remote address, or a buffer shorter than 8 bytes. */
		memset(&good, 0, sizeof(good));
		good.wr_id = 0x2204;
		good.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		good.sg_list = many;
		good.num_sge = 1;
		many[0].length = 8;
		good.wr.atomic.remote_addr = (uintptr_t)remote64 + 4;
		good.wr.atomic.rkey = brk;
		bad = NULL;
		ret = ibv_post_send(A.qp, &good, &bad);
		CHECK("post_send-atomic-misaligned-EINVAL", ret == EINVAL && bad == &good, "ret %d (%s)", ret,
		      tu_errname(ret));
		good.wr.atomic.remote_addr = (uintptr_t)remote64;
		many[0].length = 4;
		bad = NULL;
		ret = ibv_post_send(A.qp, &good, &bad);
		CHECK("post_send-atomic-short-buffer-EINVAL", ret == EINVAL && bad == &good, "ret %d (%s)", ret,
		      tu_errname(ret));
		many[0].length = 16;

		/* NULL arguments rxe checks itself: no bad_wr pointer, no work request. */
		good.opcode = IBV_WR_SEND;
		ret = ibv_post_send(A.qp, &good, NULL);
		CHECK("post_send-null-bad_wr-EINVAL", ret == EINVAL, "ret %d (%s)", ret, tu_errname(ret));
		bad = &good;
		ret = ibv_post_send(A.qp, NULL, &bad);
		CHECK("post_send-null-wr-EINVAL", ret == EINVAL && bad == NULL, "ret %d (%s) bad_wr %p", ret,
		      tu_errname(ret), (void *)bad);
		ret = ibv_post_recv(B.qp, &rgood, NULL);
		CHECK("post_recv-null-bad_wr-EINVAL", ret == EINVAL, "ret %d (%s)", ret, tu_errname(ret));
		rbad = &rgood;
		ret = ibv_post_recv(B.qp, NULL, &rbad);
		CHECK("post_recv-null-wr-EINVAL", ret == EINVAL && rbad == NULL, "ret %d (%s) bad_wr %p", ret,
		      tu_errname(ret), (void *)rbad);
		CHECK("post-errors-no-stray-completions", cq_quiet(A.scq, 200) && cq_quiet(B.rcq, 0),
		      "a refused WR produced a completion");
	}
}

/* ---- The ibv_wr_* API ------------------------------------------------------------------------------------------- */

static struct ibv_qp *create_qp_ex(struct tu_ep *e, enum ibv_qp_type type, uint64_t ops, uint32_t max_inline)
{
	struct ibv_qp_init_attr_ex ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = e->scq;
	ia.recv_cq = e->rcq;
	ia.qp_type = type;
	ia.cap.max_send_wr = 32;
	ia.cap.max_recv_wr = 32;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = max_inline;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.pd = e->pd;
	ia.send_ops_flags = ops;
	return ibv_create_qp_ex(e->ctx, &ia);
}

static void wr_api(void)
{
	struct tu_ep a, b;
	struct ibv_qp_ex *qx;
	struct ibv_qp *q;
	struct ibv_wc wc[8];
	const char *why;
	const uint64_t ops = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE |
			     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
			     IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	int ret, n;

	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1))) {
		tu_fail("wr-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	/* Flags a QP type cannot have. */
	errno = 0;
	q = create_qp_ex(&a, IBV_QPT_UD, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE, 0);
	CHECK("create_qp_ex-UD-rdma-ops-EOPNOTSUPP", !q && errno == EOPNOTSUPP, "qp %p errno %s", (void *)q,
	      tu_errname(errno));
	if (q)
		ibv_destroy_qp(q);
	errno = 0;
	q = create_qp_ex(&a, IBV_QPT_RC, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO, 0);
	CHECK("create_qp_ex-RC-TSO-EOPNOTSUPP", !q && errno == EOPNOTSUPP, "qp %p errno %s", (void *)q,
	      tu_errname(errno));
	if (q)
		ibv_destroy_qp(q);

	/* A QP made with ibv_create_qp has no extended interface. */
	if (!tu_ep_qp(&b, IBV_QPT_RC, NULL, 0)) {
		CHECK("qp_to_qp_ex-plain-qp-NULL", ibv_qp_to_qp_ex(b.qp) == NULL, "ibv_qp_to_qp_ex returned non-NULL");
		ibv_destroy_qp(b.qp);
		b.qp = NULL;
	}

	a.qp = create_qp_ex(&a, IBV_QPT_RC, ops, 64);
	b.qp = create_qp_ex(&b, IBV_QPT_RC, ops, 64);
	if (!CHECK("create_qp_ex", a.qp && b.qp && a.qp->qp_type == IBV_QPT_RC && a.qp->pd == a.pd &&
					   a.qp->state == IBV_QPS_RESET,
		   "qp %p / %p (%s)", (void *)a.qp, (void *)b.qp, tu_errname(errno)))
		goto out;
	qx = ibv_qp_to_qp_ex(a.qp);
	if (!CHECK("qp_to_qp_ex", qx && &qx->qp_base == a.qp, "ibv_qp_to_qp_ex returned %p", (void *)qx))
		goto out;
	if ((why = tu_pair_connect(&a, &b, IBV_QPT_RC))) {
		tu_fail("wr-connect", "%s: %s", why, tu_errname(errno));
		goto out;
	}

	for (int i = 0; i < 4; i++)
		tu_post_recv(b.qp, 0x300 + i, b.buf + 1024 * i, 1024, b.mr->lkey);
	tu_fill(a.buf, 8192, 40);
	*(uint64_t *)(b.buf + 60000) = 1000;
	{
		/* Equal SGE lengths: rdma-core 44's rxe wr_set_sge_list sums the first SGE's length num_sge times
		 * (the kernel then fails the WR with a local QP operation error if the lengths differ). */
		struct ibv_sge list[2] = {
			{ .addr = (uintptr_t)a.buf + 100, .length = 250, .lkey = a.mr->lkey },
			{ .addr = (uintptr_t)a.buf + 1000, .length = 250, .lkey = a.mr->lkey },
		};
		uint8_t inl[32];

		tu_fill(inl, 32, 41);
		ibv_wr_start(qx);
		qx->wr_id = 1;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qx);
		ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf, 128);
		qx->wr_id = 2;
		ibv_wr_send_imm(qx, htobe32(0xcafe0001));
		ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf + 128, 64);
		qx->wr_id = 3;
		ibv_wr_rdma_write(qx, b.mr->rkey, (uintptr_t)b.buf + 10000);
		ibv_wr_set_sge_list(qx, 2, list);
		qx->wr_id = 4;
		ibv_wr_rdma_write_imm(qx, b.mr->rkey, (uintptr_t)b.buf + 20000, htobe32(0xcafe0002));
		ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf + 2000, 256);
		qx->wr_id = 5;
		ibv_wr_rdma_read(qx, b.mr->rkey, (uintptr_t)b.buf + 10000);
		ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf + 30000, 500);
		qx->wr_id = 6;
		ibv_wr_atomic_cmp_swp(qx, b.mr->rkey, (uintptr_t)b.buf + 60000, 1000, 2000);
		ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf + 60000, 8);
		qx->wr_id = 7;
		ibv_wr_atomic_fetch_add(qx, b.mr->rkey, (uintptr_t)b.buf + 60000, 5);
		ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf + 60008, 8);
		/* rdma-core 44's rxe does not mark the WQE inline in wr_set_inline_data: the caller's wr_flags must carry
		 * IBV_SEND_INLINE (without it the kernel fails the WR with a local QP operation error). */
		qx->wr_id = 8;
		qx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		ibv_wr_send(qx);
		ibv_wr_set_inline_data(qx, inl, 32);
		ret = ibv_wr_complete(qx);
		memset(inl, 0, sizeof(inl));
		CHECK("wr_complete", ret == 0, "ret %d (%s)", ret, tu_errname(ret));

		n = tu_poll(a.scq, wc, 8, 5000);
		{
			static const enum ibv_wc_opcode want[8] = { IBV_WC_SEND, IBV_WC_SEND, IBV_WC_RDMA_WRITE,
								    IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_COMP_SWAP,
								    IBV_WC_FETCH_ADD, IBV_WC_SEND };
			int bad = -1;

			for (int i = 0; i < n && bad < 0; i++)
				if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != (uint64_t)i + 1 ||
				    wc[i].opcode != want[i] || wc[i].qp_num != a.qp->qp_num)
					bad = i;
			CHECK("wr-sender-completions", n == 8 && bad < 0, "%d of 8; first wrong: %s", n,
			      bad >= 0 ? tu_wc_str(&wc[bad]) : "-");
		}
		n = tu_poll(b.rcq, wc, 4, 5000);
		CHECK("wr-receiver-completions",
		      n == 4 && wc[0].wr_id == 0x300 && wc[0].opcode == IBV_WC_RECV && wc[0].byte_len == 128 &&
			      wc[1].wr_id == 0x301 && wc[1].opcode == IBV_WC_RECV && wc[1].byte_len == 64 &&
			      (wc[1].wc_flags & IBV_WC_WITH_IMM) && wc[1].imm_data == htobe32(0xcafe0001) &&
			      wc[2].wr_id == 0x302 && wc[2].opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc[2].byte_len == 256 &&
			      wc[2].imm_data == htobe32(0xcafe0002) && wc[3].wr_id == 0x303 && wc[3].byte_len == 32,
		      "%d of 4; %s / %s / %s / %s", n, tu_wc_str(&wc[0]), n > 1 ? tu_wc_str(&wc[1]) : "",
		      n > 2 ? tu_wc_str(&wc[2]) : "", n > 3 ? tu_wc_str(&wc[3]) : "");
		{
			uint8_t want_inl[32];

			tu_fill(want_inl, 32, 41);
			CHECK("wr-data",
			      tu_diff(b.buf, a.buf, 128) < 0 && tu_diff(b.buf + 1024, a.buf + 128, 64) < 0 &&
				      tu_diff(b.buf + 10000, a.buf + 100, 250) < 0 &&
				      tu_diff(b.buf + 10250, a.buf + 1000, 250) < 0 &&
				      tu_diff(b.buf + 20000, a.buf + 2000, 256) < 0 &&
				      tu_diff(a.buf + 30000, b.buf + 10000, 500) < 0 && !memcmp(b.buf + 3072, want_inl, 32),
			      "send %ld imm %ld write-sge-list %ld/%ld write-imm %ld read %ld inline %ld",
			      tu_diff(b.buf, a.buf, 128), tu_diff(b.buf + 1024, a.buf + 128, 64),
			      tu_diff(b.buf + 10000, a.buf + 100, 250), tu_diff(b.buf + 10250, a.buf + 1000, 250),
			      tu_diff(b.buf + 20000, a.buf + 2000, 256), tu_diff(a.buf + 30000, b.buf + 10000, 500),
			      tu_diff(b.buf + 3072, want_inl, 32));
			CHECK("wr-atomics", *(uint64_t *)(a.buf + 60000) == 1000 && *(uint64_t *)(a.buf + 60008) == 2000 &&
						    *(uint64_t *)(b.buf + 60000) == 2005,
			      "cmp_swp returned %llu (want 1000), fetch_add returned %llu (want 2000), remote %llu (want 2005)",
			      (unsigned long long)*(uint64_t *)(a.buf + 60000),
			      (unsigned long long)*(uint64_t *)(a.buf + 60008),
			      (unsigned long long)*(uint64_t *)(b.buf + 60000));
		}
	}

	/* wr_abort posts nothing. */
	tu_post_recv(b.qp, 0x310, b.buf, 1024, b.mr->lkey);
	ibv_wr_start(qx);
	qx->wr_id = 20;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf, 10);
	ibv_wr_abort(qx);
	CHECK("wr_abort", cq_quiet(a.scq, 300) && cq_quiet(b.rcq, 0), "an aborted WR completed");

	/* Inline data longer than the QP allows: wr_complete fails (rxe: ENOSPC) and posts nothing. */
	{
		static uint8_t big[4096];

		ibv_wr_start(qx);
		qx->wr_id = 21;
		qx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		ibv_wr_send(qx);
		ibv_wr_set_inline_data(qx, big, sizeof(big));
		ret = ibv_wr_complete(qx);
		CHECK("wr_complete-inline-too-long-ENOSPC", ret == ENOSPC && cq_quiet(a.scq, 300) && cq_quiet(b.rcq, 0),
		      "ret %d (%s)", ret, tu_errname(ret));
	}
	/* And the QP still works afterwards (the receive posted before the abort is still there). */
	ibv_wr_start(qx);
	qx->wr_id = 22;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf, 10);
	ret = ibv_wr_complete(qx);
	n = tu_poll(b.rcq, wc, 1, 5000);
	CHECK("wr-after-abort", ret == 0 && n == 1 && wc[0].wr_id == 0x310 && wc[0].byte_len == 10 &&
					tu_poll(a.scq, wc + 1, 1, 5000) == 1 && wc[1].wr_id == 22,
	      "complete %d, %d receives %s", ret, n, tu_wc_str(&wc[0]));
out:
	tu_ep_close(&a);
	tu_ep_close(&b);
}

/* ---- UD and address handles ------------------------------------------------------------------------------------- */

#define GRH 40

static void ud(void)
{
	struct tu_ep a, b;
	struct ibv_ah_attr ah_attr, from;
	struct ibv_ah *ah = NULL, *reply = NULL;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	const char *why;
	int ret, n;

	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1)) || (why = tu_ep_qp(&a, IBV_QPT_UD, NULL, 64)) ||
	    (why = tu_ep_qp(&b, IBV_QPT_UD, NULL, 64))) {
		tu_fail("ud-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	if ((ret = tu_qp_init(a.qp, IBV_QPT_UD)) || (ret = tu_qp_init(b.qp, IBV_QPT_UD)) ||
	    (ret = tu_qp_ud_ready(a.qp, 0x10)) || (ret = tu_qp_ud_ready(b.qp, 0x20))) {
		tu_fail("ud-modify", "ret %d (%s)", ret, tu_errname(ret));
		goto out;
	}
	CHECK("ud-create", a.qp->qp_type == IBV_QPT_UD && a.qp->state == IBV_QPS_RTS, "type %d state %d",
	      a.qp->qp_type, a.qp->state);

	tu_ah_attr(&ah_attr, &b.gid, a.gid_index);
	ah = ibv_create_ah(a.pd, &ah_attr);
	if (!CHECK("create_ah", ah && ah->pd == a.pd && ah->context == a.ctx, "ah %p (%s)", (void *)ah,
		   tu_errname(errno)))
		goto out;

	memset(b.buf, 0, 4096);
	tu_post_recv(b.qp, 0x400, b.buf, GRH + 1024, b.mr->lkey);
	tu_post_recv(b.qp, 0x401, b.buf + 2048, GRH + 1024, b.mr->lkey);
	tu_fill(a.buf, 700, 50);
	memset(&wr, 0, sizeof(wr));
	sge = (struct ibv_sge){ .addr = (uintptr_t)a.buf, .length = 700, .lkey = a.mr->lkey };
	wr.wr_id = 0x500;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = b.qp->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	ret = ibv_post_send(a.qp, &wr, &bad);
	CHECK("ud-post_send", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
	n = tu_poll1(a.scq, &wc);
	CHECK("ud-sender-completion", n == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_SEND &&
					      wc.wr_id == 0x500 && wc.qp_num == a.qp->qp_num,
	      "%d completions %s", n, tu_wc_str(&wc));
	n = tu_poll1(b.rcq, &wc);
	CHECK("ud-receiver-completion", n == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
						wc.wr_id == 0x400 && wc.byte_len == GRH + 700 && (wc.wc_flags & IBV_WC_GRH) &&
						!(wc.wc_flags & IBV_WC_WITH_IMM) && wc.qp_num == b.qp->qp_num &&
						wc.src_qp == a.qp->qp_num && wc.pkey_index == 0,
	      "%d completions %s pkey_index %u (want byte_len %d, GRH flag, src_qp 0x%x)", n, tu_wc_str(&wc),
	      wc.pkey_index, GRH + 700, a.qp->qp_num);
	CHECK("ud-data", tu_diff(b.buf + GRH, a.buf, 700) < 0, "payload after the GRH differs at %ld",
	      tu_diff(b.buf + GRH, a.buf, 700));

	/* The receiver answers with an AH built from the completion and the GRH. */
	ret = ibv_init_ah_from_wc(b.ctx, 1, &wc, (struct ibv_grh *)b.buf, &from);
	CHECK("init_ah_from_wc", ret == 0 && from.is_global == 1 && !memcmp(&from.grh.dgid, &a.gid, 16) &&
					 from.grh.sgid_index == b.gid_index && from.port_num == 1,
	      "ret %d global %d sgid_index %d port %d dgid %s", ret, from.is_global, from.grh.sgid_index, from.port_num,
	      memcmp(&from.grh.dgid, &a.gid, 16) ? "is not the sender's GID" : "ok");
	reply = ibv_create_ah_from_wc(b.pd, &wc, (struct ibv_grh *)b.buf, 1);
	if (CHECK("create_ah_from_wc", reply != NULL, "NULL (%s)", tu_errname(errno))) {
		tu_post_recv(a.qp, 0x600, a.buf + 8192, GRH + 1024, a.mr->lkey);
		tu_fill(b.buf + 8192, 300, 51);
		memset(&wr, 0, sizeof(wr));
		sge = (struct ibv_sge){ .addr = (uintptr_t)b.buf + 8192, .length = 300, .lkey = b.mr->lkey };
		wr.wr_id = 0x501;
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htobe32(0x55667788);
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.ud.ah = reply;
		wr.wr.ud.remote_qpn = wc.src_qp;
		wr.wr.ud.remote_qkey = 0x11111111;
		ret = ibv_post_send(b.qp, &wr, &bad);
		n = tu_poll1(a.rcq, &wc);
		CHECK("ud-reply-SEND_WITH_IMM", ret == 0 && n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 0x600 &&
							wc.byte_len == GRH + 300 && (wc.wc_flags & IBV_WC_WITH_IMM) &&
							(wc.wc_flags & IBV_WC_GRH) && wc.imm_data == htobe32(0x55667788) &&
							wc.src_qp == b.qp->qp_num &&
							tu_diff(a.buf + 8192 + GRH, b.buf + 8192, 300) < 0,
		      "post %d, %d completions %s", ret, n, tu_wc_str(&wc));
		tu_poll(b.scq, &wc, 1, 5000);
	}

	/* A wrong Q_Key is dropped silently by the receiver. */
	memset(&wr, 0, sizeof(wr));
	sge = (struct ibv_sge){ .addr = (uintptr_t)a.buf, .length = 10, .lkey = a.mr->lkey };
	wr.wr_id = 0x502;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = b.qp->qp_num;
	wr.wr.ud.remote_qkey = 0x22222222;
	ret = ibv_post_send(a.qp, &wr, &bad);
	n = tu_poll1(a.scq, &wc);
	CHECK("ud-wrong-qkey-dropped", ret == 0 && n == 1 && wc.status == IBV_WC_SUCCESS && cq_quiet(b.rcq, 300),
	      "post %d, sender completion %d, receiver %s", ret, n, "got a completion");

	/* Inline UD send. */
	{
		char msg[] = "inline over UD";

		sge = (struct ibv_sge){ .addr = (uintptr_t)msg, .length = sizeof(msg), .lkey = 0 };
		wr.wr_id = 0x503;
		wr.wr.ud.remote_qkey = 0x11111111;
		wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		ret = ibv_post_send(a.qp, &wr, &bad);
		n = tu_poll1(b.rcq, &wc);
		CHECK("ud-inline", (ret == 0 && n == 1 && wc.wr_id == 0x401 && !strcmp((char *)b.buf + 2048 + GRH, msg)),
		      "post %d (%s), %d completions %s", ret, tu_errname(ret), n, tu_wc_str(&wc));
		tu_poll(a.scq, &wc, 1, 5000);
	}

	if (reply)
		CHECK("destroy_ah-from-wc", ibv_destroy_ah(reply) == 0, "ibv_destroy_ah failed");
	CHECK("destroy_ah", ibv_destroy_ah(ah) == 0, "ibv_destroy_ah failed");
	ah = NULL;
out:
	if (ah)
		ibv_destroy_ah(ah);
	tu_ep_close(&a);
	tu_ep_close(&b);
}

/* ---- UC --------------------------------------------------------------------------------------------------------- */

static void uc(void)
{
	struct tu_ep a, b;
	struct ibv_wc wc;
	const char *why;
	int ret, n;

	if ((why = tu_pair_open(&a, &b, IBV_QPT_UC, 0))) {
		tu_fail("uc-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	tu_fill(a.buf, 3000, 60);
	tu_post_recv(b.qp, 0x700, b.buf, 4096, b.mr->lkey);
	ret = tu_post_send1(a.qp, 0x800, IBV_WR_SEND, a.buf, 3000, a.mr->lkey, 0, 0, IBV_SEND_SIGNALED);
	n = tu_poll1(b.rcq, &wc);
	CHECK("uc-SEND", ret == 0 && n == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
				 wc.byte_len == 3000 && wc.qp_num == b.qp->qp_num && tu_diff(b.buf, a.buf, 3000) < 0,
	      "post %d, %d completions %s", ret, n, tu_wc_str(&wc));
	tu_poll1(a.scq, &wc);
	ret = tu_post_send1(a.qp, 0x801, IBV_WR_RDMA_WRITE, a.buf + 100, 2000, a.mr->lkey, (uintptr_t)b.buf + 8000,
			    b.mr->rkey, IBV_SEND_SIGNALED);
	n = tu_poll1(a.scq, &wc);
	CHECK("uc-RDMA_WRITE", ret == 0 && n == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_WRITE &&
				       tu_diff_wait(b.buf + 8000, a.buf + 100, 2000, 2000) < 0,
	      "post %d, %d completions %s", ret, n, tu_wc_str(&wc));
out:
	tu_ep_close(&a);
	tu_ep_close(&b);
}

int main(void)
{
	const char *why;
	struct ibv_context *ctx;

	tu_init();
	ctx = tu_open(tu_dev_name[0]);
	if (!ctx || ibv_query_device(ctx, &dattr))
		tu_abort(PROG, "open", "cannot open/query %s: %s", tu_dev_name[0], tu_errname(errno));
	ibv_close_device(ctx);

	create_and_states();
	if ((why = tu_pair_open(&A, &B, IBV_QPT_RC, 64)))
		tu_fail("rc-pair", "%s: %s", why, tu_errname(errno));
	else
		rc_data();
	tu_ep_close(&A);
	tu_ep_close(&B);
	wr_api();
	ud();
	uc();
	return tu_finish(PROG);
}
