//! The command line: the `referee` subcommands' arguments (clap structs,
//! here), agent specifications (`NAME=CMD,key=value`: [`agentspec`]) and
//! their validation, once, into the checked plan the rest of the referee
//! only reads ([`plan`]). Nothing here runs a game.

pub(crate) mod agentspec;
mod homes;
pub(crate) mod options;
pub(crate) mod plan;
pub(crate) mod tournament;

use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Which game and which start position.
#[derive(Args, Clone, Debug)]
pub(crate) struct GameOpts {
    /// Game: halma, hinger, connectsquare, fifteen or hashi.
    #[arg(long, default_value = "halma")]
    pub game: String,
    /// Seed of what varies between game pairs (advanced once per pair): the
    /// Hinger and Hashi boards and the plies of `--openings random:PLIES`.
    /// Halma, Connect Square and Fifteen always start from their fixed
    /// position unless `--openings` or `--start` says otherwise.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Start every game from this input.txt instead of a generated position.
    #[arg(long)]
    pub start: Option<PathBuf>,
    /// Board options of generated positions.
    #[command(flatten)]
    pub board: BoardArgs,
}

/// Board options of generated start positions (each game uses the ones
/// that mean something to it; the same flags as `agent duel` and the
/// agent's opening tools).
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct BoardArgs {
    /// Board rows (Hinger, Connect Square).
    #[arg(long)]
    pub rows: Option<usize>,
    /// Board columns (Hinger, Connect Square).
    #[arg(long)]
    pub cols: Option<usize>,
    /// Board size (Fifteen: 4 or 6; Hashi: n).
    #[arg(long)]
    pub size: Option<usize>,
    /// Share of cells holding counters, 0 to 1 (Hinger).
    #[arg(long)]
    pub density: Option<f64>,
}

impl BoardArgs {
    /// The generator options for `seed`, seat one moving first.
    pub(crate) fn gen(&self, seed: u64) -> agent::GenOptions {
        agent::GenOptions {
            rows: self.rows,
            cols: self.cols,
            size: self.size,
            density: self.density,
            seed,
            first: agent::Player::One,
        }
    }
}

/// `--mode`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModeArg {
    /// Line 1 `GAME`: budget the remaining time over the game.
    Game,
    /// Line 1 `SINGLE`: use the given time for this move.
    Single,
}

/// Time control and judging.
#[derive(Args, Clone, Debug)]
pub(crate) struct TimeOpts {
    /// Confinement and limits of the agents.
    #[command(flatten)]
    pub sandbox: crate::process::sandbox::SandboxOpts,
    /// CPU seconds per agent per game (at most 1000000). Default: the contest's 100 for Halma, 10 for the other games.
    #[arg(long, allow_negative_numbers = true)]
    pub time: Option<f64>,
    /// CPU seconds past the remaining time before an agent is killed (0 to 3600). Default: a tenth of the clock, from 1 to 10.
    #[arg(long, allow_negative_numbers = true)]
    pub grace: Option<f64>,
    /// Plies after which a game ends and the player with more time left wins.
    #[arg(long, default_value_t = 1000)]
    pub max_plies: usize,
    /// Line 1 of input.txt for the agents.
    #[arg(long, value_enum, default_value_t = ModeArg::Game)]
    pub mode: ModeArg,
    /// Per-move CPU cap: agents get min(remaining, this) and lose on exceeding it.
    #[arg(long, allow_negative_numbers = true)]
    pub move_time: Option<f64>,
    /// Wall-clock kill at (allowed CPU + grace) × this + 5 s (1 to 100).
    #[arg(long, default_value_t = 3.0, allow_negative_numbers = true)]
    pub wall_factor: f64,
}

