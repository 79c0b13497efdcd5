/* fault_load: faults under load (issue 15), one scenario per run: `fault_load SCENARIO`.
 *
 *   kill-verbs    the peer process (verbs-connected RC, rxe1) is SIGKILLed mid-transfer
 *   kill-verbs-ex the same, the survivor posting with ibv_wr_* (ibv_qp_ex) and polling an ibv_cq_ex
 *   kill-verbs-channel  the same, the survivor sleeping on a completion channel between completions
 *   kill-cm       the same with a CM-connected peer (server in the child, client here)
 *   kill-cm-server  the CM client process is SIGKILLed while this server receives: DISCONNECTED, then
 *                 rdma_disconnect flushes every outstanding receive
 *   rnr           SENDs to a peer without receives, rnr_retry 0
 *   retry         RDMA Writes to a destroyed peer QP and to a peer QP in ERROR (small timeout and retry_cnt)
 *   cq-overrun    a 4-entry send CQ nobody polls receives more completions than it holds
 *   fork          fork() (child touches memory, opens its own context in some rounds, execs or exits) while
 *                 registered buffers carry traffic
 *                 (run with RDMAV_FORK_SAFE=1)
 *   port          rxe1's netdev (RDMA_TEST_NETDEV1, default veth1) taken down and up under traffic
 *   remove-verbs  `rdma link delete rxe1` while a QP on it moves data (verbs)
 *   remove-cm     the same under a CM connection (the server's ids are on rxe1, its QP on librdmacm's own PD and
 *                 CQs)
 *
 * The remove-* scenarios delete rxe1 and re-create it (`rdma link add`, as tests/guest/setup-rdma.sh does); when one
 * stops before that, the guest case (tests/guest/cases/56-faults.sh) re-creates it. With RDMAV_PROVIDER=plugin and
 * our libibverbs, a last check proves that rdma-core's rxe plug-in served the devices.
 *
 * Every check prints PASS/FAIL (testutil.h conventions). Each scenario also prints one line
 *   # outcome SCENARIO: key=value ...
 * holding only what does not depend on timing (completion status sequence without counts, events, states, errnos);
 * the guest case runs every scenario against rdma-core 44 too and requires the two outcome lines to be equal.
 *
 * The traffic ("pump") keeps WINDOW signalled work requests outstanding, numbered 1..n as wr_id, and stops posting
 * at the first error completion (or a bounded time after the fault); then it drains until every posted WR has
 * completed. "Each WR exactly once" means: every wr_id 1..n completed once, none twice, none unknown.
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define PROG "fault_load"
#define WINDOW 16
#define MAXWR 20000
#define MSG 1024

static const char *scen = "?";
static char outcome[1024];

static void out_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out_add(const char *fmt, ...)
{
	size_t n = strlen(outcome);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(outcome + n, sizeof(outcome) - n, fmt, ap);
	va_end(ap);
}

/* "scen/name" for check names. */
static const char *nm(const char *name)
{
	static char bufs[4][128];
	static int next;
	char *b = bufs[next++ & 3];

	snprintf(b, sizeof(bufs[0]), "%s/%s", scen, name);
	return b;
}

static const char *st_name(int s)
{
	static char buf[32];

	switch (s) {
	case IBV_WC_SUCCESS: return "SUCCESS";
	case IBV_WC_LOC_LEN_ERR: return "LOC_LEN_ERR";
	case IBV_WC_LOC_QP_OP_ERR: return "LOC_QP_OP_ERR";
	case IBV_WC_LOC_PROT_ERR: return "LOC_PROT_ERR";
	case IBV_WC_WR_FLUSH_ERR: return "WR_FLUSH_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "REM_ACCESS_ERR";
	case IBV_WC_REM_OP_ERR: return "REM_OP_ERR";
	case IBV_WC_RETRY_EXC_ERR: return "RETRY_EXC_ERR";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "RNR_RETRY_EXC_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "REM_INV_REQ_ERR";
	case IBV_WC_FATAL_ERR: return "FATAL_ERR";
	case IBV_WC_GENERAL_ERR: return "GENERAL_ERR";
	default:
		snprintf(buf, sizeof(buf), "status%d", s);
		return buf;
	}
}

static const char *qps_name(int s)
{
	static const char *n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return s >= 0 && s <= 6 ? n[s] : "?";
}

/* ---- completion bookkeeping ------------------------------------------------------------------------------------ */

struct track {
	uint64_t posted, done, dup, unknown;
	uint8_t seen[MAXWR + 1];
	int nstat[32];
	char seq[256];  /* the status sequence, consecutive repeats folded: "SUCCESS,RETRY_EXC_ERR,WR_FLUSH_ERR" */
	int last;       /* last status seen, -1 before the first */
	int first_err;  /* first error status, -1 if none */
	uint64_t succ_after_err;
};

static void track_init(struct track *t)
{
	memset(t, 0, sizeof(*t));
	t->last = -1;
	t->first_err = -1;
}

static void track_wc(struct track *t, const struct ibv_wc *wc)
{
	if (wc->wr_id == 0 || wc->wr_id > t->posted) {
		t->unknown++;
		return;
	}
	if (t->seen[wc->wr_id]++)
		t->dup++;
	t->done++;
	if (wc->status < 32)
		t->nstat[wc->status]++;
	if ((int)wc->status != t->last) {
		size_t n = strlen(t->seq);

		snprintf(t->seq + n, sizeof(t->seq) - n, "%s%s", n ? "," : "", st_name(wc->status));
		t->last = wc->status;
	}
	if (wc->status != IBV_WC_SUCCESS && t->first_err < 0)
		t->first_err = wc->status;
	else if (wc->status == IBV_WC_SUCCESS && t->first_err >= 0)
		t->succ_after_err++;
}

static uint64_t track_missing(const struct track *t)
{
	uint64_t i, m = 0;

	for (i = 1; i <= t->posted; i++)
		m += !t->seen[i];
	return m;
}

/* The "each WR completed exactly once" check. */
static void check_once(struct track *t)
{
	uint64_t missing = track_missing(t);

	CHECK(nm("each-wr-once"), missing == 0 && t->dup == 0 && t->unknown == 0 && t->done == t->posted,
	      "posted %llu, completed %llu, missing %llu, duplicated %llu, unknown wr_id %llu (statuses %s)",
	      (unsigned long long)t->posted, (unsigned long long)t->done, (unsigned long long)missing,
	      (unsigned long long)t->dup, (unsigned long long)t->unknown, t->seq);
}

/* The error completions: successes, then exactly one `want`, then only flushes (none when nothing was left). */
static void check_error_seq(struct track *t, int want)
{
	char exp1[128], exp2[128], exp3[128], exp4[128];

	snprintf(exp1, sizeof(exp1), "SUCCESS,%s,WR_FLUSH_ERR", st_name(want));
	snprintf(exp2, sizeof(exp2), "SUCCESS,%s", st_name(want));
	snprintf(exp3, sizeof(exp3), "%s,WR_FLUSH_ERR", st_name(want));
	snprintf(exp4, sizeof(exp4), "%s", st_name(want));
	CHECK(nm("error-completions"),
	      t->nstat[want] == 1 && (!strcmp(t->seq, exp1) || !strcmp(t->seq, exp2) || !strcmp(t->seq, exp3) ||
				      !strcmp(t->seq, exp4)),
	      "statuses %s (%d x %s, %d x WR_FLUSH_ERR, %d x SUCCESS); want successes, one %s, then flushes", t->seq,
	      t->nstat[want], st_name(want), t->nstat[IBV_WC_WR_FLUSH_ERR], t->nstat[IBV_WC_SUCCESS], st_name(want));
}

/* ---- traffic ---------------------------------------------------------------------------------------------------- */

struct pump {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	enum ibv_wr_opcode op;
	uint8_t *buf;
	uint32_t lkey;
	uint64_t raddr;
	uint32_t rkey;
	uint64_t max;           /* WRs to post at most */
	uint64_t trigger_at;    /* successful completions before the fault (0: no fault) */
	void (*trigger)(void *);
	void *arg;
	void (*tick)(void *);   /* called on every loop turn (e.g. a peer reposting receives) */
	unsigned post_ms;       /* stop posting this long after the fault */
	unsigned drain_ms;      /* then wait this long at most for the rest */
	struct ibv_qp_ex *qpx;  /* when set: post with ibv_wr_* on qpx and poll cqx with ibv_start_poll */
	struct ibv_cq_ex *cqx;
	int bad_opcode;         /* ex: successful completions whose ibv_wc_read_opcode is not the posted one */
	struct ibv_comp_channel *ch; /* when set: an idle CQ is armed and waited for on this channel */
	int cq_events, bad_events;   /* events taken (and acknowledged); events naming another CQ */
	int post_err;           /* first ibv_post_send error */
	int triggered;
	int drained;            /* every posted WR completed */
};

/* Up to max completions of p->cqx through the extended CQ API, copied into wc (wr_id, status, opcode). Returns how
 * many, or a negative errno when ibv_start_poll/ibv_next_poll fail otherwise than ENOENT. */
static int poll_ex(struct pump *p, struct ibv_wc *wc, int max)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	int ret, n = 0;

	ret = ibv_start_poll(p->cqx, &pa);
	if (ret == ENOENT)
		return 0;
	if (ret)
		return -ret;
	for (;;) {
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = p->cqx->wr_id;
		wc[n].status = p->cqx->status;
		if (wc[n].status == IBV_WC_SUCCESS && ibv_wc_read_opcode(p->cqx) != IBV_WC_RDMA_WRITE)
			p->bad_opcode++;
		if (++n == max)
			break;
		ret = ibv_next_poll(p->cqx);
		if (ret == ENOENT)
			break;
		if (ret) {
			ibv_end_poll(p->cqx);
			return -ret;
		}
	}
	ibv_end_poll(p->cqx);
	return n;
}

