//! The stream rsocket wire protocol of rdma-core 44, as facts: what two peers exchange, byte for byte.
//!
//! * **Connection**: the active side puts a 40-byte [`ConnData`] in the CM REQ's private data, the passive side
//!   answers with its own in the REP. It names the peer's *target SGL* (an array of [`SGL_SIZE`] [`RsSge`]
//!   entries the sender of data reads, and the receiver of data writes by RDMA), the first half of the
//!   receive buffer, the initial credits (the receive queue depth) and the size of the `riomap` table that follows
//!   the target SGL. Multi-byte fields are big-endian.
//! * **Messages**: every message is an RDMA write with immediate data (a zero-length one for control messages);
//!   the 32-bit immediate carries an operation in bits 31..29 and its argument in bits 28..0 ([`msg`]). Data
//!   messages (`OP_DATA`, argument = byte count) land in the receive buffer region the peer last advertised;
//!   `OP_SGL` grants credits (argument = the new send-sequence limit) and, when it carries 16 bytes, writes a fresh
//!   [`RsSge`] (the next half of the receive buffer) into the sender's target SGL; `OP_CTRL` carries
//!   `CTRL_DISCONNECT`, `CTRL_SHUTDOWN` (or, as a plain RDMA write that the peer never sees, `CTRL_KEEPALIVE`);
//!   `OP_IOMAP_SGL` writes an [`RsIomap`] into the peer's iomap table (argument = slot index).
//! * **SGL entries** written by RDMA are in the *receiver's* byte order: a peer whose `CONN_FLAG_NET` differs
//!   from ours gets them byte-swapped.

use std::mem::size_of;

/// The first transfer of a send is at most this many bytes; each following one doubles, up to [`MAX_TRANSFER`].
pub(super) const OLAP_START_SIZE: u32 = 2048;
/// The largest single RDMA write of a send.
pub(super) const MAX_TRANSFER: u32 = 65536;
/// A send waits until at least this many bytes of send buffer are free (and datagram slots have this size).
pub(super) const SNDLOWAT: u32 = 2048;
/// Queue depth limits.
pub(super) const QP_MIN_SIZE: u16 = 16;
pub(super) const QP_MAX_SIZE: u16 = 0xFFFE;
/// Control messages that may be outstanding on the send queue (a power of 2).
pub(super) const QP_CTRL_SIZE: u32 = 4;
/// Address and route resolution retries (each timeout doubles from 1 s).
pub(super) const CONN_RETRIES: u32 = 6;
/// Entries in the target SGL.
pub(super) const SGL_SIZE: usize = 2;

pub(super) const OP_DATA: u32 = 0;
/// Direct write into a peer's iomap: never on the wire (only in our send work-request ids).
pub(super) const OP_WRITE: u32 = 2;
pub(super) const OP_SGL: u32 = 4;
pub(super) const OP_IOMAP_SGL: u32 = 6;
pub(super) const OP_CTRL: u32 = 7;

pub(super) const CTRL_DISCONNECT: u32 = 0;
pub(super) const CTRL_KEEPALIVE: u32 = 1;
pub(super) const CTRL_SHUTDOWN: u32 = 2;

/// Receive work requests carry this bit in `wr_id`.
pub(super) const WR_ID_RECV: u64 = 1 << 63;
/// The 4-byte send that carries a message on iWARP (no immediate data there) carries this bit.
pub(super) const WR_ID_MSG_SEND: u64 = 1 << 62;

/// The peer's host is big-endian.
pub(super) const CONN_FLAG_NET: u8 = 1 << 0;
/// The peer has an iomap table after its target SGL.
pub(super) const CONN_FLAG_IOMAP: u8 = 1 << 1;

/// Immediate data of a message: `op` in bits 31..29, `data` in bits 28..0.
pub(super) const fn msg(op: u32, data: u32) -> u32 {
    (op << 29) | (data & 0x1FFF_FFFF)
}

pub(super) const fn msg_op(m: u32) -> u32 {
    m >> 29
}

