//! A fake object layer for unit tests: objects laid out as the proposal in docs/providers.md (public C struct
//! first, rxe state after it), rings on the heap, and a doorbell that answers like the kernel's `rxe_post_send`
//! (`EINVAL` unless the QP is in RTS) and counts.
#![allow(unsafe_code, dead_code)]

use super::abi::{ib_uverbs_wc, rxe_recv_wqe, rxe_send_wqe};
use super::queue::testing::{queue, Kernel};
use super::queue::RxeQueue;
use super::*;
use rdma_common::abi::enums::*;
use std::mem::MaybeUninit;
use std::ptr::addr_of_mut;
use std::sync::atomic::{AtomicU32, Ordering};

#[repr(C)]
pub struct TestQp {
    pub qp_ex: ibv_qp_ex,
    pub rxe: RxeQp,
    pub wr_room: u32,
    pub doorbells: AtomicU32,
}

#[repr(C)]
pub struct TestCq {
    pub cq_ex: ibv_cq_ex,
    pub rxe: RxeCq,
    pub cursor: PollCursor,
    pub notifies: AtomicU32,
    pub last_solicited: AtomicU32,
}

#[repr(C)]
pub struct TestSrq {
    pub srq: ibv_srq,
    pub rxe: RxeSrq,
}

#[repr(C)]
pub struct TestAh {
    pub ah: ibv_ah,
    pub rxe: RxeAh,
}

pub struct Host;

unsafe impl RxeHost for Host {
    unsafe fn qp<'a>(qp: *mut ibv_qp) -> Option<&'a RxeQp> {
        Some(unsafe { &(*qp.cast::<TestQp>()).rxe })
    }
    unsafe fn cq<'a>(cq: *mut ibv_cq) -> Option<&'a RxeCq> {
        Some(unsafe { &(*cq.cast::<TestCq>()).rxe })
    }
    unsafe fn qp_wr_room(qp: *mut ibv_qp) -> *mut u32 {
        unsafe { addr_of_mut!((*qp.cast::<TestQp>()).wr_room) }
    }
    unsafe fn cq_cursor(cq: *mut ibv_cq) -> *mut PollCursor {
        unsafe { addr_of_mut!((*cq.cast::<TestCq>()).cursor) }
    }
    unsafe fn srq<'a>(srq: *mut ibv_srq) -> Option<&'a RxeSrq> {
        Some(unsafe { &(*srq.cast::<TestSrq>()).rxe })
    }
    unsafe fn ah<'a>(ah: *mut ibv_ah) -> Option<&'a RxeAh> {
        Some(unsafe { &(*ah.cast::<TestAh>()).rxe })
    }
    unsafe fn post_send_doorbell(qp: *mut ibv_qp) -> Result<()> {
        let t = unsafe { &*qp.cast::<TestQp>() };
        t.doorbells.fetch_add(1, Ordering::SeqCst);
        let state = unsafe { rdma_common::ffi::enum_raw(std::ptr::addr_of!((*qp).state)) };
        if state == IBV_QPS_RTS || state == IBV_QPS_SQD {
            Ok(())
        } else {
            Err(Errno::EINVAL)
        }
    }
    unsafe fn req_notify_cq(cq: *mut ibv_cq, solicited_only: bool) -> Result<()> {
        let t = unsafe { &*cq.cast::<TestCq>() };
        t.notifies.fetch_add(1, Ordering::SeqCst);
        t.last_solicited.store(solicited_only as u32, Ordering::SeqCst);
        Ok(())
    }
}

impl super::super::ProviderHost for Host {}

/// Slot size the kernel would choose for a send queue with these caps: header + max(SGEs, inline), rounded
/// up to a power of two (`rxe_qp.c`: `wqe_size = max(sge * sizeof(sge), inline) + sizeof(rxe_send_wqe)`).
pub fn sq_log2_elem(caps: QpCaps) -> u32 {
    let data = (caps.max_send_sge as usize * 16).max(caps.max_inline_data as usize);
    (size_of::<rxe_send_wqe>() + data).next_power_of_two().trailing_zeros()
}

pub fn rq_log2_elem(max_sge: u32) -> u32 {
    (size_of::<rxe_recv_wqe>() + max_sge as usize * 16).next_power_of_two().trailing_zeros()
}

pub const CAPS: QpCaps = QpCaps { max_send_sge: 4, max_inline_data: 64, max_recv_sge: 3 };

impl TestQp {
    /// A QP of `qp_type` in RTS with an SQ of `2^log2_slots` slots and, unless `srq`, an RQ of the same count.
    pub fn new(qp_type: ibv_qp_type, caps: QpCaps, log2_slots: u32, srq: bool) -> Box<TestQp> {
        let sq = queue(log2_slots, sq_log2_elem(caps));
        let rq = (!srq).then(|| queue(log2_slots, rq_log2_elem(caps.max_recv_sge)));
        let rxe = RxeQp::new(sq, rq, caps, qp_type as u32).unwrap();
        let mut b = Box::<TestQp>::new_uninit();
        let p = b.as_mut_ptr();
        unsafe {
            // Zero the public struct (NULL pointers, no ops), then give the enums valid values.
            std::ptr::write_bytes(addr_of_mut!((*p).qp_ex), 0, 1);
            addr_of_mut!((*p).qp_ex.qp_base.qp_type).write(qp_type);
            addr_of_mut!((*p).qp_ex.qp_base.state).write(ibv_qp_state::IBV_QPS_RTS);
            addr_of_mut!((*p).rxe).write(rxe);
            addr_of_mut!((*p).wr_room).write(0);
            addr_of_mut!((*p).doorbells).write(AtomicU32::new(0));
            b.assume_init()
        }
    }
    pub fn ibqp(&mut self) -> *mut ibv_qp {
        std::ptr::addr_of_mut!(self.qp_ex.qp_base)
    }
    pub fn qpx(&mut self) -> *mut ibv_qp_ex {
        std::ptr::addr_of_mut!(self.qp_ex)
    }
    pub fn set_state(&mut self, s: ibv_qp_state) {
        self.qp_ex.qp_base.state = s;
    }
    pub fn sq_queue(&self) -> &RxeQueue {
        unsafe { &(*self.rxe.sq.data_ptr()).queue }
    }
    pub fn sq_kernel(&self) -> Kernel<'_> {
        Kernel { q: self.sq_queue() }
    }
    pub fn rq_queue(&self) -> &RxeQueue {
        unsafe { (*self.rxe.rq.data_ptr()).queue.as_ref().unwrap() }
    }
    pub fn rq_kernel(&self) -> Kernel<'_> {
        Kernel { q: self.rq_queue() }
    }
    pub fn doorbells(&self) -> u32 {
        self.doorbells.load(Ordering::SeqCst)
    }
}

