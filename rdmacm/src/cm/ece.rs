//! Enhanced connection establishment (ECE) for ids whose QP the application manages: `rdma_set_local_ece`,
//! `rdma_get_remote_ece`, `rdma_reject_ece`.
#![allow(unsafe_code)] // #[no_mangle] C entry points

use crate::state;
use rdma_common::abi::rdma_cma::rdma_cm_id;
use rdma_common::abi::verbs::ibv_ece;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi::{self, CResult};
use std::ffi::{c_int, c_void};

/// The IBTA reject reason rdma-core sends for unsupported ECE options (`CM_REJ_VENDOR_OPTION_NOT_SUPPORTED`).
const REJ_VENDOR_OPTION_NOT_SUPPORTED: u8 = 35;

/// `rdma_set_local_ece(3)`: sets the ECE options (`*ece`, from `ibv_query_ece` on the external QP) that `id` sends
/// in its REQ or REP. Returns 0, or -1 with `errno` = `EINVAL` (bad id, an id with a QP, NULL `ece`, vendor id 0,
/// nonzero `comp_mask`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_set_local_ece(id: *mut rdma_cm_id, ece: *mut ibv_ece) -> c_int {
    ffi::boundary("rdma_set_local_ece", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        let ece = ffi::nonnull(ece)?;
        // SAFETY: a readable ibv_ece (integers).
        let e = unsafe { ece.as_ptr().read() };
        if !id.qp().is_null() || e.vendor_id == 0 || e.comp_mask != 0 {
            return Err(Errno::EINVAL);
        }
        id.st.lock().local_ece = (e.vendor_id, e.options);
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_get_remote_ece(3)`: stores in `*ece` the ECE options the peer sent in its REQ or REP (`comp_mask` 0).
/// Returns 0, or -1 with `errno` = `EINVAL` (bad id, an id with a QP, NULL `ece`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_remote_ece(id: *mut rdma_cm_id, ece: *mut ibv_ece) -> c_int {
    ffi::boundary("rdma_get_remote_ece", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        let out = ffi::nonnull(ece)?;
        if !id.qp().is_null() {
            return Err(Errno::EINVAL);
        }
        let (vendor_id, options) = id.st.lock().remote_ece;
        // SAFETY: the caller's writable ibv_ece.
        unsafe { out.as_ptr().write(ibv_ece { vendor_id, options, comp_mask: 0 }) };
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_reject_ece(3)`: rejects the connection request of `id` because its ECE options are not supported (IBTA
/// reason 35), with optional private data, as `rdma_reject` does otherwise. Returns 0, or -1 with `errno`
/// (`EINVAL` for a bad id, too much private data).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_reject_ece(
    id: *mut rdma_cm_id,
    private_data: *const c_void,
    private_data_len: u8,
) -> c_int {
    ffi::boundary("rdma_reject_ece", || -> Result<c_int> {
        // SAFETY: `private_data` is readable for its length (the C contract).
        unsafe { super::conn::reject(id, private_data, private_data_len, REJ_VENDOR_OPTION_NOT_SUPPORTED) }?;
        Ok(0)
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma; rdma_set_local_ece, rdma_get_remote_ece, rdma_reject_ece);

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::null_mut;

    #[test]
    fn bad_arguments() {
        // SAFETY: NULL and foreign pointers are rejected before any dereference.
        unsafe {
            let mut e = ibv_ece { vendor_id: 1, options: 0, comp_mask: 0 };
            assert_eq!(rdma_set_local_ece(null_mut(), &mut e), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            assert_eq!(rdma_get_remote_ece(null_mut(), &mut e), -1);
            assert_eq!(rdma_reject_ece(null_mut(), null_mut(), 0), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
        }
    }
}
