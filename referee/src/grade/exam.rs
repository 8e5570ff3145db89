//! One test of a submission, judged exactly as the contest judges it: a
//! single move (legal, well formed, in `output.txt`, within the CPU budget
//! counting every thread) or a whole timed game against the reference
//! agent, played by the referee's own game loop and judge.

use super::plan::{DrawRule, GradePlan};
use crate::game::judge::{run_agent_move, Judged};
use crate::game::{play_game, with_stderr_tail, Contestant, GameError, GameSetup, Rules};
use crate::output::record::GameRecord;
use crate::output::record::LossReason;
use crate::process::agentinfo::printable;
use crate::process::runner::Homes;
use crate::process::workdir;
use agent::{ByPlayer, FileGame, Mode};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// The outcome of one test, as kept in `results.jsonl` and `grades.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct TestResult {
    /// The student (the submission folder's name).
    pub student: String,
    /// `build`, `s01`... (single moves) or `g01`... (games).
    pub test: String,
    /// Points scored.
    pub points: u32,
    /// Points the test is worth.
    pub max: u32,
    /// In a word or two: `legal`, `won`, or why the points were lost.
    pub verdict: String,
    /// The whole explanation.
    pub reason: String,
    /// CPU seconds the submission used (the move, or all its moves).
    pub cpu: f64,
    /// The single move's budget or the game's clock (CPU seconds).
    pub time: f64,
    /// The move as played (single moves), if it was legal.
    #[serde(default)]
    pub moved: Option<String>,
    /// Whether the submission moved first (games).
    #[serde(default)]
    pub opened: Option<bool>,
    /// The game's record key in `records/games.jsonl` (games).
    #[serde(default)]
    pub record: Option<String>,
    /// Whether the submission won (games; a drawn game as the plan's draw
    /// rule gives it): what a ladder game, which scores no points, is
    /// placed by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub won: Option<bool>,
    /// The submission's files' fingerprint, comments and whitespace aside
    /// (the intake's note): what copies are found by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
}

/// Where a submission's tests run and what they may see.
pub(crate) struct Bench<'a> {
    /// The student's agent.
    pub student: &'a Contestant,
    /// The other students' homes, hidden from this one's moves.
    pub others: &'a [PathBuf],
    /// Working directories of this student's tests.
    pub work: PathBuf,
    /// The rules (sandbox, grace) every test shares.
    pub rules: &'a Rules,
    /// Set when the grading stops.
    pub stop: &'a AtomicBool,
}

/// Single-move test `n` (from 1) on `pos`.
pub(crate) fn single<G: FileGame>(b: &Bench<'_>, plan: &GradePlan, n: usize, pos: &G) -> Result<TestResult, GameError> {
    let dir = b.work.join(format!("s{n:02}"));
    workdir::create(&dir, b.rules.sandbox.limits.disk)
        .map_err(|e| GameError::Io(format!("cannot create {}: {e}", dir.display())))?;
    let homes = Homes {
        own: b.student.home.as_deref(),
        others: b.others,
    };
    let rules = Rules {
        mode: Mode::Single,
        ..b.rules.clone()
    };
    let budget = plan.singles.budget;
    let played = run_agent_move(pos, b.student.kind.command(), homes, &dir, budget, &rules, b.stop);
    workdir::settle(&dir, None);
    let _ = workdir::remove_all(&dir);
    let played = played?;
    let (points, verdict, reason, moved) = match played.judged {
        Judged::Move(_, text) => (plan.singles.points, "legal".to_string(), String::new(), Some(text)),
        Judged::Loss(why, msg) => {
            // A crash says why in its own words: the end of its stderr.
            let msg = if why == LossReason::Crash {
                with_stderr_tail(&msg, &played.stderr_tail)
            } else {
                msg
            };
            let msg = match plan.languages.hint(&msg) {
                Some(h) => format!("{msg} ({h})"),
                None => msg,
            };
            (0, why.label().to_string(), msg, None)
        }
    };
    Ok(TestResult {
        student: b.student.name.clone(),
        test: format!("s{n:02}"),
        points,
        max: plan.singles.points,
        verdict,
        reason,
        cpu: played.cpu,
        time: budget,
        moved,
        opened: None,
        record: None,
        won: None,
        fingerprint: None,
    })
}

/// One game of the plan: test `test` from `start`, `clock` CPU seconds a
/// side, the submission moving first if `opens`.
pub(crate) struct GameTest<'a, G> {
    /// Its name: `g01`... (a graded game) or `L5-1`... (a ladder game).
    pub test: String,
    /// The start position.
    pub start: G,
    /// CPU seconds a side.
    pub clock: f64,
    /// The submission moves first.
    pub opens: bool,
    /// The reference agent (or the ladder's level).
    pub opponent: &'a Contestant,
}

