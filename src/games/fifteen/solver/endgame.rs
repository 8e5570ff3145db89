//! The solver's last plies and bounds: positions with two or three cards
//! left valued from the block sums without playing the moves, and static
//! bounds on the final value from the cards that can no longer change.

use crate::games::fifteen::eval::{self, POINT};
use crate::games::fifteen::geo::{geo, value_index, Geo, MAX_CELLS, VALUES};
use crate::games::fifteen::{Fifteen, Move};

/// A position with three cards left in which the mover holds two and the
/// opponent one: its children are [`two_left`] positions, valued from the
/// block sums without playing the move (most interior nodes are these).
pub(super) struct ThreeLeft {
    start: Placed,
    /// The mover's hand.
    hand: [u8; 5],
    /// The opponent's card.
    theirs: usize,
}

impl ThreeLeft {
    pub(super) fn of(g: &Fifteen) -> Option<ThreeLeft> {
        let me = g.side();
        if g.unstable || g.hand_len(me) != 2 {
            return None;
        }
        Some(ThreeLeft {
            start: Placed::of(g),
            hand: g.hand[me],
            theirs: single_card(g.hand[me.other()])?,
        })
    }

    /// The value of playing `mv` for the mover, fail-soft in (alpha, beta);
    /// None in the cases [`two_left`] leaves out.
    #[inline]
    pub(super) fn child_value(&self, geo: &Geo, free: u64, mv: Move, alpha: i32, beta: i32) -> Option<i32> {
        let vi = value_index(mv.card)?;
        let mut hand = self.hand;
        hand[vi] -= 1;
        let kept = single_card(hand)?;
        let c = mv.cell as usize;
        let mut child = self.start.place(geo, c, mv.card, vi, self.start.removals_if(geo, c, mv.card));
        child.flip();
        two_left(&child, geo, free & !(1u64 << c), self.theirs, kept, -beta, -alpha).map(|v| -v)
    }
}

/// The value index of the only card in a hand holding exactly one.
#[inline]
pub(super) fn single_card(hand: [u8; 5]) -> Option<usize> {
    let mut found = None;
    for (vi, &k) in hand.iter().enumerate() {
        match (k, found) {
            (0, _) => {}
            (1, None) => found = Some(vi),
            _ => return None,
        }
    }
    found
}

/// The highest card value among `cells`, given the cells of each value.
#[inline]
pub(super) fn highest(by_value: &[u64; 5], cells: u64) -> i32 {
    let mut k = 5;
    while k > 0 {
        k -= 1;
        if by_value[k] & cells != 0 {
            return VALUES[k] as i32;
        }
    }
    0
}

/// The board after the mover placed the second-to-last card, as the
/// opponent's last card meets it.
pub(super) struct Placed {
    val: [u8; MAX_CELLS],
    bsum: [u8; MAX_CELLS],
    occ: u64,
    mine: u64,
    theirs: u64,
    /// Cells by card value, so that each side's highest card after a
    /// placement is a few mask tests.
    by_value: [u64; 5],
    /// The mover's score margin in points.
    base: i32,
}

impl Placed {
    /// `g`'s board (the mover's view) before any placement.
    pub(super) fn of(g: &Fifteen) -> Placed {
        let me = g.side();
        let mut p = Placed {
            val: g.val,
            bsum: g.bsum,
            occ: g.occ,
            mine: g.own[me],
            theirs: g.own[me.other()],
            by_value: [0; 5],
            base: 0,
        };
        let mut occ = g.occ;
        while occ != 0 {
            let q = occ.trailing_zeros() as usize;
            occ &= occ - 1;
            let v = g.val[q];
            p.by_value[value_index(v).unwrap_or(0)] |= 1 << q;
            p.base += if p.mine >> q & 1 == 1 { v as i32 } else { -(v as i32) };
        }
        p
    }

