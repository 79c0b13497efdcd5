/* cm_cancel: threads blocked in the library's waiting calls can be cancelled (pthread_cancel(3)), as with rdma-core.
 *
 * glibc cancels a thread by unwinding its stack. A C library lets that unwind pass; a Rust library that catches
 * panics at its boundary must keep the unwind away from that catch, or the whole process aborts ("FATAL: exception
 * not rethrown"). For each call that blocks until an event arrives, a thread waits in it, the main thread cancels
 * it, and the check requires that the thread ends as cancelled (PTHREAD_CANCELED), that the process lives on, and
 * that the objects the thread waited on can still be used and destroyed:
 *   ibv_get_cq_event, ibv_get_async_event, rdma_get_cm_event, rdma_get_request (a synchronous listener), and a
 *   synchronous rdma_connect whose request the listener never answers.
 * Last, a cancel that is already pending when a thread enters the library (ibv_get_device_list reads sysfs, full of
 * cancellation points) must not abort the process either; the thread ends cancelled.
 */
#include "cmutil.h"

#include <pthread.h>

/* The start functions of the threads this program cancels. Cancellation unwinds a thread's stack without running
 * the epilogues of its frames, so an AddressSanitizer build would leave the redzones of those frames poisoned, and
 * ASan's own thread teardown (sigaltstack on that stack) then reports a stack-buffer-underflow that is not one
 * (GCC 12's libasan does not unpoison the stack of a cancelled thread). These functions therefore carry no stack
 * instrumentation; everything else in the program still does (tests/guest/cases/57-sanitizers.sh). */
#define CANCELLED_THREAD __attribute__((no_sanitize_address))

/* Joins T within SECS seconds; 0 when it ended cancelled, else the reason in W. */
static int join_cancelled(struct why *w, pthread_t t, int secs)
{
    struct timespec ts;
    void *ret = NULL;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += secs;
    int e = pthread_timedjoin_np(t, &ret, &ts);
    REQUIRE(e == 0, "the cancelled thread did not end within %d s (pthread_timedjoin_np: %s)", secs, errname(e));
    REQUIRE(ret == PTHREAD_CANCELED, "the thread returned %p, not PTHREAD_CANCELED", ret);
    return 0;
}

/* Lets a thread reach its blocking call, then cancels it. */
static int cancel_after(struct why *w, pthread_t t)
{
    usleep(300 * 1000);
    int e = pthread_cancel(t);
    REQUIRE(e == 0, "pthread_cancel: %s", errname(e));
    return 0;
}

static struct ibv_context *open_dev(const char *name)
{
    int n;
    struct ibv_device **list = ibv_get_device_list(&n);
    struct ibv_context *ctx = NULL;
    for (int i = 0; list && i < n; i++)
        if (!strcmp(ibv_get_device_name(list[i]), name))
            ctx = ibv_open_device(list[i]);
    ibv_free_device_list(list);
    return ctx;
}

static CANCELLED_THREAD void *wait_cq_event(void *arg)
{
    struct ibv_cq *cq;
    void *cq_ctx;
    ibv_get_cq_event(arg, &cq, &cq_ctx);
    return (void *)1; /* an event nobody asked for, or an error: not cancelled */
}

static int t_cq_event(char *d, struct why *w)
{
    struct ibv_context *ctx = open_dev(DEV0);
    REQUIRE(ctx, "ibv_open_device(%s): %s", DEV0, errname(errno));
    struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
    REQUIRE(ch, "ibv_create_comp_channel: %s", errname(errno));
    struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, ch, 0);
    REQUIRE(cq, "ibv_create_cq: %s", errname(errno));
    REQUIRE(ibv_req_notify_cq(cq, 0) == 0, "ibv_req_notify_cq");
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, wait_cq_event, ch) == 0, "pthread_create");
    if (cancel_after(w, t) || join_cancelled(w, t, 10))
        return -1;
    REQUIRE(ibv_req_notify_cq(cq, 1) == 0, "ibv_req_notify_cq after the cancel: %s", errname(errno));
    REQUIRE(ibv_destroy_cq(cq) == 0, "ibv_destroy_cq after the cancel");
    REQUIRE(ibv_destroy_comp_channel(ch) == 0, "ibv_destroy_comp_channel after the cancel");
    REQUIRE(ibv_close_device(ctx) == 0, "ibv_close_device after the cancel");
    snprintf(d, 256, "waiting thread cancelled; CQ re-armed and destroyed, channel and context closed");
    return 0;
}

