//! The provider interface's flow steering commands: `ibv_cmd_create_flow` (the verbs specifications converted
//! to the kernel's), `_destroy_flow`, and the ESP flow actions (`_create_flow_action_esp`,
//! `_modify_flow_action_esp`, `_destroy_flow_action`) (rdma-core's `cmd.c`, `cmd_flow.c`, `cmd_flow_action.c`).
#![allow(unsafe_code, clippy::missing_safety_doc, clippy::too_many_arguments)]

use super::buffers::*;
use super::ioctl::Cmdb;
use crate::kernel;
use crate::provider::verbs::*;
use rdma_common::abi::driver::*;
use rdma_common::abi::enums::*;
use rdma_common::errno::{Errno, Result};
use rdma_common::ffi;
use rdma_common::uapi::ib_user_ioctl_cmds::*;
use rdma_common::uapi::ib_user_verbs::*;
use rdma_common::uapi::{AsBytes, FromBytes};
use std::ffi::{c_int, c_void};
use std::mem::{offset_of, size_of};
use std::ptr::{self, addr_of};
use std::slice;

/// `sizeof(((struct ibv_flow_spec *)0)->hdr)`: the `{enum type; uint16_t size}` every verbs specification starts
/// with (8 bytes with padding).
const IB_SPEC_HDR: usize = 8;
/// The largest kernel specification (`sizeof(struct ibv_kern_spec)`, the IPv6 one).
const KERN_SPEC_MAX: usize = size_of::<ib_uverbs_flow_spec_ipv6>();

/// rdma-core's `get_filters_size` for the specifications whose filter grew over time: the verbs filter size
/// (half the payload), checked against what the kernel's filter has room for (`EINVAL` when shorter than the
/// kernel's minimum, `EOPNOTSUPP` when the mask sets bits past it). Returns (verbs size, bytes to copy).
fn filter_sizes(ib_size: u16, spec: &[u8], val_at: usize, min: usize) -> Result<(usize, usize)> {
    let ib = (ib_size as usize).checked_sub(IB_SPEC_HDR).ok_or(Errno::EINVAL)? / 2;
    if ib < min {
        return Err(Errno::EINVAL);
    }
    if ib > min {
        let mask_tail = spec.get(val_at + ib + min..val_at + 2 * ib).ok_or(Errno::EINVAL)?;
        if mask_tail.iter().any(|&b| b != 0) {
            return Err(Errno::EOPNOTSUPP);
        }
    }
    Ok((ib, ib.min(min)))
}

