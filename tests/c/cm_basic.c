/* cm_basic: the rdma_cm calls that need no peer.
 *
 * Event channels, ids (with a channel and synchronous), devices, bind and the address getters, address and route
 * resolution (198.18.0.2 -> 198.18.0.1, events checked), QPs created through an id, rdma_init_qp_attr, options,
 * rdma_migrate_id, ECE, rdma_event_str, rdma_destroy_id waiting for unacknowledged events, and the error cases:
 * NULL and malformed arguments, an unreachable address (ADDR_ERROR), a connect to a port nobody listens on
 * (REJECTED, status 8) and oversized private data.
 *
 * Run in the test guest: tests/out/c/cm_basic (RDMA_TEST_IP0/IP1, RDMA_TEST_DEV0/DEV1 from the guest setup).
 */
#include "cmutil.h"

#include <fcntl.h>
#include <pthread.h>

/* Some checks share one async id resolved (address and route) from IP1 to IP0:PORT. */
struct resolved {
    struct rdma_event_channel *ch;
    struct rdma_cm_id *id;
};

static int resolve_both(struct why *w, struct resolved *r, enum rdma_port_space ps, uint16_t port)
{
    struct rdma_cm_event *ev;
    r->ch = rdma_create_event_channel();
    REQUIRE(r->ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(r->ch, &r->id, r, ps));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, port);
    REQUIRE_OK(rdma_resolve_addr(r->id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_EVENT(r->ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    REQUIRE_OK(rdma_resolve_route(r->id, 2000));
    REQUIRE_EVENT(r->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    return 0;
}

static void release(struct resolved *r)
{
    if (r->id) {
        if (r->id->qp)
            rdma_destroy_qp(r->id);
        rdma_destroy_id(r->id);
    }
    if (r->ch)
        rdma_destroy_event_channel(r->ch);
    memset(r, 0, sizeof *r);
}

static struct ibv_qp_init_attr rc_attr(void)
{
    struct ibv_qp_init_attr a;
    memset(&a, 0, sizeof a);
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = a.cap.max_recv_wr = 4;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    return a;
}

/* ---------------------------------------------------------------------------------------------------------------- */

static int t_event_channel(char *d, struct why *w)
{
    struct rdma_event_channel *a = rdma_create_event_channel(), *b = rdma_create_event_channel();
    REQUIRE(a && b, "rdma_create_event_channel: NULL, errno %s", errname(errno));
    REQUIRE(a->fd >= 0 && b->fd >= 0 && a->fd != b->fd, "fds %d and %d", a->fd, b->fd);
    int fa = a->fd, flags = fcntl(fa, F_GETFL);
    REQUIRE(flags >= 0, "fcntl(F_GETFL) on the channel fd: %s", errname(errno));
    REQUIRE((flags & O_NONBLOCK) == 0, "a new channel fd is non-blocking");
    rdma_destroy_event_channel(a);
    errno = 0;
    REQUIRE(fcntl(fa, F_GETFD) == -1 && errno == EBADF, "fd %d still open after rdma_destroy_event_channel", fa);
    rdma_destroy_event_channel(b);
    snprintf(d, 256, "two channels, fds %d/%d, closed on destroy", fa, fa + 1);
    return 0;
}

static int t_get_devices(char *d, struct why *w)
{
    int n = -1, seen0 = 0, seen1 = 0;
    struct ibv_context **list = rdma_get_devices(&n);
    REQUIRE(list, "rdma_get_devices: NULL, errno %s", errname(errno));
    REQUIRE(n >= 2, "num_devices %d", n);
    for (int i = 0; i < n; i++) {
        REQUIRE(list[i] && list[i]->device, "entry %d is NULL or has no device", i);
        seen0 |= !strcmp(dev_name(list[i]), DEV0);
        seen1 |= !strcmp(dev_name(list[i]), DEV1);
    }
    REQUIRE(list[n] == NULL, "the list is not NULL-terminated");
    REQUIRE(seen0 && seen1, "%s / %s not both listed", DEV0, DEV1);
    struct ibv_context **again = rdma_get_devices(NULL);
    REQUIRE(again, "rdma_get_devices(NULL): NULL");
    /* One verbs context per device per process: the same pointers every time. */
    for (int i = 0; i < n; i++)
        REQUIRE(again[i] == list[i], "entry %d differs between two calls (contexts are shared)", i);
    rdma_free_devices(again);
    rdma_free_devices(list);
    snprintf(d, 256, "%d devices incl. %s %s, same contexts on every call", n, DEV0, DEV1);
    return 0;
}

static int t_create_id(char *d, struct why *w)
{
    static const struct {
        enum rdma_port_space ps;
        enum ibv_qp_type qpt;
    } cases[] = {
        {RDMA_PS_TCP, IBV_QPT_RC}, {RDMA_PS_UDP, IBV_QPT_UD}, {RDMA_PS_IPOIB, IBV_QPT_UD}, {RDMA_PS_IB, IBV_QPT_RC}};
    int marker;
    struct rdma_event_channel *ch = rdma_create_event_channel();
    REQUIRE(ch, "rdma_create_event_channel: %s", errname(errno));
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rdma_cm_id *id = NULL;
        REQUIRE_OK(rdma_create_id(ch, &id, &marker, cases[i].ps));
        REQUIRE(id, "no id returned");
        REQUIRE(id->channel == ch, "id->channel %p, expected %p", (void *)id->channel, (void *)ch);
        REQUIRE(id->context == &marker, "id->context not kept");
        REQUIRE(id->ps == cases[i].ps, "id->ps %d, expected %d", id->ps, cases[i].ps);
        REQUIRE(id->qp_type == cases[i].qpt, "ps %#x: qp_type %d, expected %d", cases[i].ps, id->qp_type,
                cases[i].qpt);
        REQUIRE(!id->verbs && !id->qp && !id->pd && !id->event, "a fresh id has verbs/qp/pd/event set");
        REQUIRE_OK(rdma_destroy_id(id));
    }
    rdma_destroy_event_channel(ch);
    snprintf(d, 256, "TCP/RC UDP/UD IPOIB/UD IB/RC");
    return 0;
}

static int t_create_id_sync(char *d, struct why *w)
{
    struct rdma_cm_id *id = NULL;
    REQUIRE_OK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
    REQUIRE(id && id->channel && id->channel->fd >= 0, "a synchronous id has no channel of its own");
    REQUIRE_OK(rdma_destroy_id(id));
    snprintf(d, 256, "NULL channel: the id gets its own");
    return 0;
}

static int t_bind(char *d, struct why *w)
{
    struct rdma_cm_id *a, *b;
    REQUIRE_OK(rdma_create_id(NULL, &a, NULL, RDMA_PS_TCP));
    REQUIRE_OK(rdma_create_id(NULL, &b, NULL, RDMA_PS_TCP));
    struct sockaddr_in s = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(a, (struct sockaddr *)&s));
    struct sockaddr *la = rdma_get_local_addr(a);
    uint16_t port = ntohs(rdma_get_src_port(a));
    REQUIRE(sa_is_ip(la, IP0), "rdma_get_local_addr: %s, expected %s", sa_str(la), IP0);
    REQUIRE(port != 0, "port 0 was not replaced by a kernel-chosen port");
    REQUIRE(((struct sockaddr_in *)la)->sin_port == htons(port), "local addr port and rdma_get_src_port differ");
    REQUIRE(rdma_get_dst_port(a) == 0, "rdma_get_dst_port %u on a bound id", ntohs(rdma_get_dst_port(a)));
    REQUIRE(a->verbs && !strcmp(dev_name(a->verbs), DEV0), "bound to %s: device %s, expected %s", IP0,
            dev_name(a->verbs), DEV0);
    REQUIRE(a->port_num == 1, "port_num %u", a->port_num);
    REQUIRE(a->pd && a->pd->context == a->verbs, "no PD for the device after bind");
    /* A second id on the same device shares the context and the PD. */
    struct sockaddr_in s2 = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(b, (struct sockaddr *)&s2));
    REQUIRE(b->verbs == a->verbs && b->pd == a->pd, "two ids on %s: different verbs context or PD", DEV0);
    /* An explicit port. */
    uint16_t p2 = ntohs(rdma_get_src_port(b));
    REQUIRE(p2 != 0 && p2 != port, "second id port %u", p2);
    rdma_destroy_id(b);
    REQUIRE_OK(rdma_create_id(NULL, &b, NULL, RDMA_PS_TCP));
    s2 = sin4(IP0, p2);
    REQUIRE_OK(rdma_bind_addr(b, (struct sockaddr *)&s2));
    REQUIRE(ntohs(rdma_get_src_port(b)) == p2, "explicit port %u came back as %u", p2, ntohs(rdma_get_src_port(b)));
    rdma_destroy_id(b);
    rdma_destroy_id(a);
    snprintf(d, 256, "%s:%u on %s port 1, shared context and PD, explicit port %u", IP0, port, DEV0, p2);
    return 0;
}

