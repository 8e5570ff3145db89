//! The referee: timed games, matches and tournaments between agent programs
//! that speak the `input.txt`/`output.txt` protocol, judged with the agent
//! library's rules for each game. Grouped by concern, each folder importing
//! only those listed after it:
//!
//! - [`app`]: the command line parsed and each subcommand dispatched.
//! - [`grade`]: `referee grade`, a whole class scored as the contest does.
//! - [`run`]: orchestration of `match`, `tournament`, `play`, `replay`
//!   and `merge`: manifest and resume, pre-flight, live output.
//! - [`cli`]: the subcommands' arguments, agent specifications, and their
//!   validation into the checked plan.
//! - [`schedule`]: which games a run plays (a round robin, or a Swiss's
//!   rounds paired from the results so far), from which starts, several at
//!   a time; sharding.
//! - [`report`]: what a run reports: terminal tables, results files, the
//!   self-contained HTML report.
//! - [`stats`]: ratings (fitted to every game of a tournament), the SPRT,
//!   standings.
//! - [`game`]: one game, generic over [`agent::FileGame`]: the
//!   agents and seats, the loop, the judging of a move, the human seat.
//! - [`signals`]: the referee's own stop and exit flags.
//! - [`output`]: game records and the terminal board.
//! - [`process`]: one move as a confined, CPU-charged child process.
//!
//! `scripts/import-graph.sh` checks that no files and no folders import
//! each other in a loop.
//!
//! An application, not a library: its items are crate-private unless the
//! binary, the integration tests or the fuzz targets need them, and its
//! developer docs (`cargo doc --document-private-items`) link freely to
//! crate-private items.
#![allow(rustdoc::private_intra_doc_links)]

pub mod app;
pub mod cli;
pub mod fuzzing;
pub mod game;
pub(crate) mod grade;
pub mod output;
pub mod process;
pub mod report;
pub mod run;
pub mod schedule;
pub(crate) mod signals;
pub mod stats;

/// Runs `$body` with `$G` bound to the game type named `$name` (a `&str`):
/// a game registered in the agent library's `with_game!` (and, in the
/// tests, the test game `testnim`). Evaluates to `Result<_, String>`;
/// `$body` must too.
#[macro_export]
macro_rules! for_game {
    ($name:expr, |$G:ident| $body:expr) => {{
        let name: &str = $name;
        agent::with_named_game!(name, |$G| $body, Err($crate::unknown_game(name)))
    }};
}

/// Every `--game` name the referee accepts: the registry's games (then the
/// test fixture, in test builds).
pub(crate) fn game_names() -> impl Iterator<Item = &'static str> {
    agent::GameKind::ALL
        .iter()
        .map(|k| k.name())
        .chain(agent::FIXTURES.iter().copied())
}

/// The message for a `--game` that names no game: the closest name when one
/// is close, and the list of games.
pub(crate) fn unknown_game(name: &str) -> String {
    use agent::GameKind;
    let names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
    let lower = name.to_ascii_lowercase();
    let closest = game_names()
        .map(|n| (strsim::jaro_winkler(&lower, n), n))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let hint = closest.map(|(_, n)| format!("did you mean {n}? ")).unwrap_or_default();
    let fixtures = match agent::FIXTURES {
        [] => String::new(),
        f => format!(" (and {}, for tests)", f.join(", ")),
    };
    format!(
        "unknown game {name:?}: {hint}the games are {}{fixtures}",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_mistyped_game_gets_the_closest_name() {
        let m = super::unknown_game("fiften");
        assert!(m.contains("did you mean fifteen?"), "{m}");
        assert!(m.contains("halma, hinger, connectsquare, fifteen, hashi"), "{m}");
        assert!(super::unknown_game("Conect-Square").contains("did you mean connectsquare?"));
        assert!(!super::unknown_game("chess").contains("did you mean"));
    }
}
