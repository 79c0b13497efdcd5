/*
 * rdma_ops.c - one-sided RDMA: read, write, fetch-and-add and compare-and-swap on a peer's memory, every result
 * checked. One program: the server (-s) exposes a memory region, the client operates on it.
 *
 * What this program teaches
 *   - One-sided operations. With IBV_WR_RDMA_READ / IBV_WR_RDMA_WRITE / IBV_WR_ATOMIC_* the client reads and
 *     changes the server's memory WITHOUT the server's CPU doing anything: no receive is posted, no completion
 *     appears on the server. What the client needs is the remote address and the remote key (rkey) of a memory
 *     region that the server registered with the matching IBV_ACCESS_REMOTE_* rights.
 *   - Handing over address and rkey in the private data of rdma_accept(): the client finds them in
 *     id->event->param.conn.private_data once rdma_connect() returns (verbs_pingpong.c does the same over TCP).
 *   - Atomics: 64-bit, on an 8-byte aligned remote address, returning the OLD value into a local buffer. The
 *     memory region needs IBV_ACCESS_REMOTE_ATOMIC, the device an atomic_cap other than IBV_ATOMIC_NONE, and the
 *     connection "responder resources" (rdma_conn_param) for reads and atomics to be outstanding at all.
 *   - Work request anatomy: opcode, local scatter/gather entry (addr, length, lkey), wr.rdma.{remote_addr,rkey}
 *     or wr.atomic.{remote_addr,rkey,compare_add,swap}.
 *   - A final two-sided exchange so the server can check its own memory: SEND/RECV remain the way to tell
 *     the other side that something happened.
 *
 * What it does
 *   Server: registers { counter = 100, text = "the server's original text" } and accepts one connection.
 *   Client: RDMA READ (expects the original contents), RDMA WRITE of a new text, FETCH_ADD +5 (expects 100 back),
 *   COMPARE_SWAP 105 -> 7 (expects 105 back: swapped), COMPARE_SWAP 105 -> 999 (expects 7 back: not swapped),
 *   RDMA READ again (expects counter 7 and the new text), then SENDs what the server's memory should now hold.
 *   The server compares that with its memory and SENDs back its verdict. Exit status 0 (on both sides) only if
 *   every check passed.
 *
 * Usage
 *   server: rdma_ops -s [-a ADDRESS] [-p PORT]                   (default port 7473)
 *   client: rdma_ops -a SERVER [-b LOCAL_ADDRESS] [-p PORT]
 *   e.g. rdma_ops -s -a 198.18.0.1          and then: rdma_ops -a 198.18.0.1 -b 198.18.0.2
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define TEXT_MAX 56
#define MSG_MAX 160
#define ORIGINAL_TEXT "the server's original text"
#define NEW_TEXT "written by the client with RDMA WRITE"

/* The memory the server exposes. The atomics' target must be 8-byte aligned: it comes first. It is an ordinary
 * integer in the server's byte order, which is how the responder (rxe, and HCAs on x86 hosts) applies atomics. */
struct region {
	uint64_t counter;
	char text[TEXT_MAX];
};

/* What the server tells the client in the private data of rdma_accept(); big-endian, packed. */
struct region_info {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
} __attribute__((packed));

static const char *me = "rdma_ops";

static void die(const char *what)
{
	fprintf(stderr, "%s: %s failed: %s\n", me, what, strerror(errno));
	exit(1);
}

/* Both sides: the QP attributes. sq_sig_all = 1 gives every send-queue operation a completion. */
static void qp_attributes(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 4;
	attr->cap.max_recv_wr = 2;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->sq_sig_all = 1;
}

/* Both sides: allow one RDMA read or atomic in flight in each direction (0 would forbid them). */
static void conn_params(struct rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = 1;     /* reads/atomics the PEER may have outstanding against us */
	p->initiator_depth = 1;         /* reads/atomics WE may have outstanding against the peer */
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static void wait_comp(struct rdma_cm_id *id, int recv, struct ibv_wc *wc, const char *what)
{
	int n = recv ? rdma_get_recv_comp(id, wc) : rdma_get_send_comp(id, wc);

	if (n <= 0)
		die(recv ? "rdma_get_recv_comp" : "rdma_get_send_comp");
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "%s: %s failed: %s\n", me, what, ibv_wc_status_str(wc->status));
		exit(1);
	}
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Server */

