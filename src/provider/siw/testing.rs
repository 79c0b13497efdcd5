//! A fake object layer for unit tests: objects laid out as the object layer lays them out (public C struct first,
//! siw state after it), queues on the heap ([`super::queue::testing`]), and a doorbell that answers like the
//! kernel's `siw_post_send` (`ENOTCONN` unless the QP is in RTS) and counts.
#![allow(unsafe_code, dead_code)]

use super::queue::testing::{cq, rq, sq, KernelCq, KernelWq};
use super::queue::{CqQueue, WqeQueue};
use super::*;
use crate::provider::rxe::{RxeAh, RxeCq, RxeHost, RxeQp, RxeSrq};
use rdma_common::abi::enums::*;
use std::ffi::c_int;
use std::mem::MaybeUninit;
use std::ptr::addr_of_mut;
use std::sync::atomic::{AtomicU32, Ordering};

#[repr(C)]
pub struct TestQp {
    pub qp: ibv_qp,
    pub siw: SiwQp,
    pub doorbells: AtomicU32,
}

#[repr(C)]
pub struct TestCq {
    pub cq: ibv_cq,
    pub siw: SiwCq,
}

#[repr(C)]
pub struct TestSrq {
    pub srq: ibv_srq,
    pub siw: SiwSrq,
}

/// The siw unit tests' object layer.
pub struct Host;

unsafe impl SiwHost for Host {
    unsafe fn siw_qp<'a>(qp: *mut ibv_qp) -> Option<&'a SiwQp> {
        Some(unsafe { &(*qp.cast::<TestQp>()).siw })
    }
    unsafe fn siw_cq<'a>(cq: *mut ibv_cq) -> Option<&'a SiwCq> {
        Some(unsafe { &(*cq.cast::<TestCq>()).siw })
    }
    unsafe fn siw_srq<'a>(srq: *mut ibv_srq) -> Option<&'a SiwSrq> {
        Some(unsafe { &(*srq.cast::<TestSrq>()).siw })
    }
    unsafe fn siw_post_send_doorbell(qp: *mut ibv_qp) -> Result<()> {
        let t = unsafe { &*qp.cast::<TestQp>() };
        t.doorbells.fetch_add(1, Ordering::SeqCst);
        let state = unsafe { rdma_common::ffi::enum_raw(std::ptr::addr_of!((*qp).state)) };
        if state == IBV_QPS_RTS {
            Ok(())
        } else {
            Err(Errno(libc::ENOTCONN))
        }
    }
}

// Provider selection is generic over a `ProviderHost`, which is both hosts; each test host has only its own
// provider's objects, so the other provider's accessors are never reached.
unsafe impl RxeHost for Host {
    unsafe fn qp<'a>(_: *mut ibv_qp) -> Option<&'a RxeQp> {
        unreachable!("no rxe objects in the siw tests")
    }
    unsafe fn cq<'a>(_: *mut ibv_cq) -> Option<&'a RxeCq> {
        unreachable!("no rxe objects in the siw tests")
    }
    unsafe fn qp_wr_room(_: *mut ibv_qp) -> *mut u32 {
        unreachable!("no rxe objects in the siw tests")
    }
    unsafe fn cq_cursor(_: *mut ibv_cq) -> *mut super::super::rxe::PollCursor {
        unreachable!("no rxe objects in the siw tests")
    }
    unsafe fn srq<'a>(_: *mut ibv_srq) -> Option<&'a RxeSrq> {
        unreachable!("no rxe objects in the siw tests")
    }
    unsafe fn ah<'a>(_: *mut ibv_ah) -> Option<&'a RxeAh> {
        unreachable!("no rxe objects in the siw tests")
    }
    unsafe fn post_send_doorbell(_: *mut ibv_qp) -> Result<()> {
        unreachable!("no rxe objects in the siw tests")
    }
    unsafe fn req_notify_cq(_: *mut ibv_cq, _: bool) -> Result<()> {
        unreachable!("no rxe objects in the siw tests")
    }
}

impl crate::provider::ProviderHost for Host {}

