//! The race endgame: once the two armies have passed each other, each side's
//! remaining game is a single-agent puzzle (fill the goal in as few plays as
//! possible), and who wins is decided by comparing the two counts.
//!
//! Everything here works in BLACK's frame: a side's pieces are mapped so that
//! they head for the bottom-right corner (white's pieces are turned by 180
//! degrees, cell `c` -> `255 - c`), the goal is white's camp and the *level*
//! of a cell is `x + y` (0 at black's corner, 30 at the goal corner).
//!
//! # Separation (why the race model is sound)
//!
//! Let `minB` be the lowest level of a black piece and `maxW` the highest
//! level of a white piece (both in black's frame). [`race_sides`] calls the
//! position separated when `minB - maxW >= 5`, and gives black the region of
//! levels `>= floor_B` and white the region `<= ceil_W`, with
//! `floor_B <= minB`, `ceil_W >= maxW` and `floor_B - ceil_W >= 3`.
//!
//! 1. Two cells are adjacent only if their levels differ by at most 2, so a
//!    black piece and a white piece inside their regions are never adjacent:
//!    neither can hop over the other, and no cell of one region is a cell
//!    the other side may step, hop or land on. While both sides make only
//!    *region plays* (every hop and the end inside the own region), each
//!    side's plays are exactly the plays it would have with the opponent's
//!    pieces removed: no piece can block, be blocked by, or jump over an
//!    opposing piece.
//! 2. The gap of 5 makes the very next play interaction-free whatever it is,
//!    region play or not: with only own pieces to hop over, a hop over a
//!    piece at level `>= minB` lands at level `>= minB - 2`, and a piece
//!    there is adjacent only to levels `>= minB - 4 > maxW`, so by induction
//!    over the hops of a chain no hop meets a white piece (and symmetrically
//!    for white). The random tests check this against the real move
//!    generator.
//! 3. Black's goal holds no white piece: 19 black pieces at levels `>= minB`
//!    need `minB <= 25` (only 15 cells lie at levels 26-30), so
//!    `maxW <= 20` while the goal is at levels `>= 25`; so black must fill
//!    its goal with its own 19 pieces (rule 5). Neither side has a piece in
//!    its own camp (levels `<= 5`; 19 white pieces need `maxW >= 5`, so
//!    `minB >= 10`), so rules 2 and 4 never apply inside a region.
//!
//! Hence, in the model where both sides keep to region plays, a side's
//! number of plays to finish is exactly the single-agent minimum that
//! [`Solver`] computes, and the side to move, needing `a` plays against the
//! opponent's `b`, wins iff `a <= b`. A side that leaves its region can only
//! do so by moving backwards, which a shortest finish never needs in
//! practice; the model does not cover deliberate spoiling by retreat.
//!
//! # The solver
//!
//! IDA* over own-piece bitboards with a transposition table of learned lower
//! bounds. The admissible bound ([`lower_bound`]) counts, for every goal level
//! `t`, the goal cells at level `>= t` still to be filled (each play adds at
//! most one piece to them), plus the plays the front needs to come within
//! reach of level `t` (a play never lands more than 2 levels beyond the
//! foremost piece: a step gains at most 2, and a hop lands 1-2 levels past
//! the piece it jumps over). Beyond one play per outsider it adds the plays
//! that bring no piece into the goal and that some argument forces: bands
//! of empty levels, isolated pieces and groups, and parity (a hop keeps a
//! piece's `(x % 2, y % 2)` class, so a class with more pieces than goal
//! cells must send the surplus through steps). Plays of pieces already in
//! the goal come from a pattern database over the goal's 19 cells
//! (`goal_db`, outside cells as wildcards); they add to the plays that end
//! outside the goal (bands, isolation), being different plays. At a node
//! with room for one to three plays beyond the outsiders', stuck outsiders
//! (no chain into the goal even with every goal cell a stone) add plays
//! ending outside the goal: up to three, each where no fewer plays of a
//! relaxation unstick them all, and one more where a finish with no play
//! inside the goal would need more to reach the holes themselves. At a
//! node whose threshold leaves no room beyond one play per outsider, two
//! necessary conditions for such a finish are checked first (a matching of
//! outsiders to holes each can reach, and an entering order in which each
//! hops only over the goal and later outsiders), then only entering plays
//! are generated. Every child's static bound is computed in its parent,
//! the cheap part first (outsiders plus parity), and children that fail it
//! are never visited: a visit costs a table probe that misses the cache.
//! The table slots of the others are fetched ahead. A table hit stands in
//! for the static bound (a stored bound is never below it). The parts of
//! the bound that depend on the outsiders only (isolation, stuck pieces)
//! are kept per set of outsiders (`OutsideMemo`): plays inside the goal
//! leave them as they are. Moves are the narrow
//! reading's (a piece in the goal keeps every hop inside it), so the first
//! move of a solution is legal under every reading.

pub mod goal_db;

use super::bitboard::{ball, level, max_level, min_level, Bitboard, CAMP, CELLS, LEVEL_GE, OPPOSITE, TOP_LEVEL};
use super::{hop_chain, HMove, Halma, Reading, NEIGHBOURS, PIECES};
use crate::clock::process_cpu_seconds;
use crate::protocol::{ByPlayer, Player};
use crate::search::Limits;
use rand::Rng;

/// Highest level (the goal corner).
const TOP: usize = TOP_LEVEL;
/// Lowest level of a goal cell.
const GOAL_LOW: usize = 25;
/// Minimum level gap between the armies for [`race_sides`].
pub const GAP: u32 = 5;


/// The goal in black's frame (white's camp).
pub const GOAL: Bitboard = *CAMP.get(Player::Two);

const fn build_goal_counts() -> [u32; TOP + 1] {
    let mut t = [0u32; TOP + 1];
    let mut c = 0;
    while c < CELLS {
        let l = c % 16 + c / 16;
        if GOAL.has(c as u8) {
            let mut k = 0;
            while k <= l {
                t[k] += 1;
                k += 1;
            }
        }
        c += 1;
    }
    t
}

/// `GOAL_AT_LEAST[t]`: the number of goal cells at level `>= t`.
const GOAL_AT_LEAST: [u32; TOP + 1] = build_goal_counts();


use crate::search::mix::splitmix64 as mix;

const fn build_keys() -> [u64; CELLS] {
    let mut t = [0u64; CELLS];
    let mut c = 0;
    while c < CELLS {
        t[c] = mix(0x5241_4345_0000 + c as u64);
        c += 1;
    }
    t
}

/// Zobrist keys of the solver's transposition table.
static KEYS: [u64; CELLS] = build_keys();

/// A cell's share of the key of a set of outsiders (the [`OutsideMemo`]'s
/// key): its Zobrist key outside the goal, 0 in it.
#[inline]
fn outside_key(c: u8) -> u64 {
    if GOAL.has(c) {
        0
    } else {
        KEYS[c as usize]
    }
}

/// A set of cells turned by 180 degrees (cell `c` -> `255 - c`).
#[inline]
pub fn rotate(b: Bitboard) -> Bitboard {
    let w = b.0;
    Bitboard([
        w[3].reverse_bits(),
        w[2].reverse_bits(),
        w[1].reverse_bits(),
        w[0].reverse_bits(),
    ])
}

/// A colour's pieces in black's frame.
#[inline]
pub fn to_frame(colour: Player, b: Bitboard) -> Bitboard {
    match colour {
        Player::One => b,
        Player::Two => rotate(b),
    }
}