static int run_server(const char *addr, const char *port)
{
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr attr;
	struct rdma_conn_param param;
	struct rdma_cm_id *listen_id, *id;
	struct region *reg;
	struct region_info info;
	struct ibv_mr *reg_mr, *msg_mr;
	struct ibv_wc wc;
	char msgs[2][MSG_MAX];          /* [0] receives the client's report, [1] holds our verdict */
	char want_text[MSG_MAX];
	uint64_t want_counter;
	int consumed = 0, ok, len;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");
	qp_attributes(&attr);
	if (rdma_create_ep(&listen_id, res, NULL, &attr))
		die("rdma_create_ep");
	rdma_freeaddrinfo(res);
	if (rdma_listen(listen_id, 0))
		die("rdma_listen");
	printf("%s: listening on %s port %s\n", me, addr ? addr : "*", port);
	if (rdma_get_request(listen_id, &id))
		die("rdma_get_request");

	/* The region the client may read, write and run atomics on. */
	if (posix_memalign((void **)&reg, 64, sizeof(*reg)))
		die("posix_memalign");
	memset(reg, 0, sizeof(*reg));
	reg->counter = 100;
	strcpy(reg->text, ORIGINAL_TEXT);
	reg_mr = ibv_reg_mr(id->pd, reg, sizeof(*reg), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	msg_mr = ibv_reg_mr(id->pd, msgs, sizeof(msgs), IBV_ACCESS_LOCAL_WRITE);
	if (!reg_mr || !msg_mr)
		die("ibv_reg_mr");
	printf("%s: exposing %zu bytes at 0x%" PRIxPTR ", rkey 0x%x: counter=%" PRIu64 " text=\"%s\"\n", me,
	       sizeof(*reg), (uintptr_t)reg, reg_mr->rkey, reg->counter, reg->text);

	/* The receive for the client's final report, then accept with address and rkey in the private data. */
	if (rdma_post_recv(id, NULL, msgs[0], MSG_MAX, msg_mr))
		die("rdma_post_recv");
	info.addr = htobe64((uintptr_t)reg);
	info.rkey = htobe32(reg_mr->rkey);
	info.len = htobe32(sizeof(*reg));
	conn_params(&param);
	param.private_data = &info;
	param.private_data_len = sizeof(info);
	if (rdma_accept(id, &param))
		die("rdma_accept");
	printf("%s: connected; the client now works on our memory, our CPU is not involved\n", me);

	/* The only thing we see: the client's report, once it is done. */
	wait_comp(id, 1, &wc, "receive");
	msgs[0][wc.byte_len < MSG_MAX ? wc.byte_len : MSG_MAX - 1] = '\0';
	printf("%s: received %3u bytes: \"%s\"\n", me, wc.byte_len, msgs[0]);
	ok = sscanf(msgs[0], "expect counter=%" SCNu64 " text=%n", &want_counter, &consumed) == 1 && consumed > 0;
	if (ok) {
		snprintf(want_text, sizeof(want_text), "%s", msgs[0] + consumed);
		ok = reg->counter == want_counter && strncmp(reg->text, want_text, TEXT_MAX) == 0;
	}
	printf("%s: our memory now: counter=%" PRIu64 " text=\"%.*s\": %s\n", me, reg->counter, TEXT_MAX, reg->text,
	       ok ? "as the client says" : "NOT what the client says");

	len = snprintf(msgs[1], MSG_MAX, "%s", ok ? "server agrees" : "server disagrees") + 1;
	if (rdma_post_send(id, NULL, msgs[1], (size_t)len, msg_mr, 0))
		die("rdma_post_send");
	wait_comp(id, 0, &wc, "send");
	printf("%s: sent     %3d bytes: \"%s\"\n", me, len, msgs[1]);

	rdma_disconnect(id);
	ibv_dereg_mr(reg_mr);
	ibv_dereg_mr(msg_mr);
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	free(reg);
	printf("%s: %s\n", me, ok ? "OK" : "FAILED");
	return ok ? 0 : 1;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Client */

/* Everything the client registers, in one memory region: one MR may back many buffers. */
struct client_mem {
	struct region copy;             /* RDMA READ lands here */
	char new_text[TEXT_MAX];        /* RDMA WRITE takes its data from here */
	uint64_t old_value;             /* atomics return the previous remote value here */
	char msg[MSG_MAX];              /* our report (SEND) */
	char verdict[MSG_MAX];          /* the server's verdict (RECV) */
};

static int checks_ok, checks_failed;

static void check(int good, const char *what)
{
	printf("%s:   -> %s: %s\n", me, what, good ? "ok" : "WRONG");
	if (good)
		checks_ok++;
	else
		checks_failed++;
}

/* Posts one work request on the send queue and waits for its completion. */
static void post_and_wait(struct rdma_cm_id *id, struct ibv_send_wr *wr, const char *what)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	if (ibv_post_send(id->qp, wr, &bad))
		die(what);
	wait_comp(id, 0, &wc, what);
}

static void rdma_rw(struct rdma_cm_id *id, enum ibv_wr_opcode op, void *local, uint32_t len, uint32_t lkey,
		    uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)local, .length = len, .lkey = lkey };
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	post_and_wait(id, &wr, op == IBV_WR_RDMA_READ ? "RDMA READ" : "RDMA WRITE");
}

