//! Soft-RoCE (`rdma_rxe`): the userspace half of the kernel's software RoCE device, as rdma-core 44's
//! `providers/rxe` does it.
//!
//! Every queue is a ring in kernel memory mapped into the process ([`queue`]): we write send and receive WQEs
//! straight into the SQ/RQ/SRQ rings and read CQEs straight out of the CQ ring. The only system call on the data
//! path is the send doorbell, a `POST_SEND` command with zero work requests, which makes the kernel run the QP's
//! requester; receives need none (the kernel's responder looks at the ring when a packet arrives), and neither do
//! completions.
//!
//! * [`post`]: `ibv_post_send`, `ibv_post_recv`, `ibv_post_srq_recv`, `ibv_bind_mw`'s WR;
//! * [`wr`]: the `ibv_qp_ex` `wr_*` builders and setters, `wr_start`/`wr_complete`/`wr_abort` ([`batch`] guards
//!   the critical section against re-entry);
//! * [`poll`]: `ibv_poll_cq`, `ibv_req_notify_cq` and the `ibv_cq_ex` `start_poll`/`next_poll`/`end_poll`/`read_*`;
//! * [`abi`]: the kernel's `rdma_user_rxe.h` with the layout asserts;
//! * [`queue`]: the shared ring protocol.
//!
//! The object layer assembles the objects handed to C and implements [`RxeHost`], which tells the data path where
//! the per-object state defined here ([`RxeQp`], [`RxeCq`], [`RxeSrq`], [`RxeAh`]) lives; see docs/providers.md.
#![allow(unsafe_code)]

pub mod abi;
pub mod batch;
pub mod ctrl;
pub mod poll;
pub mod post;
pub mod queue;
pub mod wr;

use self::abi::{rxe_av, rxe_recv_wqe, rxe_send_wqe, RECV_WQE_DATA_OFFSET, SEND_WQE_DATA_OFFSET};
use self::queue::RxeQueue;
use super::spin::SpinLock;
use super::verbs::*;
use rdma_common::abi::enums::{IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD};
use rdma_common::{errno::Result, Errno};
use std::ffi::c_int;
use std::mem::size_of;
use std::os::fd::BorrowedFd;
use std::sync::atomic::AtomicU32;

pub use rdma_common::abi::enums::RDMA_DRIVER_RXE;

