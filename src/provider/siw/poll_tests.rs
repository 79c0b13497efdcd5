//! CQE decoding into `ibv_wc` and the CQ ownership and arming protocol, with the test playing the kernel's producer.
#![allow(unsafe_code)]

use super::poll::*;
use super::queue::testing::Cqe;
use super::testing::*;
use crate::provider::verbs::*;
use rdma_common::Errno;
use std::mem::MaybeUninit;
use std::ptr::null_mut;

type H = Host;

fn wcs(n: usize) -> Vec<MaybeUninit<ibv_wc>> {
    // Garbage, not zeros: every field must be written.
    (0..n)
        .map(|_| {
            let mut w = MaybeUninit::<ibv_wc>::uninit();
            unsafe { std::ptr::write_bytes(w.as_mut_ptr().cast::<u8>(), 0xa5, size_of::<ibv_wc>()) };
            w
        })
        .collect()
}

fn poll(cq: &mut TestCq, wc: &mut [MaybeUninit<ibv_wc>]) -> i32 {
    unsafe { poll_cq::<H>(cq.ibcq(), wc.len() as i32, wc.as_mut_ptr().cast()) }
}

/// The bytes of an `ibv_wc` the library filled, through the offsets of `struct ibv_wc` (from offsetof in C).
fn wc_bytes(w: &MaybeUninit<ibv_wc>) -> [u8; 48] {
    let mut b = [0u8; 48];
    unsafe { std::ptr::copy_nonoverlapping(w.as_ptr().cast::<u8>(), b.as_mut_ptr(), 46) };
    b
}

#[test]
fn cqes_become_work_completions() {
    let mut cq = TestCq::new(4);
    let k = cq.kernel();
    let c = Cqe { id: 0x1122_3344_5566_7788, opcode: 8, status: 0, bytes: 4096, qp_id: 0x42, flags: 0 };
    assert_eq!(k.complete(c, false), Some(false));
    let c2 = Cqe { id: 2, opcode: 1, status: 4, bytes: 0, qp_id: 0x43, flags: 0 };
    assert_eq!(k.complete(c2, false), Some(false));
    let mut wc = wcs(4);
    assert_eq!(poll(&mut cq, &mut wc), 2);
    let b = wc_bytes(&wc[0]);
    let u32_at = |b: &[u8], o| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    assert_eq!(u64::from_le_bytes(b[0..8].try_into().unwrap()), 0x1122_3344_5566_7788);
    assert_eq!(u32_at(&b, 8), 0, "status IBV_WC_SUCCESS");
    assert_eq!(u32_at(&b, 12), 128, "opcode IBV_WC_RECV");
    assert_eq!(u32_at(&b, 16), 0, "vendor_err");
    assert_eq!(u32_at(&b, 20), 4096, "byte_len");
    assert_eq!(u32_at(&b, 24), 0, "imm_data");
    assert_eq!(u32_at(&b, 28), 0x42, "qp_num");
    assert_eq!(u32_at(&b, 32), 0, "src_qp");
    assert_eq!(u32_at(&b, 36), 0, "wc_flags");
    assert_eq!(&b[40..46], &[0; 6], "pkey_index, slid, sl, dlid_path_bits");
    let b = wc_bytes(&wc[1]);
    assert_eq!((u32_at(&b, 8), u32_at(&b, 12), u32_at(&b, 28)), (5, 2, 0x43), "WR_FLUSH_ERR, RDMA_READ");
    assert_eq!((k.flags_at(0), k.flags_at(1)), (0, 0), "slots handed back");
    assert_eq!(poll(&mut cq, &mut wc), 0);
}

#[test]
fn partial_polls_and_wraparound() {
    let mut cq = TestCq::new(4);
    let k = cq.kernel();
    let mut next_id = 0u64;
    let mut seen = vec![];
    for burst in [1u32, 4, 3, 4, 2, 4] {
        for _ in 0..burst {
            assert!(k.complete(Cqe { id: next_id, ..Cqe::default() }, false).is_some());
            next_id += 1;
        }
        if burst == 4 {
            assert!(k.complete(Cqe::default(), false).is_none(), "four slots hold four CQEs");
        }
        // Two at a time, as a caller with a short array would.
        loop {
            let mut wc = wcs(2);
            let n = poll(&mut cq, &mut wc);
            for w in &wc[..n as usize] {
                seen.push(unsafe { w.assume_init_ref().wr_id });
            }
            if n < 2 {
                break;
            }
        }
    }
    assert_eq!(seen, (0..next_id).collect::<Vec<_>>());
}

