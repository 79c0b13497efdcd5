/* Calls rdma-core's provider interface (the ibv_cmd_* of IBVERBS_PRIVATE_34, as rdma-core PC_RELEASE built it: 44 or
 * 56) with fixed inputs, as a provider plug-in of that release would, in the library given as argv[1] (Debian's
 * libibverbs.so.1 of that release, or ours). The
 * interposer (interpose.c) plays the kernel and logs every command; run.sh runs this once per library and diffs the
 * logs. Every buffer and object lives in an arena at a fixed address, so pointers the commands carry (user
 * handles, response addresses) are equal in both runs.
 *
 *   driver LIBIBVERBS LOG ours|ref
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cmds.h"

#define FN(ret, name, args) static ret(*p_##name) args;
PC_FUNCS(FN)
PC_FUNCS_56(FN)

/* The calls whose prototype rdma-core 65 changed, with 44's and 56's arguments (65's new ones NULL). */
#if PC_RELEASE >= 65
#define cmd_get_context(v, c, cs, r, rs) p_ibv_cmd_get_context(v, c, cs, NULL, r, rs)
#define cmd_create_cq_ex(ctx, a, cq, ...) p_ibv_cmd_create_cq_ex(ctx, a, NULL, cq, __VA_ARGS__)
#define cmd_create_cq_ex2(ctx, a, cq, ...) p_ibv_cmd_create_cq_ex2(ctx, a, NULL, cq, __VA_ARGS__)
#define cmd_create_qp_ex2(...) p_ibv_cmd_create_qp_ex2(__VA_ARGS__, NULL)
#else
#define cmd_get_context p_ibv_cmd_get_context
#define cmd_create_cq_ex p_ibv_cmd_create_cq_ex
#define cmd_create_cq_ex2 p_ibv_cmd_create_cq_ex2
#define cmd_create_qp_ex2 p_ibv_cmd_create_qp_ex2
#endif

#define ARENA ((void *)0x100000000000ull)
#define ARENA_LEN (16u << 20)
#define FAKE_FD 900
#define DRIVER_ID 1

static unsigned char *arena_next;

static void die(const char *what)
{
	fprintf(stderr, "driver: %s\n", what);
	exit(2);
}

/* Zeroed arena memory (64-byte aligned): the same address in both runs. */
static void *A(size_t n)
{
	void *p = arena_next;

	arena_next += (n + 63) & ~(size_t)63;
	if (arena_next > (unsigned char *)ARENA + ARENA_LEN)
		die("arena full");
	return p;
}

/* A provider's `struct ibv_<cmd>` + driver data: `hdr` header bytes (zero), `core` bytes of `fill`, then `drv`
 * driver bytes 0xd0, 0xd1, ... */
static void *pcmd(size_t hdr, size_t core, unsigned char fill, size_t drv, size_t *size)
{
	unsigned char *p = A(hdr + core + drv);

	memset(p + hdr, fill, core);
	for (size_t i = 0; i < drv; i++)
		p[hdr + core + i] = 0xd0 + i;
	*size = hdr + core + drv;
	return p;
}

/* A response buffer of `core` + `drv` bytes. */
static void *presp(size_t core, size_t drv, size_t *size)
{
	*size = core + drv;
	return A(core + drv);
}

/* A canned write reply: `core` bytes of `s`, then the driver response 0xe0, 0xe1, ... */
static void reply(const void *s, size_t core, size_t drv)
{
	unsigned char b[1024] = { 0 };

	memcpy(b, s, core);
	for (size_t i = 0; i < drv; i++)
		b[core + i] = 0xe0 + i;
	plugcmd_write_reply(b, core + drv);
}

static void logbytes(const char *what, const void *p, size_t n)
{
	char s[4096];
	size_t o = 0;

	for (size_t i = 0; i < n && o + 3 < sizeof(s); i++)
		o += snprintf(s + o, sizeof(s) - o, "%02x", ((const unsigned char *)p)[i]);
	s[o] = 0;
	plugcmd_log("  %s %s", what, s);
}

/* Zeroes stack below this frame, so that what rdma-core's ibv_cmd_post_* leave unset in their alloca'd command
 * reads as zero (ours zero-fills its command buffer). */
static __attribute__((noinline)) void scrub_stack(void)
{
	unsigned char b[65536];

	explicit_bzero(b, sizeof(b));
}

#define RUN(label, call)                                                   \
	({                                                                 \
		int _rc;                                                   \
		plugcmd_mark(label);                                       \
		_rc = (call);                                              \
		plugcmd_log("R %s rc=%d", label, _rc);                     \
		_rc;                                                       \
	})

/* As RUN, with the stack below zeroed just before the call: rdma-core's ibv_cmd_post_* leave some bytes of their
 * alloca'd command unset (reserved fields, the unused part of the work request union), which then read as zero as
 * ours do. */
#define RUN_SCRUBBED(label, call)                                          \
	({                                                                 \
		int _rc;                                                   \
		plugcmd_mark(label);                                       \
		scrub_stack();                                             \
		_rc = (call);                                              \
		plugcmd_log("R %s rc=%d", label, _rc);                     \
		_rc;                                                       \
	})

