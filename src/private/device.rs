//! The context and device half of the provider interface: context set-up (`_verbs_init_and_alloc_context`,
//! `verbs_uninit_context`, `verbs_set_ops`, `verbs_open_device`), the sysfs and GID helpers, and the context and
//! device commands (`ibv_cmd_get_context`, `_query_context`, `_query_device_any`, `_query_port`).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use super::ioctl::Cmdb;
use crate::kernel;
use crate::object::Context;
use crate::plugin;
use crate::provider::cmd as pcmd;
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::errno::Errno;
use rdma_common::ffi;
use rdma_common::ffi::CPtrResult;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::mem::{offset_of, size_of};
use std::ptr::{self, addr_of_mut};

// ---------------------------------------------------------------------------------------------------------------
// Context set-up
// ---------------------------------------------------------------------------------------------------------------

/// `void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size,
/// struct verbs_context *context_offset, uint32_t driver_id)`, `@@IBVERBS_PRIVATE_65`.
///
/// A provider's `alloc_context` calls it (through the `verbs_init_and_alloc_context()` macro) to allocate its
/// context wrapper (`alloc_size` bytes, zeroed, freed by the provider with `free()`) whose `verbs_context` starts
/// `context_offset` bytes in, and to initialise that `verbs_context` (device, `cmd_fd`, `async_fd = -1`, mutex,
/// dummy ops, driver id for ioctls). It owns `cmd_fd` from then on. This version serves rdma-core 65's plug-ins,
/// whose `verbs_context` is 696 bytes with `context` at 368 ([`_verbs_init_and_alloc_context_34`]: PABI 34's).
/// Returns the wrapper, or NULL with `errno` (`ENOMEM`; `EINVAL` for a device that is not ours, a size too
/// small, or a device whose plug-in registered through the other PABI), having closed `cmd_fd`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _verbs_init_and_alloc_context(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    context_offset: *mut verbs_context,
    driver_id: u32,
) -> *mut c_void {
    // SAFETY: forwarded C contract.
    unsafe { init_and_alloc_context(device, cmd_fd, alloc_size, context_offset, driver_id, 65) }
}

/// `_verbs_init_and_alloc_context@IBVERBS_PRIVATE_34`: [`_verbs_init_and_alloc_context`] for the plug-ins of
/// rdma-core 44 to 56 (PABI 34), whose `verbs_context` is 648 bytes with `context` at 320.
pub unsafe extern "C" fn _verbs_init_and_alloc_context_34(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    context_offset: *mut verbs_context,
    driver_id: u32,
) -> *mut c_void {
    // SAFETY: forwarded C contract.
    unsafe { init_and_alloc_context(device, cmd_fd, alloc_size, context_offset, driver_id, 34) }
}

unsafe fn init_and_alloc_context(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    context_offset: *mut verbs_context,
    driver_id: u32,
    pabi: u32,
) -> *mut c_void {
    ffi::boundary("_verbs_init_and_alloc_context", || {
        // SAFETY: forwarded C contract; `context_offset` is an offset disguised as a pointer.
        unsafe {
            plugin::init_and_alloc_context(device.cast(), cmd_fd, alloc_size, context_offset as usize, driver_id, pabi)
        }
    })
    .or_null_errno()
}

/// `void verbs_uninit_context(struct verbs_context *context)`, `@@IBVERBS_PRIVATE_65`.
///
/// The inverse of `_verbs_init_and_alloc_context`, called by a provider's `free_context` before it frees its
/// wrapper: closes the context's command and async fds and forgets the context. NULL is ignored. This version
/// takes rdma-core 65's `verbs_context` ([`verbs_uninit_context_34`]: PABI 34's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_uninit_context(context: *mut verbs_context) {
    // SAFETY: forwarded C contract.
    unsafe { uninit_context(context, 65) }
}

/// `verbs_uninit_context@IBVERBS_PRIVATE_34`: [`verbs_uninit_context`] of a PABI-34 `verbs_context`.
pub unsafe extern "C" fn verbs_uninit_context_34(context: *mut verbs_context) {
    // SAFETY: forwarded C contract.
    unsafe { uninit_context(context, 34) }
}

unsafe fn uninit_context(context: *mut verbs_context, pabi: u32) {
    let _ = ffi::boundary("verbs_uninit_context", || {
        // SAFETY: forwarded C contract.
        unsafe { plugin::uninit_context(context.cast(), pabi) };
        Ok(())
    });
}

