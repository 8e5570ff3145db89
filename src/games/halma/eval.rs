//! Halma evaluation: a linear function of a few [`Weights`].
//!
//! The bulk of the evaluation is a per-cell table, built from the weights and
//! summed incrementally in `play`: progress towards the far corner (linear
//! and quadratic in the distance: the hand-set weights made the cost convex so
//! that a piece far behind is worth more to move than one near the goal), a
//! drift penalty away from the main diagonal, a bonus for being inside the
//! goal camp and a penalty for lingering in the own camp. Two cheap
//! non-incremental terms follow: the distance of the rearmost piece (with the
//! fitted weights, the term that punishes stragglers), and, when few pieces
//! are still outside the goal, each one's distance to the nearest free goal
//! cell, so the last pieces head for the holes instead of parking next to a
//! full camp.
//!
//! [`features`] gives the same terms unweighted, for the Texel fit of the
//! weights on self-play (`agent halma texel-data`, `scripts/texel-fit.py`).

use super::bitboard::{col, max_level, min_level, row, Bitboard, CAMP, CELLS, LEVEL_GE, TOP_LEVEL};
use super::{solver, HMove, Halma, Reading};
use crate::protocol::Player;
use crate::search::{Evaluator, Limits, SearchHints, Searchable, TimeScores};

pub use super::table::{build_table, diag_distance, Weights, FEATURE_NAMES};
pub(crate) use super::table::{FEATURES, TABLE, WEIGHTS};
#[cfg(test)]
pub(crate) use super::table::HAND_SET;
use super::table::{cell_features, round};

/// [`WEIGHTS`]' straggler and endgame weights as the search adds them.
const STRAGGLER_WEIGHT: i32 = round(WEIGHTS.straggler);
const ENDGAME_WEIGHT: i32 = round(WEIGHTS.endgame);

/// Pieces outside the goal from which the endgame term switches on.
pub const ENDGAME_PIECES: u32 = 6;

/// The cells at distance `>= k` from `colour`'s far corner.
#[inline]
fn at_distance_ge(colour: Player, k: usize) -> Bitboard {
    match colour {
        // Black's distance is 30 - level: at least k means level <= 30 - k.
        Player::One => !LEVEL_GE[TOP_LEVEL + 1 - k],
        Player::Two => LEVEL_GE[k],
    }
}

/// Distance to the far corner of `colour`'s rearmost piece in `own` (0 for
/// none): the lowest or highest level of the set.
#[inline]
pub(crate) fn rearmost(colour: Player, own: Bitboard) -> i32 {
    match colour {
        Player::One => (TOP_LEVEL as u32 - min_level(own)) as i32,
        Player::Two => max_level(own) as i32,
    }
}

/// What one play of a `colour` piece does to that colour's straggler term
/// (`STRAGGLER_WEIGHT` times [`rearmost`]), for the search's one-ply
/// frontier, which scores every play without making it.
pub(crate) struct StragglerDelta {
    colour: Player,
    rear: i32,
    /// The rearmost piece when it is alone at its distance: moving it
    /// uncovers `rear_without`.
    alone: Option<u8>,
    rear_without: i32,
}

impl StragglerDelta {
    /// The term's state for `colour`'s pieces `own`.
    pub fn new(colour: Player, own: Bitboard) -> Self {
        let rear = rearmost(colour, own);
        let at_rear = own & at_distance_ge(colour, rear as usize);
        let (alone, rear_without) = if at_rear.count() == 1 {
            (at_rear.iter().next(), rearmost(colour, own & !at_rear))
        } else {
            (None, rear)
        };
        StragglerDelta {
            colour,
            rear,
            alone,
            rear_without,
        }
    }

    /// The change of the colour's straggler term when its piece on `from`
    /// moves to `to`.
    #[inline]
    pub(crate) fn delta(&self, from: u8, to: u8) -> i32 {
        if STRAGGLER_WEIGHT == 0 {
            return 0;
        }
        let others = if self.alone == Some(from) { self.rear_without } else { self.rear };
        STRAGGLER_WEIGHT * (others.max(diag_distance(self.colour, to)) - self.rear)
    }
}

