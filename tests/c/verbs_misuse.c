/* verbs_misuse: what is clearly invalid is refused before the kernel or the wire sees it, and misuse that
 * deadlocks rdma-core returns instead.
 *
 * Rejected arguments (EINVAL with our libibverbs; rdma-core passes them on and the kernel takes them, which these
 * checks record when run against it):
 *   opcode_unknown       ibv_post_send with an opcode that is not an enum ibv_wr_opcode (our rxe provider; with
 *                        rdma-core's the WR completes in error and the QP goes to ERROR)
 *   dest_qpn_24bit       ibv_modify_qp(RTR) with dest_qp_num >= 2^24
 *   modify_static_rate   ibv_modify_qp(RTR) with ah_attr.static_rate not an enum ibv_rate
 *   ah_static_rate       ibv_create_ah with such a static_rate
 *   qp_ex_foreign_{pd,cq,srq}  ibv_create_qp_ex with a PD, CQ or SRQ of another context (rdma-core sends the other
 *                        context's handle numbers to the kernel, which resolves them in this context)
 *   gid_ex_entry_size    _ibv_query_gid_ex / _ibv_query_gid_table with entry_size < sizeof(struct ibv_gid_entry)
 *   ud_ah_foreign*       a UD send on rxe0 through an AH made on rxe1's context, by ibv_post_send (alone, and second
 *                        in a list) and by ibv_wr_set_ud_addr (our rxe provider: EINVAL, that WR not posted, no
 *                        completion, the QP still sends; rdma-core's posts rxe1's AH number, recorded). Outside a
 *                        forked child: there the doorbell's write() is refused (EACCES) before anything is judged.
 * No deadlock (each in a forked child with a 5 s limit; rdma-core hangs):
 *   wr_start_twice       ibv_wr_start twice: the second is refused (logged), ibv_wr_complete returns EINVAL, the
 *                        QP's batch API works again afterwards
 *   ack_cq_too_many      ibv_ack_cq_events with more events than were delivered, then ibv_destroy_cq returns 0
 *   ack_async_too_many   ibv_ack_async_event for a QP event never delivered, then ibv_destroy_qp returns 0
 */
#include "testutil.h"

static const char *lib(void)
{
	return tu_ours() ? "ours" : "rdma-core";
}

/* Who drives the device: our provider, rdma-core's plug-in under our libibverbs, or rdma-core. */
static const char *provider(void)
{
	return tu_native() ? "ours" : tu_ours() ? "rdma-core's plug-in" : "rdma-core";
}

/* ---- Rejected arguments ----------------------------------------------------------------------------------------- */

static void opcode_unknown(void)
{
	struct tu_ep a, b;
	struct ibv_wc wc;
	const char *why;
	int ret, n;

	if ((why = tu_pair_open(&a, &b, IBV_QPT_RC, 0))) {
		tu_fail("opcode_unknown", "setup: %s: %s", why, tu_errname(errno));
		goto out;
	}
	ret = tu_post_send1(a.qp, 1, (enum ibv_wr_opcode)99, a.buf, 64, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
			    IBV_SEND_SIGNALED);
	n = tu_poll(a.scq, &wc, 1, 1000);
	if (tu_native()) {
		CHECK("opcode_unknown", ret == EINVAL && n == 0, "post %s, %d completions (%s); want EINVAL and none",
		      tu_errname(ret), n, n == 1 ? tu_wc_str(&wc) : "-");
		/* The QP is untouched: a valid WR still works. */
		ret = tu_post_send1(a.qp, 2, IBV_WR_RDMA_WRITE, a.buf, 64, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
				    IBV_SEND_SIGNALED);
		n = tu_poll1(a.scq, &wc);
		CHECK("opcode_unknown-qp-usable", ret == 0 && n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 2,
		      "post %s, %d completions (%s)", tu_errname(ret), n, n == 1 ? tu_wc_str(&wc) : "-");
	} else {
		/* rdma-core's rxe posts it; the kernel completes it with an error. */
		tu_pass("opcode_unknown", "%s provider: post %s, then %s", provider(), tu_errname(ret),
			n == 1 ? ibv_wc_status_str(wc.status) : "no completion");
	}
out:
	tu_ep_close(&a);
	tu_ep_close(&b);
}

