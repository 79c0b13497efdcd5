//! Queue pairs and work requests: `ibv_create_qp(3)`, `ibv_create_qp_ex(3)`, `ibv_modify_qp(3)`,
//! `ibv_query_qp(3)`, `ibv_open_qp(3)`, `ibv_post_send(3)`, `ibv_post_recv(3)`, `ibv_wr_post(3)`,
//! `ibv_set_ece(3)`.
//!
//! [`ibv_send_wr`]'s C unions are read through its accessor methods (`wr.rdma()`, `wr.ud()`, ...), the one place
//! the providers name their Rust members.
#![allow(unsafe_code)]

use super::*;
use std::ffi::{c_int, c_uint, c_void};
use std::mem::{offset_of, size_of};

/// Queue-pair transport types.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_qp_type {
    IBV_QPT_RC = 2,
    IBV_QPT_UC,
    IBV_QPT_UD,
    IBV_QPT_RAW_PACKET = 8,
    IBV_QPT_XRC_SEND = 9,
    IBV_QPT_XRC_RECV,
    IBV_QPT_DRIVER = 0xff,
}

/// Queue-pair capacities (requested at creation, actual on return).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_qp_cap {
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    /// Bytes of inline data a send may carry.
    pub max_inline_data: u32,
}

/// Input of `ibv_create_qp(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_qp_init_attr {
    /// The application's pointer, kept in `ibv_qp.qp_context`.
    pub qp_context: *mut c_void,
    pub send_cq: *mut ibv_cq,
    pub recv_cq: *mut ibv_cq,
    /// A shared receive queue, or NULL.
    pub srq: *mut ibv_srq,
    pub cap: ibv_qp_cap,
    pub qp_type: ibv_qp_type,
    /// Non-zero: every send work request generates a completion.
    pub sq_sig_all: c_int,
}

/// Fields of `ibv_qp_init_attr_ex` that are set (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_qp_init_attr_mask {
    IBV_QP_INIT_ATTR_PD = 1 << 0,
    IBV_QP_INIT_ATTR_XRCD = 1 << 1,
    IBV_QP_INIT_ATTR_CREATE_FLAGS = 1 << 2,
    IBV_QP_INIT_ATTR_MAX_TSO_HEADER = 1 << 3,
    IBV_QP_INIT_ATTR_IND_TABLE = 1 << 4,
    IBV_QP_INIT_ATTR_RX_HASH = 1 << 5,
    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6,
}

/// Queue-pair creation flags (`ibv_qp_init_attr_ex.create_flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_qp_create_flags {
    IBV_QP_CREATE_BLOCK_SELF_MCAST_LB = 1 << 1,
    IBV_QP_CREATE_SCATTER_FCS = 1 << 8,
    IBV_QP_CREATE_CVLAN_STRIPPING = 1 << 9,
    IBV_QP_CREATE_SOURCE_QPN = 1 << 10,
    IBV_QP_CREATE_PCI_WRITE_END_PADDING = 1 << 11,
}

/// The `ibv_wr_*` operations an extended QP will use (`ibv_qp_init_attr_ex.send_ops_flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_qp_create_send_ops_flags {
    IBV_QP_EX_WITH_RDMA_WRITE = 1 << 0,
    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM = 1 << 1,
    IBV_QP_EX_WITH_SEND = 1 << 2,
    IBV_QP_EX_WITH_SEND_WITH_IMM = 1 << 3,
    IBV_QP_EX_WITH_RDMA_READ = 1 << 4,
    IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP = 1 << 5,
    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD = 1 << 6,
    IBV_QP_EX_WITH_LOCAL_INV = 1 << 7,
    IBV_QP_EX_WITH_BIND_MW = 1 << 8,
    IBV_QP_EX_WITH_SEND_WITH_INV = 1 << 9,
    IBV_QP_EX_WITH_TSO = 1 << 10,
    /// `ibv_wr_flush` (rdma-core 56).
    IBV_QP_EX_WITH_FLUSH = 1 << 11,
    IBV_QP_EX_WITH_ATOMIC_WRITE = 1 << 12,
}

