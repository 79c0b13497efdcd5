//! rdma-core's provider-private structs (`libibverbs/driver.h`, `cmd_ioctl.h`, `kern-abi.h`), shared with the
//! C plug-ins byte for byte: the device and context interface, the provider object structs the `ibv_cmd_*` fill,
//! the ioctl command buffer, and the write() command layouts (`struct ibv_<cmd>` = header + the kernel's core
//! request, then the provider's driver data).
//!
//! Most of them are the same in every release this library serves; where a release differs, the layouts are kept
//! per generation ([`Generation`]: [`r44`] for PABI 34 as rdma-core 44 built it, [`r56`] for PABI 34 as 45 to 56
//! built it and for PABI 65), and this module holds what they share.
//!
//! rdma-core installs none of these headers, so their layout was measured from each release's sources and kept as
//! data: `tests/layout/private/rdma-core-{44,56,65}.tsv`, made by `tests/layout/private/gen.py --release N`. The
//! tests below check every row of each table against the definitions of that generation (and fail on a row they do
//! not know).
//!
//! `verbs_context_ops` keeps its 76 members as untyped function pointers: the loader only copies them (as
//! rdma-core's `verbs_set_ops`) and casts the few it calls to their prototypes at the call site
//! (`op` in libibverbs' plug-in loader).
#![allow(non_camel_case_types, non_snake_case)]

mod generation;
pub mod r44;
pub mod r56;
pub mod r65;

pub use generation::Generation;

use crate::abi::verbs::*;
use crate::uapi::ib_user_verbs::*;
use crate::uapi::rdma_user_ioctl_cmds::ib_uverbs_attr;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::mem::{offset_of, size_of};

/// `struct list_node` (ccan/list.h): a doubly linked list link.
#[repr(C)]
pub struct list_node {
    pub next: *mut list_node,
    pub prev: *mut list_node,
}

/// `VERBS_MATCH_*`: the kind of a match-table entry.
pub const VERBS_MATCH_SENTINEL: u8 = 0;
pub const VERBS_MATCH_PCI: u8 = 1;
pub const VERBS_MATCH_MODALIAS: u8 = 2;
pub const VERBS_MATCH_DRIVER_ID: u8 = 3;

/// `VSYSFS_READ_MODALIAS`: `verbs_sysfs_dev.modalias` has been read.
pub const VSYSFS_READ_MODALIAS: c_uint = 1 << 0;

/// The union in `struct verbs_match_ent`.
#[repr(C)]
pub union verbs_match_ent_u {
    pub modalias: *const c_char,
    pub driver_id: u64,
}

/// `struct verbs_match_ent`: one row of a provider's match table (ended by a `VERBS_MATCH_SENTINEL` row).
#[repr(C)]
pub struct verbs_match_ent {
    pub driver_data: *mut c_void,
    pub u: verbs_match_ent_u,
    pub vendor: u16,
    pub device: u16,
    pub kind: u8,
}

/// `struct verbs_sysfs_dev`: an RDMA device found by discovery, as handed to a provider's matcher and
/// `alloc_device`.
#[repr(C)]
pub struct verbs_sysfs_dev {
    pub entry: list_node,
    pub provider_data: *mut c_void,
    pub r#match: *const verbs_match_ent,
    pub flags: c_uint,
    pub sysfs_name: [c_char; IBV_SYSFS_NAME_MAX],
    pub sysfs_cdev: libc::dev_t,
    pub ibdev_name: [c_char; IBV_SYSFS_NAME_MAX],
    pub ibdev_path: [c_char; IBV_SYSFS_PATH_MAX],
    pub modalias: [c_char; 512],
    pub node_guid: u64,
    pub driver_id: u32,
    pub node_type: ibv_node_type,
    pub ibdev_idx: c_int,
    pub num_ports: u32,
    pub abi_ver: u32,
    pub time_created: libc::timespec,
}

/// `struct verbs_device_ops`: what a provider registers with `verbs_register_driver_34`.
#[repr(C)]
pub struct verbs_device_ops {
    pub name: *const c_char,
    pub match_min_abi_version: u32,
    pub match_max_abi_version: u32,
    pub match_table: *const verbs_match_ent,
    pub static_providers: *const *const verbs_device_ops,
    pub match_device: Option<unsafe extern "C" fn(*mut verbs_sysfs_dev) -> bool>,
    pub alloc_context:
        Option<unsafe extern "C" fn(*mut ibv_device, c_int, *mut c_void) -> *mut crate::abi::verbs::verbs_context>,
    pub import_context: Option<unsafe extern "C" fn(*mut ibv_device, c_int) -> *mut crate::abi::verbs::verbs_context>,
    pub alloc_device: Option<unsafe extern "C" fn(*mut verbs_sysfs_dev) -> *mut verbs_device>,
    pub uninit_device: Option<unsafe extern "C" fn(*mut verbs_device)>,
}

