//! A student's submission: its entry point, found as the course platform
//! finds it, and its build, once, under the sandbox (the code is
//! untrusted): the folder is taken in ([`intake`]) to a directory of its
//! own bounded by `--disk`, built there with a CPU limit and no network,
//! and the agent then runs from there.

use super::intake::{self, Caps, Snapshot, Student};
use super::languages::{Lang, Languages};
use super::runfile::{self, RunPaths};
use crate::game::{Contestant, SeatKind};
use crate::process::agentinfo::printable;
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
    /// The entry point of the snapshot in `dir`, or why there is none.
    pub(crate) fn find(dir: &Path, paths: &RunPaths) -> Result<Entry, String> {
        let run = dir.join("run");
        if run.is_file() {
            return Ok(Entry::Run(runfile::line(&run, paths)?));
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
            _ => Err(format!(
                "no entry point: none of {}{}",
                ENTRY_NAMES.join(", "),
                near_miss(dir)
            )),
        }
    }

    /// The build command, if the entry needs one, with the plan's programs.
    fn build_command(&self, l: &Languages) -> Option<String> {
        match self {
            Entry::Java => Some(format!("{} homework.java", l.program(Lang::Javac))),
            Entry::Cpp => Some(format!("{} -O2 -o homework homework.cpp", l.program(Lang::Cpp))),
            Entry::C => Some(format!("{} -O2 -o homework homework.c -lm", l.program(Lang::C))),
            _ => None,
        }
    }

    /// The command that runs the built submission in `home`.
    fn command(&self, home: &Path, l: &Languages) -> String {
        let h = home.display();
        match self {
            Entry::Run(line) => crate::process::resolve::resolve_in_home(line, home),
            Entry::Python => format!("{} {h}/homework.py", l.program(Lang::Python)),
            Entry::Java => format!("{} -cp {h} homework", l.program(Lang::Java)),
            Entry::Cpp | Entry::C | Entry::Executable => format!("{h}/homework"),
        }
    }
}

/// The names an entry point may have, in the platform's order.
const ENTRY_NAMES: [&str; 6] = [
    "run",
    "homework.py",
    "homework.java",
    "homework.cpp",
    "homework.c",
    "homework",
];
/// A hint for a folder with no entry point: a name that differs from one
/// only in case (`Homework.py`).
fn near_miss(dir: &Path) -> String {
    let names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(String::from))
        .collect();
    let close = names.iter().find_map(|n| {
        ENTRY_NAMES
            .iter()
            .find(|e| e.eq_ignore_ascii_case(n) && *e != n)
            .map(|e| (n, e))
    });
    match close {
        Some((n, e)) => format!(" (it holds {}: names are case-sensitive, rename it {e})", printable(n)),
        None => String::new(),
    }
}

/// Takes `student`'s folder of `class_dir` into `home`, a fresh directory
/// bounded by `--disk` ([`intake`]), builds it there and returns the
/// contestant that runs it, with what the intake left out; or the reason
/// it scores nothing (escaped for a terminal).
pub(crate) fn build(
    student: &Student,
    class_dir: &Path,
    home: &Path,
    sandbox: &Sandbox,
    build: &BuildRules<'_>,
    stop: &AtomicBool,
) -> Result<(Contestant, Snapshot), String> {
    let disk = sandbox.limits.disk;
    workdir::create(home, disk).map_err(|e| format!("cannot create {}: {e}", home.display()))?;
    let caps = Caps {
        bytes: disk,
        entries: intake::MAX_ENTRIES,
    };
    let snapshot = intake::take_in(class_dir, &student.folder, home, caps)?;
    let entry = Entry::find(home, build.paths).map_err(|why| {
        match snapshot
            .left_out
            .iter()
            .find(|l| ENTRY_NAMES.iter().any(|n| l.starts_with(&format!("`{n}`"))))
        {
            Some(l) => format!("{why}; {l}"),
            None => why,
        }
    })?;
    if let Some(cmd) = entry.build_command(build.languages) {
        compile(&cmd, home, sandbox, build.cpu, stop).map_err(|why| match build.languages.hint(&why) {
            Some(h) => format!("{why} ({h})"),
            None => why,
        })?;
    }
    if let Some(over) = workdir::usage(home).excess(disk) {
        return Err(format!("its build {over}"));
    }
    let me = Contestant {
        name: student.id.clone(),
        kind: SeatKind::Agent(AgentCommand::new(entry.command(home, build.languages))),
        calibration: None,
        calibrate: None,
        home: Some(home.to_path_buf()),
    };
    Ok((me, snapshot))
}

/// What every build shares.
pub(crate) struct BuildRules<'a> {
    /// CPU seconds a build may take.
    pub cpu: f64,
    /// What a `run` file may name.
    pub paths: &'a RunPaths,
    /// The programs of each language.
    pub languages: &'a Languages,
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
    Err(if tail.is_empty() {
        why
    } else {
        format!("{why}: {}", printable(&tail))
    })
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
        let paths = RunPaths::new(&[], vec![PathBuf::from("/usr/class")]);
        assert!(Entry::find(&d, &paths).unwrap_err().contains("no entry point"));
        std::fs::write(d.join("Homework.py"), "").unwrap();
        let e = Entry::find(&d, &paths).unwrap_err();
        assert!(e.contains("names are case-sensitive, rename it homework.py"), "{e}");
        std::fs::write(d.join("homework"), "").unwrap();
        assert!(Entry::find(&d, &paths).unwrap_err().contains("chmod +x"));
        std::fs::write(d.join("homework.c"), "").unwrap();
        assert_eq!(Entry::find(&d, &paths).unwrap(), Entry::C);
        std::fs::write(d.join("homework.java"), "").unwrap();
        assert_eq!(Entry::find(&d, &paths).unwrap(), Entry::Java);
        std::fs::write(d.join("homework.py"), "").unwrap();
        assert_eq!(Entry::find(&d, &paths).unwrap(), Entry::Python);
        std::fs::write(d.join("run"), "# comment\n\n./my_agent --fast\n").unwrap();
        assert_eq!(Entry::find(&d, &paths).unwrap(), Entry::Run("./my_agent --fast".into()));
        std::fs::write(d.join("run"), "\n").unwrap();
        assert!(Entry::find(&d, &paths).unwrap_err().contains("no command"));
        let l = Languages::default();
        assert_eq!(Entry::Java.command(Path::new("/b/x"), &l), "java -cp /b/x homework");
        assert_eq!(home_of(Path::new("/g/out"), "ann"), Path::new("/g/out.builds/ann"));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
