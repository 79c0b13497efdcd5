/*
 * ep_client.c - the client of ep_server.c, in librdmacm's synchronous "endpoint" style.
 *
 * What this program teaches
 *   - rdma_getaddrinfo() on the active side: the server's address plus, optionally, our own source address
 *     (hints.ai_src_addr), which decides the local RDMA device.
 *   - rdma_create_ep() on the active side: one call resolves the address and the route AND creates the QP, the
 *     PD and the CQs. After it, rdma_connect() is all that is left.
 *   - Private data: up to 56 bytes carried inside the connection request (here, the number of round trips we
 *     want, big-endian); the server reads them before deciding to accept.
 *   - rdma_post_send()/rdma_post_recv() with rdma_reg_msgs() buffers, and the blocking rdma_get_send_comp() /
 *     rdma_get_recv_comp(): a request/reply protocol in straight-line code.
 *
 * What it does
 *   Sends COUNT requests "request i of COUNT", prints each with its reply and their sizes in bytes, checks
 *   every reply ("reply to: " + the request), and disconnects. Exit status 0 only if every reply was right.
 *
 * Usage
 *   ep_client -a SERVER [-b LOCAL_ADDRESS] [-p PORT] [-n COUNT]     (defaults: port 7472, 3 round trips)
 *   e.g. ep_client -a 198.18.0.1 -b 198.18.0.2
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define MSG_MAX 256     /* must match ep_server.c */

static void die(const char *what)
{
	fprintf(stderr, "ep_client: %s failed: %s\n", what, strerror(errno));
	exit(1);
}

static void wait_comp(struct rdma_cm_id *id, int recv, struct ibv_wc *wc)
{
	int n = recv ? rdma_get_recv_comp(id, wc) : rdma_get_send_comp(id, wc);

	if (n <= 0)
		die(recv ? "rdma_get_recv_comp" : "rdma_get_send_comp");
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "ep_client: %s completion failed: %s\n", recv ? "receive" : "send",
			ibv_wc_status_str(wc->status));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *server = NULL, *local = NULL, *port = "7472";
	struct rdma_addrinfo hints, *res;
	struct addrinfo *src = NULL;
	struct ibv_qp_init_attr attr;
	struct rdma_conn_param param;
	struct rdma_cm_id *id;
	struct ibv_mr *recv_mr, *send_mr;
	struct ibv_wc wc;
	char recv_buf[MSG_MAX], send_buf[MSG_MAX], expected[MSG_MAX + 16];
	int opt, i, count = 3, ok = 0;
	uint32_t wire_count;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "a:b:p:n:")) != -1) {
		switch (opt) {
		case 'a': server = optarg; break;
		case 'b': local = optarg; break;
		case 'p': port = optarg; break;
		case 'n': count = atoi(optarg); break;
		default: server = NULL; break;
		}
	}
	if (!server || count < 1 || count > 1000) {
		fprintf(stderr, "usage: %s -a SERVER [-b LOCAL_ADDRESS] [-p PORT] [-n COUNT (1-1000)]\n", argv[0]);
		return 2;
	}

	/* 1. Addressing. The source address, if any, is an ordinary sockaddr handed over in the hints. */
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (local) {
		struct addrinfo ai_hints = { .ai_family = AF_INET, .ai_flags = AI_NUMERICHOST };

		if (getaddrinfo(local, NULL, &ai_hints, &src)) {
			fprintf(stderr, "ep_client: bad local address %s\n", local);
			return 1;
		}
		hints.ai_src_addr = src->ai_addr;
		hints.ai_src_len = src->ai_addrlen;
	}
	if (rdma_getaddrinfo(server, port, &hints, &res))
		die("rdma_getaddrinfo");

	/* 2. The endpoint: address and route resolution, PD, CQs and QP in one call. */
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_all = 1;            /* a completion for every send: rdma_get_send_comp() waits for it */
	if (rdma_create_ep(&id, res, NULL, &attr))
		die("rdma_create_ep");
	rdma_freeaddrinfo(res);
	if (src)
		freeaddrinfo(src);

	/* 3. Buffers, and the receive for the first reply, before connecting. */
	recv_mr = rdma_reg_msgs(id, recv_buf, sizeof(recv_buf));
	send_mr = rdma_reg_msgs(id, send_buf, sizeof(send_buf));
	if (!recv_mr || !send_mr)
		die("rdma_reg_msgs");
	if (rdma_post_recv(id, NULL, recv_buf, sizeof(recv_buf), recv_mr))
		die("rdma_post_recv");

	/* 4. Connect, telling the server in the private data how many round trips we want. */
	wire_count = htonl((uint32_t)count);
	memset(&param, 0, sizeof(param));
	param.private_data = &wire_count;
	param.private_data_len = sizeof(wire_count);
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(id, &param))   /* returns once the server accepted */
		die("rdma_connect");
	printf("ep_client: connected to %s port %s from %s, QP %u; private data: %d round trip%s (%zu bytes)\n",
	       server, port, ibv_get_device_name(id->verbs->device), id->qp->qp_num, count, count == 1 ? "" : "s",
	       sizeof(wire_count));

	/* 5. Request, reply, check. */
	for (i = 1; i <= count; i++) {
		int len = snprintf(send_buf, sizeof(send_buf), "request %d of %d", i, count) + 1;

		if (rdma_post_send(id, NULL, send_buf, (size_t)len, send_mr, 0))
			die("rdma_post_send");
		wait_comp(id, 0, &wc);
		printf("ep_client: sent     %3d bytes: \"%s\"\n", len, send_buf);
		wait_comp(id, 1, &wc);
		recv_buf[wc.byte_len < MSG_MAX ? wc.byte_len : MSG_MAX - 1] = '\0';
		printf("ep_client: received %3u bytes: \"%s\"\n", wc.byte_len, recv_buf);
		snprintf(expected, sizeof(expected), "reply to: %s", send_buf);
		if (strcmp(recv_buf, expected) != 0) {
			fprintf(stderr, "ep_client: wrong reply, expected \"%s\"\n", expected);
			break;
		}
		ok++;
		if (i < count && rdma_post_recv(id, NULL, recv_buf, sizeof(recv_buf), recv_mr))
			die("rdma_post_recv");
	}

	/* 6. Tear down. */
	rdma_disconnect(id);
	rdma_dereg_mr(recv_mr);
	rdma_dereg_mr(send_mr);
	rdma_destroy_ep(id);
	printf("ep_client: %d of %d replies checked: %s\n", ok, count, ok == count ? "OK" : "FAILED");
	return ok == count ? 0 : 1;
}
