//! The strength ladder's placement: where a submission stands among the
//! agent's levels (`agent --level N`, 1 the contest's reference to 10 full
//! strength), e.g. "between level 4 and 5". It is informative only: its
//! games are recorded with the grades (tests `L5-1`, `L5-2`...: level,
//! game) but score no points and count in no total.
//!
//! The levels are searched by bisection: each level tried (a probe) is a
//! few games, the submission opening the odd ones, and is beaten when the
//! submission wins more than half of them. The search is a pure function
//! of the games played so far ([`step`]), so a resumed grading plays only
//! the games it lacks and `referee merge` can check a placement is whole.
//! The placement assumes the ladder is ordered, as it was built to be.

pub(crate) mod config;
mod play;

pub(crate) use play::place;

use super::exam::TestResult;
use super::plan::GradePlan;
use std::fmt;

/// The highest level of the ladder.
fn top() -> u32 {
    agent::Level::MAX.number()
}

/// Where a submission stands: the highest level it beat (0: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Placement(pub u32);

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("below level 1"),
            n if n >= top() => write!(f, "level {n} or above"),
            n => write!(f, "between level {n} and {}", n + 1),
        }
    }
}

/// The test name of game `k` (from 1) against `level`.
pub(crate) fn test_name(level: u32, k: usize) -> String {
    format!("L{level}-{k}")
}

/// Whether `test` is a ladder game (the graded tests are `build`, `s..`
/// and `g..`).
pub(crate) fn is_ladder(test: &str) -> bool {
    test.starts_with('L')
}

/// What the placement needs next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Game `k` (from 1) against this level.
    Play(u32, usize),
    /// Nothing: the submission is placed.
    Placed(Placement),
}

/// The next step of the bisection over the levels, given the ladder
/// games played so far (`done`, any order).
pub(crate) fn step(games: usize, done: &[&TestResult]) -> Step {
    // The submission beat `lo` (0: none yet) and did not beat `hi`
    // (one past the top: not yet known).
    let (mut lo, mut hi) = (0, top() + 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        match beat(games, mid, done) {
            Ok(true) => lo = mid,
            Ok(false) => hi = mid,
            Err(k) => return Step::Play(mid, k),
        }
    }
    Step::Placed(Placement(lo))
}

/// Whether the submission beat `level`, once the games played decide it
/// (the rest are not played); else the next game to play.
fn beat(games: usize, level: u32, done: &[&TestResult]) -> Result<bool, usize> {
    let (mut wins, mut left, mut next) = (0, games, None);
    for k in 1..=games {
        match done.iter().find(|r| r.test == test_name(level, k)) {
            Some(r) => {
                wins += usize::from(r.won == Some(true));
                left -= 1;
            }
            None => next = next.or(Some(k)),
        }
    }
    if 2 * wins > games {
        Ok(true)
    } else if 2 * (wins + left) <= games {
        Ok(false)
    } else {
        Err(next.unwrap_or(games))
    }
}

/// The placement of a student from their results, if the plan places and
/// it is whole.
pub(crate) fn placement(plan: &GradePlan, results: &[&TestResult]) -> Option<Placement> {
    let l = plan.ladder.as_ref()?;
    let done: Vec<&TestResult> = results.iter().copied().filter(|r| is_ladder(&r.test)).collect();
    match step(l.games, &done) {
        Step::Placed(p) => Some(p),
        Step::Play(..) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::config::Ladder;
    use super::*;
    use crate::grade::plan::{contest, Overrides};

    /// A ladder game's result: `won` against `level`, game `k`.
    fn game(level: u32, k: usize, won: bool) -> TestResult {
        TestResult {
            student: "ann".into(),
            test: test_name(level, k),
            points: 0,
            max: 0,
            verdict: if won { "won" } else { "lost" }.into(),
            reason: String::new(),
            cpu: 0.0,
            time: 1.0,
            moved: None,
            opened: Some(k % 2 == 1),
            record: None,
            won: Some(won),
            fingerprint: None,
        }
    }

    /// Plays the bisection against a submission of strength `s` (it beats
    /// the levels up to `s`), returning the levels tried and the placement.
    fn run(games: usize, s: u32) -> (Vec<u32>, Placement) {
        let mut done = Vec::new();
        let mut tried = Vec::new();
        loop {
            let refs: Vec<&TestResult> = done.iter().collect();
            match step(games, &refs) {
                Step::Play(level, k) => {
                    if tried.last() != Some(&level) {
                        tried.push(level);
                    }
                    done.push(game(level, k, level <= s));
                }
                Step::Placed(p) => return (tried, p),
            }
        }
    }

    #[test]
    fn the_bisection_finds_every_strength_in_four_levels_at_most() {
        for s in 0..=10 {
            let (tried, p) = run(2, s);
            assert_eq!(p, Placement(s), "strength {s}, tried {tried:?}");
            assert!(tried.len() <= 4, "{tried:?}");
            assert_eq!(tried[0], 5);
        }
        assert_eq!(Placement(0).to_string(), "below level 1");
        assert_eq!(Placement(4).to_string(), "between level 4 and 5");
        assert_eq!(Placement(10).to_string(), "level 10 or above");
    }

    #[test]
    fn a_level_is_beaten_by_more_than_half_and_decided_games_are_not_played() {
        let lost = game(5, 1, false);
        // Two games a level: one lost decides, the other is not played.
        assert_eq!(step(2, &[&lost]), Step::Play(2, 1));
        // Three: a loss then a win leaves the third to play.
        let won2 = game(5, 2, true);
        assert_eq!(step(3, &[&lost, &won2]), Step::Play(5, 3));
        let won3 = game(5, 3, true);
        assert_eq!(step(3, &[&won3, &lost, &won2]), Step::Play(8, 1));
        // A level split one all is not beaten.
        assert_eq!(step(2, &[&game(5, 1, true), &game(5, 2, false)]), Step::Play(2, 1));
    }

    #[test]
    fn the_ladder_is_off_by_default_and_switched_by_the_overrides() {
        let p = contest("halma");
        assert_eq!(p.ladder, None);
        assert!(
            !p.to_toml().contains("ladder"),
            "a plan without it is written as before"
        );
        let on = |l| Overrides {
            ladder: Some(l),
            time: Some(1.0),
            ..Overrides::default()
        };
        let q = p.clone().with(&on(true)).unwrap();
        let l = q.ladder.clone().unwrap();
        assert_eq!((l.games, l.clock), (2, 1.0), "--time sets the ladder's clock too");
        assert_eq!(q.ladder_program(), "{agent}");
        let back: GradePlan = toml::from_str(&q.to_toml()).unwrap();
        assert_eq!(back, q);
        assert_eq!(q.with(&on(false)).unwrap().ladder, None);
        let text = p.to_toml() + "\n[ladder]\ngames = 3\nagent = \"my-agent\"\n";
        let r: GradePlan = toml::from_str(&text).unwrap();
        assert_eq!(r.ladder.as_ref().map(|l| (l.games, l.clock)), Some((3, 10.0)));
        assert_eq!(r.ladder_program(), "my-agent");
    }

    #[test]
    fn a_ladder_is_refused_for_a_game_without_levels() {
        let on = Overrides {
            ladder: Some(true),
            ..Overrides::default()
        };
        let e = contest("hinger").with(&on).unwrap_err();
        assert!(
            e.contains("only halma has") && e.contains("hinger has no levels"),
            "{e}"
        );
        let mut p = contest("halma");
        p.ladder = Some(Ladder {
            games: 0,
            ..Ladder::default()
        });
        assert!(p.check().unwrap_err().contains("ladder.games"));
    }
}
