//! The provider-interface structs of rdma-core 44's `libibverbs/driver.h` that the plug-in loader needs, laid out
//! as C lays them out (`#[repr(C)]`, same members in the same order).
//!
//! `verbs_context_ops` keeps its 76 members as untyped function pointers: the loader only copies them (as
//! rdma-core's `verbs_set_ops`) and casts the few it calls to their prototypes at the call site
//! ([`super::op`]).
#![allow(non_camel_case_types)]

use rdma_common::abi::verbs::{ibv_context, ibv_device, ibv_node_type, IBV_SYSFS_NAME_MAX, IBV_SYSFS_PATH_MAX};
use std::ffi::{c_char, c_int, c_uint, c_void};

/// `struct list_node` (ccan/list.h): a doubly linked list link.
#[repr(C)]
pub struct list_node {
    pub next: *mut list_node,
    pub prev: *mut list_node,
}

/// `VERBS_MATCH_*`: the kind of a match-table entry.
pub const VERBS_MATCH_SENTINEL: u8 = 0;
pub const VERBS_MATCH_PCI: u8 = 1;
pub const VERBS_MATCH_MODALIAS: u8 = 2;
pub const VERBS_MATCH_DRIVER_ID: u8 = 3;

/// `VSYSFS_READ_MODALIAS`: `verbs_sysfs_dev.modalias` has been read.
pub const VSYSFS_READ_MODALIAS: c_uint = 1 << 0;

/// The union in `struct verbs_match_ent`.
#[repr(C)]
pub union verbs_match_ent_u {
    pub modalias: *const c_char,
    pub driver_id: u64,
}

/// `struct verbs_match_ent`: one row of a provider's match table (ended by a `VERBS_MATCH_SENTINEL` row).
#[repr(C)]
pub struct verbs_match_ent {
    pub driver_data: *mut c_void,
    pub u: verbs_match_ent_u,
    pub vendor: u16,
    pub device: u16,
    pub kind: u8,
}

/// `struct verbs_sysfs_dev`: an RDMA device found by discovery, as handed to a provider's matcher and
/// `alloc_device`.
#[repr(C)]
pub struct verbs_sysfs_dev {
    pub entry: list_node,
    pub provider_data: *mut c_void,
    pub r#match: *const verbs_match_ent,
    pub flags: c_uint,
    pub sysfs_name: [c_char; IBV_SYSFS_NAME_MAX],
    pub sysfs_cdev: libc::dev_t,
    pub ibdev_name: [c_char; IBV_SYSFS_NAME_MAX],
    pub ibdev_path: [c_char; IBV_SYSFS_PATH_MAX],
    pub modalias: [c_char; 512],
    pub node_guid: u64,
    pub driver_id: u32,
    pub node_type: ibv_node_type,
    pub ibdev_idx: c_int,
    pub num_ports: u32,
    pub abi_ver: u32,
    pub time_created: libc::timespec,
}

/// `struct verbs_device_ops`: what a provider registers with `verbs_register_driver_34`.
#[repr(C)]
pub struct verbs_device_ops {
    pub name: *const c_char,
    pub match_min_abi_version: u32,
    pub match_max_abi_version: u32,
    pub match_table: *const verbs_match_ent,
    pub static_providers: *const *const verbs_device_ops,
    pub match_device: Option<unsafe extern "C" fn(*mut verbs_sysfs_dev) -> bool>,
    pub alloc_context: Option<unsafe extern "C" fn(*mut ibv_device, c_int, *mut c_void) -> *mut rdma_common::abi::verbs::verbs_context>,
    pub import_context: Option<unsafe extern "C" fn(*mut ibv_device, c_int) -> *mut rdma_common::abi::verbs::verbs_context>,
    pub alloc_device: Option<unsafe extern "C" fn(*mut verbs_sysfs_dev) -> *mut verbs_device>,
    pub uninit_device: Option<unsafe extern "C" fn(*mut verbs_device)>,
}

