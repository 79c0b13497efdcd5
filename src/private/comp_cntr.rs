//! The provider interface's completion-counter commands (rdma-core 65, `IBVERBS_PRIVATE_65`; ioctl only, Linux
//! 7.2's COMP_CNTR object): `ibv_cmd_query_comp_cntr_caps`, `ibv_cmd_create_comp_cntr`,
//! `ibv_cmd_destroy_comp_cntr`, `ibv_cmd_set_comp_cntr`, `ibv_cmd_set_err_comp_cntr`, `ibv_cmd_inc_comp_cntr`,
//! `ibv_cmd_inc_err_comp_cntr`, `ibv_cmd_read_comp_cntr`, `ibv_cmd_read_err_comp_cntr`,
//! `ibv_cmd_qp_attach_comp_cntr` (rdma-core's `cmd_comp_cntr.c` and `cmd_device.c`). Only EFA calls them.
//!
//! The QP-attach operation bits are translated one by one between `IBV_QP_ATTACH_COMP_CNTR_OP_*` and the kernel's
//! `IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_*` (same values today, as rdma-core does); other bits are dropped.
#![allow(unsafe_code, clippy::missing_safety_doc)]

use super::buffers::*;
use super::ioctl::Cmdb;
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::abi::enums::*;
use rdma_common::errno::Errno;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::ib_user_ioctl_verbs::*;
use std::ffi::c_int;
use std::mem::size_of;
use std::ptr::{self, addr_of_mut};

/// `(IBV_QP_ATTACH_COMP_CNTR_OP_*, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_*)`.
const OPS: [(u32, u32); 6] = [
    (IBV_QP_ATTACH_COMP_CNTR_OP_SEND, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND),
    (IBV_QP_ATTACH_COMP_CNTR_OP_RECV, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV),
    (IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ),
    (IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ),
    (IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE),
    (IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE),
];

fn ops_to_kernel(m: u32) -> u32 {
    OPS.iter().filter(|(v, _)| m & v != 0).fold(0, |k, (_, u)| k | u)
}

fn ops_from_kernel(m: u32) -> u32 {
    OPS.iter().filter(|(_, u)| m & u != 0).fold(0, |k, (v, _)| k | v)
}

/// `int ibv_cmd_query_comp_cntr_caps(struct ibv_context *context, struct ibv_comp_cntr_caps *caps,
/// size_t caps_size)`.
///
/// QUERY_COMP_CNTR_CAPS (a DEVICE method): the kernel writes `max_counters` and `max_value` into `caps`; the
/// supported attach operations are translated. Errors: `EINVAL` for a `caps_size` below 16 (rdma-core 65's struct)
/// or NULL `caps`; the kernel's (`EPROTONOSUPPORT` before Linux 7.2; `EOPNOTSUPP` from drivers without counters).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_comp_cntr_caps(
    context: *mut ibv_context,
    caps: *mut ibv_comp_cntr_caps,
    caps_size: usize,
) -> c_int {
    ret("ibv_cmd_query_comp_cntr_caps", || {
        if caps_size < size_of::<ibv_comp_cntr_caps>() {
            return Err(Errno::EINVAL);
        }
        let caps = obj(caps)?;
        let mut ops = 0u32;
        // SAFETY: the provider's struct of at least 16 bytes; a context of ours (checked by fd_of).
        unsafe {
            let u = fd_of(context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_COMP_CNTR_CAPS);
            c.out_ptr(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS, addr_of_mut!((*caps).max_counters).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE, addr_of_mut!((*caps).max_value).cast(), 8)?;
            c.out_ptr(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS, addr_of_mut!(ops).cast(), 4)?;
            c.exec(&u, ptr::null_mut())?;
            (*caps).supported_qp_attach_ops = ops_from_kernel(ops);
        }
        Ok(())
    })
}

