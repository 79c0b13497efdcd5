//! Errors that say why, on the data path: the warning line a provider's `ibv_post_send` / `ibv_post_recv` /
//! `ibv_post_srq_recv` writes when it refuses a work request, naming the queue (for sends), the failing WR's
//! `wr_id` (also what `*bad_wr` points to) and the rule it broke, in the field's terms, e.g.
//!
//! ```text
//! ibv_post_send(qpn 0x11): wr_id 0x7: num_sge 5 > max_send_sge 4 (EINVAL)
//! ```
//!
//! Each provider states its own rules (the closure it passes re-checks the WR in its own order); this module
//! writes the line. Everything here is `#[cold]` and called only from the branch that already returns the error,
//! with values the post loop holds anyway (the WR list's head, or a receive queue's QP, would cost the loop a
//! register: the bench counts instructions per WR), so a post that succeeds pays nothing; with the log below
//! warning level (`VERBS_LOG_LEVEL` unset) not even the failure formats anything. Return values never change.
#![allow(unsafe_code)] // walks the caller's WR list and reads the QP / SRQ header

use rdma_common::abi::verbs::{ibv_qp, ibv_recv_wr, ibv_send_wr};
use rdma_common::Errno;

/// A work request: `ibv_send_wr` or `ibv_recv_wr`.
pub(crate) trait WorkRequest {
    /// The caller's `wr_id`.
    fn id(&self) -> u64;
}

impl WorkRequest for ibv_send_wr {
    fn id(&self) -> u64 {
        self.wr_id
    }
}

impl WorkRequest for ibv_recv_wr {
    fn id(&self) -> u64 {
        self.wr_id
    }
}

/// The queue a post went to, as the log line names it.
#[derive(Clone, Copy)]
pub(crate) enum Queue {
    /// A QP's send or receive queue (named by its QP number).
    Qp(*const ibv_qp),
    /// Not named (a receive queue inside the post loop, which does not hold its QP).
    Unnamed,
}

impl Queue {
    /// `(qpn 0x11)`, or nothing.
    ///
    /// # Safety
    /// The pointer is a live QP.
    unsafe fn describe(self) -> String {
        match self {
            // SAFETY: caller's contract.
            Queue::Qp(q) => format!("(qpn {:#x})", unsafe { (*q).qp_num }),
            Queue::Unnamed => String::new(),
        }
    }
}

/// Runs `f`, swallowing a panic: the providers' cold entry points into this module are `extern "C"` (so the post
/// loops calling them know they cannot unwind, and keep no unwinding state: that alone cost each post several
/// instructions) and must therefore never let a panic out.
pub(crate) fn quietly(f: impl FnOnce()) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
}

/// Whether a warning would be written at all (`VERBS_LOG_LEVEL` 2 or above).
#[inline]
fn wanted() -> bool {
    log::log_enabled!(log::Level::Warn)
}

/// Logs why WR `bad` was refused with `e` by `call` on `queue`: `why` re-checks the WR against the provider's
/// rules and names the first one it breaks.
///
/// # Safety
/// `queue` is live; `bad` is the caller's readable WR (as `ibv_post_send(3)` requires).
#[cold]
#[inline(never)]
pub(crate) unsafe fn wr_refused<W: WorkRequest>(
    call: &str,
    queue: Queue,
    bad: *const W,
    e: Errno,
    why: impl FnOnce(&W) -> String,
) {
    if !wanted() || bad.is_null() {
        return;
    }
    // SAFETY: caller's contract.
    let (who, wr) = unsafe { (queue.describe(), &*bad) };
    log::warn!("{call}{who}: wr_id {:#x}: {} ({})", wr.id(), why(wr), e.name());
}

/// Logs that the kernel refused the send doorbell of `qp` with `e` after the WRs were queued: `why` says what
/// that errno means for this provider.
///
/// # Safety
/// `qp` is live.
#[cold]
#[inline(never)]
pub(crate) unsafe fn doorbell_refused(qp: *const ibv_qp, e: Errno, why: &str) {
    if !wanted() {
        return;
    }
    // SAFETY: caller's contract.
    let who = unsafe { Queue::Qp(qp).describe() };
    log::warn!("ibv_post_send({who}): the kernel refused the doorbell: {why} ({})", e.name());
}

