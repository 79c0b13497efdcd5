//! rdma-core's provider plug-ins (`lib<name>-rdmav34.so`, `libmlx5.so.1`, ...) as providers of this libibverbs.
//!
//! * **Registration**: a plug-in's ELF constructor calls `verbs_register_driver_34` with its `verbs_device_ops`;
//!   [`register`] lists it. [`load_plugins`] dlopens the plug-ins named by `/etc/libibverbs.d/*.driver`
//!   (`driver NAME` lines) and `RDMAV_DRIVERS`/`IBV_DRIVERS` (ignored in set-uid processes), from rdma-core's
//!   provider directory, once, and only when some device is not served by a native provider (or when
//!   `RDMAV_PROVIDER=plugin`).
//! * **Matching** ([`select`]): rdma-core 44's `try_drivers`: driver id first, then each plug-in's match table
//!   (driver id, `rdma_device:N<name>` name patterns, the PCI/modalias of `device/modalias`) or its
//!   `match_device`, then the ABI range; the matching plug-in's `alloc_device` makes the device.
//! * **The driver and provider** ([`Plugin`]): one per device; implements [`Driver`] (contexts, object creation and
//!   destruction) and [`Provider`] (the other verbs) by calling the plug-in's `verbs_context_ops` (kept, as rdma-core
//!   keeps them in its private context data, in our `Context.driver_data`), with the generic work rdma-core's core
//!   does around each call. Its objects are the plug-in's own allocations.
//!
//! The interface the plug-ins import is exported by `crate::private` (the `ibv_cmd_*` and the context half:
//! `_verbs_init_and_alloc_context`, `verbs_set_ops`, ...); the context half lands here.
#![allow(unsafe_code, clippy::missing_safety_doc)]

pub mod generation;

use crate::kernel::discover::DeviceInfo;
use crate::object::{self, registry, Context, Device, Driver, Kind, Pending};
use crate::provider::verbs::*;
use crate::provider::{DataPathOps, DeviceMatch, Provider};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
pub use rdma_common::abi::driver::Generation;
use rdma_common::abi::driver::*;
use rdma_common::errno::Result;
use rdma_common::Errno;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::os::fd::IntoRawFd;
use std::os::unix::ffi::OsStrExt;
use std::ptr::{addr_of_mut, null_mut};

/// rdma-core's provider directory on Debian (`VERBS_PROVIDER_DIR`) and its plug-in name suffixes, one per private
/// ABI this library serves, newest first: a `driver NAME` line loads `lib<NAME>-rdmav65.so` if there is one, else
/// `lib<NAME>-rdmav34.so`.
pub const PROVIDER_DIR: &str = "/usr/lib/x86_64-linux-gnu/libibverbs";
const PROVIDER_SUFFIXES: [&str; 2] = ["-rdmav65.so", "-rdmav34.so"];
/// rdma-core's `IBV_CONFIG_DIR`.
const CONFIG_DIR: &str = "/etc/libibverbs.d";

/// `RDMAV_PROVIDER`: which providers serve a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `auto` (default): a native provider where one matches, else a plug-in.
    Auto,
    /// `plugin`: a plug-in wherever one matches, else a native provider.
    Plugin,
    /// `native`: never load a plug-in.
    Native,
}

/// The selection mode from `RDMAV_PROVIDER` (unknown values: `auto`, with a warning).
pub fn mode() -> Mode {
    static MODE: Lazy<Mode> = Lazy::new(|| match rdma_common::env::var("RDMAV_PROVIDER").as_deref() {
        None | Some("") | Some("auto") => Mode::Auto,
        Some("plugin") => Mode::Plugin,
        Some("native") => Mode::Native,
        Some(other) => {
            log::warn!("RDMAV_PROVIDER={other}: unknown (auto, plugin, native); using auto");
            Mode::Auto
        }
    });
    *MODE
}

/// The registered plug-ins (`verbs_device_ops` addresses, with the generation each was built for), in
/// registration order.
static DRIVERS: Lazy<Mutex<Vec<(usize, Generation)>>> = Lazy::new(|| Mutex::new(Vec::new()));

/// `verbs_register_driver_34` / `_65`: lists a plug-in (once per `ops`) with its generation: for PABI 65 the
/// 65 one, for PABI 34 the one [`generation::detect_34`] decides (rdma-core 44's or 56's).
///
/// # Safety
/// `ops` is NULL or a provider's static `verbs_device_ops` (its name a string, its table ended by a sentinel).
pub unsafe fn register(ops: *const verbs_device_ops, pabi: u32) {
    if ops.is_null() {
        return;
    }
    // SAFETY: a provider passes its static ops (name, table ended by a sentinel).
    let (name, n) = unsafe { (cstr((*ops).name), table_len(&*ops)) };
    if DRIVERS.lock().iter().any(|&(o, _)| o == ops as usize) {
        return;
    }
    let generation = match pabi {
        65 => Generation::R65,
        _ => generation::detect_34(ops.cast(), &name),
    };
    let mut d = DRIVERS.lock();
    if !d.iter().any(|&(o, _)| o == ops as usize) {
        d.push((ops as usize, generation));
    }
    log::debug!("registered provider plug-in '{name}' (match table: {n} entries), built for {generation}");
}

fn cstr<'a>(p: *const c_char) -> std::borrow::Cow<'a, str> {
    if p.is_null() {
        return "(null)".into();
    }
    // SAFETY: callers pass NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy()
}

/// The `driver NAME` entries of rdma-core's config directory.
fn config_names(dir: &str) -> Vec<String> {
    let mut names = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        log::warn!("couldn't open config directory '{dir}'");
        return names;
    };
    let mut files: Vec<_> = rd.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
    files.sort();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        config_file_names(&text, &f, &mut names);
    }
    names
}

/// The `driver NAME` entries of one config file's text (`file` names it in warnings), appended to `names`; blank
/// lines and `#` comments are skipped, other directives logged and ignored (rdma-core's `read_config_file`).
pub fn config_file_names(text: &str, file: &std::path::Path, names: &mut Vec<String>) {
    for line in text.lines() {
        let mut w = line.split_whitespace();
        match (w.next(), w.next()) {
            (None, _) => {}
            (Some(c), _) if c.starts_with('#') => {}
            (Some("driver"), Some(name)) => names.push(name.to_string()),
            (Some(other), _) => log::warn!("ignoring bad config directive '{other}' in file '{}'", file.display()),
        }
    }
}

/// The files [`load_one`] tries for a `driver NAME` entry, in order: for each PABI (65, then 34) the provider
/// directory, then the library path; for an absolute path prefix the prefix with each suffix (rdma-core's
/// `load_driver`, once per PABI).
fn candidates(name: &str) -> Vec<String> {
    let mut c = Vec::new();
    for suffix in PROVIDER_SUFFIXES {
        if name.starts_with('/') {
            c.push(format!("{name}{suffix}"));
        } else {
            c.push(format!("{PROVIDER_DIR}/lib{name}{suffix}"));
            c.push(format!("lib{name}{suffix}"));
        }
    }
    c
}

/// dlopens one plug-in by name (`lib<name>-rdmav65.so`, then `-rdmav34.so`: in the provider directory, then the
/// library path) or by absolute path prefix; at most one per name. Its constructor registers it.
fn load_one(name: &str) {
    let mut errors = Vec::new();
    for so in &candidates(name) {
        let Ok(c) = CString::new(so.as_str()) else { return };
        // SAFETY: dlopen of a provider library; its constructor calls verbs_register_driver_34 or _65.
        let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW) };
        if !h.is_null() {
            log::debug!("loaded provider plug-in {so}");
            return;
        }
        // SAFETY: dlerror returns NULL or a thread-local message.
        let err = cstr(unsafe { libc::dlerror() }).into_owned();
        log::debug!("provider plug-in {so}: {err}");
        errors.push(err);
    }
    // The most telling error: one about a file that exists (a missing symbol or version), else the last.
    let err = errors.iter().find(|e| !e.contains("No such file")).or(errors.last());
    log::warn!("couldn't load driver '{name}': {}", err.map_or("", String::as_str));
}

/// Loads the configured plug-ins, once per process (rdma-core's `load_drivers`).
pub fn load_plugins() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let mut names = Vec::new();
        // Ignored in a set-uid process (rdma_common::env::path).
        if let Some(v) = rdma_common::env::path("RDMAV_DRIVERS").or_else(|| rdma_common::env::path("IBV_DRIVERS")) {
            let v = v.to_string_lossy().into_owned();
            names.extend(v.split([':', ';']).filter(|s| !s.is_empty()).map(str::to_string));
        }
        names.extend(config_names(CONFIG_DIR));
        for n in names {
            load_one(&n);
        }
    });
}

/// rdma-core's `match_modalias`: a table entry against a modalias-style string.
unsafe fn match_modalias(ent: &verbs_match_ent, value: &CStr) -> bool {
    let pattern = match ent.kind {
        // SAFETY: a MODALIAS entry holds a pattern string.
        VERBS_MATCH_MODALIAS => unsafe { CStr::from_ptr(ent.u.modalias) }.to_owned(),
        VERBS_MATCH_PCI => match CString::new(format!("pci:v{:08X}d{:08X}sv*", ent.vendor, ent.device)) {
            Ok(p) => p,
            Err(_) => return false,
        },
        _ => return false,
    };
    // SAFETY: two NUL-terminated strings.
    unsafe { libc::fnmatch(pattern.as_ptr(), value.as_ptr(), 0) == 0 }
}

