/* rel_soak: load (issue 15). Run against ours and rdma-core (guest case 55-reliability); each check must pass with
 * both.
 *
 *   soak-traffic    8 threads, each with 16 RC QP pairs (rxe0 -> rxe1, both contexts shared by every thread) and
 *                   its own CQs, move sequence-numbered SENDs (8 bytes inline: thread, QP, sequence) until
 *                   SOAK_MSGS messages in all (default 1,048,576) have arrived; every receive completion is checked
 *                   in order per QP (no loss, no duplicate, no reordering), every send completion is a success.
 *   soak-churn      meanwhile a ninth thread creates and destroys CQs, QPs (to INIT), MRs and CM ids on the same
 *                   contexts, as fast as it can; every call must succeed.
 *   open-close-flat 10,000 cycles of ibv_open_device + alloc_pd + create_cq + destroy + close: between 1,000 and
 *                   10,000 cycles the process's descriptors stay the same, its mappings grow by at most 2 and its
 *                   malloc'd bytes by less than 64 KiB (RSS is printed: allocator page use, not a leak measure).
 */
#include "testutil.h"

#include <dirent.h>
#include <malloc.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>

#define THREADS 8
#define QPS 16
#define WINDOW 32 /* sends in flight per QP (below the receive depth: never RNR) */
#define RQ_DEPTH 64

static struct ibv_context *ctx[2];
static struct ibv_pd *pd[2];
static union ibv_gid gid[2];
static unsigned long per_qp;
static volatile int traffic_done;

struct worker {
	int t;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qa[QPS], *qb[QPS];
	struct ibv_mr *mr;
	uint64_t *rbuf; /* QPS * RQ_DEPTH slots on side 1 */
	unsigned long sent[QPS], expect[QPS], send_done, total_sent;
	unsigned long received;
	char err[256];
};

static struct ibv_qp *make_qp(int side, struct ibv_cq *scq, struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = WINDOW;
	ia.cap.max_recv_wr = RQ_DEPTH;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 16;
	return ibv_create_qp(pd[side], &ia);
}

static int post_recv_slot(struct worker *w, int i, int slot)
{
	struct ibv_sge sge = { .addr = (uintptr_t)&w->rbuf[i * RQ_DEPTH + slot], .length = 8, .lkey = w->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)i << 16 | (unsigned)slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(w->qb[i], &wr, &bad);
}

static int setup(struct worker *w)
{
	int i, s, ret;

	w->scq = ibv_create_cq(ctx[0], QPS * WINDOW, NULL, NULL, 0);
	w->rcq = ibv_create_cq(ctx[1], QPS * RQ_DEPTH, NULL, NULL, 0);
	w->rbuf = calloc(QPS * RQ_DEPTH, sizeof(uint64_t));
	if (!w->scq || !w->rcq || !w->rbuf)
		return snprintf(w->err, sizeof(w->err), "CQs: %s", tu_errname(errno)), -1;
	w->mr = ibv_reg_mr(pd[1], w->rbuf, QPS * RQ_DEPTH * sizeof(uint64_t), IBV_ACCESS_LOCAL_WRITE);
	if (!w->mr)
		return snprintf(w->err, sizeof(w->err), "ibv_reg_mr: %s", tu_errname(errno)), -1;
	for (i = 0; i < QPS; i++) {
		w->qa[i] = make_qp(0, w->scq, w->scq);
		w->qb[i] = make_qp(1, w->rcq, w->rcq);
		if (!w->qa[i] || !w->qb[i])
			return snprintf(w->err, sizeof(w->err), "ibv_create_qp: %s", tu_errname(errno)), -1;
		if ((ret = tu_qp_init(w->qa[i], IBV_QPT_RC)) || (ret = tu_qp_init(w->qb[i], IBV_QPT_RC)) ||
		    (ret = tu_qp_connect(w->qa[i], IBV_QPT_RC, w->qb[i]->qp_num, &gid[1], tu_gid_index[0], 100, 200)) ||
		    (ret = tu_qp_connect(w->qb[i], IBV_QPT_RC, w->qa[i]->qp_num, &gid[0], tu_gid_index[1], 200, 100)))
			return snprintf(w->err, sizeof(w->err), "connect QP %d: %s", i, tu_errname(ret)), -1;
		for (s = 0; s < RQ_DEPTH; s++)
			if ((ret = post_recv_slot(w, i, s)))
				return snprintf(w->err, sizeof(w->err), "post_recv: %s", tu_errname(ret)), -1;
	}
	return 0;
}

