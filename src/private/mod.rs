//! The `IBVERBS_PRIVATE_34` symbols: rdma-core's provider interface, exported so that rdma-core's own providers link.
//!
//! # What these are
//! rdma-core splits libibverbs into a core and providers (`libmlx5`, `libefa`, `librxe-rdmav34.so`, ...). The core
//! exports, in the version node `IBVERBS_PRIVATE_<PABI>` (PABI 34 in rdma-core 44), the helpers its providers are
//! built on: the `ibv_cmd_*` kernel-command marshallers, context set-up (`_verbs_init_and_alloc_context`,
//! `verbs_set_ops`, ...), the ioctl executor and `verbs_register_driver_34`. Their prototypes live in
//! `libibverbs/driver.h` and `libibverbs/cmd_ioctl.h`, which are not installed; the node name changes whenever the
//! interface does, so no program outside rdma-core is meant to use them.
//!
//! # Why we export them anyway
//! Debian's `ibverbs-providers` ships `libmlx5.so.1`, `libefa.so.1`, `libmlx4.so.1` and `libmana.so.1` as ordinary
//! shared libraries, and programs link them directly (perftest's `ib_write_bw` has `NEEDED libmlx5.so.1` and
//! `libefa.so.1`; pyverbs too). They import these symbols from `libibverbs.so.1` and are loaded with BIND_NOW, so
//! every one must resolve at load time with its exact version, or the program does not start. Their ELF
//! constructors also call `verbs_register_driver_34` as soon as they are loaded. `ibv_devinfo` (ibverbs-utils)
//! imports `ibv_query_gid_type` from this node as well.
//!
//! # What they do here
//! The same as in rdma-core: a provider plug-in that our libibverbs loads (`src/provider/plugin`, issue 9) builds its
//! objects with them. Each entry point here checks its arguments and hands over to `crate::plugin`
//! (context set-up, registration, the `ibv_cmd_*` marshallers and `execute_ioctl` in `plugin::cmd`), in rdma-core's
//! convention for that function: `int` `ibv_cmd_*` return a positive errno (`ibv_cmd_poll_cq`: `-1` with `errno`),
//! pointer returns NULL with `errno`; `verbs_register_driver_34` lists the plug-in; `__verbs_log` logs the
//! provider's message through `log`; `__ioctl_final_num_attrs` is arithmetic on the caller's buffers;
//! `ibv_query_gid_type` answers over the verbs layer (`ibv_devinfo` imports it). docs/providers.md has the details.
//!
//! # Types
//! Pointer parameters to structs are written with the C type's name, aliased to `c_void` below: a pointer is a
//! pointer in the C ABI, and most of these structs (`verbs_context`, `verbs_mr`, the `ibv_cmd` command buffers, ...)
//! are provider-private and never appear in an installed header. C enums passed by value are `u32` (GCC gives an
//! enum with no negative enumerator the type `unsigned int`).
//!
//! Prototypes: rdma-core v44.0 `libibverbs/driver.h`, `libibverbs/cmd_ioctl.h`, `libibverbs/libibverbs.map.in`.
//!
//! # Safety
//! These are C entry points; the caller must pass what rdma-core's prototype promises. Only a few read through
//! their pointers: `verbs_register_driver_34` (the provider's name, for the debug log), `__verbs_log` (`fmt`, when
//! the level is enabled), `__ioctl_final_num_attrs` (the `link` chain) and the `ibv_cmd_post_*` (which store `wr`
//! into a non-NULL `bad_wr`). NULL is accepted everywhere.
#![allow(unsafe_code)]
#![allow(unused_variables, clippy::missing_safety_doc)]

use crate::plugin;
use rdma_common::ffi;
use rdma_common::ffi::CPtrResult;
use rdma_common::Errno;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ptr;

// Provider-private and public C structs, opaque here (see the module docs). `union ibv_gid` is a union, the rest
// are structs; all are only ever seen through pointers.
type verbs_context = c_void;
type verbs_device_ops = c_void;
type verbs_context_ops = c_void;
type verbs_sysfs_dev = c_void;
type ibv_device = c_void;
type ibv_context = c_void;

// ---------------------------------------------------------------------------------------------------------------
// Provider registration, context set-up, logging
// ---------------------------------------------------------------------------------------------------------------

