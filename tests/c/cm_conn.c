/* cm_conn: a connection through the rdma_cm, server and client in one process (one thread, two event channels).
 *
 * The server listens on IP0, the client connects from IP1. Stages, each needing the ones before:
 *   listen, client resolve, client QP (library CQs, cq_context = id), CONNECT_REQUEST with the client's private data
 *   checked byte for byte (and still valid until the ack), accept with the server's private data (buffer addresses
 *   and rkeys), ESTABLISHED on both sides (the client's QP moved to RTR/RTS by the library), send/recv both ways
 *   with rdma_post_send/recv(v) and rdma_get_send/recv_comp, RDMA write and read with rdma_reg_write/read, connected
 *   rdma_init_qp_attr, rdma_notify, disconnect events on both sides, QPs in ERR, teardown.
 * Then two more connections: one rejected with private data (and oversized accept/reject private data refused), and
 * one whose QP the application creates and moves itself (CONNECT_RESPONSE, rdma_init_qp_attr, rdma_establish).
 *
 * Over iWARP (siw: RDMA_TEST_DEV0/1=siw0/siw1) the checks follow what rdma-core 44 measures there: private data as
 * sent, one SGE for an RDMA Read's sink (max_sge_rd), no QP states from siw, rdma_init_qp_attr's iWARP masks, a reject
 * as REJECTED -ECONNRESET. accept_oversized and manual_qp keep IB's expectations and fail on iWARP, with rdma-core too
 * (tests/guest/cases/60-siw.sh requires the same results from ours).
 */
#include "cmutil.h"

#define MSG 64
#define RW 256

struct side {
    struct rdma_event_channel *ch;
    struct rdma_cm_id *id;
};

/* What the server tells the client in its accept private data. */
struct srv_info {
    char tag[16];
    uint64_t write_addr, read_addr;
    uint32_t write_rkey, read_rkey;
} __attribute__((packed));

static struct side srv, cli;
static struct rdma_cm_id *listen_id;
static uint16_t port;
static int listen_ctx, client_ctx;
static struct rdma_cm_event *req_ev;
static uint8_t cli_pdata[40], srv_pdata[sizeof(struct srv_info)];

static char s_recv[2][MSG], s_send[2][MSG / 2], c_recv[2][MSG], c_send[MSG];
static char s_write_target[RW], s_read_source[RW], c_rw[RW], c_rw2[RW];
static struct ibv_mr *s_recv_mr, *s_send_mr, *s_write_mr, *s_read_mr, *c_recv_mr, *c_send_mr, *c_rw_mr, *c_rw2_mr;
static struct srv_info info;
/* The listener's device is iWARP (siw): MPA carries exactly the private data sent, where IB's CM messages carry fixed
 * sizes (REQ 56, REP 196, REJ 148 bytes for the application, zero-padded). */
static int iwarp;
/* QP state checks: siw's kernel driver answers ibv_query_qp without a state (0), so on iWARP they are skipped. */
#define STATE_IS(st, want) (iwarp || (st) == (want))
/* The CONNECT_REQUEST event of a flow until the flow acknowledges it: a flow that fails early leaves it to
 * close_pending (destroying an id waits for its events' acknowledgement). */
static struct rdma_cm_event *flow_ev;


static struct ibv_qp_init_attr qp_attr(void)
{
    struct ibv_qp_init_attr a;
    memset(&a, 0, sizeof a);
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = a.cap.max_recv_wr = 8;
    a.cap.max_send_sge = a.cap.max_recv_sge = 2;
    return a;
}

static int open_side(struct why *w, struct side *s)
{
    s->ch = rdma_create_event_channel();
    REQUIRE(s->ch, "rdma_create_event_channel: %s", errname(errno));
    return 0;
}

/* Server: a channel and a listener on IP0 with a kernel-chosen port. */
static int server_listen(struct why *w, struct side *s, struct rdma_cm_id **lid, void *ctx, uint16_t *lport)
{
    if (open_side(w, s))
        return -1;
    REQUIRE_OK(rdma_create_id(s->ch, lid, ctx, RDMA_PS_TCP));
    struct sockaddr_in a = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(*lid, (struct sockaddr *)&a));
    REQUIRE_OK(rdma_listen(*lid, 4));
    *lport = ntohs(rdma_get_src_port(*lid));
    REQUIRE(*lport, "no port");
    return 0;
}

static void server_close(struct side *s, struct rdma_cm_id *lid)
{
    if (lid)
        rdma_destroy_id(lid);
    if (s->ch)
        rdma_destroy_event_channel(s->ch);
}

