//! Posting work requests: `ibv_post_send`, `ibv_post_recv`, `ibv_post_srq_recv`, writing WQEs straight into the
//! kernel's queues (the slot protocol is in [`super::queue`]).
//!
//! Behaviour is rdma-core 44's `providers/siw/siw.c` (unchanged through rdma-core 64):
//!
//! * send opcodes: `IBV_WR_RDMA_WRITE`, `IBV_WR_SEND`, `IBV_WR_RDMA_READ`, `IBV_WR_SEND_WITH_INV`; every other
//!   opcode (immediate data, atomics, local invalidate, bind MW, TSO, ...) is `EINVAL`, as rdma-core answers;
//! * send flags map to `SIW_WQE_SIGNALLED` (also for every WQE of a QP created with `sq_sig_all`),
//!   `SIW_WQE_SOLICITED`, `SIW_WQE_INLINE`, `SIW_WQE_READ_FENCE` (`IBV_SEND_FENCE`);
//! * inline data: up to `SIW_MAX_INLINE` (80) bytes in all, from any number of SGEs, copied into the SQE after its
//!   first SGE, whose `length` holds the total; otherwise at most `SIW_MAX_SGE` (6) SGEs, copied as they are;
//! * a full queue is `ENOMEM`; `*bad_wr` is the WR that failed, and the WRs before it are posted;
//! * the doorbell (a `POST_SEND` command without WR) is rung only when this call wrote WQEs and the slot before
//!   the first of them had already been taken by the kernel (the SQ was idle), or when it wrote a whole SQ's worth.
//!
//! Deliberate differences (each turns a hang, a crash or a silent loss into an error, or follows the kernel where
//! rdma-core contradicts it; none changes what a correct program sees):
//!
//! | rdma-core 44 | here | why |
//! |---|---|---|
//! | errors returned negative (`-EINVAL`, `-ENOMEM`, the doorbell's `-1`) | positive errnos | `ibv_post_send(3)` |
//! | a failed WR's error is replaced by the doorbell's success | the WR's error is returned | the caller must learn that `*bad_wr` was not posted |
//! | `IBV_WR_SEND_WITH_INV` sends `wr.rdma.rkey` as the STag to invalidate | `invalidate_rkey` | what the verb means, and what the kernel's own post path sends |
//! | after a failed doorbell (before RTS) later posts may never ring: the idle test sees the stuck WQEs | the next post rings | the SQ would hang for good |
//! | inline with RDMA READ or SEND_WITH_INV, a fenced READ, a READ with several SGEs: accepted | `EINVAL` | the kernel refuses such a WQE when it takes it, leaving it stuck at the head of the SQ |
//! | a READ without SGE leaves the slot's old `sge[0]` in place | a zero-length `sge[0]` | the kernel always reads `sge[0]` of a READ |
//! | a receive with no SGE is `EINVAL` | posted | the kernel takes zero-SGE receives, as `ibv_post_recv(3)` allows |
//! | NULL `bad_wr`, NULL `sg_list` with SGEs, negative `num_sge`, a receive on a QP without RQ: dereferenced | `EINVAL` | no crash |
//!
//! Nothing here allocates, logs or makes a system call but the doorbell ([`SiwHost::siw_post_send_doorbell`]).
#![allow(unsafe_code)]

use super::abi::*;
use super::queue::{WqeQueue, WqeWriter};
use super::{Rq, SiwHost, SiwQp, Sq};
use crate::provider::explain::{self, Queue};
use crate::provider::verbs::*;
use rdma_common::abi::enums::*;
use rdma_common::{errno::Result, ffi, Errno};
use std::ffi::{c_int, c_uint};
use std::ptr;

