//! The referee's record reader, each accepted record replayed through its game.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| referee::fuzzing::records(data));
