/* Conformance: rdma-core 65's public additions (IBVERBS_1.15-1.18) on Soft-RoCE: provider buffers (ibv_alloc_buf,
 * ibv_reg_buf_mr, ibv_export_buf_dmabuf_fd, ibv_free_buf) with an RDMA write into a buffer's MR, ibv_reg_mr_ex's
 * mask rules, ibv_query_port_speed, DMA handles, device-memory dma-buf export and completion counters.
 *
 * The expectations are rdma-core 65's answers on rxe (Debian sid's libraries, run in a sid root on Linux 7.2): its rxe
 * plug-in implements none of these ops, so rdma-core's defaults answer (page-aligned buffers without dma-buf,
 * reg_mr_ex translated into reg_mr, EOPNOTSUPP for the rest), whatever the kernel. The few checks where we answer
 * differently on purpose (an object this library never handed out: rdma-core reads through it, we refuse it with
 * EINVAL) accept either answer and say which they got. Needs a libibverbs with IBVERBS_1.18: it does not load
 * with rdma-core 44. See testutil.h. */
#define _GNU_SOURCE
#include "testutil.h"

#define PROG "verbs_v65"

static struct tu_ep a, b;
static long page;

/* The MR fields rdma-core 65's ibv_reg_mr_ex fills. */
static int mr_ok(struct ibv_mr *mr, struct ibv_pd *pd, void *addr, size_t len)
{
	return mr && mr->pd == pd && mr->context == pd->context && mr->addr == addr && mr->length == len;
}

/* b writes `len` bytes of a pattern into [remote, remote+len) of a's memory through rkey; 1 when the completion is
 * a success and `local` (a's view of that memory) holds the pattern. */