/// The endgame distance of `colour`: the sum, over its outsiders, of the
/// distance to the nearest goal cell that is still free (or held by an
/// opponent piece that must leave); 0 in the middle game (more than
/// [`ENDGAME_PIECES`] outside) or with no free goal cell.
pub(crate) fn endgame_distance(colour: Player, own: Bitboard, occ: Bitboard) -> i32 {
    let goal = CAMP[colour.other()];
    let outside = own & !goal;
    let n = outside.count();
    if n == 0 || n > ENDGAME_PIECES {
        return 0;
    }
    let holes = goal & !occ;
    if holes.is_empty() {
        return 0;
    }
    let mut total = 0;
    for p in outside.iter() {
        let (px, py) = (col(p) as i32, row(p) as i32);
        let mut best = i32::MAX;
        for h in holes.iter() {
            let (hx, hy) = (col(h) as i32, row(h) as i32);
            let d = (px - hx).abs().max((py - hy).abs());
            best = best.min(d);
        }
        total += best;
    }
    total
}

/// The non-table part of `colour`'s evaluation under [`WEIGHTS`]: the
/// straggler and endgame terms (the table sum is kept by `play`).
#[inline]
pub(crate) fn extra_terms(colour: Player, own: Bitboard, occ: Bitboard) -> i32 {
    let straggler = if STRAGGLER_WEIGHT != 0 {
        STRAGGLER_WEIGHT * rearmost(colour, own)
    } else {
        0
    };
    straggler + ENDGAME_WEIGHT * endgame_distance(colour, own, occ)
}

/// `colour`'s unweighted evaluation terms, in [`FEATURE_NAMES`] order: its
/// evaluation is their dot product with the weights (up to the table's
/// rounding per cell).
pub fn features(colour: Player, own: Bitboard, occ: Bitboard) -> [i32; FEATURES] {
    let mut f = [0i32; FEATURES];
    for p in own.iter() {
        for (acc, v) in f.iter_mut().zip(cell_features(colour, p)) {
            *acc += v;
        }
    }
    f[6] = rearmost(colour, own);
    f[7] = endgame_distance(colour, own, occ);
    f
}

/// The agent's evaluation of Halma: the table sums and the straggler and
/// endgame terms, separated positions settled by their race.
#[derive(Clone, Copy, Debug, Default)]
pub struct HalmaEval;

/// The reference agent's evaluation: the plain distance sums
/// (`Halma::simple_eval`).
#[derive(Clone, Copy, Debug, Default)]
pub struct HalmaReference;

impl Searchable for Halma {
    // The ladder's table is set in Halma's evaluation units and measured
    // on Halma (`scripts/ladder.sh`).
    const LEVELS: bool = true;

    type Eval = HalmaEval;
    type Reference = HalmaReference;
}

impl Evaluator<Halma> for HalmaReference {
    type Context = ();

    fn evaluate(&self, pos: &Halma) -> i32 {
        pos.simple_eval()
    }
}

impl Evaluator<Halma> for HalmaEval {
    type Context = solver::RaceContext;

    /// Every search paces its race solves by its own time.
    fn begin_search(&self, pos: &Halma, ctx: &mut solver::RaceContext, limits: &Limits) {
        ctx.begin(pos, limits);
    }

    // A piece's step is worth ~35 on the table and a long jump chain a few
    // hundred: a drop of 100 between iterations is a real change of
    // opinion, and a lead of 3000 (some ten moves' worth of progress) is a
    // game decided whatever is played now.
    const TIME_SCORES: Option<TimeScores> = Some(TimeScores {
        drop: 100,
        decided: 3000,
    });

    fn evaluate(&self, pos: &Halma) -> i32 {
        let s = pos.side;
        let o = s.other();
        let occ = pos.occupied();
        let mine = pos.table_sum[s] + extra_terms(s, pos.pieces[s], occ);
        let theirs = pos.table_sum[o] + extra_terms(o, pos.pieces[o], occ);
        mine - theirs
    }

