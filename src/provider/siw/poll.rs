//! Reaping completions: `ibv_poll_cq` and `ibv_req_notify_cq`, straight on the kernel's CQ (the slot protocol is in
//! [`super::queue`]).
//!
//! Behaviour is rdma-core 44's `siw_poll_cq` / `siw_notify_cq`:
//!
//! * a CQE is ours while its `flags` has `SIW_WQE_VALID`; it is copied out and its `flags` cleared at once, which
//!   hands the slot back to the kernel;
//! * `ibv_wc`: `wr_id`, `byte_len`, `qp_num` (the kernel's QP id) from the CQE; `opcode` and `status` through
//!   rdma-core's tables; `wc_flags`, `imm_data`, `vendor_err` 0 (siw has no immediate data, and the kernel reports
//!   an invalidated STag only to kernel CQs);
//! * arming writes `SIW_NOTIFY_SOLICITED` (solicited only) or `SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION`
//!   into the CQ's notification word; the kernel reads it when it adds a CQE and clears it when it notifies. No
//!   system call.
//!
//! Deliberate differences: `src_qp`, `pkey_index`, `slid`, `sl` and `dlid_path_bits` are written 0 (rdma-core leaves
//! the caller's bytes); a CQE opcode or status beyond rdma-core's tables (which it would read past) gives
//! `IBV_WC_SEND` / `IBV_WC_GENERAL_ERR`; a negative `num_entries` polls nothing (rdma-core would drain the CQ into
//! the caller's array without bound).
//!
//! `ibv_create_cq_ex` is not implemented by rdma-core's siw, so there is no `ibv_cq_ex` polling API here
//! (`EOPNOTSUPP` at creation).
#![allow(unsafe_code)]

use super::abi::*;
use super::{SiwCq, SiwHost};
use crate::provider::verbs::*;
use rdma_common::{ffi, Errno};
use std::ffi::c_int;
use std::ptr;

/// rdma-core's `map_cqe_opcode`: the `ibv_wc_opcode` of a CQE's siw opcode.
#[inline(always)]
pub fn wc_opcode(op: u8) -> ibv_wc_opcode {
    use ibv_wc_opcode::*;
    match op as u32 {
        SIW_OP_WRITE => IBV_WC_RDMA_WRITE,
        SIW_OP_READ | SIW_OP_READ_LOCAL_INV => IBV_WC_RDMA_READ,
        SIW_OP_SEND | SIW_OP_SEND_WITH_IMM | SIW_OP_SEND_REMOTE_INV => IBV_WC_SEND,
        SIW_OP_FETCH_AND_ADD => IBV_WC_FETCH_ADD,
        SIW_OP_COMP_AND_SWAP => IBV_WC_COMP_SWAP,
        SIW_OP_RECEIVE => IBV_WC_RECV,
        // The kernel-internal opcodes (READ_RESPONSE, INVAL_STAG, REG_MR) map to 0 in rdma-core's table.
        _ => IBV_WC_SEND,
    }
}

/// rdma-core's `map_cqe_status`: the `ibv_wc_status` of a CQE's `siw_wc_status`.
#[inline(always)]
pub fn wc_status(status: u16) -> ibv_wc_status {
    use ibv_wc_status::*;
    match status as u32 {
        SIW_WC_SUCCESS => IBV_WC_SUCCESS,
        SIW_WC_LOC_LEN_ERR => IBV_WC_LOC_LEN_ERR,
        SIW_WC_LOC_PROT_ERR => IBV_WC_LOC_PROT_ERR,
        SIW_WC_LOC_QP_OP_ERR => IBV_WC_LOC_QP_OP_ERR,
        SIW_WC_WR_FLUSH_ERR => IBV_WC_WR_FLUSH_ERR,
        SIW_WC_BAD_RESP_ERR => IBV_WC_BAD_RESP_ERR,
        SIW_WC_LOC_ACCESS_ERR => IBV_WC_LOC_ACCESS_ERR,
        SIW_WC_REM_ACCESS_ERR => IBV_WC_REM_ACCESS_ERR,
        SIW_WC_REM_INV_REQ_ERR => IBV_WC_REM_INV_REQ_ERR,
        _ => IBV_WC_GENERAL_ERR,
    }
}

