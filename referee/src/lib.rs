//! The referee: timed games, matches and tournaments between agent programs
//! that speak the `input.txt`/`output.txt` protocol (SPEC §1), judged with
//! the agent library's rules for each game.
//!
//! - [`runner`]: one move as a child process: CPU charging (child and all
//!   descendants), kills at the CPU and wall limits.
//! - [`sandbox`]: confinement of agents (cgroup, namespaces, limits) and
//!   `referee doctor`.
//! - [`agent_files`]: reading and writing files in agent directories as if
//!   the agent were hostile.
//! - [`game_loop`]: one game, generic over [`agent::protocol::FileGame`].
//! - [`roundrobin`]: the lazy schedule (round robin or gauntlet);
//!   [`schedule`]: many games at once, seats, records.
//! - [`starts`]: start positions (`--start`, an opening suite or generated),
//!   checked before the first game.
//! - [`args`]: the subcommands' arguments and their validation.
//! - [`orchestrate`]: `match` and `tournament` (one round-robin path:
//!   manifest, `--resume`, progress, SPRT stop, results).
//! - [`live`]: a run while it plays (log, SPRT, results after each game).
//! - [`play`]: `play` (a seat may be a person) and `replay`.
//! - [`rating`], [`sprt`], [`summary`], [`tables`]: Elo, error bars, LOS,
//!   the SPRT, standings and their tables.
//! - [`record`]: JSON-lines game records.
//! - [`report`]: the self-contained HTML report; [`board_text`]: the terminal view.
//! - [`human`]: the human seat.
//! - [`agentspec`]: `--agent` entries and agent homes; [`agentinfo`]: the
//!   agents' own per-move reports and stderr tails.
//! - [`openings`]: opening suites for game pairs; [`shard`]: `--shard K/N`;
//!   [`merge`]: shards back into one run; [`preflight`]: one move per agent
//!   before the first game; [`results`]: tables and the JSON results.

pub mod agent_files;
pub mod agentinfo;
pub mod agentspec;
pub mod args;
pub mod board_text;
pub mod fuzzing;
pub mod game_loop;
pub mod human;
pub mod live;
pub mod merge;
pub mod openings;
pub mod orchestrate;
pub mod outdir;
pub mod play;
pub mod preflight;
pub mod progress;
pub mod rating;
pub mod record;
pub mod report;
pub mod results;
pub mod roundrobin;
pub mod runner;
pub mod sandbox;
pub mod schedule;
pub mod shard;
pub mod signals;
pub mod sprt;
pub mod starts;
pub mod summary;
pub mod tables;

/// Runs `$body` with `$G` bound to the game type named `$name` (a `&str`):
/// a game registered in the agent library's `with_game!`, or `testnim` (the
/// test fixture [`agent::games::testnim`]). Evaluates to `Result<_, String>`; `$body` must too.
#[macro_export]
macro_rules! for_game {
    ($name:expr, |$G:ident| $body:expr) => {{
        let name: &str = $name;
        if name.eq_ignore_ascii_case(<agent::games::testnim::TestNim as agent::protocol::FileGame>::NAME) {
            type $G = agent::games::testnim::TestNim;
            $body
        } else {
            match agent::games::GameKind::from_name(name) {
                Some(kind) => agent::with_game!(kind, |$G| $body),
                None => Err($crate::unknown_game(name)),
            }
        }
    }};
}

/// Every `--game` name the referee accepts: the registry's games, then the
/// test fixture.
pub fn game_names() -> impl Iterator<Item = &'static str> {
    use agent::protocol::FileGame;
    let fixture = <agent::games::testnim::TestNim as FileGame>::NAME;
    agent::games::GameKind::ALL.iter().map(|k| k.name()).chain([fixture])
}

/// The message for a `--game` that names no game: the closest name when one
/// is close, and the list of games.
pub fn unknown_game(name: &str) -> String {
    use agent::games::GameKind;
    use agent::protocol::FileGame;
    let fixture = <agent::games::testnim::TestNim as FileGame>::NAME;
    let names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
    let lower = name.to_ascii_lowercase();
    let closest = names
        .iter()
        .chain([&fixture])
        .map(|n| (strsim::jaro_winkler(&lower, n), *n))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let hint = closest.map(|(_, n)| format!("did you mean {n}? ")).unwrap_or_default();
    format!(
        "unknown game {name:?}: {hint}the games are {} (and {fixture}, the test fixture)",
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