/* RESET -> INIT -> RTR of ep's QP towards (dqpn, gid) with the given static rate. ibv_modify_qp's result of RTR. */
static int rtr_with(struct tu_ep *e, uint32_t dqpn, uint8_t rate)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	ibv_modify_qp(e->qp, &a, IBV_QP_STATE);
	if ((ret = tu_qp_init(e->qp, IBV_QPT_RC)))
		return 1000 + ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	tu_ah_attr(&a.ah_attr, &e->gid, e->gid_index);
	a.ah_attr.static_rate = rate;
	return ibv_modify_qp(e->qp, &a,
			     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

static void modify_and_ah(void)
{
	struct tu_ep e;
	struct ibv_ah_attr ah;
	struct ibv_ah *h;
	const char *why;
	int ret, ok;

	if ((why = tu_ep_open(&e, 0)) || (why = tu_ep_qp(&e, IBV_QPT_RC, NULL, 0))) {
		tu_fail("dest_qpn_24bit", "setup: %s: %s", why, tu_errname(errno));
		tu_ep_close(&e);
		return;
	}
	ok = rtr_with(&e, e.qp->qp_num, IBV_RATE_MAX);
	if (!CHECK("rtr-baseline", ok == 0, "a valid RTR failed: %s", tu_errname(ok)))
		goto out;

	ret = rtr_with(&e, 0x1000000 | e.qp->qp_num, IBV_RATE_MAX);
	if (tu_ours())
		CHECK("dest_qpn_24bit", ret == EINVAL, "dest_qp_num %#x: %s, want EINVAL", 0x1000000 | e.qp->qp_num,
		      tu_errname(ret));
	else
		tu_pass("dest_qpn_24bit", "rdma-core: dest_qp_num %#x answered %s", 0x1000000 | e.qp->qp_num,
			tu_errname(ret));

	ret = rtr_with(&e, e.qp->qp_num, 200);
	if (tu_ours())
		CHECK("modify_static_rate", ret == EINVAL, "static_rate 200: %s, want EINVAL", tu_errname(ret));
	else
		tu_pass("modify_static_rate", "rdma-core: static_rate 200 answered %s", tu_errname(ret));
	ret = rtr_with(&e, e.qp->qp_num, 1);
	if (tu_ours())
		CHECK("modify_static_rate-1", ret == EINVAL, "static_rate 1 (no enum value): %s, want EINVAL",
		      tu_errname(ret));
	else
		tu_pass("modify_static_rate-1", "rdma-core: static_rate 1 answered %s", tu_errname(ret));
	ret = rtr_with(&e, e.qp->qp_num, IBV_RATE_100_GBPS);
	CHECK("modify_static_rate-valid", ret == 0, "static_rate IBV_RATE_100_GBPS: %s", tu_errname(ret));

	tu_ah_attr(&ah, &e.gid, e.gid_index);
	ah.static_rate = 200;
	errno = 0;
	h = ibv_create_ah(e.pd, &ah);
	if (tu_ours())
		CHECK("ah_static_rate", !h && errno == EINVAL, "ibv_create_ah(static_rate 200): %p, errno %s",
		      (void *)h, tu_errname(errno));
	else
		tu_pass("ah_static_rate", "rdma-core: ibv_create_ah(static_rate 200) %s", h ? "created" : tu_errname(errno));
	if (h)
		ibv_destroy_ah(h);
	ah.static_rate = IBV_RATE_10_GBPS;
	h = ibv_create_ah(e.pd, &ah);
	CHECK("ah_static_rate-valid", h != NULL, "ibv_create_ah(IBV_RATE_10_GBPS): %s", tu_errname(errno));
	if (h)
		ibv_destroy_ah(h);
out:
	tu_ep_close(&e);
}

/* The attributes of a small RC QP on ep's PD and CQs, created through the extended op (send ops flags set, so the
 * inline takes ibv_create_qp_ex's path, not ibv_create_qp). */
static void rc_send_qp_attr(struct ibv_qp_init_attr_ex *ia, struct tu_ep *ep)
{
	memset(ia, 0, sizeof(*ia));
	ia->qp_type = IBV_QPT_RC;
	ia->send_cq = ep->scq;
	ia->recv_cq = ep->rcq;
	ia->cap.max_send_wr = ia->cap.max_recv_wr = 4;
	ia->cap.max_send_sge = ia->cap.max_recv_sge = 1;
	ia->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia->send_ops_flags = IBV_QP_EX_WITH_SEND;
	ia->pd = ep->pd;
}

/* ibv_create_qp_ex on a's context with one object of b's: NULL/EINVAL with ours. */
static void qp_ex_foreign_one(const char *name, struct tu_ep *a, struct tu_ep *b, int which)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_srq_init_attr sa;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp;

	rc_send_qp_attr(&ia, a);
	if (which == 0)
		ia.pd = b->pd;
	else if (which == 1)
		ia.recv_cq = b->rcq;
	else {
		memset(&sa, 0, sizeof(sa));
		sa.attr.max_wr = 4;
		sa.attr.max_sge = 1;
		srq = ibv_create_srq(b->pd, &sa);
		if (!srq) {
			tu_fail(name, "setup: ibv_create_srq: %s", tu_errname(errno));
			return;
		}
		ia.srq = srq;
		ia.cap.max_recv_wr = ia.cap.max_recv_sge = 0;
	}
	errno = 0;
	qp = ibv_create_qp_ex(a->ctx, &ia);
	if (tu_ours())
		CHECK(name, !qp && errno == EINVAL, "ibv_create_qp_ex: %p, errno %s; want NULL, EINVAL", (void *)qp,
		      tu_errname(errno));
	else
		tu_pass(name, "rdma-core: ibv_create_qp_ex %s", qp ? "created a QP" : tu_errname(errno));
	if (qp)
		ibv_destroy_qp(qp);
	if (srq)
		ibv_destroy_srq(srq);
}

