/* Conformance: completion queues and completion channels: create/resize/destroy and their limits, notification
 * (next completion and solicited-only) with ibv_get_cq_event/ibv_ack_cq_events on real completions, the
 * ibv_create_cq_ex polling API. See testutil.h. (Destroying a CQ with unacknowledged events blocks in rdma-core,
 * by design; that is not tested here.) */
#define _GNU_SOURCE
#include "testutil.h"

#define PROG "verbs_cq"

static struct ibv_context *ctx;
static struct ibv_device_attr dattr;
static int cookie;

static void create_destroy(void)
{
	struct ibv_cq *cq;
	int ret;

	cq = ibv_create_cq(ctx, 16, &cookie, NULL, 0);
	CHECK("create_cq", cq && cq->cqe >= 16 && cq->context == ctx && cq->cq_context == &cookie && !cq->channel,
	      "cq %p (%s) cqe %d", (void *)cq, tu_errname(errno), cq ? cq->cqe : 0);
	if (cq) {
		ret = ibv_resize_cq(cq, 100);
		CHECK("resize_cq-grow", ret == 0 && cq->cqe >= 100, "ret %d (%s) cqe %d", ret, tu_errname(ret), cq->cqe);
		ret = ibv_resize_cq(cq, 8);
		CHECK("resize_cq-shrink-empty", ret == 0 && cq->cqe >= 8, "ret %d (%s) cqe %d", ret, tu_errname(ret),
		      cq->cqe);
		ret = ibv_resize_cq(cq, dattr.max_cqe + 1);
		CHECK("resize_cq-too-large-EINVAL", ret == EINVAL, "resize to max_cqe+1 (%d): ret %d (%s)",
		      dattr.max_cqe + 1, ret, tu_errname(ret));
		ret = ibv_resize_cq(cq, 0);
		CHECK("resize_cq-0-EINVAL", ret == EINVAL, "ret %d (%s)", ret, tu_errname(ret));
		CHECK("destroy_cq", ibv_destroy_cq(cq) == 0, "ibv_destroy_cq failed");
	}

	cq = ibv_create_cq(ctx, dattr.max_cqe, NULL, NULL, 0);
	CHECK("create_cq-max_cqe", cq && cq->cqe >= dattr.max_cqe, "cqe %d: %p (%s)", dattr.max_cqe, (void *)cq,
	      tu_errname(errno));
	if (cq)
		ibv_destroy_cq(cq);

	errno = 0;
	cq = ibv_create_cq(ctx, dattr.max_cqe + 1, NULL, NULL, 0);
	CHECK("create_cq-too-large-EINVAL", !cq && errno == EINVAL, "cqe max_cqe+1 = %d: %p errno %s",
	      dattr.max_cqe + 1, (void *)cq, tu_errname(errno));
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	cq = ibv_create_cq(ctx, 0, NULL, NULL, 0);
	CHECK("create_cq-0-EINVAL", !cq && errno == EINVAL, "cqe 0: %p errno %s", (void *)cq, tu_errname(errno));
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	cq = ibv_create_cq(ctx, -1, NULL, NULL, 0);
	CHECK("create_cq-negative-EINVAL", !cq && errno == EINVAL, "cqe -1: %p errno %s", (void *)cq,
	      tu_errname(errno));
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, ctx->num_comp_vectors);
	CHECK("create_cq-bad-comp_vector-EINVAL", !cq && errno == EINVAL, "comp_vector %d: %p errno %s",
	      ctx->num_comp_vectors, (void *)cq, tu_errname(errno));
	if (cq)
		ibv_destroy_cq(cq);
}

