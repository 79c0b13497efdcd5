//! Stream rsockets: the state of one connection (one RC QP, driven through librdmacm's own calls and libibverbs'
//! exported verbs, with rdma-core 44's wire protocol, [`super::wire`]) and what it does once connected: posting,
//! credits, completions, the waits of the blocking calls, shutdown, free. Setting the connection up (endpoint,
//! connection data, `rdma_connect` / `rdma_accept`) is `super::connect`.
//!
//! On iWARP (`OPT_MSG_SEND`), which has no RDMA write with immediate data, each message is an RDMA write followed
//! by a 4-byte inline send carrying the immediate value, received into a slot after the receive buffer.
//!
//! Every rsocket owns a synchronous `rdma_cm_id` (its private event channel's descriptor is the rsocket's
//! number, as in rdma-core) and, once connected, one completion channel and one CQ for both queues. Both
//! descriptors are kept non-blocking; a blocking call waits with `poll(2)` on them, so a blocked call also sees a
//! `DISCONNECTED` event of its id (a peer that died) and returns instead of hanging.
//!
//! Buffers, registered on the id's PD: the send buffer (a ring the data is copied into before the RDMA write,
//! plus room for control messages when the QP cannot inline 16 bytes), the receive buffer (the peer writes into
//! one half while we read the other) and the target SGL + iomap table (written by the peer).
//!
//! Locking: `Rsocket::inner` guards the whole state (rdma-core's `cq_lock`); `slock` / `rlock` serialise senders and
//! receivers among themselves; `wait_lock` serialises sleeping on the completion channel. A thread that sleeps
//! drops `inner` first, so a receiver can make progress (and grant credits) while a sender waits for them.
#![allow(unsafe_code)] // registered buffers, the peer-written target SGL, verbs data-path calls through the context ops

use super::config::defaults;
use super::verbs::{poll_cq, post_recv, post_send, req_notify, RegBuf};
use super::wire::*;
use crate::cm;
use crate::verbs::QpAttr;
use parking_lot::{Mutex, MutexGuard};
use rdma_common::abi::enums::*;
use rdma_common::abi::ib::AF_IB;
use rdma_common::abi::rdma_cma::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi;
use std::ffi::c_int;
use std::mem::{size_of, MaybeUninit};
use std::ptr::{addr_of, null_mut};
use std::time::Instant;

// States, ordered as rdma-core's: passive, connecting, connected, disconnected.
pub(super) const RS_INIT: u32 = 0;
pub(super) const RS_BOUND: u32 = 0x0001;
pub(super) const RS_LISTENING: u32 = 0x0002;
pub(super) const RS_OPENING: u32 = 0x0004;
pub(super) const RS_RESOLVING_ADDR: u32 = RS_OPENING | 0x0010;
pub(super) const RS_RESOLVING_ROUTE: u32 = RS_OPENING | 0x0020;
pub(super) const RS_CONNECTING: u32 = RS_OPENING | 0x0040;
pub(super) const RS_ACCEPTING: u32 = RS_OPENING | 0x0080;
pub(super) const RS_CONNECTED: u32 = 0x0100;
pub(super) const RS_WRITABLE: u32 = 0x0200;
pub(super) const RS_READABLE: u32 = 0x0400;
pub(super) const RS_CONNECT_RDWR: u32 = RS_CONNECTED | RS_READABLE | RS_WRITABLE;
pub(super) const RS_CONNECT_ERROR: u32 = 0x0800;
pub(super) const RS_DISCONNECTED: u32 = 0x1000;
pub(super) const RS_ERROR: u32 = 0x2000;
/// Ours: `rclose` ran (another thread may still hold the rsocket).
pub(super) const RS_CLOSED: u32 = 0x8000;

/// The peer's SGL entries are in the other byte order.
pub(super) const OPT_SWAP_SGL: u32 = 1 << 0;
/// iWARP has no RDMA write with immediate data: every message is also sent as a 4-byte inline send.
pub(super) const OPT_MSG_SEND: u32 = 1 << 1;
/// Keep-alives are being sent.
pub(super) const OPT_KEEPALIVE: u32 = 1 << 3;

/// A test of `process_cq`: whether the caller can stop waiting.
pub(super) type Test = fn(&Rs) -> bool;

/// The state of one stream rsocket (guarded by `Rsocket::inner`).
pub(super) struct Rs {
    pub id: *mut rdma_cm_id,
    pub state: u32,
    pub opts: u32,
    /// File status flags (`F_GETFL`/`F_SETFL`, `SOCK_NONBLOCK`): `O_NONBLOCK` makes the calls non-blocking.
    pub fs_flags: c_int,
    /// Descriptor flags (`F_GETFD`/`F_SETFD`, `SOCK_CLOEXEC`), only remembered (rdma-core 65).
    pub fd_flags: c_int,
    /// `IP_TOS`, as set (rdma-core 65: also the id's type of service).
    pub ip_tos: c_int,
    pub so_opts: u64,
    pub tcp_opts: u64,
    pub ipv6_opts: u64,
    pub keepalive_time: u32,
    /// The error `SO_ERROR` reports (cleared by reading it).
    pub err: c_int,
    pub(super) retries: u32,
    /// `RDMA_ROUTE` path records to use instead of resolving the route.
    pub route: Option<Vec<u8>>,

    pub sq_size: u16,
    pub rq_size: u16,
    pub sq_inline: u16,
    pub sbuf_size: u32,
    pub rbuf_size: u32,
    pub target_iomap_size: u16,

    pub ctrl_seqno: u32,
    pub ctrl_max_seqno: u32,
    sseq_no: u16,
    pub(super) sseq_comp: u16,
    rseq_no: u16,
    pub(super) rseq_comp: u16,
    /// Ours, the passive side of an iWARP connection: nothing is sent until the first message from the peer has
    /// arrived. The iWARP responder may not send before the initiator has (RFC 5044 §7.1.2): Soft-iWARP's
    /// initiator fails the connection (`EINVAL`) when an FPDU arrives behind the MPA reply before it has taken the
    /// reply in. The initiator always speaks first in rsockets (its credit grant), so this only orders the start.
    pub(super) await_peer: bool,

