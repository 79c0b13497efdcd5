/* Conformance: rdma-core 65's new provider-interface commands (IBVERBS_PRIVATE_65) against the real kernel, called
 * the way a plug-in calls them, on a Soft-RoCE context: the kernel's answer to each new uverbs method (Linux 7.2 has
 * the methods but offers the DMAH, DMABUF and COMP_CNTR objects only to drivers that implement them, so rxe answers
 * EPROTONOSUPPORT there as 6.1 and 6.12 do for every new method) and ibv_cmd_reg_mr_ex's registration with its write
 * fallback. The prototypes are driver.h's (not installed); the structs are its layouts. Expectations are rdma-core
 * 65's answers (sid's libibverbs, chrooted, on each kernel). Needs a libibverbs with IBVERBS_PRIVATE_65. See
 * testutil.h. */
#define _GNU_SOURCE
#include "testutil.h"

#define PROG "verbs_v65cmd"

/* driver.h (rdma-core 65). */
struct verbs_mr {
	struct ibv_mr ibv_mr;
	uint32_t mr_type;
	int access;
};
struct verbs_dmah {
	struct ibv_dmah dmah;
	uint32_t handle;
};
int ibv_cmd_query_port_speed(struct ibv_context *context, uint32_t port_num, uint64_t *speed);
int ibv_cmd_reg_mr_ex(struct ibv_pd *pd, struct verbs_mr *vmr, struct ibv_mr_init_attr *mr_init_attr);
/* ibv_cmd_dereg_mr is older than 65: its default version differs between libraries (IBVERBS_PRIVATE_34 in ours,
 * _65 in rdma-core 65), so it is looked up by name. */
static int (*cmd_dereg_mr)(struct verbs_mr *vmr);
int ibv_cmd_export_dmabuf_fd(struct ibv_context *ctx, off_t pg_off);
int ibv_cmd_alloc_dmah(struct ibv_context *ctx, struct verbs_dmah *st, struct ibv_dmah_init_attr *attr);
int ibv_cmd_query_comp_cntr_caps(struct ibv_context *context, struct ibv_comp_cntr_caps *caps, size_t caps_size);
int ibv_cmd_create_comp_cntr(struct ibv_context *context, struct ibv_comp_cntr *comp_cntr, void *link);

static struct tu_ep a, b;

/* What a kernel without the method answers (6.1, 6.12), or `newer` on Linux 7.2. */
static int want(int newer)
{
	return tu_kernel_ge(7, 2) ? newer : EPROTONOSUPPORT;
}

static void check_errno(const char *name, int ret, int expect)
{
	CHECK(name, ret == expect, "ret %s, want %s", tu_errname(ret), tu_errname(expect));
}

