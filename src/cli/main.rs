//! The `agent` binary: with no arguments, plays one turn of whatever game
//! `input.txt` in the current directory holds and writes `output.txt`.
//! `agent <game> <tool>` runs a game's tools (each game's `cli` module
//! defines them) and `agent duel` the generic in-process duel; this file
//! only parses the command line and dispatches.

mod tools;

use agent::driver::{run_turn, AgentOptions};
use agent::games::GameKind;
use agent::search::level::Level;
use agent::search::Strategy;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use tools::{run_duel, DuelArgs};

#[derive(Parser, Debug)]
#[command(
    name = "agent",
    version,
    about = "Contest game agent: reads input.txt, writes output.txt"
)]
struct Cli {
    /// How to choose the move.
    #[arg(long, value_enum, default_value_t = StrategyArg::Best)]
    strategy: StrategyArg,
    /// Search depth for --strategy minimax (default 2) and alphabeta (default 4).
    #[arg(long)]
    depth: Option<u32>,
    /// A rung of the strength ladder instead of a strategy: 1 is the
    /// contest's reference agent (--strategy minimax), 10 full strength
    /// (Halma only; the table is in src/search/level.rs).
    #[arg(long, value_name = "N", value_parser = parse_level, conflicts_with_all = ["strategy", "depth"])]
    level: Option<Level>,
    /// Seed of a level's bounded randomness (default 0): the same position,
    /// level and seed give the same move.
    #[arg(long, value_name = "S", requires = "level")]
    seed: Option<u64>,
    /// Directory holding input.txt (default: the current directory).
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// Print search progress to stderr.
    #[arg(short, long)]
    verbose: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum StrategyArg {
    /// Iterative-deepening alpha-beta (and exact solvers where they fit).
    Best,
    /// Fixed-depth alpha-beta.
    Alphabeta,
    /// The reference agent: plain minimax, no pruning.
    Minimax,
    /// One-ply greedy.
    Greedy,
    /// Monte-Carlo tree search.
    Mcts,
    /// Uniformly random legal move.
    Random,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// In-process duel of two strategies on any game (W/D/L and score).
    Duel {
        /// The game (halma, hinger, connectsquare, fifteen, hashi).
        #[arg(long, ignore_case = true, value_parser = game_parser())]
        game: GameKind,
        #[command(flatten)]
        args: DuelArgs,
    },
    /// Measures this machine's search speed into calibration.txt for the
    /// game of input.txt in --dir (Halma without one): what the referee's
    /// --calibrate runs.
    Calibrate(tools::CalibrateArgs),
    /// Halma tools: perft, simple-perft, bench, check, opening, book, calibrate.
    #[command(subcommand)]
    Halma(tools::halma::HalmaCommand),
    /// Hinger tools: exact solver, safe paths, scaling study, perft, openings.
    #[command(subcommand)]
    Hinger(tools::hinger::HingerCommand),
    /// Connect Square tools: exact solver, solver-backed check, perft, openings.
    #[command(subcommand)]
    Connectsquare(tools::connectsquare::Command),
    /// Fifteen tools: the exact solver, perft, openings.
    #[command(subcommand)]
    Fifteen(tools::fifteen::FifteenCommand),
    /// Hashi tools: generated boards, perft, openings.
    #[command(subcommand)]
    Hashi(tools::hashi::HashiCommand),
}

impl Cli {
    /// What clap gives for no arguments, without clap: a contest run starts
    /// a new process for every turn, and building the whole command tree
    /// (every developer tool's options) was a fifth of a short move's
    /// page faults. A test checks it equals `Cli::parse_from(["agent"])`.
    fn bare() -> Cli {
        Cli {
            strategy: StrategyArg::Best,
            depth: None,
            level: None,
            seed: None,
            dir: PathBuf::from("."),
            verbose: false,
            command: None,
        }
    }
}

fn to_strategy(s: StrategyArg, depth: Option<u32>) -> Strategy {
    match s {
        StrategyArg::Best => Strategy::Best,
        StrategyArg::Alphabeta => Strategy::AlphaBeta(depth.unwrap_or(4)),
        StrategyArg::Minimax => Strategy::Minimax(depth.unwrap_or(2)),
        StrategyArg::Greedy => Strategy::Greedy,
        StrategyArg::Mcts => Strategy::Mcts,
        StrategyArg::Random => Strategy::Random,
    }
}

/// `--level N`: 1 to 10, anything else refused in words.
fn parse_level(s: &str) -> Result<Level, String> {
    s.parse()
}

/// `--game`: one of the registry's names, in any case; clap lists them and
/// suggests the closest for a typo, as it does for every other value.
fn game_parser() -> impl clap::builder::TypedValueParser<Value = GameKind> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(GameKind::ALL.iter().map(|k| k.name()))
        .map(|name| GameKind::from_name(&name).expect("clap accepts only the registry's names"))
}

