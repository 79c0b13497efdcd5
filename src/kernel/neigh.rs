//! RoCE neighbour resolution: the Ethernet address and VLAN id to reach a GID's IP address
//! (what `ibv_resolve_eth_l2_from_gid(3)` answers). It asks the kernel what rdma-core's `neigh.c` asks (over
//! libnl there, over our own `NETLINK_ROUTE` conversation here, [`super::rtnl`]), in the same order, so that both
//! answer alike in every state of the routing and neighbour tables:
//!
//! 1. the interface owning the source GID's address (`getifaddrs(3)`): the outgoing interface, `oif`;
//! 2. the route to the destination leaving by `oif` (`RTM_GETROUTE` with `RTA_OIF`): a blackhole, unreachable,
//!    prohibit or throw route, or no route at all, fails; a gateway takes the destination's place;
//! 3. a local route (the destination is an address of this host that the kernel delivers through `oif`'s table,
//!    e.g. `oif`'s own address) answers `oif`'s own link-layer address;
//! 4. otherwise an address that encodes its link-layer address is decoded (IPv4 multicast `01:00:5e:..`, IPv6
//!    multicast `33:33:..`, IPv6 link-local `fe80::/64` from its EUI-64);
//! 5. otherwise the neighbour table's entry for the destination on `oif`; without one, a UDP datagram (port 9,
//!    discard) from the source address makes the kernel resolve it, and the neighbour notifications
//!    (`RTNLGRP_NEIGH`) are watched, the table re-read and the datagram re-sent every [`TIMEOUT_MS`]` / 11` ms,
//!    for up to [`TIMEOUT_MS`].
//!
//! The datagram is routed as the kernel routes any socket bound to the source address (not bound to `oif`): to
//! another address of this host it goes through the loopback device and no neighbour is ever asked, so a local
//! destination that `oif`'s route sends out on the wire is resolved only when an earlier exchange (RoCE traffic
//! through `oif`) left its entry in the table, with rdma-core as here. The VLAN id is `oif`'s when it is a VLAN
//! device, else `0xffff`.
#![allow(unsafe_code)]

use super::rtnl::{self, Rtnl};
use rdma_common::errno::{Errno, Result};
use rdma_common::sys;
use rdma_common::sys::netlink::NetlinkSocket;
use std::ffi::{c_int, CStr};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV6, UdpSocket};
use std::time::{Duration, Instant};

/// How long a resolution waits for the neighbour (rdma-core's `NEIGH_GET_DEFAULT_TIMEOUT_MS`).
pub const TIMEOUT_MS: u64 = 3000;

/// An IP address as RoCE GIDs carry them: IPv4 in the IPv4-mapped IPv6 form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GidAddr {
    V4(Ipv4Addr),
    V6(Ipv6Addr),
}

impl From<IpAddr> for GidAddr {
    fn from(a: IpAddr) -> GidAddr {
        match a {
            IpAddr::V4(a) => GidAddr::V4(a),
            IpAddr::V6(a) => GidAddr::V6(a),
        }
    }
}

impl GidAddr {
    /// The plain IP address.
    pub fn ip(self) -> IpAddr {
        match self {
            GidAddr::V4(a) => IpAddr::V4(a),
            GidAddr::V6(a) => IpAddr::V6(a),
        }
    }

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

/// The result of a resolution: the destination's Ethernet address and the VLAN id to use (`0xffff`: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L2 {
    pub mac: [u8; 6],
    pub vid: u16,
}

/// Resolves `dst` as seen from the interface that owns `src` (rdma-core's `ibv_resolve_eth_l2_from_gid` after
/// its GID query; the steps are in the module's documentation). Errors as rdma-core: `EINVAL` when no interface
/// owns `src`; `EHOSTUNREACH` when the route fails, the destination's link-layer address is not a 6-byte one, or it
/// stays unknown for [`TIMEOUT_MS`] (or the datagram cannot be sent: no route from `src`'s socket); the netlink
/// socket's errno when it cannot be opened.
pub fn resolve(src: GidAddr, dst: GidAddr) -> Result<L2> {
    let addrs = if_addrs()?;
    let oif = addrs.iter().find(|a| a.addr == src && a.index > 0).ok_or(Errno::EINVAL)?;
    let sock = NetlinkSocket::open(libc::NETLINK_ROUTE)?;
    let nl = Rtnl::new(&sock);
    log::debug!("neighbour of {dst:?} via {} (index {})", oif.name, oif.index);
    let ll = link_layer(&nl, src.ip(), dst.ip(), oif.index).ok_or(Errno::EHOSTUNREACH)?;
    let mac: [u8; 6] = ll.as_slice().try_into().map_err(|_| Errno::EHOSTUNREACH)?;
    Ok(L2 { mac, vid: vlan_id(&oif.name) })
}

