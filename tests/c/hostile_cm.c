/* The CM side of a hostile peer (issue 25; guest case 58-hostile, docs/testing.md "Hostile peers"): private data
 * of every length the wire allows, and one past it, in the connection request, the reply and the reject; replies
 * and rejects carrying garbage; a storm of disconnect requests. One process plays both ends on RDMA_TEST_IP0
 * (server) and RDMA_TEST_IP1 (client), each on its own event channel.
 *
 * Every observation is printed as one "CM <name> <facts>" line: what each side's events said (type, status,
 * private data length, whether the bytes are those sent and the rest zeros), a call's errno. Case 58 runs the
 * program on our libraries and on rdma-core 44's and compares the CM lines one by one: they must be equal
 * (events delivered as rdma-core delivers them, nothing lost). The program itself only fails (FAIL lines, exit 1)
 * when an event does not come at all (HOSTILE_CM_WAIT_MS, default 5000, per event) or a call that must succeed
 * fails; "PASS cm-done" at the end.
 *
 * HOSTILE_CM_STEP (default 1) tests every STEP-th length only (the lengths at the limits always).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* What the IB CM carries for RDMA_PS_TCP over IPv4 (the rdma_cm header takes 36 of the REQ's 92 bytes). */
#define REQ_MAX 56
#define REP_MAX 196
#define REJ_MAX 148
#define STORM 24

static const char *ip0, *ip1;
static int port, wait_ms = 5000, step = 1, storm_n = STORM, failed;
static struct rdma_event_channel *sch, *cch;
static struct rdma_cm_id *listener;

struct ev {
	int type, status, plen;
	uint8_t pdata[256];
	struct rdma_cm_id *id;
};

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	failed++;
}

static struct sockaddr_in sin_of(const char *ip, int p)
{
	struct sockaddr_in s;

	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	s.sin_port = htons((uint16_t)p);
	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

/* The next event of ch within the wait (copied, then acknowledged); -1 when none came. */
static int get_ev(struct rdma_event_channel *ch, struct ev *e)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ce;

	memset(e, 0, sizeof(*e));
	if (poll(&p, 1, wait_ms) <= 0 || rdma_get_cm_event(ch, &ce))
		return -1;
	e->type = ce->event;
	e->status = ce->status;
	e->id = ce->id;
	if (ce->id && ce->id->qp_type == IBV_QPT_UD) {
		e->plen = ce->param.ud.private_data ? ce->param.ud.private_data_len : 0;
	} else {
		e->plen = ce->param.conn.private_data ? ce->param.conn.private_data_len : 0;
		if (e->plen > 0)
			memcpy(e->pdata, ce->param.conn.private_data, (size_t)e->plen);
	}
	rdma_ack_cm_event(ce);
	return 0;
}

static int want(struct rdma_event_channel *ch, int type, struct ev *e, const char *what)
{
	if (get_ev(ch, e)) {
		fail("%s: no %s within %d ms", what, rdma_event_str(type), wait_ms);
		return -1;
	}
	if (e->type != type) {
		fail("%s: %s (status %d) instead of %s", what, rdma_event_str(e->type), e->status, rdma_event_str(type));
		return -1;
	}
	return 0;
}

/* Pattern bytes of a message of length n (seed: which message), or garbage (a fixed pseudo-random stream). */
static void fill(uint8_t *b, int n, int seed, int garbage)
{
	uint32_t x = 0x9E3779B9u * (uint32_t)(seed + 1);

	for (int i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = garbage ? (uint8_t)x : (uint8_t)(i * 7 + seed + 1);
	}
}

/* "sent": the first n received bytes are those sent, the rest (up to len) zeros; else what differs. */
static const char *match(const uint8_t *got, int len, int n, int seed, int garbage)
{
	uint8_t exp[256];

	fill(exp, n, seed, garbage);
	if (len < n)
		return "short";
	if (memcmp(got, exp, (size_t)n))
		return "changed";
	for (int i = n; i < len; i++)
		if (got[i])
			return "padding-not-zero";
	return "sent";
}

