/* Conformance: RDMA FLUSH on Soft-RoCE (rdma-core 56's verbs; Linux 6.2 added FLUSH to rxe).
 *
 * A's QP flushes a range of B's buffer, registered with IBV_ACCESS_FLUSH_GLOBAL, B's QP allowing it: with
 * ibv_wr_flush (an extended QP created with IBV_QP_EX_WITH_FLUSH) and with ibv_post_send(IBV_WR_FLUSH), whose
 * struct ibv_send_wr has no room for the flush's rkey, placement type and level (rdma-core 56's rxe posts them as
 * zero, and the kernel answers accordingly). Then a persistent flush of a region registered for global flushes.
 * The answers depend on the library (rdma-core 44's rxe refuses IBV_QP_EX_WITH_FLUSH: EOPNOTSUPP) and on the kernel
 * (6.1's refuses the FLUSH access flags and has no FLUSH opcode): each check says which it follows. The line
 * `# outcome flush: ...` sums up what happened, for comparing libraries (ours against rdma-core 56's, run on the
 * same kernel). See testutil.h. */
#include "testutil.h"

#define PROG "verbs_flush"
#define FLUSH_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_FLUSH_GLOBAL)

static char outcome[512];

static void out_add(const char *fmt, ...)
{
	size_t n = strlen(outcome);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(outcome + n, sizeof(outcome) - n, fmt, ap);
	va_end(ap);
}

/* An RC QP on ep's PD and CQs: extended with the FLUSH builder when `ex`, else plain. NULL (errno set) on failure. */
static struct ibv_qp *make_qp(struct tu_ep *ep, int ex)
{
	struct ibv_qp_init_attr_ex ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ep->scq;
	ia.recv_cq = ep->rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD;
	ia.pd = ep->pd;
	if (ex) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = IBV_QP_EX_WITH_FLUSH | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND;
	}
	return ibv_create_qp_ex(ep->ctx, &ia);
}

/* RESET -> INIT -> RTR -> RTS for both, B's QP accepting remote writes and (when `flush`) flushes. 0 or an errno. */
static int connect_pair(struct tu_ep *a, struct tu_ep *b, int flush, uint32_t psn)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RESET };
	int ret;

	if ((ret = ibv_modify_qp(a->qp, &attr, IBV_QP_STATE)) || (ret = ibv_modify_qp(b->qp, &attr, IBV_QP_STATE)))
		return ret;
	if ((ret = tu_qp_init(a->qp, IBV_QPT_RC)))
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			       (flush ? IBV_ACCESS_FLUSH_GLOBAL | IBV_ACCESS_FLUSH_PERSISTENT : 0);
	if ((ret = ibv_modify_qp(b->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)))
		return ret;
	if ((ret = tu_qp_connect(a->qp, IBV_QPT_RC, b->qp->qp_num, &b->gid, a->gid_index, psn, psn + 0x100)) ||
	    (ret = tu_qp_connect(b->qp, IBV_QPT_RC, a->qp->qp_num, &a->gid, b->gid_index, psn + 0x100, psn)))
		return ret;
	return 0;
}

/* The completion of the WR just posted on A, as "status/opcode" (or "none", "poll-error"). */
static const char *completion(struct tu_ep *a, struct ibv_wc *wc)
{
	static char buf[64];
	int n = tu_poll1(a->scq, wc);

	if (n < 0)
		return "poll-error";
	if (n == 0)
		return "none";
	snprintf(buf, sizeof(buf), "%s/%d", wc->status == IBV_WC_SUCCESS ? "success" : ibv_wc_status_str(wc->status),
		 wc->status == IBV_WC_SUCCESS ? (int)wc->opcode : -1);
	for (char *c = buf; *c; c++)
		if (*c == ' ')
			*c = '-';
	return buf;
}

