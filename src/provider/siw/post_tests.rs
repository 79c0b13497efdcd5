//! WQE encoding and posting rules, checked against the byte offsets of Linux's `siw-abi.h` (read off the C header
//! with offsetof, not from our Rust structs), with the test playing the kernel's side of the queues.
#![allow(unsafe_code)]

use super::post::*;
use super::testing::*;
use crate::provider::verbs::*;
use rdma_common::Errno;
use std::ffi::c_int;
use std::ptr::null_mut;

type H = Host;

// struct siw_sqe / siw_rqe (LP64), from offsetof() against <rdma/siw-abi.h>.
const ID: usize = 0;
const FLAGS: usize = 8;
const NUM_SGE: usize = 10;
const OPCODE: usize = 11;
const RKEY: usize = 12;
const RADDR: usize = 16;
const SGE0: usize = 24;
const INLINE: usize = 40;
const RQE_SGE0: usize = 16;

// enum siw_wqe_flags, enum siw_opcode.
const VALID: u16 = 1;
const F_INLINE: u16 = 2;
const SIGNALLED: u16 = 4;
const SOLICITED: u16 = 8;
const READ_FENCE: u16 = 16;
const OP_WRITE: u8 = 0;
const OP_READ: u8 = 1;
const OP_SEND: u8 = 3;
const OP_SEND_REMOTE_INV: u8 = 5;

const ENOTCONN: c_int = libc::ENOTCONN;

fn post(qp: &mut TestQp, wrs: &mut [ibv_send_wr]) -> (c_int, *mut ibv_send_wr) {
    for i in 1..wrs.len() {
        let next: *mut ibv_send_wr = &mut wrs[i];
        wrs[i - 1].next = next;
    }
    let mut bad = null_mut();
    let rc = unsafe { post_send::<H>(qp.ibqp(), wrs.as_mut_ptr(), &mut bad) };
    (rc, bad)
}

fn sge(addr: u64, length: u32, lkey: u32) -> ibv_sge {
    ibv_sge { addr, length, lkey }
}

fn check_sge(b: &[u8], off: usize, s: &ibv_sge) {
    assert_eq!((u64_at(b, off), u32_at(b, off + 8), u32_at(b, off + 12)), (s.addr, s.length, s.lkey));
}

#[test]
fn send_wqe_bytes() {
    let mut qp = TestQp::new(4, Some(4), false);
    let mut sges = [sge(0x1000, 64, 0x11), sge(0x2000, 32, 0x22)];
    let mut wr = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    wr.wr_id = 0xfeed_beef_0000_0001;
    wr.sg_list = sges.as_mut_ptr();
    wr.num_sge = 2;
    wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
    wr.wr.rdma.remote_addr = 0xdead; // ignored for a SEND
    wr.wr.rdma.rkey = 0xbad;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut wr)), (0, null_mut()));
    assert_eq!(qp.doorbells(), 1, "a fresh SQ is idle: ring");
    let k = qp.sq_kernel();
    let b = k.take().unwrap();
    assert_eq!(b.len(), 120);
    assert_eq!(u64_at(&b, ID), 0xfeed_beef_0000_0001);
    assert_eq!(u16_at(&b, FLAGS), VALID | SIGNALLED | SOLICITED);
    assert_eq!((b[NUM_SGE], b[OPCODE]), (2, OP_SEND));
    assert_eq!((u32_at(&b, RKEY), u64_at(&b, RADDR)), (0, 0));
    check_sge(&b, SGE0, &sges[0]);
    check_sge(&b, SGE0 + 16, &sges[1]);
    assert!(k.take().is_none());
}

