//! The id operations that event handling needs as well as the id calls (`id.rs`): number-to-enum checks, destroying
//! an id and moving it to another channel. Kept apart from `id.rs`, which waits for events (`rdma_create_ep`) and so
//! sits above `event.rs`.
use super::handout::ack;
use crate::kernel;
use crate::state::{Channel, CmId};
use rdma_common::abi::rdma_cma::rdma_port_space;
use rdma_common::abi::verbs::ibv_qp_type;
use rdma_common::errno::{Errno, Result};
use std::ffi::c_uint;
use std::os::fd::AsRawFd;
use std::ptr::null_mut;
use std::sync::Arc;

/// The port space with number `n`.
pub(crate) fn port_space(n: c_uint) -> Option<rdma_port_space> {
    use rdma_port_space::*;
    [RDMA_PS_IPOIB, RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB].into_iter().find(|p| *p as c_uint == n)
}

/// The QP type with number `n`.
pub(crate) fn qp_type_of(n: u32) -> Option<ibv_qp_type> {
    use ibv_qp_type::*;
    [IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_RAW_PACKET, IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV, IBV_QPT_DRIVER]
        .into_iter()
        .find(|t| *t as u32 == n)
}

/// `rdma_destroy_id` on a live id.
pub(crate) fn destroy(id: &Arc<CmId>) -> Result<()> {
    let n = kernel::id::destroy_id(&id.channel().fd(), id.handle())?;
    let ev = id.event();
    if !ev.is_null() {
        id.set_event(null_mut());
        let _ = ack(ev);
    }
    id.wait_events(n);
    id.free();
    Ok(())
}

/// `rdma_migrate_id` on a live id (`chan` None: a new private channel).
pub(crate) fn migrate(id: &Arc<CmId>, chan: Option<Arc<Channel>>) -> Result<()> {
    if id.is_sync() && chan.is_none() {
        return Err(Errno::EINVAL);
    }
    let sync = chan.is_none();
    let new = match chan {
        Some(c) => c,
        None => Channel::open(false)?,
    };
    let old = id.channel();
    let n = match kernel::id::migrate_id(&new.fd(), id.handle(), old.fd().as_raw_fd()) {
        Ok(n) => n,
        Err(e) => {
            if sync {
                new.unregister();
            }
            return Err(e);
        }
    };
    let was_sync = id.is_sync();
    if was_sync {
        let ev = id.event();
        if !ev.is_null() {
            id.set_event(null_mut());
            let _ = ack(ev);
        }
    }
    let old = id.set_channel(new, sync);
    if was_sync {
        old.unregister();
    }
    id.wait_events(n);
    Ok(())
}