/// `void verbs_register_driver_34(const struct verbs_device_ops *ops)`.
///
/// rdma-core: adds a provider to the list the core matches devices against; every provider's ELF constructor
/// (`PROVIDER_DRIVER()` in driver.h) calls it when the plug-in is loaded. Here the same: the plug-in is listed and
/// serves the devices it matches that no native provider serves (or all it matches with `RDMAV_PROVIDER=plugin`;
/// none with `RDMAV_PROVIDER=native`). NULL is ignored. Keeps `errno`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_register_driver_34(ops: *const verbs_device_ops) {
    let saved = Errno::last();
    rdma_common::logging::init("libibverbs");
    let _ = ffi::boundary("verbs_register_driver_34", || {
        // SAFETY: forwarded C contract (a provider's static ops, or NULL).
        unsafe { plugin::register(ops.cast()) };
        Ok(())
    });
    saved.set();
}

/// `void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size,
/// struct verbs_context *context_offset, uint32_t driver_id)`.
///
/// A provider's `alloc_context` calls it (through the `verbs_init_and_alloc_context()` macro) to allocate its
/// context wrapper (`alloc_size` bytes, zeroed, freed by the provider with `free()`) whose `verbs_context` starts
/// `context_offset` bytes in, and to initialise that `verbs_context` (device, `cmd_fd`, `async_fd = -1`, mutex,
/// dummy ops, driver id for ioctls). It owns `cmd_fd` from then on. Returns the wrapper, or NULL with `errno`
/// (`ENOMEM`; `EINVAL` for a device that is not ours or a size too small), having closed `cmd_fd`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _verbs_init_and_alloc_context(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    context_offset: *mut verbs_context,
    driver_id: u32,
) -> *mut c_void {
    ffi::boundary("_verbs_init_and_alloc_context", || {
        // SAFETY: forwarded C contract; `context_offset` is an offset disguised as a pointer.
        unsafe { plugin::init_and_alloc_context(device.cast(), cmd_fd, alloc_size, context_offset as usize, driver_id) }
    })
    .or_null_errno()
}

/// `void verbs_uninit_context(struct verbs_context *context)`.
///
/// The inverse of `_verbs_init_and_alloc_context`, called by a provider's `free_context` before it frees its
/// wrapper: closes the context's command and async fds and forgets the context. NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_uninit_context(context: *mut verbs_context) {
    let _ = ffi::boundary("verbs_uninit_context", || {
        // SAFETY: forwarded C contract.
        unsafe { plugin::uninit_context(context.cast()) };
        Ok(())
    });
}

/// `void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops)`.
///
/// Records a provider's non-NULL ops for the context and installs those applications call directly (the data
/// path, the extended ops); may be called several times (later non-NULL entries win). NULL arguments are ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_set_ops(vctx: *mut verbs_context, ops: *const verbs_context_ops) {
    let _ = ffi::boundary("verbs_set_ops", || {
        // SAFETY: forwarded C contract.
        unsafe { plugin::set_ops(vctx.cast(), ops.cast()) };
        Ok(())
    });
}

/// `struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data)`.
///
/// `ibv_open_device(3)` with provider private data: a plug-in's `alloc_context` receives it (mlx5dv_open_device
/// passes its attributes there); a device of a native provider refuses non-NULL data with `EOPNOTSUPP`. Returns
/// NULL with `errno` on failure, as `ibv_open_device(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_open_device(device: *mut ibv_device, private_data: *mut c_void) -> *mut ibv_context {
    // SAFETY: forwarded C contract.
    unsafe { crate::verbs::device::open_device_with(device.cast(), private_data) }.cast()
}

/// How many variadic arguments [`__verbs_log`] reads: the ones a SysV x86-64 / AArch64 caller passes in
/// registers after the three fixed ones, and the first stack slots after them.
const LOG_ARGS: usize = 9;

/// Whether `fmt` can be expanded from [`LOG_ARGS`] integer-class arguments: at most that many conversions, none of
/// them floating point (`%f`, `%e`, `%g`, `%a`: passed in vector registers, which this definition cannot see) or
/// `%n`.
fn log_format_expandable(fmt: &[u8]) -> bool {
    let mut n = 0;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        // Flags, width, precision and length modifiers, then the conversion.
        while i < fmt.len() && b"-+ #0123456789.*hlLqjzt'".contains(&fmt[i]) {
            if fmt[i] == b'*' {
                n += 1;
            }
            i += 1;
        }
        match fmt.get(i) {
            Some(c) if b"diouxXcspm".contains(c) => {
                if *c != b'm' {
                    n += 1;
                }
            }
            _ => return false,
        }
        i += 1;
    }
    n <= LOG_ARGS
}

