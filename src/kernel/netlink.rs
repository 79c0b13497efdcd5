//! `NETLINK_RDMA` (`RDMA_NL_NLDEV`): the two requests discovery makes, and the netlink message format (also used by
//! `NETLINK_ROUTE`'s requests in [`super::rtnl`]).
//!
//! RDMA netlink messages have no family header: the payload after `struct nlmsghdr` is attributes
//! (`struct nlattr` + value, each padded to 4 bytes). Requests carry `NLM_F_REQUEST` (plus `NLM_F_DUMP` for the
//! device dump) and no `NLM_F_ACK`, as rdma-core's libnl sockets send them: a successful `GET_CHARDEV` is answered
//! by its reply alone, a failure by `NLMSG_ERROR`; the dump ends with `NLMSG_DONE`.

use rdma_common::errno::{Errno, Result};
use rdma_common::sys::netlink::NetlinkSocket;
use rdma_common::uapi::rdma_netlink::*;
use std::cell::Cell;

/// The kernel's `RDMA_NL_GET_TYPE(client, op)` (a function-like macro of `rdma_netlink.h`): `client << 10 | op`.
pub const fn rdma_nl_get_type(client: u32, op: u32) -> u16 {
    ((client << 10) + op) as u16
}

pub(crate) const NLMSG_HDRLEN: usize = 16;
const NLA_HDRLEN: usize = 4;
/// `NLA_TYPE_MASK`: the attribute type without `NLA_F_NESTED` / `NLA_F_NET_BYTEORDER`.
const NLA_TYPE_MASK: u16 = 0x3fff;
/// The receive buffer: the kernel's netlink dumps fill at most 32 KiB per datagram.
pub(crate) const RECV_BUF: usize = 64 * 1024;

pub(crate) const fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// Something netlink datagrams can be sent to and received from: the real socket, or a test's canned kernel.
pub trait NlTransport {
    fn send(&self, msg: &[u8]) -> Result<()>;
    fn recv(&self, buf: &mut [u8]) -> Result<usize>;
}

impl NlTransport for NetlinkSocket {
    fn send(&self, msg: &[u8]) -> Result<()> {
        NetlinkSocket::send(self, msg)
    }
    fn recv(&self, buf: &mut [u8]) -> Result<usize> {
        NetlinkSocket::recv(self, buf)
    }
}

/// Opens the `NETLINK_RDMA` socket. Errors: `EPROTONOSUPPORT` when the RDMA netlink family does not exist (no
/// `ib_core`), which discovery takes as "try sysfs".
pub fn open() -> Result<NetlinkSocket> {
    NetlinkSocket::open(libc::NETLINK_RDMA)
}

