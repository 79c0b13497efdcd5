//! Soft-iWARP (`siw`): the userspace half of the kernel's software iWARP RNIC, as rdma-core 44's
//! `providers/siw` does it.
//!
//! Every queue is an array in kernel memory mapped into the process ([`queue`]): we write send and receive WQEs
//! straight into the SQ/RQ/SRQ and read CQEs straight out of the CQ. There are no shared indices: each slot's
//! `flags` word says who owns it (`SIW_WQE_VALID`). The only system call on the data path is the send doorbell (a
//! `POST_SEND` command with no work request), and only when the SQ looked idle; receives need none (the kernel
//! looks at the RQ when a message arrives), and arming a CQ is a store into a word mapped after its CQEs.
//!
//! * [`post`]: `ibv_post_send`, `ibv_post_recv`, `ibv_post_srq_recv`;
//! * [`poll`]: `ibv_poll_cq`, `ibv_req_notify_cq`;
//! * [`ctrl`]: the control path (`impl Provider for Siw<H>`);
//! * [`abi`]: the kernel's `siw-abi.h` with the layout asserts;
//! * [`queue`]: the slot-ownership protocol.
//!
//! siw is RC only, and iWARP: QPs are connected through the RDMA CM (`rdma_connect`/`rdma_accept` move them to
//! RTS), there are no AHs, UD, atomics, immediate data, memory windows or XRC. What rdma-core's siw does not
//! implement answers as its dummy ops do (the trait defaults, `EOPNOTSUPP`); see docs/providers.md.
//!
//! The object layer assembles the objects handed to C and implements [`SiwHost`], which tells the data path where
//! the per-object state defined here ([`SiwQp`], [`SiwCq`], [`SiwSrq`]) lives.
#![allow(unsafe_code)]

pub mod abi;
pub mod ctrl;
pub mod poll;
pub mod post;
pub mod queue;

pub use self::abi::RDMA_DRIVER_SIW;
use self::abi::{
    siw_uresp_create_cq, siw_uresp_create_qp, siw_uresp_create_srq, RQE_SIZE, SIW_INVAL_UOBJ_KEY, SQE_SIZE,
};
use self::queue::{CqQueue, WqeQueue};
use super::spin::SpinLock;
use super::verbs::*;
use rdma_common::{errno::Result, Errno};
use std::os::fd::BorrowedFd;

/// How the siw data path reaches its state and the kernel. Implemented once by the object layer (and by a fake in
/// the unit tests); the `extern "C"` functions of [`post`] and [`poll`] are generic over it and monomorphised into
/// the pointers stored in `ibv_context.ops`, so there is no dispatch.
///
/// # Safety
/// Each accessor must return the state of the object whose public struct is at the given address, valid for as
/// long as the object lives (objects never move). An accessor answers `None` for an object that belongs to another provider
/// (impossible through the public API, whose inlines dispatch through the object's own context; the data path then
/// answers `EIO`, and never panics).
pub unsafe trait SiwHost: 'static {
    /// The state of the QP `qp` (created by this provider).
    ///
    /// # Safety
    /// `qp` is a live QP of this provider.
    unsafe fn siw_qp<'a>(qp: *mut ibv_qp) -> Option<&'a SiwQp>;
    /// The state of the CQ `cq`.
    ///
    /// # Safety
    /// `cq` is a live CQ of this provider.
    unsafe fn siw_cq<'a>(cq: *mut ibv_cq) -> Option<&'a SiwCq>;
    /// The state of the SRQ `srq`.
    ///
    /// # Safety
    /// `srq` is a live SRQ of this provider.
    unsafe fn siw_srq<'a>(srq: *mut ibv_srq) -> Option<&'a SiwSrq>;
    /// The send doorbell: the uverbs `POST_SEND` command for `qp` with no work request (`wr_count = 0`), which makes
    /// the kernel start its transmit path on the WQEs already in the SQ (`siw_post_send`: `siw_activate_tx`, then
    /// `siw_qp_sq_process`). The kernel answers `ENOTCONN` unless the QP is in RTS.
    ///
    /// # Safety
    /// `qp` is a live QP of this provider.
    unsafe fn siw_post_send_doorbell(qp: *mut ibv_qp) -> Result<()>;
}

