//! The kernel's Soft-iWARP user ABI (`<rdma/siw-abi.h>`) as the siw provider uses it, with every offset the data
//! path relies on asserted at compile time.
//!
//! The structs are bindgen's (`rdma_common::uapi::siw_abi`, from Linux 6.1's header; the header has not changed
//! since siw was merged in 5.3, and 6.12's is identical). Their anonymous unions get bindgen's `__bindgen_anon_*`
//! names; the data path writes the slots through the byte offsets below instead, so nothing outside this file
//! names a union member.
//!
//! ```text
//! struct siw_sqe (120 bytes)        struct siw_rqe (112 bytes)       struct siw_cqe (32 bytes)
//!   0  id        u64                  0  id       u64                  0  id          u64
//!   8  flags     u16  <- ownership    8  flags    u16  <- ownership    8  flags       u8   <- ownership
//!  10  num_sge   u8                  10  num_sge  u8                   9  opcode      u8
//!  11  opcode    u8                  11  opcode   u8 (kernel's)       10  status      u16
//!  12  rkey      u32                 12  unused   u32                 12  bytes       u32
//!  16  raddr     u64                 16  sge[6]   16 bytes each       16  imm_data    u64 / inval_stag u32
//!  24  sge[6]    16 bytes each                                        24  qp_id       u64
//!      (inline data: sge[1..], 80 bytes; its length in sge[0].length)
//! ```
//!
//! A CQ's mapping is `num_cqe` CQEs followed by one `struct siw_cq_ctrl` (the notification word).
#![allow(non_camel_case_types)]

use crate::provider::verbs::ibv_sge;
use std::mem::{offset_of, size_of};

pub use rdma_common::uapi::siw_abi::{
    siw_cq_ctrl, siw_cqe, siw_rqe, siw_sge, siw_sqe, siw_ureq_reg_mr, siw_uresp_alloc_ctx, siw_uresp_create_cq,
    siw_uresp_create_qp, siw_uresp_create_srq, siw_uresp_reg_mr, SIW_ABI_VERSION, SIW_INVAL_UOBJ_KEY, SIW_MAX_INLINE,
    SIW_MAX_SGE, SIW_NOTIFY_NEXT_COMPLETION, SIW_NOTIFY_NOT, SIW_NOTIFY_SOLICITED, SIW_NUM_OPCODES, SIW_NUM_WC_STATUS,
    SIW_OP_COMP_AND_SWAP, SIW_OP_FETCH_AND_ADD, SIW_OP_READ, SIW_OP_READ_LOCAL_INV, SIW_OP_RECEIVE, SIW_OP_SEND,
    SIW_OP_SEND_REMOTE_INV, SIW_OP_SEND_WITH_IMM, SIW_OP_WRITE, SIW_WC_BAD_RESP_ERR, SIW_WC_GENERAL_ERR,
    SIW_WC_LOC_ACCESS_ERR, SIW_WC_LOC_LEN_ERR, SIW_WC_LOC_PROT_ERR, SIW_WC_LOC_QP_OP_ERR, SIW_WC_REM_ACCESS_ERR,
    SIW_WC_REM_INV_REQ_ERR, SIW_WC_SUCCESS, SIW_WC_WR_FLUSH_ERR, SIW_WQE_INLINE, SIW_WQE_READ_FENCE, SIW_WQE_SIGNALLED,
    SIW_WQE_SOLICITED, SIW_WQE_VALID,
};
pub use rdma_common::uapi::{AsBytes, FromBytes};

pub use rdma_common::abi::enums::RDMA_DRIVER_SIW;

// ---------------------------------------------------------------------------------------------------------------
// Byte offsets inside the slots (the ring is written and read through these).
// ---------------------------------------------------------------------------------------------------------------

/// `siw_sqe.id`, `siw_rqe.id`, `siw_cqe.id`.
pub const WQE_ID: usize = 0;
/// `siw_sqe.flags` / `siw_rqe.flags` (u16) and `siw_cqe.flags` (u8): the ownership word.
pub const WQE_FLAGS: usize = 8;
/// `siw_sqe.num_sge`, `siw_rqe.num_sge` (u8).
pub const WQE_NUM_SGE: usize = 10;
/// `siw_sqe.opcode` (u8).
pub const SQE_OPCODE: usize = 11;
/// `siw_sqe.rkey` (u32): the remote STag of a WRITE/READ, the STag to invalidate of a SEND_REMOTE_INV.
pub const SQE_RKEY: usize = 12;
/// `siw_sqe.raddr` (u64).
pub const SQE_RADDR: usize = 16;
/// `siw_sqe.sge[0]`.
pub const SQE_SGE: usize = 24;
/// Inline data: `siw_sqe.sge[1]` onwards ([`SIW_MAX_INLINE`] bytes, to the end of the SQE).
pub const SQE_INLINE: usize = SQE_SGE + size_of::<siw_sge>();
/// `siw_rqe.sge[0]`.
pub const RQE_SGE: usize = 16;
/// `siw_sge.length` inside an SGE.
pub const SGE_LENGTH: usize = 8;

