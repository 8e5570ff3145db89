//! Move generation in the race: a side's region plays in black's frame
//! (narrow reading), and the chain flood over stones that the stuck-piece
//! arguments share.

use super::frame::GOAL;
use crate::games::halma::bitboard::{level, Bitboard, OPPOSITE};
use crate::games::halma::{hop_chain, HMove, NEIGHBOURS};

/// Grows `reached` (cells a moving piece can stand on) from `frontier` by
/// hops over `over` landing on `land`; stops early, with `true`, once a
/// cell of `stop` is reached. The mover's start must not be in `over`.
#[inline]
pub(super) fn chain_flood(mut reached: Bitboard, mut frontier: Bitboard, over: Bitboard, land: Bitboard, stop: Bitboard) -> (Bitboard, bool) {
    while !frontier.is_empty() {
        let mut next = Bitboard::EMPTY;
        for (d, &back) in OPPOSITE.iter().enumerate() {
            next |= (frontier & over.step(back)).step2(d);
        }
        next &= land & !reached;
        reached |= next;
        if !(next & stop).is_empty() {
            return (reached, true);
        }
        frontier = next;
    }
    (reached, false)
}

/// Writes the region plays of `pieces` (black's frame) into `out` with an
/// ordering key (level gained, plus a bonus for entering the goal); returns
/// how many. Narrow reading: a piece in the goal keeps every hop inside it.
/// With `entering_only`, only the plays that bring a piece into the goal.
#[cfg(test)]
pub(super) fn generate(pieces: Bitboard, region: Bitboard, entering_only: bool, out: &mut [(i16, HMove)]) -> usize {
    generate_with(pieces, region, !entering_only, entering_only, out)
}

/// [`generate`]: the plays of the pieces in the goal only with
/// `goal_moves`, and only the outsiders' entering plays with
/// `outsiders_enter`.
pub(super) fn generate_with(
    pieces: Bitboard,
    region: Bitboard,
    goal_moves: bool,
    outsiders_enter: bool,
    out: &mut [(i16, HMove)],
) -> usize {
    let empty = !pieces;
    // sources[d]: cells whose neighbour in direction d holds a piece.
    let mut sources = [Bitboard::EMPTY; 8];
    for (d, s) in sources.iter_mut().enumerate() {
        *s = pieces.step(OPPOSITE[d]);
    }
    let mut n = 0;
    let movers = if goal_moves { pieces } else { pieces & !GOAL };
    // Outsiders that only enter: chains reverse, so one flood from the
    // holes finds the empty cells with a chain into one (hopping over any
    // piece, the mover's start too: a superset). An outsider whose first
    // hop lands on none of them or a hole has no entering chain, only
    // steps, and is spared its own flood.
    let mut chains_in = !Bitboard::EMPTY;
    if outsiders_enter {
        let holes = GOAL & empty;
        let (into, _) = chain_flood(holes, holes, pieces, empty & region, Bitboard::EMPTY);
        chains_in = GOAL;
        for (d, s) in sources.iter().enumerate() {
            chains_in |= *s & into.step2(OPPOSITE[d]);
        }
    }
    for from in movers.iter() {
        let in_goal = GOAL.has(from);
        let allowed = if in_goal { GOAL } else { region };
        let land_ok = empty & allowed;
        let mut targets = NEIGHBOURS[from as usize] & land_ok;
        // An outsider outside `chains_in` has only its steps (into holes,
        // by the filter below).
        if chains_in.has(from) {
            // The same cells as `chain_flood` over the pieces but the
            // mover's, with the hop sources shifted once per node.
            targets |= hop_chain(from, &sources, land_ok);
        }
        if outsiders_enter && !in_goal {
            targets &= GOAL;
        }
        let lf = level(from) as i16;
        for to in targets.iter() {
            let mut k = (level(to) as i16 - lf) * 4;
            if !in_goal && GOAL.has(to) {
                k += 8;
            }
            if n < out.len() {
                out[n] = (k, HMove::new(from, to));
                n += 1;
            }
        }
    }
    n
}