#define SZ(s) sizeof(struct s)
#define H 8
#define XH 24

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	struct verbs_context *vctx;
	struct ibv_device *dev;
	void *h, *wrapper;
	size_t cs, rs;
	void *cmd, *resp;
	int ours, fd;

	if (argc != 4)
		die("usage: driver LIBIBVERBS LOG ours|ref");
	ours = !strcmp(argv[3], "ours");
	if (mmap(ARENA, ARENA_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
	    ARENA)
		die("arena mmap");
	arena_next = ARENA;
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		die(dlerror());
/* The provider interface of the release: IBVERBS_PRIVATE_34 for 44 and 56, IBVERBS_PRIVATE_65 for 65 (a library
 * serving both has the names both have in both nodes, some with other prototypes). */
#define LOAD(ret, name, args)                                                  \
	p_##name = (ret(*) args)dlvsym(h, #name, PC_NODE);                     \
	if (!p_##name)                                                         \
		p_##name = (ret(*) args)dlsym(h, #name);                       \
	if (!p_##name)                                                         \
		die("missing " #name);
	PC_FUNCS(LOAD)
	PC_FUNCS_56(LOAD)

	fd = open("/dev/null", O_RDWR);
	if (fd < 0 || dup2(fd, FAKE_FD) != FAKE_FD)
		die("fake fd");
	close(fd);
	plugcmd_start(FAKE_FD, ARENA, ARENA_LEN, argv[2]);

	/* Discovery of the fake device in both libraries: rdma-core learns the uverbs ABI version there (which selects
	 * its command variants), ours needs one of its own devices for the context. rdma-core's context set-up only
	 * holds a reference on the device (and query_device_any reads its sysfs port count): a zeroed verbs_device
	 * serves. Both runs allocate the same arena memory, so later addresses match. */
	struct verbs_device *vd = A(sizeof(*vd));
	int n = 0;
	struct ibv_device **list = p_ibv_get_device_list(&n);

	vd->sysfs = A(4096);
	dev = &vd->device;
	if (ours) {
		if (!list || n < 1)
			die("our library found no (fake) device");
		dev = list[0];
	}
	wrapper = p__verbs_init_and_alloc_context(dev, FAKE_FD, 64 + PC_VCTX_SIZE, (struct verbs_context *)64,
						   DRIVER_ID);
	if (!wrapper)
		die("_verbs_init_and_alloc_context");
	vctx = (struct verbs_context *)((char *)wrapper + 64);
	ctx = (struct ibv_context *)((char *)vctx + PC_CTX_OFFSET);

	/* ---------------------------------------------------------------- context and device */
	{
		struct ib_uverbs_get_context_resp r = { .async_fd = 901, .num_comp_vectors = 3 };

		cmd = pcmd(H, SZ(ib_uverbs_get_context), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_get_context_resp), 8, &rs);
		reply(&r, sizeof(r), 8);
		RUN("get_context", cmd_get_context(vctx, cmd, cs, resp, rs));
		plugcmd_log("  async_fd=%d num_comp_vectors=%d", ctx->async_fd, ctx->num_comp_vectors);
		logbytes("resp", resp, rs);
	}
	{
		struct ib_uverbs_query_port_resp r = { .port_cap_flags = 0x2010000, .max_msg_sz = 0x80000000, .gid_tbl_len = 16,
						       .pkey_tbl_len = 1, .lid = 5, .sm_lid = 1, .state = 4, .max_mtu = 5,
						       .active_mtu = 3, .lmc = 0, .max_vl_num = 1, .active_width = 2,
						       .active_speed = 0x10, .phys_state = 5, .link_layer = 2, .flags = 1 };
		struct ibv_port_attr *pa = A(sizeof(*pa));

		cmd = pcmd(H, SZ(ib_uverbs_query_port), 0x5a, 0, &cs);
		reply(&r, sizeof(r), 0);
		RUN("query_port", p_ibv_cmd_query_port(ctx, 1, pa, cmd, cs));
		plugcmd_log("  state=%d max_mtu=%d active_mtu=%d gid_tbl_len=%d lid=%u caps=%#x speed=%u ll=%u flags=%u",
			    pa->state, pa->max_mtu, pa->active_mtu, pa->gid_tbl_len, pa->lid, pa->port_cap_flags,
			    pa->active_speed, pa->link_layer, pa->flags);
		if (PC_RELEASE >= 56) /* active_speed_ex, after the 52 bytes of rdma-core 44's struct */
			plugcmd_log("  speed_ex=%u", *(uint32_t *)((char *)pa + 52));
	}
	{
		struct ib_uverbs_ex_query_device_resp r = { 0 };
		struct ibv_device_attr_ex *attr = A(sizeof(*attr));
		size_t size;

		r.base.max_qp = 77;
		r.base.max_cqe = 4096;
		r.base.phys_port_cnt = 2;
		r.base.atomic_cap = 1;
		r.base.node_guid = 0x1122334455667788ull;
		r.response_length = offsetof(struct ib_uverbs_ex_query_device_resp, xrc_odp_caps) + 4;
		r.hca_core_clock = 156250;
		r.device_cap_flags_ex = 0x1234567890ull;
		r.rss_caps.max_rwq_indirection_table_size = 64;
		r.max_dm_size = 1 << 20;
		resp = presp(SZ(ib_uverbs_ex_query_device_resp), 8, &rs);
		size = rs;
		reply(&r, sizeof(r), 8);
		RUN("query_device_any (extended)", p_ibv_cmd_query_device_any(ctx, NULL, attr, sizeof(*attr), resp, &size));
		plugcmd_log("  size=%zu max_qp=%d max_cqe=%d ports=%u/%u clock=%lu capex=%#lx rss=%u dm=%lu atomic=%d guid=%#lx",
			    size, attr->orig_attr.max_qp, attr->orig_attr.max_cqe, attr->orig_attr.phys_port_cnt,
			    attr->phys_port_cnt_ex, (unsigned long)attr->hca_core_clock,
			    (unsigned long)attr->device_cap_flags_ex, attr->rss_caps.max_rwq_indirection_table_size,
			    (unsigned long)attr->max_dm_size, attr->orig_attr.atomic_cap,
			    (unsigned long)attr->orig_attr.node_guid);
		logbytes("resp-driver", (char *)resp + SZ(ib_uverbs_ex_query_device_resp), 8);

		reply(&r.base, sizeof(r.base), 0);
		size = rs;
		RUN("query_device_any (legacy size)",
		    p_ibv_cmd_query_device_any(ctx, NULL, attr, sizeof(struct ibv_device_attr), resp, &size));
		plugcmd_log("  size=%zu max_qp=%d", size, attr->orig_attr.max_qp);

		r.response_length = sizeof(r);
		reply(&r, sizeof(r), 0);
		RUN("query_device_any (internal response)",
		    p_ibv_cmd_query_device_any(ctx, NULL, attr, offsetof(struct ibv_device_attr_ex, max_dm_size), NULL, NULL));
		plugcmd_log("  clock=%lu dm=%lu", (unsigned long)attr->hca_core_clock, (unsigned long)attr->max_dm_size);
	}

	/* ---------------------------------------------------------------- PD, XRCD, MR, MW */
	struct ibv_pd *pd = A(sizeof(*pd));
	{
		struct ib_uverbs_alloc_pd_resp r = { .pd_handle = 0x10 };

		cmd = pcmd(H, SZ(ib_uverbs_alloc_pd), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_alloc_pd_resp), 4, &rs);
		reply(&r, sizeof(r), 4);
		RUN("alloc_pd", p_ibv_cmd_alloc_pd(ctx, pd, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u ctx-ok=%d", pd->handle, pd->context == ctx);
		logbytes("resp", resp, rs);
	}
	struct verbs_xrcd *xrcd = A(sizeof(*xrcd));
	{
		struct ib_uverbs_open_xrcd_resp r = { .xrcd_handle = 0x21 };
		struct ibv_xrcd_init_attr *xa = A(sizeof(*xa));

		xa->comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
		xa->fd = -1;
		xa->oflags = O_CREAT;
		cmd = pcmd(H, SZ(ib_uverbs_open_xrcd), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_open_xrcd_resp), 4, &rs);
		reply(&r, sizeof(r), 4);
		RUN("open_xrcd", p_ibv_cmd_open_xrcd(ctx, xrcd, sizeof(*xrcd), xa, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u comp_mask=%u ctx-ok=%d", xrcd->handle, xrcd->comp_mask, xrcd->xrcd.context == ctx);
		xa->comp_mask = IBV_XRCD_INIT_ATTR_FD;
		RUN("open_xrcd (no oflags)", p_ibv_cmd_open_xrcd(ctx, xrcd, sizeof(*xrcd), xa, cmd, cs, resp, rs));
	}
	struct verbs_mr *mr = A(sizeof(*mr));
	void *buf = A(8192);
	{
		struct ib_uverbs_reg_mr_resp r = { .mr_handle = 0x31, .lkey = 0x3132, .rkey = 0x3334 };

		cmd = pcmd(H, SZ(ib_uverbs_reg_mr), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_reg_mr_resp), 4, &rs);
		reply(&r, sizeof(r), 4);
		RUN("reg_mr", p_ibv_cmd_reg_mr(pd, buf, 4096, 0x7000, 7, mr, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u lkey=%#x rkey=%#x type=%u access=%d", mr->ibv_mr.handle, mr->ibv_mr.lkey,
			    mr->ibv_mr.rkey, mr->mr_type, mr->access);
		reply(&r, sizeof(r), 4);
		RUN("reg_mr (implicit odp)", p_ibv_cmd_reg_mr(pd, NULL, SIZE_MAX, 0, IBV_ACCESS_ON_DEMAND | 1,
							      A(sizeof(struct verbs_mr)), cmd, cs, resp, rs));
		RUN("reg_mr (odp SIZE_MAX at an address)",
		    p_ibv_cmd_reg_mr(pd, buf, SIZE_MAX, 0, IBV_ACCESS_ON_DEMAND, A(sizeof(struct verbs_mr)), cmd, cs, resp,
				     rs));

		struct ib_uverbs_rereg_mr_resp rr = { .lkey = 0x4142, .rkey = 0x4344 };

		cmd = pcmd(H, SZ(ib_uverbs_rereg_mr), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_rereg_mr_resp), 8, &rs);
		reply(&rr, sizeof(rr), 8);
		RUN("rereg_mr", p_ibv_cmd_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS |
							   IBV_REREG_MR_CHANGE_TRANSLATION,
						   (char *)buf + 4096, 2048, 0x9000, 3, pd, cmd, cs, resp, rs));
		plugcmd_log("  lkey=%#x rkey=%#x", mr->ibv_mr.lkey, mr->ibv_mr.rkey);
		reply(&rr, sizeof(rr), 8);
		RUN("rereg_mr (same pd)", p_ibv_cmd_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, 0, 0, 1, NULL, cmd,
							     cs, resp, rs));
	}
	struct ibv_mw *mw = A(sizeof(*mw));
	{
		struct ib_uverbs_alloc_mw_resp r = { .mw_handle = 0x41, .rkey = 0x4243 };

		cmd = pcmd(H, SZ(ib_uverbs_alloc_mw), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_alloc_mw_resp), 8, &rs);
		reply(&r, sizeof(r), 8);
		RUN("alloc_mw", p_ibv_cmd_alloc_mw(pd, IBV_MW_TYPE_2, mw, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u rkey=%#x type=%d pd-ok=%d", mw->handle, mw->rkey, mw->type, mw->pd == pd);
	}

	/* ---------------------------------------------------------------- CQ */
	struct ibv_comp_channel *ch = A(sizeof(*ch));
	ch->context = ctx;
	ch->fd = 5;
	struct ibv_cq *cq = A(sizeof(struct verbs_cq));
	{
		struct ib_uverbs_create_cq_resp r = { .cq_handle = 0x51, .cqe = 127 };

		cmd = pcmd(H, SZ(ib_uverbs_create_cq), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_create_cq_resp), 8, &rs);
		reply(&r, sizeof(r), 8);
		RUN("create_cq", p_ibv_cmd_create_cq(ctx, 100, ch, 1, cq, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u cqe=%d ctx-ok=%d", cq->handle, cq->cqe, cq->context == ctx);
		logbytes("resp", resp, rs);
		p_verbs_init_cq(cq, ctx, ch, (void *)0x1234);
		plugcmd_log("  verbs_init_cq: channel refcnt=%d cq_context=%p", ch->refcnt, cq->cq_context);
	}
	struct verbs_cq *cqx[3];
	{
		struct ibv_cq_init_attr_ex *ca = A(sizeof(*ca));
		struct ib_uverbs_ex_create_cq_resp r = { .base = { .cq_handle = 0x52, .cqe = 255 } };
		struct ib_uverbs_create_cq_resp rl = { .cq_handle = 0x53, .cqe = 63 };

		ca->cqe = 200;
		ca->channel = ch;
		ca->comp_vector = 2;
		ca->wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
		for (int i = 0; i < 3; i++)
			cqx[i] = A(sizeof(struct verbs_cq));
		cmd = pcmd(XH, SZ(ib_uverbs_ex_create_cq), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_ex_create_cq_resp), 8, &rs);
		reply(&rl, sizeof(rl), 8);
		RUN("create_cq_ex (no flags: legacy command)",
		    cmd_create_cq_ex(ctx, ca, cqx[0], cmd, cs, resp, rs, 0));
		plugcmd_log("  handle=%u cqe=%d", cqx[0]->cq.handle, cqx[0]->cq.cqe);
		logbytes("resp", resp, rs);

		ca->comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		ca->flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
		reply(&r, sizeof(r), 8);
		RUN("create_cq_ex (ignore overrun: extended)", cmd_create_cq_ex(ctx, ca, cqx[1], cmd, cs, resp, rs, 0));
		plugcmd_log("  handle=%u cqe=%d", cqx[1]->cq.handle, cqx[1]->cq.cqe);
		logbytes("resp", resp, rs);

		ca->comp_mask = 0;
		ca->wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		reply(&rl, sizeof(rl), 8);
		RUN("create_cq_ex (timestamp ignored)", cmd_create_cq_ex(ctx, ca, cqx[2], cmd, cs, resp, rs,
									       PC_CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX));
		reply(&r, sizeof(r), 8);
		RUN("create_cq_ex (timestamp)", cmd_create_cq_ex(ctx, ca, A(sizeof(struct verbs_cq)), cmd, cs, resp,
								       rs, 0));
		ca->comp_mask = 1 << 7;
		RUN("create_cq_ex (bad comp_mask)", cmd_create_cq_ex(ctx, ca, cqx[2], cmd, cs, resp, rs, 0));
#if PC_RELEASE >= 56
		/* ibv_cmd_create_cq_ex2 with no driver chain, and with one holding an optional attribute only (which the
		 * write command cannot carry, so it is dropped): the same commands as ibv_cmd_create_cq_ex. */
		struct pc_cmdb *opt = A(sizeof(*opt));

		opt->b.hdr.object_id = UVERBS_OBJECT_CQ;
		opt->b.hdr.method_id = UVERBS_METHOD_CQ_CREATE;
		opt->b.uhw_in_idx = 0xff;
		opt->b.uhw_out_idx = 0xff;
		opt->b.next_attr = opt->b.hdr.attrs;
		opt->b.last_attr = opt->b.hdr.attrs + 8;
		*opt->b.next_attr++ = (struct ib_uverbs_attr){ .attr_id = 0x1002, .len = 4, .data = 0x77 };
		ca->comp_mask = 0;
		ca->wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
		reply(&rl, sizeof(rl), 8);
		RUN("create_cq_ex2 (no chain: legacy command)",
		    cmd_create_cq_ex2(ctx, ca, A(sizeof(struct verbs_cq)), cmd, cs, resp, rs, 0, NULL));
		logbytes("resp", resp, rs);
		ca->comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		ca->flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
		reply(&r, sizeof(r), 8);
		RUN("create_cq_ex2 (optional driver attribute: extended)",
		    cmd_create_cq_ex2(ctx, ca, A(sizeof(struct verbs_cq)), cmd, cs, resp, rs, 0, &opt->b));
		logbytes("resp", resp, rs);
		ca->comp_mask = 1 << 7;
		RUN("create_cq_ex2 (bad comp_mask)",
		    cmd_create_cq_ex2(ctx, ca, A(sizeof(struct verbs_cq)), cmd, cs, resp, rs, 0, NULL));
#endif
		for (int i = 0; i < 3; i++)
			p_verbs_init_cq(&cqx[i]->cq, ctx, NULL, NULL);
	}
	{
		struct ib_uverbs_resize_cq_resp r = { .cqe = 511 };

		cmd = pcmd(H, SZ(ib_uverbs_resize_cq), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_resize_cq_resp), 8, &rs);
		reply(&r, sizeof(r), 8);
		RUN("resize_cq", p_ibv_cmd_resize_cq(cq, 500, cmd, cs, resp, rs));
		plugcmd_log("  cqe=%d", cq->cqe);
		RUN("req_notify_cq", p_ibv_cmd_req_notify_cq(cq, 7));
	}
	{
		struct {
			struct ib_uverbs_poll_cq_resp h;
			struct ib_uverbs_wc wc;
		} r = { .h = { .count = 1 },
			.wc = { .wr_id = 0xabcdef, .status = 5, .opcode = 2, .vendor_err = 3, .byte_len = 4096,
				.ex = { .imm_data = 0x1234 }, .qp_num = 0x11, .src_qp = 0x22, .wc_flags = 3,
				.pkey_index = 1, .slid = 7, .sl = 2, .dlid_path_bits = 1 } };
		struct ibv_wc *wc = A(3 * sizeof(*wc));

		memset(wc, 0x77, 3 * sizeof(*wc));
		plugcmd_write_reply(&r, sizeof(r));
		int n = RUN("poll_cq", p_ibv_cmd_poll_cq(cq, 3, wc));
		plugcmd_log("  n=%d", n);
		logbytes("wc", wc, 2 * sizeof(*wc));
	}
	{
		struct ibv_modify_cq_attr *ma = A(sizeof(*ma));

		ma->attr_mask = IBV_CQ_ATTR_MODERATE;
		ma->moderate.cq_count = 16;
		ma->moderate.cq_period = 100;
		cmd = pcmd(XH, SZ(ib_uverbs_ex_modify_cq), 0x5a, 8, &cs);
		RUN("modify_cq", p_ibv_cmd_modify_cq(cq, ma, cmd, cs));
		ma->attr_mask = IBV_CQ_ATTR_RESERVED;
		RUN("modify_cq (reserved mask)", p_ibv_cmd_modify_cq(cq, ma, cmd, cs));
	}

	/* ---------------------------------------------------------------- SRQ */
	struct ibv_srq *srq = A(sizeof(struct verbs_srq));
	{
		struct ib_uverbs_create_srq_resp r = { .srq_handle = 0x61, .max_wr = 128, .max_sge = 2, .srqn = 0x99 };
		struct ibv_srq_init_attr *sa = A(sizeof(*sa));

		sa->srq_context = (void *)0x55;
		sa->attr.max_wr = 100;
		sa->attr.max_sge = 1;
		sa->attr.srq_limit = 10;
		cmd = pcmd(H, SZ(ib_uverbs_create_srq), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_create_srq_resp), 8, &rs);
		reply(&r, sizeof(r), 8);
		RUN("create_srq", p_ibv_cmd_create_srq(pd, srq, sa, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u max_wr=%u max_sge=%u ctx-ok=%d", srq->handle, sa->attr.max_wr, sa->attr.max_sge,
			    srq->context == ctx);
	}
	struct verbs_srq *xsrq[3];
	{
		struct ib_uverbs_create_srq_resp r = { .srq_handle = 0x62, .max_wr = 256, .max_sge = 3, .srqn = 0x9a };
		struct ibv_srq_init_attr_ex *sx = A(sizeof(*sx));

		for (int i = 0; i < 3; i++)
			xsrq[i] = A(sizeof(struct verbs_srq));
		sx->attr.max_wr = 200;
		sx->attr.max_sge = 2;
		sx->comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
		sx->srq_type = IBV_SRQT_BASIC;
		sx->pd = pd;
		cmd = pcmd(H, SZ(ib_uverbs_create_xsrq), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_create_srq_resp), 8, &rs);
		reply(&r, sizeof(r), 8);
		RUN("create_srq_ex (basic: CREATE_SRQ)", p_ibv_cmd_create_srq_ex(ctx, xsrq[0], sx, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u type=%d num=%u max_wr=%u", xsrq[0]->srq.handle, xsrq[0]->srq_type, xsrq[0]->srq_num,
			    sx->attr.max_wr);

		sx->comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		sx->srq_type = IBV_SRQT_XRC;
		sx->xrcd = &xrcd->xrcd;
		sx->cq = cq;
		cmd = pcmd(H, SZ(ib_uverbs_create_xsrq), 0x5a, 0, &cs);
		resp = presp(SZ(ib_uverbs_create_srq_resp), 0, &rs);
		reply(&r, sizeof(r), 0);
		RUN("create_srq_ex (xrc)", p_ibv_cmd_create_srq_ex(ctx, xsrq[1], sx, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u type=%d num=%#x xrcd-ok=%d cq-ok=%d", xsrq[1]->srq.handle, xsrq[1]->srq_type,
			    xsrq[1]->srq_num, xsrq[1]->xrcd == xrcd, xsrq[1]->cq == cq);

		sx->comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM;
		sx->srq_type = IBV_SRQT_TM;
		sx->tm_cap.max_num_tags = 64;
		cmd = pcmd(H, SZ(ib_uverbs_create_xsrq), 0x5a, 16, &cs);
		resp = presp(SZ(ib_uverbs_create_srq_resp), 8, &rs);
		reply(&r, sizeof(r), 8);
		RUN("create_srq_ex (tag matching)", p_ibv_cmd_create_srq_ex(ctx, xsrq[2], sx, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u type=%d cq-ok=%d", xsrq[2]->srq.handle, xsrq[2]->srq_type, xsrq[2]->cq == cq);

		sx->tm_cap.max_num_tags = 0;
		RUN("create_srq_ex (tm without tags)", p_ibv_cmd_create_srq_ex(ctx, xsrq[2], sx, cmd, cs, resp, rs));
		sx->comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
		RUN("create_srq_ex (no pd)", p_ibv_cmd_create_srq_ex(ctx, xsrq[2], sx, cmd, cs, resp, rs));
		sx->comp_mask = 1 << 10;
		RUN("create_srq_ex (reserved mask)", p_ibv_cmd_create_srq_ex(ctx, xsrq[2], sx, cmd, cs, resp, rs));
	}
	{
		struct ibv_srq_attr *a = A(sizeof(*a));
		struct ib_uverbs_query_srq_resp r = { .max_wr = 300, .max_sge = 4, .srq_limit = 5 };

		a->max_wr = 400;
		a->srq_limit = 20;
		cmd = pcmd(H, SZ(ib_uverbs_modify_srq), 0x5a, 8, &cs);
		RUN("modify_srq", p_ibv_cmd_modify_srq(srq, a, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT, cmd, cs));
		cmd = pcmd(H, SZ(ib_uverbs_query_srq), 0x5a, 0, &cs);
		reply(&r, sizeof(r), 0);
		RUN("query_srq", p_ibv_cmd_query_srq(srq, a, cmd, cs));
		plugcmd_log("  max_wr=%u max_sge=%u limit=%u", a->max_wr, a->max_sge, a->srq_limit);
	}

	/* ---------------------------------------------------------------- QP */
	struct ibv_qp *qp = A(sizeof(struct verbs_qp));
	struct ib_uverbs_create_qp_resp qr = { .qp_handle = 0x71, .qpn = 0x1234, .max_recv_sge = 2, .max_send_sge = 3,
					       .max_recv_wr = 64, .max_send_wr = 128, .max_inline_data = 256 };
	{
		struct ibv_qp_init_attr *ia = A(sizeof(*ia));

		ia->qp_context = (void *)0x77;
		ia->send_cq = cq;
		ia->recv_cq = &cqx[0]->cq;
		ia->srq = srq;
		ia->cap.max_send_wr = 100;
		ia->cap.max_recv_wr = 50;
		ia->cap.max_send_sge = 2;
		ia->cap.max_recv_sge = 1;
		ia->cap.max_inline_data = 64;
		ia->qp_type = IBV_QPT_RC;
		ia->sq_sig_all = 1;
		cmd = pcmd(H, SZ(ib_uverbs_create_qp), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_create_qp_resp), 8, &rs);
		reply(&qr, sizeof(qr), 8);
		RUN("create_qp", p_ibv_cmd_create_qp(pd, qp, ia, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u qpn=%#x state=%d type=%d caps=%u/%u/%u/%u/%u ctx-ok=%d pd-ok=%d", qp->handle,
			    qp->qp_num, qp->state, qp->qp_type, ia->cap.max_send_wr, ia->cap.max_recv_wr,
			    ia->cap.max_send_sge, ia->cap.max_recv_sge, ia->cap.max_inline_data, qp->context == ctx,
			    qp->pd == pd);
		ia->qp_type = 0x55;
		RUN("create_qp (bad type)", p_ibv_cmd_create_qp(pd, A(sizeof(struct verbs_qp)), ia, cmd, cs, resp, rs));
	}
	struct verbs_qp *xqp[5];
	for (int i = 0; i < 5; i++)
		xqp[i] = A(sizeof(struct verbs_qp));
	{
		struct ibv_qp_init_attr_ex *xa = A(sizeof(*xa));

		xa->qp_type = IBV_QPT_XRC_RECV;
		xa->comp_mask = IBV_QP_INIT_ATTR_XRCD;
		xa->xrcd = &xrcd->xrcd;
		xa->qp_context = (void *)0x78;
		cmd = pcmd(H, SZ(ib_uverbs_create_qp), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_create_qp_resp), 8, &rs);
		reply(&qr, sizeof(qr), 8);
		RUN("create_qp_ex (xrc target)", p_ibv_cmd_create_qp_ex(ctx, xqp[0], xa, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u comp_mask=%u xrcd-ok=%d", xqp[0]->qp.handle, xqp[0]->comp_mask, xqp[0]->xrcd == xrcd);
		xa->comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		RUN("create_qp_ex (create flags refused)", p_ibv_cmd_create_qp_ex(ctx, xqp[1], xa, cmd, cs, resp, rs));
	}
	{
		struct ibv_qp_init_attr_ex *xa = A(sizeof(*xa));
		struct ib_uverbs_ex_create_qp_resp xr = { .base = qr };
		struct ibv_rwq_ind_table *tbl = A(sizeof(*tbl));

		xr.base.qp_handle = 0x72;
		xa->qp_type = IBV_QPT_RC;
		xa->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		xa->pd = pd;
		xa->send_cq = cq;
		xa->recv_cq = cq;
		xa->cap.max_send_wr = 10;
		xa->cap.max_recv_wr = 20;
		xa->cap.max_inline_data = 32;
		xa->send_ops_flags = IBV_QP_EX_WITH_SEND;
		cmd = pcmd(XH, SZ(ib_uverbs_ex_create_qp), 0x5a, 16, &cs);
		resp = presp(SZ(ib_uverbs_ex_create_qp_resp), 8, &rs);
		reply(&qr, sizeof(qr), 8);
		RUN("create_qp_ex2 (driver data, no flags: CREATE_QP)",
		    cmd_create_qp_ex2(ctx, xqp[1], xa, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u qpn=%#x caps=%u/%u comp_mask=%u", xqp[1]->qp.handle, xqp[1]->qp.qp_num,
			    xa->cap.max_send_wr, xa->cap.max_inline_data, xqp[1]->comp_mask);
		logbytes("resp", resp, rs);

		xa->qp_type = IBV_QPT_UD;
		xa->comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		xa->create_flags = IBV_QP_CREATE_SOURCE_QPN | IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
		xa->source_qpn = 0x4444;
		reply(&xr, sizeof(xr), 8);
		RUN("create_qp_ex2 (source qpn: EX_CREATE_QP)", cmd_create_qp_ex2(ctx, xqp[2], xa, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u", xqp[2]->qp.handle);
		logbytes("resp", resp, rs);

		tbl->ind_tbl_handle = 7;
		xa->qp_type = IBV_QPT_RAW_PACKET;
		xa->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;
		xa->rwq_ind_tbl = tbl;
		xa->recv_cq = NULL;
		xa->send_cq = NULL;
		memset(&xa->cap, 0, sizeof(xa->cap));
		reply(&xr, sizeof(xr), 8);
		RUN("create_qp_ex2 (rss indirection table)", cmd_create_qp_ex2(ctx, xqp[3], xa, cmd, cs, resp, rs));
		xa->cap.max_recv_wr = 1;
		RUN("create_qp_ex2 (rss with a receive queue)",
		    cmd_create_qp_ex2(ctx, xqp[3], xa, cmd, cs, resp, rs));
		xa->comp_mask = IBV_QP_INIT_ATTR_PD | (1 << 12);
		RUN("create_qp_ex2 (unknown comp_mask)", cmd_create_qp_ex2(ctx, xqp[3], xa, cmd, cs, resp, rs));
		xa->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
		xa->create_flags = 1 << 20;
		xa->send_cq = cq;
		xa->recv_cq = cq;
		RUN("create_qp_ex2 (unknown create flag)", cmd_create_qp_ex2(ctx, xqp[3], xa, cmd, cs, resp, rs));
	}
	{
		struct ibv_qp_open_attr *oa = A(sizeof(*oa));

		oa->comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE |
				IBV_QP_OPEN_ATTR_CONTEXT;
		oa->qp_num = 0x5678;
		oa->xrcd = &xrcd->xrcd;
		oa->qp_context = (void *)0x79;
		oa->qp_type = IBV_QPT_XRC_RECV;
		cmd = pcmd(H, SZ(ib_uverbs_open_qp), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_create_qp_resp), 8, &rs);
		reply(&qr, sizeof(qr), 8);
		RUN("open_qp", p_ibv_cmd_open_qp(ctx, xqp[4], sizeof(struct verbs_qp), oa, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u qpn=%#x state=%d type=%d comp_mask=%u xrcd-ok=%d", xqp[4]->qp.handle,
			    xqp[4]->qp.qp_num, xqp[4]->qp.state, xqp[4]->qp.qp_type, xqp[4]->comp_mask, xqp[4]->xrcd == xrcd);
		oa->comp_mask = IBV_QP_OPEN_ATTR_NUM;
		RUN("open_qp (no xrcd)", p_ibv_cmd_open_qp(ctx, xqp[4], sizeof(struct verbs_qp), oa, cmd, cs, resp, rs));
	}
	{
		struct ib_uverbs_query_qp_resp r = { .qp_state = 3, .cur_qp_state = 2, .path_mtu = 4, .dest_qp_num = 0x33,
						     .qkey = 0x11111111, .rq_psn = 5, .sq_psn = 6, .max_send_wr = 9,
						     .max_inline_data = 64, .sq_sig_all = 1, .timeout = 14,
						     .dest = { .dgid = { 0xfe, 0x80 }, .dlid = 3, .is_global = 1 } };
		struct ibv_qp_attr *a = A(sizeof(*a));
		struct ibv_qp_init_attr *ia = A(sizeof(*ia));

		cmd = pcmd(H, SZ(ib_uverbs_query_qp), 0x5a, 0, &cs);
		reply(&r, sizeof(r), 0);
		RUN("query_qp", p_ibv_cmd_query_qp(qp, a, IBV_QP_STATE | IBV_QP_CAP | IBV_QP_AV, ia, cmd, cs));
		plugcmd_log("  state=%d cur=%d mtu=%d dqpn=%#x qkey=%#x timeout=%u dlid=%u g=%u sig=%d init-qpt=%d ctx-ok=%d",
			    a->qp_state, a->cur_qp_state, a->path_mtu, a->dest_qp_num, a->qkey, a->timeout, a->ah_attr.dlid,
			    a->ah_attr.is_global, ia->sq_sig_all, ia->qp_type, ia->qp_context == (void *)0x77);
		RUN("query_qp (rate limit)", p_ibv_cmd_query_qp(qp, a, IBV_QP_RATE_LIMIT, ia, cmd, cs));
	}
	{
		struct ibv_qp_attr *a = A(sizeof(*a));
		int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_ALT_PATH;

		a->qp_state = IBV_QPS_RTR;
		a->path_mtu = IBV_MTU_1024;
		a->dest_qp_num = 0x77;
		a->rq_psn = 0x123;
		a->max_dest_rd_atomic = 4;
		a->min_rnr_timer = 12;
		a->ah_attr.is_global = 1;
		a->ah_attr.grh.dgid.raw[15] = 1;
		a->ah_attr.grh.sgid_index = 2;
		a->ah_attr.grh.hop_limit = 64;
		a->ah_attr.dlid = 9;
		a->ah_attr.port_num = 1;
		a->alt_ah_attr.dlid = 10;
		a->alt_pkey_index = 1;
		a->alt_port_num = 2;
		a->alt_timeout = 18;
		a->qkey = 0xdeadbeef; /* not in the mask */
		a->rate_limit = 1000;
		cmd = pcmd(H, SZ(ib_uverbs_modify_qp), 0x5a, 8, &cs);
		RUN("modify_qp", p_ibv_cmd_modify_qp(qp, a, mask, cmd, cs));
		RUN("modify_qp (rate limit)", p_ibv_cmd_modify_qp(qp, a, IBV_QP_RATE_LIMIT, cmd, cs));

		struct ib_uverbs_ex_modify_qp_resp r = { .comp_mask = 0, .response_length = 8 };

		cmd = pcmd(XH, SZ(ib_uverbs_ex_modify_qp), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_ex_modify_qp_resp), 8, &rs);
		reply(&r, sizeof(r), 8);
		RUN("modify_qp_ex (rate limit)", p_ibv_cmd_modify_qp_ex(qp, a, mask | IBV_QP_RATE_LIMIT, cmd, cs, resp, rs));
		logbytes("resp", resp, rs);
		RUN("modify_qp_ex (command too short)",
		    p_ibv_cmd_modify_qp_ex(qp, a, IBV_QP_RATE_LIMIT, cmd, XH + 8, resp, rs));
	}

	/* ---------------------------------------------------------------- posting through the kernel */
	{
		struct ibv_sge *sg = A(4 * sizeof(*sg));
		struct ibv_send_wr *w = A(3 * sizeof(*w));
		struct ibv_send_wr **bad = A(sizeof(*bad));
		struct ibv_ah *ah = A(sizeof(*ah));
		struct ib_uverbs_post_send_resp ok = { 0 }, fail = { .bad_wr = 2 };
		int rc;

		for (int i = 0; i < 4; i++)
			sg[i] = (struct ibv_sge){ .addr = 0x1000 * (i + 1), .length = 64 * (i + 1), .lkey = 0x3132 };
		w[0] = (struct ibv_send_wr){ .wr_id = 1, .next = &w[1], .sg_list = sg, .num_sge = 2,
					     .opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
					     .imm_data = 0x01020304 };
		w[0].wr.rdma.remote_addr = 0x9000;
		w[0].wr.rdma.rkey = 0x77;
		w[1] = (struct ibv_send_wr){ .wr_id = 2, .sg_list = &sg[2], .num_sge = 1,
					     .opcode = IBV_WR_ATOMIC_CMP_AND_SWP };
		w[1].wr.atomic.remote_addr = 0xa000;
		w[1].wr.atomic.compare_add = 5;
		w[1].wr.atomic.swap = 6;
		w[1].wr.atomic.rkey = 0x78;
		plugcmd_write_reply(&ok, sizeof(ok));
		rc = RUN_SCRUBBED("post_send", p_ibv_cmd_post_send(qp, w, bad));
		(void)rc;
		plugcmd_write_fail(&fail, sizeof(fail), EINVAL);
		*bad = NULL;
		RUN_SCRUBBED("post_send (kernel names the second request)", p_ibv_cmd_post_send(qp, w, bad));
		plugcmd_log("  bad=%ld", *bad ? (long)(*bad - w) : -1L);

		ah->handle = 0x81;
		w[2] = (struct ibv_send_wr){ .wr_id = 3, .sg_list = &sg[3], .num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM,
					     .imm_data = 0x0a0b0c0d };
		w[2].wr.ud.ah = ah;
		w[2].wr.ud.remote_qpn = 0x99;
		w[2].wr.ud.remote_qkey = 0x11111111;
		plugcmd_write_reply(&ok, sizeof(ok));
		RUN_SCRUBBED("post_send (ud)", p_ibv_cmd_post_send(&xqp[2]->qp, &w[2], bad));

		struct ibv_recv_wr *rw = A(2 * sizeof(*rw));
		struct ibv_recv_wr **rbad = A(sizeof(*rbad));

		rw[0] = (struct ibv_recv_wr){ .wr_id = 10, .next = &rw[1], .sg_list = sg, .num_sge = 1 };
		rw[1] = (struct ibv_recv_wr){ .wr_id = 11, .sg_list = &sg[1], .num_sge = 3 };
		plugcmd_write_reply(&ok, sizeof(ok));
		RUN_SCRUBBED("post_recv", p_ibv_cmd_post_recv(qp, rw, rbad));
		plugcmd_write_reply(&ok, sizeof(ok));
		RUN_SCRUBBED("post_srq_recv", p_ibv_cmd_post_srq_recv(srq, rw, rbad));
		plugcmd_write_fail(&ok, sizeof(ok), EAGAIN);
		*rbad = NULL;
		RUN_SCRUBBED("post_srq_recv (failure without bad_wr)", p_ibv_cmd_post_srq_recv(srq, rw, rbad));
		plugcmd_log("  bad=%ld", *rbad ? (long)(*rbad - rw) : -1L);
	}

	/* ---------------------------------------------------------------- AH, multicast */
	{
		struct ibv_ah *ah = A(sizeof(*ah));
		struct ibv_ah_attr *aa = A(sizeof(*aa));
		struct ib_uverbs_create_ah_resp r = { .ah_handle = 0x82 };
		union ibv_gid *gid = A(sizeof(*gid));

		aa->grh.dgid.raw[0] = 0xff;
		aa->grh.flow_label = 0x12345;
		aa->grh.sgid_index = 1;
		aa->grh.hop_limit = 2;
		aa->grh.traffic_class = 3;
		aa->dlid = 4;
		aa->sl = 5;
		aa->src_path_bits = 6;
		aa->static_rate = 7;
		aa->is_global = 1;
		aa->port_num = 1;
		resp = presp(SZ(ib_uverbs_create_ah_resp), 12, &rs);
		reply(&r, sizeof(r), 12);
		RUN("create_ah", p_ibv_cmd_create_ah(pd, ah, aa, resp, rs));
		plugcmd_log("  handle=%u", ah->handle);
		logbytes("resp", resp, rs);
		RUN("destroy_ah", p_ibv_cmd_destroy_ah(ah));
		gid->raw[0] = 0xff;
		gid->raw[15] = 0x42;
		RUN("attach_mcast", p_ibv_cmd_attach_mcast(qp, gid, 0xc001));
		RUN("detach_mcast", p_ibv_cmd_detach_mcast(qp, gid, 0xc001));
	}

	/* ---------------------------------------------------------------- flow steering */
	struct verbs_flow_action *fa = A(sizeof(*fa));
	struct verbs_counters *vc = A(sizeof(*vc));
	{
		unsigned char *rule = A(2048), *p;
		struct ibv_flow_attr *fattr = (void *)rule;
		struct ibv_flow *flow = A(sizeof(*flow));
		struct ib_uverbs_create_flow_resp r = { .flow_handle = 0x91 };
		unsigned char *ucmd = A(16);
		int n = 0;

		fa->handle = 0x33;
		vc->handle = 0x44;
		fattr->type = IBV_FLOW_ATTR_NORMAL;
		fattr->priority = 3;
		fattr->port = 1;
		fattr->flags = IBV_FLOW_ATTR_FLAGS_DONT_TRAP;
		p = rule + sizeof(*fattr);
#define SPEC(T, ty, fill)                                    \
	do {                                                 \
		struct T *s = (void *)p;                     \
		s->type = ty;                                \
		s->size = sizeof(*s);                        \
		fill;                                        \
		p += sizeof(*s);                             \
		n++;                                         \
	} while (0)
		SPEC(ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH, (s->val.ether_type = 0x0800, s->mask.ether_type = 0xffff,
							    s->val.dst_mac[0] = 0x02, s->mask.dst_mac[0] = 0xff));
		SPEC(ibv_flow_spec_ipv4, IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER,
		     (s->val.dst_ip = 0x0a000001, s->mask.dst_ip = 0xffffffff));
		SPEC(ibv_flow_spec_ipv4_ext, IBV_FLOW_SPEC_IPV4_EXT,
		     (s->val.src_ip = 0x0a000002, s->mask.src_ip = 0xffffffff, s->val.proto = 17, s->mask.proto = 0xff,
		      s->val.flags = 2, s->mask.flags = 2));
		SPEC(ibv_flow_spec_ipv6, IBV_FLOW_SPEC_IPV6,
		     (s->val.hop_limit = 64, s->mask.hop_limit = 0xff, s->val.flow_label = 0x12345,
		      s->mask.flow_label = 0xfffff, s->val.dst_ip[15] = 1, s->mask.dst_ip[15] = 0xff));
		SPEC(ibv_flow_spec_tcp_udp, IBV_FLOW_SPEC_UDP, (s->val.dst_port = 4791, s->mask.dst_port = 0xffff));
		SPEC(ibv_flow_spec_tcp_udp, IBV_FLOW_SPEC_TCP | IBV_FLOW_SPEC_INNER,
		     (s->val.src_port = 80, s->mask.src_port = 0xffff));
		SPEC(ibv_flow_spec_tunnel, IBV_FLOW_SPEC_VXLAN_TUNNEL, (s->val.tunnel_id = 42, s->mask.tunnel_id = 0xffffff));
		SPEC(ibv_flow_spec_esp, IBV_FLOW_SPEC_ESP, (s->val.spi = 0x1000, s->mask.spi = 0xffffffff));
		SPEC(ibv_flow_spec_gre, IBV_FLOW_SPEC_GRE, (s->val.protocol = 0x6558, s->mask.protocol = 0xffff));
		SPEC(ibv_flow_spec_mpls, IBV_FLOW_SPEC_MPLS, (s->val.label = 0x12345, s->mask.label = 0xfffff));
		SPEC(ibv_flow_spec_action_tag, IBV_FLOW_SPEC_ACTION_TAG, (s->tag_id = 0x7777));
		SPEC(ibv_flow_spec_action_handle, IBV_FLOW_SPEC_ACTION_HANDLE, (s->action = &fa->action));
		SPEC(ibv_flow_spec_counter_action, IBV_FLOW_SPEC_ACTION_COUNT, (s->counters = &vc->counters));
		SPEC(ibv_flow_spec_action_drop, IBV_FLOW_SPEC_ACTION_DROP, (void)0);
		fattr->num_of_specs = n;
		fattr->size = p - rule;
		for (int i = 0; i < 16; i++)
			ucmd[i] = 0xc0 + i;
		reply(&r, sizeof(r), 0);
		RUN("create_flow", p_ibv_cmd_create_flow(qp, flow, fattr, ucmd, 16));
		plugcmd_log("  handle=%u ctx-ok=%d", flow->handle, flow->context == ctx);
		RUN("destroy_flow", p_ibv_cmd_destroy_flow(flow));

		/* An IPv6 filter larger than the kernel's with mask bits past it: EOPNOTSUPP. */
		p = rule + sizeof(*fattr);
		{
			struct ibv_flow_spec_ipv6 *s = (void *)p;
			unsigned char *big = p;

			memset(big, 0, 8 + 2 * 48);
			s->type = IBV_FLOW_SPEC_IPV6;
			s->size = 8 + 2 * 48;
			big[8 + 48 + 46] = 1;
		}
		fattr->num_of_specs = 1;
		RUN("create_flow (mask past the kernel's filter)", p_ibv_cmd_create_flow(qp, flow, fattr, NULL, 0));
		((struct ibv_flow_spec_ipv6 *)p)->size = 8 + 2 * 20;
		RUN("create_flow (filter too short)", p_ibv_cmd_create_flow(qp, flow, fattr, NULL, 0));
		((struct ibv_flow_spec_ipv6 *)p)->type = 0x77;
		RUN("create_flow (unknown spec)", p_ibv_cmd_create_flow(qp, flow, fattr, NULL, 0));
	}

	/* ---------------------------------------------------------------- WQ, RWQ indirection table */
	struct ibv_wq *wq = A(sizeof(*wq));
	{
		struct ibv_wq_init_attr *wa = A(sizeof(*wa));
		struct ib_uverbs_ex_create_wq_resp r = { .response_length = 24, .wq_handle = 0xa1, .max_wr = 512,
							 .max_sge = 2, .wqn = 0xa2 };

		wa->wq_context = (void *)0x88;
		wa->wq_type = IBV_WQT_RQ;
		wa->max_wr = 500;
		wa->max_sge = 1;
		wa->pd = pd;
		wa->cq = cq;
		wa->comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
		wa->create_flags = IBV_WQ_FLAGS_CVLAN_STRIPPING | IBV_WQ_FLAGS_SCATTER_FCS;
		cmd = pcmd(XH, SZ(ib_uverbs_ex_create_wq), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_ex_create_wq_resp), 8, &rs);
		reply(&r, sizeof(r), 8);
		RUN("create_wq", p_ibv_cmd_create_wq(ctx, wa, wq, cmd, cs, resp, rs));
		plugcmd_log("  handle=%u wqn=%#x max_wr=%u max_sge=%u type=%d ctx-ok=%d cq-ok=%d", wq->handle, wq->wq_num,
			    wa->max_wr, wa->max_sge, wq->wq_type, wq->context == ctx, wq->cq == cq);
		logbytes("resp", resp, rs);
		wa->create_flags = 1 << 10;
		RUN("create_wq (unknown flag)", p_ibv_cmd_create_wq(ctx, wa, A(sizeof(*wq)), cmd, cs, resp, rs));
		wa->comp_mask = 1 << 5;
		RUN("create_wq (unknown comp_mask)", p_ibv_cmd_create_wq(ctx, wa, A(sizeof(*wq)), cmd, cs, resp, rs));
		pthread_mutex_init(&wq->mutex, NULL);
		pthread_cond_init(&wq->cond, NULL);

		struct ibv_wq_attr *ma = A(sizeof(*ma));

		ma->attr_mask = IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE | IBV_WQ_ATTR_FLAGS;
		ma->wq_state = IBV_WQS_RDY;
		ma->curr_wq_state = IBV_WQS_RESET;
		ma->flags = IBV_WQ_FLAGS_DELAY_DROP;
		ma->flags_mask = IBV_WQ_FLAGS_DELAY_DROP | IBV_WQ_FLAGS_CVLAN_STRIPPING;
		cmd = pcmd(XH, SZ(ib_uverbs_ex_modify_wq), 0x5a, 8, &cs);
		RUN("modify_wq", p_ibv_cmd_modify_wq(wq, ma, cmd, cs));
		plugcmd_log("  state=%d", wq->state);
		ma->flags_mask = 1 << 9;
		RUN("modify_wq (unknown flag)", p_ibv_cmd_modify_wq(wq, ma, cmd, cs));
	}
	struct ibv_rwq_ind_table *tbl = A(sizeof(*tbl));
	{
		struct ibv_rwq_ind_table_init_attr *ia = A(sizeof(*ia));
		struct ibv_wq **wqs = A(8 * sizeof(*wqs));
		struct ib_uverbs_ex_create_rwq_ind_table_resp r = { .response_length = 16, .ind_tbl_handle = 0xb1,
								    .ind_tbl_num = 0xb2 };

		for (int i = 0; i < 8; i++)
			wqs[i] = wq;
		ia->log_ind_tbl_size = 2;
		ia->ind_tbl = wqs;
		resp = presp(SZ(ib_uverbs_ex_create_rwq_ind_table_resp), 8, &rs);
		reply(&r, sizeof(r), 8);
		RUN("create_rwq_ind_table", p_ibv_cmd_create_rwq_ind_table(ctx, ia, tbl, resp, rs));
		plugcmd_log("  handle=%d num=%d", tbl->ind_tbl_handle, tbl->ind_tbl_num);
		ia->log_ind_tbl_size = 1;
		r.response_length = 8;
		reply(&r, sizeof(r), 0);
		RUN("create_rwq_ind_table (short response)",
		    p_ibv_cmd_create_rwq_ind_table(ctx, ia, A(sizeof(*tbl)), resp, rs));
		ia->comp_mask = 1;
		RUN("create_rwq_ind_table (reserved mask)", p_ibv_cmd_create_rwq_ind_table(ctx, ia, A(sizeof(*tbl)), resp, rs));
		RUN("destroy_rwq_ind_table", p_ibv_cmd_destroy_rwq_ind_table(tbl));
	}

	/* ---------------------------------------------------------------- destroys */
	RUN("destroy_wq", p_ibv_cmd_destroy_wq(wq));
	RUN("dealloc_mw", p_ibv_cmd_dealloc_mw(mw));
	RUN("dereg_mr", p_ibv_cmd_dereg_mr(mr));
	RUN("destroy_qp", p_ibv_cmd_destroy_qp(qp));
	RUN("destroy_qp (xrc target)", p_ibv_cmd_destroy_qp(&xqp[0]->qp));
	RUN("destroy_srq", p_ibv_cmd_destroy_srq(srq));
	RUN("destroy_srq (xrc)", p_ibv_cmd_destroy_srq(&xsrq[1]->srq));
	{
		struct ib_uverbs_destroy_cq_resp r = { .comp_events_reported = 2, .async_events_reported = 1 };

		cq->comp_events_completed = 2;
		cq->async_events_completed = 1;
		reply(&r, sizeof(r), 0);
		RUN("destroy_cq (events acknowledged)", p_ibv_cmd_destroy_cq(cq));
		plugcmd_write_fail(&r, 0, EBUSY);
		RUN("destroy_cq (busy)", p_ibv_cmd_destroy_cq(&cqx[0]->cq));
		RUN("destroy_cq", p_ibv_cmd_destroy_cq(&cqx[1]->cq));
	}
	RUN("close_xrcd", p_ibv_cmd_close_xrcd(xrcd));
	plugcmd_write_fail(NULL, 0, EBUSY);
	RUN("dealloc_pd (busy)", p_ibv_cmd_dealloc_pd(pd));
	RUN("dealloc_pd", p_ibv_cmd_dealloc_pd(pd));

	/* ---------------------------------------------------------------- the ioctl-only commands */
	{
		struct pc_cmdb *drv = A(sizeof(*drv));
		struct ib_uverbs_attr *a;
		struct pc_ioctl_out o[3];

#define DRV_BLOCK(obj, meth, nattr)                                                          \
	do {                                                                                 \
		memset(drv, 0, sizeof(*drv));                                                \
		drv->b.hdr.object_id = (obj);                                                \
		drv->b.hdr.method_id = (meth);                                               \
		drv->b.uhw_in_idx = 0xff;                                                    \
		drv->b.uhw_out_idx = 0xff;                                                   \
		drv->b.next_attr = drv->b.hdr.attrs;                                         \
		drv->b.last_attr = drv->b.hdr.attrs + 8;                                     \
		for (int _i = 0; _i < (nattr); _i++) {                                       \
			a = drv->b.next_attr++;                                              \
			*a = (struct ib_uverbs_attr){ .attr_id = 0x1000 + _i, .len = 4,      \
						      .flags = UVERBS_ATTR_F_MANDATORY,      \
						      .data = 0xf00d0000 + _i };             \
		}                                                                            \
	} while (0)

		DRV_BLOCK(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, 1);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, 4, 6 };
		o[1] = (struct pc_ioctl_out){ UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, 8, 1 };
		plugcmd_ioctl_reply(o, 2);
		RUN("query_context", p_ibv_cmd_query_context(ctx, &drv->b));
		plugcmd_log("  num_comp_vectors=%d", ctx->num_comp_vectors);

		struct ibv_flow_action_esp_attr *ea = A(sizeof(*ea));
		struct ibv_flow_action_esp *esp = A(sizeof(*esp));
		struct ib_uverbs_flow_action_esp_encap *encap = A(sizeof(*encap));
		unsigned char *keymat = A(64), *replay = A(8);

		esp->spi = 0x100;
		esp->seq = 1;
		esp->hard_limit_pkts = 1000;
		encap->len = 8;
		encap->type = 0x30;
		memset(keymat, 0x4b, 64);
		memset(replay, 0x52, 4);
		ea->esp_attr = esp;
		ea->keymat_proto = IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM;
		ea->keymat_len = 40;
		ea->keymat_ptr = keymat;
		ea->replay_proto = IBV_FLOW_ACTION_ESP_REPLAY_BMP;
		ea->replay_len = 4;
		ea->replay_ptr = replay;
		ea->esp_encap = encap;
		ea->comp_mask = IBV_FLOW_ACTION_ESP_MASK_ESN;
		ea->esn = 0x77;
		DRV_BLOCK(UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE, 2);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE, 0, 0xc1 };
		plugcmd_ioctl_reply(o, 1);
		RUN("create_flow_action_esp", p_ibv_cmd_create_flow_action_esp(ctx, ea, fa, &drv->b));
		plugcmd_log("  handle=%#x type=%u ctx-ok=%d", fa->handle, fa->type, fa->action.context == ctx);
		DRV_BLOCK(UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY, 1);
		ea->esp_encap = NULL;
		ea->comp_mask = 0;
		plugcmd_ioctl_reply(o, 0);
		RUN("modify_flow_action_esp", p_ibv_cmd_modify_flow_action_esp(fa, ea, &drv->b));
		plugcmd_ioctl_reply(o, 0);
		RUN("destroy_flow_action", p_ibv_cmd_destroy_flow_action(fa));

		struct ibv_alloc_dm_attr *da = A(sizeof(*da));
		struct verbs_dm *dm = A(sizeof(*dm));
		struct verbs_mr *dmr = A(sizeof(*dmr));

		da->length = 65536;
		da->log_align_req = 6;
		DRV_BLOCK(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 2);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_ALLOC_DM_HANDLE, 0, 0xd1 };
		plugcmd_ioctl_reply(o, 1);
		RUN("alloc_dm", p_ibv_cmd_alloc_dm(ctx, da, dm, &drv->b));
		plugcmd_log("  handle=%#x dm.handle=%#x comp_mask=%u", dm->handle, dm->dm.handle, dm->dm.comp_mask);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_REG_DM_MR_HANDLE, 0, 0xd2 };
		o[1] = (struct pc_ioctl_out){ UVERBS_ATTR_REG_DM_MR_RESP_LKEY, 4, 0xd3 };
		o[2] = (struct pc_ioctl_out){ UVERBS_ATTR_REG_DM_MR_RESP_RKEY, 4, 0xd4 };
		plugcmd_ioctl_reply(o, 3);
		RUN("reg_dm_mr", p_ibv_cmd_reg_dm_mr(pd, dm, 4096, 8192, IBV_ACCESS_ZERO_BASED | 1, dmr, NULL));
		plugcmd_log("  handle=%#x lkey=%#x rkey=%#x len=%zu type=%u", dmr->ibv_mr.handle, dmr->ibv_mr.lkey,
			    dmr->ibv_mr.rkey, dmr->ibv_mr.length, dmr->mr_type);
		RUN("reg_dm_mr (not zero based)", p_ibv_cmd_reg_dm_mr(pd, dm, 0, 8, 1, dmr, NULL));
		plugcmd_ioctl_reply(o, 0);
		RUN("free_dm", p_ibv_cmd_free_dm(dm));

		struct ibv_counters_init_attr *ci = A(sizeof(*ci));
		uint64_t *vals = A(4 * sizeof(*vals));

		DRV_BLOCK(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE, 1);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_CREATE_COUNTERS_HANDLE, 0, 0xe1 };
		plugcmd_ioctl_reply(o, 1);
		RUN("create_counters", p_ibv_cmd_create_counters(ctx, ci, vc, &drv->b));
		plugcmd_log("  handle=%#x ctx-ok=%d", vc->handle, vc->counters.context == ctx);
		ci->comp_mask = 1;
		RUN("create_counters (comp_mask)", p_ibv_cmd_create_counters(ctx, ci, vc, NULL));
		DRV_BLOCK(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ, 1);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_READ_COUNTERS_BUFF, 8, 0x1122334455667788ull };
		plugcmd_ioctl_reply(o, 1);
		RUN("read_counters", p_ibv_cmd_read_counters(vc, vals, 4, IBV_READ_COUNTERS_ATTR_PREFER_CACHED, &drv->b));
		plugcmd_log("  vals[0]=%#lx", (unsigned long)vals[0]);
		plugcmd_ioctl_reply(o, 0);
		RUN("destroy_counters", p_ibv_cmd_destroy_counters(vc));

		struct verbs_mr *qm = A(sizeof(*qm));
		struct ibv_sge *sg = A(2 * sizeof(*sg));

		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_QUERY_MR_RESP_LKEY, 4, 0xf1 };
		o[1] = (struct pc_ioctl_out){ UVERBS_ATTR_QUERY_MR_RESP_RKEY, 4, 0xf2 };
		o[2] = (struct pc_ioctl_out){ UVERBS_ATTR_QUERY_MR_RESP_LENGTH, 8, 0x10000 };
		plugcmd_ioctl_reply(o, 3);
		RUN("query_mr", p_ibv_cmd_query_mr(pd, qm, 0xf0));
		plugcmd_log("  handle=%#x lkey=%#x rkey=%#x len=%zu type=%u addr=%p pd-ok=%d", qm->ibv_mr.handle,
			    qm->ibv_mr.lkey, qm->ibv_mr.rkey, qm->ibv_mr.length, qm->mr_type, qm->ibv_mr.addr,
			    qm->ibv_mr.pd == pd);
		sg[0] = (struct ibv_sge){ .addr = 0x1000, .length = 4096, .lkey = 0xf1 };
		sg[1] = (struct ibv_sge){ .addr = 0x3000, .length = 4096, .lkey = 0xf1 };
		plugcmd_ioctl_reply(o, 0);
		RUN("advise_mr", p_ibv_cmd_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH, sg, 2));
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0, 0xf3 };
		o[1] = (struct pc_ioctl_out){ UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, 4, 0xf4 };
		o[2] = (struct pc_ioctl_out){ UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, 4, 0xf5 };
		plugcmd_ioctl_reply(o, 3);