/// RX hash configuration of an RSS QP.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_rx_hash_conf {
    /// An `enum ibv_rx_hash_function_flags` value.
    pub rx_hash_function: u8,
    pub rx_hash_key_len: u8,
    pub rx_hash_key: *mut u8,
    /// `enum ibv_rx_hash_fields` bits.
    pub rx_hash_fields_mask: u64,
}

/// Input of `ibv_create_qp_ex(3)`; starts like `ibv_qp_init_attr`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_qp_init_attr_ex {
    pub qp_context: *mut c_void,
    pub send_cq: *mut ibv_cq,
    pub recv_cq: *mut ibv_cq,
    pub srq: *mut ibv_srq,
    pub cap: ibv_qp_cap,
    pub qp_type: ibv_qp_type,
    pub sq_sig_all: c_int,
    /// `enum ibv_qp_init_attr_mask` bits.
    pub comp_mask: u32,
    pub pd: *mut ibv_pd,
    pub xrcd: *mut ibv_xrcd,
    /// `enum ibv_qp_create_flags` bits.
    pub create_flags: u32,
    pub max_tso_header: u16,
    pub rwq_ind_tbl: *mut ibv_rwq_ind_table,
    pub rx_hash_conf: ibv_rx_hash_conf,
    /// With `IBV_QP_CREATE_SOURCE_QPN`: the QP number to send as.
    pub source_qpn: u32,
    /// `enum ibv_qp_create_send_ops_flags` bits.
    pub send_ops_flags: u64,
}

/// Fields of `ibv_qp_open_attr` that are set (`comp_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_qp_open_attr_mask {
    IBV_QP_OPEN_ATTR_NUM = 1 << 0,
    IBV_QP_OPEN_ATTR_XRCD = 1 << 1,
    IBV_QP_OPEN_ATTR_CONTEXT = 1 << 2,
    IBV_QP_OPEN_ATTR_TYPE = 1 << 3,
    IBV_QP_OPEN_ATTR_RESERVED = 1 << 4,
}

/// Input of `ibv_open_qp(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_qp_open_attr {
    /// `enum ibv_qp_open_attr_mask` bits.
    pub comp_mask: u32,
    pub qp_num: u32,
    pub xrcd: *mut ibv_xrcd,
    pub qp_context: *mut c_void,
    pub qp_type: ibv_qp_type,
}

/// Attributes `ibv_modify_qp(3)` changes and `ibv_query_qp(3)` reads (`attr_mask`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_qp_attr_mask {
    IBV_QP_STATE = 1 << 0,
    IBV_QP_CUR_STATE = 1 << 1,
    IBV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
    IBV_QP_ACCESS_FLAGS = 1 << 3,
    IBV_QP_PKEY_INDEX = 1 << 4,
    IBV_QP_PORT = 1 << 5,
    IBV_QP_QKEY = 1 << 6,
    IBV_QP_AV = 1 << 7,
    IBV_QP_PATH_MTU = 1 << 8,
    IBV_QP_TIMEOUT = 1 << 9,
    IBV_QP_RETRY_CNT = 1 << 10,
    IBV_QP_RNR_RETRY = 1 << 11,
    IBV_QP_RQ_PSN = 1 << 12,
    IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13,
    IBV_QP_ALT_PATH = 1 << 14,
    IBV_QP_MIN_RNR_TIMER = 1 << 15,
    IBV_QP_SQ_PSN = 1 << 16,
    IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
    IBV_QP_PATH_MIG_STATE = 1 << 18,
    IBV_QP_CAP = 1 << 19,
    IBV_QP_DEST_QPN = 1 << 20,
    // Bits 21-24 (source MAC and VLAN) were kernel-only and are never exposed.
    IBV_QP_RATE_LIMIT = 1 << 25,
}

/// The `flags` of `ibv_query_qp_data_in_order(3)` (rdma-core 56 and 65).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_query_qp_data_in_order_flags {
    /// Return the `enum ibv_query_qp_data_in_order_caps` bits instead of 0/1 (rdma-core 56).
    IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS = 1 << 0,
    /// Ask the device even where the CPU's ordering is not known to preserve it, i.e. off x86 (rdma-core 65).
    IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY = 1 << 1,
}

