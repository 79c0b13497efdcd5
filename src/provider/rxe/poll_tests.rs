//! CQE decoding into `ibv_wc` and the extended polling protocol, with the test playing the kernel's producer.
#![allow(unsafe_code)]

use super::abi::{ib_uverbs_wc, FromBytes};
use super::poll::*;
use super::testing::*;
use super::{check_cq_wc_flags, set_cq_ex_ops};
use crate::provider::verbs::*;
use rdma_common::Errno;
use std::ffi::c_int;
use std::mem::MaybeUninit;
use std::ptr::null_mut;

type H = Host;

fn cqe(i: u64) -> ib_uverbs_wc {
    let mut w = <ib_uverbs_wc as FromBytes>::zeroed();
    w.wr_id = 0x1000 + i;
    w.status = if i % 5 == 4 { 12 } else { 0 };
    w.opcode = if i & 1 == 0 { 128 } else { 0 };
    w.vendor_err = i as u32 * 3;
    w.byte_len = 64 * i as u32;
    w.ex.imm_data = (0xa0b0_c0d0u32 + i as u32).to_be();
    w.qp_num = 0x11 + i as u32;
    w.src_qp = 0x22 + i as u32;
    w.wc_flags = 2;
    w.pkey_index = 7;
    w.slid = 0x33;
    w.sl = 4;
    w.dlid_path_bits = 5;
    w.port_num = 1;
    w
}

fn imm(w: &ib_uverbs_wc) -> u32 {
    unsafe { w.ex.imm_data }
}

/// Reads an `ibv_wc` the library filled, through raw offsets of `struct ibv_wc` (from offsetof in C).
fn check_wc(wc: *const ibv_wc, want: &ib_uverbs_wc) {
    let p = wc.cast::<u8>();
    assert_eq!(u64_at(p, 0), want.wr_id);
    assert_eq!(u32_at(p, 8), want.status);
    assert_eq!(u32_at(p, 12), want.opcode);
    assert_eq!(u32_at(p, 16), want.vendor_err);
    assert_eq!(u32_at(p, 20), want.byte_len);
    assert_eq!(u32_at(p, 24), imm(want), "imm_data stays big-endian");
    assert_eq!(u32_at(p, 28), want.qp_num);
    assert_eq!(u32_at(p, 32), want.src_qp);
    assert_eq!(u32_at(p, 36), want.wc_flags);
    unsafe {
        assert_eq!(p.add(40).cast::<u16>().read_unaligned(), want.pkey_index);
        assert_eq!(p.add(42).cast::<u16>().read_unaligned(), want.slid);
        assert_eq!((*p.add(44), *p.add(45)), (want.sl, want.dlid_path_bits));
    }
}

fn wcs(n: usize) -> Vec<MaybeUninit<ibv_wc>> {
    (0..n).map(|_| MaybeUninit::zeroed()).collect()
}

#[test]
fn poll_cq_decodes_and_wraps() {
    let mut cq = TestCq::new(3); // 8 slots, 7 CQEs
    let mut out = wcs(4);
    let mut next = 0u64;
    let mut expect = 0u64;
    for burst in [3usize, 7, 5, 7, 1] {
        for _ in 0..burst {
            assert!(cq.complete(&cqe(next)));
            next += 1;
        }
        let mut got = 0;
        loop {
            let n = unsafe { poll_cq::<H>(cq.ibcq(), 4, out.as_mut_ptr().cast()) };
            assert!((0..=4).contains(&n));
            if n == 0 {
                break;
            }
            for w in &out[..n as usize] {
                check_wc(w.as_ptr(), &cqe(expect));
                expect += 1;
            }
            got += n as usize;
        }
        assert_eq!(got, burst);
        let (p, c) = cq.kernel().indices();
        assert_eq!(p, c, "every CQE handed back");
    }
}

