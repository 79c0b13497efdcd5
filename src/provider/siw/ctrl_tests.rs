//! The control path's kernel marshalling, byte for byte through the recording fake of the uverbs fd, with a memfd
//! standing in for the queue memory the kernel registers at the keys it returns.
#![allow(unsafe_code)]

use super::abi::*;
use super::ctrl::*;
use super::testing::Host;
use crate::kernel::fake::{Fake, Reply};
use crate::provider::verbs::*;
use crate::provider::{by_driver_name, select_native, DeviceMatch};
use rdma_common::abi::enums::*;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::rdma_user_ioctl_cmds::ib_uverbs_ioctl_hdr;
use rdma_common::Errno;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, IntoRawFd, OwnedFd};
use std::ptr::null_mut;

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_ne_bytes(b[o..o + 2].try_into().unwrap())
}

/// `(command, in_words, out_words)` of a legacy write.
fn hdr(w: &[u8]) -> (u32, u16, u16) {
    (u32::from_ne_bytes(w[0..4].try_into().unwrap()), u16_at(w, 4), u16_at(w, 6))
}

/// Zeroed heap memory for a C struct we only hand around as a pointer.
fn zeroed<T>() -> *mut T {
    Box::into_raw(Box::<MaybeUninit<T>>::new(MaybeUninit::zeroed())).cast()
}

/// A memfd of `pages` pages: the "uverbs fd" the queues are mapped from.
fn memfd(pages: usize) -> OwnedFd {
    let raw = unsafe { libc::memfd_create(c"siw-ctrl-test".as_ptr(), 0) };
    assert!(raw >= 0);
    assert_eq!(unsafe { libc::ftruncate(raw, (pages * 4096) as libc::off_t) }, 0);
    unsafe { OwnedFd::from_raw_fd(raw) }
}

fn pread_u32(fd: &OwnedFd, off: usize) -> u32 {
    let mut b = [0u8; 4];
    assert_eq!(unsafe { libc::pread(fd.as_raw_fd(), b.as_mut_ptr().cast(), 4, off as libc::off_t) }, 4);
    u32::from_ne_bytes(b)
}

fn cat(a: &[u8], b: &[u8]) -> Vec<u8> {
    [a, b].concat()
}

#[test]
fn matching_is_rdma_core_siw() {
    let dev = |driver_id, name, abi_ver| DeviceMatch { driver_id, ibdev_name: name, abi_ver };
    let p = by_driver_name::<Host>("siw").unwrap();
    assert_eq!((p.name(), p.driver_id()), ("siw", 18));
    assert!(p.matches(&dev(RDMA_DRIVER_SIW, "siw0", 1)));
    assert!(p.matches(&dev(RDMA_DRIVER_SIW, "iwp0s1", 1)), "any name");
    assert!(!p.matches(&dev(0, "siw0", 1)), "driver id only, as rdma-core's table");
    assert!(!p.matches(&dev(RDMA_DRIVER_SIW, "siw0", 2)), "SIW_ABI_VERSION exactly");
    assert!(!p.matches(&dev(14, "rxe0", 2)));
    assert_eq!(select_native::<Host>(&dev(RDMA_DRIVER_SIW, "siw0", 1)).map(|p| p.name()), Some("siw"));
    assert_eq!(select_native::<Host>(&dev(14, "rxe0", 2)).map(|p| p.name()), Some("rxe"));
}

#[test]
fn what_siw_lacks_is_eopnotsupp() {
    let p = by_driver_name::<Host>("siw").unwrap();
    use std::ptr::null_mut as n;
    // SAFETY: every one of these answers before touching a pointer.
    unsafe {
        assert_eq!(p.create_cq(n(), n(), n(), true).unwrap_err(), Errno::EOPNOTSUPP, "no ibv_create_cq_ex");
        assert_eq!(p.create_qp(n(), n(), n(), true).unwrap_err(), Errno::EOPNOTSUPP, "no create_qp_ex");
        assert_eq!(p.create_srq(n(), n(), n(), true).unwrap_err(), Errno::EOPNOTSUPP, "no create_srq_ex");
        assert_eq!(p.query_srq(n(), n()), Err(Errno::EOPNOTSUPP));
        assert_eq!(p.resize_cq(n(), 8), Err(Errno::EOPNOTSUPP));
        assert_eq!(p.alloc_mw(n(), n(), 1), Err(Errno::EOPNOTSUPP));
        assert_eq!(p.create_ah(n(), n(), n()).unwrap_err(), Errno::EOPNOTSUPP);
        assert_eq!(p.attach_mcast(n(), std::ptr::null(), 0), Err(Errno::EOPNOTSUPP));
        assert_eq!(p.modify_cq(n(), n()), Err(Errno::EOPNOTSUPP));
        assert_eq!(p.get_srq_num(n()), Err(Errno::EOPNOTSUPP));
        assert_eq!(p.rereg_mr(n(), 0, n(), n(), 0, 0), Err(Errno::EOPNOTSUPP));
    }
    let mut ops: ibv_context_ops = unsafe { MaybeUninit::zeroed().assume_init() };
    p.data_path().install(&mut ops);
    assert_eq!(unsafe { ops.bind_mw.unwrap()(n(), n(), n()) }, Errno::EOPNOTSUPP.0);
}