#if PC_RELEASE >= 56
		RUN("reg_dmabuf_mr", p_ibv_cmd_reg_dmabuf_mr(pd, 0x2000, 0x4000, 0x8000, 12, 7, qm, NULL));
#else
		RUN("reg_dmabuf_mr", p_ibv_cmd_reg_dmabuf_mr(pd, 0x2000, 0x4000, 0x8000, 12, 7, qm));
#endif
		plugcmd_log("  handle=%#x lkey=%#x rkey=%#x len=%zu type=%u addr=%p", qm->ibv_mr.handle, qm->ibv_mr.lkey,
			    qm->ibv_mr.rkey, qm->ibv_mr.length, qm->mr_type, qm->ibv_mr.addr);
#if PC_RELEASE >= 56
		/* rdma-core 56's mlx5 links its own attributes. */
		DRV_BLOCK(UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR, 1);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0, 0xf6 };
		plugcmd_ioctl_reply(o, 3);
		RUN("reg_dmabuf_mr (driver attributes)",
		    p_ibv_cmd_reg_dmabuf_mr(pd, 0x2000, 0x4000, 0x8000, 12, 7, qm, &drv->b));
		plugcmd_log("  handle=%#x lkey=%#x rkey=%#x", qm->ibv_mr.handle, qm->ibv_mr.lkey, qm->ibv_mr.rkey);
