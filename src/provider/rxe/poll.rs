//! Reaping completions: `ibv_poll_cq`, `ibv_req_notify_cq`, and the `ibv_cq_ex` polling API, reading CQEs
//! straight out of the kernel's ring.
//!
//! rxe's user CQ slots hold a `struct ib_uverbs_wc` (the kernel's `rxe_cqe` union, `uibwc` member for user CQs),
//! whose first 46 bytes are `struct ibv_wc` field for field (asserted in `abi.rs`). Values are delivered as the
//! kernel wrote them, as rdma-core does: in particular `wc_flags` carries the kernel's `IB_WC_*` bits, which
//! agree with `IBV_WC_*` for `GRH` and `WITH_IMM` (a send-with-invalidate arrives with bit 2, the kernel's
//! `IB_WC_WITH_INVALIDATE`; rdma-core behaves identically on rxe).
//!
//! The extended API follows rdma-core with its later fixes (rdma-core 55 and 59): `start_poll` takes the CQ lock
//! and keeps it when it returns 0 (it releases it on `ENOENT`, after which `end_poll` must not be called);
//! `next_poll` keeps the lock whatever it returns; `end_poll` hands the CQEs read back to the kernel and releases
//! the lock. Nothing is handed back twice, and the lock is released once.
#![allow(unsafe_code)]

use super::abi::ib_uverbs_wc;
use super::queue::Consumer;
use super::{CqState, RxeCq, RxeHost};
use crate::provider::spin::SpinGuard;
use crate::provider::verbs::*;
use rdma_common::Errno;
use std::ffi::{c_int, c_uint};
use std::mem::size_of;
use std::ptr;

/// `ibv_poll_cq(3)` for rxe (`ibv_context.ops.poll_cq`): moves up to `num_entries` CQEs into `wc`, oldest
/// first. Returns how many (0 when the CQ is empty or `num_entries <= 0`), or a negative errno: `-EINVAL` for a
/// NULL CQ, a NULL `wc` when there is a CQE to deliver, or a CQ whose ring was lost in a failed resize.
///
/// The empty CQ and the one-CQE poll (the usual event loop's) are answered here, with no loop and no register
/// saved: everything else (contention, more than one CQE, every refusal) leaves by a tail call to an out-of-line
/// function that finishes the call, releasing the lock itself, so nothing has to be kept across a call. The
/// arguments are checked only once there is something to deliver, so that polling an empty CQ costs as little as
/// it can. The consumer index is stored once per call, after the copy (rdma-core's rxe provider stores it after
/// each CQE; its mlx5 provider, like this, once per call).
///
/// # Safety
/// `ibcq` is a live CQ of this provider; `wc` is writable for `num_entries` entries.
pub unsafe extern "C" fn poll_cq<H: RxeHost>(ibcq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    if ibcq.is_null() {
        return refused(Errno::EINVAL);
    }
    // Nothing below can panic (no unwinding, no `ffi::datapath_boundary` needed): plain loads, stores and
    // comparisons, and out-of-line functions that are themselves panic-free.
    // SAFETY: caller's contract.
    let Some(cq) = (unsafe { H::cq(ibcq) }) else { return refused(Errno::EIO) };
    let Some(guard) = cq.inner.try_lock() else {
        // SAFETY: caller's contract.
        return unsafe { poll_cq_contended::<H>(ibcq, num_entries, wc) };
    };
    // The lock is released by hand below (or by the out-of-line function a path leaves through).
    std::mem::forget(guard);
    // SAFETY: the lock is held.
    let st = unsafe { &*cq.inner.data_ptr() };
    let Some(q) = &st.queue else { return unsafe { unlock_refused::<H>(ibcq) } };
    let c = q.consumer_side();
    let cons = c.index();
    let avail = c.available(cons);
    if avail == 0 {
        // SAFETY: held above, nothing borrowed from it used afterwards.
        unsafe { cq.inner.force_unlock() };
        return 0;
    }
    if num_entries != 1 {
        // SAFETY: caller's contract; the lock is held and passes to `poll_many`.
        return unsafe { poll_many(cq, num_entries, wc, cons, avail) };
    }
    if wc.is_null() {
        // SAFETY: the lock is held.
        return unsafe { unlock_refused::<H>(ibcq) };
    }
    // SAFETY: a published CQE (the Acquire load in `available` makes its bytes visible), at least
    // sizeof(ib_uverbs_wc) long (checked at creation), into the caller's one entry; kernel ring and application
    // memory never overlap.
    unsafe { ptr::copy_nonoverlapping(c.slot(cons), wc.cast::<u8>(), size_of::<ibv_wc>()) };
    c.release(c.next(cons));
    // SAFETY: held above; nothing borrowed from it is used afterwards.
    unsafe { cq.inner.force_unlock() };
    1
}