static int t_bind_errors(char *d, struct why *w)
{
    struct rdma_cm_id *a, *b;
    REQUIRE_OK(rdma_create_id(NULL, &a, NULL, RDMA_PS_TCP));
    REQUIRE_OK(rdma_create_id(NULL, &b, NULL, RDMA_PS_TCP));
    REQUIRE_ERRNO(rdma_bind_addr(a, NULL), EINVAL);
    struct sockaddr_in un = sin4(IP0, 0);
    un.sin_family = AF_UNIX;
    REQUIRE_ERRNO(rdma_bind_addr(a, (struct sockaddr *)&un), EINVAL);
    struct sockaddr_in far = sin4(CM_UNREACHABLE, 0);
    REQUIRE_ERRNO(rdma_bind_addr(a, (struct sockaddr *)&far), EADDRNOTAVAIL);
    struct sockaddr_in s = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(a, (struct sockaddr *)&s));
    REQUIRE_ERRNO(rdma_bind_addr(a, (struct sockaddr *)&s), EINVAL);
    struct sockaddr_in same = sin4(IP0, ntohs(rdma_get_src_port(a)));
    REQUIRE_ERRNO(rdma_bind_addr(b, (struct sockaddr *)&same), EADDRINUSE);
    rdma_destroy_id(b);
    rdma_destroy_id(a);
    snprintf(d, 256, "NULL/AF_UNIX EINVAL, foreign address EADDRNOTAVAIL, rebind EINVAL, same port EADDRINUSE");
    return 0;
}

