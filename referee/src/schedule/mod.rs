//! The games of a run: which are played ([`roundrobin`]: the lazy list of
//! pairings; [`swiss`]: rounds paired from the results so far; [`shard`]:
//! one machine's share), from where ([`starts`],
//! [`openings`]), and running them several at a time (here: seat
//! assignment, working directories, records, stopping).

pub(crate) mod openings;
pub(crate) mod roundrobin;
pub(crate) mod shard;
pub(crate) mod starts;
pub(crate) mod swiss;

use crate::game::{play_game, Contestant, GameError, GameSetup, Rules, SeatKind};
use crate::output::record::{self, GameRecord, RunInfo, REFEREE_VERSION};
use crate::process::runner::{self, Homes, RunSpec};
use crate::schedule::starts::Starts;
use agent::{ByPlayer, FileGame, Player};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

/// One game to play: contestants `a` and `b` (indices), and the game's
/// number within their pairing, which decides who moves first.
#[derive(Clone, Debug)]
pub(crate) struct Job {
    /// Unique key (recorded; `--resume` skips keys already recorded).
    pub key: String,
    /// The first-named contestant of the pairing.
    pub a: usize,
    /// The second-named contestant.
    pub b: usize,
    /// 0-based game number within the pairing: even games `a` moves first.
    pub number: u64,
    /// The game pair's index in the whole schedule: picks the opening and
    /// the shard (both games of a pair share them).
    pub pair: u64,
}

/// Settings shared by all games of a run.
pub(crate) struct RunConfig<'a> {
    /// The contestants.
    pub contestants: &'a [Contestant],
    /// CPU seconds per game, by contestant.
    pub time: Vec<f64>,
    /// Judging rules.
    pub rules: Rules,
    /// Start positions.
    pub starts: Starts,
    /// Directory for records and working directories.
    pub out: PathBuf,
    /// Games played at once.
    pub concurrency: usize,
    /// Keep every game's working directories (not only those of forfeits).
    pub keep_dirs: bool,
    /// The forfeits' directories kept so far (without `keep_dirs`).
    pub kept: Kept,
}

/// The working directories of forfeited games, kept for inspection up to
/// a number (`--keep-forfeits`): a long run's failures must not fill the
/// disk. The oldest go first.
pub(crate) struct Kept {
    limit: usize,
    dirs: std::sync::Mutex<std::collections::VecDeque<PathBuf>>,
}

impl Kept {
    /// Starts from what `games` holds (a resumed run's kept directories,
    /// oldest first); nothing is being played yet. The directories of a
    /// game that no record names (one under way when the referee was
    /// killed) are removed first.
    pub(crate) fn new(games: &Path, limit: usize) -> Kept {
        remove_unrecorded(games);
        let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(games)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        found.sort();
        let kept = Kept {
            limit,
            dirs: std::sync::Mutex::new(found.into_iter().map(|(_, p)| p).collect()),
        };
        kept.prune();
        kept
    }

    /// Keeps `dir`, dropping the oldest beyond the limit.
    fn keep(&self, dir: PathBuf) {
        if let Ok(mut d) = self.dirs.lock() {
            d.push_back(dir);
        }
        self.prune();
    }

    fn prune(&self) {
        let Ok(mut d) = self.dirs.lock() else { return };
        while d.len() > self.limit {
            if let Some(old) = d.pop_front() {
                if let Err(e) = crate::process::workdir::remove_all(&old) {
                    log::warn!("cannot remove {}: {e}", old.display());
                }
            }
        }
    }
}

/// Removes the directories in `games` that no record in the records file
/// beside it names; nothing if that file cannot be read.
fn remove_unrecorded(games: &Path) {
    let Some(out) = games.parent() else { return };
    let Ok(recs) = record::load(&out.join("records.jsonl"), false) else {
        return;
    };
    let named: std::collections::HashSet<std::ffi::OsString> = recs
        .iter()
        .flat_map(|r| r.dirs.iter())
        .filter_map(|d| Some(Path::new(d).parent()?.file_name()?.to_os_string()))
        .collect();
    for e in std::fs::read_dir(games).into_iter().flatten().flatten() {
        if !named.contains(&e.file_name()) {
            if let Err(err) = crate::process::workdir::remove_all(&e.path()) {
                log::warn!("cannot remove {}: {err}", e.path().display());
            }
        }
    }
}

