//! Agents' homes kept apart: two agents may see one directory only when
//! they run the same files of it (one program under two sets of options);
//! otherwise each would read the other's code and data.

use crate::game::{Contestant, SeatKind};
use std::path::{Path, PathBuf};

/// Two agents may share a home (`dir=`) only when they run the same files
/// of it (one program under different options): otherwise each would see
/// the other's code and data.
pub(super) fn check_private_homes(entries: &[(Contestant, Option<f64>)]) -> Result<(), String> {
    // The words of a command that name files in its home.
    let program = |c: &Contestant| {
        let home = c.home.as_deref().unwrap_or(Path::new("/"));
        let mut files: Vec<PathBuf> = crate::process::command::words(c.kind.command())
            .unwrap_or_default()
            .into_iter()
            .map(|w| home.join(w))
            .filter(|p| p.starts_with(home) && p.is_file())
            .collect();
        files.sort();
        files
    };
    for (i, (a, _)) in entries.iter().enumerate() {
        for (b, _) in &entries[i + 1..] {
            if let (Some(h), Some(hb)) = (&a.home, &b.home) {
                if h == hb && program(a) != program(b) {
                    return Err(format!(
                        "agents {} and {} share the home {}: each would see the other's files; give each agent a directory of its own (dir=)",
                        a.name,
                        b.name,
                        h.display()
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Each shown directory, with the files of it the command names.
type Shown = Vec<(PathBuf, Vec<PathBuf>)>;

/// Directories the sandbox shows every move of an agent without a home of
/// its own: those of the files its command names (its program, its
/// script, a data directory), outside the system's.
fn shown_dirs(c: &Contestant) -> Shown {
    const SYSTEM: [&str; 7] = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt"];
    let files: Vec<PathBuf> = crate::process::command::words(c.kind.command())
        .unwrap_or_default()
        .into_iter()
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    crate::process::sandbox::namespaces::command_paths(c.kind.command())
        .into_iter()
        .filter(|d| !SYSTEM.iter().any(|s| d.starts_with(s)))
        .map(|d| {
            // The files right in it: those of a program started from there.
            let mut mine: Vec<PathBuf> = files
                .iter()
                .filter(|f| f.parent() == Some(d.as_path()))
                .cloned()
                .collect();
            mine.sort();
            (d, mine)
        })
        .collect()
}

/// Two agents without a home of their own (`dir=`) may run files from one
/// directory only when they run the same files of it (one program under
/// two sets of options): otherwise each move of one would be shown the
/// other's code and data, as two different programs started from one
/// directory would be.
pub(super) fn check_shared_start_dirs(contestants: &[Contestant]) -> Result<(), String> {
    let agents: Vec<(&Contestant, Shown)> = contestants
        .iter()
        .filter(|c| c.home.is_none() && c.kind != SeatKind::Human)
        .map(|c| (c, shown_dirs(c)))
        .collect();
    for (i, (a, da)) in agents.iter().enumerate() {
        for (b, db) in &agents[i + 1..] {
            for (dir, fa) in da {
                if db.iter().any(|(d, fb)| d == dir && fb != fa) {
                    return Err(format!(
                        "agents {} and {} both run files from {} without a directory of their own: each would be shown the other's program and data there. Give each agent its own directory and name it with --agent name={},cmd=...,dir=DIR",
                        a.name,
                        b.name,
                        dir.display(),
                        a.name
                    ));
                }
            }
        }
    }
    Ok(())
}