#[test]
fn write_read_and_send_with_inv_bytes() {
    let mut qp = TestQp::new(8, Some(4), false);
    let mut s = [sge(0x1000, 4096, 0x33)];
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_RDMA_WRITE);
    w.wr_id = 1;
    w.sg_list = s.as_mut_ptr();
    w.num_sge = 1;
    w.wr.rdma.remote_addr = 0x7f00_0000_1000;
    w.wr.rdma.rkey = 0x4455;
    w.send_flags = IBV_SEND_FENCE;
    let mut r = send_wr(ibv_wr_opcode::IBV_WR_RDMA_READ);
    r.wr_id = 2;
    r.sg_list = s.as_mut_ptr();
    r.num_sge = 1;
    r.wr.rdma.remote_addr = 0x7f00_0000_2000;
    r.wr.rdma.rkey = 0x6677;
    let mut i = send_wr(ibv_wr_opcode::IBV_WR_SEND_WITH_INV);
    i.wr_id = 3;
    i.imm.invalidate_rkey = 0x8899;
    i.wr.rdma.rkey = 0xbad; // rdma-core 44 sends this one; the verb means invalidate_rkey
    let (rc, bad) = post(&mut qp, &mut [w, r, i]);
    assert_eq!((rc, bad), (0, null_mut()));
    assert_eq!(qp.doorbells(), 1, "one doorbell per call");
    let k = qp.sq_kernel();
    let b = k.take().unwrap();
    assert_eq!((b[OPCODE], b[NUM_SGE], u16_at(&b, FLAGS)), (OP_WRITE, 1, VALID | READ_FENCE));
    assert_eq!((u64_at(&b, RADDR), u32_at(&b, RKEY)), (0x7f00_0000_1000, 0x4455));
    check_sge(&b, SGE0, &s[0]);
    let b = k.take().unwrap();
    assert_eq!((b[OPCODE], b[NUM_SGE], u16_at(&b, FLAGS)), (OP_READ, 1, VALID));
    assert_eq!((u64_at(&b, RADDR), u32_at(&b, RKEY)), (0x7f00_0000_2000, 0x6677));
    let b = k.take().unwrap();
    assert_eq!((b[OPCODE], b[NUM_SGE], u64_at(&b, ID)), (OP_SEND_REMOTE_INV, 0, 3));
    assert_eq!((u32_at(&b, RKEY), u64_at(&b, RADDR)), (0x8899, 0));
}

#[test]
fn read_sink_is_one_sge_and_cannot_be_fenced() {
    let mut qp = TestQp::new(4, None, false);
    let k = qp.sq_kernel();
    // Leave old bytes in every slot, then a READ without SGE: its sge[0] must be a zero-length SGE, not the old one.
    let mut s = [sge(0x1000, 8, 1), sge(0x2000, 8, 2)];
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    w.sg_list = s.as_mut_ptr();
    w.num_sge = 1;
    for _ in 0..4 {
        assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
        k.take().unwrap();
    }
    let mut r = send_wr(ibv_wr_opcode::IBV_WR_RDMA_READ);
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut r)).0, 0);
    let b = k.take().unwrap();
    assert_eq!((b[OPCODE], b[NUM_SGE]), (OP_READ, 0));
    assert_eq!(&b[SGE0..SGE0 + 16], &[0u8; 16], "zero-length READ sink");

    r.sg_list = s.as_mut_ptr();
    r.num_sge = 2;
    let (rc, bad) = post(&mut qp, std::slice::from_mut(&mut r));
    assert_eq!((rc, bad), (Errno::EINVAL.0, &mut r as *mut _), "iWARP READ sink is one SGE");
    r.num_sge = 1;
    r.send_flags = IBV_SEND_FENCE;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut r)).0, Errno::EINVAL.0, "the kernel cannot fence a READ");
    r.send_flags = IBV_SEND_INLINE;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut r)).0, Errno::EINVAL.0, "no inline READ");
    assert!(k.take().is_none(), "nothing reached the SQ");
}

