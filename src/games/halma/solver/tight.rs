//! The dearer part of the bound, paid only at nodes with little room under
//! the threshold ([`tight_bound`]): isolated and stuck outsiders together,
//! the stuck plays before the holes, and, with no room beyond one play per
//! outsider, a matching of outsiders to holes and an entering order.

use super::bound::{grow1, Packing};
use super::frame::GOAL;
use super::goal_db;
use super::memo::{known_count, OutsideMemo, UNKNOWN};
use super::moves::chain_flood;
use super::stuck::{stuck_plays, OpsMemo, Stuck};
use crate::games::halma::bitboard::Bitboard;
use crate::games::halma::NEIGHBOURS;

/// Whether the outsiders could all enter the goal one play each, in some
/// order, with no other play: a necessary condition for a finish in
/// `outside` plays. In such a finish the pieces in the goal never move, and
/// an outsider's chain hops over pieces in the goal, holes (filled or not
/// by then) and the outsiders that enter after it, never over those that
/// entered before it (gone by then). So the last to enter has only the goal
/// to hop over, the one before it the goal and the last, and so on: built
/// backwards, greedily (a later outsider is one more stone, so picking any
/// that can enter never spoils the rest), the order exists iff the greedy
/// order places them all. Landing is allowed on any cell but the goal's
/// pieces and the mover's own start (cells of outsiders may be vacated).
pub(super) fn all_can_enter(pieces: Bitboard, region: Bitboard) -> bool {
    let holes = GOAL & !pieces;
    let land = (region & !GOAL) | holes;
    let mut left = pieces & !GOAL;
    // Outsiders placed later in the order: stones for the rest.
    let mut later = Bitboard::EMPTY;
    loop {
        let mut progress = false;
        for r in left.iter() {
            if !reached_holes(r, GOAL | later, land, holes).is_empty() {
                left.clear(r);
                later.set(r);
                progress = true;
            }
        }
        if left.is_empty() {
            return true;
        }
        if !progress {
            return false;
        }
    }
}

/// Whether the outsiders can be matched to the holes so that each reaches
/// its hole in one play: a necessary condition for a finish in `outside`
/// plays, in which each outsider makes one play, into its own hole, from
/// the cell it stands on now. Its chain hops over pieces standing now or
/// holes (filled by then or not) and lands on empty cells, holes, or cells
/// of outsiders gone meanwhile.
pub(super) fn holes_matched(pieces: Bitboard, region: Bitboard) -> bool {
    let holes = GOAL & !pieces;
    let land = (region & !GOAL) | holes;
    let stones = pieces | GOAL;
    let hole_cells: arrayvec::ArrayVec<u8, 19> = holes.iter().collect();
    let mut reach = arrayvec::ArrayVec::<u32, 19>::new();
    for r in (pieces & !GOAL).iter() {
        let cells = reached_holes(r, stones, land, holes);
        let mask = hole_cells
            .iter()
            .enumerate()
            .filter(|(_, &c)| cells.has(c))
            .fold(0u32, |m, (i, _)| m | 1 << i);
        if mask == 0 {
            return false;
        }
        reach.push(mask);
    }
    perfect_matching(&reach)
}

/// Whether every row of `reach` (a set of columns each) gets a column of its
/// own (Kuhn's augmenting paths; at most 19 rows and columns).
fn perfect_matching(reach: &[u32]) -> bool {
    // owner[c]: the row holding column c, or u8::MAX.
    let mut owner = [u8::MAX; 32];
    for row in 0..reach.len() {
        let mut seen = 0u32;
        if !augment(reach, row, &mut owner, &mut seen) {
            return false;
        }
    }
    true
}

fn augment(reach: &[u32], row: usize, owner: &mut [u8; 32], seen: &mut u32) -> bool {
    let mut cols = reach[row] & !*seen;
    while cols != 0 {
        let c = cols.trailing_zeros() as usize;
        cols &= cols - 1;
        *seen |= 1 << c;
        if owner[c] == u8::MAX || augment(reach, owner[c] as usize, owner, seen) {
            owner[c] = row as u8;
            return true;
        }
    }
    false
}

/// The holes the piece on `r` reaches by a step or by a chain over
/// `stones` landing on `land`.
#[inline]
fn reached_holes(r: u8, stones: Bitboard, land: Bitboard, holes: Bitboard) -> Bitboard {
    let start = Bitboard::single(r);
    let (reached, _) = chain_flood(start, start, stones & !start, land, Bitboard::EMPTY);
    (reached | NEIGHBOURS[r as usize]) & holes
}

/// Plays ending outside the goal forced by the packed isolation units
/// ([`isolation_plays`]) and, on top of them, by stuck outsiders far from
/// them (stuck as in [`stuck_plays`]).
///
/// A stuck outsider `q` with relaxed reach `R` (the cells its chains reach
/// with every goal cell and outsider a stone) stays stuck until a play
/// ends on a cell of `Z = R` and the cells next to it (only a stone next to
/// `R` opens a new hop; taking stones away or filling goal cells opens
/// none) or moves `q` (onto `Z` too). Until then `R` cannot grow, so the
/// first such play lands on `Z`. Every play that lowers the isolation sum
/// lands within `k_U - 1` of a unit `U` as it stood at the start (a
/// member's play lands within 1 of the unit, which shrinks its ball only).
/// So when `Z` misses all those balls, that play is one more play ending
/// outside the goal; stuck outsiders whose zones are disjoint each add one.
#[cfg(test)]
pub(super) fn isolated_and_stuck(pieces: Bitboard, found: &Stuck) -> u32 {
    isolated_and_stuck_with(pieces, found, &mut Packing::new())
}

