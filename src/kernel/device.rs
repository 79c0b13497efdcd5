//! The device and context commands: GET_CONTEXT (+ ASYNC_EVENT_ALLOC), QUERY_CONTEXT, QUERY_DEVICE(_EX),
//! QUERY_PORT, QUERY_GID_ENTRY, QUERY_GID_TABLE.
#![allow(unsafe_code)]

use super::{ioctl_unsupported, write_ex_io, write_io, CmdFd, Ioctl};
use rdma_common::errno::{Errno, Result};
use rdma_common::sys;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::ib_user_ioctl_verbs::*;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::mem::size_of;
use std::os::fd::OwnedFd;

/// What GET_CONTEXT gives besides the driver response.
#[derive(Debug)]
pub struct Context {
    /// The context's async event fd (read with [`super::async_event::read_async_event`]).
    pub async_fd: OwnedFd,
    /// Number of completion vectors (`ibv_context::num_comp_vectors`).
    pub num_comp_vectors: u32,
    /// `IB_UVERBS_CORE_SUPPORT_*` bits (0 from the write fallback): with `IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS`
    /// the kernel ignores the `IBV_ACCESS_OPTIONAL_RANGE` access bits it does not know, so `ibv_reg_mr` passes them
    /// on; without it rdma-core clears them first.
    pub core_support: u64,
}

/// GET_CONTEXT: creates the device context bound to this fd (once per fd; a second call is `EINVAL`), and its
/// async event fd. As rdma-core 44: the ioctl method (which also reports `core_support`) then
/// UVERBS_METHOD_ASYNC_EVENT_ALLOC for the async fd; on [`ioctl_unsupported`] the write command, which returns the
/// async fd itself. `udata_in`/`udata_out` are the driver's `alloc_ucontext` request and response (empty for rxe),
/// sent as `UVERBS_ATTR_UHW_IN/OUT` or appended to the write. Errors: the kernel's (`EINVAL` already created or a
/// wrong driver id in the ioctl header, `ENOMEM`, ...).
pub fn get_context<F: CmdFd + ?Sized>(fd: &F, udata_in: &[u8], udata_out: &mut [u8]) -> Result<Context> {
    let mut ncv = [0u8; 4];
    let mut core = [0u8; 8];
    let mut c = Ioctl::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT);
    c.out_bytes(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &mut ncv)?;
    c.out_bytes(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, &mut core)?;
    if !udata_in.is_empty() {
        c.in_bytes(UVERBS_ATTR_UHW_IN, udata_in)?;
    }
    if !udata_out.is_empty() {
        c.out_bytes(UVERBS_ATTR_UHW_OUT, udata_out)?;
    }
    match c.execute(fd) {
        Ok(_) => Ok(Context {
            async_fd: alloc_async_fd(fd)?,
            num_comp_vectors: u32::from_ne_bytes(ncv),
            core_support: u64::from_ne_bytes(core),
        }),
        Err(e) if ioctl_unsupported(e) => {
            let req = ib_uverbs_get_context::zeroed();
            let resp: ib_uverbs_get_context_resp =
                write_io(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &req, udata_in, udata_out)?;
            // SAFETY: the kernel installed this fd for us in the call that just succeeded (CmdFd contract).
            let async_fd = unsafe { sys::adopt_fd(resp.async_fd as i32) }?;
            Ok(Context { async_fd, num_comp_vectors: resp.num_comp_vectors, core_support: 0 })
        }
        Err(e) => Err(e),
    }
}

