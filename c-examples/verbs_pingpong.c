/*
 * verbs_pingpong.c - the verbs API step by step: one RC queue pair per side, set up by hand, exchanging
 * "ping"/"pong" messages. The same program is the server (no address argument) and the client.
 *
 * What this program teaches, in the order the program does it
 *   1. Find and open a device           ibv_get_device_list, ibv_open_device, ibv_query_port, ibv_query_gid
 *   2. Protection domain (PD)           ibv_alloc_pd: the scope that the QP and the memory must share
 *   3. Memory region (MR)               ibv_reg_mr: pins a buffer and yields its local key (lkey, for our own
 *                                       work requests) and remote key (rkey, for a peer's RDMA read/write)
 *   4. Completion queue (CQ)            ibv_create_cq: where finished work requests are reported
 *   5. Queue pair (QP), RESET -> INIT   ibv_create_qp, ibv_modify_qp
 *   6. Post a receive                   ibv_post_recv (allowed from INIT on, and needed before the peer sends)
 *   7. Out-of-band exchange             a plain TCP connection carries what the peer needs to reach our QP:
 *                                       QP number, first packet sequence number (PSN), LID and GID, rkey and
 *                                       buffer address. Without rdma_cm, this is the application's job.
 *   8. INIT -> RTR -> RTS               ready to receive (needs the peer's QP number, PSN and address), then
 *                                       ready to send (our own PSN, timeouts and retry counts)
 *   9. Send and receive                 ibv_post_send with IBV_WR_SEND, ibv_poll_cq until the completion arrives
 *  10. Clean up                         everything destroyed in the reverse order of creation
 *
 * On RoCE (Ethernet, e.g. Soft-RoCE "rxe") there are no LIDs: packets are addressed by GID, so -g GID_INDEX is
 * required (`ibv_devinfo -v` lists the GID table; the IPv4-mapped RoCE v2 entry is the usual choice).
 *
 * Usage
 *   server: verbs_pingpong [-d DEVICE] [-i IB_PORT] [-g GID_INDEX] [-p TCP_PORT] [-n COUNT]
 *   client: verbs_pingpong [-d DEVICE] [-i IB_PORT] [-g GID_INDEX] [-p TCP_PORT] [-n COUNT] SERVER_ADDRESS
 *   (defaults: first device, IB port 1, no GID (InfiniBand LIDs), TCP port 18515, 5 round trips)
 *   e.g. verbs_pingpong -d rxe0 -g 1        and then: verbs_pingpong -d rxe1 -g 1 198.18.0.1
 *
 * Exit status 0 only if every completion succeeded and every message had the expected contents.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MSG_SIZE 64
#define WRID_SEND 1
#define WRID_RECV 2
#define WAIT_LIMIT_S 10

static const char *me = "verbs_pingpong";

/* What crosses the TCP connection, once in each direction. Integers are big-endian, the struct is packed:
 * the two ends may be different machines, so the layout must not depend on either compiler. */
struct qp_info {
	uint32_t qpn;           /* queue pair number */
	uint32_t psn;           /* first packet sequence number this side will send */
	uint32_t rkey;          /* remote key of our buffer (lets the peer RDMA read/write it; see rdma_ops.c) */
	uint64_t addr;          /* address of our buffer, for the same purpose */
	uint16_t lid;           /* InfiniBand local identifier (0 on RoCE) */
	uint8_t gid[16];        /* global identifier: on RoCE, our IP address in IPv6 form */
} __attribute__((packed));

/* The two message buffers live in one registered region. */
struct buffers {
	char send[MSG_SIZE];
	char recv[MSG_SIZE];
};

static void die(const char *what)
{
	fprintf(stderr, "%s: %s failed: %s\n", me, what, errno ? strerror(errno) : "error");
	exit(1);
}

static const char *gid_str(const uint8_t *gid, char *buf, size_t len)
{
	return inet_ntop(AF_INET6, gid, buf, len) ? buf : "?";
}

/* Reads or writes exactly len bytes on a TCP socket. */
static void tcp_xfer(int fd, void *buf, size_t len, int writing)
{
	char *p = buf;

	while (len) {
		ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);

		if (n <= 0) {
			if (n == 0)
				errno = ECONNRESET;
			die(writing ? "write to the TCP socket" : "read from the TCP socket");
		}
		p += n;
		len -= (size_t)n;
	}
}

