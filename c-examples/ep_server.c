/*
 * ep_server.c - the synchronous "endpoint" style of librdmacm (the client is ep_client.c).
 *
 * What this program teaches
 *   librdmacm also has a blocking, socket-like API in which no event loop is needed: each call returns when
 *   its step is done.
 *     rdma_getaddrinfo()    like getaddrinfo(3): turns "ADDRESS", "PORT" into RDMA addressing information
 *     rdma_create_ep()      creates the cm_id; on a listening (RAI_PASSIVE) endpoint it remembers the QP
 *                           attributes, so every accepted connection gets its QP created automatically
 *     rdma_listen(), rdma_get_request()   like listen(2) and accept(2)
 *     rdma_reg_msgs()       registers a buffer for sends and receives in the cm_id's own protection domain
 *     rdma_post_recv(), rdma_post_send()  post one buffer each (wrappers of ibv_post_recv / ibv_post_send)
 *     rdma_get_recv_comp(), rdma_get_send_comp()  block until the next completion (they poll the CQs that
 *                           rdma_create_ep made for us, sleeping on their completion channels)
 *     private data          a few bytes carried by the connection request itself: here, the number of round
 *                           trips the client wants, read from id->event, the request the cm_id was created by
 *   The price of this simplicity: one connection, one thread, and every call blocks.
 *
 * What it does
 *   Listens on ADDRESS:PORT, accepts one connection, answers every request with "reply to: " + the request,
 *   as many times as the client asked in its connection request, then disconnects. Prints every message and its
 *   size. Exit status 0 only if every exchange completed.
 *
 * Usage
 *   ep_server [-a ADDRESS] [-p PORT]      (defaults: every local address, port 7472)
 *   e.g. ep_server -a 198.18.0.1          and then: ep_client -a 198.18.0.1 -b 198.18.0.2
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define MSG_MAX 256     /* must match ep_client.c */

static void die(const char *what)
{
	fprintf(stderr, "ep_server: %s failed: %s\n", what, strerror(errno));
	exit(1);
}

/* Waits for one completion with one of the blocking helpers and checks it. */
static void wait_comp(struct rdma_cm_id *id, int recv, struct ibv_wc *wc)
{
	int n = recv ? rdma_get_recv_comp(id, wc) : rdma_get_send_comp(id, wc);

	if (n <= 0)
		die(recv ? "rdma_get_recv_comp" : "rdma_get_send_comp");
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "ep_server: %s completion failed: %s\n", recv ? "receive" : "send",
			ibv_wc_status_str(wc->status));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "7472";
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *listen_id, *id;
	struct ibv_mr *recv_mr, *send_mr;
	struct ibv_wc wc;
	char recv_buf[MSG_MAX], send_buf[MSG_MAX + 16], peer[INET6_ADDRSTRLEN];
	struct sockaddr_in *sin;
	uint32_t rounds = 0;
	int opt, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "a:p:")) != -1) {
		switch (opt) {
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-a ADDRESS] [-p PORT]\n", argv[0]);
			return 2;
		}
	}

	/* 1. Addressing: RAI_PASSIVE = we will listen. RDMA_PS_TCP = reliable connected QPs. */
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");

	/* 2. The listening endpoint, with the attributes each connection's QP will get. sq_sig_all = 1: every send
	 *    produces a completion, which rdma_get_send_comp() waits for. */
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_all = 1;
	if (rdma_create_ep(&listen_id, res, NULL, &attr))
		die("rdma_create_ep");
	rdma_freeaddrinfo(res);
	if (rdma_listen(listen_id, 0))
		die("rdma_listen");
	printf("ep_server: listening on %s port %s (rdma_create_ep + rdma_listen)\n", addr ? addr : "*", port);

	/* 3. Block until a client connects. The new cm_id already has its QP (and PD, CQs). */
	if (rdma_get_request(listen_id, &id))
		die("rdma_get_request");
	if (id->event->param.conn.private_data_len >= sizeof(rounds))
		memcpy(&rounds, id->event->param.conn.private_data, sizeof(rounds));
	rounds = ntohl(rounds);
	sin = (struct sockaddr_in *)rdma_get_peer_addr(id);
	printf("ep_server: connection request from %s on %s, QP %u; its private data asks for %u round trip%s\n",
	       inet_ntop(AF_INET, &sin->sin_addr, peer, sizeof(peer)) ? peer : "?",
	       ibv_get_device_name(id->verbs->device), id->qp->qp_num, rounds, rounds == 1 ? "" : "s");
	if (rounds < 1 || rounds > 1000) {
		fprintf(stderr, "ep_server: bad round-trip count %u\n", rounds);
		rdma_reject(id, NULL, 0);
		return 1;
	}

	/* 4. Register the buffers in the id's PD, post the first receive, then accept. */
	recv_mr = rdma_reg_msgs(id, recv_buf, sizeof(recv_buf));
	send_mr = rdma_reg_msgs(id, send_buf, sizeof(send_buf));
	if (!recv_mr || !send_mr)
		die("rdma_reg_msgs");
	if (rdma_post_recv(id, NULL, recv_buf, sizeof(recv_buf), recv_mr))
		die("rdma_post_recv");
	if (rdma_accept(id, NULL))      /* returns once the connection is established */
		die("rdma_accept");
	printf("ep_server: accepted\n");

	/* 5. Request, reply; request, reply; ... */
	for (i = 1; i <= (int)rounds; i++) {
		int len;

		wait_comp(id, 1, &wc);
		recv_buf[wc.byte_len < MSG_MAX ? wc.byte_len : MSG_MAX - 1] = '\0';
		printf("ep_server: received %3u bytes: \"%s\"\n", wc.byte_len, recv_buf);
		len = snprintf(send_buf, sizeof(send_buf), "reply to: %s", recv_buf) + 1;
		/* Hand the receive buffer back before replying: the reply may trigger the next request at once. */
		if (i < (int)rounds && rdma_post_recv(id, NULL, recv_buf, sizeof(recv_buf), recv_mr))
			die("rdma_post_recv");
		if (rdma_post_send(id, NULL, send_buf, (size_t)len, send_mr, 0))
			die("rdma_post_send");
		wait_comp(id, 0, &wc);
		printf("ep_server: sent     %3d bytes: \"%s\"\n", len, send_buf);
	}

	/* 6. Tear down: disconnect, deregister, destroy the endpoints (QP, CQs and cm_id in one call each). */
	rdma_disconnect(id);
	rdma_dereg_mr(recv_mr);
	rdma_dereg_mr(send_mr);
	rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	printf("ep_server: %u round trip%s done: OK\n", rounds, rounds == 1 ? "" : "s");
	return 0;
}
