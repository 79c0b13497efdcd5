//! Network interface queries for RoCE neighbour resolution (`ibv_resolve_eth_l2_from_gid(3)`, libibverbs'
//! `kernel::neigh`): the VLAN id of an interface.
#![allow(unsafe_code)]

use crate::errno::{Errno, Result};
use std::ffi::{c_char, c_int};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// `struct vlan_ioctl_args` (linux/if_vlan.h).
#[repr(C)]
struct VlanIoctlArgs {
    cmd: c_int,
    device1: [c_char; 24],
    /// The union `u`: `GET_VLAN_VID_CMD` answers in its first member, `int VID`.
    u: [u8; 24],
    vlan_qos: i16,
}

/// `GET_VLAN_VID_CMD` (linux/if_vlan.h, `enum vlan_ioctl_cmds`).
const GET_VLAN_VID_CMD: c_int = 9;
/// `SIOCGIFVLAN` (linux/sockios.h).
const SIOCGIFVLAN: libc::c_ulong = 0x8982;

/// The 802.1Q VLAN id of interface `ifname`: `ioctl(SIOCGIFVLAN)` with `GET_VLAN_VID_CMD` on a throwaway
/// `AF_INET` datagram socket, as the kernel reports it (`int VID`, 0..=4095 for a VLAN device). A name longer than
/// 23 bytes is cut to 23 (interface names have at most 15).
///
/// Errors: the `socket(2)` errno; the ioctl's: `EINVAL` when `ifname` is not a VLAN device, `ENODEV` when no
/// interface has that name, `ENOPKG` when the kernel has no 802.1Q support loaded.
pub fn vlan_vid(ifname: &str) -> Result<c_int> {
    let mut a = VlanIoctlArgs { cmd: GET_VLAN_VID_CMD, device1: [0; 24], u: [0; 24], vlan_qos: 0 };
    for (d, b) in a.device1.iter_mut().zip(ifname.bytes().take(23)) {
        *d = b as c_char;
    }
    // SAFETY: plain socket creation; the descriptor is owned below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(Errno::last());
    }
    // SAFETY: socket just returned this descriptor; nothing else owns it (closed when `sock` drops).
    let sock = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: SIOCGIFVLAN reads and writes one `struct vlan_ioctl_args`, which `a` is, for the whole call.
    let r = unsafe { libc::ioctl(sock.as_raw_fd(), SIOCGIFVLAN, &mut a as *mut VlanIoctlArgs) };
    if r != 0 {
        return Err(Errno::last());
    }
    Ok(c_int::from_ne_bytes([a.u[0], a.u[1], a.u[2], a.u[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_no_vlan() {
        // `lo` exists everywhere and is never a VLAN device (EINVAL; ENOPKG where 8021q cannot be loaded).
        let e = vlan_vid("lo").unwrap_err();
        assert!(e == Errno::EINVAL || e == Errno(libc::ENOPKG), "{e:?}");
    }
}
