//! Stuck outsiders (no chain into the goal even with every goal cell a
//! stone, [`Stuck`]) and the plays ending outside the goal they force: one
//! or two by cells that unstick them all ([`stuck_plays`]), up to three by
//! a relaxation memoised per set of outsiders ([`stuck_ops`], [`OpsMemo`]).

use super::bound::grow1;
use super::frame::GOAL;
use super::memo::KEYS;
use super::moves::chain_flood;
use crate::games::halma::bitboard::Bitboard;
use crate::games::halma::NEIGHBOURS;
use crate::search::mix::splitmix64 as mix;

/// The stuck outsiders of a position (see [`stuck_plays`]), found once for
/// the arguments that use them.
pub(super) struct Stuck {
    /// Every piece and goal cell: the stones of the relaxation.
    stones: Bitboard,
    /// Its landing cells: the region and the goal, or with
    /// [`Stuck::find_holes`] the region outside the goal and the holes.
    land: Bitboard,
    /// The cells an outsider must reach to enter: the goal, or the holes.
    target: Bitboard,
    /// The cells the flood back from the target reaches.
    free: Bitboard,
    /// Each stuck outsider with the cells its chains reach.
    pub(super) stuck: arrayvec::ArrayVec<(u8, Bitboard), 19>,
}

impl Stuck {
    /// Stuck as in [`stuck_plays`]: no play reaches a goal cell, with every
    /// goal cell a stone and a landing cell (the pieces in the goal may
    /// move).
    pub(super) fn find(pieces: Bitboard, region: Bitboard) -> Self {
        Stuck::find_to(pieces, region | GOAL, GOAL)
    }

    /// Stuck for a finish whose pieces in the goal never move: no play
    /// reaches a hole, the goal's pieces being stones that are never
    /// vacated (no landing cells) and the holes stones and landing cells
    /// (filled or not by then). Entering plays only fill holes and take
    /// stones away outside the goal, so with no play inside the goal the
    /// argument of [`stuck_plays`] holds as it is.
    pub(super) fn find_holes(pieces: Bitboard, region: Bitboard) -> Self {
        let holes = GOAL & !pieces;
        Stuck::find_to(pieces, (region & !GOAL) | holes, holes)
    }

    fn find_to(pieces: Bitboard, land: Bitboard, target: Bitboard) -> Self {
        let stones = pieces | GOAL;
        // Hops reverse, so one flood back from the target finds the cells
        // with a chain into it; it may hop over the mover's own cell, so it
        // clears some stuck pieces (a weaker answer, never a wrong one) and
        // spares most pieces their own flood.
        let (free, _) = chain_flood(target, target, stones, land, Bitboard::EMPTY);
        let mut stuck = arrayvec::ArrayVec::new();
        for q in (pieces & !GOAL & !free).iter() {
            if !(NEIGHBOURS[q as usize] & target).is_empty() {
                continue;
            }
            let start = Bitboard::single(q);
            let (reach, entered) = chain_flood(start, start, stones & !start, land, target);
            if !entered {
                stuck.push((q, reach));
            }
        }
        Stuck {
            stones,
            land,
            target,
            free,
            stuck,
        }
    }
}

/// Most candidate cells [`stuck_plays`] tries per stuck piece (beyond, it
/// gives up with the weaker answer).
const STUCK_TRIES: u32 = 24;