pub(super) const fn msg_data(m: u32) -> u32 {
    m & 0x1FFF_FFFF
}

/// One scatter entry as the protocol writes it into a peer's memory: `struct rs_sge`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct RsSge {
    pub addr: u64,
    pub key: u32,
    pub length: u32,
}

/// One `riomap` slot: the peer's offset and where it lives (`struct rs_iomap`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct RsIomap {
    pub offset: u64,
    pub sge: RsSge,
}

const _: () = assert!(size_of::<RsSge>() == 16 && size_of::<RsIomap>() == 24);

impl RsSge {
    /// The entry byte-swapped (for a peer of the other byte order).
    pub(super) fn swapped(self) -> RsSge {
        RsSge { addr: self.addr.swap_bytes(), key: self.key.swap_bytes(), length: self.length.swap_bytes() }
    }

    /// Its 16 bytes in this host's order (what an RDMA write of the struct carries).
    pub(super) fn to_ne_bytes(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0..8].copy_from_slice(&self.addr.to_ne_bytes());
        b[8..12].copy_from_slice(&self.key.to_ne_bytes());
        b[12..16].copy_from_slice(&self.length.to_ne_bytes());
        b
    }
}

impl RsIomap {
    pub(super) fn swapped(self) -> RsIomap {
        RsIomap { offset: self.offset.swap_bytes(), sge: self.sge.swapped() }
    }

    pub(super) fn to_ne_bytes(self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[0..8].copy_from_slice(&self.offset.to_ne_bytes());
        b[8..24].copy_from_slice(&self.sge.to_ne_bytes());
        b
    }
}

/// The connection private data (`struct rs_conn_data`), with fields in host order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct ConnData {
    pub version: u8,
    pub flags: u8,
    /// Receive credits granted: the sender's receive queue depth.
    pub credits: u16,
    /// Size of the iomap table, scaled by [`value_to_scale`] (8 bits).
    pub target_iomap_size: u8,
    /// The target SGL: address, rkey, and its number of entries as `length`.
    pub target_sgl: RsSge,
    /// The first receive buffer region the peer may write.
    pub data_buf: RsSge,
}

/// Bytes of [`ConnData`] on the wire.
pub(super) const CONN_DATA_LEN: usize = 40;

impl ConnData {
    pub(super) fn to_bytes(self) -> [u8; CONN_DATA_LEN] {
        let mut b = [0u8; CONN_DATA_LEN];
        b[0] = self.version;
        b[1] = self.flags;
        b[2..4].copy_from_slice(&self.credits.to_be_bytes());
        // b[4..7] reserved, zero.
        b[7] = self.target_iomap_size;
        for (i, s) in [self.target_sgl, self.data_buf].iter().enumerate() {
            let o = 8 + 16 * i;
            b[o..o + 8].copy_from_slice(&s.addr.to_be_bytes());
            b[o + 8..o + 12].copy_from_slice(&s.key.to_be_bytes());
            b[o + 12..o + 16].copy_from_slice(&s.length.to_be_bytes());
        }
        b
    }

    /// Parses the first [`CONN_DATA_LEN`] bytes; None when shorter.
    pub(super) fn parse(b: &[u8]) -> Option<ConnData> {
        if b.len() < CONN_DATA_LEN {
            return None;
        }
        let sge = |o: usize| RsSge {
            addr: u64::from_be_bytes(b[o..o + 8].try_into().unwrap_or_default()),
            key: u32::from_be_bytes(b[o + 8..o + 12].try_into().unwrap_or_default()),
            length: u32::from_be_bytes(b[o + 12..o + 16].try_into().unwrap_or_default()),
        };
        Some(ConnData {
            version: b[0],
            flags: b[1],
            credits: u16::from_be_bytes([b[2], b[3]]),
            target_iomap_size: b[7],
            target_sgl: sge(8),
            data_buf: sge(24),
        })
    }
}

/// A rule of the protocol a peer broke: what it sent, for the log line. The connection it came on fails with
/// `EPROTO` (docs/cm.md, "Peer input").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Violation(pub &'static str);

