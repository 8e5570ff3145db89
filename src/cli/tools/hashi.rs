//! `agent hashi ...`: the Hashi tools behind the agent binary.

use crate::tools::Tool;
use agent::games::hashi::Hashi;
use agent::protocol::Notation;
use agent::protocol::Setup;
use agent::protocol::{GenOptions, Mode, Player};
use clap::Subcommand;

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
    #[command(flatten)]
    Common(Tool),
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
        HashiCommand::Common(tool) => crate::tools::run::<Hashi>(tool),
    }
}