int main(void)
{
	struct ibv_mr_init_attr at;
	struct verbs_mr vmr;
	struct verbs_dmah dmah;
	struct ibv_dmah_init_attr da = { .comp_mask = 0 };
	struct ibv_comp_cntr_caps caps;
	struct ibv_comp_cntr cc;
	uint64_t speed = 0;
	struct ibv_wc wc;
	const char *why;
	int ret, fd, i, polled;

	tu_init();
	cmd_dereg_mr = (int (*)(struct verbs_mr *))dlsym(RTLD_DEFAULT, "ibv_cmd_dereg_mr");
	if (!cmd_dereg_mr)
		tu_abort(PROG, "dlsym", "no ibv_cmd_dereg_mr: %s", dlerror());
	if ((why = tu_pair_open(&a, &b, IBV_QPT_RC, 0)))
		tu_abort(PROG, "setup", "%s: %s", why, tu_errname(errno));
	printf("# kernel %s 7.2: %d\n", tu_kernel_ge(7, 2) ? ">=" : "<", tu_kernel_ge(7, 2));

	/* rxe has no query_port_speed callback: 7.2 has the method and answers EOPNOTSUPP. */
	check_errno("cmd_query_port_speed", ibv_cmd_query_port_speed(a.ctx, 1, &speed), want(EOPNOTSUPP));

	/* No DMA handles, no dma-buf export, no completion counters on rxe: 7.2 offers these objects only to drivers
	 * that implement them, so rxe's device answers as an older kernel does. */
	memset(&dmah, 0, sizeof(dmah));
	check_errno("cmd_alloc_dmah", ibv_cmd_alloc_dmah(a.ctx, &dmah, &da), EPROTONOSUPPORT);
	errno = 0;
	fd = ibv_cmd_export_dmabuf_fd(a.ctx, 0);
	CHECK("cmd_export_dmabuf_fd", fd == -1 && errno == EPROTONOSUPPORT, "fd %d (%s), want -1 EPROTONOSUPPORT", fd,
	      tu_errname(errno));
	if (fd >= 0)
		close(fd);
	memset(&caps, 0, sizeof(caps));
	check_errno("cmd_query_comp_cntr_caps/short", ibv_cmd_query_comp_cntr_caps(a.ctx, &caps, 8), EINVAL);
	check_errno("cmd_query_comp_cntr_caps", ibv_cmd_query_comp_cntr_caps(a.ctx, &caps, sizeof(caps)),
		    EPROTONOSUPPORT);
	memset(&cc, 0, sizeof(cc));
	check_errno("cmd_create_comp_cntr", ibv_cmd_create_comp_cntr(a.ctx, &cc, NULL), EPROTONOSUPPORT);

	/* Address registrations through REG_MR (7.2) or the legacy write command (older kernels), each used by an RDMA
	 * write from the other side: at the address, then at an I/O address of its own. */
	for (i = 0; i < 2; i++) {
		const char *name = i ? "cmd_reg_mr_ex/iova" : "cmd_reg_mr_ex/addr";
		uint8_t *mem = a.buf + 8192 + i * 4096;
		uint64_t remote = i ? 0x50000000 : (uintptr_t)mem;
		char sub[64];

		memset(&at, 0, sizeof(at));
		memset(&vmr, 0, sizeof(vmr));
		at.length = 4096;
		at.access = TU_ACCESS_ALL;
		at.comp_mask = IBV_REG_MR_MASK_ADDR | (i ? IBV_REG_MR_MASK_IOVA : 0);
		at.addr = mem;
		at.iova = remote;
		ret = ibv_cmd_reg_mr_ex(a.pd, &vmr, &at);
		if (!CHECK(name, ret == 0 && vmr.ibv_mr.context == a.ctx && vmr.mr_type == 0 &&
					 vmr.access == TU_ACCESS_ALL && vmr.ibv_mr.rkey,
			   "ret %s context %p type %u access %#x rkey %#x", tu_errname(ret),
			   (void *)vmr.ibv_mr.context, vmr.mr_type, vmr.access, vmr.ibv_mr.rkey))
			continue;
		tu_fill(b.buf, 512, 9 + i);
		memset(mem, 0, 512);
		memset(&wc, 0, sizeof(wc));
		ret = tu_post_send1(b.qp, 1, IBV_WR_RDMA_WRITE, b.buf, 512, b.mr->lkey, remote, vmr.ibv_mr.rkey,
				    IBV_SEND_SIGNALED);
		polled = ret ? 0 : tu_poll1(b.scq, &wc);
		snprintf(sub, sizeof(sub), "%s/rdma_write", name);
		if (tu_kernel_ge(7, 2))
			/* Linux 7.2's REG_MR method registers rxe's MR, but a peer's RDMA write to it fails with a remote
			 * access error: the kernel's answer, the same under rdma-core 65 (its write command's MRs work). */
			CHECK(sub, polled == 1 && wc.status == IBV_WC_REM_ACCESS_ERR,
			      "post %s, polled %d, %s; want a remote access error, as rdma-core 65 on 7.2",
			      tu_errname(ret), polled, tu_wc_str(&wc));
		else
			CHECK(sub, polled == 1 && wc.status == IBV_WC_SUCCESS && tu_diff_wait(mem, b.buf, 512, 2000) < 0,
			      "post %s, polled %d, %s; the write to %#llx did not land", tu_errname(ret), polled,
			      tu_wc_str(&wc), (unsigned long long)remote);
		if (polled == 1 && wc.status != IBV_WC_SUCCESS && tu_pair_reconnect(&a, &b, IBV_QPT_RC))
			tu_abort(PROG, sub, "cannot reconnect the pair");
		snprintf(sub, sizeof(sub), "%s/dereg", name);
		check_errno(sub, cmd_dereg_mr(&vmr), 0);
	}
	/* A dma-buf request with fd -1 (the attribute is left out): 7.2's method refuses it (EINVAL); older kernels have
	 * no method and an fd request has no write fallback (EOPNOTSUPP). */
	memset(&vmr, 0, sizeof(vmr));
	at.comp_mask = IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA;
	at.fd = -1;
	ret = ibv_cmd_reg_mr_ex(a.pd, &vmr, &at);
	CHECK("cmd_reg_mr_ex/dmabuf", ret == (tu_kernel_ge(7, 2) ? EINVAL : EOPNOTSUPP), "ret %s, want %s", tu_errname(ret),
	      tu_errname(tu_kernel_ge(7, 2) ? EINVAL : EOPNOTSUPP));
	if (!ret)
		cmd_dereg_mr(&vmr);

	tu_ep_close(&a);
	tu_ep_close(&b);
	return tu_finish(PROG);
}