#[test]
fn opcode_and_status_tables() {
    use ibv_wc_opcode::*;
    use ibv_wc_status::*;
    let ops = [
        (0, IBV_WC_RDMA_WRITE),
        (1, IBV_WC_RDMA_READ),
        (2, IBV_WC_RDMA_READ),
        (3, IBV_WC_SEND),
        (4, IBV_WC_SEND),
        (5, IBV_WC_SEND),
        (6, IBV_WC_FETCH_ADD),
        (7, IBV_WC_COMP_SWAP),
        (8, IBV_WC_RECV),
        (9, IBV_WC_SEND),
        (200, IBV_WC_SEND),
    ];
    for (op, want) in ops {
        assert_eq!(wc_opcode(op) as u32, want as u32, "siw opcode {op}");
    }
    let st = [
        IBV_WC_SUCCESS,
        IBV_WC_LOC_LEN_ERR,
        IBV_WC_LOC_PROT_ERR,
        IBV_WC_LOC_QP_OP_ERR,
        IBV_WC_WR_FLUSH_ERR,
        IBV_WC_BAD_RESP_ERR,
        IBV_WC_LOC_ACCESS_ERR,
        IBV_WC_REM_ACCESS_ERR,
        IBV_WC_REM_INV_REQ_ERR,
        IBV_WC_GENERAL_ERR,
    ];
    for (i, want) in st.into_iter().enumerate() {
        assert_eq!(wc_status(i as u16) as u32, want as u32, "siw status {i}");
    }
    assert_eq!(wc_status(10) as u32, IBV_WC_GENERAL_ERR as u32);
    assert_eq!(wc_status(0xffff) as u32, IBV_WC_GENERAL_ERR as u32);
}

#[test]
fn arming_is_a_store_into_the_notification_word() {
    let mut cq = TestCq::new(4);
    let k = cq.kernel();
    assert_eq!(cq.queue().notify_flags(), 0, "created unarmed");
    assert_eq!(unsafe { req_notify_cq::<H>(cq.ibcq(), 1) }, 0);
    assert_eq!(cq.queue().notify_flags(), 1, "SIW_NOTIFY_SOLICITED");
    assert_eq!(k.complete(Cqe::default(), false), Some(false), "an unsolicited CQE does not notify");
    assert_eq!(k.complete(Cqe::default(), true), Some(true));
    assert_eq!(cq.queue().notify_flags(), 0, "one-shot");
    assert_eq!(unsafe { req_notify_cq::<H>(cq.ibcq(), 0) }, 0);
    assert_eq!(cq.queue().notify_flags(), 3, "SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION");
    let mut wc = wcs(4);
    assert_eq!(poll(&mut cq, &mut wc), 2);
    assert_eq!(k.complete(Cqe::default(), false), Some(true), "any completion notifies");
    assert_eq!(unsafe { req_notify_cq::<H>(null_mut(), 0) }, Errno::EINVAL.0);
}

#[test]
fn degenerate_arguments() {
    let mut cq = TestCq::new(2);
    let k = cq.kernel();
    k.complete(Cqe::default(), false).unwrap();
    let mut wc = wcs(1);
    assert_eq!(unsafe { poll_cq::<H>(cq.ibcq(), 0, wc.as_mut_ptr().cast()) }, 0);
    assert_eq!(unsafe { poll_cq::<H>(cq.ibcq(), -5, wc.as_mut_ptr().cast()) }, 0, "negative: nothing");
    assert_eq!(unsafe { poll_cq::<H>(cq.ibcq(), 1, null_mut()) }, -Errno::EINVAL.0);
    assert_eq!(unsafe { poll_cq::<H>(null_mut(), 1, wc.as_mut_ptr().cast()) }, -Errno::EINVAL.0);
    assert_eq!(k.flags_at(0), 1, "still the caller's to poll");
    assert_eq!(poll(&mut cq, &mut wc), 1);
}