#[test]
fn get_context_asks_for_the_alloc_ctx_response() {
    // ioctl: UHW_OUT of sizeof(siw_uresp_alloc_ctx).
    let devnull = std::fs::File::open("/dev/null").unwrap().into_raw_fd();
    let f = Fake::with_driver_id(RDMA_DRIVER_SIW);
    f.reply(Reply::ioctl().out(UVERBS_ATTR_UHW_OUT, &[1, 0, 0, 0, 0, 0, 0, 0]));
    f.reply(
        Reply::ioctl()
            .new_obj(rdma_common::uapi::ib_user_ioctl_cmds::UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, devnull as u64),
    );
    get_context_on(&f).unwrap();
    let b = f.ioctl(0);
    let h = size_of::<ib_uverbs_ioctl_hdr>();
    let n = u16_at(&b, 6) as usize;
    let uhw: Vec<_> = (0..n).map(|i| h + i * 16).filter(|&a| u16_at(&b, a) as u32 == UVERBS_ATTR_UHW_OUT).collect();
    assert_eq!(uhw.len(), 1);
    assert_eq!(u16_at(&b, uhw[0] + 2), 8, "siw_alloc_ucontext refuses outlen < 8");
    // write fallback: 4 words out (ib_uverbs_get_context_resp + siw_uresp_alloc_ctx).
    let devnull = std::fs::File::open("/dev/null").unwrap().into_raw_fd();
    let f = Fake::with_driver_id(RDMA_DRIVER_SIW);
    f.reply(Reply::fail(Errno(libc::ENOTTY)));
    let mut resp = ib_uverbs_get_context_resp::zeroed();
    resp.async_fd = devnull as u32;
    f.reply(Reply::write(&cat(resp.as_bytes(), &[9, 0, 0, 0, 0, 0, 0, 0])));
    get_context_on(&f).unwrap();
    assert_eq!(hdr(&f.write(0)), (IB_USER_VERBS_CMD_GET_CONTEXT, 4, 4));
}

#[test]
fn reg_mr_carries_siw_ureq_reg_mr() {
    let f = Fake::new();
    let mut resp = ib_uverbs_reg_mr_resp::zeroed();
    resp.mr_handle = 5;
    resp.lkey = 0x1234_5600;
    resp.rkey = 0x1234_5600;
    let mut uresp = siw_uresp_reg_mr::zeroed();
    uresp.stag = 0x1234_5600;
    f.reply(Reply::write(&cat(resp.as_bytes(), uresp.as_bytes())));
    let pd = zeroed::<ibv_pd>();
    let mr = zeroed::<ibv_mr>();
    let buf = [0u8; 64];
    unsafe { reg_mr_on(&f, pd, mr, buf.as_ptr() as *mut _, 64, buf.as_ptr() as u64, 1).unwrap() };
    let w = f.write(0);
    assert_eq!(size_of::<ib_uverbs_reg_mr>(), 40);
    assert_eq!(hdr(&w), (IB_USER_VERBS_CMD_REG_MR, (8 + 40 + 8) / 4, (12 + 8) / 4));
    assert_eq!(&w[48..56], &[0u8; 8], "stag_key 0, reserved, pad");
    assert_eq!(unsafe { ((*mr).handle, (*mr).lkey, (*mr).rkey) }, (5, 0x1234_5600, 0x1234_5600));
}

fn cq_attr() -> ibv_cq_init_attr_ex {
    ibv_cq_init_attr_ex {
        cqe: 5,
        cq_context: null_mut(),
        channel: null_mut(),
        comp_vector: 0,
        wc_flags: 0,
        comp_mask: 0,
        flags: 0,
        parent_domain: null_mut(),
    }
}