/// A move in black's frame back on the real board for `colour`.
#[inline]
pub fn from_frame(colour: Player, mv: HMove) -> HMove {
    match colour {
        Player::One => mv,
        Player::Two => HMove::new(255 - mv.from, 255 - mv.to),
    }
}

/// One side of a separated position, in black's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceSide {
    /// The side's pieces, turned into black's frame.
    pub pieces: Bitboard,
    /// Lowest level the side's plays may touch (its region, see the module
    /// documentation).
    pub floor: u32,
}

/// Both sides' races when the position is separated (module documentation),
/// `None` otherwise.
pub fn race_sides(pos: &Halma) -> Option<ByPlayer<RaceSide>> {
    let black = pos.pieces(Player::One);
    let white = pos.pieces(Player::Two);
    if black.is_empty() || white.is_empty() {
        return None;
    }
    // Cheap necessary conditions first (this runs at every search node):
    // 19 white pieces need a level >= 5 (15 cells lie below), so a black
    // piece below level 10 or a white one above 20 rules separation out.
    if !(black & !LEVEL_GE[10]).is_empty() || !(white & LEVEL_GE[21]).is_empty() {
        return None;
    }
    let min_b = min_level(black);
    let max_w = max_level(white);
    if min_b < max_w + GAP {
        return None;
    }
    // Share the slack beyond the 3 levels that keep the regions apart; two
    // levels behind the rear piece are all a chain from the current
    // position can use.
    let slack = min_b - max_w - 3;
    let black_slack = (slack / 2).min(2);
    let white_slack = (slack - black_slack).min(2);
    Some(ByPlayer::new(
        RaceSide {
            pieces: black,
            floor: min_b - black_slack,
        },
        RaceSide {
            pieces: rotate(white),
            // White's ceiling maxW + slack, in white's own frame.
            floor: TOP as u32 - (max_w + white_slack),
        },
    ))
}

/// Whether no position one play away from `pos` can be separated: the
/// necessary level test of [`race_sides`] fails for the side not moving
/// (whose pieces the play leaves where they are), or for at least two pieces
/// of the side to move (a play moves one).
pub fn no_child_separated(pos: &Halma) -> bool {
    let low_black = (pos.pieces(Player::One) & !LEVEL_GE[10]).count();
    let high_white = (pos.pieces(Player::Two) & LEVEL_GE[21]).count();
    match pos.side() {
        Player::One => high_white >= 1 || low_black >= 2,
        Player::Two => low_black >= 1 || high_white >= 2,
    }
}

/// Whether the position is separated (see [`race_sides`]).
pub fn is_separated(pos: &Halma) -> bool {
    race_sides(pos).is_some()
}

/// An admissible lower bound on the plays `pieces` (black's frame, 19 pieces)
/// need to fill the goal: see the module documentation.
#[inline]
pub fn lower_bound(pieces: Bitboard) -> u32 {
    bound_with(pieces, Counts::of(pieces))
}

/// [`lower_bound`] with the piece counts already known.
#[inline]
fn bound_with(pieces: Bitboard, counts: Counts) -> u32 {
    bound_within(pieces, counts, u32::MAX - 1, || Packing::new().plays(pieces))
}

/// [`bound_with`] as far as a node with `room` plays left needs it: the
/// same value when that is at most `room`, else some lower bound above
/// `room`. The isolation packing, the dearest term, is left out when the
/// other terms already exceed `room`, or when one far lone piece (at
/// least 1 isolation play) does; `isolation` gives it (the packing's
/// count of `pieces`) only where it is needed.
#[inline]
fn bound_within(pieces: Bitboard, counts: Counts, room: u32, isolation: impl FnOnce() -> u32) -> u32 {
    let front = max_level(pieces) as usize;
    let mut best = 0;
    if front + 2 < TOP {
        for t in GOAL_LOW..=TOP {
            let have = (pieces & GOAL & LEVEL_GE[t]).count();
            let deficit = GOAL_AT_LEAST[t].saturating_sub(have);
            if deficit == 0 {
                continue;
            }
            // Plays before any piece can land at level >= t.
            let approach = (t.saturating_sub(2 + front)).div_ceil(2) as u32;
            best = best.max(approach + deficit);
        }
    } else {
        // No approach term: the deepest deficit is the whole goal's.
        best = GOAL_AT_LEAST[GOAL_LOW].saturating_sub(counts.in_goal);
    }
    // Plays ending outside the goal (band, isolation) and plays inside it
    // (the goal database) are different plays, so their counts add.
    let band = band_plays(pieces);
    let inside_plays = goal_db::goal_plays(goal_db::table(), pieces);
    let parity = counts.parity();
    let cheap = best.max(counts.outside + (band + inside_plays).max(parity));
    if cheap > room {
        return cheap;
    }
    // A piece at least 2 from the goal with no piece next to it is a unit
    // of value `m >= 2`, and the packing always takes its first unit.
    let one_isolated = counts.outside + 1 + inside_plays;
    if one_isolated > room && !(pieces & GOAL_DIST_GE[2] & !pieces.neighbours()).is_empty() {
        return cheap.max(one_isolated);
    }
    let outside_plays = band.max(isolation());
    let wasted = (outside_plays + inside_plays).max(parity);
    best.max(counts.outside + wasted)
}

/// The piece counts of the bound that a play changes by at most one each,
/// so the search keeps them up to date instead of counting bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counts {
    /// Pieces outside the goal.
    outside: u32,
    /// Pieces in the goal.
    in_goal: u32,
    /// Pieces in each parity class ([`class_of`]).
    class: [u32; 4],
    /// Outsiders on [`GOAL_EDGE`] in each parity class.
    edge: [u32; 4],
}

/// Parity class of a cell, `x % 2 + 2 * (y % 2)`: a hop keeps a piece in
/// its class, only a step changes it.
#[inline]
const fn class_of(c: u8) -> usize {
    (c % 2 + 2 * (c / 16 % 2)) as usize
}

impl Counts {
    fn of(pieces: Bitboard) -> Counts {
        let mut k = Counts {
            outside: 0,
            in_goal: 0,
            class: [0; 4],
            edge: [0; 4],
        };
        for c in pieces.iter() {
            k.add(c, 1);
        }
        k
    }

    #[inline]
    fn add(&mut self, c: u8, n: u32) {
        // One table load and masks instead of two set lookups and branches
        // (this runs for every generated play).
        let kind = CELL_KIND[c as usize];
        let k = usize::from(kind & 3);
        self.class[k] = self.class[k].wrapping_add(n);
        let goal = 0u32.wrapping_sub(u32::from(kind >> 2 & 1));
        self.in_goal = self.in_goal.wrapping_add(n & goal);
        self.outside = self.outside.wrapping_add(n & !goal);
        let edge = 0u32.wrapping_sub(u32::from(kind >> 3 & 1));
        self.edge[k] = self.edge[k].wrapping_add(n & edge);
    }

    /// The counts after `mv`.
    #[inline]
    fn after(mut self, mv: HMove) -> Counts {
        self.add(mv.from, u32::MAX);
        self.add(mv.to, 1);
        self
    }