static CANCELLED_THREAD void *wait_async_event(void *arg)
{
    struct ibv_async_event ev;
    if (ibv_get_async_event(arg, &ev) == 0)
        ibv_ack_async_event(&ev);
    return (void *)1;
}

static int t_async_event(char *d, struct why *w)
{
    struct ibv_context *ctx = open_dev(DEV0);
    REQUIRE(ctx, "ibv_open_device(%s): %s", DEV0, errname(errno));
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, wait_async_event, ctx) == 0, "pthread_create");
    if (cancel_after(w, t) || join_cancelled(w, t, 10))
        return -1;
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    REQUIRE(pd, "ibv_alloc_pd after the cancel: %s", errname(errno));
    REQUIRE(ibv_dealloc_pd(pd) == 0, "ibv_dealloc_pd after the cancel");
    REQUIRE(ibv_close_device(ctx) == 0, "ibv_close_device after the cancel");
    snprintf(d, 256, "waiting thread cancelled; context still usable and closed");
    return 0;
}

static CANCELLED_THREAD void *wait_cm_event(void *arg)
{
    struct rdma_cm_event *ev;
    if (rdma_get_cm_event(arg, &ev) == 0)
        rdma_ack_cm_event(ev);
    return (void *)1;
}

static int t_cm_event(char *d, struct why *w)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    REQUIRE(ch, "rdma_create_event_channel: %s", errname(errno));
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, wait_cm_event, ch) == 0, "pthread_create");
    if (cancel_after(w, t) || join_cancelled(w, t, 10))
        return -1;
    /* The channel still works: an address resolution's event arrives on it. */
    struct rdma_cm_id *id;
    REQUIRE_OK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, 7471);
    REQUIRE_OK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    struct rdma_cm_event *ev;
    REQUIRE_EVENT(ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    REQUIRE_OK(rdma_destroy_id(id));
    rdma_destroy_event_channel(ch);
    snprintf(d, 256, "waiting thread cancelled; ADDR_RESOLVED then arrives on the same channel");
    return 0;
}

static CANCELLED_THREAD void *wait_request(void *arg)
{
    struct rdma_cm_id *id;
    if (rdma_get_request(arg, &id) == 0)
        rdma_destroy_ep(id);
    return (void *)1;
}

static int t_get_request(char *d, struct why *w)
{
    struct rdma_addrinfo hints, *res;
    memset(&hints, 0, sizeof hints);
    hints.ai_flags = RAI_PASSIVE;
    hints.ai_port_space = RDMA_PS_TCP;
    int rc = rdma_getaddrinfo(IP0, "0", &hints, &res);
    REQUIRE(rc == 0, "rdma_getaddrinfo: %d", rc);
    struct rdma_cm_id *listen_id;
    errno = 0;
    rc = rdma_create_ep(&listen_id, res, NULL, NULL);
    rdma_freeaddrinfo(res);
    REQUIRE(rc == 0, "rdma_create_ep: %s", errname(errno));
    REQUIRE_OK(rdma_listen(listen_id, 4));
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, wait_request, listen_id) == 0, "pthread_create");
    if (cancel_after(w, t) || join_cancelled(w, t, 10))
        return -1;
    uint16_t port = ntohs(rdma_get_src_port(listen_id));
    REQUIRE(port != 0, "the listener lost its port");
    rdma_destroy_ep(listen_id);
    snprintf(d, 256, "thread waiting on a synchronous listener (port %u) cancelled; listener destroyed", port);
    return 0;
}

