//! sysfs: the root (`$SYSFS_PATH` or `/sys`, as rdma-core's `ibv_get_sysfs_path`), attribute reads, and the
//! per-port files the verbs fall back to where the kernel has no ioctl (GIDs) or no command at all (P_Keys).
//!
//! Paths are those of the kernel's `drivers/infiniband/core/sysfs.c` (stable ABI, identical in 6.1 and 6.12):
//! `<ibdev>/node_type` ("1: CA"), `<ibdev>/node_guid` ("0250:56ff:fe01:0203"),
//! `<ibdev>/ports/<port>/gids/<index>` (`%pI6`), `.../gid_attrs/types/<index>` ("IB/RoCE v1" | "RoCE v2"),
//! `.../gid_attrs/ndevs/<index>` (a netdev name), `.../pkeys/<index>` ("0xffff").

use rdma_common::errno::{Errno, Result};
use std::path::{Path, PathBuf};

/// The sysfs mount point: `$SYSFS_PATH` (trailing slashes removed) when set and non-empty in a process that is not
/// set-uid (`rdma_common::env::path`), else `/sys`.
pub fn root() -> PathBuf {
    match rdma_common::env::path("SYSFS_PATH") {
        Some(p) if !p.is_empty() => {
            let s = p.to_string_lossy().trim_end_matches('/').to_string();
            PathBuf::from(if s.is_empty() { "/".to_string() } else { s })
        }
        _ => PathBuf::from("/sys"),
    }
}

/// Reads a sysfs attribute as text, without its trailing newline. Errors: the `open`/`read` errno (`ENOENT`;
/// `EINVAL` from attributes with nothing to show, e.g. the type of an empty GID entry).
pub fn read_attr(path: &Path) -> Result<String> {
    let s = std::fs::read_to_string(path).map_err(Errno::from)?;
    Ok(s.trim_end_matches('\n').to_string())
}

/// A leading decimal number ("1: CA" -> 1, "6" -> 6), as `strtoul` reads it.
pub fn leading_u32(s: &str) -> Option<u32> {
    let t = s.trim_start();
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    t[..end].parse().ok()
}

/// A GUID as sysfs prints it ("0250:56ff:fe01:0203"), in host byte order. Errors: `EINVAL`.
pub fn parse_guid(s: &str) -> Result<u64> {
    let parts: Vec<&str> = s.trim().split(':').collect();
    if parts.len() != 4 {
        return Err(Errno::EINVAL);
    }
    parts.iter().try_fold(0u64, |acc, p| {
        let v = u16::from_str_radix(p, 16).map_err(|_| Errno::EINVAL)?;
        Ok((acc << 16) | v as u64)
    })
}

/// A GID as sysfs prints it (`%pI6`: eight groups of four hex digits), as 16 raw bytes. Errors: `EINVAL`.
pub fn parse_gid(s: &str) -> Result<[u8; 16]> {
    let parts: Vec<&str> = s.trim().split(':').collect();
    if parts.len() != 8 {
        return Err(Errno::EINVAL);
    }
    let mut g = [0u8; 16];
    for (i, p) in parts.iter().enumerate() {
        let v = u16::from_str_radix(p, 16).map_err(|_| Errno::EINVAL)?;
        g[2 * i..2 * i + 2].copy_from_slice(&v.to_be_bytes());
    }
    Ok(g)
}

fn port_file(ibdev_path: &Path, port: u32, rest: &str) -> PathBuf {
    ibdev_path.join(format!("ports/{port}/{rest}"))
}

/// `ports/<port>/gids/<index>`: the GID (all zero for an empty entry; the kernel prints zeros rather than fail).
pub fn read_gid(ibdev_path: &Path, port: u32, index: u32) -> Result<[u8; 16]> {
    parse_gid(&read_attr(&port_file(ibdev_path, port, &format!("gids/{index}")))?)
}

/// The GID type sysfs can tell: "IB/RoCE v1" covers IB and RoCE v1 (the port's link layer decides which).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GidTypeSysfs {
    IbRoceV1,
    RoceV2,
}

/// `ports/<port>/gid_attrs/types/<index>`, as rdma-core's `query_sysfs_gid_type`: an `EINVAL` read (IB ports, or an
/// empty entry) and a missing `gid_attrs` directory (old kernels) both mean IB/RoCE v1. Errors: `EOPNOTSUPP` for
/// an unknown type string, `EFAULT` when `gid_attrs` exists but the file cannot be read (rdma-core's answer).
pub fn read_gid_type(ibdev_path: &Path, port: u32, index: u32) -> Result<GidTypeSysfs> {
    match read_attr(&port_file(ibdev_path, port, &format!("gid_attrs/types/{index}"))) {
        Ok(s) => parse_gid_type(&s),
        Err(e) if e == Errno::EINVAL => Ok(GidTypeSysfs::IbRoceV1),
        Err(_) => match std::fs::metadata(port_file(ibdev_path, port, "gid_attrs")) {
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(GidTypeSysfs::IbRoceV1),
            Err(e) => Err(e.into()),
            Ok(_) => Err(Errno::EFAULT),
        },
    }
}

