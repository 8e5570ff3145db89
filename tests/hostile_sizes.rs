//! Process-level regression tests for hostile sizes: board
//! dimensions whose products overflow, piles beyond the supported maximum,
//! and huge Hinger piles that once overflowed the exact solver's stack. Each
//! case runs the real `agent` binary under a wall-clock timeout and checks
//! the exit code, the message, that nothing panicked, and which files are
//! left in the directory.

mod common;

use agent::Hinger;
use agent::Notation;
use std::time::Duration;

/// Generous: a loaded 2-core machine can stretch wall time many times over
/// the CPU time; a hang (the old Hinger size wrap spun forever) still shows.
const WALL_LIMIT: Duration = Duration::from_secs(120);

/// What one run of the agent did.
struct Run {
    /// Exit code, or None when killed by a signal.
    code: Option<i32>,
    stderr: String,
    /// CPU seconds (user + system) of the child.
    cpu: f64,
    /// Files in the directory afterwards, besides input.txt and the captured stderr.
    files: Vec<String>,
}

/// Runs the agent with no arguments on `input` in a fresh directory,
/// failing the test (the agent killed) if it outlives [`WALL_LIMIT`].
fn run(name: &str, input: &str) -> (Run, common::scratch_dir::Scratch) {
    let dir = common::scratch(&format!("sizes-{name}"));
    std::fs::write(dir.join("input.txt"), input).unwrap();
    let r = common::run(&dir, &[], WALL_LIMIT);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f != "input.txt" && f != "stderr.log")
        .collect();
    files.sort();
    let run = Run {
        code: (r.code >= 0).then_some(r.code),
        stderr: r.stderr,
        cpu: r.cpu,
        files,
    };
    (run, dir)
}

/// The input is refused: exit 2, a message naming `line` and containing
/// `needle`, no panic, and no file written.
fn assert_refused(name: &str, input: &str, line: usize, needle: &str) {
    let (r, _dir) = run(name, input);
    assert_eq!(r.code, Some(2), "{name}: {}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{name}: {}", r.stderr);
    assert!(r.stderr.contains(&format!("line {line}: ")), "{name}: {}", r.stderr);
    assert!(r.stderr.contains(needle), "{name}: {} should say {needle:?}", r.stderr);
    assert!(r.files.is_empty(), "{name}: left {:?}", r.files);
}

/// The agent plays: exit 0, a legal move in output.txt, CPU within the
/// remaining time, no stray file left behind.
fn assert_plays(name: &str, input: &str, remaining: f64) {
    let (r, dir) = run(name, input);
    assert_eq!(r.code, Some(0), "{name}: {}", r.stderr);
    // GAME mode may keep playdata.txt for its next move; no temporary file stays.
    assert!(r.files.contains(&"output.txt".to_string()), "{name}: {:?}", r.files);
    assert!(
        r.files.iter().all(|f| f == "output.txt" || f == "playdata.txt"),
        "{name}: left {:?}",
        r.files
    );
    let out = std::fs::read_to_string(dir.join("output.txt")).unwrap();
    let state = Hinger::parse_input(input).unwrap().state;
    assert!(state.parse_move(&out).is_ok(), "{name}: illegal move {out:?}");
    assert!(r.cpu < remaining, "{name}: used {:.3} s of {remaining} s", r.cpu);
    // The Done-when figures: `-- --nocapture` shows them.
    eprintln!("{name}: legal move in {:.3} s CPU of {remaining} s", r.cpu);
}

fn hinger(mode: &str, seconds: f64, rows: usize, cols: usize, pile: impl Fn(usize, usize) -> u64) -> String {
    let mut s = format!("HINGER\n{mode}\n1\n{seconds}\n{rows} {cols}\n");
    for r in 0..rows {
        let row: Vec<String> = (0..cols).map(|c| pile(r, c).to_string()).collect();
        s.push_str(&row.join(" "));
        s.push('\n');
    }
    s
}

#[test]
fn hinger_sizes_that_wrap_are_refused_at_once() {
    // rows * (cols + 1) wrapped to 0 and the board loop spun forever.
    assert_refused(
        "hinger-wrap-cols",
        "HINGER\nSINGLE\n1\n1.0\n1 18446744073709551615\n",
        5,
        "too large",
    );
    assert_refused(
        "hinger-wrap-rows",
        "HINGER\nSINGLE\n1\n1.0\n18446744073709551615 1\n",
        5,
        "too large",
    );
    // Too long even for a 64-bit number: still "too large" with the limit,
    // not "expected rows cols".
    assert_refused(
        "hinger-too-many-digits",
        "HINGER\nSINGLE\n1\n1.0\n1 99999999999999999999999\n",
        5,
        "99999999999999999999999 is too large for the board size `rows cols` (two positive integers): \
         rows * (cols + 1) must be at most 128 (10x10 fits)",
    );
}

