//! Devices: listing, naming, opening and importing them (`ibv_get_device_list(3)`, `ibv_open_device(3)`,
//! `ibv_import_device(3)`).
//!
//! The device list is rdma-core's: discovery (`kernel::discover`: netlink, else sysfs) on every call, each device
//! matched to a built-in provider (devices no provider drives are left out, as rdma-core leaves out devices
//! without a userspace driver), devices already known keep their `struct ibv_device` (so pointers from earlier
//! lists stay valid and compare equal), new ones come first in discovery order, vanished ones leave the list.
//! Devices are never freed.
#![allow(unsafe_code)]

use super::{ops, stats};
use crate::kernel::{self, discover::DeviceInfo};
use crate::object::{self, registry, Context, Device, Driver, Kind, Pending};
use crate::plugin;
use crate::provider::{DeviceMatch, Provider};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CPtrResult, CResult};
use rdma_common::Errno;
use std::ffi::{c_char, c_int};
use std::os::unix::ffi::OsStrExt;
use std::ptr::{addr_of, addr_of_mut};

/// rdma-core's `device_list`: the devices of the last `ibv_get_device_list`, in its order.
static DEVICES: Lazy<Mutex<Vec<&'static Device>>> = Lazy::new(|| Mutex::new(Vec::new()));

/// `getenv(name)` set and not `"0"` (rdma-core's `check_env`).
pub(crate) fn check_env(name: &str) -> bool {
    rdma_common::env::flag(name)
}

/// rdma-core's `ibverbs_init`, once per process: logging, fork protection when `RDMAV_FORK_SAFE` /
/// `IBV_FORK_SAFE` ask for it, and the `RLIMIT_MEMLOCK` warning for unprivileged processes.
pub(crate) fn ibverbs_init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        rdma_common::logging::init("libibverbs");
        // Read once here, the library's first call, as rdma-core reads its environment in `ibverbs_init`: no
        // later verb pays for the table or the variable.
        crate::object::registry::init();
        crate::object::stats::wanted();
        if (check_env("RDMAV_FORK_SAFE") || check_env("IBV_FORK_SAFE")) && super::fork::fork_init() != 0 {
            eprintln!("libibverbs: Warning: fork()-safety requested but init failed");
        }
        // SAFETY: plain syscalls on a local struct.
        unsafe {
            if libc::geteuid() != 0 {
                let mut rl: libc::rlimit = std::mem::zeroed();
                if libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut rl) != 0 {
                    eprint!("libibverbs: Warning: getrlimit(RLIMIT_MEMLOCK) failed.");
                } else if rl.rlim_cur <= 32768 {
                    eprintln!(
                        "libibverbs: Warning: RLIMIT_MEMLOCK is {} bytes.\n    This will severely limit memory registrations.",
                        rl.rlim_cur
                    );
                }
            }
        }
    });
}

/// Copies `s` into a fixed C string field, truncated, NUL-terminated.
fn put_cstr(dst: &mut [c_char], s: &[u8]) {
    let n = s.len().min(dst.len() - 1);
    for (d, b) in dst.iter_mut().zip(&s[..n]) {
        *d = *b as c_char;
    }
    dst[n] = 0;
}

/// rdma-core's `decode_knode_type` and the transport it implies.
fn node_and_transport(knode: u8) -> (ibv_node_type, ibv_transport_type) {
    use ibv_node_type::*;
    use ibv_transport_type::*;
    match knode {
        1 => (IBV_NODE_CA, IBV_TRANSPORT_IB),
        2 => (IBV_NODE_SWITCH, IBV_TRANSPORT_IB),
        3 => (IBV_NODE_ROUTER, IBV_TRANSPORT_IB),
        4 => (IBV_NODE_RNIC, IBV_TRANSPORT_IWARP),
        5 => (IBV_NODE_USNIC, IBV_TRANSPORT_USNIC),
        6 => (IBV_NODE_USNIC_UDP, IBV_TRANSPORT_USNIC_UDP),
        7 => (IBV_NODE_UNSPECIFIED, IBV_TRANSPORT_UNSPECIFIED),
        _ => (IBV_NODE_UNKNOWN, IBV_TRANSPORT_UNKNOWN),
    }
}

