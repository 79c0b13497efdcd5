//! Multicast: `rdma_join_multicast`, `rdma_join_multicast_ex`, `rdma_leave_multicast`.
#![allow(unsafe_code)] // #[no_mangle] C entry points

use super::event::{complete, sync_entry};
use super::{addr_bytes, addrlen};
use crate::kernel;
use crate::state::{self, CmId, Mc};
use libc::sockaddr;
use parking_lot::Mutex;
use rdma_common::abi::rdma_cma::rdma_cm_join_mc_attr_mask::*;
use rdma_common::abi::rdma_cma::rdma_cm_mc_join_flags::*;
use rdma_common::abi::rdma_cma::{rdma_cm_id, rdma_cm_join_mc_attr_ex};
use rdma_common::abi::verbs::{ibv_detach_mcast, ibv_gid};
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi::{self, CResult};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// `rdma_join_multicast(3)`: joins the multicast group `addr` as a full member; `id` must be bound to a device
/// (`rdma_bind_addr` or `rdma_resolve_addr`). Completion is reported by `RDMA_CM_EVENT_MULTICAST_JOIN` (or
/// `_MULTICAST_ERROR`), whose `param.ud` holds the group's address handle attributes, QPN and Q_Key and whose
/// `param.ud.private_data` is `context`; at that event the id's QP (if any) is attached to the group. Returns 0, or
/// -1 with `errno` (`EINVAL` for a bad id or address, the kernel's `ENODEV`, ...).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn rdma_join_multicast(
    id: *mut rdma_cm_id,
    addr: *mut sockaddr,
    context: *mut c_void,
) -> c_int {
    sync_entry("rdma_join_multicast", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        // SAFETY: a non-NULL address is readable for its family's size (the C contract).
        let len = unsafe { addrlen(addr) };
        if len == 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: as above.
        join(&id, unsafe { addr_bytes(addr, len) }, RDMA_MC_JOIN_FLAG_FULLMEMBER as u16, context)?;
        Ok(0)
    })
}

/// `rdma_join_multicast_ex(3)`: as `rdma_join_multicast`, with the group address and join flags
/// (`RDMA_MC_JOIN_FLAG_FULLMEMBER`, `_SENDONLY_FULLMEMBER`: not attached) of `mc_join_attr`. Returns 0, or -1 with
/// `errno` (`EOPNOTSUPP` for unknown `comp_mask` bits; `EINVAL` without address or flags, for unknown flags).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn rdma_join_multicast_ex(
    id: *mut rdma_cm_id,
    mc_join_attr: *mut rdma_cm_join_mc_attr_ex,
    context: *mut c_void,
) -> c_int {
    sync_entry("rdma_join_multicast_ex", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        let a = ffi::nonnull(mc_join_attr)?.as_ptr();
        // SAFETY: a readable rdma_cm_join_mc_attr_ex (integers and a pointer).
        let (mask, flags, addr) = unsafe { ((*a).comp_mask, (*a).join_flags, (*a).addr) };
        if mask >= RDMA_CM_JOIN_MC_ATTR_RESERVED as u32 {
            return Err(Errno::EOPNOTSUPP);
        }
        if mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS as u32 == 0 {
            return Err(Errno::EINVAL);
        }
        if mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS as u32 == 0 || flags >= RDMA_MC_JOIN_FLAG_RESERVED as u32 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: as in rdma_join_multicast.
        let len = unsafe { addrlen(addr) };
        if len == 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: as above.
        join(&id, unsafe { addr_bytes(addr, len) }, flags as u16, context)?;
        Ok(0)
    })
}

/// `rdma_leave_multicast(3)`: leaves the multicast group `addr` (cancelling a join in progress), detaching the
/// id's QP from it, and waits until the group's reported events are acknowledged. Returns 0, or -1 with `errno`
/// (`EINVAL` for a bad id or address, `EADDRNOTAVAIL` when `id` did not join `addr`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_leave_multicast(id: *mut rdma_cm_id, addr: *mut sockaddr) -> c_int {
    ffi::boundary("rdma_leave_multicast", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        // SAFETY: as in rdma_join_multicast.
        let len = unsafe { addrlen(addr) };
        if len == 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: as above.
        leave(&id, unsafe { addr_bytes(addr, len) })?;
        Ok(0)
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma;
    rdma_join_multicast, rdma_join_multicast_ex, rdma_leave_multicast);

// ---------------------------------------------------------------------------------------------------------------
// The library side.

/// `rdma_join_multicast2` on a live id and a checked address.
fn join(id: &Arc<CmId>, addr: &[u8], join_flags: u16, context: *mut c_void) -> Result<()> {
    let mut stored = vec![0u8; std::mem::size_of::<libc::sockaddr_storage>()];
    stored[..addr.len()].copy_from_slice(addr);
    let mc = Arc::new(Mc {
        id: Arc::downgrade(id),
        context,
        join_flags,
        addr: stored,
        handle: AtomicU32::new(u32::MAX),
        events_completed: AtomicU32::new(0),
        grp: Mutex::new(([0; 16], 0)),
    });
    let uid = state::register_mc(&mc);
    id.st.lock().mcs.insert(0, mc.clone());
    let fd = id.channel();
    let r = if state::af_ib_support() {
        kernel::mcast::join_mcast(&fd.fd(), id.handle(), uid, addr, join_flags)
    } else {
        kernel::mcast::join_ip_mcast(&fd.fd(), id.handle(), uid, addr)
    };
    match r {
        Ok(h) => mc.handle.store(h, Ordering::Release),
        Err(e) => {
            id.st.lock().mcs.retain(|m| !Arc::ptr_eq(m, &mc));
            state::unregister_mc(&mc);
            return Err(e);
        }
    }
    complete(id)
}

/// `rdma_leave_multicast` on a live id and a checked address.
fn leave(id: &Arc<CmId>, addr: &[u8]) -> Result<()> {
    let mc = {
        let mut st = id.st.lock();
        let pos = st.mcs.iter().position(|m| m.addr[..addr.len()] == *addr).ok_or(Errno::EADDRNOTAVAIL)?;
        st.mcs.remove(pos)
    };
    let qp = id.qp();
    if !qp.is_null() && mc.join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER as u16 {
        let (mgid, mlid) = *mc.grp.lock();
        let gid = ibv_gid { raw: mgid };
        // SAFETY: the id's live QP; `gid` lives for the call. Failure (never attached) is ignored, as rdma-core.
        unsafe { ibv_detach_mcast(qp, &gid, mlid) };
    }
    let r = kernel::mcast::leave_mcast(&id.channel().fd(), mc.handle.load(Ordering::Acquire));
    let n = match r {
        Ok(n) => n,
        Err(e) => {
            state::unregister_mc(&mc);
            return Err(e);
        }
    };
    let mut st = id.st.lock();
    while mc.events_completed.load(Ordering::Acquire) < n {
        id.cond.wait(&mut st);
    }
    drop(st);
    state::unregister_mc(&mc);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::null_mut;

    #[test]
    fn bad_arguments() {
        // SAFETY: NULL and foreign pointers are rejected before any dereference.
        unsafe {
            let mut junk = [0u64; 64];
            let p = junk.as_mut_ptr().cast::<rdma_cm_id>();
            assert_eq!(rdma_join_multicast(p, null_mut(), null_mut()), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            assert_eq!(rdma_join_multicast_ex(p, null_mut(), null_mut()), -1);
            assert_eq!(rdma_leave_multicast(null_mut(), null_mut()), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
        }
    }
}