#endif

		/* A provider's own command through execute_ioctl: its block plus a linked one. */
		struct pc_cmdb *root = A(sizeof(*root));
		uint32_t *outv = A(8);

		DRV_BLOCK(UVERBS_OBJECT_DEVICE, 0x1001, 1);
		drv->b.hdr.attrs[0].len = 4;
		drv->b.hdr.attrs[0].data = (uintptr_t)outv;
		memset(root, 0, sizeof(*root));
		root->b.hdr.object_id = UVERBS_OBJECT_DEVICE;
		root->b.hdr.method_id = 0x1001;
		root->b.uhw_in_idx = 0xff;
		root->b.uhw_out_idx = 0xff;
		root->b.next_attr = root->b.hdr.attrs;
		root->b.last_attr = root->b.hdr.attrs + 8;
		root->b.next = &drv->b;
		root->b.hdr.attrs[0] = (struct ib_uverbs_attr){ .attr_id = 0x2000, .flags = UVERBS_ATTR_F_MANDATORY };
		root->b.hdr.attrs[1] = (struct ib_uverbs_attr){ .attr_id = 0x2001, .len = 8, .data = 0x55 };
		root->b.next_attr += 2;
		o[0] = (struct pc_ioctl_out){ 0x2000, 0, 0x99 };
		o[1] = (struct pc_ioctl_out){ 0x1000, 4, 0xabcd };
		plugcmd_ioctl_reply(o, 2);
		plugcmd_log("  final_num_attrs=%u", p___ioctl_final_num_attrs(3, &root->b));
		RUN("execute_ioctl", p_execute_ioctl(ctx, &root->b));
		plugcmd_log("  root: n=%u len=%u drv=%u obj=%#lx; linked: flags=%#x out=%#x", root->b.hdr.num_attrs,
			    root->b.hdr.length, root->b.hdr.driver_id, (unsigned long)root->b.hdr.attrs[0].data,
			    drv->b.hdr.attrs[0].flags, *outv);
		root->b.buffer_error = 1;
		RUN("execute_ioctl (buffer error)", p_execute_ioctl(ctx, &root->b));
	}

	/* ---------------------------------------------------------------- a second context, on a kernel with ioctls */
	{
		struct pc_ioctl_out o[3];
		struct ibv_context *ctx2;
		struct verbs_context *vctx2;
		struct ib_uverbs_query_port_resp_ex pr = { .legacy_resp = { .state = 4, .gid_tbl_len = 8, .lid = 3 },
							   .port_cap_flags2 = 0x12 };
		uint64_t prv[sizeof(pr) / 8];

		fd = open("/dev/null", O_RDWR);
		if (fd < 0 || dup2(fd, FAKE_FD + 2) != FAKE_FD + 2)
			die("second fake fd");
		close(fd);
		plugcmd_add_fd(FAKE_FD + 2);
		wrapper = p__verbs_init_and_alloc_context(dev, FAKE_FD + 2, 64 + PC_VCTX_SIZE,
							   (struct verbs_context *)64, DRIVER_ID + 1);
		if (!wrapper)
			die("second _verbs_init_and_alloc_context");
		vctx2 = (struct verbs_context *)((char *)wrapper + 64);
		ctx2 = (struct ibv_context *)((char *)vctx2 + PC_CTX_OFFSET);
		cmd = pcmd(H, SZ(ib_uverbs_get_context), 0x5a, 4, &cs);
		resp = presp(SZ(ib_uverbs_get_context_resp), 16, &rs);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, 4, 5 };
		o[1] = (struct pc_ioctl_out){ UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, 8, 1 };
		o[2] = (struct pc_ioctl_out){ UVERBS_ATTR_UHW_OUT, 8, 0x8877665544332211ull };
		plugcmd_ioctl_reply(o, 3);
		RUN("get_context (ioctl)", cmd_get_context(vctx2, cmd, cs, resp, rs));
		plugcmd_log("  async_fd=%d num_comp_vectors=%d", ctx2->async_fd, ctx2->num_comp_vectors);
		logbytes("resp", resp, rs);

		struct ibv_port_attr *pa = A(sizeof(*pa));

		memcpy(prv, &pr, sizeof(pr));
		/* The response is longer than 8 bytes: the interposer copies only the first 8, the rest stays zero. */
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_QUERY_PORT_RESP, 8, prv[0] };
		plugcmd_ioctl_reply(o, 1);
		cmd = pcmd(H, SZ(ib_uverbs_query_port), 0x5a, 0, &cs);
		RUN("query_port (ioctl)", p_ibv_cmd_query_port(ctx2, 2, pa, cmd, cs));
		plugcmd_log("  state=%d gid_tbl_len=%d lid=%u caps2=%u", pa->state, pa->gid_tbl_len, pa->lid,
			    pa->port_cap_flags2);
		if (PC_RELEASE >= 56)
			plugcmd_log("  speed_ex=%u", *(uint32_t *)((char *)pa + 52));
