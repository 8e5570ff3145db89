//! The command-line tools every game has (`agent <game> perft|opening|
//! book|calibrate`) and the generic duel (`agent duel --game G ...`). Each game's
//! `cli` module flattens [`Tool`] into its own subcommands; `main.rs` only
//! parses and dispatches.

use super::duel::{duel, parse_strategy, DuelOptions, GameResult};
use super::perft::perft;
use agent::clock::CpuTimer;
use agent::play::openings::{balanced_book, random_opening, BookSpec};
use agent::play::FileGame;
use agent::protocol::{read_bounded, GenOptions, Mode, Player};
use agent::search::Strategy;
use agent::timing;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

/// Board options of generated start positions (each game uses the ones
/// that mean something to it).
#[derive(Args, Debug, Clone, Default)]
pub struct BoardArgs {
    /// Board rows (Hinger, Connect Square).
    #[arg(long)]
    pub rows: Option<usize>,
    /// Board columns (Hinger, Connect Square).
    #[arg(long)]
    pub cols: Option<usize>,
    /// Board size (Fifteen: 4 or 6; Hashi: n).
    #[arg(long)]
    pub size: Option<usize>,
    /// Share of cells holding counters, 0 to 1 (Hinger).
    #[arg(long)]
    pub density: Option<f64>,
}

impl BoardArgs {
    /// The generator options for `seed`, seat one moving first.
    pub fn gen(&self, seed: u64) -> GenOptions {
        GenOptions {
            rows: self.rows,
            cols: self.cols,
            size: self.size,
            density: self.density,
            seed,
            first: Player::One,
        }
    }
}

/// `perft FILE DEPTH`.
#[derive(Args, Debug, Clone)]
pub struct PerftArgs {
    /// The input.txt holding the position.
    pub file: PathBuf,
    /// Plies.
    pub depth: u32,
}

/// `opening`: a seeded random opening's input.txt.
#[derive(Args, Debug, Clone)]
pub struct OpeningArgs {
    /// Random plies after the start position.
    #[arg(long, default_value_t = 2)]
    pub plies: u32,
    /// Random seed (also seeds generated boards).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Remaining seconds written in the file.
    #[arg(long, default_value_t = 100.0)]
    pub time: f64,
    #[command(flatten)]
    pub board: BoardArgs,
}

/// `book`: a balanced opening book for the referee's `--openings FILE`.
#[derive(Args, Debug, Clone)]
pub struct BookArgs {
    /// Positions to write.
    #[arg(long, default_value_t = 50)]
    pub count: usize,
    /// Random plies after the start position.
    #[arg(long, default_value_t = 8)]
    pub plies: u32,
    /// Depth of the searches that score each candidate (the mean of this
    /// depth and the one below is kept).
    #[arg(long, default_value_t = 6)]
    pub depth: u32,
    /// The largest score kept either way, in the game's evaluation units
    /// (in Halma, 100 is about one piece's progress by four anti-diagonals).
    #[arg(long, default_value_t = 100)]
    pub margin: i32,
    /// Seed of the first candidate (candidate i uses seed + i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Candidates drawn at most before giving up.
    #[arg(long, default_value_t = 5000)]
    pub max_candidates: usize,
    /// Remaining seconds written in each position (the referee sets its
    /// own clock).
    #[arg(long, default_value_t = 100.0)]
    pub time: f64,
    #[command(flatten)]
    pub board: BoardArgs,
}

/// `calibrate`: measure search speed, write calibration.txt.
#[derive(Args, Debug, Clone)]
pub struct CalibrateArgs {
    /// Where to write calibration.txt.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
    /// CPU seconds to measure for.
    #[arg(long, default_value_t = 0.5)]
    pub seconds: f64,
}

/// Tools every game has (`agent <game> perft|opening|calibrate`).
#[derive(Subcommand, Debug, Clone)]
pub enum Tool {
    /// Leaf count DEPTH plies below the position of an input.txt, and its speed.
    Perft(PerftArgs),
    /// Print the input.txt (GAME mode) of a seeded random opening: the
    /// start position followed by --plies random legal plies.
    Opening(OpeningArgs),
    /// Print a balanced opening book: --count distinct random openings of
    /// --plies plies whose searched score is within --margin of even, one
    /// input.txt each, separated by `---` lines (the referee's
    /// `--openings FILE`).
    Book(BookArgs),
    /// Measure alpha-beta speed on the start position and write
    /// calibration.txt (read by the time policy to size its table).
    Calibrate(CalibrateArgs),
}

/// Reads and parses the position of an `input.txt` of game `G`.
pub fn load<G: FileGame>(path: &Path) -> Result<G, String> {
    let text = read_bounded(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    G::parse_input(&text)
        .map(|i| i.state)
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn positive(what: &str, v: f64) -> Result<f64, String> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("{what} must be a positive number of seconds, found {v}"))
    }
}