/// A new device for `info`, served by `driver` and its `provider` (rdma-core's `try_driver`), registered and leaked.
fn new_device(info: DeviceInfo, driver: &'static dyn Driver, provider: &'static dyn Provider) -> &'static Device {
    let mut p = Pending::<Device>::new();
    let d = p.as_ptr();
    let (node, transport) = node_and_transport(info.node_type);
    // SAFETY: filling our own zeroed allocation; every field gets a valid value before `finish`.
    let dev = unsafe {
        let ibv = addr_of_mut!((*d).ibv);
        addr_of_mut!((*ibv).node_type).write(node);
        addr_of_mut!((*ibv).transport_type).write(transport);
        put_cstr(&mut (*ibv).name, info.name.as_bytes());
        put_cstr(&mut (*ibv).dev_name, info.uverbs_name.as_bytes());
        put_cstr(&mut (*ibv).dev_path, info.uverbs_sysfs_path.as_os_str().as_bytes());
        put_cstr(&mut (*ibv).ibdev_path, info.ibdev_sysfs_path.as_os_str().as_bytes());
        addr_of_mut!((*d).node_guid).write(Mutex::new(info.node_guid));
        let public = driver.public_device().unwrap_or(ibv);
        if public != ibv {
            // A plug-in's device: the public fields rdma-core's core fills after `alloc_device`.
            std::ptr::copy_nonoverlapping(
                addr_of!((*ibv).node_type).cast::<u8>(),
                addr_of_mut!((*public).node_type).cast::<u8>(),
                size_of::<ibv_device>() - std::mem::offset_of!(ibv_device, node_type),
            );
        }
        addr_of_mut!((*d).public).write(public);
        addr_of_mut!((*d).info).write(info);
        addr_of_mut!((*d).driver).write(driver);
        addr_of_mut!((*d).provider).write(provider);
        &*p.finish()
    };
    registry::insert_side(dev.public, Kind::Device, std::ptr::from_ref(dev) as usize);
    dev
}

/// rdma-core's `same_sysfs_dev`: the same uverbs device and kernel index (and name).
fn same_device(a: &DeviceInfo, b: &DeviceInfo) -> bool {
    a.uverbs_name == b.uverbs_name && a.index == b.index && a.name == b.name && a.dev == b.dev
}

/// Refreshes the device list from discovery (rdma-core's `ibverbs_get_device_list`) and returns it.
fn refresh() -> Result<Vec<&'static Device>> {
    let found = kernel::discover::discover()?;
    let mut list = DEVICES.lock();
    let kept: Vec<&'static Device> =
        list.iter().copied().filter(|d| found.iter().any(|f| same_device(&d.info, f))).collect();
    let mut fresh = Vec::new();
    for info in found {
        if kept.iter().any(|d| same_device(&d.info, &info)) {
            continue;
        }
        let m = DeviceMatch { driver_id: info.driver_id, ibdev_name: &info.name, abi_ver: info.abi_version };
        match plugin::select_driver(&m, &info) {
            Some((driver, provider)) => fresh.push(new_device(info, driver, provider)),
            None => {
                if rdma_common::env::is_set("IBV_SHOW_WARNINGS") {
                    eprintln!("libibverbs: Warning: no userspace device-specific driver found for {}", info.name);
                }
                log::info!("{}: no built-in provider drives this device (driver {:?})", info.name, info.driver);
            }
        }
    }
    fresh.extend(kept);
    *list = fresh.clone();
    Ok(fresh)
}

/// The device behind a `struct ibv_device *` from this library (`EINVAL` otherwise).
pub(crate) fn device<'a>(p: *mut ibv_device) -> Result<&'a Device> {
    Device::from_ibv(p)
}

/// `ibv_get_device_list(3)`: returns a NULL-terminated array of the RDMA devices present that a provider of this
/// library drives, and stores their count in `*num_devices` when `num_devices` is not NULL. Free it with
/// `ibv_free_device_list(3)`.
///
/// Returns NULL with `errno` set on failure: `ENOSYS` when the system has no RDMA stack (no netlink RDMA family
/// and no `/sys/class/infiniband_verbs`, or an unsupported uverbs ABI), `ENOMEM`. No devices is an empty list, not
/// an error. As rdma-core does, `*num_devices` is set to 0 first, so it is 0 after a failure.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_device_list(num_devices: *mut c_int) -> *mut *mut ibv_device {
    if !num_devices.is_null() {
        // SAFETY: a non-NULL `num_devices` points to an int the caller owns.
        unsafe { num_devices.write(0) };
    }
    ffi::boundary("ibv_get_device_list", || -> Result<*mut *mut ibv_device> {
        ibverbs_init();
        let devs = refresh()?;
        // SAFETY: a fresh allocation of n + 1 pointers, filled below.
        let arr = unsafe { libc::calloc(devs.len() + 1, size_of::<*mut ibv_device>()) }.cast::<*mut ibv_device>();
        if arr.is_null() {
            return Err(Errno::ENOMEM);
        }
        for (i, d) in devs.iter().enumerate() {
            // SAFETY: i < n.
            unsafe { arr.add(i).write(d.public) };
        }
        registry::insert(arr, Kind::DeviceList);
        if !num_devices.is_null() {
            // SAFETY: as above.
            unsafe { num_devices.write(devs.len() as c_int) };
        }
        log::debug!("ibv_get_device_list: {} device(s)", devs.len());
        Ok(arr)
    })
    .or_null_errno()
}