/// Steps 2 to 5 of the module's documentation: the link-layer address for `dst` leaving by `oif`, if any.
fn link_layer(nl: &Rtnl<'_, NetlinkSocket>, src: IpAddr, dst: IpAddr, oif: u32) -> Option<Vec<u8>> {
    let route = match nl.route(dst, oif) {
        Ok(r) => r,
        Err(e) => {
            log::debug!("route to {dst} by interface {oif}: {e}");
            return None;
        }
    };
    log::debug!("route to {dst} by interface {oif}: type {}, gateway {:?}", route.kind, route.gateway);
    if matches!(route.kind, libc::RTN_BLACKHOLE | libc::RTN_UNREACHABLE | libc::RTN_PROHIBIT | libc::RTN_THROW) {
        return None;
    }
    let dst = route.gateway.unwrap_or(dst);
    if route.kind == libc::RTN_LOCAL {
        return nl.link_addr(oif).ok().flatten();
    }
    if let Some(mac) = encoded_mac(GidAddr::from(dst)) {
        return Some(mac.to_vec());
    }
    if let Ok(Some(ll)) = nl.neighbour(oif, dst) {
        return Some(ll);
    }
    solicit(nl, src, dst, oif)
}

/// How many times [`solicit`] looks again (and re-sends its datagram but the last time) before giving up.
const TRIES: u32 = 11;
/// How often [`send_probe`] retries a send refused with `EADDRNOTAVAIL` (an IPv6 source still tentative).
const ADDR_RETRIES: u32 = 100_000;

/// Step 5 without a neighbour entry: makes the kernel resolve `dst` and waits for the neighbour table to say where
/// it is, as the module's documentation says.
fn solicit(nl: &Rtnl<'_, NetlinkSocket>, src: IpAddr, dst: IpAddr, oif: u32) -> Option<Vec<u8>> {
    // Listen before sending, so that no notification is missed.
    let events = NetlinkSocket::open(libc::NETLINK_ROUTE).ok()?;
    events.join_group(libc::RTNLGRP_NEIGH).ok()?;
    let sock = UdpSocket::bind(match src {
        IpAddr::V4(a) => SocketAddr::from((a, 0)),
        IpAddr::V6(a) => SocketAddr::V6(SocketAddrV6::new(a, 0, 0, 0)),
    })
    .ok()?;
    let to = match dst {
        IpAddr::V4(a) => SocketAddr::from((a, 9)),
        IpAddr::V6(a) => SocketAddr::V6(SocketAddrV6::new(a, 9, 0, oif)),
    };
    if let Err(e) = send_probe(&sock, to) {
        log::debug!("datagram to {to}: {e}");
        return None;
    }
    let tick = Duration::from_millis(TIMEOUT_MS / u64::from(TRIES));
    let mut next = Instant::now() + tick;
    let mut buf = vec![0u8; 64 * 1024];
    let mut looked = 0;
    loop {
        let wait = next.saturating_duration_since(Instant::now());
        if events.wait_readable(wait.as_millis() as i32).ok()? {
            // A notification datagram too big for the buffer, or an overrun (`ENOBUFS`): the next look covers it.
            if let Ok(n) = events.recv(&mut buf) {
                if let Some(ll) = rtnl::neigh_event(&buf[..n], oif, dst) {
                    return Some(ll);
                }
            }
            continue;
        }
        if Instant::now() < next {
            continue; // interrupted
        }
        if let Ok(Some(ll)) = nl.neighbour(oif, dst) {
            return Some(ll);
        }
        if looked < TRIES - 1 {
            let _ = send_probe(&sock, to);
        }
        looked += 1;
        if looked >= TRIES {
            return None;
        }
        next += tick;
    }
}

/// Sends the one-byte datagram to `to`, retrying a send refused with `EADDRNOTAVAIL`.
fn send_probe(sock: &UdpSocket, to: SocketAddr) -> std::io::Result<()> {
    let mut left = ADDR_RETRIES;
    loop {
        match sock.send_to(b"H", to) {
            Err(e) if e.raw_os_error() == Some(libc::EADDRNOTAVAIL) && left > 1 => left -= 1,
            r => return r.map(|_| ()),
        }
    }
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
    fn loopback_through_the_kernel() {
        // The real NETLINK_ROUTE conversation on this machine's loopback: its own address is a local route (the
        // interface's link-layer address, all zero on `lo`), a multicast group is decoded after its route.
        let lo = GidAddr::V4(Ipv4Addr::LOCALHOST);
        assert_eq!(resolve(lo, lo), Ok(L2 { mac: [0; 6], vid: 0xffff }));
        let mc = GidAddr::V4(Ipv4Addr::new(239, 1, 2, 3));
        assert_eq!(resolve(lo, mc), Ok(L2 { mac: [0x01, 0x00, 0x5e, 0x01, 0x02, 0x03], vid: 0xffff }));
    }

    #[test]
    fn unknown_source_is_einval() {
        let src = GidAddr::V4(Ipv4Addr::new(192, 0, 2, 77));
        assert_eq!(resolve(src, GidAddr::V4(Ipv4Addr::new(192, 0, 2, 78))), Err(Errno::EINVAL));
    }
}
