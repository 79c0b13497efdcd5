//! `riomap` / `riounmap` / `riowrite`: memory one side registers for the other to write directly, as rdma-core 44
//! does it. A `PROT_WRITE` mapping takes one slot of the peer's iomap table (its size came in the peer's connection
//! data) and is announced by an `OP_IOMAP_SGL` message carrying an [`RsIomap`] (sent before the next `rsend` or
//! `riowrite`); `riowrite` looks the offset up in the table the peer filled in and RDMA-writes straight into the
//! peer's memory, without a message the peer would see.
#![allow(unsafe_code)] // MR registration and the application's buffers

use super::maps::IomapMr;
use super::stream::{Rs, Rsocket};
use super::wire::*;
use rdma_common::abi::enums::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::{Errno, Result};
use std::ffi::{c_int, c_void};
use std::mem::size_of;

/// `riomap` on a stream rsocket.
pub(super) fn map(rs: &mut Rs, buf: *mut c_void, len: usize, prot: c_int, offset: i64) -> Result<i64> {
    if rs.id.is_null() || rs.pd().is_null() || (prot & !(libc::PROT_WRITE | libc::PROT_NONE)) != 0 {
        return Err(Errno::EINVAL);
    }
    let mut access = ibv_access_flags::IBV_ACCESS_LOCAL_WRITE as c_int;
    let slot = if prot & libc::PROT_WRITE != 0 {
        if rs.iomap.slots.is_empty() {
            rs.iomap.slots.resize_with(rs.remote_iomap.length as usize, || None);
        }
        let Some(i) = rs.iomap.slots.iter().position(Option::is_none) else { return Err(Errno::ENOMEM) };
        access |= ibv_access_flags::IBV_ACCESS_REMOTE_WRITE as c_int;
        Some(i)
    } else {
        None
    };
    // SAFETY: the application's buffer of `len` bytes (the C contract), the id's PD.
    let mr = unsafe { ibv_reg_mr(rs.pd(), buf, len, access) };
    if mr.is_null() {
        return Err(Errno::last());
    }
    let offset = if offset == -1 { buf as i64 } else { offset };
    let m = IomapMr { offset: offset as u64, mr };
    match slot {
        Some(i) => {
            rs.iomap.slots[i] = Some(m);
            rs.iomap.queue.push_back(i);
        }
        None => rs.iomap.local.push(m),
    }
    Ok(offset)
}

/// `riounmap` on a stream rsocket.
pub(super) fn unmap(rs: &mut Rs, buf: *mut c_void, len: usize) -> Result<()> {
    let want = (buf as usize, len);
    if let Some(i) = rs.iomap.slots.iter().position(|s| s.as_ref().is_some_and(|m| m.addr_len() == want)) {
        if let Some(m) = rs.iomap.slots[i].take() {
            // SAFETY: our registration, no longer listed.
            unsafe { ibv_dereg_mr(m.mr) };
        }
        rs.iomap.queue.retain(|&q| q != i);
        return Ok(());
    }
    if let Some(i) = rs.iomap.local.iter().position(|m| m.addr_len() == want) {
        let m = rs.iomap.local.swap_remove(i);
        // SAFETY: as above.
        unsafe { ibv_dereg_mr(m.mr) };
        return Ok(());
    }
    Err(Errno::EINVAL)
}

/// `rs_send_iomaps`: announces the queued mappings to the peer.
pub(super) fn send_queued<'a>(
    s: &'a Rsocket,
    mut g: parking_lot::MutexGuard<'a, Rs>,
    nonblock: bool,
) -> (parking_lot::MutexGuard<'a, Rs>, Result<()>) {
    while let Some(&i) = g.iomap.queue.front() {
        let (g2, r) = s.wait_can_send(g, nonblock);
        g = g2;
        if let Err(e) = r {
            return (g, Err(e));
        }
        g.iomap.queue.pop_front();
        let Some(m) = g.iomap.slots[i].as_ref() else { continue };
        // SAFETY: the MR is live while listed.
        let (addr, length, rkey) = unsafe { ((*m.mr).addr as u64, (*m.mr).length as u32, (*m.mr).rkey) };
        let mut iom = RsIomap { offset: m.offset, sge: RsSge { addr, key: rkey, length } };
        if g.opts & super::stream::OPT_SWAP_SGL != 0 {
            iom = iom.swapped();
        }
        let bytes = iom.to_ne_bytes();
        let src = |dst: *mut u8, n: usize, from: &mut usize| {
            // SAFETY: `dst` has room for `n` bytes in the send ring; `bytes` holds them.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr().add(*from), dst, n) };
            *from += n;
        };
        let mut from = 0usize;
        let (mut sges, n) = g.stage(&mut |d, n| src(d, n, &mut from), bytes.len() as u32);
        let flags = if usize::from(g.sq_inline) >= bytes.len() { IBV_SEND_INLINE } else { 0 };
        g.sqe_avail -= if g.opts & super::stream::OPT_MSG_SEND != 0 { 2 } else { 1 };
        g.sbuf_bytes_avail -= size_of::<RsIomap>() as u32;
        let dest = g.remote_iomap.addr + (i * size_of::<RsIomap>()) as u64;
        let key = g.remote_iomap.key;
        // The peer counts announcements as messages (credits).
        let r = g.post_write_msg(&mut sges[..n], msg(OP_IOMAP_SGL, i as u32), flags, dest, key);
        g.bump_sseq();
        if let Err(e) = r {
            return (g, Err(e));
        }
    }
    (g, Ok(()))
}

