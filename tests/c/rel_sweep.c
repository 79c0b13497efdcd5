/* rel_sweep: our own bad-input sweep (issue 15). Every exported libibverbs / librdmacm function that takes an object
 * (the header inlines excepted: they read through the object in the caller's own code, with either library), called
 * with each object argument NULL, garbage (a readable page of 0x5a bytes), stale (an object already destroyed) or
 * closed (a context already closed), and with NULL output pointers; each call in a forked child with a 5 s limit.
 *
 * Prints one line per case, "SWEEP <case> <outcome>" (ok, errno NAME, crash SIGNAME, hang), then
 *   # sweep: N cases: C crashed, H hung, E errors, S succeeded
 * and, when RDMA_SWEEP_REF names the output of a run against the other library, a comparison line per case whose
 * outcome differs. The check ("sweep-no-crash-no-hang") passes when no case crashed or hung: guest case 55 runs it
 * with our libraries (must pass) and with rdma-core's (recorded: rdma-core crashes on most garbage and stale
 * objects), and the README shows both columns.
 */
#include "testutil.h"

#include <rdma/rdma_cma.h>
#include <sys/wait.h>

static struct ibv_context *ctx, *closed_ctx;
static struct ibv_pd *pd, *stale_pd;
static struct ibv_cq *cq, *stale_cq;
static struct ibv_qp *qp, *stale_qp;
static struct ibv_mr *mr, *stale_mr;
static struct ibv_srq *stale_srq;
static struct ibv_ah *stale_ah;
static struct ibv_comp_channel *stale_ch;
static struct rdma_event_channel *cm_ch, *stale_cm_ch;
static struct rdma_cm_id *cm_id, *stale_cm_id;
static struct ibv_device **devs;
static union ibv_gid gid0;
static char buf[8192];
static union {
	char bytes[8192];
	void *align;
} garbage;

#define G ((void *)garbage.bytes)

/* Every case: a name and the call, as an expression; the result is judged by `kind`:
 *  'i' an int, 0 = success, else the errno is in errno (or, for the ibv_ calls returning an errno, the value);
 *  'p' a pointer, non-NULL = success, NULL with errno; 'v' void (only crash/hang matter). */
struct sweep_case {
	const char *name;
	char kind;
};

static long run_case(int i);

static const struct sweep_case cases[] = {
#define C(name, kind, expr) { name, kind },
#include "rel_sweep_cases.h"
#undef C
};

static long run_case(int i)
{
	struct ibv_qp_init_attr qia = { .send_cq = NULL, .recv_cq = NULL, .qp_type = IBV_QPT_RC,
					.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1, .grh = { .hop_limit = 1 } };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT };
	struct ibv_qp_init_attr qia_out;
	struct ibv_srq_attr sa;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_async_event ae;
	struct ibv_cq *ecq;
	void *ectx;
	union ibv_gid g;
	__be16 pkey;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *nid;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1 };
	int n = 0, k = 0;

	qia.send_cq = qia.recv_cq = cq;
	aha.grh.dgid = gid0;
	(void)qia_out; (void)sa; (void)da; (void)pa; (void)ae; (void)ecq; (void)ectx; (void)g; (void)pkey;
	(void)ev; (void)nid; (void)sin; (void)cp; (void)n; (void)k;
	switch (i) {
#define C(name, kind, expr)                                                                                          \
	case __COUNTER__ - BASE:                                                                                     \
		return (long)(expr);
		enum { BASE = __COUNTER__ + 1 };
#include "rel_sweep_cases.h"
#undef C
	}
	return 0;
}

static const char *signame(int s)
{
	switch (s) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGABRT: return "SIGABRT";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGKILL: return "SIGKILL";
	default: return "signal";
	}
}

