//! The files the agent writes for itself: `playdata.txt` and `calibration.txt`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    agent::fuzzing::playdata(data);
    agent::fuzzing::calibration(data);
});