/// How the rxe data path reaches its state and the kernel. Implemented once by the object layer (and by a fake in
/// the unit tests); the `extern "C"` functions of [`post`] and [`poll`] are generic over it and monomorphised
/// into the pointers stored in `ibv_context.ops`, `ibv_qp_ex` and `ibv_cq_ex`, so there is no dispatch.
///
/// # Safety
/// Each accessor must return the state of the object whose public struct is at the given address, valid for as
/// long as the object lives (objects never move). An accessor answers `None` for an object that belongs to another provider
/// (impossible through the public API, whose inlines dispatch through the object's own context; the data path then
/// answers `EIO`, and never panics). `ibv_qp_ex *` and `ibv_qp *` are the same address, as are
/// `ibv_cq_ex *` and `ibv_cq *`.
pub unsafe trait RxeHost: 'static {
    /// The state of the QP `qp` (created by this provider).
    ///
    /// # Safety
    /// `qp` is a live QP of this provider.
    unsafe fn qp<'a>(qp: *mut ibv_qp) -> Option<&'a RxeQp>;
    /// The state of the CQ `cq`.
    ///
    /// # Safety
    /// `cq` is a live CQ of this provider.
    unsafe fn cq<'a>(cq: *mut ibv_cq) -> Option<&'a RxeCq>;
    /// How many more WQEs the `ibv_qp_ex` batch of the QP `qp` may build with no check at all: a `u32` the host
    /// keeps *beside* the provider state, in every QP of every provider, zeroed at creation and written only by
    /// [`wr`] under the SQ lock. It is non-zero only inside an rxe batch that has not failed, and never more than
    /// the free slots the ring had when it was last looked at; a builder that finds 0 (outside a batch, a failed
    /// one, a full ring as last seen, another provider's QP) goes to the checked path.
    ///
    /// # Safety
    /// `qp` is a live QP (of any provider of this host).
    unsafe fn qp_wr_room(qp: *mut ibv_qp) -> *mut u32;
    /// The `ibv_cq_ex` polling cursor of the CQ `cq`, which the host keeps *beside* the provider state, in every
    /// CQ of every provider, zeroed at creation and touched by nothing but [`poll`]'s extended functions: a
    /// cursor whose `limit` is 0 (every CQ outside an rxe polling batch, every other provider's CQ) sends
    /// `ibv_next_poll` to its checked path.
    ///
    /// # Safety
    /// `cq` is a live CQ (of any provider of this host).
    unsafe fn cq_cursor(cq: *mut ibv_cq) -> *mut PollCursor;
    /// The state of the SRQ `srq`.
    ///
    /// # Safety
    /// `srq` is a live SRQ of this provider.
    unsafe fn srq<'a>(srq: *mut ibv_srq) -> Option<&'a RxeSrq>;
    /// The state of the AH `ah`.
    ///
    /// # Safety
    /// `ah` is a live AH of this provider.
    unsafe fn ah<'a>(ah: *mut ibv_ah) -> Option<&'a RxeAh>;
    /// The send doorbell: the uverbs `POST_SEND` command for `qp` with no work request (`wr_count = 0`), which
    /// makes the kernel run the QP's requester over the WQEs already in the ring. The kernel answers `EINVAL`
    /// while the QP is not ready to send (before RTS).
    ///
    /// # Safety
    /// `qp` is a live QP of this provider.
    unsafe fn post_send_doorbell(qp: *mut ibv_qp) -> Result<()>;
    /// The uverbs `REQ_NOTIFY_CQ` command (rdma-core's `ibv_cmd_req_notify_cq`).
    ///
    /// # Safety
    /// `cq` is a live CQ of this provider.
    unsafe fn req_notify_cq(cq: *mut ibv_cq, solicited_only: bool) -> Result<()>;
}

/// Send-queue state: the ring and everything guarded by the SQ lock, including the `ibv_qp_ex` batch under
/// construction between `wr_start` and `wr_complete`/`wr_abort`.
#[derive(Debug)]
pub struct Sq {
    pub(crate) queue: RxeQueue,
    /// SGEs per WQE: the QP's `max_send_sge`, clamped to what fits in a slot.
    pub(crate) max_sge: u32,
    /// Inline bytes per WQE: the QP's `max_inline_data`, clamped to what fits in a slot.
    pub(crate) max_inline: u32,
    /// Send sequence number written into each WQE (`wqe->ssn`, as rdma-core 44 does; the kernel does not read it, and rdma-core 45 stopped writing it).
    pub(crate) ssn: u32,
    /// `ibv_qp_ex` batch: where the WQE built last lies (its byte offset from the start of the ring's memory, so
    /// never 0), or 0 when a setter has nothing to amend (outside a batch, no WQE built in it yet, or the batch
    /// failed): the one test `ibv_wr_set_*` makes before amending it.
    pub(crate) last: u32,
    /// The next free slot of the batch; the first error (a positive errno, 0 if none) that `wr_complete` will
    /// return.
    pub(crate) cur_index: u32,
    pub(crate) err: c_int,
}

/// Receive-queue state (a QP's RQ or an SRQ): the ring, guarded by the RQ lock. `queue` is `None` after a failed
/// re-map (SRQ resize): posting then fails with `EINVAL`.
#[derive(Debug)]
pub struct Rq {
    pub(crate) queue: Option<RxeQueue>,
    /// SGEs per WQE: `max_recv_sge` (or the SRQ's `max_sge`), clamped to what fits in a slot.
    pub(crate) max_sge: u32,
}

