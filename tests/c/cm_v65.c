/* cm_v65: the rdma_cm calls rdma-core 65 added (RDMACM_1.4) and 56.1's synchronous UD accept.
 *
 * rdma_write_cm_event (RDMA_CM_EVENT_USER with status and param.arg, waking a thread blocked in rdma_get_cm_event),
 * rdma_resolve_addrinfo + rdma_get_cm_event + rdma_query_addrinfo by DNS (a numeric address, on an event channel and
 * on a synchronous id), the resolution's rules (EBUSY while a result waits, ENOENT before and after), the RAI_SA
 * paths Soft-RoCE can take (no subnet administrator: the kernel's EOPNOTSUPP, rdma_getaddrinfo's ENOENT), bad
 * arguments, rdma_event_str of the new events; then a synchronous UD listener accepting a request and being destroyed
 * before the request's id (rdma-core 44 hangs there; 56.1 and later release the request at accept).
 *
 * What the kernel decides: the rdma_ucm commands WRITE_CM_EVENT and RESOLVE_IB_SERVICE exist from Linux 6.17 (the
 * 2025 series; measured: absent from 6.1 and 6.12, present in 7.2). Without them every rdma_write_cm_event and
 * rdma_resolve_addrinfo fails with the kernel's EINVAL, and rdma-core 65's rdma_resolve_addrinfo even sets errno to -1
 * (it stores the -1 its helpers return); we keep the cause's errno, so those checks accept either and say which.
 *
 * The same binary is the reference run: in the guest it runs with our libraries, and chrooted in a Debian sid root
 * with rdma-core 65's own (tests/guest/cases/35-cm-c.sh); it must pass with both.
 */
#include "cmutil.h"

#include <netdb.h>
#include <pthread.h>
#include <sys/utsname.h>

/* The kernel has WRITE_CM_EVENT and RESOLVE_IB_SERVICE (Linux 6.17 and later). */
static int cm65_kernel;

static int kernel_ge(int major, int minor)
{
    struct utsname u;
    int ma = 0, mi = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
        return 0;
    return ma > major || (ma == major && mi >= minor);
}

/* A call that must fail with -1 and errno E, or with errno -1 where rdma-core 65's rdma_resolve_addrinfo overwrites
 * the cause (see the header). Appends to detail D which of the two it was. */
#define REQUIRE_FAIL65(d, call, e)                                                                                    \
    do {                                                                                                              \
        errno = 0;                                                                                                    \
        int rq_ret_ = (call);                                                                                         \
        if (rq_ret_ != -1 || (errno != (e) && errno != -1))                                                           \
            return why_set(w, "%s returned %d errno %s, expected -1 errno %s (or rdma-core 65's -1)", #call, rq_ret_, \
                           errname(errno), errname(e));                                                               \
        snprintf((d) + strlen(d), 256 - strlen(d), "%s%s", *(d) ? ", " : "", errno == -1 ? "errno -1" : errname(e)); \
    } while (0)

static struct ibv_qp_init_attr ud_attr(void)
{
    struct ibv_qp_init_attr a;
    memset(&a, 0, sizeof a);
    a.qp_type = IBV_QPT_UD;
    a.cap.max_send_wr = a.cap.max_recv_wr = 2;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    return a;
}

static int open_ep(struct why *w, struct ep *e, enum rdma_port_space ps)
{
    e->ch = rdma_create_event_channel();
    REQUIRE(e->ch, "rdma_create_event_channel: %s", errname(errno));
    REQUIRE_OK(rdma_create_id(e->ch, &e->id, e, ps));
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------------- */

static int t_event_str(char *d, struct why *w)
{
    static const struct {
        int ev;
        const char *name;
    } want[] = {
        {RDMA_CM_EVENT_TIMEWAIT_EXIT, "RDMA_CM_EVENT_TIMEWAIT_EXIT"},
        {RDMA_CM_EVENT_ADDRINFO_RESOLVED, "RDMA_CM_EVENT_ADDRINFO_RESOLVED"},
        {RDMA_CM_EVENT_ADDRINFO_ERROR, "RDMA_CM_EVENT_ADDRINFO_ERROR"},
        /* rdma-core 65 names neither of these. */
        {RDMA_CM_EVENT_USER, "UNKNOWN EVENT"},
        {RDMA_CM_EVENT_INTERNAL, "UNKNOWN EVENT"},
        {RDMA_CM_EVENT_INTERNAL + 1, "UNKNOWN EVENT"},
    };
    REQUIRE(RDMA_CM_EVENT_ADDRINFO_RESOLVED == 16 && RDMA_CM_EVENT_INTERNAL == 19, "enum values");
    REQUIRE(RAI_SA == 0x10 && RAI_DNS == 0x20, "RAI_SA %#x RAI_DNS %#x", RAI_SA, RAI_DNS);
    REQUIRE(sizeof(((struct rdma_cm_event *)0)->param.arg) == 8 && sizeof(struct rdma_cm_event) == 80,
            "rdma_cm_event: %zu bytes", sizeof(struct rdma_cm_event));
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *s = rdma_event_str((enum rdma_cm_event_type)want[i].ev);
        REQUIRE(s && !strcmp(s, want[i].name), "rdma_event_str(%d) = \"%s\", expected \"%s\"", want[i].ev,
                s ? s : "(null)", want[i].name);
    }
    snprintf(d, 256, "16, 17 named; 18, 19 \"UNKNOWN EVENT\"");
    return 0;
}