/* The out-of-band channel: the server listens and accepts one connection, the client connects. */
static int tcp_connect(const char *server_addr, const char *port)
{
	struct addrinfo hints, *ai;
	int fd, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = server_addr ? 0 : AI_PASSIVE;
	if (getaddrinfo(server_addr, port, &hints, &ai)) {
		fprintf(stderr, "%s: cannot resolve %s\n", me, server_addr ? server_addr : "the listening address");
		exit(1);
	}
	fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	if (fd < 0)
		die("socket");
	if (server_addr) {
		int tries = 0;

		/* Retry for a few seconds: the server may still be setting up when both are started together. */
		while (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			if (errno != ECONNREFUSED || ++tries == 50)
				die("connect to the server's TCP port");
			usleep(100 * 1000);
		}
	} else {
		int lfd = fd;

		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, 1))
			die("bind/listen on the TCP port");
		printf("%s: [7] waiting for the client on TCP port %s\n", me, port);
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		close(lfd);
	}
	freeaddrinfo(ai);
	return fd;
}

/* Completions seen so far. Sends and receives share one CQ, so while waiting for one kind we may see the
 * other: counting both keeps nothing lost. */
struct progress {
	int sends, recvs;
	uint32_t last_recv_len;         /* byte_len of the latest receive: how much the peer sent */
};

/* Busy-polls the CQ until at least `sends` sends and `recvs` receives have completed (the simplest way to wait;
 * cm_server.c shows the event-driven way). Any error status is fatal. */
static void wait_until(struct ibv_cq *cq, struct progress *p, int sends, int recvs)
{
	time_t deadline = time(NULL) + WAIT_LIMIT_S;
	struct ibv_wc wc;

	while (p->sends < sends || p->recvs < recvs) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0)
			die("ibv_poll_cq");
		if (n == 0) {
			if (time(NULL) > deadline) {
				fprintf(stderr, "%s: no completion after %d s\n", me, WAIT_LIMIT_S);
				exit(1);
			}
			sched_yield();
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "%s: %s completion failed: %s\n", me, wc.wr_id == WRID_SEND ? "send" : "receive",
				ibv_wc_status_str(wc.status));
			exit(1);
		}
		if (wc.wr_id == WRID_SEND) {
			p->sends++;
		} else {
			p->recvs++;
			p->last_recv_len = wc.byte_len;
		}
	}
}

static void post_receive(struct ibv_qp *qp, struct buffers *buf, struct ibv_mr *mr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf->recv, .length = MSG_SIZE, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = WRID_RECV, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		die("ibv_post_recv");
}

static void post_send(struct ibv_qp *qp, struct buffers *buf, struct ibv_mr *mr, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf->send, .length = len, .lkey = mr->lkey };
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WRID_SEND;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, &wr, &bad))
		die("ibv_post_send");
}