#[test]
fn inline_data() {
    let mut qp = TestQp::new(8, None, false);
    let a: Vec<u8> = (0..10).collect();
    let b: Vec<u8> = (100..120).collect();
    let mut s = [sge(a.as_ptr() as u64, 10, 0x55), sge(0xdead, 0, 0x66), sge(b.as_ptr() as u64, 20, 0x77)];
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    w.sg_list = s.as_mut_ptr();
    w.num_sge = 3;
    w.send_flags = IBV_SEND_INLINE;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
    let k = qp.sq_kernel();
    let wqe = k.take().unwrap();
    assert_eq!(u16_at(&wqe, FLAGS), VALID | F_INLINE);
    assert_eq!(wqe[NUM_SGE], 1, "one SGE describing the inline bytes");
    assert_eq!((u64_at(&wqe, SGE0), u32_at(&wqe, SGE0 + 8), u32_at(&wqe, SGE0 + 12)), (0, 30, 0));
    assert_eq!(&wqe[INLINE..INLINE + 10], &a[..]);
    assert_eq!(&wqe[INLINE + 10..INLINE + 30], &b[..]);

    // Exactly 80 bytes from more SGEs than SIW_MAX_SGE: accepted (the data is copied).
    let big = [0xabu8; 80];
    let mut many: Vec<ibv_sge> = (0..8).map(|i| sge(big.as_ptr() as u64 + i * 10, 10, 0)).collect();
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_RDMA_WRITE);
    w.sg_list = many.as_mut_ptr();
    w.num_sge = 8;
    w.send_flags = IBV_SEND_INLINE;
    w.wr.rdma.rkey = 9;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
    let wqe = k.take().unwrap();
    assert_eq!((wqe[OPCODE], u32_at(&wqe, SGE0 + 8), u32_at(&wqe, RKEY)), (OP_WRITE, 80, 9));
    assert_eq!(&wqe[INLINE..120], &big[..]);

    // 81 bytes: EINVAL, nothing written.
    many[7].length = 11;
    let (rc, bad) = post(&mut qp, std::slice::from_mut(&mut w));
    assert_eq!((rc, bad), (Errno::EINVAL.0, &mut w as *mut _));
    let mut si = send_wr(ibv_wr_opcode::IBV_WR_SEND_WITH_INV);
    si.send_flags = IBV_SEND_INLINE;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut si)).0, Errno::EINVAL.0, "the kernel inlines SEND/WRITE only");
    assert!(k.take().is_none());
}

#[test]
fn opcodes_siw_cannot_post_are_einval() {
    use ibv_wr_opcode::*;
    let mut qp = TestQp::new(4, None, false);
    for op in [
        IBV_WR_RDMA_WRITE_WITH_IMM,
        IBV_WR_SEND_WITH_IMM,
        IBV_WR_ATOMIC_CMP_AND_SWP,
        IBV_WR_ATOMIC_FETCH_AND_ADD,
        IBV_WR_LOCAL_INV,
        IBV_WR_BIND_MW,
        IBV_WR_TSO,
        IBV_WR_DRIVER1,
        IBV_WR_ATOMIC_WRITE,
    ] {
        let mut w = send_wr(op);
        let (rc, bad) = post(&mut qp, std::slice::from_mut(&mut w));
        assert_eq!((rc, bad), (Errno::EINVAL.0, &mut w as *mut _), "{op:?}");
    }
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    unsafe { std::ptr::addr_of_mut!(w.opcode).cast::<u32>().write(99) };
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, Errno::EINVAL.0, "beyond rdma-core's table");
    assert_eq!(qp.doorbells(), 0, "nothing posted, no doorbell");
    assert!(qp.sq_kernel().take().is_none());
    assert_eq!(siw_send_opcode(ibv_wr_opcode::IBV_WR_SEND as u32), Some(OP_SEND));
}

