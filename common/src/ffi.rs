//! The C boundary toolkit.
//!
//! Every `extern "C"` entry point of both libraries that can fail, allocates, or reads through a pointer has this
//! shape (the rest are pure table lookups or arithmetic that cannot panic: the `*_str` and rate conversions,
//! `ibv_get_sysfs_path`, the rsocket calls that only forward to another entry point; docs/architecture.md names them):
//!
//! ```ignore
//! pub unsafe extern "C" fn ibv_dealloc_pd(pd: *mut ibv_pd) -> c_int {
//!     ffi::boundary("ibv_dealloc_pd", || {
//!         let pd = ffi::nonnull(pd)?;      // NULL -> Err(EINVAL)
//!         ...
//!         Ok(())
//!     })
//!     .ret_errno()
//! }
//! ```
//!
//! [`boundary`] runs the body, turns a panic into `EIO` (a panic never unwinds into C; a *non-unwinding* panic,
//! such as `mem::zeroed` of a type with an invalid all-zero value, aborts the process before any catch, so such
//! code must not exist), and the adapter named at the call states the C return convention once:
//!
//! | adapter | C convention | used by |
//! |---|---|---|
//! | [`CResult::ret_errno`] | `0` or a positive errno, `errno` untouched | most `ibv_*` returning `int` |
//! | [`CPtrResult::or_null_errno`] | a pointer, or NULL with `errno` set | `ibv_alloc_pd`, `ibv_create_*`, ... |
//! | [`CResult::or_minus_one_errno`] | `0`/value, or `-1` with `errno` set | `rdma_*`, `ibv_get_cq_event` |
//! | [`CResult::or_neg_errno`] | a count, or a negative errno | `ibv_poll_cq`-style |
//!
//! Out-parameters are written only on success: bodies build the value and write it as their last step.
//!
//! # Thread cancellation
//! glibc cancels a thread (`pthread_cancel(3)`, `pthread_exit(3)`) by a forced unwind of its stack. It must never
//! meet a `catch_unwind` (Rust aborts the process with "FATAL: exception not rethrown") nor a Rust frame with
//! pending destructors (undefined behaviour, RFC 2945). So [`boundary`] holds cancellation off while the library
//! works, and the calls that block until an event arrives (`ibv_get_cq_event`, `ibv_get_async_event`,
//! `rdma_get_cm_event`, `rdma_get_request`) are `extern "C-unwind"` and make their one blocking system call
//! between two boundaries, from a frame holding only plain values: a thread cancelled while it waits there leaves
//! exactly as it would from rdma-core's. The other blocking waits of the library (a synchronous `rdma_connect`,
//! `rdma_resolve_addr`, ... waiting for its event) cannot be cancelled: the cancel acts when they return.
#![allow(unsafe_code)]

use crate::errno::{Errno, Result};
use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

/// Run `body` as the body of the C entry point `name`. A panic is caught, logged and reported as `EIO`.
///
/// Thread cancellation (`pthread_cancel(3)`) is held off while `body` runs: a cancellation acting inside would
/// unwind through `catch_unwind`, which cannot let glibc's forced unwind pass and aborts the process. A cancel
/// requested meanwhile acts at the caller's next cancellation point. Entry points that block until an event
/// arrives wait *outside* this function instead (see [the module's notes](self#thread-cancellation)).
#[inline(always)]
pub fn boundary<T>(name: &'static str, body: impl FnOnce() -> Result<T>) -> Result<T> {
    let _held = CancelHeld::new();
    datapath_boundary(name, body)
}

/// [`boundary`] without holding off cancellation, for the data path (`post_send`, `post_recv`, `poll_cq`,
/// `req_notify_cq`), whose bodies make no call that is a cancellation point: they touch only mapped queues, and
/// their one system call, the doorbell, goes through [`crate::sys::write_cmd_nocancel`], the raw `write` system call.
#[inline(always)]
pub fn datapath_boundary<T>(name: &'static str, body: impl FnOnce() -> Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            log::error!("{name}: internal error (panic: {msg}); returning EIO");
            Err(Errno::EIO)
        }
    }
}

unsafe extern "C" {
    /// glibc's `pthread_setcancelstate(3)` (the `libc` crate does not declare it).
    fn pthread_setcancelstate(state: c_int, oldstate: *mut c_int) -> c_int;
}
/// `PTHREAD_CANCEL_DISABLE` (glibc's value; `PTHREAD_CANCEL_ENABLE` is 0).
const PTHREAD_CANCEL_DISABLE: c_int = 1;

/// Holds off thread cancellation while alive and restores the caller's cancel state when dropped.
///
/// When cancellation was already off (a nested boundary: a C plug-in calling an `ibv_cmd_*` of ours from inside
/// one of our entry points; or a caller that disabled it itself), there is nothing to restore, and the second
/// `pthread_setcancelstate` call is skipped.
struct CancelHeld(c_int);

impl CancelHeld {
    #[inline(always)]
    fn new() -> Self {
        let mut old = 0;
        // SAFETY: a valid state and a valid out-pointer; it only flips a flag of the calling thread.
        unsafe { pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &mut old) };
        CancelHeld(old)
    }
}

impl Drop for CancelHeld {
    #[inline(always)]
    fn drop(&mut self) {
        if self.0 == PTHREAD_CANCEL_DISABLE {
            return;
        }
        let mut ignored = 0;
        // SAFETY: as above, with the state saved by `new`.
        unsafe { pthread_setcancelstate(self.0, &mut ignored) };
    }
}

