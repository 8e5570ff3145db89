//! The sandbox's command-line options and their checks: limits no agent
//! can run under and read-only directories that would show the records
//! are refused; the agents' environment.

use super::{limits, LevelChoice, Sandbox, SandboxLimits};
use std::path::{Path, PathBuf};

/// Command-line options of the sandbox (flattened into the commands that run agents).
#[derive(clap::Args, Clone, Debug)]
pub struct SandboxOpts {
    /// Confinement of agents: auto (strongest available), full, full-rootless, rlimits or none.
    #[arg(long, value_enum, default_value_t = LevelChoice::Auto, env = "REFEREE_SANDBOX")]
    pub sandbox: LevelChoice,
    /// Memory per agent process (private writable memory; the whole move where cgroups allow), e.g. 2G.
    #[arg(long, default_value = "2G", value_parser = limits::parse_bytes)]
    pub memory: u64,
    /// Largest file an agent may write, e.g. 16M (also caps its captured stdout/stderr).
    #[arg(long, default_value = "16M", value_parser = limits::parse_bytes)]
    pub file_size: u64,
    /// Space an agent may keep in its working directory, checked after each
    /// move (more loses the game), e.g. 64M.
    #[arg(long, default_value = "64M", value_parser = limits::parse_bytes)]
    pub disk: u64,
    /// Processes and threads per agent move.
    #[arg(long, default_value_t = 256)]
    pub max_procs: u64,
    /// System calls given back to agents where the sandbox refuses them
    /// (no memory cgroup charges the move): memfd, sysv-shm, userns
    /// (comma-separated or repeated). Memory held through them is then not
    /// counted.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "CALLS")]
    pub allow: Vec<super::seccomp::Allow>,
    /// Extra directory an agent may read at the full levels (repeatable).
    #[arg(long = "sandbox-ro", value_name = "DIR")]
    pub read_only: Vec<PathBuf>,
    /// Environment variable passed to agents besides PATH, LANG, HOME and
    /// TMPDIR (repeatable); NAME alone passes the referee's value.
    #[arg(long = "env", value_name = "NAME[=VALUE]")]
    pub env: Vec<String>,
}

impl SandboxOpts {
    /// Builds the sandbox for a run whose records live in `out` (hidden from
    /// agents), refusing limits no agent can run under and read-only
    /// directories that would show agents the whole system or the records.
    pub fn build(&self, out: &Path) -> Result<Sandbox, String> {
        if self.memory < MIN_MEMORY {
            return Err(format!(
                "--memory {} MiB is too little for any agent to start (a shell alone needs a few MiB); give at least {} MiB, such as --memory 512M",
                self.memory >> 20,
                MIN_MEMORY >> 20
            ));
        }
        if self.max_procs < MIN_PROCS {
            return Err(format!(
                "--max-procs {} leaves no room for the agent's shell and program; give at least {MIN_PROCS}",
                self.max_procs
            ));
        }
        if self.disk < MIN_DISK {
            return Err(format!(
                "--disk {} KiB leaves no room for an agent's files (input, output, captured stderr); give at least {} MiB",
                self.disk >> 10,
                MIN_DISK >> 20
            ));
        }
        let limits = SandboxLimits {
            disk: self.disk,
            memory: self.memory,
            file_size: self.file_size,
            max_procs: self.max_procs,
            ..SandboxLimits::default()
        };
        let out = out.canonicalize().unwrap_or_else(|_| out.to_path_buf());
        let mut ro = Vec::new();
        for p in &self.read_only {
            let dir = p
                .canonicalize()
                .map_err(|e| format!("--sandbox-ro {}: {e}", p.display()))?;
            if dir == Path::new("/") {
                return Err(
                    "--sandbox-ro / would show agents the whole file system; name the directories they need".into(),
                );
            }
            if out.starts_with(&dir) || dir.starts_with(&out) {
                return Err(format!(
                    "--sandbox-ro {} would show agents the run's records and the other agents' directories in {}; name a directory outside --out",
                    p.display(),
                    out.display()
                ));
            }
            ro.push(dir);
        }
        let extra = self.env.iter().map(|e| env_entry(e)).collect::<Result<Vec<_>, _>>()?;
        let mut sb = Sandbox::new(self.sandbox, limits, ro, vec![out])?;
        if let Some(j) = &mut sb.jail {
            j.allow_calls(&self.allow)?;
        }
        for (k, v) in extra {
            sb.env.retain(|(name, _)| *name != k);
            sb.env.push((k, v));
        }
        Ok(sb)
    }
}

/// One `--env NAME[=VALUE]`: NAME alone takes the referee's own value.
fn env_entry(arg: &str) -> Result<(String, String), String> {
    let (name, value) = match arg.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (arg, None),
    };
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!(
            "--env {arg:?}: expected NAME or NAME=VALUE with a name of letters, digits and _"
        ));
    }
    if name == "HOME" {
        return Err("--env HOME: an agent's HOME is always its working directory".into());
    }
    let value = match value {
        Some(v) => v,
        None => std::env::var(name).map_err(|_| {
            format!("--env {name}: {name} is not set in the referee's environment; give a value as --env {name}=VALUE")
        })?,
    };
    if value.contains('\0') {
        return Err(format!("--env {name}: the value contains a NUL byte"));
    }
    Ok((name.to_string(), value))
}

/// The environment every agent gets (before `HOME` and `--env`): the
/// referee's `PATH` (so interpreters resolve as on the user's shell) and
/// `LANG`, and `TMPDIR`: the private `/tmp` where the agent has one.
pub(super) fn base_env(private_tmp: bool) -> Vec<(String, String)> {
    let get = |k: &str| std::env::var(k).ok().filter(|v| !v.contains('\0'));
    let mut env = vec![
        (
            "PATH".to_string(),
            get("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into()),
        ),
        ("LANG".to_string(), get("LANG").unwrap_or_else(|| "C.UTF-8".into())),
    ];
    let tmp = if private_tmp {
        Some("/tmp".to_string())
    } else {
        get("TMPDIR")
    };
    env.extend(tmp.map(|t| ("TMPDIR".to_string(), t)));
    env
}

/// The least `--memory` accepted: below it not even `sh` starts.
pub(crate) const MIN_MEMORY: u64 = 32 << 20;
/// The least `--disk` accepted.
pub(crate) const MIN_DISK: u64 = 1 << 20;
/// The least `--max-procs` accepted: the shell, the agent and a helper.
pub(crate) const MIN_PROCS: u64 = 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_arguments_are_checked_in_words() {
        assert_eq!(env_entry("A_1=x=y").unwrap(), ("A_1".to_string(), "x=y".to_string()));
        for (arg, says) in [
            ("1A=x", "expected NAME or NAME=VALUE"),
            ("=x", "expected NAME or NAME=VALUE"),
            ("A-B=x", "expected NAME or NAME=VALUE"),
            ("HOME=/x", "always its working directory"),
            (
                "REFEREE_SURELY_UNSET_VARIABLE",
                "is not set in the referee's environment",
            ),
        ] {
            let e = env_entry(arg).unwrap_err();
            assert!(e.contains(says), "{arg}: {e}");
        }
    }

    #[test]
    fn the_base_environment_has_a_path_and_a_language() {
        let env = base_env(true);
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["PATH", "LANG", "TMPDIR"]);
        assert_eq!(env[2].1, "/tmp", "a private /tmp");
    }
}
