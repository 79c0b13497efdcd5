/* cm_ud: unreliable-datagram "connections" through the rdma_cm (SIDR, what udaddy does), in one process.
 *
 * A UDP-port-space listener on IP0; a client from IP1 resolves, creates a UD QP and connects with private data; the
 * server sees CONNECT_REQUEST with the data, accepts with its own; the client's ESTABLISHED carries the server's QP
 * number, Q_Key and an address vector, from which it builds an AH and sends with rdma_post_ud_send; the server
 * replies through an AH made from the work completion. Then a rejected request and a request to a port nobody
 * listens on (both UNREACHABLE events).
 */
#include "cmutil.h"

#define MSG 48
#define GRH 40

static struct ibv_qp_init_attr ud_attr(void)
{
    struct ibv_qp_init_attr a;
    memset(&a, 0, sizeof a);
    a.qp_type = IBV_QPT_UD;
    a.cap.max_send_wr = a.cap.max_recv_wr = 4;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    return a;
}

static int listener(struct why *w, struct ep *s, uint16_t *port)
{
    s->ch = rdma_create_event_channel();
    REQUIRE(s->ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(s->ch, &s->id, NULL, RDMA_PS_UDP));
    struct sockaddr_in a = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(s->id, (struct sockaddr *)&a));
    REQUIRE_OK(rdma_listen(s->id, 2));
    *port = ntohs(rdma_get_src_port(s->id));
    return 0;
}

