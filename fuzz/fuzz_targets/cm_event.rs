//! Fuzz target `cm_event`: see `rdmacm::fuzzing::cm_event` for what the bytes are.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmacm::fuzzing::cm_event(data));
