//! A student's submission: its entry point, found as the course platform
//! finds it, and its build, once, under the sandbox (the code is
//! untrusted): the folder is taken in ([`intake`]) to a directory of its
//! own bounded by `--disk`, built there with a CPU limit and no network,
//! and the agent then runs from there.

use super::intake::{self, Caps, Snapshot, Student};
use crate::game::{Contestant, SeatKind};
use crate::process::agentinfo::printable;
use crate::process::command::AgentCommand;
use crate::process::runner::{self, Exit, Homes, Killed, RunSpec};
use crate::process::sandbox::Sandbox;
use crate::process::workdir;
use std::io::Read;
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
            return Ok(Entry::Run(run_line(&run, paths)?));
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

/// The names an entry point may have, in the platform's order.
const ENTRY_NAMES: [&str; 6] = [
    "run",
    "homework.py",
    "homework.java",
    "homework.cpp",
    "homework.c",
    "homework",
];
/// The most a `run` file may hold: one command line.
const MAX_RUN: u64 = 4096;

/// Where a `run` file's command may name files: its own folder (relative
/// paths that stay in it) and the system's directories, never the class,
/// another student's build or the organiser's files.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunPaths {
    /// Absolute paths a command may name (the system's directories and the
    /// plan's read-only ones).
    pub allowed: Vec<PathBuf>,
    /// Absolute paths it may never name, even inside those (the class
    /// folder, `--out` and the builds).
    pub refused: Vec<PathBuf>,
}

impl RunPaths {
    /// The system's directories and `read_only`, without `refused`.
    pub(crate) fn new(read_only: &[PathBuf], refused: Vec<PathBuf>) -> RunPaths {
        let system = [
            "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc",
        ];
        RunPaths {
            allowed: system
                .iter()
                .map(PathBuf::from)
                .chain(read_only.iter().cloned())
                .collect(),
            refused,
        }
    }

    /// Why `word`'s paths are refused, if one is.
    fn check(&self, word: &str) -> Result<(), String> {
        let seps = |c: char| c.is_whitespace() || "=:;()'\"`<>|&,".contains(c);
        for tok in word
            .split(seps)
            .filter(|t| t.contains('/') || *t == ".." || t.starts_with('~'))
        {
            let p = Path::new(tok);
            let out = if tok.starts_with('~') {
                true
            } else if p.is_absolute() {
                !self.allowed.iter().any(|a| p.starts_with(a)) || self.refused.iter().any(|r| p.starts_with(r))
            } else {
                leaves(p)
            };
            if out {
                return Err(format!(
                    "its run file names {}, outside its folder: a command may name files in its folder and the system's programs ({}) only",
                    printable(tok),
                    self.allowed.iter().map(|a| a.display().to_string()).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        Ok(())
    }
}

/// Whether the relative path `p` climbs out of the folder it starts in.
fn leaves(p: &Path) -> bool {
    let mut depth = 0i32;
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => depth -= 1,
            std::path::Component::Normal(_) => depth += 1,
            _ => {}
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

/// The command line of the `run` file at `path`: read with a cap, as
/// text, its paths checked; or why it cannot be run.
fn run_line(path: &Path, paths: &RunPaths) -> Result<String, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read its run file: {e}"))?;
    let mut bytes = Vec::new();
    f.take(MAX_RUN + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read its run file: {e}"))?;
    if bytes.len() as u64 > MAX_RUN {
        return Err(format!(
            "its run file is over {MAX_RUN} bytes: it holds one command line"
        ));
    }
    if let Some(i) = bytes.iter().position(|&b| b == 0) {
        return Err(format!(
            "its run file holds a NUL byte (at byte {i}): it must be a line of text"
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "its run file is not UTF-8 text (at byte {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .ok_or("its run file holds no command line")?;
    let words = crate::process::command::words(line)
        .map_err(|_| format!("its run file's command has an unbalanced quote: {}", printable(line)))?;
    for w in &words {
        paths.check(w)?;
    }
    Ok(line.to_string())
}

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
    if let Some(cmd) = entry.build_command() {
        compile(cmd, home, sandbox, build.cpu, stop)?;
    }
    if let Some(over) = workdir::usage(home).excess(disk) {
        return Err(format!("its build {over}"));
    }
    let me = Contestant {
        name: student.id.clone(),
        kind: SeatKind::Agent(AgentCommand::new(entry.command(home))),
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
        assert_eq!(Entry::Java.command(Path::new("/b/x")), "java -cp /b/x homework");
        assert_eq!(home_of(Path::new("/g/out"), "ann"), Path::new("/g/out.builds/ann"));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_run_file_is_one_line_of_text_naming_only_its_folder_and_the_system() {
        let d = std::env::temp_dir().join(format!("referee-runfile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let paths = RunPaths::new(&[], vec![PathBuf::from("/usr/class")]);
        let run = |bytes: &[u8]| {
            std::fs::write(d.join("run"), bytes).unwrap();
            Entry::find(&d, &paths)
        };
        assert!(run(b"./a\0b").unwrap_err().contains("NUL byte (at byte 3)"));
        assert!(run(b"./a \xff").unwrap_err().contains("not UTF-8 text (at byte 4)"));
        assert!(run(&vec![b'a'; 5000]).unwrap_err().contains("over 4096 bytes"));
        assert!(run(b"./a 'b").unwrap_err().contains("unbalanced quote"));
        for bad in [
            "../bob/agent",
            "./x/../../bob",
            "/home/ta/class/bob/a",
            "sh -c 'cat ../bob/x'",
            "~/secret",
            "/usr/class/bob",
        ] {
            let e = run(bad.as_bytes()).unwrap_err();
            assert!(e.contains("outside its folder"), "{bad}: {e}");
        }
        for good in [
            "./agent --level 5",
            "/usr/bin/python3 bot.py",
            "java -cp . Main",
            "./a/../b",
        ] {
            assert_eq!(run(good.as_bytes()).unwrap(), Entry::Run(good.into()), "{good}");
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
