//! Address and route resolution: `rdma_getaddrinfo`, `rdma_freeaddrinfo` (rdma-core's `addrinfo.c`), and rdma-core
//! 65's asynchronous form, `rdma_resolve_addrinfo` / `rdma_query_addrinfo` (its `cma.c`).
//!
//! Names and services are resolved with the C library's `getaddrinfo(3)`; the first result becomes the single
//! `rdma_addrinfo` (as rdma-core does), with the QP type and port space derived from the socket type and protocol
//! unless the hints give them. rdma-core then asks the ibacm service for InfiniBand routes (`ai_route`); we have no
//! ibacm client, which is what rdma-core does when ibacm is not running (the common case): `ai_route` stays empty
//! and `rdma_resolve_route` asks the kernel.
//!
//! With `RAI_SA` (rdma-core 65) a *service* is resolved instead, by the kernel asking the InfiniBand subnet
//! administrator for its service records (rdma_ucm's RESOLVE_IB_SERVICE, Linux 7.x): each record becomes an `AF_IB`
//! destination. `rdma_resolve_addrinfo` does either resolution for an id and reports it as an event
//! (`RDMA_CM_EVENT_ADDRINFO_RESOLVED` / `_ERROR`); a DNS resolution runs in the call, then writes the library's
//! `RDMA_CM_EVENT_INTERNAL` event into the id's channel (WRITE_CM_EVENT), which `rdma_get_cm_event` turns into
//! `ADDRINFO_RESOLVED`. Both paths therefore need a kernel with the new commands: on Linux 6.1 and 6.12 the call fails
//! with the kernel's `EINVAL`, as rdma-core 65's does.
#![allow(unsafe_code)] // #[no_mangle] C entry points

#[cfg(test)]
use super::addr::port_of;
use super::event::{complete, get_event, sync_entry, write_event};
use super::handout::{ack, kind_of};
use crate::kernel::addr::IbService;
use crate::state::{self, Channel, CmId};
use crate::{kernel, verbs};
use libc::{addrinfo, sockaddr, sockaddr_in6, socklen_t};
use rdma_common::abi::enums::{IBV_PORT_ACTIVE, RDMA_PS_IB, RDMA_PS_IPOIB, RDMA_PS_TCP, RDMA_PS_UDP};
use rdma_common::abi::ib::{sockaddr_ib, AF_IB};
use rdma_common::abi::rdma_cma::rdma_cm_event_type::*;
use rdma_common::abi::rdma_cma::*;
use rdma_common::abi::verbs::ibv_qp_type::*;
use rdma_common::abi::verbs::{ibv_gid, ibv_query_gid, IBV_LINK_LAYER_INFINIBAND};
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi::{self, CResult};
use rdma_common::registry::Registry;
use std::cell::Cell;
use std::ffi::{c_char, c_int, CStr};
use std::mem::size_of;
use std::ptr::null_mut;
use std::sync::Arc;

/// The lists `rdma_getaddrinfo` handed out and not yet freed.
static LIVE: Registry<()> = Registry::new();

/// `rdma_getaddrinfo(3)`: resolves `node` (host name or address; NULL for a passive wildcard) and `service` (port
/// number or name) under `hints` (`ai_flags` `RAI_PASSIVE`, `RAI_NUMERICHOST`, `RAI_NOROUTE`, `RAI_FAMILY`; family,
/// QP type, port space, addresses; optional) into an `rdma_addrinfo` with source and/or destination addresses, QP
/// type and port space, and stores it in `*res`. `AF_IB` addresses are made from numeric IPv6 ones when the hints
/// ask for `RAI_FAMILY | RAI_NUMERICHOST` with family `AF_IB`. With `RAI_SA` in the hints (rdma-core 65) `service`
/// (an InfiniBand service name or id) is looked up through the subnet administrator from the first active
/// InfiniBand port that knows it, and every service record found becomes an `AF_IB` result (see
/// `rdma_resolve_addrinfo`). Returns 0; a nonzero `EAI_*` code of `getaddrinfo(3)` when name resolution fails; or
/// -1 with `errno` (`EINVAL` when `node`, `service` and `hints` are all NULL or `res` is NULL, for hints with flags,
/// a port space or a QP type the man page does not list (rdma-core ignores or passes them on), or with `RAI_SA` and
/// no `service`; `EOPNOTSUPP` for `RAI_SA` with a `node` or with `RAI_DNS`; `ENOENT` when no InfiniBand port found
/// the service (always on RoCE and iWARP); `ENOMEM`; `ENODEV` without RDMA devices).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_getaddrinfo(
    node: *const c_char,
    service: *const c_char,
    hints: *const rdma_addrinfo,
    res: *mut *mut rdma_addrinfo,
) -> c_int {
    let r = ffi::boundary("rdma_getaddrinfo", || -> Result<c_int> {
        if node.is_null() && service.is_null() && hints.is_null() {
            return Err(Errno::EINVAL);
        }
        let out = ffi::nonnull(res)?;
        // SAFETY: a non-NULL `hints` is a readable rdma_addrinfo whose addresses are readable for their lengths.
        let hints = if hints.is_null() { None } else { Some(unsafe { &*hints }) };
        if let Some(h) = hints {
            check_hints(h)?;
        }
        super::init()?;
        let list = if hints.is_some_and(|h| h.ai_flags & RAI_SA != 0) {
            if !node.is_null() || hints.is_some_and(|h| h.ai_flags & RAI_DNS != 0) {
                return Err(Errno::EOPNOTSUPP);
            }
            // SAFETY: `service` is NULL or a C string.
            getaddrinfo_sa(unsafe { cstr(service) }.ok_or(Errno::EINVAL)?)?
        } else {
            // SAFETY: `node`/`service` are NULL or C strings; `hints` as above.
            match unsafe { resolve(node, service, hints) }? {
                Ok(list) => list,
                Err(eai) => return Ok(eai),
            }
        };
        LIVE.insert(list, ());
        // SAFETY: the caller's writable out-parameter.
        unsafe { out.as_ptr().write(list) };
        Ok(0)
    });
    match r {
        Ok(v) => v,
        Err(e) => {
            e.set();
            -1
        }
    }
}

