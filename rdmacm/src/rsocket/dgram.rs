//! Datagram rsockets (`SOCK_DGRAM` over UD), with rdma-core 44's design and wire format ([`super::wire`]'s
//! datagram section), so that on InfiniBand ours and rdma-core's exchange datagrams.
//!
//! * An rsocket is a kernel UDP socket (its descriptor is the rsocket's number, as in rdma-core) plus one UD QP
//!   per local source address it sends from or is reached at: each QP has its own `RDMA_PS_UDP` `rdma_cm_id` bound
//!   to that address and port, a CQ and completion channel, and `rq_size` receive slots of 2048 bytes after a
//!   shared 40-byte GRH slot. The send slots (2048 bytes each) are shared by the QPs.
//! * A datagram goes out as a UD send of a `ds_header` (our source address) plus the data, to the destination's
//!   QP through an address handle. Until that handle and QP number are known, it goes through the UDP socket to
//!   the peer's UDP socket with a `ds_udp_header` naming our QP; the receiver answers with its own QP number and
//!   both sides resolve an address handle back to the other (`rdma_resolve_addr` / `rdma_resolve_route` on a
//!   temporary id, as rdma-core's `udp_svc_create_ah`).
//! * The address service runs inside the calls (every `rsendto`, `rrecvfrom`, `rpoll`... drains the UDP socket),
//!   not in a service thread as rdma-core's `udp_svc`: a peer that never calls into its rsocket does not answer,
//!   and its senders keep using UDP (still delivered).
//!
//! Where we differ from rdma-core 44:
//! * on RoCE (Ethernet link layer) every address handle has a GRH: destination GID and hop limit from the route
//!   the kernel resolved, source GID index of the route's source GID (the RoCE v2 entry when there are several).
//!   rdma-core builds its "self" handle with only `dlid = port LID`, which RoCE refuses (its `rconnect` / first
//!   `rsendto` fails with `ENOENT`, its address service drops every datagram), so its datagram rsockets do not work
//!   on RoCE at all; on InfiniBand we keep its rules (a GRH only when the path's hop limit is above 1);
//! * a datagram that arrived through the UDP socket is queued for `rrecvfrom` as it is; rdma-core forwards it to
//!   itself over its own QP with that "self" handle (so needs no second queue);
//! * a datagram larger than a receive slot holds (2048 bytes minus our header) is `EMSGSIZE` (rdma-core copies it
//!   past the end of its send slot); one that fits a slot but not the port's MTU (RoCE over a 1500-byte Ethernet
//!   MTU: 1024, so 1016 data bytes) goes through the UDP sockets instead (rdma-core would post it and fail);
//! * `rrecvfrom` before `rbind` / `rconnect` / `rsendto` is `EINVAL` as in rdma-core; `rsend` without a
//!   destination (never `rconnect`ed) is `EDESTADDRREQ` as `send(2)` on UDP (rdma-core dereferences a NULL
//!   destination); `rlisten`, `raccept`, `rshutdown`, `riomap`, `riowrite` are `EOPNOTSUPP`;
//! * iWARP has no UD QP: the first call that needs a QP fails with `rdma_create_qp`'s errno, as rdma-core's
//!   (`EOPNOTSUPP` on Soft-iWARP).
#![allow(unsafe_code)] // verbs data path on registered buffers, the caller's socket addresses, libc socket calls

use super::config::defaults;
use super::verbs::{cm_call, id_cq, poll_cq, post_recv, post_send, req_notify, RegBuf, Slab};
use super::wire::*;
use super::IoCursor;
use crate::cm;
use once_cell::sync::Lazy;
use parking_lot::{Mutex, MutexGuard};
use rdma_common::abi::enums::*;
use rdma_common::abi::rdma_cma::{rdma_cm_id, RDMA_UDP_QKEY};
use rdma_common::abi::verbs::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi;
use std::collections::{HashMap, VecDeque};
use std::ffi::c_int;
use std::mem::{size_of, MaybeUninit};
use std::ptr::{addr_of, addr_of_mut, null_mut};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The most destinations a datagram rsocket keeps (each holds an address handle): beyond them, datagrams from new
/// addresses are still delivered, through UDP.
pub(super) const MAX_DESTS: usize = 1024;
/// The most new destinations the address service makes in one call (each costs a route resolution of up to seconds).
pub(super) const LEARN_PER_CALL: usize = 4;

/// What the address service does with a valid message ([`Ds::service`]'s rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Plan {
    /// From a destination we have: answer a `DATA`, take the QP number, queue the datagram.
    Known,
    /// A reply from an address we never wrote to: dropped.
    Drop,
    /// A `DATA` from a new address: make it a destination, then as `Known`.
    Learn,
    /// A `DATA` from a new address while no more may be made: its datagram only is queued.
    QueueOnly,
}

/// The address service's rule for a valid message of operation `op` from an address that is a destination
/// (`known`) or not, with `dests` destinations and `learned` of them made in this call.
pub(super) fn plan(known: bool, op: u8, dests: usize, learned: usize) -> Plan {
    match (known, op) {
        (true, _) => Plan::Known,
        (false, UDP_OP_CTRL) => Plan::Drop,
        (false, _) if dests >= MAX_DESTS || learned >= LEARN_PER_CALL => Plan::QueueOnly,
        (false, _) => Plan::Learn,
    }
}

/// The live datagram rsockets, by number (their UDP socket).
static TABLE: Lazy<Mutex<HashMap<c_int, Arc<Dsock>>>> = Lazy::new(|| Mutex::new(HashMap::new()));

/// The datagram rsocket numbered `fd`, if it is one.
pub(super) fn lookup(fd: c_int) -> Option<Arc<Dsock>> {
    TABLE.lock().get(&fd).cloned()
}

/// One datagram rsocket: its number and its state (one lock: every call holds it except while sleeping).
pub(super) struct Dsock {
    inner: Mutex<Ds>,
}

/// One UD QP and what belongs to it.
struct DsQp {
    id: *mut rdma_cm_id,
    /// The address the id is bound to (the source address of what it sends).
    src: DsAddr,
    /// The send slots' registration on this QP's PD.
    smr: *mut ibv_mr,
    /// `rq_size` receive slots of `SNDLOWAT` bytes, then the GRH slot.
    rbuf: RegBuf,
    cq: *mut ibv_cq,
    ch: *mut ibv_comp_channel,
    armed: bool,
    unacked: u32,
    /// The most data bytes one UD send carries: the port's MTU, at most a slot, less our header.
    max_ud: usize,
    /// The port's link layer is Ethernet (RoCE): address handles need a GRH.
    eth: bool,
}