/// rdma-core's `ib_spec_to_kern_spec`: one verbs flow specification (`spec`, its bytes as `hdr.size` says) as the
/// kernel's, written at the start of `out`. Returns the kernel specification's size. Errors: `EINVAL` for an
/// unknown type or a too short filter, `EOPNOTSUPP` for mask bits the kernel's filter cannot hold.
///
/// # Safety
/// For the action-handle and counter specifications, the pointers they carry are live `verbs_flow_action` /
/// `verbs_counters`.
unsafe fn kern_spec(spec: &[u8], out: &mut [u8]) -> Result<usize> {
    use ibv_flow_spec_type::*;
    let ty = u32::from_ne_bytes(spec[0..4].try_into().unwrap_or_default());
    let ib_size = u16::from_ne_bytes(spec[4..6].try_into().unwrap_or_default());
    let inner = IBV_FLOW_SPEC_INNER as u32;
    let mut kty = ty;
    // (kernel size, [(verbs offset, kernel offset, length)]): val then mask copies.
    let copy = |v: usize, m: usize, len: usize| [(v, 8, len), (m, 8 + len, len)];
    let (ksize, copies): (usize, [(usize, usize, usize); 2]) = match ty {
        t if t & !inner == IBV_FLOW_SPEC_ETH as u32 => (
            size_of::<ib_uverbs_flow_spec_eth>(),
            copy(
                offset_of!(ibv_flow_spec_eth, val),
                offset_of!(ibv_flow_spec_eth, mask),
                size_of::<ibv_flow_eth_filter>(),
            ),
        ),
        t if t & !inner == IBV_FLOW_SPEC_IPV4 as u32 => (
            8 + 2 * size_of::<ibv_flow_ipv4_filter>(),
            copy(
                offset_of!(ibv_flow_spec_ipv4, val),
                offset_of!(ibv_flow_spec_ipv4, mask),
                size_of::<ibv_flow_ipv4_filter>(),
            ),
        ),
        t if t & !inner == IBV_FLOW_SPEC_IPV4_EXT as u32 => {
            let min = offset_of!(ib_uverbs_flow_ipv4_filter, flags) + 1;
            let val = offset_of!(ibv_flow_spec_ipv4_ext, val);
            let (ib, k) = filter_sizes(ib_size, spec, val, min)?;
            kty = IBV_FLOW_SPEC_IPV4 as u32 | (t & inner);
            // The kernel's filter is `size_of::<ib_uverbs_flow_ipv4_filter>()` bytes; mask after it.
            let kf = size_of::<ib_uverbs_flow_ipv4_filter>();
            (size_of::<ib_uverbs_flow_spec_ipv4>(), [(val, 8, k), (val + ib, 8 + kf, k)])
        }
        t if t & !inner == IBV_FLOW_SPEC_IPV6 as u32 => {
            let min = offset_of!(ib_uverbs_flow_ipv6_filter, hop_limit) + 1;
            let val = offset_of!(ibv_flow_spec_ipv6, val);
            let (ib, k) = filter_sizes(ib_size, spec, val, min)?;
            let kf = size_of::<ib_uverbs_flow_ipv6_filter>();
            (size_of::<ib_uverbs_flow_spec_ipv6>(), [(val, 8, k), (val + ib, 8 + kf, k)])
        }
        t if t & !inner == IBV_FLOW_SPEC_ESP as u32 => (
            size_of::<ib_uverbs_flow_spec_esp>(),
            copy(
                offset_of!(ibv_flow_spec_esp, val),
                offset_of!(ibv_flow_spec_esp, mask),
                size_of::<ib_uverbs_flow_spec_esp_filter>(),
            ),
        ),
        t if t & !inner == IBV_FLOW_SPEC_TCP as u32 || t & !inner == IBV_FLOW_SPEC_UDP as u32 => (
            size_of::<ib_uverbs_flow_spec_tcp_udp>(),
            copy(
                offset_of!(ibv_flow_spec_tcp_udp, val),
                offset_of!(ibv_flow_spec_tcp_udp, mask),
                size_of::<ibv_flow_tcp_udp_filter>(),
            ),
        ),
        t if t == IBV_FLOW_SPEC_GRE as u32 => (
            size_of::<ib_uverbs_flow_spec_gre>(),
            copy(
                offset_of!(ibv_flow_spec_gre, val),
                offset_of!(ibv_flow_spec_gre, mask),
                size_of::<ibv_flow_gre_filter>(),
            ),
        ),
        t if t & !inner == IBV_FLOW_SPEC_MPLS as u32 => (
            size_of::<ib_uverbs_flow_spec_mpls>(),
            copy(
                offset_of!(ibv_flow_spec_mpls, val),
                offset_of!(ibv_flow_spec_mpls, mask),
                size_of::<ibv_flow_mpls_filter>(),
            ),
        ),
        t if t == IBV_FLOW_SPEC_VXLAN_TUNNEL as u32 => {
            let min = offset_of!(ib_uverbs_flow_tunnel_filter, tunnel_id) + 4;
            let val = offset_of!(ibv_flow_spec_tunnel, val);
            let (ib, k) = filter_sizes(ib_size, spec, val, min)?;
            let kf = size_of::<ib_uverbs_flow_tunnel_filter>();
            (size_of::<ib_uverbs_flow_spec_tunnel>(), [(val, 8, k), (val + ib, 8 + kf, k)])
        }
        t if t == IBV_FLOW_SPEC_ACTION_TAG as u32 => {
            let at = offset_of!(ibv_flow_spec_action_tag, tag_id);
            (size_of::<ib_uverbs_flow_spec_action_tag>(), [(at, 8, 4), (0, 0, 0)])
        }
        t if t == IBV_FLOW_SPEC_ACTION_DROP as u32 => (size_of::<ib_uverbs_flow_spec_action_drop>(), [(0, 0, 0); 2]),
        t if t == IBV_FLOW_SPEC_ACTION_HANDLE as u32 || t == IBV_FLOW_SPEC_ACTION_COUNT as u32 => {
            let at = offset_of!(ibv_flow_spec_action_handle, action);
            let p = usize::from_ne_bytes(spec.get(at..at + 8).ok_or(Errno::EINVAL)?.try_into().unwrap_or_default());
            // SAFETY: caller's contract; both objects begin with their public struct, the handle after it.
            let handle = unsafe {
                if t == IBV_FLOW_SPEC_ACTION_HANDLE as u32 {
                    (*obj(p as *mut verbs_flow_action)?).handle
                } else {
                    (*obj(p as *mut verbs_counters)?).handle
                }
            };
            out[8..12].copy_from_slice(&handle.to_ne_bytes());
            (size_of::<ib_uverbs_flow_spec_action_handle>(), [(0, 0, 0); 2])
        }
        _ => return Err(Errno::EINVAL),
    };
    out[0..4].copy_from_slice(&kty.to_ne_bytes());
    out[4..6].copy_from_slice(&(ksize as u16).to_ne_bytes());
    for (from, to, len) in copies {
        if len > 0 {
            out[to..to + len].copy_from_slice(spec.get(from..from + len).ok_or(Errno::EINVAL)?);
        }
    }
    Ok(ksize)
}