/// Send-queue state, guarded by the SQ lock.
#[derive(Debug)]
pub struct Sq {
    pub(crate) queue: WqeQueue,
    /// Our free-running producer counter (rdma-core's `sq_put`); the slot is `put & (slots - 1)`.
    pub(crate) put: u32,
    /// The last doorbell failed (typically: posted before RTS), so the WQEs it was for may still sit in the SQ with
    /// nobody to start them: the next post rings whatever the idle test says.
    pub(crate) db_owed: bool,
}

/// Receive-queue state (a QP's RQ or an SRQ), guarded by the RQ lock.
#[derive(Debug)]
pub struct Rq {
    pub(crate) queue: WqeQueue,
    /// Our free-running producer counter (rdma-core's `rq_put`).
    pub(crate) put: u32,
}

/// Provider state of a QP (rdma-core's `struct siw_qp` without the `ibv_qp`).
#[derive(Debug)]
pub struct SiwQp {
    pub(crate) sq: SpinLock<Sq>,
    /// `None` when the QP receives through an SRQ, or was created without receive queue (`max_recv_wr` 0).
    pub(crate) rq: SpinLock<Option<Rq>>,
    /// `sq_sig_all` at creation: every WQE is posted signalled.
    pub(crate) sq_sig_all: bool,
    /// The kernel's QP id (`siw_uresp_create_qp.qp_id`, also the QP number).
    pub qp_id: u32,
}

/// Provider state of a CQ (rdma-core's `struct siw_cq` without the `ibv_cq`).
#[derive(Debug)]
pub struct SiwCq {
    /// The CQEs and the notification word; slot accesses hold `inner`'s lock, arming does not need it.
    pub(crate) queue: CqQueue,
    pub(crate) inner: SpinLock<CqState>,
    /// The kernel's CQ id (`siw_uresp_create_cq.cq_id`).
    pub cq_id: u32,
}

/// CQ state guarded by the CQ lock.
#[derive(Debug)]
pub struct CqState {
    /// Our free-running consumer counter (rdma-core's `cq_get`).
    pub(crate) get: u32,
}

/// Provider state of an SRQ (rdma-core's `struct siw_srq` without the `ibv_srq`).
#[derive(Debug)]
pub struct SiwSrq {
    pub(crate) rq: SpinLock<Rq>,
}

impl SiwQp {
    /// State for a QP whose queues are `sq` (of `siw_sqe` slots) and, unless it has none, `rq` (of `siw_rqe`).
    ///
    /// Errors: `EINVAL` for queues of the wrong slot size.
    pub fn new(sq: WqeQueue, rq: Option<WqeQueue>, sq_sig_all: bool, qp_id: u32) -> Result<SiwQp> {
        if sq.elem_size() != SQE_SIZE || rq.as_ref().is_some_and(|q| q.elem_size() != RQE_SIZE) {
            return Err(Errno::EINVAL);
        }
        Ok(SiwQp {
            sq: SpinLock::new(Sq { queue: sq, put: 0, db_owed: false }),
            rq: SpinLock::new(rq.map(|queue| Rq { queue, put: 0 })),
            sq_sig_all,
            qp_id,
        })
    }

    /// Runs `f` with both the SQ and the RQ lock held (rdma-core's `siw_modify_qp` issues MODIFY_QP so, keeping
    /// posts out while the QP changes state).
    pub fn with_queues_locked<R>(&self, f: impl FnOnce() -> R) -> R {
        let _sq = self.sq.lock();
        let _rq = self.rq.lock();
        f()
    }
}

impl SiwCq {
    /// State for a CQ over `queue`.
    pub fn new(queue: CqQueue, cq_id: u32) -> SiwCq {
        SiwCq { queue, inner: SpinLock::new(CqState { get: 0 }), cq_id }
    }
}