static int t_resolve(char *d, struct why *w)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct rdma_cm_id *id;
    struct rdma_cm_event *ev;
    REQUIRE(ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, 7999);
    double t0 = now_ms();
    REQUIRE_OK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_EVENT(ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    REQUIRE(ev->id == id && ev->listen_id == NULL && ev->status == 0, "ADDR_RESOLVED: id %s, listen_id %p, status %d",
            ev->id == id ? "ok" : "wrong", (void *)ev->listen_id, ev->status);
    REQUIRE_OK(rdma_ack_cm_event(ev));
    double t1 = now_ms();
    REQUIRE(id->verbs && !strcmp(dev_name(id->verbs), DEV1), "resolved from %s: device %s, expected %s", IP1,
            dev_name(id->verbs), DEV1);
    REQUIRE(id->port_num == 1, "port_num %u", id->port_num);
    REQUIRE(sa_is_ip(rdma_get_local_addr(id), IP1), "local addr %s", sa_str(rdma_get_local_addr(id)));
    REQUIRE(sa_is_ip(rdma_get_peer_addr(id), IP0), "peer addr %s", sa_str(rdma_get_peer_addr(id)));
    REQUIRE(ntohs(rdma_get_dst_port(id)) == 7999, "dst port %u", ntohs(rdma_get_dst_port(id)));
    REQUIRE(rdma_get_src_port(id) != 0, "src port 0 after resolve");
    REQUIRE_OK(rdma_resolve_route(id, 2000));
    REQUIRE_EVENT(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
    REQUIRE(ev->id == id && ev->status == 0, "ROUTE_RESOLVED status %d", ev->status);
    REQUIRE_OK(rdma_ack_cm_event(ev));
    double t2 = now_ms();
    REQUIRE(id->route.num_paths == 1 && id->route.path_rec, "route: %d paths, path_rec %p", id->route.num_paths,
            (void *)id->route.path_rec);
    REQUIRE(!cm_event_pending(ch, 0), "an extra event is pending");
    REQUIRE_OK(rdma_destroy_id(id));
    rdma_destroy_event_channel(ch);
    snprintf(d, 256, "%s -> %s:7999 on %s: addr %.0f ms, route %.0f ms, 1 path", IP1, IP0, DEV1, t1 - t0, t2 - t1);
    return 0;
}

static int t_resolve_sync(char *d, struct why *w)
{
    struct rdma_cm_id *id;
    REQUIRE_OK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, 7999);
    REQUIRE_OK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE(id->event && id->event->event == RDMA_CM_EVENT_ADDR_RESOLVED, "after a synchronous resolve_addr, "
            "id->event is %s", id->event ? rdma_event_str(id->event->event) : "NULL");
    REQUIRE(id->verbs && !strcmp(dev_name(id->verbs), DEV1), "device %s", dev_name(id->verbs));
    REQUIRE_OK(rdma_resolve_route(id, 2000));
    REQUIRE(id->event && id->event->event == RDMA_CM_EVENT_ROUTE_RESOLVED, "after a synchronous resolve_route, "
            "id->event is %s", id->event ? rdma_event_str(id->event->event) : "NULL");
    REQUIRE_OK(rdma_destroy_id(id));
    snprintf(d, 256, "calls return after the event; id->event holds it");
    return 0;
}

static int t_unreachable(char *d, struct why *w)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct rdma_cm_id *id;
    struct rdma_cm_event *ev;
    REQUIRE(ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(CM_UNREACHABLE, 7999);
    double t0 = now_ms();
    REQUIRE_OK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 1000));
    REQUIRE_EVENT(ch, RDMA_CM_EVENT_ADDR_ERROR, &ev);
    double t1 = now_ms();
    int status = ev->status;
    REQUIRE(ev->id == id, "event for another id");
    rdma_ack_cm_event(ev);
    REQUIRE(status == -ETIMEDOUT, "ADDR_ERROR status %d, expected %d (-ETIMEDOUT)", status, -ETIMEDOUT);
    REQUIRE_OK(rdma_destroy_id(id));
    rdma_destroy_event_channel(ch);
    /* Synchronous: the call itself fails with the event's errno. */
    REQUIRE_OK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
    REQUIRE_ERRNO(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 1000), ETIMEDOUT);
    REQUIRE(id->event && id->event->event == RDMA_CM_EVENT_ADDR_ERROR, "sync id->event is %s",
            id->event ? rdma_event_str(id->event->event) : "NULL");
    REQUIRE_OK(rdma_destroy_id(id));
    snprintf(d, 256, "%s: ADDR_ERROR status -ETIMEDOUT after %.0f ms (timeout 1000); sync: -1 ETIMEDOUT",
             CM_UNREACHABLE, t1 - t0);
    return 0;
}

