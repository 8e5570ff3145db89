//! Running a list of games between contestants, several at a time: seat
//! assignment, working directories, records, stopping.

use crate::game_loop::{play_game, Contestant, GameError, GameSetup, Rules, SeatKind};
use crate::record::{self, GameRecord};
use crate::runner::{self, RunSpec};
use agent::protocol::{FileGame, GenOptions, Player};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

/// One game to play: contestants `a` and `b` (indices), and the game's
/// number within their pairing, which decides who moves first.
#[derive(Clone, Debug)]
pub struct Job {
    /// Unique key (recorded; `--resume` skips keys already recorded).
    pub key: String,
    /// The first-named contestant of the pairing.
    pub a: usize,
    /// The second-named contestant.
    pub b: usize,
    /// 0-based game number within the pairing: even games `a` moves first.
    pub number: u64,
}

/// A round robin: every pair of contestants plays `games` games. The games
/// are produced lazily (a run of 10^18 games allocates nothing up front).
#[derive(Clone, Debug)]
pub struct RoundRobin {
    /// Pairings `(a, b, "A-vs-B")` in schedule order.
    pairings: Vec<(usize, usize, String)>,
    /// Games per pairing.
    games: u64,
}

impl RoundRobin {
    /// Every pair of `names` (in order) plays `games` games.
    pub fn new(names: &[&str], games: u64) -> RoundRobin {
        let mut pairings = Vec::new();
        for i in 0..names.len() {
            for j in i + 1..names.len() {
                pairings.push((i, j, format!("{}-vs-{}", names[i], names[j])));
            }
        }
        RoundRobin { pairings, games }
    }

    /// The number of games, or `None` when it does not fit in 64 bits.
    pub fn total(&self) -> Option<u64> {
        (self.pairings.len() as u64).checked_mul(self.games)
    }

    /// The games in schedule order: pairing by pairing.
    pub fn jobs(&self) -> impl Iterator<Item = Job> + Send + '_ {
        self.pairings.iter().flat_map(move |(a, b, pairing)| {
            (0..self.games).map(move |number| Job {
                key: format!("{pairing}-g{number:04}"),
                a: *a,
                b: *b,
                number,
            })
        })
    }

    /// The game with this key, if it belongs to the schedule.
    pub fn job_of(&self, key: &str) -> Option<Job> {
        let (pairing, n) = key.rsplit_once("-g")?;
        if n.len() < 4 || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let number: u64 = n.parse().ok()?;
        let (a, b, p) = self.pairings.iter().find(|(_, _, p)| p == pairing)?;
        (number < self.games && format!("{p}-g{number:04}") == key).then(|| Job {
            key: key.to_string(),
            a: *a,
            b: *b,
            number,
        })
    }
}

/// How start positions are made.
#[derive(Clone, Debug)]
pub struct Starts {
    /// A fixed start (`--start FILE` contents), else generated.
    pub text: Option<String>,
    /// Options for generated starts; the seed is advanced per game pair.
    pub gen: GenOptions,
}

impl Starts {
    /// The start position of game `number` of a pairing. Both games of a
    /// pair (0-1, 2-3, ...) get the same position with the agents swapped.
    pub fn position<G: FileGame>(&self, number: u64) -> Result<G, String> {
        match &self.text {
            Some(t) => G::parse_input(t)
                .map(|i| i.state)
                .map_err(|e| format!("start position: {e}")),
            None => {
                let mut o = self.gen.clone();
                o.seed = o.seed.wrapping_add(number / 2);
                o.first = Player::One;
                G::generate(&o)
            }
        }
    }
}

/// Settings shared by all games of a run.
pub struct RunConfig<'a> {
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
}

impl RunConfig<'_> {
    /// The JSON-lines record file.
    pub fn records_path(&self) -> PathBuf {
        self.out.join("records.jsonl")
    }
}

