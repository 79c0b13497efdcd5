//! The rsocket calls of `<rdma/rsocket.h>` (`rsocket(7)`): the sockets API over RDMA, speaking rdma-core 44's
//! wire protocol (unchanged up to 65) so that our rsockets and rdma-core's talk to each other, and so that
//! rdma-core's unmodified `librspreload.so` (44's, and 65's, which also sends epoll to `repoll_*`) runs socket
//! programs over our librdmacm. rdma-core 65's changes are taken: `SOCK_NONBLOCK`/`SOCK_CLOEXEC` in `rsocket`,
//! `F_GETFD`/`F_SETFD`, accepted rsockets inheriting the listener's flags, the options it added.
//!
//! * `stream` (SOCK_STREAM over RC): a connection's state, credits, data, completions, waits, shutdown;
//! * `connect`: a stream connection's set-up on librdmacm's own calls (endpoint, connection data, connect, accept);
//! * `dgram` (SOCK_DGRAM over UD): a UDP socket plus UD QPs, the address service, `rsendto`/`rrecvfrom`;
//! * `verbs`: what both kinds stand on: registered buffers, an id's CQ, the data-path calls, `cm_call`;
//! * `wire`: the protocol's facts (private data, immediate data, SGL entries, datagram headers), unit tested byte
//!   for byte;
//! * `poll`: `rpoll`/`rselect` over rsockets and ordinary descriptors mixed;
//! * `epoll`: `repoll_create`/`repoll_ctl`/`repoll_wait` (rdma-core 65), epoll over `rpoll`;
//! * `options`: `rsetsockopt`/`rgetsockopt`/`rfcntl` and keep-alives;
//! * `iomap`: `riomap`/`riounmap`/`riowrite`;
//! * `config`: the `/etc/rdma/rsocket/*` defaults.
//!
//! A stream rsocket's number is the descriptor of its `rdma_cm_id`'s private event channel, a datagram rsocket's
//! that of its UDP socket, as in rdma-core; a number that is not an rsocket answers `EBADF` (`rpoll`/`rselect` poll
//! it as an ordinary descriptor). Every entry point first looks for a datagram rsocket (`dgram`), then a stream one.
//!
//! Datagram rsockets work on RoCE, where rdma-core's do not (its address handles lack a GRH); how they differ from
//! rdma-core's is in `dgram`'s docs and docs/cm.md.
//!
//! Where we differ from rdma-core 44, on purpose: no service threads for connection events (a connection still
//! being established advances whenever the application calls into it, including through `rpoll`); `rsend` after
//! the connection is shut down or the peer closed is `EPIPE` (rdma-core: `ECONNRESET`, and after a local
//! `SHUT_WR` it still sends while it has credits); `rrecv`/`rsend` on an
//! rsocket that never connected are `ENOTCONN` (rdma-core dereferences a NULL CQ); `rclose` of a non-rsocket is -1
//! with `errno` `EBADF` (rdma-core returns the positive `EBADF`); `rrecvmsg` fills every iovec (rdma-core only the
//! first) and takes the `flags` argument (rdma-core reads `msg_flags`); `rpoll` reports `POLLHUP` only once the
//! data that came before the peer's close has been read.
//!
//! iWARP (no RDMA write with immediate data) works as in rdma-core: every message is also sent as a 4-byte inline
//! send, received into a slot after the receive buffer.
//!
//! `rfcntl` is C-variadic (`int rfcntl(int socket, int cmd, ...)`). Stable Rust cannot define a variadic function,
//! so ours names the one optional argument `fcntl(2)` commands take (an `int` or a pointer, passed in the same
//! integer register as a fixed argument on x86-64 and AArch64 Linux); it is left out of `check_signatures!`.
#![allow(unsafe_code)] // #[no_mangle] C entry points reading and writing the caller's buffers

pub(crate) mod config;
mod connect;
mod dgram;
mod epoll;
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) mod fuzz;
mod iomap;
mod maps;
pub(crate) mod options;
mod poll;
mod stream;
mod verbs;
mod wire;

use crate::cm;
use libc::{epoll_event, fd_set, iovec, msghdr, nfds_t, off_t, pollfd, sockaddr, socklen_t, ssize_t, timeval};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use rdma_common::abi::enums::*;
use rdma_common::abi::ib::AF_IB;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi::{self, CResult};
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::mem::size_of;
use std::ptr::{addr_of, addr_of_mut, null_mut};
use std::sync::Arc;
use stream::*;

/// The live rsockets, by number.
static TABLE: Lazy<Mutex<HashMap<c_int, Arc<Rsocket>>>> = Lazy::new(|| Mutex::new(HashMap::new()));

/// The rsocket numbered `fd`, if it is one.
fn lookup(fd: c_int) -> Option<Arc<Rsocket>> {
    TABLE.lock().get(&fd).cloned()
}

fn get(fd: c_int) -> Result<Arc<Rsocket>> {
    lookup(fd).ok_or(Errno::EBADF)
}

/// `EOPNOTSUPP` for a datagram rsocket (calls that only streams have).
fn not_dgram(fd: c_int) -> Result<()> {
    if dgram::lookup(fd).is_some() {
        return Err(Errno::EOPNOTSUPP);
    }
    Ok(())
}

/// The state of `s`, locked; `EBADF` once another thread closed it.
fn locked(s: &Rsocket) -> Result<parking_lot::MutexGuard<'_, Rs>> {
    let g = s.inner.lock();
    if g.id.is_null() {
        return Err(Errno::EBADF);
    }
    Ok(g)
}

fn insert(rs: Rs) -> c_int {
    let index = rs.cm_fd();
    TABLE.lock().insert(index, Arc::new(Rsocket::new(index, rs)));
    index
}

/// A cursor over the caller's iovec array.
pub(super) struct IoCursor {
    iov: Vec<(*mut u8, usize)>,
    i: usize,
    off: usize,
}

impl IoCursor {
    /// # Safety
    /// `iov` points to `cnt` iovecs naming accessible memory (or `cnt` is 0).
    unsafe fn from_iov(iov: *const iovec, cnt: c_int) -> Result<IoCursor> {
        if cnt < 0 || (cnt > 0 && iov.is_null()) {
            return Err(Errno::EINVAL);
        }
        let v = (0..cnt as usize)
            .map(|i| {
                // SAFETY: the caller's contract.
                let e = unsafe { iov.add(i).read() };
                (e.iov_base.cast::<u8>(), e.iov_len)
            })
            .collect();
        Ok(IoCursor { iov: v, i: 0, off: 0 })
    }

    pub(super) fn one(buf: *mut u8, len: usize) -> IoCursor {
        IoCursor { iov: vec![(buf, len)], i: 0, off: 0 }
    }

    fn total(&self) -> usize {
        self.iov.iter().fold(0usize, |a, e| a.saturating_add(e.1))
    }

    /// Copies `n` bytes from `src` into the iovecs (receiving).
    pub(super) fn write(&mut self, mut src: *const u8, mut n: usize) {
        while n > 0 && self.i < self.iov.len() {
            let (base, len) = self.iov[self.i];
            let k = n.min(len - self.off);
            // SAFETY: `base + off .. + k` lies in the caller's iovec; `src` has `n` readable bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(src, base.add(self.off), k);
                src = src.add(k);
            }
            n -= k;
            self.off += k;
            if self.off == len {
                self.i += 1;
                self.off = 0;
            }
        }
    }

    /// Copies `n` bytes out of the iovecs into `dst` (sending).
    fn read(&mut self, mut dst: *mut u8, mut n: usize) {
        while n > 0 && self.i < self.iov.len() {
            let (base, len) = self.iov[self.i];
            let k = n.min(len - self.off);
            // SAFETY: as in write, the other way round.
            unsafe {
                std::ptr::copy_nonoverlapping(base.add(self.off), dst, k);
                dst = dst.add(k);
            }
            n -= k;
            self.off += k;
            if self.off == len {
                self.i += 1;
                self.off = 0;
            }
        }
    }
}