    /// What the peer's connection data allows it (its credits, its receive buffer), checked in every message and
    /// target SGL entry it sends (docs/cm.md, "Peer input").
    pub(super) peer: PeerLimits,
    /// Messages received that count against the credits we grant (data and iomap announcements).
    recv_seq: u16,
    /// The send-sequence limit we last granted the peer.
    granted_seq: u16,
    /// Bytes of our receive buffer the peer was handed and has not filled yet.
    granted_bytes: u64,
    /// Credit grants from the peer that did not raise our send limit (each must come with a new SGL entry, which
    /// the peer can only give once per half buffer of data we sent it, plus once at the start).
    flat_grants: u64,
    /// Data bytes we have written into the peer's receive buffer.
    sent_bytes: u64,
    /// The peer shut its sending side down (`CTRL_SHUTDOWN` or `CTRL_DISCONNECT` arrived): no data may follow.
    peer_done: bool,
    /// Why the connection failed, when it did (sticky): `EPROTO` for a peer that broke the protocol, `ECONNRESET`
    /// for a connection the device reported broken. Every later call on the rsocket answers it.
    pub reset: c_int,

    pub(super) remote_sge: u32,
    pub(super) remote_sgl: RsSge,
    pub remote_iomap: RsSge,
    target_sge: usize,

    pub sbuf: Option<RegBuf>,
    pub rbuf: Option<RegBuf>,
    pub target: Option<RegBuf>,

    pub(super) rmsg: Vec<(u32, u32)>,
    rmsg_head: usize,
    rmsg_tail: usize,
    pub(super) rbuf_bytes_avail: i64,
    pub(super) rbuf_free_offset: u32,
    rbuf_offset: u32,
    pub sbuf_bytes_avail: u32,
    /// Offset in the send buffer of the next copy.
    pub ssgl_off: u32,
    pub sqe_avail: i32,
    pub cq_armed: bool,
    unack_cqe: u32,
    /// Next receive slot of the 4-byte messages (`OPT_MSG_SEND`).
    rbuf_msg_index: u32,

    pub iomap: super::maps::Iomaps,
}

impl Rs {
    /// A new rsocket's state, with the process defaults or (accepted connections) the listener's sizes.
    pub(super) fn new(id: *mut rdma_cm_id, inherit: Option<&Rs>) -> Rs {
        let d = defaults();
        let (sbuf_size, rbuf_size, sq_inline, sq_size, rq_size, ctrl_max, iomap) = match inherit {
            Some(l) => {
                (l.sbuf_size, l.rbuf_size, l.sq_inline, l.sq_size, l.rq_size, l.ctrl_max_seqno, l.target_iomap_size)
            }
            None => (d.wmem, d.mem, d.inline, d.sqsize, d.rqsize, QP_CTRL_SIZE, d.iomap_size),
        };
        Rs {
            id,
            state: RS_INIT,
            opts: 0,
            fs_flags: 0,
            fd_flags: 0,
            ip_tos: 0,
            so_opts: 0,
            tcp_opts: 0,
            ipv6_opts: 0,
            keepalive_time: 0,
            err: 0,
            retries: 0,
            route: None,
            sq_size,
            rq_size,
            sq_inline,
            sbuf_size,
            rbuf_size,
            target_iomap_size: iomap,
            ctrl_seqno: 0,
            ctrl_max_seqno: ctrl_max,
            sseq_no: 0,
            sseq_comp: 0,
            rseq_no: 0,
            rseq_comp: 0,
            await_peer: false,
            peer: PeerLimits::default(),
            recv_seq: 0,
            granted_seq: 0,
            granted_bytes: 0,
            flat_grants: 0,
            sent_bytes: 0,
            peer_done: false,
            reset: 0,
            remote_sge: 0,
            remote_sgl: RsSge::default(),
            remote_iomap: RsSge::default(),
            target_sge: 0,
            sbuf: None,
            rbuf: None,
            target: None,
            rmsg: Vec::new(),
            rmsg_head: 0,
            rmsg_tail: 0,
            rbuf_bytes_avail: 0,
            rbuf_free_offset: 0,
            rbuf_offset: 0,
            sbuf_bytes_avail: 0,
            ssgl_off: 0,
            sqe_avail: 0,
            cq_armed: false,
            unack_cqe: 0,
            rbuf_msg_index: 0,
            iomap: Default::default(),
        }
    }

    // ---- the id's public fields -------------------------------------------------------------------------------

    /// The id's event channel descriptor (the rsocket's number).
    pub(super) fn cm_fd(&self) -> c_int {
        if self.id.is_null() {
            return -1;
        }
        // SAFETY: the id and its channel live until rclose, which clears `id`.
        unsafe { (*(*self.id).channel).fd }
    }

    pub(super) fn cq(&self) -> *mut ibv_cq {
        if self.id.is_null() {
            return null_mut();
        }
        // SAFETY: as above; a plain field read.
        unsafe { addr_of!((*self.id).recv_cq).read() }
    }

    /// The completion channel's descriptor, or -1 before the QP exists.
    pub(super) fn cq_fd(&self) -> c_int {
        if self.id.is_null() {
            return -1;
        }
        // SAFETY: as above.
        let ch = unsafe { addr_of!((*self.id).recv_cq_channel).read() };
        if ch.is_null() {
            -1
        } else {
            // SAFETY: a live completion channel.
            unsafe { (*ch).fd }
        }
    }

    pub(super) fn qp(&self) -> *mut ibv_qp {
        if self.id.is_null() {
            return null_mut();
        }
        // SAFETY: as above.
        unsafe { addr_of!((*self.id).qp).read() }
    }

    pub(super) fn pd(&self) -> *mut ibv_pd {
        if self.id.is_null() {
            return null_mut();
        }
        // SAFETY: as above.
        unsafe { addr_of!((*self.id).pd).read() }
    }

    /// The address family of the id's source address (what `rsocket` was given).
    pub(super) fn family(&self) -> c_int {
        if self.id.is_null() {
            return 0;
        }
        // SAFETY: as above; every member of the union starts with the family.
        c_int::from(unsafe { addr_of!((*self.id).route.addr.src.src_addr.sa_family).read() })
    }

    /// Bytes before the connection data in the CM private data: the `AF_IB` connect header rdma-core leaves room
    /// for (36 bytes), none for IP addresses (the kernel adds its own).
    pub(super) fn conn_data_offset(&self) -> usize {
        if self.family() == AF_IB {
            36
        } else {
            0
        }
    }

    pub(super) fn nonblocking(&self, flags: c_int) -> bool {
        (self.fs_flags & libc::O_NONBLOCK) != 0 || (flags & libc::MSG_DONTWAIT) != 0
    }