    /// Plays that bring no piece into the goal, forced by parity: a piece
    /// whose goal cell lies in another parity class than its own must make
    /// a step. With `P` pieces of a class and `G` goal cells of it, at
    /// least `P - G` of them end in another class. Such a piece makes a
    /// play that brings none into the goal (an outsider's second play, or
    /// any play of a piece already in the goal), unless its one play is a
    /// step into the goal from next to it, which only the outsiders on
    /// [`GOAL_EDGE`] can make. The pieces differ, so their plays do.
    #[inline]
    fn parity(&self) -> u32 {
        let mut plays = 0;
        for ((&n, &goal), &edge) in self.class.iter().zip(&GOAL_CLASS).zip(&self.edge) {
            plays += n.saturating_sub(goal).saturating_sub(edge);
        }
        plays
    }
}

/// [`Counts::parity`] of `pieces`.
#[cfg(test)]
fn parity_plays(pieces: Bitboard) -> u32 {
    Counts::of(pieces).parity()
}

const fn build_goal_class_counts() -> [u32; 4] {
    let mut t = [0u32; 4];
    let mut c = 0;
    while c < CELLS {
        if GOAL.has(c as u8) {
            t[c % 2 + 2 * (c / 16 % 2)] += 1;
        }
        c += 1;
    }
    t
}

/// Goal cells in each parity class.
const GOAL_CLASS: [u32; 4] = build_goal_class_counts();

/// Cells outside the goal next to a goal cell: the only cells from which a
/// step enters the goal.
const GOAL_EDGE: Bitboard = {
    let neighbours = ball(1);
    let mut b = Bitboard([0; 4]);
    let mut c = 0;
    while c < CELLS {
        let n = neighbours[c];
        if !GOAL.has(c as u8)
            && (n.0[0] & GOAL.0[0] | n.0[1] & GOAL.0[1] | n.0[2] & GOAL.0[2] | n.0[3] & GOAL.0[3]) != 0
        {
            b.0[c / 64] |= 1u64 << (c % 64);
        }
        c += 1;
    }
    b
};


/// Per cell: its parity class ([`class_of`]), plus 4 when in the goal,
/// plus 8 when on [`GOAL_EDGE`].
static CELL_KIND: [u8; CELLS] = {
    let mut t = [0u8; CELLS];
    let mut c = 0;
    while c < CELLS {
        let mut kind = class_of(c as u8) as u8;
        if GOAL.has(c as u8) {
            kind += 4;
        }
        if GOAL_EDGE.has(c as u8) {
            kind += 8;
        }
        t[c] = kind;
        c += 1;
    }
    t
};

const fn build_goal_dist() -> [u8; CELLS] {
    let mut t = [0u8; CELLS];
    let mut c = 0;
    while c < CELLS {
        let mut best = 255;
        let mut g = 0;
        while g < CELLS {
            if GOAL.has(g as u8) {
                let dx = (c % 16).abs_diff(g % 16);
                let dy = (c / 16).abs_diff(g / 16);
                let d = if dx > dy { dx } else { dy };
                if d < best {
                    best = d;
                }
            }
            g += 1;
        }
        t[c] = best as u8;
        c += 1;
    }
    t
}

/// Chebyshev distance from each cell to the nearest goal cell.
static GOAL_DIST: [u8; CELLS] = build_goal_dist();

const fn build_goal_dist_ge() -> [Bitboard; 16] {
    let dist = build_goal_dist();
    let mut t = [Bitboard([0; 4]); 16];
    let mut d = 0;
    while d < 16 {
        let mut c = 0;
        while c < CELLS {
            if dist[c] as usize >= d {
                t[d].0[c / 64] |= 1u64 << (c % 64);
            }
            c += 1;
        }
        d += 1;
    }
    t
}

/// `GOAL_DIST_GE[d]`: the cells at Chebyshev distance `>= d` from the goal
/// (no cell is 16 away).
static GOAL_DIST_GE: [Bitboard; 16] = build_goal_dist_ge();

/// The isolation plays of `pieces` ([`pack_isolation`]).
#[cfg(test)]
fn isolation_plays(pieces: Bitboard) -> u32 {
    pack_isolation(pieces, &mut arrayvec::ArrayVec::new())
}

/// A node's isolation packing ([`pack_isolation`]), computed at most once
/// for both the static bound and the stuck zones of a tight node; its
/// count may come from the [`OutsideMemo`] without the units.
struct Packing {
    plays: Option<u32>,
    units: Option<arrayvec::ArrayVec<(Bitboard, u32), 19>>,
}

impl Packing {
    #[inline]
    fn new() -> Packing {
        Packing { plays: None, units: None }
    }

    /// The isolation plays of `pieces` (always the same position).
    #[inline]
    fn plays(&mut self, pieces: Bitboard) -> u32 {
        match self.plays {
            Some(p) => p,
            None => {
                self.compute(pieces);
                self.plays.unwrap_or(0)
            }
        }
    }

    /// The packed units of `pieces` and their values.
    #[inline]
    fn units(&mut self, pieces: Bitboard) -> &[(Bitboard, u32)] {
        if self.units.is_none() {
            self.compute(pieces);
        }
        self.units.as_deref().unwrap_or(&[])
    }

    fn compute(&mut self, pieces: Bitboard) {
        let mut units = arrayvec::ArrayVec::new();
        self.plays = Some(pack_isolation(pieces, &mut units));
        self.units = Some(units);
    }
}

/// What the bound knows of a set of outsiders whatever the goal holds: the
/// isolation packing's count, the isolated-and-stuck count over
/// [`Stuck::find`] (every goal cell is a stone and a landing cell, so the
/// pieces in the goal play no part) and the stuck plays ([`stuck_ops`]).
/// Plays inside the goal leave the outsiders as they are, and the search
/// meets the same outsiders again under many goal patterns: in a hard
/// 8-outsider race, the packing was computed 24 times per distinct set.
#[derive(Clone, Copy)]
struct OutsideEntry {
    /// A 64-bit hash of the outsiders (the transposition table's standard:
    /// a 16-byte entry keeps the memo within the core's cache).
    key: u64,
    /// The solve that stored it (the region is part of the answers).
    generation: u8,
    /// [`pack_isolation`]'s count, [`UNKNOWN`] if not yet computed.
    pack: u8,
    /// [`isolated_and_stuck_with`] over [`Stuck::find`], or [`UNKNOWN`].
    isolated: u8,
    /// A lower bound on [`stuck_ops`] found with cap `ops_cap` (0: none):
    /// below the cap it is the uncapped count, at the cap a lower bound
    /// for every cap up to it.
    ops: u8,
    ops_cap: u8,
}

/// An [`OutsideEntry`] field not yet computed.
const UNKNOWN: u8 = u8::MAX;

/// A count as an [`OutsideEntry`] field (never [`UNKNOWN`]).
#[inline]
fn known_count(v: u32) -> u8 {
    v.min(u32::from(UNKNOWN) - 1) as u8
}

impl OutsideEntry {
    /// The isolation packing's count of `pieces` (these outsiders): the
    /// entry's, handed to `packing`, or `packing`'s, kept in the entry.
    #[inline]
    fn packing_plays(&mut self, pieces: Bitboard, packing: &mut Packing) -> u32 {
        if self.pack != UNKNOWN && packing.plays.is_none() {
            packing.plays = Some(u32::from(self.pack));
        }
        let plays = packing.plays(pieces);
        self.pack = known_count(plays);
        plays
    }
}

/// Most entries of an [`OutsideMemo`] (log2): 512 KiB.
const OUTSIDE_MEMO_LOG2: u32 = 15;

