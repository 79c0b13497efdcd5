//! RDMA devices as the connection manager sees them: `rdma_get_devices`, `rdma_free_devices`.
#![allow(unsafe_code)] // #[no_mangle] C entry points

use crate::state;
use rdma_common::abi::verbs::ibv_context;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi::{self, CPtrResult};
use rdma_common::registry::Registry;
use std::ffi::c_int;

/// The arrays `rdma_get_devices` handed out and not yet freed.
static LISTS: Registry<()> = Registry::new();

/// `rdma_get_devices(3)`: a NULL-terminated array of the RDMA devices' contexts, opened by librdmacm and shared
/// with its ids (each device stays open while a list or an id refers to it); `*num_devices` (when not NULL) gets
/// their number (0 on failure). Free the array with `rdma_free_devices`. Returns the array, or NULL with `errno`
/// (`ENODEV` without devices, `EPERM` for an unsupported kernel ABI, `ENOMEM`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_devices(num_devices: *mut c_int) -> *mut *mut ibv_context {
    let r = ffi::boundary("rdma_get_devices", || -> Result<(*mut *mut ibv_context, c_int)> {
        super::init()?;
        let devs = state::get_devices()?;
        // SAFETY: malloc of n+1 pointers, checked; the application frees it through rdma_free_devices.
        let list = unsafe { libc::malloc((devs.len() + 1) * std::mem::size_of::<*mut ibv_context>()) }
            .cast::<*mut ibv_context>();
        if list.is_null() {
            state::free_devices(&devs);
            return Err(Errno::ENOMEM);
        }
        for (i, &d) in devs.iter().enumerate() {
            // SAFETY: within the n+1 entries.
            unsafe { list.add(i).write(d) };
        }
        // SAFETY: the terminator.
        unsafe { list.add(devs.len()).write(std::ptr::null_mut()) };
        LISTS.insert(list, ());
        Ok((list, devs.len() as c_int))
    });
    if !num_devices.is_null() {
        // SAFETY: the caller's writable out-parameter.
        unsafe { num_devices.write(r.as_ref().map_or(0, |&(_, n)| n)) };
    }
    r.map(|(l, _)| l).or_null_errno()
}

/// `rdma_free_devices(3)`: frees an array returned by `rdma_get_devices` (devices no id uses are closed). NULL and
/// foreign arrays are ignored. No return value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_free_devices(list: *mut *mut ibv_context) {
    let _ = ffi::boundary("rdma_free_devices", || -> Result<()> {
        if !LISTS.remove(list) {
            return Err(Errno::EINVAL);
        }
        let mut devs = Vec::new();
        // SAFETY: our NULL-terminated array.
        unsafe {
            let mut p = list;
            while !(*p).is_null() {
                devs.push(*p);
                p = p.add(1);
            }
        }
        state::free_devices(&devs);
        // SAFETY: allocated with malloc by rdma_get_devices, now unregistered.
        unsafe { libc::free(list.cast()) };
        Ok(())
    });
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma; rdma_get_devices, rdma_free_devices);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_lists_are_ignored() {
        // A foreign array whose first entry is a bogus non-NULL pointer: were it taken for one of ours, the device
        // walk would read through that pointer and free the array (a stack array: the test would crash).
        let bogus = 0x10 as *mut ibv_context;
        let mut fake = [bogus, std::ptr::null_mut::<ibv_context>()];
        // SAFETY: foreign and NULL arrays are never dereferenced or freed.
        unsafe {
            rdma_free_devices(fake.as_mut_ptr());
            rdma_free_devices(std::ptr::null_mut());
        }
        assert_eq!(fake, [bogus, std::ptr::null_mut()], "the foreign array is left as it was");
        assert!(!LISTS.contains(fake.as_mut_ptr()), "and never becomes one of ours");
    }
}