    /// Separated positions are leaves: the race value when both races are
    /// solved (see `solver::race_value`).
    fn exact_value(&self, pos: &Halma, ctx: &mut solver::RaceContext) -> Option<i32> {
        solver::race_value(pos, ctx)
    }

    /// In the middle game every child is scored by the table sums and the
    /// straggler term alone (both sides have more than
    /// `ENDGAME_PIECES + 1` pieces outside their goals, no play can
    /// win or reach a separation), so the one-ply value is this evaluation
    /// plus the best gain of a legal play in those two terms: one pass over
    /// the reach sets instead of ~150 children. A position in which the
    /// opponent would have no legal move after some play (never seen in a
    /// game) is scored by those terms like the others.
    fn frontier_value(&self, pos: &Halma, beta: i32) -> Option<(i32, HMove)> {
        let s = pos.side;
        let o = s.other();
        let goal = CAMP[o];
        let occ = pos.occupied();
        let outside = |c: Player| (pos.pieces[c] & !CAMP[c.other()]).count();
        let holes = (goal & !occ).count();
        if outside(s) < ENDGAME_PIECES + 2
            || outside(o) <= ENDGAME_PIECES
            || holes == 1
            || !solver::no_child_separated(pos)
        {
            return None;
        }
        let here = self.evaluate(pos);
        let table = &TABLE[s];
        let straggler = StragglerDelta::new(s, pos.pieces[s]);
        let mut best: Option<(i32, HMove)> = None;
        pos.for_each_legal(Reading::Narrow, |from, targets| {
            let base = table[from as usize];
            for to in targets.iter() {
                let gain = table[to as usize] - base + straggler.delta(from, to);
                if best.is_none_or(|(g, _)| gain > g) {
                    best = Some((gain, HMove { from, to }));
                }
            }
            // A move worth beta settles the node (fail-soft).
            best.is_none_or(|(g, _)| here + g < beta)
        });
        best.map(|(gain, mv)| (here + gain, mv))
    }
}

impl SearchHints for Halma {
    // Positive: re-entering a seen position is good for the side to move
    // there, i.e. bad for the mover who walked back into it.
    const REPEAT_SCORE: i32 = 150;

    const HISTORY_SIZE: usize = CELLS * CELLS;

    // ~150 moves a node, most of them steps sideways or back that the table
    // gain orders last: reducing the tail of the ordering is where depth
    // comes from.
    const LATE_MOVE_REDUCTIONS: bool = true;

    // The same tail, near the leaves, is not searched at all.
    const LATE_MOVE_PRUNING: bool = true;

    // Fewer nodes to the same depth (`docs/results.md`, "Speed").
    const HISTORY_MALUS: bool = true;

    #[inline]
    fn history_key(&self, mv: HMove) -> usize {
        mv.from as usize * CELLS + mv.to as usize
    }