int main(void)
{
	struct tu_ep a, b;
	struct ibv_device_attr_ex dax;
	struct ibv_mr *mrf = NULL, *target;
	struct ibv_qp_ex *qpx = NULL;
	struct ibv_wc wc;
	const char *why, *c;
	int ret, ge56 = tu_lib_ge56(), k62 = tu_kernel_ge(6, 2), flush_qp = 0;
	uint64_t caps;

	tu_init();
	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1)))
		tu_abort(PROG, "setup", "%s: %s", why, tu_errname(errno));

	/* The device's FLUSH capabilities (device_cap_flags_ex bits 38 and 39: IB_UVERBS_DEVICE_FLUSH_GLOBAL and
	 * _PERSISTENT), as the kernel reports them: rxe has both from Linux 6.2. */
	memset(&dax, 0, sizeof(dax));
	ret = ibv_query_device_ex(a.ctx, NULL, &dax);
	caps = dax.device_cap_flags_ex & (3ull << 38);
	CHECK("device-caps", ret == 0 && caps == (k62 ? 3ull << 38 : 0), "ret %d, flush bits 0x%llx (kernel %s 6.2)", ret,
	      (unsigned long long)(caps >> 38), k62 ? ">=" : "<");
	out_add("caps=%llu", (unsigned long long)(caps >> 38));

	/* B's region for flushes: Linux 6.1 refuses the FLUSH access flags (EINVAL). */
	errno = 0;
	mrf = ibv_reg_mr(b.pd, b.buf, 4096, FLUSH_ACCESS);
	CHECK("reg_mr-flush-global", k62 ? mrf != NULL : !mrf && errno == EINVAL, "mr %p errno %s (kernel %s 6.2)",
	      (void *)mrf, tu_errname(errno), k62 ? ">=" : "<");
	out_add(" reg_mr=%s", mrf ? "ok" : tu_errname(errno));

	/* Extended QPs with the FLUSH builder: rdma-core 56's rxe (and ours) create them, 44's answers EOPNOTSUPP. Under
	 * ours with rdma-core's rxe plug-in (RDMAV_PROVIDER=plugin), the plug-in's release decides: either. */
	errno = 0;
	a.qp = make_qp(&a, 1);
	if (a.qp) {
		qpx = ibv_qp_to_qp_ex(a.qp);
		flush_qp = qpx && qpx->wr_flush;
	}
	{
		int made = a.qp && flush_qp, refused = !a.qp && errno == EOPNOTSUPP;

		CHECK("create_qp_ex-with-flush", tu_ours() && !tu_native() ? made || refused : ge56 ? made : refused,
		      "qp %p, wr_flush %s, errno %s (library %s%s)", (void *)a.qp, flush_qp ? "set" : "NULL",
		      tu_errname(errno), ge56 ? "56 or later" : "44", tu_native() ? "" : ", rdma-core's provider");
	}
	out_add(" create_ex=%s", a.qp ? "ok" : tu_errname(errno));
	if (!a.qp)
		a.qp = make_qp(&a, 0);
	b.qp = make_qp(&b, 0);
	if (!a.qp || !b.qp)
		tu_abort(PROG, "create_qp", "%s", tu_errname(errno));
	ret = connect_pair(&a, &b, k62, 0x1000);
	CHECK("connect", ret == 0, "%s", tu_errname(ret));
	out_add(" connect=%s", tu_errname(ret));
	if (ret) {
		printf("# outcome flush: %s\n", outcome);
		goto out;
	}
	/* Without a FLUSH region (Linux 6.1), the flushes target B's ordinary region: the kernel's answer to a FLUSH
	 * WQE it does not know is what is compared then. */
	target = mrf ? mrf : b.mr;

	/* ibv_wr_flush of 64 bytes, global placement, the range. */
	if (flush_qp) {
		ibv_wr_start(qpx);
		qpx->wr_id = 1;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_flush(qpx, target->rkey, (uintptr_t)b.buf, 64, IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE);
		ret = ibv_wr_complete(qpx);
		c = ret ? tu_errname(ret) : completion(&a, &wc);
		CHECK("wr_flush", k62 ? !strcmp(c, "success/8") : ret == 0 && strcmp(c, "none") && strncmp(c, "success", 7),
		      "%s, want %s (kernel %s 6.2)", c, k62 ? "success with IBV_WC_FLUSH (8)" : "an error completion",
		      k62 ? ">=" : "<");
		out_add(" wr_flush=%s", c);

		/* Persistent placement on a region registered for global flushes only. */
		if (strncmp(c, "success", 7) && connect_pair(&a, &b, k62, 0x3000))
			tu_abort(PROG, "reconnect", "after wr_flush");
		ibv_wr_start(qpx);
		qpx->wr_id = 2;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_flush(qpx, target->rkey, (uintptr_t)b.buf, 64, IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE);
		ret = ibv_wr_complete(qpx);
		c = ret ? tu_errname(ret) : completion(&a, &wc);
		CHECK("wr_flush-persistent-on-global-mr", strcmp(c, "none") && strncmp(c, "success", 7),
		      "%s, want an error completion", c);
		out_add(" wr_flush_persistent=%s", c);
		if (connect_pair(&a, &b, k62, 0x5000))
			tu_abort(PROG, "reconnect", "after the persistent flush");
	}

	/* ibv_post_send(IBV_WR_FLUSH): the WR carries the remote address only. */
	ret = tu_post_send1(a.qp, 3, IBV_WR_FLUSH, NULL, 0, 0, (uintptr_t)b.buf, target->rkey, IBV_SEND_SIGNALED);
	c = ret ? tu_errname(ret) : completion(&a, &wc);
	CHECK("post_send-flush", ret == 0 && strcmp(c, "none"), "%s", c);
	out_add(" post_send_flush=%s", c);
	printf("# outcome flush: %s\n", outcome);

out:
	if (mrf)
		ibv_dereg_mr(mrf);
	tu_ep_close(&a);
	tu_ep_close(&b);
	return tu_finish(PROG);
}