/// A direct-mapped table of [`OutsideEntry`], keyed by the outsiders.
struct OutsideMemo {
    entries: Vec<OutsideEntry>,
    /// `64 - log2` of the entries: the key's top bits index them.
    shift: u32,
}

impl OutsideMemo {
    /// A memo of `2^log2` entries.
    fn new(log2: u32) -> OutsideMemo {
        let empty = OutsideEntry {
            key: 0,
            generation: 0,
            pack: UNKNOWN,
            isolated: UNKNOWN,
            ops: 0,
            ops_cap: 0,
        };
        OutsideMemo {
            entries: vec![empty; 1 << log2],
            shift: 64 - log2,
        }
    }

    /// [`bound_within`] of `pieces`, with the isolation packing's count
    /// from the memo or kept there.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn bound(&mut self, pieces: Bitboard, okey: u64, counts: Counts, room: u32, generation: u8, packing: &mut Packing) -> u32 {
        bound_within(pieces, counts, room, || self.entry(okey, generation).packing_plays(pieces, packing))
    }

    /// The entry of the outsiders whose [`outside_key`] is `key` in this
    /// solve, emptied if it held another.
    #[inline]
    fn entry(&mut self, key: u64, generation: u8) -> &mut OutsideEntry {
        let e = &mut self.entries[(key >> self.shift) as usize];
        if e.key != key || e.generation != generation {
            *e = OutsideEntry {
                key,
                generation,
                pack: UNKNOWN,
                isolated: UNKNOWN,
                ops: 0,
                ops_cap: 0,
            };
        }
        e
    }
}

/// Plays that must end outside the goal because outsiders are isolated.
///
/// For an outsider `p` let `m_p` be the smaller of its distance to the
/// nearest other piece and to the goal. `p` can only enter the goal by a
/// step from next to it or by a chain, which needs a piece next to it, so
/// `m_p` must fall to 1. A step of `p` lowers `m_p` by at most 1; so does
/// any other play: its piece lands next to a piece it jumped (or one step
/// from where it was), so at most 1 closer to `p` than the nearest piece
/// was. A play that lowers `m_p` ends closer to `p` than the goal is, so
/// outside the goal (or it is `p`'s own step into the goal, once `m_p` is 1).
/// So `p` forces `m_p - 1` such plays.
///
/// The same for a group: a set `S` of two or more outsiders, each within 2
/// of another (a hop's reach), at distance `m_S >= 3` from every other
/// piece and from the goal forces `m_S - 2`. Inside the group a chain may
/// go on for several hops, but each hop lands next to a member, so no more
/// than 1 closer than the members were; a chain cannot reach an outside
/// piece while `m_S >= 3`; every other play lands next to a piece it jumped
/// or one step from its start, so at most 1 closer to `S`. Only once `m_S`
/// is 2 may one play carry a member into the goal.
///
/// Such units (a lone piece, cost `c` = 1, or a group, `c` = 2) add up when
/// far enough apart: take units with values `c + 1 <= k_U <= m_U`, every
/// two more than `k_U + k_V - 2` apart; then `sum (k_U - c_U)` plays end
/// outside the goal. A play lowers some `m_V` below `k_V` only if it lands
/// within `k_V - 1` of `V`, which no landing cell is for two units at once;
/// a member of `U` lands within 1 of `U`'s cells, so at least `k_V` from
/// any other unit `V`, and with `k_U` lowered by one the condition still
/// holds. So each play lowers the sum by at most 1, and only a play ending
/// outside the goal (a landing in the goal is at least `m_V` from `V`).
/// The units are packed greedily, the largest first.
///
/// Returns the plays, with the packed units and their values `k_U` left
/// in `packed`.
#[inline]
fn pack_isolation(pieces: Bitboard, packed: &mut arrayvec::ArrayVec<(Bitboard, u32), 19>) -> u32 {
    // (cells, m, c) of each candidate unit. Pieces in the goal lie at least
    // the goal's distance away, so only the other outsiders are measured.
    let mut units = arrayvec::ArrayVec::<(Bitboard, u32, u32), 19>::new();
    let outside = pieces & !GOAL;
    // A piece next to another has `m` = 1 and adds nothing: one set
    // operation leaves out most pieces.
    let mut far = pieces & GOAL_DIST_GE[2] & !pieces.neighbours();
    while let Some(p) = far.pop() {
        let single = Bitboard::single(p);
        let m = set_distance(single, outside & !single).min(u32::from(GOAL_DIST[p as usize]));
        units.push((single, m, 1));
    }
    // Groups need every member 3 from the goal, and two such outsiders.
    let mut left = outside & GOAL_DIST_GE[3];
    if left.count() >= 2 {
        while let Some(p) = left.pop() {
            // The outsiders within 2 of each other, by a flood over BALL2.
            let mut group = Bitboard::single(p);
            let mut todo = group;
            while let Some(c) = todo.pop() {
                let new = BALL2[c as usize] & outside & !group;
                group |= new;
                todo |= new;
            }
            left &= !group;
            if group.count() < 2 {
                continue;
            }
            let g = group.iter().map(|c| u32::from(GOAL_DIST[c as usize])).min().unwrap_or(0);
            if g >= 3 {
                // Every other outsider is at least 3 away (the group is
                // closed under 2), so `m >= 3`.
                let m = set_distance(group, outside & !group).min(g);
                units.push((group, m, 2));
            }
        }
    }
    units.sort_unstable_by_key(|&(_, m, c)| std::cmp::Reverse(m - c));
    let mut plays = 0;
    for &(u, m, c) in &units {
        let mut k = m as i32;
        for &(v, kv) in packed.iter() {
            k = k.min(set_distance(u, v) as i32 + 1 - kv as i32);
        }
        if k > c as i32 {
            packed.push((u, k as u32));
            plays += k as u32 - c;
        }
    }
    plays
}

/// `BALL2[c]`: the cells within 2 of `c` (a hop's reach), `c` left out.
static BALL2: [Bitboard; CELLS] = ball(2);

/// Chebyshev distance between two sets of cells (a king's steps).
#[inline]
fn set_distance(a: Bitboard, b: Bitboard) -> u32 {
    let mut best = u32::MAX;
    for p in a.iter() {
        for q in b.iter() {
            best = best.min(chebyshev(p, q));
        }
    }
    best
}

/// Chebyshev distance between two cells.
#[inline]
fn chebyshev(a: u8, b: u8) -> u32 {
    let dx = (a % 16).abs_diff(b % 16);
    let dy = (a / 16).abs_diff(b / 16);
    u32::from(dx.max(dy))
}

/// `b` and the cells next to it (fewer shifts than
/// [`Bitboard::neighbours`]: along the rows, then along the columns).
#[inline]
fn grow1(b: Bitboard) -> Bitboard {
    let h = b | b.step(0) | b.step(1);
    h | h.shift_up(16) | h.shift_down(16)
}

/// Plays that must end outside the goal: one for each run of 4 empty levels
/// (no piece at all) between the rearmost outsider and the goal. No play
/// crosses such a band: a step gains 2 levels, and a hop from below it goes
/// over a piece below it, so lands at most 2 levels past that piece, inside
/// the band, from where the only pieces in reach are below it again. So
/// some play ends inside each band (a different play for each), and such a
/// play brings no piece into the goal, while each outsider needs a play that
/// does.
#[inline]
fn band_plays(pieces: Bitboard) -> u32 {
    let outside = pieces & !GOAL;
    if outside.is_empty() {
        return 0;
    }
    let rear = min_level(outside) as usize;
    // A band needs four levels between the rear and the goal.
    if rear + 4 >= GOAL_LOW {
        return 0;
    }
    // The empty levels between, scanned from the rear: each time four in
    // a row are found, one band, and the scan goes on after it.
    let mut empty = !occupied_levels(pieces) & ((1 << GOAL_LOW) - (2 << rear));
    let mut bands = 0;
    loop {
        let starts = empty & (empty >> 1) & (empty >> 2) & (empty >> 3);
        if starts == 0 {
            return bands;
        }
        bands += 1;
        empty &= !((16 << starts.trailing_zeros()) - 1);
    }
}