static void channel_basics(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq;
	int ret;

	if (!CHECK("create_comp_channel", ch && ch->fd >= 0 && ch->context == ctx, "channel %p (%s)", (void *)ch,
		   tu_errname(errno)))
		return;
	cq = ibv_create_cq(ctx, 16, &cookie, ch, 0);
	CHECK("create_cq-with-channel", cq && cq->channel == ch, "cq %p (%s)", (void *)cq, tu_errname(errno));
	if (cq) {
		ret = ibv_destroy_comp_channel(ch);
		CHECK("destroy_comp_channel-in-use-EBUSY", ret == EBUSY, "ret %d (%s)", ret, tu_errname(ret));
		CHECK("req_notify_cq-idle", ibv_req_notify_cq(cq, 0) == 0, "ibv_req_notify_cq failed");
		ibv_destroy_cq(cq);
	}
	ret = ibv_destroy_comp_channel(ch);
	CHECK("destroy_comp_channel", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
}

/* Waits up to ms for the channel fd to become readable. */
static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static int send_msg(struct tu_ep *a, uint64_t id, uint32_t len, unsigned flags)
{
	return tu_post_send1(a->qp, id, IBV_WR_SEND, a->buf, len, a->mr->lkey, 0, 0, flags);
}

/* Notification on a real completion: b receives on a CQ bound to a channel. */
static void events(void)
{
	struct tu_ep a, b;
	struct ibv_comp_channel *ch;
	struct ibv_cq *ecq, *rcq;
	struct ibv_wc wc[4];
	void *ectx;
	const char *why;
	int ret, n, flags;

	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1))) {
		tu_fail("events-setup", "%s: %s", why, tu_errname(errno));
		return;
	}
	ch = ibv_create_comp_channel(b.ctx);
	rcq = ch ? ibv_create_cq(b.ctx, 32, &cookie, ch, 0) : NULL;
	if (!rcq) {
		tu_fail("events-setup", "channel/CQ: %s", tu_errname(errno));
		goto out;
	}
	ibv_destroy_cq(b.rcq);
	b.rcq = rcq;
	if ((why = tu_ep_qp(&a, IBV_QPT_RC, NULL, 0)) || (why = tu_ep_qp(&b, IBV_QPT_RC, NULL, 0)) ||
	    (why = tu_pair_connect(&a, &b, IBV_QPT_RC))) {
		tu_fail("events-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	for (int i = 0; i < 8; i++)
		tu_post_recv(b.qp, 100 + i, b.buf + 1024 * i, 1024, b.mr->lkey);

	/* Non-blocking channel with nothing pending: EAGAIN. */
	flags = fcntl(ch->fd, F_GETFL);
	fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK);
	errno = 0;
	ret = ibv_get_cq_event(ch, &ecq, &ectx);
	CHECK("get_cq_event-nonblocking-EAGAIN", ret == -1 && errno == EAGAIN, "ret %d errno %s", ret,
	      tu_errname(errno));

	/* Armed for the next completion: one event, for our CQ with our context. */
	ret = ibv_req_notify_cq(rcq, 0);
	CHECK("req_notify_cq", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
	send_msg(&a, 1, 64, IBV_SEND_SIGNALED);
	CHECK("event-fd-readable", readable(ch->fd, 5000), "no event within 5 s");
	ecq = NULL;
	ectx = NULL;
	ret = ibv_get_cq_event(ch, &ecq, &ectx);
	CHECK("get_cq_event", ret == 0 && ecq == rcq && ectx == &cookie, "ret %d (%s) cq %p (want %p) context %p",
	      ret, tu_errname(errno), (void *)ecq, (void *)rcq, ectx);
	n = tu_poll(rcq, wc, 1, 5000);
	CHECK("event-completion", n == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RECV &&
					  wc[0].wr_id == 100 && wc[0].byte_len == 64,
	      "%d completions %s", n, n == 1 ? tu_wc_str(&wc[0]) : "");
	tu_poll(a.scq, wc, 1, 5000);
	if (ret == 0)
		ibv_ack_cq_events(rcq, 1);
	CHECK("ack_cq_events", rcq->comp_events_completed == 1, "comp_events_completed %u, want 1",
	      rcq->comp_events_completed);

	/* Not re-armed: a completion raises no event. */
	send_msg(&a, 2, 64, IBV_SEND_SIGNALED);
	n = tu_poll(rcq, wc, 1, 5000);
	CHECK("no-event-when-not-armed", n == 1 && !readable(ch->fd, 300), "%d completions, channel %s", n,
	      readable(ch->fd, 0) ? "readable" : "quiet");
	tu_poll(a.scq, wc, 1, 5000);

	/* Solicited only: an unsolicited SEND raises nothing, a solicited one does. */
	ret = ibv_req_notify_cq(rcq, 1);
	CHECK("req_notify_cq-solicited", ret == 0, "ret %d (%s)", ret, tu_errname(ret));
	send_msg(&a, 3, 64, IBV_SEND_SIGNALED);
	n = tu_poll(rcq, wc, 1, 5000);
	CHECK("solicited-only-ignores-unsolicited", n == 1 && !readable(ch->fd, 300), "%d completions, channel %s",
	      n, readable(ch->fd, 0) ? "readable" : "quiet");
	tu_poll(a.scq, wc, 1, 5000);
	send_msg(&a, 4, 64, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED);
	ret = readable(ch->fd, 5000) ? ibv_get_cq_event(ch, &ecq, &ectx) : -1;
	n = tu_poll(rcq, wc, 1, 5000);
	CHECK("solicited-event", ret == 0 && ecq == rcq && n == 1 && (wc[0].wc_flags & IBV_WC_WITH_IMM) == 0,
	      "get_cq_event %d, %d completions %s", ret, n, n == 1 ? tu_wc_str(&wc[0]) : "");
	tu_poll(a.scq, wc, 1, 5000);
	if (ret == 0)
		ibv_ack_cq_events(rcq, 1);

	/* Several events acknowledged at once. */
	ret = ibv_req_notify_cq(rcq, 0);
	send_msg(&a, 5, 64, IBV_SEND_SIGNALED);
	n = readable(ch->fd, 5000) && ibv_get_cq_event(ch, &ecq, &ectx) == 0;
	tu_poll(rcq, wc, 1, 5000);
	ret |= ibv_req_notify_cq(rcq, 0);
	send_msg(&a, 6, 64, IBV_SEND_SIGNALED);
	n += readable(ch->fd, 5000) && ibv_get_cq_event(ch, &ecq, &ectx) == 0;
	tu_poll(rcq, wc, 1, 5000);
	tu_poll(a.scq, wc, 2, 5000);
	ibv_ack_cq_events(rcq, (unsigned)n);
	CHECK("ack_cq_events-batch", ret == 0 && n == 2 && rcq->comp_events_completed == 4,
	      "events %d, comp_events_completed %u (want 4)", n, rcq->comp_events_completed);

	/* The CQ is in use by a QP: the kernel refuses to destroy it. */
	ret = ibv_destroy_cq(rcq);
	CHECK("destroy_cq-in-use-EBUSY", ret == EBUSY, "ret %d (%s)", ret, tu_errname(ret));
out:
	if (b.qp) {
		ibv_destroy_qp(b.qp);
		b.qp = NULL;
	}
	if (b.rcq) {
		CHECK("destroy_cq-after-events", ibv_destroy_cq(b.rcq) == 0, "ibv_destroy_cq failed");
		b.rcq = NULL;
	}
	if (ch)
		CHECK("destroy_comp_channel-after-cq", ibv_destroy_comp_channel(ch) == 0,
		      "ibv_destroy_comp_channel failed");
	tu_ep_close(&a);
	tu_ep_close(&b);
}

/* ibv_create_cq_ex and the start_poll/next_poll/end_poll API on real completions. */
static void cq_ex(void)
{
	struct ibv_cq_init_attr_ex ia;
	struct ibv_cq_ex *cqx;
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	struct tu_ep a, b;
	struct ibv_wc wc[4];
	const char *why;
	int ret;

	memset(&ia, 0, sizeof(ia));
	ia.cqe = 16;
	ia.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	cqx = ibv_create_cq_ex(ctx, &ia);
	CHECK("create_cq_ex-timestamp-EOPNOTSUPP", !cqx && errno == EOPNOTSUPP, "%p errno %s", (void *)cqx,
	      tu_errname(errno));
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	ia.wc_flags = 1ULL << 40;
	errno = 0;
	cqx = ibv_create_cq_ex(ctx, &ia);
	CHECK("create_cq_ex-unknown-wc_flag-EOPNOTSUPP", !cqx && errno == EOPNOTSUPP, "%p errno %s", (void *)cqx,
	      tu_errname(errno));
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	ia.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	ia.comp_mask = 1 << 10;
	cqx = ibv_create_cq_ex(ctx, &ia);
	CHECK("create_cq_ex-unknown-comp_mask", !cqx, "created %p", (void *)cqx);
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	ia.comp_mask = 0;
	ia.cqe = dattr.max_cqe + 1;
	errno = 0;
	cqx = ibv_create_cq_ex(ctx, &ia);
	CHECK("create_cq_ex-too-large-EINVAL", !cqx && errno == EINVAL, "%p errno %s", (void *)cqx, tu_errname(errno));
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));

	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1))) {
		tu_fail("cq_ex-setup", "%s: %s", why, tu_errname(errno));
		return;
	}
	memset(&ia, 0, sizeof(ia));
	ia.cqe = 16;
	ia.cq_context = &cookie;
	ia.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
		      IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | IBV_WC_EX_WITH_DLID_PATH_BITS;
	cqx = ibv_create_cq_ex(b.ctx, &ia);
	if (!CHECK("create_cq_ex", cqx && ibv_cq_ex_to_cq(cqx)->cqe >= 16 && ibv_cq_ex_to_cq(cqx)->cq_context == &cookie &&
					   ibv_cq_ex_to_cq(cqx)->context == b.ctx,
		   "%p (%s)", (void *)cqx, tu_errname(errno)))
		goto out;
	ibv_destroy_cq(b.rcq);
	b.rcq = ibv_cq_ex_to_cq(cqx);
	if ((why = tu_ep_qp(&a, IBV_QPT_RC, NULL, 0)) || (why = tu_ep_qp(&b, IBV_QPT_RC, NULL, 0)) ||
	    (why = tu_pair_connect(&a, &b, IBV_QPT_RC))) {
		tu_fail("cq_ex-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	ret = ibv_start_poll(cqx, &pa);
	CHECK("start_poll-empty-ENOENT", ret == ENOENT, "ret %d (%s)", ret, tu_errname(ret));

	for (int i = 0; i < 4; i++)
		tu_post_recv(b.qp, 200 + i, b.buf + 1024 * i, 1024, b.mr->lkey);
	{
		struct ibv_sge sge = { .addr = (uintptr_t)a.buf, .lkey = a.mr->lkey };
		struct ibv_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr_id = 1, wr.opcode = IBV_WR_SEND, sge.length = 100;
		ret = ibv_post_send(a.qp, &wr, &bad);
		wr.wr_id = 2, wr.opcode = IBV_WR_SEND_WITH_IMM, sge.length = 200, wr.imm_data = htobe32(0x12345678);
		ret |= ibv_post_send(a.qp, &wr, &bad);
		wr.wr_id = 3, wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM, sge.length = 300, wr.imm_data = htobe32(0xabcdef01);
		wr.wr.rdma.remote_addr = (uintptr_t)b.buf + 8192;
		wr.wr.rdma.rkey = b.mr->rkey;
		ret |= ibv_post_send(a.qp, &wr, &bad);
		if (ret || tu_poll(a.scq, wc, 3, 5000) != 3) {
			tu_fail("cq_ex-traffic", "sending 3 messages failed (post %d)", ret);
			goto out;
		}
	}
	/* Wait until all three are in the CQ, then read them with the extended API. */
	{
		uint64_t deadline = tu_now_ms() + 5000;
		int got = 0;
		char why2[256] = "";
		static const struct { uint64_t id; enum ibv_wc_opcode op; uint32_t len; unsigned flags; uint32_t imm; } w[] = {
			{ 200, IBV_WC_RECV, 100, 0, 0 },
			{ 201, IBV_WC_RECV, 200, IBV_WC_WITH_IMM, 0x12345678 },
			{ 202, IBV_WC_RECV_RDMA_WITH_IMM, 300, IBV_WC_WITH_IMM, 0xabcdef01 },
		};

		do {
			ret = ibv_start_poll(cqx, &pa);
			if (ret == ENOENT)
				usleep(1000);
		} while (ret == ENOENT && tu_now_ms() < deadline);
		/* Give the other two time to land, so next_poll finds them (polling past the last entry is not
		 * exercised: rxe's next_poll on an empty queue followed by end_poll is not well defined in 44). */
		usleep(200000);
		while (ret == 0) {
			uint64_t id = cqx->wr_id;
			enum ibv_wc_opcode op = ibv_wc_read_opcode(cqx);
			uint32_t len = ibv_wc_read_byte_len(cqx), qpn = ibv_wc_read_qp_num(cqx);
			unsigned fl = ibv_wc_read_wc_flags(cqx);
			uint32_t imm = (fl & IBV_WC_WITH_IMM) ? be32toh(ibv_wc_read_imm_data(cqx)) : 0;

			if (!*why2 && (cqx->status != IBV_WC_SUCCESS || id != w[got].id || op != w[got].op ||
				       len != w[got].len || qpn != b.qp->qp_num ||
				       (fl & IBV_WC_WITH_IMM) != w[got].flags || imm != w[got].imm ||
				       ibv_wc_read_vendor_err(cqx) != 0))
				snprintf(why2, sizeof(why2),
					 "completion %d: status %d wr_id %llu opcode %d byte_len %u qp_num 0x%x (want 0x%x) "
					 "wc_flags 0x%x imm 0x%x",
					 got, cqx->status, (unsigned long long)id, op, len, qpn, b.qp->qp_num, fl, imm);
			(void)ibv_wc_read_slid(cqx);
			(void)ibv_wc_read_sl(cqx);
			(void)ibv_wc_read_dlid_path_bits(cqx);
			(void)ibv_wc_read_src_qp(cqx);
			got++;
			if (got == 3) {
				ibv_end_poll(cqx);
				break;
			}
			ret = ibv_next_poll(cqx);
			if (ret)
				snprintf(why2 + strlen(why2), sizeof(why2) - strlen(why2), " next_poll %d after %d", ret, got);
		}
		CHECK("cq_ex-poll", got == 3 && !*why2, "%d of 3 completions; %s", got, why2);
		ret = ibv_start_poll(cqx, &pa);
		CHECK("start_poll-drained-ENOENT", ret == ENOENT, "ret %d (%s)", ret, tu_errname(ret));
		if (ret == 0)
			ibv_end_poll(cqx);
	}
	/* The same CQ through ibv_poll_cq. */
	ret = tu_post_send1(a.qp, 9, IBV_WR_SEND, a.buf, 10, a.mr->lkey, 0, 0, IBV_SEND_SIGNALED);
	CHECK("cq_ex-via-poll_cq", ret == 0 && tu_poll(b.rcq, wc, 1, 5000) == 1 && wc[0].wr_id == 203 &&
					   wc[0].byte_len == 10 && wc[0].opcode == IBV_WC_RECV,
	      "post %d, %s", ret, tu_wc_str(&wc[0]));
	tu_poll(a.scq, wc, 1, 5000);
out:
	tu_ep_close(&a);
	tu_ep_close(&b);
}

/* Resizing below the number of queued completions is refused, and nothing is lost. */
static void resize_busy(void)
{
	struct tu_ep a, b;
	struct ibv_wc wc[8];
	const char *why;
	int ret, n;

	if ((why = tu_pair_open(&a, &b, IBV_QPT_RC, 0))) {
		tu_fail("resize-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	for (int i = 0; i < 5; i++)
		ret = tu_post_send1(a.qp, 10 + i, IBV_WR_RDMA_WRITE, a.buf, 16, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
				    IBV_SEND_SIGNALED);
	usleep(300000);
	ret = ibv_resize_cq(a.scq, 2);
	CHECK("resize_cq-below-queued-EINVAL", ret == EINVAL, "ret %d (%s)", ret, tu_errname(ret));
	n = tu_poll(a.scq, wc, 5, 5000);
	CHECK("resize_cq-nothing-lost", n == 5 && wc[0].wr_id == 10 && wc[4].wr_id == 14 && ibv_poll_cq(a.scq, 8, wc) == 0,
	      "%d completions", n);
	ret = ibv_resize_cq(a.scq, 200);
	n = ret ? 0 : tu_post_send1(a.qp, 20, IBV_WR_RDMA_WRITE, a.buf, 16, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
				    IBV_SEND_SIGNALED) == 0 && tu_poll1(a.scq, wc) == 1 && wc[0].wr_id == 20;
	CHECK("resize_cq-in-use", ret == 0 && n && a.scq->cqe >= 200, "resize %d (%s), completion after resize %s",
	      ret, tu_errname(ret), n ? "ok" : "missing");
out:
	tu_ep_close(&a);
	tu_ep_close(&b);
}

int main(void)
{
	tu_init();
	ctx = tu_open(tu_dev_name[0]);
	if (!ctx)
		tu_abort(PROG, "open", "cannot open %s: %s", tu_dev_name[0], tu_errname(errno));
	if (ibv_query_device(ctx, &dattr))
		tu_abort(PROG, "query_device", "ibv_query_device failed");
	create_destroy();
	channel_basics();
	events();
	cq_ex();
	resize_busy();
	ibv_close_device(ctx);
	return tu_finish(PROG);
}
