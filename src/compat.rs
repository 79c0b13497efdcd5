//! The `@IBVERBS_1.0` compat symbols (pre-1.1 ABI). Filled in by the exports work.