static void qp_ex_foreign(void)
{
	struct tu_ep a, b;
	const char *why;

	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1))) {
		tu_fail("qp_ex_foreign", "setup: %s: %s", why, tu_errname(errno));
	} else {
		qp_ex_foreign_one("qp_ex_foreign_pd", &a, &b, 0);
		qp_ex_foreign_one("qp_ex_foreign_cq", &a, &b, 1);
		qp_ex_foreign_one("qp_ex_foreign_srq", &a, &b, 2);
	}
	tu_ep_close(&a);
	tu_ep_close(&b);
}

/* ---- A UD send through another context's AH --------------------------------------------------------------------- */

/* Completions on cq within ms (0: none arrived). */
static int cq_count(struct ibv_cq *cq, unsigned ms)
{
	struct ibv_wc wc[8];

	return tu_poll(cq, wc, 8, ms);
}

/* One signalled UD send of 64 bytes of a's buffer to b's QP through ah, by ibv_post_send; *bad_id gets the wr_id of
 * bad_wr, 0 if bad_wr is NULL (bad_wr itself would point into this function's frame). */
static int ud_post(struct tu_ep *a, struct tu_ep *b, struct ibv_ah *ah, uint64_t wr_id, uint64_t *bad_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)a->buf, .length = 64, .lkey = a->mr->lkey };
	struct ibv_send_wr wr, *bad = NULL;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = b->qp->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	ret = ibv_post_send(a->qp, &wr, &bad);
	*bad_id = bad ? bad->wr_id : 0;
	return ret;
}

/* The same send as a batch of the extended API (ibv_wr_set_ud_addr). */
static int ud_wr(struct tu_ep *a, struct tu_ep *b, struct ibv_ah *ah, uint64_t wr_id)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(a->qp);

	ibv_wr_start(qx);
	qx->wr_id = wr_id;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_ud_addr(qx, ah, b->qp->qp_num, 0x11111111);
	ibv_wr_set_sge(qx, a->mr->lkey, (uintptr_t)a->buf, 64);
	return ibv_wr_complete(qx);
}

/* The next send completion on a's CQ within 2 s: its wr_id if it succeeded, else ~0 (none, or an error). */
static uint64_t ud_done(struct tu_ep *a, char *why, size_t len)
{
	struct ibv_wc wc;
	int n = tu_poll(a->scq, &wc, 1, 2000);

	snprintf(why, len, "%s", n == 1 ? tu_wc_str(&wc) : "no completion");
	return n == 1 && wc.status == IBV_WC_SUCCESS ? wc.wr_id : ~0ull;
}