/// The number of entries in a plug-in's match table (before its sentinel).
unsafe fn table_len(ops: &verbs_device_ops) -> usize {
    let mut n = 0;
    // SAFETY: the table ends with a SENTINEL entry.
    unsafe {
        let mut e = ops.match_table;
        while !e.is_null() && (*e).kind != VERBS_MATCH_SENTINEL {
            n += 1;
            e = e.add(1);
        }
    }
    n
}

/// The first table entry for which `pred` holds.
unsafe fn find_ent(ops: &verbs_device_ops, pred: impl Fn(&verbs_match_ent) -> bool) -> *const verbs_match_ent {
    let mut e = ops.match_table;
    if e.is_null() {
        return std::ptr::null();
    }
    // SAFETY: the table ends with a SENTINEL entry.
    unsafe {
        while (*e).kind != VERBS_MATCH_SENTINEL {
            if pred(&*e) {
                return e;
            }
            e = e.add(1);
        }
    }
    std::ptr::null()
}

unsafe fn match_driver_id(ops: &verbs_device_ops, sd: &verbs_sysfs_dev) -> *const verbs_match_ent {
    if sd.driver_id == 0 {
        return std::ptr::null();
    }
    // SAFETY: reading the union as the kind says.
    unsafe { find_ent(ops, |e| e.kind == VERBS_MATCH_DRIVER_ID && e.u.driver_id == u64::from(sd.driver_id)) }
}

/// rdma-core's `match_device`: the table (driver id, device name, modalias), then `match_device`, then ABI.
unsafe fn match_device(ops: &verbs_device_ops, sd: *mut verbs_sysfs_dev) -> bool {
    // SAFETY: our sysfs_dev; the plug-in's static table.
    unsafe {
        if !ops.match_table.is_null() {
            let mut m = match_driver_id(ops, &*sd);
            if m.is_null() {
                let name =
                    CString::new(format!("rdma_device:N{}", cstr((*sd).ibdev_name.as_ptr()))).unwrap_or_default();
                m = find_ent(ops, |e| match_modalias(e, &name));
            }
            if m.is_null() {
                if (*sd).flags & VSYSFS_READ_MODALIAS == 0 {
                    (*sd).flags |= VSYSFS_READ_MODALIAS;
                    let path = std::path::Path::new(&*cstr((*sd).ibdev_path.as_ptr())).join("device/modalias");
                    let text = std::fs::read(&path).unwrap_or_default();
                    let n = text.iter().position(|&b| b == b'\n' || b == 0).unwrap_or(text.len()).min(511);
                    for (i, b) in text[..n].iter().enumerate() {
                        (*sd).modalias[i] = *b as c_char;
                    }
                    (*sd).modalias[n] = 0;
                }
                let ma = CStr::from_ptr((*sd).modalias.as_ptr());
                if !ma.is_empty() {
                    m = find_ent(ops, |e| match_modalias(e, ma));
                }
            }
            (*sd).r#match = m;
        }
        if let Some(f) = ops.match_device {
            if !f(sd) {
                return false;
            }
        } else if (*sd).r#match.is_null() {
            return false;
        }
        let abi = (*sd).abi_ver;
        if abi < ops.match_min_abi_version || abi > ops.match_max_abi_version {
            log::warn!(
                "Driver {} does not support the kernel ABI of {abi} (supports {} to {}) for device {}",
                cstr(ops.name),
                ops.match_min_abi_version,
                ops.match_max_abi_version,
                cstr((*sd).ibdev_path.as_ptr())
            );
            return false;
        }
        true
    }
}

fn put_cstr(dst: &mut [c_char], s: &[u8]) {
    let n = s.len().min(dst.len() - 1);
    for (d, b) in dst.iter_mut().zip(&s[..n]) {
        *d = *b as c_char;
    }
    dst[n] = 0;
}

/// A `verbs_sysfs_dev` for a discovered device (leaked: the plug-in keeps a pointer to it for the device's life).
fn sysfs_dev(info: &DeviceInfo) -> *mut verbs_sysfs_dev {
    let mut p = Pending::<verbs_sysfs_dev>::new();
    let d = p.as_ptr();
    // SAFETY: our zeroed allocation; all fields are plain data.
    unsafe {
        put_cstr(&mut (*d).sysfs_name, info.uverbs_name.as_bytes());
        (*d).sysfs_cdev = libc::makedev(info.dev.0, info.dev.1);
        put_cstr(&mut (*d).ibdev_name, info.name.as_bytes());
        put_cstr(&mut (*d).ibdev_path, info.ibdev_sysfs_path.as_os_str().as_bytes());
        (*d).node_guid = info.node_guid.unwrap_or(0).to_be();
        (*d).driver_id = info.driver_id;
        addr_of_mut!((*d).node_type).cast::<u32>().write(node_type_number(info.node_type));
        (*d).ibdev_idx = info.index.map_or(-1, |i| i as c_int);
        (*d).num_ports = info.num_ports.unwrap_or(0);
        (*d).abi_ver = info.abi_version;
        p.finish()
    }
}

/// `enum ibv_node_type` from the kernel's `RDMA_NODE_*` (rdma-core's `decode_knode_type`).
fn node_type_number(knode: u8) -> u32 {
    match knode {
        1..=7 => u32::from(knode),
        _ => (-1i32) as u32,
    }
}

/// The plug-in that drives `info`, if one matches: its device made with `alloc_device` (rdma-core's
/// `try_drivers`). The public `ibv_device` fields are filled by the caller (the entry-point layer).
pub fn select(info: &DeviceInfo) -> Option<&'static Plugin> {
    load_plugins();
    let drivers: Vec<(usize, Generation)> = DRIVERS.lock().clone();
    let sd = sysfs_dev(info);
    // SAFETY: registered ops are static; `sd` is ours.
    unsafe {
        let by_id: Vec<(usize, Generation)> = drivers
            .iter()
            .copied()
            .filter(|&(o, _)| !match_driver_id(&*(o as *const verbs_device_ops), &*sd).is_null())
            .collect();
        for (o, generation) in by_id.into_iter().chain(drivers.iter().copied()) {
            let ops = &*(o as *const verbs_device_ops);
            if !match_device(ops, sd) {
                continue;
            }
            let Some(alloc) = ops.alloc_device else { continue };
            let vdev = alloc(sd);
            if vdev.is_null() {
                log::error!("couldn't allocate device for {}", info.name);
                continue;
            }
            (*vdev).ops = ops;
            (*vdev).refcount = 1;
            (*vdev).sysfs = sd;
            log::debug!("{}: served by provider plug-in '{}' ({generation})", info.name, cstr(ops.name));
            let p: &'static Plugin = Box::leak(Box::new(Plugin { ops, vdev, generation }));
            PLUGINS.lock().push(p);
            return Some(p);
        }
    }
    None
}

/// The driver that serves a discovered device, as `RDMAV_PROVIDER` says ([`Mode`]): by default a native provider
/// where one matches, else an rdma-core plug-in (loaded only now, when needed); `plugin` prefers a plug-in;
/// `native` never loads one. Returns the pair the device keeps: its object level and its fine-grained verbs.
pub fn select_driver(dev: &DeviceMatch<'_>, info: &DeviceInfo) -> Option<(&'static dyn Driver, &'static dyn Provider)> {
    let native = || object::native::select(dev);
    let plug = || select(info).map(|p| (p as &'static dyn Driver, p as &'static dyn Provider));
    match mode() {
        Mode::Native => native(),
        Mode::Auto => native().or_else(plug),
        Mode::Plugin => plug().or_else(native),
    }
}

/// A device served by an rdma-core plug-in: its ops, the `verbs_device` its `alloc_device` made, and the
/// generation of the provider interface the plug-in was built for (decided at its registration).
pub struct Plugin {
    pub ops: &'static verbs_device_ops,
    pub vdev: *mut verbs_device,
    pub generation: Generation,
}

/// Every device's plug-in, as [`select`] made them.
static PLUGINS: Lazy<Mutex<Vec<&'static Plugin>>> = Lazy::new(|| Mutex::new(Vec::new()));

/// The plug-in serving the device C knows as `device` (its `verbs_device.device`), if a plug-in serves it.
fn plugin_of(device: *mut ibv_device) -> Option<&'static Plugin> {
    // SAFETY: only the address of the device member is computed.
    PLUGINS.lock().iter().copied().find(|p| unsafe { &raw mut (*p.vdev).device } == device)
}

/// The generation a context gets when its device is not served by a plug-in (a library's own device opened
/// through `_verbs_init_and_alloc_context`, as the command comparison does): for PABI 34 the override or
/// rdma-core 56's ([`generation::default_34`]), for PABI 65 the 65 one.
fn default_generation(pabi: u32) -> Generation {
    match pabi {
        65 => Generation::R65,
        _ => generation::default_34(),
    }
}

/// Whether the `verbs_context` of `ctx` has the six slots rdma-core 65 put in front: ours (native contexts are
/// allocated in 65's layout) and those of PABI-65 plug-ins, not those of PABI-34 plug-ins.
pub fn has_65_slots(ctx: &Context) -> bool {
    match ctx.driver_data.as_ref().and_then(|d| d.downcast_ref::<PluginContext>()) {
        Some(p) => p.generation.pabi() == 65,
        None => true,
    }
}

