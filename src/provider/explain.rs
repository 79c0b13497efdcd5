//! Errors that say why, on the data path: the warning line a provider's `ibv_post_send` / `ibv_post_recv` /
//! `ibv_post_srq_recv` writes when it refuses a work request, naming the queue, the failing WR (its position in
//! the list and its `wr_id`) and the rule it broke, in the field's terms, e.g.
//!
//! ```text
//! ibv_post_send(qpn 0x11): wr 3 (wr_id 0x7): num_sge 5 > max_send_sge 4 (EINVAL)
//! ```
//!
//! Each provider states its own rules (the closure it passes re-checks the WR in its own order); this module only
//! finds the WR's position and writes the line. Everything here is `#[cold]` and called only from the branch
//! that already returns the error, so a post that succeeds pays nothing; with the log below warning level
//! (`VERBS_LOG_LEVEL` unset) not even the failure formats anything. Return values are never changed.
#![allow(unsafe_code)] // walks the caller's WR list and reads the QP / SRQ header

use rdma_common::abi::verbs::{ibv_qp, ibv_recv_wr, ibv_send_wr, ibv_srq};
use rdma_common::Errno;

/// A WR list element: `ibv_send_wr` or `ibv_recv_wr`.
pub(crate) trait WorkRequest {
    /// The next WR of the list (NULL at its end).
    fn next_wr(&self) -> *const Self;
    /// The caller's `wr_id`.
    fn id(&self) -> u64;
}

impl WorkRequest for ibv_send_wr {
    fn next_wr(&self) -> *const Self {
        self.next
    }
    fn id(&self) -> u64 {
        self.wr_id
    }
}

impl WorkRequest for ibv_recv_wr {
    fn next_wr(&self) -> *const Self {
        self.next
    }
    fn id(&self) -> u64 {
        self.wr_id
    }
}

/// The queue a post went to, as the log line names it.
#[derive(Clone, Copy)]
pub(crate) enum Queue {
    /// A QP's send or receive queue (named by its QP number).
    Qp(*const ibv_qp),
    /// A shared receive queue (named by its kernel handle).
    Srq(*const ibv_srq),
}

impl Queue {
    /// `qpn 0x11` / `srq handle 3`.
    ///
    /// # Safety
    /// The pointer is a live QP / SRQ.
    unsafe fn describe(self) -> String {
        match self {
            // SAFETY: caller's contract.
            Queue::Qp(q) => format!("qpn {:#x}", unsafe { (*q).qp_num }),
            // SAFETY: caller's contract.
            Queue::Srq(s) => format!("srq handle {}", unsafe { (*s).handle }),
        }
    }
}

/// Whether a warning would be written at all (`VERBS_LOG_LEVEL` 2 or above).
#[inline]
fn wanted() -> bool {
    log::log_enabled!(log::Level::Warn)
}

/// Logs why WR `bad` of the list starting at `head` was refused with `e` by `call` on `queue`: `why` re-checks
/// the WR against the provider's rules and names the first one it breaks. The WR's position counts from 0.
///
/// # Safety
/// `queue` is live; `head` .. `bad` is the caller's readable WR list (as `ibv_post_send(3)` requires), `bad` one
/// of its elements.
#[cold]
#[inline(never)]
pub(crate) unsafe fn wr_refused<W: WorkRequest>(
    call: &str,
    queue: Queue,
    head: *const W,
    bad: *const W,
    e: Errno,
    why: impl FnOnce(&W) -> String,
) {
    if !wanted() || bad.is_null() {
        return;
    }
    let mut index = 0usize;
    let mut w = head;
    // A list that never reaches `bad` (or loops) is cut short rather than walked forever.
    while !w.is_null() && w != bad && index < 1 << 20 {
        // SAFETY: caller's contract: every WR up to `bad` is readable.
        w = unsafe { (*w).next_wr() };
        index += 1;
    }
    // SAFETY: caller's contract.
    let (who, wr) = unsafe { (queue.describe(), &*bad) };
    log::warn!("{call}({who}): wr {index} (wr_id {:#x}): {} ({})", wr.id(), why(wr), e.name());
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