#[test]
fn poll_cq_edge_arguments() {
    let mut cq = TestCq::new(2);
    assert!(cq.complete(&cqe(0)));
    assert_eq!(unsafe { poll_cq::<H>(cq.ibcq(), 0, null_mut()) }, 0);
    assert_eq!(unsafe { poll_cq::<H>(cq.ibcq(), -3, null_mut()) }, 0);
    assert_eq!(unsafe { poll_cq::<H>(cq.ibcq(), 1, null_mut()) }, -libc::EINVAL);
    let mut out = wcs(1);
    assert_eq!(unsafe { poll_cq::<H>(cq.ibcq(), 1, out.as_mut_ptr().cast()) }, 1);
    assert_eq!(unsafe { poll_cq::<H>(cq.ibcq(), 1, out.as_mut_ptr().cast()) }, 0);
}

#[test]
fn req_notify_goes_to_the_kernel() {
    let mut cq = TestCq::new(2);
    assert_eq!(unsafe { req_notify_cq::<H>(cq.ibcq(), 1) }, 0);
    assert_eq!(unsafe { req_notify_cq::<H>(cq.ibcq(), 0) }, 0);
    assert_eq!(cq.notifies.load(std::sync::atomic::Ordering::SeqCst), 2);
    assert_eq!(cq.last_solicited.load(std::sync::atomic::Ordering::SeqCst), 0);
}

fn ex_cq(flags: u64) -> Box<TestCq> {
    let mut cq = TestCq::new(2); // 4 slots, 3 CQEs
    set_cq_ex_ops::<H>(&mut cq.cq_ex, flags, 64);
    cq
}

type NextPoll = unsafe extern "C" fn(*mut ibv_cq_ex) -> c_int;

#[test]
fn extended_poll_batch() {
    let cq = ex_cq(0);
    let installed = cq.cq_ex.next_poll.unwrap();
    assert_eq!(installed as usize, cq_next_poll::<H, 64> as NextPoll as usize, "the constant step for 64-byte slots");
    extended_poll_batch_with(installed);
    extended_poll_batch_with(cq_next_poll::<H, 0>);
}

