/* rel_errno: the errno of calls on dead or foreign handles, ours against rdma-core 44's.
 *
 * rdma-core does not check these handles: it reads the fd or handle number out of the object and lets the kernel
 * answer (EBADF for a closed or garbage fd, ENOENT for an object handle the kernel does not know). Our libraries
 * check every handle against their registry first (no crash, no use after free) and must answer with the same errno.
 * Each case runs in a forked child (5 s limit), so a crash or a hang is reported, not suffered. The expected errno
 * per case is rdma-core's, measured in the test guest (Debian 12, kernel 6.1, Soft-RoCE); a case where rdma-core
 * crashes or hangs is not compared (and is not listed here: e.g. ibv_query_port on a closed context, a header inline
 * that reads the freed context, crashes with rdma-core and with ours).
 *
 * Prints one line per case: PASS/FAIL <case> (<library>: <result>[, rdma-core: <errno>]). Run by guest case
 * 55-reliability, against our libraries and against rdma-core's (where every check must pass too).
 */
#include "testutil.h"

#include <rdma/rdma_cma.h>

/* Exit status of a child: the errno of the failed call, or 250 when it succeeded, 251+ for a setup failure. */
#define OK_STATUS 250

static int fail_status(int ret_is_errno, int ret)
{
	if (ret_is_errno)
		return ret ? ret : OK_STATUS;
	return ret ? errno : OK_STATUS;
}

static int c_cq_event_destroyed_channel(void *arg)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	void *cq_ctx;
	int ret;

	(void)arg;
	if (!ctx || !(ch = ibv_create_comp_channel(ctx)))
		return 251;
	ibv_destroy_comp_channel(ch);
	errno = 0;
	ret = fail_status(0, ibv_get_cq_event(ch, &cq, &cq_ctx));
	ibv_close_device(ctx); /* children clean up too: valgrind judges their leaks */
	return ret;
}

static int c_cq_event_garbage_channel(void *arg)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);
	struct ibv_comp_channel g;
	struct ibv_cq *cq;
	void *cq_ctx;
	int ret;

	(void)arg;
	if (!ctx)
		return 251;
	memset(&g, 0, sizeof(g));
	g.context = ctx;
	g.fd = 987;
	errno = 0;
	ret = fail_status(0, ibv_get_cq_event(&g, &cq, &cq_ctx));
	ibv_close_device(ctx);
	return ret;
}

static int c_async_event_closed_context(void *arg)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);
	struct ibv_async_event ev;

	(void)arg;
	if (!ctx)
		return 251;
	ibv_close_device(ctx);
	errno = 0;
	return fail_status(0, ibv_get_async_event(ctx, &ev));
}

/* A garbage object of the right context whose handle the kernel does not know (zeroed provider-sized memory). */
static union {
	struct ibv_pd pd;
	struct ibv_cq cq;
	struct ibv_qp qp;
	struct ibv_srq srq;
	struct ibv_mr mr;
	struct ibv_ah ah;
	char room[4096];
} garbage;

static struct ibv_context *garbage_ctx(void)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);

	memset(&garbage, 0, sizeof(garbage));
	return ctx;
}

static int c_dealloc_pd_unknown(void *arg)
{
	struct ibv_context *ctx = garbage_ctx();

	(void)arg;
	if (!ctx)
		return 251;
	garbage.pd.context = ctx;
	garbage.pd.handle = 0xdead;
	return fail_status(1, ibv_dealloc_pd(&garbage.pd));
}

static int c_dereg_mr_unknown(void *arg)
{
	struct ibv_context *ctx = garbage_ctx();
	struct ibv_pd *pd;

	(void)arg;
	if (!ctx || !(pd = ibv_alloc_pd(ctx)))
		return 251;
	garbage.mr.context = ctx;
	garbage.mr.pd = pd;
	garbage.mr.handle = 0xdead;
	return fail_status(1, ibv_dereg_mr(&garbage.mr));
}

static int c_destroy_cq_unknown(void *arg)
{
	struct ibv_context *ctx = garbage_ctx();

	(void)arg;
	if (!ctx)
		return 251;
	garbage.cq.context = ctx;
	garbage.cq.handle = 0xdead;
	return fail_status(1, ibv_destroy_cq(&garbage.cq));
}

static int c_destroy_qp_unknown(void *arg)
{
	struct ibv_context *ctx = garbage_ctx();

	(void)arg;
	if (!ctx)
		return 251;
	garbage.qp.context = ctx;
	garbage.qp.handle = 0xdead;
	return fail_status(1, ibv_destroy_qp(&garbage.qp));
}

static int c_cm_event_destroyed_channel(void *arg)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev;

	(void)arg;
	if (!ch)
		return 251;
	rdma_destroy_event_channel(ch);
	errno = 0;
	return fail_status(0, rdma_get_cm_event(ch, &ev));
}

static int c_cm_event_garbage_channel(void *arg)
{
	struct rdma_event_channel g = { .fd = 987 };
	struct rdma_cm_event *ev;

	(void)arg;
	errno = 0;
	return fail_status(0, rdma_get_cm_event(&g, &ev));
}

static int c_create_id_garbage_channel(void *arg)
{
	struct rdma_event_channel g = { .fd = 987 };
	struct rdma_cm_id *id;

	(void)arg;
	errno = 0;
	return fail_status(0, rdma_create_id(&g, &id, NULL, RDMA_PS_TCP));
}