/// Bit `l` set when some cell of `b` lies at level `l`: row `y`'s bits
/// (bit `x` for column `x`) shifted by `y`, sixteen shifts for any number
/// of pieces.
#[inline]
fn occupied_levels(b: Bitboard) -> u32 {
    let mut levels = 0u32;
    for (i, &w) in b.0.iter().enumerate() {
        for r in 0..4 {
            levels |= (((w >> (16 * r)) & 0xFFFF) as u32) << (4 * i + r);
        }
    }
    levels
}

/// The result of a solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The exact minimum number of plays, and the first play of a shortest
    /// finish (in black's frame; `None` when already finished).
    Exact {
        /// Minimum plays.
        plays: u32,
        /// First play of a shortest finish.
        first: Option<HMove>,
    },
    /// The budget ran out: the minimum is at least this.
    AtLeast(u32),
}

impl Finish {
    /// The proven lower bound (the exact value when solved).
    pub fn bound(self) -> u32 {
        match self {
            Finish::Exact { plays, .. } => plays,
            Finish::AtLeast(b) => b,
        }
    }
}

/// When a solve gives up.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Process CPU time (seconds, [`process_cpu_seconds`]) to stop at.
    pub deadline: f64,
    /// Node cap.
    pub max_nodes: u64,
}

impl Budget {
    /// `seconds` of CPU from now, no node cap.
    pub fn seconds(seconds: f64) -> Budget {
        Budget {
            deadline: process_cpu_seconds() + seconds,
            max_nodes: u64::MAX,
        }
    }
}

/// Longest solution the solver looks for (plays).
const MAX_PLIES: usize = 96;
/// Plays stored per ply: 19 pieces, each with at most the whole board.
const MOVE_CAP: usize = 19 * 64;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    bound: u8,
    /// The solve that stored it ([`Solver::generation`]): entries of
    /// earlier solves count as empty, so a solve need not clear the table.
    generation: u8,
    /// Nodes the search of this entry's subtree took: of the two entries
    /// of a bucket, the cheaper to recompute is replaced.
    work: u32,
}

/// Why a depth-first pass stopped.
enum Pass {
    /// A finish within the threshold: its length.
    Found,
    /// No finish within the threshold; the node's distance is at least this.
    Bound(u32),
    /// Out of budget.
    Abort,
}

/// The single-agent race solver (IDA* with a transposition table). Create it
/// once and reuse it: solving allocates nothing.
pub struct Solver {
    table: Vec<Entry>,
    mask: usize,
    moves: Vec<(i16, HMove)>,
    path: [HMove; MAX_PLIES],
    nodes: u64,
    budget: Budget,
    next_check: u64,
    found_len: u32,
    expanded: u64,
    /// Stamp of the current solve's table entries (never 0 during a solve).
    generation: u8,
    /// Whether tight nodes use [`isolated_and_stuck`] (the tests turn it off
    /// for a reference solver without it).
    zones: bool,
    /// The memo of [`stuck_ops`], `None` for a reference solver without
    /// the third stuck play and the stuck plays before the holes (tests).
    memo: Option<OpsMemo>,
    /// What the bound knows of each set of outsiders met in this solve.
    outside_memo: OutsideMemo,
}

impl Solver {
    /// A solver with a table of `2^log2_entries` entries (16 bytes each).
    pub fn new(log2_entries: u32) -> Solver {
        // The goal database is built once per process (about 0.2 s), here
        // rather than inside the first timed solve.
        let _ = goal_db::table();
        let n = 1usize << log2_entries;
        Solver {
            table: vec![Entry::default(); n],
            mask: n - 1,
            moves: vec![(0, HMove::new(0, 0)); MAX_PLIES * MOVE_CAP],
            path: [HMove::new(0, 0); MAX_PLIES],
            nodes: 0,
            budget: Budget {
                deadline: f64::INFINITY,
                max_nodes: u64::MAX,
            },
            next_check: 0,
            found_len: 0,
            expanded: 0,
            generation: 0,
            zones: true,
            memo: Some(OpsMemo::new()),
            // An eighth of the table's entries (the leaf solver's is small).
            outside_memo: OutsideMemo::new(log2_entries.saturating_sub(3).clamp(8, OUTSIDE_MEMO_LOG2)),
        }
    }

    /// Nodes visited by the last solve.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Nodes whose plays the last solve generated (the others were cut by
    /// their bound).
    pub fn expanded(&self) -> u64 {
        self.expanded
    }