fn extended_poll_batch_with(next_poll: NextPoll) {
    let mut cq = ex_cq(crate::provider::rxe::RXE_SUP_WC_EX_FLAGS);
    let x = cq.cqx();
    // Outside a batch: refused, nothing moves.
    assert_eq!(unsafe { next_poll(x) }, libc::EINVAL);
    unsafe { cq_end_poll::<H>(x) };
    assert!(!cq.rxe.inner.is_locked());
    let status = |x: *mut ibv_cq_ex| unsafe { std::ptr::addr_of!((*x).status).cast::<u32>().read() };
    unsafe {
        // Empty: ENOENT, lock released, end_poll must not be called.
        assert_eq!(cq_start_poll::<H>(x, null_mut()), libc::ENOENT);
        assert_eq!(Errno::last(), Errno::ENOENT);
        assert!(!cq.rxe.inner.is_locked());

        for i in 0..3 {
            assert!(cq.complete(&cqe(i)));
        }
        assert_eq!(cq_start_poll::<H>(x, null_mut()), 0);
        assert!(cq.rxe.inner.is_locked());
        for i in 0..3u64 {
            if i > 0 {
                assert_eq!(next_poll(x), 0);
            }
            let want = cqe(i);
            assert_eq!(((*x).wr_id, status(x)), (want.wr_id, want.status));
            assert_eq!(cq_read_opcode::<H>(x) as u32, want.opcode);
            assert_eq!(cq_read_vendor_err::<H>(x), want.vendor_err);
            assert_eq!(cq_read_byte_len::<H>(x), want.byte_len);
            assert_eq!(cq_read_imm_data::<H>(x), imm(&want));
            assert_eq!(cq_read_qp_num::<H>(x), want.qp_num);
            assert_eq!(cq_read_src_qp::<H>(x), want.src_qp);
            assert_eq!(cq_read_wc_flags::<H>(x), want.wc_flags);
            assert_eq!(cq_read_slid::<H>(x), want.slid as u32);
            assert_eq!(cq_read_sl::<H>(x), want.sl);
            assert_eq!(cq_read_dlid_path_bits::<H>(x), want.dlid_path_bits);
        }
        // No fourth: ENOENT, batch stays open, end_poll hands back exactly the three.
        assert_eq!(next_poll(x), libc::ENOENT);
        assert!(cq.rxe.inner.is_locked());
        cq_end_poll::<H>(x);
        assert!(!cq.rxe.inner.is_locked());
        let (p, c) = cq.kernel().indices();
        assert_eq!((p, c), (3, 3), "consumer index not overrun (rdma-core's later fix)");

        // The next batch starts at the next CQE (wrapping the ring).
        assert!(cq.complete(&cqe(3)));
        assert!(cq.complete(&cqe(4)));
        assert_eq!(cq_start_poll::<H>(x, null_mut()), 0);
        assert_eq!((*x).wr_id, cqe(3).wr_id);
        cq_end_poll::<H>(x); // stop after one: the other stays
        assert_eq!(cq_start_poll::<H>(x, null_mut()), 0);
        assert_eq!((*x).wr_id, cqe(4).wr_id);
        assert_eq!(status(x), 12);
        cq_end_poll::<H>(x);
        // And the legacy poll sees an empty CQ, not a stale entry.
        let mut out = wcs(1);
        assert_eq!(poll_cq::<H>(cq.ibcq(), 1, out.as_mut_ptr().cast()), 0);

        // Consumer at slot 1: two CQEs (slots 1, 2), then a CQE that arrives while the batch is caught up.
        assert!(cq.complete(&cqe(5)));
        assert!(cq.complete(&cqe(6)));
        assert_eq!(cq_start_poll::<H>(x, null_mut()), 0);
        assert_eq!(next_poll(x), 0);
        assert_eq!((*x).wr_id, cqe(6).wr_id);
        assert_eq!(next_poll(x), libc::ENOENT);
        assert!(cq.complete(&cqe(7)));
        assert_eq!(next_poll(x), 0, "looks at the kernel's index again");
        assert_eq!((*x).wr_id, cqe(7).wr_id);
        assert_eq!(cq_read_byte_len::<H>(x), cqe(7).byte_len);
        // Slot 3 was the last: caught up at the ring's end, the batch hands back up to slot 0.
        assert_eq!(next_poll(x), libc::ENOENT);
        cq_end_poll::<H>(x);
        assert_eq!(cq.kernel().indices(), (0, 0));
        assert_eq!(next_poll(x), libc::EINVAL, "after end_poll");
        // A batch that reaches the last slot on its fast path (the producer has wrapped: the limit is the ring's
        // end) and goes on at slot 0.
        for i in 9..12 {
            assert!(cq.complete(&cqe(i)));
        }
        let mut out = wcs(2);
        assert_eq!(poll_cq::<H>(cq.ibcq(), 2, out.as_mut_ptr().cast()), 2);
        assert!(cq.complete(&cqe(12)));
        assert!(cq.complete(&cqe(13)));
        assert_eq!(cq_start_poll::<H>(x, null_mut()), 0);
        for i in 11..14u64 {
            if i > 11 {
                assert_eq!(next_poll(x), 0);
            }
            assert_eq!((*x).wr_id, cqe(i).wr_id);
        }
        assert_eq!(next_poll(x), libc::ENOENT);
        cq_end_poll::<H>(x);
        assert_eq!(cq.kernel().indices(), (1, 1));
    }
}

#[test]
fn cq_ex_flags() {
    assert_eq!(check_cq_wc_flags(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_SL), Ok(()));
    assert_eq!(check_cq_wc_flags(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP), Err(Errno::EOPNOTSUPP));
    assert_eq!(check_cq_wc_flags(1 << 11), Err(Errno::EOPNOTSUPP), "no wallclock either");
    let cq = ex_cq(IBV_WC_EX_WITH_BYTE_LEN);
    let c = &cq.cq_ex;
    assert!(c.start_poll.is_some() && c.next_poll.is_some() && c.end_poll.is_some());
    assert!(c.read_opcode.is_some() && c.read_vendor_err.is_some() && c.read_wc_flags.is_some());
    assert!(c.read_byte_len.is_some());
    assert!(c.read_imm_data.is_none() && c.read_qp_num.is_none() && c.read_completion_ts.is_none());
}

