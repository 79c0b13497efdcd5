//! Device discovery, the way rdma-core 44's `ibverbs_get_device_list` finds devices.
//!
//! 1. **netlink** (`NETLINK_RDMA`): `RDMA_NLDEV_CMD_GET` dump for the devices of this network namespace (index, name,
//!    node type, node GUID, port count, protocol), then `RDMA_NLDEV_CMD_GET_CHARDEV` "uverbs" per device for its
//!    char device name, `dev_t`, ABI version and the kernel **driver id** (`RDMA_DRIVER_RXE`, `RDMA_DRIVER_SIW`,
//!    ...), which is how providers are matched. A device whose GET_CHARDEV fails is looked up in
//!    `<ibdev>/device/infiniband_verbs/` (hardware devices only: rxe and siw have no `device` link) and dropped if
//!    that fails too.
//! 2. **sysfs**, only when netlink is unusable (the socket cannot be opened, or the dump fails): every
//!    `/sys/class/infiniband_verbs/uverbsN/` (`ibdev`, `dev`, `abi_version`) with `<ibdev>/node_type`; then the class
//!    `abi_version` must be within 3..=6. No driver id is reported this way, so the driver is inferred (see
//!    [`Driver`]).
//!
//! Either way a device whose `/dev/infiniband/<uverbsN>` does not exist is dropped. "No RDMA stack" (netlink
//! unusable *and* no `/sys/class/infiniband_verbs`, or a bad class ABI) is `Err(ENOSYS)`, which `ibv_get_device_list`
//! reports as NULL + `ENOSYS`; "no devices" is `Ok` with an empty list.

use super::netlink::{self, NlDevice, NlTransport, Nldev};
use super::sysfs;
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::ib_user_ioctl_verbs::*;
use std::path::{Path, PathBuf};

// The kernel's `enum rdma_node_type` (include/rdma/ib_verbs.h; also what sysfs `node_type` and netlink
// `RDMA_NLDEV_ATTR_DEV_NODE_TYPE` carry). rdma-core's `decode_knode_type` maps them onto `IBV_NODE_*`.
pub const RDMA_NODE_IB_CA: u8 = 1;
pub const RDMA_NODE_IB_SWITCH: u8 = 2;
pub const RDMA_NODE_IB_ROUTER: u8 = 3;
pub const RDMA_NODE_RNIC: u8 = 4;
pub const RDMA_NODE_USNIC: u8 = 5;
pub const RDMA_NODE_USNIC_UDP: u8 = 6;
pub const RDMA_NODE_UNSPECIFIED: u8 = 7;

/// The uverbs ABI versions rdma-core 44 accepts (`IB_USER_VERBS_MIN_ABI_VERSION`..=`MAX`); every kernel since
/// 2.6.x reports 6.
pub const MIN_ABI_VERSION: u32 = 3;
pub const MAX_ABI_VERSION: u32 = 6;

/// Which provider a device needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Driver {
    /// Soft-RoCE (`rdma_rxe`).
    Rxe,
    /// Soft-iWARP (`siw`).
    Siw,
    /// Anything else: the kernel driver's name when sysfs shows one (`<ibdev>/device/driver`, e.g. "mlx5_core"),
    /// else empty.
    Other(String),
}

/// One RDMA device with a usable uverbs char device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The IB device name (`ibv_get_device_name`): "rxe0".
    pub name: String,
    /// The kernel device index (netlink); None when found through sysfs.
    pub index: Option<u32>,
    /// The uverbs class device name (`ibv_device::dev_name`): "uverbs0".
    pub uverbs_name: String,
    /// `/dev/infiniband/uverbs0`: what `ibv_open_device` opens.
    pub uverbs_dev_path: PathBuf,
    /// `/sys/class/infiniband_verbs/uverbs0` (`ibv_device::dev_path`).
    pub uverbs_sysfs_path: PathBuf,
    /// `/sys/class/infiniband/rxe0` (`ibv_device::ibdev_path`).
    pub ibdev_sysfs_path: PathBuf,
    /// The kernel node type (`RDMA_NODE_*`), 0 when unreadable.
    pub node_type: u8,
    /// The node GUID in host byte order (`ibv_get_device_guid` returns it big-endian); None when sysfs discovery
    /// has not read it (read it lazily from `<ibdev>/node_guid`, as rdma-core does).
    pub node_guid: Option<u64>,
    /// The uverbs ABI version (6).
    pub abi_version: u32,
    /// The uverbs char device number (major, minor).
    pub dev: (u32, u32),
    /// The kernel driver id (`RDMA_DRIVER_*`): from netlink, or inferred for rxe/siw under sysfs discovery;
    /// `RDMA_DRIVER_UNKNOWN` (0) otherwise. Every `RDMA_VERBS_IOCTL` header must carry it.
    pub driver_id: u32,
    pub driver: Driver,
    /// Number of ports (netlink); None via sysfs (then `phys_port_cnt` from QUERY_DEVICE).
    pub num_ports: Option<u32>,
    /// The link protocol the kernel reports for port 1: "ib", "roce", "iw", "opa", "usnic" (netlink only).
    pub protocol: Option<String>,
}