static void ud_ah_foreign(void)
{
	struct tu_ep a, b;
	struct ibv_qp_init_attr_ex ia;
	struct ibv_ah_attr attr;
	struct ibv_ah *mine = NULL, *theirs = NULL;
	struct ibv_send_wr *bad, w[2];
	struct ibv_sge sge[2];
	struct ibv_wc wc;
	const char *why;
	char what[300];
	int ret, n, m;
	uint64_t id, bad_id;

	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1)) || (why = tu_ep_qp(&b, IBV_QPT_UD, NULL, 0)))
		goto setup;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_UD;
	ia.send_cq = a.scq;
	ia.recv_cq = a.rcq;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.send_ops_flags = IBV_QP_EX_WITH_SEND;
	ia.pd = a.pd;
	why = "ibv_create_qp_ex(UD)";
	if (!(a.qp = ibv_create_qp_ex(a.ctx, &ia)))
		goto setup;
	why = "ibv_modify_qp(UD to RTS)";
	if ((errno = tu_qp_init(a.qp, IBV_QPT_UD)) || (errno = tu_qp_init(b.qp, IBV_QPT_UD)) ||
	    (errno = tu_qp_ud_ready(a.qp, 1)) || (errno = tu_qp_ud_ready(b.qp, 2)))
		goto setup;
	/* rxe0's AH towards rxe1, and one of rxe1 (towards rxe0: a valid AH of that device). */
	tu_ah_attr(&attr, &b.gid, a.gid_index);
	why = "ibv_create_ah(rxe0)";
	if (!(mine = ibv_create_ah(a.pd, &attr)))
		goto setup;
	tu_ah_attr(&attr, &a.gid, b.gid_index);
	why = "ibv_create_ah(rxe1)";
	if (!(theirs = ibv_create_ah(b.pd, &attr)))
		goto setup;
	for (int i = 0; i < 8; i++)
		tu_post_recv(b.qp, 0x100 + i, b.buf + 1024 * i, 1024, b.mr->lkey);

	if (!tu_native()) {
		/* rdma-core's rxe writes rxe1's AH number into rxe0's ring; what the kernel makes of it is recorded. */
		ret = ud_post(&a, &b, theirs, 0x10, &bad_id);
		ud_done(&a, what, sizeof(what));
		n = cq_count(b.rcq, 300);
		tu_pass("ud_ah_foreign", "%s provider: ibv_post_send %s; sender: %s; receiver: %d completion(s)",
			provider(), tu_errname(ret), what, n);
		ret = ud_wr(&a, &b, theirs, 0x11);
		ud_done(&a, what, sizeof(what));
		tu_pass("ud_ah_foreign_wr", "%s provider: ibv_wr_complete %s; sender: %s", provider(), tu_errname(ret),
			what);
		goto out;
	}

	/* Alone: refused, bad_wr on it, nothing completes on either side. */
	ret = ud_post(&a, &b, theirs, 0x10, &bad_id);
	n = cq_count(a.scq, 300);
	m = cq_count(b.rcq, 0);
	CHECK("ud_ah_foreign", ret == EINVAL && bad_id == 0x10 && n == 0 && m == 0,
	      "ibv_post_send %s, bad_wr %s, %d sender and %d receiver completion(s); want EINVAL, bad_wr on it, none",
	      tu_errname(ret), bad_id == 0x10 ? "on it" : bad_id ? "another" : "NULL", n, m);
	/* The QP still sends: the next valid WR completes, on both sides, as the only completion. */
	ret = ud_post(&a, &b, mine, 0x11, &bad_id);
	id = ud_done(&a, what, sizeof(what));
	n = tu_poll(b.rcq, &wc, 1, 2000);
	CHECK("ud_ah_foreign-qp-usable", ret == 0 && id == 0x11 && n == 1 && wc.status == IBV_WC_SUCCESS &&
						   wc.wr_id == 0x100 && cq_count(a.scq, 200) == 0 &&
						   cq_count(b.rcq, 0) == 0,
	      "post %s, sender %s, receiver %d (%s)", tu_errname(ret), what, n, n == 1 ? tu_wc_str(&wc) : "-");

	/* Second in a list: the first is posted (and completes), the second refused and named by bad_wr. */
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 2; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)a.buf, .length = 64, .lkey = a.mr->lkey };
		w[i].wr_id = 0x12 + i;
		w[i].opcode = IBV_WR_SEND;
		w[i].sg_list = &sge[i];
		w[i].num_sge = 1;
		w[i].send_flags = IBV_SEND_SIGNALED;
		w[i].wr.ud.ah = i ? theirs : mine;
		w[i].wr.ud.remote_qpn = b.qp->qp_num;
		w[i].wr.ud.remote_qkey = 0x11111111;
	}
	w[0].next = &w[1];
	bad = NULL;
	ret = ibv_post_send(a.qp, w, &bad);
	id = ud_done(&a, what, sizeof(what));
	n = tu_poll(b.rcq, &wc, 1, 2000);
	CHECK("ud_ah_foreign-second-in-list", ret == EINVAL && bad == &w[1] && id == 0x12 && n == 1 &&
							wc.wr_id == 0x101 && cq_count(a.scq, 200) == 0 &&
							cq_count(b.rcq, 0) == 0,
	      "ibv_post_send %s, bad_wr %s, sender %s, receiver %d; want EINVAL on the second, the first completed",
	      tu_errname(ret), bad == &w[1] ? "the second" : bad ? "another" : "NULL", what, n);

	/* ibv_wr_set_ud_addr: the batch fails, nothing of it is posted; a valid batch afterwards completes. */
	ret = ud_wr(&a, &b, theirs, 0x14);
	n = cq_count(a.scq, 300);
	m = cq_count(b.rcq, 0);
	CHECK("ud_ah_foreign_wr", ret == EINVAL && n == 0 && m == 0,
	      "ibv_wr_complete %s, %d sender and %d receiver completion(s); want EINVAL, none", tu_errname(ret), n, m);
	ret = ud_wr(&a, &b, mine, 0x15);
	id = ud_done(&a, what, sizeof(what));
	n = tu_poll(b.rcq, &wc, 1, 2000);
	CHECK("ud_ah_foreign_wr-qp-usable", ret == 0 && id == 0x15 && n == 1 && wc.wr_id == 0x102 &&
						      cq_count(a.scq, 200) == 0 && cq_count(b.rcq, 0) == 0,
	      "ibv_wr_complete %s, sender %s, receiver %d", tu_errname(ret), what, n);
	goto out;
