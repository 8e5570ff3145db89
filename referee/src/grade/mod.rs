//! `referee grade`: scores a whole class exactly as the contest does. Each
//! folder of SUBMISSIONS is a student; each is built once under the
//! sandbox ([`submission`]), then takes the plan's tests ([`plan`]): single
//! moves on seeded positions ([`positions`]) and timed games against the
//! reference agent ([`exam`]), and, if the plan asks, a placement on the
//! strength ladder that counts in no grade ([`ladder`]). Every finished
//! test is appended to `OUT/records/results.jsonl` at once, so a killed
//! grading loses none and `--resume` runs none twice; the sheets are
//! written from that file at the end ([`sheet`]). `--shard K/N` grades a part of the class into a
//! directory of its own ([`manifest`] says which), and `referee merge`
//! puts the parts together ([`merge`]).

pub(crate) mod copies;
pub(crate) mod exam;
pub(crate) mod gradescope;
pub(crate) mod intake;
pub(crate) mod ladder;
pub(crate) mod languages;
mod manifest;
pub(crate) mod merge;
mod pages;
pub(crate) mod plan;
pub(crate) mod positions;
mod queue;
mod results;
mod rows;
mod runfile;
pub(crate) mod sheet;
pub(crate) mod submission;

use crate::cli::GradeArgs;
use crate::game::{Contestant, GameError, Rules, SeatKind};
use crate::process::command::AgentCommand;
use crate::schedule::shard::Shard;
use crate::signals;
use agent::{FileGame, GenOptions};
use exam::TestResult;
use plan::{GradePlan, Overrides};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use results::Results;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Everything every student's grading shares.
struct Class<'a, G> {
    plan: &'a GradePlan,
    out: &'a Path,
    rules: Rules,
    singles: Vec<G>,
    games: Vec<(G, f64, bool)>,
    opponent: Contestant,
    homes: Vec<PathBuf>,
    results: &'a Results,
    /// What a `run` file may name.
    paths: runfile::RunPaths,
}

/// `referee grade`.
pub(crate) fn run(a: &GradeArgs) -> Result<i32, String> {
    let a = &checked(a)?;
    let plan = GradePlan::load(&a.plan, &a.game.to_ascii_lowercase())?.with(&overrides(a))?;
    let shard = a.shard.as_deref().map(Shard::parse).transpose()?;
    let (class, mine) = class_of(a, shard)?;
    // No agent sees the folders handed in, whatever its command names.
    let hidden = a.submissions.clone();
    let a = &GradeArgs {
        // One folder graded alone: its parent holds it as a class of one.
        submissions: match &a.gradescope {
            Some(_) => a.submissions.parent().unwrap_or(Path::new("/")).to_path_buf(),
            None => a.submissions.clone(),
        },
        ..a.clone()
    };
    let students: Vec<String> = mine.iter().map(|s| s.id.clone()).collect();
    let _lock = crate::run::outdir::lock(&a.out)?;
    manifest::check_resume(&a.out, shard)?;
    let results = Results::open(&a.out, &plan, a.resume || a.only.is_some())?;
    if let Some(o) = &a.only {
        results.forget(o)?;
    }
    signals::install();
    let mut opts = a.sandbox.clone();
    opts.read_only.extend(plan.languages.read_only.iter().cloned());
    let sandbox = crate::process::sandbox::install_hiding(&opts, &a.out, std::slice::from_ref(&hidden))?;
    let started = |tests: &rows::Tests| {
        let g = manifest::Grading {
            plan: plan.clone(),
            tests: tests.clone(),
            students: class.clone(),
            shard,
        };
        manifest::write(&a.out, &g)
    };
    let tests = crate::for_game!(&plan.game, |G| grade_class::<G>(
        a,
        &plan,
        &mine,
        sandbox.clone(),
        &results,
        &started
    ))?;
    // Each student's tests' directories went with them; the room for them too.
    let _ = std::fs::remove_dir(a.out.join("work"));
    let sheet = sheet::write(
        &a.out,
        &plan,
        &tests,
        &students,
        &results.all()?,
        &results.game_records()?,
    )?;
    eprintln!("referee: grades: {}", sheet.display());
    if let Some(file) = &a.gradescope {
        let boards: Vec<String> = pages::views(&plan.game, &tests.singles)
            .iter()
            .map(|v| {
                v.as_ref()
                    .map_or_else(String::new, |v| crate::output::board_text::board(v, &[]))
            })
            .collect();
        gradescope::write(file, &plan, &tests, &boards, &students[0], &results.of(&students[0])?)?;
        eprintln!("referee: Gradescope results: {}", file.display());
    }
    Ok(if signals::STOP.load(std::sync::atomic::Ordering::Relaxed) {
        130
    } else {
        0
    })
}

/// The arguments with absolute paths (agents run in directories of their
/// own, and their homes are mounted by path), checked.
fn checked(a: &GradeArgs) -> Result<GradeArgs, String> {
    let absolute = |p: &Path| std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()));
    let a = GradeArgs {
        out: absolute(&a.out)?,
        submissions: absolute(&a.submissions)?,
        ..a.clone()
    };
    if !(1..=256).contains(&a.concurrency) {
        return Err(format!(
            "--concurrency must be between 1 and 256, found {}",
            a.concurrency
        ));
    }
    if a.out.starts_with(&a.submissions) || a.submissions.starts_with(&a.out) {
        return Err(format!(
            "--out {} and the submissions {} must not hold one another: give an --out outside the class folder",
            a.out.display(),
            a.submissions.display()
        ));
    }
    Ok(a)
}