/// `void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops)`,
/// `@@IBVERBS_PRIVATE_65`.
///
/// Records a provider's non-NULL ops for the context and installs those applications call directly (the data
/// path, the extended ops); may be called several times (later non-NULL entries win). NULL arguments are ignored.
/// This version takes rdma-core 65's `verbs_context` and 93-member `verbs_context_ops` ([`verbs_set_ops_34`]: PABI
/// 34's, 76 members).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_set_ops(vctx: *mut verbs_context, ops: *const c_void) {
    // SAFETY: forwarded C contract.
    unsafe { set_ops(vctx, ops, 65) }
}

/// `verbs_set_ops@IBVERBS_PRIVATE_34`: [`verbs_set_ops`] of a PABI-34 `verbs_context` and `verbs_context_ops`.
pub unsafe extern "C" fn verbs_set_ops_34(vctx: *mut verbs_context, ops: *const c_void) {
    // SAFETY: forwarded C contract.
    unsafe { set_ops(vctx, ops, 34) }
}

unsafe fn set_ops(vctx: *mut verbs_context, ops: *const c_void, pabi: u32) {
    let _ = ffi::boundary("verbs_set_ops", || {
        // SAFETY: forwarded C contract.
        unsafe { plugin::set_ops(vctx.cast(), ops, pabi) };
        Ok(())
    });
}

/// `struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data)`.
///
/// `ibv_open_device(3)` with provider private data: a plug-in's `alloc_context` receives it (mlx5dv_open_device
/// passes its attributes there); a device of a native provider refuses non-NULL data with `EOPNOTSUPP`. Returns
/// NULL with `errno` on failure, as `ibv_open_device(3)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_open_device(device: *mut ibv_device, private_data: *mut c_void) -> *mut ibv_context {
    // SAFETY: forwarded C contract.
    unsafe { crate::verbs::device::open_device_with(device.cast(), private_data) }.cast()
}

// ---------------------------------------------------------------------------------------------------------------
// Sysfs and GID helpers
// ---------------------------------------------------------------------------------------------------------------

/// `int ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct verbs_sysfs_dev *sysfs_dev,
/// const char *fnfmt, ...)`.
///
/// rdma-core: reads the sysfs file `<ibdev_path>/<printf(fnfmt, ...)>` of a device being matched into `buf`;
/// returns the length read (a trailing newline dropped, NUL-terminated), or `-1` with `errno` (`EINVAL` for NULL
/// arguments, the `open(2)`/`read(2)` errno). Variadic in C; the extra arguments are not read here (`__verbs_log`
/// reads them, but a file path is not built from unchecked arguments), so a `fnfmt` with a conversion answers
/// `EOPNOTSUPP` (rdma-core's own matcher passes `"device/modalias"`, which works).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_read_ibdev_sysfs_file(
    buf: *mut c_char,
    size: usize,
    sysfs_dev: *mut verbs_sysfs_dev,
    fnfmt: *const c_char,
) -> c_int {
    let r = ffi::boundary("ibv_read_ibdev_sysfs_file", || -> rdma_common::errno::Result<c_int> {
        if sysfs_dev.is_null() || fnfmt.is_null() || buf.is_null() || size == 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: a NUL-terminated file name.
        let name = unsafe { CStr::from_ptr(fnfmt) }.to_string_lossy().into_owned();
        if name.contains('%') {
            // The variadic arguments are not read here (unlike `__verbs_log`: a path built from unchecked
            // arguments is not worth the risk for a matcher that passes none).
            return Err(Errno::EOPNOTSUPP);
        }
        // SAFETY: a verbs_sysfs_dev from our matcher (its ibdev_path is NUL-terminated).
        let dir = unsafe { CStr::from_ptr((*sysfs_dev).ibdev_path.as_ptr()) };
        let path = std::path::Path::new(&*dir.to_string_lossy()).join(name);
        let data = std::fs::read(&path).map_err(|e| Errno(e.raw_os_error().unwrap_or(libc::EIO)))?;
        let mut n = data.len().min(size - 1);
        if n > 0 && data[n - 1] == b'\n' {
            n -= 1;
        }
        // SAFETY: the caller's buffer of `size` bytes.
        unsafe {
            ptr::copy_nonoverlapping(data.as_ptr(), buf.cast::<u8>(), n);
            *buf.add(n) = 0;
        }
        Ok(n as c_int)
    });
    match r {
        Ok(n) => n,
        Err(e) => {
            e.set();
            -1
        }
    }
}

