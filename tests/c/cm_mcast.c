/* cm_mcast: multicast through the rdma_cm on UD ids (what mckey does), in one process.
 *
 * A receiver id bound to IP0 joins the group with rdma_join_multicast (its QP is attached), a sender id bound to IP1
 * joins with rdma_join_multicast_ex as a send-only full member, builds an address handle from its MULTICAST_JOIN
 * event and sends datagrams with rdma_post_ud_send; the receiver gets them with a GRH. After rdma_leave_multicast
 * the receiver gets nothing more. Bad join/leave arguments give errno.
 *
 * The group (CM_MCAST_GROUP, default 239.255.18.1) is administratively scoped IPv4 (RoCE v2 maps it to
 * ::ffff:239.255.18.1); IPv6 groups need IPv6 source addresses, which the test guest does not have.
 */
#include "cmutil.h"

#define MSG 64
#define GRH 40
#define NSEND 3

struct ud {
    struct rdma_event_channel *ch;
    struct rdma_cm_id *id;
    struct ibv_mr *mr;
    char buf[NSEND + 1][MSG + GRH];
    int ctx;
};

static struct ud rx, tx;
static struct sockaddr_in group;
static struct ibv_ah *ah;
static uint32_t remote_qpn, remote_qkey;

static int ud_open(struct why *w, struct ud *u, const char *ip)
{
    struct rdma_cm_event *ev;
    u->ch = rdma_create_event_channel();
    REQUIRE(u->ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(u->ch, &u->id, u, RDMA_PS_UDP));
    REQUIRE(u->id->qp_type == IBV_QPT_UD, "UDP id with qp_type %d", u->id->qp_type);
    struct sockaddr_in a = sin4(ip, 0);
    REQUIRE_OK(rdma_bind_addr(u->id, (struct sockaddr *)&a));
    REQUIRE_OK(rdma_resolve_addr(u->id, NULL, (struct sockaddr *)&group, 2000));
    REQUIRE_EVENT(u->ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    REQUIRE(sa_is_ip(rdma_get_local_addr(u->id), ip), "local %s", sa_str(rdma_get_local_addr(u->id)));
    struct ibv_qp_init_attr qa;
    memset(&qa, 0, sizeof qa);
    qa.qp_type = IBV_QPT_UD;
    qa.cap.max_send_wr = qa.cap.max_recv_wr = NSEND + 2;
    qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
    REQUIRE_OK(rdma_create_qp(u->id, NULL, &qa));
    REQUIRE(qp_state(u->id->qp) == IBV_QPS_RTS, "UD QP state %d", qp_state(u->id->qp));
    u->mr = rdma_reg_msgs(u->id, u->buf, sizeof u->buf);
    REQUIRE(u->mr, "rdma_reg_msgs: %s", errname(errno));
    return 0;
}

static int t_receiver(char *d, struct why *w)
{
    struct rdma_cm_event *ev;
    if (ud_open(w, &rx, IP0))
        return -1;
    for (int i = 0; i <= NSEND; i++)
        REQUIRE_OK(rdma_post_recv(rx.id, rx.buf[i], rx.buf[i], MSG + GRH, rx.mr));
    REQUIRE_OK(rdma_join_multicast(rx.id, (struct sockaddr *)&group, &rx.ctx));
    REQUIRE_EVENT(rx.ch, RDMA_CM_EVENT_MULTICAST_JOIN, &ev);
    const struct rdma_ud_param *u = &ev->param.ud;
    int ok_ctx = u->private_data == &rx.ctx, global = u->ah_attr.is_global, status = ev->status;
    uint32_t qpn = u->qp_num, qkey = u->qkey;
    union ibv_gid dgid = u->ah_attr.grh.dgid;
    rdma_ack_cm_event(ev);
    REQUIRE(status == 0, "MULTICAST_JOIN status %d", status);
    REQUIRE(ok_ctx, "param.ud.private_data is not the join context");
    REQUIRE(global && qpn == 0xffffff && qkey == RDMA_UDP_QKEY, "join: is_global %d qp_num %#x qkey %#x", global, qpn,
            qkey);
    uint8_t want[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    memcpy(want + 12, &group.sin_addr, 4);
    REQUIRE(!memcmp(dgid.raw, want, 16), "dgid is not ::ffff:<group>");
    snprintf(d, 256, "%s joined %s: dgid ::ffff:%s, qpn 0xffffff, qkey %#x", IP0, sa_str((struct sockaddr *)&group),
             sa_str((struct sockaddr *)&group), qkey);
    return 0;
}

static int t_sender(char *d, struct why *w)
{
    struct rdma_cm_event *ev;
    if (ud_open(w, &tx, IP1))
        return -1;
    struct rdma_cm_join_mc_attr_ex mc;
    memset(&mc, 0, sizeof mc);
    mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
    mc.addr = (struct sockaddr *)&group;
    mc.join_flags = RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER;
    REQUIRE_OK(rdma_join_multicast_ex(tx.id, &mc, &tx.ctx));
    REQUIRE_EVENT(tx.ch, RDMA_CM_EVENT_MULTICAST_JOIN, &ev);
    REQUIRE(ev->status == 0 && ev->param.ud.private_data == &tx.ctx, "send-only join: status %d", ev->status);
    ah = ibv_create_ah(tx.id->pd, &ev->param.ud.ah_attr);
    remote_qpn = ev->param.ud.qp_num;
    remote_qkey = ev->param.ud.qkey;
    rdma_ack_cm_event(ev);
    REQUIRE(ah, "ibv_create_ah from the join event: %s", errname(errno));
    snprintf(d, 256, "%s joined send-only, AH from the event", IP1);
    return 0;
}

static int t_send_receive(char *d, struct why *w)
{
    struct ibv_wc wc;
    for (int i = 0; i < NSEND; i++) {
        snprintf(tx.buf[i], MSG, "datagram %d to the group", i);
        REQUIRE_OK(rdma_post_ud_send(tx.id, tx.buf[i], tx.buf[i], MSG, tx.mr, IBV_SEND_SIGNALED, ah, remote_qpn));
        int n = rdma_get_send_comp(tx.id, &wc);
        REQUIRE(n == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_SEND && wc.wr_id == (uintptr_t)tx.buf[i],
                "send completion %d: n %d status %s", i, n, n == 1 ? ibv_wc_status_str(wc.status) : "-");
    }
    for (int i = 0; i < NSEND; i++) {
        int n = rdma_get_recv_comp(rx.id, &wc);
        REQUIRE(n == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV, "receive %d: n %d status %s", i, n,
                n == 1 ? ibv_wc_status_str(wc.status) : "-");
        REQUIRE(wc.wr_id == (uintptr_t)rx.buf[i], "receive %d: wr_id is not buffer %d", i, i);
        REQUIRE(wc.byte_len == MSG + GRH && (wc.wc_flags & IBV_WC_GRH), "receive %d: %u bytes, flags %#x", i,
                wc.byte_len, wc.wc_flags);
        REQUIRE(wc.src_qp == tx.id->qp->qp_num, "src_qp %#x, sender QP %#x", wc.src_qp, tx.id->qp->qp_num);
        REQUIRE(!memcmp(rx.buf[i] + GRH, tx.buf[i], MSG), "datagram %d content differs", i);
    }
    snprintf(d, 256, "%d datagrams of %d bytes, each received with a GRH from QP %#x", NSEND, MSG, tx.id->qp->qp_num);
    return 0;
}

static int t_leave(char *d, struct why *w)
{
    struct ibv_wc wc;
    REQUIRE_OK(rdma_leave_multicast(rx.id, (struct sockaddr *)&group));
    REQUIRE_ERRNO(rdma_leave_multicast(rx.id, (struct sockaddr *)&group), EADDRNOTAVAIL);
    /* The receiver's QP is detached: a datagram sent now does not arrive. */
    snprintf(tx.buf[NSEND], MSG, "after the leave");
    REQUIRE_OK(rdma_post_ud_send(tx.id, tx.buf[NSEND], tx.buf[NSEND], MSG, tx.mr, IBV_SEND_SIGNALED, ah, remote_qpn));
    REQUIRE(rdma_get_send_comp(tx.id, &wc) == 1 && wc.status == IBV_WC_SUCCESS, "send after leave");
    usleep(500 * 1000);
    int n = ibv_poll_cq(rx.id->recv_cq, 1, &wc);
    REQUIRE(n == 0, "the receiver still got a datagram after rdma_leave_multicast (%d)", n);
    REQUIRE_OK(rdma_leave_multicast(tx.id, (struct sockaddr *)&group));
    snprintf(d, 256, "second leave EADDRNOTAVAIL, nothing received after the leave");
    return 0;
}

static int t_join_errors(char *d, struct why *w)
{
    struct rdma_cm_join_mc_attr_ex mc;
    memset(&mc, 0, sizeof mc);
    mc.addr = (struct sockaddr *)&group;
    mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_RESERVED;
    REQUIRE_ERRNO(rdma_join_multicast_ex(rx.id, &mc, NULL), ENOTSUP);
    mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
    REQUIRE_ERRNO(rdma_join_multicast_ex(rx.id, &mc, NULL), EINVAL);
    mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS;
    REQUIRE_ERRNO(rdma_join_multicast_ex(rx.id, &mc, NULL), EINVAL);
    mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
    mc.join_flags = RDMA_MC_JOIN_FLAG_RESERVED;
    REQUIRE_ERRNO(rdma_join_multicast_ex(rx.id, &mc, NULL), EINVAL);
    struct sockaddr_in un = group;
    un.sin_family = AF_UNIX;
    REQUIRE_ERRNO(rdma_join_multicast(rx.id, (struct sockaddr *)&un, NULL), EINVAL);
    struct sockaddr_in other = sin4("239.255.18.99", 0);
    REQUIRE_ERRNO(rdma_leave_multicast(rx.id, (struct sockaddr *)&other), EADDRNOTAVAIL);
    REQUIRE(!cm_event_pending(rx.ch, 0), "a failed join produced an event");
    snprintf(d, 256, "reserved comp_mask ENOTSUP; no address, no flags, reserved flags, AF_UNIX EINVAL; "
                     "leave unknown EADDRNOTAVAIL");
    return 0;
}

static void ud_close(struct ud *u)
{
    if (u->mr)
        rdma_dereg_mr(u->mr);
    if (u->id) {
        if (u->id->qp)
            rdma_destroy_qp(u->id);
        rdma_destroy_id(u->id);
    }
    if (u->ch)
        rdma_destroy_event_channel(u->ch);
}

int main(void)
{
    cm_init("cm_mcast");
    const char *g = getenv("CM_MCAST_GROUP");
    group = sin4(g && *g ? g : "239.255.18.1", 0);
    STAGE("receiver_join", t_receiver);
    STAGE("sender_join_sendonly", t_sender);
    STAGE("send_receive", t_send_receive);
    STAGE("leave", t_leave);
    if (rx.id && rx.id->qp)
        CHECK("join_errors", t_join_errors);
    else
        cm_fail("join_errors", "not run: no receiver id");
    if (ah)
        ibv_destroy_ah(ah);
    ud_close(&tx);
    ud_close(&rx);
    return cm_done();
}