static void qp_on(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, NULL, &a))
		fail("rdma_create_qp: %s", strerror(errno));
}

/* A client id resolved to the listener, with a QP. */
static struct rdma_cm_id *client(void)
{
	struct sockaddr_in src = sin_of(ip1, 0), dst = sin_of(ip0, port);
	struct rdma_cm_id *id;
	struct ev e;

	if (rdma_create_id(cch, &id, NULL, RDMA_PS_TCP)) {
		fail("rdma_create_id: %s", strerror(errno));
		return NULL;
	}
	if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) ||
	    want(cch, RDMA_CM_EVENT_ADDR_RESOLVED, &e, "client") || rdma_resolve_route(id, 2000) ||
	    want(cch, RDMA_CM_EVENT_ROUTE_RESOLVED, &e, "client")) {
		rdma_destroy_id(id);
		return NULL;
	}
	qp_on(id);
	return id;
}

static void destroy(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

/* The client disconnects (DREQ); the server sees DISCONNECTED and disconnects too (its DREP, without which the
 * client would wait for its request to time out); the client sees DISCONNECTED; then both are destroyed. */
static void teardown(struct rdma_cm_id *c, struct rdma_cm_id *s, const char *what)
{
	struct ev e;

	if (c && s) {
		char who[80];

		rdma_disconnect(c);
		snprintf(who, sizeof(who), "%s (server)", what);
		want(sch, RDMA_CM_EVENT_DISCONNECTED, &e, who);
		rdma_disconnect(s);
		snprintf(who, sizeof(who), "%s (client)", what);
		want(cch, RDMA_CM_EVENT_DISCONNECTED, &e, who);
	}
	destroy(c);
	destroy(s);
}

enum reply { ACCEPT, REJECT };

/* One connection: a REQ with rlen bytes; the server answers with a REP or REJ of alen bytes (garbage or a
 * pattern). Prints what each side saw. */
static void one(const char *name, int rlen, enum reply how, int alen, int garbage)
{
	uint8_t req[256], ans[256];
	struct rdma_conn_param p;
	struct rdma_cm_id *c = client(), *s = NULL;
	struct ev e, se;
	char line[512];
	int r, err;

	if (!c)
		return;
	fill(req, rlen, rlen, 0);
	memset(&p, 0, sizeof(p));
	p.private_data = rlen ? req : NULL;
	p.private_data_len = (uint8_t)rlen;
	p.responder_resources = p.initiator_depth = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	errno = 0;
	r = rdma_connect(c, &p);
	err = errno;
	if (r) {
		printf("CM %s connect=-1 errno=%d\n", name, err);
		destroy(c);
		return;
	}
	if (want(sch, RDMA_CM_EVENT_CONNECT_REQUEST, &se, name)) {
		destroy(c);
		return;
	}
	s = se.id;
	int n = snprintf(line, sizeof(line), "CM %s req:len=%d,%s", name, se.plen,
			 match(se.pdata, se.plen, rlen, rlen, 0));
	fill(ans, alen, alen + 1000, garbage);
	errno = 0;
	if (how == ACCEPT) {
		qp_on(s);
		memset(&p, 0, sizeof(p));
		p.private_data = alen ? ans : NULL;
		p.private_data_len = (uint8_t)alen;
		p.responder_resources = p.initiator_depth = 1;
		p.retry_count = 7;
		p.rnr_retry_count = 7;
		r = rdma_accept(s, &p);
	} else {
		r = rdma_reject(s, alen ? ans : NULL, (uint8_t)alen);
	}
	err = errno;
	n += snprintf(line + n, sizeof(line) - (size_t)n, " %s=%d", how == ACCEPT ? "accept" : "reject", r ? -err : 0);
	if (r) {
		/* The answer did not go: the request is refused without data, the client learns it. */
		rdma_reject(s, NULL, 0);
		if (!get_ev(cch, &e))
			n += snprintf(line + n, sizeof(line) - (size_t)n, " cli:%s,status=%d,len=%d",
				      rdma_event_str(e.type), e.status, e.plen);
		printf("%s\n", line);
		destroy(c);
		destroy(s);
		return;
	}
	if (get_ev(cch, &e)) {
		fail("%s: the client got no answer", name);
		destroy(c);
		destroy(s);
		return;
	}
	n += snprintf(line + n, sizeof(line) - (size_t)n, " cli:%s,status=%d,len=%d,%s", rdma_event_str(e.type), e.status,
		      e.plen, match(e.pdata, e.plen, alen, alen + 1000, garbage));
	if (how == ACCEPT && e.type == RDMA_CM_EVENT_ESTABLISHED) {
		if (!get_ev(sch, &se))
			n += snprintf(line + n, sizeof(line) - (size_t)n, " srv:%s,len=%d", rdma_event_str(se.type), se.plen);
		printf("%s\n", line);
		teardown(c, s, name);
		return;
	}
	printf("%s\n", line);
	destroy(c);
	destroy(s);
}

/* Every STEP-th length of 0..max+1, the limits always. */
static int take(int len, int max)
{
	return len <= 1 || len >= max - 1 || len % step == 0;
}

/* STORM connections; then the server disconnects every one and the client the first half at the same time (the
 * requests cross); a client id of the second half answers its DISCONNECTED with rdma_disconnect (the DREP the
 * server waits for), as applications do. Each id must see one DISCONNECTED, no more; a second rdma_disconnect's
 * answer is printed. */
static void storm(void)
{
	struct rdma_cm_id *c[STORM], *s[STORM];
	int cn[STORM] = { 0 }, sn[STORM] = { 0 }, other = 0, lost = 0, dup = 0, r, err;
	struct rdma_conn_param p;
	struct ev e;

	for (int i = 0; i < storm_n; i++) {
		c[i] = client();
		s[i] = NULL;
		if (!c[i])
			return;
		memset(&p, 0, sizeof(p));
		p.responder_resources = p.initiator_depth = 1;
		p.retry_count = p.rnr_retry_count = 7;
		if (rdma_connect(c[i], &p) || want(sch, RDMA_CM_EVENT_CONNECT_REQUEST, &e, "storm"))
			return;
		s[i] = e.id;
		qp_on(s[i]);
		if (rdma_accept(s[i], &p) || want(cch, RDMA_CM_EVENT_ESTABLISHED, &e, "storm") ||
		    want(sch, RDMA_CM_EVENT_ESTABLISHED, &e, "storm"))
			return;
	}
	for (int i = 0; i < storm_n; i++) {
		rdma_disconnect(s[i]);
		if (i < storm_n / 2)
			rdma_disconnect(c[i]);
	}
	/* Until every id has its event, or nothing comes for the wait. */
	for (int got = 0; got < 2 * storm_n;) {
		struct pollfd pf[2] = { { .fd = sch->fd, .events = POLLIN }, { .fd = cch->fd, .events = POLLIN } };

		if (poll(pf, 2, wait_ms) <= 0)
			break;
		for (int k = 0; k < 2; k++) {
			if (!pf[k].revents || get_ev(k ? cch : sch, &e))
				continue;
			int *cnt = k ? cn : sn, found = 0;
			for (int i = 0; i < storm_n; i++)
				if (e.id == (k ? c[i] : s[i])) {
					if (e.type == RDMA_CM_EVENT_DISCONNECTED) {
						cnt[i]++;
						got++;
						if (k && i >= storm_n / 2 && cnt[i] == 1)
							rdma_disconnect(c[i]);
					} else if (e.type != RDMA_CM_EVENT_TIMEWAIT_EXIT) {
						other++;
					}
					found = 1;
				}
			if (!found && e.type != RDMA_CM_EVENT_TIMEWAIT_EXIT)
				other++;
		}
	}
	/* A second DISCONNECTED coming late, within a short while (TIMEWAIT_EXIT, which the kernel sends once an id's
	 * QP leaves its time-wait, depends on timing and is not counted). */
	usleep(300000);
	for (;;) {
		struct pollfd pf[2] = { { .fd = sch->fd, .events = POLLIN }, { .fd = cch->fd, .events = POLLIN } };
		if (poll(pf, 2, 0) <= 0)
			break;
		for (int k = 0; k < 2; k++)
			if (pf[k].revents && !get_ev(k ? cch : sch, &e) && e.type == RDMA_CM_EVENT_DISCONNECTED)
				dup++;
	}
	for (int i = 0; i < storm_n; i++) {
		lost += (cn[i] == 0) + (sn[i] == 0);
		dup += (cn[i] > 1) + (sn[i] > 1);
	}
	errno = 0;
	r = rdma_disconnect(s[0]);
	err = errno;
	printf("CM storm ids=%d lost=%d duplicated=%d other-events=%d second-disconnect=%d\n", 2 * storm_n, lost, dup,
	       other, r ? -err : 0);
	if (lost)
		fail("storm: %d ids never saw DISCONNECTED", lost);
	for (int i = 0; i < storm_n; i++) {
		destroy(c[i]);
		destroy(s[i]);
	}
}

int main(void)
{
	struct sockaddr_in me;
	char name[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	ip0 = getenv("RDMA_TEST_IP0") ? getenv("RDMA_TEST_IP0") : "198.18.0.1";
	ip1 = getenv("RDMA_TEST_IP1") ? getenv("RDMA_TEST_IP1") : "198.18.0.2";
	port = getenv("HOSTILE_CM_PORT") ? atoi(getenv("HOSTILE_CM_PORT")) : 7990;
	if (getenv("HOSTILE_CM_WAIT_MS"))
		wait_ms = atoi(getenv("HOSTILE_CM_WAIT_MS"));
	if (getenv("HOSTILE_CM_STORM") && atoi(getenv("HOSTILE_CM_STORM")) > 0 && atoi(getenv("HOSTILE_CM_STORM")) <= STORM)
		storm_n = atoi(getenv("HOSTILE_CM_STORM"));
	if (getenv("HOSTILE_CM_STEP"))
		step = atoi(getenv("HOSTILE_CM_STEP")) > 0 ? atoi(getenv("HOSTILE_CM_STEP")) : 1;
	alarm(600);
	me = sin_of(ip0, port);
	sch = rdma_create_event_channel();
	cch = rdma_create_event_channel();
	if (!sch || !cch || rdma_create_id(sch, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, (struct sockaddr *)&me) || rdma_listen(listener, 64)) {
		fail("listen: %s", strerror(errno));
		return 1;
	}
	/* The request's private data, 0 .. one past the limit, rejected with nothing. */
	for (int l = 0; l <= REQ_MAX + 1; l++)
		if (take(l, REQ_MAX)) {
			snprintf(name, sizeof(name), "req-%d", l);
			one(name, l, REJECT, 0, 0);
		}
	/* The reject's, 0 .. one past, with a pattern and with garbage. */
	for (int l = 0; l <= REJ_MAX + 1; l++)
		if (take(l, REJ_MAX)) {
			snprintf(name, sizeof(name), "rej-%d", l);
			one(name, 8, REJECT, l, l & 1);
		}
	/* The reply's, 0 .. one past. */
	for (int l = 0; l <= REP_MAX + 1; l++)
		if (take(l, REP_MAX)) {
			snprintf(name, sizeof(name), "rep-%d", l);
			one(name, 8, ACCEPT, l, l & 1);
		}
	storm();
	rdma_destroy_id(listener);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
	if (!failed)
		printf("PASS cm-done\n");
	return failed ? 1 : 0;
}
