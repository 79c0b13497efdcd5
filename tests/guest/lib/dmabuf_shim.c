/* An LD_PRELOAD interposer for guest case 40-plugin: gives an rdma-core provider plug-in a reg_dmabuf_mr op that
 * records its arguments, so that the core's routing of ibv_reg_dmabuf_mr (and of ibv_reg_mr_ex's dma-buf form) to a
 * plug-in's op can be seen with a plug-in that has none (Debian's librxe). It defines verbs_set_ops, which a plug-in
 * calls from its alloc_context with its ops table: the table is copied with the reg_dmabuf_mr slot replaced, and the
 * next library's verbs_set_ops (the libibverbs under test: ours or rdma-core's) gets the copy.
 *
 * The op: an fd < 0 fails with EBADF (an errno the core must pass on as it is); otherwise it registers a buffer of
 * its own through the plug-in's reg_mr op (a real MR the plug-in's dereg_mr can free) and returns that MR; the core
 * fills its generic fields. tests/c/verbs_dmabuf.c reads `dmabuf_shim` (dlsym) to see the calls.
 *
 * Built by the case: gcc -shared -fPIC -Wl,--version-script=dmabuf_shim.map dmabuf_shim.c -ldl. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ibv_pd;
struct ibv_mr;
struct verbs_context;
typedef void (*op_t)(void);

/* Slots of struct verbs_context_ops (rdma-core's driver.h: one pointer per op, sorted by name): 76 for the
 * plug-ins of rdma-core 44 to 56 (IBVERBS_PRIVATE_34), 93 for 65's (IBVERBS_PRIVATE_65). */
#define OPS_34 76
#define REG_DMABUF_MR_34 67
#define REG_MR_34 68
#define OPS_65 93
#define REG_DMABUF_MR_65 81
#define REG_MR_65 82

#define ACCESS_LOCAL_WRITE 1

/* What the test reads. */
struct dmabuf_shim_call {
	struct ibv_pd *pd;
	uint64_t offset;
	size_t length;
	uint64_t iova;
	int fd;
	int access;
};
struct dmabuf_shim_state {
	int installed; /* verbs_set_ops calls seen */
	int calls;     /* reg_dmabuf_mr calls */
	struct dmabuf_shim_call last;
};
struct dmabuf_shim_state dmabuf_shim;

typedef struct ibv_mr *(*reg_mr_fn)(struct ibv_pd *, void *, size_t, uint64_t, int);
static reg_mr_fn plugin_reg_mr;
static op_t table_34[OPS_34], table_65[OPS_65];
static char backing[1 << 16] __attribute__((aligned(4096)));

static struct ibv_mr *shim_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
					 int access)
{
	dmabuf_shim.calls++;
	dmabuf_shim.last = (struct dmabuf_shim_call){ pd, offset, length, iova, fd, access };
	if (fd < 0 || !plugin_reg_mr || length > sizeof(backing)) {
		errno = EBADF;
		return NULL;
	}
	return plugin_reg_mr(pd, backing, length, (uintptr_t)backing, ACCESS_LOCAL_WRITE);
}

static void install(struct verbs_context *vctx, const op_t *ops, op_t *table, size_t n, size_t slot, size_t reg_mr,
		    const char *version)
{
	void (*next)(struct verbs_context *, const op_t *) =
		(void (*)(struct verbs_context *, const op_t *))dlvsym(RTLD_NEXT, "verbs_set_ops", version);

	memcpy(table, ops, n * sizeof(op_t));
	plugin_reg_mr = (reg_mr_fn)table[reg_mr];
	table[slot] = (op_t)shim_reg_dmabuf_mr;
	dmabuf_shim.installed++;
	if (next)
		next(vctx, table);
}

void shim_set_ops_34(struct verbs_context *vctx, const op_t *ops);
void shim_set_ops_65(struct verbs_context *vctx, const op_t *ops);
__asm__(".symver shim_set_ops_34, verbs_set_ops@IBVERBS_PRIVATE_34");
__asm__(".symver shim_set_ops_65, verbs_set_ops@@IBVERBS_PRIVATE_65");

void shim_set_ops_34(struct verbs_context *vctx, const op_t *ops)
{
	install(vctx, ops, table_34, OPS_34, REG_DMABUF_MR_34, REG_MR_34, "IBVERBS_PRIVATE_34");
}

void shim_set_ops_65(struct verbs_context *vctx, const op_t *ops)
{
	install(vctx, ops, table_65, OPS_65, REG_DMABUF_MR_65, REG_MR_65, "IBVERBS_PRIVATE_65");
}
