//! SIGINT/SIGTERM: raise a flag that stops scheduling and kills running
//! agents' process groups, so the run ends cleanly and can be resumed.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Raised by SIGINT or SIGTERM.
pub static STOP: AtomicBool = AtomicBool::new(false);
/// The signal that raised [`STOP`] (0 if none).
pub static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work: two atomic stores.
    SIGNAL.store(sig, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
}

/// Installs the handlers.
pub fn install() {
    // SAFETY: the handler only stores to atomics; sigaction is given a
    // zeroed struct with the handler and an empty mask.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    }
}

/// True once a stop signal arrived.
pub fn stopped() -> bool {
    STOP.load(Ordering::SeqCst)
}
