/* verbs_explain: a failing control-path call says why in the log (VERBS_LOG_LEVEL >= 2, VERBS_LOG_FILE).
 *
 * The program points VERBS_LOG_FILE at a file of its own before the library's first call, makes calls that fail,
 * and checks that each failure returns the errno rdma-core returns (the kernel's EINVAL) and, with our
 * libibverbs, that the log has the line naming the object, the call and the reason:
 *   rc_init_to_rtr_mask  RC INIT->RTR without IBV_QP_AV and IBV_QP_DEST_QPN, with IBV_QP_SQ_PSN:
 *                        "ibv_modify_qp(qpn 0x.., RC, INIT->RTR): missing IBV_QP_AV, IBV_QP_DEST_QPN; extra IBV_QP_SQ_PSN"
 *   rc_reset_to_rts      "RESET->RTS): not a legal transition for RC"
 *   ud_reset_to_init     UD RESET->INIT without IBV_QP_QKEY: "missing IBV_QP_QKEY"
 *   uc_rtr_to_rts        UC RTR->RTS with IBV_QP_TIMEOUT (RC-only) and without IBV_QP_SQ_PSN
 *   dest_qpn_24bit       "dest_qp_num 0x1000000 is wider than 24 bits"
 *   create_qp_sge        ibv_create_qp with max_send_sge above the device's max_sge:
 *                        "ibv_create_qp(RC): cap.max_send_sge N > device max_sge M"
 *   success_is_silent    a successful modify sequence adds no line
 * and on the data path (our own providers, rxe or siw; with Debian's plug-in provider, RDMAV_PROVIDER=plugin, the
 * post calls are the plug-in's, which logs nothing, so only the return values are checked):
 *   post_send_sge        a 2-WR list whose second WR has one SGE too many: bad_wr is it, and
 *                        "ibv_post_send(qpn 0x..): wr_id 0x52: num_sge N > max_send_sge M (EINVAL)"
 *   post_send_inline     IBV_SEND_INLINE with more bytes than the QP's inline limit: "bytes > ...max_inline_data"
 *   post_send_sq_full    one list of max_send_wr + 1 RDMA Writes on an idle QP: the last is refused,
 *                        "wr_id 0x...: send queue full" (ENOMEM)
 *   post_recv_sge        "ibv_post_recv: wr_id 0x61: num_sge N > max_recv_sge M" (the receive loop does not hold
 *                        its QP: naming it would cost every post an instruction)
 *   post_recv_rq_full    max_recv_wr + 1 receives: "receive queue full" (ENOMEM)
 *   post_success_silent  a good post adds no line
 * With rdma-core's libibverbs (CASE_LIBS=stock) only the return values are checked: it logs nothing of this.
 * `verbs_explain post` runs the data-path checks alone (60-siw runs them over Soft-iWARP with our libraries only:
 * rdma-core's siw provider returns negative errnos from its post calls).
 */
#include "testutil.h"

#include <sys/stat.h>

static char log_path[64];

