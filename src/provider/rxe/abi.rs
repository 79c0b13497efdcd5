//! The kernel's Soft-RoCE user ABI (`<rdma/rdma_user_rxe.h>`) as the rxe provider uses it, with every offset the
//! data path relies on asserted at compile time.
//!
//! Two kernel generations share one layout:
//!
//! | kernel | `rxe_send_wr.wr` | `rxe_dma_info` data | notes |
//! |---|---|---|---|
//! | 6.1 (Debian 12's `linux-libc-dev`) | `rdma`, `atomic`, `ud`, `mw` | `inline_data`, `sge` | no ATOMIC_WRITE, no FLUSH |
//! | 6.2 .. 6.12 and later | adds `flush { remote_addr, length, rkey, type, level }` | adds `atomic_wr` (8 bytes) | `IB_WR_FLUSH` = 14, `IB_WR_ATOMIC_WRITE` = 15 |
//!
//! The additions live inside existing unions, so `sizeof` and every other offset are unchanged: one provider
//! serves both. The 6.2+ members are written through [`FlushWr`] and [`DMA_DATA_OFFSET`] (the common start of
//! `inline_data` / `atomic_wr` / `sge`), so the code compiles against either header.
//!
//! The structs are bindgen's (`rdma_common::uapi`, from Linux 6.1's headers); the asserts below pin every
//! offset the data path relies on, so a regenerated binding that moved one fails to compile.
#![allow(non_camel_case_types)]

use crate::provider::verbs::ibv_wc;
use std::mem::{offset_of, size_of};

pub use rdma_common::uapi::ib_user_verbs::ib_uverbs_wc;
pub use rdma_common::uapi::rdma_user_rxe::{
    mminfo, rxe_av, rxe_create_ah_resp, rxe_create_cq_resp, rxe_create_qp_resp, rxe_create_srq_resp, rxe_dma_info,
    rxe_modify_srq_cmd, rxe_queue_buf, rxe_recv_wqe, rxe_resize_cq_resp, rxe_send_wqe, rxe_send_wr, rxe_sge,
};
pub use rdma_common::uapi::FromBytes;

// ---------------------------------------------------------------------------------------------------------------
// What the provider adds: 6.2+ members, constants, and the layout it relies on.
// ---------------------------------------------------------------------------------------------------------------

/// The `wr.flush` member that Linux 6.2 added to `rxe_send_wr` (absent from 6.1's header). It overlays
/// `wr.rdma`: `remote_addr` at the same offset, `length` where `rdma.rkey` is, `rkey` where `rdma.reserved` is.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct FlushWr {
    pub remote_addr: u64,
    pub length: u32,
    pub rkey: u32,
    pub type_: u8,
    pub level: u8,
}

/// Offset of the flexible data area (`inline_data`, `atomic_wr`, `sge[]`) inside `struct rxe_dma_info`.
pub const DMA_DATA_OFFSET: usize = size_of::<rxe_dma_info>();
/// Offset of the send WQE's data area (inline bytes, the 8 atomic-write bytes, or the SGE array).
pub const SEND_WQE_DATA_OFFSET: usize = offset_of!(rxe_send_wqe, dma) + DMA_DATA_OFFSET;
/// Offset of the receive WQE's SGE array.
pub const RECV_WQE_DATA_OFFSET: usize = offset_of!(rxe_recv_wqe, dma) + DMA_DATA_OFFSET;
/// Offset of the first slot in a mapped queue.
pub const QUEUE_DATA_OFFSET: usize = offset_of!(rxe_queue_buf, data);

