//! `rsetsockopt` / `rgetsockopt` / `rfcntl` of stream and datagram rsockets, and keep-alives, with rdma-core 44's
//! semantics and 65's additions (`IP_TOS`, `TCP_CONGESTION`, `TCP_INFO`, `SO_BROADCAST`, `F_GETFD`/`F_SETFD`).
//!
//! Stream options either change the connection (`SO_REUSEADDR`, `IPV6_V6ONLY` go to `rdma_set_option`; the
//! `SOL_RDMA` sizes and `SO_RCVBUF`/`SO_SNDBUF`, before the buffers exist: rdma-core doubles the buffer sizes asked,
//! as the kernel does) or are only remembered so that `rgetsockopt` returns them (`TCP_NODELAY`, `SO_LINGER`,
//! `SO_OOBINLINE`). `SO_KEEPALIVE` starts a service thread that sends a zero-length RDMA write (which the peer never
//! sees; its acknowledgement proves the peer alive) every `TCP_KEEPIDLE` seconds (default
//! `/proc/sys/net/ipv4/tcp_keepalive_time`, else 7200).
//!
//! Datagram options ([`dgram_set`], [`dgram_get`]) go to the rsocket's UDP socket first, then size its QPs and
//! buffers or are remembered, as rdma-core's.
#![allow(unsafe_code)] // the caller's option buffers

use super::dgram::{self, Dsock};
use super::stream::{Rs, Rsocket, OPT_KEEPALIVE, RS_CONNECTED, RS_INIT, RS_OPENING};
use super::verbs::cm_call;
use super::wire::{msg, scale_to_value, value_to_scale, CTRL_KEEPALIVE, OP_CTRL, QP_MAX_SIZE, SNDLOWAT};
use crate::cm;
use once_cell::sync::Lazy;
use parking_lot::{Condvar, Mutex};
use rdma_common::abi::rdma_cma::{RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, RDMA_OPTION_ID_REUSEADDR, RDMA_OPTION_ID_TOS};
use rdma_common::abi::rsocket::*;
use rdma_common::abi::verbs::ibv_transport_type;
use rdma_common::errno::{Errno, Result};
use std::ffi::{c_int, c_void};
use std::mem::size_of;
use std::ptr::addr_of;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// Reads the option value as an `int` (`EINVAL` when `optlen` is too short or `optval` NULL).
fn int_of(optval: *const c_void, optlen: libc::socklen_t) -> Result<c_int> {
    if optval.is_null() || (optlen as usize) < size_of::<c_int>() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: at least an int's bytes are readable (the caller's contract for optlen).
    Ok(unsafe { optval.cast::<c_int>().read_unaligned() })
}

/// Reads the option value as a queue size (`RDMA_SQSIZE`, `RDMA_RQSIZE`, `RDMA_INLINE`): an `int`, at most
/// `QP_MAX_SIZE`.
fn qp_size_of(optval: *const c_void, optlen: libc::socklen_t) -> Result<u16> {
    Ok((int_of(optval, optlen)? as u32).min(u32::from(QP_MAX_SIZE)) as u16)
}

