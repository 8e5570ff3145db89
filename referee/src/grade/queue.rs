//! The order a class's work is done in. Every submission is built first,
//! `concurrency` at a time; then the work of all the built submissions
//! forms one queue that the workers share, longest pieces first: every
//! student's ladder placement (a chain of games, each chosen by the one
//! before), then every student's games, then every student's single moves.
//! A worker takes the next piece whoever's it is, so a run never ends with
//! one core busy on a long piece while the other waits: its last work is
//! short single moves. The worker that finishes a student's last piece
//! reports its total above the progress bar, which counts pieces.

use super::exam::{self, Bench, GameTest};
use super::intake::Student;
use super::{build_failure, interrupted, ladder, submission, Class};
use crate::cli::GradeArgs;
use crate::game::Contestant;
use crate::game::GameError;
use crate::process::agentinfo::printable;
use crate::run::progress::{Progress, Unit};
use crate::signals;
use agent::FileGame;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A submission that built, and what its tests share.
struct Built<'a> {
    name: &'a str,
    /// Its place in the run, for the progress line: (k, of n).
    place: (usize, usize),
    me: Contestant,
    others: Vec<PathBuf>,
    /// The tests it had taken before this run (a resumed one).
    taken: Vec<String>,
    /// Its tests not yet finished; the one that ends the last finishes it.
    left: AtomicUsize,
}

/// One piece of the queue, of the built submission at that index.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Task {
    /// Its ladder placement, whole.
    Ladder(usize),
    Game(usize, usize),
    Single(usize, usize),
    /// Nothing left to test (a resumed run): only its placement and line.
    Finish(usize),
}

/// Builds, then grades, the students `todo`, `a.concurrency` at a time.
pub(super) fn grade<G: FileGame>(c: &Class<'_, G>, a: &GradeArgs, todo: &[&Student]) -> Result<(), String> {
    let n = todo.len();
    let slots: Vec<Mutex<Option<Built<'_>>>> = todo.iter().map(|_| Mutex::new(None)).collect();
    pool(a.concurrency, n, |i| {
        let built = build(c, a, todo[i], (i + 1, n))?;
        *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = built;
        Ok(())
    })?;
    let built: Vec<Built<'_>> = slots
        .into_iter()
        .filter_map(|s| s.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect();
    let untaken = |kind, n: usize, b: &Built<'_>| (0..n).filter(|k| !b.taken.contains(&test_name(kind, *k))).collect();
    let todo: Vec<(Vec<usize>, Vec<usize>)> = built
        .iter()
        .map(|b| (untaken('g', c.games.len(), b), untaken('s', c.singles.len(), b)))
        .collect();
    // (A ladder placed in the run resumed takes no game: it is read back.)
    let (tasks, left) = order(&todo, c.plan.ladder.is_some());
    for (b, n) in built.iter().zip(left) {
        b.left.store(n, Ordering::Relaxed);
    }
    let mut progress = Progress::counting(Unit::Tests, tasks.len() as u64, 0);
    let graded = pool(a.concurrency, tasks.len(), |i| {
        let s = match tasks[i] {
            Task::Finish(s) => {
                progress.step(&tasks[i].label(built[s].name));
                return finish(c, &built[s], &progress);
            }
            Task::Ladder(s) => {
                let b = &built[s];
                ladder::place::<G>(&bench(c, b), c.plan, c.results, &c.results.of(b.name)?)?;
                s
            }
            Task::Game(s, k) | Task::Single(s, k) => {
                take(c, &built[s], tasks[i], k)?;
                s
            }
        };
        progress.step(&tasks[i].label(built[s].name));
        if built[s].left.fetch_sub(1, Ordering::AcqRel) == 1 {
            finish(c, &built[s], &progress)?;
        }
        Ok(())
    });
    progress.finish();
    graded
}

impl Task {
    /// `s05 g02`: the student's and the test's names, for the progress bar.
    fn label(self, student: &str) -> String {
        match self {
            Task::Ladder(_) => format!("{student} ladder"),
            Task::Game(_, k) => format!("{student} {}", test_name('g', k)),
            Task::Single(_, k) => format!("{student} {}", test_name('s', k)),
            Task::Finish(_) => student.to_string(),
        }
    }
}

/// The queue for the students whose untaken games and single moves are
/// `todo[s]`: every student's ladder first (when `ladder`), then all the
/// students' games, then all their single moves, each part in the
/// students' order, and a lone `Finish` for a student with nothing left;
/// with the number of pieces each student has.
fn order(todo: &[(Vec<usize>, Vec<usize>)], ladder: bool) -> (Vec<Task>, Vec<usize>) {
    let (mut ladders, mut tests, mut shorts, mut left) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (s, (games, singles)) in todo.iter().enumerate() {
        tests.extend(games.iter().map(|&k| Task::Game(s, k)));
        shorts.extend(singles.iter().map(|&k| Task::Single(s, k)));
        let mut n = games.len() + singles.len();
        if ladder {
            ladders.push(Task::Ladder(s));
            n += 1;
        }
        if n == 0 {
            tests.push(Task::Finish(s));
        }
        left.push(n);
    }
    (ladders.into_iter().chain(tests).chain(shorts).collect(), left)
}

/// Runs `work(0..n)` on `j` threads, each taking the next index; the
/// first error (or a stop) ends the handing out, and is returned. Only the
/// referee's own failures are errors here (its records cannot be
/// written): whatever a submission does is that student's result.
fn pool(j: usize, n: usize, work: impl Fn(usize) -> Result<(), String> + Sync) -> Result<(), String> {
    let next = AtomicUsize::new(0);
    let failed = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..j.min(n) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || signals::STOP.load(Ordering::Relaxed) {
                    return;
                }
                if let Err(e) = work(i) {
                    signals::STOP.store(true, Ordering::Relaxed);
                    *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                }
            });
        }
    });
    failed
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .map_or(Ok(()), Err)
}