/// -1 with `errno` as `ssize_t`.
fn ssize(r: Result<usize>) -> ssize_t {
    match r {
        Ok(n) => n as ssize_t,
        Err(e) => {
            e.set();
            -1
        }
    }
}

/// Advances a connection still being established; `EAGAIN` (not `EINPROGRESS`) when non-blocking and not done.
fn finish_connect(s: &Rsocket, flags: c_int) -> Result<()> {
    let g = s.inner.lock();
    if g.state & RS_CLOSED != 0 {
        return Err(Errno::EBADF);
    }
    if g.state & RS_OPENING != 0 {
        let nb = g.nonblocking(flags);
        let (_g, r) = s.connect_wait(g, nb);
        return r.map_err(|e| if e.0 == libc::EINPROGRESS { Errno::EAGAIN } else { e });
    }
    Ok(())
}

/// `rsend` / `rsendv` on a stream rsocket.
fn send(s: &Rsocket, src: &mut IoCursor, flags: c_int) -> Result<usize> {
    finish_connect(s, flags)?;
    let _sl = s.slock.lock();
    let mut g = s.inner.lock();
    if g.reset != 0 {
        return Err(Errno(g.reset));
    }
    if g.state & RS_CONNECTED == 0 || g.state & RS_WRITABLE == 0 {
        return Err(if g.qp().is_null() { Errno::ENOTCONN } else { Errno(libc::EPIPE) });
    }
    let nonblock = g.nonblocking(flags);
    if g.iomap.pending() {
        let (g2, r) = iomap::send_queued(s, g, nonblock);
        g = g2;
        r?;
    }
    let len = src.total();
    let mut left = len;
    let mut olen = wire::OLAP_START_SIZE as usize;
    let mut ret = Ok(());
    while left > 0 {
        let (g2, r) = s.wait_can_send(g, nonblock);
        g = g2;
        if let Err(e) = r {
            ret = Err(e);
            break;
        }
        // The peer may have rewritten the entry since can_send looked: read once, checked.
        let t = match g.send_target() {
            Ok(t) if t.length == 0 => continue,
            Ok(t) => t,
            Err(e) => {
                ret = Err(e);
                break;
            }
        };
        let mut xfer = wire::next_xfer(&mut olen, left);
        xfer = xfer.min(g.sbuf_bytes_avail as usize).min(t.length as usize);
        let (mut sges, n) = g.stage(&mut |d, n| src.read(d, n), xfer as u32);
        let fl = if xfer <= usize::from(g.sq_inline) { IBV_SEND_INLINE } else { 0 };
        if let Err(e) = g.write_data(&mut sges[..n], xfer as u32, fl, t) {
            ret = Err(e);
            break;
        }
        left -= xfer;
    }
    match ret {
        Err(e) if left == len => Err(e),
        _ => Ok(len - left),
    }
}

/// `rrecv` / `rrecvv` on a stream rsocket.
fn recv(s: &Rsocket, dst: &mut IoCursor, flags: c_int) -> Result<usize> {
    finish_connect(s, flags)?;
    let _rl = s.rlock.lock();
    let mut g = s.inner.lock();
    if g.qp().is_null() || g.state & RS_CLOSED != 0 {
        return Err(Errno::ENOTCONN);
    }
    let nonblock = g.nonblocking(flags);
    let len = dst.total();
    let mut left = len;
    let mut ret = Ok(());
    loop {
        if !g.have_rdata() {
            let (g2, r) = s.get_comp(g, nonblock, conn_have_rdata);
            g = g2;
            if let Err(e) = r {
                ret = Err(e);
                break;
            }
        }
        if g.reset != 0 {
            // A failed connection: its data was dropped; the failure is the answer.
            ret = Err(Errno(g.reset));
            break;
        }
        if flags & libc::MSG_PEEK != 0 {
            left -= g.copy_out(dst, left, true);
            break;
        }
        left -= g.copy_out(dst, left, false);
        if !(left > 0 && flags & libc::MSG_WAITALL != 0 && g.state & RS_READABLE != 0) {
            break;
        }
    }
    match ret {
        Err(e) if left == len => Err(e),
        _ => Ok(len - left),
    }
}

/// Copies an address of the id (`rs_copy_addr`): `*len` becomes the family's full size, at most the caller's
/// `*len` bytes are written.
///
/// # Safety
/// `src` is a socket address; `dst`/`len` the caller's (checked for NULL here).
unsafe fn copy_addr(src: *const sockaddr, dst: *mut sockaddr, len: *mut socklen_t) -> Result<()> {
    if len.is_null() {
        return Err(Errno::EFAULT);
    }
    // SAFETY: the caller's contract.
    unsafe {
        let full = if c_int::from((*src).sa_family) == libc::AF_INET {
            size_of::<libc::sockaddr_in>()
        } else {
            size_of::<libc::sockaddr_in6>()
        };
        let n = full.min(len.read() as usize);
        // As getsockname(2): a NULL address with no room is only asked for the size (rdma-core's librspreload
        // does that before it falls back to a kernel socket).
        if n > 0 {
            if dst.is_null() {
                return Err(Errno::EFAULT);
            }
            std::ptr::copy_nonoverlapping(src.cast::<u8>(), dst.cast::<u8>(), n);
        }
        len.write(full as socklen_t);
    }
    Ok(())
}

/// `rsocket(3)`: creates an rsocket of `domain` (`AF_INET`, `AF_INET6`, `AF_IB`), `type` (`SOCK_STREAM` or
/// `SOCK_DGRAM`, with `SOCK_NONBLOCK` (`O_NONBLOCK`, as `rfcntl(F_SETFL)` sets it) and `SOCK_CLOEXEC` (`FD_CLOEXEC`
/// for `rfcntl(F_GETFD)`) as rdma-core 65 takes them; 44 refused them) and `protocol` (0, or `IPPROTO_TCP` /
/// `IPPROTO_UDP` to match the type), like `socket(2)`. A datagram rsocket is a UDP socket until it is bound,
/// connected or sends (then UD QPs are made as needed). Returns its number, or -1 with `errno`: `EOPNOTSUPP` for
/// another domain, type or protocol; `EAFNOSUPPORT` for `AF_IB` datagrams; `ENODEV` without RDMA devices (streams);
/// `socket(2)`'s (datagrams); `ENOMEM`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rsocket(domain: c_int, r#type: c_int, protocol: c_int) -> c_int {
    ffi::boundary("rsocket", || -> Result<c_int> {
        let kind = r#type & !(libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC);
        if (domain != libc::AF_INET && domain != libc::AF_INET6 && domain != AF_IB)
            || (kind != libc::SOCK_STREAM && kind != libc::SOCK_DGRAM)
            || (kind == libc::SOCK_STREAM && protocol != 0 && protocol != libc::IPPROTO_TCP)
            || (kind == libc::SOCK_DGRAM && protocol != 0 && protocol != libc::IPPROTO_UDP)
        {
            return Err(Errno::EOPNOTSUPP);
        }
        let fs_flags = if r#type & libc::SOCK_NONBLOCK != 0 { libc::O_NONBLOCK } else { 0 };
        let fd_flags = if r#type & libc::SOCK_CLOEXEC != 0 { libc::FD_CLOEXEC } else { 0 };
        if kind == libc::SOCK_DGRAM {
            return dgram::create(domain, fs_flags, fd_flags);
        }
        let mut id = null_mut();
        // SAFETY: a synchronous id (NULL channel) stored in our out-parameter.
        verbs::cm_call(unsafe { cm::id::rdma_create_id(null_mut(), &mut id, null_mut(), RDMA_PS_TCP) })?;
        // SAFETY: the new id is live; its source family says which family the rsocket was made for, as rdma-core.
        unsafe { addr_of_mut!((*id).route.addr.src.src_addr.sa_family).write(domain as libc::sa_family_t) };
        let mut rs = Rs::new(id, None);
        rs.fs_flags = fs_flags;
        rs.fd_flags = fd_flags;
        verbs::set_nonblock(rs.cm_fd());
        Ok(insert(rs))
    })
    .or_minus_one_errno()
}