/// Checks a pointer argument: NULL gives `EINVAL`.
#[inline(always)]
pub fn nonnull<T>(p: *mut T) -> Result<NonNull<T>> {
    NonNull::new(p).ok_or(Errno::EINVAL)
}

/// Checks a const pointer argument: NULL gives `EINVAL`.
#[inline(always)]
pub fn nonnull_const<T>(p: *const T) -> Result<NonNull<T>> {
    NonNull::new(p as *mut T).ok_or(Errno::EINVAL)
}

/// Reads a C enum field as its raw 32-bit value without ever materialising an invalid Rust enum.
///
/// C enum fields that the application writes (`ibv_qp_attr::qp_state`, `ibv_send_wr::opcode`, ...) are typed as
/// Rust enums so that cbindgen emits `enum ibv_x` in the header; a typed read of an out-of-range value would be
/// undefined behaviour, so the library only ever reads them through this function and validates the number.
///
/// # Safety
/// `field` must point to a readable 4-byte C enum.
#[inline(always)]
pub unsafe fn enum_raw<E>(field: *const E) -> u32 {
    const { assert!(std::mem::size_of::<E>() == 4) };
    unsafe { field.cast::<u32>().read() }
}

/// Stores `value` into a C enum field as its raw 32-bit number, the twin of [`enum_raw`]: no Rust value of the enum
/// type is formed, so a number outside the Rust enum (a kernel's newer value) is stored as it is.
///
/// # Safety
/// `field` must point to a writable 4-byte C enum.
#[inline(always)]
pub unsafe fn enum_store<E>(field: *mut E, value: u32) {
    const { assert!(std::mem::size_of::<E>() == 4) };
    unsafe { field.cast::<u32>().write(value) }
}

/// The C return conventions, applied to a [`Result`].
pub trait CResult<T> {
    /// `0` on success, a positive errno on failure; `errno` is left alone.
    fn ret_errno(self) -> c_int;
    /// The value (as `c_int`) on success; `-1` with `errno` set on failure.
    fn or_minus_one_errno(self) -> c_int
    where
        T: Into<c_int>;
    /// The value on success, a negative errno on failure.
    fn or_neg_errno(self) -> c_int
    where
        T: Into<c_int>;
}

impl<T> CResult<T> for Result<T> {
    #[inline(always)]
    fn ret_errno(self) -> c_int {
        match self {
            Ok(_) => 0,
            Err(e) => e.0,
        }
    }
    #[inline(always)]
    fn or_minus_one_errno(self) -> c_int
    where
        T: Into<c_int>,
    {
        match self {
            Ok(v) => v.into(),
            Err(e) => {
                e.set();
                -1
            }
        }
    }
    #[inline(always)]
    fn or_neg_errno(self) -> c_int
    where
        T: Into<c_int>,
    {
        match self {
            Ok(v) => v.into(),
            Err(e) => -e.0,
        }
    }
}

/// Pointer-returning entry points: `Ok(ptr)` or NULL with `errno`.
pub trait CPtrResult<P> {
    /// The pointer on success; NULL with `errno` set on failure.
    fn or_null_errno(self) -> *mut P;
}

impl<P> CPtrResult<P> for Result<*mut P> {
    #[inline(always)]
    fn or_null_errno(self) -> *mut P {
        match self {
            Ok(p) => p,
            Err(e) => {
                e.set();
                std::ptr::null_mut()
            }
        }
    }
}

impl<P> CPtrResult<P> for Result<NonNull<P>> {
    #[inline(always)]
    fn or_null_errno(self) -> *mut P {
        match self {
            Ok(p) => p.as_ptr(),
            Err(e) => {
                e.set();
                std::ptr::null_mut()
            }
        }
    }
}

/// An untyped pointer, for `void *` arguments.
pub type VoidPtr = *mut c_void;

/// `check_signatures!(decl_module; name, name, ...)`: each `name` defined in the calling crate must have the same
/// function-pointer type as the declaration `decl_module::name` (the prototype cbindgen writes into the header), or
/// the crate does not compile. Both libraries use it at the end of each file of entry points:
///
/// ```ignore
/// rdma_common::check_signatures!(rdma_common::abi::rdma_cma; rdma_bind_addr, rdma_resolve_addr);
/// ```
#[macro_export]
macro_rules! check_signatures {
    ($decl:path; $($name:ident),* $(,)?) => {
        #[allow(dead_code, unused_imports, clippy::all)]
        const _: () = {
            fn check() {
                use $decl as decl;
                $( let _ = if true { decl::$name } else { $name }; )*
            }
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_eio() {
        let r: Result<()> = boundary("t", || panic!("boom"));
        assert_eq!(r, Err(Errno::EIO));
    }

    #[test]
    fn conventions() {
        assert_eq!(Ok::<(), Errno>(()).ret_errno(), 0);
        assert_eq!(Err::<(), Errno>(Errno::EINVAL).ret_errno(), libc::EINVAL);
        assert_eq!(Err::<c_int, Errno>(Errno::ENOMEM).or_minus_one_errno(), -1);
        assert_eq!(Errno::last(), Errno::ENOMEM);
        assert_eq!(Err::<c_int, Errno>(Errno::EAGAIN).or_neg_errno(), -libc::EAGAIN);
        let p: Result<*mut u8> = Err(Errno::ENODEV);
        assert!(p.or_null_errno().is_null());
        assert_eq!(Errno::last(), Errno::ENODEV);
        assert!(nonnull::<u8>(std::ptr::null_mut()).is_err());
    }
}
