/* Conformance: asynchronous events. ibv_get_async_event on a non-blocking fd (EAGAIN), and real events with the
 * right element pointers: SRQ limit reached (element.srq), CQ overrun (element.cq), and, when
 * RDMA_TEST_PORT_EVENT=1, a port going down and up (element.port_num) by setting RDMA_TEST_NETDEV1 (default veth1)
 * down and up with ip(8); that changes the guest's network, so it is opt-in (the guest case turns it on). See
 * testutil.h. */
#define _GNU_SOURCE
#include <sys/wait.h>

#include "testutil.h"

#define PROG "verbs_async"

/* Waits up to ms for an event of `type` on ctx; other events are acknowledged and noted in `others`. Returns 1
 * with *ev filled (not yet acknowledged), 0 on timeout, -1 on a read error. */
static int wait_event(struct ibv_context *ctx, enum ibv_event_type type, unsigned ms, struct ibv_async_event *ev,
		      char *others, size_t olen)
{
	uint64_t deadline = tu_now_ms() + ms;

	for (;;) {
		struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
		int64_t left = (int64_t)(deadline - tu_now_ms());

		if (left <= 0)
			return 0;
		if (poll(&p, 1, (int)left) != 1)
			continue;
		if (ibv_get_async_event(ctx, ev)) {
			if (errno == EAGAIN)
				continue;
			return -1;
		}
		if (ev->event_type == type)
			return 1;
		if (others)
			snprintf(others + strlen(others), olen - strlen(others), "%s%s", *others ? ", " : "",
				 ibv_event_type_str(ev->event_type));
		ibv_ack_async_event(ev);
	}
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void nonblocking(struct ibv_context *ctx)
{
	struct ibv_async_event ev;
	int ret;

	errno = 0;
	ret = set_nonblock(ctx->async_fd) ? -2 : ibv_get_async_event(ctx, &ev);
	CHECK("get_async_event-nonblocking-EAGAIN", ret == -1 && errno == EAGAIN, "ret %d errno %s", ret,
	      tu_errname(errno));
}

/* SRQ limit: armed at 3 with 4 receives posted; the second consumed receive brings it below the limit. */
static void srq_limit(void)
{
	struct tu_ep a, b;
	struct ibv_srq_init_attr ia;
	struct ibv_srq_attr sa;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *bqp = NULL;
	struct ibv_async_event ev;
	struct ibv_wc wc[4];
	char others[256] = "";
	const char *why;
	int ret, got, cookie = 0;

	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1))) {
		tu_fail("srq_limit-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	set_nonblock(b.ctx->async_fd);
	memset(&ia, 0, sizeof(ia));
	ia.srq_context = &cookie;
	ia.attr.max_wr = 16;
	ia.attr.max_sge = 1;
	srq = ibv_create_srq(b.pd, &ia);
	if (!srq || (why = tu_ep_qp(&a, IBV_QPT_RC, NULL, 0)) || (why = tu_ep_qp(&b, IBV_QPT_RC, srq, 0)) ||
	    (why = tu_pair_connect(&a, &b, IBV_QPT_RC))) {
		tu_fail("srq_limit-setup", "%s: %s", srq ? why : "ibv_create_srq", tu_errname(errno));
		goto out;
	}
	bqp = b.qp;
	for (int i = 0; i < 4; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)b.buf + 1024 * i, .length = 1024, .lkey = b.mr->lkey };
		struct ibv_recv_wr w = { .wr_id = 0x40 + i, .sg_list = &sge, .num_sge = 1 }, *bad;

		ibv_post_srq_recv(srq, &w, &bad);
	}
	sa.srq_limit = 3;
	ret = ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT);
	CHECK("srq_limit-arm", ret == 0, "ibv_modify_srq(IBV_SRQ_LIMIT=3): %d (%s)", ret, tu_errname(ret));

	tu_post_send1(a.qp, 1, IBV_WR_SEND, a.buf, 10, a.mr->lkey, 0, 0, IBV_SEND_SIGNALED);
	got = tu_poll(b.rcq, wc, 1, 5000);
	/* 3 left: not below the limit yet. */
	ret = wait_event(b.ctx, IBV_EVENT_SRQ_LIMIT_REACHED, 300, &ev, others, sizeof(others));
	CHECK("srq_limit-not-yet", got == 1 && ret == 0, "%d receives, event %s", got, ret == 1 ? "early" : "none");
	if (ret == 1)
		ibv_ack_async_event(&ev);
	tu_post_send1(a.qp, 2, IBV_WR_SEND, a.buf, 10, a.mr->lkey, 0, 0, IBV_SEND_SIGNALED);
	got += tu_poll(b.rcq, wc, 1, 5000);
	ret = wait_event(b.ctx, IBV_EVENT_SRQ_LIMIT_REACHED, 5000, &ev, others, sizeof(others));
	CHECK("srq_limit-event", got == 2 && ret == 1 && ev.element.srq == srq && ev.element.srq->srq_context == &cookie,
	      "%d receives, event %s, element.srq %p (want %p), other events: %s", got,
	      ret == 1 ? "received" : ret == 0 ? "not received in 5 s" : "read error", ret == 1 ? (void *)ev.element.srq : NULL,
	      (void *)srq, *others ? others : "none");
	if (ret == 1) {
		ibv_ack_async_event(&ev);
		CHECK("srq_limit-ack", srq->events_completed == 1, "srq->events_completed %u, want 1", srq->events_completed);
	}
	/* The limit disarms itself when it fires. */
	memset(&sa, 0xa5, sizeof(sa));
	ret = ibv_query_srq(srq, &sa);
	CHECK("srq_limit-disarmed", ret == 0 && sa.srq_limit == 0, "ret %d srq_limit %u", ret, sa.srq_limit);
	tu_poll(a.scq, wc, 2, 5000);