#[test]
fn sge_checks_and_partial_lists() {
    let mut qp = TestQp::new(8, None, false);
    let mut s = [sge(0x1000, 1, 1); 7];
    let mut ok = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    ok.sg_list = s.as_mut_ptr();
    ok.num_sge = 6;
    let mut too_many = ok;
    too_many.num_sge = 7;
    let (rc, bad) = post(&mut qp, &mut [ok, too_many, ok]);
    assert_eq!(rc, Errno::EINVAL.0);
    assert_eq!(unsafe { (*bad).num_sge }, 7, "bad_wr is the failing WR");
    assert_eq!(qp.doorbells(), 1, "the WR before it was posted and rung for");
    let k = qp.sq_kernel();
    assert_eq!(k.take().unwrap()[NUM_SGE], 6);
    assert!(k.take().is_none());

    let mut neg = ok;
    neg.num_sge = -1;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut neg)).0, Errno::EINVAL.0);
    let mut null_list = ok;
    null_list.sg_list = null_mut();
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut null_list)).0, Errno::EINVAL.0);
    let mut none = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    none.sg_list = null_mut();
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut none)).0, 0, "a zero-length send needs no list");
    assert_eq!(k.take().unwrap()[NUM_SGE], 0);
}

#[test]
fn signalled_by_flag_or_sq_sig_all() {
    let mut qp = TestQp::new(4, None, true);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
    assert_eq!(u16_at(&qp.sq_kernel().take().unwrap(), FLAGS), VALID | SIGNALLED);
    assert_eq!(siw_send_flags(0, false), VALID);
    assert_eq!(siw_send_flags(IBV_SEND_SIGNALED | IBV_SEND_INLINE | IBV_SEND_FENCE, false), 1 | 4 | 2 | 16);
}

#[test]
fn full_sq_is_enomem() {
    let mut qp = TestQp::new(4, None, false);
    let mut wrs: Vec<ibv_send_wr> = (0..6)
        .map(|i| {
            let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
            w.wr_id = i;
            w
        })
        .collect();
    let (rc, bad) = post(&mut qp, &mut wrs);
    assert_eq!(rc, Errno::ENOMEM.0);
    assert_eq!(unsafe { (*bad).wr_id }, 4, "four slots, the fifth WR fails");
    assert_eq!(qp.doorbells(), 1);
    let k = qp.sq_kernel();
    assert_eq!((0..4).map(|_| u64_at(&k.take().unwrap(), ID)).collect::<Vec<_>>(), [0, 1, 2, 3]);
    let (rc, _) = post(&mut qp, &mut wrs[4..]);
    assert_eq!(rc, 0, "room again once the kernel took them");
}

#[test]
fn doorbell_only_when_the_sq_was_idle() {
    let mut qp = TestQp::new(8, None, false);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    let k = qp.sq_kernel();
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
    assert_eq!(qp.doorbells(), 1);
    // The kernel has not taken the first WQE yet: it will find the next one by itself.
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
    assert_eq!(post(&mut qp, &mut [w, w]).0, 0);
    assert_eq!(qp.doorbells(), 1, "busy SQ: no doorbell");
    for _ in 0..4 {
        k.take().unwrap();
    }
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
    assert_eq!(qp.doorbells(), 2, "the kernel drained the SQ: ring");
    k.take().unwrap();
    // Wrap-around of the free-running counters.
    qp.set_sq_put(u32::MAX - 1);
    k.get.set(u32::MAX - 1);
    for i in 0..5u64 {
        w.wr_id = i;
        assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
        assert_eq!(u64_at(&k.take().unwrap(), ID), i);
    }
    assert_eq!(qp.doorbells(), 7);
}

#[test]
fn failed_doorbell_is_rung_again() {
    let mut qp = TestQp::new(8, None, false);
    let k = qp.sq_kernel();
    qp.set_state(ibv_qp_state::IBV_QPS_INIT);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    let (rc, bad) = post(&mut qp, std::slice::from_mut(&mut w));
    assert_eq!((rc, bad), (ENOTCONN, null_mut()), "the doorbell's error; every WR was written");
    assert_eq!(k.peek_flags(0), VALID, "the WQE stays in the SQ");
    qp.set_state(ibv_qp_state::IBV_QPS_RTS);
    // The previous WQE is still valid, which would read as "busy": rdma-core would not ring, and both would hang.
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
    assert_eq!(qp.doorbells(), 2);
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
    assert_eq!(qp.doorbells(), 2, "owed doorbell paid: back to the idle test");
}

