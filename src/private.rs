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
//! Our libibverbs has its own providers (in Rust) and never loads rdma-core's, so nothing in our stack ever hands a
//! provider the objects these functions operate on. Each one therefore fails safely, in rdma-core's convention for
//! that function, and logs once (warning level, see [`crate::verbs::unsupported`]):
//!
//! * `int` `ibv_cmd_*` and `execute_ioctl`: return `EOPNOTSUPP` (a positive errno, as rdma-core's do); the exceptions
//!   keep their own convention (`ibv_cmd_poll_cq`: `-1` with `errno`).
//! * `ibv_query_gid_type` is implemented (`ibv_devinfo` prints GID types with it), over the verbs layer.
//! * pointer returns: NULL with `errno = EOPNOTSUPP`.
//! * `void` functions: do nothing.
//! * `verbs_register_driver_34`: accepts and ignores the registration (debug log).
//! * `__verbs_log`: logs the provider's message through `log`.
//! * `__ioctl_final_num_attrs`: pure arithmetic on the caller's buffers, implemented faithfully.
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
#![allow(unused_variables, clippy::missing_safety_doc)]

use crate::verbs::unsupported;
use rdma_common::ffi;
use rdma_common::Errno;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ptr;
use std::sync::atomic::AtomicBool;

// Provider-private and public C structs, opaque here (see the module docs). `union ibv_gid` is a union, the rest
// are structs; all are only ever seen through pointers.
type verbs_context = c_void;
type verbs_device_ops = c_void;
type verbs_context_ops = c_void;
type verbs_sysfs_dev = c_void;
type ibv_device = c_void;
type ibv_context = c_void;

/// NULL with `errno = EOPNOTSUPP`, logged once for `what`.
#[cold]
fn refuse_null<T>(what: &'static str) -> *mut T {
    let e = unsupported(what);
    e.set();
    ptr::null_mut()
}

/// `-1` with `errno = EOPNOTSUPP`, logged once for `what`.
#[cold]
fn refuse_minus_one(what: &'static str) -> c_int {
    let e = unsupported(what);
    e.set();
    -1
}

// ---------------------------------------------------------------------------------------------------------------
// Provider registration, context set-up, logging
// ---------------------------------------------------------------------------------------------------------------

/// The leading field of `struct verbs_device_ops` (driver.h): the provider's name. Only read for the debug log.
#[repr(C)]
struct verbs_device_ops_head {
    name: *const c_char,
}

/// `void verbs_register_driver_34(const struct verbs_device_ops *ops)`.
///
/// rdma-core: adds a provider to the list the core matches sysfs devices against; every provider's ELF
/// constructor (`PROVIDER_DRIVER()` in driver.h) calls it at load time. Here: accepted and ignored, with a debug log
/// naming the provider. Our providers are built in, so a registered rdma-core provider would never be used.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_register_driver_34(ops: *const verbs_device_ops) {
    let saved = Errno::last();
    rdma_common::logging::init("libibverbs");
    let _ = ffi::boundary("verbs_register_driver_34", || {
        if log::log_enabled!(log::Level::Debug) {
            // SAFETY: a provider passes its static `verbs_device_ops`, whose first field is `const char *name`.
            let name = unsafe { ops.cast::<verbs_device_ops_head>().as_ref() }
                .filter(|h| !h.name.is_null())
                // SAFETY: a non-NULL provider name is a static NUL-terminated string.
                .map(|h| unsafe { CStr::from_ptr(h.name) }.to_string_lossy().into_owned())
                .unwrap_or_else(|| "(unnamed)".into());
            log::debug!("ignoring registration of rdma-core provider '{name}': this libibverbs uses its own providers");
        }
        Ok(())
    });
    saved.set();
}

/// `void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size,
/// struct verbs_context *context_offset, uint32_t driver_id)`.
///
/// rdma-core: a provider's `alloc_context` calls it (through the `verbs_init_and_alloc_context()` macro) to
/// allocate its context wrapper and initialise the embedded `verbs_context`; it owns `cmd_fd` and closes it on
/// failure. Here: fails with NULL and `errno = EOPNOTSUPP`, closing `cmd_fd` as that contract requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _verbs_init_and_alloc_context(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    context_offset: *mut verbs_context,
    driver_id: u32,
) -> *mut c_void {
    if cmd_fd >= 0 {
        // SAFETY: the caller transferred ownership of cmd_fd to this function.
        unsafe { libc::close(cmd_fd) };
    }
    refuse_null("_verbs_init_and_alloc_context (rdma-core provider interface)")
}

