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
use super::queue::CqReader;
use super::{CqState, SiwCq, SiwHost};
use crate::provider::spin::SpinGuard;
use crate::provider::verbs::*;
use rdma_common::{ffi, Errno};
use std::ffi::c_int;

/// rdma-core's `map_cqe_opcode`: the `ibv_wc_opcode` of a CQE's siw opcode.
#[inline(always)]
pub const fn wc_opcode(op: u8) -> ibv_wc_opcode {
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
pub const fn wc_status(status: u16) -> ibv_wc_status {
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

/// [`wc_opcode`] for every byte value, as a table: one load per CQE, no bounds check.
static WC_OPCODE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = wc_opcode(i as u8) as u32;
        i += 1;
    }
    t
};

/// [`wc_status`] for the statuses siw defines (0..=8); anything else is `IBV_WC_GENERAL_ERR`.
static WC_STATUS: [u32; 9] = {
    let mut t = [0u32; 9];
    let mut i = 0;
    while i < 9 {
        t[i] = wc_status(i as u16) as u32;
        i += 1;
    }
    t
};

/// rdma-core's `copy_cqe`: writes the `ibv_wc` for the CQE at `slot` to `wc`, in five 8-byte stores (the
/// C enums `status` and `opcode` written as their numbers: C memory, no Rust value of the enum type formed).
///
/// # Safety
/// `slot` is a CQE the kernel published to us (its flag read with `Acquire`), not yet handed back; `wc` writable.
#[inline(always)]
unsafe fn write_wc(slot: *const u8, wc: *mut ibv_wc) {
    // SAFETY: caller's contract; offsets inside the 32-byte CQE, aligned (slots are 8-aligned); `ibv_wc` fields
    // by their offsets (asserted below), `wc` 8-aligned as any `ibv_wc`.
    unsafe {
        let id = slot.add(WQE_ID).cast::<u64>().read();
        let opcode = slot.add(CQE_OPCODE).read();
        let status = slot.add(CQE_STATUS).cast::<u16>().read();
        let bytes = slot.add(CQE_BYTES).cast::<u32>().read();
        let qp_id = slot.add(CQE_QP_ID).cast::<u64>().read() as u32;
        let status = if (status as usize) < WC_STATUS.len() {
            WC_STATUS[status as usize]
        } else {
            ibv_wc_status::IBV_WC_GENERAL_ERR as u32
        };
        let opcode = WC_OPCODE[opcode as usize];
        let w = wc.cast::<u64>();
        w.write(id); // wr_id
        w.add(1).write(status as u64 | (opcode as u64) << 32); // status, opcode
        w.add(2).write((bytes as u64) << 32); // vendor_err 0, byte_len
        w.add(3).write((qp_id as u64) << 32); // imm_data 0, qp_num
        w.add(4).write(0); // src_qp, wc_flags
        w.add(5).write(0); // pkey_index, slid, sl, dlid_path_bits (and the 2 bytes of padding)
    }
}

const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<ibv_wc>() == 48);
    assert!(offset_of!(ibv_wc, status) == 8 && offset_of!(ibv_wc, opcode) == 12);
    assert!(offset_of!(ibv_wc, vendor_err) == 16 && offset_of!(ibv_wc, byte_len) == 20);
    assert!(offset_of!(ibv_wc, imm) == 24 && offset_of!(ibv_wc, qp_num) == 28);
    assert!(offset_of!(ibv_wc, src_qp) == 32 && offset_of!(ibv_wc, wc_flags) == 36);
    assert!(offset_of!(ibv_wc, pkey_index) == 40 && offset_of!(ibv_wc, dlid_path_bits) == 45);
    assert!(cfg!(target_endian = "little"));
};