/// Runs a common tool for game `G`, printing its report on stdout.
pub fn run<G: FileGame>(tool: Tool) -> Result<(), String> {
    match tool {
        Tool::Perft(PerftArgs { file, depth }) => {
            let pos: G = load(&file)?;
            let t = CpuTimer::start();
            let n = perft(&pos, depth);
            let s = t.elapsed().max(1e-9);
            println!("{n}\n# {n} leaves in {s:.3} CPU s = {:.0} leaves/s", n as f64 / s);
        }
        Tool::Opening(OpeningArgs {
            plies,
            seed,
            time,
            board,
        }) => {
            let time = positive("--time", time)?;
            let pos: G = random_opening(&board.gen(seed), plies, seed)?;
            print!("{}", pos.write_input(Mode::Game, time));
        }
        Tool::Book(BookArgs {
            count,
            plies,
            depth,
            margin,
            seed,
            max_candidates,
            time,
            board,
        }) => {
            let time = positive("--time", time)?;
            if count == 0 {
                return Err("--count must be at least 1".into());
            }
            if margin < 0 {
                return Err(format!("--margin must be 0 or more, found {margin}"));
            }
            let spec = BookSpec {
                count,
                plies,
                depth,
                margin,
                seed,
                max_candidates,
            };
            let (book, drawn) = balanced_book::<G>(&board.gen(seed), &spec)?;
            for (i, e) in book.iter().enumerate() {
                if i > 0 {
                    println!("---");
                }
                print!("{}", e.pos.write_input(Mode::Game, time));
            }
            eprintln!(
                "# {} openings of {plies} plies kept of {drawn} drawn, scores within {margin} at depths {}-{depth}",
                book.len(),
                depth - 1
            );
        }
        Tool::Calibrate(CalibrateArgs { dir, seconds }) => {
            let seconds = positive("--seconds", seconds)?;
            let start = G::generate(&GenOptions::default())?;
            let nps = timing::calibrate(&dir, &start, seconds)
                .map_err(|e| format!("cannot write {}: {e}", dir.join(timing::CALIBRATION_FILE).display()))?;
            println!("nodes_per_second {nps:.0}");
        }
    }
    Ok(())
}

/// `agent duel`: strategy A against strategy B, in process.
#[derive(Args, Debug, Clone)]
pub struct DuelArgs {
    /// Strategy A: best, `alphabeta[:D]`, `minimax[:D]`, greedy, mcts or random.
    #[arg(long, default_value = "best")]
    pub a: String,
    /// Strategy B (same forms as A).
    #[arg(long, default_value = "minimax:2")]
    pub b: String,
    /// Games to play; pairs share an opening with the colours swapped.
    #[arg(long, default_value_t = 20)]
    pub games: u32,
    /// CPU seconds each side has for a whole game (GAME mode).
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Give every move this many CPU seconds (as a SINGLE move) instead of
    /// a game clock of --seconds.
    #[arg(long)]
    pub move_seconds: Option<f64>,
    /// Random plies of each opening.
    #[arg(long, default_value_t = 2)]
    pub openings_plies: u32,
    /// Seed of the openings (and generated boards).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Plies after which a game is settled by the time left (Halma's cap).
    #[arg(long, default_value_t = 1000)]
    pub max_plies: u32,
    /// Print one line per game.
    #[arg(long)]
    pub verbose: bool,
    #[command(flatten)]
    pub board: BoardArgs,
}

/// Runs `agent duel` for game `G` (the caller has resolved `--game`),
/// printing the tally.
pub fn run_duel<G: FileGame>(args: &DuelArgs) -> Result<(), String> {
    let o = DuelOptions {
        a: parse_strategy(&args.a)?,
        b: parse_strategy(&args.b)?,
        games: args.games,
        seconds: positive("--seconds", args.seconds)?,
        move_seconds: args.move_seconds.map(|s| positive("--move-seconds", s)).transpose()?,
        opening_plies: args.openings_plies,
        seed: args.seed,
        gen: args.board.gen(args.seed),
        max_plies: args.max_plies,
    };
    if !G::LEVELS && [o.a, o.b].iter().any(|s| matches!(s, Strategy::Level(..))) {
        return Err(format!(
            "level:N is offered for {} only (the games whose ladder was measured), not {}",
            agent::games::GameKind::level_games(),
            G::NAME
        ));
    }
    let clock = match o.move_seconds {
        Some(s) => format!("{s} CPU s per move"),
        None => format!("{} CPU s per side per game", o.seconds),
    };
    println!(
        "{}: A = {} against B = {}, {} games, {clock}, openings of {} random plies",
        G::NAME,
        args.a,
        args.b,
        o.games,
        o.opening_plies
    );
    let report = duel::<G>(&o, |i, r, tally| {
        if args.verbose {
            let what = match r {
                GameResult::Win => "A won",
                GameResult::Draw => "drawn",
                GameResult::Loss => "B won",
            };
            println!("game {}: {what} (A first: {}); {tally}", i + 1, i % 2 == 0);
        }
    })?;
    println!("{report}");
    Ok(())
}
