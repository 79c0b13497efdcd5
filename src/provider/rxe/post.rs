//! Posting work requests: `ibv_post_send`, `ibv_post_recv`, `ibv_post_srq_recv`, `ibv_bind_mw`, writing WQEs
//! straight into the kernel's rings. The `ibv_qp_ex` builders (`ibv_wr_*`) are in [`super::wr`].
//!
//! Behaviour is rdma-core 44's `providers/rxe/rxe.c`, with the fixes rdma-core made later and these hardenings,
//! here and in [`super::wr`] (each turns a crash or a silently wrong WQE into an error; none changes what a
//! correct program sees):
//!
//! * NULL `sg_list` with `num_sge > 0`, NULL `wr.ud.ah` on a UD send, NULL `bind_mw.mw`, or NULL `bind_info.mr`
//!   with a non-zero length: `EINVAL` (rdma-core dereferences them);
//! * a UD send through an AH of another device's context (`wr.ud.ah`, `ibv_wr_set_ud_addr`): `EINVAL` (rdma-core
//!   posts it with the other device's AH number);
//! * SGE and inline limits are also clamped to what a ring slot holds, so nothing is written past a slot;
//! * the inline length is summed in 64 bits (rdma-core 64's fix), `wr_set_sge_list` and `wr_set_inline_data_list`
//!   sum their lengths (fixed in rdma-core 64);
//! * the `ibv_qp_ex` inline setters set `IBV_SEND_INLINE` in the WQE and the SGE setters clear it: the kernel reads
//!   the WQE's data area as inline bytes exactly when that flag is set, and the extended API selects inline by
//!   setter, not by flag (`ibv_wr_post(3)`);
//! * a setter with no WQE built since `wr_start`, or any `ibv_qp_ex` call outside `wr_start`..`wr_complete`, does
//!   not touch the ring (a setter records `EINVAL` for `wr_complete`).
//!
//! Nothing here allocates, logs or makes a system call except the doorbell ([`RxeHost::post_send_doorbell`]).
#![allow(unsafe_code)]

use super::abi::{self, rxe_recv_wqe, rxe_send_wqe, RECV_WQE_DATA_OFFSET, SEND_WQE_DATA_OFFSET};
use super::queue::Producer;
use super::{Rq, RxeHost, Sq};
use crate::provider::explain::{self, Queue};
use crate::provider::verbs::*;
use rdma_common::abi::enums::*;
use rdma_common::{errno::Result, ffi, Errno};
use std::ffi::c_int;
use std::mem::{offset_of, size_of, MaybeUninit};
use std::ptr;

const _: () = {
    // An `ibv_sge` array is copied into a WQE as `rxe_sge`s.
    assert!(size_of::<ibv_sge>() == size_of::<abi::rxe_sge>());
    assert!(offset_of!(ibv_sge, addr) == offset_of!(abi::rxe_sge, addr));
    assert!(offset_of!(ibv_sge, length) == offset_of!(abi::rxe_sge, length));
    assert!(offset_of!(ibv_sge, lkey) == offset_of!(abi::rxe_sge, lkey));
};

pub(super) const WR_RDMA_WRITE: u32 = IBV_WR_RDMA_WRITE;
pub(super) const WR_RDMA_WRITE_WITH_IMM: u32 = IBV_WR_RDMA_WRITE_WITH_IMM;
pub(super) const WR_SEND: u32 = IBV_WR_SEND;
pub(super) const WR_SEND_WITH_IMM: u32 = IBV_WR_SEND_WITH_IMM;
pub(super) const WR_RDMA_READ: u32 = IBV_WR_RDMA_READ;
pub(super) const WR_ATOMIC_CMP_AND_SWP: u32 = IBV_WR_ATOMIC_CMP_AND_SWP;
pub(super) const WR_ATOMIC_FETCH_AND_ADD: u32 = IBV_WR_ATOMIC_FETCH_AND_ADD;
pub(super) const WR_LOCAL_INV: u32 = IBV_WR_LOCAL_INV;
pub(super) const WR_BIND_MW: u32 = IBV_WR_BIND_MW;
pub(super) const WR_SEND_WITH_INV: u32 = IBV_WR_SEND_WITH_INV;
pub(super) const WR_ATOMIC_WRITE: u32 = IBV_WR_ATOMIC_WRITE;
pub(super) const WR_FLUSH: u32 = IBV_WR_FLUSH;

/// The SGEs of a work request, checked: `EINVAL` for a negative count, more than `max_sge`, or a NULL list.
///
/// # Safety
/// If non-NULL, `sg_list` points to `num_sge` readable `ibv_sge`s that stay unchanged during the call.
#[inline(always)]
unsafe fn sge_slice<'a>(sg_list: *const ibv_sge, num_sge: c_int, max_sge: u32) -> Result<&'a [ibv_sge]> {
    // C compares `int num_sge > unsigned max_sge`, so a negative count is a huge one: EINVAL either way.
    if num_sge < 0 || num_sge as u32 > max_sge {
        return Err(Errno::EINVAL);
    }
    if num_sge == 0 {
        return Ok(&[]);
    }
    if sg_list.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: caller's contract; num_sge > 0.
    Ok(unsafe { std::slice::from_raw_parts(sg_list, num_sge as usize) })
}

