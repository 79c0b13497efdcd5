//! The verbs plumbing both rsocket kinds stand on: page-aligned buffers (registered on a PD or not), an id's
//! completion channel and CQ, the data-path calls through the context's ops (`post_send`, `post_recv`, `poll_cq`,
//! `req_notify_cq`: `verbs.h` inlines in C), and the small conversions of librdmacm's and libc's return values.
//!
//! Stream rsockets (`stream`, `connect`) and datagram rsockets (`dgram`) both import from here; nothing here knows
//! either kind.
#![allow(unsafe_code)] // raw allocations, memory registration, verbs data-path calls through the context ops

use rdma_common::abi::rdma_cma::rdma_cm_id;
use rdma_common::abi::verbs::*;
use rdma_common::errno::{Errno, Result};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ffi::c_int;
use std::ptr::{addr_of_mut, null_mut};

/// The page size buffers are rounded to.
const PAGE: usize = 4096;

/// A zeroed, page-aligned allocation of whole pages (rdma-core allocates whole pages so that fork-safe
/// `MADV_DONTFORK` never covers foreign memory). Datagram rsockets register their send slots on each QP's PD
/// themselves; [`RegBuf`] is one registered on a single PD.
pub(super) struct Slab {
    pub ptr: *mut u8,
    layout: Layout,
}

impl Slab {
    /// `len` bytes (at least one page), zeroed. Errors: `ENOMEM`.
    pub(super) fn new(len: usize) -> Result<Slab> {
        let layout = Layout::from_size_align(len.max(1).div_ceil(PAGE) * PAGE, PAGE).map_err(|_| Errno::ENOMEM)?;
        // SAFETY: a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Errno::ENOMEM);
        }
        Ok(Slab { ptr, layout })
    }
}

impl Drop for Slab {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout; every MR on it was deregistered first (RegBuf's drop, Ds::free).
        unsafe { dealloc(self.ptr, self.layout) };
    }
}

/// A zeroed, page-aligned buffer registered on a PD.
pub(super) struct RegBuf {
    pub ptr: *mut u8,
    pub mr: *mut ibv_mr,
    /// The memory; dropped after `drop` deregistered `mr`.
    _buf: Slab,
}

impl RegBuf {
    /// `len` bytes registered on `pd` with `access` (`IBV_ACCESS_*`). Errors: `ENOMEM`, `ibv_reg_mr`'s errno.
    pub(super) fn new(pd: *mut ibv_pd, len: usize, access: c_int) -> Result<RegBuf> {
        let buf = Slab::new(len)?;
        // SAFETY: `pd` is the id's live PD; the buffer is ours and outlives the MR (deregistered in drop).
        let mr = unsafe { ibv_reg_mr(pd, buf.ptr.cast(), len, access) };
        if mr.is_null() {
            return Err(Errno::last());
        }
        Ok(RegBuf { ptr: buf.ptr, mr, _buf: buf })
    }

    /// `len` bytes that no PD knows (keys 0): the unit tests' and fuzz targets' stand-in for a registered buffer.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(super) fn unregistered(len: usize) -> Result<RegBuf> {
        let buf = Slab::new(len)?;
        Ok(RegBuf { ptr: buf.ptr, mr: null_mut(), _buf: buf })
    }

    /// The MR's local key.
    pub(super) fn lkey(&self) -> u32 {
        if self.mr.is_null() {
            return 0;
        }
        // SAFETY: `mr` is live while self is.
        unsafe { (*self.mr).lkey }
    }

    /// The MR's remote key.
    pub(super) fn rkey(&self) -> u32 {
        if self.mr.is_null() {
            return 0;
        }
        // SAFETY: as above.
        unsafe { (*self.mr).rkey }
    }

    /// The buffer's address, as the peer and the work requests name it.
    pub(super) fn addr(&self) -> u64 {
        self.ptr as u64
    }
}

impl Drop for RegBuf {
    fn drop(&mut self) {
        if self.mr.is_null() {
            return;
        }
        // SAFETY: the MR is ours; nothing uses it after this. The memory is freed after (the `_buf` field).
        unsafe { ibv_dereg_mr(self.mr) };
    }
}

/// -1-with-errno of a librdmacm call as a Result.
pub(super) fn cm_call(ret: c_int) -> Result<()> {
    if ret == 0 {
        Ok(())
    } else {
        Err(Errno::last())
    }
}