/// Plays ending outside the goal that the *stuck* outsiders force (0, 1 or
/// 2). An outsider is stuck when it cannot reach any goal cell in one play
/// even with every goal cell both a stone and a landing cell and the cells
/// of the other outsiders both too. Entering plays only take stones away
/// outside the goal and plays inside the goal change nothing of this
/// relaxation, so a stuck outsider stays stuck until a play ends outside
/// the goal (1). One such play helps a stuck piece only by adding a stone
/// (at its landing cell `b`) or by moving it; so if no single cell `b`
/// unsticks all the stuck pieces at once, and no stuck piece can move to a
/// cell from which it enters and that unsticks the others, two are needed.
pub(super) fn stuck_plays(found: &Stuck) -> u32 {
    let (stones, land, free, stuck) = (found.stones, found.land, found.free, &found.stuck);
    if stuck.is_empty() {
        return 0;
    }
    // A flood that reaches a cell with a chain into the goal may stop
    // there (that chain may hop over the mover's start: a weaker answer).
    let exit = free | found.target;
    // helps[i]: the cells whose stone would unstick stuck piece i. With
    // the stone on `b`, the new hops start from the cells next to it.
    let mut helps = arrayvec::ArrayVec::<Bitboard, 19>::new();
    for &(q, reach) in stuck {
        let candidates = grow1(reach) & land & !stones;
        if candidates.count() > STUCK_TRIES {
            return 1;
        }
        let over = stones & !Bitboard::single(q);
        let mut h = Bitboard::EMPTY;
        for b in candidates.iter() {
            let frontier = reach & NEIGHBOURS[b as usize];
            let with_b = over | Bitboard::single(b);
            if chain_flood(reach, frontier, with_b, land & !Bitboard::single(b), exit).1 {
                h.set(b);
            }
        }
        helps.push(h);
    }
    let all = helps.iter().fold(!Bitboard::EMPTY, |a, &h| a & h);
    if !all.is_empty() {
        return 1;
    }
    for (i, &(p, reach)) in stuck.iter().enumerate() {
        let others = helps
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .fold(!Bitboard::EMPTY, |a, (_, &h)| a & h);
        let targets = (reach | NEIGHBOURS[p as usize]) & land & !stones & others;
        if targets.count() > STUCK_TRIES {
            return 1;
        }
        for b in targets.iter() {
            let from = Bitboard::single(b);
            if !(NEIGHBOURS[b as usize] & found.target).is_empty() || chain_flood(from, from, stones, land, exit).1 {
                return 1;
            }
        }
    }
    2
}

/// Most candidate plays [`stuck_ops`] tries as the first of two (beyond,
/// it gives up with the weaker answer).
const THREE_TRIES: u32 = 96;
/// Most stuck pieces [`stuck_ops`] looks at.
pub(super) const THREE_PIECES: usize = 8;

/// The plays ending outside the goal that the stuck outsiders of `found`
/// need, up to `cap` (at most three): as in [`stuck_plays`], a play of the relaxation helps
/// a stuck piece only by adding a stone (its landing cell) or by moving
/// the piece, and only where it lands next to the piece's relaxed reach
/// (its zone). One play unsticks them all when a stone lies in every zone
/// or a piece moves into every other zone, and then each enters; two when
/// after some first play (a stone on a zone's free cell, or a stuck piece
/// moved within its reach or by a step, its old cell kept as a stone: more
/// stones only help) one more does. Pieces whose zone the first play
/// misses keep their reach, so only the others are flooded again.
///
/// Unlike [`stuck_plays`], no flood looks beyond the stuck pieces' reaches:
/// the answer depends only on the stones next to the reaches it floods,
/// which it adds to `touched`, so that a position with the same stuck
/// pieces and the same stones there has the same answer ([`OpsMemo`]).
pub(super) fn stuck_ops(found: &Stuck, touched: &mut Bitboard, cap: u32) -> u32 {
    let (stones, land) = (found.stones, found.land);
    let stuck = &found.stuck;
    let n = stuck.len();
    if n == 0 || cap == 0 {
        return 0;
    }
    if n > THREE_PIECES || cap == 1 {
        return 1;
    }
    let pos: arrayvec::ArrayVec<u8, THREE_PIECES> = stuck.iter().map(|&(q, _)| q).collect();
    let mut zones = arrayvec::ArrayVec::<Bitboard, THREE_PIECES>::new();
    let mut cells = Bitboard::EMPTY;
    let mut tries = 0;
    let mut left = arrayvec::ArrayVec::<(u8, Bitboard, Bitboard), THREE_PIECES>::new();
    for &(q, reach) in stuck.iter() {
        let z = grow1(reach) & land;
        zones.push(z);
        left.push((q, reach, z));
        cells |= z;
        tries += ((reach | NEIGHBOURS[q as usize]) & land).count() - 1;
    }
    *touched |= cells;
    let mut two = TwoPlays {
        stuck,
        zones: &zones,
        pos: &pos,
        land,
        target: found.target,
        touched,
    };
    if two.one_more(&left, stones) {
        return 1;
    }
    let stone_cells = cells & !stones;
    if cap == 2 || tries + stone_cells.count() > THREE_TRIES {
        return 2;
    }
    // split[m]: whether the pieces of mask `m` hold two with disjoint
    // zones. Those a first play leaves as they were stay stuck, and no
    // second play helps two of them with disjoint zones (a stone lies in
    // at most one, a moved piece lands in its own), so such a first play
    // needs no flood.
    let mut split = [false; 1 << THREE_PIECES];
    for m in 1..1usize << n {
        let low = m.trailing_zeros() as usize;
        let rest = m & (m - 1);
        split[m] = split[rest] || (0..n).any(|j| rest >> j & 1 != 0 && (zones[low] & zones[j]).is_empty());
    }
    let all = (1usize << n) - 1;
    let touched_by = |c: u8| (0..n).filter(|&j| zones[j].has(c)).fold(0usize, |m, j| m | 1 << j);
    for b in stone_cells.iter() {
        if split[all & !touched_by(b)] {
            continue;
        }
        if two.unstick(stones | Bitboard::single(b), usize::MAX, b) {
            return 2;
        }
    }
    for (i, &(q, reach)) in stuck.iter().enumerate() {
        for t in ((reach | NEIGHBOURS[q as usize]) & land & !Bitboard::single(q)).iter() {
            if split[all & !touched_by(t) & !(1 << i)] {
                continue;
            }
            if two.unstick(stones | Bitboard::single(t), i, t) {
                return 2;
            }
        }
    }
    3
}

