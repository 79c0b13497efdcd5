//! Completion queues and work completions: `ibv_create_cq(3)`, `ibv_create_cq_ex(3)`, `ibv_poll_cq(3)`,
//! `ibv_create_comp_channel(3)`, `ibv_modify_cq(3)`.

use super::*;
use std::ffi::{c_int, c_uint, c_void};
use std::mem::{offset_of, size_of};

/// The outcome of a work request (`ibv_wc.status`; text: `ibv_wc_status_str(3)`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_wc_status {
    IBV_WC_SUCCESS,
    IBV_WC_LOC_LEN_ERR,
    IBV_WC_LOC_QP_OP_ERR,
    IBV_WC_LOC_EEC_OP_ERR,
    IBV_WC_LOC_PROT_ERR,
    IBV_WC_WR_FLUSH_ERR,
    IBV_WC_MW_BIND_ERR,
    IBV_WC_BAD_RESP_ERR,
    IBV_WC_LOC_ACCESS_ERR,
    IBV_WC_REM_INV_REQ_ERR,
    IBV_WC_REM_ACCESS_ERR,
    IBV_WC_REM_OP_ERR,
    IBV_WC_RETRY_EXC_ERR,
    IBV_WC_RNR_RETRY_EXC_ERR,
    IBV_WC_LOC_RDD_VIOL_ERR,
    IBV_WC_REM_INV_RD_REQ_ERR,
    IBV_WC_REM_ABORT_ERR,
    IBV_WC_INV_EECN_ERR,
    IBV_WC_INV_EEC_STATE_ERR,
    IBV_WC_FATAL_ERR,
    IBV_WC_RESP_TIMEOUT_ERR,
    IBV_WC_GENERAL_ERR,
    IBV_WC_TM_ERR,
    IBV_WC_TM_RNDV_INCOMPLETE,
}

/// The operation a completion reports (`ibv_wc.opcode`). Receive completions have bit 7 set, so
/// `opcode & IBV_WC_RECV` tells sends from receives.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_wc_opcode {
    IBV_WC_SEND,
    IBV_WC_RDMA_WRITE,
    IBV_WC_RDMA_READ,
    IBV_WC_COMP_SWAP,
    IBV_WC_FETCH_ADD,
    IBV_WC_BIND_MW,
    IBV_WC_LOCAL_INV,
    IBV_WC_TSO,
    /// An RDMA FLUSH completed (rdma-core 56).
    IBV_WC_FLUSH,
    IBV_WC_ATOMIC_WRITE = 9,
    IBV_WC_RECV = 1 << 7,
    IBV_WC_RECV_RDMA_WITH_IMM,
    IBV_WC_TM_ADD,
    IBV_WC_TM_DEL,
    IBV_WC_TM_SYNC,
    IBV_WC_TM_RECV,
    IBV_WC_TM_NO_TAG,
    IBV_WC_DRIVER1,
    IBV_WC_DRIVER2,
    IBV_WC_DRIVER3,
}

/// The bit position of `IBV_WC_IP_CSUM_OK` (C: an enumerator of an untagged enum).
/// cbindgen:ignore
pub const IBV_WC_IP_CSUM_OK_SHIFT: u32 = 2;

/// The fields an extended CQ reports (`ibv_cq_init_attr_ex.wc_flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_create_cq_wc_flags {
    IBV_WC_EX_WITH_BYTE_LEN = 1 << 0,
    IBV_WC_EX_WITH_IMM = 1 << 1,
    IBV_WC_EX_WITH_QP_NUM = 1 << 2,
    IBV_WC_EX_WITH_SRC_QP = 1 << 3,
    IBV_WC_EX_WITH_SLID = 1 << 4,
    IBV_WC_EX_WITH_SL = 1 << 5,
    IBV_WC_EX_WITH_DLID_PATH_BITS = 1 << 6,
    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP = 1 << 7,
    IBV_WC_EX_WITH_CVLAN = 1 << 8,
    IBV_WC_EX_WITH_FLOW_TAG = 1 << 9,
    IBV_WC_EX_WITH_TM_INFO = 1 << 10,
    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK = 1 << 11,
}

