/* Conformance: shared receive queues: create (ibv_create_srq, ibv_create_srq_ex), query, modify (limit, resize),
 * ibv_post_srq_recv and its errors, ibv_get_srq_num, receiving through one SRQ on two QPs, and what rxe does not
 * have (XRC domains). See testutil.h. */
#define _GNU_SOURCE
#include "testutil.h"

#define PROG "verbs_srq"

static struct ibv_device_attr dattr;

static struct ibv_srq *make_srq(struct tu_ep *e, uint32_t max_wr, uint32_t max_sge, void *srq_ctx)
{
	struct ibv_srq_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.srq_context = srq_ctx;
	ia.attr.max_wr = max_wr;
	ia.attr.max_sge = max_sge;
	return ibv_create_srq(e->pd, &ia);
}

static void basics(struct tu_ep *e)
{
	struct ibv_srq_init_attr ia;
	struct ibv_srq_attr sa;
	struct ibv_srq *srq;
	int ret, cookie = 0;
	uint32_t num = 0xffffffff;

	memset(&ia, 0, sizeof(ia));
	ia.srq_context = &cookie;
	ia.attr.max_wr = 16;
	ia.attr.max_sge = 2;
	srq = ibv_create_srq(e->pd, &ia);
	if (!CHECK("create_srq", srq && srq->context == e->ctx && srq->pd == e->pd && srq->srq_context == &cookie &&
					 ia.attr.max_wr >= 16 && ia.attr.max_sge >= 2,
		   "srq %p (%s), attr written back: max_wr %u max_sge %u", (void *)srq, tu_errname(errno),
		   ia.attr.max_wr, ia.attr.max_sge))
		return;
	memset(&sa, 0xa5, sizeof(sa));
	ret = ibv_query_srq(srq, &sa);
	CHECK("query_srq", ret == 0 && sa.max_wr >= 16 && sa.max_sge >= 2 && sa.srq_limit == 0,
	      "ret %d max_wr %u max_sge %u srq_limit %u", ret, sa.max_wr, sa.max_sge, sa.srq_limit);

	sa.srq_limit = 4;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT);
	memset(&sa, 0, sizeof(sa));
	CHECK("modify_srq-limit", ret == 0 && ibv_query_srq(srq, &sa) == 0 && sa.srq_limit == 4,
	      "ret %d (%s), srq_limit now %u", ret, tu_errname(ret), sa.srq_limit);
	sa.srq_limit = 100000;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT);
	CHECK("modify_srq-limit-above-max_wr-EINVAL", ret == EINVAL, "ret %d (%s)", ret, tu_errname(ret));
	sa.max_wr = 64;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR);
	memset(&sa, 0, sizeof(sa));
	CHECK("modify_srq-resize", ret == 0 && ibv_query_srq(srq, &sa) == 0 && sa.max_wr >= 64,
	      "ret %d (%s), max_wr now %u", ret, tu_errname(ret), sa.max_wr);
	sa.max_wr = dattr.max_srq_wr + 1;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR);
	CHECK("modify_srq-resize-too-large-EINVAL", ret == EINVAL, "max_wr %u: ret %d (%s)", sa.max_wr, ret,
	      tu_errname(ret));

	/* post_srq_recv: a chain whose second WR has too many SGEs. */
	{
		struct ibv_sge sge[8];
		struct ibv_recv_wr w1, w2, *bad = NULL;

		for (int i = 0; i < 8; i++)
			sge[i] = (struct ibv_sge){ .addr = (uintptr_t)e->buf + 64 * i, .length = 64, .lkey = e->mr->lkey };
		memset(&w1, 0, sizeof(w1));
		w1.wr_id = 1;
		w1.sg_list = sge;
		w1.num_sge = 2;
		w1.next = &w2;
		w2 = w1;
		w2.wr_id = 2;
		w2.num_sge = (int)ia.attr.max_sge + 1;
		w2.next = NULL;
		ret = ia.attr.max_sge < 8 ? ibv_post_srq_recv(srq, &w1, &bad) : -1;
		CHECK("post_srq_recv-too-many-sge-EINVAL", ret == EINVAL && bad == &w2, "max_sge %u: ret %d (%s), bad_wr %s",
		      ia.attr.max_sge, ret, tu_errname(ret), bad == &w2 ? "the second WR" : bad ? "other" : "NULL");
		w1.next = NULL;
		ret = ibv_post_srq_recv(srq, &w1, &bad);
		CHECK("post_srq_recv", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
		ret = ibv_post_srq_recv(srq, NULL, &bad);
		CHECK("post_srq_recv-empty-list", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
	}

	/* rxe SRQs are basic SRQs: no SRQ number (that is XRC's). */
	ret = ibv_get_srq_num(srq, &num);
	CHECK("get_srq_num-EOPNOTSUPP", ret == EOPNOTSUPP, "ret %d (%s) num 0x%x", ret, tu_errname(ret), num);
	CHECK("destroy_srq", ibv_destroy_srq(srq) == 0, "ibv_destroy_srq failed");

	/* Limits. */
	errno = 0;
	srq = make_srq(e, dattr.max_srq_wr + 1, 1, NULL);
	CHECK("create_srq-too-many-wr-EINVAL", !srq && errno == EINVAL, "max_wr %d: %p errno %s", dattr.max_srq_wr + 1,
	      (void *)srq, tu_errname(errno));
	if (srq)
		ibv_destroy_srq(srq);
	errno = 0;
	srq = make_srq(e, 16, dattr.max_srq_sge + 1, NULL);
	CHECK("create_srq-too-many-sge-EINVAL", !srq && errno == EINVAL, "max_sge %d: %p errno %s",
	      dattr.max_srq_sge + 1, (void *)srq, tu_errname(errno));
	if (srq)
		ibv_destroy_srq(srq);

	/* ibv_create_srq_ex, basic type. */
	{
		struct ibv_srq_init_attr_ex ix;

		memset(&ix, 0, sizeof(ix));
		ix.srq_context = &cookie;
		ix.attr.max_wr = 8;
		ix.attr.max_sge = 1;
		ix.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
		ix.srq_type = IBV_SRQT_BASIC;
		ix.pd = e->pd;
		srq = ibv_create_srq_ex(e->ctx, &ix);
		CHECK("create_srq_ex-basic", srq && srq->context == e->ctx && srq->pd == e->pd && srq->srq_context == &cookie,
		      "srq %p (%s)", (void *)srq, tu_errname(errno));
		if (srq) {
			memset(&sa, 0, sizeof(sa));
			ret = ibv_query_srq(srq, &sa);
			CHECK("create_srq_ex-query", ret == 0 && sa.max_wr >= 8 && sa.max_sge >= 1, "ret %d max_wr %u",
			      ret, sa.max_wr);
			ibv_destroy_srq(srq);
		}
	}

	/* No XRC on rxe: what ibv_xsrq_pingpong trips over ("Couldn't Open the XRC Domain 95"). */
	{
		struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
						 .fd = -1, .oflags = O_CREAT };
		struct ibv_xrcd *x;

		errno = 0;
		x = ibv_open_xrcd(e->ctx, &xa);
		CHECK("open_xrcd-EOPNOTSUPP", !x && errno == EOPNOTSUPP, "xrcd %p errno %s", (void *)x, tu_errname(errno));
		if (x)
			ibv_close_xrcd(x);
	}
}

