//! WQE encoding and posting rules, checked against the byte offsets of Linux's `rdma_user_rxe.h` (read off
//! the C header with offsetof, not from our Rust structs), with the test playing the kernel's side of the rings.
#![allow(unsafe_code)]

use super::super::testing::*;
use super::super::wr::*;
use super::super::{check_qp_init_attr, set_qp_send_ops, QpCaps, RxeQp};
use super::*;
use crate::provider::rxe::abi::rxe_av;
use std::ptr::null_mut;

type H = Host;

// struct rxe_send_wqe (LP64), from offsetof() against <rdma/rdma_user_rxe.h>.
const WR_ID: usize = 0;
const OPCODE: usize = 12;
const SEND_FLAGS: usize = 16;
const EX: usize = 20;
const WR: usize = 24; // rdma.remote_addr, atomic.remote_addr, ud.remote_qpn, mw.addr, flush.remote_addr
const RDMA_RKEY: usize = 32;
const ATOMIC_COMPARE_ADD: usize = 32;
const ATOMIC_SWAP: usize = 40;
const ATOMIC_RKEY: usize = 48;
const UD_REMOTE_QKEY: usize = 28;
const UD_AH_NUM: usize = 36;
const UD_AV: usize = 56;
const MW_LENGTH: usize = 32;
const MW_MR_LKEY: usize = 40;
const MW_MW_RKEY: usize = 44;
const MW_RKEY: usize = 48;
const MW_ACCESS: usize = 52;
const FLUSH_LENGTH: usize = 32;
const FLUSH_RKEY: usize = 36;
const FLUSH_TYPE: usize = 40;
const FLUSH_LEVEL: usize = 41;
const STATUS: usize = 144;
const IOVA: usize = 152;
const SSN: usize = 176;
const DMA_LENGTH: usize = 184;
const DMA_RESID: usize = 188;
const DMA_CUR_SGE: usize = 192;
const DMA_NUM_SGE: usize = 196;
const DMA_SGE_OFFSET: usize = 200;
const DMA_DATA: usize = 208;
// struct rxe_recv_wqe.
const RWQE_LENGTH: usize = 16;
const RWQE_RESID: usize = 20;
const RWQE_NUM_SGE: usize = 28;
const RWQE_DATA: usize = 40;

fn post(qp: &mut TestQp, wrs: &mut [ibv_send_wr]) -> (c_int, *mut ibv_send_wr) {
    for i in 1..wrs.len() {
        let next: *mut ibv_send_wr = &mut wrs[i];
        wrs[i - 1].next = next;
    }
    let mut bad = null_mut();
    let rc = unsafe { post_send::<H>(qp.ibqp(), wrs.as_mut_ptr(), &mut bad) };
    (rc, bad)
}

fn consumed(qp: &TestQp) -> Vec<*mut u8> {
    let k = qp.sq_kernel();
    std::iter::from_fn(|| k.consume()).collect()
}

fn sge(addr: u64, length: u32, lkey: u32) -> ibv_sge {
    ibv_sge { addr, length, lkey }
}

#[test]
fn send_with_sges_bytes() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 3, false);
    let mut sges = [sge(0x1000, 100, 0x11), sge(0x2000, 28, 0x22)];
    let mut wr = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    wr.wr_id = 0xdead_beef_0000_0001;
    wr.sg_list = sges.as_mut_ptr();
    wr.num_sge = 2;
    wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_FENCE;
    let (rc, bad) = post(&mut qp, std::slice::from_mut(&mut wr));
    assert_eq!((rc, bad), (0, null_mut()));
    assert_eq!(qp.doorbells(), 1);
    let w = consumed(&qp);
    assert_eq!(w.len(), 1);
    let w = w[0] as *const u8;
    assert_eq!(u64_at(w, WR_ID), 0xdead_beef_0000_0001);
    assert_eq!(u32_at(w, OPCODE), 2);
    assert_eq!(u32_at(w, SEND_FLAGS), 0b111);
    assert_eq!(u32_at(w, STATUS), 0);
    assert_eq!(u32_at(w, SSN), 0);
    assert_eq!((u32_at(w, DMA_LENGTH), u32_at(w, DMA_RESID)), (128, 128));
    assert_eq!((u32_at(w, DMA_CUR_SGE), u32_at(w, DMA_NUM_SGE), u32_at(w, DMA_SGE_OFFSET)), (0, 2, 0));
    assert_eq!((u64_at(w, DMA_DATA), u32_at(w, DMA_DATA + 8), u32_at(w, DMA_DATA + 12)), (0x1000, 100, 0x11));
    assert_eq!((u64_at(w, DMA_DATA + 16), u32_at(w, DMA_DATA + 24), u32_at(w, DMA_DATA + 28)), (0x2000, 28, 0x22));
}