#if PC_RELEASE >= 56
		/* ibv_cmd_create_cq_ex2 with a mandatory driver attribute (as mlx5's UAR page index, the first id after
		 * UHW_IN/UHW_OUT): only an ioctl can carry it. On this context rdma-core has not given up on ioctls. */
		struct pc_cmdb *drv = A(sizeof(*drv));
		struct ibv_cq_init_attr_ex *ca = A(sizeof(*ca));
		struct verbs_cq *vcq = A(sizeof(*vcq));

		drv->b.hdr.object_id = UVERBS_OBJECT_CQ;
		drv->b.hdr.method_id = UVERBS_METHOD_CQ_CREATE;
		drv->b.uhw_in_idx = 0xff;
		drv->b.uhw_out_idx = 0xff;
		drv->b.next_attr = drv->b.hdr.attrs;
		drv->b.last_attr = drv->b.hdr.attrs + 8;
		*drv->b.next_attr++ =
			(struct ib_uverbs_attr){ .attr_id = 0x1002, .len = 4, .flags = UVERBS_ATTR_F_MANDATORY, .data = 5 };
		ca->cqe = 100;
		ca->comp_vector = 1;
		ca->wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		cmd = pcmd(XH, SZ(ib_uverbs_ex_create_cq), 0x5a, 12, &cs);
		resp = presp(SZ(ib_uverbs_ex_create_cq_resp), 8, &rs);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_CREATE_CQ_HANDLE, 0, 0x57 };
		o[1] = (struct pc_ioctl_out){ UVERBS_ATTR_CREATE_CQ_RESP_CQE, 4, 255 };
		o[2] = (struct pc_ioctl_out){ UVERBS_ATTR_UHW_OUT, 8, 0x1122334455667788ull };
		plugcmd_ioctl_reply(o, 3);
		RUN("create_cq_ex2 (mandatory driver attribute: ioctl)",
		    cmd_create_cq_ex2(ctx2, ca, vcq, cmd, cs, resp, rs, 0, &drv->b));
		plugcmd_log("  handle=%#x cqe=%d ctx-ok=%d", vcq->cq.handle, vcq->cq.cqe, vcq->cq.context == ctx2);
		logbytes("resp", resp, rs);