static int c_query_device_closed_context(void *arg)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);
	struct ibv_device_attr da;

	(void)arg;
	if (!ctx)
		return 251;
	ibv_close_device(ctx);
	return fail_status(1, ibv_query_device(ctx, &da));
}

static int c_alloc_pd_closed_context(void *arg)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);

	(void)arg;
	if (!ctx)
		return 251;
	ibv_close_device(ctx);
	errno = 0;
	return ibv_alloc_pd(ctx) ? OK_STATUS : errno;
}

static int c_comp_channel_closed_context(void *arg)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);

	(void)arg;
	if (!ctx)
		return 251;
	ibv_close_device(ctx);
	errno = 0;
	return ibv_create_comp_channel(ctx) ? OK_STATUS : errno;
}

static int c_create_cq_closed_context(void *arg)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);

	(void)arg;
	if (!ctx)
		return 251;
	ibv_close_device(ctx);
	errno = 0;
	return ibv_create_cq(ctx, 4, NULL, NULL, 0) ? OK_STATUS : errno;
}

static int c_migrate_id_garbage_channel(void *arg)
{
	struct rdma_event_channel g = { .fd = 987 };
	struct rdma_cm_id *id;

	(void)arg;
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
		return 251;
	errno = 0;
	return fail_status(0, rdma_migrate_id(id, &g));
}

struct errcase {
	const char *name;
	int (*fn)(void *);
	int want; /* rdma-core's errno (measured) */
};

/* A forked child (new credentials: the kernel refuses write() commands on the parent's uverbs fd with EACCES)
 * creates a PD on the context its parent opened: rdma-core 44 carries its commands through the INVOKE_WRITE ioctl,
 * which the kernel allows, and so do we. */
static int c_fork_child_alloc_pd(void *arg)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);
	int st;
	pid_t pid;

	(void)arg;
	if (!ctx)
		return 251;
	pid = fork();
	if (pid == 0) {
		struct ibv_pd *pd;

		errno = 0;
		pd = ibv_alloc_pd(ctx);
		st = pd ? OK_STATUS : (errno ? errno : 252);
		if (pd)
			ibv_dealloc_pd(pd);
		ibv_close_device(ctx);
		_exit(st);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		st = 253 << 8;
	ibv_close_device(ctx);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 253;
}

/* Registering an unmapped range: the kernel's EFAULT (pinning the pages fails), not a library's own answer. */
static int c_reg_mr_unmapped(void *arg)
{
	struct ibv_context *ctx = tu_open(tu_dev_name[0]);
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	struct ibv_mr *mr;
	int ret;

	(void)arg;
	if (!pd)
		return 251;
	errno = 0;
	mr = ibv_reg_mr(pd, NULL, 4096, IBV_ACCESS_LOCAL_WRITE);
	ret = mr ? OK_STATUS : errno;
	if (mr)
		ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return ret;
}

static const struct errcase cases[] = {
	{ "fork_child_alloc_pd", c_fork_child_alloc_pd, OK_STATUS },
	{ "reg_mr_unmapped", c_reg_mr_unmapped, EFAULT },
	{ "cq_event_destroyed_channel", c_cq_event_destroyed_channel, EBADF },
	{ "cq_event_garbage_channel", c_cq_event_garbage_channel, EBADF },
	{ "async_event_closed_context", c_async_event_closed_context, EBADF },
	{ "dealloc_pd_unknown", c_dealloc_pd_unknown, ENOENT },
	{ "dereg_mr_unknown", c_dereg_mr_unknown, ENOENT },
	{ "destroy_cq_unknown", c_destroy_cq_unknown, ENOENT },
	{ "destroy_qp_unknown", c_destroy_qp_unknown, ENOENT },
	{ "cm_event_destroyed_channel", c_cm_event_destroyed_channel, EBADF },
	{ "cm_event_garbage_channel", c_cm_event_garbage_channel, EBADF },
	{ "create_id_garbage_channel", c_create_id_garbage_channel, EBADF },
	{ "query_device_closed_context", c_query_device_closed_context, EBADF },
	{ "alloc_pd_closed_context", c_alloc_pd_closed_context, EBADF },
	{ "comp_channel_closed_context", c_comp_channel_closed_context, EBADF },
	{ "create_cq_closed_context", c_create_cq_closed_context, EBADF },
	{ "migrate_id_garbage_channel", c_migrate_id_garbage_channel, EBADF },
};

static const char *status_str(int r)
{
	static char buf[64];

	if (r == -1)
		return "hung";
	if (r <= -2 && r > -100) {
		snprintf(buf, sizeof(buf), "signal %d", -2 - r);
		return buf;
	}
	if (r == OK_STATUS)
		return "succeeded";
	if (r > OK_STATUS) {
		snprintf(buf, sizeof(buf), "setup failed (%d)", r);
		return buf;
	}
	return tu_errname(r);
}

int main(int argc, char **argv)
{
	const char *lib = tu_ours() ? "ours" : "rdma-core";
	size_t i;

	tu_init();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct errcase *c = &cases[i];
		int r;

		if (argc > 1 && strcmp(argv[1], c->name))
			continue;
		r = tu_run_child(c->fn, NULL, 5);
		CHECK(c->name, r == c->want, "%s: %s, rdma-core answers %s", lib, status_str(r), status_str(c->want));
		if (r == c->want)
			printf("# %s: %s %s (rdma-core: %s)\n", c->name, lib, status_str(r), status_str(c->want));
	}
	return tu_finish("rel_errno");
}