/// A QP's `ibv_qp_type` in one byte (fixed at creation). Its unused byte values are a niche: the provider enum
/// around [`RxeQp`] keeps its tag there instead of in 8 more bytes.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QpType {
    /// `IBV_QPT_RC`.
    Rc = 2,
    /// `IBV_QPT_UC`.
    Uc = 3,
    /// `IBV_QPT_UD`.
    Ud = 4,
    /// Any other type (the kernel creates none on rxe): no send opcode is specific to it.
    Other = 0,
}

impl QpType {
    /// The type for the numeric `ibv_qp_type` `t`.
    pub fn from_raw(t: u32) -> QpType {
        match t {
            IBV_QPT_RC => QpType::Rc,
            IBV_QPT_UC => QpType::Uc,
            IBV_QPT_UD => QpType::Ud,
            _ => QpType::Other,
        }
    }
}

/// Provider state of a QP (rdma-core's `struct rxe_qp` without the `verbs_qp`). 96 bytes: the two fields that
/// are not ring state sit beside the lock bytes (each lock byte leaves 7 bytes of padding before its 8-aligned
/// ring state): the batch owner beside the SQ's, the QP type beside the RQ's.
#[derive(Debug)]
pub struct RxeQp {
    /// The SQ; its `extra` is the thread inside an `ibv_wr_start` batch, 0 if none (see [`batch`]).
    pub(crate) sq: SpinLock<Sq, AtomicU32>,
    /// The RQ; its `queue` is `None` when the QP receives through an SRQ (a QP's RQ is never re-mapped, so for a
    /// QP that is the only meaning of `None`). Not an `Option` around the lock: 8 bytes a QP, which took it past
    /// rdma-core's malloc chunk. Its `extra` is the QP's type.
    pub(crate) rq: SpinLock<Rq, QpType>,
}

/// Provider state of a CQ (rdma-core's `struct rxe_cq` without the `verbs_cq`).
#[derive(Debug)]
pub struct RxeCq {
    pub(crate) inner: SpinLock<CqState>,
}

/// CQ state guarded by the CQ lock (held from `start_poll` to `end_poll` for the extended API).
#[derive(Debug)]
pub struct CqState {
    /// `None` after a failed re-map (resize): polling then fails with `EINVAL`.
    pub(crate) queue: Option<RxeQueue>,
    /// The ring's slot size in bytes (`ibv_next_poll` steps its cursor by it).
    pub(crate) elem_size: u32,
}

/// Where an `ibv_cq_ex` polling batch stands (see [`RxeHost::cq_cursor`] for where it lives). Byte offsets from
/// the ring's first slot, both at most the ring's length in bytes.
#[repr(C)]
#[derive(Debug, Default)]
pub struct PollCursor {
    /// The slot after the CQE the batch exposes: the one `ibv_next_poll` exposes next, and where `ibv_end_poll`
    /// hands the ring back up to. May equal the ring's length (the next CQE is then slot 0).
    pub(crate) next: u32,
    /// 0 outside a batch. Inside one (never 0 there): slots from `next` up to this offset are known to be
    /// published (the kernel's producer index as last read, or the ring's end when that index has wrapped), so
    /// `ibv_next_poll` exposes the one at `next` without looking at anything else while `next < limit`.
    pub(crate) limit: u32,
}

/// Provider state of an SRQ (rdma-core's `struct rxe_srq` without the `verbs_srq`).
#[derive(Debug)]
pub struct RxeSrq {
    pub(crate) rq: SpinLock<Rq>,
    /// The SRQ number the kernel returned (`rxe_create_srq_resp.srq_num`).
    pub srq_num: u32,
}

/// Provider state of an AH (rdma-core's `struct rxe_ah` without the `ibv_ah`).
#[derive(Clone, Copy)]
pub struct RxeAh {
    /// The kernel's AH index (`rxe_create_ah_resp.ah_num`, non-zero on every kernel since 5.10); UD send WQEs
    /// carry it.
    pub ah_num: u32,
    /// The address vector, copied into UD send WQEs only when `ah_num` is 0 (kernels before 5.10). The object
    /// layer fills it only for such kernels (rdma-core's `rxe_create_av`); otherwise zeroed.
    pub av: rxe_av,
}