#endif
#if PC_RELEASE >= 65
		/* rdma-core 65: the fds of ibv_cmd_get_context (mlx5's UCAP fds), and a CQ ring the provider allocated. */
		struct pc_fd_arr *fds = A(sizeof(*fds));
		struct pc_prov_attr *prov = A(sizeof(*prov));

		fds->arr = A(3 * sizeof(int));
		fds->count = 3;
		for (int i = 0; i < 3; i++)
			fds->arr[i] = 40 + i;
		cmd = pcmd(H, SZ(ib_uverbs_get_context), 0x5a, 0, &cs);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, 4, 7 };
		plugcmd_ioctl_reply(o, 1);
		RUN("get_context (fd array)", p_ibv_cmd_get_context(vctx2, cmd, cs, fds, NULL, 0));
		plugcmd_log("  num_comp_vectors=%d", ctx2->num_comp_vectors);

		prov->length = 8192;
		prov->ptr_or_offset = (uintptr_t)A(8192);
		ca->wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
		cmd = pcmd(XH, SZ(ib_uverbs_ex_create_cq), 0x5a, 8, &cs);
		resp = presp(SZ(ib_uverbs_ex_create_cq_resp), 8, &rs);
		o[0] = (struct pc_ioctl_out){ UVERBS_ATTR_CREATE_CQ_HANDLE, 0, 0x58 };
		o[1] = (struct pc_ioctl_out){ UVERBS_ATTR_CREATE_CQ_RESP_CQE, 4, 127 };
		plugcmd_ioctl_reply(o, 2);
		RUN("create_cq_ex (provider ring at an address: ioctl)",
		    p_ibv_cmd_create_cq_ex(ctx2, ca, prov, A(sizeof(struct verbs_cq)), cmd, cs, resp, rs,
					   PC_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA));
		RUN("create_cq_ex (provider ring without prov_attr)",
		    p_ibv_cmd_create_cq_ex(ctx2, ca, NULL, A(sizeof(struct verbs_cq)), cmd, cs, resp, rs,
					   PC_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA));
#endif
	}
	return 0;
}