#[test]
fn every_opcode_encodes_like_rdma_core() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 4, false);
    let mut local = [sge(0x5000, 8, 0x55)];
    let mut mr: ibv_mr = unsafe { std::mem::zeroed() };
    mr.lkey = 0x4242;
    let mut mw = mw(0x7700);

    let mut wrs: Vec<ibv_send_wr> = Vec::new();
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_RDMA_WRITE);
    w.wr.rdma = ibv_send_wr_rdma { remote_addr: 0xaaaa_0000, rkey: 0x1234 };
    wrs.push(w);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_RDMA_WRITE_WITH_IMM);
    w.wr.rdma = ibv_send_wr_rdma { remote_addr: 0xaaaa_1000, rkey: 0x1235 };
    w.imm.imm_data = 0x0102_0304u32.to_be();
    wrs.push(w);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_RDMA_READ);
    w.wr.rdma = ibv_send_wr_rdma { remote_addr: 0xaaaa_2000, rkey: 0x1236 };
    wrs.push(w);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_ATOMIC_CMP_AND_SWP);
    w.wr.atomic = ibv_send_wr_atomic { remote_addr: 0xbbbb_0008, compare_add: 5, swap: 6, rkey: 0x99 };
    w.sg_list = local.as_mut_ptr();
    w.num_sge = 1;
    wrs.push(w);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_ATOMIC_FETCH_AND_ADD);
    w.wr.atomic = ibv_send_wr_atomic { remote_addr: 0xbbbb_0010, compare_add: 7, swap: 0, rkey: 0x98 };
    w.sg_list = local.as_mut_ptr();
    w.num_sge = 1;
    wrs.push(w);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_LOCAL_INV);
    w.imm.invalidate_rkey = 0x5151;
    wrs.push(w);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND_WITH_INV);
    w.imm.invalidate_rkey = 0x5252;
    wrs.push(w);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_BIND_MW);
    w.ext.bind_mw = ibv_send_wr_bind_mw {
        mw: &mut mw,
        rkey: 0x7701,
        bind_info: ibv_mw_bind_info { mr: &mut mr, addr: 0xcccc_0000, length: 4096, mw_access_flags: 0b110 },
    };
    wrs.push(w);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND_WITH_IMM);
    w.imm.imm_data = 0xfeed_f00du32.to_be();
    wrs.push(w);
    for (i, w) in wrs.iter_mut().enumerate() {
        w.wr_id = i as u64;
    }
    let n = wrs.len();
    assert_eq!(post(&mut qp, &mut wrs), (0, null_mut()));
    let w: Vec<*const u8> = consumed(&qp).into_iter().map(|p| p as *const u8).collect();
    assert_eq!(w.len(), n);
    for (i, &p) in w.iter().enumerate() {
        assert_eq!(u64_at(p, WR_ID), i as u64);
        assert_eq!(u32_at(p, SSN), i as u32, "ssn counts WQEs");
    }
    // RDMA WRITE / WRITE_IMM / READ: wr.rdma and iova.
    assert_eq!((u32_at(w[0], OPCODE), u64_at(w[0], WR), u32_at(w[0], RDMA_RKEY)), (0, 0xaaaa_0000, 0x1234));
    assert_eq!(u64_at(w[0], IOVA), 0xaaaa_0000);
    assert_eq!((u32_at(w[1], OPCODE), u32_at(w[1], EX)), (1, 0x0102_0304u32.to_be()));
    assert_eq!((u32_at(w[2], OPCODE), u64_at(w[2], IOVA), u32_at(w[2], RDMA_RKEY)), (4, 0xaaaa_2000, 0x1236));
    // Atomics: wr.atomic, iova = remote_addr, local SGE.
    assert_eq!(u32_at(w[3], OPCODE), 5);
    assert_eq!(
        (u64_at(w[3], WR), u64_at(w[3], ATOMIC_COMPARE_ADD), u64_at(w[3], ATOMIC_SWAP), u32_at(w[3], ATOMIC_RKEY)),
        (0xbbbb_0008, 5, 6, 0x99)
    );
    assert_eq!((u64_at(w[3], IOVA), u32_at(w[3], DMA_LENGTH), u32_at(w[3], DMA_NUM_SGE)), (0xbbbb_0008, 8, 1));
    assert_eq!((u32_at(w[4], OPCODE), u64_at(w[4], ATOMIC_COMPARE_ADD), u32_at(w[4], ATOMIC_RKEY)), (6, 7, 0x98));
    // LOCAL_INV / SEND_WITH_INV: the rkey travels in `ex`.
    assert_eq!((u32_at(w[5], OPCODE), u32_at(w[5], EX)), (7, 0x5151));
    assert_eq!((u32_at(w[6], OPCODE), u32_at(w[6], EX)), (9, 0x5252));
    // BIND_MW: wr.mw.
    assert_eq!(u32_at(w[7], OPCODE), 8);
    assert_eq!((u64_at(w[7], WR), u64_at(w[7], MW_LENGTH)), (0xcccc_0000, 4096));
    assert_eq!(
        (u32_at(w[7], MW_MR_LKEY), u32_at(w[7], MW_MW_RKEY), u32_at(w[7], MW_RKEY), u32_at(w[7], MW_ACCESS)),
        (0x4242, 0x7700, 0x7701, 0b110)
    );
    assert_eq!((u32_at(w[8], OPCODE), u32_at(w[8], EX)), (3, 0xfeed_f00du32.to_be()));
    assert_eq!(qp.doorbells(), 1, "one doorbell per ibv_post_send call");
}

/// IBV_WR_FLUSH through `ibv_post_send` (rdma-core 56): posted as 56's rxe posts it, through the general path: the
/// opcode, `wr.rdma.remote_addr` as the iova, the SGE and its length, and the WQE's `wr` union left zero (no rkey,
/// type or level: `struct ibv_send_wr` has no member for them). The values that are no opcode stay refused.
#[test]
fn flush_wr_posts_like_rdma_core_56() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 4, false);
    let mut local = [sge(0x5000, 64, 0x55)];
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_FLUSH);
    w.wr.rdma = ibv_send_wr_rdma { remote_addr: 0xaaaa_0000, rkey: 0x1234 };
    w.sg_list = local.as_mut_ptr();
    w.num_sge = 1;
    w.send_flags = IBV_SEND_SIGNALED;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)), (0, null_mut()));
    let c = consumed(&qp);
    let p = c[0] as *const u8;
    assert_eq!((u32_at(p, OPCODE), u32_at(p, SEND_FLAGS), u64_at(p, IOVA)), (14, IBV_SEND_SIGNALED, 0xaaaa_0000));
    assert_eq!((u32_at(p, DMA_LENGTH), u32_at(p, DMA_NUM_SGE), u64_at(p, DMA_DATA)), (64, 1, 0x5000));
    assert_eq!((u64_at(p, WR), u32_at(p, FLUSH_LENGTH), u32_at(p, FLUSH_RKEY)), (0, 0, 0), "wr union zero");
    assert_eq!(unsafe { (*p.add(FLUSH_TYPE), *p.add(FLUSH_LEVEL)) }, (0, 0));
    for bad in [12u32, 13, 16, 255] {
        let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
        // SAFETY: a 4-byte enum field, written as the C caller would.
        unsafe { std::ptr::addr_of_mut!(w.opcode).cast::<u32>().write(bad) };
        let p = &mut w as *mut ibv_send_wr;
        assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)), (libc::EINVAL, p), "opcode {bad}");
    }
}

#[test]
fn ud_send_carries_ah_num_or_av() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_UD, CAPS, 3, false);
    let mut ah = TestAh::new(17);
    let mut old_ah = TestAh::new(0);
    old_ah.rxe.av = {
        let mut av: rxe_av = unsafe { std::mem::zeroed() };
        av.port_num = 1;
        av.network_type = 2;
        av.dmac = [1, 2, 3, 4, 5, 6];
        av
    };
    let mut wrs = [send_wr(ibv_wr_opcode::IBV_WR_SEND), send_wr(ibv_wr_opcode::IBV_WR_SEND_WITH_IMM)];
    wrs[0].wr.ud = ibv_send_wr_ud { ah: ah.ibah(), remote_qpn: 0x33, remote_qkey: 0x1111_1111 };
    wrs[1].wr.ud = ibv_send_wr_ud { ah: old_ah.ibah(), remote_qpn: 0x34, remote_qkey: 0x2222_2222 };
    assert_eq!(post(&mut qp, &mut wrs), (0, null_mut()));
    let w = consumed(&qp);
    let (a, b) = (w[0] as *const u8, w[1] as *const u8);
    assert_eq!((u32_at(a, WR), u32_at(a, UD_REMOTE_QKEY), u32_at(a, UD_AH_NUM)), (0x33, 0x1111_1111, 17));
    assert_eq!(u64_at(a, UD_AV), 0, "no address vector when the kernel knows the AH");
    assert_eq!((u32_at(b, WR), u32_at(b, UD_AH_NUM)), (0x34, 0));
    let av = unsafe { std::slice::from_raw_parts(b.add(UD_AV), 8) };
    assert_eq!(av, &[1, 2, 1, 2, 3, 4, 5, 6], "old kernels get port, network type and dmac in the WQE");

    // A UD send without an AH is refused instead of dereferencing NULL.
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    let p: *mut ibv_send_wr = &mut w;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)), (libc::EINVAL, p));
}