#[test]
fn create_cq_maps_cqes_and_notification_word() {
    let mem = memfd(3);
    // Garbage where the notification word will be: creation resets it to "not armed", as rdma-core does.
    let junk = 0xffu32.to_ne_bytes();
    assert_eq!(unsafe { libc::pwrite(mem.as_raw_fd(), junk.as_ptr().cast(), 4, 4096 + 8 * 32) }, 4);
    let f = Fake::new();
    let mut core = ib_uverbs_create_cq_resp::zeroed();
    core.cq_handle = 3;
    core.cqe = 8;
    let mut u = siw_uresp_create_cq::zeroed();
    u.cq_id = 77;
    u.num_cqe = 8;
    u.cq_key = 4096;
    f.reply(Reply::write(&cat(core.as_bytes(), u.as_bytes())));
    let (ctx, cq) = (zeroed::<ibv_context>(), zeroed::<ibv_cq>());
    let mut attr = cq_attr();
    let st = unsafe { create_cq_on(&f, mem.as_fd(), ctx, cq, &mut attr).unwrap() };
    assert_eq!(hdr(&f.write(0)), (IB_USER_VERBS_CMD_CREATE_CQ, (8 + 32) / 4, (8 + 16) / 4));
    assert_eq!(unsafe { ((*cq).handle, (*cq).cqe) }, (3, 8));
    assert_eq!((st.cq_id, st.queue.num_slots()), (77, 8));
    assert_eq!(pread_u32(&mem, 4096 + 256), SIW_NOTIFY_NOT);
    st.queue.arm(SIW_NOTIFY_SOLICITED);
    assert_eq!(pread_u32(&mem, 4096 + 256), SIW_NOTIFY_SOLICITED, "the word is shared with the 'kernel'");

    // An invalid key: the CQ is destroyed again.
    u.cq_key = SIW_INVAL_UOBJ_KEY as u64;
    f.reply(Reply::write(&cat(core.as_bytes(), u.as_bytes())));
    f.reply(Reply::ioctl().out(UVERBS_ATTR_DESTROY_CQ_RESP, ib_uverbs_destroy_cq_resp::zeroed().as_bytes()));
    assert_eq!(unsafe { create_cq_on(&f, mem.as_fd(), ctx, cq, &mut attr).unwrap_err() }, Errno::ENOMEM);
    assert_eq!(destroy_method(&f), (UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY));
    // A CQE count that is not a power of two cannot be addressed with free-running counters.
    u.cq_key = 4096;
    u.num_cqe = 6;
    f.reply(Reply::write(&cat(core.as_bytes(), u.as_bytes())));
    f.reply(Reply::ioctl().out(UVERBS_ATTR_DESTROY_CQ_RESP, ib_uverbs_destroy_cq_resp::zeroed().as_bytes()));
    assert_eq!(unsafe { create_cq_on(&f, mem.as_fd(), ctx, cq, &mut attr).unwrap_err() }, Errno::EINVAL);
    assert_eq!(destroy_method(&f), (UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY));
}

/// The (object, method) of the last ioctl: a destroy goes through the ioctl method, as rdma-core's.
fn destroy_method(f: &Fake) -> (u32, u32) {
    let b = f.last_ioctl();
    (u16::from_ne_bytes([b[2], b[3]]) as u32, u16::from_ne_bytes([b[4], b[5]]) as u32)
}

fn qp_attr(srq: *mut ibv_srq, sig_all: bool) -> *mut ibv_qp_init_attr_ex {
    let a = zeroed::<ibv_qp_init_attr_ex>();
    unsafe {
        rdma_common::ffi::enum_store(std::ptr::addr_of_mut!((*a).qp_type), IBV_QPT_RC);
        (*a).comp_mask = IBV_QP_INIT_ATTR_PD;
        (*a).pd = zeroed::<ibv_pd>();
        (*a).send_cq = zeroed::<ibv_cq>();
        (*a).recv_cq = zeroed::<ibv_cq>();
        (*a).srq = srq;
        (*a).sq_sig_all = sig_all as i32;
        (*a).cap.max_send_wr = 3;
        (*a).cap.max_recv_wr = 5;
    }
    a
}