static int t_bad_args(char *d, struct why *w)
{
    struct ep e = {0};
    struct rdma_addrinfo *ai = NULL, hints;
    if (open_ep(w, &e, RDMA_PS_TCP))
        return -1;
    REQUIRE_ERRNO(rdma_resolve_addrinfo(NULL, IP0, "7471", NULL), EINVAL);
    REQUIRE_ERRNO(rdma_query_addrinfo(e.id, NULL), EINVAL);
    REQUIRE_ERRNO(rdma_query_addrinfo(e.id, &ai), ENOENT);
    REQUIRE_ERRNO(rdma_write_cm_event(e.id, RDMA_CM_EVENT_ADDR_RESOLVED, 0, 0), EINVAL);
    REQUIRE_ERRNO(rdma_write_cm_event(e.id, RDMA_CM_EVENT_INTERNAL, 0, 16), EINVAL);
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_SA | RAI_DNS;
    REQUIRE_ERRNO(rdma_resolve_addrinfo(e.id, NULL, "1", &hints), EOPNOTSUPP);
    hints.ai_flags = RAI_SA;
    REQUIRE_ERRNO(rdma_resolve_addrinfo(e.id, IP0, "1", &hints), EOPNOTSUPP);
    REQUIRE_FAIL65(d, rdma_resolve_addrinfo(e.id, NULL, NULL, &hints), EINVAL);
    /* rdma_getaddrinfo's RAI_SA checks. */
    REQUIRE_ERRNO(rdma_getaddrinfo(IP0, "1", &hints, &ai), EOPNOTSUPP);
    hints.ai_flags = RAI_SA | RAI_DNS;
    REQUIRE_ERRNO(rdma_getaddrinfo(NULL, "1", &hints, &ai), EOPNOTSUPP);
    hints.ai_flags = RAI_SA;
    REQUIRE_ERRNO(rdma_getaddrinfo(NULL, NULL, &hints, &ai), EINVAL);
    /* A failed resolution leaves the id free for another (no EBUSY). */
    hints.ai_flags = RAI_NUMERICHOST;
    errno = 0;
    int r = rdma_resolve_addrinfo(e.id, "not-a-number", "7471", &hints);
    REQUIRE(r == -1 && errno == EAI_NONAME, "a name with RAI_NUMERICHOST: %d errno %d, expected -1 errno %d "
            "(EAI_NONAME, getaddrinfo's code)", r, errno, EAI_NONAME);
    REQUIRE_ERRNO(rdma_query_addrinfo(e.id, &ai), ENOENT);
    close_ep(&e);
    snprintf(d + strlen(d), 256 - strlen(d), "%sRAI_SA without service; EAI_NONAME as errno", *d ? " for " : "");
    return 0;
}

/* rdma_getaddrinfo with RAI_SA: an SA look-up from every active InfiniBand port; Soft-RoCE has none. */
static int t_getaddrinfo_sa(char *d, struct why *w)
{
    struct rdma_addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_SA;
    REQUIRE_ERRNO(rdma_getaddrinfo(NULL, "0x1000", &hints, &ai), ENOENT);
    REQUIRE_ERRNO(rdma_getaddrinfo(NULL, "some-service", &hints, &ai), ENOENT);
    snprintf(d, 256, "no InfiniBand port: ENOENT");
    return 0;
}

