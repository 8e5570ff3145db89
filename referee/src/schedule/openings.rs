//! Opening suites: the start positions of game pairs (`--openings`).
//!
//! Each opening is played by a game pair with the agents swapped, and a run
//! takes openings in order, so no opening repeats until the suite is used
//! up (then it cycles). A suite is a file of `input.txt` positions, a
//! directory of them, or `random:PLIES`: positions reached by PLIES random
//! legal plies from the generated start (the agent library's one generator,
//! [`agent::random_plies`]), never repeated within a run, and rejected
//! when a shallow search already finds a forced result.

use agent::{decided, random_plies};
use agent::{FileGame, GenOptions, Mode};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Separator line between positions in a multi-position file.
pub(crate) const SEPARATOR: &str = "---";
/// The most bytes read from one file of openings (tens of thousands of
/// positions); it is opened without blocking and must be a regular file.
pub(crate) const MAX_OPENINGS_BYTES: u64 = 64 << 20;

/// Where openings come from, as given on the command line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum OpeningSpec {
    /// `FILE` or `DIR`.
    Path(PathBuf),
    /// `random:PLIES`.
    Random {
        /// Random legal plies from the start.
        plies: usize,
    },
}

impl OpeningSpec {
    /// Parses `FILE`, `DIR` or `random:PLIES`.
    pub(crate) fn parse(s: &str) -> Result<OpeningSpec, String> {
        if let Some(p) = s.strip_prefix("random:") {
            let plies = p.trim().parse::<usize>().map_err(|_| {
                format!("--openings random:PLIES needs a whole number of plies, found {p:?} (e.g. random:4)")
            })?;
            if plies == 0 {
                return Err("--openings random:PLIES needs at least 1 ply (without --openings every pair starts from the generated start)".into());
            }
            return Ok(OpeningSpec::Random { plies });
        }
        if s.trim().is_empty() {
            return Err("--openings needs FILE, DIR or random:PLIES".into());
        }
        Ok(OpeningSpec::Path(PathBuf::from(s)))
    }
}

/// One start position of a suite.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Opening {
    /// Stable name for records: `FILE`, `FILE#N` (N-th position of a
    /// multi-position file, from 1) or `random:PLIES#N`.
    pub id: String,
    /// The position as an `input.txt`.
    pub text: String,
}

/// Reads a suite from a file or a directory (every regular file in it, by
/// name; hidden files skipped). A file holds one position or several
/// Characters of a parse error quoted at most: an opening file may hold a
/// line of megabytes, and the error quotes the line.
const QUOTE_CAP: usize = 300;

/// `message` cut to `QUOTE_CAP` characters, saying how much was left out.
pub(crate) fn capped(message: &str) -> String {
    let n = message.chars().count();
    if n <= QUOTE_CAP {
        return message.to_string();
    }
    let head: String = message.chars().take(QUOTE_CAP).collect();
    format!("{head}... ({} more characters)", n - QUOTE_CAP)
}

/// separated by lines of `---`.
pub(crate) fn load(path: &Path) -> Result<Vec<Opening>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read --openings {}: {e}", path.display()))?;
    let mut files = Vec::new();
    if meta.is_dir() {
        let entries = std::fs::read_dir(path).map_err(|e| format!("cannot list --openings {}: {e}", path.display()))?;
        for e in entries {
            let e = e.map_err(|e| format!("cannot list --openings {}: {e}", path.display()))?;
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            // Not followed, not skipped: a link or a FIFO among the positions
            // is a mistake (or a trap) the organiser should hear about.
            let kind = e
                .file_type()
                .map_err(|err| format!("cannot read {}: {err}", e.path().display()))?;
            if !kind.is_file() {
                let what = if kind.is_symlink() {
                    "a symbolic link"
                } else if kind.is_dir() {
                    "a directory"
                } else {
                    "not a regular file"
                };
                return Err(format!(
                    "--openings {}: {} is {what}; an openings directory holds only position files",
                    path.display(),
                    e.path().display()
                ));
            }
            files.push(e.path());
        }
        files.sort();
        if files.is_empty() {
            return Err(format!(
                "--openings {}: the directory holds no position files",
                path.display()
            ));
        }
    } else {
        files.push(path.to_path_buf());
    }
    let mut out = Vec::new();
    for f in files {
        let text = agent::read_capped(&f, MAX_OPENINGS_BYTES)
            .map_err(|e| format!("cannot read opening {}: {e}", f.display()))?;
        let parts = split_positions(&text);
        let name = f.display().to_string();
        let several = parts.len() > 1;
        for (i, t) in parts.into_iter().enumerate() {
            let id = if several {
                format!("{name}#{}", i + 1)
            } else {
                name.clone()
            };
            out.push(Opening { id, text: t });
        }
    }
    if out.is_empty() {
        return Err(format!("--openings {}: no positions found", path.display()));
    }
    Ok(out)
}