/// The generation of the provider interface the context `ctx` is served with: its plug-in's; for any other
/// context (native, or not a context of ours) the PABI-34 default ([`generation::default_34`]).
///
/// # Safety
/// `ctx` is NULL or a pointer from C.
pub unsafe fn generation_of(ctx: *mut ibv_context) -> Generation {
    // SAFETY: checked against the registry first.
    match unsafe { Context::from_ibv(ctx) } {
        Ok(c) => match c.driver_data.as_ref().and_then(|d| d.downcast_ref::<PluginContext>()) {
            Some(p) => p.generation,
            None => generation::default_34(),
        },
        Err(_) => generation::default_34(),
    }
}

// SAFETY: the plug-in's device and ops are process-lifetime data the plug-in itself shares between threads.
unsafe impl Send for Plugin {}
// SAFETY: as above.
unsafe impl Sync for Plugin {}

/// Our per-context record of a plug-in's ops (rdma-core's `verbs_ex_private.ops`) and of the generation its
/// objects are laid out in. The ops are kept in rdma-core 65's table, a superset of PABI 34's (the 17 ops 65 added
/// stay NULL for a PABI-34 plug-in), whichever table the plug-in handed over; the table itself is shared by every
/// context whose plug-in handed over the same ops ([`intern_ops`]), so a context holds only a reference.
pub struct PluginContext {
    pub ops: std::cell::UnsafeCell<&'static r65::verbs_context_ops>,
    pub generation: Generation,
}

/// The ops table of a plug-in context before its first `verbs_set_ops`.
// SAFETY: an all-NULL table is valid (every member is an Option).
static NO_OPS: r65::verbs_context_ops = unsafe { std::mem::zeroed() };

/// Every distinct ops table a plug-in context has had (process lifetime, never freed): a plug-in hands over the
/// same static table(s) for each context it sets up, so this holds one table per plug-in and combination of
/// `verbs_set_ops` calls, and the contexts hold references into it.
static OPS_TABLES: Mutex<Vec<&'static r65::verbs_context_ops>> = Mutex::new(Vec::new());

/// The shared copy of the ops table `t` (made on first sight).
fn intern_ops(t: &r65::verbs_context_ops) -> &'static r65::verbs_context_ops {
    fn bytes(t: &r65::verbs_context_ops) -> &[u8] {
        // SAFETY: the table is plain data (function pointers or NULL), read as its bytes.
        unsafe { std::slice::from_raw_parts(std::ptr::from_ref(t).cast::<u8>(), std::mem::size_of_val(t)) }
    }
    let mut tables = OPS_TABLES.lock();
    if let Some(found) = tables.iter().find(|k| bytes(k) == bytes(t)) {
        return found;
    }
    let leaked: &'static r65::verbs_context_ops = Box::leak(Box::new(*t));
    tables.push(leaked);
    leaked
}
// SAFETY: written only while the plug-in's `alloc_context` runs, before the context is shared.
unsafe impl Sync for PluginContext {}
// SAFETY: as above.
unsafe impl Send for PluginContext {}

/// The plug-in ops of a context (all NULL for a native one): a reference to the shared table, not a copy.
fn ops_of(ctx: &Context) -> &'static r65::verbs_context_ops {
    match ctx.driver_data.as_ref().and_then(|d| d.downcast_ref::<PluginContext>()) {
        // SAFETY: see PluginContext.
        Some(p) => unsafe { *p.ops.get() },
        None => &NO_OPS,
    }
}

/// Casts an untyped op to its prototype `F` (same size as a function pointer).
///
/// # Safety
/// `F` is the member's prototype in `struct verbs_context_ops`.
pub unsafe fn op<F: Copy>(o: AnyOp) -> Option<F> {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<unsafe extern "C" fn()>()) };
    // SAFETY: caller's contract.
    o.map(|f| unsafe { std::mem::transmute_copy::<unsafe extern "C" fn(), F>(&f) })
}

/// GENERATION HOOK (the plug-in generations of helper "gen" replace its body): whether the plug-in behind `ctx`
/// takes `ibv_query_qp_data_in_order`'s flags in its `query_qp_data_in_order` op. rdma-core 56 and 65 pass them
/// (and their providers ignore them); 44's core required 0, and 44's mlx5 answers 0 ("not in order") to any other
/// value, so a 44 plug-in is called with 0. Either way the op's result is read as 56's capability mask: 44's 1 is
/// its WHOLE_MSG bit. Until plug-ins carry their generation, every plug-in is called as 44's, which is right for
/// every provider rdma-core has shipped (56's and 65's ignore the flags).
fn op_flags_understood(_ctx: &Context) -> bool {
    false
}

/// The context of an object's `context` field.
unsafe fn ctx_of<'a>(c: *mut ibv_context) -> Result<&'a Context> {
    // SAFETY: forwarded; the entry point calling us has usually just checked the same context.
    unsafe { Context::from_ibv_memo(c) }
}

/// `ibv_modify_qp` on a context its entry point has just found live: the plug-in's op straight away (without
/// [`ctx_of`]'s second look at the context, as `Provider::modify_qp` must make); `None` when `ctx` has no plug-in
/// `modify_qp` op (a native context: its provider's then; a plug-in without the op: `EOPNOTSUPP` from there).
///
/// # Safety
/// `ctx` is live and `qp` a live QP of it; `attr` is readable.
pub(crate) unsafe fn modify_qp_of(
    ctx: &Context,
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    mask: c_int,
) -> Option<Result<()>> {
    // SAFETY: the member's prototype from driver.h.
    let f =
        unsafe { op::<unsafe extern "C" fn(*mut ibv_qp, *mut ibv_qp_attr, c_int) -> c_int>(ops_of(ctx).modify_qp) }?;
    // SAFETY: the plug-in's op, on its live QP.
    Some(int_ret(unsafe { f(qp, attr, mask) }))
}

/// A NULL return from a plug-in op: its errno (EOPNOTSUPP when it set none, or for a missing op).
fn null_errno() -> Errno {
    match Errno::last() {
        Errno(0) => Errno::ENOMEM,
        e => e,
    }
}

fn int_ret(r: c_int) -> Result<()> {
    match r {
        0 => Ok(()),
        r if r > 0 => Err(Errno(r)),
        _ => Err(match Errno::last() {
            Errno(0) => Errno::EINVAL,
            e => e,
        }),
    }
}

macro_rules! call {
    ($ctx:expr, $name:ident : $ty:ty) => {{
        // SAFETY: the member's prototype from driver.h.
        #[allow(unused_unsafe)]
        let o = unsafe { op::<$ty>(ops_of($ctx).$name) };
        match o {
            Some(f) => f,
            None => return Err(Errno::EOPNOTSUPP),
        }
    }};
}

unsafe extern "C" fn no_post_send(_: *mut ibv_qp, wr: *mut ibv_send_wr, bad: *mut *mut ibv_send_wr) -> c_int {
    if !bad.is_null() {
        // SAFETY: the caller's out pointer.
        unsafe { *bad = wr };
    }
    libc::EOPNOTSUPP
}
unsafe extern "C" fn no_post_recv(_: *mut ibv_qp, wr: *mut ibv_recv_wr, bad: *mut *mut ibv_recv_wr) -> c_int {
    if !bad.is_null() {
        // SAFETY: the caller's out pointer.
        unsafe { *bad = wr };
    }
    libc::EOPNOTSUPP
}
unsafe extern "C" fn no_post_srq_recv(_: *mut ibv_srq, wr: *mut ibv_recv_wr, bad: *mut *mut ibv_recv_wr) -> c_int {
    if !bad.is_null() {
        // SAFETY: the caller's out pointer.
        unsafe { *bad = wr };
    }
    libc::EOPNOTSUPP
}
unsafe extern "C" fn no_poll_cq(_: *mut ibv_cq, _: c_int, _: *mut ibv_wc) -> c_int {
    -libc::EOPNOTSUPP
}
unsafe extern "C" fn no_req_notify_cq(_: *mut ibv_cq, _: c_int) -> c_int {
    libc::EOPNOTSUPP
}
unsafe extern "C" fn no_bind_mw(_: *mut ibv_qp, _: *mut ibv_mw, _: *mut ibv_mw_bind) -> c_int {
    libc::EOPNOTSUPP
}

type CreateQpFn = unsafe extern "C" fn(*mut ibv_pd, *mut ibv_qp_init_attr) -> *mut ibv_qp;
type CreateQpExFn = unsafe extern "C" fn(*mut ibv_context, *mut ibv_qp_init_attr_ex) -> *mut ibv_qp;
type CreateSrqFn = unsafe extern "C" fn(*mut ibv_pd, *mut ibv_srq_init_attr) -> *mut ibv_srq;
type CreateSrqExFn = unsafe extern "C" fn(*mut ibv_context, *mut ibv_srq_init_attr_ex) -> *mut ibv_srq;
type CreateCqFn = unsafe extern "C" fn(*mut ibv_context, c_int, *mut ibv_comp_channel, c_int) -> *mut ibv_cq;
type CreateCqExFn = unsafe extern "C" fn(*mut ibv_context, *mut ibv_cq_init_attr_ex) -> *mut ibv_cq_ex;
type DestroyFn<T> = unsafe extern "C" fn(*mut T) -> c_int;
type AllocBufFn = unsafe extern "C" fn(*mut ibv_pd, usize, *mut *mut ibv_buf) -> *mut c_void;
type CntrValueFn = unsafe extern "C" fn(*mut ibv_comp_cntr, u64) -> c_int;
type CntrReadFn = unsafe extern "C" fn(*mut ibv_comp_cntr, *mut u64) -> c_int;