    // ---- the target SGL (written by the peer) -------------------------------------------------------------

    fn target_ptr(&self, i: usize) -> *mut RsSge {
        let t = self.target.as_ref().map_or(null_mut(), |t| t.ptr);
        // SAFETY: the target buffer holds SGL_SIZE entries first; `i` < SGL_SIZE.
        unsafe { t.cast::<RsSge>().add(i) }
    }

    pub(super) fn target(&self, i: usize) -> RsSge {
        if self.target.is_none() {
            return RsSge::default();
        }
        // SAFETY: a live, aligned entry; the peer's RDMA writes make a volatile read necessary.
        unsafe { self.target_ptr(i).read_volatile() }
    }

    pub(super) fn set_target(&mut self, i: usize, s: RsSge) {
        if self.target.is_none() {
            return;
        }
        // SAFETY: as above.
        unsafe { self.target_ptr(i).write_volatile(s) }
    }

    /// The iomap table entries the peer wrote (for `riowrite`).
    pub(super) fn target_iomap(&self, i: usize) -> RsIomap {
        let Some(t) = self.target.as_ref().map(|t| t.ptr) else { return RsIomap::default() };
        // SAFETY: the table follows the SGL; `i` < target_iomap_size, the count the buffer was sized for.
        unsafe { t.add(size_of::<RsSge>() * SGL_SIZE).cast::<RsIomap>().add(i).read_volatile() }
    }

    // ---- posting -----------------------------------------------------------------------------------------------

    pub(super) fn post_recv(&mut self) -> Result<()> {
        let mut wr = ibv_recv_wr { wr_id: WR_ID_RECV, next: null_mut(), sg_list: null_mut(), num_sge: 0 };
        let mut sge = ibv_sge { addr: 0, length: 4, lkey: 0 };
        if self.opts & OPT_MSG_SEND != 0 {
            // A 4-byte slot after the receive buffer for the message.
            let Some(rbuf) = self.rbuf.as_ref() else { return Err(Errno::EINVAL) };
            wr.wr_id = WR_ID_RECV | u64::from(self.rbuf_msg_index);
            sge.addr = rbuf.addr() + u64::from(self.rbuf_size) + 4 * u64::from(self.rbuf_msg_index);
            sge.lkey = rbuf.lkey();
            wr.sg_list = &mut sge;
            wr.num_sge = 1;
            self.rbuf_msg_index += 1;
            if self.rbuf_msg_index == u32::from(self.rq_size) {
                self.rbuf_msg_index = 0;
            }
        }
        // SAFETY: the QP is live; a receive of no scatter entry only consumes the immediate.
        unsafe { post_recv(self.qp(), &mut wr) }
    }

    /// A zero-length RDMA write with immediate `m` (control messages), or on iWARP a 4-byte inline send.
    pub(super) fn post_msg(&mut self, m: u32) -> Result<()> {
        if self.opts & OPT_MSG_SEND != 0 {
            return self.post_send_msg(m, u64::from(m));
        }
        self.post_write_msg(&mut [], m, 0, 0, 0)
    }

    /// The 4-byte inline send of message `m` (`OPT_MSG_SEND`).
    fn post_send_msg(&mut self, m: u32, wr_id: u64) -> Result<()> {
        let v = m;
        let mut sge = [ibv_sge { addr: &v as *const u32 as u64, length: 4, lkey: 0 }];
        // SAFETY: as in post_write.
        let mut wr: ibv_send_wr = unsafe { std::mem::zeroed() };
        wr.wr_id = wr_id;
        wr.sg_list = sge.as_mut_ptr();
        wr.num_sge = 1;
        wr.opcode = ibv_wr_opcode::IBV_WR_SEND;
        wr.send_flags = IBV_SEND_INLINE;
        // SAFETY: the QP is live; the data is inline (copied at post time).
        unsafe { post_send(self.qp(), &mut wr) }
    }

    /// An RDMA write of `sges` (no immediate) to `addr`/`rkey`; `wr_data` comes back in the completion.
    pub(super) fn post_write(
        &mut self,
        sges: &mut [ibv_sge],
        wr_data: u32,
        flags: u32,
        addr: u64,
        rkey: u32,
    ) -> Result<()> {
        // SAFETY: zero is a valid ibv_send_wr (null pointers, opcode 0 = RDMA_WRITE, integer unions).
        let mut wr: ibv_send_wr = unsafe { std::mem::zeroed() };
        wr.wr_id = u64::from(wr_data);
        wr.sg_list = if sges.is_empty() { null_mut() } else { sges.as_mut_ptr() };
        wr.num_sge = sges.len() as c_int;
        wr.opcode = ibv_wr_opcode::IBV_WR_RDMA_WRITE;
        wr.send_flags = flags;
        wr.wr.rdma = ibv_send_wr_rdma { remote_addr: addr, rkey };
        // SAFETY: the QP is live; the scatter entries point into registered memory (or inline data).
        unsafe { post_send(self.qp(), &mut wr) }
    }

    /// An RDMA write with immediate `m` (every message the peer sees).
    pub(super) fn post_write_msg(
        &mut self,
        sges: &mut [ibv_sge],
        m: u32,
        flags: u32,
        addr: u64,
        rkey: u32,
    ) -> Result<()> {
        if self.opts & OPT_MSG_SEND != 0 {
            self.post_write(sges, m, flags, addr, rkey)?;
            return self.post_send_msg(m, u64::from(msg(msg_op(m), 0)) | WR_ID_MSG_SEND);
        }
        // SAFETY: as in post_write.
        let mut wr: ibv_send_wr = unsafe { std::mem::zeroed() };
        wr.wr_id = u64::from(m);
        wr.sg_list = if sges.is_empty() { null_mut() } else { sges.as_mut_ptr() };
        wr.num_sge = sges.len() as c_int;
        wr.opcode = ibv_wr_opcode::IBV_WR_RDMA_WRITE_WITH_IMM;
        wr.send_flags = flags;
        wr.imm = ibv_send_wr_imm { imm_data: m.to_be() };
        wr.wr.rdma = ibv_send_wr_rdma { remote_addr: addr, rkey };
        // SAFETY: as in post_write.
        unsafe { post_send(self.qp(), &mut wr) }
    }