/// `-errno` for a refused poll, out of line (the hot path then loads no error constant). `black_box`: the
/// compiler would otherwise see the constant result and call this instead of jumping to it.
#[cold]
#[inline(never)]
fn refused(e: Errno) -> c_int {
    std::hint::black_box(-e.0)
}

/// Releases the CQ lock of `ibcq` and refuses the poll with `-EINVAL` (a CQ without a ring, or a NULL `wc`
/// with a CQE to deliver). Takes the C pointer, as [`poll_cq`] has it in its argument register: the hot path
/// then moves nothing before jumping here.
///
/// # Safety
/// `ibcq` is a live CQ of this provider whose lock the caller holds (forgotten guard), nothing borrowed from it
/// in use.
#[cold]
#[inline(never)]
unsafe fn unlock_refused<H: RxeHost>(ibcq: *mut ibv_cq) -> c_int {
    // SAFETY: caller's contract.
    if let Some(cq) = unsafe { H::cq(ibcq) } {
        // SAFETY: caller's contract.
        unsafe { cq.inner.force_unlock() };
    }
    std::hint::black_box(-Errno::EINVAL.0)
}

/// [`poll_cq`] when the CQ lock was busy: waits for it.
///
/// # Safety
/// As [`poll_cq`].
#[cold]
#[inline(never)]
unsafe fn poll_cq_contended<H: RxeHost>(ibcq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: caller's contract.
    let Some(cq) = (unsafe { H::cq(ibcq) }) else { return -Errno::EIO.0 };
    let st = cq.inner.lock();
    // SAFETY: caller's contract.
    unsafe { poll_locked(&st, num_entries, wc) }
}

/// The general body of [`poll_cq`], under the CQ lock (the contended case): moves `min(available, num_entries)`
/// CQEs.
///
/// # Safety
/// `wc` is NULL or writable for `num_entries` entries.
#[inline(always)]
unsafe fn poll_locked(st: &CqState, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    let Some(q) = &st.queue else { return -Errno::EINVAL.0 };
    let c = q.consumer_side();
    let cons = c.index();
    let avail = c.available(cons);
    if avail == 0 {
        return 0;
    }
    // SAFETY: caller's contract.
    unsafe { copy_out(c, cons, avail, num_entries, wc) }
}

/// [`poll_cq`] for `num_entries != 1` with `avail` (non-zero) CQEs published from `cons` on; the caller holds
/// the CQ lock, which this releases.
///
/// # Safety
/// As [`poll_cq`]; the lock of `cq` is held (forgotten guard), its ring is there, and `cons`/`avail` were read
/// from it under that lock.
#[inline(never)]
unsafe fn poll_many(cq: &RxeCq, num_entries: c_int, wc: *mut ibv_wc, cons: u32, avail: u32) -> c_int {
    // SAFETY: caller's contract: `poll_cq` found the ring there under the lock it still holds.
    let q = unsafe { (*cq.inner.data_ptr()).queue.as_ref().unwrap_unchecked() };
    // SAFETY: caller's contract.
    let n = unsafe { copy_out(q.consumer_side(), cons, avail, num_entries, wc) };
    // SAFETY: held by the caller, handed to us; nothing borrowed from it is used afterwards.
    unsafe { cq.inner.force_unlock() };
    n
}

/// Moves `min(avail, num_entries)` of the `avail` (non-zero) CQEs published from `cons` on into `wc` (none for
/// `num_entries <= 0`; `-EINVAL` for a NULL `wc`) and hands their slots back to the kernel with one store of
/// the consumer index after the copy.
///
/// # Safety
/// As [`poll_locked`]; the caller holds the CQ lock of `c`'s queue.
#[inline(always)]
unsafe fn copy_out(c: Consumer<'_>, mut cons: u32, avail: u32, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    if num_entries <= 0 {
        return 0;
    }
    if wc.is_null() {
        return -Errno::EINVAL.0;
    }
    let n = avail.min(num_entries as u32);
    let slots = c.slots();
    // Loop until the index reaches `end` (rather than counting to `n`): the compiler then keeps it a plain loop,
    // which for the usual 1..16 CQEs costs fewer instructions than its unrolled form.
    let end = c.advance(cons, n);
    let mut dst = wc;
    loop {
        // SAFETY: a published CQE (the Acquire load in `available` makes its bytes visible), at least
        // sizeof(ib_uverbs_wc) long (checked at creation); `wc` has room for `num_entries >= n` entries (so `dst`
        // stays inside it: n steps from `cons` reach `end`); the two never overlap (kernel ring vs application
        // memory).
        unsafe {
            ptr::copy_nonoverlapping(slots.at(cons), dst.cast::<u8>(), size_of::<ibv_wc>());
            dst = dst.add(1);
        }
        cons = c.next(cons);
        if cons == end {
            break;
        }
    }
    c.release(cons);
    n as c_int
}