static int t_create_qp(char *d, struct why *w)
{
    struct resolved r = {0};
    if (resolve_both(w, &r, RDMA_PS_TCP, 7999))
        return release(&r), -1;
    struct rdma_cm_id *id = r.id;
    struct ibv_qp_init_attr a = rc_attr();
    REQUIRE_OK(rdma_create_qp(id, NULL, &a));
    REQUIRE(id->qp && id->qp->qp_type == IBV_QPT_RC, "no RC QP on the id");
    REQUIRE(id->qp->pd == id->pd, "QP not on the id's PD");
    REQUIRE(id->send_cq && id->recv_cq && id->send_cq_channel && id->recv_cq_channel,
            "library CQs/channels missing: send_cq %p recv_cq %p", (void *)id->send_cq, (void *)id->recv_cq);
    REQUIRE(id->send_cq->cq_context == id && id->recv_cq->cq_context == id, "cq_context is not the id");
    REQUIRE(id->send_cq->channel == id->send_cq_channel && id->recv_cq->channel == id->recv_cq_channel,
            "CQs not bound to the id's completion channels");
    REQUIRE(id->qp->send_cq == id->send_cq && id->qp->recv_cq == id->recv_cq, "QP uses other CQs");
    int st = qp_state(id->qp);
    REQUIRE(st == IBV_QPS_INIT, "QP state %d after rdma_create_qp, expected INIT", st);
    struct ibv_qp_init_attr b = rc_attr();
    REQUIRE_ERRNO(rdma_create_qp(id, NULL, &b), EINVAL);
    rdma_destroy_qp(id);
    REQUIRE(!id->qp && !id->send_cq && !id->recv_cq && !id->send_cq_channel && !id->recv_cq_channel,
            "rdma_destroy_qp left qp/CQs/channels set");
    /* The caller's own CQ is used as given; the other one is created. */
    struct ibv_cq *mine = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
    REQUIRE(mine, "ibv_create_cq: %s", errname(errno));
    a = rc_attr();
    a.send_cq = mine;
    REQUIRE_OK(rdma_create_qp(id, NULL, &a));
    REQUIRE(id->qp->send_cq == mine && id->recv_cq && id->qp->recv_cq == id->recv_cq && !id->send_cq,
            "with a caller send CQ: qp send_cq %s, id->recv_cq %p, id->send_cq %p",
            id->qp->send_cq == mine ? "mine" : "other", (void *)id->recv_cq, (void *)id->send_cq);
    rdma_destroy_qp(id);
    ibv_destroy_cq(mine);
    release(&r);
    snprintf(d, 256, "library CQs + channels with cq_context = id, QP in INIT, second QP EINVAL, caller CQ kept");
    return 0;
}

static int t_create_qp_ex_srq_ex(char *d, struct why *w)
{
    struct resolved r = {0};
    if (resolve_both(w, &r, RDMA_PS_TCP, 7999))
        return release(&r), -1;
    struct rdma_cm_id *id = r.id;
    /* An SRQ through the id (the extended call), then a QP through the id that picks it up. */
    struct ibv_srq_init_attr_ex sa;
    memset(&sa, 0, sizeof sa);
    sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
    sa.srq_type = IBV_SRQT_BASIC;
    sa.attr.max_wr = 4;
    sa.attr.max_sge = 1;
    REQUIRE_OK(rdma_create_srq_ex(id, &sa));
    REQUIRE(id->srq && sa.pd == id->pd && (sa.comp_mask & IBV_SRQ_INIT_ATTR_PD), "SRQ: %p, PD filled in: %s",
            (void *)id->srq, sa.pd == id->pd ? "yes" : "no");
    struct ibv_qp_init_attr_ex qa;
    memset(&qa, 0, sizeof qa);
    qa.qp_type = IBV_QPT_RC;
    qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
    qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
    REQUIRE_OK(rdma_create_qp_ex(id, &qa));
    REQUIRE(id->qp && id->qp->srq == id->srq && qa.srq == id->srq, "QP without the id's SRQ");
    REQUIRE((qa.comp_mask & IBV_QP_INIT_ATTR_PD) && qa.pd == id->pd, "attr_ex PD not filled in");
    REQUIRE(qa.send_cq == id->send_cq && qa.recv_cq == id->recv_cq && id->send_cq && id->recv_cq,
            "attr_ex CQs are not the id's");
    REQUIRE(qp_state(id->qp) == IBV_QPS_INIT, "QP state %d", qp_state(id->qp));
    rdma_destroy_qp(id);
    rdma_destroy_srq(id);
    REQUIRE(!id->srq && !id->qp, "rdma_destroy_srq left id->srq");
    release(&r);
    snprintf(d, 256, "rdma_create_srq_ex + rdma_create_qp_ex fill in PD/CQs/SRQ from the id; QP in INIT");
    return 0;
}

static int t_create_qp_foreign_pd(char *d, struct why *w)
{
    struct resolved r = {0};
    if (resolve_both(w, &r, RDMA_PS_TCP, 7999))
        return release(&r), -1;
    int n;
    struct ibv_context **list = rdma_get_devices(&n), *other = NULL;
    REQUIRE(list, "rdma_get_devices: NULL");
    for (int i = 0; i < n; i++)
        if (list[i] != r.id->verbs)
            other = list[i];
    REQUIRE(other, "no second device");
    struct ibv_pd *pd = ibv_alloc_pd(other);
    REQUIRE(pd, "ibv_alloc_pd: %s", errname(errno));
    struct ibv_qp_init_attr a = rc_attr();
    REQUIRE_ERRNO(rdma_create_qp(r.id, pd, &a), EINVAL);
    REQUIRE(!r.id->qp, "id->qp set after a failed rdma_create_qp");
    ibv_dealloc_pd(pd);
    rdma_free_devices(list);
    release(&r);
    snprintf(d, 256, "PD of %s for an id on %s: EINVAL", dev_name(other), DEV1);
    return 0;
}