/// A destination: the QP we send to it from, and once resolved its address handle and QP number.
struct Dest {
    addr: DsAddr,
    qp: usize,
    ah: *mut ibv_ah,
    qpn: u32,
}

/// A received datagram: in a QP's receive slot, or (when it came through the UDP socket) a copy.
enum Rmsg {
    Ud { qp: usize, offset: u32, len: u32 },
    Udp { src: DsAddr, data: Vec<u8> },
}

/// The state of a datagram rsocket.
pub(super) struct Ds {
    pub(super) udp: c_int,
    /// The endpoint exists (rdma-core's `ds_init_ep`: after `rbind`, `rconnect` or the first `rsendto`).
    pub(super) ready: bool,
    closed: bool,
    /// File status flags (`F_GETFL`/`F_SETFL`, `SOCK_NONBLOCK`): `O_NONBLOCK` makes the calls non-blocking.
    pub fs_flags: c_int,
    /// Descriptor flags (`F_GETFD`/`F_SETFD`, `SOCK_CLOEXEC`), only remembered (rdma-core 65).
    pub fd_flags: c_int,
    /// `IP_TOS`, as set (rdma-core 65).
    pub(super) ip_tos: c_int,
    pub(super) so_opts: u64,
    pub(super) ipv6_opts: u64,
    pub(super) sq_size: u16,
    pub(super) rq_size: u16,
    pub(super) sq_inline: u16,
    pub(super) sbuf_size: u32,
    pub(super) rbuf_size: u32,
    qps: Vec<DsQp>,
    dests: Vec<Dest>,
    /// The destination of `rsend` (set by `rconnect`).
    conn: Option<usize>,
    rmsgs: VecDeque<Rmsg>,
    pub(super) sbuf: Option<Slab>,
    /// Offsets of the free send slots.
    free_slots: Vec<u32>,
    /// Where the next CQ poll starts (round robin over the QPs).
    next_qp: usize,
    /// The address service's receive buffer.
    ubuf: Vec<u8>,
}

// SAFETY: the raw pointers (ids, MRs, CQs, AHs, buffers) are only used under the rsocket's lock; the verbs and CM
// objects they name may be used from any thread.
unsafe impl Send for Ds {}

// ---- socket addresses -------------------------------------------------------------------------------------------

/// Reads the caller's socket address (`AF_INET` or `AF_INET6`, at least its family's size).
///
/// # Safety
/// `sa` is NULL or points to `len` readable bytes.
pub(super) unsafe fn from_sockaddr(sa: *const libc::sockaddr, len: libc::socklen_t) -> Result<DsAddr> {
    if sa.is_null() || (len as usize) < size_of::<libc::sa_family_t>() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the caller's contract; sizes checked before each read.
    unsafe {
        match c_int::from((*sa).sa_family) {
            libc::AF_INET if len as usize >= size_of::<libc::sockaddr_in>() => {
                let s = sa.cast::<libc::sockaddr_in>().read_unaligned();
                Ok(DsAddr::V4 { port: s.sin_port.to_ne_bytes(), addr: s.sin_addr.s_addr.to_ne_bytes() })
            }
            libc::AF_INET6 if len as usize >= size_of::<libc::sockaddr_in6>() => {
                let s = sa.cast::<libc::sockaddr_in6>().read_unaligned();
                Ok(DsAddr::V6 {
                    port: s.sin6_port.to_ne_bytes(),
                    flowinfo: s.sin6_flowinfo.to_ne_bytes(),
                    addr: s.sin6_addr.s6_addr,
                    scope: s.sin6_scope_id,
                })
            }
            libc::AF_INET | libc::AF_INET6 => Err(Errno::EINVAL),
            _ => Err(Errno(libc::EAFNOSUPPORT)),
        }
    }
}

/// `a` as a `sockaddr_storage` and its length.
fn to_sockaddr(a: &DsAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: all-zero is a valid sockaddr_storage.
    let mut st: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match a {
        DsAddr::V4 { port, addr } => {
            let s = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: u16::from_ne_bytes(*port),
                sin_addr: libc::in_addr { s_addr: u32::from_ne_bytes(*addr) },
                sin_zero: [0; 8],
            };
            // SAFETY: a sockaddr_in fits in a sockaddr_storage.
            unsafe { (&mut st as *mut libc::sockaddr_storage).cast::<libc::sockaddr_in>().write(s) };
            size_of::<libc::sockaddr_in>()
        }
        DsAddr::V6 { port, flowinfo, addr, scope } => {
            let s = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: u16::from_ne_bytes(*port),
                sin6_flowinfo: u32::from_ne_bytes(*flowinfo),
                sin6_addr: libc::in6_addr { s6_addr: *addr },
                sin6_scope_id: *scope,
            };
            // SAFETY: as above.
            unsafe { (&mut st as *mut libc::sockaddr_storage).cast::<libc::sockaddr_in6>().write(s) };
            size_of::<libc::sockaddr_in6>()
        }
    };
    (st, len as libc::socklen_t)
}

fn with_port(a: &DsAddr, p: [u8; 2]) -> DsAddr {
    match *a {
        DsAddr::V4 { addr, .. } => DsAddr::V4 { port: p, addr },
        DsAddr::V6 { flowinfo, addr, scope, .. } => DsAddr::V6 { port: p, flowinfo, addr, scope },
    }
}

fn port_of(a: &DsAddr) -> [u8; 2] {
    match a {
        DsAddr::V4 { port, .. } | DsAddr::V6 { port, .. } => *port,
    }
}

/// The wildcard or loopback address (rdma-core's `rs_any_addr`): the source address then comes from the route.
fn any_or_loopback(a: &DsAddr) -> bool {
    match a {
        DsAddr::V4 { addr, .. } => *addr == [0; 4] || *addr == [127, 0, 0, 1],
        DsAddr::V6 { addr, .. } => {
            let mut lo = [0u8; 16];
            lo[15] = 1;
            *addr == [0; 16] || *addr == lo
        }
    }
}

