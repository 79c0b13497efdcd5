/* Shared helpers for the rdma_cm C tests (tests/c/cm_*.c).
 *
 * Every test program prints one line per check, "PASS name (detail)" or "FAIL name: reason", ends with
 * "<prog>: N passed, N failed" and exits 1 if anything failed. Addresses come from RDMA_TEST_IP0 / RDMA_TEST_IP1
 * (the guest's rxe0 / rxe1 addresses, default 198.18.0.1 / 198.18.0.2) and device names from RDMA_TEST_DEV0 /
 * RDMA_TEST_DEV1. A watchdog (alarm, CM_CHECK_SECS per check) turns a hang into "FAIL <check>: hung" and exit 2,
 * so a broken library never blocks the suite. Event waits are bounded with poll() on the channel's fd before
 * rdma_get_cm_event().
 *
 * The expected values (errnos, event statuses, private-data lengths) were measured with rdma-core 44 on Soft-RoCE
 * (Debian 12, kernel 6.1); these programs are the specification our librdmacm must meet.
 */
#ifndef CMUTIL_H
#define CMUTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

static const char *cm_prog = "cm";
static int cm_passed, cm_failed;
static const char *IP0, *IP1, *DEV0, *DEV1;

/* An address on no interface of the guest's 198.18.0.0/24: ARP gets no answer, so resolution times out. */
#define CM_UNREACHABLE "198.18.0.99"
/* Milliseconds we allow for one expected CM event (the guest is slow: TCG). */
#define CM_EVENT_MS 10000

