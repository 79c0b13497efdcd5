//! RoCE neighbour resolution: the Ethernet address and VLAN id to reach a GID's IP address
//! (what `ibv_resolve_eth_l2_from_gid(3)` answers; rdma-core's `neigh.c`, which uses libnl).
//!
//! Addresses that encode their link-layer address are decoded (IPv4 multicast `01:00:5e:..`, IPv6 multicast
//! `33:33:..`, IPv6 link-local `fe80::/64` from its EUI-64). Others are resolved on the interface that owns the
//! source GID's address: a destination owned by this host is unreachable over RoCE (as with rdma-core), a known
//! neighbour entry is used, otherwise a UDP datagram sent from that interface makes the kernel resolve it, and the
//! neighbour table is watched for up to [`TIMEOUT_MS`]. The VLAN id is the interface's when it is a VLAN device,
//! else `0xffff`.
//!
//! The IPv4 neighbour table is read from `/proc/net/arp`. A global (not link-local, not multicast) IPv6
//! destination would need the IPv6 neighbour table over netlink: it answers `EOPNOTSUPP` (docs/providers.md).
#![allow(unsafe_code)]

use rdma_common::errno::{Errno, Result};
use rdma_common::sys;
use std::ffi::{c_int, CStr};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddrV4};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

/// How long a resolution waits for the neighbour (rdma-core's `NEIGH_GET_DEFAULT_TIMEOUT_MS`).
pub const TIMEOUT_MS: u64 = 3000;

/// An IP address as RoCE GIDs carry them: IPv4 in the IPv4-mapped IPv6 form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GidAddr {
    V4(Ipv4Addr),
    V6(Ipv6Addr),
}

impl GidAddr {
    /// The address a 16-byte GID stands for.
    pub fn from_gid(raw: &[u8; 16]) -> GidAddr {
        let v6 = Ipv6Addr::from(*raw);
        match v6.to_ipv4_mapped() {
            Some(v4) => GidAddr::V4(v4),
            None => GidAddr::V6(v6),
        }
    }
}

/// The link-layer address encoded in `dst` itself, if it is one of the encoded kinds (multicast, link-local).
pub fn encoded_mac(dst: GidAddr) -> Option<[u8; 6]> {
    match dst {
        GidAddr::V4(a) if a.is_multicast() => {
            let o = a.octets();
            Some([0x01, 0x00, 0x5e, o[1] & 0x7f, o[2], o[3]])
        }
        GidAddr::V6(a) => {
            let o = a.octets();
            if o[0] == 0xff {
                Some([0x33, 0x33, o[12], o[13], o[14], o[15]])
            } else if o[..8] == [0xfe, 0x80, 0, 0, 0, 0, 0, 0] {
                Some([o[8] ^ 2, o[9], o[10], o[13], o[14], o[15]])
            } else {
                None
            }
        }
        _ => None,
    }
}

/// One interface address (from `getifaddrs(3)`).
struct IfAddr {
    name: String,
    index: u32,
    addr: GidAddr,
}

fn if_addrs() -> Result<Vec<IfAddr>> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `head` with a list we free below.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return Err(Errno::last());
    }
    let mut out = Vec::new();
    let mut p = head;
    // SAFETY: walking the list getifaddrs returned; each sockaddr is of the family it says.
    unsafe {
        while !p.is_null() {
            let ifa = &*p;
            p = ifa.ifa_next;
            if ifa.ifa_addr.is_null() || ifa.ifa_name.is_null() {
                continue;
            }
            let name = CStr::from_ptr(ifa.ifa_name).to_string_lossy().into_owned();
            let addr = match c_int::from((*ifa.ifa_addr).sa_family) {
                libc::AF_INET => {
                    let sin = &*ifa.ifa_addr.cast::<libc::sockaddr_in>();
                    GidAddr::V4(Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)))
                }
                libc::AF_INET6 => {
                    let sin6 = &*ifa.ifa_addr.cast::<libc::sockaddr_in6>();
                    GidAddr::V6(Ipv6Addr::from(sin6.sin6_addr.s6_addr))
                }
                _ => continue,
            };
            let index = libc::if_nametoindex(ifa.ifa_name);
            out.push(IfAddr { name, index, addr });
        }
        libc::freeifaddrs(head);
    }
    Ok(out)
}

/// The VLAN id of interface `name` (`SIOCGIFVLAN` `GET_VLAN_VID_CMD`), or `0xffff` when it is not a VLAN device.
fn vlan_id(name: &str) -> u16 {
    match sys::net::vlan_vid(name) {
        Ok(vid) if (0..=0xfff).contains(&vid) => vid as u16,
        _ => 0xffff,
    }
}