#[test]
fn hinger_piles_above_the_maximum_are_refused_with_their_cell() {
    assert_refused(
        "hinger-pile-max",
        &hinger(
            "SINGLE",
            1.0,
            2,
            2,
            |r, c| if (r, c) == (1, 0) { 16_777_217 } else { 1 },
        ),
        7,
        "row 1, column 0",
    );
    assert_refused(
        "hinger-pile-u64",
        "HINGER\nSINGLE\n1\n1.0\n1 1\n99999999999999999999999\n",
        6,
        "maximum of 16777216",
    );
}

#[test]
fn connect_square_sizes_that_wrap_are_refused() {
    // columns * (rows + 1) wrapped and the grid allocation panicked.
    for (name, dims) in [
        ("cs-rows", "18446744073709551615 4"),
        ("cs-cols", "4 18446744073709551615"),
        ("cs-half", "9223372036854775807 2"),
        ("cs-digits", "99999999999999999999999 2"),
    ] {
        assert_refused(
            name,
            &format!("CONNECTSQUARE\nSINGLE\nR\n1.0\n{dims}\n....\n"),
            5,
            "too large",
        );
    }
    assert_refused(
        "cs-digits-limit",
        "CONNECTSQUARE\nSINGLE\nR\n1.0\n4 99999999999999999999999\n",
        5,
        "must be at most 128 bitboard bits",
    );
}

#[test]
fn hashi_and_fifteen_sizes_are_refused_with_their_line() {
    assert_refused(
        "hashi-size",
        "HASHI\nSINGLE\n1\n1.0\n0 0\n18446744073709551615\n",
        6,
        "board size",
    );
    assert_refused(
        "hashi-size-digits",
        "HASHI\nSINGLE\n1\n1.0\n0 0\n99999999999999999999999\n",
        6,
        "too large for the board size n (one integer): it must be between 1 and 16",
    );
    assert_refused(
        "hashi-bridges",
        "HASHI\nSINGLE\n1\n1.0\n0 0\n2\n1 1\n. .\n18446744073709551615\n",
        9,
        "bridge lines",
    );
    assert_refused(
        "hashi-bridges-digits",
        "HASHI\nSINGLE\n1\n1.0\n0 0\n2\n1 1\n. .\n99999999999999999999999\n",
        9,
        "too large for the number of bridge lines (one integer): at most 1, the number of pairs",
    );
    assert_refused(
        "hashi-points",
        "HASHI\nSINGLE\n1\n1.0\n2147483647 -2147483648\n2\n1 1\n. .\n",
        5,
        "points",
    );
    assert_refused(
        "fifteen-size",
        "FIFTEEN\nSINGLE\n1\n1.0\n18446744073709551615\n",
        5,
        "4 or 6",
    );
    // A card more than the game deals is named on the board line holding it.
    assert_refused(
        "fifteen-cards",
        "FIFTEEN\nGAME\n1\n30.0\n4\n. . . .\n. 1:13 . .\n1:13 . 2:8 .\n. . . .\n1: 2 3 5 8\n2: 2 3 5 13\n",
        8,
        "more 13s",
    );
}

#[test]
fn hinger_with_a_million_counters_in_the_centre_answers_legally() {
    // 20,000 counters already overflowed the solver's stack (one recursion
    // level per counter); a million is the Done-when case.
    for (name, centre) in [("hinger-20k", 20_000u64), ("hinger-1m", 1_000_000)] {
        for (mode, secs) in [("SINGLE", 1.0), ("GAME", 5.0)] {
            let input = hinger(mode, secs, 3, 3, |r, c| if (r, c) == (1, 1) { centre } else { 0 });
            assert_plays(&format!("{name}-{mode}"), &input, secs);
        }
    }
    // At the supported maximum, with neighbours, so there is a choice.
    let input = hinger("SINGLE", 1.0, 3, 3, |r, c| {
        if (r, c) == (1, 1) {
            16_777_216
        } else {
            (r + c) as u64 % 2
        }
    });
    assert_plays("hinger-max-pile", &input, 1.0);
}

#[test]
fn hinger_ten_by_ten_with_every_pile_at_a_thousand_answers_legally() {
    for (mode, secs) in [("SINGLE", 2.0), ("GAME", 10.0), ("SINGLE", 0.05)] {
        let input = hinger(mode, secs, 10, 10, |_, _| 1000);
        assert_plays(&format!("hinger-10x10-{mode}-{secs}"), &input, secs);
    }
}