/// What `ibv_query_qp_data_in_order(3)` reports with `IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS` (rdma-core 56).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_query_qp_data_in_order_caps {
    /// A whole message's data is written in order.
    IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG = 1 << 0,
    /// Each aligned 128-byte block is written in order (implied by `WHOLE_MSG`).
    IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES = 1 << 1,
}

/// Queue-pair states.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_qp_state {
    IBV_QPS_RESET,
    IBV_QPS_INIT,
    /// Ready to receive.
    IBV_QPS_RTR,
    /// Ready to send.
    IBV_QPS_RTS,
    /// Send queue drained.
    IBV_QPS_SQD,
    /// Send queue error.
    IBV_QPS_SQE,
    IBV_QPS_ERR,
    IBV_QPS_UNKNOWN,
}

/// Automatic path migration states.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_mig_state {
    IBV_MIG_MIGRATED,
    IBV_MIG_REARM,
    IBV_MIG_ARMED,
}

/// Queue-pair attributes (`ibv_modify_qp(3)`, `ibv_query_qp(3)`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_attr {
    pub qp_state: ibv_qp_state,
    pub cur_qp_state: ibv_qp_state,
    pub path_mtu: ibv_mtu,
    pub path_mig_state: ibv_mig_state,
    pub qkey: u32,
    pub rq_psn: u32,
    pub sq_psn: u32,
    pub dest_qp_num: u32,
    /// `enum ibv_access_flags` bits for remote access.
    pub qp_access_flags: c_uint,
    pub cap: ibv_qp_cap,
    pub ah_attr: ibv_ah_attr,
    pub alt_ah_attr: ibv_ah_attr,
    pub pkey_index: u16,
    pub alt_pkey_index: u16,
    pub en_sqd_async_notify: u8,
    pub sq_draining: u8,
    pub max_rd_atomic: u8,
    pub max_dest_rd_atomic: u8,
    pub min_rnr_timer: u8,
    pub port_num: u8,
    /// Local ACK timeout: 4.096 us * 2^timeout.
    pub timeout: u8,
    pub retry_cnt: u8,
    /// 7 means infinite.
    pub rnr_retry: u8,
    pub alt_port_num: u8,
    pub alt_timeout: u8,
    /// kbps, 0 for unlimited.
    pub rate_limit: u32,
}

/// Input of `ibv_modify_qp_rate_limit(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_qp_rate_limit_attr {
    /// kbps.
    pub rate_limit: u32,
    /// Bytes.
    pub max_burst_sz: u32,
    /// Bytes.
    pub typical_pkt_sz: u16,
    pub comp_mask: u32,
}

/// Send work request operations (`ibv_send_wr.opcode`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_wr_opcode {
    IBV_WR_RDMA_WRITE,
    IBV_WR_RDMA_WRITE_WITH_IMM,
    IBV_WR_SEND,
    IBV_WR_SEND_WITH_IMM,
    IBV_WR_RDMA_READ,
    IBV_WR_ATOMIC_CMP_AND_SWP,
    IBV_WR_ATOMIC_FETCH_AND_ADD,
    IBV_WR_LOCAL_INV,
    IBV_WR_BIND_MW,
    IBV_WR_SEND_WITH_INV,
    IBV_WR_TSO,
    IBV_WR_DRIVER1,
    /// RDMA FLUSH of a remote range or region (rdma-core 56; Linux 6.2 on Soft-RoCE).
    IBV_WR_FLUSH = 14,
    IBV_WR_ATOMIC_WRITE = 15,
}

/// Send work request flags (`ibv_send_wr.send_flags`, `ibv_qp_ex.wr_flags`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_send_flags {
    IBV_SEND_FENCE = 1 << 0,
    /// Generate a completion.
    IBV_SEND_SIGNALED = 1 << 1,
    IBV_SEND_SOLICITED = 1 << 2,
    /// Copy the data into the WQE: the buffers are reusable on return.
    IBV_SEND_INLINE = 1 << 3,
    IBV_SEND_IP_CSUM = 1 << 4,
}

/// Where an RDMA FLUSH makes data durable (`ibv_wr_flush(3)`'s `type`; rdma-core 56).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_placement_type {
    /// Globally visible.
    IBV_FLUSH_GLOBAL = 1 << 0,
    /// Persistent.
    IBV_FLUSH_PERSISTENT = 1 << 1,
}