/// `ibv_req_notify_cq(3)` for rxe (`ibv_context.ops.req_notify_cq`): arms the CQ through the kernel (the uverbs
/// `REQ_NOTIFY_CQ` command, as rdma-core's `ibv_cmd_req_notify_cq`). Returns 0 or a positive errno.
///
/// # Safety
/// `ibcq` is a live CQ of this provider.
pub unsafe extern "C" fn req_notify_cq<H: RxeHost>(ibcq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    if ibcq.is_null() {
        return Errno::EINVAL.0;
    }
    // SAFETY: caller's contract.
    match unsafe { H::req_notify_cq(ibcq, solicited_only != 0) } {
        Ok(()) => 0,
        Err(e) => e.0,
    }
}

// ---------------------------------------------------------------------------------------------------------------
// ibv_cq_ex
// ---------------------------------------------------------------------------------------------------------------

// The batch's position is a [`PollCursor`] the host keeps beside the provider state in every CQ (of every
// provider), zero outside a batch. `ibv_next_poll`, the call made once per CQE, is then a comparison of two
// numbers in it and the CQE's two fields copied: every check it used to make is on its out-of-line path, where
// the comparison sends every call that is not the next CQE of an open rxe batch. A CQ outside a batch, or of
// another provider, has `limit` 0 and fails the comparison whatever else is there; the checked path then
// refuses it as before. `limit` is non-zero only between an rxe `start_poll` that took the lock and found a CQE
// and its `end_poll`, and never exceeds the ring, so the fast path reads only published slots of the ring.

/// The CQ state while a polling batch holds the lock, or `None` outside one.
///
/// # Safety
/// `cqx` is a live CQ of this provider; the caller is the thread whose `start_poll` succeeded.
#[inline(always)]
unsafe fn polling<'a, H: RxeHost>(cqx: *mut ibv_cq_ex) -> Option<(&'a RxeCq, &'a mut CqState)> {
    // SAFETY: ibv_cq_ex begins with the ibv_cq fields (caller's contract).
    let cq = unsafe { H::cq(cqx.cast()) }?;
    if !cq.inner.is_locked() {
        return None;
    }
    // SAFETY: the lock is held by this polling batch.
    Some((cq, unsafe { &mut *cq.inner.data_ptr() }))
}

/// The CQE `read_*` look at, or `None` outside a batch.
///
/// # Safety
/// As [`polling`]; the pointer is used before `end_poll`.
#[inline(always)]
unsafe fn current<H: RxeHost>(cqx: *mut ibv_cq_ex) -> Option<*const ib_uverbs_wc> {
    // SAFETY: caller's contract.
    let (_, st) = unsafe { polling::<H>(cqx) }?;
    let q = st.queue.as_ref()?;
    // SAFETY: the host's cursor of a live CQ.
    let cur = unsafe { &*H::cq_cursor(cqx.cast()) };
    if cur.limit == 0 {
        return None;
    }
    // Inside a batch `next` is the exposed slot's offset plus one slot, at most the ring's length; masked with
    // the ring's length minus one (a power of two) it is back inside the ring whatever it holds.
    let off = cur.next.wrapping_sub(st.elem_size) & q.ring_bytes().wrapping_sub(1);
    // SAFETY: off < ring_bytes (masked); a published CQE not yet handed back (batch invariant), aligned to its
    // slot size (>= 64).
    Some(unsafe { q.slot_at(off) }.cast::<ib_uverbs_wc>())
}