    /// Counts one more message sent against the peer's credits.
    pub(super) fn bump_sseq(&mut self) {
        self.sseq_no = self.sseq_no.wrapping_add(1);
    }

    /// The target SGL entry the next data goes to, as the peer last wrote it, checked against the receive buffer
    /// its connection data declared ([`PeerLimits::check_sge`]). A bad entry fails the connection: `EPROTO`.
    pub(super) fn send_target(&mut self) -> Result<RsSge> {
        let t = self.target(self.target_sge);
        match self.peer.check_sge(&t) {
            Ok(()) => Ok(t),
            Err(v) => Err(self.peer_broke(v)),
        }
    }

    /// `rs_write_data`: one data message of `len` bytes into target entry `t` (from [`Self::send_target`], `len`
    /// at most its length), updated first, before the peer may replace it. The entry is read once: the peer can
    /// rewrite it at any time.
    pub(super) fn write_data(&mut self, sges: &mut [ibv_sge], len: u32, flags: u32, t: RsSge) -> Result<()> {
        let len = len.min(t.length);
        self.sseq_no = self.sseq_no.wrapping_add(1);
        self.sqe_avail -= if self.opts & OPT_MSG_SEND != 0 { 2 } else { 1 };
        self.sbuf_bytes_avail = self.sbuf_bytes_avail.saturating_sub(len);
        self.sent_bytes = self.sent_bytes.saturating_add(u64::from(len));
        let (addr, rkey) = (t.addr, t.key);
        // Checked against the peer's buffer: neither wraps.
        let left = RsSge { addr: t.addr.wrapping_add(u64::from(len)), key: t.key, length: t.length - len };
        let i = self.target_sge;
        self.set_target(i, left);
        if left.length == 0 {
            self.target_sge = (self.target_sge + 1) % SGL_SIZE;
        }
        self.post_write_msg(sges, msg(OP_DATA, len), flags, addr, rkey)
    }

    /// Copies `len` bytes from `src` into the send ring at `ssgl_off` and returns the one or two scatter entries
    /// covering them (the ring wraps).
    pub(super) fn stage(&mut self, src: &mut dyn FnMut(*mut u8, usize), len: u32) -> ([ibv_sge; 2], usize) {
        let Some(sbuf) = self.sbuf.as_ref() else { return ([ibv_sge { addr: 0, length: 0, lkey: 0 }; 2], 0) };
        let lkey = sbuf.lkey();
        let base = sbuf.ptr;
        let left = self.sbuf_size - self.ssgl_off;
        let mut sges = [ibv_sge { addr: 0, length: 0, lkey }; 2];
        // SAFETY: offsets stay inside the send ring (ssgl_off < sbuf_size, lengths bounded by what is left).
        let at = unsafe { base.add(self.ssgl_off as usize) };
        if len <= left {
            src(at, len as usize);
            sges[0] = ibv_sge { addr: at as u64, length: len, lkey };
            self.ssgl_off = if len < left { self.ssgl_off + len } else { 0 };
            (sges, 1)
        } else {
            src(at, left as usize);
            src(base, (len - left) as usize);
            sges[0] = ibv_sge { addr: at as u64, length: left, lkey };
            sges[1] = ibv_sge { addr: base as u64, length: len - left, lkey };
            self.ssgl_off = len - left;
            (sges, 2)
        }
    }

    // ---- credits -----------------------------------------------------------------------------------------------

    fn ctrl_avail(&self) -> bool {
        self.ctrl_seqno != self.ctrl_max_seqno
    }

    /// `rs_send_credits`: grants credits, and the next half of the receive buffer when it is free.
    fn send_credits(&mut self) {
        self.ctrl_seqno = self.ctrl_seqno.wrapping_add(1);
        self.rseq_comp = self.rseq_no.wrapping_add(self.rq_size >> 1);
        self.granted_seq = self.rseq_no.wrapping_add(self.rq_size);
        let grant = msg(OP_SGL, u32::from(self.granted_seq));
        let half = self.rbuf_size >> 1;
        if self.rbuf_bytes_avail >= i64::from(half) {
            if self.opts & OPT_MSG_SEND != 0 {
                self.ctrl_seqno = self.ctrl_seqno.wrapping_add(1);
            }
            let Some(rbuf) = self.rbuf.as_ref() else { return };
            let mut sge =
                RsSge { addr: rbuf.addr() + u64::from(self.rbuf_free_offset), key: rbuf.rkey(), length: half };
            if self.opts & OPT_SWAP_SGL != 0 {
                sge = sge.swapped();
            }
            let bytes = sge.to_ne_bytes();
            let dest = self.remote_sgl.addr + u64::from(self.remote_sge) * size_of::<RsSge>() as u64;
            let rkey = self.remote_sgl.key;
            let r = if usize::from(self.sq_inline) >= bytes.len() {
                let mut s = [ibv_sge { addr: bytes.as_ptr() as u64, length: bytes.len() as u32, lkey: 0 }];
                self.post_write_msg(&mut s, grant, IBV_SEND_INLINE, dest, rkey)
            } else {
                // The control slots after the send ring.
                let Some(sbuf) = self.sbuf.as_ref() else { return };
                let slot = (self.ctrl_seqno & (QP_CTRL_SIZE - 1)) as usize;
                // SAFETY: init_bufs reserved QP_CTRL_SIZE 16-byte slots after the ring when inline is this small.
                let p = unsafe { sbuf.ptr.add(self.sbuf_size as usize + 16 * slot) };
                // SAFETY: as above.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, 16) };
                let mut s = [ibv_sge { addr: p as u64, length: 16, lkey: sbuf.lkey() }];
                self.post_write_msg(&mut s, grant, 0, dest, rkey)
            };
            if let Err(e) = r {
                log::debug!("rsocket: posting credits failed: {e:?}");
            }
            self.rbuf_bytes_avail -= i64::from(half);
            self.granted_bytes += u64::from(half);
            self.rbuf_free_offset += half;
            if self.rbuf_free_offset >= self.rbuf_size {
                self.rbuf_free_offset = 0;
            }
            self.remote_sge += 1;
            if self.remote_sge >= self.remote_sgl.length {
                self.remote_sge = 0;
            }
        } else if let Err(e) = self.post_msg(grant) {
            log::debug!("rsocket: posting credits failed: {e:?}");
        }
    }