/// The plays of [`stuck_ops`] after the first.
struct TwoPlays<'a> {
    stuck: &'a [(u8, Bitboard)],
    zones: &'a [Bitboard],
    pos: &'a [u8],
    land: Bitboard,
    target: Bitboard,
    /// The cells next to every reach flooded so far.
    touched: &'a mut Bitboard,
}

impl TwoPlays<'_> {
    /// The cells a piece on `q` reaches by chains over `stones`, and
    /// whether it can enter (a step or a chain).
    #[inline]
    fn reach(&mut self, q: u8, stones: Bitboard) -> (Bitboard, bool) {
        if !(NEIGHBOURS[q as usize] & self.target).is_empty() {
            return (Bitboard::single(q), true);
        }
        let start = Bitboard::single(q);
        let (r, entered) = chain_flood(start, start, stones & !start, self.land, self.target);
        *self.touched |= grow1(r);
        (r, entered)
    }

    /// After a first play (stone `b` added to `stones`, and stuck piece
    /// `moved` now on `b` unless `usize::MAX`), whether one more play
    /// unsticks every stuck piece.
    fn unstick(&mut self, stones: Bitboard, moved: usize, b: u8) -> bool {
        let land = self.land;
        // The pieces still stuck: their cells, reaches and zones.
        let mut left = arrayvec::ArrayVec::<(u8, Bitboard, Bitboard), THREE_PIECES>::new();
        for j in 0..self.stuck.len() {
            let q = if j == moved { b } else { self.pos[j] };
            let (r, z) = if j == moved || self.zones[j].has(b) {
                let (r, entered) = self.reach(q, stones);
                if entered {
                    continue;
                }
                (r, grow1(r) & land)
            } else {
                (self.stuck[j].1, self.zones[j])
            };
            left.push((q, r, z));
        }
        self.one_more(&left, stones)
    }

    /// Whether one play unsticks every piece of `left` (cell, reach,
    /// zone): a stone in every zone, or a piece moved into every other
    /// zone, after which each can enter.
    fn one_more(&mut self, left: &[(u8, Bitboard, Bitboard)], stones: Bitboard) -> bool {
        let land = self.land;
        if left.is_empty() {
            return true;
        }
        let common = left.iter().fold(land & !stones, |c, &(_, _, z)| c & z);
        for c in common.iter() {
            let with_c = stones | Bitboard::single(c);
            if left.iter().all(|&(q, _, _)| self.reach(q, with_c).1) {
                return true;
            }
        }
        for i in 0..left.len() {
            let (q, r, _) = left[i];
            let mut targets = (r | NEIGHBOURS[q as usize]) & land & !Bitboard::single(q);
            for (j, &(_, _, z)) in left.iter().enumerate() {
                if j != i {
                    targets &= z;
                }
            }
            for t in targets.iter() {
                let with_t = stones | Bitboard::single(t);
                if self.reach(t, with_t).1 && (0..left.len()).all(|j| j == i || self.reach(left[j].0, with_t).1) {
                    return true;
                }
            }
        }
        false
    }
}