int main(int argc, char **argv)
{
	const char *dev_name = NULL, *tcp_port = "18515", *server_addr = NULL;
	int ib_port = 1, gid_index = -1, count = 5, opt, i, num_devices, sock, is_client;
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	struct ibv_port_attr port_attr;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_init_attr init_attr;
	struct ibv_qp_attr attr;
	struct qp_info local, remote;
	struct buffers *buf;
	struct progress prog = { 0, 0, 0 };
	char g1[INET6_ADDRSTRLEN], g2[INET6_ADDRSTRLEN], expected[MSG_SIZE], sync = 'R';

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "d:i:g:p:n:")) != -1) {
		switch (opt) {
		case 'd': dev_name = optarg; break;
		case 'i': ib_port = atoi(optarg); break;
		case 'g': gid_index = atoi(optarg); break;
		case 'p': tcp_port = optarg; break;
		case 'n': count = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-d DEVICE] [-i IB_PORT] [-g GID_INDEX] [-p TCP_PORT] [-n COUNT] "
				"[SERVER_ADDRESS]\n", argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		server_addr = argv[optind];
	is_client = server_addr != NULL;
	me = is_client ? "verbs_pingpong(client)" : "verbs_pingpong(server)";
	srand48(getpid() * time(NULL));

	/* [1] Find the device and open it. */
	list = ibv_get_device_list(&num_devices);
	if (!list)
		die("ibv_get_device_list");
	for (i = 0; i < num_devices; i++)
		if (!dev_name || !strcmp(ibv_get_device_name(list[i]), dev_name)) {
			dev = list[i];
			break;
		}
	if (!dev) {
		fprintf(stderr, "%s: device %s not found (%d devices)\n", me, dev_name ? dev_name : "(any)", num_devices);
		return 1;
	}
	ctx = ibv_open_device(dev);
	if (!ctx)
		die("ibv_open_device");
	if (ibv_query_port(ctx, ib_port, &port_attr))
		die("ibv_query_port");
	if (port_attr.state != IBV_PORT_ACTIVE) {
		fprintf(stderr, "%s: port %d of %s is not active\n", me, ib_port, ibv_get_device_name(dev));
		return 1;
	}
	memset(&gid, 0, sizeof(gid));
	if (gid_index >= 0 && ibv_query_gid(ctx, ib_port, gid_index, &gid))
		die("ibv_query_gid");
	if (port_attr.link_layer == IBV_LINK_LAYER_ETHERNET && gid_index < 0) {
		fprintf(stderr, "%s: %s is RoCE (Ethernet): give a GID index with -g (see ibv_devinfo -v)\n", me,
			ibv_get_device_name(dev));
		return 1;
	}
	printf("%s: [1] opened %s port %d: %s, MTU %d, LID %u, GID[%d] %s\n", me, ibv_get_device_name(dev), ib_port,
	       port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand",
	       128 << port_attr.active_mtu, port_attr.lid, gid_index, gid_str(gid.raw, g1, sizeof(g1)));

	/* [2] The protection domain. */
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");

	/* [3] Register the buffers. LOCAL_WRITE lets the card write received data; the REMOTE flags would let the
	 * peer read and write it with the rkey we send it (this program only uses send/receive). */
	buf = calloc(1, sizeof(*buf));
	if (!buf)
		die("calloc");
	mr = ibv_reg_mr(pd, buf, sizeof(*buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("ibv_reg_mr");

	/* [4] One CQ for both directions, with room for a send and a receive completion (and spare). */
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq");

	/* [5] The QP: reliable connected, created in the RESET state... */
	memset(&init_attr, 0, sizeof(init_attr));
	init_attr.qp_type = IBV_QPT_RC;
	init_attr.send_cq = cq;
	init_attr.recv_cq = cq;
	init_attr.cap.max_send_wr = 1;
	init_attr.cap.max_recv_wr = 1;
	init_attr.cap.max_send_sge = 1;
	init_attr.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &init_attr);
	if (!qp)
		die("ibv_create_qp");

	/* ... and moved to INIT: which port, which partition key, what a peer may do to our memory. */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = (uint8_t)ib_port;
	attr.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("ibv_modify_qp(INIT)");
	printf("%s: [2-5] PD, MR (lkey 0x%x rkey 0x%x, %zu bytes), CQ, QP %u in INIT\n", me, mr->lkey, mr->rkey,
	       sizeof(*buf), qp->qp_num);

	/* [6] Post the receive for the first incoming message before anyone can send it. */
	post_receive(qp, buf, mr);

	/* [7] Exchange the QP's coordinates over TCP. */
	local.qpn = htobe32(qp->qp_num);
	local.psn = htobe32((uint32_t)lrand48() & 0xffffff);    /* PSNs are 24 bits */
	local.rkey = htobe32(mr->rkey);
	local.addr = htobe64((uintptr_t)buf);
	local.lid = htobe16(port_attr.lid);
	memcpy(local.gid, gid.raw, sizeof(local.gid));
	if (is_client)
		printf("%s: [7] connecting to %s TCP port %s\n", me, server_addr, tcp_port);
	sock = tcp_connect(server_addr, tcp_port);
	tcp_xfer(sock, &local, sizeof(local), 1);
	tcp_xfer(sock, &remote, sizeof(remote), 0);
	printf("%s: [7] sent     qpn %u psn 0x%06x rkey 0x%x addr 0x%llx lid %u gid %s (%zu bytes over TCP)\n", me,
	       be32toh(local.qpn), be32toh(local.psn), be32toh(local.rkey), (unsigned long long)be64toh(local.addr),
	       be16toh(local.lid), gid_str(local.gid, g1, sizeof(g1)), sizeof(local));
	printf("%s: [7] received qpn %u psn 0x%06x rkey 0x%x addr 0x%llx lid %u gid %s\n", me, be32toh(remote.qpn),
	       be32toh(remote.psn), be32toh(remote.rkey), (unsigned long long)be64toh(remote.addr),
	       be16toh(remote.lid), gid_str(remote.gid, g2, sizeof(g2)));

	/* [8] INIT -> RTR: where to send (the peer's QP number and address) and which PSN to expect from it. */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = port_attr.active_mtu;
	attr.dest_qp_num = be32toh(remote.qpn);
	attr.rq_psn = be32toh(remote.psn);
	attr.max_dest_rd_atomic = 1;            /* RDMA reads/atomics the peer may have outstanding on us */
	attr.min_rnr_timer = 12;                /* how long the peer should back off if we had no receive posted */
	attr.ah_attr.port_num = (uint8_t)ib_port;
	attr.ah_attr.dlid = be16toh(remote.lid);
	if (gid_index >= 0) {                   /* RoCE, or InfiniBand across subnets: a global route header */
		attr.ah_attr.is_global = 1;
		memcpy(attr.ah_attr.grh.dgid.raw, remote.gid, 16);
		attr.ah_attr.grh.sgid_index = (uint8_t)gid_index;
		attr.ah_attr.grh.hop_limit = 1;
	}
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("ibv_modify_qp(RTR)");

	/* ... RTR -> RTS: our own first PSN, and how patiently to retry (timeout 14 = 4.096 us * 2^14 = 67 ms). */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = be32toh(local.psn);
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("ibv_modify_qp(RTS)");

	/* Both QPs must be ready before the first send: one more byte each way over TCP is our barrier. */
	tcp_xfer(sock, &sync, 1, 1);
	tcp_xfer(sock, &sync, 1, 0);
	printf("%s: [8] QP %u -> remote QP %u: INIT -> RTR -> RTS\n", me, qp->qp_num, be32toh(remote.qpn));

	/* [9] Ping-pong: the client sends "ping i", the server answers "pong i"; each checks what it got. One send
	 * and one receive are in flight at most, matching max_send_wr = max_recv_wr = 1. */
	for (i = 1; i <= count; i++) {
		const char *mine = is_client ? "ping" : "pong", *theirs = is_client ? "pong" : "ping";
		int len;

		if (is_client) {        /* the client speaks first */
			len = snprintf(buf->send, MSG_SIZE, "%s %d", mine, i) + 1;     /* with its NUL byte */
			post_send(qp, buf, mr, (uint32_t)len);
			printf("%s: [9] sent     %2d bytes: \"%s\"\n", me, len, buf->send);
			wait_until(cq, &prog, i, i);
		} else {                /* the server waits for ping i (and for its pong i-1 to have left) */
			wait_until(cq, &prog, i - 1, i);
		}
		buf->recv[MSG_SIZE - 1] = '\0';
		printf("%s: [9] received %2u bytes: \"%s\"\n", me, prog.last_recv_len, buf->recv);
		snprintf(expected, sizeof(expected), "%s %d", theirs, i);
		if (strcmp(buf->recv, expected) != 0 || prog.last_recv_len != strlen(expected) + 1) {
			fprintf(stderr, "%s: expected \"%s\" (%zu bytes)\n", me, expected, strlen(expected) + 1);
			return 1;
		}
		/* The buffer is read: hand it back for the next message before provoking that message. */
		if (i < count)
			post_receive(qp, buf, mr);
		if (!is_client) {       /* the server answers */
			len = snprintf(buf->send, MSG_SIZE, "%s %d", mine, i) + 1;
			post_send(qp, buf, mr, (uint32_t)len);
			printf("%s: [9] sent     %2d bytes: \"%s\"\n", me, len, buf->send);
		}
	}
	wait_until(cq, &prog, count, count);    /* the last send's completion, too */
	printf("%s: [9] %d round trips, every message checked\n", me, count);

	/* [10] Clean up: the reverse order of creation. */
	close(sock);
	if (ibv_destroy_qp(qp) || ibv_destroy_cq(cq) || ibv_dereg_mr(mr) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die("cleanup");
	ibv_free_device_list(list);
	free(buf);
	printf("%s: [10] QP, CQ, MR, PD and device closed: OK\n", me);
	return 0;
}