/// The bounds the peer's connection data sets for everything it sends later: its receive credits, and its
/// receive buffer (where every target SGL entry it hands us must point).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct PeerLimits {
    /// The credits it granted at the start: its receive queue depth. No later grant may run further ahead of our
    /// send sequence than this.
    pub credits: u16,
    /// Its receive buffer: `data_buf` is the first half, so the whole is `[addr, addr + 2 * half)`, under `key`.
    pub rbuf_addr: u64,
    pub half: u32,
    pub key: u32,
}

impl PeerLimits {
    /// Whether target SGL entry `s` (as the peer wrote it into our memory) lies inside the peer's receive buffer,
    /// under its key. An entry of length 0 (used up, or not written yet) names nothing and passes.
    pub(super) fn check_sge(&self, s: &RsSge) -> Result<(), Violation> {
        if s.length == 0 {
            return Ok(());
        }
        // validate() made sure the whole buffer fits in the address space.
        let end = (u64::from(self.half) * 2).saturating_add(self.rbuf_addr);
        if s.key != self.key {
            return Err(Violation("a target SGL entry with another key than its receive buffer's"));
        }
        match s.addr.checked_add(u64::from(s.length)) {
            Some(e) if s.addr >= self.rbuf_addr && e <= end => Ok(()),
            _ => Err(Violation("a target SGL entry outside its receive buffer")),
        }
    }
}

impl ConnData {
    /// The peer's connection data held to the protocol (rdma-core never sends otherwise): version 1 (else
    /// `Err(None)`: another protocol, which rdma-core answers `EOPNOTSUPP`), a target SGL of at least 2 entries
    /// (the first SGL update goes to entry 1) whose table and the iomap table after it fit in the address space,
    /// and a non-empty first receive-buffer half whose whole buffer does too. Returns the limits for what follows.
    pub(super) fn validate(&self) -> Result<PeerLimits, Option<Violation>> {
        if self.version != 1 {
            return Err(None);
        }
        let t = &self.target_sgl;
        let iomap = scale_to_value(i32::from(self.target_iomap_size), 8).max(0) as u64;
        let tables = u64::from(t.length)
            .checked_mul(size_of::<RsSge>() as u64)
            .and_then(|n| n.checked_add(size_of::<RsIomap>() as u64 * iomap));
        if t.length < SGL_SIZE as u32 || tables.and_then(|n| t.addr.checked_add(n)).is_none() {
            return Err(Some(Violation("a target SGL that is too short or does not fit in memory")));
        }
        let d = &self.data_buf;
        if d.length == 0 || d.addr.checked_add(u64::from(d.length) * 2).is_none() {
            return Err(Some(Violation("an empty receive buffer, or one that does not fit in memory")));
        }
        Ok(PeerLimits { credits: self.credits, rbuf_addr: d.addr, half: d.length, key: d.key })
    }
}

/// Where an iomap entry the peer wrote into our table maps: the peer's offsets `[offset, end)` at `addr`, or
/// `Ok(None)` for an unused entry (length 0). An entry whose range or address wraps around is a lie.
pub(super) fn iomap_range(m: &RsIomap) -> Result<Option<(u64, u64)>, Violation> {
    let len = u64::from(m.sge.length);
    if len == 0 {
        return Ok(None);
    }
    match (m.offset.checked_add(len), m.sge.addr.checked_add(len)) {
        (Some(end), Some(_)) => Ok(Some((m.offset, end))),
        _ => Err(Violation("an iomap entry that wraps around the address space")),
    }
}

/// One message a peer sent, decoded from its immediate data (the 4-byte send on iWARP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Msg {
    /// `len` bytes written into our receive buffer.
    Data(u32),
    /// Credits: the new send-sequence limit (rdma-core computes it in an `int`: up to 0x1FFFD).
    Sgl(u32),
    /// Slot `index` of our iomap table was written.
    IomapSgl(u32),
    Disconnect,
    Shutdown,
    /// Never an immediate in rdma-core (a plain RDMA write); harmless.
    Keepalive,
    /// An operation no rsocket sends with immediate data (reserved ops, `OP_WRITE`, unknown control codes).
    Unknown(u32),
}

