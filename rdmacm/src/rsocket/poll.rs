//! `rpoll` and `rselect` over rsockets and ordinary descriptors mixed, as rdma-core 44 does it: a first pass
//! that polls every CQ (and `poll(2)`s ordinary descriptors with no timeout), a short busy-poll, then a sleep in
//! `poll(2)` on the descriptors behind each rsocket: its completion channel once connected (and, ours, its CM event
//! channel too, so that a peer that closes or dies wakes the caller), its CM event channel while listening or
//! connecting. The sleep lasts at most the configured wake-up interval, after which every rsocket is checked again.
#![allow(unsafe_code)] // the caller's pollfd array and fd_sets

use super::dgram::{self, Dsock};
use super::stream::*;
use super::{lookup, Rsocket};
use libc::{fd_set, nfds_t, pollfd, timeval};
use rdma_common::errno::{Errno, Result};
use std::ffi::c_int;
use std::sync::Arc;
use std::time::Instant;

/// `rs_poll_rs`: the events of one rsocket now (processing its completions and CM progress on the way).
fn poll_rs(s: &Rsocket, events: i16, nonblock: bool, test: Test) -> i16 {
    let mut g = s.inner.lock();
    if g.state & RS_CLOSED != 0 {
        return libc::POLLNVAL;
    }
    loop {
        if g.state & RS_CONNECTED != 0 || g.state == RS_DISCONNECTED || g.state & RS_ERROR != 0 {
            let (g2, _) = s.process_cq(g, nonblock, test);
            g = g2;
            let mut rev = 0;
            if events & libc::POLLIN != 0 && conn_have_rdata(&g) {
                rev |= libc::POLLIN;
            }
            if events & libc::POLLOUT != 0 && g.can_send() {
                rev |= libc::POLLOUT;
            }
            // Hang-up only once the data received before it has been read (as TCP: rdma-core reports it at
            // once, so a reader polling between two parts of the last message sees POLLHUP early).
            if g.state & RS_CONNECTED == 0 {
                if g.state != RS_DISCONNECTED {
                    rev |= libc::POLLERR;
                } else if !g.have_rdata() {
                    rev |= libc::POLLHUP;
                }
            }
            return rev;
        }
        if g.state == RS_LISTENING {
            let mut p = pollfd { fd: g.cm_fd(), events, revents: 0 };
            // SAFETY: one valid pollfd.
            unsafe { libc::poll(&mut p, 1, 0) };
            return p.revents;
        }
        if g.state & RS_OPENING != 0 {
            match g.do_connect() {
                Err(e) if e.0 == libc::EINPROGRESS => return 0,
                _ => {
                    if g.state & RS_CONNECTED != 0 {
                        continue;
                    }
                }
            }
        }
        if g.state == RS_CONNECT_ERROR {
            return (events & (libc::POLLIN | libc::POLLOUT)) | libc::POLLERR;
        }
        return 0;
    }
}