/// `int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
/// enum ibv_gid_type_sysfs *type)`.
///
/// rdma-core: reports whether GID `index` of `port_num` is IB/RoCE v1 (`IBV_GID_TYPE_SYSFS_IB_ROCE_V1` = 0) or RoCE
/// v2 (`IBV_GID_TYPE_SYSFS_ROCE_V2` = 1); returns 0, or `-1` on failure. Although private, `ibv_devinfo` imports
/// it (it prints the GID type, and shows none when this fails), as do `libmlx5` and the mlx5/irdma/hns plugins.
/// Implemented (QUERY_GID_ENTRY, sysfs on older kernels): see `crate::verbs::context::query_gid_type`; `-1` with
/// `errno` (`EINVAL` for an invalid context, port or index) on failure, `*type` untouched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_gid_type(
    context: *mut ibv_context,
    port_num: u8,
    index: c_uint,
    r#type: *mut u32,
) -> c_int {
    // SAFETY: forwarded C contract (a valid context, a writable enum).
    unsafe { crate::verbs::context::query_gid_type(context.cast(), port_num, index, r#type) }
}

// ---------------------------------------------------------------------------------------------------------------
// Context and device commands
// ---------------------------------------------------------------------------------------------------------------

/// Records GET_CONTEXT's / QUERY_CONTEXT's `core_support` in our state of context `ctx` (rdma-core keeps it in
/// the `verbs_device`; only the core reads it, in `ibv_reg_mr`).
///
/// # Safety
/// `ctx` is a pointer from C.
unsafe fn set_core_support(ctx: *mut ibv_context, core: u64) {
    // SAFETY: checked against the registry first.
    if let Ok(c) = unsafe { Context::from_ibv(ctx) } {
        c.core_support.store(core, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `int ibv_cmd_get_context(struct verbs_context *context, struct ibv_get_context *cmd, size_t cmd_size,
/// struct ibv_fd_arr *fd_arr, struct ib_uverbs_get_context_resp *resp, size_t resp_size)`,
/// `@@IBVERBS_PRIVATE_65` (rdma-core 57 added `fd_arr`).
///
/// GET_CONTEXT with the provider's `alloc_ucontext` request and response: first the ioctl method (which reports
/// `num_comp_vectors` and `core_support`, stored in the context; the async fd is then allocated by whoever opens
/// the device, as rdma-core's `verbs_open_device` does), carrying the file descriptors of `fd_arr` when it is not
/// NULL (mlx5's UCAP fds: `UVERBS_ATTR_GET_CONTEXT_FD_ARR`, an array of `int`); then, where the kernel has no ioctl
/// for it, the write command, which also sets `context->async_fd` (and cannot carry the fds, which rdma-core 65
/// drops too). `context` is rdma-core 65's `verbs_context` ([`ibv_cmd_get_context_34`]: PABI 34's, without
/// `fd_arr`). Errors: `EINVAL` for NULL pointers or more than 65535 bytes of fds; the kernel's (`EINVAL` for a
/// second GET_CONTEXT on one fd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_get_context(
    context: *mut verbs_context,
    cmd: *mut c_void,
    cmd_size: usize,
    fd_arr: *mut r65::ibv_fd_arr,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    // SAFETY: forwarded C contract.
    unsafe { get_context(context, 65, cmd, cmd_size, fd_arr, resp, resp_size) }
}

/// `ibv_cmd_get_context@IBVERBS_PRIVATE_34`: `int ibv_cmd_get_context(struct verbs_context *context,
/// struct ibv_get_context *cmd, size_t cmd_size, struct ib_uverbs_get_context_resp *resp, size_t resp_size)` of
/// rdma-core 44 to 56: [`ibv_cmd_get_context`] of a PABI-34 `verbs_context`, without fds.
pub unsafe extern "C" fn ibv_cmd_get_context_34(
    context: *mut verbs_context,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    // SAFETY: forwarded C contract.
    unsafe { get_context(context, 34, cmd, cmd_size, ptr::null_mut(), resp, resp_size) }
}

/// The body of both `ibv_cmd_get_context`s: `context` is a `verbs_context` of PABI `pabi`.
unsafe fn get_context(
    context: *mut verbs_context,
    pabi: u32,
    cmd: *mut c_void,
    cmd_size: usize,
    fd_arr: *mut r65::ibv_fd_arr,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    ret("ibv_cmd_get_context", || {
        let vctx = obj(context)?;
        // SAFETY: the provider's context (checked to be ours by fd_of) and buffers.
        unsafe {
            let ic = plugin::context_in(vctx.cast(), pabi);
            let u = fd_of(ic)?;
            let core_resp = size_of::<ib_uverbs_get_context_resp>();
            let udata_in = tail(cmd, cmd_size, abi::<ib_uverbs_get_context>());
            let mut ncv = 0u32;
            let mut core = 0u64;
            let mut c = Cmdb::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT);
            c.out_ptr(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, addr_of_mut!(ncv).cast(), 4)?;
            c.out_ptr(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, addr_of_mut!(core).cast(), 8)?;
            if let Some(f) = fd_arr.as_ref() {
                let len = (f.count as usize).checked_mul(size_of::<c_int>()).ok_or(Errno::EINVAL)?;
                if len > 0 && f.arr.is_null() {
                    return Err(Errno::EINVAL);
                }
                c.in_ptr(UVERBS_ATTR_GET_CONTEXT_FD_ARR, f.arr.cast(), len)?;
            }
            if !udata_in.is_empty() {
                c.in_ptr(UVERBS_ATTR_UHW_IN, udata_in.as_ptr().cast(), udata_in.len())?;
            }
            if !resp.is_null() && resp_size > core_resp {
                c.out_ptr(UVERBS_ATTR_UHW_OUT, resp.cast::<u8>().add(core_resp).cast(), resp_size - core_resp)?;
            }
            match c.exec(&u, ptr::null_mut()) {
                Ok(()) => {
                    (*ic).num_comp_vectors = ncv as c_int;
                    set_core_support(ic, core);
                    Ok(())
                }
                Err(e) if kernel::ioctl_unsupported(e) => {
                    let req = ib_uverbs_get_context::zeroed();
                    let r: ib_uverbs_get_context_resp =
                        write_uhw(&u, IB_USER_VERBS_CMD_GET_CONTEXT, &req, udata_in, resp, resp_size, core_resp)?;
                    (*ic).async_fd = r.async_fd as c_int;
                    (*ic).num_comp_vectors = r.num_comp_vectors as c_int;
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
    })
}

/// `int ibv_cmd_query_context(struct ibv_context *ctx, struct ibv_command_buffer *driver)`.
///
/// QUERY_CONTEXT (ioctl only) with the provider's attributes `driver` linked: writes `ctx->num_comp_vectors` and
/// the context's `core_support`. Errors: the kernel's (`EOPNOTSUPP` from drivers without `query_ucontext`,
/// `ENOTTY`/`EPROTONOSUPPORT` on kernels without the method).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_context(ctx: *mut ibv_context, driver: *mut ibv_command_buffer) -> c_int {
    ret("ibv_cmd_query_context", || {
        // SAFETY: a context of ours (checked), the provider's attribute chain.
        unsafe {
            let u = fd_of(ctx)?;
            let mut core = 0u64;
            let mut cmd = Cmdb::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
            cmd.out_ptr(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, addr_of_mut!((*ctx).num_comp_vectors).cast(), 4)?;
            cmd.out_ptr(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, addr_of_mut!(core).cast(), 8)?;
            cmd.exec(&u, driver)?;
            set_core_support(ctx, core);
        }
        Ok(())
    })
}

/// `int ibv_cmd_query_device_any(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
/// struct ibv_device_attr_ex *attr, size_t attr_size, struct ib_uverbs_ex_query_device_resp *resp,
/// size_t *resp_size)`.
///
/// Zeroes `attr` (`attr_size` bytes, at least a `struct ibv_device_attr`) and fills it from EX_QUERY_DEVICE when
/// it is larger than that (the response, core then the driver's, straight into the provider's `resp` of
/// `*resp_size` bytes; on `EOPNOTSUPP`/`ENOSYS` the legacy command instead), else from QUERY_DEVICE (into
/// `resp->base`); copies each extended field only when both `attr_size` and the kernel's `response_length`
/// reach it; `phys_port_cnt_ex` is the port count discovery found, else `phys_port_cnt`. `*resp_size` becomes the
/// `response_length`. NULL `resp` uses an internal buffer.
///
/// Errors: `EINVAL` for a non-zero `input->comp_mask`, a too small `attr_size` or `*resp_size`; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_device_any(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
    resp: *mut ib_uverbs_ex_query_device_resp,
    resp_size: *mut usize,
) -> c_int {
    ret("ibv_cmd_query_device_any", || {
        // SAFETY: the provider's buffers as the prototype describes them; a context of ours (checked).
        unsafe {
            pcmd::query_device_check(input, attr_size)?;
            let attr = obj(attr)?;
            let u = fd_of(context)?;
            let mut internal = ib_uverbs_ex_query_device_resp::zeroed();
            let mut internal_size = size_of::<ib_uverbs_ex_query_device_resp>();
            let (resp, resp_size) = if resp.is_null() {
                (addr_of_mut!(internal), addr_of_mut!(internal_size))
            } else {
                (resp, obj(resp_size)?)
            };
            // The kernel's answers land in the provider's `resp` (EX_QUERY_DEVICE's with the driver's after it).
            let query_ex = || {
                let req = ib_uverbs_ex_query_device::zeroed();
                let core_resp = size_of::<ib_uverbs_ex_query_device_resp>();
                write_ex_direct(
                    &u,
                    IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
                    req.as_bytes(),
                    &[],
                    resp.cast(),
                    *resp_size,
                    core_resp,
                )
            };
            let query = || {
                let req = ib_uverbs_query_device::zeroed();
                let len = size_of::<ib_uverbs_query_device_resp>();
                let r = write_direct(&u, IB_USER_VERBS_CMD_QUERY_DEVICE, req.as_bytes(), &[], resp.cast(), len)?;
                (*resp).response_length = len as u32;
                Ok(r)
            };
            let (r, size) = pcmd::query_device_run(attr, attr_size, query_ex, query)?;
            *resp_size = r.response_length as usize;
            if size >= offset_of!(ibv_device_attr_ex, phys_port_cnt_ex) + 4 {
                let ports = Context::from_ibv(context).ok().and_then(|c| c.device.info.num_ports).unwrap_or(0);
                if ports != 0 {
                    (*attr).phys_port_cnt_ex = ports;
                }
            }
        }
        Ok(())
    })
}

/// `int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr,
/// struct ibv_query_port *cmd, size_t cmd_size)`.
///
/// QUERY_PORT: the ioctl (which also reports `port_cap_flags2` and, from rdma-core 56's generation on,
/// `active_speed_ex`), then the write command where the kernel has no ioctl for it, as rdma-core. Fills every
/// field of `port_attr` the kernel reports that the plug-in's generation has: a plug-in of rdma-core 44's passes a
/// 52-byte `struct ibv_port_attr` (its mlx5 a stack variable), so nothing is written past those 52 bytes for it.
/// Driver data after the command (`cmd_size` beyond `struct ibv_query_port`), which no provider passes and the
/// kernel ignores, is not sent. Errors: the kernel's (`EINVAL` for a bad port).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    _cmd: *mut c_void,
    _cmd_size: usize,
) -> c_int {
    ret("ibv_cmd_query_port", || {
        let attr = obj(port_attr)?;
        let size = plugin_port_attr_size(context);
        // SAFETY: a context of ours (checked), the provider's attribute struct of `size` bytes.
        unsafe { pcmd::query_port_sized(&fd_of(context)?, port_num, attr, size) }
    })
}

/// The size of `struct ibv_port_attr` the plug-in behind `context` was built with, which is what it may hand
/// `ibv_cmd_query_port`: 52 bytes for rdma-core 44's plug-ins (44's mlx5 passes a 52-byte struct on its stack when
/// it makes its XRC helper QP), 56 for 56's and 65's (`active_speed_ex`).
fn plugin_port_attr_size(context: *mut ibv_context) -> usize {
    // SAFETY: forwarded; the plug-in layer checks the registry.
    unsafe { generation_of(context) }.port_attr_size()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    #[test]
    fn context_set_up_conventions() {
        // SAFETY: every call below is given NULL or a local buffer, which each function accepts.
        unsafe {
            Errno(0).set();
            assert!(verbs_open_device(ptr::null_mut(), ptr::null_mut()).is_null());
            assert_eq!(Errno::last(), Errno::EINVAL, "not a device of ours");
            assert_eq!(ibv_query_gid_type(ptr::null_mut(), 1, 0, ptr::null_mut()), -1);
            let mut buf = [0 as c_char; 8];
            assert_eq!(ibv_read_ibdev_sysfs_file(buf.as_mut_ptr(), buf.len(), ptr::null_mut(), c"x".as_ptr()), -1);
            assert_eq!(Errno::last(), Errno::EINVAL);
            // An uninit of NULL and set_ops on NULL are harmless and keep errno.
            Errno::ENODEV.set();
            verbs_uninit_context(ptr::null_mut());
            verbs_set_ops(ptr::null_mut(), ptr::null());
            assert_eq!(Errno::last(), Errno::ENODEV);
            // A context for a device that is not ours: NULL with EINVAL, and the fd is closed.
            let fd = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
            assert!(fd >= 0);
            assert!(_verbs_init_and_alloc_context(ptr::null_mut(), fd, 4096, ptr::null_mut(), 0).is_null());
            assert_eq!(Errno::last(), Errno::EINVAL);
            assert_eq!(libc::fcntl(fd, libc::F_GETFD), -1, "cmd_fd was closed, as the contract says");
        }
    }

    #[test]
    fn get_context_falls_back_to_write() {
        let f = Fake::new();
        f.reply(Reply::fail(Errno(libc::ENOTTY)));
        let mut r = ib_uverbs_get_context_resp::zeroed();
        r.async_fd = 33;
        r.num_comp_vectors = 4;
        f.reply(Reply::write(r.as_bytes()));
        // A PABI-34 verbs_context: context at 320.
        let mut vctx: MaybeUninit<verbs_context_34> = z();
        let mut cmd = prov_cmd(8, 8, 0, &[]);
        let mut resp = [0u8; 8];
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_get_context_34(vctx.as_mut_ptr().cast(), cmd.as_mut_ptr().cast(), 16, resp.as_mut_ptr().cast(), 8)
        });
        assert_eq!(rc, 0);
        unsafe {
            let c = &(*vctx.as_ptr()).context;
            assert_eq!((c.async_fd, c.num_comp_vectors), (33, 4));
        }
        assert_eq!(u16_at(&f.ioctl(0), 6), 2, "ioctl tried first");
        assert_eq!(hdr(&f.write(0)), (IB_USER_VERBS_CMD_GET_CONTEXT, 4, 2));
    }

    #[test]
    fn get_context_65_sends_the_fds() {
        let f = Fake::new();
        f.reply(Reply::ioctl().out(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &[6, 0, 0, 0]));
        // rdma-core 65's verbs_context: context at 368.
        let mut vctx: MaybeUninit<verbs_context> = z();
        let mut fds = [5, 6, 7];
        let mut arr = r65::ibv_fd_arr { arr: fds.as_mut_ptr(), count: 3 };
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_get_context(vctx.as_mut_ptr(), ptr::null_mut(), 0, &mut arr, ptr::null_mut(), 0)
        });
        assert_eq!(rc, 0);
        unsafe { assert_eq!((*vctx.as_ptr()).context.num_comp_vectors, 6) };
        assert_eq!(
            ids(&f, 0),
            [
                (UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS as u16, 4),
                (UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT as u16, 8),
                (UVERBS_ATTR_GET_CONTEXT_FD_ARR as u16, 12)
            ]
        );
        assert_eq!(u64_at(&f.ioctl(0), 24 + 32 + 8), fds.as_ptr() as u64, "the array, by address");
    }

    #[test]
    fn query_device_any_writes_the_providers_response() {
        let f = Fake::new();
        let mut x = ib_uverbs_ex_query_device_resp::zeroed();
        x.base.max_qp = 9;
        x.base.phys_port_cnt = 2;
        x.response_length = offset_of!(ib_uverbs_ex_query_device_resp, xrc_odp_caps) as u32;
        x.hca_core_clock = 77;
        let mut bytes = x.as_bytes().to_vec();
        bytes.extend_from_slice(&[0x42; 8]);
        f.reply(Reply::write(&bytes));
        let mut resp = vec![0u8; size_of::<ib_uverbs_ex_query_device_resp>() + 8];
        let mut resp_size = resp.len();
        let mut attr: MaybeUninit<ibv_device_attr_ex> = z();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_query_device_any(
                ctx.as_mut_ptr(),
                ptr::null(),
                attr.as_mut_ptr(),
                size_of::<ibv_device_attr_ex>(),
                resp.as_mut_ptr().cast(),
                &mut resp_size,
            )
        });
        assert_eq!(rc, 0);
        assert_eq!(resp_size, x.response_length as usize);
        unsafe {
            let a = &*attr.as_ptr();
            assert_eq!((a.orig_attr.max_qp, a.hca_core_clock, a.phys_port_cnt_ex), (9, 77, 2));
        }
        assert_eq!(&resp[resp.len() - 8..], &[0x42; 8], "driver response in the provider's buffer");
        let w = f.write(0);
        assert_eq!(u64_at(&w, 8), resp.as_ptr() as u64);
        assert_eq!(u16_at(&w, 18), 1, "provider_out_words");
    }

    #[test]
    fn query_context_and_query_port() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let c = ctx.as_mut_ptr();

        f.reply(Reply::ioctl().out(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, &[4, 0, 0, 0]));
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_query_context(c, ptr::null_mut()) }), 0);
        assert_eq!(obj_method(&f, 0), (UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT));
        assert_eq!(
            ids(&f, 0),
            [
                (UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS as u16, 4),
                (UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT as u16, 8)
            ]
        );
        unsafe { assert_eq!((*c).num_comp_vectors, 4) };

        // QUERY_PORT: the ioctl, then (no ioctl framework) the write.
        let mut pa: MaybeUninit<ibv_port_attr> = z();
        f.reply(Reply::fail(Errno(libc::ENOTTY)));
        let mut pr = ib_uverbs_query_port_resp::zeroed();
        pr.lid = 7;
        f.reply(Reply::write(pr.as_bytes()));
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_query_port(c, 1, pa.as_mut_ptr(), ptr::null_mut(), 0) }), 0);
        assert_eq!(obj_method(&f, 1), (UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT));
        let w = f.write(0);
        assert_eq!((hdr(&w).0, w[16]), (IB_USER_VERBS_CMD_QUERY_PORT, 1));
        unsafe { assert_eq!((*pa.as_ptr()).lid, 7) };

        // A plug-in of rdma-core 44 hands a 52-byte struct: the ioctl's active_speed_ex is not written past it.
        let mut buf = [0xa5u8; 56];
        let mut rx = rdma_common::uapi::ib_user_ioctl_verbs::ib_uverbs_query_port_resp_ex::zeroed();
        rx.legacy_resp.lid = 9;
        rx.port_cap_flags2 = 0x1234;
        rx.active_speed_ex = 0x80;
        f.reply(Reply::ioctl().out(UVERBS_ATTR_QUERY_PORT_RESP, rx.as_bytes()));
        let p = buf.as_mut_ptr().cast::<ibv_port_attr>();
        let rc = with_generation(Generation::R44, || {
            with_fake(&f, || unsafe { ibv_cmd_query_port(c, 1, p, ptr::null_mut(), 0) })
        });
        assert_eq!(rc, 0);
        assert_eq!((u16_at(&buf, 34), u16_at(&buf, 48)), (9, 0x1234), "lid, port_cap_flags2");
        assert_eq!(&buf[Generation::R44.port_attr_size()..], &[0xa5; 4], "nothing written past 44's struct");
    }

    #[test]
    fn query_port_writes_only_the_generations_struct() {
        // A plug-in's port attributes followed by other data: rdma-core 44's struct is 52 bytes, 56's 56.
        for g in [Generation::R44, Generation::R56] {
            let f = Fake::new();
            let mut ctx: MaybeUninit<ibv_context> = z();
            let mut buf = [0xa5a5_a5a5u32; 20];
            let mut pr = ib_uverbs_query_port_resp::zeroed();
            pr.lid = 9;
            pr.state = 4;
            let mut out = pr.as_bytes().to_vec();
            out.resize(48, 0);
            f.reply(Reply::ioctl().out(UVERBS_ATTR_QUERY_PORT_RESP, &out));
            let rc = with_generation(g, || {
                with_fake(&f, || unsafe {
                    ibv_cmd_query_port(ctx.as_mut_ptr(), 1, buf.as_mut_ptr().cast(), ptr::null_mut(), 0)
                })
            });
            assert_eq!(rc, 0);
            let a = unsafe { &*buf.as_ptr().cast::<ibv_port_attr>() };
            assert_eq!((a.lid, unsafe { ffi::enum_raw(std::ptr::addr_of!(a.state)) }), (9, 4));
            let end = g.port_attr_size() / 4;
            assert!(buf[end..].iter().all(|&w| w == 0xa5a5_a5a5), "{g}: written past its {} bytes", end * 4);
        }
    }
}
