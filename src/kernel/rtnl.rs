//! `NETLINK_ROUTE`: what RoCE neighbour resolution ([`super::neigh`]) asks the kernel. These are the questions
//! rdma-core's `neigh.c` asks through libnl: the route to an address leaving by a given interface
//! (`RTM_GETROUTE` with `RTA_DST` and `RTA_OIF`), an interface's link-layer address (`RTM_GETLINK`), the neighbour
//! table (an `RTM_GETNEIGH` dump) and its changes (`RTNLGRP_NEIGH` notifications).
//!
//! Every payload starts with its family header (`struct rtmsg`, `struct ifinfomsg`, `struct ndmsg`), then the
//! attributes. Requests carry `NLM_F_REQUEST` (plus `NLM_F_DUMP` for the neighbour table) and no `NLM_F_ACK`: a
//! query is answered by its reply or by `NLMSG_ERROR`, a dump ends with `NLMSG_DONE`.

use super::netlink::{encode_with, messages, nlmsg_error, Attrs, NlAttr, NlTransport, RECV_BUF};
use rdma_common::errno::{Errno, Result};
use std::cell::Cell;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// `sizeof(struct rtmsg)`: family, dst_len, src_len, tos, table, protocol, scope, type, then `u32` flags.
const RTMSG_LEN: usize = 12;
/// `sizeof(struct ifinfomsg)`: family, pad, `u16` type, `i32` index, `u32` flags, `u32` change.
const IFINFOMSG_LEN: usize = 16;
/// `sizeof(struct ndmsg)`: family, pad, `u16` pad, `i32` ifindex, `u16` state, flags, type.
const NDMSG_LEN: usize = 12;
/// `sizeof(struct rtnexthop)`: `u16` len, flags, hops, `i32` ifindex (then the next hop's attributes).
const RTNH_LEN: usize = 8;

/// The kernel's answer to a route query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// `rtm_type`: `RTN_UNICAST`, `RTN_LOCAL` (an address of this host), `RTN_MULTICAST`, `RTN_UNREACHABLE`, ...
    pub kind: u8,
    /// The first next hop's gateway: `RTA_GATEWAY`, or that of the first `RTA_MULTIPATH` entry.
    pub gateway: Option<IpAddr>,
}

/// The `AF_*` family of an address.
fn family(a: IpAddr) -> u8 {
    match a {
        IpAddr::V4(_) => libc::AF_INET as u8,
        IpAddr::V6(_) => libc::AF_INET6 as u8,
    }
}

fn octets(a: IpAddr) -> Vec<u8> {
    match a {
        IpAddr::V4(a) => a.octets().to_vec(),
        IpAddr::V6(a) => a.octets().to_vec(),
    }
}

/// The address of family `family` in the attribute value `b` (4 or 16 bytes).
fn parse_addr(family: u8, b: &[u8]) -> Option<IpAddr> {
    match i32::from(family) {
        libc::AF_INET => Some(IpAddr::V4(Ipv4Addr::from(<[u8; 4]>::try_from(b).ok()?))),
        libc::AF_INET6 => Some(IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(b).ok()?))),
        _ => None,
    }
}

/// The route reply's type and first next hop. Errors: `EPROTO` for a payload shorter than `struct rtmsg` or
/// malformed attributes.
pub fn parse_route(payload: &[u8]) -> Result<Route> {
    let hdr = payload.get(..RTMSG_LEN).ok_or(Errno::EPROTO)?;
    let fam = hdr[0];
    let attrs = Attrs::parse(&payload[RTMSG_LEN..])?;
    let mut gateway = attrs.bytes(u32::from(libc::RTA_GATEWAY)).and_then(|b| parse_addr(fam, b));
    if gateway.is_none() {
        // A multipath route: the first `struct rtnexthop` and its attributes.
        if let Some(mp) = attrs.bytes(u32::from(libc::RTA_MULTIPATH)) {
            if mp.len() >= RTNH_LEN {
                let len = (u16::from_ne_bytes([mp[0], mp[1]]) as usize).clamp(RTNH_LEN, mp.len());
                let nh = Attrs::parse(&mp[RTNH_LEN..len])?;
                gateway = nh.bytes(u32::from(libc::RTA_GATEWAY)).and_then(|b| parse_addr(fam, b));
            }
        }
    }
    Ok(Route { kind: hdr[7], gateway })
}

