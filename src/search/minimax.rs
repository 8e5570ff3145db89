//! The reference opponent: plain full-width minimax (no pruning) with the
//! game's simple evaluation, as the contest's reference agent plays.

use super::{outcome_score, Evaluator, Limits, SearchInfo, Searchable};
use crate::clock::CpuTimer;

#[cfg(test)]
/// Plain negamax value of `pos` to `depth` plies with the game's reference
/// evaluation, counting visited nodes in `nodes`.
pub(crate) fn minimax_value<G: Searchable>(pos: &G, depth: u32, nodes: &mut u64) -> i32 {
    let mut bufs: Vec<Vec<G::Move>> = (0..=depth).map(|_| Vec::new()).collect();
    value(pos, &G::Reference::default(), depth, 0, nodes, &mut bufs, None).unwrap_or(0)
}

/// Returns None when the deadline passed (the value is then unknown).
fn value<G: Searchable>(
    pos: &G,
    eval: &G::Reference,
    depth: u32,
    ply: u32,
    nodes: &mut u64,
    bufs: &mut [Vec<G::Move>],
    deadline: Option<(&CpuTimer, f64)>,
) -> Option<i32> {
    *nodes += 1;
    if let Some((t, limit)) = deadline {
        if nodes.is_multiple_of(1024) && t.elapsed() >= limit {
            return None;
        }
    }
    if let Some(o) = pos.outcome() {
        return Some(outcome_score(o, ply));
    }
    if depth == 0 {
        return Some(eval.evaluate(pos));
    }
    let (head, rest) = bufs.split_first_mut().expect("buffer per ply");
    head.clear();
    pos.legal_moves(head);
    if head.is_empty() {
        return Some(0);
    }
    let mut best = i32::MIN;
    for &mv in head.iter() {
        let mut child = pos.clone();
        child.play(mv);
        let v = value(&child, eval, depth - 1, ply + 1, nodes, rest, deadline)?;
        // A skipped turn (the same side moves again) keeps the sign.
        best = best.max(if child.mover_changes(pos) { -v } else { v });
    }
    Some(best)
}

/// Result of a reference search.
#[derive(Clone, Debug)]
pub struct MinimaxResult<M> {
    /// Chosen move (None only without legal moves).
    pub best: Option<M>,
    /// Its value.
    pub score: i32,
    /// Depth actually searched (may be below the requested one when time is short).
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
}

/// Full-width minimax to `limits.max_depth`, falling back to a shallower
/// depth when the hard CPU limit cannot cover the full one: depths 1, 2, ...
/// are searched in turn, a depth is started only if the node count growth so
/// far predicts it fits, and a depth cut short by the limit is discarded.
/// Positions are scored by the game's reference evaluation
/// ([`Searchable::Reference`]).
pub fn search<G: Searchable>(
    root: &G,
    limits: &Limits,
    mut on_best: impl FnMut(&SearchInfo<G::Move>),
) -> MinimaxResult<G::Move> {
    let timer = CpuTimer::start();
    let eval = G::Reference::default();
    let (depth, budget) = (limits.max_depth, limits.hard);
    let mut moves = Vec::new();
    if root.outcome().is_none() {
        root.legal_moves(&mut moves);
    }
    let mut result = MinimaxResult {
        best: moves.first().copied(),
        score: 0,
        depth: 0,
        nodes: 0,
    };
    if moves.is_empty() {
        return result;
    }
    let mut bufs: Vec<Vec<G::Move>> = (0..=depth.max(1)).map(|_| Vec::new()).collect();
    let mut prev_nodes = 0u64;
    let mut prev_secs = 0.0f64;
    for d in 1..=depth.max(1) {
        if d > 1 {
            // Predict this depth's cost from the growth of the last one.
            let growth = (prev_nodes as f64 / moves.len().max(1) as f64).max(moves.len() as f64);
            let predicted = prev_secs * growth;
            if timer.elapsed() + predicted > budget {
                break;
            }
        }
        let start = timer.elapsed();
        let mut nodes = 0u64;
        let mut best: Option<(G::Move, i32)> = None;
        let mut aborted = false;
        for &mv in &moves {
            let mut child = root.clone();
            child.play(mv);
            match value(&child, &eval, d - 1, 1, &mut nodes, &mut bufs, Some((&timer, budget))) {
                Some(v) => {
                    let v = if child.mover_changes(root) { -v } else { v };
                    if best.is_none_or(|(_, b)| v > b) {
                        best = Some((mv, v));
                    }
                }
                None => {
                    aborted = true;
                    break;
                }
            }
        }
        result.nodes += nodes;
        if aborted {
            break;
        }
        let (mv, v) = best.expect("at least one move");
        result.best = Some(mv);
        result.score = v;
        result.depth = d;
        on_best(&SearchInfo {
            best: mv,
            score: v,
            depth: d,
            nodes: result.nodes,
            seconds: timer.elapsed(),
            pv: vec![mv],
            partial: false,
        });
        prev_nodes = nodes;
        prev_secs = timer.elapsed() - start;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::testnim::TestNim as Nim;
    use crate::search::testgames::RandomTree;

    #[test]
    fn visits_every_node() {
        // Nim(3) to depth 2: root, 3 children (piles 2,1,0), pile 2 -> 2 kids, pile 1 -> 1 kid, 0 terminal.
        let mut n = 0;
        minimax_value(&Nim::new(3), 2, &mut n);
        assert_eq!(n, 1 + 3 + 2 + 1);
    }

    #[test]
    fn plays_the_winning_nim_move() {
        let r = search(&Nim::new(6), &Limits::depth(6), |_| {});
        assert_eq!(r.best, Some(2));
        assert_eq!(r.depth, 6);
    }

    #[test]
    fn falls_back_when_time_is_short() {
        let g = RandomTree::new(3);
        let r = search(
            &g,
            &Limits {
                max_depth: 40,
                ..Limits::time(0.01, 0.01)
            },
            |_| {},
        );
        assert!(r.depth >= 1 && r.depth < 40);
        assert!(r.best.is_some());
    }
}