/// rdma-core's `rs_create_cq`: a non-blocking completion channel and one CQ of `cqe` entries on `ctx` (its context
/// `id`), stored in the id as its send and receive channel and CQ, which the id's QP destroy frees. Returns both.
/// Errors: `ibv_create_comp_channel`'s or `ibv_create_cq`'s (nothing is left behind then).
///
/// # Safety
/// `id` is a live cm id whose `verbs` is `ctx`, with no CQ yet.
pub(super) unsafe fn id_cq(
    id: *mut rdma_cm_id,
    ctx: *mut ibv_context,
    cqe: c_int,
) -> Result<(*mut ibv_comp_channel, *mut ibv_cq)> {
    // SAFETY: the caller's contract.
    unsafe {
        let ch = ibv_create_comp_channel(ctx);
        if ch.is_null() {
            return Err(Errno::last());
        }
        let cq = ibv_create_cq(ctx, cqe, id.cast(), ch, 0);
        if cq.is_null() {
            let e = Errno::last();
            ibv_destroy_comp_channel(ch);
            return Err(e);
        }
        set_nonblock((*ch).fd);
        addr_of_mut!((*id).recv_cq_channel).write(ch);
        addr_of_mut!((*id).send_cq_channel).write(ch);
        addr_of_mut!((*id).recv_cq).write(cq);
        addr_of_mut!((*id).send_cq).write(cq);
        Ok((ch, cq))
    }
}

/// Sets `O_NONBLOCK` on `fd` (failures leave it as it was).
pub(super) fn set_nonblock(fd: c_int) {
    // SAFETY: fcntl on a descriptor we own; failures leave it as it was.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl >= 0 {
            libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK);
        }
    }
}

/// A post's return value as a `Result` (any non-zero value is the error, as the provider gave it).
fn posted(r: c_int) -> Result<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(Errno(r))
    }
}

/// `ibv_post_send` (a `verbs.h` inline: the context's op); `ENOTCONN` for a NULL `qp` (an rsocket without its QP:
/// the unit tests' and fuzz targets' state).
///
/// # Safety
/// `qp` is NULL or a live QP; `wr` a valid work request list.
pub(super) unsafe fn post_send(qp: *mut ibv_qp, wr: *mut ibv_send_wr) -> Result<()> {
    if qp.is_null() {
        return Err(Errno::ENOTCONN);
    }
    let mut bad = null_mut();
    // SAFETY: the caller's contract; the ops table is filled by the provider.
    let r = unsafe {
        let ctx = (*qp).context;
        match (*ctx).ops.post_send {
            Some(f) => f(qp, wr, &mut bad),
            None => libc::EOPNOTSUPP,
        }
    };
    posted(r)
}

/// `ibv_post_recv`; `ENOTCONN` for a NULL `qp`.
///
/// # Safety
/// As [`post_send`].
pub(super) unsafe fn post_recv(qp: *mut ibv_qp, wr: *mut ibv_recv_wr) -> Result<()> {
    if qp.is_null() {
        return Err(Errno::ENOTCONN);
    }
    let mut bad = null_mut();
    // SAFETY: the caller's contract.
    let r = unsafe {
        let ctx = (*qp).context;
        match (*ctx).ops.post_recv {
            Some(f) => f(qp, wr, &mut bad),
            None => libc::EOPNOTSUPP,
        }
    };
    posted(r)
}

/// `ibv_poll_cq`: the number of completions, or a negative value.
///
/// # Safety
/// `cq` is live, `wc` has room for `n` entries.
pub(super) unsafe fn poll_cq(cq: *mut ibv_cq, n: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        let ctx = (*cq).context;
        match (*ctx).ops.poll_cq {
            Some(f) => f(cq, n, wc),
            None => -libc::EOPNOTSUPP,
        }
    }
}

/// `ibv_req_notify_cq(cq, 0)`.
///
/// # Safety
/// `cq` is live.
pub(super) unsafe fn req_notify(cq: *mut ibv_cq) -> Result<()> {
    // SAFETY: the caller's contract.
    let r = unsafe {
        let ctx = (*cq).context;
        match (*ctx).ops.req_notify_cq {
            Some(f) => f(cq, 0),
            None => libc::EOPNOTSUPP,
        }
    };
    posted(r)
}
