//! The `agent` binary: with no arguments, plays one turn of whatever game
//! `input.txt` in the current directory holds and writes `output.txt`.

use agent::driver::{run_turn, AgentOptions};
use agent::games::halma::tools as halma;
use agent::search::Strategy;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

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
    /// Halma: leaf count DEPTH plies below the position of an input.txt.
    Perft {
        /// The input.txt holding the position.
        file: PathBuf,
        /// Plies.
        depth: u32,
        /// Use the simple array implementation (for the speed comparison).
        #[arg(long)]
        simple: bool,
    },
    /// Halma: move-generation and search speed on fixed samples.
    Bench {
        /// Directory of the Halma samples.
        #[arg(long, default_value = "samples/halma")]
        samples: PathBuf,
        /// CPU seconds of search per sample.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
    },
    /// Halma developer tools.
    Halma {
        #[command(subcommand)]
        cmd: HalmaCommand,
    },
    /// Connect Square tools (exact solver, solver-backed checks).
    Connectsquare {
        #[command(subcommand)]
        cmd: agent::games::connectsquare::cli::Command,
    },
    /// Fifteen tools (the exact solver).
    #[command(subcommand)]
    Fifteen(FifteenCmd),
    /// Hashi tools: generated boards, in-process strength duels.
    #[command(subcommand)]
    Hashi(agent::games::hashi::cli::HashiCommand),
    /// Hinger study tools: exact solver, safe paths, scaling study.
    #[command(subcommand)]
    Hinger(agent::games::hinger::cli::HingerCommand),
}

#[derive(Subcommand, Debug)]
enum HalmaCommand {
    /// Judge an output.txt against the position of an input.txt, as the referee does.
    Check {
        /// The input.txt.
        input: PathBuf,
        /// The output.txt.
        output: PathBuf,
    },
    /// Full timed games in-process: strategy A against strategy B, colours alternating.
    Duel {
        /// Strategy A (best, alphabeta, minimax).
        #[arg(long, value_enum, default_value_t = StrategyArg::Best)]
        a: StrategyArg,
        /// Strategy B.
        #[arg(long, value_enum, default_value_t = StrategyArg::Minimax)]
        b: StrategyArg,
        /// Depth for B when it is minimax or alphabeta.
        #[arg(long, default_value_t = 2)]
        b_depth: u32,
        /// Games to play.
        #[arg(long, default_value_t = 2)]
        games: u32,
        /// CPU seconds per side for the whole game.
        #[arg(long, default_value_t = 100.0)]
        seconds: f64,
        /// Plies after which the game is settled by remaining time.
        #[arg(long, default_value_t = 1000)]
        max_plies: u32,
        /// Write every position of every game as an input.txt into this directory.
        #[arg(long)]
        record: Option<PathBuf>,
    },
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

#[derive(Subcommand, Debug)]
enum FifteenCmd {
    /// Solve a FIFTEEN input file exactly: margin under perfect play, best move, CPU time.
    Solve {
        /// A FIFTEEN input.txt (4x4, or a 6x6 endgame).
        file: PathBuf,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 256)]
        tt_mb: usize,
    },
    /// In-process duel of the default agent against a baseline (for tuning).
    Duel {
        /// Board side (4 or 6).
        #[arg(long, default_value_t = 6)]
        size: u8,
        /// Games (the agent moves first in the even ones).
        #[arg(long, default_value_t = 20)]
        games: u32,
        /// The agent's CPU seconds per move (soft; hard is twice that).
        #[arg(long, default_value_t = 0.1)]
        seconds: f64,
        /// greedy, minimax or random.
        #[arg(long, default_value = "greedy")]
        opponent: String,
        /// Minimax depth.
        #[arg(long, default_value_t = 2)]
        depth: u32,
        /// Random plies at the start of each game.
        #[arg(long, default_value_t = 2)]
        random_plies: u32,
    },
    /// Print the input.txt of a seeded random opening (for strength scripts).
    Opening {
        /// Board side (4 or 6).
        #[arg(long, default_value_t = 6)]
        size: u8,
        /// Random placements from the empty board.
        #[arg(long, default_value_t = 2)]
        plies: u32,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Remaining seconds written in the file.
        #[arg(long, default_value_t = 100.0)]
        time: f64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(if cli.verbose {
        "debug"
    } else {
        "warn"
    }))
    .format_timestamp(None)
    .init();
    let strategy = to_strategy(cli.strategy, cli.depth);
    let result = match cli.command {
        None => {
            let opts = AgentOptions {
                dir: cli.dir,
                strategy,
                time_scale: 1.0,
            };
            run_turn(&opts)
                .map(|r| {
                    log::info!(
                        "wrote {:?} (depth {}, {} nodes, budget {:?})",
                        r.output.trim_end(),
                        r.depth,
                        r.nodes,
                        r.budget
                    );
                })
                .map_err(|e| e.to_string())
        }
        Some(Command::Calibrate) => halma::calibrate(&cli.dir).map(|s| println!("{s}")),
        Some(Command::Perft { file, depth, simple }) => {
            halma::perft_command(&file, depth, simple).map(|s| println!("{s}"))
        }
        Some(Command::Bench { samples, seconds }) => halma::bench(&samples, seconds).map(|s| print!("{s}")),
        Some(Command::Halma {
            cmd: HalmaCommand::Check { input, output },
        }) => halma::check_command(&input, &output).map(|s| println!("{s}")),
        Some(Command::Halma {
            cmd:
                HalmaCommand::Duel {
                    a,
                    b,
                    b_depth,
                    games,
                    seconds,
                    max_plies,
                    record,
                },
        }) => {
            let (a, b) = (to_strategy(a, cli.depth), to_strategy(b, Some(b_depth)));
            print!(
                "{}",
                halma::duel_command(a, b, games, seconds, max_plies, record.as_deref())
            );
            Ok(())
        }
        Some(Command::Connectsquare { cmd }) => agent::games::connectsquare::cli::run(cmd),
        Some(Command::Fifteen(FifteenCmd::Solve { file, tt_mb })) => {
            agent::games::fifteen::cli::solve_file(&file, tt_mb).map(|s| print!("{s}"))
        }
        Some(Command::Fifteen(FifteenCmd::Duel {
            size,
            games,
            seconds,
            opponent,
            depth,
            random_plies,
        })) => agent::games::fifteen::cli::duel_command(size, games, seconds, &opponent, depth, random_plies),
        Some(Command::Fifteen(FifteenCmd::Opening {
            size,
            plies,
            seed,
            time,
        })) => agent::games::fifteen::cli::opening(size, plies, seed, time).map(|s| print!("{s}")),
        Some(Command::Hashi(c)) => agent::games::hashi::cli::run(c),
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
