//! Stream rsocket connection set-up: the endpoint (CQ, RC QP, registered buffers, receives posted), the connection
//! data both sides exchange in the CM private data ([`super::wire::ConnData`]), the active side's state machine
//! (`rs_do_connect`: resolve address, resolve route, connect, take the peer's connection data), the passive side's
//! accept of one request (`rs_accept`), and the id's CM events once connected (a `DISCONNECTED` from the peer).
//!
//! Every step runs on librdmacm's own calls on the rsocket's synchronous id, kept non-blocking: a step that must
//! wait for a CM event answers `EAGAIN` and leaves the state at `RS_RESOLVING_ADDR`, `RS_RESOLVING_ROUTE`,
//! `RS_CONNECTING` or `RS_ACCEPTING`; [`Rsocket::connect_wait`] (or the next call into the rsocket, `rpoll`
//! included) takes it further.
#![allow(unsafe_code)] // the id's public fields, the CM private data, the QP attributes passed to rdma_create_qp

use super::stream::*;
use super::verbs::{cm_call, id_cq, req_notify, set_nonblock, RegBuf};
use super::wire::*;
use crate::cm;
use parking_lot::MutexGuard;
use rdma_common::abi::enums::*;
use rdma_common::abi::rdma_cma::*;
use rdma_common::abi::verbs::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi;
use std::ffi::{c_int, c_void};
use std::mem::{size_of, MaybeUninit};
use std::ptr::{addr_of, addr_of_mut, null_mut};

impl Rs {
    /// `rs_set_qp_size`: the queue sizes asked, within what the device allows.
    fn set_qp_size(&mut self) {
        // SAFETY: the id is on a device once its address is resolved or a request arrived.
        let max = unsafe { crate::verbs::query_device((*self.id).verbs) }
            .map(|c| c.max_qp_wr.clamp(0, i32::from(QP_MAX_SIZE)) as u16)
            .unwrap_or(QP_MAX_SIZE);
        self.sq_size = self.sq_size.clamp(QP_MIN_SIZE, max.max(QP_MIN_SIZE));
        self.rq_size = self.rq_size.clamp(QP_MIN_SIZE, max.max(QP_MIN_SIZE));
    }

    /// `rs_create_ep`: CQ, QP, buffers, and the receive queue filled.
    pub(super) fn create_ep(&mut self) -> Result<()> {
        self.set_qp_size();
        let id = self.id;
        // SAFETY: the id is live and on a device (`verbs` set).
        let (ctx, transport) = unsafe {
            let ctx = (*id).verbs;
            (ctx, ffi::enum_raw(addr_of!((*(*ctx).device).transport_type)))
        };
        if transport == ibv_transport_type::IBV_TRANSPORT_IWARP as u32 {
            self.opts |= OPT_MSG_SEND;
            // rdma-core 56.1 and later: room for the 4-byte message sends inline, whatever RDMA_INLINE asked.
            self.sq_inline = self.sq_inline.max(4);
        }
        // SAFETY: `ctx` is the id's open context; the channel and CQ are stored in the id, which
        // rdma_destroy_qp destroys them from (as rdma-core's rsocket relies on).
        unsafe {
            let (_, cq) = id_cq(id, ctx, c_int::from(self.sq_size) + c_int::from(self.rq_size))?;
            req_notify(cq)?;

            let mut attr = MaybeUninit::<ibv_qp_init_attr>::zeroed();
            let a = attr.as_mut_ptr();
            addr_of_mut!((*a).qp_context).write(null_mut());
            addr_of_mut!((*a).send_cq).write(cq);
            addr_of_mut!((*a).recv_cq).write(cq);
            addr_of_mut!((*a).qp_type).write(ibv_qp_type::IBV_QPT_RC);
            addr_of_mut!((*a).sq_sig_all).write(1);
            addr_of_mut!((*a).cap.max_send_wr).write(u32::from(self.sq_size));
            addr_of_mut!((*a).cap.max_recv_wr).write(u32::from(self.rq_size));
            addr_of_mut!((*a).cap.max_send_sge).write(2);
            addr_of_mut!((*a).cap.max_recv_sge).write(1);
            addr_of_mut!((*a).cap.max_inline_data).write(u32::from(self.sq_inline));
            if cm::qp::rdma_create_qp(id, null_mut(), a) != 0 {
                return Err(Errno::last());
            }
            self.sq_inline = addr_of!((*a).cap.max_inline_data).read().min(u32::from(u16::MAX)) as u16;
        }
        if self.opts & OPT_MSG_SEND != 0 && self.sq_inline < 4 {
            return Err(Errno::EOPNOTSUPP);
        }
        self.init_bufs()?;
        for _ in 0..self.rq_size {
            self.post_recv()?;
        }
        Ok(())
    }

