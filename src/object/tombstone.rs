//! Tombstones: destroyed CQs, QPs and SRQs of a native provider, kept harmless for a while.
//!
//! `ibv_post_send(3)`, `ibv_post_recv(3)`, `ibv_post_srq_recv(3)`, `ibv_poll_cq(3)`, `ibv_req_notify_cq(3)`, the
//! `ibv_wr_*` calls and the `ibv_start_poll` family are inlines in `verbs.h`: the application reads the object's
//! `context->ops` (or the function pointers of an `ibv_qp_ex` / `ibv_cq_ex`) and jumps before any code of ours
//! runs, so a registry check cannot protect them. rdma-core frees the object at destroy, and a later post or poll
//! on the stale pointer reads freed memory (a crash, or worse, a post into a recycled object).
//!
//! Here the destroy keeps the object's memory instead: the provider state is dropped (the rings are unmapped), the
//! public struct's `context` is pointed at a static tombstone context whose data-path ops answer `EINVAL` (and log
//! why), and every function pointer of an `ibv_qp_ex` / `ibv_cq_ex` at a tombstone of the same signature. The
//! memory joins a bounded quarantine ([`QUARANTINE`] objects, oldest freed first). While it is there its address
//! cannot be handed out again, so every checked verb on the stale pointer is `EINVAL` too (the registry no longer
//! lists it) and no post can land in a newer object. After it leaves, misuse is undefined again, as in rdma-core.
//!
//! Plug-in providers' objects are theirs to free: no tombstone (docs/reliability guarantees say so).
#![allow(unsafe_code)]

use crate::provider::verbs::*;
use parking_lot::Mutex;
use rdma_common::Errno;
use std::alloc::Layout;
use std::collections::VecDeque;
use std::ffi::{c_int, c_uint, c_void};
use std::ptr::{addr_of_mut, null_mut};

/// How many destroyed objects stay as tombstones (about 35 KiB at most: a QP is the largest, ~550 bytes).
pub const QUARANTINE: usize = 64;

static BURIED: Mutex<VecDeque<(usize, Layout)>> = Mutex::new(VecDeque::new());

/// The context every tombstone points to: only the data-path ops are set; `abi_compat` is not the extended
/// marker, so `verbs_get_ctx_op()` in an inline sees no extended op (and answers as for a missing one).
struct TombContext(ibv_context);
// SAFETY: never written after construction; C only reads it.
unsafe impl Sync for TombContext {}

static TOMB_CTX: TombContext = TombContext(tomb_context());

const fn tomb_context() -> ibv_context {
    // SAFETY: a C struct of pointers, integers, optional function pointers and a pthread mutex, for all of which
    // zero bytes are a valid (NULL / 0 / None / PTHREAD_MUTEX_INITIALIZER) value.
    let mut c: ibv_context = unsafe { std::mem::zeroed() };
    c.cmd_fd = -1;
    c.async_fd = -1;
    c.ops.post_send = Some(tomb_post_send);
    c.ops.post_recv = Some(tomb_post_recv);
    c.ops.post_srq_recv = Some(tomb_post_srq_recv);
    c.ops.poll_cq = Some(tomb_poll_cq);
    c.ops.req_notify_cq = Some(tomb_req_notify_cq);
    c
}

/// Turns a destroyed CQ into a tombstone (its provider state already destroyed in the kernel, its events acked).
///
/// # Safety
/// `cq` is our `Cq`, out of the registry, not used by any other thread; it is never freed by the caller.
pub unsafe fn bury_cq(cq: *mut super::Cq) {
    // SAFETY: caller's contract: the provider state is dropped once, here; the rest is plain C data.
    unsafe {
        std::ptr::drop_in_place(addr_of_mut!((*cq).prov));
        let c = addr_of_mut!((*cq).cq_ex);
        (*c).context = std::ptr::from_ref(&TOMB_CTX.0).cast_mut();
        (*c).channel = null_mut();
        (*c).start_poll = Some(tomb_start_poll);
        (*c).next_poll = Some(tomb_next_poll);
        (*c).end_poll = Some(tomb_end_poll);
        (*c).read_opcode = Some(tomb_read_opcode);
        (*c).read_vendor_err = Some(tomb_read_u32);
        (*c).read_byte_len = Some(tomb_read_u32);
        (*c).read_imm_data = Some(tomb_read_u32);
        (*c).read_qp_num = Some(tomb_read_u32);
        (*c).read_src_qp = Some(tomb_read_u32);
        (*c).read_wc_flags = Some(tomb_read_uint);
        (*c).read_slid = Some(tomb_read_u32);
        (*c).read_sl = Some(tomb_read_u8);
        (*c).read_dlid_path_bits = Some(tomb_read_u8);
        (*c).read_completion_ts = Some(tomb_read_u64);
        (*c).read_cvlan = Some(tomb_read_u16);
        (*c).read_flow_tag = Some(tomb_read_u32);
        (*c).read_tm_info = Some(tomb_read_tm_info);
        (*c).read_completion_wallclock_ns = Some(tomb_read_u64);
        bury(cq.cast(), Layout::new::<super::Cq>());
    }
}