/// `getsockname(2)` of `fd` as a [`DsAddr`].
fn sock_name(fd: c_int) -> Result<DsAddr> {
    // SAFETY: all-zero is a valid sockaddr_storage; getsockname writes at most `len` bytes.
    unsafe {
        let mut st: libc::sockaddr_storage = std::mem::zeroed();
        let mut len = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        if libc::getsockname(fd, (&mut st as *mut libc::sockaddr_storage).cast(), &mut len) != 0 {
            return Err(Errno::last());
        }
        from_sockaddr((&st as *const libc::sockaddr_storage).cast(), len)
    }
}

// ---- creation and the C entry points' bodies ------------------------------------------------------------------

/// `rsocket(domain, SOCK_DGRAM, …)`: the UDP socket and the (not yet created) endpoint. Returns its number.
pub(super) fn create(domain: c_int, fs_flags: c_int, fd_flags: c_int) -> Result<c_int> {
    if domain != libc::AF_INET && domain != libc::AF_INET6 {
        // AF_IB has no UDP socket to carry the address service (rdma-core fails in socket(2) too).
        return Err(Errno(libc::EAFNOSUPPORT));
    }
    // SAFETY: plain socket(2).
    let udp = unsafe { libc::socket(domain, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if udp < 0 {
        return Err(Errno::last());
    }
    let d = defaults();
    let ds = Ds {
        udp,
        ready: false,
        closed: false,
        fs_flags,
        fd_flags,
        ip_tos: 0,
        so_opts: 0,
        ipv6_opts: 0,
        sq_size: d.sqsize,
        rq_size: d.rqsize,
        sq_inline: d.inline,
        sbuf_size: d.wmem,
        rbuf_size: d.mem,
        qps: Vec::new(),
        dests: Vec::new(),
        conn: None,
        rmsgs: VecDeque::new(),
        sbuf: None,
        free_slots: Vec::new(),
        next_qp: 0,
        ubuf: Vec::new(),
    };
    TABLE.lock().insert(udp, Arc::new(Dsock { inner: Mutex::new(ds) }));
    Ok(udp)
}

/// The state of `s`, locked; `EBADF` once another thread closed it.
pub(super) fn locked(s: &Dsock) -> Result<MutexGuard<'_, Ds>> {
    let g = s.inner.lock();
    if g.closed {
        return Err(Errno::EBADF);
    }
    Ok(g)
}

/// `rbind`: the endpoint, then `bind(2)` of the UDP socket (its errno: `EADDRINUSE`, `EADDRNOTAVAIL`, `EINVAL`).
pub(super) fn bind(s: &Dsock, addr: *const libc::sockaddr, len: libc::socklen_t) -> Result<()> {
    let mut g = locked(s)?;
    g.init_ep()?;
    // SAFETY: the caller's address of `len` bytes, read by the kernel.
    if unsafe { libc::bind(g.udp, addr, len) } != 0 {
        return Err(Errno::last());
    }
    Ok(())
}

/// `rconnect`: `connect(2)` of the UDP socket, then the destination (and its QP) that `rsend` uses.
pub(super) fn connect(s: &Dsock, addr: *const libc::sockaddr, len: libc::socklen_t) -> Result<()> {
    let mut g = locked(s)?;
    // SAFETY: the caller's address (NULL or short: EINVAL).
    let a = unsafe { from_sockaddr(addr, len) }?;
    g.init_ep()?;
    // SAFETY: as in bind.
    if unsafe { libc::connect(g.udp, addr, len) } != 0 {
        return Err(Errno::last());
    }
    let d = g.get_dest(&a)?;
    g.conn = Some(d);
    Ok(())
}

/// `rsendto` (`dest` given) / `rsend` (`dest` None: the `rconnect` destination; rdma-core's `rsend` goes to the
/// last `rsendto` destination too). Returns the bytes sent.
pub(super) fn send(s: &Dsock, src: &mut IoCursor, flags: c_int, dest: Option<DsAddr>) -> Result<usize> {
    let mut g = locked(s)?;
    let nonblock = g.nonblocking(flags);
    let d = match dest {
        Some(a) => {
            g.init_ep()?;
            g.progress();
            g.get_dest(&a)?
        }
        None => {
            let c = g.conn.ok_or(Errno(libc::EDESTADDRREQ))?;
            g.progress();
            c
        }
    };
    let len = src.total();
    let qp = g.dests[d].qp;
    let hlen = ds_header(&g.qps[qp].src).1;
    if len > SNDLOWAT as usize - hlen {
        return Err(Errno(libc::EMSGSIZE));
    }
    if g.dests[d].ah.is_null() || len > g.qps[qp].max_ud {
        let mut data = vec![0u8; len];
        src.read(data.as_mut_ptr(), len);
        return g.send_udp(d, UDP_OP_DATA, &data, if nonblock { libc::MSG_DONTWAIT } else { 0 });
    }
    let (mut g, r) = wait(s, g, nonblock, |g| !g.free_slots.is_empty());
    r?;
    // The wait may have let a close through, or changed nothing else: the destination index stays valid (dests
    // only grow).
    g.post_ud(d, src, len)?;
    Ok(len)
}

/// `rrecvfrom` / `rrecv` / `rrecvmsg`: one datagram into `dst` (the rest of a longer one is dropped, as UDP).
/// Returns the bytes copied and the sender's address.
pub(super) fn recv(s: &Dsock, dst: &mut IoCursor, flags: c_int) -> Result<(usize, DsAddr)> {
    let g = locked(s)?;
    if !g.ready {
        return Err(Errno::EINVAL);
    }
    let nonblock = g.nonblocking(flags);
    let (mut g, r) = wait(s, g, nonblock, |g| !g.rmsgs.is_empty());
    r?;
    let peek = flags & libc::MSG_PEEK != 0;
    let (src, n) = match g.rmsgs.front() {
        Some(Rmsg::Udp { src, data }) => {
            let n = data.len().min(dst.total());
            dst.write(data.as_ptr(), n);
            (*src, n)
        }
        Some(&Rmsg::Ud { qp, offset, len }) => {
            // SAFETY: the slot at `offset` holds `len` received bytes (checked when polled).
            let b = unsafe { std::slice::from_raw_parts(g.qps[qp].rbuf.ptr.add(offset as usize), len as usize) };
            // Checked when it was queued; the peer cannot write into a receive slot again before it is reposted.
            let Some((src, hl)) = parse_ds_header(b) else { return Err(Errno::EIO) };
            let n = (b.len() - hl).min(dst.total());
            dst.write(b[hl..].as_ptr(), n);
            (src, n)
        }
        None => return Err(Errno::EAGAIN),
    };
    if !peek {
        if let Some(Rmsg::Ud { qp, offset, .. }) = g.rmsgs.pop_front() {
            let _ = g.post_recv_slot(qp, offset);
        }
    }
    Ok((n, src))
}

/// Writes `a` into the caller's `addr` / `*addrlen` as `recvfrom(2)`: at most `*addrlen` bytes, `*addrlen` set
/// to the full size.
///
/// # Safety
/// `addr` has `*addrlen` writable bytes; `addrlen` is readable and writable (both checked for NULL).
pub(super) unsafe fn store_addr(a: &DsAddr, addr: *mut libc::sockaddr, addrlen: *mut libc::socklen_t) {
    if addr.is_null() || addrlen.is_null() {
        return;
    }
    let (st, full) = to_sockaddr(a);
    // SAFETY: the caller's contract.
    unsafe {
        let n = (full as usize).min(addrlen.read() as usize);
        std::ptr::copy_nonoverlapping((&st as *const libc::sockaddr_storage).cast::<u8>(), addr.cast::<u8>(), n);
        addrlen.write(full);
    }
}

/// `rclose`: waits up to a second for the sends posted, then frees everything and closes the UDP socket.
pub(super) fn close(fd: c_int) -> Result<()> {
    let s = TABLE.lock().remove(&fd).ok_or(Errno::EBADF)?;
    let mut g = s.inner.lock();
    let start = Instant::now();
    while g.ready && g.free_slots.len() < usize::from(g.sq_size) && start.elapsed() < Duration::from_secs(1) {
        g.poll_cqs(true);
        std::thread::yield_now();
    }
    g.free();
    Ok(())
}

/// `rgetsockname` / `rgetpeername`: those of the UDP socket (as rdma-core).
pub(super) fn name(s: &Dsock, peer: bool, addr: *mut libc::sockaddr, len: *mut libc::socklen_t) -> Result<()> {
    let g = locked(s)?;
    // SAFETY: the caller's buffers, checked and written by the kernel (EFAULT for bad ones).
    let r = unsafe {
        if peer {
            libc::getpeername(g.udp, addr, len)
        } else {
            libc::getsockname(g.udp, addr, len)
        }
    };
    if r != 0 {
        return Err(Errno::last());
    }
    Ok(())
}

// ---- readiness for rpoll ------------------------------------------------------------------------------------------

/// The events of `s` now (`POLLIN`: a datagram is queued; `POLLOUT`: a send would not wait for a slot;
/// `POLLNVAL` once closed), after taking in completions and address-service messages.
pub(super) fn poll_events(s: &Dsock, events: i16) -> i16 {
    let mut g = s.inner.lock();
    if g.closed {
        return libc::POLLNVAL;
    }
    g.progress();
    g.revents(events)
}

/// As [`poll_events`], but when nothing is ready arms the CQs and adds the descriptors to sleep on (the UDP
/// socket, the completion channels) to `out`.
pub(super) fn arm(s: &Dsock, events: i16, out: &mut Vec<libc::pollfd>) -> i16 {
    let mut g = s.inner.lock();
    if g.closed {
        return libc::POLLNVAL;
    }
    loop {
        g.progress();
        let r = g.revents(events);
        if r != 0 {
            return r;
        }
        if !g.arm_cqs() {
            break;
        }
    }
    g.wait_fds(out);
    0
}

/// Waits until `test` holds (`EAGAIN` at once when `nonblock`): busy polls for the configured polling time, then
/// sleeps in `poll(2)` on the UDP socket and the completion channels, the lock dropped, waking at least every
/// wake-up interval. `EBADF` when another thread closes the rsocket meanwhile.
fn wait<'a>(
    s: &'a Dsock,
    mut g: MutexGuard<'a, Ds>,
    nonblock: bool,
    test: fn(&Ds) -> bool,
) -> (MutexGuard<'a, Ds>, Result<()>) {
    let d = defaults();
    let start = Instant::now();
    loop {
        if g.closed {
            return (g, Err(Errno::EBADF));
        }
        g.progress();
        if test(&g) {
            return (g, Ok(()));
        }
        if nonblock {
            return (g, Err(Errno::EAGAIN));
        }
        if start.elapsed().as_micros() <= u128::from(d.polling_time_us) {
            MutexGuard::bump(&mut g);
            continue;
        }
        if g.arm_cqs() {
            continue;
        }
        let mut fds = Vec::new();
        g.wait_fds(&mut fds);
        drop(g);
        // SAFETY: `fds` is a valid array of its length.
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, d.wake_up_interval_ms.max(1)) };
        g = s.inner.lock();
    }
}

