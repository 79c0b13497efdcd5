//! `ibv_query_port_speed` (rdma-core 65, `IBVERBS_1.16`): a port's effective speed. rdma-core 65 has no man page
//! for it; its `verbs.h` comment ("port effective speed in 100 Mb/s granularity") and `verbs.c` are what it
//! follows. Only mlx5 implements it (DEVICE's QUERY_PORT_SPEED method, Linux 7.2); rxe and siw answer `EOPNOTSUPP`,
//! rdma-core's default, whatever the kernel.
#![allow(unsafe_code)]

use crate::object::Context;
use rdma_common::abi::verbs::*;
use rdma_common::errno::Result;
use rdma_common::ffi::{self, CResult};
use rdma_common::Errno;
use std::ffi::c_int;

/// `ibv_query_port_speed`: writes the effective speed of port `port_num` (1-based) to `*port_speed`, in units of
/// 100 Mb/s (a 100 Gb/s link is 1000).
///
/// Returns 0, or a positive errno: `EOPNOTSUPP` where the provider cannot tell (rxe, siw, as rdma-core 65 there);
/// `EINVAL` for a NULL context (`EBADF`: not open); `EFAULT` for a NULL `port_speed` when the provider answers;
/// the provider's or kernel's (`EINVAL` for a port the device lacks).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_port_speed(context: *mut ibv_context, port_num: u32, port_speed: *mut u64) -> c_int {
    ffi::boundary("ibv_query_port_speed", || -> Result<()> {
        // SAFETY: entry-point contract.
        let ctx = unsafe { Context::from_ibv(context) }?;
        // SAFETY: a live context.
        let speed = unsafe { ctx.provider.query_port_speed(ctx.ibv(), port_num) }?;
        let out = ffi::nonnull(port_speed).map_err(|_| Errno::EFAULT)?;
        // SAFETY: the caller's destination.
        unsafe { out.as_ptr().write(speed) };
        Ok(())
    })
    .ret_errno()
}

rdma_common::check_signatures!(rdma_common::abi::verbs; ibv_query_port_speed);