    fn give_credits(&self) -> bool {
        // With OPT_MSG_SEND a grant may take two control slots.
        let ctrl = if self.opts & OPT_MSG_SEND != 0 {
            (self.ctrl_seqno.wrapping_add(1).wrapping_sub(self.ctrl_max_seqno) as i32) < 0
        } else {
            self.ctrl_avail()
        };
        (self.rbuf_bytes_avail >= i64::from(self.rbuf_size >> 1)
            || (self.rseq_no.wrapping_sub(self.rseq_comp) as i16) >= 0)
            && ctrl
            && (self.state & RS_CONNECTED) != 0
            && !self.await_peer
    }

    pub(super) fn update_credits(&mut self) {
        if self.give_credits() {
            self.send_credits();
        }
    }

    // ---- completions -------------------------------------------------------------------------------------------

    /// `rs_poll_cq`: takes in every completion, then reposts the receives consumed. A message that breaks the
    /// protocol, or a failed completion while connected, fails the connection ([`Self::fail_conn`]); what follows
    /// it in the CQ is taken in (the receives flush) but no longer processed.
    pub(super) fn poll_cq(&mut self) -> Result<()> {
        let cq = self.cq();
        if cq.is_null() {
            return Ok(());
        }
        let mut rcnt = 0u32;
        let mut wcs: [MaybeUninit<ibv_wc>; 16] = [MaybeUninit::zeroed(); 16];
        loop {
            // SAFETY: the CQ is live; `wcs` has room for 16 completions.
            let n = unsafe { poll_cq(cq, 16, wcs.as_mut_ptr().cast()) };
            if n < 0 {
                return Err(Errno(-n));
            }
            if n == 0 {
                break;
            }
            for w in &wcs[..n as usize] {
                let p = w.as_ptr();
                // SAFETY: the provider filled the first `n` entries; the status enum is read as an integer.
                let (wr_id, status, flags, imm, byte_len) = unsafe {
                    (
                        addr_of!((*p).wr_id).read(),
                        ffi::enum_raw(addr_of!((*p).status)),
                        addr_of!((*p).wc_flags).read(),
                        addr_of!((*p).imm.imm_data).read(),
                        addr_of!((*p).byte_len).read(),
                    )
                };
                let ok = status == IBV_WC_SUCCESS;
                if wr_id & WR_ID_RECV != 0 {
                    if !ok {
                        if self.state & RS_CONNECTED != 0 {
                            self.fail_conn(Errno(libc::ECONNRESET), "a receive completed in error");
                        }
                        continue;
                    }
                    rcnt += 1;
                    self.await_peer = false;
                    let (m, len) = if flags & IBV_WC_WITH_IMM != 0 {
                        // An RDMA write with immediate: byte_len is what the peer wrote with it.
                        (u32::from_be(imm), Some(byte_len))
                    } else if self.opts & OPT_MSG_SEND != 0 {
                        let slot = u64::from(wr_id as u32).min(u64::from(self.rq_size.saturating_sub(1)));
                        let Some(rbuf) = self.rbuf.as_ref() else { continue };
                        // SAFETY: the slot lies in the message area after the receive buffer.
                        let m = unsafe {
                            (rbuf.ptr.add(self.rbuf_size as usize + 4 * slot as usize) as *const u32).read_unaligned()
                        };
                        (m, None)
                    } else {
                        // A plain send: no rsocket sends one on a transport with immediate data.
                        if self.state & RS_CONNECTED != 0 {
                            self.peer_broke(Violation("a send without immediate data"));
                        }
                        continue;
                    };
                    if self.state & (RS_ERROR | RS_CLOSED) != 0 {
                        continue;
                    }
                    if let Err(v) = self.take_msg(m, len) {
                        self.peer_broke(v);
                    }
                } else {
                    if !ok {
                        log::debug!("rsocket {}: send completion status {status}", self.cm_fd());
                    }
                    self.take_send_completion(wr_id, ok);
                }
            }
        }
        if self.state & RS_CONNECTED != 0 {
            for _ in 0..rcnt {
                if let Err(e) = self.post_recv() {
                    self.state = RS_ERROR;
                    self.err = e.0;
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Takes in the completion of one of our sends (`wr_id` as we posted it: the message, with `WR_ID_MSG_SEND`
    /// for the 4-byte send of iWARP): its send-queue slot and send-buffer bytes come back. A failure while
    /// connected fails the connection: `ECONNRESET`.
    pub(super) fn take_send_completion(&mut self, wr_id: u64, ok: bool) {
        let m = wr_id as u32;
        match msg_op(m) {
            OP_SGL => self.ctrl_max_seqno = self.ctrl_max_seqno.wrapping_add(1),
            OP_CTRL => {
                self.ctrl_max_seqno = self.ctrl_max_seqno.wrapping_add(1);
                if msg_data(m) == CTRL_DISCONNECT && self.state & RS_ERROR == 0 {
                    self.state = RS_DISCONNECTED;
                }
            }
            OP_IOMAP_SGL => {
                self.sqe_avail += 1;
                if wr_id & WR_ID_MSG_SEND == 0 {
                    self.sbuf_bytes_avail += size_of::<RsIomap>() as u32;
                }
            }
            _ => {
                self.sqe_avail += 1;
                self.sbuf_bytes_avail += msg_data(m);
            }
        }
        if !ok && self.state & RS_CONNECTED != 0 {
            self.fail_conn(Errno(libc::ECONNRESET), "a send completed in error");
        }
    }

    /// Takes in one message from the peer (`m` as [`decode`] reads it; `written`: the bytes its RDMA write
    /// carried, when the transport says), holding it to the protocol and to what we granted:
    /// * data: never after the peer's shutdown, exactly the bytes written with it, within the receive buffer we
    ///   handed it and not yet filled, and within our credits;
    /// * credits: at most [`MAX_GRANT`], never behind our send sequence nor further ahead of it than the credits
    ///   its connection data declared; a grant that raises nothing must bring an SGL entry, which the peer can do
    ///   once at the start and once per half buffer of data we sent it;
    /// * iomap announcements: a slot of our table, within our credits;
    /// * control: disconnect, shutdown (and the harmless keep-alive); any other operation is a violation.
    ///
    /// The caller fails the connection on `Err`. Everything here is arithmetic on our own counters: the fuzz
    /// target `rsock_stream` drives it with arbitrary messages.
    pub(super) fn take_msg(&mut self, m: u32, written: Option<u32>) -> std::result::Result<(), Violation> {
        let msg = decode(m);
        if written.is_some_and(|w| w != 0) && matches!(msg, Msg::Disconnect | Msg::Shutdown | Msg::Keepalive) {
            return Err(Violation("a control message carrying data"));
        }
        match msg {
            Msg::Data(len) => {
                if self.peer_done {
                    return Err(Violation("data after its shutdown"));
                }
                if written.is_some_and(|w| w != len) {
                    return Err(Violation("a data length other than the bytes its write carried"));
                }
                if u64::from(len) > self.granted_bytes {
                    return Err(Violation("more data than the receive buffer we handed it"));
                }
                self.count_against_credits()?;
                if (self.rmsg_tail + 1) % self.rmsg.len().max(1) == self.rmsg_head || self.rmsg.is_empty() {
                    return Err(Violation("more messages than our receive queue holds"));
                }
                self.granted_bytes -= u64::from(len);
                self.rmsg[self.rmsg_tail] = (OP_DATA, len);
                self.rmsg_tail = (self.rmsg_tail + 1) % self.rmsg.len();
            }
            Msg::Sgl(limit) => {
                if written.is_some_and(|w| w != 0 && w != size_of::<RsSge>() as u32) {
                    return Err(Violation("a credit grant carrying neither nothing nor one SGL entry"));
                }
                if limit > MAX_GRANT {
                    return Err(Violation("a credit grant beyond 17 bits"));
                }
                let limit = limit as u16;
                if limit.wrapping_sub(self.sseq_no) > self.peer.credits {
                    return Err(Violation("a credit grant behind our sends or beyond its receive queue"));
                }
                if limit == self.sseq_comp {
                    self.flat_grants += 1;
                    let half = u64::from(self.peer.half.max(1));
                    if self.flat_grants > 1 + self.sent_bytes / half {
                        return Err(Violation("credit grants that grant nothing"));
                    }
                }
                self.sseq_comp = limit;
            }
            Msg::IomapSgl(index) => {
                if written.is_some_and(|w| w != size_of::<RsIomap>() as u32) {
                    return Err(Violation("an iomap announcement without one iomap entry"));
                }
                if index >= u32::from(self.target_iomap_size) {
                    return Err(Violation("an iomap slot beyond our table"));
                }
                self.count_against_credits()?;
            }
            Msg::Disconnect => {
                self.peer_done = true;
                self.state = RS_DISCONNECTED;
            }
            Msg::Shutdown => {
                self.peer_done = true;
                if self.state & RS_WRITABLE != 0 {
                    self.state &= !RS_READABLE;
                } else {
                    self.state = RS_DISCONNECTED;
                }
            }
            Msg::Keepalive => {}
            Msg::Unknown(_) => return Err(Violation("an unknown operation")),
        }
        Ok(())
    }

    /// One more message counted against the credits we granted: it may not pass the last limit we sent.
    fn count_against_credits(&mut self) -> std::result::Result<(), Violation> {
        self.recv_seq = self.recv_seq.wrapping_add(1);
        if self.granted_seq.wrapping_sub(self.recv_seq) > self.rq_size {
            return Err(Violation("more messages than the credits we granted"));
        }
        Ok(())
    }

    /// Starts the accounting of what the peer may send (once the buffers exist, before the connection data goes
    /// out): the first half of the receive buffer and `rq_size` credits, which our connection data grants.
    pub(super) fn start_peer_accounting(&mut self) {
        self.recv_seq = 0;
        self.granted_seq = self.rq_size;
        self.granted_bytes = u64::from(self.rbuf_size >> 1);
        self.flat_grants = 0;
        self.sent_bytes = 0;
        self.peer_done = false;
    }

    /// Fails the connection because the peer broke the protocol (`v` says how): `EPROTO`. Returns the errno.
    pub(super) fn peer_broke(&mut self, v: Violation) -> Errno {
        self.fail_conn(Errno(libc::EPROTO), v.0)
    }

    /// Fails the connection with `e` (`EPROTO`, `ECONNRESET`), once: the data not yet read is dropped, every later
    /// call answers `e` (`SO_ERROR` too, once), `rpoll` reports `POLLERR`, and the id is disconnected (the QP moves
    /// to the error state, the peer gets the CM's disconnect request) without waiting for the peer. Returns `e`.
    pub(super) fn fail_conn(&mut self, e: Errno, why: &str) -> Errno {
        if self.reset != 0 {
            return Errno(self.reset);
        }
        log::warn!("rsocket {}: connection failed ({}): {why}", self.cm_fd(), e.0);
        self.state = RS_ERROR;
        self.err = e.0;
        self.reset = e.0;
        self.rmsg_head = self.rmsg_tail;
        if !self.id.is_null() {
            // SAFETY: the id is live; on its non-blocking channel the call sends DISCONNECT and returns without
            // waiting for the event (EAGAIN), which handle_cm_event takes in later.
            let _ = unsafe { cm::conn::rdma_disconnect(self.id) };
        }
        e
    }

    /// `rs_get_cq_event` on the (non-blocking) completion channel.
    pub(super) fn get_cq_event(&mut self) -> Result<()> {
        if !self.cq_armed {
            return Ok(());
        }
        // SAFETY: the id's completion channel is live.
        let ch = unsafe { addr_of!((*self.id).recv_cq_channel).read() };
        let mut cq = null_mut();
        let mut ctx = null_mut();
        // SAFETY: as above; out-parameters are ours.
        if unsafe { ibv_get_cq_event(ch, &mut cq, &mut ctx) } != 0 {
            let e = Errno::last();
            if e != Errno::EAGAIN && e != Errno::EINTR {
                self.state = RS_ERROR;
            }
            return Err(e);
        }
        self.unack_cqe += 1;
        if self.unack_cqe >= u32::from(self.sq_size) + u32::from(self.rq_size) {
            // SAFETY: the events were taken from this CQ.
            unsafe { ibv_ack_cq_events(self.cq(), self.unack_cqe) };
            self.unack_cqe = 0;
        }
        self.cq_armed = false;
        Ok(())
    }

    /// Arms the CQ for the next completion event.
    pub(super) fn arm(&mut self) {
        // SAFETY: the CQ is live.
        if unsafe { req_notify(self.cq()) }.is_ok() {
            self.cq_armed = true;
        }
    }

    // ---- tests -------------------------------------------------------------------------------------------------

    pub(super) fn can_send(&self) -> bool {
        !self.await_peer
            && self.sqe_avail > if self.opts & OPT_MSG_SEND != 0 { 1 } else { 0 }
            && self.sbuf_bytes_avail >= SNDLOWAT
            && self.sseq_no != self.sseq_comp
            && self.target(self.target_sge).length != 0
    }

    pub(super) fn have_rdata(&self) -> bool {
        self.rmsg_head != self.rmsg_tail
    }

    /// The data received and not read yet: bytes and messages.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(super) fn unread(&self) -> (u64, usize) {
        let (mut bytes, mut n, mut i) = (0u64, 0usize, self.rmsg_head);
        while i != self.rmsg_tail && !self.rmsg.is_empty() {
            bytes += u64::from(self.rmsg[i].1);
            n += 1;
            i = (i + 1) % self.rmsg.len();
        }
        (bytes, n)
    }

    /// Receive-buffer bytes free and not handed to the peer yet.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(super) fn rbuf_avail(&self) -> i64 {
        self.rbuf_bytes_avail
    }

    /// Receive-buffer bytes handed to the peer and not filled yet.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(super) fn granted(&self) -> u64 {
        self.granted_bytes
    }

    /// Whether a control message of ours (credits, shutdown) has not completed yet.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(super) fn ctrl_outstanding(&self) -> bool {
        self.ctrl_max_seqno.wrapping_sub(self.ctrl_seqno) < QP_CTRL_SIZE
    }

    /// Frees the QP, buffers and id (`rs_free`): after this the rsocket is closed.
    pub(super) fn free(&mut self) {
        if self.id.is_null() {
            return;
        }
        self.iomap.free_all();
        self.sbuf = None;
        self.rbuf = None;
        self.target = None;
        // SAFETY: the id is live; its QP and CQ are ours and nobody uses them after this.
        unsafe {
            if !self.qp().is_null() {
                if self.unack_cqe > 0 {
                    ibv_ack_cq_events(self.cq(), self.unack_cqe);
                }
                cm::qp::rdma_destroy_qp(self.id);
            }
            cm::id::rdma_destroy_id(self.id);
        }
        self.id = null_mut();
        self.state = RS_CLOSED;
    }

    /// Moves the QP to the error state (rdma-core's `ucma_shutdown` on RoCE/IB): flushes the receives, which
    /// wakes anyone waiting on the CQ.
    pub(super) fn qp_to_err(&mut self) {
        let qp = self.qp();
        if qp.is_null() {
            return;
        }
        let mut attr = QpAttr::with_state(IBV_QPS_ERR);
        // SAFETY: the QP is live.
        let _ = unsafe { crate::verbs::modify_qp(qp, &mut attr, IBV_QP_STATE) };
    }

    /// Copies up to `len` received bytes into `dst` (an iovec cursor), consuming them unless `peek`. Returns the
    /// bytes copied.
    pub(super) fn copy_out(&mut self, dst: &mut super::IoCursor, mut len: usize, peek: bool) -> usize {
        let Some(rbuf) = self.rbuf.as_ref() else { return 0 };
        let base = rbuf.ptr;
        let size = self.rbuf_size as usize;
        let (mut head, mut off) = (self.rmsg_head, self.rbuf_offset as usize);
        let mut done = 0;
        while len > 0 && head != self.rmsg_tail {
            let avail = self.rmsg[head].1 as usize;
            let rsize;
            if len < avail {
                rsize = len;
                if !peek {
                    self.rmsg[head].1 -= len as u32;
                }
            } else {
                rsize = avail;
                if !peek {
                    self.rseq_no = self.rseq_no.wrapping_add(1);
                }
                head = (head + 1) % self.rmsg.len();
            }
            let mut left = rsize;
            while left > 0 {
                let chunk = left.min(size - off);
                // SAFETY: `off + chunk` <= the receive buffer's size.
                dst.write(unsafe { base.add(off) }, chunk);
                off += chunk;
                if off == size {
                    off = 0;
                }
                left -= chunk;
            }
            done += rsize;
            len -= rsize;
            if !peek {
                self.rbuf_bytes_avail += rsize as i64;
                self.rmsg_head = head;
                self.rbuf_offset = off as u32;
            }
        }
        done
    }
}

/// One rsocket: its number, its state and the locks around it.
pub(super) struct Rsocket {
    pub index: c_int,
    pub inner: Mutex<Rs>,
    pub slock: Mutex<()>,
    pub rlock: Mutex<()>,
    wait_lock: Mutex<()>,
}

// SAFETY: the raw pointers in `Rs` (the id, registered buffers) are only used under `inner`; the verbs and CM
// objects they name may be used from any thread.
unsafe impl Send for Rs {}

impl Rsocket {
    pub(super) fn new(index: c_int, rs: Rs) -> Rsocket {
        Rsocket {
            index,
            inner: Mutex::new(rs),
            slock: Mutex::new(()),
            rlock: Mutex::new(()),
            wait_lock: Mutex::new(()),
        }
    }