/// `rbind(3)`: binds rsocket `socket` to the `addrlen` bytes of address `addr` (`sockaddr_in`, `sockaddr_in6` or
/// `sockaddr_ib`), like `bind(2)`. Returns 0, or -1 with `errno` (`EBADF` for a non-rsocket, `EINVAL` for a NULL
/// address, `rdma_bind_addr`'s: `EADDRINUSE`, `EADDRNOTAVAIL`, ...; for a datagram rsocket `bind(2)`'s on its UDP
/// socket).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rbind(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int {
    ffi::boundary("rbind", || -> Result<c_int> {
        if let Some(d) = dgram::lookup(socket) {
            return dgram::bind(&d, addr, addrlen).map(|_| 0);
        }
        let s = get(socket)?;
        let mut g = locked(&s)?;
        if addr.is_null() || (addrlen as usize) < size_of::<libc::sa_family_t>() {
            return Err(Errno::EINVAL);
        }
        // SAFETY: the id is live; `addr` is the caller's address (read by family).
        verbs::cm_call(unsafe { cm::addr::rdma_bind_addr(g.id, addr.cast_mut()) })?;
        g.state = RS_BOUND;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rlisten(3)`: makes rsocket `socket` accept connections, at most `backlog` pending, like `listen(2)` (an unbound
/// rsocket listens on the wildcard address). Returns 0 (also when already listening), or -1 with `errno` (`EBADF`;
/// `rdma_listen`'s, e.g. `EADDRINUSE`; `EOPNOTSUPP` for a datagram rsocket).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rlisten(socket: c_int, backlog: c_int) -> c_int {
    ffi::boundary("rlisten", || -> Result<c_int> {
        not_dgram(socket)?;
        let s = get(socket)?;
        let mut g = locked(&s)?;
        if g.state == RS_LISTENING {
            return Ok(0);
        }
        // SAFETY: the id is live.
        verbs::cm_call(unsafe { cm::conn::rdma_listen(g.id, backlog) })?;
        g.state = RS_LISTENING;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `raccept(3)`: takes the next connection of listening rsocket `socket`, like `accept(2)`, storing the peer's
/// address in `addr` / `*addrlen` when both are given. Blocks unless the listener is `O_NONBLOCK`. Returns the new
/// rsocket, or -1 with `errno` (`EBADF` for a non-rsocket or one that is not listening, as rdma-core; `EAGAIN`;
/// `EOPNOTSUPP` for a datagram rsocket).
/// Requests from peers that are not rsockets are rejected and skipped.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn raccept(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int {
    ffi::boundary("raccept", || -> Result<c_int> {
        not_dgram(socket)?;
        let s = get(socket)?;
        loop {
            let g = s.inner.lock();
            if g.state != RS_LISTENING {
                return Err(Errno::EBADF);
            }
            match connect::accept_one(&g) {
                Ok(Some(rs)) => {
                    // SAFETY: the new id is live; the caller's buffers are checked for NULL.
                    unsafe {
                        let dst = addr_of!((*rs.id).route.addr.dst).cast::<sockaddr>();
                        if !addr.is_null() && !addrlen.is_null() {
                            let _ = copy_addr(dst, addr, addrlen);
                        }
                    }
                    return Ok(insert(rs));
                }
                Ok(None) => continue,
                Err(e) if e == Errno::EAGAIN && g.fs_flags & libc::O_NONBLOCK == 0 => {
                    let mut p = pollfd { fd: g.cm_fd(), events: libc::POLLIN, revents: 0 };
                    drop(g);
                    // SAFETY: one valid pollfd.
                    unsafe { libc::poll(&mut p, 1, 1000) };
                }
                Err(e) => return Err(e),
            }
        }
    })
    .or_minus_one_errno()
}

/// `rconnect(3)`: connects rsocket `socket` to the `addrlen` bytes of address `addr`, like `connect(2)`: resolves
/// the address and route, creates the QP and buffers, and exchanges the connection data. Returns 0, or -1 with
/// `errno`: `EINPROGRESS` on an `O_NONBLOCK` rsocket (finish with `rpoll` for `POLLOUT`, then `SO_ERROR`),
/// `ECONNREFUSED` when nobody listens, `ETIMEDOUT`, `EBADF`, `EINVAL` for a NULL address, `ENOTCONN` after a failed
/// attempt, `EPROTO` when the peer's connection data breaks the protocol (`EOPNOTSUPP` for another version of it). On a datagram rsocket it fixes the destination of `rsend` (connecting the UDP socket, and making the
/// UD QP of the source address that reaches it: `rdma_create_qp`'s errno, e.g. on iWARP).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rconnect(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int {
    ffi::boundary("rconnect", || -> Result<c_int> {
        if let Some(d) = dgram::lookup(socket) {
            return dgram::connect(&d, addr, addrlen).map(|_| 0);
        }
        let s = get(socket)?;
        let mut g = locked(&s)?;
        if addr.is_null() {
            return Err(Errno::EINVAL);
        }
        if g.state & RS_OPENING == 0 && g.state < RS_CONNECTED {
            let n = (addrlen as usize).min(size_of::<libc::sockaddr_storage>());
            // SAFETY: `n` bytes of the caller's address into the id's destination (a sockaddr_storage union).
            unsafe {
                let dst = addr_of_mut!((*g.id).route.addr.dst).cast::<u8>();
                std::ptr::copy_nonoverlapping(addr.cast::<u8>(), dst, n);
            }
        }
        let nb = g.fs_flags & libc::O_NONBLOCK != 0;
        let (g2, r) = s.connect_wait(g, nb);
        drop(g2);
        r.map(|_| 0)
    })
    .or_minus_one_errno()
}

/// `rshutdown(3)`: shuts down reception (`SHUT_RD`), transmission (`SHUT_WR`) or both (`SHUT_RDWR`) of rsocket
/// `socket`, like `shutdown(2)`: tells the peer (which then reads end-of-stream) and waits for the sends
/// outstanding. Returns 0, or -1 with `errno` (`EBADF`; `EINVAL` for another `how`, as `shutdown(2)`: rdma-core
/// takes it as `SHUT_RD`; `EOPNOTSUPP` for a datagram rsocket).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rshutdown(socket: c_int, how: c_int) -> c_int {
    ffi::boundary("rshutdown", || -> Result<c_int> {
        not_dgram(socket)?;
        let s = get(socket)?;
        if how != libc::SHUT_RD && how != libc::SHUT_WR && how != libc::SHUT_RDWR {
            return Err(Errno::EINVAL);
        }
        let mut g = s.inner.lock();
        options::keepalive_off(&mut g, s.index);
        let (_g, r) = stream::shutdown(&s, g, how);
        r.map(|_| 0)
    })
    .or_minus_one_errno()
}

/// `rclose(3)`: closes rsocket `socket`, like `close(2)`: a connected one is shut down first (the peer reads
/// end-of-stream), then its QP, buffers and id are freed (a datagram rsocket waits up to a second for the datagrams
/// posted, then frees its QPs and address handles and closes its UDP socket). It also closes a `repoll_create`
/// instance (threads waiting in it return 0), even with descriptors still listed (rdma-core 65 refuses that with the
/// positive `EBUSY`). Returns 0, or -1 with `errno` = `EBADF`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rclose(socket: c_int) -> c_int {
    ffi::boundary("rclose", || -> Result<c_int> {
        if epoll::is_repoll(socket) {
            return epoll::close(socket).map(|_| 0);
        }
        if dgram::lookup(socket).is_some() {
            return dgram::close(socket).map(|_| 0);
        }
        let s = TABLE.lock().remove(&socket).ok_or(Errno::EBADF)?;
        let mut g = s.inner.lock();
        options::keepalive_off(&mut g, socket);
        if g.state & RS_CONNECTED != 0 {
            let (g2, _) = stream::shutdown(&s, g, libc::SHUT_RDWR);
            g = g2;
        }
        g.free();
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rrecv(3)`: receives up to `len` bytes into `buf` from rsocket `socket`, like `recv(2)` (`flags`:
/// `MSG_DONTWAIT`, `MSG_PEEK`, `MSG_WAITALL`). Returns the byte count (0 at end of stream: the peer shut down or
/// closed), or -1 with `errno` (`EBADF`, `ENOTCONN`, `EAGAIN` when non-blocking and nothing arrived; `EPROTO` once
/// the peer broke the protocol, `ECONNRESET` once the device reported the connection broken: docs/cm.md, "Peer
/// input"). On a datagram
/// rsocket: one datagram (the rest of a longer one dropped, as UDP); `EINVAL` before `rbind`, `rconnect` or
/// `rsendto`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rrecv(socket: c_int, buf: *mut c_void, len: usize, flags: c_int) -> ssize_t {
    ssize(ffi::boundary("rrecv", || {
        if buf.is_null() && len > 0 {
            return Err(Errno::EFAULT);
        }
        if let Some(d) = dgram::lookup(socket) {
            return dgram::recv(&d, &mut IoCursor::one(buf.cast(), len), flags).map(|r| r.0);
        }
        let s = get(socket)?;
        recv(&s, &mut IoCursor::one(buf.cast(), len), flags)
    }))
}

/// `rrecvfrom(3)`: as `rrecv`, also storing the peer's address in `src_addr` / `*addrlen` when data arrived and
/// `src_addr` is given (on a datagram rsocket: the datagram's sender, at most `*addrlen` bytes, `*addrlen` set to
/// the full size). Returns the byte count, or -1 with `errno`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rrecvfrom(
    socket: c_int,
    buf: *mut c_void,
    len: usize,
    flags: c_int,
    src_addr: *mut sockaddr,
    addrlen: *mut socklen_t,
) -> ssize_t {
    if let Some(d) = dgram::lookup(socket) {
        return ssize(ffi::boundary("rrecvfrom", || {
            if buf.is_null() && len > 0 {
                return Err(Errno::EFAULT);
            }
            let (n, from) = dgram::recv(&d, &mut IoCursor::one(buf.cast(), len), flags)?;
            // SAFETY: the caller's address buffer (checked for NULL there).
            unsafe { dgram::store_addr(&from, src_addr, addrlen) };
            Ok(n)
        }));
    }
    // SAFETY: the caller's contract is rrecv's.
    let n = unsafe { rrecv(socket, buf, len, flags) };
    if n > 0 && !src_addr.is_null() {
        // SAFETY: as rgetpeername's.
        unsafe { rgetpeername(socket, src_addr, addrlen) };
    }
    n
}

/// `rrecvmsg(3)`: receives into the iovecs of `msg`, like `recvmsg(2)` with `flags` as for `rrecv` (a datagram's
/// sender goes to `msg_name` / `msg_namelen` when given). Ancillary data is not supported (`EOPNOTSUPP` when
/// `msg_control` is given). Returns the byte count, or -1 with `errno`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rrecvmsg(socket: c_int, msg: *mut msghdr, flags: c_int) -> ssize_t {
    ssize(ffi::boundary("rrecvmsg", || {
        let mp = ffi::nonnull(msg)?;
        // SAFETY: the caller's msghdr.
        let m = unsafe { mp.as_ptr().read() };
        if !m.msg_control.is_null() && m.msg_controllen > 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        // SAFETY: the msghdr's iovecs (the caller's contract).
        let mut c = unsafe { IoCursor::from_iov(m.msg_iov, m.msg_iovlen as c_int) }?;
        if let Some(d) = dgram::lookup(socket) {
            let (n, from) = dgram::recv(&d, &mut c, flags)?;
            if !m.msg_name.is_null() {
                // SAFETY: the caller's name buffer of `msg_namelen` bytes; the length is written back.
                unsafe { dgram::store_addr(&from, m.msg_name.cast(), addr_of_mut!((*mp.as_ptr()).msg_namelen)) };
            }
            return Ok(n);
        }
        let s = get(socket)?;
        recv(&s, &mut c, flags)
    }))
}