/// Publishes the CQE in `slot`'s `status` and `wr_id` in the public `ibv_cq_ex` fields (only those two fields
/// are read).
///
/// # Safety
/// `cqx` live; `slot` a published CQE of its ring, inside a batch.
#[inline(always)]
unsafe fn expose(cqx: *mut ibv_cq_ex, slot: *const u8) {
    let cqe = slot.cast::<ib_uverbs_wc>();
    // SAFETY: caller's contract; the status field is a 4-byte C enum written as its number (C memory: no Rust
    // value of the enum type is formed).
    unsafe {
        ptr::addr_of_mut!((*cqx).status).cast::<u32>().write(ptr::addr_of!((*cqe).status).read());
        ptr::addr_of_mut!((*cqx).wr_id).write(ptr::addr_of!((*cqe).wr_id).read());
    }
}

/// How far from `next` (a slot offset inside the ring) the published CQEs reach, given the kernel's producer
/// offset `prod`: up to `prod`, or to the ring's end when the producer has wrapped.
#[inline(always)]
fn reach(next: u32, prod: u32, ring_bytes: u32) -> u32 {
    if prod > next {
        prod
    } else {
        ring_bytes
    }
}

/// `ibv_start_poll(3)`: takes the CQ lock and exposes the oldest CQE. Returns 0 (lock kept), or `ENOENT` with
/// `errno` set when the CQ is empty (lock released: do not call `end_poll`), or `EINVAL` for a CQ without a ring.
///
/// # Safety
/// `cqx` is a live extended CQ of this provider.
pub unsafe extern "C" fn cq_start_poll<H: RxeHost>(cqx: *mut ibv_cq_ex, attr: *mut ibv_poll_cq_attr) -> c_int {
    // SAFETY: caller's contract.
    let Some(cq) = (unsafe { H::cq(cqx.cast()) }) else { return refused_positive(Errno::EIO) };
    // Contention goes to an out-of-line twin (tail call), so the uncontended path saves no registers.
    let Some(guard) = cq.inner.try_lock() else {
        // SAFETY: caller's contract.
        return unsafe { start_poll_contended::<H>(cqx, attr) };
    };
    // SAFETY: caller's contract; the lock is held.
    unsafe { start_poll_locked::<H>(cqx, guard) }
}

/// [`cq_start_poll`] when the CQ lock was busy: waits for it.
///
/// # Safety
/// As [`cq_start_poll`].
#[cold]
#[inline(never)]
unsafe fn start_poll_contended<H: RxeHost>(cqx: *mut ibv_cq_ex, _attr: *mut ibv_poll_cq_attr) -> c_int {
    // SAFETY: caller's contract.
    let Some(cq) = (unsafe { H::cq(cqx.cast()) }) else { return Errno::EIO.0 };
    let guard = cq.inner.lock();
    // SAFETY: caller's contract; the lock is held.
    unsafe { start_poll_locked::<H>(cqx, guard) }
}

/// The body of [`cq_start_poll`] once `guard` holds the lock of the rxe state of `cqx`.
///
/// # Safety
/// As [`cq_start_poll`].
#[inline(always)]
unsafe fn start_poll_locked<H: RxeHost>(cqx: *mut ibv_cq_ex, guard: SpinGuard<'_, CqState>) -> c_int {
    let st = &*guard;
    let Some(q) = st.queue.as_ref() else {
        drop(guard);
        return refused_positive(Errno::EINVAL);
    };
    let c = q.consumer_side();
    let cons = c.index();
    let prod = c.producer();
    if prod == cons {
        drop(guard);
        return no_entry();
    }
    let log2 = q.log2_elem_size();
    let (cons_off, prod_off) = (cons << log2, prod << log2);
    // SAFETY: the host's cursor of a live CQ; written only under the lock, which this batch now holds.
    let cur = unsafe { &mut *H::cq_cursor(cqx.cast()) };
    cur.next = cons_off + st.elem_size;
    cur.limit = reach(cons_off, prod_off, q.ring_bytes());
    // SAFETY: live CQ, lock held, a published CQE (Acquire load of the producer index above); cons_off < ring.
    unsafe { expose(cqx, q.slot_at(cons_off)) };
    std::mem::forget(guard);
    0
}

/// A positive errno for a refused call, out of line (the hot path then loads no error constant).
#[cold]
#[inline(never)]
fn refused_positive(e: Errno) -> c_int {
    std::hint::black_box(e.0)
}

/// `ENOENT`, also in `errno`, out of line.
#[cold]
#[inline(never)]
fn no_entry() -> c_int {
    Errno::ENOENT.set();
    std::hint::black_box(Errno::ENOENT.0)
}