/// `int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id, struct ibv_flow_attr *flow_attr,
/// void *ucmd, size_t ucmd_size)`.
///
/// EX_CREATE_FLOW: the rule `flow_attr` and its `num_of_specs` specifications (which follow it in memory), each
/// converted to the kernel's layout, steering to `qp`; `ucmd` is the driver data. Fills `flow_id->context` and
/// `handle`. Errors: `EINVAL` for an unknown specification type or a too short filter, `EOPNOTSUPP` for mask
/// bits the kernel cannot match; the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_flow(
    qp: *mut ibv_qp,
    flow_id: *mut ibv_flow,
    flow_attr: *mut ibv_flow_attr,
    ucmd: *mut c_void,
    ucmd_size: usize,
) -> c_int {
    ret("ibv_cmd_create_flow", || {
        let (qp, flow, attr) = (obj(qp)?, obj(flow_id)?, obj(flow_attr)?);
        // SAFETY: the provider's objects; the specifications follow the attribute struct, each `size` bytes.
        unsafe {
            let a = &*attr;
            let n = a.num_of_specs as usize;
            let head = size_of::<ib_uverbs_create_flow>();
            let mut core = vec![0u8; head + n * KERN_SPEC_MAX];
            let mut k = head;
            let mut ib = attr.cast::<u8>().add(size_of::<ibv_flow_attr>());
            let mut specs_size = 0u16;
            for _ in 0..n {
                let size = u16::from_ne_bytes([*ib.add(4), *ib.add(5)]);
                if (size as usize) < IB_SPEC_HDR {
                    return Err(Errno::EINVAL);
                }
                let spec = slice::from_raw_parts(ib, size as usize);
                let ks = kern_spec(spec, &mut core[k..k + KERN_SPEC_MAX])?;
                specs_size = specs_size.wrapping_add(ks as u16);
                k += ks;
                ib = ib.add(size as usize);
            }
            core.truncate(k);
            let mut c = ib_uverbs_create_flow::zeroed();
            c.qp_handle = (*qp).handle;
            c.flow_attr.type_ = ffi::enum_raw(addr_of!(a.r#type));
            c.flow_attr.size = specs_size;
            c.flow_attr.priority = a.priority;
            c.flow_attr.num_of_specs = a.num_of_specs;
            c.flow_attr.port = a.port;
            c.flow_attr.flags = a.flags;
            core[..head].copy_from_slice(c.as_bytes());
            let udata = tail(ucmd, ucmd_size, 0);
            let u = fd_of((*qp).context)?;
            let mut out = [0u8; size_of::<ib_uverbs_create_flow_resp>()];
            let n_out = out.len();
            kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_CREATE_FLOW, &core, udata, Some((&mut out, n_out)))?;
            (*flow).context = (*qp).context;
            (*flow).handle = ib_uverbs_create_flow_resp::from_bytes(&out).flow_handle;
        }
        Ok(())
    })
}

/// `int ibv_cmd_destroy_flow(struct ibv_flow *flow_id)`: EX_DESTROY_FLOW. Errors: the kernel's; a forgiven
/// `EIO` as for [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_flow(flow_id: *mut ibv_flow) -> c_int {
    ret("ibv_cmd_destroy_flow", || {
        let flow = obj(flow_id)?;
        // SAFETY: the provider's live flow.
        unsafe {
            let u = fd_of((*flow).context)?;
            let mut req = ib_uverbs_destroy_flow::zeroed();
            req.flow_handle = (*flow).handle;
            destroyed(kernel::write_ex_raw(&u, IB_USER_VERBS_EX_CMD_DESTROY_FLOW, req.as_bytes(), &[], None))?;
        }
        Ok(())
    })
}