impl TestCq {
    /// A CQ of `2^log2_slots` slots of 64 bytes (rxe's `rxe_cqe` is larger than `ib_uverbs_wc`).
    pub fn new(log2_slots: u32) -> Box<TestCq> {
        let rxe = RxeCq::new(queue(log2_slots, 6)).unwrap();
        let mut b = Box::<TestCq>::new_uninit();
        let p = b.as_mut_ptr();
        unsafe {
            std::ptr::write_bytes(addr_of_mut!((*p).cq_ex), 0, 1);
            addr_of_mut!((*p).rxe).write(rxe);
            addr_of_mut!((*p).cursor).write(PollCursor::default());
            addr_of_mut!((*p).notifies).write(AtomicU32::new(0));
            addr_of_mut!((*p).last_solicited).write(AtomicU32::new(0));
            b.assume_init()
        }
    }
    pub fn ibcq(&mut self) -> *mut ibv_cq {
        std::ptr::addr_of_mut!(self.cq_ex).cast()
    }
    pub fn cqx(&mut self) -> *mut ibv_cq_ex {
        std::ptr::addr_of_mut!(self.cq_ex)
    }
    pub fn kernel(&self) -> Kernel<'_> {
        Kernel { q: unsafe { (*self.rxe.inner.data_ptr()).queue.as_ref().unwrap() } }
    }
    /// The kernel completes `wc` (false when the CQ is full).
    pub fn complete(&self, wc: &ib_uverbs_wc) -> bool {
        let bytes =
            unsafe { std::slice::from_raw_parts((wc as *const ib_uverbs_wc).cast::<u8>(), size_of::<ib_uverbs_wc>()) };
        self.kernel().produce(bytes)
    }
}

impl TestSrq {
    pub fn new(max_sge: u32, log2_slots: u32) -> Box<TestSrq> {
        let rxe = RxeSrq::new(queue(log2_slots, rq_log2_elem(max_sge)), max_sge, 77).unwrap();
        let mut b = Box::<TestSrq>::new_uninit();
        let p = b.as_mut_ptr();
        unsafe {
            std::ptr::write_bytes(addr_of_mut!((*p).srq), 0, 1);
            addr_of_mut!((*p).rxe).write(rxe);
            b.assume_init()
        }
    }
    pub fn ibsrq(&mut self) -> *mut ibv_srq {
        std::ptr::addr_of_mut!(self.srq)
    }
    pub fn kernel(&self) -> Kernel<'_> {
        Kernel { q: unsafe { (*self.rxe.rq.data_ptr()).queue.as_ref().unwrap() } }
    }
}

impl TestAh {
    pub fn new(ah_num: u32) -> Box<TestAh> {
        let mut b = Box::<TestAh>::new_uninit();
        let p = b.as_mut_ptr();
        unsafe {
            std::ptr::write_bytes(addr_of_mut!((*p).ah), 0, 1);
            addr_of_mut!((*p).rxe).write(RxeAh::new(ah_num));
            b.assume_init()
        }
    }
    pub fn ibah(&mut self) -> *mut ibv_ah {
        std::ptr::addr_of_mut!(self.ah)
    }
}

/// A zeroed `ibv_send_wr` with `opcode`.
pub fn send_wr(opcode: ibv_wr_opcode) -> ibv_send_wr {
    let mut wr = MaybeUninit::<ibv_send_wr>::zeroed();
    unsafe {
        addr_of_mut!((*wr.as_mut_ptr()).opcode).write(opcode);
        wr.assume_init()
    }
}

pub fn recv_wr(wr_id: u64, sges: &mut [ibv_sge]) -> ibv_recv_wr {
    ibv_recv_wr { wr_id, next: std::ptr::null_mut(), sg_list: sges.as_mut_ptr(), num_sge: sges.len() as c_int }
}

/// Little-endian field readers over raw WQE bytes (x86-64/aarch64 are little-endian).
pub fn u32_at(p: *const u8, off: usize) -> u32 {
    unsafe { p.add(off).cast::<u32>().read_unaligned() }
}
pub fn u64_at(p: *const u8, off: usize) -> u64 {
    unsafe { p.add(off).cast::<u64>().read_unaligned() }
}

/// A type-1 MW with `rkey` (built field by field: its `type` enum has no zero value).
pub fn mw(rkey: u32) -> ibv_mw {
    ibv_mw {
        context: std::ptr::null_mut(),
        pd: std::ptr::null_mut(),
        rkey,
        handle: 0,
        r#type: ibv_mw_type::IBV_MW_TYPE_1,
    }
}