impl std::fmt::Debug for RxeAh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RxeAh").field("ah_num", &self.ah_num).finish_non_exhaustive()
    }
}

impl RxeAh {
    /// An AH known to the kernel by `ah_num` (no address vector needed).
    pub fn new(ah_num: u32) -> RxeAh {
        RxeAh { ah_num, av: <rxe_av as abi::FromBytes>::zeroed() }
    }
}

/// The QP capabilities the data path enforces, as the kernel returned them in `ibv_qp_cap` at create time.
#[derive(Clone, Copy, Debug, Default)]
pub struct QpCaps {
    pub max_send_sge: u32,
    pub max_inline_data: u32,
    pub max_recv_sge: u32,
}

fn send_slot_room(q: &RxeQueue) -> usize {
    q.elem_size().saturating_sub(SEND_WQE_DATA_OFFSET)
}

fn recv_slot_room(q: &RxeQueue) -> usize {
    q.elem_size().saturating_sub(RECV_WQE_DATA_OFFSET)
}

impl RxeQp {
    /// State for a QP whose rings are `sq` and (unless it uses an SRQ) `rq`; `qp_type` is the numeric
    /// `ibv_qp_type`. Limits are clamped to what the slots can hold, so no WQE can spill into its neighbour
    /// whatever the caller passed.
    ///
    /// Errors: `EINVAL` when a slot is smaller than the fixed WQE header.
    pub fn new(sq: RxeQueue, rq: Option<RxeQueue>, caps: QpCaps, qp_type: u32) -> Result<RxeQp> {
        if sq.elem_size() < size_of::<rxe_send_wqe>() {
            return Err(Errno::EINVAL);
        }
        let room = send_slot_room(&sq);
        let max_sge = caps.max_send_sge.min((room / size_of::<ibv_sge>()) as u32);
        let max_inline = caps.max_inline_data.min(room as u32);
        let start = sq.producer_side().index();
        let rq = match rq {
            None => Rq { queue: None, max_sge: 0 },
            Some(q) => Rq::new(q, caps.max_recv_sge)?,
        };
        Ok(RxeQp {
            sq: SpinLock::with_extra(
                Sq { queue: sq, max_sge, max_inline, ssn: 0, last: 0, cur_index: start, err: 0 },
                AtomicU32::new(0),
            ),
            rq: SpinLock::with_extra(rq, QpType::from_raw(qp_type)),
        })
    }

    /// The QP's type as a number (`ibv_qp_type`; 0 for a type rxe does not create).
    #[inline(always)]
    pub fn qp_type(&self) -> u32 {
        self.rq.extra as u32
    }
}

impl Rq {
    fn new(q: RxeQueue, max_sge: u32) -> Result<Rq> {
        if q.elem_size() < size_of::<rxe_recv_wqe>() {
            return Err(Errno::EINVAL);
        }
        let max_sge = max_sge.min((recv_slot_room(&q) / size_of::<ibv_sge>()) as u32);
        Ok(Rq { queue: Some(q), max_sge })
    }
}

impl RxeSrq {
    /// State for an SRQ over `queue`, with `max_sge` from its attributes and the kernel's `srq_num`.
    pub fn new(queue: RxeQueue, max_sge: u32, srq_num: u32) -> Result<RxeSrq> {
        Ok(RxeSrq { rq: SpinLock::new(Rq::new(queue, max_sge)?), srq_num })
    }

    /// Resize support (`ibv_modify_srq` with `IBV_SRQ_MAX_WR`): runs `remap` under the SRQ lock, so no post
    /// sees a half-replaced ring. `remap` issues the kernel command and maps the new ring; on its failure after
    /// the old ring is gone it returns `(Err, None)`, and the SRQ is left without a ring (posts fail `EINVAL`),
    /// as rdma-core's is.
    pub fn with_queue_locked<R>(&self, remap: impl FnOnce(&mut Option<RxeQueue>) -> R) -> R {
        let mut rq = self.rq.lock();
        remap(&mut rq.queue)
    }
}