// The layout of Linux's rdma_user_rxe.h on LP64: every number here was read with offsetof()/sizeof() from a C
// probe compiled against the system's <rdma/rdma_user_rxe.h> and <infiniband/verbs.h>.
const _: () = {
    assert!(size_of::<rxe_av>() == 88);
    assert!(size_of::<rxe_send_wr>() == 144);
    assert!(offset_of!(rxe_send_wr, opcode) == 12);
    assert!(offset_of!(rxe_send_wr, send_flags) == 16);
    assert!(offset_of!(rxe_send_wr, ex) == 20);
    assert!(offset_of!(rxe_send_wr, wr) == 24);
    assert!(offset_of!(rxe_send_wr, wr.ud.ah_num) == 36);
    assert!(offset_of!(rxe_send_wr, wr.ud.av) == 56);
    assert!(offset_of!(rxe_send_wr, wr.rdma.rkey) == 32);
    assert!(offset_of!(rxe_send_wr, wr.atomic.rkey) == 48);
    assert!(offset_of!(rxe_send_wr, wr.mw.access) == 52);
    assert!(size_of::<rxe_dma_info>() == 24);
    assert!(size_of::<rxe_send_wqe>() == 208);
    assert!(offset_of!(rxe_send_wqe, iova) == 152);
    assert!(offset_of!(rxe_send_wqe, ssn) == 176);
    assert!(offset_of!(rxe_send_wqe, dma) == 184);
    assert!(SEND_WQE_DATA_OFFSET == 208);
    assert!(RECV_WQE_DATA_OFFSET == 40);
    assert!(size_of::<rxe_sge>() == 16);
    assert!(size_of::<mminfo>() == 16);
    assert!(size_of::<rxe_create_qp_resp>() == 32);
    assert!(size_of::<rxe_create_srq_resp>() == 24);
    assert!(offset_of!(rxe_queue_buf, producer_index) == 128);
    assert!(offset_of!(rxe_queue_buf, consumer_index) == 256);
    assert!(QUEUE_DATA_OFFSET == 384);
    assert!(size_of::<ib_uverbs_wc>() == 48);
    assert!(offset_of!(ib_uverbs_wc, ex) == 24);
    assert!(offset_of!(ib_uverbs_wc, pkey_index) == 40);
    assert!(offset_of!(ib_uverbs_wc, dlid_path_bits) == 45);
    // wr.flush (6.2+) overlays wr.rdma and fits in the union.
    assert!(offset_of!(rxe_send_wr, wr) + size_of::<FlushWr>() <= size_of::<rxe_send_wr>());
    assert!(offset_of!(rxe_send_wr, wr) + offset_of!(FlushWr, length) == offset_of!(rxe_send_wr, wr.rdma.rkey));
};

/// Offset of `ibv_wc.imm_data` (C anonymous union with `invalidated_rkey`).
pub const WC_IMM_DATA_OFFSET: usize = offset_of!(ibv_wc, imm);

// `ib_uverbs_wc` (what rxe writes into a user CQ slot) and `ibv_wc` agree field by field for the first 46 bytes;
// `ibv_wc`'s last 2 bytes are padding where the kernel struct has `port_num` and `reserved`. So a CQE is delivered
// to `ibv_wc` by copying `size_of::<ibv_wc>()` bytes, exactly as rdma-core's `rxe_poll_cq` does.
const _: () = {
    assert!(size_of::<ibv_wc>() == size_of::<ib_uverbs_wc>());
    assert!(offset_of!(ibv_wc, wr_id) == offset_of!(ib_uverbs_wc, wr_id));
    assert!(offset_of!(ibv_wc, status) == offset_of!(ib_uverbs_wc, status));
    assert!(offset_of!(ibv_wc, opcode) == offset_of!(ib_uverbs_wc, opcode));
    assert!(offset_of!(ibv_wc, vendor_err) == offset_of!(ib_uverbs_wc, vendor_err));
    assert!(offset_of!(ibv_wc, byte_len) == offset_of!(ib_uverbs_wc, byte_len));
    assert!(WC_IMM_DATA_OFFSET == offset_of!(ib_uverbs_wc, ex));
    assert!(offset_of!(ibv_wc, qp_num) == offset_of!(ib_uverbs_wc, qp_num));
    assert!(offset_of!(ibv_wc, src_qp) == offset_of!(ib_uverbs_wc, src_qp));
    assert!(offset_of!(ibv_wc, wc_flags) == offset_of!(ib_uverbs_wc, wc_flags));
    assert!(offset_of!(ibv_wc, pkey_index) == offset_of!(ib_uverbs_wc, pkey_index));
    assert!(offset_of!(ibv_wc, slid) == offset_of!(ib_uverbs_wc, slid));
    assert!(offset_of!(ibv_wc, sl) == offset_of!(ib_uverbs_wc, sl));
    assert!(offset_of!(ibv_wc, dlid_path_bits) == offset_of!(ib_uverbs_wc, dlid_path_bits));
};