fn duel(kind: GameKind, args: DuelArgs) -> Result<(), String> {
    agent::with_game!(kind, |G| run_duel::<G>(&args))
}

/// `agent calibrate`: the game is the one of `input.txt` in `--dir`.
fn calibrate(args: tools::CalibrateArgs) -> Result<(), String> {
    use tools::{run, Tool};
    let input = args.dir.join("input.txt");
    let kind = match std::fs::read_to_string(&input) {
        Ok(text) => GameKind::detect(&text).map_err(|e| format!("{}: {e}", input.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => GameKind::Halma,
        Err(e) => return Err(format!("cannot read {}: {e}", input.display())),
    };
    agent::with_game!(kind, |G| run::<G>(Tool::Calibrate(args)))
}

fn main() -> ExitCode {
    let cli = if std::env::args_os().len() <= 1 {
        Cli::bare()
    } else {
        Cli::parse()
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(if cli.verbose {
        "debug"
    } else {
        "warn"
    }))
    .format_timestamp(None)
    .init();
    let result = match cli.command {
        None => {
            let opts = AgentOptions {
                dir: cli.dir,
                strategy: match cli.level {
                    Some(level) => Strategy::Level(level, cli.seed.unwrap_or(0)),
                    None => to_strategy(cli.strategy, cli.depth),
                },
                time_scale: 1.0,
            };
            run_turn(&opts)
                .map(|r| {
                    // The referee records a last stderr line `info depth D score S
                    // nodes N` with the move.
                    if let Some(line) = r.info_line() {
                        eprintln!("{line}");
                    }
                    log::info!("{r}");
                })
                .map_err(|e| e.to_string())
        }
        Some(Command::Duel { game, args }) => duel(game, args),
        Some(Command::Calibrate(args)) => calibrate(args),
        Some(Command::Halma(cmd)) => tools::halma::run(cmd),
        Some(Command::Hinger(cmd)) => tools::hinger::run(cmd),
        Some(Command::Connectsquare(cmd)) => tools::connectsquare::run(cmd),
        Some(Command::Fifteen(cmd)) => tools::fifteen::run(cmd),
        Some(Command::Hashi(cmd)) => tools::hashi::run(cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agent: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_arguments_without_clap_is_what_clap_gives() {
        assert_eq!(
            format!("{:?}", Cli::bare()),
            format!("{:?}", Cli::parse_from(["agent"]))
        );
    }

    #[test]
    fn duel_game_is_a_registry_name_in_any_case_and_a_typo_gets_a_suggestion() {
        let cli = Cli::try_parse_from(["agent", "duel", "--game", "HASHI"]).expect("any case parses");
        assert!(matches!(
            cli.command,
            Some(Command::Duel {
                game: GameKind::Hashi,
                ..
            })
        ));
        let e = Cli::try_parse_from(["agent", "duel", "--game", "halm"])
            .expect_err("a typo is refused")
            .to_string();
        assert!(e.contains("a similar value exists: 'halma'"), "{e}");
        assert!(e.contains("halma, hinger, connectsquare, fifteen, hashi"), "{e}");
    }

    #[test]
    fn level_is_one_to_ten_and_excludes_a_strategy() {
        let cli = Cli::try_parse_from(["agent", "--level", "3", "--seed", "9"]).expect("a level parses");
        assert_eq!(cli.level.map(|l| l.number()), Some(3));
        assert_eq!(cli.seed, Some(9));
        for bad in ["0", "11"] {
            let e = Cli::try_parse_from(["agent", "--level", bad])
                .expect_err("out of range")
                .to_string();
            assert!(e.contains("levels go from 1"), "{e}");
        }
        let e = Cli::try_parse_from(["agent", "--level", "2", "--strategy", "greedy"])
            .expect_err("a level is a strategy of its own")
            .to_string();
        assert!(e.contains("cannot be used with"), "{e}");
        assert!(
            Cli::try_parse_from(["agent", "--seed", "1"]).is_err(),
            "--seed needs --level"
        );
    }
}
