//! `repoll_create` / `repoll_ctl` / `repoll_wait` (RDMACM_1.5, rdma-core 65): `epoll(7)` for rsockets, which the
//! kernel's epoll cannot watch (an rsocket's readiness lives in its CQ and buffers, not in a descriptor). rdma-core
//! 65's `librspreload.so` sends a program's `epoll_create`/`epoll_ctl`/`epoll_wait` here.
//!
//! An instance is a number (an `eventfd` of ours, so that it is a descriptor of the process no other object uses, as
//! rdma-core's pipe is) with an interest list: descriptor, the events asked (`EPOLLIN`, `EPOLLOUT`, `EPOLLPRI`,
//! `EPOLLRDHUP`; `EPOLLERR` and `EPOLLHUP` always) and the caller's 64-bit data. `repoll_wait` polls the list with
//! `rpoll` (rsockets and ordinary descriptors mixed) and returns the ready entries as `struct epoll_event`s. A wait
//! also polls its thread's own wake-up `eventfd`, which `repoll_ctl` and `rclose` write, so that a change of the list
//! (or the close of the instance) reaches a thread already waiting, as with epoll; rdma-core 65 uses a monitor thread
//! per instance for the same end.
//!
//! Semantics, as rdma-core 65's except where said:
//! * level-triggered: `EPOLLET` is accepted and ignored (an edge-triggered program that reads until `EAGAIN`, as
//!   it must, works); `EPOLLEXCLUSIVE` and `EPOLLWAKEUP` are ignored;
//! * `EPOLLONESHOT` is honoured (rdma-core 65 ignores it): an entry reported once is disabled until `EPOLL_CTL_MOD`;
//! * a descriptor closed while listed drops out of the list at the next wait, as epoll forgets a closed file
//!   (rdma-core 65 reports it, with no event bits, at every wait);
//! * `EPOLLPRI` and `EPOLLRDHUP` are passed to `poll(2)` for ordinary descriptors (rdma-core 65 drops them);
//! * the ready entries are reported round-robin when more are ready than `maxevents` (rdma-core 65: always the
//!   first ones);
//! * errors are -1 with `errno`, as `epoll_ctl(2)` / `epoll_wait(2)` (rdma-core 65 returns the positive errno, which
//!   its `librspreload` hands to the program as `epoll_ctl`'s or `epoll_wait`'s result: `epoll_wait` then reports
//!   22 events for an `EINVAL`);
//! * `rclose` of an instance closes it even while descriptors are listed, as `close(2)` of an epoll descriptor
//!   does (rdma-core 65 refuses with the positive `EBUSY` and keeps it).
//!
//! A thread waiting in `repoll_wait` cannot be cancelled until the call returns, as in `rpoll`.
#![allow(unsafe_code)] // the caller's epoll_event arrays, eventfds