unsafe impl SiwHost for crate::provider::rxe::testing::Host {
    unsafe fn siw_qp<'a>(_: *mut ibv_qp) -> Option<&'a SiwQp> {
        unreachable!("no siw objects in the rxe tests")
    }
    unsafe fn siw_cq<'a>(_: *mut ibv_cq) -> Option<&'a SiwCq> {
        unreachable!("no siw objects in the rxe tests")
    }
    unsafe fn siw_srq<'a>(_: *mut ibv_srq) -> Option<&'a SiwSrq> {
        unreachable!("no siw objects in the rxe tests")
    }
    unsafe fn siw_post_send_doorbell(_: *mut ibv_qp) -> Result<()> {
        unreachable!("no siw objects in the rxe tests")
    }
}

/// Zeroed memory for a `T` whose C enum fields are then written by `init` (a zero is not a valid value of every C
/// enum, e.g. `ibv_qp_type`).
fn boxed<T>(init: impl FnOnce(*mut T)) -> Box<T> {
    let mut b = Box::<T>::new_uninit();
    unsafe {
        std::ptr::write_bytes(b.as_mut_ptr(), 0, 1);
        init(b.as_mut_ptr());
        b.assume_init()
    }
}

impl TestQp {
    /// An RC QP in RTS with an SQ of `sq_slots` and (unless `None`) an RQ of `rq_slots`.
    pub fn new(sq_slots: u32, rq_slots: Option<u32>, sig_all: bool) -> Box<TestQp> {
        let st = SiwQp::new(sq(sq_slots), rq_slots.map(rq), sig_all, 7).unwrap();
        boxed(|p: *mut TestQp| unsafe {
            addr_of_mut!((*p).qp.qp_type).write(ibv_qp_type::IBV_QPT_RC);
            addr_of_mut!((*p).qp.state).write(ibv_qp_state::IBV_QPS_RTS);
            addr_of_mut!((*p).siw).write(st);
        })
    }
    pub fn ibqp(&mut self) -> *mut ibv_qp {
        addr_of_mut!(self.qp)
    }
    pub fn set_state(&mut self, s: ibv_qp_state) {
        self.qp.state = s;
    }
    pub fn sq_queue(&self) -> &WqeQueue {
        unsafe { &(*self.siw.sq.data_ptr()).queue }
    }
    pub fn rq_queue(&self) -> &WqeQueue {
        unsafe { &(*self.siw.rq.data_ptr()).as_ref().unwrap().queue }
    }
    /// The kernel's side of the SQ (its index starts at 0).
    pub fn sq_kernel(&self) -> KernelWq {
        KernelWq::new(self.sq_queue())
    }
    pub fn rq_kernel(&self) -> KernelWq {
        KernelWq::new(self.rq_queue())
    }
    pub fn doorbells(&self) -> u32 {
        self.doorbells.load(Ordering::SeqCst)
    }
    /// Moves our private SQ counter (to test wrap-around).
    pub fn set_sq_put(&self, put: u32) {
        unsafe { (*self.siw.sq.data_ptr()).put = put };
    }
}

impl TestCq {
    pub fn new(slots: u32) -> Box<TestCq> {
        let st = SiwCq::new(cq(slots), 99);
        boxed(|p: *mut TestCq| unsafe { addr_of_mut!((*p).siw).write(st) })
    }
    pub fn ibcq(&mut self) -> *mut ibv_cq {
        addr_of_mut!(self.cq)
    }
    pub fn queue(&self) -> &CqQueue {
        &self.siw.queue
    }
    pub fn kernel(&self) -> KernelCq {
        KernelCq::new(&self.siw.queue)
    }
}

impl TestSrq {
    pub fn new(slots: u32) -> Box<TestSrq> {
        let st = SiwSrq::new(rq(slots)).unwrap();
        boxed(|p: *mut TestSrq| unsafe { addr_of_mut!((*p).siw).write(st) })
    }
    pub fn ibsrq(&mut self) -> *mut ibv_srq {
        addr_of_mut!(self.srq)
    }
    pub fn kernel(&self) -> KernelWq {
        KernelWq::new(unsafe { &(*self.siw.rq.data_ptr()).queue })
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

/// Little-endian field readers over raw slot bytes (x86-64/aarch64 are little-endian).
pub fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes(b[off..off + 2].try_into().unwrap())
}
pub fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
pub fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}