/* Event-driven idling: arms the CQ and waits (100 ms at most) for its completion event, which it acknowledges. */
static void wait_channel(struct pump *p)
{
	struct pollfd pf = { .fd = p->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;

	if (ibv_req_notify_cq(p->cq, 0))
		return;
	if (poll(&pf, 1, 100) != 1 || ibv_get_cq_event(p->ch, &cq, &cq_ctx))
		return;
	p->cq_events++;
	if (cq != p->cq)
		p->bad_events++;
	ibv_ack_cq_events(cq, 1);
}

static void pump_run(struct pump *p, struct track *t)
{
	struct ibv_wc wc[16];
	uint64_t t_fault = 0, t_stop = 0;
	int posting = 1;

	for (;;) {
		uint64_t now = tu_now_ms();
		int n, i;

		if (posting && (p->post_err || t->first_err >= 0 || t->posted >= p->max ||
				(t_fault && now > t_fault + p->post_ms))) {
			posting = 0;
			t_stop = now;
		}
		while (posting && t->posted - t->done < WINDOW && t->posted < MAXWR) {
			uint64_t id = t->posted + 1;
			uint32_t off = (uint32_t)(id % 32) * MSG;
			int ret;

			if (p->qpx) {
				ibv_wr_start(p->qpx);
				p->qpx->wr_id = id;
				p->qpx->wr_flags = IBV_SEND_SIGNALED;
				ibv_wr_rdma_write(p->qpx, p->rkey, p->raddr + off);
				ibv_wr_set_sge(p->qpx, p->lkey, (uintptr_t)p->buf + off, MSG);
				ret = ibv_wr_complete(p->qpx);
			} else {
				ret = tu_post_send1(p->qp, id, p->op, p->buf + off, MSG, p->lkey, p->raddr + off, p->rkey,
						    IBV_SEND_SIGNALED);
			}

			if (ret) {
				p->post_err = ret;
				break;
			}
			t->posted = id;
		}
		n = p->cqx ? poll_ex(p, wc, 16) : ibv_poll_cq(p->cq, 16, wc);
		if (n < 0) {
			tu_fail(nm("poll"), "%s returned %d", p->cqx ? "ibv_start_poll/ibv_next_poll" : "ibv_poll_cq", n);
			return;
		}
		for (i = 0; i < n; i++)
			track_wc(t, &wc[i]);
		if (p->tick)
			p->tick(p->arg);
		if (!p->triggered && p->trigger && t->nstat[IBV_WC_SUCCESS] >= (int)p->trigger_at) {
			p->triggered = 1;
			p->trigger(p->arg);
			t_fault = tu_now_ms();
		}
		if (!posting && t->done >= t->posted) {
			p->drained = 1;
			return;
		}
		if (!posting && tu_now_ms() > t_stop + p->drain_ms)
			return;
		if (n == 0 && p->ch)
			wait_channel(p);
		else if (n == 0)
			sched_yield();
	}
}

/* ---- QPs with chosen timeouts ------------------------------------------------------------------------------------ */

/* INIT -> RTR -> RTS of an RC QP with the given local ACK timeout, retry counts and min RNR timer. */
static int rc_connect(struct ibv_qp *qp, uint32_t rqpn, const union ibv_gid *rgid, int sgid, uint32_t psn,
		      uint32_t rpsn, int timeout, int retry, int rnr_retry)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = rqpn;
	a.rq_psn = rpsn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	tu_ah_attr(&a.ah_attr, rgid, sgid);
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn;
	a.timeout = (uint8_t)timeout;
	a.retry_cnt = (uint8_t)retry;
	a.rnr_retry = (uint8_t)rnr_retry;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					     IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Two endpoints (rxe0, rxe1) with RC QPs connected; a's QP gets the given timeout/retry/rnr_retry. */
static const char *pair_open(struct tu_ep *a, struct tu_ep *b, int timeout, int retry, int rnr_retry)
{
	const char *why;
	int ret;

	if ((why = tu_ep_open(a, 0)) || (why = tu_ep_open(b, 1)))
		return why;
	if ((why = tu_ep_qp(a, IBV_QPT_RC, NULL, 0)) || (why = tu_ep_qp(b, IBV_QPT_RC, NULL, 0)))
		return why;
	if ((ret = tu_qp_init(a->qp, IBV_QPT_RC)) || (ret = tu_qp_init(b->qp, IBV_QPT_RC)) ||
	    (ret = rc_connect(a->qp, b->qp->qp_num, &b->gid, a->gid_index, 0x100, 0x200, timeout, retry, rnr_retry)) ||
	    (ret = rc_connect(b->qp, a->qp->qp_num, &a->gid, b->gid_index, 0x200, 0x100, 14, 7, 7))) {
		errno = ret;
		return "ibv_modify_qp";
	}
	return NULL;
}

static int qp_state_of(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (!qp || ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Reads every async event that arrives on ctx within ms (stops early at `until`, if >= 0, once seen), acks them and
 * appends their names to out ("none" if nothing). Returns 1 if `until` was seen. */
static int events(struct ibv_context *ctx, unsigned ms, int until, char *out, size_t len,
		  struct ibv_async_event *first_until)
{
	uint64_t deadline = tu_now_ms() + ms;
	int seen = 0;

	*out = 0;
	for (;;) {
		struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
		struct ibv_async_event ev;
		int64_t left = (int64_t)(deadline - tu_now_ms());

		if (left <= 0 || (seen && until >= 0))
			break;
		if (poll(&p, 1, (int)left) != 1)
			continue;
		if (ibv_get_async_event(ctx, &ev)) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			snprintf(out + strlen(out), len - strlen(out), "%sread-error-%s", *out ? "," : "",
				 tu_errname(errno));
			break;
		}
		snprintf(out + strlen(out), len - strlen(out), "%s%s", *out ? "," : "", ibv_event_type_str(ev.event_type));
		if ((int)ev.event_type == until && !seen) {
			seen = 1;
			if (first_until)
				*first_until = ev;
		}
		ibv_ack_async_event(&ev);
	}
	if (!*out)
		snprintf(out, len, "none");
	for (char *c = out; *c; c++)
		if (*c == ' ')
			*c = '_';
	return seen;
}

/* ---- rnr ------------------------------------------------------------------------------------------------------- */

static void s_rnr(void)
{
	struct tu_ep a, b;
	struct track t;
	struct ibv_wc wc[32];
	const char *why;
	int i, got;

	track_init(&t);
	if ((why = pair_open(&a, &b, 14, 7, 0))) {
		tu_fail(nm("setup"), "%s: %s", why, tu_errname(errno));
		goto out;
	}
	/* 16 SENDs, and no receive at the peer: the first meets an RNR NAK, rnr_retry 0 gives up at once. */
	for (i = 1; i <= 16; i++) {
		if (tu_post_send1(a.qp, i, IBV_WR_SEND, a.buf, 64, a.mr->lkey, 0, 0, IBV_SEND_SIGNALED))
			break;
		t.posted = i;
	}
	got = tu_poll(a.scq, wc, (int)t.posted, 10000);
	for (i = 0; i < got; i++)
		track_wc(&t, &wc[i]);
	check_once(&t);
	CHECK(nm("rnr-retry-exceeded-then-flush"),
	      t.nstat[IBV_WC_RNR_RETRY_EXC_ERR] == 1 && t.nstat[IBV_WC_WR_FLUSH_ERR] == (int)t.posted - 1 &&
		      !strcmp(t.seq, "RNR_RETRY_EXC_ERR,WR_FLUSH_ERR"),
	      "statuses %s: %d x RNR_RETRY_EXC_ERR, %d x WR_FLUSH_ERR of %llu", t.seq, t.nstat[IBV_WC_RNR_RETRY_EXC_ERR],
	      t.nstat[IBV_WC_WR_FLUSH_ERR], (unsigned long long)t.posted);
	CHECK(nm("qp-error"), qp_state_of(a.qp) == IBV_QPS_ERR, "sender QP state %s", qps_name(qp_state_of(a.qp)));
	got = tu_poll(b.rcq, wc, 1, 300);
	CHECK(nm("nothing-received"), got == 0, "%d receive completions at the peer", got);
	out_add("statuses=%s rnr=%d flushed=%d sender_qp=%s peer_qp=%s", t.seq, t.nstat[IBV_WC_RNR_RETRY_EXC_ERR],
		t.nstat[IBV_WC_WR_FLUSH_ERR], qps_name(qp_state_of(a.qp)), qps_name(qp_state_of(b.qp)));
out:
	tu_ep_close(&a);
	tu_ep_close(&b);
}

/* ---- retry ----------------------------------------------------------------------------------------------------- */

static void retry_one(const char *sub, int destroy)
{
	struct tu_ep a, b;
	struct track t;
	struct ibv_wc wc[32];
	const char *why, *old = scen;
	char name[64];
	int i, got, ret;

	snprintf(name, sizeof(name), "%s/%s", old, sub);
	scen = name;
	track_init(&t);
	/* timeout 12 (about 17 ms), retry_cnt 2: a silent peer is given up quickly. */
	if ((why = pair_open(&a, &b, 12, 2, 7))) {
		tu_fail(nm("setup"), "%s: %s", why, tu_errname(errno));
		goto out;
	}
	for (i = 1; i <= 4; i++)
		tu_post_send1(a.qp, 1000 + i, IBV_WR_RDMA_WRITE, a.buf, MSG, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
			      IBV_SEND_SIGNALED);
	got = tu_poll(a.scq, wc, 4, 5000);
	for (i = 0; i < got && wc[i].status == IBV_WC_SUCCESS; i++)
		;
	if (!CHECK(nm("traffic-before"), got == 4 && i == 4, "%d of 4 writes succeeded before the fault", i))
		goto out;
	if (destroy) {
		ret = ibv_destroy_qp(b.qp);
		b.qp = NULL;
	} else {
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };

		ret = ibv_modify_qp(b.qp, &qa, IBV_QP_STATE);
	}
	if (!CHECK(nm("fault"), ret == 0, "%s: %s", destroy ? "ibv_destroy_qp" : "ibv_modify_qp(ERR)", tu_errname(ret)))
		goto out;
	for (i = 1; i <= 16; i++) {
		if (tu_post_send1(a.qp, i, IBV_WR_RDMA_WRITE, a.buf, MSG, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
				  IBV_SEND_SIGNALED))
			break;
		t.posted = i;
	}
	got = tu_poll(a.scq, wc, (int)t.posted, 15000);
	for (i = 0; i < got; i++)
		track_wc(&t, &wc[i]);
	check_once(&t);
	CHECK(nm("retry-exceeded-then-flush"),
	      t.nstat[IBV_WC_RETRY_EXC_ERR] == 1 && t.nstat[IBV_WC_WR_FLUSH_ERR] == (int)t.posted - 1 &&
		      !strcmp(t.seq, "RETRY_EXC_ERR,WR_FLUSH_ERR"),
	      "statuses %s: %d x RETRY_EXC_ERR, %d x WR_FLUSH_ERR of %llu", t.seq, t.nstat[IBV_WC_RETRY_EXC_ERR],
	      t.nstat[IBV_WC_WR_FLUSH_ERR], (unsigned long long)t.posted);
	CHECK(nm("qp-error"), qp_state_of(a.qp) == IBV_QPS_ERR, "sender QP state %s", qps_name(qp_state_of(a.qp)));
	out_add("%s: statuses=%s retry=%d flushed=%d sender_qp=%s ", sub, t.seq, t.nstat[IBV_WC_RETRY_EXC_ERR],
		t.nstat[IBV_WC_WR_FLUSH_ERR], qps_name(qp_state_of(a.qp)));
out:
	scen = old;
	tu_ep_close(&a);
	tu_ep_close(&b);
}

static void s_retry(void)
{
	retry_one("peer-destroyed", 1);
	retry_one("peer-error", 0);
}

/* ---- cq-overrun ------------------------------------------------------------------------------------------------ */

static void s_cq_overrun(void)
{
	struct tu_ep a, b;
	struct ibv_cq *small = NULL;
	struct ibv_qp_init_attr ia;
	struct ibv_async_event ev;
	struct ibv_wc wc[64];
	char evs[256], more[256];
	int cookie = 0, i, n, posted = 0, polled, seen;
	const char *why;

	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1))) {
		tu_fail(nm("setup"), "%s: %s", why, tu_errname(errno));
		goto out;
	}
	set_nonblock(a.ctx->async_fd);
	small = ibv_create_cq(a.ctx, 4, &cookie, NULL, 0);
	if (!small) {
		tu_fail(nm("setup"), "ibv_create_cq(4): %s", tu_errname(errno));
		goto out;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = small;
	ia.recv_cq = a.rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	a.qp = ibv_create_qp(a.pd, &ia);
	if (!a.qp || (why = tu_ep_qp(&b, IBV_QPT_RC, NULL, 0)) || tu_qp_init(a.qp, IBV_QPT_RC) ||
	    tu_qp_init(b.qp, IBV_QPT_RC) ||
	    rc_connect(a.qp, b.qp->qp_num, &b.gid, a.gid_index, 0x100, 0x200, 14, 7, 7) ||
	    rc_connect(b.qp, a.qp->qp_num, &a.gid, b.gid_index, 0x200, 0x100, 14, 7, 7)) {
		tu_fail(nm("setup"), "QPs: %s", tu_errname(errno));
		goto out;
	}
	/* Twice the CQ's real size plus some, all signalled, nobody polls. */
	for (i = 1; i <= 2 * small->cqe + 8 && i <= 60; i++) {
		if (tu_post_send1(a.qp, i, IBV_WR_RDMA_WRITE, a.buf, MSG, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
				  IBV_SEND_SIGNALED))
			break;
		posted = i;
	}
	memset(&ev, 0, sizeof(ev));
	seen = events(a.ctx, 5000, IBV_EVENT_CQ_ERR, evs, sizeof(evs), &ev);
	CHECK(nm("cq_err-event"), seen && ev.element.cq == small && small->cq_context == &cookie,
	      "cqe %d, %d signalled writes; events %s; element.cq %p (want %p)", small->cqe, posted, evs,
	      seen ? (void *)ev.element.cq : NULL, (void *)small);
	/* What else the overrun raised, within a second. */
	events(a.ctx, 1000, -1, more, sizeof(more), NULL);
	CHECK(nm("cq_err-acked"), !seen || small->async_events_completed >= 1, "cq->async_events_completed %u",
	      small->async_events_completed);
	polled = 0;
	while ((n = ibv_poll_cq(small, 64, wc)) > 0)
		polled += n;
	CHECK(nm("cq-still-pollable"), n == 0 && polled <= small->cqe, "polled %d of cqe %d, last poll %d", polled,
	      small->cqe, n);
	out_add("cqe=%d posted=%d events=%s later_events=%s polled=%d sender_qp=%s", small->cqe, posted, evs, more,
		polled, qps_name(qp_state_of(a.qp)));
	CHECK(nm("destroy"), ibv_destroy_qp(a.qp) == 0 && ibv_destroy_cq(small) == 0, "destroying the QP or CQ failed");
	a.qp = NULL;
	small = NULL;
out:
	if (a.qp) {
		ibv_destroy_qp(a.qp);
		a.qp = NULL;
	}
	if (small)
		ibv_destroy_cq(small);
	tu_ep_close(&a);
	tu_ep_close(&b);
}

