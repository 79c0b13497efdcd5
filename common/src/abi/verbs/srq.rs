//! Shared receive queues and tag-matching list operations: `ibv_create_srq(3)`, `ibv_create_srq_ex(3)`,
//! `ibv_modify_srq(3)`, `ibv_post_srq_ops(3)`.

use super::*;
use std::ffi::{c_int, c_void};
use std::mem::{offset_of, size_of};

/// Attributes `ibv_modify_srq(3)` changes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_srq_attr_mask {
    /// Resize.
    IBV_SRQ_MAX_WR = 1 << 0,
    /// Arm the limit event.
    IBV_SRQ_LIMIT = 1 << 1,
}

/// SRQ attributes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_srq_attr {
    /// Work requests the SRQ holds.
    pub max_wr: u32,
    /// SGEs per work request.
    pub max_sge: u32,
    /// `IBV_EVENT_SRQ_LIMIT_REACHED` fires when fewer WRs remain.
    pub srq_limit: u32,
}

/// Input of `ibv_create_srq(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_srq_init_attr {
    /// The application's pointer, kept in `ibv_srq.srq_context`.
    pub srq_context: *mut c_void,
    pub attr: ibv_srq_attr,
}

/// Kinds of SRQ.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_srq_type {
    IBV_SRQT_BASIC,
    IBV_SRQT_XRC,
    /// Tag matching.
    IBV_SRQT_TM,
}

/// Fields of `ibv_srq_init_attr_ex` that are set (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_srq_init_attr_mask {
    IBV_SRQ_INIT_ATTR_TYPE = 1 << 0,
    IBV_SRQ_INIT_ATTR_PD = 1 << 1,
    IBV_SRQ_INIT_ATTR_XRCD = 1 << 2,
    IBV_SRQ_INIT_ATTR_CQ = 1 << 3,
    IBV_SRQ_INIT_ATTR_TM = 1 << 4,
    IBV_SRQ_INIT_ATTR_RESERVED = 1 << 5,
}

/// Tag-matching sizes of a TM SRQ.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_tm_cap {
    pub max_num_tags: u32,
    pub max_ops: u32,
}

/// Input of `ibv_create_srq_ex(3)`; starts like `ibv_srq_init_attr`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_srq_init_attr_ex {
    pub srq_context: *mut c_void,
    pub attr: ibv_srq_attr,
    /// `enum ibv_srq_init_attr_mask` bits.
    pub comp_mask: u32,
    pub srq_type: ibv_srq_type,
    pub pd: *mut ibv_pd,
    pub xrcd: *mut ibv_xrcd,
    pub cq: *mut ibv_cq,
    pub tm_cap: ibv_tm_cap,
}

/// Tag-matching list operations (`ibv_ops_wr.opcode`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_ops_wr_opcode {
    IBV_WR_TAG_ADD,
    IBV_WR_TAG_DEL,
    IBV_WR_TAG_SYNC,
}

/// Flags of a list operation (`ibv_ops_wr.flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_ops_flags {
    IBV_OPS_SIGNALED = 1 << 0,
    IBV_OPS_TM_SYNC = 1 << 1,
}

/// C's unnamed struct type of `ibv_ops_wr.tm.add`: the tagged buffer to add.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_ops_wr_tm_add {
    /// Reported in the receive completion.
    pub recv_wr_id: u64,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
    pub tag: u64,
    /// Tag bits that must match.
    pub mask: u64,
}

/// C's unnamed struct type of `ibv_ops_wr.tm`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_ops_wr_tm {
    /// Unexpected messages the application has handled.
    pub unexpected_cnt: u32,
    /// The tag handle (out for ADD, in for DEL).
    pub handle: u32,
    pub add: ibv_ops_wr_tm_add,
}

/// A tag-matching list operation (`ibv_post_srq_ops(3)`). C text: `verbs.h.post`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_ops_wr {
    pub wr_id: u64,
    pub next: *mut ibv_ops_wr,
    pub opcode: ibv_ops_wr_opcode,
    /// `enum ibv_ops_flags` bits.
    pub flags: c_int,
    pub tm: ibv_ops_wr_tm,
}

/// A shared receive queue (`ibv_create_srq(3)`).
#[repr(C)]
pub struct ibv_srq {
    pub context: *mut ibv_context,
    /// The application's pointer.
    pub srq_context: *mut c_void,
    pub pd: *mut ibv_pd,
    pub handle: u32,
    pub mutex: libc::pthread_mutex_t,
    pub cond: libc::pthread_cond_t,
    pub events_completed: u32,
}

const _: () = {
    assert!(size_of::<ibv_srq_attr>() == 12);
    assert!(size_of::<ibv_srq_init_attr>() == 24);
    assert!(size_of::<ibv_srq_init_attr_ex>() == 64);
    assert!(offset_of!(ibv_srq_init_attr_ex, comp_mask) == 20);
    assert!(offset_of!(ibv_srq_init_attr_ex, pd) == 32);
    assert!(offset_of!(ibv_srq_init_attr_ex, tm_cap) == 56);
    assert!(size_of::<ibv_ops_wr>() == 72);
    assert!(offset_of!(ibv_ops_wr, tm) == 24);
    assert!(offset_of!(ibv_ops_wr_tm, add) == 8);
    assert!(offset_of!(ibv_ops_wr_tm_add, tag) == 24);
    assert!(size_of::<ibv_srq>() == 128);
    assert!(offset_of!(ibv_srq, mutex) == 32);
    assert!(offset_of!(ibv_srq, events_completed) == 120);
};
