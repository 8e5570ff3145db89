//! One-ply greedy play: the move whose resulting position evaluates best for
//! the mover (an immediate win first). Ties go to the earliest generated move.

use super::{Evaluator, Outcome, Searchable, WIN};

/// The greedy choice by the game's own evaluation, or None without legal
/// moves.
pub fn choose<G: Searchable>(pos: &G) -> Option<G::Move> {
    choose_scored(pos).map(|(m, _)| m)
}

/// The greedy choice and its one-ply score from the mover's view, in the
/// searches' units (an immediate win is `WIN - 1`, as a search scores a win
/// one ply away), or None without legal moves.
pub(crate) fn choose_scored<G: Searchable>(pos: &G) -> Option<(G::Move, i32)> {
    choose_kept(pos, |_, _| true)
}

/// [`choose_scored`] among the moves `keep` accepts, given each move and
/// the position it leads to (the driver's fast move keeps those that make
/// progress and return to no position the game has been through); None
/// when it accepts none.
pub(crate) fn choose_kept<G: Searchable>(pos: &G, keep: impl Fn(G::Move, &G) -> bool) -> Option<(G::Move, i32)> {
    let eval = G::Eval::default();
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let mut best: Option<(G::Move, i64)> = None;
    for mv in moves {
        let mut child = pos.clone();
        child.play(mv);
        if !keep(mv, &child) {
            continue;
        }
        // Seen from the side to move after the move, then turned to the
        // mover's view unless the mover moves again (a skipped turn).
        let theirs: i64 = match child.outcome() {
            Some(Outcome::Loss) => -i64::MAX, // the side to move there has lost
            Some(Outcome::Win) => i64::MAX,
            Some(Outcome::Draw) => 0,
            None => eval.evaluate(&child) as i64,
        };
        let v = if child.mover_changes(pos) { -theirs } else { theirs };
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((mv, v));
        }
    }
    best.map(|(m, v)| {
        let score = match v {
            i64::MAX => WIN - 1,
            v if v == -i64::MAX => -(WIN - 1),
            v => v.clamp(-i64::from(WIN - 2), i64::from(WIN - 2)) as i32,
        };
        (m, score)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::testnim::TestNim as Nim;

    #[test]
    fn takes_an_immediate_win() {
        assert_eq!(choose(&Nim::new(3)), Some(3));
        assert_eq!(choose_scored(&Nim::new(3)), Some((3, WIN - 1)));
        assert_eq!(choose(&Nim::new(0)), None);
    }

    #[test]
    fn chooses_among_the_kept_moves_only() {
        // From 3 taking all three wins; kept out, the best other move.
        let (mv, _) = choose_kept(&Nim::new(3), |mv, _| mv != 3).expect("moves");
        assert!(mv == 1 || mv == 2, "{mv}");
        // Judged by the position reached too.
        let (mv, _) = choose_kept(&Nim::new(3), |_, child| child.pile == 1).expect("moves");
        assert_eq!(mv, 2);
        assert_eq!(choose_kept(&Nim::new(3), |_, _| true), choose_scored(&Nim::new(3)));
        assert_eq!(choose_kept(&Nim::new(3), |_, _| false), None);
    }
}