/// Turns a destroyed QP into a tombstone.
///
/// # Safety
/// As [`bury_cq`], for our `Qp`.
pub unsafe fn bury_qp(qp: *mut super::Qp) {
    // SAFETY: caller's contract.
    unsafe {
        std::ptr::drop_in_place(addr_of_mut!((*qp).prov));
        let x = addr_of_mut!((*qp).qp_ex);
        (*x).qp_base.context = std::ptr::from_ref(&TOMB_CTX.0).cast_mut();
        (*x).wr_atomic_cmp_swp = Some(tomb_wr_atomic_cmp_swp);
        (*x).wr_atomic_fetch_add = Some(tomb_wr_u32_u64_u64);
        (*x).wr_bind_mw = Some(tomb_wr_bind_mw);
        (*x).wr_local_inv = Some(tomb_wr_u32);
        (*x).wr_rdma_read = Some(tomb_wr_u32_u64);
        (*x).wr_rdma_write = Some(tomb_wr_u32_u64);
        (*x).wr_rdma_write_imm = Some(tomb_wr_u32_u64_u32);
        (*x).wr_send = Some(tomb_wr);
        (*x).wr_send_imm = Some(tomb_wr_u32);
        (*x).wr_send_inv = Some(tomb_wr_u32);
        (*x).wr_send_tso = Some(tomb_wr_send_tso);
        (*x).wr_set_ud_addr = Some(tomb_wr_set_ud_addr);
        (*x).wr_set_xrc_srqn = Some(tomb_wr_u32);
        (*x).wr_set_inline_data = Some(tomb_wr_set_inline_data);
        (*x).wr_set_inline_data_list = Some(tomb_wr_set_inline_data_list);
        (*x).wr_set_sge = Some(tomb_wr_set_sge);
        (*x).wr_set_sge_list = Some(tomb_wr_set_sge_list);
        (*x).wr_start = Some(tomb_wr);
        (*x).wr_complete = Some(tomb_wr_complete);
        (*x).wr_abort = Some(tomb_wr);
        (*x).wr_atomic_write = Some(tomb_wr_atomic_write);
        (*x).wr_flush = Some(tomb_wr_flush);
        bury(qp.cast(), Layout::new::<super::Qp>());
    }
}

/// Turns a destroyed SRQ into a tombstone.
///
/// # Safety
/// As [`bury_cq`], for our `Srq`.
pub unsafe fn bury_srq(srq: *mut super::Srq) {
    // SAFETY: caller's contract.
    unsafe {
        std::ptr::drop_in_place(addr_of_mut!((*srq).prov));
        (*srq).srq.context = std::ptr::from_ref(&TOMB_CTX.0).cast_mut();
        bury(srq.cast(), Layout::new::<super::Srq>());
    }
}

/// Adds `p` to the quarantine, freeing the oldest tombstone when it is full.
///
/// # Safety
/// `p` was allocated by the global allocator with `layout`, and nothing in it needs dropping any more.
unsafe fn bury(p: *mut u8, layout: Layout) {
    let oldest = {
        let mut q = BURIED.lock();
        q.push_back((p as usize, layout));
        if q.len() > QUARANTINE {
            q.pop_front()
        } else {
            None
        }
    };
    if let Some((addr, layout)) = oldest {
        // SAFETY: the function's contract, when that one was buried.
        unsafe { std::alloc::dealloc(addr as *mut u8, layout) };
    }
}

