//! The `ibv_qp_ex` work-request builders (`ibv_wr_post(3)`): `wr_start`, the `wr_*` builders and `wr_set_*`
//! setters, `wr_complete` / `wr_abort`, writing WQEs straight into the send ring as [`super::post`]'s
//! `ibv_post_send` does (same WQE layout, same hardenings: see that module's list). [`super::batch`] wraps
//! `wr_start`/`wr_complete`/`wr_abort` with the re-entry check; [`super::set_qp_send_ops`] installs them.
//!
//! Nothing here allocates, logs or makes a system call except the doorbell ([`RxeHost::post_send_doorbell`]).
#![allow(unsafe_code)]

use super::abi::{rxe_send_wqe, FlushWr, FromBytes, SEND_WQE_DATA_OFFSET};
use super::post::{
    WR_ATOMIC_CMP_AND_SWP, WR_ATOMIC_FETCH_AND_ADD, WR_ATOMIC_WRITE, WR_BIND_MW, WR_FLUSH, WR_LOCAL_INV, WR_RDMA_READ,
    WR_RDMA_WRITE, WR_RDMA_WRITE_WITH_IMM, WR_SEND, WR_SEND_WITH_IMM, WR_SEND_WITH_INV,
};
use super::{RxeHost, RxeQp, Sq};
use crate::provider::verbs::*;
use rdma_common::{errno::Result, Errno};
use std::ffi::{c_int, c_uint, c_void};
use std::mem::size_of;
use std::ptr;

/// A send WQE header with every byte zero.
#[inline(always)]
fn zeroed_send_wqe() -> rxe_send_wqe {
    <rxe_send_wqe as FromBytes>::zeroed()
}

// `wr_start` takes the SQ lock and leaves it held (the guard is forgotten) until `wr_complete`/`wr_abort`, which
// release it with `force_unlock`: the C API makes these calls one critical section (`ibv_wr_post(3)`,
// CONCURRENCY). In between, builders and setters reach the SQ state through the mutex's data pointer.
//
// Builders write a zeroed WQE header into the slot at `cur_index` and advance it (nothing is published); setters
// amend the WQE built last. The first error is kept in `err`, later calls are ignored, and `wr_complete` returns
// it and drops the batch.
//
// The checks a call makes are one comparison each on its usual path, every other check on an out-of-line path
// that comparison sends everything else to:
// * a builder tests the host's room counter ([`RxeHost::qp_wr_room`]), which is non-zero only inside an rxe batch
//   that has not failed and with a slot it may fill (counted from the kernel's consumer index as last read);
//   at 0 the checked path refuses a call outside a batch, on another provider's QP or after an error, looks at
//   the ring again when it was full, and records `ENOSPC` when it still is;
// * a setter, once the QP is known to be rxe's, tests `Sq::last`, non-zero only when a WQE was built in a batch
//   that has not failed; at 0 the checked path refuses a call outside a batch and records `EINVAL` inside one.
// Every way out of a batch (complete, abort, the first error) zeroes both, so a call after it is refused as
// before; a call while *another* thread's batch is open is not refused, as it was not before (the lock being
// held was all the old check could see).

/// The QP state and its SQ, if inside a `wr_start` critical section.
///
/// # Safety
/// `ibqp` is a live QP of this provider, and the caller is the thread that called `wr_start`.
#[inline(always)]
unsafe fn batch<'a, H: RxeHost>(ibqp: *mut ibv_qp_ex) -> Option<(&'a RxeQp, &'a mut Sq)> {
    // SAFETY: ibv_qp_ex starts with ibv_qp (caller's contract).
    let qp = unsafe { H::qp(ibqp.cast()) }?;
    if !qp.sq.is_locked() {
        return None;
    }
    // SAFETY: the lock is held by this critical section (caller's contract), so we have exclusive access.
    Some((qp, unsafe { &mut *qp.sq.data_ptr() }))
}

/// Records the batch's first error `e` (a later one is ignored) and closes both fast paths for the rest of it.
///
/// # Safety
/// `ibqp` is the live rxe QP whose batch `sq` is (lock held).
#[inline(always)]
pub(crate) unsafe fn fail<H: RxeHost>(ibqp: *mut ibv_qp_ex, sq: &mut Sq, e: c_int) {
    if sq.err == 0 {
        sq.err = e;
    }
    // SAFETY: caller's contract.
    unsafe { close_batch::<H>(ibqp, sq) };
}

