//! `agent fifteen ...` subcommands: the exact solver on a position file and
//! the solver's benchmark.

use agent::protocol::Notation;
use agent::protocol::View;
pub mod bench;

use crate::tools::Tool;
use agent::games::fifteen::eval::{POINT, TIE_BREAK};
use agent::games::fifteen::solver::Solver;
use agent::games::fifteen::Fifteen;
use agent::protocol::read_bounded;
use clap::Subcommand;
use std::path::{Path, PathBuf};

/// Text of a solver value: the margin in points, and who wins.
pub(crate) fn describe_value(score: i32) -> String {
    // score = 16 * margin + 4 * tie-break sign.
    let margin = (score as f64 / POINT as f64).round() as i32;
    let tb = (score - margin * POINT) / TIE_BREAK;
    let verdict = match (margin.signum(), tb) {
        (1, _) => "the side to move wins",
        (-1, _) => "the side to move loses",
        (_, 1) => "the side to move wins on the tie-break",
        (_, -1) => "the side to move loses on the tie-break",
        _ => "draw",
    };
    format!("margin {margin:+} ({verdict})")
}

/// Which question `solve_file` answers, and with which engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SolveKind {
    /// Win, draw or loss only (the exact solver).
    Wdl,
    /// The exact margin (the exact solver).
    Margin,
    /// The exact margin by the shared alpha-beta core run to the end (the
    /// older, slower path, kept for comparison).
    AlphaBeta,
}

/// `agent fifteen solve FILE`: reads a FIFTEEN input file, solves it
/// exactly and prints the result under perfect play, the best move, the CPU
/// time and the positions searched. `tt_mb` sizes the table.
pub(crate) fn solve_file(path: &Path, tt_mb: usize, kind: SolveKind) -> Result<String, String> {
    let text = read_bounded(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let input = Fifteen::parse_input(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let g = input.state;
    if g.size() != 4 && g.plies_left() > 16 {
        return Err(format!(
            "{}: {} cards are left on a 6x6 board; the exact solver is meant for 4x4 boards and 6x6 endgames (at most 16 cards)",
            path.display(),
            g.plies_left()
        ));
    }
    let describe = |m: Option<agent::games::fifteen::Move>| match m {
        Some(m) => format!("{} = {}", g.describe_move(m), g.format_move(m).trim_end()),
        None => "none (the game is over)".into(),
    };
    let head = format!(
        "player {} to move, {} cards left\n",
        g.side().index() + 1,
        g.plies_left()
    );
    let body = match kind {
        SolveKind::AlphaBeta => {
            let f = agent::search::alphabeta::solve(&g, tt_mb << 20);
            format!(
                "value: {}\nbest move: {}\ntime: {:.3} s CPU, {} nodes (alpha-beta core)\n",
                describe_value(f.score),
                describe(f.best),
                f.seconds,
                f.nodes
            )
        }
        SolveKind::Wdl | SolveKind::Margin => {
            let mut s = Solver::new(tt_mb << 20);
            let r = if kind == SolveKind::Wdl {
                s.wdl(&g, f64::INFINITY)
            } else {
                s.margin(&g, f64::INFINITY)
            }
            .expect("an unlimited solve finishes");
            let value = if kind == SolveKind::Margin {
                format!("value: {}\n", describe_value(r.value))
            } else {
                String::new()
            };
            format!(
                "result: {} for player {}\n{value}best move: {}\ntime: {:.3} s CPU, {} nodes\n",
                r.wdl.word(),
                g.side().index() + 1,
                describe(r.best),
                r.seconds,
                r.nodes
            )
        }
    };
    Ok(head + &body)
}

/// The `agent fifteen` subcommands.
#[derive(Subcommand, Debug)]
pub enum FifteenCommand {
    /// Solve a FIFTEEN input file exactly: result (and margin) under perfect play, best move, CPU time.
    Solve {
        /// A FIFTEEN input.txt (4x4, or a 6x6 endgame).
        file: PathBuf,
        /// Win/draw/loss only (faster than the exact margin).
        #[arg(long, conflicts_with = "alphabeta")]
        wdl: bool,
        /// Use the shared alpha-beta core instead of the dedicated solver (for comparison).
        #[arg(long)]
        alphabeta: bool,
        /// Table size in MiB.
        #[arg(long, default_value_t = 128)]
        tt_mb: usize,
    },
    /// Time the solver: medians of repeated 4x4 start solves, and the 6x6
    /// cards-left threshold under 1 s.
    Bench {
        /// Runs per figure (the median is printed).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Also time the alpha-beta core's margin solve of the 4x4 start.
        #[arg(long)]
        alphabeta: bool,
        /// Also time margin solves of seeded random 6x6 positions with this
        /// many cards left, as a range such as 8-12.
        #[arg(long, value_parser = bench::parse_range)]
        six: Option<(u32, u32)>,
        /// Random 6x6 positions per cards-left count.
        #[arg(long, default_value_t = 10)]
        positions: usize,
        /// Table size in MiB.
        #[arg(long, default_value_t = 128)]
        tt_mb: usize,
    },
    #[command(flatten)]
    Common(Tool),
}

/// Runs a subcommand, printing its report on stdout.
pub fn run(cmd: FifteenCommand) -> Result<(), String> {
    match cmd {
        FifteenCommand::Solve {
            file,
            wdl,
            alphabeta,
            tt_mb,
        } => {
            let kind = match (wdl, alphabeta) {
                (_, true) => SolveKind::AlphaBeta,
                (true, _) => SolveKind::Wdl,
                _ => SolveKind::Margin,
            };
            print!("{}", solve_file(&file, tt_mb, kind)?)
        }
        FifteenCommand::Bench {
            runs,
            alphabeta,
            six,
            positions,
            tt_mb,
        } => {
            if runs == 0 {
                return Err("--runs must be at least 1".into());
            }
            bench::start4(runs, alphabeta, tt_mb << 20, &mut |line| println!("{line}"));
            if let Some((from, to)) = six {
                bench::six_endgames(from, to, positions, tt_mb << 20, &mut |line| println!("{line}"));
            }
        }
        FifteenCommand::Common(tool) => crate::tools::run::<Fifteen>(tool)?,
    }
    Ok(())
}
