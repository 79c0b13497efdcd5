//! The rsocket calls of `<rdma/rsocket.h>`: socket-API look-alikes that carry a byte stream or datagrams over
//! RDMA (`rsocket(7)`).
//!
//! No rsocket can be created yet (`rsocket` answers `EOPNOTSUPP`), so every descriptor these calls see is an
//! ordinary one. rdma-core's `rpoll` and `rselect` accept ordinary descriptors next to rsockets and poll them with
//! `poll(2)`; perftest and rping use `rpoll` that way, so [`rpoll`] is `poll(2)` and [`rselect`] is rdma-core's
//! select-over-poll conversion. Every other call answers -1 with `errno` = `EOPNOTSUPP` (rdma-core answers
//! `EBADF` for a descriptor that is not an rsocket).
//!
//! `rfcntl` is C-variadic (`int rfcntl(int socket, int cmd, ...)`). Stable Rust cannot define a variadic function,
//! so ours names the one optional argument `fcntl(2)` commands take (an `int` or a pointer, passed in the same
//! integer register as a fixed argument on x86-64 and AArch64 Linux); it is left out of `check_signatures!`.

#![allow(unsafe_code)] // #[no_mangle] C entry points
#![allow(unused_variables)] // stubs: parameters keep their C names until implemented

use crate::unsupported;
use libc::{fd_set, iovec, msghdr, nfds_t, off_t, pollfd, sockaddr, socklen_t, ssize_t, timeval};
use rdma_common::Errno;
use std::ffi::{c_int, c_void};

/// -1 (as the return type of the call) with `errno` = `EOPNOTSUPP`, after logging once that `what` is missing.
#[cold]
fn not_supported<T: From<i8>>(what: &'static str) -> T {
    unsupported(what).set();
    T::from(-1)
}

/// `rsocket(3)`: creates an rsocket of `domain` (`AF_INET`, `AF_INET6`, `AF_IB`), `type` (`SOCK_STREAM`,
/// `SOCK_DGRAM`) and `protocol` (0), like `socket(2)`. Returns its descriptor, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rsocket(domain: c_int, r#type: c_int, protocol: c_int) -> c_int {
    not_supported("rsocket")
}

/// `rbind(3)`: binds rsocket `socket` to the `addrlen` bytes of address `addr`, like `bind(2)`. Returns 0, or -1
/// with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rbind(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int {
    not_supported("rbind")
}

/// `rlisten(3)`: marks rsocket `socket` as accepting connections, at most `backlog` pending, like `listen(2)`.
/// Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rlisten(socket: c_int, backlog: c_int) -> c_int {
    not_supported("rlisten")
}

/// `raccept(3)`: takes the next connection of listening rsocket `socket`, storing the peer's address in `addr` /
/// `*addrlen` when given, like `accept(2)`. Returns the new rsocket, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn raccept(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int {
    not_supported("raccept")
}

/// `rconnect(3)`: connects rsocket `socket` to the `addrlen` bytes of address `addr`, like `connect(2)`
/// (`EINPROGRESS` when non-blocking). Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rconnect(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int {
    not_supported("rconnect")
}

/// `rshutdown(3)`: shuts down reception, transmission or both (`SHUT_RD`, `SHUT_WR`, `SHUT_RDWR`) of rsocket
/// `socket`, like `shutdown(2)`. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rshutdown(socket: c_int, how: c_int) -> c_int {
    not_supported("rshutdown")
}

/// `rclose(3)`: closes rsocket `socket`, like `close(2)`. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP` (the descriptor is not closed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rclose(socket: c_int) -> c_int {
    not_supported("rclose")
}

/// `rrecv(3)`: receives up to `len` bytes into `buf` from rsocket `socket`, like `recv(2)` (`flags`:
/// `MSG_DONTWAIT`, `MSG_PEEK`, `MSG_WAITALL`). Returns the byte count (0 at end of stream), or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rrecv(socket: c_int, buf: *mut c_void, len: usize, flags: c_int) -> ssize_t {
    not_supported("rrecv")
}