#[test]
fn create_qp_maps_sq_and_rq() {
    let mem = memfd(3);
    let f = Fake::new();
    let mut core = ib_uverbs_create_qp_resp::zeroed();
    core.qp_handle = 4;
    core.qpn = 0x11;
    core.max_send_wr = 3;
    let mut u = siw_uresp_create_qp::zeroed();
    u.qp_id = 0x11;
    u.num_sqe = 4;
    u.num_rqe = 8;
    u.sq_key = 0;
    u.rq_key = 4096;
    f.reply(Reply::write(&cat(core.as_bytes(), u.as_bytes())));
    let (ctx, qp) = (zeroed::<ibv_context>(), zeroed::<ibv_qp>());
    let attr = qp_attr(null_mut(), true);
    let st = unsafe { create_qp_on(&f, mem.as_fd(), ctx, qp, attr).unwrap() };
    assert_eq!(size_of::<ib_uverbs_create_qp_resp>(), 32);
    assert_eq!(hdr(&f.write(0)).2, (32 + 32) / 4);
    assert_eq!(unsafe { ((*qp).handle, (*qp).qp_num, (*attr).cap.max_send_wr) }, (4, 0x11, 3));
    assert_eq!((st.qp_id, st.sq_sig_all), (0x11, true));
    assert_eq!(st.sq.lock().queue.num_slots(), 4);
    assert_eq!(st.rq.lock().as_ref().unwrap().queue.num_slots(), 8);

    // With an SRQ: no RQ of its own (the kernel registers none).
    let mut u2 = u;
    u2.num_rqe = 0;
    u2.rq_key = 0;
    f.reply(Reply::write(&cat(core.as_bytes(), u2.as_bytes())));
    let st = unsafe { create_qp_on(&f, mem.as_fd(), ctx, qp, qp_attr(zeroed::<ibv_srq>(), false)).unwrap() };
    assert!(st.rq.lock().is_none());
    // Without receive queue (max_recv_wr 0): the same, where rdma-core would map 0 bytes and fail.
    f.reply(Reply::write(&cat(core.as_bytes(), u2.as_bytes())));
    let st = unsafe { create_qp_on(&f, mem.as_fd(), ctx, qp, qp_attr(null_mut(), false)).unwrap() };
    assert!(st.rq.lock().is_none());

    // An invalid RQ key: the QP is destroyed again.
    u.rq_key = SIW_INVAL_UOBJ_KEY as u64;
    f.reply(Reply::write(&cat(core.as_bytes(), u.as_bytes())));
    f.reply(Reply::ioctl().out(UVERBS_ATTR_DESTROY_QP_RESP, ib_uverbs_destroy_qp_resp::zeroed().as_bytes()));
    assert_eq!(unsafe { create_qp_on(&f, mem.as_fd(), ctx, qp, attr).unwrap_err() }, Errno::ENOMEM);
    assert_eq!(destroy_method(&f), (UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY));
}

#[test]
fn create_srq_maps_its_rqes() {
    let mem = memfd(2);
    let f = Fake::new();
    let mut core = ib_uverbs_create_srq_resp::zeroed();
    core.srq_handle = 6;
    core.max_wr = 16;
    let mut u = siw_uresp_create_srq::zeroed();
    u.num_rqe = 16;
    u.srq_key = 4096;
    f.reply(Reply::write(&cat(core.as_bytes(), u.as_bytes())));
    let (ctx, srq) = (zeroed::<ibv_context>(), zeroed::<ibv_srq>());
    let attr = zeroed::<ibv_srq_init_attr_ex>();
    unsafe {
        (*attr).pd = zeroed::<ibv_pd>();
        (*attr).attr.max_wr = 10;
    }
    let st = unsafe { create_srq_on(&f, mem.as_fd(), ctx, srq, attr).unwrap() };
    assert_eq!(hdr(&f.write(0)).2, (16 + 16) / 4);
    assert_eq!(unsafe { (*srq).handle }, 6);
    assert_eq!(st.rq.lock().queue.num_slots(), 16);
    u.srq_key = SIW_INVAL_UOBJ_KEY as u64;
    f.reply(Reply::write(&cat(core.as_bytes(), u.as_bytes())));
    f.reply(Reply::write(ib_uverbs_destroy_srq_resp::zeroed().as_bytes()));
    assert_eq!(unsafe { create_srq_on(&f, mem.as_fd(), ctx, srq, attr).unwrap_err() }, Errno::ENOMEM);
    assert_eq!(hdr(&f.write(2)).0, IB_USER_VERBS_CMD_DESTROY_SRQ);
}
