//! The RDMA devices as librdmacm tracks them (rdma-core's `struct cma_device` list): opened on first use, each with
//! the verbs context and PD (and XRC domain) that every id bound to it shares, reference-counted by those ids and
//! by `rdma_get_devices` lists, kept in step with libibverbs' device list (`sync_devices_list`). Guarded by `DEVS`.
#![allow(unsafe_code)] // libibverbs calls on the devices, contexts and PDs

use crate::verbs::{self, DeviceCaps};
use parking_lot::Mutex;
use rdma_common::abi::verbs::*;
use rdma_common::errno::{Errno, Result};
use std::collections::HashSet;
use std::ffi::c_int;
use std::ptr::null_mut;

/// An RDMA device as librdmacm tracks it (rdma-core's `struct cma_device`): opened on first use, with one PD
/// (and XRC domain) shared by the ids bound to it, reference-counted by those ids and by `rdma_get_devices` lists.
pub(crate) struct CmaDevice {
    pub dev: *mut ibv_device,
    /// Node GUID, big-endian as `ibv_get_device_guid` returns it and the kernel reports it.
    pub guid: u64,
    /// `ibv_get_device_index`, -1 when unknown.
    pub ibv_idx: i32,
    pub verbs: *mut ibv_context,
    pub pd: *mut ibv_pd,
    pub xrcd: *mut ibv_xrcd,
    /// `IBV_LINK_LAYER_*` of each port (index `port_num - 1`).
    pub link_layer: Vec<u8>,
    pub caps: DeviceCaps,
    refcnt: i32,
    dead: bool,
}

impl CmaDevice {
    /// `ucma_init_device`: opens the device and reads its limits and ports, once.
    fn init(&mut self) -> Result<()> {
        if !self.verbs.is_null() {
            return Ok(());
        }
        // SAFETY: `dev` comes from the current device list, which we keep alive.
        let ctx = verbs::ptr(unsafe { ibv_open_device(self.dev) }).map_err(|_| Errno::ENODEV)?;
        // SAFETY: `ctx` was just opened.
        let caps = match unsafe { verbs::query_device(ctx) } {
            Ok(c) => c,
            Err(e) => {
                // SAFETY: `ctx` is ours and unused.
                unsafe { ibv_close_device(ctx) };
                return Err(e);
            }
        };
        self.link_layer = (1..=caps.phys_port_cnt)
            // SAFETY: `ctx` is open.
            .map(|p| unsafe { verbs::query_port_link_layer(ctx, p) }.unwrap_or(IBV_LINK_LAYER_UNSPECIFIED))
            .collect();
        self.caps = caps;
        self.verbs = ctx;
        Ok(())
    }

    /// The largest `initiator_depth` the device supports (rdma-core keeps it as `uint8_t`).
    pub fn max_initiator_depth(&self) -> u8 {
        self.caps.max_qp_init_rd_atom as u8
    }

    /// The largest `responder_resources` the device supports.
    pub fn max_responder_resources(&self) -> u8 {
        self.caps.max_qp_rd_atom as u8
    }

    fn matches(&self, guid: u64, idx: u32) -> bool {
        if idx == u32::MAX || self.ibv_idx == -1 {
            return self.guid == guid;
        }
        self.ibv_idx as u32 == idx && self.guid == guid
    }

    /// Releases what the device holds (when no id or list refers to it any more).
    fn release(&mut self) {
        // SAFETY: these are ours, created on `verbs`, and nothing refers to them any more (refcnt 0).
        unsafe {
            if !self.xrcd.is_null() {
                verbs::close_xrcd(self.verbs, self.xrcd);
            }
            if !self.pd.is_null() {
                ibv_dealloc_pd(self.pd);
            }
            if !self.verbs.is_null() {
                ibv_close_device(self.verbs);
            }
        }
        self.xrcd = null_mut();
        self.pd = null_mut();
        self.verbs = null_mut();
    }
}

pub(crate) struct Devices {
    /// Sorted by `ibv_idx` (or GUID when the index is unknown), as rdma-core sorts them. Boxed: ids keep pointers
    /// to the devices, which must not move when the list is sorted or grows.
    #[allow(clippy::vec_box)]
    list: Vec<Box<CmaDevice>>,
    /// The `ibv_get_device_list` array the `dev` pointers come from.
    dev_list: *mut *mut ibv_device,
}

// SAFETY: the raw pointers are libibverbs objects, usable from any thread; access is serialised by `DEVS`.
unsafe impl Send for Devices {}

pub(crate) static DEVS: Mutex<Devices> = Mutex::new(Devices { list: Vec::new(), dev_list: null_mut() });

