//! Validation of the command-line arguments into the types the referee runs
//! with: every refusal names the option and what it expects.

use crate::cli::agentspec::{AgentCommand, AgentSpec};
use crate::cli::homes::{check_private_homes, check_shared_start_dirs};
use crate::cli::options::positive_seconds;
use crate::cli::{in_order, GameOpts, MatchArgs, RunOpts, TimeOpts};
use crate::game::{Contestant, Rules, SeatKind};
use crate::process::resolve::resolve_in_home;
use crate::schedule::openings::{self, OpeningSpec, RandomSuite};
use crate::schedule::shard::Shard;
use crate::schedule::starts::{Openings, Starts};
use crate::stats::sprt::Sprt;
use std::path::PathBuf;
use std::sync::Arc;

/// Games an SPRT without `--games` may play before it stops undecided (as
/// fastchess bounds a run by its rounds): enough for differences of a few
/// Elo at the usual bounds.
pub(crate) const SPRT_GAME_CAP: u64 = 20_000;

/// The most games played at once (each is a thread and two agent processes).
pub(crate) const MAX_CONCURRENCY: usize = 256;
/// A seat given on the command line: `human` or a non-empty agent command.
pub(crate) fn seat(arg: &str, which: &str) -> Result<SeatKind, String> {
    if arg.trim().is_empty() {
        return Err(format!(
            "the {which} command is empty: give the shell command that runs the agent, such as ./target/release/agent"
        ));
    }
    Ok(SeatKind::parse(arg))
}

impl MatchArgs {
    /// The match as a round robin of its two agents.
    pub(crate) fn plan(&self) -> Result<RunPlan, String> {
        // --time first: --time-a/--time-b default to it.
        let clock = self.time.clock(&self.game.game)?;
        let names: Vec<String> = match &self.names {
            Some(given) => {
                let names: Vec<String> = given.split(',').map(|s| s.trim().to_string()).collect();
                if names.len() != 2 || names.iter().any(String::is_empty) || names[0] == names[1] {
                    return Err(format!(
                        "--names expects two different names separated by a comma, such as mine,theirs; found {given:?}"
                    ));
                }
                names
            }
            None => {
                let cmds = [&self.cmd_a, &self.cmd_b].map(|c| c.as_deref().unwrap_or_default());
                crate::cli::agentspec::names_from_commands(&cmds)
            }
        };
        let positional = [(&self.cmd_a, "first agent's"), (&self.cmd_b, "second agent's")];
        let mut contestants: Vec<Contestant> = positional
            .iter()
            .filter_map(|(cmd, which)| cmd.as_ref().map(|c| (c, *which)))
            .zip(&names)
            .map(|((cmd, which), name)| {
                Ok(Contestant {
                    name: name.to_string(),
                    kind: seat(cmd, which)?,
                    calibration: None,
                    calibrate: None,
                    home: None,
                })
            })
            .collect::<Result<_, String>>()?;
        let positional: Vec<(Contestant, Option<f64>)> = contestants.drain(..).map(|c| (c, None)).collect();
        let entries = agent_entries(&self.run.agent)?;
        let (contestants, own_times): (Vec<Contestant>, Vec<Option<f64>>) =
            in_order(positional, entries, &self.order).into_iter().unzip();
        for (i, c) in contestants.iter().enumerate() {
            if contestants[..i].iter().any(|o| o.name == c.name) {
                return Err(format!(
                    "agent name {:?} is used twice (see --names and --agent name=)",
                    c.name
                ));
            }
        }
        if contestants.len() != 2 {
            return Err(format!(
                "a match needs two agents: two commands (CMD_A CMD_B) or two --agent entries, or one of each; found {}",
                contestants.len()
            ));
        }
        if contestants.iter().any(|c| c.kind == SeatKind::Human) {
            return Err("a person plays through `referee play ... human CMD`, not `match`".into());
        }
        let time = [(self.time_a, "--time-a"), (self.time_b, "--time-b")]
            .into_iter()
            .zip(own_times)
            .map(|((t, what), own)| {
                let t = t.or(own).unwrap_or(clock);
                positive_seconds(t, what).map(|()| t)
            })
            .collect::<Result<Vec<f64>, String>>()?;
        if self.run.resume && self.out.is_none() {
            return Err("--resume needs the --out directory of the interrupted match".into());
        }
        let out = self.out.clone().unwrap_or_else(|| default_out("match"));
        plan(
            RunKind::Match,
            &self.game,
            &self.time,
            &self.run,
            contestants,
            time,
            out,
        )
    }
}

