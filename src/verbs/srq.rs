//! Shared receive queues (`ibv_create_srq(3)`, `ibv_modify_srq(3)`, `ibv_query_srq(3)`, `ibv_destroy_srq(3)`).
//! Posting goes through the context's ops table (`ibv_post_srq_recv(3)` is inline); extended SRQs through the
//! `verbs_context` ops. Not implemented yet: each answers `EOPNOTSUPP` in its C convention.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use std::ffi::c_int;

/// `ibv_create_srq(3)`: creates a shared receive queue on `pd` sized by `srq_init_attr->attr`, which gets the
/// actual sizes.
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_srq(pd: *mut ibv_pd, srq_init_attr: *mut ibv_srq_init_attr) -> *mut ibv_srq {
    ffi::boundary("ibv_create_srq", || -> Result<*mut ibv_srq> {
        ffi::nonnull(pd)?;
        ffi::nonnull(srq_init_attr)?;
        Err(unsupported("ibv_create_srq"))
    })
    .or_null_errno()
}

/// `ibv_modify_srq(3)`: resizes an SRQ (`IBV_SRQ_MAX_WR`) and/or arms its limit event (`IBV_SRQ_LIMIT`), as
/// `srq_attr_mask` selects.
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_modify_srq(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr, srq_attr_mask: c_int) -> c_int {
    let _ = srq_attr_mask;
    ffi::boundary("ibv_modify_srq", || -> Result<()> {
        ffi::nonnull(srq)?;
        ffi::nonnull(srq_attr)?;
        Err(unsupported("ibv_modify_srq"))
    })
    .ret_errno()
}

/// `ibv_query_srq(3)`: reads the attributes of an SRQ into `*srq_attr`.
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_srq(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr) -> c_int {
    ffi::boundary("ibv_query_srq", || -> Result<()> {
        ffi::nonnull(srq)?;
        ffi::nonnull(srq_attr)?;
        Err(unsupported("ibv_query_srq"))
    })
    .ret_errno()
}

/// `ibv_destroy_srq(3)`: destroys an SRQ; waits until its asynchronous events were acknowledged.
///
/// Returns 0, or an errno value (`EBUSY` while QPs use it). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_srq(srq: *mut ibv_srq) -> c_int {
    ffi::boundary("ibv_destroy_srq", || -> Result<()> {
        ffi::nonnull(srq)?;
        Err(unsupported("ibv_destroy_srq"))
    })
    .ret_errno()
}

crate::check_signatures!(rdma_common::abi::verbs; ibv_create_srq, ibv_modify_srq, ibv_query_srq, ibv_destroy_srq);