/// What an RDMA FLUSH covers (`ibv_wr_flush(3)`'s `level`; rdma-core 56).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ibv_selectivity_level {
    /// The given range.
    IBV_FLUSH_RANGE = 0,
    /// The whole memory region.
    IBV_FLUSH_MR,
}

/// A buffer of `ibv_wr_set_inline_data_list(3)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_data_buf {
    pub addr: *mut c_void,
    pub length: usize,
}

/// A scatter/gather element.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_sge {
    pub addr: u64,
    pub length: u32,
    /// The lkey of the region containing the buffer.
    pub lkey: u32,
}

/// An array of file descriptors (rdma-core 65: what a provider hands `ibv_cmd_get_context` for the kernel).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_fd_arr {
    pub arr: *mut c_int,
    pub count: u32,
}

/// C's first untagged union of `struct ibv_send_wr` (Rust field `imm`).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_imm {
    /// Immediate data, network order (`*_WITH_IMM` opcodes).
    pub imm_data: __be32,
    /// The rkey to invalidate (`*_INV` opcodes).
    pub invalidate_rkey: u32,
}

/// C's unnamed struct type of `ibv_send_wr.wr.rdma`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_send_wr_rdma {
    pub remote_addr: u64,
    pub rkey: u32,
}

/// C's unnamed struct type of `ibv_send_wr.wr.atomic`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_send_wr_atomic {
    pub remote_addr: u64,
    /// The value to compare with, or to add.
    pub compare_add: u64,
    pub swap: u64,
    pub rkey: u32,
}

/// C's unnamed struct type of `ibv_send_wr.wr.ud`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_send_wr_ud {
    pub ah: *mut ibv_ah,
    pub remote_qpn: u32,
    pub remote_qkey: u32,
}

/// C's unnamed union type of `ibv_send_wr.wr`: the operation's remote side.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_wr {
    pub rdma: ibv_send_wr_rdma,
    pub atomic: ibv_send_wr_atomic,
    pub ud: ibv_send_wr_ud,
}

/// C's unnamed struct type of `ibv_send_wr.qp_type.xrc`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_send_wr_xrc {
    pub remote_srqn: u32,
}

/// C's unnamed union type of `ibv_send_wr.qp_type`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_qp_type {
    pub xrc: ibv_send_wr_xrc,
}

/// C's unnamed struct type of the `bind_mw` member of `struct ibv_send_wr`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_send_wr_bind_mw {
    pub mw: *mut ibv_mw,
    pub rkey: u32,
    pub bind_info: ibv_mw_bind_info,
}

/// C's unnamed struct type of the `tso` member of `struct ibv_send_wr`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_send_wr_tso {
    pub hdr: *mut c_void,
    pub hdr_sz: u16,
    pub mss: u16,
}

/// C's last untagged union of `struct ibv_send_wr` (Rust field `ext`).
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_ext {
    pub bind_mw: ibv_send_wr_bind_mw,
    pub tso: ibv_send_wr_tso,
}

/// A send work request (`ibv_post_send(3)`). C text: `verbs.h.post`.
/// cbindgen:ignore
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr {
    pub wr_id: u64,
    /// The next request of the list, or NULL.
    pub next: *mut ibv_send_wr,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
    pub opcode: ibv_wr_opcode,
    /// `enum ibv_send_flags` bits.
    pub send_flags: c_uint,
    /// C: the untagged `imm_data` / `invalidate_rkey` union.
    pub imm: ibv_send_wr_imm,
    pub wr: ibv_send_wr_wr,
    pub qp_type: ibv_send_wr_qp_type,
    /// C: the untagged `bind_mw` / `tso` union.
    pub ext: ibv_send_wr_ext,
}

/// Reads of the C unions of `struct ibv_send_wr`: each is C's member access (`wr->wr.rdma`, ...), the member the
/// WR's opcode (or its QP's type) says is meant. Every member is integers and raw pointers, so any bit pattern read
/// through the wrong one is still a valid value, just a meaningless one: the reads are safe. Inlined always: the
/// providers' post paths are measured per instruction.
impl ibv_send_wr {
    /// `wr->imm_data` (network order; the same 4 bytes as [`Self::invalidate_rkey`]).
    #[inline(always)]
    pub fn imm_data(&self) -> __be32 {
        // SAFETY: both members are u32; any bit pattern is valid.
        unsafe { self.imm.imm_data }
    }

