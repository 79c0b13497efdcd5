/*
 * cm_server.c - an rdma_cm event-loop echo server (the client is cm_client.c).
 *
 * What this program teaches
 *   - The connection manager (librdmacm) in its asynchronous form. Every step in the life of a connection
 *     (a connection request, "established", "disconnected") arrives as an event on an event channel, and the
 *     program is a loop that waits for events and reacts to each one.
 *   - Completion channels. A completion queue (CQ) can report finished work through a file descriptor as
 *     well, so ONE poll(2) loop can wait for connection events and for completed sends/receives together.
 *   - The verbs objects that every connection needs: a protection domain (PD), a completion queue (CQ), a
 *     queue pair (QP) created with rdma_create_qp() so that rdma_cm moves it through its states for us, and
 *     memory regions (MR) for the message buffers.
 *   - The golden rule of two-sided RDMA: a receive must be posted BEFORE the peer sends, so we post one
 *     before accepting the connection and re-post it each time a message arrives.
 *
 * What it does
 *   Listens on ADDRESS:PORT, accepts one connection, answers every message with "re: " followed by the
 *   message, and exits when the client disconnects. It prints every message with its size in bytes.
 *   Exit status 0 only if at least one message was answered and every work completion succeeded.
 *
 * Usage
 *   cm_server [-a ADDRESS] [-p PORT]        (default: every local address, port 7471)
 *   e.g. cm_server -a 198.18.0.1            and then: cm_client -a 198.18.0.1 -b 198.18.0.2
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

#define MSG_MAX 256       /* largest message we send or accept, in bytes (text plus its NUL) */
#define IDLE_LIMIT_MS 20000 /* give up when nothing at all happens for this long */

/* Everything that belongs to the one connection we serve. */
struct conn {
	struct rdma_cm_id *id;          /* the connection's own cm_id (not the listener's) */
	struct ibv_pd *pd;              /* protection domain: ties the QP and the MRs together */
	struct ibv_comp_channel *chan;  /* the file descriptor through which the CQ signals completions */
	struct ibv_cq *cq;              /* completions of both sends and receives land here */
	struct ibv_mr *recv_mr, *send_mr;
	char recv_buf[MSG_MAX];         /* the network card writes incoming messages here */
	char send_buf[MSG_MAX];         /* ... and reads outgoing ones from here */
	char pending[MSG_MAX];          /* a reply waiting for the previous send to complete */
	int send_busy;                  /* a send is posted and its completion not seen yet */
	int have_pending;
	int answered;                   /* messages answered so far */
};

static int failed;                  /* set on any error: the exit status */

static void die_errno(const char *what)
{
	fprintf(stderr, "cm_server: %s failed: %s\n", what, strerror(errno));
	exit(1);
}

static const char *addr_str(struct sockaddr *sa, char *buf, size_t len)
{
	void *a = sa->sa_family == AF_INET6 ? (void *)&((struct sockaddr_in6 *)sa)->sin6_addr
					    : (void *)&((struct sockaddr_in *)sa)->sin_addr;
	return inet_ntop(sa->sa_family, a, buf, len) ? buf : "?";
}

static void set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		die_errno("fcntl(O_NONBLOCK)");
}

/* Hands one receive buffer to the QP. The card fills it when the next message arrives. */
static int post_receive(struct conn *c)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->recv_buf,
		.length = sizeof(c->recv_buf),
		.lkey = c->recv_mr->lkey,       /* the local key proves we registered this memory */
	};
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

/* Sends the reply in c->pending (text plus its NUL byte). */
static int post_reply(struct conn *c)
{
	size_t len = strlen(c->pending) + 1;
	struct ibv_sge sge = { .addr = (uintptr_t)c->send_buf, .length = (uint32_t)len, .lkey = c->send_mr->lkey };
	struct ibv_send_wr wr, *bad;

	memcpy(c->send_buf, c->pending, len);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;      /* we want a completion, to know when send_buf is free again */
	if (ibv_post_send(c->id->qp, &wr, &bad))
		return -1;
	c->send_busy = 1;
	c->have_pending = 0;
	printf("cm_server: replied  %3zu bytes: \"%s\"\n", len, c->send_buf);
	return 0;
}

/*
 * A connection request arrived. Build the verbs resources for it on the device that rdma_cm chose (id->verbs),
 * post the first receive, and accept.
 */
