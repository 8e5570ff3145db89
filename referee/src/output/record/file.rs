//! The file of game records: one JSON line per game, appended whole and
//! read back with a cut-short last line repaired.

use super::GameRecord;
use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

/// Appends one record as a JSON line and flushes it to disk.
pub fn append(path: &Path, rec: &GameRecord) -> std::io::Result<()> {
    let mut line = serde_json::to_string(rec).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut f = OpenOptions::new().create(true).append(true).open(path)?;
    let before = f.metadata()?.len();
    // One write call for the whole line, so concurrent appenders never
    // interleave; a line cut short (a full disk) is taken back whole.
    if let Err(e) = f.write_all(line.as_bytes()).and_then(|()| f.sync_data()) {
        let _ = f.set_len(before);
        return Err(e);
    }
    Ok(())
}

/// The most bytes read from one file of game records (about 100,000 long
/// games with per-move details); a bigger file is refused, not loaded.
pub(crate) const MAX_RECORDS_BYTES: u64 = 1 << 30;

/// Reads every record of a file (a missing file holds none). The file is
/// opened without blocking and must be a regular file of at most
/// [`MAX_RECORDS_BYTES`]. A final line without its newline (a write cut
/// short by a kill) is dropped from the file, so that game is replayed; any
/// other unreadable line is an error naming the line.
pub fn load(path: &Path, repair: bool) -> Result<Vec<GameRecord>, String> {
    let mut text = match agent::read_capped(path, MAX_RECORDS_BYTES) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    if !text.is_empty() && !text.ends_with('\n') {
        let keep = text.rfind('\n').map_or(0, |i| i + 1);
        if repair {
            let f = OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| format!("cannot repair {}: {e}", path.display()))?;
            f.set_len(keep as u64)
                .map_err(|e| format!("cannot repair {}: {e}", path.display()))?;
            let mut f = f;
            let _ = f.seek(SeekFrom::End(0));
            eprintln!(
                "referee: dropped an unfinished last line of {} (that game will be replayed)",
                path.display()
            );
        }
        text.truncate(keep);
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let rec: GameRecord = serde_json::from_str(line)
            .map_err(|e| format!("{} line {}: not a game record: {e}", path.display(), i + 1))?;
        out.push(rec);
    }
    Ok(out)
}
