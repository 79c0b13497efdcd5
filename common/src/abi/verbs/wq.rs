//! Work queues and receive indirection tables: `ibv_create_wq(3)`, `ibv_modify_wq(3)`,
//! `ibv_create_rwq_ind_table(3)`.

use super::*;
use std::ffi::{c_int, c_void};
use std::mem::{offset_of, size_of};

/// Kinds of work queue.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_wq_type {
    /// A receive queue.
    IBV_WQT_RQ,
}

/// Fields of `ibv_wq_init_attr` that are set (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_wq_init_attr_mask {
    IBV_WQ_INIT_ATTR_FLAGS = 1 << 0,
    IBV_WQ_INIT_ATTR_RESERVED = 1 << 1,
}

/// Work queue flags (`create_flags`, `ibv_wq_attr.flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_wq_flags {
    IBV_WQ_FLAGS_CVLAN_STRIPPING = 1 << 0,
    IBV_WQ_FLAGS_SCATTER_FCS = 1 << 1,
    IBV_WQ_FLAGS_DELAY_DROP = 1 << 2,
    IBV_WQ_FLAGS_PCI_WRITE_END_PADDING = 1 << 3,
    IBV_WQ_FLAGS_RESERVED = 1 << 4,
}

/// Input of `ibv_create_wq(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_wq_init_attr {
    /// The application's pointer, kept in `ibv_wq.wq_context`.
    pub wq_context: *mut c_void,
    pub wq_type: ibv_wq_type,
    pub max_wr: u32,
    pub max_sge: u32,
    pub pd: *mut ibv_pd,
    pub cq: *mut ibv_cq,
    /// `enum ibv_wq_init_attr_mask` bits.
    pub comp_mask: u32,
    /// `enum ibv_wq_flags` bits.
    pub create_flags: u32,
}

/// Work queue states.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_wq_state {
    IBV_WQS_RESET,
    IBV_WQS_RDY,
    IBV_WQS_ERR,
    IBV_WQS_UNKNOWN,
}

/// Attributes `ibv_modify_wq(3)` changes (`ibv_wq_attr.attr_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_wq_attr_mask {
    IBV_WQ_ATTR_STATE = 1 << 0,
    IBV_WQ_ATTR_CURR_STATE = 1 << 1,
    IBV_WQ_ATTR_FLAGS = 1 << 2,
    IBV_WQ_ATTR_RESERVED = 1 << 3,
}

/// Input of `ibv_modify_wq(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_wq_attr {
    /// `enum ibv_wq_attr_mask` bits.
    pub attr_mask: u32,
    /// The state to move to.
    pub wq_state: ibv_wq_state,
    /// The state the caller believes the WQ is in.
    pub curr_wq_state: ibv_wq_state,
    /// `enum ibv_wq_flags` bits.
    pub flags: u32,
    /// Which bits of `flags` to change.
    pub flags_mask: u32,
}

/// A receive work queue indirection table (`ibv_create_rwq_ind_table(3)`): spreads incoming packets over
/// receive WQs.
#[repr(C)]
pub struct ibv_rwq_ind_table {
    pub context: *mut ibv_context,
    pub ind_tbl_handle: c_int,
    pub ind_tbl_num: c_int,
    pub comp_mask: u32,
}

/// Fields of `ibv_rwq_ind_table_init_attr` that are set (none yet).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_ind_table_init_attr_mask {
    IBV_CREATE_IND_TABLE_RESERVED = 1 << 0,
}

/// Input of `ibv_create_rwq_ind_table(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_rwq_ind_table_init_attr {
    /// log2 of the number of entries.
    pub log_ind_tbl_size: u32,
    /// The receive WQs, `1 << log_ind_tbl_size` of them.
    pub ind_tbl: *mut *mut ibv_wq,
    pub comp_mask: u32,
}

/// A work queue (`ibv_create_wq(3)`).
#[repr(C)]
pub struct ibv_wq {
    pub context: *mut ibv_context,
    /// The application's pointer.
    pub wq_context: *mut c_void,
    pub pd: *mut ibv_pd,
    pub cq: *mut ibv_cq,
    pub wq_num: u32,
    pub handle: u32,
    pub state: ibv_wq_state,
    pub wq_type: ibv_wq_type,
    /// `ibv_post_wq_recv(3)`.
    pub post_recv: Option<
        unsafe extern "C" fn(
            current: *mut ibv_wq,
            recv_wr: *mut ibv_recv_wr,
            bad_recv_wr: *mut *mut ibv_recv_wr,
        ) -> c_int,
    >,
    pub mutex: libc::pthread_mutex_t,
    pub cond: libc::pthread_cond_t,
    pub events_completed: u32,
    pub comp_mask: u32,
}

const _: () = {
    assert!(size_of::<ibv_wq_init_attr>() == 48 && offset_of!(ibv_wq_init_attr, comp_mask) == 40);
    assert!(size_of::<ibv_wq_attr>() == 20);
    assert!(size_of::<ibv_rwq_ind_table>() == 24);
    assert!(size_of::<ibv_rwq_ind_table_init_attr>() == 24);
    assert!(size_of::<ibv_wq>() == 152);
    assert!(offset_of!(ibv_wq, post_recv) == 48);
    assert!(offset_of!(ibv_wq, mutex) == 56);
    assert!(offset_of!(ibv_wq, events_completed) == 144);
};