    #[inline]
    fn order_hint(&self, mv: HMove) -> i32 {
        let s = self.side;
        TABLE[s][mv.to as usize] - TABLE[s][mv.from as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::halma::bitboard::cell;
    use crate::protocol::GenOptions;

    /// The evaluation table as it was written by hand before the weights.
    fn hand_table_value(colour: Player, cc: u8) -> i32 {
        let d = diag_distance(colour, cc);
        let (x, y) = (col(cc) as i32, row(cc) as i32);
        let lateral = (x - y).abs();
        let mut v = -(20 * d + d * d / 2);
        let in_goal = CAMP[colour.other()].has(cc);
        if !in_goal && lateral > 3 {
            v -= 6 * (lateral - 3);
        }
        if in_goal {
            v += 40;
        }
        if CAMP[colour].has(cc) {
            v -= 60;
        }
        v
    }

    fn dot(w: &Weights, f: &[i32; FEATURES]) -> f64 {
        w.to_array().iter().zip(f).map(|(w, &f)| w * f as f64).sum()
    }

    /// Positions from seeded random games, including late ones with few
    /// pieces outside the goal.
    fn sample_positions() -> Vec<Halma> {
        use crate::play::openings::random_opening;
        let mut v = Vec::new();
        for seed in 0..40 {
            let pos: Halma = random_opening(&GenOptions::default(), 2 + seed as u32 * 5, seed).unwrap();
            v.push(pos);
        }
        v
    }

    #[test]
    fn the_hand_set_weights_reproduce_the_hand_written_evaluation() {
        for colour in Player::ALL {
            let t = build_table(colour, &HAND_SET);
            for c in 0..=255u8 {
                assert_eq!(t[c as usize], hand_table_value(colour, c), "{colour:?} cell {c}");
            }
        }
        for pos in sample_positions() {
            let occ = pos.occupied();
            for colour in Player::ALL {
                let own = pos.pieces(colour);
                let hand: i32 = own.iter().map(|p| hand_table_value(colour, p)).sum::<i32>()
                    - 12 * endgame_distance(colour, own, occ);
                assert_eq!(dot(&HAND_SET, &features(colour, own, occ)), hand as f64);
            }
        }
    }

    #[test]
    fn the_evaluation_is_the_features_dot_the_weights() {
        for pos in sample_positions() {
            let occ = pos.occupied();
            let (me, them) = (pos.side(), pos.side().other());
            let exact = dot(&WEIGHTS, &features(me, pos.pieces(me), occ))
                - dot(&WEIGHTS, &features(them, pos.pieces(them), occ));
            // Each piece's table value is rounded by up to a half, and the
            // extra weights by up to a half per unit of their features
            // (rearmost <= 30, endgame <= 6 outsiders x 15 cells), both sides.
            let slack = 0.5 * PIECES_BOTH as f64 + 0.5 * 2.0 * (30.0 + 90.0);
            let value = HalmaEval.evaluate(&pos);
            assert!((value as f64 - exact).abs() <= slack, "{value} vs {exact}");
        }
    }

    const PIECES_BOTH: u32 = 2 * crate::games::halma::PIECES;

    #[test]
    fn rearmost_finds_the_piece_furthest_from_the_goal() {
        for pos in sample_positions() {
            for colour in Player::ALL {
                let own = pos.pieces(colour);
                let want = own.iter().map(|p| diag_distance(colour, p)).max().unwrap_or(0);
                assert_eq!(rearmost(colour, own), want);
            }
        }
        assert_eq!(rearmost(Player::One, Bitboard::EMPTY), 0);
    }

    #[test]
    fn tables_are_mirror_images_and_reward_progress() {
        for c in 0..=255u8 {
            assert_eq!(TABLE[Player::One][c as usize], TABLE[Player::Two][255 - c as usize]);
        }
        let black = &TABLE[Player::One];
        assert!(black[cell(15, 15) as usize] > black[cell(8, 8) as usize]);
        assert!(black[cell(8, 8) as usize] > black[cell(0, 0) as usize]);
        // The hand-set table: a rear piece gains more from one anti-diagonal
        // than a front one. The fitted weights leave that to the straggler
        // term, which only the rearmost piece's advance pays.
        let hand = build_table(Player::One, &HAND_SET);
        let gain =
            |a: (usize, usize), b: (usize, usize)| hand[cell(b.0, b.1) as usize] - hand[cell(a.0, a.1) as usize];
        assert!(gain((6, 6), (7, 6)) > gain((11, 11), (12, 11)));
        let (rear, front) = (cell(6, 6), cell(11, 11));
        let own = Bitboard::single(rear) | Bitboard::single(front);
        let value = |own: Bitboard| {
            let f = features(Player::One, own, own);
            WEIGHTS.to_array().iter().zip(f).map(|(w, f)| w * f as f64).sum::<f64>()
        };
        let advanced = |from: u8, to: u8| {
            let mut b = own;
            b.clear(from);
            b.set(to);
            value(b) - value(own)
        };
        assert!(advanced(rear, cell(7, 6)) > advanced(front, cell(12, 11)));
    }
}
