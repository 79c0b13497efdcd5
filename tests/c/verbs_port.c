/* Conformance: ibv_query_port with every struct size a binary can pass, and nothing written past it.
 *
 * struct ibv_port_attr grew from 52 bytes (rdma-core 44) to 56 (rdma-core 56: active_speed_ex). A binary built
 * against either header reaches the library three ways, each checked with a guard word right after the bytes the
 * caller owns:
 *   - the header's ibv_query_port inline, which calls verbs_context.query_port with sizeof(struct ibv_port_attr):
 *     56 with our (65's) header, as here; 52 in a binary built against 44's, done here by calling the op with 52;
 *   - the exported ibv_query_port@IBVERBS_1.1 (what the inline falls back to), whose struct is the 48-byte compat
 *     one (without port_cap_flags2): rdma-core writes 48 bytes there;
 *   - a caller larger than the library's struct (64 bytes): zeroed past what the library knows.
 * Every way must report the same attributes. active_speed_ex is filled by libraries of rdma-core 56 and later (and
 * ours) on kernels that report it (Linux 6.9 added it to QUERY_PORT: the port's speed, as active_speed); 0 with
 * rdma-core 44, on older kernels, and with a plug-in built against 44. See testutil.h. */
#include "testutil.h"

#define PROG "verbs_port"
#define GUARD 0xa5u
#define SLACK 8 /* guard bytes after the caller's struct */

/* The first `n` bytes of a query through the header's inline (56 bytes), for comparing the other ways. */
static unsigned char ref[sizeof(struct ibv_port_attr)];

static int guard_ok(const unsigned char *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (p[i] != GUARD)
			return 0;
	return 1;
}

/* Calls verbs_context.query_port for `port` with `len`, as the header inline of a binary whose struct has `len`
 * bytes does. */
static int query_op(struct ibv_context *ctx, uint8_t port, unsigned char *buf, size_t len)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_port);

	if (!vctx)
		return -1;
	return vctx->query_port(ctx, port, (struct ibv_port_attr *)buf, len);
}

int main(void)
{
	unsigned char buf[sizeof(struct ibv_port_attr) + 16 + SLACK];
	struct ibv_port_attr *pa = (struct ibv_port_attr *)buf;
	struct ibv_context *ctx;
	int ret, ge56 = tu_lib_ge56();
	uint32_t want_ex;

	tu_init();
	CHECK("struct-size", sizeof(struct ibv_port_attr) == 56 && offsetof(struct ibv_port_attr, active_speed_ex) == 52,
	      "sizeof %zu, active_speed_ex at %zu: the header is not rdma-core 56's or later", sizeof(struct ibv_port_attr),
	      offsetof(struct ibv_port_attr, active_speed_ex));
	ctx = tu_open(tu_dev_name[0]);
	if (!ctx)
		tu_abort(PROG, "open", "cannot open %s (%s)", tu_dev_name[0], tu_errname(errno));

	/* 56 bytes, the header's inline (what a program built against rdma-core 56 or 65 does). */
	memset(buf, GUARD, sizeof(buf));
	ret = ibv_query_port(ctx, 1, pa);
	if (!CHECK("inline-56", ret == 0 && pa->state == IBV_PORT_ACTIVE && pa->active_speed != 0,
		   "ret %d (%s), state %d, active_speed %u", ret, tu_errname(ret), pa->state, pa->active_speed))
		tu_abort(PROG, "inline-56", "no reference query");
	memcpy(ref, buf, sizeof(ref));
	CHECK("inline-56-guard", guard_ok(buf, 56, 56 + SLACK), "bytes written past the 56-byte struct");
	/* The kernel reports the extended speed from Linux 6.9 (6.12 in this suite), a 56 library passes it on; a 44
	 * library, and a plug-in built against 44 under ours, leave the field zero. */
	want_ex = ge56 && tu_kernel_ge(6, 9) ? pa->active_speed : 0;
	if (tu_ours() && !tu_native() && pa->active_speed_ex == 0)
		want_ex = 0; /* rdma-core's plug-in under ours (RDMAV_PROVIDER=plugin) fills what its release knew */
	CHECK("active_speed_ex", pa->active_speed_ex == want_ex,
	      "active_speed_ex %u, want %u (active_speed %u, library %s, kernel %s 6.9)", pa->active_speed_ex, want_ex,
	      pa->active_speed, ge56 ? "56 or later" : "44", tu_kernel_ge(6, 9) ? ">=" : "<");

	/* 52 bytes through the op: what the inline of a binary built against rdma-core 44 passes. */
	memset(buf, GUARD, sizeof(buf));
	ret = query_op(ctx, 1, buf, 52);
	CHECK("op-52", ret == 0 && !memcmp(buf, ref, offsetof(struct ibv_port_attr, port_cap_flags2) + 2),
	      "ret %d (%s), or the attributes differ from the 56-byte query's", ret, tu_errname(ret));
	CHECK("op-52-guard", guard_ok(buf, 52, 52 + SLACK), "bytes written past a 52-byte struct: %02x %02x %02x %02x",
	      buf[52], buf[53], buf[54], buf[55]);

	/* 56 bytes through the op: the same as the inline. */
	memset(buf, GUARD, sizeof(buf));
	ret = query_op(ctx, 1, buf, 56);
	CHECK("op-56", ret == 0 && !memcmp(buf, ref, sizeof(ref)) && guard_ok(buf, 56, 56 + SLACK),
	      "ret %d (%s), attributes differ from the inline's, or bytes written past 56", ret, tu_errname(ret));

	/* 64 bytes: a caller newer than the library: zeroed past the library's struct, nothing past 64. */
	memset(buf, GUARD, sizeof(buf));
	ret = query_op(ctx, 1, buf, 64);
	{
		static const unsigned char zero[64];
		size_t known = ge56 ? 56 : 52;

		CHECK("op-64", ret == 0 && !memcmp(buf, ref, 48) && !memcmp(buf + known, zero, 64 - known) &&
				       guard_ok(buf, 64, 64 + SLACK),
		      "ret %d (%s), attributes differ, bytes %zu..63 not zeroed, or bytes written past 64", ret,
		      tu_errname(ret), known);
	}

	/* The exported ibv_query_port@IBVERBS_1.1 (the parentheses keep the macro out): rdma-core's compat struct is
	 * the attributes up to, without, port_cap_flags2: 48 bytes. */
	memset(buf, GUARD, sizeof(buf));
	ret = (ibv_query_port)(ctx, 1, (struct _compat_ibv_port_attr *)buf);
	CHECK("exported-48", ret == 0 && !memcmp(buf, ref, 48), "ret %d (%s), or the attributes differ", ret,
	      tu_errname(ret));
	CHECK("exported-48-guard", guard_ok(buf, 48, 48 + SLACK), "bytes written past the 48-byte compat struct: %02x %02x",
	      buf[48], buf[49]);

	/* A bad port through each way: EINVAL, and the caller's bytes past its struct untouched. */
	memset(buf, GUARD, sizeof(buf));
	ret = query_op(ctx, 2, buf, 52);
	CHECK("op-52-bad-port", ret == EINVAL && guard_ok(buf, 52, 52 + SLACK), "ret %d (%s)", ret, tu_errname(ret));

	CHECK("close", ibv_close_device(ctx) == 0, "ibv_close_device failed");
	return tu_finish(PROG);
}
