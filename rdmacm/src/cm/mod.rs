//! The `rdma_*` entry points of `<rdma/rdma_cma.h>` and `<rdma/rdma_verbs.h>`, one file per family, each with the
//! library logic of its family (rdma-core's `cma.c`, split the same way).
//!
//! | file | functions |
//! |---|---|
//! | [`event`] | event channels, `rdma_get_cm_event`, `rdma_ack_cm_event`, `rdma_event_str`, `rdma_write_cm_event` |
//! | [`id`] | `rdma_create_id`, `rdma_destroy_id`, `rdma_create_ep`, `rdma_destroy_ep`, `rdma_migrate_id`, `rdma_set_option` |
//! | [`addr`] | `rdma_bind_addr`, `rdma_resolve_addr`, `rdma_resolve_route`, `rdma_get_src_port`, `rdma_get_dst_port` |
//! | [`conn`] | `rdma_connect`, `rdma_establish`, `rdma_listen`, `rdma_get_request`, `rdma_accept`, `rdma_reject`, `rdma_notify`, `rdma_disconnect` |
//! | [`qp`] | `rdma_create_qp(_ex)`, `rdma_destroy_qp`, `rdma_init_qp_attr`, `rdma_create_srq(_ex)`, `rdma_destroy_srq` |
//! | [`mcast`] | `rdma_join_multicast(_ex)`, `rdma_leave_multicast` |
//! | [`ece`] | `rdma_set_local_ece`, `rdma_get_remote_ece`, `rdma_reject_ece` |
//! | [`addrinfo`] | `rdma_getaddrinfo`, `rdma_freeaddrinfo`, `rdma_resolve_addrinfo`, `rdma_query_addrinfo` |
//! | [`device`] | `rdma_get_devices`, `rdma_free_devices` |
//!
//! Library layers without entry points, below the families that use them: [`handout`] (reading and taking back
//! events handed out), [`query`] (the kernel queries filling `id->route`), [`id_core`] (destroying and migrating an
//! id), and the QP state changes the CM makes in [`qp`]. The imports between these files form a DAG, from the entry
//! families down to `handout` (`tools/import-cycles.py` checks it):
//! `ece -> conn -> {id, event, qp, query, handout}`, `id -> {addr, event, qp, id_core, handout}`,
//! `addr, mcast -> event -> {qp, query, id_core, explain, handout}`, `explain -> handout`, `id_core -> handout`,
//! `addrinfo -> {addr, event, id, id_core, query, handout}`. [`explain`] writes the warning that says why a failure
//! event happened.
//!
//! Convention of the family (rdma-core's): functions returning `int` give `0` (or a value) on success and `-1` with
//! `errno` on failure ([`rdma_common::ffi::CResult::or_minus_one_errno`]); pointer-returning functions give NULL
//! with `errno`; `rdma_getaddrinfo` returns `getaddrinfo`'s `EAI_*` codes for name-resolution failures. Every id,
//! channel and event pointer is looked up in the registry first (`crate::state`): NULL, destroyed or foreign ones
//! are `EINVAL`, where rdma-core would crash.

#![allow(unsafe_code)]

pub mod addr;
pub mod addrinfo;
pub mod conn;
pub mod device;
pub mod ece;
pub mod event;
pub(crate) mod explain;
pub mod handout;
pub mod id;
pub mod id_core;
pub mod mcast;
pub mod qp;
pub mod query;

use libc::{sockaddr, sockaddr_in, sockaddr_in6};
use rdma_common::abi::ib::{sockaddr_ib, AF_IB};
use std::ffi::c_int;
use std::mem::size_of;

/// `ucma_init` ([`crate::state::init`]) with the AF_IB probe made through our own entry points ([`id::probe_af_ib`]).
pub(crate) fn init() -> rdma_common::errno::Result<()> {
    crate::state::init(id::probe_af_ib)
}

/// `ucma_addrlen`: the size of a socket address by its family: `sockaddr_in`, `sockaddr_in6`, or `sockaddr_ib` when
/// the kernel takes `AF_IB`; 0 for NULL and any other family.
///
/// # Safety
/// `addr` is NULL or points to at least a readable `sa_family_t`.
pub(crate) unsafe fn addrlen(addr: *const sockaddr) -> usize {
    if addr.is_null() {
        return 0;
    }
    // SAFETY: the caller's contract.
    match c_int::from(unsafe { (*addr).sa_family }) {
        libc::AF_INET => size_of::<sockaddr_in>(),
        libc::AF_INET6 => size_of::<sockaddr_in6>(),
        AF_IB if crate::state::af_ib_support() => size_of::<sockaddr_ib>(),
        _ => 0,
    }
}

/// The `len` bytes of the socket address at `addr` (empty for NULL).
///
/// # Safety
/// `addr` is NULL or readable for `len` bytes.
pub(crate) unsafe fn addr_bytes<'a>(addr: *const sockaddr, len: usize) -> &'a [u8] {
    if addr.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(addr.cast::<u8>(), len) }
}

/// The `len` bytes at `p` (empty for NULL or 0).
///
/// # Safety
/// `p` is NULL or readable for `len` bytes.
pub(crate) unsafe fn bytes<'a>(p: *const std::ffi::c_void, len: usize) -> &'a [u8] {
    if p.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) }
}
