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
use rdma_common::abi::ib::{sockaddr_ib, AF_IB};
use rdma_common::abi::rdma_cma::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::{Errno, Result};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static INIT: Mutex<()> = Mutex::new(());
static READY: AtomicBool = AtomicBool::new(false);
static ABI_VER: AtomicI32 = AtomicI32::new(-1);
static AF_IB_SUPPORT: AtomicBool = AtomicBool::new(false);

/// `ucma_init`: on first use (and again after a failure), checks the kernel's rdma_ucm ABI version (`EPERM` when
/// rdma-core 44 would not speak it), lists the RDMA devices (`ENODEV` without any) and probes whether the kernel
/// takes `AF_IB` addresses (which selects the newer BIND / RESOLVE_ADDR / QUERY / JOIN_MCAST commands, as
/// rdma-core does). Devices are opened lazily, when an id first binds to one.
pub(crate) fn init() -> Result<()> {
    if READY.load(Ordering::Acquire) {
        return Ok(());
    }
    let _g = INIT.lock();
    if READY.load(Ordering::Acquire) {
        return Ok(());
    }
    rdma_common::logging::init("librdmacm");
    let v = kernel::abi_version();
    if !kernel::abi_supported(v) {
        log::warn!("rdma_ucm ABI version {v} is not supported (need {}..={})", kernel::ABI_MIN, kernel::ABI_MAX);
        return Err(Errno::EPERM);
    }
    ABI_VER.store(v, Ordering::Relaxed);
    DEVS.lock().sync()?;
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

/// `ucma_set_af_ib_support`: an `RDMA_PS_IB` id bound to the `AF_IB` wildcard with the TCP service-id prefix; the
/// kernel accepting that (and answering the ADDR and GID queries rdma-core's bind makes) means `AF_IB` works.
fn probe_af_ib() -> bool {
    let Ok(fd) = kernel::open() else { return false };
    let fd = fd.as_fd();
    let Ok(h) = kernel::id::create_id(&fd, 0, rdma_port_space::RDMA_PS_IB as u16, ibv_qp_type::IBV_QPT_RC as u8) else {
        return false;
    };
    let sib = sockaddr_ib {
        sib_family: AF_IB as u16,
        sib_pkey: 0,
        sib_flowinfo: 0,
        sib_addr: rdma_common::abi::ib::ib_addr { ib_u: rdma_common::abi::ib::ib_addr_u { uib_addr8: [0; 16] } },
        sib_sid: RDMA_IB_IP_PS_TCP.to_be(),
        sib_sid_mask: RDMA_IB_IP_PS_MASK.to_be(),
        sib_scope_id: 0,
    };
    let ok = kernel::addr::bind(&fd, h, as_bytes(&sib)).is_ok()
        && kernel::addr::query_addr(&fd, h).is_ok()
        && kernel::addr::query_gid(&fd, h).is_ok();
    let _ = kernel::id::destroy_id(&fd, h);
    ok
}

/// The bytes of a plain C value (no padding is read uninitialised: callers pass structs without holes or built
/// from zeroed storage).
pub(crate) fn as_bytes<T>(v: &T) -> &[u8] {
    // SAFETY: `v` is `size_of::<T>()` readable bytes.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
}