/* ---- fork ------------------------------------------------------------------------------------------------------ */

static int child_exec;

static int fork_round(struct tu_ep *a, struct tu_ep *b, int round, char *why, size_t wlen)
{
	struct ibv_wc wc;
	pid_t pid;
	int st, i;

	/* A write in flight while the process forks. */
	tu_fill(a->buf, 16384, (unsigned)round);
	if (tu_post_send1(a->qp, 2 * round + 1, IBV_WR_RDMA_WRITE, a->buf, 16384, a->mr->lkey, (uintptr_t)b->buf,
			  b->mr->rkey, IBV_SEND_SIGNALED))
		return snprintf(why, wlen, "post_send before fork failed"), -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return snprintf(why, wlen, "fork: %s", tu_errname(errno)), -1;
	if (pid == 0) {
		/* The child touches memory of its own (heap, stack), then execs or exits. */
		volatile char stack[8192];
		char *heap = malloc(1 << 20);

		alarm(0);
		if (!heap)
			_exit(2);
		memset(heap, round, 1 << 20);
		for (i = 0; i < (int)sizeof(stack); i++)
			stack[i] = (char)i;
		if (heap[12345] != (char)round || stack[100] != 100)
			_exit(3);
		if (round % 4 == 2) {
			/* A child may use verbs of its own: a new context, PD and MR. */
			struct ibv_context *ctx = tu_open(tu_dev_name[0]);
			struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
			struct ibv_mr *mr = pd ? ibv_reg_mr(pd, heap, 1 << 20, IBV_ACCESS_LOCAL_WRITE) : NULL;

			if (!mr || ibv_dereg_mr(mr) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
				_exit(5);
		}
		if (child_exec) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(4);
		}
		_exit(0);
	}
	if (tu_poll1(a->scq, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
		return snprintf(why, wlen, "round %d: write in flight at fork: %s", round, tu_wc_str(&wc)), -1;
	if (tu_diff(a->buf, b->buf, 16384) >= 0)
		return snprintf(why, wlen, "round %d: peer's bytes differ after the write in flight at fork", round), -1;
	/* The parent writes the registered buffer again while the child may still live (copy-on-write), sends it. */
	tu_fill(a->buf, 16384, (unsigned)round + 1000);
	if (tu_post_recv(b->qp, 2 * round + 2, b->buf + 16384, 16384, b->mr->lkey) ||
	    tu_post_send1(a->qp, 2 * round + 2, IBV_WR_SEND, a->buf, 16384, a->mr->lkey, 0, 0, IBV_SEND_SIGNALED))
		return snprintf(why, wlen, "round %d: posting after fork failed", round), -1;
	if (tu_poll1(a->scq, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
		return snprintf(why, wlen, "round %d: send after fork: %s", round, tu_wc_str(&wc)), -1;
	if (tu_poll1(b->rcq, &wc) != 1 || wc.status != IBV_WC_SUCCESS || wc.byte_len != 16384)
		return snprintf(why, wlen, "round %d: receive after fork: %s", round, tu_wc_str(&wc)), -1;
	if (tu_diff(a->buf, b->buf + 16384, 16384) >= 0)
		return snprintf(why, wlen, "round %d: received bytes are not what the parent wrote after fork", round),
		       -1;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return snprintf(why, wlen, "round %d: child %s status 0x%x", round, child_exec ? "(exec)" : "(exit)", st),
		       -1;
	return 0;
}

static void s_fork(void)
{
	struct tu_ep a, b;
	const char *why;
	char reason[256] = "";
	int r, ok = 1, ok_child = 0;
	enum ibv_fork_status fs;

	if ((why = pair_open(&a, &b, 14, 7, 7))) {
		tu_fail(nm("setup"), "%s: %s", why, tu_errname(errno));
		goto out;
	}
	fs = ibv_is_fork_initialized();
	CHECK(nm("fork-initialized"), fs == IBV_FORK_ENABLED || fs == IBV_FORK_UNNEEDED,
	      "ibv_is_fork_initialized() = %d with RDMAV_FORK_SAFE=%s", fs, getenv("RDMAV_FORK_SAFE") ?: "(unset)");
	for (r = 0; r < 20 && ok; r++) {
		child_exec = r & 1;
		if (fork_round(&a, &b, r, reason, sizeof(reason)))
			ok = 0;
	}
	CHECK(nm("parent-traffic-unharmed"), ok, "%s", reason);
	CHECK(nm("children-ran"), ok, "%s", reason);
	/* A child reading the parent's registered buffer: rdma-core 44's ibv_fork_init marked it MADV_DONTFORK (even
	 * where the kernel would copy pinned pages), so the child has no such mapping and faults. rdma-core 56 and
	 * later (and ours) leave the pages alone where the kernel copies them on fork (IBV_FORK_UNNEEDED): the child
	 * reads its copy. The outcome records whether the child did what its library's release prescribes. */
	{
		int marks = !(tu_lib_ge56() && fs == IBV_FORK_UNNEEDED);
		pid_t pid;
		int st = 0;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			alarm(0);
			signal(SIGSEGV, SIG_DFL);
			_exit(*(volatile uint8_t *)a.buf & 0);
		}
		if (pid > 0)
			waitpid(pid, &st, 0);
		snprintf(reason, sizeof(reason), "%s",
			 pid < 0 ? "fork-failed" : WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "read-it");
		for (char *c = reason; *c; c++)
			if (*c == ' ')
				*c = '_';
		if (marks)
			ok_child = CHECK(nm("child-reads-registered"), pid > 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
					 "a child reading the registered buffer: %s (want SIGSEGV: the range is MADV_DONTFORK)",
					 reason);
		else
			ok_child = CHECK(nm("child-reads-registered-copy"), pid > 0 && WIFEXITED(st) && !WEXITSTATUS(st),
					 "a child reading the registered buffer: %s (want its copy read: rdma-core 56 marks "
					 "nothing on a kernel that copies pinned pages)", reason);
	}
	out_add("fork_status=%s rounds_ok=%d child_reads_registered_as_its_release_says=%d",
		fs == IBV_FORK_ENABLED ? "ENABLED" : fs == IBV_FORK_UNNEEDED ? "UNNEEDED" : "DISABLED", ok, ok_child);
out:
	tu_ep_close(&a);
	tu_ep_close(&b);
}

/* ---- kill-verbs ------------------------------------------------------------------------------------------------ */

struct xinfo {
	uint32_t qpn, rkey;
	uint64_t addr;
	union ibv_gid gid;
	int err;
};

static pid_t victim;

static void kill_victim(void *arg)
{
	int st;

	(void)arg;
	kill(victim, SIGKILL);
	waitpid(victim, &st, 0);
	victim = 0;
}

static int full_read(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)p + got, n - got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* The survivor's endpoint with the extended objects: an ibv_cq_ex as its send CQ and an ibv_qp_ex posting RDMA
 * Writes with ibv_wr_*. NULL on success. */
static const char *ep_qp_ex(struct tu_ep *a, struct ibv_cq_ex **cqx, struct ibv_qp_ex **qpx)
{
	struct ibv_cq_init_attr_ex ca;
	struct ibv_qp_init_attr_ex qa;

	memset(&ca, 0, sizeof(ca));
	ca.cqe = 64;
	ca.wc_flags = IBV_WC_STANDARD_FLAGS;
	*cqx = ibv_create_cq_ex(a->ctx, &ca);
	if (!*cqx)
		return "ibv_create_cq_ex";
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = ibv_cq_ex_to_cq(*cqx);
	qa.recv_cq = a->rcq;
	qa.cap.max_send_wr = 32;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = a->pd;
	qa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND;
	a->qp = ibv_create_qp_ex(a->ctx, &qa);
	if (!a->qp)
		return "ibv_create_qp_ex";
	*qpx = ibv_qp_to_qp_ex(a->qp);
	return *qpx ? NULL : "ibv_qp_to_qp_ex";
}

static void kill_verbs(int ex);

static void s_kill_verbs(void)
{
	kill_verbs(0);
}

static void s_kill_verbs_ex(void)
{
	kill_verbs(1);
}

static void s_kill_verbs_channel(void)
{
	kill_verbs(2);
}

static void kill_verbs(int ex)
{
	struct ibv_cq_ex *cqx = NULL;
	struct ibv_qp_ex *qpx = NULL;
	struct ibv_comp_channel *ch = NULL;
	int p2c[2], c2p[2];
	struct tu_ep a;
	struct xinfo me, peer;
	struct track *t = calloc(1, sizeof(*t));
	struct pump p;
	char evs[256];
	char ready;
	const char *why;

	memset(&a, 0, sizeof(a));
	if (!t || pipe(p2c) || pipe(c2p)) {
		tu_fail(nm("setup"), "pipe");
		return;
	}
	track_init(t);
	fflush(stdout);
	victim = fork();
	if (victim == 0) {
		struct tu_ep b;

		alarm(0);
		memset(&me, 0, sizeof(me));
		if ((why = tu_ep_open(&b, 1)) || (why = tu_ep_qp(&b, IBV_QPT_RC, NULL, 0)) ||
		    tu_qp_init(b.qp, IBV_QPT_RC))
			me.err = 1;
		else {
			me.qpn = b.qp->qp_num;
			me.gid = b.gid;
			me.addr = (uintptr_t)b.buf;
			me.rkey = b.mr->rkey;
		}
		if (write(c2p[1], &me, sizeof(me)) != sizeof(me) || me.err || full_read(p2c[0], &peer, sizeof(peer)))
			_exit(1);
		ready = rc_connect(b.qp, peer.qpn, &peer.gid, b.gid_index, 0x200, 0x100, 14, 7, 7) ? 'x' : 'r';
		if (write(c2p[1], &ready, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (victim < 0) {
		tu_fail(nm("setup"), "fork: %s", tu_errname(errno));
		return;
	}
	memset(&me, 0, sizeof(me));
	why = NULL;
	if (!(why = tu_ep_open(&a, 0)) && ex == 2) {
		/* The send CQ on a completion channel: the survivor sleeps on it between completions. */
		ch = ibv_create_comp_channel(a.ctx);
		ibv_destroy_cq(a.scq);
		a.scq = ch ? ibv_create_cq(a.ctx, 64, &me, ch, 0) : NULL;
		if (!a.scq)
			why = "ibv_create_comp_channel/ibv_create_cq";
	}
	if (why || (why = ex == 1 ? ep_qp_ex(&a, &cqx, &qpx) : tu_ep_qp(&a, IBV_QPT_RC, NULL, 0)) ||
	    tu_qp_init(a.qp, IBV_QPT_RC)) {
		tu_fail(nm("setup"), "%s: %s", why ? why : "init", tu_errname(errno));
		me.err = 1;
	} else {
		me.qpn = a.qp->qp_num;
		me.gid = a.gid;
	}
	if (full_read(c2p[0], &peer, sizeof(peer)) || peer.err || write(p2c[1], &me, sizeof(me)) != sizeof(me) ||
	    me.err || full_read(c2p[0], &ready, 1) || ready != 'r') {
		tu_fail(nm("setup"), "the peer process could not set up its QP");
		goto out;
	}
	set_nonblock(a.ctx->async_fd);
	/* timeout 14 (67 ms), retry_cnt 3: the dead peer is given up within about a second. */
	if (rc_connect(a.qp, peer.qpn, &peer.gid, a.gid_index, 0x100, 0x200, 14, 3, 7)) {
		tu_fail(nm("setup"), "rc_connect: %s", tu_errname(errno));
		goto out;
	}
	memset(&p, 0, sizeof(p));
	p.qp = a.qp;
	p.cq = a.scq;
	p.qpx = qpx;
	p.cqx = cqx;
	p.ch = ch;
	p.op = IBV_WR_RDMA_WRITE;
	p.buf = a.buf;
	p.lkey = a.mr->lkey;
	p.raddr = peer.addr;
	p.rkey = peer.rkey;
	p.max = MAXWR;
	p.trigger_at = 300;
	p.trigger = kill_victim;
	p.post_ms = 10000;
	p.drain_ms = 20000;
	pump_run(&p, t);
	CHECK(nm("traffic-before-kill"), p.triggered, "only %d writes succeeded (want 300 before the kill); statuses %s",
	      t->nstat[IBV_WC_SUCCESS], t->seq);
	if (ex == 1) {
		struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
		int r1, r2, r3 = -1;

		CHECK(nm("ex-opcode"), p.bad_opcode == 0, "%d successful completions not read as IBV_WC_RDMA_WRITE",
		      p.bad_opcode);
		/* ibv_create_cq_ex(3)'s sequence with one completion: start (it), next (ENOENT), end; the CQ is then
		 * empty. (rdma-core 44's rxe provider advances twice here and reads a stale slot: fixed in 55.) */
		ibv_wr_start(qpx);
		qpx->wr_id = 424242;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(qpx, peer.rkey, peer.addr);
		ibv_wr_set_sge(qpx, a.mr->lkey, (uintptr_t)a.buf, 8);
		r1 = ibv_wr_complete(qpx);
		usleep(200000);
		r2 = ibv_start_poll(cqx, &pa);
		if (r2 == 0) {
			r3 = ibv_next_poll(cqx);
			ibv_end_poll(cqx);
		}
		r1 = r1 ? r1 : ibv_start_poll(cqx, &pa);
		if (r1 == 0)
			ibv_end_poll(cqx);
		CHECK(nm("ex-poll-after-enoent"), r2 == 0 && r3 == ENOENT && r1 == ENOENT,
		      "flushed WR: start_poll %s, next_poll %s, then start_poll %s (want 0, ENOENT, ENOENT)",
		      tu_errname(r2), tu_errname(r3), tu_errname(r1));
	}
	if (ex == 2)
		CHECK(nm("cq-events"), p.cq_events > 0 && p.bad_events == 0,
		      "%d completion events taken, %d naming another CQ", p.cq_events, p.bad_events);
	check_once(t);
	check_error_seq(t, IBV_WC_RETRY_EXC_ERR);
	CHECK(nm("qp-error"), qp_state_of(a.qp) == IBV_QPS_ERR, "survivor QP state %s", qps_name(qp_state_of(a.qp)));
	events(a.ctx, 1000, -1, evs, sizeof(evs), NULL);
	out_add("statuses=%s retry=%d survivor_qp=%s events=%s post_err=%s", t->seq, t->nstat[IBV_WC_RETRY_EXC_ERR],
		qps_name(qp_state_of(a.qp)), evs, tu_errname(p.post_err));
out:
	if (victim > 0)
		kill_victim(NULL);
	if (a.qp) {
		ibv_destroy_qp(a.qp);
		a.qp = NULL;
	}
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	if (ch) {
		/* Every event was acknowledged: the CQ's destroy must not wait. */
		CHECK(nm("destroy-cq-after-events"), ibv_destroy_cq(a.scq) == 0, "ibv_destroy_cq failed");
		a.scq = NULL;
		CHECK(nm("destroy-channel"), ibv_destroy_comp_channel(ch) == 0, "ibv_destroy_comp_channel failed");
	}
	tu_ep_close(&a);
	free(t);
}

/* ---- CM helpers -------------------------------------------------------------------------------------------------- */

static const char *IPA, *IPB;

static int cm_wait(struct rdma_event_channel *ch, int ms, enum rdma_cm_event_type want, struct rdma_cm_event **out,
		   char *why, size_t wlen)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, ms) != 1)
		return snprintf(why, wlen, "no %s within %d ms", rdma_event_str(want), ms), -1;
	if (rdma_get_cm_event(ch, &ev))
		return snprintf(why, wlen, "rdma_get_cm_event: %s", tu_errname(errno)), -1;
	if (ev->event != want) {
		snprintf(why, wlen, "got %s (status %d), want %s", rdma_event_str(ev->event), ev->status,
			 rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (out)
		*out = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

static struct sockaddr_in sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in s;

	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	s.sin_port = htons(port);
	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

/* A connected id's verbs resources: PD, CQ (send and receive), QP, buffer. */
struct cm_side {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id, *listen;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	int libqp; /* the QP on librdmacm's own PD and CQs (rdma_create_qp with NULL PD and CQs, rdma_reg_msgs) */
};

static int cm_side_qp(struct cm_side *s, char *why, size_t wlen)
{
	struct ibv_qp_init_attr ia;

	if (s->libqp) {
		s->buf = calloc(1, 64 * MSG);
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = 32;
		ia.cap.max_recv_wr = 64;
		ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
		if (!s->buf || rdma_create_qp(s->id, NULL, &ia))
			return snprintf(why, wlen, "rdma_create_qp(NULL PD, no CQs): %s", tu_errname(errno)), -1;
		s->cq = s->id->recv_cq;
		s->mr = rdma_reg_msgs(s->id, s->buf, 64 * MSG);
		if (!s->mr)
			return snprintf(why, wlen, "rdma_reg_msgs: %s", tu_errname(errno)), -1;
		return 0;
	}
	s->pd = ibv_alloc_pd(s->id->verbs);
	s->cq = s->pd ? ibv_create_cq(s->id->verbs, 256, NULL, NULL, 0) : NULL;
	s->buf = calloc(1, 64 * MSG);
	s->mr = s->cq && s->buf ? ibv_reg_mr(s->pd, s->buf, 64 * MSG, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!s->mr)
		return snprintf(why, wlen, "pd/cq/mr: %s", tu_errname(errno)), -1;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = s->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 32;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	if (rdma_create_qp(s->id, s->pd, &ia))
		return snprintf(why, wlen, "rdma_create_qp: %s", tu_errname(errno)), -1;
	return 0;
}

/* Posts receives on every slot not yet posted (server side) and reposts consumed ones. */
static void cm_repost(void *arg)
{
	struct cm_side *s = arg;
	struct ibv_wc wc[16];
	int n, i;

	if (!s->id || !s->id->qp)
		return;
	while ((n = ibv_poll_cq(s->cq, 16, wc)) > 0)
		for (i = 0; i < n; i++)
			if (wc[i].status == IBV_WC_SUCCESS && (wc[i].opcode & IBV_WC_RECV))
				tu_post_recv(s->id->qp, wc[i].wr_id, s->buf + (wc[i].wr_id % 64) * MSG, MSG, s->mr->lkey);
}

static int cm_listen(struct cm_side *s, uint16_t *port, char *why, size_t wlen)
{
	struct sockaddr_in sa = sin_of(IPB, 0);

	s->ch = rdma_create_event_channel();
	if (!s->ch || rdma_create_id(s->ch, &s->listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(s->listen, (struct sockaddr *)&sa) || rdma_listen(s->listen, 4))
		return snprintf(why, wlen, "listen on %s: %s", IPB, tu_errname(errno)), -1;
	*port = ntohs(rdma_get_src_port(s->listen));
	return 0;
}

/* Server: takes the connection request, creates the QP, posts 64 receives, accepts. Waits for ESTABLISHED. */
static int cm_accept(struct cm_side *s, char *why, size_t wlen)
{
	struct rdma_cm_event *ev;
	struct rdma_conn_param cp;
	int i;

	if (cm_wait(s->ch, 10000, RDMA_CM_EVENT_CONNECT_REQUEST, &ev, why, wlen))
		return -1;
	s->id = ev->id;
	rdma_ack_cm_event(ev);
	if (cm_side_qp(s, why, wlen))
		return -1;
	for (i = 1; i <= 64; i++)
		tu_post_recv(s->id->qp, i, s->buf + (i % 64) * MSG, MSG, s->mr->lkey);
	memset(&cp, 0, sizeof(cp));
	cp.responder_resources = cp.initiator_depth = 1;
	cp.retry_count = 3;
	cp.rnr_retry_count = 7;
	if (rdma_accept(s->id, &cp))
		return snprintf(why, wlen, "rdma_accept: %s", tu_errname(errno)), -1;
	return 0;
}

/* Client: resolve, QP, connect (retry_count 3, rnr_retry 7). ESTABLISHED is waited for by the caller. */
static int cm_connect(struct cm_side *c, uint16_t port, char *why, size_t wlen)
{
	struct sockaddr_in src = sin_of(IPA, 0), dst = sin_of(IPB, port);
	struct rdma_conn_param cp;

	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP))
		return snprintf(why, wlen, "rdma_create_id: %s", tu_errname(errno)), -1;
	if (rdma_resolve_addr(c->id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 5000))
		return snprintf(why, wlen, "rdma_resolve_addr: %s", tu_errname(errno)), -1;
	if (cm_wait(c->ch, 10000, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, why, wlen))
		return -1;
	if (rdma_resolve_route(c->id, 5000))
		return snprintf(why, wlen, "rdma_resolve_route: %s", tu_errname(errno)), -1;
	if (cm_wait(c->ch, 10000, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, why, wlen))
		return -1;
	if (cm_side_qp(c, why, wlen))
		return -1;
	memset(&cp, 0, sizeof(cp));
	cp.responder_resources = cp.initiator_depth = 1;
	cp.retry_count = 3;
	cp.rnr_retry_count = 7;
	if (rdma_connect(c->id, &cp))
		return snprintf(why, wlen, "rdma_connect: %s", tu_errname(errno)), -1;
	return 0;
}

static void cm_side_close(struct cm_side *s)
{
	if (s->libqp && s->mr) {
		rdma_dereg_mr(s->mr);
		s->mr = NULL;
	}
	if (s->id && s->id->qp)
		rdma_destroy_qp(s->id);
	if (s->libqp)
		s->cq = NULL; /* rdma_destroy_qp destroyed the library's CQs */
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->id)
		rdma_destroy_id(s->id);
	if (s->listen)
		rdma_destroy_id(s->listen);
	if (s->ch)
		rdma_destroy_event_channel(s->ch);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

/* ---- kill-cm --------------------------------------------------------------------------------------------------- */

static void s_kill_cm(void)
{
	int c2p[2];
	struct cm_side c;
	struct track *t = calloc(1, sizeof(*t));
	struct pump p;
	char why[256] = "";
	uint16_t port = 0;
	struct rdma_cm_event *ev = NULL;
	int disc;

	memset(&c, 0, sizeof(c));
	if (!t || pipe(c2p)) {
		tu_fail(nm("setup"), "pipe");
		return;
	}
	track_init(t);
	fflush(stdout);
	victim = fork();
	if (victim == 0) {
		struct cm_side s;

		alarm(0);
		memset(&s, 0, sizeof(s));
		if (cm_listen(&s, &port, why, sizeof(why)))
			port = 0;
		if (write(c2p[1], &port, sizeof(port)) != sizeof(port) || !port)
			_exit(1);
		if (cm_accept(&s, why, sizeof(why)))
			_exit(1);
		for (;;)
			cm_repost(&s);
	}
	if (victim < 0 || full_read(c2p[0], &port, sizeof(port)) || !port) {
		tu_fail(nm("setup"), "the server process did not listen");
		goto out;
	}
	if (cm_connect(&c, port, why, sizeof(why)) ||
	    cm_wait(c.ch, 10000, RDMA_CM_EVENT_ESTABLISHED, NULL, why, sizeof(why))) {
		tu_fail(nm("setup"), "%s", why);
		goto out;
	}
	memset(&p, 0, sizeof(p));
	p.qp = c.id->qp;
	p.cq = c.cq;
	p.op = IBV_WR_SEND;
	p.buf = c.buf;
	p.lkey = c.mr->lkey;
	p.max = MAXWR;
	p.trigger_at = 300;
	p.trigger = kill_victim;
	p.post_ms = 10000;
	p.drain_ms = 20000;
	pump_run(&p, t);
	CHECK(nm("traffic-before-kill"), p.triggered, "only %d sends succeeded (want 300 before the kill); statuses %s",
	      t->nstat[IBV_WC_SUCCESS], t->seq);
	check_once(t);
	check_error_seq(t, IBV_WC_RETRY_EXC_ERR);
	why[0] = 0;
	disc = cm_wait(c.ch, 15000, RDMA_CM_EVENT_DISCONNECTED, &ev, why, sizeof(why)) == 0;
	CHECK(nm("disconnected-event"), disc && ev && ev->id == c.id, "%s", why);
	if (ev)
		rdma_ack_cm_event(ev);
	CHECK(nm("disconnect-after"), rdma_disconnect(c.id) == 0 || errno == EINVAL, "rdma_disconnect: %s",
	      tu_errname(errno));
	out_add("statuses=%s retry=%d disconnected=%d client_qp=%s post_err=%s", t->seq, t->nstat[IBV_WC_RETRY_EXC_ERR],
		disc, qps_name(qp_state_of(c.id->qp)), tu_errname(p.post_err));
out:
	if (victim > 0)
		kill_victim(NULL);
	cm_side_close(&c);
	free(t);
}

/* ---- kill-cm-server: the survivor only receives ---------------------------------------------------------------- */

/* Polls the server's CQ: tracks receive completions; reposts a consumed receive under a new wr_id if `repost`. */
static void srv_poll(struct cm_side *s, struct track *t, int repost)
{
	struct ibv_wc wc[16];
	int n, i;

	while ((n = ibv_poll_cq(s->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			track_wc(t, &wc[i]);
			if (repost && wc[i].status == IBV_WC_SUCCESS && t->posted < MAXWR &&
			    !tu_post_recv(s->id->qp, t->posted + 1, s->buf + ((t->posted + 1) % 64) * MSG, MSG,
					  s->mr->lkey))
				t->posted++;
		}
	}
}

static void s_kill_cm_server(void)
{
	int c2p[2], p2c[2];
	struct cm_side s;
	struct track *t = calloc(1, sizeof(*t));
	char why[256] = "", ready = 0;
	uint16_t port = 0;
	uint64_t deadline;
	int disc = 0, rd, rd_errno, state;

	memset(&s, 0, sizeof(s));
	if (!t || pipe(c2p) || pipe(p2c)) {
		tu_fail(nm("setup"), "pipe");
		return;
	}
	track_init(t);
	fflush(stdout);
	victim = fork();
	if (victim == 0) {
		/* The client: connects, then sends as fast as its window allows until it is killed. */
		struct cm_side c;
		struct ibv_wc wc[16];
		uint64_t inflight = 0, id = 0;
		int n;

		alarm(0);
		memset(&c, 0, sizeof(c));
		if (full_read(p2c[0], &port, sizeof(port)) || cm_connect(&c, port, why, sizeof(why)) ||
		    cm_wait(c.ch, 10000, RDMA_CM_EVENT_ESTABLISHED, NULL, why, sizeof(why)))
			_exit(1);
		ready = 'e';
		if (write(c2p[1], &ready, 1) != 1)
			_exit(1);
		for (;;) {
			while (inflight < WINDOW &&
			       !tu_post_send1(c.id->qp, ++id, IBV_WR_SEND, c.buf, MSG, c.mr->lkey, 0, 0, IBV_SEND_SIGNALED))
				inflight++;
			n = ibv_poll_cq(c.cq, 16, wc);
			if (n > 0)
				inflight -= (uint64_t)n;
		}
	}
	if (victim < 0 || cm_listen(&s, &port, why, sizeof(why)) ||
	    write(p2c[1], &port, sizeof(port)) != sizeof(port) || cm_accept(&s, why, sizeof(why)) ||
	    cm_wait(s.ch, 10000, RDMA_CM_EVENT_ESTABLISHED, NULL, why, sizeof(why)) || full_read(c2p[0], &ready, 1)) {
		tu_fail(nm("setup"), "%s", *why ? why : "the client process did not connect");
		goto out;
	}
	t->posted = 64; /* cm_accept posted wr_id 1..64 */
	deadline = tu_now_ms() + 30000;
	while (t->nstat[IBV_WC_SUCCESS] < 300 && t->first_err < 0 && tu_now_ms() < deadline)
		srv_poll(&s, t, 1);
	if (!CHECK(nm("traffic-before-kill"), t->nstat[IBV_WC_SUCCESS] >= 300 && t->first_err < 0,
		   "%d receives, statuses %s", t->nstat[IBV_WC_SUCCESS], t->seq))
		goto out;
	kill_victim(NULL);
	/* DISCONNECTED (the dead client's id sends a DREQ as the kernel tears it down); receives keep flowing until. */
	deadline = tu_now_ms() + 15000;
	while (!disc && tu_now_ms() < deadline) {
		struct pollfd pf = { .fd = s.ch->fd, .events = POLLIN };
		struct rdma_cm_event *ev;

		srv_poll(&s, t, 1);
		if (poll(&pf, 1, 50) == 1 && rdma_get_cm_event(s.ch, &ev) == 0) {
			disc = ev->event == RDMA_CM_EVENT_DISCONNECTED && ev->id == s.id;
			if (!disc)
				snprintf(why, sizeof(why), "got %s", rdma_event_str(ev->event));
			rdma_ack_cm_event(ev);
		}
	}
	CHECK(nm("disconnected-event"), disc, "%s", *why ? why : "no RDMA_CM_EVENT_DISCONNECTED within 15 s");
	/* The survivor's answer to DISCONNECTED: rdma_disconnect, which puts the QP in ERROR; its receives flush. */
	errno = 0;
	rd = rdma_disconnect(s.id);
	rd_errno = rd ? errno : 0;
	state = qp_state_of(s.id->qp);
	deadline = tu_now_ms() + 10000;
	while (t->done < t->posted && tu_now_ms() < deadline) {
		srv_poll(&s, t, 0);
		usleep(1000);
	}
	check_once(t);
	CHECK(nm("receives-flushed"),
	      !strcmp(t->seq, "SUCCESS,WR_FLUSH_ERR") && t->nstat[IBV_WC_WR_FLUSH_ERR] == 64,
	      "statuses %s, %d x WR_FLUSH_ERR (want the 64 outstanding receives flushed)", t->seq,
	      t->nstat[IBV_WC_WR_FLUSH_ERR]);
	out_add("disconnected=%d rdma_disconnect=%s qp_after=%s statuses=%s flushed=%d", disc,
		rd ? tu_errname(rd_errno) : "0", qps_name(state), t->seq, t->nstat[IBV_WC_WR_FLUSH_ERR]);
out:
	if (victim > 0)
		kill_victim(NULL);
	cm_side_close(&s);
	free(t);
}

/* ---- port ------------------------------------------------------------------------------------------------------ */

static const char *netdev1(void)
{
	const char *nd = getenv("RDMA_TEST_NETDEV1");

	return nd && *nd ? nd : "veth1";
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void link_down(void *arg)
{
	int *rc = arg;

	*rc = sh("ip link set %s down", netdev1());
}

static int port_state(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;

	return ibv_query_port(ctx, 1, &pa) ? -1 : (int)pa.state;
}

static const char *ps_name(int s)
{
	return s < 0 ? "query-failed" : ibv_port_state_str((enum ibv_port_state)s);
}

static void s_port(void)
{
	struct tu_ep a, b;
	struct track *t = calloc(1, sizeof(*t));
	struct pump p;
	struct ibv_async_event ev;
	struct ibv_wc wc;
	char b_down[256], a_down[256], b_up[256], a_up[256];
	const char *why;
	int rc = -1, seen, sa, sb, ok;
	uint64_t deadline;

	if (!t)
		return;
	track_init(t);
	if ((why = pair_open(&a, &b, 14, 3, 7))) {
		tu_fail(nm("setup"), "%s: %s", why, tu_errname(errno));
		goto out;
	}
	set_nonblock(a.ctx->async_fd);
	set_nonblock(b.ctx->async_fd);
	memset(&p, 0, sizeof(p));
	p.qp = a.qp;
	p.cq = a.scq;
	p.op = IBV_WR_RDMA_WRITE;
	p.buf = a.buf;
	p.lkey = a.mr->lkey;
	p.raddr = (uintptr_t)b.buf;
	p.rkey = b.mr->rkey;
	p.max = MAXWR;
	p.trigger_at = 300;
	p.trigger = link_down;
	p.arg = &rc;
	p.post_ms = 10000;
	p.drain_ms = 20000;
	pump_run(&p, t);
	CHECK(nm("link-down"), p.triggered && rc == 0, "ip link set %s down: %d (after %d writes)", netdev1(), rc,
	      t->nstat[IBV_WC_SUCCESS]);
	check_once(t);
	check_error_seq(t, IBV_WC_RETRY_EXC_ERR);
	memset(&ev, 0, sizeof(ev));
	seen = events(b.ctx, 10000, IBV_EVENT_PORT_ERR, b_down, sizeof(b_down), &ev);
	CHECK(nm("port_err-event"), seen && ev.element.port_num == 1, "%s events: %s", tu_dev_name[1], b_down);
	sb = port_state(b.ctx);
	CHECK(nm("port-down-state"), sb == IBV_PORT_DOWN, "%s port state %s", tu_dev_name[1], ps_name(sb));
	events(a.ctx, 500, -1, a_down, sizeof(a_down), NULL);
	sa = port_state(a.ctx);
	out_add("statuses=%s b_down_events=%s b_down_state=%s a_down_events=%s a_down_state=%s ", t->seq, b_down,
		ps_name(sb), a_down, ps_name(sa));

	rc = sh("ip link set %s up", netdev1());
	CHECK(nm("link-up"), rc == 0, "ip link set %s up: %d", netdev1(), rc);
	memset(&ev, 0, sizeof(ev));
	seen = events(b.ctx, 10000, IBV_EVENT_PORT_ACTIVE, b_up, sizeof(b_up), &ev);
	CHECK(nm("port_active-event"), seen && ev.element.port_num == 1, "%s events: %s", tu_dev_name[1], b_up);
	/* Both ports ACTIVE again, with rxe1's RoCE v2 IPv4 GID back. */
	deadline = tu_now_ms() + 15000;
	do {
		union ibv_gid g;

		sa = port_state(a.ctx);
		sb = port_state(b.ctx);
		ok = sa == IBV_PORT_ACTIVE && sb == IBV_PORT_ACTIVE && !ibv_query_gid(b.ctx, 1, b.gid_index, &g) &&
		     !memcmp(&g, &b.gid, sizeof(g));
		if (!ok)
			usleep(100000);
	} while (!ok && tu_now_ms() < deadline);
	CHECK(nm("port-active-state"), ok, "port states %s / %s (want ACTIVE, with the GID back)", ps_name(sa),
	      ps_name(sb));
	events(a.ctx, 500, -1, a_up, sizeof(a_up), NULL);
	out_add("b_up_events=%s a_up_events=%s", b_up, a_up);
	/* The same endpoints carry traffic again on fresh QP connections. */
	ok = tu_pair_reconnect(&a, &b, IBV_QPT_RC) == 0;
	memset(&wc, 0, sizeof(wc));
	ok = ok && !tu_post_send1(a.qp, 7, IBV_WR_RDMA_WRITE, a.buf, MSG, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
				  IBV_SEND_SIGNALED) && tu_poll1(a.scq, &wc) == 1 && wc.status == IBV_WC_SUCCESS;
	CHECK(nm("traffic-after-up"), ok, "RDMA Write after the link came back: %s", tu_wc_str(&wc));
out:
	sh("ip link set %s up", netdev1());
	tu_ep_close(&a);
	tu_ep_close(&b);
	free(t);
}

/* ---- remove-verbs / remove-cm -------------------------------------------------------------------------------- */

static pid_t deleter;
static int deleter_status = -1;
static uint64_t delete_t0;

static void delete_dev1(void *arg)
{
	(void)arg;
	fflush(stdout);
	delete_t0 = tu_now_ms();
	deleter = fork();
	if (deleter == 0) {
		alarm(0);
		execlp("rdma", "rdma", "link", "delete", tu_dev_name[1], (char *)NULL);
		_exit(127);
	}
}

/* 1 when the `rdma link delete` process has ended (within ms), with deleter_status set. */
static int deleter_done(unsigned ms)
{
	uint64_t deadline = tu_now_ms() + ms;
	int st;

	if (deleter <= 0)
		return deleter_status >= 0;
	do {
		if (waitpid(deleter, &st, WNOHANG) == deleter) {
			deleter = 0;
			deleter_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			return 1;
		}
		usleep(20000);
	} while (tu_now_ms() < deadline);
	return 0;
}

static int dev1_listed(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	int i, found = 0;

	for (i = 0; l && l[i]; i++)
		found |= !strcmp(ibv_get_device_name(l[i]), tu_dev_name[1]);
	if (l)
		ibv_free_device_list(l);
	return found;
}

/* Re-creates rxe1 on its netdev as tests/guest/setup-rdma.sh does and waits (30 s) until its port is ACTIVE with
 * the IPv4-mapped RoCE v2 GID of RDMA_TEST_IP1 at RDMA_TEST_GID1. 0, or -1 with the reason in why. */
static int relink_dev1(char *why, size_t wlen)
{
	struct in_addr ip;
	char want[64], state[64], gid[64];
	const uint8_t *b = (const uint8_t *)&ip.s_addr;
	uint64_t deadline;
	int rc;

	inet_pton(AF_INET, IPB, &ip);
	snprintf(want, sizeof(want), "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", b[0], b[1], b[2], b[3]);
	rc = sh("rdma link add %s type rxe netdev %s", tu_dev_name[1], netdev1());
	if (rc)
		return snprintf(why, wlen, "rdma link add %s type rxe netdev %s: exit %d", tu_dev_name[1], netdev1(), rc),
		       -1;
	deadline = tu_now_ms() + 30000;
	for (;;) {
		state[0] = gid[0] = 0;
		tu_read_sysfs(state, sizeof(state), "/sys/class/infiniband/%s/ports/1/state", tu_dev_name[1]);
		tu_read_sysfs(gid, sizeof(gid), "/sys/class/infiniband/%s/ports/1/gids/%d", tu_dev_name[1],
			      tu_gid_index[1]);
		if (strstr(state, "ACTIVE") && !strcmp(gid, want))
			return 0;
		if (tu_now_ms() > deadline)
			return snprintf(why, wlen, "after 30 s: state '%s', gid[%d] '%s' (want %s)", state,
					tu_gid_index[1], gid, want),
			       -1;
		usleep(100000);
	}
}

/* A fresh verbs pair on rxe0/rxe1 in this process: an RDMA Write and a SEND arrive intact. 0 or -1 (why). */
static int verbs_pingpong(char *why, size_t wlen)
{
	struct tu_ep a, b;
	struct ibv_wc wc;
	const char *w;
	int ret = -1;

	memset(&wc, 0, sizeof(wc));
	if ((w = pair_open(&a, &b, 14, 7, 7))) {
		snprintf(why, wlen, "%s: %s", w, tu_errname(errno));
		goto out;
	}
	tu_fill(a.buf, 4096, 77);
	if (tu_post_send1(a.qp, 1, IBV_WR_RDMA_WRITE, a.buf, 4096, a.mr->lkey, (uintptr_t)b.buf, b.mr->rkey,
			  IBV_SEND_SIGNALED) || tu_poll1(a.scq, &wc) != 1 || wc.status != IBV_WC_SUCCESS ||
	    tu_diff(a.buf, b.buf, 4096) >= 0) {
		snprintf(why, wlen, "RDMA Write: %s", tu_wc_str(&wc));
		goto out;
	}
	if (tu_post_recv(b.qp, 2, b.buf + 8192, 4096, b.mr->lkey) ||
	    tu_post_send1(a.qp, 2, IBV_WR_SEND, a.buf, 4096, a.mr->lkey, 0, 0, IBV_SEND_SIGNALED) ||
	    tu_poll1(b.rcq, &wc) != 1 || wc.status != IBV_WC_SUCCESS || tu_diff(a.buf, b.buf + 8192, 4096) >= 0) {
		snprintf(why, wlen, "SEND: %s", tu_wc_str(&wc));
		goto out;
	}
	ret = 0;
out:
	tu_ep_close(&a);
	tu_ep_close(&b);
	return ret;
}

/* A fresh CM connection IP0 -> IP1 in this process: 8 SENDs arrive. 0 or -1 (why). */
static int cm_pingpong(char *why, size_t wlen)
{
	struct cm_side s, c;
	struct ibv_wc wc[8];
	uint16_t port = 0;
	int i, ret = -1, got = 0, sent = 0;

	memset(&s, 0, sizeof(s));
	memset(&c, 0, sizeof(c));
	if (cm_listen(&s, &port, why, wlen) || cm_connect(&c, port, why, wlen) || cm_accept(&s, why, wlen))
		goto out;
	if (cm_wait(c.ch, 10000, RDMA_CM_EVENT_ESTABLISHED, NULL, why, wlen) ||
	    cm_wait(s.ch, 10000, RDMA_CM_EVENT_ESTABLISHED, NULL, why, wlen)) {
		char w2[200];

		snprintf(w2, sizeof(w2), "%s", why);
		snprintf(why, wlen, "%s: %s (client QP %s, server QP %s)", strstr(w2, "10000") ? "a side" : "", w2,
			 qps_name(qp_state_of(c.id->qp)), qps_name(qp_state_of(s.id->qp)));
		goto out;
	}
	if (strcmp(ibv_get_device_name(s.id->verbs->device), tu_dev_name[1])) {
		snprintf(why, wlen, "server id on %s, want %s", ibv_get_device_name(s.id->verbs->device), tu_dev_name[1]);
		goto out;
	}
	for (i = 1; i <= 8; i++)
		if (!tu_post_send1(c.id->qp, i, IBV_WR_SEND, c.buf, MSG, c.mr->lkey, 0, 0, IBV_SEND_SIGNALED))
			sent++;
	got = tu_poll(s.cq, wc, 8, 10000);
	for (i = 0; i < got; i++)
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].byte_len != MSG)
			break;
	if (sent != 8 || got != 8 || i != 8) {
		snprintf(why, wlen, "%d sends posted, %d received (%s)", sent, got, got ? tu_wc_str(&wc[0]) : "none");
		goto out;
	}
	ret = 0;
out:
	cm_side_close(&c);
	cm_side_close(&s);
	return ret;
}

static void s_remove_verbs(void)
{
	struct tu_ep a, b;
	struct track *t = calloc(1, sizeof(*t));
	struct pump p;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_pd *pd2;
	struct ibv_cq *cq2;
	char evs[256], calls[512] = "", reason[256] = "";
	const char *why;
	int seen, done_before_close, r_qp, r_mr, r_scq, r_rcq, r_pd, r_close, e;
	struct ibv_device **stale = NULL, *stale1 = NULL;
	struct ibv_context *ctx2;

	if (!t)
		return;
	track_init(t);
	if ((why = pair_open(&a, &b, 14, 3, 7))) {
		tu_fail(nm("setup"), "%s: %s", why, tu_errname(errno));
		goto out;
	}
	/* A device list taken before the removal, kept to its end (its rxe1 entry goes stale). */
	stale = ibv_get_device_list(NULL);
	for (int i = 0; stale && stale[i]; i++)
		if (!strcmp(ibv_get_device_name(stale[i]), tu_dev_name[1]))
			stale1 = stale[i];
	set_nonblock(b.ctx->async_fd);
	memset(&p, 0, sizeof(p));
	p.qp = a.qp;
	p.cq = a.scq;
	p.op = IBV_WR_RDMA_WRITE;
	p.buf = a.buf;
	p.lkey = a.mr->lkey;
	p.raddr = (uintptr_t)b.buf;
	p.rkey = b.mr->rkey;
	p.max = MAXWR;
	p.trigger_at = 300;
	p.trigger = delete_dev1;
	p.post_ms = 3000;
	p.drain_ms = 20000;
	pump_run(&p, t);
	CHECK(nm("traffic-before-delete"), p.triggered && deleter > 0, "%d writes succeeded; deleter pid %d",
	      t->nstat[IBV_WC_SUCCESS], (int)deleter);
	check_once(t);
	seen = events(b.ctx, 10000, IBV_EVENT_DEVICE_FATAL, evs, sizeof(evs), NULL);
	done_before_close = deleter_done(1000);
	/* A kernel whose driver can disassociate a user context (rxe cannot, on 6.1 or 6.12) reports
	 * IBV_EVENT_DEVICE_FATAL and lets the delete finish; otherwise the delete waits until every user of the device
	 * has closed it, and the device keeps working meanwhile. Either way the application must be told or waited
	 * for: a delete that finished without an event would have left us a dead context without notice. */
	CHECK(nm("removal-reported-or-waited"), seen || !done_before_close,
	      "events on %s within 10 s of 'rdma link delete': %s; the delete %s before ibv_close_device",
	      tu_dev_name[1], evs, done_before_close ? "finished" : "was still waiting");
	/* Calls on the removed device fail (or not) as with rdma-core; none may hang or crash. */
	errno = 0;
	e = ibv_query_device(b.ctx, &da);
	snprintf(calls + strlen(calls), sizeof(calls) - strlen(calls), "query_device=%s ", tu_errname(e));
	errno = 0;
	e = ibv_query_port(b.ctx, 1, &pa);
	snprintf(calls + strlen(calls), sizeof(calls) - strlen(calls), "query_port=%s ", e ? tu_errname(e) : "0");
	errno = 0;
	pd2 = ibv_alloc_pd(b.ctx);
	snprintf(calls + strlen(calls), sizeof(calls) - strlen(calls), "alloc_pd=%s ", pd2 ? "ok" : tu_errname(errno));
	if (pd2)
		ibv_dealloc_pd(pd2);
	errno = 0;
	cq2 = ibv_create_cq(b.ctx, 4, NULL, NULL, 0);
	snprintf(calls + strlen(calls), sizeof(calls) - strlen(calls), "create_cq=%s ", cq2 ? "ok" : tu_errname(errno));
	if (cq2)
		ibv_destroy_cq(cq2);
	r_qp = ibv_destroy_qp(b.qp);
	b.qp = NULL;
	r_mr = ibv_dereg_mr(b.mr);
	b.mr = NULL;
	r_scq = ibv_destroy_cq(b.scq);
	b.scq = NULL;
	r_rcq = ibv_destroy_cq(b.rcq);
	b.rcq = NULL;
	r_pd = ibv_dealloc_pd(b.pd);
	b.pd = NULL;
	snprintf(calls + strlen(calls), sizeof(calls) - strlen(calls),
		 "destroy_qp=%s dereg_mr=%s destroy_cq=%s,%s dealloc_pd=%s", tu_errname(r_qp), tu_errname(r_mr), tu_errname(r_scq), tu_errname(r_rcq), tu_errname(r_pd));
	r_close = ibv_close_device(b.ctx);
	b.ctx = NULL;
	CHECK(nm("close_device"), r_close == 0, "ibv_close_device: %s", tu_errname(r_close));
	CHECK(nm("delete-completes"), deleter_done(20000) && deleter_status == 0,
	      "'rdma link delete %s' %s (exit %d)", tu_dev_name[1], deleter > 0 ? "still running 20 s after close" : "ended",
	      deleter_status);
	CHECK(nm("device-gone"), !dev1_listed(), "%s is still listed by ibv_get_device_list", tu_dev_name[1]);
	/* The stale entry of the old list: opening it fails cleanly (the device node is gone). */
	errno = 0;
	ctx2 = stale1 ? ibv_open_device(stale1) : NULL;
	snprintf(calls + strlen(calls), sizeof(calls) - strlen(calls), " open_stale=%s", ctx2 ? "ok" : tu_errname(errno));
	CHECK(nm("open-stale-device"), stale1 && !ctx2, "ibv_open_device on the removed %s: %s", tu_dev_name[1],
	      ctx2 ? "opened" : tu_errname(errno));
	if (ctx2)
		ibv_close_device(ctx2);
	/* Re-created in this process's lifetime: a fresh list finds it and it carries traffic. */
	if (CHECK(nm("relink"), relink_dev1(reason, sizeof(reason)) == 0, "%s", reason)) {
		CHECK(nm("device-listed-again"), dev1_listed(), "%s not listed after 'rdma link add'", tu_dev_name[1]);
		CHECK(nm("traffic-after-relink"), verbs_pingpong(reason, sizeof(reason)) == 0, "%s", reason);
	}
	out_add("fatal=%d events=%s delete_done_before_close=%d %s", seen, evs, done_before_close, calls);
	printf("# %s: survivor statuses %s, rxe0 QP %s\n", scen, t->seq, qps_name(qp_state_of(a.qp)));
out:
	if (stale)
		ibv_free_device_list(stale);
	if (deleter > 0) {
		kill(deleter, SIGKILL);
		waitpid(deleter, NULL, 0);
	}
	tu_ep_close(&a);
	tu_ep_close(&b);
	free(t);
}

static void s_remove_cm(void)
{
	struct cm_side s, c;
	struct track *t = calloc(1, sizeof(*t));
	struct pump p;
	char why[256] = "", sev[256] = "", cev[256] = "", bind_res[64] = "";
	uint16_t port = 0;
	int removals = 0, listen_removed = 0, conn_removed = 0, done_after_destroy, done_after_devices, c_disc = 0;
	uint64_t deadline;

	memset(&s, 0, sizeof(s));
	memset(&c, 0, sizeof(c));
	s.libqp = 1;
	if (!t)
		return;
	track_init(t);
	if (cm_listen(&s, &port, why, sizeof(why)) || cm_connect(&c, port, why, sizeof(why)) ||
	    cm_accept(&s, why, sizeof(why)) ||
	    cm_wait(c.ch, 10000, RDMA_CM_EVENT_ESTABLISHED, NULL, why, sizeof(why)) ||
	    cm_wait(s.ch, 10000, RDMA_CM_EVENT_ESTABLISHED, NULL, why, sizeof(why))) {
		tu_fail(nm("setup"), "%s", why);
		goto out;
	}
	memset(&p, 0, sizeof(p));
	p.qp = c.id->qp;
	p.cq = c.cq;
	p.op = IBV_WR_SEND;
	p.buf = c.buf;
	p.lkey = c.mr->lkey;
	p.max = MAXWR;
	p.trigger_at = 300;
	p.trigger = delete_dev1;
	p.tick = cm_repost;
	p.arg = &s;
	p.post_ms = 3000;
	p.drain_ms = 20000;
	pump_run(&p, t);
	CHECK(nm("traffic-before-delete"), p.triggered && deleter > 0, "%d sends succeeded", t->nstat[IBV_WC_SUCCESS]);
	check_once(t);
	/* DEVICE_REMOVAL for the listening id and the connected id on rxe1; each is torn down as the event asks. */
	deadline = tu_now_ms() + 15000;
	while ((!listen_removed || !conn_removed) && tu_now_ms() < deadline) {
		struct pollfd pf = { .fd = s.ch->fd, .events = POLLIN };
		struct rdma_cm_event *ev;
		struct rdma_cm_id *id;
		enum rdma_cm_event_type type;

		if (poll(&pf, 1, 200) != 1 || rdma_get_cm_event(s.ch, &ev))
			continue;
		id = ev->id;
		type = ev->event;
		snprintf(sev + strlen(sev), sizeof(sev) - strlen(sev), "%s%s(%s)", *sev ? "," : "", rdma_event_str(type),
			 id == s.listen ? "listen" : id == s.id ? "conn" : "other");
		rdma_ack_cm_event(ev);
		if (type != RDMA_CM_EVENT_DEVICE_REMOVAL)
			continue;
		removals++;
		if (id == s.listen) {
			listen_removed = 1;
			rdma_destroy_id(s.listen);
			s.listen = NULL;
		} else if (id == s.id) {
			/* The server's QP lives on librdmacm's PD and CQs: rdma_dereg_mr, rdma_destroy_qp, rdma_destroy_id
			 * release everything it holds on rxe1. */
			conn_removed = 1;
			rdma_dereg_mr(s.mr);
			s.mr = NULL;
			rdma_destroy_qp(s.id);
			s.cq = NULL;
			rdma_destroy_id(s.id);
			s.id = NULL;
		}
	}
	for (char *ch = sev; *ch; ch++)
		if (*ch == ' ')
			*ch = '_';
	CHECK(nm("device_removal-events"), listen_removed && conn_removed, "server events: %s", *sev ? sev : "none");
	done_after_destroy = deleter_done(5000);
	done_after_devices = done_after_destroy;
	if (!done_after_destroy) {
		/* rdma-core closes a removed device's context when it next syncs its device list. */
		struct ibv_context **l = rdma_get_devices(NULL);

		if (l)
			rdma_free_devices(l);
		done_after_devices = deleter_done(5000);
	}
	printf("# %s: 'rdma link delete' %s\n", scen,
	       done_after_destroy ? "ended once the ids were destroyed" :
	       done_after_devices ? "ended after rdma_get_devices" : "still waiting for this process");
	/* The client on rxe0: its peer's QP is gone. */
	{
		struct rdma_cm_event *ev = NULL;
		char w2[128];

		c_disc = cm_wait(c.ch, 15000, RDMA_CM_EVENT_DISCONNECTED, &ev, w2, sizeof(w2)) == 0;
		snprintf(cev, sizeof(cev), "%s", c_disc ? "DISCONNECTED" : w2);
		if (ev)
			rdma_ack_cm_event(ev);
		for (char *ch = cev; *ch; ch++)
			if (*ch == ' ')
				*ch = '_';
	}
	/* With rxe1 gone, its address has no RDMA device. */
	{
		struct rdma_cm_id *id = NULL;
		struct sockaddr_in sa = sin_of(IPB, 0);
		int r;

		errno = 0;
		r = rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) ? -2 : rdma_bind_addr(id, (struct sockaddr *)&sa);
		snprintf(bind_res, sizeof(bind_res), "%s", r == 0 ? (id->verbs ? "bound-to-device" : "bound") :
							 tu_errname(errno));
		if (id)
			rdma_destroy_id(id);
	}
	/* rxe1 re-created while this process lives: a new connection to its address works. */
	if (CHECK(nm("relink"), done_after_devices && relink_dev1(why, sizeof(why)) == 0, "%s",
		  done_after_devices ? why : "the delete never ended")) {
		/* The first connection to a re-created rxe1 in a boot often never gets its REP to the client (client QP
		 * stays INIT, server QP RTS), with rdma-core as with ours: a kernel effect, so up to 3 attempts. */
		char first[256] = "";
		int attempt, ok = 0;

		for (attempt = 1; attempt <= 3 && !ok; attempt++) {
			ok = cm_pingpong(why, sizeof(why)) == 0;
			if (!ok && attempt == 1)
				snprintf(first, sizeof(first), "%s", why);
		}
		CHECK(nm("cm-after-relink"), ok, "3 attempts; the first: %s; the last: %s", first, why);
		if (ok)
			printf("# %s: cm-after-relink: attempt %d%s%s\n", scen, attempt - 1, attempt > 2 ? "; the first: " : "",
			       attempt > 2 ? first : "");
	}
	out_add("server_events=%s client=%s delete_done=%s client_statuses_end=%s bind_ip1=%s", sev, cev,
		done_after_destroy ? "after-destroy" : done_after_devices ? "after-get-devices" : "at-exit",
		t->first_err >= 0 ? st_name(t->last) : "none", bind_res);
	printf("# %s: client statuses %s\n", scen, t->seq);
out:
	cm_side_close(&c);
	cm_side_close(&s);
	free(t);
}

/* 1 when a mapping of this process names `lib` (/proc/self/maps). */
static int maps_has(const char *lib)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, lib) != NULL;
	if (f)
		fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} all[] = {
		{ "rnr", s_rnr },       { "retry", s_retry },           { "cq-overrun", s_cq_overrun },
		{ "fork", s_fork },     { "kill-verbs", s_kill_verbs }, { "kill-cm", s_kill_cm },
		{ "kill-cm-server", s_kill_cm_server }, { "kill-verbs-ex", s_kill_verbs_ex },
		{ "kill-verbs-channel", s_kill_verbs_channel },
		{ "port", s_port },     { "remove-verbs", s_remove_verbs }, { "remove-cm", s_remove_cm },
	};
	size_t i;

	tu_init();
	IPA = getenv("RDMA_TEST_IP0");
	IPB = getenv("RDMA_TEST_IP1");
	if (!IPA || !*IPA)
		IPA = "198.18.0.1";
	if (!IPB || !*IPB)
		IPB = "198.18.0.2";
	signal(SIGPIPE, SIG_IGN);
	if (argc != 2) {
		fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
		for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
			fprintf(stderr, "  %s\n", all[i].name);
		return 2;
	}
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (!strcmp(argv[1], all[i].name)) {
			const char *prov = getenv("RDMAV_PROVIDER");

			scen = all[i].name;
			all[i].fn();
			printf("# outcome %s: %s\n", scen, outcome);
			if (prov && !strcmp(prov, "plugin") && tu_ours())
				CHECK(nm("plugin-mapped"), maps_has("librxe-rdmav34.so"),
				      "RDMAV_PROVIDER=plugin, but rdma-core's rxe plug-in is not mapped in this process");
			return tu_finish(PROG);
		}
	}
	fprintf(stderr, "%s: unknown scenario %s\n", argv[0], argv[1]);
	return 2;
}
