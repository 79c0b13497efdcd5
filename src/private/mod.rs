//! The `IBVERBS_PRIVATE_34` and `IBVERBS_PRIVATE_65` symbols: rdma-core's provider interface, exported so that
//! rdma-core's own providers link, those of rdma-core 44 to 56 (PABI 34) and those of 65 (PABI 65) at once.
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
//! The same as in rdma-core: a provider plug-in that our libibverbs loads ([`crate::plugin`]) builds its objects
//! with them. Each entry point checks its arguments and hands over to `crate::plugin` (context set-up,
//! registration) or to the generic commands of [`crate::provider::cmd`] and [`crate::kernel`], in rdma-core's
//! convention for that function: `int` `ibv_cmd_*` return a positive errno (`ibv_cmd_poll_cq`: `-1` with `errno`),
//! pointer returns NULL with `errno`; `verbs_register_driver_34` lists the plug-in; `__verbs_log` logs the
//! provider's message through `log`; `__ioctl_final_num_attrs` is arithmetic on the caller's buffers;
//! `ibv_query_gid_type` answers over the verbs layer (`ibv_devinfo` imports it). docs/providers.md has the details.
//!
//! # Layout
//! One file per object family, as rdma-core's `cmd_<object>.c` and our [`crate::kernel`]: [`device`] (context
//! set-up, sysfs and GID helpers, GET_CONTEXT, QUERY_DEVICE, QUERY_PORT), [`pd`] (PD, XRCD), [`mr`] (MR, MW, DM),
//! [`cq`], [`srq`], [`qp`] (with posting through the kernel), [`ah`] (AH, multicast), [`flow`] (flows, flow
//! actions), [`wq`] (WQs, indirection tables), [`counters`]; under them `ioctl` (the command buffer engine) and
//! `buffers` (the provider's command and response buffers, the return convention, the destroys' rules). This
//! layer is an entry-point layer, as `crate::verbs`: it uses `plugin`, `object`, `provider` and `kernel`, and
//! nothing below it uses it.
//!
//! # Types
//! Pointer parameters to structs are written with the C type's name: the driver.h layouts of
//! `rdma_common::abi::driver` where the function reads them, else (registration, logging) aliased to `c_void`
//! below: a pointer is a pointer in the C ABI. C enums passed by value are `u32` (GCC gives an enum with no
//! negative enumerator the type `unsigned int`).
//!
//! # Two nodes, three generations
//! A name both nodes have is exported twice: `name@@IBVERBS_PRIVATE_65` (the default) and
//! `name@IBVERBS_PRIVATE_34`, one definition where the ABI is the same, two where rdma-core 65 changed it (the
//! `#[no_mangle]` function is 65's, the `..._34` one PABI 34's: `ibv_cmd_get_context`, `ibv_cmd_create_cq_ex(2)`,
//! `ibv_cmd_create_qp_ex2`, `_verbs_init_and_alloc_context`, `verbs_uninit_context`, `verbs_set_ops`; see
//! `abi/libibverbs.symbols`). Under one node the layouts still differ between rdma-core 44's plug-ins and 56's
//! (docs/providers.md, "Generations"): the functions that touch them ask the plug-in layer which generation a
//! context is served with.
//!
//! Prototypes: rdma-core v44.0, v56.1 and v65.0 `libibverbs/driver.h`, `libibverbs/cmd_ioctl.h`,
//! `libibverbs/libibverbs.map.in`.
//!
//! # Safety
//! These are C entry points; the caller must pass what rdma-core's prototype promises. NULL object pointers,
//! which rdma-core dereferences, are `EINVAL` here.
#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]

pub mod ah;
mod buffers;
pub mod comp_cntr;
pub mod counters;
pub mod cq;
pub mod device;
pub mod dmabuf;
pub mod dmah;
pub mod flow;
mod ioctl;
pub mod mr;
pub mod mr_ex;
pub mod pd;
pub mod port_speed;
pub mod qp;
pub mod srq;
pub mod wq;

use crate::plugin;
use rdma_common::ffi;
use rdma_common::Errno;
use std::ffi::{c_char, c_void, CStr};

// Provider-private C structs, opaque here (see the module docs): only ever seen through pointers.
type verbs_context = c_void;
type verbs_device_ops = c_void;

// ---------------------------------------------------------------------------------------------------------------
// Provider registration, logging
// ---------------------------------------------------------------------------------------------------------------

/// `void verbs_register_driver_34(const struct verbs_device_ops *ops)`.
///
/// rdma-core: adds a provider to the list the core matches devices against; every provider's ELF constructor
/// (`PROVIDER_DRIVER()` in driver.h) calls it when the plug-in is loaded. Here the same: the plug-in is listed, with
/// the generation of PABI 34 it was built for (rdma-core 44's or 56's, decided now: docs/providers.md,
/// "Generations"), and serves the devices it matches that no native provider serves (or all it matches with
/// `RDMAV_PROVIDER=plugin`; none with `RDMAV_PROVIDER=native`). NULL is ignored. Keeps `errno`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_register_driver_34(ops: *const verbs_device_ops) {
    let saved = Errno::last();
    rdma_common::logging::init("libibverbs");
    let _ = ffi::boundary("verbs_register_driver_34", || {
        // SAFETY: forwarded C contract (a provider's static ops, or NULL).
        unsafe { plugin::register(ops.cast(), 34) };
        Ok(())
    });
    saved.set();
}

/// `void verbs_register_driver_65(const struct verbs_device_ops *ops)`.
///
/// rdma-core 65's registration ([`verbs_register_driver_34`] for the plug-ins of `IBVERBS_PRIVATE_65`, the
/// `lib<name>-rdmav65.so` files): the plug-in is listed as built for rdma-core 65's provider interface, and every
/// context and object of it is served with 65's layouts. NULL is ignored. Keeps `errno`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_register_driver_65(ops: *const verbs_device_ops) {
    let saved = Errno::last();
    rdma_common::logging::init("libibverbs");
    let _ = ffi::boundary("verbs_register_driver_65", || {
        // SAFETY: forwarded C contract (a provider's static ops, or NULL).
        unsafe { plugin::register(ops.cast(), 65) };
        Ok(())
    });
    saved.set();
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
#[allow(clippy::too_many_arguments, unused_variables)]
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

// `bool verbs_allow_disassociate_destroy` (data) is defined where it is read: `buffers`.

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;

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
    fn registration_and_logging_keep_errno() {
        // SAFETY: NULL ops (ignored) and a format naming one integer argument, which is passed.
        unsafe {
            Errno::ENODEV.set();
            verbs_register_driver_34(ptr::null());
            __verbs_log(ptr::null_mut(), 1, c"x %d\n".as_ptr(), 7, 0, 0, 0, 0, 0, 0, 0, 0);
            assert_eq!(Errno::last(), Errno::ENODEV);
        }
    }
}
