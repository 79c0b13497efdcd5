/* cm_explain: a failing CM step says why in the log (VERBS_LOG_LEVEL >= 2, VERBS_LOG_FILE), next to the event it
 * reports unchanged.
 *
 * The program points VERBS_LOG_FILE at a file of its own before the libraries' first call, provokes CM failures
 * and checks the event each delivers (type and status, the same with rdma-core) and, with our librdmacm, the log
 * line naming the call, the id's addresses and the cause:
 *   no_listener     rdma_connect to a port nobody listens on: REJECTED (IB/RoCE reject reason 8; iWARP
 *                   -ECONNREFUSED), "rdma_connect(<IP1> -> <IP0> port P): REJECTED: nobody listens on port P"
 *   app_reject      a listener that calls rdma_reject: REJECTED (reason 28; iWARP -ECONNRESET),
 *                   "REJECTED: the application at <IP0> rejected the connection (rdma_reject" ("MPA reject" on iWARP)
 *   loopback_source rdma_resolve_addr from 127.0.0.1 (no RDMA device): the call fails at once, or ADDR_ERROR
 *                   whose line says "rdma_resolve_addr(any -> <IP0> port 7): ADDR_ERROR: no RDMA device serves the
 *                   route to <IP0>" (-ENODEV on rxe)
 * On Soft-RoCE only: over iWARP rdma_connect needs a QP, and 127.0.0.1 resolves.
 *   success_silent  a resolved address and route add no line
 * With rdma-core's librdmacm (CASE_LIBS=stock) only the events are checked: it logs nothing of this.
 */
#include "cmutil.h"

#include <dlfcn.h>
#include <sys/stat.h>

/* 1 when the librdmacm.so.1 this process runs is not the system's (i.e. ours). */
static int ours(void)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "rdma_create_id");

    if (!sym || !dladdr(sym, &info) || !info.dli_fname)
        return 0;
    return strncmp(info.dli_fname, "/usr/lib/", 9) != 0 && strncmp(info.dli_fname, "/lib/", 5) != 0;
}

static char log_path[64];

static long log_size(void)
{
    struct stat st;
    return stat(log_path, &st) ? 0 : (long)st.st_size;
}