setup:
	tu_fail("ud_ah_foreign", "setup: %s: %s", why, tu_errname(errno));
out:
	if (mine)
		ibv_destroy_ah(mine);
	if (theirs)
		ibv_destroy_ah(theirs);
	tu_ep_close(&a);
	tu_ep_close(&b);
}

static void gid_entry_size(void)
{
	struct ibv_gid_entry ent[64];
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);
	ssize_t n;
	int ret;

	if (!ctx) {
		tu_fail("gid_ex_entry_size", "setup: ibv_open_device: %s", tu_errname(errno));
		return;
	}
	ret = _ibv_query_gid_ex(ctx, 1, tu_gid_index[0], ent, 0, 16);
	if (tu_ours())
		CHECK("gid_ex_entry_size", ret == EINVAL, "_ibv_query_gid_ex(entry_size 16): %s, want EINVAL",
		      tu_errname(ret));
	else
		tu_pass("gid_ex_entry_size", "rdma-core: _ibv_query_gid_ex(entry_size 16) answered %s", tu_errname(ret));
	ret = ibv_query_gid_ex(ctx, 1, tu_gid_index[0], ent, 0);
	CHECK("gid_ex_entry_size-valid", ret == 0, "ibv_query_gid_ex: %s", tu_errname(ret));

	n = _ibv_query_gid_table(ctx, ent, 64, 0, 16);
	if (tu_ours())
		CHECK("gid_table_entry_size", n == -EINVAL, "_ibv_query_gid_table(entry_size 16): %zd, want -EINVAL", n);
	else
		tu_pass("gid_table_entry_size", "rdma-core: _ibv_query_gid_table(entry_size 16) answered %zd", n);
	n = ibv_query_gid_table(ctx, ent, 64, 0);
	CHECK("gid_table_entry_size-valid", n > 0, "ibv_query_gid_table: %zd", n);
	ibv_close_device(ctx);
}

/* ---- No deadlock ------------------------------------------------------------------------------------------------ */

/* Child: wr_start twice on a fresh ibv_qp_ex, then wr_complete. Exits with wr_complete's result (0-255), 200 + n
 * for a setup failure, or 199 when the QP's batch API does not work again afterwards. */