/// Closes both fast paths of the batch (no WQE to amend, no room): what a failure, `wr_complete` and `wr_abort`
/// leave behind, so that only `wr_start` opens them again.
///
/// # Safety
/// `ibqp` is the live rxe QP whose batch `sq` is (lock held).
#[inline(always)]
unsafe fn close_batch<H: RxeHost>(ibqp: *mut ibv_qp_ex, sq: &mut Sq) {
    sq.last = 0;
    // SAFETY: the host's counter of a live QP; written under the SQ lock, which the batch holds.
    unsafe { *H::qp_wr_room(ibqp.cast()) = 0 };
}

/// How many slots from `sq.cur_index` on may be filled, from the kernel's consumer index (rdma-core's
/// `check_qp_queue_full`, for all of them at once).
#[inline(always)]
fn free_slots(sq: &Sq) -> u32 {
    let p = sq.queue.producer_side();
    // The slot before the consumer's always stays empty (queue.rs): free = (cons - 1 - cur) & mask.
    p.consumer().wrapping_sub(1).wrapping_sub(sq.cur_index) & sq.queue.index_mask()
}

/// A builder's checked path, taken when the room counter is 0: whether a WQE may be built now (the room counter
/// is then non-zero again), after refusing a call outside a batch or on another provider's QP, ignoring one
/// after an error, and recording `ENOSPC` when the ring is still full.
///
/// # Safety
/// As [`batch`].
#[cold]
#[inline(never)]
unsafe fn admit<H: RxeHost>(ibqp: *mut ibv_qp_ex) -> bool {
    // SAFETY: caller's contract.
    let Some((_, sq)) = (unsafe { batch::<H>(ibqp) }) else { return false };
    if sq.err != 0 {
        return false;
    }
    let free = free_slots(sq);
    if free == 0 {
        // SAFETY: our batch.
        unsafe { fail::<H>(ibqp, sq, Errno::ENOSPC.0) };
        return false;
    }
    // SAFETY: the host's counter of a live QP; the batch holds the lock.
    unsafe { *H::qp_wr_room(ibqp.cast()) = free };
    true
}

/// A builder: a new WQE with `opcode`, the QP's `wr_id`/`wr_flags`, amended by `fill`, at `cur_index`.
///
/// # Safety
/// As [`batch`].
#[inline(always)]
unsafe fn build<H: RxeHost, F: FnOnce(&mut rxe_send_wqe, *mut u8) -> Result<()>>(
    ibqp: *mut ibv_qp_ex,
    opcode: u32,
    fill: F,
) {
    // SAFETY: the host's counter of a live QP (caller's contract).
    if unsafe { *H::qp_wr_room(ibqp.cast()) } == 0 {
        // SAFETY: caller's contract.
        return unsafe { build_checked::<H, F>(ibqp, opcode, fill) };
    }
    // SAFETY: caller's contract; the room is non-zero.
    unsafe { build_admitted::<H, F>(ibqp, opcode, fill) }
}

/// [`build`] when the room counter is 0: [`admit`], then the WQE. Out of line (a tail call), so that the usual
/// path keeps nothing across a call.
///
/// # Safety
/// As [`batch`].
#[cold]
#[inline(never)]
unsafe fn build_checked<H: RxeHost, F: FnOnce(&mut rxe_send_wqe, *mut u8) -> Result<()>>(
    ibqp: *mut ibv_qp_ex,
    opcode: u32,
    fill: F,
) {
    // SAFETY: caller's contract.
    if unsafe { admit::<H>(ibqp) } {
        // SAFETY: admitted: the room is non-zero.
        unsafe { build_admitted::<H, F>(ibqp, opcode, fill) }
    }
}

