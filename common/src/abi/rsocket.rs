//! `<rdma/rsocket.h>`: the rsocket calls (`rsocket`, `rsend`, `rpoll`, ...), socket-API look-alikes over RDMA, as
//! rdma-core 65 installs them (44's, plus `repoll_create` / `repoll_ctl` / `repoll_wait`, `RDMACM_1.5`, for which the
//! header includes `<sys/epoll.h>`).
//!
//! The `RDMA_SQSIZE`... option names are one anonymous C enum: Rust constants here, C text in
//! `cbindgen/rdma/rsocket.h.pre`. `rfcntl` is C-variadic: declared here with `...`; stable Rust cannot define a
//! variadic function, so librdmacm defines it with the one optional argument spelled out (see `rdmacm::rsocket`).

use libc::{epoll_event, fd_set, iovec, msghdr, nfds_t, off_t, pollfd, sockaddr, socklen_t, ssize_t, timeval};
use std::ffi::{c_int, c_void};

/// The `level` of the rsocket-specific options of `rsetsockopt`/`rgetsockopt`.
pub const SOL_RDMA: c_int = 0x10000;

/// `SOL_RDMA` option: send queue size (`int`).
/// cbindgen:ignore
pub const RDMA_SQSIZE: c_int = 0;
/// `SOL_RDMA` option: receive queue size (`int`).
/// cbindgen:ignore
pub const RDMA_RQSIZE: c_int = 1;
/// `SOL_RDMA` option: inline data size (`int`).
/// cbindgen:ignore
pub const RDMA_INLINE: c_int = 2;
/// `SOL_RDMA` option: number of `riomap` slots (`int`).
/// cbindgen:ignore
pub const RDMA_IOMAPSIZE: c_int = 3;
/// `SOL_RDMA` option: the route to use (`struct ibv_path_data[]`).
/// cbindgen:ignore
pub const RDMA_ROUTE: c_int = 4;