/// `rdma_freeaddrinfo(3)`: frees a list returned by `rdma_getaddrinfo`, with its addresses, names and route and
/// connect data. NULL and foreign pointers are ignored. No return value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_freeaddrinfo(res: *mut rdma_addrinfo) {
    let _ = ffi::boundary("rdma_freeaddrinfo", || -> Result<()> {
        if !LIVE.remove(res) {
            return Err(Errno::EINVAL);
        }
        Rai(res).free();
        Ok(())
    });
}

/// `rdma_resolve_addrinfo(3)` (RDMACM_1.4, rdma-core 65): starts resolving `node` / `service` under `hints` for
/// `id`, reporting the end as an event on the id's channel: `RDMA_CM_EVENT_ADDRINFO_RESOLVED` (then
/// `rdma_query_addrinfo` returns the result) or `RDMA_CM_EVENT_ADDRINFO_ERROR` (`status` says why). On a
/// synchronous id the call waits for that event (`id->event`). `hints->ai_flags` chooses how:
/// * `RAI_SA`: the kernel asks the InfiniBand subnet administrator for the service records of `service` (a service
///   name, or a number `strtoull` reads whole: a service id; `node` must be NULL) from the port `id` is bound to;
///   each record becomes an `AF_IB` destination (`RAI_SA`, `RDMA_PS_IB`), and the first one is also the id's
///   destination, so `rdma_resolve_route` may follow directly;
/// * `RAI_DNS`, or no hints: `rdma_getaddrinfo(node, service, hints)` in the call, its result delivered by the event.
///
/// Returns 0 when the resolution started (a synchronous id: finished), or -1 with `errno`: `EINVAL` for a NULL,
/// destroyed or foreign `id`, hints `rdma_getaddrinfo` refuses, `RAI_SA` without `service`, an id not bound to a device (the kernel's), and kernels
/// without the rdma_ucm commands it needs (Linux 6.1, 6.12: their `EINVAL`); `EBUSY` while an earlier resolution's
/// result has not been taken; `EOPNOTSUPP` for `RAI_SA` with `RAI_DNS` or with a `node`, and for `RAI_SA` on a port
/// without a subnet administrator (RoCE, iWARP; the kernel's); `rdma_getaddrinfo`'s `EAI_*` code (negative) as
/// `errno` when DNS resolution fails, as in rdma-core. Where rdma-core 65 sets `errno` to -1 (a failed command, a
/// `rdma_getaddrinfo` failure reported with `errno`, a failed synchronous wait), the cause's `errno` is kept.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn rdma_resolve_addrinfo(
    id: *mut rdma_cm_id,
    node: *const c_char,
    service: *const c_char,
    hints: *const rdma_addrinfo,
) -> c_int {
    // Whether this call marked the id as resolving: a failure, even in the synchronous wait, clears the mark.
    let marked = Cell::new(false);
    let ret = sync_entry("rdma_resolve_addrinfo", || -> Result<c_int> {
        let id = state::lookup_id(id)?;
        {
            let mut st = id.st.lock();
            if st.resolving_ai {
                return Err(Errno::EBUSY);
            }
            st.resolving_ai = true;
        }
        marked.set(true);
        // SAFETY: the C contract: strings or NULL, `hints` NULL or a readable rdma_addrinfo.
        unsafe { resolve_ai(&id, node, service, hints) }?;
        Ok(0)
    });
    if ret != 0 && marked.get() {
        let e = Errno::last();
        let _ = ffi::boundary("rdma_resolve_addrinfo", || {
            state::lookup_id(id)?.st.lock().resolving_ai = false;
            Ok(())
        });
        e.set();
    }
    ret
}

