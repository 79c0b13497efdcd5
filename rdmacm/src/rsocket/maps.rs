//! The `riomap` registrations of one rsocket (the state `iomap.rs` works on): kept apart so that the rsocket's own
//! state (`stream.rs`) can hold and free them without depending on the calls that make them.
#![allow(unsafe_code)] // reads and deregisters the library's own MRs

use rdma_common::abi::verbs::*;
use std::collections::VecDeque;

/// One registration made by `riomap`.
pub(super) struct IomapMr {
    pub(super) offset: u64,
    pub(super) mr: *mut ibv_mr,
}

impl IomapMr {
    pub(super) fn addr_len(&self) -> (usize, usize) {
        // SAFETY: the MR is live while listed.
        unsafe { ((*self.mr).addr as usize, (*self.mr).length) }
    }
}

/// The mappings of one rsocket.
#[derive(Default)]
pub(super) struct Iomaps {
    /// Slots of the peer's table (`PROT_WRITE` mappings), by index.
    pub(super) slots: Vec<Option<IomapMr>>,
    /// Slots still to announce, in order.
    pub(super) queue: VecDeque<usize>,
    /// Mappings without a slot (`PROT_NONE`).
    pub(super) local: Vec<IomapMr>,
}

impl Iomaps {
    /// Whether mappings still wait to be announced to the peer.
    pub(super) fn pending(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Deregisters every mapping (`rs_free_iomappings`).
    pub(super) fn free_all(&mut self) {
        for mr in self.slots.drain(..).flatten().chain(self.local.drain(..)) {
            // SAFETY: our registration, no longer listed.
            unsafe { ibv_dereg_mr(mr.mr) };
        }
        self.queue.clear();
    }
}