static int t_ud_qp(char *d, struct why *w)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct rdma_cm_id *id;
    struct rdma_cm_event *ev;
    REQUIRE(ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(ch, &id, NULL, RDMA_PS_UDP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, 7999);
    REQUIRE_OK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_EVENT(ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    struct ibv_qp_attr qa;
    int mask = 0;
    memset(&qa, 0, sizeof qa);
    qa.qp_state = IBV_QPS_INIT;
    REQUIRE_OK(rdma_init_qp_attr(id, &qa, &mask));
    REQUIRE((mask & IBV_QP_QKEY) && qa.qkey == RDMA_UDP_QKEY, "UD INIT attrs: mask %#x qkey %#x", mask, qa.qkey);
    struct ibv_qp_init_attr a = rc_attr();
    a.qp_type = IBV_QPT_UD;
    REQUIRE_OK(rdma_create_qp(id, NULL, &a));
    int st = qp_state(id->qp);
    REQUIRE(st == IBV_QPS_RTS, "UD QP state %d after rdma_create_qp, expected RTS", st);
    struct ibv_qp_attr qattr;
    struct ibv_qp_init_attr qinit;
    REQUIRE(!ibv_query_qp(id->qp, &qattr, IBV_QP_QKEY, &qinit) && qattr.qkey == RDMA_UDP_QKEY, "UD qkey %#x",
            qattr.qkey);
    rdma_destroy_qp(id);
    rdma_destroy_id(id);
    rdma_destroy_event_channel(ch);
    snprintf(d, 256, "UDP id: QP in RTS with qkey %#x", RDMA_UDP_QKEY);
    return 0;
}

static int t_init_qp_attr(char *d, struct why *w)
{
    struct resolved r = {0};
    if (resolve_both(w, &r, RDMA_PS_TCP, 7999))
        return release(&r), -1;
    struct ibv_qp_attr qa;
    int mask = 0;
    memset(&qa, 0, sizeof qa);
    qa.qp_state = IBV_QPS_INIT;
    REQUIRE_OK(rdma_init_qp_attr(r.id, &qa, &mask));
    int want = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
    REQUIRE((mask & want) == want, "INIT mask %#x lacks %#x", mask, want & ~mask);
    REQUIRE(qa.qp_state == IBV_QPS_INIT && qa.port_num == 1, "INIT attrs: state %d port %u", qa.qp_state,
            qa.port_num);
    /* Before connect there is no IB CM id yet: the kernel answers any state with the INIT attributes (and echoes
     * the state asked for). */
    int mask2 = 0;
    memset(&qa, 0, sizeof qa);
    qa.qp_state = IBV_QPS_RTR;
    REQUIRE_OK(rdma_init_qp_attr(r.id, &qa, &mask2));
    REQUIRE(mask2 == mask && qa.qp_state == IBV_QPS_RTR, "RTR before connect: mask %#x state %d", mask2,
            qa.qp_state);
    release(&r);
    snprintf(d, 256, "INIT mask %#x port 1; RTR asked before connect gives the same INIT attributes", mask);
    return 0;
}

static int t_connect_refused(char *d, struct why *w)
{
    uint16_t port = cm_free_port(IP0);
    REQUIRE(port, "no free port on %s", IP0);
    struct resolved r = {0};
    struct rdma_cm_event *ev;
    if (resolve_both(w, &r, RDMA_PS_TCP, port))
        return release(&r), -1;
    struct ibv_qp_init_attr a = rc_attr();
    REQUIRE_OK(rdma_create_qp(r.id, NULL, &a));
    struct rdma_conn_param p;
    memset(&p, 0, sizeof p);
    p.retry_count = 1;
    p.rnr_retry_count = 1;
    double t0 = now_ms();
    REQUIRE_OK(rdma_connect(r.id, &p));
    REQUIRE_EVENT(r.ch, RDMA_CM_EVENT_REJECTED, &ev);
    double t1 = now_ms();
    int status = ev->status;
    REQUIRE(ev->id == r.id, "REJECTED for another id");
    rdma_ack_cm_event(ev);
    REQUIRE(status == 8, "REJECTED status %d, expected 8 (IB_CM_REJ_INVALID_SERVICE_ID)", status);
    int st = qp_state(r.id->qp);
    REQUIRE(st == IBV_QPS_ERR, "QP state %d after REJECTED, expected ERR", st);
    release(&r);
    snprintf(d, 256, "%s:%u: REJECTED status 8 after %.0f ms, QP moved to ERR", IP0, port, t1 - t0);
    return 0;
}

static int t_connect_refused_sync(char *d, struct why *w)
{
    uint16_t port = cm_free_port(IP0);
    REQUIRE(port, "no free port on %s", IP0);
    struct rdma_cm_id *id;
    REQUIRE_OK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, port);
    REQUIRE_OK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_OK(rdma_resolve_route(id, 2000));
    struct ibv_qp_init_attr a = rc_attr();
    REQUIRE_OK(rdma_create_qp(id, NULL, &a));
    REQUIRE_ERRNO(rdma_connect(id, NULL), ECONNREFUSED);
    REQUIRE(id->event && id->event->event == RDMA_CM_EVENT_REJECTED && id->event->status == 8,
            "id->event %s status %d", id->event ? rdma_event_str(id->event->event) : "NULL",
            id->event ? id->event->status : 0);
    rdma_destroy_qp(id);
    REQUIRE_OK(rdma_destroy_id(id));
    snprintf(d, 256, "rdma_connect -1 ECONNREFUSED, id->event REJECTED status 8");
    return 0;
}