/* Client: id on its own channel, resolved from IP1 to IP0:PORT. */
static int client_resolve(struct why *w, struct side *c, void *ctx, uint16_t port)
{
    struct rdma_cm_event *ev;
    if (open_side(w, c))
        return -1;
    REQUIRE_OK(rdma_create_id(c->ch, &c->id, ctx, RDMA_PS_TCP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, port);
    REQUIRE_OK(rdma_resolve_addr(c->id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_EVENT(c->ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    REQUIRE_OK(rdma_resolve_route(c->id, 2000));
    REQUIRE_EVENT(c->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    return 0;
}

/* The completion helpers must return exactly one completion here (the work is already done or under way). */
static int one_comp(struct why *w, int send, struct rdma_cm_id *id, struct ibv_wc *wc, void *ctx,
                    enum ibv_wc_opcode op)
{
    memset(wc, 0, sizeof *wc);
    errno = 0;
    int n = send ? rdma_get_send_comp(id, wc) : rdma_get_recv_comp(id, wc);
    REQUIRE(n == 1, "rdma_get_%s_comp returned %d errno %s", send ? "send" : "recv", n, errname(errno));
    REQUIRE(wc->status == IBV_WC_SUCCESS, "completion status %s", ibv_wc_status_str(wc->status));
    REQUIRE(wc->wr_id == (uintptr_t)ctx, "wr_id %#llx, expected the context %p", (unsigned long long)wc->wr_id, ctx);
    REQUIRE(wc->opcode == op, "opcode %d, expected %d", wc->opcode, op);
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------------- */

static int t_listen(char *d, struct why *w)
{
    if (server_listen(w, &srv, &listen_id, &listen_ctx, &port))
        return -1;
    iwarp = listen_id->verbs && listen_id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
    snprintf(d, 256, "%s:%u%s", IP0, port, iwarp ? " (iWARP)" : "");
    return 0;
}

static int t_client_resolve(char *d, struct why *w)
{
    if (client_resolve(w, &cli, &client_ctx, port))
        return -1;
    snprintf(d, 256, "%s -> %s:%u", IP1, IP0, port);
    return 0;
}

static int t_client_qp(char *d, struct why *w)
{
    struct rdma_cm_id *id = cli.id;
    struct ibv_qp_init_attr a = qp_attr();
    REQUIRE_OK(rdma_create_qp(id, NULL, &a));
    REQUIRE(id->qp && id->send_cq && id->recv_cq && id->send_cq_channel && id->recv_cq_channel, "no QP/CQs");
    REQUIRE(id->send_cq->cq_context == id && id->recv_cq->cq_context == id, "cq_context is not the id");
    REQUIRE(a.cap.max_send_wr >= 8 && a.cap.max_recv_wr >= 8, "caps not written back: %u/%u", a.cap.max_send_wr,
            a.cap.max_recv_wr);
    c_recv_mr = rdma_reg_msgs(id, c_recv, sizeof c_recv);
    c_send_mr = rdma_reg_msgs(id, c_send, sizeof c_send);
    c_rw_mr = rdma_reg_msgs(id, c_rw, sizeof c_rw);
    c_rw2_mr = rdma_reg_msgs(id, c_rw2, sizeof c_rw2);
    REQUIRE(c_recv_mr && c_send_mr && c_rw_mr && c_rw2_mr, "rdma_reg_msgs: %s", errname(errno));
    REQUIRE(c_recv_mr->pd == id->pd, "rdma_reg_msgs not on the id's PD");
    REQUIRE_OK(rdma_post_recv(id, c_recv[0], c_recv[0], MSG, c_recv_mr));
    /* The second receive scatters into two halves (rdma_post_recvv). */
    struct ibv_sge sge[2] = {
        {.addr = (uintptr_t)c_recv[1], .length = MSG / 2, .lkey = c_recv_mr->lkey},
        {.addr = (uintptr_t)(c_recv[1] + MSG / 2), .length = MSG / 2, .lkey = c_recv_mr->lkey},
    };
    REQUIRE_OK(rdma_post_recvv(id, c_recv[1], sge, 2));
    snprintf(d, 256, "QP %#x, caps %u/%u, 2 receives posted (one with 2 SGEs)", id->qp->qp_num, a.cap.max_send_wr,
             a.cap.max_recv_wr);
    return 0;
}

static int t_connect_request(char *d, struct why *w)
{
    for (unsigned i = 0; i < sizeof cli_pdata; i++)
        cli_pdata[i] = (uint8_t)(0xc0 + i);
    struct rdma_conn_param p;
    memset(&p, 0, sizeof p);
    p.private_data = cli_pdata;
    p.private_data_len = sizeof cli_pdata;
    p.responder_resources = 1;
    p.initiator_depth = 1;
    p.retry_count = 7;
    p.rnr_retry_count = 7;
    REQUIRE_OK(rdma_connect(cli.id, &p));
    REQUIRE_EVENT(srv.ch, RDMA_CM_EVENT_CONNECT_REQUEST, &req_ev);
    struct rdma_cm_event *ev = req_ev;
    REQUIRE(ev->status == 0, "status %d", ev->status);
    REQUIRE(ev->listen_id == listen_id, "listen_id %p, expected %p", (void *)ev->listen_id, (void *)listen_id);
    REQUIRE(ev->id && ev->id != listen_id, "no new id for the request");
    REQUIRE(ev->id->context == &listen_ctx, "the new id does not inherit the listener's context");
    REQUIRE(ev->id->channel == srv.ch, "the new id is not on the listener's channel");
    REQUIRE(ev->id->verbs && !strcmp(dev_name(ev->id->verbs), DEV0), "request on device %s", dev_name(ev->id->verbs));
    REQUIRE(ev->id->pd, "the new id has no PD");
    const struct rdma_conn_param *c = &ev->param.conn;
    unsigned want = iwarp ? sizeof cli_pdata : 56;
    REQUIRE(c->private_data_len == want, "private_data_len %u, expected %u (%s)", c->private_data_len, want,
            iwarp ? "iWARP: what was sent" : "92-byte REQ minus the 36-byte CM header");
    REQUIRE(c->private_data && !memcmp(c->private_data, cli_pdata, sizeof cli_pdata),
            "the client's private data differs");
    for (unsigned i = sizeof cli_pdata; i < c->private_data_len; i++)
        REQUIRE(((const uint8_t *)c->private_data)[i] == 0, "padding byte %u is %#x", i,
                ((const uint8_t *)c->private_data)[i]);
    REQUIRE(c->responder_resources == 1 && c->initiator_depth == 1, "resources %u depth %u",
            c->responder_resources, c->initiator_depth);
    REQUIRE(sa_is_ip(rdma_get_peer_addr(ev->id), IP1), "peer %s", sa_str(rdma_get_peer_addr(ev->id)));
    REQUIRE(sa_is_ip(rdma_get_local_addr(ev->id), IP0) && ntohs(rdma_get_src_port(ev->id)) == port,
            "local %s", sa_str(rdma_get_local_addr(ev->id)));
    REQUIRE(rdma_get_dst_port(ev->id) == rdma_get_src_port(cli.id), "peer port %u, client's src port %u",
            ntohs(rdma_get_dst_port(ev->id)), ntohs(rdma_get_src_port(cli.id)));
    srv.id = ev->id;
    snprintf(d, 256, "%u bytes private data (40 sent%s), from %s", want, iwarp ? "" : " + zeros",
             sa_str(rdma_get_peer_addr(ev->id)));
    return 0;
}

static int t_accept(char *d, struct why *w)
{
    struct rdma_cm_id *id = srv.id;
    struct ibv_qp_init_attr a = qp_attr();
    REQUIRE_OK(rdma_create_qp(id, NULL, &a));
    REQUIRE(id->recv_cq && id->recv_cq->cq_context == id, "server CQs");
    s_recv_mr = rdma_reg_msgs(id, s_recv, sizeof s_recv);
    s_send_mr = rdma_reg_msgs(id, s_send, sizeof s_send);
    s_write_mr = rdma_reg_write(id, s_write_target, sizeof s_write_target);
    s_read_mr = rdma_reg_read(id, s_read_source, sizeof s_read_source);
    REQUIRE(s_recv_mr && s_send_mr && s_write_mr && s_read_mr, "registration: %s", errname(errno));
    REQUIRE_OK(rdma_post_recv(id, &s_recv[0], s_recv[0], MSG, s_recv_mr));
    REQUIRE_OK(rdma_post_recv(id, &s_recv[1], s_recv[1], MSG, s_recv_mr));
    for (int i = 0; i < RW; i++)
        s_read_source[i] = (char)(i * 7 + 3);
    memset(&info, 0, sizeof info);
    strcpy(info.tag, "server-hello");
    info.write_addr = (uintptr_t)s_write_target;
    info.write_rkey = s_write_mr->rkey;
    info.read_addr = (uintptr_t)s_read_source;
    info.read_rkey = s_read_mr->rkey;
    memcpy(srv_pdata, &info, sizeof info);
    /* The request's private data is still intact: it lives until the event is acknowledged. */
    REQUIRE(!memcmp(req_ev->param.conn.private_data, cli_pdata, sizeof cli_pdata),
            "request private data changed before the ack");
    struct rdma_conn_param p;
    memset(&p, 0, sizeof p);
    p.private_data = srv_pdata;
    p.private_data_len = sizeof srv_pdata;
    p.responder_resources = 1;
    p.initiator_depth = 1;
    REQUIRE_OK(rdma_accept(id, &p));
    int st = qp_state(id->qp);
    REQUIRE(STATE_IS(st, IBV_QPS_RTS), "server QP state %d after rdma_accept, expected RTS", st);
    REQUIRE_OK(rdma_ack_cm_event(req_ev));
    req_ev = NULL;
    snprintf(d, 256, "%zu bytes private data, server QP %#x in RTS", sizeof srv_pdata, id->qp->qp_num);
    return 0;
}

static int t_established(char *d, struct why *w)
{
    struct rdma_cm_event *ev;
    REQUIRE_EVENT(cli.ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
    REQUIRE(ev->id == cli.id && ev->status == 0, "client ESTABLISHED: status %d", ev->status);
    const struct rdma_conn_param *c = &ev->param.conn;
    unsigned want = iwarp ? sizeof srv_pdata : 196;
    REQUIRE(c->private_data_len == want, "client got %u bytes of private data, expected %u (%s)",
            c->private_data_len, want, iwarp ? "iWARP: what was sent" : "the REP's");
    REQUIRE(c->private_data && !memcmp(c->private_data, srv_pdata, sizeof srv_pdata),
            "the server's private data differs");
    memcpy(&info, c->private_data, sizeof info);
    rdma_ack_cm_event(ev);
    int st = qp_state(cli.id->qp);
    REQUIRE(STATE_IS(st, IBV_QPS_RTS), "client QP state %d, expected RTS (the library moves it on CONNECT_RESPONSE)",
            st);
    REQUIRE_EVENT(srv.ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
    REQUIRE(ev->id == srv.id && ev->status == 0, "server ESTABLISHED for another id or status %d", ev->status);
    rdma_ack_cm_event(ev);
    snprintf(d, 256, "both sides; client got %u bytes with the server's %zu", want, sizeof srv_pdata);
    return 0;
}

static int t_send_recv(char *d, struct why *w)
{
    struct ibv_wc wc;
    for (int i = 0; i < MSG; i++)
        c_send[i] = (char)('a' + i % 26);
    REQUIRE_OK(rdma_post_send(cli.id, c_send, c_send, MSG, c_send_mr, IBV_SEND_SIGNALED));
    if (one_comp(w, 1, cli.id, &wc, c_send, IBV_WC_SEND))
        return -1;
    if (one_comp(w, 0, srv.id, &wc, s_recv[0], IBV_WC_RECV))
        return -1;
    REQUIRE(wc.byte_len == MSG && !memcmp(s_recv[0], c_send, MSG), "server received %u bytes, content %s",
            wc.byte_len, memcmp(s_recv[0], c_send, MSG) ? "differs" : "ok");
    REQUIRE(wc.qp_num == srv.id->qp->qp_num, "wc.qp_num %#x", wc.qp_num);
    /* Reply with two SGEs (rdma_post_sendv); the client receives them as one message. */
    memset(s_send, 'x', sizeof s_send);
    memcpy(s_send[0], "reply-part-one..................", MSG / 2);
    memcpy(s_send[1], "reply-part-two..................", MSG / 2);
    struct ibv_sge sge[2] = {
        {.addr = (uintptr_t)s_send[0], .length = MSG / 2, .lkey = s_send_mr->lkey},
        {.addr = (uintptr_t)s_send[1], .length = MSG / 2, .lkey = s_send_mr->lkey},
    };
    REQUIRE_OK(rdma_post_sendv(srv.id, s_send, sge, 2, IBV_SEND_SIGNALED));
    if (one_comp(w, 1, srv.id, &wc, s_send, IBV_WC_SEND))
        return -1;
    if (one_comp(w, 0, cli.id, &wc, c_recv[0], IBV_WC_RECV))
        return -1;
    REQUIRE(wc.byte_len == MSG && !memcmp(c_recv[0], s_send, MSG), "client received %u bytes, content %s",
            wc.byte_len, memcmp(c_recv[0], s_send, MSG) ? "differs" : "ok");
    /* A second message lands in the client's two-SGE receive. */
    memset(s_send, 'y', sizeof s_send);
    memcpy(s_send[1], "second-reply", 12);
    REQUIRE_OK(rdma_post_send(srv.id, NULL, s_send, MSG, s_send_mr, IBV_SEND_SIGNALED));
    if (one_comp(w, 1, srv.id, &wc, NULL, IBV_WC_SEND))
        return -1;
    if (one_comp(w, 0, cli.id, &wc, c_recv[1], IBV_WC_RECV))
        return -1;
    REQUIRE(wc.byte_len == MSG && !memcmp(c_recv[1], s_send, MSG), "scattered receive: %u bytes, content %s",
            wc.byte_len, memcmp(c_recv[1], s_send, MSG) ? "differs" : "ok");
    snprintf(d, 256, "%d bytes each way, then one more; rdma_post_sendv and rdma_post_recvv with 2 SGEs", MSG);
    return 0;
}

static int t_write(char *d, struct why *w)
{
    struct ibv_wc wc;
    REQUIRE(!strcmp(info.tag, "server-hello"), "no server info");
    for (int i = 0; i < RW; i++)
        c_rw[i] = (char)(255 - i);
    REQUIRE_OK(rdma_post_write(cli.id, c_rw, c_rw, RW, c_rw_mr, IBV_SEND_SIGNALED, info.write_addr, info.write_rkey));
    if (one_comp(w, 1, cli.id, &wc, c_rw, IBV_WC_RDMA_WRITE))
        return -1;
    REQUIRE(!memcmp(s_write_target, c_rw, RW), "the server's buffer does not hold the written bytes");
    /* rdma_post_writev: two SGEs into the same remote buffer. */
    for (int i = 0; i < RW; i++)
        c_rw2[i] = (char)(i ^ 0x5a);
    struct ibv_sge sge[2] = {
        {.addr = (uintptr_t)c_rw2, .length = RW / 2, .lkey = c_rw2_mr->lkey},
        {.addr = (uintptr_t)(c_rw2 + RW / 2), .length = RW / 2, .lkey = c_rw2_mr->lkey},
    };
    REQUIRE_OK(rdma_post_writev(cli.id, c_rw2, sge, 2, IBV_SEND_SIGNALED, info.write_addr, info.write_rkey));
    if (one_comp(w, 1, cli.id, &wc, c_rw2, IBV_WC_RDMA_WRITE))
        return -1;
    REQUIRE(!memcmp(s_write_target, c_rw2, RW), "writev: the server's buffer differs");
    snprintf(d, 256, "%d bytes into rdma_reg_write memory (rkey %#x), then writev with 2 SGEs", RW, info.write_rkey);
    return 0;
}

static int t_read(char *d, struct why *w)
{
    struct ibv_wc wc;
    memset(c_rw, 0, RW);
    REQUIRE_OK(rdma_post_read(cli.id, c_rw, c_rw, RW, c_rw_mr, IBV_SEND_SIGNALED, info.read_addr, info.read_rkey));
    if (one_comp(w, 1, cli.id, &wc, c_rw, IBV_WC_RDMA_READ))
        return -1;
    REQUIRE(!memcmp(c_rw, s_read_source, RW), "read bytes differ from the server's");
    memset(c_rw2, 0, RW);
    struct ibv_sge sge[2] = {
        {.addr = (uintptr_t)c_rw2, .length = RW / 2, .lkey = c_rw2_mr->lkey},
        {.addr = (uintptr_t)(c_rw2 + RW / 2), .length = RW / 2, .lkey = c_rw2_mr->lkey},
    };
    /* An RDMA Read's sink may have at most max_sge_rd SGEs: 1 on iWARP (siw), where the read lands in one tagged
     * buffer; then the readv goes into one SGE covering both halves. */
    struct ibv_device_attr da;
    REQUIRE(ibv_query_device(cli.id->verbs, &da) == 0, "ibv_query_device");
    int nsge = da.max_sge_rd >= 2 ? 2 : 1;
    if (nsge == 1)
        sge[0].length = RW;
    REQUIRE_OK(rdma_post_readv(cli.id, c_rw2, sge, nsge, IBV_SEND_SIGNALED, info.read_addr, info.read_rkey));
    if (one_comp(w, 1, cli.id, &wc, c_rw2, IBV_WC_RDMA_READ))
        return -1;
    REQUIRE(!memcmp(c_rw2, s_read_source, RW), "readv bytes differ");
    snprintf(d, 256, "%d bytes from rdma_reg_read memory (rkey %#x), then readv with %d SGE(s) (max_sge_rd %d)", RW,
             info.read_rkey, nsge, da.max_sge_rd);
    return 0;
}

/* iWARP: the kernel's iw_cm moves the QP itself; rdma_init_qp_attr reports only access flags and port (the masks
 * below, measured with rdma-core 44 on siw), COMM_EST is accepted, and an id with a QP still cannot be established
 * by hand. */
static int connected_attrs_iwarp(char *d, struct why *w)
{
    struct ibv_qp_attr qa;
    int mask;
    static const struct {
        enum ibv_qp_state state;
        int mask;
    } want[] = {{IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PORT},
                {IBV_QPS_RTR, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PORT},
                {IBV_QPS_RTS, IBV_QP_PORT}};
    for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
        memset(&qa, 0, sizeof qa);
        qa.qp_state = want[i].state;
        mask = 0;
        REQUIRE_OK(rdma_init_qp_attr(cli.id, &qa, &mask));
        REQUIRE(mask == want[i].mask, "state %d: mask %#x, expected %#x", want[i].state, mask, want[i].mask);
    }
    REQUIRE_OK(rdma_notify(srv.id, IBV_EVENT_COMM_EST));
    REQUIRE_ERRNO(rdma_establish(cli.id), EINVAL);
    snprintf(d, 256, "iWARP: init_qp_attr masks INIT/RTR %#x, RTS %#x; notify COMM_EST 0; establish with QP EINVAL",
             want[0].mask, want[2].mask);
    return 0;
}

static int t_connected_attrs(char *d, struct why *w)
{
    struct ibv_qp_attr qa;
    int mask = 0;
    if (iwarp)
        return connected_attrs_iwarp(d, w);
    memset(&qa, 0, sizeof qa);
    qa.qp_state = IBV_QPS_RTR;
    REQUIRE_OK(rdma_init_qp_attr(cli.id, &qa, &mask));
    int want = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
               IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    REQUIRE((mask & want) == want, "RTR mask %#x lacks %#x", mask, want & ~mask);
    REQUIRE(qa.dest_qp_num == srv.id->qp->qp_num, "RTR dest_qp_num %#x, server QP %#x", qa.dest_qp_num,
            srv.id->qp->qp_num);
    REQUIRE(qa.ah_attr.is_global, "RoCE address vector without GRH");
    uint32_t dest_qpn = qa.dest_qp_num;
    memset(&qa, 0, sizeof qa);
    qa.qp_state = IBV_QPS_RTS;
    REQUIRE_OK(rdma_init_qp_attr(cli.id, &qa, &mask));
    want = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
           IBV_QP_MAX_QP_RD_ATOMIC;
    REQUIRE((mask & want) == want, "RTS mask %#x lacks %#x", mask, want & ~mask);
    /* The connection is established already: COMM_EST is refused; events the CM does not handle are EINVAL. */
    REQUIRE_ERRNO(rdma_notify(srv.id, IBV_EVENT_COMM_EST), EISCONN);
    REQUIRE_ERRNO(rdma_notify(srv.id, IBV_EVENT_QP_FATAL), EINVAL);
    /* ids with a QP cannot be established by hand. */
    REQUIRE_ERRNO(rdma_establish(cli.id), EINVAL);
    snprintf(d, 256, "RTR dest_qp %#x with GRH, RTS mask ok; notify COMM_EST EISCONN, QP_FATAL EINVAL; "
                     "establish with QP EINVAL", dest_qpn);
    return 0;
}

static int t_disconnect(char *d, struct why *w)
{
    struct rdma_cm_event *ev;
    REQUIRE_OK(rdma_disconnect(cli.id));
    int st = qp_state(cli.id->qp);
    REQUIRE(STATE_IS(st, IBV_QPS_ERR), "client QP state %d after rdma_disconnect, expected ERR", st);
    /* The server sees the DREQ as DISCONNECTED and answers with its own rdma_disconnect (the DREP), as rping and
     * rdma_server do; only then does the client get its DISCONNECTED. */
    REQUIRE_EVENT(srv.ch, RDMA_CM_EVENT_DISCONNECTED, &ev);
    REQUIRE(ev->id == srv.id && ev->status == 0, "server DISCONNECTED status %d", ev->status);
    rdma_ack_cm_event(ev);
    REQUIRE_OK(rdma_disconnect(srv.id));
    st = qp_state(srv.id->qp);
    REQUIRE(STATE_IS(st, IBV_QPS_ERR), "server QP state %d after rdma_disconnect, expected ERR", st);
    REQUIRE_EVENT(cli.ch, RDMA_CM_EVENT_DISCONNECTED, &ev);
    REQUIRE(ev->id == cli.id && ev->status == 0, "client DISCONNECTED status %d", ev->status);
    rdma_ack_cm_event(ev);
    /* Receives still posted are flushed. */
    struct ibv_wc wc;
    int n = ibv_poll_cq(srv.id->recv_cq, 1, &wc);
    REQUIRE(n == 1 && wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == (uintptr_t)s_recv[1],
            "server's second receive: %d completions, status %s", n, n == 1 ? ibv_wc_status_str(wc.status) : "-");
    snprintf(d, 256, "DISCONNECTED on both sides, QPs in ERR, pending receive flushed");
    return 0;
}

static int t_teardown(char *d, struct why *w)
{
    rdma_dereg_mr(c_recv_mr);
    rdma_dereg_mr(c_send_mr);
    rdma_dereg_mr(c_rw_mr);
    rdma_dereg_mr(c_rw2_mr);
    rdma_dereg_mr(s_recv_mr);
    rdma_dereg_mr(s_send_mr);
    REQUIRE_OK(rdma_dereg_mr(s_write_mr));
    REQUIRE_OK(rdma_dereg_mr(s_read_mr));
    rdma_destroy_qp(cli.id);
    rdma_destroy_qp(srv.id);
    REQUIRE(!cli.id->qp && !srv.id->qp && !cli.id->send_cq && !srv.id->recv_cq, "rdma_destroy_qp left state");
    REQUIRE_OK(rdma_destroy_id(cli.id));
    REQUIRE_OK(rdma_destroy_id(srv.id));
    cli.id = srv.id = NULL;
    snprintf(d, 256, "MRs, QPs, ids");
    return 0;
}

/* Requests on a fresh listener: S and C get a listener on IP0 and a client from IP1 with an RC QP whose
 * CONNECT_REQUEST (private data PDATA) has arrived; *REQ is its id with a QP, *EV the unacknowledged event. */
static int pending_request(struct why *w, struct side *s, struct rdma_cm_id **lid, struct side *c,
                           struct rdma_cm_id **req, struct rdma_cm_event **ev, const char *pdata)
{
    uint16_t lport;
    if (server_listen(w, s, lid, NULL, &lport) || client_resolve(w, c, NULL, lport))
        return -1;
    struct ibv_qp_init_attr a = qp_attr();
    REQUIRE_OK(rdma_create_qp(c->id, NULL, &a));
    struct rdma_conn_param p;
    memset(&p, 0, sizeof p);
    p.private_data = pdata;
    p.private_data_len = (uint8_t)(strlen(pdata) + 1);
    p.retry_count = 7;
    REQUIRE_OK(rdma_connect(c->id, &p));
    REQUIRE_EVENT(s->ch, RDMA_CM_EVENT_CONNECT_REQUEST, ev);
    flow_ev = *ev;
    *req = (*ev)->id;
    REQUIRE(!memcmp((*ev)->param.conn.private_data, pdata, strlen(pdata) + 1), "request private data differs");
    struct ibv_qp_init_attr sa = qp_attr();
    REQUIRE_OK(rdma_create_qp(*req, NULL, &sa));
    return 0;
}

static void close_pending(struct side *s, struct rdma_cm_id *lid, struct side *c, struct rdma_cm_id *req)
{
    if (flow_ev) {
        rdma_ack_cm_event(flow_ev);
        flow_ev = NULL;
    }
    if (req) {
        if (req->qp)
            rdma_destroy_qp(req);
        rdma_destroy_id(req);
    }
    if (c->id) {
        if (c->id->qp)
            rdma_destroy_qp(c->id);
        rdma_destroy_id(c->id);
    }
    if (c->ch)
        rdma_destroy_event_channel(c->ch);
    server_close(s, lid);
}

/* A request rejected with private data (REJ carries 148 bytes; more is refused). */
static int reject_flow(struct why *w, struct side *s, struct rdma_cm_id **lid, struct side *c,
                       struct rdma_cm_id **req)
{
    struct rdma_cm_event *ev;
    if (pending_request(w, s, lid, c, req, &ev, "please"))
        return -1;
    if (iwarp) {
        REQUIRE_OK(rdma_reject(*req, "go away", 8));
        rdma_ack_cm_event(ev);
        flow_ev = NULL;
        errno = 0;
        int r = cm_wait_event(c->ch, CM_EVENT_MS, &ev);
        REQUIRE(r == 0, "no event after the reject: %s", errname(errno));
        int type = ev->event, status = ev->status;
        unsigned len = ev->param.conn.private_data_len;
        int same = ev->param.conn.private_data && !memcmp(ev->param.conn.private_data, "go away", 8);
        rdma_ack_cm_event(ev);
        /* iWARP (measured with rdma-core 44 on siw): the MPA reject arrives as REJECTED with status -ECONNRESET and
         * exactly the private data sent (IB: status 28, consumer-defined, and 148 bytes). */
        REQUIRE(type == RDMA_CM_EVENT_REJECTED && status == -ECONNRESET, "got %s status %d, expected REJECTED -%d",
                rdma_event_str(type), status, ECONNRESET);
        REQUIRE(len == 8 && same, "REJECTED private data: %u bytes, content %s (expected the 8 sent)", len,
                same ? "ok" : "differs");
        return 0;
    }
    uint8_t big[255];
    memset(big, 0x11, sizeof big);
    REQUIRE_ERRNO(rdma_reject(*req, big, 149), EINVAL);
    REQUIRE_OK(rdma_reject(*req, "go away", 8));
    rdma_ack_cm_event(ev);
    flow_ev = NULL;
    REQUIRE_EVENT(c->ch, RDMA_CM_EVENT_REJECTED, &ev);
    int status = ev->status;
    unsigned len = ev->param.conn.private_data_len;
    int same = ev->param.conn.private_data && !memcmp(ev->param.conn.private_data, "go away", 8);
    rdma_ack_cm_event(ev);
    REQUIRE(status == 28, "REJECTED status %d, expected 28 (IB_CM_REJ_CONSUMER_DEFINED)", status);
    REQUIRE(len == 148 && same, "REJECTED private data: %u bytes, content %s (expected 148, \"go away\")", len,
            same ? "ok" : "differs");
    int st = qp_state(c->id->qp);
    REQUIRE(STATE_IS(st, IBV_QPS_ERR), "client QP state %d after REJECTED, expected ERR", st);
    return 0;
}

static int t_reject(char *d, struct why *w)
{
    struct side s = {0}, c = {0};
    struct rdma_cm_id *lid = NULL, *req = NULL;
    int ret = reject_flow(w, &s, &lid, &c, &req);
    close_pending(&s, lid, &c, req);
    if (!ret && iwarp)
        snprintf(d, 256, "iWARP: REJECTED status -ECONNRESET with the 8 bytes \"go away\"");
    else if (!ret)
        snprintf(d, 256, "149 bytes EINVAL; REJECTED status 28 with 148 bytes starting \"go away\", client QP ERR");
    return ret;
}

/* An accept with more private data than a REP carries (196): EINVAL, and the kernel rejects the request itself. */
static int accept_oversized_flow(struct why *w, struct side *s, struct rdma_cm_id **lid, struct side *c,
                                 struct rdma_cm_id **req)
{
    struct rdma_cm_event *ev;
    if (pending_request(w, s, lid, c, req, &ev, "accept me"))
        return -1;
    uint8_t big[255];
    memset(big, 0x22, sizeof big);
    struct rdma_conn_param bp;
    memset(&bp, 0, sizeof bp);
    bp.private_data = big;
    bp.private_data_len = 197;
    bp.responder_resources = bp.initiator_depth = 1;
    REQUIRE_ERRNO(rdma_accept(*req, &bp), EINVAL);
    rdma_ack_cm_event(ev);
    flow_ev = NULL;
    REQUIRE_ERRNO(rdma_reject(*req, NULL, 0), EINVAL);
    REQUIRE_EVENT(c->ch, RDMA_CM_EVENT_REJECTED, &ev);
    int status = ev->status;
    rdma_ack_cm_event(ev);
    REQUIRE(status == 28, "REJECTED status %d, expected 28", status);
    return 0;
}

static int t_accept_oversized(char *d, struct why *w)
{
    struct side s = {0}, c = {0};
    struct rdma_cm_id *lid = NULL, *req = NULL;
    int ret = accept_oversized_flow(w, &s, &lid, &c, &req);
    close_pending(&s, lid, &c, req);
    if (!ret)
        snprintf(d, 256, "197 bytes: EINVAL, the request is rejected (client REJECTED status 28), reject after EINVAL");
    return ret;
}

/* A third connection: the client's QP is the application's own (no rdma_create_qp), so the library reports
 * CONNECT_RESPONSE and the application moves the QP and calls rdma_establish. */
static int t_manual_qp(char *d, struct why *w)
{
    struct side s = {0}, c = {0};
    struct rdma_cm_id *lid = NULL;
    struct rdma_cm_event *ev;
    uint16_t lport;
    if (server_listen(w, &s, &lid, NULL, &lport) || client_resolve(w, &c, NULL, lport))
        return -1;
    struct ibv_cq *cq = ibv_create_cq(c.id->verbs, 8, NULL, NULL, 0);
    REQUIRE(cq, "ibv_create_cq: %s", errname(errno));
    struct ibv_qp_init_attr a = qp_attr();
    a.send_cq = a.recv_cq = cq;
    struct ibv_qp *qp = ibv_create_qp(c.id->pd, &a);
    REQUIRE(qp, "ibv_create_qp: %s", errname(errno));
    struct ibv_qp_attr qa;
    int mask;
    memset(&qa, 0, sizeof qa);
    qa.qp_state = IBV_QPS_INIT;
    REQUIRE_OK(rdma_init_qp_attr(c.id, &qa, &mask));
    REQUIRE(ibv_modify_qp(qp, &qa, mask) == 0, "modify to INIT: %s", errname(errno));
    static char buf[MSG], sbuf[MSG];
    struct ibv_mr *mr = ibv_reg_mr(c.id->pd, buf, MSG, IBV_ACCESS_LOCAL_WRITE);
    REQUIRE(mr, "ibv_reg_mr");
    struct rdma_conn_param p;
    memset(&p, 0, sizeof p);
    p.qp_num = qp->qp_num;
    p.responder_resources = p.initiator_depth = 1;
    p.retry_count = p.rnr_retry_count = 7;
    REQUIRE_OK(rdma_connect(c.id, &p));
    REQUIRE_EVENT(s.ch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
    struct rdma_cm_id *req = ev->id;
    struct ibv_qp_init_attr sa = qp_attr();
    REQUIRE_OK(rdma_create_qp(req, NULL, &sa));
    struct ibv_mr *smr = rdma_reg_msgs(req, sbuf, MSG);
    REQUIRE(smr, "rdma_reg_msgs");
    REQUIRE_OK(rdma_post_recv(req, sbuf, sbuf, MSG, smr));
    REQUIRE_OK(rdma_accept(req, NULL));
    rdma_ack_cm_event(ev);
    REQUIRE_EVENT(c.ch, RDMA_CM_EVENT_CONNECT_RESPONSE, &ev);
    REQUIRE(ev->status == 0 && ev->id == c.id, "CONNECT_RESPONSE status %d", ev->status);
    REQUIRE(STATE_IS(qp_state(qp), IBV_QPS_INIT), "the library touched the application's QP");
    memset(&qa, 0, sizeof qa);
    qa.qp_state = IBV_QPS_RTR;
    REQUIRE_OK(rdma_init_qp_attr(c.id, &qa, &mask));
    REQUIRE(ibv_modify_qp(qp, &qa, mask) == 0, "modify to RTR: %s", errname(errno));
    memset(&qa, 0, sizeof qa);
    qa.qp_state = IBV_QPS_RTS;
    REQUIRE_OK(rdma_init_qp_attr(c.id, &qa, &mask));
    REQUIRE(ibv_modify_qp(qp, &qa, mask) == 0, "modify to RTS: %s", errname(errno));
    REQUIRE_OK(rdma_establish(c.id));
    rdma_ack_cm_event(ev);
    REQUIRE_EVENT(s.ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
    REQUIRE(ev->id == req, "ESTABLISHED for another id");
    rdma_ack_cm_event(ev);
    /* Data over the hand-made QP. */
    strcpy(buf, "manual-qp-ping");
    struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = MSG, .lkey = mr->lkey};
    struct ibv_send_wr wr = {.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED}, *bad;
    REQUIRE(ibv_post_send(qp, &wr, &bad) == 0, "ibv_post_send");
    struct ibv_wc wc;
    if (one_comp(w, 0, req, &wc, sbuf, IBV_WC_RECV))
        return -1;
    REQUIRE(!strcmp(sbuf, "manual-qp-ping"), "server got \"%.20s\"", sbuf);
    int n = 0;
    for (int i = 0; i < 1000 && n == 0; i++, usleep(1000))
        n = ibv_poll_cq(cq, 1, &wc);
    REQUIRE(n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 7, "client send completion");
    REQUIRE_OK(rdma_disconnect(c.id));
    REQUIRE_EVENT(s.ch, RDMA_CM_EVENT_DISCONNECTED, &ev);
    rdma_ack_cm_event(ev);
    REQUIRE_OK(rdma_disconnect(req));
    REQUIRE_EVENT(c.ch, RDMA_CM_EVENT_DISCONNECTED, &ev);
    rdma_ack_cm_event(ev);
    rdma_dereg_mr(smr);
    rdma_destroy_qp(req);
    REQUIRE_OK(rdma_destroy_id(req));
    ibv_dereg_mr(mr);
    ibv_destroy_qp(qp);
    ibv_destroy_cq(cq);
    REQUIRE_OK(rdma_destroy_id(c.id));
    rdma_destroy_event_channel(c.ch);
    server_close(&s, lid);
    snprintf(d, 256, "CONNECT_RESPONSE, QP moved with rdma_init_qp_attr, rdma_establish, data, disconnect");
    return 0;
}

int main(void)
{
    cm_init("cm_conn");
    STAGE("listen", t_listen);
    STAGE("client_resolve", t_client_resolve);
    STAGE("client_qp", t_client_qp);
    STAGE("connect_request", t_connect_request);
    STAGE("accept", t_accept);
    STAGE("established", t_established);
    STAGE("send_recv", t_send_recv);
    STAGE("rdma_write", t_write);
    STAGE("rdma_read", t_read);
    STAGE("connected_attrs", t_connected_attrs);
    STAGE("disconnect", t_disconnect);
    STAGE("teardown", t_teardown);
    if (!cm_blocked) {
        server_close(&srv, listen_id);
        rdma_destroy_event_channel(cli.ch);
    }
    /* Independent of the first connection: each has its own listener and channels. */
    CHECK("reject", t_reject);
    CHECK("accept_oversized", t_accept_oversized);
    CHECK("manual_qp", t_manual_qp);
    return cm_done();
}