/// The entry of the peer's iomap table (as it wrote it into our memory) that maps the peer's `offset`, checked
/// ([`iomap_range`]): `Ok(None)` when no entry does, `Err` for an entry that wraps around.
pub(super) fn find_iomap(rs: &Rs, offset: u64) -> std::result::Result<Option<RsIomap>, Violation> {
    for i in 0..usize::from(rs.target_iomap_size) {
        let m = rs.target_iomap(i);
        if let Some((start, end)) = iomap_range(&m)? {
            if offset >= start && offset < end {
                return Ok(Some(m));
            }
        }
    }
    Ok(None)
}

/// `riowrite` on a stream rsocket: writes `count` bytes at `buf` into the peer's mapping of `offset`. Returns the
/// bytes written (fewer when the mapping ends).
pub(super) fn write(s: &Rsocket, buf: *const u8, count: usize, mut offset: u64, flags: c_int) -> Result<usize> {
    let _sl = s.slock.lock();
    let mut g = s.inner.lock();
    if g.reset != 0 {
        return Err(Errno(g.reset));
    }
    if g.state & super::stream::RS_CONNECTED == 0 {
        return Err(Errno::ENOTCONN);
    }
    let nonblock = g.nonblocking(flags);
    if g.iomap.pending() {
        let (g2, r) = send_queued(s, g, nonblock);
        g = g2;
        r?;
    }
    let mut left = count;
    let mut olen = OLAP_START_SIZE as usize;
    let mut at = buf;
    let mut ret = Ok(());
    while left > 0 {
        // Looked up for every transfer: the peer may rewrite its table at any time (rdma-core keeps the entry of
        // the previous transfer, and spins on a zero-length transfer once a write reaches the mapping's end).
        let m = match find_iomap(&g, offset) {
            Ok(Some(m)) => m,
            Ok(None) => break,
            Err(v) => {
                ret = Err(g.peer_broke(v));
                break;
            }
        };
        let (g2, r) = s.wait_can_send(g, nonblock);
        g = g2;
        if let Err(e) = r {
            ret = Err(e);
            break;
        }
        // The wait let the peer rewrite the table: the entry is taken as it was found.
        let end = m.offset + u64::from(m.sge.length);
        let mut xfer = next_xfer(&mut olen, left);
        xfer = xfer.min(g.sbuf_bytes_avail as usize).min((end - offset).min(usize::MAX as u64) as usize);
        let mut from = at;
        let (mut sges, n) = g.stage(
            &mut |d, n| {
                // SAFETY: `from` walks the caller's `count` bytes; `d` has room for `n`.
                unsafe {
                    std::ptr::copy_nonoverlapping(from, d, n);
                    from = from.add(n);
                }
            },
            xfer as u32,
        );
        let fl = if xfer <= usize::from(g.sq_inline) { IBV_SEND_INLINE } else { 0 };
        g.sqe_avail -= 1;
        g.sbuf_bytes_avail -= xfer as u32;
        let addr = m.sge.addr + (offset - m.offset);
        if let Err(e) = g.post_write(&mut sges[..n], msg(OP_WRITE, xfer as u32), fl, addr, m.sge.key) {
            ret = Err(e);
            break;
        }
        left -= xfer;
        offset += xfer as u64;
        // SAFETY: still within the caller's buffer.
        at = unsafe { at.add(xfer) };
    }
    match ret {
        Err(e) if left == count => Err(e),
        _ => Ok(count - left),
    }
}
