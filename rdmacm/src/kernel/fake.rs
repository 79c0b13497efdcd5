//! The recording fake of the rdma_cm fd used by the unit tests: it keeps every command buffer written and answers
//! with canned replies the way the kernel does: a reply's bytes are copied to the command's `response` address, at
//! most `out` bytes (the fake asserts the canned reply fits), and the write reports the whole buffer accepted.
#![allow(unsafe_code)]

use super::UcmFd;
use rdma_common::errno::{Errno, Result};
use rdma_common::uapi::rdma_user_cm::*;
use std::cell::RefCell;
use std::collections::VecDeque;

/// One canned answer.
pub(crate) enum Reply {
    /// Success: bytes for the response address, and how many bytes of the command to report accepted (None: all).
    Ok { resp: Vec<u8>, accepted: Option<usize> },
    /// Failure with this errno.
    Fail(Errno),
}

impl Reply {
    pub(crate) fn ok(resp: &[u8]) -> Reply {
        Reply::Ok { resp: resp.to_vec(), accepted: None }
    }
    pub(crate) fn none() -> Reply {
        Reply::ok(&[])
    }
    pub(crate) fn short(accepted: usize) -> Reply {
        Reply::Ok { resp: Vec::new(), accepted: Some(accepted) }
    }
    pub(crate) fn fail(e: Errno) -> Reply {
        Reply::Fail(e)
    }
}

#[derive(Default)]
pub(crate) struct Fake {
    writes: RefCell<Vec<Vec<u8>>>,
    replies: RefCell<VecDeque<Reply>>,
}

/// Where the `response` address sits in a command's payload (after the 8-byte header), for the commands that
/// have one.
fn response_offset(cmd: u32) -> Option<usize> {
    match cmd {
        RDMA_USER_CM_CMD_CREATE_ID => Some(8),
        RDMA_USER_CM_CMD_DESTROY_ID
        | RDMA_USER_CM_CMD_QUERY_ROUTE
        | RDMA_USER_CM_CMD_INIT_QP_ATTR
        | RDMA_USER_CM_CMD_GET_EVENT
        | RDMA_USER_CM_CMD_JOIN_IP_MCAST
        | RDMA_USER_CM_CMD_LEAVE_MCAST
        | RDMA_USER_CM_CMD_MIGRATE_ID
        | RDMA_USER_CM_CMD_QUERY
        | RDMA_USER_CM_CMD_JOIN_MCAST => Some(0),
        _ => None,
    }
}

impl Fake {
    pub(crate) fn new() -> Fake {
        Fake::default()
    }
    pub(crate) fn reply(&self, r: Reply) {
        self.replies.borrow_mut().push_back(r);
    }
    pub(crate) fn write(&self, i: usize) -> Vec<u8> {
        self.writes.borrow()[i].clone()
    }
    pub(crate) fn count(&self) -> usize {
        self.writes.borrow().len()
    }
}

// SAFETY: writes only to the response address the command names, within its stated `out` length.
unsafe impl UcmFd for Fake {
    unsafe fn write_cmd(&self, buf: &[u8]) -> Result<usize> {
        self.writes.borrow_mut().push(buf.to_vec());
        let (resp, accepted) = match self.replies.borrow_mut().pop_front().expect("fake rdma_cm: no reply queued") {
            Reply::Ok { resp, accepted } => (resp, accepted),
            Reply::Fail(e) => return Err(e),
        };
        let cmd = u32::from_ne_bytes(buf[0..4].try_into().unwrap());
        let in_len = u16::from_ne_bytes(buf[4..6].try_into().unwrap()) as usize;
        let out_len = u16::from_ne_bytes(buf[6..8].try_into().unwrap()) as usize;
        assert_eq!(in_len + 8, buf.len(), "fake rdma_cm: `in` must be the payload size");
        assert!(resp.len() <= out_len, "fake rdma_cm: canned response longer than `out`");
        if !resp.is_empty() {
            let off = 8 + response_offset(cmd).expect("fake rdma_cm: response for a command without one");
            let addr = u64::from_ne_bytes(buf[off..off + 8].try_into().unwrap()) as usize;
            // SAFETY: the command states `addr` is writable for `out_len` >= resp.len() bytes (UcmFd contract of the
            // caller, who built it from a live buffer).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    resp.as_ptr(),
                    std::ptr::with_exposed_provenance_mut::<u8>(addr),
                    resp.len(),
                )
            };
        }
        Ok(accepted.unwrap_or(buf.len()))
    }
}