/// The WQE itself, once the room counter is non-zero: inside an rxe batch that has not failed, with the slot at
/// `cur_index` free.
///
/// # Safety
/// As [`batch`], with the room counter non-zero.
#[inline(always)]
unsafe fn build_admitted<H: RxeHost, F: FnOnce(&mut rxe_send_wqe, *mut u8) -> Result<()>>(
    ibqp: *mut ibv_qp_ex,
    opcode: u32,
    fill: F,
) {
    // SAFETY: an rxe QP (only then is the room non-zero), whose SQ lock this batch holds.
    let sq = unsafe { &mut *H::qp(ibqp.cast()).unwrap_unchecked().sq.data_ptr() };
    let mut wqe = zeroed_send_wqe();
    // SAFETY: live ibv_qp_ex; the application sets these public fields before calling the builder.
    unsafe {
        wqe.wr.wr_id = (*ibqp).wr_id;
        wqe.wr.send_flags = (*ibqp).wr_flags;
    }
    wqe.wr.opcode = opcode;
    let off = sq.queue.slot_offset(sq.cur_index);
    // SAFETY: a slot offset of this ring.
    let slot = unsafe { sq.queue.at_offset(off) };
    // SAFETY: the slot is unpublished (free: counted) and longer than the WQE header.
    let data = unsafe { slot.add(SEND_WQE_DATA_OFFSET) };
    if let Err(e) = fill(&mut wqe, data) {
        // SAFETY: our batch.
        unsafe { fail::<H>(ibqp, sq, e.0) };
        return;
    }
    wqe.ssn = sq.ssn;
    sq.ssn = sq.ssn.wrapping_add(1);
    // SAFETY: unpublished slot of this batch, 8-aligned, at least a WQE header long.
    unsafe { ptr::write(slot.cast::<rxe_send_wqe>(), wqe) };
    sq.last = off;
    sq.cur_index = sq.queue.next(sq.cur_index);
    // SAFETY: the host's counter of a live QP, under the SQ lock; non-zero (caller's contract).
    unsafe { *H::qp_wr_room(ibqp.cast()) -= 1 };
}

/// A setter: `f` amends the last WQE built in this batch (and may write its data area, which has
/// `slot_room` bytes). `EINVAL` is recorded when no WQE was built yet.
///
/// # Safety
/// As [`batch`].
#[inline(always)]
unsafe fn amend<H: RxeHost>(ibqp: *mut ibv_qp_ex, f: impl FnOnce(&Sq, *mut rxe_send_wqe) -> Result<()>) {
    // SAFETY: caller's contract.
    let Some(qp) = (unsafe { H::qp(ibqp.cast()) }) else { return };
    let sq = qp.sq.data_ptr();
    // A plain read: non-zero only inside this thread's batch (see the module's notes); 0 outside any.
    // SAFETY: the SQ state of a live QP.
    let last = unsafe { ptr::addr_of!((*sq).last).read() };
    if last == 0 {
        // SAFETY: caller's contract.
        return unsafe { amend_refused::<H>(ibqp) };
    }
    // SAFETY: inside this batch (last non-zero), whose lock is held.
    let sq = unsafe { &mut *sq };
    // SAFETY: `last` is a slot offset of this ring (set by `build`).
    let wqe = unsafe { sq.queue.at_offset(last) }.cast::<rxe_send_wqe>();
    if let Err(e) = f(sq, wqe) {
        // SAFETY: our batch.
        unsafe { fail::<H>(ibqp, sq, e.0) };
    }
}

/// A setter's checked path (`Sq::last` is 0): nothing outside a batch or after an error; `EINVAL` recorded
/// inside one where no WQE was built yet.
///
/// # Safety
/// As [`batch`].
#[cold]
#[inline(never)]
unsafe fn amend_refused<H: RxeHost>(ibqp: *mut ibv_qp_ex) {
    // SAFETY: caller's contract.
    if let Some((_, sq)) = unsafe { batch::<H>(ibqp) } {
        // SAFETY: our batch.
        unsafe { fail::<H>(ibqp, sq, Errno::EINVAL.0) };
    }
}

/// `ibv_wr_start(3)`: enters the QP's posting critical section (takes the SQ lock until `wr_complete` or
/// `wr_abort`).
///
/// # Safety
/// `ibqp` is a live QP of this provider created with send ops flags.
pub unsafe extern "C" fn wr_start<H: RxeHost>(ibqp: *mut ibv_qp_ex) {
    // SAFETY: caller's contract.
    let Some(qp) = (unsafe { H::qp(ibqp.cast()) }) else { return };
    std::mem::forget(qp.sq.lock());
    // SAFETY: just locked.
    let sq = unsafe { &mut *qp.sq.data_ptr() };
    sq.err = 0;
    sq.last = 0;
    sq.cur_index = sq.queue.producer_side().index();
    // SAFETY: the host's counter of a live QP, under the SQ lock.
    unsafe { *H::qp_wr_room(ibqp.cast()) = free_slots(sq) };
}