/// Decodes the 32-bit message `m` (rdma-core's receive switch, which treats unknown operations as data).
pub(super) fn decode(m: u32) -> Msg {
    let data = msg_data(m);
    match msg_op(m) {
        OP_DATA => Msg::Data(data),
        OP_SGL => Msg::Sgl(data),
        OP_IOMAP_SGL => Msg::IomapSgl(data),
        OP_CTRL => match data {
            CTRL_DISCONNECT => Msg::Disconnect,
            CTRL_SHUTDOWN => Msg::Shutdown,
            CTRL_KEEPALIVE => Msg::Keepalive,
            _ => Msg::Unknown(m),
        },
        _ => Msg::Unknown(m),
    }
}

/// The largest credit value a peer can send: rdma-core's `rseq_no + rq_size` of two 16-bit values.
pub(super) const MAX_GRANT: u32 = 0x1_FFFF;

/// Whether this host is big-endian (`CONN_FLAG_NET`).
pub(super) const fn host_is_net() -> bool {
    cfg!(target_endian = "big")
}

/// rdma-core's `rs_value_to_scale`: values up to `2^(bits-1)` as they are, larger ones as a top flag bit plus
/// the value shifted right by `bits`.
pub(super) fn value_to_scale(value: i32, bits: u32) -> i32 {
    if value <= (1 << (bits - 1)) {
        value
    } else {
        (1 << (bits - 1)) | (value >> bits)
    }
}

/// The inverse of [`value_to_scale`].
pub(super) fn scale_to_value(value: i32, bits: u32) -> i32 {
    if value <= (1 << (bits - 1)) {
        value
    } else {
        (value & !(1 << (bits - 1))) << bits
    }
}

/// The size of the next transfer of a send of which `left` bytes remain, as rdma-core sizes them so that small
/// sends go out at once and large ones overlap: `olen` (starting at `OLAP_START_SIZE`) while it is below `left`,
/// doubling after each use up to `MAX_TRANSFER`; then the rest.
pub(super) fn next_xfer(olen: &mut usize, left: usize) -> usize {
    if *olen >= left {
        return left;
    }
    let x = *olen;
    if *olen < MAX_TRANSFER as usize {
        *olen <<= 1;
    }
    x
}

// ---- datagram rsockets ---------------------------------------------------------------------------------------
//
// * **Data** travels in UD sends: a [`ds_header`] naming the sender's source address (the address of the UD QP the
//   message left from, which is the sender's socket address), then the datagram. A receive lands after the 40-byte
//   GRH slot every UD receive starts with.
// * **Address service**: until a sender knows the receiver's QP number and has an address handle for it, it sends
//   the datagram through its kernel UDP socket to the receiver's, prefixed by a [`udp_header`] naming the QP it
//   sends from (`op` [`UDP_OP_DATA`]). The receiver answers each such message with a bare header of its own QP
//   (`op` [`UDP_OP_CTRL`]); each side then resolves an address handle back to the other. Multi-byte fields are
//   big-endian (ports and addresses as in a `sockaddr`).

/// `struct ds_header` lengths: version 4 (8 bytes: version, length, port, IPv4 address) and version 6 (24 bytes:
/// version, length, port, flow info, IPv6 address).
pub(super) const DS_IPV4_HDR_LEN: usize = 8;
pub(super) const DS_IPV6_HDR_LEN: usize = 24;
/// Room for the global route header at the start of every UD receive.
pub(super) const GRH_LEN: usize = 40;
/// The first 4 bytes of every address-service message.
pub(super) const UDP_TAG: u32 = 0x5555_5555;
/// `struct ds_udp_header` lengths (tag, version, op, length, reserved, QP number, address).
pub(super) const UDP_IPV4_HDR_LEN: usize = 16;
pub(super) const UDP_IPV6_HDR_LEN: usize = 28;
/// Address-service operations: a datagram follows (answered with `CTRL`) / only the sender's QP number.
pub(super) const UDP_OP_DATA: u8 = OP_DATA as u8;
pub(super) const UDP_OP_CTRL: u8 = OP_CTRL as u8;

