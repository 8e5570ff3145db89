//! `referee tournament`'s own checks: its NAME=CMD agents, `--anchor`,
//! and the format (round robin, gauntlet or Swiss with its rounds and
//! final), on top of what it shares with `match` ([`super::plan`]).

use crate::cli::plan::{agent_entries, plan, RunKind, RunPlan, SwissPlan};
use crate::cli::{in_order, Format, TournamentArgs};
use crate::game::{resolve_command, Contestant, SeatKind};
use crate::schedule::swiss::max_rounds;

impl TournamentArgs {
    /// The tournament: a round robin (or gauntlet, or Swiss) of its agents.
    pub(crate) fn plan(&self) -> Result<RunPlan, String> {
        let clock = self.time.clock(&self.game.game)?;
        let positional = self.positional_agents(clock)?;
        let entries: Vec<(Contestant, f64)> = agent_entries(&self.run.agent)?
            .into_iter()
            .map(|(c, t)| (c, t.unwrap_or(clock)))
            .collect();
        let (contestants, time): (Vec<Contestant>, Vec<f64>) =
            in_order(positional, entries, &self.order).into_iter().unzip();
        for (i, c) in contestants.iter().enumerate() {
            if contestants[..i].iter().any(|o| o.name == c.name) {
                return Err(format!("agent name {:?} is used twice", c.name));
            }
        }
        if contestants.len() < 2 {
            return Err("a tournament needs at least two agents (NAME=CMD or --agent name=NAME,cmd=CMD)".into());
        }
        let p = plan(
            RunKind::Tournament,
            &self.game,
            &self.time,
            &self.run,
            contestants,
            time,
            self.out.clone(),
        )?;
        if let Some(a) = &self.anchor {
            if !p.contestants.iter().any(|c| &c.name == a) {
                let names: Vec<&str> = p.contestants.iter().map(|c| c.name.as_str()).collect();
                return Err(format!(
                    "--anchor {a:?} names no agent of this tournament; the agents are {}",
                    names.join(", ")
                ));
            }
        }
        Ok(RunPlan {
            gauntlet: self.gauntlet,
            anchor: self.anchor.clone(),
            swiss: self.swiss(&p)?,
            ..p
        })
    }

    /// The positional NAME=CMD agents, each with the run's clock.
    fn positional_agents(&self, clock: f64) -> Result<Vec<(Contestant, f64)>, String> {
        let mut positional = Vec::new();
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
            let c = Contestant {
                name: name.to_string(),
                kind: SeatKind::Agent(resolve_command(cmd)),
                calibration: None,
                calibrate: None,
                home: None,
            };
            positional.push((c, clock));
        }
        Ok(positional)
    }

    /// `--format swiss` with its `--rounds` and `--final`, checked against
    /// the field; `None` for a round robin (which takes neither).
    fn swiss(&self, p: &RunPlan) -> Result<Option<SwissPlan>, String> {
        let n = p.contestants.len();
        if self.format == Format::RoundRobin {
            return match (self.rounds, self.final_k, self.round, &self.after) {
                (None, None, None, None) => Ok(None),
                _ => Err("--rounds, --final, --round and --after belong to a Swiss: add --format swiss".into()),
            };
        }
        let refused = [
            (self.gauntlet, "--gauntlet"),
            (p.shard.is_some() && self.round.is_none(), "--shard without --round"),
            (p.sprt.is_some(), "--sprt"),
        ];
        if let Some((_, what)) = refused.iter().find(|(on, _)| *on) {
            return Err(format!(
                "{what} cannot be used with --format swiss: a Swiss pairs each round from the results of the rounds before (shard one round at a time: --round N --shard K/M)"
            ));
        }
        let Some(rounds) = self.rounds else {
            return Err(format!(
                "--format swiss needs --rounds R: how many rounds to pair (at most {} for {n} agents)",
                max_rounds(n)
            ));
        };
        if rounds == 0 || rounds as usize > max_rounds(n) {
            return Err(format!(
                "--rounds must be between 1 and {} for {n} agents (no pair meets twice), found {rounds}",
                max_rounds(n)
            ));
        }
        let finalists = self.final_k.unwrap_or(0);
        if self.final_k.is_some() && !(2..=n).contains(&finalists) {
            return Err(format!(
                "--final must be between 2 and the number of agents ({n}), found {finalists}"
            ));
        }
        self.check_round(rounds, p.resume)?;
        Ok(Some(SwissPlan {
            rounds,
            finalists,
            round: self.round,
            after: self.after.clone(),
        }))
    }

    /// `--round N` is one of the Swiss's rounds (the final is played by
    /// resuming the last round's merge unsharded); `--after` names where
    /// the rounds before it were played, and is needed for N > 1 unless
    /// the run is resumed (its directory holds them then).
    fn check_round(&self, rounds: u32, resume: bool) -> Result<(), String> {
        let Some(n) = self.round else {
            return match self.after {
                Some(_) => Err("--after belongs to --round N: the directory of the rounds before N".into()),
                None => Ok(()),
            };
        };
        if n == 0 || n > rounds {
            return Err(format!(
                "--round must be between 1 and --rounds ({rounds}), found {n}; the final is played by resuming the last round's merged directory without --round"
            ));
        }
        match (n, &self.after) {
            (1, Some(_)) => Err("--round 1 is paired from nothing: drop --after".into()),
            (2.., None) if !resume => {
                let before = match n {
                    2 => "round 1".to_string(),
                    _ => format!("rounds 1 to {}", n - 1),
                };
                Err(format!(
                    "--round {n} is paired from the games of {before}: give their directory (the merge of round {}'s shards) as --after DIR",
                    n - 1
                ))
            }
            _ => Ok(()),
        }
    }
}