/// `ibv_free_device_list(3)`: frees an array returned by `ibv_get_device_list(3)`. The devices stay valid here
/// (rdma-core frees those not opened; using them afterwards is undefined there).
///
/// NULL, and any pointer that is not a list from `ibv_get_device_list(3)` (or was freed already), is ignored
/// (rdma-core would crash).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_free_device_list(list: *mut *mut ibv_device) {
    let _ = ffi::boundary("ibv_free_device_list", || -> Result<()> {
        if !registry::remove(list, Kind::DeviceList) {
            if !list.is_null() {
                log::warn!("ibv_free_device_list: {list:p} is not a device list of this library; ignored");
            }
            return Err(Errno::EINVAL);
        }
        // SAFETY: allocated with calloc by ibv_get_device_list, unregistered above (freed once).
        unsafe { libc::free(list.cast()) };
        Ok(())
    });
}

/// `ibv_get_device_name(3)`: returns the kernel name of a device (`rxe0`, `mlx5_0`), i.e. `device->name`.
///
/// The string lives as long as the process. NULL, or a pointer that is not a device of this library, gives NULL
/// with `errno = EINVAL`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_device_name(device: *mut ibv_device) -> *const c_char {
    ffi::boundary("ibv_get_device_name", || {
        let d = self::device(device)?;
        Ok(d.ibv.name.as_ptr().cast_mut())
    })
    .or_null_errno()
    .cast_const()
}

/// `ibv_get_device_index(3)`: returns the kernel index of a device, or -1 when the kernel did not report it
/// (devices found through sysfs rather than netlink). An invalid device gives -1 with `errno = EINVAL`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_device_index(device: *mut ibv_device) -> c_int {
    ffi::boundary("ibv_get_device_index", || -> Result<c_int> {
        let d = self::device(device)?;
        Ok(d.info.index.map_or(-1, |i| i as c_int))
    })
    .or_minus_one_errno()
}

/// `ibv_get_device_guid(3)`: returns the node GUID of a device in network byte order (from netlink, else read
/// once from sysfs `node_guid`), or 0 when it cannot be read (`errno` from the read; `EINVAL` for an invalid
/// device).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_device_guid(device: *mut ibv_device) -> __be64 {
    let r = ffi::boundary("ibv_get_device_guid", || -> Result<__be64> {
        let d = self::device(device)?;
        let mut g = d.node_guid.lock();
        if let Some(guid) = *g {
            return Ok(guid.to_be());
        }
        let s = kernel::sysfs::read_attr(&d.info.ibdev_sysfs_path.join("node_guid"))?;
        let guid = kernel::sysfs::parse_guid(&s)?;
        *g = Some(guid);
        Ok(guid.to_be())
    });
    match r {
        Ok(guid) => guid,
        Err(e) => {
            e.set();
            0
        }
    }
}

/// Opens a context on `dev` (rdma-core's `verbs_open_device`): the driver's context (for a native provider: the
/// uverbs fd, GET_CONTEXT with its async event fd, our `verbs_context`; for a plug-in: its `alloc_context`), then
/// the library's ops in every slot (rdma-core's `set_lib_ops`), the counters when asked, and the registry.
fn open_context(dev: &'static Device, private_data: *mut std::ffi::c_void) -> Result<*mut ibv_context> {
    // SAFETY: `private_data` is what the caller of verbs_open_device gave for this device's provider (or NULL).
    let ibv = unsafe { dev.driver.open_context(dev, private_data) }?;
    // SAFETY: a live context whose verbs_context the driver initialised, not yet handed out; `priv` is ours.
    unsafe {
        let vctx = object::vctx_of(ibv);
        let c = &*(*vctx).r#priv.cast::<Context>();
        ops::set_lib_ops(&mut *vctx, c.provider);
        if crate::plugin::has_65_slots(c) {
            ops::set_lib_ops_65(&mut *rdma_common::abi::driver::head_65(ibv));
        }
        stats::context_opened(ibv, dev, dev.driver.counts_doorbells());
    }
    registry::insert(ibv, Kind::Context);
    Ok(ibv)
}