impl Provider for Plugin {
    fn name(&self) -> &'static str {
        // SAFETY: a static NUL-terminated name.
        let s = unsafe { CStr::from_ptr(self.ops.name) };
        s.to_str().unwrap_or("plugin")
    }

    fn driver_id(&self) -> u32 {
        // SAFETY: our sysfs_dev.
        unsafe { (*(*self.vdev).sysfs).driver_id }
    }

    fn matches(&self, _dev: &DeviceMatch<'_>) -> bool {
        true
    }

    fn data_path(&self) -> DataPathOps {
        DataPathOps {
            bind_mw: no_bind_mw,
            poll_cq: no_poll_cq,
            post_recv: no_post_recv,
            post_send: no_post_send,
            post_srq_recv: no_post_srq_recv,
            req_notify_cq: no_req_notify_cq,
        }
    }

    unsafe fn async_event(&self, c: *mut ibv_context, event: *mut ibv_async_event) {
        // SAFETY: a live context of this provider.
        let Ok(ctx) = (unsafe { ctx_of(c) }) else { return };
        // SAFETY: the member's prototype.
        if let Some(f) =
            unsafe { op::<unsafe extern "C" fn(*mut ibv_context, *mut ibv_async_event)>(ops_of(ctx).async_event) }
        {
            // SAFETY: the plug-in's op on the event just read.
            unsafe { f(c, event) };
        }
    }

    unsafe fn cq_event(&self, cq: *mut ibv_cq) {
        // SAFETY: a CQ the kernel named in a completion event (alive until acknowledged).
        let Ok(ctx) = (unsafe { ctx_of((*cq).context) }) else { return };
        // SAFETY: the member's prototype.
        if let Some(f) = unsafe { op::<unsafe extern "C" fn(*mut ibv_cq)>(ops_of(ctx).cq_event) } {
            // SAFETY: the plug-in's op.
            unsafe { f(cq) };
        }
    }

    unsafe fn query_device_ex(
        &self,
        c: *mut ibv_context,
        input: *const ibv_query_device_ex_input,
        attr: *mut ibv_device_attr_ex,
        attr_size: usize,
    ) -> Result<()> {
        // SAFETY: a live context.
        let ctx = unsafe { ctx_of(c) }?;
        let f = call!(ctx, query_device_ex: unsafe extern "C" fn(*mut ibv_context, *const ibv_query_device_ex_input, *mut ibv_device_attr_ex, usize) -> c_int);
        // SAFETY: the plug-in's op on its context.
        int_ret(unsafe { f(c, input, attr, attr_size) })
    }

    unsafe fn query_port(&self, c: *mut ibv_context, port_num: u8, attr: *mut ibv_port_attr) -> Result<()> {
        // SAFETY: a live context.
        let ctx = unsafe { ctx_of(c) }?;
        let f = call!(ctx, query_port: unsafe extern "C" fn(*mut ibv_context, u8, *mut ibv_port_attr) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(c, port_num, attr) })
    }

    unsafe fn query_qp_data_in_order(&self, qp: *mut ibv_qp, opcode: c_uint, flags: u32) -> u32 {
        // SAFETY: a live QP (the entry point checked it).
        let Ok(ctx) = (unsafe { ctx_of((*qp).context) }) else { return 0 };
        // SAFETY: the member's prototype from driver.h (the opcode is a 4-byte enum, passed as its integer).
        let Some(f) = (unsafe {
            op::<unsafe extern "C" fn(*mut ibv_qp, c_uint, u32) -> c_int>(ops_of(ctx).query_qp_data_in_order)
        }) else {
            return 0; // rdma-core's dummy op
        };
        let flags = if op_flags_understood(ctx) { flags } else { 0 };
        // SAFETY: the plug-in's op on its QP. A 44 op's 1 ("in order") is the WHOLE_MSG bit of 56's mask.
        unsafe { f(qp, opcode, flags) as u32 }
    }

    unsafe fn modify_qp(&self, qp: *mut ibv_qp, attr: *mut ibv_qp_attr, mask: c_int) -> Result<()> {
        // SAFETY: a live QP.
        let ctx = unsafe { ctx_of((*qp).context) }?;
        let f = call!(ctx, modify_qp: unsafe extern "C" fn(*mut ibv_qp, *mut ibv_qp_attr, c_int) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(qp, attr, mask) })
    }

    unsafe fn query_qp(
        &self,
        qp: *mut ibv_qp,
        attr: *mut ibv_qp_attr,
        mask: c_int,
        init: *mut ibv_qp_init_attr,
    ) -> Result<()> {
        // SAFETY: a live QP.
        let ctx = unsafe { ctx_of((*qp).context) }?;
        let f = call!(ctx, query_qp: unsafe extern "C" fn(*mut ibv_qp, *mut ibv_qp_attr, c_int, *mut ibv_qp_init_attr) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(qp, attr, mask, init) })
    }

    unsafe fn modify_srq(&self, srq: *mut ibv_srq, attr: *mut ibv_srq_attr, mask: c_int) -> Result<()> {
        // SAFETY: a live SRQ.
        let ctx = unsafe { ctx_of((*srq).context) }?;
        let f = call!(ctx, modify_srq: unsafe extern "C" fn(*mut ibv_srq, *mut ibv_srq_attr, c_int) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(srq, attr, mask) })
    }

    unsafe fn query_srq(&self, srq: *mut ibv_srq, attr: *mut ibv_srq_attr) -> Result<()> {
        // SAFETY: a live SRQ.
        let ctx = unsafe { ctx_of((*srq).context) }?;
        let f = call!(ctx, query_srq: unsafe extern "C" fn(*mut ibv_srq, *mut ibv_srq_attr) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(srq, attr) })
    }

    unsafe fn get_srq_num(&self, srq: *mut ibv_srq) -> Result<u32> {
        // SAFETY: a live SRQ.
        let ctx = unsafe { ctx_of((*srq).context) }?;
        let f = call!(ctx, get_srq_num: unsafe extern "C" fn(*mut ibv_srq, *mut u32) -> c_int);
        let mut n = 0u32;
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(srq, &mut n) })?;
        Ok(n)
    }

    unsafe fn resize_cq(&self, cq: *mut ibv_cq, cqe: c_int) -> Result<()> {
        // SAFETY: a live CQ.
        let ctx = unsafe { ctx_of((*cq).context) }?;
        let f = call!(ctx, resize_cq: unsafe extern "C" fn(*mut ibv_cq, c_int) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(cq, cqe) })
    }

    unsafe fn modify_cq(&self, cq: *mut ibv_cq, attr: *mut ibv_modify_cq_attr) -> Result<()> {
        // SAFETY: a live CQ.
        let ctx = unsafe { ctx_of((*cq).context) }?;
        let f = call!(ctx, modify_cq: unsafe extern "C" fn(*mut ibv_cq, *mut ibv_modify_cq_attr) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(cq, attr) })
    }

    unsafe fn attach_mcast(&self, qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> Result<()> {
        // SAFETY: a live QP.
        let ctx = unsafe { ctx_of((*qp).context) }?;
        let f = call!(ctx, attach_mcast: unsafe extern "C" fn(*mut ibv_qp, *const ibv_gid, u16) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(qp, gid, lid) })
    }

    unsafe fn detach_mcast(&self, qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> Result<()> {
        // SAFETY: a live QP.
        let ctx = unsafe { ctx_of((*qp).context) }?;
        let f = call!(ctx, detach_mcast: unsafe extern "C" fn(*mut ibv_qp, *const ibv_gid, u16) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(qp, gid, lid) })
    }

    unsafe fn rereg_mr(
        &self,
        mr: *mut ibv_mr,
        flags: c_int,
        pd: *mut ibv_pd,
        addr: *mut c_void,
        length: usize,
        access: c_int,
    ) -> Result<()> {
        // SAFETY: a live MR.
        let ctx = unsafe { ctx_of((*mr).context) }?;
        let f = call!(ctx, rereg_mr: unsafe extern "C" fn(*mut ibv_mr, c_int, *mut ibv_pd, *mut c_void, usize, c_int) -> c_int);
        // SAFETY: the plug-in's op (its first parameter is the verbs_mr, which begins with the ibv_mr).
        int_ret(unsafe { f(mr, flags, pd, addr, length, access) })
    }

    // rdma-core 65's verbs: the plug-in's op (a PABI-65 plug-in's; a PABI-34 plug-in has none), else rdma-core 65's
    // default (its dummy ops: page-aligned heap buffers, EOPNOTSUPP for the rest).

    unsafe fn alloc_buf(&self, pd: *mut ibv_pd, size: usize) -> Result<*mut ibv_buf> {
        // SAFETY: a live PD (checked by the entry-point layer).
        let ctx = unsafe { ctx_of((*pd).context) }?;
        // SAFETY: the member's prototype.
        match unsafe { op::<AllocBufFn>(ops_of(ctx).alloc_buf) } {
            Some(f) => {
                let mut buf: *mut ibv_buf = null_mut();
                Errno(0).set();
                // SAFETY: the plug-in's op; it returns the memory and sets `buf`.
                let mem = unsafe { f(pd, size, &mut buf) };
                if mem.is_null() || buf.is_null() {
                    return Err(null_errno());
                }
                Ok(buf)
            }
            // The trait's default.
            None => crate::provider::mr_ex::alloc_buf(pd, size),
        }
    }

    unsafe fn free_buf(&self, buf: *mut ibv_buf) {
        // SAFETY: a buffer of this provider's alloc_buf: driver.h's struct ibv_buf, its pd live.
        let pd = unsafe { (*buf.cast::<r65::ibv_buf>()).pd };
        // SAFETY: as above.
        let f = unsafe { ctx_of((*pd).context) }
            .ok()
            // SAFETY: the member's prototype.
            .and_then(|ctx| unsafe { op::<unsafe extern "C" fn(*mut ibv_buf)>(ops_of(ctx).free_buf) });
        match f {
            // SAFETY: the plug-in frees its own buffer.
            Some(f) => unsafe { f(buf) },
            // SAFETY: forwarded (the trait's default): a buffer of the default alloc_buf.
            None => unsafe { crate::provider::mr_ex::free_buf(buf) },
        }
    }

    unsafe fn alloc_dmah(&self, c: *mut ibv_context, attr: *mut ibv_dmah_init_attr) -> Result<*mut ibv_dmah> {
        // SAFETY: a live context.
        let ctx = unsafe { ctx_of(c) }?;
        let f =
            call!(ctx, alloc_dmah: unsafe extern "C" fn(*mut ibv_context, *mut ibv_dmah_init_attr) -> *mut ibv_dmah);
        Errno(0).set();
        // SAFETY: the plug-in's op.
        let d = unsafe { f(c, attr) };
        if d.is_null() {
            return Err(null_errno());
        }
        Ok(d)
    }

    unsafe fn dealloc_dmah(&self, dmah: *mut ibv_dmah) -> Result<()> {
        // SAFETY: a live DMA handle of this provider.
        let ctx = unsafe { ctx_of((*dmah).context) }?;
        let f = call!(ctx, dealloc_dmah: DestroyFn<ibv_dmah>);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(dmah) })
    }

    unsafe fn dm_export_dmabuf_fd(&self, dm: *mut ibv_dm) -> Result<std::os::fd::OwnedFd> {
        // SAFETY: a live device memory of this provider.
        let ctx = unsafe { ctx_of((*dm).context) }?;
        let f = call!(ctx, dm_export_dmabuf_fd: DestroyFn<ibv_dm>);
        Errno(0).set();
        // SAFETY: the plug-in's op: a new fd, or -1 with errno.
        let fd = unsafe { f(dm) };
        if fd < 0 {
            return Err(null_errno());
        }
        // SAFETY: a new fd the op handed to us.
        Ok(unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) })
    }

    unsafe fn query_port_speed(&self, c: *mut ibv_context, port_num: u32) -> Result<u64> {
        // SAFETY: a live context.
        let ctx = unsafe { ctx_of(c) }?;
        let f = call!(ctx, query_port_speed: unsafe extern "C" fn(*mut ibv_context, u32, *mut u64) -> c_int);
        let mut speed = 0u64;
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(c, port_num, &mut speed) })?;
        Ok(speed)
    }

    unsafe fn create_comp_cntr(
        &self,
        c: *mut ibv_context,
        attr: *mut ibv_comp_cntr_init_attr,
    ) -> Result<*mut ibv_comp_cntr> {
        // SAFETY: a live context.
        let ctx = unsafe { ctx_of(c) }?;
        let f = call!(ctx, create_comp_cntr: unsafe extern "C" fn(*mut ibv_context, *mut ibv_comp_cntr_init_attr) -> *mut ibv_comp_cntr);
        Errno(0).set();
        // SAFETY: the plug-in's op.
        let cc = unsafe { f(c, attr) };
        if cc.is_null() {
            return Err(null_errno());
        }
        Ok(cc)
    }

    unsafe fn destroy_comp_cntr(&self, cc: *mut ibv_comp_cntr) -> Result<()> {
        // SAFETY: a live counter of this provider.
        let ctx = unsafe { ctx_of((*cc).context) }?;
        let f = call!(ctx, destroy_comp_cntr: DestroyFn<ibv_comp_cntr>);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(cc) })
    }

    unsafe fn set_comp_cntr(&self, cc: *mut ibv_comp_cntr, value: u64) -> Result<()> {
        // SAFETY: a live counter of this provider.
        let ctx = unsafe { ctx_of((*cc).context) }?;
        let f = call!(ctx, set_comp_cntr: CntrValueFn);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(cc, value) })
    }

    unsafe fn set_err_comp_cntr(&self, cc: *mut ibv_comp_cntr, value: u64) -> Result<()> {
        // SAFETY: a live counter of this provider.
        let ctx = unsafe { ctx_of((*cc).context) }?;
        let f = call!(ctx, set_err_comp_cntr: CntrValueFn);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(cc, value) })
    }

    unsafe fn inc_comp_cntr(&self, cc: *mut ibv_comp_cntr, amount: u64) -> Result<()> {
        // SAFETY: a live counter of this provider.
        let ctx = unsafe { ctx_of((*cc).context) }?;
        let f = call!(ctx, inc_comp_cntr: CntrValueFn);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(cc, amount) })
    }

    unsafe fn inc_err_comp_cntr(&self, cc: *mut ibv_comp_cntr, amount: u64) -> Result<()> {
        // SAFETY: a live counter of this provider.
        let ctx = unsafe { ctx_of((*cc).context) }?;
        let f = call!(ctx, inc_err_comp_cntr: CntrValueFn);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(cc, amount) })
    }

    unsafe fn read_comp_cntr(&self, cc: *mut ibv_comp_cntr) -> Result<u64> {
        // SAFETY: a live counter of this provider.
        let ctx = unsafe { ctx_of((*cc).context) }?;
        let f = call!(ctx, read_comp_cntr: CntrReadFn);
        let mut v = 0u64;
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(cc, &mut v) })?;
        Ok(v)
    }

    unsafe fn read_err_comp_cntr(&self, cc: *mut ibv_comp_cntr) -> Result<u64> {
        // SAFETY: a live counter of this provider.
        let ctx = unsafe { ctx_of((*cc).context) }?;
        let f = call!(ctx, read_err_comp_cntr: CntrReadFn);
        let mut v = 0u64;
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(cc, &mut v) })?;
        Ok(v)
    }

    unsafe fn qp_attach_comp_cntr(
        &self,
        qp: *mut ibv_qp,
        cc: *mut ibv_comp_cntr,
        attr: *mut ibv_qp_attach_comp_cntr_attr,
    ) -> Result<()> {
        // SAFETY: a live QP of this provider.
        let ctx = unsafe { ctx_of((*qp).context) }?;
        let f = call!(ctx, qp_attach_comp_cntr: unsafe extern "C" fn(*mut ibv_qp, *mut ibv_comp_cntr, *mut ibv_qp_attach_comp_cntr_attr) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(qp, cc, attr) })
    }

    unsafe fn query_comp_cntr_caps(
        &self,
        c: *mut ibv_context,
        caps: *mut ibv_comp_cntr_caps,
        caps_size: usize,
    ) -> Result<()> {
        // SAFETY: a live context.
        let ctx = unsafe { ctx_of(c) }?;
        let f = call!(ctx, query_comp_cntr_caps: unsafe extern "C" fn(*mut ibv_context, *mut ibv_comp_cntr_caps, usize) -> c_int);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(c, caps, caps_size) })
    }
}

