//! Devices and contexts: `struct ibv_device`, `struct ibv_context` with its legacy ops table, and
//! `struct verbs_context`, the extended ops table that `static inline` verbs reach through `verbs_get_ctx_op`.

use super::*;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::mem::{offset_of, size_of};

/// The length of `ibv_device.name` and `dev_name` (C: an enumerator of an untagged enum).
/// cbindgen:ignore
pub const IBV_SYSFS_NAME_MAX: usize = 64;
/// The length of `ibv_device.dev_path` and `ibdev_path` (C: an enumerator of an untagged enum).
/// cbindgen:ignore
pub const IBV_SYSFS_PATH_MAX: usize = 256;

/// The value of `ibv_context.abi_compat` that marks a context embedded in a `struct verbs_context`
/// (`__VERBS_ABI_IS_EXTENDED`, `(void *)UINTPTR_MAX`; C text: `verbs.h.pre`).
/// cbindgen:ignore
pub const __VERBS_ABI_IS_EXTENDED: *mut c_void = usize::MAX as *mut c_void;

/// Obsolete, unused device ops; kept for the layout of `struct ibv_device`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct _ibv_device_ops {
    pub _dummy1: Option<unsafe extern "C" fn(device: *mut ibv_device, cmd_fd: c_int) -> *mut ibv_context>,
    pub _dummy2: Option<unsafe extern "C" fn(context: *mut ibv_context)>,
}

/// An RDMA device found by `ibv_get_device_list(3)`.
#[repr(C)]
pub struct ibv_device {
    /// Unused.
    pub _ops: _ibv_device_ops,
    pub node_type: ibv_node_type,
    pub transport_type: ibv_transport_type,
    /// Kernel device name (`rxe0`, `mlx5_0`), NUL-terminated.
    pub name: [c_char; IBV_SYSFS_NAME_MAX],
    /// uverbs device name (`uverbs0`), NUL-terminated.
    pub dev_name: [c_char; IBV_SYSFS_NAME_MAX],
    /// sysfs path of the `infiniband_verbs` class device.
    pub dev_path: [c_char; IBV_SYSFS_PATH_MAX],
    /// sysfs path of the `infiniband` class device.
    pub ibdev_path: [c_char; IBV_SYSFS_PATH_MAX],
}

/// The port attributes of the `ibv_query_port` symbol: `struct ibv_port_attr` without `port_cap_flags2`. Only
/// declared in C (`verbs.h.pre`): applications pass a `struct ibv_port_attr` through the `ibv_query_port` macro.
/// cbindgen:ignore
#[repr(C)]
pub struct _compat_ibv_port_attr {
    _opaque: [u8; 0],
}

/// The legacy ops table of a context. Applications call `poll_cq`, `req_notify_cq`, `post_send`, `post_recv`,
/// `post_srq_recv`, `alloc_mw`, `bind_mw` and `dealloc_mw` through it from `static inline` verbs; the `_compat_*`
/// slots are unused.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_context_ops {
    pub _compat_query_device:
        Option<unsafe extern "C" fn(context: *mut ibv_context, device_attr: *mut ibv_device_attr) -> c_int>,
    pub _compat_query_port: Option<
        unsafe extern "C" fn(context: *mut ibv_context, port_num: u8, port_attr: *mut _compat_ibv_port_attr) -> c_int,
    >,
    pub _compat_alloc_pd: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_dealloc_pd: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_reg_mr: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_rereg_mr: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_dereg_mr: Option<unsafe extern "C" fn() -> *mut c_void>,
    /// `ibv_alloc_mw(3)`.
    pub alloc_mw: Option<unsafe extern "C" fn(pd: *mut ibv_pd, r#type: ibv_mw_type) -> *mut ibv_mw>,
    /// `ibv_bind_mw(3)`.
    pub bind_mw: Option<unsafe extern "C" fn(qp: *mut ibv_qp, mw: *mut ibv_mw, mw_bind: *mut ibv_mw_bind) -> c_int>,
    /// `ibv_dealloc_mw(3)`.
    pub dealloc_mw: Option<unsafe extern "C" fn(mw: *mut ibv_mw) -> c_int>,
    pub _compat_create_cq: Option<unsafe extern "C" fn() -> *mut c_void>,
    /// `ibv_poll_cq(3)`.
    pub poll_cq: Option<unsafe extern "C" fn(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int>,
    /// `ibv_req_notify_cq(3)`.
    pub req_notify_cq: Option<unsafe extern "C" fn(cq: *mut ibv_cq, solicited_only: c_int) -> c_int>,
    pub _compat_cq_event: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_resize_cq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_cq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_create_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_modify_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_query_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    /// `ibv_post_srq_recv(3)`.
    pub post_srq_recv: Option<
        unsafe extern "C" fn(srq: *mut ibv_srq, recv_wr: *mut ibv_recv_wr, bad_recv_wr: *mut *mut ibv_recv_wr) -> c_int,
    >,
    pub _compat_create_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_query_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_modify_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    /// `ibv_post_send(3)`.
    pub post_send:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp, wr: *mut ibv_send_wr, bad_wr: *mut *mut ibv_send_wr) -> c_int>,
    /// `ibv_post_recv(3)`.
    pub post_recv:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp, wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr) -> c_int>,
    pub _compat_create_ah: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_ah: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_attach_mcast: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_detach_mcast: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_async_event: Option<unsafe extern "C" fn() -> *mut c_void>,
}