static void *traffic(void *arg)
{
	struct worker *w = arg;
	struct ibv_wc wc[32];
	uint64_t progress = tu_now_ms();
	unsigned long last = 0;
	int i, n, k;

	while (w->received < per_qp * QPS) {
		if (w->received != last) {
			last = w->received;
			progress = tu_now_ms();
		} else if (tu_now_ms() - progress > 30000) {
			snprintf(w->err, sizeof(w->err), "stalled: %lu of %lu received, nothing for 30 s", w->received,
				 per_qp * QPS);
			return NULL;
		}
		for (i = 0; i < QPS; i++) {
			/* In flight = sent - received for this QP, bounded by the window (and the SQ's depth). */
			/* ... and the send completions not yet polled within the send CQ's size (a slot of the SQ is free
			 * again once its WR completed, polled or not: without this bound the CQ would overrun). */
			while (w->sent[i] < per_qp && w->sent[i] - w->expect[i] < WINDOW &&
			       w->total_sent - w->send_done < (unsigned long)QPS * WINDOW) {
				uint64_t v = (uint64_t)w->t << 56 | (uint64_t)i << 48 | w->sent[i];
				struct ibv_sge sge = { .addr = (uintptr_t)&v, .length = 8, .lkey = 0 };
				struct ibv_send_wr wr = { .wr_id = w->sent[i], .sg_list = &sge, .num_sge = 1,
							  .opcode = IBV_WR_SEND,
							  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE },
						   *bad;
				int ret = ibv_post_send(w->qa[i], &wr, &bad);

				if (ret == ENOMEM)
					break; /* the SQ is full: reap send completions first */
				if (ret) {
					snprintf(w->err, sizeof(w->err), "post_send QP %d seq %lu: %s", i, w->sent[i],
						 tu_errname(ret));
					return NULL;
				}
				w->sent[i]++;
				w->total_sent++;
			}
		}
		while ((n = ibv_poll_cq(w->scq, 32, wc)) > 0) {
			for (k = 0; k < n; k++) {
				if (wc[k].status != IBV_WC_SUCCESS) {
					snprintf(w->err, sizeof(w->err), "send completion %s", ibv_wc_status_str(wc[k].status));
					return NULL;
				}
			}
			w->send_done += (unsigned long)n;
		}
		while ((n = ibv_poll_cq(w->rcq, 32, wc)) > 0) {
			for (k = 0; k < n; k++) {
				int qi = (int)(wc[k].wr_id >> 16), slot = (int)(wc[k].wr_id & 0xffff);
				uint64_t v;

				if (wc[k].status != IBV_WC_SUCCESS || qi >= QPS || wc[k].qp_num != w->qb[qi]->qp_num ||
				    wc[k].byte_len != 8) {
					snprintf(w->err, sizeof(w->err), "receive completion %s qp_num %u byte_len %u",
						 ibv_wc_status_str(wc[k].status), wc[k].qp_num, wc[k].byte_len);
					return NULL;
				}
				v = w->rbuf[qi * RQ_DEPTH + slot];
				if (v != ((uint64_t)w->t << 56 | (uint64_t)qi << 48 | w->expect[qi])) {
					snprintf(w->err, sizeof(w->err),
						 "QP %d: got thread %u QP %u seq %llu, expected seq %lu (lost, duplicated or "
						 "reordered)",
						 qi, (unsigned)(v >> 56), (unsigned)(v >> 48 & 0xff),
						 (unsigned long long)(v & 0xffffffffffffull), w->expect[qi]);
					return NULL;
				}
				w->expect[qi]++;
				w->received++;
				if (post_recv_slot(w, qi, slot)) {
					snprintf(w->err, sizeof(w->err), "repost: %s", tu_errname(errno));
					return NULL;
				}
			}
		}
		if (n < 0) {
			snprintf(w->err, sizeof(w->err), "ibv_poll_cq: %d", n);
			return NULL;
		}
	}
	/* The last send completions. */
	for (uint64_t t0 = tu_now_ms(); w->send_done < per_qp * QPS && tu_now_ms() - t0 < 10000;) {
		n = ibv_poll_cq(w->scq, 32, wc);
		if (n > 0)
			w->send_done += (unsigned long)n;
	}
	if (w->send_done != per_qp * QPS)
		snprintf(w->err, sizeof(w->err), "%lu send completions of %lu", w->send_done, per_qp * QPS);
	return NULL;
}