/// An IPv4 or IPv6 socket address as the datagram headers carry it: port and addresses in network byte order, as
/// in a `sockaddr` (`scope` is the IPv6 scope id, never on the wire but part of the address for lookups).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DsAddr {
    V4 { port: [u8; 2], addr: [u8; 4] },
    V6 { port: [u8; 2], flowinfo: [u8; 4], addr: [u8; 16], scope: u32 },
}

/// The `ds_header` naming source address `a`: the bytes and how many of them are used.
pub(super) fn ds_header(a: &DsAddr) -> ([u8; DS_IPV6_HDR_LEN], usize) {
    let mut b = [0u8; DS_IPV6_HDR_LEN];
    match a {
        DsAddr::V4 { port, addr } => {
            b[0] = 4;
            b[1] = DS_IPV4_HDR_LEN as u8;
            b[2..4].copy_from_slice(port);
            b[4..8].copy_from_slice(addr);
            (b, DS_IPV4_HDR_LEN)
        }
        DsAddr::V6 { port, flowinfo, addr, .. } => {
            b[0] = 6;
            b[1] = DS_IPV6_HDR_LEN as u8;
            b[2..4].copy_from_slice(port);
            b[4..8].copy_from_slice(flowinfo);
            b[8..24].copy_from_slice(addr);
            (b, DS_IPV6_HDR_LEN)
        }
    }
}

/// Reads the `ds_header` at the start of a received message `b` (without the GRH): the sender's address and the
/// header length, or `None` when the version and length do not match (rdma-core's `ds_valid_recv`) or the message
/// is shorter than its header.
pub(super) fn parse_ds_header(b: &[u8]) -> Option<(DsAddr, usize)> {
    if b.len() < DS_IPV4_HDR_LEN {
        return None;
    }
    let port = [b[2], b[3]];
    match (b[0], usize::from(b[1])) {
        (4, DS_IPV4_HDR_LEN) => Some((DsAddr::V4 { port, addr: b[4..8].try_into().ok()? }, DS_IPV4_HDR_LEN)),
        (6, DS_IPV6_HDR_LEN) if b.len() >= DS_IPV6_HDR_LEN => Some((
            DsAddr::V6 { port, flowinfo: b[4..8].try_into().ok()?, addr: b[8..24].try_into().ok()?, scope: 0 },
            DS_IPV6_HDR_LEN,
        )),
        _ => None,
    }
}

/// The `ds_udp_header` of an address-service message: operation `op`, sender QP number `qpn` (24 bits), sender
/// address `a` (its IP address only). rdma-core copies the flow info and the first 12 bytes of an IPv6 address
/// into the 16-byte field; no receiver reads it.
pub(super) fn udp_header(op: u8, qpn: u32, a: &DsAddr) -> ([u8; UDP_IPV6_HDR_LEN], usize) {
    let mut b = [0u8; UDP_IPV6_HDR_LEN];
    b[0..4].copy_from_slice(&UDP_TAG.to_be_bytes());
    b[5] = op;
    b[8..12].copy_from_slice(&(qpn & 0xFF_FFFF).to_be_bytes());
    let len = match a {
        DsAddr::V4 { addr, .. } => {
            b[4] = 4;
            b[12..16].copy_from_slice(addr);
            UDP_IPV4_HDR_LEN
        }
        DsAddr::V6 { addr, .. } => {
            b[4] = 6;
            b[12..28].copy_from_slice(addr);
            UDP_IPV6_HDR_LEN
        }
    };
    b[6] = len as u8;
    (b, len)
}

