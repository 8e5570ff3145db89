//! A grading plan: what every submission is tested on and what each test
//! is worth. A small TOML file, or `contest`: the contest's own plan for a
//! game. Command-line overrides (`--singles`, `--games`, `--time`,
//! `--seed`, `--ladder`/`--no-ladder`) apply on top, for a quick dry run.

use super::gradescope::config::Gradescope;
use super::ladder::config::Ladder;
use super::languages::Languages;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A plan as written (TOML) and as kept in `plan.toml` of a grading run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GradePlan {
    /// The game (`halma`, `hinger`, `connectsquare`, `fifteen`, `hashi`).
    pub game: String,
    /// Seed of the positions and the clocks: every student faces the same
    /// tests, and a re-grade is the same grading.
    pub seed: u64,
    /// The single-move tests.
    pub singles: Singles,
    /// The games against the reference agent.
    pub games: Games,
    /// Limits of a submission's build.
    #[serde(default)]
    pub build: Build,
    /// The strength ladder's placement (informative, never scored); none:
    /// no placement. Left out of `plan.toml` when off, so a plan without
    /// it reads and resumes as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ladder: Option<Ladder>,
    /// The programs each language builds and runs with, and the
    /// directories they need (left out of `plan.toml` when unset).
    #[serde(default, skip_serializing_if = "Languages::is_default")]
    pub languages: Languages,
    /// What Gradescope shows students, when the grading writes its
    /// `results.json` (left out of `plan.toml` when unset).
    #[serde(default, skip_serializing_if = "Gradescope::is_default")]
    pub gradescope: Gradescope,
}

/// The single-move part: positions, one move each within a CPU budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Singles {
    /// How many positions.
    pub count: usize,
    /// Points for each legal move in time.
    pub points: u32,
    /// CPU seconds for each move (the `SINGLE` input's time).
    pub budget: f64,
    /// A directory of `input.txt`-format files (taken in name order)
    /// instead of positions drawn from seeded self-play.
    #[serde(default)]
    pub positions: Option<PathBuf>,
}

/// The game part: whole timed games against the reference agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Games {
    /// How many games.
    pub count: usize,
    /// Of those, how many the submission moves first in.
    pub opened: usize,
    /// Points for each game won.
    pub points: u32,
    /// Range of each side's total CPU seconds for a game, drawn per game.
    pub clock: [f64; 2],
    /// The reference agent's command; `{agent}` is this referee's own agent
    /// program (the one installed beside it, else `agent` on PATH).
    pub opponent: String,
    /// Plies after which the game ends and time decides.
    pub max_plies: usize,
    /// Who gets a drawn game: `time-left` (the side with more CPU time left,
    /// as the contest rules) or `nobody`.
    pub draw: DrawRule,
}

/// Who gets a drawn game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum DrawRule {
    /// The side with more CPU time left wins it (equal time: nobody).
    TimeLeft,
    /// Nobody: a draw scores no points.
    Nobody,
}

/// Limits of a build.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Build {
    /// CPU seconds a build may take.
    pub cpu: f64,
}

impl Default for Build {
    fn default() -> Self {
        Build { cpu: 120.0 }
    }
}

/// The contest's plan for `game`: for Halma, the brief's own (10 single
/// moves of 30 s at 1 point, 9 games at 10 points against plain minimax,
/// 5 of them opened by the submission, clocks of 100-300 s, a drawn game
/// to the side with more time left); the smaller games the same shape
/// with their shorter clocks. No ladder placement: it would add games to
/// every student's grading (`--ladder` turns it on).
pub(crate) fn contest(game: &str) -> GradePlan {
    let halma = game == "halma";
    GradePlan {
        game: game.to_string(),
        seed: 2026,
        singles: Singles {
            count: 10,
            points: 1,
            budget: if halma { 30.0 } else { 5.0 },
            positions: None,
        },
        games: Games {
            count: 9,
            opened: 5,
            points: 10,
            clock: if halma { [100.0, 300.0] } else { [10.0, 30.0] },
            opponent: "{agent} --strategy minimax".into(),
            max_plies: 1000,
            draw: DrawRule::TimeLeft,
        },
        build: Build::default(),
        ladder: None,
        languages: Languages::default(),
        gradescope: Gradescope::default(),
    }
}

/// Command-line changes to a plan.
#[derive(Clone, Debug, Default)]
pub(crate) struct Overrides {
    /// Only the first N single-move tests.
    pub singles: Option<usize>,
    /// N games, the submission opening half (rounded up).
    pub games: Option<usize>,
    /// Every budget and clock set to this.
    pub time: Option<f64>,
    /// Another seed.
    pub seed: Option<u64>,
    /// The ladder placement on (the plan's `[ladder]`, else its defaults)
    /// or off.
    pub ladder: Option<bool>,
}

impl GradePlan {
    /// Reads `plan`: `contest` (for `game`) or a TOML file, with line-
    /// numbered errors, then checks it.
    pub(crate) fn load(plan: &str, game: &str) -> Result<GradePlan, String> {
        let p = if plan == "contest" {
            contest(game)
        } else {
            let path = Path::new(plan);
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read the plan {}: {e}", path.display()))?;
            let mut p: GradePlan =
                toml::from_str(&text).map_err(|e| format!("the plan {} is not valid: {e}", path.display()))?;
            // Positions named relative to the plan file.
            if let Some(d) = p.singles.positions.as_mut().filter(|d| d.is_relative()) {
                *d = path.parent().unwrap_or(Path::new(".")).join(&*d);
            }
            p
        };
        p.check()?;
        Ok(p)
    }