/// Seats for a job: the agent moving first takes the start's side to move.
pub fn seats_for(job: &Job, to_move: Player) -> [usize; 2] {
    let first = if job.number.is_multiple_of(2) { job.a } else { job.b };
    let second = if first == job.a { job.b } else { job.a };
    let mut seats = [0; 2];
    seats[to_move.index()] = first;
    seats[to_move.other().index()] = second;
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
pub fn run_jobs<G: FileGame>(
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
                        first_error.get_or_insert(format!("cannot append to {}: {e}", records.display()));
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
    let start = cfg.starts.position::<G>(job.number).map_err(GameError::Io)?;
    let seats = seats_for(job, start.to_move());
    let names = G::player_names();
    let base = cfg.out.join("games").join(sanitize(&job.key));
    let dirs = [0, 1].map(|s| {
        base.join(format!(
            "{}-{}",
            sanitize(names[s]),
            sanitize(&cfg.contestants[seats[s]].name)
        ))
    });
    let setup = GameSetup {
        key: job.key.clone(),
        start,
        seats: [&cfg.contestants[seats[0]], &cfg.contestants[seats[1]]],
        time: [cfg.time[seats[0]], cfg.time[seats[1]]],
        dirs,
    };
    let rec = play_game(setup, &cfg.rules, stop, None, &mut |_| {})?;
    if !cfg.keep_dirs && rec.loss.is_none() {
        // Only failures are kept for inspection.
        let _ = std::fs::remove_dir_all(&base);
    }
    Ok(rec)
}

/// Runs `CMD calibrate` once for each agent, in `out/calibration/NAME`, and
/// records where a `calibration.txt` was written.
pub fn calibrate(
    contestants: &mut [Contestant],
    out: &Path,
    sandbox: &crate::sandbox::Sandbox,
    stop: &AtomicBool,
) -> Result<(), String> {
    for c in contestants.iter_mut() {
        let SeatKind::Agent(cmd) = &c.kind else {
            continue;
        };
        let dir = out.join("calibration").join(sanitize(&c.name));
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let spec = RunSpec {
            cmd,
            extra_arg: Some("calibrate"),
            dir: &dir,
            cpu_kill: 60.0,
            wall_kill: 300.0,
            output_cap: 0,
            sandbox,
        };
        let r = runner::run(&spec, stop).map_err(|e| format!("cannot run {cmd:?} calibrate: {e}"))?;
        let file = dir.join("calibration.txt");
        if std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
            eprintln!("referee: calibrated {} ({:.2} s CPU)", c.name, r.cpu);
            c.calibration = Some(file);
        } else {
            eprintln!(
                "referee: {} wrote no calibration.txt ({:?}); playing without it",
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
        };
        // Game 0: a moves first, from seat One; game 1: b moves first.
        assert_eq!(seats_for(&job(0), Player::One), [0, 1]);
        assert_eq!(seats_for(&job(1), Player::One), [1, 0]);
        // A start with seat Two to move: the first mover sits there.
        assert_eq!(seats_for(&job(0), Player::Two), [1, 0]);
        // Odd count: a gets games 0, 2, 4, ... = the extra first move.
        let firsts = (0..9).filter(|&n| seats_for(&job(n), Player::One)[0] == 0).count();
        assert_eq!(firsts, 5);
    }

    #[test]
    fn round_robin_is_lazy_and_knows_its_keys() {
        let rr = RoundRobin::new(&["x", "y", "z"], 2);
        let keys: Vec<String> = rr.jobs().map(|j| j.key).collect();
        assert_eq!(
            keys,
            [
                "x-vs-y-g0000",
                "x-vs-y-g0001",
                "x-vs-z-g0000",
                "x-vs-z-g0001",
                "y-vs-z-g0000",
                "y-vs-z-g0001"
            ]
        );
        assert_eq!(rr.total(), Some(6));
        let j = rr.job_of("x-vs-z-g0001").unwrap();
        assert_eq!((j.a, j.b, j.number), (0, 2, 1));
        for bad in ["x-vs-z-g0002", "x-vs-z-g1", "z-vs-x-g0000", "x-vs-y-g+001", "g0000"] {
            assert!(rr.job_of(bad).is_none(), "{bad}");
        }
        // A huge schedule costs nothing until games are taken from it.
        let huge = RoundRobin::new(&["a", "b"], u64::MAX);
        assert_eq!(huge.total(), Some(u64::MAX));
        assert_eq!(huge.jobs().nth(3).unwrap().key, "a-vs-b-g0003");
        assert_eq!(RoundRobin::new(&["a", "b", "c"], u64::MAX).total(), None);
    }
}