    /// `rs_init_bufs`.
    fn init_bufs(&mut self) -> Result<()> {
        let pd = self.pd();
        self.init_bufs_with(|len, access| RegBuf::new(pd, len, access))
    }

    /// `rs_init_bufs` with buffers from `make(len, access)`.
    pub(super) fn init_bufs_with(&mut self, make: impl Fn(usize, c_int) -> Result<RegBuf>) -> Result<()> {
        let local = ibv_access_flags::IBV_ACCESS_LOCAL_WRITE as c_int;
        let remote = local | ibv_access_flags::IBV_ACCESS_REMOTE_WRITE as c_int;
        self.rmsg = vec![(0, 0); usize::from(self.rq_size) + 1];
        let mut total_sbuf = self.sbuf_size as usize;
        if usize::from(self.sq_inline) < size_of::<RsSge>() {
            total_sbuf += size_of::<RsSge>() * QP_CTRL_SIZE as usize;
        }
        self.sbuf = Some(make(total_sbuf, local)?);
        let tlen = size_of::<RsSge>() * SGL_SIZE + size_of::<RsIomap>() * usize::from(self.target_iomap_size);
        self.target = Some(make(tlen, remote)?);
        let mut total_rbuf = self.rbuf_size as usize;
        if self.opts & OPT_MSG_SEND != 0 {
            total_rbuf += usize::from(self.rq_size) * 4;
        }
        self.rbuf = Some(make(total_rbuf, remote)?);
        self.ssgl_off = 0;
        self.sbuf_bytes_avail = self.sbuf_size;
        self.rbuf_free_offset = self.rbuf_size >> 1;
        self.rbuf_bytes_avail = i64::from(self.rbuf_size >> 1);
        self.sqe_avail = i32::from(self.sq_size) - self.ctrl_max_seqno as i32;
        self.rseq_comp = self.rq_size >> 1;
        self.start_peer_accounting();
        Ok(())
    }

    /// Our connection data (`rs_format_conn_data`).
    pub(super) fn conn_data(&self) -> ConnData {
        let (t, r) = (self.target.as_ref(), self.rbuf.as_ref());
        ConnData {
            version: 1,
            flags: CONN_FLAG_IOMAP | if host_is_net() { CONN_FLAG_NET } else { 0 },
            credits: self.rq_size,
            target_iomap_size: value_to_scale(i32::from(self.target_iomap_size), 8) as u8,
            target_sgl: RsSge {
                addr: t.map_or(0, RegBuf::addr),
                key: t.map_or(0, RegBuf::rkey),
                length: SGL_SIZE as u32,
            },
            data_buf: RsSge {
                addr: r.map_or(0, RegBuf::addr),
                key: r.map_or(0, RegBuf::rkey),
                length: self.rbuf_size >> 1,
            },
        }
    }

    /// Takes in the peer's connection data (`rs_save_conn_data`), held to the protocol first
    /// ([`ConnData::validate`]): `EOPNOTSUPP` for another version (rdma-core's answer), `EPROTO` for data that
    /// breaks it; nothing is kept then.
    pub(super) fn save_conn_data(&mut self, c: &ConnData) -> Result<()> {
        self.peer = match c.validate() {
            Ok(p) => p,
            Err(None) => return Err(Errno::EOPNOTSUPP),
            Err(Some(v)) => {
                log::warn!("rsocket {}: connection data refused: {}", self.cm_fd(), v.0);
                return Err(Errno(libc::EPROTO));
            }
        };
        self.remote_sgl = c.target_sgl;
        self.remote_sge = 1;
        if host_is_net() != ((c.flags & CONN_FLAG_NET) != 0) {
            self.opts |= OPT_SWAP_SGL;
        }
        if c.flags & CONN_FLAG_IOMAP != 0 {
            self.remote_iomap = RsSge {
                // validate() made sure both tables fit in the address space.
                addr: c.target_sgl.addr + (size_of::<RsSge>() as u64) * u64::from(c.target_sgl.length),
                length: scale_to_value(i32::from(c.target_iomap_size), 8) as u32,
                key: c.target_sgl.key,
            };
        }
        self.set_target(0, c.data_buf);
        self.sseq_comp = c.credits;
        Ok(())
    }