/// An open device (`ibv_open_device(3)`).
#[repr(C)]
pub struct ibv_context {
    pub device: *mut ibv_device,
    /// The legacy ops table.
    pub ops: ibv_context_ops,
    /// The uverbs command file descriptor.
    pub cmd_fd: c_int,
    /// The file descriptor `ibv_get_async_event(3)` reads.
    pub async_fd: c_int,
    /// Completion vectors available to `ibv_create_cq(3)`.
    pub num_comp_vectors: c_int,
    pub mutex: libc::pthread_mutex_t,
    /// `__VERBS_ABI_IS_EXTENDED` when this context is the last member of a `struct verbs_context`.
    pub abi_compat: *mut c_void,
}

/// The library-private part of a `verbs_context` (opaque; C declares it only by use).
/// cbindgen:ignore
#[repr(C)]
pub struct verbs_ex_private {
    _opaque: [u8; 0],
}

/// The extended ops table: a `struct ibv_context` preceded by the extension ops, newest first, and by `sz`
/// (rdma-core 65's: 696 bytes, `context` at 368).
///
/// Applications compiled against any rdma-core version find `verbs_context` from the `ibv_context` pointer
/// (`verbs_get_ctx`, a fixed negative offset) and check `sz` before using an op (`verbs_get_ctx_op`), so the order
/// of these fields, and `context` being last, are ABI. rdma-core 65 put the first six in front of the 44 ones;
/// every older member keeps its distance from `context`, so programs built against 44's or 56's header (648 bytes,
/// `context` at 320) find theirs. Only a context of rdma-core 65's provider interface (ours, or a PABI-65 plug-in's)
/// has the six; the library reaches the others through a PABI-34 view of any context (`abi::driver`).
#[repr(C)]
pub struct verbs_context {
    /// `ibv_free_buf` (rdma-core 64).
    pub free_buf: Option<unsafe extern "C" fn(buf: *mut ibv_buf)>,
    /// `ibv_alloc_buf` (rdma-core 64).
    pub alloc_buf: Option<unsafe extern "C" fn(pd: *mut ibv_pd, size: usize, buf: *mut *mut ibv_buf) -> *mut c_void>,
    /// `ibv_dm_export_dmabuf_fd` (rdma-core 62).
    pub dm_export_dmabuf_fd: Option<unsafe extern "C" fn(dm: *mut ibv_dm) -> c_int>,
    /// `ibv_reg_mr_ex` (rdma-core 59).
    pub reg_mr_ex: Option<unsafe extern "C" fn(pd: *mut ibv_pd, mr_init_attr: *mut ibv_mr_init_attr) -> *mut ibv_mr>,
    /// `ibv_dealloc_dmah` (rdma-core 59).
    pub dealloc_dmah: Option<unsafe extern "C" fn(dmah: *mut ibv_dmah) -> c_int>,
    /// `ibv_alloc_dmah` (rdma-core 59).
    pub alloc_dmah:
        Option<unsafe extern "C" fn(context: *mut ibv_context, attr: *mut ibv_dmah_init_attr) -> *mut ibv_dmah>,
    /// `ibv_query_port(3)` with the caller's `sizeof(struct ibv_port_attr)`.
    pub query_port: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            port_num: u8,
            port_attr: *mut ibv_port_attr,
            port_attr_len: usize,
        ) -> c_int,
    >,
    /// `ibv_advise_mr(3)`.
    pub advise_mr: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            advice: ibv_advise_mr_advice,
            flags: u32,
            sg_list: *mut ibv_sge,
            num_sges: u32,
        ) -> c_int,
    >,
    /// `ibv_alloc_null_mr(3)`.
    pub alloc_null_mr: Option<unsafe extern "C" fn(pd: *mut ibv_pd) -> *mut ibv_mr>,
    /// `ibv_read_counters(3)`.
    pub read_counters: Option<
        unsafe extern "C" fn(
            counters: *mut ibv_counters,
            counters_value: *mut u64,
            ncounters: u32,
            flags: u32,
        ) -> c_int,
    >,
    /// `ibv_attach_counters_point_flow(3)`.
    pub attach_counters_point_flow: Option<
        unsafe extern "C" fn(
            counters: *mut ibv_counters,
            attr: *mut ibv_counter_attach_attr,
            flow: *mut ibv_flow,
        ) -> c_int,
    >,
    /// `ibv_create_counters(3)`.
    pub create_counters: Option<
        unsafe extern "C" fn(context: *mut ibv_context, init_attr: *mut ibv_counters_init_attr) -> *mut ibv_counters,
    >,
    /// `ibv_destroy_counters(3)`.
    pub destroy_counters: Option<unsafe extern "C" fn(counters: *mut ibv_counters) -> c_int>,
    /// `ibv_reg_dm_mr(3)`.
    pub reg_dm_mr: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            dm: *mut ibv_dm,
            dm_offset: u64,
            length: usize,
            access: c_uint,
        ) -> *mut ibv_mr,
    >,
    /// `ibv_alloc_dm(3)`.
    pub alloc_dm: Option<unsafe extern "C" fn(context: *mut ibv_context, attr: *mut ibv_alloc_dm_attr) -> *mut ibv_dm>,
    /// `ibv_free_dm(3)`.
    pub free_dm: Option<unsafe extern "C" fn(dm: *mut ibv_dm) -> c_int>,
    /// `ibv_modify_flow_action_esp(3)`.
    pub modify_flow_action_esp:
        Option<unsafe extern "C" fn(action: *mut ibv_flow_action, attr: *mut ibv_flow_action_esp_attr) -> c_int>,
    /// `ibv_destroy_flow_action(3)`.
    pub destroy_flow_action: Option<unsafe extern "C" fn(action: *mut ibv_flow_action) -> c_int>,
    /// `ibv_create_flow_action_esp(3)`.
    pub create_flow_action_esp: Option<
        unsafe extern "C" fn(context: *mut ibv_context, attr: *mut ibv_flow_action_esp_attr) -> *mut ibv_flow_action,
    >,
    /// `ibv_modify_qp_rate_limit(3)`.
    pub modify_qp_rate_limit: Option<unsafe extern "C" fn(qp: *mut ibv_qp, attr: *mut ibv_qp_rate_limit_attr) -> c_int>,
    /// `ibv_alloc_parent_domain(3)`.
    pub alloc_parent_domain:
        Option<unsafe extern "C" fn(context: *mut ibv_context, attr: *mut ibv_parent_domain_init_attr) -> *mut ibv_pd>,
    /// `ibv_dealloc_td(3)`.
    pub dealloc_td: Option<unsafe extern "C" fn(td: *mut ibv_td) -> c_int>,
    /// `ibv_alloc_td(3)`.
    pub alloc_td:
        Option<unsafe extern "C" fn(context: *mut ibv_context, init_attr: *mut ibv_td_init_attr) -> *mut ibv_td>,
    /// `ibv_modify_cq(3)`.
    pub modify_cq: Option<unsafe extern "C" fn(cq: *mut ibv_cq, attr: *mut ibv_modify_cq_attr) -> c_int>,
    /// `ibv_post_srq_ops(3)`.
    pub post_srq_ops:
        Option<unsafe extern "C" fn(srq: *mut ibv_srq, op: *mut ibv_ops_wr, bad_op: *mut *mut ibv_ops_wr) -> c_int>,
    /// `ibv_destroy_rwq_ind_table(3)`.
    pub destroy_rwq_ind_table: Option<unsafe extern "C" fn(rwq_ind_table: *mut ibv_rwq_ind_table) -> c_int>,
    /// `ibv_create_rwq_ind_table(3)`.
    pub create_rwq_ind_table: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_rwq_ind_table_init_attr,
        ) -> *mut ibv_rwq_ind_table,
    >,
    /// `ibv_destroy_wq(3)`.
    pub destroy_wq: Option<unsafe extern "C" fn(wq: *mut ibv_wq) -> c_int>,
    /// `ibv_modify_wq(3)`.
    pub modify_wq: Option<unsafe extern "C" fn(wq: *mut ibv_wq, wq_attr: *mut ibv_wq_attr) -> c_int>,
    /// `ibv_create_wq(3)`.
    pub create_wq:
        Option<unsafe extern "C" fn(context: *mut ibv_context, wq_init_attr: *mut ibv_wq_init_attr) -> *mut ibv_wq>,
    /// `ibv_query_rt_values_ex(3)`.
    pub query_rt_values: Option<unsafe extern "C" fn(context: *mut ibv_context, values: *mut ibv_values_ex) -> c_int>,
    /// `ibv_create_cq_ex(3)`.
    pub create_cq_ex:
        Option<unsafe extern "C" fn(context: *mut ibv_context, init_attr: *mut ibv_cq_init_attr_ex) -> *mut ibv_cq_ex>,
    /// The library's private state.
    pub r#priv: *mut verbs_ex_private,
    /// `ibv_query_device_ex(3)` with the caller's `sizeof(struct ibv_device_attr_ex)`.
    pub query_device_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            input: *const ibv_query_device_ex_input,
            attr: *mut ibv_device_attr_ex,
            attr_size: usize,
        ) -> c_int,
    >,
    /// `ibv_destroy_flow(3)`.
    pub ibv_destroy_flow: Option<unsafe extern "C" fn(flow: *mut ibv_flow) -> c_int>,
    /// Unused slot.
    pub ABI_placeholder2: Option<unsafe extern "C" fn()>,
    /// `ibv_create_flow(3)`.
    pub ibv_create_flow: Option<unsafe extern "C" fn(qp: *mut ibv_qp, flow_attr: *mut ibv_flow_attr) -> *mut ibv_flow>,
    /// Unused slot.
    pub ABI_placeholder1: Option<unsafe extern "C" fn()>,
    /// `ibv_open_qp(3)`.
    pub open_qp: Option<unsafe extern "C" fn(context: *mut ibv_context, attr: *mut ibv_qp_open_attr) -> *mut ibv_qp>,
    /// `ibv_create_qp_ex(3)`.
    pub create_qp_ex: Option<
        unsafe extern "C" fn(context: *mut ibv_context, qp_init_attr_ex: *mut ibv_qp_init_attr_ex) -> *mut ibv_qp,
    >,
    /// `ibv_get_srq_num(3)`.
    pub get_srq_num: Option<unsafe extern "C" fn(srq: *mut ibv_srq, srq_num: *mut u32) -> c_int>,
    /// `ibv_create_srq_ex(3)`.
    pub create_srq_ex: Option<
        unsafe extern "C" fn(context: *mut ibv_context, srq_init_attr_ex: *mut ibv_srq_init_attr_ex) -> *mut ibv_srq,
    >,
    /// `ibv_open_xrcd(3)`.
    pub open_xrcd: Option<
        unsafe extern "C" fn(context: *mut ibv_context, xrcd_init_attr: *mut ibv_xrcd_init_attr) -> *mut ibv_xrcd,
    >,
    /// `ibv_close_xrcd(3)`.
    pub close_xrcd: Option<unsafe extern "C" fn(xrcd: *mut ibv_xrcd) -> c_int>,
    /// Unused slot.
    pub _ABI_placeholder3: u64,
    /// `sizeof(struct verbs_context)` as the library built it; must stay just before `context`.
    pub sz: usize,
    /// The context handed to the application; must stay the last field.
    pub context: ibv_context,
}

