//! Fuzz target `sysfs`: see `ibverbs::fuzzing::sysfs` for what the bytes are.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ibverbs::fuzzing::sysfs(data));