    /// Reads the id's next CM event, if any (non-blocking): a `DISCONNECTED` of a connected rsocket marks it
    /// disconnected (the peer closed or died).
    pub(super) fn handle_cm_event(&mut self) {
        if self.state & RS_OPENING != 0 {
            let _ = self.do_connect();
            return;
        }
        let Ok(id) = crate::state::lookup_id(self.id) else { return };
        if cm::event::complete(&id).is_ok() {
            let ev = id.event();
            // SAFETY: the id's current event, live until the next complete or destroy.
            let kind = unsafe { ffi::enum_raw(addr_of!((*ev).event)) };
            if kind == RDMA_CM_EVENT_DISCONNECTED && self.state & RS_CONNECTED != 0 {
                log::debug!("rsocket {}: peer disconnected", self.cm_fd());
                self.state = RS_DISCONNECTED;
            }
        }
    }

    /// `rs_do_connect`: advances the active (or accepting) side as far as it can without waiting. `EINPROGRESS`
    /// when a CM event is still to come; any other failure moves the rsocket to the connect-error state.
    pub(super) fn do_connect(&mut self) -> Result<()> {
        #[derive(Clone, Copy)]
        enum Next {
            ResolveAddr,
            CompleteAddr,
            ResolveRoute,
            CompleteRoute,
            Connect,
            CompleteConnect,
            Connected,
            CompleteAccept,
        }
        let mut next = match self.state {
            RS_INIT | RS_BOUND => Next::ResolveAddr,
            RS_RESOLVING_ADDR => Next::CompleteAddr,
            RS_RESOLVING_ROUTE => Next::CompleteRoute,
            RS_CONNECTING => Next::CompleteConnect,
            RS_ACCEPTING => Next::CompleteAccept,
            RS_CONNECT_ERROR | RS_DISCONNECTED | RS_ERROR => return Err(Errno::ENOTCONN),
            s => return if s & RS_CONNECTED != 0 { Ok(()) } else { Err(Errno::EINVAL) },
        };
        let Ok(cid) = crate::state::lookup_id(self.id) else { return Err(Errno::EBADF) };
        let id = self.id;
        let r: Result<()> = loop {
            match next {
                Next::ResolveAddr => {
                    let to = 1000 << self.retries.min(20);
                    self.retries += 1;
                    // SAFETY: the id is live; the destination is its own `dst_addr` (copied by the call).
                    let dst = unsafe { addr_of_mut!((*id).route.addr.dst).cast::<libc::sockaddr>() };
                    // SAFETY: as above.
                    match cm_call(unsafe { cm::addr::rdma_resolve_addr(id, null_mut(), dst, to) }) {
                        Ok(()) => next = Next::ResolveRoute,
                        Err(e) => {
                            if e == Errno::EAGAIN {
                                self.state = RS_RESOLVING_ADDR;
                            }
                            break Err(e);
                        }
                    }
                }
                Next::CompleteAddr => match cm::event::complete(&cid) {
                    Ok(()) => {
                        self.retries = 0;
                        next = Next::ResolveRoute;
                    }
                    Err(Errno::ETIMEDOUT) if self.retries <= CONN_RETRIES => next = Next::ResolveAddr,
                    Err(e) => break Err(e),
                },
                Next::ResolveRoute => {
                    let to = 1000 << self.retries.min(20);
                    self.retries += 1;
                    if let Some(mut path) = self.route.take() {
                        // SAFETY: `path` is the application's ibv_path_data array, `path.len()` bytes.
                        let r = cm_call(unsafe {
                            cm::id::rdma_set_option(
                                id,
                                RDMA_OPTION_IB,
                                RDMA_OPTION_IB_PATH,
                                path.as_mut_ptr().cast(),
                                path.len(),
                            )
                        });
                        match r {
                            Ok(()) => {
                                self.state = RS_RESOLVING_ROUTE;
                                next = Next::CompleteRoute;
                            }
                            Err(e) => break Err(e),
                        }
                    } else {
                        // SAFETY: the id is live.
                        match cm_call(unsafe { cm::addr::rdma_resolve_route(id, to) }) {
                            Ok(()) => next = Next::Connect,
                            Err(e) => {
                                if e == Errno::EAGAIN {
                                    self.state = RS_RESOLVING_ROUTE;
                                }
                                break Err(e);
                            }
                        }
                    }
                }
                Next::CompleteRoute => match cm::event::complete(&cid) {
                    Ok(()) => next = Next::Connect,
                    Err(Errno::ETIMEDOUT) if self.retries <= CONN_RETRIES => next = Next::ResolveRoute,
                    Err(e) => break Err(e),
                },
                Next::Connect => {
                    if let Err(e) = self.create_ep() {
                        break Err(e);
                    }
                    let off = self.conn_data_offset();
                    let mut pdata = vec![0u8; off + CONN_DATA_LEN];
                    pdata[off..].copy_from_slice(&self.conn_data().to_bytes());
                    // SAFETY: zero is a valid rdma_conn_param (integers and a NULL pointer).
                    let mut param: rdma_conn_param = unsafe { std::mem::zeroed() };
                    param.private_data = pdata.as_ptr().cast();
                    param.private_data_len = pdata.len() as u8;
                    param.flow_control = 1;
                    param.retry_count = 7;
                    param.rnr_retry_count = 7;
                    if self.opts & OPT_MSG_SEND != 0 {
                        // iWARP peers issue an RDMA read while connecting.
                        param.initiator_depth = 1;
                    }
                    self.retries = 0;
                    // SAFETY: the id is live; `param` and its private data outlive the call (copied by it).
                    match cm_call(unsafe { cm::conn::rdma_connect(id, &mut param) }) {
                        Ok(()) => next = Next::Connected,
                        Err(e) => {
                            if e == Errno::EAGAIN {
                                self.state = RS_CONNECTING;
                            }
                            break Err(e);
                        }
                    }
                }
                Next::CompleteConnect => match cm::event::complete(&cid) {
                    Ok(()) => next = Next::Connected,
                    Err(e) => break Err(e),
                },
                Next::Connected => {
                    let ev = cid.event();
                    let resp = if ev.is_null() {
                        None
                    } else {
                        // SAFETY: the id's current event; its private data is `private_data_len` bytes.
                        unsafe {
                            let c = addr_of!((*ev).param.conn).read();
                            if c.private_data.is_null() {
                                None
                            } else {
                                let b = std::slice::from_raw_parts(
                                    c.private_data.cast::<u8>(),
                                    usize::from(c.private_data_len),
                                );
                                ConnData::parse(b)
                            }
                        }
                    };
                    // The connection is established at the CM: a reply we cannot take ends it again.
                    let r = match resp {
                        Some(c) => self.save_conn_data(&c),
                        None => Err(Errno(libc::EPROTO)),
                    };
                    if let Err(e) = r {
                        // SAFETY: the id is live; its channel is non-blocking, so this does not wait.
                        let _ = unsafe { cm::conn::rdma_disconnect(id) };
                        break Err(e);
                    }
                    self.state = RS_CONNECT_RDWR;
                    break Ok(());
                }
                Next::CompleteAccept => match cm::event::complete(&cid) {
                    Ok(()) => {
                        self.state = RS_CONNECT_RDWR;
                        break Ok(());
                    }
                    Err(e) => break Err(e),
                },
            }
        };
        match r {
            Ok(()) => Ok(()),
            Err(e) if e == Errno::EAGAIN => Err(Errno(libc::EINPROGRESS)),
            Err(e) => {
                log::debug!("rsocket {}: connection failed: {e:?}", self.cm_fd());
                self.state = RS_CONNECT_ERROR;
                self.err = e.0;
                Err(e)
            }
        }
    }
}