#[test]
fn ud_send_through_another_contexts_ah_is_refused() {
    // Two contexts (only their addresses matter) and an AH of each; the QP is of the first.
    let ctxs: Vec<ibv_context> = (0..2).map(|_| unsafe { std::mem::zeroed() }).collect();
    let (mine_ctx, their_ctx) = (&ctxs[0] as *const _ as *mut ibv_context, &ctxs[1] as *const _ as *mut ibv_context);
    let mut qp = ex_qp(ibv_qp_type::IBV_QPT_UD, crate::provider::rxe::RXE_SUP_UD_QP_SEND_OPS_FLAGS);
    qp.qp_ex.qp_base.context = mine_ctx;
    let (mut mine, mut theirs) = (TestAh::new(5), TestAh::new(5));
    mine.ah.context = mine_ctx;
    theirs.ah.context = their_ctx;
    let ud = |ah: *mut ibv_ah| {
        let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
        w.wr.ud = ibv_send_wr_ud { ah, remote_qpn: 0x33, remote_qkey: 0x1111_1111 };
        w
    };

    // Alone (the single-WR path): refused, nothing published; the doorbell rings as always.
    let mut w = ud(theirs.ibah());
    let p: *mut ibv_send_wr = &mut w;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)), (libc::EINVAL, p));
    assert_eq!(qp.sq_queue().producer_side().index(), 0, "nothing published");
    // Second in a list: the first is posted, the second named by bad_wr.
    let mut wrs = [ud(mine.ibah()), ud(theirs.ibah())];
    let second: *mut ibv_send_wr = &mut wrs[1];
    assert_eq!(post(&mut qp, &mut wrs), (libc::EINVAL, second));
    let w = consumed(&qp);
    assert_eq!(w.len(), 1);
    assert_eq!(u32_at(w[0], UD_AH_NUM), 5);

    // ibv_wr_set_ud_addr: the batch fails whole.
    let x = qp.qpx();
    unsafe {
        wr_start::<H>(x);
        wr_send::<H>(x);
        wr_set_ud_addr::<H>(x, mine.ibah(), 0x99, 0x1234);
        wr_set_sge::<H>(x, 1, 0x1000, 10);
        wr_send::<H>(x);
        wr_set_ud_addr::<H>(x, theirs.ibah(), 0x99, 0x1234);
        wr_set_sge::<H>(x, 1, 0x1000, 10);
        assert_eq!(wr_complete::<H>(x), libc::EINVAL);
    }
    assert!(consumed(&qp).is_empty(), "nothing of the failed batch published");
    // The QP's own AH still goes, by both paths.
    let mut w = ud(mine.ibah());
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)), (0, null_mut()));
    unsafe {
        wr_start::<H>(x);
        wr_send::<H>(x);
        wr_set_ud_addr::<H>(x, mine.ibah(), 0x99, 0x1234);
        wr_set_sge::<H>(x, 1, 0x1000, 10);
        assert_eq!(wr_complete::<H>(x), 0);
    }
    assert_eq!(consumed(&qp).len(), 2);
}

#[test]
fn inline_data_is_copied() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 3, false);
    let a = *b"hello, ";
    let b = *b"inline world";
    let mut sges = [sge(a.as_ptr() as u64, a.len() as u32, 0), sge(0, 0, 0), sge(b.as_ptr() as u64, b.len() as u32, 0)];
    let mut wr = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    wr.sg_list = sges.as_mut_ptr();
    wr.num_sge = 3;
    wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut wr)), (0, null_mut()));
    let w = consumed(&qp)[0] as *const u8;
    assert_eq!(u32_at(w, SEND_FLAGS), IBV_SEND_INLINE | IBV_SEND_SIGNALED);
    assert_eq!((u32_at(w, DMA_LENGTH), u32_at(w, DMA_NUM_SGE)), (19, 3));
    assert_eq!(unsafe { std::slice::from_raw_parts(w.add(DMA_DATA), 19) }, b"hello, inline world");
}

#[test]
fn validation_errors_and_bad_wr() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 3, false);
    let big = [0u8; 65];
    let mut sges = [sge(0x1000, 4, 1); 5];
    let mut inline_big = [sge(big.as_ptr() as u64, 65, 0)];
    let mut short = [sge(0x1000, 4, 1)];
    let cases: Vec<(ibv_send_wr, &str)> = vec![
        (
            {
                let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
                w.sg_list = sges.as_mut_ptr();
                w.num_sge = 5;
                w
            },
            "more SGEs than max_send_sge",
        ),
        (
            {
                let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
                w.num_sge = -1;
                w
            },
            "negative num_sge",
        ),
        (
            {
                let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
                w.num_sge = 1;
                w
            },
            "NULL sg_list",
        ),
        (
            {
                let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
                w.sg_list = inline_big.as_mut_ptr();
                w.num_sge = 1;
                w.send_flags = IBV_SEND_INLINE;
                w
            },
            "inline longer than max_inline_data",
        ),
        (
            {
                let mut w = send_wr(ibv_wr_opcode::IBV_WR_ATOMIC_FETCH_AND_ADD);
                w.sg_list = short.as_mut_ptr();
                w.num_sge = 1;
                w.wr.atomic.remote_addr = 0x1000;
                w
            },
            "atomic with a 4-byte local buffer",
        ),
        (
            {
                let mut w = send_wr(ibv_wr_opcode::IBV_WR_ATOMIC_CMP_AND_SWP);
                w.sg_list = sges.as_mut_ptr();
                w.num_sge = 2;
                w.wr.atomic.remote_addr = 0x1004;
                w
            },
            "atomic to a misaligned address",
        ),
        (
            {
                let mut w = send_wr(ibv_wr_opcode::IBV_WR_BIND_MW);
                w.imm.imm_data = 1;
                w
            },
            "bind with immediate data",
        ),
        (
            {
                let mut w = send_wr(ibv_wr_opcode::IBV_WR_BIND_MW);
                w.sg_list = short.as_mut_ptr();
                w.num_sge = 1;
                w
            },
            "bind with an SGE",
        ),
        (send_wr(ibv_wr_opcode::IBV_WR_BIND_MW), "bind with a NULL mw"),
    ];
    for (bad_one, what) in cases {
        // A good WR, then the bad one, then a good one: the first is posted, the list stops at the bad one.
        let mut wrs = [
            send_wr(ibv_wr_opcode::IBV_WR_SEND),
            unsafe { std::ptr::read(&bad_one) },
            send_wr(ibv_wr_opcode::IBV_WR_SEND),
        ];
        let before = qp.doorbells();
        let (rc, bad) = post(&mut qp, &mut wrs);
        assert_eq!(rc, libc::EINVAL, "{what}");
        assert_eq!(bad, &mut wrs[1] as *mut _, "{what}");
        assert_eq!(consumed(&qp).len(), 1, "{what}: the WR before the bad one is posted");
        assert_eq!(qp.doorbells(), before + 1, "{what}: the doorbell rings anyway");
    }

    // Bind on a UD QP.
    let mut ud = TestQp::new(ibv_qp_type::IBV_QPT_UD, CAPS, 3, false);
    let mut mw = mw(0);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_BIND_MW);
    w.ext.bind_mw.mw = &mut mw;
    let p: *mut ibv_send_wr = &mut w;
    assert_eq!(post(&mut ud, std::slice::from_mut(&mut w)), (libc::EINVAL, p));

    // NULL arguments.
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    assert_eq!(unsafe { post_send::<H>(qp.ibqp(), &mut w, null_mut()) }, libc::EINVAL);
    let mut bad = std::ptr::dangling_mut::<ibv_send_wr>();
    assert_eq!(unsafe { post_send::<H>(qp.ibqp(), null_mut(), &mut bad) }, libc::EINVAL);
    assert!(bad.is_null(), "*bad_wr is cleared first");
}