#[test]
fn a_wr_error_survives_a_successful_doorbell() {
    // rdma-core 44 overwrites the WR's error with the doorbell's 0.
    let mut qp = TestQp::new(8, None, false);
    let ok = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    let bad_op = send_wr(ibv_wr_opcode::IBV_WR_SEND_WITH_IMM);
    let (rc, bad) = post(&mut qp, &mut [ok, bad_op]);
    assert_eq!(rc, Errno::EINVAL.0);
    assert!(!bad.is_null());
    assert_eq!(qp.doorbells(), 1);
}

#[test]
fn null_arguments() {
    let mut qp = TestQp::new(4, Some(4), false);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    assert_eq!(unsafe { post_send::<H>(qp.ibqp(), &mut w, null_mut()) }, Errno::EINVAL.0);
    let mut bad = std::ptr::dangling_mut::<ibv_send_wr>();
    assert_eq!(unsafe { post_send::<H>(qp.ibqp(), null_mut(), &mut bad) }, 0, "an empty list posts nothing");
    assert!(bad.is_null(), "bad_wr cleared");
    assert_eq!(qp.doorbells(), 0);
    let mut rbad = null_mut();
    assert_eq!(unsafe { post_recv::<H>(qp.ibqp(), null_mut(), &mut rbad) }, 0);
    let mut r = recv_wr(1, &mut []);
    assert_eq!(unsafe { post_recv::<H>(qp.ibqp(), &mut r, null_mut()) }, Errno::EINVAL.0);
    assert_eq!(bind_mw(qp.ibqp(), null_mut(), null_mut()), Errno::EOPNOTSUPP.0);
}

fn post_recv_list(qp: &mut TestQp, wrs: &mut [ibv_recv_wr]) -> (c_int, *mut ibv_recv_wr) {
    for i in 1..wrs.len() {
        let next: *mut ibv_recv_wr = &mut wrs[i];
        wrs[i - 1].next = next;
    }
    let mut bad = null_mut();
    let rc = unsafe { post_recv::<H>(qp.ibqp(), wrs.as_mut_ptr(), &mut bad) };
    (rc, bad)
}

#[test]
fn recv_wqe_bytes_and_limits() {
    let mut qp = TestQp::new(4, Some(2), false);
    let mut s = [sge(0x1000, 100, 0x12), sge(0x3000, 200, 0x34)];
    let mut none: [ibv_sge; 0] = [];
    let (rc, bad) = post_recv_list(&mut qp, &mut [recv_wr(0xaa, &mut s), recv_wr(0xbb, &mut none)]);
    assert_eq!((rc, bad), (0, null_mut()));
    assert_eq!(qp.doorbells(), 0, "receives ring no doorbell");
    let k = qp.rq_kernel();
    let b = k.take().unwrap();
    assert_eq!(b.len(), 112);
    assert_eq!((u64_at(&b, ID), u16_at(&b, FLAGS), b[NUM_SGE]), (0xaa, VALID, 2));
    check_sge(&b, RQE_SGE0, &s[0]);
    check_sge(&b, RQE_SGE0 + 16, &s[1]);
    let b = k.take().unwrap();
    assert_eq!((u64_at(&b, ID), b[NUM_SGE]), (0xbb, 0), "a zero-SGE receive is posted (the kernel takes it)");

    let mut seven = [sge(0, 1, 1); 7];
    let mut w = [recv_wr(1, &mut s), recv_wr(2, &mut seven)];
    let (rc, bad) = post_recv_list(&mut qp, &mut w);
    assert_eq!((rc, bad), (Errno::EINVAL.0, &mut w[1] as *mut _));
    let mut w = [recv_wr(3, &mut s), recv_wr(4, &mut s)];
    let (rc, bad) = post_recv_list(&mut qp, &mut w);
    assert_eq!((rc, bad), (Errno::ENOMEM.0, &mut w[1] as *mut _), "two slots, one still valid");
    assert_eq!(u64_at(&k.take().unwrap(), ID), 1);
    assert_eq!(u64_at(&k.take().unwrap(), ID), 3);
    assert!(k.take().is_none());
}