/// `rrecvfrom(3)`: as `rrecv`, also storing the sender's address in `src_addr` / `*addrlen` (datagram rsockets),
/// like `recvfrom(2)`. Returns the byte count, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rrecvfrom(
    socket: c_int,
    buf: *mut c_void,
    len: usize,
    flags: c_int,
    src_addr: *mut sockaddr,
    addrlen: *mut socklen_t,
) -> ssize_t {
    not_supported("rrecvfrom")
}

/// `rrecvmsg(3)`: receives into the buffers of `msg`, like `recvmsg(2)` (no control data). Returns the byte count,
/// or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rrecvmsg(socket: c_int, msg: *mut msghdr, flags: c_int) -> ssize_t {
    not_supported("rrecvmsg")
}

/// `rsend(3)`: sends the `len` bytes at `buf` on rsocket `socket`, like `send(2)` (`flags`: `MSG_DONTWAIT`).
/// Returns the bytes sent, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rsend(socket: c_int, buf: *const c_void, len: usize, flags: c_int) -> ssize_t {
    not_supported("rsend")
}

/// `rsendto(3)`: as `rsend`, to address `dest_addr` (datagram rsockets), like `sendto(2)`. Returns the bytes sent,
/// or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rsendto(
    socket: c_int,
    buf: *const c_void,
    len: usize,
    flags: c_int,
    dest_addr: *const sockaddr,
    addrlen: socklen_t,
) -> ssize_t {
    not_supported("rsendto")
}

/// `rsendmsg(3)`: sends the buffers of `msg`, like `sendmsg(2)` (no control data). Returns the bytes sent, or -1
/// with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rsendmsg(socket: c_int, msg: *const msghdr, flags: c_int) -> ssize_t {
    not_supported("rsendmsg")
}

/// `rread(3)`: `rrecv` without flags, like `read(2)`. Returns the byte count, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rread(socket: c_int, buf: *mut c_void, count: usize) -> ssize_t {
    not_supported("rread")
}

/// `rreadv(3)`: receives into the `iovcnt` buffers of `iov`, like `readv(2)`. Returns the byte count, or -1 with
/// `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rreadv(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t {
    not_supported("rreadv")
}

/// `rwrite(3)`: `rsend` without flags, like `write(2)`. Returns the bytes sent, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rwrite(socket: c_int, buf: *const c_void, count: usize) -> ssize_t {
    not_supported("rwrite")
}

/// `rwritev(3)`: sends the `iovcnt` buffers of `iov`, like `writev(2)`. Returns the bytes sent, or -1 with
/// `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rwritev(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t {
    not_supported("rwritev")
}

/// `rpoll(3)`: waits up to `timeout` milliseconds (-1: forever, 0: don't wait) for the events of the `nfds`
/// entries of `fds`, rsockets or ordinary descriptors, like `poll(2)`: sets each `revents` and returns how many
/// entries have some, 0 on timeout, or -1 with `errno` (`EINTR`, `EFAULT`, `EINVAL`, `ENOMEM`).
///
/// Every descriptor is an ordinary one (no rsocket exists yet), so this is exactly `poll(2)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rpoll(fds: *mut pollfd, nfds: nfds_t, timeout: c_int) -> c_int {
    // SAFETY: the caller's contract is poll(2)'s; the kernel validates the array (EFAULT) and its length (EINVAL).
    unsafe { libc::poll(fds, nfds, timeout) }
}

/// A `select` timeout in `poll` milliseconds: -1 for none (wait forever), sub-millisecond remainders rounded up so
/// that the wait is never shorter than asked, saturated at `c_int::MAX`.
fn timeout_ms(timeout: Option<&timeval>) -> c_int {
    match timeout {
        None => -1,
        Some(tv) => {
            let ms = (tv.tv_sec as i128) * 1000 + (tv.tv_usec as i128 + 999) / 1000;
            ms.clamp(0, c_int::MAX as i128) as c_int
        }
    }
}