impl Rsocket {
    /// Drives a connection that is still opening: once when non-blocking (`EINPROGRESS`), else until it is
    /// established or failed, sleeping on the id's event channel.
    pub(super) fn connect_wait<'a>(
        &'a self,
        mut g: MutexGuard<'a, Rs>,
        nonblock: bool,
    ) -> (MutexGuard<'a, Rs>, Result<()>) {
        loop {
            let r = g.do_connect();
            match r {
                Err(e) if e.0 == libc::EINPROGRESS && !nonblock => {
                    let mut p = libc::pollfd { fd: g.cm_fd(), events: libc::POLLIN, revents: 0 };
                    drop(g);
                    // SAFETY: one valid pollfd.
                    unsafe { libc::poll(&mut p, 1, 1000) };
                    g = self.inner.lock();
                    if g.state & RS_CLOSED != 0 {
                        return (g, Err(Errno::EBADF));
                    }
                }
                r => return (g, r),
            }
        }
    }
}

/// Accepts the next connection request of listening rsocket `l` (`rs_accept`): the new rsocket's state, its
/// connection accepted (or `RS_ACCEPTING` until its `ESTABLISHED` event); None when the request was rejected (not
/// an rsocket peer, or no resources). `EAGAIN` when none is pending.
pub(super) fn accept_one(l: &Rs) -> Result<Option<Rs>> {
    let mut new_id = null_mut();
    // SAFETY: the listener's id is live; `new_id` is our out-parameter.
    cm_call(unsafe { cm::conn::rdma_get_request(l.id, &mut new_id) })?;
    let mut rs = Rs::new(new_id, Some(l));
    // rdma-core 65: an accepted rsocket takes the listener's flags, O_NONBLOCK included (44 cleared them).
    rs.fs_flags = l.fs_flags;
    rs.fd_flags = l.fd_flags;
    set_nonblock(rs.cm_fd());
    let reject = |rs: &mut Rs, e: Errno| {
        log::debug!("rsocket: rejecting a connection request: {e:?}");
        // SAFETY: the new id is live.
        unsafe { cm::conn::rdma_reject(rs.id, std::ptr::null(), 0) };
        rs.free();
    };
    // SAFETY: the new id's event is its CONNECT_REQUEST, with `private_data_len` bytes of private data.
    let (req, param) = unsafe {
        let ev = addr_of!((*new_id).event).read();
        let c = addr_of!((*ev).param.conn).read();
        let off = l.conn_data_offset();
        let b = if c.private_data.is_null() || usize::from(c.private_data_len) < off {
            &[][..]
        } else {
            &std::slice::from_raw_parts(c.private_data.cast::<u8>(), usize::from(c.private_data_len))[off..]
        };
        (ConnData::parse(b), c)
    };
    let req = match req {
        Some(r) => r,
        None => {
            reject(&mut rs, Errno::EPROTO);
            return Ok(None);
        }
    };
    if let Err(e) = req.validate().map_err(|v| v.map_or(Errno::EOPNOTSUPP, |_| Errno(libc::EPROTO))) {
        reject(&mut rs, e);
        return Ok(None);
    }
    if let Err(e) = rs.create_ep() {
        reject(&mut rs, e);
        return Ok(None);
    }
    rs.await_peer = rs.opts & OPT_MSG_SEND != 0;
    if let Err(e) = rs.save_conn_data(&req) {
        reject(&mut rs, e);
        return Ok(None);
    }
    let resp = rs.conn_data().to_bytes();
    let mut param = param;
    param.private_data = resp.as_ptr().cast::<c_void>();
    param.private_data_len = resp.len() as u8;
    // SAFETY: the new id is live; `param` and its private data outlive the call.
    match cm_call(unsafe { cm::conn::rdma_accept(new_id, &mut param) }) {
        Ok(()) => rs.state = RS_CONNECT_RDWR,
        Err(e) if e == Errno::EAGAIN => rs.state = RS_ACCEPTING,
        Err(e) => {
            reject(&mut rs, e);
            return Ok(None);
        }
    }
    Ok(Some(rs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_conn_data() {
        let mut rs = Rs::new(null_mut(), None);
        let mut c = ConnData {
            version: 1,
            flags: CONN_FLAG_IOMAP,
            credits: 100,
            target_iomap_size: 2,
            target_sgl: RsSge { addr: 0x1000, key: 5, length: 2 },
            data_buf: RsSge { addr: 0x8000, key: 6, length: 65536 },
        };
        rs.save_conn_data(&c).unwrap();
        assert_eq!(rs.sseq_comp, 100);
        assert_eq!(rs.remote_sgl, c.target_sgl);
        assert_eq!(rs.remote_iomap, RsSge { addr: 0x1000 + 32, key: 5, length: 2 });
        assert_eq!(rs.opts & OPT_SWAP_SGL, 0);
        c.flags |= CONN_FLAG_NET;
        rs.save_conn_data(&c).unwrap();
        assert_eq!(rs.opts & OPT_SWAP_SGL != 0, !host_is_net());
        // Ours before any buffer exists: version 1, our credits, the iomap flag.
        let ours = rs.conn_data();
        assert_eq!((ours.version, ours.credits, ours.flags & CONN_FLAG_IOMAP), (1, rs.rq_size, CONN_FLAG_IOMAP));
        assert_eq!(ours.target_sgl.length, SGL_SIZE as u32);
    }
}
