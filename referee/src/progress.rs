//! One-line progress for long runs, shown only when stdout is a terminal.

use std::io::Write;

/// Progress line writer (on stderr, redrawn in place).
pub struct Progress {
    enabled: bool,
    shown: bool,
}

/// True when stdout is a terminal.
pub fn stdout_is_terminal() -> bool {
    // SAFETY: isatty only inspects the descriptor.
    unsafe { libc::isatty(1) == 1 }
}

impl Progress {
    /// Enabled when both stdout and stderr are terminals.
    pub fn new() -> Progress {
        // SAFETY: isatty only inspects the descriptor.
        let enabled = stdout_is_terminal() && unsafe { libc::isatty(2) == 1 };
        Progress { enabled, shown: false }
    }

    /// Redraws the line.
    pub fn update(&mut self, text: &str) {
        if self.enabled {
            let mut e = std::io::stderr();
            let _ = write!(e, "\r\x1b[2K{text}");
            let _ = e.flush();
            self.shown = true;
        }
    }

    /// Ends the line so later output starts clean.
    pub fn finish(&mut self) {
        if self.enabled && self.shown {
            eprintln!();
            self.shown = false;
        }
    }
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}