/// `rsend(3)`: sends the `len` bytes at `buf` on rsocket `socket`, like `send(2)` (`flags`: `MSG_DONTWAIT`).
/// Returns the bytes queued (fewer when non-blocking and the peer's window filled), or -1 with `errno` (`EBADF`,
/// `ENOTCONN`, `EAGAIN`, `EPIPE` after a shutdown or when the peer closed, `EPROTO` / `ECONNRESET` once the
/// connection failed, as `rrecv`). On a datagram rsocket: one datagram to
/// the `rconnect` destination (`EDESTADDRREQ` without one, `EMSGSIZE` above 2040 bytes for IPv4, 2024 for IPv6).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rsend(socket: c_int, buf: *const c_void, len: usize, flags: c_int) -> ssize_t {
    ssize(ffi::boundary("rsend", || {
        if buf.is_null() && len > 0 {
            return Err(Errno::EFAULT);
        }
        if let Some(d) = dgram::lookup(socket) {
            return dgram::send(&d, &mut IoCursor::one(buf.cast_mut().cast(), len), flags, None);
        }
        let s = get(socket)?;
        send(&s, &mut IoCursor::one(buf.cast_mut().cast(), len), flags)
    }))
}

/// `rsendto(3)`: `rsend` on a connected stream rsocket; a destination address is `EISCONN`. On a datagram rsocket
/// one datagram to `dest_addr` (`sockaddr_in` / `sockaddr_in6` of `addrlen` bytes; NULL: the `rconnect`
/// destination), errors as `rsend`'s plus `EINVAL` / `EAFNOSUPPORT` for a bad address. Returns the bytes sent, or -1
/// with `errno`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rsendto(
    socket: c_int,
    buf: *const c_void,
    len: usize,
    flags: c_int,
    dest_addr: *const sockaddr,
    addrlen: socklen_t,
) -> ssize_t {
    if let Some(d) = dgram::lookup(socket) {
        return ssize(ffi::boundary("rsendto", || {
            if buf.is_null() && len > 0 {
                return Err(Errno::EFAULT);
            }
            let mut c = IoCursor::one(buf.cast_mut().cast(), len);
            if dest_addr.is_null() {
                return dgram::send(&d, &mut c, flags, None);
            }
            // SAFETY: the caller's address of `addrlen` bytes.
            let a = unsafe { dgram::from_sockaddr(dest_addr, addrlen) }?;
            dgram::send(&d, &mut c, flags, Some(a))
        }));
    }
    if lookup(socket).is_some() && (!dest_addr.is_null() || addrlen != 0) {
        Errno::EISCONN.set();
        return -1;
    }
    // SAFETY: rsend's contract.
    unsafe { rsend(socket, buf, len, flags) }
}