impl SiwSrq {
    /// State for an SRQ over `queue` (of `siw_rqe` slots).
    ///
    /// Errors: `EINVAL` for a queue of the wrong slot size.
    pub fn new(queue: WqeQueue) -> Result<SiwSrq> {
        if queue.elem_size() != RQE_SIZE {
            return Err(Errno::EINVAL);
        }
        Ok(SiwSrq { rq: SpinLock::new(Rq { queue, put: 0 }) })
    }

    /// Runs `f` with the SRQ lock held (rdma-core's `siw_modify_srq`).
    pub fn with_queue_locked<R>(&self, f: impl FnOnce() -> R) -> R {
        let _rq = self.rq.lock();
        f()
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Building the state from the kernel's answers (the control path's siw-specific part)
// ---------------------------------------------------------------------------------------------------------------

/// A mapping key the kernel could not set up (`SIW_INVAL_UOBJ_KEY`: its `rdma_user_mmap_entry_insert` failed).
fn check_key(key: u64) -> Result<u64> {
    if key == SIW_INVAL_UOBJ_KEY as u64 {
        return Err(Errno::ENOMEM);
    }
    Ok(key)
}

/// QP state from `siw_uresp_create_qp` (rdma-core's `siw_create_qp`): maps `num_sqe` SQEs at `sq_key` and, unless
/// the QP receives through an SRQ, `num_rqe` RQEs at `rq_key`. A QP created without receive queue (`num_rqe` 0:
/// the kernel registers none) gets none; rdma-core would try to map 0 bytes and fail the creation.
///
/// Errors: `ENOMEM` for a key the kernel marked invalid; `EINVAL` for a slot count that is not a power of two; the
/// `mmap` errno.
pub fn qp_from_resp(fd: BorrowedFd<'_>, resp: &siw_uresp_create_qp, has_srq: bool, sq_sig_all: bool) -> Result<SiwQp> {
    let sq = WqeQueue::map(fd, check_key(resp.sq_key)?, resp.num_sqe, SQE_SIZE)?;
    let rq = if has_srq || resp.num_rqe == 0 {
        None
    } else {
        Some(WqeQueue::map(fd, check_key(resp.rq_key)?, resp.num_rqe, RQE_SIZE)?)
    };
    SiwQp::new(sq, rq, sq_sig_all, resp.qp_id)
}

/// CQ state from `siw_uresp_create_cq` (rdma-core's `siw_create_cq`): maps `num_cqe` CQEs and the notification
/// word at `cq_key`, the word set to "not armed".
///
/// Errors: as [`qp_from_resp`].
pub fn cq_from_resp(fd: BorrowedFd<'_>, resp: &siw_uresp_create_cq) -> Result<SiwCq> {
    Ok(SiwCq::new(CqQueue::map(fd, check_key(resp.cq_key)?, resp.num_cqe)?, resp.cq_id))
}

/// SRQ state from `siw_uresp_create_srq` (rdma-core's `siw_create_srq`): maps `num_rqe` RQEs at `srq_key`.
///
/// Errors: as [`qp_from_resp`].
pub fn srq_from_resp(fd: BorrowedFd<'_>, resp: &siw_uresp_create_srq) -> Result<SiwSrq> {
    SiwSrq::new(WqeQueue::map(fd, check_key(resp.srq_key)?, resp.num_rqe, RQE_SIZE)?)
}

/// The `ibv_context.ops` data-path entries of siw, monomorphised for the object layer `H`.
pub fn data_path_ops<H: SiwHost>() -> super::DataPathOps {
    super::DataPathOps {
        bind_mw: post::bind_mw,
        post_send: post::post_send::<H>,
        post_recv: post::post_recv::<H>,
        post_srq_recv: post::post_srq_recv::<H>,
        poll_cq: poll::poll_cq::<H>,
        req_notify_cq: poll::req_notify_cq::<H>,
    }
}

#[cfg(test)]
mod ctrl_tests;
#[cfg(test)]
mod poll_tests;
#[cfg(test)]
mod post_tests;
#[cfg(test)]
pub(crate) mod testing;
