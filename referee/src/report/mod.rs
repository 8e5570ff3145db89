//! What a run reports: the terminal tables ([`tables`]) and the results
//! files ([`results`]; a Swiss's part: [`swiss`]), and `referee report`: one self-contained HTML file (inline SVG, CSS and
//! script; no network) from a run's records: a replay of every game with its
//! move list and clock charts, and for several games the standings,
//! head-to-head table, Elo with its interval and their history.
//!
//! - [`data`]: a record replayed into per-ply board data (from each game's
//!   `board_view`).
//! - [`page`]: the HTML around it; the replay itself is drawn by
//!   `report.js` in the browser. A Swiss's own section: [`swiss_page`].

pub(crate) mod board_svg;
pub mod data;
pub(crate) mod page;
pub(crate) mod results;
pub(crate) mod swiss;
pub(crate) mod swiss_page;
pub(crate) mod tables;

use crate::for_game;
use crate::output::record::{self, GameRecord};
use clap::Args;
use std::path::{Path, PathBuf};

/// `referee report`.
#[derive(Args, Clone, Debug)]
pub(crate) struct ReportArgs {
    /// A run's --out directory (its records.jsonl is read) or a records file.
    pub input: PathBuf,
    /// Where to write the HTML (default: report.html next to the records).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// The records file named by a directory or file argument.
pub(crate) fn records_path(input: &Path) -> PathBuf {
    if input.is_dir() {
        input.join("records.jsonl")
    } else {
        input.to_path_buf()
    }
}

/// Replays every record into page data, each through its own game's rules.
pub(crate) fn games_data(recs: &[GameRecord]) -> Result<Vec<data::GameData>, String> {
    recs.iter()
        .map(|r| for_game!(&r.game, |G| data::game_data::<G>(r)))
        .collect()
}

/// Writes the report of the records in `records` to `out`.
pub(crate) fn write_report(records: &Path, out: &Path) -> Result<(), String> {
    if !records.exists() {
        return Err(format!(
            "{} does not exist (give a run's --out directory or its records.jsonl)",
            records.display()
        ));
    }
    let recs = record::load(records, false)?;
    if recs.is_empty() {
        return Err(format!("{} holds no game records", records.display()));
    }
    let swiss = match records.parent() {
        Some(dir) => swiss_page::load(dir)?.map(|p| swiss_page::section(&p, &recs)),
        None => None,
    };
    write_report_with(&recs, &records.display().to_string(), out, swiss.as_deref())
}

/// Writes the report of `recs` to `out`, naming `source` as where they are
/// recorded.
pub(crate) fn write_report_of(recs: &[GameRecord], source: &str, out: &Path) -> Result<(), String> {
    write_report_with(recs, source, out, None)
}

/// [`write_report_of`] with a Swiss's section.
fn write_report_with(recs: &[GameRecord], source: &str, out: &Path, swiss: Option<&str>) -> Result<(), String> {
    let games = games_data(recs)?;
    let mut kinds: Vec<&str> = Vec::new();
    for r in recs {
        if !kinds.contains(&r.game.as_str()) {
            kinds.push(&r.game);
        }
    }
    let title = format!("{} report: {} game(s)", kinds.join(", "), recs.len());
    let html = page::page(&title, source, recs, &games, swiss)?;
    std::fs::write(out, html).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// `referee report`: returns the exit code.
pub(crate) fn run_report(a: &ReportArgs) -> Result<i32, String> {
    let records = records_path(&a.input);
    let out = match &a.output {
        Some(o) => o.clone(),
        None => records.parent().unwrap_or(Path::new(".")).join("report.html"),
    };
    write_report(&records, &out)?;
    // Absolute, so it can be pasted into a browser from anywhere.
    let shown = std::path::absolute(&out).unwrap_or(out);
    println!("report: {}", shown.display());
    Ok(0)
}