static int rdma_write_into(void *local, uint64_t remote, uint32_t rkey, uint32_t len, unsigned seed)
{
	struct ibv_wc wc;

	tu_fill(b.buf, len, seed);
	memset(local, 0, len);
	if (tu_post_send1(b.qp, seed, IBV_WR_RDMA_WRITE, b.buf, len, b.mr->lkey, remote, rkey, IBV_SEND_SIGNALED))
		return 0;
	if (tu_poll1(b.scq, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
		return 0;
	return tu_diff_wait(local, b.buf, len, 2000) < 0;
}

static void buffers(void)
{
	struct ibv_buf *buf = NULL, *buf2 = NULL;
	struct ibv_mr *mr, *mr2;
	uint8_t *p;
	int fd;

	errno = 0;
	p = ibv_alloc_buf(a.pd, 3 * page, &buf);
	if (!CHECK("alloc_buf", p && buf && ((uintptr_t)p % page) == 0, "ibv_alloc_buf: %p buf %p (%s)", (void *)p,
		   (void *)buf, tu_errname(errno)))
		return;
	memset(p, 0x5a, 3 * page);

	errno = 0;
	fd = ibv_export_buf_dmabuf_fd(buf);
	CHECK("export_buf_dmabuf_fd/enodata", fd == -1 && errno == ENODATA,
	      "ordinary memory has no dma-buf: fd %d (%s), want -1 ENODATA", fd, tu_errname(errno));
	if (fd >= 0)
		close(fd);

	errno = 0;
	mr = ibv_reg_buf_mr(a.pd, buf, p, 3 * page, TU_ACCESS_ALL);
	CHECK("reg_buf_mr", mr_ok(mr, a.pd, p, 3 * page), "mr %p (%s) addr %p length %zu", (void *)mr,
	      tu_errname(errno), mr ? mr->addr : NULL, mr ? mr->length : 0);
	if (mr) {
		CHECK("reg_buf_mr/rdma_write", rdma_write_into(p + 100, (uintptr_t)p + 100, mr->rkey, 5000, 1),
		      "an RDMA write from rxe1 into the buffer's MR did not land");
		CHECK("reg_buf_mr/dereg", ibv_dereg_mr(mr) == 0, "ibv_dereg_mr failed");
	}

	/* A range inside the buffer: its own address, the device sees it at that address. */
	errno = 0;
	mr = ibv_reg_buf_mr(a.pd, buf, p + page, page, TU_ACCESS_ALL);
	CHECK("reg_buf_mr/inner_range", mr_ok(mr, a.pd, p + page, page), "mr %p (%s)", (void *)mr, tu_errname(errno));
	if (mr) {
		CHECK("reg_buf_mr/inner_range/rdma_write", rdma_write_into(p + page, (uintptr_t)p + page, mr->rkey, 512, 2),
		      "an RDMA write into the inner range did not land");
		ibv_dereg_mr(mr);
	}
	/* Ranges and PDs rdma-core 65 refuses before any provider call. */
	errno = 0;
	mr = ibv_reg_buf_mr(a.pd, buf, p, 3 * page + 1, TU_ACCESS_ALL);
	CHECK("reg_buf_mr/past_end", !mr && errno == EINVAL, "mr %p (%s), want EINVAL", (void *)mr, tu_errname(errno));
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_buf_mr(a.pd, buf, p - 1, 16, TU_ACCESS_ALL);
	CHECK("reg_buf_mr/below_start", !mr && errno == EINVAL, "mr %p (%s), want EINVAL", (void *)mr,
	      tu_errname(errno));
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_buf_mr(a.pd, buf, p + 3 * page + 1, 0, TU_ACCESS_ALL);
	CHECK("reg_buf_mr/start_past_end", !mr && errno == EINVAL, "mr %p (%s), want EINVAL", (void *)mr,
	      tu_errname(errno));
	if (mr)
		ibv_dereg_mr(mr);
	{
		struct ibv_pd *other = ibv_alloc_pd(a.ctx);

		errno = 0;
		mr = other ? ibv_reg_buf_mr(other, buf, p, page, TU_ACCESS_ALL) : NULL;
		CHECK("reg_buf_mr/other_pd", other && !mr && errno == EINVAL, "pd %p mr %p (%s), want EINVAL",
		      (void *)other, (void *)mr, tu_errname(errno));
		if (mr)
			ibv_dereg_mr(mr);
		if (other)
			ibv_dealloc_pd(other);
	}

	/* ibv_reg_mr_ex with BUF: the same rules, plus FD/FD_OFFSET refused; an own IOVA is fine for ordinary memory;
	 * the caller's attributes are never written. */
	{
		struct ibv_mr_init_attr at, copy;

		memset(&at, 0, sizeof(at));
		at.length = page;
		at.access = TU_ACCESS_ALL;
		at.comp_mask = IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA;
		at.addr = p + 2 * page;
		at.iova = 0x40000000;
		at.buf = buf;
		at.fd = 77;
		copy = at;
		errno = 0;
		mr = ibv_reg_mr_ex(a.pd, &at);
		CHECK("reg_mr_ex/buf_iova", mr_ok(mr, a.pd, p + 2 * page, page) && !memcmp(&at, &copy, sizeof(at)),
		      "mr %p (%s), attributes unchanged: %d", (void *)mr, tu_errname(errno), !memcmp(&at, &copy, sizeof(at)));
		if (mr) {
			CHECK("reg_mr_ex/buf_iova/rdma_write", rdma_write_into(p + 2 * page, 0x40000000, mr->rkey, 256, 3),
			      "an RDMA write to iova 0x40000000 did not land at the buffer's third page");
			ibv_dereg_mr(mr);
		}
		at.comp_mask = IBV_REG_MR_MASK_BUF;
		errno = 0;
		mr = ibv_reg_mr_ex(a.pd, &at);
		CHECK("reg_mr_ex/buf_without_addr", !mr && errno == EINVAL, "mr %p (%s), want EINVAL", (void *)mr,
		      tu_errname(errno));
		if (mr)
			ibv_dereg_mr(mr);
		at.comp_mask = IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD;
		errno = 0;
		mr = ibv_reg_mr_ex(a.pd, &at);
		CHECK("reg_mr_ex/buf_with_fd", !mr && errno == EINVAL, "mr %p (%s), want EINVAL", (void *)mr,
		      tu_errname(errno));
		if (mr)
			ibv_dereg_mr(mr);
	}

	/* A second buffer: a size that is not a page multiple, still page aligned. */
	errno = 0;
	p = ibv_alloc_buf(a.pd, 100, &buf2);
	CHECK("alloc_buf/small", p && buf2 && buf2 != buf && ((uintptr_t)p % page) == 0, "%p (%s)", (void *)p,
	      tu_errname(errno));
	if (buf2) {
		mr2 = ibv_reg_buf_mr(a.pd, buf2, p, 100, IBV_ACCESS_LOCAL_WRITE);
		CHECK("reg_buf_mr/small", mr_ok(mr2, a.pd, p, 100), "mr %p (%s)", (void *)mr2, tu_errname(errno));
		if (mr2)
			ibv_dereg_mr(mr2);
		ibv_free_buf(buf2);
	}
	ibv_free_buf(buf);
	tu_pass("free_buf", NULL);
}

/* ibv_reg_mr_ex without a buffer: rdma-core 65's default translation on rxe. want_errno 0: success. */
static void reg_ex(const char *name, uint64_t mask, void *addr, uint64_t iova, int want_errno)
{
	struct ibv_mr_init_attr at;
	struct ibv_mr *mr;

	memset(&at, 0, sizeof(at));
	at.length = 8192;
	at.access = TU_ACCESS_ALL;
	at.comp_mask = mask;
	at.addr = addr;
	at.iova = iova;
	at.fd = -1;
	at.fd_offset = 0;
	errno = 0;
	mr = ibv_reg_mr_ex(a.pd, &at);
	if (!want_errno) {
		if (CHECK(name, mr_ok(mr, a.pd, addr, 8192), "mask 0x%llx: mr %p (%s)", (unsigned long long)mask,
			  (void *)mr, tu_errname(errno))) {
			uint64_t remote = mask & IBV_REG_MR_MASK_IOVA ? iova : (uintptr_t)addr;
			char sub[96];

			snprintf(sub, sizeof(sub), "%s/rdma_write", name);
			CHECK(sub, rdma_write_into(addr, remote + 0, mr->rkey, 1024, 4), "the RDMA write did not land");
		}
	} else {
		CHECK(name, !mr && errno == want_errno, "mask 0x%llx: mr %p (%s), want %s", (unsigned long long)mask,
		      (void *)mr, tu_errname(errno), tu_errname(want_errno));
	}
	if (mr)
		ibv_dereg_mr(mr);
}

static void reg_mr_ex_rules(void)
{
	void *addr = a.buf + 4096;

	reg_ex("reg_mr_ex/addr", IBV_REG_MR_MASK_ADDR, addr, 0, 0);
	reg_ex("reg_mr_ex/addr_iova", IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA, addr, 0x7f0000, 0);
	reg_ex("reg_mr_ex/no_mask", 0, addr, 0, EINVAL);
	reg_ex("reg_mr_ex/iova_only", IBV_REG_MR_MASK_IOVA, addr, 0x1000, EINVAL);
	reg_ex("reg_mr_ex/addr_fd_offset", IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD_OFFSET, addr, 0, EINVAL);
	reg_ex("reg_mr_ex/fd_and_addr",
	       IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_ADDR, addr, 0,
	       EINVAL);
	reg_ex("reg_mr_ex/fd_no_offset", IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_IOVA, NULL, 0, EINVAL);
	reg_ex("reg_mr_ex/fd_no_iova", IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET, NULL, 0, EINVAL);
	/* A dma-buf request: rxe has no reg_dmabuf_mr, rdma-core's default answers EOPNOTSUPP. */
	reg_ex("reg_mr_ex/dmabuf", IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA, NULL, 0,
	       EOPNOTSUPP);
	/* What the legacy ops cannot express: a DMA handle, an unknown bit (checked before the forms). */
	reg_ex("reg_mr_ex/dmah", IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_DMAH, addr, 0, EOPNOTSUPP);
	reg_ex("reg_mr_ex/unknown_bit", IBV_REG_MR_MASK_ADDR | (1ull << 10), addr, 0, EOPNOTSUPP);
	reg_ex("reg_mr_ex/unknown_bit_no_addr", 1ull << 40, addr, 0, EOPNOTSUPP);
}

static void port_speed(void)
{
	uint64_t speed = 12345;
	int ret = ibv_query_port_speed(a.ctx, 1, &speed);

	CHECK("query_port_speed", ret == EOPNOTSUPP && speed == 12345,
	      "rxe has no query_port_speed: ret %s speed %llu, want EOPNOTSUPP and untouched", tu_errname(ret),
	      (unsigned long long)speed);
	ret = ibv_query_port_speed(a.ctx, 7, NULL);
	CHECK("query_port_speed/bad_port_null", ret == EOPNOTSUPP, "ret %s, want EOPNOTSUPP", tu_errname(ret));
}

static void dmah(void)
{
	struct ibv_dmah_init_attr at = { .comp_mask = IBV_DMAH_INIT_ATTR_MASK_CPU_ID, .cpu_id = 0 };
	struct ibv_dmah *d, fake = { .context = a.ctx };
	int ret;

	errno = 0;
	d = ibv_alloc_dmah(a.ctx, &at);
	CHECK("alloc_dmah", !d && errno == EOPNOTSUPP, "%p (%s), want EOPNOTSUPP", (void *)d, tu_errname(errno));
	errno = 0;
	d = ibv_alloc_dmah(a.ctx, NULL);
	CHECK("alloc_dmah/null_attr", !d && errno == EOPNOTSUPP, "%p (%s), want EOPNOTSUPP", (void *)d,
	      tu_errname(errno));
	/* A handle this library never made: rdma-core's default answers EOPNOTSUPP through its context, ours refuses
	 * it. */
	ret = ibv_dealloc_dmah(&fake);
	if (ret == EOPNOTSUPP || (tu_ours() && ret == EINVAL))
		tu_pass("dealloc_dmah/foreign", "%s", tu_errname(ret));
	else
		tu_fail("dealloc_dmah/foreign", "ret %s", tu_errname(ret));
}

static void dm_export(void)
{
	struct ibv_dm dm;
	int fd;

	memset(&dm, 0, sizeof(dm));
	dm.context = a.ctx;
	errno = 0;
	fd = ibv_dm_export_dmabuf_fd(&dm);
	CHECK("dm_export_dmabuf_fd", fd == -1 && errno == EOPNOTSUPP, "fd %d (%s), want -1 EOPNOTSUPP", fd,
	      tu_errname(errno));
	if (fd >= 0)
		close(fd);
}

static void counters(void)
{
	struct ibv_comp_cntr_caps caps;
	struct ibv_comp_cntr_init_attr ia = { .comp_mask = 0, .type = IBV_COMP_CNTR_TYPE_WRS, .flags = 0 };
	struct ibv_qp_attach_comp_cntr_attr qa = { .comp_mask = 0, .op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_SEND };
	struct ibv_comp_cntr *cc, fake = { .context = a.ctx, .handle = 1 };
	unsigned char raw[sizeof(caps)];
	uint64_t v = 99;
	int ret, i, zeroed;

	memset(&caps, 0xff, sizeof(caps));
	ret = ibv_query_comp_cntr_caps(a.ctx, &caps);
	memcpy(raw, &caps, sizeof(raw));
	for (i = 0, zeroed = 1; i < (int)sizeof(raw); i++)
		zeroed &= raw[i] == 0;
	CHECK("query_comp_cntr_caps", ret == EOPNOTSUPP && zeroed,
	      "ret %s, caps zeroed %d: want EOPNOTSUPP with the struct zeroed first", tu_errname(ret), zeroed);
	memset(&caps, 0xff, sizeof(caps));
	ret = _ibv_query_comp_cntr_caps(a.ctx, &caps, 8);
	memcpy(raw, &caps, sizeof(raw));
	CHECK("query_comp_cntr_caps/short_size", ret == EOPNOTSUPP && caps.max_value == 0 && raw[8] == 0xff,
	      "ret %s max_value %llx byte 8 %#x: want EOPNOTSUPP, 8 bytes zeroed, the rest untouched",
	      tu_errname(ret), (unsigned long long)caps.max_value, raw[8]);
	ret = _ibv_query_comp_cntr_caps(a.ctx, NULL, 0);
	CHECK("query_comp_cntr_caps/null_empty", ret == EOPNOTSUPP, "ret %s", tu_errname(ret));

	errno = 0;
	cc = ibv_create_comp_cntr(a.ctx, &ia);
	CHECK("create_comp_cntr", !cc && errno == EOPNOTSUPP, "%p (%s), want EOPNOTSUPP", (void *)cc,
	      tu_errname(errno));
	errno = 0;
	cc = ibv_create_comp_cntr(a.ctx, NULL);
	CHECK("create_comp_cntr/null_attr", !cc && errno == EOPNOTSUPP, "%p (%s)", (void *)cc, tu_errname(errno));

	ret = ibv_qp_attach_comp_cntr(a.qp, NULL, &qa);
	CHECK("qp_attach_comp_cntr/null_cntr", ret == EOPNOTSUPP, "ret %s, want EOPNOTSUPP", tu_errname(ret));

	/* A counter this library never made (none can be made on rxe): rdma-core's default answers EOPNOTSUPP through
	 * its context, ours refuses it; neither writes the value. */
#define FOREIGN(name, call)                                                                                        \
	do {                                                                                                       \
		ret = (call);                                                                                      \
		if (ret == EOPNOTSUPP || (tu_ours() && ret == EINVAL))                                             \
			tu_pass("foreign_cntr/" name, "%s", tu_errname(ret));                                      \
		else                                                                                               \
			tu_fail("foreign_cntr/" name, "ret %s", tu_errname(ret));                                  \
	} while (0)
	FOREIGN("set", ibv_set_comp_cntr(&fake, 5));
	FOREIGN("set_err", ibv_set_err_comp_cntr(&fake, 5));
	FOREIGN("inc", ibv_inc_comp_cntr(&fake, 5));
	FOREIGN("inc_err", ibv_inc_err_comp_cntr(&fake, 5));
	FOREIGN("read", ibv_read_comp_cntr(&fake, &v));
	FOREIGN("read_err", ibv_read_err_comp_cntr(&fake, &v));
	FOREIGN("attach", ibv_qp_attach_comp_cntr(a.qp, &fake, &qa));
	FOREIGN("destroy", ibv_destroy_comp_cntr(&fake));
#undef FOREIGN
	CHECK("foreign_cntr/value_untouched", v == 99, "v %llu", (unsigned long long)v);
}

int main(void)
{
	const char *why;

	tu_init();
	page = sysconf(_SC_PAGESIZE);
	if ((why = tu_pair_open(&a, &b, IBV_QPT_RC, 0)))
		tu_abort(PROG, "setup", "%s: %s", why, tu_errname(errno));
	buffers();
	reg_mr_ex_rules();
	port_speed();
	dmah();
	dm_export();
	counters();
	tu_ep_close(&a);
	tu_ep_close(&b);
	return tu_finish(PROG);
}