/// `rsendmsg(3)`: sends the iovecs of `msg`, like `sendmsg(2)` (a datagram to `msg_name` when given). Ancillary
/// data is `EOPNOTSUPP`. Returns the bytes sent, or -1 with `errno`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rsendmsg(socket: c_int, msg: *const msghdr, flags: c_int) -> ssize_t {
    ssize(ffi::boundary("rsendmsg", || {
        let m = ffi::nonnull_const(msg)?;
        // SAFETY: the caller's msghdr.
        let m = unsafe { m.as_ptr().read() };
        if !m.msg_control.is_null() && m.msg_controllen > 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        // SAFETY: the msghdr's iovecs.
        let mut c = unsafe { IoCursor::from_iov(m.msg_iov, m.msg_iovlen as c_int) }?;
        if let Some(d) = dgram::lookup(socket) {
            let to = if m.msg_name.is_null() {
                None
            } else {
                // SAFETY: the caller's address of `msg_namelen` bytes.
                Some(unsafe { dgram::from_sockaddr(m.msg_name.cast(), m.msg_namelen) }?)
            };
            return dgram::send(&d, &mut c, flags, to);
        }
        let s = get(socket)?;
        send(&s, &mut c, flags)
    }))
}

/// `rread(3)`: `rrecv` without flags, like `read(2)`. Returns the byte count (0 at end of stream), or -1 with
/// `errno`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rread(socket: c_int, buf: *mut c_void, count: usize) -> ssize_t {
    // SAFETY: rrecv's contract.
    unsafe { rrecv(socket, buf, count, 0) }
}

/// `rreadv(3)`: reads into the `iovcnt` iovecs at `iov`, like `readv(2)`. Returns the byte count, or -1 with
/// `errno` (`EINVAL` for a negative count).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rreadv(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t {
    ssize(ffi::boundary("rreadv", || {
        // SAFETY: the caller's iovecs.
        let mut c = unsafe { IoCursor::from_iov(iov, iovcnt) }?;
        if let Some(d) = dgram::lookup(socket) {
            return dgram::recv(&d, &mut c, 0).map(|r| r.0);
        }
        let s = get(socket)?;
        recv(&s, &mut c, 0)
    }))
}

/// `rwrite(3)`: `rsend` without flags, like `write(2)`. Returns the bytes written, or -1 with `errno`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rwrite(socket: c_int, buf: *const c_void, count: usize) -> ssize_t {
    // SAFETY: rsend's contract.
    unsafe { rsend(socket, buf, count, 0) }
}

/// `rwritev(3)`: writes the `iovcnt` iovecs at `iov`, like `writev(2)`. Returns the bytes written, or -1 with
/// `errno`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rwritev(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t {
    ssize(ffi::boundary("rwritev", || {
        // SAFETY: the caller's iovecs.
        let mut c = unsafe { IoCursor::from_iov(iov, iovcnt) }?;
        if let Some(d) = dgram::lookup(socket) {
            return dgram::send(&d, &mut c, 0, None);
        }
        let s = get(socket)?;
        send(&s, &mut c, 0)
    }))
}

/// `rpoll(3)`: waits up to `timeout` milliseconds (-1: forever) for events on the `nfds` entries of `fds`, like
/// `poll(2)`; rsockets and ordinary descriptors may be mixed. An rsocket reports `POLLIN` when data (or end of
/// stream) is there, `POLLOUT` when a send would not block, `POLLHUP` once the peer closed and what it sent
/// before has been read (rdma-core: at once), `POLLERR` after a
/// failure (a failed non-blocking connect: `POLLOUT | POLLERR`, the reason in `SO_ERROR`); a datagram rsocket
/// `POLLIN` when a datagram is queued, `POLLOUT` while a send slot is free. Returns the number of
/// entries with events, 0 on timeout, or -1 with `errno` (`EINTR`, `EFAULT`, `EINVAL`, `ENOMEM`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rpoll(fds: *mut pollfd, nfds: nfds_t, timeout: c_int) -> c_int {
    ffi::boundary("rpoll", || -> Result<c_int> {
        if nfds == 0 {
            // SAFETY: poll(2) with no descriptors is a sleep.
            return Ok(unsafe { libc::poll(null_mut(), 0, timeout) });
        }
        if fds.is_null() {
            return Err(Errno::EFAULT);
        }
        if nfds > (1 << 20) {
            return Err(Errno::EINVAL);
        }
        // SAFETY: the caller's array of `nfds` entries.
        let fds = unsafe { std::slice::from_raw_parts_mut(fds, nfds as usize) };
        poll::rpoll(fds, timeout)
    })
    .or_minus_one_errno()
}

/// `rselect(3)`: waits for the descriptors below `nfds` that are in `readfds`, `writefds` or `exceptfds` (each
/// optional) to become ready, up to `timeout` (NULL: forever), like `select(2)`, rsockets and ordinary descriptors
/// mixed. On return the sets hold the ready descriptors and the result counts the bits set (0 on timeout), or it is
/// -1 with `errno` (sets cleared).
///
/// As in rdma-core, this is `rpoll` underneath: a descriptor is readable on `POLLIN` or `POLLHUP`, writable on
/// `POLLOUT`, exceptional on any other event (`POLLERR`, `POLLNVAL`, `POLLPRI`...); `*timeout` is not modified,
/// and is honoured with millisecond granularity (rounded up). Unlike rdma-core, descriptor 0 is polled too, and
/// `nfds` is limited to `FD_SETSIZE`; a negative `nfds` is `EINVAL`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rselect(
    nfds: c_int,
    readfds: *mut fd_set,
    writefds: *mut fd_set,
    exceptfds: *mut fd_set,
    timeout: *mut timeval,
) -> c_int {
    // SAFETY: the caller's contract is select(2)'s.
    ffi::boundary("rselect", || unsafe { poll::rselect(nfds, readfds, writefds, exceptfds, timeout) })
        .or_minus_one_errno()
}