/// rdma-core's `copy_flow_action_esp`: the ESP attributes present in `esp` (ESN, keying material, replay
/// protection, encapsulation, ESP attributes), in that order.
///
/// # Safety
/// The pointers in `esp` are valid for the lengths it states until the command ran.
unsafe fn esp_attrs(c: &mut Cmdb, esp: &ibv_flow_action_esp_attr) -> Result<()> {
    // SAFETY: caller's contract; enum fields read as numbers.
    unsafe {
        if esp.comp_mask & IBV_FLOW_ACTION_ESP_MASK_ESN != 0 {
            c.in_ptr(UVERBS_ATTR_FLOW_ACTION_ESP_ESN, addr_of!(esp.esn).cast(), 4)?;
        }
        if !esp.keymat_ptr.is_null() {
            let proto = ffi::enum_raw(addr_of!(esp.keymat_proto)) as u8;
            c.in_enum(UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT, proto, esp.keymat_ptr, esp.keymat_len as usize)?;
        }
        if !esp.replay_ptr.is_null() {
            let proto = ffi::enum_raw(addr_of!(esp.replay_proto)) as u8;
            c.in_enum(UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY, proto, esp.replay_ptr, esp.replay_len as usize)?;
        }
        if !esp.esp_encap.is_null() {
            let len = size_of::<rdma_common::uapi::ib_user_ioctl_verbs::ib_uverbs_flow_action_esp_encap>();
            c.in_ptr(UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP, esp.esp_encap.cast(), len)?;
        }
        if !esp.esp_attr.is_null() {
            let len = size_of::<rdma_common::uapi::ib_user_ioctl_verbs::ib_uverbs_flow_action_esp>();
            c.in_ptr(UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS, esp.esp_attr.cast(), len)?;
        }
    }
    Ok(())
}

/// `int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx, struct ibv_flow_action_esp_attr *attr,
/// struct verbs_flow_action *flow_action, struct ibv_command_buffer *driver)`.
///
/// FLOW_ACTION_ESP_CREATE (ioctl only) with the provider's attributes `driver`: an IPsec ESP flow action; fills
/// `action.context`, `type = IBV_FLOW_ACTION_ESP` and `handle`. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_create_flow_action_esp(
    ctx: *mut ibv_context,
    attr: *mut ibv_flow_action_esp_attr,
    flow_action: *mut verbs_flow_action,
    driver: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_create_flow_action_esp", || {
        let (attr, fa) = (obj(attr)?, obj(flow_action)?);
        // SAFETY: the provider's objects and attribute chain; a context of ours (checked).
        unsafe {
            let u = fd_of(ctx)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE);
            let h = c.out_obj(UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE);
            esp_attrs(&mut c, &*attr)?;
            c.exec(&u, driver)?;
            (*fa).action.context = ctx;
            (*fa).r#type = IBV_FLOW_ACTION_ESP;
            (*fa).handle = c.data(h) as u32;
        }
        Ok(())
    })
}

