/* The parts of rdma-core's provider interface (libibverbs/driver.h, cmd_ioctl.h; not installed) the comparison
 * program needs: the provider-private object structs, the ioctl command buffer and the ibv_cmd_* prototypes, written
 * from their documented layouts, for the release PC_RELEASE (44, the default, or 56: a longer ibv_qp_ex inside
 * verbs_qp, the 8-argument ibv_cmd_reg_dmabuf_mr, ibv_cmd_create_cq_ex2; the program is compiled against the
 * system's rdma-core 44 headers either way). The kern-abi `struct ibv_<cmd>` command buffers are built as bytes in
 * driver.c: the write header (and extended header), the kernel's core struct from <rdma/ib_user_verbs.h>, the
 * driver data. */
#ifndef PLUGCMD_CMDS_H
#define PLUGCMD_CMDS_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#ifndef PC_RELEASE
#define PC_RELEASE 44
#endif
/* sizeof(struct verbs_context) and where its `context` is: 65 put six slots in front. */
#if PC_RELEASE >= 65
#define PC_VCTX_SIZE 696
#define PC_CTX_OFFSET 368
#define PC_NODE "IBVERBS_PRIVATE_65"
#else
#define PC_VCTX_SIZE 648
#define PC_CTX_OFFSET 320
#define PC_NODE "IBVERBS_PRIVATE_34"
#endif
/* sizeof(struct ibv_qp_ex) of the release: 56 added wr_flush. */
#if PC_RELEASE >= 56
#define PC_QP_EX_SIZE 360
#else
#define PC_QP_EX_SIZE 352
#endif

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
		unsigned char qp_ex_bytes[PC_QP_EX_SIZE];
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};
_Static_assert(offsetof(struct verbs_qp, comp_mask) == PC_QP_EX_SIZE, "the release's verbs_qp");

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	uint32_t mr_type;
	int access;
};

struct verbs_flow_action {
	struct ibv_flow_action action;
	uint32_t handle;
	uint32_t type;
};

struct verbs_dm {
	struct ibv_dm dm;
	uint32_t handle;
};

struct verbs_counters {
	struct ibv_counters counters;
	uint32_t handle;
};

/* Only the head of these matters to the reference run (a fake device for rdma-core's context set-up). */
struct pc_list_node {
	struct pc_list_node *next, *prev;
};
struct verbs_device {
	struct ibv_device device;
	const void *ops;
	int refcount;
	struct pc_list_node entry;
	void *sysfs;
	uint64_t core_support;
};

struct ibv_command_buffer {
	struct ibv_command_buffer *next;
	struct ib_uverbs_attr *next_attr;
	struct ib_uverbs_attr *last_attr;
	uint8_t uhw_in_idx;
	uint8_t uhw_out_idx;
	uint8_t uhw_in_headroom_dwords;
	uint8_t uhw_out_headroom_dwords;
	uint8_t buffer_error : 1;
	uint8_t fallback_require_ex : 1;
	uint8_t fallback_ioctl_only : 1;
	struct ib_uverbs_ioctl_hdr hdr;
};

/* A command buffer block with room for 8 attributes (DECLARE_COMMAND_BUFFER's array). */
struct pc_cmdb {
	struct ibv_command_buffer b;
	struct ib_uverbs_attr room[8];
};

enum { PC_CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX = 1 };

