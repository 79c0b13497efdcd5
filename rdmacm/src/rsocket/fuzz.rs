//! What the rsocket fuzz targets (`fuzz/fuzz_targets/rsock_*.rs`, through `crate::fuzzing`) and the peer-input
//! unit tests drive: the code that takes in what a peer sends, on state that has no device behind it (buffers from
//! [`RegBuf::unregistered`], no id, no QP: posting answers `ENOTCONN`), so no system call sees the bytes.
//!
//! * [`stream`]: one connected stream rsocket takes the peer's connection data, then a sequence of events: the
//!   peer's messages (immediate data and the bytes its write carried), the peer rewriting our target SGL or iomap
//!   table, the application reading and sending, credits going out, our sends completing, `riowrite` looking up the
//!   peer's table. After each, the accounting must hold: the receive buffer's bytes are free, handed to the peer or
//!   holding unread data, never more nor less than the buffer; no more unread messages than the receive queue.
//! * [`dgram`]: a UD receive completion (its `byte_len` and the slot's bytes) as the datagram path checks it.
//! * [`udp_service`]: a sequence of address-service messages from a few source addresses, parsed and planned as
//!   the service does, against a simulated destination table.
#![allow(unsafe_code)] // the target table written as the peer's RDMA writes would

use super::dgram::{plan, Plan, LEARN_PER_CALL, MAX_DESTS};
use super::iomap::find_iomap;
use super::stream::{Rs, RS_CONNECT_RDWR};
use super::verbs::RegBuf;
use super::wire::*;
use super::IoCursor;
use std::mem::size_of;
use std::ptr::null_mut;

/// A little-endian reader over the fuzzer's bytes; past the end it reads zeros.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn take(&mut self, n: usize) -> &[u8] {
        let (a, b) = self.0.split_at(n.min(self.0.len()));
        self.0 = b;
        a
    }
    fn u8(&mut self) -> u8 {
        self.take(1).first().copied().unwrap_or(0)
    }
    fn u16(&mut self) -> u16 {
        let mut b = [0u8; 2];
        let t = self.take(2);
        b[..t.len()].copy_from_slice(t);
        u16::from_le_bytes(b)
    }
    fn u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        let t = self.take(4);
        b[..t.len()].copy_from_slice(t);
        u32::from_le_bytes(b)
    }
    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }
}

/// A connected stream rsocket without a device: queue and buffer sizes from `cfg`.
fn connected(cfg: u8) -> Option<Rs> {
    let mut rs = Rs::new(null_mut(), None);
    rs.rq_size = [16, 17, 64, 384][usize::from(cfg & 3)];
    rs.sq_size = 16;
    rs.rbuf_size = 4096 << ((cfg >> 2) & 3);
    rs.sbuf_size = 4096 << ((cfg >> 4) & 1);
    rs.sq_inline = if cfg & 0x20 != 0 { 0 } else { 64 };
    rs.target_iomap_size = if cfg & 0x40 != 0 { 4 } else { 0 };
    rs.init_bufs_with(|len, _| RegBuf::unregistered(len)).ok()?;
    Some(rs)
}

/// Writes `bytes` into the target buffer at `off`, as the peer's RDMA write does.
fn peer_write(rs: &Rs, off: usize, bytes: &[u8]) {
    let Some(t) = rs.target.as_ref() else { return };
    let len = size_of::<RsSge>() * SGL_SIZE + size_of::<RsIomap>() * usize::from(rs.target_iomap_size);
    if off + bytes.len() <= len {
        // SAFETY: inside the target buffer (sized `len` by init_bufs_with).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), t.ptr.add(off), bytes.len()) };
    }
}

/// The accounting every event must leave intact (a panic is a finding).
fn check_invariants(rs: &Rs) {
    if rs.reset != 0 {
        return;
    }
    let (unread, msgs) = rs.unread();
    assert!(msgs <= usize::from(rs.rq_size), "{msgs} unread messages, receive queue {}", rs.rq_size);
    let avail = rs.rbuf_avail();
    assert!((0..=i64::from(rs.rbuf_size)).contains(&avail), "free receive bytes {avail}");
    assert_eq!(
        avail as u64 + rs.granted() + unread,
        u64::from(rs.rbuf_size),
        "free + handed to the peer + unread != the receive buffer"
    );
    assert!(rs.sbuf_bytes_avail <= rs.sbuf_size, "send buffer bytes {}", rs.sbuf_bytes_avail);
}

