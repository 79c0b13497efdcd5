//! The ops tables of a context: `ibv_context.ops` and the extended ops of `struct verbs_context`, which the
//! header's static inlines call directly (`ibv_create_cq_ex(3)`, `ibv_create_qp_ex(3)`, `ibv_query_device_ex(3)`,
//! `ibv_query_port(3)`, `ibv_open_xrcd(3)`, ...).
//!
//! As rdma-core (`verbs_set_ops` over `verbs_dummy_ops`, then `set_lib_ops`), every slot is filled: with our
//! implementation where the provider implements the verb, otherwise with a "dummy" answering exactly as rdma-core's
//! does (`EOPNOTSUPP` returned, or NULL with `errno = EOPNOTSUPP`). An application therefore sees the same
//! `verbs_get_ctx_op` results and the same errors as with rdma-core on the same device.
//!
//! Ops whose C prototype takes an enum by value are implemented with the integer type and cast to the table's
//! pointer type, so that an out-of-range number from C never becomes an invalid Rust enum.
#![allow(unsafe_code, clippy::missing_safety_doc)]

use crate::provider::Provider;
use rdma_common::abi::driver::{verbs_context_34, verbs_context_head_65, AnyOp};
use rdma_common::abi::verbs::*;
use rdma_common::ffi::CPtrResult;
use rdma_common::Errno;
use std::ffi::{c_int, c_uint};
use std::ptr::null_mut;

/// Fills every op of `v` (including `context.ops`) for a context of `provider`.
pub(crate) fn install(v: &mut verbs_context, provider: &'static dyn Provider) {
    provider.data_path().install(&mut v.context.ops);
    let ops = &mut v.context.ops;
    // SAFETY (the transmutes): same ABI, the enum argument taken as its integer type.
    unsafe {
        ops.alloc_mw = Some(std::mem::transmute::<
            unsafe extern "C" fn(*mut ibv_pd, c_uint) -> *mut ibv_mw,
            unsafe extern "C" fn(*mut ibv_pd, ibv_mw_type) -> *mut ibv_mw,
        >(super::mr::alloc_mw_op));
    }
    ops.dealloc_mw = Some(super::mr::dealloc_mw_op);
    // rdma-core's set_lib_ops: the compat slots point at the exported symbols.
    ops._compat_query_device = Some(super::context::ibv_query_device);
    ops._compat_query_port = Some(super::context::ibv_query_port);

    v.query_port = Some(super::context::lib_query_port);
    // SAFETY: as above.
    v.advise_mr = Some(unsafe {
        std::mem::transmute::<
            unsafe extern "C" fn(*mut ibv_pd, c_uint, u32, *mut ibv_sge, u32) -> c_int,
            unsafe extern "C" fn(*mut ibv_pd, ibv_advise_mr_advice, u32, *mut ibv_sge, u32) -> c_int,
        >(dummy_advise_mr)
    });
    v.alloc_null_mr = Some(dummy_alloc_null_mr);
    v.read_counters = Some(dummy_read_counters);
    v.attach_counters_point_flow = Some(dummy_attach_counters_point_flow);
    v.create_counters = Some(dummy_create_counters);
    v.destroy_counters = Some(dummy_destroy_counters);
    v.reg_dm_mr = Some(dummy_reg_dm_mr);
    v.alloc_dm = Some(dummy_alloc_dm);
    v.free_dm = Some(dummy_free_dm);
    v.modify_flow_action_esp = Some(dummy_modify_flow_action_esp);
    v.destroy_flow_action = Some(dummy_destroy_flow_action);
    v.create_flow_action_esp = Some(dummy_create_flow_action_esp);
    v.modify_qp_rate_limit = Some(dummy_modify_qp_rate_limit);
    v.alloc_parent_domain = Some(dummy_alloc_parent_domain);
    v.dealloc_td = Some(dummy_dealloc_td);
    v.alloc_td = Some(dummy_alloc_td);
    v.modify_cq = Some(super::cq::modify_cq_op);
    v.post_srq_ops = Some(dummy_post_srq_ops);
    v.destroy_rwq_ind_table = Some(dummy_destroy_rwq_ind_table);
    v.create_rwq_ind_table = Some(dummy_create_rwq_ind_table);
    v.destroy_wq = Some(dummy_destroy_wq);
    v.modify_wq = Some(dummy_modify_wq);
    v.create_wq = Some(dummy_create_wq);
    v.query_rt_values = Some(dummy_query_rt_values);
    v.create_cq_ex = Some(super::cq::create_cq_ex_op);
    v.r#priv = null_mut();
    v.query_device_ex = Some(super::context::query_device_ex_op);
    v.ibv_destroy_flow = Some(dummy_destroy_flow);
    v.ibv_create_flow = Some(dummy_create_flow);
    // rdma-core's set_lib_ops: apps built against libibverbs 1.1.8 look for the flow ops in the placeholders.
    // SAFETY: the placeholders are untyped function pointers; callers cast them back to the flow ops' types.
    unsafe {
        v.ABI_placeholder1 = Some(std::mem::transmute::<
            unsafe extern "C" fn(*mut ibv_qp, *mut ibv_flow_attr) -> *mut ibv_flow,
            unsafe extern "C" fn(),
        >(dummy_create_flow));
        v.ABI_placeholder2 = Some(std::mem::transmute::<
            unsafe extern "C" fn(*mut ibv_flow) -> c_int,
            unsafe extern "C" fn(),
        >(dummy_destroy_flow));
    }
    v.open_qp = Some(dummy_open_qp);
    v.create_qp_ex = Some(super::qp::create_qp_ex_op);
    v.get_srq_num = Some(super::srq::get_srq_num_op);
    v.create_srq_ex = Some(super::srq::create_srq_ex_op);
    v.open_xrcd = Some(dummy_open_xrcd);
    v.close_xrcd = Some(dummy_close_xrcd);
}