impl Devices {
    /// `sync_devices_list`: adds devices that appeared, drops (or, while referenced, marks dead) those that went.
    /// Errors: `ENODEV` when there is no device at all.
    pub(super) fn sync(&mut self) -> Result<()> {
        let mut n: c_int = 0;
        // SAFETY: plain call; `n` is writable.
        let new_list = unsafe { ibv_get_device_list(&mut n) };
        if new_list.is_null() {
            return Err(Errno::ENODEV);
        }
        if n <= 0 {
            // SAFETY: the list we just got.
            unsafe { ibv_free_device_list(new_list) };
            return Err(Errno::ENODEV);
        }
        // SAFETY: the list holds `n` device pointers followed by NULL.
        let new: Vec<*mut ibv_device> = (0..n as usize).map(|i| unsafe { *new_list.add(i) }).collect();
        let present: HashSet<usize> = new.iter().map(|&d| d as usize).collect();
        for d in self.list.iter_mut() {
            if !present.contains(&(d.dev as usize)) {
                d.dead = true;
            }
        }
        self.list.retain_mut(|d| {
            if d.dead && d.refcnt == 0 {
                d.release();
                false
            } else {
                true
            }
        });
        for &dev in &new {
            if self.list.iter().any(|d| d.dev == dev) {
                continue;
            }
            // SAFETY: `dev` is a live device of the new list.
            let (guid, idx) = unsafe { (ibv_get_device_guid(dev), ibv_get_device_index(dev)) };
            self.list.push(Box::new(CmaDevice {
                dev,
                guid,
                ibv_idx: idx,
                verbs: null_mut(),
                pd: null_mut(),
                xrcd: null_mut(),
                link_layer: Vec::new(),
                caps: DeviceCaps::default(),
                refcnt: 0,
                dead: false,
            }));
        }
        self.list.sort_by_key(|d| if d.ibv_idx == -1 { (1, u64::from_be(d.guid)) } else { (0, d.ibv_idx as u64) });
        if !self.dev_list.is_null() {
            // SAFETY: the previous list; devices still present are referenced by the new one, opened ones by their
            // context.
            unsafe { ibv_free_device_list(self.dev_list) };
        }
        self.dev_list = new_list;
        Ok(())
    }

    fn find(&mut self, guid: u64, idx: u32) -> Option<&mut CmaDevice> {
        self.list.iter_mut().find(|d| !d.dead && d.matches(guid, idx)).map(|b| &mut **b)
    }
}

/// `ucma_get_device`: the device with node GUID `guid` (and index `idx`, `u32::MAX` when the kernel does not say),
/// opened, with its shared PD allocated, and referenced once more. Errors: `ENODEV` when no such device exists,
/// the `ibv_alloc_pd` errno.
pub(crate) fn get_device(guid: u64, idx: u32) -> Result<*mut CmaDevice> {
    let mut devs = DEVS.lock();
    if devs.find(guid, idx).is_none() {
        devs.sync()?;
    }
    let d = devs.find(guid, idx).ok_or(Errno::ENODEV)?;
    d.init()?;
    if d.pd.is_null() {
        // SAFETY: `verbs` is open.
        d.pd = verbs::ptr(unsafe { ibv_alloc_pd(d.verbs) })?;
    }
    d.refcnt += 1;
    Ok(d as *mut CmaDevice)
}

/// `ucma_put_device`: drops one reference; the last one frees the shared PD and XRC domain (and the device, if it
/// went away meanwhile).
pub(crate) fn put_device(dev: *mut CmaDevice) {
    let mut devs = DEVS.lock();
    // SAFETY: a referenced device stays in the list (boxed, never moved) and is only touched under DEVS (held).
    let d = unsafe { &mut *dev };
    d.refcnt -= 1;
    if d.refcnt > 0 {
        return;
    }
    // SAFETY: no id uses the PD/XRCD any more; failures (objects the application still holds) are rdma-core's
    // too, and ignored like there.
    unsafe {
        if !d.pd.is_null() {
            ibv_dealloc_pd(d.pd);
        }
        if !d.xrcd.is_null() {
            verbs::close_xrcd(d.verbs, d.xrcd);
        }
    }
    d.pd = null_mut();
    d.xrcd = null_mut();
    if d.dead {
        remove_dead(&mut devs, dev);
    }
}

/// The last reference to a device that went away is gone: it leaves the list. Out of line (rare): the device is
/// found by address only here, so that `rdma_destroy_id` of an id on a device runs less code (docs/bench.md, "the
/// cmtime finding").
#[cold]
#[inline(never)]
fn remove_dead(devs: &mut Devices, dev: *mut CmaDevice) {
    if let Some(pos) = devs.list.iter().position(|d| std::ptr::eq(&**d, dev)) {
        devs.list[pos].release();
        devs.list.remove(pos);
    }
}

/// Reads a device's fields under the lock. `dev` comes from [`get_device`] and is still referenced.
pub(crate) fn with_device<R>(dev: *mut CmaDevice, f: impl FnOnce(&mut CmaDevice) -> R) -> R {
    let _devs = DEVS.lock();
    // SAFETY: a referenced device stays in the list (boxed, never moved) and is only touched under DEVS.
    f(unsafe { &mut *dev })
}

/// `ucma_get_xrcd`: the device's shared XRC domain, opened on first use.
pub(crate) fn get_xrcd(dev: *mut CmaDevice) -> Result<*mut ibv_xrcd> {
    with_device(dev, |d| {
        if d.xrcd.is_null() {
            // SAFETY: `verbs` is open (the device is referenced).
            d.xrcd = unsafe { verbs::open_xrcd(d.verbs) }?;
        }
        Ok(d.xrcd)
    })
}

/// `rdma_get_devices`: opens every device (marking those that fail dead) and returns their contexts, each
/// referenced once more.
pub(crate) fn get_devices() -> Result<Vec<*mut ibv_context>> {
    let mut devs = DEVS.lock();
    devs.sync()?;
    let mut out = Vec::new();
    for d in devs.list.iter_mut() {
        if d.dead {
            continue;
        }
        if d.init().is_err() {
            d.dead = true;
            continue;
        }
        d.refcnt += 1;
        out.push(d.verbs);
    }
    Ok(out)
}

/// `rdma_free_devices`: drops the references a [`get_devices`] list took.
pub(crate) fn free_devices(list: &[*mut ibv_context]) {
    let mut devs = DEVS.lock();
    for &ctx in list {
        if let Some(pos) = devs.list.iter().position(|d| d.verbs == ctx && !ctx.is_null()) {
            let d = &mut devs.list[pos];
            d.refcnt -= 1;
            if d.refcnt == 0 && d.dead {
                d.release();
                devs.list.remove(pos);
            }
        }
    }
}