/// The `/proc/net/arp` entry for `ip` on `dev`, if complete (`ATF_COM`).
fn arp_lookup(ip: Ipv4Addr, dev: &str) -> Option<[u8; 6]> {
    arp_entry(&std::fs::read_to_string("/proc/net/arp").ok()?, ip, dev)
}

/// The complete (`ATF_COM`) entry for `ip` on `dev` in the text of `/proc/net/arp` (a header line, then
/// "IP HW-type Flags HW-address Mask Device" per entry).
pub fn arp_entry(text: &str, ip: Ipv4Addr, dev: &str) -> Option<[u8; 6]> {
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 6 || f[0] != ip.to_string() || f[5] != dev {
            continue;
        }
        let flags = u32::from_str_radix(f[2].trim_start_matches("0x"), 16).ok()?;
        if flags & 0x2 == 0 {
            return None;
        }
        let mut mac = [0u8; 6];
        for (m, h) in mac.iter_mut().zip(f[3].split(':')) {
            *m = u8::from_str_radix(h, 16).ok()?;
        }
        return Some(mac);
    }
    None
}

/// Makes the kernel resolve `dst` on interface `dev`: one UDP datagram sent from that interface.
fn probe(dst: Ipv4Addr, dev: &str) {
    let Ok(s) = std::net::UdpSocket::bind("0.0.0.0:0") else { return };
    // A failure (no CAP_NET_RAW, on a kernel before 5.7) is ignored: the datagram then leaves by the route's interface.
    let _ = sys::net::bind_to_device(s.as_fd(), dev);
    // The discard port: nobody need answer, the neighbour lookup is what we want.
    let _ = s.send_to(&[0u8], SocketAddrV4::new(dst, 9));
}

/// The result of a resolution: the destination's Ethernet address and the VLAN id to use (`0xffff`: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L2 {
    pub mac: [u8; 6],
    pub vid: u16,
}

/// Resolves `dst` as seen from the interface that owns `src` (rdma-core's `ibv_resolve_eth_l2_from_gid` after
/// its GID query). Errors as rdma-core: `EINVAL` when no interface owns `src`; `EHOSTUNREACH` when `dst` is this
/// host's own address or does not answer within [`TIMEOUT_MS`]; `EOPNOTSUPP` for a global IPv6 destination.
pub fn resolve(src: GidAddr, dst: GidAddr) -> Result<L2> {
    let addrs = if_addrs()?;
    let oif = addrs.iter().find(|a| a.addr == src).ok_or(Errno::EINVAL)?;
    let vid = vlan_id(&oif.name);
    log::debug!("neighbour of {dst:?} via {} (index {}, vid {vid:#x})", oif.name, oif.index);
    if let Some(mac) = encoded_mac(dst) {
        return Ok(L2 { mac, vid });
    }
    if addrs.iter().any(|a| a.addr == dst) {
        return Err(Errno::EHOSTUNREACH);
    }
    let GidAddr::V4(ip) = dst else {
        return Err(Errno::EOPNOTSUPP);
    };
    if let Some(mac) = arp_lookup(ip, &oif.name) {
        return Ok(L2 { mac, vid });
    }
    probe(ip, &oif.name);
    let end = Instant::now() + Duration::from_millis(TIMEOUT_MS);
    while Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
        if let Some(mac) = arp_lookup(ip, &oif.name) {
            return Ok(L2 { mac, vid });
        }
    }
    Err(Errno::EHOSTUNREACH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_addresses() {
        let ll: [u8; 16] = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x98, 0x23, 0x53, 0xff, 0xfe, 0x8f, 0x92, 0x2e];
        assert_eq!(encoded_mac(GidAddr::from_gid(&ll)), Some([0x9a, 0x23, 0x53, 0x8f, 0x92, 0x2e]));
        let mc4 = GidAddr::V4(Ipv4Addr::new(239, 129, 2, 3));
        assert_eq!(encoded_mac(mc4), Some([0x01, 0x00, 0x5e, 0x01, 0x02, 0x03]));
        let mc6 = GidAddr::V6("ff02::1:ff8f:922e".parse().unwrap());
        assert_eq!(encoded_mac(mc6), Some([0x33, 0x33, 0xff, 0x8f, 0x92, 0x2e]));
        let mapped: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 2];
        assert_eq!(GidAddr::from_gid(&mapped), GidAddr::V4(Ipv4Addr::new(198, 18, 0, 2)));
        assert_eq!(encoded_mac(GidAddr::from_gid(&mapped)), None);
    }

    #[test]
    fn unknown_source_is_einval() {
        let src = GidAddr::V4(Ipv4Addr::new(192, 0, 2, 77));
        assert_eq!(resolve(src, GidAddr::V4(Ipv4Addr::new(192, 0, 2, 78))), Err(Errno::EINVAL));
    }
}
