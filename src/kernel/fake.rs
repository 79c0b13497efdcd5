//! The recording fake of the uverbs fd used by the unit tests: it keeps every command buffer written or ioctl
//! issued, and answers with canned replies the way the kernel does: a write reply is copied to the command's
//! response address (at most `out_words` worth); an ioctl reply is copied into the buffers of the `PTR_OUT`
//! attributes it names (flagging them `UVERBS_ATTR_F_VALID_OUTPUT`) and stores new object ids into the `data` of
//! the attributes it names.
#![allow(unsafe_code)]

use super::CmdFd;
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::rdma_user_ioctl_cmds::*;
use std::cell::RefCell;
use std::collections::VecDeque;

/// One canned answer.
pub(crate) enum Reply {
    /// A write: bytes for the response address, and how many bytes of the command to report accepted (None: all).
    Write { resp: Vec<u8>, accepted: Option<usize> },
    /// An ioctl: (attr_id, bytes) for PTR_OUT attributes, (attr_id, id) for new objects.
    Ioctl { outs: Vec<(u16, Vec<u8>)>, objs: Vec<(u16, u64)> },
    /// Either kind, failing with this errno.
    Fail(Errno),
}

impl Reply {
    pub(crate) fn write(resp: &[u8]) -> Reply {
        Reply::Write { resp: resp.to_vec(), accepted: None }
    }
    pub(crate) fn short_write(accepted: usize) -> Reply {
        Reply::Write { resp: Vec::new(), accepted: Some(accepted) }
    }
    pub(crate) fn ioctl() -> Reply {
        Reply::Ioctl { outs: Vec::new(), objs: Vec::new() }
    }
    pub(crate) fn fail(e: Errno) -> Reply {
        Reply::Fail(e)
    }
    pub(crate) fn out(mut self, attr_id: u32, bytes: &[u8]) -> Reply {
        if let Reply::Ioctl { outs, .. } = &mut self {
            outs.push((attr_id as u16, bytes.to_vec()));
        }
        self
    }
    pub(crate) fn new_obj(mut self, attr_id: u32, id: u64) -> Reply {
        if let Reply::Ioctl { objs, .. } = &mut self {
            objs.push((attr_id as u16, id));
        }
        self
    }
}

#[derive(Default)]
pub(crate) struct Fake {
    driver_id: u32,
    writes: RefCell<Vec<Vec<u8>>>,
    ioctls: RefCell<Vec<Vec<u8>>>,
    replies: RefCell<VecDeque<Reply>>,
}

impl Fake {
    pub(crate) fn new() -> Fake {
        Fake::default()
    }
    pub(crate) fn with_driver_id(driver_id: u32) -> Fake {
        Fake { driver_id, ..Fake::default() }
    }
    pub(crate) fn reply(&self, r: Reply) {
        self.replies.borrow_mut().push_back(r);
    }
    pub(crate) fn writes(&self) -> Vec<Vec<u8>> {
        self.writes.borrow().clone()
    }
    pub(crate) fn write(&self, i: usize) -> Vec<u8> {
        self.writes.borrow()[i].clone()
    }
    pub(crate) fn ioctl(&self, i: usize) -> Vec<u8> {
        self.ioctls.borrow()[i].clone()
    }
    /// The last ioctl recorded.
    pub(crate) fn last_ioctl(&self) -> Vec<u8> {
        self.ioctls.borrow().last().expect("fake uverbs: no ioctl recorded").clone()
    }
    fn next(&self) -> Reply {
        self.replies.borrow_mut().pop_front().expect("fake uverbs: no reply queued")
    }
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_ne_bytes(b[o..o + 2].try_into().unwrap())
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_ne_bytes(b[o..o + 8].try_into().unwrap())
}

// SAFETY: writes only to the response address and attribute buffers the command names, within their stated
// lengths; reports no file descriptor it does not hand over (tests queue fds they created and gave up).
unsafe impl CmdFd for Fake {
    unsafe fn write_cmd(&self, buf: &[u8]) -> Result<usize> {
        self.writes.borrow_mut().push(buf.to_vec());
        let (resp, accepted) = match self.next() {
            Reply::Write { resp, accepted } => (resp, accepted),
            Reply::Fail(e) => return Err(e),
            Reply::Ioctl { .. } => panic!("fake uverbs: ioctl reply queued for a write"),
        };
        let command = u32::from_ne_bytes(buf[0..4].try_into().unwrap());
        let (response, out_len) = if command & IB_USER_VERBS_CMD_FLAG_EXTENDED != 0 {
            let out_words = u16_at(buf, 6) as usize + u16_at(buf, 18) as usize;
            (u64_at(buf, 8), out_words * 8)
        } else {
            let out_words = u16_at(buf, 6) as usize;
            (if out_words > 0 { u64_at(buf, 8) } else { 0 }, out_words * 4)
        };
        assert!(resp.len() <= out_len, "fake uverbs: canned response longer than out_words allow");
        if response != 0 && !resp.is_empty() {
            // SAFETY: the command states `response` is writable for `out_len` >= resp.len() bytes (CmdFd contract
            // of the caller, who built it from a live buffer).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    resp.as_ptr(),
                    std::ptr::with_exposed_provenance_mut::<u8>(response as usize),
                    resp.len(),
                )
            };
        }
        Ok(accepted.unwrap_or(buf.len()))
    }

    unsafe fn ioctl_verbs(&self, buf: &mut [u64]) -> Result<()> {
        // SAFETY: u64 memory viewed as bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), buf.len() * 8) };
        self.ioctls.borrow_mut().push(bytes.to_vec());
        let (outs, objs) = match self.next() {
            Reply::Ioctl { outs, objs } => (outs, objs),
            Reply::Fail(e) => return Err(e),
            Reply::Write { .. } => panic!("fake uverbs: write reply queued for an ioctl"),
        };
        let hdr = std::mem::size_of::<ib_uverbs_ioctl_hdr>();
        let n = u16_at(bytes, 6) as usize;
        assert_eq!(u16_at(bytes, 0) as usize, hdr + n * 16, "fake uverbs: ioctl length");
        for i in 0..n {
            let a = hdr + i * 16;
            let id = u16_at(bytes, a);
            let len = u16_at(bytes, a + 2) as usize;
            if let Some((_, data)) = outs.iter().find(|(o, _)| *o == id) {
                assert!(data.len() <= len, "fake uverbs: canned output longer than the attribute");
                let p = u64_at(bytes, a + 8) as usize;
                // SAFETY: the attribute states `p` is writable for `len` bytes (caller's contract).
                unsafe {
                    std::ptr::copy_nonoverlapping(data.as_ptr(), std::ptr::with_exposed_provenance_mut(p), data.len())
                };
                let flags = u16_at(bytes, a + 4) | UVERBS_ATTR_F_VALID_OUTPUT as u16;
                bytes[a + 4..a + 6].copy_from_slice(&flags.to_ne_bytes());
            }
            if let Some((_, obj)) = objs.iter().find(|(o, _)| *o == id) {
                bytes[a + 8..a + 16].copy_from_slice(&obj.to_ne_bytes());
            }
        }
        Ok(())
    }

    fn driver_id(&self) -> u32 {
        self.driver_id
    }
}
