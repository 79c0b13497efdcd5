//! `<infiniband/marshall.h>`: the conversions between the kernel's structs and libibverbs' that libibverbs exports
//! (librdmacm uses them). rdma-core does not install the header, so nothing here is emitted; the declarations are
//! what the `ibverbs` crate's definitions are checked against (`check_signatures!`). Kept apart from `verbs` so that
//! `sa` (which needs `ibv_gid`) and `verbs` do not depend on each other.

use super::sa::ibv_sa_path_rec;
use super::verbs::{ibv_ah_attr, ibv_qp_attr};
use crate::uapi::ib_user_sa::ib_user_path_rec;
use crate::uapi::ib_user_verbs::{ib_uverbs_ah_attr, ib_uverbs_qp_attr};

#[allow(unused_doc_comments)]
/// cbindgen:ignore
extern "C" {
    /// Converts a kernel QP attribute struct into `struct ibv_qp_attr`.
    pub fn ibv_copy_qp_attr_from_kern(dst: *mut ibv_qp_attr, src: *mut ib_uverbs_qp_attr);

    /// Converts a kernel address vector into `struct ibv_ah_attr`.
    pub fn ibv_copy_ah_attr_from_kern(dst: *mut ibv_ah_attr, src: *mut ib_uverbs_ah_attr);

    /// Converts a kernel path record (`<rdma/ib_user_sa.h>`) into `struct ibv_sa_path_rec`.
    pub fn ibv_copy_path_rec_from_kern(dst: *mut ibv_sa_path_rec, src: *mut ib_user_path_rec);

    /// Converts `struct ibv_sa_path_rec` into a kernel path record.
    pub fn ibv_copy_path_rec_to_kern(dst: *mut ib_user_path_rec, src: *mut ibv_sa_path_rec);
}