/// `ibv_poll_cq(3)` for siw (`ibv_context.ops.poll_cq`): moves up to `num_entries` CQEs into `wc`, oldest first.
/// Returns how many (0 when the CQ is empty or `num_entries <= 0`), or `-EINVAL` for a NULL CQ, or a NULL `wc`
/// when there is a CQE to deliver.
///
/// # Safety
/// `ibcq` is a live CQ of this provider; `wc` is writable for `num_entries` entries.
pub unsafe extern "C" fn poll_cq<H: SiwHost>(ibcq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    if ibcq.is_null() {
        return -Errno::EINVAL.0;
    }
    ffi::datapath_boundary("ibv_poll_cq", || {
        // SAFETY: caller's contract.
        let Some(cq) = (unsafe { H::siw_cq(ibcq) }) else { return Ok(-Errno::EIO.0) };
        // Contention goes to an out-of-line twin, so the uncontended path saves no registers.
        let Some(st) = cq.inner.try_lock() else {
            // SAFETY: caller's contract.
            return Ok(unsafe { poll_cq_contended(cq, num_entries, wc) });
        };
        let r = cq.queue.reader();
        if !r.is_valid(st.get) || num_entries <= 0 {
            return Ok(0);
        }
        if wc.is_null() {
            return Ok(-Errno::EINVAL.0);
        }
        if num_entries == 1 {
            // The one-at-a-time poll, inline: no loop, no call.
            let mut st = st;
            // SAFETY: a published CQE (the Acquire load in is_valid); `wc` has room for one entry.
            unsafe { write_wc(r.slot(st.get), wc) };
            r.release(st.get);
            st.get = st.get.wrapping_add(1);
            return Ok(1);
        }
        // SAFETY: caller's contract; the CQE at `get` is valid (checked above).
        Ok(unsafe { deliver(r, st, num_entries, wc) })
    })
    .unwrap_or_else(|e| -e.0)
}

/// [`poll_cq`] when the CQ lock was busy: waits for it.
///
/// # Safety
/// As [`poll_cq`].
#[cold]
#[inline(never)]
unsafe fn poll_cq_contended(cq: &SiwCq, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    let st = cq.inner.lock();
    let r = cq.queue.reader();
    if !r.is_valid(st.get) || num_entries <= 0 {
        return 0;
    }
    if wc.is_null() {
        return -Errno::EINVAL.0;
    }
    // SAFETY: caller's contract; the CQE at `get` is valid (checked above).
    unsafe { deliver(r, st, num_entries, wc) }
}

/// Moves CQEs from `st.get` on into `wc` while they are valid, at most `num_entries` (at least one: the first is
/// known valid), then releases the CQ lock (`st`). Out of line and called last, so that polling an empty CQ saves
/// no registers for this loop.
///
/// # Safety
/// The CQE at `st.get` is valid; `wc` is writable for `num_entries > 0` entries.
#[inline(never)]
unsafe fn deliver(r: CqReader<'_>, mut st: SpinGuard<'_, CqState>, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    let mut g = st.get;
    let mut dst = wc;
    // SAFETY: caller's contract (num_entries > 0).
    let end = unsafe { wc.add(num_entries as usize) };
    loop {
        // SAFETY: a published CQE (the Acquire load in is_valid makes its bytes visible); `dst` < `end`.
        unsafe {
            write_wc(r.slot(g), dst);
            dst = dst.add(1);
        }
        // Hand each slot back at once, as rdma-core does: the kernel may need it for the next CQE.
        r.release(g);
        g = g.wrapping_add(1);
        if dst == end || !r.is_valid(g) {
            break;
        }
    }
    st.get = g;
    // SAFETY: both in `wc`'s array.
    unsafe { dst.offset_from(wc) as c_int }
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
    ffi::datapath_boundary("ibv_req_notify_cq", || {
        // SAFETY: caller's contract.
        let cq: &SiwCq = unsafe { H::siw_cq(ibcq) }.ok_or(Errno::EIO)?;
        let flags =
            if solicited_only != 0 { SIW_NOTIFY_SOLICITED } else { SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION };
        cq.queue.arm(flags);
        Ok(0)
    })
    .unwrap_or_else(|e| e.0)
}