/// rdma-core's `map_send_opcode`: the siw opcode of a send WR, or `None` for what siw cannot post.
#[inline(always)]
pub fn siw_send_opcode(opcode: u32) -> Option<u8> {
    Some(match opcode {
        IBV_WR_RDMA_WRITE => SIW_OP_WRITE,
        IBV_WR_SEND => SIW_OP_SEND,
        IBV_WR_RDMA_READ => SIW_OP_READ,
        IBV_WR_SEND_WITH_INV => SIW_OP_SEND_REMOTE_INV,
        _ => return None,
    } as u8)
}

/// rdma-core's `map_send_flags`: the SQE's `flags` for `send_flags`, `SIW_WQE_VALID` included.
#[inline(always)]
pub const fn siw_send_flags(send_flags: c_uint, sig_all: bool) -> u16 {
    let mut f = SIW_WQE_VALID;
    if send_flags & IBV_SEND_SIGNALED != 0 || sig_all {
        f |= SIW_WQE_SIGNALLED;
    }
    if send_flags & IBV_SEND_SOLICITED != 0 {
        f |= SIW_WQE_SOLICITED;
    }
    if send_flags & IBV_SEND_INLINE != 0 {
        f |= SIW_WQE_INLINE;
    }
    if send_flags & IBV_SEND_FENCE != 0 {
        f |= SIW_WQE_READ_FENCE;
    }
    f as u16
}