extern "C" {
    /// Creates an rsocket, like `socket(2)`; returns its descriptor or -1 with `errno`.
    pub fn rsocket(domain: c_int, r#type: c_int, protocol: c_int) -> c_int;
    /// Binds an rsocket to a local address, like `bind(2)`.
    pub fn rbind(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int;
    /// Marks an rsocket as listening, like `listen(2)`.
    pub fn rlisten(socket: c_int, backlog: c_int) -> c_int;
    /// Accepts a connection on a listening rsocket, like `accept(2)`.
    pub fn raccept(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int;
    /// Connects an rsocket, like `connect(2)`.
    pub fn rconnect(socket: c_int, addr: *const sockaddr, addrlen: socklen_t) -> c_int;
    /// Shuts down part of a connection, like `shutdown(2)`.
    pub fn rshutdown(socket: c_int, how: c_int) -> c_int;
    /// Closes an rsocket, like `close(2)`.
    pub fn rclose(socket: c_int) -> c_int;

    /// Receives from an rsocket, like `recv(2)`.
    pub fn rrecv(socket: c_int, buf: *mut c_void, len: usize, flags: c_int) -> ssize_t;
    /// Receives from an rsocket with the sender's address, like `recvfrom(2)`.
    pub fn rrecvfrom(
        socket: c_int,
        buf: *mut c_void,
        len: usize,
        flags: c_int,
        src_addr: *mut sockaddr,
        addrlen: *mut socklen_t,
    ) -> ssize_t;
    /// Receives into a message's buffers, like `recvmsg(2)`.
    pub fn rrecvmsg(socket: c_int, msg: *mut msghdr, flags: c_int) -> ssize_t;
    /// Sends on an rsocket, like `send(2)`.
    pub fn rsend(socket: c_int, buf: *const c_void, len: usize, flags: c_int) -> ssize_t;
    /// Sends to an address, like `sendto(2)`.
    pub fn rsendto(
        socket: c_int,
        buf: *const c_void,
        len: usize,
        flags: c_int,
        dest_addr: *const sockaddr,
        addrlen: socklen_t,
    ) -> ssize_t;
    /// Sends a message's buffers, like `sendmsg(2)`.
    pub fn rsendmsg(socket: c_int, msg: *const msghdr, flags: c_int) -> ssize_t;
    /// Reads from an rsocket, like `read(2)`.
    pub fn rread(socket: c_int, buf: *mut c_void, count: usize) -> ssize_t;
    /// Reads into several buffers, like `readv(2)`.
    pub fn rreadv(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t;
    /// Writes to an rsocket, like `write(2)`.
    pub fn rwrite(socket: c_int, buf: *const c_void, count: usize) -> ssize_t;
    /// Writes from several buffers, like `writev(2)`.
    pub fn rwritev(socket: c_int, iov: *const iovec, iovcnt: c_int) -> ssize_t;

    /// Waits for events on rsockets and ordinary descriptors, like `poll(2)`.
    pub fn rpoll(fds: *mut pollfd, nfds: nfds_t, timeout: c_int) -> c_int;
    /// Waits for rsockets and ordinary descriptors to become ready, like `select(2)`.
    pub fn rselect(
        nfds: c_int,
        readfds: *mut fd_set,
        writefds: *mut fd_set,
        exceptfds: *mut fd_set,
        timeout: *mut timeval,
    ) -> c_int;

    /// The peer's address of a connected rsocket, like `getpeername(2)`.
    pub fn rgetpeername(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int;
    /// The local address of an rsocket, like `getsockname(2)`.
    pub fn rgetsockname(socket: c_int, addr: *mut sockaddr, addrlen: *mut socklen_t) -> c_int;

    /// Sets a socket option (`SOL_SOCKET`, `IPPROTO_TCP`, `SOL_RDMA`, ...), like `setsockopt(2)`.
    pub fn rsetsockopt(socket: c_int, level: c_int, optname: c_int, optval: *const c_void, optlen: socklen_t) -> c_int;
    /// Reads a socket option, like `getsockopt(2)`.
    pub fn rgetsockopt(
        socket: c_int,
        level: c_int,
        optname: c_int,
        optval: *mut c_void,
        optlen: *mut socklen_t,
    ) -> c_int;
    /// Descriptor control (`F_GETFL`, `F_SETFL`), like `fcntl(2)`.
    pub fn rfcntl(socket: c_int, cmd: c_int, ...) -> c_int;

    /// Registers `buf` as a target of the peer's `riowrite` at `offset`; returns the offset used or -1.
    pub fn riomap(socket: c_int, buf: *mut c_void, len: usize, prot: c_int, flags: c_int, offset: off_t) -> off_t;
    /// Withdraws a `riomap` registration of `buf`.
    pub fn riounmap(socket: c_int, buf: *mut c_void, len: usize) -> c_int;
    /// Writes `count` bytes straight into the peer's buffer mapped at `offset`; returns the bytes written.
    pub fn riowrite(socket: c_int, buf: *const c_void, count: usize, offset: off_t, flags: c_int) -> usize;

    /// Creates an epoll instance over rsockets and ordinary descriptors, like `epoll_create1(2)` (`flags`:
    /// `EPOLL_CLOEXEC`, `O_NONBLOCK`); returns its number (closed with `rclose`) or -1 (RDMACM_1.5).
    pub fn repoll_create(flags: c_int) -> c_int;
    /// Adds, changes or removes `fd` in the interest list of `epfd`, like `epoll_ctl(2)` (RDMACM_1.5).
    pub fn repoll_ctl(epfd: c_int, op: c_int, fd: c_int, event: *mut epoll_event) -> c_int;
    /// Waits up to `timeout` ms for events of the descriptors of `epfd`, like `epoll_wait(2)`; returns their count
    /// (RDMACM_1.5).
    pub fn repoll_wait(epfd: c_int, events: *mut epoll_event, maxevents: c_int, timeout: c_int) -> c_int;
}