static int t_private_data_limit(char *d, struct why *w)
{
    uint16_t port = cm_free_port(IP0);
    REQUIRE(port, "no free port on %s", IP0);
    struct resolved r = {0};
    struct rdma_cm_event *ev;
    if (resolve_both(w, &r, RDMA_PS_TCP, port))
        return release(&r), -1;
    struct ibv_qp_init_attr a = rc_attr();
    REQUIRE_OK(rdma_create_qp(r.id, NULL, &a));
    uint8_t pd[255];
    memset(pd, 0xab, sizeof pd);
    struct rdma_conn_param p;
    memset(&p, 0, sizeof p);
    p.private_data = pd;
    /* IB CM REQ carries 92 bytes of private data; the RDMA CM header takes 36 of them. */
    p.private_data_len = 57;
    REQUIRE_ERRNO(rdma_connect(r.id, &p), EINVAL);
    p.private_data_len = 255;
    REQUIRE_ERRNO(rdma_connect(r.id, &p), EINVAL);
    p.private_data_len = 56;
    REQUIRE_OK(rdma_connect(r.id, &p));
    REQUIRE_EVENT(r.ch, RDMA_CM_EVENT_REJECTED, &ev);
    rdma_ack_cm_event(ev);
    release(&r);
    snprintf(d, 256, "connect: 57 and 255 bytes EINVAL, 56 bytes sent (REJECTED by the empty port)");
    return 0;
}

static int t_set_option(char *d, struct why *w)
{
    struct rdma_cm_id *id;
    REQUIRE_OK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
    uint8_t tos = 32, ackto = 14;
    int one = 1;
    REQUIRE_OK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof tos));
    REQUIRE_OK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof one));
    REQUIRE_OK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof one));
    REQUIRE_OK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &ackto, sizeof ackto));
    REQUIRE_ERRNO(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &one, sizeof one), EINVAL);
    REQUIRE_ERRNO(rdma_set_option(id, RDMA_OPTION_ID, 99, &one, sizeof one), ENOSYS);
    REQUIRE_ERRNO(rdma_set_option(id, 99, 0, &one, sizeof one), ENOSYS);
    REQUIRE_ERRNO(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, NULL, 1), EFAULT);
    /* Bound: AFONLY may still change; listening: no more. */
    struct sockaddr_in s = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(id, (struct sockaddr *)&s));
    REQUIRE_OK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof one));
    REQUIRE_OK(rdma_listen(id, 1));
    REQUIRE_ERRNO(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof one), EINVAL);
    REQUIRE_OK(rdma_destroy_id(id));
    snprintf(d, 256, "TOS REUSEADDR AFONLY ACK_TIMEOUT ok; bad len EINVAL, unknown ENOSYS, NULL EFAULT, "
                     "AFONLY on a listener EINVAL");
    return 0;
}

static int t_migrate(char *d, struct why *w)
{
    struct rdma_event_channel *c1 = rdma_create_event_channel(), *c2 = rdma_create_event_channel();
    struct rdma_cm_id *id, *sid;
    struct rdma_cm_event *ev;
    REQUIRE(c1 && c2, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(c1, &id, NULL, RDMA_PS_TCP));
    REQUIRE_OK(rdma_migrate_id(id, c2));
    REQUIRE(id->channel == c2, "id->channel not updated by rdma_migrate_id");
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, 7999);
    REQUIRE_OK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_EVENT(c2, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    REQUIRE(ev->id == id, "event for another id");
    rdma_ack_cm_event(ev);
    REQUIRE(!cm_event_pending(c1, 0), "the old channel got an event");
    /* Migrating to NULL makes the id synchronous (its own new channel). */
    REQUIRE_OK(rdma_migrate_id(id, NULL));
    REQUIRE(id->channel && id->channel != c1 && id->channel != c2, "after migrating to NULL: channel %p",
            (void *)id->channel);
    REQUIRE_OK(rdma_resolve_route(id, 2000));
    REQUIRE(id->event && id->event->event == RDMA_CM_EVENT_ROUTE_RESOLVED, "sync after migrate: id->event %s",
            id->event ? rdma_event_str(id->event->event) : "NULL");
    /* And back to a channel. */
    REQUIRE_OK(rdma_migrate_id(id, c1));
    REQUIRE(id->channel == c1 && id->event == NULL, "back to c1: channel %s, event %p",
            id->channel == c1 ? "ok" : "wrong", (void *)id->event);
    REQUIRE_OK(rdma_destroy_id(id));
    /* A synchronous id cannot migrate to NULL. */
    REQUIRE_OK(rdma_create_id(NULL, &sid, NULL, RDMA_PS_TCP));
    REQUIRE_ERRNO(rdma_migrate_id(sid, NULL), EINVAL);
    REQUIRE_OK(rdma_destroy_id(sid));
    rdma_destroy_event_channel(c1);
    rdma_destroy_event_channel(c2);
    snprintf(d, 256, "events follow the id to the new channel; NULL -> synchronous; sync id to NULL EINVAL");
    return 0;
}

