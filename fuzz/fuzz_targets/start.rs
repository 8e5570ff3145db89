//! The referee's `--start` loader, for every game.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| referee::fuzzing::start(data));
