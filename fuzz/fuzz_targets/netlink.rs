//! Fuzz target `netlink`: see `ibverbs::fuzzing::netlink` for what the bytes are.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ibverbs::fuzzing::netlink(data));