/// Where discovery looks: sysfs root, char device directory, and whether to try netlink.
pub struct Roots {
    pub sysfs: PathBuf,
    pub dev_dir: PathBuf,
}

impl Default for Roots {
    /// `$SYSFS_PATH` or `/sys`, and `/dev/infiniband`.
    fn default() -> Roots {
        Roots { sysfs: sysfs::root(), dev_dir: PathBuf::from("/dev/infiniband") }
    }
}

/// Discovers the RDMA devices of this system (netlink first, sysfs fallback). Errors: `ENOSYS` for "no RDMA
/// stack"; an empty list for "no devices".
pub fn discover() -> Result<Vec<DeviceInfo>> {
    let roots = Roots::default();
    match netlink::open() {
        Ok(sock) => discover_with(Some(&sock), &roots),
        Err(e) => {
            log::debug!("NETLINK_RDMA unavailable ({e}); using sysfs");
            discover_with(None::<&rdma_common::sys::netlink::NetlinkSocket>, &roots)
        }
    }
}

/// [`discover`] with an explicit netlink transport (None: netlink unusable) and roots.
pub fn discover_with<T: NlTransport + ?Sized>(nl: Option<&T>, roots: &Roots) -> Result<Vec<DeviceInfo>> {
    if let Some(t) = nl {
        match from_netlink(t, roots) {
            Ok(devs) => return Ok(devs),
            Err(e) => log::debug!("netlink device dump failed ({e}); using sysfs"),
        }
    }
    from_sysfs(roots)
}

fn from_netlink<T: NlTransport + ?Sized>(t: &T, roots: &Roots) -> Result<Vec<DeviceInfo>> {
    let nl = Nldev::new(t);
    let devs = nl.devices()?;
    let mut out = Vec::new();
    for d in devs {
        let ibdev_sysfs_path = roots.sysfs.join("class/infiniband").join(&d.name);
        let info = match nl.chardev(d.index, "uverbs") {
            Ok(c) => {
                let driver_id = c.driver_id.unwrap_or(RDMA_DRIVER_UNKNOWN);
                Some(device(&d, ibdev_sysfs_path.clone(), c.name, c.abi, c.dev, driver_id, roots))
            }
            Err(e) => {
                log::debug!("{}: GET_CHARDEV uverbs failed ({e}); trying sysfs", d.name);
                uverbs_from_ibdev_sysfs(&ibdev_sysfs_path)
                    .map(|(name, abi, dev)| device(&d, ibdev_sysfs_path.clone(), name, abi, dev, 0, roots))
            }
        };
        match info {
            Some(mut i) if i.uverbs_dev_path.exists() => {
                if i.driver_id == RDMA_DRIVER_UNKNOWN {
                    (i.driver_id, i.driver) = infer_driver(&i.ibdev_sysfs_path, &i.name, i.node_type);
                } else {
                    i.driver = driver_of_id(i.driver_id, &i.ibdev_sysfs_path);
                }
                out.push(i);
            }
            Some(i) => log::debug!("{}: {} does not exist; skipped", i.name, i.uverbs_dev_path.display()),
            None => log::debug!("{}: no uverbs device; skipped", d.name),
        }
    }
    Ok(out)
}

