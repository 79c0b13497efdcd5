//! Errors that say why, for the CM: the warning line written when an id's event reports a failure
//! (`RDMA_CM_EVENT_ADDR_ERROR`, `ROUTE_ERROR`, `UNREACHABLE`, `REJECTED`, `CONNECT_ERROR`), naming the call that
//! started it, the id's addresses and the likely cause in the field's terms, e.g.
//!
//! ```text
//! rdma_connect(198.18.0.2 -> 198.18.0.1 port 7999): REJECTED: nobody listens on port 7999 at 198.18.0.1 (reject reason 8, invalid service ID)
//! ```
//!
//! Logged at warning level (`VERBS_LOG_LEVEL=2`), as libibverbs' explanations; the event itself is delivered
//! unchanged. Cold: runs only for failure events, and only when warnings are enabled.
#![allow(unsafe_code)] // reads the id's route addresses (C unions)

use super::handout::{kind_of, status_of};
use crate::state::CmId;
use rdma_common::abi::rdma_cma::rdma_cm_event_type::*;
use rdma_common::abi::rdma_cma::*;
use rdma_common::Errno;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::ptr::addr_of;

/// `198.18.0.1`, `fe80::1`, or the family's number for others (`AF_IB` ids are named by their GIDs elsewhere).
///
/// # Safety
/// `sa` points to a socket address with room for its family's structure (an `rdma_addr` union member).
unsafe fn ip_of(sa: *const libc::sockaddr) -> Option<String> {
    // SAFETY: caller's contract: the family is readable, and the union has room for the family's structure.
    unsafe {
        match i32::from((*sa).sa_family) {
            libc::AF_INET => {
                let sin = sa.cast::<libc::sockaddr_in>();
                Some(Ipv4Addr::from(u32::from_be((*sin).sin_addr.s_addr)).to_string())
            }
            libc::AF_INET6 => {
                let sin6 = sa.cast::<libc::sockaddr_in6>();
                Some(Ipv6Addr::from((*sin6).sin6_addr.s6_addr).to_string())
            }
            libc::AF_UNSPEC => None,
            f => Some(format!("family {f}")),
        }
    }
}

/// The port of an IPv4/IPv6 address (0 for others).
///
/// # Safety
/// As [`ip_of`].
unsafe fn port_of(sa: *const libc::sockaddr) -> u16 {
    // SAFETY: caller's contract.
    unsafe {
        match i32::from((*sa).sa_family) {
            libc::AF_INET => u16::from_be((*sa.cast::<libc::sockaddr_in>()).sin_port),
            libc::AF_INET6 => u16::from_be((*sa.cast::<libc::sockaddr_in6>()).sin6_port),
            _ => 0,
        }
    }
}

/// The name of an InfiniBand CM reject reason (`enum ib_cm_rej_reason`, IBTA 12.6.7.2) for the common ones.
fn reject_reason(r: i32) -> &'static str {
    match r {
        1 => "no QP",
        3 => "no resources",
        4 => "timeout",
        5 => "unsupported",
        6 => "invalid comm ID",
        8 => "invalid service ID",
        9 => "invalid transport type",
        10 => "stale connection",
        12 => "invalid GID",
        26 => "invalid MTU",
        27 => "insufficient responder resources",
        28 => "consumer defined",
        29 => "invalid RNR retry",
        _ => "",
    }
}

/// The cause of a failure event, in words: `kind` (an `rdma_cm_event_type`), its `status` (a negative errno, or
/// for `REJECTED` on InfiniBand/RoCE the reject reason), the id's addresses. Pure, for the tests.
pub(crate) fn cause(kind: u32, status: i32, src: &str, dst: &str, port: u16, iwarp: bool) -> String {
    let e = Errno(status.checked_abs().unwrap_or(0));
    let errno = e.name();
    // The errno a negative status carries; a status the kernel never sends (i32::MIN) names none, rather than
    // overflowing the negation.
    let neg = status.checked_neg().unwrap_or(0);
    match kind {
        k if k == RDMA_CM_EVENT_ADDR_ERROR as u32 => match neg {
            libc::ENODEV | libc::EADDRNOTAVAIL => {
                let from = if src == "any" { String::new() } else { format!(" from {src}") };
                format!(
                    "no RDMA device serves the route to {dst}{from} (is there an `rdma link` on the netdev of \
                     `ip route get {dst}`? rdma_cm cannot resolve over lo) ({errno})"
                )
            }
            libc::ETIMEDOUT => format!(
                "the neighbour (ARP/ND) resolution of {dst} timed out: is the host up and on the same L2 network? \
                 ({errno})"
            ),
            libc::ENETUNREACH | libc::EHOSTUNREACH => format!("no IP route to {dst} (`ip route get {dst}`) ({errno})"),
            _ => format!("address resolution of {dst} failed ({errno})"),
        },
        k if k == RDMA_CM_EVENT_ROUTE_ERROR as u32 => match neg {
            libc::ETIMEDOUT => format!(
                "path resolution to {dst} timed out (InfiniBand: no answer from the subnet administrator; RoCE: \
                 no GID of {src} in the device's GID table?) ({errno})"
            ),
            _ => format!("route resolution to {dst} failed ({errno})"),
        },
        k if k == RDMA_CM_EVENT_UNREACHABLE as u32 => match neg {
            libc::ETIMEDOUT => format!(
                "the CM of {dst} never answered the connection request: is {dst} an RDMA device's address, and \
                 are its packets dropped (firewall, rp_filter / accept_local with both ends on one host)? ({errno})"
            ),
            _ => format!("{dst} cannot be reached ({errno})"),
        },
        k if k == RDMA_CM_EVENT_REJECTED as u32 => {
            if iwarp || status < 0 {
                match neg {
                    libc::ECONNREFUSED => {
                        format!("{dst} refused the connection: nobody listens on port {port} ({errno})")
                    }
                    libc::ECONNRESET => format!("{dst} rejected the connection (MPA reject: rdma_reject) ({errno})"),
                    _ => format!("{dst} rejected the connection ({errno})"),
                }
            } else {
                match status {
                    8 => format!("nobody listens on port {port} at {dst} (reject reason 8, invalid service ID)"),
                    28 => format!("the application at {dst} rejected the connection (rdma_reject; reject reason 28, consumer defined)"),
                    r => {
                        let name = reject_reason(r);
                        if name.is_empty() {
                            format!("{dst} rejected the connection (reject reason {r})")
                        } else {
                            format!("{dst} rejected the connection (reject reason {r}, {name})")
                        }
                    }
                }
            }
        }
        k if k == RDMA_CM_EVENT_CONNECT_ERROR as u32 => {
            format!("the connection with {dst} failed while being established ({errno})")
        }
        _ => format!("status {status}"),
    }
}

