/* cm_ep: rdma_getaddrinfo and the synchronous endpoint API (rdma_create_ep, rdma_get_request, rdma_accept,
 * rdma_connect on ids without an event channel), as rdma_server / rdma_client use it, plus an SRQ created through
 * the id. The server side runs in a thread of this process.
 *
 * rdma_getaddrinfo: RAI_PASSIVE, RAI_NUMERICHOST, RAI_FAMILY (AF_IB conversion), port spaces and QP types from the
 * hints, the source address hint, the route-only form (no node, no service) and the raw EAI_* return for bad names.
 */
#include "cmutil.h"

#include <endian.h>
#include <netdb.h>
#include <pthread.h>

#include <infiniband/ib.h>

#define MSG 32

static struct ibv_qp_init_attr ep_attr(int sq_sig_all)
{
    struct ibv_qp_init_attr a;
    memset(&a, 0, sizeof a);
    a.cap.max_send_wr = a.cap.max_recv_wr = 4;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    a.sq_sig_all = sq_sig_all;
    return a;
}

static int sin_is(const struct sockaddr *sa, socklen_t len, const char *ip, uint16_t port)
{
    return sa && len == sizeof(struct sockaddr_in) && sa_is_ip(sa, ip) &&
           ((const struct sockaddr_in *)sa)->sin_port == htons(port);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* rdma_getaddrinfo */

static int t_gai_passive(char *d, struct why *w)
{
    struct rdma_addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_PASSIVE;
    hints.ai_family = AF_INET;
    hints.ai_port_space = RDMA_PS_TCP;
    int rc = rdma_getaddrinfo(NULL, "7471", &hints, &res);
    REQUIRE(rc == 0 && res, "rdma_getaddrinfo(NULL, \"7471\", PASSIVE): %d (%s)", rc, rc ? gai_strerror(rc) : "");
    REQUIRE(res->ai_flags & RAI_PASSIVE, "ai_flags %#x lacks RAI_PASSIVE", res->ai_flags);
    REQUIRE(res->ai_family == AF_INET, "ai_family %d", res->ai_family);
    REQUIRE(res->ai_qp_type == IBV_QPT_RC && res->ai_port_space == RDMA_PS_TCP, "qp_type %d port_space %#x",
            res->ai_qp_type, res->ai_port_space);
    REQUIRE(sin_is(res->ai_src_addr, res->ai_src_len, "0.0.0.0", 7471), "ai_src_addr %s (len %u)",
            sa_str(res->ai_src_addr), res->ai_src_len);
    REQUIRE(!res->ai_dst_addr && !res->ai_dst_len, "a passive result has a destination");
    REQUIRE(!res->ai_next, "more than one result");
    REQUIRE(!res->ai_connect_len && !res->ai_route_len, "connect/route data without ibacm");
    rdma_freeaddrinfo(res);
    /* With a node: that address. */
    REQUIRE((rc = rdma_getaddrinfo(IP0, "7471", &hints, &res)) == 0, "passive %s: %s", IP0, gai_strerror(rc));
    REQUIRE(sin_is(res->ai_src_addr, res->ai_src_len, IP0, 7471), "ai_src_addr %s", sa_str(res->ai_src_addr));
    rdma_freeaddrinfo(res);
    snprintf(d, 256, "0.0.0.0:7471 and %s:7471 as source, RC/TCP, no destination", IP0);
    return 0;
}

static int t_gai_active(char *d, struct why *w)
{
    struct rdma_addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_NUMERICHOST;
    hints.ai_port_space = RDMA_PS_TCP;
    int rc = rdma_getaddrinfo(IP0, "7471", &hints, &res);
    REQUIRE(rc == 0 && res, "rdma_getaddrinfo(%s): %d", IP0, rc);
    REQUIRE(!(res->ai_flags & RAI_PASSIVE), "active result has RAI_PASSIVE");
    REQUIRE(res->ai_family == AF_INET && res->ai_qp_type == IBV_QPT_RC && res->ai_port_space == RDMA_PS_TCP,
            "family %d qp_type %d port_space %#x", res->ai_family, res->ai_qp_type, res->ai_port_space);
    REQUIRE(sin_is(res->ai_dst_addr, res->ai_dst_len, IP0, 7471), "ai_dst_addr %s", sa_str(res->ai_dst_addr));
    REQUIRE(!res->ai_src_addr && !res->ai_src_len, "a source without a source hint");
    rdma_freeaddrinfo(res);
    /* A source address hint is copied into the result. */
    struct sockaddr_in src = sin4(IP1, 0);
    hints.ai_src_addr = (struct sockaddr *)&src;
    hints.ai_src_len = sizeof src;
    REQUIRE((rc = rdma_getaddrinfo(IP0, "7471", &hints, &res)) == 0, "with source hint: %d", rc);
    REQUIRE(sin_is(res->ai_src_addr, res->ai_src_len, IP1, 0) && res->ai_src_addr != hints.ai_src_addr,
            "ai_src_addr %s (must be a copy of the hint)", sa_str(res->ai_src_addr));
    REQUIRE(sin_is(res->ai_dst_addr, res->ai_dst_len, IP0, 7471), "ai_dst_addr %s", sa_str(res->ai_dst_addr));
    rdma_freeaddrinfo(res);
    /* A host name goes through the resolver (/etc/hosts). */
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_port_space = RDMA_PS_TCP;
    REQUIRE((rc = rdma_getaddrinfo("localhost", "7471", &hints, &res)) == 0, "localhost: %d (%s)", rc,
            gai_strerror(rc));
    REQUIRE(sin_is(res->ai_dst_addr, res->ai_dst_len, "127.0.0.1", 7471), "localhost -> %s",
            sa_str(res->ai_dst_addr));
    rdma_freeaddrinfo(res);
    snprintf(d, 256, "%s:7471 as destination, source hint copied, localhost -> 127.0.0.1", IP0);
    return 0;
}

static int t_gai_port_space(char *d, struct why *w)
{
    static const struct {
        int ps, qpt;
        int want_ps, want_qpt;
    } cases[] = {
        {RDMA_PS_UDP, 0, RDMA_PS_UDP, IBV_QPT_UD},
        {RDMA_PS_TCP, 0, RDMA_PS_TCP, IBV_QPT_RC},
        {RDMA_PS_IB, IBV_QPT_UD, RDMA_PS_IB, IBV_QPT_UD},
        {RDMA_PS_IB, IBV_QPT_RC, RDMA_PS_IB, IBV_QPT_RC},
        {0, IBV_QPT_UD, RDMA_PS_UDP, IBV_QPT_UD},
        {0, IBV_QPT_RC, RDMA_PS_TCP, IBV_QPT_RC},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rdma_addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_flags = RAI_NUMERICHOST;
        hints.ai_port_space = cases[i].ps;
        hints.ai_qp_type = cases[i].qpt;
        int rc = rdma_getaddrinfo(IP0, "7471", &hints, &res);
        REQUIRE(rc == 0, "ps %#x qpt %d: %d", cases[i].ps, cases[i].qpt, rc);
        REQUIRE(res->ai_port_space == cases[i].want_ps && res->ai_qp_type == cases[i].want_qpt,
                "hints ps %#x qpt %d -> ps %#x qpt %d, expected ps %#x qpt %d", cases[i].ps, cases[i].qpt,
                res->ai_port_space, res->ai_qp_type, cases[i].want_ps, cases[i].want_qpt);
        rdma_freeaddrinfo(res);
    }
    snprintf(d, 256, "UDP->UD, TCP->RC, IB keeps the QP type hint, a QP type alone picks the port space");
    return 0;
}

static int t_gai_af_ib(char *d, struct why *w)
{
    struct rdma_addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_NUMERICHOST | RAI_FAMILY;
    hints.ai_family = AF_IB;
    hints.ai_port_space = RDMA_PS_TCP;
    int rc = rdma_getaddrinfo("fe80::1:2", "7471", &hints, &res);
    REQUIRE(rc == 0 && res, "AF_IB: %d", rc);
    REQUIRE(res->ai_family == AF_IB, "ai_family %d, expected AF_IB", res->ai_family);
    REQUIRE(res->ai_dst_len == sizeof(struct sockaddr_ib) && res->ai_dst_addr, "ai_dst_len %u", res->ai_dst_len);
    const struct sockaddr_ib *sib = (const struct sockaddr_ib *)res->ai_dst_addr;
    struct in6_addr want;
    inet_pton(AF_INET6, "fe80::1:2", &want);
    REQUIRE(sib->sib_family == AF_IB && sib->sib_pkey == htobe16(0xffff), "family %d pkey %#x", sib->sib_family,
            be16toh(sib->sib_pkey));
    REQUIRE(!memcmp(&sib->sib_addr, &want, 16), "sib_addr is not fe80::1:2");
    REQUIRE(sib->sib_sid == htobe64(((uint64_t)RDMA_PS_TCP << 16) + 7471), "sib_sid %#llx",
            (unsigned long long)be64toh(sib->sib_sid));
    REQUIRE(sib->sib_sid_mask == htobe64(RDMA_IB_IP_PS_MASK | RDMA_IB_IP_PORT_MASK), "sib_sid_mask %#llx",
            (unsigned long long)be64toh(sib->sib_sid_mask));
    rdma_freeaddrinfo(res);
    snprintf(d, 256, "fe80::1:2 -> sockaddr_ib, pkey 0xffff, sid %#llx", (unsigned long long)RDMA_IB_IP_PS_TCP + 7471);
    return 0;
}

static int t_gai_route_only(char *d, struct why *w)
{
    struct rdma_addrinfo hints, *res = NULL;
    struct sockaddr_in dst = sin4(IP0, 7471);
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_qp_type = IBV_QPT_RC;
    hints.ai_port_space = RDMA_PS_TCP;
    hints.ai_dst_addr = (struct sockaddr *)&dst;
    hints.ai_dst_len = sizeof dst;
    int rc = rdma_getaddrinfo(NULL, NULL, &hints, &res);
    REQUIRE(rc == 0 && res, "no node, no service, hints with a destination: %d errno %s", rc, errname(errno));
    REQUIRE(res->ai_family == AF_INET && res->ai_qp_type == IBV_QPT_RC && res->ai_port_space == RDMA_PS_TCP,
            "family %d qpt %d ps %#x", res->ai_family, res->ai_qp_type, res->ai_port_space);
    REQUIRE(sin_is(res->ai_dst_addr, res->ai_dst_len, IP0, 7471) && res->ai_dst_addr != hints.ai_dst_addr,
            "ai_dst_addr %s", sa_str(res->ai_dst_addr));
    rdma_freeaddrinfo(res);
    snprintf(d, 256, "hints copied, destination %s:7471", IP0);
    return 0;
}

static int t_gai_errors(char *d, struct why *w)
{
    struct rdma_addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_NUMERICHOST;
    hints.ai_port_space = RDMA_PS_TCP;
    int rc = rdma_getaddrinfo("198.18.0.999", "7471", &hints, &res);
    REQUIRE(rc == EAI_NONAME, "bad numeric host: %d (%s), expected EAI_NONAME %d", rc, gai_strerror(rc), EAI_NONAME);
    rc = rdma_getaddrinfo("not-a-number", "7471", &hints, &res);
    REQUIRE(rc == EAI_NONAME, "a name with RAI_NUMERICHOST: %d, expected EAI_NONAME", rc);
    rc = rdma_getaddrinfo(IP0, "no-such-service-xyz", &hints, &res);
    REQUIRE(rc == EAI_SERVICE, "bad service: %d (%s), expected EAI_SERVICE %d", rc, gai_strerror(rc), EAI_SERVICE);
    hints.ai_family = AF_INET6;
    rc = rdma_getaddrinfo(IP0, "7471", &hints, &res);
    REQUIRE(rc == EAI_ADDRFAMILY || rc == EAI_NONAME, "IPv4 literal with AF_INET6: %d (%s)", rc, gai_strerror(rc));
    int fam_rc = rc;
    errno = 0;
    rc = rdma_getaddrinfo(NULL, NULL, NULL, &res);
    REQUIRE(rc == -1 && errno == EINVAL, "all NULL: %d errno %s, expected -1 EINVAL", rc, errname(errno));
    snprintf(d, 256, "EAI_NONAME %d, EAI_SERVICE %d, family mismatch %d, all NULL -1 EINVAL", EAI_NONAME,
             EAI_SERVICE, fam_rc);
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Endpoints */

static struct rdma_cm_id *listen_ep;
static uint16_t port;
static char port_str[8];

static int t_ep_listen(char *d, struct why *w)
{
    struct rdma_addrinfo hints, *res;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_PASSIVE | RAI_NUMERICHOST;
    hints.ai_port_space = RDMA_PS_TCP;
    int rc = rdma_getaddrinfo(IP0, "0", &hints, &res);
    REQUIRE(rc == 0, "rdma_getaddrinfo: %d", rc);
    struct ibv_qp_init_attr a = ep_attr(0);
    errno = 0;
    rc = rdma_create_ep(&listen_ep, res, NULL, &a);
    rdma_freeaddrinfo(res);
    REQUIRE(rc == 0, "rdma_create_ep(passive): %d errno %s", rc, errname(errno));
    REQUIRE(listen_ep->channel && !listen_ep->qp, "passive endpoint: channel %p qp %p", (void *)listen_ep->channel,
            (void *)listen_ep->qp);
    REQUIRE(listen_ep->verbs && !strcmp(dev_name(listen_ep->verbs), DEV0), "device %s", dev_name(listen_ep->verbs));
    REQUIRE_OK(rdma_listen(listen_ep, 2));
    port = ntohs(rdma_get_src_port(listen_ep));
    REQUIRE(port && sa_is_ip(rdma_get_local_addr(listen_ep), IP0), "listening on %s",
            sa_str(rdma_get_local_addr(listen_ep)));
    snprintf(port_str, sizeof port_str, "%u", port);
    snprintf(d, 256, "synchronous listener on %s:%u (%s)", IP0, port, DEV0);
    return 0;
}

/* The server thread: one request per run. */
struct srv_run {
    int send_first; /* 0: receive then reply; 1: send one message to the client's SRQ */
    char msg[512];  /* failure reason, empty on success */
    char got_pdata[16];
    int qp_from_request;
};

static void *server(void *arg)
{
    struct srv_run *r = arg;
    struct rdma_cm_id *id = NULL;
    struct ibv_mr *mr = NULL;
    static char buf[MSG];
    struct ibv_wc wc;
    struct rdma_cm_event *ev;
    struct why wv = {{0}}, *w = &wv;
#define SFAIL(...)                                                                                                    \
    do {                                                                                                              \
        snprintf(r->msg, sizeof r->msg, __VA_ARGS__);                                                                 \
        goto out;                                                                                                     \
    } while (0)
    if (rdma_get_request(listen_ep, &id))
        SFAIL("server: rdma_get_request: %s", errname(errno));
    r->qp_from_request = id->qp != NULL;
    if (!id->qp)
        SFAIL("server: the request's id has no QP (rdma_create_ep's qp_init_attr)");
    if (!id->event || id->event->event != RDMA_CM_EVENT_CONNECT_REQUEST)
        SFAIL("server: id->event is not the CONNECT_REQUEST");
    if (id->event->param.conn.private_data)
        memcpy(r->got_pdata, id->event->param.conn.private_data, sizeof r->got_pdata - 1);
    mr = rdma_reg_msgs(id, buf, MSG);
    if (!mr)
        SFAIL("server: rdma_reg_msgs: %s", errname(errno));
    if (!r->send_first && rdma_post_recv(id, buf, buf, MSG, mr))
        SFAIL("server: rdma_post_recv: %s", errname(errno));
    if (rdma_accept(id, NULL))
        SFAIL("server: rdma_accept: %s", errname(errno));
    if (!id->event || id->event->event != RDMA_CM_EVENT_ESTABLISHED)
        SFAIL("server: after rdma_accept id->event is %s", id->event ? rdma_event_str(id->event->event) : "NULL");
    if (!r->send_first) {
        if (rdma_get_recv_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
            SFAIL("server: rdma_get_recv_comp: %s", errname(errno));
        if (strcmp(buf, "ep-ping"))
            SFAIL("server: received \"%.20s\"", buf);
    }
    strcpy(buf, r->send_first ? "to-the-srq" : "ep-pong");
    if (rdma_post_send(id, buf, buf, MSG, mr, IBV_SEND_SIGNALED))
        SFAIL("server: rdma_post_send: %s", errname(errno));
    if (rdma_get_send_comp(id, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
        SFAIL("server: rdma_get_send_comp: status %s", ibv_wc_status_str(wc.status));
    /* The client disconnects: the synchronous id's own channel gets DISCONNECTED. */
    if (cm_wait_event(id->channel, CM_EVENT_MS, &ev))
        SFAIL("server: waiting for DISCONNECTED: %s", errname(errno));
    int e = ev->event;
    rdma_ack_cm_event(ev);
    if (e != RDMA_CM_EVENT_DISCONNECTED)
        SFAIL("server: got %s, expected DISCONNECTED", rdma_event_str(e));
    rdma_disconnect(id);
out:
    if (mr)
        rdma_dereg_mr(mr);
    if (id)
        rdma_destroy_ep(id);
    (void)w;
    return NULL;
#undef SFAIL
}

/* Joins the server thread, cancelling it if it is still blocked after SECS (a failed client leaves it waiting). */
static void join_server(pthread_t t, int secs, struct srv_run *r)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += secs;
    if (pthread_timedjoin_np(t, NULL, &ts)) {
        pthread_cancel(t);
        pthread_join(t, NULL);
        if (!r->msg[0])
            snprintf(r->msg, sizeof r->msg, "server thread still blocked after %d s (cancelled)", secs);
    }
}

static int client_ep(struct why *w, struct rdma_cm_id **id, struct ibv_qp_init_attr *attr)
{
    struct rdma_addrinfo hints, *res;
    struct sockaddr_in src = sin4(IP1, 0);
    memset(&hints, 0, sizeof hints);
    hints.ai_port_space = RDMA_PS_TCP;
    hints.ai_src_addr = (struct sockaddr *)&src;
    hints.ai_src_len = sizeof src;
    int rc = rdma_getaddrinfo(IP0, port_str, &hints, &res);
    REQUIRE(rc == 0, "client rdma_getaddrinfo: %d", rc);
    errno = 0;
    rc = rdma_create_ep(id, res, NULL, attr);
    rdma_freeaddrinfo(res);
    REQUIRE(rc == 0, "client rdma_create_ep: %d errno %s", rc, errname(errno));
    REQUIRE((*id)->verbs && !strcmp(dev_name((*id)->verbs), DEV1), "client on %s", dev_name((*id)->verbs));
    REQUIRE((*id)->event && (*id)->event->event == RDMA_CM_EVENT_ROUTE_RESOLVED, "client id->event %s",
            (*id)->event ? rdma_event_str((*id)->event->event) : "NULL");
    return 0;
}

static int t_ep_connect(char *d, struct why *w)
{
    struct srv_run r = {0};
    pthread_t t;
    struct rdma_cm_id *id;
    static char rbuf[MSG], sbuf[MSG];
    struct ibv_wc wc;
    struct ibv_qp_init_attr a = ep_attr(1);
    a.cap.max_inline_data = 16;
    if (client_ep(w, &id, &a))
        return -1;
    REQUIRE(id->qp && id->qp->qp_type == IBV_QPT_RC && qp_state(id->qp) == IBV_QPS_INIT,
            "client endpoint QP: %p state %d", (void *)id->qp, qp_state(id->qp));
    REQUIRE(a.qp_type == IBV_QPT_RC, "qp_init_attr.qp_type not set from the addrinfo");
    struct ibv_mr *rmr = rdma_reg_msgs(id, rbuf, MSG), *smr = rdma_reg_msgs(id, sbuf, MSG);
    REQUIRE(rmr && smr, "rdma_reg_msgs");
    REQUIRE_OK(rdma_post_recv(id, rbuf, rbuf, MSG, rmr));
    REQUIRE(pthread_create(&t, NULL, server, &r) == 0, "pthread_create");
    struct rdma_conn_param p;
    memset(&p, 0, sizeof p);
    p.private_data = "ep-client";
    p.private_data_len = 10;
    p.retry_count = p.rnr_retry_count = 7;
    errno = 0;
    int rc = rdma_connect(id, &p);
    int cerr = errno;
    int est = rc == 0 && id->event && id->event->event == RDMA_CM_EVENT_ESTABLISHED;
    if (rc == 0) {
        strcpy(sbuf, "ep-ping");
        if (rdma_post_send(id, sbuf, sbuf, MSG, smr, 0) == 0 && rdma_get_send_comp(id, &wc) == 1 &&
            wc.status == IBV_WC_SUCCESS && rdma_get_recv_comp(id, &wc) == 1 && wc.status == IBV_WC_SUCCESS)
            rc = 0;
        else
            rc = 1;
        rdma_disconnect(id);
    }
    join_server(t, rc == -1 ? 1 : 15, &r);
    REQUIRE(rc != -1, "client rdma_connect: %s", errname(cerr));
    REQUIRE(est, "after a synchronous rdma_connect id->event is not ESTABLISHED");
    REQUIRE(!r.msg[0], "%s", r.msg);
    REQUIRE(rc == 0, "client data transfer failed");
    REQUIRE(!strcmp(rbuf, "ep-pong"), "client received \"%.20s\"", rbuf);
    REQUIRE(!strcmp(r.got_pdata, "ep-client"), "server saw private data \"%.15s\"", r.got_pdata);
    rdma_dereg_mr(rmr);
    rdma_dereg_mr(smr);
    rdma_destroy_ep(id);
    snprintf(d, 256, "create_ep/connect from %s, get_request (QP from the listener's attrs)/accept, ping-pong", IP1);
    return 0;
}

static int t_ep_srq(char *d, struct why *w)
{
    struct srv_run r = {.send_first = 1};
    pthread_t t;
    struct rdma_cm_id *id;
    static char rbuf[MSG];
    struct ibv_wc wc;
    if (client_ep(w, &id, NULL))
        return -1;
    REQUIRE(!id->qp, "rdma_create_ep without qp_init_attr created a QP");
    struct ibv_srq_init_attr_ex bad;
    memset(&bad, 0, sizeof bad);
    bad.attr.max_wr = 4;
    bad.attr.max_sge = 1;
    REQUIRE_ERRNO(rdma_create_srq_ex(id, &bad), EINVAL); /* no IBV_SRQ_INIT_ATTR_TYPE */
    struct ibv_srq_init_attr sa;
    memset(&sa, 0, sizeof sa);
    sa.attr.max_wr = 4;
    sa.attr.max_sge = 1;
    REQUIRE_OK(rdma_create_srq(id, NULL, &sa));
    REQUIRE(id->srq && id->srq->pd == id->pd, "id->srq %p", (void *)id->srq);
    struct ibv_qp_init_attr a = ep_attr(1);
    a.qp_type = IBV_QPT_RC;
    REQUIRE_OK(rdma_create_qp(id, NULL, &a));
    REQUIRE(id->qp->srq == id->srq, "the QP does not use the id's SRQ");
    struct ibv_mr *rmr = rdma_reg_msgs(id, rbuf, MSG);
    REQUIRE(rmr, "rdma_reg_msgs");
    REQUIRE_OK(rdma_post_recv(id, rbuf, rbuf, MSG, rmr)); /* goes to the SRQ */
    REQUIRE(pthread_create(&t, NULL, server, &r) == 0, "pthread_create");
    errno = 0;
    int rc = rdma_connect(id, NULL), cerr = errno, n = 0;
    if (rc == 0) {
        n = rdma_get_recv_comp(id, &wc);
        rdma_disconnect(id);
    }
    join_server(t, rc == -1 ? 1 : 15, &r);
    REQUIRE(rc == 0, "client rdma_connect: %s", errname(cerr));
    REQUIRE(!r.msg[0], "%s", r.msg);
    REQUIRE(n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == (uintptr_t)rbuf, "receive through the SRQ: %d, %s",
            n, n == 1 ? ibv_wc_status_str(wc.status) : "-");
    REQUIRE(!strcmp(rbuf, "to-the-srq"), "received \"%.20s\"", rbuf);
    rdma_dereg_mr(rmr);
    rdma_destroy_ep(id); /* destroys QP and SRQ too */
    snprintf(d, 256, "rdma_create_srq on the id, QP picks it up, receive through it; srq_ex without TYPE EINVAL");
    return 0;
}

static int t_ep_refused(char *d, struct why *w)
{
    uint16_t free_port = cm_free_port(IP0);
    REQUIRE(free_port, "no free port");
    char ps[8];
    snprintf(ps, sizeof ps, "%u", free_port);
    struct rdma_addrinfo hints, *res;
    memset(&hints, 0, sizeof hints);
    hints.ai_port_space = RDMA_PS_TCP;
    REQUIRE(rdma_getaddrinfo(IP0, ps, &hints, &res) == 0, "rdma_getaddrinfo");
    struct rdma_cm_id *id;
    struct ibv_qp_init_attr a = ep_attr(0);
    int rc = rdma_create_ep(&id, res, NULL, &a);
    rdma_freeaddrinfo(res);
    REQUIRE(rc == 0, "rdma_create_ep: %s", errname(errno));
    REQUIRE_ERRNO(rdma_connect(id, NULL), ECONNREFUSED);
    rdma_destroy_ep(id);
    /* An unreachable destination: rdma_create_ep's own 2 s address resolution fails. */
    struct sockaddr_in src = sin4(IP1, 0);
    hints.ai_src_addr = (struct sockaddr *)&src;
    hints.ai_src_len = sizeof src;
    REQUIRE(rdma_getaddrinfo(CM_UNREACHABLE, "7471", &hints, &res) == 0, "rdma_getaddrinfo");
    double t0 = now_ms();
    errno = 0;
    rc = rdma_create_ep(&id, res, NULL, &a);
    int e = errno;
    double t1 = now_ms();
    rdma_freeaddrinfo(res);
    REQUIRE(rc == -1 && e == ETIMEDOUT, "rdma_create_ep to %s: %d errno %s, expected -1 ETIMEDOUT", CM_UNREACHABLE,
            rc, errname(e));
    snprintf(d, 256, "connect to %s:%u ECONNREFUSED; create_ep to %s ETIMEDOUT after %.0f ms", IP0, free_port,
             CM_UNREACHABLE, t1 - t0);
    return 0;
}

int main(void)
{
    cm_init("cm_ep");
    CHECK("getaddrinfo_passive", t_gai_passive);
    CHECK("getaddrinfo_active", t_gai_active);
    CHECK("getaddrinfo_port_space", t_gai_port_space);
    CHECK("getaddrinfo_af_ib", t_gai_af_ib);
    CHECK("getaddrinfo_route_only", t_gai_route_only);
    CHECK("getaddrinfo_errors", t_gai_errors);
    STAGE("ep_listen", t_ep_listen);
    STAGE("ep_connect", t_ep_connect);
    if (listen_ep)
        cm_blocked = NULL; /* the SRQ run only needs the listener */
    STAGE("ep_srq", t_ep_srq);
    if (listen_ep)
        rdma_destroy_ep(listen_ep);
    CHECK("ep_refused", t_ep_refused);
    return cm_done();
}