/// The `wc_flags` of the fields a `struct ibv_wc` has (C: an enumerator of an untagged enum).
/// cbindgen:ignore
pub const IBV_WC_STANDARD_FLAGS: u64 = 0x7f;
/// Every `wc_flags` bit `ibv_create_cq_ex(3)` knows (C: an enumerator of an untagged enum).
/// cbindgen:ignore
pub const IBV_CREATE_CQ_SUP_WC_FLAGS: u64 = 0xfff;

/// Completion flags (`ibv_wc.wc_flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_wc_flags {
    /// A GRH is present in the first 40 bytes of the receive buffer.
    IBV_WC_GRH = 1 << 0,
    /// `imm_data` is valid.
    IBV_WC_WITH_IMM = 1 << 1,
    /// The IP checksum was verified.
    IBV_WC_IP_CSUM_OK = 1 << 2,
    /// `invalidated_rkey` is valid.
    IBV_WC_WITH_INV = 1 << 3,
    IBV_WC_TM_SYNC_REQ = 1 << 4,
    IBV_WC_TM_MATCH = 1 << 5,
    IBV_WC_TM_DATA_VALID = 1 << 6,
}

/// C's untagged union in `struct ibv_wc` (Rust field `imm`).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_wc_imm {
    /// Immediate data, network order (with `IBV_WC_WITH_IMM`).
    pub imm_data: __be32,
    /// The rkey a send-with-invalidate invalidated (with `IBV_WC_WITH_INV`).
    pub invalidated_rkey: u32,
}

/// A work completion (`ibv_poll_cq(3)`). C text: `verbs.h.post`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wc {
    /// The `wr_id` of the completed work request.
    pub wr_id: u64,
    pub status: ibv_wc_status,
    pub opcode: ibv_wc_opcode,
    pub vendor_err: u32,
    /// Bytes received.
    pub byte_len: u32,
    /// C: the untagged `imm_data` / `invalidated_rkey` union.
    pub imm: ibv_wc_imm,
    /// The local QP number.
    pub qp_num: u32,
    /// The remote QP number (UD).
    pub src_qp: u32,
    /// `enum ibv_wc_flags` bits.
    pub wc_flags: c_uint,
    pub pkey_index: u16,
    /// The source LID (UD).
    pub slid: u16,
    /// The service level (UD).
    pub sl: u8,
    pub dlid_path_bits: u8,
}

/// A completion event channel (`ibv_create_comp_channel(3)`).
#[repr(C)]
pub struct ibv_comp_channel {
    pub context: *mut ibv_context,
    /// The file descriptor to wait on.
    pub fd: c_int,
    /// CQs using this channel.
    pub refcnt: c_int,
}

/// A completion queue (`ibv_create_cq(3)`).
#[repr(C)]
pub struct ibv_cq {
    pub context: *mut ibv_context,
    pub channel: *mut ibv_comp_channel,
    /// The application's pointer, returned by `ibv_get_cq_event(3)`.
    pub cq_context: *mut c_void,
    pub handle: u32,
    /// Capacity in entries.
    pub cqe: c_int,
    pub mutex: libc::pthread_mutex_t,
    pub cond: libc::pthread_cond_t,
    pub comp_events_completed: u32,
    pub async_events_completed: u32,
}

/// Input of `ibv_start_poll(3)` (`comp_mask` must be 0).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_poll_cq_attr {
    pub comp_mask: u32,
}

/// Tag-matching information of a completion.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_wc_tm_info {
    /// The tag of the TMH.
    pub tag: u64,
    /// The application data of the TMH.
    pub r#priv: u32,
}

/// An extended completion queue (`ibv_create_cq_ex(3)`): a `struct ibv_cq` followed by the polling functions.
/// The `ibv_start_poll` family of inline functions calls them.
#[repr(C)]
pub struct ibv_cq_ex {
    pub context: *mut ibv_context,
    pub channel: *mut ibv_comp_channel,
    pub cq_context: *mut c_void,
    pub handle: u32,
    pub cqe: c_int,
    pub mutex: libc::pthread_mutex_t,
    pub cond: libc::pthread_cond_t,
    pub comp_events_completed: u32,
    pub async_events_completed: u32,
    pub comp_mask: u32,
    /// Status of the current completion.
    pub status: ibv_wc_status,
    /// `wr_id` of the current completion.
    pub wr_id: u64,
    pub start_poll: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex, attr: *mut ibv_poll_cq_attr) -> c_int>,
    pub next_poll: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> c_int>,
    pub end_poll: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex)>,
    pub read_opcode: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> ibv_wc_opcode>,
    pub read_vendor_err: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_byte_len: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_imm_data: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> __be32>,
    pub read_qp_num: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_src_qp: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_wc_flags: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> c_uint>,
    pub read_slid: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_sl: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u8>,
    pub read_dlid_path_bits: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u8>,
    pub read_completion_ts: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u64>,
    pub read_cvlan: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u16>,
    pub read_flow_tag: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_tm_info: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex, tm_info: *mut ibv_wc_tm_info)>,
    pub read_completion_wallclock_ns: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u64>,
}