/// `rdma_query_addrinfo(3)` (RDMACM_1.4, rdma-core 65): stores in `*info` the result of the `rdma_resolve_addrinfo`
/// that completed on `id` (after its `RDMA_CM_EVENT_ADDRINFO_RESOLVED`) and ends that resolution (another may
/// start). The list is the caller's, freed with `rdma_freeaddrinfo`. Returns 0, or -1 with `errno`: `EINVAL` for a
/// NULL `info`, a NULL, destroyed or foreign `id`; `ENOENT` when no resolution has completed (none started, still
/// running, failed, or already queried).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rdma_query_addrinfo(id: *mut rdma_cm_id, info: *mut *mut rdma_addrinfo) -> c_int {
    ffi::boundary("rdma_query_addrinfo", || -> Result<c_int> {
        let out = ffi::nonnull(info)?;
        let id = state::lookup_id(id)?;
        let list = {
            let mut st = id.st.lock();
            if !st.resolving_ai || st.resolved_ai.is_null() {
                return Err(Errno::ENOENT);
            }
            st.resolving_ai = false;
            std::mem::replace(&mut st.resolved_ai, null_mut())
        };
        LIVE.insert(list, ());
        // SAFETY: the caller's writable out-parameter.
        unsafe { out.as_ptr().write(list) };
        Ok(0)
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rdma_cma;
    rdma_getaddrinfo, rdma_freeaddrinfo, rdma_resolve_addrinfo, rdma_query_addrinfo);

// ---------------------------------------------------------------------------------------------------------------
// The library side.

/// An `rdma_addrinfo` list allocated with the C allocator (so that its parts are plain `malloc` blocks).
struct Rai(*mut rdma_addrinfo);

impl Rai {
    fn alloc() -> Result<Rai> {
        // SAFETY: calloc of one zeroed struct (all integers and pointers: zero is valid), checked.
        let p = unsafe { libc::calloc(1, size_of::<rdma_addrinfo>()) }.cast::<rdma_addrinfo>();
        if p.is_null() {
            return Err(Errno::ENOMEM);
        }
        Ok(Rai(p))
    }

    /// `rdma_freeaddrinfo` on the whole list.
    fn free(self) {
        // SAFETY: every node and every field was allocated with the C allocator here (or is NULL); consumed.
        unsafe { state::free_addrinfo(self.0) }
    }

    fn get(&mut self) -> &mut rdma_addrinfo {
        // SAFETY: ours, exclusively, until handed out.
        unsafe { &mut *self.0 }
    }
}

/// `ucma_copy_addr`: a malloc'd copy of `len` bytes of `src`.
fn copy_addr(src: *const sockaddr, len: socklen_t) -> Result<*mut sockaddr> {
    // SAFETY: malloc, checked; `src` is readable for `len` bytes (callers' contract).
    unsafe {
        let p = libc::malloc(len as usize).cast::<sockaddr>();
        if p.is_null() {
            return Err(Errno::ENOMEM);
        }
        std::ptr::copy_nonoverlapping(src.cast::<u8>(), p.cast::<u8>(), len as usize);
        Ok(p)
    }
}

/// `ucma_set_sid`: the service id (and mask) of port space `ps` and the port of `addr`.
pub(crate) fn set_sid(ps: u32, port_be: u16, sib: &mut sockaddr_ib) {
    let port = u16::from_be(port_be);
    sib.sib_sid = (((ps as u64) << 16) + port as u64).to_be();
    if ps != 0 {
        sib.sib_sid_mask = RDMA_IB_IP_PS_MASK.to_be();
    }
    if port != 0 {
        sib.sib_sid_mask |= RDMA_IB_IP_PORT_MASK.to_be();
    }
}

/// `ucma_convert_in6`: an `AF_IB` address with the IPv6 address as GID, P_Key 0xffff and the port space's service
/// id.
fn convert_in6(ps: u32, src: &sockaddr_in6) -> sockaddr_ib {
    let mut sib = sockaddr_ib {
        sib_family: AF_IB as u16,
        sib_pkey: 0xffffu16.to_be(),
        sib_flowinfo: src.sin6_flowinfo,
        sib_addr: rdma_common::abi::ib::ib_addr {
            ib_u: rdma_common::abi::ib::ib_addr_u { uib_addr8: src.sin6_addr.s6_addr },
        },
        sib_sid: 0,
        sib_sid_mask: 0,
        sib_scope_id: src.sin6_scope_id as u64,
    };
    set_sid(ps, src.sin6_port, &mut sib);
    sib
}

/// The flags `rdma_getaddrinfo(3)` knows (rdma-core 65's).
const RAI_KNOWN: c_int = RAI_PASSIVE | RAI_NUMERICHOST | RAI_NOROUTE | RAI_FAMILY | RAI_SA | RAI_DNS;

/// Hints held to what `rdma_getaddrinfo(3)` documents: `EINVAL` for flags it does not know, a port space other than
/// 0, `RDMA_PS_TCP`, `RDMA_PS_UDP`, `RDMA_PS_IB`, `RDMA_PS_IPOIB`, or a QP type outside `enum ibv_qp_type` (0: any).
/// rdma-core ignores unknown flags and passes the others on (a result of port space 99 fails later, in
/// `rdma_create_ep` or `rdma_create_id`).
fn check_hints(h: &rdma_addrinfo) -> Result<()> {
    let ps = h.ai_port_space as u32;
    let qp = h.ai_qp_type as u32;
    let qp_known =
        [IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_RAW_PACKET, IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV, IBV_QPT_DRIVER]
            .iter()
            .any(|t| *t as u32 == qp);
    if h.ai_flags & !RAI_KNOWN != 0
        || ![0, RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB, RDMA_PS_IPOIB].contains(&ps)
        || (h.ai_qp_type != 0 && !qp_known)
    {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// `ucma_convert_to_ai`: `getaddrinfo` hints from `rdma_addrinfo` hints.
fn to_ai(rai: &rdma_addrinfo) -> addrinfo {
    // SAFETY: addrinfo is integers and pointers: zero is valid.
    let mut ai: addrinfo = unsafe { std::mem::zeroed() };
    if rai.ai_flags & RAI_PASSIVE != 0 {
        ai.ai_flags = libc::AI_PASSIVE;
    }
    if rai.ai_flags & RAI_NUMERICHOST != 0 {
        ai.ai_flags |= libc::AI_NUMERICHOST;
    }
    if rai.ai_family != AF_IB {
        ai.ai_family = rai.ai_family;
    }
    let qp = rai.ai_qp_type as u32;
    if [IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV].iter().any(|t| *t as u32 == qp) {
        ai.ai_socktype = libc::SOCK_STREAM;
    } else if qp == IBV_QPT_UD as u32 {
        ai.ai_socktype = libc::SOCK_DGRAM;
    }
    let ps = rai.ai_port_space as u32;
    if ps == RDMA_PS_TCP {
        ai.ai_protocol = libc::IPPROTO_TCP;
    } else if ps == RDMA_PS_IPOIB || ps == RDMA_PS_UDP {
        ai.ai_protocol = libc::IPPROTO_UDP;
    } else if ps == RDMA_PS_IB {
        if ai.ai_socktype == libc::SOCK_STREAM {
            ai.ai_protocol = libc::IPPROTO_TCP;
        } else if ai.ai_socktype == libc::SOCK_DGRAM {
            ai.ai_protocol = libc::IPPROTO_UDP;
        }
    }
    if rai.ai_flags & RAI_PASSIVE != 0 {
        ai.ai_addrlen = rai.ai_src_len;
        ai.ai_addr = rai.ai_src_addr;
    } else {
        ai.ai_addrlen = rai.ai_dst_len;
        ai.ai_addr = rai.ai_dst_addr;
    }
    ai.ai_canonname = rai.ai_dst_canonname;
    ai
}

/// `ucma_convert_to_rai`: the first `getaddrinfo` result as the `rdma_addrinfo`.
///
/// # Safety
/// `ai` is a result of `getaddrinfo`.
unsafe fn to_rai(rai: &mut rdma_addrinfo, hints: &rdma_addrinfo, ai: &addrinfo) -> Result<()> {
    rai.ai_qp_type = if hints.ai_qp_type != 0 {
        hints.ai_qp_type
    } else {
        match ai.ai_socktype {
            libc::SOCK_STREAM => IBV_QPT_RC as c_int,
            libc::SOCK_DGRAM => IBV_QPT_UD as c_int,
            _ => 0,
        }
    };
    rai.ai_port_space = if hints.ai_port_space != 0 {
        hints.ai_port_space
    } else {
        match ai.ai_protocol {
            libc::IPPROTO_TCP => rdma_port_space::RDMA_PS_TCP as c_int,
            libc::IPPROTO_UDP => rdma_port_space::RDMA_PS_UDP as c_int,
            _ => 0,
        }
    };
    let passive = ai.ai_flags & libc::AI_PASSIVE != 0;
    if !ai.ai_canonname.is_null() {
        // SAFETY: a C string from getaddrinfo.
        let c = unsafe { libc::strdup(ai.ai_canonname) };
        if passive {
            rai.ai_src_canonname = c;
        } else {
            rai.ai_dst_canonname = c;
        }
    }
    if passive {
        rai.ai_flags = RAI_PASSIVE;
    }
    let want_ib = hints.ai_flags & RAI_FAMILY != 0 && hints.ai_family == AF_IB && hints.ai_flags & RAI_NUMERICHOST != 0;
    let (addr, len) = if want_ib {
        rai.ai_family = AF_IB;
        // rdma-core reads the result as a sockaddr_in6 whatever its family; we widen a shorter one with zeros.
        let mut in6 = [0u8; size_of::<sockaddr_in6>()];
        let n = (ai.ai_addrlen as usize).min(in6.len());
        // SAFETY: `ai_addr` is readable for `ai_addrlen` bytes.
        unsafe { std::ptr::copy_nonoverlapping(ai.ai_addr.cast::<u8>(), in6.as_mut_ptr(), n) };
        // SAFETY: any 28 bytes are a sockaddr_in6 (integers).
        let in6: sockaddr_in6 = unsafe { std::ptr::read_unaligned(in6.as_ptr().cast()) };
        let sib = convert_in6(rai.ai_port_space as u32, &in6);
        (
            copy_addr((&sib as *const sockaddr_ib).cast(), size_of::<sockaddr_ib>() as socklen_t)?,
            size_of::<sockaddr_ib>(),
        )
    } else {
        rai.ai_family = ai.ai_family;
        (copy_addr(ai.ai_addr, ai.ai_addrlen)?, ai.ai_addrlen as usize)
    };
    if passive {
        rai.ai_src_addr = addr;
        rai.ai_src_len = len as socklen_t;
    } else {
        rai.ai_dst_addr = addr;
        rai.ai_dst_len = len as socklen_t;
    }
    Ok(())
}

/// A C string argument (None for NULL).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string that outlives the use.
unsafe fn cstr<'a>(p: *const c_char) -> Option<&'a CStr> {
    // SAFETY: the caller's contract.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) })
}

/// `rdma_getaddrinfo` by DNS (and numeric addresses): the list, or `getaddrinfo`'s `EAI_*` code.
///
/// # Safety
/// As `rdma_getaddrinfo`.
unsafe fn resolve(
    node: *const c_char,
    service: *const c_char,
    hints: Option<&rdma_addrinfo>,
) -> Result<std::result::Result<*mut rdma_addrinfo, c_int>> {
    let mut rai = Rai::alloc()?;
    // SAFETY: the caller's contract.
    match unsafe { fill(&mut rai, node, service, hints) } {
        Ok(0) => Ok(Ok(rai.0)),
        Ok(eai) => {
            rai.free();
            Ok(Err(eai))
        }
        Err(e) => {
            rai.free();
            Err(e)
        }
    }
}

/// `__rdma_resolve_addrinfo`: starts the resolution `rdma_resolve_addrinfo` asks for (the id is marked resolving)
/// and, on a synchronous id, leaves the wait for its event to `sync_entry` (`complete`).
///
/// # Safety
/// As `rdma_resolve_addrinfo`.
unsafe fn resolve_ai(
    id: &Arc<CmId>,
    node: *const c_char,
    service: *const c_char,
    hints: *const rdma_addrinfo,
) -> Result<()> {
    // SAFETY: the caller's contract.
    let hints = unsafe { hints.as_ref() };
    if let Some(h) = hints {
        check_hints(h)?;
    }
    let flags = hints.map_or(0, |h| h.ai_flags);
    if flags & RAI_SA != 0 {
        if flags & RAI_DNS != 0 || !node.is_null() {
            return Err(Errno::EOPNOTSUPP);
        }
        // SAFETY: the caller's contract.
        resolve_ai_sa(id, unsafe { cstr(service) }.ok_or(Errno::EINVAL)?)?;
        return complete(id);
    }
    // DNS. rdma-core calls its public rdma_getaddrinfo, whose checks come with it.
    if node.is_null() && service.is_null() && hints.is_none() {
        return Err(Errno::EINVAL);
    }
    super::init()?;
    // SAFETY: the caller's contract.
    let list = match unsafe { resolve(node, service, hints) }? {
        Ok(list) => list,
        // rdma-core reports the code itself as errno.
        Err(eai) => return Err(Errno(eai)),
    };
    id.st.lock().resolved_ai = list;
    if let Err(e) = write_event(id, RDMA_CM_EVENT_INTERNAL, 0, RDMA_CM_EVENT_ADDRINFO_RESOLVED as u64) {
        let list = std::mem::replace(&mut id.st.lock().resolved_ai, null_mut());
        // SAFETY: the list just made, taken back from the id.
        unsafe { state::free_addrinfo(list) };
        return Err(e);
    }
    complete(id)
}

/// `resolve_ai_set_cmd_service`: a service string as RESOLVE_IB_SERVICE takes it: a number when `strtoull` (any
/// base prefix) reads the whole string without overflow, otherwise a name.
fn service_of(service: &CStr) -> IbService {
    let mut end: *mut c_char = null_mut();
    Errno(0).set();
    // SAFETY: a C string, and a writable end pointer.
    let v = unsafe { libc::strtoull(service.as_ptr(), &mut end, 0) };
    let err = Errno::last();
    // SAFETY: `end` points into the string (at its NUL at most).
    if err.0 != 0 || end.cast_const() == service.as_ptr() || unsafe { *end } != 0 {
        IbService::Name(service.to_bytes().to_vec())
    } else {
        IbService::Id(v)
    }
}

/// `resolve_ai_sa`: RESOLVE_IB_SERVICE for `service` on `id` (the wait, if any, is the caller's). Errors: the
/// kernel's (`EINVAL` for an unbound id and from kernels without the command; `EOPNOTSUPP` for a port without an SA).
fn resolve_ai_sa(id: &CmId, service: &CStr) -> Result<()> {
    kernel::addr::resolve_ib_service(&id.channel().fd(), id.handle(), &service_of(service))
}

/// `ucma_getaddrinfo_sa`: `rdma_getaddrinfo` with `RAI_SA`: the service resolved from the GID 0 of each active
/// InfiniBand port in turn, until one resolves it ([`resolve_sa_on_gid`]). Errors: `ENOENT` when none does, the
/// errors of opening the devices and the channel.
fn getaddrinfo_sa(service: &CStr) -> Result<*mut rdma_addrinfo> {
    let ch = Channel::open(true)?;
    let devs = state::get_devices();
    let mut found = Err(Errno::ENOENT);
    for &ctx in devs.as_deref().unwrap_or_default() {
        // SAFETY: the devices' open contexts, referenced until free_devices below.
        let Ok(caps) = (unsafe { verbs::query_device(ctx) }) else { continue };
        for port in 1..=caps.phys_port_cnt {
            // SAFETY: as above.
            let Ok(p) = (unsafe { verbs::query_port_info(ctx, port) }) else { continue };
            if p.link_layer != IBV_LINK_LAYER_INFINIBAND || p.state < IBV_PORT_ACTIVE {
                continue;
            }
            let mut gid = ibv_gid { raw: [0; 16] };
            // SAFETY: an open context, a port it has, a writable gid.
            if unsafe { ibv_query_gid(ctx, port, 0, &mut gid) } != 0 {
                continue;
            }
            if let Ok(list) = resolve_sa_on_gid(&ch, &gid, service) {
                found = Ok(list);
                break;
            }
        }
        if found.is_ok() {
            break;
        }
    }
    if let Ok(d) = &devs {
        state::free_devices(d);
    }
    ch.unregister();
    found
}

/// `resolve_sa_on_gid`: a temporary `RDMA_PS_IB` id on `ch`, bound to `gid`, resolves `service`; its result, each
/// entry given the source `AF_IB` address of `gid` (P_Key of the record, service id of the `RDMA_PS_IB` space).
fn resolve_sa_on_gid(ch: &Arc<Channel>, gid: &ibv_gid, service: &CStr) -> Result<*mut rdma_addrinfo> {
    let id = super::id::create(Some(ch.clone()), null_mut(), rdma_port_space::RDMA_PS_IB, IBV_QPT_RC)?;
    let r = (|| {
        // SAFETY: a gid is 16 plain bytes.
        let raw = unsafe { gid.raw };
        // SAFETY: integers and byte unions: zero is a valid sockaddr_ib.
        let mut sib: sockaddr_ib = unsafe { std::mem::zeroed() };
        sib.sib_family = AF_IB as u16;
        sib.sib_addr.ib_u.uib_addr8 = raw;
        super::addr::bind(&id, state::as_bytes(&sib))?;
        resolve_ai_sa(&id, service)?;
        let ev = get_event(ch)?;
        let kind = kind_of(ev);
        let _ = ack(ev);
        if kind != RDMA_CM_EVENT_ADDRINFO_RESOLVED as u32 {
            return Err(Errno::ENOENT);
        }
        let list = std::mem::replace(&mut id.st.lock().resolved_ai, null_mut());
        let mut ai = list;
        while !ai.is_null() {
            // SAFETY: a list of ours whose destinations are sockaddr_ib; calloc checked.
            unsafe {
                let src = libc::calloc(1, size_of::<sockaddr_ib>()).cast::<sockaddr_ib>();
                if src.is_null() {
                    state::free_addrinfo(list);
                    return Err(Errno::ENOMEM);
                }
                (*src).sib_family = AF_IB as u16;
                (*src).sib_addr.ib_u.uib_addr8 = raw;
                set_sid(RDMA_PS_IB, 0, &mut *src);
                (*src).sib_pkey = (*(*ai).ai_dst_addr.cast::<sockaddr_ib>()).sib_pkey;
                (*ai).ai_src_addr = src.cast();
                (*ai).ai_src_len = size_of::<sockaddr_ib>() as socklen_t;
                ai = (*ai).ai_next;
            }
        }
        Ok(list)
    })();
    let _ = super::id_core::destroy(&id);
    r
}

/// The body of `rdma_getaddrinfo`: `Ok(0)`, `Ok(EAI_*)` or an errno.
///
/// # Safety
/// As `rdma_getaddrinfo`.
unsafe fn fill(
    rai: &mut Rai,
    node: *const c_char,
    service: *const c_char,
    hints: Option<&rdma_addrinfo>,
) -> Result<c_int> {
    // SAFETY: zero is a valid rdma_addrinfo (integers and pointers).
    let nohints: rdma_addrinfo = unsafe { std::mem::zeroed() };
    let h = hints.unwrap_or(&nohints);
    let r = rai.get();
    if !node.is_null() || !service.is_null() {
        let mut ai: *mut addrinfo = null_mut();
        let ai_hints = hints.map(to_ai);
        let hp = ai_hints.as_ref().map_or(std::ptr::null(), |a| a as *const addrinfo);
        // SAFETY: C strings or NULL, hints or NULL, and an out-pointer.
        let ret = unsafe { libc::getaddrinfo(node, service, hp, &mut ai) };
        if ret != 0 {
            return Ok(ret);
        }
        // SAFETY: a successful getaddrinfo returns at least one result, freed right after.
        let conv = unsafe { to_rai(r, h, &*ai) };
        // SAFETY: the list getaddrinfo returned.
        unsafe { libc::freeaddrinfo(ai) };
        conv?;
    } else {
        r.ai_flags = h.ai_flags;
        r.ai_family = h.ai_family;
        r.ai_qp_type = h.ai_qp_type;
        r.ai_port_space = h.ai_port_space;
        if h.ai_dst_len != 0 {
            r.ai_dst_addr = copy_addr(h.ai_dst_addr, h.ai_dst_len)?;
            r.ai_dst_len = h.ai_dst_len;
        }
    }
    if r.ai_src_len == 0 && h.ai_src_len != 0 {
        r.ai_src_addr = copy_addr(h.ai_src_addr, h.ai_src_len)?;
        r.ai_src_len = h.ai_src_len;
    }
    Ok(0)
}

/// `fuzz/fuzz_targets/getaddrinfo.rs`: `rdma_getaddrinfo`'s body (without the device check) on inputs decoded from
/// `data`: bytes 0..4 `ai_flags` (little-endian; `RAI_NUMERICHOST` is always added, so no name service is asked),
/// 4 `ai_family`, 5 `ai_qp_type`, 6..8 `ai_port_space`, 8 which of hints/node/service are given (bits 0, 1, 2),
/// 9 and 10 the lengths of the hints' source and destination addresses; then the node string up to a NUL, the
/// service string up to a NUL (used only when it is all digits: a service name would be looked up in
/// `/etc/services`), then the address bytes (source, then destination; shorter when the data ends).
#[cfg(feature = "fuzzing")]
pub(crate) fn fuzz(data: &[u8]) {
    use std::ffi::CString;
    if data.len() < 11 {
        return;
    }
    let (head, rest) = data.split_at(11);
    let mut parts = rest.splitn(3, |&b| b == 0);
    let node = parts.next().unwrap_or_default();
    let service = parts.next().unwrap_or_default();
    let addrs = parts.next().unwrap_or_default();
    let src_len = (head[9] as usize).min(addrs.len());
    let (src, addrs) = addrs.split_at(src_len);
    let dst = &addrs[..(head[10] as usize).min(addrs.len())];
    let (mut src, mut dst) = (src.to_vec(), dst.to_vec());

    // SAFETY: integers and pointers: zero is valid.
    let mut h: rdma_addrinfo = unsafe { std::mem::zeroed() };
    h.ai_flags = i32::from_le_bytes([head[0], head[1], head[2], head[3]]) | RAI_NUMERICHOST;
    h.ai_family = head[4] as c_int;
    h.ai_qp_type = head[5] as c_int;
    h.ai_port_space = u16::from_le_bytes([head[6], head[7]]) as c_int;
    h.ai_src_len = src.len() as socklen_t;
    h.ai_src_addr = if src.is_empty() { null_mut() } else { src.as_mut_ptr().cast() };
    h.ai_dst_len = dst.len() as socklen_t;
    h.ai_dst_addr = if dst.is_empty() { null_mut() } else { dst.as_mut_ptr().cast() };
    let node = CString::new(node).ok().filter(|_| head[8] & 2 != 0);
    let service =
        CString::new(service).ok().filter(|s| head[8] & 4 != 0 && s.as_bytes().iter().all(u8::is_ascii_digit));
    if node.is_none() && service.is_none() && head[8] & 1 == 0 {
        return; // rdma_getaddrinfo's EINVAL
    }
    let Ok(mut rai) = Rai::alloc() else { return };
    // SAFETY: C strings or NULL; the hints' addresses point at buffers of their lengths, alive for the call.
    let _ = unsafe {
        fill(
            &mut rai,
            node.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            service.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            (head[8] & 1 != 0).then_some(&h),
        )
    };
    rai.free();
}

/// The port of an `rdma_addrinfo` address (big-endian), for tests.
#[cfg(test)]
fn port(p: *mut sockaddr) -> u16 {
    // SAFETY: our own address of its family's size.
    unsafe { port_of(p) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    #[test]
    fn hints_outside_the_man_page() {
        // SAFETY: integers and pointers: zero is valid.
        let mut h: rdma_addrinfo = unsafe { std::mem::zeroed() };
        assert!(check_hints(&h).is_ok());
        h.ai_flags = RAI_PASSIVE | RAI_NUMERICHOST | RAI_FAMILY;
        h.ai_port_space = RDMA_PS_UDP as c_int;
        h.ai_qp_type = IBV_QPT_UD as c_int;
        assert!(check_hints(&h).is_ok());
        for (flags, ps, qp) in [(0x40, 0, 0), (1 << 30, 0, 0), (0, 99, 0), (0, 0x0107, 0), (0, 0, 1), (0, 0, 5)] {
            h.ai_flags = flags;
            h.ai_port_space = ps;
            h.ai_qp_type = qp;
            assert_eq!(check_hints(&h), Err(Errno::EINVAL), "{flags:#x} {ps:#x} {qp}");
        }
        let mut res = null_mut();
        h.ai_flags = 0x80;
        h.ai_port_space = 0;
        h.ai_qp_type = 0;
        let n = CString::new("198.18.0.1").unwrap();
        // SAFETY: valid strings and out-parameter; refused before any resolution.
        assert_eq!(unsafe { rdma_getaddrinfo(n.as_ptr(), std::ptr::null(), &h, &mut res) }, -1);
        assert_eq!(Errno::last(), Errno::EINVAL);
        assert!(res.is_null());
    }

    #[test]
    fn sid() {
        let mut sib: sockaddr_ib = unsafe { std::mem::zeroed() };
        set_sid(RDMA_PS_TCP, 7471u16.to_be(), &mut sib);
        assert_eq!(u64::from_be(sib.sib_sid), 0x0106_1d2f);
        assert_eq!(u64::from_be(sib.sib_sid_mask), u64::MAX);
        let mut sib: sockaddr_ib = unsafe { std::mem::zeroed() };
        set_sid(RDMA_PS_IB, 0, &mut sib);
        assert_eq!(u64::from_be(sib.sib_sid), 0x013f_0000);
        assert_eq!(u64::from_be(sib.sib_sid_mask), RDMA_IB_IP_PS_MASK);
    }

    #[test]
    fn hints_to_getaddrinfo() {
        let mut h: rdma_addrinfo = unsafe { std::mem::zeroed() };
        h.ai_flags = RAI_PASSIVE | RAI_NUMERICHOST;
        h.ai_family = AF_IB;
        h.ai_qp_type = IBV_QPT_UD as c_int;
        h.ai_port_space = rdma_port_space::RDMA_PS_IB as c_int;
        let ai = to_ai(&h);
        assert_eq!(ai.ai_flags, libc::AI_PASSIVE | libc::AI_NUMERICHOST);
        assert_eq!(ai.ai_family, 0);
        assert_eq!((ai.ai_socktype, ai.ai_protocol), (libc::SOCK_DGRAM, libc::IPPROTO_UDP));
        h.ai_family = libc::AF_INET;
        h.ai_qp_type = IBV_QPT_RC as c_int;
        h.ai_port_space = rdma_port_space::RDMA_PS_TCP as c_int;
        let ai = to_ai(&h);
        assert_eq!(
            (ai.ai_family, ai.ai_socktype, ai.ai_protocol),
            (libc::AF_INET, libc::SOCK_STREAM, libc::IPPROTO_TCP)
        );
    }

    #[test]
    fn numeric_resolution() {
        // `fill` does not need RDMA devices: exercise it directly (rdma_getaddrinfo itself first checks them).
        let node = CString::new("198.18.0.1").unwrap();
        let svc = CString::new("7471").unwrap();
        let mut h: rdma_addrinfo = unsafe { std::mem::zeroed() };
        h.ai_flags = RAI_NUMERICHOST;
        h.ai_port_space = rdma_port_space::RDMA_PS_TCP as c_int;
        let mut rai = Rai::alloc().unwrap();
        // SAFETY: C strings and hints.
        assert_eq!(unsafe { fill(&mut rai, node.as_ptr(), svc.as_ptr(), Some(&h)) }, Ok(0));
        let r = rai.get();
        assert_eq!((r.ai_family, r.ai_qp_type, r.ai_port_space), (libc::AF_INET, IBV_QPT_RC as c_int, 0x0106));
        assert_eq!(r.ai_flags, 0);
        assert_eq!(r.ai_dst_len as usize, size_of::<libc::sockaddr_in>());
        assert_eq!(port(r.ai_dst_addr), 7471u16.to_be());
        assert!(r.ai_src_addr.is_null());
        rai.free();

        // Passive, AF_IB from a numeric IPv6 address.
        let node = CString::new("::1").unwrap();
        h.ai_flags = RAI_PASSIVE | RAI_NUMERICHOST | RAI_FAMILY;
        h.ai_family = AF_IB;
        h.ai_port_space = rdma_port_space::RDMA_PS_IB as c_int;
        h.ai_qp_type = IBV_QPT_RC as c_int;
        let mut rai = Rai::alloc().unwrap();
        // SAFETY: as above.
        assert_eq!(unsafe { fill(&mut rai, node.as_ptr(), svc.as_ptr(), Some(&h)) }, Ok(0));
        let r = rai.get();
        assert_eq!((r.ai_family, r.ai_flags), (AF_IB, RAI_PASSIVE));
        assert_eq!(r.ai_src_len as usize, size_of::<sockaddr_ib>());
        // SAFETY: an AF_IB address we built.
        let sib = unsafe { &*r.ai_src_addr.cast::<sockaddr_ib>() };
        assert_eq!(u64::from_be(sib.sib_sid), 0x013f_1d2f);
        assert_eq!(u16::from_be(sib.sib_pkey), 0xffff);
        // SAFETY: plain bytes.
        assert_eq!(unsafe { sib.sib_addr.ib_u.uib_addr8 }[15], 1);
        rai.free();

        // A name that cannot resolve numerically: an EAI code, not -1.
        let node = CString::new("not-a-number").unwrap();
        h.ai_flags = RAI_NUMERICHOST;
        h.ai_family = 0;
        let mut rai = Rai::alloc().unwrap();
        // SAFETY: as above.
        let r = unsafe { fill(&mut rai, node.as_ptr(), svc.as_ptr(), Some(&h)) };
        assert_eq!(r, Ok(libc::EAI_NONAME));
        rai.free();
    }

    #[test]
    fn bad_arguments() {
        // SAFETY: NULL arguments are rejected before anything else.
        unsafe {
            let mut res = null_mut();
            assert_eq!(rdma_getaddrinfo(std::ptr::null(), std::ptr::null(), std::ptr::null(), &mut res), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            rdma_freeaddrinfo(null_mut());
            let mut junk: rdma_addrinfo = std::mem::zeroed();
            rdma_freeaddrinfo(&mut junk);
        }
    }
}