impl Driver for Plugin {
    fn public_device(&self) -> Option<*mut ibv_device> {
        // SAFETY: `device` is the first member of the plug-in's verbs_device.
        Some(unsafe { &raw mut (*self.vdev).device })
    }

    unsafe fn open_context(&self, dev: &'static Device, private_data: *mut c_void) -> Result<*mut ibv_context> {
        (|| {
            let fd = crate::kernel::open_uverbs(&dev.info.uverbs_dev_path)?.into_raw_fd();
            let alloc = self.ops.alloc_context.ok_or(Errno::EOPNOTSUPP)?;
            Errno(0).set();
            // SAFETY: the plug-in's alloc_context takes ownership of fd (closes it on failure).
            let vctx = unsafe { alloc(dev.public, fd, private_data) };
            if vctx.is_null() {
                return Err(null_errno());
            }
            // The plug-in initialised it through _verbs_init_and_alloc_context of its PABI: `context` is where that
            // PABI's verbs_context has it.
            let ibv = context_in(vctx.cast(), self.generation.pabi());
            // SAFETY: a live context of ours (registered by _verbs_init_and_alloc_context).
            let ctx = unsafe { Context::from_ibv(ibv) }?;
            // SAFETY: as above.
            if unsafe { (*ibv).async_fd } < 0 {
                let u = crate::kernel::Uverbs::new(ctx.fd(), ctx.driver_id);
                match crate::kernel::device::alloc_async_fd(&u) {
                    // SAFETY: as above.
                    Ok(afd) => unsafe { (*ibv).async_fd = afd.into_raw_fd() },
                    Err(e) => {
                        // SAFETY: as above; the plug-in frees its context.
                        let _ = unsafe { self.close_context(ctx) };
                        return Err(e);
                    }
                }
            }
            Ok(ibv)
        })()
    }

    unsafe fn close_context(&self, ctx: &Context) -> Result<()> {
        let ibv = ctx.ibv();
        // SAFETY: the free_context member's prototype.
        let f = unsafe { op::<unsafe extern "C" fn(*mut ibv_context)>(ops_of(ctx).free_context) };
        match f {
            Some(f) => {
                // SAFETY: the plug-in frees its context (calling verbs_uninit_context, which frees ours).
                unsafe { f(ibv) };
                Ok(())
            }
            None => Err(Errno::EOPNOTSUPP),
        }
    }