#[test]
fn recv_without_rq_is_einval() {
    let mut qp = TestQp::new(4, None, false);
    let mut w = [recv_wr(1, &mut [])];
    let (rc, bad) = post_recv_list(&mut qp, &mut w);
    assert_eq!((rc, bad), (Errno::EINVAL.0, &mut w[0] as *mut _));
}

#[test]
fn srq_recv() {
    let mut srq = TestSrq::new(2);
    let mut s = [sge(0x5000, 64, 0x9)];
    let mut w = [recv_wr(1, &mut s), recv_wr(2, &mut s), recv_wr(3, &mut s)];
    w[0].next = &mut w[1];
    w[1].next = &mut w[2];
    let mut bad = null_mut();
    let rc = unsafe { post_srq_recv::<H>(srq.ibsrq(), w.as_mut_ptr(), &mut bad) };
    assert_eq!((rc, bad), (Errno::ENOMEM.0, &mut w[2] as *mut _));
    let k = srq.kernel();
    let b = k.take().unwrap();
    assert_eq!((u64_at(&b, ID), u16_at(&b, FLAGS), b[NUM_SGE]), (1, VALID, 1));
    check_sge(&b, RQE_SGE0, &s[0]);
    assert_eq!(u64_at(&k.take().unwrap(), ID), 2);
    assert_eq!(unsafe { post_srq_recv::<H>(srq.ibsrq(), &mut w[2], null_mut()) }, Errno::EINVAL.0);
}

/// The one-SGE fast path (RDMA_WRITE, SEND, RDMA_READ) writes every byte the general path writes: the whole SQE
/// compared against the same WR posted through the general path (with a second SGE of length 0 it takes the
/// general path and differs only in `num_sge` and that SGE), over a slot holding old bytes.
#[test]
fn fast_path_wqe_bytes() {
    let mut qp = TestQp::new(2, None, false);
    let k = qp.sq_kernel();
    let mut s = [sge(0x1000_2000_3000, 0x1234, 0x5678), sge(0, 0, 0)];
    for (op, siw_op) in [
        (ibv_wr_opcode::IBV_WR_RDMA_WRITE, OP_WRITE),
        (ibv_wr_opcode::IBV_WR_SEND, OP_SEND),
        (ibv_wr_opcode::IBV_WR_RDMA_READ, OP_READ),
    ] {
        for flags in [0, IBV_SEND_SIGNALED, IBV_SEND_SOLICITED | IBV_SEND_SIGNALED, IBV_SEND_FENCE] {
            if op == ibv_wr_opcode::IBV_WR_RDMA_READ && flags == IBV_SEND_FENCE {
                continue;
            }
            let mut w = send_wr(op);
            w.wr_id = 0xabcd_0000 + flags as u64;
            w.sg_list = s.as_mut_ptr();
            w.num_sge = 1;
            w.send_flags = flags | 0x40; // a flag siw does not map (IBV_SEND_IP_CSUM... ignored, as rdma-core)
            w.wr.rdma.remote_addr = 0x7f00_1122_3344;
            w.wr.rdma.rkey = 0x99aa;
            // Dirty the slot: the fast path must write every field.
            let mut junk = send_wr(ibv_wr_opcode::IBV_WR_RDMA_WRITE);
            junk.sg_list = s.as_mut_ptr();
            junk.num_sge = 2;
            junk.wr.rdma.remote_addr = u64::MAX;
            junk.wr.rdma.rkey = u32::MAX;
            assert_eq!(post(&mut qp, std::slice::from_mut(&mut junk)).0, 0);
            k.take().unwrap();
            assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)).0, 0);
            let fast = k.take().unwrap();
            let mut want = [0u8; 40];
            want[ID..ID + 8].copy_from_slice(&w.wr_id.to_ne_bytes());
            want[FLAGS..FLAGS + 2].copy_from_slice(&siw_send_flags(flags, false).to_ne_bytes());
            want[NUM_SGE] = 1;
            want[OPCODE] = siw_op;
            if op != ibv_wr_opcode::IBV_WR_SEND {
                want[RKEY..RKEY + 4].copy_from_slice(&0x99aau32.to_ne_bytes());
                want[RADDR..RADDR + 8].copy_from_slice(&0x7f00_1122_3344u64.to_ne_bytes());
            }
            want[SGE0..SGE0 + 8].copy_from_slice(&s[0].addr.to_ne_bytes());
            want[SGE0 + 8..SGE0 + 12].copy_from_slice(&s[0].length.to_ne_bytes());
            want[SGE0 + 12..SGE0 + 16].copy_from_slice(&s[0].lkey.to_ne_bytes());
            assert_eq!(&fast[..40], &want[..], "{op:?} flags {flags:#x}");
            // The same WR through the general path (two SGEs, the second empty): the same header. (A READ takes
            // one SGE only.)
            if op != ibv_wr_opcode::IBV_WR_RDMA_READ {
                let mut g = w;
                g.num_sge = 2;
                assert_eq!(post(&mut qp, std::slice::from_mut(&mut g)).0, 0);
                let general = k.take().unwrap();
                assert_eq!(&general[..NUM_SGE], &fast[..NUM_SGE]);
                assert_eq!(general[NUM_SGE], 2);
                assert_eq!(&general[OPCODE..40], &fast[OPCODE..40]);
            }
        }
    }
}