/// `ibv_wr_complete(3)`: publishes the batch and rings the doorbell, or drops the batch if any call in it failed.
/// Returns 0 or a positive errno: the batch's first error (`ENOSPC` SQ full or data too long, `EINVAL` bad
/// argument), or the doorbell's (`EINVAL` before RTS). `EINVAL` outside a critical section.
///
/// # Safety
/// As [`wr_start`], same thread.
pub unsafe extern "C" fn wr_complete<H: RxeHost>(ibqp: *mut ibv_qp_ex) -> c_int {
    // SAFETY: caller's contract.
    let Some((qp, sq)) = (unsafe { batch::<H>(ibqp) }) else { return Errno::EINVAL.0 };
    let err = sq.err;
    if err == 0 {
        sq.queue.producer_side().publish(sq.cur_index);
    }
    // SAFETY: this thread's batch, lock held.
    unsafe { close_batch::<H>(ibqp, sq) };
    // SAFETY: held since wr_start by this critical section.
    unsafe { qp.sq.force_unlock() };
    if err != 0 {
        return err;
    }
    // SAFETY: caller's contract.
    match unsafe { H::post_send_doorbell(ibqp.cast()) } {
        Ok(()) => 0,
        Err(e) => e.0,
    }
}

/// `ibv_wr_abort(3)`: drops every WR built since `wr_start` and leaves the critical section.
///
/// # Safety
/// As [`wr_start`], same thread.
pub unsafe extern "C" fn wr_abort<H: RxeHost>(ibqp: *mut ibv_qp_ex) {
    // SAFETY: caller's contract.
    if let Some((qp, sq)) = unsafe { batch::<H>(ibqp) } {
        // SAFETY: this thread's batch, lock held.
        unsafe { close_batch::<H>(ibqp, sq) };
        // SAFETY: held since wr_start by this critical section.
        unsafe { qp.sq.force_unlock() };
    }
}

/// `ibv_wr_atomic_cmp_swp(3)`.
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_atomic_cmp_swp<H: RxeHost>(
    ibqp: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    compare: u64,
    swap: u64,
) {
    // SAFETY: caller's contract.
    unsafe {
        build::<H, _>(ibqp, WR_ATOMIC_CMP_AND_SWP, move |w, _| {
            w.wr.wr.atomic.remote_addr = remote_addr;
            w.wr.wr.atomic.compare_add = compare;
            w.wr.wr.atomic.swap = swap;
            w.wr.wr.atomic.rkey = rkey;
            w.iova = remote_addr;
            Ok(())
        })
    }
}

/// `ibv_wr_atomic_fetch_add(3)`.
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_atomic_fetch_add<H: RxeHost>(ibqp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, add: u64) {
    // SAFETY: caller's contract.
    unsafe {
        build::<H, _>(ibqp, WR_ATOMIC_FETCH_AND_ADD, move |w, _| {
            w.wr.wr.atomic.remote_addr = remote_addr;
            w.wr.wr.atomic.compare_add = add;
            w.wr.wr.atomic.rkey = rkey;
            w.iova = remote_addr;
            Ok(())
        })
    }
}

/// `ibv_wr_bind_mw(3)`: binds `mw` with the new `rkey` (the caller computes it, e.g. `ibv_inc_rkey`).
/// `EINVAL` (recorded) for NULL `mw`/`info`, or a NULL MR with a non-zero length.
///
/// # Safety
/// As [`wr_start`], inside its critical section; `mw`, `info` and `info->mr` live if non-NULL.
pub unsafe extern "C" fn wr_bind_mw<H: RxeHost>(
    ibqp: *mut ibv_qp_ex,
    mw: *mut ibv_mw,
    rkey: u32,
    info: *const ibv_mw_bind_info,
) {
    // SAFETY: caller's contract.
    unsafe {
        build::<H, _>(ibqp, WR_BIND_MW, move |w, _| {
            if mw.is_null() || info.is_null() {
                return Err(Errno::EINVAL);
            }
            let info = &*info;
            let mr_lkey = if info.mr.is_null() {
                if info.length != 0 {
                    return Err(Errno::EINVAL);
                }
                0
            } else {
                (*info.mr).lkey
            };
            w.wr.wr.mw.addr = info.addr;
            w.wr.wr.mw.length = info.length;
            w.wr.wr.mw.mr_lkey = mr_lkey;
            w.wr.wr.mw.mw_rkey = (*mw).rkey;
            w.wr.wr.mw.rkey = rkey;
            w.wr.wr.mw.access = info.mw_access_flags;
            Ok(())
        })
    }
}