    /// `wr->invalidate_rkey` (the same 4 bytes as [`Self::imm_data`]).
    #[inline(always)]
    pub fn invalidate_rkey(&self) -> u32 {
        // SAFETY: both members are u32; any bit pattern is valid.
        unsafe { self.imm.invalidate_rkey }
    }

    /// `wr->wr.rdma`: `remote_addr` and `rkey` of an RDMA write or read.
    #[inline(always)]
    pub fn rdma(&self) -> ibv_send_wr_rdma {
        // SAFETY: plain integers; any bit pattern is valid.
        unsafe { self.wr.rdma }
    }

    /// `wr->wr.atomic`: the remote side and operands of an atomic.
    #[inline(always)]
    pub fn atomic(&self) -> ibv_send_wr_atomic {
        // SAFETY: plain integers; any bit pattern is valid.
        unsafe { self.wr.atomic }
    }

    /// `wr->wr.ud`: the address handle and remote QP of a UD send.
    #[inline(always)]
    pub fn ud(&self) -> ibv_send_wr_ud {
        // SAFETY: a raw pointer and integers; any bit pattern is valid.
        unsafe { self.wr.ud }
    }

    /// `wr->bind_mw` (the union with `tso`): the MW, its new rkey and the bind info of a bind-MW WR.
    #[inline(always)]
    pub fn bind_mw(&self) -> ibv_send_wr_bind_mw {
        // SAFETY: raw pointers and integers; any bit pattern is valid.
        unsafe { self.ext.bind_mw }
    }
}

/// A receive work request (`ibv_post_recv(3)`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ibv_recv_wr {
    pub wr_id: u64,
    /// The next request of the list, or NULL.
    pub next: *mut ibv_recv_wr,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
}

/// A queue pair (`ibv_create_qp(3)`).
#[repr(C)]
pub struct ibv_qp {
    pub context: *mut ibv_context,
    /// The application's pointer.
    pub qp_context: *mut c_void,
    pub pd: *mut ibv_pd,
    pub send_cq: *mut ibv_cq,
    pub recv_cq: *mut ibv_cq,
    pub srq: *mut ibv_srq,
    pub handle: u32,
    pub qp_num: u32,
    pub state: ibv_qp_state,
    pub qp_type: ibv_qp_type,
    pub mutex: libc::pthread_mutex_t,
    pub cond: libc::pthread_cond_t,
    pub events_completed: u32,
}

/// An extended queue pair (`ibv_qp_to_qp_ex(3)`): a `struct ibv_qp` followed by the work-request builder
/// functions the `ibv_wr_*` inline functions call (`ibv_wr_post(3)`).
#[repr(C)]
pub struct ibv_qp_ex {
    pub qp_base: ibv_qp,
    pub comp_mask: u64,
    /// `wr_id` of the next work request.
    pub wr_id: u64,
    /// `enum ibv_send_flags` bits of the next work request.
    pub wr_flags: c_uint,
    pub wr_atomic_cmp_swp:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, compare: u64, swap: u64)>,
    pub wr_atomic_fetch_add: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, add: u64)>,
    pub wr_bind_mw: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp_ex, mw: *mut ibv_mw, rkey: u32, bind_info: *const ibv_mw_bind_info),
    >,
    pub wr_local_inv: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, invalidate_rkey: u32)>,
    pub wr_rdma_read: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64)>,
    pub wr_rdma_write: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64)>,
    pub wr_rdma_write_imm:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, imm_data: __be32)>,
    pub wr_send: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex)>,
    pub wr_send_imm: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, imm_data: __be32)>,
    pub wr_send_inv: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, invalidate_rkey: u32)>,
    pub wr_send_tso: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, hdr: *mut c_void, hdr_sz: u16, mss: u16)>,
    pub wr_set_ud_addr:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, ah: *mut ibv_ah, remote_qpn: u32, remote_qkey: u32)>,
    pub wr_set_xrc_srqn: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, remote_srqn: u32)>,
    pub wr_set_inline_data: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, addr: *mut c_void, length: usize)>,
    pub wr_set_inline_data_list:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, num_buf: usize, buf_list: *const ibv_data_buf)>,
    pub wr_set_sge: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, lkey: u32, addr: u64, length: u32)>,
    pub wr_set_sge_list: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, num_sge: usize, sg_list: *const ibv_sge)>,
    pub wr_start: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex)>,
    pub wr_complete: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex) -> c_int>,
    pub wr_abort: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex)>,
    pub wr_atomic_write:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, atomic_wr: *const c_void)>,
    /// rdma-core 56: the struct grew by this slot (352 -> 360 bytes). Only QPs created with
    /// `IBV_QP_EX_WITH_FLUSH` have it set; a plug-in built against rdma-core 44 has a 352-byte `ibv_qp_ex`.
    pub wr_flush: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, len: usize, r#type: u8, level: u8),
    >,
}

