/*
 * cm_client.c - the client of cm_server.c: connects with rdma_cm's event loop and exchanges messages.
 *
 * What this program teaches
 *   - The active side of an rdma_cm connection, one event at a time:
 *       rdma_resolve_addr()  -> RDMA_CM_EVENT_ADDR_RESOLVED   (which local device and port reach the server)
 *       rdma_resolve_route() -> RDMA_CM_EVENT_ROUTE_RESOLVED  (the path; on RoCE, the next hop's MAC address)
 *       rdma_connect()       -> RDMA_CM_EVENT_ESTABLISHED     (the server accepted; the QP is ready)
 *       rdma_disconnect()    -> RDMA_CM_EVENT_DISCONNECTED
 *   - Where the verbs resources come from: the device is only known after address resolution (id->verbs),
 *     so the PD, CQ, QP and memory regions are created in the ROUTE_RESOLVED handler.
 *   - One poll(2) loop over two file descriptors: the rdma_cm event channel and the CQ's completion channel.
 *   - Checking what came back: every reply must be exactly "re: " + the message we sent.
 *
 * What it does
 *   Sends COUNT messages "TEXT #i" to cm_server, one at a time, prints each message and reply with their sizes
 *   in bytes, checks every reply, then disconnects. Exit status 0 only if every reply was right.
 *
 * Usage
 *   cm_client -a SERVER [-b LOCAL_ADDRESS] [-p PORT] [-n COUNT] [-m TEXT]
 *   (defaults: port 7471, 3 messages, TEXT "hello from cm_client"). -b picks the local address, and with it the
 *   local RDMA device: e.g. cm_client -a 198.18.0.1 -b 198.18.0.2
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#define MSG_MAX 256             /* must match cm_server.c */
#define RESOLVE_TIMEOUT_MS 2000
#define IDLE_LIMIT_MS 20000

struct client {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *cq;
	struct ibv_mr *recv_mr, *send_mr;
	char recv_buf[MSG_MAX];
	char send_buf[MSG_MAX];
	const char *text;               /* the message text, "#i" is appended */
	int count;                      /* messages to send */
	int sent, replies_ok;           /* progress */
	int send_busy, next_pending;    /* the next message waits for the previous send's completion */
	int disconnecting;
};

static int failed;

static void die_errno(const char *what)
{
	fprintf(stderr, "cm_client: %s failed: %s\n", what, strerror(errno));
	exit(1);
}

static void set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		die_errno("fcntl(O_NONBLOCK)");
}

static struct addrinfo *lookup(const char *host, const char *port)
{
	struct addrinfo hints, *ai;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &ai)) {
		fprintf(stderr, "cm_client: cannot resolve %s\n", host);
		exit(1);
	}
	return ai;
}

static int post_receive(struct client *c)
{
	struct ibv_sge sge = { .addr = (uintptr_t)c->recv_buf, .length = sizeof(c->recv_buf), .lkey = c->recv_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

/* Sends message number c->sent + 1. Its reply's receive buffer is already posted. */
static int send_next(struct client *c)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	int len = snprintf(c->send_buf, sizeof(c->send_buf), "%.200s #%d", c->text, c->sent + 1) + 1;

	sge.addr = (uintptr_t)c->send_buf;
	sge.length = (uint32_t)len;             /* the text and its NUL byte */
	sge.lkey = c->send_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(c->id->qp, &wr, &bad))
		return -1;
	c->sent++;
	c->send_busy = 1;
	c->next_pending = 0;
	printf("cm_client: sent     %3d bytes: \"%s\"\n", len, c->send_buf);
	return 0;
}

