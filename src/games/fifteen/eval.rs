//! Static evaluation of Fifteen positions, in sixteenths of a point of
//! score margin (the unit the exact solver also uses, so heuristic and exact
//! values compare on one scale), from the side to move's view.

use super::geo::{geo, value_index, MAX_CELLS, VALUES};
use super::{Fifteen, Move, LIMIT};
use crate::protocol::{ByPlayer, Player};
use crate::search::{Evaluator, SearchHints, Searchable};

/// One point of score margin.
pub const POINT: i32 = 16;
/// The tie-break (highest card) at the end of the game: less than a point,
/// so that it only decides between equal margins.
pub const TIE_BREAK: i32 = 4;

/// Tunable weights (sixteenths of a card's value).
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    /// A card no placement can reach (no free neighbour).
    pub safe: i32,
    /// A card with free neighbours that no single card in play can push over.
    pub sheltered: i32,
    /// An own card the opponent could remove with its next placement.
    pub own_threatened: i32,
    /// An opponent card the side to move can remove now.
    pub opp_capturable: i32,
    /// Other cards one placement could push over.
    pub exposed: i32,
    /// A card still in hand.
    pub in_hand: i32,
    /// Which player's highest card on the board is higher.
    pub tie_break: i32,
}

/// The weights the agent plays with.
pub const WEIGHTS: Weights = Weights {
    safe: 16,
    sheltered: 14,
    own_threatened: 9,
    opp_capturable: 5,
    exposed: 12,
    in_hand: 9,
    tie_break: 6,
};

/// The deliberately simple evaluation of the reference (minimax) player:
/// the score margin on the board.
pub fn simple(g: &Fifteen) -> i32 {
    let me = g.side();
    POINT * (g.score(me) as i32 - g.score(me.other()) as i32)
}

/// Exact value of a finished game for the side to move: the score margin,
/// then the tie-break.
pub fn terminal(g: &Fifteen) -> i32 {
    let me = g.side();
    let margin = g.score(me) as i32 - g.score(me.other()) as i32;
    let tb = (g.max_card(me) as i32 - g.max_card(me.other()) as i32).signum();
    POINT * margin + TIE_BREAK * tb
}

/// The agent's evaluation with [`WEIGHTS`].
pub fn evaluate(g: &Fifteen) -> i32 {
    evaluate_with(g, &WEIGHTS)
}

/// Exact value, for the side to move, of a position in which it places the
/// last card of the game: the best final value over the free cells, computed
/// from the block sums without playing the moves out.
pub fn last_placement_value(g: &Fifteen) -> i32 {
    let me = g.side();
    let Some(vi) = (0..5).find(|&vi| g.hand(me)[vi] > 0) else {
        return terminal(g);
    };
    let card = VALUES[vi];
    let mine = g.owned(me);
    let theirs = g.owned(me.other());
    // Cells by card value, once, so that the highest surviving card of each
    // side after a placement is a few mask tests.
    let mut by_value = [0u64; 5];
    let mut occ = g.occupied();
    let mut base = 0i32;
    while occ != 0 {
        let c = occ.trailing_zeros() as usize;
        occ &= occ - 1;
        let v = g.value_at(c);
        by_value[value_index(v).unwrap_or(0)] |= 1 << c;
        base += if mine >> c & 1 == 1 { v as i32 } else { -(v as i32) };
    }
    let highest = |cells: u64| -> i32 {
        (0..5)
            .rev()
            .find(|&k| by_value[k] & cells != 0)
            .map_or(0, |k| VALUES[k] as i32)
    };
    let mut best = i32::MIN;
    let mut free = g.free();
    let mut seen_quiet = false;
    while free != 0 {
        let c = free.trailing_zeros() as usize;
        free &= free - 1;
        let marked = g.removals_if(c, card);
        if marked == 0 {
            // Every placement that removes nothing ends the same way.
            if seen_quiet {
                continue;
            }
            seen_quiet = true;
        }
        let survives = marked >> c & 1 == 0;
        let mut margin = base;
        let mut m = marked & !(1u64 << c);
        while m != 0 {
            let q = m.trailing_zeros() as usize;
            m &= m - 1;
            let v = g.value_at(q) as i32;
            margin += if mine >> q & 1 == 1 { -v } else { v };
        }
        let mut hi_mine = highest(mine & !marked);
        if survives {
            margin += card as i32;
            hi_mine = hi_mine.max(card as i32);
        }
        let hi_theirs = highest(theirs & !marked);
        let v = POINT * margin + TIE_BREAK * (hi_mine - hi_theirs).signum();
        best = best.max(v);
    }
    if best == i32::MIN {
        // No free cell for the card (not reachable by play): the game stands.
        return terminal(g);
    }
    best
}

