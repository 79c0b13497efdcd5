/* Shared helpers for the verbs conformance tests (tests/c/verbs_*.c).
 *
 * Every check prints one line, `PASS name (detail)` or `FAIL name: reason`; a program exits 0 only when nothing
 * failed. Names are single tokens; tests/guest/cases/25-verbs-c.sh prefixes them with the program name.
 *
 * Environment: RDMA_TEST_DEV0/1 (default rxe0/rxe1), RDMA_TEST_GID0/1 (GID index, default 1), RDMA_TEST_TIMEOUT
 * (seconds for the whole program, default 60: past it the program prints a FAIL line and exits).
 *
 * The expectations encode what rdma-core 44 does on Soft-RoCE (Debian 12's 6.1 kernel), measured in the test
 * guest: errno values, which fields a completion fills, which calls rxe rejects. They are the specification that
 * our libibverbs must meet, so they must pass with LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu too. Where rdma-core
 * 56 or 65 answers otherwise (our headers and libraries are 65's), the check follows the library it runs against
 * (tu_lib_ge56) and says so.
 */
#ifndef RDMA_CORE_RS_TESTUTIL_H
#define RDMA_CORE_RS_TESTUTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define TU_UNUSED __attribute__((unused))

static int tu_passed, tu_failed;

static TU_UNUSED void tu_pass(const char *name, const char *fmt, ...)
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
	fflush(stdout);
	tu_passed++;
}

static TU_UNUSED __attribute__((format(printf, 2, 3))) void tu_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL %s: ", name);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	tu_failed++;
}

/* CHECK(name, cond, fmt, ...): PASS when cond holds, else FAIL with the formatted reason. Returns cond (0/1). */
static TU_UNUSED __attribute__((format(printf, 3, 4))) int CHECK(const char *name, int cond, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		tu_pass(name, NULL);
		return 1;
	}
	va_start(ap, fmt);
	printf("FAIL %s: ", name);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	tu_failed++;
	return 0;
}

/* The errno symbol of a value, for messages ("EINVAL(22)"). */
static TU_UNUSED const char *tu_errname(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM(1)";
	case ENOENT: return "ENOENT(2)";
	case EINTR: return "EINTR(4)";
	case EIO: return "EIO(5)";
	case EBADF: return "EBADF(9)";
	case EAGAIN: return "EAGAIN(11)";
	case ENOMEM: return "ENOMEM(12)";
	case EACCES: return "EACCES(13)";
	case EFAULT: return "EFAULT(14)";
	case EBUSY: return "EBUSY(16)";
	case EEXIST: return "EEXIST(17)";
	case ENODEV: return "ENODEV(19)";
	case EINVAL: return "EINVAL(22)";
	case ENOSPC: return "ENOSPC(28)";
	case ERANGE: return "ERANGE(34)";
	case ENOSYS: return "ENOSYS(38)";
	case ENODATA: return "ENODATA(61)";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT(93)";
	case EOPNOTSUPP: return "EOPNOTSUPP(95)";
	case ENOTCONN: return "ENOTCONN(107)";
	case ETIMEDOUT: return "ETIMEDOUT(110)";
	default:
		snprintf(buf, sizeof(buf), "errno %d", e);
		return buf;
	}
}

/* 1 when the running kernel is MAJOR.MINOR or newer (uname's release). Expectations that depend on the kernel say
 * which difference they follow; the suite runs on Debian's 6.1 and 6.12 (GUEST_KERNEL). */