/// A list mixing fast and general shapes: every WR posted in order, and an error from the general path stops
/// the list at the failing WR whichever path it would have taken.
#[test]
fn fast_and_general_paths_in_one_list() {
    let mut qp = TestQp::new(8, None, true);
    let k = qp.sq_kernel();
    let mut s = [sge(0x1000, 8, 1), sge(0x2000, 8, 2)];
    let mut fast = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    fast.sg_list = s.as_mut_ptr();
    fast.num_sge = 1;
    let mut two = fast;
    two.num_sge = 2;
    let mut inv = send_wr(ibv_wr_opcode::IBV_WR_SEND_WITH_INV);
    inv.imm.invalidate_rkey = 0x77;
    let mut wrs = [fast, two, fast, inv, fast];
    for (i, w) in wrs.iter_mut().enumerate() {
        w.wr_id = i as u64;
    }
    assert_eq!(post(&mut qp, &mut wrs), (0, null_mut()));
    for (i, n) in [1u8, 2, 1, 0, 1].into_iter().enumerate() {
        let b = k.take().unwrap();
        assert_eq!((u64_at(&b, ID), b[NUM_SGE]), (i as u64, n));
        assert_eq!(u16_at(&b, FLAGS), VALID | SIGNALLED, "sq_sig_all on both paths");
    }
    assert_eq!(qp.doorbells(), 1);

    // A fenced READ, a NULL list with one SGE, an opcode siw refuses: EINVAL at that WR, the ones before posted.
    let mut fenced_read = send_wr(ibv_wr_opcode::IBV_WR_RDMA_READ);
    fenced_read.sg_list = s.as_mut_ptr();
    fenced_read.num_sge = 1;
    fenced_read.send_flags = IBV_SEND_FENCE;
    let mut null_sge = fast;
    null_sge.sg_list = null_mut();
    let mut imm = fast;
    imm.opcode = ibv_wr_opcode::IBV_WR_SEND_WITH_IMM;
    for bad_one in [fenced_read, null_sge, imm] {
        let mut wrs = [fast, bad_one, fast];
        let (rc, bad) = post(&mut qp, &mut wrs);
        assert_eq!((rc, bad), (Errno::EINVAL.0, &mut wrs[1] as *mut _));
        assert!(k.take().is_some(), "the WR before it");
        assert!(k.take().is_none(), "nothing after it");
    }
}