/// An attribute value to encode.
pub enum NlAttr<'a> {
    U32(u32),
    /// A NUL-terminated string (`NLA_NUL_STRING`): the terminator is added here.
    Str(&'a str),
    /// Raw bytes (an address: `NLA_BINARY`).
    Bytes(&'a [u8]),
}

/// Encodes one request message.
pub fn encode(ty: u16, flags: u16, seq: u32, attrs: &[(u16, NlAttr<'_>)]) -> Vec<u8> {
    encode_with(ty, flags, seq, &[], attrs)
}

/// Encodes one request message whose payload starts with a family header (`struct rtmsg`, `struct ifinfomsg`,
/// ... of `NETLINK_ROUTE`; padded to 4 bytes), then the attributes.
pub fn encode_with(ty: u16, flags: u16, seq: u32, family_hdr: &[u8], attrs: &[(u16, NlAttr<'_>)]) -> Vec<u8> {
    let mut m = vec![0u8; NLMSG_HDRLEN];
    m.extend_from_slice(family_hdr);
    m.resize(align4(m.len()), 0);
    for (t, v) in attrs {
        let val: Vec<u8> = match v {
            NlAttr::U32(x) => x.to_ne_bytes().to_vec(),
            NlAttr::Str(s) => s.bytes().chain(std::iter::once(0)).collect(),
            NlAttr::Bytes(b) => b.to_vec(),
        };
        let len = NLA_HDRLEN + val.len();
        m.extend_from_slice(&(len as u16).to_ne_bytes());
        m.extend_from_slice(&t.to_ne_bytes());
        m.extend_from_slice(&val);
        m.resize(align4(m.len()), 0);
    }
    let len = m.len() as u32;
    m[0..4].copy_from_slice(&len.to_ne_bytes());
    m[4..6].copy_from_slice(&ty.to_ne_bytes());
    m[6..8].copy_from_slice(&flags.to_ne_bytes());
    m[8..12].copy_from_slice(&seq.to_ne_bytes());
    // nlmsg_pid 0: to the kernel
    m
}

/// One received message.
#[derive(Debug)]
pub struct NlMsg<'a> {
    pub ty: u16,
    pub flags: u16,
    pub seq: u32,
    pub payload: &'a [u8],
}

/// Splits a datagram into its messages. Errors: `EPROTO` for a malformed length.
pub fn messages(mut buf: &[u8]) -> Result<Vec<NlMsg<'_>>> {
    let mut v = Vec::new();
    while buf.len() >= NLMSG_HDRLEN {
        let len = u32::from_ne_bytes(buf[0..4].try_into().unwrap()) as usize;
        if len < NLMSG_HDRLEN || len > buf.len() {
            return Err(Errno::EPROTO);
        }
        v.push(NlMsg {
            ty: u16::from_ne_bytes(buf[4..6].try_into().unwrap()),
            flags: u16::from_ne_bytes(buf[6..8].try_into().unwrap()),
            seq: u32::from_ne_bytes(buf[8..12].try_into().unwrap()),
            payload: &buf[NLMSG_HDRLEN..len],
        });
        buf = &buf[align4(len).min(buf.len())..];
    }
    Ok(v)
}

/// The attributes of a message payload, by type (a later duplicate wins; unknown types are kept and ignored by
/// the readers below).
pub struct Attrs<'a>(Vec<(u16, &'a [u8])>);

impl<'a> Attrs<'a> {
    /// Errors: `EPROTO` for a malformed attribute length.
    pub fn parse(mut p: &'a [u8]) -> Result<Attrs<'a>> {
        let mut v = Vec::new();
        while p.len() >= NLA_HDRLEN {
            let len = u16::from_ne_bytes(p[0..2].try_into().unwrap()) as usize;
            let ty = u16::from_ne_bytes(p[2..4].try_into().unwrap()) & NLA_TYPE_MASK;
            if len < NLA_HDRLEN || len > p.len() {
                return Err(Errno::EPROTO);
            }
            v.push((ty, &p[NLA_HDRLEN..len]));
            p = &p[align4(len).min(p.len())..];
        }
        Ok(Attrs(v))
    }

    /// The raw value of attribute `ty`.
    pub fn bytes(&self, ty: u32) -> Option<&'a [u8]> {
        self.0.iter().rev().find(|(t, _)| *t as u32 == ty).map(|(_, v)| *v)
    }

    fn get(&self, ty: u32) -> Option<&'a [u8]> {
        self.bytes(ty)
    }

    pub fn u8(&self, ty: u32) -> Option<u8> {
        self.get(ty).and_then(|v| v.first().copied())
    }

    pub fn u32(&self, ty: u32) -> Option<u32> {
        self.get(ty).and_then(|v| Some(u32::from_ne_bytes(v.get(..4)?.try_into().ok()?)))
    }

    /// A u64 attribute (unaligned reads: the kernel may or may not insert `RDMA_NLDEV_ATTR_PAD` before it).
    pub fn u64(&self, ty: u32) -> Option<u64> {
        self.get(ty).and_then(|v| Some(u64::from_ne_bytes(v.get(..8)?.try_into().ok()?)))
    }

    /// A string attribute, up to its NUL.
    pub fn str(&self, ty: u32) -> Option<String> {
        let v = self.get(ty)?;
        let end = v.iter().position(|&b| b == 0).unwrap_or(v.len());
        String::from_utf8(v[..end].to_vec()).ok()
    }
}

/// A device as `RDMA_NLDEV_CMD_GET` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NlDevice {
    /// `RDMA_NLDEV_ATTR_DEV_INDEX`: the kernel's device index (unique, stable while the device exists).
    pub index: u32,
    pub name: String,
    /// `RDMA_NLDEV_ATTR_DEV_NODE_TYPE`: the kernel's `enum rdma_node_type`.
    pub node_type: u8,
    /// `RDMA_NLDEV_ATTR_NODE_GUID`: host byte order (the kernel sends `be64_to_cpu(node_guid)`).
    pub node_guid: u64,
    /// `RDMA_NLDEV_ATTR_PORT_INDEX` in a device message: the number of ports.
    pub num_ports: u32,
    /// `RDMA_NLDEV_ATTR_DEV_PROTOCOL`: "ib", "roce", "iw", "opa", "usnic", when the kernel reports one.
    pub protocol: Option<String>,
}