/// `struct verbs_device`: a provider's device (its allocation begins with it; `device` is what C sees).
#[repr(C)]
pub struct verbs_device {
    pub device: ibv_device,
    pub ops: *const verbs_device_ops,
    pub refcount: c_int,
    pub entry: list_node,
    pub sysfs: *mut verbs_sysfs_dev,
    pub core_support: u64,
}

/// An untyped provider op (cast to its prototype where called).
pub type AnyOp = Option<unsafe extern "C" fn()>;

macro_rules! context_ops {
    ($($n:ident),* $(,)?) => {
        /// `struct verbs_context_ops`: a provider's verbs, sorted by name, NULL where it has none.
        #[repr(C)]
        #[derive(Clone, Copy)]
        pub struct verbs_context_ops {
            $(pub $n: AnyOp,)*
        }

        /// The members of `verbs_context_ops`, in order.
        pub const VERBS_CONTEXT_OPS_NAMES: &[&str] = &[$(stringify!($n)),*];
    };
}

context_ops!(
    advise_mr,
    alloc_dm,
    alloc_mw,
    alloc_null_mr,
    alloc_parent_domain,
    alloc_pd,
    alloc_td,
    async_event,
    attach_counters_point_flow,
    attach_mcast,
    bind_mw,
    close_xrcd,
    cq_event,
    create_ah,
    create_counters,
    create_cq,
    create_cq_ex,
    create_flow,
    create_flow_action_esp,
    create_qp,
    create_qp_ex,
    create_rwq_ind_table,
    create_srq,
    create_srq_ex,
    create_wq,
    dealloc_mw,
    dealloc_pd,
    dealloc_td,
    dereg_mr,
    destroy_ah,
    destroy_counters,
    destroy_cq,
    destroy_flow,
    destroy_flow_action,
    destroy_qp,
    destroy_rwq_ind_table,
    destroy_srq,
    destroy_wq,
    detach_mcast,
    free_context,
    free_dm,
    get_srq_num,
    import_dm,
    import_mr,
    import_pd,
    modify_cq,
    modify_flow_action_esp,
    modify_qp,
    modify_qp_rate_limit,
    modify_srq,
    modify_wq,
    open_qp,
    open_xrcd,
    poll_cq,
    post_recv,
    post_send,
    post_srq_ops,
    post_srq_recv,
    query_device_ex,
    query_ece,
    query_port,
    query_qp,
    query_qp_data_in_order,
    query_rt_values,
    query_srq,
    read_counters,
    reg_dm_mr,
    reg_dmabuf_mr,
    reg_mr,
    req_notify_cq,
    rereg_mr,
    resize_cq,
    set_ece,
    unimport_dm,
    unimport_mr,
    unimport_pd,
);

const _: () = assert!(std::mem::size_of::<verbs_context_ops>() == 76 * 8);

// ---------------------------------------------------------------------------------------------------------------
// struct verbs_context as PABI 34 lays it out, and the slots PABI 65 put in front of it.
// ---------------------------------------------------------------------------------------------------------------