/// `struct verbs_device`: a provider's device (its allocation begins with it; `device` is what C sees).
#[repr(C)]
pub struct verbs_device {
    pub device: ibv_device,
    pub ops: *const verbs_device_ops,
    pub refcount: c_int,
    pub entry: list_node,
    pub sysfs: *mut verbs_sysfs_dev,
    pub core_support: u64,
}

/// An untyped provider op (cast to its prototype where called).
pub type AnyOp = Option<unsafe extern "C" fn()>;

/// `struct verbs_context_ops`: a provider's verbs, sorted by name, NULL where it has none.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_context_ops {
    pub advise_mr: AnyOp,
    pub alloc_dm: AnyOp,
    pub alloc_mw: AnyOp,
    pub alloc_null_mr: AnyOp,
    pub alloc_parent_domain: AnyOp,
    pub alloc_pd: AnyOp,
    pub alloc_td: AnyOp,
    pub async_event: AnyOp,
    pub attach_counters_point_flow: AnyOp,
    pub attach_mcast: AnyOp,
    pub bind_mw: AnyOp,
    pub close_xrcd: AnyOp,
    pub cq_event: AnyOp,
    pub create_ah: AnyOp,
    pub create_counters: AnyOp,
    pub create_cq: AnyOp,
    pub create_cq_ex: AnyOp,
    pub create_flow: AnyOp,
    pub create_flow_action_esp: AnyOp,
    pub create_qp: AnyOp,
    pub create_qp_ex: AnyOp,
    pub create_rwq_ind_table: AnyOp,
    pub create_srq: AnyOp,
    pub create_srq_ex: AnyOp,
    pub create_wq: AnyOp,
    pub dealloc_mw: AnyOp,
    pub dealloc_pd: AnyOp,
    pub dealloc_td: AnyOp,
    pub dereg_mr: AnyOp,
    pub destroy_ah: AnyOp,
    pub destroy_counters: AnyOp,
    pub destroy_cq: AnyOp,
    pub destroy_flow: AnyOp,
    pub destroy_flow_action: AnyOp,
    pub destroy_qp: AnyOp,
    pub destroy_rwq_ind_table: AnyOp,
    pub destroy_srq: AnyOp,
    pub destroy_wq: AnyOp,
    pub detach_mcast: AnyOp,
    pub free_context: AnyOp,
    pub free_dm: AnyOp,
    pub get_srq_num: AnyOp,
    pub import_dm: AnyOp,
    pub import_mr: AnyOp,
    pub import_pd: AnyOp,
    pub modify_cq: AnyOp,
    pub modify_flow_action_esp: AnyOp,
    pub modify_qp: AnyOp,
    pub modify_qp_rate_limit: AnyOp,
    pub modify_srq: AnyOp,
    pub modify_wq: AnyOp,
    pub open_qp: AnyOp,
    pub open_xrcd: AnyOp,
    pub poll_cq: AnyOp,
    pub post_recv: AnyOp,
    pub post_send: AnyOp,
    pub post_srq_ops: AnyOp,
    pub post_srq_recv: AnyOp,
    pub query_device_ex: AnyOp,
    pub query_ece: AnyOp,
    pub query_port: AnyOp,
    pub query_qp: AnyOp,
    pub query_qp_data_in_order: AnyOp,
    pub query_rt_values: AnyOp,
    pub query_srq: AnyOp,
    pub read_counters: AnyOp,
    pub reg_dm_mr: AnyOp,
    pub reg_dmabuf_mr: AnyOp,
    pub reg_mr: AnyOp,
    pub req_notify_cq: AnyOp,
    pub rereg_mr: AnyOp,
    pub resize_cq: AnyOp,
    pub set_ece: AnyOp,
    pub unimport_dm: AnyOp,
    pub unimport_mr: AnyOp,
    pub unimport_pd: AnyOp,
}

const _: () = assert!(std::mem::size_of::<verbs_context_ops>() == 76 * 8);
const _: () = assert!(std::mem::offset_of!(verbs_device, ops) == std::mem::size_of::<ibv_device>());

/// Unused here but named by the prototypes above.
#[allow(dead_code)]
type _Ctx = ibv_context;