/* The ibv_cmd_* and friends, resolved with dlsym from the library under test. */
#define PC_FUNCS(X)                                                                                                   \
	X(void *, _verbs_init_and_alloc_context, (struct ibv_device *, int, size_t, struct verbs_context *, uint32_t)) \
	X(struct ibv_device **, ibv_get_device_list, (int *))                                                         \
	X(void, verbs_init_cq, (struct ibv_cq *, struct ibv_context *, struct ibv_comp_channel *, void *))            \
	X(int, execute_ioctl, (struct ibv_context *, struct ibv_command_buffer *))                                    \
	X(unsigned int, __ioctl_final_num_attrs, (unsigned int, struct ibv_command_buffer *))                         \
	X(int, ibv_cmd_get_context, (struct verbs_context *, void *, size_t PC_FD_ARR, void *, size_t))               \
	X(int, ibv_cmd_query_context, (struct ibv_context *, struct ibv_command_buffer *))                            \
	X(int, ibv_cmd_query_device_any,                                                                              \
	  (struct ibv_context *, const struct ibv_query_device_ex_input *, struct ibv_device_attr_ex *, size_t, void *, \
	   size_t *))                                                                                                   \
	X(int, ibv_cmd_query_port, (struct ibv_context *, uint8_t, struct ibv_port_attr *, void *, size_t))          \
	X(int, ibv_cmd_alloc_pd, (struct ibv_context *, struct ibv_pd *, void *, size_t, void *, size_t))            \
	X(int, ibv_cmd_dealloc_pd, (struct ibv_pd *))                                                                 \
	X(int, ibv_cmd_open_xrcd,                                                                                     \
	  (struct ibv_context *, struct verbs_xrcd *, int, struct ibv_xrcd_init_attr *, void *, size_t, void *, size_t)) \
	X(int, ibv_cmd_close_xrcd, (struct verbs_xrcd *))                                                             \
	X(int, ibv_cmd_reg_mr,                                                                                        \
	  (struct ibv_pd *, void *, size_t, uint64_t, int, struct verbs_mr *, void *, size_t, void *, size_t))        \
	X(int, ibv_cmd_rereg_mr,                                                                                      \
	  (struct verbs_mr *, uint32_t, void *, size_t, uint64_t, int, struct ibv_pd *, void *, size_t, void *, size_t)) \
	X(int, ibv_cmd_dereg_mr, (struct verbs_mr *))                                                                 \
	X(int, ibv_cmd_query_mr, (struct ibv_pd *, struct verbs_mr *, uint32_t))                                      \
	X(int, ibv_cmd_advise_mr, (struct ibv_pd *, enum ibv_advise_mr_advice, uint32_t, struct ibv_sge *, uint32_t)) \
	X(int, ibv_cmd_reg_dmabuf_mr,                                                                                 \
	  (struct ibv_pd *, uint64_t, size_t, uint64_t, int, int, struct verbs_mr * PC_DMABUF_DRIVER))                \
	X(int, ibv_cmd_alloc_mw, (struct ibv_pd *, enum ibv_mw_type, struct ibv_mw *, void *, size_t, void *, size_t)) \
	X(int, ibv_cmd_dealloc_mw, (struct ibv_mw *))                                                                 \
	X(int, ibv_cmd_alloc_dm,                                                                                      \
	  (struct ibv_context *, const struct ibv_alloc_dm_attr *, struct verbs_dm *, struct ibv_command_buffer *))   \
	X(int, ibv_cmd_free_dm, (struct verbs_dm *))                                                                  \
	X(int, ibv_cmd_reg_dm_mr,                                                                                     \
	  (struct ibv_pd *, struct verbs_dm *, uint64_t, size_t, unsigned int, struct verbs_mr *,                     \
	   struct ibv_command_buffer *))                                                                              \
	X(int, ibv_cmd_create_cq,                                                                                     \
	  (struct ibv_context *, int, struct ibv_comp_channel *, int, struct ibv_cq *, void *, size_t, void *, size_t)) \
	X(int, ibv_cmd_create_cq_ex,                                                                                  \
	  (struct ibv_context *, const struct ibv_cq_init_attr_ex * PC_PROV_ATTR, struct verbs_cq *, void *, size_t,   \
	   void *, size_t, uint32_t))                                                                                 \
	X(int, ibv_cmd_poll_cq, (struct ibv_cq *, int, struct ibv_wc *))                                              \
	X(int, ibv_cmd_req_notify_cq, (struct ibv_cq *, int))                                                         \
	X(int, ibv_cmd_resize_cq, (struct ibv_cq *, int, void *, size_t, void *, size_t))                             \
	X(int, ibv_cmd_destroy_cq, (struct ibv_cq *))                                                                 \
	X(int, ibv_cmd_modify_cq, (struct ibv_cq *, struct ibv_modify_cq_attr *, void *, size_t))                     \
	X(int, ibv_cmd_create_srq,                                                                                    \
	  (struct ibv_pd *, struct ibv_srq *, struct ibv_srq_init_attr *, void *, size_t, void *, size_t))            \
	X(int, ibv_cmd_create_srq_ex,                                                                                 \
	  (struct ibv_context *, struct verbs_srq *, struct ibv_srq_init_attr_ex *, void *, size_t, void *, size_t))  \
	X(int, ibv_cmd_modify_srq, (struct ibv_srq *, struct ibv_srq_attr *, int, void *, size_t))                    \
	X(int, ibv_cmd_query_srq, (struct ibv_srq *, struct ibv_srq_attr *, void *, size_t))                          \
	X(int, ibv_cmd_destroy_srq, (struct ibv_srq *))                                                               \
	X(int, ibv_cmd_create_qp,                                                                                     \
	  (struct ibv_pd *, struct ibv_qp *, struct ibv_qp_init_attr *, void *, size_t, void *, size_t))              \
	X(int, ibv_cmd_create_qp_ex,                                                                                  \
	  (struct ibv_context *, struct verbs_qp *, struct ibv_qp_init_attr_ex *, void *, size_t, void *, size_t))    \
	X(int, ibv_cmd_create_qp_ex2,                                                                                 \
	  (struct ibv_context *, struct verbs_qp *, struct ibv_qp_init_attr_ex *, void *, size_t, void *,             \
	   size_t PC_QP_DRIVER))                                                                                      \
	X(int, ibv_cmd_open_qp,                                                                                       \
	  (struct ibv_context *, struct verbs_qp *, int, struct ibv_qp_open_attr *, void *, size_t, void *, size_t))  \
	X(int, ibv_cmd_query_qp,                                                                                      \
	  (struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *, void *, size_t))                    \
	X(int, ibv_cmd_modify_qp, (struct ibv_qp *, struct ibv_qp_attr *, int, void *, size_t))                       \
	X(int, ibv_cmd_modify_qp_ex, (struct ibv_qp *, struct ibv_qp_attr *, int, void *, size_t, void *, size_t))    \
	X(int, ibv_cmd_destroy_qp, (struct ibv_qp *))                                                                 \
	X(int, ibv_cmd_post_send, (struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **))                     \
	X(int, ibv_cmd_post_recv, (struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **))                     \
	X(int, ibv_cmd_post_srq_recv, (struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **))                \
	X(int, ibv_cmd_create_ah, (struct ibv_pd *, struct ibv_ah *, struct ibv_ah_attr *, void *, size_t))           \
	X(int, ibv_cmd_destroy_ah, (struct ibv_ah *))                                                                 \
	X(int, ibv_cmd_attach_mcast, (struct ibv_qp *, const union ibv_gid *, uint16_t))                              \
	X(int, ibv_cmd_detach_mcast, (struct ibv_qp *, const union ibv_gid *, uint16_t))                              \
	X(int, ibv_cmd_create_flow, (struct ibv_qp *, struct ibv_flow *, struct ibv_flow_attr *, void *, size_t))     \
	X(int, ibv_cmd_destroy_flow, (struct ibv_flow *))                                                             \
	X(int, ibv_cmd_create_flow_action_esp,                                                                        \
	  (struct ibv_context *, struct ibv_flow_action_esp_attr *, struct verbs_flow_action *,                       \
	   struct ibv_command_buffer *))                                                                              \
	X(int, ibv_cmd_modify_flow_action_esp,                                                                        \
	  (struct verbs_flow_action *, struct ibv_flow_action_esp_attr *, struct ibv_command_buffer *))               \
	X(int, ibv_cmd_destroy_flow_action, (struct verbs_flow_action *))                                             \
	X(int, ibv_cmd_create_wq,                                                                                     \
	  (struct ibv_context *, struct ibv_wq_init_attr *, struct ibv_wq *, void *, size_t, void *, size_t))         \
	X(int, ibv_cmd_modify_wq, (struct ibv_wq *, struct ibv_wq_attr *, void *, size_t))                            \
	X(int, ibv_cmd_destroy_wq, (struct ibv_wq *))                                                                 \
	X(int, ibv_cmd_create_rwq_ind_table,                                                                          \
	  (struct ibv_context *, struct ibv_rwq_ind_table_init_attr *, struct ibv_rwq_ind_table *, void *, size_t))   \
	X(int, ibv_cmd_destroy_rwq_ind_table, (struct ibv_rwq_ind_table *))                                           \
	X(int, ibv_cmd_create_counters,                                                                               \
	  (struct ibv_context *, struct ibv_counters_init_attr *, struct verbs_counters *, struct ibv_command_buffer *)) \
	X(int, ibv_cmd_destroy_counters, (struct verbs_counters *))                                                   \
	X(int, ibv_cmd_read_counters,                                                                                 \
	  (struct verbs_counters *, uint64_t *, uint32_t, uint32_t, struct ibv_command_buffer *))