impl Ds {
    /// Whether a QP exists yet (then `SO_RCVBUF` no longer changes the receive slots).
    pub(super) fn has_qp(&self) -> bool {
        !self.qps.is_empty()
    }

    pub(super) fn nonblocking(&self, flags: c_int) -> bool {
        (self.fs_flags & libc::O_NONBLOCK) != 0 || (flags & libc::MSG_DONTWAIT) != 0
    }

    fn revents(&self, events: i16) -> i16 {
        let mut r = 0;
        if events & libc::POLLIN != 0 && !self.rmsgs.is_empty() {
            r |= libc::POLLIN;
        }
        if events & libc::POLLOUT != 0 && self.ready && !self.free_slots.is_empty() {
            r |= libc::POLLOUT;
        }
        r
    }

    /// `ds_set_qp_size` + `ds_init_ep`: queue sizes fitted to the buffer sizes, the send slots. Idempotent.
    fn init_ep(&mut self) -> Result<()> {
        if self.ready {
            return Ok(());
        }
        let slot = SNDLOWAT;
        self.sq_size = self.sq_size.clamp(1, QP_MAX_SIZE);
        self.rq_size = self.rq_size.clamp(1, QP_MAX_SIZE);
        if u32::from(self.rq_size) > self.rbuf_size / slot {
            self.rq_size = (self.rbuf_size / slot).max(1) as u16;
        }
        self.rbuf_size = u32::from(self.rq_size) * slot;
        if u32::from(self.sq_size) > self.sbuf_size / slot {
            self.sq_size = (self.sbuf_size / slot).max(1) as u16;
        }
        self.sbuf_size = u32::from(self.sq_size) * slot;
        self.sbuf = Some(Slab::new(self.sbuf_size as usize)?);
        self.free_slots = (0..u32::from(self.sq_size)).rev().map(|i| i * slot).collect();
        self.ubuf = vec![0u8; 65536];
        self.ready = true;
        Ok(())
    }