/// `void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt, ...)`.
///
/// rdma-core: the back end of the providers' `verbs_err()`/`verbs_warn()`/... macros; prints when `level` (1 error,
/// 2 warning, 3 info, 4 debug) is within `VERBS_LOG_LEVEL`, and preserves `errno`. Here: logs the message, prefixed
/// `provider: `, at the matching `log` level, and preserves `errno`.
///
/// The C function is variadic, and Rust defines C-variadic functions only on nightly, so this definition names the
/// first [`LOG_ARGS`] variadic arguments as plain integer parameters and hands them to `snprintf`. That is how a
/// variadic caller passes integer and pointer arguments on x86-64 SysV and AArch64 Linux: the fixed ones first,
/// then each variadic one in the next integer register and, once those run out, in the next 8-byte stack slot; the
/// caller pops its own stack arguments, and a callee reading slots the caller did not fill reads the caller's own
/// (mapped) frame, values `snprintf` never looks at when `fmt` names fewer conversions. A format with more
/// conversions, or with floating-point ones (passed in vector registers), is logged verbatim, unexpanded, as
/// before. The providers' messages are `"%s: %s:%d: ..."` plus their own few integer and string arguments.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __verbs_log(
    ctx: *mut verbs_context,
    level: u32,
    fmt: *const c_char,
    a0: usize,
    a1: usize,
    a2: usize,
    a3: usize,
    a4: usize,
    a5: usize,
    a6: usize,
    a7: usize,
    a8: usize,
) {
    let level = match level {
        0 => return,
        1 => log::Level::Error,
        2 => log::Level::Warn,
        3 => log::Level::Info,
        4 => log::Level::Debug,
        _ => log::Level::Trace,
    };
    let saved = Errno::last();
    rdma_common::logging::init("libibverbs");
    if log::log_enabled!(level) && !fmt.is_null() {
        let _ = ffi::boundary("__verbs_log", || {
            // SAFETY: fmt is the provider's NUL-terminated printf format.
            let f = unsafe { CStr::from_ptr(fmt) };
            let text = if log_format_expandable(f.to_bytes()) {
                let mut buf = [0 as c_char; 512];
                // SAFETY: a buffer of its length; `fmt` names at most LOG_ARGS integer-class conversions, each
                // reading one of the arguments passed (the caller's, by the convention above).
                let n = unsafe { libc::snprintf(buf.as_mut_ptr(), buf.len(), fmt, a0, a1, a2, a3, a4, a5, a6, a7, a8) };
                if n < 0 {
                    f.to_string_lossy().into_owned()
                } else {
                    // SAFETY: snprintf NUL-terminated the buffer.
                    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
                }
            } else {
                f.to_string_lossy().into_owned()
            };
            log::log!(level, "provider: {}", text.trim_end());
            Ok(())
        });
    }
    saved.set();
}

// `bool verbs_allow_disassociate_destroy` (data) is defined where it is read: `plugin::cmd`.

// ---------------------------------------------------------------------------------------------------------------
// Sysfs and GID helpers
// ---------------------------------------------------------------------------------------------------------------

/// `int ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct verbs_sysfs_dev *sysfs_dev,
/// const char *fnfmt, ...)`.
///
/// rdma-core: reads the sysfs file `<ibdev_path>/<printf(fnfmt, ...)>` of a device being matched into `buf`;
/// returns the length read (a trailing newline dropped, NUL-terminated), or `-1` with `errno` (`EINVAL` for NULL
/// arguments, the `open(2)`/`read(2)` errno). Variadic in C; the extra arguments are not read here (`__verbs_log`
/// reads them, but a file path is not built from unchecked arguments), so a `fnfmt` with a conversion answers
/// `EOPNOTSUPP` (rdma-core's own matcher passes `"device/modalias"`, which works).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_read_ibdev_sysfs_file(
    buf: *mut c_char,
    size: usize,
    sysfs_dev: *mut verbs_sysfs_dev,
    fnfmt: *const c_char,
) -> c_int {
    let r = ffi::boundary("ibv_read_ibdev_sysfs_file", || -> rdma_common::errno::Result<c_int> {
        if sysfs_dev.is_null() || fnfmt.is_null() || buf.is_null() || size == 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: a NUL-terminated file name.
        let name = unsafe { CStr::from_ptr(fnfmt) }.to_string_lossy().into_owned();
        if name.contains('%') {
            // The variadic arguments are not read here (unlike `__verbs_log`: a path built from unchecked
            // arguments is not worth the risk for a matcher that passes none).
            return Err(Errno::EOPNOTSUPP);
        }
        // SAFETY: a verbs_sysfs_dev from our matcher (its ibdev_path is NUL-terminated).
        let dir = unsafe { CStr::from_ptr((*sysfs_dev.cast::<rdma_common::abi::driver::verbs_sysfs_dev>()).ibdev_path.as_ptr()) };
        let path = std::path::Path::new(&*dir.to_string_lossy()).join(name);
        let data = std::fs::read(&path).map_err(|e| Errno(e.raw_os_error().unwrap_or(libc::EIO)))?;
        let mut n = data.len().min(size - 1);
        if n > 0 && data[n - 1] == b'\n' {
            n -= 1;
        }
        // SAFETY: the caller's buffer of `size` bytes.
        unsafe {
            ptr::copy_nonoverlapping(data.as_ptr(), buf.cast::<u8>(), n);
            *buf.add(n) = 0;
        }
        Ok(n as c_int)
    });
    match r {
        Ok(n) => n,
        Err(e) => {
            e.set();
            -1
        }
    }
}

