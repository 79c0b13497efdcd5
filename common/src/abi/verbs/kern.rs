//! Kernel structs that the exported conversion helpers `ibv_copy_*_from_kern` / `ibv_copy_path_rec_to_kern`
//! take (`<rdma/ib_user_verbs.h>`, `<rdma/ib_user_sa.h>`), and the path record of `<infiniband/sa.h>` they
//! convert to (`ibv_sa_path_rec` lives in `abi::sa`). None is emitted into `verbs.h`.
//!
//! The kernel structs are the bindgen ones of [`crate::uapi`], re-exported.

use std::mem::{offset_of, size_of};

pub use crate::uapi::ib_user_sa::ib_user_path_rec;
pub use crate::uapi::ib_user_verbs::{ib_uverbs_ah_attr, ib_uverbs_global_route, ib_uverbs_qp_attr};

const _: () = {
    assert!(size_of::<ib_uverbs_global_route>() == 24);
    assert!(size_of::<ib_uverbs_ah_attr>() == 32);
    assert!(size_of::<ib_uverbs_qp_attr>() == 144);
    assert!(offset_of!(ib_uverbs_qp_attr, ah_attr) == 40);
    assert!(offset_of!(ib_uverbs_qp_attr, max_send_wr) == 104);
    assert!(offset_of!(ib_uverbs_qp_attr, pkey_index) == 124);
    assert!(size_of::<ib_user_path_rec>() == 64);
    assert!(offset_of!(ib_user_path_rec, pkey) == 52);
};
