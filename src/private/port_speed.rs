//! The provider interface's port-speed command (rdma-core 65, `IBVERBS_PRIVATE_65`): `ibv_cmd_query_port_speed`,
//! DEVICE's QUERY_PORT_SPEED ioctl method (Linux 7.2; rdma-core's `cmd_device.c`). Only mlx5 calls it.
#![allow(unsafe_code, clippy::missing_safety_doc)]

use super::buffers::*;
use super::ioctl::Cmdb;
use crate::provider::verbs::*;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use std::ffi::c_int;
use std::ptr;

/// `int ibv_cmd_query_port_speed(struct ibv_context *context, uint32_t port_num, uint64_t *speed)`.
///
/// QUERY_PORT_SPEED: the kernel writes the effective speed of port `port_num`, in units of 100 Mb/s, to `*speed`.
/// No write fallback. Errors: `EINVAL` for a context that is not ours; the kernel's (`EPROTONOSUPPORT` before
/// Linux 7.2; `EOPNOTSUPP` from drivers without the callback, rxe and siw among them; `EFAULT` for a bad `speed`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_port_speed(context: *mut ibv_context, port_num: u32, speed: *mut u64) -> c_int {
    ret("ibv_cmd_query_port_speed", || {
        // SAFETY: a context of ours (checked by fd_of).
        let u = unsafe { fd_of(context) }?;
        let mut c = Cmdb::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT_SPEED);
        c.in_u64(UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, u64::from(port_num));
        c.out_ptr(UVERBS_ATTR_QUERY_PORT_SPEED_RESP, speed.cast(), 8)?;
        // SAFETY: the caller's destination (the kernel checks it).
        unsafe { c.exec(&u, ptr::null_mut()) }
    })
}

#[cfg(test)]
mod tests {
    use super::super::buffers::testing::*;
    use super::*;

    #[test]
    fn port_and_answer() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let mut speed = 0u64;
        f.reply(Reply::ioctl().out(UVERBS_ATTR_QUERY_PORT_SPEED_RESP, &4000u64.to_ne_bytes()));
        // SAFETY: our buffers.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_query_port_speed(ctx.as_mut_ptr(), 2, &mut speed) }), 0);
        assert_eq!(speed, 4000);
        assert_eq!(obj_method(&f, 0), (UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT_SPEED));
        assert_eq!(
            ids(&f, 0),
            [(UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM as u16, 8), (UVERBS_ATTR_QUERY_PORT_SPEED_RESP as u16, 8)]
        );
        assert_eq!(u64_at(&f.ioctl(0), 24 + 8), 2);
    }
}