/// Splits a file's text at `---` lines, dropping empty pieces.
fn split_positions(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    for line in text.lines() {
        if line.trim() == SEPARATOR {
            parts.push(String::new());
        } else {
            let cur = parts.last_mut().expect("at least one part");
            cur.push_str(line);
            cur.push('\n');
        }
    }
    parts.retain(|p| !p.trim().is_empty());
    parts
}

/// Checks that every opening is a valid position of `G` with the game not
/// over; the error names the opening and the parser's complaint.
pub(crate) fn check<G: FileGame>(openings: &[Opening]) -> Result<(), String> {
    for o in openings {
        let inp = G::parse_input(&o.text).map_err(|e| {
            format!(
                "opening {}: not a {} position: {}",
                o.id,
                G::NAME,
                capped(&e.to_string())
            )
        })?;
        if inp.state.result().is_some() {
            return Err(format!("opening {}: the game is already over in this position", o.id));
        }
    }
    Ok(())
}

/// Random openings, made on demand in order and remembered (as `input.txt`
/// texts, so one suite serves any game type), so that the n-th opening of a
/// run does not depend on which games (or which shard) asked first.
#[derive(Debug)]
pub(crate) struct RandomSuite {
    gen: GenOptions,
    plies: usize,
    made: Mutex<(Vec<String>, HashSet<u64>, SmallRng)>,
}

/// Attempts at an unseen, undecided position before a repeat is accepted
/// (tiny boards have few distinct openings).
const ATTEMPTS: usize = 1000;

impl RandomSuite {
    /// A suite of positions `plies` random plies from the generated start
    /// (`gen`, whose seed also seeds the random plies).
    pub(crate) fn new(gen: GenOptions, plies: usize) -> Self {
        let rng = SmallRng::seed_from_u64(gen.seed ^ 0x6f70_656e_696e_6773);
        RandomSuite {
            gen,
            plies,
            made: Mutex::new((Vec::new(), HashSet::new(), rng)),
        }
    }

    /// The `n`-th opening (0-based) as a position of `G`.
    pub(crate) fn get<G: FileGame>(&self, n: usize) -> Result<G, String> {
        let mut guard = self.made.lock().map_err(|_| "opening generator poisoned".to_string())?;
        let (made, seen, rng) = &mut *guard;
        while made.len() <= n {
            let mut fallback = None;
            let mut found = None;
            for _ in 0..ATTEMPTS {
                let mut o = self.gen.clone();
                // Generated starts may vary with the seed (Hinger boards); vary them too.
                o.seed = self.gen.seed.wrapping_add(made.len() as u64);
                let start = G::generate(&o)?;
                if let Some(p) = random_plies(&start, self.plies, rng).filter(|p| !decided(p)) {
                    if seen.insert(p.hash()) {
                        found = Some(p);
                        break;
                    }
                    fallback.get_or_insert(p);
                }
            }
            match found.or(fallback) {
                // The time line is rewritten for each game; only the position matters.
                Some(p) => made.push(p.write_input(Mode::Game, 1.0)),
                None => {
                    return Err(format!(
                        "--openings random:{}: no undecided {} position found {} plies from the start in {ATTEMPTS} tries; use fewer plies",
                        self.plies,
                        G::NAME,
                        self.plies
                    ))
                }
            }
        }
        G::parse_input(&made[n])
            .map(|i| i.state)
            .map_err(|e| format!("random opening {}: {e}", self.id(n)))
    }