/// The uverbs char device of a device, as `RDMA_NLDEV_CMD_GET_CHARDEV` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NlChardev {
    /// `RDMA_NLDEV_ATTR_CHARDEV_NAME`: "uverbs0".
    pub name: String,
    /// `RDMA_NLDEV_ATTR_CHARDEV_ABI` (low 32 bits; the kernel keeps the high ones 0).
    pub abi: u32,
    /// `RDMA_NLDEV_ATTR_CHARDEV`, decoded from the kernel's `huge_encode_dev` to (major, minor).
    pub dev: (u32, u32),
    /// `RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID` (`RDMA_DRIVER_*`), absent for drivers that bind by modalias.
    pub driver_id: Option<u32>,
}

/// The netlink conversation of discovery: a transport and its sequence numbers.
pub struct Nldev<'t, T: NlTransport + ?Sized> {
    t: &'t T,
    seq: Cell<u32>,
}

impl<'t, T: NlTransport + ?Sized> Nldev<'t, T> {
    pub fn new(t: &'t T) -> Self {
        Nldev { t, seq: Cell::new(1) }
    }

    fn next_seq(&self) -> u32 {
        let s = self.seq.get();
        self.seq.set(s.wrapping_add(1));
        s
    }

    /// Sends one `RDMA_NL_NLDEV` request (`cmd`, `flags` beside `NLM_F_REQUEST`, `attrs`) and hands the attributes
    /// of each reply carrying its sequence number and type to `reply`, until `reply` returns a value (a single
    /// answer: `Ok(Some(v))`) or `NLMSG_DONE` ends a dump (`Ok(None)`). Errors: the kernel's errno from
    /// `NLMSG_ERROR`, `reply`'s, the socket's.
    fn request<R>(
        &self,
        cmd: u32,
        flags: i32,
        attrs: &[(u16, NlAttr<'_>)],
        mut reply: impl FnMut(Attrs<'_>) -> Result<Option<R>>,
    ) -> Result<Option<R>> {
        let seq = self.next_seq();
        let ty = rdma_nl_get_type(RDMA_NL_NLDEV, cmd);
        self.t.send(&encode(ty, (libc::NLM_F_REQUEST | flags) as u16, seq, attrs))?;
        let mut buf = vec![0u8; RECV_BUF];
        loop {
            let n = self.t.recv(&mut buf)?;
            for m in messages(&buf[..n])? {
                if m.seq != seq {
                    continue;
                }
                match m.ty as i32 {
                    libc::NLMSG_DONE => return Ok(None),
                    libc::NLMSG_ERROR => return Err(nlmsg_error(m.payload)),
                    _ if m.ty == ty => {
                        if let Some(v) = reply(Attrs::parse(m.payload)?)? {
                            return Ok(Some(v));
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// `RDMA_NLDEV_CMD_GET` with `NLM_F_DUMP`: every RDMA device of this network namespace, in the kernel's order
    /// (by index). Errors: the kernel's errno from `NLMSG_ERROR`, `EPROTO` for a device message missing one of
    /// index, name, node type, node GUID, port count (rdma-core then gives up on netlink too).
    pub fn devices(&self) -> Result<Vec<NlDevice>> {
        let mut devs = Vec::new();
        self.request(RDMA_NLDEV_CMD_GET, libc::NLM_F_DUMP, &[], |a| {
            devs.push(NlDevice {
                index: a.u32(RDMA_NLDEV_ATTR_DEV_INDEX).ok_or(Errno::EPROTO)?,
                name: a.str(RDMA_NLDEV_ATTR_DEV_NAME).ok_or(Errno::EPROTO)?,
                node_type: a.u8(RDMA_NLDEV_ATTR_DEV_NODE_TYPE).ok_or(Errno::EPROTO)?,
                node_guid: a.u64(RDMA_NLDEV_ATTR_NODE_GUID).ok_or(Errno::EPROTO)?,
                num_ports: a.u32(RDMA_NLDEV_ATTR_PORT_INDEX).ok_or(Errno::EPROTO)?,
                protocol: a.str(RDMA_NLDEV_ATTR_DEV_PROTOCOL),
            });
            Ok(None::<()>)
        })?;
        Ok(devs)
    }

    /// `RDMA_NLDEV_CMD_GET_CHARDEV` for device `index` and client `kind` ("uverbs"). Errors: the kernel's errno
    /// (`EINVAL` for an unknown index, `EOPNOTSUPP` when the client is not loaded); `EPROTO` for a reply
    /// missing the char device, its ABI or its name (or no reply before `NLMSG_DONE`).
    pub fn chardev(&self, index: u32, kind: &str) -> Result<NlChardev> {
        let attrs = [
            (RDMA_NLDEV_ATTR_DEV_INDEX as u16, NlAttr::U32(index)),
            (RDMA_NLDEV_ATTR_CHARDEV_TYPE as u16, NlAttr::Str(kind)),
        ];
        self.request(RDMA_NLDEV_CMD_GET_CHARDEV, 0, &attrs, |a| {
            let cdev = a.u64(RDMA_NLDEV_ATTR_CHARDEV).ok_or(Errno::EPROTO)?;
            Ok(Some(NlChardev {
                name: a.str(RDMA_NLDEV_ATTR_CHARDEV_NAME).ok_or(Errno::EPROTO)?,
                abi: a.u64(RDMA_NLDEV_ATTR_CHARDEV_ABI).ok_or(Errno::EPROTO)? as u32,
                dev: huge_decode_dev(cdev),
                driver_id: a.u32(RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID),
            }))
        })?
        .ok_or(Errno::EPROTO)
    }

    /// `RDMA_NLDEV_CMD_SYS_GET`: whether the kernel copies DMA-pinned pages on `fork()`
    /// (`RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK`, Linux 5.13+), which makes `ibv_fork_init(3)` unnecessary
    /// (`ibv_is_fork_initialized(3)` answers `IBV_FORK_UNNEEDED`, as rdma-core's `get_copy_on_fork`). `Ok(false)`
    /// when the kernel does not report it. Errors: the kernel's errno from `NLMSG_ERROR`.
    pub fn copy_on_fork(&self) -> Result<bool> {
        let r = self.request(RDMA_NLDEV_CMD_SYS_GET, 0, &[], |a| {
            Ok(Some(a.u8(RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK).is_some_and(|v| v != 0)))
        })?;
        Ok(r.unwrap_or(false))
    }
}

/// The errno of an `NLMSG_ERROR` payload (`struct nlmsgerr`: a negative errno, then the request's header); `EIO`
/// for an "error" of 0 where a reply was expected, and for `i32::MIN` (no errno, and no positive counterpart).
pub(crate) fn nlmsg_error(payload: &[u8]) -> Errno {
    match payload.get(..4).map(|b| i32::from_ne_bytes(b.try_into().unwrap())) {
        Some(e) if e < 0 => Errno(e.checked_neg().unwrap_or(libc::EIO)),
        _ => Errno::EIO,
    }
}

/// The inverse of the kernel's `huge_encode_dev` (what `RDMA_NLDEV_ATTR_CHARDEV` carries): (major, minor).
pub fn huge_decode_dev(dev: u64) -> (u32, u32) {
    let major = ((dev & 0xfff00) >> 8) as u32;
    let minor = ((dev & 0xff) | ((dev >> 12) & 0xfff00)) as u32;
    (major, minor)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::VecDeque;

    /// A canned kernel: records what was sent, answers with queued datagrams.
    #[derive(Default)]
    pub(crate) struct FakeNl {
        pub sent: RefCell<Vec<Vec<u8>>>,
        pub replies: RefCell<VecDeque<Result<Vec<u8>>>>,
    }

    impl NlTransport for FakeNl {
        fn send(&self, msg: &[u8]) -> Result<()> {
            self.sent.borrow_mut().push(msg.to_vec());
            Ok(())
        }
        fn recv(&self, buf: &mut [u8]) -> Result<usize> {
            let r = self.replies.borrow_mut().pop_front().expect("fake netlink: no reply queued")?;
            buf[..r.len()].copy_from_slice(&r);
            Ok(r.len())
        }
    }

    /// Encodes a reply message (attributes given as raw values, u64s unaligned after a u32 as the kernel may).
    pub(crate) fn reply(ty: u16, flags: u16, seq: u32, attrs: &[(u32, Vec<u8>)]) -> Vec<u8> {
        let mut m = vec![0u8; NLMSG_HDRLEN];
        for (t, v) in attrs {
            m.extend_from_slice(&((NLA_HDRLEN + v.len()) as u16).to_ne_bytes());
            m.extend_from_slice(&(*t as u16).to_ne_bytes());
            m.extend_from_slice(v);
            m.resize(align4(m.len()), 0);
        }
        let len = m.len() as u32;
        m[0..4].copy_from_slice(&len.to_ne_bytes());
        m[4..6].copy_from_slice(&ty.to_ne_bytes());
        m[6..8].copy_from_slice(&flags.to_ne_bytes());
        m[8..12].copy_from_slice(&seq.to_ne_bytes());
        m
    }

    #[test]
    fn sys_get_copy_on_fork() {
        let t = FakeNl::default();
        let ty = rdma_nl_get_type(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET);
        t.replies.borrow_mut().push_back(Ok(reply(ty, 0, 1, &[(RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, vec![1])])));
        t.replies.borrow_mut().push_back(Ok(reply(ty, 0, 2, &[])));
        t.replies.borrow_mut().push_back(Ok(error(3, libc::EOPNOTSUPP)));
        let nl = Nldev::new(&t);
        assert_eq!(nl.copy_on_fork(), Ok(true));
        assert_eq!(nl.copy_on_fork(), Ok(false), "older kernels do not report it");
        assert_eq!(nl.copy_on_fork(), Err(Errno::EOPNOTSUPP));
        let sent = t.sent.borrow();
        assert_eq!(u16::from_ne_bytes(sent[0][4..6].try_into().unwrap()), ty);
        assert_eq!(u16::from_ne_bytes(sent[0][6..8].try_into().unwrap()), libc::NLM_F_REQUEST as u16);
    }

    pub(crate) fn done(seq: u32) -> Vec<u8> {
        let mut m = reply(libc::NLMSG_DONE as u16, libc::NLM_F_MULTI as u16, seq, &[]);
        m.extend_from_slice(&0i32.to_ne_bytes());
        let len = m.len() as u32;
        m[0..4].copy_from_slice(&len.to_ne_bytes());
        m
    }

    pub(crate) fn error(seq: u32, errno: i32) -> Vec<u8> {
        let mut m = reply(libc::NLMSG_ERROR as u16, 0, seq, &[]);
        m.extend_from_slice(&(-errno).to_ne_bytes());
        m.extend_from_slice(&[0u8; 16]);
        let len = m.len() as u32;
        m[0..4].copy_from_slice(&len.to_ne_bytes());
        m
    }

    pub(crate) fn device_msg(seq: u32, index: u32, name: &str, node_type: u8, guid: u64, ports: u32) -> Vec<u8> {
        let ty = rdma_nl_get_type(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET);
        let mut n = name.as_bytes().to_vec();
        n.push(0);
        reply(
            ty,
            libc::NLM_F_MULTI as u16,
            seq,
            &[
                (RDMA_NLDEV_ATTR_DEV_INDEX, index.to_ne_bytes().to_vec()),
                (RDMA_NLDEV_ATTR_DEV_NAME, n),
                (RDMA_NLDEV_ATTR_PORT_INDEX, ports.to_ne_bytes().to_vec()),
                (RDMA_NLDEV_ATTR_NODE_GUID, guid.to_ne_bytes().to_vec()),
                (RDMA_NLDEV_ATTR_DEV_NODE_TYPE, vec![node_type]),
                (RDMA_NLDEV_ATTR_DEV_PROTOCOL, b"roce\0".to_vec()),
            ],
        )
    }

    pub(crate) fn chardev_msg(seq: u32, name: &str, minor: u64, driver_id: Option<u32>) -> Vec<u8> {
        let ty = rdma_nl_get_type(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV);
        let mut attrs = Vec::new();
        if let Some(d) = driver_id {
            attrs.push((RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, d.to_ne_bytes().to_vec()));
        }
        // huge_encode_dev(MKDEV(231, minor)) = (minor & 0xff) | (231 << 8) | ((minor & ~0xff) << 12)
        let dev = (minor & 0xff) | (231 << 8) | ((minor & !0xff) << 12);
        attrs.push((RDMA_NLDEV_ATTR_CHARDEV, dev.to_ne_bytes().to_vec()));
        attrs.push((RDMA_NLDEV_ATTR_CHARDEV_ABI, 1u64.to_ne_bytes().to_vec()));
        let mut n = name.as_bytes().to_vec();
        n.push(0);
        attrs.push((RDMA_NLDEV_ATTR_CHARDEV_NAME, n));
        reply(ty, 0, seq, &attrs)
    }

    #[test]
    fn request_bytes() {
        let m = encode(rdma_nl_get_type(5, 15), 1, 7, &[(1, NlAttr::U32(3)), (69, NlAttr::Str("uverbs"))]);
        assert_eq!(m.len(), 16 + 8 + 12);
        assert_eq!(&m[0..16], &[36, 0, 0, 0, 15, 20, 1, 0, 7, 0, 0, 0, 0, 0, 0, 0]); // type 5 << 10 | 15 = 0x140f
        assert_eq!(&m[16..24], &[8, 0, 1, 0, 3, 0, 0, 0]);
        assert_eq!(&m[24..], &[11, 0, 69, 0, b'u', b'v', b'e', b'r', b'b', b's', 0, 0]);
        assert_eq!(rdma_nl_get_type(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), 0x1401);
    }

    #[test]
    fn dump_and_chardev() {
        let t = FakeNl::default();
        let mut dgram = device_msg(1, 0, "rxe0", 1, 0x0250_56ff_fe01_0203, 1);
        dgram.extend(device_msg(1, 3, "siw0", 4, 0x0250_56ff_fe01_0204, 1));
        t.replies.borrow_mut().push_back(Ok(dgram));
        t.replies.borrow_mut().push_back(Ok(done(1)));
        t.replies.borrow_mut().push_back(Ok(chardev_msg(2, "uverbs0", 192, Some(14))));
        t.replies.borrow_mut().push_back(Ok(error(3, libc::EOPNOTSUPP)));
        let nl = Nldev::new(&t);
        let devs = nl.devices().unwrap();
        assert_eq!(devs.len(), 2);
        assert_eq!(devs[0].name, "rxe0");
        assert_eq!((devs[1].index, devs[1].node_type, devs[1].num_ports), (3, 4, 1));
        assert_eq!(devs[0].node_guid, 0x0250_56ff_fe01_0203);
        assert_eq!(devs[0].protocol.as_deref(), Some("roce"));
        let c = nl.chardev(0, "uverbs").unwrap();
        assert_eq!(c, NlChardev { name: "uverbs0".into(), abi: 1, dev: (231, 192), driver_id: Some(14) });
        assert_eq!(nl.chardev(3, "uverbs").unwrap_err(), Errno::EOPNOTSUPP);
        let sent = t.sent.borrow();
        assert_eq!(&sent[0], &[16, 0, 0, 0, 0x01, 0x14, 0x01, 0x03, 1, 0, 0, 0, 0, 0, 0, 0]); // REQUEST | DUMP
        assert_eq!(&sent[1][4..8], &[0x0f, 0x14, 0x01, 0x00]); // GET_CHARDEV, REQUEST only
    }

    #[test]
    fn nlmsg_error_values() {
        assert_eq!(nlmsg_error(&(-libc::EINVAL).to_ne_bytes()), Errno::EINVAL);
        assert_eq!(nlmsg_error(&0i32.to_ne_bytes()), Errno::EIO);
        assert_eq!(nlmsg_error(&[0xff, 0xff]), Errno::EIO, "truncated");
        // Found by fuzz/netlink: `-e` overflowed (a panic with overflow checks; a negative "errno" without them).
        assert_eq!(nlmsg_error(&i32::MIN.to_ne_bytes()), Errno::EIO);
        let t = FakeNl::default();
        let mut m = reply(libc::NLMSG_ERROR as u16, 0, 1, &[]);
        m.extend_from_slice(&i32::MIN.to_ne_bytes());
        let len = m.len() as u32;
        m[0..4].copy_from_slice(&len.to_ne_bytes());
        t.replies.borrow_mut().push_back(Ok(m));
        assert_eq!(Nldev::new(&t).copy_on_fork(), Err(Errno::EIO));
    }

    #[test]
    fn malformed_and_missing() {
        let t = FakeNl::default();
        let ty = rdma_nl_get_type(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET);
        t.replies.borrow_mut().push_back(Ok(reply(ty, 2, 1, &[(RDMA_NLDEV_ATTR_DEV_INDEX, vec![0; 4])])));
        assert_eq!(Nldev::new(&t).devices().unwrap_err(), Errno::EPROTO);
        assert_eq!(messages(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap_err(), Errno::EPROTO);
        assert!(Attrs::parse(&[2, 0, 1, 0]).is_err());
        assert_eq!(huge_decode_dev((1 << 8) | 0x12 | (0x345 << 20)), (1, 0x34512));
    }
}