/* The log's bytes from offset `from` on (static buffer). */
static const char *log_since(long from)
{
    static char buf[65536];
    FILE *f = fopen(log_path, "r");
    size_t n = 0;
    buf[0] = 0;
    if (!f)
        return buf;
    if (fseek(f, from, SEEK_SET) == 0)
        n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* With our library, the log since `from` must hold `needle`; the matching line goes into the PASS detail. */
static int log_has(char *detail, struct why *w, long from, const char *needle)
{
    if (!ours()) {
        if (!strstr(detail, "logs nothing"))
            snprintf(detail + strlen(detail), 256 - strlen(detail), " (rdma-core logs nothing)");
        return 0;
    }
    const char *log = log_since(from), *line = strstr(log, needle);
    if (!line)
        return why_set(w, "the log lacks \"%s\"; it has: %.300s", needle, log);
    const char *end = strchr(line, '\n');
    snprintf(detail + strlen(detail), 256 - strlen(detail), "; log: %.*s", (int)(end ? end - line : 160), line);
    return 0;
}

/* An id on its own channel with IP1 -> IP0:port resolved (address and route). */
static int client_resolved(struct why *w, struct rdma_event_channel **ch, struct rdma_cm_id **id, uint16_t port)
{
    struct rdma_cm_event *ev;
    struct sockaddr_in src = sin4(IP1, 0), dst = sin4(IP0, port);

    *ch = rdma_create_event_channel();
    if (!*ch || rdma_create_id(*ch, id, NULL, RDMA_PS_TCP))
        return why_set(w, "create: %s", errname(errno));
    if (rdma_resolve_addr(*id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000))
        return why_set(w, "rdma_resolve_addr: %s", errname(errno));
    REQUIRE_EVENT(*ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    if (rdma_resolve_route(*id, 2000))
        return why_set(w, "rdma_resolve_route: %s", errname(errno));
    REQUIRE_EVENT(*ch, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
    rdma_ack_cm_event(ev);
    return 0;
}

static int connect_params(struct rdma_cm_id *id)
{
    struct rdma_conn_param p;
    memset(&p, 0, sizeof(p));
    p.responder_resources = 1;
    p.initiator_depth = 1;
    p.retry_count = 3;
    p.qp_num = 0x123;
    return rdma_connect(id, &p);
}

static int iwarp_id(struct rdma_cm_id *id)
{
    return id->verbs && id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
}

static int no_listener(char *detail, struct why *w)
{
    struct rdma_event_channel *ch = NULL;
    struct rdma_cm_id *id = NULL;
    struct rdma_cm_event *ev;
    uint16_t port = cm_free_port(IP0);
    char want[160];
    int ret = -1;

    if (!port)
        return why_set(w, "no free port on %s", IP0);
    if (client_resolved(w, &ch, &id, port))
        goto out;
    long at = log_size();
    if (connect_params(id)) {
        why_set(w, "rdma_connect: %s", errname(errno));
        goto out;
    }
    if (cm_wait_event(ch, CM_EVENT_MS, &ev)) {
        why_set(w, "no event: %s", errname(errno));
        goto out;
    }
    int type = ev->event, status = ev->status, iw = iwarp_id(id);
    rdma_ack_cm_event(ev);
    if (type != RDMA_CM_EVENT_REJECTED || status != (iw ? -ECONNREFUSED : 8)) {
        why_set(w, "got %s status %d, expected REJECTED %d", rdma_event_str(type), status, iw ? -ECONNREFUSED : 8);
        goto out;
    }
    snprintf(detail, 256, "REJECTED %d", status);
    snprintf(want, sizeof(want), "rdma_connect(%s -> %s port %u): REJECTED: ", IP1, IP0, port);
    if (log_has(detail, w, at, want))
        goto out;
    snprintf(want, sizeof(want), "nobody listens on port %u", port);
    ret = log_has(detail, w, at, want);
out:
    if (id)
        rdma_destroy_id(id);
    if (ch)
        rdma_destroy_event_channel(ch);
    return ret;
}

static int app_reject(char *detail, struct why *w)
{
    struct rdma_event_channel *lch = NULL, *ch = NULL;
    struct rdma_cm_id *lid = NULL, *id = NULL;
    struct rdma_cm_event *ev;
    struct sockaddr_in la = sin4(IP0, 0);
    int ret = -1;

    lch = rdma_create_event_channel();
    if (!lch || rdma_create_id(lch, &lid, NULL, RDMA_PS_TCP) || rdma_bind_addr(lid, (struct sockaddr *)&la) ||
        rdma_listen(lid, 4)) {
        why_set(w, "listener: %s", errname(errno));
        goto out;
    }
    uint16_t port = ntohs(rdma_get_src_port(lid));
    if (client_resolved(w, &ch, &id, port))
        goto out;
    long at = log_size();
    if (connect_params(id)) {
        why_set(w, "rdma_connect: %s", errname(errno));
        goto out;
    }
    if (cm_wait_event(lch, CM_EVENT_MS, &ev) || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
        why_set(w, "listener: no CONNECT_REQUEST (%s)", errname(errno));
        goto out;
    }
    struct rdma_cm_id *req = ev->id;
    rdma_ack_cm_event(ev);
    rdma_reject(req, "no", 3);
    rdma_destroy_id(req);
    if (cm_wait_event(ch, CM_EVENT_MS, &ev)) {
        why_set(w, "no event: %s", errname(errno));
        goto out;
    }
    int type = ev->event, status = ev->status, iw = iwarp_id(id);
    rdma_ack_cm_event(ev);
    if (type != RDMA_CM_EVENT_REJECTED || status != (iw ? -ECONNRESET : 28)) {
        why_set(w, "got %s status %d, expected REJECTED %d", rdma_event_str(type), status, iw ? -ECONNRESET : 28);
        goto out;
    }
    snprintf(detail, 256, "REJECTED %d", status);
    ret = log_has(detail, w, at, iw ? "REJECTED: " : "REJECTED: the application at ");
    if (!ret)
        ret = log_has(detail, w, at, iw ? "MPA reject" : "(rdma_reject");
out:
    if (id)
        rdma_destroy_id(id);
    if (ch)
        rdma_destroy_event_channel(ch);
    if (lid)
        rdma_destroy_id(lid);
    if (lch)
        rdma_destroy_event_channel(lch);
    return ret;
}

static int loopback_source(char *detail, struct why *w)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct rdma_cm_id *id = NULL;
    struct rdma_cm_event *ev;
    struct sockaddr_in src = sin4("127.0.0.1", 0), dst = sin4(IP0, 7);
    char want[160];
    int ret = -1;

    if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
        why_set(w, "create: %s", errname(errno));
        goto out;
    }
    long at = log_size();
    if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000)) {
        snprintf(detail, 256, "rdma_resolve_addr failed at once: %s (no event to explain)", errname(errno));
        ret = 0;
        goto out;
    }
    if (cm_wait_event(ch, CM_EVENT_MS, &ev)) {
        why_set(w, "no event: %s", errname(errno));
        goto out;
    }
    int type = ev->event, status = ev->status;
    rdma_ack_cm_event(ev);
    if (type != RDMA_CM_EVENT_ADDR_ERROR) {
        why_set(w, "got %s status %d, expected ADDR_ERROR", rdma_event_str(type), status);
        goto out;
    }
    snprintf(detail, 256, "ADDR_ERROR %d", status);
    /* The id has no source address yet when resolution fails (as with rdma-core): the line says "any". */
    snprintf(want, sizeof(want), " -> %s port 7): ADDR_ERROR: ", IP0);
    ret = log_has(detail, w, at, want);
    if (!ret && status == -ENODEV)
        ret = log_has(detail, w, at, "no RDMA device serves the route to");
out:
    if (id)
        rdma_destroy_id(id);
    if (ch)
        rdma_destroy_event_channel(ch);
    return ret;
}

static int success_silent(char *detail, struct why *w)
{
    struct rdma_event_channel *ch = NULL;
    struct rdma_cm_id *id = NULL;
    long at = log_size();
    int ret = client_resolved(w, &ch, &id, 7);

    if (!ret && log_size() != at)
        ret = why_set(w, "the log grew by %ld bytes: %.200s", log_size() - at, log_since(at));
    if (!ret)
        snprintf(detail, 256, "address and route resolved, nothing logged");
    if (id)
        rdma_destroy_id(id);
    if (ch)
        rdma_destroy_event_channel(ch);
    return ret;
}

int main(void)
{
    /* Before the libraries' first call: they read the variables when they start logging. */
    snprintf(log_path, sizeof(log_path), "/tmp/cm_explain.%d.log", (int)getpid());
    unlink(log_path);
    setenv("VERBS_LOG_LEVEL", "2", 1);
    setenv("VERBS_LOG_FILE", log_path, 1);
    cm_init("cm_explain");
    CHECK("no_listener", no_listener);
    CHECK("app_reject", app_reject);
    CHECK("loopback_source", loopback_source);
    CHECK("success_silent", success_silent);
    unlink(log_path);
    return cm_done();
}