/// Whether `p` is a tombstone still in the quarantine (for the unit tests and diagnostics).
pub fn is_buried<T>(p: *const T) -> bool {
    BURIED.lock().iter().any(|&(a, _)| a == p as usize)
}

#[cold]
fn refused(what: &str, obj: &str, num: u32) {
    log::warn!("{what}: the {obj} (number {num:#x}) was destroyed: EINVAL");
}

unsafe extern "C" fn tomb_post_send(qp: *mut ibv_qp, wr: *mut ibv_send_wr, bad_wr: *mut *mut ibv_send_wr) -> c_int {
    // SAFETY: `qp` is a tombstone (this function is only reachable through one); `bad_wr` is the caller's.
    unsafe {
        refused("ibv_post_send", "QP", (*qp).qp_num);
        if !bad_wr.is_null() {
            *bad_wr = wr;
        }
    }
    Errno::EINVAL.0
}

unsafe extern "C" fn tomb_post_recv(qp: *mut ibv_qp, wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr) -> c_int {
    // SAFETY: as in `tomb_post_send`.
    unsafe {
        refused("ibv_post_recv", "QP", (*qp).qp_num);
        if !bad_wr.is_null() {
            *bad_wr = wr;
        }
    }
    Errno::EINVAL.0
}

unsafe extern "C" fn tomb_post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: as in `tomb_post_send`.
    unsafe {
        refused("ibv_post_srq_recv", "SRQ", (*srq).handle);
        if !bad_wr.is_null() {
            *bad_wr = wr;
        }
    }
    Errno::EINVAL.0
}

unsafe extern "C" fn tomb_poll_cq(cq: *mut ibv_cq, _n: c_int, _wc: *mut ibv_wc) -> c_int {
    // SAFETY: a tombstone.
    refused("ibv_poll_cq", "CQ", unsafe { (*cq).handle });
    -Errno::EINVAL.0
}

unsafe extern "C" fn tomb_req_notify_cq(cq: *mut ibv_cq, _solicited_only: c_int) -> c_int {
    // SAFETY: a tombstone.
    refused("ibv_req_notify_cq", "CQ", unsafe { (*cq).handle });
    Errno::EINVAL.0
}

unsafe extern "C" fn tomb_start_poll(cq: *mut ibv_cq_ex, _attr: *mut ibv_poll_cq_attr) -> c_int {
    // SAFETY: a tombstone.
    refused("ibv_start_poll", "CQ", unsafe { (*cq).handle });
    Errno::EINVAL.0
}

unsafe extern "C" fn tomb_next_poll(cq: *mut ibv_cq_ex) -> c_int {
    // SAFETY: a tombstone.
    refused("ibv_next_poll", "CQ", unsafe { (*cq).handle });
    Errno::EINVAL.0
}

unsafe extern "C" fn tomb_end_poll(_cq: *mut ibv_cq_ex) {}
unsafe extern "C" fn tomb_read_opcode(_cq: *mut ibv_cq_ex) -> ibv_wc_opcode {
    ibv_wc_opcode::IBV_WC_SEND
}
unsafe extern "C" fn tomb_read_u8(_cq: *mut ibv_cq_ex) -> u8 {
    0
}
unsafe extern "C" fn tomb_read_u16(_cq: *mut ibv_cq_ex) -> u16 {
    0
}
unsafe extern "C" fn tomb_read_u32(_cq: *mut ibv_cq_ex) -> u32 {
    0
}
unsafe extern "C" fn tomb_read_uint(_cq: *mut ibv_cq_ex) -> c_uint {
    0
}
unsafe extern "C" fn tomb_read_u64(_cq: *mut ibv_cq_ex) -> u64 {
    0
}
unsafe extern "C" fn tomb_read_tm_info(_cq: *mut ibv_cq_ex, _tm: *mut ibv_wc_tm_info) {}