/// `siw_cqe.opcode` (u8).
pub const CQE_OPCODE: usize = 9;
/// `siw_cqe.status` (u16).
pub const CQE_STATUS: usize = 10;
/// `siw_cqe.bytes` (u32).
pub const CQE_BYTES: usize = 12;
/// `siw_cqe.imm_data` (u64) / `inval_stag` (u32).
pub const CQE_IMM: usize = 16;
/// `siw_cqe.qp_id` (u64; the kernel's `base_qp` pointer only for kernel CQs).
pub const CQE_QP_ID: usize = 24;

/// Bytes of one SQ slot, RQ/SRQ slot, CQ slot.
pub const SQE_SIZE: usize = size_of::<siw_sqe>();
pub const RQE_SIZE: usize = size_of::<siw_rqe>();
pub const CQE_SIZE: usize = size_of::<siw_cqe>();
/// Bytes of the notification word after a CQ's CQEs.
pub const CQ_CTRL_SIZE: usize = size_of::<siw_cq_ctrl>();

// The layout of Linux's siw-abi.h on LP64: every number here was read with offsetof()/sizeof() from a C probe
// compiled against the system's <rdma/siw-abi.h> and <infiniband/verbs.h>.
const _: () = {
    assert!(SQE_SIZE == 120);
    assert!(RQE_SIZE == 112);
    assert!(CQE_SIZE == 32);
    assert!(CQ_CTRL_SIZE == 8);
    assert!(size_of::<siw_sge>() == 16);
    assert!(offset_of!(siw_sqe, id) == WQE_ID);
    assert!(offset_of!(siw_sqe, flags) == WQE_FLAGS);
    assert!(offset_of!(siw_sqe, num_sge) == WQE_NUM_SGE);
    assert!(offset_of!(siw_sqe, opcode) == SQE_OPCODE);
    assert!(offset_of!(siw_sqe, rkey) == SQE_RKEY);
    assert!(offset_of!(siw_sqe, __bindgen_anon_1.raddr) == SQE_RADDR);
    assert!(offset_of!(siw_sqe, __bindgen_anon_2.sge) == SQE_SGE);
    assert!(SQE_INLINE == 40);
    assert!(SQE_INLINE + SIW_MAX_INLINE as usize == SQE_SIZE, "the inline area ends the SQE");
    assert!(offset_of!(siw_rqe, id) == WQE_ID);
    assert!(offset_of!(siw_rqe, flags) == WQE_FLAGS);
    assert!(offset_of!(siw_rqe, num_sge) == WQE_NUM_SGE);
    assert!(offset_of!(siw_rqe, sge) == RQE_SGE);
    assert!(offset_of!(siw_sge, length) == SGE_LENGTH);
    assert!(offset_of!(siw_cqe, id) == WQE_ID);
    assert!(offset_of!(siw_cqe, flags) == WQE_FLAGS);
    assert!(offset_of!(siw_cqe, opcode) == CQE_OPCODE);
    assert!(offset_of!(siw_cqe, status) == CQE_STATUS);
    assert!(offset_of!(siw_cqe, bytes) == CQE_BYTES);
    assert!(offset_of!(siw_cqe, __bindgen_anon_1.imm_data) == CQE_IMM);
    assert!(offset_of!(siw_cqe, __bindgen_anon_2.qp_id) == CQE_QP_ID);
    assert!(size_of::<siw_uresp_create_cq>() == 16);
    assert!(size_of::<siw_uresp_create_qp>() == 32);
    assert!(size_of::<siw_uresp_create_srq>() == 16);
    assert!(size_of::<siw_ureq_reg_mr>() == 8);
    assert!(size_of::<siw_uresp_reg_mr>() == 8);
    assert!(size_of::<siw_uresp_alloc_ctx>() == 8);
    // An `ibv_sge` array is copied into a slot as `siw_sge`s (the header's own promise: "same as ibv_sge").
    assert!(size_of::<ibv_sge>() == size_of::<siw_sge>());
    assert!(offset_of!(ibv_sge, addr) == offset_of!(siw_sge, laddr));
    assert!(offset_of!(ibv_sge, length) == offset_of!(siw_sge, length));
    assert!(offset_of!(ibv_sge, lkey) == offset_of!(siw_sge, lkey));
};