    /// `ds_get_src_addr`: the UDP socket's address, or when that is the wildcard (or loopback) the address the
    /// kernel routes `dst` from, with the socket's port. An unbound socket is bound to an ephemeral port first, so
    /// that the source address we name is the one our UDP messages come from.
    fn src_addr_for(&self, dst: &DsAddr) -> Result<DsAddr> {
        let mut local = sock_name(self.udp)?;
        if port_of(&local) == [0, 0] {
            let wild = match local {
                DsAddr::V4 { .. } => DsAddr::V4 { port: [0; 2], addr: [0; 4] },
                DsAddr::V6 { .. } => DsAddr::V6 { port: [0; 2], flowinfo: [0; 4], addr: [0; 16], scope: 0 },
            };
            let (st, len) = to_sockaddr(&wild);
            // SAFETY: a valid address of `len` bytes. An error (a racing bind) leaves the socket as it is.
            unsafe { libc::bind(self.udp, (&st as *const libc::sockaddr_storage).cast(), len) };
            local = sock_name(self.udp)?;
        }
        if !any_or_loopback(&local) {
            return Ok(local);
        }
        let fam = if matches!(dst, DsAddr::V4 { .. }) { libc::AF_INET } else { libc::AF_INET6 };
        // SAFETY: a probe socket, closed below.
        let probe = unsafe { libc::socket(fam, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        if probe < 0 {
            return Err(Errno::last());
        }
        let (st, len) = to_sockaddr(dst);
        // SAFETY: a valid address; connect on UDP only picks the route.
        let r = if unsafe { libc::connect(probe, (&st as *const libc::sockaddr_storage).cast(), len) } != 0 {
            Err(Errno::last())
        } else {
            sock_name(probe).map(|a| with_port(&a, port_of(&local)))
        };
        // SAFETY: ours.
        unsafe { libc::close(probe) };
        r
    }

    /// `ds_get_dest`: the destination `addr`, created (with the QP of the source address that reaches it) when new.
    fn get_dest(&mut self, addr: &DsAddr) -> Result<usize> {
        if let Some(i) = self.dests.iter().position(|d| d.addr == *addr) {
            return Ok(i);
        }
        let src = self.src_addr_for(addr)?;
        let qp = match self.qps.iter().position(|q| q.src == src) {
            Some(q) => q,
            None => self.create_qp(&src)?,
        };
        self.dests.push(Dest { addr: *addr, qp, ah: null_mut(), qpn: 0 });
        Ok(self.dests.len() - 1)
    }

    /// `ds_create_qp`: an `RDMA_PS_UDP` id bound to `src`, its CQ, the UD QP (moved to RTS by `rdma_create_qp`),
    /// the buffers registered, every receive posted. Returns the QP's index.
    fn create_qp(&mut self, src: &DsAddr) -> Result<usize> {
        let mut id = null_mut();
        // SAFETY: a synchronous id stored in our out-parameter.
        cm_call(unsafe { cm::id::rdma_create_id(null_mut(), &mut id, null_mut(), RDMA_PS_UDP) })?;
        let r = self.create_qp_on(id, src);
        if r.is_err() {
            // SAFETY: the id is ours; its QP (if any) was created on it.
            unsafe {
                if !addr_of!((*id).qp).read().is_null() {
                    cm::qp::rdma_destroy_qp(id);
                }
                cm::id::rdma_destroy_id(id);
            }
        }
        r
    }

    fn create_qp_on(&mut self, id: *mut rdma_cm_id, src: &DsAddr) -> Result<usize> {
        let (st, _) = to_sockaddr(src);
        // SAFETY: the id is live; `st` is a socket address of its family.
        cm_call(unsafe { cm::addr::rdma_bind_addr(id, (&st as *const libc::sockaddr_storage).cast_mut().cast()) })?;
        // SAFETY: a bound id has its device, PD and port.
        let (ctx, pd, port) = unsafe { ((*id).verbs, (*id).pd, (*id).port_num) };
        if ctx.is_null() || pd.is_null() {
            return Err(Errno::ENODEV);
        }
        // SAFETY: an open context.
        let pi = unsafe { crate::verbs::query_port_info(ctx, port) }?;
        let local = ibv_access_flags::IBV_ACCESS_LOCAL_WRITE as c_int;
        let rbuf = RegBuf::new(pd, self.rbuf_size as usize + GRH_LEN, local)?;
        let sb = self.sbuf.as_ref().ok_or(Errno::EINVAL)?;
        // SAFETY: the send slots outlive the MR (deregistered in free before the slab is dropped).
        let smr = unsafe { ibv_reg_mr(pd, sb.ptr.cast(), self.sbuf_size as usize, local) };
        if smr.is_null() {
            return Err(Errno::last());
        }
        let hlen = ds_header(src).1;
        let mut q = DsQp {
            id,
            src: *src,
            smr,
            rbuf,
            cq: null_mut(),
            ch: null_mut(),
            armed: false,
            unacked: 0,
            max_ud: pi.mtu.min(SNDLOWAT as usize) - hlen,
            eth: pi.link_layer == IBV_LINK_LAYER_ETHERNET,
        };
        // SAFETY: as in stream's create_ep: the channel and CQ are stored in the id, which destroys them with it.
        let r = unsafe {
            (|| -> Result<()> {
                let (ch, cq) = id_cq(id, ctx, c_int::from(self.sq_size) + c_int::from(self.rq_size))?;
                q.cq = cq;
                q.ch = ch;
                let mut attr = MaybeUninit::<ibv_qp_init_attr>::zeroed();
                let a = attr.as_mut_ptr();
                addr_of_mut!((*a).send_cq).write(cq);
                addr_of_mut!((*a).recv_cq).write(cq);
                addr_of_mut!((*a).qp_type).write(ibv_qp_type::IBV_QPT_UD);
                addr_of_mut!((*a).sq_sig_all).write(1);
                addr_of_mut!((*a).cap.max_send_wr).write(u32::from(self.sq_size));
                addr_of_mut!((*a).cap.max_recv_wr).write(u32::from(self.rq_size));
                addr_of_mut!((*a).cap.max_send_sge).write(1);
                addr_of_mut!((*a).cap.max_recv_sge).write(2);
                addr_of_mut!((*a).cap.max_inline_data).write(u32::from(self.sq_inline));
                cm_call(cm::qp::rdma_create_qp(id, null_mut(), a))?;
                self.sq_inline = addr_of!((*a).cap.max_inline_data).read().min(u32::from(u16::MAX)) as u16;
                Ok(())
            })()
        };
        if let Err(e) = r {
            // SAFETY: registered above on this PD; nothing posted yet.
            unsafe { ibv_dereg_mr(smr) };
            return Err(e);
        }
        self.qps.push(q);
        let i = self.qps.len() - 1;
        for k in 0..u32::from(self.rq_size) {
            if let Err(e) = self.post_recv_slot(i, k * SNDLOWAT) {
                log::warn!("rsocket: datagram receive not posted: {e:?}");
                break;
            }
        }
        Ok(i)
    }

    /// `ds_post_recv`: receive slot `offset` of QP `i`, after the shared GRH slot.
    fn post_recv_slot(&mut self, i: usize, offset: u32) -> Result<()> {
        let q = &self.qps[i];
        let base = q.rbuf.addr();
        let mut sge = [
            ibv_sge { addr: base + u64::from(self.rbuf_size), length: GRH_LEN as u32, lkey: q.rbuf.lkey() },
            ibv_sge { addr: base + u64::from(offset), length: SNDLOWAT, lkey: q.rbuf.lkey() },
        ];
        // SAFETY: all-zero is a valid receive work request.
        let mut wr: ibv_recv_wr = unsafe { std::mem::zeroed() };
        wr.wr_id = WR_ID_RECV | u64::from(offset);
        wr.sg_list = sge.as_mut_ptr();
        wr.num_sge = 2;
        // SAFETY: the QP is live; both SGEs lie in its registered receive buffer.
        unsafe { post_recv(addr_of!((*q.id).qp).read(), &mut wr) }
    }

    /// Copies our header and the `len` bytes of `src` into a free send slot and posts it to destination `d`.
    fn post_ud(&mut self, d: usize, src: &mut IoCursor, len: usize) -> Result<()> {
        let off = self.free_slots.pop().ok_or(Errno::EAGAIN)?;
        let dest = &self.dests[d];
        let q = &self.qps[dest.qp];
        let (h, hl) = ds_header(&q.src);
        let sb = self.sbuf.as_ref().ok_or(Errno::EINVAL)?;
        // SAFETY: slot `off` has SNDLOWAT bytes; hl + len <= SNDLOWAT (checked by the caller).
        let p = unsafe { sb.ptr.add(off as usize) };
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(h.as_ptr(), p, hl) };
        // SAFETY: as above.
        src.read(unsafe { p.add(hl) }, len);
        let total = (hl + len) as u32;
        // SAFETY: `smr` is live while the QP is.
        let mut sge = [ibv_sge { addr: p as u64, length: total, lkey: unsafe { (*q.smr).lkey } }];
        // SAFETY: all-zero is a valid send work request.
        let mut wr: ibv_send_wr = unsafe { std::mem::zeroed() };
        wr.wr_id = u64::from(off);
        wr.sg_list = sge.as_mut_ptr();
        wr.num_sge = 1;
        wr.opcode = ibv_wr_opcode::IBV_WR_SEND;
        wr.send_flags = if total <= u32::from(self.sq_inline) { IBV_SEND_INLINE } else { 0 };
        wr.wr.ud = ibv_send_wr_ud { ah: dest.ah, remote_qpn: dest.qpn, remote_qkey: RDMA_UDP_QKEY as u32 };
        // SAFETY: the QP is live; the slot stays ours until its completion.
        let r = unsafe { post_send(addr_of!((*q.id).qp).read(), &mut wr) };
        if r.is_err() {
            self.free_slots.push(off);
        }
        r
    }

    /// `ds_send_udp`: an address-service message (our QP of destination `d`, then `data`) to `d` through the UDP
    /// socket. Returns the data bytes sent.
    fn send_udp(&mut self, d: usize, op: u8, data: &[u8], flags: c_int) -> Result<usize> {
        let dest = &self.dests[d];
        let q = &self.qps[dest.qp];
        // SAFETY: the QP is live.
        let qpn = unsafe { (*addr_of!((*q.id).qp).read()).qp_num };
        let (h, hl) = udp_header(op, qpn, &q.src);
        let (st, len) = to_sockaddr(&dest.addr);
        let mut iov = [
            libc::iovec { iov_base: h.as_ptr().cast_mut().cast(), iov_len: hl },
            libc::iovec { iov_base: data.as_ptr().cast_mut().cast(), iov_len: data.len() },
        ];
        // SAFETY: all-zero is a valid msghdr; the fields point to live locals.
        let n = unsafe {
            let mut m: libc::msghdr = std::mem::zeroed();
            m.msg_name = (&st as *const libc::sockaddr_storage).cast_mut().cast();
            m.msg_namelen = len;
            m.msg_iov = iov.as_mut_ptr();
            m.msg_iovlen = if data.is_empty() { 1 } else { 2 };
            libc::sendmsg(self.udp, &m, flags | libc::MSG_NOSIGNAL)
        };
        if n < 0 {
            return Err(Errno::last());
        }
        Ok((n as usize).saturating_sub(hl))
    }

    /// Takes in completions and address-service messages: what every call does before looking at the queues.
    fn progress(&mut self) {
        if !self.ready {
            return;
        }
        self.take_cq_events();
        self.poll_cqs(false);
        self.service();
    }

    /// `ds_poll_cqs`: receive completions become queued datagrams (dropped, and the slot reposted, when the queue
    /// is full or the message is not a datagram), send completions free their slot. With the queue full, a CQ is
    /// only polled when a send slot is needed (or `always`), so that datagrams wait in the CQ rather than be dropped.
    fn poll_cqs(&mut self, always: bool) {
        let n = self.qps.len();
        if n == 0 {
            return;
        }
        let mut wcs: [MaybeUninit<ibv_wc>; 16] = [MaybeUninit::zeroed(); 16];
        for k in 0..n {
            let i = (self.next_qp + k) % n;
            loop {
                let room = self.rmsgs.len() < usize::from(self.rq_size);
                if !room && !self.free_slots.is_empty() && !always {
                    break;
                }
                // SAFETY: the CQ is live; room for 16 completions.
                let got = unsafe { poll_cq(self.qps[i].cq, 16, wcs.as_mut_ptr().cast()) };
                if got <= 0 {
                    break;
                }
                for w in &wcs[..got as usize] {
                    let p = w.as_ptr();
                    // SAFETY: the provider filled the first `got` entries; the status is read as an integer.
                    let (wr_id, status, byte_len) = unsafe {
                        (
                            addr_of!((*p).wr_id).read(),
                            ffi::enum_raw(addr_of!((*p).status)),
                            addr_of!((*p).byte_len).read(),
                        )
                    };
                    let ok = status == IBV_WC_SUCCESS;
                    let off = wr_id as u32;
                    if wr_id & WR_ID_RECV == 0 {
                        if !ok {
                            log::debug!("rsocket: datagram send completed with status {status}");
                        }
                        self.free_slots.push(off);
                        continue;
                    }
                    if !ok {
                        // A flushed receive (the QP is going away): not reposted.
                        continue;
                    }
                    // SAFETY: receive slot `off` of this QP (SNDLOWAT bytes; the wr_id is ours).
                    let slot = unsafe {
                        std::slice::from_raw_parts(self.qps[i].rbuf.ptr.add(off as usize), SNDLOWAT as usize)
                    };
                    match ud_datagram(byte_len, slot) {
                        Ok((_, hl, n)) if self.rmsgs.len() < usize::from(self.rq_size) => {
                            self.rmsgs.push_back(Rmsg::Ud { qp: i, offset: off, len: (hl + n) as u32 });
                        }
                        r => {
                            if let Err(v) = r {
                                log::debug!("rsocket: datagram dropped: {}", v.0);
                            }
                            let _ = self.post_recv_slot(i, off);
                        }
                    }
                }
            }
        }
        self.next_qp = (self.next_qp + 1) % n;
    }

    /// Consumes the completion events of armed CQs (non-blocking channels), acknowledging them in batches.
    fn take_cq_events(&mut self) {
        for q in self.qps.iter_mut().filter(|q| q.armed) {
            let mut cq = null_mut();
            let mut ctx = null_mut();
            // SAFETY: the channel is live; out-parameters are ours.
            if unsafe { ibv_get_cq_event(q.ch, &mut cq, &mut ctx) } == 0 {
                q.armed = false;
                q.unacked += 1;
                if q.unacked >= 64 {
                    // SAFETY: the events came from this CQ.
                    unsafe { ibv_ack_cq_events(q.cq, q.unacked) };
                    q.unacked = 0;
                }
            }
        }
    }

    /// Arms every CQ not armed yet. Returns whether any was (then the caller polls once more before sleeping).
    fn arm_cqs(&mut self) -> bool {
        let mut any = false;
        for q in self.qps.iter_mut().filter(|q| !q.armed) {
            // SAFETY: the CQ is live.
            if unsafe { req_notify(q.cq) }.is_ok() {
                q.armed = true;
                any = true;
            }
        }
        any
    }

    /// The descriptors a sleeper waits on: the UDP socket (address service) and every completion channel.
    fn wait_fds(&self, out: &mut Vec<libc::pollfd>) {
        out.push(libc::pollfd { fd: self.udp, events: libc::POLLIN, revents: 0 });
        for q in &self.qps {
            // SAFETY: the channel is live.
            out.push(libc::pollfd { fd: unsafe { (*q.ch).fd }, events: libc::POLLIN, revents: 0 });
        }
    }

    /// rdma-core's `udp_svc_process_rs`, for every message waiting on the UDP socket (any host can send one): a
    /// valid one ([`parse_service`]) names the peer's QP; a `DATA` one is answered with ours and its datagram
    /// queued; the peer's address handle is made when missing, and its QP number taken. A `CTRL` (a reply) is only
    /// taken from an address we know (one we wrote to or heard from before); a `DATA` from a new address makes a
    /// destination only while fewer than [`MAX_DESTS`] exist and at most [`LEARN_PER_CALL`] times per call (each
    /// costs an address and route resolution): otherwise its datagram is still queued, unanswered, and its sender
    /// keeps writing through UDP. Invalid messages are dropped, as UDP drops a datagram with a bad checksum.
    fn service(&mut self) {
        let mut learned = 0;
        for _ in 0..64 {
            // SAFETY: all-zero is a valid sockaddr_storage; recvfrom writes at most the sizes given.
            let (n, from) = unsafe {
                let mut st: libc::sockaddr_storage = std::mem::zeroed();
                let mut len = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
                let n = libc::recvfrom(
                    self.udp,
                    self.ubuf.as_mut_ptr().cast(),
                    self.ubuf.len(),
                    libc::MSG_DONTWAIT,
                    (&mut st as *mut libc::sockaddr_storage).cast(),
                    &mut len,
                );
                (n, from_sockaddr((&st as *const libc::sockaddr_storage).cast(), len))
            };
            if n < 0 {
                return;
            }
            let Ok(from) = from else { continue };
            let b = &self.ubuf[..n as usize];
            let (op, qpn, data) = match parse_service(b, matches!(from, DsAddr::V6 { .. })) {
                Ok(m) => (m.op, m.qpn, m.data.to_vec()),
                Err(v) => {
                    log::debug!("rsocket: address-service message dropped: {}", v.0);
                    continue;
                }
            };
            let room = self.rmsgs.len() < usize::from(self.rq_size);
            let known = self.dests.iter().position(|d| d.addr == from);
            let d = match plan(known.is_some(), op, self.dests.len(), learned) {
                Plan::Known => known.unwrap_or_default(),
                Plan::Drop => {
                    log::debug!("rsocket: address-service reply from an address never written to, dropped");
                    continue;
                }
                Plan::QueueOnly => {
                    if room {
                        self.rmsgs.push_back(Rmsg::Udp { src: from, data });
                    }
                    continue;
                }
                Plan::Learn => {
                    learned += 1;
                    match self.get_dest(&from) {
                        Ok(d) => d,
                        Err(e) => {
                            log::debug!("rsocket: no QP for a datagram peer: {e:?}");
                            continue;
                        }
                    }
                }
            };
            if op == UDP_OP_DATA {
                let _ = self.send_udp(d, UDP_OP_CTRL, &[], libc::MSG_DONTWAIT);
            }
            // The address handle depends on the address only: a new QP number of the peer (it made a new QP) needs
            // no new one (rdma-core resolves the route again).
            if self.dests[d].ah.is_null() {
                self.create_ah(d, qpn);
            } else {
                self.dests[d].qpn = qpn;
            }
            if op == UDP_OP_DATA && room {
                self.rmsgs.push_back(Rmsg::Udp { src: from, data });
            }
        }
    }

    /// `udp_svc_create_ah`: resolves the route from destination `d`'s QP address to it on a temporary id and makes
    /// its address handle (with a GRH on RoCE, see the module docs); `qpn` becomes its QP number. On failure the
    /// destination stays without one (its datagrams keep going through UDP).
    fn create_ah(&mut self, d: usize, qpn: u32) {
        let qi = self.dests[d].qp;
        let old = std::mem::replace(&mut self.dests[d].ah, null_mut());
        if !old.is_null() {
            // SAFETY: our AH; no send in flight needs it after posting.
            unsafe { ibv_destroy_ah(old) };
        }
        match self.resolve_ah(qi, &self.dests[d].addr) {
            Ok(ah) => {
                self.dests[d].ah = ah;
                self.dests[d].qpn = qpn;
            }
            Err(e) => log::debug!("rsocket: no address handle for a datagram peer: {e:?}"),
        }
    }

    fn resolve_ah(&self, qi: usize, dst: &DsAddr) -> Result<*mut ibv_ah> {
        let q = &self.qps[qi];
        let mut id = null_mut();
        // SAFETY: a synchronous id in our out-parameter, destroyed below.
        cm_call(unsafe { cm::id::rdma_create_id(null_mut(), &mut id, null_mut(), RDMA_PS_UDP) })?;
        let r = (|| -> Result<*mut ibv_ah> {
            let (mut s, _) = to_sockaddr(&with_port(&q.src, [0, 0]));
            let (mut t, _) = to_sockaddr(dst);
            // SAFETY: the id is live; both addresses are socket addresses of their family.
            cm_call(unsafe {
                cm::addr::rdma_resolve_addr(
                    id,
                    (&mut s as *mut libc::sockaddr_storage).cast(),
                    (&mut t as *mut libc::sockaddr_storage).cast(),
                    2000,
                )
            })?;
            // SAFETY: as above.
            cm_call(unsafe { cm::addr::rdma_resolve_route(id, 2000) })?;
            // SAFETY: a resolved id has `num_paths` path records.
            let (n, p, port) = unsafe {
                (addr_of!((*id).route.num_paths).read(), addr_of!((*id).route.path_rec).read(), (*id).port_num)
            };
            if n < 1 || p.is_null() {
                return Err(Errno::EHOSTUNREACH);
            }
            // SAFETY: at least one record.
            let p = unsafe { p.read() };
            // SAFETY: the QP's id is bound to a device.
            let (ctx, pd, qport) = unsafe { ((*q.id).verbs, (*q.id).pd, (*q.id).port_num) };
            // SAFETY: an open context.
            let pi = unsafe { crate::verbs::query_port_info(ctx, qport) }?;
            // SAFETY: all-zero is a valid ibv_ah_attr.
            let mut a: ibv_ah_attr = unsafe { std::mem::zeroed() };
            if q.eth || p.hop_limit > 1 {
                a.is_global = 1;
                a.grh.dgid = p.dgid;
                a.grh.flow_label = u32::from_be(p.flow_label);
                a.grh.sgid_index = sgid_index(ctx, qport, &p.sgid, pi.gid_tbl_len);
                a.grh.hop_limit = if q.eth { p.hop_limit.max(1) } else { p.hop_limit };
                a.grh.traffic_class = p.traffic_class;
            }
            a.dlid = u16::from_be(p.dlid);
            a.sl = p.sl;
            a.src_path_bits = (u16::from_be(p.slid) & ((1u16 << pi.lmc.min(7)) - 1)) as u8;
            a.static_rate = p.rate;
            a.port_num = port;
            // SAFETY: the QP's PD; a complete attribute.
            let ah = unsafe { ibv_create_ah(pd, &mut a) };
            if ah.is_null() {
                return Err(Errno::last());
            }
            Ok(ah)
        })();
        // SAFETY: ours.
        unsafe { cm::id::rdma_destroy_id(id) };
        r
    }

    /// Frees every QP, address handle and buffer and closes the UDP socket (rclose).
    fn free(&mut self) {
        for d in self.dests.drain(..) {
            if !d.ah.is_null() {
                // SAFETY: ours.
                unsafe { ibv_destroy_ah(d.ah) };
            }
        }
        for q in self.qps.drain(..) {
            // SAFETY: the QP, MR and id are ours; nothing uses them after this. The CQ and channel go with the id.
            unsafe {
                if q.unacked > 0 {
                    ibv_ack_cq_events(q.cq, q.unacked);
                }
                cm::qp::rdma_destroy_qp(q.id);
                ibv_dereg_mr(q.smr);
                drop(q.rbuf);
                cm::id::rdma_destroy_id(q.id);
            }
        }
        self.rmsgs.clear();
        self.sbuf = None;
        // SAFETY: our socket.
        unsafe { libc::close(self.udp) };
        self.closed = true;
    }
}

/// The index of `gid` in the port's GID table (the RoCE v2 entry when several match), else 0 (rdma-core's
/// `udp_svc_sgid_index` looks at the first 16 entries and answers 0 when none matches).
fn sgid_index(ctx: *mut ibv_context, port: u8, gid: &ibv_gid, len: c_int) -> u8 {
    // SAFETY: a GID is 16 plain bytes.
    let want = unsafe { gid.raw };
    let mut found = None;
    for i in 0..len.clamp(0, 256) {
        // SAFETY: all-zero is a valid entry; the call writes at most `size_of` bytes.
        let mut e: ibv_gid_entry = unsafe { std::mem::zeroed() };
        // SAFETY: an open context.
        let r = unsafe { _ibv_query_gid_ex(ctx, u32::from(port), i as u32, &mut e, 0, size_of::<ibv_gid_entry>()) };
        // SAFETY: as above.
        if r != 0 || unsafe { e.gid.raw } != want {
            continue;
        }
        if e.gid_type == IBV_GID_TYPE_ROCE_V2 {
            return i as u8;
        }
        found.get_or_insert(i as u8);
    }
    found.unwrap_or(0)
}