static int t_write_event(char *d, struct why *w)
{
    struct ep e = {0};
    struct rdma_cm_event *ev;
    if (open_ep(w, &e, RDMA_PS_TCP))
        return -1;
    if (!cm65_kernel) {
        REQUIRE_ERRNO(rdma_write_cm_event(e.id, RDMA_CM_EVENT_USER, 7, 42), EINVAL);
        REQUIRE(!cm_event_pending(e.ch, 100), "an event after a refused write");
        close_ep(&e);
        snprintf(d, 256, "kernel without WRITE_CM_EVENT: EINVAL");
        return 0;
    }
    const uint64_t arg = 0x55667788aabbccddull;
    REQUIRE_OK(rdma_write_cm_event(e.id, RDMA_CM_EVENT_USER, 0x11223344, arg));
    REQUIRE_OK(rdma_write_cm_event(e.id, RDMA_CM_EVENT_USER, -5, 1));
    REQUIRE_EVENT(e.ch, RDMA_CM_EVENT_USER, &ev);
    int st = ev->status;
    uint64_t got = ev->param.arg;
    struct rdma_cm_id *id = ev->id, *lid = ev->listen_id;
    REQUIRE_OK(rdma_ack_cm_event(ev));
    REQUIRE(st == 0x11223344 && got == arg && id == e.id && !lid,
            "first USER event: status %#x arg %#llx id %p listen_id %p", st, (unsigned long long)got, (void *)id,
            (void *)lid);
    REQUIRE_EVENT(e.ch, RDMA_CM_EVENT_USER, &ev);
    st = ev->status;
    got = ev->param.arg;
    REQUIRE_OK(rdma_ack_cm_event(ev));
    REQUIRE(st == -5 && got == 1, "second USER event: status %d arg %llu", st, (unsigned long long)got);
    REQUIRE(!cm_event_pending(e.ch, 100), "a third event");
    REQUIRE_OK(rdma_destroy_id(e.id));
    e.id = NULL;
    close_ep(&e);
    snprintf(d, 256, "USER events in order: status and param.arg as written");
    return 0;
}

struct waiter {
    struct rdma_event_channel *ch;
    int ret, err, type;
    uint64_t arg;
};

static void *wait_thread(void *p)
{
    struct waiter *wt = p;
    struct rdma_cm_event *ev;
    wt->ret = rdma_get_cm_event(wt->ch, &ev);
    wt->err = errno;
    if (wt->ret == 0) {
        wt->type = ev->event;
        wt->arg = ev->param.arg;
        rdma_ack_cm_event(ev);
    }
    return NULL;
}

/* The use rdma_write_cm_event(3) names: waking a thread blocked in rdma_get_cm_event. */
static int t_write_event_wakes(char *d, struct why *w)
{
    struct ep e = {0};
    pthread_t t;
    if (!cm65_kernel) {
        snprintf(d, 256, "not run: the kernel has no WRITE_CM_EVENT");
        return 0;
    }
    if (open_ep(w, &e, RDMA_PS_UDP))
        return -1;
    struct waiter wt = {.ch = e.ch, .ret = -2};
    REQUIRE(pthread_create(&t, NULL, wait_thread, &wt) == 0, "pthread_create");
    usleep(200 * 1000);
    double t0 = now_ms();
    REQUIRE_OK(rdma_write_cm_event(e.id, RDMA_CM_EVENT_USER, 0, 99));
    pthread_join(t, NULL);
    REQUIRE(wt.ret == 0 && wt.type == RDMA_CM_EVENT_USER && wt.arg == 99,
            "the waiting thread got %d errno %s event %d arg %llu", wt.ret, errname(wt.err), wt.type,
            (unsigned long long)wt.arg);
    close_ep(&e);
    snprintf(d, 256, "woken %.0f ms after the write", now_ms() - t0);
    return 0;
}

