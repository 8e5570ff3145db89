//! A student's submission: its entry point, found as the course platform
//! finds it, and its build, once, under the sandbox (the code is
//! untrusted): a copy of the folder is built in a directory of its own,
//! with a CPU limit and no network, and the agent then runs from there.

use crate::game::{Contestant, SeatKind};
use crate::process::command::AgentCommand;
use crate::process::runner::{self, Exit, Homes, Killed, RunSpec};
use crate::process::sandbox::Sandbox;
use crate::process::workdir;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// How a submission is run, in the order the platform looks for them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A file `run` holding one command line.
    Run(String),
    /// `homework.py`, run with python3.
    Python,
    /// `homework.java`: javac, then `java homework`.
    Java,
    /// `homework.cpp`: g++ -O2.
    Cpp,
    /// `homework.c`: gcc -O2.
    C,
    /// An executable `homework`.
    Executable,
}

impl Entry {
    /// The entry point of the submission in `dir`, or why there is none.
    pub(crate) fn find(dir: &Path) -> Result<Entry, String> {
        let run = dir.join("run");
        if run.is_file() {
            let text = std::fs::read_to_string(&run).map_err(|e| format!("cannot read its run file: {e}"))?;
            let line = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('#'));
            return match line {
                Some(l) => Ok(Entry::Run(l.to_string())),
                None => Err("its run file holds no command line".into()),
            };
        }
        let found = [
            ("homework.py", Entry::Python),
            ("homework.java", Entry::Java),
            ("homework.cpp", Entry::Cpp),
            ("homework.c", Entry::C),
        ]
        .into_iter()
        .find(|(f, _)| dir.join(f).is_file());
        if let Some((_, e)) = found {
            return Ok(e);
        }
        use std::os::unix::fs::PermissionsExt;
        match std::fs::metadata(dir.join("homework")) {
            Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(Entry::Executable),
            Ok(m) if m.is_file() => Err("its homework file is not executable (chmod +x homework)".into()),
            _ => Err("no entry point: none of run, homework.py, homework.java, homework.cpp, homework.c or an executable homework".into()),
        }
    }

    /// The build command, if the entry needs one.
    fn build_command(&self) -> Option<&'static str> {
        match self {
            Entry::Java => Some("javac homework.java"),
            Entry::Cpp => Some("g++ -O2 -o homework homework.cpp"),
            Entry::C => Some("gcc -O2 -o homework homework.c -lm"),
            _ => None,
        }
    }

    /// The command that runs the built submission in `home`.
    fn command(&self, home: &Path) -> String {
        let h = home.display();
        match self {
            Entry::Run(line) => crate::process::resolve::resolve_in_home(line, home),
            Entry::Python => format!("python3 {h}/homework.py"),
            Entry::Java => format!("java -cp {h} homework"),
            Entry::Cpp | Entry::C | Entry::Executable => format!("{h}/homework"),
        }
    }
}

/// Builds `student`'s submission (folder `src`) in `home`, a fresh copy
/// of it, and returns the contestant that runs it; or the reason it
/// scores nothing (the end of the compiler's message, for a failed build).
pub(crate) fn build(
    student: &str,
    src: &Path,
    home: &Path,
    sandbox: &Sandbox,
    cpu: f64,
    stop: &AtomicBool,
) -> Result<Contestant, String> {
    let entry = Entry::find(src)?;
    workdir::remove_all(home).map_err(|e| format!("cannot clear {}: {e}", home.display()))?;
    std::fs::create_dir_all(home).map_err(|e| format!("cannot create {}: {e}", home.display()))?;
    workdir::copy_into(src, home).map_err(|e| format!("cannot copy the submission: {e}"))?;
    if let Some(cmd) = entry.build_command() {
        compile(cmd, home, sandbox, cpu, stop)?;
    }
    Ok(Contestant {
        name: student.to_string(),
        kind: SeatKind::Agent(AgentCommand::new(entry.command(home))),
        calibration: None,
        calibrate: None,
        home: Some(home.to_path_buf()),
    })
}

/// Runs a build command in `home` under the sandbox.
fn compile(cmd: &str, home: &Path, sandbox: &Sandbox, cpu: f64, stop: &AtomicBool) -> Result<(), String> {
    let spec = RunSpec {
        cmd,
        extra_arg: None,
        dir: home,
        cpu_kill: cpu,
        wall_kill: cpu * 3.0 + 10.0,
        output_cap: runner::OUTPUT_CAP,
        sandbox,
        homes: Homes::default(),
    };
    let r = runner::run(&spec, stop).map_err(|e| format!("the build could not start: {e}"))?;
    let tail = compiler_says(&r.stderr_tail);
    let why = match (r.killed, r.exit) {
        (Some(Killed::Cpu | Killed::Wall), _) => format!("the build took longer than {cpu:.0} s"),
        (Some(Killed::Interrupted), _) => "the grading was interrupted".into(),
        (Some(Killed::Disk), _) => "the build wrote more than --disk allows".into(),
        (Some(Killed::Memory), _) => "the build held more memory than --memory allows".into(),
        (None, Exit::Code(0)) => return Ok(()),
        (None, e) => format!("the build failed ({e})"),
    };
    Err(if tail.is_empty() { why } else { format!("{why}: {tail}") })
}

/// What a failed build's output says, in a line: its first two error
/// lines (`file:line:col: error: ...`), else its last lines.
fn compiler_says(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let errors: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.to_ascii_lowercase().contains("error"))
        .take(2)
        .collect();
    if errors.is_empty() {
        let last = crate::process::agentinfo::last_lines(stderr, 3);
        last.lines().collect::<Vec<_>>().join(" / ")
    } else {
        errors.join(" / ")
    }
}

/// Where `student`'s build lives: beside `--out` (whose contents no agent
/// may see), in `OUT.builds/STUDENT`.
pub(crate) fn home_of(out: &Path, student: &str) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "grades".into());
    out.with_file_name(format!("{name}.builds")).join(student)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_points_are_found_in_the_platforms_order() {
        let d = std::env::temp_dir().join(format!("referee-entry-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        assert!(Entry::find(&d).unwrap_err().contains("no entry point"));
        std::fs::write(d.join("homework"), "").unwrap();
        assert!(Entry::find(&d).unwrap_err().contains("chmod +x"));
        std::fs::write(d.join("homework.c"), "").unwrap();
        assert_eq!(Entry::find(&d).unwrap(), Entry::C);
        std::fs::write(d.join("homework.java"), "").unwrap();
        assert_eq!(Entry::find(&d).unwrap(), Entry::Java);
        std::fs::write(d.join("homework.py"), "").unwrap();
        assert_eq!(Entry::find(&d).unwrap(), Entry::Python);
        std::fs::write(d.join("run"), "# comment\n\n./my_agent --fast\n").unwrap();
        assert_eq!(Entry::find(&d).unwrap(), Entry::Run("./my_agent --fast".into()));
        std::fs::write(d.join("run"), "\n").unwrap();
        assert!(Entry::find(&d).unwrap_err().contains("no command"));
        assert_eq!(Entry::Java.command(Path::new("/b/x")), "java -cp /b/x homework");
        assert_eq!(home_of(Path::new("/g/out"), "ann"), Path::new("/g/out.builds/ann"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