/// `ibv_open_device(3)`: opens a device for use and returns its context (a `struct ibv_context` that is the last
/// member of a `struct verbs_context`, so the header's inlines find the extended ops).
///
/// Returns NULL with `errno` set on failure: `EINVAL` for NULL or a pointer that is not a device of this
/// library; `open(2)`'s errno for `/dev/infiniband/uverbsN` (`EACCES`, `ENOENT`, ...); the kernel's for
/// GET_CONTEXT.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_open_device(device: *mut ibv_device) -> *mut ibv_context {
    ffi::boundary("ibv_open_device", || -> Result<*mut ibv_context> {
        ibverbs_init();
        let dev = self::device(device)?;
        open_context(dev, std::ptr::null_mut()).inspect_err(|e| log::debug!("ibv_open_device({}): {e}", dev.info.name))
    })
    .or_null_errno()
}

/// rdma-core's `verbs_open_device`: `ibv_open_device(3)` handing `private_data` to the provider's
/// `alloc_context` (what `mlx5dv_open_device` uses). A native provider takes none: non-NULL data is refused with
/// `EOPNOTSUPP` there, never dropped. NULL with `errno` on failure, as `ibv_open_device(3)`.
///
/// # Safety
/// `device` is NULL or a pointer from C (checked against the registry); `private_data` is what the provider expects.
pub(crate) unsafe fn open_device_with(
    device: *mut ibv_device,
    private_data: *mut std::ffi::c_void,
) -> *mut ibv_context {
    ffi::boundary("verbs_open_device", || -> Result<*mut ibv_context> {
        ibverbs_init();
        let dev = self::device(device)?;
        open_context(dev, private_data)
    })
    .or_null_errno()
}

/// `ibv_close_device(3)`: closes a context from `ibv_open_device(3)`: its command and async event fds are closed,
/// which makes the kernel destroy every object still created on it (their memory here is not freed, as with
/// rdma-core; do not use them afterwards).
///
/// Returns 0, or `EINVAL` for NULL or a pointer that is not a live context of this library (rdma-core's returns
/// -1 only in its documentation: it always returns 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_close_device(context: *mut ibv_context) -> c_int {
    ffi::boundary("ibv_close_device", || -> Result<()> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        if !registry::remove(context, Kind::Context) {
            return Err(Errno::EINVAL);
        }
        stats::context_closing(context);
        // SAFETY: a context we registered, now unregistered: nobody can reach it through this library.
        unsafe { ctx.device.driver.close_context(ctx) }
    })
    .ret_errno()
}

/// `ibv_import_device(3)`: creates a context on a uverbs command fd shared by another process (the context does
/// not own `cmd_fd`).
///
/// Returns NULL with `errno` set: `EINVAL` when `cmd_fd` is not a character device, `ENODEV` when it is not one
/// of the devices listed, `EOPNOTSUPP` when the device's provider cannot import contexts (rxe cannot, as in
/// rdma-core).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_device(cmd_fd: c_int) -> *mut ibv_context {
    ffi::boundary("ibv_import_device", || -> Result<*mut ibv_context> {
        ibverbs_init();
        // SAFETY: fstat on a caller-given number; a zeroed stat is a valid out buffer.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if cmd_fd < 0 || unsafe { libc::fstat(cmd_fd, &mut st) } != 0 || st.st_mode & libc::S_IFMT != libc::S_IFCHR {
            return Err(Errno::EINVAL);
        }
        let devs = refresh().map_err(|_| Errno::ENODEV)?;
        let rdev = (libc::major(st.st_rdev), libc::minor(st.st_rdev));
        let dev = devs.iter().find(|d| d.info.dev == rdev).ok_or(Errno::ENODEV)?;
        log::debug!("ibv_import_device({cmd_fd}): {} has no import_context", dev.info.name);
        Err(Errno::EOPNOTSUPP)
    })
    .or_null_errno()
}

use std::mem::size_of;

rdma_common::check_signatures!(rdma_common::abi::verbs;
    ibv_get_device_list, ibv_free_device_list, ibv_get_device_name, ibv_get_device_index, ibv_get_device_guid,
    ibv_open_device, ibv_close_device, ibv_import_device,
);