    /// The recorded name of the `n`-th opening.
    pub(crate) fn id(&self, n: usize) -> String {
        format!("random:{}#{}", self.plies, n + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent::Game;
    use agent::Setup;
    use agent::TestNim;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("referee-openings-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn spec_parsing() {
        assert_eq!(OpeningSpec::parse("random:4"), Ok(OpeningSpec::Random { plies: 4 }));
        assert_eq!(OpeningSpec::parse("book.txt"), Ok(OpeningSpec::Path("book.txt".into())));
        let e = OpeningSpec::parse("random:x").unwrap_err();
        assert!(e.contains("random:4"), "{e}");
        assert!(OpeningSpec::parse("random:0").is_err());
        assert!(OpeningSpec::parse("").is_err());
    }

    #[test]
    fn files_directories_and_bad_positions() {
        let d = tmp("load");
        std::fs::write(d.join("a.txt"), "TESTNIM\nGAME\n1\n10.0\n5\n").unwrap();
        std::fs::write(
            d.join("b.txt"),
            "TESTNIM\nGAME\n1\n10.0\n6\n---\nTESTNIM\nGAME\n2\n10.0\n7\n---\n",
        )
        .unwrap();
        std::fs::write(d.join(".hidden"), "junk").unwrap();
        let all = load(&d).unwrap();
        let ids: Vec<String> = all
            .iter()
            .map(|o| o.id.rsplit('/').next().unwrap().to_string())
            .collect();
        assert_eq!(ids, ["a.txt", "b.txt#1", "b.txt#2"]);
        check::<TestNim>(&all).unwrap();
        assert_eq!(load(&d.join("b.txt")).unwrap().len(), 2);
        std::fs::write(d.join("c.txt"), "TESTNIM\nGAME\n1\n10.0\nseven\n").unwrap();
        let e = check::<TestNim>(&load(&d).unwrap()).unwrap_err();
        assert!(e.contains("c.txt") && e.contains("testnim"), "{e}");
        std::fs::write(d.join("c.txt"), "TESTNIM\nGAME\n1\n10.0\n0\n").unwrap();
        let e = check::<TestNim>(&load(&d).unwrap()).unwrap_err();
        assert!(e.contains("already over"), "{e}");
        assert!(load(&d.join("missing")).unwrap_err().contains("cannot read"));
        // A huge line is quoted only in part.
        let long = format!("TESTNIM\nGAME\n1\n10.0\n{}\n", "9".repeat(100_000));
        std::fs::write(d.join("c.txt"), long).unwrap();
        let e = check::<TestNim>(&load(&d).unwrap()).unwrap_err();
        assert!(e.len() < 1000 && e.contains("more characters)"), "{}", e.len());
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn an_openings_directory_refuses_links_fifos_and_directories() {
        for (name, make) in [("link", 0), ("fifo", 1), ("dir", 2)] {
            let d = tmp(name);
            std::fs::write(d.join("a.txt"), "TESTNIM\nGAME\n1\n10.0\n5\n").unwrap();
            let p = d.join("b.txt");
            match make {
                0 => std::os::unix::fs::symlink("/etc/passwd", &p).unwrap(),
                1 => {
                    let (fifo, mode) = (rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o644));
                    rustix::fs::mknodat(rustix::fs::CWD, &p, fifo, mode, 0).unwrap();
                }
                _ => std::fs::create_dir(&p).unwrap(),
            }
            let e = load(&d).unwrap_err();
            assert!(e.contains("b.txt is ") && e.contains("only position files"), "{e}");
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    #[test]
    fn random_openings_are_reproducible_distinct_and_undecided() {
        let gen = GenOptions {
            size: Some(40),
            seed: 7,
            ..GenOptions::default()
        };
        let a = RandomSuite::new(gen.clone(), 4);
        let b = RandomSuite::new(gen, 4);
        // Asking out of order gives the same n-th opening.
        let late = b.get::<TestNim>(5).unwrap();
        let mut seen = HashSet::new();
        for n in 0..6 {
            let p = a.get::<TestNim>(n).unwrap();
            assert!(p.result().is_none());
            assert!(seen.insert(p.hash()), "opening {n} repeats");
        }
        assert_eq!(a.get::<TestNim>(5).unwrap(), late);
        assert_eq!(a.id(0), "random:4#1");
    }
}