/// The name of test `k` (from 0) of a kind: `g01`, `s03`.
fn test_name(kind: char, k: usize) -> String {
    format!("{kind}{:02}", k + 1)
}

/// Builds one student's submission, with the tests it has already taken;
/// `None` for one that does not build (now, or in the run resumed).
fn build<'a, G: FileGame>(
    c: &Class<'_, G>,
    a: &GradeArgs,
    who: &'a Student,
    (i, n): (usize, usize),
) -> Result<Option<Built<'a>>, String> {
    let student = who.id.as_str();
    let done = c.results.taken(student)?;
    if done.iter().any(|t| t == "build") {
        return Ok(None);
    }
    let home = submission::home_of(c.out, student);
    let sb = &c.rules.sandbox;
    let rules = submission::BuildRules {
        cpu: c.plan.build.cpu,
        paths: &c.paths,
        languages: &c.plan.languages,
    };
    match submission::build(who, &a.submissions, &home, sb, &rules, &signals::STOP) {
        Ok((me, snapshot)) => {
            if !done.iter().any(|t| t == super::INTAKE) {
                c.results.add(&super::intake_note(student, &snapshot))?;
            }
            Ok(Some(Built {
                name: student,
                place: (i, n),
                me,
                others: c.homes.iter().filter(|h| **h != home).cloned().collect(),
                taken: done,
                left: AtomicUsize::new(0),
            }))
        }
        Err(why) => {
            let why = printable(&why);
            eprintln!("grade: [{i}/{n}] {student}: 0/{} ({why})", c.plan.max_points());
            c.results.add(&build_failure(student, &why)).map(|()| None)
        }
    }
}

/// Where `b`'s tests run.
fn bench<'b>(c: &'b Class<'_, impl FileGame>, b: &'b Built<'_>) -> Bench<'b> {
    Bench {
        student: &b.me,
        others: &b.others,
        work: exam::work_of(c.out, b.name),
        rules: &c.rules,
        stop: &signals::STOP,
    }
}

/// Runs one test and records it: a test the submission could not take
/// (its program would not start, say) is its 0, with the reason.
fn take<G: FileGame>(c: &Class<'_, G>, b: &Built<'_>, task: Task, k: usize) -> Result<(), String> {
    let bench = bench(c, b);
    if let Task::Single(..) = task {
        let r = match exam::single(&bench, c.plan, k + 1, &c.singles[k]) {
            Err(GameError::Io(why)) => {
                let (points, budget) = (c.plan.singles.points, c.plan.singles.budget);
                exam::not_taken(b.name, &test_name('s', k), (points, budget), false, &why)
            }
            r => r.map_err(interrupted)?,
        };
        return c.results.add(&r);
    }
    let (start, clock, opens) = &c.games[k];
    let t = GameTest {
        test: test_name('g', k),
        start: start.clone(),
        clock: *clock,
        opens: *opens,
        opponent: &c.opponent,
    };
    match exam::game(&bench, c.plan, t) {
        Ok((r, rec)) => c.results.add_game(&r, &rec),
        Err(GameError::Io(why)) => {
            let r = exam::not_taken(b.name, &test_name('g', k), (c.plan.games.points, *clock), true, &why);
            c.results.add(&r)
        }
        Err(e) => Err(interrupted(e)),
    }
}

/// After a student's last test: the student's line, with its ladder
/// placement (played by then: this only reads it from the results).
fn finish<G: FileGame>(c: &Class<'_, G>, b: &Built<'_>, progress: &Progress) -> Result<(), String> {
    let mine = c.results.of(b.name)?;
    let placed = ladder::placement(c.plan, &mine.iter().collect::<Vec<_>>());
    let _ = crate::process::workdir::remove_all(&bench(c, b).work);
    // Its snapshot and build (a tmpfs, where there is one) are done with.
    let _ = crate::process::workdir::remove_all(&submission::home_of(c.out, b.name));
    // Ladder games score no points: the total is the tests' alone.
    let total: u32 = mine.iter().map(|r| r.points).sum();
    let ladder = placed.map_or_else(String::new, |p| format!(" (ladder: {p})"));
    let (i, n) = b.place;
    progress.say(&format!(
        "grade: [{i}/{n}] {}: {total}/{}{ladder}",
        b.name,
        c.plan.max_points()
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladders_go_first_then_every_game_then_every_single() {
        // Three students: one with games 0-1 and single 0 left, one
        // resumed with game 1 and single 2 left, one with nothing left.
        let todo = vec![(vec![0, 1], vec![0]), (vec![1], vec![2]), (vec![], vec![])];
        let (tasks, left) = order(&todo, true);
        use Task::*;
        assert_eq!(
            tasks,
            vec![
                Ladder(0),
                Ladder(1),
                Ladder(2),
                Game(0, 0),
                Game(0, 1),
                Game(1, 1),
                Single(0, 0),
                Single(1, 2)
            ]
        );
        assert_eq!(left, vec![4, 3, 1]);
        // Without a ladder, a student with nothing left is only finished.
        let (tasks, left) = order(&todo, false);
        assert_eq!(
            tasks,
            vec![
                Game(0, 0),
                Game(0, 1),
                Game(1, 1),
                Finish(2),
                Single(0, 0),
                Single(1, 2)
            ]
        );
        assert_eq!(left, vec![3, 2, 0]);
        assert_eq!(Game(1, 1).label("bob"), "bob g02");
    }
}