static int client(struct why *w, struct ep *c, uint16_t port)
{
    struct rdma_cm_event *ev;
    c->ch = rdma_create_event_channel();
    REQUIRE(c->ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_UDP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, port);
    REQUIRE_OK(rdma_resolve_addr(c->id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_EVENT(c->ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    REQUIRE_OK(rdma_resolve_route(c->id, 2000));
    REQUIRE_EVENT(c->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    struct ibv_qp_init_attr a = ud_attr();
    REQUIRE_OK(rdma_create_qp(c->id, NULL, &a));
    return 0;
}

static int t_sidr(char *d, struct why *w)
{
    struct ep s = {0}, c = {0};
    struct rdma_cm_event *ev;
    uint16_t port;
    static char sbuf[2][MSG + GRH], cbuf[2][MSG + GRH];
    if (listener(w, &s, &port) || client(w, &c, port))
        return -1;
    struct ibv_mr *cmr = rdma_reg_msgs(c.id, cbuf, sizeof cbuf);
    REQUIRE(cmr, "rdma_reg_msgs");
    REQUIRE_OK(rdma_post_recv(c.id, cbuf[1], cbuf[1], MSG + GRH, cmr));
    struct rdma_conn_param p;
    memset(&p, 0, sizeof p);
    p.private_data = "sidr-request";
    p.private_data_len = 13;
    REQUIRE_OK(rdma_connect(c.id, &p));
    REQUIRE_EVENT(s.ch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
    struct rdma_cm_id *req = ev->id;
    unsigned rlen = ev->param.ud.private_data_len;
    int rsame = ev->param.ud.private_data && !memcmp(ev->param.ud.private_data, "sidr-request", 13);
    REQUIRE(req && ev->listen_id == s.id && req->qp_type == IBV_QPT_UD, "request id");
    struct ibv_qp_init_attr a = ud_attr();
    REQUIRE_OK(rdma_create_qp(req, NULL, &a));
    struct ibv_mr *smr = rdma_reg_msgs(req, sbuf, sizeof sbuf);
    REQUIRE(smr, "rdma_reg_msgs");
    REQUIRE_OK(rdma_post_recv(req, sbuf[0], sbuf[0], MSG + GRH, smr));
    struct rdma_conn_param ap;
    memset(&ap, 0, sizeof ap);
    ap.private_data = "sidr-reply";
    ap.private_data_len = 11;
    REQUIRE_OK(rdma_accept(req, &ap));
    rdma_ack_cm_event(ev);
    REQUIRE(rsame && rlen == 180, "request private data: %u bytes (expected 180 = 216 - 36), content %s", rlen,
            rsame ? "ok" : "differs");
    REQUIRE(!cm_event_pending(s.ch, 200), "the server got an event after accepting a UD request");
    REQUIRE_EVENT(c.ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
    const struct rdma_ud_param *u = &ev->param.ud;
    uint32_t qpn = u->qp_num, qkey = u->qkey;
    unsigned plen = u->private_data_len;
    int psame = u->private_data && !memcmp(u->private_data, "sidr-reply", 11);
    struct ibv_ah *ah = ibv_create_ah(c.id->pd, &ev->param.ud.ah_attr);
    rdma_ack_cm_event(ev);
    REQUIRE(qpn == req->qp->qp_num && qkey == RDMA_UDP_QKEY, "ESTABLISHED: qp_num %#x (server %#x) qkey %#x", qpn,
            req->qp->qp_num, qkey);
    REQUIRE(psame && plen == 136, "reply private data: %u bytes (expected 136 = SIDR REP), content %s", plen,
            psame ? "ok" : "differs");
    REQUIRE(ah, "ibv_create_ah from ESTABLISHED: %s", errname(errno));
    /* Client -> server. */
    struct ibv_wc wc;
    strcpy(cbuf[0], "ud-ping");
    REQUIRE_OK(rdma_post_ud_send(c.id, cbuf[0], cbuf[0], MSG, cmr, IBV_SEND_SIGNALED, ah, qpn));
    REQUIRE(rdma_get_send_comp(c.id, &wc) == 1 && wc.status == IBV_WC_SUCCESS, "client send completion");
    REQUIRE(rdma_get_recv_comp(req, &wc) == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len == MSG + GRH,
            "server receive: status %s len %u", ibv_wc_status_str(wc.status), wc.byte_len);
    REQUIRE(!strcmp(sbuf[0] + GRH, "ud-ping") && wc.src_qp == c.id->qp->qp_num, "server got \"%.16s\" from %#x",
            sbuf[0] + GRH, wc.src_qp);
    /* Server -> client, AH from the completion and the GRH. */
    struct ibv_ah *rah = ibv_create_ah_from_wc(req->pd, &wc, (struct ibv_grh *)sbuf[0], req->port_num);
    REQUIRE(rah, "ibv_create_ah_from_wc: %s", errname(errno));
    strcpy(sbuf[1], "ud-pong");
    REQUIRE_OK(rdma_post_ud_send(req, sbuf[1], sbuf[1], MSG, smr, IBV_SEND_SIGNALED, rah, wc.src_qp));
    REQUIRE(rdma_get_send_comp(req, &wc) == 1 && wc.status == IBV_WC_SUCCESS, "server send completion");
    REQUIRE(rdma_get_recv_comp(c.id, &wc) == 1 && wc.status == IBV_WC_SUCCESS, "client receive");
    REQUIRE(!strcmp(cbuf[1] + GRH, "ud-pong"), "client got \"%.16s\"", cbuf[1] + GRH);
    ibv_destroy_ah(rah);
    ibv_destroy_ah(ah);
    rdma_dereg_mr(cmr);
    rdma_dereg_mr(smr);
    rdma_destroy_qp(req);
    REQUIRE_OK(rdma_destroy_id(req));
    close_ep(&c);
    close_ep(&s);
    snprintf(d, 256, "request %u bytes, ESTABLISHED qpn %#x qkey %#x + %u bytes, ping-pong with GRH", rlen, qpn, qkey,
             plen);
    return 0;
}

static int t_sidr_reject(char *d, struct why *w)
{
    struct ep s = {0}, c = {0};
    struct rdma_cm_event *ev;
    uint16_t port;
    if (listener(w, &s, &port) || client(w, &c, port))
        return -1;
    REQUIRE_OK(rdma_connect(c.id, NULL));
    REQUIRE_EVENT(s.ch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
    struct rdma_cm_id *req = ev->id;
    REQUIRE_OK(rdma_reject(req, "no", 3));
    rdma_ack_cm_event(ev);
    REQUIRE_OK(rdma_destroy_id(req));
    REQUIRE_EVENT(c.ch, RDMA_CM_EVENT_UNREACHABLE, &ev);
    int status = ev->status;
    rdma_ack_cm_event(ev);
    REQUIRE(status == 2, "UNREACHABLE status %d, expected 2 (IB_SIDR_REJECT)", status);
    close_ep(&c);
    close_ep(&s);
    snprintf(d, 256, "rdma_reject of a UD request: client UNREACHABLE status 2");
    return 0;
}

static int t_sidr_no_listener(char *d, struct why *w)
{
    struct ep s = {0}, c = {0};
    struct rdma_cm_event *ev;
    uint16_t port;
    /* A UDP port that was bound once and is free now. */
    if (listener(w, &s, &port))
        return -1;
    close_ep(&s);
    if (client(w, &c, port))
        return -1;
    double t0 = now_ms();
    REQUIRE_OK(rdma_connect(c.id, NULL));
    REQUIRE_EVENT(c.ch, RDMA_CM_EVENT_UNREACHABLE, &ev);
    int status = ev->status;
    rdma_ack_cm_event(ev);
    double t1 = now_ms();
    REQUIRE(status == 1, "UNREACHABLE status %d, expected 1 (IB_SIDR_UNSUPPORTED)", status);
    close_ep(&c);
    snprintf(d, 256, "UD connect to %s:%u: UNREACHABLE status 1 after %.0f ms", IP0, port, t1 - t0);
    return 0;
}

int main(void)
{
    cm_init("cm_ud");
    CHECK("sidr_connect", t_sidr);
    CHECK("sidr_reject", t_sidr_reject);
    CHECK("sidr_no_listener", t_sidr_no_listener);
    return cm_done();
}
