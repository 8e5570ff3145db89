//! SIGINT/SIGTERM: raise a flag that stops scheduling and kills running
//! agents' process groups, so the run ends cleanly and can be resumed.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Raised by SIGINT or SIGTERM.
pub static STOP: AtomicBool = AtomicBool::new(false);
/// The signal that raised [`STOP`] (0 if none).
pub static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Set while the referee waits for a person's input and no agent runs:
/// a signal then ends the process at once (a blocked terminal read would
/// otherwise be restarted and never see the flag).
pub static EXIT_NOW: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work: atomic stores and _exit.
    if EXIT_NOW.load(Ordering::SeqCst) {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
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
