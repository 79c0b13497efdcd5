/* cm_params: the connection parameters of rdma_connect / rdma_accept reach the QPs exactly.
 *
 * Two connections, server on IP0 and client on IP1 in one process (one thread, two event channels):
 *   distinct/  client rdma_connect: retry_count 5, rnr_retry_count 6, responder_resources 2, initiator_depth 4;
 *              server rdma_accept:  retry_count 6 (the CM carries none in the REP), rnr_retry_count 1,
 *              responder_resources 4, initiator_depth 2 (powers of two: rxe rounds the depths up to one)
 *   fio/       fio's rdma engine (verb=send): client retry_count 10 (7 on both QPs: the kernel clamps), rnr_retry_count 0,
 *              depths 1; server depths 1, everything else 0
 * Checks:
 *   attrs_client / attrs_server: ibv_query_qp of each connected QP: retry_cnt, rnr_retry, max_rd_atomic,
 *     max_dest_rd_atomic as the IB CM defines them (the REQ carries the client's retry and RNR retry counts to the
 *     server; the REP carries the server's RNR retry count back; each side's depths are its own parameters);
 *   rnr_exceeded: the client sends while the server has no receive posted: with a finite rnr_retry (1, then fio's 0)
 *     the send must complete with IBV_WC_RNR_RETRY_EXC_ERR (rdma-core on every run; fio saw success over ours).
 */
#include "cmutil.h"

struct side {
    struct rdma_event_channel *ch;
    struct rdma_cm_id *id;
};

/* One connection under test: the parameters each side passes and what is measured. */
struct conn {
    const char *name;
    struct rdma_conn_param cparam, sparam;
    struct side srv, cli;
    struct rdma_cm_id *listen_id;
    char buf[64];
    struct ibv_mr *mr;
};

/* Powers of two: rxe rounds max_rd_atomic / max_dest_rd_atomic up to one. */
static struct conn distinct = {
    .name = "distinct",
    .cparam = {.retry_count = 5, .rnr_retry_count = 6, .responder_resources = 2, .initiator_depth = 4},
    .sparam = {.retry_count = 6, .rnr_retry_count = 1, .responder_resources = 4, .initiator_depth = 2},
};
/* fio's rdma engine (engines/rdma.c): the client's retry_count 10, everything else 0 but the depths. */
static struct conn fio = {
    .name = "fio",
    .cparam = {.retry_count = 10, .rnr_retry_count = 0, .responder_resources = 1, .initiator_depth = 1},
    .sparam = {.responder_resources = 1, .initiator_depth = 1},
};

static struct ibv_qp_init_attr qp_attr(void)
{
    struct ibv_qp_init_attr a;
    memset(&a, 0, sizeof a);
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = a.cap.max_recv_wr = 8;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    return a;
}