#[test]
fn full_queue_is_enomem_and_wraps() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 2, false); // 4 slots, 3 usable
    for round in 0..3u64 {
        let mut wrs: Vec<ibv_send_wr> = (0..5)
            .map(|i| {
                let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
                w.wr_id = round * 10 + i;
                w
            })
            .collect();
        let (rc, bad) = post(&mut qp, &mut wrs);
        assert_eq!(rc, libc::ENOMEM);
        assert_eq!(bad, &mut wrs[3] as *mut _);
        let ids: Vec<u64> = consumed(&qp).iter().map(|&p| u64_at(p, WR_ID)).collect();
        assert_eq!(ids, vec![round * 10, round * 10 + 1, round * 10 + 2]);
    }
}

#[test]
fn doorbell_error_wins_but_wqes_are_queued() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 3, false);
    qp.set_state(ibv_qp_state::IBV_QPS_RTR);
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    assert_eq!(post(&mut qp, std::slice::from_mut(&mut w)), (libc::EINVAL, null_mut()));
    assert_eq!(consumed(&qp).len(), 1, "like rdma-core, the WQE stays in the ring");
}

#[test]
fn slot_limits_clamp_caps() {
    // Caps larger than the slot the kernel gave: the slot wins.
    let sq = crate::provider::rxe::queue::testing::queue(2, 8); // 256-byte slots: 48 data bytes
    let qp = RxeQp::new(sq, None, QpCaps { max_send_sge: 30, max_inline_data: 1000, max_recv_sge: 0 }, 2).unwrap();
    let sq = qp.sq.lock();
    assert_eq!((sq.max_sge, sq.max_inline), (3, 48));
    drop(sq);
    let tiny = crate::provider::rxe::queue::testing::queue(2, 7); // 128 < sizeof(rxe_send_wqe)
    assert_eq!(RxeQp::new(tiny, None, QpCaps::default(), 2).unwrap_err(), Errno::EINVAL);
}

#[test]
fn post_recv_bytes_and_rules() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 2, false);
    let mut sges = [sge(0x1000, 64, 7), sge(0x2000, 32, 8)];
    let mut wr = recv_wr(0x77, &mut sges);
    let mut bad = null_mut();
    assert_eq!(unsafe { post_recv::<H>(qp.ibqp(), &mut wr, &mut bad) }, 0);
    assert_eq!(qp.doorbells(), 0, "receives need no doorbell");
    let w = qp.rq_kernel().consume().unwrap() as *const u8;
    assert_eq!(u64_at(w, 0), 0x77);
    assert_eq!((u32_at(w, RWQE_LENGTH), u32_at(w, RWQE_RESID), u32_at(w, RWQE_NUM_SGE)), (96, 96, 2));
    assert_eq!((u64_at(w, RWQE_DATA), u32_at(w, RWQE_DATA + 8), u32_at(w, RWQE_DATA + 12)), (0x1000, 64, 7));
    assert_eq!(u64_at(w, RWQE_DATA + 16), 0x2000);

    // Too many SGEs.
    let mut four = [sge(0, 1, 0); 4];
    let mut wr = recv_wr(1, &mut four);
    let p: *mut ibv_recv_wr = &mut wr;
    assert_eq!(unsafe { post_recv::<H>(qp.ibqp(), &mut wr, &mut bad) }, libc::EINVAL);
    assert_eq!(bad, p);

    // Full: 3 of a list of 4 posted.
    let mut ws: Vec<ibv_recv_wr> = (0..4).map(|i| recv_wr(i, &mut [])).collect();
    for i in 1..4 {
        let next: *mut ibv_recv_wr = &mut ws[i];
        ws[i - 1].next = next;
    }
    assert_eq!(unsafe { post_recv::<H>(qp.ibqp(), ws.as_mut_ptr(), &mut bad) }, libc::ENOMEM);
    assert_eq!(bad, &mut ws[3] as *mut _);
    assert_eq!(qp.rq_kernel().count_from_client(), 3);

    // RESET state (C10-97.2.1).
    qp.set_state(ibv_qp_state::IBV_QPS_RESET);
    let mut wr = recv_wr(2, &mut []);
    assert_eq!(unsafe { post_recv::<H>(qp.ibqp(), &mut wr, &mut bad) }, libc::EINVAL);

    // A QP on an SRQ has no RQ.
    let mut srq_qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 2, true);
    assert_eq!(unsafe { post_recv::<H>(srq_qp.ibqp(), &mut wr, &mut bad) }, libc::EINVAL);
}

#[test]
fn post_srq_recv_bytes_and_rules() {
    let mut srq = TestSrq::new(2, 2);
    let mut sges = [sge(0x3000, 16, 9)];
    let mut wr = recv_wr(5, &mut sges);
    let mut bad = null_mut();
    assert_eq!(unsafe { post_srq_recv::<H>(srq.ibsrq(), &mut wr, &mut bad) }, 0);
    let w = srq.kernel().consume().unwrap() as *const u8;
    assert_eq!((u64_at(w, 0), u32_at(w, RWQE_LENGTH), u64_at(w, RWQE_DATA)), (5, 16, 0x3000));
    let mut three = [sge(0, 1, 0); 3];
    let mut wr = recv_wr(6, &mut three);
    assert_eq!(unsafe { post_srq_recv::<H>(srq.ibsrq(), &mut wr, &mut bad) }, libc::EINVAL);
    assert_eq!(unsafe { post_srq_recv::<H>(srq.ibsrq(), null_mut(), &mut bad) }, 0, "empty list");
}

