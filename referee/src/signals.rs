//! SIGINT/SIGTERM: raise a flag that stops scheduling and kills running
//! agents' process groups, so the run ends cleanly and can be resumed.
//! The handlers are `signal-hook`'s, which do only async-signal-safe work
//! (atomic stores and `_exit`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

/// Raised by SIGINT or SIGTERM.
pub(crate) static STOP: AtomicBool = AtomicBool::new(false);

/// Set while the referee waits for a person's input and no agent runs:
/// a signal then ends the process at once (a blocked terminal read would
/// otherwise be restarted and never see the flag).
pub(crate) static EXIT_NOW: AtomicBool = AtomicBool::new(false);

/// Installs the handlers (once; later calls do nothing). Each signal ends
/// the process with status 130 while [`EXIT_NOW`] is set, and otherwise
/// raises [`STOP`]; interrupted system calls are restarted.
pub(crate) fn install() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // The exit goes first: with EXIT_NOW set, STOP is not raised.
            // Neither registration can fail for these two signals.
            let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, &EXIT_NOW);
            let _ = signal_hook::flag::register(sig, &STOP);
        }
    });
}

/// True once a stop signal arrived.
pub(crate) fn stopped() -> bool {
    STOP.load(Ordering::SeqCst)
}
