//! The exported functions of libibverbs: one declaration each, which cbindgen writes into `verbs.h` and which the
//! `ibverbs` crate's definitions are checked against (`check_signatures!`). librdmacm calls libibverbs through
//! these declarations.
//!
//! The doc comment of each declaration is what C users read in the header: what the function does and how it
//! reports failure.

use super::*;
use std::ffi::{c_char, c_int, c_uint, c_void};

extern "C" {
    /// Returns the extended view of a QP created with `ibv_create_qp_ex(3)` (`ibv_wr_post(3)`), or NULL when the
    /// provider has none.
    pub fn ibv_qp_to_qp_ex(qp: *mut ibv_qp) -> *mut ibv_qp_ex;

    /// Returns a NULL-terminated array of the RDMA devices present, and their count in `*num_devices` when that is
    /// not NULL; free it with `ibv_free_device_list(3)`. NULL with errno set on failure.
    pub fn ibv_get_device_list(num_devices: *mut c_int) -> *mut *mut ibv_device;

    /// Frees an array from `ibv_get_device_list(3)`. Devices not opened by then must not be used afterwards.
    pub fn ibv_free_device_list(list: *mut *mut ibv_device);

    /// Returns the kernel name of a device (`mlx5_0`, `rxe0`).
    pub fn ibv_get_device_name(device: *mut ibv_device) -> *const c_char;

    /// Returns the kernel index of a device, or -1 when the kernel does not report it.
    pub fn ibv_get_device_index(device: *mut ibv_device) -> c_int;

    /// Returns the node GUID of a device, big-endian; 0 when it cannot be read.
    pub fn ibv_get_device_guid(device: *mut ibv_device) -> __be64;

    /// Opens a device for use. NULL with errno set on failure.
    pub fn ibv_open_device(device: *mut ibv_device) -> *mut ibv_context;

    /// Closes a device context. 0, or -1 on failure.
    pub fn ibv_close_device(context: *mut ibv_context) -> c_int;

    /// Creates a context from a uverbs command file descriptor shared by another process. NULL with errno set on
    /// failure.
    pub fn ibv_import_device(cmd_fd: c_int) -> *mut ibv_context;

    /// Creates a PD object for a protection domain of an imported context. NULL with errno set on failure.
    pub fn ibv_import_pd(context: *mut ibv_context, pd_handle: u32) -> *mut ibv_pd;

    /// Frees a PD object from `ibv_import_pd(3)` without destroying the protection domain.
    pub fn ibv_unimport_pd(pd: *mut ibv_pd);

    /// Creates an MR object for a memory region of an imported context. NULL with errno set on failure.
    pub fn ibv_import_mr(pd: *mut ibv_pd, mr_handle: u32) -> *mut ibv_mr;

    /// Frees an MR object from `ibv_import_mr(3)` without deregistering the region.
    pub fn ibv_unimport_mr(mr: *mut ibv_mr);

    /// Creates a DM object for device memory of an imported context. NULL with errno set on failure.
    pub fn ibv_import_dm(context: *mut ibv_context, dm_handle: u32) -> *mut ibv_dm;

    /// Frees a DM object from `ibv_import_dm(3)` without freeing the device memory.
    pub fn ibv_unimport_dm(dm: *mut ibv_dm);
}

// Blocks until an event arrives: a thread waiting here may be cancelled (`ffi`'s notes on thread cancellation).
extern "C-unwind" {
    /// Waits for (or, with `async_fd` non-blocking, takes) the next asynchronous event. 0, or -1 with errno set.
    /// Every event must be acknowledged with `ibv_ack_async_event(3)`.
    pub fn ibv_get_async_event(context: *mut ibv_context, event: *mut ibv_async_event) -> c_int;
}

