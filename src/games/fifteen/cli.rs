//! `agent fifteen ...` subcommands: the exact solver on a position file.

use super::eval::{POINT, TIE_BREAK};
use super::Fifteen;
use crate::arena::tools::Tool;
use crate::protocol::{read_bounded, FileGame};
use clap::Subcommand;
use std::path::{Path, PathBuf};

/// Text of a solver value: the margin in points, and who wins.
pub fn describe_value(score: i32) -> String {
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

/// `agent fifteen solve FILE`: reads a FIFTEEN input file, solves it
/// exactly and prints the margin under perfect play, the best move and the
/// CPU time. `tt_mb` sizes the transposition table.
pub fn solve_file(path: &Path, tt_mb: usize) -> Result<String, String> {
    let text = read_bounded(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let input = Fifteen::parse_input(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let g = input.state;
    if g.size() != 4 && g.plies_left() > 12 {
        return Err(format!(
            "{}: {} cards are left on a 6x6 board; the exact solver is meant for 4x4 boards and short 6x6 endgames (at most 12 cards)",
            path.display(),
            g.plies_left()
        ));
    }
    let f = super::search::solve(&g, tt_mb << 20);
    let best = match f.best {
        Some(m) => format!("{} = {}", g.describe_move(m), g.format_move(m).trim_end()),
        None => "none (the game is over)".into(),
    };
    Ok(format!(
        "player {} to move, {} cards left\nvalue: {}\nbest move: {best}\ntime: {:.3} s CPU, {} nodes\n",
        g.side().index() + 1,
        g.plies_left(),
        describe_value(f.score),
        f.seconds,
        f.nodes
    ))
}

/// The `agent fifteen` subcommands.
#[derive(Subcommand, Debug)]
pub enum FifteenCommand {
    /// Solve a FIFTEEN input file exactly: margin under perfect play, best move, CPU time.
    Solve {
        /// A FIFTEEN input.txt (4x4, or a 6x6 endgame).
        file: PathBuf,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 256)]
        tt_mb: usize,
    },
    #[command(flatten)]
    Common(Tool),
}

/// Runs a subcommand, printing its report on stdout.
pub fn run(cmd: FifteenCommand) -> Result<(), String> {
    match cmd {
        FifteenCommand::Solve { file, tt_mb } => print!("{}", solve_file(&file, tt_mb)?),
        FifteenCommand::Common(tool) => crate::arena::tools::run::<Fifteen>(tool)?,
    }
    Ok(())
}
