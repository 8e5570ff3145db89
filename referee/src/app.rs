//! The application: the `referee` command line parsed, then each
//! subcommand handed to its room. The top of the crate: it imports every
//! room and none imports it.

use crate::cli::{agent_order, GradeArgs, MatchArgs, MergeArgs, PlayArgs, ReplayArgs, TournamentArgs};
use crate::game::human::HumanIo;
use crate::report::ReportArgs;
use crate::run::{orchestrate, play};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "referee",
    version = crate::output::record::REFEREE_VERSION,
    about = "Runs timed games between agent programs through input.txt/output.txt"
)]
struct Cli {
    /// Log details to stderr.
    #[arg(short, long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// N games between two agent commands, with results and records; resumable.
    Match(MatchArgs),
    /// Round robin between NAME=CMD agents; resumable.
    Tournament(TournamentArgs),
    /// One game with the board drawn after each move; a seat may be `human`.
    Play(PlayArgs),
    /// Step through a recorded game.
    Replay(ReplayArgs),
    /// Say which sandbox features this machine offers and what `--sandbox auto` does.
    Doctor,
    /// Write a self-contained HTML report (replays, charts, standings) of a run's records.
    Report(ReportArgs),
    /// Combine the --out directories of a run's shards (--shard K/N) into one.
    Merge(MergeArgs),
    /// Grade a class: build each submission, then single moves and games against the reference, as the contest scores them.
    Grade(GradeArgs),
}

/// `referee merge`: the shards of a match, tournament or Swiss round, or
/// of a grading, which the grader merges with its own sheets.
fn merge(a: &MergeArgs) -> Result<i32, String> {
    let heads = crate::run::merge::read_heads(&a.dirs)?;
    if heads.iter().any(|h| h.kind == "grading") {
        crate::grade::merge::run(&heads, a)
    } else {
        crate::run::merge::run(&heads, a)
    }
}

/// The `referee` binary's `main`: parses the command line, runs the
/// subcommand, and gives its exit status (2 with a message on an error).
pub fn main() -> ExitCode {
    // While the referee has one thread: its own mount namespace, where each
    // agent's working directory is a tmpfs the kernel bounds.
    crate::process::workdir::enter_private_mounts();
    let matches = Cli::command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // Agents keep their command-line order across positional and --agent.
    match (&mut cli.command, matches.subcommand()) {
        (Command::Match(a), Some((_, m))) => a.order = agent_order(m, &["cmd_a", "cmd_b"]),
        (Command::Tournament(a), Some((_, m))) => a.order = agent_order(m, &["agents"]),
        _ => {}
    }
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(if cli.verbose {
        "debug"
    } else {
        "warn"
    }))
    .format_timestamp(None)
    .init();
    let r = match &cli.command {
        Command::Match(a) => a.plan().and_then(orchestrate::run),
        Command::Tournament(a) => a.plan().and_then(orchestrate::run),
        Command::Play(a) => play::run_play(a, HumanIo::terminal()),
        Command::Replay(a) => play::run_replay(a, HumanIo::terminal()),
        Command::Doctor => {
            print!("{}", crate::process::sandbox::doctor());
            Ok(0)
        }
        Command::Report(a) => crate::report::run_report(a),
        Command::Merge(a) => merge(a),
        Command::Grade(a) => crate::grade::run(a),
    };
    match r {
        Ok(0) => ExitCode::SUCCESS,
        Ok(c) => ExitCode::from(c.clamp(1, 255) as u8),
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::from(2)
        }
    }
}