/// `rpoll` proper (the entry point only adds the C boundary).
pub(super) fn rpoll(fds: &mut [pollfd], timeout: c_int) -> Result<c_int> {
    let dss: Vec<Option<Arc<Dsock>>> = fds.iter().map(|p| dgram::lookup(p.fd)).collect();
    let rss: Vec<Option<Arc<Rsocket>>> =
        fds.iter().zip(&dss).map(|(p, d)| if d.is_some() { None } else { lookup(p.fd) }).collect();
    let check = |fds: &mut [pollfd]| -> c_int {
        let mut cnt = 0;
        for ((p, rs), ds) in fds.iter_mut().zip(&rss).zip(&dss) {
            p.revents = match (rs, ds) {
                (_, Some(d)) => dgram::poll_events(d, p.events),
                (Some(s), None) => poll_rs(s, p.events, true, poll_all),
                (None, None) => {
                    // SAFETY: one valid pollfd.
                    unsafe { libc::poll(p, 1, 0) };
                    p.revents
                }
            };
            if p.revents != 0 {
                cnt += 1;
            }
        }
        cnt
    };
    let start = Instant::now();
    let d = super::config::defaults();
    loop {
        let n = check(fds);
        if n != 0 || timeout == 0 {
            return Ok(n);
        }
        if start.elapsed().as_micros() > u128::from(d.polling_time_us) {
            break;
        }
    }
    loop {
        // Arm: every rsocket's CQ armed (or its readiness found on the way), the descriptors to sleep on.
        let mut rfds: Vec<pollfd> = Vec::with_capacity(fds.len() * 2);
        let mut owner: Vec<usize> = Vec::with_capacity(fds.len() * 2);
        for (i, (p, rs)) in fds.iter_mut().zip(&rss).enumerate() {
            if let Some(d) = &dss[i] {
                let before = rfds.len();
                p.revents = dgram::arm(d, p.events, &mut rfds);
                if p.revents != 0 {
                    return Ok(fds.iter().filter(|p| p.revents != 0).count() as c_int);
                }
                owner.resize(owner.len() + (rfds.len() - before), i);
                continue;
            }
            match rs {
                Some(s) => {
                    p.revents = poll_rs(s, p.events, false, is_cq_armed);
                    if p.revents != 0 {
                        return Ok(fds.iter().filter(|p| p.revents != 0).count() as c_int);
                    }
                    let g = s.inner.lock();
                    if g.state & RS_CLOSED != 0 {
                        continue;
                    }
                    if g.state >= RS_CONNECTED && g.cq_fd() >= 0 {
                        rfds.push(pollfd { fd: g.cq_fd(), events: libc::POLLIN, revents: 0 });
                        owner.push(i);
                    }
                    rfds.push(pollfd { fd: g.cm_fd(), events: libc::POLLIN, revents: 0 });
                    owner.push(i);
                }
                None => {
                    rfds.push(pollfd { fd: p.fd, events: p.events, revents: 0 });
                    owner.push(i);
                }
            }
        }
        let sleep = if timeout >= 0 {
            let left = i64::from(timeout) - start.elapsed().as_millis() as i64;
            if left <= 0 {
                return Ok(0);
            }
            left.min(i64::from(d.wake_up_interval_ms.max(1))) as c_int
        } else {
            d.wake_up_interval_ms.max(1)
        };
        // SAFETY: `rfds` is a valid array of its length.
        let r = unsafe { libc::poll(rfds.as_mut_ptr(), rfds.len() as nfds_t, sleep) };
        if r < 0 {
            return Err(Errno::last());
        }
        // Events: consume the completion / CM events behind each rsocket, then report what the caller asked.
        let mut cnt = 0;
        for (i, (p, rs)) in fds.iter_mut().zip(&rss).enumerate() {
            let mine = rfds.iter().zip(&owner).filter(|(_, &o)| o == i).map(|(r, _)| *r);
            if let Some(d) = &dss[i] {
                p.revents = dgram::poll_events(d, p.events);
                if p.revents != 0 {
                    cnt += 1;
                }
                continue;
            }
            match rs {
                Some(s) => {
                    let mut g = s.inner.lock();
                    for r in mine {
                        if r.revents == 0 || g.state & RS_CLOSED != 0 {
                            continue;
                        }
                        if r.fd == g.cq_fd() {
                            let _ = g.get_cq_event();
                        } else if g.state & RS_CONNECTED != 0 {
                            g.handle_cm_event();
                        }
                    }
                    drop(g);
                    p.revents = poll_rs(s, p.events, true, poll_all);
                }
                None => p.revents = mine.map(|r| r.revents).fold(0, |a, b| a | b),
            }
            if p.revents != 0 {
                cnt += 1;
            }
        }
        if cnt != 0 {
            return Ok(cnt);
        }
    }
}

/// A `select` timeout in `poll` milliseconds: -1 for none (wait forever), sub-millisecond remainders rounded up so
/// that the wait is never shorter than asked, saturated at `c_int::MAX`.
pub(super) fn timeout_ms(timeout: Option<&timeval>) -> c_int {
    match timeout {
        None => -1,
        Some(tv) => {
            let ms = (tv.tv_sec as i128) * 1000 + (tv.tv_usec as i128 + 999) / 1000;
            ms.clamp(0, c_int::MAX as i128) as c_int
        }
    }
}

/// `rselect` proper: the sets converted to an `rpoll` array and back.
///
/// # Safety
/// Each set pointer is NULL or points to an `fd_set`; `timeout` is NULL or points to a `timeval`.
pub(super) unsafe fn rselect(
    nfds: c_int,
    readfds: *mut fd_set,
    writefds: *mut fd_set,
    exceptfds: *mut fd_set,
    timeout: *mut timeval,
) -> Result<c_int> {
    if nfds < 0 {
        return Err(Errno::EINVAL);
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
    let ret = rpoll(&mut polled, ms);
    for set in [readfds, writefds, exceptfds] {
        if !set.is_null() {
            // SAFETY: see above.
            unsafe { libc::FD_ZERO(set) };
        }
    }
    let ret = ret?;
    if ret <= 0 {
        return Ok(ret);
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
    Ok(count)
}