/// The fuzz target `rsock_stream`. `data`: a configuration byte (queue and buffer sizes, inline size, iomap
/// table), the peer's 40 bytes of connection data, then events of one kind byte each and its arguments (see the
/// match below).
pub(crate) fn stream(data: &[u8]) {
    let mut b = Bytes(data);
    let Some(mut rs) = connected(b.u8()) else { return };
    let Some(c) = ConnData::parse(b.take(CONN_DATA_LEN)) else { return };
    if rs.save_conn_data(&c).is_err() {
        return;
    }
    rs.state = RS_CONNECT_RDWR;
    // Our writes not completed yet: their work-request ids, oldest first.
    let mut posted: std::collections::VecDeque<u64> = Default::default();
    let mut steps = 0;
    while !b.0.is_empty() && steps < 4096 {
        steps += 1;
        match b.u8() % 10 {
            // The peer's message: its immediate data, and what its write carried.
            0 => {
                let m = b.u32();
                let written = match b.u8() % 4 {
                    0 => None,
                    1 => Some(match decode(m) {
                        Msg::Data(n) => n,
                        Msg::Sgl(_) => size_of::<RsSge>() as u32,
                        Msg::IomapSgl(_) => size_of::<RsIomap>() as u32,
                        _ => 0,
                    }),
                    2 => Some(0),
                    _ => Some(b.u32()),
                };
                if rs.reset == 0 {
                    if let Err(v) = rs.take_msg(m, written) {
                        rs.peer_broke(v);
                    }
                }
            }
            // The peer rewrites an entry of our target SGL (its own buffer's coordinates, or anything).
            1 => {
                let i = usize::from(b.u8()) % SGL_SIZE;
                let e = if b.u8() & 1 == 0 {
                    RsSge {
                        addr: rs.peer.rbuf_addr.wrapping_add(u64::from(b.u32())),
                        key: rs.peer.key,
                        length: (u64::from(b.u32()) % (u64::from(rs.peer.half.max(1)) * 2)) as u32,
                    }
                } else {
                    RsSge { addr: b.u64(), key: b.u32(), length: b.u32() }
                };
                peer_write(&rs, i * size_of::<RsSge>(), &e.to_ne_bytes());
            }
            // The peer rewrites an entry of our iomap table.
            2 => {
                let i = usize::from(b.u8()) % usize::from(rs.target_iomap_size.max(1));
                let e = RsIomap { offset: b.u64(), sge: RsSge { addr: b.u64(), key: b.u32(), length: b.u32() } };
                peer_write(&rs, size_of::<RsSge>() * SGL_SIZE + i * size_of::<RsIomap>(), &e.to_ne_bytes());
            }
            // The application reads (or peeks).
            3 => {
                let n = usize::from(b.u16());
                let peek = b.u8() & 1 != 0;
                let mut buf = vec![0u8; n];
                let mut cur = IoCursor::one(buf.as_mut_ptr(), n);
                let got = rs.copy_out(&mut cur, n, peek);
                assert!(got <= n);
            }
            // The application sends, as the send loop does: only when it may, into the checked target entry.
            4 => {
                let n = u32::from(b.u16()).max(1);
                if rs.reset != 0 || !rs.can_send() {
                    continue;
                }
                let Ok(t) = rs.send_target() else { continue };
                let xfer = n.min(rs.sbuf_bytes_avail).min(t.length);
                if xfer == 0 {
                    continue;
                }
                let (mut sges, k) = rs.stage(&mut |_, _| {}, xfer);
                let _ = rs.write_data(&mut sges[..k], xfer, 0, t);
                posted.push_back(u64::from(msg(OP_DATA, xfer)));
            }
            // Credits go out when due.
            5 => rs.update_credits(),
            // Our oldest write completes, well or not.
            6 => {
                let ok = b.u8() & 7 != 0;
                if let Some(w) = posted.pop_front() {
                    rs.take_send_completion(w, ok);
                }
            }
            // A control message of ours completes.
            7 => {
                if rs.ctrl_outstanding() {
                    rs.take_send_completion(u64::from(msg(OP_SGL, 0)), true);
                }
            }
            // riowrite looks an offset up in the peer's iomap table.
            8 => {
                let off = b.u64();
                if let Ok(Some(m)) = find_iomap(&rs, off) {
                    let (start, end) = iomap_range(&m).ok().flatten().unwrap_or_default();
                    assert!(off >= start && off < end);
                    let _ = m.sge.addr + (off - m.offset);
                }
            }
            // Another connection data arrives (only the checks run: it is taken at connection time only).
            _ => {
                let c = ConnData::parse(b.take(CONN_DATA_LEN));
                if let Some(Ok(p)) = c.map(|c| c.validate()) {
                    let _ = p.check_sge(&RsSge { addr: p.rbuf_addr, key: p.key, length: p.half });
                }
            }
        }
        check_invariants(&rs);
    }
}