/// A typed op slot as an untyped one (the PABI-34 view of a context keeps its slots untyped).
fn any<F: Copy>(f: Option<F>) -> AnyOp {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<unsafe extern "C" fn()>()) };
    // SAFETY: F is a function pointer type of the same size.
    f.map(|f| unsafe { std::mem::transmute_copy::<F, unsafe extern "C" fn()>(&f) })
}

/// rdma-core's `set_lib_ops`, on the PABI-34 view of any context (ours, or one a plug-in assembled itself after
/// its `alloc_context`; the view's slots exist in every generation): the library's own functions in the slots it
/// wraps (the extended create ops, which must register the objects and fill their generic fields; `query_port`,
/// `query_device_ex`; `alloc_mw`/`dealloc_mw`; the compat slots), and the dummies wherever the provider left a
/// slot empty.
pub(crate) fn set_lib_ops(v: &mut verbs_context_34, provider: &'static dyn Provider) {
    // SAFETY: an all-zero verbs_context is valid (pointers, integers, a pthread mutex).
    let mut t: verbs_context = unsafe { std::mem::zeroed() };
    install(&mut t, provider);
    macro_rules! fill {
        ($($n:ident),*) => { $( if v.$n.is_none() { v.$n = any(t.$n); } )* };
    }
    fill!(
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
        ibv_destroy_flow,
        ibv_create_flow,
        open_qp,
        get_srq_num,
        open_xrcd,
        close_xrcd
    );
    v.query_port = any(t.query_port);
    v.query_device_ex = any(t.query_device_ex);
    v.create_cq_ex = any(t.create_cq_ex);
    v.create_qp_ex = any(t.create_qp_ex);
    v.create_srq_ex = any(t.create_srq_ex);
    let (o, to) = (&mut v.context.ops, &t.context.ops);
    o.alloc_mw = to.alloc_mw;
    o.dealloc_mw = to.dealloc_mw;
    o._compat_query_device = to._compat_query_device;
    o._compat_query_port = to._compat_query_port;
    macro_rules! fill_ops {
        ($($n:ident),*) => { $( if o.$n.is_none() { o.$n = to.$n; } )* };
    }
    fill_ops!(bind_mw, poll_cq, post_recv, post_send, post_srq_recv, req_notify_cq);
    // As in `install`: the placeholders hold the flow ops (untyped in the view too).
    v.ABI_placeholder1 = v.ibv_create_flow;
    v.ABI_placeholder2 = v.ibv_destroy_flow;
}

