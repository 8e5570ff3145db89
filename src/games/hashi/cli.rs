//! `agent hashi ...`: the Hashi tools behind the agent binary.

use super::duel::duel;
use super::Hashi;
use crate::protocol::{FileGame, GenOptions, Mode, Player};
use crate::search::Strategy;
use clap::{Subcommand, ValueEnum};

/// Hashi subcommands.
#[derive(Subcommand, Debug)]
pub enum HashiCommand {
    /// Print the input.txt of a generated board.
    Generate {
        /// Board size n.
        #[arg(long, default_value_t = 7)]
        size: usize,
        /// Generator seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Player to move first (1 or 2).
        #[arg(long, default_value_t = 1)]
        first: u8,
        /// Remaining seconds written in the header.
        #[arg(long, default_value_t = 60.0)]
        time: f64,
    },
    /// Play generated boards in-process: the default search (or --depth)
    /// against an opponent, first move alternating; prints W/D/L.
    Duel {
        /// The opponent.
        #[arg(long, value_enum, default_value_t = Opponent::Random)]
        opponent: Opponent,
        /// Games to play (boards seed, seed+1, ...).
        #[arg(long, default_value_t = 100)]
        games: u32,
        /// Board size n.
        #[arg(long, default_value_t = 7)]
        size: usize,
        /// First board seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// CPU seconds per move for the default search.
        #[arg(long, default_value_t = 0.1)]
        move_time: f64,
        /// Fixed alpha-beta depth instead of the timed search.
        #[arg(long)]
        depth: Option<u32>,
    },
}

/// Opponents for `duel`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Opponent {
    /// Uniformly random legal moves.
    Random,
    /// Plain minimax at depth 2 on the score difference (the reference agent).
    Minimax,
}

/// Runs a Hashi subcommand.
pub fn run(cmd: HashiCommand) -> Result<(), String> {
    match cmd {
        HashiCommand::Generate {
            size,
            seed,
            first,
            time,
        } => {
            let first = match first {
                1 => Player::One,
                2 => Player::Two,
                f => return Err(format!("--first must be 1 or 2, found {f}")),
            };
            if !(time.is_finite() && time > 0.0) {
                return Err(format!("--time must be a positive number of seconds, found {time}"));
            }
            let h = Hashi::generate(&GenOptions {
                size: Some(size),
                seed,
                first,
                ..Default::default()
            })?;
            print!("{}", h.write_input(Mode::Game, time));
            Ok(())
        }
        HashiCommand::Duel {
            opponent,
            games,
            size,
            seed,
            move_time,
            depth,
        } => {
            let a = depth.map_or(Strategy::Best, Strategy::AlphaBeta);
            let b = match opponent {
                Opponent::Random => Strategy::Random,
                Opponent::Minimax => Strategy::Minimax(2),
            };
            let r = duel(a, b, games, size, seed, move_time)?;
            println!(
                "{a:?} vs {b:?}: {} games on {size}x{size}: {} wins, {} draws, {} losses, score {:.1}%",
                games,
                r.wins,
                r.draws,
                r.losses,
                100.0 * r.score()
            );
            Ok(())
        }
    }
}