/// `ibv_wr_local_inv(3)`.
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_local_inv<H: RxeHost>(ibqp: *mut ibv_qp_ex, invalidate_rkey: u32) {
    // SAFETY: caller's contract.
    unsafe {
        build::<H, _>(ibqp, WR_LOCAL_INV, move |w, _| {
            w.wr.ex.invalidate_rkey = invalidate_rkey;
            Ok(())
        })
    }
}

/// `ibv_wr_rdma_read(3)`.
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_rdma_read<H: RxeHost>(ibqp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64) {
    // SAFETY: caller's contract.
    unsafe { build::<H, _>(ibqp, WR_RDMA_READ, move |w, _| rdma(w, rkey, remote_addr)) }
}

/// `ibv_wr_rdma_write(3)`.
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_rdma_write<H: RxeHost>(ibqp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64) {
    // SAFETY: caller's contract.
    unsafe { build::<H, _>(ibqp, WR_RDMA_WRITE, move |w, _| rdma(w, rkey, remote_addr)) }
}

/// `ibv_wr_rdma_write_imm(3)`; `imm_data` is big-endian, as given.
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_rdma_write_imm<H: RxeHost>(
    ibqp: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    imm_data: u32,
) {
    // SAFETY: caller's contract.
    unsafe {
        build::<H, _>(ibqp, WR_RDMA_WRITE_WITH_IMM, move |w, _| {
            w.wr.ex.imm_data = imm_data;
            rdma(w, rkey, remote_addr)
        })
    }
}

#[inline(always)]
fn rdma(w: &mut rxe_send_wqe, rkey: u32, remote_addr: u64) -> Result<()> {
    w.wr.wr.rdma.remote_addr = remote_addr;
    w.wr.wr.rdma.rkey = rkey;
    w.iova = remote_addr;
    Ok(())
}

/// `ibv_wr_atomic_write(3)`: writes the 8 bytes at `atomic_wr` to `remote_addr` atomically (kernel 6.2+; older
/// kernels complete it with an error). `EINVAL` (recorded) for NULL `atomic_wr`.
///
/// # Safety
/// As [`wr_start`], inside its critical section; `atomic_wr` readable for 8 bytes if non-NULL.
pub unsafe extern "C" fn wr_atomic_write<H: RxeHost>(
    ibqp: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    atomic_wr: *const c_void,
) {
    if atomic_wr.is_null() {
        // SAFETY: caller's contract.
        if let Some((_, sq)) = unsafe { batch::<H>(ibqp) } {
            // SAFETY: our batch.
            unsafe { fail::<H>(ibqp, sq, Errno::EINVAL.0) };
        }
        return;
    }
    // SAFETY: caller's contract: 8 readable bytes.
    let value: [u8; 8] = unsafe { atomic_wr.cast::<[u8; 8]>().read_unaligned() };
    // SAFETY: caller's contract.
    unsafe {
        build::<H, _>(ibqp, WR_ATOMIC_WRITE, move |w, data| {
            rdma(w, rkey, remote_addr)?;
            // `dma.atomic_wr` (6.2+) is the start of the data area.
            ptr::write_unaligned(data.cast::<[u8; 8]>(), value);
            w.dma.length = 8;
            w.dma.resid = 8;
            Ok(())
        })
    }
}

/// `ibv_wr_flush` (rdma-core 56; the `ibv_qp_ex.wr_flush` of QPs created with `IBV_QP_EX_WITH_FLUSH`): an RDMA
/// FLUSH of `length` bytes at `remote_addr` (rkey `rkey`) to placement `type_` (`enum ibv_placement_type`) at
/// selectivity `level` (`enum ibv_selectivity_level`), in the WQE's `wr.flush` (Linux 6.2's layout). On older
/// kernels the kernel completes it with an error, as with rdma-core 56. Errors (recorded): `ENOSPC`, SQ full.
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_flush<H: RxeHost>(
    ibqp: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    length: usize,
    type_: u8,
    level: u8,
) {
    // SAFETY: caller's contract.
    unsafe {
        build::<H, _>(ibqp, WR_FLUSH, move |w, _| {
            let flush = FlushWr { remote_addr, length: length as u32, rkey, type_, level };
            // wr.flush overlays the start of the wr union (asserted in abi.rs).
            ptr::write(ptr::addr_of_mut!(w.wr.wr).cast::<FlushWr>(), flush);
            w.dma.length = length as u32;
            w.dma.resid = length as u32;
            w.iova = remote_addr;
            Ok(())
        })
    }
}

