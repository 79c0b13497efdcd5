//! The rdma_* entry points.