/// [`isolated_and_stuck`] with the node's packing.
fn isolated_and_stuck_with(pieces: Bitboard, found: &Stuck, packing: &mut Packing) -> u32 {
    let plays = packing.plays(pieces);
    let mut blocked = Bitboard::EMPTY;
    for &(u, k) in packing.units(pieces) {
        let mut ball = u;
        for _ in 1..k {
            ball = grow1(ball);
        }
        blocked |= ball;
    }
    let mut extra = 0;
    for &(q, reach) in &found.stuck {
        if blocked.has(q) {
            continue;
        }
        let zone = grow1(reach);
        if (zone & blocked).is_empty() {
            extra += 1;
            blocked |= zone;
        }
    }
    plays + extra
}

/// A bound above `room` (the plays left within the threshold) from the
/// dearer arguments that only a node with little room pays for, `None` when
/// they do not refute it. With room for one to three plays beyond the
/// outsiders', the isolated and stuck outsiders (plays ending outside the
/// goal) and the goal database (plays inside it) may prove that it is not
/// enough: the stuck outsiders need up to three plays ending outside the
/// goal ([`stuck_ops`](super::stuck::stuck_ops), memoised), and where no play inside the
/// goal is needed and the stuck plays fill the room, one more when the
/// outsiders that cannot reach a hole need more ([`Stuck::find_holes`]):
/// a finish then either plays inside the goal once or more, or never, and
/// never means that the goal's pieces stay as stones and only the holes
/// are entries. With no room beyond the outsiders', the necessary
/// conditions of a finish in one play per outsider.
#[allow(clippy::too_many_arguments)]
pub(super) fn tight_bound(
    pieces: Bitboard,
    region: Bitboard,
    outside: u32,
    room: u32,
    zones: bool,
    packing: &mut Packing,
    memo: Option<&mut OpsMemo>,
    outside_memo: &mut OutsideMemo,
    okey: u64,
    generation: u8,
) -> Option<u32> {
    if room > outside && room <= outside + 3 {
        let goal = goal_db::goal_plays(goal_db::table(), pieces);
        // The stuck outsiders and the counts over them depend on the
        // outsiders only: from the memo when it has them.
        let facts = outside_memo.entry(okey, generation);
        let mut found = None;
        let isolated = if !zones {
            0
        } else if facts.isolated != UNKNOWN {
            u32::from(facts.isolated)
        } else {
            facts.packing_plays(pieces, packing);
            let f = found.get_or_insert_with(|| Stuck::find(pieces, region));
            let v = isolated_and_stuck_with(pieces, f, packing);
            facts.isolated = known_count(v);
            v
        };
        let need = outside + isolated + goal;
        if need > room {
            return Some(need);
        }
        // Three stuck plays at most: they refute room for three only with
        // a play in the goal.
        if outside + 3 + goal <= room {
            return None;
        }
        let Some(memo) = memo else {
            // The solver of the third round (a reference for the tests).
            if room > outside + 2 || outside + 2 + goal <= room {
                return None;
            }
            let f = found.get_or_insert_with(|| Stuck::find(pieces, region));
            let need = outside + stuck_plays(f) + goal;
            return (need > room).then_some(need);
        };
        // Only as many stuck plays as refute the room are counted.
        let cap = room + 1 - outside - goal;
        let (ops, ops_cap) = (u32::from(facts.ops), u32::from(facts.ops_cap));
        let stuck = if ops_cap > 0 && (cap <= ops_cap || ops < ops_cap) {
            ops.min(cap)
        } else {
            let f = found.get_or_insert_with(|| Stuck::find(pieces, region));
            let v = memo.ops(f, cap);
            (facts.ops, facts.ops_cap) = (v as u8, cap as u8);
            v
        };
        let need = outside + stuck.max(isolated) + goal;
        if need > room || goal > 0 || need < room {
            return (need > room).then_some(need);
        }
        // No play inside the goal is needed, and the plays ending outside
        // it leave no room for one: a finish in `room` plays either makes
        // one (and then `room - outside - 1` more), or none, and then its
        // stuck outsiders are those that cannot reach a hole. One more play
        // if those need more. Only where one play ending outside the goal
        // fits: the check of a third one before the holes cost more than
        // the nodes it saved on `agent halma race-bench`.
        let ending_outside = room - outside;
        if ending_outside >= 2 {
            return None;
        }
        let holes = Stuck::find_holes(pieces, region);
        if zones && isolated_and_stuck_with(pieces, &holes, packing) > ending_outside {
            return Some(need + 1);
        }
        return (memo.ops(&holes, ending_outside + 1) > ending_outside).then_some(need + 1);
    }
    if room == outside && (!holes_matched(pieces, region) || !all_can_enter(pieces, region)) {
        return Some(outside + 1);
    }
    None
}