/// `ibv_next_poll(3)`: exposes the next CQE. Returns 0, or `ENOENT` with `errno` set when there is none (the
/// batch stays open: call `end_poll`). `EINVAL` outside a batch.
///
/// `STEP` is the ring's slot size when it is known when the CQ is made (the usual case: [`super::set_cq_ex_ops`]),
/// so that the cursor moves by a constant; 0 for any other size (read from the CQ state).
///
/// # Safety
/// As [`cq_start_poll`], inside the batch it opened.
pub unsafe extern "C" fn cq_next_poll<H: RxeHost, const STEP: u32>(cqx: *mut ibv_cq_ex) -> c_int {
    // SAFETY: the host's cursor of a live CQ (caller's contract).
    let cur = unsafe { &mut *H::cq_cursor(cqx.cast()) };
    let next = cur.next;
    if next >= cur.limit {
        // SAFETY: caller's contract.
        return unsafe { next_poll_checked::<H>(cqx) };
    }
    // Inside an rxe batch (only there is `limit` non-zero), whose lock keeps the ring in place.
    // SAFETY: an rxe CQ (see above), the lock held by the batch.
    let st = unsafe { &*H::cq(cqx.cast()).unwrap_unchecked().inner.data_ptr() };
    // SAFETY: as above: the ring is there (start_poll found it, under the lock still held).
    let q = unsafe { st.queue.as_ref().unwrap_unchecked() };
    // SAFETY: live CQ, lock held; next < limit <= ring_bytes, a published CQE.
    unsafe { expose(cqx, q.slot_at(next)) };
    // The slot size never changes (a resize to another one drops the ring), so STEP, when set, is it.
    cur.next = next + if STEP != 0 { STEP } else { st.elem_size };
    0
}

/// [`cq_next_poll`] when `next` has caught up with `limit`: the checks (a batch of this provider open, the ring
/// there), then the wrap to the ring's first slot and a fresh look at the kernel's producer index.
///
/// # Safety
/// As [`cq_next_poll`].
#[cold]
#[inline(never)]
unsafe fn next_poll_checked<H: RxeHost>(cqx: *mut ibv_cq_ex) -> c_int {
    // SAFETY: caller's contract.
    let cur = unsafe { &mut *H::cq_cursor(cqx.cast()) };
    if cur.limit == 0 {
        return Errno::EINVAL.0;
    }
    // SAFETY: caller's contract.
    let Some((_, st)) = (unsafe { polling::<H>(cqx) }) else { return Errno::EINVAL.0 };
    let Some(q) = st.queue.as_ref() else { return Errno::EINVAL.0 };
    let ring = q.ring_bytes();
    // `next` equals the ring's length when the exposed CQE was the last slot: the next one is slot 0.
    let next = if cur.next >= ring { 0 } else { cur.next };
    let prod = q.consumer_side().producer() << q.log2_elem_size();
    if prod == next {
        // Nothing new: the batch stays open, and the next call looks again (limit stays at `next`, non-zero
        // whether or not it wrapped: the wrap is only stored with a CQE to expose).
        cur.limit = cur.next;
        return no_entry();
    }
    // SAFETY: live CQ, lock held; next < ring, a published CQE (before the producer index an Acquire load
    // returned).
    unsafe { expose(cqx, q.slot_at(next)) };
    cur.next = next + st.elem_size;
    cur.limit = reach(next, prod, ring);
    0
}

/// `ibv_end_poll(3)`: hands every CQE read in this batch back to the kernel and releases the CQ lock. Nothing
/// outside a batch (`limit` 0: also every other provider's CQ).
///
/// # Safety
/// As [`cq_start_poll`], inside the batch it opened.
pub unsafe extern "C" fn cq_end_poll<H: RxeHost>(cqx: *mut ibv_cq_ex) {
    // SAFETY: the host's cursor of a live CQ (caller's contract).
    let cur = unsafe { &mut *H::cq_cursor(cqx.cast()) };
    if cur.limit == 0 {
        return;
    }
    // SAFETY: inside an rxe batch (limit non-zero), whose lock keeps the ring in place.
    let cq = unsafe { H::cq(cqx.cast()).unwrap_unchecked() };
    // SAFETY: as above.
    if let Some(q) = unsafe { &*cq.inner.data_ptr() }.queue.as_ref() {
        // `next` is a slot offset, or the ring's length (slot 0 after masking).
        q.consumer_side().release(cur.next >> q.log2_elem_size());
    }
    cur.limit = 0;
    // SAFETY: held since start_poll by this batch.
    unsafe { cq.inner.force_unlock() };
}

