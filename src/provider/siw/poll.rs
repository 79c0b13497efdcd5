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

/// `ibv_wc` bytes 8..16 (`status` `IBV_WC_SUCCESS`, `opcode`) for every CQE opcode byte ([`wc_opcode`]), as a
/// table: one load per CQE, no bounds check.
static WC_OPCODE_WORD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (wc_opcode(i as u8) as u64) << 32;
        i += 1;
    }
    t
};

/// [`wc_status`] for the statuses siw defines (0..=8), then `IBV_WC_GENERAL_ERR` for index 9, which stands for
/// every larger value.
static WC_STATUS: [u32; 10] = {
    let mut t = [0u32; 10];
    let mut i = 0;
    while i < 10 {
        t[i] = wc_status(i as u16) as u32;
        i += 1;
    }
    t
};

const _: () = assert!(ibv_wc_status::IBV_WC_SUCCESS as u32 == 0 && SIW_WC_SUCCESS == 0);

/// rdma-core's `copy_cqe`: writes the `ibv_wc` for the CQE at `slot`, whose bytes 8..12 are `head`
/// ([`CqReader::head_at`]), to `wc`: `wr_id` and `status`/`opcode` in two 8-byte stores (the C enums written as
/// their numbers: C memory, no Rust value of the enum type formed), bytes 16..48 in two 16-byte stores of zeros,
/// then `byte_len` and `qp_num` over them. A successful CQE (siw's and verbs' success are both 0) takes its
/// `status` and `opcode` from one table load.
///
/// # Safety
/// `slot` is a CQE the kernel published to us (its flag read with `Acquire` in `head`), not yet handed back; `wc`
/// writable.
#[inline(always)]
unsafe fn write_wc(slot: *const u8, head: u32, wc: *mut ibv_wc) {
    // SAFETY: caller's contract; offsets inside the 32-byte CQE, aligned (slots are 8-aligned); `ibv_wc` fields
    // by their offsets (asserted below), `wc` 8-aligned as any `ibv_wc`. Each field is stored right after it is
    // read (fewer values live at once: no register to save on the one-entry path).
    unsafe {
        let w = wc.cast::<u64>();
        // wr_id
        w.write(slot.add(WQE_ID).cast::<u64>().read());
        // The opcode byte read on its own (a volatile load: not extracted from `head`, which costs two
        // instructions instead of one).
        let opcode = slot.add(CQE_OPCODE).read_volatile();
        let mut status_opcode = WC_OPCODE_WORD[opcode as usize];
        // `status` is the high half of `head` (CQE bytes 10..12).
        const _: () = assert!(CQE_STATUS == WQE_FLAGS + 2);
        let status = head >> 16;
        if status != 0 {
            status_opcode |= WC_STATUS[(status as usize).min(9)] as u64;
        }
        // status, opcode
        w.add(1).write(status_opcode);
        // Bytes 16..48 zeroed in two 16-byte stores (vendor_err, imm_data, src_qp, wc_flags, pkey_index, slid, sl,
        // dlid_path_bits and the 2 bytes of padding stay 0), then byte_len and qp_num over them: one load and one
        // store each, no shift.
        let z = wc.cast::<u8>().add(16).cast::<[u64; 2]>();
        z.write([0; 2]);
        z.add(1).write([0; 2]);
        let w32 = wc.cast::<u32>();
        w32.add(5).write(slot.add(CQE_BYTES).cast::<u32>().read()); // byte_len
        w32.add(7).write(slot.add(CQE_QP_ID).cast::<u32>().read()); // qp_num
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
        let get = st.get;
        let slot = r.slot(get);
        // SAFETY: the CQ's slot for `get`.
        let head = unsafe { r.head_at(slot) };
        if head & SIW_WQE_VALID == 0 {
            return Ok(0);
        }
        if num_entries != 1 {
            if num_entries <= 0 {
                return Ok(0);
            }
            if wc.is_null() {
                return Ok(-Errno::EINVAL.0);
            }
            // SAFETY: caller's contract; the CQE at `get` is valid (checked above).
            return Ok(unsafe { deliver_run(st, num_entries, wc, r) });
        }
        if wc.is_null() {
            return Ok(-Errno::EINVAL.0);
        }
        // The one-at-a-time poll, inline: no loop, no call.
        let mut st = st;
        // SAFETY: a published CQE (the Acquire load of `head`); `wc` has room for one entry; `slot` is the CQ's
        // slot for `get`.
        unsafe {
            write_wc(slot, head, wc);
            r.release_at(slot);
        }
        st.get = get.wrapping_add(1);
        Ok(1)
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
    unsafe { deliver_run(st, num_entries, wc, r) }
}

/// Moves CQEs from `st.get` on into `wc` while they are valid, at most `num_entries` (at least one: the first is
/// known valid), then releases the CQ lock (`st`). Out of line and called last, so that the one-entry and empty
/// polls save no registers for it. The usual case, `wc` with no more entries than there are slots from `st.get` to
/// the ring's end, is one run of consecutive slots, a loop whose few values fit in the registers a call may use;
/// otherwise [`deliver`].
///
/// # Safety
/// The CQE at `st.get` is valid; `wc` is writable for `num_entries > 0` entries.
#[inline(never)]
unsafe fn deliver_run(st: SpinGuard<'_, CqState>, num_entries: c_int, wc: *mut ibv_wc, r: CqReader<'_>) -> c_int {
    let (slot, room) = r.run(st.get);
    if num_entries as u32 > room {
        // SAFETY: caller's contract.
        return unsafe { deliver(st, num_entries, wc, r) };
    }
    let mut st = st;
    // SAFETY: caller's contract (num_entries > 0 entries, which the run holds: checked above; the CQE at `slot`
    // is valid).
    let (dst, _) = unsafe { copy_run(r, slot, wc, wc.add(num_entries as usize)) };
    // SAFETY: both in `wc`'s array.
    let n = unsafe { dst.offset_from(wc) } as u32;
    st.get = st.get.wrapping_add(n);
    n as c_int
}

/// Copies the valid CQEs of one run of consecutive slots from `slot` into `dst` up to `stop`, handing each slot
/// back as it is read (as rdma-core does: the kernel may need it for the next CQE). Returns where `dst` ended and
/// whether an invalid CQE ended the copy before `stop`.
///
/// # Safety
/// The CQE at `slot` is valid; the ring holds at least `stop - dst` consecutive slots from `slot`; `dst..stop`
/// is writable (`dst < stop`); the CQ lock is held.
#[inline(always)]
unsafe fn copy_run(
    r: CqReader<'_>,
    mut slot: *const u8,
    mut dst: *mut ibv_wc,
    stop: *mut ibv_wc,
) -> (*mut ibv_wc, bool) {
    // SAFETY: caller's contract: the slot of a valid CQE.
    let mut head = unsafe { r.head_at(slot) };
    loop {
        // SAFETY: `slot` is a published CQE of the run (its flag read with Acquire in `head`); `dst` < `stop`.
        unsafe {
            write_wc(slot, head, dst);
            r.release_at(slot);
            dst = dst.add(1);
        }
        if dst == stop {
            return (dst, false);
        }
        // SAFETY: fewer steps than the run's length (`stop` comes first otherwise).
        unsafe {
            slot = slot.add(CQE_SIZE);
            head = r.head_at(slot);
        }
        if head & SIW_WQE_VALID == 0 {
            return (dst, true);
        }
    }
}

/// [`deliver_run`] in general: runs of consecutive slots up to the ring's end, then on from slot 0, while the CQEs
/// are valid, at most `num_entries`; then releases the CQ lock (`st`).
///
/// # Safety
/// The CQE at `st.get` is valid; `wc` is writable for `num_entries > 0` entries.
#[inline(never)]
unsafe fn deliver(mut st: SpinGuard<'_, CqState>, num_entries: c_int, wc: *mut ibv_wc, r: CqReader<'_>) -> c_int {
    let get = st.get;
    let total = num_entries as u32;
    let mut n = 0u32;
    let mut dst = wc;
    // Runs of consecutive slots up to the end of the ring: in each, a pointer steps through the slots (no index
    // masked per CQE), and the run ends at the ring's end or at the last entry of `wc`, whichever comes first.
    'ring: loop {
        let (slot, room) = r.run(get.wrapping_add(n));
        let run = room.min(total - n);
        // SAFETY: n + run <= total entries of `wc`'s array, and the run holds `run` slots; the CQE at the run's
        // start is valid (checked by the caller or below).
        let (end, ended) = unsafe { copy_run(r, slot, dst, dst.add(run as usize)) };
        dst = end;
        if ended {
            break 'ring;
        }
        n += run;
        if n == total || !r.is_valid(get.wrapping_add(n)) {
            break;
        }
    }
    // SAFETY: both in `wc`'s array.
    let n = unsafe { dst.offset_from(wc) } as u32;
    st.get = get.wrapping_add(n);
    n as c_int
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
