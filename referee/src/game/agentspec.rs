//! Agents as command-line entries: `--agent name=N,cmd=CMD[,dir=DIR][,time=T]`,
//! and the agent's home: the directory its command's files are found in.
//!
//! Agents run in a fresh working directory per game (it holds `input.txt`),
//! so a command naming its own files relatively (`python3 my_agent.py`,
//! `./my_agent`, `java -cp . MyAgent`) would not find them there. Those
//! words are made absolute against the agent's home: `dir` when given,
//! resolved from where the referee was started, else that start directory.

pub use crate::process::command::{words, AgentCommand};
use std::path::{Path, PathBuf};

/// One `--agent` entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AgentSpec {
    /// Name in tables and records.
    pub name: String,
    /// Shell command as given.
    pub cmd: String,
    /// The agent's home, as given (relative to the referee's start directory).
    pub dir: Option<PathBuf>,
    /// CPU seconds per game for this agent (default: `--time`).
    pub time: Option<f64>,
    /// The command that writes its `calibration.txt` (default: `CMD calibrate`).
    pub calibrate: Option<String>,
}

const KEYS: [&str; 5] = ["name", "cmd", "dir", "time", "calibrate"];

impl AgentSpec {
    /// Parses `name=N,cmd=CMD[,dir=DIR][,time=T][,calibrate=CMD]`. A comma starts a new field
    /// only when a known key and `=` follow it, so a command may contain
    /// commas (`cmd=agent --weights 1,2`).
    pub fn parse(s: &str) -> Result<AgentSpec, String> {
        let usage = "--agent expects name=NAME,cmd=COMMAND[,dir=DIR][,time=SECONDS][,calibrate=COMMAND]";
        let mut fields: Vec<(&str, String)> = Vec::new();
        let mut rest = s;
        loop {
            let Some((key, after)) = rest.split_once('=') else {
                return Err(format!("{usage}; {rest:?} in {s:?} has no KEY="));
            };
            let key = key.trim();
            if !KEYS.contains(&key) {
                return Err(format!("{usage}; unknown key {key:?} in {s:?}"));
            }
            if fields.iter().any(|(k, _)| *k == key) {
                return Err(format!("{usage}; {key}= is given twice in {s:?}"));
            }
            // The value runs to the next ",KEY=" with a known key.
            let end = after
                .match_indices(',')
                .map(|(i, _)| i)
                .find(|&i| {
                    let tail = after[i + 1..].trim_start();
                    KEYS.iter()
                        .any(|k| tail.strip_prefix(k).is_some_and(|t| t.trim_start().starts_with('=')))
                })
                .unwrap_or(after.len());
            fields.push((key, after[..end].trim().to_string()));
            if end == after.len() {
                break;
            }
            rest = &after[end + 1..];
        }
        let get = |k: &str| fields.iter().find(|(key, _)| *key == k).map(|(_, v)| v.clone());
        let name = get("name")
            .filter(|n| !n.is_empty())
            .ok_or_else(|| format!("{usage}; name= is missing or empty in {s:?}"))?;
        let cmd = get("cmd")
            .filter(|c| !c.is_empty())
            .ok_or_else(|| format!("{usage}; cmd= is missing or empty in {s:?}"))?;
        let dir = get("dir").map(PathBuf::from);
        let time = match get("time") {
            None => None,
            Some(t) => match t.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Some(v),
                _ => {
                    return Err(format!(
                        "--agent {name}: time= must be a positive number of CPU seconds, found {t:?}"
                    ))
                }
            },
        };
        let calibrate = get("calibrate").filter(|c| !c.is_empty());
        Ok(AgentSpec {
            name,
            cmd,
            dir,
            time,
            calibrate,
        })
    }

    /// The agent's home as an absolute directory: `dir` resolved from `start`
    /// (the referee's start directory), or `start` itself.
    pub fn home(&self, start: &Path) -> Result<PathBuf, String> {
        let d = match &self.dir {
            Some(d) => start.join(d),
            None => start.to_path_buf(),
        };
        let abs = std::fs::canonicalize(&d)
            .map_err(|e| format!("agent {}: its directory {} cannot be used: {e}", self.name, d.display()))?;
        if !abs.is_dir() {
            return Err(format!("agent {}: dir={} is not a directory", self.name, d.display()));
        }
        Ok(abs)
    }
}