static struct conn *on_connect_request(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qp_attr;
	struct rdma_conn_param param;
	char peer[INET6_ADDRSTRLEN];
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		die_errno("calloc");
	c->id = id;
	id->context = c;        /* rdma_cm keeps this pointer for us: handy to find our state from an event */

	/* The listener may listen on all devices; only the request's id knows which device this peer came in on. */
	if (!(c->pd = ibv_alloc_pd(id->verbs)))
		die_errno("ibv_alloc_pd");
	if (!(c->chan = ibv_create_comp_channel(id->verbs)))
		die_errno("ibv_create_comp_channel");
	if (!(c->cq = ibv_create_cq(id->verbs, 16, c, c->chan, 0)))
		die_errno("ibv_create_cq");
	/* Ask for an event on the channel when the next completion arrives (this "arms" the CQ once). */
	if (ibv_req_notify_cq(c->cq, 0))
		die_errno("ibv_req_notify_cq");
	set_nonblocking(c->chan->fd);

	memset(&qp_attr, 0, sizeof(qp_attr));
	qp_attr.qp_type = IBV_QPT_RC;           /* reliable connected: like TCP, in-order and acknowledged */
	qp_attr.send_cq = c->cq;
	qp_attr.recv_cq = c->cq;
	qp_attr.cap.max_send_wr = 4;
	qp_attr.cap.max_recv_wr = 4;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, c->pd, &qp_attr))
		die_errno("rdma_create_qp");

	/* Register the buffers: the card may only touch memory that was registered in the QP's PD. */
	c->recv_mr = ibv_reg_mr(c->pd, c->recv_buf, sizeof(c->recv_buf), IBV_ACCESS_LOCAL_WRITE);
	c->send_mr = ibv_reg_mr(c->pd, c->send_buf, sizeof(c->send_buf), 0);
	if (!c->recv_mr || !c->send_mr)
		die_errno("ibv_reg_mr");
	if (post_receive(c))
		die_errno("ibv_post_recv");

	printf("cm_server: CONNECT_REQUEST from %s on %s: QP %u created, receive posted, accepting\n",
	       addr_str(rdma_get_peer_addr(id), peer, sizeof(peer)), ibv_get_device_name(id->verbs->device),
	       id->qp->qp_num);

	memset(&param, 0, sizeof(param));
	param.rnr_retry_count = 7;      /* if we ever are slow to re-post a receive, let the peer retry */
	if (rdma_accept(id, &param))
		die_errno("rdma_accept");
	return c;
}

static void destroy_conn(struct conn *c)
{
	rdma_destroy_qp(c->id);
	ibv_dereg_mr(c->recv_mr);
	ibv_dereg_mr(c->send_mr);
	ibv_destroy_cq(c->cq);          /* every CQ event was acknowledged, so this does not block */
	ibv_destroy_comp_channel(c->chan);
	ibv_dealloc_pd(c->pd);
	rdma_destroy_id(c->id);
	free(c);
}

/* One work completion: a message arrived (IBV_WC_RECV) or our reply went out (IBV_WC_SEND). */
static void on_completion(struct conn *c, struct ibv_wc *wc)
{
	/*
	 * When the client disconnects, the QP enters the error state and hands back ("flushes") the receive we
	 * posted in advance for a message that will never come. That is expected, not a failure.
	 */
	if (wc->status == IBV_WC_WR_FLUSH_ERR && wc->wr_id == 1)   /* wr_id 1 = our receives */
		return;
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "cm_server: work completion failed: %s (wr_id %llu)\n",
			ibv_wc_status_str(wc->status), (unsigned long long)wc->wr_id);
		failed = 1;
		return;
	}
	if (wc->opcode == IBV_WC_SEND) {
		c->send_busy = 0;
		if (c->have_pending && post_reply(c))
			failed = 1;
		return;
	}
	if (wc->opcode != IBV_WC_RECV)
		return;

	/* wc->byte_len says how many bytes the peer sent. Never trust the text to be terminated. */
	c->recv_buf[wc->byte_len < MSG_MAX ? wc->byte_len : MSG_MAX - 1] = '\0';
	printf("cm_server: received %3u bytes: \"%s\"\n", wc->byte_len, c->recv_buf);
	snprintf(c->pending, sizeof(c->pending), "re: %.*s", MSG_MAX - 5, c->recv_buf);
	c->have_pending = 1;
	c->answered++;

	/* Re-post the receive first, so the buffer is ready before the client can send its next message. */
	if (post_receive(c)) {
		perror("cm_server: ibv_post_recv");
		failed = 1;
		return;
	}
	/* The reply goes out now, or when the previous send completes (send_buf is still the card's till then). */
	if (!c->send_busy && post_reply(c))
		failed = 1;
}