#[test]
fn resize_remaps_under_the_lock() {
    use super::abi::{mminfo, QUEUE_DATA_OFFSET};
    use std::os::fd::{AsFd, FromRawFd, OwnedFd};
    let raw = unsafe { libc::memfd_create(c"rxe-cq-test".as_ptr(), 0) };
    assert!(raw >= 0);
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // Two rings in one file: 4 slots at offset 0, 8 slots at offset 4096 (64-byte CQEs).
    assert_eq!(unsafe { libc::ftruncate(raw, 8192) }, 0);
    for (off, mask) in [(0i64, 3u32), (4096, 7)] {
        let hdr = [6u32, mask];
        assert_eq!(unsafe { libc::pwrite(raw, hdr.as_ptr().cast(), 8, off) }, 8);
    }
    let small = mminfo { offset: 0, size: (QUEUE_DATA_OFFSET + 4 * 64) as u32, pad: 0 };
    let big = mminfo { offset: 4096, size: (QUEUE_DATA_OFFSET + 8 * 64) as u32, pad: 0 };
    let cq = super::cq_from_resp(fd.as_fd(), &super::abi::rxe_create_cq_resp { mi: small }).unwrap();
    // A failing command changes nothing.
    assert_eq!(cq.resize(fd.as_fd(), || Err(Errno::ENOMEM)), Err(Errno::ENOMEM));
    assert_eq!(cq.inner.lock().queue.as_ref().unwrap().num_slots(), 4);
    cq.resize(fd.as_fd(), || {
        assert!(cq.inner.is_locked(), "the command runs with pollers locked out");
        Ok(big)
    })
    .unwrap();
    assert_eq!(cq.inner.lock().queue.as_ref().unwrap().num_slots(), 8);
}

/// The poll fast path delivers each CQE as the kernel's 48 bytes (as rdma-core's memcpy), writes no `ibv_wc` past
/// the count it returns, and hands the slots back with the consumer index it stores at the end.
#[test]
fn poll_cq_bytes_and_bounds() {
    let mut cq = TestCq::new(3); // 8 slots, 7 CQEs
    for round in 0..3u64 {
        for i in 0..5 {
            assert!(cq.complete(&cqe(round * 10 + i)));
        }
        let mut out: Vec<[u8; 48]> = vec![[0xee; 48]; 8];
        let n = unsafe { poll_cq::<H>(cq.ibcq(), 3, out.as_mut_ptr().cast()) };
        assert_eq!(n, 3);
        let n2 = unsafe { poll_cq::<H>(cq.ibcq(), 8, out[3..].as_mut_ptr().cast()) };
        assert_eq!(n2, 2);
        for (i, got) in out[..5].iter().enumerate() {
            let want = cqe(round * 10 + i as u64);
            let want = unsafe { std::slice::from_raw_parts((&want as *const ib_uverbs_wc).cast::<u8>(), 48) };
            assert_eq!(&got[..], want, "round {round} CQE {i}: the kernel's bytes");
        }
        assert!(out[5..].iter().all(|w| w.iter().all(|&b| b == 0xee)), "nothing written past the count");
        let (p, c) = cq.kernel().indices();
        assert_eq!(p, c, "every CQE handed back");
        // Empty: 0, whatever the arguments after the CQ (no CQE to deliver).
        assert_eq!(unsafe { poll_cq::<H>(cq.ibcq(), 4, null_mut()) }, 0);
        assert_eq!(unsafe { poll_cq::<H>(cq.ibcq(), -1, out.as_mut_ptr().cast()) }, 0);
    }
    assert_eq!(unsafe { poll_cq::<H>(null_mut(), 1, null_mut()) }, -libc::EINVAL);
}
