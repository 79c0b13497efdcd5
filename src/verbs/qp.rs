//! Queue pairs (`ibv_create_qp(3)`, `ibv_modify_qp(3)`, `ibv_query_qp(3)`, `ibv_destroy_qp(3)`,
//! `ibv_qp_to_qp_ex(3)`, `ibv_query_qp_data_in_order(3)`, `ibv_set_ece(3)`, `ibv_query_ece(3)`). Posting goes
//! through the context's ops table (`ibv_post_send(3)`, `ibv_post_recv(3)` are inline). Not implemented yet:
//! each answers in its C convention as documented.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use std::ffi::{c_int, c_uint};

/// `ibv_create_qp(3)`: creates a queue pair on `pd`; `qp_init_attr->cap` gets the actual capacities.
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_qp(pd: *mut ibv_pd, qp_init_attr: *mut ibv_qp_init_attr) -> *mut ibv_qp {
    ffi::boundary("ibv_create_qp", || -> Result<*mut ibv_qp> {
        ffi::nonnull(pd)?;
        ffi::nonnull(qp_init_attr)?;
        Err(unsupported("ibv_create_qp"))
    })
    .or_null_errno()
}

/// `ibv_modify_qp(3)`: changes the attributes of a QP selected by `attr_mask` (`enum ibv_qp_attr_mask`),
/// typically moving it through RESET -> INIT -> RTR -> RTS.
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_modify_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int {
    let _ = attr_mask;
    ffi::boundary("ibv_modify_qp", || -> Result<()> {
        ffi::nonnull(qp)?;
        ffi::nonnull(attr)?;
        Err(unsupported("ibv_modify_qp"))
    })
    .ret_errno()
}

/// `ibv_query_qp(3)`: reads the attributes of a QP selected by `attr_mask` into `*attr`, and its creation
/// attributes into `*init_attr`.
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    init_attr: *mut ibv_qp_init_attr,
) -> c_int {
    let _ = attr_mask;
    ffi::boundary("ibv_query_qp", || -> Result<()> {
        ffi::nonnull(qp)?;
        ffi::nonnull(attr)?;
        ffi::nonnull(init_attr)?;
        Err(unsupported("ibv_query_qp"))
    })
    .ret_errno()
}

/// `ibv_destroy_qp(3)`: destroys a QP; waits until its asynchronous events were acknowledged.
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_qp(qp: *mut ibv_qp) -> c_int {
    ffi::boundary("ibv_destroy_qp", || -> Result<()> {
        ffi::nonnull(qp)?;
        Err(unsupported("ibv_destroy_qp"))
    })
    .ret_errno()
}

/// `ibv_qp_to_qp_ex(3)`: returns the extended view (`struct ibv_qp_ex`, for the `ibv_wr_*` builders) of a QP
/// created with `ibv_create_qp_ex(3)` and send-ops flags.
///
/// Returns NULL when the QP has none (rdma-core leaves `errno` alone then); here, not implemented yet: NULL with
/// `errno = EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_qp_to_qp_ex(qp: *mut ibv_qp) -> *mut ibv_qp_ex {
    ffi::boundary("ibv_qp_to_qp_ex", || -> Result<*mut ibv_qp_ex> {
        ffi::nonnull(qp)?;
        Err(unsupported("ibv_qp_to_qp_ex"))
    })
    .or_null_errno()
}

/// `ibv_query_qp_data_in_order(3)`: whether the data written by operation `op` (an `enum ibv_wr_opcode` value)
/// on `qp` reaches memory in order; `flags` must be 0.
///
/// Returns 1 when guaranteed, else 0, which is also rdma-core's answer when the provider cannot tell. Not
/// implemented yet: always 0, which is always a correct (conservative) answer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_qp_data_in_order(qp: *mut ibv_qp, op: c_uint, flags: u32) -> c_int {
    let _ = (qp, op, flags);
    0
}

/// `ibv_set_ece(3)`: sets the enhanced-connection-establishment options `qp` will offer.
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_set_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int {
    ffi::boundary("ibv_set_ece", || -> Result<()> {
        ffi::nonnull(qp)?;
        ffi::nonnull(ece)?;
        Err(unsupported("ibv_set_ece"))
    })
    .ret_errno()
}

/// `ibv_query_ece(3)`: reads the enhanced-connection-establishment options `qp` accepted into `*ece`.
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int {
    ffi::boundary("ibv_query_ece", || -> Result<()> {
        ffi::nonnull(qp)?;
        ffi::nonnull(ece)?;
        Err(unsupported("ibv_query_ece"))
    })
    .ret_errno()
}

crate::check_signatures!(rdma_common::abi::verbs;
    ibv_create_qp, ibv_modify_qp, ibv_query_qp, ibv_destroy_qp, ibv_qp_to_qp_ex, ibv_query_qp_data_in_order,
    ibv_set_ece, ibv_query_ece,
);
