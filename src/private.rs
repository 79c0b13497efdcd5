//! The `IBVERBS_PRIVATE_34` symbols. Filled in by the exports work.
