//! Addresses and routes: `rdma_bind_addr`, `rdma_resolve_addr`, `rdma_resolve_route`, `rdma_get_src_port`,
//! `rdma_get_dst_port`; and the kernel queries that fill `id->route` (`ucma_query_addr`, `_gid`, `_path`,
//! `_route`).
#![allow(unsafe_code)] // #[no_mangle] C entry points

use super::event::{complete, sync_entry};
use super::query::{query_addr, query_gid, query_route, set_addr};
use super::{addr_bytes, addrlen};
use crate::kernel;
use crate::state::{self, CmId};
use libc::{sockaddr, sockaddr_in, sockaddr_in6};
use rdma_common::abi::ib::{sockaddr_ib, AF_IB};
use rdma_common::abi::rdma_cma::rdma_cm_id;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi::{self, CResult};
use std::ffi::c_int;
use std::sync::Arc;

/// `rdma_bind_addr(3)`: binds `id` to the local address `addr` (`AF_INET`, `AF_INET6`, or `AF_IB` when the kernel
/// supports it; address and port may be wildcards); a specific address also binds the id to that address's RDMA
/// device (`id->verbs`, `id->pd`, `id->port_num`). Returns 0, or -1 with `errno` (`EINVAL` for a NULL or unknown
/// id, NULL or unsupported address family; the kernel's `EADDRINUSE`, `EADDRNOTAVAIL`, ...).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_bind_addr(id: *mut rdma_cm_id, addr: *mut sockaddr) -> c_int {
    ffi::boundary("rdma_bind_addr", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        // SAFETY: a non-NULL `addr` is a socket address of its family's size (the C contract).
        let len = unsafe { addrlen(addr) };
        if len == 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: as above.
        bind(&id, unsafe { addr_bytes(addr, len) })?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rdma_resolve_addr(3)`: resolves `dst_addr` to an RDMA address within `timeout_ms` milliseconds, binding `id`
/// first to `src_addr` when given (else to a source chosen by the routing tables), which binds it to a device.
/// Completion is reported by `RDMA_CM_EVENT_ADDR_RESOLVED` or `_ADDR_ERROR` (a synchronous id waits for it).
/// Returns 0, or -1 with `errno` (`EINVAL` for a NULL/unknown id or address, the kernel's).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn rdma_resolve_addr(
    id: *mut rdma_cm_id,
    src_addr: *mut sockaddr,
    dst_addr: *mut sockaddr,
    timeout_ms: c_int,
) -> c_int {
    sync_entry("rdma_resolve_addr", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        // SAFETY: non-NULL addresses are socket addresses of their family's size (the C contract).
        let (dst_len, src_len) = unsafe { (addrlen(dst_addr), addrlen(src_addr)) };
        if dst_len == 0 || (!src_addr.is_null() && src_len == 0) {
            return Err(Errno::EINVAL);
        }
        // SAFETY: as above.
        let (src, dst) = unsafe { (addr_bytes(src_addr, src_len), addr_bytes(dst_addr, dst_len)) };
        resolve(&id, src, dst, timeout_ms)?;
        Ok(0)
    })
}

/// `rdma_resolve_route(3)`: resolves the route (path records) to the resolved destination of `id` within
/// `timeout_ms` milliseconds. Completion is reported by `RDMA_CM_EVENT_ROUTE_RESOLVED` or `_ROUTE_ERROR` (a
/// synchronous id waits for it). Returns 0, or -1 with `errno` (`EINVAL` for a NULL/unknown id or one whose address
/// is not resolved).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn rdma_resolve_route(id: *mut rdma_cm_id, timeout_ms: c_int) -> c_int {
    sync_entry("rdma_resolve_route", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        // rdma-core first asks ibacm for IB paths (RDMA_OPTION_IB_PATH); without ibacm it falls back to the kernel,
        // which is what we always do.
        kernel::addr::resolve_route(&id.channel().fd(), id.handle(), timeout_ms as u32)?;
        complete(&id)?;
        Ok(0)
    })
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma; rdma_bind_addr, rdma_resolve_addr, rdma_resolve_route);

/// The port of a socket address, big-endian: `sin_port`, `sin6_port`, or for `AF_IB` the low 16 bits of the
/// service id; 0 for any other family.
///
/// # Safety
/// `sa` must point to a readable address of the size its family implies.
pub(crate) unsafe fn port_of(sa: *const sockaddr) -> u16 {
    // SAFETY: the caller guarantees the address is readable for its family.
    unsafe {
        match c_int::from((*sa).sa_family) {
            libc::AF_INET => (*sa.cast::<sockaddr_in>()).sin_port,
            libc::AF_INET6 => (*sa.cast::<sockaddr_in6>()).sin6_port,
            AF_IB => (u64::from_be((*sa.cast::<sockaddr_ib>()).sib_sid) as u16).to_be(),
            _ => 0,
        }
    }
}

/// `rdma_get_src_port(3)`: the source port of `id` (from `id->route.addr.src_addr`), big-endian; 0 when the id is
/// unbound, its family has no port, or `id` is NULL. `errno` untouched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_src_port(id: *mut rdma_cm_id) -> u16 {
    if id.is_null() {
        return 0;
    }
    // SAFETY: a non-NULL id is a live rdma_cm_id; its source address is a sockaddr_storage.
    unsafe { port_of(std::ptr::addr_of!((*id).route.addr.src).cast()) }
}

/// `rdma_get_dst_port(3)`: the destination port of `id` (from `id->route.addr.dst_addr`), big-endian; 0 when no
/// destination is resolved, its family has no port, or `id` is NULL. `errno` untouched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_get_dst_port(id: *mut rdma_cm_id) -> u16 {
    if id.is_null() {
        return 0;
    }
    // SAFETY: as in rdma_get_src_port.
    unsafe { port_of(std::ptr::addr_of!((*id).route.addr.dst).cast()) }
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma; rdma_get_src_port, rdma_get_dst_port);

// ---------------------------------------------------------------------------------------------------------------
// The library side.

/// `rdma_bind_addr` / `rdma_bind_addr2` on a checked address: BIND + QUERY(ADDR, GID) when the kernel takes
/// `AF_IB`, else BIND_IP + QUERY_ROUTE.
pub(crate) fn bind(id: &Arc<CmId>, addr: &[u8]) -> Result<()> {
    let ch = id.channel();
    if state::af_ib_support() {
        kernel::addr::bind(&ch.fd(), id.handle(), addr)?;
        query_addr(id)?;
        query_gid(id)
    } else {
        kernel::addr::bind_ip(&ch.fd(), id.handle(), addr)?;
        query_route(id)
    }
}

/// `rdma_resolve_addr` / `rdma_resolve_addr2` on checked addresses (`src` may be empty).
pub(crate) fn resolve(id: &Arc<CmId>, src: &[u8], dst: &[u8], timeout_ms: c_int) -> Result<()> {
    let ch = id.channel();
    if state::af_ib_support() {
        kernel::addr::resolve_addr(&ch.fd(), id.handle(), src, dst, timeout_ms as u32)?;
    } else {
        kernel::addr::resolve_ip(&ch.fd(), id.handle(), src, dst, timeout_ms as u32)?;
    }
    set_addr(id.c(), false, dst);
    complete(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports() {
        // A zeroed rdma_cm_id is not a valid Rust value (`ps` has no 0 variant), so it stays behind a raw pointer
        // and only its address fields are touched, as the library itself does.
        let mut storage = std::mem::MaybeUninit::<rdma_cm_id>::zeroed();
        let id = storage.as_mut_ptr();
        // SAFETY: NULL is answered with 0; `id` points to zeroed, writable memory of the right size, and only the
        // address unions (valid when zero) are written and read.
        unsafe {
            assert_eq!(rdma_get_src_port(std::ptr::null_mut()), 0);
            assert_eq!(rdma_get_src_port(id), 0);
            let sin = std::ptr::addr_of_mut!((*id).route.addr.src).cast::<sockaddr_in>();
            (*sin).sin_family = libc::AF_INET as libc::sa_family_t;
            (*sin).sin_port = 7471u16.to_be();
            assert_eq!(rdma_get_src_port(id), 7471u16.to_be());
            let sin6 = std::ptr::addr_of_mut!((*id).route.addr.dst).cast::<sockaddr_in6>();
            (*sin6).sin6_family = libc::AF_INET6 as libc::sa_family_t;
            (*sin6).sin6_port = 18515u16.to_be();
            assert_eq!(rdma_get_dst_port(id), 18515u16.to_be());
            let ib = std::ptr::addr_of_mut!((*id).route.addr.dst).cast::<sockaddr_ib>();
            (*ib).sib_family = AF_IB as u16;
            (*ib).sib_sid = 0x0000_0000_0106_1234u64.to_be();
            assert_eq!(rdma_get_dst_port(id), 0x1234u16.to_be());
            // set_addr copies only the given bytes.
            set_addr(id, true, &[0xaa; 2]);
            let s = std::ptr::addr_of!((*id).route.addr.src).cast::<u8>();
            assert_eq!(std::slice::from_raw_parts(s, 4), &[0xaa, 0xaa, 0x1d, 0x2f]);
        }
    }
}