/// Makes the words of `cmd` that name files in `home` absolute, so the
/// command works from any working directory: the program when it is a path
/// (`./my_agent`, `bin/agent`), and any later word naming an existing file
/// or directory (`my_agent.py`, `.` in `java -cp . MyAgent`). Options
/// (`-x`), absolute paths and words in a command using shell quoting or
/// expansion are left alone; a comment (`# ...`) is dropped, as `sh` would. A bare program name found on the referee's
/// `PATH` outside the system directories (`agent` in `~/.cargo/bin`, a
/// venv's `python`) becomes that path, so the sandbox can show it to the
/// agent as the user's shell would have found it.
pub fn resolve_in_home(cmd: &str, home: &Path) -> String {
    resolve_with_path(cmd, home, std::env::var_os("PATH").as_deref())
}

/// [`resolve_in_home`] with `path` as the search path for bare program names.
fn resolve_with_path(cmd: &str, home: &Path, path: Option<&std::ffi::OsStr>) -> String {
    // Quoting and expansion are the shell's business: rewriting words
    // there could change what the shell runs.
    if cmd.contains(['\'', '"', '$', '`', '\\']) {
        return cmd.to_string();
    }
    let Ok(words) = words(cmd) else {
        return cmd.to_string();
    };
    let resolved: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if i == 0 && !w.contains('/') {
                if let Some(found) = path
                    .and_then(|dirs| on_path(w, dirs))
                    .map(|p| through_shim(w, p))
                    .filter(|p| !is_system(p))
                {
                    let found = found.display().to_string();
                    if !found.contains(char::is_whitespace) {
                        return found;
                    }
                }
            }
            let candidate = !w.starts_with(['-', '/', '~']) && !w.contains('=') && (i > 0 || w.contains('/'));
            if candidate {
                if let Ok(abs) = std::fs::canonicalize(home.join(w)) {
                    let abs = abs.display().to_string();
                    if !abs.contains(char::is_whitespace) {
                        return abs;
                    }
                }
            }
            w.clone()
        })
        .collect();
    resolved.join(" ")
}

/// The program `name` as the search path `dirs` finds it (the path itself,
/// links not followed: a venv's `bin/python` must stay in its venv).
pub(crate) fn on_path(name: &str, dirs: &std::ffi::OsStr) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(dirs)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(name))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// A version manager's shim (`~/.pyenv/shims/python3`, rbenv, asdf) is a
/// script that needs the manager's whole tree and environment; the program
/// it would run (`pyenv which python3`) is what the agent should get.
fn through_shim(name: &str, found: std::path::PathBuf) -> std::path::PathBuf {
    let Some(root) = found
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == "shims"))
        .and_then(Path::parent)
    else {
        return found;
    };
    let tool = match root.file_name().and_then(|n| n.to_str()) {
        Some(".pyenv") => "pyenv",
        Some(".rbenv") => "rbenv",
        Some(".asdf") => "asdf",
        _ => return found,
    };
    let exe = [root.join("bin").join(tool), root.join("libexec").join(tool)]
        .into_iter()
        .find(|p| p.is_file());
    let Some(exe) = exe else { return found };
    let out = std::process::Command::new(exe)
        .args(["which", name])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let real = std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            if real.is_absolute() && real.is_file() {
                real
            } else {
                found
            }
        }
        _ => found,
    }
}