/// The `--agent` entries as contestants, with their own time if given. Each
/// command's files are found in the agent's home (`dir=`, else here).
pub(super) fn agent_entries(specs: &[String]) -> Result<Vec<(Contestant, Option<f64>)>, String> {
    let here = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let entries = specs
        .iter()
        .map(|s| {
            let spec = AgentSpec::parse(s)?;
            let home = spec.home(&here)?;
            let contestant = Contestant {
                name: spec.name.clone(),
                kind: SeatKind::Agent(AgentCommand::new(resolve_in_home(&spec.cmd, &home))),
                calibration: None,
                calibrate: spec
                    .calibrate
                    .as_deref()
                    .map(|c| AgentCommand::new(resolve_in_home(c, &home))),
                // Only a declared home is shown to the agent: the start
                // directory may be anything up to `/`.
                home: spec.dir.is_some().then_some(home),
            };
            Ok((contestant, spec.time))
        })
        .collect::<Result<Vec<_>, String>>()?;
    check_private_homes(&entries)?;
    Ok(entries)
}

/// The checks and conversions `match` and `tournament` share.
pub(super) fn plan(
    kind: RunKind,
    game: &GameOpts,
    time: &TimeOpts,
    run: &RunOpts,
    contestants: Vec<Contestant>,
    times: Vec<f64>,
    out: PathBuf,
) -> Result<RunPlan, String> {
    check_shared_start_dirs(&contestants)?;
    let rules = time.rules(times.iter().copied().fold(0.0, f64::max))?;
    let mut starts = game.starts()?;
    if let Some(spec) = &run.openings {
        if starts.text.is_some() {
            return Err("--openings and --start both choose the start positions; give one".into());
        }
        starts.openings = Some(Arc::new(match OpeningSpec::parse(spec)? {
            OpeningSpec::Path(p) => Openings::Files(openings::load(&p)?),
            OpeningSpec::Random { plies } => Openings::Random(RandomSuite::new(starts.gen.clone(), plies)),
        }));
    }
    let shard = run.shard.as_deref().map(Shard::parse).transpose()?;
    if shard.is_some() && run.sprt.is_some() {
        return Err(
            "--sprt decides as the games arrive, so it cannot be split with --shard; run the SPRT unsharded".into(),
        );
    }
    let sprt = run.sprt.as_deref().map(Sprt::parse).transpose()?;
    let games = match (run.games, &sprt) {
        (Some(0), _) => return Err("--games must be at least 1".into()),
        (Some(g), Some(_)) if g < 2 => {
            return Err(format!(
                "--sprt needs game pairs (each opening with colours swapped): give --games 2 or more, or leave --games out to play until the test decides (at most {SPRT_GAME_CAP}); found --games {g}"
            ))
        }
        (Some(g), _) => g,
        (None, Some(_)) => SPRT_GAME_CAP,
        (None, None) => 2,
    };
    if !(1..=MAX_CONCURRENCY).contains(&run.concurrency) {
        return Err(format!(
            "--concurrency must be between 1 and {MAX_CONCURRENCY} games at once, found {}",
            run.concurrency
        ));
    }
    if sprt.is_some() && contestants.len() != 2 {
        return Err("--sprt needs exactly two agents".into());
    }
    Ok(RunPlan {
        kind,
        game: game.game.to_ascii_lowercase(),
        contestants,
        time: times,
        games,
        rules,
        starts,
        out,
        resume: run.resume,
        calibrate: run.calibrate,
        sprt,
        results: run.results.clone(),
        keep_dirs: run.keep_dirs,
        keep_forfeits: run.keep_forfeits,
        concurrency: run.concurrency,
        sandbox: time.sandbox.clone(),
        openings: run.openings.clone(),
        shard,
        gauntlet: false,
        anchor: None,
        swiss: None,
        preflight: !run.no_preflight,
    })
}

