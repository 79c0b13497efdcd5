//! Multicast group membership of UD QPs (`ibv_attach_mcast(3)`, `ibv_detach_mcast(3)`). Not implemented yet.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::c_int;

/// `ibv_attach_mcast(3)`: attaches the UD QP `qp` to the multicast group `gid` / `lid` (host order).
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    let _ = lid;
    ffi::boundary("ibv_attach_mcast", || -> Result<()> {
        ffi::nonnull(qp)?;
        ffi::nonnull_const(gid)?;
        Err(unsupported("ibv_attach_mcast"))
    })
    .ret_errno()
}

/// `ibv_detach_mcast(3)`: detaches the UD QP `qp` from the multicast group `gid` / `lid` (host order).
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    let _ = lid;
    ffi::boundary("ibv_detach_mcast", || -> Result<()> {
        ffi::nonnull(qp)?;
        ffi::nonnull_const(gid)?;
        Err(unsupported("ibv_detach_mcast"))
    })
    .ret_errno()
}

crate::check_signatures!(rdma_common::abi::verbs; ibv_attach_mcast, ibv_detach_mcast);