struct churn {
	unsigned long cycles;
	char err[256];
};

static void *churner(void *arg)
{
	struct churn *c = arg;
	static char buf[8192];

	while (!traffic_done) {
		int side = (int)(c->cycles & 1);
		struct ibv_cq *cq = ibv_create_cq(ctx[side], 8, NULL, NULL, 0);
		struct ibv_qp *qp = cq ? make_qp(side, cq, cq) : NULL;
		struct ibv_mr *mr = ibv_reg_mr(pd[side], buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		struct rdma_cm_id *id = NULL;
		int ret = qp ? tu_qp_init(qp, IBV_QPT_RC) : -1;

		if (!cq || !qp || !mr || ret) {
			snprintf(c->err, sizeof(c->err), "cycle %lu: cq %p qp %p mr %p init %d: %s", c->cycles, (void *)cq,
				 (void *)qp, (void *)mr, ret, tu_errname(errno));
			return NULL;
		}
		if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)) {
			snprintf(c->err, sizeof(c->err), "rdma_create_id: %s", tu_errname(errno));
			return NULL;
		}
		if (ibv_destroy_qp(qp) || ibv_destroy_cq(cq) || ibv_dereg_mr(mr) || rdma_destroy_id(id)) {
			snprintf(c->err, sizeof(c->err), "cycle %lu: destroy failed: %s", c->cycles, tu_errname(errno));
			return NULL;
		}
		c->cycles++;
	}
	return NULL;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

static long rss_kib(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Bytes the process holds from malloc now (every arena, and mmapped chunks): what a leak grows. */
static long heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return (long)(m.uordblks + m.hblkhd);
}

/* Lines of /proc/self/maps: what a leaked mapping (a queue never unmapped) grows. */
static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void open_close(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = NULL;
	int fds1 = 0, fds2, maps1 = 0, maps2, i;
	long rss1 = 0, rss2, heap1 = 0, heap2;
	uint64_t t0 = tu_now_ms();

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), tu_dev_name[0]))
			dev = list[i];
	if (!dev) {
		tu_fail("open-close-flat", "device %s not found", tu_dev_name[0]);
		goto out;
	}
	for (i = 1; i <= 10000; i++) {
		struct ibv_context *c = ibv_open_device(dev);
		struct ibv_pd *p = c ? ibv_alloc_pd(c) : NULL;
		struct ibv_cq *q = c ? ibv_create_cq(c, 4, NULL, NULL, 0) : NULL;

		if (!c || !p || !q) {
			tu_fail("open-close-flat", "cycle %d: %s", i, tu_errname(errno));
			goto out;
		}
		if (ibv_destroy_cq(q) || ibv_dealloc_pd(p) || ibv_close_device(c)) {
			tu_fail("open-close-flat", "cycle %d: teardown %s", i, tu_errname(errno));
			goto out;
		}
		if (i == 1000) {
			fds1 = count_fds();
			rss1 = rss_kib();
			heap1 = heap_in_use();
			maps1 = count_maps();
		}
	}
	fds2 = count_fds();
	rss2 = rss_kib();
	heap2 = heap_in_use();
	maps2 = count_maps();
	/* Flat: the same descriptors, at most 2 more mappings, less than 64 KiB more malloc'd (under 7 bytes a cycle).
	 * RSS is printed, not judged: it moves with the allocator's page use after the soak's threads (it grew 2 MiB
	 * in one run of ours and 64 KiB in the next, where the malloc'd bytes and the mappings did not change). */
	(fds1 == fds2 && maps2 - maps1 <= 2 && heap2 - heap1 < 65536 ? tu_pass : tu_fail)(
		"open-close-flat",
		"10,000 cycles in %.1f s: after 1,000 and 10,000: fds %d, %d; mappings %d, %d; malloc'd bytes %ld, %ld; "
		"RSS %ld, %ld KiB",
		(tu_now_ms() - t0) / 1e3, fds1, fds2, maps1, maps2, heap1, heap2, rss1, rss2);
