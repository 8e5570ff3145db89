//! The process's own CPU clock (user + system, all threads).
//!
//! The contest charges CPU time, not wall time, so every budget decision in the
//! agent is taken against this clock.

/// CPU seconds consumed by this process so far (all threads, user + system).
pub fn process_cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        // Fall back to getrusage, which every Unix has.
        return rusage_self_seconds();
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn rusage_self_seconds() -> f64 {
    // SAFETY: getrusage fills the zeroed struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// A stopwatch on the process CPU clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CpuTimer {
    start: f64,
}

impl CpuTimer {
    /// Starts measuring now.
    pub fn start() -> Self {
        CpuTimer {
            start: process_cpu_seconds(),
        }
    }

    /// CPU seconds elapsed since the timer's zero.
    pub fn elapsed(&self) -> f64 {
        process_cpu_seconds() - self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_clock_advances_with_work() {
        let t = CpuTimer::start();
        let mut x = 0u64;
        while t.elapsed() < 0.02 {
            for i in 0..10_000u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
            }
        }
        std::hint::black_box(x);
        assert!(t.elapsed() >= 0.02);
        assert!(process_cpu_seconds() > 0.0);
    }
}