/// Options shared by `match` and `tournament` (both are round robins).
#[derive(Args, Clone, Debug)]
pub(crate) struct RunOpts {
    /// Games per pairing (colours and first move alternate; odd: the first-named agent gets the extra first move). Default 2; with --sprt, until the test decides (at most 20000).
    #[arg(long, allow_negative_numbers = true)]
    pub games: Option<u64>,
    /// Games played at once (1 to 256; never more than the games left to play).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub concurrency: usize,
    /// Continue an interrupted run from the records in --out (same arguments as the first run).
    #[arg(long)]
    pub resume: bool,
    /// Before the first game, run each agent's calibration once in a directory holding the first start's input.txt (so it knows the game): `CMD calibrate`, or the agent's calibrate=COMMAND.
    #[arg(long)]
    pub calibrate: bool,
    /// Stop early (two agents): ELO0,ELO1[,ALPHA,BETA] for the first agent against the second.
    // The doc is clap's help text, where [...] means optional, not a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long)]
    pub sprt: Option<String>,
    /// Write the JSON results summary here.
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Keep every game's working directories (by default only forfeits' are kept).
    #[arg(long)]
    pub keep_dirs: bool,
    /// Working directories of forfeited games kept at most (the oldest go first).
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub keep_forfeits: usize,
    /// An agent as name=NAME,cmd=COMMAND[,dir=DIR][,time=SECONDS][,calibrate=COMMAND] (repeatable; DIR: the agent's home, relative to here).
    // The doc is clap's help text, where [...] means optional, not a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long = "agent", value_name = "SPEC")]
    pub agent: Vec<String>,
    /// Start positions for game pairs: an input.txt FILE (several separated by `---` lines), a DIR of them, or random:PLIES.
    #[arg(long)]
    pub openings: Option<String>,
    /// Skip the pre-flight move each agent makes before the first game (it stops a run whose agent cannot play).
    #[arg(long)]
    pub no_preflight: bool,
    /// Play only shard K of N of the schedule (0 <= K < N); combine the shards' --out directories with `referee merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
}

/// Where an agent was named on the command line: the i-th positional agent
/// or the i-th `--agent` entry. A run lists its agents in command-line
/// order, whichever way each was given (the first is the gauntlet's centre
/// and the SPRT's first agent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AgentSource {
    /// The i-th positional agent (`CMD_A CMD_B`, or `NAME=CMD`).
    Positional(usize),
    /// The i-th `--agent` entry.
    Entry(usize),
}

/// The order in which the positional agents (argument `positional`) and the
/// `--agent` entries of a subcommand's matches were given.
pub(crate) fn agent_order(m: &clap::ArgMatches, positional: &[&str]) -> Vec<AgentSource> {
    let mut seen: Vec<(usize, AgentSource)> = Vec::new();
    for id in positional {
        let before = seen.len();
        if let Some(ix) = m.indices_of(id) {
            seen.extend(ix.enumerate().map(|(i, at)| (at, AgentSource::Positional(before + i))));
        }
    }
    if let Some(ix) = m.indices_of("agent") {
        seen.extend(ix.enumerate().map(|(i, at)| (at, AgentSource::Entry(i))));
    }
    seen.sort_by_key(|(at, _)| *at);
    seen.into_iter().map(|(_, s)| s).collect()
}

/// Puts `positional` and `entries` in command-line `order`; without an
/// order (a plan built in code), the positional ones first.
pub(crate) fn in_order<T>(positional: Vec<T>, entries: Vec<T>, order: &[AgentSource]) -> Vec<T> {
    let total = positional.len() + entries.len();
    if order.len() != total {
        return positional.into_iter().chain(entries).collect();
    }
    let mut p: Vec<Option<T>> = positional.into_iter().map(Some).collect();
    let mut e: Vec<Option<T>> = entries.into_iter().map(Some).collect();
    order
        .iter()
        .filter_map(|s| match *s {
            AgentSource::Positional(i) => p.get_mut(i).and_then(Option::take),
            AgentSource::Entry(i) => e.get_mut(i).and_then(Option::take),
        })
        .collect()
}