/// The text of a `gid_attrs/types/<index>` file (without its newline): "IB/RoCE v1" or "RoCE v2". Errors:
/// `EOPNOTSUPP` for anything else.
pub fn parse_gid_type(s: &str) -> Result<GidTypeSysfs> {
    match s {
        "IB/RoCE v1" => Ok(GidTypeSysfs::IbRoceV1),
        "RoCE v2" => Ok(GidTypeSysfs::RoceV2),
        _ => Err(Errno::EOPNOTSUPP),
    }
}

/// `ports/<port>/gid_attrs/ndevs/<index>`: the netdev name behind a RoCE GID, None when there is none (IB, empty).
pub fn read_gid_ndev(ibdev_path: &Path, port: u32, index: u32) -> Option<String> {
    read_attr(&port_file(ibdev_path, port, &format!("gid_attrs/ndevs/{index}"))).ok().filter(|s| !s.is_empty())
}

/// `ports/<port>/pkeys/<index>` ("0xffff"), what `ibv_query_pkey` reads (in host order; the verb returns it
/// big-endian). Errors: the read errno, `EINVAL` for a malformed value.
pub fn read_pkey(ibdev_path: &Path, port: u32, index: u32) -> Result<u16> {
    parse_pkey(&read_attr(&port_file(ibdev_path, port, &format!("pkeys/{index}")))?)
}

/// A P_Key as sysfs prints it ("0xffff"), in host order. Errors: `EINVAL` for a malformed value.
pub fn parse_pkey(s: &str) -> Result<u16> {
    let hex = s.trim().trim_start_matches("0x");
    u16::from_str_radix(hex, 16).map_err(|_| Errno::EINVAL)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A scratch directory tree, removed on drop.
    pub(crate) struct TmpTree(pub PathBuf);

    impl TmpTree {
        pub(crate) fn new(tag: &str) -> TmpTree {
            use std::sync::atomic::{AtomicU32, Ordering};
            static N: AtomicU32 = AtomicU32::new(0);
            let p = std::env::temp_dir().join(format!(
                "ibverbs-kernel-{tag}-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            TmpTree(p)
        }
        pub(crate) fn file(&self, rel: &str, content: &str) {
            let p = self.0.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
        pub(crate) fn dir(&self, rel: &str) {
            std::fs::create_dir_all(self.0.join(rel)).unwrap();
        }
    }

    impl Drop for TmpTree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn parsers() {
        assert_eq!(parse_guid("0250:56ff:fe01:0203\n").unwrap(), 0x0250_56ff_fe01_0203);
        assert!(parse_guid("0250:56ff:fe01").is_err());
        let g = parse_gid("fe80:0000:0000:0000:0250:56ff:fe01:0203").unwrap();
        assert_eq!(g[..2], [0xfe, 0x80]);
        assert_eq!(g[14..], [0x02, 0x03]);
        assert!(parse_gid("fe80::1").is_err());
        assert_eq!(leading_u32("1: CA"), Some(1));
        assert_eq!(leading_u32("6\n"), Some(6));
        assert_eq!(leading_u32("x"), None);
    }

    #[test]
    fn port_files() {
        let t = TmpTree::new("sysfs");
        t.file("ports/1/gids/0", "fe80:0000:0000:0000:0250:56ff:fe01:0203\n");
        t.file("ports/1/gid_attrs/types/0", "RoCE v2\n");
        t.file("ports/1/gid_attrs/ndevs/0", "eth0\n");
        t.file("ports/1/pkeys/0", "0xffff\n");
        assert_eq!(read_gid(&t.0, 1, 0).unwrap()[15], 3);
        assert_eq!(read_gid_type(&t.0, 1, 0).unwrap(), GidTypeSysfs::RoceV2);
        assert_eq!(read_gid_ndev(&t.0, 1, 0).as_deref(), Some("eth0"));
        assert_eq!(read_gid_ndev(&t.0, 1, 1), None);
        assert_eq!(read_pkey(&t.0, 1, 0).unwrap(), 0xffff);
        assert_eq!(read_pkey(&t.0, 1, 1).unwrap_err(), Errno::ENOENT);
        // gid_attrs exists but this type file is missing: rdma-core answers EFAULT
        assert_eq!(read_gid_type(&t.0, 1, 5).unwrap_err(), Errno::EFAULT);
        // no gid_attrs at all (old kernel): IB/RoCE v1
        assert_eq!(read_gid_type(&t.0, 2, 0).unwrap(), GidTypeSysfs::IbRoceV1);
    }
}
