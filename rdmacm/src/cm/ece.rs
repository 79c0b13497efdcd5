//! Enhanced connection establishment (ECE) for ids whose QP the application manages: `rdma_set_local_ece`,
//! `rdma_get_remote_ece`, `rdma_reject_ece`.
#![allow(unsafe_code)] // #[no_mangle] C entry points
#![allow(unused_variables)] // stubs: parameters keep their C names until implemented

use crate::unsupported;
use rdma_common::abi::rdma_cma::rdma_cm_id;
use rdma_common::abi::verbs::ibv_ece;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::{c_int, c_void};

/// `rdma_set_local_ece(3)`: sets the ECE options (`*ece`, from `ibv_query_ece` on the external QP) that `id` sends
/// in its REQ or REP. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_set_local_ece(id: *mut rdma_cm_id, ece: *mut ibv_ece) -> c_int {
    ffi::boundary("rdma_set_local_ece", || -> Result<c_int> {
        Err(unsupported("rdma_set_local_ece"))
    })
    .or_minus_one_errno()
}

/// `rdma_get_remote_ece(3)`: stores in `*ece` the ECE options the peer sent in its REQ or REP. Returns 0, or -1
/// with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_remote_ece(id: *mut rdma_cm_id, ece: *mut ibv_ece) -> c_int {
    ffi::boundary("rdma_get_remote_ece", || -> Result<c_int> {
        Err(unsupported("rdma_get_remote_ece"))
    })
    .or_minus_one_errno()
}

/// `rdma_reject_ece(3)`: rejects the connection request of `id` because its ECE options are not supported, with
/// optional private data, as `rdma_reject` does otherwise. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_reject_ece(
    id: *mut rdma_cm_id,
    private_data: *const c_void,
    private_data_len: u8,
) -> c_int {
    ffi::boundary("rdma_reject_ece", || -> Result<c_int> {
        Err(unsupported("rdma_reject_ece"))
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma; rdma_set_local_ece, rdma_get_remote_ece, rdma_reject_ece);