/// The whole class's ids, and the students this run grades: the
/// submissions' folders (this shard's), or with
/// `--gradescope` the one folder given.
fn class_of(a: &GradeArgs, shard: Option<Shard>) -> Result<(Vec<String>, Vec<intake::Student>), String> {
    if a.gradescope.is_some() {
        let name = a
            .submissions
            .file_name()
            .ok_or_else(|| format!("{}: give the submission's folder", a.submissions.display()))?;
        let me = intake::Student {
            id: intake::id_of(name),
            folder: name.to_os_string(),
        };
        return Ok((vec![me.id.clone()], vec![me]));
    }
    let (folders, notes) = intake::class(&a.submissions)?;
    for n in &notes {
        eprintln!("referee: grade: {n}");
    }
    let class: Vec<String> = folders.iter().map(|s| s.id.clone()).collect();
    let mine: Vec<intake::Student> = folders
        .into_iter()
        .enumerate()
        .filter(|(i, _)| manifest::in_shard(shard, *i))
        .map(|(_, s)| s)
        .collect();
    if let Some(o) = &a.only {
        if !class.iter().any(|s| s == o) {
            return Err(format!("--only {o}: {} has no folder {o}", a.submissions.display()));
        }
        if !mine.iter().any(|s| s.id == *o) {
            return Err(format!(
                "--only {o}: {o} is not a student of this shard (--shard {})",
                a.shard.as_deref().unwrap_or("")
            ));
        }
    }
    Ok((class, mine))
}

/// The plan's changes on the command line.
fn overrides(a: &GradeArgs) -> Overrides {
    Overrides {
        singles: a.singles,
        games: a.games,
        time: a.time,
        seed: a.seed,
        ladder: match (a.ladder, a.no_ladder) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        },
    }
}

/// Builds the tests once, then grades the students `concurrency` tests at
/// a time ([`queue`]).
fn grade_class<G: FileGame>(
    a: &GradeArgs,
    plan: &GradePlan,
    students: &[intake::Student],
    sandbox: Arc<crate::process::sandbox::Sandbox>,
    results: &Results,
    started: &dyn Fn(&rows::Tests) -> Result<(), String>,
) -> Result<rows::Tests, String> {
    // The class, the records and every build: named by no command.
    let builds = submission::home_of(&a.out, "-");
    let refused = [
        a.submissions.clone(),
        a.out.clone(),
        builds.parent().unwrap_or(&a.out).to_path_buf(),
    ];
    let paths = runfile::RunPaths::new(&sandbox.read_only, refused.to_vec());
    let class = Class::<G> {
        plan,
        out: &a.out,
        rules: Rules {
            grace: 1.0,
            sandbox,
            ..Rules::default()
        },
        singles: singles(plan)?,
        games: games(plan)?,
        opponent: Contestant {
            name: "reference".into(),
            kind: SeatKind::Agent(AgentCommand::new(plan::opponent_command(&plan.games.opponent))),
            calibration: None,
            calibrate: None,
            home: None,
        },
        homes: students.iter().map(|s| submission::home_of(&a.out, &s.id)).collect(),
        results,
        paths,
    };
    let tests = rows::Tests {
        singles: class
            .singles
            .iter()
            .map(|p| positions::single_input(p, plan.singles.budget))
            .collect(),
        games: class.games.iter().map(|(_, c, o)| (*c, *o)).collect(),
    };
    started(&tests)?;
    let todo: Vec<&intake::Student> = students
        .iter()
        .filter(|s| a.only.as_ref().is_none_or(|o| *o == s.id))
        .collect();
    queue::grade(&class, a, &todo)?;
    Ok(tests)
}

/// The single-move positions of the plan.
fn singles<G: FileGame>(plan: &GradePlan) -> Result<Vec<G>, String> {
    match &plan.singles.positions {
        Some(dir) => positions::read_dir(dir, plan.singles.count),
        None => positions::generate(&GenOptions::default(), plan.singles.count, plan.seed),
    }
}

/// The game tests: the start, the clock drawn from the plan's range, and
/// whether the submission opens (the first `opened` games).
fn games<G: FileGame>(plan: &GradePlan) -> Result<Vec<(G, f64, bool)>, String> {
    let start = G::generate(&GenOptions::default())?;
    let mut rng = SmallRng::seed_from_u64(plan.seed ^ 0x9a3e);
    let [lo, hi] = plan.games.clock;
    Ok((0..plan.games.count)
        .map(|i| {
            let clock = if hi > lo { rng.gen_range(lo..=hi) } else { lo };
            // Whole tenths: a clock a person can read and type again.
            ((start.clone()), (clock * 10.0).round() / 10.0, i < plan.games.opened)
        })
        .collect())
}

/// The words for a game that could not finish.
pub(crate) fn interrupted(e: GameError) -> String {
    match e {
        GameError::Interrupted => "interrupted: continue with --resume (same arguments)".into(),
        GameError::Io(m) => m,
    }
}

/// The name of the note on what a submission's intake left out.
const INTAKE: &str = "intake";

/// The note on `student`'s intake: what it left out (links out of the
/// folder) and the fingerprint copies are found by; no points.
fn intake_note(student: &str, s: &intake::Snapshot) -> TestResult {
    TestResult {
        test: INTAKE.into(),
        verdict: if s.left_out.is_empty() {
            "taken in"
        } else {
            "files left out"
        }
        .into(),
        reason: s.left_out.join("; "),
        fingerprint: s.fingerprint(),
        ..build_failure(student, "")
    }
}

/// The result that stands for a submission that does not build.
fn build_failure(student: &str, why: &str) -> TestResult {
    TestResult {
        student: student.to_string(),
        test: "build".into(),
        points: 0,
        max: 0,
        verdict: "no build".into(),
        reason: why.to_string(),
        cpu: 0.0,
        time: 0.0,
        moved: None,
        opened: None,
        record: None,
        won: None,
        fingerprint: None,
    }
}