/// Evaluation with explicit weights (for tuning).
pub(crate) fn evaluate_with(g: &Fifteen, w: &Weights) -> i32 {
    if g.is_over() {
        return terminal(g);
    }
    let me = g.side();
    let op = me.other();
    let geo = geo(g.size());
    let free = g.free();
    let mx = ByPlayer::from_fn(|p| g.hand_max(p));
    // top[p][k]: the sum of player p's k largest cards in hand, the most
    // that p alone can still add around a card with k free neighbours.
    let mut top = ByPlayer::new([0u8; 9], [0u8; 9]);
    for p in Player::ALL {
        let h = g.hand(p);
        let mut k = 0;
        for vi in (0..5).rev() {
            for _ in 0..h[vi] {
                if k < 8 {
                    top[p][k + 1] = top[p][k].saturating_add(VALUES[vi]);
                    k += 1;
                }
            }
        }
        let last = top[p][k];
        top[p][k + 1..].fill(last);
    }
    let mut total = 0i32;
    for p in Player::ALL {
        let mut m = g.owned(p);
        let mut sum = 0i32;
        let q = p.other();
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            let v = g.value_at(c) as i32;
            let s = g.block_sum(c);
            let open = (free & geo.block[c]).count_ones() as usize;
            let weight = if open == 0 {
                w.safe
            } else if s.saturating_add(top[q][open.min(8)]) <= LIMIT {
                // The opponent cannot push it over on its own, whatever it places.
                w.sheltered
            } else if p == me && s + mx[op] > LIMIT {
                w.own_threatened
            } else if p == op && s + mx[me] > LIMIT {
                w.opp_capturable
            } else {
                w.exposed
            };
            sum += v * weight;
        }
        let hand: i32 = (0..5).map(|vi| g.hand(p)[vi] as i32 * VALUES[vi] as i32).sum();
        sum += hand * w.in_hand;
        total += if p == me { sum } else { -sum };
    }
    total += w.tie_break * (g.max_card(me) as i32 - g.max_card(op) as i32).signum();
    total
}

/// Immediate effect of a move on the score margin, in [`POINT`] units, for
/// the mover: the placed card if it stays, minus own cards it knocks off,
/// plus opponent cards it knocks off. Used to order moves.
#[inline]
pub(crate) fn move_gain(g: &Fifteen, mv: Move) -> i32 {
    let me = g.side();
    let cell = mv.cell as usize;
    let marked = g.removals_if(cell, mv.card);
    let mut gain = if marked >> cell & 1 == 1 { 0 } else { mv.card as i32 };
    let mut m = marked & !(1u64 << cell);
    while m != 0 {
        let q = m.trailing_zeros() as usize;
        m &= m - 1;
        let v = g.value_at(q) as i32;
        gain += if g.owned(me) >> q & 1 == 1 { -v } else { v };
    }
    gain * POINT
}

/// The agent's evaluation of Fifteen: the fitted weights ([`evaluate`]),
/// the end of the game exact, a capture quiescence.
#[derive(Clone, Copy, Debug, Default)]
pub struct FifteenEval;

/// The reference agent's evaluation: the plain score margin ([`simple`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct FifteenReference;

impl Searchable for Fifteen {
    type Eval = FifteenEval;
    type Reference = FifteenReference;
}

impl Evaluator<Fifteen> for FifteenReference {
    type Context = ();

    fn evaluate(&self, pos: &Fifteen) -> i32 {
        simple(pos)
    }
}

impl Evaluator<Fifteen> for FifteenEval {
    type Context = ();

    fn evaluate(&self, pos: &Fifteen) -> i32 {
        evaluate(pos)
    }

    /// A finished game by its margin and tie-break; the last card of the game
    /// by the best of its placements, computed without playing them.
    fn exact_value(&self, pos: &Fifteen, _ctx: &mut ()) -> Option<i32> {
        match pos.plies_left() {
            0 => Some(terminal(pos)),
            1 => Some(last_placement_value(pos)),
            _ => None,
        }
    }

    const QUIESCENCE_PLIES: u32 = 4;

    /// Placements next to an opponent card that remove some of its cards and
    /// gain more than placing the same card quietly would.
    fn noisy_moves(&self, pos: &Fifteen, out: &mut Vec<Move>) {
        let me = pos.side();
        let theirs = pos.own[me.other()];
        let geo = pos.geo();
        let mut near = 0u64;
        let mut t = theirs;
        while t != 0 {
            near |= geo.block[t.trailing_zeros() as usize];
            t &= t - 1;
        }
        near &= pos.free();
        let hand = pos.hand[me];
        while near != 0 {
            let c = near.trailing_zeros() as usize;
            near &= near - 1;
            for vi in 0..5 {
                if hand[vi] == 0 || pos.removals_if(c, VALUES[vi]) & theirs == 0 {
                    continue;
                }
                let mv = Move {
                    cell: c as u8,
                    card: VALUES[vi],
                };
                if move_gain(pos, mv) > VALUES[vi] as i32 * POINT {
                    out.push(mv);
                }
            }
        }
    }
}

impl SearchHints for Fifteen {
    const HISTORY_SIZE: usize = MAX_CELLS * 16;

    fn history_key(&self, mv: Move) -> usize {
        mv.cell as usize * 16 + mv.card as usize
    }

    /// The immediate margin change, scaled so that it outweighs young history.
    fn order_hint(&self, mv: Move) -> i32 {
        move_gain(self, mv) * 64
    }

    /// The symmetry-folded hash: the eight symmetries of the square share an
    /// entry, the frame being the symmetry that maps this board onto it.
    fn tt_key(&self) -> (u64, u8) {
        let (key, sym) = self.canonical();
        (key, sym as u8)
    }

    fn move_to_frame(&self, mv: Move, frame: u8) -> Move {
        Move {
            cell: self.geo().sym[frame as usize][mv.cell as usize],
            card: mv.card,
        }
    }

    fn move_from_frame(&self, mv: Move, frame: u8) -> Move {
        Move {
            cell: self.geo().inv[frame as usize][mv.cell as usize],
            card: mv.card,
        }
    }
}