/// rdma-core's `copy_cqe`: the `ibv_wc` for the CQE at `slot`.
///
/// # Safety
/// `slot` is a CQE the kernel published to us (its flag read with `Acquire`), not yet handed back.
#[inline(always)]
unsafe fn decode_cqe(slot: *const u8) -> ibv_wc {
    // SAFETY: caller's contract; offsets inside the 32-byte CQE, aligned (slots are 8-aligned).
    let (id, opcode, status, bytes, qp_id) = unsafe {
        (
            slot.add(WQE_ID).cast::<u64>().read(),
            slot.add(CQE_OPCODE).read(),
            slot.add(CQE_STATUS).cast::<u16>().read(),
            slot.add(CQE_BYTES).cast::<u32>().read(),
            slot.add(CQE_QP_ID).cast::<u64>().read(),
        )
    };
    ibv_wc {
        wr_id: id,
        status: wc_status(status),
        opcode: wc_opcode(opcode),
        vendor_err: 0,
        byte_len: bytes,
        imm: ibv_wc_imm { imm_data: 0 },
        qp_num: qp_id as u32,
        src_qp: 0,
        wc_flags: 0,
        pkey_index: 0,
        slid: 0,
        sl: 0,
        dlid_path_bits: 0,
    }
}

/// `ibv_poll_cq(3)` for siw (`ibv_context.ops.poll_cq`): moves up to `num_entries` CQEs into `wc`, oldest first.
/// Returns how many (0 when the CQ is empty or `num_entries <= 0`), or `-EINVAL` for NULL arguments.
///
/// # Safety
/// `ibcq` is a live CQ of this provider; `wc` is writable for `num_entries` entries.
pub unsafe extern "C" fn poll_cq<H: SiwHost>(ibcq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    if num_entries <= 0 {
        return 0;
    }
    if ibcq.is_null() || wc.is_null() {
        return -Errno::EINVAL.0;
    }
    ffi::boundary("ibv_poll_cq", || {
        // SAFETY: caller's contract.
        let cq: &SiwCq = unsafe { H::siw_cq(ibcq) }.ok_or(Errno::EIO)?;
        let mut st = cq.inner.lock();
        let mut n = 0;
        while n < num_entries && cq.queue.is_valid(st.get) {
            // SAFETY: a published CQE (the Acquire load in is_valid makes its bytes visible); `wc` has room for
            // `num_entries` entries.
            unsafe { ptr::write(wc.add(n as usize), decode_cqe(cq.queue.slot(st.get))) };
            // Hand each slot back at once, as rdma-core does: the kernel may need it for the next CQE.
            cq.queue.release(st.get);
            st.get = st.get.wrapping_add(1);
            n += 1;
        }
        Ok(n)
    })
    .unwrap_or_else(|e| -e.0)
}

/// `ibv_req_notify_cq(3)` for siw (`ibv_context.ops.req_notify_cq`): arms the CQ for its next completion (or its
/// next solicited one) by storing into the notification word shared with the kernel, as rdma-core's
/// `siw_notify_cq` does. Returns 0, or `EINVAL` for a NULL CQ.
///
/// # Safety
/// `ibcq` is a live CQ of this provider.
pub unsafe extern "C" fn req_notify_cq<H: SiwHost>(ibcq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    if ibcq.is_null() {
        return Errno::EINVAL.0;
    }
    ffi::boundary("ibv_req_notify_cq", || {
        // SAFETY: caller's contract.
        let cq: &SiwCq = unsafe { H::siw_cq(ibcq) }.ok_or(Errno::EIO)?;
        let flags = if solicited_only != 0 {
            SIW_NOTIFY_SOLICITED
        } else {
            SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION
        };
        cq.queue.arm(flags);
        Ok(0)
    })
    .unwrap_or_else(|e| e.0)
}