fn device(
    d: &NlDevice,
    ibdev_sysfs_path: PathBuf,
    uverbs_name: String,
    abi_version: u32,
    dev: (u32, u32),
    driver_id: u32,
    roots: &Roots,
) -> DeviceInfo {
    DeviceInfo {
        name: d.name.clone(),
        index: Some(d.index),
        uverbs_dev_path: roots.dev_dir.join(&uverbs_name),
        uverbs_sysfs_path: roots.sysfs.join("class/infiniband_verbs").join(&uverbs_name),
        uverbs_name,
        ibdev_sysfs_path,
        node_type: d.node_type,
        node_guid: Some(d.node_guid),
        abi_version,
        dev,
        driver_id,
        driver: Driver::Other(String::new()),
        num_ports: Some(d.num_ports),
        protocol: d.protocol.clone(),
    }
}

/// rdma-core's `find_uverbs_sysfs`: the first entry of `<ibdev>/device/infiniband_verbs/`.
fn uverbs_from_ibdev_sysfs(ibdev: &Path) -> Option<(String, u32, (u32, u32))> {
    let dir = ibdev.join("device/infiniband_verbs");
    let entry = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok())
        .find(|e| !e.file_name().to_string_lossy().starts_with('.'))?;
    let name = entry.file_name().to_string_lossy().into_owned();
    let (abi, dev) = uverbs_attrs(&entry.path())?;
    Some((name, abi, dev))
}

/// `dev` ("231:192") and `abi_version` of a uverbs class directory. A missing `abi_version` reads as 0, as in
/// rdma-core.
fn uverbs_attrs(dir: &Path) -> Option<(u32, (u32, u32))> {
    let dev = parse_dev(&sysfs::read_attr(&dir.join("dev")).ok()?)?;
    let abi = sysfs::read_attr(&dir.join("abi_version")).ok().and_then(|s| sysfs::leading_u32(&s)).unwrap_or(0);
    Some((abi, dev))
}

/// A char device number as a class directory's `dev` file prints it ("231:192"): (major, minor).
pub fn parse_dev(s: &str) -> Option<(u32, u32)> {
    let (maj, min) = s.split_once(':')?;
    Some((maj.trim().parse().ok()?, min.trim().parse().ok()?))
}

fn from_sysfs(roots: &Roots) -> Result<Vec<DeviceInfo>> {
    let class = roots.sysfs.join("class/infiniband_verbs");
    let rd = std::fs::read_dir(&class).map_err(|e| {
        log::debug!("{}: {e}; no RDMA stack", class.display());
        Errno::ENOSYS
    })?;
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort_by_key(|n| {
        (n.trim_start_matches(|c: char| !c.is_ascii_digit()).parse::<u32>().unwrap_or(u32::MAX), n.clone())
    });
    let mut out = Vec::new();
    for uverbs_name in names {
        let dir = class.join(&uverbs_name);
        if !dir.is_dir() {
            continue; // the class's own `abi_version` file
        }
        let Ok(name) = sysfs::read_attr(&dir.join("ibdev")) else {
            continue;
        };
        let ibdev_sysfs_path = roots.sysfs.join("class/infiniband").join(&name);
        if !ibdev_sysfs_path.exists() {
            continue;
        }
        let Some((abi_version, dev)) = uverbs_attrs(&dir) else {
            continue;
        };
        let node_type = sysfs::read_attr(&ibdev_sysfs_path.join("node_type"))
            .ok()
            .and_then(|s| sysfs::leading_u32(&s))
            .map_or(0, |v| v as u8);
        let uverbs_dev_path = roots.dev_dir.join(&uverbs_name);
        if !uverbs_dev_path.exists() {
            continue;
        }
        let (driver_id, driver) = infer_driver(&ibdev_sysfs_path, &name, node_type);
        out.push(DeviceInfo {
            name,
            index: None,
            uverbs_sysfs_path: dir,
            uverbs_name,
            uverbs_dev_path,
            ibdev_sysfs_path,
            node_type,
            node_guid: None,
            abi_version,
            dev,
            driver_id,
            driver,
            num_ports: None,
            protocol: None,
        });
    }
    if !out.is_empty() {
        let abi = sysfs::read_attr(&class.join("abi_version")).ok().and_then(|s| sysfs::leading_u32(&s));
        match abi {
            Some(v) if (MIN_ABI_VERSION..=MAX_ABI_VERSION).contains(&v) => {}
            other => {
                log::error!(
                    "kernel uverbs ABI version {other:?} is not supported ({MIN_ABI_VERSION}..={MAX_ABI_VERSION})"
                );
                return Err(Errno::ENOSYS);
            }
        }
    }
    Ok(out)
}