/// The link-layer address (`NDA_LLADDR`) of a neighbour message for `dst` on interface `oif`. The kernel
/// includes it only for an entry in a valid state (reachable, stale, delay, probe, permanent, noarp), so a
/// pending or failed entry gives `None`, as it gives nothing to rdma-core.
pub fn neigh_lladdr(payload: &[u8], oif: u32, dst: IpAddr) -> Option<Vec<u8>> {
    let hdr = payload.get(..NDMSG_LEN)?;
    let ifindex = i32::from_ne_bytes([hdr[4], hdr[5], hdr[6], hdr[7]]);
    if ifindex < 0 || ifindex as u32 != oif {
        return None;
    }
    let attrs = Attrs::parse(&payload[NDMSG_LEN..]).ok()?;
    if parse_addr(hdr[0], attrs.bytes(u32::from(libc::NDA_DST))?)? != dst {
        return None;
    }
    attrs.bytes(u32::from(libc::NDA_LLADDR)).map(<[u8]>::to_vec)
}

/// The link-layer address `dst` has on interface `oif` according to one `RTNLGRP_NEIGH` notification datagram
/// (its `RTM_NEWNEIGH` messages), if it says so.
pub fn neigh_event(datagram: &[u8], oif: u32, dst: IpAddr) -> Option<Vec<u8>> {
    messages(datagram)
        .ok()?
        .into_iter()
        .filter(|m| m.ty == libc::RTM_NEWNEIGH)
        .find_map(|m| neigh_lladdr(m.payload, oif, dst))
}

/// A `NETLINK_ROUTE` conversation: a transport and its sequence numbers.
pub struct Rtnl<'t, T: NlTransport + ?Sized> {
    t: &'t T,
    seq: Cell<u32>,
}

impl<'t, T: NlTransport + ?Sized> Rtnl<'t, T> {
    /// A conversation over `t` (the sequence numbers start at 1).
    pub fn new(t: &'t T) -> Self {
        Rtnl { t, seq: Cell::new(1) }
    }