    /// The minimum number of plays for `side` to fill its goal with region
    /// plays, within `budget`.
    pub fn solve(&mut self, side: &RaceSide, budget: Budget) -> Finish {
        // A new generation instead of clearing the table (16 MiB at most,
        // a few milliseconds, most of a short solve); cleared only when the
        // counter wraps, as 0 is the empty table's.
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.table.iter_mut().for_each(|e| *e = Entry::default());
            self.generation = 1;
        }
        self.nodes = 0;
        self.expanded = 0;
        self.budget = budget;
        self.next_check = 0;
        let pieces = side.pieces;
        if (pieces & GOAL) == GOAL {
            return Finish::Exact { plays: 0, first: None };
        }
        let region = LEVEL_GE[side.floor.min(TOP as u32) as usize] & !CAMP[Player::One];
        let key = pieces.iter().fold(0u64, |k, c| k ^ KEYS[c as usize]);
        let okey = pieces.iter().fold(0u64, |k, c| k ^ outside_key(c));
        let mut threshold = lower_bound(pieces);
        loop {
            if threshold as usize >= MAX_PLIES {
                return Finish::AtLeast(threshold);
            }
            match self.dfs(pieces, key, okey, Counts::of(pieces), region, 0, threshold, None) {
                Pass::Found => {
                    return Finish::Exact {
                        plays: self.found_len,
                        first: Some(self.path[0]),
                    }
                }
                Pass::Bound(b) => threshold = b.max(threshold + 1),
                Pass::Abort => return Finish::AtLeast(threshold),
            }
        }
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.budget.max_nodes {
            return true;
        }
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + 1024;
            return process_cpu_seconds() >= self.budget.deadline;
        }
        false
    }

    /// One depth-first pass below a node `g` plays from the root; `known`
    /// is its static bound when the parent computed it.
    #[allow(clippy::too_many_arguments)]
    fn dfs(
        &mut self,
        pieces: Bitboard,
        key: u64,
        okey: u64,
        counts: Counts,
        region: Bitboard,
        g: u32,
        threshold: u32,
        known: Option<u32>,
    ) -> Pass {
        self.nodes += 1;
        if self.out_of_budget() {
            return Pass::Abort;
        }
        if (pieces & GOAL) == GOAL {
            self.found_len = g;
            return Pass::Found;
        }
        // A stored bound is never below the static one (it was the static
        // bound or more when stored), so a hit spares computing the latter.
        let mut packing = Packing::new();
        let h = match (self.probe(key), known) {
            (Some(bound), _) => bound,
            (None, Some(h)) => h,
            (None, None) => self.outside_memo.bound(pieces, okey, counts, threshold - g, self.generation, &mut packing),
        };
        if g + h > threshold {
            return Pass::Bound(h);
        }
        self.expanded += 1;
        let start_nodes = self.nodes;
        let ply = g as usize;
        // Every play that brings no piece into the goal leaves all the
        // outsiders out, so its child needs at least `outside` more plays:
        // with no slack beyond them only entering plays can finish in time,
        // and the others count as `outside + 1` towards this node's bound.
        let outside = counts.outside;
        let entering_only = g + 1 + outside > threshold;
        if let Some(bound) = self.tight(pieces, okey, region, outside, threshold - g, &mut packing) {
            let bound = h.max(bound);
            self.store(key, bound, 1);
            return Pass::Bound(bound);
        }
        let mut best = if entering_only { outside + 1 } else { u32::MAX };
        let pattern = goal_db::pattern(pieces);
        let goal_table = goal_db::table();
        // An outsider's play that does not enter leaves the goal's pattern
        // as it is, so its child needs `outside + inside` plays or more:
        // with no room for that, outsiders only enter (the plays left out
        // count as `outside + inside + 1` towards this node's bound).
        let inside_now = u32::from(goal_table[pattern as usize]);
        let outsiders_enter = entering_only || g + 1 + outside + inside_now > threshold;
        if outsiders_enter {
            best = best.min(outside + inside_now + 1);
        }
        let n = generate_with(
            pieces,
            region,
            !entering_only,
            outsiders_enter,
            &mut self.moves[ply * MOVE_CAP..(ply + 1) * MOVE_CAP],
        );
        let kept = self.bound_children(pieces, key, okey, counts, ply, n, threshold - g - 1, pattern, &mut best);
        let list = &mut self.moves[ply * MOVE_CAP..ply * MOVE_CAP + kept];
        // A finish is usually found among the first tries: the children
        // with the most slack under the threshold first (IDA*'s usual
        // order), and of those the play that gains the most.
        list.sort_unstable_by_key(|&(k, _)| std::cmp::Reverse(k));
        for i in 0..kept {
            let (k, mv) = self.moves[ply * MOVE_CAP + i];
            let ch = 63 - u32::from(k as u16 >> 9);
            let known = (ch < 63).then_some(ch);
            // The next sibling's slot too: a small subtree leaves it cached.
            if i + 1 < kept {
                let (_, next) = self.moves[ply * MOVE_CAP + i + 1];
                let nkey = key ^ KEYS[next.from as usize] ^ KEYS[next.to as usize];
                prefetch(&self.table[nkey as usize & self.mask & !1]);
            }
            let mut child = pieces;
            child.clear(mv.from);
            child.set(mv.to);
            let ccounts = counts.after(mv);
            let ckey = key ^ KEYS[mv.from as usize] ^ KEYS[mv.to as usize];
            let cokey = okey ^ outside_key(mv.from) ^ outside_key(mv.to);
            match self.dfs(child, ckey, cokey, ccounts, region, g + 1, threshold, known) {
                Pass::Found => {
                    self.path[ply] = mv;
                    return Pass::Found;
                }
                Pass::Bound(b) => best = best.min(b.saturating_add(1)),
                Pass::Abort => return Pass::Abort,
            }
        }
        let bound = best.max(h);
        self.store(key, bound, self.nodes - start_nodes);
        Pass::Bound(bound)
    }

    /// [`tight_bound`] with the solver's memos.
    #[inline]
    fn tight(&mut self, pieces: Bitboard, okey: u64, region: Bitboard, outside: u32, room: u32, packing: &mut Packing) -> Option<u32> {
        let memo = self.memo.as_mut();
        tight_bound(pieces, region, outside, room, self.zones, packing, memo, &mut self.outside_memo, okey, self.generation)
    }

    /// Bounds the `n` children in the move list of `ply` with `room` plays
    /// left after the play, and keeps those that fit, first in the list,
    /// with their bound in the ordering key's high bits; the least bound
    /// plus one of the others goes into `best`. Returns how many are kept.
    ///
    /// The cheap part of each child's bound first (outsiders, then parity
    /// or the goal database: a play changes the goal's pattern by at most
    /// two bits), then the whole static bound, here rather than in the
    /// child: most children fail it, and a child visited costs a table
    /// probe that misses the cache. A stored bound is never below it, so a
    /// child that fails it fails whatever the table holds. The survivors'
    /// table slots are fetched now, well before their probes.
    #[allow(clippy::too_many_arguments)]
    fn bound_children(
        &mut self,
        pieces: Bitboard,
        key: u64,
        okey: u64,
        counts: Counts,
        ply: usize,
        n: usize,
        room: u32,
        pattern: u32,
        best: &mut u32,
    ) -> usize {
        let goal_table = goal_db::table();
        let list = &mut self.moves[ply * MOVE_CAP..ply * MOVE_CAP + n];
        let mut kept = 0;
        for i in 0..n {
            let (k, mv) = list[i];
            let ccounts = counts.after(mv);
            let cpattern = pattern ^ goal_db::BIT[mv.from as usize] ^ goal_db::BIT[mv.to as usize];
            let inside = u32::from(goal_table[cpattern as usize]);
            let quick = ccounts.outside + ccounts.parity().max(inside);
            if quick > room {
                *best = (*best).min(quick + 1);
                continue;
            }
            let mut child = pieces;
            child.clear(mv.from);
            child.set(mv.to);
            let cokey = okey ^ outside_key(mv.from) ^ outside_key(mv.to);
            let ch = self.outside_memo.bound(child, cokey, ccounts, room, self.generation, &mut Packing::new());
            if ch > room {
                *best = (*best).min(ch + 1);
                continue;
            }
            let ckey = key ^ KEYS[mv.from as usize] ^ KEYS[mv.to as usize];
            prefetch(&self.table[ckey as usize & self.mask & !1]);
            // The least bound first, then the most progress: the bound
            // (6 bits; a larger one is computed again in the child) above
            // the progress (9 bits, -256..=255).
            list[kept] = ((63 - ch.min(63) as i16) * 512 + k + 256, mv);
            kept += 1;
        }
        kept
    }

    /// The stored bound of `key`, if its bucket (two neighbouring entries,
    /// one cache line) holds it.
    #[inline]
    fn probe(&self, key: u64) -> Option<u32> {
        let slot = key as usize & self.mask & !1;
        let bucket = &self.table[slot..slot + 2];
        let generation = self.generation;
        bucket
            .iter()
            .find(|e| e.key == key && e.generation == generation)
            .map(|e| u32::from(e.bound))
    }

    /// Stores `bound` for `key` after a search of `work` nodes: over its own
    /// entry, else over the bucket's entry that took less work.
    #[inline]
    fn store(&mut self, key: u64, bound: u32, work: u64) {
        let slot = key as usize & self.mask & !1;
        let generation = self.generation;
        let bucket = &mut self.table[slot..slot + 2];
        // An entry of an earlier solve is an empty one: key 0, no work.
        let live = |e: &Entry| e.generation == generation;
        let key_of = |e: &Entry| if live(e) { e.key } else { 0 };
        let work_of = |e: &Entry| if live(e) { e.work } else { 0 };
        let i = if key_of(&bucket[0]) == key {
            0
        } else if key_of(&bucket[1]) == key || work_of(&bucket[1]) < work_of(&bucket[0]) {
            1
        } else {
            0
        };
        bucket[i] = Entry {
            key,
            bound: bound.min(255) as u8,
            generation,
            work: work.min(u64::from(u32::MAX)) as u32,
        };
    }
}

