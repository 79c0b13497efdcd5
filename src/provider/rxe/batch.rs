//! The `ibv_qp_ex` critical section's owner: `ibv_wr_start` twice on one QP without `ibv_wr_complete` /
//! `ibv_wr_abort` in between would take the SQ lock a second time in the same thread and deadlock (rdma-core's
//! rxe spins on its `pthread_spin_lock` forever). These wrappers, installed as `wr_start`/`wr_complete`/`wr_abort`
//! by [`super::set_qp_send_ops`], remember which thread holds the batch:
//!
//! * a second `wr_start` in the thread that holds the batch is refused (`wr_start` returns `void`, so it logs why
//!   at error level) and marks the open batch failed with `EINVAL`: the following `wr_complete` returns `EINVAL`,
//!   posts nothing and leaves the critical section, so the QP is usable again;
//! * `wr_start` in another thread waits for the batch, as the API's lock does;
//! * `wr_complete` from a thread that holds no batch returns `EINVAL`, and `wr_abort` there does nothing (neither
//!   releases another thread's lock).
//!
//! A thread is named by its kernel thread id (`gettid`, read once per thread: nonzero and unique among live
//! threads, and 4 bytes, where an address would make every QP 8 bytes larger); the owner is written only by the
//! lock holder, so a thread reads its own token there only while it holds the batch.
#![allow(unsafe_code)]

use super::wr;
use super::{RxeHost, RxeQp};
use rdma_common::abi::verbs::ibv_qp_ex;
use rdma_common::Errno;
use std::ffi::c_int;
use std::sync::atomic::Ordering::Relaxed;

thread_local! {
    static TOKEN: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// This thread's token (never 0): its thread id.
fn me() -> u32 {
    TOKEN.with(|t| {
        if t.get() == 0 {
            // SAFETY: gettid(2) has no preconditions and cannot fail.
            t.set(unsafe { libc::gettid() } as u32);
        }
        t.get()
    })
}

/// Whether this thread holds `qp`'s batch.
fn mine(qp: &RxeQp) -> bool {
    qp.sq.extra.load(Relaxed) == me()
}

/// `ibv_wr_start(3)` with the re-entry check (module docs).
///
/// # Safety
/// As [`wr::wr_start`].
pub unsafe extern "C" fn wr_start<H: RxeHost>(ibqp: *mut ibv_qp_ex) {
    // SAFETY: caller's contract.
    let Some(qp) = (unsafe { H::qp(ibqp.cast()) }) else { return };
    if mine(qp) {
        // SAFETY: this thread holds the SQ lock (it is the batch's owner), so the SQ state is ours.
        let sq = unsafe { &mut *qp.sq.data_ptr() };
        // SAFETY: this thread's batch.
        unsafe { wr::fail::<H>(ibqp, sq, Errno::EINVAL.0) };
        // SAFETY: a live QP (caller's contract).
        let qpn = unsafe { (*ibqp).qp_base.qp_num };
        log::error!(
            "ibv_wr_start: QP {qpn:#x} is already inside an ibv_wr_start batch of this thread (no ibv_wr_complete or \
             ibv_wr_abort since): refused instead of deadlocking; the batch fails, ibv_wr_complete returns EINVAL"
        );
        return;
    }
    // SAFETY: caller's contract.
    unsafe { wr::wr_start::<H>(ibqp) };
    qp.sq.extra.store(me(), Relaxed);
}

/// `ibv_wr_complete(3)`; `EINVAL` from a thread that holds no batch of this QP.
///
/// # Safety
/// As [`wr::wr_complete`].
pub unsafe extern "C" fn wr_complete<H: RxeHost>(ibqp: *mut ibv_qp_ex) -> c_int {
    // SAFETY: caller's contract.
    let Some(qp) = (unsafe { H::qp(ibqp.cast()) }) else { return Errno::EIO.0 };
    if !mine(qp) {
        return Errno::EINVAL.0;
    }
    qp.sq.extra.store(0, Relaxed);
    // SAFETY: caller's contract; this thread holds the batch.
    unsafe { wr::wr_complete::<H>(ibqp) }
}

/// `ibv_wr_abort(3)`; nothing from a thread that holds no batch of this QP.
///
/// # Safety
/// As [`wr::wr_abort`].
pub unsafe extern "C" fn wr_abort<H: RxeHost>(ibqp: *mut ibv_qp_ex) {
    // SAFETY: caller's contract.
    let Some(qp) = (unsafe { H::qp(ibqp.cast()) }) else { return };
    if !mine(qp) {
        return;
    }
    qp.sq.extra.store(0, Relaxed);
    // SAFETY: caller's contract; this thread holds the batch.
    unsafe { wr::wr_abort::<H>(ibqp) }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{set_qp_send_ops, QpCaps, RXE_SUP_RC_QP_SEND_OPS_FLAGS};
    use super::*;
    use rdma_common::abi::verbs::*;

    const CAPS: QpCaps = QpCaps { max_send_sge: 2, max_inline_data: 0, max_recv_sge: 2 };

    #[test]
    fn second_start_is_refused_and_the_batch_fails() {
        let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 2, false);
        set_qp_send_ops::<Host>(&mut qp.qp_ex, RXE_SUP_RC_QP_SEND_OPS_FLAGS);
        let x = qp.qpx();
        // SAFETY: a test QP with send ops; one thread.
        unsafe {
            let (start, complete, abort) = ((*x).wr_start.unwrap(), (*x).wr_complete.unwrap(), (*x).wr_abort.unwrap());
            start(x);
            start(x); // would deadlock without the check
            assert_eq!(complete(x), libc::EINVAL, "the batch with a refused second start fails");
            assert_eq!(complete(x), libc::EINVAL, "outside a batch");
            abort(x); // outside a batch: nothing
            start(x);
            abort(x);
            start(x);
            assert_ne!(complete(x), libc::EINVAL, "usable again (an empty batch)");
        }
    }

    #[test]
    fn another_thread_cannot_complete_or_abort() {
        let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 2, false);
        set_qp_send_ops::<Host>(&mut qp.qp_ex, RXE_SUP_RC_QP_SEND_OPS_FLAGS);
        let x = qp.qpx() as usize;
        // SAFETY: as above; the other thread only calls complete/abort, which refuse.
        unsafe {
            let q = x as *mut ibv_qp_ex;
            ((*q).wr_start.unwrap())(q);
            let r = std::thread::spawn(move || {
                let q = x as *mut ibv_qp_ex;
                ((*q).wr_abort.unwrap())(q);
                ((*q).wr_complete.unwrap())(q)
            })
            .join()
            .unwrap();
            assert_eq!(r, libc::EINVAL);
            ((*q).wr_abort.unwrap())(q);
        }
    }
}