macro_rules! reader {
    ($(#[$doc:meta])* $name:ident -> $ty:ty, |$w:ident| $e:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `cqx` is a live extended CQ of this provider, inside a polling batch (returns 0 outside one).
        pub unsafe extern "C" fn $name<H: RxeHost>(cqx: *mut ibv_cq_ex) -> $ty {
            // SAFETY: caller's contract.
            match unsafe { current::<H>(cqx) } {
                // SAFETY: a published CQE of this batch; only the field read is loaded.
                Some($w) => unsafe { $e },
                None => 0 as $ty,
            }
        }
    };
}

reader!(
    /// `ibv_wc_read_opcode(3)`. Returns the kernel's number: the function-pointer slot is typed with
    /// `enum ibv_wc_opcode`, which C passes as this integer.
    cq_read_opcode_raw -> u32, |w| ptr::addr_of!((*w).opcode).read()
);
reader!(
    /// `ibv_wc_read_vendor_err(3)`.
    cq_read_vendor_err -> u32, |w| ptr::addr_of!((*w).vendor_err).read()
);
reader!(
    /// `ibv_wc_read_byte_len(3)`.
    cq_read_byte_len -> u32, |w| ptr::addr_of!((*w).byte_len).read()
);
reader!(
    /// `ibv_wc_read_imm_data(3)`: big-endian, as carried (also the invalidated rkey).
    cq_read_imm_data -> u32, |w| ptr::addr_of!((*w).ex.imm_data).read()
);
reader!(
    /// `ibv_wc_read_qp_num(3)`.
    cq_read_qp_num -> u32, |w| ptr::addr_of!((*w).qp_num).read()
);
reader!(
    /// `ibv_wc_read_src_qp(3)`.
    cq_read_src_qp -> u32, |w| ptr::addr_of!((*w).src_qp).read()
);
reader!(
    /// `ibv_wc_read_wc_flags(3)`.
    cq_read_wc_flags -> c_uint, |w| ptr::addr_of!((*w).wc_flags).read() as c_uint
);
reader!(
    /// `ibv_wc_read_slid(3)`.
    cq_read_slid -> u32, |w| ptr::addr_of!((*w).slid).read() as u32
);
reader!(
    /// `ibv_wc_read_sl(3)`.
    cq_read_sl -> u8, |w| ptr::addr_of!((*w).sl).read()
);
reader!(
    /// `ibv_wc_read_dlid_path_bits(3)`.
    cq_read_dlid_path_bits -> u8, |w| ptr::addr_of!((*w).dlid_path_bits).read()
);

/// `ibv_wc_read_opcode(3)` with the slot's exact type. The kernel only writes `IB_UVERBS_WC_*` values, which are
/// `ibv_wc_opcode` values; a C caller receives the same integer as from [`cq_read_opcode_raw`].
///
/// # Safety
/// As [`cq_read_opcode_raw`].
pub unsafe extern "C" fn cq_read_opcode<H: RxeHost>(cqx: *mut ibv_cq_ex) -> ibv_wc_opcode {
    // SAFETY: caller's contract.
    let raw = unsafe { cq_read_opcode_raw::<H>(cqx) };
    wc_opcode(raw)
}

/// The `ibv_wc_opcode` for a kernel number; a number rdma-core 44 has no name for (only `IB_UVERBS_WC_FLUSH`,
/// 8, from a FLUSH posted by number on a 6.2+ kernel) is reported as `IBV_WC_DRIVER3`, never as an invalid
/// enum value.
#[inline(always)]
fn wc_opcode(raw: u32) -> ibv_wc_opcode {
    use ibv_wc_opcode::*;
    match raw {
        0 => IBV_WC_SEND,
        1 => IBV_WC_RDMA_WRITE,
        2 => IBV_WC_RDMA_READ,
        3 => IBV_WC_COMP_SWAP,
        4 => IBV_WC_FETCH_ADD,
        5 => IBV_WC_BIND_MW,
        6 => IBV_WC_LOCAL_INV,
        7 => IBV_WC_TSO,
        9 => IBV_WC_ATOMIC_WRITE,
        128 => IBV_WC_RECV,
        129 => IBV_WC_RECV_RDMA_WITH_IMM,
        130 => IBV_WC_TM_ADD,
        131 => IBV_WC_TM_DEL,
        132 => IBV_WC_TM_SYNC,
        133 => IBV_WC_TM_RECV,
        134 => IBV_WC_TM_NO_TAG,
        135 => IBV_WC_DRIVER1,
        136 => IBV_WC_DRIVER2,
        _ => IBV_WC_DRIVER3,
    }
}