int main(void)
{
	int ncases = (int)(sizeof(cases) / sizeof(cases[0])), crashed = 0, hung = 0, errors = 0, ok = 0;
	struct ibv_qp_init_attr qia;
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_ah_attr aha;

	tu_init();
	alarm(0);
	memset(garbage.bytes, 0x5a, sizeof(garbage.bytes));
	devs = ibv_get_device_list(NULL);
	ctx = tu_open(tu_dev_name[0]);
	closed_ctx = tu_open(tu_dev_name[0]);
	if (!devs || !ctx || !closed_ctx || ibv_query_gid(ctx, 1, tu_gid_index[0], &gid0))
		tu_abort("rel_sweep", "setup", "devices: %s", tu_errname(errno));
	ibv_close_device(closed_ctx);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	memset(&qia, 0, sizeof(qia));
	qia.send_cq = qia.recv_cq = cq;
	qia.qp_type = IBV_QPT_RC;
	qia.cap.max_send_wr = qia.cap.max_recv_wr = qia.cap.max_send_sge = qia.cap.max_recv_sge = 1;
	qp = pd ? ibv_create_qp(pd, &qia) : NULL;
	/* Objects created and destroyed: their pointers are stale. */
	stale_pd = ibv_alloc_pd(ctx);
	stale_cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	stale_mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	stale_qp = pd ? ibv_create_qp(pd, &qia) : NULL;
	stale_srq = pd ? ibv_create_srq(pd, &sia) : NULL;
	memset(&aha, 0, sizeof(aha));
	aha.is_global = 1;
	aha.port_num = 1;
	aha.grh.dgid = gid0;
	aha.grh.sgid_index = (uint8_t)tu_gid_index[0];
	aha.grh.hop_limit = 1;
	stale_ah = pd ? ibv_create_ah(pd, &aha) : NULL;
	stale_ch = ibv_create_comp_channel(ctx);
	cm_ch = rdma_create_event_channel();
	stale_cm_ch = rdma_create_event_channel();
	if (!pd || !cq || !mr || !qp || !stale_pd || !stale_cq || !stale_mr || !stale_qp || !stale_srq || !stale_ah ||
	    !stale_ch || !cm_ch || !stale_cm_ch || rdma_create_id(cm_ch, &cm_id, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(cm_ch, &stale_cm_id, NULL, RDMA_PS_TCP))
		tu_abort("rel_sweep", "setup", "objects: %s", tu_errname(errno));
	ibv_destroy_qp(stale_qp);
	ibv_destroy_srq(stale_srq);
	ibv_destroy_ah(stale_ah);
	ibv_dereg_mr(stale_mr);
	ibv_destroy_cq(stale_cq);
	ibv_dealloc_pd(stale_pd);
	ibv_destroy_comp_channel(stale_ch);
	rdma_destroy_id(stale_cm_id);
	rdma_destroy_event_channel(stale_cm_ch);

	for (int i = 0; i < ncases; i++) {
		int p[2], st = 0;
		long res[2] = { 0, 0 };
		uint64_t deadline;
		pid_t pid, r;

		if (pipe(p))
			tu_abort("rel_sweep", "pipe", "%s", tu_errname(errno));
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			errno = 0;
			res[0] = run_case(i);
			res[1] = errno;
			if (write(p[1], res, sizeof(res)) != sizeof(res))
				_exit(3);
			_exit(0);
		}
		close(p[1]);
		deadline = tu_now_ms() + 5000;
		while ((r = waitpid(pid, &st, WNOHANG)) == 0 && tu_now_ms() < deadline)
			usleep(2000);
		if (r == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			printf("SWEEP %s hang\n", cases[i].name);
			hung++;
		} else if (WIFSIGNALED(st)) {
			printf("SWEEP %s crash %s\n", cases[i].name, signame(WTERMSIG(st)));
			crashed++;
		} else if (read(p[0], res, sizeof(res)) != sizeof(res)) {
			printf("SWEEP %s crash exit %d\n", cases[i].name, WEXITSTATUS(st));
			crashed++;
		} else {
			int failed;

			switch (cases[i].kind) {
			case 'p':
				failed = res[0] == 0;
				break;
			case 'e': /* returns a positive errno (ibv_ calls of that convention) */
				failed = res[0] != 0;
				if (failed)
					res[1] = res[0] < 0 ? -res[0] : res[0];
				break;
			case 'v':
				failed = 0;
				break;
			default: /* 'i': 0 or -1 with errno */
				failed = res[0] != 0;
				break;
			}
			if (failed) {
				printf("SWEEP %s errno %s\n", cases[i].name, tu_errname((int)res[1]));
				errors++;
			} else {
				printf("SWEEP %s ok\n", cases[i].name);
				ok++;
			}
		}
		close(p[0]);
	}
	printf("# sweep: %d cases: %d crashed, %d hung, %d errors, %d succeeded\n", ncases, crashed, hung, errors, ok);
	CHECK("sweep-no-crash-no-hang", crashed == 0 && hung == 0, "%d of %d cases crashed, %d hung", crashed, ncases,
	      hung);
	return tu_finish("rel_sweep");
}