/// Reads the option value as a `struct linger` (`EINVAL` when `optlen` is too short or `optval` NULL).
fn linger_of(optval: *const c_void, optlen: libc::socklen_t) -> Result<libc::linger> {
    if optval.is_null() || (optlen as usize) < size_of::<libc::linger>() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: a readable struct linger (the caller's contract for optlen).
    Ok(unsafe { optval.cast::<libc::linger>().read_unaligned() })
}

/// The send buffer size after `SO_SNDBUF` = `v`: doubled while the buffer can still change (`unmade`), and never
/// below two low-water marks.
fn sndbuf_size(cur: u32, v: u32, unmade: bool) -> u32 {
    let size = if unmade { v << 1 } else { cur };
    if size < SNDLOWAT {
        SNDLOWAT << 1
    } else {
        size
    }
}

/// `rsetsockopt` on a stream rsocket.
pub(super) fn set(
    s: &Arc<Rsocket>,
    level: c_int,
    optname: c_int,
    optval: *const c_void,
    optlen: libc::socklen_t,
) -> Result<()> {
    let mut g = s.inner.lock();
    if g.id.is_null() {
        return Err(Errno::EBADF);
    }
    let mut opt_on = false;
    let mut which: Option<fn(&mut Rs) -> &mut u64> = None;
    let ret: Result<()> = match level {
        libc::SOL_SOCKET => {
            which = Some(|r| &mut r.so_opts);
            match optname {
                libc::SO_REUSEADDR => {
                    let v = int_of(optval, optlen)?;
                    let mut val = v;
                    // SAFETY: the id is live; `val` is an int the call copies.
                    let r = cm_call(unsafe {
                        cm::id::rdma_set_option(
                            g.id,
                            RDMA_OPTION_ID,
                            RDMA_OPTION_ID_REUSEADDR,
                            (&mut val as *mut c_int).cast(),
                            size_of::<c_int>(),
                        )
                    });
                    opt_on = v != 0;
                    match r {
                        Err(e) if e == Errno::ENOSYS || (g.state != RS_INIT && is_ib(&g)) => Ok(()),
                        r => r,
                    }
                }
                libc::SO_RCVBUF => {
                    let v = int_of(optval, optlen)? as u32;
                    if g.rbuf.is_none() {
                        g.rbuf_size = v << 1;
                    }
                    Ok(())
                }
                libc::SO_SNDBUF => {
                    let v = int_of(optval, optlen)? as u32;
                    g.sbuf_size = sndbuf_size(g.sbuf_size, v, g.sbuf.is_none());
                    Ok(())
                }
                libc::SO_LINGER => {
                    // Stored inverted, so that the default (0) means on, as rdma-core.
                    opt_on = linger_of(optval, optlen)?.l_onoff == 0;
                    Ok(())
                }
                libc::SO_KEEPALIVE => {
                    let on = int_of(optval, optlen)? != 0;
                    drop(g);
                    keepalive(s, on);
                    g = s.inner.lock();
                    opt_on = g.opts & OPT_KEEPALIVE != 0;
                    Ok(())
                }
                libc::SO_OOBINLINE => {
                    opt_on = int_of(optval, optlen)? != 0;
                    Ok(())
                }
                _ => Err(Errno::EOPNOTSUPP),
            }
        }
        libc::IPPROTO_TCP => {
            which = Some(|r| &mut r.tcp_opts);
            match optname {
                libc::TCP_KEEPCNT | libc::TCP_KEEPINTVL => Ok(()),
                libc::TCP_KEEPIDLE => {
                    let v = int_of(optval, optlen)?;
                    if v <= 0 {
                        return Err(Errno::EINVAL);
                    }
                    g.keepalive_time = v as u32;
                    if g.opts & OPT_KEEPALIVE != 0 {
                        reschedule(s.index, v as u32);
                    }
                    Ok(())
                }
                libc::TCP_NODELAY => {
                    opt_on = int_of(optval, optlen)? != 0;
                    Ok(())
                }
                // rdma-core 65: accepted and ignored.
                libc::TCP_MAXSEG | libc::TCP_CONGESTION => Ok(()),
                _ => Err(Errno::EOPNOTSUPP),
            }
        }
        libc::IPPROTO_IP => match optname {
            libc::IP_TOS => {
                // rdma-core 65 keeps the value and hands the caller's int to rdma_set_option, which the kernel
                // refuses for its size (EINVAL: the option is a byte); the byte is what we set.
                let v = int_of(optval, optlen)?;
                g.ip_tos = v;
                let mut tos = v as u8;
                // SAFETY: the id is live; `tos` is a byte the call copies.
                cm_call(unsafe {
                    cm::id::rdma_set_option(
                        g.id,
                        RDMA_OPTION_ID,
                        RDMA_OPTION_ID_TOS,
                        (&mut tos as *mut u8).cast(),
                        size_of::<u8>(),
                    )
                })
            }
            _ => Err(Errno::EOPNOTSUPP),
        },
        libc::IPPROTO_IPV6 => {
            which = Some(|r| &mut r.ipv6_opts);
            match optname {
                libc::IPV6_V6ONLY => {
                    let mut v = int_of(optval, optlen)?;
                    opt_on = v != 0;
                    // SAFETY: as for SO_REUSEADDR.
                    cm_call(unsafe {
                        cm::id::rdma_set_option(
                            g.id,
                            RDMA_OPTION_ID,
                            RDMA_OPTION_ID_AFONLY,
                            (&mut v as *mut c_int).cast(),
                            size_of::<c_int>(),
                        )
                    })
                }
                _ => Err(Errno::EOPNOTSUPP),
            }
        }
        SOL_RDMA => {
            if g.state >= RS_OPENING {
                return Err(Errno::EINVAL);
            }
            match optname {
                RDMA_SQSIZE => {
                    g.sq_size = qp_size_of(optval, optlen)?;
                    Ok(())
                }
                RDMA_RQSIZE => {
                    g.rq_size = qp_size_of(optval, optlen)?;
                    Ok(())
                }
                RDMA_INLINE => {
                    g.sq_inline = qp_size_of(optval, optlen)?;
                    Ok(())
                }
                RDMA_IOMAPSIZE => {
                    let v = int_of(optval, optlen)?;
                    g.target_iomap_size = scale_to_value(i32::from(value_to_scale(v, 8) as u8), 8) as u16;
                    Ok(())
                }
                RDMA_ROUTE => {
                    if optval.is_null() {
                        return Err(Errno::EINVAL);
                    }
                    // SAFETY: `optlen` readable bytes (the caller's contract).
                    let b = unsafe { std::slice::from_raw_parts(optval.cast::<u8>(), optlen as usize) };
                    g.route = Some(b.to_vec());
                    Ok(())
                }
                _ => Err(Errno::EOPNOTSUPP),
            }
        }
        _ => Err(Errno::EOPNOTSUPP),
    };
    if ret.is_ok() {
        if let Some(f) = which {
            let bit = 1u64.checked_shl(optname as u32).unwrap_or(0);
            let o = f(&mut g);
            if opt_on {
                *o |= bit;
            } else {
                *o &= !bit;
            }
        }
    }
    ret
}

fn is_ib(rs: &Rs) -> bool {
    // SAFETY: the id is live; `verbs` is NULL or an open context.
    unsafe {
        let ctx = addr_of!((*rs.id).verbs).read();
        !ctx.is_null()
            && rdma_common::ffi::enum_raw(addr_of!((*(*ctx).device).transport_type))
                == ibv_transport_type::IBV_TRANSPORT_IB as u32
    }
}

/// Writes an `int` option value.
fn put_int(optval: *mut c_void, optlen: *mut libc::socklen_t, v: c_int) -> Result<()> {
    // SAFETY: non-NULL optlen is readable (the caller's contract).
    if optval.is_null() || optlen.is_null() || (unsafe { optlen.read() } as usize) < size_of::<c_int>() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: at least an int's bytes are writable.
    unsafe {
        optval.cast::<c_int>().write_unaligned(v);
        optlen.write(size_of::<c_int>() as libc::socklen_t);
    }
    Ok(())
}

/// Bytes of glibc's `struct tcp_info`, and where its fields rdma-core 65 fills sit.
const TCP_INFO_LEN: usize = 104;
const TCPI_SND_CWND: usize = 80;
/// `tcpi_state` values (`<netinet/tcp.h>`'s `TCP_ESTABLISHED`, `TCP_CLOSE`).
const TCP_ESTABLISHED: u8 = 1;
const TCP_CLOSE: u8 = 7;
const _: () = assert!(std::mem::offset_of!(libc::tcp_info, tcpi_snd_cwnd) == TCPI_SND_CWND);

/// `TCP_INFO` (rdma-core 65): a zeroed `struct tcp_info` but for `tcpi_state` (`TCP_ESTABLISHED` while
/// connected, else `TCP_CLOSE`) and `tcpi_snd_cwnd` (the send queue size), at most `*optlen` bytes of it, as
/// `getsockopt(2)` truncates it (`*optlen` set to the bytes written). rdma-core 65 writes all 104 bytes whatever the
/// room, and compares the state for equality, so that a connection open both ways reads `TCP_CLOSE`.
fn put_tcp_info(optval: *mut c_void, optlen: *mut libc::socklen_t, connected: bool, sq_size: u16) -> Result<()> {
    if optval.is_null() || optlen.is_null() {
        return Err(Errno::EINVAL);
    }
    let mut info = [0u8; TCP_INFO_LEN];
    info[0] = if connected { TCP_ESTABLISHED } else { TCP_CLOSE };
    info[TCPI_SND_CWND..TCPI_SND_CWND + 4].copy_from_slice(&u32::from(sq_size).to_ne_bytes());
    // SAFETY: optlen is readable and writable; `n` bytes of room at optval (the caller's contract).
    unsafe {
        let n = (optlen.read() as usize).min(TCP_INFO_LEN);
        std::ptr::copy_nonoverlapping(info.as_ptr(), optval.cast::<u8>(), n);
        optlen.write(n as libc::socklen_t);
    }
    Ok(())
}

/// Writes a `struct linger` option value (`l_onoff` as given, `l_linger` 0).
fn put_linger(optval: *mut c_void, optlen: *mut libc::socklen_t, l_onoff: c_int) -> Result<()> {
    // SAFETY: non-NULL optlen is readable.
    if optval.is_null() || optlen.is_null() || (unsafe { optlen.read() } as usize) < size_of::<libc::linger>() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: room for a struct linger.
    unsafe {
        optval.cast::<libc::linger>().write_unaligned(libc::linger { l_onoff, l_linger: 0 });
        optlen.write(size_of::<libc::linger>() as libc::socklen_t);
    }
    Ok(())
}

/// `rgetsockopt` on a stream rsocket.
pub(super) fn get(
    s: &Rsocket,
    level: c_int,
    optname: c_int,
    optval: *mut c_void,
    optlen: *mut libc::socklen_t,
) -> Result<()> {
    let mut g = s.inner.lock();
    if g.id.is_null() {
        return Err(Errno::EBADF);
    }
    let bit = |o: u64| (o & 1u64.checked_shl(optname as u32).unwrap_or(0)) != 0;
    match (level, optname) {
        (libc::SOL_SOCKET, libc::SO_REUSEADDR | libc::SO_KEEPALIVE | libc::SO_OOBINLINE) => {
            put_int(optval, optlen, c_int::from(bit(g.so_opts)))
        }
        (libc::SOL_SOCKET, libc::SO_RCVBUF) => put_int(optval, optlen, g.rbuf_size as c_int),
        (libc::SOL_SOCKET, libc::SO_SNDBUF) => put_int(optval, optlen, g.sbuf_size as c_int),
        (libc::SOL_SOCKET, libc::SO_LINGER) => put_linger(optval, optlen, c_int::from(!bit(g.so_opts))),
        (libc::SOL_SOCKET, libc::SO_ERROR) => {
            put_int(optval, optlen, g.err)?;
            g.err = 0;
            Ok(())
        }
        // rdma-core 65: SO_BROADCAST is answered (we write 0, it writes nothing), TCP_CONGESTION reads as the int 1.
        (libc::SOL_SOCKET, libc::SO_BROADCAST) => put_int(optval, optlen, 0),
        (libc::IPPROTO_IP, libc::IP_TOS) => put_int(optval, optlen, g.ip_tos),
        (libc::IPPROTO_TCP, libc::TCP_KEEPCNT | libc::TCP_KEEPINTVL | libc::TCP_CONGESTION) => {
            put_int(optval, optlen, 1)
        }
        (libc::IPPROTO_TCP, libc::TCP_INFO) => put_tcp_info(optval, optlen, g.state & RS_CONNECTED != 0, g.sq_size),
        (libc::IPPROTO_TCP, libc::TCP_KEEPIDLE) => put_int(optval, optlen, g.keepalive_time as c_int),
        (libc::IPPROTO_TCP, libc::TCP_NODELAY) => put_int(optval, optlen, c_int::from(bit(g.tcp_opts))),
        (libc::IPPROTO_TCP, libc::TCP_MAXSEG) => {
            // SAFETY: the id is live; its path records, when any, are `num_paths` entries.
            let mss = unsafe {
                let n = addr_of!((*g.id).route.num_paths).read();
                let p = addr_of!((*g.id).route.path_rec).read();
                if n > 0 && !p.is_null() {
                    1 << (7 + u32::from((*p).mtu))
                } else {
                    2048
                }
            };
            put_int(optval, optlen, mss)
        }
        (libc::IPPROTO_IPV6, libc::IPV6_V6ONLY) => put_int(optval, optlen, c_int::from(bit(g.ipv6_opts))),
        (SOL_RDMA, RDMA_SQSIZE) => put_int(optval, optlen, c_int::from(g.sq_size)),
        (SOL_RDMA, RDMA_RQSIZE) => put_int(optval, optlen, c_int::from(g.rq_size)),
        (SOL_RDMA, RDMA_INLINE) => put_int(optval, optlen, c_int::from(g.sq_inline)),
        (SOL_RDMA, RDMA_IOMAPSIZE) => put_int(optval, optlen, c_int::from(g.target_iomap_size)),
        (SOL_RDMA, RDMA_ROUTE) => route(&g, optval, optlen),
        _ => Err(Errno::EOPNOTSUPP),
    }
}

/// `RDMA_ROUTE`: the route set before connecting, else the id's path records as `struct ibv_path_data`.
fn route(rs: &Rs, optval: *mut c_void, optlen: *mut libc::socklen_t) -> Result<()> {
    if optval.is_null() || optlen.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: optlen is readable.
    let room = unsafe { optlen.read() } as usize;
    if let Some(r) = &rs.route {
        if room < r.len() {
            return Err(Errno::EINVAL);
        }
        // SAFETY: `room` >= r.len() writable bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(r.as_ptr(), optval.cast::<u8>(), r.len());
            optlen.write(r.len() as libc::socklen_t);
        }
        return Ok(());
    }
    const PATH_DATA: usize = 72; // struct ibv_path_data: flags, reserved, ibv_path_record (64 bytes)
    if room < PATH_DATA {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the id is live; `num_paths` records at `path_rec`.
    let (n, recs) = unsafe { (addr_of!((*rs.id).route.num_paths).read(), addr_of!((*rs.id).route.path_rec).read()) };
    let mut len = 0usize;
    let mut i = 0;
    while len + PATH_DATA <= room && i < n && !recs.is_null() {
        // SAFETY: record `i` < num_paths.
        let p = unsafe { &*recs.add(i as usize) };
        let mut d = [0u8; PATH_DATA];
        d[0..4].copy_from_slice(&u32::from(p.preference).to_ne_bytes());
        let r = &mut d[8..];
        // struct ibv_path_record: service_id(8) dgid(16) sgid(16) dlid slid flowlabel_hoplimit tclass
        // reversible_numpath pkey qosclass_sl mtu rate packetlifetime preference reserved[6]
        // SAFETY: gids are 16 plain bytes.
        unsafe {
            r[8..24].copy_from_slice(&p.dgid.raw);
            r[24..40].copy_from_slice(&p.sgid.raw);
        }
        r[40..42].copy_from_slice(&p.dlid.to_ne_bytes());
        r[42..44].copy_from_slice(&p.slid.to_ne_bytes());
        let fl_hop = (u32::from_be(p.flow_label) << 8) | u32::from(p.hop_limit);
        r[44..48].copy_from_slice(&fl_hop.to_be_bytes());
        r[48] = p.traffic_class;
        r[49] = ((p.reversible as u8) << 7) | 1;
        r[50..52].copy_from_slice(&p.pkey.to_ne_bytes());
        r[52..54].copy_from_slice(&u16::from(p.sl).to_be_bytes());
        r[54] = p.mtu | (2 << 6);
        r[55] = p.rate | (2 << 6);
        r[56] = p.packet_life_time | (2 << 6);
        // SAFETY: `len + PATH_DATA` <= room.
        unsafe { std::ptr::copy_nonoverlapping(d.as_ptr(), optval.cast::<u8>().add(len), PATH_DATA) };
        len += PATH_DATA;
        i += 1;
    }
    // SAFETY: optlen is writable.
    unsafe { optlen.write(len as libc::socklen_t) };
    Ok(())
}

/// `rfcntl` on a stream rsocket: `F_GETFL` / `F_SETFL` (only `O_NONBLOCK` changes behaviour), `F_GETFD` /
/// `F_SETFD` (rdma-core 65: remembered only); anything else `EOPNOTSUPP`.
pub(super) fn fcntl(s: &Rsocket, cmd: c_int, arg: usize) -> Result<c_int> {
    let mut g = s.inner.lock();
    let g = &mut *g;
    fcntl_flags(&mut g.fs_flags, &mut g.fd_flags, cmd, arg)
}

/// `F_GETFL` / `F_SETFL` on an rsocket's file status flags `fs_flags`, `F_GETFD` / `F_SETFD` on its descriptor
/// flags `fd_flags` (both stored as given, as rdma-core 65 does); anything else `EOPNOTSUPP`.
fn fcntl_flags(fs_flags: &mut c_int, fd_flags: &mut c_int, cmd: c_int, arg: usize) -> Result<c_int> {
    match cmd {
        libc::F_GETFL => Ok(*fs_flags),
        libc::F_SETFL => {
            *fs_flags = arg as c_int;
            Ok(0)
        }
        libc::F_GETFD => Ok(*fd_flags),
        libc::F_SETFD => {
            *fd_flags = arg as c_int;
            Ok(0)
        }
        _ => Err(Errno::EOPNOTSUPP),
    }
}

// ---- datagram rsockets -------------------------------------------------------------------------------------

/// `rfcntl` on a datagram rsocket: as [`fcntl`]; `EBADF` once another thread closed it.
pub(super) fn dgram_fcntl(s: &Dsock, cmd: c_int, arg: usize) -> Result<c_int> {
    let mut g = dgram::locked(s)?;
    let g = &mut *g;
    fcntl_flags(&mut g.fs_flags, &mut g.fd_flags, cmd, arg)
}

/// `rsetsockopt` on a datagram rsocket, as rdma-core: options of other levels than `SOL_RDMA` go to the UDP socket
/// first (its error is the answer), then `SO_RCVBUF` / `SO_SNDBUF` size the buffers (doubled, until the first QP /
/// the send slots exist), `SO_REUSEADDR`, `SO_KEEPALIVE`, `SO_OOBINLINE`, `SO_LINGER`, `IPV6_V6ONLY` are
/// remembered for `rgetsockopt`, `SOL_RDMA` `RDMA_SQSIZE` / `RDMA_RQSIZE` / `RDMA_INLINE` size the QPs before the
/// endpoint exists (`EINVAL` after), `RDMA_IOMAPSIZE` / `RDMA_ROUTE` are accepted and unused; anything else is
/// `EOPNOTSUPP`.
pub(super) fn dgram_set(
    s: &Dsock,
    level: c_int,
    name: c_int,
    optval: *const c_void,
    optlen: libc::socklen_t,
) -> Result<()> {
    let mut g = dgram::locked(s)?;
    if level != SOL_RDMA {
        // SAFETY: the caller's option buffer, read by the kernel.
        if unsafe { libc::setsockopt(g.udp, level, name, optval, optlen) } != 0 {
            return Err(Errno::last());
        }
    }
    let bit = 1u64.checked_shl(name as u32).unwrap_or(0);
    let set_bit = |o: &mut u64, on: bool| if on { *o |= bit } else { *o &= !bit };
    match (level, name) {
        (libc::SOL_SOCKET, libc::SO_REUSEADDR | libc::SO_KEEPALIVE | libc::SO_OOBINLINE) => {
            let on = int_of(optval, optlen)? != 0;
            set_bit(&mut g.so_opts, on);
        }
        (libc::SOL_SOCKET, libc::SO_LINGER) => {
            let l = linger_of(optval, optlen)?;
            set_bit(&mut g.so_opts, l.l_onoff == 0);
        }
        (libc::SOL_SOCKET, libc::SO_RCVBUF) => {
            let v = int_of(optval, optlen)? as u32;
            if !g.has_qp() {
                g.rbuf_size = v << 1;
            }
        }
        (libc::SOL_SOCKET, libc::SO_SNDBUF) => {
            let v = int_of(optval, optlen)? as u32;
            g.sbuf_size = sndbuf_size(g.sbuf_size, v, g.sbuf.is_none());
        }
        (libc::IPPROTO_IPV6, libc::IPV6_V6ONLY) => {
            let on = int_of(optval, optlen)? != 0;
            set_bit(&mut g.ipv6_opts, on);
        }
        // rdma-core 65 takes IP_TOS for datagram rsockets too, but then sets it on their (absent) stream id and
        // crashes; the UDP socket has it, and rgetsockopt reads it back.
        (libc::IPPROTO_IP, libc::IP_TOS) => g.ip_tos = int_of(optval, optlen)?,
        (SOL_RDMA, _) if g.ready => return Err(Errno::EINVAL),
        (SOL_RDMA, RDMA_SQSIZE) => g.sq_size = qp_size_of(optval, optlen)?,
        (SOL_RDMA, RDMA_RQSIZE) => g.rq_size = qp_size_of(optval, optlen)?,
        (SOL_RDMA, RDMA_INLINE) => g.sq_inline = qp_size_of(optval, optlen)?,
        (SOL_RDMA, RDMA_IOMAPSIZE | RDMA_ROUTE) => {}
        _ => return Err(Errno::EOPNOTSUPP),
    }
    Ok(())
}

/// `rgetsockopt` on a datagram rsocket: the options `dgram_set` keeps, `SO_RCVBUF` / `SO_SNDBUF` (the buffer
/// sizes), `SO_ERROR` (always 0), the `SOL_RDMA` sizes; anything else `EOPNOTSUPP`.
pub(super) fn dgram_get(
    s: &Dsock,
    level: c_int,
    name: c_int,
    optval: *mut c_void,
    optlen: *mut libc::socklen_t,
) -> Result<()> {
    let g = dgram::locked(s)?;
    let bit = |o: u64| c_int::from(o & 1u64.checked_shl(name as u32).unwrap_or(0) != 0);
    match (level, name) {
        (libc::SOL_SOCKET, libc::SO_REUSEADDR | libc::SO_KEEPALIVE | libc::SO_OOBINLINE) => {
            put_int(optval, optlen, bit(g.so_opts))
        }
        (libc::SOL_SOCKET, libc::SO_LINGER) => put_linger(optval, optlen, 1 - bit(g.so_opts)),
        (libc::SOL_SOCKET, libc::SO_RCVBUF) => put_int(optval, optlen, g.rbuf_size as c_int),
        (libc::SOL_SOCKET, libc::SO_SNDBUF) => put_int(optval, optlen, g.sbuf_size as c_int),
        (libc::SOL_SOCKET, libc::SO_ERROR | libc::SO_BROADCAST) => put_int(optval, optlen, 0),
        (libc::IPPROTO_IP, libc::IP_TOS) => put_int(optval, optlen, g.ip_tos),
        (libc::IPPROTO_IPV6, libc::IPV6_V6ONLY) => put_int(optval, optlen, bit(g.ipv6_opts)),
        (SOL_RDMA, RDMA_SQSIZE) => put_int(optval, optlen, c_int::from(g.sq_size)),
        (SOL_RDMA, RDMA_RQSIZE) => put_int(optval, optlen, c_int::from(g.rq_size)),
        (SOL_RDMA, RDMA_INLINE) => put_int(optval, optlen, c_int::from(g.sq_inline)),
        _ => Err(Errno::EOPNOTSUPP),
    }
}

// ---- keep-alives -------------------------------------------------------------------------------------------

struct Keepalive {
    list: Vec<(c_int, Weak<Rsocket>, Instant)>,
    running: bool,
}

static KEEPALIVE: Lazy<(Mutex<Keepalive>, Condvar)> =
    Lazy::new(|| (Mutex::new(Keepalive { list: Vec::new(), running: false }), Condvar::new()));

fn default_keepalive_time() -> u32 {
    keepalive_time_from(std::fs::read_to_string("/proc/sys/net/ipv4/tcp_keepalive_time").ok().as_deref())
}

/// The keep-alive time (seconds) from the text of `/proc/sys/net/ipv4/tcp_keepalive_time` (None: unreadable);
/// 7200, the kernel's default, when there is none or it is not a number.
pub(crate) fn keepalive_time_from(text: Option<&str>) -> u32 {
    text.and_then(|t| t.trim().parse().ok()).unwrap_or(7200)
}

/// Turns keep-alives of `s` on or off.
fn keepalive(s: &Arc<Rsocket>, on: bool) {
    let mut g = s.inner.lock();
    if on == (g.opts & OPT_KEEPALIVE != 0) {
        return;
    }
    if !on {
        keepalive_off(&mut g, s.index);
        return;
    }
    if g.keepalive_time == 0 {
        g.keepalive_time = default_keepalive_time();
    }
    let due = Instant::now() + Duration::from_secs(u64::from(g.keepalive_time));
    g.opts |= OPT_KEEPALIVE;
    drop(g);
    let (m, cv) = &*KEEPALIVE;
    let mut k = m.lock();
    k.list.push((s.index, Arc::downgrade(s), due));
    if !k.running {
        k.running = true;
        let r = std::thread::Builder::new().name("rsocket-keepalive".into()).spawn(keepalive_thread);
        if r.is_err() {
            k.running = false;
            log::warn!("rsocket: cannot start the keep-alive thread");
        }
    }
    cv.notify_all();
}

/// Stops keep-alives of rsocket `index` (its state lock held by the caller).
pub(super) fn keepalive_off(rs: &mut Rs, index: c_int) {
    if rs.opts & OPT_KEEPALIVE == 0 {
        return;
    }
    rs.opts &= !OPT_KEEPALIVE;
    let (m, cv) = &*KEEPALIVE;
    m.lock().list.retain(|(i, _, _)| *i != index);
    cv.notify_all();
}

fn reschedule(index: c_int, secs: u32) {
    let (m, cv) = &*KEEPALIVE;
    for e in m.lock().list.iter_mut().filter(|e| e.0 == index) {
        e.2 = Instant::now() + Duration::from_secs(u64::from(secs));
    }
    cv.notify_all();
}

fn keepalive_thread() {
    let (m, cv) = &*KEEPALIVE;
    let mut k = m.lock();
    loop {
        let now = Instant::now();
        let mut due = Vec::new();
        for e in k.list.iter_mut() {
            if e.2 <= now {
                due.push(e.1.clone());
            }
        }
        k.list.retain(|e| e.1.strong_count() > 0);
        if !due.is_empty() {
            drop(k);
            for w in due {
                if let Some(s) = w.upgrade() {
                    let mut g = s.inner.lock();
                    if g.ctrl_seqno != g.ctrl_max_seqno && g.state & RS_CONNECTED != 0 && !g.await_peer {
                        g.ctrl_seqno = g.ctrl_seqno.wrapping_add(1);
                        let _ = g.post_write(&mut [], msg(OP_CTRL, CTRL_KEEPALIVE), 0, 0, 0);
                    }
                    let secs = u64::from(g.keepalive_time.max(1));
                    drop(g);
                    let mut k = m.lock();
                    for e in k.list.iter_mut().filter(|e| e.0 == s.index) {
                        e.2 = Instant::now() + Duration::from_secs(secs);
                    }
                }
            }
            k = m.lock();
            continue;
        }
        match k.list.iter().map(|e| e.2).min() {
            Some(t) => {
                cv.wait_until(&mut k, t);
            }
            None => {
                cv.wait_for(&mut k, Duration::from_secs(60));
            }
        }
    }
}