    /// The mover's card `a` (value index `ai`) placed on `c`, the cards it
    /// marks (`marked`, from [`Fifteen::removals_if`]) gone.
    pub(super) fn place(&self, geo: &Geo, c: usize, a: u8, ai: usize, marked: u64) -> Placed {
        let mut p = Placed {
            val: self.val,
            bsum: self.bsum,
            occ: self.occ | 1 << c,
            mine: self.mine | 1 << c,
            theirs: self.theirs,
            by_value: self.by_value,
            base: self.base + a as i32,
        };
        p.val[c] = a;
        p.by_value[ai] |= 1 << c;
        add_block(geo, &mut p.bsum, c, a);
        let mut m = marked;
        while m != 0 {
            let q = m.trailing_zeros() as usize;
            m &= m - 1;
            let v = p.val[q];
            sub_block(geo, &mut p.bsum, q, v);
            p.base -= if p.mine >> q & 1 == 1 { v as i32 } else { -(v as i32) };
        }
        p.occ &= !marked;
        p.mine &= !marked;
        p.theirs &= !marked;
        for bv in p.by_value.iter_mut() {
            *bv &= !marked;
        }
        p
    }

    /// The cards that placing `card` on `c` would mark (as
    /// [`Fifteen::removals_if`]).
    #[inline]
    pub(super) fn removals_if(&self, geo: &Geo, c: usize, card: u8) -> u64 {
        let mut marked = 0u64;
        let mut b = geo.block[c] & (self.occ | 1 << c);
        while b != 0 {
            let q = b.trailing_zeros() as usize;
            b &= b - 1;
            if self.bsum[q] + card > crate::games::fifteen::LIMIT {
                marked |= 1 << q;
            }
        }
        marked
    }

    /// The same board from the other player's side.
    #[inline]
    pub(super) fn flip(&mut self) {
        std::mem::swap(&mut self.mine, &mut self.theirs);
        self.base = -self.base;
    }

    /// The mover's final value after the opponent's best placement of its
    /// last card `b` on one of `free`; stops as soon as it is at most
    /// `floor` (then it is an upper bound). i32::MAX if `free` is empty.
    pub(super) fn reply(&self, geo: &Geo, free: u64, b: u8, floor: i32) -> i32 {
        // The cards that `b` would push over wherever it lands next to them.
        let mut vulnerable = 0u64;
        // The cells next to the mover's vulnerable cards: the replies that
        // remove them, tried first as the likeliest to reach the floor.
        let mut threats = 0u64;
        let mut o = self.occ;
        while o != 0 {
            let q = o.trailing_zeros() as usize;
            o &= o - 1;
            if self.bsum[q] + b > crate::games::fifteen::LIMIT {
                vulnerable |= 1 << q;
                if self.mine >> q & 1 == 1 {
                    threats |= geo.block[q];
                }
            }
        }
        threats &= free;
        let mut worst = i32::MAX;
        let mut seen_quiet = false;
        let mut f = threats;
        let mut rest = free & !threats;
        loop {
            if f == 0 {
                if rest == 0 {
                    break;
                }
                f = rest;
                rest = 0;
            }
            let d = f.trailing_zeros() as usize;
            f &= f - 1;
            let self_over = self.bsum[d] + b > crate::games::fifteen::LIMIT;
            let marked = geo.block[d] & vulnerable | (self_over as u64) << d;
            if marked == 0 {
                // Every placement that removes nothing ends the same way.
                if seen_quiet {
                    continue;
                }
                seen_quiet = true;
            }
            let mut margin = self.base - if self_over { 0 } else { b as i32 };
            let mut m = marked & !(1u64 << d);
            while m != 0 {
                let q = m.trailing_zeros() as usize;
                m &= m - 1;
                margin += if self.mine >> q & 1 == 1 {
                    -(self.val[q] as i32)
                } else {
                    self.val[q] as i32
                };
            }
            let hi_mine = highest(&self.by_value, self.mine & !marked);
            let mut hi_theirs = highest(&self.by_value, self.theirs & !marked);
            if !self_over {
                hi_theirs = hi_theirs.max(b as i32);
            }
            worst = worst.min(POINT * margin + eval::TIE_BREAK * (hi_mine - hi_theirs).signum());
            if worst <= floor {
                break;
            }
        }
        worst
    }
}

