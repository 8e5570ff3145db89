//! The `agent` binary: with no arguments, plays one turn of whatever game
//! `input.txt` in the current directory holds and writes `output.txt`.

use agent::driver::{run_turn, AgentOptions};
use agent::search::Strategy;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "agent", version, about = "Contest game agent: reads input.txt, writes output.txt")]
struct Cli {
    /// How to choose the move.
    #[arg(long, value_enum, default_value_t = StrategyArg::Best)]
    strategy: StrategyArg,
    /// Search depth for --strategy minimax (default 2) and alphabeta (default 4).
    #[arg(long)]
    depth: Option<u32>,
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
    /// Measure search speed and write calibration.txt for the time policy.
    Calibrate,
    /// Hinger study tools: exact solver, safe paths, scaling study.
    #[command(subcommand)]
    Hinger(agent::games::hinger::cli::HingerCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(if cli.verbose { "debug" } else { "warn" }))
        .format_timestamp(None)
        .init();
    let strategy = match cli.strategy {
        StrategyArg::Best => Strategy::Best,
        StrategyArg::Alphabeta => Strategy::AlphaBeta(cli.depth.unwrap_or(4)),
        StrategyArg::Minimax => Strategy::Minimax(cli.depth.unwrap_or(2)),
        StrategyArg::Greedy => Strategy::Greedy,
        StrategyArg::Mcts => Strategy::Mcts,
        StrategyArg::Random => Strategy::Random,
    };
    let result = match cli.command {
        None => {
            let opts = AgentOptions { dir: cli.dir, strategy, time_scale: 1.0 };
            run_turn(&opts).map(|r| {
                log::info!("wrote {:?} (depth {}, {} nodes, budget {:?})", r.output.trim_end(), r.depth, r.nodes, r.budget);
            }).map_err(|e| e.to_string())
        }
        Some(Command::Calibrate) => Err("calibration needs a built-in game".to_string()),
        Some(Command::Hinger(cmd)) => agent::games::hinger::cli::run(cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agent: {e}");
            ExitCode::from(2)
        }
    }
}