fn driver_name(ibdev: &Path) -> Option<String> {
    let link = std::fs::read_link(ibdev.join("device/driver")).ok()?;
    Some(link.file_name()?.to_string_lossy().into_owned())
}

fn driver_of_id(driver_id: u32, ibdev: &Path) -> Driver {
    match driver_id {
        RDMA_DRIVER_RXE => Driver::Rxe,
        RDMA_DRIVER_SIW => Driver::Siw,
        _ => Driver::Other(driver_name(ibdev).unwrap_or_default()),
    }
}

/// Without a driver id from the kernel: a device with a parent bus device is hardware (named by its driver);
/// rxe is the software CA with the `parent` attribute (rxe's own sysfs file, naming its netdev) or an "rxe" name
/// (rdma-core's `VERBS_NAME_MATCH("rxe")`); siw is the software RNIC (node type `RDMA_NODE_RNIC`, no parent
/// device) or a "siw" name.
fn infer_driver(ibdev: &Path, name: &str, node_type: u8) -> (u32, Driver) {
    if ibdev.join("device").exists() {
        return (RDMA_DRIVER_UNKNOWN, Driver::Other(driver_name(ibdev).unwrap_or_default()));
    }
    if (node_type == RDMA_NODE_IB_CA && ibdev.join("parent").exists()) || name.contains("rxe") {
        return (RDMA_DRIVER_RXE, Driver::Rxe);
    }
    if node_type == RDMA_NODE_RNIC || name.contains("siw") {
        return (RDMA_DRIVER_SIW, Driver::Siw);
    }
    (RDMA_DRIVER_UNKNOWN, Driver::Other(String::new()))
}

#[cfg(test)]
mod tests {
    use super::super::netlink::tests::{chardev_msg, device_msg, done, error, FakeNl};
    use super::super::sysfs::tests::TmpTree;
    use super::*;

    fn roots(t: &TmpTree) -> Roots {
        Roots { sysfs: t.0.join("sys"), dev_dir: t.0.join("dev/infiniband") }
    }

    #[test]
    fn netlink_path() {
        let t = TmpTree::new("nl");
        t.file("dev/infiniband/uverbs0", "");
        t.file("dev/infiniband/uverbs1", "");
        t.dir("sys/class/infiniband/rxe0");
        // mlx-like hardware device whose GET_CHARDEV fails: found through <ibdev>/device/infiniband_verbs
        t.file("sys/class/infiniband/mlx5_0/device/infiniband_verbs/uverbs1/dev", "231:193\n");
        t.file("sys/class/infiniband/mlx5_0/device/infiniband_verbs/uverbs1/abi_version", "1\n");
        let fake = FakeNl::default();
        let mut dump = device_msg(1, 0, "rxe0", RDMA_NODE_IB_CA, 0x0250_56ff_fe01_0203, 1);
        dump.extend(device_msg(1, 1, "mlx5_0", RDMA_NODE_IB_CA, 0x1111, 1));
        dump.extend(device_msg(1, 2, "siw0", RDMA_NODE_RNIC, 0x2222, 1));
        for r in [dump, done(1), chardev_msg(2, "uverbs0", 192, Some(RDMA_DRIVER_RXE)), error(3, libc::EOPNOTSUPP)] {
            fake.replies.borrow_mut().push_back(Ok(r));
        }
        // siw0's uverbs2 has no /dev node: dropped after a successful GET_CHARDEV
        fake.replies.borrow_mut().push_back(Ok(chardev_msg(4, "uverbs2", 194, Some(RDMA_DRIVER_SIW))));
        let r = roots(&t);
        let devs = discover_with(Some(&fake), &r).unwrap();
        assert_eq!(devs.len(), 2);
        let rxe = &devs[0];
        assert_eq!(rxe.name, "rxe0");
        assert_eq!(rxe.index, Some(0));
        assert_eq!(rxe.uverbs_name, "uverbs0");
        assert_eq!(rxe.uverbs_dev_path, t.0.join("dev/infiniband/uverbs0"));
        assert_eq!(rxe.uverbs_sysfs_path, t.0.join("sys/class/infiniband_verbs/uverbs0"));
        assert_eq!(rxe.ibdev_sysfs_path, t.0.join("sys/class/infiniband/rxe0"));
        assert_eq!((rxe.node_type, rxe.node_guid, rxe.abi_version), (1, Some(0x0250_56ff_fe01_0203), 1));
        assert_eq!((rxe.dev, rxe.driver_id, &rxe.driver), ((231, 192), RDMA_DRIVER_RXE, &Driver::Rxe));
        assert_eq!((rxe.num_ports, rxe.protocol.as_deref()), (Some(1), Some("roce")));
        let mlx = &devs[1];
        assert_eq!((mlx.uverbs_name.as_str(), mlx.dev, mlx.driver_id), ("uverbs1", (231, 193), 0));
        assert_eq!(mlx.driver, Driver::Other(String::new()));
    }

