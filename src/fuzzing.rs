//! Entry points for the cargo-fuzz targets of `fuzz/` (built only with the `fuzzing` feature, never by `make`).
//!
//! Each takes the fuzzer's bytes and feeds them to the library's own parsers of outside input, as the library
//! reads that input: netlink replies through the real [`Nldev`] conversation (over a canned transport instead of
//! the socket), sysfs and procfs text through the functions the file readers call. Nothing here opens a file,
//! a socket or a device, or makes a system call with the parsed data.

use crate::kernel::netlink::{self, Attrs, NlTransport, Nldev};
use crate::kernel::rtnl::{self, Rtnl};
use crate::kernel::{discover, sysfs};
use rdma_common::errno::{Errno, Result};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;

/// A kernel that answers every request with the next canned datagram; `ENOBUFS` once they run out (what a
/// netlink socket reports for a lost reply).
struct Canned(RefCell<VecDeque<Vec<u8>>>);

impl NlTransport for Canned {
    fn send(&self, _msg: &[u8]) -> Result<()> {
        Ok(())
    }
    fn recv(&self, buf: &mut [u8]) -> Result<usize> {
        let d = self.0.borrow_mut().pop_front().ok_or(Errno(libc::ENOBUFS))?;
        let n = d.len().min(buf.len());
        buf[..n].copy_from_slice(&d[..n]);
        Ok(n)
    }
}

/// Splits `data` into datagrams, each a little-endian `u16` length then that many bytes (the last one takes what
/// is left when the length runs past the end).
fn datagrams(mut data: &[u8]) -> VecDeque<Vec<u8>> {
    let mut v = VecDeque::new();
    while data.len() >= 2 {
        let n = (u16::from_le_bytes([data[0], data[1]]) as usize).min(data.len() - 2);
        v.push_back(data[2..2 + n].to_vec());
        data = &data[2 + n..];
    }
    v
}

/// `fuzz/fuzz_targets/netlink.rs`: the first byte picks a conversation, the rest are the kernel's datagrams
/// (see [`datagrams`]; the requests carry sequence numbers 1, 2, ...):
/// 0: the device dump (`RDMA_NLDEV_CMD_GET`), then `GET_CHARDEV "uverbs"` for each device, as discovery does;
/// 1: `RDMA_NLDEV_CMD_SYS_GET` (copy-on-fork); 2: every datagram split into messages and each payload's attributes
/// read as every type and width the library reads; 3: `NETLINK_ROUTE` as RoCE neighbour resolution talks it
/// (the route to 198.18.0.2 by interface 3, interface 3's link address, the neighbour table), then every datagram
/// left read as a neighbour notification and as a route reply.
pub fn netlink(data: &[u8]) {
    let Some((&op, rest)) = data.split_first() else { return };
    let t = Canned(RefCell::new(datagrams(rest)));
    match op % 4 {
        0 => {
            let nl = Nldev::new(&t);
            if let Ok(devs) = nl.devices() {
                for d in devs {
                    let _ = nl.chardev(d.index, "uverbs");
                }
            }
        }
        1 => {
            let _ = Nldev::new(&t).copy_on_fork();
        }
        3 => {
            let nl = Rtnl::new(&t);
            let dst = IpAddr::V4(Ipv4Addr::new(198, 18, 0, 2));
            let _ = nl.route(dst, 3);
            let _ = nl.link_addr(3);
            let _ = nl.neighbour(3, dst);
            for d in t.0.borrow().iter() {
                let _ = rtnl::neigh_event(d, 3, dst);
                let _ = rtnl::parse_route(d);
            }
        }
        _ => {
            for d in t.0.borrow().iter() {
                let Ok(msgs) = netlink::messages(d) else { continue };
                for m in msgs {
                    let Ok(a) = Attrs::parse(m.payload) else { continue };
                    for ty in 0..=100u32 {
                        let _ = (a.u8(ty), a.u32(ty), a.u64(ty), a.str(ty));
                    }
                }
            }
        }
    }
}

/// `fuzz/fuzz_targets/sysfs.rs`: `data` (as UTF-8, which the readers require) as the contents of each sysfs and
/// procfs file the library parses: the numeric attributes (`node_type`, `abi_version`), `node_guid`, a GID, a GID
/// type, a P_Key, a uverbs `dev`, `/proc/self/smaps`, and a provider config file (`/etc/libibverbs.d/*.driver`).
/// For the smaps parser the first line also supplies the looked-up address.
pub fn sysfs(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else { return };
    let attr = s.trim_end_matches('\n'); // as sysfs::read_attr hands it out
    let _ = sysfs::leading_u32(attr);
    let _ = sysfs::parse_guid(attr);
    let _ = sysfs::parse_gid(attr);
    let _ = sysfs::parse_gid_type(attr);
    let _ = sysfs::parse_pkey(attr);
    let _ = discover::parse_dev(attr);

    let addr = s.lines().next().and_then(|l| usize::from_str_radix(l.trim(), 16).ok()).unwrap_or(0x7f00_0000_0000);
    let _ = crate::verbs::fork::smaps_page_size(s, addr, 4096);
    let mut names = Vec::new();
    crate::plugin::config_file_names(s, Path::new("fuzz.driver"), &mut names);
}
