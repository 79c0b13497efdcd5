//! Fuzz target `cm_files`: see `rdmacm::fuzzing::cm_files` for what the bytes are.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| rdmacm::fuzzing::cm_files(data));
