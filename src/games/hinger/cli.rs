//! `agent hinger win|path|compare`: the study tools on the command line.

use super::compare::{self, CompareOptions};
use super::path::{check_path, find_path, Algo, Answer, PathLimits};
use super::solver::{Solver, Value};
use super::{parse_board_file, Board};
use std::path::{Path, PathBuf};

/// The `agent hinger` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum HingerCommand {
    /// Exact solve: does the player to move win, draw or lose with perfect
    /// play? FILE is a Hinger input.txt or a board file (`rows cols` + grid).
    Win {
        /// The position.
        file: PathBuf,
        /// Give up after this many CPU seconds.
        #[arg(long)]
        seconds: Option<f64>,
    },
    /// A safe path from START to END (board files: `rows cols` + grid).
    Path {
        /// Search algorithm.
        #[arg(long, value_enum, default_value_t = Algo::MinCost)]
        algo: Algo,
        /// The first state.
        start: PathBuf,
        /// The last state.
        end: PathBuf,
        /// Give up after this many CPU seconds.
        #[arg(long)]
        seconds: Option<f64>,
    },
    /// The scaling study of the path algorithms and the solver.
    Compare {
        /// Seed of the generated suite.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// START/END pairs per board size.
        #[arg(long, default_value_t = 4)]
        pairs: usize,
        /// CPU seconds per algorithm per pair.
        #[arg(long, default_value_t = 1.0)]
        cap: f64,
        /// Largest board side (3..=10).
        #[arg(long, default_value_t = 10)]
        max_size: usize,
        /// CPU seconds per board for the solver study (0 skips it).
        #[arg(long, default_value_t = 10.0)]
        solver_cap: f64,
        /// Largest pile in START (1: binary states).
        #[arg(long, default_value_t = 1)]
        max_pile: u32,
    },
    #[command(flatten)]
    Common(crate::arena::tools::Tool),
}

fn read_board(path: &Path) -> Result<(Board, Option<crate::protocol::Player>), String> {
    let text = crate::protocol::read_bounded(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_board_file(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn cell(b: &Board, i: usize) -> String {
    let (r, c) = b.coords(i);
    format!("{r} {c}")
}

/// Runs a subcommand, printing its report on stdout.
pub fn run(cmd: HingerCommand) -> Result<(), String> {
    match cmd {
        HingerCommand::Common(tool) => crate::arena::tools::run::<super::Hinger>(tool)?,
        HingerCommand::Win { file, seconds } => print!("{}", win(&file, seconds)?),
        HingerCommand::Path {
            algo,
            start,
            end,
            seconds,
        } => print!("{}", path(&start, &end, algo, seconds)?),
        HingerCommand::Compare {
            seed,
            pairs,
            cap,
            max_size,
            solver_cap,
            max_pile,
        } => {
            if !(3..=10).contains(&max_size) {
                return Err(format!("--max-size must be between 3 and 10, found {max_size}"));
            }
            let cap_ok = cap > 0.0 && cap.is_finite();
            let solver_cap_ok = solver_cap >= 0.0 && solver_cap.is_finite();
            if !cap_ok || !solver_cap_ok || pairs == 0 {
                return Err("--cap must be positive, --solver-cap non-negative and --pairs at least 1".into());
            }
            if !(1..=1000).contains(&max_pile) {
                return Err(format!("--max-pile must be between 1 and 1000, found {max_pile}"));
            }
            let opts = CompareOptions {
                seed,
                pairs,
                cap,
                max_size,
                solver_cap,
                max_pile,
            };
            compare::run(&opts, &mut std::io::stdout().lock()).map_err(|e| format!("cannot write: {e}"))?;
        }
    }
    Ok(())
}

/// `agent hinger win FILE`: the report text.
pub fn win(file: &Path, seconds: Option<f64>) -> Result<String, String> {
    let (board, _) = read_board(file)?;
    if !Solver::accepts(&board) {
        return Err(format!(
            "{}: the board holds {} counters; the exact solver takes at most {} (it searches one level per counter)",
            file.display(),
            board.counters(),
            super::solver::MAX_COUNTERS
        ));
    }
    let timer = crate::clock::CpuTimer::start();
    let mut solver = Solver::new();
    let s = solver.solve_within(&board, seconds.unwrap_or(f64::INFINITY)).ok_or_else(|| {
        format!(
            "gave up: the time or memory cap ran out before the position was solved ({} positions searched, {} memoised, {:.3} s CPU)",
            solver.nodes(),
            solver.memo_len(),
            timer.elapsed()
        )
    })?;
    let secs = timer.elapsed();
    let mut out = format!("{}\n", s.value.word());
    match (s.value, s.best) {
        (_, None) => out.push_str("the board is empty: no move\n"),
        (Value::Win, Some(i)) => out.push_str(&format!("winning move: {}\n", cell(&board, i))),
        (Value::Draw, Some(i)) => out.push_str(&format!("drawing move: {}\n", cell(&board, i))),
        (Value::Loss, Some(i)) => out.push_str(&format!("every move loses; longest resistance: {}\n", cell(&board, i))),
    }
    out.push_str(&format!(
        "{} positions searched, {} memoised, {:.3} s CPU\n",
        s.nodes, s.memo_entries, secs
    ));
    Ok(out)
}

/// `agent hinger path`: the report text.
pub fn path(start: &Path, end: &Path, algo: Algo, seconds: Option<f64>) -> Result<String, String> {
    let (s, _) = read_board(start)?;
    let (e, _) = read_board(end)?;
    let limits = PathLimits {
        seconds: seconds.unwrap_or(f64::INFINITY),
        ..Default::default()
    };
    let r = find_path(&s, &e, algo, limits)?;
    let mut out = String::new();
    match &r.answer {
        Answer::Path(cells) => {
            let cost = check_path(&s, &e, cells).map_err(|e| format!("internal error: {e}"))?;
            let mut b = s.clone();
            let list: Vec<String> = cells
                .iter()
                .map(|&i| {
                    let t = cell(&b, i);
                    b.remove(i);
                    t
                })
                .collect();
            out.push_str(&format!("safe path ({}):\n", algo.name()));
            for l in &list {
                out.push_str(l);
                out.push('\n');
            }
            out.push_str(&format!("moves: {}\ncost: {cost}\n", cells.len()));
        }
        Answer::NoPath(why) => out.push_str(&format!("no safe path: {why}\n")),
        Answer::GaveUp(why) => return Err(why.clone()),
    }
    out.push_str(&format!(
        "{} states expanded, peak frontier {}, {:.3} s CPU\n",
        r.stats.expanded, r.stats.peak_frontier, r.stats.seconds
    ));
    Ok(out)
}