extern "C" {
    /// Acknowledges an event from `ibv_get_async_event(3)`. Destroying the object an event names waits for this.
    pub fn ibv_ack_async_event(event: *mut ibv_async_event);

    /// Reads the attributes of a device. 0, or an errno value.
    pub fn ibv_query_device(context: *mut ibv_context, device_attr: *mut ibv_device_attr) -> c_int;

    /// Reads the attributes of a port, in the legacy layout without `port_cap_flags2`. Applications reach it
    /// through the `ibv_query_port` macro. 0, or an errno value.
    pub fn ibv_query_port(context: *mut ibv_context, port_num: u8, port_attr: *mut _compat_ibv_port_attr) -> c_int;

    /// Reads entry `index` of a port's GID table (all zeros for an empty entry). 0, or -1 on failure.
    pub fn ibv_query_gid(context: *mut ibv_context, port_num: u8, index: c_int, gid: *mut ibv_gid) -> c_int;

    /// The symbol behind `ibv_query_gid_ex(3)`: reads a GID-table entry into a struct of `entry_size` bytes.
    /// 0, or an errno value (`ENODATA` for an empty entry).
    pub fn _ibv_query_gid_ex(
        context: *mut ibv_context,
        port_num: u32,
        gid_index: u32,
        entry: *mut ibv_gid_entry,
        flags: u32,
        entry_size: usize,
    ) -> c_int;

    /// The symbol behind `ibv_query_gid_table(3)`: reads every valid GID-table entry of every port into an array
    /// of `entry_size`-byte structs. The number of entries, or a negative errno value.
    pub fn _ibv_query_gid_table(
        context: *mut ibv_context,
        entries: *mut ibv_gid_entry,
        max_entries: usize,
        flags: u32,
        entry_size: usize,
    ) -> libc::ssize_t;

    /// Reads entry `index` of a port's P_Key table, big-endian. 0, or -1 on failure.
    pub fn ibv_query_pkey(context: *mut ibv_context, port_num: u8, index: c_int, pkey: *mut __be16) -> c_int;

    /// Returns the index of a (big-endian) P_Key in a port's table, or -1 with errno set.
    pub fn ibv_get_pkey_index(context: *mut ibv_context, port_num: u8, pkey: __be16) -> c_int;

    /// Allocates a protection domain. NULL with errno set on failure.
    pub fn ibv_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd;

    /// Frees a protection domain. 0, or an errno value.
    pub fn ibv_dealloc_pd(pd: *mut ibv_pd) -> c_int;

    /// Registers `length` bytes at `addr` as seen at I/O virtual address `iova`; the optional access flags are
    /// dropped when the kernel does not support them. NULL with errno set on failure.
    pub fn ibv_reg_mr_iova2(
        pd: *mut ibv_pd,
        addr: *mut c_void,
        length: usize,
        iova: u64,
        access: c_uint,
    ) -> *mut ibv_mr;

    /// Registers `length` bytes at `addr` (`ibv_reg_mr(3)`; applications reach it through the `ibv_reg_mr` macro).
    /// NULL with errno set on failure.
    pub fn ibv_reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, access: c_int) -> *mut ibv_mr;

    /// Registers `length` bytes at `addr` as seen at `iova` (applications reach it through the `ibv_reg_mr_iova`
    /// macro). NULL with errno set on failure.
    pub fn ibv_reg_mr_iova(pd: *mut ibv_pd, addr: *mut c_void, length: usize, iova: u64, access: c_int) -> *mut ibv_mr;

    /// Registers `length` bytes at `offset` of the dma-buf `fd`, seen at `iova`. NULL with errno set on failure.
    pub fn ibv_reg_dmabuf_mr(
        pd: *mut ibv_pd,
        offset: u64,
        length: usize,
        iova: u64,
        fd: c_int,
        access: c_int,
    ) -> *mut ibv_mr;

    /// Changes the translation, PD or access of a memory region (`enum ibv_rereg_mr_flags`). 0, or an
    /// `enum ibv_rereg_mr_err_code` value with errno set.
    pub fn ibv_rereg_mr(
        mr: *mut ibv_mr,
        flags: c_int,
        pd: *mut ibv_pd,
        addr: *mut c_void,
        length: usize,
        access: c_int,
    ) -> c_int;

    /// Deregisters a memory region. 0, or an errno value.
    pub fn ibv_dereg_mr(mr: *mut ibv_mr) -> c_int;

    /// Creates a completion event channel. NULL with errno set on failure.
    pub fn ibv_create_comp_channel(context: *mut ibv_context) -> *mut ibv_comp_channel;

    /// Destroys a completion event channel no CQ uses any more. 0, or an errno value.
    pub fn ibv_destroy_comp_channel(channel: *mut ibv_comp_channel) -> c_int;

    /// Creates a completion queue of at least `cqe` entries; events go to `channel` (may be NULL) on vector
    /// `comp_vector`. NULL with errno set on failure.
    pub fn ibv_create_cq(
        context: *mut ibv_context,
        cqe: c_int,
        cq_context: *mut c_void,
        channel: *mut ibv_comp_channel,
        comp_vector: c_int,
    ) -> *mut ibv_cq;

    /// Resizes a CQ to at least `cqe` entries (`cq->cqe` gets the actual size). 0, or an errno value.
    pub fn ibv_resize_cq(cq: *mut ibv_cq, cqe: c_int) -> c_int;

    /// Destroys a CQ. 0, or an errno value.
    pub fn ibv_destroy_cq(cq: *mut ibv_cq) -> c_int;

}

