//! The process's own CPU clock (user + system, all threads).
//!
//! The contest charges CPU time, not wall time, so every budget decision in the
//! agent is taken against this clock.

/// CPU seconds consumed by this process so far (all threads, user + system).
pub fn process_cpu_seconds() -> f64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// A stopwatch on the process CPU clock.
#[derive(Clone, Copy, Debug)]
pub struct CpuTimer {
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
