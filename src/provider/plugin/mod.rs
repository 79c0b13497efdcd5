//! rdma-core's provider plug-ins (`lib<name>-rdmav34.so`, `libmlx5.so.1`, ...) as providers of this libibverbs:
//! loading and registration, device matching, and the [`Provider`](super::Provider) that dispatches to a plug-in's
//! `verbs_context_ops`. `cmd` is the `ibv_cmd_*` half of the `IBVERBS_PRIVATE_34` interface they import.
#![allow(unsafe_code)]

pub mod cmd;