static int child_wr_start_twice(void *arg)
{
	struct tu_ep e;
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_ex *qx;
	struct ibv_qp *qp;
	int ret;

	(void)arg;
	if (tu_ep_open(&e, 0))
		return 201;
	rc_send_qp_attr(&ia, &e);
	qp = ibv_create_qp_ex(e.ctx, &ia);
	if (!qp)
		return 202;
	qx = ibv_qp_to_qp_ex(qp);
	if (!qx)
		return 203;
	ibv_wr_start(qx);
	ibv_wr_start(qx); /* deadlocks in rdma-core */
	ret = ibv_wr_complete(qx);
	/* Usable again: a batch that is aborted, then an empty one. */
	ibv_wr_start(qx);
	ibv_wr_abort(qx);
	ibv_wr_start(qx);
	ibv_wr_abort(qx);
	ibv_destroy_qp(qp);
	tu_ep_close(&e);
	return ret;
}

static int child_ack_cq(void *arg)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;

	(void)arg;
	if (!ctx || !(ch = ibv_create_comp_channel(ctx)) || !(cq = ibv_create_cq(ctx, 4, NULL, ch, 0)))
		return 201;
	ibv_ack_cq_events(cq, 3); /* none was delivered */
	if (ibv_destroy_cq(cq)) /* waits forever in rdma-core */
		return 1;
	ibv_destroy_comp_channel(ch);
	ibv_close_device(ctx);
	return 0;
}

static int child_ack_async(void *arg)
{
	struct tu_ep e;
	struct ibv_async_event ev;

	(void)arg;
	if (tu_ep_open(&e, 0) || tu_ep_qp(&e, IBV_QPT_RC, NULL, 0))
		return 201;
	memset(&ev, 0, sizeof(ev));
	ev.element.qp = e.qp;
	ev.event_type = IBV_EVENT_QP_FATAL;
	ibv_ack_async_event(&ev); /* never delivered */
	if (ibv_destroy_qp(e.qp)) /* waits forever in rdma-core */
		return 1;
	e.qp = NULL;
	tu_ep_close(&e);
	return 0;
}

static const char *child_str(int r)
{
	static char buf[64];

	if (r == -1)
		return "hung (killed after 5 s)";
	if (r <= -2 && r > -100)
		snprintf(buf, sizeof(buf), "died of signal %d", -2 - r);
	else if (r == -100)
		return "fork failed";
	else
		snprintf(buf, sizeof(buf), "exit %d", r);
	return buf;
}

static void no_deadlock(void)
{
	int r;

	r = tu_run_child(child_wr_start_twice, NULL, 5);
	if (tu_native())
		CHECK("wr_start_twice", r == EINVAL, "child %s; want exit %d (ibv_wr_complete's EINVAL)", child_str(r),
		      EINVAL);
	else
		tu_pass("wr_start_twice", "%s provider: %s", provider(), child_str(r));

	r = tu_run_child(child_ack_cq, NULL, 5);
	if (tu_ours())
		CHECK("ack_cq_too_many", r == 0, "child %s; want ibv_destroy_cq to return 0", child_str(r));
	else
		tu_pass("ack_cq_too_many", "rdma-core: ibv_destroy_cq after acknowledging 3 undelivered events: %s",
			child_str(r));

	r = tu_run_child(child_ack_async, NULL, 5);
	if (tu_ours())
		CHECK("ack_async_too_many", r == 0, "child %s; want ibv_destroy_qp to return 0", child_str(r));
	else
		tu_pass("ack_async_too_many", "rdma-core: ibv_destroy_qp after acknowledging an undelivered event: %s",
			child_str(r));
}

/* ---- Dead handles behind the header inlines ---------------------------------------------------------------- */

/* Child: creates a QP (ibv_qp_ex, SEND), an SRQ and a CQ (ibv_cq_ex), destroys them, then makes one data-path call
 * on the stale pointer: `which` picks it. Exits with the call's errno (positive; 0 when it succeeded), 100 + errno
 * when bad_wr was not set to the failing WR, 200 + n for a setup failure. rdma-core frees the objects: there the
 * call reads freed memory (a crash, or an answer from whatever lives there now). */
