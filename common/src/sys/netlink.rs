//! A netlink socket to the kernel (`NETLINK_RDMA` for device discovery, `NETLINK_ROUTE` for RoCE neighbour
//! resolution).
#![allow(unsafe_code)]

use crate::errno::{Errno, Result};
use std::ffi::c_void;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

/// A bound `AF_NETLINK` datagram socket talking to the kernel (port id 0).
#[derive(Debug)]
pub struct NetlinkSocket {
    fd: OwnedFd,
}

impl NetlinkSocket {
    /// `socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol)` bound to a kernel-assigned port id.
    /// Errors: `EPROTONOSUPPORT` when the protocol's family is not registered (for `NETLINK_RDMA`: `ib_core` is not
    /// loaded and could not be auto-loaded); otherwise the `socket(2)`/`bind(2)` errno.
    pub fn open(protocol: i32) -> Result<NetlinkSocket> {
        // SAFETY: plain socket creation.
        let fd = unsafe { libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, protocol) };
        if fd < 0 {
            return Err(Errno::last());
        }
        // SAFETY: socket just returned this descriptor; nothing else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: an all-zero sockaddr_nl is valid (nl_pid 0: let the kernel assign the port id).
        let mut addr: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        // SAFETY: `addr` is a valid sockaddr_nl of the stated size.
        let r = unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_nl).cast::<libc::sockaddr>(),
                std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(Errno::last());
        }
        Ok(NetlinkSocket { fd })
    }

    /// Sends one message (or a batch) to the kernel. Errors: the `sendto(2)` errno; `EIO` for a short send.
    pub fn send(&self, msg: &[u8]) -> Result<()> {
        // SAFETY: all-zero sockaddr_nl addresses the kernel (pid 0, no groups).
        let mut to: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        to.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        // SAFETY: `msg` is valid for its length and `to` is a valid sockaddr_nl.
        let n = unsafe {
            libc::sendto(
                self.fd.as_raw_fd(),
                msg.as_ptr().cast::<c_void>(),
                msg.len(),
                0,
                (&to as *const libc::sockaddr_nl).cast::<libc::sockaddr>(),
                std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
            )
        };
        if n < 0 {
            return Err(Errno::last());
        }
        if n as usize != msg.len() {
            return Err(Errno::EIO);
        }
        Ok(())
    }

    /// Receives one datagram (one or more netlink messages) into `buf`, returning its length.
    /// Errors: the `recv(2)` errno; `EMSGSIZE` if the datagram did not fit in `buf` (it is then lost).
    pub fn recv(&self, buf: &mut [u8]) -> Result<usize> {
        // SAFETY: `buf` is valid for writes of its length. MSG_TRUNC makes recv report the datagram's real length.
        let n =
            unsafe { libc::recv(self.fd.as_raw_fd(), buf.as_mut_ptr().cast::<c_void>(), buf.len(), libc::MSG_TRUNC) };
        if n < 0 {
            return Err(Errno::last());
        }
        let n = n as usize;
        if n > buf.len() {
            return Err(Errno(libc::EMSGSIZE));
        }
        Ok(n)
    }
}

impl NetlinkSocket {
    /// Joins multicast group `group` (`NETLINK_ADD_MEMBERSHIP`, e.g. `RTNLGRP_NEIGH`): the kernel then sends the
    /// group's notifications to this socket. Errors: the `setsockopt(2)` errno (`EINVAL` for an unknown group).
    pub fn join_group(&self, group: u32) -> Result<()> {
        // SAFETY: NETLINK_ADD_MEMBERSHIP reads one `int`-sized group number from `optval`.
        let r = unsafe {
            libc::setsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_NETLINK,
                libc::NETLINK_ADD_MEMBERSHIP,
                (&group as *const u32).cast::<c_void>(),
                std::mem::size_of::<u32>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(Errno::last());
        }
        Ok(())
    }

    /// Waits up to `timeout_ms` milliseconds for a datagram to read: `Ok(true)` when one is there, `Ok(false)` when
    /// the time ran out (or a signal interrupted the wait). Errors: the `poll(2)` errno.
    pub fn wait_readable(&self, timeout_ms: i32) -> Result<bool> {
        let mut p = libc::pollfd { fd: self.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd for the duration of the call.
        let n = unsafe { libc::poll(&mut p, 1, timeout_ms) };
        if n < 0 {
            let e = Errno::last();
            return if e.0 == libc::EINTR { Ok(false) } else { Err(e) };
        }
        Ok(n > 0)
    }
}

impl AsFd for NetlinkSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_socket_round_trip() {
        // NETLINK_ROUTE exists on every Linux: ask for the link dump and check a reply comes back.
        let s = NetlinkSocket::open(libc::NETLINK_ROUTE).unwrap();
        let mut req = [0u8; 32];
        req[0..4].copy_from_slice(&32u32.to_ne_bytes()); // nlmsg_len
        req[4..6].copy_from_slice(&(libc::RTM_GETLINK).to_ne_bytes()); // nlmsg_type
        req[6..8].copy_from_slice(&((libc::NLM_F_REQUEST | libc::NLM_F_DUMP) as u16).to_ne_bytes());
        req[16] = libc::AF_UNSPEC as u8; // struct ifinfomsg: family
        s.send(&req).unwrap();
        let mut buf = vec![0u8; 65536];
        let n = s.recv(&mut buf).unwrap();
        assert!(n >= 16);
    }
}