/// `rselect(3)`: waits for the descriptors below `nfds` that are in `readfds`, `writefds` or `exceptfds` (each
/// optional) to become ready, up to `timeout` (NULL: forever), like `select(2)`. On return the sets hold the ready
/// descriptors and the result counts the bits set (0 on timeout), or it is -1 with `errno` (sets cleared).
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
    if nfds < 0 {
        Errno::EINVAL.set();
        return -1;
    }
    let nfds = nfds.min(libc::FD_SETSIZE as c_int);
    // SAFETY (FD_ISSET/FD_SET/FD_ZERO below): each set pointer is NULL or points to an fd_set (the caller's
    // contract), and every fd is below FD_SETSIZE.
    let in_set = |set: *mut fd_set, fd: c_int| !set.is_null() && unsafe { libc::FD_ISSET(fd, set) };
    let mut polled: Vec<pollfd> = Vec::new();
    for fd in 0..nfds {
        let (r, w, x) = (in_set(readfds, fd), in_set(writefds, fd), in_set(exceptfds, fd));
        if r || w || x {
            let events = if r { libc::POLLIN } else { 0 } | if w { libc::POLLOUT } else { 0 };
            polled.push(pollfd { fd, events, revents: 0 });
        }
    }
    // SAFETY: timeout is NULL or points to a timeval (the caller's contract).
    let ms = timeout_ms(unsafe { timeout.as_ref() });
    // SAFETY: `polled` is a valid array of polled.len() entries.
    let ret = unsafe { rpoll(polled.as_mut_ptr(), polled.len() as nfds_t, ms) };
    for set in [readfds, writefds, exceptfds] {
        if !set.is_null() {
            // SAFETY: see above.
            unsafe { libc::FD_ZERO(set) };
        }
    }
    if ret <= 0 {
        return ret;
    }
    let mut count = 0;
    let mut mark = |set: *mut fd_set, fd: c_int, ready: bool| {
        if ready && !set.is_null() {
            // SAFETY: see above.
            unsafe { libc::FD_SET(fd, set) };
            count += 1;
        }
    };
    for p in &polled {
        mark(readfds, p.fd, p.revents & (libc::POLLIN | libc::POLLHUP) != 0);
        mark(writefds, p.fd, p.revents & libc::POLLOUT != 0);
        mark(exceptfds, p.fd, p.revents & !(libc::POLLIN | libc::POLLOUT) != 0);
    }
    count
}

/// `rgetpeername(3)`: stores the peer's address of connected rsocket `socket` in `addr` / `*addrlen`, like
/// `getpeername(2)`. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rgetpeername(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int {
    not_supported("rgetpeername")
}

/// `rgetsockname(3)`: stores the local address of rsocket `socket` in `addr` / `*addrlen`, like `getsockname(2)`.
/// Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rgetsockname(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int {
    not_supported("rgetsockname")
}

/// `rsetsockopt(3)`: sets option `optname` of `level` (`SOL_SOCKET`, `IPPROTO_TCP`, `IPPROTO_IPV6`, `SOL_RDMA`
/// with `RDMA_SQSIZE`...`RDMA_ROUTE`) from the `optlen` bytes at `optval`, like `setsockopt(2)`. Returns 0, or -1
/// with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rsetsockopt(
    socket: c_int,
    level: c_int,
    optname: c_int,
    optval: *const c_void,
    optlen: socklen_t,
) -> c_int {
    not_supported("rsetsockopt")
}

/// `rgetsockopt(3)`: reads option `optname` of `level` into `optval`, `*optlen` bytes at most (updated), like
/// `getsockopt(2)`. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rgetsockopt(
    socket: c_int,
    level: c_int,
    optname: c_int,
    optval: *mut c_void,
    optlen: *mut socklen_t,
) -> c_int {
    not_supported("rgetsockopt")
}

/// `rfcntl(3)`: descriptor control of rsocket `socket`, like `fcntl(2)`: `F_GETFL` returns the flags, `F_SETFL`
/// sets them from `arg` (only `O_NONBLOCK` matters). Returns the value, or -1 with `errno`.
///
/// C declares it `int rfcntl(int socket, int cmd, ...)`; `arg` is the optional third argument (see the module
/// docs). Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rfcntl(socket: c_int, cmd: c_int, arg: usize) -> c_int {
    not_supported("rfcntl")
}