/// Logs that `ibv_post_recv` refused `wr` on QP `qp` because of the QP itself (`why`: 0 it receives through an
/// SRQ, 1 it is in RESET): `extern "C"` and cold, as the providers' own `*_refused` functions.
///
/// # Safety
/// `qp` is live; `wr` readable.
#[cold]
#[inline(never)]
pub(crate) unsafe extern "C" fn qp_recv_refused(qp: *const ibv_qp, wr: *const ibv_recv_wr, why: u32) {
    quietly(|| {
        let text = match why {
            0 => "the QP has no receive queue of its own: it receives through an SRQ (post with ibv_post_srq_recv)",
            _ => "the QP is in RESET (move it to INIT first)",
        };
        // SAFETY: caller's contract.
        unsafe { wr_refused("ibv_post_recv", Queue::Qp(qp), wr, Errno::EINVAL, |_| text.to_string()) }
    });
}

/// The name of a send opcode (`enum ibv_wr_opcode`), or its number.
pub(crate) fn send_opcode_name(op: u32) -> String {
    let n = match op {
        0 => "RDMA_WRITE",
        1 => "RDMA_WRITE_WITH_IMM",
        2 => "SEND",
        3 => "SEND_WITH_IMM",
        4 => "RDMA_READ",
        5 => "ATOMIC_CMP_AND_SWP",
        6 => "ATOMIC_FETCH_AND_ADD",
        7 => "LOCAL_INV",
        8 => "BIND_MW",
        9 => "SEND_WITH_INV",
        10 => "TSO",
        11 => "DRIVER1",
        15 => "ATOMIC_WRITE",
        n => return format!("opcode {n}"),
    };
    format!("IBV_WR_{n}")
}

/// The reasons shared by every provider's SGE check, in the order they check: a negative count, more than
/// `max_sge` (`max` names the limit), a NULL list with SGEs. None when the SGE list itself is fine.
pub(crate) fn sge_problem(num_sge: i32, sg_list_null: bool, max_sge: u32, max: &str) -> Option<String> {
    if num_sge < 0 {
        return Some(format!("num_sge {num_sge} is negative"));
    }
    if num_sge as u32 > max_sge {
        return Some(format!("num_sge {num_sge} > {max} {max_sge}"));
    }
    if num_sge > 0 && sg_list_null {
        return Some(format!("sg_list is NULL with num_sge {num_sge}"));
    }
    None
}

/// The total length of a WR's SGEs (0 for an unreadable list), for the inline check's message.
///
/// # Safety
/// `sg_list` is NULL or points to `num_sge` readable SGEs.
pub(crate) unsafe fn sge_bytes(sg_list: *const rdma_common::abi::verbs::ibv_sge, num_sge: i32) -> u64 {
    if sg_list.is_null() || num_sge <= 0 {
        return 0;
    }
    // SAFETY: caller's contract.
    let sges = unsafe { std::slice::from_raw_parts(sg_list, num_sge as usize) };
    sges.iter().map(|s| u64::from(s.length)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sge_problems_in_check_order() {
        assert_eq!(sge_problem(-1, false, 4, "max_send_sge").unwrap(), "num_sge -1 is negative");
        assert_eq!(sge_problem(5, false, 4, "max_send_sge").unwrap(), "num_sge 5 > max_send_sge 4");
        assert_eq!(sge_problem(2, true, 4, "max_recv_sge").unwrap(), "sg_list is NULL with num_sge 2");
        assert!(sge_problem(0, true, 4, "max_send_sge").is_none());
        assert!(sge_problem(4, false, 4, "max_send_sge").is_none());
    }

    #[test]
    fn opcode_names() {
        assert_eq!(send_opcode_name(4), "IBV_WR_RDMA_READ");
        assert_eq!(send_opcode_name(15), "IBV_WR_ATOMIC_WRITE");
        assert_eq!(send_opcode_name(42), "opcode 42");
    }
}