#[test]
fn bind_mw_verb_bumps_rkey() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 3, false);
    let mut mr: ibv_mr = unsafe { std::mem::zeroed() };
    mr.lkey = 0x10;
    let mut mw = mw(0x1234_56ff);
    let mut bind = ibv_mw_bind {
        wr_id: 9,
        send_flags: IBV_SEND_SIGNALED,
        bind_info: ibv_mw_bind_info { mr: &mut mr, addr: 0x8000, length: 64, mw_access_flags: 0b10 },
    };
    assert_eq!(unsafe { bind_mw::<H>(qp.ibqp(), &mut mw, &mut bind) }, 0);
    assert_eq!(mw.rkey, 0x1234_5600, "ibv_inc_rkey: the low byte wraps, the index stays");
    let w = consumed(&qp)[0] as *const u8;
    assert_eq!(
        (u32_at(w, OPCODE), u64_at(w, WR_ID), u32_at(w, MW_RKEY), u32_at(w, MW_MW_RKEY)),
        (8, 9, 0x1234_5600, 0x1234_56ff)
    );
    bind.bind_info.mw_access_flags |= IBV_ACCESS_ZERO_BASED;
    assert_eq!(unsafe { bind_mw::<H>(qp.ibqp(), &mut mw, &mut bind) }, libc::EINVAL);
    assert_eq!(Errno::last(), Errno::EINVAL);
    // Unbind: NULL MR with zero length.
    let mut unbind = ibv_mw_bind {
        wr_id: 10,
        send_flags: 0,
        bind_info: ibv_mw_bind_info { mr: null_mut(), addr: 0, length: 0, mw_access_flags: 0 },
    };
    assert_eq!(unsafe { bind_mw::<H>(qp.ibqp(), &mut mw, &mut unbind) }, 0);
    assert_eq!(u32_at(consumed(&qp)[0], MW_MR_LKEY), 0);
}

#[test]
fn concurrent_posts_to_one_qp_serialize() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 6, false);
    let addr = qp.ibqp() as usize;
    const THREADS: u64 = 4;
    const PER: u64 = 2000;
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut seen = Vec::new();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            s.spawn(move || {
                let mut i = 0;
                while i < PER {
                    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
                    w.wr_id = (t << 32) | i;
                    let mut bad = null_mut();
                    match unsafe { post_send::<H>(addr as *mut ibv_qp, &mut w, &mut bad) } {
                        0 => i += 1,
                        e => assert_eq!(e, libc::ENOMEM),
                    }
                }
            });
        }
        // This thread is the kernel's requester.
        let k = qp.sq_kernel();
        while seen.len() < (THREADS * PER) as usize {
            match k.consume() {
                Some(w) => seen.push(u64_at(w, WR_ID)),
                None => std::thread::yield_now(),
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    for t in 0..THREADS {
        let mine: Vec<u64> = seen.iter().filter(|&&id| id >> 32 == t).map(|&id| id & 0xffff_ffff).collect();
        assert_eq!(mine, (0..PER).collect::<Vec<_>>(), "each thread's WRs arrive once, in order");
    }
}

// ----- ibv_qp_ex -----

fn ex_qp(qp_type: ibv_qp_type, flags: u64) -> Box<TestQp> {
    let mut qp = TestQp::new(qp_type, CAPS, 2, false);
    set_qp_send_ops::<H>(&mut qp.qp_ex, flags);
    qp
}

const ALL_RC: u64 = crate::provider::rxe::RXE_SUP_RC_QP_SEND_OPS_FLAGS;

#[test]
fn wr_api_builds_and_publishes_on_complete() {
    let mut qp = ex_qp(ibv_qp_type::IBV_QPT_RC, ALL_RC);
    let x = qp.qpx();
    unsafe {
        wr_start::<H>(x);
        (*x).wr_id = 1;
        (*x).wr_flags = IBV_SEND_SIGNALED;
        wr_rdma_write::<H>(x, 0x42, 0x9000);
        wr_set_sge::<H>(x, 0x5, 0x1000, 300);
        (*x).wr_id = 2;
        wr_send_imm::<H>(x, 0xabcdu32.to_be());
        wr_set_sge_list::<H>(x, 2, [sge(0x10, 5, 1), sge(0x20, 7, 2)].as_ptr());
        assert_eq!(qp.sq_kernel().count_from_client(), 0, "nothing visible before wr_complete");
        assert_eq!(wr_complete::<H>(x), 0);
    }
    assert_eq!(qp.doorbells(), 1);
    let w = consumed(&qp);
    assert_eq!(w.len(), 2);
    let (a, b) = (w[0] as *const u8, w[1] as *const u8);
    assert_eq!((u64_at(a, WR_ID), u32_at(a, OPCODE), u32_at(a, SEND_FLAGS)), (1, 0, IBV_SEND_SIGNALED));
    assert_eq!((u64_at(a, WR), u32_at(a, RDMA_RKEY), u64_at(a, IOVA)), (0x9000, 0x42, 0x9000));
    assert_eq!((u32_at(a, DMA_LENGTH), u32_at(a, DMA_NUM_SGE), u64_at(a, DMA_DATA)), (300, 1, 0x1000));
    assert_eq!((u64_at(b, WR_ID), u32_at(b, OPCODE), u32_at(b, EX)), (2, 3, 0xabcdu32.to_be()));
    assert_eq!((u32_at(b, DMA_LENGTH), u32_at(b, DMA_RESID), u32_at(b, DMA_NUM_SGE)), (12, 12, 2), "lengths summed");
    assert!(!qp.rxe.sq.is_locked(), "critical section left");
}

#[test]
fn wr_api_every_builder() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 4, false);
    set_qp_send_ops::<H>(&mut qp.qp_ex, ALL_RC);
    let mut mr: ibv_mr = unsafe { std::mem::zeroed() };
    mr.lkey = 0x61;
    let mut mw = mw(0x300);
    let info = ibv_mw_bind_info { mr: &mut mr, addr: 0x7000, length: 16, mw_access_flags: 2 };
    let value = 0x1122_3344_5566_7788u64.to_ne_bytes();
    let x = qp.qpx();
    unsafe {
        wr_start::<H>(x);
        wr_atomic_cmp_swp::<H>(x, 1, 0x100, 2, 3);
        wr_atomic_fetch_add::<H>(x, 4, 0x108, 5);
        wr_bind_mw::<H>(x, &mut mw, 0x301, &info);
        wr_local_inv::<H>(x, 0x400);
        wr_rdma_read::<H>(x, 6, 0x200);
        wr_rdma_write_imm::<H>(x, 7, 0x300, 8);
        wr_send::<H>(x);
        wr_send_inv::<H>(x, 0x500);
        wr_atomic_write::<H>(x, 9, 0x400, value.as_ptr().cast());
        wr_flush::<H>(x, 10, 0x500, 4096, 1, 2);
        assert_eq!(wr_complete::<H>(x), 0);
    }
    let w: Vec<*const u8> = consumed(&qp).into_iter().map(|p| p as *const u8).collect();
    let ops: Vec<u32> = w.iter().map(|&p| u32_at(p, OPCODE)).collect();
    assert_eq!(ops, vec![5, 6, 8, 7, 4, 1, 2, 9, 15, 14]);
    assert_eq!(
        (u64_at(w[0], WR), u64_at(w[0], ATOMIC_COMPARE_ADD), u64_at(w[0], ATOMIC_SWAP), u32_at(w[0], ATOMIC_RKEY)),
        (0x100, 2, 3, 1)
    );
    assert_eq!(u64_at(w[0], IOVA), 0x100);
    assert_eq!((u64_at(w[1], ATOMIC_COMPARE_ADD), u32_at(w[1], ATOMIC_RKEY), u64_at(w[1], IOVA)), (5, 4, 0x108));
    assert_eq!(
        (u32_at(w[2], MW_MR_LKEY), u32_at(w[2], MW_MW_RKEY), u32_at(w[2], MW_RKEY), u64_at(w[2], MW_LENGTH)),
        (0x61, 0x300, 0x301, 16)
    );
    assert_eq!(u32_at(w[3], EX), 0x400);
    assert_eq!((u64_at(w[4], WR), u32_at(w[4], RDMA_RKEY)), (0x200, 6));
    assert_eq!((u64_at(w[5], WR), u32_at(w[5], EX)), (0x300, 8));
    assert_eq!(u32_at(w[7], EX), 0x500);
    // ATOMIC_WRITE (kernel 6.2+): the 8 bytes in dma.atomic_wr, length 8.
    assert_eq!((u64_at(w[8], WR), u32_at(w[8], RDMA_RKEY), u32_at(w[8], DMA_LENGTH)), (0x400, 9, 8));
    assert_eq!(u64_at(w[8], DMA_DATA), 0x1122_3344_5566_7788);
    // FLUSH (kernel 6.2+): wr.flush and dma.length.
    assert_eq!((u64_at(w[9], WR), u32_at(w[9], FLUSH_LENGTH), u32_at(w[9], FLUSH_RKEY)), (0x500, 4096, 10));
    assert_eq!(unsafe { (*w[9].add(FLUSH_TYPE), *w[9].add(FLUSH_LEVEL)) }, (1, 2));
    assert_eq!((u32_at(w[9], DMA_LENGTH), u64_at(w[9], IOVA)), (4096, 0x500));
}