    unsafe fn alloc_pd(&self, ctx: &Context) -> Result<*mut ibv_pd> {
        let f = call!(ctx, alloc_pd: unsafe extern "C" fn(*mut ibv_context) -> *mut ibv_pd);
        Errno(0).set();
        // SAFETY: the plug-in's op.
        let pd = unsafe { f(ctx.ibv()) };
        if pd.is_null() {
            return Err(null_errno());
        }
        // SAFETY: the plug-in's new PD (rdma-core's ibv_alloc_pd sets its context).
        unsafe { (*pd).context = ctx.ibv() };
        Ok(pd)
    }

    unsafe fn dealloc_pd(&self, ctx: &Context, pd: *mut ibv_pd) -> Result<()> {
        let f = call!(ctx, dealloc_pd: DestroyFn<ibv_pd>);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(pd) })
    }

    unsafe fn reg_mr(
        &self,
        ctx: &Context,
        pd: *mut ibv_pd,
        addr: *mut c_void,
        length: usize,
        iova: u64,
        access: c_int,
    ) -> Result<*mut ibv_mr> {
        let f = call!(ctx, reg_mr: unsafe extern "C" fn(*mut ibv_pd, *mut c_void, usize, u64, c_int) -> *mut ibv_mr);
        Errno(0).set();
        // SAFETY: the plug-in's op.
        let mr = unsafe { f(pd, addr, length, iova, access) };
        if mr.is_null() {
            return Err(null_errno());
        }
        // SAFETY: the plug-in's new MR (rdma-core's ibv_reg_mr_iova2 sets these).
        unsafe {
            (*mr).context = ctx.ibv();
            (*mr).pd = pd;
            (*mr).addr = addr;
            (*mr).length = length;
        }
        Ok(mr)
    }

    unsafe fn dereg_mr(&self, ctx: &Context, mr: *mut ibv_mr) -> Result<()> {
        let f = call!(ctx, dereg_mr: DestroyFn<ibv_mr>);
        // SAFETY: the plug-in's op (its parameter is the verbs_mr, which begins with the ibv_mr).
        int_ret(unsafe { f(mr) })
    }

    unsafe fn reg_dmabuf_mr(
        &self,
        ctx: &Context,
        pd: *mut ibv_pd,
        offset: u64,
        length: usize,
        iova: u64,
        fd: c_int,
        access: c_int,
    ) -> Result<*mut ibv_mr> {
        // A plug-in without the op (rxe, siw): rdma-core's dummy, EOPNOTSUPP.
        let f =
            call!(ctx, reg_dmabuf_mr: unsafe extern "C" fn(*mut ibv_pd, u64, usize, u64, c_int, c_int) -> *mut ibv_mr);
        Errno(0).set();
        // SAFETY: the plug-in's op.
        let mr = unsafe { f(pd, offset, length, iova, fd, access) };
        if mr.is_null() {
            return Err(null_errno());
        }
        Ok(mr)
    }

    unsafe fn reg_mr_ex(&self, ctx: &Context, pd: *mut ibv_pd, attr: *mut ibv_mr_init_attr) -> Result<*mut ibv_mr> {
        type RegMrExFn = unsafe extern "C" fn(*mut ibv_pd, *mut ibv_mr_init_attr) -> *mut ibv_mr;
        // SAFETY: the member's prototype.
        let Some(f) = (unsafe { op::<RegMrExFn>(ops_of(ctx).reg_mr_ex) }) else {
            // rdma-core 65's default: the request in the plug-in's reg_mr or reg_dmabuf_mr.
            use crate::provider::mr_ex::{legacy_form, LegacyReg};
            // SAFETY: the caller's attribute struct.
            return match legacy_form(unsafe { &*attr })? {
                // SAFETY: forwarded.
                LegacyReg::Addr { addr, length, iova, access } => unsafe {
                    Driver::reg_mr(self, ctx, pd, addr, length, iova, access)
                },
                // SAFETY: forwarded.
                LegacyReg::Dmabuf { offset, length, iova, fd, access } => unsafe {
                    Driver::reg_dmabuf_mr(self, ctx, pd, offset, length, iova, fd, access)
                },
            };
        };
        Errno(0).set();
        // SAFETY: the plug-in's op.
        let mr = unsafe { f(pd, attr) };
        if mr.is_null() {
            return Err(null_errno());
        }
        Ok(mr)
    }

    unsafe fn alloc_mw(&self, ctx: &Context, pd: *mut ibv_pd, type_: u32) -> Result<*mut ibv_mw> {
        let f = call!(ctx, alloc_mw: unsafe extern "C" fn(*mut ibv_pd, u32) -> *mut ibv_mw);
        Errno(0).set();
        // SAFETY: the plug-in's op.
        let mw = unsafe { f(pd, type_) };
        if mw.is_null() {
            return Err(null_errno());
        }
        Ok(mw)
    }

    unsafe fn dealloc_mw(&self, ctx: &Context, mw: *mut ibv_mw) -> Result<()> {
        let f = call!(ctx, dealloc_mw: DestroyFn<ibv_mw>);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(mw) })
    }

    unsafe fn create_cq(
        &self,
        ctx: &Context,
        attr: *mut ibv_cq_init_attr_ex,
        extended: bool,
    ) -> Result<*mut ibv_cq_ex> {
        Errno(0).set();
        // SAFETY: the caller's attributes; the plug-in's ops.
        let cq: *mut ibv_cq_ex = unsafe {
            if extended {
                let f = call!(ctx, create_cq_ex: CreateCqExFn);
                f(ctx.ibv(), attr)
            } else {
                let f = call!(ctx, create_cq: CreateCqFn);
                f(ctx.ibv(), (*attr).cqe as c_int, (*attr).channel, (*attr).comp_vector as c_int).cast()
            }
        };
        if cq.is_null() {
            return Err(null_errno());
        }
        // SAFETY: the plug-in's new CQ; rdma-core's core runs verbs_init_cq on it.
        unsafe { object::native::init_cq(ctx, cq.cast(), (*attr).channel, (*attr).cq_context) };
        Ok(cq)
    }

    unsafe fn destroy_cq(&self, ctx: &Context, cq: *mut ibv_cq) -> Result<()> {
        let f = call!(ctx, destroy_cq: DestroyFn<ibv_cq>);
        // SAFETY: a live CQ; the channel is read before the plug-in frees the CQ.
        let channel = unsafe { (*cq).channel };
        // SAFETY: the plug-in's op (its ibv_cmd_destroy_cq waits for the acknowledgements).
        int_ret(unsafe { f(cq) })?;
        if !channel.is_null() {
            let _g = ctx.lock.lock();
            // SAFETY: a live channel of this context.
            unsafe { (*channel).refcnt -= 1 };
        }
        Ok(())
    }

    unsafe fn create_qp(&self, ctx: &Context, attr: *mut ibv_qp_init_attr_ex, extended: bool) -> Result<*mut ibv_qp> {
        Errno(0).set();
        // SAFETY: the caller's attributes; the plug-in's ops.
        let qp = unsafe {
            if extended {
                let f = call!(ctx, create_qp_ex: CreateQpExFn);
                f(ctx.ibv(), attr)
            } else {
                let f = call!(ctx, create_qp: CreateQpFn);
                let a = &mut *attr;
                // Zeroed memory, its enum written as a number (a zero `ibv_qp_type` is not a valid Rust value).
                let mut mia = std::mem::MaybeUninit::<ibv_qp_init_attr>::zeroed();
                let ia = mia.as_mut_ptr();
                (*ia).qp_context = a.qp_context;
                (*ia).send_cq = a.send_cq;
                (*ia).recv_cq = a.recv_cq;
                (*ia).srq = a.srq;
                (*ia).cap = a.cap;
                std::ptr::copy_nonoverlapping(
                    std::ptr::addr_of!(a.qp_type).cast::<u32>(),
                    addr_of_mut!((*ia).qp_type).cast::<u32>(),
                    1,
                );
                (*ia).sq_sig_all = a.sq_sig_all;
                let qp = f(a.pd, ia);
                a.cap = (*ia).cap;
                qp
            }
        };
        if qp.is_null() {
            return Err(null_errno());
        }
        Ok(qp)
    }

    unsafe fn destroy_qp(&self, ctx: &Context, qp: *mut ibv_qp) -> Result<()> {
        let f = call!(ctx, destroy_qp: DestroyFn<ibv_qp>);
        // SAFETY: the plug-in's op (its ibv_cmd_destroy_qp waits for the acknowledgements).
        int_ret(unsafe { f(qp) })
    }

    unsafe fn create_srq(
        &self,
        ctx: &Context,
        attr: *mut ibv_srq_init_attr_ex,
        extended: bool,
    ) -> Result<*mut ibv_srq> {
        Errno(0).set();
        // SAFETY: the caller's attributes; the plug-in's ops.
        unsafe {
            if extended {
                let f = call!(ctx, create_srq_ex: CreateSrqExFn);
                let srq = f(ctx.ibv(), attr);
                if srq.is_null() {
                    return Err(null_errno());
                }
                Ok(srq)
            } else {
                let f = call!(ctx, create_srq: CreateSrqFn);
                let a = &mut *attr;
                let mut ia = ibv_srq_init_attr { srq_context: a.srq_context, attr: a.attr };
                let srq = f(a.pd, &mut ia);
                if srq.is_null() {
                    return Err(null_errno());
                }
                a.attr = ia.attr;
                // rdma-core's ibv_create_srq fills these after the provider's op.
                (*srq).context = ctx.ibv();
                (*srq).srq_context = a.srq_context;
                (*srq).pd = a.pd;
                (*srq).events_completed = 0;
                object::init_sync(addr_of_mut!((*srq).mutex), addr_of_mut!((*srq).cond));
                Ok(srq)
            }
        }
    }

    unsafe fn destroy_srq(&self, ctx: &Context, srq: *mut ibv_srq) -> Result<()> {
        let f = call!(ctx, destroy_srq: DestroyFn<ibv_srq>);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(srq) })
    }

    unsafe fn create_ah(&self, ctx: &Context, pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> Result<*mut ibv_ah> {
        let f = call!(ctx, create_ah: unsafe extern "C" fn(*mut ibv_pd, *mut ibv_ah_attr) -> *mut ibv_ah);
        Errno(0).set();
        // SAFETY: the plug-in's op.
        let ah = unsafe { f(pd, attr) };
        if ah.is_null() {
            return Err(null_errno());
        }
        // SAFETY: the plug-in's new AH (rdma-core's ibv_create_ah sets these).
        unsafe {
            (*ah).context = ctx.ibv();
            (*ah).pd = pd;
        }
        Ok(ah)
    }

    unsafe fn destroy_ah(&self, ctx: &Context, ah: *mut ibv_ah) -> Result<()> {
        let f = call!(ctx, destroy_ah: DestroyFn<ibv_ah>);
        // SAFETY: the plug-in's op.
        int_ret(unsafe { f(ah) })
    }

    fn counts_doorbells(&self) -> bool {
        false
    }

    unsafe fn qp_is_extended(&self, qp: *mut ibv_qp) -> bool {
        // SAFETY: a plug-in's QPs are `verbs_qp`s of its generation (its ibv_qp_ex, then comp_mask).
        unsafe { *self.generation.qp_comp_mask_ptr(qp.cast()) & VERBS_QP_EX != 0 }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The context half of the provider interface (exported from `crate::private`).
// ---------------------------------------------------------------------------------------------------------------

/// Where `context` is in the `struct verbs_context` of a plug-in of PABI `pabi` (34: 320, 65: 368).
pub fn context_offset(pabi: u32) -> usize {
    match pabi {
        65 => CONTEXT_OFFSET_65,
        _ => CONTEXT_OFFSET_34,
    }
}

/// The `struct ibv_context` inside the `struct verbs_context` at `vctx` of a plug-in of PABI `pabi`.
pub fn context_in(vctx: *mut c_void, pabi: u32) -> *mut ibv_context {
    vctx.cast::<u8>().wrapping_add(context_offset(pabi)).cast()
}

/// `_verbs_init_and_alloc_context` of PABI `pabi` (34 or 65): allocates the plug-in's context wrapper
/// (`alloc_size` bytes, zeroed, with its `verbs_context` at `offset`: 648 bytes for PABI 34, 696 for 65) and
/// initialises that `verbs_context` (rdma-core's `verbs_init_context`): device, `cmd_fd` (owned from now on),
/// `async_fd = -1`, mutex, `abi_compat`, `sz`, and our `Context` in `priv`, registered so the plug-in's
/// `ibv_cmd_*` calls find it; the context is served with its plug-in's generation. On failure closes `cmd_fd` and
/// returns NULL with errno (`EINVAL` for a device not ours, a size too small, or a plug-in of the other PABI).
pub unsafe fn init_and_alloc_context(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    offset: usize,
    driver_id: u32,
    pabi: u32,
) -> Result<*mut c_void> {
    let fail = |e: Errno| {
        if cmd_fd >= 0 {
            // SAFETY: ours to close.
            unsafe { libc::close(cmd_fd) };
        }
        Err(e)
    };
    let dev = match Device::from_ibv(device) {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let vsize = context_offset(pabi) + std::mem::size_of::<ibv_context>();
    if offset.checked_add(vsize).is_none_or(|end| alloc_size < end) {
        return fail(Errno::EINVAL);
    }
    let generation = plugin_of(device).map_or_else(|| default_generation(pabi), |p| p.generation);
    if generation.pabi() != pabi {
        log::error!("a plug-in of {generation} set up a context through the PABI {pabi} interface");
        return fail(Errno::EINVAL);
    }
    // SAFETY: a zeroed allocation the plug-in frees with free().
    let base = unsafe { libc::calloc(1, alloc_size) };
    if base.is_null() {
        return fail(Errno::ENOMEM);
    }
    // SAFETY: within the allocation (checked above); the PABI-34 view covers the verbs_context's last 648 bytes.
    let ic = context_in(unsafe { base.cast::<u8>().add(offset) }.cast(), pabi);
    let v = view_34(ic);
    let mut p = Pending::<Context>::new();
    let c = p.as_ptr();
    // SAFETY: our zeroed allocations; every field gets a valid value before `finish`.
    unsafe {
        (*ic).device = device;
        (*ic).cmd_fd = cmd_fd;
        (*ic).async_fd = -1;
        libc::pthread_mutex_init(addr_of_mut!((*ic).mutex), std::ptr::null());
        (*ic).abi_compat = __VERBS_ABI_IS_EXTENDED;
        (*v).sz = vsize;
        (*v).r#priv = c.cast();
        addr_of_mut!((*c).ibv).write(ic);
        addr_of_mut!((*c).device).write(dev);
        addr_of_mut!((*c).provider).write(dev.provider);
        addr_of_mut!((*c).driver_id).write(driver_id);
        addr_of_mut!((*c).core_support).write(0.into());
        addr_of_mut!((*c).lock).write(Mutex::new(()));
        addr_of_mut!((*c).driver_data)
            .write(Some(Box::new(PluginContext { ops: std::cell::UnsafeCell::new(&NO_OPS), generation })));
        let ctx = &*p.finish();
        registry::insert(ctx.ibv(), Kind::Context);
    }
    Ok(base)
}

/// `verbs_uninit_context` of PABI `pabi`: the inverse of [`init_and_alloc_context`] (the plug-in then frees its
/// wrapper): unregisters the context, closes its fds and frees our state.
pub unsafe fn uninit_context(vctx: *mut c_void, pabi: u32) {
    if vctx.is_null() {
        return;
    }
    let ic = context_in(vctx, pabi);
    let v = view_34(ic);
    // SAFETY: a context from init_and_alloc_context of the same PABI.
    unsafe {
        registry::remove(ic, Kind::Context);
        let c = (*v).r#priv.cast::<Context>();
        (*v).r#priv = null_mut();
        if (*ic).cmd_fd >= 0 {
            libc::close((*ic).cmd_fd);
        }
        if (*ic).async_fd >= 0 {
            libc::close((*ic).async_fd);
        }
        libc::pthread_mutex_destroy(addr_of_mut!((*ic).mutex));
        if !c.is_null() {
            object::free(c);
        }
    }
}

/// Converts a PABI-34 `verbs_context_ops` (76 members) into rdma-core 65's table (93 members, the 17 new NULL):
/// the members are the same names in both, inserted alphabetically in 65's.
pub fn ops_from_34(o: &verbs_context_ops) -> r65::verbs_context_ops {
    // SAFETY: an all-NULL table is valid (every member is an Option).
    let mut t: r65::verbs_context_ops = unsafe { std::mem::zeroed() };
    macro_rules! copy {
        ($($n:ident),*) => { $( t.$n = o.$n; )* };
    }
    copy!(
        advise_mr,
        alloc_dm,
        alloc_mw,
        alloc_null_mr,
        alloc_parent_domain,
        alloc_pd,
        alloc_td,
        async_event,
        attach_counters_point_flow,
        attach_mcast,
        bind_mw,
        close_xrcd,
        cq_event,
        create_ah,
        create_counters,
        create_cq,
        create_cq_ex,
        create_flow,
        create_flow_action_esp,
        create_qp,
        create_qp_ex,
        create_rwq_ind_table,
        create_srq,
        create_srq_ex,
        create_wq,
        dealloc_mw,
        dealloc_pd,
        dealloc_td,
        dereg_mr,
        destroy_ah,
        destroy_counters,
        destroy_cq,
        destroy_flow,
        destroy_flow_action,
        destroy_qp,
        destroy_rwq_ind_table,
        destroy_srq,
        destroy_wq,
        detach_mcast,
        free_context,
        free_dm,
        get_srq_num,
        import_dm,
        import_mr,
        import_pd,
        modify_cq,
        modify_flow_action_esp,
        modify_qp,
        modify_qp_rate_limit,
        modify_srq,
        modify_wq,
        open_qp,
        open_xrcd,
        poll_cq,
        post_recv,
        post_send,
        post_srq_ops,
        post_srq_recv,
        query_device_ex,
        query_ece,
        query_port,
        query_qp,
        query_qp_data_in_order,
        query_rt_values,
        query_srq,
        read_counters,
        reg_dm_mr,
        reg_dmabuf_mr,
        reg_mr,
        req_notify_cq,
        rereg_mr,
        resize_cq,
        set_ece,
        unimport_dm,
        unimport_mr,
        unimport_pd
    );
    t
}

/// `verbs_set_ops` of PABI `pabi`: records the plug-in's non-NULL ops (rdma-core keeps them in its private data;
/// a PABI-34 table is converted into 65's by name, [`ops_from_34`]) and installs in the public tables the ones
/// applications call directly: the data path in `context.ops`, the extended ops in the `verbs_context` slots every
/// generation has (through its PABI-34 view), and, for PABI 65 only, the six slots 65 put in front (rdma-core 65's
/// `SET_OP`s of `alloc_buf`, `free_buf`, `alloc_dmah`, `dealloc_dmah`, `dm_export_dmabuf_fd`, `reg_mr_ex`). The
/// entry-point layer then puts its own functions in the slots it wraps.
pub unsafe fn set_ops(vctx: *mut c_void, ops: *const c_void, pabi: u32) {
    if vctx.is_null() || ops.is_null() {
        return;
    }
    let ic = context_in(vctx, pabi);
    let v = view_34(ic);
    // SAFETY: a context of ours under construction, and the plug-in's ops table of its PABI.
    unsafe {
        let c = (*v).r#priv.cast::<Context>();
        let Some(pc) = c.as_ref().and_then(|c| c.driver_data.as_ref()).and_then(|d| d.downcast_ref::<PluginContext>())
        else {
            return;
        };
        let theirs = match pabi {
            65 => *ops.cast::<r65::verbs_context_ops>(),
            _ => ops_from_34(&*ops.cast::<verbs_context_ops>()),
        };
        // The context's table so far with this call's non-NULL ops over it (a first call's table as it is),
        // shared with every context that has the same (`intern_ops`).
        let before = *pc.ops.get();
        let first = std::ptr::eq(before, &NO_OPS);
        let mut mine = if first { theirs } else { *before };
        let v = &mut *v;
        let cx = &mut (*ic).ops;
        macro_rules! rec {
            ($($n:ident),*) => { if !first { $( if theirs.$n.is_some() { mine.$n = theirs.$n; } )* } };
        }
        macro_rules! pubop {
            ($dst:expr, $n:ident) => {
                if theirs.$n.is_some() {
                    $dst = op(theirs.$n);
                }
            };
        }
        macro_rules! slot {
            ($dst:expr, $n:ident) => {
                if theirs.$n.is_some() {
                    $dst = theirs.$n;
                }
            };
        }
        rec!(
            advise_mr,
            alloc_buf,
            alloc_dm,
            alloc_dmah,
            alloc_mw,
            alloc_null_mr,
            alloc_parent_domain,
            alloc_pd,
            alloc_td,
            async_event,
            attach_counters_point_flow,
            attach_mcast,
            bind_mw,
            close_xrcd,
            cq_event,
            create_ah,
            create_comp_cntr,
            create_counters,
            create_cq,
            create_cq_ex,
            create_flow,
            create_flow_action_esp,
            create_qp,
            create_qp_ex,
            create_rwq_ind_table,
            create_srq,
            create_srq_ex,
            create_wq,
            dealloc_dmah,
            dealloc_mw,
            dealloc_pd,
            dealloc_td,
            dereg_mr,
            destroy_ah,
            destroy_comp_cntr,
            destroy_counters,
            destroy_cq,
            destroy_flow,
            destroy_flow_action,
            destroy_qp,
            destroy_rwq_ind_table,
            destroy_srq,
            destroy_wq,
            detach_mcast,
            dm_export_dmabuf_fd,
            free_buf,
            free_context,
            free_dm,
            get_srq_num,
            import_dm,
            import_mr,
            import_pd,
            inc_comp_cntr,
            inc_err_comp_cntr,
            modify_cq,
            modify_flow_action_esp,
            modify_qp,
            modify_qp_rate_limit,
            modify_srq,
            modify_wq,
            open_qp,
            open_xrcd,
            poll_cq,
            post_recv,
            post_send,
            post_srq_ops,
            post_srq_recv,
            qp_attach_comp_cntr,
            query_comp_cntr_caps,
            query_device_ex,
            query_ece,
            query_port,
            query_port_speed,
            query_qp,
            query_qp_data_in_order,
            query_rt_values,
            query_srq,
            read_comp_cntr,
            read_counters,
            read_err_comp_cntr,
            reg_dm_mr,
            reg_dmabuf_mr,
            reg_mr,
            reg_mr_ex,
            req_notify_cq,
            rereg_mr,
            resize_cq,
            set_comp_cntr,
            set_ece,
            set_err_comp_cntr,
            unimport_dm,
            unimport_mr,
            unimport_pd
        );
        *pc.ops.get() = intern_ops(&mine);
        pubop!(cx.bind_mw, bind_mw);
        pubop!(cx.poll_cq, poll_cq);
        pubop!(cx.post_recv, post_recv);
        pubop!(cx.post_send, post_send);
        pubop!(cx.post_srq_recv, post_srq_recv);
        pubop!(cx.req_notify_cq, req_notify_cq);
        slot!(v.advise_mr, advise_mr);
        slot!(v.alloc_dm, alloc_dm);
        slot!(v.alloc_null_mr, alloc_null_mr);
        slot!(v.alloc_parent_domain, alloc_parent_domain);
        slot!(v.alloc_td, alloc_td);
        slot!(v.attach_counters_point_flow, attach_counters_point_flow);
        slot!(v.create_counters, create_counters);
        slot!(v.close_xrcd, close_xrcd);
        slot!(v.ibv_create_flow, create_flow);
        slot!(v.create_flow_action_esp, create_flow_action_esp);
        slot!(v.create_rwq_ind_table, create_rwq_ind_table);
        slot!(v.create_wq, create_wq);
        slot!(v.dealloc_td, dealloc_td);
        slot!(v.destroy_counters, destroy_counters);
        slot!(v.ibv_destroy_flow, destroy_flow);
        slot!(v.destroy_flow_action, destroy_flow_action);
        slot!(v.destroy_rwq_ind_table, destroy_rwq_ind_table);
        slot!(v.destroy_wq, destroy_wq);
        slot!(v.free_dm, free_dm);
        slot!(v.get_srq_num, get_srq_num);
        slot!(v.modify_cq, modify_cq);
        slot!(v.modify_flow_action_esp, modify_flow_action_esp);
        slot!(v.modify_qp_rate_limit, modify_qp_rate_limit);
        slot!(v.modify_wq, modify_wq);
        slot!(v.open_qp, open_qp);
        slot!(v.open_xrcd, open_xrcd);
        slot!(v.post_srq_ops, post_srq_ops);
        slot!(v.query_rt_values, query_rt_values);
        slot!(v.read_counters, read_counters);
        slot!(v.reg_dm_mr, reg_dm_mr);
        if pabi == 65 {
            // Only a PABI-65 verbs_context has these six, in front of the PABI-34 ones.
            let h = &mut *head_65(ic);
            slot!(h.alloc_buf, alloc_buf);
            slot!(h.free_buf, free_buf);
            slot!(h.alloc_dmah, alloc_dmah);
            slot!(h.dealloc_dmah, dealloc_dmah);
            slot!(h.dm_export_dmabuf_fd, dm_export_dmabuf_fd);
            slot!(h.reg_mr_ex, reg_mr_ex);
        }
    }
}

/// The kernel driver id (`RDMA_DRIVER_*`) the ioctls of context `ctx` carry: what its provider (native, or a
/// plug-in through `_verbs_init_and_alloc_context`) declared. `EINVAL` if `ctx` is not a live context of ours.
///
/// # Safety
/// `ctx` is NULL or a pointer the caller got from C.
pub unsafe fn context_driver_id(ctx: *mut ibv_context) -> Result<u32> {
    // SAFETY: checked against the registry first (or found live by this thread's entry point, which a plug-in's
    // `ibv_cmd_*` is usually called from).
    let c = unsafe { Context::from_ibv_memo(ctx) }?;
    Ok(c.driver_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_lines() {
        let d = std::env::temp_dir().join(format!("plugin-conf-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("a.driver"), "# comment\n\ndriver mlx5\n  driver\trxe  \nbogus x\n").unwrap();
        assert_eq!(config_names(d.to_str().unwrap()), vec!["mlx5".to_string(), "rxe".to_string()]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn plug_in_file_names() {
        assert_eq!(
            candidates("rxe"),
            [
                format!("{PROVIDER_DIR}/librxe-rdmav65.so"),
                "librxe-rdmav65.so".into(),
                format!("{PROVIDER_DIR}/librxe-rdmav34.so"),
                "librxe-rdmav34.so".into()
            ]
        );
        assert_eq!(candidates("/opt/x/libfoo"), ["/opt/x/libfoo-rdmav65.so", "/opt/x/libfoo-rdmav34.so"]);
    }

    #[test]
    fn ops_table_is_rdma_core_sized() {
        assert_eq!(std::mem::size_of::<verbs_context_ops>(), 76 * 8);
        assert_eq!(std::mem::size_of::<r65::verbs_context_ops>(), 93 * 8);
        assert_eq!(std::mem::offset_of!(verbs_sysfs_dev, sysfs_name), 36);
    }

    #[test]
    fn a_34_table_converts_by_name() {
        unsafe extern "C" fn f() {}
        // SAFETY: all-NULL tables are valid.
        let mut o: verbs_context_ops = unsafe { std::mem::zeroed() };
        o.advise_mr = Some(f);
        o.unimport_pd = Some(f);
        o.query_port = Some(f);
        let t = ops_from_34(&o);
        assert!(t.advise_mr.is_some() && t.unimport_pd.is_some() && t.query_port.is_some());
        assert!(t.alloc_buf.is_none() && t.query_port_speed.is_none() && t.reg_mr_ex.is_none());
        // Every PABI-34 name is a PABI-65 name: the conversion names them all (a name 65 dropped would not compile).
        assert!(VERBS_CONTEXT_OPS_NAMES.iter().all(|n| r65::VERBS_CONTEXT_OPS_NAMES.contains(n)));
        assert_eq!(r65::VERBS_CONTEXT_OPS_NAMES.len() - VERBS_CONTEXT_OPS_NAMES.len(), 17);
    }
}
