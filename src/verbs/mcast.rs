//! Multicast group membership of UD QPs (`ibv_attach_mcast(3)`, `ibv_detach_mcast(3)`).
#![allow(unsafe_code)]

use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::c_int;

/// `ibv_attach_mcast(3)`: attaches the UD QP `qp` to the multicast group `gid` / `lid` (host order; on RoCE the
/// GID alone names the group).
///
/// Returns 0, or an errno value: `EINVAL` for NULL pointers, an invalid QP, a QP that is not UD or a GID that is
/// not multicast (the kernel's); `ENOMEM`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    ffi::boundary("ibv_attach_mcast", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (qp, ctx) = unsafe { super::qp(qp) }?;
        ffi::nonnull_const(gid)?;
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe { ctx.provider.attach_mcast(qp, gid, lid) }
    })
    .ret_errno()
}

/// `ibv_detach_mcast(3)`: detaches the UD QP `qp` from the multicast group `gid` / `lid` (host order).
///
/// Returns 0, or an errno value: `EINVAL` for NULL pointers, an invalid QP or a group it is not attached to (the
/// kernel's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    ffi::boundary("ibv_detach_mcast", || -> Result<()> {
        // SAFETY: entry-point contract.
        let (qp, ctx) = unsafe { super::qp(qp) }?;
        ffi::nonnull_const(gid)?;
        // SAFETY: the objects were checked live and of this context, the attribute pointers non-NULL.
        unsafe { ctx.provider.detach_mcast(qp, gid, lid) }
    })
    .ret_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs; ibv_attach_mcast, ibv_detach_mcast);
