//! The static admissible bound of a race ([`lower_bound`]): the goal's
//! deficit per level with the front's approach, one play per outsider, and
//! the plays that bring no piece into the goal (bands of empty levels,
//! parity, the goal database's plays inside the goal, and the isolation
//! packing of far outsiders and groups, [`Packing`]).

use super::frame::{GOAL, GOAL_LOW, TOP};
use super::goal_db;
use crate::games::halma::bitboard::{ball, max_level, min_level, Bitboard, CELLS, LEVEL_GE};
use crate::games::halma::HMove;

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

/// An admissible lower bound on the plays `pieces` (black's frame, 19 pieces)
/// need to fill the goal: see the module documentation.
#[inline]
pub fn lower_bound(pieces: Bitboard) -> u32 {
    bound_with(pieces, Counts::of(pieces))
}

/// [`lower_bound`] with the piece counts already known.
#[inline]
pub(super) fn bound_with(pieces: Bitboard, counts: Counts) -> u32 {
    bound_within(pieces, counts, u32::MAX - 1, || Packing::new().plays(pieces))
}

/// [`bound_with`] as far as a node with `room` plays left needs it: the
/// same value when that is at most `room`, else some lower bound above
/// `room`. The isolation packing, the dearest term, is left out when the
/// other terms already exceed `room`, or when one far lone piece (at
/// least 1 isolation play) does; `isolation` gives it (the packing's
/// count of `pieces`) only where it is needed.
#[inline]
pub(super) fn bound_within(pieces: Bitboard, counts: Counts, room: u32, isolation: impl FnOnce() -> u32) -> u32 {
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
pub(super) struct Counts {
    /// Pieces outside the goal.
    pub(super) outside: u32,
    /// Pieces in the goal.
    pub(super) in_goal: u32,
    /// Pieces in each parity class ([`class_of`]).
    pub(super) class: [u32; 4],
    /// Outsiders on [`GOAL_EDGE`] in each parity class.
    pub(super) edge: [u32; 4],
}

/// Parity class of a cell, `x % 2 + 2 * (y % 2)`: a hop keeps a piece in
/// its class, only a step changes it.
#[inline]
pub(super) const fn class_of(c: u8) -> usize {
    (c % 2 + 2 * (c / 16 % 2)) as usize
}

impl Counts {
    pub(super) fn of(pieces: Bitboard) -> Counts {
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
    pub(super) fn after(mut self, mv: HMove) -> Counts {
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
    pub(super) fn parity(&self) -> u32 {
        let mut plays = 0;
        for ((&n, &goal), &edge) in self.class.iter().zip(&GOAL_CLASS).zip(&self.edge) {
            plays += n.saturating_sub(goal).saturating_sub(edge);
        }
        plays
    }
}

/// [`Counts::parity`] of `pieces`.
#[cfg(test)]
pub(super) fn parity_plays(pieces: Bitboard) -> u32 {
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
pub(super) const GOAL_EDGE: Bitboard = {
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
pub(super) static GOAL_DIST: [u8; CELLS] = build_goal_dist();

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
pub(super) fn isolation_plays(pieces: Bitboard) -> u32 {
    pack_isolation(pieces, &mut arrayvec::ArrayVec::new())
}

/// A node's isolation packing ([`pack_isolation`]), computed at most once
/// for both the static bound and the stuck zones of a tight node; its
/// count may come from the [`OutsideMemo`](super::memo::OutsideMemo) without the units.
pub(super) struct Packing {
    pub(super) plays: Option<u32>,
    units: Option<arrayvec::ArrayVec<(Bitboard, u32), 19>>,
}

impl Packing {
    #[inline]
    pub(super) fn new() -> Packing {
        Packing { plays: None, units: None }
    }

    /// The isolation plays of `pieces` (always the same position).
    #[inline]
    pub(super) fn plays(&mut self, pieces: Bitboard) -> u32 {
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
    pub(super) fn units(&mut self, pieces: Bitboard) -> &[(Bitboard, u32)] {
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
pub(super) static BALL2: [Bitboard; CELLS] = ball(2);

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
pub(super) fn chebyshev(a: u8, b: u8) -> u32 {
    let dx = (a % 16).abs_diff(b % 16);
    let dy = (a / 16).abs_diff(b / 16);
    u32::from(dx.max(dy))
}

/// `b` and the cells next to it (fewer shifts than
/// [`Bitboard::neighbours`]: along the rows, then along the columns).
#[inline]
pub(super) fn grow1(b: Bitboard) -> Bitboard {
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
pub(super) fn band_plays(pieces: Bitboard) -> u32 {
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
pub(super) fn occupied_levels(b: Bitboard) -> u32 {
    let mut levels = 0u32;
    for (i, &w) in b.0.iter().enumerate() {
        for r in 0..4 {
            levels |= (((w >> (16 * r)) & 0xFFFF) as u32) << (4 * i + r);
        }
    }
    levels
}
