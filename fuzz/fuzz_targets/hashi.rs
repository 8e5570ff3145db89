//! `input.txt` of hashi: parse, round trip, one agent turn under a tiny budget.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| agent::fuzzing::input_turn::<agent::Hashi>(data));
