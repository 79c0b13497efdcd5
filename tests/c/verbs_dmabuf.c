/* ibv_reg_dmabuf_mr(3) and the dma-buf form of ibv_reg_mr_ex (rdma-core 65): the core hands the request to the
 * provider's reg_dmabuf_mr op, returns its answer, and fills the MR's generic fields (context, pd, addr = the
 * offset, length).
 *
 * Plain (guest cases 25, 40's plug-in run): rxe has no such op, neither ours nor rdma-core's librxe, so the answer is
 * EOPNOTSUPP whatever the fd: an invalid one (-1), and a real dma-buf from /dev/dma_heap/system where the kernel
 * has dma-buf heaps (6.12, 7.2; not Debian's 6.1). Measured with rdma-core 44 and 65 on 6.1 and 7.2: EOPNOTSUPP for
 * both calls and both fds (the kernel itself refuses REG_DMABUF_MR on rxe with EOPNOTSUPP too).
 *
 * With RDMA_TEST_DMABUF_SHIM=1 (guest case 40-plugin: tests/guest/lib/dmabuf_shim.so preloaded, RDMAV_PROVIDER=plugin
 * under ours, or rdma-core 44 as the reference): the shim gave the plug-in a reg_dmabuf_mr op that records its
 * arguments, fails an fd < 0 with EBADF and otherwise returns a real MR of its own. The core must call it once per
 * request with the caller's arguments unchanged (the access flags too: no optional-access masking), pass its errno
 * on, and on success fill the generic fields; ibv_dereg_mr then frees the MR through the plug-in.
 * ibv_reg_mr_ex (absent from rdma-core 44: looked up with dlsym) reaches the same op through rdma-core 65's
 * translation of a request without a reg_mr_ex op. */
#include "testutil.h"
#include <sys/ioctl.h>
#include <linux/types.h>
#include <infiniband/verbs.h>

#define PROG "verbs_dmabuf"

/* tests/guest/lib/dmabuf_shim.c's record. */
struct dmabuf_shim_call {
	struct ibv_pd *pd;
	uint64_t offset;
	size_t length;
	uint64_t iova;
	int fd;
	int access;
};
struct dmabuf_shim_state {
	int installed;
	int calls;
	struct dmabuf_shim_call last;
};

/* linux/dma-heap.h */
struct heap_alloc {
	__u64 len;
	__u32 fd;
	__u32 fd_flags;
	__u64 heap_flags;
};
#define HEAP_IOCTL_ALLOC _IOWR('H', 0x0, struct heap_alloc)

/* A dma-buf of 64 KiB from the system heap, or -errno. */
static int heap_dmabuf(void)
{
	struct heap_alloc a = { .len = 65536, .fd_flags = O_RDWR | O_CLOEXEC };
	int h = open("/dev/dma_heap/system", O_RDWR | O_CLOEXEC), r;

	if (h < 0)
		return -errno;
	r = ioctl(h, HEAP_IOCTL_ALLOC, &a);
	r = r < 0 ? -errno : (int)a.fd;
	close(h);
	return r;
}

typedef struct ibv_mr *(*reg_mr_ex_fn)(struct ibv_pd *, struct ibv_mr_init_attr *);

static struct ibv_mr *reg_ex(reg_mr_ex_fn f, struct ibv_pd *pd, uint64_t off, size_t len, uint64_t iova, int fd,
			     int access)
{
	struct ibv_mr_init_attr a = {
		.length = len,
		.access = access,
		.comp_mask = IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA,
		.iova = iova,
		.fd = fd,
		.fd_offset = off,
	};

	return f(pd, &a);
}

/* The shim saw exactly one new call, with these arguments. */
static int saw(struct dmabuf_shim_state *s, int before, struct ibv_pd *pd, uint64_t off, size_t len, uint64_t iova,
	       int fd, int access)
{
	return s->calls == before + 1 && s->last.pd == pd && s->last.offset == off && s->last.length == len &&
	       s->last.iova == iova && s->last.fd == fd && s->last.access == access;
}