use super::poll;
use libc::{epoll_event, pollfd};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use rdma_common::errno::{Errno, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_int;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Arc;
use std::time::Instant;

/// The events `repoll_ctl` takes from `struct epoll_event::events` and polls (their bits are `poll(2)`'s).
const POLLED: u32 = (libc::EPOLLIN | libc::EPOLLPRI | libc::EPOLLOUT | libc::EPOLLRDHUP) as u32;
/// The events reported whether asked or not.
const ALWAYS: u32 = (libc::EPOLLERR | libc::EPOLLHUP) as u32;

// The epoll bits this module passes to poll(2) as they are.
const _: () = assert!(
    libc::EPOLLIN == libc::POLLIN as c_int
        && libc::EPOLLPRI == libc::POLLPRI as c_int
        && libc::EPOLLOUT == libc::POLLOUT as c_int
        && libc::EPOLLRDHUP == libc::POLLRDHUP as c_int
        && libc::EPOLLERR == libc::POLLERR as c_int
        && libc::EPOLLHUP == libc::POLLHUP as c_int
);

/// One descriptor of an interest list.
struct Entry {
    fd: c_int,
    /// `struct epoll_event::events` as given.
    events: u32,
    /// `struct epoll_event::data`.
    data: u64,
    /// `EPOLLONESHOT` and reported since the last `EPOLL_CTL_ADD`/`MOD`.
    spent: bool,
}

#[derive(Default)]
struct List {
    entries: Vec<Entry>,
    /// Descriptor -> index in `entries`.
    index: HashMap<c_int, usize>,
    /// Where the next wait starts looking (round-robin).
    next: usize,
    /// The wake-up descriptors of the threads waiting now.
    waiters: Vec<RawFd>,
    /// `rclose`d: waiting threads return.
    closed: bool,
}

impl List {
    fn remove(&mut self, fd: c_int) -> bool {
        let Some(i) = self.index.remove(&fd) else { return false };
        self.entries.swap_remove(i);
        if let Some(moved) = self.entries.get(i) {
            self.index.insert(moved.fd, i);
        }
        true
    }

    /// Wakes every waiting thread (an `eventfd` write; a full counter is awake already).
    fn wake(&self) {
        for &w in &self.waiters {
            let one = 1u64;
            // SAFETY: a waiter's eventfd, open while it is listed; 8 bytes from a live u64.
            unsafe { libc::write(w, (&one as *const u64).cast(), 8) };
        }
    }
}

/// An instance: its number (an eventfd nobody writes, closed with the last reference) and its interest list.
struct Repoll {
    _number: OwnedFd,
    list: Mutex<List>,
}

/// The live instances, by number.
static REPOLLS: Lazy<Mutex<HashMap<c_int, Arc<Repoll>>>> = Lazy::new(|| Mutex::new(HashMap::new()));

fn lookup(epfd: c_int) -> Option<Arc<Repoll>> {
    REPOLLS.lock().get(&epfd).cloned()
}

/// Whether `fd` is an instance (for `rclose`).
pub(super) fn is_repoll(fd: c_int) -> bool {
    REPOLLS.lock().contains_key(&fd)
}

/// A new eventfd (`EFD_*` flags).
fn eventfd(flags: c_int) -> Result<OwnedFd> {
    // SAFETY: plain call; a non-negative result is a descriptor we own.
    let fd = unsafe { libc::eventfd(0, flags) };
    if fd < 0 {
        return Err(Errno::last());
    }
    // SAFETY: just created, ours.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `repoll_create`: a new instance; `flags` `EPOLL_CLOEXEC` (= `O_CLOEXEC`) and `O_NONBLOCK` apply to its number,
/// others are ignored (as rdma-core 65 does).
pub(super) fn create(flags: c_int) -> Result<c_int> {
    let mut efd = 0;
    if flags & libc::O_CLOEXEC != 0 {
        efd |= libc::EFD_CLOEXEC;
    }
    if flags & libc::O_NONBLOCK != 0 {
        efd |= libc::EFD_NONBLOCK;
    }
    let number = eventfd(efd)?;
    let n = number.as_raw_fd();
    REPOLLS.lock().insert(n, Arc::new(Repoll { _number: number, list: Mutex::new(List::default()) }));
    Ok(n)
}

/// `rclose` of an instance: removed, its waiters woken (they return 0); the number is closed once no call uses it.
pub(super) fn close(epfd: c_int) -> Result<()> {
    let r = REPOLLS.lock().remove(&epfd).ok_or(Errno::EBADF)?;
    let mut l = r.list.lock();
    l.closed = true;
    l.wake();
    Ok(())
}

/// `repoll_ctl`. `event` is read for `EPOLL_CTL_ADD` and `EPOLL_CTL_MOD`.
pub(super) fn ctl(epfd: c_int, op: c_int, fd: c_int, event: Option<epoll_event>) -> Result<()> {
    if fd < 0 {
        return Err(Errno::EBADF);
    }
    if fd == epfd {
        return Err(Errno::EINVAL);
    }
    let r = lookup(epfd).ok_or(Errno::EINVAL)?;
    let mut l = r.list.lock();
    match op {
        libc::EPOLL_CTL_ADD | libc::EPOLL_CTL_MOD => {
            let ev = event.ok_or(Errno::EFAULT)?;
            let e = Entry { fd, events: ev.events, data: ev.u64, spent: false };
            match (op, l.index.get(&fd).copied()) {
                (libc::EPOLL_CTL_ADD, Some(_)) => return Err(Errno(libc::EEXIST)),
                (libc::EPOLL_CTL_MOD, None) => return Err(Errno::ENOENT),
                (_, Some(i)) => l.entries[i] = e,
                (_, None) => {
                    let i = l.entries.len();
                    l.entries.push(e);
                    l.index.insert(fd, i);
                }
            }
        }
        libc::EPOLL_CTL_DEL => {
            if !l.remove(fd) {
                return Err(Errno::ENOENT);
            }
        }
        _ => return Err(Errno::EINVAL),
    }
    l.wake();
    Ok(())
}

thread_local! {
    /// This thread's wake-up eventfd for `repoll_wait` (made on first use, closed with the thread).
    static WAKE: RefCell<Option<OwnedFd>> = const { RefCell::new(None) };
}

/// This thread's wake-up descriptor.
fn wake_fd() -> Result<RawFd> {
    WAKE.with(|w| {
        let mut w = w.borrow_mut();
        if w.is_none() {
            *w = Some(eventfd(libc::EFD_CLOEXEC | libc::EFD_NONBLOCK)?);
        }
        Ok(w.as_ref().map_or(-1, |f| f.as_raw_fd()))
    })
}

/// Takes the wake-ups written to `fd`.
fn drain(fd: RawFd) {
    let mut v = 0u64;
    // SAFETY: our eventfd; 8 writable bytes.
    unsafe { libc::read(fd, (&mut v as *mut u64).cast(), 8) };
}

/// `repoll_wait`: waits up to `timeout` ms (-1: forever) until entries of `epfd` are ready; returns them (at most
/// `max`), or none on timeout or when the instance is closed meanwhile.
pub(super) fn wait(epfd: c_int, max: usize, timeout: c_int) -> Result<Vec<epoll_event>> {
    let r = lookup(epfd).ok_or(Errno::EINVAL)?;
    let wake = if timeout != 0 { Some(wake_fd()?) } else { None };
    let start = Instant::now();
    loop {
        // The list now, and this thread registered for wake-ups before it sleeps.
        let mut fds: Vec<pollfd> = {
            let mut l = r.list.lock();
            if l.closed {
                return Ok(Vec::new());
            }
            if let Some(w) = wake {
                l.waiters.push(w);
            }
            l.entries
                .iter()
                .filter(|e| !e.spent)
                .map(|e| pollfd { fd: e.fd, events: ((e.events & POLLED) | ALWAYS) as i16, revents: 0 })
                .collect()
        };
        if let Some(w) = wake {
            fds.push(pollfd { fd: w, events: libc::POLLIN, revents: 0 });
        }
        let left = if timeout < 0 {
            -1
        } else {
            (i64::from(timeout) - start.elapsed().as_millis() as i64).clamp(0, i64::from(timeout)) as c_int
        };
        let polled = poll::rpoll(&mut fds, left);
        let mut l = r.list.lock();
        if let Some(w) = wake {
            l.waiters.retain(|&x| x != w);
            if fds.last().is_some_and(|p| p.revents != 0) {
                drain(w);
            }
            fds.pop();
        }
        polled?;
        if l.closed {
            return Ok(Vec::new());
        }
        let out = collect(&mut l, &fds, max);
        if !out.is_empty() || left == 0 {
            return Ok(out);
        }
    }
}

/// The ready entries among `fds` (polled from `l`'s entries; the list may have changed since), at most `max`,
/// starting round-robin; closed descriptors leave the list, one-shot entries are spent.
fn collect(l: &mut List, fds: &[pollfd], max: usize) -> Vec<epoll_event> {
    for p in fds.iter().filter(|p| p.revents & libc::POLLNVAL != 0) {
        l.remove(p.fd);
    }
    let ready: HashMap<c_int, u32> = fds
        .iter()
        .filter(|p| p.revents != 0 && p.revents & libc::POLLNVAL == 0)
        .map(|p| (p.fd, p.revents as u16 as u32))
        .collect();
    let n = l.entries.len();
    let mut out = Vec::new();
    let start = if n == 0 { 0 } else { l.next % n };
    for k in 0..n {
        if out.len() == max {
            break;
        }
        let i = (start + k) % n;
        let e = &mut l.entries[i];
        let Some(&rev) = ready.get(&e.fd) else { continue };
        let bits = rev & ((e.events & POLLED) | ALWAYS);
        if e.spent || bits == 0 {
            continue;
        }
        if e.events & libc::EPOLLONESHOT as u32 != 0 {
            e.spent = true;
        }
        out.push(epoll_event { events: bits, u64: e.data });
        l.next = i + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(events: c_int, data: u64) -> Option<epoll_event> {
        Some(epoll_event { events: events as u32, u64: data })
    }

    fn pipe() -> (OwnedFd, OwnedFd) {
        let mut p = [0; 2];
        // SAFETY: a 2-int array for pipe(2); both ends are ours.
        unsafe {
            assert_eq!(libc::pipe(p.as_mut_ptr()), 0);
            (OwnedFd::from_raw_fd(p[0]), OwnedFd::from_raw_fd(p[1]))
        }
    }

    fn put(fd: &OwnedFd) {
        // SAFETY: one byte from a static buffer.
        assert_eq!(unsafe { libc::write(fd.as_raw_fd(), b"x".as_ptr().cast(), 1) }, 1);
    }

    #[test]
    fn interest_list_rules() {
        let e = create(libc::EPOLL_CLOEXEC).unwrap();
        let (r, w) = pipe();
        let (rf, wf) = (r.as_raw_fd(), w.as_raw_fd());
        assert_eq!(ctl(e, libc::EPOLL_CTL_ADD, -1, ev(libc::EPOLLIN, 1)), Err(Errno::EBADF));
        assert_eq!(ctl(e, libc::EPOLL_CTL_ADD, e, ev(libc::EPOLLIN, 1)), Err(Errno::EINVAL));
        assert_eq!(ctl(rf, libc::EPOLL_CTL_ADD, wf, ev(libc::EPOLLIN, 1)), Err(Errno::EINVAL)); // not an instance
        assert_eq!(ctl(e, libc::EPOLL_CTL_ADD, rf, None), Err(Errno::EFAULT));
        assert_eq!(ctl(e, libc::EPOLL_CTL_MOD, rf, ev(libc::EPOLLIN, 1)), Err(Errno::ENOENT));
        assert_eq!(ctl(e, libc::EPOLL_CTL_DEL, rf, None), Err(Errno::ENOENT));
        assert_eq!(ctl(e, 99, rf, ev(libc::EPOLLIN, 1)), Err(Errno::EINVAL));
        ctl(e, libc::EPOLL_CTL_ADD, rf, ev(libc::EPOLLIN, 7)).unwrap();
        assert_eq!(ctl(e, libc::EPOLL_CTL_ADD, rf, ev(libc::EPOLLIN, 7)), Err(Errno(libc::EEXIST)));
        ctl(e, libc::EPOLL_CTL_ADD, wf, ev(libc::EPOLLOUT, 8)).unwrap();
        // Only the write end is ready.
        let got = wait(e, 8, 0).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(({ got[0].events }, { got[0].u64 }), (libc::EPOLLOUT as u32, 8));
        put(&w);
        let got = wait(e, 8, 100).unwrap();
        assert_eq!(got.len(), 2);
        // maxevents 1: round-robin over the two ready entries.
        let a = { wait(e, 1, 0).unwrap()[0].u64 };
        let b = { wait(e, 1, 0).unwrap()[0].u64 };
        assert_ne!(a, b);
        ctl(e, libc::EPOLL_CTL_DEL, wf, None).unwrap();
        ctl(e, libc::EPOLL_CTL_MOD, rf, ev(libc::EPOLLIN | libc::EPOLLONESHOT, 9)).unwrap();
        assert_eq!({ wait(e, 8, 0).unwrap()[0].u64 }, 9);
        assert!(wait(e, 8, 0).unwrap().is_empty(), "one-shot: reported once");
        ctl(e, libc::EPOLL_CTL_MOD, rf, ev(libc::EPOLLIN, 10)).unwrap();
        assert_eq!({ wait(e, 8, 0).unwrap()[0].u64 }, 10);
        // A closed descriptor drops out (no event, no busy wake-ups).
        drop(r);
        let t0 = Instant::now();
        assert!(wait(e, 8, 50).unwrap().is_empty());
        assert!(t0.elapsed().as_millis() >= 40);
        assert_eq!(ctl(e, libc::EPOLL_CTL_DEL, rf, None), Err(Errno::ENOENT));
        close(e).unwrap();
        assert_eq!(close(e), Err(Errno::EBADF));
        assert_eq!(wait(e, 8, 0).err(), Some(Errno::EINVAL));
    }

    #[test]
    fn ctl_wakes_a_waiter() {
        let e = create(0).unwrap();
        let (r, w) = pipe();
        put(&w);
        let t = std::thread::spawn(move || wait(e, 4, 5000).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(100));
        // Added while the other thread waits: it must see the entry without waiting out its timeout.
        let t0 = Instant::now();
        ctl(e, libc::EPOLL_CTL_ADD, r.as_raw_fd(), ev(libc::EPOLLIN, 5)).unwrap();
        let got = t.join().unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!({ got[0].u64 }, 5);
        assert!(t0.elapsed().as_millis() < 2000);
        // Closing the instance wakes a waiter, which returns nothing.
        ctl(e, libc::EPOLL_CTL_DEL, r.as_raw_fd(), None).unwrap();
        let t = std::thread::spawn(move || wait(e, 4, 5000).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(100));
        close(e).unwrap();
        assert!(t.join().unwrap().is_empty());
    }
}
