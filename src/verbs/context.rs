//! Queries on an open context: device and port attributes, GID and P_Key tables (`ibv_query_device(3)`,
//! `ibv_query_port(3)`, `ibv_query_gid(3)`, `ibv_query_gid_ex(3)`, `ibv_query_gid_table(3)`, `ibv_query_pkey(3)`,
//! `ibv_get_pkey_index(3)`). All need the kernel and answer `EOPNOTSUPP` for now, each in its own convention.

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use std::ffi::c_int;

/// `ibv_query_device(3)`: reads the attributes of a device into `*device_attr`.
///
/// Returns 0, or an errno value (`EINVAL` for NULL pointers). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_device(context: *mut ibv_context, device_attr: *mut ibv_device_attr) -> c_int {
    ffi::boundary("ibv_query_device", || -> Result<()> {
        ffi::nonnull(context)?;
        ffi::nonnull(device_attr)?;
        Err(unsupported("ibv_query_device"))
    })
    .ret_errno()
}

/// `ibv_query_port(3)`, the exported symbol: reads the attributes of port `port_num` in the legacy layout (a
/// `struct ibv_port_attr` without `port_cap_flags2`). Applications compiled against `verbs.h` reach it through the
/// `ibv_query_port` macro only when the context has no extended `query_port` op.
///
/// Returns 0, or an errno value (`EINVAL` for NULL pointers). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut _compat_ibv_port_attr,
) -> c_int {
    let _ = port_num;
    ffi::boundary("ibv_query_port", || -> Result<()> {
        ffi::nonnull(context)?;
        ffi::nonnull(port_attr)?;
        Err(unsupported("ibv_query_port"))
    })
    .ret_errno()
}

/// `ibv_query_gid(3)`: reads entry `index` of the GID table of port `port_num` (all zeros for an empty entry).
///
/// Returns 0, or -1 with `errno` set. Not implemented yet: -1 with `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_gid(
    context: *mut ibv_context,
    port_num: u8,
    index: c_int,
    gid: *mut ibv_gid,
) -> c_int {
    let _ = (port_num, index);
    ffi::boundary("ibv_query_gid", || -> Result<c_int> {
        ffi::nonnull(context)?;
        ffi::nonnull(gid)?;
        Err(unsupported("ibv_query_gid"))
    })
    .or_minus_one_errno()
}

/// `_ibv_query_gid_ex`, the symbol behind the inline `ibv_query_gid_ex(3)`: reads GID-table entry `gid_index` of
/// port `port_num` into `*entry`, a struct of `entry_size` bytes (the caller's `sizeof(struct ibv_gid_entry)`);
/// `flags` must be 0.
///
/// Returns 0, or an errno value (`ENODATA` for an empty entry, `EINVAL` for bad arguments). Not implemented yet:
/// `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _ibv_query_gid_ex(
    context: *mut ibv_context,
    port_num: u32,
    gid_index: u32,
    entry: *mut ibv_gid_entry,
    flags: u32,
    entry_size: usize,
) -> c_int {
    let _ = (port_num, gid_index, flags, entry_size);
    ffi::boundary("_ibv_query_gid_ex", || -> Result<()> {
        ffi::nonnull(context)?;
        ffi::nonnull(entry)?;
        Err(unsupported("_ibv_query_gid_ex"))
    })
    .ret_errno()
}

/// `_ibv_query_gid_table`, the symbol behind the inline `ibv_query_gid_table(3)`: stores every valid GID-table
/// entry of every port into `entries`, at most `max_entries` of `entry_size` bytes each; `flags` must be 0.
///
/// Returns the number of entries stored, or a negative errno value. Not implemented yet: `-EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _ibv_query_gid_table(
    context: *mut ibv_context,
    entries: *mut ibv_gid_entry,
    max_entries: usize,
    flags: u32,
    entry_size: usize,
) -> libc::ssize_t {
    let _ = (entries, max_entries, flags, entry_size);
    let r = ffi::boundary("_ibv_query_gid_table", || -> Result<libc::ssize_t> {
        ffi::nonnull(context)?;
        Err(unsupported("_ibv_query_gid_table"))
    });
    match r {
        Ok(n) => n,
        Err(e) => -(e.0 as libc::ssize_t),
    }
}

/// `ibv_query_pkey(3)`: reads entry `index` of the P_Key table of port `port_num` into `*pkey` (network order).
///
/// Returns 0, or -1 with `errno` set. Not implemented yet: -1 with `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_pkey(
    context: *mut ibv_context,
    port_num: u8,
    index: c_int,
    pkey: *mut __be16,
) -> c_int {
    let _ = (port_num, index);
    ffi::boundary("ibv_query_pkey", || -> Result<c_int> {
        ffi::nonnull(context)?;
        ffi::nonnull(pkey)?;
        Err(unsupported("ibv_query_pkey"))
    })
    .or_minus_one_errno()
}

/// `ibv_get_pkey_index(3)`: returns the index of the P_Key `pkey` (network order) in the table of port
/// `port_num`.
///
/// Returns the index, or -1 with `errno` set. Not implemented yet: -1 with `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_pkey_index(context: *mut ibv_context, port_num: u8, pkey: __be16) -> c_int {
    let _ = (port_num, pkey);
    ffi::boundary("ibv_get_pkey_index", || -> Result<c_int> {
        ffi::nonnull(context)?;
        Err(unsupported("ibv_get_pkey_index"))
    })
    .or_minus_one_errno()
}

crate::check_signatures!(rdma_common::abi::verbs;
    ibv_query_device, ibv_query_port, ibv_query_gid, _ibv_query_gid_ex, _ibv_query_gid_table, ibv_query_pkey,
    ibv_get_pkey_index,
);