/// Plays a game test and scores it by the plan's rules; its record is
/// returned to be kept.
pub(crate) fn game<G: FileGame>(
    b: &Bench<'_>,
    plan: &GradePlan,
    t: GameTest<'_, G>,
) -> Result<(TestResult, GameRecord), GameError> {
    let first = t.start.to_move();
    let seat = if t.opens { first } else { first.other() };
    let mut seats = ByPlayer::new(t.opponent, t.opponent);
    seats[seat] = b.student;
    let names = G::player_names();
    let base = b.work.join(&t.test);
    let setup = GameSetup {
        key: format!("{}/{}", b.student.name, t.test),
        start: t.start,
        seats,
        time: ByPlayer::new(t.clock, t.clock),
        dirs: ByPlayer::from_fn(|p| base.join(names[p.index()])),
    };
    let rules = Rules {
        mode: Mode::Game,
        max_plies: plan.games.max_plies,
        grace: (t.clock / 10.0).clamp(1.0, 10.0),
        ..b.rules.clone()
    };
    let rec = play_game(setup, &rules, b.stop, None, &mut |_| {});
    let _ = workdir::remove_all(&base);
    let rec = rec?;
    let me = seat.index();
    let cpu = rec.moves.iter().filter(|m| m.seat == me).map(|m| m.cpu).sum();
    let (won, verdict) = score(&rec, me, plan.games.draw);
    let result = TestResult {
        student: b.student.name.clone(),
        test: t.test,
        points: if won { plan.games.points } else { 0 },
        max: plan.games.points,
        verdict: verdict.into(),
        reason: match plan.languages.hint(&rec.reason) {
            Some(h) if !won => format!("{} ({h})", rec.reason),
            _ => rec.reason.clone(),
        },
        cpu,
        time: t.clock,
        moved: None,
        opened: Some(t.opens),
        record: Some(rec.key.clone()),
        won: Some(won),
        fingerprint: None,
    };
    Ok((result, rec))
}

/// Whether the submission in seat `me` won the game, and the verdict: a
/// drawn game goes by `draw` (the contest: to more time left).
pub(crate) fn score(rec: &GameRecord, me: usize, draw: DrawRule) -> (bool, &'static str) {
    match rec.winner {
        Some(w) if w == me => (true, "won"),
        Some(_) if rec.loss.is_some() => (false, "lost by forfeit"),
        Some(_) => (false, "lost"),
        None => match draw {
            DrawRule::TimeLeft if rec.clocks[me] > rec.clocks[1 - me] => (true, "draw, won on time left"),
            DrawRule::TimeLeft if rec.clocks[me] < rec.clocks[1 - me] => (false, "draw, lost on time left"),
            _ => (false, "draw"),
        },
    }
}

/// A test `student`'s submission could not take (its program would not
/// start, its directory could not be made): its 0, with the reason
/// (escaped); `(max, time)` are the test's points and clock. A game's is
/// lost (`won`), which is what a ladder places by.
pub(crate) fn not_taken(student: &str, test: &str, (max, time): (u32, f64), game: bool, why: &str) -> TestResult {
    TestResult {
        student: student.to_string(),
        test: test.to_string(),
        points: 0,
        max,
        verdict: "could not run".into(),
        reason: format!("the test could not be run: {}", printable(why)),
        cpu: 0.0,
        time,
        moved: None,
        opened: None,
        record: None,
        won: game.then_some(false),
        fingerprint: None,
    }
}

/// The working directory of `student`'s tests under `out`.
pub(crate) fn work_of(out: &Path, student: &str) -> PathBuf {
    out.join("work").join(student)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_goes_to_the_side_with_more_time_left() {
        let mut r = GameRecord::for_test("g", ["me", "ref"], None, None);
        r.clocks = [3.0, 1.0];
        assert_eq!(score(&r, 0, DrawRule::TimeLeft), (true, "draw, won on time left"));
        assert_eq!(score(&r, 1, DrawRule::TimeLeft), (false, "draw, lost on time left"));
        assert_eq!(score(&r, 0, DrawRule::Nobody), (false, "draw"));
        r.clocks = [2.0, 2.0];
        assert_eq!(score(&r, 0, DrawRule::TimeLeft), (false, "draw"));
        let w = GameRecord::for_test("g", ["me", "ref"], Some(1), Some(LossReason::IllegalMove));
        assert_eq!(score(&w, 1, DrawRule::TimeLeft), (true, "won"));
        assert_eq!(score(&w, 0, DrawRule::TimeLeft), (false, "lost by forfeit"));
    }
}