out:
	if (bqp) {
		ibv_destroy_qp(bqp);
		b.qp = NULL;
	}
	if (srq)
		CHECK("destroy_srq-after-event", ibv_destroy_srq(srq) == 0, "ibv_destroy_srq failed");
	tu_ep_close(&a);
	tu_ep_close(&b);
}

/* CQ overrun: a 1-entry CQ that nobody polls receives more completions than it holds. */
static void cq_overrun(void)
{
	struct tu_ep a, b;
	struct ibv_cq *small = NULL;
	struct ibv_async_event ev;
	char others[256] = "";
	const char *why;
	int ret, cookie = 0;

	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1))) {
		tu_fail("cq_err-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	set_nonblock(a.ctx->async_fd);
	small = ibv_create_cq(a.ctx, 1, &cookie, NULL, 0);
	if (!small) {
		tu_fail("cq_err-setup", "ibv_create_cq(1): %s", tu_errname(errno));
		goto out;
	}
	ibv_destroy_cq(a.scq);
	a.scq = small;
	if ((why = tu_ep_qp(&a, IBV_QPT_RC, NULL, 0)) || (why = tu_ep_qp(&b, IBV_QPT_RC, NULL, 0)) ||
	    (why = tu_pair_connect(&a, &b, IBV_QPT_RC))) {
		tu_fail("cq_err-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	for (int i = 0; i < small->cqe + 4; i++)
		tu_post_send1(a.qp, 0x50 + i, IBV_WR_RDMA_WRITE, a.buf, 8, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
			      IBV_SEND_SIGNALED);
	ret = wait_event(a.ctx, IBV_EVENT_CQ_ERR, 5000, &ev, others, sizeof(others));
	CHECK("cq_err-event", ret == 1 && ev.element.cq == small && ev.element.cq->cq_context == &cookie,
	      "cqe %d; event %s, element.cq %p (want %p), other events: %s", small->cqe,
	      ret == 1 ? "received" : ret == 0 ? "not received in 5 s" : "read error", ret == 1 ? (void *)ev.element.cq : NULL,
	      (void *)small, *others ? others : "none");
	if (ret == 1) {
		ibv_ack_async_event(&ev);
		CHECK("cq_err-ack", small->async_events_completed == 1, "cq->async_events_completed %u, want 1",
		      small->async_events_completed);
	}
	/* Collect anything else the overrun raised (e.g. the QP's own error) so destroy does not wait for it. */
	while (wait_event(a.ctx, IBV_EVENT_DEVICE_FATAL, 300, &ev, others, sizeof(others)) == 1)
		ibv_ack_async_event(&ev);
out:
	tu_ep_close(&a);
	tu_ep_close(&b);
}

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Port down and up, seen on DEV1. */
static void port_events(void)
{
	const char *nd = getenv("RDMA_TEST_NETDEV1");
	struct ibv_context *ctx;
	struct ibv_async_event ev;
	struct ibv_port_attr pa;
	char cmd[256], others[256] = "";
	uint64_t deadline;
	int ret;

	if (!nd || !*nd)
		nd = "veth1";
	ctx = tu_open(tu_dev_name[1]);
	if (!ctx) {
		tu_fail("port-setup", "cannot open %s: %s", tu_dev_name[1], tu_errname(errno));
		return;
	}
	set_nonblock(ctx->async_fd);
	snprintf(cmd, sizeof(cmd), "ip link set %s down", nd);
	if (run(cmd)) {
		tu_fail("port-down", "'%s' failed", cmd);
		goto out;
	}
	ret = wait_event(ctx, IBV_EVENT_PORT_ERR, 10000, &ev, others, sizeof(others));
	CHECK("port_err-event", ret == 1 && ev.element.port_num == 1, "event %s, port_num %d, other events: %s",
	      ret == 1 ? "received" : ret == 0 ? "not received in 10 s" : "read error", ret == 1 ? ev.element.port_num : -1,
	      *others ? others : "none");
	if (ret == 1)
		ibv_ack_async_event(&ev);
	ret = ibv_query_port(ctx, 1, &pa);
	CHECK("port-down-state", ret == 0 && pa.state == IBV_PORT_DOWN, "ret %d state %s", ret,
	      ibv_port_state_str(pa.state));

	snprintf(cmd, sizeof(cmd), "ip link set %s up", nd);
	if (run(cmd)) {
		tu_fail("port-up", "'%s' failed", cmd);
		goto out;
	}
	*others = 0;
	ret = wait_event(ctx, IBV_EVENT_PORT_ACTIVE, 10000, &ev, others, sizeof(others));
	CHECK("port_active-event", ret == 1 && ev.element.port_num == 1, "event %s, port_num %d, other events: %s",
	      ret == 1 ? "received" : ret == 0 ? "not received in 10 s" : "read error", ret == 1 ? ev.element.port_num : -1,
	      *others ? others : "none");
	if (ret == 1)
		ibv_ack_async_event(&ev);
	/* Leave the port as we found it: ACTIVE, with its RoCE v2 GID back. */
	deadline = tu_now_ms() + 10000;
	do {
		union ibv_gid g;

		ret = ibv_query_port(ctx, 1, &pa);
		if (!ret && pa.state == IBV_PORT_ACTIVE && !ibv_query_gid(ctx, 1, tu_gid_index[1], &g) && g.raw[10] == 0xff)
			break;
		usleep(100000);
	} while (tu_now_ms() < deadline);
	CHECK("port-active-again", !ret && pa.state == IBV_PORT_ACTIVE, "state %s after 10 s",
	      ibv_port_state_str(pa.state));
	while (wait_event(ctx, IBV_EVENT_DEVICE_FATAL, 200, &ev, NULL, 0) == 1)
		ibv_ack_async_event(&ev);
out:
	snprintf(cmd, sizeof(cmd), "ip link set %s up", nd);
	run(cmd);
	ibv_close_device(ctx);
}

int main(void)
{
	struct ibv_context *ctx;
	const char *pe = getenv("RDMA_TEST_PORT_EVENT");

	tu_init();
	ctx = tu_open(tu_dev_name[0]);
	if (!ctx)
		tu_abort(PROG, "open", "cannot open %s: %s", tu_dev_name[0], tu_errname(errno));
	nonblocking(ctx);
	ibv_close_device(ctx);
	srq_limit();
	cq_overrun();
	if (pe && !strcmp(pe, "1"))
		port_events();
	return tu_finish(PROG);
}