static TU_UNUSED int tu_kernel_ge(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

static TU_UNUSED uint64_t tu_now_ms_early(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static TU_UNUSED void tu_on_alarm(int sig)
{
	static const char msg[] = "FAIL timeout: the program ran past RDMA_TEST_TIMEOUT (a call or a poll hung)\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0) {
		/* nothing to do */
	}
	_exit(3);
}

/* 1 when the libibverbs.so.1 this process runs is not the system's rdma-core (i.e. ours): for the few checks where
 * we deliberately answer differently (misuse rdma-core lets through, crashes or hangs on); they record rdma-core's
 * behaviour when run against it (CASE_LIBS=stock). */
static TU_UNUSED int tu_ours(void)
{
	Dl_info info;
	void *sym = dlsym(RTLD_DEFAULT, "ibv_get_device_list");

	if (!sym || !dladdr(sym, &info) || !info.dli_fname)
		return 0;
	return strncmp(info.dli_fname, "/usr/lib/", 9) != 0 && strncmp(info.dli_fname, "/lib/", 5) != 0;
}

/* 1 when the libibverbs this process runs is rdma-core 56 or later, or ours (which is 65's): they export
 * ibv_wr_opcode_str, which 44 has not. For the checks whose expectation rdma-core 56 or 65 changed (a 56-byte
 * ibv_port_attr filled, ibv_fork_init on a fork-safe kernel); run against 44 (CASE_LIBS=stock) they record 44's
 * answer. */
static TU_UNUSED int tu_lib_ge56(void)
{
	return dlsym(RTLD_DEFAULT, "ibv_wr_opcode_str") != NULL;
}

/* 1 when our libibverbs drives the device with its own Rust provider (not rdma-core's C plug-in, which
 * RDMAV_PROVIDER=plugin selects): provider-level checks (the data path) depend on it. */
static TU_UNUSED int tu_native(void)
{
	const char *m = getenv("RDMAV_PROVIDER");

	return tu_ours() && !(m && !strcmp(m, "plugin"));
}

/* Runs fn(arg) in a forked child with a limit of `secs` seconds (RDMA_TEST_CHILD_SECS raises it: guest case
 * 57-sanitizers runs these programs under valgrind, whose start-up alone can take longer). Returns the child's exit
 * status (0-255), -1 when it hung (killed after the limit), -2 - signal when it died of a signal, -100 when fork
 * failed. */
static TU_UNUSED int tu_run_child(int (*fn)(void *), void *arg, unsigned secs)
{
	const char *lim = getenv("RDMA_TEST_CHILD_SECS");
	uint64_t deadline;
	pid_t pid, r;
	int st;

	if (lim && atoi(lim) > (int)secs)
		secs = (unsigned)atoi(lim);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -100;
	if (pid == 0) {
		alarm(0);
		_exit(fn(arg) & 0xff);
	}
	deadline = tu_now_ms_early() + secs * 1000ull;
	for (;;) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (tu_now_ms_early() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		usleep(20000);
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return -2 - WTERMSIG(st);
}

static const char *tu_dev_name[2];
static int tu_gid_index[2];

/* Reads the environment and arms the watchdog. Call first. */
static TU_UNUSED void tu_init(void)
{
	const char *s;
	int secs = 60;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tu_dev_name[0] = (s = getenv("RDMA_TEST_DEV0")) && *s ? s : "rxe0";
	tu_dev_name[1] = (s = getenv("RDMA_TEST_DEV1")) && *s ? s : "rxe1";
	tu_gid_index[0] = (s = getenv("RDMA_TEST_GID0")) && *s ? atoi(s) : 1;
	tu_gid_index[1] = (s = getenv("RDMA_TEST_GID1")) && *s ? atoi(s) : 1;
	if ((s = getenv("RDMA_TEST_TIMEOUT")) && atoi(s) > 0)
		secs = atoi(s);
	signal(SIGALRM, tu_on_alarm);
	alarm(secs);
}

/* Prints the summary line and returns the exit status. */
static TU_UNUSED int tu_finish(const char *prog)
{
	printf("%s: %d passed, %d failed\n", prog, tu_passed, tu_failed);
	return tu_failed ? 1 : 0;
}

/* A prerequisite failed: report it and stop (the checks that depend on it cannot run). */
static TU_UNUSED __attribute__((noreturn)) void tu_abort(const char *prog, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL %s: ", name);
	vprintf(fmt, ap);
	printf(" (the remaining checks of %s cannot run)\n", prog);
	va_end(ap);
	tu_failed++;
	exit(tu_finish(prog));
}

static TU_UNUSED uint64_t tu_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Reads the first line of a sysfs file (without the newline) into buf; 0 or -1. */
static TU_UNUSED int tu_read_sysfs(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static TU_UNUSED void tu_gid_str(const union ibv_gid *gid, char *out, size_t len)
{
	snprintf(out, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 gid->raw[0], gid->raw[1], gid->raw[2], gid->raw[3], gid->raw[4], gid->raw[5], gid->raw[6],
		 gid->raw[7], gid->raw[8], gid->raw[9], gid->raw[10], gid->raw[11], gid->raw[12], gid->raw[13],
		 gid->raw[14], gid->raw[15]);
}

/* Opens the device called name; NULL if there is none or it cannot be opened. */
static TU_UNUSED struct ibv_context *tu_open(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n && list[i]; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			break;
		}
	}
	ibv_free_device_list(list);
	return ctx;
}

/* ---- Endpoints: one device, PD, CQs, a QP and a registered buffer ----------------------------------------------- */

struct tu_ep {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t size;
	union ibv_gid gid;
	int gid_index;
};

#define TU_ACCESS_ALL                                                                                       \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* Opens device `side` (0 or 1), allocates a PD, two CQs (send and receive) of 64 entries and a 64 KiB buffer
 * registered with every remote access. Returns NULL on success, else what failed (errno is kept). */
static TU_UNUSED const char *tu_ep_open(struct tu_ep *ep, int side)
{
	memset(ep, 0, sizeof(*ep));
	ep->gid_index = tu_gid_index[side];
	ep->ctx = tu_open(tu_dev_name[side]);
	if (!ep->ctx)
		return "ibv_open_device";
	if (ibv_query_gid(ep->ctx, 1, ep->gid_index, &ep->gid))
		return "ibv_query_gid";
	ep->pd = ibv_alloc_pd(ep->ctx);
	if (!ep->pd)
		return "ibv_alloc_pd";
	ep->scq = ibv_create_cq(ep->ctx, 64, NULL, NULL, 0);
	if (!ep->scq)
		return "ibv_create_cq(send)";
	ep->rcq = ibv_create_cq(ep->ctx, 64, NULL, NULL, 0);
	if (!ep->rcq)
		return "ibv_create_cq(recv)";
	ep->size = 65536;
	if (posix_memalign((void **)&ep->buf, 4096, ep->size))
		return "posix_memalign";
	memset(ep->buf, 0, ep->size);
	ep->mr = ibv_reg_mr(ep->pd, ep->buf, ep->size, TU_ACCESS_ALL);
	if (!ep->mr)
		return "ibv_reg_mr";
	return NULL;
}

/* Creates ep->qp of the given type on the endpoint's PD and CQs (srq may be NULL). NULL on success. */
static TU_UNUSED const char *tu_ep_qp(struct tu_ep *ep, enum ibv_qp_type type, struct ibv_srq *srq,
				      uint32_t max_inline)
{
	struct ibv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ep->scq;
	ia.recv_cq = ep->rcq;
	ia.srq = srq;
	ia.qp_type = type;
	ia.cap.max_send_wr = 32;
	ia.cap.max_recv_wr = srq ? 0 : 32;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = srq ? 0 : 4;
	ia.cap.max_inline_data = max_inline;
	ep->qp = ibv_create_qp(ep->pd, &ia);
	return ep->qp ? NULL : "ibv_create_qp";
}

static TU_UNUSED void tu_ep_close(struct tu_ep *ep)
{
	if (ep->qp)
		ibv_destroy_qp(ep->qp);
	if (ep->mr)
		ibv_dereg_mr(ep->mr);
	if (ep->scq)
		ibv_destroy_cq(ep->scq);
	if (ep->rcq)
		ibv_destroy_cq(ep->rcq);
	if (ep->pd)
		ibv_dealloc_pd(ep->pd);
	if (ep->ctx)
		ibv_close_device(ep->ctx);
	free(ep->buf);
	memset(ep, 0, sizeof(*ep));
}

/* RESET -> INIT with remote access for RC/UC (qkey for UD). Returns 0 or the errno of ibv_modify_qp. */
static TU_UNUSED int tu_qp_init(struct ibv_qp *qp, enum ibv_qp_type type)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	if (type == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* An address vector to the remote GID (RoCE needs the GRH). */
static TU_UNUSED void tu_ah_attr(struct ibv_ah_attr *ah, const union ibv_gid *dgid, int sgid_index)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->grh.dgid = *dgid;
	ah->grh.sgid_index = (uint8_t)sgid_index;
	ah->grh.hop_limit = 64;
	ah->port_num = 1;
}

/* INIT -> RTR -> RTS of a connected (RC or UC) QP towards remote_qpn at remote_gid. 0 or an errno. */
static TU_UNUSED int tu_qp_connect(struct ibv_qp *qp, enum ibv_qp_type type, uint32_t remote_qpn,
				   const union ibv_gid *remote_gid, int sgid_index, uint32_t my_psn,
				   uint32_t remote_psn)
{
	struct ibv_qp_attr a;
	int ret, mask;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = remote_qpn;
	a.rq_psn = remote_psn;
	tu_ah_attr(&a.ah_attr, remote_gid, sgid_index);
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	if (type == IBV_QPT_RC) {
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	ret = ibv_modify_qp(qp, &a, mask);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = my_psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (type == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* UD: INIT -> RTR -> RTS. 0 or an errno. */
static TU_UNUSED int tu_qp_ud_ready(struct ibv_qp *qp, uint32_t psn)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* Brings the existing QPs of a and b (RC or UC) from RESET to RTS, connected to each other. NULL on success,
 * else what failed (errno set). */
static TU_UNUSED const char *tu_pair_connect(struct tu_ep *a, struct tu_ep *b, enum ibv_qp_type type)
{
	int ret;

	if ((ret = tu_qp_init(a->qp, type)) || (ret = tu_qp_init(b->qp, type))) {
		errno = ret;
		return "ibv_modify_qp(INIT)";
	}
	if ((ret = tu_qp_connect(a->qp, type, b->qp->qp_num, &b->gid, a->gid_index, 0x1000, 0x2000)) ||
	    (ret = tu_qp_connect(b->qp, type, a->qp->qp_num, &a->gid, b->gid_index, 0x2000, 0x1000))) {
		errno = ret;
		return "ibv_modify_qp(RTR/RTS)";
	}
	return NULL;
}

/* Two endpoints on DEV0 and DEV1 with connected QPs of `type` (RC or UC). NULL on success, else what failed. */
static TU_UNUSED const char *tu_pair_open(struct tu_ep *a, struct tu_ep *b, enum ibv_qp_type type, uint32_t max_inline)
{
	const char *why;

	if ((why = tu_ep_open(a, 0)) || (why = tu_ep_open(b, 1)))
		return why;
	if ((why = tu_ep_qp(a, type, NULL, max_inline)) || (why = tu_ep_qp(b, type, NULL, max_inline)))
		return why;
	return tu_pair_connect(a, b, type);
}

/* Moves both QPs of a pair back to RESET and reconnects them (after an error completion put them in ERROR).
 * Drains both endpoints' CQs first. 0 or an errno. */
static TU_UNUSED int tu_pair_reconnect(struct tu_ep *a, struct tu_ep *b, enum ibv_qp_type type)
{
	static uint32_t psn = 0x10000;
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc[16];
	int ret;

	if ((ret = ibv_modify_qp(a->qp, &attr, IBV_QP_STATE)) || (ret = ibv_modify_qp(b->qp, &attr, IBV_QP_STATE)))
		return ret;
	while (ibv_poll_cq(a->scq, 16, wc) > 0 || ibv_poll_cq(a->rcq, 16, wc) > 0 || ibv_poll_cq(b->scq, 16, wc) > 0 ||
	       ibv_poll_cq(b->rcq, 16, wc) > 0)
		;
	if ((ret = tu_qp_init(a->qp, type)) || (ret = tu_qp_init(b->qp, type)))
		return ret;
	psn += 0x1000;
	if ((ret = tu_qp_connect(a->qp, type, b->qp->qp_num, &b->gid, a->gid_index, psn, psn + 0x100)) ||
	    (ret = tu_qp_connect(b->qp, type, a->qp->qp_num, &a->gid, b->gid_index, psn + 0x100, psn)))
		return ret;
	return 0;
}

/* Posts one send work request with a single SGE (len 0: no SGE). Returns ibv_post_send's result. */
static TU_UNUSED int tu_post_send1(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op, void *addr,
				   uint32_t len, uint32_t lkey, uint64_t remote_addr, uint32_t rkey, unsigned flags)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.sg_list = len ? &sge : NULL;
	wr.num_sge = len ? 1 : 0;
	wr.send_flags = flags;
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

/* Polls cq until n completions arrived or timeout_ms passed; returns how many were polled into wc. A negative
 * ibv_poll_cq result stops the loop and is returned. */
static TU_UNUSED int tu_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, unsigned timeout_ms)
{
	uint64_t deadline = tu_now_ms() + timeout_ms;
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (got >= n)
			break;
		if (tu_now_ms() > deadline)
			break;
		if (r == 0)
			sched_yield();
	}
	return got;
}

/* Polls exactly one completion (5 s limit); returns 1, 0 (none) or negative. */
static TU_UNUSED int tu_poll1(struct ibv_cq *cq, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	return tu_poll(cq, wc, 1, 5000);
}

/* Posts one receive of [addr, addr+len) with the given lkey. */
static TU_UNUSED int tu_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad = NULL;

	return ibv_post_recv(qp, &wr, &bad);
}

/* Fills len bytes with a pattern that depends on seed (so different messages differ). */
static TU_UNUSED void tu_fill(void *p, size_t len, unsigned seed)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* The offset of the first differing byte, or -1 when equal. */
static TU_UNUSED long tu_diff(const void *a, const void *b, size_t len)
{
	const uint8_t *x = a, *y = b;
	size_t i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

/* Like tu_diff, but for memory a peer writes without a receive completion (RDMA Write on UC, where the sender's
 * completion only says the packet left): waits up to timeout_ms for the bytes to match before reporting. */
static TU_UNUSED long tu_diff_wait(const volatile void *a, const void *b, size_t len, unsigned timeout_ms)
{
	uint64_t end = tu_now_ms() + timeout_ms;
	long d;

	while ((d = tu_diff((const void *)a, b, len)) >= 0 && tu_now_ms() < end)
		usleep(1000);
	return d;
}

/* Describes a completion for messages. */
static TU_UNUSED const char *tu_wc_str(const struct ibv_wc *wc)
{
	static char bufs[4][256];
	static int next;
	char *buf = bufs[next++ & 3];

	snprintf(buf, sizeof(bufs[0]),
		 "wr_id=%llu status=%s opcode=%d byte_len=%u imm=0x%x wc_flags=0x%x qp_num=0x%x src_qp=0x%x",
		 (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status), wc->opcode, wc->byte_len,
		 be32toh(wc->imm_data), wc->wc_flags, wc->qp_num, wc->src_qp);
	return buf;
}

#endif
