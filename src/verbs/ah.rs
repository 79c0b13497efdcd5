//! Address handles (`ibv_create_ah(3)`, `ibv_destroy_ah(3)`, `ibv_init_ah_from_wc(3)`,
//! `ibv_create_ah_from_wc(3)`) and RoCE L2 resolution (`ibv_resolve_eth_l2_from_gid`). Not implemented yet: each
//! answers `EOPNOTSUPP` in its C convention.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use std::ffi::c_int;

/// `ibv_create_ah(3)`: creates an address handle for UD sends.
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_ah(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah {
    ffi::boundary("ibv_create_ah", || -> Result<*mut ibv_ah> {
        ffi::nonnull(pd)?;
        ffi::nonnull(attr)?;
        Err(unsupported("ibv_create_ah"))
    })
    .or_null_errno()
}

/// `ibv_destroy_ah(3)`: destroys an address handle.
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_ah(ah: *mut ibv_ah) -> c_int {
    ffi::boundary("ibv_destroy_ah", || -> Result<()> {
        ffi::nonnull(ah)?;
        Err(unsupported("ibv_destroy_ah"))
    })
    .ret_errno()
}

/// `ibv_init_ah_from_wc(3)`: fills `*ah_attr` with the address that replies to the sender of the completion `wc`
/// received on `port_num`; `grh` (the first 40 bytes of the receive buffer) is read when `wc` has `IBV_WC_GRH`.
///
/// Returns 0, or -1 with `errno` set. Not implemented yet (it needs the port's GID table): -1 with `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_init_ah_from_wc(
    context: *mut ibv_context,
    port_num: u8,
    wc: *mut ibv_wc,
    grh: *mut ibv_grh,
    ah_attr: *mut ibv_ah_attr,
) -> c_int {
    let _ = (port_num, grh);
    ffi::boundary("ibv_init_ah_from_wc", || -> Result<c_int> {
        ffi::nonnull(context)?;
        ffi::nonnull(wc)?;
        ffi::nonnull(ah_attr)?;
        Err(unsupported("ibv_init_ah_from_wc"))
    })
    .or_minus_one_errno()
}

/// `ibv_create_ah_from_wc(3)`: creates an address handle that replies to the sender of the completion `wc`
/// received on `port_num` (see `ibv_init_ah_from_wc(3)`).
///
/// Returns NULL with `errno` set on failure. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_ah_from_wc(
    pd: *mut ibv_pd,
    wc: *mut ibv_wc,
    grh: *mut ibv_grh,
    port_num: u8,
) -> *mut ibv_ah {
    let _ = (grh, port_num);
    ffi::boundary("ibv_create_ah_from_wc", || -> Result<*mut ibv_ah> {
        ffi::nonnull(pd)?;
        ffi::nonnull(wc)?;
        Err(unsupported("ibv_create_ah_from_wc"))
    })
    .or_null_errno()
}

/// `ibv_resolve_eth_l2_from_gid`: resolves the destination MAC (`eth_mac`, `ETHERNET_LL_SIZE` bytes) and, when
/// `vid` is not NULL, the VLAN id of the RoCE address `attr`.
///
/// Returns 0, or an errno value. Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_resolve_eth_l2_from_gid(
    context: *mut ibv_context,
    attr: *mut ibv_ah_attr,
    eth_mac: *mut u8,
    vid: *mut u16,
) -> c_int {
    let _ = vid;
    ffi::boundary("ibv_resolve_eth_l2_from_gid", || -> Result<()> {
        ffi::nonnull(context)?;
        ffi::nonnull(attr)?;
        ffi::nonnull(eth_mac)?;
        Err(unsupported("ibv_resolve_eth_l2_from_gid"))
    })
    .ret_errno()
}

crate::check_signatures!(rdma_common::abi::verbs;
    ibv_create_ah, ibv_destroy_ah, ibv_init_ah_from_wc, ibv_create_ah_from_wc, ibv_resolve_eth_l2_from_gid,
);
