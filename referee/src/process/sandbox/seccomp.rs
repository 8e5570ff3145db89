//! A seccomp filter for moves no memory cgroup charges (rootless, or a
//! machine without one): the referee counts the resident memory of the
//! move's processes, so the system calls that hold memory outside any
//! process's resident set are refused: `memfd_create`, System V shared
//! memory, and a nested user namespace (where the agent could mount a
//! tmpfs of its own) with `mount`. `--allow` lifts one of them for an agent
//! that needs it. Built with seccompiler (Firecracker's filter compiler)
//! rather than hand-written BPF.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};
use std::collections::BTreeMap;

/// A group of system calls `--allow` can give back to agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Allow {
    /// `memfd_create` (anonymous files in memory).
    Memfd,
    /// System V shared memory (`shmget`).
    SysvShm,
    /// New user namespaces (`unshare`/`clone` with CLONE_NEWUSER, `clone3`)
    /// and `mount` inside them.
    Userns,
}

/// The compiled filters, applied in the child just before exec.
#[derive(Debug)]
pub(crate) struct Filter {
    /// Refused with EPERM.
    denied: BpfProgram,
    /// `clone3`, refused with ENOSYS so that the C library falls back to
    /// `clone`, whose flags a filter can read (clone3 passes a pointer).
    clone3: Option<BpfProgram>,
}

impl Filter {
    /// The filter for this machine's architecture, without the groups in
    /// `allow`; `None` when everything is allowed.
    pub(crate) fn new(allow: &[Allow]) -> Result<Option<Filter>, String> {
        let arch = std::env::consts::ARCH
            .try_into()
            .map_err(|_| format!("no seccomp filter for the {} architecture", std::env::consts::ARCH))?;
        let denied_groups = [Allow::Memfd, Allow::SysvShm, Allow::Userns];
        let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
        for g in denied_groups.iter().filter(|g| !allow.contains(g)) {
            for (call, rule) in calls(*g)? {
                rules.entry(call).or_default().extend(rule);
            }
        }
        if rules.is_empty() {
            return Ok(None);
        }
        let compile = |rules, errno| -> Result<BpfProgram, String> {
            SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno), arch)
                .and_then(BpfProgram::try_from)
                .map_err(|e| format!("cannot build the seccomp filter: {e}"))
        };
        let clone3 = (!allow.contains(&Allow::Userns))
            .then(|| compile(BTreeMap::from([(libc::SYS_clone3, vec![])]), libc::ENOSYS as u32))
            .transpose()?;
        Ok(Some(Filter {
            denied: compile(rules, libc::EPERM as u32)?,
            clone3,
        }))
    }

    /// Installs the filters on the calling thread (the child, after
    /// `no_new_privs`): raw calls on the prepared programs only.
    pub(crate) fn apply(&self) -> bool {
        self.clone3.iter().chain(std::iter::once(&self.denied)).all(|p| {
            let prog = libc::sock_fprog {
                len: p.len() as u16,
                filter: p.as_ptr() as *mut libc::sock_filter,
            };
            // SAFETY: the program outlives the call, which copies it.
            unsafe { libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog) == 0 }
        })
    }
}

/// The system calls of a group, each with the rule that refuses it (an
/// empty rule list refuses every call).
fn calls(g: Allow) -> Result<Vec<(i64, Vec<SeccompRule>)>, String> {
    let new_user = || -> Result<Vec<SeccompRule>, String> {
        let flag = libc::CLONE_NEWUSER as u64;
        let cond = SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(flag), flag)
            .map_err(|e| e.to_string())?;
        Ok(vec![SeccompRule::new(vec![cond]).map_err(|e| e.to_string())?])
    };
    Ok(match g {
        Allow::Memfd => vec![(libc::SYS_memfd_create, vec![])],
        Allow::SysvShm => vec![(libc::SYS_shmget, vec![])],
        Allow::Userns => vec![
            (libc::SYS_unshare, new_user()?),
            (libc::SYS_clone, new_user()?),
            (libc::SYS_mount, vec![]),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a forked child tries once the filter is on.
    #[derive(Clone, Copy)]
    enum Try {
        Memfd,
        Shm,
        /// A new user namespace, refused with EPERM (true when refused so).
        UserNsRefused,
        /// fork (clone without namespace flags) and reaping the child.
        Fork,
    }

    /// Runs `t` in a forked child after installing `filter`: its exit code
    /// (0: it worked, 1: it did not, 2: the filter could not be set).
    fn in_child(filter: &Filter, t: Try) -> i32 {
        // SAFETY: the child makes system calls only and exits; the parent
        // reaps it. Every result is checked.
        unsafe {
            let pid = libc::fork();
            if pid == 0 {
                let ok = libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && filter.apply();
                let worked = match t {
                    Try::Memfd => libc::memfd_create(c"t".as_ptr(), 0) >= 0,
                    Try::Shm => libc::shmget(libc::IPC_PRIVATE, 4096, libc::IPC_CREAT | 0o600) >= 0,
                    Try::UserNsRefused => {
                        libc::unshare(libc::CLONE_NEWUSER) != 0 && *libc::__errno_location() == libc::EPERM
                    }
                    Try::Fork => {
                        let child = libc::fork();
                        if child == 0 {
                            libc::_exit(0);
                        }
                        child > 0 && libc::waitpid(child, std::ptr::null_mut(), 0) == child
                    }
                };
                libc::_exit(if !ok {
                    2
                } else if worked {
                    0
                } else {
                    1
                });
            }
            let mut st = 0;
            libc::waitpid(pid, &mut st, 0);
            libc::WEXITSTATUS(st)
        }
    }

    #[test]
    fn the_filter_refuses_memory_outside_processes_and_keeps_fork() {
        let all = Filter::new(&[]).unwrap().unwrap();
        assert_eq!(in_child(&all, Try::Memfd), 1, "memfd_create refused");
        assert_eq!(in_child(&all, Try::Shm), 1, "shmget refused");
        assert_eq!(in_child(&all, Try::UserNsRefused), 0, "no nested user namespace");
        assert_eq!(in_child(&all, Try::Fork), 0, "fork (clone without flags) works");
        let memfd_allowed = Filter::new(&[Allow::Memfd]).unwrap().unwrap();
        assert_eq!(in_child(&memfd_allowed, Try::Memfd), 0, "--allow memfd");
        assert_eq!(in_child(&memfd_allowed, Try::Shm), 1);
        assert!(Filter::new(&[Allow::Memfd, Allow::SysvShm, Allow::Userns])
            .unwrap()
            .is_none());
    }
}