/* ROUTE_RESOLVED: we know the device now. Create the verbs resources, post a receive, and connect. */
static void on_route_resolved(struct client *c)
{
	struct ibv_qp_init_attr qp_attr;
	struct rdma_conn_param param;

	if (!(c->pd = ibv_alloc_pd(c->id->verbs)))
		die_errno("ibv_alloc_pd");
	if (!(c->chan = ibv_create_comp_channel(c->id->verbs)))
		die_errno("ibv_create_comp_channel");
	if (!(c->cq = ibv_create_cq(c->id->verbs, 16, c, c->chan, 0)))
		die_errno("ibv_create_cq");
	if (ibv_req_notify_cq(c->cq, 0))
		die_errno("ibv_req_notify_cq");
	set_nonblocking(c->chan->fd);

	memset(&qp_attr, 0, sizeof(qp_attr));
	qp_attr.qp_type = IBV_QPT_RC;
	qp_attr.send_cq = c->cq;
	qp_attr.recv_cq = c->cq;
	qp_attr.cap.max_send_wr = 4;
	qp_attr.cap.max_recv_wr = 4;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &qp_attr))
		die_errno("rdma_create_qp");

	c->recv_mr = ibv_reg_mr(c->pd, c->recv_buf, sizeof(c->recv_buf), IBV_ACCESS_LOCAL_WRITE);
	c->send_mr = ibv_reg_mr(c->pd, c->send_buf, sizeof(c->send_buf), 0);
	if (!c->recv_mr || !c->send_mr)
		die_errno("ibv_reg_mr");
	/* The receive for the first reply must be in place before the server can possibly send it. */
	if (post_receive(c))
		die_errno("ibv_post_recv");

	printf("cm_client: ROUTE_RESOLVED: QP %u created on %s, connecting\n", c->id->qp->qp_num,
	       ibv_get_device_name(c->id->verbs->device));
	memset(&param, 0, sizeof(param));
	param.retry_count = 7;          /* transport retries if a packet is lost */
	param.rnr_retry_count = 7;      /* retries if the server has no receive posted yet */
	if (rdma_connect(c->id, &param))
		die_errno("rdma_connect");
}

/*
 * Disconnect once every reply is checked AND our last send has completed: rdma_disconnect() moves the QP to the
 * error state, which would cut short ("flush") any work request still in flight.
 */
static void maybe_disconnect(struct client *c)
{
	if (c->disconnecting || c->replies_ok < c->count || c->send_busy)
		return;
	c->disconnecting = 1;   /* both sides now get RDMA_CM_EVENT_DISCONNECTED */
	if (rdma_disconnect(c->id))
		die_errno("rdma_disconnect");
}

static void on_completion(struct client *c, struct ibv_wc *wc)
{
	char expected[MSG_MAX + 8];

	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "cm_client: work completion failed: %s\n", ibv_wc_status_str(wc->status));
		failed = 1;
		return;
	}
	if (wc->opcode == IBV_WC_SEND) {
		c->send_busy = 0;
		if (c->next_pending && send_next(c))
			failed = 1;
		maybe_disconnect(c);
		return;
	}
	if (wc->opcode != IBV_WC_RECV)
		return;

	c->recv_buf[wc->byte_len < MSG_MAX ? wc->byte_len : MSG_MAX - 1] = '\0';
	printf("cm_client: received %3u bytes: \"%s\"\n", wc->byte_len, c->recv_buf);
	snprintf(expected, sizeof(expected), "re: %.200s #%d", c->text, c->sent);
	if (strcmp(c->recv_buf, expected) != 0) {
		fprintf(stderr, "cm_client: wrong reply, expected \"%s\"\n", expected);
		failed = 1;
		return;
	}
	c->replies_ok++;

	if (c->sent == c->count) {
		maybe_disconnect(c);
		return;
	}
	if (post_receive(c)) {
		perror("cm_client: ibv_post_recv");
		failed = 1;
		return;
	}
	c->next_pending = 1;
	if (!c->send_busy && send_next(c))
		failed = 1;
}