    /// Sends one request (`ty`, `flags` beside `NLM_F_REQUEST`, the family header `hdr`, `attrs`) and hands the
    /// payload of each reply of type `reply_ty` with its sequence number to `reply`, until `reply` returns a value
    /// (`Ok(Some(v))`) or `NLMSG_DONE` ends a dump (`Ok(None)`). Errors: the kernel's errno from `NLMSG_ERROR`,
    /// `reply`'s, the socket's.
    fn request<R>(
        &self,
        ty: u16,
        flags: i32,
        hdr: &[u8],
        attrs: &[(u16, NlAttr<'_>)],
        reply_ty: u16,
        mut reply: impl FnMut(&[u8]) -> Result<Option<R>>,
    ) -> Result<Option<R>> {
        let seq = self.seq.get();
        self.seq.set(seq.wrapping_add(1));
        self.t.send(&encode_with(ty, (libc::NLM_F_REQUEST | flags) as u16, seq, hdr, attrs))?;
        let mut buf = vec![0u8; RECV_BUF];
        loop {
            let n = self.t.recv(&mut buf)?;
            for m in messages(&buf[..n])? {
                if m.seq != seq {
                    continue;
                }
                match i32::from(m.ty) {
                    libc::NLMSG_DONE => return Ok(None),
                    libc::NLMSG_ERROR => return Err(nlmsg_error(m.payload)),
                    _ if m.ty == reply_ty => {
                        if let Some(v) = reply(m.payload)? {
                            return Ok(Some(v));
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// `RTM_GETROUTE`: the route the kernel picks for `dst` leaving by interface `oif` (0: any). Errors: the
    /// kernel's errno (`ENETUNREACH`, `EHOSTUNREACH`, `ENODEV`, ...); `EPROTO` for a malformed or missing reply.
    pub fn route(&self, dst: IpAddr, oif: u32) -> Result<Route> {
        let mut hdr = [0u8; RTMSG_LEN];
        hdr[0] = family(dst);
        hdr[1] = if dst.is_ipv4() { 32 } else { 128 }; // rtm_dst_len: a host
        let a = octets(dst);
        let mut attrs = vec![(libc::RTA_DST, NlAttr::Bytes(&a))];
        if oif > 0 {
            attrs.push((libc::RTA_OIF, NlAttr::U32(oif)));
        }
        self.request(libc::RTM_GETROUTE, 0, &hdr, &attrs, libc::RTM_NEWROUTE, |p| parse_route(p).map(Some))?
            .ok_or(Errno::EPROTO)
    }

    /// `RTM_GETLINK` of interface `ifindex`: its link-layer address (`IFLA_ADDRESS`), `None` when it has none.
    /// Errors: the kernel's errno (`ENODEV`); `EPROTO` for a malformed or missing reply.
    pub fn link_addr(&self, ifindex: u32) -> Result<Option<Vec<u8>>> {
        let mut hdr = [0u8; IFINFOMSG_LEN];
        hdr[4..8].copy_from_slice(&(ifindex as i32).to_ne_bytes());
        self.request(libc::RTM_GETLINK, 0, &hdr, &[], libc::RTM_NEWLINK, |p| {
            let attrs = Attrs::parse(p.get(IFINFOMSG_LEN..).ok_or(Errno::EPROTO)?)?;
            Ok(Some(attrs.bytes(u32::from(libc::IFLA_ADDRESS)).map(<[u8]>::to_vec)))
        })?
        .ok_or(Errno::EPROTO)
    }

    /// The neighbour table's link-layer address for `dst` on interface `oif` (an `RTM_GETNEIGH` dump of `dst`'s
    /// family, read to its end): `None` when there is no entry, or none in a valid state. Errors: the kernel's
    /// errno; `EPROTO` for malformed messages.
    pub fn neighbour(&self, oif: u32, dst: IpAddr) -> Result<Option<Vec<u8>>> {
        let mut hdr = [0u8; NDMSG_LEN];
        hdr[0] = family(dst);
        let mut found = None;
        self.request(libc::RTM_GETNEIGH, libc::NLM_F_DUMP, &hdr, &[], libc::RTM_NEWNEIGH, |p| {
            if found.is_none() {
                found = neigh_lladdr(p, oif, dst);
            }
            Ok(None::<()>)
        })?;
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::netlink::tests::{done, error, FakeNl};

    /// A reply message: header, the family header `fam`, then attributes.
    fn msg(ty: u16, seq: u32, fam: &[u8], attrs: &[(u16, Vec<u8>)]) -> Vec<u8> {
        let a: Vec<(u16, NlAttr<'_>)> = attrs.iter().map(|(t, v)| (*t, NlAttr::Bytes(v))).collect();
        encode_with(ty, 0, seq, fam, &a)
    }

    fn rtmsg(fam: i32, kind: u8) -> Vec<u8> {
        let mut h = vec![0u8; RTMSG_LEN];
        h[0] = fam as u8;
        h[7] = kind;
        h
    }

    fn ndmsg(fam: i32, ifindex: i32) -> Vec<u8> {
        let mut h = vec![0u8; NDMSG_LEN];
        h[0] = fam as u8;
        h[4..8].copy_from_slice(&ifindex.to_ne_bytes());
        h
    }

    const V4: IpAddr = IpAddr::V4(Ipv4Addr::new(198, 18, 0, 2));

    #[test]
    fn route_request_and_replies() {
        let t = FakeNl::default();
        t.replies.borrow_mut().push_back(Ok(msg(libc::RTM_NEWROUTE, 1, &rtmsg(libc::AF_INET, libc::RTN_LOCAL), &[])));
        let gw = vec![198, 18, 0, 254];
        let r = msg(libc::RTM_NEWROUTE, 2, &rtmsg(libc::AF_INET, libc::RTN_UNICAST), &[(libc::RTA_GATEWAY, gw)]);
        t.replies.borrow_mut().push_back(Ok(r));
        t.replies.borrow_mut().push_back(Ok(error(3, libc::ENETUNREACH)));
        let nl = Rtnl::new(&t);
        assert_eq!(nl.route(V4, 5), Ok(Route { kind: libc::RTN_LOCAL, gateway: None }));
        let gw = Some(IpAddr::V4(Ipv4Addr::new(198, 18, 0, 254)));
        assert_eq!(nl.route(V4, 5), Ok(Route { kind: libc::RTN_UNICAST, gateway: gw }));
        assert_eq!(nl.route(V4, 0), Err(Errno(libc::ENETUNREACH)));
        let sent = t.sent.borrow();
        // nlmsghdr (16) + rtmsg (12) + RTA_DST (8) + RTA_OIF (8); REQUEST only.
        assert_eq!(sent[0].len(), 44);
        assert_eq!(u16::from_ne_bytes([sent[0][4], sent[0][5]]), libc::RTM_GETROUTE);
        assert_eq!(u16::from_ne_bytes([sent[0][6], sent[0][7]]), libc::NLM_F_REQUEST as u16);
        assert_eq!(&sent[0][16..20], &[libc::AF_INET as u8, 32, 0, 0]);
        assert_eq!(&sent[0][28..36], &[8, 0, 1, 0, 198, 18, 0, 2]); // RTA_DST
        assert_eq!(&sent[0][36..44], &[8, 0, 4, 0, 5, 0, 0, 0]); // RTA_OIF
        assert_eq!(sent[2].len(), 36, "no RTA_OIF for oif 0");
    }

    #[test]
    fn multipath_gateway() {
        let v6gw: [u8; 16] = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
        let mut nh = vec![0u8; RTNH_LEN + 20];
        let n = nh.len() as u16;
        nh[0..2].copy_from_slice(&n.to_ne_bytes());
        nh[RTNH_LEN..RTNH_LEN + 4].copy_from_slice(&[20, 0, libc::RTA_GATEWAY as u8, 0]);
        nh[RTNH_LEN + 4..].copy_from_slice(&v6gw);
        let m = msg(libc::RTM_NEWROUTE, 1, &rtmsg(libc::AF_INET6, libc::RTN_UNICAST), &[(libc::RTA_MULTIPATH, nh)]);
        let r = parse_route(messages(&m).unwrap()[0].payload).unwrap();
        assert_eq!(r.gateway, Some(IpAddr::V6(Ipv6Addr::from(v6gw))));
        assert_eq!(parse_route(&[0; 4]), Err(Errno::EPROTO));
    }

    #[test]
    fn link_address() {
        let t = FakeNl::default();
        let mac = vec![2, 0x50, 0x56, 1, 2, 3];
        t.replies.borrow_mut().push_back(Ok(msg(
            libc::RTM_NEWLINK,
            1,
            &[0; IFINFOMSG_LEN],
            &[(libc::IFLA_ADDRESS, mac)],
        )));
        t.replies.borrow_mut().push_back(Ok(msg(libc::RTM_NEWLINK, 2, &[0; IFINFOMSG_LEN], &[])));
        t.replies.borrow_mut().push_back(Ok(error(3, libc::ENODEV)));
        let nl = Rtnl::new(&t);
        assert_eq!(nl.link_addr(7), Ok(Some(vec![2, 0x50, 0x56, 1, 2, 3])));
        assert_eq!(nl.link_addr(7), Ok(None));
        assert_eq!(nl.link_addr(99), Err(Errno::ENODEV));
        assert_eq!(&t.sent.borrow()[0][16..24], &[0, 0, 0, 0, 7, 0, 0, 0]);
    }

    #[test]
    fn neighbour_dump_and_events() {
        let t = FakeNl::default();
        let mac = vec![0xd2, 0xf9, 0x9e, 0x94, 0x35, 0xb1];
        let dst = vec![198, 18, 0, 2];
        let dump = |seq: u32| {
            let mut d = msg(libc::RTM_NEWNEIGH, seq, &ndmsg(libc::AF_INET, 4), &[(libc::NDA_DST, dst.clone())]);
            let entry = [(libc::NDA_DST, dst.clone()), (libc::NDA_LLADDR, mac.clone())];
            d.extend(msg(libc::RTM_NEWNEIGH, seq, &ndmsg(libc::AF_INET, 3), &entry));
            let other = [(libc::NDA_DST, vec![198, 18, 0, 9]), (libc::NDA_LLADDR, vec![1; 6])];
            d.extend(msg(libc::RTM_NEWNEIGH, seq, &ndmsg(libc::AF_INET, 4), &other));
            d
        };
        t.replies.borrow_mut().push_back(Ok(dump(1)));
        t.replies.borrow_mut().push_back(Ok(done(1)));
        let nl = Rtnl::new(&t);
        // Entries without a link-layer address, on another interface, for another address.
        assert_eq!(nl.neighbour(4, V4), Ok(None));
        assert_eq!(t.sent.borrow()[0][6..8], ((libc::NLM_F_REQUEST | libc::NLM_F_DUMP) as u16).to_ne_bytes());
        t.replies.borrow_mut().push_back(Ok(dump(2)));
        t.replies.borrow_mut().push_back(Ok(done(2)));
        assert_eq!(nl.neighbour(3, V4), Ok(Some(mac.clone())));
        assert_eq!(neigh_event(&dump(0), 3, V4), Some(mac.clone()));
        assert_eq!(neigh_event(&dump(0), 4, V4), None);
        let del =
            msg(libc::RTM_DELNEIGH, 0, &ndmsg(libc::AF_INET, 3), &[(libc::NDA_DST, dst), (libc::NDA_LLADDR, mac)]);
        assert_eq!(neigh_event(&del, 3, V4), None, "a deletion says nothing about where the neighbour is");
    }
}
