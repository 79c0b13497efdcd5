//! Multicast: `rdma_join_multicast`, `rdma_join_multicast_ex`, `rdma_leave_multicast`.
#![allow(unsafe_code)] // #[no_mangle] C entry points
#![allow(unused_variables)] // stubs: parameters keep their C names until implemented

use crate::unsupported;
use libc::sockaddr;
use rdma_common::abi::rdma_cma::{rdma_cm_id, rdma_cm_join_mc_attr_ex};
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::{c_int, c_void};

/// `rdma_join_multicast(3)`: joins the multicast group `addr` as a full member and attaches the id's QP to it; `id`
/// must be bound to a device. Completion is reported by `RDMA_CM_EVENT_MULTICAST_JOIN` (or `_MULTICAST_ERROR`),
/// whose `param.ud.private_data` is `context`. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_join_multicast(id: *mut rdma_cm_id, addr: *mut sockaddr, context: *mut c_void) -> c_int {
    ffi::boundary("rdma_join_multicast", || -> Result<c_int> {
        Err(unsupported("rdma_join_multicast"))
    })
    .or_minus_one_errno()
}

/// `rdma_join_multicast_ex(3)`: as `rdma_join_multicast`, with the group address and join flags
/// (`RDMA_MC_JOIN_FLAG_FULLMEMBER`, `_SENDONLY_FULLMEMBER`) of `mc_join_attr`. Returns 0, or -1 with `errno`
/// (`EINVAL` for unknown `comp_mask` bits or flags).
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_join_multicast_ex(
    id: *mut rdma_cm_id,
    mc_join_attr: *mut rdma_cm_join_mc_attr_ex,
    context: *mut c_void,
) -> c_int {
    ffi::boundary("rdma_join_multicast_ex", || -> Result<c_int> {
        Err(unsupported("rdma_join_multicast_ex"))
    })
    .or_minus_one_errno()
}

/// `rdma_leave_multicast(3)`: leaves the multicast group `addr` (cancelling a join in progress) and detaches the
/// id's QP from it. Returns 0, or -1 with `errno` (`EADDRNOTAVAIL` when `id` did not join `addr`).
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_leave_multicast(id: *mut rdma_cm_id, addr: *mut sockaddr) -> c_int {
    ffi::boundary("rdma_leave_multicast", || -> Result<c_int> {
        Err(unsupported("rdma_leave_multicast"))
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma;
    rdma_join_multicast, rdma_join_multicast_ex, rdma_leave_multicast);