/* rdma-core 56's additions: ibv_cmd_reg_dmabuf_mr's 8th argument, ibv_cmd_create_cq_ex2; rdma-core 65's changed
 * prototypes: ibv_cmd_get_context's fd array, ibv_cmd_create_cq_ex(2)'s provider ring, ibv_cmd_create_qp_ex2's
 * driver chain. */
struct pc_fd_arr {
	int *arr;
	uint32_t count;
};
struct pc_prov_attr {
	uint64_t length;
	uint64_t ptr_or_offset;
	int fd;
};
enum { PC_CREATE_CQ_CMD_FLAGS_WITH_MEM_VA = 1 << 1 };
#if PC_RELEASE >= 65
#define PC_FD_ARR , struct pc_fd_arr *
#define PC_PROV_ATTR , struct pc_prov_attr *
#define PC_QP_DRIVER , struct ibv_command_buffer *
#else
#define PC_FD_ARR
#define PC_PROV_ATTR
#define PC_QP_DRIVER
#endif
#if PC_RELEASE >= 56
#define PC_DMABUF_DRIVER , struct ibv_command_buffer *
#define PC_FUNCS_56(X)                                                                                                \
	X(int, ibv_cmd_create_cq_ex2,                                                                                 \
	  (struct ibv_context *, const struct ibv_cq_init_attr_ex * PC_PROV_ATTR, struct verbs_cq *, void *, size_t,   \
	   void *, size_t, uint32_t, struct ibv_command_buffer *))
#else
#define PC_DMABUF_DRIVER
#define PC_FUNCS_56(X)
#endif

/* The interposer's control interface (interpose.c), called by driver.c. */
struct pc_ioctl_out {
	uint16_t attr_id;
	uint16_t len;       /* 0: a new object, `value` goes to `data` */
	uint64_t value;     /* object id, or up to 8 bytes copied to the attribute's buffer */
};
void plugcmd_start(int fd, void *arena, size_t arena_len, const char *log);
void plugcmd_add_fd(int fd);
void plugcmd_mark(const char *label);
void plugcmd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void plugcmd_write_reply(const void *resp, size_t len);
void plugcmd_write_fail(const void *resp, size_t len, int err);
void plugcmd_ioctl_reply(const struct pc_ioctl_out *outs, int n);

#endif