static CANCELLED_THREAD void *sync_connect(void *arg)
{
    struct rdma_conn_param p;
    memset(&p, 0, sizeof p);
    p.retry_count = 7;
    p.rnr_retry_count = 7;
    p.qp_num = 0x123; /* no QP on the id: the parameters name one */
    rdma_connect(arg, &p);
    return (void *)1;
}

static int t_sync_connect(char *d, struct why *w)
{
    struct rdma_event_channel *sch = rdma_create_event_channel();
    REQUIRE(sch, "rdma_create_event_channel: %s", errname(errno));
    struct rdma_cm_id *lid, *id;
    REQUIRE_OK(rdma_create_id(sch, &lid, NULL, RDMA_PS_TCP));
    struct sockaddr_in a = sin4(IP0, 0);
    REQUIRE_OK(rdma_bind_addr(lid, (struct sockaddr *)&a));
    REQUIRE_OK(rdma_listen(lid, 4));
    uint16_t port = ntohs(rdma_get_src_port(lid));
    /* The client's id has no channel: every call on it is synchronous. */
    REQUIRE_OK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, port);
    REQUIRE_OK(rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000));
    REQUIRE_OK(rdma_resolve_route(id, 2000));
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, sync_connect, id) == 0, "pthread_create");
    /* The request reaches the listener, which never answers: the client's rdma_connect keeps waiting. */
    struct rdma_cm_event *ev;
    REQUIRE_EVENT(sch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
    if (cancel_after(w, t) || join_cancelled(w, t, 10)) {
        rdma_ack_cm_event(ev);
        return -1;
    }
    struct rdma_cm_id *req = ev->id;
    REQUIRE_OK(rdma_reject(req, NULL, 0));
    rdma_ack_cm_event(ev);
    REQUIRE_OK(rdma_destroy_id(req));
    REQUIRE_OK(rdma_destroy_id(id));
    REQUIRE_OK(rdma_destroy_id(lid));
    rdma_destroy_event_channel(sch);
    snprintf(d, 256, "thread in a synchronous rdma_connect to %s:%u cancelled; request rejected, ids destroyed", IP0,
             port);
    return 0;
}

static pthread_barrier_t pending_barrier;
static volatile int pending_returned;

static CANCELLED_THREAD void *enter_with_cancel_pending(void *arg)
{
    (void)arg;
    int n = 0;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    pthread_barrier_wait(&pending_barrier); /* the main thread cancels us now */
    pthread_barrier_wait(&pending_barrier); /* ... and has */
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
    struct ibv_device **list = ibv_get_device_list(&n); /* cancellation points inside: sysfs reads */
    pending_returned = 1;
    ibv_free_device_list(list);
    pthread_testcancel();
    return (void *)1;
}

static int t_pending_cancel(char *d, struct why *w)
{
    pthread_t t;
    pthread_barrier_init(&pending_barrier, NULL, 2);
    REQUIRE(pthread_create(&t, NULL, enter_with_cancel_pending, NULL) == 0, "pthread_create");
    pthread_barrier_wait(&pending_barrier);
    int e = pthread_cancel(t);
    pthread_barrier_wait(&pending_barrier);
    REQUIRE(e == 0, "pthread_cancel: %s", errname(e));
    if (join_cancelled(w, t, 10))
        return -1;
    snprintf(d, 256, "thread ended cancelled, %s", pending_returned ? "after ibv_get_device_list returned"
                                                                    : "inside ibv_get_device_list");
    return 0;
}

int main(void)
{
    cm_init("cm_cancel");
    CHECK("cancel_in_get_cq_event", t_cq_event);
    CHECK("cancel_in_get_async_event", t_async_event);
    CHECK("cancel_in_get_cm_event", t_cm_event);
    CHECK("cancel_in_get_request", t_get_request);
    CHECK("cancel_in_sync_connect", t_sync_connect);
    /* Last: rdma-core may be cancelled inside ibv_get_device_list, holding its device-list lock. */
    CHECK("cancel_pending_on_entry", t_pending_cancel);
    return cm_done();
}