/// Enhanced connection establishment options (`ibv_set_ece(3)`, `ibv_query_ece(3)`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ibv_ece {
    /// The provider's IEEE OUI.
    pub vendor_id: u32,
    /// Provider-specific option bits.
    pub options: u32,
    pub comp_mask: u32,
}

const _: () = {
    assert!(size_of::<ibv_qp_cap>() == 20);
    assert!(size_of::<ibv_qp_init_attr>() == 64 && offset_of!(ibv_qp_init_attr, qp_type) == 52);
    assert!(size_of::<ibv_rx_hash_conf>() == 24);
    assert!(size_of::<ibv_qp_init_attr_ex>() == 136);
    assert!(offset_of!(ibv_qp_init_attr_ex, comp_mask) == 60);
    assert!(offset_of!(ibv_qp_init_attr_ex, create_flags) == 80);
    assert!(offset_of!(ibv_qp_init_attr_ex, rwq_ind_tbl) == 88);
    assert!(offset_of!(ibv_qp_init_attr_ex, source_qpn) == 120);
    assert!(offset_of!(ibv_qp_init_attr_ex, send_ops_flags) == 128);
    assert!(size_of::<ibv_qp_open_attr>() == 32);
    assert!(size_of::<ibv_qp_attr>() == 144);
    assert!(offset_of!(ibv_qp_attr, cap) == 36);
    assert!(offset_of!(ibv_qp_attr, ah_attr) == 56);
    assert!(offset_of!(ibv_qp_attr, alt_ah_attr) == 88);
    assert!(offset_of!(ibv_qp_attr, pkey_index) == 120);
    assert!(offset_of!(ibv_qp_attr, alt_timeout) == 134);
    assert!(offset_of!(ibv_qp_attr, rate_limit) == 136);
    assert!(size_of::<ibv_qp_rate_limit_attr>() == 16);
    assert!(size_of::<ibv_sge>() == 16);
    assert!(size_of::<ibv_send_wr>() == 128);
    assert!(offset_of!(ibv_send_wr, imm) == 36);
    assert!(offset_of!(ibv_send_wr, wr) == 40);
    assert!(offset_of!(ibv_send_wr, qp_type) == 72);
    assert!(offset_of!(ibv_send_wr, ext) == 80);
    assert!(size_of::<ibv_send_wr_bind_mw>() == 48);
    assert!(size_of::<ibv_recv_wr>() == 32);
    assert!(size_of::<ibv_qp>() == 160);
    assert!(offset_of!(ibv_qp, state) == 56);
    assert!(offset_of!(ibv_qp, mutex) == 64);
    assert!(offset_of!(ibv_qp, events_completed) == 152);
    assert!(size_of::<ibv_qp_ex>() == 360);
    assert!(offset_of!(ibv_qp_ex, wr_flush) == 352);
    assert!(size_of::<ibv_fd_arr>() == 16);
    assert!(offset_of!(ibv_qp_ex, wr_flags) == 176);
    assert!(offset_of!(ibv_qp_ex, wr_atomic_cmp_swp) == 184);
    assert!(offset_of!(ibv_qp_ex, wr_atomic_write) == 344);
    assert!(size_of::<ibv_ece>() == 12);
};