/// The six slots rdma-core 65 put in front of `struct verbs_context`, in a context that has them (ours, or a
/// PABI-65 plug-in's): the library's own entry points (`ibv_alloc_buf`, `ibv_free_buf`, `ibv_reg_mr_ex`,
/// `ibv_alloc_dmah`, `ibv_dealloc_dmah`, `ibv_dm_export_dmabuf_fd`), which reach the provider's op or rdma-core 65's
/// default and keep the registry, as the other library slots do.
pub(crate) fn set_lib_ops_65(h: &mut verbs_context_head_65) {
    h.alloc_buf = any(Some(super::buf::ibv_alloc_buf as unsafe extern "C" fn(_, _, _) -> _));
    h.free_buf = any(Some(super::buf::ibv_free_buf as unsafe extern "C" fn(_)));
    h.reg_mr_ex = any(Some(super::buf::ibv_reg_mr_ex as unsafe extern "C" fn(_, _) -> _));
    h.alloc_dmah = any(Some(super::dmah::ibv_alloc_dmah as unsafe extern "C" fn(_, _) -> _));
    h.dealloc_dmah = any(Some(super::dmah::ibv_dealloc_dmah as unsafe extern "C" fn(_) -> _));
    h.dm_export_dmabuf_fd = any(Some(super::dm::ibv_dm_export_dmabuf_fd as unsafe extern "C" fn(_) -> _));
}

// ---------------------------------------------------------------------------------------------------------------
// rdma-core's dummy ops (`libibverbs/dummy_ops.c`): what a verb the provider lacks answers. Logged at debug level.
// ---------------------------------------------------------------------------------------------------------------

#[cold]
fn dummy(what: &'static str) -> Errno {
    log::debug!("{what}: not supported by this device's provider; EOPNOTSUPP (as rdma-core)");
    Errno::EOPNOTSUPP
}

#[cold]
fn dummy_null<T>(what: &'static str) -> *mut T {
    Err::<*mut T, Errno>(dummy(what)).or_null_errno()
}