/* FETCH_ADD: remote += add.  COMPARE_SWAP: if (remote == compare) remote = swap.  Both return the old value. */
static uint64_t atomic_op(struct rdma_cm_id *id, enum ibv_wr_opcode op, struct client_mem *mem, uint32_t lkey,
			  uint64_t remote_addr, uint32_t rkey, uint64_t compare_add, uint64_t swap)
{
	struct ibv_sge sge = { .addr = (uintptr_t)&mem->old_value, .length = sizeof(uint64_t), .lkey = lkey };
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = remote_addr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	post_and_wait(id, &wr, op == IBV_WR_ATOMIC_FETCH_AND_ADD ? "FETCH_ADD" : "COMPARE_SWAP");
	return mem->old_value;
}

static int run_client(const char *server, const char *local, const char *port)
{
	struct rdma_addrinfo hints, *res;
	struct addrinfo *src = NULL;
	struct ibv_qp_init_attr attr;
	struct rdma_conn_param param;
	struct ibv_device_attr dev_attr;
	struct rdma_cm_id *id;
	struct region_info info;
	struct client_mem *mem;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint64_t raddr, old, counter_addr;
	uint32_t rkey, rlen;
	int len;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (local) {
		struct addrinfo ai_hints = { .ai_family = AF_INET, .ai_flags = AI_NUMERICHOST };

		if (getaddrinfo(local, NULL, &ai_hints, &src)) {
			fprintf(stderr, "%s: bad local address %s\n", me, local);
			return 1;
		}
		hints.ai_src_addr = src->ai_addr;
		hints.ai_src_len = src->ai_addrlen;
	}
	if (rdma_getaddrinfo(server, port, &hints, &res))
		die("rdma_getaddrinfo");
	qp_attributes(&attr);
	if (rdma_create_ep(&id, res, NULL, &attr))
		die("rdma_create_ep");
	rdma_freeaddrinfo(res);
	if (src)
		freeaddrinfo(src);

	if (ibv_query_device(id->verbs, &dev_attr))
		die("ibv_query_device");
	if (dev_attr.atomic_cap == IBV_ATOMIC_NONE) {
		fprintf(stderr, "%s: %s does not support atomics\n", me, ibv_get_device_name(id->verbs->device));
		return 1;
	}

	if (posix_memalign((void **)&mem, 64, sizeof(*mem)))
		die("posix_memalign");
	memset(mem, 0, sizeof(*mem));
	mr = ibv_reg_mr(id->pd, mem, sizeof(*mem), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	if (rdma_post_recv(id, NULL, mem->verdict, MSG_MAX, mr))      /* for the server's verdict, at the end */
		die("rdma_post_recv");

	conn_params(&param);
	if (rdma_connect(id, &param))
		die("rdma_connect");
	/* For an endpoint made by rdma_create_ep(), id->event is the event that completed the last call: here,
	 * ESTABLISHED, which carries the private data of the server's rdma_accept(). */
	if (!id->event || id->event->param.conn.private_data_len < sizeof(info)) {
		fprintf(stderr, "%s: the server sent no region information\n", me);
		return 1;
	}
	memcpy(&info, id->event->param.conn.private_data, sizeof(info));
	raddr = be64toh(info.addr);
	rkey = be32toh(info.rkey);
	rlen = be32toh(info.len);
	if (rlen < sizeof(struct region)) {
		fprintf(stderr, "%s: the server's region is too small (%u bytes)\n", me, rlen);
		return 1;
	}
	counter_addr = raddr + offsetof(struct region, counter);
	printf("%s: connected from %s; the accept's private data: region of %u bytes at 0x%" PRIx64 ", rkey 0x%x\n",
	       me, ibv_get_device_name(id->verbs->device), rlen, raddr, rkey);

	/* 1. RDMA READ the whole region. */
	rdma_rw(id, IBV_WR_RDMA_READ, &mem->copy, sizeof(mem->copy), mr->lkey, raddr, rkey);
	printf("%s: RDMA READ    %2zu bytes: counter=%" PRIu64 " text=\"%.*s\"\n", me, sizeof(mem->copy),
	       mem->copy.counter, TEXT_MAX, mem->copy.text);
	check(mem->copy.counter == 100 && !strncmp(mem->copy.text, ORIGINAL_TEXT, TEXT_MAX), "the server's original contents");

	/* 2. RDMA WRITE a new text over the server's (with its NUL byte). */
	strcpy(mem->new_text, NEW_TEXT);
	rdma_rw(id, IBV_WR_RDMA_WRITE, mem->new_text, sizeof(NEW_TEXT), mr->lkey,
		raddr + offsetof(struct region, text), rkey);
	printf("%s: RDMA WRITE   %2zu bytes: text=\"%s\"\n", me, sizeof(NEW_TEXT), mem->new_text);

	/* 3. FETCH_ADD +5: returns 100, the counter becomes 105. */
	old = atomic_op(id, IBV_WR_ATOMIC_FETCH_AND_ADD, mem, mr->lkey, counter_addr, rkey, 5, 0);
	printf("%s: FETCH_ADD    +5: returned %" PRIu64 "\n", me, old);
	check(old == 100, "old value 100, counter now 105");

	/* 4. COMPARE_SWAP 105 -> 7: the comparison holds, so it swaps; returns 105. */
	old = atomic_op(id, IBV_WR_ATOMIC_CMP_AND_SWP, mem, mr->lkey, counter_addr, rkey, 105, 7);
	printf("%s: COMPARE_SWAP if 105 then 7: returned %" PRIu64 "\n", me, old);
	check(old == 105, "swapped, counter now 7");

	/* 5. COMPARE_SWAP 105 -> 999: the counter is 7 now, so nothing changes; returns 7. */
	old = atomic_op(id, IBV_WR_ATOMIC_CMP_AND_SWP, mem, mr->lkey, counter_addr, rkey, 105, 999);
	printf("%s: COMPARE_SWAP if 105 then 999: returned %" PRIu64 "\n", me, old);
	check(old == 7, "not swapped, counter still 7");

	/* 6. RDMA READ again: everything above must show. */
	memset(&mem->copy, 0, sizeof(mem->copy));
	rdma_rw(id, IBV_WR_RDMA_READ, &mem->copy, sizeof(mem->copy), mr->lkey, raddr, rkey);
	printf("%s: RDMA READ    %2zu bytes: counter=%" PRIu64 " text=\"%.*s\"\n", me, sizeof(mem->copy),
	       mem->copy.counter, TEXT_MAX, mem->copy.text);
	check(mem->copy.counter == 7 && !strncmp(mem->copy.text, NEW_TEXT, TEXT_MAX), "the written text and counter 7");

	/* 7. Tell the server what it should find in its memory, and read its verdict. */
	len = snprintf(mem->msg, MSG_MAX, "expect counter=%d text=%s", 7, NEW_TEXT) + 1;
	if (rdma_post_send(id, NULL, mem->msg, (size_t)len, mr, 0))
		die("rdma_post_send");
	wait_comp(id, 0, &wc, "SEND");
	printf("%s: SEND         %2d bytes: \"%s\"\n", me, len, mem->msg);
	wait_comp(id, 1, &wc, "RECV");
	mem->verdict[wc.byte_len < MSG_MAX ? wc.byte_len : MSG_MAX - 1] = '\0';
	printf("%s: RECV         %2u bytes: \"%s\"\n", me, wc.byte_len, mem->verdict);
	check(!strcmp(mem->verdict, "server agrees"), "the server found the same in its memory");

	rdma_disconnect(id);
	ibv_dereg_mr(mr);
	rdma_destroy_ep(id);
	free(mem);
	printf("%s: %d checks passed, %d failed: %s\n", me, checks_ok, checks_failed, checks_failed ? "FAILED" : "OK");
	return checks_failed ? 1 : 0;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s -s [-a ADDRESS] [-p PORT]            (server)\n"
		"       %s -a SERVER [-b LOCAL_ADDRESS] [-p PORT]    (client)\n", argv0, argv0);
	return 2;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *local = NULL, *port = "7473";
	int opt, server = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "sa:b:p:")) != -1) {
		switch (opt) {
		case 's': server = 1; break;
		case 'a': addr = optarg; break;
		case 'b': local = optarg; break;
		case 'p': port = optarg; break;
		default: return usage(argv[0]);
		}
	}
	if (server) {
		me = "rdma_ops(server)";
		return run_server(addr, port);
	}
	if (!addr)
		return usage(argv[0]);
	me = "rdma_ops(client)";
	return run_client(addr, local, port);
}