/// The one-entry fast path and the loop deliver the same bytes, across the ring's wrap-around.
#[test]
fn one_at_a_time_equals_batched() {
    let mut one = TestCq::new(8);
    let mut many = TestCq::new(8);
    let (k1, k2) = (one.kernel(), many.kernel());
    for round in 0..3u64 {
        for i in 0..4u64 {
            let (opcode, status) = ((i % 3) as u8, (i % 2) as u16);
            let c = Cqe { id: round * 10 + i, opcode, status, bytes: 7 * i as u32, qp_id: 9, flags: 0 };
            k1.complete(c, false).unwrap();
            k2.complete(c, false).unwrap();
        }
        let mut batched = wcs(5);
        assert_eq!(poll(&mut many, &mut batched), 4);
        for (i, want) in batched[..4].iter().enumerate() {
            let mut w = wcs(1);
            assert_eq!(poll(&mut one, &mut w), 1, "round {round} CQE {i}");
            assert_eq!(wc_bytes(&w[0]), wc_bytes(want), "round {round} CQE {i}");
        }
        assert_eq!(poll(&mut one, &mut wcs(1)), 0);
        assert!(wc_bytes(&batched[4])[..46].iter().all(|&b| b == 0xa5), "nothing written past the count");
    }
}

/// Statuses beyond siw's table (and the 16-bit values in between), through both the one-entry path and the loop.
#[test]
fn failed_and_unknown_statuses() {
    use ibv_wc_status::*;
    for batch in [1usize, 4] {
        let mut cq = TestCq::new(4);
        let k = cq.kernel();
        let statuses = [
            (1u16, IBV_WC_LOC_LEN_ERR),
            (8, IBV_WC_REM_INV_REQ_ERR),
            (9, IBV_WC_GENERAL_ERR),
            (0xffff, IBV_WC_GENERAL_ERR),
        ];
        for (i, (st, _)) in statuses.iter().enumerate() {
            k.complete(Cqe { id: i as u64, opcode: 3, status: *st, bytes: 0x8000_0001, qp_id: 7, flags: 0 }, false)
                .unwrap();
        }
        let mut got = vec![];
        while got.len() < 4 {
            let mut wc = wcs(batch);
            let n = poll(&mut cq, &mut wc);
            assert!(n > 0);
            got.extend(wc[..n as usize].iter().map(wc_bytes));
        }
        for (b, (_, want)) in got.iter().zip(statuses) {
            let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
            assert_eq!((u32_at(8), u32_at(12)), (want as u32, ibv_wc_opcode::IBV_WC_SEND as u32), "batch {batch}");
            assert_eq!((u32_at(16), u32_at(20), u32_at(24), u32_at(28)), (0, 0x8000_0001, 0, 7));
        }
    }
}

/// A batch larger than the slots left before the ring's end continues from slot 0 in the same call.
#[test]
fn one_call_across_the_ring_end() {
    let mut cq = TestCq::new(4);
    let k = cq.kernel();
    for i in 0..3 {
        k.complete(Cqe { id: i, ..Cqe::default() }, false).unwrap();
    }
    let mut wc = wcs(3);
    assert_eq!(poll(&mut cq, &mut wc), 3);
    for i in 3..7 {
        k.complete(Cqe { id: i, bytes: i as u32, ..Cqe::default() }, false).unwrap();
    }
    let mut wc = wcs(8);
    assert_eq!(poll(&mut cq, &mut wc), 4, "slot 3, then slots 0..2");
    let ids: Vec<u64> = wc[..4].iter().map(|w| unsafe { w.assume_init_ref().wr_id }).collect();
    assert_eq!(ids, [3, 4, 5, 6]);
    assert_eq!(unsafe { wc[3].assume_init_ref().byte_len }, 6);
    assert_eq!((0..4).map(|i| k.flags_at(i)).collect::<Vec<_>>(), [0, 0, 0, 0], "every slot handed back");
    // Exactly to the ring's end, then a stop at an empty slot inside a run.
    for i in 7..9 {
        k.complete(Cqe { id: i, ..Cqe::default() }, false).unwrap();
    }
    let mut wc = wcs(2);
    assert_eq!(poll(&mut cq, &mut wc), 2);
    assert_eq!(unsafe { wc[1].assume_init_ref().wr_id }, 8);
    assert_eq!(poll(&mut cq, &mut wc), 0);
}