static inline void cm_pass(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void cm_pass(const char *name, const char *fmt, ...)
{
    printf("PASS %s", name);
    if (fmt && *fmt) {
        va_list ap;
        va_start(ap, fmt);
        printf(" (");
        vprintf(fmt, ap);
        printf(")");
        va_end(ap);
    }
    printf("\n");
    cm_passed++;
}

static inline void cm_fail(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void cm_fail(const char *name, const char *fmt, ...)
{
    va_list ap;
    printf("FAIL %s: ", name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    cm_failed++;
}

/* A failure reason accumulated by a check sequence: the first failed check wins. */
struct why {
    char msg[512];
};

static inline int why_set(struct why *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int why_set(struct why *w, const char *fmt, ...)
{
    if (!w->msg[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->msg, sizeof w->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static inline const char *errname(int e)
{
    const char *n = e ? strerrorname_np(e) : "0";
    return n ? n : "E?";
}

/* Inside a function with `struct why *w`: if COND is false, record the message and return -1. */
#define REQUIRE(cond, ...)                                                                                            \
    do {                                                                                                              \
        if (!(cond))                                                                                                  \
            return why_set(w, __VA_ARGS__);                                                                           \
    } while (0)

/* A call that must return 0 (rdma_* convention: -1 and errno on failure). */
#define REQUIRE_OK(call)                                                                                              \
    do {                                                                                                              \
        errno = 0;                                                                                                    \
        int rq_ret_ = (call);                                                                                         \
        if (rq_ret_ != 0)                                                                                             \
            return why_set(w, "%s returned %d errno %s", #call, rq_ret_, errname(errno));                             \
    } while (0)

/* A call that must fail with -1 and errno E. */
#define REQUIRE_ERRNO(call, e)                                                                                        \
    do {                                                                                                              \
        errno = 0;                                                                                                    \
        int rq_ret_ = (call);                                                                                         \
        if (rq_ret_ != -1 || errno != (e))                                                                            \
            return why_set(w, "%s returned %d errno %s, expected -1 errno %s", #call, rq_ret_, errname(errno),        \
                           errname(e));                                                                               \
    } while (0)

/* The check running now (for the watchdog) and, for staged programs, the first stage that failed. */
static const char *cm_current = "startup";
static const char *cm_blocked __attribute__((unused));
static int cm_last_ok;
/* Seconds one check may take before the watchdog ends the program. */
#define CM_CHECK_SECS 40

/* Runs one named check: FN(detail, &why, ARGS...) returns 0 on success (detail: a PASS note, 256 bytes); prints
 * PASS/FAIL and leaves the result in cm_last_ok. */
#define CHECK(name, fn, ...)                                                                                          \
    do {                                                                                                              \
        struct why why_ = {{0}};                                                                                      \
        char detail_[256] = "";                                                                                       \
        cm_current = (name);                                                                                          \
        double t0_ = now_ms();                                                                                        \
        alarm(CM_CHECK_SECS);                                                                                         \
        cm_last_ok = fn(detail_, &why_, ##__VA_ARGS__) == 0;                                                          \
        alarm(0);                                                                                                     \
        if (cm_last_ok)                                                                                               \
            cm_pass(name, "%.1fs%s%s", (now_ms() - t0_) / 1e3, detail_[0] ? ": " : "", detail_);                      \
        else                                                                                                          \
            cm_fail(name, "%s", why_.msg[0] ? why_.msg : "failed");                                                   \
    } while (0)

/* A check that later ones depend on: once one stage fails, the following stages report FAIL "not run". */
#define STAGE(name, fn, ...)                                                                                          \
    do {                                                                                                              \
        if (cm_blocked) {                                                                                             \
            cm_fail(name, "not run: %s failed", cm_blocked);                                                          \
        } else {                                                                                                      \
            CHECK(name, fn, ##__VA_ARGS__);                                                                           \
            if (!cm_last_ok)                                                                                          \
                cm_blocked = (name);                                                                                  \
        }                                                                                                             \
    } while (0)

static inline void cm_watchdog(int sig)
{
    (void)sig;
    char msg[256];
    int n = snprintf(msg, sizeof msg, "FAIL %s: hung (no result after %d s; watchdog ends %s)\n", cm_current,
                     CM_CHECK_SECS, cm_prog);
    ssize_t r = write(1, msg, n > 0 && n < (int)sizeof msg ? (size_t)n : 0);
    (void)r;
    _exit(2);
}

static inline void cm_init(const char *prog)
{
    cm_prog = prog;
    setvbuf(stdout, NULL, _IOLBF, 0);
    IP0 = getenv("RDMA_TEST_IP0");
    IP1 = getenv("RDMA_TEST_IP1");
    DEV0 = getenv("RDMA_TEST_DEV0");
    DEV1 = getenv("RDMA_TEST_DEV1");
    if (!IP0 || !*IP0)
        IP0 = "198.18.0.1";
    if (!IP1 || !*IP1)
        IP1 = "198.18.0.2";
    if (!DEV0 || !*DEV0)
        DEV0 = "rxe0";
    if (!DEV1 || !*DEV1)
        DEV1 = "rxe1";
    signal(SIGALRM, cm_watchdog);
    signal(SIGPIPE, SIG_IGN);
    alarm(CM_CHECK_SECS);
}

static inline int cm_done(void)
{
    printf("%s: %d passed, %d failed\n", cm_prog, cm_passed, cm_failed);
    return cm_failed ? 1 : 0;
}

static inline double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* An IPv4 sockaddr for IP (dotted quad) and PORT (host order). */
static inline struct sockaddr_in sin4(const char *ip, uint16_t port)
{
    struct sockaddr_in s;
    memset(&s, 0, sizeof s);
    s.sin_family = AF_INET;
    s.sin_port = htons(port);
    if (inet_pton(AF_INET, ip, &s.sin_addr) != 1) {
        fprintf(stderr, "%s: bad IPv4 address '%s'\n", cm_prog, ip);
        exit(2);
    }
    return s;
}

/* "a.b.c.d:port" of an AF_INET sockaddr (or "family N"). */
static inline const char *sa_str(const struct sockaddr *sa)
{
    static char bufs[4][64];
    static int n;
    char *b = bufs[n++ & 3];
    if (!sa) {
        snprintf(b, 64, "(null)");
    } else if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)sa;
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &s->sin_addr, ip, sizeof ip);
        snprintf(b, 64, "%s:%u", ip, ntohs(s->sin_port));
    } else {
        snprintf(b, 64, "family %d", sa->sa_family);
    }
    return b;
}

/* True when SA is AF_INET with address IP (port not compared). */
static inline int sa_is_ip(const struct sockaddr *sa, const char *ip)
{
    struct sockaddr_in want = sin4(ip, 0);
    return sa && sa->sa_family == AF_INET &&
           ((const struct sockaddr_in *)sa)->sin_addr.s_addr == want.sin_addr.s_addr;
}

static inline const char *dev_name(struct ibv_context *verbs)
{
    return verbs && verbs->device ? ibv_get_device_name(verbs->device) : "(none)";
}

/* Waits up to MS milliseconds for the next event on CH. 0 and *ev set; -1 with errno (ETIMEDOUT if none came). */
static inline int cm_wait_event(struct rdma_event_channel *ch, int ms, struct rdma_cm_event **ev)
{
    struct pollfd p = {.fd = ch->fd, .events = POLLIN};
    int r;
    do {
        r = poll(&p, 1, ms);
    } while (r < 0 && errno == EINTR);
    if (r < 0)
        return -1;
    if (r == 0) {
        errno = ETIMEDOUT;
        return -1;
    }
    return rdma_get_cm_event(ch, ev);
}

/* True when an event is pending on CH within MS milliseconds (nothing is read). */
static inline int cm_event_pending(struct rdma_event_channel *ch, int ms)
{
    struct pollfd p = {.fd = ch->fd, .events = POLLIN};
    return poll(&p, 1, ms) > 0;
}

/* Inside a check: waits for an event of TYPE on CH (status checked by the caller); stores it in *EV (unacked). */
#define REQUIRE_EVENT(ch, type, evp)                                                                                  \
    do {                                                                                                              \
        errno = 0;                                                                                                    \
        if (cm_wait_event((ch), CM_EVENT_MS, (evp)))                                                                  \
            return why_set(w, "waiting for %s: %s", rdma_event_str(type), errname(errno));                            \
        if ((*(evp))->event != (type)) {                                                                              \
            why_set(w, "got %s (status %d), expected %s", rdma_event_str((*(evp))->event), (*(evp))->status,         \
                    rdma_event_str(type));                                                                            \
            rdma_ack_cm_event(*(evp));                                                                                \
            *(evp) = NULL;                                                                                            \
            return -1;                                                                                                \
        }                                                                                                             \
    } while (0)

/* A kernel-chosen TCP-port-space port on IP that nobody listens on (bound once, then released). 0 on failure. */
static inline uint16_t cm_free_port(const char *ip)
{
    struct rdma_cm_id *id;
    uint16_t port = 0;
    if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
        return 0;
    struct sockaddr_in a = sin4(ip, 0);
    if (rdma_bind_addr(id, (struct sockaddr *)&a) == 0)
        port = ntohs(rdma_get_src_port(id));
    rdma_destroy_id(id);
    return port;
}

/* Queries the QP state of QP (or -1). */
static inline int qp_state(struct ibv_qp *qp)
{
    struct ibv_qp_attr attr;
    struct ibv_qp_init_attr init;
    if (!qp || ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
        return -1;
    return attr.qp_state;
}

/* An endpoint of the programs that need only an event channel and an id (cm_ud, cm_v65). */
struct ep {
    struct rdma_event_channel *ch;
    struct rdma_cm_id *id;
};

/* Destroys e's QP, id and channel, whichever exist, and clears e. */
static inline void close_ep(struct ep *e)
{
    if (e->id) {
        if (e->id->qp)
            rdma_destroy_qp(e->id);
        rdma_destroy_id(e->id);
    }
    if (e->ch)
        rdma_destroy_event_channel(e->ch);
    memset(e, 0, sizeof *e);
}

#endif