    /// Applies command-line overrides.
    pub(crate) fn with(mut self, o: &Overrides) -> Result<GradePlan, String> {
        if let Some(n) = o.singles {
            self.singles.count = self.singles.count.min(n);
        }
        if let Some(n) = o.games {
            self.games.count = n;
            self.games.opened = n.div_ceil(2);
        }
        match o.ladder {
            Some(true) => self.ladder = self.ladder.take().or_else(|| Some(Ladder::default())),
            Some(false) => self.ladder = None,
            None => {}
        }
        if let Some(t) = o.time {
            self.singles.budget = t;
            self.games.clock = [t, t];
            if let Some(l) = self.ladder.as_mut() {
                l.clock = t;
            }
        }
        if let Some(s) = o.seed {
            self.seed = s;
        }
        self.check()?;
        Ok(self)
    }

    /// Refuses a plan no grading can follow, naming the field.
    pub(crate) fn check(&self) -> Result<(), String> {
        crate::for_game!(&self.game, |G| Ok::<&str, String>(<G as agent::Notation>::NAME))?;
        let secs = |v: f64, what: &str| {
            if v.is_finite() && v > 0.0 && v <= 1e6 {
                Ok(())
            } else {
                Err(format!("{what} must be a positive number of seconds, found {v}"))
            }
        };
        secs(self.singles.budget, "singles.budget")?;
        secs(self.games.clock[0], "games.clock[0]")?;
        secs(self.games.clock[1], "games.clock[1]")?;
        secs(self.build.cpu, "build.cpu")?;
        if self.games.clock[0] > self.games.clock[1] {
            return Err(format!(
                "games.clock is a range [low, high]; found [{}, {}]",
                self.games.clock[0], self.games.clock[1]
            ));
        }
        if self.games.opened > self.games.count {
            return Err(format!(
                "games.opened ({}) cannot be more than games.count ({})",
                self.games.opened, self.games.count
            ));
        }
        if self.games.count > 0 && self.games.opponent.trim().is_empty() {
            return Err("games.opponent is empty: give the reference agent's command".into());
        }
        if self.games.max_plies == 0 {
            return Err("games.max_plies must be at least 1".into());
        }
        self.languages.check()?;
        match &self.ladder {
            Some(l) => l.check(&self.game, &self.ladder_program()),
            None => Ok(()),
        }
    }

    /// The program that plays the ladder's levels (before `{agent}` is
    /// made a path): `ladder.agent`, else the program of `games.opponent`.
    pub(crate) fn ladder_program(&self) -> String {
        match self.ladder.as_ref().and_then(|l| l.agent.clone()) {
            Some(a) => a,
            None => self.games.opponent.split_whitespace().next().unwrap_or("").to_string(),
        }
    }

    /// The most points a submission can score.
    pub(crate) fn max_points(&self) -> u32 {
        self.singles.count as u32 * self.singles.points + self.games.count as u32 * self.games.points
    }

    /// The plan as TOML, as kept with the grades.
    pub(crate) fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }
}

/// The reference agent's command with `{agent}` made this referee's own
/// agent program: the one installed beside the referee, else `agent`.
pub(crate) fn opponent_command(template: &str) -> String {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join("agent")))
        .filter(|a| a.is_file());
    let agent = beside.map_or_else(|| "agent".to_string(), |a| a.display().to_string());
    template.replace("{agent}", &agent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contest_plan_is_the_briefs() {
        let p = contest("halma");
        assert_eq!((p.singles.count, p.singles.points), (10, 1));
        assert_eq!((p.games.count, p.games.points, p.games.opened), (9, 10, 5));
        assert_eq!(p.games.draw, DrawRule::TimeLeft);
        assert_eq!(p.games.clock, [100.0, 300.0]);
        assert!(p.games.opponent.contains("--strategy minimax"));
        assert_eq!(p.max_points(), 100);
        for g in ["hinger", "connectsquare", "fifteen", "hashi"] {
            let q = GradePlan::load("contest", g).unwrap();
            assert_eq!((q.singles.count, q.games.count, q.games.opened), (10, 9, 5), "{g}");
        }
    }

    #[test]
    fn a_plan_round_trips_and_overrides_apply() {
        let p = contest("halma");
        let back: GradePlan = toml::from_str(&p.to_toml()).unwrap();
        assert_eq!(back, p);
        let o = Overrides {
            singles: Some(2),
            games: Some(3),
            time: Some(1.5),
            seed: Some(7),
            ladder: None,
        };
        let q = p.with(&o).unwrap();
        assert_eq!((q.singles.count, q.games.count, q.games.opened), (2, 3, 2));
        assert_eq!((q.singles.budget, q.games.clock, q.seed), (1.5, [1.5, 1.5], 7));
    }

    #[test]
    fn bad_plans_are_refused_naming_the_field() {
        let dir = std::env::temp_dir().join(format!("referee-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("plan.toml");
        let mut p = contest("halma");
        p.games.opened = 12;
        std::fs::write(&f, p.to_toml()).unwrap();
        let e = GradePlan::load(f.to_str().unwrap(), "halma").unwrap_err();
        assert!(e.contains("games.opened"), "{e}");
        std::fs::write(&f, p.to_toml().replace("count = 9", "cuont = 9")).unwrap();
        let e = GradePlan::load(f.to_str().unwrap(), "halma").unwrap_err();
        assert!(e.contains("cuont") && e.contains("line"), "{e}");
        assert!(GradePlan::load("contest", "chess")
            .unwrap_err()
            .contains("unknown game"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