unsafe extern "C" fn dummy_advise_mr(_: *mut ibv_pd, _: c_uint, _: u32, _: *mut ibv_sge, _: u32) -> c_int {
    dummy("ibv_advise_mr").0
}
unsafe extern "C" fn dummy_alloc_null_mr(_: *mut ibv_pd) -> *mut ibv_mr {
    dummy_null("ibv_alloc_null_mr")
}
unsafe extern "C" fn dummy_read_counters(_: *mut ibv_counters, _: *mut u64, _: u32, _: u32) -> c_int {
    dummy("ibv_read_counters").0
}
unsafe extern "C" fn dummy_attach_counters_point_flow(
    _: *mut ibv_counters,
    _: *mut ibv_counter_attach_attr,
    _: *mut ibv_flow,
) -> c_int {
    dummy("ibv_attach_counters_point_flow").0
}
unsafe extern "C" fn dummy_create_counters(_: *mut ibv_context, _: *mut ibv_counters_init_attr) -> *mut ibv_counters {
    dummy_null("ibv_create_counters")
}
unsafe extern "C" fn dummy_destroy_counters(_: *mut ibv_counters) -> c_int {
    dummy("ibv_destroy_counters").0
}
unsafe extern "C" fn dummy_reg_dm_mr(_: *mut ibv_pd, _: *mut ibv_dm, _: u64, _: usize, _: c_uint) -> *mut ibv_mr {
    dummy_null("ibv_reg_dm_mr")
}
unsafe extern "C" fn dummy_alloc_dm(_: *mut ibv_context, _: *mut ibv_alloc_dm_attr) -> *mut ibv_dm {
    dummy_null("ibv_alloc_dm")
}
unsafe extern "C" fn dummy_free_dm(_: *mut ibv_dm) -> c_int {
    dummy("ibv_free_dm").0
}
unsafe extern "C" fn dummy_modify_flow_action_esp(_: *mut ibv_flow_action, _: *mut ibv_flow_action_esp_attr) -> c_int {
    dummy("ibv_modify_flow_action_esp").0
}
unsafe extern "C" fn dummy_destroy_flow_action(_: *mut ibv_flow_action) -> c_int {
    dummy("ibv_destroy_flow_action").0
}
unsafe extern "C" fn dummy_create_flow_action_esp(
    _: *mut ibv_context,
    _: *mut ibv_flow_action_esp_attr,
) -> *mut ibv_flow_action {
    dummy_null("ibv_create_flow_action_esp")
}
unsafe extern "C" fn dummy_modify_qp_rate_limit(_: *mut ibv_qp, _: *mut ibv_qp_rate_limit_attr) -> c_int {
    dummy("ibv_modify_qp_rate_limit").0
}
unsafe extern "C" fn dummy_alloc_parent_domain(
    _: *mut ibv_context,
    _: *mut ibv_parent_domain_init_attr,
) -> *mut ibv_pd {
    dummy_null("ibv_alloc_parent_domain")
}
unsafe extern "C" fn dummy_dealloc_td(_: *mut ibv_td) -> c_int {
    dummy("ibv_dealloc_td").0
}
unsafe extern "C" fn dummy_alloc_td(_: *mut ibv_context, _: *mut ibv_td_init_attr) -> *mut ibv_td {
    dummy_null("ibv_alloc_td")
}
/// rdma-core's dummy leaves `*bad_op` alone (the inline sets it only when the op is missing).
unsafe extern "C" fn dummy_post_srq_ops(_: *mut ibv_srq, _: *mut ibv_ops_wr, _: *mut *mut ibv_ops_wr) -> c_int {
    dummy("ibv_post_srq_ops").0
}
unsafe extern "C" fn dummy_destroy_rwq_ind_table(_: *mut ibv_rwq_ind_table) -> c_int {
    dummy("ibv_destroy_rwq_ind_table").0
}
unsafe extern "C" fn dummy_create_rwq_ind_table(
    _: *mut ibv_context,
    _: *mut ibv_rwq_ind_table_init_attr,
) -> *mut ibv_rwq_ind_table {
    dummy_null("ibv_create_rwq_ind_table")
}
unsafe extern "C" fn dummy_destroy_wq(_: *mut ibv_wq) -> c_int {
    dummy("ibv_destroy_wq").0
}
unsafe extern "C" fn dummy_modify_wq(_: *mut ibv_wq, _: *mut ibv_wq_attr) -> c_int {
    dummy("ibv_modify_wq").0
}
unsafe extern "C" fn dummy_create_wq(_: *mut ibv_context, _: *mut ibv_wq_init_attr) -> *mut ibv_wq {
    dummy_null("ibv_create_wq")
}
unsafe extern "C" fn dummy_query_rt_values(_: *mut ibv_context, _: *mut ibv_values_ex) -> c_int {
    dummy("ibv_query_rt_values_ex").0
}
unsafe extern "C" fn dummy_destroy_flow(_: *mut ibv_flow) -> c_int {
    dummy("ibv_destroy_flow").0
}
unsafe extern "C" fn dummy_create_flow(_: *mut ibv_qp, _: *mut ibv_flow_attr) -> *mut ibv_flow {
    dummy_null("ibv_create_flow")
}
unsafe extern "C" fn dummy_open_qp(_: *mut ibv_context, _: *mut ibv_qp_open_attr) -> *mut ibv_qp {
    dummy_null("ibv_open_qp")
}
/// XRC domains: rxe (and siw) have none; rdma-core's dummy answers.
unsafe extern "C" fn dummy_open_xrcd(_: *mut ibv_context, _: *mut ibv_xrcd_init_attr) -> *mut ibv_xrcd {
    dummy_null("ibv_open_xrcd")
}
unsafe extern "C" fn dummy_close_xrcd(_: *mut ibv_xrcd) -> c_int {
    dummy("ibv_close_xrcd").0
}
