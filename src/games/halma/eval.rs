//! Halma evaluation tables and the endgame terms.
//!
//! The bulk of the evaluation is a per-cell table summed incrementally in
//! `play`: progress towards the far corner with a convex cost (a piece far
//! behind is worth more to move than one near the goal, which punishes
//! stragglers), a drift penalty away from the main diagonal, a bonus for
//! being inside the goal camp and a penalty for lingering in the own camp.
//! When few pieces are still outside the goal, a non-incremental term adds
//! each one's distance to the nearest free goal cell, so the last pieces head
//! for the holes instead of parking next to a full camp.

use super::bitboard::{col, row, Bitboard, CELLS};
use super::CAMP;
use crate::protocol::{ByPlayer, Player};

/// Chebyshev-like distance (in x+y anti-diagonals) from `c` to the corner
/// the colour is heading for ((15,15) for black, (0,0) for white).
pub const fn diag_distance(colour: Player, c: u8) -> i32 {
    let (x, y) = (col(c) as i32, row(c) as i32);
    match colour {
        Player::One => 30 - x - y,
        Player::Two => x + y,
    }
}

const fn build_table(colour: Player) -> [i32; CELLS] {
    let mut t = [0i32; CELLS];
    let mut c = 0;
    while c < CELLS {
        let cc = c as u8;
        let d = diag_distance(colour, cc);
        let (x, y) = (col(cc) as i32, row(cc) as i32);
        let lateral = if x > y { x - y } else { y - x };
        let mut v = -(20 * d + d * d / 2);
        let in_goal = CAMP.get(colour.other()).has(cc);
        if !in_goal && lateral > 3 {
            v -= 6 * (lateral - 3);
        }
        if in_goal {
            v += 40;
        }
        if CAMP.get(colour).has(cc) {
            v -= 60;
        }
        t[c] = v;
        c += 1;
    }
    t
}

/// Value of a piece of each colour on each cell (higher is better for its owner).
pub static TABLE: ByPlayer<[i32; CELLS]> = ByPlayer::new(build_table(Player::One), build_table(Player::Two));

/// Pieces outside the goal from which the endgame term switches on.
pub const ENDGAME_PIECES: u32 = 6;

/// The endgame correction for `colour`: minus a weighted distance from each
/// of its few remaining outsiders to the nearest goal cell that is still
/// free (or held by an opponent piece that must leave). Zero in the middle
/// game, so the table alone decides there.
pub fn endgame_term(colour: Player, own: Bitboard, occ: Bitboard) -> i32 {
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
    -12 * total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::halma::bitboard::cell;

    #[test]
    fn tables_are_mirror_images_and_reward_progress() {
        for c in 0..=255u8 {
            assert_eq!(TABLE[Player::One][c as usize], TABLE[Player::Two][255 - c as usize]);
        }
        let black = &TABLE[Player::One];
        assert!(black[cell(15, 15) as usize] > black[cell(8, 8) as usize]);
        assert!(black[cell(8, 8) as usize] > black[cell(0, 0) as usize]);
        // A rear piece gains more from one anti-diagonal than a front one.
        let gain =
            |a: (usize, usize), b: (usize, usize)| black[cell(b.0, b.1) as usize] - black[cell(a.0, a.1) as usize];
        assert!(gain((6, 6), (7, 6)) > gain((11, 11), (12, 11)));
    }
}