impl RxeCq {
    /// State for a CQ over `queue` (whose slots must hold an `ib_uverbs_wc`).
    pub fn new(queue: RxeQueue) -> Result<RxeCq> {
        if queue.elem_size() < size_of::<abi::ib_uverbs_wc>() {
            return Err(Errno::EINVAL);
        }
        if !queue.ring_bytes_fit() {
            return Err(Errno::EINVAL);
        }
        let elem_size = queue.elem_size() as u32;
        Ok(RxeCq { inner: SpinLock::new(CqState { queue: Some(queue), elem_size }) })
    }

    /// The ring's slot size in bytes, fixed for the CQ's life.
    pub fn elem_size(&self) -> u32 {
        self.inner.lock().elem_size
    }

    /// Resize support (`ibv_resize_cq`): runs `remap` under the CQ lock (rdma-core's `rxe_resize_cq`). A new
    /// ring must hold `ib_uverbs_wc` slots of the size the old one had (the kernel never changes it: the size of
    /// its `struct rxe_cqe`; `ibv_next_poll` was chosen for it, [`set_cq_ex_ops`]); otherwise it is dropped and
    /// the CQ left without a ring. See [`RxeSrq::with_queue_locked`] for the failure convention.
    pub fn with_queue_locked<R>(&self, remap: impl FnOnce(&mut Option<RxeQueue>) -> R) -> R {
        let mut st = self.inner.lock();
        let r = remap(&mut st.queue);
        if let Some(q) = &st.queue {
            if q.elem_size() != st.elem_size as usize || !q.ring_bytes_fit() {
                st.queue = None;
            }
        }
        r
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Building the state from the kernel's answers (the control path's rxe-specific part)
// ---------------------------------------------------------------------------------------------------------------

/// QP state from `rxe_create_qp_resp` (rdma-core's `map_queue_pair`): maps the SQ at `sq_mi` and, unless the QP
/// receives through an SRQ, the RQ at `rq_mi`. `caps` are the capabilities the kernel returned. Dropping the
/// state unmaps both.
pub fn qp_from_resp(
    fd: BorrowedFd<'_>,
    resp: &abi::rxe_create_qp_resp,
    caps: QpCaps,
    has_srq: bool,
    qp_type: u32,
) -> Result<RxeQp> {
    let rq = if has_srq { None } else { Some(RxeQueue::map(fd, &resp.rq_mi, size_of::<rxe_recv_wqe>())?) };
    let sq = RxeQueue::map(fd, &resp.sq_mi, size_of::<rxe_send_wqe>())?;
    RxeQp::new(sq, rq, caps, qp_type)
}

/// CQ state from `rxe_create_cq_resp` (rdma-core's `rxe_create_cq`): maps the ring, whose slots must hold an
/// `ib_uverbs_wc` (else `EINVAL`).
pub fn cq_from_resp(fd: BorrowedFd<'_>, resp: &abi::rxe_create_cq_resp) -> Result<RxeCq> {
    RxeCq::new(RxeQueue::map(fd, &resp.mi, size_of::<abi::ib_uverbs_wc>())?)
}

/// SRQ state from `rxe_create_srq_resp` and the SRQ's `max_sge` (rdma-core's `rxe_create_srq`).
pub fn srq_from_resp(fd: BorrowedFd<'_>, resp: &abi::rxe_create_srq_resp, max_sge: u32) -> Result<RxeSrq> {
    RxeSrq::new(RxeQueue::map(fd, &resp.mi, size_of::<rxe_recv_wqe>())?, max_sge, resp.srq_num)
}

/// AH state from `rxe_create_ah_resp`. `ah_num` is non-zero on every kernel since 5.10; on older ones the caller
/// must fill [`RxeAh::av`] (rdma-core's `rxe_create_av`: GIDs as socket addresses, the resolved dmac).
pub fn ah_from_resp(resp: &abi::rxe_create_ah_resp) -> RxeAh {
    RxeAh::new(resp.ah_num)
}

impl RxeCq {
    /// `ibv_resize_cq` (rdma-core's `rxe_resize_cq`): with the CQ lock held, runs `cmd` (the RESIZE_CQ command,
    /// returning `rxe_resize_cq_resp.mi`), then replaces the ring by the one at that `mminfo`. The lock keeps
    /// pollers out while the kernel copies the CQEs into the new ring. If `cmd` fails nothing changes; if the new
    /// mapping fails the CQ is left without a ring (polls fail `EINVAL`), as rdma-core's is.
    pub fn resize(&self, fd: BorrowedFd<'_>, cmd: impl FnOnce() -> Result<abi::mminfo>) -> Result<()> {
        self.with_queue_locked(|q| {
            let mi = cmd()?;
            *q = None; // unmap the old ring first, as rdma-core does
            *q = Some(RxeQueue::map(fd, &mi, size_of::<abi::ib_uverbs_wc>())?);
            Ok(())
        })
    }
}

impl RxeSrq {
    /// `ibv_modify_srq` with `IBV_SRQ_MAX_WR` (rdma-core's `rxe_modify_srq`): with the SRQ lock held, runs `cmd`
    /// (the MODIFY_SRQ command with `rxe_modify_srq_cmd.mmap_info_addr` pointing at an `mminfo` the kernel fills,
    /// returning it), then replaces the ring. Failure conventions as [`RxeCq::resize`].
    pub fn resize(&self, fd: BorrowedFd<'_>, cmd: impl FnOnce() -> Result<abi::mminfo>) -> Result<()> {
        self.with_queue_locked(|q| {
            let mi = cmd()?;
            *q = None;
            *q = Some(RxeQueue::map(fd, &mi, size_of::<rxe_recv_wqe>())?);
            Ok(())
        })
    }
}

/// `wc_flags` rxe's extended CQ can report (rdma-core's `RXE_SUP_WC_EX_FLAGS`): no timestamps, no CVLAN, no
/// flow tag, no tag matching.
pub const RXE_SUP_WC_EX_FLAGS: u64 = IBV_WC_EX_WITH_BYTE_LEN
    | IBV_WC_EX_WITH_IMM
    | IBV_WC_EX_WITH_QP_NUM
    | IBV_WC_EX_WITH_SRC_QP
    | IBV_WC_EX_WITH_SLID
    | IBV_WC_EX_WITH_SL
    | IBV_WC_EX_WITH_DLID_PATH_BITS;

/// `ibv_create_cq_ex` admission check: `EOPNOTSUPP` for any `wc_flags` outside [`RXE_SUP_WC_EX_FLAGS`] (e.g.
/// `IBV_WC_EX_WITH_COMPLETION_TIMESTAMP`), as rdma-core's rxe answers.
pub fn check_cq_wc_flags(wc_flags: u64) -> Result<()> {
    if wc_flags & !RXE_SUP_WC_EX_FLAGS != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    Ok(())
}

/// `create_flags` rxe accepts (none).
pub const RXE_QP_CREATE_FLAGS_SUP: u32 = 0;
/// `ibv_qp_init_attr_ex.comp_mask` bits rxe accepts.
pub const RXE_QP_COMP_MASK_SUP: u32 =
    IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
/// `send_ops_flags` an RC QP accepts.
pub const RXE_SUP_RC_QP_SEND_OPS_FLAGS: u64 = IBV_QP_EX_WITH_RDMA_WRITE
    | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM
    | IBV_QP_EX_WITH_SEND
    | IBV_QP_EX_WITH_SEND_WITH_IMM
    | IBV_QP_EX_WITH_RDMA_READ
    | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP
    | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD
    | IBV_QP_EX_WITH_LOCAL_INV
    | IBV_QP_EX_WITH_BIND_MW
    | IBV_QP_EX_WITH_SEND_WITH_INV
    | IBV_QP_EX_WITH_FLUSH
    | IBV_QP_EX_WITH_ATOMIC_WRITE;
/// `send_ops_flags` a UC QP accepts.
pub const RXE_SUP_UC_QP_SEND_OPS_FLAGS: u64 = IBV_QP_EX_WITH_RDMA_WRITE
    | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM
    | IBV_QP_EX_WITH_SEND
    | IBV_QP_EX_WITH_SEND_WITH_IMM
    | IBV_QP_EX_WITH_BIND_MW
    | IBV_QP_EX_WITH_SEND_WITH_INV;
/// `send_ops_flags` a UD QP accepts.
pub const RXE_SUP_UD_QP_SEND_OPS_FLAGS: u64 = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;

/// `ibv_create_qp_ex` admission check (rdma-core's `check_qp_init_attr`): `EOPNOTSUPP` for an unknown
/// `comp_mask` bit, any `create_flags`, or `send_ops_flags` the QP type cannot do (XRC, raw packet and driver
/// QPs cannot use the `ibv_qp_ex` API at all on rxe).
pub fn check_qp_init_attr(comp_mask: u32, create_flags: u32, qp_type: u32, send_ops_flags: u64) -> Result<()> {
    if comp_mask & !RXE_QP_COMP_MASK_SUP != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    if comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS != 0 && create_flags & !RXE_QP_CREATE_FLAGS_SUP != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    if comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS != 0 {
        let sup = match qp_type {
            t if t == IBV_QPT_RC => RXE_SUP_RC_QP_SEND_OPS_FLAGS,
            t if t == IBV_QPT_UC => RXE_SUP_UC_QP_SEND_OPS_FLAGS,
            t if t == IBV_QPT_UD => RXE_SUP_UD_QP_SEND_OPS_FLAGS,
            _ => return Err(Errno::EOPNOTSUPP),
        };
        if send_ops_flags & !sup != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
    }
    Ok(())
}

/// The `ibv_context.ops` data-path entries of rxe, monomorphised for the object layer `H`.
pub fn data_path_ops<H: RxeHost>() -> super::DataPathOps {
    super::DataPathOps {
        bind_mw: post::bind_mw::<H>,
        post_send: post::post_send::<H>,
        post_recv: post::post_recv::<H>,
        post_srq_recv: post::post_srq_recv::<H>,
        poll_cq: poll::poll_cq::<H>,
        req_notify_cq: poll::req_notify_cq::<H>,
    }
}

/// Fills the `ibv_qp_ex` builder pointers for a QP created with `IBV_QP_INIT_ATTR_SEND_OPS_FLAGS`
/// (rdma-core's `set_qp_send_ops`): one builder per requested operation, all setters, and
/// `wr_start`/`wr_complete`/`wr_abort`. `wr_send_tso` and `wr_set_xrc_srqn` stay NULL: rxe has neither TSO nor
/// XRC. Call after [`check_qp_init_attr`] accepted `flags`.
pub fn set_qp_send_ops<H: RxeHost>(qpx: &mut ibv_qp_ex, flags: u64) {
    use wr::*;
    if flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP != 0 {
        qpx.wr_atomic_cmp_swp = Some(wr_atomic_cmp_swp::<H>);
    }
    if flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD != 0 {
        qpx.wr_atomic_fetch_add = Some(wr_atomic_fetch_add::<H>);
    }
    if flags & IBV_QP_EX_WITH_BIND_MW != 0 {
        qpx.wr_bind_mw = Some(wr_bind_mw::<H>);
    }
    if flags & IBV_QP_EX_WITH_LOCAL_INV != 0 {
        qpx.wr_local_inv = Some(wr_local_inv::<H>);
    }
    if flags & IBV_QP_EX_WITH_ATOMIC_WRITE != 0 {
        qpx.wr_atomic_write = Some(wr_atomic_write::<H>);
    }
    if flags & IBV_QP_EX_WITH_RDMA_READ != 0 {
        qpx.wr_rdma_read = Some(wr_rdma_read::<H>);
    }
    if flags & IBV_QP_EX_WITH_RDMA_WRITE != 0 {
        qpx.wr_rdma_write = Some(wr_rdma_write::<H>);
    }
    if flags & IBV_QP_EX_WITH_FLUSH != 0 {
        qpx.wr_flush = Some(wr_flush::<H>);
    }
    if flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM != 0 {
        qpx.wr_rdma_write_imm = Some(wr_rdma_write_imm::<H>);
    }
    if flags & IBV_QP_EX_WITH_SEND != 0 {
        qpx.wr_send = Some(wr_send::<H>);
    }
    if flags & IBV_QP_EX_WITH_SEND_WITH_IMM != 0 {
        qpx.wr_send_imm = Some(wr_send_imm::<H>);
    }
    if flags & IBV_QP_EX_WITH_SEND_WITH_INV != 0 {
        qpx.wr_send_inv = Some(wr_send_inv::<H>);
    }
    qpx.wr_set_ud_addr = Some(wr_set_ud_addr::<H>);
    qpx.wr_set_inline_data = Some(wr_set_inline_data::<H>);
    qpx.wr_set_inline_data_list = Some(wr_set_inline_data_list::<H>);
    qpx.wr_set_sge = Some(wr_set_sge::<H>);
    qpx.wr_set_sge_list = Some(wr_set_sge_list::<H>);
    // With the re-entry check of [`batch`] in front of wr's.
    qpx.wr_start = Some(batch::wr_start::<H>);
    qpx.wr_complete = Some(batch::wr_complete::<H>);
    qpx.wr_abort = Some(batch::wr_abort::<H>);
}

/// Fills the `ibv_cq_ex` polling pointers (rdma-core's `rxe_create_cq_ex`): `start_poll`, `next_poll`,
/// `end_poll`, `read_opcode`, `read_vendor_err`, `read_wc_flags` always, and one `read_*` per requested
/// `wc_flags` bit. The others stay NULL, as in rdma-core. Call after [`check_cq_wc_flags`] accepted `wc_flags`.
///
/// `elem_size` is the CQ ring's slot size ([`RxeCq::elem_size`]), fixed for the CQ's life: `next_poll` is the
/// one made for it when it is one the kernel uses (128 bytes for `struct rxe_cqe` on every kernel so far; 64 and
/// 256 too), so that its step is a constant.
pub fn set_cq_ex_ops<H: RxeHost>(cqx: &mut ibv_cq_ex, wc_flags: u64, elem_size: u32) {
    use poll::*;
    cqx.start_poll = Some(cq_start_poll::<H>);
    cqx.next_poll = Some(match elem_size {
        64 => cq_next_poll::<H, 64>,
        128 => cq_next_poll::<H, 128>,
        256 => cq_next_poll::<H, 256>,
        _ => cq_next_poll::<H, 0>,
    });
    cqx.end_poll = Some(cq_end_poll::<H>);
    cqx.read_opcode = Some(cq_read_opcode::<H>);
    cqx.read_vendor_err = Some(cq_read_vendor_err::<H>);
    cqx.read_wc_flags = Some(cq_read_wc_flags::<H>);
    if wc_flags & IBV_WC_EX_WITH_BYTE_LEN != 0 {
        cqx.read_byte_len = Some(cq_read_byte_len::<H>);
    }
    if wc_flags & IBV_WC_EX_WITH_IMM != 0 {
        cqx.read_imm_data = Some(cq_read_imm_data::<H>);
    }
    if wc_flags & IBV_WC_EX_WITH_QP_NUM != 0 {
        cqx.read_qp_num = Some(cq_read_qp_num::<H>);
    }
    if wc_flags & IBV_WC_EX_WITH_SRC_QP != 0 {
        cqx.read_src_qp = Some(cq_read_src_qp::<H>);
    }
    if wc_flags & IBV_WC_EX_WITH_SLID != 0 {
        cqx.read_slid = Some(cq_read_slid::<H>);
    }
    if wc_flags & IBV_WC_EX_WITH_SL != 0 {
        cqx.read_sl = Some(cq_read_sl::<H>);
    }
    if wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS != 0 {
        cqx.read_dlid_path_bits = Some(cq_read_dlid_path_bits::<H>);
    }
}

#[cfg(test)]
mod poll_tests;
#[cfg(test)]
pub(crate) mod testing;