/// The fuzz target `rsock_dgram`: `data` is a completion's `byte_len` (4 bytes) and a receive slot's bytes.
pub(crate) fn dgram(data: &[u8]) {
    let mut b = Bytes(data);
    let byte_len = b.u32();
    let mut slot = vec![0u8; SNDLOWAT as usize];
    let rest = b.take(SNDLOWAT as usize);
    slot[..rest.len()].copy_from_slice(rest);
    if let Ok((_, hl, n)) = ud_datagram(byte_len, &slot) {
        assert!(hl + n <= slot.len() && hl >= DS_IPV4_HDR_LEN);
        assert_eq!(parse_ds_header(&slot[..hl + n]).map(|(_, h)| h), Some(hl));
    }
}

/// The fuzz target `rsock_udp_service`: address-service messages, each a source byte (one of 8 addresses: IPv4
/// or IPv6 by its top bit), a 16-bit length and that many bytes, parsed and planned against a simulated table of
/// destinations (seeded with one address we wrote to).
pub(crate) fn udp_service(data: &[u8]) {
    let mut b = Bytes(data);
    let mut dests: Vec<(u8, u32)> = vec![(0, 0)];
    let mut learned = 0;
    let mut queued = 0usize;
    while !b.0.is_empty() {
        let src = b.u8() & 0x87;
        let n = usize::from(b.u16() % 4096);
        let msg = b.take(n).to_vec();
        let Ok(m) = parse_service(&msg, src & 0x80 != 0) else { continue };
        assert!(m.qpn > 1 && m.qpn <= 0xFF_FFFF && m.data.len() <= SNDLOWAT as usize);
        let known = dests.iter().position(|d| d.0 == src);
        match plan(known.is_some(), m.op, dests.len(), learned) {
            Plan::Known => {
                let d = known.unwrap_or_default();
                dests[d].1 = m.qpn;
            }
            Plan::Drop => assert_eq!(m.op, UDP_OP_CTRL),
            Plan::QueueOnly => queued += 1,
            Plan::Learn => {
                learned += 1;
                dests.push((src, m.qpn));
            }
        }
        assert!(dests.len() <= MAX_DESTS && learned <= LEARN_PER_CALL);
        if b.0.len() % 7 == 0 {
            // A new call of the service.
            learned = 0;
        }
    }
    let _ = queued;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Our own side's connection data as a peer would send it (a peer of the same sizes).
    fn peer_conn(credits: u16) -> Vec<u8> {
        ConnData {
            version: 1,
            flags: CONN_FLAG_IOMAP,
            credits,
            target_iomap_size: 4,
            target_sgl: RsSge { addr: 0x10_0000, key: 9, length: 2 },
            data_buf: RsSge { addr: 0x20_0000, key: 10, length: 2048 },
        }
        .to_bytes()
        .to_vec()
    }

    fn ev_msg(m: u32, written: u32) -> Vec<u8> {
        let mut v = vec![0u8];
        v.extend_from_slice(&m.to_le_bytes());
        v.push(3);
        v.extend_from_slice(&written.to_le_bytes());
        v
    }

    #[test]
    fn honest_sequences_keep_the_accounting() {
        // cfg 0: rq 16, rbuf 4096; the peer sends 2048 bytes in two messages, we read them, grant credits.
        let mut d = vec![0u8];
        d.extend(peer_conn(16));
        d.extend(ev_msg(msg(OP_DATA, 1000), 1000));
        d.extend(ev_msg(msg(OP_DATA, 1048), 1048));
        d.extend([3, 0x00, 0x08, 0]); // read 2048
        d.push(5); // credits
        d.extend(ev_msg(msg(OP_SGL, 16), 16)); // the peer's first grant: flat, with its SGL entry
        d.extend([4, 0x00, 0x04]); // send 1024
        d.extend([6, 1]); // its completion
        stream(&d);
    }

    #[test]
    fn stream_rules() {
        let mut rs = connected(0).unwrap();
        rs.save_conn_data(&ConnData::parse(&peer_conn(16)).unwrap()).unwrap();
        rs.state = RS_CONNECT_RDWR;
        // Data: exactly what the write carried, within the half we handed out.
        assert!(rs.take_msg(msg(OP_DATA, 100), Some(99)).is_err());
        assert!(rs.take_msg(msg(OP_DATA, 2049), Some(2049)).is_err());
        assert!(rs.take_msg(msg(OP_DATA, 2048), Some(2048)).is_ok());
        assert!(rs.take_msg(msg(OP_DATA, 1), Some(1)).is_err());
        // Unknown operations and control codes.
        for m in [msg(1, 5), msg(OP_WRITE, 5), msg(3, 0), msg(5, 0), msg(OP_CTRL, 3), msg(OP_CTRL, 0x1FFF_FFFF)] {
            assert_eq!(rs.take_msg(m, Some(0)), Err(Violation("an unknown operation")), "{m:#x}");
        }
        assert!(rs.take_msg(msg(OP_CTRL, CTRL_KEEPALIVE), Some(0)).is_ok());
        assert!(rs.take_msg(msg(OP_CTRL, CTRL_KEEPALIVE), Some(4)).is_err());
        // Credits: at most 17 bits, not behind our sends, not beyond the peer's receive queue.
        assert!(rs.take_msg(msg(OP_SGL, MAX_GRANT + 1), Some(0)).is_err());
        assert!(rs.take_msg(msg(OP_SGL, 17), Some(0)).is_err());
        assert!(rs.take_msg(msg(OP_SGL, 0xFFFF), Some(0)).is_err());
        assert!(rs.take_msg(msg(OP_SGL, 16), Some(5)).is_err());
        // One flat grant (the first, with its SGL entry), not two before we sent half a buffer.
        assert!(rs.take_msg(msg(OP_SGL, 16), Some(16)).is_ok());
        assert_eq!(rs.take_msg(msg(OP_SGL, 16), Some(16)), Err(Violation("credit grants that grant nothing")));
        // Iomap announcements name a slot of our table and carry one entry.
        assert!(rs.take_msg(msg(OP_IOMAP_SGL, 4), Some(24)).is_err());
        assert!(rs.take_msg(msg(OP_IOMAP_SGL, 0), Some(16)).is_err());
        // No data after the peer's shutdown.
        let mut rs = connected(0).unwrap();
        rs.save_conn_data(&ConnData::parse(&peer_conn(16)).unwrap()).unwrap();
        rs.state = RS_CONNECT_RDWR;
        assert!(rs.take_msg(msg(OP_CTRL, CTRL_SHUTDOWN), Some(0)).is_ok());
        assert!(rs.take_msg(msg(OP_SGL, 16), Some(16)).is_ok());
        assert_eq!(rs.take_msg(msg(OP_DATA, 1), Some(1)), Err(Violation("data after its shutdown")));
        // Failing the connection drops what was unread and answers EPROTO from then on.
        let mut rs = connected(0).unwrap();
        rs.save_conn_data(&ConnData::parse(&peer_conn(16)).unwrap()).unwrap();
        rs.state = RS_CONNECT_RDWR;
        rs.take_msg(msg(OP_DATA, 10), Some(10)).unwrap();
        assert_eq!(rs.peer_broke(Violation("test")).0, libc::EPROTO);
        assert_eq!((rs.reset, rs.unread().1), (libc::EPROTO, 0));
    }

    #[test]
    fn credits_bound_the_messages() {
        // rq 16: the peer may send 16 messages before our next grant, not 17.
        let mut rs = connected(0).unwrap();
        rs.save_conn_data(&ConnData::parse(&peer_conn(16)).unwrap()).unwrap();
        rs.state = RS_CONNECT_RDWR;
        for _ in 0..16 {
            rs.take_msg(msg(OP_DATA, 1), Some(1)).unwrap();
        }
        assert_eq!(rs.take_msg(msg(OP_DATA, 1), Some(1)), Err(Violation("more messages than the credits we granted")));
    }

    #[test]
    fn target_entries_are_checked() {
        let mut rs = connected(0).unwrap();
        rs.save_conn_data(&ConnData::parse(&peer_conn(16)).unwrap()).unwrap();
        rs.state = RS_CONNECT_RDWR;
        assert_eq!(rs.send_target().unwrap(), RsSge { addr: 0x20_0000, key: 10, length: 2048 });
        for bad in [
            RsSge { addr: 0x20_0000, key: 11, length: 2048 },
            RsSge { addr: 0x1F_FFFF, key: 10, length: 1 },
            RsSge { addr: 0x20_0001, key: 10, length: 4096 },
            RsSge { addr: u64::MAX - 4, key: 10, length: 16 },
        ] {
            let mut rs = connected(0).unwrap();
            rs.save_conn_data(&ConnData::parse(&peer_conn(16)).unwrap()).unwrap();
            rs.state = RS_CONNECT_RDWR;
            peer_write(&rs, 0, &bad.to_ne_bytes());
            assert_eq!(rs.send_target(), Err(rdma_common::errno::Errno(libc::EPROTO)), "{bad:?}");
        }
        // The iomap table: an entry that wraps is a lie, an empty one is unused.
        let mut rs = connected(0x40).unwrap();
        rs.save_conn_data(&ConnData::parse(&peer_conn(16)).unwrap()).unwrap();
        let e = RsIomap { offset: u64::MAX - 10, sge: RsSge { addr: 0x1000, key: 1, length: 100 } };
        peer_write(&rs, 32 + 24, &e.to_ne_bytes());
        assert!(find_iomap(&rs, 5).is_err());
        let e = RsIomap { offset: 4096, sge: RsSge { addr: 0x1000, key: 1, length: 100 } };
        peer_write(&rs, 32 + 24, &e.to_ne_bytes());
        assert_eq!(find_iomap(&rs, 4100).unwrap(), Some(e));
        assert_eq!(find_iomap(&rs, 4196).unwrap(), None);
    }

    #[test]
    fn connection_data_rules() {
        let good = ConnData::parse(&peer_conn(16)).unwrap();
        assert!(good.validate().is_ok());
        let mut c = good;
        c.version = 2;
        assert_eq!(c.validate(), Err(None));
        let mut c = good;
        c.target_sgl.length = 1;
        assert!(matches!(c.validate(), Err(Some(_))));
        let mut c = good;
        c.target_sgl.addr = u64::MAX - 40;
        assert!(matches!(c.validate(), Err(Some(_))));
        let mut c = good;
        c.data_buf.length = 0;
        assert!(matches!(c.validate(), Err(Some(_))));
        let mut c = good;
        c.data_buf.addr = u64::MAX - 100;
        assert!(matches!(c.validate(), Err(Some(_))));
    }

    #[test]
    fn datagram_rules() {
        let mut slot = vec![0u8; SNDLOWAT as usize];
        let a = DsAddr::V4 { port: [1, 2], addr: [198, 18, 0, 2] };
        let (h, hl) = ds_header(&a);
        slot[..hl].copy_from_slice(&h[..hl]);
        assert_eq!(ud_datagram((GRH_LEN + 8 + 5) as u32, &slot), Ok((a, 8, 5)));
        assert!(ud_datagram((GRH_LEN + 7) as u32, &slot).is_err());
        assert!(ud_datagram(3, &slot).is_err());
        assert!(ud_datagram((GRH_LEN + SNDLOWAT as usize + 1) as u32, &slot).is_err());
        slot[1] = 24;
        assert!(ud_datagram((GRH_LEN + 100) as u32, &slot).is_err());
        dgram(&[0xFF; 64]);
    }

    #[test]
    fn service_rules() {
        let a = DsAddr::V4 { port: [0, 0], addr: [198, 18, 0, 2] };
        let (h, hl) = udp_header(UDP_OP_DATA, 0x11, &a);
        let mut m = h[..hl].to_vec();
        m.extend_from_slice(b"hello");
        assert_eq!(parse_service(&m, false), Ok(SvcMsg { op: UDP_OP_DATA, qpn: 0x11, data: b"hello" }));
        // A reply carries no data; QP 0 and 1 are not UD QPs; unknown operations; oversized datagrams.
        let (h, _) = udp_header(UDP_OP_CTRL, 0x11, &a);
        let mut c = h[..hl].to_vec();
        assert!(parse_service(&c, false).is_ok());
        c.push(0);
        assert!(parse_service(&c, false).is_err());
        let (h, _) = udp_header(UDP_OP_DATA, 1, &a);
        assert!(parse_service(&h[..hl], false).is_err());
        let (h, _) = udp_header(3, 0x11, &a);
        assert!(parse_service(&h[..hl], false).is_err());
        let mut big = h[..hl].to_vec();
        big[5] = UDP_OP_DATA;
        big.resize(hl + 2041, 0);
        assert!(parse_service(&big, false).is_err());
        big.truncate(hl + 2040);
        assert!(parse_service(&big, false).is_ok());
        // Replies only from destinations; new destinations bounded.
        assert_eq!(plan(false, UDP_OP_CTRL, 1, 0), Plan::Drop);
        assert_eq!(plan(true, UDP_OP_CTRL, 1, 0), Plan::Known);
        assert_eq!(plan(false, UDP_OP_DATA, 1, 0), Plan::Learn);
        assert_eq!(plan(false, UDP_OP_DATA, 1, LEARN_PER_CALL), Plan::QueueOnly);
        assert_eq!(plan(false, UDP_OP_DATA, MAX_DESTS, 0), Plan::QueueOnly);
        udp_service(&[0x80, 0xFF, 0x0F, 1, 2, 3]);
    }
}
