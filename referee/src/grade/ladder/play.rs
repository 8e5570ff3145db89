//! Playing a submission's ladder games: each one through the graded
//! games' own loop, sandbox, move cap and records ([`exam::game`]), then
//! kept with no points.

use super::{is_ladder, step, test_name, Placement, Step};
use crate::game::{Contestant, GameError, SeatKind};
use crate::grade::exam::{self, Bench, GameTest, TestResult};
use crate::grade::plan::{opponent_command, DrawRule, GradePlan};
use crate::grade::results::Results;
use crate::process::command::AgentCommand;
use agent::{FileGame, GenOptions};

/// Places the bench's student on the ladder, if the plan places: plays the
/// ladder games `taken` (their results so far) lacks, each recorded as it
/// ends, and returns the placement.
pub(crate) fn place<G: FileGame>(
    b: &Bench<'_>,
    plan: &GradePlan,
    results: &Results,
    taken: &[TestResult],
) -> Result<Option<Placement>, String> {
    let Some(l) = &plan.ladder else {
        return Ok(None);
    };
    // A drawn ladder game (the move cap) is no win, whatever the plan
    // gives it: a placement says how well a submission plays, not how
    // little CPU it spends.
    let mut plan = plan.clone();
    plan.games.draw = DrawRule::Nobody;
    let plan = &plan;
    let start = G::generate(&GenOptions::default())?;
    let program = opponent_command(&plan.ladder_program());
    let mut done: Vec<TestResult> = taken.iter().filter(|r| is_ladder(&r.test)).cloned().collect();
    loop {
        let refs: Vec<&TestResult> = done.iter().collect();
        let (level, k) = match step(l.games, &refs) {
            Step::Placed(p) => return Ok(Some(p)),
            Step::Play(level, k) => (level, k),
        };
        // The same seeds for every student: each faces the same levels.
        let opponent = level_agent(&program, level, plan.seed.wrapping_add(k as u64));
        let t = GameTest {
            test: test_name(level, k),
            start: start.clone(),
            clock: l.clock,
            opens: k % 2 == 1,
            opponent: &opponent,
        };
        let test = t.test.clone();
        // Informative only: nothing scored, nothing to be had. A game the
        // submission could not play is a lost one.
        let r = match exam::game(b, plan, t) {
            Ok((r, rec)) => {
                let r = TestResult { points: 0, max: 0, ..r };
                results.add_game(&r, &rec)?;
                r
            }
            Err(GameError::Io(why)) => {
                let r = exam::not_taken(&b.student.name, &test, (0, l.clock), true, &why);
                results.add(&r)?;
                r
            }
            Err(e) => return Err(crate::grade::interrupted(e)),
        };
        done.push(r);
    }
}

/// `program --level N --seed S`, seated as the reference agent is.
fn level_agent(program: &str, level: u32, seed: u64) -> Contestant {
    Contestant {
        name: format!("level {level}"),
        kind: SeatKind::Agent(AgentCommand::new(format!("{program} --level {level} --seed {seed}"))),
        calibration: None,
        calibrate: None,
        home: None,
    }
}