/// True for programs every sandbox shows anyway (the system's own).
fn is_system(p: &Path) -> bool {
    ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/"]
        .iter()
        .any(|d| p.starts_with(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_and_commas_inside_commands() {
        let a = AgentSpec::parse("name=py,cmd=python3 my_agent.py,dir=samples/agents/python,time=2.5").unwrap();
        assert_eq!(a.name, "py");
        assert_eq!(a.cmd, "python3 my_agent.py");
        assert_eq!(a.dir, Some(PathBuf::from("samples/agents/python")));
        assert_eq!(a.time, Some(2.5));
        let b = AgentSpec::parse("cmd=agent --weights 1,2,3, name = x").unwrap();
        assert_eq!(
            (b.name.as_str(), b.cmd.as_str(), b.dir.clone(), b.time),
            ("x", "agent --weights 1,2,3", None, None)
        );
        for (bad, says) in [
            ("name=a", "cmd= is missing"),
            ("cmd=a", "name= is missing"),
            ("nme=a,cmd=b", "unknown key \"nme\""),
            ("name=a,cmd=b,name=c", "given twice"),
            ("name=a,cmd=b,time=-1", "positive number"),
            ("name=a,cmd=b,time=inf", "positive number"),
            ("python3 x.py", "no KEY="),
        ] {
            let e = AgentSpec::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        // An unknown key after a comma stays part of the command (pre-flight
        // then shows the command as run).
        assert_eq!(AgentSpec::parse("name=a,cmd=b,colour=red").unwrap().cmd, "b,colour=red");
    }

    #[test]
    fn home_resolution_and_command_words() {
        let home = std::env::temp_dir().join(format!("referee-home-{}", std::process::id()));
        std::fs::create_dir_all(home.join("bin")).unwrap();
        std::fs::write(home.join("my_agent.py"), "").unwrap();
        std::fs::write(home.join("bin/agent"), "").unwrap();
        let abs = std::fs::canonicalize(&home).unwrap();
        let h = abs.display().to_string();
        let system = Some(std::ffi::OsStr::new("/usr/bin:/bin"));
        let resolve = |cmd: &str| resolve_with_path(cmd, &abs, system);
        assert_eq!(resolve("python3 my_agent.py"), format!("python3 {h}/my_agent.py"));
        assert_eq!(resolve("./bin/agent --x 1"), format!("{h}/bin/agent --x 1"));
        assert_eq!(resolve("java -cp . MyAgent"), format!("java -cp {h} MyAgent"));
        // A bare program name is looked up on PATH, not in the home.
        std::fs::write(home.join("python3"), "").unwrap();
        assert_eq!(resolve("python3 x.py"), "python3 x.py");
        // Quoting or expansion: left to the shell untouched.
        assert_eq!(resolve("python3 'my_agent.py'"), "python3 'my_agent.py'");
        // A comment is dropped, as the shell would drop it.
        assert_eq!(
            resolve("python3 my_agent.py # mine"),
            format!("python3 {h}/my_agent.py")
        );
        // A program found on PATH outside the system directories (a
        // ~/.cargo/bin, a venv) becomes its path, links not followed.
        let tools = home.join("tools");
        std::fs::create_dir_all(&tools).unwrap();
        std::os::unix::fs::symlink("/bin/sh", tools.join("myagent")).unwrap();
        let dirs = std::ffi::OsString::from(format!("{}:/usr/bin", tools.display()));
        assert_eq!(
            resolve_with_path("myagent --x", &abs, Some(&dirs)),
            format!("{}/myagent --x", tools.display())
        );
        let spec = AgentSpec::parse(&format!("name=a,cmd=x,dir={}", home.display())).unwrap();
        assert_eq!(spec.home(Path::new("/")).unwrap(), abs);
        let spec = AgentSpec::parse("name=a,cmd=x,dir=no/such/dir").unwrap();
        let e = spec.home(&abs).unwrap_err();
        assert!(e.contains("agent a") && e.contains("no/such/dir"), "{e}");
        let spec = AgentSpec::parse("name=a,cmd=x,dir=my_agent.py").unwrap();
        assert!(spec.home(&abs).unwrap_err().contains("not a directory"));
        std::fs::remove_dir_all(home).unwrap();
    }
}