/* Two RC QPs on B share one SRQ; A's two QPs send to them. */
static void receive_through_srq(void)
{
	struct tu_ep a, b;
	struct ibv_qp *aq[2] = { NULL, NULL }, *bq[2] = { NULL, NULL };
	struct ibv_srq *srq = NULL;
	struct ibv_wc wc[8];
	const char *why;
	int ret, n;

	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1))) {
		tu_fail("srq-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	srq = make_srq(&b, 32, 1, NULL);
	if (!srq) {
		tu_fail("srq-setup", "ibv_create_srq: %s", tu_errname(errno));
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		if ((why = tu_ep_qp(&a, IBV_QPT_RC, NULL, 0)))
			break;
		aq[i] = a.qp;
		if ((why = tu_ep_qp(&b, IBV_QPT_RC, srq, 0)))
			break;
		bq[i] = b.qp;
	}
	a.qp = b.qp = NULL;
	if (!CHECK("create_qp-with-srq", aq[1] && bq[1] && bq[0]->srq == srq && bq[1]->srq == srq,
		   "%s: %s", why ? why : "srq not recorded", tu_errname(errno)))
		goto out;
	for (int i = 0; i < 2; i++) {
		if ((ret = tu_qp_init(aq[i], IBV_QPT_RC)) || (ret = tu_qp_init(bq[i], IBV_QPT_RC)) ||
		    (ret = tu_qp_connect(aq[i], IBV_QPT_RC, bq[i]->qp_num, &b.gid, a.gid_index, 0x100, 0x200)) ||
		    (ret = tu_qp_connect(bq[i], IBV_QPT_RC, aq[i]->qp_num, &a.gid, b.gid_index, 0x200, 0x100))) {
			tu_fail("srq-connect", "ret %d (%s)", ret, tu_errname(ret));
			goto out;
		}
	}
	/* A QP attached to an SRQ has no receive queue of its own. */
	{
		struct ibv_sge sge = { .addr = (uintptr_t)b.buf, .length = 16, .lkey = b.mr->lkey };
		struct ibv_recv_wr w = { .wr_id = 9, .sg_list = &sge, .num_sge = 1 }, *bad;

		ret = ibv_post_recv(bq[0], &w, &bad);
		CHECK("post_recv-on-srq-qp-EINVAL", ret == EINVAL, "ret %d (%s)", ret, tu_errname(ret));
	}
	/* Four receives in the SRQ, in one chain. */
	{
		struct ibv_sge sge[4];
		struct ibv_recv_wr w[4], *bad = NULL;

		for (int i = 0; i < 4; i++) {
			sge[i] = (struct ibv_sge){ .addr = (uintptr_t)b.buf + 4096 * i, .length = 4096, .lkey = b.mr->lkey };
			memset(&w[i], 0, sizeof(w[i]));
			w[i].wr_id = 0x900 + i;
			w[i].sg_list = &sge[i];
			w[i].num_sge = 1;
			w[i].next = i < 3 ? &w[i + 1] : NULL;
		}
		ret = ibv_post_srq_recv(srq, w, &bad);
		CHECK("post_srq_recv-chain", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
	}
	tu_fill(a.buf, 16384, 70);
	ret = tu_post_send1(aq[0], 1, IBV_WR_SEND, a.buf, 1000, a.mr->lkey, 0, 0, IBV_SEND_SIGNALED);
	n = tu_poll(b.rcq, wc, 1, 5000);
	ret |= tu_post_send1(aq[1], 2, IBV_WR_SEND, a.buf + 4096, 2000, a.mr->lkey, 0, 0, IBV_SEND_SIGNALED);
	n += tu_poll(b.rcq, wc + 1, 1, 5000);
	ret |= tu_post_send1(aq[0], 3, IBV_WR_SEND_WITH_IMM, a.buf + 8192, 3000, a.mr->lkey, 0, 0, IBV_SEND_SIGNALED);
	n += tu_poll(b.rcq, wc + 2, 1, 5000);
	CHECK("srq-receives", ret == 0 && n == 3 && wc[0].wr_id == 0x900 && wc[0].qp_num == bq[0]->qp_num &&
				      wc[0].byte_len == 1000 && wc[1].wr_id == 0x901 && wc[1].qp_num == bq[1]->qp_num &&
				      wc[1].byte_len == 2000 && wc[2].wr_id == 0x902 && wc[2].qp_num == bq[0]->qp_num &&
				      wc[2].byte_len == 3000 && wc[0].status == IBV_WC_SUCCESS &&
				      wc[1].status == IBV_WC_SUCCESS && wc[2].status == IBV_WC_SUCCESS,
	      "post %d, %d completions: %s | %s | %s", ret, n, tu_wc_str(&wc[0]), tu_wc_str(&wc[1]), tu_wc_str(&wc[2]));
	CHECK("srq-data", tu_diff(b.buf, a.buf, 1000) < 0 && tu_diff(b.buf + 4096, a.buf + 4096, 2000) < 0 &&
				  tu_diff(b.buf + 8192, a.buf + 8192, 3000) < 0,
	      "data differs: %ld / %ld / %ld", tu_diff(b.buf, a.buf, 1000), tu_diff(b.buf + 4096, a.buf + 4096, 2000),
	      tu_diff(b.buf + 8192, a.buf + 8192, 3000));
	tu_poll(a.scq, wc, 3, 5000);

	ret = ibv_destroy_srq(srq);
	CHECK("destroy_srq-in-use-EBUSY", ret == EBUSY, "ret %d (%s)", ret, tu_errname(ret));
	if (ret == 0)
		srq = NULL;
out:
	for (int i = 0; i < 2; i++) {
		if (aq[i])
			ibv_destroy_qp(aq[i]);
		if (bq[i])
			ibv_destroy_qp(bq[i]);
	}
	if (srq)
		CHECK("destroy_srq-after-qps", ibv_destroy_srq(srq) == 0, "ibv_destroy_srq failed");
	tu_ep_close(&a);
	tu_ep_close(&b);
}

int main(void)
{
	struct tu_ep e;
	const char *why;

	tu_init();
	if ((why = tu_ep_open(&e, 0)))
		tu_abort(PROG, "setup", "%s: %s", why, tu_errname(errno));
	if (ibv_query_device(e.ctx, &dattr))
		tu_abort(PROG, "query_device", "ibv_query_device failed");
	basics(&e);
	tu_ep_close(&e);
	receive_through_srq();
	return tu_finish(PROG);
}