/// UVERBS_METHOD_ASYNC_EVENT_ALLOC (ioctl only): a new async event fd for the context, which becomes the one the
/// kernel queues the context's events to. Used by [`get_context`] after the ioctl GET_CONTEXT.
pub fn alloc_async_fd<F: CmdFd + ?Sized>(fd: &F) -> Result<OwnedFd> {
    let mut c = Ioctl::new(UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
    let h = c.new_obj(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
    let done = c.execute(fd)?;
    // SAFETY: the kernel installed this fd for us in the call that just succeeded (CmdFd contract).
    unsafe { sys::adopt_fd(done.data(h) as i32) }
}

/// What QUERY_CONTEXT reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContextInfo {
    pub num_comp_vectors: u32,
    /// `IB_UVERBS_CORE_SUPPORT_*` bits, as in [`Context::core_support`].
    pub core_support: u64,
}

/// UVERBS_METHOD_QUERY_CONTEXT (ioctl only), what rdma-core's `ibv_cmd_query_context` sends for imported contexts.
/// Errors: `EOPNOTSUPP` from drivers without `query_ucontext` (rxe and siw have none), [`ioctl_unsupported`] ones
/// on kernels without the method.
pub fn query_context<F: CmdFd + ?Sized>(fd: &F) -> Result<ContextInfo> {
    let mut ncv = [0u8; 4];
    let mut core = [0u8; 8];
    let mut c = Ioctl::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
    c.out_bytes(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, &mut ncv)?;
    c.out_bytes(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, &mut core)?;
    c.execute(fd)?;
    Ok(ContextInfo { num_comp_vectors: u32::from_ne_bytes(ncv), core_support: u64::from_ne_bytes(core) })
}

/// QUERY_DEVICE (write): the legacy device attributes. `node_guid` and `sys_image_guid` are big-endian (as
/// `ibv_device_attr` wants them).
pub fn query_device<F: CmdFd + ?Sized>(fd: &F) -> Result<ib_uverbs_query_device_resp> {
    write_io(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &ib_uverbs_query_device::zeroed(), &[], &mut [])
}

/// EX_QUERY_DEVICE (write-ex): `base` plus the extended attributes. `response_length` says how much of the
/// response the kernel filled (fields past it are zero); `udata_out` receives the driver's extension (must be empty
/// for rxe on 6.12, which rejects any udata). Errors: `EOPNOTSUPP`/`ENOSYS` where unsupported (the caller then uses
/// [`query_device`]).
pub fn query_device_ex<F: CmdFd + ?Sized>(fd: &F, udata_out: &mut [u8]) -> Result<ib_uverbs_ex_query_device_resp> {
    write_ex_io(fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &ib_uverbs_ex_query_device::zeroed(), &[], udata_out)
}

/// QUERY_PORT: `port_num` from 1. Tries the ioctl method first (it also returns `port_cap_flags2`, and on 6.12
/// `active_speed_ex`); on [`ioctl_unsupported`] falls back to the write command (then `port_cap_flags2 == 0`).
/// Errors: `EINVAL` for a bad port, the kernel's otherwise.
pub fn query_port<F: CmdFd + ?Sized>(fd: &F, port_num: u8) -> Result<ib_uverbs_query_port_resp_ex> {
    let mut resp = ib_uverbs_query_port_resp_ex::zeroed();
    let mut c = Ioctl::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
    c.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, port_num as u64);
    c.out_bytes(UVERBS_ATTR_QUERY_PORT_RESP, resp.as_bytes_mut())?;
    match c.execute(fd) {
        Ok(_) => Ok(resp),
        Err(e) if ioctl_unsupported(e) => {
            let mut req = ib_uverbs_query_port::zeroed();
            req.port_num = port_num;
            let legacy: ib_uverbs_query_port_resp = write_io(fd, IB_USER_VERBS_CMD_QUERY_PORT, &req, &[], &mut [])?;
            let mut resp = ib_uverbs_query_port_resp_ex::zeroed();
            resp.legacy_resp = legacy;
            Ok(resp)
        }
        Err(e) => Err(e),
    }
}

/// `active_speed_ex` of a QUERY_PORT ioctl answer: Linux 6.12 (6.9+) added this `__u32` where 6.1's header has
/// `reserved[2..6]`, carrying speeds that no longer fit `active_speed`'s `u8`. Zero from older kernels and from the
/// write fallback; rdma-core 44's `ibv_port_attr` has no such field. (The bindings, made from rdma-core 65's copy
/// of the uapi, name it.)
pub fn active_speed_ex(resp: &ib_uverbs_query_port_resp_ex) -> u32 {
    resp.active_speed_ex
}