/// `referee match`.
#[derive(Args, Clone, Debug)]
pub(crate) struct MatchArgs {
    /// First agent's shell command (run in its own working directory; files it names are found from here). Or use --agent twice.
    pub cmd_a: Option<String>,
    /// Second agent's shell command.
    pub cmd_b: Option<String>,
    #[command(flatten)]
    pub game: GameOpts,
    #[command(flatten)]
    pub time: TimeOpts,
    #[command(flatten)]
    pub run: RunOpts,
    /// CPU seconds per game for the first agent (default --time).
    #[arg(long, allow_negative_numbers = true)]
    pub time_a: Option<f64>,
    /// CPU seconds per game for the second agent (default --time).
    #[arg(long, allow_negative_numbers = true)]
    pub time_b: Option<f64>,
    /// Directory for records.jsonl, the manifest and working directories (default: a new temp dir).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Names of the two agents in tables and records, as NAME_A,NAME_B
    /// (default: each program's file name, such as my_agent and agent).
    #[arg(long)]
    pub names: Option<String>,
    /// Command-line order of the agents (set by the binary from its parse).
    #[arg(skip)]
    pub order: Vec<AgentSource>,
}

/// `--format`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Every pair of agents meets (`--gauntlet`: only the first with each other).
    RoundRobin,
    /// Rounds paired by score (`--rounds R`), then optionally a round robin of the top (`--final K`).
    Swiss,
}

/// `referee tournament`.
#[derive(Args, Clone, Debug)]
pub(crate) struct TournamentArgs {
    /// Agents as NAME=CMD (with --agent entries: at least two in all, kept in command-line order).
    pub agents: Vec<String>,
    /// Gauntlet: the first agent on the command line (NAME=CMD or --agent) plays each other agent; the others do not meet.
    #[arg(long)]
    pub gauntlet: bool,
    /// Measure the fitted ratings from this agent (rating 0) instead of the field's mean.
    #[arg(long, value_name = "NAME")]
    pub anchor: Option<String>,
    /// round-robin: every pair meets; swiss: --rounds rounds, each pairing agents of equal points who have not met.
    #[arg(long, value_enum, default_value_t = Format::RoundRobin)]
    pub format: Format,
    /// Rounds of a Swiss (--format swiss); at most the number of agents less one.
    #[arg(long, value_name = "R")]
    pub rounds: Option<u32>,
    /// After a Swiss's last round, a round robin of its top K agents.
    #[arg(long = "final", value_name = "K")]
    pub final_k: Option<usize>,
    /// Play only round N of a Swiss (with --shard K/M: only that shard of
    /// it), paired from the games of the rounds before, which --after holds.
    #[arg(long, value_name = "N")]
    pub round: Option<u32>,
    /// With --round N (N > 1): the directory holding rounds 1 to N-1 (the
    /// `referee merge` of round N-1's shards).
    #[arg(long, value_name = "DIR")]
    pub after: Option<PathBuf>,
    /// Command-line order of the agents (set by the binary from its parse).
    #[arg(skip)]
    pub order: Vec<AgentSource>,
    #[command(flatten)]
    pub game: GameOpts,
    #[command(flatten)]
    pub time: TimeOpts,
    #[command(flatten)]
    pub run: RunOpts,
    /// Directory for records.jsonl, the manifest and working directories.
    #[arg(long, default_value = "tournament-out")]
    pub out: PathBuf,
}

/// `referee play`.
#[derive(Args, Clone, Debug)]
pub(crate) struct PlayArgs {
    /// Seat 1 (Halma BLACK, Connect Square R, player 1): `human` or an agent command.
    pub seat1: String,
    /// Seat 2: `human` or an agent command.
    pub seat2: String,
    #[command(flatten)]
    pub game: GameOpts,
    #[command(flatten)]
    pub time: TimeOpts,
    /// Seat that moves first (asked when a human plays and this is not given).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub first: Option<u8>,
    /// Directory for the record, the game's HTML report and the agents' working directories.
    #[arg(long, default_value = "play-out")]
    pub out: PathBuf,
    #[command(flatten)]
    pub view: ViewOpts,
}