/// Copies each SGE's bytes, back to back, to `dst` (the inline data area of a WQE).
///
/// # Safety
/// Every SGE with a non-zero length addresses readable memory of that length; `dst` has room for the sum.
#[inline(never)]
unsafe fn copy_inline(dst: *mut u8, sges: &[ibv_sge]) {
    let mut off = 0usize;
    for sge in sges {
        if sge.length != 0 {
            // SAFETY: caller's contract.
            unsafe { ptr::copy_nonoverlapping(sge.addr as usize as *const u8, dst.add(off), sge.length as usize) };
            off += sge.length as usize;
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// ibv_post_send
// ---------------------------------------------------------------------------------------------------------------

/// The rest of rdma-core's `validate_send_wr` (the SGE count and the inline length are checked where the SGEs
/// are read): `EINVAL` for an opcode that is not an `enum ibv_wr_opcode` (ours), an atomic with less than 8 bytes
/// of local buffer or a remote address not 8-aligned, or a bind-MW WR with data, SGEs or immediate data, or on a
/// QP that is neither RC nor UC. Every check of a WR answers `EINVAL`, so their order is not observable.
#[inline(always)]
fn validate_send_wr(qp_type: u32, wr: &ibv_send_wr, opcode: u32, length: u64) -> Result<()> {
    // Not an `enum ibv_wr_opcode` value (0..=11, 14, 15): refused here, where rdma-core posts it and the kernel
    // completes it with an error and moves the QP to ERROR. FLUSH (14, rdma-core 56) is posted as rdma-core 56
    // posts it: the opcode with `wr.rdma.remote_addr` as the iova and the SGEs' length, the rest of the WQE's `wr`
    // union zero (`struct ibv_send_wr` has no member for the flush's rkey, type and level; `ibv_wr_flush` has).
    if opcode > IBV_WR_DRIVER1 && opcode != WR_ATOMIC_WRITE && opcode != WR_FLUSH {
        return Err(Errno::EINVAL);
    }
    if opcode == WR_ATOMIC_CMP_AND_SWP || opcode == WR_ATOMIC_FETCH_AND_ADD {
        let atomic = wr.atomic();
        if length < 8 || atomic.remote_addr & 7 != 0 {
            return Err(Errno::EINVAL);
        }
    }
    if opcode == WR_BIND_MW {
        if length != 0 || wr.num_sge != 0 || wr.imm_data() != 0 {
            return Err(Errno::EINVAL);
        }
        if qp_type != IBV_QPT_RC && qp_type != IBV_QPT_UC {
            return Err(Errno::EINVAL);
        }
    }
    Ok(())
}

/// rdma-core's `init_send_wqe` (with `convert_send_wr`) for the fixed header: writes it into `wqe`, a slot of
/// the send ring, in place (zeroed, then filled). Fails (`EINVAL`) only for a UD send without an AH or with an AH
/// of another context than `ctx` (the QP's), or a bind-MW
/// WR without an MW, having written part of the slot, which is harmless: nothing is visible to the kernel before
/// [`super::queue::Producer::publish`].
///
/// # Safety
/// `wqe` is an unpublished, 8-aligned slot at least a header long; `wr`'s AH (UD sends) and MW/MR (bind)
/// pointers, when non-NULL, point to live objects of this provider.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the header's fields, inlined into both post paths (no struct to build)
unsafe fn write_send_wqe<H: RxeHost>(
    wqe: *mut rxe_send_wqe,
    qp_type: u32,
    wr: &ibv_send_wr,
    opcode: u32,
    length: u64,
    num_sge: u32,
    ssn: u32,
    ctx: *mut ibv_context,
) -> Result<()> {
    // SAFETY: caller's contract: the slot is ours, so a unique reference to its header is sound.
    let w = unsafe {
        ptr::write_bytes(wqe, 0, 1);
        &mut *wqe
    };
    w.wr.wr_id = wr.wr_id;
    w.wr.opcode = opcode;
    w.wr.send_flags = wr.send_flags;
    w.wr.ex.imm_data = wr.imm_data();

    let ibv_send_wr_rdma { remote_addr, rkey } = wr.rdma();
    match opcode {
        WR_RDMA_WRITE | WR_RDMA_WRITE_WITH_IMM | WR_RDMA_READ => {
            w.wr.wr.rdma.remote_addr = remote_addr;
            w.wr.wr.rdma.rkey = rkey;
        }
        WR_SEND | WR_SEND_WITH_IMM if qp_type == IBV_QPT_UD => {
            // SAFETY: caller's contract.
            unsafe { write_ud::<H>(w, wr, ctx)? };
        }
        WR_ATOMIC_CMP_AND_SWP | WR_ATOMIC_FETCH_AND_ADD => {
            let atomic = wr.atomic();
            w.wr.wr.atomic.remote_addr = atomic.remote_addr;
            w.wr.wr.atomic.compare_add = atomic.compare_add;
            w.wr.wr.atomic.swap = atomic.swap;
            w.wr.wr.atomic.rkey = atomic.rkey;
        }
        WR_BIND_MW => {
            // SAFETY: caller's contract.
            unsafe { write_bind_mw(w, wr)? };
        }
        // SEND/SEND_WITH_IMM on RC/UC, SEND_WITH_INV and LOCAL_INV (their rkey travels in `ex`), FLUSH, and
        // anything else: passed through as rdma-core does; the kernel completes an opcode it does not support
        // (FLUSH before Linux 6.2) with an error CQE.
        _ => {}
    }

    // `wr.atomic.remote_addr` and `wr.rdma.remote_addr` share their offset in `ibv_send_wr` (a C union), so this
    // is rdma-core's `iova = atomic ? wr.atomic.remote_addr : wr.rdma.remote_addr`.
    w.iova = remote_addr;
    // Bounded by max_inline (inline) or checked by the kernel against the MRs (SGEs); rdma-core stores the same
    // truncation.
    w.dma.length = length as u32;
    w.dma.resid = length as u32;
    w.dma.num_sge = num_sge;
    w.ssn = ssn;
    Ok(())
}

const _: () = {
    assert!(offset_of!(ibv_send_wr_atomic, remote_addr) == 0);
    assert!(offset_of!(ibv_send_wr_rdma, remote_addr) == 0);
};

/// The UD part of a send WQE header (inlined: measured, it costs RC posts nothing and a UD post ~20 instructions
/// less than a call).
///
/// # Safety
/// As [`write_send_wqe`].
#[inline(always)]
unsafe fn write_ud<H: RxeHost>(w: &mut rxe_send_wqe, wr: &ibv_send_wr, ctx: *mut ibv_context) -> Result<()> {
    let ud = wr.ud();
    // SAFETY: a non-NULL AH is a live AH of this provider (caller's contract).
    if ud.ah.is_null() || !unsafe { same_context(ud.ah, ctx) } {
        return Err(Errno::EINVAL);
    }
    // SAFETY: a live AH of this provider (caller's contract).
    let ah = unsafe { H::ah(ud.ah) }.ok_or(Errno::EIO)?;
    w.wr.wr.ud.remote_qpn = ud.remote_qpn;
    w.wr.wr.ud.remote_qkey = ud.remote_qkey;
    w.wr.wr.ud.ah_num = ah.ah_num;
    if ah.ah_num == 0 {
        // Kernels before 5.10 read the address vector from the WQE.
        w.wr.wr.ud.av = ah.av;
    }
    Ok(())
}

/// Whether AH `ah` was made on context `ctx` (the QP's): an AH of another device holds an address-handle number of
/// that device, which this device's kernel looks up among its own (rdma-core posts the WQE: on Linux 6.1 it completes
/// with `IBV_WC_LOC_QP_OP_ERR` and the QP goes to ERROR, or, should this device have an AH of that number on the QP's
/// PD, the datagram goes where that one points). An AH without a context (none of a real device) is not judged.
///
/// # Safety
/// `ah` is a live AH of this provider.
#[inline(always)]
pub(super) unsafe fn same_context(ah: *mut ibv_ah, ctx: *mut ibv_context) -> bool {
    // SAFETY: caller's contract.
    let c = unsafe { (*ah).context };
    c.is_null() || c == ctx
}

/// The bind-MW part of a send WQE header.
///
/// # Safety
/// As [`write_send_wqe`].
#[inline(never)]
unsafe fn write_bind_mw(w: &mut rxe_send_wqe, wr: &ibv_send_wr) -> Result<()> {
    let bind = wr.bind_mw();
    if bind.mw.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: live MW and MR (caller's contract); NULL MR is an unbind, which needs no lkey.
    let mw_rkey = unsafe { (*bind.mw).rkey };
    let mr_lkey = if bind.bind_info.mr.is_null() {
        if bind.bind_info.length != 0 {
            return Err(Errno::EINVAL);
        }
        0
    } else {
        unsafe { (*bind.bind_info.mr).lkey }
    };
    w.wr.wr.mw.addr = bind.bind_info.addr;
    w.wr.wr.mw.length = bind.bind_info.length;
    w.wr.wr.mw.mr_lkey = mr_lkey;
    w.wr.wr.mw.mw_rkey = mw_rkey;
    w.wr.wr.mw.rkey = bind.rkey;
    w.wr.wr.mw.access = bind.bind_info.mw_access_flags;
    Ok(())
}

/// Copies `sges` into a WQE's SGE array, one 16-byte element at a time (no `memcpy` call). Out of line: the usual
/// single SGE is copied by the caller.
///
/// # Safety
/// `dst` is 8-aligned with room for `sges.len()` elements.
#[inline(never)]
unsafe fn copy_sges(dst: *mut u8, sges: &[ibv_sge]) {
    let mut dst = dst.cast::<ibv_sge>();
    for sge in sges {
        // SAFETY: caller's contract; `ibv_sge` and `rxe_sge` have one layout (asserted above).
        unsafe {
            dst.write(*sge);
            dst = dst.add(1);
        }
    }
}

/// The sum of the SGEs' lengths (64-bit: no wrap-around).
#[inline(always)]
fn sge_length(sges: &[ibv_sge]) -> u64 {
    match sges {
        [sge] => sge.length as u64,
        _ => sum_lengths(sges),
    }
}

#[inline(never)]
fn sum_lengths(sges: &[ibv_sge]) -> u64 {
    sges.iter().map(|s| s.length as u64).sum()
}

/// What posting a list of send WRs works on, copied out of the SQ state for the duration of the list (so it
/// lives in registers) and written back after it: the ring, the next free index, the send sequence number and
/// the QP's limits.
struct SendCursor<'q> {
    p: Producer<'q>,
    prod: u32,
    ssn: u32,
    max_sge: u32,
    max_inline: u32,
    qp_type: u32,
    ctx: *mut ibv_context,
}

impl<'q> SendCursor<'q> {
    /// Publishes the WQE just written at `prod` and moves past it: the next SSN, the next slot.
    #[inline(always)]
    fn publish_next(&mut self) {
        self.ssn = self.ssn.wrapping_add(1);
        self.prod = self.p.next(self.prod);
        self.p.publish(self.prod);
    }

    /// The cursor at the SQ's producer index (the caller holds the SQ lock).
    #[inline(always)]
    fn new(sq: &'q Sq, qp_type: u32, ctx: *mut ibv_context) -> SendCursor<'q> {
        let p = sq.queue.producer_side();
        SendCursor { p, prod: p.index(), ssn: sq.ssn, max_sge: sq.max_sge, max_inline: sq.max_inline, qp_type, ctx }
    }
}

/// rdma-core's `post_one_send`: validates `wr`, then (`ENOMEM` when the ring is full) writes it into the slot at
/// the producer index and publishes it: errors in rdma-core's order (every check of the WR answers `EINVAL`,
/// then `ENOMEM`; a NULL AH or MW, where rdma-core would crash, is found while the WQE is written: `EINVAL`,
/// nothing published).
///
/// The WQE is built in place: the slot at the producer index is ours once the ring is not full (the kernel reads
/// only the slots from its consumer index up to, not including, the producer index, and the Acquire load of the
/// consumer index in `is_full_at` orders its reads of the slot's previous WQE before these writes). Unlike
/// rdma-core, nothing is written into a full ring's free slot: the kernel may still be looking at the WQE it
/// released last (Linux's `do_complete` reads it after advancing the consumer index).
///
/// # Safety
/// Caller holds the SQ lock (the cursor's ring); `wr`'s pointers are valid as `ibv_post_send(3)` requires.
#[inline(always)]
unsafe fn post_one_send<H: RxeHost>(c: &mut SendCursor<'_>, wr: &ibv_send_wr) -> Result<()> {
    // SAFETY: opcode is a 4-byte C enum written by the application.
    let opcode = unsafe { ffi::enum_raw(&wr.opcode) };
    // SAFETY: caller's contract.
    let sges = unsafe { sge_slice(wr.sg_list, wr.num_sge, c.max_sge)? };
    let length = sge_length(sges);
    let inline = wr.send_flags & IBV_SEND_INLINE != 0;
    if inline && length > c.max_inline as u64 {
        return Err(Errno::EINVAL);
    }
    validate_send_wr(c.qp_type, wr, opcode, length)?;
    let prod = c.prod;
    if c.p.is_full_at(prod) {
        return Err(Errno::ENOMEM);
    }
    let wqe = c.p.slot(prod).cast::<rxe_send_wqe>();
    // SAFETY: the slot is ours (above), 8-aligned, and holds at least SEND_WQE_DATA_OFFSET + max(max_sge * 16,
    // max_inline) bytes (clamped at QP creation): room for sges.len() <= max_sge SGEs, or for the inline data
    // (length <= max_inline, checked). Inline sources are readable (caller's contract).
    unsafe {
        let data = wqe.cast::<u8>().add(SEND_WQE_DATA_OFFSET);
        if inline {
            copy_inline(data, sges);
        } else if let [sge] = sges {
            data.cast::<ibv_sge>().write(*sge);
        } else {
            copy_sges(data, sges);
        }
        write_send_wqe::<H>(wqe, c.qp_type, wr, opcode, length, sges.len() as u32, c.ssn, c.ctx)?;
    }
    c.publish_next();
    Ok(())
}

/// The fast path of [`post_one_send`]: writes `wr` into the slot at the producer index and advances the cursor,
/// if `wr` has the common shape (RDMA_WRITE, RDMA_WRITE_WITH_IMM, SEND, SEND_WITH_IMM or RDMA_READ with one SGE,
/// not inline; on a UD QP with its AH) and the ring has room: none of the checks [`post_one_send`] makes can fail
/// for such a WR, and the bytes written are [`write_send_wqe`]'s (with the one SGE). Answers `false`, having
/// published nothing, for any other WR: [`post_one_send`] then posts it or refuses it.
///
/// # Safety
/// As [`post_one_send`].
#[inline(always)]
unsafe fn post_fast<H: RxeHost>(c: &mut SendCursor<'_>, wr: &ibv_send_wr) -> bool {
    // SAFETY: opcode is a 4-byte C enum written by the application.
    let opcode = unsafe { ffi::enum_raw(&wr.opcode) };
    let sge = wr.sg_list;
    if opcode > WR_RDMA_READ
        || wr.num_sge != 1
        || sge.is_null()
        || wr.send_flags & IBV_SEND_INLINE != 0
        || c.max_sge == 0
    {
        return false;
    }
    let prod = c.prod;
    if c.p.is_full_at(prod) {
        return false;
    }
    let wqe = c.p.slot(prod).cast::<rxe_send_wqe>();
    // SAFETY: the slot is ours (the ring is not full), 8-aligned, with room for max_sge >= 1 SGEs after the header
    // (clamped at QP creation); `sge` is readable (caller's contract, num_sge 1). A UD send without an AH fails
    // having written part of the slot, which nothing sees before it is published: the general path then refuses it.
    unsafe {
        let sge = *sge;
        wqe.cast::<u8>().add(SEND_WQE_DATA_OFFSET).cast::<ibv_sge>().write(sge);
        if write_send_wqe::<H>(wqe, c.qp_type, wr, opcode, u64::from(sge.length), 1, c.ssn, c.ctx).is_err() {
            return false;
        }
    }
    c.publish_next();
    true
}

/// Posts the WR list from `wr` on (the caller holds the SQ lock; `c` its state): WRs of the common shape through
/// [`post_fast`], the others through [`post_one_send`]. Returns 0 or the first failing WR's errno, with `*bad_wr`
/// set to it. Out of line: [`post_send`] posts a single WR of the common shape itself, so that this loop's
/// registers are saved only for lists and other shapes.
///
/// # Safety
/// As [`post_one_send`]; `bad_wr` writable.
#[inline(never)]
unsafe fn post_send_list<H: RxeHost>(
    sq: &mut Sq,
    qp_type: u32,
    ctx: *mut ibv_context,
    mut wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    let mut c = SendCursor::new(sq, qp_type, ctx);
    let mut rc = 0;
    while !wr.is_null() {
        // SAFETY: caller's contract: every WR in the list is readable.
        let w = unsafe { &*wr };
        // SAFETY: caller's contract.
        if !unsafe { post_fast::<H>(&mut c, w) } {
            // SAFETY: caller's contract.
            if let Err(e) = unsafe { post_one_send::<H>(&mut c, w) } {
                // SAFETY: caller's contract.
                unsafe { *bad_wr = wr };
                rc = e.0;
                break;
            }
        }
        wr = w.next;
    }
    let ssn = c.ssn;
    sq.ssn = ssn;
    rc
}

/// `ibv_post_send(3)` for rxe (`ibv_context.ops.post_send`). Returns 0 or a positive errno; on a WR's failure
/// `*bad_wr` points to it and the WRs before it are posted.
///
/// Errors: `EINVAL` (NULL `bad_wr` or `wr`, a WR failing validation, or the doorbell refused because the QP is
/// not in RTS), `ENOMEM` (SQ full). Like rdma-core, the doorbell is rung whatever happened, and its error wins.
///
/// # Safety
/// `ibqp` is a live QP of this provider; the WR list is valid as `ibv_post_send(3)` requires.
pub unsafe extern "C" fn post_send<H: RxeHost>(
    ibqp: *mut ibv_qp,
    wr_list: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    if bad_wr.is_null() {
        return Errno::EINVAL.0;
    }
    // SAFETY: non-NULL out-parameter; rdma-core clears it first too.
    unsafe { *bad_wr = ptr::null_mut() };
    if ibqp.is_null() || wr_list.is_null() {
        return Errno::EINVAL.0;
    }
    ffi::datapath_boundary("ibv_post_send", || {
        // SAFETY: caller's contract.
        let Some(qp) = (unsafe { H::qp(ibqp) }) else { return Ok(Errno::EIO.0) };
        let (rc, caps) = {
            let mut sq = qp.sq.lock();
            // A single WR of the common shape is posted here, with no loop and no call, from a cursor that lives
            // in registers; a list, or any other WR, goes through the out-of-line loop (with a cursor of its own).
            // SAFETY: caller's contract: the list's WRs are readable.
            let single = unsafe { (*wr_list).next.is_null() } && {
                // SAFETY: a live QP (caller's contract).
                let mut c = SendCursor::new(&sq, qp.qp_type(), unsafe { (*ibqp).context });
                // SAFETY: as above; the SQ lock is held.
                let posted = unsafe { post_fast::<H>(&mut c, &*wr_list) };
                if posted {
                    sq.ssn = c.ssn;
                }
                posted
            };
            // SAFETY: caller's contract.
            let rc = if single {
                0
            } else {
                unsafe { post_send_list::<H>(&mut sq, qp.qp_type(), (*ibqp).context, wr_list, bad_wr) }
            };
            // Only the refusal's explanation needs them.
            let caps = if rc != 0 { (qp.qp_type(), sq.max_sge, sq.max_inline) } else { (0, 0, 0) };
            (rc, caps)
        };
        if rc != 0 {
            // Explained after the loop and the lock: nothing in the loop keeps `ibqp` or the limits live for it.
            // SAFETY: live QP; `*bad_wr` is the refused WR, readable (caller's contract).
            unsafe { send_refused(ibqp, *bad_wr, rc, caps.0, caps.1, caps.2) };
        }
        // SAFETY: caller's contract.
        Ok(match unsafe { H::post_send_doorbell(ibqp) } {
            Err(e) => {
                // SAFETY: live QP.
                unsafe { doorbell_refused(ibqp, e.0) };
                e.0
            }
            Ok(()) => rc,
        })
    })
    .unwrap_or_else(|e| e.0)
}

/// Logs why `wr` was refused (cold, out of line, `extern "C"` so the post loop knows it cannot unwind: the loop
/// only branches here, with values it holds, and keeps no unwinding state).
///
/// # Safety
/// `ibqp` is live; `wr` readable.
#[cold]
#[inline(never)]
unsafe extern "C" fn send_refused(
    ibqp: *mut ibv_qp,
    wr: *const ibv_send_wr,
    e: c_int,
    qp_type: u32,
    max_sge: u32,
    max_inline: u32,
) {
    let e = Errno(e);
    explain::quietly(|| {
        // SAFETY: caller's contract.
        unsafe {
            explain::wr_refused("ibv_post_send", Queue::Qp(ibqp), wr, e, |w| {
                send_why(w, e, qp_type, max_sge, max_inline)
            })
        }
    });
}

/// Logs that the kernel refused the send doorbell (cold, out of line, as [`send_refused`]).
///
/// # Safety
/// `ibqp` is live.
#[cold]
#[inline(never)]
unsafe extern "C" fn doorbell_refused(ibqp: *mut ibv_qp, e: c_int) {
    explain::quietly(|| {
        // SAFETY: caller's contract.
        unsafe { explain::doorbell_refused(ibqp, Errno(e), "the QP is not ready to send (below RTS, or in ERROR)") }
    });
}

/// Logs why receive `wr` was refused (cold, out of line, as [`send_refused`]); `max_sge` `u32::MAX` for an SRQ
/// that lost its ring.
///
/// # Safety
/// `wr` readable.
#[cold]
#[inline(never)]
unsafe extern "C" fn recv_refused(srq: bool, wr: *const ibv_recv_wr, e: c_int, max_sge: u32) {
    let e = Errno(e);
    let call = if srq { "ibv_post_srq_recv" } else { "ibv_post_recv" };
    explain::quietly(|| {
        // SAFETY: caller's contract.
        unsafe {
            explain::wr_refused(call, Queue::Unnamed, wr, e, |w| {
                if max_sge == u32::MAX {
                    "the SRQ lost its ring in a failed resize".into()
                } else {
                    recv_why(w, e, max_sge)
                }
            })
        }
    });
}

/// Why [`post_one_send`] refused `wr` with `e`: its checks again, in its order, in words (cold: the failure path
/// only).
#[cold]
fn send_why(wr: &ibv_send_wr, e: Errno, qp_type: u32, max_sge: u32, max_inline: u32) -> String {
    if let Some(p) = explain::sge_problem(wr.num_sge, wr.sg_list.is_null(), max_sge, "max_send_sge") {
        return p;
    }
    // SAFETY: opcode is a 4-byte C enum written by the application.
    let opcode = unsafe { ffi::enum_raw(&wr.opcode) };
    let name = explain::send_opcode_name(opcode);
    // SAFETY: the SGE list passed the checks above: `num_sge` readable entries.
    let length = unsafe { explain::sge_bytes(wr.sg_list, wr.num_sge) };
    if wr.send_flags & IBV_SEND_INLINE != 0 && length > u64::from(max_inline) {
        return format!("IBV_SEND_INLINE with {length} bytes > max_inline_data {max_inline}");
    }
    if opcode > IBV_WR_DRIVER1 && opcode != WR_ATOMIC_WRITE {
        return format!("{name} is not an enum ibv_wr_opcode value");
    }
    if opcode == WR_ATOMIC_CMP_AND_SWP || opcode == WR_ATOMIC_FETCH_AND_ADD {
        let atomic = wr.atomic();
        if length < 8 {
            return format!("{name} with {length} bytes of local buffer (needs 8)");
        }
        if atomic.remote_addr & 7 != 0 {
            return format!("{name} remote_addr {:#x} is not 8-byte aligned", atomic.remote_addr);
        }
    }
    if opcode == WR_BIND_MW {
        if length != 0 || wr.num_sge != 0 || wr.imm_data() != 0 {
            return format!("{name} carries data, SGEs or immediate data");
        }
        if qp_type != IBV_QPT_RC && qp_type != IBV_QPT_UC {
            return format!("{name} on a QP that is neither RC nor UC");
        }
        if wr.bind_mw().mw.is_null() {
            return format!("{name} with a NULL bind_mw.mw");
        }
        return format!("{name} unbinding (NULL bind_info.mr) with a non-zero length");
    }
    if e == Errno::ENOMEM {
        return "send queue full: every slot holds a WR not completed yet (poll the send CQ, or create the QP with a \
                larger cap.max_send_wr)"
            .into();
    }
    if qp_type == IBV_QPT_UD {
        if wr.ud().ah.is_null() {
            return "UD send without an address handle (wr.ud.ah is NULL)".into();
        }
        return "wr.ud.ah is not an address handle of this QP's device (made on another context, or not one)".into();
    }
    format!("{name} refused")
}

/// `ibv_bind_mw(3)` for rxe (`ibv_context.ops.bind_mw`; the `ibv_bind_mw` inline has already checked the MW
/// type and the MR/PD pairing): posts a bind-MW WR with the MW's next rkey (`ibv_inc_rkey`) and, once posted,
/// stores that rkey in `mw->rkey` (undo it yourself on an error completion, as with rdma-core).
///
/// Errors: `EINVAL` for NULL arguments or `IBV_ACCESS_ZERO_BASED`; else as [`post_send`]. Sets `errno` too.
///
/// # Safety
/// Live objects of this provider; `mw_bind` readable.
pub unsafe extern "C" fn bind_mw<H: RxeHost>(ibqp: *mut ibv_qp, mw: *mut ibv_mw, mw_bind: *mut ibv_mw_bind) -> c_int {
    let ret = (|| {
        if ibqp.is_null() || mw.is_null() || mw_bind.is_null() {
            return Errno::EINVAL.0;
        }
        // SAFETY: non-NULL, caller's contract.
        let (bind, old_rkey) = unsafe { (*mw_bind, (*mw).rkey) };
        if bind.bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED != 0 {
            return Errno::EINVAL.0;
        }
        let new_rkey = (old_rkey & !0xff) | (old_rkey.wrapping_add(1) & 0xff);
        // SAFETY: an all-zero ibv_send_wr is valid (NULL pointers, zero integers, opcode 0 is a variant).
        let mut wr: ibv_send_wr = unsafe { MaybeUninit::zeroed().assume_init() };
        wr.wr_id = bind.wr_id;
        wr.opcode = ibv_wr_opcode::IBV_WR_BIND_MW;
        wr.send_flags = bind.send_flags;
        wr.ext.bind_mw = ibv_send_wr_bind_mw { mw, rkey: new_rkey, bind_info: bind.bind_info };
        let mut bad = ptr::null_mut();
        // SAFETY: a well-formed one-element list.
        let rc = unsafe { post_send::<H>(ibqp, &mut wr, &mut bad) };
        if rc == 0 {
            // SAFETY: live MW.
            unsafe { (*mw).rkey = new_rkey };
        }
        rc
    })();
    if ret != 0 {
        Errno(ret).set();
    }
    ret
}

// ---------------------------------------------------------------------------------------------------------------
// ibv_post_recv, ibv_post_srq_recv
// ---------------------------------------------------------------------------------------------------------------

/// rdma-core's `rxe_post_one_recv`: `ENOMEM` when the ring is full, `EINVAL` for too many SGEs (in that
/// order, as rdma-core checks them); else writes the WQE at `prod` (the caller publishes it).
///
/// # Safety
/// Caller holds the RQ lock (`p`'s ring); `wr` is valid as `ibv_post_recv(3)` requires.
#[inline(always)]
unsafe fn post_one_recv(p: Producer<'_>, prod: u32, max_sge: u32, wr: &ibv_recv_wr) -> Result<()> {
    if p.is_full_at(prod) {
        return Err(Errno::ENOMEM);
    }
    // SAFETY: caller's contract.
    let sges = unsafe { sge_slice(wr.sg_list, wr.num_sge, max_sge)? };
    let slot = p.slot(prod);
    // SAFETY: our unpublished slot (not full: checked), 8-aligned, with room for max_sge SGEs (checked at
    // creation); built in place: the header zeroed and filled, the SGEs copied one element at a time.
    unsafe {
        let w = slot.cast::<rxe_recv_wqe>();
        ptr::write_bytes(w, 0, 1);
        let w = &mut *w;
        w.wr_id = wr.wr_id;
        let data = slot.add(RECV_WQE_DATA_OFFSET).cast::<ibv_sge>();
        // rdma-core sums into an int and stores it in a u32: the same wrapping sum.
        let length = if let [sge] = sges {
            data.write(*sge);
            sge.length
        } else {
            let mut length = 0u32;
            for (i, sge) in sges.iter().enumerate() {
                data.add(i).write(*sge);
                length = length.wrapping_add(sge.length);
            }
            length
        };
        w.dma.length = length;
        w.dma.resid = length;
        w.dma.num_sge = sges.len() as u32;
    }
    Ok(())
}

/// Why [`post_one_recv`] refused `wr` with `e` (cold: the failure path only).
#[cold]
fn recv_why(wr: &ibv_recv_wr, e: Errno, max_sge: u32) -> String {
    if e == Errno::ENOMEM {
        return "receive queue full: every slot holds a receive not consumed yet (poll the receive CQ, or create the \
                queue with a larger max_recv_wr)"
            .into();
    }
    explain::sge_problem(wr.num_sge, wr.sg_list.is_null(), max_sge, "max_recv_sge").unwrap_or_else(|| "refused".into())
}

/// Posts a receive list under the RQ lock; `*bad_wr` gets the first failing WR. `ibqp` is the QP whose RQ this
/// is, NULL for an SRQ. A queue without a ring is `EINVAL`: for a QP, one that receives through an SRQ (`*bad_wr`
/// left NULL); for an SRQ, one that lost its ring in a failed resize (`*bad_wr` the first WR).
///
/// # Safety
/// As [`post_one_recv`]; `bad_wr` writable; `ibqp` NULL or the live QP.
#[inline(always)]
unsafe fn post_recv_list<E>(
    ibqp: *mut ibv_qp,
    rq: &crate::provider::spin::SpinLock<Rq, E>,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    let srq = ibqp.is_null();
    let rq = rq.lock();
    let Some(q) = rq.queue.as_ref() else {
        if !srq {
            // SAFETY: live QP, readable WR (caller's contract).
            unsafe { explain::qp_recv_refused(ibqp, wr, 0) };
            return Errno::EINVAL.0;
        }
        if !wr.is_null() {
            // SAFETY: caller's contract.
            unsafe { *bad_wr = wr };
            // SAFETY: a readable WR.
            unsafe { recv_refused(srq, wr, libc::EINVAL, u32::MAX) };
            return Errno::EINVAL.0;
        }
        return 0;
    };
    let p = q.producer_side();
    let prod = p.index();
    // SAFETY: caller's contract: a non-NULL WR is readable.
    if wr.is_null() || !unsafe { (*wr).next.is_null() } {
        // SAFETY: caller's contract.
        return unsafe { post_recv_loop(srq, p, prod, rq.max_sge, wr, bad_wr) };
    }
    // One WR, the usual call: no loop here, so no registers saved for one.
    // SAFETY: caller's contract.
    match unsafe { post_one_recv(p, prod, rq.max_sge, &*wr) } {
        Ok(()) => {
            p.publish(p.next(prod));
            0
        }
        Err(e) => {
            // SAFETY: caller's contract.
            unsafe { *bad_wr = wr };
            // SAFETY: `wr` was just read.
            unsafe { recv_refused(srq, wr, e.0, rq.max_sge) };
            e.0
        }
    }
}

/// The list case of [`post_recv_list`] (out of line: a single WR does not pay for the loop's registers).
///
/// # Safety
/// As [`post_recv_list`], with the RQ lock held (`p` its ring, `prod` its producer index).
#[inline(never)]
unsafe fn post_recv_loop(
    srq: bool,
    p: Producer<'_>,
    mut prod: u32,
    max_sge: u32,
    mut wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    while !wr.is_null() {
        // SAFETY: caller's contract.
        if let Err(e) = unsafe { post_one_recv(p, prod, max_sge, &*wr) } {
            // SAFETY: caller's contract.
            unsafe { *bad_wr = wr };
            // SAFETY: `wr` was just read.
            unsafe { recv_refused(srq, wr, e.0, max_sge) };
            return e.0;
        }
        prod = p.next(prod);
        p.publish(prod);
        // SAFETY: caller's contract.
        wr = unsafe { (*wr).next };
    }
    0
}

/// `ibv_post_recv(3)` for rxe (`ibv_context.ops.post_recv`). Returns 0 or a positive errno with `*bad_wr` set to
/// the failing WR. No doorbell: the kernel reads the RQ when a message arrives.
///
/// Errors: `EINVAL` (NULL `bad_wr` or list, a QP that receives through an SRQ, a QP in RESET (C10-97.2.1), too
/// many SGEs), `ENOMEM` (RQ full).
///
/// # Safety
/// `ibqp` is a live QP of this provider; the WR list is valid as `ibv_post_recv(3)` requires.
pub unsafe extern "C" fn post_recv<H: RxeHost>(
    ibqp: *mut ibv_qp,
    wr_list: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    if bad_wr.is_null() {
        return Errno::EINVAL.0;
    }
    // SAFETY: non-NULL out-parameter.
    unsafe { *bad_wr = ptr::null_mut() };
    if ibqp.is_null() || wr_list.is_null() {
        return Errno::EINVAL.0;
    }
    ffi::datapath_boundary("ibv_post_recv", || {
        // SAFETY: caller's contract.
        let qp = unsafe { H::qp(ibqp) }.ok_or(Errno::EIO)?;
        // The object layer keeps `ibv_qp.state` current on every modify/query, as rdma-core's core does.
        // SAFETY: live QP; a 4-byte C enum.
        if unsafe { ffi::enum_raw(ptr::addr_of!((*ibqp).state)) } == IBV_QPS_RESET {
            // SAFETY: live QP, readable WR.
            unsafe { explain::qp_recv_refused(ibqp, wr_list, 1) };
            return Ok(Errno::EINVAL.0);
        }
        // SAFETY: caller's contract.
        Ok(unsafe { post_recv_list(ibqp, &qp.rq, wr_list, bad_wr) })
    })
    .unwrap_or_else(|e| e.0)
}

/// `ibv_post_srq_recv(3)` for rxe (`ibv_context.ops.post_srq_recv`). Returns 0 or a positive errno with
/// `*bad_wr` set to the failing WR; an empty list posts nothing and returns 0, as in rdma-core.
///
/// Errors: `EINVAL` (NULL `bad_wr`, too many SGEs, SRQ without a ring after a failed resize), `ENOMEM` (full).
///
/// # Safety
/// `ibsrq` is a live SRQ of this provider; the WR list is valid as `ibv_post_srq_recv(3)` requires.
pub unsafe extern "C" fn post_srq_recv<H: RxeHost>(
    ibsrq: *mut ibv_srq,
    wr_list: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    if ibsrq.is_null() || bad_wr.is_null() {
        return Errno::EINVAL.0;
    }
    ffi::datapath_boundary("ibv_post_srq_recv", || {
        // SAFETY: caller's contract.
        let srq = unsafe { H::srq(ibsrq) }.ok_or(Errno::EIO)?;
        // SAFETY: caller's contract.
        Ok(unsafe { post_recv_list(ptr::null_mut(), &srq.rq, wr_list, bad_wr) })
    })
    .unwrap_or_else(|e| e.0)
}

#[cfg(test)]
mod tests;