/// `ibv_wr_send(3)`.
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_send<H: RxeHost>(ibqp: *mut ibv_qp_ex) {
    // SAFETY: caller's contract.
    unsafe { build::<H, _>(ibqp, WR_SEND, move |_, _| Ok(())) }
}

/// `ibv_wr_send_imm(3)`; `imm_data` is big-endian, as given.
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_send_imm<H: RxeHost>(ibqp: *mut ibv_qp_ex, imm_data: u32) {
    // SAFETY: caller's contract.
    unsafe {
        build::<H, _>(ibqp, WR_SEND_WITH_IMM, move |w, _| {
            w.wr.ex.imm_data = imm_data;
            Ok(())
        })
    }
}

/// `ibv_wr_send_inv(3)`.
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_send_inv<H: RxeHost>(ibqp: *mut ibv_qp_ex, invalidate_rkey: u32) {
    // SAFETY: caller's contract.
    unsafe {
        build::<H, _>(ibqp, WR_SEND_WITH_INV, move |w, _| {
            w.wr.ex.invalidate_rkey = invalidate_rkey;
            Ok(())
        })
    }
}

/// `ibv_wr_set_ud_addr(3)`: addresses the last WR to `remote_qpn`/`remote_qkey` through `ah`. `EINVAL`
/// (recorded) for a NULL `ah`.
///
/// # Safety
/// As [`wr_start`], inside its critical section; `ah` a live AH of this provider if non-NULL.
pub unsafe extern "C" fn wr_set_ud_addr<H: RxeHost>(
    ibqp: *mut ibv_qp_ex,
    ah: *mut ibv_ah,
    remote_qpn: u32,
    remote_qkey: u32,
) {
    // SAFETY: caller's contract.
    unsafe {
        amend::<H>(ibqp, |_, wqe| {
            if ah.is_null() || !super::post::same_context(ah, (*ibqp).qp_base.context) {
                return Err(Errno::EINVAL);
            }
            let ah = H::ah(ah).ok_or(Errno::EIO)?;
            let ud = ptr::addr_of_mut!((*wqe).wr.wr.ud);
            (*ud).remote_qpn = remote_qpn;
            (*ud).remote_qkey = remote_qkey;
            (*ud).ah_num = ah.ah_num;
            if ah.ah_num == 0 {
                (*ud).av = ah.av;
            }
            Ok(())
        })
    }
}

/// Marks the last WQE's data as inline (`true`) or as an SGE table (`false`).
///
/// # Safety
/// `wqe` is the batch's last WQE.
#[inline(always)]
unsafe fn set_inline_flag(wqe: *mut rxe_send_wqe, inline: bool) {
    // SAFETY: caller's contract.
    unsafe {
        let flags = ptr::addr_of_mut!((*wqe).wr.send_flags);
        if inline {
            *flags |= IBV_SEND_INLINE as c_uint;
        } else {
            *flags &= !(IBV_SEND_INLINE as c_uint);
        }
    }
}

/// `ibv_wr_set_inline_data(3)`: copies `length` bytes at `addr` into the last WR. `ENOSPC` (recorded) beyond the
/// QP's `max_inline_data`.
///
/// # Safety
/// As [`wr_start`], inside its critical section; `addr` readable for `length` bytes.
pub unsafe extern "C" fn wr_set_inline_data<H: RxeHost>(ibqp: *mut ibv_qp_ex, addr: *mut c_void, length: usize) {
    let buf = ibv_data_buf { addr, length };
    // SAFETY: caller's contract; a one-element list.
    unsafe { wr_set_inline_data_list::<H>(ibqp, 1, &buf) }
}

