//! `agent halma ...`: Halma's developer tools on the command line.

use super::{tools, Halma};
use crate::arena::tools::{self as common, CalibrateArgs, OpeningArgs, PerftArgs, Tool};
use clap::Subcommand;
use std::path::PathBuf;

/// The `agent halma` subcommands.
#[derive(Subcommand, Debug)]
pub enum HalmaCommand {
    /// Leaf count DEPTH plies below the position of an input.txt (bitboard
    /// implementation), and its speed.
    Perft(PerftArgs),
    /// The same count with the simple array implementation (the speed
    /// comparison of the README).
    SimplePerft(PerftArgs),
    /// Move-generation and search speed on fixed samples.
    Bench {
        /// Directory of the Halma samples.
        #[arg(long, default_value = "samples/halma")]
        samples: PathBuf,
        /// CPU seconds of search per sample.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
    },
    /// Judge an output.txt against the position of an input.txt, as the referee does.
    Check {
        /// The input.txt.
        input: PathBuf,
        /// The output.txt.
        output: PathBuf,
    },
    /// Print the input.txt (GAME mode) of a seeded random opening.
    Opening(OpeningArgs),
    /// Measure search speed and write calibration.txt for the time policy.
    Calibrate(CalibrateArgs),
}

/// Runs a subcommand, printing its report on stdout.
pub fn run(cmd: HalmaCommand) -> Result<(), String> {
    match cmd {
        HalmaCommand::Perft(PerftArgs { file, depth }) => {
            println!("{}", tools::perft_command(&file, depth, false)?)
        }
        HalmaCommand::SimplePerft(PerftArgs { file, depth }) => {
            println!("{}", tools::perft_command(&file, depth, true)?)
        }
        HalmaCommand::Bench { samples, seconds } => print!("{}", tools::bench(&samples, seconds)?),
        HalmaCommand::Check { input, output } => println!("{}", tools::check_command(&input, &output)?),
        HalmaCommand::Opening(a) => common::run::<Halma>(Tool::Opening(a))?,
        HalmaCommand::Calibrate(a) => common::run::<Halma>(Tool::Calibrate(a))?,
    }
    Ok(())
}