    /// `rs_process_cq`: polls completions until `test` holds; blocking unless `nonblock` (then `EAGAIN`).
    pub(super) fn process_cq<'a>(
        &'a self,
        mut g: MutexGuard<'a, Rs>,
        nonblock: bool,
        test: Test,
    ) -> (MutexGuard<'a, Rs>, Result<()>) {
        let wake = defaults().wake_up_interval_ms.max(1);
        let ret = loop {
            g.update_credits();
            let r = g.poll_cq();
            if test(&g) {
                break Ok(());
            }
            if let Err(e) = r {
                break Err(e);
            }
            if nonblock {
                break Err(Errno::EAGAIN);
            }
            if g.state & RS_CLOSED != 0 || g.cq().is_null() {
                break Err(Errno::EBADF);
            }
            if !g.cq_armed {
                g.arm();
                continue;
            }
            g.update_credits();
            let (cq_fd, cm_fd) = (g.cq_fd(), g.cm_fd());
            drop(g);
            let mut fds = [
                libc::pollfd { fd: cq_fd, events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: cm_fd, events: libc::POLLIN, revents: 0 },
            ];
            {
                let _w = self.wait_lock.lock();
                // SAFETY: `fds` is a valid 2-entry array.
                unsafe { libc::poll(fds.as_mut_ptr(), 2, wake) };
            }
            g = self.inner.lock();
            if g.state & RS_CLOSED != 0 {
                break Err(Errno::EBADF);
            }
            if fds[0].revents != 0 {
                if let Err(e) = g.get_cq_event() {
                    if e != Errno::EAGAIN && e != Errno::EINTR {
                        break Err(e);
                    }
                }
            }
            if fds[1].revents != 0 {
                g.handle_cm_event();
            }
        };
        g.update_credits();
        (g, ret)
    }