#[test]
fn wr_api_inline_ud_and_flags() {
    let mut qp = ex_qp(ibv_qp_type::IBV_QPT_UD, crate::provider::rxe::RXE_SUP_UD_QP_SEND_OPS_FLAGS);
    let mut ah = TestAh::new(3);
    let x = qp.qpx();
    let parts: [&[u8]; 2] = [b"abc", b"defg"];
    let bufs: Vec<ibv_data_buf> =
        parts.iter().map(|p| ibv_data_buf { addr: p.as_ptr() as *mut _, length: p.len() }).collect();
    unsafe {
        wr_start::<H>(x);
        wr_send::<H>(x);
        wr_set_ud_addr::<H>(x, ah.ibah(), 0x99, 0x1234);
        wr_set_inline_data_list::<H>(x, 2, bufs.as_ptr());
        (*x).wr_flags = IBV_SEND_INLINE; // then given SGEs: the flag must not reach the kernel
        wr_send::<H>(x);
        wr_set_ud_addr::<H>(x, ah.ibah(), 0x98, 0x1234);
        wr_set_sge::<H>(x, 1, 0x1000, 10);
        assert_eq!(wr_complete::<H>(x), 0);
    }
    let w = consumed(&qp);
    let (a, b) = (w[0] as *const u8, w[1] as *const u8);
    assert_eq!((u32_at(a, WR), u32_at(a, UD_REMOTE_QKEY), u32_at(a, UD_AH_NUM)), (0x99, 0x1234, 3));
    assert_eq!(u32_at(a, SEND_FLAGS) & IBV_SEND_INLINE, IBV_SEND_INLINE, "inline setter marks the WQE inline");
    assert_eq!((u32_at(a, DMA_LENGTH), u32_at(a, DMA_NUM_SGE)), (7, 0));
    assert_eq!(unsafe { std::slice::from_raw_parts(a.add(DMA_DATA), 7) }, b"abcdefg");
    assert_eq!(u32_at(b, SEND_FLAGS) & IBV_SEND_INLINE, 0, "SGE setter clears it");
    assert_eq!(u32_at(b, WR), 0x98);
}

#[test]
fn wr_api_errors_drop_the_batch() {
    let mut qp = ex_qp(ibv_qp_type::IBV_QPT_RC, ALL_RC);
    let x = qp.qpx();
    let big = [0u8; 65];
    unsafe {
        // Inline too long -> ENOSPC, nothing published.
        wr_start::<H>(x);
        wr_send::<H>(x);
        wr_set_inline_data::<H>(x, big.as_ptr() as *mut _, 65);
        wr_send::<H>(x);
        assert_eq!(wr_complete::<H>(x), libc::ENOSPC);
        // Two 40-byte buffers: each fits, the total does not (fixed in rdma-core 64).
        wr_start::<H>(x);
        wr_send::<H>(x);
        let bufs = [
            ibv_data_buf { addr: big.as_ptr() as *mut _, length: 40 },
            ibv_data_buf { addr: big.as_ptr() as *mut _, length: 40 },
        ];
        wr_set_inline_data_list::<H>(x, 2, bufs.as_ptr());
        assert_eq!(wr_complete::<H>(x), libc::ENOSPC);
        // Too many SGEs.
        wr_start::<H>(x);
        wr_send::<H>(x);
        wr_set_sge_list::<H>(x, 5, [sge(0, 1, 0); 5].as_ptr());
        assert_eq!(wr_complete::<H>(x), libc::ENOSPC);
        // SQ overflow: 4 slots hold 3.
        wr_start::<H>(x);
        for _ in 0..4 {
            wr_send::<H>(x);
        }
        assert_eq!(wr_complete::<H>(x), libc::ENOSPC);
        // A setter before any builder.
        wr_start::<H>(x);
        wr_set_sge::<H>(x, 1, 2, 3);
        assert_eq!(wr_complete::<H>(x), libc::EINVAL);
        // Abort.
        wr_start::<H>(x);
        wr_send::<H>(x);
        wr_abort::<H>(x);
        // Outside a critical section: ignored.
        wr_send::<H>(x);
        assert_eq!(wr_complete::<H>(x), libc::EINVAL);
    }
    assert_eq!(qp.sq_kernel().count_from_client(), 0, "no failed or aborted batch reached the ring");
    assert_eq!(qp.doorbells(), 0);
    assert!(!qp.rxe.sq.is_locked());
    // And the QP still works, from the slot where it was.
    unsafe {
        wr_start::<H>(x);
        (*x).wr_id = 42;
        wr_send::<H>(x);
        assert_eq!(wr_complete::<H>(x), 0);
    }
    assert_eq!(u64_at(consumed(&qp)[0], WR_ID), 42);
}

#[test]
fn wr_api_looks_at_the_ring_again_when_it_seemed_full() {
    let mut qp = ex_qp(ibv_qp_type::IBV_QPT_RC, ALL_RC);
    let x = qp.qpx();
    unsafe {
        // Two published, none consumed: the next batch has room for one (4 slots hold 3).
        wr_start::<H>(x);
        wr_send::<H>(x);
        wr_send::<H>(x);
        assert_eq!(wr_complete::<H>(x), 0);
        wr_start::<H>(x);
        wr_send::<H>(x);
        // The kernel takes the two: the next builders look at its index again and find two more slots.
        assert!(qp.sq_kernel().consume().is_some() && qp.sq_kernel().consume().is_some());
        wr_send::<H>(x);
        wr_set_sge::<H>(x, 1, 2, 3);
        wr_send::<H>(x);
        assert_eq!(wr_complete::<H>(x), 0);
        assert_eq!(qp.sq_kernel().count_from_client(), 3);
        // Full now: the batch fails with ENOSPC and publishes nothing.
        wr_start::<H>(x);
        wr_send::<H>(x);
        wr_set_sge::<H>(x, 1, 2, 3);
        assert_eq!(wr_complete::<H>(x), libc::ENOSPC);
        assert_eq!(qp.sq_kernel().count_from_client(), 3);
        // Outside a batch, a builder and a setter do nothing.
        wr_send::<H>(x);
        wr_set_sge::<H>(x, 1, 2, 3);
    }
    assert_eq!(qp.sq_kernel().count_from_client(), 3);
    assert_eq!(qp.wr_room, 0);
    assert!(!qp.rxe.sq.is_locked());
}