/// UVERBS_METHOD_QUERY_GID_ENTRY (ioctl only): one GID table entry, `port_num` from 1. `flags` must be 0 (the
/// kernel's only flag space is reserved). Errors: `ENODATA`/`EINVAL` for an empty or invalid index (kernel
/// `rdma_get_gid_attr`), [`super::ioctl_unsupported`] ones on kernels without the method (then sysfs).
pub fn query_gid_entry<F: CmdFd + ?Sized>(
    fd: &F,
    port_num: u32,
    gid_index: u32,
    flags: u32,
) -> Result<ib_uverbs_gid_entry> {
    let mut entry = ib_uverbs_gid_entry::zeroed();
    let mut c = Ioctl::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY);
    c.in_u64(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, port_num as u64);
    c.in_u64(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, gid_index as u64);
    c.in_u32(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, flags);
    c.out_bytes(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, entry.as_bytes_mut())?;
    c.execute(fd)?;
    Ok(entry)
}

/// UVERBS_METHOD_QUERY_GID_TABLE (ioctl only): fills `entries` with the valid GIDs of all ports, returns how many.
/// Errors: `EINVAL` for an empty `entries` or a table larger than it (kernel `rdma_query_gid_table`),
/// [`super::ioctl_unsupported`] ones on kernels without the method.
pub fn query_gid_table<F: CmdFd + ?Sized>(fd: &F, flags: u32, entries: &mut [ib_uverbs_gid_entry]) -> Result<usize> {
    let mut num = [0u8; 8];
    let bytes = gid_entries_as_bytes_mut(entries);
    let mut c = Ioctl::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
    c.in_u64(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, size_of::<ib_uverbs_gid_entry>() as u64);
    c.in_u32(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, flags);
    c.out_bytes(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, bytes)?;
    c.out_bytes(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &mut num)?;
    c.execute(fd)?;
    let n = u64::from_ne_bytes(num);
    usize::try_from(n).ok().filter(|&n| n <= entries.len()).ok_or(Errno::EIO)
}

