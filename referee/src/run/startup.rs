//! The pre-flight's clock check: what an agent spends on every move outside
//! its search (an interpreter's or a JVM's start-up, reading `input.txt`),
//! times the moves of a typical game, against its clock. A Python agent
//! pays about 20-30 ms a move before its first line runs; over a Halma game
//! that is seconds, and at a short clock it loses on time however fast its
//! search is.

/// CPU seconds on the clock of the pre-flight's start-up move: the SPEC's
/// own example of a tiny budget late in a game, at which an agent that
/// watches its clock answers at once, so what it spends is what any move
/// costs it before it searches.
pub(crate) const TINY_CLOCK: f64 = 0.01;

/// Moves a side makes in a typical game from the game's default start.
/// Halma's from the issue that asked for this check (a template-vs-agent
/// game of 218 plies) and `docs/results.md` (a 4 s self-play game of 113
/// moves a side). The others: the longest of four games of `referee match
/// --game G --games 4 --time 2 agent "agent --strategy minimax --depth 2"`
/// on the default board, in plies halved and rounded up (Hinger 10-17
/// plies, Connect Square 42: the full 6x7 board, Fifteen 22: every card
/// of the 6x6 hands, Hashi 12-14; measured November 2026).
const TYPICAL_MOVES: &[(&str, f64)] = &[
    ("halma", 110.0),
    ("hinger", 9.0),
    ("connectsquare", 21.0),
    ("fifteen", 11.0),
    ("hashi", 7.0),
];

/// Moves a side of a typical game of `game`; for a game the table does not
/// know (the test game), `estimate`, the game's own estimate of the moves
/// left from its start.
pub(crate) fn typical_moves(game: &str, estimate: f64) -> f64 {
    TYPICAL_MOVES
        .iter()
        .find(|(g, _)| *g == game)
        .map_or(estimate, |&(_, n)| n)
        .max(1.0)
}

/// The warning for agent `name` whose move costs `cost` CPU seconds before
/// it searches, when that over `moves` moves exceeds a third of its `clock`:
/// the figure, and the clock at which it would be a third.
pub(crate) fn warning(name: &str, game: &str, cost: f64, moves: f64, clock: f64) -> Option<String> {
    let spent = cost * moves;
    if spent <= clock / 3.0 {
        return None;
    }
    let enough = (spent * 3.0).ceil();
    Some(format!(
        "referee: warning: agent {name} used {cost:.3} s of CPU on a move with {TINY_CLOCK} s left \
         (what each of its moves costs before any search: starting its interpreter or runtime, \
         reading input.txt); over a typical {game} game of {moves:.0} moves a side that is {spent:.1} s, \
         more than a third of its {clock} s clock, and it may lose games on time. \
         Give it more time: time={enough} on its --agent (e.g. --agent \"name={name},cmd=...,time={enough}\"), \
         or --time {enough} for every agent."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warns_only_when_the_start_up_over_a_game_exceeds_a_third_of_the_clock() {
        // A Python interpreter's 30 ms over 110 Halma moves: 3.3 s.
        let w = warning("my_agent", "halma", 0.03, typical_moves("halma", 50.0), 5.0).unwrap();
        assert!(w.contains("agent my_agent used 0.030 s"), "{w}");
        assert!(w.contains("110 moves a side that is 3.3 s"), "{w}");
        assert!(w.contains("time=10 on its --agent"), "{w}");
        assert!(warning("my_agent", "halma", 0.03, 110.0, 10.0).is_none());
        assert!(warning("ours", "halma", 0.002, 110.0, 1.0).is_none());
    }

    #[test]
    fn an_unknown_game_uses_its_own_estimate() {
        assert_eq!(typical_moves("testnim", 7.0), 7.0);
        assert_eq!(typical_moves("testnim", 0.0), 1.0);
        assert_eq!(typical_moves("fifteen", 99.0), 11.0);
    }
}
