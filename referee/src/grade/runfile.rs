//! A submission's `run` file: one line of text read with a cap, its
//! words split as `sh` would and every path in them kept to the folder
//! and the system's directories.

use crate::process::agentinfo::printable;
use std::io::Read;
use std::path::{Path, PathBuf};

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
pub(super) fn line(path: &Path, paths: &RunPaths) -> Result<String, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_file_is_one_line_of_text_naming_only_its_folder_and_the_system() {
        let d = std::env::temp_dir().join(format!("referee-runfile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let paths = RunPaths::new(&[], vec![PathBuf::from("/usr/class")]);
        let run = |bytes: &[u8]| {
            std::fs::write(d.join("run"), bytes).unwrap();
            super::super::submission::Entry::find(&d, &paths)
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
            assert_eq!(
                run(good.as_bytes()).unwrap(),
                super::super::submission::Entry::Run(good.into()),
                "{good}"
            );
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