/// `int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
/// enum ibv_gid_type_sysfs *type)`.
///
/// rdma-core: reports whether GID `index` of `port_num` is IB/RoCE v1 (`IBV_GID_TYPE_SYSFS_IB_ROCE_V1` = 0) or RoCE
/// v2 (`IBV_GID_TYPE_SYSFS_ROCE_V2` = 1); returns 0, or `-1` on failure. Although private, `ibv_devinfo` imports
/// it (it prints the GID type, and shows none when this fails), as do `libmlx5` and the mlx5/irdma/hns plugins.
/// Implemented (QUERY_GID_ENTRY, sysfs on older kernels): see `crate::verbs::context::query_gid_type`; `-1` with
/// `errno` (`EINVAL` for an invalid context, port or index) on failure, `*type` untouched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_gid_type(
    context: *mut ibv_context,
    port_num: u8,
    index: c_uint,
    r#type: *mut u32,
) -> c_int {
    // SAFETY: forwarded C contract (a valid context, a writable enum).
    unsafe { crate::verbs::context::query_gid_type(context.cast(), port_num, index, r#type) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_formats_expanded_only_with_integer_conversions() {
        assert!(log_format_expandable(b"%s: %s:%d: validate send failed\n"));
        assert!(log_format_expandable(b"100%% done %lu %#x %-5s %p %m"));
        assert!(!log_format_expandable(b"%f"));
        assert!(!log_format_expandable(b"%n"));
        assert!(!log_format_expandable(b"%d %d %d %d %d %d %d %d %d %d"));
        assert!(!log_format_expandable(b"trailing %"));
    }

    #[test]
    fn context_half_conventions() {
        // SAFETY: every call below is given NULL or a local buffer, which each function accepts.
        unsafe {
            Errno(0).set();
            assert!(verbs_open_device(ptr::null_mut(), ptr::null_mut()).is_null());
            assert_eq!(Errno::last(), Errno::EINVAL, "not a device of ours");
            assert_eq!(ibv_query_gid_type(ptr::null_mut(), 1, 0, ptr::null_mut()), -1);
            let mut buf = [0 as c_char; 8];
            assert_eq!(ibv_read_ibdev_sysfs_file(buf.as_mut_ptr(), buf.len(), ptr::null_mut(), c"x".as_ptr()), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            // Registration of NULL, an uninit of NULL, set_ops on NULL and logging are harmless and keep errno.
            Errno::ENODEV.set();
            verbs_register_driver_34(ptr::null());
            verbs_uninit_context(ptr::null_mut());
            verbs_set_ops(ptr::null_mut(), ptr::null());
            __verbs_log(ptr::null_mut(), 1, c"x %d\n".as_ptr(), 7, 0, 0, 0, 0, 0, 0, 0, 0);
            assert_eq!(Errno::last(), Errno::ENODEV);
            // A context for a device that is not ours: NULL with EINVAL, and the fd is closed.
            let fd = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
            assert!(fd >= 0);
            assert!(_verbs_init_and_alloc_context(ptr::null_mut(), fd, 4096, ptr::null_mut(), 0).is_null());
            assert_eq!(Errno::last(), Errno::EINVAL);
            assert_eq!(libc::fcntl(fd, libc::F_GETFD), -1, "cmd_fd was closed, as the contract says");
        }
    }
}