/// Attributes `ibv_modify_cq(3)` changes (`ibv_modify_cq_attr.attr_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_cq_attr_mask {
    IBV_CQ_ATTR_MODERATE = 1 << 0,
    IBV_CQ_ATTR_RESERVED = 1 << 1,
}

/// CQ moderation: raise an event after `cq_count` completions or `cq_period` microseconds.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_moderate_cq {
    pub cq_count: u16,
    /// Microseconds.
    pub cq_period: u16,
}

/// Input of `ibv_modify_cq(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_modify_cq_attr {
    /// `enum ibv_cq_attr_mask` bits.
    pub attr_mask: u32,
    pub moderate: ibv_moderate_cq,
}

/// Optional fields of `ibv_cq_init_attr_ex` (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_cq_init_attr_mask {
    IBV_CQ_INIT_ATTR_MASK_FLAGS = 1 << 0,
    IBV_CQ_INIT_ATTR_MASK_PD = 1 << 1,
}

/// Creation flags of an extended CQ (`ibv_cq_init_attr_ex.flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_create_cq_attr_flags {
    /// The CQ is polled from one thread only: no locking.
    IBV_CREATE_CQ_ATTR_SINGLE_THREADED = 1 << 0,
    /// Overruns are not reported.
    IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN = 1 << 1,
}

/// Input of `ibv_create_cq_ex(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_cq_init_attr_ex {
    /// Minimum number of entries.
    pub cqe: u32,
    /// Returned by `ibv_get_cq_event(3)`.
    pub cq_context: *mut c_void,
    /// Where completion events go, or NULL.
    pub channel: *mut ibv_comp_channel,
    /// Completion vector, below `context->num_comp_vectors`.
    pub comp_vector: u32,
    /// `enum ibv_create_cq_wc_flags` bits.
    pub wc_flags: u64,
    /// `enum ibv_cq_init_attr_mask` bits.
    pub comp_mask: u32,
    /// `enum ibv_create_cq_attr_flags` bits.
    pub flags: u32,
    /// A parent domain (with `IBV_CQ_INIT_ATTR_MASK_PD`).
    pub parent_domain: *mut ibv_pd,
}

const _: () = {
    assert!(IBV_WC_STANDARD_FLAGS == (1 << 7) - 1);
    assert!(IBV_CREATE_CQ_SUP_WC_FLAGS == (1 << 12) - 1);
    assert!(size_of::<ibv_wc>() == 48);
    assert!(offset_of!(ibv_wc, imm) == 24);
    assert!(offset_of!(ibv_wc, wc_flags) == 36);
    assert!(offset_of!(ibv_wc, sl) == 44);
    assert!(size_of::<ibv_comp_channel>() == 16);
    assert!(size_of::<ibv_cq>() == 128);
    assert!(offset_of!(ibv_cq, mutex) == 32);
    assert!(offset_of!(ibv_cq, cond) == 72);
    assert!(offset_of!(ibv_cq, comp_events_completed) == 120);
    assert!(size_of::<ibv_wc_tm_info>() == 16);
    assert!(size_of::<ibv_cq_ex>() == 288);
    assert!(offset_of!(ibv_cq_ex, comp_mask) == 128);
    assert!(offset_of!(ibv_cq_ex, wr_id) == 136);
    assert!(offset_of!(ibv_cq_ex, start_poll) == 144);
    assert!(offset_of!(ibv_cq_ex, read_completion_wallclock_ns) == 280);
    assert!(size_of::<ibv_modify_cq_attr>() == 8);
    assert!(size_of::<ibv_cq_init_attr_ex>() == 56);
    assert!(offset_of!(ibv_cq_init_attr_ex, wc_flags) == 32);
    assert!(offset_of!(ibv_cq_init_attr_ex, parent_domain) == 48);
};