#[test]
fn send_ops_follow_flags_and_qp_type() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_UD, CAPS, 2, false);
    set_qp_send_ops::<H>(&mut qp.qp_ex, IBV_QP_EX_WITH_SEND);
    assert!(qp.qp_ex.wr_send.is_some() && qp.qp_ex.wr_send_imm.is_none() && qp.qp_ex.wr_rdma_write.is_none());
    assert!(qp.qp_ex.wr_set_xrc_srqn.is_none() && qp.qp_ex.wr_send_tso.is_none(), "no XRC, no TSO on rxe");
    assert!(qp.qp_ex.wr_start.is_some() && qp.qp_ex.wr_complete.is_some() && qp.qp_ex.wr_abort.is_some());
    assert!(qp.qp_ex.wr_flush.is_none(), "only with IBV_QP_EX_WITH_FLUSH");
    let mut rcqp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 2, false);
    set_qp_send_ops::<H>(&mut rcqp.qp_ex, IBV_QP_EX_WITH_FLUSH);
    assert!(rcqp.qp_ex.wr_flush.is_some() && rcqp.qp_ex.wr_send.is_none());

    let ok = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    let rc = IBV_QPT_RC;
    let ud = IBV_QPT_UD;
    assert_eq!(check_qp_init_attr(ok, 0, rc, ALL_RC), Ok(()));
    assert_eq!(check_qp_init_attr(ok, 0, rc, IBV_QP_EX_WITH_FLUSH), Ok(()), "FLUSH on RC (rdma-core 56)");
    assert_eq!(check_qp_init_attr(ok, 0, IBV_QPT_UC, IBV_QP_EX_WITH_FLUSH), Err(Errno::EOPNOTSUPP), "not on UC");
    assert_eq!(check_qp_init_attr(ok, 0, ud, IBV_QP_EX_WITH_RDMA_WRITE), Err(Errno::EOPNOTSUPP));
    assert_eq!(check_qp_init_attr(ok, 0, rc, IBV_QP_EX_WITH_TSO), Err(Errno::EOPNOTSUPP));
    let xrc = IBV_QPT_XRC_SEND;
    assert_eq!(check_qp_init_attr(ok, 0, xrc, IBV_QP_EX_WITH_SEND), Err(Errno::EOPNOTSUPP));
    assert_eq!(check_qp_init_attr(ok | IBV_QP_INIT_ATTR_XRCD, 0, rc, 0), Err(Errno::EOPNOTSUPP));
    assert_eq!(check_qp_init_attr(ok | IBV_QP_INIT_ATTR_CREATE_FLAGS, 1, rc, 0), Err(Errno::EOPNOTSUPP));
}

/// The whole WQE the fast path writes for the bench's shape (signaled 64-byte RDMA write, one SGE), byte for
/// byte, into slots first filled with garbage: the header is built in place, so every byte rdma-core leaves zero
/// must be zeroed here too; the SGE follows the header; nothing is written past it. A list of 16 follows, each
/// with its own SSN.
#[test]
fn rdma_write_fast_path_bytes() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 5, false);
    let elem = qp.sq_queue().elem_size();
    for i in 0..qp.sq_queue().num_slots() {
        unsafe { std::ptr::write_bytes(qp.sq_queue().slot(i), 0xa5, elem) };
    }
    let mut sges: Vec<ibv_sge> = (0..17).map(|i| sge(0x7000 + 64 * i, 64, 0x77)).collect();
    let mut wrs: Vec<ibv_send_wr> = (0..17)
        .map(|i| {
            let mut w = send_wr(ibv_wr_opcode::IBV_WR_RDMA_WRITE);
            w.wr_id = 100 + i as u64;
            w.send_flags = IBV_SEND_SIGNALED;
            w.wr.rdma = ibv_send_wr_rdma { remote_addr: 0x9_0000 + 64 * i as u64, rkey: 0x4455 };
            w.sg_list = &mut sges[i];
            w.num_sge = 1;
            w
        })
        .collect();
    // One WR alone, then a list of 16.
    let (rc, bad) = post(&mut qp, &mut wrs[..1]);
    assert_eq!((rc, bad), (0, null_mut()));
    let (rc, bad) = post(&mut qp, &mut wrs[1..]);
    assert_eq!((rc, bad), (0, null_mut()));
    assert_eq!(qp.doorbells(), 2);
    let got = consumed(&qp);
    assert_eq!(got.len(), 17);
    for (i, w) in got.into_iter().enumerate() {
        let mut want = vec![0u8; DMA_DATA + 16];
        let put = |b: &mut Vec<u8>, off: usize, v: &[u8]| b[off..off + v.len()].copy_from_slice(v);
        put(&mut want, WR_ID, &(100 + i as u64).to_ne_bytes());
        put(&mut want, OPCODE, &0u32.to_ne_bytes());
        put(&mut want, SEND_FLAGS, &IBV_SEND_SIGNALED.to_ne_bytes());
        put(&mut want, WR, &(0x9_0000 + 64 * i as u64).to_ne_bytes());
        put(&mut want, RDMA_RKEY, &0x4455u32.to_ne_bytes());
        put(&mut want, IOVA, &(0x9_0000 + 64 * i as u64).to_ne_bytes());
        put(&mut want, SSN, &(i as u32).to_ne_bytes());
        put(&mut want, DMA_LENGTH, &64u32.to_ne_bytes());
        put(&mut want, DMA_RESID, &64u32.to_ne_bytes());
        put(&mut want, DMA_NUM_SGE, &1u32.to_ne_bytes());
        put(&mut want, DMA_DATA, &(0x7000 + 64 * i as u64).to_ne_bytes());
        put(&mut want, DMA_DATA + 8, &64u32.to_ne_bytes());
        put(&mut want, DMA_DATA + 12, &0x77u32.to_ne_bytes());
        let bytes = unsafe { std::slice::from_raw_parts(w, elem) };
        assert_eq!(&bytes[..DMA_DATA + 16], &want[..], "WQE {i}");
        assert!(bytes[DMA_DATA + 16..].iter().all(|&b| b == 0xa5), "WQE {i}: nothing written past its SGE");
    }
}