int main(void)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_RELAXED_ORDERING;
	struct dmabuf_shim_state *shim = dlsym(RTLD_DEFAULT, "dmabuf_shim");
	reg_mr_ex_fn reg_mr_ex = (reg_mr_ex_fn)dlsym(RTLD_DEFAULT, "ibv_reg_mr_ex");
	int want_shim = getenv("RDMA_TEST_DMABUF_SHIM") && atoi(getenv("RDMA_TEST_DMABUF_SHIM"));
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	int n, e, fd;

	tu_init();
	ctx = tu_open(tu_dev_name[0]);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		tu_abort(PROG, "alloc_pd", "%s", tu_errname(errno));

	if (want_shim) {
		if (!CHECK("shim-installed", shim && shim->installed > 0,
			   "the plug-in never called the shim's verbs_set_ops (%s; RDMAV_PROVIDER=plugin?)",
			   shim ? "installed 0 times" : "dmabuf_shim.so not preloaded"))
			return tu_finish(PROG);

		/* The op's failure, passed on. */
		n = shim->calls;
		errno = 0;
		mr = ibv_reg_dmabuf_mr(pd, 4096, 8192, 0x200000, -1, access);
		e = errno;
		CHECK("op-called", saw(shim, n, pd, 4096, 8192, 0x200000, -1, access),
		      "%d calls (want %d), last: offset %llu length %zu iova %#llx fd %d access %#x", shim->calls, n + 1,
		      (unsigned long long)shim->last.offset, shim->last.length, (unsigned long long)shim->last.iova,
		      shim->last.fd, shim->last.access);
		CHECK("op-errno", !mr && e == EBADF, "%p, %s (the op's EBADF)", (void *)mr, tu_errname(e));

		/* The op's MR, with the generic fields filled. */
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		n = shim->calls;
		mr = ibv_reg_dmabuf_mr(pd, 8192, 4096, 0x10000, fd, access);
		CHECK("op-success", mr && saw(shim, n, pd, 8192, 4096, 0x10000, fd, access), "%p, %s, %d calls", (void *)mr,
		      tu_errname(errno), shim->calls - n);
		if (mr) {
			CHECK("mr-fields", mr->context == ctx && mr->pd == pd && mr->addr == (void *)8192 &&
			      mr->length == 4096 && mr->lkey != 0,
			      "context %s, pd %s, addr %p (want the offset 0x2000), length %zu, lkey %#x",
			      mr->context == ctx ? "ok" : "wrong", mr->pd == pd ? "ok" : "wrong", mr->addr, mr->length,
			      mr->lkey);
			CHECK("dereg", ibv_dereg_mr(mr) == 0, "%s", tu_errname(errno));
		}

		if (reg_mr_ex) {
			n = shim->calls;
			errno = 0;
			mr = reg_ex(reg_mr_ex, pd, 64, 4096, 0x7000, -1, IBV_ACCESS_LOCAL_WRITE);
			e = errno;
			CHECK("mr_ex-op-errno", !mr && e == EBADF && saw(shim, n, pd, 64, 4096, 0x7000, -1, IBV_ACCESS_LOCAL_WRITE),
			      "%p, %s, %d calls", (void *)mr, tu_errname(e), shim->calls - n);
			n = shim->calls;
			mr = reg_ex(reg_mr_ex, pd, 12288, 4096, 0x7000, fd, IBV_ACCESS_LOCAL_WRITE);
			CHECK("mr_ex-op-success", mr && saw(shim, n, pd, 12288, 4096, 0x7000, fd, IBV_ACCESS_LOCAL_WRITE) &&
			      mr->addr == (void *)12288 && mr->length == 4096 && mr->pd == pd && mr->context == ctx,
			      "%p, %s, %d calls, addr %p", (void *)mr, tu_errname(errno), shim->calls - n,
			      mr ? mr->addr : NULL);
			if (mr)
				CHECK("mr_ex-dereg", ibv_dereg_mr(mr) == 0, "%s", tu_errname(errno));
		} else {
			printf("# no ibv_reg_mr_ex in this libibverbs (rdma-core before 65): its checks skipped\n");
		}
		close(fd);
	} else {
		errno = 0;
		mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE);
		e = errno;
		CHECK("invalid-fd", !mr && e == EOPNOTSUPP, "%p, %s (rdma-core on rxe: EOPNOTSUPP)", (void *)mr,
		      tu_errname(e));
		if (reg_mr_ex) {
			errno = 0;
			mr = reg_ex(reg_mr_ex, pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE);
			e = errno;
			CHECK("mr_ex-invalid-fd", !mr && e == EOPNOTSUPP, "%p, %s (rdma-core 65 on rxe: EOPNOTSUPP)",
			      (void *)mr, tu_errname(e));
		}
		fd = heap_dmabuf();
		if (fd < 0) {
			printf("# no dma-buf from /dev/dma_heap/system (%s): the kernel has no dma-buf heaps (Debian's 6.1)\n",
			       tu_errname(-fd));
		} else {
			errno = 0;
			mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, fd, IBV_ACCESS_LOCAL_WRITE);
			e = errno;
			CHECK("heap-dmabuf", !mr && e == EOPNOTSUPP, "%p, %s (rdma-core on rxe: EOPNOTSUPP)", (void *)mr,
			      tu_errname(e));
			if (reg_mr_ex) {
				errno = 0;
				mr = reg_ex(reg_mr_ex, pd, 0, 4096, 0, fd, IBV_ACCESS_LOCAL_WRITE);
				e = errno;
				CHECK("mr_ex-heap-dmabuf", !mr && e == EOPNOTSUPP,
				      "%p, %s (rdma-core 65 on rxe: EOPNOTSUPP)", (void *)mr, tu_errname(e));
			}
			close(fd);
		}
	}

	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tu_finish(PROG);
}