/// A fresh directory under the system's temp dir for a run without `--out`.
fn default_out(kind: &str) -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    std::env::temp_dir().join(format!("referee-{kind}-{stamp}-{}", std::process::id()))
}

/// A Swiss: its rounds and the agents of the final round robin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SwissPlan {
    /// Rounds paired by score.
    pub rounds: u32,
    /// Agents in the final round robin (0: none).
    pub finalists: usize,
    /// `--round N`: play only round N (of `--shard`, if given).
    pub round: Option<u32>,
    /// `--after DIR`: where rounds 1 to N-1 of `--round N` were played.
    pub after: Option<PathBuf>,
}

/// Which subcommand a run came from (names its manifest and messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunKind {
    /// `referee match`: two agents.
    Match,
    /// `referee tournament`: two or more agents.
    Tournament,
}

impl RunKind {
    /// `match` or `tournament`.
    pub(crate) fn label(self) -> &'static str {
        match self {
            RunKind::Match => "match",
            RunKind::Tournament => "tournament",
        }
    }
}

/// A validated match or tournament, ready to run (built by `crate::cli::plan`).
pub(crate) struct RunPlan {
    /// Which subcommand.
    pub kind: RunKind,
    /// Game name (lower case).
    pub game: String,
    /// The agents, in the order given.
    pub contestants: Vec<Contestant>,
    /// CPU seconds per game, by contestant.
    pub time: Vec<f64>,
    /// Games per pairing.
    pub games: u64,
    /// Judging rules.
    pub rules: Rules,
    /// Start positions.
    pub starts: Starts,
    /// Directory for records, the manifest and working directories.
    pub out: PathBuf,
    /// Continue from the records in `out`.
    pub resume: bool,
    /// Run `CMD calibrate` once per agent first.
    pub calibrate: bool,
    /// Stop early when the SPRT decides (two agents).
    pub sprt: Option<Sprt>,
    /// Where to write the JSON results.
    pub results: Option<PathBuf>,
    /// Keep every game's working directories.
    pub keep_dirs: bool,
    /// Forfeits' working directories kept at most.
    pub keep_forfeits: usize,
    /// Games played at once (as asked; capped at the games left to play).
    pub concurrency: usize,
    /// How agents are confined (built once `out` exists).
    pub sandbox: crate::process::sandbox::SandboxOpts,
    /// `--openings` as given (recorded in the manifest).
    pub openings: Option<String>,
    /// Play only this shard of the schedule.
    pub shard: Option<Shard>,
    /// The first agent plays each other agent (and they do not meet).
    pub gauntlet: bool,
    /// The agent whose fitted rating is 0 (else the field's mean).
    pub anchor: Option<String>,
    /// A Swiss instead of a round robin.
    pub swiss: Option<SwissPlan>,
    /// Each agent makes one move before the first game.
    pub preflight: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        t: TimeOpts,
    }

    fn opts(args: &[&str]) -> TimeOpts {
        T::try_parse_from(std::iter::once("t").chain(args.iter().copied()))
            .unwrap()
            .t
    }

    #[test]
    fn clocks_and_grace_default_per_game_and_scale_with_the_clock() {
        let none = opts(&[]);
        assert_eq!(none.clock("halma").unwrap(), 100.0, "the contest's clock");
        assert_eq!(none.clock("connectsquare").unwrap(), 10.0);
        assert_eq!(none.rules(100.0).unwrap().grace, 10.0);
        assert_eq!(none.rules(10.0).unwrap().grace, 1.0);
        assert_eq!(none.rules(0.5).unwrap().grace, 1.0);
        let given = opts(&["--time", "7", "--grace", "0.5"]);
        assert_eq!(given.clock("halma").unwrap(), 7.0);
        assert_eq!(given.rules(7.0).unwrap().grace, 0.5);
        assert!(none.clock("chess").unwrap_err().contains("unknown game"));
    }
}