/// `int ibv_cmd_create_comp_cntr(struct ibv_context *context, struct ibv_comp_cntr *comp_cntr,
/// struct ibv_command_buffer *link)`: COMP_CNTR_CREATE with the provider's attributes `link`; fills `context` (first,
/// as rdma-core) and `handle`. Errors: `EINVAL` for a NULL counter; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_comp_cntr(
    context: *mut ibv_context,
    comp_cntr: *mut ibv_comp_cntr,
    link: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_create_comp_cntr", || {
        let cc = obj(comp_cntr)?;
        // SAFETY: the provider's counter and attribute chain; a context of ours (checked by fd_of).
        unsafe {
            let u = fd_of(context)?;
            (*cc).context = context;
            let mut c = Cmdb::new(UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_CREATE);
            let h = c.out_obj(UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE);
            c.exec(&u, link)?;
            (*cc).handle = c.data(h) as u32;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr)`: COMP_CNTR_DESTROY. Errors: the kernel's; a
/// forgiven `EIO` as for [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_comp_cntr(comp_cntr: *mut ibv_comp_cntr) -> c_int {
    ret("ibv_cmd_destroy_comp_cntr", || {
        let cc = obj(comp_cntr)?;
        // SAFETY: the provider's live counter.
        unsafe {
            let u = fd_of((*cc).context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_DESTROY);
            c.in_obj(UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE, (*cc).handle);
            destroyed(c.exec(&u, ptr::null_mut()))?;
        }
        Ok(())
    })
}

/// COMP_CNTR_MODIFY of `entry` (`IB_UVERBS_COMP_CNTR_ENTRY_COMP`/`_ERR`) with `op` (`..._MODIFY_OP_SET`/`_INC`).
fn modify(name: &'static str, cc: *mut ibv_comp_cntr, entry: u32, op: u32, value: u64) -> c_int {
    ret(name, || {
        let cc = obj(cc)?;
        // SAFETY: the provider's live counter.
        unsafe {
            let u = fd_of((*cc).context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_MODIFY);
            c.in_obj(UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE, (*cc).handle);
            c.in_u64(UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY, u64::from(entry));
            c.in_u64(UVERBS_ATTR_MODIFY_COMP_CNTR_OP, u64::from(op));
            c.in_u64(UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE, value);
            c.exec(&u, ptr::null_mut())
        }
    })
}

/// `int ibv_cmd_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value)`: COMP_CNTR_MODIFY setting the
/// completion count. Errors: `EINVAL` for NULL; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_set_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int {
    let (e, op) = (IB_UVERBS_COMP_CNTR_ENTRY_COMP, IB_UVERBS_COMP_CNTR_MODIFY_OP_SET);
    modify("ibv_cmd_set_comp_cntr", comp_cntr, e, op, value)
}

/// `int ibv_cmd_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value)`: sets the error count.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_set_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int {
    let (e, op) = (IB_UVERBS_COMP_CNTR_ENTRY_ERR, IB_UVERBS_COMP_CNTR_MODIFY_OP_SET);
    modify("ibv_cmd_set_err_comp_cntr", comp_cntr, e, op, value)
}

/// `int ibv_cmd_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount)`: adds to the completion count.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_inc_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int {
    let (e, op) = (IB_UVERBS_COMP_CNTR_ENTRY_COMP, IB_UVERBS_COMP_CNTR_MODIFY_OP_INC);
    modify("ibv_cmd_inc_comp_cntr", comp_cntr, e, op, amount)
}

/// `int ibv_cmd_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount)`: adds to the error count.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_inc_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int {
    let (e, op) = (IB_UVERBS_COMP_CNTR_ENTRY_ERR, IB_UVERBS_COMP_CNTR_MODIFY_OP_INC);
    modify("ibv_cmd_inc_err_comp_cntr", comp_cntr, e, op, amount)
}

/// COMP_CNTR_READ of `entry` into `value` (the kernel writes it).
fn read(name: &'static str, cc: *mut ibv_comp_cntr, entry: u32, value: *mut u64) -> c_int {
    ret(name, || {
        let cc = obj(cc)?;
        // SAFETY: the provider's live counter and destination.
        unsafe {
            let u = fd_of((*cc).context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_READ);
            c.in_obj(UVERBS_ATTR_READ_COMP_CNTR_HANDLE, (*cc).handle);
            c.in_u64(UVERBS_ATTR_READ_COMP_CNTR_ENTRY, u64::from(entry));
            c.out_ptr(UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE, value.cast(), 8)?;
            c.exec(&u, ptr::null_mut())
        }
    })
}

/// `int ibv_cmd_read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value)`: COMP_CNTR_READ of the
/// completion count. Errors: `EINVAL` for NULL; the kernel's (`EFAULT` for a bad `value`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_read_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int {
    read("ibv_cmd_read_comp_cntr", comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP, value)
}

/// `int ibv_cmd_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value)`: reads the error count.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_read_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: *mut u64) -> c_int {
    read("ibv_cmd_read_err_comp_cntr", comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR, value)
}

/// `int ibv_cmd_qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr,
/// struct ibv_qp_attach_comp_cntr_attr *attr)`: QP_ATTACH_COMP_CNTR (a QP method) with the operation bits
/// translated. Errors: `EINVAL` for NULL pointers; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_qp_attach_comp_cntr(
    qp: *mut ibv_qp,
    comp_cntr: *mut ibv_comp_cntr,
    attr: *mut ibv_qp_attach_comp_cntr_attr,
) -> c_int {
    ret("ibv_cmd_qp_attach_comp_cntr", || {
        let (qp, cc, a) = (obj(qp)?, obj(comp_cntr)?, obj(attr)?);
        // SAFETY: the provider's live objects.
        unsafe {
            let u = fd_of((*qp).context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_ATTACH_COMP_CNTR);
            c.in_obj(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE, (*qp).handle);
            c.in_obj(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE, (*cc).handle);
            c.in_u32(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK, ops_to_kernel((*a).op_mask));
            c.exec(&u, ptr::null_mut())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::buffers::testing::*;
    use super::*;

    #[test]
    fn operation_bits_translate_one_by_one() {
        assert_eq!(ops_to_kernel(0x3f), 0x3f);
        assert_eq!(ops_to_kernel(0x40 | IBV_QP_ATTACH_COMP_CNTR_OP_RECV), IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV);
        assert_eq!(ops_from_kernel(1 << 31 | IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND), IBV_QP_ATTACH_COMP_CNTR_OP_SEND);
    }

    #[test]
    fn caps_size_and_commands() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let c = ctx.as_mut_ptr();
        let mut caps = ibv_comp_cntr_caps::default();
        // SAFETY: our buffers.
        let r = with_fake(&f, || unsafe { ibv_cmd_query_comp_cntr_caps(c, &mut caps, 8) });
        assert_eq!(r, libc::EINVAL, "a size below 16");
        f.reply(
            Reply::ioctl()
                .out(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS, &7u32.to_ne_bytes())
                .out(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE, &u64::MAX.to_ne_bytes())
                .out(UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS, &0x41u32.to_ne_bytes()),
        );
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_query_comp_cntr_caps(c, &mut caps, 16) }), 0);
        assert_eq!(caps, ibv_comp_cntr_caps { max_value: u64::MAX, max_counters: 7, supported_qp_attach_ops: 1 });
        assert_eq!(obj_method(&f, 0), (UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_COMP_CNTR_CAPS));

        let mut cc = ibv_comp_cntr { context: ptr::null_mut(), handle: 0 };
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE, 9));
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_create_comp_cntr(c, &mut cc, ptr::null_mut()) }), 0);
        assert_eq!((cc.context, cc.handle), (c, 9));

        f.reply(Reply::ioctl());
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_inc_err_comp_cntr(&mut cc, 5) }), 0);
        assert_eq!(obj_method(&f, 2), (UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_MODIFY));
        let b = f.ioctl(2);
        let data = |i: usize| u64_at(&b, 24 + 16 * i + 8);
        assert_eq!((data(0), data(1), data(2), data(3)), (9, 1, 1, 5), "handle, ERR entry, INC op, amount");
        assert_eq!(ids(&f, 2)[1], (UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY as u16, 8));

        let mut v = 0u64;
        f.reply(Reply::ioctl().out(UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE, &77u64.to_ne_bytes()));
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_read_comp_cntr(&mut cc, &mut v) }), 0);
        assert_eq!(v, 77);
        assert_eq!(u64_at(&f.ioctl(3), 24 + 16 + 8), 0, "COMP entry");

        let mut qp: MaybeUninit<ibv_qp> = z();
        // SAFETY: our zeroed QP.
        unsafe {
            (*qp.as_mut_ptr()).context = c;
            (*qp.as_mut_ptr()).handle = 4;
        }
        let mut a = ibv_qp_attach_comp_cntr_attr { comp_mask: 0, op_mask: IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE };
        f.reply(Reply::ioctl());
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_qp_attach_comp_cntr(qp.as_mut_ptr(), &mut cc, &mut a) }), 0);
        assert_eq!(obj_method(&f, 4), (UVERBS_OBJECT_QP, UVERBS_METHOD_QP_ATTACH_COMP_CNTR));
        let b = f.ioctl(4);
        assert_eq!((u32_at(&b, 24 + 8), u32_at(&b, 40 + 8), u32_at(&b, 56 + 8)), (4, 9, 16));

        f.reply(Reply::ioctl());
        // SAFETY: as above.
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_destroy_comp_cntr(&mut cc) }), 0);
        assert_eq!(ids(&f, 5), [(UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE as u16, 0)]);
    }
}
