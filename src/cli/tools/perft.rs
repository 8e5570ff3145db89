//! Perft over the [`Game`] trait: the number of leaf positions `depth` plies
//! below a position (a finished game is a leaf). It checks move generation
//! against known counts and measures its speed, for any game.

use agent::search::Game;

/// Leaf count `depth` plies below `pos`: a finished game counts as one leaf,
/// a side without a legal move (in a game that does not end there) as none.
/// One move buffer per ply, allocated once: counting does not allocate.
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    let mut bufs: Vec<Vec<G::Move>> = (0..depth).map(|_| Vec::with_capacity(64)).collect();
    count(pos, depth, &mut bufs)
}

fn count<G: Game>(pos: &G, depth: u32, bufs: &mut [Vec<G::Move>]) -> u64 {
    if depth == 0 || pos.outcome().is_some() {
        return 1;
    }
    let (head, rest) = bufs.split_first_mut().expect("a buffer per ply");
    head.clear();
    pos.legal_moves(head);
    if depth == 1 {
        return head.len() as u64;
    }
    let mut n = 0;
    for &mv in head.iter() {
        let mut child = pos.clone();
        child.play(mv);
        n += count(&child, depth - 1, rest);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent::games::testnim::TestNim as Nim;

    #[test]
    fn counts_nim_leaves() {
        // Nim 3: 3 moves (to 2, 1, 0); then 2 + 1 + leaf(0) = 4 at depth 2.
        assert_eq!(perft(&Nim::new(3), 0), 1);
        assert_eq!(perft(&Nim::new(3), 1), 3);
        assert_eq!(perft(&Nim::new(3), 2), 4);
        assert_eq!(perft(&Nim::new(0), 5), 1);
    }
}