// The ibv_wr_* builders do nothing on a tombstone; `ibv_wr_complete` reports the error.
unsafe extern "C" fn tomb_wr(_qp: *mut ibv_qp_ex) {}
unsafe extern "C" fn tomb_wr_u32(_qp: *mut ibv_qp_ex, _a: u32) {}
unsafe extern "C" fn tomb_wr_u32_u64(_qp: *mut ibv_qp_ex, _a: u32, _b: u64) {}
unsafe extern "C" fn tomb_wr_u32_u64_u32(_qp: *mut ibv_qp_ex, _a: u32, _b: u64, _c: u32) {}
unsafe extern "C" fn tomb_wr_u32_u64_u64(_qp: *mut ibv_qp_ex, _a: u32, _b: u64, _c: u64) {}
unsafe extern "C" fn tomb_wr_atomic_cmp_swp(_qp: *mut ibv_qp_ex, _a: u32, _b: u64, _c: u64, _d: u64) {}
unsafe extern "C" fn tomb_wr_atomic_write(_qp: *mut ibv_qp_ex, _a: u32, _b: u64, _c: *const c_void) {}
unsafe extern "C" fn tomb_wr_flush(_qp: *mut ibv_qp_ex, _a: u32, _b: u64, _c: usize, _d: u8, _e: u8) {}
unsafe extern "C" fn tomb_wr_bind_mw(_qp: *mut ibv_qp_ex, _mw: *mut ibv_mw, _rkey: u32, _b: *const ibv_mw_bind_info) {}
unsafe extern "C" fn tomb_wr_send_tso(_qp: *mut ibv_qp_ex, _hdr: *mut c_void, _sz: u16, _mss: u16) {}
unsafe extern "C" fn tomb_wr_set_ud_addr(_qp: *mut ibv_qp_ex, _ah: *mut ibv_ah, _qpn: u32, _qkey: u32) {}
unsafe extern "C" fn tomb_wr_set_inline_data(_qp: *mut ibv_qp_ex, _addr: *mut c_void, _len: usize) {}
unsafe extern "C" fn tomb_wr_set_inline_data_list(_qp: *mut ibv_qp_ex, _n: usize, _l: *const ibv_data_buf) {}
unsafe extern "C" fn tomb_wr_set_sge(_qp: *mut ibv_qp_ex, _lkey: u32, _addr: u64, _len: u32) {}
unsafe extern "C" fn tomb_wr_set_sge_list(_qp: *mut ibv_qp_ex, _n: usize, _l: *const ibv_sge) {}

unsafe extern "C" fn tomb_wr_complete(qp: *mut ibv_qp_ex) -> c_int {
    // SAFETY: a tombstone.
    refused("ibv_wr_complete", "QP", unsafe { (*qp).qp_base.qp_num });
    Errno::EINVAL.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarantine_is_bounded_and_first_in_first_out() {
        let layout = Layout::new::<[u64; 4]>();
        let ptrs: Vec<*mut u8> = (0..=QUARANTINE).map(|_| Box::into_raw(Box::new([0u64; 4])).cast::<u8>()).collect();
        for &p in &ptrs {
            // SAFETY: a Box of `layout`, plain data.
            unsafe { bury(p, layout) };
        }
        assert!(!is_buried(ptrs[0]), "the oldest left (and was freed) when one more came");
        assert!(ptrs[1..].iter().all(|&p| is_buried(p)));
    }

    #[test]
    fn the_tombstone_context_answers_einval() {
        use std::mem::MaybeUninit;
        let ops = &TOMB_CTX.0.ops;
        // Zeroed C structs used only through raw pointers (some hold Rust enums, for which zero is no value); the
        // tombstone ops read only `qp_num` / `handle` and write `bad`.
        let mut q = MaybeUninit::<ibv_qp>::zeroed();
        let mut wr = MaybeUninit::<ibv_send_wr>::zeroed();
        let mut cq = MaybeUninit::<ibv_cq>::zeroed();
        let mut bad: *mut ibv_send_wr = null_mut();
        // SAFETY: see above.
        unsafe {
            addr_of_mut!((*q.as_mut_ptr()).qp_num).write(0x42);
            assert_eq!(ops.post_send.unwrap()(q.as_mut_ptr(), wr.as_mut_ptr(), &mut bad), libc::EINVAL);
            assert_eq!(bad, wr.as_mut_ptr());
            assert_eq!(ops.poll_cq.unwrap()(cq.as_mut_ptr(), 1, null_mut()), -libc::EINVAL);
            assert_eq!(ops.req_notify_cq.unwrap()(cq.as_mut_ptr(), 0), libc::EINVAL);
        }
        assert!(TOMB_CTX.0.abi_compat.is_null(), "not an extended context: inlines see no extended op");
    }
}