/* Checks a DNS result for IP0 port 7471 (TCP port space). */
static int check_result(struct why *w, struct rdma_addrinfo *ai)
{
    REQUIRE(ai, "rdma_query_addrinfo gave NULL");
    REQUIRE(ai->ai_family == AF_INET && ai->ai_dst_addr && ai->ai_dst_len == sizeof(struct sockaddr_in) &&
                sa_is_ip(ai->ai_dst_addr, IP0) &&
                ntohs(((struct sockaddr_in *)ai->ai_dst_addr)->sin_port) == 7471,
            "result: family %d dst %s (%u bytes)", ai->ai_family, sa_str(ai->ai_dst_addr), ai->ai_dst_len);
    REQUIRE(ai->ai_qp_type == IBV_QPT_RC && ai->ai_port_space == RDMA_PS_TCP && !ai->ai_src_addr && !ai->ai_next,
            "result: qp_type %d port_space %#x src %p next %p", ai->ai_qp_type, ai->ai_port_space,
            (void *)ai->ai_src_addr, (void *)ai->ai_next);
    return 0;
}

static int t_resolve_dns(char *d, struct why *w)
{
    struct ep e = {0};
    struct rdma_cm_event *ev;
    struct rdma_addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_NUMERICHOST | RAI_DNS;
    hints.ai_port_space = RDMA_PS_TCP;
    if (open_ep(w, &e, RDMA_PS_TCP))
        return -1;
    if (!cm65_kernel) {
        REQUIRE_FAIL65(d, rdma_resolve_addrinfo(e.id, IP0, "7471", &hints), EINVAL);
        REQUIRE(!cm_event_pending(e.ch, 100), "an event after a failed resolution");
        REQUIRE_ERRNO(rdma_query_addrinfo(e.id, &ai), ENOENT);
        /* Not busy afterwards: the same failure again. */
        REQUIRE_FAIL65(d, rdma_resolve_addrinfo(e.id, IP0, "7471", NULL), EINVAL);
        close_ep(&e);
        snprintf(d + strlen(d), 256 - strlen(d), " (kernel without WRITE_CM_EVENT)");
        return 0;
    }
    REQUIRE_OK(rdma_resolve_addrinfo(e.id, IP0, "7471", &hints));
    REQUIRE_ERRNO(rdma_resolve_addrinfo(e.id, IP0, "7471", &hints), EBUSY);
    REQUIRE_EVENT(e.ch, RDMA_CM_EVENT_ADDRINFO_RESOLVED, &ev);
    int st = ev->status;
    struct rdma_cm_id *id = ev->id;
    REQUIRE_OK(rdma_ack_cm_event(ev));
    REQUIRE(st == 0 && id == e.id, "ADDRINFO_RESOLVED: status %d id %p", st, (void *)id);
    /* Still busy until the result is taken. */
    REQUIRE_ERRNO(rdma_resolve_addrinfo(e.id, IP0, "7471", &hints), EBUSY);
    REQUIRE_OK(rdma_query_addrinfo(e.id, &ai));
    int bad = check_result(w, ai);
    rdma_freeaddrinfo(ai);
    if (bad)
        return -1;
    REQUIRE_ERRNO(rdma_query_addrinfo(e.id, &ai), ENOENT);
    /* A second resolution, without hints (DNS is the default), then the id destroyed with its result untaken. */
    REQUIRE_OK(rdma_resolve_addrinfo(e.id, IP1, "1", NULL));
    REQUIRE_EVENT(e.ch, RDMA_CM_EVENT_ADDRINFO_RESOLVED, &ev);
    REQUIRE_OK(rdma_ack_cm_event(ev));
    close_ep(&e);
    snprintf(d, 256, "ADDRINFO_RESOLVED, %s, EBUSY until queried, ENOENT after", IP0);
    return 0;
}

/* On a synchronous id the call waits for its event, kept in id->event. */
static int t_resolve_dns_sync(char *d, struct why *w)
{
    struct rdma_cm_id *id;
    struct rdma_addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_NUMERICHOST;
    hints.ai_port_space = RDMA_PS_TCP;
    REQUIRE_OK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
    if (!cm65_kernel) {
        REQUIRE_FAIL65(d, rdma_resolve_addrinfo(id, IP0, "7471", &hints), EINVAL);
        REQUIRE_OK(rdma_destroy_id(id));
        snprintf(d + strlen(d), 256 - strlen(d), " (kernel without WRITE_CM_EVENT)");
        return 0;
    }
    REQUIRE_OK(rdma_resolve_addrinfo(id, IP0, "7471", &hints));
    REQUIRE(id->event && id->event->event == RDMA_CM_EVENT_ADDRINFO_RESOLVED && id->event->status == 0,
            "id->event: %s", id->event ? rdma_event_str(id->event->event) : "NULL");
    REQUIRE_OK(rdma_query_addrinfo(id, &ai));
    int bad = check_result(w, ai);
    rdma_freeaddrinfo(ai);
    if (bad)
        return -1;
    REQUIRE_OK(rdma_destroy_id(id));
    snprintf(d, 256, "returns with id->event ADDRINFO_RESOLVED");
    return 0;
}

