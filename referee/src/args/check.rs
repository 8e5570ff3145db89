//! Validation of the command-line arguments into the types the referee runs
//! with: every refusal names the option and what it expects.

use super::{GameOpts, MatchArgs, ModeArg, RunOpts, TimeOpts, TournamentArgs};
use crate::game_loop::{resolve_command, Contestant, Rules, SeatKind};
use crate::orchestrate::{RunKind, RunPlan};
use crate::rating::Sprt;
use crate::schedule::Starts;
use agent::protocol::{GenOptions, Mode, Player};
use std::path::PathBuf;

impl GameOpts {
    /// The start positions: the `--start` file's text, or options for generated ones.
    pub fn starts(&self) -> Result<Starts, String> {
        let text = match &self.start {
            Some(p) => {
                Some(std::fs::read_to_string(p).map_err(|e| format!("cannot read --start {}: {e}", p.display()))?)
            }
            None => None,
        };
        if let Some(d) = self.density {
            if !(0.0..=1.0).contains(&d) {
                return Err(format!("--density must be between 0 and 1, found {d}"));
            }
        }
        Ok(Starts {
            text,
            gen: GenOptions {
                rows: self.rows,
                cols: self.cols,
                size: self.size,
                density: self.density,
                seed: self.seed,
                first: Player::One,
            },
        })
    }
}

impl TimeOpts {
    /// The judging rules.
    pub fn rules(&self) -> Result<Rules, String> {
        positive_seconds(self.time, "--time")?;
        if !(self.grace.is_finite() && self.grace >= 0.0) {
            return Err(format!("--grace must be zero or more seconds, found {}", self.grace));
        }
        if let Some(m) = self.move_time {
            positive_seconds(m, "--move-time")?;
        }
        if !(self.wall_factor.is_finite() && self.wall_factor >= 1.0) {
            return Err(format!("--wall-factor must be at least 1, found {}", self.wall_factor));
        }
        if self.max_plies == 0 {
            return Err("--max-plies must be at least 1".into());
        }
        Ok(Rules {
            mode: match self.mode {
                ModeArg::Game => Mode::Game,
                ModeArg::Single => Mode::Single,
            },
            grace: self.grace,
            max_plies: self.max_plies,
            move_time: self.move_time,
            wall_factor: self.wall_factor,
            wall_extra: 5.0,
            output_cap: crate::runner::OUTPUT_CAP,
            sandbox: Default::default(),
        })
    }
}

/// A time in seconds that must be finite and above zero.
pub fn positive_seconds(v: f64, what: &str) -> Result<(), String> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(format!("{what} must be a positive number of seconds, found {v}"))
    }
}

impl MatchArgs {
    /// The match as a round robin of its two agents.
    pub fn plan(&self) -> Result<RunPlan, String> {
        let names: Vec<&str> = self.names.split(',').map(|s| s.trim()).collect();
        if names.len() != 2 || names.iter().any(|n| n.is_empty()) || names[0] == names[1] {
            return Err(format!(
                "--names expects two different names separated by a comma, such as A,B; found {:?}",
                self.names
            ));
        }
        let contestants: Vec<Contestant> = [(names[0], &self.cmd_a), (names[1], &self.cmd_b)]
            .into_iter()
            .map(|(name, cmd)| Contestant {
                name: name.to_string(),
                kind: SeatKind::parse(cmd),
                calibration: None,
            })
            .collect();
        if contestants.iter().any(|c| c.kind == SeatKind::Human) {
            return Err("a person plays through `referee play ... human CMD`, not `match`".into());
        }
        let time = [(self.time_a, "--time-a"), (self.time_b, "--time-b")]
            .into_iter()
            .map(|(t, what)| {
                let t = t.unwrap_or(self.time.time);
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

impl TournamentArgs {
    /// The tournament: a round robin of its NAME=CMD agents.
    pub fn plan(&self) -> Result<RunPlan, String> {
        let mut contestants: Vec<Contestant> = Vec::new();
        for spec in &self.agents {
            let Some((name, cmd)) = spec.split_once('=') else {
                return Err(format!("agents are given as NAME=CMD, found {spec:?}"));
            };
            let name = name.trim();
            if name.is_empty() || cmd.trim().is_empty() {
                return Err(format!(
                    "agents are given as NAME=CMD with both parts non-empty, found {spec:?}"
                ));
            }
            if contestants.iter().any(|c| c.name == name) {
                return Err(format!("agent name {name:?} is used twice"));
            }
            contestants.push(Contestant {
                name: name.to_string(),
                kind: SeatKind::Agent(resolve_command(cmd)),
                calibration: None,
            });
        }
        if contestants.len() < 2 {
            return Err("a tournament needs at least two agents".into());
        }
        let time = vec![self.time.time; contestants.len()];
        plan(
            RunKind::Tournament,
            &self.game,
            &self.time,
            &self.run,
            contestants,
            time,
            self.out.clone(),
        )
    }
}

/// The checks and conversions `match` and `tournament` share.
fn plan(
    kind: RunKind,
    game: &GameOpts,
    time: &TimeOpts,
    run: &RunOpts,
    contestants: Vec<Contestant>,
    times: Vec<f64>,
    out: PathBuf,
) -> Result<RunPlan, String> {
    let rules = time.rules()?;
    let starts = game.starts()?;
    if run.games == 0 {
        return Err("--games must be at least 1".into());
    }
    if run.concurrency == 0 {
        return Err("--concurrency must be at least 1".into());
    }
    let sprt = run.sprt.as_deref().map(Sprt::parse).transpose()?;
    if sprt.is_some() && contestants.len() != 2 {
        return Err("--sprt needs exactly two agents".into());
    }
    Ok(RunPlan {
        kind,
        game: game.game.to_ascii_lowercase(),
        contestants,
        time: times,
        games: run.games,
        rules,
        starts,
        out,
        resume: run.resume,
        calibrate: run.calibrate,
        sprt,
        results: run.results.clone(),
        keep_dirs: run.keep_dirs,
        concurrency: run.concurrency,
        sandbox: time.sandbox.clone(),
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
