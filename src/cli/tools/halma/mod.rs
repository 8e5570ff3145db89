//! `agent halma ...`: Halma's developer tools on the command line.

use agent::games::halma::Halma;
pub mod commands;
pub mod race_bench;
pub mod texel;

use crate::tools::{self as common, BookArgs, CalibrateArgs, OpeningArgs, PerftArgs, Tool};
use clap::Subcommand;
use commands as tools;
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
        /// Searches per sample (the medians are printed).
        #[arg(long, default_value_t = 1)]
        runs: u32,
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
    /// Print a balanced opening book (random openings scored near even),
    /// for the referee's `--openings FILE`.
    Book(BookArgs),
    /// Measure search speed and write calibration.txt for the time policy.
    Calibrate(CalibrateArgs),
    /// The race endgame: the largest number of pieces outside the goal the
    /// solver finishes within 0.1 s, and plays to finish separated
    /// self-play positions without and with the solver against its minimum.
    RaceBench {
        /// Separated self-play positions to play out (0 skips that part).
        #[arg(long, default_value_t = 100)]
        positions: u32,
        /// CPU seconds per move in the playouts.
        #[arg(long, default_value_t = 0.05)]
        move_seconds: f64,
        /// Random races per piece count in the solver part.
        #[arg(long, default_value_t = 9)]
        samples: u32,
        /// Seed of the random races and openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also write the realistic races to this file, one per line as four
        /// hexadecimal words (what the solver's ignored diagnostics read
        /// from `RACE_CACHE`).
        #[arg(long, value_name = "FILE")]
        save_races: Option<PathBuf>,
    },
    /// Writes the race solver's goal pattern database to OUT: the file the
    /// agent embeds (`src/games/halma/solver/goal_db.bin`).
    GoalDb {
        /// The file to write.
        out: PathBuf,
    },
    /// Self-play data for the Texel fit of the evaluation weights
    /// (scripts/texel-fit.py): the middle-game positions of games of the
    /// agent against itself with their results and features.
    TexelData {
        /// Self-play games.
        #[arg(long, default_value_t = 100)]
        games: u32,
        /// CPU seconds each side has for a whole game.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        /// Seed of the openings (game i uses seed + i).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Random plies of each opening.
        #[arg(long, default_value_t = 8)]
        opening_plies: u32,
        /// Plies after the opening that are not written.
        #[arg(long, default_value_t = 10)]
        skip_plies: u32,
        /// The data file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Rewrites the feature columns of a texel-data file from its positions.
    TexelFeatures {
        /// The data file to read.
        input: PathBuf,
        /// The file to write.
        #[arg(long)]
        out: PathBuf,
    },
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
        HalmaCommand::Bench { samples, seconds, runs } => {
            print!("{}", tools::bench(&samples, seconds, runs)?)
        }
        HalmaCommand::Check { input, output } => println!("{}", tools::check_command(&input, &output)?),
        HalmaCommand::Opening(a) => common::run::<Halma>(Tool::Opening(a))?,
        HalmaCommand::Book(a) => common::run::<Halma>(Tool::Book(a))?,
        HalmaCommand::Calibrate(a) => common::run::<Halma>(Tool::Calibrate(a))?,
        HalmaCommand::GoalDb { out } => {
            let table = agent::games::halma::solver::goal_db::build();
            std::fs::write(&out, &table).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            println!("{} patterns written to {}", table.len(), out.display());
        }
        HalmaCommand::RaceBench {
            positions,
            move_seconds,
            samples,
            seed,
            save_races,
        } => {
            if let Some(path) = save_races {
                race_bench::save_races(&path, seed)?;
            }
            let opts = race_bench::RaceBenchOptions {
                positions,
                move_seconds,
                samples,
                seed,
                ..Default::default()
            };
            print!("{}", race_bench::run(&opts)?)
        }
        HalmaCommand::TexelData {
            games,
            seconds,
            seed,
            opening_plies,
            skip_plies,
            out,
        } => {
            let o = texel::DataOptions {
                games,
                seconds,
                seed,
                opening_plies,
                skip_plies,
            };
            println!("{}", texel::generate(&o, &out)?)
        }
        HalmaCommand::TexelFeatures { input, out } => println!("{}", texel::refeature(&input, &out)?),
    }
    Ok(())
}