#[inline]
pub(super) fn add_block(geo: &Geo, bsum: &mut [u8; MAX_CELLS], c: usize, v: u8) {
    let mut blk = geo.block[c];
    while blk != 0 {
        bsum[blk.trailing_zeros() as usize] += v;
        blk &= blk - 1;
    }
}

#[inline]
pub(super) fn sub_block(geo: &Geo, bsum: &mut [u8; MAX_CELLS], c: usize, v: u8) {
    let mut blk = geo.block[c];
    while blk != 0 {
        bsum[blk.trailing_zeros() as usize] -= v;
        blk &= blk - 1;
    }
}

/// Value of a position in which each player holds one card and the mover
/// places first (None for any other position), fail-soft in (alpha, beta):
/// the mover's placements against the opponent's best last placement, on
/// block sums updated in place rather than through played positions (these
/// positions are most of the search).
pub(super) fn last_two(g: &Fifteen, alpha: i32, beta: i32) -> Option<i32> {
    if g.unstable {
        return None;
    }
    let me = g.side();
    let ai = single_card(g.hand[me])?;
    let bi = single_card(g.hand[me.other()])?;
    two_left(&Placed::of(g), geo(g.size()), g.free(), ai, bi, alpha, beta)
}

/// [`last_two`] on a board already in [`Placed`] form: the mover holds card
/// index `ai`, the opponent `bi`, `free` are the cells left. A placement is
/// dropped as soon as one reply holds it to alpha or to an earlier
/// placement's value. None when no cell is left for the last card.
pub(super) fn two_left(start: &Placed, geo: &Geo, free: u64, ai: usize, bi: usize, alpha: i32, beta: i32) -> Option<i32> {
    let mut best = i32::MIN;
    let mut f = free;
    while f != 0 {
        let c = f.trailing_zeros() as usize;
        f &= f - 1;
        let placed = start.place(geo, c, VALUES[ai], ai, start.removals_if(geo, c, VALUES[ai]));
        let worst = placed.reply(geo, free & !(1u64 << c), VALUES[bi], best.max(alpha));
        if worst == i32::MAX {
            return None;
        }
        best = best.max(worst);
        if best >= beta {
            break;
        }
    }
    (best != i32::MIN).then_some(best)
}

/// Bounds on the final value of `g` from what can still change: a card is
/// permanent when no free cell is next to it, or when even the largest
/// cards left, one on each free cell next to it, cannot lift its block over
/// the limit (blocks only lose cards, except by placements). The mover ends
/// with at most its board and hand, and at least its permanent cards; the
/// same holds for the opponent.
pub(super) fn static_bounds(g: &Fifteen) -> (i32, i32) {
    let geo = geo(g.size());
    let me = g.side();
    let free = g.free();
    // top[k]: the sum of the k largest cards left in both hands.
    let mut top = [0u8; 10];
    let mut k = 0;
    for vi in (0..5).rev() {
        let count = g.hand(me)[vi] + g.hand(me.other())[vi];
        for _ in 0..count {
            if k + 1 < top.len() {
                top[k + 1] = top[k].saturating_add(VALUES[vi]);
                k += 1;
            }
        }
    }
    let last = top[k];
    top[k + 1..].fill(last);
    let mut total = [0i32; 2];
    let mut fixed = [0i32; 2];
    for (i, p) in [me, me.other()].into_iter().enumerate() {
        let mut m = g.owned(p);
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            let v = g.value_at(c) as i32;
            total[i] += v;
            let open = (free & geo.block[c]).count_ones() as usize;
            if open == 0 || g.block_sum(c).saturating_add(top[open.min(9)]) <= crate::games::fifteen::LIMIT {
                fixed[i] += v;
            }
        }
        let hand: i32 = (0..5).map(|vi| g.hand(p)[vi] as i32 * VALUES[vi] as i32).sum();
        total[i] += hand;
    }
    let hi = POINT * (total[0] - fixed[1]) + eval::TIE_BREAK;
    let lo = POINT * (fixed[0] - total[1]) - eval::TIE_BREAK;
    (lo, hi)
}