static int t_connect(char *d, struct why *w, struct conn *k)
{
    struct rdma_cm_event *ev;
    k->srv.ch = rdma_create_event_channel();
    k->cli.ch = rdma_create_event_channel();
    REQUIRE(k->srv.ch && k->cli.ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(k->srv.ch, &k->listen_id, NULL, RDMA_PS_TCP));
    struct sockaddr_in a = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(k->listen_id, (struct sockaddr *)&a));
    REQUIRE_OK(rdma_listen(k->listen_id, 4));
    uint16_t port = ntohs(rdma_get_src_port(k->listen_id));

    REQUIRE_OK(rdma_create_id(k->cli.ch, &k->cli.id, NULL, RDMA_PS_TCP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, port);
    REQUIRE_OK(rdma_resolve_addr(k->cli.id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_EVENT(k->cli.ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    REQUIRE_OK(rdma_resolve_route(k->cli.id, 2000));
    REQUIRE_EVENT(k->cli.ch, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    struct ibv_qp_init_attr qa = qp_attr();
    REQUIRE_OK(rdma_create_qp(k->cli.id, NULL, &qa));
    k->mr = rdma_reg_msgs(k->cli.id, k->buf, sizeof k->buf);
    REQUIRE(k->mr, "rdma_reg_msgs: %s", errname(errno));

    struct rdma_conn_param p = k->cparam;
    REQUIRE_OK(rdma_connect(k->cli.id, &p));
    REQUIRE_EVENT(k->srv.ch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
    k->srv.id = ev->id;
    const struct rdma_conn_param *c = &ev->param.conn;
    snprintf(d, 256, "request: retry_count %u rnr_retry_count %u responder_resources %u initiator_depth %u",
             c->retry_count, c->rnr_retry_count, c->responder_resources, c->initiator_depth);
    rdma_ack_cm_event(ev);
    qa = qp_attr();
    REQUIRE_OK(rdma_create_qp(k->srv.id, NULL, &qa));
    /* No receive is posted on the server: the client's send meets an RNR NAK. */
    p = k->sparam;
    REQUIRE_OK(rdma_accept(k->srv.id, &p));
    REQUIRE_EVENT(k->cli.ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
    rdma_ack_cm_event(ev);
    REQUIRE_EVENT(k->srv.ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
    rdma_ack_cm_event(ev);
    return 0;
}

static int check_attrs(char *d, struct why *w, struct ibv_qp *qp, int want_retry, int want_rnr, int want_rd,
                       int want_dest_rd)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    memset(&a, 0, sizeof a);
    REQUIRE(ibv_query_qp(qp, &a,
                         IBV_QP_STATE | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
                             IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_TIMEOUT | IBV_QP_MIN_RNR_TIMER,
                         &ia) == 0,
            "ibv_query_qp: %s", errname(errno));
    snprintf(d, 256, "state %d retry_cnt %u rnr_retry %u max_rd_atomic %u max_dest_rd_atomic %u timeout %u "
             "min_rnr_timer %u", a.qp_state, a.retry_cnt, a.rnr_retry, a.max_rd_atomic, a.max_dest_rd_atomic,
             a.timeout, a.min_rnr_timer);
    REQUIRE(a.qp_state == IBV_QPS_RTS && a.retry_cnt == want_retry && a.rnr_retry == want_rnr &&
                a.max_rd_atomic == want_rd && a.max_dest_rd_atomic == want_dest_rd,
            "%s; want RTS retry_cnt %d rnr_retry %d max_rd_atomic %d max_dest_rd_atomic %d", d, want_retry, want_rnr,
            want_rd, want_dest_rd);
    return 0;
}

/* The CM's retry counts have 3 bits: the kernel stores min(retry_count, 7) on both sides. */
static int retry_of(const struct conn *k)
{
    return k->cparam.retry_count > 7 ? 7 : k->cparam.retry_count;
}

/* The client's QP: its own retry count and depths, the server's RNR retry count (from the REP). */
static int t_attrs_client(char *d, struct why *w, struct conn *k)
{
    return check_attrs(d, w, k->cli.id->qp, retry_of(k), k->sparam.rnr_retry_count,
                       k->cparam.initiator_depth, k->cparam.responder_resources);
}

/* The server's QP: the client's retry and RNR retry counts (from the REQ), its own depths. */
static int t_attrs_server(char *d, struct why *w, struct conn *k)
{
    return check_attrs(d, w, k->srv.id->qp, retry_of(k), k->cparam.rnr_retry_count,
                       k->sparam.initiator_depth, k->sparam.responder_resources);
}

static int t_rnr_exceeded(char *d, struct why *w, struct conn *k)
{
    struct ibv_wc wc;
    strcpy(k->buf, "nobody receives this");
    REQUIRE_OK(rdma_post_send(k->cli.id, k->buf, k->buf, sizeof k->buf, k->mr, IBV_SEND_SIGNALED));
    int n = 0;
    double t0 = now_ms();
    while (n == 0 && now_ms() - t0 < 20000) {
        n = ibv_poll_cq(k->cli.id->send_cq, 1, &wc);
        if (n == 0)
            usleep(1000);
    }
    REQUIRE(n == 1, "no send completion within 20 s (poll returned %d)", n);
    snprintf(d, 256, "%s after %.1f s", ibv_wc_status_str(wc.status), (now_ms() - t0) / 1e3);
    REQUIRE(wc.status == IBV_WC_RNR_RETRY_EXC_ERR, "send completed with %s (%d), expected %s",
            ibv_wc_status_str(wc.status), wc.status, ibv_wc_status_str(IBV_WC_RNR_RETRY_EXC_ERR));
    return 0;
}

/* Teardown without checks (the QPs are in ERROR after the failed send). */
static void close_conn(struct conn *k)
{
    if (k->srv.id) {
        rdma_disconnect(k->srv.id);
        rdma_destroy_qp(k->srv.id);
        rdma_destroy_id(k->srv.id);
    }
    if (k->cli.id) {
        if (k->mr)
            rdma_dereg_mr(k->mr);
        rdma_destroy_qp(k->cli.id);
        rdma_destroy_id(k->cli.id);
    }
    if (k->listen_id)
        rdma_destroy_id(k->listen_id);
    if (k->srv.ch)
        rdma_destroy_event_channel(k->srv.ch);
    if (k->cli.ch)
        rdma_destroy_event_channel(k->cli.ch);
}

static void run(struct conn *k)
{
    char name[64];
#define NAMED(what) (snprintf(name, sizeof name, "%s/%s", k->name, what), name)
    CHECK(NAMED("connect"), t_connect, k);
    if (cm_last_ok) {
        CHECK(NAMED("attrs_client"), t_attrs_client, k);
        CHECK(NAMED("attrs_server"), t_attrs_server, k);
        CHECK(NAMED("rnr_exceeded"), t_rnr_exceeded, k);
    }
#undef NAMED
    close_conn(k);
}

int main(void)
{
    cm_init("cm_params");
    run(&distinct);
    run(&fio);
    return cm_done();
}
