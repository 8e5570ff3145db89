//! How an agent command's program and files are found: words naming files
//! in the agent's home made absolute, a bare program found on the
//! referee's `PATH` outside the system directories made its path, so the
//! command works from any working directory and the sandbox can show the
//! agent what it names.

use crate::process::command::words;
use std::path::Path;

/// Makes the words of `cmd` that name files in `home` absolute, so the
/// command works from any working directory: the program when it is a path
/// (`./my_agent`, `bin/agent`), and any later word naming an existing file
/// or directory (`my_agent.py`, `.` in `java -cp . MyAgent`). Options
/// (`-x`), absolute paths and words in a command using shell quoting or
/// expansion are left alone; a comment (`# ...`) is dropped, as `sh` would. A bare program name found on the referee's
/// `PATH` outside the system directories (`agent` in `~/.cargo/bin`, a
/// venv's `python`) becomes that path, so the sandbox can show it to the
/// agent as the user's shell would have found it.
pub(crate) fn resolve_in_home(cmd: &str, home: &Path) -> String {
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
        std::fs::remove_dir_all(home).unwrap();
    }
}
