//! Process-wide state of librdmacm, one concern a file:
//!
//! * this file: initialisation (`ucma_init`: the rdma_ucm ABI check, the device list, `AF_IB` support);
//! * `device`: the RDMA devices, each with the verbs context and PD (and XRC domain) that every id on it shares,
//!   reference-counted by those ids and by `rdma_get_devices` lists;
//! * `objects`: the objects handed to C (event channels, ids, multicast memberships, events) and the registry
//!   every pointer from C is looked up in.
//!
//! # Locks
//!
//! `INIT` (first use) > `DEVS` (device list) > one id's `st` > `REG` (registry, leaf). No lock is held across a
//! blocking kernel call (`GET_EVENT`) or a wait for acknowledgements (which waits on the id's `st`).
#![allow(unsafe_code)] // as_bytes: a plain C value's bytes

mod device;
mod objects;

pub(crate) use device::{free_devices, get_devices, get_xrcd, with_device};
pub(crate) use objects::{
    free_addrinfo, free_path_rec, lookup_channel, lookup_channel_fd, lookup_handle, lookup_id, lookup_mc, lookup_uid,
    publish_event, register_id, register_mc, take_event, unregister_mc, Channel, CmId, Event, Mc, TRANSPORT_IB,
    TRANSPORT_IWARP,
};

use crate::kernel;
use device::DEVS;
use parking_lot::Mutex;
use rdma_common::errno::{Errno, Result};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static INIT: Mutex<()> = Mutex::new(());
static READY: AtomicBool = AtomicBool::new(false);
static ABI_VER: AtomicI32 = AtomicI32::new(-1);
static AF_IB_SUPPORT: AtomicBool = AtomicBool::new(false);

/// `ucma_init`: on first use (and again after a failure), checks the kernel's rdma_ucm ABI version (`EPERM` when
/// rdma-core 44 would not speak it), lists the RDMA devices (`ENODEV` without any) and probes whether the kernel
/// takes `AF_IB` addresses (which selects the newer BIND / RESOLVE_ADDR / QUERY / JOIN_MCAST commands, as
/// rdma-core does, with `probe_af_ib`). Devices are opened lazily, when an id first binds to one. Called through
/// `cm::init`.
#[inline]
pub(crate) fn init(probe_af_ib: fn() -> bool) -> Result<()> {
    if READY.load(Ordering::Acquire) {
        return Ok(());
    }
    init_slow(probe_af_ib)
}

/// [`init`] before the library is ready: out of line, so that every later call runs only the `READY` check (the
/// thread-local `IN_INIT` costs a `__tls_get_addr` call in a shared library).
#[cold]
#[inline(never)]
fn init_slow(probe_af_ib: fn() -> bool) -> Result<()> {
    if IN_INIT.get() {
        // The AF_IB probe below, calling rdma_create_id on this thread.
        return Ok(());
    }
    let _g = INIT.lock();
    if READY.load(Ordering::Acquire) {
        return Ok(());
    }
    IN_INIT.set(true);
    let r = init_locked(probe_af_ib);
    IN_INIT.set(false);
    r
}

thread_local! {
    /// This thread is running [`init`] (which calls the library's own entry points for the AF_IB probe).
    static IN_INIT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// [`init`] under its lock.
fn init_locked(probe_af_ib: fn() -> bool) -> Result<()> {
    rdma_common::logging::init("librdmacm");
    let v = kernel::abi_version();
    if !kernel::abi_supported(v) {
        log::warn!("rdma_ucm ABI version {v} is not supported (need {}..={})", kernel::ABI_MIN, kernel::ABI_MAX);
        return Err(Errno::EPERM);
    }
    ABI_VER.store(v, Ordering::Relaxed);
    DEVS.lock().sync()?;
    // `ucma_set_af_ib_support` (`cm::id::probe_af_ib`, passed down by `cm::init`: state sits below cm), through the
    // library's own create / bind / destroy as rdma-core's: besides the
    // answer, this runs those paths once here, not in the application's first timed call (docs/bench.md, "the
    // cmtime finding": under QEMU TCG each process translates the code it runs the first time).
    AF_IB_SUPPORT.store(true, Ordering::Relaxed);
    AF_IB_SUPPORT.store(probe_af_ib(), Ordering::Relaxed);
    log::debug!("rdma_ucm ABI {v}, AF_IB support {}", af_ib_support());
    READY.store(true, Ordering::Release);
    Ok(())
}

/// The kernel's rdma_ucm ABI version (valid after [`init`]).
pub(crate) fn abi_version() -> i32 {
    ABI_VER.load(Ordering::Relaxed)
}

/// Whether the kernel takes `AF_IB` addresses (rdma-core's `af_ib_support`; valid after [`init`]).
pub(crate) fn af_ib_support() -> bool {
    AF_IB_SUPPORT.load(Ordering::Relaxed)
}

/// The bytes of a plain C value (no padding is read uninitialised: callers pass structs without holes or built
/// from zeroed storage).
pub(crate) fn as_bytes<T>(v: &T) -> &[u8] {
    // SAFETY: `v` is `size_of::<T>()` readable bytes.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
}