out:
	if (list)
		ibv_free_device_list(list);
}

int main(void)
{
	static struct worker w[THREADS];
	struct churn c = { 0 };
	pthread_t th[THREADS], ct;
	const char *s = getenv("SOAK_MSGS");
	unsigned long total = s && atol(s) > 0 ? (unsigned long)atol(s) : 1048576ul;
	unsigned long got = 0, sends = 0;
	uint64_t t0;
	int i, bad = 0;

	tu_init();
	alarm(900);
	per_qp = (total + THREADS * QPS - 1) / (THREADS * QPS);
	for (i = 0; i < 2; i++) {
		ctx[i] = tu_open(tu_dev_name[i]);
		if (!ctx[i] || ibv_query_gid(ctx[i], 1, tu_gid_index[i], &gid[i]) || !(pd[i] = ibv_alloc_pd(ctx[i])))
			tu_abort("rel_soak", "setup", "device %s: %s", tu_dev_name[i], tu_errname(errno));
	}
	for (i = 0; i < THREADS; i++) {
		w[i].t = i;
		if (setup(&w[i]))
			tu_abort("rel_soak", "setup", "thread %d: %s", i, w[i].err);
	}
	t0 = tu_now_ms();
	pthread_create(&ct, NULL, churner, &c);
	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, traffic, &w[i]);
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		got += w[i].received;
		sends += w[i].send_done;
		if (w[i].err[0]) {
			tu_fail("soak-traffic", "thread %d: %s", i, w[i].err);
			bad = 1;
		}
	}
	traffic_done = 1;
	pthread_join(ct, NULL);
	if (!bad)
		(got == per_qp * THREADS * QPS && sends == got ? tu_pass : tu_fail)(
			"soak-traffic", "%lu messages over %d QPs in %d threads in %.1f s, each in order; %lu send completions",
			got, THREADS * QPS, THREADS, (tu_now_ms() - t0) / 1e3, sends);
	(!c.err[0] && c.cycles > 0 ? tu_pass : tu_fail)(
		"soak-churn", "%lu create/destroy cycles of CQ+QP+MR+CM id during the traffic%s%s", c.cycles,
		c.err[0] ? ": " : "", c.err);
	for (i = 0; i < THREADS; i++) {
		for (int q = 0; q < QPS; q++) {
			ibv_destroy_qp(w[i].qa[q]);
			ibv_destroy_qp(w[i].qb[q]);
		}
		ibv_dereg_mr(w[i].mr);
		ibv_destroy_cq(w[i].scq);
		ibv_destroy_cq(w[i].rcq);
		free(w[i].rbuf);
	}
	open_close();
	for (i = 0; i < 2; i++) {
		ibv_dealloc_pd(pd[i]);
		ibv_close_device(ctx[i]);
	}
	return tu_finish("rel_soak");
}