/// A failing WR leaves the ring as it was: nothing published, the SSN not consumed, even though the fast path
/// wrote into the (unpublished) slot before its last check.
#[test]
fn failed_wr_publishes_nothing_and_keeps_ssn() {
    let mut qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 2, false); // 4 slots, 3 usable
    let mut local = [sge(0x5000, 8, 0x55)];
    let mut wrs: Vec<ibv_send_wr> = (0..4)
        .map(|i| {
            let mut w = send_wr(ibv_wr_opcode::IBV_WR_RDMA_WRITE);
            w.wr_id = i;
            w.sg_list = local.as_mut_ptr();
            w.num_sge = 1;
            w
        })
        .collect();
    let (rc, bad) = post(&mut qp, &mut wrs);
    assert_eq!(rc, libc::ENOMEM);
    assert_eq!(bad, &mut wrs[3] as *mut ibv_send_wr);
    let (p, c) = qp.sq_kernel().indices();
    assert_eq!((p, c), (3, 0));
    let got = consumed(&qp);
    assert_eq!(got.iter().map(|&w| u32_at(w, SSN)).collect::<Vec<_>>(), [0, 1, 2]);
    // An invalid atomic (remote address not 8-aligned) on the now empty ring: EINVAL, nothing published.
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_ATOMIC_FETCH_AND_ADD);
    w.wr.atomic = ibv_send_wr_atomic { remote_addr: 0x1004, compare_add: 1, swap: 0, rkey: 1 };
    w.sg_list = local.as_mut_ptr();
    w.num_sge = 1;
    let (rc, _) = post(&mut qp, std::slice::from_mut(&mut w));
    assert_eq!(rc, libc::EINVAL);
    assert_eq!(qp.sq_kernel().count_from_client(), 0);
    // The next good WR gets SSN 3.
    wrs[0].next = null_mut();
    let (rc, _) = post(&mut qp, &mut wrs[..1]);
    assert_eq!(rc, 0);
    assert_eq!(u32_at(consumed(&qp)[0], SSN), 3);
}

/// The fast path (`post_fast`) and the general one (`post_one_send`) write the same bytes into a dirty slot for
/// every WR the fast path takes: each of its five opcodes on RC (flags and immediate data set, one SGE) and both
/// sends on UD (with an AH); and the fast path declines every other shape, writing nothing it publishes.
#[test]
fn fast_and_general_paths_write_the_same_bytes() {
    let mut ah = TestAh::new(17);
    let mut local = [sge(0x7000, 48, 0x77), sge(0x8000, 16, 0x78)];
    let cases: [(ibv_qp_type, ibv_wr_opcode); 7] = [
        (ibv_qp_type::IBV_QPT_RC, ibv_wr_opcode::IBV_WR_RDMA_WRITE),
        (ibv_qp_type::IBV_QPT_RC, ibv_wr_opcode::IBV_WR_RDMA_WRITE_WITH_IMM),
        (ibv_qp_type::IBV_QPT_RC, ibv_wr_opcode::IBV_WR_SEND),
        (ibv_qp_type::IBV_QPT_UC, ibv_wr_opcode::IBV_WR_SEND_WITH_IMM),
        (ibv_qp_type::IBV_QPT_RC, ibv_wr_opcode::IBV_WR_RDMA_READ),
        (ibv_qp_type::IBV_QPT_UD, ibv_wr_opcode::IBV_WR_SEND),
        (ibv_qp_type::IBV_QPT_UD, ibv_wr_opcode::IBV_WR_SEND_WITH_IMM),
    ];
    for (qpt, op) in cases {
        let mut w = send_wr(op);
        w.wr_id = 0x1234_5678_9abc;
        w.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_FENCE;
        w.imm.imm_data = 0xdead_beef;
        if qpt == ibv_qp_type::IBV_QPT_UD {
            w.wr.ud = ibv_send_wr_ud { ah: ah.ibah(), remote_qpn: 0x33, remote_qkey: 0x1111_1111 };
        } else {
            w.wr.rdma = ibv_send_wr_rdma { remote_addr: 0x9_0000, rkey: 0x4455 };
        }
        w.sg_list = local.as_mut_ptr();
        w.num_sge = 1;
        let slots: Vec<Vec<u8>> = [true, false]
            .into_iter()
            .map(|fast| {
                let qp = TestQp::new(qpt, CAPS, 3, false);
                let q = qp.sq_queue();
                let elem = q.elem_size();
                unsafe { std::ptr::write_bytes(q.slot(0), 0xa5, elem) };
                let sq = qp.rxe.sq.lock();
                let mut c = SendCursor::new(&sq, qpt as u32, std::ptr::null_mut());
                if fast {
                    assert!(unsafe { post_fast::<H>(&mut c, &w) }, "{qpt:?} {op:?}: the fast path takes it");
                } else {
                    unsafe { post_one_send::<H>(&mut c, &w) }.unwrap();
                }
                assert_eq!((c.prod, c.ssn), (1, 1));
                unsafe { std::slice::from_raw_parts(q.slot(0), elem) }.to_vec()
            })
            .collect();
        assert_eq!(slots[0], slots[1], "{qpt:?} {op:?}: the same WQE bytes");
    }
    // Shapes the fast path leaves to the general one: it publishes nothing and consumes no SSN.
    let qp = TestQp::new(ibv_qp_type::IBV_QPT_RC, CAPS, 3, false);
    let sq = qp.rxe.sq.lock();
    let declined = |w: &ibv_send_wr| {
        let mut c = SendCursor::new(&sq, IBV_QPT_RC, std::ptr::null_mut());
        let taken = unsafe { post_fast::<H>(&mut c, w) };
        (taken, c.prod, c.ssn)
    };
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_RDMA_WRITE);
    w.sg_list = local.as_mut_ptr();
    w.num_sge = 2;
    assert_eq!(declined(&w), (false, 0, 0), "two SGEs");
    w.num_sge = 1;
    w.send_flags = IBV_SEND_INLINE;
    assert_eq!(declined(&w), (false, 0, 0), "inline");
    w.send_flags = 0;
    w.sg_list = null_mut();
    assert_eq!(declined(&w), (false, 0, 0), "NULL sg_list");
    w.sg_list = local.as_mut_ptr();
    for op in [ibv_wr_opcode::IBV_WR_ATOMIC_CMP_AND_SWP, ibv_wr_opcode::IBV_WR_BIND_MW, ibv_wr_opcode::IBV_WR_LOCAL_INV]
    {
        w.opcode = op;
        assert_eq!(declined(&w), (false, 0, 0), "{op:?}");
    }
    drop(sq);
    let ud = TestQp::new(ibv_qp_type::IBV_QPT_UD, CAPS, 3, false);
    let sq = ud.rxe.sq.lock();
    let mut w = send_wr(ibv_wr_opcode::IBV_WR_SEND);
    w.sg_list = local.as_mut_ptr();
    w.num_sge = 1;
    let mut c = SendCursor::new(&sq, IBV_QPT_UD, std::ptr::null_mut());
    assert!(!unsafe { post_fast::<H>(&mut c, &w) }, "UD send without an AH");
    assert_eq!((c.prod, c.ssn), (0, 0));
    assert_eq!(ud.sq_queue().producer_side().index(), 0, "nothing published");
}