/// Answers of [`stuck_ops`] by their stuck pieces and the stones on the
/// cells the answer looked at: a race's stuck stragglers stay as they are
/// over many nodes while other pieces move. With the same stuck pieces,
/// fewer stones there give at least as many plays (the answer a lower
/// bound), and more give at most as many (so a single play stays one).
pub(super) struct OpsMemo {
    entries: Vec<OpsEntry>,
    /// Turns the entry of a bucket that a new answer replaces.
    next: usize,
}

#[derive(Clone, Copy, Default)]
struct OpsEntry {
    key: u64,
    touched: Bitboard,
    stones: Bitboard,
    ops: u32,
    /// Whether `ops` is the count's answer with no cap below it.
    full: bool,
}

/// Entries of an [`OpsMemo`] (log2).
const OPS_MEMO_LOG2: u32 = 12;
/// Entries of an [`OpsMemo`] bucket.
const OPS_WAYS: usize = 4;

impl OpsMemo {
    pub(super) fn new() -> OpsMemo {
        OpsMemo {
            entries: vec![OpsEntry::default(); 1 << OPS_MEMO_LOG2],
            next: 0,
        }
    }

    /// The key of `found`'s stuck pieces, landing cells and target: with
    /// the stones, they decide the answer.
    pub(super) fn key(found: &Stuck) -> u64 {
        let (land, target) = (found.land.0, found.target.0);
        let mut key = mix(land[0] ^ mix(land[1] ^ mix(land[2] ^ mix(land[3]))));
        key = mix(key ^ target[0] ^ mix(target[1] ^ mix(target[2] ^ mix(target[3]))));
        for &(q, _) in &found.stuck {
            key ^= KEYS[q as usize];
        }
        key | 1
    }

    /// A lower bound on [`stuck_ops`] of `found` with `cap` if the memo
    /// holds one that reaches `cap` or is the count's own answer.
    pub(super) fn lookup(&self, found: &Stuck, key: u64, cap: u32) -> Option<u32> {
        let slot = key as usize & ((1 << OPS_MEMO_LOG2) - 1) & !(OPS_WAYS - 1);
        self.entries[slot..slot + OPS_WAYS].iter().find_map(|e| {
            if e.key != key {
                return None;
            }
            let here = found.stones & e.touched;
            let fewer = (here & !e.stones).is_empty();
            let more = (e.stones & !here).is_empty();
            // One play stays one with more stones (none is stuck-free).
            let holds = (fewer && (e.ops >= cap || (e.full && more))) || (e.ops == 1 && more);
            holds.then_some(e.ops.min(cap))
        })
    }

    /// [`stuck_ops`] of `found` with `cap` (or a lower bound the memo
    /// holds).
    pub(super) fn ops(&mut self, found: &Stuck, cap: u32) -> u32 {
        if found.stuck.is_empty() {
            return 0;
        }
        let key = OpsMemo::key(found);
        if let Some(ops) = self.lookup(found, key, cap) {
            return ops;
        }
        let mut touched = Bitboard::EMPTY;
        let ops = stuck_ops(found, &mut touched, cap);
        let slot = key as usize & ((1 << OPS_MEMO_LOG2) - 1) & !(OPS_WAYS - 1);
        self.next = self.next.wrapping_add(1);
        self.entries[slot + self.next % OPS_WAYS] = OpsEntry {
            key,
            touched,
            stones: found.stones & touched,
            ops,
            full: ops < cap || cap >= 3,
        };
        ops
    }
}