/// The SGEs of a work request: `EINVAL` for a negative count or a NULL list with SGEs.
///
/// # Safety
/// If non-NULL, `sg_list` points to `num_sge` readable `ibv_sge`s that stay unchanged during the call.
#[inline(always)]
unsafe fn sge_slice<'a>(sg_list: *const ibv_sge, num_sge: c_int) -> Result<&'a [ibv_sge]> {
    if num_sge < 0 {
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

/// Writes `sges` as `siw_sge`s at `dst` (same layout, asserted in `abi.rs`).
///
/// # Safety
/// `dst` has room for `sges.len()` SGEs.
#[inline(always)]
unsafe fn put_sges(dst: *mut u8, sges: &[ibv_sge]) {
    let dst = dst.cast::<ibv_sge>();
    // SAFETY: caller's contract; application memory and a ring slot never overlap; 8-aligned slots. One element at
    // a time (no memcpy call for the usual single SGE).
    unsafe {
        if let [sge] = sges {
            dst.write(*sge);
        } else {
            for (i, sge) in sges.iter().enumerate() {
                dst.add(i).write(*sge);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// ibv_post_send
// ---------------------------------------------------------------------------------------------------------------

/// What a send WR becomes, checked before anything reaches the slot.
struct SendWqe<'a> {
    opcode: u8,
    flags: u16,
    raddr: u64,
    rkey: u32,
    sges: &'a [ibv_sge],
    /// Total inline bytes (with `SIW_WQE_INLINE`).
    inline_len: u32,
}

/// rdma-core's checks in `push_send_wqe`, and the kernel's in `siw_activate_tx_from_sq` (see the module table).
///
/// # Safety
/// `wr` is valid as `ibv_post_send(3)` requires.
#[inline(always)]
unsafe fn encode_send_wr<'a>(wr: &'a ibv_send_wr, sig_all: bool) -> Result<SendWqe<'a>> {
    // SAFETY: opcode is a 4-byte C enum written by the application.
    let wr_opcode = unsafe { ffi::enum_raw(&wr.opcode) };
    let opcode = siw_send_opcode(wr_opcode).ok_or(Errno::EINVAL)?;
    let flags = siw_send_flags(wr.send_flags, sig_all);
    // SAFETY: caller's contract.
    let sges = unsafe { sge_slice(wr.sg_list, wr.num_sge)? };
    let (raddr, rkey) = match wr_opcode {
        IBV_WR_RDMA_WRITE | IBV_WR_RDMA_READ => {
            let rdma = wr.rdma();
            (rdma.remote_addr, rdma.rkey)
        }
        IBV_WR_SEND_WITH_INV => (0, wr.invalidate_rkey()),
        _ => (0, 0),
    };
    let mut inline_len = 0;
    if flags & SIW_WQE_INLINE as u16 != 0 {
        if wr_opcode != IBV_WR_SEND && wr_opcode != IBV_WR_RDMA_WRITE {
            return Err(Errno::EINVAL);
        }
        let total: u64 = sges.iter().map(|s| s.length as u64).sum();
        if total > SIW_MAX_INLINE as u64 {
            return Err(Errno::EINVAL);
        }
        inline_len = total as u32;
    } else if sges.len() > SIW_MAX_SGE as usize {
        return Err(Errno::EINVAL);
    }
    if wr_opcode == IBV_WR_RDMA_READ && (sges.len() > 1 || flags & SIW_WQE_READ_FENCE as u16 != 0) {
        return Err(Errno::EINVAL);
    }
    Ok(SendWqe { opcode, flags, raddr, rkey, sges, inline_len })
}

/// Writes every byte of `w` but the ownership word into the SQE at `slot`.
///
/// # Safety
/// `slot` is an SQE of ours (free, not yet published); the inline SGEs address readable memory of their lengths.
#[inline(always)]
unsafe fn write_sqe(slot: *mut u8, wr_id: u64, w: &SendWqe<'_>) {
    // SAFETY: caller's contract; every offset lies inside the 120-byte SQE (asserted in abi.rs), aligned to its
    // type (slots are 8-aligned).
    unsafe {
        slot.add(WQE_ID).cast::<u64>().write(wr_id);
        slot.add(SQE_OPCODE).write(w.opcode);
        slot.add(SQE_RKEY).cast::<u32>().write(w.rkey);
        slot.add(SQE_RADDR).cast::<u64>().write(w.raddr);
        let sge0 = slot.add(SQE_SGE);
        if w.flags & SIW_WQE_INLINE as u16 != 0 {
            // One SGE describing the inline bytes (the kernel points it at them when it takes the WQE).
            slot.add(WQE_NUM_SGE).write(1);
            ptr::write_bytes(sge0, 0, size_of::<siw_sge>());
            sge0.add(SGE_LENGTH).cast::<u32>().write(w.inline_len);
            let mut dst = slot.add(SQE_INLINE);
            for s in w.sges.iter().filter(|s| s.length != 0) {
                ptr::copy_nonoverlapping(s.addr as usize as *const u8, dst, s.length as usize);
                dst = dst.add(s.length as usize);
            }
        } else {
            slot.add(WQE_NUM_SGE).write(w.sges.len() as u8);
            if w.sges.is_empty() && w.opcode == SIW_OP_READ as u8 {
                ptr::write_bytes(sge0, 0, size_of::<siw_sge>());
            }
            put_sges(sge0, w.sges);
        }
    }
}

/// The fast path's view of an `ibv_wr_opcode` (index: the opcode, clamped to 15): which SQE flags send a WR of
/// this opcode to the general path ([`post_rest`]), and the SQE's `num_sge` (1) and `opcode` bytes as one `u16`.
#[derive(Clone, Copy)]
#[repr(C, align(4))]
struct FastOp {
    /// SQE flags the fast path does not take for this opcode: `SIW_WQE_INLINE` always (the data is copied), and
    /// `SIW_WQE_READ_FENCE` for a READ (refused); every bit for the opcodes it does not post (the general path
    /// answers them), so `flags & refuse != 0` for each of them (`flags` always has `SIW_WQE_VALID`).
    refuse: u8,
    /// 1 when the SQE carries `wr.rdma` (WRITE, READ); 0 for SEND (`raddr` and `rkey` written 0).
    rdma: u8,
    /// The SQE's bytes 10..12 for one SGE: `num_sge` 1, then the siw opcode.
    num_sge_opcode: u16,
}

/// [`FastOp`] for each `ibv_wr_opcode` below 16 (15, `IBV_WR_ATOMIC_WRITE`, also stands for every larger value):
/// RDMA_WRITE, SEND and RDMA_READ with one SGE, not inline, are the fast path; everything else (SEND_WITH_INV,
/// the opcodes siw refuses, inline data, other SGE counts) goes through [`post_rest`].
static FAST_OPS: [FastOp; 16] = {
    let no = FastOp { refuse: 0xff, rdma: 0, num_sge_opcode: 0 };
    let mut t = [no; 16];
    let inline = SIW_WQE_INLINE as u8;
    t[IBV_WR_RDMA_WRITE as usize] = FastOp { refuse: inline, rdma: 1, num_sge_opcode: 1 | (SIW_OP_WRITE as u16) << 8 };
    t[IBV_WR_SEND as usize] = FastOp { refuse: inline, rdma: 0, num_sge_opcode: 1 | (SIW_OP_SEND as u16) << 8 };
    t[IBV_WR_RDMA_READ as usize] =
        FastOp { refuse: inline | SIW_WQE_READ_FENCE as u8, rdma: 1, num_sge_opcode: 1 | (SIW_OP_READ as u16) << 8 };
    t
};

/// [`siw_send_flags`] as tables: `[sq_sig_all as usize][send_flags & 15]` (the four flags siw maps are the low
/// four bits; rdma-core ignores the others too).
static SEND_FLAGS: [[u8; 16]; 2] = {
    let mut t = [[0u8; 16]; 2];
    let mut i = 0;
    while i < 16 {
        t[0][i] = siw_send_flags(i as c_uint, false) as u8;
        t[1][i] = siw_send_flags(i as c_uint, true) as u8;
        i += 1;
    }
    t
};

const _: () = {
    assert!(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE == 15);
    assert!(IBV_WR_RDMA_WRITE < 15 && IBV_WR_SEND < 15 && IBV_WR_RDMA_READ < 15);
    // Every SQE flag the send path sets fits in the byte the tables hold.
    assert!(SIW_WQE_READ_FENCE < 0x100 && SIW_WQE_SIGNALLED < 0x100 && SIW_WQE_SOLICITED < 0x100);
};

/// Writes `w` into the slot for `put` and publishes it, if it has the common shape (RDMA_WRITE, SEND or RDMA_READ
/// with one SGE, not inline) and the slot is free: nothing but table lookups and stores. Answers `false`, having
/// written nothing, for any other WR (the general path, [`post_rest`], then posts it or refuses it).
///
/// # Safety
/// `w` is valid as `ibv_post_send(3)` requires; the SQ lock held (`q` its ring, `put` its producer counter);
/// `flag_table` is `SEND_FLAGS[sq_sig_all]`.
#[inline(always)]
unsafe fn post_fast(q: WqeWriter<'_>, flag_table: &[u8; 16], put: u32, w: &ibv_send_wr) -> bool {
    // SAFETY: opcode is a 4-byte C enum written by the application.
    let op = unsafe { ffi::enum_raw(&w.opcode) };
    let info = FAST_OPS[op.min(15) as usize];
    let flags = flag_table[(w.send_flags & 15) as usize];
    let sge = w.sg_list;
    if flags & info.refuse != 0 || w.num_sge != 1 || sge.is_null() || !q.is_free(put) {
        return false;
    }
    let slot = q.slot(put);
    let (raddr, rkey) = if info.rdma != 0 {
        let rdma = w.rdma();
        (rdma.remote_addr, rdma.rkey)
    } else {
        (0, 0)
    };
    // SAFETY: the slot is free (checked above) and ours until published; every offset lies inside the 120-byte
    // SQE (asserted in abi.rs), aligned to its type (slots are 8-aligned); `sge` is readable (caller's contract,
    // num_sge 1).
    unsafe {
        slot.add(WQE_ID).cast::<u64>().write(w.wr_id);
        slot.add(WQE_NUM_SGE).cast::<u16>().write(info.num_sge_opcode);
        slot.add(SQE_RKEY).cast::<u32>().write(rkey);
        slot.add(SQE_RADDR).cast::<u64>().write(raddr);
        slot.add(SQE_SGE).cast::<ibv_sge>().write(*sge);
    }
    q.publish(put, flags as u16);
    true
}

/// Posts the WR list under the SQ lock from `put` on; returns the first error (with `*bad_wr` set) and the
/// producer counter after the last WQE published.
///
/// WRs of the common shape go through [`post_fast`]; the first WR of any other shape, and any WR the checks would
/// refuse, hands the rest of the list to [`post_rest`]. Out of line: [`post_send`] posts a single WR itself, so
/// that this loop's registers are saved only for lists.
///
/// # Safety
/// As `ibv_post_send(3)`; `bad_wr` writable; the SQ lock held (`sq` its state, `put` its producer counter).
#[inline(never)]
unsafe fn post_send_list(
    ibqp: *mut ibv_qp,
    sq: &Sq,
    mut put: u32,
    sig_all: bool,
    mut wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> (c_int, u32) {
    // The ring's geometry in registers for the loop (its stores into the slots cannot alias it).
    let q = sq.queue.writer();
    let flag_table = &SEND_FLAGS[sig_all as usize];
    while !wr.is_null() {
        // SAFETY: caller's contract: every WR in the list is readable.
        let w = unsafe { &*wr };
        // SAFETY: caller's contract.
        if !unsafe { post_fast(q, flag_table, put, w) } {
            // SAFETY: caller's contract.
            return unsafe { post_rest(ibqp, sq, put, sig_all, wr, bad_wr) };
        }
        put = put.wrapping_add(1);
        wr = w.next;
    }
    (0, put)
}

/// The general path of [`post_send_list`]: posts the list from `wr` on, every shape and every check (a full
/// ring, then [`encode_send_wr`]'s), and returns as it does.
///
/// # Safety
/// As [`post_send_list`].
#[inline(never)]
unsafe fn post_rest(
    ibqp: *mut ibv_qp,
    sq: &Sq,
    mut put: u32,
    sig_all: bool,
    mut wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> (c_int, u32) {
    let q = sq.queue.writer();
    while !wr.is_null() {
        // SAFETY: caller's contract: every WR in the list is readable.
        let w = unsafe { &*wr };
        let r = if !q.is_free(put) {
            Err(Errno::ENOMEM)
        } else {
            // SAFETY: caller's contract.
            unsafe { encode_send_wr(w, sig_all) }
        };
        match r {
            Ok(wqe) => {
                // SAFETY: the slot is free (checked above) and ours until published.
                unsafe { write_sqe(q.slot(put), w.wr_id, &wqe) };
                q.publish(put, wqe.flags);
            }
            Err(e) => {
                // SAFETY: caller's contract.
                unsafe { *bad_wr = wr };
                // SAFETY: live QP; the list up to `wr` was just read.
                unsafe { send_refused(ibqp, wr, e.0) };
                return (e.0, put);
            }
        }
        put = put.wrapping_add(1);
        wr = w.next;
    }
    (0, put)
}

/// Logs why `wr` was refused (cold, out of line, `extern "C"` so the post loop knows it cannot unwind: the loop
/// only branches here, with values it holds, and keeps no unwinding state).
///
/// # Safety
/// `ibqp` is live; `wr` readable.
#[cold]
#[inline(never)]
unsafe extern "C" fn send_refused(ibqp: *mut ibv_qp, wr: *const ibv_send_wr, e: c_int) {
    let e = Errno(e);
    explain::quietly(|| {
        // SAFETY: caller's contract.
        unsafe { explain::wr_refused("ibv_post_send", Queue::Qp(ibqp), wr, e, |w| send_why(w, e)) }
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
        unsafe {
            explain::doorbell_refused(
                ibqp,
                Errno(e),
                "the QP is not in RTS; the WRs stay queued and go with the next post after it is",
            )
        }
    });
}

/// Logs why receive `wr` was refused (cold, out of line, as [`send_refused`]).
///
/// # Safety
/// `wr` readable.
#[cold]
#[inline(never)]
unsafe extern "C" fn recv_refused(srq: bool, wr: *const ibv_recv_wr, e: c_int) {
    let e = Errno(e);
    let call = if srq { "ibv_post_srq_recv" } else { "ibv_post_recv" };
    explain::quietly(|| {
        // SAFETY: caller's contract.
        unsafe { explain::wr_refused(call, Queue::Unnamed, wr, e, |w| recv_why(w, e)) }
    });
}

/// Why [`encode_send_wr`] (or the full ring) refused `wr` with `e`: its checks again, in its order, in words
/// (cold: the failure path only).
#[cold]
fn send_why(wr: &ibv_send_wr, e: Errno) -> String {
    if e == Errno::ENOMEM {
        return "send queue full: every slot holds a WR not completed yet (poll the send CQ, or create the QP with a \
                larger cap.max_send_wr)"
            .into();
    }
    // SAFETY: opcode is a 4-byte C enum written by the application.
    let opcode = unsafe { ffi::enum_raw(&wr.opcode) };
    let name = explain::send_opcode_name(opcode);
    if siw_send_opcode(opcode).is_none() {
        return format!("{name} is not supported by siw (RDMA_WRITE, SEND, RDMA_READ and SEND_WITH_INV only)");
    }
    if let Some(p) = explain::sge_problem(wr.num_sge, wr.sg_list.is_null(), u32::MAX, "max_send_sge") {
        return p;
    }
    if wr.send_flags & IBV_SEND_INLINE != 0 {
        if opcode != IBV_WR_SEND && opcode != IBV_WR_RDMA_WRITE {
            return format!("IBV_SEND_INLINE with {name} (siw inlines SEND and RDMA_WRITE only)");
        }
        // SAFETY: the SGE list passed the checks above.
        let length = unsafe { explain::sge_bytes(wr.sg_list, wr.num_sge) };
        return format!("IBV_SEND_INLINE with {length} bytes > siw's max_inline_data {SIW_MAX_INLINE}");
    }
    if wr.num_sge > SIW_MAX_SGE as i32 {
        return format!("num_sge {} > max_send_sge {SIW_MAX_SGE}", wr.num_sge);
    }
    if opcode == IBV_WR_RDMA_READ {
        if wr.num_sge > 1 {
            return format!("{name} with {} SGEs (siw reads into one)", wr.num_sge);
        }
        return format!("{name} with IBV_SEND_FENCE (siw does not fence reads)");
    }
    format!("{name} refused")
}

/// `ibv_post_send(3)` for siw (`ibv_context.ops.post_send`). Returns 0 or a positive errno; on a WR's failure
/// `*bad_wr` points to it and the WRs before it are posted.
///
/// Errors: `EINVAL` (NULL `bad_wr`, an opcode siw cannot post, too many SGEs, inline data over 80 bytes, see the
/// module table), `ENOMEM` (SQ full), the doorbell's (`ENOTCONN` while the QP is not in RTS: the WQEs stay in the
/// SQ and go with the next doorbell, or are flushed when the QP enters ERROR). A NULL list posts nothing.
///
/// # Safety
/// `ibqp` is a live QP of this provider; the WR list is valid as `ibv_post_send(3)` requires.
pub unsafe extern "C" fn post_send<H: SiwHost>(
    ibqp: *mut ibv_qp,
    wr_list: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    if bad_wr.is_null() {
        return Errno::EINVAL.0;
    }
    // SAFETY: non-NULL out-parameter; rdma-core clears it first too.
    unsafe { *bad_wr = ptr::null_mut() };
    if ibqp.is_null() {
        return Errno::EINVAL.0;
    }
    ffi::datapath_boundary("ibv_post_send", || {
        // SAFETY: caller's contract.
        let qp: &SiwQp = unsafe { H::siw_qp(ibqp) }.ok_or(Errno::EIO)?;
        let mut guard = qp.sq.lock();
        let sq: &mut Sq = &mut guard;
        let start = sq.put;
        let sig_all = qp.sq_sig_all;
        // A single WR of the common shape is posted here, with no loop and no call; a list, or any other WR, goes
        // through the out-of-line loop.
        // SAFETY: caller's contract (a non-NULL list is readable).
        let single = !wr_list.is_null() && unsafe { (*wr_list).next.is_null() };
        // SAFETY: caller's contract; the SQ lock is held.
        let (mut rc, put) =
            if single && unsafe { post_fast(sq.queue.writer(), &SEND_FLAGS[sig_all as usize], start, &*wr_list) } {
                (0, start.wrapping_add(1))
            } else {
                // SAFETY: caller's contract.
                unsafe { post_send_list(ibqp, sq, start, sig_all, wr_list, bad_wr) }
            };
        sq.put = put;
        let n = put.wrapping_sub(start);
        if n == 0 {
            return Ok(rc);
        }
        // Ring only if the kernel may have gone idle before seeing the new WQEs: the WQE before them was already
        // taken (or this call rewrote the whole SQ, so there is no "before"), or the last doorbell failed.
        let q = sq.queue.writer();
        let idle = n >= q.num_slots() || sq.db_owed || q.is_free_after_publish(start.wrapping_sub(1));
        if idle {
            // SAFETY: caller's contract.
            match unsafe { H::siw_post_send_doorbell(ibqp) } {
                Ok(()) => sq.db_owed = false,
                Err(e) => {
                    sq.db_owed = true;
                    rc = e.0;
                    // SAFETY: live QP.
                    unsafe { doorbell_refused(ibqp, e.0) };
                }
            }
        }
        Ok(rc)
    })
    .unwrap_or_else(|e| e.0)
}

/// `ibv_bind_mw(3)` for siw (`ibv_context.ops.bind_mw`): siw has no memory windows; `EOPNOTSUPP`, as rdma-core's
/// dummy op (errno untouched).
pub extern "C" fn bind_mw(_qp: *mut ibv_qp, _mw: *mut ibv_mw, _mw_bind: *mut ibv_mw_bind) -> c_int {
    Errno::EOPNOTSUPP.0
}

// ---------------------------------------------------------------------------------------------------------------
// ibv_post_recv, ibv_post_srq_recv
// ---------------------------------------------------------------------------------------------------------------

/// rdma-core's `push_recv_wqe` for one WR: `ENOMEM` when the slot is not free, `EINVAL` for more than
/// `SIW_MAX_SGE` SGEs (in that order, as rdma-core checks them); else writes the RQE and publishes it.
///
/// # Safety
/// Caller holds the RQ lock; `wr` is valid as `ibv_post_recv(3)` requires.
#[inline(always)]
unsafe fn post_one_recv(q: &WqeQueue, put: u32, wr: &ibv_recv_wr) -> Result<()> {
    if !q.is_free(put) {
        return Err(Errno::ENOMEM);
    }
    // SAFETY: caller's contract.
    let sges = unsafe { sge_slice(wr.sg_list, wr.num_sge)? };
    if sges.len() > SIW_MAX_SGE as usize {
        return Err(Errno::EINVAL);
    }
    let slot = q.slot(put);
    // SAFETY: a free slot of ours (checked above), 112 bytes with room for SIW_MAX_SGE SGEs at RQE_SGE.
    unsafe {
        slot.add(WQE_ID).cast::<u64>().write(wr.wr_id);
        slot.add(WQE_NUM_SGE).write(sges.len() as u8);
        put_sges(slot.add(RQE_SGE), sges);
    }
    q.publish(put, SIW_WQE_VALID as u16);
    Ok(())
}

/// Why [`post_one_recv`] refused `wr` with `e` (cold: the failure path only).
#[cold]
fn recv_why(wr: &ibv_recv_wr, e: Errno) -> String {
    if e == Errno::ENOMEM {
        return "receive queue full: every slot holds a receive not consumed yet (poll the receive CQ, or create the \
                queue with a larger max_recv_wr)"
            .into();
    }
    explain::sge_problem(wr.num_sge, wr.sg_list.is_null(), SIW_MAX_SGE, "max_recv_sge")
        .unwrap_or_else(|| "refused".into())
}

/// Posts a receive list under the RQ lock; `*bad_wr` gets the first failing WR.
///
/// # Safety
/// As [`post_one_recv`]; `bad_wr` writable.
#[inline(always)]
unsafe fn post_recv_list(srq: bool, rq: &mut Rq, mut wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr) -> c_int {
    while !wr.is_null() {
        // SAFETY: caller's contract.
        let w = unsafe { &*wr };
        // SAFETY: the RQ lock is held; caller's contract.
        if let Err(e) = unsafe { post_one_recv(&rq.queue, rq.put, w) } {
            // SAFETY: caller's contract.
            unsafe { *bad_wr = wr };
            // SAFETY: live queue; the list up to `wr` was just read.
            unsafe { recv_refused(srq, wr, e.0) };
            return e.0;
        }
        rq.put = rq.put.wrapping_add(1);
        wr = w.next;
    }
    0
}

/// `ibv_post_recv(3)` for siw (`ibv_context.ops.post_recv`). Returns 0 or a positive errno with `*bad_wr` set to
/// the failing WR. No doorbell: the kernel looks at the RQ when a message arrives. Receives may be posted in any
/// QP state (iWARP applications post them before connecting).
///
/// Errors: `EINVAL` (NULL `bad_wr`, a QP that receives through an SRQ or has no RQ, more than 6 SGEs), `ENOMEM` (RQ
/// full).
///
/// # Safety
/// `ibqp` is a live QP of this provider; the WR list is valid as `ibv_post_recv(3)` requires.
pub unsafe extern "C" fn post_recv<H: SiwHost>(
    ibqp: *mut ibv_qp,
    wr_list: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    if bad_wr.is_null() || ibqp.is_null() {
        return Errno::EINVAL.0;
    }
    ffi::datapath_boundary("ibv_post_recv", || {
        // SAFETY: caller's contract.
        let qp: &SiwQp = unsafe { H::siw_qp(ibqp) }.ok_or(Errno::EIO)?;
        let mut rq = qp.rq.lock();
        let Some(rq) = rq.as_mut() else {
            if !wr_list.is_null() {
                // SAFETY: checked non-NULL.
                unsafe { *bad_wr = wr_list };
                // SAFETY: live QP, readable WR.
                unsafe { explain::qp_recv_refused(ibqp, wr_list, 0) };
                return Ok(Errno::EINVAL.0);
            }
            return Ok(0);
        };
        // SAFETY: caller's contract.
        Ok(unsafe { post_recv_list(false, rq, wr_list, bad_wr) })
    })
    .unwrap_or_else(|e| e.0)
}

/// `ibv_post_srq_recv(3)` for siw (`ibv_context.ops.post_srq_recv`). Returns 0 or a positive errno with `*bad_wr`
/// set to the failing WR.
///
/// Errors: `EINVAL` (NULL `bad_wr`, more than 6 SGEs), `ENOMEM` (SRQ full).
///
/// # Safety
/// `ibsrq` is a live SRQ of this provider; the WR list is valid as `ibv_post_srq_recv(3)` requires.
pub unsafe extern "C" fn post_srq_recv<H: SiwHost>(
    ibsrq: *mut ibv_srq,
    wr_list: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    if bad_wr.is_null() || ibsrq.is_null() {
        return Errno::EINVAL.0;
    }
    ffi::datapath_boundary("ibv_post_srq_recv", || {
        // SAFETY: caller's contract.
        let srq = unsafe { H::siw_srq(ibsrq) }.ok_or(Errno::EIO)?;
        // SAFETY: caller's contract.
        Ok(unsafe { post_recv_list(true, &mut srq.rq.lock(), wr_list, bad_wr) })
    })
    .unwrap_or_else(|e| e.0)
}