/// `ibv_wr_set_inline_data_list(3)`: copies the buffers, concatenated, into the last WR. `ENOSPC` (recorded)
/// when their total exceeds the QP's `max_inline_data`; `EINVAL` for a NULL list or buffer.
///
/// # Safety
/// As [`wr_start`], inside its critical section; each buffer readable for its length.
pub unsafe extern "C" fn wr_set_inline_data_list<H: RxeHost>(
    ibqp: *mut ibv_qp_ex,
    num_buf: usize,
    buf_list: *const ibv_data_buf,
) {
    // SAFETY: caller's contract.
    unsafe {
        amend::<H>(ibqp, |sq, wqe| {
            if num_buf != 0 && buf_list.is_null() {
                return Err(Errno::EINVAL);
            }
            let bufs = if num_buf == 0 { &[][..] } else { std::slice::from_raw_parts(buf_list, num_buf) };
            let mut total = 0usize;
            for b in bufs {
                total = match total.checked_add(b.length) {
                    Some(t) if t <= sq.max_inline as usize => t,
                    _ => return Err(Errno::ENOSPC),
                };
                if b.length != 0 && b.addr.is_null() {
                    return Err(Errno::EINVAL);
                }
            }
            let mut dst = wqe.cast::<u8>().add(SEND_WQE_DATA_OFFSET);
            for b in bufs {
                if b.length != 0 {
                    ptr::copy_nonoverlapping(b.addr.cast::<u8>(), dst, b.length);
                    dst = dst.add(b.length);
                }
            }
            (*wqe).dma.length = total as u32;
            (*wqe).dma.resid = total as u32;
            (*wqe).dma.num_sge = 0;
            set_inline_flag(wqe, true);
            Ok(())
        })
    }
}

/// `ibv_wr_set_sge(3)`: the last WR's data is `length` bytes at `addr` in the MR of `lkey` (nothing for 0).
///
/// # Safety
/// As [`wr_start`], inside its critical section.
pub unsafe extern "C" fn wr_set_sge<H: RxeHost>(ibqp: *mut ibv_qp_ex, lkey: u32, addr: u64, length: u32) {
    let sge = ibv_sge { addr, length, lkey };
    // SAFETY: caller's contract.
    unsafe {
        amend::<H>(ibqp, |_, wqe| {
            set_inline_flag(wqe, false);
            if length != 0 {
                // Every send slot has room for one SGE (asserted below `wr_set_sge`).
                (*wqe).dma.length = length;
                (*wqe).dma.resid = length;
                (*wqe).dma.num_sge = 1;
                ptr::write(wqe.cast::<u8>().add(SEND_WQE_DATA_OFFSET).cast::<ibv_sge>(), sge);
            }
            Ok(())
        })
    }
}

// A send slot is a power of two (checked when the ring is mapped) and at least a WQE header long (checked by
// `RxeQp::new`), so it always has room for one SGE after the header: `wr_set_sge` need not look.
const _: () = assert!(size_of::<rxe_send_wqe>().next_power_of_two() >= SEND_WQE_DATA_OFFSET + size_of::<ibv_sge>());

/// `ibv_wr_set_sge_list(3)`: the last WR's data is the concatenation of `sg_list`. `ENOSPC` (recorded) beyond
/// the QP's `max_send_sge`; `EINVAL` for a NULL list.
///
/// # Safety
/// As [`wr_start`], inside its critical section; `sg_list` readable for `num_sge` entries.
pub unsafe extern "C" fn wr_set_sge_list<H: RxeHost>(ibqp: *mut ibv_qp_ex, num_sge: usize, sg_list: *const ibv_sge) {
    // SAFETY: caller's contract.
    unsafe {
        amend::<H>(ibqp, |sq, wqe| {
            if num_sge > sq.max_sge as usize {
                return Err(Errno::ENOSPC);
            }
            if num_sge != 0 && sg_list.is_null() {
                return Err(Errno::EINVAL);
            }
            let sges = if num_sge == 0 { &[][..] } else { std::slice::from_raw_parts(sg_list, num_sge) };
            let total = sges.iter().fold(0u32, |acc, s| acc.wrapping_add(s.length));
            if !sges.is_empty() {
                ptr::copy_nonoverlapping(
                    sges.as_ptr().cast::<u8>(),
                    wqe.cast::<u8>().add(SEND_WQE_DATA_OFFSET),
                    size_of_val(sges),
                );
            }
            (*wqe).dma.num_sge = num_sge as u32;
            (*wqe).dma.length = total;
            (*wqe).dma.resid = total;
            set_inline_flag(wqe, false);
            Ok(())
        })
    }
}