const _: () = {
    assert!(size_of::<_ibv_device_ops>() == 16);
    assert!(size_of::<ibv_device>() == 664);
    assert!(offset_of!(ibv_device, name) == 24);
    assert!(offset_of!(ibv_device, dev_path) == 152);
    assert!(offset_of!(ibv_device, ibdev_path) == 408);
    assert!(size_of::<ibv_context_ops>() == 256);
    assert!(offset_of!(ibv_context_ops, alloc_mw) == 56);
    assert!(offset_of!(ibv_context_ops, poll_cq) == 88);
    assert!(offset_of!(ibv_context_ops, req_notify_cq) == 96);
    assert!(offset_of!(ibv_context_ops, post_srq_recv) == 160);
    assert!(offset_of!(ibv_context_ops, post_send) == 200);
    assert!(offset_of!(ibv_context_ops, post_recv) == 208);
    assert!(size_of::<ibv_context>() == 328);
    assert!(offset_of!(ibv_context, cmd_fd) == 264);
    assert!(offset_of!(ibv_context, mutex) == 280);
    assert!(offset_of!(ibv_context, abi_compat) == 320);
    assert!(size_of::<verbs_context>() == 696);
    assert!(offset_of!(verbs_context, query_port) == 48);
    assert!(offset_of!(verbs_context, create_cq_ex) == 248);
    assert!(offset_of!(verbs_context, r#priv) == 256);
    assert!(offset_of!(verbs_context, query_device_ex) == 264);
    assert!(offset_of!(verbs_context, close_xrcd) == 344);
    assert!(offset_of!(verbs_context, sz) == 360);
    assert!(offset_of!(verbs_context, context) == 368);
};