static int t_event_str(char *d, struct why *w)
{
    static const char *names[] = {
        "RDMA_CM_EVENT_ADDR_RESOLVED",    "RDMA_CM_EVENT_ADDR_ERROR",       "RDMA_CM_EVENT_ROUTE_RESOLVED",
        "RDMA_CM_EVENT_ROUTE_ERROR",      "RDMA_CM_EVENT_CONNECT_REQUEST",  "RDMA_CM_EVENT_CONNECT_RESPONSE",
        "RDMA_CM_EVENT_CONNECT_ERROR",    "RDMA_CM_EVENT_UNREACHABLE",      "RDMA_CM_EVENT_REJECTED",
        "RDMA_CM_EVENT_ESTABLISHED",      "RDMA_CM_EVENT_DISCONNECTED",     "RDMA_CM_EVENT_DEVICE_REMOVAL",
        "RDMA_CM_EVENT_MULTICAST_JOIN",   "RDMA_CM_EVENT_MULTICAST_ERROR",  "RDMA_CM_EVENT_ADDR_CHANGE",
        "RDMA_CM_EVENT_TIMEWAIT_EXIT",
    };
    for (int e = 0; e < 16; e++) {
        const char *s = rdma_event_str((enum rdma_cm_event_type)e);
        REQUIRE(s && !strcmp(s, names[e]), "rdma_event_str(%d) = \"%s\", expected \"%s\"", e, s ? s : "(null)",
                names[e]);
    }
    /* 16 and 17 are named from rdma-core 65 on (ADDRINFO_RESOLVED/_ERROR: cm_v65 checks them); 18 and 19 (USER,
     * INTERNAL) are not, by 65 either. */
    static const int bad[] = {18, 19, 20, 255, -1};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *s = rdma_event_str((enum rdma_cm_event_type)bad[i]);
        REQUIRE(s && !strcmp(s, "UNKNOWN EVENT"), "rdma_event_str(%d) = \"%s\"", bad[i], s ? s : "(null)");
    }
    REQUIRE(RDMA_CM_EVENT_TIMEWAIT_EXIT == 15 && RDMA_CM_EVENT_ESTABLISHED == 9, "enum values changed");
    snprintf(d, 256, "16 names, \"UNKNOWN EVENT\" otherwise");
    return 0;
}

static int t_null_args(char *d, struct why *w)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct rdma_cm_id *id, *sid, *got;
    REQUIRE(ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
    REQUIRE_OK(rdma_create_id(NULL, &sid, NULL, RDMA_PS_UDP));
    REQUIRE_ERRNO(rdma_get_cm_event(ch, NULL), EINVAL);
    REQUIRE_ERRNO(rdma_ack_cm_event(NULL), EINVAL);
    struct sockaddr_in dst = sin4(IP0, 7999);
    REQUIRE_ERRNO(rdma_resolve_addr(id, NULL, NULL, 2000), EINVAL);
    struct sockaddr_in bad = dst;
    bad.sin_family = AF_UNIX;
    REQUIRE_ERRNO(rdma_resolve_addr(id, (struct sockaddr *)&bad, (struct sockaddr *)&dst, 2000), EINVAL);
    REQUIRE_ERRNO(rdma_resolve_addr(id, NULL, (struct sockaddr *)&bad, 2000), EINVAL);
    REQUIRE_ERRNO(rdma_join_multicast(sid, NULL, NULL), EINVAL);
    REQUIRE_ERRNO(rdma_leave_multicast(sid, NULL), EINVAL);
    /* A TCP id with neither a QP nor connection parameters cannot connect. */
    REQUIRE_ERRNO(rdma_connect(id, NULL), EINVAL);
    /* rdma_get_request is for synchronous ids only. */
    REQUIRE_ERRNO(rdma_get_request(id, &got), EINVAL);
    struct rdma_addrinfo *res = NULL;
    REQUIRE_ERRNO(rdma_getaddrinfo(NULL, NULL, NULL, &res), EINVAL);
    struct ibv_ece ece = {.vendor_id = 0x15b3};
    REQUIRE_ERRNO(rdma_set_local_ece(NULL, &ece), EINVAL);
    REQUIRE_ERRNO(rdma_set_local_ece(id, NULL), EINVAL);
    REQUIRE_ERRNO(rdma_get_remote_ece(NULL, &ece), EINVAL);
    REQUIRE_ERRNO(rdma_get_remote_ece(id, NULL), EINVAL);
    rdma_freeaddrinfo(NULL);
    REQUIRE_OK(rdma_destroy_id(sid));
    REQUIRE_OK(rdma_destroy_id(id));
    rdma_destroy_event_channel(ch);
    snprintf(d, 256, "get_cm_event/ack/resolve_addr/join/leave/connect/get_request/getaddrinfo/ece: EINVAL");
    return 0;
}