/// `void verbs_uninit_context(struct verbs_context *context)`.
///
/// rdma-core: the inverse of `_verbs_init_and_alloc_context`, called by a provider's `free_context`. Here: does
/// nothing, since no such context can exist.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_uninit_context(context: *mut verbs_context) {
    unsupported("verbs_uninit_context (rdma-core provider interface)");
}

/// `void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops)`.
///
/// rdma-core: copies a provider's non-NULL ops into the context's dispatch table. Here: does nothing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_set_ops(vctx: *mut verbs_context, ops: *const verbs_context_ops) {
    unsupported("verbs_set_ops (rdma-core provider interface)");
}

/// `struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data)`.
///
/// rdma-core: `ibv_open_device` with provider private data (mlx5dv_open_device uses it). Here: NULL with
/// `errno = EOPNOTSUPP`; devices are opened with the public `ibv_open_device`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_open_device(device: *mut ibv_device, private_data: *mut c_void) -> *mut ibv_context {
    refuse_null("verbs_open_device (rdma-core provider interface)")
}

/// `void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt, ...)`.
///
/// rdma-core: the back end of the providers' `verbs_err()`/`verbs_warn()`/... macros; prints when `level` (1 error,
/// 2 warning, 3 info, 4 debug) is within `VERBS_LOG_LEVEL`, and preserves `errno`. Here: logs `fmt` verbatim at
/// the matching `log` level, with its conversions unexpanded, and preserves `errno`.
///
/// The C function is variadic; Rust defines C-variadic functions only on nightly, so this definition takes the three
/// fixed arguments and never reads the rest. That is ABI-safe: on x86-64 SysV (and AArch64 Linux) a variadic caller
/// passes the fixed arguments exactly as for a non-variadic call, the extra ones after them (the `%al` vector count
/// is ignored by a non-variadic callee), and the caller pops its own stack arguments.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __verbs_log(ctx: *mut verbs_context, level: u32, fmt: *const c_char) {
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
            let text = unsafe { CStr::from_ptr(fmt) }.to_string_lossy();
            log::log!(level, "provider: {}", text.trim_end());
            Ok(())
        });
    }
    saved.set();
}

/// `bool verbs_allow_disassociate_destroy` (data, 1 byte).
///
/// rdma-core: when a provider sets it, destroy commands that fail because the device was hot-unplugged
/// (disassociated) report success so the application can clean up. Providers write it (`libmlx5` imports it).
/// Here: exported with the same size and initial value (`false`) and otherwise unused. `AtomicBool` has the size,
/// alignment and bit validity of `bool` (so of C's `_Bool`) and lets C write it without a `static mut`.
#[unsafe(no_mangle)]
pub static verbs_allow_disassociate_destroy: AtomicBool = AtomicBool::new(false);
const _: () = assert!(std::mem::size_of::<AtomicBool>() == 1 && std::mem::align_of::<AtomicBool>() == 1);

// ---------------------------------------------------------------------------------------------------------------
// Sysfs and GID helpers
// ---------------------------------------------------------------------------------------------------------------

/// `int ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct verbs_sysfs_dev *sysfs_dev,
/// const char *fnfmt, ...)`.
///
/// rdma-core: reads the sysfs file `<ibdev_path>/<printf(fnfmt, ...)>` of a device being matched into `buf`;
/// returns the length read, or `-1` with `errno`. Here: `-1` with `errno = EOPNOTSUPP` (`EINVAL` for a NULL
/// `sysfs_dev`, as rdma-core). Variadic in C; the extra arguments are never read (see [`__verbs_log`]).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_read_ibdev_sysfs_file(
    buf: *mut c_char,
    size: usize,
    sysfs_dev: *mut verbs_sysfs_dev,
    fnfmt: *const c_char,
) -> c_int {
    if sysfs_dev.is_null() {
        Errno::EINVAL.set();
        return -1;
    }
    refuse_minus_one("ibv_read_ibdev_sysfs_file (rdma-core provider interface)")
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

