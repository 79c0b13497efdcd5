//! The `ibv_*` entry points of `infiniband/verbs.h`, one file per object family.
//!
//! Every entry point follows the house shape (see `rdma_common::ffi`): check pointers first, run the body inside
//! `ffi::boundary`, and state the C return convention with one adapter. Entry points that are not implemented yet
//! call [`unsupported`], which logs once and yields `EOPNOTSUPP`.
//!
//! [`check_signatures!`] proves at compile time that each definition has exactly the prototype declared in
//! `rdma_common::abi::verbs` (which is what cbindgen writes into `include/infiniband/verbs.h`).
//!
//! # Safety
//! Every `unsafe extern "C"` function here is a C entry point: the caller passes what the prototype in
//! `verbs.h` (and its man page) promises, i.e. valid objects from this library and buffers of the stated sizes.
//! NULL object pointers are checked and answered with `EINVAL` (or ignored by the `void` functions).
#![allow(clippy::missing_safety_doc)]

pub mod ah;
pub mod async_event;
pub mod context;
pub mod cq;
pub mod device;
pub mod dm;
pub mod fork;
pub mod marshall;
pub mod mcast;
pub mod misc;
pub mod mr;
pub mod pd;
pub mod qp;
pub mod srq;
pub mod sysfs;

use rdma_common::Errno;

/// Logs once that `what` is not implemented and returns `EOPNOTSUPP`, the project's answer for it.
#[cold]
pub(crate) fn unsupported(what: &'static str) -> Errno {
    rdma_common::logging::init("libibverbs");
    rdma_common::logging::unsupported_once(what);
    Errno::EOPNOTSUPP
}

/// `check_signatures!(decl_module; name, name, ...)`: each `name` defined in this crate must have the same
/// function-pointer type as the declaration `decl_module::name`, or the crate does not compile.
#[macro_export]
macro_rules! check_signatures {
    ($decl:path; $($name:ident),* $(,)?) => {
        #[allow(dead_code, unused_imports, clippy::all)]
        const _: () = {
            fn check() {
                use $decl as decl;
                $( let _ = if true { decl::$name } else { $name }; )*
            }
        };
    };
}