    #[test]
    fn netlink_failure_falls_back_to_sysfs_and_no_stack_is_enosys() {
        let t = TmpTree::new("nofs");
        let fake = FakeNl::default();
        fake.replies.borrow_mut().push_back(Ok(error(1, libc::EPERM)));
        assert_eq!(discover_with(Some(&fake), &roots(&t)).unwrap_err(), Errno::ENOSYS);
        assert_eq!(discover_with(None::<&FakeNl>, &roots(&t)).unwrap_err(), Errno::ENOSYS);
        // netlink works, no device: an empty list, even without the sysfs class
        let fake = FakeNl::default();
        fake.replies.borrow_mut().push_back(Ok(done(1)));
        assert_eq!(discover_with(Some(&fake), &roots(&t)).unwrap(), vec![]);
        // the class exists but is empty: no devices
        t.file("sys/class/infiniband_verbs/abi_version", "6\n");
        assert_eq!(discover_with(None::<&FakeNl>, &roots(&t)).unwrap(), vec![]);
    }

    #[test]
    fn sysfs_path_infers_rxe_and_siw() {
        let t = TmpTree::new("sysfs");
        t.file("sys/class/infiniband_verbs/abi_version", "6\n");
        t.file("sys/class/infiniband_verbs/uverbs0/ibdev", "roce_a\n");
        t.file("sys/class/infiniband_verbs/uverbs0/dev", "231:192\n");
        t.file("sys/class/infiniband_verbs/uverbs0/abi_version", "1\n");
        t.file("sys/class/infiniband/roce_a/node_type", "1: CA\n");
        t.file("sys/class/infiniband/roce_a/parent", "eth0\n");
        t.file("sys/class/infiniband_verbs/uverbs10/ibdev", "iw_b\n");
        t.file("sys/class/infiniband_verbs/uverbs10/dev", "231:202\n");
        t.file("sys/class/infiniband/iw_b/node_type", "4: RNIC\n");
        t.file("sys/class/infiniband_verbs/uverbs2/ibdev", "gone\n"); // no ibdev dir: skipped
        t.file("sys/class/infiniband_verbs/uverbs2/dev", "231:194\n");
        t.file("dev/infiniband/uverbs0", "");
        t.file("dev/infiniband/uverbs10", "");
        let devs = discover_with(None::<&FakeNl>, &roots(&t)).unwrap();
        assert_eq!(devs.len(), 2);
        assert_eq!((devs[0].name.as_str(), devs[0].uverbs_name.as_str()), ("roce_a", "uverbs0"));
        assert_eq!((devs[0].driver_id, &devs[0].driver, devs[0].node_type), (RDMA_DRIVER_RXE, &Driver::Rxe, 1));
        assert_eq!((devs[0].abi_version, devs[0].dev, devs[0].index, devs[0].node_guid), (1, (231, 192), None, None));
        assert_eq!((devs[1].name.as_str(), devs[1].driver_id, devs[1].abi_version), ("iw_b", RDMA_DRIVER_SIW, 0));
        assert_eq!(devs[1].uverbs_sysfs_path, t.0.join("sys/class/infiniband_verbs/uverbs10"));

        // a bad class ABI version is "no RDMA stack"
        t.file("sys/class/infiniband_verbs/abi_version", "7\n");
        assert_eq!(discover_with(None::<&FakeNl>, &roots(&t)).unwrap_err(), Errno::ENOSYS);
    }
}