/// Logs why the failure event `ev` of `id` happened (nothing for a successful event, or with warnings off).
///
/// # Safety
/// `ev` is the event just built for `id` (not yet handed out).
#[cold]
#[inline(never)]
pub(crate) unsafe fn failed_event(id: &CmId, ev: *mut rdma_cm_event) {
    if !log::log_enabled!(log::Level::Warn) {
        return;
    }
    let kind = kind_of(ev);
    let status = status_of(ev);
    let (call, name) = match kind {
        k if k == RDMA_CM_EVENT_ADDR_ERROR as u32 => ("rdma_resolve_addr", "ADDR_ERROR"),
        k if k == RDMA_CM_EVENT_ROUTE_ERROR as u32 => ("rdma_resolve_route", "ROUTE_ERROR"),
        k if k == RDMA_CM_EVENT_UNREACHABLE as u32 => ("rdma_connect", "UNREACHABLE"),
        k if k == RDMA_CM_EVENT_REJECTED as u32 => ("rdma_connect", "REJECTED"),
        k if k == RDMA_CM_EVENT_CONNECT_ERROR as u32 => ("rdma_connect/rdma_accept", "CONNECT_ERROR"),
        _ => return,
    };
    if kind == RDMA_CM_EVENT_CONNECT_ERROR as u32 && status == 0 {
        return;
    }
    let c = id.c();
    // SAFETY: a live id's route addresses: unions with room for any family.
    let (src, dst, port) = unsafe {
        let a = addr_of!((*c).route.addr);
        (
            ip_of(addr_of!((*a).src.src_addr)).unwrap_or_else(|| "any".into()),
            ip_of(addr_of!((*a).dst.dst_addr)).unwrap_or_else(|| "?".into()),
            port_of(addr_of!((*a).dst.dst_addr)),
        )
    };
    let iwarp = id.transport() == Some(crate::state::TRANSPORT_IWARP);
    let to = if port != 0 { format!("{dst} port {port}") } else { dst.clone() };
    log::warn!("{call}({src} -> {to}): {name}: {}", cause(kind, status, &src, &dst, port, iwarp));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_statuses_do_not_overflow() {
        // Found by fuzz/cm_event: `-status` overflowed (a panic with overflow checks) for i32::MIN.
        for kind in
            [RDMA_CM_EVENT_ADDR_ERROR, RDMA_CM_EVENT_ROUTE_ERROR, RDMA_CM_EVENT_UNREACHABLE, RDMA_CM_EVENT_REJECTED]
        {
            for status in [i32::MIN, i32::MIN + 1, i32::MAX] {
                let s = cause(kind as u32, status, "198.18.0.2", "198.18.0.1", 7999, true);
                assert!(s.contains("198.18.0.1"), "{kind:?} {status}: {s}");
            }
        }
        assert!(
            cause(RDMA_CM_EVENT_ADDR_ERROR as u32, i32::MIN, "any", "d", 0, false).starts_with("address resolution")
        );
    }

    #[test]
    fn causes_name_the_likely_fault() {
        let rej = RDMA_CM_EVENT_REJECTED as u32;
        assert!(cause(rej, 8, "198.18.0.2", "198.18.0.1", 7999, false).starts_with("nobody listens on port 7999"));
        assert!(cause(rej, 28, "a", "b", 1, false).contains("rdma_reject"));
        assert!(cause(rej, -libc::ECONNREFUSED, "a", "b", 9, true).contains("nobody listens on port 9"));
        assert!(cause(rej, 12, "a", "b", 1, false).contains("invalid GID"));
        let addr = RDMA_CM_EVENT_ADDR_ERROR as u32;
        assert!(cause(addr, -libc::ENODEV, "127.0.0.1", "b", 0, false).contains("no RDMA device"));
        assert!(cause(addr, -libc::ETIMEDOUT, "a", "b", 0, false).ends_with("(ETIMEDOUT)"));
        let unr = RDMA_CM_EVENT_UNREACHABLE as u32;
        assert!(cause(unr, -libc::ETIMEDOUT, "a", "b", 0, false).contains("never answered"));
    }
}