/* RAI_SA on Soft-RoCE: no subnet administrator. An unbound id is the kernel's EINVAL, a RoCE port its EOPNOTSUPP. */
static int t_resolve_sa(char *d, struct why *w)
{
    struct ep e = {0};
    struct rdma_addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_SA;
    if (open_ep(w, &e, RDMA_PS_IB))
        return -1;
    REQUIRE_FAIL65(d, rdma_resolve_addrinfo(e.id, NULL, "0x10000ce", &hints), EINVAL);
    struct sockaddr_in a = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(e.id, (struct sockaddr *)&a));
    REQUIRE_FAIL65(d, rdma_resolve_addrinfo(e.id, NULL, "my-service", &hints),
                   cm65_kernel ? EOPNOTSUPP : EINVAL);
    REQUIRE(!cm_event_pending(e.ch, 100), "an event after a refused resolution");
    REQUIRE_ERRNO(rdma_query_addrinfo(e.id, &ai), ENOENT);
    close_ep(&e);
    return 0;
}

/* rdma-core 56.1: a synchronous UD accept releases the request event it holds in id->event, so the listener can be
 * destroyed first (44 waits in that rdma_destroy_id forever). */
static int t_sync_ud_accept(char *d, struct why *w)
{
    struct rdma_cm_id *ls, *req = NULL;
    struct ep c = {0};
    struct rdma_cm_event *ev;
    REQUIRE_OK(rdma_create_id(NULL, &ls, NULL, RDMA_PS_UDP));
    struct sockaddr_in a = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(ls, (struct sockaddr *)&a));
    REQUIRE_OK(rdma_listen(ls, 2));
    uint16_t port = ntohs(rdma_get_src_port(ls));
    if (open_ep(w, &c, RDMA_PS_UDP))
        return -1;
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, port);
    REQUIRE_OK(rdma_resolve_addr(c.id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_EVENT(c.ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    REQUIRE_OK(rdma_resolve_route(c.id, 2000));
    REQUIRE_EVENT(c.ch, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    struct ibv_qp_init_attr qa = ud_attr();
    REQUIRE_OK(rdma_create_qp(c.id, NULL, &qa));
    REQUIRE_OK(rdma_connect(c.id, NULL));
    REQUIRE_OK(rdma_get_request(ls, &req));
    REQUIRE(req->event && req->event->event == RDMA_CM_EVENT_CONNECT_REQUEST, "req->event after rdma_get_request");
    qa = ud_attr(); /* rdma_create_qp stored the client's CQs in the first one */
    REQUIRE_OK(rdma_create_qp(req, NULL, &qa));
    REQUIRE_OK(rdma_accept(req, NULL));
    REQUIRE(req->event == NULL, "req->event still holds the request after a UD accept");
    REQUIRE_EVENT(c.ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
    rdma_ack_cm_event(ev);
    double t0 = now_ms();
    REQUIRE_OK(rdma_destroy_id(ls));
    double dt = now_ms() - t0;
    rdma_destroy_qp(req);
    REQUIRE_OK(rdma_destroy_id(req));
    close_ep(&c);
    snprintf(d, 256, "req->event released; the listener destroyed first in %.0f ms", dt);
    return 0;
}

int main(void)
{
    cm_init("cm_v65");
    cm65_kernel = kernel_ge(6, 17);
    struct utsname u;
    uname(&u);
    printf("# kernel %s: %s WRITE_CM_EVENT / RESOLVE_IB_SERVICE\n", u.release, cm65_kernel ? "with" : "without");
    CHECK("event-str", t_event_str);
    CHECK("bad-args", t_bad_args);
    CHECK("getaddrinfo-sa", t_getaddrinfo_sa);
    CHECK("write-event", t_write_event);
    CHECK("write-event-wakes", t_write_event_wakes);
    CHECK("resolve-dns", t_resolve_dns);
    CHECK("resolve-dns-sync", t_resolve_dns_sync);
    CHECK("resolve-sa", t_resolve_sa);
    /* Last: with rdma-core 44's rule it hangs (the watchdog ends the program). */
    CHECK("sync-ud-accept", t_sync_ud_accept);
    return cm_done();
}