/* Called when the completion channel's fd is readable. */
static void drain_cq(struct conn *c, int got_event)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	struct ibv_wc wc;
	int n;

	if (got_event) {
		if (ibv_get_cq_event(c->chan, &cq, &cq_ctx)) {
			if (errno == EAGAIN)
				return;
			die_errno("ibv_get_cq_event");
		}
		ibv_ack_cq_events(cq, 1);       /* every event must be acknowledged before the CQ is destroyed */
		/* Re-arm BEFORE polling: a completion that lands while we poll then raises a new event. */
		if (ibv_req_notify_cq(cq, 0))
			die_errno("ibv_req_notify_cq");
	}
	while ((n = ibv_poll_cq(c->cq, 1, &wc)) > 0)
		on_completion(c, &wc);
	if (n < 0) {
		fprintf(stderr, "cm_server: ibv_poll_cq failed\n");
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "7471";
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listener;
	struct addrinfo hints, *ai;
	struct conn *c = NULL;
	char host[INET6_ADDRSTRLEN];
	int opt, done = 0;

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

	/* 1. The event channel: a file descriptor from which rdma_cm events are read. */
	if (!(ec = rdma_create_event_channel()))
		die_errno("rdma_create_event_channel");
	set_nonblocking(ec->fd);

	/* 2. A cm_id is to RDMA what a socket is to TCP. RDMA_PS_TCP = reliable, connected (RC) QPs. */
	if (rdma_create_id(ec, &listener, NULL, RDMA_PS_TCP))
		die_errno("rdma_create_id");

	/* 3. Bind to an IP address (this also picks the RDMA device that owns it) and listen. */
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_PASSIVE;
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(addr, port, &hints, &ai)) {
		fprintf(stderr, "cm_server: cannot parse address %s port %s\n", addr ? addr : "*", port);
		return 1;
	}
	if (rdma_bind_addr(listener, ai->ai_addr))
		die_errno("rdma_bind_addr");
	freeaddrinfo(ai);
	if (rdma_listen(listener, 1))
		die_errno("rdma_listen");
	printf("cm_server: listening on %s:%u (rdma_cm, RDMA_PS_TCP)\n",
	       addr_str(rdma_get_local_addr(listener), host, sizeof(host)), ntohs(rdma_get_src_port(listener)));

	/* 4. The event loop: wait on the event channel and, once a connection exists, on its completion channel. */
	while (!done && !failed) {
		struct pollfd fds[2] = {
			{ .fd = ec->fd, .events = POLLIN },
			{ .fd = c ? c->chan->fd : -1, .events = POLLIN },  /* poll(2) skips negative fds */
		};
		struct rdma_cm_event *event;
		int n = poll(fds, 2, IDLE_LIMIT_MS);

		if (n < 0 && errno != EINTR)
			die_errno("poll");
		if (n == 0) {
			fprintf(stderr, "cm_server: nothing happened for %d s, giving up\n", IDLE_LIMIT_MS / 1000);
			failed = 1;
			break;
		}
		/* Read every connection event that is queued (the fd is non-blocking: EAGAIN = no more). */
		while (!done && !failed && rdma_get_cm_event(ec, &event) == 0) {
			/*
			 * Copy what we need, then acknowledge the event at once: rdma_destroy_id() waits until every
			 * event of its id is acknowledged, so an unacknowledged event would make cleanup hang.
			 */
			enum rdma_cm_event_type type = event->event;
			struct rdma_cm_id *id = event->id;
			int status = event->status;

			rdma_ack_cm_event(event);
			switch (type) {
			case RDMA_CM_EVENT_CONNECT_REQUEST:
				if (c) {        /* this example serves one client at a time */
					rdma_reject(id, NULL, 0);
					rdma_destroy_id(id);
					break;
				}
				c = on_connect_request(id);
				break;
			case RDMA_CM_EVENT_ESTABLISHED:
				/*
				 * The first message may well be printed before this line: our QP could receive as
				 * soon as rdma_accept() returned, while this event waits for the client's "ready to
				 * use" (RTU) message and comes through a different file descriptor.
				 */
				printf("cm_server: ESTABLISHED: QP %u is ready to send and receive\n", id->qp->qp_num);
				break;
			case RDMA_CM_EVENT_DISCONNECTED:
				printf("cm_server: DISCONNECTED by the client\n");
				drain_cq(c, 0);         /* pick up completions that arrived just before */
				done = 1;
				break;
			case RDMA_CM_EVENT_TIMEWAIT_EXIT:
				break;
			default:
				fprintf(stderr, "cm_server: unexpected event %s (status %d)\n", rdma_event_str(type), status);
				failed = 1;
			}
		}
		if (!done && !failed && errno != EAGAIN)
			die_errno("rdma_get_cm_event");

		/* Then the completions, if the completion channel signalled. */
		if (!done && c && (fds[1].revents & POLLIN))
			drain_cq(c, 1);
	}

	/* 5. Clean up in the reverse order of creation. */
	if (c) {
		if (!done)
			rdma_disconnect(c->id);
		if (c->answered == 0) {
			fprintf(stderr, "cm_server: no message was received\n");
			failed = 1;
		}
		printf("cm_server: answered %d message%s: %s\n", c->answered, c->answered == 1 ? "" : "s",
		       failed ? "FAILED" : "OK");
		destroy_conn(c);
	} else {
		failed = 1;
	}
	rdma_destroy_id(listener);
	rdma_destroy_event_channel(ec);
	return failed ? 1 : 0;
}
