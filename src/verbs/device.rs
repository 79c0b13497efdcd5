//! Devices: listing, naming, opening and importing them (`ibv_get_device_list(3)`, `ibv_open_device(3)`,
//! `ibv_import_device(3)`).
//!
//! Implemented for real: `ibv_get_device_name` (it only reads the device struct) and `ibv_free_device_list` of
//! NULL. The rest need the sysfs/uverbs device layer and answer `EOPNOTSUPP` for now.
#![allow(unsafe_code)]

use super::unsupported;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::{c_char, c_int};

/// `ibv_get_device_list(3)`: returns a NULL-terminated array of the RDMA devices present, and stores their count
/// in `*num_devices` when `num_devices` is not NULL.
///
/// Returns NULL with `errno` set on failure, and then, as rdma-core does, stores 0 in `*num_devices` (the one
/// out-parameter written on failure: callers print the count without checking the list). Not implemented yet:
/// NULL with `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_device_list(num_devices: *mut c_int) -> *mut *mut ibv_device {
    let list = ffi::boundary("ibv_get_device_list", || -> Result<*mut *mut ibv_device> {
        Err(unsupported("ibv_get_device_list"))
    })
    .or_null_errno();
    if list.is_null() && !num_devices.is_null() {
        // SAFETY: a non-NULL `num_devices` points to an int the caller owns.
        unsafe { num_devices.write(0) };
    }
    list
}

/// `ibv_free_device_list(3)`: frees an array returned by `ibv_get_device_list(3)`; devices that were not opened
/// must not be used afterwards.
///
/// NULL is accepted and ignored (rdma-core would crash). No list can come from this library yet, so any other
/// pointer is left alone and the call is logged as not implemented.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_free_device_list(list: *mut *mut ibv_device) {
    if list.is_null() {
        return;
    }
    let _ = ffi::boundary("ibv_free_device_list", || -> Result<()> { Err(unsupported("ibv_free_device_list")) });
}

/// `ibv_get_device_name(3)`: returns the kernel name of a device (`rxe0`, `mlx5_0`), i.e. `device->name`.
///
/// The string lives as long as the device. A NULL `device` gives NULL with `errno = EINVAL`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_device_name(device: *mut ibv_device) -> *const c_char {
    ffi::boundary("ibv_get_device_name", || {
        let device = ffi::nonnull(device)?;
        // SAFETY: the caller passes a device from ibv_get_device_list(3); only the field's address is taken.
        Ok(unsafe { (&raw mut (*device.as_ptr()).name).cast::<c_char>() })
    })
    .or_null_errno()
    .cast_const()
}

/// `ibv_get_device_index(3)`: returns the kernel index of a device, or -1 when the kernel does not report it.
///
/// Not implemented yet: -1 with `errno = EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_device_index(device: *mut ibv_device) -> c_int {
    ffi::boundary("ibv_get_device_index", || -> Result<c_int> {
        ffi::nonnull(device)?;
        Err(unsupported("ibv_get_device_index"))
    })
    .or_minus_one_errno()
}

/// `ibv_get_device_guid(3)`: returns the node GUID of a device in network byte order, or 0 when it cannot be read.
///
/// Not implemented yet: 0 with `errno = EOPNOTSUPP` (`EINVAL` for a NULL device).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_device_guid(device: *mut ibv_device) -> __be64 {
    let r = ffi::boundary("ibv_get_device_guid", || -> Result<__be64> {
        ffi::nonnull(device)?;
        Err(unsupported("ibv_get_device_guid"))
    });
    match r {
        Ok(guid) => guid,
        Err(e) => {
            e.set();
            0
        }
    }
}

/// `ibv_open_device(3)`: opens a device for use and returns its context.
///
/// Returns NULL with `errno` set on failure (`EINVAL` for a NULL device). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_open_device(device: *mut ibv_device) -> *mut ibv_context {
    ffi::boundary("ibv_open_device", || -> Result<*mut ibv_context> {
        ffi::nonnull(device)?;
        Err(unsupported("ibv_open_device"))
    })
    .or_null_errno()
}

/// `ibv_close_device(3)`: closes a context from `ibv_open_device(3)` or `ibv_import_device(3)`.
///
/// Returns 0, or an errno value (`EINVAL` for NULL). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_close_device(context: *mut ibv_context) -> c_int {
    ffi::boundary("ibv_close_device", || -> Result<()> {
        ffi::nonnull(context)?;
        Err(unsupported("ibv_close_device"))
    })
    .ret_errno()
}

/// `ibv_import_device(3)`: creates a context on a uverbs command file descriptor that another process shared
/// (the context does not own `cmd_fd`).
///
/// Returns NULL with `errno` set on failure (`EBADF` for a negative fd). Not implemented yet: `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_device(cmd_fd: c_int) -> *mut ibv_context {
    ffi::boundary("ibv_import_device", || -> Result<*mut ibv_context> {
        if cmd_fd < 0 {
            return Err(Errno::EBADF);
        }
        Err(unsupported("ibv_import_device"))
    })
    .or_null_errno()
}

crate::check_signatures!(rdma_common::abi::verbs;
    ibv_get_device_list, ibv_free_device_list, ibv_get_device_name, ibv_get_device_index, ibv_get_device_guid,
    ibv_open_device, ibv_close_device, ibv_import_device,
);