/// Reads the `ds_udp_header` of an address-service message `b` that came from an IPv6 (`from_v6`) or IPv4
/// address: `(op, qpn, header length)`, or `None` when the tag, version (which must match the sender's family) or
/// length is wrong, as rdma-core's `udp_svc_valid_udp_hdr`.
pub(super) fn parse_udp_header(b: &[u8], from_v6: bool) -> Option<(u8, u32, usize)> {
    if b.len() < UDP_IPV4_HDR_LEN || u32::from_be_bytes(b[0..4].try_into().ok()?) != UDP_TAG {
        return None;
    }
    let len = usize::from(b[6]);
    let ok = match b[4] {
        4 => !from_v6 && len == UDP_IPV4_HDR_LEN,
        6 => from_v6 && len == UDP_IPV6_HDR_LEN,
        _ => false,
    };
    if !ok || b.len() < len {
        return None;
    }
    Some((b[5], u32::from_be_bytes(b[8..12].try_into().ok()?) & 0xFF_FFFF, len))
}

/// A datagram's receive completion held to the protocol: `byte_len` as the completion reports it (the GRH slot
/// included), `slot` our receive slot. Returns the sender `ds_header` names, the header's length and the data's
/// length; `Err` for a message shorter than the GRH and a header, one longer than the slot (no device writes
/// that), or a header whose version and length disagree or that the message cuts short.
pub(super) fn ud_datagram(byte_len: u32, slot: &[u8]) -> Result<(DsAddr, usize, usize), Violation> {
    let len = (byte_len as usize)
        .checked_sub(GRH_LEN)
        .filter(|&n| n >= DS_IPV4_HDR_LEN)
        .ok_or(Violation("a datagram shorter than its header"))?;
    if len > slot.len() {
        return Err(Violation("a datagram longer than the receive slot"));
    }
    let (src, hl) = parse_ds_header(&slot[..len]).ok_or(Violation("a datagram header of a bad version or length"))?;
    Ok((src, hl, len - hl))
}

/// An address-service message the service takes in: its operation ([`UDP_OP_DATA`] or [`UDP_OP_CTRL`]), the
/// sender's QP number and, for `DATA`, the datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SvcMsg<'a> {
    pub op: u8,
    pub qpn: u32,
    pub data: &'a [u8],
}