fn gid_entries_as_bytes_mut(e: &mut [ib_uverbs_gid_entry]) -> &mut [u8] {
    let len = std::mem::size_of_val(e);
    // A slice of AsBytes structs with no padding between elements (size is a multiple of alignment).
    match e.first_mut() {
        None => &mut [],
        // SAFETY: `e` is `len` contiguous initialised bytes, every bit pattern valid (`AsBytes`).
        Some(first) => unsafe { std::slice::from_raw_parts_mut(first.as_bytes_mut().as_mut_ptr(), len) },
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, Reply};
    use super::*;
    use rdma_common::uapi::rdma_user_ioctl_cmds::UVERBS_ATTR_F_MANDATORY;
    use std::os::fd::{AsRawFd, IntoRawFd};

    fn u16_at(b: &[u8], o: usize) -> u16 {
        u16::from_ne_bytes(b[o..o + 2].try_into().unwrap())
    }
    fn u64_at(b: &[u8], o: usize) -> u64 {
        u64::from_ne_bytes(b[o..o + 8].try_into().unwrap())
    }

    #[test]
    fn get_context_ioctl_then_async_fd() {
        let devnull = std::fs::File::open("/dev/null").unwrap().into_raw_fd();
        let f = Fake::with_driver_id(RDMA_DRIVER_RXE);
        f.reply(
            Reply::ioctl()
                .out(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &2u32.to_ne_bytes())
                .out(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, &1u64.to_ne_bytes())
                .out(UVERBS_ATTR_UHW_OUT, &[7; 8]),
        );
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, devnull as u64));
        let mut udata_out = [0u8; 8];
        let ctx = get_context(&f, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], &mut udata_out).unwrap();
        assert_eq!((ctx.async_fd.as_raw_fd(), ctx.num_comp_vectors, ctx.core_support), (devnull, 2, 1));
        assert_eq!(udata_out, [7; 8]);
        let b = f.ioctl(0);
        assert_eq!((u16_at(&b, 2) as u32, u16_at(&b, 4) as u32), (UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT));
        assert_eq!(u16_at(&b, 6), 4);
        assert_eq!((u16_at(&b, 24), u16_at(&b, 26)), (UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS as u16, 4));
        assert_eq!((u16_at(&b, 40), u16_at(&b, 42)), (UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT as u16, 8));
        assert_eq!((u16_at(&b, 56), u16_at(&b, 58)), (UVERBS_ATTR_UHW_IN as u16, 12)); // by address (> 8 bytes)
        assert_eq!((u16_at(&b, 72), u16_at(&b, 74)), (UVERBS_ATTR_UHW_OUT as u16, 8));
        let b = f.ioctl(1);
        assert_eq!(u16_at(&b, 2) as u32, UVERBS_OBJECT_ASYNC_EVENT);
        assert_eq!(u16_at(&b, 4) as u32, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
        assert_eq!(&b[24..40], &[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // FD_HANDLE: new, len 0, mandatory
        assert!(f.writes().is_empty());
    }

    #[test]
    fn get_context_write_fallback_adopts_async_fd() {
        let devnull = std::fs::File::open("/dev/null").unwrap().into_raw_fd();
        let f = Fake::new();
        f.reply(Reply::fail(Errno(libc::ENOTTY)));
        let mut resp = ib_uverbs_get_context_resp::zeroed();
        resp.async_fd = devnull as u32;
        resp.num_comp_vectors = 4;
        f.reply(Reply::write(resp.as_bytes()));
        let ctx = get_context(&f, &[], &mut []).unwrap();
        assert_eq!((ctx.async_fd.as_raw_fd(), ctx.num_comp_vectors, ctx.core_support), (devnull, 4, 0));
        let w = f.write(0);
        assert_eq!(size_of::<ib_uverbs_get_context>(), 8);
        assert_eq!(w.len(), 16);
        assert_eq!(&w[..8], &[IB_USER_VERBS_CMD_GET_CONTEXT as u8, 0, 0, 0, 4, 0, 2, 0]);

        f.reply(Reply::fail(Errno::EINVAL)); // e.g. a wrong driver id: no fallback
        assert_eq!(get_context(&f, &[], &mut []).unwrap_err(), Errno::EINVAL);
        assert_eq!(f.writes().len(), 1);
    }

    #[test]
    fn query_device_sizes() {
        let f = Fake::new();
        let mut resp = ib_uverbs_query_device_resp::zeroed();
        resp.max_qp = 123;
        resp.phys_port_cnt = 1;
        f.reply(Reply::write(resp.as_bytes()));
        let r = query_device(&f).unwrap();
        assert_eq!((r.max_qp, r.phys_port_cnt), (123, 1));
        let w = f.write(0);
        assert_eq!(size_of::<ib_uverbs_query_device_resp>(), 176);
        assert_eq!(u16_at(&w, 4), 4); // (8 + 8) / 4
        assert_eq!(u16_at(&w, 6), 176 / 4);
    }

    #[test]
    fn query_device_ex_counts() {
        let f = Fake::new();
        let mut resp = ib_uverbs_ex_query_device_resp::zeroed();
        resp.response_length = 200;
        resp.base.max_cq = 7;
        f.reply(Reply::write(&resp.as_bytes()[..200]));
        let r = query_device_ex(&f, &mut []).unwrap();
        assert_eq!((r.response_length, r.base.max_cq), (200, 7));
        let w = f.write(0);
        assert_eq!(w.len(), 8 + 16 + 8);
        assert_eq!(u16_at(&w, 4), 1);
        assert_eq!(u16_at(&w, 6) as usize, size_of::<ib_uverbs_ex_query_device_resp>() / 8);
    }

    #[test]
    fn query_port_ioctl_then_write_fallback() {
        let f = Fake::with_driver_id(RDMA_DRIVER_RXE);
        let mut ex = ib_uverbs_query_port_resp_ex::zeroed();
        ex.legacy_resp.state = 4;
        ex.legacy_resp.gid_tbl_len = 1024;
        ex.port_cap_flags2 = 0x20;
        ex.active_speed_ex = 400;
        f.reply(Reply::ioctl().out(UVERBS_ATTR_QUERY_PORT_RESP, ex.as_bytes()));
        let r = query_port(&f, 1).unwrap();
        assert_eq!((r.legacy_resp.state, r.legacy_resp.gid_tbl_len, r.port_cap_flags2), (4, 1024, 0x20));
        assert_eq!(active_speed_ex(&r), 400);
        let b = f.ioctl(0);
        assert_eq!(u16_at(&b, 2) as u32, UVERBS_OBJECT_DEVICE);
        assert_eq!(u16_at(&b, 4) as u32, UVERBS_METHOD_QUERY_PORT);
        assert_eq!(u16_at(&b, 6), 2);
        assert_eq!(u32::from_ne_bytes(b[16..20].try_into().unwrap()), RDMA_DRIVER_RXE);
        assert_eq!((u16_at(&b, 24), u16_at(&b, 26), u64_at(&b, 32)), (0, 8, 1)); // PORT_NUM const: 8 bytes inline
        assert_eq!((u16_at(&b, 40) as u32, u16_at(&b, 42) as usize), (UVERBS_ATTR_QUERY_PORT_RESP, 48));
        assert_eq!(size_of::<ib_uverbs_query_port_resp_ex>(), 48);

        f.reply(Reply::fail(Errno(libc::EPROTONOSUPPORT)));
        let mut legacy = ib_uverbs_query_port_resp::zeroed();
        legacy.lid = 9;
        f.reply(Reply::write(legacy.as_bytes()));
        let r = query_port(&f, 2).unwrap();
        assert_eq!((r.legacy_resp.lid, r.port_cap_flags2), (9, 0));
        let w = f.write(0);
        assert_eq!(w.len(), 8 + 16);
        assert_eq!(u32::from_ne_bytes(w[0..4].try_into().unwrap()), IB_USER_VERBS_CMD_QUERY_PORT);
        assert_eq!(u16_at(&w, 6) as usize, size_of::<ib_uverbs_query_port_resp>() / 4);
        assert_eq!(w[16], 2); // port_num right after `response`

        f.reply(Reply::fail(Errno::EINVAL));
        assert_eq!(query_port(&f, 3).unwrap_err(), Errno::EINVAL);
        assert_eq!(f.writes().len(), 1);
    }

    #[test]
    fn gid_entry_and_table() {
        let f = Fake::with_driver_id(RDMA_DRIVER_RXE);
        let mut e = ib_uverbs_gid_entry::zeroed();
        e.gid = [0x0000_0000_0000_80fe_u64.to_be(), 1];
        e.gid_index = 3;
        e.port_num = 1;
        e.gid_type = IB_UVERBS_GID_TYPE_ROCE_V2;
        e.netdev_ifindex = 2;
        f.reply(Reply::ioctl().out(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, e.as_bytes()));
        let r = query_gid_entry(&f, 1, 3, 0).unwrap();
        assert_eq!(r.as_bytes(), e.as_bytes());
        let b = f.ioctl(0);
        assert_eq!(u16_at(&b, 4) as u32, UVERBS_METHOD_QUERY_GID_ENTRY);
        assert_eq!(u16_at(&b, 6), 4);
        assert_eq!((u16_at(&b, 24 + 2), u64_at(&b, 24 + 8)), (8, 1)); // port: const, 8 bytes
        assert_eq!((u16_at(&b, 40 + 2), u64_at(&b, 40 + 8)), (8, 3)); // gid index
        assert_eq!((u16_at(&b, 56 + 2), u16_at(&b, 56 + 4)), (4, UVERBS_ATTR_F_MANDATORY as u16)); // flags: 4 bytes
        assert_eq!(u16_at(&b, 72 + 2), 32); // entry

        let mut two = [e, e];
        two[1].gid_index = 4;
        let mut entries = [ib_uverbs_gid_entry::zeroed(); 4];
        let mut bytes = two[0].as_bytes().to_vec();
        bytes.extend_from_slice(two[1].as_bytes());
        f.reply(
            Reply::ioctl()
                .out(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, &bytes)
                .out(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &2u64.to_ne_bytes()),
        );
        assert_eq!(query_gid_table(&f, 0, &mut entries).unwrap(), 2);
        assert_eq!(entries[1].gid_index, 4);
        let b = f.ioctl(1);
        assert_eq!(u16_at(&b, 4) as u32, UVERBS_METHOD_QUERY_GID_TABLE);
        assert_eq!(u64_at(&b, 24 + 8), 32); // entry size
        assert_eq!(u16_at(&b, 56 + 2), 4 * 32); // the whole array
        assert_eq!(u16_at(&b, 72 + 2), 8);
    }

    #[test]
    fn query_context_ioctl() {
        let f = Fake::new();
        f.reply(
            Reply::ioctl()
                .out(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, &2u32.to_ne_bytes())
                .out(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, &1u64.to_ne_bytes()),
        );
        let r = query_context(&f).unwrap();
        assert_eq!(r, ContextInfo { num_comp_vectors: 2, core_support: 1 });
        f.reply(Reply::fail(Errno::EOPNOTSUPP));
        assert_eq!(query_context(&f).unwrap_err(), Errno::EOPNOTSUPP);
    }
}