/// `rgetpeername(3)`: stores the peer's address of rsocket `socket` in `addr`, at most `*addrlen` bytes, and sets
/// `*addrlen` to its full size, like `getpeername(2)` (a datagram rsocket's is its UDP socket's: `ENOTCONN` before
/// `rconnect`). Returns 0, or -1 with `errno` (`EBADF`, `ENOTCONN` for a stream rsocket that has no connection: not
/// connected yet, listening, or whose connection attempt failed (rdma-core copies whatever address the id holds); a
/// connection that ended still names its peer, as TCP's; `EFAULT` for a NULL `addrlen`, or a NULL `addr` with
/// room).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rgetpeername(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int {
    ffi::boundary("rgetpeername", || -> Result<c_int> {
        if let Some(d) = dgram::lookup(socket) {
            return dgram::name(&d, true, addr, addrlen).map(|_| 0);
        }
        let s = get(socket)?;
        let g = locked(&s)?;
        if g.qp().is_null() || g.state == RS_CONNECT_ERROR || (g.state & RS_OPENING != 0 && g.state != RS_ACCEPTING) {
            return Err(Errno::ENOTCONN);
        }
        // SAFETY: the id is live; its destination is a socket address.
        unsafe { copy_addr(addr_of!((*g.id).route.addr.dst).cast(), addr, addrlen) }?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rgetsockname(3)`: stores the local address of rsocket `socket` in `addr` / `*addrlen`, like `getsockname(2)`
/// (a datagram rsocket's is its UDP socket's; a NULL `addr` with `*addrlen` 0 only learns the size). Returns 0, or -1
/// with `errno` (`EBADF`, `EFAULT` for a NULL `addrlen`, or a NULL `addr` with room).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rgetsockname(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int {
    ffi::boundary("rgetsockname", || -> Result<c_int> {
        if let Some(d) = dgram::lookup(socket) {
            return dgram::name(&d, false, addr, addrlen).map(|_| 0);
        }
        let s = get(socket)?;
        let g = locked(&s)?;
        // SAFETY: the id is live; its source is a socket address.
        unsafe { copy_addr(addr_of!((*g.id).route.addr.src).cast(), addr, addrlen) }?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rsetsockopt(3)`: sets option `optname` of `level` from the `optlen` bytes at `optval`, like `setsockopt(2)`:
/// `SOL_SOCKET` (`SO_REUSEADDR`, `SO_RCVBUF`, `SO_SNDBUF` before connecting, `SO_LINGER`, `SO_KEEPALIVE`,
/// `SO_OOBINLINE`), `IPPROTO_TCP` (`TCP_NODELAY`, `TCP_MAXSEG`, `TCP_KEEPIDLE` seconds, `TCP_KEEPCNT`, `TCP_KEEPINTVL`,
/// and rdma-core 65's `TCP_CONGESTION`, accepted and ignored), `IPPROTO_IP` (rdma-core 65's `IP_TOS`: the id's type of
/// service), `IPPROTO_IPV6` (`IPV6_V6ONLY`), `SOL_RDMA` before connecting (`RDMA_SQSIZE`, `RDMA_RQSIZE`, `RDMA_INLINE`,
/// `RDMA_IOMAPSIZE`: `int`s; `RDMA_ROUTE`: `struct ibv_path_data[]`). Returns 0, or -1 with `errno` (`EBADF`;
/// `EOPNOTSUPP` for other options; `EINVAL` for a short value, or `SOL_RDMA` once connecting). A datagram rsocket
/// passes options of other levels than `SOL_RDMA` to its UDP socket first (its error is the answer), then keeps what
/// rdma-core keeps for datagrams (see `options::dgram_set`; no `IPPROTO_TCP` options).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rsetsockopt(
    socket: c_int,
    level: c_int,
    optname: c_int,
    optval: *const c_void,
    optlen: socklen_t,
) -> c_int {
    ffi::boundary("rsetsockopt", || -> Result<c_int> {
        if let Some(d) = dgram::lookup(socket) {
            return options::dgram_set(&d, level, optname, optval, optlen).map(|_| 0);
        }
        let s = get(socket)?;
        options::set(&s, level, optname, optval, optlen)?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rgetsockopt(3)`: reads option `optname` of `level` into `optval` (`*optlen` bytes of room, updated), like
/// `getsockopt(2)`: the options `rsetsockopt` takes, plus `SO_ERROR` (the last connection error, then cleared).
/// `SO_RCVBUF`/`SO_SNDBUF` are the buffer sizes in bytes; `TCP_MAXSEG` the path MTU (2048 before a route); rdma-core
/// 65's `SO_BROADCAST` (0), `TCP_CONGESTION` (the int 1, as 65 answers) and `TCP_INFO` (a zeroed `struct tcp_info`
/// with `tcpi_state` and `tcpi_snd_cwnd`, truncated to `*optlen`).
/// Returns 0, or -1 with `errno` (`EBADF`, `EOPNOTSUPP`, `EINVAL` for too little room or NULL pointers). A
/// datagram rsocket answers the `SOL_SOCKET`, `IPV6_V6ONLY` and `SOL_RDMA` sizes it keeps (`SO_ERROR` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rgetsockopt(
    socket: c_int,
    level: c_int,
    optname: c_int,
    optval: *mut c_void,
    optlen: *mut socklen_t,
) -> c_int {
    ffi::boundary("rgetsockopt", || -> Result<c_int> {
        if let Some(d) = dgram::lookup(socket) {
            return options::dgram_get(&d, level, optname, optval, optlen).map(|_| 0);
        }
        let s = get(socket)?;
        options::get(&s, level, optname, optval, optlen)?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `rfcntl(3)`: descriptor control of rsocket `socket`, like `fcntl(2)`: `F_GETFL` returns the file status flags,
/// `F_SETFL` sets them from `arg` (`O_NONBLOCK` makes every call non-blocking); `F_GETFD` / `F_SETFD` (rdma-core 65;
/// what `librspreload`'s `accept4` uses) read and store the descriptor flags (`FD_CLOEXEC`), which change nothing
/// else. Returns the value (0 for the setters), or -1 with `errno` (`EBADF`; `EOPNOTSUPP` for other commands).
///
/// C declares it `int rfcntl(int socket, int cmd, ...)`; `arg` is the optional third argument (see the module
/// docs).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rfcntl(socket: c_int, cmd: c_int, arg: usize) -> c_int {
    ffi::boundary("rfcntl", || -> Result<c_int> {
        if let Some(d) = dgram::lookup(socket) {
            return options::dgram_fcntl(&d, cmd, arg);
        }
        let s = get(socket)?;
        options::fcntl(&s, cmd, arg)
    })
    .or_minus_one_errno()
}

/// `riomap(3)`: registers the `len` bytes at `buf` of connected rsocket `socket` for the peer's `riowrite` at
/// `offset` (-1: the address of `buf`); `prot` is `PROT_WRITE` (announced to the peer before the next send) or
/// `PROT_NONE`, `flags` 0. Returns the offset used, or -1 with `errno` (`EBADF`; `EINVAL` for other `prot` or no
/// connection; `ENOMEM` when the peer's table, sized by its `RDMA_IOMAPSIZE`, is full; `ibv_reg_mr`'s;
/// `EOPNOTSUPP` for a datagram rsocket).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn riomap(
    socket: c_int,
    buf: *mut c_void,
    len: usize,
    prot: c_int,
    flags: c_int,
    offset: off_t,
) -> off_t {
    let _ = flags;
    match ffi::boundary("riomap", || {
        not_dgram(socket)?;
        let s = get(socket)?;
        let mut g = s.inner.lock();
        iomap::map(&mut g, buf, len, prot, offset)
    }) {
        Ok(o) => o,
        Err(e) => {
            e.set();
            -1
        }
    }
}

/// `riounmap(3)`: withdraws the `riomap` registration of exactly the `len` bytes at `buf`. Returns 0, or -1 with
/// `errno` (`EBADF`; `EINVAL` when no such mapping exists; `EOPNOTSUPP` for a datagram rsocket).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn riounmap(socket: c_int, buf: *mut c_void, len: usize) -> c_int {
    ffi::boundary("riounmap", || -> Result<c_int> {
        not_dgram(socket)?;
        let s = get(socket)?;
        let mut g = s.inner.lock();
        iomap::unmap(&mut g, buf, len)?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `riowrite(3)`: writes the `count` bytes at `buf` straight into the peer's memory mapped (by its `riomap`) at
/// `offset`; `flags`: `MSG_DONTWAIT`. Returns the bytes written (fewer when the mapping ends, 0 when no mapping
/// holds `offset`), or `(size_t) -1` with `errno` (`EBADF`, `ENOTCONN`, `EAGAIN`, `EPIPE`; `EPROTO` for an entry
/// of the peer's table that wraps around, and once the connection failed, `ECONNRESET` as `rrecv`; `EOPNOTSUPP` for
/// a datagram rsocket).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn riowrite(
    socket: c_int,
    buf: *const c_void,
    count: usize,
    offset: off_t,
    flags: c_int,
) -> usize {
    match ffi::boundary("riowrite", || {
        not_dgram(socket)?;
        let s = get(socket)?;
        if buf.is_null() && count > 0 {
            return Err(Errno::EFAULT);
        }
        // An accepted rsocket may still be completing its accept (as before rsend).
        finish_connect(&s, flags)?;
        iomap::write(&s, buf.cast(), count, offset as u64, flags)
    }) {
        Ok(n) => n,
        Err(e) => {
            e.set();
            usize::MAX
        }
    }
}

/// `repoll_create(3)` (RDMACM_1.5, rdma-core 65): creates an epoll instance that watches rsockets and ordinary
/// descriptors, like `epoll_create1(2)`; `flags` `EPOLL_CLOEXEC` and `O_NONBLOCK` apply to the instance's number,
/// other bits are ignored (as in rdma-core 65). Close it with `rclose`. Returns the number (a descriptor of the
/// process), or -1 with `errno` (`eventfd(2)`'s: `EMFILE`, `ENFILE`, `ENOMEM`). The semantics, and where they differ
/// from rdma-core 65's, are in `docs/cm.md` ("repoll").
#[unsafe(no_mangle)]
pub unsafe extern "C" fn repoll_create(flags: c_int) -> c_int {
    ffi::boundary("repoll_create", || epoll::create(flags)).or_minus_one_errno()
}

/// `repoll_ctl(3)` (RDMACM_1.5, rdma-core 65): adds (`EPOLL_CTL_ADD`), changes (`EPOLL_CTL_MOD`) or removes
/// (`EPOLL_CTL_DEL`) descriptor `fd` (an rsocket or any other) in the interest list of instance `epfd`, with the
/// events and data of `*event` (read for ADD and MOD: `EPOLLIN`, `EPOLLOUT`, `EPOLLPRI`, `EPOLLRDHUP`,
/// `EPOLLONESHOT`; `EPOLLET` is accepted and the instance stays level-triggered), like `epoll_ctl(2)`; a thread
/// waiting in `repoll_wait` sees the change at once. Returns 0, or -1 with `errno`: `EBADF` for a negative `fd`,
/// `EINVAL` for `fd` == `epfd`, an `epfd` that is no instance (rdma-core's answer; `epoll_ctl` says `EBADF` when it is
/// no descriptor at all) or an unknown `op`, `EEXIST` / `ENOENT` for an `fd` already / not listed, `EFAULT` for a NULL
/// `event` with ADD or MOD (rdma-core 65 crashes). rdma-core 65 returns these errnos as positive values instead.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn repoll_ctl(epfd: c_int, op: c_int, fd: c_int, event: *mut epoll_event) -> c_int {
    ffi::boundary("repoll_ctl", || -> Result<c_int> {
        // SAFETY: NULL or the caller's readable epoll_event (a packed struct: read unaligned).
        let ev = unsafe { (!event.is_null()).then(|| event.read_unaligned()) };
        epoll::ctl(epfd, op, fd, ev)?;
        Ok(0)
    })
    .or_minus_one_errno()
}

/// `repoll_wait(3)` (RDMACM_1.5, rdma-core 65): waits up to `timeout` milliseconds (-1: forever, 0: not at all) for
/// the descriptors listed in instance `epfd` to become ready, like `epoll_wait(2)`, and stores at most `maxevents`
/// ready ones in `events` (their events and data; `EPOLLERR` and `EPOLLHUP` whether asked or not). Returns their
/// count, 0 on timeout or when another thread closed the instance meanwhile, or -1 with `errno`: `EINVAL` for an
/// `epfd` that is no instance or `maxevents` <= 0 (rdma-core 65 writes one event past a 0-sized array there),
/// `EFAULT` for a NULL `events`, `rpoll`'s errors. rdma-core 65 returns its errnos as positive values instead.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn repoll_wait(epfd: c_int, events: *mut epoll_event, maxevents: c_int, timeout: c_int) -> c_int {
    ffi::boundary("repoll_wait", || -> Result<c_int> {
        if maxevents <= 0 {
            return Err(Errno::EINVAL);
        }
        if events.is_null() {
            return Err(Errno::EFAULT);
        }
        let got = epoll::wait(epfd, maxevents as usize, timeout)?;
        for (i, e) in got.iter().enumerate() {
            // SAFETY: the caller's array of `maxevents` entries; `got` has at most that many.
            unsafe { events.add(i).write_unaligned(*e) };
        }
        Ok(got.len() as c_int)
    })
    .or_minus_one_errno()
}

rdma_common::check_signatures!(rdma_common::abi::rsocket;
    rsocket, rbind, rlisten, raccept, rconnect, rshutdown, rclose, rrecv, rrecvfrom, rrecvmsg, rsend, rsendto,
    rsendmsg, rread, rreadv, rwrite, rwritev, rpoll, rselect, rgetpeername, rgetsockname, rsetsockopt, rgetsockopt,
    riomap, riounmap, riowrite, repoll_create, repoll_ctl, repoll_wait);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpoll_polls_ordinary_descriptors() {
        let mut p = [0; 2];
        // SAFETY: p is a 2-int array for pipe(2).
        assert_eq!(unsafe { libc::pipe(p.as_mut_ptr()) }, 0);
        let mut fds = [
            pollfd { fd: p[0], events: libc::POLLIN, revents: 0 },
            pollfd { fd: p[1], events: libc::POLLOUT, revents: 0 },
        ];
        // SAFETY: fds is a valid 2-entry array.
        assert_eq!(unsafe { rpoll(fds.as_mut_ptr(), 2, 0) }, 1);
        assert_eq!((fds[0].revents, fds[1].revents), (0, libc::POLLOUT));
        // SAFETY: writing one byte from a valid buffer to the pipe.
        assert_eq!(unsafe { libc::write(p[1], b"x".as_ptr().cast(), 1) }, 1);
        // SAFETY: as above.
        assert_eq!(unsafe { rpoll(fds.as_mut_ptr(), 2, 100) }, 2);
        assert_eq!(fds[0].revents, libc::POLLIN);
        // A timeout with nothing ready.
        let mut one = [pollfd { fd: p[0], events: libc::POLLOUT, revents: 0 }];
        let mut empty = [0u8; 1];
        // SAFETY: draining the byte written.
        assert_eq!(unsafe { libc::read(p[0], empty.as_mut_ptr().cast(), 1) }, 1);
        one[0].events = libc::POLLIN;
        // SAFETY: a valid 1-entry array.
        assert_eq!(unsafe { rpoll(one.as_mut_ptr(), 1, 30) }, 0);

        // rselect over the same pipe: readable read end, writable write end.
        // SAFETY: zeroed fd_sets are empty; FD_SET on descriptors below FD_SETSIZE.
        unsafe {
            assert_eq!(libc::write(p[1], b"x".as_ptr().cast(), 1), 1);
            let mut r: fd_set = std::mem::zeroed();
            let mut w: fd_set = std::mem::zeroed();
            libc::FD_SET(p[0], &mut r);
            libc::FD_SET(p[1], &mut w);
            libc::FD_SET(p[1], &mut r);
            let mut tv = timeval { tv_sec: 0, tv_usec: 0 };
            let n = rselect(p[1] + 1, &mut r, &mut w, std::ptr::null_mut(), &mut tv);
            assert_eq!(n, 2);
            assert!(libc::FD_ISSET(p[0], &r) && !libc::FD_ISSET(p[1], &r) && libc::FD_ISSET(p[1], &w));
            libc::close(p[0]);
            libc::close(p[1]);
        }
    }

    #[test]
    fn timeouts() {
        use poll::timeout_ms;
        assert_eq!(timeout_ms(None), -1);
        assert_eq!(timeout_ms(Some(&timeval { tv_sec: 1, tv_usec: 500 })), 1001);
        assert_eq!(timeout_ms(Some(&timeval { tv_sec: 0, tv_usec: 0 })), 0);
        assert_eq!(timeout_ms(Some(&timeval { tv_sec: i64::MAX, tv_usec: 0 })), c_int::MAX);
    }

    #[test]
    fn non_rsockets_are_ebadf() {
        let mut b = [0u8; 4];
        // SAFETY: descriptor 12345 is not an rsocket; buffers are valid.
        unsafe {
            assert_eq!(rsend(12345, b.as_ptr().cast(), 4, 0), -1);
            assert_eq!(Errno::last(), Errno::EBADF);
            assert_eq!(rrecv(12345, b.as_mut_ptr().cast(), 4, 0), -1);
            assert_eq!(Errno::last(), Errno::EBADF);
            assert_eq!(rclose(12345), -1);
            assert_eq!(Errno::last(), Errno::EBADF);
            assert_eq!(riowrite(12345, b.as_ptr().cast(), 4, 0, 0), usize::MAX);
            assert_eq!(Errno::last(), Errno::EBADF);
            assert_eq!(rfcntl(12345, libc::F_GETFL, 0), -1);
            assert_eq!(Errno::last(), Errno::EBADF);
        }
    }

    #[test]
    fn bad_socket_types() {
        // SAFETY: no pointers.
        unsafe {
            assert_eq!(rsocket(libc::AF_UNIX, libc::SOCK_STREAM, 0), -1);
            assert_eq!(Errno::last(), Errno::EOPNOTSUPP);
            assert_eq!(rsocket(libc::AF_INET, libc::SOCK_STREAM, libc::IPPROTO_UDP), -1);
            assert_eq!(Errno::last(), Errno::EOPNOTSUPP);
            assert_eq!(rsocket(libc::AF_INET, libc::SOCK_DGRAM, libc::IPPROTO_TCP), -1);
            assert_eq!(Errno::last(), Errno::EOPNOTSUPP);
            // AF_IB has no UDP socket for the address service (rdma-core fails in socket(2) too).
            assert_eq!(rsocket(AF_IB, libc::SOCK_DGRAM, 0), -1);
            assert_eq!(Errno::last(), Errno(libc::EAFNOSUPPORT));
            // A datagram rsocket needs no device until it sends or is bound: its UDP socket is its number.
            let d = rsocket(libc::AF_INET, libc::SOCK_DGRAM, 0);
            assert!(d >= 0);
            let mut b = [0u8; 4];
            assert_eq!(rsend(d, b.as_ptr().cast(), 4, 0), -1);
            assert_eq!(Errno::last(), Errno(libc::EDESTADDRREQ));
            assert_eq!(rrecv(d, b.as_mut_ptr().cast(), 4, libc::MSG_DONTWAIT), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            assert_eq!(rlisten(d, 1), -1);
            assert_eq!(Errno::last(), Errno::EOPNOTSUPP);
            assert_eq!(rclose(d), 0);
            assert_eq!(rclose(d), -1);
            assert_eq!(Errno::last(), Errno::EBADF);
            // rdma-core 65: SOCK_NONBLOCK and SOCK_CLOEXEC become the rsocket's flags.
            let d = rsocket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0);
            assert!(d >= 0);
            assert_eq!(rfcntl(d, libc::F_GETFL, 0), libc::O_NONBLOCK);
            assert_eq!(rfcntl(d, libc::F_GETFD, 0), libc::FD_CLOEXEC);
            assert_eq!(rfcntl(d, libc::F_SETFD, 0), 0);
            assert_eq!(rfcntl(d, libc::F_GETFD, 0), 0);
            assert_eq!(rfcntl(d, libc::F_DUPFD, 0), -1);
            assert_eq!(Errno::last(), Errno::EOPNOTSUPP);
            // getsockname(2)'s size question (NULL address, no room), which librspreload asks.
            let mut len: socklen_t = 0;
            assert_eq!(rgetsockname(d, null_mut(), &mut len), 0);
            assert_eq!(len as usize, size_of::<libc::sockaddr_in>());
            assert_eq!(rclose(d), 0);
            assert_eq!(rsocket(libc::AF_INET, libc::SOCK_RAW | libc::SOCK_NONBLOCK, 0), -1);
            assert_eq!(Errno::last(), Errno::EOPNOTSUPP);
        }
    }

    #[test]
    fn repoll_entry_points() {
        // SAFETY: valid arrays and NULLs the calls must refuse.
        unsafe {
            let e = repoll_create(libc::EPOLL_CLOEXEC);
            assert!(e >= 0);
            let mut p = [0; 2];
            assert_eq!(libc::pipe(p.as_mut_ptr()), 0);
            let mut ev = epoll_event { events: libc::EPOLLOUT as u32, u64: 0x1234 };
            assert_eq!(repoll_ctl(e, libc::EPOLL_CTL_ADD, p[1], &mut ev), 0);
            assert_eq!(repoll_ctl(e, libc::EPOLL_CTL_ADD, p[1], &mut ev), -1);
            assert_eq!(Errno::last(), Errno(libc::EEXIST));
            assert_eq!(repoll_ctl(e, libc::EPOLL_CTL_MOD, p[1], null_mut()), -1);
            assert_eq!(Errno::last(), Errno::EFAULT);
            assert_eq!(repoll_ctl(p[0], libc::EPOLL_CTL_ADD, p[1], &mut ev), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            let mut out = [epoll_event { events: 0, u64: 0 }; 4];
            assert_eq!(repoll_wait(e, out.as_mut_ptr(), 4, -1), 1);
            assert_eq!(({ out[0].events }, { out[0].u64 }), (libc::EPOLLOUT as u32, 0x1234));
            assert_eq!(repoll_wait(e, out.as_mut_ptr(), 0, 0), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            assert_eq!(repoll_wait(e, null_mut(), 4, 0), -1);
            assert_eq!(Errno::last(), Errno::EFAULT);
            // Not an rsocket for the other calls; closed with rclose, listed descriptors or not.
            assert_eq!(rfcntl(e, libc::F_GETFL, 0), -1);
            assert_eq!(Errno::last(), Errno::EBADF);
            assert_eq!(rclose(e), 0);
            assert_eq!(repoll_wait(e, out.as_mut_ptr(), 4, 0), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            libc::close(p[0]);
            libc::close(p[1]);
        }
    }

    #[test]
    fn iovec_cursor() {
        let mut a = [0u8; 3];
        let mut b = [0u8; 4];
        let iov = [
            iovec { iov_base: a.as_mut_ptr().cast(), iov_len: 3 },
            iovec { iov_base: b.as_mut_ptr().cast(), iov_len: 4 },
        ];
        // SAFETY: two valid iovecs.
        let mut c = unsafe { IoCursor::from_iov(iov.as_ptr(), 2) }.unwrap();
        assert_eq!(c.total(), 7);
        c.write(b"hello".as_ptr(), 5);
        c.write(b"!?".as_ptr(), 2);
        assert_eq!((&a, &b), (b"hel", b"lo!?"));
        // SAFETY: as above.
        let mut c = unsafe { IoCursor::from_iov(iov.as_ptr(), 2) }.unwrap();
        let mut out = [0u8; 7];
        c.read(out.as_mut_ptr(), 7);
        assert_eq!(&out, b"hello!?");
        // SAFETY: a negative count is refused before any read.
        assert!(unsafe { IoCursor::from_iov(iov.as_ptr(), -1) }.is_err());
    }
}