/// Reads an address-service message `b` that came from an IPv6 (`from_v6`) or IPv4 address, held to what a
/// datagram rsocket sends: a valid header ([`parse_udp_header`]), operation `DATA` or `CTRL`, a QP number that a UD
/// QP can have (not 0 or 1, the special QPs), no data after a `CTRL`, and for a `DATA` at most the datagram one
/// send slot carries (`SNDLOWAT` less the family's `ds_header`). rdma-core checks the header only.
pub(super) fn parse_service(b: &[u8], from_v6: bool) -> Result<SvcMsg<'_>, Violation> {
    let (op, qpn, hl) = parse_udp_header(b, from_v6).ok_or(Violation("a bad address-service header"))?;
    let data = &b[hl..];
    let max = SNDLOWAT as usize - if from_v6 { DS_IPV6_HDR_LEN } else { DS_IPV4_HDR_LEN };
    match op {
        UDP_OP_DATA if data.len() > max => Err(Violation("an address-service datagram larger than a send slot")),
        UDP_OP_CTRL if !data.is_empty() => Err(Violation("an address-service reply carrying data")),
        UDP_OP_DATA | UDP_OP_CTRL if qpn > 1 => Ok(SvcMsg { op, qpn, data }),
        UDP_OP_DATA | UDP_OP_CTRL => Err(Violation("an address-service message naming QP 0 or 1")),
        _ => Err(Violation("an unknown address-service operation")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediate_layout() {
        assert_eq!(msg(OP_SGL, 384), 0x8000_0180);
        assert_eq!(msg(OP_CTRL, CTRL_DISCONNECT), 0xE000_0000);
        assert_eq!(msg_op(0xE000_0002), OP_CTRL);
        assert_eq!(msg_data(0xE000_0002), CTRL_SHUTDOWN);
        assert_eq!(msg_data(msg(OP_DATA, 65536)), 65536);
    }

    #[test]
    fn conn_data_bytes() {
        let c = ConnData {
            version: 1,
            flags: CONN_FLAG_IOMAP,
            credits: 384,
            target_iomap_size: 0,
            target_sgl: RsSge { addr: 0x1122_3344_5566_7788, key: 0xAABB_CCDD, length: 2 },
            data_buf: RsSge { addr: 0x1000, key: 7, length: 65536 },
        };
        let b = c.to_bytes();
        assert_eq!(&b[..8], &[1, 2, 0x01, 0x80, 0, 0, 0, 0]);
        assert_eq!(&b[8..24], &[0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 0, 2]);
        assert_eq!(&b[36..40], &[0, 1, 0, 0]);
        assert_eq!(ConnData::parse(&b), Some(c));
        assert_eq!(ConnData::parse(&b[..39]), None);
    }

    #[test]
    fn scale() {
        for v in [0, 1, 64, 128] {
            assert_eq!(value_to_scale(v, 8), v);
            assert_eq!(scale_to_value(value_to_scale(v, 8), 8), v);
        }
        assert_eq!(value_to_scale(512, 8), 130);
        assert_eq!(scale_to_value(130, 8), 512);
    }

    #[test]
    fn sge_bytes() {
        let s = RsSge { addr: 1, key: 2, length: 3 };
        assert_eq!(s.swapped().swapped(), s);
        let b = s.to_ne_bytes();
        assert_eq!(u32::from_ne_bytes(b[8..12].try_into().unwrap()), 2);
    }
    #[test]
    fn ds_header_bytes() {
        let a = DsAddr::V4 { port: 7174u16.to_be_bytes(), addr: [198, 18, 0, 1] };
        let (b, n) = ds_header(&a);
        assert_eq!(&b[..n], &[4, 8, 0x1C, 0x06, 198, 18, 0, 1]);
        assert_eq!(parse_ds_header(&b[..n]), Some((a, 8)));
        let mut six = [0u8; 16];
        six[15] = 1;
        let a6 = DsAddr::V6 { port: [0x12, 0x34], flowinfo: [0, 0, 0, 9], addr: six, scope: 0 };
        let (b, n) = ds_header(&a6);
        assert_eq!(n, 24);
        assert_eq!(&b[..8], &[6, 24, 0x12, 0x34, 0, 0, 0, 9]);
        assert_eq!(b[23], 1);
        assert_eq!(parse_ds_header(&b), Some((a6, 24)));
        // Wrong version/length pairs and short messages are not datagrams.
        assert_eq!(parse_ds_header(&[4, 24, 0, 0, 1, 2, 3, 4]), None);
        assert_eq!(parse_ds_header(&[6, 24, 0, 0, 1, 2, 3, 4]), None);
        assert_eq!(parse_ds_header(&[5, 8, 0, 0, 1, 2, 3, 4]), None);
        assert_eq!(parse_ds_header(&[4, 8, 0]), None);
    }

    #[test]
    fn udp_header_bytes() {
        let a = DsAddr::V4 { port: [0, 0], addr: [198, 18, 0, 2] };
        let (b, n) = udp_header(UDP_OP_DATA, 0x0102_0304, &a);
        assert_eq!(&b[..n], &[0x55, 0x55, 0x55, 0x55, 4, 0, 16, 0, 0, 0x02, 0x03, 0x04, 198, 18, 0, 2]);
        assert_eq!(parse_udp_header(&b[..n], false), Some((UDP_OP_DATA, 0x02_0304, 16)));
        // The version must match the family the message came from.
        assert_eq!(parse_udp_header(&b[..n], true), None);
        let (b, n) =
            udp_header(UDP_OP_CTRL, 17, &DsAddr::V6 { port: [0; 2], flowinfo: [0; 4], addr: [1; 16], scope: 0 });
        assert_eq!((n, b[4], b[5], b[6]), (28, 6, 7, 28));
        assert_eq!(parse_udp_header(&b[..n], true), Some((UDP_OP_CTRL, 17, 28)));
        assert_eq!(parse_udp_header(&b[..20], true), None);
        let mut bad = b;
        bad[0] = 0x54;
        assert_eq!(parse_udp_header(&bad[..n], true), None);
    }
}