impl RunConfig<'_> {
    /// The JSON-lines record file.
    pub(crate) fn records_path(&self) -> PathBuf {
        self.out.join("records.jsonl")
    }
}

/// Seats for a job (contestant indices): the agent moving first takes the
/// start's side to move.
pub(crate) fn seats_for(job: &Job, to_move: Player) -> ByPlayer<usize> {
    let first = if job.number.is_multiple_of(2) { job.a } else { job.b };
    let second = if first == job.a { job.b } else { job.a };
    let mut seats = ByPlayer::default();
    seats[to_move] = first;
    seats[to_move.other()] = second;
    seats
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Runs `jobs` (taken lazily) with `cfg.concurrency` games at a time. Each finished game is
/// recorded (appended and flushed) and passed to `on_game`, which returns
/// true to stop scheduling new games (a decided SPRT). Games in progress
/// when `stop` is raised are discarded, not recorded. Returns the number of
/// games recorded.
pub(crate) fn run_jobs<G: FileGame>(
    cfg: &RunConfig<'_>,
    jobs: impl Iterator<Item = Job> + Send,
    stop: &AtomicBool,
    on_game: &mut dyn FnMut(&GameRecord) -> bool,
) -> Result<usize, String> {
    std::fs::create_dir_all(&cfg.out).map_err(|e| format!("cannot create {}: {e}", cfg.out.display()))?;
    let records = cfg.records_path();
    let queue = Mutex::new(jobs);
    // Separate from `stop`: ending the schedule early must not kill games in progress.
    let no_more = AtomicBool::new(false);
    // Each result carries an acknowledgement channel: a worker waits until its
    // game is recorded and judged before taking the next job, so a decided
    // SPRT stops the schedule without an extra game starting meanwhile.
    let (tx, rx) = mpsc::channel::<(Result<GameRecord, String>, mpsc::Sender<()>)>();
    let mut done = 0usize;
    let mut first_error = None;
    std::thread::scope(|scope| {
        for _ in 0..cfg.concurrency.max(1) {
            let tx = tx.clone();
            let queue = &queue;
            let no_more = &no_more;
            scope.spawn(move || {
                let (ack_tx, ack_rx) = mpsc::channel::<()>();
                loop {
                    if stop.load(Ordering::Relaxed) || no_more.load(Ordering::Relaxed) {
                        return;
                    }
                    let Some(job) = queue.lock().expect("queue lock").next() else {
                        return;
                    };
                    match play_job::<G>(cfg, &job, stop) {
                        Ok(rec) => {
                            if tx.send((Ok(rec), ack_tx.clone())).is_err() || ack_rx.recv().is_err() {
                                return;
                            }
                        }
                        Err(GameError::Interrupted) => return,
                        Err(GameError::Io(m)) => {
                            let _ = tx.send((Err(format!("game {}: {m}", job.key)), ack_tx.clone()));
                            return;
                        }
                    }
                }
            });
        }
        drop(tx);
        for (msg, ack) in rx {
            let _ack = AckOnDrop(ack);
            match msg {
                Ok(rec) => {
                    if let Err(e) = record::append(&records, &rec) {
                        first_error.get_or_insert(match e.raw_os_error() {
                            Some(libc::ENOSPC) | Some(libc::EDQUOT) => crate::game::judge::disk_full_message(&cfg.out),
                            _ => format!("cannot append to {}: {e}", records.display()),
                        });
                        no_more.store(true, Ordering::Relaxed);
                        continue;
                    }
                    done += 1;
                    if on_game(&rec) {
                        no_more.store(true, Ordering::Relaxed);
                    }
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                    no_more.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    match first_error {
        Some(e) => Err(e),
        None => Ok(done),
    }
}

/// Acknowledges a worker's result when the main loop is done with it.
struct AckOnDrop(mpsc::Sender<()>);

impl Drop for AckOnDrop {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

fn play_job<G: FileGame>(cfg: &RunConfig<'_>, job: &Job, stop: &AtomicBool) -> Result<GameRecord, GameError> {
    let (start, opening) = cfg.starts.position::<G>(job.pair, job.number).map_err(GameError::Io)?;
    let seats = seats_for(job, start.to_move());
    let base = crate::game::opaque_dir(&cfg.out.join("games")).map_err(GameError::Io)?;
    let dirs = ByPlayer::from_fn(|p| base.join(crate::game::seat_dir(p)));
    let setup = GameSetup {
        key: job.key.clone(),
        start,
        seats: seats.map(|c| &cfg.contestants[c]),
        time: seats.map(|c| cfg.time[c]),
        dirs,
    };
    let mut rec = play_game(setup, &cfg.rules, stop, None, &mut |_| {})?;
    rec.run = RunInfo {
        date: Some(jiff::Timestamp::now().to_string()),
        seed: Some(cfg.starts.gen.seed),
        opening,
        referee: Some(REFEREE_VERSION.to_string()),
    };
    if !cfg.keep_dirs && rec.loss.is_none() {
        // Only failures are kept for inspection; the record then names no
        // directory.
        if let Err(e) = crate::process::workdir::remove_all(&base) {
            log::warn!("cannot remove {}: {e}", base.display());
        }
        rec.dirs = Default::default();
    } else if !cfg.keep_dirs {
        cfg.kept.keep(base);
    }
    Ok(rec)
}

/// Runs each agent's calibration once (`CMD calibrate`, or its own
/// `calibrate=` command), in `out/calibration/NAME` holding `input` as its
/// `input.txt` (the first game's start, so the program knows the game), and
/// records where a `calibration.txt` was written. One that writes none is
/// told why, with the end of its stderr, and plays without it.
pub(crate) fn calibrate(
    contestants: &mut [Contestant],
    out: &Path,
    input: &str,
    sandbox: &crate::process::sandbox::Sandbox,
    stop: &AtomicBool,
) -> Result<(), String> {
    let homes: Vec<PathBuf> = contestants.iter().filter_map(|c| c.home.clone()).collect();
    for c in contestants.iter_mut() {
        let SeatKind::Agent(cmd) = &c.kind else {
            continue;
        };
        let (cmd, extra_arg) = match &c.calibrate {
            Some(own) => (own.as_str(), None),
            None => (cmd.as_str(), Some("calibrate")),
        };
        let shown = format!("{cmd}{}", extra_arg.map(|a| format!(" {a}")).unwrap_or_default());
        let others: Vec<PathBuf> = homes.iter().filter(|h| c.home.as_ref() != Some(h)).cloned().collect();
        let dir = out.join("calibration").join(sanitize(&c.name));
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        crate::process::agent_files::write_fresh(&dir, "input.txt", input.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", dir.join("input.txt").display()))?;
        let _ = crate::process::agent_files::remove(&dir, "calibration.txt");
        let spec = RunSpec {
            cmd,
            extra_arg,
            dir: &dir,
            cpu_kill: 60.0,
            wall_kill: 300.0,
            output_cap: 0,
            sandbox,
            homes: Homes {
                own: c.home.as_deref(),
                others: &others,
            },
        };
        let r = runner::run(&spec, stop).map_err(|e| format!("cannot run {shown:?}: {e}"))?;
        let file = dir.join("calibration.txt");
        if std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
            eprintln!("referee: calibrated {} ({:.2} s CPU)", c.name, r.cpu);
            c.calibration = Some(file);
        } else {
            let tail = crate::process::agentinfo::last_lines(&r.stderr_tail, 4);
            let why = if tail.is_empty() {
                "its stderr was empty".to_string()
            } else {
                format!("its stderr ends: {}", tail.lines().collect::<Vec<_>>().join(" / "))
            };
            eprintln!(
                "referee: {}: `{shown}` wrote no calibration.txt ({}; {why}); playing without it",
                c.name, r.exit
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_move_and_colours_alternate() {
        let job = |n| Job {
            key: String::new(),
            a: 0,
            b: 1,
            number: n,
            pair: n / 2,
        };
        // Game 0: a moves first, from seat One; game 1: b moves first.
        assert_eq!(seats_for(&job(0), Player::One), ByPlayer::new(0, 1));
        assert_eq!(seats_for(&job(1), Player::One), ByPlayer::new(1, 0));
        // A start with seat Two to move: the first mover sits there.
        assert_eq!(seats_for(&job(0), Player::Two), ByPlayer::new(1, 0));
        // Odd count: a gets games 0, 2, 4, ... = the extra first move.
        let firsts = (0..9)
            .filter(|&n| seats_for(&job(n), Player::One)[Player::One] == 0)
            .count();
        assert_eq!(firsts, 5);
    }
}