/* The log's bytes from offset `from` on (static buffer). */
static const char *log_since(long from)
{
	static char buf[65536];
	FILE *f = fopen(log_path, "r");
	size_t n = 0;

	buf[0] = 0;
	if (!f)
		return buf;
	if (fseek(f, from, SEEK_SET) == 0)
		n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static long log_size(void)
{
	struct stat st;

	return stat(log_path, &st) ? 0 : (long)st.st_size;
}

/* Checks one failing call: `ret` must be `want_errno` (positive errno convention) and, with our library, the log
 * written since `from` must contain every string of `needles` (NULL-terminated). */
static void expect(const char *name, int ret, int want_errno, long from, const char *const *needles)
{
	const char *log = log_since(from);

	if (ret != want_errno) {
		tu_fail(name, "returned %s, expected %s", tu_errname(ret), tu_errname(want_errno));
		return;
	}
	if (!tu_ours()) {
		tu_pass(name, "rdma-core: %s (logs nothing)", tu_errname(ret));
		return;
	}
	for (const char *const *n = needles; *n; n++) {
		if (!strstr(log, *n)) {
			tu_fail(name, "%s, but the log lacks \"%s\"; it has: %.300s", tu_errname(ret), *n, log);
			return;
		}
	}
	const char *line = strstr(log, needles[0]);
	const char *end = line ? strchr(line, '\n') : NULL;
	tu_pass(name, "%s; log: %.*s", tu_errname(ret), line ? (int)(end ? end - line : 200) : 0, line ? line : "");
}

static int to_init(struct ibv_qp *qp, enum ibv_qp_type type)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (type == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	}
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static void modify_checks(void)
{
	struct tu_ep e;
	struct ibv_qp_attr a;
	char qpn[32];
	const char *why = tu_ep_open(&e, 0);
	long at;
	int ret;

	if (!why)
		why = tu_ep_qp(&e, IBV_QPT_RC, NULL, 0);
	if (why) {
		tu_fail("rc_init_to_rtr_mask", "setup: %s: %s", why, tu_errname(errno));
		return;
	}
	snprintf(qpn, sizeof(qpn), "qpn %#x, RC,", e.qp->qp_num);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	at = log_size();
	ret = ibv_modify_qp(e.qp, &a, IBV_QP_STATE);
	expect("rc_reset_to_rts", ret, EINVAL, at,
	       (const char *const[]){"ibv_modify_qp(", qpn, "RESET->RTS): not a legal transition for RC", NULL});

	at = log_size();
	ret = to_init(e.qp, IBV_QPT_RC);
	if (ret) {
		tu_fail("success_is_silent", "RESET->INIT: %s", tu_errname(ret));
	} else if (tu_ours() && strstr(log_since(at), "ibv_modify_qp(")) {
		tu_fail("success_is_silent", "a successful modify logged: %.200s", log_since(at));
	} else {
		tu_pass("success_is_silent", "RESET->INIT with the RC mask, nothing logged");
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.rq_psn = 1;
	a.sq_psn = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	at = log_size();
	ret = ibv_modify_qp(e.qp, &a,
			    IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN);
	expect("rc_init_to_rtr_mask", ret, EINVAL, at,
	       (const char *const[]){"ibv_modify_qp(", qpn,
				     "INIT->RTR): missing IBV_QP_AV, IBV_QP_DEST_QPN; extra IBV_QP_SQ_PSN", NULL});

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = 0x1000000;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = e.gid;
	a.ah_attr.grh.sgid_index = e.gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	at = log_size();
	ret = ibv_modify_qp(e.qp, &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	/* rdma-core passes dest_qp_num on and the kernel takes its low 24 bits: only ours refuses it (verbs_misuse). */
	if (tu_ours())
		expect("dest_qpn_24bit", ret, EINVAL, at,
		       (const char *const[]){"ibv_modify_qp(", qpn, "dest_qp_num 0x1000000 is wider than 24 bits",
					     NULL});
	else
		tu_pass("dest_qpn_24bit", "rdma-core: %s (the kernel keeps 24 bits)", tu_errname(ret));
	tu_ep_close(&e);

	why = tu_ep_open(&e, 0);
	if (!why)
		why = tu_ep_qp(&e, IBV_QPT_UD, NULL, 0);
	if (why) {
		tu_fail("ud_reset_to_init", "setup: %s: %s", why, tu_errname(errno));
		return;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	at = log_size();
	ret = ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT);
	expect("ud_reset_to_init", ret, EINVAL, at,
	       (const char *const[]){"ibv_modify_qp(", ", UD, RESET->INIT): missing IBV_QP_QKEY", NULL});
	tu_ep_close(&e);

	why = tu_ep_open(&e, 0);
	if (!why)
		why = tu_ep_qp(&e, IBV_QPT_UC, NULL, 0);
	if (!why && to_init(e.qp, IBV_QPT_UC))
		why = "RESET->INIT";
	if (!why) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = e.qp->qp_num;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = e.gid;
		a.ah_attr.grh.sgid_index = e.gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		if (ibv_modify_qp(e.qp, &a,
				  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
			why = "INIT->RTR";
	}
	if (why) {
		tu_fail("uc_rtr_to_rts", "setup: %s: %s", why, tu_errname(errno));
		tu_ep_close(&e);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	at = log_size();
	ret = ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT);
	expect("uc_rtr_to_rts", ret, EINVAL, at,
	       (const char *const[]){", UC, RTR->RTS): missing IBV_QP_SQ_PSN; extra IBV_QP_TIMEOUT", NULL});
	tu_ep_close(&e);
}

static void create_checks(void)
{
	struct tu_ep e;
	struct ibv_device_attr da;
	struct ibv_qp_init_attr ia;
	char want[96];
	const char *why = tu_ep_open(&e, 0);
	long at;

	if (!why && ibv_query_device(e.ctx, &da))
		why = "ibv_query_device";
	if (why) {
		tu_fail("create_qp_sge", "setup: %s: %s", why, tu_errname(errno));
		tu_ep_close(&e);
		return;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = e.scq;
	ia.recv_cq = e.rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = (uint32_t)da.max_sge + 8;
	ia.cap.max_recv_sge = 1;
	at = log_size();
	errno = 0;
	struct ibv_qp *qp = ibv_create_qp(e.pd, &ia);
	int err = qp ? 0 : errno;
	snprintf(want, sizeof(want), "cap.max_send_sge %d > device max_sge %d", da.max_sge + 8, da.max_sge);
	expect("create_qp_sge", err, EINVAL, at, (const char *const[]){"ibv_create_qp(RC): ", want, NULL});
	if (qp)
		ibv_destroy_qp(qp);
	tu_ep_close(&e);
}

/* The data-path explanations, on a connected RC pair. */
static void post_checks(void)
{
	struct tu_ep a, b;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_send_wr sw[2], *bad_s, *many;
	struct ibv_recv_wr rw, *bad_r, *rmany;
	struct ibv_sge sges[16];
	struct ibv_wc wc[64];
	char want[128];
	const char *why;
	unsigned i, n, inl;
	int ret, native = tu_native(), iwarp;
	long at;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if ((why = tu_ep_open(&a, 0)) || (why = tu_ep_open(&b, 1))) {
		tu_fail("post-setup", "%s: %s", why, tu_errname(errno));
		goto out;
	}
	/* iWARP QPs connect only through the CM: there the checks run on an unconnected QP in INIT, with the bad WR
	 * first in its list (the doorbell of a QP not in RTS would answer instead), and without the SQ overfill. */
	iwarp = a.ctx->device->transport_type == IBV_TRANSPORT_IWARP;
	if (iwarp) {
		if ((why = tu_ep_qp(&a, IBV_QPT_RC, NULL, 16)))
			goto setup_failed;
		if (tu_qp_init(a.qp, IBV_QPT_RC)) {
			why = "ibv_modify_qp(INIT)";
			goto setup_failed;
		}
	} else {
		tu_ep_close(&a);
		tu_ep_close(&b);
		if ((why = tu_pair_open(&a, &b, IBV_QPT_RC, 16)))
			goto setup_failed;
	}
	if (ibv_query_qp(a.qp, &qa, IBV_QP_CAP, &qi)) {
		tu_fail("post-setup", "ibv_query_qp: %s", tu_errname(errno));
		goto out;
	}
	for (i = 0; i < 16; i++)
		sges[i] = (struct ibv_sge){ .addr = (uintptr_t)a.buf + 64 * i, .length = 64, .lkey = a.mr->lkey };

	/* Two RDMA Writes to b's buffer (no receive needed), the second with one SGE over the limit. */
	memset(sw, 0, sizeof(sw));
	for (i = 0; i < 2; i++) {
		sw[i].wr_id = 0x51 + i;
		sw[i].opcode = IBV_WR_RDMA_WRITE;
		sw[i].sg_list = sges;
		sw[i].num_sge = 1;
		sw[i].wr.rdma.remote_addr = (uintptr_t)b.buf;
		sw[i].wr.rdma.rkey = b.mr->rkey;
	}
	sw[0].next = &sw[1];
	sw[0].send_flags = IBV_SEND_SIGNALED;
	/* siw takes up to 6 SGEs whatever the QP's cap says (rdma-core's too): 16 is over any limit there. */
	n = iwarp ? 16 : qa.cap.max_send_sge + 1;
	sw[1].num_sge = (int)(n < 16 ? n : 16);
	at = log_size();
	ret = ibv_post_send(a.qp, iwarp ? &sw[1] : sw, &bad_s);
	snprintf(want, sizeof(want), "num_sge %d > max_send_sge ", sw[1].num_sge);
	if (ret == EINVAL && bad_s != &sw[1])
		tu_fail("post_send_sge", "bad_wr is %p, not the WR %p", (void *)bad_s, (void *)&sw[1]);
	else if (n > 16)
		tu_pass("post_send_sge", "skipped: max_send_sge %u is 16 or more", qa.cap.max_send_sge);
	else if (native)
		expect("post_send_sge", ret, EINVAL, at,
		       (const char *const[]){"ibv_post_send(qpn 0x", "): wr_id 0x52: ", want, "(EINVAL)", NULL});
	else
		expect("post_send_sge", ret, EINVAL, at, (const char *const[]){"", NULL});
	if (!iwarp)
		tu_poll(a.scq, wc, 1, 5000);

	/* Inline data over the limit (siw's is fixed at 80 bytes, whatever the QP asked for). */
	inl = qa.cap.max_inline_data > 80 ? qa.cap.max_inline_data : 80;
	memset(sw, 0, sizeof(sw));
	sges[15] = (struct ibv_sge){ .addr = (uintptr_t)a.buf, .length = inl + 1, .lkey = a.mr->lkey };
	sw[0].wr_id = 0x53;
	sw[0].opcode = IBV_WR_RDMA_WRITE;
	sw[0].sg_list = &sges[15];
	sw[0].num_sge = 1;
	sw[0].send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	sw[0].wr.rdma.remote_addr = (uintptr_t)b.buf;
	sw[0].wr.rdma.rkey = b.mr->rkey;
	at = log_size();
	ret = ibv_post_send(a.qp, sw, &bad_s);
	snprintf(want, sizeof(want), "IBV_SEND_INLINE with %u bytes > ", inl + 1);
	expect("post_send_inline", ret, EINVAL, at,
	       native ? (const char *const[]){"): wr_id 0x53: ", want, "max_inline_data", NULL}
		      : (const char *const[]){"", NULL});

	if (iwarp)
		goto receives;
	/* One list longer than the send queue, on an idle QP: the kernel sees nothing before the doorbell. */
	n = qa.cap.max_send_wr + 1;
	many = calloc(n, sizeof(*many));
	if (!many) {
		tu_fail("post_send_sq_full", "calloc");
		goto out;
	}
	for (i = 0; i < n; i++) {
		many[i].wr_id = 0x1000 + i;
		many[i].opcode = IBV_WR_RDMA_WRITE;
		many[i].sg_list = sges;
		many[i].num_sge = 1;
		many[i].wr.rdma.remote_addr = (uintptr_t)b.buf;
		many[i].wr.rdma.rkey = b.mr->rkey;
		many[i].next = i + 1 < n ? &many[i + 1] : NULL;
	}
	many[n - 2].send_flags = IBV_SEND_SIGNALED;
	at = log_size();
	ret = ibv_post_send(a.qp, many, &bad_s);
	snprintf(want, sizeof(want), "): wr_id 0x%x: send queue full", 0x1000 + n - 1);
	if (ret == ENOMEM && bad_s != &many[n - 1])
		tu_fail("post_send_sq_full", "bad_wr is WR %ld, not the last (%u)", (long)(bad_s - many), n - 1);
	else
		expect("post_send_sq_full", ret, ENOMEM, at,
		       native ? (const char *const[]){want, "(ENOMEM)", NULL} : (const char *const[]){"", NULL});
	tu_poll(a.scq, wc, 1, 5000);
	free(many);

receives:
	/* Receives: too many SGEs, then a receive queue overfilled. */
	memset(&rw, 0, sizeof(rw));
	rw.wr_id = 0x61;
	rw.sg_list = sges;
	n = iwarp ? 16 : qa.cap.max_recv_sge + 1;
	rw.num_sge = (int)(n < 16 ? n : 16);
	at = log_size();
	ret = ibv_post_recv(a.qp, &rw, &bad_r);
	snprintf(want, sizeof(want), "ibv_post_recv: wr_id 0x61: num_sge %d > max_recv_sge ", rw.num_sge);
	if (n > 16)
		tu_pass("post_recv_sge", "skipped: max_recv_sge %u is 16 or more", qa.cap.max_recv_sge);
	else
		expect("post_recv_sge", ret, EINVAL, at,
		       native ? (const char *const[]){want, NULL} : (const char *const[]){"", NULL});

	n = qa.cap.max_recv_wr + 1;
	rmany = calloc(n, sizeof(*rmany));
	if (!rmany) {
		tu_fail("post_recv_rq_full", "calloc");
		goto out;
	}
	for (i = 0; i < n; i++) {
		rmany[i].wr_id = 0x2000 + i;
		rmany[i].sg_list = sges;
		rmany[i].num_sge = 1;
		rmany[i].next = i + 1 < n ? &rmany[i + 1] : NULL;
	}
	at = log_size();
	ret = ibv_post_recv(a.qp, rmany, &bad_r);
	snprintf(want, sizeof(want), "ibv_post_recv: wr_id 0x%x: receive queue full", 0x2000 + n - 1);
	if (ret == ENOMEM && bad_r != &rmany[n - 1])
		tu_fail("post_recv_rq_full", "bad_wr is WR %ld, not the last (%u)", (long)(bad_r - rmany), n - 1);
	else
		expect("post_recv_rq_full", ret, ENOMEM, at,
		       native ? (const char *const[]){want, "(ENOMEM)", NULL} : (const char *const[]){"", NULL});
	free(rmany);
	if (iwarp)
		goto out;

	/* A good post says nothing. */
	memset(sw, 0, sizeof(sw));
	sw[0].wr_id = 0x54;
	sw[0].opcode = IBV_WR_RDMA_WRITE;
	sw[0].sg_list = sges;
	sw[0].num_sge = 1;
	sw[0].send_flags = IBV_SEND_SIGNALED;
	sw[0].wr.rdma.remote_addr = (uintptr_t)b.buf;
	sw[0].wr.rdma.rkey = b.mr->rkey;
	at = log_size();
	ret = ibv_post_send(a.qp, sw, &bad_s);
	n = tu_poll(a.scq, wc, 1, 5000);
	CHECK("post_success_silent", ret == 0 && n == 1 && wc[0].status == IBV_WC_SUCCESS && log_size() == at,
	      "post %s, %u completions, log grew by %ld bytes: %.200s", tu_errname(ret), n, log_size() - at,
	      log_since(at));
out:
	tu_ep_close(&a);
	tu_ep_close(&b);
	return;
setup_failed:
	tu_fail("post-setup", "%s: %s", why, tu_errname(errno));
	goto out;
}

int main(int argc, char **argv)
{
	/* Before the library's first call: it reads the variables when it starts logging. */
	snprintf(log_path, sizeof(log_path), "/tmp/verbs_explain.%d.log", (int)getpid());
	unlink(log_path);
	setenv("VERBS_LOG_LEVEL", "2", 1);
	setenv("VERBS_LOG_FILE", log_path, 1);
	tu_init();
	if (argc > 1 && !strcmp(argv[1], "post")) {
		post_checks();
	} else {
		modify_checks();
		create_checks();
		post_checks();
	}
	unlink(log_path);
	return tu_finish("verbs_explain");
}
