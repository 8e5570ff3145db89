//! CPU accounting without a cgroup (the `rlimits` and `none` levels): the
//! agent's process group plus every descendant seen through parent links in
//! `/proc` (walked from the members through the kernel's `children` lists,
//! or read whole where there are none). The referee is a child subreaper, so orphans come back to it and
//! are charged, killed and reaped. A process that escapes between two scans
//! (setsid then double fork within one poll) is missed: only the cgroup of
//! the `full` level closes that hole.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::sync::Once;

/// Makes this process a child subreaper (once).
pub(crate) fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Err(e) = rustix::process::set_child_subreaper(Some(rustix::process::getpid())) {
            log::warn!("prctl(PR_SET_CHILD_SUBREAPER) failed: {e}");
        }
    });
}

fn clock_ticks() -> f64 {
    let t = rustix::param::clock_ticks_per_second();
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// CPU seconds in a `wait4` rusage.
fn rusage_seconds(ru: &libc::rusage) -> f64 {
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// The fields of `/proc/<pid>/stat` the tracker needs.
#[derive(Clone, Copy, Debug)]
struct ProcStat {
    ppid: i32,
    pgid: i32,
    /// utime + stime + cutime + cstime, in clock ticks.
    ticks: u64,
    /// Resident set size, in pages.
    rss: u64,
}

fn read_stat(pid: i32, buf: &mut String) -> Option<ProcStat> {
    buf.clear();
    File::open(format!("/proc/{pid}/stat")).ok()?.read_to_string(buf).ok()?;
    // The command name (field 2) is in parentheses and may contain spaces:
    // parse from the last ')'.
    let rest = &buf[buf.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest fields: 0 state, 1 ppid, 2 pgrp, ..., 11 utime, 12 stime, 13 cutime, 14 cstime, ..., 21 rss
    if f.len() < 22 {
        return None;
    }
    let n = |i: usize| f[i].parse::<i64>().ok();
    let ticks = [11, 12, 13, 14].iter().map(|&i| n(i).unwrap_or(0).max(0) as u64).sum();
    Some(ProcStat {
        ppid: n(1)? as i32,
        pgid: n(2)? as i32,
        ticks,
        rss: n(21).unwrap_or(0).max(0) as u64,
    })
}

/// Processes belonging to one run: its process group, plus any descendant
/// that left the group (found through parent links while it was visible).
pub(crate) struct Tracker {
    pgid: i32,
    members: HashSet<i32>,
    buf: String,
    tick: f64,
    polls: u64,
    /// The group is a PID namespace whose init is `pgid` (see
    /// [`Tracker::in_namespace`]).
    namespace: bool,
    /// Each live member's resident pages at the last scan.
    rss_pages: Vec<(i32, u64)>,
}

/// Every this many scans, all of `/proc` is read to find new descendants.
const FULL_SCAN_EVERY: u64 = 10;

impl Tracker {
    /// Tracks the group led by `pid`.
    pub(crate) fn new(pid: i32) -> Tracker {
        become_subreaper();
        Tracker {
            pgid: pid,
            members: HashSet::from([pid]),
            buf: String::new(),
            tick: clock_ticks(),
            polls: 0,
            namespace: false,
            rss_pages: Vec::new(),
        }
    }

    /// Tracks the PID namespace whose init is `pid` (the rootless level).
    /// The init ends and reaps every process of it, so its own figure,
    /// read when the referee reaps it, is the whole charge: `/proc` is
    /// scanned only to enforce the CPU limit on a long move (every tenth
    /// poll from the tenth on), so a move of a few milliseconds costs the
    /// referee no scan of all processes.
    pub(crate) fn in_namespace(pid: i32) -> Tracker {
        Tracker {
            namespace: true,
            ..Tracker::new(pid)
        }
    }

    /// Whether this tracks a PID namespace ([`Tracker::in_namespace`]),
    /// whose init's reaped figure is the whole charge.
    pub(crate) fn is_namespace(&self) -> bool {
        self.namespace
    }

    /// CPU seconds currently held by live (or zombie) members. Every
    /// [`FULL_SCAN_EVERY`]th call (and when `full`) reads all of `/proc` for
    /// new members; otherwise only known members are read.
    pub(crate) fn scan(&mut self, full: bool) -> f64 {
        self.polls += 1;
        let full = if self.namespace {
            self.polls.is_multiple_of(FULL_SCAN_EVERY)
        } else {
            full || self.polls % FULL_SCAN_EVERY == 1
        };
        let mut stats = Vec::new();
        if full && !children_lists() {
            for pid in numbered(std::fs::read_dir("/proc")) {
                if let Some(st) = read_stat(pid, &mut self.buf) {
                    stats.push((pid, st));
                }
            }
        } else if full {
            for pid in self.family() {
                if let Some(st) = read_stat(pid, &mut self.buf) {
                    stats.push((pid, st));
                }
            }
        } else {
            for &pid in &self.members {
                if let Some(st) = read_stat(pid, &mut self.buf) {
                    stats.push((pid, st));
                }
            }
        }
        // Membership: the group, then anything whose parent is a member
        // (repeat to follow chains of escaped descendants).
        for &(pid, st) in &stats {
            if st.pgid == self.pgid {
                self.members.insert(pid);
            }
        }
        loop {
            let before = self.members.len();
            for &(pid, st) in &stats {
                if self.members.contains(&st.ppid) {
                    self.members.insert(pid);
                }
            }
            if self.members.len() == before {
                break;
            }
        }
        let live: HashSet<i32> = stats
            .iter()
            .map(|&(p, _)| p)
            .filter(|p| self.members.contains(p))
            .collect();
        let ticks: u64 = stats
            .iter()
            .filter(|(p, _)| live.contains(p))
            .map(|(_, st)| st.ticks)
            .sum();
        // The rootless init is a copy of the referee, not the agent's.
        self.rss_pages.clear();
        self.rss_pages.extend(
            stats
                .iter()
                .filter(|(p, _)| live.contains(p) && !(self.namespace && *p == self.pgid))
                .map(|&(p, st)| (p, st.rss)),
        );
        // Forget members that are gone so a recycled pid is not adopted.
        self.members.retain(|p| live.contains(p));
        ticks as f64 / self.tick
    }

    /// The processes a full scan reads where the kernel keeps `children`
    /// lists: the members and their descendants through those lists, and
    /// the referee's own children (a member's orphans come back to it, a
    /// subreaper, still in the group). The same processes as a read of all
    /// of `/proc` would find, for a few reads instead of one per process of
    /// the machine (most of the referee's own CPU per move at `none`).
    fn family(&self) -> Vec<i32> {
        let mut buf = String::new();
        let mut found: Vec<i32> = self.members.iter().copied().collect();
        // The referee's children are every concurrent move's agents: only
        // those in this group are read, and their children are not walked
        // until they are members.
        let own = children_of("self", &mut buf);
        let mut i = 0;
        while i < found.len() {
            for c in children_of(&found[i].to_string(), &mut buf) {
                if !found.contains(&c) {
                    found.push(c);
                }
            }
            i += 1;
        }
        found.extend(own.into_iter().filter(|p| !found.contains(p)).collect::<Vec<_>>());
        found
    }

    /// Whether the move's processes together hold more than `limit` bytes:
    /// their resident sets as of the last scan, confirmed (when over) by
    /// their proportional sets, so pages a fork shares are counted once.
    pub(crate) fn over_memory(&mut self, limit: u64) -> bool {
        over_memory(&self.rss_pages, limit, &mut self.buf)
    }

    /// SIGKILLs the group and every known descendant outside it.
    pub(crate) fn kill(&self) {
        use rustix::process::{kill_process, kill_process_group, Pid, Signal};
        // A stale pid only yields ESRCH.
        if let Some(g) = Pid::from_raw(self.pgid) {
            let _ = kill_process_group(g, Signal::KILL);
        }
        for &m in &self.members {
            if let Some(p) = Pid::from_raw(m).filter(|_| m != self.pgid && m > 1) {
                let _ = kill_process(p, Signal::KILL);
            }
        }
    }

    /// After the main process is reaped: kills what is left, reaps the
    /// orphans that came back to the referee and returns their CPU seconds.
    pub(crate) fn finish(&mut self) -> f64 {
        if self.namespace {
            // The init has ended them all and reaped them: their CPU is in
            // its own figure, which the referee got when it reaped it.
            self.kill();
            return 0.0;
        }
        self.scan(true);
        self.kill();
        let mut cpu = reap_group(self.pgid);
        for &m in &self.members {
            cpu += reap_pid(m);
        }
        cpu
    }
}

/// Whether this kernel lists each task's children in `/proc` (it does
/// with CONFIG_PROC_CHILDREN, as Debian's and most distributions' do).
fn children_lists() -> bool {
    static LISTS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *LISTS.get_or_init(|| std::path::Path::new("/proc/thread-self/children").exists())
}

/// The numbered entries of a `/proc` directory listing.
fn numbered(dir: std::io::Result<std::fs::ReadDir>) -> impl Iterator<Item = i32> {
    dir.into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse().ok()))
}

/// The children of every thread of process `pid` (`self` for the referee).
fn children_of(pid: &str, buf: &mut String) -> Vec<i32> {
    let mut out = Vec::new();
    for tid in numbered(std::fs::read_dir(format!("/proc/{pid}/task"))) {
        buf.clear();
        let path = format!("/proc/{pid}/task/{tid}/children");
        if File::open(path).and_then(|mut f| f.read_to_string(buf)).is_ok() {
            out.extend(buf.split_whitespace().filter_map(|w| w.parse::<i32>().ok()));
        }
    }
    out
}

/// Whether processes `(pid, resident pages)` together hold more than
/// `limit` bytes: their resident sets, confirmed (when over) by their
/// proportional sets, so pages a fork shares are counted once.
fn over_memory(rss_pages: &[(i32, u64)], limit: u64, buf: &mut String) -> bool {
    let page = rustix::param::page_size() as u64;
    let rss: u64 = rss_pages.iter().map(|&(_, n)| n).sum();
    if rss.saturating_mul(page) <= limit {
        return false;
    }
    let mut bytes = 0u64;
    for &(pid, pages) in rss_pages {
        buf.clear();
        let read = File::open(format!("/proc/{pid}/smaps_rollup")).and_then(|mut f| f.read_to_string(buf));
        bytes += match read {
            Ok(_) => rollup_pss_kib(buf) * 1024,
            // Gone since the scan: nothing; not ours to read in detail
            // (made undumpable): its whole resident set.
            Err(_) if !std::path::Path::new(&format!("/proc/{pid}")).exists() => 0,
            Err(_) => pages * page,
        };
    }
    bytes > limit
}

/// Whether the processes `pids` together hold more than `limit` bytes
/// (see [`Tracker::over_memory`]): for a cgroup without a memory
/// controller, whose `cgroup.procs` lists them.
pub(crate) fn pids_over_memory(pids: &[i32], limit: u64) -> bool {
    let mut buf = String::new();
    let rss: Vec<(i32, u64)> = pids
        .iter()
        .filter_map(|&p| read_stat(p, &mut buf).map(|st| (p, st.rss)))
        .collect();
    over_memory(&rss, limit, &mut buf)
}

/// The `Pss:` figure of a `/proc/PID/smaps_rollup`, in KiB.
fn rollup_pss_kib(text: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Reaps members of process group `pgid` that are our children, returning
/// their CPU seconds. Blocks until none of our children is left in the
/// group: call after SIGKILL.
fn reap_group(pgid: i32) -> f64 {
    let mut total = 0.0;
    loop {
        match wait4(-pgid, 0) {
            Ok((r, _, cpu)) if r > 0 => total += cpu,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            _ => return total,
        }
    }
}

fn reap_pid(pid: i32) -> f64 {
    match wait4(pid, 0) {
        Ok((r, _, cpu)) if r == pid => cpu,
        _ => 0.0,
    }
}

/// `wait4(pid, options)`: the pid reaped (0 under `WNOHANG` when none has
/// ended), its wait status and its CPU seconds with its reaped children's.
/// rustix's `waitpid` gives no resource usage, hence this one call.
pub(crate) fn wait4(pid: i32, options: i32) -> std::io::Result<(i32, i32, f64)> {
    let mut status = 0;
    // SAFETY: wait4 writes only into the status and the rusage we own (all
    // zeroes is a valid rusage); a pid that is not our child gives ECHILD.
    let (r, ru) = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        (libc::wait4(pid, &mut status, options, &mut ru), ru)
    };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((r, status, rusage_seconds(&ru)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_own_stat() {
        let mut buf = String::new();
        let st = read_stat(std::process::id() as i32, &mut buf).expect("own stat");
        assert!(st.pgid > 0 && st.ppid >= 0);
        assert!(st.rss > 0, "a running test holds resident pages");
    }
}