/// `riomap(3)`: registers the `len` bytes at `buf` as a target of the peer's `riowrite` at `offset` (-1: the
/// address of `buf`), with `prot` `PROT_WRITE` (or `PROT_NONE`) and `flags` 0. Returns the offset used, or -1 with
/// `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn riomap(
    socket: c_int,
    buf: *mut c_void,
    len: usize,
    prot: c_int,
    flags: c_int,
    offset: off_t,
) -> off_t {
    not_supported("riomap")
}

/// `riounmap(3)`: withdraws the `riomap` registration of the `len` bytes at `buf`. Returns 0, or -1 with `errno`.
///
/// Not implemented yet: -1 with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn riounmap(socket: c_int, buf: *mut c_void, len: usize) -> c_int {
    not_supported("riounmap")
}

/// `riowrite(3)`: writes the `count` bytes at `buf` straight into the peer's memory registered with `riomap` at
/// `offset` (`flags` 0). Returns the bytes written, or `(size_t) -1` with `errno` (the prototype's `size_t`).
///
/// Not implemented yet: `(size_t) -1` with `errno` = `EOPNOTSUPP`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn riowrite(
    socket: c_int,
    buf: *const c_void,
    count: usize,
    offset: off_t,
    flags: c_int,
) -> usize {
    unsupported("riowrite").set();
    usize::MAX
}

rdma_common::check_signatures!(rdma_common::abi::rsocket;
    rsocket, rbind, rlisten, raccept, rconnect, rshutdown, rclose, rrecv, rrecvfrom, rrecvmsg, rsend, rsendto,
    rsendmsg, rread, rreadv, rwrite, rwritev, rpoll, rselect, rgetpeername, rgetsockname, rsetsockopt, rgetsockopt,
    riomap, riounmap, riowrite);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpoll_is_poll() {
        let mut p = [0; 2];
        // SAFETY: p is a 2-int array for pipe(2).
        assert_eq!(unsafe { libc::pipe(p.as_mut_ptr()) }, 0);
        let mut fds = [
            pollfd {
                fd: p[0],
                events: libc::POLLIN,
                revents: 0,
            },
            pollfd {
                fd: p[1],
                events: libc::POLLOUT,
                revents: 0,
            },
        ];
        // SAFETY: fds is a valid 2-entry array.
        assert_eq!(unsafe { rpoll(fds.as_mut_ptr(), 2, 0) }, 1);
        assert_eq!((fds[0].revents, fds[1].revents), (0, libc::POLLOUT));
        // SAFETY: writing one byte from a valid buffer to the pipe.
        assert_eq!(unsafe { libc::write(p[1], b"x".as_ptr().cast(), 1) }, 1);
        // SAFETY: as above.
        assert_eq!(unsafe { rpoll(fds.as_mut_ptr(), 2, 100) }, 2);
        assert_eq!(fds[0].revents, libc::POLLIN);

        // rselect over the same pipe: readable read end, writable write end.
        // SAFETY: zeroed fd_sets are empty; FD_SET on descriptors below FD_SETSIZE.
        unsafe {
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
        assert_eq!(timeout_ms(None), -1);
        assert_eq!(
            timeout_ms(Some(&timeval {
                tv_sec: 1,
                tv_usec: 500
            })),
            1001
        );
        assert_eq!(timeout_ms(Some(&timeval { tv_sec: 0, tv_usec: 0 })), 0);
        assert_eq!(
            timeout_ms(Some(&timeval {
                tv_sec: i64::MAX,
                tv_usec: 0
            })),
            c_int::MAX
        );
    }

    #[test]
    fn stubs_set_errno() {
        // SAFETY: the stub reads none of its arguments.
        assert_eq!(unsafe { rsocket(libc::AF_INET, libc::SOCK_STREAM, 0) }, -1);
        assert_eq!(Errno::last(), Errno::EOPNOTSUPP);
        // SAFETY: as above.
        assert_eq!(unsafe { riowrite(3, std::ptr::null(), 0, 0, 0) }, usize::MAX);
    }
}