    /// `rs_get_comp`: polls without sleeping for the configured polling time, then waits.
    /// Waits (unless `nonblock`: `EAGAIN`) until the rsocket may send another message; `EPIPE` once it is no
    /// longer writable (shut down, or the peer closed).
    pub(super) fn wait_can_send<'a>(
        &'a self,
        g: MutexGuard<'a, Rs>,
        nonblock: bool,
    ) -> (MutexGuard<'a, Rs>, Result<()>) {
        if g.can_send() {
            return (g, Ok(()));
        }
        let (g, r) = self.get_comp(g, nonblock, conn_can_send);
        match r {
            Err(e) => (g, Err(e)),
            Ok(()) if g.state & RS_WRITABLE == 0 => (g, Err(Errno(libc::EPIPE))),
            Ok(()) => (g, Ok(())),
        }
    }

    pub(super) fn get_comp<'a>(
        &'a self,
        mut g: MutexGuard<'a, Rs>,
        nonblock: bool,
        test: Test,
    ) -> (MutexGuard<'a, Rs>, Result<()>) {
        let start = Instant::now();
        let polling = u128::from(defaults().polling_time_us);
        loop {
            let (g2, r) = self.process_cq(g, true, test);
            g = g2;
            if r.is_ok() || nonblock || r != Err(Errno::EAGAIN) {
                return (g, r);
            }
            if start.elapsed().as_micros() > polling {
                break;
            }
        }
        self.process_cq(g, false, test)
    }
}