// Blocks until an event arrives: a thread waiting here may be cancelled (`ffi`'s notes on thread cancellation).
extern "C-unwind" {
    /// Waits for the next completion event of a channel and returns its CQ and that CQ's context. 0, or -1 with
    /// errno set. Every event must be acknowledged with `ibv_ack_cq_events(3)`.
    pub fn ibv_get_cq_event(
        channel: *mut ibv_comp_channel,
        cq: *mut *mut ibv_cq,
        cq_context: *mut *mut c_void,
    ) -> c_int;
}

extern "C" {

    /// Acknowledges `nevents` completion events of a CQ. Destroying the CQ waits for all of them.
    pub fn ibv_ack_cq_events(cq: *mut ibv_cq, nevents: c_uint);

    /// Creates a shared receive queue; `srq_init_attr->attr` gets the actual sizes. NULL with errno set on failure.
    pub fn ibv_create_srq(pd: *mut ibv_pd, srq_init_attr: *mut ibv_srq_init_attr) -> *mut ibv_srq;

    /// Resizes an SRQ (`IBV_SRQ_MAX_WR`) and/or arms its limit event (`IBV_SRQ_LIMIT`). 0, or an errno value.
    pub fn ibv_modify_srq(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr, srq_attr_mask: c_int) -> c_int;

    /// Reads the attributes of an SRQ. 0, or an errno value.
    pub fn ibv_query_srq(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr) -> c_int;

    /// Destroys an SRQ. 0, or an errno value.
    pub fn ibv_destroy_srq(srq: *mut ibv_srq) -> c_int;

    /// Creates a queue pair; `qp_init_attr->cap` gets the actual sizes. NULL with errno set on failure.
    pub fn ibv_create_qp(pd: *mut ibv_pd, qp_init_attr: *mut ibv_qp_init_attr) -> *mut ibv_qp;

    /// Changes the attributes selected by `attr_mask` (`enum ibv_qp_attr_mask`), typically the state. 0, or an
    /// errno value.
    pub fn ibv_modify_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int;

    /// Reads the attributes selected by `attr_mask` and the creation attributes of a QP. 0, or an errno value.
    pub fn ibv_query_qp(
        qp: *mut ibv_qp,
        attr: *mut ibv_qp_attr,
        attr_mask: c_int,
        init_attr: *mut ibv_qp_init_attr,
    ) -> c_int;

    /// Destroys a QP. 0, or an errno value.
    pub fn ibv_destroy_qp(qp: *mut ibv_qp) -> c_int;

    /// Creates an address handle. NULL with errno set on failure.
    pub fn ibv_create_ah(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah;

    /// Fills address attributes that reply to the sender of a received completion (`grh` is read when the
    /// completion has `IBV_WC_GRH`). 0, or -1 with errno set.
    pub fn ibv_init_ah_from_wc(
        context: *mut ibv_context,
        port_num: u8,
        wc: *mut ibv_wc,
        grh: *mut ibv_grh,
        ah_attr: *mut ibv_ah_attr,
    ) -> c_int;

    /// Creates an address handle that replies to the sender of a received completion. NULL with errno set on
    /// failure.
    pub fn ibv_create_ah_from_wc(pd: *mut ibv_pd, wc: *mut ibv_wc, grh: *mut ibv_grh, port_num: u8) -> *mut ibv_ah;

    /// Destroys an address handle. 0, or an errno value.
    pub fn ibv_destroy_ah(ah: *mut ibv_ah) -> c_int;

    /// Attaches a UD QP to the multicast group `gid` / `lid` (host order). 0, or an errno value.
    pub fn ibv_attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int;

    /// Detaches a UD QP from a multicast group. 0, or an errno value.
    pub fn ibv_detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int;

    /// Makes registered memory safe across `fork()`; call it before registering anything. 0, or an errno value.
    pub fn ibv_fork_init() -> c_int;

    /// Tells whether fork support is enabled, or not needed because the kernel copies DMA pages on fork.
    pub fn ibv_is_fork_initialized() -> ibv_fork_status;

    /// Resolves the destination MAC (and VLAN id, when `vid` is not NULL) of a RoCE address. 0, or an errno value.
    pub fn ibv_resolve_eth_l2_from_gid(
        context: *mut ibv_context,
        attr: *mut ibv_ah_attr,
        eth_mac: *mut u8,
        vid: *mut u16,
    ) -> c_int;

    /// Sets the ECE options a QP will request during connection setup. 0, or an errno value.
    pub fn ibv_set_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int;

    /// Reads the ECE options a QP accepted. 0, or an errno value.
    pub fn ibv_query_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int;
}

// Functions that take a C enum by value. Their C prototypes, with the enum types, are hand-written in
// `verbs.h.post` (four also carry `__attribute__((const))`); here the enum arguments are the enums' integer types
// (gcc makes an enum without negative values `unsigned int`), so no number from C is ever an invalid Rust enum.
#[allow(unused_doc_comments)]
/// cbindgen:ignore
extern "C" {
    /// `const char *ibv_wc_status_str(enum ibv_wc_status status)`: a static description of a completion status.
    pub fn ibv_wc_status_str(status: c_uint) -> *const c_char;

    /// `const char *ibv_node_type_str(enum ibv_node_type node_type)`: a static description of a node type.
    pub fn ibv_node_type_str(node_type: c_int) -> *const c_char;

    /// `const char *ibv_port_state_str(enum ibv_port_state port_state)`: a static description of a port state.
    pub fn ibv_port_state_str(port_state: c_uint) -> *const c_char;

    /// `const char *ibv_event_type_str(enum ibv_event_type event)`: a static description of an event type.
    pub fn ibv_event_type_str(event: c_uint) -> *const c_char;

    /// `int ibv_rate_to_mult(enum ibv_rate rate)`: the rate as a multiple of 2.5 Gb/s, or -1.
    pub fn ibv_rate_to_mult(rate: c_uint) -> c_int;

    /// `enum ibv_rate mult_to_ibv_rate(int mult)`: the rate that is `mult` times 2.5 Gb/s, or `IBV_RATE_MAX`.
    pub fn mult_to_ibv_rate(mult: c_int) -> ibv_rate;

    /// `int ibv_rate_to_mbps(enum ibv_rate rate)`: the rate in Mb/s, or -1.
    pub fn ibv_rate_to_mbps(rate: c_uint) -> c_int;

    /// `enum ibv_rate mbps_to_ibv_rate(int mbps)`: the rate of exactly `mbps` Mb/s, or `IBV_RATE_MAX`.
    pub fn mbps_to_ibv_rate(mbps: c_int) -> ibv_rate;

    /// `int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)`: with
    /// `IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS`, the `enum ibv_query_qp_data_in_order_caps` bits the data of `op`
    /// keeps; without it, 1 when a whole message's data is written in order, else 0.
    pub fn ibv_query_qp_data_in_order(qp: *mut ibv_qp, op: c_uint, flags: u32) -> c_int;

    /// `const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode)`: a static lower-case name of a send opcode
    /// (`"rdma-write"`, `"flush"`), `"unknown"` outside the enum, NULL for its unnamed values 12 and 13
    /// (rdma-core 56; exported in the private node, as rdma-core does).
    pub fn ibv_wr_opcode_str(opcode: c_uint) -> *const c_char;
}

// Functions rdma-core exports without declaring them in `verbs.h` (their prototypes are in `infiniband/driver.h`
// and `infiniband/marshall.h`, which rdma-core does not install); not emitted.
#[allow(unused_doc_comments)]
/// cbindgen:ignore
extern "C" {
    /// The sysfs mount point: `$SYSFS_PATH` without trailing slashes when set (and not set-uid), else `/sys`.
    pub fn ibv_get_sysfs_path() -> *const c_char;

    /// Reads `dir/file` into `buf` (at most `size` bytes), strips one trailing newline and NUL-terminates.
    /// The byte count, or -1 with errno set.
    pub fn ibv_read_sysfs_file(dir: *const c_char, file: *const c_char, buf: *mut c_char, size: usize) -> c_int;

    /// Marks `[base, base + size)` `MADV_DONTFORK` when fork support is on. 0, or an errno value.
    pub fn ibv_dontfork_range(base: *mut c_void, size: usize) -> c_int;

    /// Undoes `ibv_dontfork_range`. 0, or an errno value.
    pub fn ibv_dofork_range(base: *mut c_void, size: usize) -> c_int;
}
