//! The grading's own records: `OUT/plan.toml` (the plan every student is
//! graded on, with its seed), `OUT/records/results.jsonl` (one line per
//! finished test, appended and flushed at once) and
//! `OUT/records/games.jsonl` (the games' records, for replays). A resumed
//! grading must use the same plan; a line cut short by a kill is dropped.

use super::exam::TestResult;
use super::plan::GradePlan;
use crate::output::record::{self, GameRecord};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The results file of a grading, shared by its workers.
pub(crate) struct Results {
    path: PathBuf,
    games: PathBuf,
    lock: Mutex<()>,
    /// Opened to read another grading (`referee merge`): a line cut short
    /// is skipped, never cut from the file.
    read_only: bool,
}

impl Results {
    /// Opens the records under `out` for `plan`: fresh (refusing a
    /// directory that holds a grading already, unless `resume`), or to
    /// continue one graded on the same plan.
    pub(crate) fn open(out: &Path, plan: &GradePlan, resume: bool) -> Result<Results, String> {
        let dir = out.join("records");
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let plan_file = out.join("plan.toml");
        let text = plan.to_toml();
        match std::fs::read_to_string(&plan_file) {
            Ok(old) if !resume => {
                let _ = old;
                return Err(format!(
                    "{} holds a grading already: continue it with --resume, or give another --out",
                    out.display()
                ));
            }
            Ok(old) if old != text => {
                return Err(format!(
                    "{} was graded on another plan (or seed, or overrides): resume with the same arguments, or give another --out",
                    out.display()
                ))
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::write(&plan_file, &text).map_err(|e| format!("cannot write {}: {e}", plan_file.display()))?
            }
            Err(e) => return Err(format!("cannot read {}: {e}", plan_file.display())),
        }
        Ok(Results {
            path: dir.join("results.jsonl"),
            games: dir.join("games.jsonl"),
            lock: Mutex::new(()),
            read_only: false,
        })
    }

    /// The records of a finished grading under `out`, to read (`referee
    /// merge`): nothing is created.
    pub(crate) fn existing(out: &Path) -> Results {
        let dir = out.join("records");
        Results {
            path: dir.join("results.jsonl"),
            games: dir.join("games.jsonl"),
            lock: Mutex::new(()),
            read_only: true,
        }
    }

    /// Every result so far (a last line cut short by a kill is dropped
    /// from the file).
    pub(crate) fn all(&self) -> Result<Vec<TestResult>, String> {
        let _held = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.read()
    }

    fn read(&self) -> Result<Vec<TestResult>, String> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("cannot read {}: {e}", self.path.display())),
        };
        let mut out = Vec::new();
        let whole = text.rfind('\n').map_or(0, |i| i + 1);
        if whole < text.len() && !self.read_only {
            // A kill cut the last line: that test runs again.
            let f = std::fs::OpenOptions::new().write(true).open(&self.path);
            f.and_then(|f| f.set_len(whole as u64))
                .map_err(|e| format!("cannot repair {}: {e}", self.path.display()))?;
        }
        for (n, line) in text[..whole].lines().enumerate() {
            let r: TestResult = serde_json::from_str(line)
                .map_err(|e| format!("{} line {}: not a test result ({e})", self.path.display(), n + 1))?;
            out.push(r);
        }
        Ok(out)
    }

    /// The results of `student`.
    pub(crate) fn of(&self, student: &str) -> Result<Vec<TestResult>, String> {
        Ok(self.all()?.into_iter().filter(|r| r.student == student).collect())
    }

    /// The tests `student` has taken.
    pub(crate) fn taken(&self, student: &str) -> Result<Vec<String>, String> {
        Ok(self.of(student)?.into_iter().map(|r| r.test).collect())
    }

    /// Appends one finished test, flushed to disk before it counts.
    pub(crate) fn add(&self, r: &TestResult) -> Result<(), String> {
        self.add_all(std::slice::from_ref(r))
    }

    /// Appends finished tests in one write, flushed to disk before they count.
    pub(crate) fn add_all(&self, rs: &[TestResult]) -> Result<(), String> {
        let _held = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut line = String::new();
        for r in rs {
            line += &serde_json::to_string(r).map_err(|e| e.to_string())?;
            line.push('\n');
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| format!("cannot open {}: {e}", self.path.display()))?;
        f.write_all(line.as_bytes())
            .and_then(|()| f.sync_data())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }

    /// Appends a game test: its record first, then its result (a kill in
    /// between plays the game again; its first record is then superseded).
    pub(crate) fn add_game(&self, r: &TestResult, rec: &GameRecord) -> Result<(), String> {
        {
            let _held = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            record::append(&self.games, rec).map_err(|e| format!("cannot write {}: {e}", self.games.display()))?;
        }
        self.add(r)
    }

    /// The game records (the last one of each key).
    pub(crate) fn game_records(&self) -> Result<Vec<GameRecord>, String> {
        let _held = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut recs = record::load(&self.games, !self.read_only)?;
        let mut seen = std::collections::HashSet::new();
        recs.reverse();
        recs.retain(|r| seen.insert(r.key.clone()));
        recs.reverse();
        Ok(recs)
    }

    /// Drops every result of `student` (`--only`: graded again).
    pub(crate) fn forget(&self, student: &str) -> Result<(), String> {
        let _held = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let kept: Vec<TestResult> = self.read()?.into_iter().filter(|r| r.student != student).collect();
        let mut text = String::new();
        for r in &kept {
            text += &serde_json::to_string(r).map_err(|e| e.to_string())?;
            text.push('\n');
        }
        // Through a temporary file and a rename: a kill leaves the old file
        // or the new one, never half of it.
        let tmp = self.path.with_extension("jsonl.tmp");
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &self.path))
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}