/// How much of a game the terminal shows.
#[derive(Args, Clone, Debug)]
pub(crate) struct ViewOpts {
    /// all: the board after every ply; moves: one line per ply and the board
    /// every --board-every plies; end: the final board only. Default: all for
    /// replay and for play with a person, moves otherwise.
    #[arg(long, value_enum)]
    pub show: Option<crate::output::board_text::Show>,
    /// With --show moves, also draw the board every N plies (0: only at the start and the end).
    #[arg(long, default_value_t = 0)]
    pub board_every: u64,
}

/// `referee merge`.
#[derive(Args, Clone, Debug)]
pub(crate) struct MergeArgs {
    /// The shards' --out directories (every shard K/N of one run).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Directory for the merged records.jsonl and manifest.
    #[arg(long)]
    pub out: PathBuf,
    /// Write the JSON results summary here.
    #[arg(long)]
    pub results: Option<PathBuf>,
}

/// `referee replay`.
#[derive(Args, Clone, Debug)]
pub(crate) struct ReplayArgs {
    /// A records.jsonl file.
    pub file: PathBuf,
    /// Which game: its 1-based number in the file or its key (default: the last).
    #[arg(long)]
    pub game: Option<String>,
    /// Wait for Enter after each move (q to stop).
    #[arg(long)]
    pub step: bool,
    #[command(flatten)]
    pub view: ViewOpts,
}

/// `referee grade`.
#[derive(Args, Clone, Debug)]
pub(crate) struct GradeArgs {
    /// A directory holding one folder per student (the folder's name is the
    /// student's id).
    pub submissions: PathBuf,
    /// The grading plan: `contest` (the contest's own plan for --game) or a
    /// TOML file.
    #[arg(long, default_value = "contest")]
    pub plan: String,
    /// Game of the built-in plan (a plan file names its own).
    #[arg(long, default_value = "halma")]
    pub game: String,
    /// Directory for grades.csv, grades.json, report.html and the records.
    #[arg(long)]
    pub out: PathBuf,
    /// Only the first N single-move tests (a quick dry run).
    #[arg(long, value_name = "N")]
    pub singles: Option<usize>,
    /// Only N games (the submission opens half of them, rounded up).
    #[arg(long, value_name = "N")]
    pub games: Option<usize>,
    /// Every single-move budget and every game clock set to SECS.
    #[arg(long, value_name = "SECS")]
    pub time: Option<f64>,
    /// Seed of the positions and clocks (the plan's, by default).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Also place each submission on the strength ladder (`agent --level
    /// N`; Halma): an informative line, e.g. "between level 4 and 5",
    /// that counts in no grade. The plan's [ladder], else 2 games a level
    /// at 10 s a side.
    #[arg(long, conflicts_with = "no_ladder")]
    pub ladder: bool,
    /// No ladder placement, even if the plan has a [ladder].
    #[arg(long)]
    pub no_ladder: bool,
    /// Tests run at once (1 to 256).
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Continue an interrupted grading from what --out holds: finished tests
    /// are kept, none is run twice.
    #[arg(long)]
    pub resume: bool,
    /// Grade only this student (again: their earlier results are replaced).
    #[arg(long, value_name = "STUDENT")]
    pub only: Option<String>,
    /// Grade only shard K of N of the class (the students whose place in
    /// the sorted class is K modulo N); combine the shards' --out
    /// directories with `referee merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// SUBMISSIONS is one student's folder, not a class: grade it alone and
    /// also write Gradescope's results.json to FILE (a course's autograder,
    /// or a student checking their folder before handing it in).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["shard", "only"])]
    pub gradescope: Option<PathBuf>,
    /// Sandbox and limits of the submissions (builds and tests).
    #[command(flatten)]
    pub sandbox: crate::process::sandbox::SandboxOpts,
}