macro_rules! context_34 {
    ($($(#[$m:meta])* $n:ident: $t:ty),* $(,)?) => {
        /// `struct verbs_context` as rdma-core 44 and 56 lay it out (648 bytes, `context` at 320): the view of any
        /// context this library reaches its library slots through, computed from the `struct ibv_context *`
        /// (`context - 320`), never from a `struct verbs_context *` a plug-in passed. rdma-core 65 put six slots in
        /// front ([`verbs_context_head_65`]; our public `verbs_context` is 65's), so every slot here keeps its
        /// distance from `context` in every generation, and so does `priv`, where our state hangs.
        ///
        /// The ops are untyped here (the public struct has their prototypes); they are copied, not called.
        #[repr(C)]
        pub struct verbs_context_34 {
            $($(#[$m])* pub $n: $t,)*
        }

        /// The members of [`verbs_context_34`] that are op slots, in order (with the two placeholders).
        pub const VERBS_CONTEXT_34_OPS: &[&str] = &[$(stringify!($n)),*];
    };
}

context_34!(
    query_port: AnyOp,
    advise_mr: AnyOp,
    alloc_null_mr: AnyOp,
    read_counters: AnyOp,
    attach_counters_point_flow: AnyOp,
    create_counters: AnyOp,
    destroy_counters: AnyOp,
    reg_dm_mr: AnyOp,
    alloc_dm: AnyOp,
    free_dm: AnyOp,
    modify_flow_action_esp: AnyOp,
    destroy_flow_action: AnyOp,
    create_flow_action_esp: AnyOp,
    modify_qp_rate_limit: AnyOp,
    alloc_parent_domain: AnyOp,
    dealloc_td: AnyOp,
    alloc_td: AnyOp,
    modify_cq: AnyOp,
    post_srq_ops: AnyOp,
    destroy_rwq_ind_table: AnyOp,
    create_rwq_ind_table: AnyOp,
    destroy_wq: AnyOp,
    modify_wq: AnyOp,
    create_wq: AnyOp,
    query_rt_values: AnyOp,
    create_cq_ex: AnyOp,
    /// The library's private state (ours: the `object::Context`).
    r#priv: *mut c_void,
    query_device_ex: AnyOp,
    ibv_destroy_flow: AnyOp,
    ABI_placeholder2: AnyOp,
    ibv_create_flow: AnyOp,
    ABI_placeholder1: AnyOp,
    open_qp: AnyOp,
    create_qp_ex: AnyOp,
    get_srq_num: AnyOp,
    create_srq_ex: AnyOp,
    open_xrcd: AnyOp,
    close_xrcd: AnyOp,
    _ABI_placeholder3: u64,
    sz: usize,
    context: ibv_context,
);

/// The six slots rdma-core 65 put in front of `struct verbs_context` (its `context` is at 368), in order: present
/// only in the contexts of PABI-65 plug-ins and in ours, at `context - 368`.
#[repr(C)]
pub struct verbs_context_head_65 {
    pub free_buf: AnyOp,
    pub alloc_buf: AnyOp,
    pub dm_export_dmabuf_fd: AnyOp,
    pub reg_mr_ex: AnyOp,
    pub dealloc_dmah: AnyOp,
    pub alloc_dmah: AnyOp,
}

/// Where `context` is in a PABI-34 `struct verbs_context`, and in a PABI-65 one.
pub const CONTEXT_OFFSET_34: usize = offset_of!(verbs_context_34, context);
pub const CONTEXT_OFFSET_65: usize = CONTEXT_OFFSET_34 + size_of::<verbs_context_head_65>();

/// The PABI-34 view of the `verbs_context` whose `context` is at `ctx` (the address arithmetic only).
pub fn view_34(ctx: *mut ibv_context) -> *mut verbs_context_34 {
    ctx.cast::<u8>().wrapping_sub(CONTEXT_OFFSET_34).cast()
}

/// The six PABI-65 slots of the `verbs_context` whose `context` is at `ctx`; only a context of PABI 65 (or one of
/// ours) has them.
pub fn head_65(ctx: *mut ibv_context) -> *mut verbs_context_head_65 {
    ctx.cast::<u8>().wrapping_sub(CONTEXT_OFFSET_65).cast()
}

/// The public `verbs_context` (rdma-core 65's) is the six PABI-65 slots, then PABI 34's: every member of the view
/// is at the same distance from `context` as the member of that name in the public struct.
macro_rules! same_distance {
    ($($n:ident),*) => {
        const _: () = {
            $( assert!(offset_of!(verbs_context, context) - offset_of!(verbs_context, $n)
                == CONTEXT_OFFSET_34 - offset_of!(verbs_context_34, $n)); )*
            assert!(offset_of!(verbs_context, context) == CONTEXT_OFFSET_65);
            assert!(size_of::<verbs_context_34>() == 648 && CONTEXT_OFFSET_34 == 320);
        };
    };
}
same_distance!(
    query_port,
    advise_mr,
    alloc_null_mr,
    read_counters,
    attach_counters_point_flow,
    create_counters,
    destroy_counters,
    reg_dm_mr,
    alloc_dm,
    free_dm,
    modify_flow_action_esp,
    destroy_flow_action,
    create_flow_action_esp,
    modify_qp_rate_limit,
    alloc_parent_domain,
    dealloc_td,
    alloc_td,
    modify_cq,
    post_srq_ops,
    destroy_rwq_ind_table,
    create_rwq_ind_table,
    destroy_wq,
    modify_wq,
    create_wq,
    query_rt_values,
    create_cq_ex,
    r#priv,
    query_device_ex,
    ibv_destroy_flow,
    ABI_placeholder2,
    ibv_create_flow,
    ABI_placeholder1,
    open_qp,
    create_qp_ex,
    get_srq_num,
    create_srq_ex,
    open_xrcd,
    close_xrcd,
    _ABI_placeholder3,
    sz,
    context
);
const _: () = assert!(std::mem::offset_of!(verbs_device, ops) == std::mem::size_of::<ibv_device>());

// ---------------------------------------------------------------------------------------------------------------
// The provider object structs the ibv_cmd_* fill, and the ioctl command buffer.
// ---------------------------------------------------------------------------------------------------------------

/// `struct verbs_xrcd`: `comp_mask` has `VERBS_XRCD_HANDLE` when `handle` is valid.
#[repr(C)]
pub struct verbs_xrcd {
    pub xrcd: ibv_xrcd,
    pub comp_mask: u32,
    pub handle: u32,
}

/// `struct verbs_srq`.
#[repr(C)]
pub struct verbs_srq {
    pub srq: ibv_srq,
    /// `enum ibv_srq_type`.
    pub srq_type: u32,
    pub xrcd: *mut verbs_xrcd,
    pub cq: *mut ibv_cq,
    pub srq_num: u32,
}

/// `struct verbs_qp`, opaque: its layout depends on the plug-in's generation ([`r44::verbs_qp`],
/// [`r56::verbs_qp`]; reached through [`Generation::qp_comp_mask_ptr`] and [`Generation::qp_xrcd_ptr`]). It begins
/// with the `struct ibv_qp` in every generation.
#[repr(C)]
pub struct verbs_qp {
    _opaque: [u8; 0],
}

/// `struct verbs_cq`: the union of `ibv_cq` and `ibv_cq_ex` (which starts with the `ibv_cq` fields).
#[repr(C)]
pub struct verbs_cq {
    pub cq_ex: ibv_cq_ex,
}

/// `struct verbs_mr`.
#[repr(C)]
pub struct verbs_mr {
    pub ibv_mr: ibv_mr,
    /// `enum ibv_mr_type`.
    pub mr_type: u32,
    pub access: c_int,
}

/// `struct verbs_flow_action`.
#[repr(C)]
pub struct verbs_flow_action {
    pub action: ibv_flow_action,
    pub handle: u32,
    /// `enum ibv_flow_action_type`.
    pub r#type: u32,
}

/// `struct verbs_dm`.
#[repr(C)]
pub struct verbs_dm {
    pub dm: ibv_dm,
    pub handle: u32,
}

/// `struct verbs_counters`.
#[repr(C)]
pub struct verbs_counters {
    pub counters: ibv_counters,
    pub handle: u32,
}

/// `struct ib_uverbs_ioctl_hdr` (rdma/rdma_user_ioctl_cmds.h), followed by its `attrs[]`.
#[repr(C)]
pub struct ib_uverbs_ioctl_hdr {
    pub length: u16,
    pub object_id: u16,
    pub method_id: u16,
    pub num_attrs: u16,
    pub reserved1: u64,
    pub driver_id: u32,
    pub reserved2: u32,
    pub attrs: [ib_uverbs_attr; 0],
}

/// libibverbs' `struct ibv_command_buffer` (cmd_ioctl.h): one block of ioctl attributes, linked to the
/// blocks of the callers below it (`next`); `next_attr` is the first unfilled slot of `hdr.attrs`.
#[repr(C)]
pub struct ibv_command_buffer {
    pub next: *mut ibv_command_buffer,
    pub next_attr: *mut ib_uverbs_attr,
    pub last_attr: *mut ib_uverbs_attr,
    pub uhw_in_idx: u8,
    pub uhw_out_idx: u8,
    pub uhw_in_headroom_dwords: u8,
    pub uhw_out_headroom_dwords: u8,
    /// Bit fields: `buffer_error:1, fallback_require_ex:1, fallback_ioctl_only:1`.
    pub flags: u8,
    pub hdr: ib_uverbs_ioctl_hdr,
}

/// `ibv_command_buffer.flags`: a fill function was given what the ABI cannot carry.
pub const BUFFER_ERROR: u8 = 1 << 0;
/// `_UHW_NO_INDEX`.
pub const UHW_NO_INDEX: u8 = 0xff;

/// `VERBS_XRCD_HANDLE`, `VERBS_QP_XRCD`.
pub const VERBS_XRCD_HANDLE: u32 = 1 << 0;
pub const VERBS_QP_XRCD: u32 = 1 << 0;
/// `VERBS_QP_EX`: the QP was created through the extended op and has an `ibv_qp_ex` (`ibv_qp_to_qp_ex(3)`).
pub const VERBS_QP_EX: u32 = 1 << 1;
/// `enum ibv_mr_type`.
pub const IBV_MR_TYPE_MR: u32 = 0;
pub const IBV_MR_TYPE_IMPORTED_MR: u32 = 2;
pub const IBV_MR_TYPE_DMABUF_MR: u32 = 3;
/// `IBV_FLOW_ACTION_ESP`.
pub const IBV_FLOW_ACTION_ESP: u32 = 1;
/// `CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX`.
pub const CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX: u32 = 1 << 0;

const _: () = {
    assert!(size_of::<ib_uverbs_attr>() == 16);
    assert!(size_of::<ib_uverbs_ioctl_hdr>() == 24);
    assert!(offset_of!(ibv_command_buffer, hdr) == 32);
    assert!(size_of::<ibv_command_buffer>() == 56);
    assert!(size_of::<verbs_xrcd>() == 16);
    assert!(size_of::<verbs_mr>() == size_of::<ibv_mr>() + 8);
    assert!(offset_of!(verbs_srq, srq_type) == size_of::<ibv_srq>());
    assert!(offset_of!(verbs_flow_action, handle) == 8 && size_of::<verbs_flow_action>() == 16);
    assert!(offset_of!(verbs_dm, handle) == size_of::<ibv_dm>());
    assert!(offset_of!(verbs_counters, handle) == 8);
};

// ---------------------------------------------------------------------------------------------------------------
// kern-abi.h: the write() commands the ibv_cmd_* take.
// ---------------------------------------------------------------------------------------------------------------

/// `struct ex_hdr`: the header of an extended write() command.
#[repr(C)]
pub struct ex_hdr {
    pub hdr: ib_uverbs_cmd_hdr,
    pub ex_hdr: ib_uverbs_ex_cmd_hdr,
}

macro_rules! commands {
    ($($name:ident = $hdr:ty, $core:ty;)*) => {$(
        #[doc = concat!("`struct ", stringify!($name), "` (kern-abi.h): the write() header, then `struct ",
                        stringify!($core), "`; the provider's driver data follows.")]
        #[repr(C)]
        pub struct $name {
            pub hdr: $hdr,
            pub core: $core,
        }
    )*};
}

commands! {
    ibv_get_context = ib_uverbs_cmd_hdr, ib_uverbs_get_context;
    ibv_query_port = ib_uverbs_cmd_hdr, ib_uverbs_query_port;
    ibv_alloc_pd = ib_uverbs_cmd_hdr, ib_uverbs_alloc_pd;
    ibv_open_xrcd = ib_uverbs_cmd_hdr, ib_uverbs_open_xrcd;
    ibv_reg_mr = ib_uverbs_cmd_hdr, ib_uverbs_reg_mr;
    ibv_rereg_mr = ib_uverbs_cmd_hdr, ib_uverbs_rereg_mr;
    ibv_alloc_mw = ib_uverbs_cmd_hdr, ib_uverbs_alloc_mw;
    ibv_create_cq = ib_uverbs_cmd_hdr, ib_uverbs_create_cq;
    ibv_create_cq_ex = ex_hdr, ib_uverbs_ex_create_cq;
    ibv_resize_cq = ib_uverbs_cmd_hdr, ib_uverbs_resize_cq;
    ibv_modify_cq = ex_hdr, ib_uverbs_ex_modify_cq;
    ibv_create_srq = ib_uverbs_cmd_hdr, ib_uverbs_create_srq;
    ibv_create_xsrq = ib_uverbs_cmd_hdr, ib_uverbs_create_xsrq;
    ibv_modify_srq = ib_uverbs_cmd_hdr, ib_uverbs_modify_srq;
    ibv_query_srq = ib_uverbs_cmd_hdr, ib_uverbs_query_srq;
    ibv_create_qp = ib_uverbs_cmd_hdr, ib_uverbs_create_qp;
    ibv_create_qp_ex = ex_hdr, ib_uverbs_ex_create_qp;
    ibv_open_qp = ib_uverbs_cmd_hdr, ib_uverbs_open_qp;
    ibv_query_qp = ib_uverbs_cmd_hdr, ib_uverbs_query_qp;
    ibv_modify_qp = ib_uverbs_cmd_hdr, ib_uverbs_modify_qp;
    ibv_modify_qp_ex = ex_hdr, ib_uverbs_ex_modify_qp;
    ibv_create_wq = ex_hdr, ib_uverbs_ex_create_wq;
    ibv_modify_wq = ex_hdr, ib_uverbs_ex_modify_wq;
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::collections::HashMap;

    const TABLE_44: &str = include_str!("../../../../tests/layout/private/rdma-core-44.tsv");
    const TABLE_56: &str = include_str!("../../../../tests/layout/private/rdma-core-56.tsv");
    const TABLE_65: &str = include_str!("../../../../tests/layout/private/rdma-core-65.tsv");

    /// (offset, size) of a member of our definition, by the C names of the table.
    macro_rules! member {
        ($t:ty, $f:ident) => {{
            fn size_of_field<T, F>(_: impl Fn(&T) -> &F) -> usize {
                size_of::<F>()
            }
            (offset_of!($t, $f), size_of_field(|x: &$t| &x.$f))
        }};
    }

    type Facts = HashMap<(&'static str, &'static str), (usize, usize)>;

    /// Our definitions of the structs every generation shares.
    fn shared() -> Facts {
        let mut m = HashMap::new();
        macro_rules! s {
            ($c:literal = $t:ty { $($cm:literal => $f:ident),* $(,)? }) => {
                m.insert(($c, "-"), (0, size_of::<$t>()));
                $( m.insert(($c, $cm), member!($t, $f)); )*
            };
        }
        s!("verbs_match_ent" = verbs_match_ent { "driver_data" => driver_data, "u" => u, "vendor" => vendor,
            "device" => device, "kind" => kind });
        s!("verbs_sysfs_dev" = verbs_sysfs_dev { "entry" => entry, "provider_data" => provider_data,
            "match" => r#match, "flags" => flags, "sysfs_name" => sysfs_name, "sysfs_cdev" => sysfs_cdev,
            "ibdev_name" => ibdev_name, "ibdev_path" => ibdev_path, "modalias" => modalias, "node_guid" => node_guid,
            "driver_id" => driver_id, "node_type" => node_type, "ibdev_idx" => ibdev_idx, "num_ports" => num_ports,
            "abi_ver" => abi_ver, "time_created" => time_created });
        s!("verbs_device_ops" = verbs_device_ops { "name" => name, "match_min_abi_version" => match_min_abi_version,
            "match_max_abi_version" => match_max_abi_version, "match_table" => match_table,
            "static_providers" => static_providers, "match_device" => match_device,
            "alloc_context" => alloc_context, "import_context" => import_context, "alloc_device" => alloc_device,
            "uninit_device" => uninit_device });
        s!("verbs_device" = verbs_device { "device" => device, "ops" => ops, "refcount" => refcount,
            "entry" => entry, "sysfs" => sysfs, "core_support" => core_support });
        s!("verbs_xrcd" = verbs_xrcd { "xrcd" => xrcd, "comp_mask" => comp_mask, "handle" => handle });
        s!("verbs_srq" = verbs_srq { "srq" => srq, "srq_type" => srq_type, "xrcd" => xrcd, "cq" => cq,
            "srq_num" => srq_num });
        s!("verbs_mr" = verbs_mr { "ibv_mr" => ibv_mr, "mr_type" => mr_type, "access" => access });
        // The union of driver.h: `cq` is the first field of `cq_ex`.
        s!("verbs_cq" = verbs_cq { "cq_ex" => cq_ex });
        m.insert(("verbs_cq", "cq"), (offset_of!(verbs_cq, cq_ex), size_of::<ibv_cq>()));
        s!("verbs_flow_action" = verbs_flow_action { "action" => action, "handle" => handle, "type" => r#type });
        s!("verbs_dm" = verbs_dm { "dm" => dm, "handle" => handle });
        s!("verbs_counters" = verbs_counters { "counters" => counters, "handle" => handle });
        s!("ibv_command_buffer" = ibv_command_buffer { "next" => next, "next_attr" => next_attr,
            "last_attr" => last_attr, "uhw_in_idx" => uhw_in_idx, "uhw_out_idx" => uhw_out_idx,
            "uhw_in_headroom_dwords" => uhw_in_headroom_dwords, "uhw_out_headroom_dwords" => uhw_out_headroom_dwords,
            "hdr" => hdr });
        s!("ex_hdr" = ex_hdr { "hdr" => hdr, "ex_hdr" => ex_hdr });
        macro_rules! cmds { ($($c:ident)*) => { $( m.insert((stringify!($c), "-"), (0, size_of::<$c>())); )* }; }
        cmds!(ibv_get_context ibv_query_port ibv_alloc_pd ibv_open_xrcd ibv_reg_mr ibv_rereg_mr ibv_alloc_mw
            ibv_create_cq ibv_create_cq_ex ibv_resize_cq ibv_modify_cq ibv_create_srq ibv_create_xsrq ibv_modify_srq
            ibv_query_srq ibv_create_qp ibv_create_qp_ex ibv_open_qp ibv_query_qp ibv_modify_qp ibv_modify_qp_ex
            ibv_create_wq ibv_modify_wq);
        m.insert(("verbs_context_ops", "-"), (0, size_of::<verbs_context_ops>()));
        m
    }

    /// The `verbs_qp` rows of a generation's definition `$t` (`qp` and `qp_ex` are the members of its union).
    macro_rules! verbs_qp_rows {
        ($m:expr, $t:ty, $qp_ex:expr) => {
            $m.insert(("verbs_qp", "-"), (0, size_of::<$t>()));
            $m.insert(("verbs_qp", "qp"), member!($t, qp));
            $m.insert(("verbs_qp", "qp_ex"), (0, $qp_ex));
            $m.insert(("verbs_qp", "comp_mask"), member!($t, comp_mask));
            $m.insert(("verbs_qp", "xrcd"), member!($t, xrcd));
        };
    }

    /// The rows of `verbs_context` (verbs.h, the struct the core fills inside a plug-in's allocation): the members
    /// `$f` of `$t`, and `priv`.
    macro_rules! verbs_context_rows {
        ($m:expr, $t:ty; $($f:ident),*) => {
            $m.insert(("verbs_context", "-"), (0, size_of::<$t>()));
            $( $m.insert(("verbs_context", stringify!($f)), member!($t, $f)); )*
            $m.insert(("verbs_context", "priv"), member!($t, r#priv));
        };
    }

    /// `verbs_context_rows!` with PABI 34's members (then `$extra`).
    macro_rules! verbs_context_34_rows {
        ($m:expr, $t:ty $(, $extra:ident)*) => {
            verbs_context_rows!($m, $t; $($extra,)* query_port, advise_mr, alloc_null_mr, read_counters,
                attach_counters_point_flow, create_counters, destroy_counters, reg_dm_mr, alloc_dm, free_dm,
                modify_flow_action_esp, destroy_flow_action, create_flow_action_esp, modify_qp_rate_limit,
                alloc_parent_domain, dealloc_td, alloc_td, modify_cq, post_srq_ops, destroy_rwq_ind_table,
                create_rwq_ind_table, destroy_wq, modify_wq, create_wq, query_rt_values, create_cq_ex, query_device_ex,
                ibv_destroy_flow, ABI_placeholder2, ibv_create_flow, ABI_placeholder1, open_qp, create_qp_ex,
                get_srq_num, create_srq_ex, open_xrcd, close_xrcd, _ABI_placeholder3, sz, context)
        };
    }

    /// Our definitions for one generation.
    fn ours(g: Generation) -> Facts {
        let mut m = shared();
        match g {
            Generation::R44 => {
                verbs_qp_rows!(m, r44::verbs_qp, r44::QP_EX_SIZE);
                m.insert(("ibv_qp_ex", "-"), (0, r44::QP_EX_SIZE));
            }
            Generation::R56 | Generation::R65 => {
                verbs_qp_rows!(m, r56::verbs_qp, r56::QP_EX_SIZE);
                m.insert(("ibv_qp_ex", "-"), (0, r56::QP_EX_SIZE));
            }
        }
        m.insert(("ibv_port_attr", "-"), (0, g.port_attr_size()));
        match g {
            Generation::R44 | Generation::R56 => {
                verbs_context_34_rows!(m, verbs_context_34);
            }
            Generation::R65 => {
                verbs_context_34_rows!(
                    m,
                    verbs_context,
                    free_buf,
                    alloc_buf,
                    dm_export_dmabuf_fd,
                    reg_mr_ex,
                    dealloc_dmah,
                    alloc_dmah
                );
                m.insert(("verbs_context_ops", "-"), (0, size_of::<r65::verbs_context_ops>()));
                m.insert(("verbs_create_cq_prov_attr", "-"), (0, size_of::<r65::verbs_create_cq_prov_attr>()));
                m.insert(("verbs_create_cq_prov_attr", "buffer"), member!(r65::verbs_create_cq_prov_attr, buffer));
                m.insert(("verbs_dmah", "-"), (0, size_of::<r65::verbs_dmah>()));
                m.insert(("verbs_dmah", "dmah"), member!(r65::verbs_dmah, dmah));
                m.insert(("verbs_dmah", "handle"), member!(r65::verbs_dmah, handle));
                m.insert(("ibv_fd_arr", "-"), (0, size_of::<r65::ibv_fd_arr>()));
                m.insert(("ibv_fd_arr", "arr"), member!(r65::ibv_fd_arr, arr));
                m.insert(("ibv_fd_arr", "count"), member!(r65::ibv_fd_arr, count));
                m.insert(("ibv_buf", "-"), (0, size_of::<r65::ibv_buf>()));
                m.insert(("ibv_buf", "addr"), member!(r65::ibv_buf, addr));
                m.insert(("ibv_buf", "size"), member!(r65::ibv_buf, size));
                m.insert(("ibv_buf", "pd"), member!(r65::ibv_buf, pd));
                m.insert(("ibv_buf", "dmabuf_fd"), member!(r65::ibv_buf, dmabuf_fd));
            }
        }
        m
    }

    /// Checks every row of `table` against generation `g`'s definitions and `ops` (the member names of its
    /// `verbs_context_ops`, in order).
    fn check(g: Generation, table: &str, ops: &[&str]) {
        let ours = ours(g);
        let (mut checked, mut bad) = (0, Vec::new());
        let mut ops_seen = 0;
        for line in table.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 4, "malformed row {line:?}");
            let (off, size): (usize, usize) = (f[2].parse().unwrap(), f[3].parse().unwrap());
            let got = if f[0] == "verbs_context_ops" && f[1] != "-" {
                let i = ops.iter().position(|n| *n == f[1]);
                ops_seen += 1;
                i.map(|i| (i * 8, 8))
            } else {
                ours.get(&(f[0], f[1])).copied()
            };
            checked += 1;
            match got {
                None => bad.push(format!("{}.{}: in the table, not in our definitions", f[0], f[1])),
                Some(o) if o != (off, size) => {
                    bad.push(format!("{}.{}: {g} at {off} size {size}, ours at {} size {}", f[0], f[1], o.0, o.1))
                }
                Some(_) => {}
            }
        }
        assert_eq!(ops_seen, ops.len(), "verbs_context_ops member count");
        println!("private layout: {checked} facts checked against {g}, {} differences", bad.len());
        assert!(checked > 150, "the table is too small: {checked} rows");
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    #[test]
    fn matches_rdma_core_44() {
        check(Generation::R44, TABLE_44, VERBS_CONTEXT_OPS_NAMES);
    }

    #[test]
    fn matches_rdma_core_56() {
        check(Generation::R56, TABLE_56, VERBS_CONTEXT_OPS_NAMES);
    }

    #[test]
    fn matches_rdma_core_65() {
        check(Generation::R65, TABLE_65, r65::VERBS_CONTEXT_OPS_NAMES);
    }

    #[test]
    fn generations_differ_where_the_tables_do() {
        assert_eq!((Generation::R44.verbs_qp_comp_mask(), Generation::R44.verbs_qp_xrcd()), (352, 360));
        assert_eq!((Generation::R56.verbs_qp_comp_mask(), Generation::R56.verbs_qp_xrcd()), (360, 368));
        assert_eq!((Generation::R65.verbs_qp_comp_mask(), Generation::R65.verbs_qp_xrcd()), (360, 368));
        assert_eq!(Generation::ALL.map(Generation::port_attr_size), [52, 56, 56]);
        assert_eq!(Generation::ALL.map(Generation::pabi), [34, 34, 65]);
    }
}
