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
 * With rdma-core's libibverbs (CASE_LIBS=stock) only the return values are checked: it logs nothing of this.
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

int main(void)
{
	/* Before the library's first call: it reads the variables when it starts logging. */
	snprintf(log_path, sizeof(log_path), "/tmp/verbs_explain.%d.log", (int)getpid());
	unlink(log_path);
	setenv("VERBS_LOG_LEVEL", "2", 1);
	setenv("VERBS_LOG_FILE", log_path, 1);
	tu_init();
	modify_checks();
	create_checks();
	unlink(log_path);
	return tu_finish("verbs_explain");
}
