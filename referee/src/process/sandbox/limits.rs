//! Resource limits applied to every agent process (all levels but `none`):
//! data memory, size of any file it writes, processes, open files, and no
//! core dumps. Memory is RLIMIT_DATA (private writable mappings: heap,
//! `malloc`, anonymous `mmap`), not RLIMIT_AS: a JVM or a Go runtime reserves
//! gigabytes of address space it never touches and would not even start
//! under an address-space limit of 2 GiB. They are per process (RLIMIT_NPROC per user), so they hold
//! where cgroups do not; the cgroup, when there is one, adds the per-move
//! totals (`memory.max`, `pids.max`).

/// The limits of one agent move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SandboxLimits {
    /// Bytes of private writable memory per process (RLIMIT_DATA), and of
    /// memory for the whole move where the cgroup memory controller is
    /// available.
    pub memory: u64,
    /// Largest file the agent may write, in bytes (RLIMIT_FSIZE).
    pub file_size: u64,
    /// Processes and threads (RLIMIT_NPROC for the agent's user; `pids.max`
    /// of the move's cgroup where available).
    pub max_procs: u64,
    /// Open files per process (RLIMIT_NOFILE).
    pub open_files: u64,
    /// Bytes an agent may keep in its working directory (checked after
    /// every move; more loses the game).
    pub disk: u64,
}

impl Default for SandboxLimits {
    fn default() -> Self {
        SandboxLimits {
            memory: 2 << 30,
            file_size: 16 << 20,
            max_procs: 256,
            open_files: 256,
            disk: 64 << 20,
        }
    }
}

/// Parses a byte count with an optional binary suffix: `512M`, `2G`, `65536`,
/// `16MiB`.
pub(crate) fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().map_err(|_| {
        format!("expected a size such as 512M or 2G (a whole number with an optional K, M or G), found {s:?}")
    })?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        _ => return Err(format!("unknown size unit {unit:?} in {s:?}: use K, M or G")),
    };
    match n.checked_mul(1 << shift) {
        Some(v) if v > 0 => Ok(v),
        Some(_) => Err(format!("a size must be more than zero, found {s:?}")),
        None => Err(format!("size {s:?} is too large")),
    }
}

/// Tasks (processes and threads) the calling user runs now: RLIMIT_NPROC
/// counts them all, so where agents run as the referee's own user (the
/// `rlimits` level) the limit must be this plus the move's allowance, or a
/// desktop with a busy browser leaves an agent no room to fork.
pub(crate) fn user_tasks() -> u64 {
    // Counted at most once a second: a scan of /proc per move would cost
    // more than the move, and the count drifts slowly.
    static LAST: std::sync::Mutex<Option<(std::time::Instant, u64)>> = std::sync::Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match *last {
        Some((at, n)) if at.elapsed() < std::time::Duration::from_secs(1) => n,
        _ => {
            let n = count_user_tasks();
            *last = Some((std::time::Instant::now(), n));
            n
        }
    }
}

fn count_user_tasks() -> u64 {
    let uid = rustix::process::getuid().as_raw().to_string();
    let mut tasks = 0;
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if !e.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(e.path().join("status")) else {
            continue;
        };
        let field = |k: &str| status.lines().find_map(|l| l.strip_prefix(k)).map(str::trim);
        let real_uid = field("Uid:").and_then(|v| v.split_whitespace().next());
        if real_uid == Some(uid.as_str()) {
            tasks += field("Threads:").and_then(|v| v.parse::<u64>().ok()).unwrap_or(1);
        }
    }
    tasks
}

/// Sets the limits on the calling process. Runs in the child between clone
/// and exec: only raw system calls, no allocation. Returns the failing
/// resource's name on error (errno is left set).
pub(crate) fn apply(l: &SandboxLimits) -> Result<(), &'static str> {
    let set = |res, v: u64, name: &'static str| {
        let r = libc::rlimit {
            rlim_cur: v as libc::rlim_t,
            rlim_max: v as libc::rlim_t,
        };
        // SAFETY: setrlimit reads the struct we pass; no other effect on memory.
        if unsafe { libc::setrlimit(res, &r) } != 0 {
            return Err(name);
        }
        Ok(())
    };
    set(libc::RLIMIT_DATA, l.memory, "RLIMIT_DATA")?;
    set(libc::RLIMIT_FSIZE, l.file_size, "RLIMIT_FSIZE")?;
    set(libc::RLIMIT_NPROC, l.max_procs, "RLIMIT_NPROC")?;
    set(libc::RLIMIT_NOFILE, l.open_files, "RLIMIT_NOFILE")?;
    set(libc::RLIMIT_CORE, 0, "RLIMIT_CORE")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes_and_bad_ones_are_explained() {
        assert_eq!(parse_bytes("2G").unwrap(), 2 << 30);
        assert_eq!(parse_bytes("16MiB").unwrap(), 16 << 20);
        assert_eq!(parse_bytes("4096").unwrap(), 4096);
        assert!(parse_bytes("0").unwrap_err().contains("more than zero"));
        assert!(parse_bytes("3T").unwrap_err().contains("unit"));
        assert!(parse_bytes("lots").unwrap_err().contains("512M"));
        assert!(parse_bytes("99999999999999G").unwrap_err().contains("too large"));
    }
}