static int child_dead_handle(void *arg)
{
	int which = (int)(intptr_t)arg, ret = 0;
	struct tu_ep e;
	struct ibv_qp_init_attr_ex ia;
	struct ibv_cq_init_attr_ex ca;
	struct ibv_srq_init_attr sia;
	struct ibv_poll_cq_attr pa;
	struct ibv_send_wr swr, *sbad = NULL;
	struct ibv_recv_wr rwr, *rbad = NULL;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_qp *qp, *newer;
	struct ibv_qp_ex *qx;
	struct ibv_srq *srq;
	struct ibv_cq_ex *cqx;

	if (tu_ep_open(&e, 0))
		return 201;
	rc_send_qp_attr(&ia, &e);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 4;
	ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	memset(&sia, 0, sizeof(sia));
	sia.attr.max_wr = 4;
	sia.attr.max_sge = 1;
	qp = ibv_create_qp_ex(e.ctx, &ia);
	srq = ibv_create_srq(e.pd, &sia);
	cqx = ibv_create_cq_ex(e.ctx, &ca);
	if (!qp || !srq || !cqx)
		return 202;
	qx = ibv_qp_to_qp_ex(qp);
	if (!qx)
		return 203;
	if (ibv_destroy_qp(qp) || ibv_destroy_srq(srq) || ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)))
		return 204;
	memset(&sge, 0, sizeof(sge));
	sge.addr = (uintptr_t)e.buf;
	sge.length = 8;
	sge.lkey = e.mr->lkey;
	memset(&swr, 0, sizeof(swr));
	swr.opcode = IBV_WR_SEND;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	switch (which) {
	case 0:
		ret = ibv_post_send(qp, &swr, &sbad);
		ret = ret && sbad != &swr ? 100 + ret : ret;
		break;
	case 1:
		ret = ibv_post_recv(qp, &rwr, &rbad);
		ret = ret && rbad != &rwr ? 100 + ret : ret;
		break;
	case 2:
		ret = ibv_post_srq_recv(srq, &rwr, &rbad);
		ret = ret && rbad != &rwr ? 100 + ret : ret;
		break;
	case 3:
		ret = ibv_poll_cq(ibv_cq_ex_to_cq(cqx), 1, &wc);
		ret = ret < 0 ? -ret : 0;
		break;
	case 4:
		ret = ibv_req_notify_cq(ibv_cq_ex_to_cq(cqx), 0);
		break;
	case 5:
		ibv_wr_start(qx);
		qx->wr_id = 1;
		ibv_wr_send(qx);
		ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf, 8);
		ret = ibv_wr_complete(qx);
		break;
	case 6:
		memset(&pa, 0, sizeof(pa));
		ret = ibv_start_poll(cqx, &pa);
		if (ret == 0)
			ibv_end_poll(cqx);
		break;
	default:
		/* A QP created after the destroy does not take the stale one's place while it is a tombstone: a post
		 * through the stale pointer cannot land in it. */
		newer = ibv_create_qp_ex(e.ctx, &ia);
		if (!newer)
			return 205;
		ret = newer == qp ? 99 : ibv_post_send(qp, &swr, &sbad);
		ibv_destroy_qp(newer);
		break;
	}
	tu_ep_close(&e); /* children clean up too: valgrind judges their leaks */
	return ret;
}

static void dead_handles(void)
{
	static const char *const names[] = { "dead_post_send", "dead_post_recv", "dead_post_srq_recv", "dead_poll_cq",
					     "dead_req_notify_cq", "dead_wr_complete", "dead_start_poll", "dead_not_reused" };

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
		int r = tu_run_child(child_dead_handle, (void *)(intptr_t)i, 5);

		if (tu_native())
			CHECK(names[i], r == EINVAL, "child %s; want exit %d (EINVAL from the tombstone, bad_wr set)",
			      child_str(r), EINVAL);
		else
			tu_pass(names[i], "%s provider: on the destroyed object: %s", provider(), child_str(r));
	}
}

int main(void)
{
	tu_init();
	printf("# libibverbs: %s, provider: %s\n", lib(), provider());
	no_deadlock();
	dead_handles();
	opcode_unknown();
	modify_and_ah();
	qp_ex_foreign();
	ud_ah_foreign();
	gid_entry_size();
	return tu_finish("verbs_misuse");
}