/// Grows `reached` (cells a moving piece can stand on) from `frontier` by
/// hops over `over` landing on `land`; stops early, with `true`, once a
/// cell of `stop` is reached. The mover's start must not be in `over`.
#[inline]
fn chain_flood(mut reached: Bitboard, mut frontier: Bitboard, over: Bitboard, land: Bitboard, stop: Bitboard) -> (Bitboard, bool) {
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

/// The stuck outsiders of a position (see [`stuck_plays`]), found once for
/// the arguments that use them.
struct Stuck {
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
    stuck: arrayvec::ArrayVec<(u8, Bitboard), 19>,
}

impl Stuck {
    /// Stuck as in [`stuck_plays`]: no play reaches a goal cell, with every
    /// goal cell a stone and a landing cell (the pieces in the goal may
    /// move).
    fn find(pieces: Bitboard, region: Bitboard) -> Self {
        Stuck::find_to(pieces, region | GOAL, GOAL)
    }

    /// Stuck for a finish whose pieces in the goal never move: no play
    /// reaches a hole, the goal's pieces being stones that are never
    /// vacated (no landing cells) and the holes stones and landing cells
    /// (filled or not by then). Entering plays only fill holes and take
    /// stones away outside the goal, so with no play inside the goal the
    /// argument of [`stuck_plays`] holds as it is.
    fn find_holes(pieces: Bitboard, region: Bitboard) -> Self {
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
fn stuck_plays(found: &Stuck) -> u32 {
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
const THREE_PIECES: usize = 8;

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
fn stuck_ops(found: &Stuck, touched: &mut Bitboard, cap: u32) -> u32 {
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
struct OpsMemo {
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
    fn new() -> OpsMemo {
        OpsMemo {
            entries: vec![OpsEntry::default(); 1 << OPS_MEMO_LOG2],
            next: 0,
        }
    }

    /// The key of `found`'s stuck pieces, landing cells and target: with
    /// the stones, they decide the answer.
    fn key(found: &Stuck) -> u64 {
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
    fn lookup(&self, found: &Stuck, key: u64, cap: u32) -> Option<u32> {
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
    fn ops(&mut self, found: &Stuck, cap: u32) -> u32 {
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
fn all_can_enter(pieces: Bitboard, region: Bitboard) -> bool {
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
fn holes_matched(pieces: Bitboard, region: Bitboard) -> bool {
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
fn isolated_and_stuck(pieces: Bitboard, found: &Stuck) -> u32 {
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
/// goal ([`stuck_ops`], memoised), and where no play inside the
/// goal is needed and the stuck plays fill the room, one more when the
/// outsiders that cannot reach a hole need more ([`Stuck::find_holes`]):
/// a finish then either plays inside the goal once or more, or never, and
/// never means that the goal's pieces stay as stones and only the holes
/// are entries. With no room beyond the outsiders', the necessary
/// conditions of a finish in one play per outsider.
#[allow(clippy::too_many_arguments)]
fn tight_bound(
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
        // the nodes it saved (docs/results.md).
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

/// Asks for the cache line of `entry` ahead of its use (a hint; nothing
/// where the target has no such instruction).
#[inline(always)]
fn prefetch(entry: &Entry) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache and never faults; the
    // pointer comes from a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((entry as *const Entry).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = entry;
}

/// Writes the region plays of `pieces` (black's frame) into `out` with an
/// ordering key (level gained, plus a bonus for entering the goal); returns
/// how many. Narrow reading: a piece in the goal keeps every hop inside it.
/// With `entering_only`, only the plays that bring a piece into the goal.
#[cfg(test)]
fn generate(pieces: Bitboard, region: Bitboard, entering_only: bool, out: &mut [(i16, HMove)]) -> usize {
    generate_with(pieces, region, !entering_only, entering_only, out)
}

/// [`generate`]: the plays of the pieces in the goal only with
/// `goal_moves`, and only the outsiders' entering plays with
/// `outsiders_enter`.
fn generate_with(
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

/// The race seen from the side to move of a separated position, when both
/// finishing counts are known exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceResult {
    /// Plays the side to move needs.
    pub mine: u32,
    /// Plays the opponent needs.
    pub theirs: u32,
}

impl RaceResult {
    /// The side to move finishes on its `mine`-th play, before the
    /// opponent's `theirs`-th play iff `mine <= theirs`.
    pub fn side_to_move_wins(self) -> bool {
        self.mine <= self.theirs
    }
}

/// The first play of a shortest finish for the side to move of a separated
/// position, on the real board, with the number of plays it needs; `None`
/// when the position is not separated or the budget runs out.
pub fn best_finish(solver: &mut Solver, pos: &Halma, budget: Budget) -> Option<(HMove, u32)> {
    let sides = race_sides(pos)?;
    let me = pos.side();
    match solver.solve(&sides[me], budget) {
        Finish::Exact { plays, first: Some(m) } => Some((from_frame(me, m), plays)),
        _ => None,
    }
}

/// Share of a move's time the solver may spend before the ordinary search
/// takes over (the search then gets what is left).
const SOLVER_SHARE: f64 = 0.5;
/// Solver time when the limits set none (depth-limited tests and tools).
const UNTIMED_SECONDS: f64 = 1.0;
/// Solver nodes per CPU second, roughly, for sizing its table.
const SOLVER_NPS: f64 = 2e6;

/// Table size (log2 of entries) for a solve of `seconds`: about one entry
/// per node it can visit, between 4 K and 1 M entries (16 MiB).
fn table_log2(seconds: f64) -> u32 {
    let nodes = (seconds * SOLVER_NPS).max(1.0);
    (nodes.log2().ceil() as u32).clamp(12, 20)
}

/// The agent's move in a separated position: the first play of a shortest
/// finish for the side to move, if the solver proves one within a share of
/// the move's time; `None` (the ordinary search decides) when the position
/// is not separated or the solver runs out of time. `on_improve` hears the
/// move as soon as it is proven, so `output.txt` has it at once.
pub fn race_move(pos: &Halma, limits: &Limits, on_improve: &mut dyn FnMut(HMove)) -> Option<HMove> {
    let sides = race_sides(pos)?;
    let me = pos.side();
    let time = limits.soft.min(limits.hard);
    let seconds = if time.is_finite() {
        time.max(0.0) * SOLVER_SHARE
    } else {
        UNTIMED_SECONDS
    };
    let mut solver = Solver::new(table_log2(seconds));
    let r = solver.solve(&sides[me], Budget::seconds(seconds));
    log::debug!("race solver: {r:?} after {} nodes", solver.nodes());
    let Finish::Exact { first: Some(m), .. } = r else {
        return None;
    };
    let m = from_frame(me, m);
    // The solver's rules are a subset of the agent's; a disagreement would be
    // a bug, and the ordinary search is the safe answer to it.
    if !pos.is_legal(m, Reading::Narrow) {
        log::warn!("race solver proposed an illegal play; using the search");
        return None;
    }
    on_improve(m);
    Some(m)
}

/// Score of a won race for the side to move (the search's units, well
/// inside its proven-win range: the race model ignores spoiling by
/// retreat), plus `RACE_PLAY` per play of margin.
pub const RACE_WIN: i32 = 400_000;
/// Score per play of margin in a decided race.
const RACE_PLAY: i32 = 1_000;
/// Nodes a race solve at a search node may take for one side's pieces.
const LEAF_NODES: u64 = 2_000;
/// Most pieces outside the goal for which a search node tries a solve
/// (the bench's median solve needs ~7 K nodes at 4): beyond, the lower bound.
const LEAF_OUTSIDE: u32 = 4;
/// Cached side solves per search (log2).
const LEAF_CACHE_LOG2: u32 = 16;

/// The score of a race for the side to move that needs `mine` plays against
/// the opponent's `theirs`: it wins iff `mine <= theirs` (it moves first).
pub fn race_score(mine: u32, theirs: u32) -> i32 {
    let margin = theirs as i32 - mine as i32;
    if margin >= 0 {
        RACE_WIN + RACE_PLAY * margin
    } else {
        -RACE_WIN + RACE_PLAY * (margin + 1)
    }
}

/// A search's solver and its cache of side solves (key; exact plays + 1,
/// or 0 when the small solve gave up), so that a search meets each side's
/// configuration once.
struct LeafCache {
    solver: Solver,
    keys: Vec<u64>,
    plays: Vec<u8>,
}

/// What one search knows about races: Halma's [`Evaluator::Context`]. Its
/// cache is made at the first separated node a search meets, so searches
/// that never reach a race allocate nothing.
///
/// [`Evaluator::Context`]: crate::search::Evaluator::Context
pub struct RaceContext {
    cache: Option<LeafCache>,
    /// CPU time after which search nodes run no new solves ([`RaceContext::begin`];
    /// minus infinity once passed, so the clock is read no more).
    deadline: f64,
    /// Whether this search's root is separated.
    root_separated: bool,
}

impl Default for RaceContext {
    fn default() -> Self {
        RaceContext {
            cache: None,
            deadline: f64::INFINITY,
            root_separated: false,
        }
    }
}

/// Share of a move's time in which search nodes may run small race solves.
const LEAF_SHARE: f64 = 0.4;

impl RaceContext {
    /// Starts a search of `root` within `limits`: its nodes may run small
    /// race solves for `LEAF_SHARE` of the time and use only cached answers
    /// after that. A node with a solve costs up to a millisecond and the
    /// search reads its clock only every 1,024 nodes, so without this cap a
    /// search in a race overran its time.
    ///
    /// From a separated root the race move has had its exact try, and a
    /// search that goes on scores no race: mixing race scores of the nodes a
    /// small solve settles with the ordinary evaluation of the others steers
    /// it towards the races it cannot solve (in race-bench's lone finishes
    /// the agent then took more plays than without the race value).
    pub fn begin(&mut self, root: &Halma, limits: &Limits) {
        self.root_separated = is_separated(root);
        let time = limits.soft.min(limits.hard);
        self.deadline = if time.is_finite() {
            process_cpu_seconds() + time.max(0.0) * LEAF_SHARE
        } else {
            f64::INFINITY
        };
    }
}

/// The CPU time until which a search node may start a solve, `None` once
/// it has passed (then `deadline` becomes minus infinity, so the clock is
/// read no more). Read only when a solve is due: the clock costs a call.
fn leaf_deadline(deadline: &mut f64) -> Option<f64> {
    let d = *deadline;
    if d == f64::NEG_INFINITY {
        return None;
    }
    if d.is_finite() && process_cpu_seconds() >= d {
        *deadline = f64::NEG_INFINITY;
        return None;
    }
    Some(d)
}

/// What a search node knows about `side`'s race: exact when a small solve
/// (cached) finds it, else the lower bound.
fn leaf_finish(cache: &mut LeafCache, deadline: &mut f64, side: &RaceSide) -> Finish {
    if (side.pieces & !GOAL).count() > LEAF_OUTSIDE {
        return Finish::AtLeast(lower_bound(side.pieces));
    }
    let w = side.pieces.0;
    let key = mix(w[0] ^ mix(w[1] ^ mix(w[2] ^ mix(w[3] ^ u64::from(side.floor)))));
    let slot = key as usize & ((1 << LEAF_CACHE_LOG2) - 1);
    if cache.keys[slot] != key {
        let Some(deadline) = leaf_deadline(deadline) else {
            return Finish::AtLeast(lower_bound(side.pieces));
        };
        let budget = Budget {
            deadline,
            max_nodes: LEAF_NODES,
        };
        cache.keys[slot] = key;
        cache.plays[slot] = match cache.solver.solve(side, budget) {
            Finish::Exact { plays, .. } if plays < 255 => plays as u8 + 1,
            _ => 0,
        };
    }
    match cache.plays[slot] {
        0 => Finish::AtLeast(lower_bound(side.pieces)),
        p => Finish::Exact {
            plays: u32::from(p - 1),
            first: None,
        },
    }
}

/// The race's score when what is known decides it: both counts exact, or
/// one exact and the other's lower bound already enough (the margin then
/// counts the bound).
fn decided(mine: Finish, theirs: Finish) -> Option<i32> {
    match (mine, theirs) {
        (Finish::Exact { plays: m, .. }, t) if m <= t.bound() || matches!(t, Finish::Exact { .. }) => {
            Some(race_score(m, t.bound()))
        }
        (m, Finish::Exact { plays: t, .. }) if m.bound() > t => Some(race_score(m.bound(), t)),
        _ => None,
    }
}

/// The value of a separated position for the side to move when the races
/// decide it ([`race_score`]): each side's count exact from a small solve
/// when few of its pieces are outside the goal, else its lower bound.
/// `None` when not separated or undecided (a difference of two lower bounds
/// is no value, so the search goes on there). The search's exact value: it
/// stops at a decided separation.
pub fn race_value(pos: &Halma, ctx: &mut RaceContext) -> Option<i32> {
    let sides = race_sides(pos)?;
    // A won game is the search's outcome, not a race.
    if pos.has_won(Player::One) || pos.has_won(Player::Two) || ctx.root_separated {
        return None;
    }
    let me = pos.side();
    let RaceContext { cache, deadline, .. } = ctx;
    let cache = cache.get_or_insert_with(|| LeafCache {
        solver: Solver::new(12),
        keys: vec![0; 1 << LEAF_CACHE_LOG2],
        plays: vec![0; 1 << LEAF_CACHE_LOG2],
    });
    let mine = leaf_finish(cache, deadline, &sides[me]);
    let theirs = leaf_finish(cache, deadline, &sides[me.other()]);
    decided(mine, theirs)
}

/// A random race for black (tests and the bench): `outside` pieces on random
/// non-goal cells at levels `lo..=24`, the other pieces on random goal cells.
pub fn random_race(rng: &mut impl Rng, outside: u32, lo: u32) -> Bitboard {
    let goal: Vec<u8> = GOAL.iter().collect();
    let mut b = Bitboard::EMPTY;
    let mut placed = 0;
    while placed < PIECES - outside {
        let c = goal[rng.gen_range(0..goal.len())];
        if !b.has(c) {
            b.set(c);
            placed += 1;
        }
    }
    let mut out = 0;
    while out < outside {
        let c: u8 = rng.gen();
        if !GOAL.has(c) && !b.has(c) && (lo..=24).contains(&level(c)) {
            b.set(c);
            out += 1;
        }
    }
    b
}

#[cfg(test)]
mod tests;