static int t_ece(char *d, struct why *w)
{
    struct rdma_cm_id *id;
    REQUIRE_OK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
    struct ibv_ece ece = {.vendor_id = 0x15b3, .options = 0x1, .comp_mask = 0};
    REQUIRE_OK(rdma_set_local_ece(id, &ece));
    ece.comp_mask = 1;
    REQUIRE_ERRNO(rdma_set_local_ece(id, &ece), EINVAL);
    ece.comp_mask = 0;
    ece.vendor_id = 0;
    REQUIRE_ERRNO(rdma_set_local_ece(id, &ece), EINVAL);
    struct ibv_ece got;
    memset(&got, 0xff, sizeof got);
    REQUIRE_OK(rdma_get_remote_ece(id, &got));
    REQUIRE(got.vendor_id == 0 && got.options == 0 && got.comp_mask == 0, "remote ECE before any peer: %#x/%#x/%#x",
            got.vendor_id, got.options, got.comp_mask);
    REQUIRE_OK(rdma_destroy_id(id));
    snprintf(d, 256, "set_local_ece ok; comp_mask or vendor 0 EINVAL; remote ECE zero before a peer");
    return 0;
}

static int t_listen(char *d, struct why *w)
{
    struct rdma_cm_id *id;
    REQUIRE_OK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
    struct sockaddr_in s = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(id, (struct sockaddr *)&s));
    REQUIRE_OK(rdma_listen(id, 4));
    uint16_t port = ntohs(rdma_get_src_port(id));
    REQUIRE(sa_is_ip(rdma_get_local_addr(id), IP0) && port, "listening id local addr %s",
            sa_str(rdma_get_local_addr(id)));
    /* The kernel refuses a second listen on the same id. */
    REQUIRE_ERRNO(rdma_listen(id, 8), EINVAL);
    REQUIRE_OK(rdma_destroy_id(id));
    /* An unbound id listens on the wildcard address with a kernel-chosen port. */
    REQUIRE_OK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
    REQUIRE_OK(rdma_listen(id, 1));
    struct sockaddr *la = rdma_get_local_addr(id);
    REQUIRE(la->sa_family == AF_INET && ((struct sockaddr_in *)la)->sin_addr.s_addr == INADDR_ANY &&
                rdma_get_src_port(id) != 0,
            "unbound listen: local addr %s", sa_str(la));
    REQUIRE(!id->verbs, "a wildcard listener has a device");
    /* `la` points into the id: read its port before the id is destroyed. */
    uint16_t wport = ntohs(((struct sockaddr_in *)la)->sin_port);
    REQUIRE_OK(rdma_destroy_id(id));
    snprintf(d, 256, "bound %s:%u, relisten EINVAL, unbound -> 0.0.0.0:%u without device", IP0, port, wport);
    return 0;
}

struct acker {
    struct rdma_cm_event *ev;
    double acked_at;
};

static void *ack_later(void *arg)
{
    struct acker *a = arg;
    usleep(400 * 1000);
    a->acked_at = now_ms();
    rdma_ack_cm_event(a->ev);
    return NULL;
}

static int t_destroy_waits(char *d, struct why *w)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct rdma_cm_id *id;
    struct acker a = {0};
    REQUIRE(ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, 7999);
    REQUIRE_OK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_EVENT(ch, RDMA_CM_EVENT_ADDR_RESOLVED, &a.ev);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, ack_later, &a) == 0, "pthread_create");
    double t0 = now_ms();
    int ret = rdma_destroy_id(id);
    double t1 = now_ms();
    pthread_join(t, NULL);
    REQUIRE(ret == 0, "rdma_destroy_id: %d errno %s", ret, errname(errno));
    REQUIRE(a.acked_at > 0 && t1 >= a.acked_at, "rdma_destroy_id returned after %.0f ms, before the event was "
            "acknowledged", t1 - t0);
    rdma_destroy_event_channel(ch);
    snprintf(d, 256, "returned %.0f ms later, after the ack", t1 - t0);
    return 0;
}

int main(void)
{
    cm_init("cm_basic");
    CHECK("event_channel", t_event_channel);
    CHECK("get_devices", t_get_devices);
    CHECK("create_id", t_create_id);
    CHECK("create_id_sync", t_create_id_sync);
    CHECK("bind", t_bind);
    CHECK("bind_errors", t_bind_errors);
    CHECK("listen", t_listen);
    CHECK("resolve", t_resolve);
    CHECK("resolve_sync", t_resolve_sync);
    CHECK("create_qp", t_create_qp);
    CHECK("create_qp_ex_srq_ex", t_create_qp_ex_srq_ex);
    CHECK("create_qp_foreign_pd", t_create_qp_foreign_pd);
    CHECK("ud_qp", t_ud_qp);
    CHECK("init_qp_attr", t_init_qp_attr);
    CHECK("set_option", t_set_option);
    CHECK("migrate_id", t_migrate);
    CHECK("ece", t_ece);
    CHECK("event_str", t_event_str);
    CHECK("null_args", t_null_args);
    CHECK("destroy_waits_for_ack", t_destroy_waits);
    CHECK("unreachable", t_unreachable);
    CHECK("connect_refused", t_connect_refused);
    CHECK("connect_refused_sync", t_connect_refused_sync);
    CHECK("private_data_limit", t_private_data_limit);
    return cm_done();
}