// Tests of process_cq.
pub(super) fn conn_can_send(rs: &Rs) -> bool {
    rs.can_send() || rs.state & RS_WRITABLE == 0
}

pub(super) fn conn_can_send_ctrl(rs: &Rs) -> bool {
    (rs.ctrl_avail() && !rs.await_peer) || rs.state & RS_CONNECTED == 0
}

pub(super) fn conn_have_rdata(rs: &Rs) -> bool {
    rs.have_rdata() || rs.state & RS_READABLE == 0
}

pub(super) fn conn_all_sends_done(rs: &Rs) -> bool {
    (rs.ctrl_max_seqno.wrapping_sub(rs.ctrl_seqno) as i32) + rs.sqe_avail == i32::from(rs.sq_size)
        || rs.state & RS_CONNECTED == 0
}

pub(super) fn is_cq_armed(rs: &Rs) -> bool {
    rs.cq_armed
}

pub(super) fn poll_all(_: &Rs) -> bool {
    true
}

/// `rshutdown` of a stream rsocket (the state lock held; the caller has stopped its keep-alives).
pub(super) fn shutdown<'a>(s: &'a Rsocket, mut g: MutexGuard<'a, Rs>, how: c_int) -> (MutexGuard<'a, Rs>, Result<()>) {
    let mut ret = Ok(());
    if g.state & RS_CONNECTED != 0 {
        let ctrl;
        let mut skip = false;
        if how == libc::SHUT_RDWR {
            ctrl = CTRL_DISCONNECT;
            g.state &= !(RS_READABLE | RS_WRITABLE);
        } else if how == libc::SHUT_WR {
            g.state &= !RS_WRITABLE;
            ctrl = if g.state & RS_READABLE != 0 { CTRL_SHUTDOWN } else { CTRL_DISCONNECT };
        } else {
            g.state &= !RS_READABLE;
            ctrl = CTRL_DISCONNECT;
            skip = g.state & RS_WRITABLE != 0;
        }
        if skip {
            return (g, Ok(()));
        }
        if !g.ctrl_avail() || g.await_peer {
            let (g2, r) = s.process_cq(g, false, conn_can_send_ctrl);
            g = g2;
            if r.is_err() {
                return (g, r);
            }
        }
        if g.state & RS_CONNECTED != 0 && g.ctrl_avail() && !g.await_peer {
            g.ctrl_seqno = g.ctrl_seqno.wrapping_add(1);
            ret = g.post_msg(msg(OP_CTRL, ctrl));
        }
    }
    if g.state & RS_CONNECTED != 0 {
        let (g2, _) = s.process_cq(g, false, conn_all_sends_done);
        g = g2;
    }
    if g.state & RS_DISCONNECTED != 0 && !g.cq().is_null() {
        g.arm();
        g.qp_to_err();
    }
    (g, ret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_tests_and_credits() {
        let mut rs = Rs::new(null_mut(), None);
        let d = defaults();
        assert_eq!((rs.state, rs.sq_size, rs.rq_size, rs.sq_inline), (RS_INIT, d.sqsize, d.rqsize, d.inline));
        assert!(!rs.can_send());
        // Not readable / not connected: a waiting reader or closer stops at once.
        assert!(conn_have_rdata(&rs) && conn_all_sends_done(&rs) && conn_can_send(&rs));
        rs.state = RS_CONNECT_RDWR;
        assert!(!conn_have_rdata(&rs) && !conn_can_send(&rs));
        rs.sqe_avail = i32::from(rs.sq_size) - rs.ctrl_max_seqno as i32;
        assert!(conn_all_sends_done(&rs));
        rs.sqe_avail -= 1;
        assert!(!conn_all_sends_done(&rs));
        // Credits go out when the receive sequence reaches rseq_comp (or half the buffer is free), if a control
        // slot is free.
        rs.rbuf_bytes_avail = 0;
        rs.rseq_comp = 10;
        rs.rseq_no = 9;
        assert!(!rs.give_credits());
        rs.rseq_no = 10;
        assert!(rs.give_credits());
        rs.ctrl_seqno = rs.ctrl_max_seqno;
        assert!(!rs.give_credits() && !conn_can_send_ctrl(&rs));
        // iWARP needs two control slots for a grant.
        rs.opts |= OPT_MSG_SEND;
        rs.ctrl_seqno = rs.ctrl_max_seqno.wrapping_sub(1);
        assert!(!rs.give_credits());
        rs.ctrl_seqno = rs.ctrl_max_seqno.wrapping_sub(2);
        assert!(rs.give_credits());
    }
}
