//! A plan's `[languages]`: the programs a course builds and runs each
//! language with (a venv's Python with numpy, a JDK of its own) and the
//! read-only directories they need, checked before anything runs.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The command of each language, and what the agents must see for them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Languages {
    /// Runs `homework.py` (default `python3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// Compiles `homework.java` (default `javac`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub javac: Option<String>,
    /// Runs the compiled `homework` class (default `java`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub java: Option<String>,
    /// Compiles `homework.cpp` (default `g++`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpp: Option<String>,
    /// Compiles `homework.c` (default `gcc`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<String>,
    /// Directories every build and agent may read (the venv, the JDK),
    /// as `--sandbox-ro` gives them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_only: Vec<PathBuf>,
}

/// A language's setting name and its default program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    Javac,
    Java,
    Cpp,
    C,
}

impl Lang {
    const ALL: [Lang; 5] = [Lang::Python, Lang::Javac, Lang::Java, Lang::Cpp, Lang::C];

    fn key(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Javac => "javac",
            Lang::Java => "java",
            Lang::Cpp => "cpp",
            Lang::C => "c",
        }
    }

    fn default_program(self) -> &'static str {
        match self {
            Lang::Python => "python3",
            Lang::Javac => "javac",
            Lang::Java => "java",
            Lang::Cpp => "g++",
            Lang::C => "gcc",
        }
    }
}

impl Languages {
    /// Whether nothing is set (then the table is left out of `plan.toml`).
    pub(crate) fn is_default(&self) -> bool {
        *self == Languages::default()
    }

    fn setting(&self, l: Lang) -> Option<&String> {
        match l {
            Lang::Python => self.python.as_ref(),
            Lang::Javac => self.javac.as_ref(),
            Lang::Java => self.java.as_ref(),
            Lang::Cpp => self.cpp.as_ref(),
            Lang::C => self.c.as_ref(),
        }
    }

    /// The program `l` runs with.
    pub(crate) fn program(&self, l: Lang) -> &str {
        self.setting(l).map_or(l.default_program(), String::as_str)
    }

    /// Refuses a program that is not an executable file (an absolute
    /// path, or found on `PATH`) and a read-only entry that is not a
    /// directory, naming the setting.
    pub(crate) fn check(&self) -> Result<(), String> {
        for l in Lang::ALL {
            let Some(p) = self.setting(l) else { continue };
            let found = if p.contains('/') {
                Path::new(p).is_absolute() && executable(Path::new(p))
            } else {
                std::env::var_os("PATH").is_some_and(|dirs| crate::process::resolve::on_path(p, &dirs).is_some())
            };
            if !found {
                return Err(format!(
                    "languages.{} = {p:?} is not an executable program (give an absolute path, or a name on PATH)",
                    l.key()
                ));
            }
        }
        for d in &self.read_only {
            if !d.is_absolute() || !d.is_dir() || d == Path::new("/") {
                return Err(format!(
                    "languages.read_only: {} is not a directory to show the agents (an absolute path other than /)",
                    d.display()
                ));
            }
        }
        Ok(())
    }

    /// A hint for a failure that looks like a module or class the
    /// language's installation lacks: which setting gives the program.
    pub(crate) fn hint(&self, why: &str) -> Option<String> {
        let l = if why.contains("ModuleNotFoundError") || why.contains("No module named") {
            Lang::Python
        } else if why.contains("package ") && why.contains(" does not exist") {
            Lang::Javac
        } else if why.contains("NoClassDefFoundError") || why.contains("ClassNotFoundException") {
            Lang::Java
        } else if why.contains("fatal error:") && why.contains("No such file") {
            Lang::Cpp
        } else {
            return None;
        };
        Some(format!(
            "a module or library the program needs is missing from `{}`: the plan's [languages] {} = \"...\" names the program to use (and read_only the directories it needs)",
            self.program(l),
            l.key()
        ))
    }
}

fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked_and_missing_modules_name_them() {
        let mut l = Languages::default();
        assert!(l.check().is_ok() && l.is_default());
        assert_eq!(l.program(Lang::Python), "python3");
        l.python = Some("/no/such/python3".into());
        assert!(l.check().unwrap_err().contains("languages.python"));
        l.python = Some("/bin/sh".into());
        l.read_only = vec!["/".into()];
        assert!(l.check().unwrap_err().contains("languages.read_only"));
        l.read_only = vec!["/usr".into()];
        assert!(l.check().is_ok());
        let h = l
            .hint("Traceback ... ModuleNotFoundError: No module named 'numpy'")
            .unwrap();
        assert!(h.contains("[languages] python") && h.contains("/bin/sh"), "{h}");
        assert!(l.hint("illegal move").is_none());
    }
}