/// `int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
/// struct ibv_flow_action_esp_attr *attr, struct ibv_command_buffer *driver)`: FLOW_ACTION_ESP_MODIFY (ioctl
/// only) with the provider's attributes. Errors: the kernel's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_modify_flow_action_esp(
    flow_action: *mut verbs_flow_action,
    attr: *mut ibv_flow_action_esp_attr,
    driver: *mut ibv_command_buffer,
) -> c_int {
    ret("ibv_cmd_modify_flow_action_esp", || {
        let (fa, attr) = (obj(flow_action)?, obj(attr)?);
        // SAFETY: the provider's live flow action and attribute chain.
        unsafe {
            let u = fd_of((*fa).action.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY);
            c.in_obj(UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE, (*fa).handle);
            esp_attrs(&mut c, &*attr)?;
            c.exec(&u, driver)
        }
    })
}

/// `int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)`: FLOW_ACTION_DESTROY (ioctl only).
/// Errors: the kernel's; a forgiven `EIO` as for [`ibv_cmd_dealloc_pd`](super::pd::ibv_cmd_dealloc_pd).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_cmd_destroy_flow_action(action: *mut verbs_flow_action) -> c_int {
    ret("ibv_cmd_destroy_flow_action", || {
        let fa = obj(action)?;
        // SAFETY: the provider's live flow action.
        unsafe {
            let u = fd_of((*fa).action.context)?;
            let mut c = Cmdb::new(UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_DESTROY);
            c.in_obj(UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE, (*fa).handle);
            destroyed(c.exec(&u, ptr::null_mut()))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::private::buffers::testing::*;
    use std::ptr::addr_of_mut;
    #[test]
    fn create_flow_converts_specifications() {
        #[repr(C)]
        struct Rule {
            attr: ibv_flow_attr,
            eth: ibv_flow_spec_eth,
            ipv6: ibv_flow_spec_ipv6,
            tag: ibv_flow_spec_action_tag,
        }
        let mut rule: MaybeUninit<Rule> = z();
        let r = rule.as_mut_ptr();
        // SAFETY: our zeroed struct, enum fields written as numbers.
        unsafe {
            use ibv_flow_spec_type::*;
            (*r).attr.num_of_specs = 3;
            (*r).attr.priority = 2;
            (*r).attr.port = 1;
            ffi::enum_store(addr_of_mut!((*r).eth.r#type), IBV_FLOW_SPEC_ETH as u32);
            (*r).eth.size = size_of::<ibv_flow_spec_eth>() as u16;
            (*r).eth.val.ether_type = 0x0800;
            (*r).eth.mask.ether_type = 0xffff;
            ffi::enum_store(addr_of_mut!((*r).ipv6.r#type), IBV_FLOW_SPEC_IPV6 as u32);
            (*r).ipv6.size = size_of::<ibv_flow_spec_ipv6>() as u16;
            (*r).ipv6.val.hop_limit = 64;
            (*r).ipv6.mask.hop_limit = 0xff;
            ffi::enum_store(addr_of_mut!((*r).tag.r#type), IBV_FLOW_SPEC_ACTION_TAG as u32);
            (*r).tag.size = size_of::<ibv_flow_spec_action_tag>() as u16;
            (*r).tag.tag_id = 0x1234;
        }
        let f = Fake::new();
        f.reply(Reply::write(&[0, 0, 0, 0, 0x66, 0, 0, 0]));
        let mut qp: MaybeUninit<ibv_qp> = z();
        let mut flow: MaybeUninit<ibv_flow> = z();
        unsafe { (*qp.as_mut_ptr()).handle = 3 };
        let mut ucmd = [1u8; 8];
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_flow(
                qp.as_mut_ptr(),
                flow.as_mut_ptr(),
                addr_of_mut!((*r).attr),
                ucmd.as_mut_ptr().cast(),
                8,
            )
        });
        assert_eq!(rc, 0);
        unsafe { assert_eq!((*flow.as_ptr()).handle, 0x66) };
        let w = f.write(0);
        let specs = 40 + 88 + 16;
        assert_eq!(w.len(), 24 + 24 + specs + 8);
        assert_eq!(
            hdr(&w),
            (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_FLOW, ((24 + specs) / 8) as u16, 1)
        );
        assert_eq!(u16_at(&w, 16), 1);
        let c = &w[24..];
        assert_eq!(u32_at(c, 4), 3, "qp_handle");
        assert_eq!((u16_at(c, 12), u16_at(c, 14), c[16], c[19]), (specs as u16, 2, 3, 1), "flow_attr");
        let s = &c[24..];
        assert_eq!((u32_at(s, 0), u16_at(s, 4)), (0x20, 40));
        assert_eq!(u16_at(s, 8 + 12), 0x0800, "eth val.ether_type");
        let s6 = &s[40..];
        assert_eq!((u32_at(s6, 0), u16_at(s6, 4)), (0x31, 88));
        assert_eq!((s6[8 + 38], s6[48 + 38]), (64, 0xff), "hop_limit in val and mask");
        let t = &s6[88..];
        assert_eq!((u32_at(t, 0), u16_at(t, 4), u32_at(t, 8)), (0x1000, 16, 0x1234));
        assert_eq!(&w[24 + 24 + specs..], &[1; 8]);

        // SAFETY: as above.
        unsafe {
            (*r).attr.num_of_specs = 1;
            ffi::enum_store(addr_of_mut!((*r).eth.r#type), ibv_flow_spec_type::IBV_FLOW_SPEC_INNER as u32);
        }
        let rc = with_fake(&f, || unsafe {
            ibv_cmd_create_flow(qp.as_mut_ptr(), flow.as_mut_ptr(), addr_of_mut!((*r).attr), ptr::null_mut(), 0)
        });
        assert_eq!(rc, libc::EINVAL);
    }

    #[test]
    fn flow_action_commands_carry_rdma_cores_attributes() {
        let f = Fake::new();
        let mut ctx: MaybeUninit<ibv_context> = z();
        let c = ctx.as_mut_ptr();
        let mut fa: MaybeUninit<verbs_flow_action> = z();
        let mut esp: MaybeUninit<ibv_flow_action_esp_attr> = z();
        let mut keymat = [0x4bu8; 32];
        unsafe {
            let e = esp.as_mut_ptr();
            (*e).keymat_ptr = keymat.as_mut_ptr().cast();
            (*e).keymat_len = 32;
            (*e).comp_mask = 1;
            (*e).esn = 7;
        }
        f.reply(Reply::ioctl().new_obj(UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE, 0x44));
        assert_eq!(
            with_fake(&f, || unsafe {
                ibv_cmd_create_flow_action_esp(c, esp.as_mut_ptr(), fa.as_mut_ptr(), ptr::null_mut())
            }),
            0
        );
        assert_eq!(obj_method(&f, 0), (UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE));
        assert_eq!(
            ids(&f, 0),
            [
                (UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE as u16, 0),
                (UVERBS_ATTR_FLOW_ACTION_ESP_ESN as u16, 4),
                (UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT as u16, 32)
            ]
        );
        unsafe { assert_eq!(((*fa.as_ptr()).handle, (*fa.as_ptr()).r#type), (0x44, IBV_FLOW_ACTION_ESP)) };
        f.reply(Reply::ioctl());
        assert_eq!(
            with_fake(&f, || unsafe {
                ibv_cmd_modify_flow_action_esp(fa.as_mut_ptr(), esp.as_mut_ptr(), ptr::null_mut())
            }),
            0
        );
        assert_eq!(ids(&f, 1)[0], (UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE as u16, 0));
        f.reply(Reply::ioctl());
        assert_eq!(with_fake(&f, || unsafe { ibv_cmd_destroy_flow_action(fa.as_mut_ptr()) }), 0);
        assert_eq!(obj_method(&f, 2), (UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_DESTROY));
    }
}