static void drain_cq(struct client *c)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	struct ibv_wc wc;
	int n = 0;

	if (ibv_get_cq_event(c->chan, &cq, &cq_ctx)) {
		if (errno == EAGAIN)
			return;
		die_errno("ibv_get_cq_event");
	}
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(cq, 0))
		die_errno("ibv_req_notify_cq");
	while (!failed && (n = ibv_poll_cq(c->cq, 1, &wc)) > 0)
		on_completion(c, &wc);
	if (n < 0) {
		fprintf(stderr, "cm_client: ibv_poll_cq failed\n");
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	const char *server = NULL, *local = NULL, *port = "7471";
	struct client cl = { .text = "hello from cm_client", .count = 3 };
	struct client *c = &cl;
	struct rdma_event_channel *ec;
	struct addrinfo *dst, *src = NULL;
	int opt, done = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "a:b:p:n:m:")) != -1) {
		switch (opt) {
		case 'a': server = optarg; break;
		case 'b': local = optarg; break;
		case 'p': port = optarg; break;
		case 'n': c->count = atoi(optarg); break;
		case 'm': c->text = optarg; break;
		default: server = NULL; break;
		}
	}
	if (!server || c->count < 1) {
		fprintf(stderr, "usage: %s -a SERVER [-b LOCAL_ADDRESS] [-p PORT] [-n COUNT] [-m TEXT]\n", argv[0]);
		return 2;
	}

	if (!(ec = rdma_create_event_channel()))
		die_errno("rdma_create_event_channel");
	set_nonblocking(ec->fd);
	if (rdma_create_id(ec, &c->id, c, RDMA_PS_TCP))
		die_errno("rdma_create_id");

	/* Step 1: resolve the server's IP address to a local RDMA device (from LOCAL_ADDRESS, if given). */
	dst = lookup(server, port);
	if (local)
		src = lookup(local, NULL);
	printf("cm_client: resolving %s port %s%s%s\n", server, port, local ? " from " : "", local ? local : "");
	if (rdma_resolve_addr(c->id, src ? src->ai_addr : NULL, dst->ai_addr, RESOLVE_TIMEOUT_MS))
		die_errno("rdma_resolve_addr");
	freeaddrinfo(dst);
	if (src)
		freeaddrinfo(src);

	/* The event loop: every further step is triggered by an event. */
	while (!done && !failed) {
		struct pollfd fds[2] = {
			{ .fd = ec->fd, .events = POLLIN },
			{ .fd = c->chan ? c->chan->fd : -1, .events = POLLIN },
		};
		struct rdma_cm_event *event;
		int n = poll(fds, 2, IDLE_LIMIT_MS);

		if (n < 0 && errno != EINTR)
			die_errno("poll");
		if (n == 0) {
			fprintf(stderr, "cm_client: nothing happened for %d s, giving up\n", IDLE_LIMIT_MS / 1000);
			failed = 1;
			break;
		}
		while (!done && !failed && rdma_get_cm_event(ec, &event) == 0) {
			enum rdma_cm_event_type type = event->event;
			int status = event->status;

			rdma_ack_cm_event(event);       /* copied what we need; acknowledge at once */
			switch (type) {
			case RDMA_CM_EVENT_ADDR_RESOLVED:
				printf("cm_client: ADDR_RESOLVED: local device %s, resolving the route\n",
				       ibv_get_device_name(c->id->verbs->device));
				if (rdma_resolve_route(c->id, RESOLVE_TIMEOUT_MS))
					die_errno("rdma_resolve_route");
				break;
			case RDMA_CM_EVENT_ROUTE_RESOLVED:
				on_route_resolved(c);
				break;
			case RDMA_CM_EVENT_ESTABLISHED:
				printf("cm_client: ESTABLISHED: connected to %s\n", server);
				if (send_next(c))
					die_errno("ibv_post_send");
				break;
			case RDMA_CM_EVENT_DISCONNECTED:
				printf("cm_client: DISCONNECTED\n");
				done = 1;
				break;
			case RDMA_CM_EVENT_REJECTED:
				fprintf(stderr, "cm_client: REJECTED: is cm_server running on %s port %s?\n", server, port);
				failed = 1;
				break;
			default:   /* ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, CONNECT_ERROR, ... */
				fprintf(stderr, "cm_client: %s (status %d)\n", rdma_event_str(type), status);
				failed = 1;
			}
		}
		if (!done && !failed && errno != EAGAIN)
			die_errno("rdma_get_cm_event");
		if (!done && !failed && c->chan && (fds[1].revents & POLLIN))
			drain_cq(c);
	}

	printf("cm_client: %d message%s sent, %d repl%s checked: %s\n", c->sent, c->sent == 1 ? "" : "s",
	       c->replies_ok, c->replies_ok == 1 ? "y" : "ies",
	       !failed && done && c->replies_ok == c->count ? "OK" : "FAILED");
	if (c->id->qp) {
		if (!done)
			rdma_disconnect(c->id);
		rdma_destroy_qp(c->id);
		ibv_dereg_mr(c->recv_mr);
		ibv_dereg_mr(c->send_mr);
		ibv_destroy_cq(c->cq);
		ibv_destroy_comp_channel(c->chan);
		ibv_dealloc_pd(c->pd);
	}
	rdma_destroy_id(c->id);
	rdma_destroy_event_channel(ec);
	return !failed && done && c->replies_ok == c->count ? 0 : 1;
}
